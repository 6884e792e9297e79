/*
 * sites.c - probe sites of every kind dtrace -G knows, for the seed
 * corpora of the fuzzers (fuzz/gen-corpus.sh) and the note tests
 * (tests/unit/t-stapsdt.c).  Built at several optimisation levels,
 * with and without -fno-plt and -fPIC, it gives calls, tail calls, GOT
 * calls, legacy is-enabled calls, semaphores, static functions, GCC
 * clones and arguments in every register and on the stack.
 *
 * Run as a program it fires every probe once and prints nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes.h"

/* the legacy is-enabled form some old headers emit */
extern int __dtraceenabled_fz___tick(void);

struct fz_conn {
	int fd;
};

volatile int fz_sink;

static __attribute__((noinline)) void work(const char *q, int n)
{
	FZ_START(q, n);
	if (FZ_DONE_ENABLED())
		FZ_DONE((unsigned int)n, (long)n * 3, -n);
	fz_sink += n;
}

__attribute__((noinline)) void bytes(int v)
{
	FZ_BYTES((signed char)-v, (short)-v, (unsigned char)v,
		 (unsigned short)v, -v, (unsigned long)v);
	FZ_HIGH((char)v, (unsigned char)v, (short)v, v);
}

__attribute__((noinline)) void many(int v)
{
	FZ_MANY(v, (unsigned int)v, -(long)v, (short)v, (char)v, v + 1,
		v + 2, (long)v * 7, (signed char)-v, (unsigned short)v,
		(unsigned int)v + 9, -(long)v * 11);
}

/* a probe as the last statement: a tail call at -O2 */
__attribute__((noinline)) void last(struct fz_conn *c)
{
	fz_sink++;
	FZ_CONN(c);
}

__attribute__((noinline)) void tick(void)
{
	if (__dtraceenabled_fz___tick())
		fz_sink++;
	FZ_TICK();
}

__attribute__((noinline)) void other(uint64_t x)
{
	FZ_OTHER_ONE(x);
	FZ_OTHER_TWO((size_t)x, -(ssize_t)x, (intptr_t)x, x != 0);
	FZ_XLATE((int)x, "xlate");
}

int fz_main(int argc)
{
	struct fz_conn c = { argc };

	for (int i = 0; i < 2; i++)
		work("query", argc + i);
	bytes(argc);
	many(argc);
	last(&c);
	tick();
	other((uint64_t)argc);
	return fz_sink == 0;
}

#ifndef FZ_NO_MAIN
int main(int argc, char **argv)
{
	(void)argv;
	return fz_main(argc);
}
#endif
