// SPDX-License-Identifier: MIT
/*
 * tally.c - libtally: adds numbers up, and fires tally:::add for each.
 *
 * The library is linked with its own probe object (dtrace -G over its
 * objects), so its probes live in libtally.so and are found there by
 * bpftrace, perf and gdb, whichever program loads it.
 */
#include "tally.h"
#include "tally-provider.h"

static long total;

void tally_add(long value)
{
	total += value;
	TALLY_ADD(value, total);
}

long tally_total(void)
{
	return total;
}
