// SPDX-License-Identifier: MIT
/*
 * stapsdt.c - the SystemTap SDT note reader (API in stapsdt.h).
 *
 * The format, as `readelf -n` shows a program linked from a `dtrace -G`
 * output (provider-examples/myapp; columns squeezed to fit):
 *
 *	Displaying notes found in: .note.stapsdt
 *	  Owner      Data size   Description
 *	  stapsdt    0x00000039  NT_STAPSDT (SystemTap probe descriptors)
 *	    Provider: myapp
 *	    Name: query__start
 *	    Location: 0x00000000000012f2, Base: 0x00000000000033df,
 *		Semaphore: 0x00000000000052d6
 *	    Arguments: 4@%edi 8@%rsi
 *
 * and as bytes (one note; the addresses are 0 in the ET_REL -G output,
 * where relocations fill them):
 *
 *	08000000 39000000 03000000	namesz 8, descsz 0x39, type 3
 *	"stapsdt\0"			owner, padded to 4
 *	pc (8) base (8) semaphore (8)	ELF-class-sized addresses
 *	"myapp\0" "query__start\0" "4@%edi 8@%rsi\0"
 *	00 00 00			descriptor padded to 4
 *
 * Location is the probe site; Base is the link-time address of the
 * .stapsdt.base section, which lets a consumer correct Location when the
 * file was prelinked or otherwise moved after the note was written;
 * Semaphore is the address of the unsigned short the kernel increments
 * while a uprobe with a reference counter is attached (0: none).
 * <sys/sdt.h> counts its alignment padding in descsz, `dtrace -G` does
 * not; both are accepted.
 *
 * Bounds: a note needs 12 header bytes; its padded owner name must fit in
 * what is left; its descriptor (descsz bytes) too, the descriptor's own
 * padding may be cut by the end of the section.  A stapsdt descriptor
 * needs three addresses and three NUL-terminated strings inside descsz:
 * at least 3 * 8 + 2 + 2 + 1 bytes in ELFCLASS64.  All sizes are u32
 * read into u64 arithmetic, so no sum of them can wrap, and every test is
 * written "size <= end - off".  Provider and name must be non-empty, no
 * string may hold control characters (consumers print them).
 *
 * Argument specs (`[-]SIZE[f]@OPERAND`, blank-separated) are parsed by a
 * hand-written scanner with explicit end pointers: nothing is assumed
 * NUL-terminated inside a spec, numbers are range-checked before they
 * are accumulated, and register names are looked up in a table.  An
 * aarch64 note's specs (`-4@x1`, `-4@[sp, 16]`) have their own operand
 * scanner after the same SIZE@ prefix; their iterator splits at blanks
 * outside brackets.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stapsdt.h"
#include "text.h"

#define NOTE_HDR_SIZE 12
#define QUOTE_MAX 32 /* bytes of input quoted in a message */

/* ------------------------------------------------------------------ */
/* Errors */

static void err_clear(struct stapsdt_err *err)
{
	if (err) {
		err->code = 0;
		err->off = 0;
		err->msg[0] = '\0';
	}
}

/*
 * Fill *err: fmt may hold one %s, replaced by a sanitised quote of
 * [q, q + qlen) (non-printable bytes become '?', long text is cut).
 */
