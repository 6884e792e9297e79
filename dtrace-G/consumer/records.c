// SPDX-License-Identifier: MIT
/*
 * records.c - from the records a backend read to the D program: the
 * hits of one read, in time order, each decoded by its backend and run
 * through the clauses of its probe; dtrace's own BEGIN and END; and the
 * threads the hits came from, until they exit.
 *
 * A read takes every buffer the backend has (drain()), copying each
 * record into one arena, so the kernel's space is given back at once
 * and a record's bytes stay put while the hits are sorted.  The hits of
 * all CPUs are sorted by time (CLOCK_MONOTONIC, as every backend stamps
 * them) and run in that order; after exit() the rest of the read is not
 * run, as in DTrace, but for an exit() the kernel decided (hit.xwon):
 * then every record it let through (hit.act) runs, whatever its time,
 * and nothing else (kplan_exit.c's "exit() at a traced probe").  After an
 * exit() a read goes no further than its round (read_buffers()): the
 * rounds, each at most one CPU's -x bufsize, went on while the last
 * filled up, and a process firing as fast as dtrace reads kept it
 * reading after exit() and never back to its loop to end (a -p run's
 * exit() at the first hit of 16 threads firing flat out: minutes, then
 * the test's SIGKILL).  A SIGINT, SIGTERM or SIGHUP waiting for the
 * loop ends a read so too (stop_pending()); the records it left are
 * read at the end, the backend stopped, and until then no thread and no
 * process they came from is let go (read_buffers() says false).  A hit
 * whose thread the BPF program stopped at a copyout() probe (bpf.c's
 * cohold) lets the thread go once it has run, its clauses' writes made
 * (copyout_w(), process_vm_writev()), or is deferred with the thread
 * still held; one not run after exit() is let
 * go with the rest at the end (dlhold_end()).
 * decode() gives the probe and the firing's context
 * (struct d_fire: pid, tid, CPU, thread name, arguments, the strings
 * copied at hit time, and in c->ucap the user registers and stack when
 * the hit took them); what is the process's (ppid and the ancestors for
 * progenyof(), from the fork tree (lineage.c) where it knows the process,
 * as it was at the hit, else from the chain of parents read when the
 * process was taken up while /proc still says the same (anc_kept()),
 * else unknown (parent_of()); the stack and name callbacks of ustack.c; uid
 * and gid only decode() gives, taken at the hit, and a backend that
 * takes none has refused a script that reads them: psargs.c's
 * cred_check())
 * and the clocks are added here, the same for every backend
 * (hit_run()).  A kernel provider's hit (syscall, profile, tick, proc:
 * hit.kprov) is decoded by kprov.c instead, which knows its probe
 * without a site, and run by hit_run() the same way; tick-N's come
 * from kprov_drain(), before the backend's (drain_buffers()), and a
 * hit stamped at or past the due time of a firing not read yet waits
 * for it (hit.later: a timer may expire after its due time), so a
 * tick that calls exit() counts exactly the hits before it (kplan_exit.c's
 * "Why exit()"; a firing whose horizon's lease was given back late
 * waits as stamped then, "The lease"); once the read's last tick
 * firing has run the horizon the kernel's clauses stop at moves on
 * (kprov_horizon()), and once an exit() has run the kernel is told
 * (kprov_exited(): "The flood").  A tick whose
 * clause may printa(),
 * clear() or trunc() read by kprov_drain() puts a barrier (bpf.c's
 * bpf_barrier()) before the ring is read, so every hit stamped before
 * it has ended and its record is read with it, and folds the kernel's
 * aggregations in when it runs (kplan_exit.c's "printa() at tick-N").  A hit
 * some of whose clauses the kernel ran (kagg_rec) runs the others
 * (hit_run_kagg()), and a fault one of the kernel's had at the hit (kfault) is
 * reported, and ERROR fired, in that clause's place among them; so is one of
 * the kernel's that printf()s values it computed at the hit (kout) printed from
 * them (cgen_out.c), and a speculating clause user space runs whose values the
 * kernel computed (kplan_spec.c's "Speculations") runs its predicate and
 * speculate()
 * here and prints from them; a clause user space runs that reads self->
 * integers the kernel keeps has them set from the area for its run alone, what
 * the thread's held put back after it, and is not run where the area says the
 * hit did not reach it (cgen_out.c's cg_out_vin(), kplan_vin.c's "Shared
 * self-> variables").
 *
 * Threads.  self-> variables are keyed by thread id, and a thread that
 * exits must take them along (d_thread_exit()), or a long run keeps the
 * variables of every thread that ever fired.  Each thread a hit comes
 * from is remembered (a hash set by tid, one compare for the thread that
 * fired last); every refresh (100 ms) and at the end, the remembered
 * threads whose /proc/PID/task/TID is gone are let go.  The check comes
 * before one more read: a thread gone before the read wrote all its
 * records before it, so they run first and none can bring a variable
 * back.  This costs one access() per live thread that fired, every
 * 100 ms, and nothing per hit but the lookup; it needs no help from the
 * backend, so it works the same with uprobe events, the fasttrap module
 * and any later backend.  The self-> variables generated BPF programs
 * keep in the kernel are let go on the same refresh (bpf_tls_reap()).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "kplan.h"
#include "procfs.h"

/* ------------------------------------------------------------------ */
/* Hits */

