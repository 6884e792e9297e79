// SPDX-License-Identifier: MIT
/*
 * spec.c - speculative tracing in the D language (dtrace-G/d/):
 * speculation(), speculate(), commit(), discard(), the nspec and
 * specsize options, and the drop counts dtrace reports.
 *
 * A program has nspec speculative buffers (-x nspec, 1 by default),
 * each inactive or active.  speculation() activates the first inactive
 * one and returns its ID (1..nspec), or 0 when none is free: a "failed
 * speculation (no speculative buffer available)".  A clause that calls
 * speculate(ID) sends its record - the default line unless quiet, and
 * what its data-recording actions print - to that buffer instead of the
 * output, once the clause completes (stmt.c builds a record first and
 * hands it here).  A record that would take the buffer past specsize
 * bytes (-x specsize, 4m by default; counted in bytes of formatted
 * output, where DTrace counts its binary records) is dropped: a
 * "speculative drop".  speculate(0), or of a buffer not active, drops the
 * record silently, as DTrace does; an ID past nspec is an illegal
 * operation.
 *
 * commit(ID) appends the buffer's records to the output, in the order
 * they were speculated, after the committing clause's own record;
 * discard(ID) throws them away.  Either frees the buffer at its
 * statement (stmt.c), so a discard() or commit() after it in the clause
 * finds nothing and a speculation() may take it again.  Our consumer
 * runs clauses one at a time, so a buffer is free again at once:
 * DTrace's "available buffer(s) still busy" (a commit still being
 * copied on other CPUs) cannot happen.  Buffers neither committed nor
 * discarded when tracing stops are discarded.
 *
 * The compiler enforces DTrace's rules on a clause (textual order, if
 * bodies included): speculate() at most once and before any
 * data-recording action; no aggregation, exit(), commit() or discard()
 * after it; no data-recording action in a clause with commit().
 *
 * Drops are reported on the error stream as dtrace(1) reports them,
 * summed since the last report: "dtrace: 2 failed speculations (no
 * speculative buffer available)", "dtrace: 1 speculative drop", and
 * faults in ERROR's own clauses, "dtrace: 1 error in ERROR probe
 * enabling" (stmt.c counts them) - at most
 * once a second while tracing (as DTrace's status interval), and when
 * tracing stops (d_report_drops()).
 *
 * Held generations.  Where the kernel keeps the buffers' words
 * (doc/DESIGN.md §8, "Speculations in the kernel": one word per
 * ID, bit 0 active, bits 1-63 a count that only grows; speculation() a
 * fetch-or of the active bit, speculate() a fetch-add of 2, commit()
 * and discard() a fetch-and clearing the bit), the records come tagged
 * and are held here until their buffer closes (d_kspec_*()).  A
 * generation of ID opens at the count c0 its speculation() found; the
 * speculate()s that found the word active took the sequences c0 .. n - 1,
 * every one of them and no other, where n is the count the commit() or
 * discard() that closed it found.
 *  - d_kspec_open(): a generation opens at c0 (ID 0: a failed
 *    speculation, counted at the tag's own place, as d_spec_alloc()
 *    counts it).
 *  - d_kspec_hold(): a speculate() tag that found the word active
 *    holds its record (or a hole: a sequence whose clause recorded
 *    nothing, or faulted after the tag) at {ID, seq}.  One that found
 *    it inactive is not handed over: dropped silently, as d_spec_get()'s
 *    NULL drops it.
 *  - d_kspec_close(): which generation a close at n closed, its count
 *    alone does not say.  The generations of an ID follow one another,
 *    c0 <= n of each <= c0 of the next, but a close may find the same
 *    count as the one before it (an empty generation, its speculation()
 *    taken with no speculate() between), the sequences of one
 *    generation may run on into the next one's with no gap (no stale
 *    speculate() between), and a generation's close may find a count
 *    that is also a later one's c0 (no gap either): no test on c0 and
 *    n alone pairs them.  Their order does: the k-th close of an ID
 *    closed its k-th generation.  So the caller hands a close over
 *    only once every tag whose step came before its own is in hand (a
 *    barrier, one more read, the look ahead), the other closes among
 *    them told by d_kspec_ahead(), and the close takes the open
 *    generation whose place among the open ones, by c0, is its own
 *    among the closes in hand and not yet run, by n: every open
 *    generation before its own was closed by a step before its own,
 *    at a lower count or the same.  Two closes at the same count, both
 *    of whose hits may have run first (the words allow either order),
 *    take theirs in the order they are run.  The records c0 .. n - 1
 *    in hand are then decided in sequence order as d_spec_record()
 *    decides them in time order: one that would take the buffer past
 *    specsize is a drop, counted by commit() and discard() alike; a
 *    commit() writes the others out, after its clause's own record
 *    (the caller's).  Where no generation fits (c0 <= n <= the next
 *    one's c0), a tag was lost with its record (the run's drops say
 *    so): the close takes the records from the highest n its ID
 *    closed at.
 *  - d_kspec_end(p, until): generations never closed are discarded,
 *    their drops decided and counted, as the buffers d_spec_free_all()
 *    frees had counted theirs; but a hold handed over ahead of its place
 *    (the caller gives it its hit's stamp) whose place the walk never
 *    ran (stamped after until, an exit()'s stamp) is forgotten, not
 *    counted: the user space path never met it.  A hold handed over at
 *    its place has run (the caller gives it stamp 0): a read without a
 *    barrier runs what it drained, so a hold run there may be stamped
 *    after an exit() a later read meets.
 *  - d_kspec_lost(): a record was lost after its step (a full ring, the
 *    drops' key 0).  A lost tag cannot always be seen (a lost open or
 *    close shifts the pairing for the rest of its ID's run), so the
 *    pairing is no longer trusted: every record held, and every one
 *    handed over from then on, is counted as a drop, no close prints,
 *    and the run says once "dtrace: speculation buffers discarded after
 *    lost records" (doc/DESIGN.md: the lead's decision).  Failed
 *    speculations are still counted at their place.
 * Drops are decided at the close, not at each record's place: which
 * generation a record is of, nothing says before that (above).  The
 * counts are the same; only a once-a-second report falling between a
 * drop's speculate() and its close says it later than the user space
 * path does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

#define SPEC_DEFAULT_SIZE (4u << 20)
#define NSEC_PER_SEC 1000000000ULL

/* A size option (specsize, bufsize): bytes with an optional k/m/g suffix. */
int d_parse_size(const char *s, size_t *bytes)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = s ? strtoull(s, &end, 10) : 0;
	if (!s || errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'g':
	case 'G':
		v <<= 10;
		/* fall through */
	case 'm':
	case 'M':
		v <<= 10;
		/* fall through */
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	default:
		break;
	}
	if (*end || v > (1ULL << 30))
		return -1;
	*bytes = (size_t)v;
	return 0;
}

