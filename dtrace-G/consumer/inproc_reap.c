// SPDX-License-Identifier: MIT
/*
 * inproc_reap.c - what -x activation=user leaves in a process put back
 * when nothing else will (doc/DESIGN.md §14, "Consumer gone"): by the
 * reaper after a SIGKILL of dtrace, and by dtrace's own end in the fork
 * children of the processes it armed (inproc.c has the mechanism).
 *
 * The reaper.  When dtrace makes its first arena (ip_arena_make(),
 * through ip_reap_tell()) it forks a child of its own, the reaper, with
 * one end of a socket pair; every arena made from then on is told to it
 * (its memfd's inode, the process, that process's image token) before
 * the process maps it.  dtrace's end says so (ip_reap_end()) and the
 * reaper exits.  A dtrace that dies without saying it (SIGKILL, a
 * crash, an exit on an error) closes the socket by dying: the reaper
 * reads EOF, puts back what is left in every process it can find that
 * maps one of the arenas it was told of, and exits.  A forked child and
 * not dtrace-helperd: the helper is not running in every run that arms
 * in-process (-p, -c need no registry), it serves every user's
 * processes' blobs (the power to hold a process and write its text
 * would widen what a flaw there gives), and a child of dtrace has
 * dtrace's code and knowledge already, down to how a file's symbols and
 * notes are read.  Its name is dtrace-reaper (ps).  It leaves dtrace's
 * session (a ^C or a SIGHUP for dtrace is not for it), closes every descriptor
 * dtrace had open but the socket and stderr (a probe's BPF link or perf event
 * would otherwise outlive dtrace in it), before dtrace goes on (fdclose.c's
 * child_detach(), as the closer's start), and exits with _exit(), so nothing
 * dtrace registered for its own exit runs twice.  A dying dtrace closes its
 * descriptors before it lets go of the processes it traces (ptrace), and
 * reparents its children after: the reaper holds nothing before it is
 * reparented.
 *
 * What is put back (reclaim()), the process held, exactly as dtrace's
 * end does it (inproc_stop.c's ip_disarm(), with its holding, its
 * thread let run out of a recorder and its injected close and munmap):
 * what is armed is read from the process itself, so that nothing dtrace
 * learned after the fork need reach the reaper.  Every site of a file
 * that carries the recorder whose bytes are a call to that file's
 * recorder (or `mov $1` over the is-enabled NOPs) where the file has
 * -G's NOPs (ip_call_stale(), which a take-over decides by too) gets
 * them back; every control block goes to 0; the semaphores the arena's
 * log says were raised in that process's image (ip_semlog_valid(), a
 * take-over's rule) go down, the entry zeroed first; descriptor
 * USDT_EXEC_FD is closed where it holds one of the arenas told; the
 * arena is unmapped.  Only in a process that maps an arena told to it,
 * whose image token is the one that arena was made under (an exec'd
 * image is never touched: its token is new), and that no other dtrace
 * traces in-process now (an arena not told whose heartbeat is fresh:
 * a later dtrace took it over); a process the reaper cannot hold is
 * left, said.  The processes looked at are those the arenas were made
 * in and their descendants by parent pid (/proc), which finds the fork
 * children that inherited the armed text and the arena.
 *
 * Fork children at dtrace's end (ip_reap_children()).  A child shares
 * its parent's arena and keeps the calls it inherited: dtrace puts back
 * in it what the reaper would, through the same reclaim(), after the
 * processes it armed are disarmed; the children dtrace's fork tree
 * knows and the descendants (by parent pid) of those it armed.  The
 * semaphores a child inherited are logged under its parent's pid, so
 * they come from the parent's own list instead: each raise's time
 * (CLOCK_BOOTTIME, taken with the parent held, when no fork can happen)
 * against the start of the parent's child it descends from (clock
 * ticks of the same clock): a start a tick after the raise or later
 * inherited it, one ending before it did not, one in the same tick (or
 * a child found only through the fork tree) is left up, said.  The
 * reaper does not lower a child's inherited semaphores (the parent's
 * list died with dtrace).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#include "procfs.h"
#include "inproc.h"

#if defined(__x86_64__)

enum { REAP_ARENA = 1, REAP_END = 2 };

/* A process to put back, and where it descends from. */
struct rp_proc {
	pid_t pid;
	pid_t root;	 /* the process whose arena it may map */
	uint64_t kid_at; /* ns after boot: the start of root's child it
			    descends from (0: itself root, or unknown) */
	bool known_kid;	 /* kid_at tells which of root's raises it has */
};

