// SPDX-License-Identifier: MIT
/*
 * inproc.c - backend: `-x activation=user`, probes hit in the process
 * with no kernel trap (doc/DESIGN.md §14).  An armed -G site calls the
 * recorder drti.o carries (drti/rec.c), which writes each hit into a
 * ring in memory shared with dtrace (drti/arena.h); this file arms the
 * sites, reads the rings and hands the records to records.c as any
 * backend's hits, so the same clauses run with the same output.
 *
 * Arming a process (enable()).  It is held still: a -c command is still
 * stopped where rtld.c left it, a running one is seized (freeze.c).  The
 * first time, a thread is made to run memfd_create, mmap(MAP_SHARED) and
 * close through drti.o's __usdt_sys (`syscall; int3`: its registers are
 * set, it runs to the int3, its registers are put back, as a debugger
 * calls a function); dtrace opens the memfd through /proc/PID/fd and
 * maps it too, so the process keeps one mapping and no descriptor.  The
 * arena's address goes into drti.o's control block (__usdt_ctl), then
 * each site's 4-byte NOP and the byte after it become `e8 rel32` to
 * __usdt_rec, and each probe's semaphore goes up by one, all written
 * through /proc/PID/mem.  A thread stopped at site + 4 (between the
 * site's two NOPs, where the call's operand now is) is single-stepped
 * out first.  The process is then let go; the stop and restart
 * serialise every CPU's view of the new bytes.
 *
 * A library dlclose()d and dlopen()ed again is armed anew
 * (remap_check(): its control block reads 0, or it moved); arming
 * reads the maps with the process held, and disarming writes only where
 * the file is still mapped as armed, a site only over our call.
 *
 * A fork child that registers (so a refresh finds it) runs the calls
 * it inherited and writes its parent's arena; arming it gives it an
 * arena of its own, over those calls.  A process refused with nothing
 * armed yet gets its control blocks back and its new arena unmapped,
 * so it is as it was (a child then goes on writing its parent's).
 *
 * An exec (exec_check(), exec_answer(); arena.h has the protocol).
 * The first arena made in a process stays open there at USDT_EXEC_FD,
 * without close-on-exec; the new image's drti.o constructor finds it,
 * claims a slot with its pid and token (AT_RANDOM) and waits; each read
 * answers the slots: the traced process is reset to its new maps and
 * refreshed, which arms the new image (a fresh ip_proc, an arena of its
 * own) before any of its probes ran, then told to go on.  An image
 * armed without asking (a -c command, before its constructors) gets its
 * slot marked done (image_done()), so its constructors do not ask.  An
 * exec whose image cannot ask (the descriptor closed), never asks, or
 * gave up waiting is said; a fork child's exec is let go, said.
 *
 * Both paths (ip_enable(), kernel_enable(), the mux_* ops).  A probe
 * the recorder cannot take goes to the kernel backend opened beside
 * this one (c->be_kernel), decided before any of its sites is written:
 * clauses needing the kernel at the hit (ustack(), execname,
 * copyinstr()/copyin() of an argument), a site that is not a -G call
 * site (tail calls, header stubs, <sys/sdt.h> NOPs, another tracer's
 * breakpoint), arguments outside the six argument registers, a file
 * without the recorder's symbols; a process it cannot take at all (not
 * held, a seccomp filter, its arena not made) goes there whole.  The
 * kernel backend's records are read first and decoded by it (a hit says
 * whose it is).  Refused, said, the run stopped: a glob's probe the
 * kernel path would arm binary-wide (over calls armed in other
 * processes), the pid provider, what fails once writing has begun;
 * vtimestamp, uid/gid and the kernel providers but tick-N are refused
 * earlier (vtime.c, psargs.c, kprov.c: this backend declares no such
 * capability).
 *
 * Reading (drain()).  Every claimed segment of every arena, from its
 * tail to its head; each record becomes a hit with the segment's pid and
 * tid, the CPU the recorder's rdtscp gave, and its TSC turned into
 * CLOCK_MONOTONIC nanoseconds on the line through two (TSC, clock)
 * samples: one when the backend opened, one at this read.  decode() finds
 * the site by the record's address (the arena's owner's map: a fork
 * child runs the same layout) and converts the registers as the site's
 * note says.  A segment of a pid other than the owner's is a fork child
 * (drti.o's fork handler makes it claim its own): lin_fork() tells the
 * tree, whose descriptions then decide whether its hits count, as on the
 * kernel path.  Every read also writes the heartbeat: the TSC now.
 *
 * Aggregating in the process (built with BPF, whose kplan.c decides).
 * The clauses the kernel path would aggregate in BPF are compiled, per
 * armed site, into a plan in the arena (probe_plan(), plan_site(),
 * plan_put(); arena.h has the encoding), which the recorder runs on its
 * thread's own aggregation slots instead of writing a record.  A record
 * flagged USDT_PC_AGG says the plan ran the probe's other clauses: its
 * decode sets kagg_rec and records.c runs only the rest (uclauses).
 * When tracing has ended, merge_proc() folds every owner thread's slots
 * into the program's aggregations with d_kplan_merge(), a thread for a
 * CPU, as bpf_agg.c folds the kernel's: the same output.
 *
 * Trust.  The arena is the process's own memory too; everything in it
 * is bounds-checked here (segment counts, head against tail, the record
 * address against the sites armed), so a process can lie only about its
 * own probes, as it already can with their arguments.
 *
 * Ending (stop()).  Each armed process still alive is held again: the
 * control block goes to 0, a thread inside __usdt_rec is single-stepped
 * out of it, the sites and semaphores get their bytes back, and the
 * arena is unmapped by an injected munmap (and USDT_EXEC_FD closed,
 * where it is ours); the heartbeat goes to 0 so
 * fork children, which keep their copy of the armed text, return at
 * once from then on.  After a SIGKILL of dtrace nothing is restored: the
 * heartbeat stops and every hit costs a call and a compare.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif
#include "objfile.h"
#include "procfs.h"
#include "stapsdt.h"

#if defined(__x86_64__)

#define IP_NSEG 256
#define IP_STEPS 100000 /* single steps to leave a site or the recorder */

/* A site armed in one process. */
struct ip_site {
	uint64_t addr; /* in the process */
	struct tfile *file;
	uint64_t off; /* file offset (the probe's site key) */
	uint8_t orig[6];
	uint8_t armed[5]; /* what we wrote: restored only over these */
	uint8_t len;	  /* bytes rewritten: 5 */
	bool enabled;	  /* a legacy is-enabled site */
	uint8_t nargs;
	int8_t reg[D_MAXARGS]; /* the recorded register of argument i */
	uint8_t size[D_MAXARGS];
	bool sgn[D_MAXARGS];
};

/* A control block enable() wrote, and what it held before. */
struct ip_ctlw {
	uint64_t at, old;
};

/* A semaphore counted up. */
struct ip_sema {
	uint64_t addr;
	struct tfile *file;
};

/* The recorder of one file as the process maps it. */
struct ip_obj {
	struct tfile *file;
	uint64_t bias;
	uint64_t rec, rec_end, sys, ctl, name;
	uint64_t ctl_size; /* 16: it has usdt_ctl.len (arena.h) */
};

/* A process armed: its arena and what was rewritten. */
struct ip_proc {
	pid_t pid;
	struct tproc *pr;
	uint8_t *map; /* dtrace's mapping of the arena */
	size_t len;
	uint64_t taddr; /* the process's */
	struct ip_obj *objs;
	size_t nobjs;
	struct ip_site *sites; /* sorted by addr once armed */
	size_t nsites;
	struct ip_sema *semas;
	size_t nsemas;
	uint64_t *tails; /* per segment: records read */
	pid_t *known;	 /* pids told to the tree (children) */
	size_t nknown;
	bool gone; /* exited: nothing to restore */
	bool disarmed;
	bool exec_said;
	bool exec_pending; /* exec'd; its new image is to ask (USDT_EXEC_FD) */
	bool exec_fd;	   /* we put the arena at USDT_EXEC_FD */
	bool kernel;	   /* the kernel path takes it whole (ip_enable()) */
	uint64_t ino;	   /* the arena's memfd */
	char *maps_seen;   /* pr->maps when remap_check() last looked */
	uint64_t corrupt;
	size_t plan_used; /* bytes of the arena's plan area given out */
	uint32_t *plans;  /* ... where each plan put there starts */
	size_t nplans;
};

/* A probe handed to the kernel path, and why (said under -v). */
struct ip_kprobe {
	struct tprobe *p;
	char *why;
};

struct inproc {
	struct ip_proc **procs;
	size_t nprocs;
	uint64_t tsc0, ns0; /* the first (TSC, clock) sample */
	uint64_t tsc1, ns1; /* the latest */
	uint64_t hz;	    /* TSC ticks per second */
	uint32_t nslots;
	uint64_t seg_size;
	bool stopped;
	/* aggregating in the arena (HAVE_BPF: kplan.c decides what) */
	struct d_kplan *kp;   /* NULL: every hit is a record */
	bool *ran;	      /* per clause: put in some plan */
	uint64_t agg_off;     /* a segment's aggregation area */
	bool child_exec_said; /* a fork child's exec, said once */
	bool kb_failed;	      /* the kernel backend beside would not open */
	char kb_why[512];
	/* kernel_enable() under way: pr, and the probes it hands over */
	struct tproc *kpr;
	const struct ip_kprobe *kpp;
	size_t nkpp;
};

static uint64_t rdtsc_now(void)
{
	return __builtin_ia32_rdtsc();
}

static void sample(struct inproc *ip, uint64_t *tsc, uint64_t *ns)
{
	/* the clock read between two TSC reads: their middle */
	uint64_t a = rdtsc_now(), n = now_ns(CLOCK_MONOTONIC), b = rdtsc_now();

	*tsc = a + (b - a) / 2;
	*ns = n;
	(void)ip;
}

static uint64_t tsc_to_ns(const struct inproc *ip, uint64_t t)
{
	unsigned __int128 d;

	if (t <= ip->tsc0 || ip->tsc1 <= ip->tsc0)
		return ip->ns0;
	d = (unsigned __int128)(t - ip->tsc0) * (ip->ns1 - ip->ns0);
	return ip->ns0 + (uint64_t)(d / (ip->tsc1 - ip->tsc0));
}

/* ------------------------------------------------------------------ */
/* The process's memory and threads */

