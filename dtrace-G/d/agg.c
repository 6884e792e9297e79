// SPDX-License-Identifier: MIT
/*
 * agg.c - the aggregations of the D language (dtrace-G/d/): the store
 * behind @name[keys] = count() / sum() / avg() / min() / max() /
 * stddev() / quantize() / lquantize() / llquantize(), and printa(),
 * normalize(), clear(), trunc() and the printing at the end
 * (d_print_aggs()).
 *
 * Each aggregation keeps its entries in an array, in creation order,
 * indexed by a hash table on the serialized keys (value.c).  An entry's
 * data is one int64_t per value, updated in place by d_agg_update() when
 * a clause fires: avg: count and sum; stddev: count, sum and the 128-bit
 * sum of squares (low word first), as DTrace's kernel keeps them;
 * quantize: 127 power-of-two buckets, bucket 63 holding zero; lquantize:
 * levels + 2 buckets, below the range and above it; llquantize: one
 * bucket below factor^low, then per order of magnitude m (low..high)
 * min(factor^(m+1), steps) buckets less the ones the order below
 * covers, and one bucket for factor^(high+1) and above.
 *
 * Printing.  printa() of one or several aggregations and the printing at
 * the end go through one walk, as libdtrace's joined walk does: a row per
 * distinct key tuple with each aggregation's entry (or zeroed data where
 * an aggregation lacks the key), rows sorted by the values (aggsortpos
 * names the aggregation compared first), then the keys (from aggsortkeypos
 * on, cyclically); aggsortkey compares the keys first, aggsortrev
 * reverses every comparison.  normalize() divides what is printed, never
 * what is sorted.  trunc(@, n) keeps the n largest by value (n < 0: the
 * smallest), aggsortrev reversing that too.
 *
 * Layouts, all as illumos libdtrace prints them: keys and values by
 * record size (dt_print_datum's widths), the distributions with their
 * 40-character bars (quantize, lquantize, llquantize), stddev as the
 * integer square root of the truncated average of the squares less the
 * square of the truncated average.  Unprinted aggregations are printed
 * at the end in the order the program names them.  -x agghist and
 * aggpack lay out printa(@a) and the printing at the end otherwise
 * (aggfmt.c); aggzoom and encoding=utf8 change every distribution's bars.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* Free every entry of a (trunc(@a), d_free()); a stays usable, empty. */
void d_agg_free_entries(struct agg *a)
{
	size_t i;
	unsigned k;

	for (i = 0; i < a->n; i++) {
		for (k = 0; k < a->ents[i].nkeys; k++)
			if (a->ents[i].keys[k].k == K_STR)
				free((char *)a->ents[i].keys[k].s);
		free(a->ents[i].keys);
		free(a->ents[i].data);
	}
	free(a->ents);
	a->ents = NULL;
	a->n = a->cap = 0;
	d_ht_clear(&a->index);
}

/* ------------------------------------------------------------------ */
/* Aggregations */

int64_t d_qz_bucketval(int b)
{
	if (b < QZ_ZERO)
		return -(int64_t)(1ULL << (QZ_ZERO - 1 - b));
	if (b == QZ_ZERO)
		return 0;
	return (int64_t)(1ULL << (b - QZ_ZERO - 1));
}

static size_t agg_ndata(const struct agg *a)
{
	switch (a->fn) {
	case AG_AVG:
		return 2;
	case AG_STDDEV:
		return 4;
	case AG_LLQUANTIZE:
		return a->llq_nbuckets;
	case AG_QUANTIZE:
		return QZ_NBUCKETS;
	case AG_LQUANTIZE:
		return (size_t)a->lq_levels + 2;
	default:
		return 1;
	}
}

static void agg_init_data(const struct agg *a, int64_t *d)
{
	memset(d, 0, agg_ndata(a) * sizeof(*d));
	if (a->fn == AG_MIN)
		d[0] = INT64_MAX;
	else if (a->fn == AG_MAX)
		d[0] = INT64_MIN;
}

/*
 * llquantize(): the bucket of v.  Bucket 0 holds v < factor^low; order
 * m's range [factor^m, factor^(m+1)) is cut into buckets of width
 * factor^(m+1) / min(factor^(m+1), steps), its first ones (below
 * factor^m) belonging to the order below; the last bucket holds
 * v >= factor^(high+1).  The compiler made sure factor^(high+1) fits.
 */
static unsigned llq_bucket(uint16_t factor, uint16_t low, uint16_t high,
			   uint16_t nsteps, int64_t v)
{
	int64_t start = 1, end, n;
	unsigned b = 1, m;

	for (m = 0; m < low; m++)
		start *= factor;
	if (v < start)
		return 0;
	for (m = low; m <= high; m++) {
		end = start * factor;
		n = end > nsteps ? nsteps : end;
		if (v < end)
			return b + (unsigned)((v - start) / (end / n));
		b += (unsigned)(n - n / factor);
		start = end;
	}
	return b;
}

unsigned d_llq_nbuckets(uint16_t factor, uint16_t low, uint16_t high,
			uint16_t nsteps)
{
	return llq_bucket(factor, low, high, nsteps, INT64_MAX) + 1;
}

/*
 * The entry of keys in a, made (zeroed, min/max at their identity) when
 * there is none; string keys are copied.  d_agg_update() and the merge
 * of what the kernel aggregated (consumer/kplan_merge.c) both come here.
 */
