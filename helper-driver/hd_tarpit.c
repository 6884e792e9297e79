// SPDX-License-Identifier: MIT
/*
 * hd_tarpit.c - a user in debt waits for its refusal.
 *
 * A user who owes more than the daemon forgives for refused work
 * (hd_reg.c, "Fairness") has its ADDDOFs refused with EBUSY before
 * anything is read.  Answered at once, that refusal is the cheapest
 * request there is -- and so the one a flooding process can send fastest:
 * each answer sends the next request, and the daemon's loop, which
 * answers everyone, spent all its share of the CPUs answering one
 * attacker.  On a loaded machine (load average 13-21, two vCPUs) the
 * loop then waited for a CPU as long as a second with another user's
 * registration behind it (bench/RESULTS-attack.md).
 *
 * So the refusal is held until the user's debt would be paid back below
 * the limit -- what it owes above the limit at the daemon's pay-back
 * rate, between 1 ms and 1 s -- and only then answered.  The attacker's
 * thread sleeps meanwhile instead of asking again.
 *
 * Holding has no limit per user.  It used to (64 held refusals a user):
 * 256 processes of one user looping on refused 8 MiB blobs then had 64
 * asleep and 192 answered at once, again and again, and kept the daemon
 * at a full CPU of answers where 64 processes cost it nothing.  Any cap
 * per user is such a cliff, and a user can always start more threads
 * than a cap, so every refusal of a user in debt is held: each one is a
 * blocked thread of the caller -- a task and its kernel stack, counted
 * against the caller's RLIMIT_NPROC -- and costs the daemon 16 bytes
 * here and libfuse's request (a few hundred bytes), no CPU until it is
 * answered.  Only HD_TARPIT_MAX held in all (twice the kernel's default
 * pid_max of 32,768; under 20 MiB) bounds the daemon's memory; beyond it
 * a refusal is answered at once, as before.  What held refusals cannot
 * stop -- their callers asking again together once the debt is paid
 * down, so that many blobs pass the check at ADDDOF at the same moment --
 * hd_reg_job_owes() does: a queued job of a user who owes by the time
 * it would be read is turned away unread.
 *
 * The held refusals are a binary heap ordered by when they fall due
 * (holding and answering cost O(log n), whatever the number held), grown
 * as needed; the daemon's loop answers the due ones when its timerfd
 * fires, and at exit every one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "helperd.h"

#define HD_TARPIT_MAX 65536u
#define HD_TARPIT_MIN_NS 1000000u    /* 1 ms */
#define HD_TARPIT_MAX_NS 1000000000u /* 1 s */

struct held {
	void *req;
	uint64_t due_ns;
};

static struct held *held; /* a min-heap on due_ns */
static size_t nheld, cap;
static int tfd = -1;
static uint64_t armed; /* the timer's expiry, 0: disarmed */

int hd_tarpit_start(struct helperd *hd)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = HD_EV_TARPIT };

	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0 || epoll_ctl(hd->epfd, EPOLL_CTL_ADD, tfd, &ev) < 0) {
		hd_log(HD_WARN, "refusals of users in debt are answered at "
		       "once: %s", strerror(errno));
		if (tfd >= 0)
			close(tfd);
		tfd = -1;
		return -1;
	}
	return 0;
}

static void swap(size_t a, size_t b)
{
	struct held t = held[a];

	held[a] = held[b];
	held[b] = t;
}

static void sift_up(size_t i)
{
	while (i > 0 && held[(i - 1) / 2].due_ns > held[i].due_ns) {
		swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < nheld && held[l].due_ns < held[m].due_ns)
			m = l;
		if (r < nheld && held[r].due_ns < held[m].due_ns)
			m = r;
		if (m == i)
			return;
		swap(i, m);
		i = m;
	}
}

/* The timer at the earliest due time (the heap's top), if it moved. */
static void arm(uint64_t now)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t next;

	if (!nheld || held[0].due_ns == armed)
		return;
	next = held[0].due_ns > now ? held[0].due_ns : now + 1;
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	armed = held[0].due_ns;
}

bool hd_tarpit_hold(void *req, double owed_over, double rate)
{
	uint64_t now = hd_mono_ns(), wait;

	if (tfd < 0 || !req || nheld >= HD_TARPIT_MAX)
		return false;
	if (grow_one(&held, &cap, nheld, sizeof(*held)) < 0)
		return false;
	wait = rate > 0 ? (uint64_t)(owed_over / rate * 1e9) : HD_TARPIT_MAX_NS;
	if (wait < HD_TARPIT_MIN_NS)
		wait = HD_TARPIT_MIN_NS;
	if (wait > HD_TARPIT_MAX_NS)
		wait = HD_TARPIT_MAX_NS;
	held[nheld].req = req;
	held[nheld].due_ns = now + wait;
	sift_up(nheld++);
	arm(now);
	return true;
}

/* Answer what is due (everything with all), re-arm for the rest. */
static void answer(bool all)
{
	uint64_t now = hd_mono_ns(), ticks;

	if (tfd >= 0 && read(tfd, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: woken for something else, or early */
	}
	armed = 0;
	while (nheld && (all || held[0].due_ns <= now)) {
		hd_dev_reply(held[0].req, -EBUSY);
		held[0] = held[--nheld];
		sift_down(0);
	}
	if (tfd >= 0)
		arm(now);
	if (!nheld && cap > 256) {
		/* A flood is over: give its memory back. */
		free(held);
		held = NULL;
		cap = 0;
	}
}

void hd_tarpit_run(void)
{
	answer(false);
}

void hd_tarpit_stop(void)
{
	answer(true);
	free(held);
	held = NULL;
	cap = 0;
	if (tfd >= 0)
		close(tfd);
	tfd = -1;
}
