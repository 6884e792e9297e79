// SPDX-License-Identifier: MIT
/*
 * pairloop.c - bench/perhit.sh's target: N iterations, each firing
 * bpair:::enter(i, name) and then bpair:::leave(i), name one of four
 * words (so a string predicate holds for a quarter of the hits); a
 * pair stands for a function's entry and return, which a script times
 * with self->t.  The probes are our dtrace -G's (bpair.d), which
 * bpftrace reads as USDT probes too.
 */
#include <stdlib.h>

#include "bpair.h"

static const char *const words[] = {"alpha", "beta", "gamma", "delta"};

static __attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++) {
		BPAIR_ENTER(i, (char *)words[i & 3]);
		__asm__ __volatile__("" ::: "memory");
		BPAIR_LEAVE(i);
	}
}

int main(int argc, char **argv)
{
	loop(argc > 1 ? atol(argv[1]) : 1000000);
	return 0;
}
