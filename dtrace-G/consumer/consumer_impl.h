/* SPDX-License-Identifier: MIT */
/*
 * consumer_impl.h - what the files of dtrace-G/consumer/ share; not for
 * the rest of the command (consumer.h is the consumer's interface).
 *
 * One struct consumer holds a run's state and is passed to every
 * function that needs it; nothing is global.  Its parts:
 *
 *	consumer.c	the run: options, the D program, targets and
 *			processes, signals, the loop, teardown
 *	sites.c		which probes: the files processes map, their
 *			probes and sites, matched against the clauses
 *	records.c	hits read from a backend, in time order, decoded
 *			and run through the D program; threads that exit
 *	lineage.c	the fork tree a backend reports: which sites each
 *			process carries by inheritance, whose probe a hit
 *			is, so no hit is counted twice
 *	uprobe.c	backend: tracefs uprobe events + perf ring buffers
 *	bpf.c		backend: the same uprobe events, each running a BPF
 *			program (libbpf) that writes a BPF ring buffer
 *	bpf_agg.c	its plans for the clauses that aggregate in the
 *			kernel (bpf_agg_impl.h: what the three share)
 *	bpf_agg_cgen.c	the generated programs' maps and arming
 *	bpf_agg_read.c	reading those aggregations back
 *	kplan.c		those plans made from the D program's clauses
 *			(kplan.h), and what the kernel kept merged back
 *	fasttrap.c	backend: the kernel module's /dev/dtrace/fasttrap
 *	inproc.c	backend (-x activation=user): -G sites patched into
 *			calls to drti.o's recorder, rings shared with it
 *	provider.c	the providers (struct provider), one table each:
 *	usdtprov.c	USDT: the probes of a file's DOF and stapsdt notes
 *	pidprov.c	the pid provider: function entry, return and
 *			instruction probes on the same machinery
 *	kprov*.c	the kernel providers (syscall, profile, tick, proc):
 *			probes that are not sites in a process, on the BPF
 *			backend's program and ring buffer (kprov.c)
 *	ustack.c	user stacks: what a hit captured (c->ucap), the
 *			processes' modules, unwinding (libdwfl); ustack.h
 *	usym.c		the names of user (and kernel) addresses
 *
 * A backend is the part that arms probe sites in the kernel and brings
 * back what each hit recorded.  It is chosen once, when the run starts
 * (backend_choose() in consumer.c: DTRACE_BACKEND, read there and only
 * there, else the first that opens of fasttrap, bpf, uprobe), and the
 * common code only ever calls it through struct consumer_backend_ops,
 * whose caps say what it can arm and give (BE_CAP_*): the common code
 * asks them, never which backend it is.  It keeps its own state in its
 * member of struct consumer (up, bpf, ft).  The bpf backend is built on
 * the uprobe backend's events and per-thread perf events (which scope
 * the breakpoints to the traced processes), so it uses uprobe.c's
 * functions below and c->up as well.
 *
 * decode() says where a hit fired (file and site offset), not whose
 * probe it is: that is lin_hit_probe()'s decision (lineage.c), the same
 * for every backend.  A backend whose armed sites are inherited by
 * forked children (perf events with inherit = 1, BPF programs on them)
 * reports the fork tree with lin_fork()/lin_exec()/lin_exit(), asks
 * lin_carries() before it arms a site in a process, and says what it
 * armed with lin_own(); see lineage.c.
 */
#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#define USDT_DTRACE_CONSUMER_IMPL_H

#include <gelf.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "../d/dlang.h"
#include "../objects/probes.h"
#include "bpf/uregs.h"
#include "bpf/usdt_bpf.h"
#include "consumer.h"
#include "registry.h"
#include "xalloc.h"

#define GROUP_PREFIX "dtrace_"

/* ------------------------------------------------------------------ */
/* Data */

/*
 * A site is (file, key): the key is the site's file offset with the
 * kind of probe point in its top byte (pidprov.c).  A USDT site's kind
 * is 0, so its key is its offset.  Probe points of different kinds at
 * one address (a pid entry probe and offset 0, a pid offset probe on a
 * USDT site) are different sites: each gets its own uprobe event, and a
 * hit says which fired.  Whatever takes a file offset (tracefs, notes,
 * the fasttrap module) is given SITE_OFF(key).
 */
#define SITE_KIND_SHIFT 56
#define SITE_OFF(k) ((k) & ((UINT64_C(1) << SITE_KIND_SHIFT) - 1))
#define SITE_KIND(k) ((unsigned)((k) >> SITE_KIND_SHIFT))
#define SITE_KEY(kind, off) ((uint64_t)(kind) << SITE_KIND_SHIFT | (off))
enum {
	SITE_USDT = 0,	     /* a stapsdt/DOF site: its note's arguments */
	SITE_PID_ENTRY = 1,  /* pid entry: the SysV argument registers */
	SITE_PID_RETURN = 2, /* pid return: a uretprobe, arg1 = %rax */
	SITE_PID_OFFSET = 3, /* pid instruction offset: the registers */
};

struct dt_pidfile; /* ../pidfuncs.h */
struct pidprov;	   /* pidprov.c */

/* A note of a file: where a site is and what it says. */
struct tnote {
	uint64_t off;	   /* file offset of the site */
	uint64_t sema_off; /* file offset of the semaphore, 0 if none */
	const char *args;  /* argument specs (points into the note copy) */
};

/* An ELF file some traced process maps, read once. */
struct tfile {
	dev_t dev;
	ino_t ino;
	char *path;  /* as /proc/PID/maps names it */
	char *upath; /* what uprobe_events is given */
	GElf_Phdr *ph;
	size_t nph;
	struct tnote *notes;
	size_t nnotes;
	uint8_t *notesec;
	struct dt_probes pl; /* its probes, link-time sites */
	/* symbols, for RIP-relative note arguments */
	GElf_Sym *syms;
	char **symnames;
	size_t nsyms;
	bool failed; /* not an ELF file, no probes: never read again */
	bool dl_asks; /* its drti.o asks to be armed at its dlopen() (rec.c) */
	int fd;	     /* fasttrap: open for FASTTRAPIOC_ENABLE, else -1 */
	struct dt_pidfile *pidf; /* its functions, once a pid probe asks */
	/* open from file_get() until file_release(): read once for all */
	struct objfile *of;
};

/* A probe of one process. */
struct tprobe {
	unsigned id;
	pid_t pid;
	char *prov, *mod, *func, *name; /* provider with the pid appended */
	char *bprov;			/* the provider without it */
	unsigned nargs;
	char **argtypes;
	struct d_probe dp;
	unsigned *clauses; /* matching clauses, in program order */
	unsigned nclauses;
	unsigned *epids;
	uint16_t strmask;
	uint32_t needs; /* d_clause_needs() of its clauses */
	/*
	 * What an event on its sites fetches: the needs of every clause
	 * that matches it or the same probe in a forked child (another
	 * pid), since a child's hits come through the parent's events.
	 */
	uint16_t fstrmask;
	uint32_t fneeds;
	struct tfile *file;
	uint64_t *offs; /* site file offsets */
	unsigned noffs;
	uint64_t *enoffs; /* legacy is-enabled sites */
	unsigned nenoffs;
	bool enabled;
	/*
	 * bpf backend, aggregating in the kernel (bpf_agg.c): the clauses
	 * user space still runs for a record whose hit ran the others in
	 * the kernel (kagg_rec), with their epids
	 */
	bool kplanned;
	unsigned *uclauses, *uepids;
	unsigned nuclauses;
	/*
	 * A description that pins no process (a provider glob, or none)
	 * matches it: its sites are armed binary-wide (uprobe.c), and
	 * fstrmask/fneeds then cover every clause that can match the site.
	 */
	bool wide;
	/*
	 * ... but armed for its process alone, with events its fork
	 * children inherit (-x activation=user hands it to the kernel path:
	 * inproc_arm.c, kernel_enable()): a breakpoint binary-wide would
	 * land over the calls armed in-process in other processes
	 */
	bool alone;
	/*
	 * pid provider (pidprov.c): the kind of its site (SITE_PID_*, 0
	 * for USDT), never wide, never derived for a child; other names
	 * it answers to: "a.out" for the executable, its function's other
	 * symbols
	 */
	unsigned pidkind;
	const char *malias;
	const char **falias;
	unsigned nfalias;
};

/* uprobe backend: one uprobe event, a site with the strings read. */
struct tevent {
	struct tfile *file;
	uint64_t off;
	uint16_t strmask;
	uint32_t needs;
	uint16_t memmask; /* bpf.c: copyin(argN) bytes its records carry */
	char name[32];
	int tp; /* tracepoint id */
	/* raw record layout, from the event's format file */
	int arg_off[D_MAXARGS], arg_size[D_MAXARGS];
	bool arg_signed[D_MAXARGS];
	int str_off[D_MAXARGS];
	int comm_off;
	unsigned nargs;
	/*
	 * armed for this process alone by a uprobe_multi link, no tracefs
	 * event (bpf_attach.c's site links; tp 0); -1 once the link is
	 * closed; 0: a uprobe event's
	 */
	pid_t lpid;
	/* armed binary-wide: one perf event per CPU with pid -1 (fds) */
	bool wide;
	/* copyout() with the thread held: its instruction is no NOP, which
	 * the kernel runs before the thread can stop (bpf.c), so no hold */
	bool co_late;
	int *wfd;
	size_t nwfd;
};

