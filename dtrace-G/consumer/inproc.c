// SPDX-License-Identifier: MIT
/*
 * inproc.c - backend: `-x activation=user`, probes hit in the process
 * with no kernel trap (doc/DESIGN.md §14).  An armed -G site calls the
 * recorder drti.o carries (drti/rec.c), which writes each hit into a
 * ring in memory shared with dtrace (drti/arena.h); this file arms the
 * sites, reads the rings and hands the records to records.c as any
 * backend's hits, so the same clauses run with the same output.
 *
 * The files.  This one has the backend's ops (opening, arming, reading,
 * decoding) and the mux over the kernel backend beside it; inproc_stop.c
 * the ending (disarming each process); inproc_proc.c what is done in a
 * held process (its memory and threads, an injected system call, the
 * recorder's symbols, a site's bytes, the arena made and unmapped);
 * inproc_exec.c following an exec; inproc_plan.c aggregating in the
 * process; inproc.h what they share.
 *
 * Arming a process (enable()).  It is held still: a -c command is still
 * stopped where rtld.c left it, a running one is seized (freeze.c).  The
 * first time, a thread is made to run memfd_create, mmap(MAP_SHARED) and
 * close through drti.o's __usdt_sysret (its registers are set, it is
 * stopped at the call's entry and exit, its registers are put back, as a
 * debugger calls a function; a frame on its stack lets it go on as it
 * was should dtrace die meanwhile: ip_inject(), arena.h); dtrace opens
 * the memfd through /proc/PID/fd and maps it too, so the process keeps
 * one mapping and no descriptor.  The arena's address goes into drti.o's
 * control block (__usdt_ctl), then each site's 4-byte NOP and the byte
 * after it become `e8 rel32` to __usdt_rec, and each probe's semaphore
 * goes up by one, all written through /proc/PID/mem.  A thread stopped
 * at site + 4 (between the site's two NOPs, where the call's operand now
 * is) is moved past the second first (no single step: a dtrace that died
 * in its SIGTRAP stop would leave the SIGTRAP to kill the process).  The
 * process is then let go; the stop and restart serialise every CPU's
 * view of the new bytes.
 *
 * A library dlopen()ed while traced is armed before it runs: its
 * drti.o's first constructor asks through the arena at USDT_EXEC_FD, as
 * an exec's image does (below; arena.h, "Following a dlopen()"), and
 * ip_exec_answer() reads the maps and arms it; one that could not ask
 * (a process with no drti.o of its own, so no arena; a drti.o without
 * the ask: no __usdt_dlask) is armed at the next read and said (sites.c
 * asks ip_dl_asks()), but in a -p target without drti.o, which dlhold.c
 * holds at its dlopen()s and execs (ip_exec_hold(), inproc_exec.c).
 * So that it can, a -p or -c target that carries
 * drti.o gets its arena with nothing of it to arm, in a run whose
 * clauses can select a USDT probe (ip_target()), and
 * arming points every drti.o's control block the process maps at the
 * arena, enabled probes or not (ip_objs_ready()): only an object mapped
 * since asks.  A library dlclose()d and dlopen()ed again is armed anew
 * (ip_remap_check(): its control block reads 0, or it moved), its
 * records read before its sites are forgotten; each record names its
 * site as it was when read (ip_proc.hist), so one decoded later is the
 * old file's still; and since a record is named when it is read, arming
 * reads every record waiting before a site of another file takes an
 * armed site's address (drain_stale(): however the new file was found,
 * by a refresh, its ask or ip_remap_check()).  Arming reads the maps
 * with the process held, and
 * disarming writes only where the file is still mapped as armed, a
 * site only over our call.
 *
 * A fork child that registers (so a refresh finds it) runs the calls
 * it inherited and writes its parent's arena; arming it gives it an
 * arena of its own, over those calls.  A process refused with nothing
 * armed yet gets its control blocks back and its new arena unmapped,
 * so it is as it was (a child then goes on writing its parent's).
 *
 * An exec (ip_exec_check(), ip_exec_answer(); arena.h has the protocol).
 * The first arena made in a process stays open there at USDT_EXEC_FD,
 * without close-on-exec; the new image's drti.o constructor finds it,
 * claims a slot with its pid and token (AT_RANDOM) and waits; each read
 * answers the slots: the traced process is reset to its new maps and
 * refreshed, which arms the new image (a fresh ip_proc, an arena of its
 * own) before any of its probes ran, then told to go on.  An image
 * armed without asking (a -c command, before its constructors) gets its
 * slot marked done (ip_image_done()), so its constructors do not ask.  An
 * exec whose image is told not to ask (DTRACE_DOF_INIT_DISABLE) goes to
 * the kernel path, for its process alone, and so does such an exec of a
 * fork child of a process a glob traces (ip_exec_handover(),
 * inproc_exec.c); one whose image cannot ask (the descriptor closed),
 * never asks, or gave up waiting is said; a fork child's exec that asks
 * is let go, said.
 *
 * Both paths (ip_enable(), kernel_enable(), the mux_* ops).  A probe
 * the recorder cannot take goes to the kernel backend opened beside
 * this one (c->be_kernel), decided before any of its sites is written:
 * clauses needing the kernel at the hit (ustack(), execname,
 * copyinstr()/copyin() of an argument), a site that is not a -G call
 * site (tail calls, header stubs, <sys/sdt.h> NOPs, another tracer's
 * breakpoint), arguments outside the six argument registers, a file
 * without the recorder's symbols; a process it cannot take at all (not
 * held, a seccomp filter, its arena not made, another dtrace tracing it
 * in-process: other_dtrace(), inproc_proc.c) goes there whole.  The
 * kernel backend's records are read first, and again after the rings (a
 * kernel hit between the two reads runs before a later in-process one),
 * and decoded by it (a hit says whose it is).  Refused, said, the run stopped: a glob's probe the
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
 * samples: one when the backend opened, one at this read.  The site is
 * found by the record's address when it is read (the arena's owner's
 * map: a fork child runs the same layout), and decode() converts the
 * registers as that site's note says.  A segment of a pid other than
 * the owner's is a fork child (drti.o's fork handler makes it claim its
 * own): lin_fork() tells the tree, whose descriptions then decide
 * whether its hits count, as on the kernel path.  Every read also
 * writes the heartbeat: the TSC now.  Once three quarters of the
 * segments are claimed, a read also gives back those whose thread has
 * exited and whose records are all read (ip_seg_giveback(),
 * inproc_proc.c; arena.h, "Segments given back"), for new threads.
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
 * Ending (stop()): inproc_stop.c.  After a SIGKILL of dtrace nothing
 * is restored: the heartbeat stops and every hit costs a call and a
 * compare.  A later dtrace that takes the process over (the dead
 * arena's beat stopped) gives every site of a probe it does not enable
 * that holds such a call, or an is-enabled `mov $1`, the file's bytes
 * back before it arms (ip_stale_restore(), inproc_proc.c): it points
 * every control block at its own arena, and those sites would write
 * records of no site it armed.
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
#include "inproc.h"

#if defined(__x86_64__)

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
/* The backend */

