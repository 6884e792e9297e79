// SPDX-License-Identifier: MIT
/*
 * value.c - the values of the D language (dtrace-G/d/) and the containers
 * every other part keeps them in.
 *
 * Values.  Every value is a 64-bit integer or a string, and carries the C
 * type DTrace would give it: a size (1, 2, 4, 8) and a signedness.  DTrace
 * prints by record size (trace() of an int is " %8d", of a uint64_t
 * " %16lld"; an aggregation key of type int is " %8d") and picks %u or %i
 * for printf's %d by signedness, so the type travels with the value:
 * pid is an int, arg0 an int64_t, an integer literal an int when it fits.
 * d_dv_int() narrows a value to its type as C would; casts, stores into
 * declared variables and records use it, while arithmetic results keep
 * DTrace's 64 bits (run.c's reg()).
 *
 * Containers.  Output is built in growing buffers (sdk/grow.h's struct
 * sbuf, through d_sb_*()) and written only when a clause completes
 * (run.c).  Parse trees live in a
 * per-program arena and the scratch of one firing in a per-run arena,
 * each freed at once, so a compile error or a run-time fault, both of
 * which longjmp out of any depth, leak nothing.  self-> variables,
 * associative arrays and the index of aggregation entries share one hash
 * table with byte-string keys (FNV-1a); d_key_add() serializes a tuple of
 * values into such a key, tagging each element with its kind and type so
 * that 1 (int) and 1 (long) are different aggregation keys; a dynamic
 * variable's integer keys are their values alone (d_dyn_key_add()).
 *
 * Out of memory prints "dtrace: out of memory" and exits 1 (sdk/xalloc.c,
 * the command's policy): a half-built program or aggregation has no
 * useful state to return to.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"
#include "text.h"

/* ------------------------------------------------------------------ */
/* Small helpers */

void d_sb_add(struct sbuf *sb, const char *s, size_t n)
{
	xsbuf_add(sb, s, n);
}

void d_sb_puts(struct sbuf *sb, const char *s)
{
	d_sb_add(sb, s, strlen(s));
}

void __attribute__((format(printf, 2, 3)))
d_sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		d_sb_add(sb, tmp, (size_t)n);
		return;
	}
	xsbuf_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->b + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void *d_ar_alloc(struct arena *a, size_t n)
{
	struct ablk *b = a->blk;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->used + n > b->cap) {
		size_t cap = n > 8192 ? n : 8192;

		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		b->next = a->blk;
		a->blk = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *d_ar_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = d_ar_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void d_ar_free(struct arena *a)
{
	struct ablk *b, *n;

	for (b = a->blk; b; b = n) {
		n = b->next;
		free(b);
	}
	a->blk = NULL;
}

/* ------------------------------------------------------------------ */
/* Values */

/*
 * C's integer promotions and usual arithmetic conversions: the type
 * (size and signedness) two integers of types (az, ag) and (bz, bg)
 * are brought to, for a binary operator's result and ?:'s.
 */
void d_int_common(unsigned az, bool ag, unsigned bz, bool bg, unsigned *sz,
		  bool *sg)
{
	unsigned sa = az < 4 ? 4 : az, sb = bz < 4 ? 4 : bz;
	bool ga = az < 4 ? true : ag, gb = bz < 4 ? true : bg;

	if (sa != sb) {
		*sz = sa > sb ? sa : sb;
		*sg = sa > sb ? ga : gb;
	} else {
		*sz = sa;
		*sg = ga && gb;
	}
}

struct dv d_dv_int(int64_t v, unsigned sz, bool sg)
{
	struct dv d = { .k = K_INT, .sz = (uint8_t)sz, .sg = sg };

	switch (sz) {
	case 1:
		d.i = sg ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
		break;
	case 2:
		d.i = sg ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
		break;
	case 4:
		d.i = sg ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
		break;
	default:
		d.sz = 8;
		d.i = v;
	}
	return d;
}

struct dv d_dv_str(const char *s)
{
	struct dv d = { .k = K_STR, .s = s, .sz = 8 };

	return d;
}

/* A string from a traced process: tainted (struct dv). */
struct dv d_dv_tstr(const char *s)
{
	struct dv d = d_dv_str(s);

	d.tn = 1;
	return d;
}

/*
 * A string value as text output shows it: made safe (sdk/text.h) when
 * esc and the value is tainted (struct dv), into a buffer *fr the caller
 * frees; else the string itself (*fr NULL).  Widths apply to the result.
 */
const char *d_out_str(const struct dv *v, bool esc, char **fr)
{
	size_t n;

	*fr = NULL;
	if (!esc || !v->tn)
		return v->s;
	n = TXT_SAFE_MAX(strlen(v->s));
	*fr = xmalloc(n);
	return txt_safe(v->s, *fr, n);
}

/*
 * An integer as trace() and aggregation keys print it: narrowed to its
 * type's size and printed by its type's sign, exactly as C converts it
 * ((int16_t)-1 is -1, (uint32_t)-1 4294967295; libdtrace printed 1 and
 * 2 bytes unsigned, 4 signed whatever the type), 8 bytes signed as
 * libdtrace does, and the column width of that size in the default
 * layouts.
 */
long long d_out_int(const struct dv *v, int *width)
{
	switch (v->sz) {
	case 1:
		*width = 3;
		return v->sg ? (long long)(int8_t)v->i : (long long)(uint8_t)v->i;
	case 2:
		*width = 5;
		return v->sg ? (long long)(int16_t)v->i
			     : (long long)(uint16_t)v->i;
	case 4:
		*width = 8;
		return v->sg ? (long long)(int32_t)v->i
			     : (long long)(uint32_t)v->i;
	default:
		*width = 16;
		return (long long)v->i;
	}
}

/* ------------------------------------------------------------------ */
/* Hash table with byte-string keys: self-> and associative variables,
 * and the index of aggregation entries. */

static uint64_t hash_bytes(const unsigned char *k, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--) {
		h ^= *k++;
		h *= 1099511628211ULL;
	}
	return h;
}

