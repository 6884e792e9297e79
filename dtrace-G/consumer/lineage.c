// SPDX-License-Identifier: MIT
/*
 * lineage.c - which processes carry which armed sites, learnt from the
 * fork tree, and whose probe a hit is: the decision that makes every
 * hit fire exactly once, whatever way its process came to be traced.
 *
 * Why.  A site that a glob (srv*) matches is armed binary-wide: every
 * process running the file hits it, one record per hit, and the tree
 * says which of them count (traced, or forked from a traced process)
 * and under whose probe.  Otherwise the backend's perf events are
 * per-process, opened with inherit = 1, so threads created later are
 * traced; the kernel gives a forked child a
 * copy of every such event its parent has (copy_process(), before the
 * child runs), whose samples land in the parent's buffers with the
 * child's pid.  The child is then traced from its first instruction,
 * but if it also registers (drti.o's fork handler) or is otherwise
 * picked, arming its sites again would give two samples per hit.  So a
 * process gets its own events only for the sites it does not carry
 * already, and a hit is always decoded to the probe of the process it
 * came from, whichever events brought it.
 *
 * Facts.  The backend reports, from the same buffers as the hits:
 * lin_fork() (a new process or thread; for a process the kernel's
 * PERF_RECORD_FORK from a tracker event the parent carries, pid != ppid),
 * lin_exec() (PERF_RECORD_COMM with PERF_RECORD_MISC_COMM_EXEC),
 * lin_exit() (PERF_RECORD_EXIT of a thread), and, when it arms sites in
 * a process itself, lin_own() with a time taken while the process is
 * held still, or lin_know() where it armed sites no child inherits (the
 * bpf backend's site links), so that the process's exec is seen all the
 * same.  consumer.c adds lin_gone() when a traced process ends.  An
 * exec of a descendant of a glob's traced process that is not traced
 * itself makes it one (exec_follow()): its new image may be of a file
 * no event arms yet.
 * Each fact has its kernel time, and none depends on the order in which
 * facts arrive: the buffers are per CPU and are read one after another,
 * so a record can be read one read later than a younger one from
 * another CPU.  The facts make a tree of nodes, one per process life (a
 * pid reused later is a new node, told apart by birth and death times).
 *
 * Queries.  lin_carries(pid, site, t): the node of pid at t carries the
 * site if it armed it itself (lin_own, until an exec that drops such
 * events) or was forked, and has not exec'd since (when an exec drops
 * inherited events: remove_on_exec), from a node that carried it at the
 * fork.  Every fact a query needs was written before the query's
 * process did what made it asked (a child's FORK record before the
 * child ran, its exec before its new image registered), and the backend
 * drains its buffers (drain_buffers()) with the process held still
 * before it asks, so the answer is the kernel's truth.
 *
 * lin_hit_probe(pid, t, site): the probe of that process at that site:
 * the traced process's own, or for a child known only through the tree
 * one derived from the parent's (same file, same site, the provider with
 * the child's pid), matched against the clauses like any other: a child
 * counts only where a description matches it (srv$target does not,
 * srv* does).  A hit from a pid the tree does not know yet is kept for
 * one more read (its FORK record was written before it, so that read
 * has it), then dropped.
 *
 * lin_ppid_at(pid, t): pid's parent at t for ppid and progenyof(): the
 * FORK record's parent while that one lives, -1 once it has exited (the
 * child was reparented then, to a reaper the tree does not know), 0
 * where the tree has no FORK record of pid.
 *
 * Nodes are kept for the run (a few dozen bytes per fork); a process
 * whose events forked children keeps its events open after it exits
 * (closing them would take the children's copies away).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_impl.h"

#define T_NEVER UINT64_MAX

struct lnode {
	pid_t pid;
	pid_t ppid;	  /* forked from (FORK record), 0: no such record */
	uint64_t born;	  /* FORK time, or the first lin_own() */
	uint64_t dead;	  /* T_NEVER while alive (or not known dead) */
	bool by_fork;	  /* all its threads are known: dead when all exit */
	bool glob;	  /* forked where a glob's probes are (in_glob()) */
	struct lnode *older; /* an earlier life of the same pid */
	uint64_t *execs;
	size_t nexecs;
	struct {
		pid_t tid;
		uint64_t born, died;
	} *tids;
	size_t ntids;
	struct {
		const struct tfile *file;
		uint64_t off, since, until;
	} *own;
	size_t nown;
};