struct aent *d_agg_entry(struct agg *a, const struct dv *keys, unsigned nkeys)
{
	struct sbuf k = { 0 };
	struct hent *h;
	struct aent *e;
	unsigned i;

	for (i = 0; i < nkeys; i++)
		d_key_add(&k, &keys[i]);
	h = d_ht_find(&a->index, k.b ? k.b : "", k.len);
	if (!h) {
		xgrow(&a->ents, &a->cap, a->n, sizeof(*a->ents));
		e = &a->ents[a->n];
		e->nkeys = nkeys;
		e->keys = xcalloc(nkeys, sizeof(*e->keys));
		for (i = 0; i < nkeys; i++) {
			e->keys[i] = keys[i];
			if (keys[i].k == K_STR)
				e->keys[i].s = xstrdup(keys[i].s);
		}
		e->data = xmalloc(agg_ndata(a) * sizeof(*e->data));
		agg_init_data(a, e->data);
		h = d_ht_insert(&a->index, k.b ? k.b : "", k.len);
		h->idx = a->n++;
	}
	/* the same bytes from a traced process taint the key (struct dv) */
	for (i = 0; i < nkeys; i++)
		a->ents[h->idx].keys[i].tn |= keys[i].tn;
	free(k.b);
	return &a->ents[h->idx];
}

void d_agg_update(struct ectx *x, struct agg *a, const struct stmt *st)
{
	struct dv *keys = NULL, v = d_dv_int(0, 8, true), incr = d_dv_int(1, 8, true);
	int64_t *d;
	unsigned i;

	if (st->nkeys)
		keys = d_ar_alloc(&x->scratch, st->nkeys * sizeof(*keys));
	for (i = 0; i < st->nkeys; i++) {
		x->action = st->action + (int)i;
		/* d_run_pre(): a name key's name, formatted from the area
		 * (stmt.c's d_stmt_uname()); E is not in the record */
		if (x->pre && !x->prespec && d_stmt_uname(x->p, st))
			keys[i] = x->pre[x->ipre++];
		else
			keys[i] = d_eval(x, st->keys[i]);
		if (keys[i].k == K_INT) /* recorded at its type's size */
			keys[i] = d_dv_int(keys[i].i, keys[i].sz, keys[i].sg);
		if (keys[i].k == K_STR && !keys[i].show &&
		    strlen(keys[i].s) >= x->p->strsize)
			keys[i].s = d_ar_strndup(&x->scratch, keys[i].s,
						 x->p->strsize - 1);
	}
	x->action = st->action + (int)st->nkeys;
	if (st->nargs && x->pre && !x->prespec &&
	    (d_stmt_uname(x->p, st) || d_stmt_ucall(x->p, st) ||
	     d_stmt_ukey(x->p, st) || d_stmt_pkey(x->p, st)))
		v = x->pre[x->ipre++]; /* ... and its value, the hit's */
	else if (st->nargs)
		v = d_eval(x, st->args[0]);
	if (a->fn == AG_QUANTIZE && st->nargs > 1)
		incr = d_eval(x, st->args[1]);
	if (a->fn == AG_LQUANTIZE && st->nargs > 4)
		incr = d_eval(x, st->args[4]);
	if (a->fn == AG_LLQUANTIZE && st->nargs > 5)
		incr = d_eval(x, st->args[5]);
	if (v.k == K_STR || incr.k == K_STR)
		d_fault(x, FLT_ILLOP, 0);
	/* integers aggregate as int64_t */
	v = d_dv_int(v.i, 8, true);

	d = d_agg_entry(a, keys, st->nkeys)->data;
	switch (a->fn) {
	case AG_COUNT:
		d[0]++;
		break;
	case AG_SUM:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)v.i);
		break;
	case AG_AVG:
		d[0]++;
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)v.i);
		break;
	case AG_MIN:
		if (v.i < d[0])
			d[0] = v.i;
		break;
	case AG_MAX:
		if (v.i > d[0])
			d[0] = v.i;
		break;
	case AG_QUANTIZE: {
		int b;

		/*
		 * DTrace's buckets: v >= 0 goes to the largest bucket value
		 * <= v; v < 0 to the first (most negative) bucket value >= v,
		 * so -5 counts under -4, as 5 counts under 4.
		 */
		if (v.i < 0) {
			for (b = 0; b < QZ_ZERO - 1; b++)
				if (v.i <= d_qz_bucketval(b))
					break;
		} else {
			for (b = QZ_ZERO; b < QZ_NBUCKETS - 1; b++)
				if (v.i < d_qz_bucketval(b + 1))
					break;
		}
		d[b] += incr.i;
		break;
	}
	case AG_STDDEV: {
		/* the square of |v| as 128 bits, added to data[2..3] */
		uint64_t mag = v.i < 0 ? 0 - (uint64_t)v.i : (uint64_t)v.i;
		unsigned __int128 sq = (unsigned __int128)mag * mag;
		unsigned __int128 acc = ((unsigned __int128)(uint64_t)d[3] << 64) |
					(uint64_t)d[2];

		acc += sq;
		d[0]++;
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)v.i);
		d[2] = (int64_t)(uint64_t)acc;
		d[3] = (int64_t)(uint64_t)(acc >> 64);
		break;
	}
	case AG_LLQUANTIZE:
		d[llq_bucket(a->llq_factor, a->llq_low, a->llq_high,
			     a->llq_nsteps, v.i)] += incr.i;
		break;
	case AG_LQUANTIZE: {
		int64_t base = a->lq_base, step = a->lq_step;
		int64_t levels = a->lq_levels;

		if (v.i < base)
			d[0] += incr.i;
		else if (v.i >= base + levels * step)
			d[levels + 1] += incr.i;
		else
			d[(v.i - base) / step + 1] += incr.i;
		break;
	}
	}
}

