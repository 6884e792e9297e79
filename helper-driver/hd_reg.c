// SPDX-License-Identifier: MIT
/*
 * hd_reg.c - what dtrace-helperd knows: which process registered which DOF.
 *
 * A registration is checked in this order, and the first failure is the
 * one the caller gets (EINVAL unless said otherwise) and the log names.
 * Checks 1-3 are answered at once, with the ADDDOF; the rest are the
 * queue's (hd_queue.c), whose verdict a caller has through SYNC:
 *
 *  1. the dof_helper_t: a NUL inside dofhp_mod, printable characters;
 *     the caller's debt for refused work (EBUSY, see "Fairness" below);
 *     its quota by count: registrations per process and per user,
 *     queued ones included (ENOSPC);
 *  2. the 64-byte DOF header read from the caller (process_vm_readv):
 *     dof_check_hdr() says how many bytes to copy (dofh_loadsz) and
 *     refuses blobs over --max-dof (E2BIG);
 *  3. the caller's quota by size: bytes per process and user, bytes in
 *     all (ENOSPC), so one process cannot exhaust the daemon;
 *  4. the whole blob, copied once and then never read from the caller
 *     again: dof_check(), then dof_relocate() with dofhp_addr (DOF from
 *     other toolchains carries SETX relocations; ours has none and its
 *     addresses are already run-time ones, see sdk/dof.h) -- both run in
 *     the seccomp-confined checker child (hd_check.c), which hands back
 *     the relocated blob and the list of its site addresses;
 *  5. every probe site and is-enabled site lies in an executable mapping
 *     of the caller, so a consumer that later places a uprobe from this
 *     record places it on code the process really maps.
 *
 * Identity and pruning.  The FUSE and CUSE request carries the calling
 * THREAD's id; registrations belong to its thread group.  A process is
 * (pid, start time), and a pidfd per process wakes the loop when it
 * exits (SIGKILL included); the periodic check polls them all, so an
 * exit whose wake-up never came is still seen (hd_reg_check()).  The
 * wake-up is tagged with the pid alone, and may be a former process's:
 * epoll hands over a batch of events at once, and one handled before it
 * (a datagram read with it) can prune that process and register a new
 * one at its reused pid; so an exit event prunes the record at its pid
 * only if that record's own pidfd (or /proc, for one without) says it
 * has exited (hd_reg_pidfd_ready(); before, such a new process lost its
 * registration).  A pidfd leaves the epoll set before it is closed: a
 * copy in a checker child not yet at its close_range() (hd_check.c)
 * kept a closed one there, reported at every wait, pruning whatever
 * registered at the pid meanwhile (tests/run-helperd-reuse.sh shows
 * both).  pidfds
 * are descriptors, and every process of every user would otherwise hold
 * one: their number is capped in all and
 * per user (hd->pidfd_max, hd->pidfd_uid_max; helperd.c leaves a reserve
 * for everything else the daemon opens), and a process beyond a cap is
 * watched by the periodic check alone, so a user with a thousand
 * registered processes can neither make the daemon run out of
 * descriptors nor slow anybody else's registration.  exec and unmapping
 * without a REMOVE leave the process alive, so a periodic check re-reads
 * the first bytes of each recorded blob where it was (a few a period,
 * in turns: hd_reg_check()): a blob that is gone or different (exec replaced
 * the image, dlclose unmapped the library) drops that registration.  A
 * re-registration of a blob at the same address replaces the old record instead
 * of adding a second one.
 *
 * Known processes.  A process whose last registration goes (the usual
 * dlclose) stays known, idle, while the connector follows exec
 * (hd_fork.c) and descriptors allow (HD_IDLE_MAX; an idle one gives its
 * pidfd up first when a cap is reached): its pidfd is kept, its file
 * removed.  A request from a known process's main thread is then taken
 * as that process's without reading /proc: its pidfd, polled, says it
 * has not exited -- so its pid cannot have been reused -- and the uid the
 * kernel reports for the request (the caller's fsuid) must be the real
 * uid it registered with, or /proc decides.  exec (the connector's
 * event) and exit forget a known process.  A new process costs one
 * status read (thread group, real uid), a pidfd and one stat read (start
 * time, name), taken after the pidfd is opened and confirmed by polling
 * it, so the two name the same process.
 *
 * Every change is written to <statedir>/registry/<pid> when it is made
 * -- a registration once the queue has checked it, a REMOVE at once --
 * so a restarted daemon continues where the old one stopped;
 * hd_reg_load() drops the processes that died meanwhile.  A process's
 * record exists from its first ADDDOF (so its jobs name it, pidfd and
 * all), and its file from its first checked registration (on_disk).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "dof_check.h"
#include "grow.h"
#include "helperd.h"

int hd_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct iovec local = { (char *)buf + done, len - done };
		struct iovec remote = { (void *)(uintptr_t)(addr + done),
					len - done };
		ssize_t n;

		if (addr + done < addr)
			return -EFAULT; /* wraps */
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

