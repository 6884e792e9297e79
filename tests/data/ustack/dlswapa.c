/* SPDX-License-Identifier: MIT */
/* dlswap.c's library a: alpha() -> alpha_inner() -> the callback */
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
