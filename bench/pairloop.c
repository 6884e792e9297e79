// SPDX-License-Identifier: MIT
/*
 * pairloop.c - bench/perhit.sh's target: N iterations, each firing
 * bpair:::enter(i, name) and then bpair:::leave(i), name one of four
 * words (so a string predicate holds for a quarter of the hits); a
 * pair stands for a function's entry and return, which a script times
 * with self->t.  The probes are our dtrace -G's (bpair.d), which
 * bpftrace reads as USDT probes too.  "pair N long": two of the words
 * are SQL statements of 69 and 67 bytes (perhit.sh's longkey row);
 * "pair N null": the fourth is NULL, as a probe passes a string it does
 * not have (perhit.sh's nullkey row).
 */
#include <stdlib.h>
#include <string.h>

#include "bpair.h"

static const char *const words[] = {"alpha", "beta", "gamma", "delta"};
static const char *const longw[] = {
	"SELECT id, name, email FROM customers WHERE region = $1 ORDER BY name",
	"beta",
	"UPDATE accounts SET balance = balance - $1 WHERE id = $2 AND ok = 1",
	"delta",
};
static const char *const nullw[] = {"alpha", "beta", "gamma", NULL};

static __attribute__((noinline)) void loop(long n, const char *const *w)
{
	for (long i = 0; i < n; i++) {
		BPAIR_ENTER(i, (char *)w[i & 3]);
		__asm__ __volatile__("" ::: "memory");
		BPAIR_LEAVE(i);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";

	loop(argc > 1 ? atol(argv[1]) : 1000000,
	     !strcmp(mode, "long")   ? longw
	     : !strcmp(mode, "null") ? nullw
				     : words);
	return 0;
}