/*
 * d_fire's copyin: read the traced process's memory (copyin()); ctx is
 * the consumer, or NULL.  A process that has exited since the hit (no
 * memory left: ESRCH) is read from its read-only file mappings
 * (deadmem.c).  All len bytes or a fault: process_vm_readv() stops at
 * the first page it cannot read, and a copyin() of a range running into
 * one faults in DTrace (and in bpf_probe_read_user()), not a copy ending
 * in zeros (d_read_user_str() reads a page at a time, so a string
 * ending before an unmapped page still reads).
 */
int copyin(void *ctx, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n;

	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0 && errno == ESRCH && ctx)
		return deadmem_read(ctx, pid, addr, buf, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/*
 * d_fire's copyout_w: write len bytes into the traced process at addr
 * (copyout() with its firing thread held at the probe, dlhold.c): 0,
 * or -errno (a short write faults too: part of it may be written, as
 * DTrace's kernel leaves what it wrote before the fault)
 */
static int copyout_w(void *ctx, pid_t pid, uint64_t addr, const void *buf,
		     size_t len)
{
	struct iovec l = {(void *)(uintptr_t)buf, len},
		     r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);

	(void)ctx;
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/*
 * pid's parent and start time from one read of /proc/PID/stat ("pid
 * (comm) S ppid ..."): 0, or -1 where pid is gone or the text is not of
 * that shape.
 */
static int stat_link(pid_t pid, pid_t *ppid, uint64_t *start)
{
	char st[1024];
	struct proc_stat ps;
	const char *s;

	if (proc_read_file(pid, "stat", st, sizeof(st)) < 0 ||
	    proc_stat_parse(st, &ps, NULL, 0) < 0 || !(s = strrchr(st, ')')) ||
	    sscanf(s + 1, " %*c %d", ppid) != 1)
		return -1;
	*start = ps.start;
	return 0;
}

/*
 * progenyof()'s chain of a process dtrace takes up (proc_add(), where a
 * clause reads ppid or calls progenyof()): the process, its parent, that
 * one's parent... each with its start time, read from /proc, to pid 0
 * (complete) or to one gone during the read.  pr->anc_t is when the read
 * ended: each link held then (it held at its read, and a reparent is
 * for good, so one the same at a later read held at every time between).
 */
void anc_take(struct tproc *pr)
{
	pid_t pid = pr->pid, pp;
	uint64_t st;
	size_t cap = 0;

	free(pr->anc);
	pr->anc = NULL;
	pr->nanc = 0;
	for (uint32_t n = 0; pid > 0 && n <= ANC_PID_MAX; n++) {
		if (pr->nanc == cap)
			xgrow(&pr->anc, &cap, pr->nanc, sizeof(*pr->anc));
		if (stat_link(pid, &pp, &st) < 0)
			break;
		pr->anc[pr->nanc++] = (struct anc_link){ pid, st, 0 };
		pid = pp;
	}
	if (!pid) { /* complete: the end, pid 0 */
		if (pr->nanc == cap)
			xgrow(&pr->anc, &cap, pr->nanc, sizeof(*pr->anc));
		pr->anc[pr->nanc++] = (struct anc_link){ 0, 0, 0 };
	}
	pr->anc_t = now_ns(CLOCK_MONOTONIC);
}

/*
 * The parent of pid at t from a taken-up chain (anc_take()): a link
 * (pid, its parent) of a chain read at or before t that /proc says
 * still holds, the same process (its start time) with the same parent,
 * now, after t: so at t too.  /proc is read at most once a batch of
 * hits per link (its seen, when it last said so).  -1: no chain proves
 * it (pid is in none, or gone, or reparented since the read).
 */
static pid_t anc_kept(struct consumer *c, pid_t pid, uint64_t t)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		struct tproc *pr = c->procs[i];

		if (t < pr->anc_t)
			continue; /* read after the hit (or never) */
		for (size_t k = 0; k + 1 < pr->nanc; k++) {
			struct anc_link *l = &pr->anc[k];
			uint64_t st, now;
			pid_t pp;

			if (l->pid != pid)
				continue;
			if (t <= l->seen)
				return l[1].pid;
			now = now_ns(CLOCK_MONOTONIC);
			if (stat_link(pid, &pp, &st) < 0 || st != l->start ||
			    pp != l[1].pid)
				break; /* not this chain's link now */
			l->seen = now;
			if (t <= now)
				return l[1].pid;
		}
	}
	return -1;
}

