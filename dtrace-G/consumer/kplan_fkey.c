// SPDX-License-Identifier: MIT
/*
 * kplan_fkey.c - format-time keys: an aggregation key that is a string
 * function of one value the kernel already keys by, aggregated in the
 * kernel by that value and named by dtrace when it merges (doc/
 * DESIGN.md §8 "Format-time keys").
 *
 * The language runtimes' call counts, as the DTraceToolkit and the
 * DTrace book write them (py_calls.d: @[pid, basename(copyinstr(arg0)),
 * copyinstr(arg1)] = count()), were user space's for the basename()
 * alone: a record a hit, the clause run again by dtrace.  The kernel
 * keys by copyinstr(arg0) as it would for @[pid, copyinstr(arg0),
 * copyinstr(arg1)]; the merge (kplan_merge.c's d_kplan_merge()) makes
 * that key's value again as it always has (the leaf, the bytes run.c
 * would have keyed by, cut and tainted as run.c's are), then evaluates
 * the key's tree over it with run.c's own d_eval() (d/stmt.c's
 * d_eval_pinned(), the leaf pinned to that value), and adds the
 * entry's values into the aggregation's entry of the result.
 *
 * Exact because the aggregating functions commute and associate: the
 * kernel's entries for /a/x.py and /b/x.py are two partial counts
 * (sums, minima, buckets) of one user-space entry "x.py", added as each
 * CPU's partial values already are; and because the tree is a pure
 * function of the leaf and strsize: its nodes are literals and the
 * functions below, none of which faults, reads the firing (no
 * d_fire: the merge has none) or the program's state.  So the key of
 * each hit is the one run.c would have made from the same leaf, and
 * the hits the kernel sends to user space whole (a string longer than
 * kaggs_s keeps, one that cannot be read) are keyed by run.c itself
 * into the same aggregation.
 *
 * The tree (fkey_walk()): its root a function of the set below, each
 * argument a string literal, an integer constant expression (-4), such
 * a function, or the leaf, exactly one leaf in the tree: strjoin(),
 * substr(), basename(), dirname(), toupper(), tolower(), strstr(),
 * strchr(), strrchr(), and lltostr() of a constant base from 2 to 36
 * (kplan_str.c's format-time nodes that return a string; not the
 * address names ufunc() and its kin, whose text depends on the
 * record's process and time).
 *
 * Literal keys are the same mechanism with no leaf: a string literal
 * key is one value for its statement, so the kernel's key holds a 0 in
 * its place (an integer key, a word) and the merge makes the literal
 * again (untainted, cut at strsize - 1 as run.c's key is).  So the
 * toolkit's @num[FILE, "func", NAME] and @num["-", "total", "-"], a
 * literal beside copyinstr() (a pair kaggs_s does not keep) and one
 * beside a string variable past kaggs_v's room are the kernel's.
 *
 * The decision: kp_fkeys_make() gives each aggregating statement with
 * such keys a copy whose keys are the leaves and the 0s (struct
 * kp_fsh), made once before any decision and never moved.  kp_stmt_ok()
 * takes the statement as written where it can (every plan made before
 * is made the same) and the copy only where it cannot; its struct kstmt
 * then has st the copy, ost the statement and fkeys the keys (a bit
 * each).  kplan_why.c gives the copy's reason where neither is taken.
 * Only where strsize is fixed for the run (no setopt()), as for any
 * string key: the merge cuts at the run's strsize.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

struct kp_fsh {
	const struct stmt *st; /* the program's statement */
	struct stmt sh;	       /* ... its copy, the leaves its keys */
	uint8_t bits;	       /* the keys that are trees or literals */
	struct node zero;      /* a literal's key in the copy */
};

static bool fkey_func(const struct node *n)
{
	int64_t b;

	switch (d_funcs[n->sub].id) {
	case F_STRJOIN:
	case F_SUBSTR:
	case F_BASENAME:
	case F_DIRNAME:
	case F_TOUPPER:
	case F_TOLOWER:
	case F_STRSTR:
	case F_STRCHR:
	case F_STRRCHR:
		return true;
	case F_LLTOSTR:
		return n->nargs < 2 ||
		       (d_const_int(n->args[1], &b) && b >= 2 && b <= 36);
	default:
		return false;
	}
}

