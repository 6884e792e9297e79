// SPDX-License-Identifier: MIT
/*
 * uwalk.c - run-ustack.sh's program for the stack walked in the kernel
 * (dtrace-G/consumer/bpf/unw.bpf.c): ustk:::fire from stacks of every
 * shape the walk meets, ROUNDS times, a pause after each so that dtrace
 * reads the first rounds' copies and builds its tables before the next
 * ones fire (those are walked):
 *  0: main -> fire
 *  1: a comparison function called back from libc's qsort()
 *  2: 40 frames of recursion (walked), 3: 140 (past the walk's 128
 *     frames: the copy)
 *  4: a function with a variable-length array (its CFA from rbp)
 *  5: a signal handler (a signal frame: the copy)
 *  6: fire() with rsp just below a page's end, its callers' frames in
 *     the page above (pgend()'s frames of 48 bytes, as many as it takes
 *     to bring rsp within 48 bytes of a page's start, then pgfire()'s
 *     of more): the walk's first read of the stack goes on into that
 *     page (unw.bpf.c)
 * With a second argument "exec" it then exec()s itself for as many
 * rounds more: the new image's tables are built anew.  With UWALK_WAIT
 * set to a file, it first waits (up to 60 s) until the file says the
 * unwinder loaded (dtrace -v's line, written by its loading's thread:
 * ustack_walk.c's uw_fill()), so that its rounds meet the unwinder.
 * Usage: uwalk ROUNDS [exec]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustk.h"

#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif

volatile int sink;

KEEP void fire(int n)
{
	USTK_FIRE(n, (void *)0, (void *)0);
	sink += n;
}

KEEP static int cmp(const void *a, const void *b)
{
	fire(1);
	return *(const int *)a - *(const int *)b;
}

KEEP void viaqsort(void)
{
	int v[5] = { 4, 2, 0, 3, 1 };

	qsort(v, 5, sizeof(v[0]), cmp);
	sink += v[0];
}

KEEP void rec(int d, int n)
{
	if (d)
		rec(d - 1, n);
	else
		fire(n);
	sink++;
}

KEEP void vla(int n)
{
	volatile char buf[n];

	buf[0] = 1;
	fire(4);
	sink += buf[0];
}

KEEP void pgfire(void)
{
	volatile char pad[64];

	pad[0] = 6;
	fire(pad[0]);
	sink += pad[0];
}

KEEP void pgend(void)
{
	volatile char pad[24];

	pad[0] = 6;
	if (((unsigned long)pad & 4095) >= 48)
		pgend();
	else
		pgfire();
	sink += pad[0];
}

static void onsig(int s)
{
	(void)s;
	fire(5);
}

KEEP void sig(void)
{
	raise(SIGUSR1);
	sink++;
}

static void wait_loaded(const char *path)
{
	for (int i = 0; i < 1200; i++) {
		FILE *f = fopen(path, "r");
		char line[512];
		int ok = 0;

		while (f && fgets(line, sizeof(line), f))
			ok |= strstr(line, "stack walk in the kernel for") &&
			      strstr(line, " loaded");
		if (f)
			fclose(f);
		if (ok)
			return;
		usleep(50000);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;

	if (getenv("UWALK_WAIT"))
		wait_loaded(getenv("UWALK_WAIT"));

	signal(SIGUSR1, onsig);
	for (int r = 0; r < rounds; r++) {
		fire(0);
		viaqsort();
		rec(40, 2);
		rec(140, 3);
		vla(16 + r);
		sig();
		pgend();
		usleep(30000);
	}
	if (argc > 2 && !strcmp(argv[2], "exec"))
		execl("/proc/self/exe", argv[0], argv[1], (char *)0);
	return 0;
}
