// SPDX-License-Identifier: MIT
/*
 * stack.c - the event source of the ustack() benchmark (ustack.sh): as
 * pace.c, N events at RATE per second (0: as fast as it can), but each
 * fired three calls deep, main() -> a() -> b() -> c(), so every hit has
 * the same five or six frames to unwind.  Built with frame pointers, so
 * that bpftrace's walk of them (bpf_get_stackid) gets our frames right
 * too; dtrace's unwinder needs none.
 *
 *	stack RATE N FILE
 *
 * Writes "N NS" to FILE: the events fired and the nanoseconds they took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stack.h"

static long long now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

volatile long sink;

__attribute__((noinline)) void c(long i)
{
	BSTACK_EV(i);
	sink += i;
}

__attribute__((noinline)) void b(long i)
{
	c(i);
	sink++;
}

__attribute__((noinline)) void a(long i)
{
	b(i);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: stack RATE N FILE\n");
		return 2;
	}
	double rate = atof(argv[1]);
	long n = atol(argv[2]);
	long long t0 = now(), t = t0;
	FILE *f;

	for (long i = 0; i < n; i++) {
		if (rate > 0) {
			long long due = t0 + (long long)((double)i * 1e9 / rate);

			while ((t = now()) < due)
				;
		}
		a(i);
	}
	t = now();
	f = fopen(argv[3], "w");
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	fprintf(f, "%ld %lld\n", n, t - t0);
	return fclose(f) != 0;
}
