// SPDX-License-Identifier: MIT
/*
 * cgmem.c - run-cgen-mem.sh's traced program: hit(r, i) is the probe
 * point (pid provider entry), r a struct req whose members are of every
 * size and sign, a nested struct, an array, bit-fields, a char array
 * and a pointer.  Hits 0 to 4 pass structs on the heap whose members
 * are worked out from i (run-cgen-mem.sh's expected lines say how;
 * hit 4's name fills its 40 bytes with no NUL); hit 5 passes NULL,
 * hit 6 the unmapped address 0x10, hit 7 a struct whose first 24
 * bytes end a page the next page of which is unreadable (a copy of 16
 * bytes reads, one of the whole struct faults at its start).  That
 * page is PROT_NONE, not unmapped: a hole there could take a later
 * mapping (the uprobe's own page, mapped at the first hit) before a
 * read after the hit, which then would not fault.
 * peek(r, i), then look(r, i), follow each hit with the same
 * arguments.  Then done()
 * and a wait to be killed, so that every read of its memory, at the
 * hit or later, sees the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct inner {
	short s;
	unsigned char u;
};

struct req {
	int id;
	unsigned int flags;
	long long big;
	signed char c;
	unsigned short us;
	struct inner in;
	int a[3];
	unsigned int lo : 3, mid : 7;
	int neg : 5;
	char name[40];
	struct req *next;
};

void __attribute__((noinline, used)) hit(struct req *r, int i)
{
	__asm__ volatile("" : : "r"(r), "r"(i) : "memory");
}

/* a second probe point, right after each hit(r, i) */
void __attribute__((noinline, used)) peek(struct req *r, int i)
{
	__asm__ volatile("" : : "r"(r), "r"(i) : "memory");
}

/* a third, for run-cgen-mem.sh's stringof() clauses */
void __attribute__((noinline, used)) look(struct req *r, int i)
{
	__asm__ volatile("" : : "r"(r), "r"(i) : "memory");
}

static void both(struct req *r, int i)
{
	hit(r, i);
	peek(r, i);
	look(r, i);
}

void __attribute__((noinline, used)) done(void)
{
	__asm__ volatile("" : : : "memory");
}

int main(void)
{
	struct req *v = calloc(5, sizeof(*v));
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct req *e;

	if (!v || m == MAP_FAILED)
		return 1;
	if (mprotect(m + pg, (size_t)pg, PROT_NONE))
		return 1;
	for (int i = 0; i < 5; i++) {
		struct req *r = &v[i];

		r->id = 100 + i;
		r->flags = 0xfffffff0u + (unsigned)i;
		r->big = -5000000000LL * (i + 1);
		r->c = (signed char)(-100 + 50 * i);
		r->us = (unsigned short)(65535 - 1000 * i);
		r->in.s = (short)(-300 * i);
		r->in.u = (unsigned char)(250 + i);
		r->a[0] = i;
		r->a[1] = -7 * i;
		r->a[2] = 77;
		r->lo = (unsigned)i + 3; /* 3 bits: 3 4 5 6 7 */
		r->mid = (unsigned)(120 + i);
		r->neg = -16 + 7 * i; /* -16 -9 -2 5 12 */
		memcpy(r->name, "abcdefg", 8);
		if (i == 4) /* its 40 bytes, no NUL */
			for (int j = 0; j < 40; j++)
				r->name[j] = (char)('a' + j % 26);
		r->name[0] = (char)('k' + i);
		r->next = i % 2 ? &v[0] : NULL;
	}
	e = (struct req *)(m + pg - 24);
	e->id = 107;
	e->flags = 7;
	for (int i = 0; i < 5; i++)
		both(&v[i], i);
	both(NULL, 5);
	both((struct req *)(uintptr_t)0x10, 6);
	both(e, 7);
	done();
	for (;;)
		pause();
}
