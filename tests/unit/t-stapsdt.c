// SPDX-License-Identifier: MIT
/*
 * t-stapsdt.c - TAP tests for sdk/stapsdt.c, the stapsdt note reader.
 *
 * Three parts:
 *
 *  - hand-made sections: notes in both ELF classes and byte orders,
 *    foreign notes skipped, <sys/sdt.h>'s padded descriptors, and one
 *    targeted corruption per bounds rule (truncated header, sizes past the
 *    end or near 2^32, short descriptor, missing NULs, empty names,
 *    control characters), each with the offset the reader must blame and
 *    the cursor it must leave;
 *  - argument specs: every operand form with its meaning and canonical
 *    spelling, and malformed specs with the offset of the fault;
 *  - real notes: fuzz/src/sites.c is built at -O0 and -O2 with the dtrace
 *    under test (-h, cc, -G, link), and every note of the program, read
 *    by this reader, must match what `readelf -n` shows -- provider,
 *    name, location, base, semaphore and the argument string -- and mean
 *    what the provider file declares: the SysV register or stack slot of
 *    each argument, its size and signedness, the semaphore symbol and the
 *    .stapsdt.base address.  Where <sys/sdt.h> is installed, its notes
 *    (fuzz/src/sdt.c: memory, constants, globals, floats) must parse too.
 *
 * The real-note part needs DTRACE, DTRACE_DRTI, top_srcdir, CC and readelf
 * (make check sets them) on x86-64, and is skipped otherwise.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "prov.h"
#include "stapsdt.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* Building note sections */

struct sec {
	uint8_t b[1024];
	size_t len;
	unsigned int flags;
};

static void put(struct sec *s, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned int sh = s->flags & STAPSDT_F_MSB ? n - 1 - i : i;

		s->b[s->len++] = (uint8_t)(v >> (8 * sh));
	}
}

static void put_bytes(struct sec *s, const void *p, size_t n)
{
	memcpy(s->b + s->len, p, n);
	s->len += n;
}

static void pad4(struct sec *s)
{
	while (s->len % 4)
		s->b[s->len++] = 0;
}

/*
 * A stapsdt note: the three strings are given with their NULs as one
 * block of strs_len bytes; extra bytes of padding go inside descsz.
 */
static size_t add_note(struct sec *s, uint64_t pc, uint64_t base,
		       uint64_t sema, const char *strs, size_t strs_len,
		       size_t extra)
{
	unsigned int asz = s->flags & STAPSDT_F_ELF32 ? 4 : 8;
	size_t at = s->len;

	put(s, 8, 4);
	put(s, 3 * asz + strs_len + extra, 4);
	put(s, STAPSDT_NOTE_TYPE, 4);
	put_bytes(s, "stapsdt", 8);
	put(s, pc, asz);
	put(s, base, asz);
	put(s, sema, asz);
	put_bytes(s, strs, strs_len);
	for (size_t i = 0; i < extra; i++)
		s->b[s->len++] = 0;
	pad4(s);
	return at;
}

static void add_foreign(struct sec *s)
{
	put(s, 4, 4);
	put(s, 16, 4);
	put(s, 1, 4); /* NT_GNU_ABI_TAG */
	put_bytes(s, "GNU", 4);
	put(s, 0, 4);
	put(s, 3, 4);
	put(s, 2, 4);
	put(s, 0, 4);
}

#define STRS(x) x, sizeof(x) /* with the final NUL */

/* Exactly len bytes on the heap, so ASan sees a read past the end. */
static int next_exact(const struct sec *s, uint64_t *cur,
		      struct stapsdt_note *n, struct stapsdt_err *err)
{
	uint8_t *copy = malloc(s->len ? s->len : 1);
	int ret;

	memcpy(copy, s->b, s->len);
	ret = stapsdt_note_next(copy, s->len, s->flags, cur, n, err);
	/* strings point into the copy: move them to the original */
	if (ret == 1) {
		n->provider = (const char *)s->b + (n->provider - (char *)copy);
		n->name = (const char *)s->b + (n->name - (char *)copy);
		n->args = (const char *)s->b + (n->args - (char *)copy);
	}
	free(copy);
	return ret;
}