/* The buffers, made on first use with the options then in force. */
static void spec_init(struct d_prog *p)
{
	if (p->specs || !p->nspec)
		return;
	p->specs = xcalloc(p->nspec, sizeof(*p->specs));
}

int64_t d_spec_alloc(struct d_prog *p)
{
	spec_init(p);
	for (unsigned i = 0; i < p->nspec; i++)
		if (!p->specs[i].active) {
			p->specs[i].active = true;
			p->specs[i].buf.len = 0;
			return (int64_t)i + 1;
		}
	p->spec_unavail++;
	return 0;
}

/* The buffer of ID id, NULL when 0 or not active; past nspec faults. */
struct dspec *d_spec_get(struct ectx *x, int64_t id)
{
	struct d_prog *p = x->p;

	if (id == 0)
		return NULL;
	if (id < 0 || (uint64_t)id > p->nspec)
		d_fault(x, FLT_ILLOP, 0);
	spec_init(p);
	return p->specs[id - 1].active ? &p->specs[id - 1] : NULL;
}

void d_spec_record(struct d_prog *p, struct dspec *s, const char *rec,
		   size_t len)
{
	size_t max = p->specsize_set ? p->specsize : SPEC_DEFAULT_SIZE;

	if (!s)
		return;
	if (s->buf.len + len > max) {
		p->spec_drops++;
		return;
	}
	d_sb_add(&s->buf, rec, len);
}

void d_spec_free(struct dspec *s)
{
	s->active = false;
	s->buf.len = 0;
}

static void report(FILE *err, uint64_t n, const char *what,
		   const char *detail)
{
	if (n && err)
		fprintf(err, "dtrace: %" PRIu64 " %s%s%s\n", n, what,
			n == 1 ? "" : "s", detail);
}

