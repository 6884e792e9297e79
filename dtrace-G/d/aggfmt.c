// SPDX-License-Identifier: MIT
/*
 * aggfmt.c - the aggregation layouts of -x agghist, -x aggpack and
 * -x aggzoom (also #pragma D option and setopt()), as illumos libdtrace
 * prints them (dt_consume.c, dt_aggregate.c); agg.c's printing calls in
 * here.
 *
 * Which aggregations change.  libdtrace works out the totals and ranges
 * these layouts need in its sorted walk of one aggregation, so they
 * apply to printa(@a) without a format and to the printing at the end;
 * printa() with a format or of several aggregations, and JSON output,
 * print as usual.  Within that:
 *  - agghist: count(), sum(), avg() and stddev() print a row per key,
 *    the keys then a 40-character bar for the value, under DTrace's
 *    "Distribution" header with "key" (or "value" when there are no
 *    keys) over the keys.  The bar is the value's share of the sum of
 *    the absolute values of every key (the value printed is divided by
 *    normalize(), the bar is not); with negative values the bars are
 *    half-length either side of a centre line, as a distribution's.
 *    min(), max() and the distributions print as usual: libdtrace
 *    totals only those four.  (For avg() and stddev() libdtrace
 *    computes the total from the averages but then draws the bar from
 *    the first data word, the count: an assertion in its code says only
 *    count() and sum() were meant to get there.  Here the bar is the
 *    average or the standard deviation, the value the total is made of.)
 *  - aggpack: quantize() and lquantize() print one line per key: the
 *    keys, the lower bound of the first bucket shown, a character per
 *    bucket, the bound of the last bucket and the count of the shown
 *    buckets:
 *
 *                   key  min .------. max    | count
 *                     1    0 : _xX   : 4      | 5
 *
 *    quantize() shows the same buckets for every key, those from one
 *    before the lowest non-empty bucket of any key (not below zero's
 *    bucket when that is the lowest) to one after the highest;
 *    lquantize() shows all its buckets, "< base" to ">= limit".  The
 *    header has a dash per bucket; "min" and "max" are as wide as the
 *    bounds (at least 4 digits; lquantize(): 7 and 8).  A bucket's
 *    character is its count's share of the shown buckets' total (under
 *    aggzoom: of the largest over 0.95), in 8 levels: U+2581..U+2588
 *    (lower one eighth block .. full block), or in ASCII "__xxxxXX"
 *    under -x encoding=ascii, or when encoding is not set and TERM is
 *    dumb, sun or sun-color, as libdtrace decides; a negative count is
 *    one of "vvvvVV" and an empty bucket a space.  llquantize() has
 *    no packed form in libdtrace and prints as usual.  Keys are packed
 *    too: a string right-aligned in 16 columns instead of left in 50.
 *  - aggzoom: every distribution's bars (and aggpack's characters and
 *    agghist's bars) are scaled so that the largest is 95% of the full
 *    height (38 of 40 '@'), instead of each being its share of the
 *    total.
 *
 *  - encoding=utf8 also draws the bars of distributions (and agghist's)
 *    whose counts are all positive in eighths of a column: U+2588 full
 *    blocks and one of U+2589..U+258F, as libdtrace does; encoding=ascii
 *    or unset keeps the '@'.
 *
 * Rows of these layouts end with the bar's or the line's own newline,
 * without the empty line a default row gets.  The header is printed
 * before the first row, once per aggregation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* the largest bar under aggzoom, as a share of the full height */
#define AGGZOOM_MAX 0.95

/* packed levels: ASCII, negative counts, U+2581 (one eighth) upwards */
static const char pack_ascii[] = "__xxxxXX";
static const char pack_neg[] = "vvvvVV";
#define PACK_UTF8_BASE 0x2581
#define PACK_LEVELS 8

/* Add one bucket's count to a distribution's total; aggzoom: keep the
 * largest, over AGGZOOM_MAX. */
void d_dist_total(long double *total, int64_t v, bool zoom)
{
	long double x = fabsl((long double)v);

	if (!zoom) {
		*total += x;
		return;
	}
	x *= 1 / AGGZOOM_MAX;
	if (*total < x)
		*total = x;
}

/* One code point of the Basic Multilingual Plane in UTF-8 (3 bytes: the
 * block elements U+2580..U+259F). */
static void put_utf8(struct sbuf *sb, unsigned cp)
{
	d_sb_printf(sb, "%c%c%c", 0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f),
		    0x80 | (cp & 0x3f));
}