/* uprobe backend: a thread its perf events were opened for. */
struct tthread {
	pid_t tid;
	bool gone;
};

/* uprobe backend: a CPU's ring buffer. */
struct tcpu {
	int cpu;
	int fd; /* the dummy event that owns the buffer */
	void *rb;
};

/* uprobe backend: one perf event, of one (event, thread, CPU). */
struct tperf {
	int fd;
	pid_t tid;
	struct tevent *ev;
};

/*
 * A link of a taken-up chain (records.c's anc_take()): a process and its
 * start time (/proc/PID/stat's), its parent the next link's pid (0 at
 * the chain's end); seen, when /proc last said it still held.
 */
struct anc_link {
	pid_t pid;
	uint64_t start, seen;
};

/* No chain of parents is longer than the pids there can be (64-bit
 * linux/threads.h's PID_MAX_LIMIT). */
#define ANC_PID_MAX (4u * 1024 * 1024)

struct tproc {
	pid_t pid;
	int pidfd;
	bool target; /* -p or -c */
	bool created; /* -c: killed when we exit early */
	bool held;    /* -c: still stopped at its entry point by us */
	bool exited;
	bool late_said; /* a dlopen()ed file armed by a read of the maps */
	uint64_t start;
	pid_t ppid;
	uint64_t ppid_seen; /* CLOCK_MONOTONIC ns: ppid still the parent */
	/* progenyof(): its chain of parents when taken up (anc_take()) */
	struct anc_link *anc;
	size_t nanc;
	uint64_t anc_t; /* CLOCK_MONOTONIC ns: the chain read by then */
	char *maps;   /* the last /proc/PID/maps read, to see changes */
	uint64_t maps_t; /* when (CLOCK_MONOTONIC ns, after the read) */
	uint64_t maps_tb; /* ... and when that read began */
	bool reimaged; /* exec'd: proc_exec_reset() since the last read */
	bool followed; /* a fork child traced from its exec (lineage.c) */
	struct tfile **files;
	size_t nfiles;
	/* uprobe backend */
	struct tthread *th;
	size_t nth;
	struct tperf *perf;
	size_t nperf;
	struct tevent **evs; /* enabled here */
	size_t nevs;
	bool tracked; /* its fork tracker events are open */
	bool forked;  /* forked a process that inherited its events */
};

/* A record read from a backend; raw points into the arena. */
struct hit {
	uint64_t time;
	uint32_t pid, tid, cpu;
	size_t rawoff; /* the raw record, in the arena */
	const uint8_t *raw;
	uint32_t rawlen;
	uint32_t xlen; /* uprobe.c: the sample's bytes after raw (ustack) */
	bool deferred; /* kept for one more read: its process was unknown */
	bool later;    /* kept: stamped at or past a tick not yet due */
	bool tick;     /* a tick-N firing: before the hits of its time */
	bool act;      /* written while the kernel saw the run active */
	bool xwon;     /* ... by the hit whose exit() ended it there */
	bool kprov;    /* a kernel provider's (kprov.c decodes it) */
	bool inproc;   /* inproc.c's, beside a kernel backend's (be_kernel) */
};

/* Where a hit fired, as decode() says it. */
struct hit_at {
	struct tfile *file;
	uint64_t off; /* the site's file offset */
	bool ppid;    /* decode() set the d_fire's ppid, as at the hit */
};

/*
 * A hit's user registers and stack (ustack.c), as decode() finds them:
 * the machine's registers as bpf/uregs.h numbers them, which is the
 * DWARF order (x86-64: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15,
 * then rip, 16, the return-address column; aarch64: x0-x30, sp 31, then
 * pc 32, which DWARF does not number), and a copy of the stack from the
 * stack pointer (USTACK_SP) up; USTACK_PC is where the probe fired.
 */
#define USTACK_NREGS UREG_N
#define USTACK_SP UREG_SP
#define USTACK_PC UREG_IP
struct ustack_cap {
	bool have;
	uint64_t regs[USTACK_NREGS];
	const uint8_t *stack;
	size_t len;
	/* or the pcs the kernel walked (UBPF_RF_UPCS), npcs * 8 bytes */
	const uint8_t *pcs;
	unsigned npcs;
};
struct ustack_state; /* ustack.c's own */

struct lnode; /* lineage.c */

/* A thread that fired a probe, watched until it exits (records.c). */
struct tseen {
	pid_t pid, tid;
};

struct consumer;

/*
 * What a backend can arm and give, beyond probe sites in processes'
 * files at their stapsdt argument specs (USDT), which every backend arms
 * (struct consumer_backend_ops.caps).
 */
enum {
	/* uprobe events: any instruction, and return probes (pid) */
	BE_CAP_UPROBES = 1u << 0,
	/* the kernel providers' programs, bpf/kprov.bpf.h (bpf_be_object()) */
	BE_CAP_KPROV = 1u << 1,
	/* a hit's per-thread CPU time, vtimestamp (vtime.c) */
	BE_CAP_VTIME = 1u << 2,
	/* a hit's copy of its process's arguments and effective ids,
	 * pr_psargs, pr_euid, pr_egid (psargs.c) */
	BE_CAP_PSARGS = 1u << 3,
	/* a -p process can be held at its dlopen()s (dlhold.c, BPF) */
	BE_CAP_HOLD = 1u << 4,
	/* a hit's real uid and gid, read at the hit (psargs.c's
	 * cred_check()) */
	BE_CAP_CRED = 1u << 5,
};

/*
 * A backend.  Every member is called from the common code only; the
 * order of a run is open, then enable() as processes and files appear,
 * poll_fds()/drain()/decode() every switchrate, proc_exit() when a
 * process ends, and at the end stop(), a last drain, stats(), close().
 */
struct consumer_backend_ops {
	const char *name;
	const char *key; /* what DTRACE_BACKEND names it by */
	unsigned caps;	 /* BE_CAP_* */
	/* 0, or -errno when it cannot be used here (the next is tried) */
	int (*open)(struct consumer *c);
	/* arm every matched probe of pr that is not yet (p->enabled) */
	void (*enable)(struct consumer *c, struct tproc *pr);
	/*
	 * fds whose POLLIN says records wait, into pfd; how many were set,
	 * at most max.  With pfd NULL: how many it would set now.
	 */
	size_t (*poll_fds)(struct consumer *c, struct pollfd *pfd, size_t max);
	/* every waiting record into c's hits (hit_push(), arena_put()) */
	void (*drain)(struct consumer *c);
	/*
	 * Where a hit fired (at) and what it recorded, into f (comm: room
	 * for the thread's name, which f->execname points to); false to
	 * skip it.  Whose probe it is, lin_hit_probe() decides.
	 */
	bool (*decode)(struct consumer *c, const struct hit *h,
		       struct d_fire *f, char *comm, size_t commlen,
		       struct hit_at *at);
	/* pr exited and its records were read: let go of its sites */
	void (*proc_exit)(struct consumer *c, struct tproc *pr);
	/* pr exec'd and its armed sites went with its old image (NULL: no) */
	void (*proc_exec)(struct consumer *c, struct tproc *pr);
	/*
	 * optional: true when f, dlopen()ed by pr while traced, was armed
	 * before any of its code ran (its drti.o asks first and waits:
	 * inproc.c), so that no hit of it was lost (sites.c's late_say())
	 */
	bool (*dl_asks)(struct consumer *c, struct tproc *pr,
			const struct tfile *f);
	/*
	 * optional: pr, a -p or -c target, has nothing to arm: the backend
	 * may ready it still (inproc.c: the arena its dlopen()s ask through)
	 */
	void (*target)(struct consumer *c, struct tproc *pr);
	/* tracing stops: no record is written after this */
	void (*stop)(struct consumer *c);
	/*
	 * optional, after the last drain and before END: fold what the
	 * kernel aggregated into the D program's aggregations
	 */
	void (*aggs)(struct consumer *c);
	/* after the last drain: report the records that were lost */
	void (*stats)(struct consumer *c);
	/* give everything back; safe on any error path, and twice */
	void (*close)(struct consumer *c);
};

extern const struct consumer_backend_ops consumer_uprobe_ops;
extern const struct consumer_backend_ops consumer_fasttrap_ops;
/* -x activation=user: the recorder in the process (inproc.c) */
extern const struct consumer_backend_ops consumer_inproc_ops;
struct inproc; /* inproc.c's own */
/*
 * -x activation=user: pr, held by dlhold.c, stopped at its exec (thread
 * tid), its new image made its own to be armed before it runs
 * (inproc_exec.c); the signal to resume the thread with
 */
int ip_exec_stop(struct consumer *c, struct tproc *pr, pid_t tid);
#ifdef HAVE_BPF
extern const struct consumer_backend_ops consumer_bpf_ops;
#endif
struct consumer_bpf; /* bpf.c's own */

