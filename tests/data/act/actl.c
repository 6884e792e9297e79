/* SPDX-License-Identifier: MIT */
/*
 * actl.c - libactl.so, a shared library with a probe of its own for
 * tests/run-activation-user.sh: its -G output carries a second copy of
 * drti.o (own control block, own recorder, its TLS slot reached through
 * __tls_get_addr), armed in the same process as the program's.  Built
 * with -DACTL_CTOR, its constructor fires actl:::fire 5 times first
 * (arg0 -1..-5): hits only a library armed before it runs counts.
 */
#include "actl.h"

long actl_fire(long i);

#ifdef ACTL_CTOR
__attribute__((constructor)) static void actl_init(void)
{
	for (long i = 1; i <= 5; i++)
		ACTL_FIRE(-i, 7);
	/* not a tail call (clang unrolls the loop and would jump to the
	 * last probe): a -G tail-call site is the kernel path's only */
	__asm__ volatile("" ::: "memory");
}
#endif

long actl_fire(long i)
{
	ACTL_FIRE(i, (int)(i & 7));
	return i + 1;
}