static void test_good_notes(void)
{
	static const unsigned int fl[] = { 0, STAPSDT_F_ELF32, STAPSDT_F_MSB,
					   STAPSDT_F_ELF32 | STAPSDT_F_MSB };

	for (unsigned int k = 0; k < 4; k++) {
		struct sec s = { .flags = fl[k] };
		struct stapsdt_note n;
		struct stapsdt_err err;
		uint64_t cur = 0;
		size_t first, second;
		int ret;

		add_foreign(&s);
		first = add_note(&s, 0x401126, 0x402004, 0x404020,
				 STRS("myapp\0query__start\0-4@%edi 8@%rsi"),
				 0);
		add_foreign(&s);
		/* <sys/sdt.h> counts its padding in descsz */
		second = add_note(&s, 0x401200, 0x402004, 0,
				  STRS("myapp\0tick\0"), 3);

		ret = next_exact(&s, &cur, &n, &err);
		is_int(ret, 1, "flags %u: first note", fl[k]);
		if (ret != 1)
			diag("%s", err.msg);
		is_int(n.off, first, "flags %u: its offset", fl[k]);
		is_int(n.pc, 0x401126, "flags %u: pc", fl[k]);
		is_int(n.base, 0x402004, "flags %u: base", fl[k]);
		is_int(n.sema, 0x404020, "flags %u: semaphore", fl[k]);
		is_str(n.provider, "myapp", "flags %u: provider", fl[k]);
		is_str(n.name, "query__start", "flags %u: name", fl[k]);
		is_str(n.args, "-4@%edi 8@%rsi", "flags %u: args", fl[k]);
		ret = next_exact(&s, &cur, &n, &err);
		is_int(ret, 1, "flags %u: second note, past a foreign one",
		       fl[k]);
		is_int(n.off, second, "flags %u: its offset", fl[k]);
		is_int(n.sema, 0, "flags %u: no semaphore", fl[k]);
		is_str(n.args, "", "flags %u: no arguments", fl[k]);
		is_int(next_exact(&s, &cur, &n, &err), 0, "flags %u: end",
		       fl[k]);
		is_int(cur, s.len, "flags %u: cursor at the end", fl[k]);
	}

	{
		struct sec s = { 0 };
		struct stapsdt_note n;
		uint64_t cur = 0;

		is_int(stapsdt_note_next(NULL, 0, 0, &cur, &n, NULL), 0,
		       "empty section: no notes");
		add_note(&s, 1, 2, 3, STRS("p\0n\0"), 0);
		s.len -= 2; /* the section ends inside the last padding */
		is_int(next_exact(&s, &cur, &n, NULL), 1,
		       "padding cut by the section end is accepted");
		is_str(n.name, "n", "... and the note read");
	}
}

/* One corrupted section: the return, the offset blamed, the cursor. */
static void bad(const char *what, const struct sec *s, uint64_t want_off,
		uint64_t want_cur)
{
	struct stapsdt_note n;
	struct stapsdt_err err;
	uint64_t cur = 0;
	int ret = next_exact(s, &cur, &n, &err);

	if (!ok(ret == -EINVAL && err.code == -EINVAL && err.off == want_off &&
			cur == want_cur,
		"refused: %s", what))
		diag("ret %d, off %" PRIu64 " (want %" PRIu64 "), cursor %" PRIu64
		     " (want %" PRIu64 "): %s",
		     ret, err.off, want_off, cur, want_cur, err.msg);
	ok(strchr(err.msg, '\n') == NULL && err.msg[0],
	   "%s: one-line message '%s'", what, err.msg);
}

static void test_bad_notes(void)
{
	struct sec s;
	size_t end;

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("p\0n\0a"), 0);
	end = s.len;
	s.len = 11;
	bad("header of 11 bytes", &s, 0, 11);

	s = (struct sec){ 0 };
	add_foreign(&s);
	add_note(&s, 1, 2, 3, STRS("p\0n\0a"), 0);
	s.b[32] = 0xff, s.b[33] = 0xff, s.b[34] = 0xff, s.b[35] = 0xff;
	bad("namesz 0xffffffff", &s, 32, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("p\0n\0a"), 0);
	end = s.len;
	s.b[4] = 0xfd, s.b[5] = 0xff, s.b[6] = 0xff, s.b[7] = 0xff;
	bad("descsz 0xfffffffd", &s, 4, end);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("p\0n\0a"), 0);
	s.b[4] += 4;
	bad("descsz 4 past the end", &s, 4, s.len);

	s = (struct sec){ 0 };
	put(&s, 8, 4);
	put(&s, 24 + 4, 4);
	put(&s, 3, 4);
	put_bytes(&s, "stapsdt", 8);
	for (int i = 0; i < 28; i++)
		s.b[s.len++] = 'x';
	bad("descriptor of 28 bytes", &s, 20, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, "prov", 4, 4); /* no NUL until padding */
	s.b[20 + 24 + 4] = 'x';
	s.b[20 + 24 + 5] = 'y';
	s.b[20 + 24 + 6] = 'z';
	s.b[20 + 24 + 7] = 'w';
	bad("provider without a NUL", &s, 44, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("\0name\0args"), 0);
	bad("empty provider", &s, 44, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("p\0\0args"), 0);
	bad("empty probe name", &s, 46, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, "p\0n\0args", 8, 0);
	bad("argument string without a NUL", &s, 48, s.len);

	s = (struct sec){ 0 };
	add_note(&s, 1, 2, 3, STRS("p\0n\x1b[2J\0"), 0);
	bad("control characters in the name", &s, 46, s.len);

	/* a lenient reader goes on after a faulty note */
	{
		struct stapsdt_note n;
		struct stapsdt_err err;
		uint64_t cur = 0;

		s = (struct sec){ 0 };
		add_note(&s, 1, 2, 3, STRS("\0n\0"), 0);
		add_note(&s, 4, 5, 6, STRS("p\0good\0"), 0);
		is_int(next_exact(&s, &cur, &n, &err), -EINVAL,
		       "first of two notes refused");
		is_int(next_exact(&s, &cur, &n, &err), 1,
		       "... the second still read");
		is_str(n.name, "good", "... by name");
	}
}