/* ------------------------------------------------------------------ */
/* Values: stddev, comparisons */

/* Integer square root, rounded down. */
static uint64_t isqrt128(unsigned __int128 v)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)r;
}

/*
 * stddev() with a normalization: the average of the squares (the sum of
 * squares divided by normal twice, then by the count, each truncating)
 * less the square of the truncated normalized average, its square root.
 */
static uint64_t stddev_of(const int64_t *d, uint64_t normal);

uint64_t d_agg_stddev(const int64_t *d, uint64_t normal)
{
	return stddev_of(d, normal);
}

static uint64_t stddev_of(const int64_t *d, uint64_t normal)
{
	unsigned __int128 sq = ((unsigned __int128)(uint64_t)d[3] << 64) |
			       (uint64_t)d[2];
	int64_t avg;
	uint64_t mag;

	if (d[0] == 0)
		return 0;
	sq = sq / normal / normal / (uint64_t)d[0];
	avg = d[1] / (int64_t)normal / d[0];
	mag = avg < 0 ? 0 - (uint64_t)avg : (uint64_t)avg;
	return isqrt128(sq - (unsigned __int128)mag * mag);
}

/* The lquantize() weighted sum and the count at zero, for sorting. */
static long double lq_sum(const struct agg *a, const int64_t *d)
{
	int64_t base = a->lq_base;
	unsigned i;
	long double t = (long double)d[0] * (long double)(base - 1);

	for (i = 0; i < a->lq_levels; base += a->lq_step, i++)
		t += (long double)d[i + 1] * (long double)base;
	return t + (long double)d[a->lq_levels + 1] * (long double)(base + 1);
}

static int64_t lq_zero(const struct agg *a, const int64_t *d)
{
	int64_t base = a->lq_base;
	unsigned i;

	if (base - 1 == 0)
		return d[0];
	for (i = 0; i < a->lq_levels; base += a->lq_step, i++)
		if (base == 0)
			return d[i + 1];
	if (base + 1 == 0)
		return d[a->lq_levels + 1];
	return 0;
}

/*
 * llquantize() buckets in order: walk them with their lower bounds.
 * llq_first() gives factor^low (bucket 1's bound; bucket 0 is below
 * it); llq_next() moves value to the next bucket's bound.
 */
struct llq_walk {
	int64_t value, next, step;
	unsigned order;
};

static void llq_first(const struct agg *a, struct llq_walk *w)
{
	w->value = 1;
	for (w->order = 0; w->order < a->llq_low; w->order++)
		w->value *= a->llq_factor;
	w->next = w->value * a->llq_factor;
	w->step = w->next > a->llq_nsteps ? w->next / a->llq_nsteps : 1;
}

static void llq_next(const struct agg *a, struct llq_walk *w)
{
	w->value += w->step;
	if (w->value != w->next)
		return;
	/* past the top order only value, factor^(high + 1), is read:
	 * factor^(high + 2) need not fit in 64 bits (2^63 for factor 2,
	 * high 61), so it is not computed */
	if (++w->order > a->llq_high)
		return;
	w->next = w->value * a->llq_factor;
	w->step = w->next > a->llq_nsteps ? w->next / a->llq_nsteps : 1;
}

static long double llq_sum(const struct agg *a, const int64_t *d)
{
	struct llq_walk w;
	unsigned b = 0;
	long double t;

	llq_first(a, &w);
	t = (long double)d[b++] * (long double)(w.value - 1);
	while (w.order <= a->llq_high) {
		t += (long double)d[b++] * (long double)w.value;
		llq_next(a, &w);
	}
	return t + (long double)d[b] * (long double)w.value;
}

static int cmp3(long double l, long double r)
{
	return l < r ? -1 : l > r ? 1 : 0;
}

/* dt_aggregate_valcmp(): by what the value means for each function. */
static int valcmp(const struct agg *a, const int64_t *l, const int64_t *r)
{
	int c;
	int i;

	switch (a->fn) {
	case AG_AVG:
		return cmp3((long double)(l[0] ? l[1] / l[0] : 0),
			    (long double)(r[0] ? r[1] / r[0] : 0));
	case AG_STDDEV: {
		uint64_t ls = stddev_of(l, 1), rs = stddev_of(r, 1);

		return ls < rs ? -1 : ls > rs ? 1 : 0;
	}
	case AG_QUANTIZE: {
		long double lt = 0, rt = 0;

		for (i = 0; i < QZ_NBUCKETS; i++) {
			lt += (long double)d_qz_bucketval(i) * (long double)l[i];
			rt += (long double)d_qz_bucketval(i) * (long double)r[i];
		}
		if ((c = cmp3(lt, rt)) != 0)
			return c;
		return cmp3((long double)l[QZ_ZERO], (long double)r[QZ_ZERO]);
	}
	case AG_LQUANTIZE:
		if ((c = cmp3(lq_sum(a, l), lq_sum(a, r))) != 0)
			return c;
		return cmp3((long double)lq_zero(a, l),
			    (long double)lq_zero(a, r));
	case AG_LLQUANTIZE:
		if ((c = cmp3(llq_sum(a, l), llq_sum(a, r))) != 0)
			return c;
		return cmp3((long double)l[0], (long double)r[0]);
	default:
		return l[0] < r[0] ? -1 : l[0] > r[0] ? 1 : 0;
	}
}

