// SPDX-License-Identifier: MIT
/*
 * t-kread.c - the rule for reading the ring where the kernel keeps the
 * speculation buffers' words (consumer/kspec_read.c), with d/spec.c's
 * held generations, on simulated machines (doc/DESIGN.md's
 * "Speculations in the kernel: the build in steps", step 2).
 *
 * The machine: NCPU CPUs each run HPC hits one after another.  A hit
 * has four instants: it starts, reads its stamp (at the start, as the
 * generated program's prologue does where the plan holds a step), does
 * its one step on the words (kspec_model.h's, applied to all the hits
 * in the order of their step instants), and writes its record; the
 * delays are drawn so that hits on different CPUs overlap and some
 * steps and some records are slow.  A hit takes (speculation()),
 * speculates (a record of a few bytes, or a hole: its clause recorded
 * nothing), commits, discards, or only prints.  The ring takes the
 * records in the order they were written; a loss run loses some at
 * random, counted as the ring's key-0 drops; an exit run has an exit()
 * at one hit that only prints.
 *
 * The walk is the one read_round() runs (records.c): at each read
 * instant, drain what was written; where the read holds a close
 * (ksr_close_in()), read B, the barrier (it returns once every hit that
 * started before B has written its record: the simulation advances
 * time to then) and the uncapped drain, its hits marked after;
 * d_kspec_lost() where lost records were counted; the sort by stamp;
 * where a close is in, the cut (ksr_cut(): B, or an earlier close the
 * drain after the barrier read) and the pass (ksr_pass(): the opens,
 * holds and closes of the hits stamped before B, ahead, a hold with its
 * stamp); then each hit before the cut at its place: a failed
 * speculation counted, the tags the pass did not take handed over (a
 * hold with stamp 0: it has run), a close run (d_kspec_close(), told
 * where the pass took it); an exit() ends the walk (the rest of the
 * read not run, d_kspec_end(p, its stamp)).
 *
 * The reference: the generations as the words made them, in step order
 * (the buffers a user space path stepped in that order would hold).
 * Two closes of one ID at one count (an empty generation between)
 * cannot be told apart by the words: the k-th of them run takes the
 * k-th generation.  Checked: every close's output, the failed
 * speculations (those run) and the drops (a generation never closed:
 * its records run); in loss runs, the closes run before the read that
 * reported the loss print exactly, none after, the message comes once,
 * and every record not decided before it is a drop.  And the test can
 * fail: the same runs walked without the barrier (B infinite, no second
 * drain), with the stamp read after the step, or cut at B alone give
 * other output in some runs, and the exit runs with the holds handed at
 * their place stamped count other drops in some, which is asserted.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer/bpf/kagg_bpf.h"
#include "consumer/kspec_read.h"
#include "d/dlang.h"
#include "kspec_model.h"
#include "tap.h"

#define NCPU 4
#define HPC 12
#define NH (NCPU * HPC)
#define NSPEC 3
#define SPECSIZE 12
#define RUNS 2000

enum { OP_TAKE, OP_SPEC, OP_CLOSE, OP_PLAIN };
/* the walk: the rule; without the barrier; the stamp read after the
 * step; the cut at B alone (not at a close the drain after the barrier
 * read); holds handed at their place with their stamp (not 0) */
enum { M_RULE, M_NOBAR, M_LATE, M_BONLY, M_ATSTAMP, M_N };

struct sh {
	uint64_t start, stamp, late, step, wr;
	unsigned op;
	int64_t id; /* speculate()'s or the close's ID */
	bool commit, exit, lost, hole;
	struct ksm_tag tag;
	char text[16];
	size_t len;
	int gen; /* a hold's generation, a close's (the reference's) */
};

struct gen {
	unsigned id;
	uint64_t n;
	int close; /* -1: never closed */
};

static struct sh H[NH];
static struct gen G[NH];
static unsigned ngen;
static unsigned bystep[NH], bywr[NH];

static uint64_t rng;
static unsigned rnd(unsigned m)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % m);
}

static int by_step(const void *a, const void *b)
{
	uint64_t x = H[*(const unsigned *)a].step,
		 y = H[*(const unsigned *)b].step;

	return x < y ? -1 : x > y;
}

static int by_wr(const void *a, const void *b)
{
	uint64_t x = H[*(const unsigned *)a].wr, y = H[*(const unsigned *)b].wr;

	return x < y ? -1 : x > y;
}

