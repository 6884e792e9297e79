/* SPDX-License-Identifier: MIT */
/*
 * sp.c - the traced program of tests/run-cgen-spec.sh: T threads (at
 * most 16), each running N transactions i = 0..N-1, each
 * sp:::begin(t, i), then sp:::data(t, i, j, "t<t>-i<i>-j<j>") for
 * j = 0..2, then sp:::end(t, i, ok), ok 1 for the even i.  The threads
 * start together (a barrier) so their hits interleave on several CPUs.
 * N 0: each thread runs transactions until the file sp.stop exists in
 * the working directory (looked for every 64 transactions), a
 * millisecond apart, so that dtrace keeps up until the test of lost
 * records stops it (run-cgen-spec.sh's lost.d).
 *
 *	sp N [T]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp.h"

static int n;
static pthread_barrier_t go;

static void *run(void *arg)
{
	int t = (int)(long)arg;
	char buf[64];

	pthread_barrier_wait(&go);
	for (int i = 0; n > 0 ? i < n : i % 64 || access("sp.stop", F_OK);
	     i++) {
		SP_BEGIN(t, i);
		for (int j = 0; j < 3; j++) {
			snprintf(buf, sizeof(buf), "t%d-i%d-j%d", t, i, j);
			SP_DATA(t, i, j, buf);
		}
		SP_END(t, i, i % 2 == 0);
		if (!n)
			usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t th[16];

	n = argc > 1 ? atoi(argv[1]) : 4;
	if (nt < 1 || nt > 16 || n < 0) {
		fprintf(stderr, "usage: sp N [T], T 1 to 16\n");
		return 2;
	}
	pthread_barrier_init(&go, NULL, (unsigned)nt);
	for (long t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, run, (void *)t);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	return 0;
}