static int mem_rw(pid_t pid, uint64_t addr, void *buf, size_t len, bool write)
{
	char p[64];
	int fd;
	ssize_t n;

	(void)proc_path(p, sizeof(p), pid, "mem");
	fd = open(p, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, buf, len, (off_t)addr)
		  : pread(fd, buf, len, (off_t)addr);
	close(fd);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* The threads held: the frozen ones, or a -c command's only thread. */
struct ip_hold {
	struct frozen *fz;
	size_t n;
	pid_t one; /* pr->held: the command, stopped by us already */
};

static bool hold(struct tproc *pr, struct ip_hold *h)
{
	memset(h, 0, sizeof(*h));
	if (pr->held) {
		h->one = pr->pid;
		return true;
	}
	h->n = proc_freeze(pr->pid, &h->fz, 0);
	return h->n > 0;
}

static void release(struct ip_hold *h)
{
	if (!h->one)
		proc_thaw(h->fz, h->n);
	else
		free(h->fz);
}

static size_t hold_count(const struct ip_hold *h)
{
	return h->one ? 1 : h->n;
}

static pid_t hold_tid(const struct ip_hold *h, size_t i)
{
	return h->one ? h->one : h->fz[i].tid;
}

/* A signal that stopped a thread while we ran it: delivered on release. */
static void hold_sig(struct ip_hold *h, size_t i, int sig)
{
	if (!h->one && !h->fz[i].sig)
		h->fz[i].sig = sig;
}

/* Run thread i one instruction at a time while rip is in [lo, hi). */
static int step_out(struct ip_hold *h, size_t i, uint64_t lo, uint64_t hi)
{
	pid_t tid = hold_tid(h, i);

	for (int k = 0; k < IP_STEPS; k++) {
		struct user_regs_struct r;
		int st;

		if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
			return -errno;
		if (r.rip < lo || r.rip >= hi)
			return 0;
		if (ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL) < 0)
			return -errno;
		if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			return -ESRCH;
		if (WSTOPSIG(st) != SIGTRAP)
			hold_sig(h, i, WSTOPSIG(st));
	}
	return -ETIMEDOUT;
}

/*
 * Thread 0 of h runs one system call at sys (`syscall; int3`) and is put
 * back as it was; its result, or -errno for our own failure (*ours).
 */
static long inject(struct ip_hold *h, uint64_t sys, long nr, long a0, long a1,
		   long a2, long a3, long a4, long a5, bool *ours)
{
	pid_t tid = hold_tid(h, 0);
	struct user_regs_struct save, r;
	long ret;

	*ours = true;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &save) < 0)
		return -errno;
	r = save;
	r.rip = sys;
	r.orig_rax = (unsigned long long)-1; /* no syscall restart */
	r.rax = (unsigned long long)nr;
	r.rdi = (unsigned long long)a0;
	r.rsi = (unsigned long long)a1;
	r.rdx = (unsigned long long)a2;
	r.r10 = (unsigned long long)a3;
	r.r8 = (unsigned long long)a4;
	r.r9 = (unsigned long long)a5;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) < 0)
		return -errno;
	for (;;) {
		int st;

		if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
			return -errno;
		if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			return -ESRCH;
		if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
			return -errno;
		if (WSTOPSIG(st) == SIGTRAP && r.rip == sys + 3)
			break;
		if (WSTOPSIG(st) != SIGTRAP)
			hold_sig(h, 0, WSTOPSIG(st));
		if (r.rip < sys || r.rip > sys + 3) {
			(void)ptrace(PTRACE_SETREGS, tid, NULL, &save);
			return -EFAULT;
		}
	}
	ret = (long)r.rax;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &save) < 0)
		return -errno;
	*ours = false;
	return ret;
}

/*
 * Does a seccomp filter watch pid's system calls?  One could kill it
 * for a call we inject (memfd_create, mmap, munmap), so none is.
 */
static bool seccomp_filtered(pid_t pid)
{
	char st[4096], *s;

	if (proc_read_file(pid, "status", st, sizeof(st)) < 0)
		return true; /* cannot tell: as if it did */
	s = strstr(st, "\nSeccomp:");
	return s && atoi(s + 9) != 0;
}

/* ------------------------------------------------------------------ */
/* Files: the recorder's symbols, where the process maps them */

static bool file_sym(const struct tfile *f, const char *name, uint64_t *v,
		     uint64_t *size)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (!strcmp(f->symnames[i], name) &&
		    f->syms[i].st_shndx != SHN_UNDEF) {
			*v = f->syms[i].st_value;
			if (size)
				*size = f->syms[i].st_size;
			return true;
		}
	return false;
}

/* f's load bias in the process whose maps are mm, or false. */
static bool file_bias(const struct tfile *f, const struct proc_maps *mm,
		      uint64_t *bias)
{
	for (size_t i = 0; i < mm->n; i++) {
		const struct proc_map *m = &mm->m[i];

		if (m->ino == (uint64_t)f->ino && m->dev == (uint64_t)f->dev &&
		    elf_load_bias(f->ph, f->nph, m->start, m->off, bias) == 0)
			return true;
	}
	return false;
}

static uint64_t off_to_addr(const struct tfile *f, uint64_t bias, uint64_t off)
{
	for (size_t k = 0; k < f->nph; k++) {
		const GElf_Phdr *ph = &f->ph[k];

		if (ph->p_type == PT_LOAD && off >= ph->p_offset &&
		    off - ph->p_offset < ph->p_filesz)
			return bias + ph->p_vaddr + (off - ph->p_offset);
	}
	return 0;
}

/*
 * f's sites and semaphores are no longer where they were (unmapped):
 * nothing of them is restored, or found by a record.
 */
static void forget_file(struct ip_proc *ipp, const struct tfile *f)
{
	size_t n = 0;

	for (size_t i = 0; i < ipp->nsites; i++)
		if (ipp->sites[i].file != f)
			ipp->sites[n++] = ipp->sites[i];
	ipp->nsites = n;
	n = 0;
	for (size_t i = 0; i < ipp->nsemas; i++)
		if (ipp->semas[i].file != f)
			ipp->semas[n++] = ipp->semas[i];
	ipp->nsemas = n;
}

static struct ip_obj *proc_obj(struct ip_proc *ipp, struct tfile *f,
			       const struct proc_maps *mm, char *why,
			       size_t wlen)
{
	struct ip_obj o = {.file = f}, *had = NULL;
	uint64_t size = 0, bias;

	if (!file_bias(f, mm, &bias)) {
		snprintf(why, wlen, "%s: not mapped as its program headers say",
			 f->path);
		return NULL;
	}
	for (size_t i = 0; i < ipp->nobjs; i++)
		if (ipp->objs[i].file == f)
			had = &ipp->objs[i];
	if (had && had->bias == bias)
		return had;
	if (had) /* unmapped (dlclose) and mapped again elsewhere */
		forget_file(ipp, f);
	if (!file_sym(f, "__usdt_rec", &o.rec, &size) || !size ||
	    !file_sym(f, "__usdt_sys", &o.sys, NULL) ||
	    !file_sym(f, "__usdt_ctl", &o.ctl, &o.ctl_size) ||
	    !file_sym(f, "__usdt_name", &o.name, NULL)) {
		snprintf(why, wlen,
			 "%s has no in-process recorder (no __usdt_rec in its "
			 "symbol table: stripped, or linked with an older "
			 "drti.o)",
			 f->path);
		return NULL;
	}
	if (file_sym(f, "__usdt_rec.cold", &o.rec_end, NULL)) {
		snprintf(why, wlen, "%s: its recorder is in two pieces",
			 f->path);
		return NULL;
	}
	o.bias = bias;
	o.rec += o.bias;
	o.rec_end = o.rec + size;
	o.sys += o.bias;
	o.ctl += o.bias;
	o.name += o.bias;
	if (had) {
		*had = o;
		return had;
	}
	PUSH(ipp->objs, ipp->nobjs, o);
	return &ipp->objs[ipp->nobjs - 1];
}

/* ------------------------------------------------------------------ */
/* Sites */

/* The 6 bytes of f at file offset off, as -G left them. */
static int file_bytes(const struct tfile *f, uint64_t off, uint8_t b[6])
{
	/* upath: the file the process maps, even deleted or replaced */
	int fd = open(f->upath ? f->upath : f->path,
		      O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, b, 6, (off_t)off);
	close(fd);
	return n == 6 ? 0 : -EIO;
}

static const uint8_t nop_call[5] = {0x0f, 0x1f, 0x40, 0x00, 0x90};
static const uint8_t nop_got[6] = {0x0f, 0x1f, 0x40, 0x00, 0x66, 0x90};
static const uint8_t nop_en[5] = {0x31, 0xc0, 0x0f, 0x1f, 0x00};
static const uint8_t mov_1[5] = {0xb8, 0x01, 0x00, 0x00, 0x00};

/* The register a -G site's argument i is in: SysV order. */
static int arg_reg_index(int reg)
{
	static const int order[USDT_REC_ARGS] = {
		STAPSDT_REG_RDI, STAPSDT_REG_RSI, STAPSDT_REG_RDX,
		STAPSDT_REG_RCX, STAPSDT_REG_R8,  STAPSDT_REG_R9,
	};

	for (int i = 0; i < USDT_REC_ARGS; i++)
		if (order[i] == reg)
			return i;
	return -1;
}

/* The note's argument specs as recorded registers; false: refused. */
static bool site_args_plan(const struct tnote *n, struct ip_site *s, char *why,
			   size_t wlen)
{
	struct stapsdt_arg a;
	struct stapsdt_err e;
	size_t cur = 0;
	int r;

	s->nargs = 0;
	if (!n || !n->args)
		return true;
	while ((r = stapsdt_arg_next(n->args, &cur, &a, &e)) == 1) {
		int idx = a.kind == STAPSDT_ARG_REG && !a.reg_hi8 && !a.is_float
				  ? arg_reg_index(a.reg)
				  : -1;

		if (idx < 0 || s->nargs >= D_MAXARGS) {
			snprintf(why, wlen,
				 "argument %u (%.*s) is not in an argument "
				 "register",
				 s->nargs, (int)a.len, a.text);
			return false;
		}
		s->reg[s->nargs] = (int8_t)idx;
		s->size[s->nargs] = (uint8_t)(a.size ? a.size : 8);
		s->sgn[s->nargs] = a.is_signed;
		s->nargs++;
	}
	if (r < 0) {
		snprintf(why, wlen, "its note's arguments do not parse");
		return false;
	}
	return true;
}

