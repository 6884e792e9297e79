// SPDX-License-Identifier: MIT
/*
 * regbench.c - what registering a probe-carrying object costs.
 *
 *	regbench PLUGIN N	dlopen + dlclose PLUGIN N times; prints the
 *				mean ns per cycle (drti.o's constructor sends
 *				ADDDOF, its destructor REMOVE)
 *
 * Run with the helper up, with DTRACE_DOF_INIT_DEVNAME naming a missing
 * device, and with DTRACE_DOF_INIT_DISABLE set, to separate the helper's
 * cost from dlopen's own.  bench/run.sh also runs several at once for
 * registrations per second.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long i, n;
	long long t0;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: regbench PLUGIN N\n");
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "regbench: %s\n", dlerror());
			return 1;
		}
		dlclose(h);
	}
	printf("%lld\n", (now_ns() - t0) / n);
	return 0;
}
