// SPDX-License-Identifier: MIT
/*
 * hd_queue.c - a registration is answered first and validated after.
 *
 * What an ADDDOF costs the caller is what it waits for.  Validating a
 * blob means reading the caller's mappings and memory on a worker thread
 * (hd_guard.c: a read may stall), a round trip through the checker child
 * (hd_check.c) and a registry file written and renamed: measured on the
 * 2-vCPU VM, about 80 us of a 128 us dlopen+dlclose, against 7 us for a
 * request the daemon answers at once.  And one slow blob -- an attacker's
 * 8 MiB, or a page of a stalled file system -- used to hold every other
 * caller behind it.  So the device's ADDDOF is answered from what the
 * daemon knows at once (hd_reg.c: the caller's identity, its module
 * name, its debt, its quotas by count) with the generation, and the rest
 * becomes a JOB here.  The registry entry appears only once the job has
 * validated the blob: a consumer never sees anything unchecked.
 *
 * A job waits HD_ADD_SETTLE_MS (--settle-ms) before its blob is read,
 * unless something wants it sooner: a REMOVE of its generation in that
 * time -- the usual dlclose of a plugin loaded to be probed, or a short
 * process's exit (pidfd, exec and exit events cancel its jobs) -- drops
 * it unread, so registering and withdrawing at once costs the daemon two
 * answers and nothing else.  Before its time, the job is the caller's
 * promise, not the daemon's: nothing was read from the caller yet, and
 * the object stays mapped until its REMOVE, which the daemon serves only
 * after the ADDDOF (a process that changes its own DOF after registering
 * could have changed it before as well: what is recorded is what was
 * read, checked as ever).
 *
 * Consumers.  `dtrace -l` right after dlopen() returns must list the
 * plugin's probes.  So a reader of the registry first sends SYNC
 * (DTRACEHIOC_SYNC with 0, sdk/registry.c's reg_sync(), before every
 * walk): the daemon holds that request until every job that arrived
 * before it has been validated (they are all due at once from then on)
 * and every file is written, and only then answers.  SYNC with a
 * generation waits for that one job and answers its outcome: 0 when it
 * was recorded, else the errno the ADDDOF would have failed with -- what
 * drti.o asks under DTRACE_DOF_INIT_DEBUG, and the tests' clients.  A
 * refused job's outcome is kept (HD_REFUSED_KEEP) for a SYNC that comes
 * later; a REMOVE of such a generation succeeds quietly.
 *
 * Who waits for whom.  One job is read at a time (a worker of
 * hd_guard.c, handed over, never waited for: its eventfd wakes the loop)
 * and one is with the checker (its pipes are in the loop); a blob read
 * waits for the checker while the next is not read yet.  The next job to
 * read is the oldest of the next user after the one served last (round
 * robin by uid), so a user with many jobs delays another's by one job
 * per stage.  None of this ever holds up a request: the loop answers the
 * device between any two steps, and the workers and the checker run at
 * a lower priority than the loop.  Answering before checking is bounded
 * per user: a user's first HD_EARLY_PER_UID outstanding jobs are
 * answered at once (HD_EARLY_MAX in all), further ADDDOFs are held and
 * answered with their outcome once checked, and so are all of a user who
 * owes for refused work (hd_reg.c's debt: a refused blob is charged as
 * before, when the refusal happens) -- so a flood of bad blobs is
 * answered early only until its first refusals come back.  A job whose
 * user has come to owe more than the limit by the time it would be read
 * is refused EBUSY unread (hd_reg_job_owes()): one user's requests that
 * passed the debt check together cost the daemon one check, not one
 * each.  A user other
 * than root has at most HD_JOBS_PER_UID jobs (held ones are its blocked
 * threads), all users HD_JOBS_MAX; beyond, ADDDOF fails with EAGAIN.  A
 * SYNC waits only for jobs answered early (and fork copies, which nobody
 * asked for): at most HD_EARLY_PER_UID per user.
 *
 * Crashes.  A job answered but not yet validated lives only in memory.
 * If the daemon dies then, the registration is lost to the registry --
 * but no consumer could have seen it yet (a consumer's SYNC would have
 * made it validated and written first), and the next daemon's start-up
 * scan (hd_scan.c) finds the DOF of every running process, so it comes
 * back.  At SIGTERM the daemon validates what is queued first (at most
 * HD_DRAIN_MS, or --check-timeout where that is longer; what is left is
 * said in the log).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "helperd.h"

#define HD_EARLY_PER_UID 16 /* answered, not yet checked, per user */
#define HD_EARLY_MAX 1024   /* ... in all */
#define HD_JOBS_PER_UID 1024 /* jobs of one user (not root): beyond, EAGAIN */
#define HD_JOBS_MAX 8192    /* jobs in all: beyond, EAGAIN */
#define HD_FETCH_MAX 4	    /* read or waiting for the checker, one per user */