static int site_cmp(const void *a, const void *b)
{
	const struct ip_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static const struct ip_site *site_find(const struct ip_proc *ipp, uint64_t addr)
{
	size_t lo = 0, hi = ipp->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ipp->sites[mid].addr == addr)
			return ipp->sites[mid].enabled ? NULL
						       : &ipp->sites[mid];
		if (ipp->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The arena */

static struct ip_proc *ip_proc_of(struct consumer *c, struct tproc *pr)
{
	struct inproc *ip = c->ip;

	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->pr == pr && !ip->procs[i]->gone)
			return ip->procs[i];
	return NULL;
}

/*
 * What pid holds at USDT_EXEC_FD: nothing or an arena of an earlier run
 * (ours to take), one of this run's arenas (an exec will ask), or a
 * file of its own (left alone: its execs are not followed).
 */
enum { EXFD_FREE, EXFD_OURS, EXFD_OTHER };

static int exec_fd_state(struct consumer *c, pid_t pid)
{
	struct inproc *ip = c->ip;
	char p[64], l[256];
	struct stat st;
	ssize_t n;

	(void)proc_path(p, sizeof(p), pid, "fd/%d", USDT_EXEC_FD);
	if (stat(p, &st) < 0)
		return errno == ENOENT ? EXFD_FREE : EXFD_OTHER;
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map && ip->procs[i]->ino &&
		    ip->procs[i]->ino == (uint64_t)st.st_ino)
			return EXFD_OURS;
	n = readlink(p, l, sizeof(l) - 1);
	if (n < 0)
		return EXFD_OTHER;
	l[n] = '\0';
	return strncmp(l, "/memfd:usdt-arena", 17) ? EXFD_OTHER : EXFD_FREE;
}

/* The token of pid's current image: AT_RANDOM's 16 bytes (arena.h). */
static int image_token(pid_t pid, uint64_t tok[2])
{
	uint64_t at = 0;

	if (proc_auxv(pid, AT_RANDOM, &at) < 0 || !at)
		return -1;
	return mem_rw(pid, at, tok, 2 * sizeof(uint64_t), false);
}

/*
 * pid's current image armed: its slot in the arena at USDT_EXEC_FD (its
 * pid, AT_RANDOM's 16 bytes, done), so that its drti.o constructors,
 * which may run after (a -c command is armed before them, a library
 * dlopen()ed later runs its own), go on at once instead of asking.
 */
static void image_done(struct consumer *c, pid_t pid)
{
	struct inproc *ip = c->ip;
	struct ip_proc *root = NULL;
	struct usdt_exec *x, *e = NULL;
	char p[64];
	struct stat st;
	uint64_t tok[2];

	(void)proc_path(p, sizeof(p), pid, "fd/%d", USDT_EXEC_FD);
	if (stat(p, &st) < 0)
		return;
	for (size_t i = 0; i < ip->nprocs && !root; i++)
		if (ip->procs[i]->map &&
		    ip->procs[i]->ino == (uint64_t)st.st_ino)
			root = ip->procs[i];
	if (!root || image_token(pid, tok) < 0)
		return;
	x = (struct usdt_exec *)(root->map + USDT_EXEC_OFF);
	for (int i = 0; i < USDT_NEXEC && !e; i++)
		if (__atomic_load_n(&x[i].pid, __ATOMIC_ACQUIRE) ==
		    (uint32_t)pid)
			e = &x[i];
	for (int i = 0; i < USDT_NEXEC && !e; i++) {
		uint32_t z = 0;

		if (__atomic_compare_exchange_n(&x[i].pid, &z, (uint32_t)pid,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			e = &x[i];
	}
	if (!e)
		return; /* its constructors ask, and are answered */
	e->token[0] = tok[0];
	e->token[1] = tok[1];
	__atomic_store_n(&e->state, USDT_EX_DONE, __ATOMIC_RELEASE);
}

/* Make the arena in the held process (its first object's __usdt_sys). */
static int arena_make(struct consumer *c, struct ip_proc *ipp,
		      struct ip_hold *h, const struct ip_obj *o, char *why,
		      size_t wlen)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a;
	char p[64];
	long fd, addr;
	int mfd;
	bool ours;

	ipp->len = USDT_ARENA_HDR + (size_t)IP_NSEG * ip->seg_size;
	if (ip->kp) /* the site hash and the plans, after the segments */
		ipp->len +=
			USDT_ASITES * sizeof(struct usdt_asite) + USDT_APLANS;
	fd = inject(h, o->sys, SYS_memfd_create, (long)o->name, MFD_CLOEXEC, 0,
		    0, 0, 0, &ours);
	if (fd < 0) {
		snprintf(why, wlen, "memfd_create in the process failed: %s%s",
			 strerror((int)-fd), ours ? " (ptrace)" : "");
		return -1;
	}
	(void)proc_path(p, sizeof(p), ipp->pid, "fd/%ld", fd);
	mfd = open(p, O_RDWR | O_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)ipp->len) < 0) {
		snprintf(why, wlen, "%s: %s", p, strerror(errno));
		if (mfd >= 0)
			close(mfd);
		(void)inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
		return -1;
	}
	ipp->map = mmap(NULL, ipp->len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd,
			0);
	{
		struct stat st;

		ipp->ino = fstat(mfd, &st) == 0 ? (uint64_t)st.st_ino : 0;
	}
	close(mfd);
	if (ipp->map == MAP_FAILED) {
		ipp->map = NULL;
		snprintf(why, wlen, "mmap of the arena: %s", strerror(errno));
		(void)inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
		return -1;
	}
	addr = inject(h, o->sys, SYS_mmap, 0, (long)ipp->len,
		      PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, &ours);
	/*
	 * The first arena of a process (of an exec chain) stays open at
	 * USDT_EXEC_FD, inherited across exec (arena.h): unless that
	 * descriptor is the process's own, or one of ours already.
	 */
	if (addr >= 0 && exec_fd_state(c, ipp->pid) == EXFD_FREE &&
	    inject(h, o->sys, SYS_dup3, fd, USDT_EXEC_FD, 0, 0, 0, 0, &ours) ==
		    USDT_EXEC_FD)
		ipp->exec_fd = true;
	(void)inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
	if (addr < 0 && addr > -4096) {
		snprintf(why, wlen, "mmap in the process failed: %s%s",
			 strerror((int)-addr), ours ? " (ptrace)" : "");
		munmap(ipp->map, ipp->len);
		ipp->map = NULL;
		return -1;
	}
	ipp->taddr = (uint64_t)addr;
	a = (struct usdt_arena *)ipp->map;
	a->magic = USDT_ARENA_MAGIC;
	a->version = USDT_ARENA_VERSION;
	a->nseg = IP_NSEG;
	a->gen = ip->tsc0 ^ ((uint64_t)ipp->pid << 32) ^ rdtsc_now();
	a->seg_size = ip->seg_size;
	a->nslots = ip->nslots;
	a->hb_limit = ip->hz; /* one second */
	a->execs = 1;
	if (ip->kp) {
		a->owner = (uint32_t)ipp->pid;
		a->agg_off = ip->agg_off;
		a->site_off = USDT_ARENA_HDR + (uint64_t)IP_NSEG * ip->seg_size;
		a->plan_off =
			a->site_off + USDT_ASITES * sizeof(struct usdt_asite);
		a->aplans = 1;
	}
	__atomic_store_n(&a->hb, rdtsc_now(), __ATOMIC_RELEASE);
	ipp->tails = xcalloc(IP_NSEG, sizeof(*ipp->tails));
	return 0;
}

/* The arena unmapped in the held process; false when it could not be. */
/* ... through the `syscall; int3` at sys (0: none left mapped) */
static bool arena_unmap(struct ip_proc *ipp, struct ip_hold *h, uint64_t sys)
{
	bool ours;
	long r;

	if (!ipp->taddr)
		return true;
	if (!sys || seccomp_filtered(ipp->pid))
		return false; /* it sandboxed itself since: leave it mapped */
	r = inject(h, sys, SYS_munmap, (long)ipp->taddr, (long)ipp->len, 0, 0,
		   0, 0, &ours);
	ipp->taddr = 0;
	return r == 0;
}

/* ------------------------------------------------------------------ */
/* The backend */

