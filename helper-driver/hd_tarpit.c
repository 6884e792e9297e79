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
 * thread sleeps meanwhile instead of asking again; a user may have at
 * most HD_TARPIT_PER_UID refusals held (its blocked threads), all users
 * HD_TARPIT_MAX; beyond, the refusal is answered at once as before.
 * Held refusals are answered in the order they fall due, from the
 * daemon's loop (a timerfd); at exit every one is answered.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "helperd.h"

#define HD_TARPIT_PER_UID 64
#define HD_TARPIT_MAX 1024
#define HD_TARPIT_MIN_NS 1000000u    /* 1 ms */
#define HD_TARPIT_MAX_NS 1000000000u /* 1 s */

static struct held {
	void *req;
	uint64_t due_ns;
	uid_t uid;
} held[HD_TARPIT_MAX];
static size_t nheld;
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

static void arm(uint64_t now)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t next = 0;

	for (size_t i = 0; i < nheld; i++)
		if (!next || held[i].due_ns < next)
			next = held[i].due_ns;
	if (!next || next == armed)
		return;
	if (next <= now)
		next = now + 1;
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	armed = next;
}

bool hd_tarpit_hold(uid_t uid, void *req, double owed_over, double rate)
{
	uint64_t now = hd_mono_ns(), wait;
	size_t mine = 0;

	if (tfd < 0 || !req || nheld >= HD_TARPIT_MAX)
		return false;
	for (size_t i = 0; i < nheld; i++)
		mine += held[i].uid == uid;
	if (mine >= HD_TARPIT_PER_UID)
		return false;
	wait = rate > 0 ? (uint64_t)(owed_over / rate * 1e9) : HD_TARPIT_MAX_NS;
	if (wait < HD_TARPIT_MIN_NS)
		wait = HD_TARPIT_MIN_NS;
	if (wait > HD_TARPIT_MAX_NS)
		wait = HD_TARPIT_MAX_NS;
	held[nheld].req = req;
	held[nheld].due_ns = now + wait;
	held[nheld].uid = uid;
	nheld++;
	if (!armed || now + wait < armed)
		arm(now);
	return true;
}

/* Answer what is due (everything with all), re-arm for the rest. */
static void answer(bool all)
{
	uint64_t now = hd_mono_ns(), ticks;
	size_t i = 0;

	if (tfd >= 0 && read(tfd, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: woken for something else, or early */
	}
	armed = 0;
	while (i < nheld) {
		if (all || held[i].due_ns <= now) {
			hd_dev_reply(held[i].req, -EBUSY);
			held[i] = held[--nheld];
		} else {
			i++;
		}
	}
	if (tfd >= 0)
		arm(now);
}

void hd_tarpit_run(void)
{
	answer(false);
}

void hd_tarpit_stop(void)
{
	answer(true);
	if (tfd >= 0)
		close(tfd);
	tfd = -1;
}
