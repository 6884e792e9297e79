/* SPDX-License-Identifier: MIT */
/*
 * dropin.c - a program written for systemtap's <sys/sdt.h>, built with
 * usdt-sdk's: tests/run-sdt-dropin.sh traces it, and run-sdt-matrix.sh
 * compiles it with -Wall -Wextra -pedantic -Werror from C89 to C2x and
 * C++98 to C++20 (so it is written in C89 that is also C++98).
 *
 *	STAP_PROBE, STAP_PROBE1..12	dropin:s0, dropin:s1 .. s12
 *	DTRACE_PROBE, DTRACE_PROBE1..12	dropin:d0, dropin:d1 .. d12
 *	STAP_PROBE0, DTRACE_PROBE0	dropin:z0, dropin:dz0
 *	STAP_PROBEV (SDT_USE_VARIADIC)	dropin:v0, dropin:v3
 *	floating point			dropin:flt (six values), dropin:mixed
 *	STAP_PROBE_ASM			dropin:inasm0, dropin:inraw,
 *					dropin:inasm (argument strings as
 *					written: none, registers and
 *					memory, an operand of the
 *					statement),
 *					dropin:intmpl (template and
 *					operands)
 *	assembler (dropin-asm.S)	dropin:asm0, asm2, asm3, asmv
 *	semaphores (dropsem.c)		dropsem:count, dropsem:gated
 *	USDT_PROBE			dropus:hit, whose semaphore this
 *					program defines and dropsem.c reads
 *
 * -DDROPIN_REFERENCE leaves out what systemtap's header lacks (the 0
 * forms, usdt-sdk's USDT_ macros, long double arguments), for building
 * with it.
 *
 * Argument j of every sK and dK is the j-th of the twelve values below.
 *
 *	dropin run N	fire every probe N times
 *	dropin loop FILE
 *			every 20 ms: fire dropus:hit, call dropsem_fire()
 *			and print "ROUND gated=SEMAPHORE us=ENABLED" (what
 *			dropsem.c saw), until FILE exists
 *
 * Values come from volatile variables, so that the optimizer cannot turn
 * them into constants (except where constants are the point), and
 * strings live on the stack, where a tracer can read them at once.
 */
#define _DEFAULT_SOURCE 1	/* usleep() under -std=c89 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

#include "dropsem-api.h"

#ifndef DROPIN_REFERENCE
USDT_SEMAPHORE_DEFINE(dropus, hit);
#define DROPUS_HIT(round)						\
	do {								\
		if (USDT_ENABLED(dropus, hit))				\
			USDT_PROBE(dropus, hit, round);			\
	} while (0)
#else
#define DROPUS_HIT(round) ((void)0)
#endif

#ifdef __cplusplus
extern "C" {
#endif
long dropin_asm(long a, unsigned long b);
#ifdef __cplusplus
}
#endif

static volatile int v1 = -1;
static volatile unsigned char v2 = 200;
static volatile short v3 = -3;
static volatile long v4 = -4;
static volatile unsigned long v6 = 0x1122334455667788UL;
static volatile int v7 = -7;
static volatile long v8 = -8;
static volatile short v9 = -9;
static volatile signed char v10 = -10;
static volatile int v11 = -11;
static volatile unsigned long v12 = 12;

static volatile double vd = 3.5;
static volatile float vf = 0.875f;
static volatile long double vld = 2.5L;
static volatile double vnd = -0.1;

static volatile int vin = 21;
static volatile long vp[2] = { 0, 22 };

/*
 * Not inlined nor specialised: the arguments stay in registers and the
 * stack, which every tracer reads.  (Inlined here, p[1] would be the
 * global vp[1], an operand such as 8+vp(%rip) that neither bpftrace nor
 * gdb reads -- a limit of the note format that systemtap's header shares.)
 */
#if defined(__clang__)
#define NOIPA __attribute__((noinline, used))
#else
#define NOIPA __attribute__((noinline, noipa, used))
#endif

/*
 * Probes inside asm statements; returns in + 3.  Each probe comes first
 * in its statement: the whole string is longer than C90's 509
 * characters, which clang -std=c89 -pedantic reports at the string's
 * first token, and only there if that token is the header's.
 */
NOIPA static int inasm(int in, volatile long *p)
{
	int out;

	__asm__ __volatile__(STAP_PROBE_ASM(dropin, inasm0));
	__asm__ __volatile__(STAP_PROBE_ASM(dropin, inraw, 8@%rsp -8@8(%rsp)));
	__asm__ __volatile__(STAP_PROBE_ASM(dropin, inasm, -4@%1)
			     "movl %1, %0"
			     : "=r" (out) : "r" (in));
	__asm__ __volatile__(STAP_PROBE_ASM(dropin, intmpl,
					    STAP_PROBE_ASM_TEMPLATE(3))
			     "addl %[three], %0"
			     : "+r" (out)
			     : [three] "i" (3),
			       STAP_PROBE_ASM_OPERANDS(3, in, p[1], 0.5));
	return out;
}

