// SPDX-License-Identifier: MIT
/*
 * agg.c - the aggregations of the D language (dtrace-G/d/): the store
 * behind @name[keys] = count() / sum() / avg() / min() / max() /
 * quantize() / lquantize(), and printa(), clear(), trunc() and the
 * printing at the end (d_print_aggs()).
 *
 * Each aggregation keeps its entries in an array, in creation order,
 * indexed by a hash table on the serialized keys (value.c).  An entry's
 * data is one int64_t per value (avg: count and sum; quantize: 127
 * power-of-two buckets, bucket 63 holding zero; lquantize: levels + 2
 * buckets, below the range and above it), updated in place by
 * d_agg_update() when a clause fires.
 *
 * Layouts, all from illumos libdtrace: keys and values from dt_consume.c
 * (dt_print_datum's width table), quantize()/lquantize() from
 * dt_print_quantize/dt_print_lquantize/dt_print_quantline, the sort order
 * from dt_aggregate.c (value, then keys; the aggsortkey and aggsortrev
 * options change it).  Unprinted aggregations are printed at the end in
 * the order the program names them.
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

static int64_t qz_bucketval(int b)
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
 * The entry of keys in a, made (zeroed, min/max at their identity) when
 * there is none; string keys are copied.  d_agg_update() and the merge
 * of what the kernel aggregated (kplan.c) both come here.
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
		if (a->n == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 16;
			a->ents = d_xrealloc(a->ents, a->cap * sizeof(*a->ents));
		}
		e = &a->ents[a->n];
		e->nkeys = nkeys;
		e->keys = d_xcalloc(nkeys, sizeof(*e->keys));
		for (i = 0; i < nkeys; i++) {
			e->keys[i] = keys[i];
			if (keys[i].k == K_STR)
				e->keys[i].s = d_xstrdup(keys[i].s);
		}
		e->data = d_xmalloc(agg_ndata(a) * sizeof(*e->data));
		agg_init_data(a, e->data);
		h = d_ht_insert(&a->index, k.b ? k.b : "", k.len);
		h->idx = a->n++;
	}
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
		keys[i] = d_eval(x, st->keys[i]);
		if (keys[i].k == K_STR && strlen(keys[i].s) >= x->p->strsize)
			keys[i].s = d_ar_strndup(&x->scratch, keys[i].s,
						 x->p->strsize - 1);
	}
	x->action = st->action + (int)st->nkeys;
	if (st->nargs)
		v = d_eval(x, st->args[0]);
	if (a->fn == AG_QUANTIZE && st->nargs > 1)
		incr = d_eval(x, st->args[1]);
	if (a->fn == AG_LQUANTIZE && st->nargs > 4)
		incr = d_eval(x, st->args[4]);
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
				if (v.i <= qz_bucketval(b))
					break;
		} else {
			for (b = QZ_ZERO; b < QZ_NBUCKETS - 1; b++)
				if (v.i < qz_bucketval(b + 1))
					break;
		}
		d[b] += incr.i;
		break;
	}
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

/* dt_aggregate_valcmp() and friends */
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

static int cmp3(long double l, long double r)
{
	return l < r ? -1 : l > r ? 1 : 0;
}

