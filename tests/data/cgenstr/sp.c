// SPDX-License-Identifier: MIT
/*
 * sp.c - the strings of tests/run-cgen-argslen.sh (built with
 * -DSP_USDT: sp.d's probes sp:::s and sp:::i, sp.h from dtrace -h in
 * the current directory) and tests/run-cgen-strlen.sh (without: the
 * pid provider's hit(s, n), s for sp:::s, nothing for sp:::i).
 * `sp [MS]` fires s with strings of 0 to 300 bytes (each in a buffer
 * of 400 that is kept, so user space may read it after the hit) and
 * their lengths, i with each length times 1000 and its index; names
 * the thread with 15 bytes, the most execname takes; then fires s
 * with 10 bytes running into an unreadable page (n 1000), 5 bytes and
 * a NUL 20 bytes before that page (1001) and the address 8 (1002); and
 * sleeps MS milliseconds (0 by default) before it exits, for user
 * space's reads of what the records did not copy.  That page is
 * PROT_NONE, not unmapped: a hole there could take a later mapping (a
 * uprobe's own page, mapped at the first hit) before such a read,
 * which then would not fault where the hit's read did.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifdef SP_USDT
#include "sp.h"
#else
__attribute__((noinline)) int hit(const char *s, long n)
{
	__asm__ volatile("" ::: "memory");
	return (int)n + (s != 0);
}
#define SP_S(s, n) hit((s), (n))
#define SP_I(n, i) ((void)0)
#endif

int main(int argc, char **argv)
{
	static const int lens[] = { 0,	1,   2,	  14,  15,  16,
				    20, 254, 255, 256, 257, 300 };
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(0, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 1;
	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *b = malloc(400); /* kept: user space may read it */

		if (!b)
			return 1;
		memset(b, 'a' + (int)i, 400);
		b[lens[i]] = '\0';
		SP_S(b, lens[i]);
		SP_I(lens[i] * 1000L, i);
	}
	/* a name of 15 bytes, the most a thread's takes (execname) */
	prctl(PR_SET_NAME, "abcdefghijklmnopqrstuvwxyz", 0, 0, 0);
	/* 10 bytes running into an unreadable page; 5 and a NUL 20 bytes
	 * before its end; an address that does not read */
	if (mprotect(m + pg, (size_t)pg, PROT_NONE))
		return 1;
	memset(m + pg - 10, 'z', 10);
	SP_S(m + pg - 10, 1000);
	memset(m + pg - 26, 'y', 5);
	m[pg - 21] = '\0';
	SP_S(m + pg - 26, 1001);
	SP_S((char *)8, 1002);
	/* user space's reads of what the records did not copy */
	usleep(argc > 1 ? (useconds_t)atoi(argv[1]) * 1000 : 0);
	return 0;
}
