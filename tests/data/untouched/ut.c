/* SPDX-License-Identifier: MIT */
/*
 * ut.c - the traced program of tests/run-cgen-untouched.sh: strings in
 * pages the process never touched, passed to a probe.  big is 8 MB of
 * .rodata (a smaller block is mapped by the fault-around of the
 * process's own first reads), page-aligned; page 1500 + 32i holds
 * "lit-i" and page 1516 + 32i "fn-i" (16 pages apart: never in one
 * fault-around window, so reading one maps the other not), nothing
 * reading them.  The commands, run in order:
 *
 *	first N   i = 0..N-1: ut:::req(&page 1500 + 32i, i), then
 *	          req_fn(&page 1516 + 32i, i), each hit its own untouched
 *	          page; then lingers 300 ms (dtrace reads the process
 *	          after the hits: process_vm_readv())
 *	exit N    the same with no linger (dtrace's late reads are
 *	          deadmem.c's, from the file)
 *	bad       ut:::req(0x10, 100), then ut:::req of a string running
 *	          into an unreadable page, 101 (that page's address said
 *	          on stderr: "ut: unreadable 0x..."); lingers 300 ms.  The
 *	          page is PROT_NONE, not unmapped: a hole there could
 *	          take a later mapping (a uprobe's own page) before
 *	          dtrace's read after the hit, which then would not fault
 *	twice     ut:::req(&page 1980, 200) twice, 200 ms apart (the second
 *	          finds the page dtrace's read of the first brought in)
 *	five      ut:::req5 of the strings "five-i" on pages 1504 + 32i, i
 *	          0..4 (none of L()'s), nothing reading them; lingers
 *	          300 ms
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ut_probes.h"

#define PG 4096
#define L(i) [1500 + 32 * (i)] = "lit-" #i, [1516 + 32 * (i)] = "fn-" #i

static const char big[2048][PG] __attribute__((aligned(PG))) = {
	L(0),
	L(1),
	L(2),
	L(3),
	L(4),
	L(5),
	L(6),
	L(7),
	[1980] = "twice",
	[1504] = "five-0",
	[1536] = "five-1",
	[1568] = "five-2",
	[1600] = "five-3",
	[1632] = "five-4",
};

/* the pid provider's probe: reads nothing of its argument */
__attribute__((noinline)) void req_fn(const char *p, int i)
{
	__asm__ volatile("" : : "r"(p), "r"(i) : "memory");
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		const char *c = argv[a];

		if (!strcmp(c, "first") || !strcmp(c, "exit")) {
			int n = a + 1 < argc ? atoi(argv[++a]) : 0;

			if (n < 0 || n > 8)
				n = 8;
			for (int i = 0; i < n; i++) {
				UT_REQ((char *)big[1500 + 32 * i], i);
				req_fn(big[1516 + 32 * i], i);
			}
			if (!strcmp(c, "first"))
				nap(300);
		} else if (!strcmp(c, "bad")) {
			char *m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED || mprotect(m + PG, PG, PROT_NONE))
				return 1;
			memset(m + PG - 8, 'x', 8); /* no NUL before the end */
			fprintf(stderr, "ut: unreadable %p\n",
				(void *)(m + PG));
			UT_REQ((char *)(uintptr_t)0x10, 100);
			UT_REQ(m + PG - 8, 101);
			nap(300);
		} else if (!strcmp(c, "twice")) {
			UT_REQ((char *)big[1980], 200);
			nap(200);
			UT_REQ((char *)big[1980], 200);
			nap(300);
		} else if (!strcmp(c, "five")) {
			UT_REQ5((char *)big[1504], (char *)big[1536],
				(char *)big[1568], (char *)big[1600],
				(char *)big[1632]);
			nap(300);
		} else {
			fprintf(stderr, "ut: unknown command %s\n", c);
			return 2;
		}
	}
	return 0;
}
