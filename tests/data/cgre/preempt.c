// SPDX-License-Identifier: MIT
/*
 * preempt.c - run-cgen-preempt.sh's traced program: T threads, all on
 * one CPU (the process pins itself to the first CPU it may run on, so
 * the threads share it however many the machine has), each making N
 * rounds of: access(p) (a system call whose argument is a string),
 * hit(p, t, i) and tally(i) (functions the pid provider probes), and
 * after every B rounds a sleep of S microseconds.  p is a
 * string whose 200 first bytes are the thread's own pair of letters
 * ("ab" for thread 0, "cd" for 1, ...) and whose last bytes are "-t-i":
 * a record built from it whole has a string run-cgen-preempt.sh can
 * check against its thread and round.
 *
 * The sleeps are what makes programs nest on a preemptible kernel: a
 * thread that wakes from one preempts the thread running (a woken
 * thread's wake-up preemption), wherever that one is, in the middle of
 * its uprobe's BPF program too, and its first act is the access(): its
 * system call's program then runs on the CPU while the other's uprobe
 * program is halfway (doc/DESIGN.md "Programs that nest on a CPU").
 *
 *   preempt N T [B [S]]   T threads (1 to 13), N rounds each; B 0 (the
 *                         default): no sleep; S default 100.  Then each
 *                         thread's involuntary context switches
 *                         (getrusage()'s ru_nivcsw) on stdout, and 300 ms
 *                         of sleep (the consumer reads the last records)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) int hit(const char *p, long t, long i)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return (int)(t + i);
}

__attribute__((noinline)) int tally(long i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return (int)i + 1;
}

static long n, burst, nap;
static pthread_barrier_t go;
static long nivcsw[13];

static void *run(void *arg)
{
	long t = (long)arg;
	char pair[2] = {(char)('a' + 2 * t), (char)('a' + 2 * t + 1)};
	char buf[256];
	struct rusage ru;

	for (int k = 0; k < 200; k += 2)
		memcpy(buf + k, pair, 2);
	pthread_barrier_wait(&go);
	for (long i = 0; i < n; i++) {
		snprintf(buf + 200, sizeof(buf) - 200, "-%ld-%ld", t, i);
		/* no such file: the call fails, its probe has the string */
		syscall(SYS_access, buf, F_OK);
		hit(buf, t, i);
		tally(i);
		if (burst && (i + 1) % burst == 0)
			usleep((useconds_t)nap);
	}
	/* how often the scheduler took the CPU from this thread */
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		nivcsw[t] = ru.ru_nivcsw;
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 2 ? atol(argv[2]) : 2;
	pthread_t th[13];
	cpu_set_t set;

	n = argc > 1 ? atol(argv[1]) : 1000;
	burst = argc > 3 ? atol(argv[3]) : 0;
	nap = argc > 4 ? atol(argv[4]) : 100;
	if (nt < 1 || nt > 13) {
		fprintf(stderr, "preempt: 1 to 13 threads, not %ld\n", nt);
		return 2;
	}
	/* one CPU for every thread: the first this process may use */
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				CPU_ZERO(&set);
				CPU_SET(c, &set);
				break;
			}
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			perror("preempt: sched_setaffinity");
	}
	pthread_barrier_init(&go, NULL, (unsigned)nt);
	for (long t = 0; t < nt; t++)
		if (pthread_create(&th[t], NULL, run, (void *)t) != 0) {
			perror("preempt: pthread_create");
			return 1;
		}
	for (long t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	for (long t = 0; t < nt; t++)
		printf("thread %ld: %ld involuntary switches\n", t, nivcsw[t]);
	fflush(stdout);
	usleep(300000);
	return 0;
}
