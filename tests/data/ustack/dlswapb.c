/* SPDX-License-Identifier: MIT */
/* dlswap.c's library b: bravo() -> bravo_inner() -> the callback */
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
