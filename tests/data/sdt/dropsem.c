/* SPDX-License-Identifier: MIT */
/*
 * dropsem.c - probes with semaphores of systemtap's kind, for
 * tests/run-sdt-dropin.sh: linked into dropin, or made a module
 * (libdropsem.so, with -DSTAP_SDT_V2) whose semaphores, but one, the
 * main program (dropmain) defines.
 *
 *	dropsem:count	its semaphore defined here, by the file itself
 *	dropsem:gated	its semaphore defined by dropsem-def.c; fired only
 *			while DROPSEM_GATED_ENABLED(), with the value of
 *			the semaphore as seen before the test
 *	dropus:hit	only its semaphore (USDT_SEMAPHORE_DECLARE) is read
 *			here; the main program defines it and has the probe
 *			(left out where <sys/sdt.h> is systemtap's, which
 *			tests/run-sdt-dropin.sh compiles this with too)
 */
#include "dropsem.h"
#include "dropsem-api.h"

unsigned short dropsem_count_semaphore __attribute__((section(".probes")));

/* usdt-sdk's own semaphores (not with systemtap's header) */
#ifdef USDT_SEMAPHORE_DECLARE
USDT_SEMAPHORE_DECLARE(dropus, hit);
#define DROPUS_HIT_ENABLED() USDT_ENABLED(dropus, hit)
#else
#define DROPUS_HIT_ENABLED() 0
#endif

unsigned dropsem_fire(int round, unsigned *us)
{
	unsigned seen = dropsem_gated_semaphore;

	DROPSEM_COUNT();
	if (DROPSEM_GATED_ENABLED())
		DROPSEM_GATED(round, seen);
	*us = DROPUS_HIT_ENABLED() ? 1 : 0;
	return seen;
}
