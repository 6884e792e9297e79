// SPDX-License-Identifier: MIT
/*
 * sl.c - tests/run-trace-sitelink.sh's target: fires sl:::hit N times
 * (argument: the mode's number) around the process changes a site link
 * must follow (dtrace-G/consumer/bpf_attach.c):
 *
 *	sl fork N	N hits, a child forks and fires N, waited for, N more
 *			(the parent's 2N, the child's N)
 *	sl exec N	N hits, then the leader execs "sl plain N" (2N)
 *	sl texec N	N hits, then another thread execs "sl plain N" (2N)
 *	sl lexit N	N hits, the leader exits (pthread_exit) while a
 *			thread sleeps 400 ms then fires N (2N)
 *	sl lrace N	N hits (arg0 5), then a thread fires N while the
 *			leader exits (pthread_exit) once it has fired 10:
 *			hits on both sides of the exit (2N)
 *	sl plain N	once its probe is enabled (at most 10 s), N hits
 *	sl chain N K	once enabled, N hits (arg0 6), then the leader
 *			execs "sl chain N K-1", down to K 0: (K+1)N
 *	sl lexec N	once enabled, N hits (arg0 7), the leader exits
 *			(pthread_exit) while a thread sleeps 400 ms
 *			then execs "sl plain N" (2N)
 *	sl tnow N	once enabled, N hits (arg0 9), then another
 *			thread execs "sl now N" (2N)
 *	sl now N	N hits at once, enabled or not
 *
 * An exec'd image fires once dtrace has armed it (the semaphore the
 * kernel counts up), not before: an image is armed at its start only
 * where dtrace holds it there (dlhold.c), and these counts are about
 * what the old image's arming leaves, not that; but "now", which tnow
 * execs, fires at once: its image must be armed before it runs
 * (dlhold.c arms it at the exec stop).  The modes for -p (chain, lexec,
 * tnow) wait so for their first image too.  lexit's pause only
 * lets dtrace see the leader gone first (either order is exact).
 * lexit keeps its threads on one CPU and lets the new thread run before
 * the leader exits: a switch between the two on one CPU is where the
 * kernel swapped their perf contexts, which lost the thread's hits once
 * the leader was gone in about one run in three (dtrace-G/consumer/
 * uprobe.c, "No swap").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sl.h"

static long n;
static char *self;

static void fire(int mode)
{
	for (long i = 0; i < n; i++) {
		if (SL_HIT_ENABLED())
			SL_HIT(mode);
		__asm__ __volatile__("" ::: "memory");
	}
}

static void plain_exec(void)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%ld", n);
	execl(self, self, "plain", arg, (char *)NULL);
	perror("execl");
	_exit(1);
}

static void *texec(void *a)
{
	(void)a;
	plain_exec();
	return NULL;
}

/* at most 10 s until dtrace has armed this image */
static void await_enabled(void)
{
	struct timespec ms = {0, 1000 * 1000};

	for (int i = 0; i < 10000 && !SL_HIT_ENABLED(); i++)
		nanosleep(&ms, NULL);
}

static void *tnow(void *a)
{
	char arg[32];

	(void)a;
	snprintf(arg, sizeof(arg), "%ld", n);
	execl(self, self, "now", arg, (char *)NULL);
	perror("execl");
	_exit(1);
}

static void *lexec(void *a)
{
	struct timespec ts = {0, 400 * 1000 * 1000};

	(void)a;
	nanosleep(&ts, NULL);
	plain_exec();
	return NULL;
}

/* this process's threads, those to come too, on the CPU it runs on */
static void one_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

static atomic_int lrace_started;

static void *lrace(void *a)
{
	(void)a;
	for (long i = 0; i < n; i++) {
		if (SL_HIT_ENABLED())
			SL_HIT(5);
		if (i == 10)
			atomic_store(&lrace_started, 1);
		__asm__ __volatile__("" ::: "memory");
	}
	atomic_store(&lrace_started, 1); /* N of 10 or fewer */
	exit(0);
}

static void *lexit(void *a)
{
	struct timespec ts = {0, 400 * 1000 * 1000};

	(void)a;
	nanosleep(&ts, NULL);
	fire(4);
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t p;
	int st;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[1], "chain")))
		return 2;
	self = argv[0];
	n = atol(argv[2]);
	if (!strcmp(argv[1], "plain")) {
		await_enabled();
		fire(0);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "chain")) {
		int k = atoi(argv[3]);
		char kk[16];

		await_enabled();
		fire(6);
		if (k <= 0)
			return 0;
		snprintf(kk, sizeof(kk), "%d", k - 1);
		execl(self, self, "chain", argv[2], kk, (char *)NULL);
		perror("execl");
		return 1;
	}
	if (!strcmp(argv[1], "now")) {
		fire(0);
		return 0;
	}
	if (!strcmp(argv[1], "tnow")) {
		await_enabled();
		fire(9);
		if (pthread_create(&t, NULL, tnow, NULL))
			return 1;
		pause();
	}
	if (!strcmp(argv[1], "lexec")) {
		await_enabled();
		fire(7);
		if (pthread_create(&t, NULL, lexec, NULL))
			return 1;
		pthread_exit(NULL);
	}
	if (!strcmp(argv[1], "fork")) {
		fire(1);
		p = fork();
		if (p == 0) {
			fire(1);
			_exit(0);
		}
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 1;
		fire(1);
		return 0;
	}
	if (!strcmp(argv[1], "exec")) {
		fire(2);
		plain_exec();
	}
	if (!strcmp(argv[1], "texec")) {
		fire(3);
		if (pthread_create(&t, NULL, texec, NULL))
			return 1;
		pause();
	}
	if (!strcmp(argv[1], "lexit")) {
		struct timespec ms = {0, 1000 * 1000};

		one_cpu();
		fire(4);
		if (pthread_create(&t, NULL, lexit, NULL))
			return 1;
		nanosleep(&ms, NULL); /* the thread runs, on this CPU */
		pthread_exit(NULL);
	}
	if (!strcmp(argv[1], "lrace")) {
		fire(5);
		if (pthread_create(&t, NULL, lrace, NULL))
			return 1;
		while (!atomic_load(&lrace_started))
			sched_yield();
		pthread_exit(NULL);
	}
	return 2;
}