static bool probe_refusal(struct consumer *c, const struct tprobe *p, char *why,
			  size_t wlen)
{
	if (p->pidkind) {
		snprintf(why, wlen, "the pid provider needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_USTACK) {
		snprintf(why, wlen, "ustack() needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_VTIME) {
		snprintf(why, wlen, "vtimestamp needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_EXECNAME) {
		snprintf(why, wlen,
			 "execname is read at the hit on the kernel path only");
		return true;
	}
	if (p->fstrmask) {
		snprintf(why, wlen,
			 "copyinstr() of an argument is copied at the hit on "
			 "the kernel path only");
		return true;
	}
	for (unsigned i = 0; i < p->nclauses; i++) {
		uint32_t sz[D_MAXARGS];

		if (d_clause_memargs(c->prog, p->clauses[i], sz)) {
			snprintf(why, wlen,
				 "copyin() of an argument is copied at the "
				 "hit on the kernel path only");
			return true;
		}
	}
	return false;
}

static int ip_open(struct consumer *c)
{
	struct inproc *ip = xcalloc(1, sizeof(*ip));
	struct timespec ts = {0, 2000000};
	uint64_t slots = 1;

	c->ip = ip;
	sample(ip, &ip->tsc0, &ip->ns0);
	nanosleep(&ts, NULL);
	sample(ip, &ip->tsc1, &ip->ns1);
	if (ip->ns1 <= ip->ns0 || ip->tsc1 <= ip->tsc0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "the TSC does not advance with the clock");
		return -ENOTSUP;
	}
	ip->hz = (uint64_t)((unsigned __int128)(ip->tsc1 - ip->tsc0) *
			    1000000000u / (ip->ns1 - ip->ns0));
	/* a segment per thread: -x bufsize of records, a power of two */
	while (slots * 2 * sizeof(struct usdt_slot) <= c->rbsize &&
	       slots < (1u << 24))
		slots *= 2;
	ip->nslots = (uint32_t)slots;
	ip->seg_size =
		(USDT_SEG_HDR + slots * sizeof(struct usdt_slot) + 4095) &
		~(uint64_t)4095;
#ifdef HAVE_BPF
	/* clauses that only aggregate: plans run by the recorder */
	{
		const char *env = getenv("DTRACE_KAGG");
		struct d_kplan *kp;
		bool any = false;

		kp = env && !strcmp(env, "0") ? NULL
					      : d_kplan_new(c->prog, 0, NULL);
		for (unsigned ci = 0; kp && ci < c->nclauses; ci++)
			any |= d_kplan_clause(kp, ci);
		if (any) {
			ip->kp = kp;
			ip->ran = xcalloc(c->nclauses, sizeof(*ip->ran));
			ip->agg_off = ip->seg_size;
			ip->seg_size += USDT_AGG_BYTES;
		} else if (kp) {
			d_kplan_free(kp);
		}
	}
#endif
	c->lin.on = true; /* fork children are told by their segments */
	c->lin.exec_drops = true;
	return 0;
}

/*
 * Where the arena ipp made is in its process: still there, whole, at
 * its address (AR_THERE); gone (AR_GONE: an exec, though something else
 * named usdt-arena, a new image's view of the exec header, may be
 * mapped); or the maps are not there to say (AR_UNREAD: exiting, gone).
 */
enum { AR_THERE, AR_GONE, AR_UNREAD };

static int arena_state(const struct ip_proc *ipp)
{
	struct proc_maps mm = {0};
	bool found = false;

	if (proc_maps_read(ipp->pid, &mm) < 0 || !mm.n) {
		proc_maps_free(&mm);
		return AR_UNREAD;
	}
	for (size_t i = 0; i < mm.n && !found; i++)
		found = mm.m[i].start == ipp->taddr &&
			mm.m[i].end - mm.m[i].start == ipp->len;
	proc_maps_free(&mm);
	return found ? AR_THERE : AR_GONE;
}

/*
 * Has ipp's process exec'd (its maps, read every refresh, lost the
 * arena)?  Its new image asks to be armed through the arena it inherits
 * at USDT_EXEC_FD (exec_answer()), before any of its probes can fire:
 * until then nothing of it is armed (exec_pending).  Without that
 * descriptor (the process closed it, or had its own there) it cannot
 * ask: said once.  True: the image ipp armed is gone.
 */
static bool exec_check(struct consumer *c, struct ip_proc *ipp)
{
	const struct tproc *pr = ipp->pr;
	char range[48];

	if (ipp->exec_said || ipp->exec_pending)
		return true;
	if (!ipp->map || ipp->gone || !ipp->taddr || pr->exited)
		return false;
	/*
	 * The arena still where ipp made it, whole, in the maps last read:
	 * no exec.  Not any "usdt-arena" line: a new image waiting to be
	 * armed maps the header of the arena at USDT_EXEC_FD (drti/rec.c)
	 * too, and taken for no exec, a refresh would arm the new image as
	 * the old one (its sites in ipp, where the old image's hits still
	 * in the arena would find none).  Else the maps are read now
	 * (pr->maps may be from before the arena was made, or none: the
	 * kernel path's exec record reset them, proc_exec_reset()); an
	 * exiting process has none (not an exec).
	 */
	snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64 " ", ipp->taddr,
		 ipp->taddr + ipp->len);
	if (pr->maps && strstr(pr->maps, range))
		return false;
	if (arena_state(ipp) != AR_GONE)
		return false;
	if (exec_fd_state(c, pr->pid) == EXFD_OURS) {
		ipp->exec_pending = true;
		return true;
	}
	say(c,
	    "pid %d exec'd and closed (or never had) the descriptor its new "
	    "image asks to be armed through: -x activation=user does not "
	    "trace that image",
	    (int)pr->pid);
	ipp->exec_said = true;
	return true;
}

/* An exec'd image that never asked to be armed: said when it ends. */
static void exec_unasked(struct consumer *c, struct ip_proc *ipp)
{
	if (!ipp->exec_pending || ipp->exec_said)
		return;
	ipp->exec_said = true;
	say(c,
	    "pid %d exec'd an image that did not ask to be armed (no object "
	    "of it carries drti.o's recorder, or it had not run its "
	    "constructors): -x activation=user did not trace it",
	    (int)ipp->pid);
}

/*
 * The slots of ipp's arena (arena.h, "Following an exec"): an image
 * exec'd by a traced process waits in its first drti.o constructor
 * until it is armed here.  Its pid's process is reset to its new maps
 * (proc_exec_reset()) and refreshed, which arms it with an arena of
 * its own, and it is told to go on.  An image of a process this run
 * does not trace (a fork child's) is told to go on, said once a run.  A
 * slot
 * whose token is not its pid's image's, or whose pid's old arena is
 * still mapped (no exec), is a lie (a fork child shares the arena), not
 * acted on.
 */
static void exec_answer(struct consumer *c, struct ip_proc *root)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)root->map;
	struct usdt_exec *x = (struct usdt_exec *)(root->map + USDT_EXEC_OFF);

	if (!a || ip->stopped)
		return;
	for (int i = 0; i < USDT_NEXEC; i++) {
		uint32_t st = __atomic_load_n(&x[i].state, __ATOMIC_ACQUIRE);
		pid_t pid = (pid_t)__atomic_load_n(&x[i].pid, __ATOMIC_RELAXED);
		uint32_t w = USDT_EX_WAIT;
		struct tproc *pr;
		struct ip_proc *old;
		uint64_t tok[2];

		if (pid <= 0)
			continue;
		if (st == USDT_EX_DONE || st == USDT_EX_FREE) {
			/* its process gone: the slot free again */
			if (kill(pid, 0) < 0 && errno == ESRCH) {
				__atomic_store_n(&x[i].state, USDT_EX_FREE,
						 __ATOMIC_RELEASE);
				__atomic_store_n(&x[i].pid, 0,
						 __ATOMIC_RELEASE);
			}
			continue;
		}
		pr = proc_find(c, pid);
		old = pr && !pr->exited ? ip_proc_of(c, pr) : NULL;
		if (st == USDT_EX_GAVEUP) {
			if (!old || !old->exec_said)
				say(c,
				    "pid %d exec'd while dtrace was not "
				    "reading (its new image waited a second): "
				    "-x activation=user did not trace that "
				    "image",
				    (int)pid);
			if (old) {
				old->exec_pending = false;
				old->exec_said = true;
			}
			__atomic_store_n(&x[i].state, USDT_EX_DONE,
					 __ATOMIC_RELEASE);
			continue;
		}
		if (st != USDT_EX_WAIT)
			continue;
		if (pr && (image_token(pid, tok) < 0 ||
			   tok[0] != x[i].token[0] || tok[1] != x[i].token[1] ||
			   (old && old->taddr && arena_state(old) == AR_THERE))) {
			root->corrupt++; /* not its image, or no exec */
			__atomic_store_n(&x[i].state, USDT_EX_DONE,
					 __ATOMIC_RELEASE);
			continue;
		}
		if (!__atomic_compare_exchange_n(&x[i].state, &w,
						 USDT_EX_ARMING, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue; /* it gave up meanwhile: next read */
		if (pr && !pr->exited) {
			if (old) { /* its image is gone: nothing to restore */
				old->gone = true;
				old->taddr = 0;
				old->exec_pending = false;
			}
			proc_exec_reset(c, pr);
			(void)proc_refresh(c, pr, NULL);
		} else if (!ip->child_exec_said) {
			ip->child_exec_said = true;
			say(c,
			    "pid %d, forked from a process traced in-process, "
			    "exec'd: -x activation=user follows the execs of "
			    "the processes it traces only; its new image (and "
			    "any other such child's) is not traced",
			    (int)pid);
		}
		__atomic_store_n(&x[i].state, USDT_EX_DONE, __ATOMIC_RELEASE);
	}
}

/* ------------------------------------------------------------------ */
/* Plans: clauses the recorder aggregates in the arena (arena.h) */

#ifdef HAVE_BPF
_Static_assert(USDT_AFLAT >= UBPF_KFLAT, "a plan's flat slots fit");
_Static_assert(USDT_AKEYS == UBPF_KMAXKEYS, "a plan's keys fit");
_Static_assert(USDT_A_ARG > UBPF_K_SC, "USDT_A_ARG is no UBPF_K_*");

/*
 * Probe p's plan into pl: every clause kplan.c takes, in order; the
 * clauses left go to p->uclauses, which a record flagged USDT_PC_AGG
 * runs (records.c), once per probe.  false: no clause is planned.
 */
static bool probe_plan(struct inproc *ip, struct tprobe *p,
		       struct ubpf_kplan *pl)
{
	bool any = false, fresh = !p->kplanned;

	memset(pl, 0, sizeof(*pl));
	if (fresh) {
		free(p->uclauses);
		free(p->uepids);
		p->uclauses = p->uepids = NULL;
		p->nuclauses = 0;
	}
	for (unsigned i = 0; i < p->nclauses; i++) {
		if (d_kplan_emit(ip->kp, p->clauses[i], &p->dp, pl)) {
			any = true;
			ip->ran[p->clauses[i]] = true;
			continue;
		}
		pl->record = 1;
		if (fresh) {
			p->uclauses = xpush_room(p->uclauses, p->nuclauses,
						 sizeof(*p->uclauses));
			p->uepids = xpush_room(p->uepids, p->nuclauses,
					       sizeof(*p->uepids));
			p->uclauses[p->nuclauses] = p->clauses[i];
			p->uepids[p->nuclauses++] = p->epids[i];
		}
	}
	p->kplanned = true;
	return any;
}

/*
 * pl at site s, in the arena's encoding (arena.h): an argument becomes
 * the register the site's note names, converted as it says (0 where
 * the note has no such argument, as a record's decode gives).  false:
 * it does not fit, and the site's hits stay records.
 */
static bool plan_site(const struct ubpf_kplan *pl, const struct ip_site *s,
		      struct usdt_aplan *a)
{
	if (pl->nops > USDT_AOPS)
		return false;
	memset(a, 0, sizeof(*a) + USDT_AOPS * sizeof(a->ops[0]));
	a->nops = pl->nops;
	a->record = pl->record;
	for (unsigned i = 0; i < pl->nops; i++) {
		const struct ubpf_kop *o = &pl->ops[i];
		struct usdt_aop *d = &a->ops[i];

		if (o->op > UBPF_K_AGG || (o->flags & UBPF_KF_SKEY))
			return false; /* generated programs' only */
		d->op = o->op;
		d->sz = o->sz;
		d->sg = o->sg;
		d->n = o->n;
		d->imm = o->imm;
		d->imm_b = (o->flags & UBPF_KF_IMM) != 0;
		d->agg = o->agg;
		d->jump = o->jump;
		d->slot = o->slot;
		d->step = o->step;
		d->levels = o->levels;
		if (o->op == UBPF_K_ARG && o->n < s->nargs) {
			d->op = USDT_A_ARG;
			d->n = (uint8_t)s->reg[o->n];
			d->asz = s->size[o->n];
			d->asg = s->sgn[o->n];
		} else if (o->op == UBPF_K_ARG) {
			d->op = UBPF_K_CONST;
			d->imm = 0;
		}
		if (o->op == UBPF_K_PRED && o->jump <= i)
			return false;
		if (o->op == UBPF_K_AGG && (o->flags & UBPF_KF_FLAT))
			d->flags = USDT_AFL_FLAT;
		else if (o->op == UBPF_K_AGG && a->nkeyed++ == UINT8_MAX)
			return false;
	}
	return true;
}

/*
 * Site addr's plan (NULL: its hits are records) into ipp's arena: the
 * plan area (a plan put there already is shared), then the site hash,
 * whose entry for addr, left by a library once mapped there, is
 * overwritten.  The process is held.
 */
static void plan_put(const struct inproc *ip, struct ip_proc *ipp,
		     uint64_t addr, const struct usdt_aplan *a)
{
	/* where arena_make() put them: never the header's word, which
	 * the process can write */
	size_t site_off = USDT_ARENA_HDR + (size_t)IP_NSEG * ip->seg_size;
	struct usdt_asite *tab = (struct usdt_asite *)(ipp->map + site_off);
	uint8_t *area =
		ipp->map + site_off + USDT_ASITES * sizeof(struct usdt_asite);
	size_t len = a ? sizeof(*a) + a->nops * sizeof(a->ops[0]) : 0;
	uint32_t at = 0, k = usdt_asite_hash(addr);

	for (size_t i = 0; a && i < ipp->nplans && !at; i++)
		if (ipp->plans[i] + len <= ipp->plan_used &&
		    !memcmp(area + ipp->plans[i], a, len))
			at = ipp->plans[i] + 1;
	if (a && !at && ipp->plan_used + len <= USDT_APLANS) {
		memcpy(area + ipp->plan_used, a, len);
		PUSH(ipp->plans, ipp->nplans, (uint32_t)ipp->plan_used);
		at = (uint32_t)ipp->plan_used + 1;
		ipp->plan_used = (ipp->plan_used + len + 7) & ~(size_t)7;
	}
	for (unsigned j = 0; j < USDT_ASITES; j++) {
		struct usdt_asite *e = &tab[(k + j) & (USDT_ASITES - 1)];

		if (e->addr == addr || (!e->addr && at)) {
			e->plan = at;
			__atomic_store_n(&e->addr, addr, __ATOMIC_RELEASE);
			return;
		}
		if (!e->addr)
			return; /* no plan, no entry: records */
	}
}

static const struct d_probe *probe_of(void *ctx, unsigned id)
{
	struct consumer *c = ctx;

	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->dp.id == id)
			return &c->probes[i]->dp;
	return kprov_probe_of(c, id); /* a kernel provider's */
}

