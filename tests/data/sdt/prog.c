/* SPDX-License-Identifier: MIT */
/*
 * prog.c - a program with probes of every form <sys/sdt.h> offers, for
 * tests/run-sdt-matrix.sh and run-sdt-sema.sh.  It compiles as C and as
 * C++, with any compiler and optimisation level.
 *
 *	DTRACE_PROBE0..12	sdtt:p0 .. sdtt:p12, argument j of every pK
 *				the j-th of the twelve values below
 *	STAP_PROBE2, STAP_PROBEV, variadic DTRACE_PROBE
 *				sdtt:stap2, sdtt:stapv, sdtt:var3
 *	constants		sdtt:consts, sdtt:big (immediate operands)
 *	one-byte arguments	sdtt:bytes, arguments 5 and 6 in %r8, %r9
 *	USDT_PROBE + semaphore	sdtt:gated, only while USDT_ENABLED()
 *	dtrace -h -x probestyle=inline
 *				sdtp:query, wide, flag, gated, tick
 *	assembler (prog-asm.S)	sdtt:asm2, sdtt:asmsema
 *
 *	prog run N	fire every probe N times, print a summary
 *	prog loop FILE	every 20 ms: fire, print the two semaphores and
 *			what USDT_ENABLED()/SDTP_GATED_ENABLED() say,
 *			until FILE exists
 *
 * Values come from volatile variables, so that the optimizer cannot turn
 * them into constants, and strings live on the stack, where a tracer can
 * read them at once (a page of .rodata may not be mapped in yet).
 */
#define _DEFAULT_SOURCE 1	/* usleep() under -std=c99 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/sdt.h>
#include "sdtprov.h"

#if defined(__clang__)
#define NOIPA __attribute__((noinline, used))
#else
#define NOIPA __attribute__((noinline, noipa, used))
#endif

USDT_SEMAPHORE_DEFINE(sdtt, gated);
USDT_SEMAPHORE_DEFINE(sdtt, asmsema);

#ifdef __cplusplus
extern "C" {
#endif
long asm_probes(long a, unsigned long b);
#ifdef __cplusplus
}
#endif

static volatile int v1 = -1;
static volatile unsigned char v2 = 200;
static volatile short v3 = -3;
static volatile long v4 = -4;
static volatile uint64_t v6 = 0x1122334455667788ULL;
static volatile int v7 = -7;
static volatile long v8 = -8;
static volatile short v9 = -9;
static volatile signed char v10 = -10;
static volatile int v11 = -11;
static volatile unsigned long v12 = 12;
static volatile unsigned char vb5 = 200;
static volatile signed char vb6 = -10;

NOIPA int bytes6(int a, int b, int c, int d, unsigned char e, signed char f)
{
	DTRACE_PROBE6(sdtt, bytes, a, b, c, d, e, f);
	return a + f;
}

NOIPA void fire(int round)
{
	int a1 = v1;
	unsigned char a2 = v2;
	short a3 = v3;
	long a4 = v4;
	uint64_t a6 = v6;
	int a7 = v7;
	long a8 = v8;
	short a9 = v9;
	signed char a10 = v10;
	int a11 = v11;
	unsigned long a12 = v12;
	char s[16], w[16];

	strcpy(s, "str");
	strcpy(w, "twelve");
	DTRACE_PROBE0(sdtt, p0);
	DTRACE_PROBE1(sdtt, p1, a1);
	DTRACE_PROBE2(sdtt, p2, a1, a2);
	DTRACE_PROBE3(sdtt, p3, a1, a2, a3);
	DTRACE_PROBE4(sdtt, p4, a1, a2, a3, a4);
	DTRACE_PROBE5(sdtt, p5, a1, a2, a3, a4, s);
	DTRACE_PROBE6(sdtt, p6, a1, a2, a3, a4, s, a6);
	DTRACE_PROBE7(sdtt, p7, a1, a2, a3, a4, s, a6, a7);
	DTRACE_PROBE8(sdtt, p8, a1, a2, a3, a4, s, a6, a7, a8);
	DTRACE_PROBE9(sdtt, p9, a1, a2, a3, a4, s, a6, a7, a8, a9);
	DTRACE_PROBE10(sdtt, p10, a1, a2, a3, a4, s, a6, a7, a8, a9, a10);
	DTRACE_PROBE11(sdtt, p11, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		       a11);
	DTRACE_PROBE12(sdtt, p12, a1, a2, a3, a4, s, a6, a7, a8, a9, a10,
		       a11, a12);
	STAP_PROBE2(sdtt, stap2, a1, round);
	STAP_PROBEV(sdtt, stapv, a1, a2, a3);
	DTRACE_PROBE(sdtt, var3, a3, a4, s);
	DTRACE_PROBE8(sdtt, consts, 5, -6, (short)-7, 8L, (signed char)-9,
		      (unsigned short)10, (unsigned char)100, -1LL);
	DTRACE_PROBE3(sdtt, big, (unsigned char)200, 0xffffffffU,
		      (unsigned long)-1);
	bytes6(1, 2, 3, 4, vb5, vb6);
	if (USDT_ENABLED(sdtt, gated))
		USDT_PROBE(sdtt, gated, round);

	SDTP_QUERY(s, round);
	SDTP_WIDE(a4, (unsigned long)a4, a1, 65535, s, -9000000000L, a10, a2,
		  a3, a6, 4000000000U, w);
	SDTP_FLAG(round >= 0, a2, a10, a3);
	SDTP_TICK();
	if (SDTP_GATED_ENABLED())
		SDTP_GATED(round);
	asm_probes(a4, a12);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		int n = atoi(argv[2]);

		for (int r = 0; r < n; r++)
			fire(r);
		printf("fired %d rounds\n", n);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "loop") == 0) {
		for (int i = 0; i < 30000; i++) {
			fire(i);
			printf("%d sdtt %u %d sdtp %u %d\n", i,
			       (unsigned)USDT_SEMAPHORE(sdtt, gated),
			       USDT_ENABLED(sdtt, gated) ? 1 : 0,
			       (unsigned)__usdt_sema_sdtp___gated,
			       SDTP_GATED_ENABLED() ? 1 : 0);
			fflush(stdout);
			if (access(argv[2], F_OK) == 0)
				return 0;
			usleep(20000);
		}
		return 1;
	}
	fprintf(stderr, "usage: prog run N | prog loop STOPFILE\n");
	return 2;
}
