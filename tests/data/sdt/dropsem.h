/* SPDX-License-Identifier: MIT */
/*
 * dropsem.h - a provider header in the form systemtap's `dtrace -h`
 * writes, for tests/run-sdt-dropin.sh: it defines _SDT_HAS_SEMAPHORES
 * before including <sys/sdt.h>, declares each probe's semaphore
 * <provider>_<name>_semaphore as an unsigned short in section .probes
 * (default visibility: the object that defines it decides), tests it in
 * _ENABLED() and fires probes with DTRACE_PROBEn.  With STAP_SDT_V1 the
 * old semaphore names would be used; nothing here depends on it.
 *
 *	provider dropsem {
 *		probe gated(int round, unsigned seen);
 *		probe count();
 *	};
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define DROPSEM_GATED_ENABLED() __builtin_expect(dropsem_gated_semaphore, 0)
__extension__ extern unsigned short dropsem_gated_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));
#define DROPSEM_GATED(arg1, arg2) \
DTRACE_PROBE2(dropsem, gated, arg1, arg2)

#define DROPSEM_COUNT_ENABLED() __builtin_expect(dropsem_count_semaphore, 0)
__extension__ extern unsigned short dropsem_count_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));
#define DROPSEM_COUNT() \
DTRACE_PROBE(dropsem, count)