/*
 * What the threads of ipp's owner aggregated, into the program's
 * aggregations (kplan.c merges them as it merges the kernel's, a
 * thread for a CPU), once tracing has ended.  Everything is checked:
 * the arena is the process's memory too.
 */
static void merge_proc(struct consumer *c, struct ip_proc *ipp)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)ipp->map;
	uint32_t nseg = __atomic_load_n(&a->next_seg, __ATOMIC_ACQUIRE);
	struct ubpf_kval *v;
	uint8_t **own = NULL;
	size_t nown = 0;

	if (nseg > IP_NSEG)
		nseg = IP_NSEG;
	for (uint32_t i = 0; i < nseg; i++) {
		uint8_t *sp =
			ipp->map + USDT_ARENA_HDR + (size_t)i * ip->seg_size;
		struct usdt_seg *s = (struct usdt_seg *)sp;

		if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) && s->own &&
		    (pid_t)s->pid == ipp->pid)
			PUSH(own, nown, sp + ip->agg_off);
	}
	for (size_t i = 0; i < nown; i++) {
		const struct usdt_aent *tab =
			(const struct usdt_aent *)(own[i] +
						   USDT_AFLAT * 2 *
							   sizeof(int64_t));

		for (unsigned j = 0; j < USDT_AHASH; j++) {
			struct ubpf_kkey key = {0};
			struct ubpf_kval val;

			if (!__atomic_load_n(&tab[j].used, __ATOMIC_ACQUIRE))
				continue;
			key.agg = tab[j].agg;
			key.bucket = tab[j].bucket;
			memcpy(key.k, tab[j].k, sizeof(key.k));
			val.a = tab[j].a;
			val.b = tab[j].b;
			d_kplan_merge(ip->kp, &key, &val, 1, probe_of, c, NULL);
		}
	}
	/* the statements without keys: a slot, every thread's value */
	v = xcalloc(nown ? nown : 1, sizeof(*v));
	for (unsigned st = 0; nown && st < d_kplan_nstmts(ip->kp); st++) {
		unsigned slot, n;

		if (!d_kplan_flat(ip->kp, st, &slot, &n))
			continue;
		for (unsigned i = 0; i < n && slot + i < USDT_AFLAT; i++) {
			struct ubpf_kkey key = {0};
			bool hit = false;

			for (size_t t = 0; t < nown; t++) {
				const int64_t *f = (const int64_t *)own[t];

				v[t].a = f[2 * (slot + i)];
				v[t].b = f[2 * (slot + i) + 1];
				hit |= v[t].a || v[t].b;
			}
			if (!hit)
				continue;
			key.agg = (uint16_t)st;
			key.bucket = (uint16_t)i;
			d_kplan_merge(ip->kp, &key, v, (unsigned)nown, probe_of,
				      c, NULL);
		}
	}
	free(v);
	free(own);
}

static void ip_aggs(struct consumer *c)
{
	struct inproc *ip = c->ip;
	unsigned nran = 0;

	if (!ip || !ip->kp)
		return;
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map)
			merge_proc(c, ip->procs[i]);
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		nran += ip->ran[ci];
	if (c->o->verbose && nran)
		say(c, "%u clause%s aggregated in the process", nran,
		    nran == 1 ? "" : "s");
}
#else
static void ip_aggs(struct consumer *c)
{
	(void)c;
}
#endif

/*
 * Site k of probe p (its offs, then its is-enabled enoffs) in the held
 * process, checked and what to write there (nw) worked out, nothing
 * written: 0, or -1 with why (the probe then goes to the kernel path).
 */
static int site_prepare(struct tproc *pr, struct tprobe *p,
			const struct ip_obj *o, unsigned k, struct ip_site *s,
			uint8_t nw[5], char *why, size_t wlen)
{
	bool en = k >= p->noffs;
	uint64_t off = en ? p->enoffs[k - p->noffs] : p->offs[k];
	uint8_t cur[6];
	int64_t rel;

	*s = (struct ip_site){.file = p->file, .off = off, .enabled = en,
			      .len = 5};
	s->addr = off_to_addr(p->file, o->bias, off);
	if (!s->addr || mem_rw(pr->pid, s->addr, cur, sizeof(cur), false) < 0) {
		snprintf(why, wlen, "its site at %#" PRIx64 " cannot be read",
			 s->addr);
		return -1;
	}
	/* what -G wrote there: the file's bytes */
	if (file_bytes(p->file, off, s->orig) < 0) {
		snprintf(why, wlen, "%s cannot be read at its site",
			 p->file->path);
		return -1;
	}
	if (en) {
		if (memcmp(s->orig, nop_en, 5)) {
			snprintf(why, wlen,
				 "its is-enabled site at %#" PRIx64
				 " is not -G's",
				 s->addr);
			return -1;
		}
		memcpy(nw, mov_1, 5);
	} else {
		if (memcmp(s->orig, nop_call, 5) &&
		    memcmp(s->orig, nop_got, 6)) {
			snprintf(why, wlen,
				 "its site at %#" PRIx64
				 " (%02x %02x %02x %02x %02x) is not a -G call "
				 "site (a tail call, a header stub or an inline "
				 "probe)",
				 s->addr, s->orig[0], s->orig[1], s->orig[2],
				 s->orig[3], s->orig[4]);
			return -1;
		}
		if (!site_args_plan(file_note_at(p->file, off), s, why, wlen))
			return -1;
		rel = (int64_t)(o->rec - (s->addr + 5));
		if (rel != (int32_t)rel) {
			snprintf(why, wlen,
				 "its recorder is out of a call's reach");
			return -1;
		}
		nw[0] = 0xe8;
		memcpy(nw + 1, &(int32_t){(int32_t)rel}, 4);
	}
	/*
	 * The process runs the NOPs, or, a fork child of a process we
	 * armed, the call already (which it keeps); anything else is
	 * another tracer's.
	 */
	if (memcmp(cur, s->orig, 5) && memcmp(cur, nw, 5)) {
		snprintf(why, wlen,
			 "its site at %#" PRIx64 " holds %02x %02x %02x %02x "
			 "%02x, not what -G wrote (another tracer's "
			 "breakpoint?)",
			 s->addr, cur[0], cur[1], cur[2], cur[3], cur[4]);
		return -1;
	}
	return 0;
}

/*
 * pr's probes in kp (n of them) armed by the kernel backend opened
 * beside this one (opened at the first such probe): it arms every
 * probe of pr not enabled yet, so the others (a library unmapped, for
 * one) are marked enabled meanwhile.  A probe a glob matches would be
 * armed binary-wide there (uprobe.c, bpf.c), breakpoints over the
 * calls armed in other processes running the file: refused.
 */
static void kernel_enable(struct consumer *c, struct tproc *pr,
			  struct ip_kprobe *kp, size_t n)
{
	struct inproc *ip = c->ip;
	struct tprobe **others = NULL;
	size_t nothers = 0;