/* ------------------------------------------------------------------ */
/* Argument specs */

struct argcase {
	const char *spec;
	enum stapsdt_arg_kind kind;
	unsigned int size;
	bool sgn, flt;
	int reg;
	unsigned int reg_size;
	int index;
	unsigned int scale;
	int64_t off;
	const char *sym;
	const char *canon; /* NULL: the spec itself */
};

#define N STAPSDT_REG_NONE
#define G(r) STAPSDT_REG_##r

/* spec, kind, size, signed, float, reg, reg_size, index, scale, off,
 * sym, canonical spelling (NULL: the spec itself) */
#define A(spec, kind, size, sgn, flt, reg, rsz, idx, scale, off, sym, canon) \
	{ spec, STAPSDT_ARG_##kind, size, sgn, flt, reg, rsz, idx, scale, \
	  off, sym, canon }

static const struct argcase argcases[] = {
	A("-4@%edi", REG, 4, true, false, G(RDI), 4, N, 1, 0, NULL,
	  NULL),
	A("8@%rsi", REG, 8, false, false, G(RSI), 8, N, 1, 0, NULL,
	  NULL),
	A("2@%dx", REG, 2, false, false, G(RDX), 2, N, 1, 0, NULL,
	  NULL),
	A("-1@%cl", REG, 1, true, false, G(RCX), 1, N, 1, 0, NULL,
	  NULL),
	A("1@%dil", REG, 1, false, false, G(RDI), 1, N, 1, 0, NULL,
	  NULL),
	A("-1@%r8", REG, 1, true, false, G(R8), 8, N, 1, 0, NULL,
	  NULL),
	A("4@%r9d", REG, 4, false, false, G(R9), 4, N, 1, 0, NULL,
	  NULL),
	A("2@%r15w", REG, 2, false, false, G(R15), 2, N, 1, 0, NULL,
	  NULL),
	A("1@%r10l", REG, 1, false, false, G(R10), 1, N, 1, 0, NULL,
	  "1@%r10b"),
	A("1@%ah", REG, 1, false, false, G(RAX), 1, N, 1, 0, NULL,
	  NULL),
	A("8f@%xmm1", REG, 8, false, true, G(XMM0) + 1, 16, N, 1, 0, NULL,
	  NULL),
	A("8f@%rdx", REG, 8, false, true, G(RDX), 8, N, 1, 0, NULL,
	  NULL),
	A("16@%xmm15", REG, 16, false, false, G(XMM15), 16, N, 1, 0, NULL,
	  NULL),
	A("%rdi", REG, 0, false, false, G(RDI), 8, N, 1, 0, NULL,
	  NULL),
	A("-4@0(%rsp)", MEM, 4, true, false, G(RSP), 0, N, 1, 0, NULL,
	  "-4@(%rsp)"),
	A("-8@40(%rsp)", MEM, 8, true, false, G(RSP), 0, N, 1, 40, NULL,
	  NULL),
	A("4@-20(%rbp)", MEM, 4, false, false, G(RBP), 0, N, 1, -20, NULL,
	  NULL),
	A("-4@(%rdx,%r8,4)", MEM, 4, true, false, G(RDX), 0, G(R8), 4, 0, NULL,
	  NULL),
	A("8@-8(%rbp,%rax)", MEM, 8, false, false, G(RBP), 0, G(RAX), 1, -8, NULL,
	  NULL),
	A("8@(,%rcx,8)", MEM, 8, false, false, N, 0, G(RCX), 8, 0, NULL,
	  NULL),
	A("-8@fz_global(%rip)", MEM, 8, true, false, G(RIP), 0, N, 1, 0, "fz_global",
	  NULL),
	A("4@tab.1+8(%rip)", MEM, 4, false, false, G(RIP), 0, N, 1, 8, "tab.1",
	  NULL),
	A("4@x-4(%rip)", MEM, 4, false, false, G(RIP), 0, N, 1, -4, "x",
	  NULL),
	A("8@0x10(%rax)", MEM, 8, false, false, G(RAX), 0, N, 1, 16, NULL,
	  "8@16(%rax)"),
	A("8@4096", MEM, 8, false, false, N, 0, N, 1, 4096, NULL,
	  NULL),
	A("-8(%rbp)", MEM, 0, false, false, G(RBP), 0, N, 1, -8, NULL,
	  NULL),
	A("-4@$42", CONST, 4, true, false, N, 0, N, 1, 42, NULL,
	  NULL),
	A("-4@$-7", CONST, 4, true, false, N, 0, N, 1, -7, NULL,
	  NULL),
	A("8@$18446744073709551615", CONST, 8, false, false, N, 0, N, 1, -1, NULL,
	  "8@$-1"),
	A("8@$-9223372036854775808", CONST, 8, false, false, N, 0, N, 1,
	  INT64_MIN, NULL, NULL),
	A("8@$buf+16", CONST, 8, false, false, N, 0, N, 1, 16, "buf",
	  NULL),
};

