// SPDX-License-Identifier: MIT
/*
 * cpout.c - the target of tests/run-copyout.sh: fires fill with a
 * stack buffer holding "original-bytes", prints the buffer right after
 * the probe returns (so only a write made at the hit, before the probe
 * returned, shows), then fires fill with an address nothing maps (a
 * write there faults) and done.
 */
#include <stdio.h>
#include <string.h>

#include "cpout.h"

int main(void)
{
	char b[32];

	memcpy(b, "original-bytes", 15);
	CPOUT_FILL(b, (int)sizeof(b));
	printf("after the probe: [%s]\n", b);
	fflush(stdout);
	CPOUT_FILL((char *)16, 0);
	CPOUT_DONE();
	return 0;
}