/* a registered process looked at for probes of its mapped files */
struct regcand {
	pid_t pid;
	uint64_t start;
	uint64_t maps_hash;
	bool seen; /* in the registry at the last read */
};

struct consumer {
	const struct dt_trace_opts *o;
	const struct consumer_backend_ops *be;
	struct d_prog *prog;
	struct dt_ctypes *ctypes; /* the targets' types, for the compiler */
	FILE *out;
	struct tfile **files;
	size_t nfiles;
	struct tproc **procs;
	size_t nprocs;
	struct tprobe **probes;
	size_t nprobes;
	unsigned next_id, next_epid;
	bool vtime_lost_said; /* vtime_rec() */
	struct dt_desc **descs; /* per clause */
	unsigned *ndescs;
	unsigned nclauses;
	/* the registry files the descriptions can match (refresh_all()) */
	bool reg_scoped, reg_only;
	pid_t *reg_pids;
	size_t nreg_pids;
	/*
	 * Registered processes not traced, whose maps were looked at for
	 * probes only notes describe (note_procs_add()): the maps' hash
	 * when last looked at, and when the next look is due
	 */
	struct regcand *cands;
	size_t ncands;
	uint64_t cands_due_ns;
	struct d_probe begin, end;
	unsigned *begin_clauses, nbegin, *end_clauses, nend;
	/* dtrace:::ERROR: fired by run_clauses() on a fault (records.c) */
	struct d_probe error;
	unsigned *error_clauses, nerror;
	/*
	 * What the ERROR clauses read of the firing that faulted (uid,
	 * ppid, execname, vtimestamp, the stack...; not the arguments,
	 * which are the fault's): every traced probe's record carries it,
	 * as it carries what its own clauses read, since any of them may
	 * fault (match_dtrace_probes())
	 */
	uint32_t eneeds;
	unsigned *src_first; /* per source: its first clause; then the end */
	uint64_t received; /* records read from the backend */
	/*
	 * copyout() with the firing thread held at its probe (dlhold.c,
	 * the BPF backend: copyout_check()); decode()'s record held one:
	 * its thread, let go once the hit has run (records.c)
	 */
	bool cohold;
	pid_t held_pid, held_tid;
	bool co_wrote; /* the firing's d_fire wrote (its copies stale) */
	bool cohold_said; /* a thread could not be held: said once */
	bool kagg_rec; /* decode(): the kernel ran some of the hit's clauses */
	/* ... and these of its fault sites faulted (UBPF_RF_KFAULT) */
	uint64_t kfault;
	/* ... and its out area, when a clause printing from it ran there
	 * (cg_out_rec()) */
	const uint8_t *kout;
	size_t koutlen;
	bool koutk;		/* ... of a kernel probe's record (kprov.c's) */
	struct ustack_cap ucap; /* decode(): the hit's user stack, if taken */
	struct ustack_state *ust; /* ustack.c */
	uint64_t wall_offset;
	size_t rbsize;
	unsigned switchrate_ms;
	bool done;	   /* stop tracing: exit(), signal, targets gone */
	bool exit_called;  /* exit(): the remaining hits are not run */
	/* ... but those the kernel let through (hit.act), when the exit
	 * was decided there (hit.xwon: kplan_exit.c's "exit() at a traced
	 * probe"); the hit being run is such a one */
	bool kdrain, run_xwon;
	/* user space's exit() told the kernel (kprov_exited()): the time
	 * after, 0 if not; records read after the exit, not run, and
	 * those of them stamped after that time (-v: kplan_exit.c's "The
	 * flood") */
	uint64_t xact_at, xrecs, xlate;
	bool stopped; /* teardown: the backends stopped, their rings finite */
	int status;
	bool enable_failed; /* a probe could not be enabled */
	/* the hits of one read, and their raw records */
	struct hit *hits;
	size_t nhits, caphits;
	uint8_t *arena;
	size_t alen, acap;
	/*
	 * read_buffers() sets read_cap: a backend whose buffer a busy
	 * process refills as fast as it is read stops taking records once
	 * the arena holds that many bytes and sets read_more; the hits are
	 * run and the read goes on (records.c).  0: no bound.
	 */
	size_t read_cap;
	bool read_more;
	/* threads that fired, until they exit (d_thread_exit) */
	struct tseen *seen; /* open addressing by tid, 0: empty */
	size_t nseen, capseen;
	pid_t last_tid;
	uint64_t thread_exits;
	uint64_t fire_t; /* the time of the hit being run (parent_of()) */
	char psargs_buf[80]; /* the hit being run's pr_psargs (psargs.c) */
	bool begun; /* BEGIN fired: hits may run */

	/* the fork tree (lineage.c), when the backend reports one */
	struct {
		bool on;	   /* the backend reports forks */
		bool exec_drops;   /* an exec drops inherited sites */
		struct lnode **by_pid; /* open addressing, newest per pid */
		size_t n, cap;
		struct lnode **all;
		size_t nall;
		struct {
			pid_t pid;
			struct tfile *file;
			uint64_t off;
			struct tprobe *p;
		} *cache; /* (pid, site) -> probe */
		size_t ncache, capcache;
		/* execs of pids whose FORK record is not read yet */
		struct {
			pid_t pid;
			uint64_t t;
		} *xpend;
		size_t nxpend;
		bool follow_said; /* a followed exec's image armed late */
	} lin;

	/* uprobe backend (uprobe.c) */
	struct {
		char tfs[256];
		char group[64];
		char err[PATH_MAX + 512]; /* why tracefs cannot be used */
		unsigned nev;
		struct tevent **evs;
		size_t nevs;
		struct tevent **by_tp; /* 65536 entries, by tracepoint ID */
		struct tcpu *cpus; /* hits (not on the bpf backend) */
		size_t ncpus;
		struct tcpu *trk; /* the fork tracker's records */
		size_t ntrk;
		uint64_t trk_lost; /* tracker records the kernel lost */
		bool perm_warned;
		bool no_roe; /* the kernel has no remove_on_exec (< 5.13) */
		bool swaps; /* no inherited SAMPLE_READ (< 6.12): uprobe.c */
		uint64_t drops; /* reported from PERF_RECORD_LOST */
		uint64_t fired; /* hits the closed perf events counted */
		/*
		 * bpf backend: per-thread perf events only scope the
		 * breakpoints (no ring buffers), and each new event is
		 * handed to event_new (its index in evs): 0 or -errno.
		 */
		bool scope_only;
		int (*event_new)(struct consumer *c, struct tevent *e,
				 size_t idx);
		/*
		 * bpf backend: site e (its index in evs) armed for e->lpid
		 * by a site link instead: 0, -ENOEXEC when the site takes
		 * a uprobe event after all, or -errno (said); and the links
		 * of a process closed, now (before it runs on) or later (it
		 * exited): how many it had
		 */
		int (*site_link)(struct consumer *c, struct tevent *e,
				 size_t idx);
		size_t (*site_unlink)(struct consumer *c, pid_t pid,
				      bool later);
		/* pr's sites armed as uprobe events instead of by its
		 * links (up_site_relink()), pr still held */
		void (*site_relinked)(struct consumer *c, struct tproc *pr);
	} up;
	/* bpf backend (bpf.c) */
	struct consumer_bpf *bpf;
	/* in-process activation (inproc.c), NULL on the kernel path */
	struct inproc *ip;
	/* the pid provider (pidprov.c), NULL when no description names it */
	struct pidprov *pid;
	/* the kernel providers (kprov.c) */
	struct kprov *kp;
	/* fasttrap backend (fasttrap.c) */
	struct {
		int fd;		     /* /dev/dtrace/fasttrap, or -1 */
		struct {
			struct tprobe *p;
			uint64_t off;
		} *sites; /* by cookie */
		size_t nsites;
		bool nofollow; /* a module older than FT_FOLLOW */
		bool noexec;   /* a module older than FT_EXEC */
	} ft;
	/*
	 * Why the backend being opened cannot be used, when its open()
	 * says (the step and the errno); backend_choose() says it once.
	 */
	char be_why[512];
	/* DTRACE_BACKEND, the backend asked for by name; NULL: none */
	const char *be_want;
	/*
	 * -x activation=user: the kernel backend opened beside the
	 * in-process one (c->be) for what it cannot take; NULL: none
	 */
	const struct consumer_backend_ops *be_kernel;
};

/*
 * A provider: one table, in the provider's own file, says what probes
 * it has and how a description matches them, what a backend must do to
 * arm them, how their arguments are read and what code runs at them.
 * providers[] (provider.c) lists them in the order their probes are
 * made, which is the order of their IDs.  There are two shapes:
 *
 * Site providers (USDT, pid) have probes at sites in the files the
 * traced processes map, each site an uprobe-style probe point of a kind
 * (SITE_*, in its key's top byte) that the provider owns (site_kinds):
 * file() makes the probe records a mapped file has, sites.c matches
 * them against the clauses, and the backend's enable() arms their
 * sites.  What an event at a site fetches is site_args()'s stapsdt
 * argument specs, which every backend turns into its own fetching
 * (tracefs fetch arguments, the BPF program's evspec, the fasttrap
 * module's ft_arg) and the generated program (cgen.c) into its prologue:
 * the specs are the provider's prologue.
 *
 * Kernel providers (syscall, profile and tick, proc: kprov.c) have
 * probes that are no site in a process: each() names every probe
 * (dtrace -l, matching), arm() arms the run's probes after the
 * processes' sites, and the code that runs at them is the programs of
 * bpf/kprov.bpf.h that progs names, each writing the arguments into
 * the record that kprov_hit() reads.
 */