static const struct {
	const char *spec;
	size_t off; /* where the fault is blamed */
} badargs[] = {
	{ "4@", 2 },
	{ "@%rdi", 0 },
	{ "3@%rdi", 0 },
	{ "-@%rdi", 0 },
	{ "32@%rdi", 0 },
	{ "4x@%rdi", 1 },
	{ "4@%xyz", 2 },
	{ "4@%r16", 2 },
	{ "4@%r8q", 2 },
	{ "4@%xmm16", 2 },
	{ "4@%rdi)", 6 },
	{ "4@8(%rsp", 3 },
	{ "4@8(%esp)", 3 },
	{ "4@8(%rax,%rsp,2)", 3 },
	{ "4@8(%rax,%rbx,3)", 3 },
	{ "4@(%rip,%rax)", 2 },
	{ "4@()", 2 },
	{ "4@$", 3 },
	{ "4@$%rax", 3 },
	{ "4@99999999999999999999(%rax)", 2 },
	{ "4@9223372036854775808(%rax)", 2 },
	{ "8@$18446744073709551616", 3 },
	{ "4@sym+(%rip)", 2 },
	{ "4@+8(%rax)", 2 },
};

static void test_args(void)
{
	struct stapsdt_arg a, b;
	struct stapsdt_err err;
	char text[128];
	size_t cur;
	int ret;

	for (size_t i = 0; i < sizeof(argcases) / sizeof(argcases[0]); i++) {
		const struct argcase *c = &argcases[i];
		size_t len = strlen(c->spec);
		char *exact = malloc(len);
		bool same;

		memcpy(exact, c->spec, len); /* no NUL: parse by length */
		ret = stapsdt_arg_parse(exact, len, &a, &err);
		if (!ok(ret == 0, "'%s' parses", c->spec)) {
			diag("%s", err.msg);
			free(exact);
			continue;
		}
		same = a.kind == c->kind && a.size == c->size &&
		       a.is_signed == c->sgn && a.is_float == c->flt &&
		       a.reg == c->reg && a.index == c->index &&
		       a.scale == c->scale && a.off == c->off &&
		       (c->kind != STAPSDT_ARG_REG || a.reg_size == c->reg_size) &&
		       (c->sym ? a.sym && a.sym_len == strlen(c->sym) &&
					 memcmp(a.sym, c->sym, a.sym_len) == 0
			       : a.sym == NULL) &&
		       a.text == exact && a.len == len;
		if (!ok(same, "'%s' means what it says", c->spec))
			diag("kind %d size %u signed %d float %d reg %d/%u index "
			     "%d scale %u off %" PRId64 " sym '%.*s'",
			     a.kind, a.size, a.is_signed, a.is_float, a.reg,
			     a.reg_size, a.index, a.scale, a.off,
			     (int)a.sym_len, a.sym ? a.sym : "");
		ret = stapsdt_arg_format(&a, text, sizeof(text));
		ok(ret > 0 && (size_t)ret == strlen(text), "'%s' formats",
		   c->spec);
		free(exact); /* a.text and a.sym now dangle; not used */
		is_str(text, c->canon ? c->canon : c->spec,
		       "'%s': canonical spelling", c->spec);
		ret = stapsdt_arg_parse(text, strlen(text), &b, &err);
		ok(ret == 0 && b.kind == c->kind && b.reg == c->reg &&
			   b.off == c->off && b.size == c->size,
		   "'%s' parses back", text);
	}

	for (size_t i = 0; i < sizeof(badargs) / sizeof(badargs[0]); i++) {
		size_t len = strlen(badargs[i].spec);
		char *exact = malloc(len);

		memcpy(exact, badargs[i].spec, len);
		ret = stapsdt_arg_parse(exact, len, &a, &err);
		free(exact);
		if (!ok(ret == -EINVAL && err.off == badargs[i].off,
			"'%s' refused at offset %zu", badargs[i].spec,
			badargs[i].off))
			diag("ret %d off %" PRIu64 ": %s", ret, err.off,
			     err.msg);
	}
	ret = stapsdt_arg_parse("x", 0, &a, &err);
	is_int(ret, -EINVAL, "an empty spec is refused");

	/* the iterator: blanks, a fault in the middle, the end */
	{
		static const char args[] = "  -4@%edi\t8@%rsi  3@%rdx 8@$5 ";
		const char *want[] = { "-4@%edi", "8@%rsi", NULL, "8@$5" };
		int n = 0;

		cur = 0;
		while ((ret = stapsdt_arg_next(args, &cur, &a, &err)) != 0 &&
		       n < 8) {
			if (want[n]) {
				ok(ret == 1 && a.len == strlen(want[n]) &&
					   memcmp(a.text, want[n], a.len) == 0,
				   "iterator: spec %d is '%s'", n, want[n]);
			} else {
				ok(ret == -EINVAL && err.off == 18,
				   "iterator: spec %d refused at offset 18 "
				   "(%" PRIu64 ")",
				   n, err.off);
			}
			n++;
		}
		is_int(n, 4, "iterator: four specs");
		is_int(cur, strlen(args), "iterator: cursor at the end");
		cur = 0;
		is_int(stapsdt_arg_next("", &cur, &a, &err), 0,
		       "iterator: no specs in \"\"");
	}

	is_str(stapsdt_reg_name(STAPSDT_REG_RDI, 4, false), "%edi",
	       "register name %%edi");
	is_str(stapsdt_reg_name(STAPSDT_REG_R9, 1, false), "%r9b",
	       "register name %%r9b");
	is_str(stapsdt_reg_name(STAPSDT_REG_RBX, 1, true), "%bh",
	       "register name %%bh");
	ok(stapsdt_reg_name(STAPSDT_REG_RSI, 1, true) == NULL,
	   "no high byte of %%rsi");
	ok(stapsdt_reg_name(STAPSDT_REG_XMM0, 8, false) == NULL,
	   "no 8-byte part of %%xmm0");
}

