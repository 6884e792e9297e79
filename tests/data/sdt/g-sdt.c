/* SPDX-License-Identifier: MIT */
/*
 * <sys/sdt.h> probes for tests/run-sdt-G.sh: one of a provider g.d
 * declares, one of a provider it does not (which -G leaves alone).
 */
#include <sys/sdt.h>

__attribute__((noinline)) long sdtfn(int a, long b)
{
	DTRACE_PROBE2(app, sdt, a, b);
	DTRACE_PROBE1(foreign, thing, a);
	return a + b;
}