	for (size_t i = 0; i < n; i++)
		if (kp[i].p->wide) {
			say(c,
			    "-x activation=user cannot trace pid %d, probe "
			    "%s: %s; and on the kernel path a glob's probe is "
			    "armed binary-wide, over the sites armed in other "
			    "processes",
			    (int)pr->pid, kp[i].p->name, kp[i].why);
			c->enable_failed = true;
			return;
		}
	/*
	 * A fork child runs the calls it inherited: a breakpoint over one
	 * would have the kernel run the file's NOP out of line and resume
	 * inside the call's operand
	 */
	{
		struct proc_maps mm = {0};
		const char *bad = NULL, *bwhy = NULL;

		if (proc_maps_read(pr->pid, &mm) == 0)
			for (size_t i = 0; i < n && !bad; i++) {
				struct tprobe *p = kp[i].p;
				uint64_t b;

				if (!file_bias(p->file, &mm, &b))
					continue;
				for (unsigned k = 0; k < p->noffs && !bad;
				     k++) {
					uint8_t cur[1];
					uint64_t a = off_to_addr(p->file, b,
								 p->offs[k]);

					if (a &&
					    mem_rw(pr->pid, a, cur, 1, false) ==
						    0 &&
					    cur[0] == 0xe8) {
						bad = p->name;
						bwhy = kp[i].why;
					}
				}
			}
		proc_maps_free(&mm);
		if (bad) {
			say(c,
			    "-x activation=user cannot trace pid %d, probe "
			    "%s: %s; and its sites hold calls armed "
			    "in-process (inherited from its parent), which "
			    "the kernel path's breakpoints would break",
			    (int)pr->pid, bad, bwhy);
			c->enable_failed = true;
			return;
		}
	}
	if (!c->be_kernel && !ip->kb_failed && backend_open_kernel(c) < 0) {
		ip->kb_failed = true;
		snprintf(ip->kb_why, sizeof(ip->kb_why), "%s", c->be_why);
	}
	if (!c->be_kernel) {
		say(c,
		    "-x activation=user cannot trace pid %d, probe %s: %s; "
		    "and the kernel path cannot be used: %s",
		    (int)pr->pid, kp[0].p->name, kp[0].why, ip->kb_why);
		c->enable_failed = true;
		return;
	}
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];
		bool mine = false;

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		for (size_t k = 0; k < n && !mine; k++)
			mine = kp[k].p == p;
		if (!mine) {
			p->enabled = true;
			PUSH(others, nothers, p);
		}
	}
	ip->kpr = pr;
	ip->kpp = kp;
	ip->nkpp = n;
	c->be_kernel->enable(c, pr);
	ip->kpr = NULL;
	for (size_t i = 0; i < nothers; i++)
		others[i]->enabled = false;
	free(others);
	if (c->o->verbose)
		for (size_t i = 0; i < n; i++)
			say(c, "pid %d, probe %s:%s:%s:%s: the kernel path (%s)",
			    (int)pr->pid, kp[i].p->prov, kp[i].p->mod,
			    kp[i].p->func, kp[i].p->name, kp[i].why);
}

/*
 * Arm pr's probes: each probe on one path, whole.  One the recorder
 * cannot take (probe_refusal(), a site site_prepare() refuses, a file
 * without the recorder) goes to the kernel path, decided before any of
 * its sites is written; a process it cannot take at all (held, maps,
 * seccomp, its arena) goes there whole, and stays (ipp->kernel), its
 * execs too.  What fails once writing has begun is refused, said.
 */
static void ip_enable(struct consumer *c, struct tproc *pr)
{
	struct inproc *ip = c->ip;
	struct ip_proc *ipp = ip_proc_of(c, pr);
	struct proc_maps mm = {0};
	struct ip_hold h;
	char why[PATH_MAX + 256] = "";
	const char *pname = "";
	bool fresh = !ipp, ok = false, made = false, whole = false;
	struct ip_ctlw *ctlw = NULL; /* written here: undone on refusal */
	size_t nctl = 0;
	struct ip_kprobe *kp = NULL; /* for the kernel path */
	size_t nkp = 0;
	struct ip_site *ps = NULL; /* a probe's sites, prepared */
	uint8_t(*pnw)[5] = NULL;
	size_t nps = 0;
#ifdef HAVE_BPF
	struct ubpf_kplan *kpl = NULL;
	struct usdt_aplan *ap = NULL;
	bool planned = false;
#endif

	if (ip->stopped)
		return;
	if (ipp && exec_check(c, ipp))
		return;
	if (fresh) {
		ipp = xcalloc(1, sizeof(*ipp));
		ipp->pid = pr->pid;
		ipp->pr = pr;
		PUSH(ip->procs, ip->nprocs, ipp);
	}
	if (ipp->kernel) {
		whole = true;
		goto kernel;
	}
	if (!hold(pr, &h)) {
		snprintf(why, sizeof(why), "it cannot be held still (ptrace)");
		whole = true;
		goto kernel;
	}
#ifdef HAVE_BPF
	if (ip->kp) {
		kpl = xcalloc(1, sizeof(*kpl));
		ap = xcalloc(1, sizeof(*ap) + USDT_AOPS * sizeof(ap->ops[0]));
	}
#endif
	/* where things are now, held: a refresh's maps may be older */
	if (proc_maps_read(pr->pid, &mm) < 0) {
		snprintf(why, sizeof(why), "its maps cannot be read");
		goto refuse;
	}
	for (size_t i = 0; i < c->nprobes && !whole; i++) {
		struct tprobe *p = c->probes[i];
		struct ip_obj *o;
		unsigned nsite;
		bool bad = false;

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		pname = p->name;
		if (p->pidkind) {
			snprintf(why, sizeof(why),
				 "the pid provider needs the kernel path");
			goto refuse; /* set up for this backend's caps */
		}
		{
			uint64_t b;

			if (!file_bias(p->file, &mm, &b))
				continue; /* dlclose()d: armed when back */
		}
		if (probe_refusal(c, p, why, sizeof(why)) ||
		    !(o = proc_obj(ipp, p->file, &mm, why, sizeof(why)))) {
			PUSH(kp, nkp, ((struct ip_kprobe){p, xstrdup(why)}));
			continue;
		}
		/* every site checked before any is written */
		nsite = p->noffs + p->nenoffs;
		ps = xrealloc(ps, nsite ? nsite : 1, sizeof(*ps));
		pnw = xrealloc(pnw, nsite ? nsite : 1, sizeof(*pnw));
		nps = 0;
		for (unsigned k = 0; k < nsite && !bad; k++)
			bad = site_prepare(pr, p, o, k, &ps[k], pnw[k], why,
					   sizeof(why)) < 0;
		if (bad) {
			PUSH(kp, nkp, ((struct ip_kprobe){p, xstrdup(why)}));
			continue;
		}
		nps = nsite;
		if (!ipp->map) {
			if (seccomp_filtered(pr->pid)) {
				snprintf(why, sizeof(why),
					 "it runs under seccomp, which could "
					 "kill it for the system calls dtrace "
					 "would make it run");
				whole = true;
				break;
			}
			if (arena_make(c, ipp, &h, o, why, sizeof(why)) < 0) {
				whole = true;
				break;
			}
			made = true;
			image_done(c, pr->pid);
		}
#ifdef HAVE_BPF
		/* the clauses the recorder can aggregate (arena.h) */
		planned = kpl && probe_plan(ip, p, kpl);
#endif
		/* this object's control block: the arena is on */
		{
			uint64_t v = ipp->taddr, old = 0;
			int err;

			uint64_t len = ipp->len;

			/* len first: the recorder bounds everything by it (a
			 * recorder older than it has a control block of 8) */
			if ((err = mem_rw(pr->pid, o->ctl, &old, sizeof(old),
					  false)) < 0 ||
			    (o->ctl_size >= 2 * sizeof(uint64_t) &&
			     (err = mem_rw(pr->pid, o->ctl + sizeof(uint64_t),
					   &len, sizeof(len), true)) < 0) ||
			    (err = mem_rw(pr->pid, o->ctl, &v, sizeof(v),
					  true)) < 0) {
				snprintf(why, sizeof(why),
					 "cannot write its control block: %s",
					 strerror(-err));
				goto refuse;
			}
			if (old != v)
				PUSH(ctlw, nctl,
				     ((struct ip_ctlw){o->ctl, old}));
		}
		for (size_t k = 0; k < nps; k++) {
			struct ip_site *st = &ps[k];
			int err;

			/* no thread may be inside the 5 bytes */
			for (size_t t = 0; t < hold_count(&h); t++)
				if ((err = step_out(&h, t, st->addr + 1,
						    st->addr + 5)) < 0) {
					snprintf(
						why, sizeof(why),
						"a thread could not be stepped "
						"off a site: %s",
						strerror(-err));
					goto refuse;
				}
			if ((err = mem_rw(pr->pid, st->addr, pnw[k], 5,
					  true)) < 0) {
				snprintf(why, sizeof(why),
					 "its site at %#" PRIx64
					 " cannot be written: %s",
					 st->addr, strerror(-err));
				goto refuse;
			}
			memcpy(st->armed, pnw[k], 5);
			/* a site of a file mapped there before: this one now */
			for (size_t q = 0; q < ipp->nsites; q++)
				if (ipp->sites[q].addr == st->addr)
					ipp->sites[q] =
						ipp->sites[--ipp->nsites];
			PUSH(ipp->sites, ipp->nsites, *st);
#ifdef HAVE_BPF
			if (kpl && !st->enabled) /* its plan, or none there */
				plan_put(ip, ipp, st->addr,
					 planned && plan_site(kpl, st, ap)
						 ? ap
						 : NULL);
#endif
		}
		/* its semaphore, once per probe */
		if (p->noffs) {
			const struct tnote *n =
				file_note_at(p->file, p->offs[0]);
			uint64_t sa = n && n->sema_off
					      ? off_to_addr(p->file, o->bias,
							    n->sema_off)
					      : 0;
			uint16_t v;

			if (sa && mem_rw(pr->pid, sa, &v, 2, false) == 0) {
				v++;
				if (mem_rw(pr->pid, sa, &v, 2, true) == 0)
					PUSH(ipp->semas, ipp->nsemas,
					     ((struct ip_sema){sa, p->file}));
			}
		}
		p->enabled = true;
	}
	ok = true;
refuse:
	/*
	 * Refused with nothing armed: the process as it was (a fork child
	 * keeps writing the arena it inherited, whose reader we are).
	 */
	if (!ok && !ipp->nsites) {
		for (size_t i = 0; i < nctl; i++)
			(void)mem_rw(pr->pid, ctlw[i].at, &ctlw[i].old,
				     sizeof(ctlw[i].old), true);
		if (made && ipp->exec_fd) {
			bool ours;

			(void)inject(&h, ipp->objs[0].sys, SYS_close,
				     USDT_EXEC_FD, 0, 0, 0, 0, 0, &ours);
			ipp->exec_fd = false;
		}
		if (made && arena_unmap(ipp, &h, ipp->objs[0].sys)) {
			munmap(ipp->map, ipp->len);
			ipp->map = NULL;
			free(ipp->tails);
			ipp->tails = NULL;
		}
	}
	release(&h);
kernel:
	/*
	 * A process none of whose probes the recorder takes goes to the
	 * kernel path whole (nothing of this backend armed in it): its
	 * probes not yet handed over, each once.
	 */
	if (whole && !ipp->nsites && !ipp->map) {
		ipp->kernel = true;
		for (size_t i = 0; i < c->nprobes; i++) {
			struct tprobe *p = c->probes[i];
			bool had = false;

			if (p->pid != pr->pid || p->enabled || !p->nclauses ||
			    p->pidkind)
				continue;
			for (size_t k = 0; k < nkp && !had; k++)
				had = kp[k].p == p;
			if (!had)
				PUSH(kp, nkp,
				     ((struct ip_kprobe){
					     p, xstrdup(why[0] ? why
							       : "the process "
								 "goes there "
								 "whole")}));
		}
		ok = true;
	} else if (whole) {
		ok = false; /* half armed already: refused, said */
	}
	if (ok && nkp)
		kernel_enable(c, pr, kp, nkp);
	for (size_t i = 0; i < nkp; i++)
		free(kp[i].why);
	free(kp);
	free(ps);
	free(pnw);
	free(ctlw);
#ifdef HAVE_BPF
	free(kpl);
	free(ap);
#endif
	proc_maps_free(&mm);
	if (ipp && ipp->nsites > 1)
		qsort(ipp->sites, ipp->nsites, sizeof(*ipp->sites), site_cmp);
	if (ok)
		return;
	say(c, "-x activation=user cannot trace pid %d%s%s: %s", (int)pr->pid,
	    *pname ? ", probe " : "", pname, why);
	c->enable_failed = true;
}

