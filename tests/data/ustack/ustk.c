// SPDX-License-Identifier: MIT
/*
 * ustk.c - run-ustack.sh's program: main() calls a() -> b() -> c() argv[1]
 * times and d() -> c() argv[2] times, then returns; c() fires ustk:::fire
 * with the addresses of b() and of libc's getpid() to name.  With a third
 * argument it first waits for a line on standard input.  Every function is
 * noinline and does something after its call, so -O2 keeps each frame
 * (no inlining, no tail call); built with and without frame pointers
 * and with clang, the stacks must read the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ustk.h"

/* gcc may clone a function whose arguments are constant; clang never */
#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif

volatile int sink;

void b(int n);

KEEP void c(int n)
{
	USTK_FIRE(n, (void *)b, (void *)getpid); /* FIRE */
	sink += n;
}

KEEP void b(int n)
{ /* B: b's first instruction, as gcc's line table has it */
	c(n + 1); /* CALL_C */
	sink++;
}

KEEP void a(int n)
{
	b(n + 1); /* CALL_B */
	sink++;
}

KEEP void d(int n)
{
	c(n); /* CALL_C_FROM_D */
	sink++;
}

int main(int argc, char **argv)
{
	char line[16];
	int na, nd;

	if (argc < 3 || (argc > 3 && !fgets(line, sizeof(line), stdin)))
		return 2;
	na = atoi(argv[1]);
	nd = atoi(argv[2]);
	for (int i = 0; i < na; i++)
		a(i); /* CALL_A */
	for (int i = 0; i < nd; i++)
		d(i); /* CALL_D */
	return 0;
}
