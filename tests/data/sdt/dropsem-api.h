/* SPDX-License-Identifier: MIT */
/*
 * dropsem-api.h - what dropsem.c offers the programs of
 * tests/run-sdt-dropin.sh (dropin.c, dropmain.c).
 */
#ifndef DROPSEM_API_H
#define DROPSEM_API_H

#ifdef __cplusplus
extern "C" {
#endif
/*
 * Fire dropsem:count, and dropsem:gated while its semaphore says it is
 * traced; return the semaphore's value as seen, and in *us whether
 * USDT_ENABLED(dropus, hit) was true.
 */
unsigned dropsem_fire(int round, unsigned *us);
#ifdef __cplusplus
}
#endif

#endif
