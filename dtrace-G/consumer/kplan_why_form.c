// SPDX-License-Identifier: MIT
/*
 * kplan_why_form.c - why an untyped clause has no typed forms, for -v
 * (kp_form_why(); kplan_why.c says it, in d_kplan_why() and var_why()).
 * Like kplan_why.c it decides nothing: it replays kplan_vars.c's tests.
 *
 * Typed forms (kplan_vars.c's clause_typed(), doc/DESIGN.md §8 "A
 * variable set and unset (F)"): why an untyped clause's plan differs.
 * Its predicate and statements in its order, the first that reads a
 * variable whose type is open (open_bits(): T is not its zero's type),
 * is typed differently with those variables set and unset (a node's
 * type differs: ty_differs()) and cannot be dispatched at the hit
 * as form_bits() and form_check() say (an if's condition, a
 * speculating clause's printed value, a string store, more than two
 * open bits, an array's element,
 * a this-> variable: bits_why()) or, where it may, has a key whose
 * type differs (a statement's forms share one layout: typed_all()'s
 * key test).  A replay on the plan as decided, typing as typed_all()
 * does (k->absent, k->elem registered and reset after, as it leaves
 * them; a variable the decision took away since is kept again for the
 * replay and restored: kp_form_why()).  A statement whose nodes are
 * typed the same in every subset emits the same code; a bare variable
 * read (a 64-bit VLD) counts only where its own type is the
 * statement's (printed, a key).  So a statement named differs by its
 * types, the first in the clause that does and has no forms; where
 * none is found the caller says the clause-wide reason, as before.
 * The statement and the variable are named as kplan_why.c's other
 * reasons name them (kp_stmt_name(), kp_var_name()); struct fwhy, what
 * it finds, is kplan_impl.h's.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

/* Is n (a whole value: top) typed differently with bits s unset?  A
 * bare variable inside is not (its VLD is 64 bits whatever its type):
 * the node reading it is. */
static bool ty_differs(struct d_kplan *kw, const struct node *n, uint32_t s,
		       bool top)
{
	uint8_t z0 = 0, g0 = 0, z1 = 0, g1 = 0;
	bool ok0, ok1;

	if (!n)
		return false;
	if (top || (n->op != N_VAR && n->op != N_ASSOC)) {
		kw->absent = 0;
		ok0 = kp_ty_at(kw, KP_ANYPROBE, n, &z0, &g0);
		kw->absent = s;
		ok1 = kp_ty_at(kw, KP_ANYPROBE, n, &z1, &g1);
		kw->absent = 0;
		if (ok0 != ok1 || (ok0 && (z0 != z1 || g0 != g1)))
			return true;
	}
	if (ty_differs(kw, n->a, s, false) || ty_differs(kw, n->b, s, false) ||
	    ty_differs(kw, n->c, s, false))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (ty_differs(kw, n->args[i], s, false))
			return true;
	return false;
}

/* ... in any subset of b (its open bits), any of n[0..nn), n[j] a
 * whole value where top[j] (a printed value, a key: its own type is
 * the out area's or the layout's; a predicate, a condition, an
 * aggregation's value is tested or taken as 64 bits), all where top is
 * NULL */
static bool any_differs(struct d_kplan *kw, const struct node *const *n,
			const bool *top, unsigned nn, uint32_t b)
{
	for (uint32_t s = next_subset(0, b); s; s = next_subset(s, b))
		for (unsigned j = 0; j < nn; j++)
			if (ty_differs(kw, n[j], s, !top || top[j]))
				return true;
	return false;
}

/* The variable of the lowest of bits b (an element's: its array's), or
 * -1 */
static int bit_var(const struct d_kplan *k, uint32_t b)
{
	int lo = b ? __builtin_ctz(b) : -1;

	if (lo < 0)
		return -1;
	if (lo >= k->nbits)
		return (unsigned)(lo - k->nbits) < k->nelem
			       ? k->elem[lo - k->nbits]->sub
			       : -1;
	for (unsigned v = 0; v < k->prog->nvars; v++)
		if (k->vbit[v] == lo)
			return (int)v;
	return -1;
}

/* Why open bits b (KP_OPEN the top bit) give no forms (form_check()),
 * into w; false where they may */
static bool bits_why(const struct d_kplan *k, uint32_t b, char *w, size_t len)
{
	char name[128];

	if ((b >> 31) || (b >> k->nbits)) {
		snprintf(w, len,
			 "no forms are chosen at the hit for an array's "
			 "element, whose keys they would compute twice");
		return true;
	}
	if (__builtin_popcount(b) > 2) {
		snprintf(w, len,
			 "forms are chosen at the hit on two variables at "
			 "most, and it reads %d whose type is open",
			 __builtin_popcount(b));
		return true;
	}
	for (unsigned v = 0; v < k->prog->nvars; v++)
		if (k->vbit[v] >= 0 && (b >> k->vbit[v] & 1) &&
		    !kp_form_var(k, v)) {
			snprintf(w, len,
				 "no forms are chosen at the hit on %s, whose "
				 "being set the hit does not keep (a this-> "
				 "variable without a slot of the kernel's)",
				 kp_var_name(k->prog, v, name, sizeof(name)));
			return true;
		}
	return false;
}

/* Do open bits b (an element's registered in k->elem) read w? */
static bool reads_var(const struct d_kplan *k, uint32_t b, unsigned w)
{
	if (k->vbit[w] >= 0)
		return b >> k->vbit[w] & 1;
	for (unsigned e = 0; k->vbit[w] == KV_ELEMS && e < k->nelem; e++)
		if (k->elem[e]->sub == (int)w && (b >> (k->nbits + (int)e) & 1))
			return true;
	return false;
}

