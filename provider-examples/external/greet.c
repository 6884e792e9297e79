// SPDX-License-Identifier: MIT
/*
 * greet.c - the program of the out-of-tree example: greets a few names
 * and adds their lengths up with libtally.
 *
 *	greet [COUNT]
 *
 * It shows the two idioms of an instrumented program: a probe where
 * something happens (GREET_HELLO), and work done only for a tracer,
 * guarded by the probe's _ENABLED() macro (GREET_CHECKSUM).  Its output
 * is the same whether or not probes are built or traced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greet-provider.h"
#include "tally.h"

static const char *const names[] = {"world", "tracer", "reader"};

/* what a tracer wants and the program does not: only paid for when traced */
static unsigned long checksum(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < count; i++) {
		const char *who = names[i % 3];

		GREET_HELLO(who, i);
		if (GREET_CHECKSUM_ENABLED())
			GREET_CHECKSUM(who, checksum(who));
		printf("hello, %s\n", who);
		tally_add((long)strlen(who));
	}
	GREET_DONE(count, tally_total());
	printf("%d greetings, %ld letters\n", count, tally_total());
	return 0;
}
