/* SPDX-License-Identifier: MIT */
/*
 * dlswap.c's library b for the walk's mapping check (tests/run-ustack.sh,
 * built -fno-toplevel-reorder): bravo() -> bravo_inner() -> the
 * callback first, where uwswapa.c's text has its 64 KiB of "outermost
 * frame" rows, then a block as large with ordinary CFI, so that both
 * libraries take the same pages and ld.so maps each where the other was.
 */
__attribute__((noinline)) void bravo_inner(void (*f)(long), long i)
{
	f(i);
	__asm__ volatile("" ::: "memory");
}

void bravo(void (*f)(long), long i)
{
	bravo_inner(f, i);
	__asm__ volatile("" ::: "memory");
}

__asm__(".text\n"
	".globl uw_block\n"
	".type uw_block, @function\n"
	"uw_block:\n"
	".cfi_startproc\n"
	".fill 65536, 1, 0x90\n"
	"ret\n"
	".cfi_endproc\n"
	".size uw_block, . - uw_block\n");
