/* SPDX-License-Identifier: MIT */
/* An assembler probe for tests/run-sdt-G.sh: asmfn(a, b) is a + b. */
#include <sys/sdt.h>

	.text
	.globl	asmfn
	.type	asmfn, @function
asmfn:
	USDT_ASM_PROBE(app, asmp, -8@%rdi 8@%rsi)
	leaq	(%rdi,%rsi), %rax
	ret
	.size	asmfn, .-asmfn

	.section .note.GNU-stack, "", @progbits