/*
 * d_fire's parent_of (progenyof()): pid's parent at the time of the hit
 * being run, where it can be proven: the fork tree's (lineage.c: the
 * FORK record's parent while it lived), else a taken-up chain's
 * (anc_kept()); else -1, and the walk faults.  A backend with kernel
 * probes (BE_CAP_KPROV: BPF) sees processes system-wide that no chain
 * knows, and reads their links from /proc when the record is run
 * instead (the reaper then where the parent had exited, -1 where the
 * process is gone): not yet the chain at the hit (doc/DESIGN.md's
 * "progenyof() in the generated programs").  ctx is the consumer, or
 * NULL: a firing in dtrace itself (BEGIN, END, tick-N), whose hit is
 * now, and /proc now is its truth.
 */
pid_t parent_of(void *ctx, pid_t pid)
{
	struct consumer *c = ctx;
	char st[4096], *s;
	pid_t pp;

	if (c && (pp = lin_ppid_at(c, pid, c->fire_t)) > 0)
		return pp;
	if (c && (pp = anc_kept(c, pid, c->fire_t)) >= 0)
		return pp;
	if (c && !(c->be->caps & BE_CAP_KPROV))
		return -1;
	if (proc_read_file(pid, "status", st, sizeof(st)) < 0)
		return -1;
	s = strstr(st, "\nPPid:");
	return s ? (pid_t)atoi(s + 6) : -1;
}

/*
 * The parent of a process dtrace took up (pr->ppid, read then) at its
 * hit at t, where the fork tree has no FORK record of it: exact while
 * that parent has not exited, which holds when it is dtrace (a -c
 * command) or is still pr's parent after t (a reparent is for good: the
 * old parent cannot come back).  /proc is read at most once per batch
 * of hits: pr->ppid_seen is when it last said so.  Else -1: unknown.
 */
static pid_t ppid_kept(struct tproc *pr, uint64_t t)
{
	uint64_t now;

	if (pr->ppid <= 0)
		return -1;
	if (pr->ppid == getpid() || t <= pr->ppid_seen)
		return pr->ppid;
	now = now_ns(CLOCK_MONOTONIC);
	if (parent_of(NULL, pr->pid) != pr->ppid)
		return -1;
	pr->ppid_seen = now; /* the parent then, so at any hit before */
	return t <= now ? pr->ppid : -1;
}

void hit_push(struct consumer *c, const struct hit *h)
{
	if (c->nhits == c->caphits) /* the test inline: once per hit */
		xgrow(&c->hits, &c->caphits, c->nhits, sizeof(*c->hits));
	c->hits[c->nhits] = *h;
	/* the reading rule's cut is by stamp (kspec_read.c): a hit no
	 * program stamped (a tick-N firing, kprov.c) is stamped its time,
	 * so that a cut keeps it as it keeps the hits around it */
	if (!h->ks.stamp)
		c->hits[c->nhits].ks.stamp = h->time;
	c->nhits++;
}

/* Copy n bytes into the arena the hits of one read point into. */
size_t arena_put(struct consumer *c, const void *p, size_t n)
{
	size_t off = c->alen;

	if (c->alen + n > c->acap) {
		c->acap = c->acap ? c->acap : 1 << 16;
		while (c->alen + n > c->acap)
			c->acap *= 2;
		c->arena = xrealloc(c->arena, c->acap, 1);
	}
	memcpy(c->arena + off, p, n);
	c->alen += n;
	return off;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->time == y->time) /* a hit at a tick's due time is after it */
		return (int)y->tick - (int)x->tick;
	return (x->time > y->time) - (x->time < y->time);
}

static void run_clauses(struct consumer *c, const struct d_probe *dp,
			const unsigned *clauses, const unsigned *epids,
			unsigned n, struct d_fire *f);

/*
 * dtrace:::ERROR, as DTrace's kernel fires it: in the faulting firing's
 * context (its process, thread, CPU, time), with the fault's arguments
 * (d_error_enter()), before the probe's later clauses.  A fault in an
 * ERROR clause fires nothing (d_run() does not return D_RUN_FAULT).
 */
static void fire_error(struct consumer *c, const struct d_fire *f)
{
	struct d_fire e = *f;

	if (!c->nerror)
		return;
	d_error_enter(c->prog, &e);
	run_clauses(c, &c->error, c->error_clauses, NULL, c->nerror, &e);
	d_error_leave(c->prog);
}

static void run_clauses_truth(struct consumer *c, const struct d_probe *dp,
			      const unsigned *clauses, const unsigned *epids,
			      unsigned n, struct d_fire *f, bool truth)
{
	for (unsigned i = 0; i < n && !c->exit_called; i++) {
		int r;

		f->epid = epids ? epids[i] : clauses[i] + 1;
		f->probe = dp;
		/* truth: the kernel tested the predicate, which held */
		r = truth ? d_run_truth(c->prog, clauses[i], f, c->out, stderr)
			  : d_run(c->prog, clauses[i], f, c->out, stderr);
		if (r & D_RUN_FAULT)
			fire_error(c, f);
		if (r & D_RUN_EXIT) {
			c->done = c->exit_called = true;
			c->status = d_exit_status(c->prog);
			/* decided in the kernel: what it let through runs */
			c->kdrain |= c->run_xwon;
			/* else the kernel stops now (kplan_exit.c's "The
			 * flood") */
			if (!c->run_xwon && !c->kdrain)
				kprov_exited(c);
		}
	}
}