/* A run's hits, their steps on the words in step order, the reference
 * generations */
static void gen_run(bool loss, bool withexit)
{
	uint64_t w[NSPEC] = { 0 };
	int cur[NSPEC];
	unsigned plain[NH], np = 0;

	for (unsigned c = 0; c < NCPU; c++) {
		uint64_t t = rnd(10);

		for (unsigned j = 0; j < HPC; j++) {
			struct sh *h = &H[c * HPC + j];
			unsigned r = rnd(10);
			uint64_t step, wr;

			memset(h, 0, sizeof(*h));
			step = t + 1 + (rnd(4) ? rnd(8) : rnd(40));
			wr = step + 1 + (rnd(4) ? rnd(6) : rnd(60));
			/* distinct instants across CPUs: scaled, the CPU low */
			h->start = h->stamp = t * NCPU + c;
			h->step = step * NCPU + c;
			h->wr = wr * NCPU + c;
			h->late =
				(step + 1 + rnd((unsigned)(wr - step))) * NCPU +
				c;
			t = wr + rnd(10);
			h->op = r < 2	? OP_TAKE
				: r < 6 ? OP_SPEC
				: r < 8 ? OP_CLOSE
					: OP_PLAIN;
			h->id = rnd(NSPEC + 1);
			h->commit = r == 6;
			h->lost = loss && !rnd(12);
			h->gen = -1;
			if (h->op == OP_PLAIN)
				plain[np++] = c * HPC + j;
		}
	}
	if (withexit && np)
		H[plain[rnd(np)]].exit = true;
	for (unsigned i = 0; i < NH; i++)
		bystep[i] = bywr[i] = i;
	qsort(bystep, NH, sizeof(*bystep), by_step);
	qsort(bywr, NH, sizeof(*bywr), by_wr);
	for (unsigned i = 0; i < NSPEC; i++)
		cur[i] = -1;
	ngen = 0;
	for (unsigned s = 0; s < NH; s++) {
		unsigned i = bystep[s];
		struct sh *h = &H[i];

		switch (h->op) {
		case OP_TAKE:
			if (ksm_take(w, NSPEC, &h->tag)) {
				G[ngen] = (struct gen){ h->tag.id, 0, -1 };
				cur[h->tag.id - 1] = (int)ngen++;
			}
			break;
		case OP_SPEC:
			ksm_step(w, NSPEC, h->id, false, &h->tag);
			if (!(h->tag.act & 1))
				break;
			h->gen = cur[h->id - 1];
			h->hole = !rnd(8);
			if (!h->hole)
				h->len = (size_t)snprintf(
					h->text, sizeof(h->text), "%u.%u%s\n",
					i, (unsigned)h->id, rnd(2) ? "xx" : "");
			break;
		case OP_CLOSE:
			ksm_step(w, NSPEC, h->id, true, &h->tag);
			if (!(h->tag.act & 1))
				break;
			h->gen = cur[h->id - 1];
			G[h->gen].n = h->tag.n;
			G[h->gen].close = (int)i;
			cur[h->id - 1] = -1;
			break;
		}
	}
}

/* The hit's out area's ran word */
static uint64_t ks_of(const struct sh *h)
{
	if (h->op == OP_PLAIN)
		return 0;
	if (h->op == OP_CLOSE && (h->tag.act & 1))
		return UBPF_KOUT_SPEC | UBPF_KOUT_CLOSE;
	return UBPF_KOUT_SPEC;
}

/* ------------------------------------------------------------------ */
/* The walk */

struct rh {
	struct ksr_hit k;
	unsigned h;
};

struct walk {
	unsigned mode;
	struct d_prog *p;
	FILE *err;
	char *got[NH];
	unsigned ranord[NH], readno[NH]; /* 0: not run */
	bool drained[NH], ran[NH];
	unsigned nrun, lostread;
	uint64_t until;
	unsigned barriers, cut;
};

/* Hand over hit r's open, hold or close (ahead): by the pass, stamp its
 * stamp; at its place, 0 (it has run, whatever exit() comes later) */
static void hand(struct walk *wk, const struct rh *r, uint64_t stamp)
{
	const struct sh *h = &H[r->h];

	if (h->op == OP_TAKE && h->tag.id)
		d_kspec_open(wk->p, h->tag.id, h->tag.n);
	else if (h->op == OP_SPEC && (h->tag.act & 1))
		d_kspec_hold(wk->p, h->tag.id, h->tag.n, stamp,
			     h->hole ? NULL : h->text, h->len);
	else if (h->op == OP_CLOSE && (h->tag.act & 1))
		d_kspec_ahead(wk->p, h->tag.id, h->tag.n);
}