int hd_queue_start(struct helperd *hd)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = HD_EV_QUEUE };
	int gfd = hd_guard_event_fd();

	hd->queue_tfd = timerfd_create(CLOCK_MONOTONIC,
				       TFD_CLOEXEC | TFD_NONBLOCK);
	if (hd->queue_tfd < 0 ||
	    epoll_ctl(hd->epfd, EPOLL_CTL_ADD, hd->queue_tfd, &ev) < 0) {
		hd_log(HD_ERR, "cannot set up the registration queue: %s",
		       strerror(errno));
		return -1;
	}
	ev.data.u64 = HD_EV_FETCHED;
	if (gfd < 0 || epoll_ctl(hd->epfd, EPOLL_CTL_ADD, gfd, &ev) < 0) {
		hd_log(HD_ERR, "cannot watch the readers: %s", strerror(errno));
		return -1;
	}
	hd_check_epoll(hd->epfd, HD_EV_CHECK);
	return 0;
}

/* ---- jobs ------------------------------------------------------------ */

static void job_unlink(struct helperd *hd, struct hd_job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		hd->jobs = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		hd->jobs_tail = j->prev;
}

static void job_free(struct hd_job *j)
{
	if (j->f) {
		hd_fetch_free(j->f);
		free(j->f);
	}
	free(j);
}

/* j is no longer in a stage: unlink and free it. */
static void job_drop(struct helperd *hd, struct hd_job *j)
{
	job_unlink(hd, j);
	job_free(j);
}

bool hd_queue_may_answer_early(struct helperd *hd, uid_t uid)
{
	unsigned mine = 0, all = 0;

	for (struct hd_job *j = hd->jobs; j; j = j->next) {
		if (j->cancelled || !j->early)
			continue;
		all++;
		if (j->uid == uid)
			mine++;
	}
	return mine < HD_EARLY_PER_UID && all < HD_EARLY_MAX;
}

struct hd_job *hd_queue_add(struct helperd *hd, pid_t pid, pid_t tid,
			    uid_t uid, const dof_helper_t *h, uint64_t gen,
			    enum reg_origin origin, bool early, void *req)
{
	struct hd_job *j;
	unsigned mine = 0;

	if (hd->njobs >= HD_JOBS_MAX)
		return NULL;
	for (j = hd->jobs; uid != 0 && j; j = j->next)
		if (!j->cancelled && j->uid == uid && ++mine >= HD_JOBS_PER_UID)
			return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->seq = hd->job_seq++;
	j->pid = pid;
	j->tid = tid;
	j->uid = uid;
	j->h = *h;
	j->origin = origin;
	j->early = early;
	j->req = early ? NULL : req;
	/* Answered early: validated later, unless withdrawn meanwhile. */
	j->due_ns = early ? hd_mono_ns() + hd->settle_ms * 1000000ull : 0;
	if (gen) {
		j->gen = gen;
	} else {
		j->gen = hd->next_gen++;
		if (hd->next_gen > INT_MAX)
			hd->next_gen = 1;
	}
	hd->queue_kick = true;
	j->prev = hd->jobs_tail;
	if (hd->jobs_tail)
		hd->jobs_tail->next = j;
	else
		hd->jobs = j;
	hd->jobs_tail = j;
	hd->njobs++;
	return j;
}

static struct hd_job *find_job(struct helperd *hd, pid_t pid, uint64_t gen)
{
	for (struct hd_job *j = hd->jobs; j; j = j->next)
		if (!j->cancelled && j->pid == pid && j->gen == gen)
			return j;
	return NULL;
}