struct kp_name; /* kprov.h */
struct kprov;	/* kprov.h */
struct kprobe;	/* kprov.h */
typedef void (*kp_each_fn)(const struct kp_name *n, void *arg);

/* A program of bpf/kprov.bpf.h and the kind of probe (kprov.h) it fires */
struct prov_prog {
	const char *name;
	int kind; /* enum kp_kind */
	/* system calls and proc:::create: -1 either; 0 the raw
	 * tracepoint; 1 the tracepoint's perf event (the call's own) */
	int per_call;
};

struct ubpf_kconf;
struct cgk;
struct provider {
	const char *name;
	/*
	 * What the backend must be able to do to arm its probes (BE_CAP_*):
	 * pid takes another backend; a kernel provider refuses the run.
	 */
	unsigned needs;

	/*
	 * dtrace -l: its rows after the registry's (struct dt_lister,
	 * consumer.h), pv being this table; 0 or row()'s non-zero return.
	 * NULL: none (USDT's probes are the registry's, which list.c reads).
	 */
	int (*list)(const struct provider *pv, const struct dt_lister *l);

	/* --- site providers --- */
	/* the site kinds it owns (1u << SITE_*); of those, return probes */
	unsigned site_kinds, ret_kinds;
	/* its probes are their process's alone: never armed binary-wide,
	 * never derived for a forked child (DTrace's fasttrap: pid) */
	bool pinned;
	/*
	 * After the descriptions are parsed and the backend chosen, before
	 * any process is read (pid: the processes pid<N> names, grabbed);
	 * 0, or -1 with it said.  NULL: nothing to do.
	 */
	int (*prepare)(struct consumer *c);
	/*
	 * pr maps f (f->failed: not an ELF file or no probes; first: f is
	 * not failed and pr is seen mapping it for the first time; rp: pr's
	 * registration, or NULL): make the probe records f has for pr,
	 * matched (probe_make(), probe_match()).
	 */
	void (*file)(struct consumer *c, struct tproc *pr, struct tfile *f,
		     bool first, const struct reg_proc *rp);
	/* what an event at site key fetches, as stapsdt argument specs */
	const char *(*site_args)(const struct tnote *note, uint64_t key);
	/* arming site key failed with err: said (once) and no error, when
	 * the site is one the kernel cannot probe (NULL: never) */
	bool (*refused)(struct consumer *c, const struct tfile *f, uint64_t key,
			int err);

	/* --- kernel providers --- */
	/*
	 * Each of its probes: those it always has, and those that the
	 * literal probe names in names[] make (profile-N, tick-N), each once.
	 */
	void (*each)(char *const *names, size_t nnames, kp_each_fn fn,
		     void *arg);
	/*
	 * Why a description that matched nothing matched nothing, when it
	 * names one of this provider's probes wrongly (a bad rate): into
	 * buf, else NULL.
	 */
	const char *(*why)(const struct dt_desc *d, char *buf, size_t len);
	/* arm this run's probes of the provider: 0, or -1 with it said */
	int (*arm)(struct consumer *c, struct kprov *kp);
	/*
	 * A firing of p whose thread and arguments kprov_hit() has read
	 * from its record: what the provider adds (syscall: the errno of a
	 * return).  NULL: nothing.
	 */
	void (*fire)(const struct kprobe *p, struct d_fire *f);
	/*
	 * Its code at probe p in a generated program (cgen_kprov.c): how
	 * its arguments are read, the prologue, into k (kprov.h's struct
	 * cgk), whose kc is what the kernel's BTF and tracefs said; with k
	 * NULL only whether it can.  false: the run takes the generic
	 * programs.  NULL: never generated.
	 */
	bool (*cg_pro)(const struct consumer *c, const struct kprobe *p,
		       const struct ubpf_kconf *kc, struct cgk *k);
	/* its programs; a probe of a kind no program fires (tick-N) fires
	 * in dtrace and needs no backend */
	const struct prov_prog *progs;
	size_t nprogs;
};

extern const struct provider prov_usdt, prov_pid, prov_syscall, prov_profile,
	prov_proc;
/* provider.c: every provider, in the order their probes get IDs */
extern const struct provider *const providers[];
extern const size_t nproviders;
/* the site provider of site kind k (SITE_*) */
const struct provider *site_provider(unsigned k);
/* what an event at site key fetches, as stapsdt argument specs */
const char *site_args(const struct tnote *note, uint64_t key);
/* site key is a return probe (a uretprobe, "r:") */
bool site_returns(uint64_t key);
/* arming site key failed with err: a site its provider says the kernel
 * cannot probe is said (once) and is no error */
bool site_refused(struct consumer *c, const struct tfile *f, uint64_t key,
		  int err);
/* every provider's prepare(): 0, or -1 said */
int providers_prepare(struct consumer *c);

/* consumer.c: helpers every part uses */
void say(struct consumer *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* bytes of a CPU's buffer for -x bufsize (0: the default), page-rounded */
size_t consumer_bufsize(size_t want);
char *read_file(const char *path, size_t *lenp);
/* /proc/pid/name whole (procfs.h's proc_read_text), or NULL */
char *read_proc(pid_t pid, const char *name, size_t *lenp);
/* fdclose.c: close n descriptors (< 0 skipped) from many threads at once:
 * each close of a uprobe perf event waits for grace periods */
void close_many(const int *fds, size_t n);
/* ... or, for the events of a process that exited, from a thread while
 * the run goes on; close_wait() joins what is still closing */
void close_later(const int *fds, size_t n);
/* ... or with the next close_many()'s, in its batch (close_wait() at the
 * latest): descriptors whose close nothing waits on until then */
void close_with_next(const int *fds, size_t n);

/*
 * BPF_LINK_CREATE of a uprobe_multi link (Linux 6.6 on), written out:
 * Debian 12's linux/bpf.h and libbpf 1.1 predate it.  The layout is the
 * kernel's union bpf_attr link_create, which does not change
 * (dlhold.c's breakpoint on ld.so, bpf_attach.c's site links).
 */
#define UMULTI_ATTACH 48 /* enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI */
struct umulti_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, mflags, pid;
};
void close_wait(void);
uint64_t now_ns(clockid_t clk);
struct tproc *proc_find(struct consumer *c, pid_t pid);
struct tproc *proc_add(struct consumer *c, pid_t pid, bool target);
/*
 * The backend in use cannot do caps (BE_CAP_*): it is closed and the
 * first other backend, in backend_choose()'s order, that can and opens
 * is used; 0, or the last one's -errno (it is c->be still).
 */
int backend_next(struct consumer *c, unsigned caps);
/*
 * -x activation=user: a kernel backend opened beside c->be (the
 * in-process one), into c->be_kernel: 0, or -1 with c->be_why
 */
int backend_open_kernel(struct consumer *c);

/* ctypes.c: the traced programs' C types (DWARF), for the D compiler */
struct dt_ctypes;
struct dt_ctypes *ctypes_open(struct consumer *c);
int ctypes_lookup(void *ctx, const char *obj, int kind, const char *name,
		  const struct d_ctype **t, char *msg, size_t msglen);

/* uprobe.c: what the bpf backend shares */
int up_open(struct consumer *c);
void up_enable(struct consumer *c, struct tproc *pr);
void up_proc_exit(struct consumer *c, struct tproc *pr);
void up_proc_exec(struct consumer *c, struct tproc *pr);
void up_site_relink(struct consumer *c, struct tproc *pr);
bool up_site_linked(const struct consumer *c, pid_t pid);
void up_drain(struct consumer *c);
void up_stop(struct consumer *c);
void up_close_procs(struct consumer *c);
void up_close(struct consumer *c);

#ifdef HAVE_BPF
/* bpf.c: the kernel lets BPF programs write user memory (copyoutstr()) */
bool bpf_write_user_ok(void);

/* bpf_agg.c: aggregating in the kernel, for bpf.c (bpf_kagg_keeps_tls():
 * bpf_agg_cgen.c; bpf_kagg_merge(): bpf_agg_read.c) */
struct bpf_object;
struct bpf_kagg;
struct bpf_kagg *bpf_kagg_new(struct consumer *c, struct bpf_object *obj);
void bpf_kagg_enable(struct consumer *c, struct bpf_kagg *k, struct tproc *pr);
bool bpf_kagg_keeps_tls(const struct bpf_kagg *k);
void bpf_kagg_proc_exit(struct consumer *c, struct bpf_kagg *k, pid_t pid);
void bpf_kagg_merge(struct consumer *c, struct bpf_kagg *k);
void bpf_kagg_free(struct bpf_kagg *k);
/* the run's one plan, compiled into the program (bpf/kfix.bpf.h) */
struct ubpf_kfix;
struct ubpf_kplan;
struct ubpf_ev;
bool bpf_kfix_candidate(struct consumer *c, const struct tprobe *p,
			const struct ubpf_ev *s, struct ubpf_kfix *f,
			struct ubpf_kplan *pl);