/*
 * -x encoding=utf8: a distribution's bar (positive counts only) in
 * eighths of a column: full blocks (U+2588), then the left n/8 block
 * (U+258F one eighth .. U+2589 seven eighths) for what remains,
 * truncated, not rounded as the '@' bar is.
 */
void d_quantline_utf8(struct sbuf *sb, int64_t val, uint64_t normal,
		      long double total)
{
	long double f = fabsl((long double)val) * 40 / total;
	unsigned whole = (unsigned)f, eighths, i;

	eighths = (unsigned)((f - (long double)whole) * 8);
	d_sb_puts(sb, "|");
	for (i = 0; i < whole; i++)
		put_utf8(sb, 0x2588);
	if (eighths) {
		put_utf8(sb, 0x258f - (eighths - 1));
		i++;
	}
	d_sb_printf(sb, "%*s %-9lld\n", (int)(40 - i), "",
		    (long long)((uint64_t)val / normal));
}

/* The width of a bound in the packed layout: its digits and sign, at
 * least 4.  (libdtrace's count differs at exact powers of ten, which no
 * quantize() bound is.) */
static int ndigits(long long v)
{
	unsigned long long u =
		v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = v < 0 ? 2 : 1;

	while (u >= 10) {
		u /= 10;
		n++;
	}
	return n < 4 ? 4 : n;
}

/* agghist: the value an entry's bar stands for. */
static int64_t hist_value(const struct agg *a, const int64_t *d)
{
	switch (a->fn) {
	case AG_AVG:
		return d[0] ? d[1] / d[0] : 0;
	case AG_STDDEV:
		return (int64_t)d_agg_stddev(d, 1);
	default:
		return d[0];
	}
}

/* aggpack, quantize(): the first and last non-empty bucket of d, zero's
 * bucket for both when all are empty. */
static void qz_used(const int64_t *d, int *lo, int *hi)
{
	int i;

	*lo = *hi = -1;
	for (i = 0; i < QZ_NBUCKETS; i++) {
		if (!d[i])
			continue;
		if (*lo < 0)
			*lo = i;
		*hi = i;
	}
	if (*lo < 0)
		*lo = *hi = QZ_ZERO;
}

static bool term_is_primitive(void)
{
	const char *t = getenv("TERM");

	return t && (strcmp(t, "dumb") == 0 || strcmp(t, "sun") == 0 ||
		     strcmp(t, "sun-color") == 0);
}

void d_aggfmt_begin(struct aggfmt *f, const struct d_prog *p,
		    const struct agg *a)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->p = p;
	f->a = a;
	f->hist = p->agghist && (a->fn == AG_COUNT || a->fn == AG_SUM ||
				 a->fn == AG_AVG || a->fn == AG_STDDEV);
	f->pack = p->aggpack && (a->fn == AG_QUANTIZE || a->fn == AG_LQUANTIZE);
	if (f->hist) {
		for (i = 0; i < a->n; i++) {
			int64_t v = hist_value(a, a->ents[i].data);

			f->pos |= v > 0;
			f->neg |= v < 0;
			if (v < 0)
				v = -v;
			if (p->aggzoom) {
				/* dt_aggregate_total(): truncated */
				v = (int64_t)((long double)v *
					      (1 / AGGZOOM_MAX));
				if (v > f->total)
					f->total = (long double)v;
			} else {
				f->total += (long double)v;
			}
		}
	}
	if (f->pack && a->fn == AG_QUANTIZE) {
		f->minbin = QZ_NBUCKETS;
		f->maxbin = -1;
		for (i = 0; i < a->n; i++) {
			int lo, hi;

			qz_used(a->ents[i].data, &lo, &hi);
			if (lo < f->minbin)
				f->minbin = lo;
			if (hi > f->maxbin)
				f->maxbin = hi;
		}
		if (f->maxbin < 0)
			f->minbin = f->maxbin = QZ_ZERO;
		if (f->minbin != 0 && f->minbin != QZ_ZERO)
			f->minbin--;
		if (f->maxbin < QZ_NBUCKETS - 1)
			f->maxbin++;
	}
	if (f->pack)
		f->utf8 = p->encoding == ENC_UNSET ? !term_is_primitive()
						   : p->encoding == ENC_UTF8;
}

