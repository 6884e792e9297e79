// SPDX-License-Identifier: MIT
/*
 * cgout.c - run-cgen-out.sh's traced program: hit(p, n) is the probe
 * point (pid provider: entry and return), p a string.
 *
 *   cgout rewrite N  N hits, each string rewritten right after hit()
 *                    returns ("before-i" becomes "after-i"): what the
 *                    process had at the hit is "before-i"
 *   cgout midway N   N calls of hitm(p, i), which rewrites its string
 *                    ("before-i" becomes "during-i") before it returns;
 *                    after the return it becomes "after-i": entry saw
 *                    "before-i", return "during-i"
 *   cgout keep       strings that stay as they are until the exit
 *                    (short, empty, 254, 255 and 300 bytes, bytes that
 *                    are not printable)
 *   cgout fault F    hit() of an unmapped address, then of a string
 *                    that runs into an unreadable page; the two
 *                    addresses a read faults at go to file F first
 *   cgout refault    hit() of "alpha", of an unmapped address (0x10),
 *                    then of ""
 *   cgout null       hit() of NULL (0) beside strings, "" and an
 *                    unmapped address (0x10): the argN ? copyinstr(argN)
 *                    : "lit" idiom
 *   cgout order      strings to order (strcmp()'s): prefixes, bytes
 *                    above 0x7f, equal up to 20 or 290 bytes
 *   cgout pair       hit2(p, i, q) of two strings: pairs of
 *                    different lengths (one past 64 bytes), equal,
 *                    empty, and an unmapped address (0x10) on
 *                    either side; each also to hit2_ ... (a name of
 *                    67 bytes, past what the kernel keeps of a key)
 *   cgout cut F      strings at strsize's cut, each hit(p, i) to be
 *                    compared with the one before it: "", 5 to 9
 *                    bytes (strsize 8 keeps 7) and 253 to 300 (256
 *                    keeps 255), pairs equal up to the cut and
 *                    differing at it or after; then, 300 'x' before
 *                    each, 'x's with no NUL running into an unreadable
 *                    page k = 6, 7, 8, 9, 15, 16 and 254 bytes before
 *                    it (a read of strsize - 1 bytes faults at the
 *                    page where k < strsize - 1); the page's address
 *                    goes to file F first
 *   cgout pack       hit2(p, i, q) of pairs whose bytes, NULs
 *                    included, are 64 (what one kernel key holds of
 *                    two strings) or 65, and pairs whose bytes differ
 *                    only in where the first ends ("ab" "c", "a" "bc")
 *   cgout seq F LIT  strings to compare with the literal LIT (L
 *                    bytes, 1 to 40), each m bytes: LIT's first m then
 *                    'x's -- m = L - 1 to L + 3 and around the
 *                    kernel's reads (a word, the stack's room of 80,
 *                    strsize 8, 16 and 256), LIT with its last byte
 *                    changed, "" --; then such bytes, no NUL, k
 *                    before a page that is not readable (k = 1, L to
 *                    L + 3, 7 to 9, 15 to 17, 23 to 25, 80, 81 and 253
 *                    to 257), then LIT and LIT "x" whose NULs are the
 *                    last bytes before such a page; then 300 bytes
 *                    starting k before a page that is readable (k =
 *                    L + 1, L + 2, 8, 100): hit(p, i) of each in turn,
 *                    each in place until the exit; the unreadable
 *                    pages' addresses go to file F first, one a line
 *   cgout bounded F  hit(p, n) of bytes with a length and no NUL, as
 *                    hotspot's probes pass them (run-cgen-bstr.sh):
 *                    "hello world" cut at 5, 11 and 0; "ab\0cd" at
 *                    5; 300 'y's at 254 to 256 and 299; bytes that are
 *                    not printable; 5,000 'z's at 4,095 and 4,096
 *                    (UBPF_KBSTRMAX); "abc" whose NUL is the last byte
 *                    before an unreadable page at 3 (its copy ends at
 *                    the NUL) and 4 (one byte of it past the page);
 *                    address 0x10 at 3; lengths -5 and 70,000 (past
 *                    copyin()'s scratch); "hello world" at 5 again.
 *                    The address of "abc" goes to file F first
 *   cgout cuts F     the same with a process's own lengths where the
 *                    copy's fault is the hit's (run-cgen-bstr.sh):
 *                    "hello world" at 5, -1 (the cut below a copy of
 *                    no bytes) and -2; 20 pages of 'q' whose page 16 is
 *                    not readable, from the last byte of page 0 (A) at
 *                    61,440 (the last byte before page 16) and 61,441,
 *                    from page 0's start at 65,535 (the most one copy
 *                    takes), from A at 65,535, from the start at
 *                    65,536 (past it), 32,767 and 32,768 (two such
 *                    copies fill it, or pass it); address 0x10 at 0
 *                    and -1; "abc" at 3.  A's address goes to file F
 *                    first
 *   cgout rename     renames itself (prctl(PR_SET_NAME)) before each
 *                    hit(name, i), name its new name as asked (one
 *                    of 22 bytes the kernel cuts to 15), and to
 *                    "after-i" right after it: execname at hit i is
 *                    the name passed, cut to 15 bytes
 *
 * Each mode sleeps before it exits (300 ms, or CGOUT_LINGER_MS), so a
 * read of its memory after the hit finds the process (and, but for
 * rewrite, the same bytes).  lib.sh's run() sets CGOUT_LINGER_MS=0
 * where the kernel reads every string at the hit, so nothing reads the
 * process after its hits (-v says so, each run checks).  An unreadable
 * page is PROT_NONE (guard()), never a hole, so that such a read faults
 * where the read at the hit did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/*
 * guard: the page at P made unreadable for good.  PROT_NONE, not
 * munmap(): the range stays this mapping's, so no later mapping (the
 * kernel's, a uprobe's own page, or a library's) can land in a hole
 * there between a hit and a later read from user space, and both fault
 * at the page.
 */
