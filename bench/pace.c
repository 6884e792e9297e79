// SPDX-License-Identifier: MIT
/*
 * pace.c - an event source at a controlled rate, for the consumer
 * benchmarks (run.sh): fires the probe bpace:::ev N times, event i when
 * the monotonic clock reaches start + i / RATE (busy-waiting on
 * clock_gettime; a source that falls behind fires at once until it has
 * caught up).  RATE 0: as fast as it can.
 *
 *	pace RATE N FILE
 *
 * Writes "N NS" to FILE: the events fired and the nanoseconds they took,
 * so the rate it really reached is N * 1e9 / NS.  (FILE, not stdout: a
 * tracer's output may share stdout.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pace.h"

static long long now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pace RATE N FILE\n");
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
		BPACE_EV(i, t - t0);
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