static void run_clauses(struct consumer *c, const struct d_probe *dp,
			const unsigned *clauses, const unsigned *epids,
			unsigned n, struct d_fire *f)
{
	run_clauses_truth(c, dp, clauses, epids, n, f, false);
}

/* ------------------------------------------------------------------ */
/* Threads */

static size_t seen_slot(const struct consumer *c, pid_t tid)
{
	size_t mask = c->capseen - 1, i;

	for (i = ((size_t)tid * 2654435761u) & mask; c->seen[i].tid;
	     i = (i + 1) & mask)
		if (c->seen[i].tid == tid)
			break;
	return i;
}

static void seen_put(struct consumer *c, pid_t pid, pid_t tid)
{
	size_t i;

	if (2 * (c->nseen + 1) > c->capseen) {
		struct tseen *old = c->seen;
		size_t ocap = c->capseen;

		c->capseen = ocap ? 2 * ocap : 64;
		c->seen = xcalloc(c->capseen, sizeof(*c->seen));
		c->nseen = 0;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].tid)
				seen_put(c, old[k].pid, old[k].tid);
		free(old);
	}
	i = seen_slot(c, tid);
	if (!c->seen[i].tid)
		c->nseen++;
	c->seen[i] = (struct tseen){pid, tid};
}

static void thread_seen(struct consumer *c, pid_t pid, pid_t tid)
{
	if (tid <= 0 || tid == c->last_tid)
		return;
	c->last_tid = tid;
	if (c->capseen && c->seen[seen_slot(c, tid)].pid == pid)
		return;
	seen_put(c, pid, tid);
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Is a hit of process pid (thread tid, where pid is 0) kept for the next
 * read (hits_keep(): deferred, or stamped past a tick or the
 * speculations' cut)?  After an exit() no kept hit runs: none is.
 */
static bool hit_kept(const struct consumer *c, pid_t pid, pid_t tid)
{
	if (c->exit_called)
		return false;
	for (size_t i = 0; i < c->nhits; i++)
		if (pid ? c->hits[i].pid == (uint32_t)pid
			: c->hits[i].tid == (uint32_t)tid)
			return true;
	return false;
}

void threads_reap(struct consumer *c)
{
	pid_t *gone = NULL;
	size_t ngone = 0, ocap, kgone = 0;
	struct tseen *old;

#ifdef HAVE_BPF
	/* those the kernel keeps (bpf_agg_cgen.c): found now, taken
	 * after the read below, as these are */
	kgone = bpf_tls_gone(c);
#endif
	for (size_t i = 0; i < c->capseen; i++) {
		char p[64];

		if (!c->seen[i].tid)
			continue;
		(void)proc_path(p, sizeof(p), c->seen[i].pid, "task/%d",
				(int)c->seen[i].tid);
		if (access(p, F_OK) < 0 && errno == ENOENT)
			PUSH(gone, ngone, c->seen[i].tid);
	}
	if (!ngone && !kgone)
		return;
	/* what they did before they exited; a read a signal cut leaves
	 * some unread: teardown reads them, then lets the threads go */
	if (!read_buffers(c)) {
		free(gone);
		return;
	}
#ifdef HAVE_BPF
	bpf_tls_reap(c);
#endif
	/* ... and a thread with a hit kept for the next read (deferred,
	 * past a tick or the speculations' cut) keeps its self->
	 * variables until that hit has run: a later reap lets it go */
	for (size_t i = 0; i < ngone;)
		if (hit_kept(c, 0, gone[i]))
			gone[i] = gone[--ngone];
		else
			i++;
	if (!ngone) {
		free(gone);
		return;
	}
	qsort(gone, ngone, sizeof(*gone), pid_cmp);
	old = c->seen;
	ocap = c->capseen;
	c->seen = NULL;
	c->capseen = c->nseen = 0;
	c->last_tid = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].tid &&
		    !bsearch(&old[i].tid, gone, ngone, sizeof(*gone), pid_cmp))
			seen_put(c, old[i].pid, old[i].tid);
	free(old);
	for (size_t i = 0; i < ngone; i++)
		d_thread_exit(c->prog, gone[i]);
	c->thread_exits += ngone;
	free(gone);
}

/* ------------------------------------------------------------------ */
/* Reading */

