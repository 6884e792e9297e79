// SPDX-License-Identifier: MIT
/*
 * pidloop.c - the pid provider benchmark's target (bench/pid.sh): N calls
 * of a function that is never inlined and has no probe, the function a
 * pid probe (ours) or a uprobe (bpftrace's) is put on.
 *
 *	pidloop N
 *
 * Prints the nanoseconds per call, measured by the loop's own clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long bench_fn(long i)
{
	__asm__ __volatile__("" ::: "memory");
	return i + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	struct timespec a, z;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		s += bench_fn(i);
	clock_gettime(CLOCK_MONOTONIC, &z);
	if (n)
		printf("%.2f\n", ((double)(z.tv_sec - a.tv_sec) * 1e9 +
				  (double)(z.tv_nsec - a.tv_nsec)) / (double)n);
	return s == 0 && n > 1;
}
