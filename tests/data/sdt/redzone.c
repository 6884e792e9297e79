/* SPDX-License-Identifier: MIT */
/*
 * redzone.c - a leaf function that keeps live values in the x86-64 red
 * zone (the 128 bytes below %rsp, which a function that calls nothing may
 * use without moving %rsp) across a probe, for tests/run-sdt-redzone.sh.
 *
 *	redzone N	call leaf() N times, print a checksum of the results
 *
 * The probe is DTRACE_PROBE2 from <sys/sdt.h>.  Built with -DRZ_NOP5 the
 * same probe is written by hand on the 5-byte NOP 0f 1f 44 00 00 instead:
 * the control, which kernels that optimize uprobes on that NOP into a
 * call (Linux 6.18) corrupt when it is traced.  leaf() must stay a leaf
 * with its array below %rsp; the test checks its code for that.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sys/sdt.h>

#ifdef RZ_NOP5
#define RZ_PROBE(x1, x2)						\
	__asm__ __volatile__(						\
		"990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"		\
		".pushsection .note.stapsdt, \"?\", \"note\"\n"		\
		".balign 4\n"						\
		".4byte 992f - 991f, 994f - 993f, 3\n"			\
		"991: .asciz \"stapsdt\"\n"				\
		"992: .balign 4\n"					\
		"993: .8byte 990b, _.stapsdt.base, 0\n"			\
		".asciz \"rz\"\n"					\
		".asciz \"hit\"\n"					\
		".asciz \"-8@%[a] -8@%[b]\"\n"				\
		"994: .balign 4\n"					\
		".popsection\n"						\
		".ifndef _.stapsdt.base\n"				\
		".pushsection .stapsdt.base, \"aGR\", \"progbits\", .stapsdt.base, comdat\n" \
		".weak _.stapsdt.base\n"				\
		".hidden _.stapsdt.base\n"				\
		"_.stapsdt.base: .space 1\n"				\
		".size _.stapsdt.base, 1\n"				\
		".popsection\n"						\
		".endif\n"						\
		: : [a] "r" (x1), [b] "r" (x2))
#else
#define RZ_PROBE(x1, x2) DTRACE_PROBE2(rz, hit, x1, x2)
#endif

static volatile long seed[8] = { 3, 5, 7, 11, 13, 17, 19, 23 };

__attribute__((noinline)) long leaf(long x)
{
	volatile long v[8];
	long s = 0;
	int i;

	for (i = 0; i < 8; i++)
		v[i] = x * (i + 3) + seed[i];
	RZ_PROBE(x, s);
	for (i = 0; i < 8; i++)
		s = s * 31 + v[i];
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum = sum * 1000003 + (unsigned long)leaf(i);
	printf("calls %ld checksum %lx\n", n, sum);
	return 0;
}