static int guard(char *p)
{
	return mprotect(p, 4096, PROT_NONE);
}

__attribute__((noinline)) int hit(const char *p, long n)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return (int)n + 1;
}

__attribute__((noinline)) int hitm(char *p, long n)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	snprintf(p, 64, "during-%ld", n);
	__asm__ volatile("" : : "r"(p) : "memory");
	return (int)n + 1;
}

__attribute__((noinline)) int hit2(const char *p, long n, const char *q)
{
	__asm__ volatile("" : : "r"(p), "r"(q) : "memory");
	return (int)n + 1;
}

__attribute__((noinline)) int
hit2_of_a_name_longer_than_the_sixty_three_bytes_a_kernel_key_holds(long n)
{
	__asm__ volatile("" : : : "memory");
	return (int)n + 2;
}

/* s[0 .. m): lit's bytes, then 'x's past them; s[m] = 0 where nul */
static void lit_fill(char *s, const char *lit, size_t m, int nul)
{
	size_t len = strlen(lit);

	for (size_t i = 0; i < m; i++)
		s[i] = i < len ? lit[i] : 'x';
	if (nul)
		s[m] = '\0';
}

/* seq's strings (main()'s comment): hit(p, i) of each */
static int seq(const char *file, const char *lit)
{
	static const unsigned lens[] = { 7,  8,  9,  15,  16,  17,  23,
					 24, 25, 79, 80,  81,  254, 255,
					 256, 257, 300 };
	static const unsigned run[] = { 7,  8,	9,   15,  16,  17,
					23, 24, 25,  80,  81,  253,
					254, 255, 256, 257 };
	static const unsigned over[] = { 8, 100 };
	enum { NRUN = 5 + sizeof(run) / sizeof(run[0]), NEND = 2,
	       NOVER = 2 + sizeof(over) / sizeof(over[0]) };
	static char a[5 + sizeof(lens) / sizeof(lens[0]) + 2][302];
	size_t len = strlen(lit), na = 0, k;
	/* a pair of pages a string: the second unreadable, but for the
	 * NOVER strings 300 bytes long, which run on into it */
	size_t np = NRUN + NEND + NOVER;
	char *pg = mmap(NULL, np * 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f = fopen(file, "w");
	long i = 0;

	if (pg == MAP_FAILED || !f || len < 1 || len > 40)
		return 1;
	for (size_t p = 0; p < NRUN + NEND; p++) {
		if (guard(pg + p * 8192 + 4096))
			return 1;
		fprintf(f, "0x%lx\n", (unsigned long)(pg + p * 8192 + 4096));
	}
	fclose(f);
	for (size_t m = len - 1; m <= len + 3; m++)
		lit_fill(a[na++], lit, m, 1);
	for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
		lit_fill(a[na++], lit, lens[j], 1);
	lit_fill(a[na], lit, len, 1);
	a[na++][len - 1] ^= 0x20;
	a[na++][0] = '\0';
	for (size_t j = 0; j < na; j++)
		hit(a[j], i++);
	for (size_t p = 0; p < NRUN; p++) {
		char *end = pg + p * 8192 + 4096;

		k = p == 0 ? 1 : p < 5 ? len + p - 1 : run[p - 5];
		lit_fill(end - k, lit, k, 0);
		hit(end - k, i++);
	}
	for (size_t p = NRUN; p < NRUN + NEND; p++) {
		char *end = pg + p * 8192 + 4096;

		k = len + 1 + (p - NRUN);
		lit_fill(end - k, lit, k - 1, 1);
		hit(end - k, i++);
	}
	for (size_t p = NRUN + NEND; p < np; p++) {
		char *end = pg + p * 8192 + 4096;
		size_t q = p - NRUN - NEND;

		k = q < 2 ? len + 1 + q : over[q - 2];
		lit_fill(end - k, lit, 300, 1);
		hit(end - k, i++);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "keep";

	if (!strcmp(mode, "rewrite")) {
		int n = argc > 2 ? atoi(argv[2]) : 5;
		char buf[64];

		for (int i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "before-%d", i);
			hit(buf, i);
			snprintf(buf, sizeof(buf), "after-%d", i);
			__asm__ volatile("" : : "r"(buf) : "memory");
		}
	} else if (!strcmp(mode, "midway")) {
		int n = argc > 2 ? atoi(argv[2]) : 5;
		char buf[64];

		for (int i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "before-%d", i);
			hitm(buf, i);
			snprintf(buf, sizeof(buf), "after-%d", i);
			__asm__ volatile("" : : "r"(buf) : "memory");
		}
	} else if (!strcmp(mode, "keep")) {
		static char s254[255], s255[256], s300[301];
		static const char odd[] = "a\001b\177c\ttab";

		memset(s254, 'a', 254);
		memset(s255, 'b', 255);
		memset(s300, 'c', 300);
		hit("alpha", 1);
		hit("", 2);
		hit(s254, 3);
		hit(s255, 4);
		hit(s300, 5);
		hit(odd, 6);
		hit("omega", -7);
	} else if (!strcmp(mode, "fault") && argc > 2) {
		char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FILE *f = fopen(argv[2], "w");

		if (pg == MAP_FAILED || !f || guard(pg + 4096))
			return 1;
		memset(pg + 4096 - 8, 'x', 8);
		fprintf(f, "0x10 0x%lx\n", (unsigned long)(pg + 4096));
		fclose(f);
		hit((const char *)16, 1);
		hit(pg + 4096 - 8, 2);
	} else if (!strcmp(mode, "order")) {
		static char l1[22], l2[22], c1[301], c2[301];
		static const char *const v[] = {
			"abc", "abd", "ab", "ab\377", "ab\001", "", "abc",
			l1, l2, c1, c2, "\200", "\177", "abc"
		};

		memset(l1, 'a', 20);
		memset(l2, 'a', 20);
		l1[20] = 'X';
		l2[20] = 'Y';
		memset(c1, 'c', 300);
		memset(c2, 'c', 300);
		c2[290] = 'd';
		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			hit(v[i], (long)i);
	} else if (!strcmp(mode, "cut") && argc > 2) {
		static char a[18][302], x300[301];
		static const unsigned tails[] = { 6, 7, 8, 9, 15, 16, 254 };
		char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FILE *f = fopen(argv[2], "w");
		long i = 0;

		if (pg == MAP_FAILED || !f || guard(pg + 4096))
			return 1;
		memset(pg, 'x', 4096);
		memset(x300, 'x', 300);
		fprintf(f, "0x%lx\n", (unsigned long)(pg + 4096));
		fclose(f);
		/* 0-1 "" twice, 2-3 6 equal, 4 7, 5-7 8 and longer equal
		 * up to 7, 8 differing at 7, 9 5 */
		strcpy(a[0], "");
		strcpy(a[1], "");
		strcpy(a[2], "abcdef");
		strcpy(a[3], "abcdef");
		strcpy(a[4], "abcdefg");
		strcpy(a[5], "abcdefgh");
		strcpy(a[6], "abcdefgX");
		strcpy(a[7], "abcdefgXYZ");
		strcpy(a[8], "abcdefX");
		strcpy(a[9], "abcde");
		/* 10-11 253 equal, 12 254, 13 254 differing at 253, 14
		 * 255, 15 256 equal up to 255, 16 255 differing at 254,
		 * 17 300 equal to 16 up to 255 */
		memset(a[10], 'a', 253);
		memset(a[11], 'a', 253);
		memset(a[12], 'a', 254);
		memset(a[13], 'a', 254);
		a[13][253] = 'b';
		memset(a[14], 'a', 255);
		memset(a[15], 'a', 256);
		memset(a[16], 'a', 255);
		a[16][254] = 'c';
		memset(a[17], 'a', 300);
		a[17][254] = 'c';
		for (unsigned j = 0; j < 18; j++)
			hit(a[j], i++);
		for (unsigned j = 0; j < sizeof(tails) / sizeof(tails[0]);
		     j++) {
			hit(x300, i++);
			hit(pg + 4096 - tails[j], i++);
		}
	} else if (!strcmp(mode, "bounded") && argc > 2) {
		static char z5000[5000], y300[300];
		static const char nulin[] = { 'a', 'b', 0, 'c', 'd' };
		static const char odd[] = { 'a', 1,    'b', 127,
					    'c', '\t', 't', 'a' };
		char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FILE *f = fopen(argv[2], "w");

		if (pg == MAP_FAILED || !f || guard(pg + 4096))
			return 1;
		memset(z5000, 'z', sizeof(z5000));
		memset(y300, 'y', sizeof(y300));
		memcpy(pg + 4096 - 4, "abc", 4);
		fprintf(f, "0x%lx\n", (unsigned long)(pg + 4096 - 4));
		fclose(f);
		hit("hello world", 5);
		hit("hello world", 11);
		hit("hello world", 0);
		hit(nulin, 5);
		hit(y300, 254);
		hit(y300, 255);
		hit(y300, 256);
		hit(y300, 300 - 1);
		hit(odd, 8);
		hit(z5000, 4095);
		hit(z5000, 4096);
		hit(pg + 4096 - 4, 3);
		hit(pg + 4096 - 4, 4);
		hit((const char *)16, 3);
		hit("hello world", -5);
		hit(z5000, 70000);
		hit("hello world", 5);
	} else if (!strcmp(mode, "cuts") && argc > 2) {
		/* 20 pages of 'q', every one touched, page 16 unreadable;
		 * A its page 0's last byte */
		char *big = mmap(NULL, 20 * 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FILE *f = fopen(argv[2], "w");

		if (big == MAP_FAILED || !f)
			return 1;
		memset(big, 'q', 20 * 4096);
		if (guard(big + 16 * 4096))
			return 1;
		fprintf(f, "0x%lx\n", (unsigned long)(big + 4095));
		fclose(f);
		hit("hello world", 5);
		hit("hello world", -1);
		hit("hello world", -2);
		hit(big + 4095, 61440);
		hit(big + 4095, 61441);
		hit(big, 65535);
		hit(big + 4095, 65535);
		hit(big, 65536);
		hit(big, 32767);
		hit(big, 32768);
		hit((const char *)16, 0);
		hit((const char *)16, -1);
		hit("abc", 3);
	} else if (!strcmp(mode, "seq") && argc > 3) {
		if (seq(argv[2], argv[3]))
			return 1;
	} else if (!strcmp(mode, "rename")) {
		static const char *const v[] = {
			"cg-one", "", "abcdefghijklmno",
			"a-name-of-twenty-chars", "prefix-one", "prefix-two",
			"tab\there", "\303\251t\303\251", "cg-one", "Z"
		};

		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			char after[16];

			if (prctl(PR_SET_NAME, (unsigned long)v[i], 0, 0, 0))
				return 1;
			hit(v[i], (long)i);
			snprintf(after, sizeof(after), "after-%u", i);
			if (prctl(PR_SET_NAME, (unsigned long)after, 0, 0, 0))
				return 1;
		}
	} else if (!strcmp(mode, "null")) {
		static const char *const v[] = { NULL, "one", NULL,
						 "",   NULL,  (const char *)16,
						 "six" };

		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			hit(v[i], (long)i);
	} else if (!strcmp(mode, "pair")) {
		static char big[101];
		static const char *const v[][2] = {
			{ "left-0", "right-0" },   { "", "r" },
			{ "same", "same" },	   { big, "short" },
			{ "x", (const char *)16 }, { (const char *)16, "y" },
			{ "left-6", "" },	   { "left-7", "right-7" },
		};

		memset(big, 'b', 100);
		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			hit2(v[i][0], (long)i, v[i][1]);
			hit2_of_a_name_longer_than_the_sixty_three_bytes_a_kernel_key_holds(
				(long)i);
		}
	} else if (!strcmp(mode, "pack")) {
		static char a31[32], b31[32], b32[33], a62[63], a63[64];
		const char *const v[][2] = {
			{ "ab", "c" }, { "a", "bc" }, { a31, b31 },
			{ a31, b32 },  { b32, a31 },  { a62, "" },
			{ "", a62 },   { a63, "" },   { "", a63 },
			{ "", "" },    { "ab", "c" }, { a31, b31 },
		};

		memset(a31, 'a', 31);
		memset(b31, 'b', 31);
		memset(b32, 'b', 32);
		memset(a62, 'a', 62);
		memset(a63, 'a', 63);
		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			hit2(v[i][0], (long)i, v[i][1]);
	} else if (!strcmp(mode, "refault")) {
		hit("alpha", 1);
		hit((const char *)16, 2);
		hit("", 3);
	} else {
		return 2;
	}
	/* CGOUT_LINGER_MS: longer for a slow dtrace, 0 where no read of the
	 * process comes after the hits (lib.sh's cgout_setup()) */
	usleep(getenv("CGOUT_LINGER_MS") ?
		       (useconds_t)atoi(getenv("CGOUT_LINGER_MS")) * 1000 :
		       300000);
	return 0;
}
