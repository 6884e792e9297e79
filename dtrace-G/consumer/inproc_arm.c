// SPDX-License-Identifier: MIT
/*
 * inproc_arm.c - arming a process for -x activation=user (inproc.c has
 * the backend's mechanism, doc/DESIGN.md §14 the design): ip_enable()
 * puts each of a process's probes on one path, whole, the recorder's or
 * the kernel backend's opened beside it (kernel_enable()), and
 * ip_target() gives a -p or -c target its arena with nothing to arm.
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
 * (ip_remap_check() sees its control block read 0, or it moved, and
 * calls ip_enable()); what is forgotten is decided only here, with the
 * process held (forget_stale(): an object mapped elsewhere, or where it
 * was but anew, its control block not reading our arena; one unmapped
 * loses only its sites until it is back), never from maps read with it
 * running, which may predate an arming since.  Its
 * records are read before its sites are forgotten; each record names
 * its site as it was when read (ip_proc.hist), so one decoded later is
 * the old file's still; and since a record is named when it is read,
 * every record waiting is read before a site of another file takes an
 * armed site's address, however the new file was found (a refresh, its
 * ask or ip_remap_check()).  Arming reads the maps
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
 * and decoded by it (a hit says whose it is).  A glob's probe there is
 * armed for its process alone (tprobe.alone), not binary-wide, where
 * its breakpoints would land over the calls armed in other processes;
 * its fork children count through the events they inherit.  Refused,
 * said, the run stopped: a probe whose sites hold calls armed
 * in-process that the kernel path's breakpoints would break (a fork
 * child's inherited ones, another dtrace's), the pid provider, what
 * fails once writing has begun;
 * vtimestamp, uid/gid and the kernel providers but tick-N are refused
 * earlier (vtime.c, psargs.c, kprov.c: this backend declares no such
 * capability).
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
	if (p->fstrmask && !c->ip->usercopy) {
		snprintf(msg, msglen,
			 "copyinstr() of an argument is read at the hit on "
			 "the kernel path (-x usercopy copies it in the "
			 "process)");
		return true;
	}
	if (p->fstrmask && !c->ip->copies) {
		snprintf(msg, msglen,
			 "copyinstr() of an argument is copied at the hit in "
			 "the process only with strsize 2 to %u",
			 USDT_CSTRMAX + 1);
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

/*
 * Probe p's strings are copied at the hit by the recorder of o
 * (arena.h, version 3): one that predates copies (a 16-byte
 * __usdt_ctl) would write records without them, and a record whose
 * copies might take more than a quarter of a thread's ring could never
 * be written while it holds others.  true: p goes to the kernel path.
 */
static bool copy_refusal(struct consumer *c, const struct tprobe *p,
			 const struct ip_obj *o, char *msg, size_t msglen)
{
	struct usdt_cspec sp = { 0 };

	if (!p->fstrmask)
		return false;
	if (o->ctl_size < USDT_CTL_COPIES) {
		snprintf(msg, msglen,
			 "%s: its drti.o predates copies at the hit "
			 "(copyinstr() of an argument)",
			 o->file->path);
		return true;
	}
	/* the most a spec copies: every field strsize - 1 bytes */
	sp.nf = USDT_CFIELDS;
	for (unsigned i = 0; i < USDT_CFIELDS; i++)
		sp.f[i].len = (uint32_t)(d_opt_strsize(c->prog) - 1);
	if (usdt_ext_slots(&sp, (unsigned)__builtin_popcount(p->fstrmask)) >
	    c->ip->nslots / 4) {
		snprintf(msg, msglen,
			 "its copies at the hit (strsize %zu) would take "
			 "more than a quarter of a thread's ring (-x "
			 "bufsize)",
			 d_opt_strsize(c->prog));
		return true;
	}
	return false;
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
 * one) are marked enabled meanwhile.  A probe a glob matches (wide)
 * would be armed binary-wide there (uprobe.c), breakpoints over the
 * calls armed in-process in other processes running the file: it is
 * armed for pr alone (tprobe.alone), with events pr's fork children
 * inherit, whose hits lineage.c gives the probe derived for the child
 * as a binary-wide event's, so each counts once (fasttrap.c arms every
 * probe per process, following a wide one's forks).
 */
