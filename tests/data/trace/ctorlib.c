// SPDX-License-Identifier: MIT
/*
 * ctorlib.c - libctl.so, a library whose constructor fires its probe 7
 * times (arg0 0..6) before the program's main runs, as glib's do
 * (mem-alloc), and whose ctl_call(n) fires it n times (arg0 100..).
 * Built from the header alone (stub sites), as glib is.
 */
#include "ctor.h"

void ctl_call(int n);

__attribute__((constructor)) static void ctl_init(void)
{
	for (int i = 0; i < 7; i++)
		CTL_HIT(i);
}

void ctl_call(int n)
{
	for (int i = 0; i < n; i++)
		CTL_HIT(100 + i);
}