/* Run one hit; false: keep it for the next read (lin_hit_probe()). */
static bool hit_process(struct consumer *c, const struct hit *h)
{
	struct tprobe *p;
	struct tproc *pr;
	struct d_fire f = {0};
	struct hit_at at = {0};
	char comm[32] = "";
	bool defer;

	c->kagg_rec = false;
	c->kfault = 0;
	c->kout = NULL;
	c->ucap.have = false;
	if (h->kprov) { /* a kernel provider's (kprov.c) */
		kprov_hit(c, h);
		return true;
	}
	if (!c->be->decode(c, h, &f, comm, sizeof(comm), &at))
		return true;
	p = lin_hit_probe(c, f.pid, f.timestamp, &at, &defer);
	if (defer && !h->deferred)
		return false;
#ifdef HAVE_BPF
	/* dropped on its second try (its FORK record lost): where its
	 * tags were not handed over, a record lost after its step */
	if (defer && !h->ks.ktaken && (h->ks.ks & UBPF_KOUT_SPEC) &&
	    bpf_kspec_on(c))
		d_kspec_lost(c->prog, stderr);
#endif
	if (!p || !p->nclauses)
		return true; /* no clause wants this process's probe */
	pr = proc_find(c, p->pid);
	if (!at.ppid) { /* not read at the hit (bpf.c's UBPF_RF_PPID) */
		/* a child the tree knows: its parent then, not a snapshot;
		 * -1 (unknown: ppid faults) once that parent had exited */
		f.ppid = lin_ppid_at(c, f.pid, f.timestamp);
		if (!f.ppid && pr)
			f.ppid = p->needs & D_NEED_PPID
					 ? ppid_kept(pr, f.timestamp)
					 : pr->ppid; /* read by no clause */
		else if (!f.ppid && (f.ppid = parent_of(NULL, f.pid)) <= 0)
			f.ppid = -1;
	}
	/* uid and gid: decode()'s, taken at the hit (f.cred), or none; a
	 * backend that takes none refused them (cred_check()) */
	kprov_site_fold(c, p->clauses, p->nclauses); /* a site like a tick */
	if (c->kagg_rec) /* the kernel ran the others (bpf_agg.c) */
		hit_run_kagg(c, &p->dp, p->clauses, p->epids, p->nclauses,
			     p->uclauses, p->uepids, p->nuclauses, &f);
	else
		hit_run(c, &p->dp, p->clauses, p->epids, p->nclauses, &f);
	return true;
}

static void hit_prep(struct consumer *c, struct d_fire *f)
{
	f->walltimestamp = f->timestamp + c->wall_offset;
	/* f->vtimestamp: the record's (vtime.c), where a clause reads it */
	f->copyin = copyin;
	f->copyin_ctx = c; /* deadmem.c: a process gone by now */
	f->copyout_w = copyout_w;
	c->co_wrote = false;
	f->wrote = &c->co_wrote;
	f->parent_of = parent_of;
	c->fire_t = f->timestamp; /* parent_of()'s time */
	ustack_fire(c, f); /* the stack decode() found in c->ucap */
	thread_seen(c, f->pid, f->tid);
}

void hit_run(struct consumer *c, const struct d_probe *dp, const unsigned *cl,
	     const unsigned *ep, unsigned n, struct d_fire *f)
{
	hit_prep(c, f);
#ifdef HAVE_BPF
	/* speculations in the kernel (kplan.h's d_kplan_kspec()): a hit
	 * whose record the plan did not run for (its process not armed
	 * at the event) touched no buffer's word, and the kernel counts
	 * the buffers: its speculating clauses are not run here (user
	 * space's buffers would step beside the kernel's), counted and
	 * said at the end (consumer.c) */
	/* ... and global arrays the kernel keeps (kplan_garr.c): a clause
	 * touching one would run on a second copy; not run, counted and
	 * said at the end.  But not counted where its predicate, of the
	 * record's values alone, is false (d_pred_false(): such a clause
	 * does nothing, so not running it is exact), as `pid == $target`
	 * at a kernel probe is for every other process */
	if (bpf_kspec_on(c) || bpf_garr_on(c)) {
		for (unsigned i = 0; i < n && !c->exit_called; i++) {
			bool spec = bpf_kspec_on(c) &&
				    d_kplan_specs(c->prog, cl[i]);

			if (spec || bpf_garr_clause(c, cl[i])) {
				f->epid = ep ? ep[i] : cl[i] + 1;
				f->probe = dp;
				if (d_pred_false(c->prog, cl[i], f))
					continue;
				if (spec)
					c->kspec_unarmed++;
				else
					c->garr_unarmed++;
				continue;
			}
			run_clauses(c, dp, &cl[i], ep ? &ep[i] : NULL, 1, f);
		}
		return;
	}
#endif
	run_clauses(c, dp, cl, ep, n, f);
}

#ifdef HAVE_BPF
/* A speculating clause user space runs from values the kernel computed
 * at the hit (kplan_spec.c's "Speculations")? */
static bool bpf_kagg_sout(struct consumer *c, unsigned clause)
{
	struct bpf_kagg *ka = bpf_kagg_of(c);

	return ka && d_kplan_sout(bpf_kagg_kp(ka), clause);
}
#endif

/*
 * The clauses the kernel ran are skipped, but one that faulted there
 * (cgen.c's fault sites) has its fault reported, and ERROR fired, in
 * its place: after the clauses before it, before those after it, as
 * d_run() would have had it fault here.
 */