pid_t hd_tgid(pid_t tid, uid_t *uid)
{
	char buf[1024], *p;
	ssize_t n;
	long v;

	n = proc_read_file(tid, "status", buf, sizeof(buf));
	if (n < 0)
		return (pid_t)n;
	if (uid) {
		p = strstr(buf, "\nUid:");
		if (!p)
			return -ESRCH;
		*uid = (uid_t)strtoul(p + 5, NULL, 10); /* the real uid */
	}
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -ESRCH;
	v = strtol(p + 6, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : -ESRCH;
}


/* ---- processes ------------------------------------------------------- */

static void forget_proc_at(struct helperd *hd, size_t i);

static struct hd_proc *find_proc(struct helperd *hd, pid_t pid, size_t *idx)
{
	size_t i;

	for (i = 0; i < hd->nprocs; i++)
		if (hd->procs[i]->rp.pid == pid) {
			if (idx)
				*idx = i;
			return hd->procs[i];
		}
	return NULL;
}

static void proc_free(struct helperd *hd, struct hd_proc *p)
{
	if (p->idle)
		hd->nidle--;
	if (p->pidfd >= 0) {
		/*
		 * Out of the set before the close: a close leaves it only
		 * once no copy of the descriptor is left, and a checker
		 * child (hd_check.c) holds copies until its close_range().
		 */
		epoll_ctl(hd->epfd, EPOLL_CTL_DEL, p->pidfd, NULL);
		close(p->pidfd);
		hd->npidfd--;
	}
	hd->total_bytes -= p->bytes;
	reg_proc_free(&p->rp);
	free(p);
}

/*
 * Forget one idle process (of user uid unless any): its pidfd is wanted
 * for a registration.  True if one was found.
 */
static bool evict_idle(struct helperd *hd, uid_t uid, bool any)
{
	for (size_t i = 0; i < hd->nprocs; i++)
		if (hd->procs[i]->idle && (any || hd->procs[i]->uid == uid)) {
			forget_proc_at(hd, i);
			return true;
		}
	return false;
}

/* Whether p may have a pidfd: within the caps in all and for its user. */
static bool pidfd_allowed(struct helperd *hd, const struct hd_proc *p)
{
	unsigned n = 0;

	if (hd->npidfd >= hd->pidfd_max && !evict_idle(hd, 0, true))
		goto capped;
	if (p->uid == 0)
		return true;
	for (size_t i = 0; i < hd->nprocs; i++)
		if (hd->procs[i]->pidfd >= 0 && hd->procs[i]->uid == p->uid)
			n++;
	if (n < hd->pidfd_uid_max || evict_idle(hd, p->uid, false))
		return true;
capped:
	if (!hd->pidfd_cap_logged)
		hd_log(HD_NOTICE, "pid %d (uid %u): more processes than "
		       "descriptors for them (%u in all, %u per user): they "
		       "are watched by the periodic check only",
		       (int)p->rp.pid, (unsigned)p->uid, hd->pidfd_max,
		       hd->pidfd_uid_max);
	hd->pidfd_cap_logged = true;
	return false;
}

/* Whether the process behind pidfd fd has exited (or cannot be told). */
static bool pidfd_exited(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };

	return poll(&pfd, 1, 0) != 0;
}

/*
 * Watch p for exit through a pidfd and fill in its start time and name:
 * read after the pidfd is opened and confirmed by polling it (an exited
 * process's pid may be reused; a live one's may not), so that both name
 * the same process.  Without a pidfd (caps, old kernels) just the read.
 * p->uid is set.
 */
static int watch_pid(struct helperd *hd, struct hd_proc *p)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, err;

	p->pidfd = -1;
	if (!pidfd_allowed(hd, p))
		return reg_proc_stat(p->rp.pid, &p->rp.start, p->rp.comm,
				     sizeof(p->rp.comm));
#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, p->rp.pid, 0);
	if (fd < 0) {
		if (errno == ESRCH)
			return -ESRCH;
		return reg_proc_stat(p->rp.pid, &p->rp.start, p->rp.comm,
				     sizeof(p->rp.comm));
	}
	err = reg_proc_stat(p->rp.pid, &p->rp.start, p->rp.comm,
			    sizeof(p->rp.comm));
	if (!err && pidfd_exited(fd))
		err = -ESRCH;
	if (err) {
		close(fd);
		return err;
	}
	ev.data.u64 = HD_EV_PIDFD | (uint32_t)p->rp.pid;
	if (epoll_ctl(hd->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return 0; /* the periodic check still finds its exit */
	}
	p->pidfd = fd;
	hd->npidfd++;
#else
	(void)fd;
	(void)ev;
	err = reg_proc_stat(p->rp.pid, &p->rp.start, p->rp.comm,
			    sizeof(p->rp.comm));
	if (err)
		return err;
#endif
	return 0;
}

/* Room for one more process in hd->procs: 0 or -ENOMEM. */
static int procs_reserve(struct helperd *hd)
{
	return grow_one(&hd->procs, &hd->procs_cap, hd->nprocs,
			sizeof(*hd->procs));
}

static struct hd_proc *new_proc(struct helperd *hd, pid_t pid, uid_t uid)
{
	struct hd_proc *p;
	int err;