/* Is n such a tree (root: a function) over one leaf, into *leaf? */
static bool fkey_walk(const struct node *n, bool root, const struct node **leaf)
{
	int64_t v;

	if (!root && (n->op == N_STR || d_const_int(n, &v)))
		return true;
	if (n->op == N_FUNC && fkey_func(n)) {
		for (unsigned i = 0; i < n->nargs; i++)
			if (!fkey_walk(n->args[i], false, leaf))
				return false;
		return true;
	}
	if (root || *leaf)
		return false;
	*leaf = n;
	return true;
}

static const struct node *fkey_leaf(const struct node *n)
{
	const struct node *leaf = NULL;

	return n->kind == T_STR && fkey_walk(n, true, &leaf) ? leaf : NULL;
}

void kp_fkeys_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			struct kp_fsh *f;
			uint8_t bits = 0;

			if (st->kind != S_AGG || st->nkeys > UBPF_KMAXKEYS)
				continue;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (fkey_leaf(st->keys[j]) ||
				    st->keys[j]->op == N_STR)
					bits |= (uint8_t)(1u << j);
			if (!bits)
				continue;
			k->fsh = xrealloc(k->fsh, k->nfsh + 1, sizeof(*k->fsh));
			f = k->fsh[k->nfsh++] = xcalloc(1, sizeof(*f));
			f->st = st;
			f->sh = *st;
			f->bits = bits;
			f->sh.keys = xcalloc(st->nkeys, sizeof(*f->sh.keys));
			f->zero.op = N_INT;
			f->zero.kind = T_INT;
			f->zero.sz = 4;
			f->zero.sg = 1;
			f->zero.line = st->line;
			f->zero.col = st->col;
			for (unsigned j = 0; j < st->nkeys; j++) {
				const struct node *l = fkey_leaf(st->keys[j]);

				if (st->keys[j]->op == N_STR)
					l = &f->zero;

				f->sh.keys[j] =
					(struct node *)(l ? l : st->keys[j]);
			}
		}
	}
}

void kp_fkeys_free(struct d_kplan *k)
{
	for (unsigned i = 0; i < k->nfsh; i++) {
		free(k->fsh[i]->sh.keys);
		free(k->fsh[i]);
	}
	free(k->fsh);
}

const struct stmt *kp_fkey_stmt(const struct d_kplan *k, const struct stmt *st,
				uint8_t *bits)
{
	if (!kp_strsize_fixed(k)) /* the merge cuts at the run's strsize */
		return NULL;
	for (unsigned i = 0; i < k->nfsh; i++)
		if (k->fsh[i]->st == st) {
			*bits = k->fsh[i]->bits;
			return &k->fsh[i]->sh;
		}
	return NULL;
}

/* The clause whose statement st is (d_eval_pinned()'s). */
static unsigned stmt_clause(const struct d_prog *p, const struct stmt *st)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		for (unsigned i = 0; i < p->clauses[ci].nflat; i++)
			if (p->clauses[ci].flat[i] == st)
				return ci;
	return 0;
}

void kp_fkey_merge(const struct d_kplan *k, const struct kstmt *ks,
		   struct dv *keys, char (*kbuf)[D_STRSIZE])
{
	size_t max =
		k->prog->strsize < D_STRSIZE ? k->prog->strsize : D_STRSIZE;
	unsigned ci = stmt_clause(k->prog, ks->ost);

	for (unsigned j = 0; j < ks->st->nkeys; j++) {
		struct d_pin pin = { 0 };
		uint64_t faddr = 0;
		char *str = NULL;
		struct dv v;

		if (!(ks->fkeys >> j & 1))
			continue;
		pin.n = ks->st->keys[j]; /* the leaf, a node of the tree */
		pin.v = keys[j];
		if (d_eval_pinned(k->prog, ci, NULL, ks->ost->keys[j], &pin, 1,
				  &v, &str, &faddr) != 0 ||
		    v.k != K_STR) {
			/* none of fkey_func()'s faults or is no string */
			fprintf(stderr,
				"dtrace: internal error: a format-time key "
				"of line %d could not be made\n",
				ks->ost->line);
			abort();
		}
		/* as d_agg_update(): a key is at most strsize - 1 bytes */
		snprintf(kbuf[j], max ? max : 1, "%s", v.s ? v.s : "");
		free(str);
		v.s = kbuf[j];
		keys[j] = v;
	}
}