/*
 * dt_aggregate_keycmp(): fewer keys first; per key, from key keypos on
 * (cyclically; 0 when keypos is past the last key), the smaller record
 * first (an integer before a string), integers as unsigned, strings by
 * bytes.
 */
static int keycmp(const struct aent *l, const struct aent *r, unsigned keypos)
{
	unsigned i, n = l->nkeys;

	if (l->nkeys != r->nkeys)
		return l->nkeys < r->nkeys ? -1 : 1;
	if (keypos >= n)
		keypos = 0;
	for (i = 0; i < n; i++) {
		const struct dv *a = &l->keys[(i + keypos) % n];
		const struct dv *b = &r->keys[(i + keypos) % n];
		unsigned sa = a->k == K_STR ? 0x10000 : a->sz;
		unsigned sb = b->k == K_STR ? 0x10000 : b->sz;
		int c;

		if (sa != sb)
			return sa < sb ? -1 : 1;
		if (a->k == K_STR) {
			c = strcmp(a->s, b->s);
			if (c)
				return c < 0 ? -1 : 1;
			continue;
		}
		{
			uint64_t ua = (uint64_t)a->i, ub = (uint64_t)b->i;

			if (a->sz < 8) {
				uint64_t m = (1ULL << (a->sz * 8)) - 1;

				ua &= m;
				ub &= m;
			}
			if (ua != ub)
				return ua < ub ? -1 : 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rows: the joined walk */

/*
 * A walk over n aggregations: rows[i * (n + 1) + j] is aggregation j's
 * entry for row i's keys (NULL: zeroed data), rows[i * (n + 1) + n] the
 * row's keys.
 */
struct walk {
	struct d_prog *p;
	struct agg **aggs;
	unsigned n;
	const struct aent **rows;
	size_t nrows;
	int64_t **zero; /* per aggregation: its zeroed data */
	unsigned sortpos, keypos;
	bool keysort, bykey_only, byval_only;
	int rev;
};

static const int64_t *row_data(const struct walk *w, size_t row, unsigned j)
{
	const struct aent *e = w->rows[row * (w->n + 1) + j];

	return e ? e->data : w->zero[j];
}

static struct walk *sort_walk; /* qsort() has no argument */

static int row_cmp(const void *lp, const void *rp)
{
	const struct walk *w = sort_walk;
	size_t l = *(const size_t *)lp, r = *(const size_t *)rp;
	const struct aent *lk = w->rows[l * (w->n + 1) + w->n];
	const struct aent *rk = w->rows[r * (w->n + 1) + w->n];
	unsigned i;
	int c;

	if (w->keysort && !w->byval_only) {
		c = keycmp(lk, rk, w->keypos);
		if (c)
			return c * w->rev;
	}
	for (i = 0; i < w->n; i++) {
		unsigned j = (i + w->sortpos) % w->n;

		c = valcmp(w->aggs[j], row_data(w, l, j), row_data(w, r, j));
		if (c)
			return c * w->rev;
	}
	if (w->keysort && !w->byval_only)
		return 0;
	return keycmp(lk, rk, w->keypos) * w->rev;
}

/*
 * The rows of aggregations aggv[0..n-1], sorted; *order gets the row
 * indices in printing order.  byval: trunc()'s order, by value whatever
 * aggsortkey says; rev: reversed (once more under aggsortrev).
 */
static void walk_build(struct walk *w, struct d_prog *p,
		       const unsigned *aggv, unsigned n, bool byval, bool rev,
		       size_t **order)
{
	struct htab index = { 0 };
	size_t cap = 0, i;
	unsigned j;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->n = n;
	w->aggs = xcalloc(n, sizeof(*w->aggs));
	w->zero = xcalloc(n, sizeof(*w->zero));
	for (j = 0; j < n; j++) {
		struct agg *a = &p->aggs[aggv[j]];

		w->aggs[j] = a;
		w->zero[j] = xcalloc(agg_ndata(a), sizeof(int64_t));
		for (i = 0; i < a->n; i++) {
			struct sbuf k = { 0 };
			const struct aent *e = &a->ents[i];
			struct hent *h;
			size_t row;
			unsigned q;

			for (q = 0; q < e->nkeys; q++)
				d_key_add(&k, &e->keys[q]);
			h = d_ht_find(&index, k.b ? k.b : "", k.len);
			if (!h) {
				/* a row: n keys' entries and the entry */
				xgrow(&w->rows, &cap, w->nrows,
				      (n + 1) * sizeof(*w->rows));
				row = w->nrows++;
				memset(&w->rows[row * (n + 1)], 0,
				       (n + 1) * sizeof(*w->rows));
				w->rows[row * (n + 1) + n] = e;
				h = d_ht_insert(&index, k.b ? k.b : "", k.len);
				h->idx = row;
			}
			free(k.b);
			w->rows[h->idx * (n + 1) + j] = e;
		}
	}
	d_ht_clear(&index);
	w->sortpos = p->aggsortpos < n ? p->aggsortpos : 0;
	w->keypos = p->aggsortkeypos;
	w->keysort = p->aggsortkey;
	w->byval_only = byval;
	w->rev = (rev != p->aggsortrev) ? -1 : 1;
	*order = xmalloc((w->nrows ? w->nrows : 1) * sizeof(**order));
	for (i = 0; i < w->nrows; i++)
		(*order)[i] = i;
	sort_walk = w;
	qsort(*order, w->nrows, sizeof(**order), row_cmp);
	sort_walk = NULL;
}

static void walk_free(struct walk *w)
{
	for (unsigned j = 0; j < w->n; j++)
		free(w->zero[j]);
	free(w->zero);
	free(w->aggs);
	free(w->rows);
}

/* ------------------------------------------------------------------ */
/* Printing */

/* One bar of a distribution: the count divided by normal as libdtrace
 * divides it (unsigned), the bar from the raw count. */
void d_agg_quantline(struct sbuf *sb, int64_t val, uint64_t normal,
		     long double total, bool positives, bool negatives,
		     bool utf8)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned len = 40, depth;
	long double f;
	long long shown = (long long)((uint64_t)val / normal);

	if (!negatives) {
		if (positives && utf8) {
			d_quantline_utf8(sb, val, normal, total);
			return;
		}
		if (positives) {
			f = (fabsl((long double)val) * len) / total;
			depth = (unsigned)(f + 0.5);
		} else {
			depth = 0;
		}
		d_sb_printf(sb, "|%s%s %-9lld\n", ats + len - depth,
			    spaces + depth, shown);
		return;
	}
	if (!positives) {
		f = (fabsl((long double)val) * len) / total;
		depth = (unsigned)(f + 0.5);
		d_sb_printf(sb, "%s%s| %-9lld\n", spaces + depth,
			    ats + len - depth, shown);
		return;
	}
	/* both: half-length bars either side of a centre line */
	len /= 2;
	f = (fabsl((long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (val <= 0)
		d_sb_printf(sb, "%s%s|%*s %-9lld\n", spaces + 20 + depth,
			    ats + 20 + len - depth, (int)len, "", shown);
	else
		d_sb_printf(sb, "%20s|%s%s %-9lld\n", "", ats + 20 + len - depth,
			    spaces + 20 + depth, shown);
}

/*
 * The buckets a distribution shows: from the one before the first
 * non-zero to the one after the last (*first, *last), with the signs
 * and the total of the counts in that range (aggzoom: the largest over
 * 0.95, aggfmt.c).  All zero: [zf, zl].
 */
static void dist_range(const int64_t *d, int nb, int zf, int zl, bool zoom,
		       int *first, int *last, long double *total, bool *pos,
		       bool *neg)
{
	int f = 0, l = nb - 1, i;

	while (f < nb && d[f] == 0)
		f++;
	if (f == nb) {
		f = zf;
		l = zl;
	} else {
		if (f > 0)
			f--;
		while (l > 0 && d[l] == 0)
			l--;
		if (l < nb - 1)
			l++;
	}
	*total = 0;
	*pos = *neg = false;
	for (i = f; i <= l; i++) {
		*pos |= d[i] > 0;
		*neg |= d[i] < 0;
		d_dist_total(total, d[i], zoom);
	}
	*first = f;
	*last = l;
}

static void dist_header(struct sbuf *sb)
{
	d_sb_printf(sb, "\n%16s %41s %-9s\n", "value",
		    "------------- Distribution -------------", "count");
}

static void print_quantize(struct sbuf *sb, const int64_t *d, uint64_t normal,
			   const struct d_prog *p)
{
	int first, last, i;
	long double total;
	bool pos, neg;

	dist_range(d, QZ_NBUCKETS, QZ_ZERO - 1, QZ_ZERO + 1, p->aggzoom, &first,
		   &last, &total, &pos, &neg);
	dist_header(sb);
	for (i = first; i <= last; i++) {
		d_sb_printf(sb, "%16lld ", (long long)d_qz_bucketval(i));
		d_agg_quantline(sb, d[i], normal, total, pos, neg,
				p->encoding == ENC_UTF8);
	}
}

static void print_lquantize(struct sbuf *sb, const struct agg *a,
			    const int64_t *d, uint64_t normal,
			    const struct d_prog *p)
{
	int levels = a->lq_levels, first, last, i;
	long double total;
	bool pos, neg;

	dist_range(d, levels + 2, 0, 2, p->aggzoom, &first, &last, &total, &pos,
		   &neg);
	dist_header(sb);
	for (i = first; i <= last; i++) {
		char c[32];

		if (i == 0) {
			snprintf(c, sizeof(c), "< %d", (int)a->lq_base);
			d_sb_printf(sb, "%16s ", c);
		} else if (i == levels + 1) {
			snprintf(c, sizeof(c), ">= %d",
				 (int)(a->lq_base + levels * a->lq_step));
			d_sb_printf(sb, "%16s ", c);
		} else {
			d_sb_printf(sb, "%16d ",
				    (int)(a->lq_base + (i - 1) * a->lq_step));
		}
		d_agg_quantline(sb, d[i], normal, total, pos, neg,
				p->encoding == ENC_UTF8);
	}
}

/* llquantize(): "< factor^low", a row per bucket by its lower bound,
 * ">= factor^(high+1)", within the shown range. */
static void print_llquantize(struct sbuf *sb, const struct agg *a,
			     const int64_t *d, uint64_t normal,
			     const struct d_prog *p)
{
	int nb = (int)a->llq_nbuckets, first, last, b = 1;
	long double total;
	struct llq_walk w;
	bool pos, neg;
	char c[32];

	dist_range(d, nb, 0, 1, p->aggzoom, &first, &last, &total, &pos, &neg);
	dist_header(sb);
	llq_first(a, &w);
	if (first == 0) {
		snprintf(c, sizeof(c), "< %lld", (long long)w.value);
		d_sb_printf(sb, "%16s ", c);
		d_agg_quantline(sb, d[0], normal, total, pos, neg,
				p->encoding == ENC_UTF8);
	}
	while (w.order <= a->llq_high) {
		if (b >= first && b <= last) {
			d_sb_printf(sb, "%16lld ", (long long)w.value);
			d_agg_quantline(sb, d[b], normal, total, pos, neg,
				p->encoding == ENC_UTF8);
		}
		b++;
		llq_next(a, &w);
	}
	if (last < b)
		return;
	snprintf(c, sizeof(c), ">= %lld", (long long)w.value);
	d_sb_printf(sb, "%16s ", c);
	d_agg_quantline(sb, d[b], normal, total, pos, neg,
				p->encoding == ENC_UTF8);
}

/* dt_print_datum() for a key: width by record size; packed (agghist,
 * aggpack: aggfmt.c) a string is right-aligned in 16 columns. */
void d_agg_print_key(struct sbuf *sb, const struct d_prog *p,
		     const struct dv *k, bool packed)
{
	long long i;
	int w;

	if (k->k == K_STR && k->show) { /* a stack or a name: stack.c */
		d_stack_print(sb, p, k);
		return;
	}
	if (k->k == K_STR) {
		char *fr;

		d_sb_printf(sb, packed ? " %16s" : "  %-50s",
			    d_out_str(k, true, &fr));
		free(fr);
		return;
	}
	i = d_out_int(k, &w);
	d_sb_printf(sb, " %*lld", w, i);
}

/* A value in printa()'s default layout, divided by the normalization as
 * libdtrace divides each kind. */
static void print_value(struct sbuf *sb, const struct agg *a, const int64_t *d,
			uint64_t normal, const struct d_prog *p)
{
	switch (a->fn) {
	case AG_QUANTIZE:
		print_quantize(sb, d, normal, p);
		break;
	case AG_LQUANTIZE:
		print_lquantize(sb, a, d, normal, p);
		break;
	case AG_LLQUANTIZE:
		print_llquantize(sb, a, d, normal, p);
		break;
	case AG_AVG:
		d_sb_printf(sb, " %16lld",
			    (long long)(d[0] ? d[1] / (int64_t)normal / d[0]
					     : 0));
		break;
	case AG_STDDEV:
		d_sb_printf(sb, " %16llu",
			    (unsigned long long)stddev_of(d, normal));
		break;
	default:
		d_sb_printf(sb, " %16lld",
			    (long long)((uint64_t)d[0] / normal));
	}
}

/* The value printa()'s %@ conversion d prints. */
static struct dv fmt_value(const struct agg *a, const int64_t *d,
			   uint64_t normal, const struct pfseg *seg)
{
	bool sg = seg->conv == 'd' || seg->conv == 'i';

	switch (a->fn) {
	case AG_AVG:
		/* pfprint_average() divides unsigned */
		return d_dv_int(d[0] ? (int64_t)((uint64_t)d[1] / normal /
						 (uint64_t)d[0])
				     : 0,
				8, true);
	case AG_STDDEV:
		return d_dv_int((int64_t)stddev_of(d, normal), 8, false);
	case AG_COUNT:
		return d_dv_int((int64_t)((uint64_t)d[0] / normal), 8, false);
	default:
		if (sg)
			return d_dv_int(d[0] / (int64_t)normal, 8, true);
		return d_dv_int((int64_t)((uint64_t)d[0] / normal), 8, true);
	}
}

/* One row of printa() with a format: dt_printf_format() with the keys
 * for the plain conversions and the k-th aggregation for the k-th %@. */
static void print_row_fmt(const struct walk *w, size_t row,
			  const struct pfmt *pf, struct sbuf *sb)
{
	const struct aent *ke = w->rows[row * (w->n + 1) + w->n];
	unsigned s, key = 0, val = 0;

	for (s = 0; s < pf->nseg; s++) {
		const struct pfseg *d = &pf->seg[s];
		int width = d->width, prec = d->prec;
		struct dv v;

		d_sb_add(sb, d->prefix, d->preflen);
		if (!d->conv) {
			if (pf->nseg == 1)
				break;
			continue;
		}
		if (d->conv == '%') {
			d_sb_puts(sb, "%");
			continue;
		}
		if (d->flags & PF_DYNW)
			width = key < ke->nkeys ? (int)ke->keys[key++].i : 0;
		if (d->flags & PF_DYNP)
			prec = key < ke->nkeys ? (int)ke->keys[key++].i : 0;
		if (d->flags & PF_AGG) {
			const struct agg *a;
			const int64_t *data;

			if (val >= w->n)
				break;
			a = w->aggs[val];
			data = row_data(w, row, val);
			val++;
			if (a->fn == AG_QUANTIZE) {
				print_quantize(sb, data, a->normal,
					       w->p);
				continue;
			}
			if (a->fn == AG_LQUANTIZE) {
				print_lquantize(sb, a, data, a->normal,
						w->p);
				continue;
			}
			if (a->fn == AG_LLQUANTIZE) {
				print_llquantize(sb, a, data, a->normal,
						 w->p);
				continue;
			}
			v = fmt_value(a, data, a->normal, d);
		} else if (key < ke->nkeys) {
			v = ke->keys[key++];
		} else {
			break;
		}
		if (v.k == K_INT)
			v.tn = 1; /* %c of a key: perhaps a traced byte */
		d_pf_one(sb, d, width, prec, &v, true);
	}
}

/*
 * printa(): one aggregation or several, with a format or in the default
 * layout.  The default layout is a line per row: the keys, then each
 * aggregation's value; printa(@a) alone starts with an empty line,
 * printa(@a, @b) does not (dt_consume.c's two paths).  Zero-filled
 * values are printed unnormalized, as libdtrace's zeroed data is.
 */
/* ------------------------------------------------------------------ */
/* -x oformat=json */

static void json_key(struct sbuf *sb, const struct dv *k)
{
	int w;

	if (k->k == K_STR && k->show == DV_STACK) {
		d_stack_json(sb, k);
		return;
	}
	if (k->k == K_STR) {
		/* a traced process's bytes made safe first, as in text */
		char *fr;
		const char *s = d_out_str(k, true, &fr);

		d_json_str(sb, s, strlen(s));
		free(fr);
		return;
	}
	d_sb_printf(sb, "%lld", d_out_int(k, &w));
}

static void json_bucket(struct sbuf *sb, bool *first, const char *what,
			long long bound, int64_t count, uint64_t normal)
{
	if (!count)
		return;
	d_sb_printf(sb, "%s{\"%s\":%lld,\"count\":%lld}", *first ? "" : ",",
		    what, bound, (long long)((uint64_t)count / normal));
	*first = false;
}

/*
 * A value as JSON: the number printa() prints (normalized the same way),
 * or for a distribution {"buckets":[...]} with every non-empty bucket as
 * {"value":lower bound,"count":n}, the one below the range as
 * {"below":bound,"count":n}.
 */
static void json_value(struct sbuf *sb, const struct agg *a, const int64_t *d,
		       uint64_t normal)
{
	bool first = true;
	int i;

	switch (a->fn) {
	case AG_QUANTIZE:
		d_sb_puts(sb, "{\"buckets\":[");
		for (i = 0; i < QZ_NBUCKETS; i++)
			json_bucket(sb, &first, "value",
				    (long long)d_qz_bucketval(i), d[i], normal);
		d_sb_puts(sb, "]}");
		break;
	case AG_LQUANTIZE:
		d_sb_puts(sb, "{\"buckets\":[");
		json_bucket(sb, &first, "below", a->lq_base, d[0], normal);
		for (i = 1; i <= a->lq_levels + 1; i++)
			json_bucket(sb, &first, "value",
				    (long long)a->lq_base +
					    (long long)(i - 1) * a->lq_step,
				    d[i], normal);
		d_sb_puts(sb, "]}");
		break;
	case AG_LLQUANTIZE: {
		struct llq_walk w;
		unsigned b = 1;

		llq_first(a, &w);
		d_sb_puts(sb, "{\"buckets\":[");
		json_bucket(sb, &first, "below", w.value, d[0], normal);
		while (w.order <= a->llq_high) {
			json_bucket(sb, &first, "value", w.value, d[b++],
				    normal);
			llq_next(a, &w);
		}
		json_bucket(sb, &first, "value", w.value, d[b], normal);
		d_sb_puts(sb, "]}");
		break;
	}
	case AG_AVG:
		d_sb_printf(sb, "%lld",
			    (long long)(d[0] ? d[1] / (int64_t)normal / d[0]
					     : 0));
		break;
	case AG_STDDEV:
		d_sb_printf(sb, "%llu",
			    (unsigned long long)stddev_of(d, normal));
		break;
	default:
		d_sb_printf(sb, "%lld", (long long)((uint64_t)d[0] / normal));
	}
}

/* One row: {"aggregation":"name","keys":[...],"value":V}, or for several
 * aggregations {"aggregations":[...],"keys":[...],"values":[...]}. */
static void json_row(const struct walk *w, size_t row, struct sbuf *sb)
{
	const struct aent *ke = w->rows[row * (w->n + 1) + w->n];
	unsigned j, k;

	d_sb_puts(sb, w->n == 1 ? "{\"aggregation\":" : "{\"aggregations\":[");
	for (j = 0; j < w->n; j++) {
		if (j)
			d_sb_puts(sb, ",");
		d_json_str(sb, w->aggs[j]->name, strlen(w->aggs[j]->name));
	}
	d_sb_puts(sb, w->n == 1 ? ",\"keys\":[" : "],\"keys\":[");
	for (k = 0; k < ke->nkeys; k++) {
		if (k)
			d_sb_puts(sb, ",");
		json_key(sb, &ke->keys[k]);
	}
	d_sb_puts(sb, w->n == 1 ? "],\"value\":" : "],\"values\":[");
	for (j = 0; j < w->n; j++) {
		const struct aent *e = w->rows[row * (w->n + 1) + j];

		if (j)
			d_sb_puts(sb, ",");
		json_value(sb, w->aggs[j], row_data(w, row, j),
			   e ? w->aggs[j]->normal : 1);
	}
	d_sb_puts(sb, w->n == 1 ? "}\n" : "]}\n");
}

static void print_rows(struct d_prog *p, const unsigned *aggv,
		       unsigned naggv, const struct pfmt *pf, struct sbuf *sb)
{
	struct aggfmt fmt;
	struct walk w;
	size_t *order, i;
	unsigned j, k;

	walk_build(&w, p, aggv, naggv, false, false, &order);
	/* agghist, aggpack: printa(@a) and the printing at the end only, as
	 * libdtrace computes their totals and ranges for its sorted walk of
	 * one aggregation, not for the joined walk of several */
	memset(&fmt, 0, sizeof(fmt));
	if (!pf && !p->json && naggv == 1)
		d_aggfmt_begin(&fmt, p, w.aggs[0]);
	for (i = 0; i < w.nrows; i++) {
		size_t row = order[i];
		const struct aent *ke = w.rows[row * (naggv + 1) + naggv];

		if (pf) {
			print_row_fmt(&w, row, pf, sb);
			continue;
		}
		if (p->json) {
			json_row(&w, row, sb);
			continue;
		}
		if (fmt.hist || fmt.pack) {
			d_aggfmt_row(&fmt, sb, ke, row_data(&w, row, 0));
			continue;
		}
		for (k = 0; k < ke->nkeys; k++)
			d_agg_print_key(sb, p, &ke->keys[k], false);
		for (j = 0; j < naggv; j++) {
			const struct aent *e = w.rows[row * (naggv + 1) + j];

			print_value(sb, w.aggs[j], row_data(&w, row, j),
				    e ? w.aggs[j]->normal : 1, p);
		}
		d_sb_puts(sb, "\n");
	}
	free(order);
	walk_free(&w);
}

void d_printa(struct d_prog *p, const unsigned *aggv, unsigned naggv,
	      const struct pfmt *pf, struct sbuf *sb)
{
	if (!pf && naggv == 1 && !p->json)
		d_sb_puts(sb, "\n");
	print_rows(p, aggv, naggv, pf, sb);
	for (unsigned j = 0; j < naggv; j++)
		p->aggs[aggv[j]].printed = true;
}

void d_agg_clear(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		memset(a->ents[i].data, 0, agg_ndata(a) * sizeof(int64_t));
}

/* trunc(@a, n): keep the n largest (n < 0: the -n smallest). */
void d_agg_trunc(struct d_prog *p, struct agg *a, int64_t keep)
{
	unsigned varid = (unsigned)(a - p->aggs);
	struct walk w;
	size_t *ix, i, nkeep;
	bool *kept;
	struct aent *ents;
	size_t n = 0;

	if (keep == 0) {
		d_agg_free_entries(a);
		return;
	}
	/* one aggregation: row i is entry i */
	walk_build(&w, p, &varid, 1, true, keep > 0, &ix);
	walk_free(&w);
	nkeep = keep < 0 ? 0 - (uint64_t)keep : (uint64_t)keep;
	if (nkeep >= a->n) {
		free(ix);
		return;
	}
	kept = xcalloc(a->n, sizeof(*kept));
	for (i = 0; i < nkeep; i++)
		kept[ix[i]] = true;
	ents = xmalloc(a->n * sizeof(*ents));
	for (i = 0; i < a->n; i++) {
		if (kept[i]) {
			ents[n++] = a->ents[i];
		} else {
			unsigned k;

			for (k = 0; k < a->ents[i].nkeys; k++)
				if (a->ents[i].keys[k].k == K_STR)
					free((char *)a->ents[i].keys[k].s);
			free(a->ents[i].keys);
			free(a->ents[i].data);
		}
	}
	free(a->ents);
	free(kept);
	free(ix);
	a->ents = ents;
	a->cap = a->n;
	a->n = n;
	/* rebuild the index */
	d_ht_clear(&a->index);
	for (i = 0; i < n; i++) {
		struct sbuf k = { 0 };
		struct hent *h;
		unsigned j;

		for (j = 0; j < ents[i].nkeys; j++)
			d_key_add(&k, &ents[i].keys[j]);
		h = d_ht_insert(&a->index, k.b ? k.b : "", k.len);
		h->idx = i;
		free(k.b);
	}
}

void d_print_aggs(struct d_prog *p, FILE *out)
{
	struct sbuf sb = { 0 };
	unsigned i;

	if (!p)
		return;
	/* dtrace.c's main(): a newline when tracing stops, then
	 * dtrace_aggregate_print() of what printa() did not print (JSON:
	 * only the rows) */
	if (!p->json)
		d_sb_puts(&sb, "\n");
	for (i = 0; i < p->naggs; i++) {
		unsigned j = p->aggsortrev ? p->naggs - 1 - i : i;

		if (p->aggs[j].printed || !p->aggs[j].defined)
			continue;
		print_rows(p, &j, 1, NULL, &sb);
	}
	if (sb.len)
		fwrite(sb.b, 1, sb.len, out);
	free(sb.b);
}