static int valcmp(const struct agg *a, const int64_t *l, const int64_t *r)
{
	int c;
	int i;

	switch (a->fn) {
	case AG_AVG:
		return cmp3((long double)(l[0] ? l[1] / l[0] : 0),
			    (long double)(r[0] ? r[1] / r[0] : 0));
	case AG_QUANTIZE: {
		long double lt = 0, rt = 0;

		for (i = 0; i < QZ_NBUCKETS; i++) {
			lt += (long double)qz_bucketval(i) * (long double)l[i];
			rt += (long double)qz_bucketval(i) * (long double)r[i];
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
	default:
		return l[0] < r[0] ? -1 : l[0] > r[0] ? 1 : 0;
	}
}

/* dt_aggregate_keycmp(): fewer keys first; per key the smaller record
 * first (an integer before a string), integers as unsigned, strings by
 * bytes. */
static int keycmp(const struct aent *l, const struct aent *r)
{
	unsigned i;

	if (l->nkeys != r->nkeys)
		return l->nkeys < r->nkeys ? -1 : 1;
	for (i = 0; i < l->nkeys; i++) {
		const struct dv *a = &l->keys[i], *b = &r->keys[i];
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

struct sortctx {
	const struct agg *a;
	const struct aent *ents;
	int rev;     /* 1 or -1 */
	bool bykey;
};

static struct sortctx *sort_ctx; /* qsort() has no argument */

static int ent_cmp(const void *lp, const void *rp)
{
	const struct sortctx *s = sort_ctx;
	const struct aent *l = &s->ents[*(const size_t *)lp];
	const struct aent *r = &s->ents[*(const size_t *)rp];
	int c;

	if (s->bykey) {
		c = keycmp(l, r);
		if (c)
			return c * s->rev;
		return valcmp(s->a, l->data, r->data) * s->rev;
	}
	c = valcmp(s->a, l->data, r->data);
	if (c)
		return c * s->rev;
	return keycmp(l, r) * s->rev;
}

/* Entry indices in printing order; the caller frees. */
static size_t *agg_sorted(const struct d_prog *p, const struct agg *a,
			  bool rev)
{
	size_t *ix = d_xmalloc((a->n ? a->n : 1) * sizeof(*ix));
	struct sortctx s = { a, a->ents, 1, p->aggsortkey };
	size_t i;

	if (p->aggsortrev)
		rev = !rev;
	s.rev = rev ? -1 : 1;
	for (i = 0; i < a->n; i++)
		ix[i] = i;
	sort_ctx = &s;
	qsort(ix, a->n, sizeof(*ix), ent_cmp);
	sort_ctx = NULL;
	return ix;
}

/* dt_print_quantline() */
static void quantline(struct sbuf *sb, int64_t val, long double total,
		      bool positives, bool negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned len = 40, depth;
	long double f;

	if (!negatives) {
		if (positives) {
			f = (fabsl((long double)val) * len) / total;
			depth = (unsigned)(f + 0.5);
		} else {
			depth = 0;
		}
		d_sb_printf(sb, "|%s%s %-9lld\n", ats + len - depth,
			    spaces + depth, (long long)val);
		return;
	}
	if (!positives) {
		f = (fabsl((long double)val) * len) / total;
		depth = (unsigned)(f + 0.5);
		d_sb_printf(sb, "%s%s| %-9lld\n", spaces + depth,
			    ats + len - depth, (long long)val);
		return;
	}
	/* both: half-length bars either side of a centre line */
	len /= 2;
	f = (fabsl((long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (val <= 0)
		d_sb_printf(sb, "%s%s|%*s %-9lld\n", spaces + 20 + depth,
			    ats + 20 + len - depth, (int)len, "",
			    (long long)val);
	else
		d_sb_printf(sb, "%20s|%s%s %-9lld\n", "", ats + 20 + len - depth,
			    spaces + 20 + depth, (long long)val);
}

static void print_quantize(struct sbuf *sb, const int64_t *d)
{
	int first = 0, last = QZ_NBUCKETS - 1, i;
	long double total = 0;
	bool pos = false, neg = false;

	while (first < QZ_NBUCKETS - 1 && d[first] == 0)
		first++;
	if (first == QZ_NBUCKETS - 1) {
		first = QZ_ZERO - 1;
		last = QZ_ZERO + 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && d[last] == 0)
			last--;
		if (last < QZ_NBUCKETS - 1)
			last++;
	}
	for (i = first; i <= last; i++) {
		pos |= d[i] > 0;
		neg |= d[i] < 0;
		total += fabsl((long double)d[i]);
	}
	d_sb_printf(sb, "\n%16s %41s %-9s\n", "value",
		    "------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		d_sb_printf(sb, "%16lld ", (long long)qz_bucketval(i));
		quantline(sb, d[i], total, pos, neg);
	}
}

static void print_lquantize(struct sbuf *sb, const struct agg *a,
			    const int64_t *d)
{
	int levels = a->lq_levels, first = 0, last = levels + 1, i;
	long double total = 0;
	bool pos = false, neg = false;

	while (first <= levels + 1 && d[first] == 0)
		first++;
	if (first > levels + 1) {
		first = 0;
		last = 2;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && d[last] == 0)
			last--;
		if (last < levels + 1)
			last++;
	}
	for (i = first; i <= last; i++) {
		pos |= d[i] > 0;
		neg |= d[i] < 0;
		total += fabsl((long double)d[i]);
	}
	d_sb_printf(sb, "\n%16s %41s %-9s\n", "value",
		    "------------- Distribution -------------", "count");
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
		quantline(sb, d[i], total, pos, neg);
	}
}

/* dt_print_datum() for a key: width by record size. */
static void print_key(struct sbuf *sb, const struct dv *k)
{
	if (k->k == K_STR) {
		d_sb_printf(sb, "  %-50s", k->s);
		return;
	}
	switch (k->sz) {
	case 1:
		d_sb_printf(sb, " %3d", (int)(uint8_t)k->i);
		break;
	case 2:
		d_sb_printf(sb, " %5d", (int)(uint16_t)k->i);
		break;
	case 4:
		d_sb_printf(sb, " %8d", (int)(int32_t)k->i);
		break;
	default:
		d_sb_printf(sb, " %16lld", (long long)k->i);
	}
}

static void print_value(struct sbuf *sb, const struct agg *a, const int64_t *d)
{
	switch (a->fn) {
	case AG_QUANTIZE:
		print_quantize(sb, d);
		break;
	case AG_LQUANTIZE:
		print_lquantize(sb, a, d);
		break;
	case AG_AVG:
		d_sb_printf(sb, " %16lld", (long long)(d[0] ? d[1] / d[0] : 0));
		break;
	default:
		d_sb_printf(sb, " %16lld", (long long)d[0]);
	}
}

/* dt_print_aggs() for every entry of one aggregation. */
void d_print_agg(struct d_prog *p, struct agg *a, struct sbuf *sb)
{
	size_t *ix = agg_sorted(p, a, false), i;
	unsigned k;

	for (i = 0; i < a->n; i++) {
		const struct aent *e = &a->ents[ix[i]];

		for (k = 0; k < e->nkeys; k++)
			print_key(sb, &e->keys[k]);
		print_value(sb, a, e->data);
		d_sb_puts(sb, "\n");
	}
	free(ix);
}

/* printa() with a format: dt_printf_format() once per entry, keys for
 * the plain conversions, the value for %@. */
void d_printa_fmt(struct d_prog *p, struct agg *a, const struct pfmt *pf,
		       struct sbuf *sb)
{
	size_t *ix = agg_sorted(p, a, false), i;

	for (i = 0; i < a->n; i++) {
		const struct aent *e = &a->ents[ix[i]];
		unsigned s, key = 0;

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
				width = key < e->nkeys ? (int)e->keys[key++].i
						       : 0;
			if (d->flags & PF_DYNP)
				prec = key < e->nkeys ? (int)e->keys[key++].i
						      : 0;
			if (d->flags & PF_AGG) {
				if (a->fn == AG_QUANTIZE) {
					print_quantize(sb, e->data);
					continue;
				}
				if (a->fn == AG_LQUANTIZE) {
					print_lquantize(sb, a, e->data);
					continue;
				}
				/* pfprint_average() divides unsigned */
				if (a->fn == AG_AVG)
					v = d_dv_int(e->data[0]
							   ? (int64_t)((uint64_t)e->data[1] /
								       (uint64_t)e->data[0])
							   : 0,
						     8, true);
				else
					v = d_dv_int(e->data[0], 8,
						     a->fn != AG_COUNT);
			} else if (key < e->nkeys) {
				v = e->keys[key++];
			} else {
				break;
			}
			d_pf_one(sb, d, width, prec, &v);
		}
	}
	free(ix);
	a->printed = true;
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
	size_t *ix, i, nkeep;
	bool *kept;
	struct aent *ents;
	size_t n = 0;

	if (keep == 0) {
		d_agg_free_entries(a);
		return;
	}
	ix = agg_sorted(p, a, keep > 0);
	nkeep = (size_t)(keep < 0 ? -keep : keep);
	if (nkeep >= a->n) {
		free(ix);
		return;
	}
	kept = d_xcalloc(a->n, sizeof(*kept));
	for (i = 0; i < nkeep; i++)
		kept[ix[i]] = true;
	ents = d_xmalloc(a->n * sizeof(*ents));
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
	 * dtrace_aggregate_print() of what printa() did not print */
	d_sb_puts(&sb, "\n");
	for (i = 0; i < p->naggs; i++) {
		unsigned j = p->aggsortrev ? p->naggs - 1 - i : i;

		if (p->aggs[j].printed || !p->aggs[j].defined)
			continue;
		d_print_agg(p, &p->aggs[j], &sb);
	}
	if (sb.len)
		fwrite(sb.b, 1, sb.len, out);
	free(sb.b);
}