static void kernel_enable(struct consumer *c, struct tproc *pr,
			  struct ip_kprobe *kp, size_t n)
{
	struct inproc *ip = c->ip;
	struct tprobe **others = NULL;
	size_t nothers = 0;

	for (size_t i = 0; i < n; i++)
		kp[i].p->alone = kp[i].p->wide;
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
/*
 * Where o, an object armed in ipp's held process (maps mm), is now:
 * OBJ_ARMED, the mapping it was armed in (where it was, and its control
 * block reads our arena's address; with no arena yet, where it was);
 * OBJ_UNMAPPED, its file mapped nowhere; OBJ_ANEW, mapped elsewhere, or
 * where it was but anew (a library dlclose()d and dlopen()ed again at
 * that address starts with a zero control block and NOPs), or with a
 * control block that cannot be read, which is not taken for ours.
 */
enum { OBJ_ARMED, OBJ_UNMAPPED, OBJ_ANEW };

static int obj_state(const struct ip_proc *ipp, const struct ip_obj *o,
		     const struct proc_maps *mm)
{
	uint64_t b, v = 0;

	if (!ip_file_bias(o->file, mm, &b))
		return OBJ_UNMAPPED;
	if (b != o->bias)
		return OBJ_ANEW;
	if (!ipp->map || !ipp->taddr)
		return OBJ_ARMED;
	return ip_mem_rw(ipp->pid, o->ctl, &v, sizeof(v), false) == 0 &&
			       v == ipp->taddr
		       ? OBJ_ARMED
		       : OBJ_ANEW;
}

/*
 * What ipp's held process maps anew is forgotten here, and only here,
 * before anything is armed: whatever found the change (a refresh, a
 * library's ask, ip_remap_check(), whose maps were read with the process
 * running and may predate an arming since), it is decided from maps and
 * control blocks read with the process held.  An object mapped anew
 * (obj_state()) has its sites and semaphores forgotten
 * (ip_forget_file()) and its probes marked not enabled, so that the loop
 * after arms them where the file is mapped now, and its bias forgotten
 * (ip_proc_obj() works it out anew).  One unmapped has its sites and
 * semaphores forgotten (nothing of it runs), its bias and its probes'
 * enabled kept: when its file is mapped again, its control block reads
 * 0 or it moved, which ip_remap_check() sees whatever maps it has (a
 * file forgotten whole while pr->maps still showed it would not be seen
 * mapped again at that address, the maps reading the same), so it is
 * forgotten whole then, with the process held again, and armed anew.
 * Before,
 * ip_remap_check() forgot from the running process's maps: a file armed
 * since they were read was forgotten with its calls in place, its hits
 * records of no armed site; and a file it kept though it had been
 * dlopen()ed again had its probes counted enabled over fresh NOPs, which
 * ip_objs_ready() then pointed at the arena, so that it did not ask: its
 * hits lost unsaid.
 *
 * A record is named from the sites armed when it is read (ip_proc.hist),
 * so while any object with sites is not as armed, every record waiting
 * is read first (the tight dlopen() loop of run-activation-user.sh named
 * whole rounds with the other file): its hits were all written before
 * it was unmapped, and no thread runs now.  False when that read was cut
 * short (-x bufsize): nothing is forgotten or armed until the next read
 * (ipp->rearm, ip_remap_check()).
 */
static bool forget_stale(struct consumer *c, struct ip_proc *ipp,
			 const struct proc_maps *mm)
{
	const uint64_t gone = ~(uint64_t)0;
	struct tproc *pr = ipp->pr;
	bool sites = false;
	int *st;

	if (!ipp->nobjs)
		return true;
	st = xcalloc(ipp->nobjs, sizeof(*st));
	for (size_t i = 0; i < ipp->nobjs; i++) {
		const struct ip_obj *o = &ipp->objs[i];

		st[i] = o->bias == gone ? OBJ_ARMED : obj_state(ipp, o, mm);
		for (size_t k = 0; k < ipp->nsites && !sites; k++)
			sites = st[i] != OBJ_ARMED &&
				ipp->sites[k].file == o->file;
	}
	if (sites && ipp->map) {
		for (size_t k = 0; k < c->ip->nprocs; k++)
			if (c->ip->procs[k] == ipp)
				ip_drain_proc(c, ipp, k);
		if (c->read_more) {
			free(st);
			return false;
		}
	}
	for (size_t i = 0; i < ipp->nobjs; i++) {
		struct ip_obj *o = &ipp->objs[i];

		if (st[i] == OBJ_ARMED)
			continue;
		ip_forget_file(ipp, o->file);
		if (st[i] == OBJ_UNMAPPED)
			continue; /* its bias and probes kept: see above */
		o->bias = gone;
		for (size_t k = 0; k < c->nprobes; k++)
			if (c->probes[k]->pid == pr->pid &&
			    c->probes[k]->file == o->file)
				c->probes[k]->enabled = false;
	}
	free(st);
	return true;
}

/*
 * DTRACE_IP_RACE=US (tests/run-activation-user.sh): arming waits US
 * microseconds before it holds the process, and a library's ask, once
 * answered, is followed at once by a refresh of the maps
 * (dl_answer(), inproc_exec.c), so that a refresh reads the maps with
 * the process running on from its answer, and holds it to arm only
 * after it has dlclose()d that library and dlopen()ed another: what the
 * 100 ms refresh meets now and then on a loaded machine, every round.
 */
long ip_race_us(void)
{
	static long us = -1;

	if (us < 0) {
		const char *e = getenv("DTRACE_IP_RACE");

		us = e ? atol(e) : 0;
		if (us < 0 || us >= 1000000)
			us = 0;
	}
	return us;
}

void ip_enable(struct consumer *c, struct tproc *pr)
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
	if (!ipp->kernel && ip_exec_picked(c, ipp) == IPK_WAIT)
		return;
	if (ipp->kernel) {
		whole = true;
		if (ipp->kpin)
			snprintf(why, sizeof(why),
				 "an exec'd image told not to ask");
		goto kernel;
	}
	if (ip_race_us())
		usleep((useconds_t)ip_race_us());
	if (!ip_hold_all(pr, &h)) {
		/* exiting, armed before: nothing to arm or forget */
		if (ipp->map && ip_proc_exiting(pr->pid))
			return;
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
	if (!forget_stale(c, ipp, &mm)) {
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
		    !(o = ip_proc_obj(ipp, p->file, &mm, why, sizeof(why))) ||
		    copy_refusal(c, p, o, why, sizeof(why))) {
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
			if (kpl && !st->enabled && /* its plan, or none */
			    ip_plan_put(ip, ipp, st->addr,
					planned && ip_plan_site(kpl, st, ap)
						? ap
						: NULL))
				ip_plan_ran(ip, p); /* -v */
#endif
			if (!st->enabled) { /* its copies, or none */
				struct usdt_cspec sp;

				ip_spec_put(ip, ipp, st->addr,
					    p->fstrmask && ip_spec_site(c, p,
									st, &sp)
						    ? &sp
						    : NULL);
			}
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
		if (made && ip_arena_unmap(ipp, &h, ipp->objs[0].sys) == 0) {
			ip_drops_say(c, ipp); /* its last, said before */
			ip_beat_del((struct usdt_arena *)ipp->map);
			munmap(ipp->map, ipp->len);
			ipp->map = NULL;
			free(ipp->tails);
			ipp->tails = NULL;
			free(ipp->segid);
			ipp->segid = NULL;
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
void ip_target(struct consumer *c, struct tproc *pr)
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

#endif /* __x86_64__ */