/* pid's parent and start (clock ticks after boot); false: gone. */
static bool proc_ppid(pid_t pid, pid_t *ppid, uint64_t *start)
{
	char st[1024], *q;
	struct proc_stat ps;
	int pp;

	if (proc_read_file(pid, "stat", st, sizeof(st)) < 0 ||
	    proc_stat_parse(st, &ps, NULL, 0) < 0 || !(q = strrchr(st, ')')) ||
	    sscanf(q + 1, " %*c %d", &pp) != 1)
		return false;
	*ppid = pp;
	*start = ps.start;
	return true;
}

/* A start time in clock ticks, in ns after boot. */
static uint64_t kid_ns(uint64_t start, long tick)
{
	return start * (1000000000u / (uint64_t)tick);
}

/*
 * The live descendants (by parent pid) of the processes in *v[0..n),
 * appended to it, each with the start of its ancestor that is a child
 * of its root; a process of them that is a child of another (a fork
 * child armed with an arena of its own) takes that one's root.  A child
 * reparented after its parent died is not found this way.
 */
static void descendants(struct rp_proc **v, size_t *n)
{
	long tick = sysconf(_SC_CLK_TCK);
	struct {
		pid_t pid, ppid;
		uint64_t start;
	} *all = NULL;
	size_t nall = 0;
	DIR *d = proc_dir_open(0);
	pid_t pid;
	bool more = true;

	if (!d)
		return;
	while ((pid = proc_dir_next(d)) > 0) {
		pid_t pp;
		uint64_t st;

		if (proc_ppid(pid, &pp, &st)) {
			all = xrealloc(all, nall + 1, sizeof(*all));
			all[nall].pid = pid;
			all[nall].ppid = pp;
			all[nall++].start = st;
		}
	}
	closedir(d);
	/* a root that is another's child (it registered, armed anew) */
	for (size_t k = 0; k < *n; k++)
		for (size_t i = 0; i < nall; i++) {
			struct rp_proc *r = &(*v)[k];

			if (all[i].pid != r->pid || r->root != r->pid ||
			    r->kid_at)
				continue;
			for (size_t j = 0; j < *n; j++)
				if (j != k && (*v)[j].pid == all[i].ppid) {
					r->root = (*v)[j].root;
					r->kid_at = (*v)[j].kid_at;
					r->known_kid = (*v)[j].known_kid;
					if (!r->kid_at) {
						r->kid_at = kid_ns(all[i].start,
								   tick);
						r->known_kid = true;
					}
					break;
				}
		}
	while (more) {
		more = false;
		for (size_t i = 0; i < nall; i++) {
			size_t k, at = *n;

			for (k = 0; k < *n && (*v)[k].pid != all[i].pid; k++)
				;
			if (k < *n)
				continue; /* had */
			for (k = 0; k < *n && at == *n; k++)
				if ((*v)[k].pid == all[i].ppid)
					at = k;
			if (at == *n)
				continue;
			{
				struct rp_proc r = (*v)[at];

				r.pid = all[i].pid;
				/* a child of the root itself: its start */
				if (!r.kid_at) {
					r.kid_at = kid_ns(all[i].start, tick);
					r.known_kid = true;
				}
				PUSH(*v, *n, r);
			}
			more = true;
		}
	}
	free(all);
}

/* Does an arena not told, with a fresh heartbeat, map in pid? */
static bool other_beats(struct consumer *c, pid_t pid,
			const struct proc_maps *mm)
{
	struct inproc *ip = c->ip;

	for (size_t m = 0; m < mm->n; m++) {
		const struct proc_map *pm = &mm->m[m];
		struct usdt_arena a;
		bool told = false;

		if (!pm->path || strncmp(pm->path, "/memfd:usdt-arena", 17) ||
		    pm->end - pm->start < sizeof(a))
			continue;
		for (size_t k = 0; k < ip->ntold && !told; k++)
			told = ip->told[k].ino == pm->ino;
		if (told ||
		    ip_mem_rw(pid, pm->start, &a, sizeof(a), false) < 0 ||
		    a.magic != USDT_ARENA_MAGIC)
			continue;
		if (a.hb && a.hb_limit &&
		    (int64_t)(rdtsc_now() - a.hb) < (int64_t)a.hb_limit)
			return true;
	}
	return false;
}