bool hd_queue_has(struct helperd *hd, pid_t pid, uint64_t dof_addr)
{
	for (struct hd_job *j = hd->jobs; j; j = j->next)
		if (!j->cancelled && j->pid == pid &&
		    j->h.dofhp_dof == dof_addr)
			return true;
	return false;
}

size_t hd_queue_pending_of(struct helperd *hd, pid_t pid, dof_helper_t *hv,
			   uint64_t *gv, size_t max)
{
	size_t n = 0;

	for (struct hd_job *j = hd->jobs; j && n < max; j = j->next)
		if (!j->cancelled && j->pid == pid && !j->req) {
			if (hv)
				hv[n] = j->h;
			if (gv)
				gv[n] = j->gen;
			n++;
		}
	return n;
}

/* ---- outcomes --------------------------------------------------------- */

static void remember_refusal(struct helperd *hd, const struct hd_job *j,
			     int err)
{
	struct hd_refused *r = &hd->refused[hd->refused_next];

	hd->refused_next = (hd->refused_next + 1) % HD_REFUSED_KEEP;
	r->pid = j->pid;
	r->gen = j->gen;
	r->err = err;
}

int hd_queue_refused(struct helperd *hd, pid_t pid, uint64_t gen, bool forget)
{
	for (unsigned i = 0; i < HD_REFUSED_KEEP; i++) {
		struct hd_refused *r = &hd->refused[i];
		int err;

		if (!r->gen || r->pid != pid || r->gen != gen)
			continue;
		err = r->err;
		if (forget)
			memset(r, 0, sizeof(*r));
		return err;
	}
	return 0;
}

/* Answer the SYNCs waiting for (pid, gen) with rc. */
static void answer_gen(struct helperd *hd, pid_t pid, uint64_t gen, int rc)
{
	size_t i = 0;

	while (i < hd->nsyncs) {
		struct hd_sync *s = &hd->syncs[i];

		if (s->gen && s->pid == pid && s->gen == gen) {
			hd_dev_reply(s->req, rc);
			*s = hd->syncs[--hd->nsyncs];
			continue;
		}
		i++;
	}
}

/* Whether a job that arrived before seq is still to be validated. */
static bool waiting_before(struct helperd *hd, uint64_t seq)
{
	for (struct hd_job *j = hd->jobs; j && j->seq < seq; j = j->next)
		if (!j->cancelled && !j->req && !j->result)
			return true;
	return false;
}

/* Answer the SYNC(0)s whose jobs are all done, files written first. */
static void answer_all(struct helperd *hd)
{
	bool flushed = false;
	size_t i = 0;

	while (i < hd->nsyncs) {
		struct hd_sync *s = &hd->syncs[i];

		if (!s->gen && !waiting_before(hd, s->seq)) {
			if (!flushed)
				hd_reg_flush(hd);
			flushed = true;
			hd_dev_reply(s->req, 0);
			*s = hd->syncs[--hd->nsyncs];
			continue;
		}
		i++;
	}
}

/*
 * j is over with rc (the generation, or -errno): whoever waits hears it,
 * its process is told (hd_reg.c), and j goes.
 */
static void job_end(struct helperd *hd, struct hd_job *j, int rc)
{
	hd->njobs--;
	if (rc < 0 && j->origin != REG_ORIGIN_FORK)
		remember_refusal(hd, j, -rc);
	if (j->req)
		hd_dev_reply(j->req, rc);
	if (j->result)
		*j->result = rc;
	answer_gen(hd, j->pid, j->gen, rc < 0 ? rc : 0);
	hd_reg_job_end(hd, j, rc);
	job_drop(hd, j);
}

/* Withdraw j: its result, when a stage gives it, is dropped. */
static void job_cancel(struct helperd *hd, struct hd_job *j)
{
	hd->njobs--;
	hd->queue_kick = true;
	if (j->req)
		hd_dev_reply(j->req, -ESRCH);
	if (j->result)
		*j->result = -ESRCH;
	j->req = NULL;
	j->result = NULL;
	answer_gen(hd, j->pid, j->gen, -ENOENT);
	if (j->state == HD_JOB_QUEUED) {
		job_drop(hd, j);
		return;
	}
	j->cancelled = true; /* freed when its stage is over */
	if (j->state == HD_JOB_FETCHED) {
		hd->nfetching--;
		job_drop(hd, j);
	}
}