void bpf_kfix_set(struct bpf_kagg *k, const struct ubpf_kfix *f,
		  const struct ubpf_kplan *pl, int bss_fd, int evspec_fd);
void bpf_kfix_off(struct bpf_kagg *k);
/* generated programs (cgen.c): their maps, the plans compiled in */
struct bpf_insn;
struct cgen_maps {
	int rb, drops;		    /* the record's ring buffer, its drops */
	int buf;		    /* a record with strings is built here */
	int kaggs, kflat, kdrops; /* kernel aggregation's, or -1 */
	unsigned kkeys; /* the keys in kaggs's key (bpf_kagg_cgen()) */
	int armed;		    /* {ev, pid} whose plan is compiled in */
	int arm1;		    /* by ev: its first such pid */
	int tls, tlsdrops;	    /* self-> variables, or -1 */
	int tlsa;		    /* self-> arrays' elements, or -1 */
	int tlss;		    /* self-> strings (cgen_out.c), or -1 */
	int kaggs_s;		    /* aggregations with a string key, or -1 */
	int kaggs_v; /* ... a string variable's, execname, a literal; or -1 */
	/* a u32 set at a hit that goes to tlsu below (bpf_agg_cgen.c's "Two
	 * copies"), or -1 */
	int tlsuw;
	int tlsu, tlsufull;	    /* pids a self-> plan's hit missed, or -1 */
	int hzn; /* the horizon (u64: kplan_exit.c's "Why exit()"), or -1 */
	/* the run's activity (u64, 0 active: kplan_exit.c's "exit() at a
	 * traced probe"), or -1; the event's exit() tests, or NULL */
	int act;
	const struct ubpf_kplan *xpl;
	uint32_t self;		    /* dtrace's pid: its hits are skipped */
	uint32_t ev1; /* a site link's event index + 1, or 0: the cookie */
	uint32_t lpid; /* ... and its process (ev1 only), or 0 */
	const struct cgen_kpro *kp; /* a kernel probe's program, or NULL */
	bool ustk_room;		    /* cgbuf holds a user stack's copy */
	/* ... and past its owner word the copy room (UBPF_KCPYROOM + 8
	 * bytes: kplan_mem.c, cgen_mem.c's mem_read()) */
	bool cpyroom;
	/* the unwinder's prog arrays (ustack_walk.c): perf event's,
	 * uprobe_multi's, fd + 1; 0: none, the stack copied */
	uint32_t uwalk1, uwalkm1;
	uint32_t ppid1[2]; /* task_struct's real_parent, tgid + 1, or 0 */
	/* a clause calls progenyof(): a record's ppid comes with the
	 * chain of parents (anc_wanted(); cgen_rec.c's anc_walk()) */
	bool anc;
	uint32_t ecred1[3]; /* ... cred, cred's euid, egid (ecred_offs()) */
	uint32_t sess1[4];  /* ... signal, pids, numbers, nr (sess_offs()) */
	uint32_t psargs1[3]; /* ... mm, arg_start, arg_end (psargs_offs()) */
	/* kaggs_v's short keys (kagg_bpf.h's UBPF_KVSHORT), or -1 */
	int kaggs_w;
	/* vtimestamp's clock (cgen_rec.c), or -1; se.sum_exec_runtime + 1 */
	int vtimes, vtlink;
	uint32_t sumexec1;
	bool vtlose; /* DTRACE_VTIME_LOST: the seed marks it lost */
	/* cgzero: 16 zero bytes, a new aggregation entry's value
	 * (cgen_agg.c's agg_find()), or -1 */
	int zero;
	/* out, where not NULL: whether the program reads the clock only
	 * when the horizon is not dtrace's lease (cgen.c's hzfree) */
	bool *hzfree;
	/* rb's last wake-up (bpf/rbwake.bpf.h: the unwinder's too) */
	int wake;
	/* rb's bytes as made (BPF_RB_RING_SIZE: cgen.c's rb_wake_ask()
	 * compares with half of it as an immediate; 0: asks the ring) */
	uint32_t rbsize;
	/* the lease is in arm1's words too (bpf_agg_cgen.c's hz_marks()): a
	 * horizon and no exit() decided at a hit (cgen.c's hzarm) */
	bool hzarm;
};
/*
 * A kernel probe's program (cgen_kprov.c): its provider's prologue,
 * entered with the context in r6 and pid_tgid in r7, which leaves the
 * arguments in the stack slots cgen_arg_slot() names (r0-r5 its own,
 * an exit its own to skip a firing); the record after the header a
 * struct ubpf_kctx, the parent's tgid read through task_struct at
 * parent1 - 1 and tgid1 - 1 (0: ppid 0).
 */
struct cgen_kpro {
	const struct bpf_insn *v;
	size_t n;
	uint32_t parent1, tgid1;
	/* a program probes share (idmap >= 0): iv the provider's code,
	 * entered with the context in r6 before the prologue, that leaves
	 * in r1 the hit's index in idmap, a one-entry array whose value is
	 * idmax struct cgk_id (kprov.h): the probe's ev and id, read at
	 * the hit instead of immediates (r0-r5 its own, an exit its own) */
	const struct bpf_insn *iv;
	size_t in;
	int idmap;
	uint32_t idmax;
	/* where ustack()'s user registers are (enum cgk_ureg), and
	 * whether the kernel has the BTF bpf_task_pt_regs() needs */
	uint8_t ureg;
	bool btf;
};
/*
 * Where a kernel probe's program finds the user registers of the
 * thread it fired in (cgen_ustk.c's kp_uregs(), as kprov.bpf.h's programs
 * find them): those saved at the top of its kernel stack
 * (bpf_task_pt_regs(): a tracepoint's), a raw tracepoint's struct
 * pt_regs * (sys_enter's and sys_exit's args[0]), or a perf event's
 * own where the sample interrupted user mode, else the saved ones.
 */
enum cgk_ureg {
	CGK_UREG_TASK,
	CGK_UREG_RAW,
	CGK_UREG_PERF,
};
int16_t cgen_arg_slot(unsigned i);
bool cgen_emit(const struct cgen_maps *m, const struct ubpf_ev *s,
	       const struct ubpf_kplan *pl, struct bpf_insn **out, size_t *n);
struct bpf_kagg *bpf_kagg_cgen(struct consumer *c, struct cgen_maps *m,
			       int *err);
bool bpf_kagg_plan(struct consumer *c, struct bpf_kagg *k, struct tprobe *p,
		   struct ubpf_kplan *pl);
/* the plan made last is in a program loaded: -v counts its clauses */
void bpf_kagg_cgen_ran(struct bpf_kagg *k);
void bpf_kagg_cgen_plan(struct bpf_kagg *k, uint32_t ev,
			const struct ubpf_kplan *pl);
void bpf_kagg_tls_reap(struct bpf_kagg *k);
void bpf_kagg_tls_hit(struct bpf_kagg *k, uint32_t ev, pid_t pid, pid_t tid);
/* An unflagged record of thread tid of pid at a kernel probe whose plan
 * keeps self->, before its clauses run (bpf_agg_cgen.c's "Two copies"; a
 * uprobe's: bpf_kagg_tls_hit()) */
void bpf_kagg_tls_rec(struct bpf_kagg *k, pid_t pid, pid_t tid);
/* The kernel's self-> entries of thread tid (0: every thread) put into
 * user space's table and deleted: how many.  Exact only where no
 * program that stores them for those threads may run: for one thread,
 * at a record bpf_kagg_tls_rec() takes; for every thread, after a word
 * every such program tests and a barrier (doc/DESIGN.md's "the move") */
size_t bpf_kagg_tls_move(struct bpf_kagg *k, pid_t tid);
void bpf_tls_reap(struct consumer *c);
void bpf_kagg_horizon(struct bpf_kagg *k, uint64_t h);
uint64_t bpf_kagg_exited(struct consumer *c, struct bpf_kagg *k);
void bpf_exited(struct consumer *c);
bool bpf_kagg_exit_lost(struct consumer *c);
int bpf_kagg_xplan(struct consumer *c, struct bpf_kagg *k,
		   const struct d_probe *dp, const unsigned *cl, unsigned n,
		   struct ubpf_kplan *xpl);
void bpf_horizon(struct consumer *c, uint64_t h);
/*
 * printa(), clear(), trunc() at tick-N (kplan_exit.c's "printa() at
 * tick-N"): the barrier after a folding firing was read, before the
 * ring is (every program that started before it has ended), and the
 * fold at that firing, before its clauses run
 */
void bpf_kagg_barrier(struct consumer *c, struct bpf_kagg *k);
void bpf_kagg_fold(struct consumer *c, struct bpf_kagg *k);
void bpf_barrier(struct consumer *c);
void bpf_fold(struct consumer *c);
/*
 * bpf_cg.c, for the kernel providers' generated programs (cgen_kprov.c):
 * whether the run's programs are generated (decided now if no event
 * decided it), the maps they share, a program loaded as type (its fd,
 * or -errno with c->be_why), and that the kernel probes' are attached
 * (a uprobe event's refused program can then no longer send the run
 * to the generic program).
 */
