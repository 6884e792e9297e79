// SPDX-License-Identifier: MIT
/*
 * dlholdlib.c - a library a traced process dlopen()s: its constructor
 * fires ctor 5 times (arg0 0..4), and dlh_call(n), which the program
 * calls right after dlopen() returns, fires call n times (arg0 100..).
 * Built with dtrace -h/-G (DOF) and, with -DDLH_SDT, from <sys/sdt.h>
 * alone (notes, no DOF).
 */
#ifdef DLH_SDT
#include <sys/sdt.h>
#define DLH_CTOR(i) DTRACE_PROBE1(dlh, ctor, i)
#define DLH_CALL(i) DTRACE_PROBE1(dlh, call, i)
#else
#include "dlhold.h"
#endif

void dlh_call(int n);

__attribute__((constructor)) static void dlh_init(void)
{
	for (int i = 0; i < 5; i++)
		DLH_CTOR(i);
}

void dlh_call(int n)
{
	for (int i = 0; i < n; i++)
		DLH_CALL(100 + i);
}
