// SPDX-License-Identifier: MIT
/*
 * sysloop.c - the system call benchmark: N calls of one system call,
 * getppid (the one the benchmark traces) or getpid (one it does not:
 * what tracing getppid costs every other call), through syscall(2) so
 * no libc cache answers it; then spins on the CPU for S seconds of its
 * own time when asked (profile-N's target).  Prints the nanoseconds per
 * call (or per spin iteration).
 *
 *	sysloop ppid N		N getppid() calls
 *	sysloop pid N		N getpid() calls
 *	sysloop spin N		N iterations of a loop that makes no call
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n = argc > 2 ? atol(argv[2]) : 0, nr;
	double ns;

	if (argc < 3)
		return 2;
	nr = !strcmp(argv[1], "ppid") ? SYS_getppid : SYS_getpid;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!strcmp(argv[1], "spin"))
		for (long i = 0; i < n; i++)
			sink += (unsigned long)i * 2654435761u;
	else
		for (long i = 0; i < n; i++)
			syscall(nr);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.1f\n", n ? ns / (double)n : 0.0);
	return 0;
}