bool bpf_cg_on(struct consumer *c);
const struct cgen_maps *bpf_cg_maps(struct consumer *c);
int bpf_cg_load(struct consumer *c, int type, struct bpf_insn *v, size_t n);
int cgen_vtime_start(struct consumer *c, struct cgen_maps *m);
void bpf_cg_armed(struct consumer *c);
bool bpf_kagg_kplan(struct consumer *c, struct bpf_kagg *k,
		    const struct d_probe *dp, const unsigned *cl,
		    const unsigned *ep, unsigned n, struct ubpf_kplan *pl,
		    unsigned **ucl, unsigned **uep, unsigned *nu);
#endif

/* sites.c */
bool vaddr_to_off(const struct tfile *f, uint64_t v, uint64_t *off);
bool sym_lookup(const struct tfile *f, const char *name, size_t len,
		uint64_t *v);
const struct tnote *file_note_at(const struct tfile *f, uint64_t off);
bool probe_matches(const struct dt_desc *d, const char *provider,
		   const char *mod, const char *func, const char *name);
bool proc_refresh(struct consumer *c, struct tproc *pr,
		  const struct reg_proc *rp);
struct proc_map; /* procfs.h */
/* the file mapped at m in pid, read once per run (cached by dev, ino);
   NULL if it cannot be looked at */
struct tfile *file_get(struct consumer *c, pid_t pid,
		       const struct proc_map *m);
/* close what file_get() left open of a file it made (f->of) */
void file_release(struct tfile *f);
/* pid's probe at a site; with derive, made from another process's */
struct tprobe *probe_at_site(struct consumer *c, pid_t pid,
			     const struct tfile *f, uint64_t off, bool derive);
/* a probe record (its strings are its own now); probe_match() when set */
struct tprobe *probe_make(struct consumer *c, pid_t pid, char *bprov,
			  char *prov, char *mod, char *func, char *name,
			  struct tfile *f, unsigned nargs,
			  const char *const *argv);
void probe_match(struct consumer *c, struct tprobe *p);
/* pid's probe of these names, or NULL */
struct tprobe *probe_find(struct consumer *c, pid_t pid, const char *prov,
			  const char *mod, const char *func, const char *name);
/* the probe whose records carry id, a process's or a kernel provider's;
   ctx is the consumer (kplan.h's d_kplan_probe_fn) */
const struct d_probe *probe_by_id(void *ctx, unsigned id);
/* a name from a file or a process as a probe carries it: escaped */
char *probe_name_dup(const char *s);
/*
 * Clause ci enables probe p (a struct tprobe, or kprov.h's struct
 * kprobe: the same members): appended to its clauses, in program order,
 * with the epid its records carry, and what the clause reads (ERROR's
 * clauses too, c->eneeds: they read the faulting firing's) added to
 * what the probe's sites fetch.
 */
#define PROBE_CLAUSE_ADD(c, p, ci)                                             \
	do {                                                                   \
		PUSH((p)->clauses, (p)->nclauses, (ci));                       \
		/* in step with clauses, its room implied by the count */      \
		(p)->epids = xpush_room((p)->epids, (p)->nclauses - 1,         \
					sizeof(*(p)->epids));                  \
		(p)->epids[(p)->nclauses - 1] = ++(c)->next_epid;              \
		(p)->strmask |= d_clause_strargs((c)->prog, (ci));             \
		(p)->needs |= d_clause_needs((c)->prog, (ci)) | (c)->eneeds;   \
	} while (0)
/* usdtprov.c: 1 if pid maps a file with a USDT probe some description
   matches, 0 if not, -1 if its maps are those of hash *mh (set to the
   maps' hash) */
int usdt_maps_wanted(struct consumer *c, pid_t pid, const struct reg_proc *rp,
		     uint64_t *mh);

/* freeze.c: a process held still (ptrace) while its sites are armed */
struct frozen {
	pid_t tid;
	int sig; /* a signal that stopped it, delivered on release */
};
/* pid's threads seized and stopped, appended to *fz[0..n); the new n */
size_t proc_freeze(pid_t pid, struct frozen **fz, size_t n);
/* every thread of fz let go (and fz freed) */
void proc_thaw(struct frozen *fz, size_t n);

/*
 * dlhold.c: a -p process or -c command held at each dlopen() until the
 * new library is armed (HAVE_BPF); proc_freeze() holds such a process through it
 */
#ifdef HAVE_BPF
bool dlhold_start(struct consumer *c, struct tproc *pr);
/* a -c command rtld.c holds let go into dlhold (false: let go, not held) */
bool dlhold_handover(struct consumer *c, struct tproc *pr);
/* that command's link on ld.so made beside its site links: what it
 * needs before them (link false), the link after them (true) */
void dlhold_prelink(struct consumer *c, struct tproc *pr, bool link);
void dlhold_poll(struct consumer *c);
void dlhold_gone(struct consumer *c, struct tproc *pr);
void dlhold_end(struct consumer *c);
bool dlhold_owns(pid_t pid);
bool dlhold_multi_wanted(void);
int dlhold_stop_all(pid_t pid);
void dlhold_resume_all(pid_t pid);
/*
 * copyout() with the thread held at its probe: the map usdt.bpf.c
 * shares (its fd, -1 with why) and the task_struct offsets it reads
 * (sighand, blocked, the SIGURG handler in sighand_struct); a held
 * hit's record has run (records.c)
 */
int dlhold_map(struct consumer *c, long offs[3], char *why, size_t whylen);
void dlhold_hit_done(pid_t pid, pid_t tid);
#else
static inline bool dlhold_start(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
	return false;
}
static inline bool dlhold_handover(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
	return false;
}
static inline void dlhold_prelink(struct consumer *c, struct tproc *pr,
				  bool link)
{
	(void)c;
	(void)pr;
	(void)link;
}
static inline void dlhold_poll(struct consumer *c) { (void)c; }
static inline void dlhold_gone(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}
static inline void dlhold_end(struct consumer *c) { (void)c; }
static inline bool dlhold_owns(pid_t pid)
{
	(void)pid;
	return false;
}
static inline bool dlhold_multi_wanted(void) { return false; }
static inline int dlhold_stop_all(pid_t pid)
{
	(void)pid;
	return -1;
}
static inline void dlhold_resume_all(pid_t pid) { (void)pid; }
static inline void dlhold_hit_done(pid_t pid, pid_t tid)
{
	(void)pid;
	(void)tid;
}
#endif

/* rtld.c: a -c command run to where its libraries are mapped */
/* ld.so's _dl_debug_state and _r_debug (dtrace's machine): 0, or -errno */
int rtld_ldso_symbols(const char *path, uint64_t *brk, uint64_t *rdebug,
		      uint64_t *lo, uint64_t *brk_off);
/* the file mapped at start in pid, by a path that reads that mapping's own
 * file (procfs.h), or NULL (malloc'd) */
char *rtld_mapped_at(pid_t pid, uint64_t start);
/* pid (ptrace-stopped after exec) run until ld.so has mapped everything
 * and stopped there: 0; -ENOENT/-ENOTSUP: no debugger interface to use
 * (nothing done); -EIO: failed halfway; *exited if it ended meanwhile */
int rtld_run_to_consistent(pid_t pid, bool *exited);

/* lineage.c */
void lin_fork(struct consumer *c, pid_t ppid, pid_t pid, pid_t tid,
	      uint64_t t);
void lin_exec(struct consumer *c, pid_t pid, uint64_t t);
/* the image of pid at t: its exec() time (0: the first known), and
 * the next exec()'s (UINT64_MAX: none known) */
void lin_image(struct consumer *c, pid_t pid, uint64_t t, uint64_t *since,
	       uint64_t *until);
/* pr exec'd: its new image's probes are found and armed anew */
void proc_exec_reset(struct consumer *c, struct tproc *pr);
void lin_exit(struct consumer *c, pid_t pid, pid_t tid, uint64_t t);
void lin_gone(struct consumer *c, pid_t pid, uint64_t t);
void lin_own(struct consumer *c, pid_t pid, struct tfile *f, uint64_t off,
	     uint64_t t);
void lin_know(struct consumer *c, pid_t pid, uint64_t t);
bool lin_carries(struct consumer *c, pid_t pid, const struct tfile *f,
		 uint64_t off, uint64_t t);
/* pid at t was forked from a process the tree knows (it has the tracker) */
bool lin_forked(struct consumer *c, pid_t pid, uint64_t t);
struct tprobe *lin_hit_probe(struct consumer *c, pid_t pid, uint64_t t,
			     const struct hit_at *at, bool *defer);
/* live processes the tree knows that are not in c->procs (to free) */
size_t lin_untraced_alive(struct consumer *c, pid_t **out);

/* records.c */
void hit_push(struct consumer *c, const struct hit *h);
size_t arena_put(struct consumer *c, const void *p, size_t n);
/* false: a pending SIGINT/SIGTERM/SIGHUP ended it at a round's end, while
 * tracing went on (!c->done), with records left unread */
