/* SPDX-License-Identifier: MIT */
/*
 * dlswap.c's library b: bravo() -> bravo_inner() -> the callback.
 * bravo_inner()'s frame is larger than alpha_inner()'s: at the address
 * where the library before had its code, the CFI differs (a stack walk
 * with a's rows would find other return addresses).
 */
__attribute__((noinline)) void bravo_inner(void (*f)(long), long i)
{
	volatile char pad[200];

	pad[0] = (char)i;
	f(i);
	__asm__ volatile("" ::"r"(&pad[0]) : "memory");
}

void bravo(void (*f)(long), long i)
{
	bravo_inner(f, i);
	__asm__ volatile("" ::: "memory");
}