static bool form_why1(struct d_kplan *kw, unsigned ci, int only_v,
		      struct fwhy *f)
{
	const struct clause *c = &kw->prog->clauses[ci];

	for (int i = c->pred ? -1 : 0; i < (int)c->nflat; i++) {
		const struct stmt *st = i < 0 ? NULL : c->flat[i];
		const struct node *n[64];
		bool top[64];
		unsigned nn = 0;
		struct kstmt ks;
		uint32_t b = 0;
		int w;

		if (st && 1 + st->nargs + st->nkeys > 64)
			continue; /* (none named: the old reason) */
		if (!st) {
			top[nn] = false;
			n[nn++] = c->pred;
		} else {
			top[nn] = st->kind == S_TRACE;
			n[nn++] = st->e;
			for (unsigned j = 0; j < st->nargs && nn < 64; j++) {
				top[nn] = st->kind == S_PRINTF;
				n[nn++] = st->args[j];
			}
			for (unsigned j = 0; j < st->nkeys && nn < 64; j++) {
				top[nn] = true;
				n[nn++] = st->keys[j];
			}
		}
		kw->nelem = 0;
		kw->elem_full = false;
		for (unsigned j = 0; j < nn; j++)
			b |= open_bits(kw, n[j], true);
		if (kw->elem_full)
			b |= 1u << 31;
		w = only_v >= 0 ? only_v : bit_var(kw, b & ~(1u << 31));
		if (!b || w < 0 || !reads_var(kw, b, (unsigned)w) ||
		    !any_differs(kw, n, top, nn, b & ~(1u << 31)))
			continue;
		f->var = w;
		f->line = st ? st->line : c->pred->line;
		if (!st) {
			snprintf(f->what, sizeof(f->what), "predicate");
			if (bits_why(kw, b, f->why, sizeof(f->why)))
				return true;
			continue;
		}
		kp_stmt_name(kw, st, f->what, sizeof(f->what));
		if (!kp_flat_ok(kw, ci, (unsigned)i, &ks))
			continue; /* not the kernel's for another reason */
		if (ks.cond || st->kind == S_IF) {
			snprintf(f->what, sizeof(f->what),
				 "if statement's condition");
			snprintf(f->why, sizeof(f->why),
				 "no forms are chosen at the hit for an if's "
				 "condition");
			return true;
		}
		if (ks.out && kw->sout[ci]) {
			snprintf(f->why, sizeof(f->why),
				 "no forms are chosen at the hit for a "
				 "speculating clause's printed value");
			return true;
		}
		if (ks.out && st->kind != S_PRINTF && st->kind != S_TRACE) {
			snprintf(f->why, sizeof(f->why),
				 "no forms are chosen at the hit for a key "
				 "dtrace names");
			return true;
		}
		if (ks.sstr || ks.sclr || ks.smov || ks.schr ||
		    (st->kind != S_AGG && st->kind != S_EXPR && !ks.out)) {
			snprintf(f->why, sizeof(f->why),
				 "no forms are chosen at the hit but for an "
				 "aggregation or an integer store");
			return true;
		}
		if (ks.assign && !ks.out &&
		    (kw->vst[kp_assigned_var(st)] != KV_KERN ||
		     kp_place_store(kw, st))) {
			snprintf(f->why, sizeof(f->why),
				 "no forms are chosen at the hit for a store "
				 "of a variable the kernel does not keep");
			return true;
		}
		if (bits_why(kw, b, f->why, sizeof(f->why)))
			return true;
		/* forms it may have: one layout for all (its keys) */
		for (unsigned j = 0; j < st->nkeys; j++)
			if (st->keys[j]->kind != T_STR &&
			    any_differs(kw,
					&(const struct node *){ st->keys[j] },
					NULL, 1, b)) {
				snprintf(f->why, sizeof(f->why),
					 "its forms would need a layout each, "
					 "key %u's type differing",
					 j + 1);
				return true;
			}
	}
	return false;
}

bool kp_form_why(const struct d_kplan *k, unsigned ci, int only_v, uint8_t tz,
		 uint8_t tg, struct fwhy *f)
{
	struct d_kplan *kw = (struct d_kplan *)k; /* restored below */
	uint8_t vst = 0, vsz = 0, vsg = 0;
	int vbit = -1, nbits = kw->nbits;
	bool r;

	if (only_v >= 0) {
		const struct var *var = &k->prog->vars[only_v];

		vst = kw->vst[only_v];
		vsz = kw->vsz[only_v];
		vsg = kw->vsg[only_v];
		vbit = kw->vbit[only_v];
		if (vst != KV_KERN) {
			kw->vst[only_v] = KV_KERN;
			kw->vsz[only_v] = tz;
			kw->vsg[only_v] = tg;
			if (kp_arr_scope(var))
				kw->vbit[only_v] = KV_ELEMS;
			else if (vbit < 0 && kw->nbits < 31)
				kw->vbit[only_v] = kw->nbits++;
		}
	}
	r = form_why1(kw, ci, only_v, f);
	kw->absent = 0;
	kw->nelem = 0;
	kw->elem_full = false;
	if (only_v >= 0) {
		kw->vst[only_v] = vst;
		kw->vsz[only_v] = vsz;
		kw->vsg[only_v] = vsg;
		kw->vbit[only_v] = vbit;
		kw->nbits = nbits;
	}
	return r;
}