bool hd_queue_cancel(struct helperd *hd, pid_t pid, uint64_t gen,
		     dof_helper_t *h)
{
	struct hd_job *j = find_job(hd, pid, gen);

	if (!j)
		return false;
	if (h)
		*h = j->h;
	job_cancel(hd, j);
	return true;
}

bool hd_queue_cancel_dof(struct helperd *hd, pid_t pid, uint64_t addr,
			 dof_helper_t *h)
{
	for (struct hd_job *j = hd->jobs; j; j = j->next)
		if (!j->cancelled && j->pid == pid && j->h.dofhp_dof == addr) {
			if (h)
				*h = j->h;
			job_cancel(hd, j);
			return true;
		}
	return false;
}

void hd_queue_cancel_pid(struct helperd *hd, pid_t pid)
{
	struct hd_job *j = hd->jobs, *next;

	for (; j; j = next) {
		next = j->next;
		if (!j->cancelled && j->pid == pid)
			job_cancel(hd, j);
	}
}

/* ---- the stages ------------------------------------------------------- */

static bool due(const struct helperd *hd, const struct hd_job *j,
		uint64_t now)
{
	return j->seq < hd->hurry_seq || j->due_ns <= now;
}

/*
 * The next job to read: due, of a user none of whose jobs is being read
 * or waits for the checker (a stalled read holds up its own user only),
 * the oldest of the user after the one read last (uids in a circle), so
 * users take turns whatever their numbers.
 */
static struct hd_job *pick(struct helperd *hd, uint64_t now)
{
	struct hd_job *after = NULL, *first = NULL;
	uid_t busy[HD_FETCH_MAX];
	unsigned nbusy = 0, k;

	for (struct hd_job *j = hd->jobs; j && nbusy < HD_FETCH_MAX;
	     j = j->next)
		if (j->state == HD_JOB_FETCHING || j->state == HD_JOB_FETCHED)
			busy[nbusy++] = j->uid;
	for (struct hd_job *j = hd->jobs; j; j = j->next) {
		if (j->cancelled || j->state != HD_JOB_QUEUED ||
		    !due(hd, j, now))
			continue;
		for (k = 0; k < nbusy && busy[k] != j->uid; k++)
			;
		if (k < nbusy)
			continue;
		if (!first || j->uid < first->uid)
			first = j;
		if (j->uid > hd->rr_uid && (!after || j->uid < after->uid))
			after = j;
	}
	return after ? after : first;
}

static void start_fetch(struct helperd *hd, struct hd_job *j)
{
	int rc;

	hd->rr_uid = j->uid;
	rc = hd_reg_job_owes(hd, j);
	if (rc < 0) {
		job_end(hd, j, rc);
		return;
	}
	if (!j->f) {
		j->f = calloc(1, sizeof(*j->f));
		if (!j->f) {
			job_end(hd, j, -ENOMEM);
			return;
		}
	}
	/*
	 * Through the calling thread: the main thread of a process may
	 * have called pthread_exit(), and then reads through the pid fail.
	 */
	rc = hd_guard_fetch_begin(j->tid, j->uid, j->h.dofhp_dof,
				  hd->max_dof, j);
	if (rc < 0) {
		j->f->stage = HD_FETCH_READ;
		snprintf(j->f->why, sizeof(j->f->why), "%s",
			 rc == -EAGAIN ? "earlier reads are stuck in stalled "
					 "file systems" :
					 strerror(-rc));
		job_end(hd, j, hd_reg_job_fetched(hd, j, rc));
		return;
	}
	j->state = HD_JOB_FETCHING;
	hd->nfetching++;
}

static void fetched(struct helperd *hd, struct hd_job *j, struct hd_fetch *f,
		    int rc)
{
	hd->nfetching--;
	*j->f = *f;
	if (j->cancelled) {
		job_drop(hd, j);
		return;
	}
	/*
	 * The thread that asked has gone (a thread that dlopen()ed and
	 * exited): read once more, through the process.
	 */
	if (rc == -ESRCH && j->tid != j->pid && !j->retried) {
		hd_fetch_free(j->f);
		memset(j->f, 0, sizeof(*j->f));
		j->retried = true;
		j->tid = j->pid;
		j->state = HD_JOB_QUEUED;
		j->due_ns = 0;
		return;
	}
	rc = hd_reg_job_fetched(hd, j, rc);
	if (rc < 0) {
		job_end(hd, j, rc);
		return;
	}
	j->state = HD_JOB_FETCHED;
	hd->nfetching++;
}