/* ------------------------------------------------------------------ */
/* Nodes by pid */

static size_t slot(const struct consumer *c, pid_t pid)
{
	size_t mask = c->lin.cap - 1, i;

	for (i = ((size_t)pid * 2654435761u) & mask; c->lin.by_pid[i];
	     i = (i + 1) & mask)
		if (c->lin.by_pid[i]->pid == pid)
			break;
	return i;
}

static struct lnode *newest(const struct consumer *c, pid_t pid)
{
	return c->lin.cap ? c->lin.by_pid[slot(c, pid)] : NULL;
}

static void set_newest(struct consumer *c, struct lnode *n)
{
	size_t i;

	if (2 * (c->lin.n + 1) > c->lin.cap) {
		struct lnode **old = c->lin.by_pid;
		size_t ocap = c->lin.cap;

		c->lin.cap = ocap ? 2 * ocap : 256;
		c->lin.by_pid = xcalloc(c->lin.cap, sizeof(*c->lin.by_pid));
		c->lin.n = 0;
		for (size_t k = 0; k < ocap; k++)
			if (old[k])
				set_newest(c, old[k]);
		free(old);
	}
	i = slot(c, n->pid);
	if (!c->lin.by_pid[i])
		c->lin.n++;
	c->lin.by_pid[i] = n;
}

/* The life of pid at time t, or NULL. */
static struct lnode *node_at(const struct consumer *c, pid_t pid, uint64_t t)
{
	struct lnode *n = newest(c, pid);

	while (n && n->born > t)
		n = n->older;
	return n && n->dead >= t ? n : NULL;
}

/* A new life of pid, born at t, put in birth order. */
static struct lnode *node_new(struct consumer *c, pid_t pid, uint64_t t)
{
	struct lnode *n = xcalloc(1, sizeof(*n)), *h = newest(c, pid);

	n->pid = pid;
	n->born = t;
	n->dead = T_NEVER;
	PUSH(c->lin.all, c->lin.nall, n);
	if (!h || h->born <= t) {
		n->older = h;
		set_newest(c, n);
		return n;
	}
	while (h->older && h->older->born > t)
		h = h->older;
	n->older = h->older;
	h->older = n;
	return n;
}

static void tid_event(struct lnode *n, pid_t tid, uint64_t born,
		      uint64_t died)
{
	size_t i;

	for (i = 0; i < n->ntids && n->tids[i].tid != tid; i++)
		;
	if (i == n->ntids) {
		n->tids = xpush_room(n->tids, n->ntids, sizeof(*n->tids));
		n->tids[n->ntids++] = (typeof(*n->tids)){tid, born, died};
		return;
	}
	if (born < n->tids[i].born)
		n->tids[i].born = born;
	if (died != T_NEVER &&
	    (n->tids[i].died == T_NEVER || died > n->tids[i].died))
		n->tids[i].died = died;
}

/* A node whose threads all came through FORK records dies with the last. */
static void node_check_dead(struct lnode *n)
{
	uint64_t last = 0;

	if (!n->by_fork)
		return;
	for (size_t i = 0; i < n->ntids; i++) {
		if (n->tids[i].died == T_NEVER)
			return;
		if (n->tids[i].died > last)
			last = n->tids[i].died;
	}
	n->dead = last;
}

/* ------------------------------------------------------------------ */
/* Facts */

/* Has pid, traced, a probe some glob enables (sites.c: tprobe.wide)? */
static bool proc_wide(const struct consumer *c, pid_t pid)
{
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->pid == pid && c->probes[i]->wide)
			return true;
	return false;
}

/*
 * Is n, forked, a descendant of a traced process one of whose probes a
 * glob enables (srv* under -c or -p: the target's progeny)?  Asked at
 * its fork, while its ancestors live (a process's probes are let go at
 * its exit), and again at its exec, for probes made since.
 */
