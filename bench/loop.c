// SPDX-License-Identifier: MIT
/*
 * loop.c - the benchmark loop: N iterations, each firing one probe (or
 * none), in one of four styles chosen at compile time:
 *
 *	-DSTYLE_NONE	no probe: the loop's own cost
 *	-DSTYLE_OURS	our call-form probe (dtrace -h + dtrace -G)
 *	-DSTYLE_STAP	systemtap's <sys/sdt.h> DTRACE_PROBE1
 *	-DGUARD		the probe inside its _ENABLED() test
 *
 * It prints the nanoseconds per iteration; callgrind counts the
 * instructions (run.sh takes the difference between two values of N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(STYLE_OURS)
#include "bprov.h"
#define PROBE(i) BPROV_HIT(i)
#define ENABLED() BPROV_HIT_ENABLED()
#elif defined(STYLE_STAP)
#include <sys/sdt.h>
__extension__ unsigned short bprov_hit_semaphore
	__attribute__((unused, section(".probes")));
#define PROBE(i) DTRACE_PROBE1(bprov, hit, i)
#define ENABLED() __builtin_expect(bprov_hit_semaphore, 0)
#else
#define PROBE(i) ((void)(i))
#define ENABLED() 0
#endif

static __attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++) {
#ifdef GUARD
		if (ENABLED())
			PROBE(i);
#else
		PROBE(i);
#endif
		__asm__ __volatile__("" ::: "memory");
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, z;

	clock_gettime(CLOCK_MONOTONIC, &a);
	loop(n);
	clock_gettime(CLOCK_MONOTONIC, &z);
	if (n)
		printf("%.2f\n", ((double)(z.tv_sec - a.tv_sec) * 1e9 +
				  (double)(z.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