/* ------------------------------------------------------------------ */
/* Real notes, compared with readelf */

static char workdir[256];

static int __attribute__((format(printf, 1, 2))) run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		diag("failed (%d): %s", st, cmd);
	return st;
}

struct relf_note {
	char provider[128], name[128], args[1024];
	uint64_t pc, base, sema;
};

/* The stapsdt notes of `readelf -n --wide FILE`, in order. */
static int readelf_notes(const char *file, struct relf_note *out, int max)
{
	char cmd[512], line[2048];
	bool in = false;
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C readelf -n --wide '%s'", file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *v;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "Displaying notes found in:", 26) == 0) {
			in = strstr(line, ".note.stapsdt") != NULL;
			continue;
		}
		if (!in)
			continue;
		v = line + strspn(line, " ");
		if (strncmp(v, "stapsdt ", 8) == 0) {
			if (++n >= max)
				break;
			memset(&out[n], 0, sizeof(out[n]));
			/* --wide puts the provider on this line */
			v = strstr(v, "Provider: ");
			if (v)
				snprintf(out[n].provider,
					 sizeof(out[n].provider), "%s", v + 10);
		} else if (n < 0 || n >= max) {
			continue;
		} else if (strncmp(v, "Provider: ", 10) == 0) {
			snprintf(out[n].provider, sizeof(out[n].provider), "%s",
				 v + 10);
		} else if (strncmp(v, "Name: ", 6) == 0) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", v + 6);
		} else if (strncmp(v, "Location: ", 10) == 0) {
			sscanf(v,
			       "Location: %" SCNx64 ", Base: %" SCNx64
			       ", Semaphore: %" SCNx64,
			       &out[n].pc, &out[n].base, &out[n].sema);
		} else if (strncmp(v, "Arguments:", 10) == 0) {
			snprintf(out[n].args, sizeof(out[n].args), "%s",
				 v[10] == ' ' ? v + 11 : v + 10);
		}
	}
	pclose(p);
	return n + 1 > max ? max : n + 1;
}

struct elf_view {
	int fd;
	Elf *elf;
	const uint8_t *notes;
	size_t notes_len;
	uint64_t base_addr; /* .stapsdt.base */
	uint64_t text_lo, text_hi;
};

static bool elf_open_view(const char *file, struct elf_view *v)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(v, 0, sizeof(*v));
	v->fd = open(file, O_RDONLY);
	if (v->fd < 0)
		return false;
	v->elf = elf_begin(v->fd, ELF_C_READ, NULL);
	if (!v->elf || elf_getshdrstrndx(v->elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(v->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (strcmp(name, STAPSDT_SECTION) == 0) {
			Elf_Data *d = elf_getdata(scn, NULL);

			v->notes = d ? d->d_buf : NULL;
			v->notes_len = d ? d->d_size : 0;
		} else if (strcmp(name, STAPSDT_BASE_SECTION) == 0) {
			v->base_addr = sh.sh_addr;
		} else if (strcmp(name, ".text") == 0) {
			v->text_lo = sh.sh_addr;
			v->text_hi = sh.sh_addr + sh.sh_size;
		}
	}
	return v->notes != NULL;
}

static void elf_close_view(struct elf_view *v)
{
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
}

/* Address of a symbol in .symtab, 0 if absent. */
static uint64_t sym_addr(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sizeof(Elf64_Sym);
		     i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && strcmp(n, want) == 0)
				return s.st_value;
		}
	}
	return 0;
}

/* The SysV register of argument i < 6. */
static const int sysv_regs[6] = { STAPSDT_REG_RDI, STAPSDT_REG_RSI,
				  STAPSDT_REG_RDX, STAPSDT_REG_RCX,
				  STAPSDT_REG_R8,  STAPSDT_REG_R9 };

