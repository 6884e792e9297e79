/* SPDX-License-Identifier: MIT */
/*
 * uwpgoffm.c's library (tests/run-ustack.sh, built -fno-toplevel-reorder
 * so the text keeps this order): two functions of the same code a page
 * apart.  The program maps this file's text again at the same addresses
 * from one page further on, so pg_b's code runs where pg_a's was: the
 * same file (device, inode) over the same range as when the walk's
 * tables were made, only its offset differs.
 */
__attribute__((noinline, aligned(4096))) int pg_a(int (*cb)(int), int n)
{
	volatile int x[8];

	x[0] = n;
	return cb(x[0]) + x[0];
}

__attribute__((noinline, aligned(4096))) int pg_b(int (*cb)(int), int n)
{
	volatile int x[8];

	x[0] = n;
	return cb(x[0]) + x[0];
}
