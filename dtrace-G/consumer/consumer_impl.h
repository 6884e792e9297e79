/* SPDX-License-Identifier: MIT */
/*
 * consumer_impl.h - what the files of dtrace-G/consumer/ share; not for
 * the rest of the command (consumer.h is the consumer's interface).
 * This file holds the data: sites, files, probes, events, processes,
 * hits, the backends' ops and struct consumer; the functions one file
 * defines and others call are in the five headers it includes at its
 * end (listed there), which every file gets with it.
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
#include "kspec_read.h"
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
	/* CLOCK_MONOTONIC ns: when its pidfd first said it exited (let go
	 * later where a hit of it was kept: consumer.c's loop) */
	uint64_t exit_seen;
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
	bool exe_unseen; /* ... and no read since found a file mapped,
			  * its executable the first (one during the exec
			  * finds none) */
	unsigned resets; /* proc_exec_reset()s: one in a read's midst
			  * (proc_refresh()) leaves the new image unread */
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
	/* speculations in the kernel (kspec_read.c): its stamp, its out
	 * area's ran word, and the reading rule's marks */
	struct ksr_hit ks;
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
/*
 * -x activation=user: the heartbeat in every arena now (every), or if
 * the last is a sixteenth of a second old; nothing without the
 * recorder (inproc.c)
 */
void ip_beat(struct consumer *c, bool every);
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
	/* speculations in the kernel (records.c's read_round()): the hit
	 * being run had its tags handed over by the pass (kspec_read.c);
	 * the stamp of the hit whose exit() ended the run (0: none);
	 * firings of speculating clauses not run, their process not armed
	 * at the probe (hit_run()) */
	bool ktaken;
	uint64_t kspec_until;
	uint64_t kspec_unarmed;
	/* ... of clauses touching a global array the kernel keeps
	 * (kplan_garr.c) */
	uint64_t garr_unarmed;
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
	/* the tick-N firing whose clauses are running (kprov_hit()), its
	 * time, else 0 */
	uint64_t tick_at;
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
	/* the bytes the backend's buffers hold in all (the BPF ring's
	 * size), 0 where it does not say: a round that drains a tick reads
	 * that much (drain_buffers()) */
	size_t buf_all;
	bool read_tick; /* ... in that round: the in-process rings' reads
			 * are not capped (inproc.c) */
	/* threads that fired, until they exit (d_thread_exit) */
	struct tseen *seen; /* open addressing by tid, 0: empty */
	size_t nseen, capseen;
	pid_t last_tid;
	uint64_t thread_exits;
	uint64_t fire_t; /* the time of the hit being run (parent_of()) */
	char psargs_buf[80]; /* the hit being run's pr_psargs (psargs.c) */
	bool begun; /* BEGIN fired: hits may run */
	/* the -c commands let go, after BEGIN (consumer_run()): an arming
	 * before is the start-up's */
	bool released;

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
		unsigned made; /* events written to tracefs (up_close()) */
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

/* ------------------------------------------------------------------ */
/*
 * What the files define for one another, in five headers, each opening
 * with what it holds:
 *
 *	provider_impl.h	the provider interface (struct provider)
 *	consumer_run.h	the run's common parts: consumer.c, fdclose.c,
 *			ctypes.c, uprobe.c, sites.c, usdtprov.c,
 *			records.c, kprov.c
 *	proc_impl.h	processes held and followed: freeze.c, dlhold.c,
 *			rtld.c, lineage.c, deadmem.c
 *	bpf_be.h	the BPF backend's parts others call (HAVE_BPF)
 *	rec_impl.h	what a record carries beyond the arguments, and
 *			the readers of its fields
 */
#include "provider_impl.h"
#include "consumer_run.h"
#include "proc_impl.h"
#include "bpf_be.h"
#include "rec_impl.h"

#endif /* USDT_DTRACE_CONSUMER_IMPL_H */
