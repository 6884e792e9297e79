/* SPDX-License-Identifier: MIT */
/*
 * Inline probes of `dtrace -h -x probestyle=inline`, and main(), for
 * tests/run-sdt-G.sh; the other objects' functions are called once each.
 * With -DALONE it is the whole program (the -flto build).
 */
#include <stdio.h>
#include <string.h>

#include "g-inline.h"

#ifndef ALONE
int caller(int n);
long sdtfn(int a, long b);
long asmfn(long a, unsigned long b);
int twice_a(int x);
int twice_b(int x);
#endif

static __attribute__((noinline)) int helper(const char *q, int n)
{
	APP_START(q, n);
	return n + 1;
}

int main(int argc, char **argv)
{
	char q[8];
	long sum;

	(void)argv;
	strcpy(q, "inline");
	sum = helper(q, argc + 41);
	APP_FLAG(argc > 0, -5L);
	if (APP_CHECK_ENABLED())
		puts("check is enabled");
	OTHER_TICK();
#ifndef ALONE
	sum += caller(1) + sdtfn(2, 3) + asmfn(4, 5) + twice_a(6) +
	       twice_b(7);
#endif
	printf("sum %ld\n", sum);
	return 0;
}