/* Check one note's arguments against the provider file's probe. */
static void check_meaning(const char *tag, const struct stapsdt_note *n,
			  const struct prov_file *pf, Elf *elf)
{
	const struct prov_provider *pv = prov_find_provider(pf, n->provider);
	const struct prov_probe *pr = pv ? prov_find_probe(pv, n->name) : NULL;
	struct stapsdt_arg a;
	struct stapsdt_err err;
	char sema[256];
	size_t cur = 0;
	unsigned int i = 0;
	bool good = true;
	int ret;

	if (!ok(pr != NULL, "%s: %s:%s is declared", tag, n->provider,
		n->name))
		return;
	while ((ret = stapsdt_arg_next(n->args, &cur, &a, &err)) != 0) {
		const struct prov_type *t;
		unsigned int size;
		bool sgn;

		if (ret < 0 || i >= pr->nargc) {
			diag("%s: %s: argument %u: %s", tag, n->name, i,
			     ret < 0 ? err.msg : "one too many");
			good = false;
			break;
		}
		t = &pr->nargv[i].type;
		size = t->kind == PROV_K_PTR ? 8 : t->size;
		sgn = t->kind == PROV_K_INT && t->is_signed;
		if (a.size != size || a.is_signed != sgn || a.is_float) {
			diag("%s: %s arg %u '%.*s': want size %u signed %d", tag,
			     n->name, i, (int)a.len, a.text, size, sgn);
			good = false;
		}
		if (i < 6 && (a.kind != STAPSDT_ARG_REG ||
			      a.reg != sysv_regs[i])) {
			diag("%s: %s arg %u '%.*s': not in its SysV register",
			     tag, n->name, i, (int)a.len, a.text);
			good = false;
		}
		/* 8-byte stack slots above the return address or not */
		if (i >= 6 &&
		    (a.kind != STAPSDT_ARG_MEM || a.reg != STAPSDT_REG_RSP ||
		     a.index != STAPSDT_REG_NONE ||
		     (a.off != 8 * (int64_t)(i - 6) &&
		      a.off != 8 * (int64_t)(i - 6) + 8))) {
			diag("%s: %s arg %u '%.*s': not its stack slot", tag,
			     n->name, i, (int)a.len, a.text);
			good = false;
		}
		i++;
	}
	ok(good && i == pr->nargc, "%s: %s:%s: %u arguments where the ABI "
	   "puts them", tag, n->provider, n->name, pr->nargc);
	prov_sema_sym(n->provider, n->name, sema, sizeof(sema));
	is_int(n->sema, sym_addr(elf, sema), "%s: %s:%s: semaphore is %s",
	       tag, n->provider, n->name, sema);
}

static void compare_with_readelf(const char *tag, const char *file,
				 const struct prov_file *pf)
{
	struct relf_note want[64];
	struct elf_view v;
	struct stapsdt_note n;
	struct stapsdt_err err;
	uint64_t cur = 0;
	int nwant, got = 0, ret;

	nwant = readelf_notes(file, want, 64);
	if (!ok(nwant > 0, "%s: readelf shows stapsdt notes (%d)", tag, nwant))
		return;
	if (!ok(elf_open_view(file, &v), "%s: has %s", tag, STAPSDT_SECTION)) {
		elf_close_view(&v);
		return;
	}
	while ((ret = stapsdt_note_next(v.notes, v.notes_len, 0, &cur, &n,
					&err)) != 0) {
		const struct relf_note *w = &want[got];
		bool same;

		if (!ok(ret == 1, "%s: note %d reads", tag, got)) {
			diag("%s", err.msg);
			break;
		}
		if (got >= nwant) {
			got++;
			continue;
		}
		same = strcmp(n.provider, w->provider) == 0 &&
		       strcmp(n.name, w->name) == 0 &&
		       strcmp(n.args, w->args) == 0 && n.pc == w->pc &&
		       n.base == w->base && n.sema == w->sema;
		if (!ok(same, "%s: note %d (%s:%s) as readelf shows it", tag,
			got, n.provider, n.name))
			diag("readelf: %s:%s pc %" PRIx64 " base %" PRIx64
			     " sema %" PRIx64 " '%s'; ours: pc %" PRIx64
			     " base %" PRIx64 " sema %" PRIx64 " '%s'",
			     w->provider, w->name, w->pc, w->base, w->sema,
			     w->args, n.pc, n.base, n.sema, n.args);
		ok(n.pc >= v.text_lo && n.pc < v.text_hi,
		   "%s: %s: pc %#" PRIx64 " in .text", tag, n.name, n.pc);
		is_int(n.base, v.base_addr, "%s: %s: base is .stapsdt.base",
		       tag, n.name);
		if (pf)
			check_meaning(tag, &n, pf, v.elf);
		got++;
	}
	is_int(got, nwant, "%s: as many notes as readelf shows", tag);
	elf_close_view(&v);
}