	if (procs_reserve(hd) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->rp.pid = pid;
	p->uid = uid;
	err = watch_pid(hd, p);
	if (err) {
		free(p);
		errno = -err;
		return NULL;
	}
	hd->procs[hd->nprocs++] = p;
	return p;
}

/*
 * Write p's file.  A failure (a full or read-only state directory) is
 * logged once until a write works again; the process is marked dirty and
 * the periodic check retries, so memory and disk agree again as soon as
 * they can.  ADDDOF does not wait for that: it undoes the registration.
 */
static int persist(struct helperd *hd, struct hd_proc *p)
{
	char msg[PATH_MAX + 128];
	int err = reg_proc_write(hd->statedir, &p->rp, msg, sizeof(msg));

	if (err < 0) {
		if (!hd->persist_failed)
			hd_log(HD_ERR, "%s", msg);
		hd->persist_failed = true;
		p->dirty = true;
		return err;
	}
	p->dirty = false;
	p->on_disk = p->rp.nent > 0;
	if (hd->persist_failed) {
		hd_log(HD_NOTICE, "registry writes work again");
		hd->persist_failed = false;
	}
	return 0;
}

/* Forget process i in memory only (its file never existed). */
static void forget_proc_at(struct helperd *hd, size_t i)
{
	struct hd_proc *p = hd->procs[i];

	hd->procs[i] = hd->procs[--hd->nprocs];
	if (p->njobs)
		hd_queue_cancel_pid(hd, p->rp.pid);
	proc_free(hd, p);
}

/*
 * A file that could not be removed (read-only state directory) is
 * remembered and removed by the periodic check once it can be -- unless
 * a new process with that pid has registered meanwhile and the file is
 * its own.
 */
static void unlink_later(struct helperd *hd, pid_t pid)
{
	size_t i;

	for (i = 0; i < hd->n_unlink; i++)
		if (hd->unlink_pending[i] == pid)
			return;
	/* Its room implied by its count (grow.h): grown here alone. */
	if (grow_count(&hd->unlink_pending, hd->n_unlink,
		       sizeof(*hd->unlink_pending)) < 0)
		return; /* the next start drops the file of a dead process */
	hd->unlink_pending[hd->n_unlink++] = pid;
}

static void retry_unlinks(struct helperd *hd)
{
	size_t i = 0;

	while (i < hd->n_unlink) {
		pid_t pid = hd->unlink_pending[i];
		bool ours = false;
		size_t j;

		for (j = 0; j < hd->nprocs; j++)
			if (hd->procs[j]->rp.pid == pid &&
			    hd->procs[j]->rp.nent)
				ours = true;
		if (ours || reg_proc_remove(hd->statedir, pid) == 0) {
			hd->unlink_pending[i] =
				hd->unlink_pending[--hd->n_unlink];
			continue;
		}
		i++;
	}
}

/*
 * Remove process i's file; forget it, or keep it known and idle (its
 * last registration went, it lives on).
 */
static void drop_proc_at(struct helperd *hd, size_t i, bool keep)
{
	struct hd_proc *p = hd->procs[i];
	int err = p->on_disk ? reg_proc_remove(hd->statedir, p->rp.pid) : 0;

	if (err) {
		if (!hd->persist_failed)
			hd_log(HD_ERR, "cannot remove %s/%s/%d: %s (retried "
			       "until it works)", hd->statedir, REG_DIR,
			       (int)p->rp.pid, strerror(-err));
		hd->persist_failed = true;
		unlink_later(hd, p->rp.pid);
	}
	p->on_disk = false;
	/*
	 * Idle ones are kept only where exec is seen at once (it changes
	 * the name, and may change the uid) and within HD_IDLE_MAX.
	 */
	if (keep && !p->idle && p->pidfd >= 0 && hd->follows_fork &&
	    (hd->nidle < HD_IDLE_MAX || evict_idle(hd, 0, true))) {
		p->idle = true;
		p->dirty = false;
		hd->nidle++;
		return;
	}
	forget_proc_at(hd, i);
}

static void drop_entry(struct helperd *hd, size_t pi, size_t ei)
{
	struct hd_proc *p = hd->procs[pi];

	p->bytes -= p->rp.ent[ei].dof_len;
	hd->total_bytes -= p->rp.ent[ei].dof_len;
	reg_proc_drop(&p->rp, ei);
	if (!p->rp.nent && !p->njobs)
		drop_proc_at(hd, pi, true);
	else
		persist(hd, p); /* with nothing left, the file goes */
}

bool hd_reg_has(struct helperd *hd, pid_t pid, uint64_t dof_addr)
{
	struct hd_proc *p = find_proc(hd, pid, NULL);
	size_t i;

	for (i = 0; p && i < p->rp.nent; i++)
		if (p->rp.ent[i].dof_addr == dof_addr)
			return true;
	return p && p->njobs && hd_queue_has(hd, pid, dof_addr);
}

bool hd_reg_has_gen(struct helperd *hd, pid_t pid, uint64_t gen)
{
	struct hd_proc *p = find_proc(hd, pid, NULL);

	for (size_t i = 0; p && i < p->rp.nent; i++)
		if (p->rp.ent[i].gen == gen)
			return true;
	return false;
}

void hd_reg_flush(struct helperd *hd)
{
	for (size_t i = 0; i < hd->nprocs; i++)
		if (hd->procs[i]->dirty)
			persist(hd, hd->procs[i]);
}

/*
 * The process a request of thread tid comes from, and its real uid:
 * *pp is its record if it has one.  cuid is the uid the kernel reports
 * for the request ((uid_t)-1: none).  A known process's main thread
 * costs one poll (see the top of this file); anyone else a status read.
 */
static pid_t caller(struct helperd *hd, pid_t tid, uid_t cuid, uid_t *uid,
		    struct hd_proc **pp)
{
	struct hd_proc *p = find_proc(hd, tid, NULL);
	pid_t pid;