/* Every record waiting in ipp's segments into the hits. */
static void drain_proc(struct consumer *c, struct ip_proc *ipp, size_t idx)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)ipp->map;
	uint32_t nseg = __atomic_load_n(&a->next_seg, __ATOMIC_ACQUIRE);

	if (nseg > IP_NSEG)
		nseg = IP_NSEG;
	for (uint32_t i = 0; i < nseg && !c->read_more; i++) {
		struct usdt_seg *s =
			(struct usdt_seg *)(ipp->map + USDT_ARENA_HDR +
					    (size_t)i * ip->seg_size);
		const struct usdt_slot *slots =
			(const struct usdt_slot *)((uint8_t *)s + USDT_SEG_HDR);
		uint64_t head, tail = ipp->tails[i];
		pid_t pid, tid;

		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
			continue;
		head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
		pid = (pid_t)s->pid;
		tid = (pid_t)s->tid;
		if (head == tail)
			continue;
		if (head < tail || head - tail > ip->nslots || pid <= 0) {
			/* the process wrote nonsense: skip what it claims */
			ipp->corrupt += head > tail ? head - tail : 1;
			ipp->tails[i] = head;
			__atomic_store_n(&s->tail, head, __ATOMIC_RELEASE);
			continue;
		}
		if (pid != ipp->pid) {
			bool known = false;

			for (size_t k = 0; k < ipp->nknown && !known; k++)
				known = ipp->known[k] == pid;
			if (!known) {
				pid_t pp = (pid_t)s->ppid;
				uint64_t t0 =
					tsc_to_ns(ip,
						  slots[tail & (ip->nslots - 1)]
							  .tsc) -
					1;

				/* the kernel path's tracker told it first */
				if (!c->be_kernel || !lin_forked(c, pid, t0))
					lin_fork(c, pp > 0 ? pp : ipp->pid, pid,
						 tid, t0);
				PUSH(ipp->known, ipp->nknown, pid);
			}
		}
		for (; tail != head; tail++) {
			const struct usdt_slot *r =
				&slots[tail & (ip->nslots - 1)];
			uint8_t raw[8 + sizeof(*r)];
			uint32_t ix = (uint32_t)idx;
			struct hit hh = {0};

			if (c->read_cap && c->alen >= c->read_cap) {
				c->read_more = true;
				break;
			}
			memcpy(raw, &ix, 4);
			memset(raw + 4, 0, 4);
			memcpy(raw + 8, r, sizeof(*r));
			hh.time = tsc_to_ns(ip, r->tsc);
			hh.pid = (uint32_t)pid;
			hh.tid = (uint32_t)tid;
			hh.cpu = (uint32_t)(r->pc >> 48) & 0xfff;
			hh.rawlen = sizeof(raw);
			hh.rawoff = arena_put(c, raw, sizeof(raw));
			hh.inproc = true;
			hit_push(c, &hh);
			c->received++;
		}
		ipp->tails[i] = tail;
		__atomic_store_n(&s->tail, tail, __ATOMIC_RELEASE);
	}
}

/*
 * A library dlclose()d and dlopen()ed again (at the same address or
 * not) holds fresh NOPs, a zero control block and a zero semaphore: its
 * probes are armed anew, as the kernel re-inserts a uprobe in a new
 * mapping of its file.  Every read looks at each object's control block
 * (one pread: maps can read the same before and after), and at where
 * the objects are when a refresh read other maps.
 */
static void remap_check(struct consumer *c, struct ip_proc *ipp)
{
	struct tproc *pr = ipp->pr;
	struct proc_maps mm = {0};
	bool again = false, moved;

	if (ipp->gone || pr->exited || !pr->maps)
		return;
	moved = !ipp->maps_seen || strcmp(ipp->maps_seen, pr->maps);
	if (moved) {
		free(ipp->maps_seen);
		ipp->maps_seen = xstrdup(pr->maps);
		if (proc_maps_parse(pr->maps, &mm) < 0)
			return;
	}
	for (size_t i = 0; i < ipp->nobjs; i++) {
		struct ip_obj *o = &ipp->objs[i];
		const uint64_t gone = ~(uint64_t)0;
		uint64_t b = o->bias, v = 0;
		bool found = moved ? file_bias(o->file, &mm, &b) : b != gone;

		if (found && o->bias == gone) {
			again = true; /* mapped again: armed anew */
			continue;
		}
		if (found && b == o->bias &&
		    (mem_rw(pr->pid, o->ctl, &v, sizeof(v), false) < 0 ||
		     v == ipp->taddr))
			continue; /* as we armed it (or gone meanwhile) */
		if (o->bias == gone)
			continue;
		/* unmapped, or mapped anew: nothing of it is ours now */
		forget_file(ipp, o->file);
		o->bias = gone; /* proc_obj() computes it anew */
		for (size_t k = 0; k < c->nprobes; k++)
			if (c->probes[k]->pid == pr->pid &&
			    c->probes[k]->file == o->file)
				c->probes[k]->enabled = false;
		again |= found;
	}
	proc_maps_free(&mm);
	if (again)
		ip_enable(c, pr);
}

static void ip_drain(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t t = rdtsc_now();

	sample(ip, &ip->tsc1, &ip->ns1);
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		if (!ipp->map)
			continue;
		if (!exec_check(c, ipp) && !ip->stopped)
			remap_check(c, ipp);
		if (!ip->stopped) /* the heartbeat: still here */
			__atomic_store_n(&((struct usdt_arena *)ipp->map)->hb,
					 t, __ATOMIC_RELEASE);
		drain_proc(c, ipp, i);
	}
	/* ip->procs may grow here (an exec'd image armed) */
	for (size_t i = 0; i < ip->nprocs; i++)
		exec_answer(c, ip->procs[i]);
}

static size_t ip_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	(void)c;
	(void)pfd;
	(void)max;
	return 0; /* no descriptor: read every switchrate */
}

static bool ip_decode(struct consumer *c, const struct hit *h, struct d_fire *f,
		      char *comm, size_t commlen, struct hit_at *at)
{
	struct inproc *ip = c->ip;
	struct usdt_slot r;
	const struct ip_site *s;
	struct ip_proc *ipp;
	uint32_t ix;

	if (h->rawlen != 8 + sizeof(r))
		return false;
	memcpy(&ix, h->raw, 4);
	memcpy(&r, h->raw + 8, sizeof(r));
	if (ix >= ip->nprocs)
		return false;
	ipp = ip->procs[ix];
	s = site_find(ipp, r.pc & USDT_PC_ADDR);
	if (!s) {
		ipp->corrupt++; /* not a site we armed */
		return false;
	}
	at->file = s->file;
	at->off = s->off;
	/* the owner's plan ran the probe's other clauses (records.c) */
	c->kagg_rec = (r.pc & USDT_PC_AGG) && (pid_t)h->pid == ipp->pid;
	f->cpu = (int)h->cpu;
	f->pid = (pid_t)h->pid;
	f->tid = (pid_t)h->tid;
	if (commlen) /* execname is refused (probe_refusal()) */
		comm[0] = '\0';
	f->execname = comm;
	f->timestamp = h->time;
	for (unsigned i = 0; i < s->nargs; i++) {
		uint64_t v = r.arg[s->reg[i]];
		unsigned bits = 8u * s->size[i];

		if (bits < 64) {
			v &= (UINT64_C(1) << bits) - 1;
			if (s->sgn[i] && (v >> (bits - 1)) & 1)
				v |= ~((UINT64_C(1) << bits) - 1);
		}
		f->arg[i] = v;
	}
	return true;
}

static void ip_proc_exit(struct consumer *c, struct tproc *pr)
{
	struct ip_proc *ipp = ip_proc_of(c, pr);

	/* its children may still write the arena: it stays mapped here */
	if (ipp) {
		exec_unasked(c, ipp);
		ipp->gone = true;
		ipp->taddr = 0;
	}
}

/* ipp's sites, semaphores and control blocks back as they were. */
/* Is f (of ipp's objects) still mapped where it was armed? */
static bool obj_live(const struct ip_proc *ipp, const struct tfile *f,
		     const bool *live)
{
	for (size_t i = 0; i < ipp->nobjs; i++)
		if (ipp->objs[i].file == f)
			return live[i];
	return false;
}