/* A site of o's file at off that holds a call a run of ours wrote. */
static void site_add(struct ip_proc *ipp, const struct ip_obj *o, uint64_t off,
		     bool en)
{
	uint64_t a = ip_off_to_addr(o->file, o->bias, off);
	struct ip_site s = { 0 };
	uint8_t cur[5], fb[6];

	if (!a || ip_mem_rw(ipp->pid, a, cur, sizeof(cur), false) < 0 ||
	    ip_file_bytes(o->file, off, fb) < 0 ||
	    !ip_call_stale(cur, fb, a, o->rec, en))
		return;
	for (size_t i = 0; i < ipp->nsites; i++)
		if (ipp->sites[i].addr == a)
			return;
	s.addr = a;
	s.file = o->file;
	s.off = off;
	memcpy(s.orig, fb, sizeof(s.orig));
	memcpy(s.armed, cur, sizeof(s.armed));
	s.len = 5;
	s.enabled = en;
	PUSH(ipp->sites, ipp->nsites, s);
}

/*
 * The semaphores rp's process inherited from its root, whose arena's
 * owner (this run's ip_proc of that arena) raised them: those raised
 * before the fork of the root's child it descends from.  In dtrace
 * only (the reaper has no such list).
 */
static void inherited_semas(struct consumer *c, struct ip_proc *ipp,
			    const struct rp_proc *rp,
			    const struct proc_maps *mm, const struct tproc *pr)
{
	struct inproc *ip = c->ip;
	uint64_t tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
	size_t unsure = 0;

	for (size_t i = 0; i < ip->nprocs; i++) {
		const struct ip_proc *o = ip->procs[i];

		if (o->ino != ipp->ino)
			continue;
		for (size_t k = 0; k < o->nsemas; k++) {
			const struct ip_sema *s = &o->semas[k];
			struct tfile *f;

			if (o->pid != rp->root || !rp->known_kid || !s->up ||
			    (rp->kid_at <= s->up &&
			     rp->kid_at + tick > s->up)) {
				unsure++;
				continue;
			}
			if (rp->kid_at < s->up) /* forked before the raise */
				continue;
			f = ip_note_sema(pr, mm, s->addr);
			if (f)
				PUSH(ipp->semas, ipp->nsemas,
				     ((struct ip_sema){ s->addr, f, 0, 0 }));
		}
	}
	if (unsure)
		say(c,
		    "fork child %d: %zu semaphores its parent raised stay up "
		    "(raised in the clock tick it was forked in, or it was "
		    "found through the fork tree)",
		    (int)ipp->pid, unsure);
}

/*
 * What this run left in rp's process through the arena t, put back
 * (the file's comment).  reaper: the process's own semaphores come
 * from t's log, its inherited ones are left; else (dtrace's end, a
 * fork child) its inherited ones come from its root's list.
 */