static int fail(struct stapsdt_err *err, uint64_t off, const char *fmt,
		const char *q, size_t qlen)
{
	char quote[QUOTE_MAX + 4];
	size_t i, n = qlen < QUOTE_MAX ? qlen : QUOTE_MAX;

	if (!err)
		return -EINVAL;
	for (i = 0; q && i < n; i++) {
		unsigned char c = (unsigned char)q[i];

		quote[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (n < qlen)
		quote[i++] = '.', quote[i++] = '.', quote[i++] = '.';
	quote[i] = '\0';
	err->code = -EINVAL;
	err->off = off;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(err->msg, sizeof(err->msg), fmt, quote);
#pragma GCC diagnostic pop
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Notes */

static uint64_t ld(const uint8_t *p, unsigned int n, bool msb)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[msb ? i : n - 1 - i];
	return v;
}

static uint64_t align4(uint64_t v)
{
	return (v + 3) & ~(uint64_t)3;
}

/*
 * The NUL-terminated string at *at within [.., end): checked, no control
 * characters; *at moves past its NUL.  Returns its length or -1.
 */
static int64_t note_str(const uint8_t *b, uint64_t *at, uint64_t end)
{
	uint64_t i;

	for (i = *at; i < end; i++) {
		if (b[i] == '\0') {
			int64_t n = (int64_t)(i - *at);

			*at = i + 1;
			return n;
		}
		if (b[i] < 0x20 || b[i] == 0x7f)
			return -1;
	}
	return -1;
}

/*
 * One string of a descriptor ending at end: *sp points to it, *at moves
 * past its NUL.  what names it in a message.
 */
static int desc_str(const uint8_t *b, uint64_t *at, uint64_t end, bool nonempty,
		    const char *what, const char **sp, struct stapsdt_err *err)
{
	uint64_t start = *at;
	int64_t n = note_str(b, at, end);
	char fmt[96];

	*sp = (const char *)b + start;
	if (n > 0 || (n == 0 && !nonempty))
		return 0;
	snprintf(fmt, sizeof(fmt),
		 n == 0 ? "empty %s%%s"
			: "%s '%%s' is not a terminated printable string",
		 what);
	return fail(err, start, fmt, *sp, n == 0 ? 0 : (size_t)(end - start));
}

/* The descriptor of a stapsdt note at [d, d + dsz) into *note. */
static int note_decode(const uint8_t *b, uint64_t d, uint64_t dsz,
		       unsigned int flags, struct stapsdt_note *note,
		       struct stapsdt_err *err)
{
	unsigned int asz = flags & STAPSDT_F_ELF32 ? 4 : 8;
	bool msb = flags & STAPSDT_F_MSB;
	uint64_t end = d + dsz, at = d + 3 * asz;
	int ret;

	/* three addresses, then at least "p\0" "n\0" "\0" */
	if (dsz < 3 * asz + 5)
		return fail(err, d,
			    "stapsdt descriptor too short for three "
			    "addresses and three strings%s",
			    NULL, 0);
	note->pc = ld(b + d, asz, msb);
	note->base = ld(b + d + asz, asz, msb);
	note->sema = ld(b + d + 2 * asz, asz, msb);
	ret = desc_str(b, &at, end, true, "provider name", &note->provider,
		       err);
	if (!ret)
		ret = desc_str(b, &at, end, true, "probe name", &note->name,
			       err);
	if (!ret)
		ret = desc_str(b, &at, end, false, "argument string",
			       &note->args, err);
	return ret;
}

int stapsdt_note_next(const void *sec, size_t len, unsigned int flags,
		      uint64_t *cursor, struct stapsdt_note *note,
		      struct stapsdt_err *err)
{
	static const char owner[STAPSDT_NOTE_NAMESZ] = STAPSDT_NOTE_NAME;
	const uint8_t *b = sec;
	bool msb = flags & STAPSDT_F_MSB;
	uint64_t pos = *cursor;

	err_clear(err);
	if (!b && len)
		return fail(err, 0, "no section data%s", NULL, 0);
	while (pos < len) {
		uint64_t namesz, descsz, type, name, desc, next;
		int ret;

		if (len - pos < NOTE_HDR_SIZE) {
			*cursor = len;
			return fail(err, pos, "truncated note header%s", NULL,
				    0);
		}
		namesz = ld(b + pos, 4, msb);
		descsz = ld(b + pos + 4, 4, msb);
		type = ld(b + pos + 8, 4, msb);
		name = pos + NOTE_HDR_SIZE;
		/* namesz < 2^32: align4() cannot wrap in 64 bits */
		if (align4(namesz) > len - name) {
			*cursor = len;
			return fail(err, pos,
				    "note owner name overruns the section%s",
				    NULL, 0);
		}
		desc = name + align4(namesz);
		if (descsz > len - desc) {
			*cursor = len;
			return fail(err, pos + 4,
				    "note descriptor overruns the section%s",
				    NULL, 0);
		}
		/* the last note's padding may be cut by the section end */
		next = align4(descsz) > len - desc ? len
						   : desc + align4(descsz);
		*cursor = next;
		if (type != STAPSDT_NOTE_TYPE || namesz != sizeof(owner) ||
		    memcmp(b + name, owner, sizeof(owner)) != 0) {
			pos = next;
			continue;
		}
		note->off = pos;
		ret = note_decode(b, desc, descsz, flags, note, err);
		return ret ? ret : 1;
	}
	*cursor = pos;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Registers */

struct reg_name {
	const char *name; /* with the '%' */
	signed char reg;
	unsigned char size;
	bool hi8;
};

/* one name per column reads better than clang-format's one per line */
/* clang-format off */
#define R(n, r, s) { "%" n, STAPSDT_REG_##r, s, false }
#define H(n, r) { "%" n, STAPSDT_REG_##r, 1, true }

static const struct reg_name regs[] = {
	R("rax", RAX, 8), R("eax", RAX, 4), R("ax", RAX, 2), R("al", RAX, 1),
	R("rdx", RDX, 8), R("edx", RDX, 4), R("dx", RDX, 2), R("dl", RDX, 1),
	R("rcx", RCX, 8), R("ecx", RCX, 4), R("cx", RCX, 2), R("cl", RCX, 1),
	R("rbx", RBX, 8), R("ebx", RBX, 4), R("bx", RBX, 2), R("bl", RBX, 1),
	R("rsi", RSI, 8), R("esi", RSI, 4), R("si", RSI, 2), R("sil", RSI, 1),
	R("rdi", RDI, 8), R("edi", RDI, 4), R("di", RDI, 2), R("dil", RDI, 1),
	R("rbp", RBP, 8), R("ebp", RBP, 4), R("bp", RBP, 2), R("bpl", RBP, 1),
	R("rsp", RSP, 8), R("esp", RSP, 4), R("sp", RSP, 2), R("spl", RSP, 1),
	R("rip", RIP, 8), R("eip", RIP, 4),
	H("ah", RAX), H("dh", RDX), H("ch", RCX), H("bh", RBX),
	R("r8", R8, 8), R("r8d", R8, 4), R("r8w", R8, 2), R("r8b", R8, 1),
	R("r9", R9, 8), R("r9d", R9, 4), R("r9w", R9, 2), R("r9b", R9, 1),
	R("r10", R10, 8), R("r10d", R10, 4), R("r10w", R10, 2),
	R("r10b", R10, 1),
	R("r11", R11, 8), R("r11d", R11, 4), R("r11w", R11, 2),
	R("r11b", R11, 1),
	R("r12", R12, 8), R("r12d", R12, 4), R("r12w", R12, 2),
	R("r12b", R12, 1),
	R("r13", R13, 8), R("r13d", R13, 4), R("r13w", R13, 2),
	R("r13b", R13, 1),
	R("r14", R14, 8), R("r14d", R14, 4), R("r14w", R14, 2),
	R("r14b", R14, 1),
	R("r15", R15, 8), R("r15d", R15, 4), R("r15w", R15, 2),
	R("r15b", R15, 1),
	/* gdb's names for the low bytes: accepted, never written */
	R("r8l", R8, 1), R("r9l", R9, 1), R("r10l", R10, 1),
	R("r11l", R11, 1), R("r12l", R12, 1), R("r13l", R13, 1),
	R("r14l", R14, 1), R("r15l", R15, 1),
	{ "%xmm0", STAPSDT_REG_XMM0 + 0, 16, false },
	{ "%xmm1", STAPSDT_REG_XMM0 + 1, 16, false },
	{ "%xmm2", STAPSDT_REG_XMM0 + 2, 16, false },
	{ "%xmm3", STAPSDT_REG_XMM0 + 3, 16, false },
	{ "%xmm4", STAPSDT_REG_XMM0 + 4, 16, false },
	{ "%xmm5", STAPSDT_REG_XMM0 + 5, 16, false },
	{ "%xmm6", STAPSDT_REG_XMM0 + 6, 16, false },
	{ "%xmm7", STAPSDT_REG_XMM0 + 7, 16, false },
	{ "%xmm8", STAPSDT_REG_XMM0 + 8, 16, false },
	{ "%xmm9", STAPSDT_REG_XMM0 + 9, 16, false },
	{ "%xmm10", STAPSDT_REG_XMM0 + 10, 16, false },
	{ "%xmm11", STAPSDT_REG_XMM0 + 11, 16, false },
	{ "%xmm12", STAPSDT_REG_XMM0 + 12, 16, false },
	{ "%xmm13", STAPSDT_REG_XMM0 + 13, 16, false },
	{ "%xmm14", STAPSDT_REG_XMM0 + 14, 16, false },
	{ "%xmm15", STAPSDT_REG_XMM0 + 15, 16, false },
};

#undef R
#undef H
/* clang-format on */

#define NREGS (sizeof(regs) / sizeof(regs[0]))

/* The register named by the n bytes at s ("%edi"), or NULL. */
static const struct reg_name *reg_lookup(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < NREGS; k++)
		if (strlen(regs[k].name) == n &&
		    memcmp(regs[k].name, s, n) == 0)
			return &regs[k];
	return NULL;
}

const char *stapsdt_reg_name(int reg, unsigned int size, bool hi8)
{
	size_t k;

	/* the first match is the canonical name: %r8b before %r8l */
	for (k = 0; k < NREGS; k++)
		if (regs[k].reg == reg && regs[k].size == size &&
		    regs[k].hi8 == hi8)
			return regs[k].name;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Argument specs */

struct scan {
	const char *p, *end;
	const char *spec; /* for error offsets */
	struct stapsdt_err *err;
};

static int scan_fail(struct scan *sc, const char *at, const char *fmt)
{
	return fail(sc->err, (uint64_t)(at - sc->spec), fmt, sc->spec,
		    (size_t)(sc->end - sc->spec));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool sym_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '.';
}

static bool sym_char(char c)
{
	return sym_start(c) || is_digit(c) || c == '$' || c == '@';
}

/* An unsigned decimal or 0x hex number; false if absent or over 2^64-1. */
static bool scan_u64(struct scan *sc, uint64_t *v)
{
	const char *p = sc->p;
	uint64_t x = 0;

	if (p == sc->end || !is_digit(*p))
		return false;
	if (sc->end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    txt_hexval(p[2]) >= 0) {
		for (p += 2; p < sc->end && txt_hexval(*p) >= 0; p++) {
			if (x >> 60)
				return false;
			x = x << 4 | (uint64_t)txt_hexval(*p);
		}
	} else {
		for (; p < sc->end && is_digit(*p); p++) {
			unsigned int d = (unsigned int)(*p - '0');

			if (x > (UINT64_MAX - d) / 10)
				return false;
			x = x * 10 + d;
		}
	}
	sc->p = p;
	*v = x;
	return true;
}

/*
 * [-]NUMBER as an int64_t; wide allows 2^63..2^64-1 too (an immediate's
 * bit pattern).  Returns 1, 0 if there is no number here, -EINVAL.
 */
static int scan_int(struct scan *sc, bool wide, int64_t *v)
{
	const char *at = sc->p;
	bool neg = false;
	uint64_t x;

	if (sc->p < sc->end && (*sc->p == '-' || *sc->p == '+')) {
		neg = *sc->p == '-';
		sc->p++;
	}
	if (sc->p == sc->end || !is_digit(*sc->p)) {
		sc->p = at;
		return 0;
	}
	if (!scan_u64(sc, &x))
		return scan_fail(sc, at, "'%s': number out of range");
	if (neg ? x > (uint64_t)INT64_MAX + 1
		: x > (wide ? UINT64_MAX : (uint64_t)INT64_MAX))
		return scan_fail(sc, at, "'%s': number out of range");
	/* two's complement without signed overflow */
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 1;
}

/* A register ("%edi"): returns 0 with it, or -EINVAL. */
static int scan_reg(struct scan *sc, int *reg, unsigned int *size, bool *hi8)
{
	const char *at = sc->p;
	const struct reg_name *r;

	if (sc->p == sc->end || *sc->p != '%')
		return scan_fail(sc, at, "'%s': expected a register");
	sc->p++;
	while (sc->p < sc->end &&
	       ((*sc->p >= 'a' && *sc->p <= 'z') || is_digit(*sc->p)))
		sc->p++;
	r = reg_lookup(at, (size_t)(sc->p - at));
	if (!r)
		return scan_fail(sc, at, "'%s': unknown register");
	*reg = r->reg;
	*size = r->size;
	*hi8 = r->hi8;
	return 0;
}

/*
 * A displacement or immediate: NUMBER, or SYMBOL optionally followed by
 * +NUMBER or -NUMBER.  Returns 1 if one was there, 0 if not, -EINVAL.
 */
static int scan_symoff(struct scan *sc, bool wide, struct stapsdt_arg *a)
{
	const char *at = sc->p;
	int ret;

	if (sc->p < sc->end && sym_start(*sc->p)) {
		a->sym = sc->p;
		while (sc->p < sc->end && sym_char(*sc->p))
			sc->p++;
		a->sym_len = (size_t)(sc->p - a->sym);
		if (sc->p < sc->end && (*sc->p == '+' || *sc->p == '-')) {
			ret = scan_int(sc, false, &a->off);
			if (ret == 0)
				return scan_fail(sc, at,
						 "'%s': expected a number "
						 "after the symbol");
			if (ret < 0)
				return ret;
		}
		return 1;
	}
	/* a leading '+' only follows a symbol */
	if (sc->p < sc->end && *sc->p == '+')
		return 0;
	return scan_int(sc, wide, &a->off);
}

/* (BASE), (BASE,INDEX), (BASE,INDEX,SCALE), (,INDEX,SCALE) */
static int scan_mem(struct scan *sc, struct stapsdt_arg *a)
{
	const char *at = sc->p;
	unsigned int size;
	bool hi8;
	uint64_t scale;
	int ret;

	sc->p++; /* '(' */
	if (sc->p < sc->end && *sc->p == '%') {
		ret = scan_reg(sc, &a->reg, &size, &hi8);
		if (ret)
			return ret;
		if (size != 8 || a->reg >= STAPSDT_REG_XMM0)
			return scan_fail(sc, at,
					 "'%s': base register is not a 64-bit "
					 "general register");
	}
	if (sc->p < sc->end && *sc->p == ',') {
		sc->p++;
		ret = scan_reg(sc, &a->index, &size, &hi8);
		if (ret)
			return ret;
		if (size != 8 || a->index == STAPSDT_REG_RSP ||
		    a->index >= STAPSDT_REG_RIP)
			return scan_fail(sc, at,
					 "'%s': index register is not a 64-bit "
					 "general register other than %%rsp");
		if (sc->p < sc->end && *sc->p == ',') {
			sc->p++;
			if (!scan_u64(sc, &scale) ||
			    (scale != 1 && scale != 2 && scale != 4 &&
			     scale != 8))
				return scan_fail(sc, at,
						 "'%s': scale is not 1, 2, 4 "
						 "or 8");
			a->scale = (unsigned int)scale;
		}
	}
	if (a->reg == STAPSDT_REG_NONE && a->index == STAPSDT_REG_NONE)
		return scan_fail(sc, at, "'%s': no register in parentheses");
	if (a->reg == STAPSDT_REG_RIP && a->index != STAPSDT_REG_NONE)
		return scan_fail(sc, at, "'%s': %%rip takes no index");
	if (sc->p == sc->end || *sc->p != ')')
		return scan_fail(sc, at, "'%s': expected ')'");
	sc->p++;
	return 0;
}

/*
 * The `[-]SIZE[f]@` prefix of a spec (if it has one) into *a, which is
 * cleared first; sc->p is then at the operand.  0 or -EINVAL.
 */
static int scan_prefix(struct scan *sc, const char *spec, size_t len,
		       struct stapsdt_arg *a)
{
	const char *at;

	err_clear(sc->err);
	memset(a, 0, sizeof(*a));
	a->reg = STAPSDT_REG_NONE;
	a->index = STAPSDT_REG_NONE;
	a->scale = 1;
	a->text = spec;
	a->len = len;
	if (len == 0)
		return scan_fail(sc, spec, "empty argument spec%s");
	at = memchr(spec, '@', len);

	/* [-]SIZE[f]@ */
	if (at) {
		uint64_t size;

		sc->end = at;
		if (sc->p < sc->end && *sc->p == '-') {
			a->is_signed = true;
			sc->p++;
		}
		if (!scan_u64(sc, &size) ||
		    (size != 1 && size != 2 && size != 4 && size != 8 &&
		     size != 16)) {
			sc->end = spec + len;
			return scan_fail(sc, spec,
					 "'%s': size is not 1, 2, 4, 8 or 16");
		}
		a->size = (unsigned int)size;
		if (sc->p < sc->end && *sc->p == 'f') {
			a->is_float = true;
			sc->p++;
		}
		sc->end = spec + len;
		if (sc->p != at)
			return scan_fail(sc, sc->p,
					 "'%s': expected '@' after the size");
		sc->p = at + 1;
		if (sc->p == sc->end)
			return scan_fail(sc, sc->p, "'%s': no operand");
	}
	return 0;
}

int stapsdt_arg_parse(const char *spec, size_t len, struct stapsdt_arg *a,
		      struct stapsdt_err *err)
{
	struct scan sc = { spec, spec + len, spec, err };
	int ret;

	ret = scan_prefix(&sc, spec, len, a);
	if (ret)
		return ret;
	if (*sc.p == '%') {
		a->kind = STAPSDT_ARG_REG;
		ret = scan_reg(&sc, &a->reg, &a->reg_size, &a->reg_hi8);
	} else if (*sc.p == '$') {
		a->kind = STAPSDT_ARG_CONST;
		sc.p++;
		ret = scan_symoff(&sc, true, a);
		if (ret == 0)
			ret = scan_fail(&sc, sc.p, "'%s': expected a constant");
		ret = ret < 0 ? ret : 0;
	} else {
		a->kind = STAPSDT_ARG_MEM;
		ret = scan_symoff(&sc, false, a);
		if (ret >= 0 && sc.p < sc.end && *sc.p == '(')
			ret = scan_mem(&sc, a);
		else if (ret == 0)
			ret = scan_fail(&sc, sc.p, "'%s': expected an operand");
		ret = ret < 0 ? ret : 0;
	}
	if (ret)
		return ret;
	if (sc.p != sc.end)
		return scan_fail(&sc, sc.p, "'%s': junk after the operand");
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

typedef int spec_parse_fn(const char *spec, size_t len, struct stapsdt_arg *arg,
			  struct stapsdt_err *err);

/*
 * The next spec of args from *cursor, parsed by parse: 1, 0 at the end,
 * or parse's -EINVAL with err's offset in args.  Specs are split at
 * blanks, but with brackets (aarch64's) not at those inside brackets.
 */
static int spec_next(const char *args, size_t *cursor, struct stapsdt_arg *arg,
		     struct stapsdt_err *err, bool brackets,
		     spec_parse_fn *parse)
{
	size_t i = *cursor, start;
	int depth = 0, ret;

	err_clear(err);
	while (args[i] != '\0' && blank(args[i]))
		i++;
	if (args[i] == '\0') {
		*cursor = i;
		return 0;
	}
	start = i;
	while (args[i] != '\0' && (depth > 0 || !blank(args[i]))) {
		if (brackets && args[i] == '[')
			depth++;
		else if (brackets && args[i] == ']' && depth > 0)
			depth--;
		i++;
	}
	*cursor = i;
	ret = parse(args + start, i - start, arg, err);
	if (ret && err)
		err->off += start;
	return ret ? ret : 1;
}

int stapsdt_arg_next(const char *args, size_t *cursor, struct stapsdt_arg *arg,
		     struct stapsdt_err *err)
{
	return spec_next(args, cursor, arg, err, false, stapsdt_arg_parse);
}

/* ------------------------------------------------------------------ */
/* aarch64 argument specs */

/* x0-x30 (8 bytes), w0-w30 (4), sp: 0 with it, or -EINVAL */
static int scan_a64_reg(struct scan *sc, int *reg, unsigned int *size)
{
	const char *at = sc->p;
	uint64_t n;

	if (sc->end - sc->p >= 2 && sc->p[0] == 's' && sc->p[1] == 'p' &&
	    (sc->end - sc->p == 2 || !sym_char(sc->p[2]))) {
		sc->p += 2;
		*reg = STAPSDT_A64_SP;
		*size = 8;
		return 0;
	}
	if (sc->p < sc->end && (*sc->p == 'x' || *sc->p == 'w')) {
		*size = *sc->p == 'x' ? 8 : 4;
		sc->p++;
		/* "x01" is no register; "x0x1" is junk */
		if (scan_u64(sc, &n) && n <= STAPSDT_A64_X30 &&
		    (sc->p - at == 2 || at[1] != '0') &&
		    (sc->p == sc->end || !sym_char(*sc->p))) {
			*reg = (int)n;
			return 0;
		}
	}
	sc->p = at;
	return scan_fail(sc, at, "'%s': expected x0-x30, w0-w30 or sp");
}

int stapsdt_a64_arg_parse(const char *spec, size_t len, struct stapsdt_arg *a,
			  struct stapsdt_err *err)
{
	struct scan sc = { spec, spec + len, spec, err };
	unsigned int rsize;
	int ret;

	ret = scan_prefix(&sc, spec, len, a);
	if (ret)
		return ret;
	if (a->is_float)
		return scan_fail(&sc, spec,
				 "'%s': floating-point arguments are not read on aarch64");
	if (*sc.p == '[') {
		const char *base = ++sc.p;

		a->kind = STAPSDT_ARG_MEM;
		ret = scan_a64_reg(&sc, &a->reg, &rsize);
		if (ret)
			return ret;
		if (rsize != 8)
			return scan_fail(&sc, base,
					 "'%s': a base register is an x register or sp");
		if (sc.p < sc.end && *sc.p == ',') {
			sc.p++;
			while (sc.p < sc.end && *sc.p == ' ')
				sc.p++;
			if (sc.p < sc.end && *sc.p == '#')
				sc.p++;
			ret = scan_int(&sc, false, &a->off);
			if (ret <= 0)
				return ret < 0 ? ret
					       : scan_fail(&sc, sc.p,
							   "'%s': expected an offset");
		}
		if (sc.p == sc.end || *sc.p != ']')
			return scan_fail(&sc, sc.p, "'%s': expected ']'");
		sc.p++;
	} else if (*sc.p == '#' || *sc.p == '-' || is_digit(*sc.p)) {
		a->kind = STAPSDT_ARG_CONST;
		if (*sc.p == '#')
			sc.p++;
		ret = scan_int(&sc, true, &a->off);
		if (ret <= 0)
			return ret < 0 ? ret
				       : scan_fail(&sc, sc.p,
						   "'%s': expected a constant");
	} else {
		a->kind = STAPSDT_ARG_REG;
		ret = scan_a64_reg(&sc, &a->reg, &a->reg_size);
		if (ret)
			return ret;
	}
	if (sc.p != sc.end)
		return scan_fail(&sc, sc.p, "'%s': junk after the operand");
	return 0;
}

/* "[sp, 8]": the blank after the comma belongs to the spec */
int stapsdt_a64_arg_next(const char *args, size_t *cursor,
			 struct stapsdt_arg *arg, struct stapsdt_err *err)
{
	return spec_next(args, cursor, arg, err, true, stapsdt_a64_arg_parse);
}

/* sym+off, off alone, or sym; "" when there is nothing to print */
static int put_symoff(char *buf, size_t len, const struct stapsdt_arg *a,
		      bool always)
{
	if (a->sym && a->off)
		return snprintf(buf, len, "%.*s%+" PRId64, (int)a->sym_len,
				a->sym, a->off);
	if (a->sym)
		return snprintf(buf, len, "%.*s", (int)a->sym_len, a->sym);
	if (a->off || always)
		return snprintf(buf, len, "%" PRId64, a->off);
	return snprintf(buf, len, "%s", "");
}

int stapsdt_arg_format(const struct stapsdt_arg *a, char *buf, size_t len)
{
	char pre[16] = "", ops[160];
	const char *r, *x = NULL;

	if (a->size)
		snprintf(pre, sizeof(pre), "%s%u%s@", a->is_signed ? "-" : "",
			 a->size, a->is_float ? "f" : "");
	if (a->sym_len > 100)
		return -EINVAL;
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		r = stapsdt_reg_name(a->reg, a->reg_size, a->reg_hi8);
		if (!r)
			return -EINVAL;
		return snprintf(buf, len, "%s%s", pre, r);
	case STAPSDT_ARG_CONST:
		put_symoff(ops, sizeof(ops), a, true);
		return snprintf(buf, len, "%s$%s", pre, ops);
	case STAPSDT_ARG_MEM:
		r = a->reg == STAPSDT_REG_NONE
			    ? ""
			    : stapsdt_reg_name(a->reg, 8, false);
		if (a->index != STAPSDT_REG_NONE)
			x = stapsdt_reg_name(a->index, 8, false);
		if (!r || (a->index != STAPSDT_REG_NONE && !x))
			return -EINVAL;
		put_symoff(ops, sizeof(ops), a,
			   a->reg == STAPSDT_REG_NONE &&
				   a->index == STAPSDT_REG_NONE);
		if (a->reg == STAPSDT_REG_NONE && a->index == STAPSDT_REG_NONE)
			return snprintf(buf, len, "%s%s", pre, ops);
		if (!x)
			return snprintf(buf, len, "%s%s(%s)", pre, ops, r);
		if (a->scale == 1)
			return snprintf(buf, len, "%s%s(%s,%s)", pre, ops, r,
					x);
		return snprintf(buf, len, "%s%s(%s,%s,%u)", pre, ops, r, x,
				a->scale);
	}
	return -EINVAL;
}