static void take(void *hit, void *arg)
{
	hand(arg, hit, ((struct rh *)hit)->k.stamp);
}

static int by_stamp(const void *a, const void *b)
{
	const struct rh *x = a, *y = b;

	if (x->k.stamp != y->k.stamp)
		return x->k.stamp < y->k.stamp ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

static const char *const PROG = "#pragma D option quiet\n"
				"#pragma D option nspec=3\n"
				"#pragma D option specsize=12\nBEGIN { }";

/* Drain the records written by t; lost ones counted */
static void drain(struct walk *wk, struct rh *pend, size_t *np, size_t *wi,
		  uint64_t t, unsigned *lost, bool after)
{
	while (*wi < NH && H[bywr[*wi]].wr <= t) {
		unsigned i = bywr[(*wi)++];

		if (H[i].lost) {
			++*lost;
			continue;
		}
		wk->drained[i] = true;
		pend[(*np)++] = (struct rh){
			{ wk->mode == M_LATE ? H[i].late : H[i].stamp,
			  ks_of(&H[i]), after, false, false },
			i
		};
	}
}

static void walk_run(struct walk *wk, unsigned mode, uint64_t seed)
{
	static struct rh pend[NH];
	size_t np = 0, wi = 0;
	unsigned lost = 0, told = 0, reads = 0;
	uint64_t now = 0;
	char msg[256];
	bool exited = false;

	memset(wk, 0, sizeof(*wk));
	wk->mode = mode;
	wk->lostread = UINT32_MAX;
	wk->until = UINT64_MAX;
	wk->err = fmemopen(NULL, 4096, "w+");
	if (d_compile(&wk->p, PROG, NULL, msg, sizeof(msg))) {
		diag("compile: %s", msg);
		return;
	}
	rng = seed;
	while (!exited && (wi < NH || np)) {
		struct ksr_hits v = { pend, 0, sizeof(*pend), 0 };
		uint64_t b = UINT64_MAX;
		size_t m = 0;
		bool close;

		now += 15 + rnd(60);
		reads++;
		for (size_t i = 0; i < np; i++)
			pend[i].k.after = pend[i].k.later = false;
		drain(wk, pend, &np, &wi, now, &lost, false);
		v.n = np;
		close = ksr_close_in(&v);
		if (close && mode != M_NOBAR) {
			uint64_t t = now;

			b = now;
			for (unsigned i = 0; i < NH; i++)
				if (H[i].start < b && H[i].wr > t)
					t = H[i].wr;
			now = t;
			drain(wk, pend, &np, &wi, now, &lost, true);
			v.n = np;
			wk->barriers++;
		}
		if (lost > told) {
			d_kspec_lost(wk->p, wk->err);
			told = lost;
			if (wk->lostread == UINT32_MAX)
				wk->lostread = reads;
		}
		qsort(pend, np, sizeof(*pend), by_stamp);
		for (size_t i = 0; mode == M_BONLY && i < np; i++)
			pend[i].k.after = false;
		if (close) {
			ksr_cut(&v, b);
			ksr_pass(&v, b, take, wk);
		}
		for (size_t i = 0; i < np; i++) {
			const struct sh *h = &H[pend[i].h];
			bool taken = pend[i].k.ktaken;

			if (pend[i].k.later || exited) {
				if (!exited)
					pend[m++] = pend[i];
				wk->cut += !exited;
				continue;
			}
			wk->ran[pend[i].h] = true;
			if (h->op == OP_TAKE && !h->tag.id)
				d_kspec_open(wk->p, 0, 0);
			else if (!taken && h->op != OP_CLOSE)
				hand(wk, &pend[i],
				     mode == M_ATSTAMP ? pend[i].k.stamp : 0);
			if (h->op == OP_CLOSE && (h->tag.act & 1)) {
				size_t gl = 0;
				FILE *f = open_memstream(&wk->got[pend[i].h],
							 &gl);

				d_kspec_close(wk->p, h->tag.id, h->tag.n,
					      h->commit, taken, f);
				fclose(f);
				wk->ranord[pend[i].h] = ++wk->nrun;
				wk->readno[pend[i].h] = reads;
			}
			if (h->exit) {
				exited = true;
				wk->until = pend[i].k.stamp;
			}
		}
		np = m;
	}
	d_kspec_end(wk->p, wk->until);
}

/* ------------------------------------------------------------------ */
/* The reference */

/* Generation g's records in step order, decided against specsize: the
 * text a commit prints, the drops (only the holds sel accepts) */
static size_t decide(unsigned g, char *out, const struct walk *wk, bool all)
{
	size_t used = 0, drops = 0;

	out[0] = 0;
	for (unsigned s = 0; s < NH; s++) {
		const struct sh *h = &H[bystep[s]];

		if (h->op != OP_SPEC || h->gen != (int)g || h->hole)
			continue;
		if (!all && !wk->ran[bystep[s]])
			continue;
		if (used + h->len > SPECSIZE) {
			drops++;
			continue;
		}
		memcpy(out + used, h->text, h->len + 1);
		used += h->len;
	}
	return drops;
}

struct verdict {
	bool outs, fails, drops, msg;
};

/* wk's outputs against the reference */
static struct verdict judge(const struct walk *wk, unsigned run, bool say)
{
	struct verdict v = { true, true, true, true };
	bool taken[NH] = { false }, pre[NH] = { false };
	unsigned order[NH], nc = 0, fails = 0;
	uint64_t drops = 0;
	char want[NH * 16], *err = NULL;
	size_t el = 0;
	FILE *ef;

	for (unsigned i = 0; i < NH; i++)
		if (wk->ranord[i])
			order[wk->ranord[i] - 1] = i, nc++;
	for (unsigned r = 0; r < nc; r++) {
		const struct sh *c = &H[order[r]];
		int g = -1;

		/* the first generation of its ID closed at its count and
		 * not yet taken, in step order */
		for (unsigned k = 0; k < ngen && g < 0; k++)
			if (G[k].id == c->tag.id && G[k].close >= 0 &&
			    G[k].n == c->tag.n && !taken[k])
				g = (int)k;
		if (g < 0) {
			v.outs = false;
			continue;
		}
		taken[g] = true;
		pre[g] = wk->readno[order[r]] < wk->lostread;
		if (pre[g]) {
			drops += decide((unsigned)g, want, wk, true);
			if (!c->commit)
				want[0] = 0;
		} else {
			want[0] = 0;
		}
		if (strcmp(wk->got[order[r]] ? wk->got[order[r]] : "", want)) {
			if (say && v.outs)
				diag("run %u mode %u: close %u of %u at %llu: "
				     "got '%s', want '%s'",
				     run, wk->mode, order[r],
				     (unsigned)c->tag.id,
				     (unsigned long long)c->tag.n,
				     wk->got[order[r]], want);
			v.outs = false;
		}
	}
	/* without an exit every close the ring delivered must have run: a
	 * walk that lost one would otherwise pass wherever its generation
	 * dropped nothing (decided at the end like the run holds) */
	for (unsigned i = 0; wk->until == UINT64_MAX && i < NH; i++)
		if (H[i].op == OP_CLOSE && (H[i].tag.act & 1) &&
		    wk->drained[i] && !wk->ranord[i]) {
			if (say && v.outs)
				diag("run %u mode %u: close %u drained, never "
				     "run",
				     run, wk->mode, i);
			v.outs = false;
		}
	for (unsigned k = 0; k < ngen; k++) {
		if (pre[k])
			continue;
		if (wk->lostread == UINT32_MAX)
			drops += decide(k, want, wk, taken[k]);
	}
	if (wk->lostread != UINT32_MAX)
		for (unsigned i = 0; i < NH; i++)
			drops += H[i].op == OP_SPEC && H[i].gen >= 0 &&
				 !H[i].hole && wk->drained[i] && !pre[H[i].gen];
	for (unsigned i = 0; i < NH; i++)
		fails += H[i].op == OP_TAKE && !H[i].tag.id && wk->ran[i];
	ef = open_memstream(&err, &el);
	d_report_drops(wk->p, ef);
	fclose(ef);
	{
		char w[256];
		int n = 0;

		w[0] = 0;
		if (fails)
			n = snprintf(w, sizeof(w),
				     "dtrace: %u failed speculation%s (no "
				     "speculative buffer available)\n",
				     fails, fails == 1 ? "" : "s");
		if (drops)
			snprintf(w + n, sizeof(w) - (size_t)n,
				 "dtrace: %llu speculative drop%s\n",
				 (unsigned long long)drops,
				 drops == 1 ? "" : "s");
		if (strcmp(err, w)) {
			if (say)
				diag("run %u mode %u: reports '%s', want '%s'",
				     run, wk->mode, err, w);
			v.drops = false;
		}
	}
	free(err);
	{
		char m[4096] = { 0 };
		const char *one = "dtrace: speculation buffers discarded "
				  "after lost records\n";

		rewind(wk->err);
		if (!fgets(m, sizeof(m), wk->err))
			m[0] = 0;
		v.msg = wk->lostread == UINT32_MAX ? !m[0] : !strcmp(m, one);
		if (fgets(m, sizeof(m), wk->err))
			v.msg = false;
	}
	return v;
}

static void walk_free(struct walk *wk)
{
	for (unsigned i = 0; i < NH; i++)
		free(wk->got[i]);
	if (wk->err)
		fclose(wk->err);
	d_free(wk->p);
}

int main(void)
{
	static struct walk wk;
	unsigned bad[4] = { 0 }, nrun[4] = { 0 }, other[M_N] = { 0 }, nvar = 0,
		 lossrun = 0, exitrun = 0;
	unsigned long closes = 0, barriers = 0, cut = 0;

	for (unsigned run = 0; run < RUNS; run++) {
		unsigned kind = run % 4; /* 0, 3 plain; 1 loss; 2 exit */
		uint64_t seed = 0x9e3779b97f4a7c15ull * (run + 1);
		struct verdict v;

		rng = seed;
		gen_run(kind == 1, kind == 2);
		walk_run(&wk, M_RULE, seed ^ 0x5bd1e995);
		v = judge(&wk, run, true);
		nrun[kind]++;
		bad[kind] += !(v.outs && v.drops && v.msg);
		closes += wk.nrun;
		barriers += wk.barriers;
		cut += wk.cut;
		lossrun += kind == 1 && wk.lostread != UINT32_MAX;
		exitrun += wk.until != UINT64_MAX;
		walk_free(&wk);
		if (kind == 1)
			continue;
		if (kind == 2) { /* the exits: holds at their place */
			walk_run(&wk, M_ATSTAMP, seed ^ 0x5bd1e995);
			v = judge(&wk, run, false);
			other[M_ATSTAMP] += !(v.outs && v.drops);
			walk_free(&wk);
			continue;
		}
		nvar++;
		for (unsigned m = M_NOBAR; m <= M_BONLY; m++) {
			walk_run(&wk, m, seed ^ 0x5bd1e995);
			v = judge(&wk, run, false);
			other[m] += !(v.outs && v.drops);
			walk_free(&wk);
		}
	}
	diag("%u runs: %lu closes run, %lu barriers, %lu hits cut to the next "
	     "read; %u runs lost records, %u exited",
	     RUNS, closes, barriers, cut, lossrun, exitrun);
	is_int(bad[0] + bad[3], 0,
	       "%u runs, no loss: each close's output, the failed "
	       "speculations and the drops as the words' order gives",
	       nrun[0] + nrun[3]);
	is_int(bad[1], 0,
	       "%u runs with losses: exact before the read that reported "
	       "the loss, nothing printed from then on, the message once, "
	       "every later record a drop",
	       nrun[1]);
	ok(lossrun > nrun[1] / 2, "most loss runs lost a record (%u of %u)",
	   lossrun, nrun[1]);
	is_int(bad[2], 0,
	       "%u runs with an exit(): the closes run exact, the holds "
	       "handed ahead of a place not run forgotten uncounted",
	       nrun[2]);
	ok(exitrun > nrun[2] / 2, "most exit runs exited (%u of %u)", exitrun,
	   nrun[2]);
	diag("of %u runs walked otherwise: %u differ without the barrier, "
	     "%u with the stamp after the step, %u cut at B alone; of %u "
	     "exit runs, %u with holds at their place stamped",
	     nvar, other[M_NOBAR], other[M_LATE], other[M_BONLY], nrun[2],
	     other[M_ATSTAMP]);
	ok(other[M_NOBAR] > 0,
	   "without the barrier (B infinite, no second drain) some runs "
	   "give other output");
	ok(other[M_LATE] > 0,
	   "with the stamp read after the step some runs give other output");
	ok(other[M_BONLY] > 0,
	   "cut at B alone, a close the drain after the barrier read run "
	   "at once: some runs give other output");
	ok(other[M_ATSTAMP] > 0,
	   "holds handed at their place with their stamp: some exit runs "
	   "count other drops");
	return tap_done();
}
