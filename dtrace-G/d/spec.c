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
 * they were speculated, after the committing clause's own record, and
 * frees the buffer; discard(ID) frees it.  Our consumer runs clauses one
 * at a time, so a buffer is free again at once: DTrace's "available
 * buffer(s) still busy" (a commit still being copied on other CPUs)
 * cannot happen.  Buffers neither committed nor discarded when tracing
 * stops are discarded.
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
}