/* The job read first goes to the checker (one read per user at a time). */
static void start_check(struct helperd *hd, struct hd_job *j)
{
	hd->nfetching--;
	j->state = HD_JOB_CHECKING;
	hd->checking = j;
	hd->n_checked++;
	hd->b_checked += j->f->len;
	hd_log(HD_DEBUG, "pid %d: generation %" PRIu64 ": checking %zu bytes "
	       "of DOF", (int)j->pid, j->gen, j->f->len);
	(void)hd_check_begin(hd->max_dof, j->f->buf, j->f->len,
			     j->h.dofhp_addr);
}

static void checked(struct helperd *hd)
{
	struct hd_job *j = hd->checking;
	struct dof_err derr;
	uint64_t *sites;
	size_t nsites;
	int rc = hd_check_end(&sites, &nsites, &derr);

	hd->checking = NULL;
	if (j->cancelled) {
		free(sites);
		job_drop(hd, j);
		return;
	}
	rc = hd_reg_job_checked(hd, j, rc, sites, nsites, &derr);
	free(sites);
	job_end(hd, j, rc);
}

/* The earliest moment something is due: a job, or a stage's deadline. */
static void arm_timer(struct helperd *hd, uint64_t now)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t next = hd_guard_fetch_deadline(), d = hd_check_deadline();

	if (d && (!next || d < next))
		next = d;
	if (hd->nfetching < HD_FETCH_MAX)
		for (struct hd_job *j = hd->jobs; j; j = j->next)
			if (!j->cancelled && j->state == HD_JOB_QUEUED &&
			    (!next || j->due_ns < next))
				next = j->due_ns;
	/*
	 * Only ever earlier: a timer that fires with nothing due costs one
	 * wake-up, re-arming it at every request a system call each.
	 */
	if (hd->queue_tfd < 0 || !next ||
	    (hd->queue_armed && hd->queue_armed <= next))
		return;
	if (next <= now)
		next = now + 1;
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	timerfd_settime(hd->queue_tfd, TFD_TIMER_ABSTIME, &its, NULL);
	hd->queue_armed = next;
}

void hd_queue_run(struct helperd *hd)
{
	uint64_t now = hd_mono_ns(), ticks;
	bool moved = true;

	if (hd->queue_armed && now >= hd->queue_armed) {
		/* It fired (one-shot): read it so that it stops waking us. */
		if (read(hd->queue_tfd, &ticks, sizeof(ticks)) < 0) {
			/* EAGAIN: not quite yet; it wakes us again */
		}
		hd->queue_armed = 0;
	}
	while (moved) {
		struct hd_fetch f;
		struct hd_job *j;
		int rc;

		moved = false;
		if ((j = hd_guard_fetch_end(&f, &rc)) ||
		    (j = hd_guard_fetch_expire(now, &f, &rc))) {
			fetched(hd, j, &f, rc);
			moved = true;
		}
		if (hd->checking && (hd_check_step() || hd_check_expire(now))) {
			checked(hd);
			moved = true;
		}
		if (!hd->checking) {
			for (j = hd->jobs; j; j = j->next)
				if (!j->cancelled && j->state == HD_JOB_FETCHED)
					break;
			if (j) {
				start_check(hd, j);
				moved = true;
			}
		}
		if (hd->nfetching < HD_FETCH_MAX && (j = pick(hd, now))) {
			start_fetch(hd, j);
			moved = true;
		}
	}
	if (hd->nsyncs)
		answer_all(hd);
	arm_timer(hd, now);
}

