/* SPDX-License-Identifier: MIT */
/*
 * pidprog.c - a program without probes for the pid provider's tests
 * (tests/run-pid.sh): functions that are never inlined, called a known
 * number of times with known arguments, and calls into libc.
 *
 * Commands come from the arguments (dtrace -c) or, with none, one per
 * line from standard input (dtrace -p), each answered "ok CMD":
 *
 *	work N		pid_work(i) and pid_add3(i, 10i, 100i), i = 0..N-1
 *	getpid N	N calls of getpid(2)
 *	many		pid_many8(1, 2, ..., 8): two arguments on the stack
 *	neg		pid_neg(5), which returns -5
 *	flow		pid_outer(), which calls pid_inner() twice
 *	fork N		a child calls pid_work() N times and exits, then the
 *			parent does the same
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* straight-line: every instruction runs once per call */
NOINLINE int pid_work(int i)
{
	return i * 3 + 1;
}

NOINLINE long pid_add3(long a, long b, long c)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c;
}

/* a second name for pid_add3: one probe, found by either name */
long pid_sum3(long a, long b, long c) __attribute__((alias("pid_add3")));

NOINLINE long pid_many8(long a, long b, long c, long d, long e, long f,
			long g, long h)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h;
}

NOINLINE int pid_neg(int v)
{
	__asm__ volatile("" ::: "memory");
	return -v;
}

static volatile int sink;

NOINLINE void pid_inner(int v)
{
	sink = v;
}

NOINLINE void pid_outer(void)
{
	pid_inner(1);
	pid_inner(2);
	sink = 0;
}

static void run(const char *cmd)
{
	long n = 0;

	if (sscanf(cmd, "work %ld", &n) == 1) {
		long s = 0;

		for (long i = 0; i < n; i++) {
			s += pid_work((int)i);
			s += pid_add3(i, 10 * i, 100 * i);
		}
		sink = (int)s;
	} else if (sscanf(cmd, "getpid %ld", &n) == 1) {
		for (long i = 0; i < n; i++)
			sink = (int)getpid();
	} else if (!strcmp(cmd, "many")) {
		sink = (int)pid_many8(1, 2, 3, 4, 5, 6, 7, 8);
	} else if (!strcmp(cmd, "neg")) {
		sink = pid_neg(5);
	} else if (!strcmp(cmd, "flow")) {
		pid_outer();
	} else if (sscanf(cmd, "fork %ld", &n) == 1) {
		pid_t child = fork();

		for (long i = 0; child <= 0 && i < n; i++)
			sink = pid_work((int)i);
		if (child == 0)
			_exit(0);
		if (child > 0)
			waitpid(child, NULL, 0);
		for (long i = 0; i < n; i++)
			sink = pid_work((int)i);
	}
}

int main(int argc, char **argv)
{
	char line[256];

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			run(argv[i]);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "quit"))
			break;
		run(line);
		printf("ok %s\n", line);
	}
	return 0;
}