void hit_run_kagg(struct consumer *c, const struct d_probe *dp,
		  const unsigned *cl, const unsigned *ep, unsigned n,
		  const unsigned *ucl, const unsigned *uep, unsigned nu,
		  struct d_fire *f)
{
	unsigned j = 0;
#ifdef HAVE_BPF
	struct cg_out_walk w = {0};
#endif

	if (!c->kfault && !c->kout) {
		hit_run(c, dp, ucl, uep, nu, f);
		return;
	}
	hit_prep(c, f);
	for (unsigned i = 0; i < n && !c->exit_called; i++) {
		int action;
		uint64_t addr;
		enum d_run_flt kind;

		bool user = j < nu && ucl[j] == cl[i];

#ifdef HAVE_BPF
		/* a speculating clause whose values are the kernel's (an
		 * area: not the in-process activation's record, whose
		 * plans, flags 0, have no such clause) */
		if (user && c->kout && bpf_kagg_sout(c, cl[i])) {
			f->epid = uep ? uep[j] : cl[i] + 1;
			f->probe = dp;
			j++;
			if (cg_out_run(c, cl[i], f, &w, &action) &&
			    (action & D_RUN_FAULT))
				fire_error(c, f);
			continue;
		}
#endif
#ifdef HAVE_BPF
		/* one whose self-> values the record carries, as they
		 * were at its place at the hit: set for it alone (an area
		 * that says it did not run: the hit did not reach it) */
		if (user) {
			struct dv *save = NULL;
			int vin = cg_out_vin(c, cl[i], f, &w, &save);

			if (vin >= 0) {
				/* (its predicate's truth the kernel's where
				 * it reads a self-> string: kplan_vin.c's
				 * vin_ptest()) */
				struct bpf_kagg *ka = bpf_kagg_of(c);

				if (vin > 0) {
					run_clauses_truth(
						c, dp, &ucl[j],
						uep ? &uep[j] : NULL, 1, f,
						ka && d_kplan_vtruth(
							      bpf_kagg_kp(ka),
							      cl[i]));
					cg_out_vin_end(c, cl[i], f, save);
				}
				j++;
				continue;
			}
		}
#endif
		if (user) {
			run_clauses(c, dp, &ucl[j], uep ? &uep[j] : NULL, 1, f);
			j++;
			continue;
		}
#ifdef HAVE_BPF
		f->epid = ep ? ep[i] : cl[i] + 1;
		f->probe = dp;
		/* a speculating clause the kernel ran (kplan.h's
		 * d_kplan_kspec()): its tags to the held generations at
		 * its place, then the fault it had (a site's, a copy's) */
		if (cg_kspec_run(c, cl[i], f, &w, c->ktaken, &action)) {
			if (action & D_RUN_FAULT)
				fire_error(c, f);
			continue;
		}
		/* printed from the values computed at the hit (cgen_out.c) */
		if (cg_out_run(c, cl[i], f, &w, &action)) {
			if (action & D_RUN_FAULT)
				fire_error(c, f);
			continue;
		}
		if (!bpf_kagg_fault(c, cl[i], f, &action, &kind, &addr))
			continue;
		if (d_run_fault(c->prog, cl[i], f, action, kind, addr, stderr) &
		    D_RUN_FAULT)
			fire_error(c, f);
#else
		(void)action;
		(void)addr;
		(void)kind;
#endif
	}
}

/*
 * Take what the backend has into the hits, not run yet: the fork-tree
 * facts among the records are applied as they are read (lineage.c).
 * The ticks due come first: every record a hit stamped before one of
 * them wrote by then is in the backend's buffers, and is read after.
 */
void drain_buffers(struct consumer *c)
{
	size_t n0 = c->nhits;

	/* a firing that folds: every program that stamped a hit before
	 * it has ended, its record written, before the ring is read
	 * (kplan_exit.c's "printa() at tick-N") */
	if (kprov_drain(c)) {
#ifdef HAVE_BPF
		bpf_barrier(c);
#endif
	}
	/*
	 * A tick drained runs in this round, after the hits stamped before
	 * it, so every record in the buffers now is read in this round:
	 * the round's cap is what they hold in all (c->buf_all), not one
	 * CPU's share.  With the share, a backlog past it (a flood, dtrace
	 * descheduled) ran a tick-N exit() before hits stamped earlier,
	 * which then never ran, and a printa() before hits it counted.
	 * The buffers hold no more than buf_all, and a record takes no
	 * more room in the arena than in them, so the first buf_all bytes
	 * read include every record there now; a backend that does not
	 * say (0) reads with no cap, as its reads end at what its buffers
	 * held when they began.  So do the in-process rings beside the
	 * ring (read_tick: inproc.c's reads end at each ring's head as
	 * they found it).
	 */
	c->read_tick = c->read_cap && c->nhits > n0;
	if (c->read_tick)
		c->read_cap = c->buf_all ? c->alen + c->buf_all : 0;
	c->be->drain(c);
	c->read_tick = false;
}