int hd_queue_wait(struct helperd *hd, struct hd_job *j, uint64_t until)
{
	int result = INT_MIN;

	j->result = &result;
	j->due_ns = 0;
	for (;;) {
		struct pollfd pfd[2];
		uint64_t now, next;
		nfds_t n = 0;
		short ev;
		int fd, ms = 100;

		hd_queue_run(hd);
		if (result != INT_MIN)
			return result;
		if (until && hd_mono_ns() >= until) {
			j->result = NULL; /* still queued, nobody waits */
			return -ETIMEDOUT;
		}
		pfd[n].fd = hd_guard_event_fd();
		pfd[n++].events = POLLIN;
		fd = hd_check_fd_wanted(&ev);
		if (fd >= 0) {
			pfd[n].fd = fd;
			pfd[n++].events = ev;
		}
		now = hd_mono_ns();
		next = hd_guard_fetch_deadline();
		if (hd_check_deadline() && (!next || hd_check_deadline() < next))
			next = hd_check_deadline();
		if (next && next > now && (next - now) / 1000000 < 100)
			ms = (int)((next - now) / 1000000) + 1;
		(void)poll(pfd, n, ms);
	}
}

/* ---- SYNC ------------------------------------------------------------- */

static int hold(struct helperd *hd, void *req, pid_t pid, uint64_t gen)
{
	if (grow_one(&hd->syncs, &hd->syncs_cap, hd->nsyncs,
		     sizeof(*hd->syncs)) < 0)
		return -ENOMEM;
	hd->syncs[hd->nsyncs].req = req;
	hd->syncs[hd->nsyncs].pid = pid;
	hd->syncs[hd->nsyncs].gen = gen;
	hd->syncs[hd->nsyncs].seq = hd->job_seq;
	hd->nsyncs++;
	return 1;
}

int hd_queue_sync(struct helperd *hd, pid_t tid, uid_t cuid, int gen,
		  void *req)
{
	struct hd_job *j;
	pid_t pid;
	int err;

	if (gen < 0)
		return -EINVAL;
	if (gen == 0) {
		/* Everything that arrived before, fork children included. */
		hd_fork_settle_all(hd);
		hd->hurry_seq = hd->job_seq;
		if (!waiting_before(hd, hd->job_seq)) {
			hd_reg_flush(hd);
			return 0;
		}
		err = hold(hd, req, 0, 0);
		hd_queue_run(hd);
		return err;
	}
	pid = hd_reg_pid_of(hd, tid, cuid);
	if (pid < 0)
		return pid;
	j = find_job(hd, pid, (uint64_t)gen);
	if (j) {
		j->due_ns = 0;
		err = hold(hd, req, pid, (uint64_t)gen);
		hd_queue_run(hd);
		return err;
	}
	if (hd_reg_has_gen(hd, pid, (uint64_t)gen))
		return 0;
	err = hd_queue_refused(hd, pid, (uint64_t)gen, false);
	return err ? -err : -ENOENT;
}

/* ---- start and stop --------------------------------------------------- */

void hd_queue_drain(struct helperd *hd, unsigned ms)
{
	uint64_t until = hd_mono_ns() + ms * 1000000ull;

	hd->hurry_seq = hd->job_seq;
	while (hd->njobs && hd_mono_ns() < until) {
		struct hd_job *last = NULL;

		for (struct hd_job *j = hd->jobs; j; j = j->next)
			if (!j->cancelled)
				last = j;
		if (!last || hd_queue_wait(hd, last, until) == -ETIMEDOUT)
			break;
	}
	if (hd->njobs)
		hd_log(HD_WARN,
		       "stopping with %zu registrations answered but "
		       "not yet checked after %u ms: not recorded (the next "
		       "start's scan finds those of running processes)",
		       hd->njobs, ms);
}

void hd_queue_stop(struct helperd *hd)
{
	struct hd_job *j, *next;

	for (j = hd->jobs; j; j = next) {
		next = j->next;
		if (!j->cancelled && j->req)
			hd_dev_reply(j->req, -ESRCH);
		job_free(j);
	}
	hd->jobs = hd->jobs_tail = NULL;
	hd->checking = NULL;
	hd->nfetching = 0;
	hd->njobs = 0;
	for (size_t i = 0; i < hd->nsyncs; i++)
		hd_dev_reply(hd->syncs[i].req, -ESRCH);
	free(hd->syncs);
	hd->syncs = NULL;
	hd->nsyncs = hd->syncs_cap = 0;
	if (hd->queue_tfd >= 0)
		close(hd->queue_tfd);
	hd->queue_tfd = -1;
}