bool read_buffers(struct consumer *c);
/* the backend's records into the hits, not run (lin_* facts applied) */
void drain_buffers(struct consumer *c);
void fire_dtrace(struct consumer *c, const struct d_probe *dp,
		 const unsigned *cl, unsigned n);
int copyin(void *ctx, pid_t pid, uint64_t addr, void *buf, size_t len);
pid_t parent_of(void *ctx, pid_t pid);
void anc_take(struct tproc *pr);

/* records.c: let go of the threads that exited (d_thread_exit()) */
void threads_reap(struct consumer *c);
/*
 * records.c: run clauses cl (epids ep) of probe dp for firing f, whose
 * probe-specific part the decoder filled: the clocks, copyin and the
 * thread are added here, as for every hit.
 */
void hit_run(struct consumer *c, const struct d_probe *dp,
	     const unsigned *cl, const unsigned *ep, unsigned n,
	     struct d_fire *f);
/*
 * ... a hit some of whose clauses cl the kernel ran (c->kagg_rec): the
 * others, ucl (a subsequence of cl, in order), run here, and a fault
 * the kernel's had (c->kfault) is reported in its place among them, as
 * is printed what one computed for printf() and trace() (c->kout).
 */
void hit_run_kagg(struct consumer *c, const struct d_probe *dp,
		  const unsigned *cl, const unsigned *ep, unsigned n,
		  const unsigned *ucl, const unsigned *uep, unsigned nu,
		  struct d_fire *f);
/* records.c: a firing in dtrace itself (BEGIN, END, tick-N) */
void fire_self(struct consumer *c, struct d_fire *f, char *comm,
	       size_t commlen);

/*
 * kprov.c: the kernel providers, in the order a run calls them: match
 * the clauses (before the processes are read; descriptions count their
 * matches), arm (after the processes were enabled; 0 or -1 said), start
 * the ticks (after BEGIN), then their fds in the loop, their records
 * into the hits (drain) and each such hit run (hit.kprov), and stop.
 */
void kprov_match(struct consumer *c);
unsigned kprov_source_matches(struct consumer *c, unsigned lo, unsigned hi);
/* why d, which matched nothing, names no probe (a bad rate), or NULL */
const char *kprov_why(struct consumer *c, const struct dt_desc *d, char *buf,
		      size_t len);
int kprov_arm(struct consumer *c);
void kprov_start(struct consumer *c);
size_t kprov_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max);
/* true when a firing whose clause folds was read (bpf_barrier()) */
bool kprov_drain(struct consumer *c);
void kprov_hit(struct consumer *c, const struct hit *h);
/* kprov_stop_begin() starts the closes, kprov_stop() waits for them */
void kprov_stop_begin(struct consumer *c);
void kprov_stop(struct consumer *c);
const struct d_probe *kprov_probe_of(struct consumer *c, unsigned id);
/*
 * The horizon (kplan_exit.c's "Why exit()"): whether clause ci fires at
 * tick-N probes alone, by its descriptions; a site it matched after all
 * (kprov_horizon_off(): the horizon 0 for good); the next tick firing's
 * due time, UINT64_MAX when none is to come (a hit stamped at or past
 * it waits for it); the horizon moved to the next firing whose clause
 * may exit, after a read that ran the firings before it.
 */
bool kprov_tick_clause(const struct consumer *c, unsigned ci);
uint64_t kprov_horizon0(const struct consumer *c); /* before BEGIN */
/* exit() at the hit (kplan_exit.c): clause ci's kernel probes each fire a
 * program (bpf_agg_cgen.c's traced_clause()) */
bool kprov_prog_clause(const struct consumer *c, unsigned ci);
void kprov_horizon_off(struct consumer *c);
uint64_t kprov_next_due(const struct consumer *c);
void kprov_horizon(struct consumer *c);
void kprov_site_fold(struct consumer *c, const unsigned *cl, unsigned n);
/* a site's program loaded that reads no clock under the lease (-v) */
void kprov_hzfree(struct consumer *c);
/* user space ran exit(): the kernel's programs stop (kplan_exit.c's "The
 * flood") */
void kprov_exited(struct consumer *c);
#ifdef HAVE_BPF
/*
 * kprov.c: which of its programs bpf.c loads (c NULL: none), into obj
 * unless NULL; whether the run uses any
 */
bool kprov_autoload(struct consumer *c, struct bpf_object *obj);
/*
 * cgen_kprov.c: whether each kernel probe of the run that a program
 * fires can have its program generated (its provider's cg_pro())
 */
bool kprov_cg_fits(struct consumer *c);
/*
 * cgen_kprov.c, for bpf_cg.c's cg_try(): every kernel probe's program
 * generated and loaded, before anything is attached; 0, or -1 with
 * c->be_why (none kept).  kprov_cg_reset(): they were closed.
 */
int kprov_cg_load(struct consumer *c);
void kprov_cg_reset(struct consumer *c);
/* bpf.c: the program, loaded now if it was not; NULL when it cannot be */
struct bpf_object *bpf_be_object(struct consumer *c);
/* bpf.c: its aggregating in the kernel, or NULL */
struct bpf_kagg *bpf_kagg_of(struct consumer *c);
/*
 * bpf_agg.c: a kernel probe's plan, under (ev, pid 0); the clauses left
 * to user space into *ucl, *uep, *nu (all of them without a plan)
 */
void bpf_kagg_kprobe(struct consumer *c, struct bpf_kagg *k, uint32_t ev,
		     const struct d_probe *dp, const unsigned *cl,
		     const unsigned *ep, unsigned n, unsigned **ucl,
		     unsigned **uep, unsigned *nu);
/*
 * bpf_agg.c: clause faulted in the kernel at f's hit (c->kfault): where
 * (DTrace's action number) and the invalid address, as run.c's
 * d_read_user_str() would have faulted on the same string, or illop
 * (a lost vtimestamp, address 0)
 */
bool bpf_kagg_fault(struct consumer *c, unsigned clause, const struct d_fire *f,
		    int *action, bool *illop, uint64_t *addr);
/* bpf_agg.c: the run's kplan (not NULL) */
struct d_kplan;
const struct d_kplan *bpf_kagg_kp(const struct bpf_kagg *k);
/*
 * cgen_out.c: printf()'s values computed at the hit.  cg_out_rec(): the
 * record's out area at *off (UBPF_RF_KOUT), kept in c->kout when the
 * kernel ran a clause of it (kprobe, a kernel probe's record: kprov.c's,
 * kept in c->koutk for kplan_out.c's late reads), *off past it; false:
 * a bad record.
 * cg_out_run(): clause, next in the walk w of the probe's clauses (in
 * order), the kernel ran and prints from the area: printed (or its
 * fault reported), d_run()'s result in *rv; false: not such a clause.
 */
bool cg_out_rec(struct consumer *c, const uint8_t *raw, size_t len, size_t *off,
		bool kprobe);
struct cg_out_walk {
	unsigned ord;
	size_t off;
};
bool cg_out_run(struct consumer *c, unsigned clause, const struct d_fire *f,
		struct cg_out_walk *w, int *rv);
/* A clause user space runs whose record carries self-> values the kernel
 * keeps (kplan.h's d_kplan_vin()): -1 not one (or no area: the
 * in-process activation's record); 0 the area says it did
 * not run at the hit; 1 its variables of f's thread set from the area
 * (the walk w goes on past it), what they held in *save, for
 * cg_out_vin_end() to put back (and free) after the clause ran */
int cg_out_vin(struct consumer *c, unsigned clause, const struct d_fire *f,
	       struct cg_out_walk *w, struct dv **save);
void cg_out_vin_end(struct consumer *c, unsigned clause,
		    const struct d_fire *f, struct dv *save);
#endif

/* ustack.c: user stacks and names (ustack(), ufunc(), %A, ...) */
struct perf_event_attr;
/* bytes of stack a hit copies for D_NEED_USTACK (-x ustacksize) */
size_t ustack_size(struct consumer *c);
/* the default -x bufsize: dflt, or 4 times it when a clause reads stacks */
size_t ustack_bufsize(struct consumer *c, size_t dflt);
/* uprobe.c: sample the user registers and stack when needs asks */
void ustack_perf_attr(struct consumer *c, uint32_t needs,
		      struct perf_event_attr *a);
/* uprobe.c: the registers and stack after a sample's raw data */
bool ustack_perf_decode(const uint8_t *p, size_t len, struct ustack_cap *cap);
/* the firing's stack and name callbacks (c->ucap: what decode() took) */
void ustack_fire(struct consumer *c, struct d_fire *f);
/* pid ended and its records were read: forget its modules */
void ustack_proc_gone(struct consumer *c, pid_t pid);
/* pid exec()s at t: keep the maps text of the image it leaves */
void ustack_proc_exec(struct consumer *c, pid_t pid, uint64_t t);
/* sites.c read pr's maps (pr->maps, pr->maps_t): keep the text's history */
void ustack_maps_read(struct consumer *c, struct tproc *pr);
/*
 * uprobe.c's fork tracker: whether it asks for mapping records (a
 * clause reads stacks); pid's every thread has it from t on; a
 * PERF_RECORD_MMAP2 of an executable mapping; records of it lost.
 */