/* The <sys/sdt.h> program: every spec parses and formats back. */
static void check_sdt_args(const char *tag, const char *file)
{
	struct elf_view v;
	struct stapsdt_note n;
	struct stapsdt_arg a, b;
	struct stapsdt_err err;
	uint64_t cur = 0;
	bool saw_const = false, saw_global = false, saw_float = false;
	bool global_named = false;

	if (!ok(elf_open_view(file, &v), "%s: has notes", tag)) {
		elf_close_view(&v);
		return;
	}
	while (stapsdt_note_next(v.notes, v.notes_len, 0, &cur, &n, &err) ==
	       1) {
		size_t ac = 0;
		int ret;
		bool good = true;

		global_named |= strstr(n.args, "@fz_global(%rip)") != NULL;
		while ((ret = stapsdt_arg_next(n.args, &ac, &a, &err)) != 0) {
			char text[256];

			if (ret < 0 ||
			    stapsdt_arg_format(&a, text, sizeof(text)) < 0 ||
			    stapsdt_arg_parse(text, strlen(text), &b, &err) ||
			    b.kind != a.kind || b.off != a.off ||
			    b.reg != a.reg) {
				diag("%s: %s: '%s': %s", tag, n.name, n.args,
				     err.msg);
				good = false;
				break;
			}
			saw_const |= a.kind == STAPSDT_ARG_CONST &&
				     (a.off == 42 || a.off == -7);
			saw_global |= a.kind == STAPSDT_ARG_MEM && a.sym &&
				      a.sym_len == 9 &&
				      memcmp(a.sym, "fz_global", 9) == 0 &&
				      a.reg == STAPSDT_REG_RIP;
			saw_float |= a.is_float && a.size == 8;
		}
		ok(good, "%s: %s: '%s' parses", tag, n.name, n.args);
	}
	ok(saw_const, "%s: constants read as constants", tag);
	/* compilers may load the global into a register first */
	ok(saw_global == global_named,
	   "%s: a global operand read as fz_global(%%rip) (%s)", tag,
	   global_named ? "there is one" : "there is none");
	ok(saw_float, "%s: a double marked 8f@", tag);
	elf_close_view(&v);
}

static const char *why_no_real(void)
{
	struct utsname u;
	static const char *const need[] = { "DTRACE", "DTRACE_DRTI",
					    "top_srcdir" };

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!getenv(need[i]) || !*getenv(need[i]))
			return "DTRACE, DTRACE_DRTI and top_srcdir are not set";
	if (uname(&u) < 0 || strcmp(u.machine, "x86_64") != 0)
		return "not x86-64";
	if (system("readelf --version >/dev/null 2>&1") != 0)
		return "no readelf";
	return NULL;
}

static void test_real(void)
{
	const char *why = why_no_real(), *cc = getenv("CC"), *dt, *top;
	static const char *const opts[] = { "-O0", "-O2", "-O2 -fno-plt" };
	struct prov_file *pf = NULL;
	struct prov_diag d;
	char probes_d[1024];
	char old[1024];

	if (why) {
		printf("ok %u # SKIP real notes: %s\n", ++tap_n, why);
		return;
	}
	if (!cc || !*cc)
		cc = "cc";
	dt = getenv("DTRACE");
	top = getenv("top_srcdir");
	snprintf(probes_d, sizeof(probes_d), "%s/fuzz/src/probes.d", top);
	if (!ok(prov_parse_file(probes_d, NULL, &pf, &d) == 0,
		"fuzz/src/probes.d parses"))
		return;
	snprintf(workdir, sizeof(workdir), "%s/t-stapsdt.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!getcwd(old, sizeof(old)) || !mkdtemp(workdir) ||
	    chdir(workdir) < 0) {
		ok(0, "a temporary directory");
		prov_file_free(pf);
		return;
	}
	if (!ok(run("'%s' -h -s '%s' -o probes.h", dt, probes_d) == 0,
		"dtrace -h"))
		goto out;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char tag[64];

		snprintf(tag, sizeof(tag), "-G %s", opts[i]);
		if (!ok(run("%s %s -I. -c '%s/fuzz/src/sites.c' -o s.o && "
			    "'%s' -G -s '%s' -o p.o s.o && "
			    "%s s.o p.o -o prog%zu && ./prog%zu",
			    cc, opts[i], top, dt, probes_d, cc, i, i) == 0,
			"%s: built and run", tag))
			continue;
		snprintf(tag, sizeof(tag), "prog %s", opts[i]);
		{
			char exe[32];

			snprintf(exe, sizeof(exe), "prog%zu", i);
			compare_with_readelf(tag, exe, pf);
		}
	}

	if (access("/usr/include/sys/sdt.h", F_OK) == 0 ||
	    access("/usr/include/x86_64-linux-gnu/sys/sdt.h", F_OK) == 0) {
		static const char *const sopts[] = { "-O0", "-O2" };

		for (size_t i = 0; i < 2; i++) {
			char tag[64];

			snprintf(tag, sizeof(tag), "<sys/sdt.h> %s", sopts[i]);
			if (!ok(run("%s %s '%s/fuzz/src/sdt.c' -o sdt%zu",
				    cc, sopts[i], top, i) == 0,
				"%s: built", tag))
				continue;
			{
				char exe[32];

				snprintf(exe, sizeof(exe), "sdt%zu", i);
				compare_with_readelf(tag, exe, NULL);
				check_sdt_args(tag, exe);
			}
		}
	} else {
		printf("ok %u # SKIP <sys/sdt.h> notes: not installed\n",
		       ++tap_n);
	}