/* Keep the hits marked deferred (and their bytes) for the next read. */
static void hits_keep(struct consumer *c, size_t nkeep)
{
	uint8_t *old = c->arena;
	size_t oldlen = c->alen, n = 0;

	c->arena = NULL;
	c->alen = c->acap = 0;
	for (size_t i = 0; i < c->nhits; i++) {
		struct hit h = c->hits[i];

		if (!h.deferred && !h.later && !h.ks.later)
			continue;
		if (h.rawoff + h.rawlen + h.xlen <= oldlen)
			h.rawoff = arena_put(c, old + h.rawoff,
					     h.rawlen + h.xlen);
		c->hits[n++] = h;
	}
	free(old);
	c->nhits = n;
	(void)nkeep;
}

/*
 * Is a hit of pid kept for the next read (hit_kept())?  Its process is
 * let go only once none is (consumer.c's loop): proc_exited() forgets
 * the pid's probes, and a kept hit decoded after it would run no clause,
 * its speculation tags not handed over and no loss counted (revk3b's
 * B).
 */
bool hits_kept_of(const struct consumer *c, pid_t pid)
{
	return pid > 0 && hit_kept(c, pid, 0);
}

bool hits_kept_of_tid(const struct consumer *c, pid_t tid)
{
	return tid > 0 && hit_kept(c, 0, tid);
}

/*
 * One round of read_buffers(): records up to one CPU's -x bufsize
 * (c->rbsize) beyond the deferred hits, where the backend can stop
 * (bpf.c); the rest is read by the next round.  A round that drains a
 * tick reads all the buffers held (drain_buffers()).
 */
static void read_round(struct consumer *c)
{
	size_t nkeep = 0, ltick = SIZE_MAX;
	uint64_t due, b = UINT64_MAX;
	bool close = false;

	c->read_more = false;
	c->read_cap = c->alen + c->rbsize;
	/* the hits kept from the read before: their marks are this read's
	 * to make again (kspec_read.c) */
	for (size_t i = 0; i < c->nhits; i++)
		c->hits[i].ks.after = c->hits[i].ks.later = false;
	drain_buffers(c);
	c->read_cap = 0;
	if (!c->begun) {
		c->read_more = false;
		return; /* before BEGIN: they wait */
	}
#ifdef HAVE_BPF
	/*
	 * Speculations in the kernel (kspec_read.c, the rule): a read that
	 * holds a close reads the time B, waits for every program that
	 * started before it (the barrier), and drains the ring again,
	 * uncapped, those hits marked after
	 */
	if (bpf_kspec_on(c)) {
		struct ksr_hits v = { c->hits, c->nhits, sizeof(*c->hits),
				      offsetof(struct hit, ks) };

		if (ksr_close_in(&v)) {
			size_t nb = c->nhits;

			close = true;
			b = now_ns(CLOCK_MONOTONIC);
			bpf_barrier(c);
			c->be->drain(c);
			for (size_t i = nb; i < c->nhits; i++)
				c->hits[i].ks.after = true;
		}
	}
#endif
	for (size_t i = 0; i < c->nhits; i++)
		c->hits[i].raw = c->arena + c->hits[i].rawoff;
	if (c->nhits > 1)
		qsort(c->hits, c->nhits, sizeof(*c->hits), hit_cmp);
#ifdef HAVE_BPF
	/* ... then the cut at B (or at a close the second drain read) and
	 * the pass: the tags of every hit stamped before B (not the cut),
	 * in time order,
	 * before any hit runs (bpf_kspec_fire()).  A hit whose process the
	 * tree does not know after the uncapped drain (bpf_drain(): every
	 * child's FORK record is read with or before its hits) never will:
	 * its FORK record was lost, and with it, as the run will drop the
	 * hit, its tags: a record lost after its step (../d/spec.c's
	 * d_kspec_lost()), not a cut that would wait for it */
	if (close && !c->exit_called) {
		struct ksr_hits v = { c->hits, c->nhits, sizeof(*c->hits),
				      offsetof(struct hit, ks) };

		/* the pass goes to B, the cut hits included (kspec_read.c:
		 * a close run before the cut may need a tag of a hit stamped
		 * between the cut and B); after an exit() nothing runs, so
		 * nothing is handed over (BEGIN's exit: revk3b's C) */
		ksr_cut(&v, b);
		for (size_t i = 0; i < c->nhits; i++) {
			struct hit *h = &c->hits[i];

			if (h->ks.stamp >= b)
				break;
			if (h->ks.ktaken || !(h->ks.ks & UBPF_KOUT_SPEC))
				continue;
			if (!bpf_kspec_fire(c, h))
				d_kspec_lost(c->prog, stderr);
			h->ks.ktaken = true;
		}
	}
#endif
	due = kprov_next_due(c); /* after the ticks drained: not yet due */
	/* the read's last tick firing: once it has run, every firing
	 * drained has, and the horizon moves on at once (kplan_exit.c's "The
	 * flood"), not after the hits behind it */
	for (size_t i = 0; i < c->nhits; i++)
		if (c->hits[i].tick)
			ltick = i;
	for (size_t i = 0; i < c->nhits; i++) {
		bool run;

		/* dtrace is reading: the in-process recorder's heartbeat
		 * kept fresh while the hits run (inproc.c's ip_beat()) */
		ip_beat(c, false);
		/* a hit stamped at or past the next tick waits for it: the
		 * timer's expiry may come after the hit's record */
		c->hits[i].later = !c->exit_called && c->hits[i].time >= due;
		if (c->hits[i].later ||
		    (!c->exit_called && c->hits[i].ks.later)) {
			nkeep++;
			continue;
		}
		if (!c->exit_called) {
			c->run_xwon = c->hits[i].xwon;
			c->ktaken = c->hits[i].ks.ktaken;
			run = hit_process(c, &c->hits[i]);
			c->ktaken = false;
			c->run_xwon = false;
			if (c->exit_called && !c->kspec_until)
				c->kspec_until = c->hits[i].time;
			if (i == ltick && run)
				kprov_horizon(c); /* not after an exit() */
		} else if (c->kdrain && c->hits[i].act) {
			/* let through before the exit, in the kernel's
			 * order (kplan_exit.c's "exit() at a traced probe") */
			int status = c->status;

			c->exit_called = false;
			run = hit_process(c, &c->hits[i]);
			c->exit_called = true;
			c->status = status;
		} else {
			run = true; /* after the exit: not run */
			c->xrecs++;
			/* a program's, not a tick's dtrace made */
			c->xlate += c->xact_at && !c->hits[i].tick &&
				    c->hits[i].time >= c->xact_at;
		}

		/* a thread held at a copyout() probe goes on once its hit
		 * has run (its writes made); a deferred one stays held
		 * until it runs */
		if (run && c->held_tid)
			dlhold_hit_done(c->held_pid, c->held_tid);
		c->held_pid = c->held_tid = 0;
		if (!run) {
			c->hits[i].deferred = true;
			nkeep++;
			continue;
		}
		c->hits[i].deferred = false;
	}
	if (nkeep) {
		hits_keep(c, nkeep);
	} else {
		c->nhits = 0;
		c->alen = 0;
	}
	/* the firings run did not exit: the kernel's clauses go on to
	 * the next that may (kplan_exit.c's "Why exit()") */
	kprov_horizon(c);
	fflush(c->out);
}

