/* SPDX-License-Identifier: MIT */
/*
 * prog-asm.S - probes written in assembler with <sys/sdt.h>, for
 * tests/run-sdt-matrix.sh: the argument strings are the author's, so the
 * notes must carry them exactly.
 *
 *	long asm_probes(long a, unsigned long b): returns a + b
 */
#include <sys/sdt.h>

	.text
	.globl	asm_probes
	.type	asm_probes, @function
asm_probes:
	USDT_ASM_PROBE(sdtt, asm2, -8@%rdi 8@%rsi)
	USDT_ASM_PROBE_SEMA(sdtt, asmsema, -8@%rdi)
	leaq	(%rdi,%rsi), %rax
	ret
	.size	asm_probes, .-asm_probes

	.section .note.GNU-stack, "", @progbits
