/* SPDX-License-Identifier: MIT */
/*
 * dlswap.c's library a for the walk's mapping check (tests/run-ustack.sh,
 * built -fno-toplevel-reorder so the text keeps this order): its text
 * begins with 64 KiB whose CFI says the return address is undefined (an
 * outermost frame), then alpha() -> alpha_inner() -> the callback.
 * uwswapb.c has its code where this block is: b's stack walked with a's
 * rows would end at b's first frame, a stack of two frames that the
 * copy's unwinding (b's own CFI) never gives.
 */
__asm__(".text\n"
	".globl uw_block\n"
	".type uw_block, @function\n"
	"uw_block:\n"
	".cfi_startproc\n"
	".cfi_undefined rip\n"
	".fill 65536, 1, 0x90\n"
	"ret\n"
	".cfi_endproc\n"
	".size uw_block, . - uw_block\n");

__attribute__((noinline)) void alpha_inner(void (*f)(long), long i)
{
	f(i);
	__asm__ volatile("" ::: "memory");
}

void alpha(void (*f)(long), long i)
{
	alpha_inner(f, i);
	__asm__ volatile("" ::: "memory");
}
