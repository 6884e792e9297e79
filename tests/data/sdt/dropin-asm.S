/* SPDX-License-Identifier: MIT */
/*
 * dropin-asm.S - probes written in assembler with systemtap's macros
 * (one operand string per macro argument), for tests/run-sdt-dropin.sh:
 * the notes must carry the argument strings exactly, joined by spaces.
 *
 *	long dropin_asm(long a, unsigned long b): returns a + b
 */
#define SDT_USE_VARIADIC 1	/* STAP_PROBEV, in systemtap's header */
#include <sys/sdt.h>

	.text
	.globl	dropin_asm
	.type	dropin_asm, @function
dropin_asm:
	STAP_PROBE(dropin, asm0)
	STAP_PROBE2(dropin, asm2, -8@%rdi, 8@%rsi)
	DTRACE_PROBE3(dropin, asm3, -8@%rdi, 8@%rsi, -4@$-5)
	STAP_PROBEV(dropin, asmv, 8@%rsi)
	leaq	(%rdi,%rsi), %rax
	ret
	.size	dropin_asm, .-dropin_asm

	.section .note.GNU-stack, "", @progbits