void d_report_drops(struct d_prog *p, FILE *err)
{
	if (!p)
		return;
	report(err, p->spec_unavail - p->spec_unavail_told,
	       "failed speculation", " (no speculative buffer available)");
	report(err, p->spec_drops - p->spec_drops_told, "speculative drop", "");
	/* faults in ERROR's clauses (stmt.c), as DTrace's DBLERROR drops */
	report(err, p->dblerrors - p->dblerrors_told, "error",
	       " in ERROR probe enabling");
	p->spec_unavail_told = p->spec_unavail;
	p->spec_drops_told = p->spec_drops;
	p->dblerrors_told = p->dblerrors;
}

/* While tracing: report at most once a second (firing time, ns), the
 * first time a second after the first firing. */
void d_spec_tick(struct d_prog *p, uint64_t now, FILE *err)
{
	if (!p->drops_told_at) {
		p->drops_told_at = now ? now : 1;
		return;
	}
	if (p->spec_unavail == p->spec_unavail_told &&
	    p->spec_drops == p->spec_drops_told &&
	    p->dblerrors == p->dblerrors_told)
		return;
	if (now - p->drops_told_at < NSEC_PER_SEC)
		return;
	p->drops_told_at = now;
	d_report_drops(p, err);
}

void d_spec_free_all(struct d_prog *p)
{
	for (unsigned i = 0; p->specs && i < p->nspec; i++)
		free(p->specs[i].buf.b);
	free(p->specs);
	p->specs = NULL;
	for (unsigned i = 0; p->kspecs && i < p->nspec; i++) {
		struct dkspec *k = &p->kspecs[i];

		for (size_t j = 0; j < k->nh; j++)
			free(k->h[j].rec);
		free(k->h);
		free(k->g);
		free(k->pend);
	}
	free(p->kspecs);
	p->kspecs = NULL;
}

/* ------------------------------------------------------------------ */
/* Held generations */

/* ID's held state, NULL for 0 or past nspec (the kernel faulted) */
static struct dkspec *kspec(struct d_prog *p, uint32_t id)
{
	if (!id || id > p->nspec)
		return NULL;
	if (!p->kspecs)
		p->kspecs = xcalloc(p->nspec, sizeof(*p->kspecs));
	return &p->kspecs[id - 1];
}

void d_kspec_open(struct d_prog *p, uint32_t id, uint64_t c0)
{
	struct dkspec *k;

	if (!id) {
		p->spec_unavail++;
		return;
	}
	k = kspec(p, id);
	if (k && !p->kspec_lost)
		PUSH(k->g, k->ng, c0);
}

void d_kspec_hold(struct d_prog *p, uint32_t id, uint64_t seq, uint64_t stamp,
		  const char *rec, size_t len)
{
	struct dkspec *k = kspec(p, id);
	struct dkheld h = { .seq = seq, .stamp = stamp };

	if (!k)
		return;
	if (p->kspec_lost) {
		p->spec_drops += rec && len; /* an empty one never drops */
		return;
	}
	if (rec) {
		h.rec = xmalloc(len + 1);
		memcpy(h.rec, rec, len);
		h.len = len;
	}
	PUSH(k->h, k->nh, h);
}

static int by_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct dkheld *)a)->seq;
	uint64_t y = ((const struct dkheld *)b)->seq;

	return x < y ? -1 : x > y;
}

/* Decide k's held records lo <= seq < hi in sequence order, as
 * d_spec_record() does in time order (drops counted), the kept ones
 * into out unless it is NULL; then forget them. */
static void decide(struct d_prog *p, struct dkspec *k, uint64_t lo, uint64_t hi,
		   struct sbuf *out)
{
	size_t max = p->specsize_set ? p->specsize : SPEC_DEFAULT_SIZE;
	size_t used = 0, n = 0;

