// SPDX-License-Identifier: MIT
/*
 * cpin.c - the target of tests/run-copyin.sh: fires probes whose
 * arguments point to its own memory (stack and heap), then waits to be
 * killed, so that reads of its memory after the hits still see the
 * same bytes.  reused fires with a stack buffer it overwrites right
 * after the probe: only a copy made when the probe fired sees the
 * bytes the probe saw.  edge fires with the last 4 bytes of a page
 * whose next page is unreadable: a copyin() of 8 bytes there faults.
 * That page is PROT_NONE, not unmapped: a hole there could take a
 * later mapping (a uprobe's own page, mapped at the first hit) before
 * a read after the hit, which then would not fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpin.h"

static void __attribute__((noinline)) fire_reused(void)
{
	volatile char b[16];

	memcpy((char *)b, "before-the-hit", 15);
	CPIN_REUSED((const char *)b);
	memcpy((char *)b, "AFTER!-the-hit", 15);
}

int main(void)
{
	int n = -42;
	unsigned long long big = 0x1122334455667788ULL;
	unsigned char *bytes = malloc(40);
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!bytes || m == MAP_FAILED)
		return 1;
	if (mprotect(m + pg, (size_t)pg, PROT_NONE))
		return 1;
	memcpy(m + pg - 4, "edge", 4);

	for (int i = 0; i < 40; i++)
		bytes[i] = (unsigned char)(i * 7 + 1);
	memcpy(bytes + 8, "Hello, world", 12); /* no NUL: 20 is 141 */
	CPIN_NUM(&n, &big);
	CPIN_BUF(bytes, 40);
	fire_reused();
	CPIN_EDGE(m + pg - 4);
	CPIN_DONE();
	for (;;)
		pause();
}