static bool probe_refusal(struct consumer *c, const struct tprobe *p, char *msg,
			  size_t msglen)
{
	if (p->pidkind) {
		snprintf(msg, msglen, "the pid provider needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_USTACK) {
		snprintf(msg, msglen, "ustack() needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_VTIME) {
		snprintf(msg, msglen, "vtimestamp needs the kernel path");
		return true;
	}
	if (p->fneeds & D_NEED_EXECNAME) {
		snprintf(msg, msglen,
			 "execname is read at the hit on the kernel path only");
		return true;
	}
	if (p->fstrmask) {
		snprintf(msg, msglen,
			 "copyinstr() of an argument is copied at the hit on "
			 "the kernel path only");
		return true;
	}
	for (unsigned i = 0; i < p->nclauses; i++) {
		uint32_t sz[D_MAXARGS];

		if (d_clause_memargs(c->prog, p->clauses[i], sz)) {
			snprintf(msg, msglen,
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
 * Site k of probe p (its offs, then its is-enabled enoffs) in the held
 * process, checked and what to write there (nw) worked out, nothing
 * written: 0, or -1 with why (the probe then goes to the kernel path).
 */
static int site_prepare(struct tproc *pr, struct tprobe *p,
			const struct ip_obj *o, unsigned k, struct ip_site *s,
			uint8_t nw[5], char *msg, size_t msglen)
{
	bool en = k >= p->noffs;
	uint64_t off = en ? p->enoffs[k - p->noffs] : p->offs[k];
	uint8_t cur[6];
	int64_t rel;

	*s = (struct ip_site){.file = p->file, .off = off, .enabled = en,
			      .len = 5};
	s->addr = ip_off_to_addr(p->file, o->bias, off);
	if (!s->addr ||
	    ip_mem_rw(pr->pid, s->addr, cur, sizeof(cur), false) < 0) {
		snprintf(msg, msglen, "its site at %#" PRIx64 " cannot be read",
			 s->addr);
		return -1;
	}
	/* what -G wrote there: the file's bytes */
	if (ip_file_bytes(p->file, off, s->orig) < 0) {
		snprintf(msg, msglen, "%s cannot be read at its site",
			 p->file->path);
		return -1;
	}
	if (en) {
		if (memcmp(s->orig, ip_nop_en, 5)) {
			snprintf(msg, msglen,
				 "its is-enabled site at %#" PRIx64
				 " is not -G's",
				 s->addr);
			return -1;
		}
		memcpy(nw, ip_mov_1, 5);
	} else {
		if (memcmp(s->orig, ip_nop_call, 5) &&
		    memcmp(s->orig, ip_nop_got, 6)) {
			snprintf(msg, msglen,
				 "its site at %#" PRIx64
				 " (%02x %02x %02x %02x %02x) is not a -G call "
				 "site (a tail call, a header stub or an inline "
				 "probe)",
				 s->addr, s->orig[0], s->orig[1], s->orig[2],
				 s->orig[3], s->orig[4]);
			return -1;
		}
		if (!ip_site_args_plan(file_note_at(p->file, off), s, msg,
				       msglen))
			return -1;
		rel = (int64_t)(o->rec - (s->addr + 5));
		if (rel != (int32_t)rel) {
			snprintf(msg, msglen,
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
		snprintf(msg, msglen,
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
 * calls armed in other processes running the file: refused, but in a
 * process an exec'd image of which would not ask to be armed (kpin,
 * inproc_exec.c): armed for it alone, as a pinned probe is.
 */
static void kernel_enable(struct consumer *c, struct tproc *pr,
			  struct ip_kprobe *kp, size_t n)
{
	struct inproc *ip = c->ip;
	struct tprobe **others = NULL;
	size_t nothers = 0;

	for (size_t i = 0; i < n; i++)
		if (kp[i].p->wide && ip_proc_of(c, pr) &&
		    ip_proc_of(c, pr)->kpin) {
			kp[i].p->wide = false; /* ip_exec_handover() */
		} else if (kp[i].p->wide) {
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
	 * A fork child runs the calls it inherited, a process another
	 * dtrace traces in-process that one's: a breakpoint over one
	 * would have the kernel run the file's NOP out of line and resume
	 * inside the call's operand.  A call the file holds there itself
	 * (a header stub's caller: sites.c, file_stub_notes()) is no such
	 * call; a file that cannot be read is taken to hold none.
	 */
	{
		struct proc_maps mm = {0};
		const char *bad = NULL, *bwhy = NULL;

		if (proc_maps_read(pr->pid, &mm) == 0)
			for (size_t i = 0; i < n && !bad; i++) {
				struct tprobe *p = kp[i].p;
				uint64_t b;

				if (!ip_file_bias(p->file, &mm, &b))
					continue;
				for (unsigned k = 0; k < p->noffs && !bad;
				     k++) {
					uint8_t cur[1], fb[6];
					uint64_t a = ip_off_to_addr(p->file, b,
								    p->offs[k]);

					if (a &&
					    ip_mem_rw(pr->pid, a, cur, 1,
						      false) == 0 &&
					    cur[0] == 0xe8 &&
					    (ip_file_bytes(p->file, p->offs[k],
							   fb) < 0 ||
					     fb[0] != 0xe8)) {
						bad = p->name;
						bwhy = kp[i].why;
					}
				}
			}
		proc_maps_free(&mm);
		if (bad) {
			const struct ip_proc *ipp = ip_proc_of(c, pr);

			say(c,
			    "-x activation=user cannot trace pid %d, probe "
			    "%s: %s; and its sites hold calls armed "
			    "in-process (%s), which the kernel path's "
			    "breakpoints would break",
			    (int)pr->pid, bad, bwhy,
			    ipp && ipp->other ? "by that dtrace"
					      : "inherited from its parent");
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
 * A fork child's probes made from its parent's (sites.c,
 * probe_at_site()) are marked enabled, their hits coming through what it
 * inherited; before the child has an arena of its own, those whose sites
 * hold the parent's in-process calls are turned off here so that
 * ip_enable() arms them into it (site_prepare() takes the call there),
 * or every hit after would be no armed site's (run-trace-fork.sh, fpair:
 * a child's entry probe, fired before its registration, was lost from
 * then on).  Those on the kernel path hold no call, and stay.
 */
static void ip_inherited_calls(struct consumer *c, struct tproc *pr,
			       const struct proc_maps *mm)
{
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];
		uint8_t cur[1], fb[6];
		uint64_t b, a;

		if (p->pid != pr->pid || !p->enabled || p->pidkind ||
		    !p->noffs || !ip_file_bias(p->file, mm, &b))
			continue;
		a = ip_off_to_addr(p->file, b, p->offs[0]);
		if (a && ip_mem_rw(pr->pid, a, cur, 1, false) == 0 &&
		    cur[0] == 0xe8 &&
		    ip_file_bytes(p->file, p->offs[0], fb) == 0 &&
		    fb[0] != 0xe8)
			p->enabled = false;
	}
}

/*
 * Arm pr's probes: each probe on one path, whole.  One the recorder
 * cannot take (probe_refusal(), a site site_prepare() refuses, a file
 * without the recorder) goes to the kernel path, decided before any of
 * its sites is written; a process it cannot take at all (held, maps,
 * seccomp, its arena) goes there whole, and stays (ipp->kernel), its
 * execs too.  What fails once writing has begun is refused, said.
 */
static void drain_proc(struct consumer *c, struct ip_proc *ipp, size_t idx);

/*
 * Before a site of another file can take an armed site's address (its
 * library dlclose()d and another mapped there since, seen by a refresh
 * or an ask before ip_remap_check() looked), every record waiting is
 * read, with the process held: the old file's hits were all written
 * before it was unmapped, and a record is named from the sites armed
 * when it is read (the tight dlopen() loop of run-activation-user.sh
 * named whole rounds with the other file).  False when the read was
 * cut short (-x bufsize): nothing is armed until the next read
 * (ipp->rearm, ip_remap_check()).
 */
static bool drain_stale(struct consumer *c, struct ip_proc *ipp,
			const struct proc_maps *mm)
{
	bool stale = false;

	for (size_t i = 0; i < ipp->nobjs && !stale; i++) {
		const struct ip_obj *o = &ipp->objs[i];
		uint64_t b;

		if (o->bias == ~(uint64_t)0 ||
		    (ip_file_bias(o->file, mm, &b) && b == o->bias))
			continue; /* forgotten, or where it was armed */
		for (size_t k = 0; k < ipp->nsites && !stale; k++)
			stale = ipp->sites[k].file == o->file;
	}
	if (!stale || !ipp->map)
		return true;
	for (size_t k = 0; k < c->ip->nprocs; k++)
		if (c->ip->procs[k] == ipp)
			drain_proc(c, ipp, k);
	return !c->read_more;
}

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
	if (ipp && ip_exec_check(c, ipp))
		return;
	if (fresh) {
		ipp = xcalloc(1, sizeof(*ipp));
		ipp->pid = pr->pid;
		ipp->pr = pr;
		PUSH(ip->procs, ip->nprocs, ipp);
	}
	if (ipp->kernel) {
		whole = true;
		if (ipp->kpin)
			snprintf(why, sizeof(why),
				 "an exec'd image told not to ask");
		goto kernel;
	}
	if (!ip_hold_all(pr, &h)) {
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
	ipp->rearm = false;
	if (!drain_stale(c, ipp, &mm)) {
		ipp->rearm = true; /* armed at the next read */
		ok = true;
		goto refuse;
	}
	if (!ipp->map) {
		size_t ns = 0, n = ip_stale_restore(c, ipp, &mm, &ns);

		if (n && c->o->verbose)
			say(c,
			    "pid %d: %zu sites a dead dtrace left armed given "
			    "back their NOPs",
			    (int)pr->pid, n);
		if (ns && c->o->verbose)
			say(c,
			    "pid %d: %zu semaphores a dead dtrace raised "
			    "lowered",
			    (int)pr->pid, ns);
		ip_inherited_calls(c, pr, &mm);
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

			if (!ip_file_bias(p->file, &mm, &b))
				continue; /* dlclose()d: armed when back */
		}
		if (probe_refusal(c, p, why, sizeof(why)) ||
		    !(o = ip_proc_obj(ipp, p->file, &mm, why, sizeof(why)))) {
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
			if (ip_arena_first(c, ipp, &h, o, &mm, why,
					   sizeof(why)) < 0) {
				whole = true;
				break;
			}
			made = true;
		}
#ifdef HAVE_BPF
		/* the clauses the recorder can aggregate (arena.h) */
		planned = kpl && ip_probe_plan(ip, p, kpl);
#endif
		/* this object's control block: the arena is on */
		if (ip_ctl_arm(ipp, o, &ctlw, &nctl, why, sizeof(why)) < 0)
			goto refuse;
		for (size_t k = 0; k < nps; k++) {
			struct ip_site *st = &ps[k];
			int err;

			/* no thread may be inside the 5 bytes */
			for (size_t t = 0; t < ip_hold_count(&h); t++)
				if ((err = ip_skip_site(&h, t, st)) < 0) {
					snprintf(why, sizeof(why),
						 "a thread could not be moved "
						 "off a site: %s",
						 strerror(-err));
					goto refuse;
				}
			if ((err = ip_mem_rw(pr->pid, st->addr, pnw[k], 5,
					     true)) < 0) {
				snprintf(why, sizeof(why),
					 "its site at %#" PRIx64
					 " cannot be written: %s",
					 st->addr, strerror(-err));
				goto refuse;
			}
			memcpy(st->armed, pnw[k], 5);
			st->hid = ip_hist_add(ipp, st);
			/* a site of a file mapped there before: this one now */
			for (size_t q = 0; q < ipp->nsites; q++)
				if (ipp->sites[q].addr == st->addr)
					ipp->sites[q] =
						ipp->sites[--ipp->nsites];
			PUSH(ipp->sites, ipp->nsites, *st);
#ifdef HAVE_BPF
			if (kpl && !st->enabled) /* its plan, or none there */
				ip_plan_put(ip, ipp, st->addr,
					    planned && ip_plan_site(kpl, st, ap)
						    ? ap
						    : NULL);
#endif
		}
		/* its semaphore, once per probe */
		if (p->noffs) {
			const struct tnote *n =
				file_note_at(p->file, p->offs[0]);
			uint64_t sa = n && n->sema_off
					      ? ip_off_to_addr(p->file, o->bias,
							       n->sema_off)
					      : 0;
			uint16_t v;

			if (sa && ip_mem_rw(pr->pid, sa, &v, 2, false) == 0) {
				v++;
				if (ip_mem_rw(pr->pid, sa, &v, 2, true) == 0)
					PUSH(ipp->semas, ipp->nsemas,
					     ((struct ip_sema){
						     sa, p->file,
						     ip_semlog_add(ipp, sa),
						     ip_boot_ns() }));
			}
		}
		p->enabled = true;
	}
	/* every drti.o's control block; a target's arena (ip_objs_ready) */
	if (!whole) {
		int r = ip_objs_ready(c, ipp, &h, &mm, &ctlw, &nctl, &made, why,
				      sizeof(why));

		if (r == -1)
			whole = true;
		else if (r < 0)
			goto refuse;
	}
	ok = true;
refuse:
	/*
	 * Refused with nothing armed: the process as it was (a fork child
	 * keeps writing the arena it inherited, whose reader we are).
	 */
	if (!ok && !ipp->nsites) {
		for (size_t i = 0; i < nctl; i++)
			(void)ip_mem_rw(pr->pid, ctlw[i].at, &ctlw[i].old,
					sizeof(ctlw[i].old), true);
		if (made && ipp->exec_fd) {
			bool ours;

			(void)ip_inject(&h, ipp->objs[0].sys, SYS_close,
					USDT_EXEC_FD, 0, 0, 0, 0, 0, &ours);
			ipp->exec_fd = false;
		}
		if (made && ip_arena_unmap(ipp, &h, ipp->objs[0].sys)) {
			munmap(ipp->map, ipp->len);
			ipp->map = NULL;
			free(ipp->tails);
			ipp->tails = NULL;
		}
	}
	ip_release(&h);
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
		qsort(ipp->sites, ipp->nsites, sizeof(*ipp->sites),
		      ip_site_cmp);
	if (ok)
		return;
	say(c, "-x activation=user cannot trace pid %d%s%s: %s", (int)pr->pid,
	    *pname ? ", probe " : "", pname, why);
	c->enable_failed = true;
}

/*
 * Can description d select a USDT probe, one of a library not mapped
 * yet included?  Not dtrace's own probes and tick-N (desc_self()), nor
 * a description naming another provider outright (the kernel's, the pid
 * provider's): a glob or an empty provider can.
 */
static bool desc_usdt(const struct dt_desc *d)
{
	static const char *const other[] = { "dtrace", "syscall", "proc",
					     "profile" };
	const char *digits;

	if (desc_self(d))
		return false;
	if (!d->prov[0] || strpbrk(d->prov, "*?[\\"))
		return true;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (!strcmp(d->prov, other[i]))
			return false;
	digits = d->prov + 3;
	return strncmp(d->prov, "pid", 3) || !*digits ||
	       digits[strspn(digits, "0123456789")];
}

/*
 * pr, a -p or -c target, has no probe to arm: one that carries drti.o's
 * recorder gets its arena all the same (ip_objs_ready()), once, so that
 * a library it dlopen()s asks to be armed before it runs; only in a run
 * some clause of which can select a USDT probe (not -n BEGIN -p PID:
 * nothing of such a run is ever armed in the process).
 */
static void ip_target(struct consumer *c, struct tproc *pr)
{
	struct ip_proc *ipp = ip_proc_of(c, pr);
	bool rec = false, usdt = false;

	if (c->ip->stopped || (ipp && (ipp->map || ipp->kernel ||
				       ipp->exec_pending || ipp->exec_said)))
		return;
	for (unsigned ci = 0; ci < c->nclauses && !usdt; ci++)
		for (unsigned j = 0; j < c->ndescs[ci] && !usdt; j++)
			usdt = desc_usdt(&c->descs[ci][j]);
	if (!usdt)
		return;
	for (size_t i = 0; i < pr->nfiles && !rec; i++)
		rec = ip_file_has_rec(pr->files[i]);
	if (rec)
		ip_enable(c, pr);
	else
		ip_exec_hold(c, pr); /* its exec stopped at (inproc_exec.c) */
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
			uint32_t ix = (uint32_t)idx, hid;
			const struct ip_site *st;
			struct hit hh = {0};

			if (c->read_cap && c->alen >= c->read_cap) {
				c->read_more = true;
				break;
			}
			st = ip_site_find(ipp, r->pc & USDT_PC_ADDR);
			hid = st ? st->hid : 0; /* 0: not a site armed */
			memcpy(raw, &ix, 4);
			memcpy(raw + 4, &hid, 4);
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
void ip_remap_check(struct consumer *c, struct ip_proc *ipp)
{
	struct tproc *pr = ipp->pr;
	struct proc_maps mm = {0};
	bool again = false, moved, drained = false;

	if (ipp->gone || pr->exited || !pr->maps || c->read_more)
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
		bool found = moved ? ip_file_bias(o->file, &mm, &b) : b != gone;

		if (found && o->bias == gone) {
			again = true; /* mapped again: armed anew */
			continue;
		}
		if (found && b == o->bias &&
		    (ip_mem_rw(pr->pid, o->ctl, &v, sizeof(v), false) < 0 ||
		     v == ipp->taddr))
			continue; /* as we armed it (or gone meanwhile) */
		if (o->bias == gone)
			continue;
		/*
		 * unmapped, or mapped anew: nothing of it is ours now.  Its
		 * hits were all written before (its code is gone): read
		 * first, each record naming its site as it was; a read cut
		 * short (-x bufsize) forgets at the next round.
		 */
		if (!drained) {
			drained = true;
			for (size_t k = 0; k < c->ip->nprocs; k++)
				if (c->ip->procs[k] == ipp)
					drain_proc(c, ipp, k);
		}
		if (c->read_more) {
			free(ipp->maps_seen); /* looked at again then */
			ipp->maps_seen = NULL;
			break;
		}
		ip_forget_file(ipp, o->file);
		o->bias = gone; /* ip_proc_obj() computes it anew */
		for (size_t k = 0; k < c->nprobes; k++)
			if (c->probes[k]->pid == pr->pid &&
			    c->probes[k]->file == o->file)
				c->probes[k]->enabled = false;
		again |= found;
	}
	proc_maps_free(&mm);
	if (again || ipp->rearm)
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
		if (!ip_exec_check(c, ipp) && !ip->stopped)
			ip_remap_check(c, ipp);
		if (!ip->stopped) /* the heartbeat: still here */
			__atomic_store_n(&((struct usdt_arena *)ipp->map)->hb,
					 t, __ATOMIC_RELEASE);
		drain_proc(c, ipp, i);
		if (!ip->stopped && !ipp->gone)
			ip_seg_giveback(c, ipp);
	}
	/* ip->procs may grow here (an exec'd image armed) */
	for (size_t i = 0; i < ip->nprocs; i++)
		ip_exec_answer(c, ip->procs[i]);
	ip_exec_handover(c);
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
	uint32_t ix, hid;

	if (h->rawlen != 8 + sizeof(r))
		return false;
	memcpy(&ix, h->raw, 4);
	memcpy(&hid, h->raw + 4, 4);
	memcpy(&r, h->raw + 8, sizeof(r));
	if (ix >= ip->nprocs)
		return false;
	ipp = ip->procs[ix];
	/* the site as it was when read: its library may be gone since */
	if (!hid || hid > ipp->nhist) {
		ipp->corrupt++; /* not a site we armed */
		return false;
	}
	s = &ipp->hist[hid - 1];
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
		ip_exec_unasked(c, ipp);
		ipp->gone = true;
		ipp->taddr = 0;
	}
}

static void ip_stats(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t drops = 0, corrupt = 0, given = 0;

	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];
		struct usdt_arena *a = (struct usdt_arena *)ipp->map;
		uint32_t n;

		corrupt += ipp->corrupt;
		given += ipp->given;
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
	if (given && c->o->verbose)
		say(c, "%" PRIu64 " ring segments of exited threads given back",
		    given);
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

static void ip_target(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static bool ip_dl_asks(struct consumer *c, struct tproc *pr,
		       const struct tfile *f)
{
	(void)c, (void)pr, (void)f;
	return false;
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
 * image's ask is answered (ip_exec_answer()) and it is armed, or the kernel
 * backend's enable, reading it then, arms every probe the reset left off
 * (the calls armed in-process too: breakpoints over them).
 * And the kernel's again after the process's: a kernel hit that came
 * after the first read but before a later in-process one would else be
 * read only next time, after that one ran, and an exit() there dropped
 * it (run-copyin.sh under DTRACE_ACTIVATION=user, about a run in ten
 * under load: nothing printed).  The hits of one read run in time order
 * (records.c).
 */
static void mux_drain(struct consumer *c)
{
	if (c->be_kernel)
		c->be_kernel->drain(c);
	ip_drain(c);
	if (c->be_kernel && !c->read_more)
		c->be_kernel->drain(c);
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
	.dl_asks = ip_dl_asks,
	.target = ip_target,
	.stop = mux_stop,
	.aggs = mux_aggs,
	.stats = mux_stats,
	.close = mux_close,
};
