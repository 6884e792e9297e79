/* SPDX-License-Identifier: MIT */
/*
 * dropmain.c - the main program of tests/run-sdt-dropin.sh's module
 * build: linked with dropsem-def.c (the semaphore of dropsem:gated) and
 * with libdropsem.so (dropsem.c), all compiled with -DSTAP_SDT_V2, so
 * that the module's DROPSEM_GATED_ENABLED() and USDT_ENABLED(dropus, hit)
 * read this program's semaphores.  Its own probes dropsem:gated and
 * dropus:hit name those semaphores, so that tracing them counts.
 *
 *	dropmain FILE	every 20 ms: fire dropus:hit and dropsem:gated
 *			while enabled, call the module's dropsem_fire()
 *			and print "ROUND gated=SEMAPHORE us=ENABLED" (what
 *			the module saw), until FILE exists
 */
#define _DEFAULT_SOURCE 1	/* usleep() under -std=c89 */
#include <stdio.h>
#include <unistd.h>

#include "dropsem.h"
#include "dropsem-api.h"

USDT_SEMAPHORE_DEFINE(dropus, hit);

int main(int argc, char **argv)
{
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: dropmain FILE\n");
		return 2;
	}
	for (i = 0; i < 3000; i++) {
		unsigned us, gated;

		if (USDT_ENABLED(dropus, hit))
			USDT_PROBE(dropus, hit, i);
		if (DROPSEM_GATED_ENABLED())
			DROPSEM_GATED(-i, 0);
		gated = dropsem_fire(i, &us);
		printf("%d gated=%u us=%u\n", i, gated, us);
		fflush(stdout);
		if (access(argv[1], F_OK) == 0)
			return 0;
		usleep(20000);
	}
	return 1;
}