out:
	if (chdir(old) < 0)
		diag("cannot return to %s", old);
	if (!getenv("KEEP_TMP"))
		run("rm -rf '%s'", workdir);
	else
		diag("kept %s", workdir);
	prov_file_free(pf);
}

/* aarch64 specs, as gcc writes them for <sys/sdt.h> */
static void test_a64_args(void)
{
	static const struct {
		const char *spec;
		enum stapsdt_arg_kind kind;
		unsigned size;
		bool sgn;
		int reg;
		unsigned reg_size;
		int64_t off;
	} good[] = {
		{ "-4@x1", STAPSDT_ARG_REG, 4, true, 1, 8, 0 },
		{ "8@x30", STAPSDT_ARG_REG, 8, false, 30, 8, 0 },
		{ "1@x2", STAPSDT_ARG_REG, 1, false, 2, 8, 0 },
		{ "-4@w7", STAPSDT_ARG_REG, 4, true, 7, 4, 0 },
		{ "8@sp", STAPSDT_ARG_REG, 8, false, STAPSDT_A64_SP, 8, 0 },
		{ "-4@[sp, 8]", STAPSDT_ARG_MEM, 4, true, STAPSDT_A64_SP, 0, 8 },
		{ "8@[sp]", STAPSDT_ARG_MEM, 8, false, STAPSDT_A64_SP, 0, 0 },
		{ "-2@[x29, -16]", STAPSDT_ARG_MEM, 2, true, 29, 0, -16 },
		{ "4@[sp, #24]", STAPSDT_ARG_MEM, 4, false, STAPSDT_A64_SP, 0,
		  24 },
		{ "-4@5", STAPSDT_ARG_CONST, 4, true, STAPSDT_REG_NONE, 0, 5 },
		{ "-8@#-3", STAPSDT_ARG_CONST, 8, true, STAPSDT_REG_NONE, 0,
		  -3 },
	};
	static const struct {
		const char *spec;
		size_t off;
	} bad[] = {
		{ "-4@x31", 3 },   { "-4@x01", 3 },	 { "8@[w1, 8]", 3 },
		{ "8@[sp, 8", 8 }, { "8@[x0, #:lo12:.LANCHOR0]", 8 },
		{ "8@x1 ", 4 },	   { "8@xzr", 2 },	 { "8f@x0", 0 },
		{ "4@%edi", 2 },   { "8@x0x1", 2 },
	};
	struct stapsdt_arg a;
	struct stapsdt_err err;
	int ret;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ret = stapsdt_a64_arg_parse(good[i].spec, strlen(good[i].spec),
					    &a, &err);
		if (!ok(ret == 0, "aarch64 '%s' parses", good[i].spec)) {
			diag("%s", err.msg);
			continue;
		}
		ok(a.kind == good[i].kind && a.size == good[i].size &&
			   a.is_signed == good[i].sgn && a.reg == good[i].reg &&
			   (a.kind != STAPSDT_ARG_REG ||
			    a.reg_size == good[i].reg_size) &&
			   a.off == good[i].off,
		   "aarch64 '%s' means what it says", good[i].spec);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = stapsdt_a64_arg_parse(bad[i].spec, strlen(bad[i].spec),
					    &a, &err);
		if (!ok(ret == -EINVAL && err.off == bad[i].off,
			"aarch64 '%s' refused at offset %zu", bad[i].spec,
			bad[i].off))
			diag("ret %d off %" PRIu64 ": %s", ret, err.off,
			     err.msg);
	}

	/* the iterator keeps "[sp, 8]" whole */
	{
		static const char args[] = " -4@x0 8@[sp, 16]\t-2@[x1] 8@sp ";
		const char *want[] = { "-4@x0", "8@[sp, 16]", "-2@[x1]",
				       "8@sp" };
		size_t cur = 0;
		int n = 0;

		while ((ret = stapsdt_a64_arg_next(args, &cur, &a, &err)) > 0 &&
		       n < 4) {
			ok(a.len == strlen(want[n]) &&
				   !memcmp(a.text, want[n], a.len),
			   "aarch64 iterator: spec %d is '%s'", n, want[n]);
			n++;
		}
		is_int(ret, 0, "aarch64 iterator: ends");
		is_int(n, 4, "aarch64 iterator: four specs");
	}
}

int main(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 99;
	test_good_notes();
	test_bad_notes();
	test_args();
	test_a64_args();
	test_real();
	return tap_done();
}
