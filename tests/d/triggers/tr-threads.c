/* SPDX-License-Identifier: MIT */
/*
 * tr-threads.c - a trigger for tests/d/ (a tst.NAME.d.trigger names it):
 * several threads, one after the other, each calling tr_enter(depth) and
 * tr_leave(depth) nested a known number of levels, so thread-local
 * variables (self->) are tested on real threads: each thread sees only
 * its own, and a thread's values are gone once it exits.
 *
 *	tr-threads [T [D]]	T threads (default 2), each nesting D levels
 *				(default 3), run one after the other
 *
 * It writes nothing on standard output.
 */
#include <pthread.h>
#include <stdlib.h>

/* never inlined, cloned or given another signature (gcc's IPA-SRA would
 * pass tr_pair() its one field read): the probed function is the one
 * called, with the arguments the C source passes */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

int tr_enter(int depth);
int tr_leave(int depth);

NOINLINE int tr_enter(int depth)
{
	__asm__ volatile("" ::: "memory");
	return depth;
}

NOINLINE int tr_leave(int depth)
{
	__asm__ volatile("" ::: "memory");
	return depth;
}

static void nest(int d, int max)
{
	tr_enter(d);
	if (d + 1 < max)
		nest(d + 1, max);
	tr_leave(d);
}

static void *thread(void *arg)
{
	nest(0, *(int *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	int depth = argc > 2 ? atoi(argv[2]) : 3;

	for (int i = 0; i < nt; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread, &depth) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}