struct hent *d_ht_find(struct htab *t, const void *key, size_t klen)
{
	uint64_t h;
	struct hent *e;

	if (!t->nb)
		return NULL;
	h = hash_bytes(key, klen);
	for (e = t->b[h % t->nb]; e; e = e->next)
		if (e->hash == h && e->klen == klen &&
		    memcmp(e->key, key, klen) == 0)
			return e;
	return NULL;
}

struct hent *d_ht_insert(struct htab *t, const void *key, size_t klen)
{
	struct hent *e;
	size_t i;

	if (t->n + 1 > t->nb * 2) {
		size_t nb = t->nb ? t->nb * 4 : 64;
		struct hent **b = xcalloc(nb, sizeof(*b));

		for (i = 0; i < t->nb; i++) {
			struct hent *x, *nx;

			for (x = t->b[i]; x; x = nx) {
				nx = x->next;
				x->next = b[x->hash % nb];
				b[x->hash % nb] = x;
			}
		}
		free(t->b);
		t->b = b;
		t->nb = nb;
	}
	e = xcalloc(1, sizeof(*e) + klen);
	e->hash = hash_bytes(key, klen);
	e->klen = klen;
	memcpy(e->key, key, klen);
	e->next = t->b[e->hash % t->nb];
	t->b[e->hash % t->nb] = e;
	t->n++;
	return e;
}

void d_ht_remove(struct htab *t, struct hent *victim)
{
	struct hent **pp;

	for (pp = &t->b[victim->hash % t->nb]; *pp; pp = &(*pp)->next) {
		if (*pp == victim) {
			*pp = victim->next;
			t->n--;
			if (victim->val.k == K_STR)
				free((char *)victim->val.s);
			free(victim);
			return;
		}
	}
}

void d_ht_clear(struct htab *t)
{
	size_t i;

	for (i = 0; i < t->nb; i++) {
		struct hent *e, *n;

		for (e = t->b[i]; e; e = n) {
			n = e->next;
			if (e->val.k == K_STR)
				free((char *)e->val.s);
			free(e);
		}
	}
	free(t->b);
	t->b = NULL;
	t->nb = t->n = 0;
}

/* Serialize a tuple of values into a key. */
void d_key_add(struct sbuf *k, const struct dv *v)
{
	if (v->k == K_STR) {
		/* a stack or a name (stack.c) prints apart from a string */
		d_sb_add(k, v->show == DV_STACK ? "k" : v->show ? "y" : "s", 1);
		d_sb_add(k, v->s, strlen(v->s) + 1);
	} else {
		unsigned char t[3] = { 'i', v->sz, v->sg };
		/* a key is its type's size, as DTrace records it */
		int64_t i = d_dv_int(v->i, v->sz, v->sg).i;

		d_sb_add(k, (const char *)t, 3);
		d_sb_add(k, (const char *)&i, sizeof(i));
	}
}

/*
 * A key of a dynamic variable (self->, an associative array's element):
 * as d_key_add() but an integer by its 64-bit value alone, extended by
 * its own type, with no type kept: DTrace compares such a key by the
 * register's value, so n[0] (an int) and n[arg0 % 2] (an int64_t, 0)
 * name one element, as the guide's x[123ull] and x['a'] name one array.
 * Aggregation keys keep their types (d_key_add()): they print by them.
 */
void d_dyn_key_add(struct sbuf *k, const struct dv *v)
{
	if (v->k == K_STR) {
		d_key_add(k, v);
	} else {
		int64_t i = d_dv_int(v->i, v->sz, v->sg).i;

		d_sb_add(k, "i", 1);
		d_sb_add(k, (const char *)&i, sizeof(i));
	}
}

/*
 * A JSON string of n bytes (-x oformat=json): quotes, backslashes and
 * C0 controls escaped as JSON has them, DEL and the C1 controls as
 * \u007f..\u009f, and a byte that is not part of well-formed UTF-8 as
 * the text "\xNN" (the way text output shows it), so the output never
 * holds a control byte or ill-formed UTF-8.
 */
void d_json_str(struct sbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	d_sb_puts(sb, "\"");
	while (i < n) {
		unsigned c = p[i], len = 0, cp = 0;

		if (c == '"' || c == '\\') {
			d_sb_printf(sb, "\\%c", c);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			if (c == '\n')
				d_sb_puts(sb, "\\n");
			else if (c == '\t')
				d_sb_puts(sb, "\\t");
			else
				d_sb_printf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		if (c < 0x80) {
			d_sb_add(sb, (const char *)&p[i], 1);
			i++;
			continue;
		}
		/* a well-formed UTF-8 sequence (RFC 3629), else one byte */
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		if (len && i + len <= n) {
			unsigned k;

			for (k = 1; k < len && (p[i + k] & 0xc0) == 0x80; k++)
				cp = (cp << 6) | (p[i + k] & 0x3f);
			if (k == len &&
			    !(len == 3 && (cp < 0x800 ||
					   (cp >= 0xd800 && cp <= 0xdfff))) &&
			    !(len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
				if (cp >= 0x80 && cp <= 0x9f)
					d_sb_printf(sb, "\\u%04x", cp);
				else
					d_sb_add(sb, (const char *)&p[i], len);
				i += len;
				continue;
			}
		}
		d_sb_printf(sb, "\\\\x%02x", c);
		i++;
	}
	d_sb_puts(sb, "\"");
}
