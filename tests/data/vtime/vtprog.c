// SPDX-License-Identifier: MIT
/*
 * vtprog.c - the probed program of tests/run-vtimestamp.sh.  Its threads
 * fire vt:::mark(phase, thread, own) around work whose CPU time they
 * measure themselves with CLOCK_THREAD_CPUTIME_ID, and print it:
 *
 *	1, 2	main spins for 150 ms of its CPU time (own: what it measured)
 *	3, 4	main sleeps 200 ms
 *	getppid(2) before and after a second 150 ms spin (syscall probes),
 *	clock_nanosleep(2) of 200 ms (its entry and return)
 *	5, 6	thread 1 spins 150 ms while thread 2 sleeps 300 ms, at once
 *	7	every thread, 300 times, with sched_yield() between
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "vt.h"

static long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* spin for ms of this thread's CPU time; what it took, in ns */
static long spin(long ms)
{
	long t0 = cpu_ns(), t;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		t = cpu_ns();
	} while (t - t0 < ms * 1000000L);
	return t - t0;
}

static void sleep_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&d, NULL);
}

static void marks(int th)
{
	for (int i = 0; i < 300; i++) {
		VT_MARK(7, th, 0);
		sched_yield();
	}
}

static pthread_barrier_t bar;

static void *thread(void *arg)
{
	int th = (int)(long)arg;
	long own = 0, t0;

	pthread_barrier_wait(&bar);
	VT_MARK(5, th, 0);
	t0 = cpu_ns();
	if (th == 1)
		own = spin(150);
	else
		sleep_ms(300);
	own = cpu_ns() - t0;
	VT_MARK(6, th, own);
	printf("thread %d own %ld\n", th, own);
	marks(th);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	long own, t0;

	VT_MARK(1, 0, 0);
	t0 = cpu_ns();
	spin(150);
	own = cpu_ns() - t0;
	VT_MARK(2, 0, own);
	printf("busy own %ld\n", own);
	VT_MARK(3, 0, 0);
	sleep_ms(200);
	VT_MARK(4, 0, 0);
	(void)getppid();
	t0 = cpu_ns();
	spin(150);
	own = cpu_ns() - t0;
	(void)getppid();
	printf("sysbusy own %ld\n", own);
	sleep_ms(200);
	pthread_barrier_init(&bar, NULL, 2);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	marks(0);
	fflush(stdout);
	return 0;
}