static void reclaim(struct consumer *c, const struct rp_proc *rp,
		    const struct ip_told *t, bool reaper)
{
	struct tproc pr = { .pid = rp->pid, .pidfd = -1 };
	struct proc_maps mm = { 0 };
	struct ip_proc ipp = { .pid = rp->pid, .pr = &pr, .ino = t->ino };
	const struct proc_map *am = NULL, *m;
	uint64_t tok[2];
	char p[128], why[PATH_MAX + 256];
	int fd;

	if (proc_maps_read(rp->pid, &mm) < 0)
		return;
	for (size_t i = 0; i < mm.n && !am; i++)
		if (mm.m[i].ino == t->ino && mm.m[i].path &&
		    !strncmp(mm.m[i].path, "/memfd:usdt-arena", 17) &&
		    mm.m[i].off == 0)
			am = &mm.m[i];
	/* not mapped, or an image of its since (exec): not ours to touch */
	if (!am || ip_image_token(rp->pid, tok) < 0 || tok[0] != t->tok)
		goto out;
	if (other_beats(c, rp->pid, &mm)) {
		say(c,
		    "pid %d: another dtrace traces it in-process now: what a "
		    "dead one armed there is left to it",
		    (int)rp->pid);
		goto out;
	}
	ipp.taddr = am->start;
	ipp.len = am->end - am->start;
	(void)proc_map_files_path(p, sizeof(p), rp->pid, am);
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		void *v = mmap(NULL, ipp.len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);

		close(fd);
		ipp.map = v == MAP_FAILED ? NULL : v;
	}
	if (!ipp.map) {
		say(c, "pid %d: its ring buffer cannot be opened (%s): left",
		    (int)rp->pid, p);
		goto out;
	}
	for (size_t i = 0; (m = proc_maps_next_file(&mm, &i));) {
		struct tfile *f = file_get(c, rp->pid, m);

		if (f && !f->failed)
			PUSH(pr.files, pr.nfiles, f);
	}
	for (size_t i = 0; i < pr.nfiles; i++)
		if (ip_file_has_rec(pr.files[i]))
			(void)ip_proc_obj(&ipp, pr.files[i], &mm, why,
					  sizeof(why));
	for (size_t i = 0; i < ipp.nobjs; i++) {
		const struct ip_obj *o = &ipp.objs[i];
		const struct tfile *f = o->file;
		uint64_t off;

		for (size_t k = 0; k < f->nnotes; k++)
			site_add(&ipp, o, f->notes[k].off, false);
		for (size_t k = 0; k < f->pl.n; k++) {
			const struct dt_probe *dp = &f->pl.v[k];

			if (!dp->addr_known)
				continue;
			for (unsigned s = 0; s < dp->nsites; s++)
				if (vaddr_to_off(f, dp->sites[s], &off))
					site_add(&ipp, o, off, false);
			for (unsigned s = 0; s < dp->nensites; s++)
				if (vaddr_to_off(f, dp->ensites[s], &off))
					site_add(&ipp, o, off, true);
		}
	}
	if (reaper && rp->pid == t->pid) {
		const struct usdt_semlog *l =
			(const struct usdt_semlog *)(ipp.map + USDT_SEMLOG_OFF);

		for (uint32_t i = 0; i < USDT_NSEMLOG; i++) {
			struct usdt_semlog e = l[i];
			struct tfile *f;

			if (ip_semlog_valid(&pr, &mm, &e, tok) &&
			    (f = ip_note_sema(&pr, &mm, e.addr)))
				PUSH(ipp.semas, ipp.nsemas,
				     ((struct ip_sema){ e.addr, f, i + 1, 0 }));
		}
	} else if (!reaper) {
		inherited_semas(c, &ipp, rp, &mm, &pr);
	}
	ip_disarm(c, &ipp);
	munmap(ipp.map, ipp.len);
	free(ipp.sites);
	free(ipp.objs);
	free(ipp.semas);
	free(ipp.hist);
	free(ipp.hbucket);
	free(ipp.hnext);
	free(pr.files);
out:
	proc_maps_free(&mm);
}

/*
 * Every process of v (and its descendants) that maps an arena told: put
 * back.  dtrace's end (!reaper) leaves each process's own arena to its
 * own disarm (done), and does its children's.
 */
static void reclaim_all(struct consumer *c, struct rp_proc *v, size_t n,
			bool reaper)
{
	struct inproc *ip = c->ip;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ip->ntold; k++)
			if (reaper || ip->told[k].pid != v[i].pid)
				reclaim(c, &v[i], &ip->told[k], reaper);
	free(v);
}

/* The processes arenas were made in, each its own root, once. */
static void roots(struct consumer *c, struct rp_proc **v, size_t *n)
{
	struct inproc *ip = c->ip;

	for (size_t k = 0; k < ip->ntold; k++) {
		bool had = false;

		for (size_t i = 0; i < *n && !had; i++)
			had = (*v)[i].pid == ip->told[k].pid;
		if (!had)
			PUSH(*v, *n,
			     ((struct rp_proc){ ip->told[k].pid,
						ip->told[k].pid, 0, false }));
	}
}

