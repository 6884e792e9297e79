/* SPDX-License-Identifier: MIT */
/*
 * grow.h - room for one more element in a heap array, by doubling.
 *
 * Arrays that gain one element at a time (sites, functions, symbols,
 * relocations) grow geometrically, so n additions copy O(n) bytes in
 * all.  Growing by one element per realloc() looks as cheap with
 * glibc, which usually extends the block in place, but allocators that
 * never do (AddressSanitizer's, others') then copy the whole array on
 * every addition: -G over 200 objects took 31x as long under
 * --enable-sanitizers as without.
 */
#ifndef USDT_GROW_H
#define USDT_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make *arr hold at least n + 1 elements of size sz, *cap counting
 * them; 0, or -ENOMEM with *arr and *cap unchanged.
 */
static inline int grow_one(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = (void **)arr;
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap <= n)
		ncap = n + 1;
	if (ncap > SIZE_MAX / sz)
		return -ENOMEM;
	na = realloc(*p, ncap * sz);
	if (!na)
		return -ENOMEM;
	*p = na;
	*cap = ncap;
	return 0;
}

#endif /* USDT_GROW_H */
