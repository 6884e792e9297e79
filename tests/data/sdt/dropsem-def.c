/* SPDX-License-Identifier: MIT */
/*
 * dropsem-def.c - the semaphore of dropsem:gated, defined the way the
 * object that systemtap's `dtrace -G` compiles defines it: an unsigned
 * short in section .probes, hidden unless STAP_SDT_V1 or STAP_SDT_V2 is
 * defined, in which case shared libraries (modules) use this one.  For
 * tests/run-sdt-dropin.sh.
 */
#include <sys/sdt.h>

#if defined(STAP_SDT_V1) || defined(STAP_SDT_V2)
#define DROPSEM_VISIBILITY
#else
#define DROPSEM_VISIBILITY __attribute__((visibility("hidden")))
#endif

__extension__ unsigned short dropsem_gated_semaphore __attribute__((unused))
	__attribute__((section(".probes"))) DROPSEM_VISIBILITY;