static bool in_glob(struct consumer *c, const struct lnode *n)
{
	for (unsigned depth = 0; n->ppid > 0 && depth < 4096; depth++) {
		const struct lnode *p = node_at(c, n->ppid, n->born);
		const struct tproc *pr = proc_find(c, n->ppid);

		/* a traced process whose sites are all binary-wide has no
		 * node of its own (no lin_own(), lin_know()) */
		if (!p || p->dead == T_NEVER)
			if (pr && !pr->exited && proc_wide(c, pr->pid))
				return true;
		if (!p || p == n)
			return false;
		if (p->glob)
			return true;
		n = p;
	}
	return false;
}

/*
 * pid, forked from a glob's traced process and not traced itself, exec'd
 * (t): its new image may be a file no traced process maps, whose sites
 * no event arms.  It becomes a traced process (proc_add()), as a
 * registration would make it: the next read of its maps (the 100 ms
 * refresh; not here, in the middle of reading the buffers) finds its
 * probes and arms them.  Its events then carry the tracker to its own
 * children.  A fork child is not held (dlhold.c seizes threads, not
 * forks), so what its image fires before that read is not counted: said
 * once a run by sites.c (exec_late_say()).  Under -x activation=user,
 * inproc_exec.c follows such an exec itself.
 */
static void exec_follow(struct consumer *c, struct lnode *n)
{
	struct tproc *pr;

	if (c->ip || !n->by_fork || !(n->glob || in_glob(c, n)))
		return;
	if (!(pr = proc_add(c, n->pid, false)))
		return; /* exited meanwhile */
	pr->followed = true;
}

void lin_fork(struct consumer *c, pid_t ppid, pid_t pid, pid_t tid,
	      uint64_t t)
{
	struct lnode *n;
	struct tproc *pp;

	if (pid <= 0 || ppid <= 0)
		return;
	if (pid == ppid) { /* a thread */
		n = node_at(c, pid, t);
		if (n)
			tid_event(n, tid, t, T_NEVER);
		return;
	}
	/*
	 * Each tracker event the parent carries writes a record (its own
	 * and one inherited): one fork, one node.
	 */
	for (n = newest(c, pid); n; n = n->older)
		if (n->by_fork && n->ppid == ppid &&
		    (n->dead == T_NEVER || n->dead >= t) &&
		    (n->born >= t ? n->born - t : t - n->born) < 1000000u) {
			if (t < n->born)
				n->born = t;
			return;
		}
	n = node_new(c, pid, t);
	n->ppid = ppid;
	n->by_fork = true;
	tid_event(n, pid, t, T_NEVER);
	if ((pp = proc_find(c, ppid)))
		pp->forked = true;
	n->glob = in_glob(c, n);
	/* its exec read before this record (another CPU's buffer) */
	for (size_t i = 0; i < c->lin.nxpend; i++) {
		uint64_t xt = c->lin.xpend[i].t;

		if (c->lin.xpend[i].pid != pid || xt < t)
			continue;
		c->lin.xpend[i--] = c->lin.xpend[--c->lin.nxpend];
		lin_exec(c, pid, xt);
	}
}

void lin_exec(struct consumer *c, pid_t pid, uint64_t t)
{
	struct lnode *n = node_at(c, pid, t);
	struct tproc *pr = proc_find(c, pid);

	if (!n) {
		/*
		 * kept for its FORK record, which another CPU's buffer may
		 * hold: a traced process's own exec without a node is
		 * followed by its backend (dlhold.c), and dropped here
		 */
		if ((!pr || pr->exited) && c->lin.nxpend < 4096) {
			c->lin.xpend = xpush_room(c->lin.xpend, c->lin.nxpend,
						  sizeof(*c->lin.xpend));
			c->lin.xpend[c->lin.nxpend].pid = pid;
			c->lin.xpend[c->lin.nxpend++].t = t;
		}
		return;
	}
	for (size_t i = 0; i < n->nexecs; i++)
		if (n->execs[i] == t)
			return;
	PUSH(n->execs, n->nexecs, t);
	/* before proc_exec_reset() drops the maps of the image it leaves */
	ustack_proc_exec(c, pid, t);
	if (!pr) {
		exec_follow(c, n);
		return;
	}
	if (!c->lin.exec_drops)
		return;
	/* its own armed sites went with the old image */
	for (size_t i = 0; i < n->nown; i++)
		if (n->own[i].since < t && n->own[i].until > t)
			n->own[i].until = t;
	if (!pr->exited)
		proc_exec_reset(c, pr);
}