/*
 * ipp's sites, semaphores and control blocks back as they were.  Only
 * where the file is still mapped as it was when armed (a library
 * dlclose()d since has other things at those addresses now), and a
 * site only where it holds the call we wrote.
 */
static void disarm(struct consumer *c, struct ip_proc *ipp)
{
	struct proc_maps mm = {0};
	struct ip_hold h;
	bool bad = false, *live;
	uint64_t sys = 0;

	if (ipp->disarmed || ipp->gone || !ipp->pr || ipp->pr->exited ||
	    !ipp->map) /* nothing armed here (the kernel path's, whole) */
		return;
	ipp->disarmed = true;
	if (!hold(ipp->pr, &h)) {
		say(c,
		    "pid %d could not be held to disarm its sites; they "
		    "call the recorder, which returns at once",
		    (int)ipp->pid);
		return;
	}
	live = xcalloc(ipp->nobjs, sizeof(*live));
	if (proc_maps_read(ipp->pid, &mm) == 0)
		for (size_t i = 0; i < ipp->nobjs; i++) {
			uint64_t b;

			live[i] = file_bias(ipp->objs[i].file, &mm, &b) &&
				  b == ipp->objs[i].bias;
			if (live[i] && !sys)
				sys = ipp->objs[i].sys;
		}
	proc_maps_free(&mm);
	for (size_t i = 0; i < ipp->nobjs; i++) {
		uint64_t z = 0;

		if (live[i])
			bad |= mem_rw(ipp->pid, ipp->objs[i].ctl, &z, sizeof(z),
				      true) < 0;
	}
	/* nobody left between reading the control block and returning */
	for (size_t t = 0; t < hold_count(&h); t++)
		for (size_t i = 0; i < ipp->nobjs; i++)
			if (live[i])
				bad |= step_out(&h, t, ipp->objs[i].rec,
						ipp->objs[i].rec_end) < 0;
	for (size_t i = 0; i < ipp->nsites; i++) {
		struct ip_site *st = &ipp->sites[i];
		uint8_t cur[5];

		if (!obj_live(ipp, st->file, live) ||
		    mem_rw(ipp->pid, st->addr, cur, sizeof(cur), false) < 0 ||
		    memcmp(cur, st->armed, sizeof(cur)))
			continue; /* not ours any more */
		bad |= mem_rw(ipp->pid, st->addr, st->orig, st->len, true) < 0;
	}
	for (size_t i = 0; i < ipp->nsemas; i++) {
		uint16_t v;

		if (obj_live(ipp, ipp->semas[i].file, live) &&
		    mem_rw(ipp->pid, ipp->semas[i].addr, &v, 2, false) == 0 &&
		    v > 0) {
			v--;
			bad |= mem_rw(ipp->pid, ipp->semas[i].addr, &v, 2,
				      true) < 0;
		}
	}
	free(live);
	/* the descriptor an exec would inherit, where it is ours */
	if (sys && exec_fd_state(c, ipp->pid) == EXFD_OURS) {
		bool ours;

		(void)inject(&h, sys, SYS_close, USDT_EXEC_FD, 0, 0, 0, 0, 0,
			     &ours);
	}
	/* a site left armed must find the arena: unmapped only after */
	if (!bad && !arena_unmap(ipp, &h, sys))
		say(c,
		    "pid %d: its ring buffer stays mapped (seccomp, or the "
		    "munmap failed); its sites are restored",
		    (int)ipp->pid);
	release(&h);
	if (bad)
		say(c,
		    "pid %d: its sites could not all be restored; they call "
		    "the recorder, which returns at once",
		    (int)ipp->pid);
}

static void ip_stop(struct consumer *c)
{
	struct inproc *ip = c->ip;

	if (!ip || ip->stopped)
		return;
	for (size_t i = 0; i < ip->nprocs; i++) {
		exec_unasked(c, ip->procs[i]);
		disarm(c, ip->procs[i]);
	}
	ip->stopped = true;
	/* fork children keep the armed text: their hits stop here (hb 0:
	 * ended, not counted as drops) */
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map) {
			struct usdt_arena *a =
				(struct usdt_arena *)ip->procs[i]->map;

			__atomic_store_n(&a->hb_limit, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&a->hb, 0, __ATOMIC_RELEASE);
		}
}

static void ip_stats(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t drops = 0, corrupt = 0;

	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];
		struct usdt_arena *a = (struct usdt_arena *)ipp->map;
		uint32_t n;

		corrupt += ipp->corrupt;
		if (!a)
			continue;
		drops += __atomic_load_n(&a->noseg, __ATOMIC_RELAXED);
		n = __atomic_load_n(&a->next_seg, __ATOMIC_RELAXED);
		for (uint32_t k = 0; k < n && k < IP_NSEG; k++) {
			struct usdt_seg *s =
				(struct usdt_seg *)(ipp->map + USDT_ARENA_HDR +
						    (size_t)k * ip->seg_size);

			drops += __atomic_load_n(&s->drops, __ATOMIC_RELAXED);
		}
	}
	if (drops)
		say(c,
		    "%" PRIu64 " drops (hits the in-process rings could not "
		    "hold, or written while dtrace was not reading)",
		    drops);
	if (corrupt)
		say(c,
		    "%" PRIu64 " records ignored: not a hit of an armed site "
		    "(a process wrote its arena)",
		    corrupt);
}

static void ip_close(struct consumer *c)
{
	struct inproc *ip = c->ip;

	if (!ip)
		return;
	ip_stop(c);
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		if (ipp->map)
			munmap(ipp->map, ipp->len);
		ipp->map = NULL;
	}
#ifdef HAVE_BPF
	d_kplan_free(ip->kp); /* merged already (ip_aggs()) */
	ip->kp = NULL;
	free(ip->ran);
	ip->ran = NULL;
#endif
}

#else /* !__x86_64__ */

static int ip_open(struct consumer *c)
{
	snprintf(c->be_why, sizeof(c->be_why),
		 "-x activation=user is built for x86-64 only");
	return -ENOTSUP;
}

static void ip_enable(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static size_t ip_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	(void)c;
	(void)pfd;
	(void)max;
	return 0;
}

static void ip_drain(struct consumer *c)
{
	(void)c;
}

static bool ip_decode(struct consumer *c, const struct hit *h, struct d_fire *f,
		      char *comm, size_t commlen, struct hit_at *at)
{
	(void)c, (void)h, (void)f, (void)comm, (void)commlen, (void)at;
	return false;
}

static void ip_proc_exit(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static void ip_stop(struct consumer *c)
{
	(void)c;
}

static void ip_stats(struct consumer *c)
{
	(void)c;
}

static void ip_aggs(struct consumer *c)
{
	(void)c;
}

static void ip_close(struct consumer *c)
{
	(void)c;
}

#endif

/*
 * The kernel backend opened beside this one (kernel_enable()): its
 * records and its end go with ours; a hit says whose it is (inproc).
 */
static size_t mux_poll_fds(struct consumer *c, struct pollfd *pfd,
			   size_t max)
{
	return c->be_kernel ? c->be_kernel->poll_fds(c, pfd, max)
			    : ip_poll_fds(c, pfd, max);
}

/*
 * The kernel backend's records first: an exec record there resets the
 * process (lineage.c, proc_exec_reset()), and must be in before the new
 * image's ask is answered (exec_answer()) and it is armed, or the kernel
 * backend's enable, reading it then, arms every probe the reset left off
 * (the calls armed in-process too: breakpoints over them).
 */
static void mux_drain(struct consumer *c)
{
	if (c->be_kernel)
		c->be_kernel->drain(c);
	ip_drain(c);
}

static bool mux_decode(struct consumer *c, const struct hit *h,
		       struct d_fire *f, char *comm, size_t commlen,
		       struct hit_at *at)
{
	if (h->inproc || !c->be_kernel)
		return ip_decode(c, h, f, comm, commlen, at);
	return c->be_kernel->decode(c, h, f, comm, commlen, at);
}

static void mux_proc_exit(struct consumer *c, struct tproc *pr)
{
	ip_proc_exit(c, pr);
	if (c->be_kernel)
		c->be_kernel->proc_exit(c, pr);
}

/*
 * pr exec'd, as the kernel backend's records say (proc_exec_reset():
 * every probe of pr off).  Read inside kernel_enable() (the kernel
 * backend's enable reads its records first), it would have that enable
 * arm every probe of pr, those armed in-process too: those stay on, so
 * it arms only the probes handed to it.
 */
static void mux_proc_exec(struct consumer *c, struct tproc *pr)
{
#if defined(__x86_64__)
	struct inproc *ip = c->ip;

	if (ip && ip->kpr == pr)
		for (size_t i = 0; i < c->nprobes; i++) {
			struct tprobe *p = c->probes[i];
			bool mine = false;

			if (p->pid != pr->pid)
				continue;
			for (size_t k = 0; k < ip->nkpp && !mine; k++)
				mine = ip->kpp[k].p == p;
			p->enabled = !mine;
		}
#endif
	if (c->be_kernel && c->be_kernel->proc_exec)
		c->be_kernel->proc_exec(c, pr);
}

static void mux_stop(struct consumer *c)
{
	ip_stop(c);
	if (c->be_kernel)
		c->be_kernel->stop(c);
}

static void mux_aggs(struct consumer *c)
{
	ip_aggs(c);
	if (c->be_kernel && c->be_kernel->aggs)
		c->be_kernel->aggs(c);
}

static void mux_stats(struct consumer *c)
{
	ip_stats(c);
	if (c->be_kernel)
		c->be_kernel->stats(c);
}

static void mux_close(struct consumer *c)
{
	ip_close(c);
	if (c->be_kernel)
		c->be_kernel->close(c);
	c->be_kernel = NULL;
}

const struct consumer_backend_ops consumer_inproc_ops = {
	.name = "in-process",
	.key = "inproc",
	.open = ip_open,
	.enable = ip_enable,
	.poll_fds = mux_poll_fds,
	.drain = mux_drain,
	.decode = mux_decode,
	.proc_exit = mux_proc_exit,
	.proc_exec = mux_proc_exec,
	.stop = mux_stop,
	.aggs = mux_aggs,
	.stats = mux_stats,
	.close = mux_close,
};