bool ustack_maps_wanted(const struct consumer *c);
void ustack_tracked(struct consumer *c, pid_t pid, uint64_t t);
struct ustack_mapped {
	pid_t pid;
	uint64_t t;	   /* the record's time (CLOCK_MONOTONIC ns) */
	uint64_t lo, hi;   /* the mapping's addresses */
	uint64_t base;	   /* the address of the file's offset 0 */
	uint32_t maj, min; /* the file's device and inode */
	uint64_t ino;
	bool file; /* a file's (a path), not anonymous memory */
};
void ustack_mapped(struct consumer *c, const struct ustack_mapped *m);
void ustack_mapped_lost(struct consumer *c);

/*
 * vtime.c: vtimestamp.  Whether a clause of a traced probe reads it; 0,
 * or -1 said when this run's backend cannot give it (before enabling).
 */
bool vtime_wanted(const struct consumer *c);
int vtime_check(struct consumer *c);
/*
 * The vtimestamp of a record flagged UBPF_RF_VTIME (usdt_bpf.h: 8 bytes
 * at *off, after the arguments) of thread tid into *vt, *off moved past
 * it; D_VTIME_UNKNOWN where the record says it was lost (said once);
 * false when the record ends first.
 */
bool vtime_rec(struct consumer *c, const uint8_t *raw, size_t len,
	       size_t *off, pid_t tid, uint64_t *vt);
/* d fires in dtrace itself (BEGIN, END, ERROR, tick-N), or may */
bool desc_self(const struct dt_desc *d);

/*
 * psargs.c: curpsinfo->pr_psargs.  Whether a clause of a traced probe
 * reads it; 0, or -1 said when this run cannot give it (before
 * enabling); a record's copy (n bytes) as DTrace's text, into buf of 80
 * bytes; dtrace's own.
 */
bool psargs_wanted(const struct consumer *c);
int psargs_check(struct consumer *c);
/* ... and the same for curpsinfo->pr_euid and pr_egid */
bool ecred_wanted(const struct consumer *c);
int ecred_check(struct consumer *c);
/* ... and for uid and gid (curpsinfo->pr_uid, pr_gid) */
bool cred_wanted(const struct consumer *c);
int cred_check(struct consumer *c);
/* a clause of a traced probe reads ppid or calls progenyof() */
bool ppid_wanted(const struct consumer *c);
/* a clause calls progenyof(): records carry its chain (D_NEED_ANC) */
bool anc_wanted(const struct consumer *c);
/* ... and the same as pr_euid's for curpsinfo->pr_pgid and pr_sid */
bool sess_wanted(const struct consumer *c);
int sess_check(struct consumer *c);
const char *psargs_text(const uint8_t *p, size_t n, char *buf);
const char *psargs_self(void);
/*
 * kbtf.c: the byte offset of member of the kernel's struct or union
 * type (anonymous members searched too), or type's size, from the
 * kernel's BTF parsed once; -1: unknown. The names must live as long
 * as the process (answers are remembered by them). kbtf_release()
 * gives the parsed types back once tracing has started.
 */
long kbtf_member(const char *type, const char *member);
long kbtf_size(const char *type);
/*
 * kbtf.c: how many arguments raw tracepoint tp passes (its TP_PROTO's,
 * from the BTF's btf_trace_TP), -1: unknown; and whether argument i's
 * type is named tname (through typedefs: "bool" is "_Bool")
 */
long kbtf_tp_nargs(const char *tp);
bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname);
void kbtf_release(void);
#ifdef HAVE_BPF
/* task_struct's mm, mm_struct's arg_start and arg_end + 1, from the BTF */
int psargs_offs(uint32_t o[3]);
/* task_struct's cred, struct cred's euid and egid + 1, from the BTF */
int ecred_offs(uint32_t o[3]);
/* task_struct's real_parent and tgid + 1, from the BTF */
int ppid_offs(uint32_t o[2]);
/* task_struct's signal, signal_struct's pids, struct pid's numbers and
 * struct upid's nr + 1, from the BTF */
int sess_offs(uint32_t o[4]);
#endif
#ifdef HAVE_BPF
/* offsetof(struct task_struct, se.sum_exec_runtime) from the BTF, or -1 */
long vtime_sumexec_off(void);
/* DTRACE_VTIME_LOST=1: every thread's clock lost after its first hit,
 * a test hook (vtime.c) */
bool vtime_lose(void);
#endif

/* lineage.c: the parent the fork tree knows for pid, or 0 */
pid_t lin_ppid_at(struct consumer *c, pid_t pid, uint64_t t);
pid_t lin_parent(struct consumer *c, pid_t pid);

/* deadmem.c: copyin() of an exited process from its read-only files */
int deadmem_read(struct consumer *c, pid_t pid, uint64_t addr, void *buf,
		 size_t len);

/*
 * The next variable-length field of a BPF record (usdt_bpf.h: a __u16
 * length, then that many bytes), at *off of a record of len bytes:
 * its bytes, with *off moved past it and *n set, or NULL where the
 * record ends first.  bpf.c's and kprov.c's decoders read strings and
 * copies with it.
 */
static inline const uint8_t *rec_field(const uint8_t *raw, size_t len,
				       size_t *off, uint16_t *n)
{
	const uint8_t *p;

	if (*off + 2 > len)
		return NULL;
	memcpy(n, raw + *off, 2);
	if (*off + 2 + *n > len)
		return NULL;
	p = raw + *off + 2;
	*off += 2 + (size_t)*n;
	return p;
}


/*
 * The uid and gid of a record flagged UBPF_RF_CRED (usdt_bpf.h: 4 bytes
 * each at *off, after the vtimestamp if any), *off moved past them;
 * false when the record ends first.
 */
static inline bool rec_cred(const uint8_t *raw, size_t len, size_t *off,
			    uid_t *uid, gid_t *gid)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	*uid = (uid_t)v[0];
	*gid = (gid_t)v[1];
	*off += 8;
	return true;
}

/*
 * progenyof()'s chain after a record's ppid (usdt_bpf.h's UBPF_ANC): w
 * the 4 bytes after the ppid (struct ubpf_anc; a kernel probe's kctx
 * pad), the links at *off, *off moved past them (none where w is 0: no
 * chain taken); false when the record ends first or w is not one.
 */
static inline bool rec_anc(const uint8_t *raw, size_t len, size_t *off,
			   uint32_t w, struct d_fire *f)
{
	struct ubpf_anc an;

	memcpy(&an, &w, sizeof(an));
	if (!an.state)
		return true;
	if (an.state > UBPF_ANC_CUT || an.n >= UBPF_ANC ||
	    *off + UBPF_ANC_BYTES(an.n) > len)
		return false;
	f->anc = raw + *off;
	f->nanc = an.n;
	f->anc_st = an.state == UBPF_ANC_FULL ? D_ANC_FULL : D_ANC_CUT;
	*off += UBPF_ANC_BYTES(an.n);
	return true;
}

/*
 * The effective uid and gid of a record flagged UBPF_RF_ECRED (4 bytes
 * each at *off) into f, *off moved past them; false when the record
 * ends first.
 */
static inline bool rec_ecred(const uint8_t *raw, size_t len, size_t *off,
			     struct d_fire *f)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	f->euid = (uid_t)v[0];
	f->egid = (gid_t)v[1];
	f->ecred = true;
	*off += 8;
	return true;
}

/*
 * The process group and session of a record flagged UBPF_RF_SESS (4
 * bytes each at *off) into f, *off moved past them; false when the
 * record ends first.
 */
static inline bool rec_sess(const uint8_t *raw, size_t len, size_t *off,
			    struct d_fire *f)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	f->pgid = (pid_t)v[0];
	f->sid = (pid_t)v[1];
	f->sess = true;
	*off += 8;
	return true;
}

/*
 * The user registers and stack of a record flagged UBPF_RF_USTACK
 * (usdt_bpf.h: at the next multiple of 8 after off, USTACK_NREGS
 * registers (its UBPF_NREG), a 4-byte length and 4 zero bytes, the
 * stack's bytes) into *cap, which points into raw.  bpf.c's and
 * kprov.c's decoders take them with it.
 */
static inline void rec_ustack(const uint8_t *raw, size_t len, size_t off,
			      struct ustack_cap *cap)
{
	uint32_t n;

	cap->pcs = NULL;
	cap->npcs = 0;
	off = (off + 7) & ~(size_t)7;
	if (off + sizeof(cap->regs) + 8 > len)
		return;
	memcpy(cap->regs, raw + off, sizeof(cap->regs));
	off += sizeof(cap->regs);
	memcpy(&n, raw + off, 4);
	off += 8;
	cap->stack = raw + off;
	cap->len = n <= len - off ? n : len - off;
	cap->have = true;
}

/* ... whose bytes are pcs the kernel walked (UBPF_RF_UPCS) */
static inline void rec_upcs(struct ustack_cap *cap)
{
	if (!cap->have)
		return;
	cap->pcs = cap->stack;
	cap->npcs = (unsigned)(cap->len / 8);
	cap->stack = NULL;
	cap->len = 0;
}

#endif /* USDT_DTRACE_CONSUMER_IMPL_H */