	/*
	 * Whether it exited, the kernel tells in two ways: its pidfd, and
	 * the connector's exit event, which is queued before its pid can be
	 * reused and read before this request was (hd_fork_drain()).  So
	 * where the connector is heard, only a process whose leader it saw
	 * exit needs the poll.
	 */
	if (p && p->pidfd >= 0) {
		if ((!hd->follows_fork || p->maybe_exited) &&
		    pidfd_exited(p->pidfd)) {
			/* Its exit is not applied yet; the pid is another's. */
			hd_reg_prune_pid(hd, tid, "exited");
		} else if (cuid == p->uid) {
			*uid = p->uid;
			*pp = p;
			return tid;
		}
	}
	pid = hd_tgid(tid, uid);
	*pp = pid > 0 ? find_proc(hd, pid, NULL) : NULL;
	return pid;
}

void hd_reg_exit_seen(struct helperd *hd, pid_t pid)
{
	for (size_t i = 0; i < hd->nprocs; i++)
		if (pid < 0 || hd->procs[i]->rp.pid == pid)
			hd->procs[i]->maybe_exited = true;
}

pid_t hd_reg_pid_of(struct helperd *hd, pid_t tid, uid_t cuid)
{
	struct hd_proc *p;
	uid_t uid;

	return caller(hd, tid, cuid, &uid, &p);
}

/* ---- ADDDOF ---------------------------------------------------------- */

struct reject {
	struct helperd *hd;
	pid_t pid; /* the caller's thread until it is known (pid_known) */
	bool pid_known;
	char comm[REG_COMM_MAX]; /* "" until a refusal needs it */
	const char *mod;
	bool quiet; /* a fork child's copy: it exec'ed or unmapped, say why */
};

static int reject(struct reject *rj, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reject(struct reject *rj, int err, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	/*
	 * Who it is and its name, for a process not recorded yet, are read
	 * only to say no -- and only when the line will be printed: a flood
	 * of refusals costs the daemon its answers, not /proc reads.
	 */
	if (rj->quiet ? hd_verbose < 2 :
	    (rj->hd->n_rejected++, !hd_log_reject_take()))
		return err;
	if (!rj->pid_known) {
		pid_t pid = hd_tgid(rj->pid, NULL);

		rj->pid = pid > 0 ? pid : rj->pid;
		rj->pid_known = true;
	}
	if (!rj->comm[0] &&
	    reg_proc_stat(rj->pid, NULL, rj->comm, sizeof(rj->comm)) < 0)
		snprintf(rj->comm, sizeof(rj->comm), "?");
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (rj->quiet) {
		hd_log(HD_DEBUG, "pid %d (%s): module '%s': not copied from "
		       "its parent: %s", (int)rj->pid, rj->comm, rj->mod, why);
		return err;
	}
	hd_log(HD_WARN, "pid %d (%s): module '%s': DOF refused: %s",
	       (int)rj->pid, rj->comm, rj->mod, why);
	return err;
}

/* Every site (from the checker) must be in an executable mapping. */
static int check_sites(struct reject *rj, const uint64_t *sites,
		       size_t nsites, const struct proc_maps *mm)
{
	size_t i;

	for (i = 0; i < nsites; i++) {
		const struct proc_map *m = proc_maps_find(mm, sites[i]);

		if (!m || m->perms[2] != 'x')
			return reject(rj, -EINVAL, "probe site 0x%" PRIx64
				      " is not in an executable mapping",
				      sites[i]);
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Fairness.  A refused registration is free for the caller and can be
 * expensive here: an 8 MiB blob that fails the last check was copied and
 * checked for nothing, and every other caller waited meanwhile.  So what
 * a user's refusals cost is a debt (the blob's bytes plus a fixed 64 KiB
 * per request), paid back at refused_rate bytes per second; while a user
 * owes more than refused_burst, its next ADDDOF is refused at once with
 * EBUSY, before anything is copied.  Root has no debt; a user whose
 * registrations succeed never has one.
 *
 * The fixed part is what a small refusal costs in CPU: its read on a
 * worker, the checker's round trip, the loop's steps between -- 55 us of
 * the daemon's CPU, measured.  At 1 KiB it was nearly free: a flood
 * of small malformed blobs from one process of nobody (bench/attack.sh's
 * "flood") kept the daemon's threads and checker busy for 3.3-3.6 s of
 * CPU in 5 s, against 0.36 s of the attacker's own.  At 64 KiB and the
 * default 32 MiB/s, a user's refusals beyond the first 512 are served at
 * 512 a second, each further one answered EBUSY at once (4 us of the
 * loop's time): the same flood then cost the daemon 1.1-2.1 s, 1.3-1.5
 * times the attacker's own.
 */
#define HD_REFUSAL_COST (64u << 10)

/* uid's debt, paid down to now; NULL for root or without memory. */
static struct hd_debt *debt_of(struct helperd *hd, uid_t uid, bool make)
{
	struct hd_debt *d = NULL;
	uint64_t now = hd_mono_ns();

	if (uid == 0)
		return NULL;
	for (size_t i = 0; i < hd->ndebts && !d; i++)
		if (hd->debts[i].uid == uid)
			d = &hd->debts[i];
	if (!d) {
		if (!make)
			return NULL;
		/* Its room implied by its count (grow.h): grown here alone. */
		if (grow_count(&hd->debts, hd->ndebts, sizeof(*hd->debts)) < 0)
			return NULL;
		d = &hd->debts[hd->ndebts++];
		memset(d, 0, sizeof(*d));
		d->uid = uid;
		d->t_ns = now;
	}
	d->bytes -= (double)(now - d->t_ns) / 1e9 * (double)hd->refused_rate;
	if (d->bytes < 0)
		d->bytes = 0;
	d->t_ns = now;
	return d;
}

static void charge_refusal(struct helperd *hd, uid_t uid, size_t len)
{
	struct hd_debt *d = debt_of(hd, uid, true);

	if (d)
		d->bytes += (double)len + HD_REFUSAL_COST;
}

/* A reject for j's process. */
static void job_reject(struct reject *rj, struct helperd *hd,
		       const struct hd_job *j, const struct hd_proc *p)
{
	memset(rj, 0, sizeof(*rj));
	rj->hd = hd;
	rj->pid = j->pid;
	rj->pid_known = true;
	rj->mod = j->h.dofhp_mod;
	rj->quiet = j->origin == REG_ORIGIN_FORK;
	if (p)
		snprintf(rj->comm, sizeof(rj->comm), "%s", p->rp.comm);
}

/*
 * The ADDDOF of a user in debt: EBUSY, held (hd_tarpit.c) until the debt
 * is back under the limit when it came through the device (req), so
 * that the caller waits instead of asking again at once; 0 when held.
 */
static int in_debt(struct helperd *hd, struct reject *rj, struct hd_debt *d,
		   void *req)
{
	int rc;

	d->refused++;
	hd->n_owed++;
	rc = reject(rj, -EBUSY, "user %u owes %.0f KiB of refused work (%"
		    PRIu64 " request(s) turned away); try again later",
		    (unsigned)d->uid, d->bytes / 1024, d->refused);
	if (req && hd_tarpit_hold(req, d->bytes - (double)hd->refused_burst,
				  (double)hd->refused_rate))
		return 0;
	return rc;
}

/*
 * ADDDOF, and what the scan and a fork do in its name, up to the queue:
 * gen 0 takes the next generation, another keeps that one (a fork
 * child's copy of its parent's).  What is decided here is answered at
 * once, from what the daemon knows: who the caller is (a known process
 * costs one poll of its pidfd, a new one its status and stat files and
 * a pidfd -- so the job names the process that asked, whatever happens
 * to the pid later), its module name, its debt, and its quotas by count.
 * The rest is the queue's (hd_queue.c), through the stages below.
 */
static int begin(struct helperd *hd, pid_t tid, uid_t cuid,
		 const dof_helper_t *h, enum reg_origin origin, uint64_t gen,
		 void *req, pid_t dgram_pid, struct hd_job **jp)
{
	struct reject rj = { .hd = hd, .pid = tid, .mod = "?",
			     .quiet = origin == REG_ORIGIN_FORK };
	struct hd_proc *p;
	struct hd_job *j;
	uint64_t uid_regs = 0;
	bool early;
	uid_t uid = 0;
	pid_t pid;
	size_t i;

	if (jp)
		*jp = NULL;

	/*
	 * 1. The record, and a user in debt: refused before anything is
	 * read about the caller, not even /proc -- a flood of refusals
	 * costs the daemon its answers and nothing else.  The debt is the
	 * real uid's; the kernel reports the caller's fsuid, the same but
	 * in a set-id program, whose owner's debt then counts (root has
	 * none).
	 */
	if (!memchr(h->dofhp_mod, '\0', sizeof(h->dofhp_mod)))
		return reject(&rj, -EINVAL, "module name is not NUL-terminated");
	for (i = 0; h->dofhp_mod[i]; i++)
		if ((unsigned char)h->dofhp_mod[i] < 0x20 ||
		    h->dofhp_mod[i] == 0x7f)
			return reject(&rj, -EINVAL,
				      "module name has control characters");
	rj.mod = h->dofhp_mod;
	if (origin == REG_ORIGIN_IOCTL && cuid != (uid_t)-1) {
		struct hd_debt *d = debt_of(hd, cuid, false);

		if (d && d->bytes > (double)hd->refused_burst)
			return in_debt(hd, &rj, d, req);
	}

	pid = caller(hd, tid, cuid, &uid, &p);
	if (pid < 0)
		return pid; /* gone already */
	rj.pid = pid;
	rj.pid_known = true;
	if (p)
		snprintf(rj.comm, sizeof(rj.comm), "%s", p->rp.comm);
	/*
	 * A datagram: the kernel named the process and its real uid when it
	 * was sent.  The process at that pid now must be that one's user's
	 * (a pid reused meanwhile by another user's process is not taken
	 * for the sender), and the thread named in the message one of its.
	 */
	if (dgram_pid > 0 && pid != dgram_pid)
		return reject(&rj, -ESRCH, "datagram of pid %d names thread "
			      "%d of another process", (int)dgram_pid,
			      (int)tid);
	if (dgram_pid > 0 && uid != cuid)
		return reject(&rj, -EPERM, "datagram credentials say uid %u, "
			      "the process is uid %u's", (unsigned)cuid,
			      (unsigned)uid);

	/* 2. What the user owes for refused work. */
	{
		struct hd_debt *d = debt_of(hd, uid, false);

		if (d && d->bytes > (double)hd->refused_burst)
			return in_debt(hd, &rj, d,
				       origin == REG_ORIGIN_IOCTL ? req : NULL);
		/* A user who owes anything is answered only once checked. */
		early = (req || dgram_pid > 0) && origin == REG_ORIGIN_IOCTL &&
			(!d || d->bytes <= 0) &&
			hd_queue_may_answer_early(hd, uid);
	}

	/* 3. Quotas by count, queued registrations included. */
	if (p && p->rp.nent + p->njobs >= hd->max_proc_regs)
		return reject(&rj, -ENOSPC, "process has %zu registrations "
			      "already (limit %u)", p->rp.nent + p->njobs,
			      hd->max_proc_regs);
	for (i = 0; uid != 0 && i < hd->nprocs; i++)
		if (hd->procs[i]->uid == uid)
			uid_regs += hd->procs[i]->rp.nent +
				    hd->procs[i]->njobs;
	if (uid != 0 && uid_regs >= hd->max_uid_regs)
		return reject(&rj, -ENOSPC, "user %u holds %" PRIu64
			      " registrations (limit %u)", (unsigned)uid,
			      uid_regs, hd->max_uid_regs);

	/* The process, watched from now on: the job is its. */
	if (!p) {
		p = new_proc(hd, pid, uid);
		if (!p)
			return errno == ESRCH ? -ESRCH :
			       reject(&rj, -ENOMEM, "out of memory");
	}
	j = hd_queue_add(hd, pid, tid, uid, h, gen, origin, early, req);
	if (!j) {
		if (!p->rp.nent && !p->njobs) {
			size_t idx;

			if (find_proc(hd, pid, &idx))
				drop_proc_at(hd, idx, true);
		}
		return reject(&rj, -EAGAIN, "too many registrations waiting "
			      "to be checked; try again");
	}
	p->njobs++;
	if (p->idle) {
		p->idle = false;
		hd->nidle--;
	}
	if (jp)
		*jp = j;
	return early ? (int)j->gen : 0;
}

int hd_reg_adddof(struct helperd *hd, pid_t tid, uid_t cuid,
		  const dof_helper_t *h, void *req)
{
	return begin(hd, tid, cuid, h, REG_ORIGIN_IOCTL, 0, req, 0, NULL);
}

int hd_reg_adddof_dgram(struct helperd *hd, pid_t pid, pid_t tid, uid_t cuid,
			const dof_helper_t *h)
{
	int rc = begin(hd, tid, cuid, h, REG_ORIGIN_IOCTL, 0, NULL, pid, NULL);

	return rc < 0 ? rc : 0;
}

int hd_reg_adddof_now(struct helperd *hd, pid_t pid, const dof_helper_t *h,
		      enum reg_origin origin)
{
	struct hd_job *j;
	int rc = begin(hd, pid, (uid_t)-1, h, origin, 0, NULL, 0, &j);

	return rc < 0 || !j ? rc : hd_queue_wait(hd, j, 0);
}

/*
 * Before the read: a user who has come to owe more than the limit while
 * the job waited (its earlier blobs refused meanwhile) has it turned
 * away unread with EBUSY, charged as a small refusal.  Requests that
 * passed the check at ADDDOF together -- many processes' held refusals
 * answered at the same moment, each asking again at once -- would
 * otherwise all be copied and checked, one user's burst of work that
 * the debt was there to prevent.
 */
int hd_reg_job_owes(struct helperd *hd, struct hd_job *j)
{
	struct hd_debt *d = debt_of(hd, j->uid, false);
	struct reject rj;

	if (!d || d->bytes <= (double)hd->refused_burst)
		return 0;
	job_reject(&rj, hd, j, find_proc(hd, j->pid, NULL));
	return in_debt(hd, &rj, d, NULL);
}

/* 2. The read: mappings, header, blob, copied once and never again. */
int hd_reg_job_fetched(struct helperd *hd, struct hd_job *j, int err)
{
	struct hd_proc *p = find_proc(hd, j->pid, NULL);
	struct hd_fetch *f = j->f;
	uint64_t loadsz, uid_bytes = 0;
	struct reject rj;
	size_t i;

	job_reject(&rj, hd, j, p);
	if (err) {
		if (f->stage == HD_FETCH_HDR)
			return reject(&rj, err, "%s (offset %" PRIu64 ")",
				      f->derr.msg, f->derr.off);
		return reject(&rj, err == -ESRCH || err == -ETIMEDOUT ||
					   err == -EAGAIN ? err :
				   f->stage == HD_FETCH_MAPS ? -EAGAIN : -EFAULT,
			      "DOF at 0x%" PRIx64 ": %s",
			      (uint64_t)j->h.dofhp_dof, f->why);
	}
	loadsz = f->len;
	j->charge = f->len;

	/* 3. Quotas by size. */
	for (i = 0; j->uid != 0 && i < hd->nprocs; i++)
		if (hd->procs[i]->uid == j->uid)
			uid_bytes += hd->procs[i]->bytes;
	if (j->uid != 0 && uid_bytes + loadsz > hd->max_uid_bytes)
		return reject(&rj, -ENOSPC, "user %u holds %" PRIu64 " bytes "
			      "(limit %" PRIu64 ")", (unsigned)j->uid,
			      uid_bytes, hd->max_uid_bytes);
	if ((p ? p->bytes : 0) + loadsz > hd->max_proc_bytes ||
	    hd->total_bytes + loadsz > hd->max_total_bytes)
		return reject(&rj, -ENOSPC, "DOF memory limit reached "
			      "(%" PRIu64 " bytes more would exceed it)",
			      loadsz);
	return 0;
}

/* 4. The checker's answer, 5. the sites, and the record. */
int hd_reg_job_checked(struct helperd *hd, struct hd_job *j, int err,
		       const uint64_t *sites, size_t nsites,
		       const struct dof_err *derr)
{
	struct hd_proc *p = find_proc(hd, j->pid, NULL);
	const struct proc_map *m;
	struct reg_entry e;
	struct reject rj;
	size_t i;

	job_reject(&rj, hd, j, p);
	if (err)
		return derr->code ? reject(&rj, err, "%s (offset %" PRIu64 ")",
					   derr->msg, derr->off) :
				    reject(&rj, err, "%s", derr->msg);
	err = check_sites(&rj, sites, nsites, &j->f->mm);
	if (err)
		return err;
	/* Still the process that asked (it may have exited since). */
	if (!p || (p->pidfd >= 0 ? pidfd_exited(p->pidfd) :
				   !reg_proc_alive(p->rp.pid, p->rp.start)))
		return -ESRCH;
	memset(&e, 0, sizeof(e));
	m = proc_maps_find(&j->f->mm, j->h.dofhp_dof);
	e.path = strdup(m && m->ino ? m->path : "");
	if (!e.path)
		return reject(&rj, -ENOMEM, "out of memory");
	if (m && m->ino) {
		e.dev = m->dev;
		e.ino = m->ino;
	}
	snprintf(e.mod, sizeof(e.mod), "%s",
		 j->h.dofhp_mod[0] ? j->h.dofhp_mod : base_name(e.path));
	e.base = j->h.dofhp_addr;
	e.dof_addr = j->h.dofhp_dof;
	e.origin = j->origin;
	e.gen = j->gen;
	e.dof_len = j->f->len;

	for (i = 0; i < p->rp.nent; i++)
		if (p->rp.ent[i].dof_addr == e.dof_addr) {
			hd_log(HD_DEBUG, "pid %d (%s): %s: generation %" PRIu64
			       " replaces %" PRIu64 " (same DOF address)",
			       (int)p->rp.pid, p->rp.comm, e.mod, e.gen,
			       p->rp.ent[i].gen);
			p->bytes -= p->rp.ent[i].dof_len;
			hd->total_bytes -= p->rp.ent[i].dof_len;
			reg_proc_drop(&p->rp, i);
			break;
		}
	/* Count-implied room, as the registry reader grows it (grow.h). */
	if (grow_count(&p->rp.ent, p->rp.nent, sizeof(*p->rp.ent)) < 0) {
		free(e.path);
		return reject(&rj, -ENOMEM, "out of memory");
	}
	e.dof = j->f->buf; /* the blob is the record's now */
	j->f->buf = NULL;
	p->rp.ent[p->rp.nent++] = e;
	p->bytes += e.dof_len;
	hd->total_bytes += e.dof_len;
	err = persist(hd, p);
	if (err) {
		/* Not on disk means not registered: undo, say why. */
		struct reg_entry *last = &p->rp.ent[--p->rp.nent];

		p->bytes -= last->dof_len;
		hd->total_bytes -= last->dof_len;
		free(last->dof);
		free(last->path);
		/* What it replaced, if anything, is on disk still: retried. */
		return reject(&rj, err, "not recorded: cannot write the "
			      "registry: %s", strerror(-err));
	}
	hd->n_added++;
	hd_log(HD_INFO, "pid %d (%s): registered %s (%s), generation %" PRIu64
	       ", %zu bytes of DOF%s", (int)p->rp.pid, p->rp.comm, e.mod,
	       e.path[0] ? e.path : "anonymous memory", e.gen, e.dof_len,
	       j->origin == REG_ORIGIN_SCAN ? ", found by the start-up scan" :
	       j->origin == REG_ORIGIN_FORK ? ", inherited from its parent" :
					      "");
	return (int)e.gen;
}

void hd_reg_job_end(struct helperd *hd, struct hd_job *j, int rc)
{
	size_t idx;
	struct hd_proc *p = find_proc(hd, j->pid, &idx);

	if (rc < 0 && rc != -ECANCELED && j->origin != REG_ORIGIN_FORK)
		charge_refusal(hd, j->uid, j->charge);
	if (!p)
		return;
	if (p->njobs)
		p->njobs--;
	if (!p->rp.nent && !p->njobs)
		drop_proc_at(hd, idx, true);
}

/*
 * A fork child's copy of one of its parent's registrations (hd_fork.c),
 * under the parent's generation.  It goes through the whole of ADDDOF
 * against the CHILD -- its mappings read, its copy of the DOF read once
 * and checked, every site in an executable mapping of its own, its
 * user's quotas -- so what is recorded is exactly what the child would
 * have registered itself.  Refusals (the child exec'ed or unmapped the
 * object meanwhile) are logged at debug level and charge no one.
 */
int hd_reg_copy(struct helperd *hd, pid_t child, const dof_helper_t *h,
		uint64_t gen)
{
	int rc = begin(hd, child, (uid_t)-1, h, REG_ORIGIN_FORK, gen, NULL,
		       0, NULL);

	return rc < 0 ? rc : 0;
}

const struct reg_proc *hd_reg_proc(struct helperd *hd, pid_t pid)
{
	struct hd_proc *p = find_proc(hd, pid, NULL);

	return p ? &p->rp : NULL;
}

/* ---- REMOVE, pruning ------------------------------------------------- */

int hd_reg_remove(struct helperd *hd, pid_t tid, uid_t cuid, int gen)
{
	struct hd_proc *p;
	dof_helper_t h;
	uid_t uid;
	pid_t pid = caller(hd, tid, cuid, &uid, &p);
	size_t pi = 0, i;

	if (pid < 0)
		return pid;
	if (gen > 0 && p && p->njobs &&
	    hd_queue_cancel(hd, pid, (uint64_t)gen, &h)) {
		/* Withdrawn before it was checked: nothing was recorded. */
		hd_log(HD_INFO, "pid %d (%s): removed %s, generation %d, before "
		       "it was checked", (int)pid, p->rp.comm,
		       h.dofhp_mod[0] ? h.dofhp_mod : "?", gen);
		hd->n_removed++;
		p->njobs--;
		if (!p->rp.nent && !p->njobs && find_proc(hd, pid, &pi))
			drop_proc_at(hd, pi, true);
		return 0;
	}
	if (gen > 0 && hd_queue_refused(hd, pid, (uint64_t)gen, true))
		return 0; /* refused after its answer: nothing to withdraw */
	if (p)
		find_proc(hd, pid, &pi);
	for (i = 0; p && i < p->rp.nent; i++)
		if (p->rp.ent[i].gen == (uint64_t)gen && gen > 0) {
			hd_log(HD_INFO, "pid %d (%s): removed %s, generation %d",
			       (int)pid, p->rp.comm, p->rp.ent[i].mod, gen);
			hd->n_removed++;
			drop_entry(hd, pi, i);
			return 0;
		}
	hd_log_odd("pid %d: REMOVE of unknown generation %d", (int)pid,
	       gen);
	return -EINVAL;
}

/*
 * REMOVE by DOF address (a datagram, or REMOVEDOF after one): whatever
 * pid holds or has queued or inherited at that address goes -- one
 * recorded entry at most (a re-registration replaces), but a job of its
 * own and a fork copy of its parent's may both be queued.  Nothing
 * there is no error: the ADD may have been refused.
 */
int hd_reg_remove_dof(struct helperd *hd, pid_t tid, uid_t cuid,
		      pid_t dgram_pid, uint64_t addr)
{
	struct hd_proc *p;
	dof_helper_t h;
	uid_t uid;
	pid_t pid = caller(hd, tid, cuid, &uid, &p);
	unsigned n = 0;
	size_t pi, i;

	if (pid < 0)
		return pid;
	if (dgram_pid > 0 && (pid != dgram_pid || uid != cuid))
		return -ESRCH;
	n += hd_fork_remove_dof(hd, pid, addr);
	while (p && p->njobs && hd_queue_cancel_dof(hd, pid, addr, &h)) {
		p->njobs--;
		n++;
	}
	if (p && find_proc(hd, pid, &pi)) {
		for (i = 0; i < p->rp.nent; i++)
			if (p->rp.ent[i].dof_addr == addr)
				break;
		if (i < p->rp.nent) {
			drop_entry(hd, pi, i);
			n++;
		} else if (!p->rp.nent && !p->njobs) {
			drop_proc_at(hd, pi, true);
		}
	}
	if (n) {
		hd->n_removed++;
		hd_log(HD_INFO, "pid %d: removed the DOF at 0x%" PRIx64,
		       (int)pid, addr);
	} else {
		hd_log(HD_DEBUG, "pid %d: REMOVE of DOF at 0x%" PRIx64 ": "
		       "nothing registered there", (int)pid, addr);
	}
	return 0;
}

void hd_reg_prune_pid(struct helperd *hd, pid_t pid, const char *why)
{
	size_t i;

	if (!find_proc(hd, pid, &i))
		return;
	if (hd->procs[i]->idle) {
		forget_proc_at(hd, i);
		return;
	}
	hd_log(HD_INFO, "pid %d (%s): %s, %zu registration(s) dropped",
	       (int)pid, hd->procs[i]->rp.comm, why, hd->procs[i]->rp.nent);
	hd->n_pruned += hd->procs[i]->rp.nent;
	drop_proc_at(hd, i, false);
}

void hd_reg_pidfd_ready(struct helperd *hd, pid_t pid)
{
	struct hd_proc *p = find_proc(hd, pid, NULL);

	if (!p)
		return;
	if (p->pidfd >= 0 ? !pidfd_exited(p->pidfd) :
			    reg_proc_alive(p->rp.pid, p->rp.start)) {
		hd_log(HD_DEBUG, "pid %d (%s): the exit of a former process "
		       "at its pid, ignored", (int)pid, p->rp.comm);
		return;
	}
	hd_reg_prune_pid(hd, pid, "exited");
}

/*
 * Re-read the headers of process i's blobs, at most budget of them: how
 * many were read.  A blob that is gone or different drops its entry.
 */
static unsigned check_blobs(struct helperd *hd, size_t pi, unsigned budget)
{
	struct hd_proc *p = hd->procs[pi];
	unsigned n = 0;
	size_t ei;

	for (ei = p->rp.nent; ei-- > 0 && n < budget;) {
		struct reg_entry *e = &p->rp.ent[ei];
		uint8_t hdr[sizeof(dof_hdr_t)];
		int err = hd_guard_read_mem(p->rp.pid, p->uid, e->dof_addr, hdr,
					    sizeof(hdr));

		n++;
		/*
		 * Cannot tell: keep it.  ESRCH from a live process means its
		 * main thread has called pthread_exit().
		 */
		if (err == -EPERM || err == -ENOMEM || err == -ETIMEDOUT ||
		    err == -EAGAIN || err == -ESRCH)
			continue;
		if (!err && !memcmp(hdr, e->dof, sizeof(hdr)))
			continue;
		hd_log(HD_INFO, "pid %d (%s): %s, generation %" PRIu64
		       ": DOF no longer mapped (exec, dlclose or munmap), "
		       "dropped", (int)p->rp.pid, p->rp.comm, e->mod, e->gen);
		hd->n_pruned++;
		if (p->rp.nent == 1 && !p->njobs) {
			drop_entry(hd, pi, ei);
			break; /* p is freed */
		}
		drop_entry(hd, pi, ei);
	}
	return n;
}

/*
 * The pidfds of hd->procs, polled at once (one system call a period):
 * check_pfd[i].revents, for i below the count returned, says whether
 * procs[i] exited.  0 (nothing known) without memory for the array or
 * if poll() fails: the next period asks again.
 */
static size_t poll_pidfds(struct helperd *hd)
{
	size_t i;

	if (!hd->nprocs || grow_one(&hd->check_pfd, &hd->check_pfd_cap,
				    hd->nprocs - 1, sizeof(*hd->check_pfd)) < 0)
		return 0;
	for (i = 0; i < hd->nprocs; i++) {
		hd->check_pfd[i].fd = hd->procs[i]->pidfd; /* < 0: skipped */
		hd->check_pfd[i].events = POLLIN;
		hd->check_pfd[i].revents = 0;
	}
	return poll(hd->check_pfd, hd->nprocs, 0) < 0 ? 0 : hd->nprocs;
}

/*
 * The periodic check.  Liveness is one poll of every pidfd for the
 * processes a pidfd watches, /proc for the others.  A pidfd's exit wakes
 * the loop (HD_EV_PIDFD), and that event is dispatched before the next
 * period's: epoll returns ready descriptors in the order they became
 * ready, the period's timer behind them.  So a process whose pidfd is
 * ready here is only marked (its event is on its way); one still known
 * and marked a period later exited without its event ever coming, and
 * is pruned here, logged as such, so that no record, and no
 * file, outlives its process whatever happened to the event.
 *
 * Blobs are re-read a few at a time (the processes in turns),
 * each a hand-off to a worker the loop waits for: a thousand registered
 * processes must not hold the loop for tens of milliseconds every
 * period (measured: 64 reads, 23 ms of waiting on a loaded 2-vCPU VM).
 * Where the connector reports exec, the re-read only finds objects
 * unmapped without a REMOVE, rare and harmless meanwhile:
 * HD_CHECK_READS_CN a period then, else HD_CHECK_READS.
 */
void hd_reg_check(struct helperd *hd)
{
	unsigned budget = hd->follows_fork ? HD_CHECK_READS_CN :
					     HD_CHECK_READS;
	size_t pi, seen, npolled;

	if (hd->n_unlink)
		retry_unlinks(hd);

	npolled = poll_pidfds(hd);
	pi = hd->nprocs;
	/*
	 * Backwards: dropping a process moves the last one into its slot,
	 * which was looked at already, so check_pfd[pi] stays procs[pi]'s.
	 */
	while (pi-- > 0) {
		struct hd_proc *p = hd->procs[pi];
		bool exited = p->pidfd >= 0 && pi < npolled &&
			      hd->check_pfd[pi].revents;

		if (p->idle) {
			if (exited)
				forget_proc_at(hd, pi);
			continue;
		}
		if (exited && p->exit_polled) {
			hd_log(HD_WARN,
			       "pid %d (%s): exited a period ago and "
			       "its pidfd never woke the loop; pruned by the "
			       "periodic check",
			       (int)p->rp.pid, p->rp.comm);
			hd_reg_prune_pid(hd, p->rp.pid, "exited");
			continue;
		}
		p->exit_polled = exited;
		if (p->pidfd < 0 && !reg_proc_alive(p->rp.pid, p->rp.start)) {
			hd_reg_prune_pid(hd, p->rp.pid, "exited");
			continue;
		}
		if (p->dirty)
			persist(hd, p);
	}
	for (seen = 0; seen < hd->nprocs && budget; seen++) {
		if (hd->check_next >= hd->nprocs)
			hd->check_next = 0;
		pi = hd->check_next++;
		if (!hd->procs[pi]->idle)
			budget -= check_blobs(hd, pi, budget);
	}
}

/* ---- start-up -------------------------------------------------------- */

static void load_warn(const char *msg, void *arg)
{
	(void)arg;
	hd_log(HD_WARN, "ignoring damaged registry file: %s", msg);
}

int hd_reg_load(struct helperd *hd)
{
	char dir[PATH_MAX];
	struct reg_proc *v;
	size_t n, i, j;
	uint64_t maxgen = 0;
	struct dirent *de;
	DIR *d;
	int err;

	/* Leftovers of a write interrupted by a crash. */
	snprintf(dir, sizeof(dir), "%s/%s", hd->statedir, REG_DIR);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".tmp"))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);

	err = reg_load_all(hd->statedir, false, load_warn, NULL, &v, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		struct hd_proc *p;

		for (j = 0; j < v[i].nent; j++)
			if (v[i].ent[j].gen > maxgen)
				maxgen = v[i].ent[j].gen;
		if (!reg_proc_alive(v[i].pid, v[i].start)) {
			hd_log(HD_INFO, "pid %d (%s) exited while no daemon "
			       "ran; %zu registration(s) dropped",
			       (int)v[i].pid, v[i].comm, v[i].nent);
			reg_proc_remove(hd->statedir, v[i].pid);
			continue;
		}
		p = calloc(1, sizeof(*p));
		if (!p || procs_reserve(hd) < 0) {
			free(p);
			reg_procs_free(v, n);
			return -ENOMEM;
		}
		p->rp = v[i];
		p->on_disk = true;
		memset(&v[i], 0, sizeof(v[i]));
		hd_tgid(p->rp.pid, &p->uid); /* for the per-user quota */
		{
			uint64_t start = p->rp.start;

			err = watch_pid(hd, p);
			if (!err && p->rp.start != start)
				err = -ESRCH; /* reused since the check */
		}
		if (err < 0) {
			reg_proc_remove(hd->statedir, p->rp.pid);
			reg_proc_free(&p->rp);
			free(p);
			continue;
		}
		for (j = 0; j < p->rp.nent; j++)
			p->bytes += p->rp.ent[j].dof_len;
		hd->total_bytes += p->bytes;
		hd->procs[hd->nprocs++] = p;
		hd_log(HD_INFO, "pid %d (%s): %zu registration(s) restored",
		       (int)p->rp.pid, p->rp.comm, p->rp.nent);
	}
	reg_procs_free(v, n);
	hd->next_gen = maxgen + 1 > INT_MAX ? 1 : maxgen + 1;
	/* Processes that exec'ed or dlclose'd while no daemon ran. */
	hd_reg_check(hd);
	return 0;
}

void hd_reg_free(struct helperd *hd)
{
	size_t i;

	for (i = 0; i < hd->nprocs; i++)
		proc_free(hd, hd->procs[i]);
	free(hd->procs);
	hd->procs = NULL;
	hd->nprocs = hd->procs_cap = 0;
	free(hd->unlink_pending);
	free(hd->check_pfd);
	hd->check_pfd = NULL;
	hd->check_pfd_cap = 0;
	free(hd->debts);
	hd->debts = NULL;
	hd->ndebts = 0;
	hd->unlink_pending = NULL;
	hd->n_unlink = 0;
}