	if (k->nh > 1) /* (qsort() of a NULL array is undefined) */
		qsort(k->h, k->nh, sizeof(*k->h), by_seq);
	for (size_t i = 0; i < k->nh; i++) {
		struct dkheld *h = &k->h[i];

		if (h->seq < lo || h->seq >= hi) {
			k->h[n++] = *h;
			continue;
		}
		if (h->rec && used + h->len > max) {
			p->spec_drops++;
		} else if (h->rec) {
			used += h->len;
			if (out)
				d_sb_add(out, h->rec, h->len);
		}
		free(h->rec);
	}
	k->nh = n;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void d_kspec_ahead(struct d_prog *p, uint32_t id, uint64_t n)
{
	struct dkspec *k = kspec(p, id);

	if (k && !p->kspec_lost)
		PUSH(k->pend, k->npend, n);
}

/* The open generation a close at n closed (see "Held generations"), or
 * SIZE_MAX: none fits (its open tag, or another close's, was lost) */
static size_t closing(struct dkspec *k, uint64_t n)
{
	size_t r = 0;

	for (size_t i = 0; i < k->npend; i++)
		r += k->pend[i] < n;
	if (k->ng > 1)
		qsort(k->g, k->ng, sizeof(*k->g), by_u64);
	if (r < k->ng && k->g[r] <= n && (r + 1 == k->ng || k->g[r + 1] >= n))
		return r;
	return SIZE_MAX;
}

void d_kspec_close(struct d_prog *p, uint32_t id, uint64_t n, bool commit,
		   bool told, FILE *out)
{
	struct dkspec *k = kspec(p, id);
	struct sbuf sb = { 0 };
	uint64_t c0;
	size_t g;

	if (!k || p->kspec_lost)
		return;
	g = closing(k, n);
	c0 = g == SIZE_MAX ? k->floor : k->g[g];
	if (g != SIZE_MAX)
		k->g[g] = k->g[--k->ng];
	for (size_t i = 0; told && i < k->npend; i++)
		if (k->pend[i] == n) {
			k->pend[i] = k->pend[--k->npend];
			break;
		}
	/* every sequence c0 .. n - 1 stepped an active word, so each is in
	 * hand (a record or a hole) where the rule held and nothing was
	 * lost: what is not, counted (said at the end, a bug's mark) */
	if (g != SIZE_MAX && n > c0) {
		uint64_t have = 0;

		for (size_t i = 0; i < k->nh; i++)
			have += k->h[i].seq >= c0 && k->h[i].seq < n;
		if (have < n - c0)
			p->kspec_missing += n - c0 - have;
	}
	decide(p, k, c0, n, commit ? &sb : NULL);
	if (n > k->floor)
		k->floor = n;
	if (sb.len)
		d_emit(p, out, sb.b, sb.len);
	free(sb.b);
}

/* A record was lost after its step (a full ring): which generations its
 * tag's loss shifted, nothing says, so every record held and every one
 * handed over later is counted as a drop (but an empty one, -q's
 * speculate() with nothing printed, which never drops), nothing more
 * is printed, and the run says so once */
void d_kspec_lost(struct d_prog *p, FILE *err)
{
	for (unsigned i = 0; p->kspecs && i < p->nspec; i++) {
		struct dkspec *k = &p->kspecs[i];

		for (size_t j = 0; j < k->nh; j++) {
			p->spec_drops += k->h[j].rec && k->h[j].len;
			free(k->h[j].rec);
		}
		k->nh = k->ng = k->npend = 0;
	}
	if (!p->kspec_lost && err)
		fprintf(err, "dtrace: speculation buffers discarded after "
			     "lost records\n");
	p->kspec_lost = true;
}

uint64_t d_kspec_missing(const struct d_prog *p)
{
	return p->kspec_missing;
}

void d_kspec_end(struct d_prog *p, uint64_t until)
{
	for (unsigned i = 0; p->kspecs && i < p->nspec; i++) {
		struct dkspec *k = &p->kspecs[i];
		size_t n = 0;

		/* handed over ahead of a place the walk never reached (an
		 * exit() before it): never run, so never counted, as the user
		 * space path never meets them */
		for (size_t j = 0; j < k->nh; j++)
			if (k->h[j].stamp > until)
				free(k->h[j].rec);
			else
				k->h[n++] = k->h[j];
		k->nh = n;
		if (k->ng > 1)
			qsort(k->g, k->ng, sizeof(*k->g), by_u64);
		for (size_t j = 0; j < k->ng; j++)
			decide(p, k, k->g[j],
			       j + 1 < k->ng ? k->g[j + 1] : UINT64_MAX, NULL);
		decide(p, k, 0, UINT64_MAX, NULL); /* opens lost */
		k->ng = 0;
	}
}