/*
 * pr exec'd: its sites went with the old image, so its probes are
 * found (its maps read again) and armed anew: lin_exec() above, and
 * fasttrap.c on the module's FT_COOKIE_EXEC record.
 */
void proc_exec_reset(struct consumer *c, struct tproc *pr)
{
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->pid == pr->pid)
			c->probes[i]->enabled = false;
	free(pr->files);
	pr->files = NULL;
	pr->nfiles = 0;
	free(pr->maps);
	pr->maps = NULL;
	pr->reimaged = true; /* its next maps are a new image's */
	pr->exe_unseen = true;
	pr->resets++;
	if (c->be->proc_exec)
		c->be->proc_exec(c, pr);
}

/*
 * The image pid ran at t, for ustack.c: the time of the exec() that
 * loaded it (0: none known since its life began) and of the next one
 * (T_NEVER: none known).  A hit's modules are those of its image, not
 * of the one the process runs when its record is read.
 */
void lin_image(struct consumer *c, pid_t pid, uint64_t t, uint64_t *since,
	       uint64_t *until)
{
	const struct lnode *n = node_at(c, pid, t);

	*since = 0;
	*until = T_NEVER;
	for (size_t i = 0; n && i < n->nexecs; i++) {
		if (n->execs[i] <= t && n->execs[i] > *since)
			*since = n->execs[i];
		if (n->execs[i] > t && n->execs[i] < *until)
			*until = n->execs[i];
	}
}

void lin_exit(struct consumer *c, pid_t pid, pid_t tid, uint64_t t)
{
	struct lnode *n = node_at(c, pid, t);

	if (!n)
		return;
	tid_event(n, tid, 0, t);
	node_check_dead(n);
}

void lin_gone(struct consumer *c, pid_t pid, uint64_t t)
{
	struct lnode *n = node_at(c, pid, t);

	if (n && n->dead == T_NEVER)
		n->dead = t;
}

void lin_own(struct consumer *c, pid_t pid, struct tfile *f, uint64_t off,
	     uint64_t t)
{
	struct lnode *n = node_at(c, pid, t);

	if (!n)
		n = node_new(c, pid, t);
	n->own = xpush_room(n->own, n->nown, sizeof(*n->own));
	n->own[n->nown++] = (typeof(*n->own)){f, off, t, T_NEVER};
}

/*
 * pid traced from t though it owns no site its children inherit (its
 * sites are site links, bpf_attach.c): in the tree all the same, so
 * that its exec is seen (lin_exec()) and its image armed anew.
 */
void lin_know(struct consumer *c, pid_t pid, uint64_t t)
{
	if (!node_at(c, pid, t))
		(void)node_new(c, pid, t);
}

/* ------------------------------------------------------------------ */
/* Queries */

static bool node_carries(const struct consumer *c, const struct lnode *n,
			 const struct tfile *f, uint64_t off, uint64_t t,
			 unsigned depth)
{
	const struct lnode *p;

	for (size_t i = 0; i < n->nown; i++)
		if (n->own[i].file == f && n->own[i].off == off &&
		    n->own[i].since <= t && t < n->own[i].until)
			return true;
	if (!n->ppid || depth > 4096)
		return false;
	if (c->lin.exec_drops)
		for (size_t i = 0; i < n->nexecs; i++)
			if (n->execs[i] > n->born && n->execs[i] <= t)
				return false;
	p = node_at(c, n->ppid, n->born);
	return p && p != n && node_carries(c, p, f, off, n->born, depth + 1);
}