/* The reaper: told each arena until dtrace ends, or dies (EOF). */
static __attribute__((noreturn)) void reaper(struct consumer *c, int sk)
{
	struct inproc *ip = c->ip;
	struct rp_proc *v = NULL;
	size_t n = 0;
	sigset_t none;
	pid_t dt = getppid();

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the socket at 3, stderr kept, the rest of dtrace's closed */
	child_detach(sk, "dtrace-reaper", true); /* ps names it */
	c->out = stderr; /* say() flushes it: not dtrace's stdout's buffer */
	for (;;) {
		struct ip_told t;
		ssize_t r = recv(3, &t, sizeof(t), 0);
		bool had = false;

		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof(t))
			break; /* EOF: dtrace died without saying it ended */
		if (t.kind == REAP_END)
			_exit(0);
		for (size_t k = 0; k < ip->ntold && !had; k++)
			had = ip->told[k].ino == t.ino;
		if (!had)
			PUSH(ip->told, ip->ntold, t);
	}
	/*
	 * Its socket closes before the exiting dtrace lets go of the
	 * processes it may hold (ptrace): the reaper is reparented only
	 * after, so it waits for that (10 s at most) before it holds any.
	 */
	for (int w = 0; getppid() == dt && w < 10000; w++)
		usleep(1000);
	roots(c, &v, &n);
	descendants(&v, &n);
	reclaim_all(c, v, n, true);
	fflush(stderr);
	_exit(0);
}

/* The reaper started: false, said, when it cannot be. */
static bool reap_start(struct consumer *c)
{
	struct inproc *ip = c->ip;
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto bad;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		goto bad;
	}
	if (pid == 0) {
		close(sv[0]);
		reaper(c, sv[1]);
	}
	close(sv[1]);
	if (!child_wait(sv[0])) { /* it holds nothing else of dtrace's */
		close(sv[0]);
		errno = ECHILD;
		goto bad;
	}
	ip->reap_fd = sv[0] + 1;
	ip->reap_pid = pid;
	return true;
bad:
	say(c,
	    "the reaper could not be started (%s): a SIGKILL of dtrace will "
	    "leave its calls and ring buffers in the processes it armed",
	    strerror(errno));
	ip->reap_pid = -1; /* not tried again */
	return false;
}

/*
 * The arena of memfd ino is being made in pid (held): the reaper, started
 * at the first, knows it before the process maps it.
 */
void ip_reap_tell(struct consumer *c, pid_t pid, uint64_t ino)
{
	struct inproc *ip = c->ip;
	struct ip_told t = { .ino = ino, .pid = pid, .kind = REAP_ARENA };
	uint64_t tok[2];

	if (ip_image_token(pid, tok) == 0)
		t.tok = tok[0];
	PUSH(ip->told, ip->ntold, t);
	if (!ip->reap_fd && ip->reap_pid >= 0 && !reap_start(c))
		return;
	if (ip->reap_fd > 0)
		(void)send(ip->reap_fd - 1, &t, sizeof(t), MSG_NOSIGNAL);
}

/* At dtrace's end, the processes it armed disarmed: their children. */
void ip_reap_children(struct consumer *c)
{
	struct inproc *ip = c->ip;
	struct rp_proc *v = NULL;
	pid_t *lin = NULL;
	size_t n = 0, nl;

	if (!ip->ntold)
		return;
	roots(c, &v, &n);
	descendants(&v, &n);
	/* the fork tree's others, reparented perhaps: their root unknown */
	nl = lin_untraced_alive(c, &lin);
	for (size_t i = 0; i < nl; i++) {
		bool had = false;

		for (size_t k = 0; k < n && !had; k++)
			had = v[k].pid == lin[i];
		if (!had)
			PUSH(v, n, ((struct rp_proc){ lin[i], 0, 0, false }));
	}
	free(lin);
	reclaim_all(c, v, n, false);
}

/* dtrace ends: the reaper told so, and gone. */
void ip_reap_end(struct consumer *c)
{
	struct inproc *ip = c->ip;
	struct ip_told t = { .kind = REAP_END };
	int st;

	if (ip->reap_fd <= 0)
		return;
	(void)send(ip->reap_fd - 1, &t, sizeof(t), MSG_NOSIGNAL);
	close(ip->reap_fd - 1);
	ip->reap_fd = 0;
	(void)waitpid(ip->reap_pid, &st, 0);
	ip->reap_pid = -1;
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_reap_unused;
#endif /* __x86_64__ */
