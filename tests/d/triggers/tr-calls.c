/* SPDX-License-Identifier: MIT */
/*
 * tr-calls.c - a trigger for tests/d/ (a tst.NAME.d.trigger names it): a
 * program without probes whose functions the pid provider traces, each
 * never inlined and called a known number of times with known
 * arguments, so a D program's output on real hits is exact.
 *
 *	tr-calls [N]	for i = 0..N-1 (N defaults to 3):
 *			tr_int(i, -i, 1000 * i)
 *			tr_str(i, NAMES[i % 4])	a string in the process
 *			tr_pair(&pair)		a struct in the process:
 *						{ .a = i, .b = -i, .c = 'A' + i,
 *						  .name = "pair<i>" }
 *
 * It writes nothing on standard output, so what a test compares is
 * dtrace's alone.
 */
#include <stdio.h>
#include <stdlib.h>

/* never inlined, cloned or given another signature (gcc's IPA-SRA would
 * pass tr_pair() its one field read): the probed function is the one
 * called, with the arguments the C source passes */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

long tr_int(int i, int neg, long big);
size_t tr_str(int i, const char *s);
int tr_pair(const struct tr_pair *p);

NOINLINE long tr_int(int i, int neg, long big)
{
	__asm__ volatile("" ::: "memory");
	return i + neg + big;
}

NOINLINE size_t tr_str(int i, const char *s)
{
	__asm__ volatile("" ::: "memory");
	return (size_t)i + (s ? 1 : 0);
}

NOINLINE int tr_pair(const struct tr_pair *p)
{
	__asm__ volatile("" ::: "memory");
	return p->a;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"zero", "one", "two", "three"};
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++) {
		struct tr_pair pair = {.a = i,
				       .b = (short)-i,
				       .c = (char)('A' + i),
				       .d = 1LL << (32 + i)};

		snprintf(pair.name, sizeof(pair.name), "pair%d", i % 1000);
		tr_int(i, -i, 1000L * i);
		tr_str(i, names[i % 4]);
		tr_pair(&pair);
	}
	return 0;
}