bool lin_carries(struct consumer *c, pid_t pid, const struct tfile *f,
		 uint64_t off, uint64_t t)
{
	const struct lnode *n = node_at(c, pid, t);

	return n && node_carries(c, n, f, off, t, 0);
}

uint64_t lin_newest_born(struct consumer *c, pid_t pid)
{
	const struct lnode *n = newest(c, pid);

	return n ? n->born : 0;
}

bool lin_forked(struct consumer *c, pid_t pid, uint64_t t)
{
	const struct lnode *n = node_at(c, pid, t);

	return n && n->ppid;
}

/* pid's probe at a site, through a small cache (one lookup per hit). */
static struct tprobe *cached_probe(struct consumer *c, pid_t pid,
				   const struct hit_at *at, bool derive)
{
	size_t mask, i;
	struct tprobe *p;

	if (!c->lin.capcache) {
		c->lin.capcache = 1024;
		c->lin.cache =
			xcalloc(c->lin.capcache, sizeof(*c->lin.cache));
	}
	mask = c->lin.capcache - 1;
	i = ((size_t)pid * 2654435761u ^ (size_t)at->off ^
	     (size_t)(uintptr_t)at->file) &
	    mask;
	p = c->lin.cache[i].p;
	if (p && c->lin.cache[i].pid == pid && c->lin.cache[i].file == at->file &&
	    c->lin.cache[i].off == at->off && p->pid == pid)
		return p;
	p = probe_at_site(c, pid, at->file, at->off, derive);
	if (p) {
		c->lin.cache[i].pid = pid;
		c->lin.cache[i].file = at->file;
		c->lin.cache[i].off = at->off;
		c->lin.cache[i].p = p;
	}
	return p;
}

struct tprobe *lin_hit_probe(struct consumer *c, pid_t pid, uint64_t t,
			     const struct hit_at *at, bool *defer)
{
	struct tprobe *p;

	*defer = false;
	if (!at->file)
		return NULL;
	if (proc_find(c, pid))
		return cached_probe(c, pid, at, c->lin.on);
	if (!c->lin.on)
		return NULL; /* its process exited */
	if (!node_at(c, pid, t)) {
		*defer = true; /* its FORK record is in a buffer not read yet */
		return NULL;
	}
	p = cached_probe(c, pid, at, true);
	return p;
}

/*
 * The pids of the processes the tree holds alive that are not traced
 * processes (c->procs): descendants known only through their FORK
 * records (only traced processes and what they forked carry the
 * tracker), for up_wide_open() (uprobe.c) to hold still.  A process whose
 * EXIT records are not read yet is listed too: the caller drains the
 * buffers first.  *out is the caller's to free.
 */
size_t lin_untraced_alive(struct consumer *c, pid_t **out)
{
	size_t n = 0;

	*out = NULL;
	for (size_t i = 0; i < c->lin.cap; i++) {
		const struct lnode *nd = c->lin.by_pid[i];

		if (nd && nd->by_fork && nd->dead == T_NEVER &&
		    !proc_find(c, nd->pid))
			PUSH(*out, n, nd->pid);
	}
	return n;
}

/*
 * The parent of pid at t, for ppid and progenyof(): the process its FORK
 * record names while that one lives; once it has exited the child has a
 * new parent (a reaper) the tree does not know: 0, as for a pid without
 * a FORK record.
 */
pid_t lin_ppid_at(struct consumer *c, pid_t pid, uint64_t t)
{
	const struct lnode *n = node_at(c, pid, t), *p;

	if (!n || !n->ppid)
		return 0;
	p = node_at(c, n->ppid, n->born);
	return p && p->dead != T_NEVER && p->dead < t ? -1 : n->ppid;
}

/*
 * The parent of pid's newest life, as its FORK record said (0: none
 * known), for ustack.c: a child that exited before its hits were read
 * maps what its parent mapped at the fork.
 */
pid_t lin_parent(struct consumer *c, pid_t pid)
{
	const struct lnode *n = newest(c, pid);

	return n ? n->ppid : 0;
}