NOIPA static void fire(void)
{
	int a1 = v1;
	unsigned char a2 = v2;
	short a3 = v3;
	long a4 = v4;
	unsigned long a6 = v6;
	int a7 = v7;
	long a8 = v8;
	short a9 = v9;
	signed char a10 = v10;
	int a11 = v11;
	unsigned long a12 = v12;
	double d = vd;
	float f = vf;
	long double ld = vld;
	double nd = vnd;
	char s[16];

	strcpy(s, "str");
	STAP_PROBE(dropin, s0);
	STAP_PROBE1(dropin, s1, a1);
	STAP_PROBE2(dropin, s2, a1, a2);
	STAP_PROBE3(dropin, s3, a1, a2, a3);
	STAP_PROBE4(dropin, s4, a1, a2, a3, a4);
	STAP_PROBE5(dropin, s5, a1, a2, a3, a4, s);
	STAP_PROBE6(dropin, s6, a1, a2, a3, a4, s, a6);
	STAP_PROBE7(dropin, s7, a1, a2, a3, a4, s, a6, a7);
	STAP_PROBE8(dropin, s8, a1, a2, a3, a4, s, a6, a7, a8);
	STAP_PROBE9(dropin, s9, a1, a2, a3, a4, s, a6, a7, a8, a9);
	STAP_PROBE10(dropin, s10, a1, a2, a3, a4, s, a6, a7, a8, a9, a10);
	STAP_PROBE11(dropin, s11, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		     a11);
	STAP_PROBE12(dropin, s12, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		     a11, a12);
	DTRACE_PROBE(dropin, d0);
	DTRACE_PROBE1(dropin, d1, a1);
	DTRACE_PROBE2(dropin, d2, a1, a2);
	DTRACE_PROBE3(dropin, d3, a1, a2, a3);
	DTRACE_PROBE4(dropin, d4, a1, a2, a3, a4);
	DTRACE_PROBE5(dropin, d5, a1, a2, a3, a4, s);
	DTRACE_PROBE6(dropin, d6, a1, a2, a3, a4, s, a6);
	DTRACE_PROBE7(dropin, d7, a1, a2, a3, a4, s, a6, a7);
	DTRACE_PROBE8(dropin, d8, a1, a2, a3, a4, s, a6, a7, a8);
	DTRACE_PROBE9(dropin, d9, a1, a2, a3, a4, s, a6, a7, a8, a9);
	DTRACE_PROBE10(dropin, d10, a1, a2, a3, a4, s, a6, a7, a8, a9, a10);
	DTRACE_PROBE11(dropin, d11, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		       a11);
	DTRACE_PROBE12(dropin, d12, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		       a11, a12);
#ifndef DROPIN_REFERENCE
	STAP_PROBE0(dropin, z0);
	DTRACE_PROBE0(dropin, dz0);
#endif
	STAP_PROBEV(dropin, v0);
	STAP_PROBEV(dropin, v3, a1, a2, s);
#ifndef DROPIN_REFERENCE
	STAP_PROBE6(dropin, flt, d, f, 1.5, -2.0f, ld, nd);
#else
	/* systemtap's header: "unsupported operand size" for a long double */
	STAP_PROBE6(dropin, flt, d, f, 1.5, -2.0f, (double)ld, nd);
#endif
	STAP_PROBE3(dropin, mixed, a1, d, a4);
	if (inasm(vin, vp) != vin + 3)
		abort();
	if (dropin_asm(a4, a12) != a4 + (long)a12)
		abort();
}

int main(int argc, char **argv)
{
	int i, n;
	unsigned us;

	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		n = atoi(argv[2]);
		for (i = 0; i < n; i++) {
			fire();
			dropsem_fire(i, &us);
		}
		printf("fired %d rounds\n", n);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "loop") == 0) {
		for (i = 0; i < 30000; i++) {
			unsigned gated;

			DROPUS_HIT(i);
			gated = dropsem_fire(i, &us);
			printf("%d gated=%u us=%u\n", i, gated, us);
			fflush(stdout);
			if (access(argv[2], F_OK) == 0)
				return 0;
			usleep(20000);
		}
		return 1;
	}
	fprintf(stderr, "usage: dropin run N | dropin loop FILE\n");
	return 2;
}
