// SPDX-License-Identifier: MIT
/*
 * sites.c - functions that end in a probe (tests/run-G-consumers.sh).
 * Built with -O2 the compiler turns each probe call into a tail call,
 * `jmp __dtrace_myapp___...`, which dtrace -G rewrites as `ret; nop`.
 * The arguments are passed through in their own registers and stack
 * slots, so even the 12-argument one needs no frame of its own.
 */
#include "myapp.h"

void fire_tail6(int a, short b, signed char c, unsigned char d,
		const char *e, unsigned long f);
void fire_tailwide(long a, unsigned long b, int c, unsigned short d,
		   const char *e, long long f, signed char g, unsigned char h,
		   short i, unsigned long j, unsigned int k, const char *l);

void fire_tail6(int a, short b, signed char c, unsigned char d,
		const char *e, unsigned long f)
{
	MYAPP_TAIL6(a, b, c, d, e, f);
}

void fire_tailwide(long a, unsigned long b, int c, unsigned short d,
		   const char *e, long long f, signed char g, unsigned char h,
		   short i, unsigned long j, unsigned int k, const char *l)
{
	MYAPP_TAILWIDE(a, b, c, d, e, f, g, h, i, j, k, l);
}
