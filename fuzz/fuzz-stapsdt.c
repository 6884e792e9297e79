// SPDX-License-Identifier: MIT
/*
 * fuzz-stapsdt.c - fuzz the stapsdt note reader (sdk/stapsdt.c).
 *
 * Input: the bytes of a .note.stapsdt section.  Seeds are the sections of
 * real `dtrace -G` outputs, of programs linked from them and of programs
 * using <sys/sdt.h> (fuzz/gen-corpus.sh); fuzz/stapsdt.dict gives
 * libFuzzer operand syntax.
 *
 * The section is read in all four encodings (ELF class 32/64, LSB/MSB).
 * For every note: its strings lie inside the input and are terminated,
 * and every argument spec that parses is formatted back and parsed
 * again to the same meaning (stapsdt_arg_format() round trip).  The
 * whole input is also parsed as an argument string by itself, so the
 * spec scanner is fuzzed directly, not only behind a valid note.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "stapsdt.h"

static void check_err(const struct stapsdt_err *err)
{
	fuzz_assert(memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
	fuzz_assert(strchr(err->msg, '\n') == NULL);
	fuzz_assert(err->code == -EINVAL);
}

static void check_str(const uint8_t *b, size_t len, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	fuzz_assert(p >= b && p < b + len);
	fuzz_assert(memchr(p, '\0', (size_t)(b + len - p)) != NULL);
}

static bool same_arg(const struct stapsdt_arg *a, const struct stapsdt_arg *b)
{
	return a->kind == b->kind && a->size == b->size &&
	       a->is_signed == b->is_signed && a->is_float == b->is_float &&
	       a->reg == b->reg && a->index == b->index &&
	       a->scale == b->scale && a->off == b->off &&
	       (a->kind != STAPSDT_ARG_REG ||
		(a->reg_size == b->reg_size && a->reg_hi8 == b->reg_hi8)) &&
	       a->sym_len == b->sym_len &&
	       (a->sym == NULL) == (b->sym == NULL) &&
	       (a->sym == NULL || memcmp(a->sym, b->sym, a->sym_len) == 0);
}

/* Every spec of a NUL-terminated argument string. */
static void walk_args(const char *args)
{
	size_t cur = 0, last, n = strlen(args);
	struct stapsdt_arg a, b;
	struct stapsdt_err err;
	char text[512];
	int ret, len;

	for (;;) {
		last = cur;
		ret = stapsdt_arg_next(args, &cur, &a, &err);
		if (ret == 0)
			break;
		fuzz_assert(cur > last && cur <= n);
		if (ret < 0) {
			check_err(&err);
			fuzz_assert(err.off <= n);
			continue;
		}
		fuzz_assert(a.text >= args && a.text + a.len <= args + n);
		fuzz_assert(a.size == 0 || a.size == 1 || a.size == 2 ||
			    a.size == 4 || a.size == 8 || a.size == 16);
		fuzz_assert(a.kind != STAPSDT_ARG_REG ||
			    stapsdt_reg_name(a.reg, a.reg_size, a.reg_hi8));
		fuzz_assert(a.sym == NULL ||
			    (a.sym >= a.text &&
			     a.sym + a.sym_len <= a.text + a.len));
		len = stapsdt_arg_format(&a, text, sizeof(text));
		if (len < 0) {
			/* only a symbol too long to be formatted */
			fuzz_assert(a.sym_len > 100);
			continue;
		}
		fuzz_assert((size_t)len < sizeof(text));
		ret = stapsdt_arg_parse(text, (size_t)len, &b, &err);
		if (ret)
			fuzz_fail("'%.*s' formats as '%s', which does not "
				  "parse: %s",
				  (int)a.len, a.text, text, err.msg);
		if (!same_arg(&a, &b))
			fuzz_fail("'%.*s' formats as '%s', which means "
				  "something else",
				  (int)a.len, a.text, text);
	}
}

static void walk_notes(const uint8_t *b, size_t len, unsigned int flags)
{
	struct stapsdt_note note;
	struct stapsdt_err err;
	uint64_t cur = 0, last;
	int ret;

	for (;;) {
		last = cur;
		ret = stapsdt_note_next(b, len, flags, &cur, &note, &err);
		if (ret == 0)
			break;
		/* every call moves on by at least one note header */
		fuzz_assert(cur > last && cur <= len);
		if (ret < 0) {
			check_err(&err);
			fuzz_assert(err.off <= len);
			continue;
		}
		fuzz_assert(note.off >= last && note.off < cur);
		check_str(b, len, note.provider);
		check_str(b, len, note.name);
		check_str(b, len, note.args);
		fuzz_assert(*note.provider && *note.name);
		walk_args(note.args);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	walk_notes(data, size, 0);
	walk_notes(data, size, STAPSDT_F_ELF32);
	walk_notes(data, size, STAPSDT_F_MSB);
	walk_notes(data, size, STAPSDT_F_ELF32 | STAPSDT_F_MSB);

	/* the input as one argument string, cut at its first NUL */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	walk_args(text);
	free(text);
	return 0;
}