/* The keys' width in the header: each key's packed width and a space. */
static int keys_width(const struct aent *ke)
{
	int w = 0;

	for (unsigned k = 0; k < ke->nkeys; k++) {
		const struct dv *v = &ke->keys[k];

		if (v->k == K_STR)
			w += 16 + 1;
		else
			w += (v->sz == 1   ? 3
			      : v->sz == 2 ? 5
			      : v->sz == 4 ? 8
					   : 16) +
			     1;
	}
	return w;
}

static void header(struct aggfmt *f, struct sbuf *sb, const struct aent *ke)
{
	int width = keys_width(ke), minw, maxw, nb, i;

	if (f->hist) {
		d_sb_printf(sb, "\n%*s %41s %-9s\n", width ? width : 16,
			    width ? "key" : "value",
			    "------------- Distribution -------------",
			    "count");
		return;
	}
	if (f->a->fn == AG_QUANTIZE) {
		minw = ndigits(d_qz_bucketval(f->minbin));
		maxw = ndigits(d_qz_bucketval(f->maxbin));
		nb = f->maxbin - f->minbin + 1;
	} else {
		minw = 7;
		maxw = 8;
		nb = f->a->lq_levels + 2;
	}
	d_sb_printf(sb, "\n%*s %*s .", width, width ? "key" : "", minw, "min");
	for (i = 0; i < nb; i++)
		d_sb_puts(sb, "-");
	d_sb_printf(sb, ". %-*s | count\n", maxw, "max");
}

/* One bucket of a packed line. */
static void packed_char(const struct aggfmt *f, struct sbuf *sb, int64_t v,
			long double total)
{
	long double x = (long double)v;
	unsigned lvl;

	if (v == 0) {
		d_sb_puts(sb, " ");
		return;
	}
	if (v < 0) {
		lvl = (unsigned)(fabsl(x * (sizeof(pack_neg) - 2)) / total +
				 0.5);
		d_sb_printf(sb, "%c", pack_neg[lvl]);
		return;
	}
	lvl = (unsigned)(x * (PACK_LEVELS - 1) / total + 0.5);
	if (f->utf8) {
		unsigned cp = PACK_UTF8_BASE + lvl;

		put_utf8(sb, cp);
		return;
	}
	d_sb_printf(sb, "%c", pack_ascii[lvl]);
}

/* The buckets lo..hi of d as characters, and their count. */
static long double packed_buckets(const struct aggfmt *f, struct sbuf *sb,
				  const int64_t *d, int lo, int hi)
{
	long double total = 0, count = 0;
	int i;

	for (i = lo; i <= hi; i++) {
		d_dist_total(&total, d[i], f->p->aggzoom);
		count += (long double)d[i];
	}
	for (i = lo; i <= hi; i++)
		packed_char(f, sb, d[i], total);
	return count;
}

static void packed_quantize(const struct aggfmt *f, struct sbuf *sb,
			    const int64_t *d)
{
	long long lo = (long long)d_qz_bucketval(f->minbin);
	long long hi = (long long)d_qz_bucketval(f->maxbin);
	long double count;

	d_sb_printf(sb, " %*lld :", ndigits(lo), lo);
	count = packed_buckets(f, sb, d, f->minbin, f->maxbin);
	d_sb_printf(sb, ": %-*lld | %lld\n", ndigits(hi), hi, (long long)count);
}

static void packed_lquantize(const struct aggfmt *f, struct sbuf *sb,
			     const int64_t *d)
{
	const struct agg *a = f->a;
	long double count;
	char c[32];

	snprintf(c, sizeof(c), "< %d", (int)a->lq_base);
	d_sb_printf(sb, "%8s :", c);
	count = packed_buckets(f, sb, d, 0, a->lq_levels + 1);
	snprintf(c, sizeof(c), ">= %d",
		 (int)(a->lq_base + a->lq_levels * a->lq_step));
	d_sb_printf(sb, ": %-8s | %lld\n", c, (long long)count);
}

void d_aggfmt_row(struct aggfmt *f, struct sbuf *sb, const struct aent *ke,
		  const int64_t *d)
{
	if (!f->hdr) {
		header(f, sb, ke);
		f->hdr = true;
	}
	for (unsigned k = 0; k < ke->nkeys; k++)
		d_agg_print_key(sb, f->p, &ke->keys[k], true);
	if (f->hist) {
		d_sb_puts(sb, " ");
		d_agg_quantline(sb, hist_value(f->a, d), f->a->normal, f->total,
				f->pos, f->neg, f->p->encoding == ENC_UTF8);
	} else if (f->a->fn == AG_QUANTIZE) {
		packed_quantize(f, sb, d);
	} else {
		packed_lquantize(f, sb, d);
	}
}