/* A SIGINT, SIGTERM or SIGHUP waits for the loop (consumer.c's sfd). */
static bool stop_pending(void)
{
	sigset_t p;

	return sigpending(&p) == 0 &&
	       (sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1 ||
		sigismember(&p, SIGHUP) == 1);
}

bool read_buffers(struct consumer *c)
{
	/* after exit() one round, but at the end all: the records the
	 * kernel let through before its exit (kdrain) run whatever round
	 * they are in, and stopped rings fill no more */
	do
		read_round(c);
	while (c->read_more &&
	       (!c->exit_called || (c->kdrain && c->stopped)) &&
	       (c->done || !stop_pending()));
	/* false: a signal cut it, records of before it left unread */
	return !c->read_more || c->exit_called || c->done;
}

/* A firing in dtrace itself: BEGIN, END, tick-N (kprov.c). */
void fire_self(struct consumer *c, struct d_fire *f, char *comm,
	       size_t commlen)
{
	FILE *fp = fopen("/proc/self/comm", "re");

	snprintf(comm, commlen, "dtrace");
	if (fp) {
		if (fgets(comm, (int)commlen, fp))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
	}
	f->cpu = sched_getcpu();
	f->pid = getpid();
	f->tid = (pid_t)syscall(SYS_gettid);
	f->ppid = getppid();
	f->cred = true;
	f->uid = getuid();
	f->gid = getgid();
	f->psargs = psargs_self();
	f->ecred = true;
	f->euid = geteuid();
	f->egid = getegid();
	f->sess = true;
	f->pgid = getpgrp();
	f->sid = getsid(0);
	f->execname = comm;
	f->timestamp = now_ns(CLOCK_MONOTONIC);
	f->walltimestamp = now_ns(CLOCK_REALTIME);
	f->vtimestamp = now_ns(CLOCK_THREAD_CPUTIME_ID); /* dtrace's own */
	f->copyin = copyin;
	f->parent_of = parent_of;
	c->ucap.have = false; /* dtrace's own: names, no stack */
	ustack_fire(c, f);
}

/* dtrace's BEGIN and END: they fire in dtrace itself. */
void fire_dtrace(struct consumer *c, const struct d_probe *dp,
		 const unsigned *cl, unsigned n)
{
	struct d_fire f = {0};
	char comm[32];

	fire_self(c, &f, comm, sizeof(comm));
	run_clauses(c, dp, cl, NULL, n, &f);
}
