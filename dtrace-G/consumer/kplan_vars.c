// SPDX-License-Identifier: MIT
/*
 * kplan_vars.c - which variables the kernel keeps for a run's
 * generated programs (D_KPLAN_VARS; kplan.c's design comment,
 * "Variables"): self-> and this-> integers and thread-local arrays that
 * no clause left to user space touches, each of the one type every
 * store gives it (kp_vars_decide(), taking clauses and variables away
 * until nothing changes, each clause typed for every combination of
 * its variables set or unset, an array whose T is not its zero's each
 * element read apart (KV_ELEMS: one element may be set, another not):
 * clause_typed(), open_bits()); this-> strings that are
 * copyinstr(argN) wherever they are read (sarg_var()); this-> and
 * self-> strings stored from copyinstr(), a literal or one another and
 * only printed, compared with a literal, another or execname,
 * measured by strlen() or an aggregation's key (str_var());
 * this-> pointers into a copy of their clause (KV_PLACE, kplan_mem.c's
 * kp_place_var()), no copy read at all where the kernel keeps self->
 * variables (nomem: a copy's fault sends the hit to user space whole,
 * where those cannot go);
 * and, where the
 * kernel keeps self-> variables beside string comparisons, each
 * comparison numbered as a fault site (fsite_assign()); and the
 * clauses user space runs that read self-> integers the kernel keeps
 * (vin clauses, below).  kplan.c asks it per program (d_kplan_new());
 * what both read of the tree is kplan_impl.h's.
 *
 * Shared self-> variables.  A variable has one copy: the kernel's only
 * while every clause touching it runs there.  But a clause user space
 * runs for a reason of its own (ustack(), a string the kernel does not
 * compute) and reads a self-> integer, the latency idiom's
 *	read:entry { self->ts = timestamp; }
 *	read:return /self->ts/ { @ = quantize(timestamp - self->ts);
 *		printf("%d %s\n", tid, ustack()); self->ts = 0; }
 * needs no copy of its own: only the values it reads at the hit, and
 * its stores made where the kernel keeps the variable.  Such a clause
 * (k->vin: vin_where(), vin_var()) leaves the variable to the kernel,
 * and with it the clauses storing it; at its place among the probe's
 * clauses the generated program puts each such variable's value into
 * the record's out area (kplan_emit.c's d_kplan_vin_emit(): VLD, OUT
 * each, in the variables' order), makes the clause's stores of them
 * (kernel stores, below), then ODONE; and dtrace sets
 * the hit's thread's variables from the area for that clause alone,
 * putting back what its table held after it (records.c's
 * hit_run_kagg(), cgen_out.c's cg_out_vin(), kplan_out.c's
 * d_kplan_vin_put(), run.c's d_self_put()).  Why that is exact:
 *  - The value is the one the clause reads at the hit: the kernel runs
 *    the probe's clauses in their order, the values at the clause's
 *    place, so a kernel clause before it that stores the variable is
 *    seen and a later one's is not; no clause of user space writes it
 *    but by a kernel store, below, so no other writer is.
 *  - Its own stores (kstore_ok()): v = E, v OP= E, v++ or v-- at the
 *    clause's top level, E an integer the kernel computes that cannot
 *    fault, typed alike set and unset (typed_same()), every statement
 *    before it one run.c runs to its end (ustmt_free(): printf(),
 *    trace(), aggregations and stores of integers of the hit's values
 *    and variables, literals, execname, ustack(); no copy, no pointer,
 *    no division but by a constant, nothing that ends the clause), and
 *    the predicate none or one the kernel tests (below).  Then run.c
 *    reaches the store exactly when the kernel does, so the kernel
 *    makes it too, after the values (those before the clause's
 *    stores), for the clauses and hits after; dtrace runs it on its own
 *    copy, which later reads in the clause see, and puts back what it
 *    held after the clause.  Any other store of it in a clause user
 *    space runs (after a copy, which may fault; in an if) makes the
 *    variable user space's, as before, kplan_why.c naming the store.
 *  - Unset reads as 0 either way: the kernel's absent entry reads 0,
 *    and 0 in the area deletes dtrace's copy, as run.c's store of 0
 *    deletes it; set, it has the type T every store gives it, the one
 *    the kernel's plans are typed by (var_keep()).
 *  - Per thread: the value is the hit's thread's (cgtls under {tid,
 *    variable}), dtrace's copy the record's tid's, there only while
 *    the clause runs: a thread's variables die with it in the kernel
 *    (bpf_agg.c's reap) and dtrace keeps none.
 *  - The predicate: where it is an integer the kernel computes, of its
 *    variables (so those the area carries) and the hit's values, that
 *    cannot fault, stores nothing, reads no memory by an address
 *    (kp_sout_here()), no string and no timestamp (a record gate's
 *    rule, kplan.c's gate_ok()), and whose test is the same
 *    instructions whichever of its variables are set (vpred_ok(), as
 *    clause_typed()), the kernel tests it first (k->vpred): false, the
 *    values and ODONE are jumped over, the clause's ran bit stays 0 and
 *    dtrace does not run it; true, ODONE asks for the record, the
 *    clause's record gate (bpf_agg.c's plan_of()), and dtrace tests the
 *    predicate again on the same values, the same truth.  Else ODONE
 *    runs at every hit and dtrace tests the predicate on the values.
 *  - Speculations: a vin clause that speculates is run as any clause
 *    user space runs; only its variables' values come from the area.
 *  - Where: a clause every hit of which runs a generated program whose
 *    record carries an area (kp_sout_where()), not dtrace's (BEGIN,
 *    END), not one that fires in user space too (ERROR, the clauses
 *    from an exit() decided at the hit on: k->user), nor a sout one;
 *    the values fit the area (UBPF_KOUTMAX).  A probe whose plan cannot
 *    hold them is refused, as a sout clause's (UBPF_KTLS_UNFIT).  A hit
 *    whose record comes unflagged (a process never armed: bpf_agg.c's
 *    tls_user(); at a kernel probe, one so kept: "Two copies" there)
 *    runs every clause with user space's copy, as for every clause
 *    keeping self-> variables; the put back keeps that copy.
 * Still user space's: a variable a user space clause stores but by a
 * kernel store, this-> variables, thread-local arrays and self->
 * strings such a clause touches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

/* Every variable node under n into mark (reads and stores alike). */
static void vars_of(const struct node *n, bool *mark)
{
	if (!n)
		return;
	if (n->op == N_VAR || n->op == N_ASSOC)
		mark[n->sub] = true;
	vars_of(n->a, mark);
	vars_of(n->b, mark);
	vars_of(n->c, mark);
	for (unsigned i = 0; i < n->nargs; i++)
		vars_of(n->args[i], mark);
}

static void stmts_vars(const struct stmt *v, unsigned n, bool *mark)
{
	for (unsigned i = 0; i < n; i++) {
		vars_of(v[i].e, mark);
		for (unsigned j = 0; j < v[i].nargs; j++)
			vars_of(v[i].args[j], mark);
		for (unsigned j = 0; j < v[i].nkeys; j++)
			vars_of(v[i].keys[j], mark);
		stmts_vars(v[i].body, v[i].nbody, mark);
		stmts_vars(v[i].els, v[i].nels, mark);
	}
}

/* The variables clause c of program p touches, into mark (cleared
 * first; kplan_spec.c's d_kplan_specs_late() asks too). */
void kp_clause_vars(const struct d_prog *p, const struct clause *c, bool *mark)
{
	memset(mark, 0, p->nvars * sizeof(*mark));
	vars_of(c->pred, mark);
	stmts_vars(c->stmts, c->nstmts, mark);
}

static void clause_vars(const struct d_kplan *k, const struct clause *c,
			bool *mark)
{
	kp_clause_vars(k->prog, c, mark);
}

/* An element read that open_bits() did not register: open all the same */
#define KP_OPEN (1u << 31)

/*
 * The bits (vbit) of the variables read under n whose type is open.  An
 * element of a KV_ELEMS array has a bit of its own per read (one set and
 * another unset is what user space may see: run.c types each element by
 * what was stored in it), nbits + its index in k->elem, registered there
 * when reg (typing: ty_all(), clause_typed()), else KP_OPEN when not; the
 * element a '=' stores is not read.
 */
static uint32_t open_bits(struct d_kplan *k, const struct node *n, bool reg)
{
	uint32_t b = 0;
	unsigned i;

	if (!n)
		return 0;
	if (n->op == N_VAR && k->vbit[n->sub] >= 0)
		b |= 1u << k->vbit[n->sub];
	if (n->op == N_ASSOC && k->vbit[n->sub] == KV_ELEMS) {
		for (i = 0; i < k->nelem && k->elem[i] != n; i++)
			;
		if (i == k->nelem && reg && i < KP_ELEMS &&
		    k->nbits + (int)i < 31)
			k->elem[k->nelem++] = n;
		else if (i == k->nelem && reg)
			k->elem_full = true;
		b |= i < k->nelem ? 1u << (k->nbits + (int)i) : KP_OPEN;
	}
	if (n->op == N_ASSIGN && n->sub == '=' && n->a &&
	    n->a->op == N_ASSOC) { /* its keys only */
		for (i = 0; i < n->a->nargs; i++)
			b |= open_bits(k, n->a->args[i], reg);
		return b | open_bits(k, n->b, reg);
	}
	b |= open_bits(k, n->a, reg) | open_bits(k, n->b, reg) |
	     open_bits(k, n->c, reg);
	for (i = 0; i < n->nargs; i++)
		b |= open_bits(k, n->args[i], reg);
	return b;
}

/* The next subset of set after s (0 after the last). */
static uint32_t next_subset(uint32_t s, uint32_t set)
{
	return (s - set) & set;
}

/* n's one type, whichever of its variables are set; false if none. */
static bool ty_all(struct d_kplan *k, const struct node *n, uint8_t *sz,
		   uint8_t *sg)
{
	uint32_t set, s = 0;
	uint8_t z, g;
	bool ok = true;

	k->nelem = 0;
	k->elem_full = false;
	set = open_bits(k, n, true);
	if (__builtin_popcount(set) > 4 || k->elem_full)
		return false;
	k->absent = 0;
	if (!kp_ty(k, n, sz, sg))
		return false;
	while ((s = next_subset(s, set)) != 0 && ok) {
		k->absent = s;
		ok = kp_ty(k, n, &z, &g) && z == *sz && g == *sg;
	}
	k->absent = 0;
	k->nelem = 0;
	return ok;
}

/*
 * The type T every store of variable v in the traced clauses gives it,
 * into *tz, *tg (none: its zero's): 1; 0 when two stores disagree; -1
 * when a store reads what the kernel cannot give (*bad, where asked, the
 * statement).  all: each store typed as ty_all() types it, with its
 * variables set and unset (the plan's); else as kp_ty() does, which
 * leaves k as it is (kplan_why.c's, naming what failed).
 */
int kp_stores_type(struct d_kplan *k, unsigned v, bool all, uint8_t *tz,
		   uint8_t *tg, const struct stmt **bad)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	bool seen = false;
	uint8_t z, g;

	*tz = var->declared ? var->sz : 8;
	*tg = var->declared ? var->sg : 1;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (kp_dtrace_only(c))
			continue;
		/* a store in a branch too: one path's store gives the
		 * variable its type as one at the top */
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct node *b;
			struct node bin, one;

			if (kp_assigned_var(c->flat[i]) != (int)v)
				continue;
			/* a self-> variable set to 0 is deleted: it reads as
			 * unset, its zero's type */
			b = kp_stored(c->flat[i], &bin, &one);
			if ((var->scope == SC_SELF ||
			     var->scope == SC_SELFASSOC) &&
			    b->op == N_INT &&
			    b->ival == 0)
				continue;
			if (!(all ? ty_all(k, b, &z, &g) : kp_ty(k, b, &z, &g))) {
				if (bad)
					*bad = c->flat[i];
				return -1;
			}
			if (var->declared) { /* d_var_conv() */
				z = var->sz;
				g = var->sg;
			}
			if (seen && (z != *tz || g != *tg))
				return 0;
			*tz = z;
			*tg = g;
			seen = true;
		}
	}
	return 1;
}

static bool stores_type(struct d_kplan *k, unsigned v, uint8_t *tz, uint8_t *tg)
{
	return kp_stores_type(k, v, true, tz, tg, NULL) > 0;
}

/* v is kept, of type T (tz, tg): its bit when T is not its zero's type */
static void var_keep(struct d_kplan *k, unsigned v, uint8_t tz, uint8_t tg)
{
	const struct var *var = &k->prog->vars[v];

	k->vst[v] = KV_KERN;
	k->vsz[v] = tz;
	k->vsg[v] = tg;
	if (var->declared || (tz == 8 && tg == 1))
		return;
	/* an array's elements are each set or unset: each read its own
	 * bit, as the clause is typed (open_bits()) */
	if (var->scope == SC_SELFASSOC)
		k->vbit[v] = KV_ELEMS;
	else if (k->nbits < 31)
		k->vbit[v] = k->nbits++;
	else
		k->vst[v] = KV_NO;
}

/*
 * A pass over the variables whose T is not known: true when one became
 * known.  A store that reads the variable itself (self->n = self->n + 1)
 * is known only by supposing T is the zero's type and finding every
 * store gives it that (the last resort, when no pass finds more).
 */
static bool vars_type_pass(struct d_kplan *k, bool suppose)
{
	const struct d_prog *p = k->prog;
	uint8_t tz, tg;

	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];
		uint8_t zz = var->declared ? var->sz : 8;
		uint8_t zg = var->declared ? var->sg : 1;

		if (k->vst[v] != KV_CAND)
			continue;
		if (!suppose) {
			if (!stores_type(k, v, &tz, &tg))
				continue;
			var_keep(k, v, tz, tg);
			return true;
		}
		k->vst[v] = KV_KERN;
		k->vsz[v] = zz;
		k->vsg[v] = zg;
		k->vbit[v] = -1;
		if (stores_type(k, v, &tz, &tg) && tz == zz && tg == zg)
			return true;
		k->vst[v] = KV_CAND;
	}
	return false;
}


/*
 * Whether clause ci's plan is the same whichever of its variables are
 * set: the types of a variable set and unset may differ (a store of
 * timestamp makes it unsigned, an unset one reads as a signed 0), and
 * the plan must not depend on which one user space would have seen.
 */
static bool clause_typed(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	static const struct d_probe none;
	struct ubpf_kplan *a, *b;
	uint32_t set, s = 0;
	bool ok;

	k->nelem = 0;
	k->elem_full = false;
	set = open_bits(k, c->pred, true);
	for (unsigned i = 0; i < c->nflat; i++) { /* conditions too */
		const struct stmt *st = c->flat[i];

		set |= open_bits(k, st->e, true);
		for (unsigned j = 0; j < st->nargs; j++)
			set |= open_bits(k, st->args[j], true);
		for (unsigned j = 0; j < st->nkeys; j++)
			set |= open_bits(k, st->keys[j], true);
	}
	if (!set)
		return true;
	if (__builtin_popcount(set) > 4 || k->elem_full)
		return false;
	a = xcalloc(1, sizeof(*a));
	b = xcalloc(1, sizeof(*b));
	k->absent = 0;
	ok = kp_clause_emit(k, ci, &none, a);
	while (ok && (s = next_subset(s, set)) != 0) {
		k->absent = s;
		memset(b, 0, sizeof(*b));
		ok = kp_clause_emit(k, ci, &none, b) && a->nops == b->nops &&
		     !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
		/* and the keys' types, which the merge gives them */
		for (unsigned i = 0; ok && i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			const struct kstmt *ks = &k->st[k->first[ci] + i];

			for (unsigned j = 0; ok && j < st->nkeys; j++) {
				uint8_t z, g;

				ok = ks->kid[j] >= 0 || (int)j == ks->skey ||
				     j + 1 == ks->kcomm || j + 1 == ks->skey2 ||
				     (kp_ty(k, st->keys[j], &z, &g) &&
				      z == ks->ksz[j] && g == ks->ksg[j]);
			}
		}
	}
	k->absent = 0;
	k->nelem = 0;
	free(a);
	free(b);
	return ok;
}

/* The if statements of clause c (its flat list's S_IFs). */
unsigned kp_nifs(const struct clause *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nflat; i++)
		n += c->flat[i]->kind == S_IF;
	return n;
}

/* Does n compare a string, or read one (strlen())? */
static bool str_touch(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return false;
	if (n->kind == T_STR || kp_has_str_cmp(k, n))
		return true;
	if (str_touch(k, n->a) || str_touch(k, n->b) || str_touch(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (str_touch(k, n->args[i]))
			return true;
	return false;
}

/* Is st a store of a KV_STR variable (kplan_out.c's kp_sstr_ok() says
 * whether the kernel makes it)? */
static bool svar_store(const struct d_kplan *k, const struct stmt *st)
{
	return st->kind == S_EXPR && st->e && st->e->op == N_ASSIGN &&
	       kp_out_svar(k, st->e->a);
}

/*
 * if/else in the generated programs (doc/DESIGN.md §8; kplan_emit.c's
 * emit_list()).  What is built is a subset: a clause with an if is the
 * kernel's only with k->vars (D_KPLAN_VARS: the generic program, kfix
 * and the in-process recorder never see UBPF_K_JMP), at most KP_IFS
 * ifs, and no string anywhere in its statements or conditions but in
 * printf() and trace() (kp_out_ok()'s, at the top or in a branch) and
 * KV_STR variables' stores (kp_sstr_ok()'s: SSTR, SLIT, SMOV, SCLR;
 * no other string stored, no string key but a literal or execname),
 * the values of its stores and aggregations what kp_stmt_ok() takes
 * (a string compared or measured, as at the top) and its
 * conditions, each what a predicate may be (kp_flat_ok()'s
 * kp_ty_at(): string comparisons too, their fault sites
 * fsite_assign()'s at the if's action, a fault ending the clause as
 * run.c's does), so the kernel runs exactly the branch run.c would; an if with
 * printing under it leaves its condition's value in the out area
 * (kplan_out.c's kp_if_out(), the KEEP OUT), which dtrace's walk
 * (d_kplan_out_run()) and pre mode (../d/stmt.c) take to run the same
 * branch's printf() and trace(), and a copy's fault ends the clause on
 * its path (kp_out_ends(): an if after it is "other"; an SSTR's
 * always).  Why not, for
 * the whole clause, into buf; NULL where such a clause may be the
 * kernel's.
 */
const char *kp_if_why(const struct d_kplan *k, unsigned ci, char *buf,
		      size_t len)
{
	const struct clause *c = &k->prog->clauses[ci];
	unsigned nifs = kp_nifs(c);

	if (!nifs)
		return NULL;
	if (!k->vars) {
		snprintf(buf, len,
			 "it has an if statement, which only the generated "
			 "programs run");
		return buf;
	}
	if (nifs > KP_IFS) {
		snprintf(buf, len, "it has more than %d if statements", KP_IFS);
		return buf;
	}
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct stmt *st = c->flat[i];
		bool s, val;

		if (st->kind == S_PRINTF || st->kind == S_TRACE ||
		    svar_store(k, st))
			continue; /* kp_out_ok()'s, in a branch too */
		/* a condition: what a predicate may compare (kp_flat_ok()'s
		 * kp_ty_at(), its fault sites fsite_assign()'s); a store's or
		 * an aggregation's value: what kp_stmt_ok() takes, as at the
		 * top (an integer: a string compared or measured, its fault
		 * sites fsite_assign()'s too) */
		val = st->kind == S_IF || st->kind == S_EXPR ||
		      st->kind == S_AGG;
		s = !val && str_touch(k, st->e);

		for (unsigned j = 0; !s && !val && j < st->nargs; j++)
			s = str_touch(k, st->args[j]);
		/* a literal or execname keys (LKEY, CKEY): no fault */
		for (unsigned j = 0; !s && j < st->nkeys; j++)
			s = st->keys[j]->op != N_STR &&
			    !kp_is_comm(st->keys[j]) &&
			    str_touch(k, st->keys[j]);
		if (s) {
			snprintf(buf, len,
				 "line %d: a clause with an if statement is "
				 "the kernel's only without strings but in "
				 "printf(), trace(), string variables' "
				 "stores, conditions and values, and this "
				 "statement has them",
				 st->line);
			return buf;
		}
	}
	return NULL;
}

bool kp_flat_ok(const struct d_kplan *k, unsigned ci, unsigned i,
		struct kstmt *ks)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct stmt *st = c->flat[i];
	char buf[200];
	uint8_t sz, sg;

	if (i < c->nstmts && !kp_nifs(c))
		return kp_stmt_ok(k, st, ks) ||
		       kp_out_ok(k, ci, i, ks); /* kplan_out.c */
	if (kp_if_why(k, ci, buf, sizeof(buf)))
		return false;
	if (st->kind == S_PRINTF || st->kind == S_TRACE)
		return kp_out_ok(k, ci, i, ks) && ks->out; /* kplan_out.c */
	if (svar_store(k, st)) /* SSTR, SLIT, SMOV, SCLR: kplan_out.c */
		return kp_sstr_ok(k, ci, st, ks);
	if (st->kind == S_IF) { /* its condition, as a predicate */
		memset(ks, 0, sizeof(*ks));
		ks->st = st;
		ks->cond = ks->assign = true;
		ks->agg = ~0u;
		ks->slot = ks->svar = ks->skey = -1;
		return kp_ty_at(k, KP_ANYPROBE, st->e, &sz, &sg);
	}
	/* integers, a literal's or execname's key (kp_if_why()): no
	 * copy, no string variable */
	if (!kp_stmt_ok(k, st, ks))
		return false;
	if (ks->assign) /* of an integer */
		return k->vst[kp_assigned_var(st)] != KV_SARG;
	return (ks->skey < 0 || ks->sx == KSX_LIT || ks->sx == KSX_COMM) &&
	       ks->svar < 0 && !ks->kcomm && !ks->skey2 && !ks->sbare;
}

/* Clause ci alone: can the kernel run it?  Its statements (c->flat)
 * into k->st. */
bool kp_clause_ok(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	uint8_t sz, sg;
	bool ok = c->nstmts > 0 && k->nst + c->nflat <= UINT16_MAX &&
		  (!c->pred || kp_ty_at(k, KP_ANYPROBE, c->pred, &sz, &sg));

	k->first[ci] = k->nst;
	xgrow(&k->st, &k->stcap, (size_t)k->nst + c->nflat, sizeof(*k->st));
	for (unsigned i = 0; ok && i < c->nflat; i++)
		ok = kp_flat_ok(k, ci, i, &k->st[k->nst + i]);
	if (!ok)
		return false;
	/* an out area that cannot hold the clause's own values: user
	 * space's, with its variables (the probe's would be refused) */
	if (kp_out_clause(k, ci) &&
	    sizeof(struct ubpf_kout) + d_kplan_out_bytes(k, ci) > UBPF_KOUTMAX)
		return false;
	if (!kp_clause_room(k, ci)) /* its copies (kplan_mem.c) */
		return false;
	k->ok[ci] = true; /* for kp_clause_emit() */
	if (k->vars && !clause_typed(k, ci)) {
		k->ok[ci] = false;
		k->untyped[ci] = true;
		return false;
	}
	return true;
}

/*
 * The predicate of sout clause c, computed in the kernel too (kplan_spec.c's
 * "Speculations")?  Where it is an integer the kernel computes
 * (kp_ty(): the variables it reads the kernel's, none of a type still
 * open), that cannot fault (no copy, no string, no division but by a
 * constant other than 0: kp_ty()) and stores nothing (kp_sout_here(),
 * sout_ok()): its value at the clause's place among the probe's kernel
 * clauses is the one the interpreter would have had at the hit, and
 * computing it on every hit changes nothing.  Its variables then stay
 * the kernel's (kp_vars_decide()), so the clauses storing them run in
 * the kernel, not from records.  E, speculate()'s argument, stays user
 * space's: it reads an ID that speculation(), user space's, returned.
 */
static bool spred_ok(struct d_kplan *k, const struct clause *c)
{
	uint8_t sz, sg;

	return c->pred && c->pred->kind != T_STR &&
	       kp_ty(k, c->pred, &sz, &sg) && !kp_has_str_cmp(k, c->pred) &&
	       !open_bits(k, c->pred, false);
}

/*
 * A speculating clause whose printf() and trace() values the kernel
 * computes at the hit while user space runs the rest (kplan_spec.c's
 * "Speculations"): speculate(E) first, then printf() and trace() only,
 * each of whose arguments kplan_out.c takes (kp_out_ok(): integers and
 * strings the kernel computes, of variables it keeps, none of a type
 * still open); the predicate and E read nothing by an address, store
 * nothing and call no speculation() (kp_sout_here()); E is user
 * space's, and so is the predicate unless spred_ok() gives it to the
 * kernel too; the variables of those user space runs are its own
 * (kp_vars_decide() takes them away from the kernel, as a user space
 * clause's).  Not where a
 * horizon may send a hit to user space past it, nor for a clause that
 * must fire in user space (k->user).  Its statements into k->st, as
 * kp_clause_ok()'s.
 */
static bool sout_ok(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	k->sout[ci] = false;
	k->spred[ci] = false;
	if (!k->vars || k->horizon || (k->user && k->user[ci]) ||
	    kp_dtrace_only(c) || c->nstmts < 2 ||
	    k->nst + c->nstmts > UINT16_MAX ||
	    c->stmts[0].kind != S_SPECULATE || !kp_sout_here(c->pred) ||
	    !kp_sout_here(c->stmts[0].e) || kp_clause_mem(k, ci))
		return false;
	k->first[ci] = k->nst;
	xgrow(&k->st, &k->stcap, (size_t)k->nst + c->nstmts, sizeof(*k->st));
	memset(&k->st[k->nst], 0, sizeof(k->st[0]));
	k->st[k->nst].st = &c->stmts[0];
	k->st[k->nst].slot = -1;
	k->st[k->nst].skey = -1;
	k->st[k->nst].svar = -1;
	/* not an aggregation (kaggs, kflat, the merge skip it) */
	k->st[k->nst].assign = true;
	k->st[k->nst].agg = ~0u;
	for (unsigned i = 1; i < c->nstmts; i++) {
		const struct stmt *st = &c->stmts[i];

		if ((st->kind != S_PRINTF && st->kind != S_TRACE) ||
		    !kp_out_ok(k, ci, i, &k->st[k->nst + i]) ||
		    !k->st[k->nst + i].out || open_bits(k, st->e, false))
			return false;
		for (unsigned j = 0; j < st->nargs; j++)
			if (open_bits(k, st->args[j], false))
				return false;
	}
	k->spred[ci] = spred_ok(k, c);
	if (sizeof(struct ubpf_kout) + d_kplan_out_bytes(k, ci) > UBPF_KOUTMAX)
		return false;
	k->sout[ci] = true;
	return true;
}

static bool stores_into(const struct node *n, unsigned v);

/*
 * A clause user space runs that reads self-> integers the kernel keeps
 * (k->vin: "Shared self-> variables" in kp_vars_decide()'s comment):
 * one that may have an out area (kp_sout_where(): every probe it fires
 * at runs a generated program), not dtrace's own (BEGIN, END), not one
 * that fires in user space too (ERROR, the clauses from an exit()
 * decided at the hit on: k->user), nor a sout one (its own area).
 */
static bool vin_where(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	return k->vars && !k->horizon && !k->ok[ci] && !k->sout[ci] &&
	       (!k->user || !k->user[ci]) && !kp_dtrace_only(c) &&
	       !kp_sout_where(k, ci);
}

/* Does a statement of v (n of them) store variable w? */
static bool stmts_store(const struct stmt *v, unsigned n, unsigned w)
{
	for (unsigned i = 0; i < n; i++) {
		if (stores_into(v[i].e, w))
			return true;
		for (unsigned j = 0; j < v[i].nargs; j++)
			if (stores_into(v[i].args[j], w))
				return true;
		for (unsigned j = 0; j < v[i].nkeys; j++)
			if (stores_into(v[i].keys[j], w))
				return true;
		if (stmts_store(v[i].body, v[i].nbody, w) ||
		    stmts_store(v[i].els, v[i].nels, w))
			return true;
	}
	return false;
}

/*
 * Can n, as run.c evaluates it, neither fault nor end the clause?  An
 * integer of constants, arguments, the hit's integers (pid, tid, uid,
 * gid, cpu, id, epid, the timestamps, errno) and variables (no pointer
 * or struct), operators but / and % by other than a constant not 0;
 * with whole (a printf() or trace() argument or a key, whole), also a
 * literal, execname, a probe's name, a string variable or ustack() of
 * constants.
 */
static bool ufree(const struct d_prog *p, const struct node *n, bool whole)
{
	int64_t c;

	if (!n)
		return true;
	if (n->op != N_STR && n->op != N_VAR && n->op != N_BUILTIN &&
	    n->op != N_FUNC && n->kind == T_STR)
		return false;
	switch (n->op) {
	case N_INT:
	case N_ARGN:
		return true;
	case N_STR:
		return whole;
	case N_VAR: {
		const struct var *v = &p->vars[n->sub];

		return !v->ptr && !v->psou && !v->sou && !n->sou &&
		       (v->kind != T_STR || whole);
	}
	case N_BUILTIN:
		switch (d_builtins[n->sub].id) {
		case B_PID:
		case B_TID:
		case B_UID:
		case B_GID:
		case B_CPU:
		case B_ID:
		case B_EPID:
		case B_TIMESTAMP:
		case B_VTIMESTAMP:
		case B_WALLTIMESTAMP:
		case B_ERRNO:
			return true;
		case B_EXECNAME:
		case B_PROBEPROV:
		case B_PROBEMOD:
		case B_PROBEFUNC:
		case B_PROBENAME:
			return whole;
		default:
			return false;
		}
	case N_FUNC:
		if (!whole || d_funcs[n->sub].id != F_USTACK)
			return false;
		for (unsigned i = 0; i < n->nargs; i++)
			if (n->args[i]->op != N_INT)
				return false;
		return true;
	case N_BIN:
		if ((n->sub == '/' || n->sub == '%') &&
		    (!kp_const_of(n->b, &c) || !c))
			return false;
		return ufree(p, n->a, false) && ufree(p, n->b, false);
	case N_UN:
	case N_CAST:
		return ufree(p, n->a, false);
	case N_LAND:
	case N_LOR:
	case N_LXOR:
	case N_TERN:
		return ufree(p, n->a, false) && ufree(p, n->b, false) &&
		       ufree(p, n->c, false);
	default:
		return false;
	}
}

/* Does run.c run statement st to its end, with no fault, nothing that
 * ends the clause: printf(), trace(), an aggregation, a store, of
 * ufree() values? */
static bool ustmt_free(const struct d_prog *p, const struct stmt *st)
{
	const struct node *e = st->e;

	switch (st->kind) {
	case S_PRINTF:
		for (unsigned j = 0; j < st->nargs; j++)
			if (!ufree(p, st->args[j], true))
				return false;
		return true;
	case S_TRACE:
		return ufree(p, e, true);
	case S_AGG:
		for (unsigned j = 0; j < st->nkeys; j++)
			if (!ufree(p, st->keys[j], true))
				return false;
		for (unsigned j = 0; j < st->nargs; j++)
			if (!ufree(p, st->args[j], false))
				return false;
		return true;
	case S_EXPR:
		return e && (e->op == N_ASSIGN || e->op == N_INCDEC) && e->a &&
		       e->a->op == N_VAR && ufree(p, e->a, false) &&
		       ufree(p, e->b, false);
	default:
		return false;
	}
}

static bool vpred_ok(struct d_kplan *k, unsigned ci);
static bool typed_same(struct d_kplan *k, const struct node *n,
		       const struct stmt *st);

/*
 * Statement i of clause ci, which user space runs, a store of v the
 * kernel makes at the clause's place too (a kernel store: "Shared
 * self-> variables"): v = E, v OP= E, v++ or v-- at the clause's top
 * level, every statement before it one run.c runs to its end
 * (ustmt_free()), E one the kernel computes (kp_ty(), of its variables
 * and the hit's values), that cannot fault (ufree()), reads no memory
 * by an address and stores nothing (kp_sout_here()), its instructions
 * the same whichever of its variables are set (typed_same()), and the
 * clause's predicate none or one the kernel tests (vpred_ok()): then
 * the kernel's store is made exactly when run.c's would be.
 */
static bool kstore_ok(struct d_kplan *k, unsigned ci, unsigned i, unsigned v)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct stmt *st = &c->stmts[i];
	const struct node *b;
	struct node bin, one;
	uint8_t sz, sg;

	if (kp_assigned_var(st) != (int)v || st->e->a->op != N_VAR ||
	    (c->pred && !vpred_ok(k, ci)))
		return false;
	for (unsigned l = 0; l < i; l++)
		if (!ustmt_free(k->prog, &c->stmts[l]))
			return false;
	b = kp_stored(st, &bin, &one);
	return kp_ty(k, b, &sz, &sg) && ufree(k->prog, b, false) &&
	       kp_sout_here(b) && !kp_has_str_cmp(k, b) &&
	       typed_same(k, NULL, st);
}

/* Does clause ci store v only where the kernel can make the store too
 * (kstore_ok()), and not in its predicate? */
static bool vin_stores_ok(struct d_kplan *k, unsigned ci, unsigned v)
{
	const struct clause *c = &k->prog->clauses[ci];

	if (stores_into(c->pred, v))
		return false;
	for (unsigned i = 0; i < c->nstmts; i++)
		if (stmts_store(&c->stmts[i], 1, v) && !kstore_ok(k, ci, i, v))
			return false;
	return true;
}

/* May variable v, which clause ci touches, be carried in ci's record
 * (vin_where()'s clause): a self-> integer the kernel keeps that ci
 * only reads, or stores only where the kernel can make the store
 * (kstore_ok())? */
static bool vin_var(struct d_kplan *k, unsigned ci, unsigned v)
{
	return k->vst[v] == KV_KERN && k->prog->vars[v].scope == SC_SELF &&
	       vin_stores_ok(k, ci, v);
}

int kp_vin_why(const struct d_kplan *k, unsigned ci, unsigned v)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct var *var = &k->prog->vars[v];

	if (!vin_stores_ok((struct d_kplan *)k, ci, v))
		return 1;
	if (var->scope != SC_SELF || var->kind == T_STR || var->ptr ||
	    var->psou || var->sou)
		return 2;
	if (!k->vars || k->horizon || k->sout[ci] ||
	    (k->user && k->user[ci]) || kp_dtrace_only(c) ||
	    kp_sout_where(k, ci))
		return 3;
	return 0;
}

void kp_vin_vars(const struct d_kplan *k, unsigned ci, bool *mark)
{
	const struct clause *c = &k->prog->clauses[ci];

	clause_vars(k, c, mark);
	for (unsigned v = 0; v < k->prog->nvars; v++)
		mark[v] = mark[v] && vin_var((struct d_kplan *)k, ci, v);
}

unsigned kp_vin_count(const struct d_kplan *k, unsigned ci, bool *mark)
{
	unsigned n = 0;

	kp_vin_vars(k, ci, mark);
	for (unsigned v = 0; v < k->prog->nvars; v++)
		n += mark[v];
	return n;
}

/* Does n read timestamp or walltimestamp? */
static bool reads_time(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_TIMESTAMP ||
				   d_builtins[n->sub].id == B_WALLTIMESTAMP))
		return true;
	if (reads_time(n->a) || reads_time(n->b) || reads_time(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (reads_time(n->args[i]))
			return true;
	return false;
}

/*
 * The predicate of vin clause ci, tested in the kernel at its place
 * too ("Shared self-> variables")?  Where it is an integer the kernel
 * computes (kp_ty(): its variables the kernel's, so those the record
 * carries), that cannot fault, stores nothing and reads no memory by
 * an address (kp_sout_here()), no string, no timestamp (as a record
 * gate's: gate_ok()), and whose test is the same instructions
 * whichever of its variables are set (as clause_typed()): then its
 * truth at the hit is the one user space computes from the record's
 * values.
 */
static bool vpred_ok(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	uint8_t sz, sg;

	return c->pred && c->pred->kind != T_STR && kp_sout_here(c->pred) &&
	       !reads_time(c->pred) &&
	       kp_ty_at(k, KP_ANYPROBE, c->pred, &sz, &sg) &&
	       !kp_has_str_cmp(k, c->pred) && typed_same(k, c->pred, NULL);
}

/* Are the instructions of predicate n's test (or, n NULL, of store st,
 * a kernel store) the same whichever of its variables are set (as
 * clause_typed())? */
static bool typed_same(struct d_kplan *k, const struct node *n,
		       const struct stmt *st)
{
	static const struct d_probe none;
	struct ubpf_kplan *a, *b;
	struct node bin, one;
	uint32_t set, s = 0;
	bool ok;

	k->nelem = 0;
	k->elem_full = false;
	set = open_bits(k, n ? n : kp_stored(st, &bin, &one), true);
	if (__builtin_popcount(set) > 4 || k->elem_full) {
		k->nelem = 0;
		return false;
	}
	a = xcalloc(1, sizeof(*a));
	b = xcalloc(1, sizeof(*b));
	k->absent = 0;
	ok = kp_pred_emit(k, n, st, &none, a);
	while (ok && (s = next_subset(s, set)) != 0) {
		k->absent = s;
		memset(b, 0, sizeof(*b));
		ok = kp_pred_emit(k, n, st, &none, b) && a->nops == b->nops &&
		     !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
	}
	k->absent = 0;
	k->nelem = 0;
	free(a);
	free(b);
	return ok;
}

/* The variables of sout clause c's printf() and trace(), into mark
 * (cleared first): the kernel's */
static void sout_kvars(const struct d_kplan *k, unsigned ci, bool *mark)
{
	const struct clause *c = &k->prog->clauses[ci];

	memset(mark, 0, k->prog->nvars * sizeof(*mark));
	stmts_vars(&c->stmts[1], c->nstmts - 1, mark);
	if (k->spred[ci]) /* and its predicate's */
		vars_of(c->pred, mark);
}

/* Does clause c compare a string (kp_str_cmp())?  In its conditions
 * and branches too (c->flat). */
static bool clause_strs(const struct d_kplan *k, const struct clause *c)
{
	if (kp_has_str_cmp(k, c->pred))
		return true;
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct stmt *st = c->flat[i];

		if (kp_has_str_cmp(k, st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (kp_has_str_cmp(k, st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (kp_has_str_cmp(k, st->keys[j]) ||
			    kp_arg_str(k, st->keys[j]) >= 0)
				return true;
	}
	return false;
}

/* this->v = copyinstr(argN), a statement of its own: N, else -1 */
static int sarg_store(const struct stmt *st, unsigned v)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || e->sub != '=' ||
	    e->a->op != N_VAR || e->a->sub != (int)v)
		return -1;
	return kp_copyinstr_arg(e->b);
}

/* Does n store into variable v? */
static bool stores_into(const struct node *n, unsigned v)
{
	if (!n)
		return false;
	if ((n->op == N_ASSIGN || n->op == N_INCDEC) && n->a &&
	    (n->a->op == N_VAR || n->a->op == N_ASSOC) && n->a->sub == (int)v)
		return true;
	if (stores_into(n->a, v) || stores_into(n->b, v) ||
	    stores_into(n->c, v))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (stores_into(n->args[i], v))
			return true;
	return false;
}

/* Does statement st (and what it holds) touch variable v, or store it? */
static void stmt_touch(const struct d_kplan *k, const struct stmt *st,
		       unsigned v, bool *mark, bool *store)
{
	memset(mark, 0, k->prog->nvars * sizeof(*mark));
	stmts_vars(st, 1, mark);
	*store = stores_into(st->e, v);
	for (unsigned j = 0; j < st->nargs; j++)
		*store |= stores_into(st->args[j], v);
	for (unsigned j = 0; j < st->nkeys; j++)
		*store |= stores_into(st->keys[j], v);
	for (unsigned j = 0; j < st->nbody; j++)
		*store |= stores_into(st->body[j].e, v);
	if (st->nbody || st->nels)
		*store |= mark[v]; /* a branch's: taken or not */
}

/* Does clause cj store v = copyinstr(argN) at its top level on every
 * firing of every probe clause ci fires on, before ci runs? */
static bool sarg_before(const struct d_kplan *k, unsigned ci, unsigned v,
			int arg)
{
	const struct clause *c = &k->prog->clauses[ci];

	for (unsigned cj = 0; cj < ci; cj++) {
		const struct clause *d = &k->prog->clauses[cj];
		unsigned j;

		if (d->pred || d->spec != c->spec || d->ndescs != c->ndescs)
			continue;
		for (j = 0; j < c->ndescs; j++)
			if (strcmp(c->descs[j], d->descs[j]))
				break;
		if (j < c->ndescs)
			continue;
		for (j = 0; j < d->nstmts; j++)
			if (sarg_store(&d->stmts[j], v) == arg)
				return true;
	}
	return false;
}

/*
 * A this-> string whose every store is this->v = copyinstr(argN), one
 * N, as a statement of its own, and every read of which comes after
 * one of them in the same firing -- later in its clause, or anywhere in
 * a clause after one without a predicate on the same probe
 * descriptions (sarg_before()) -- is the string of argument N, which
 * the generated program copies once per firing (cgen.c's seq_read()):
 * the read of a string that cannot be read sends the hit to user
 * space whole, and so does the store's own copy (kp_clause_emit()), so
 * the fault is reported as run.c reports it.  Never set in a firing it
 * would read as "", which is not argument N's string: that is why the
 * reads must follow a store.  A clause that reads such a variable
 * compares it (kp_str_cmp()) or keys an aggregation by it (kp_arg_str());
 * anything else refuses the clause, and kp_vars_decide() the variable
 * with it.  N, else -1.
 */
static int sarg_var(const struct d_kplan *k, unsigned v, bool *mark)
{
	const struct d_prog *p = k->prog;
	int arg = -1;
	bool store;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (stores_into(c->pred, v))
			return -1;
		for (unsigned i = 0; i < c->nstmts; i++) {
			int a = sarg_store(&c->stmts[i], v);

			stmt_touch(k, &c->stmts[i], v, mark, &store);
			if (a < 0 && store)
				return -1;
			if (a >= 0 && arg >= 0 && a != arg)
				return -1;
			if (a >= 0)
				arg = a;
		}
	}
	if (arg < 0)
		return -1;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		bool set;

		clause_vars(k, c, mark);
		if (!mark[v])
			continue;
		if (kp_dtrace_only(c))
			return -1;
		set = sarg_before(k, ci, v, arg);
		memset(mark, 0, p->nvars * sizeof(*mark));
		vars_of(c->pred, mark);
		if (mark[v] && !set)
			return -1;
		for (unsigned i = 0; i < c->nstmts && !set; i++) {
			if (sarg_store(&c->stmts[i], v) >= 0) {
				set = true;
				continue;
			}
			stmt_touch(k, &c->stmts[i], v, mark, &store);
			if (mark[v])
				return -1;
		}
	}
	return arg;
}

/* Is n execname OP v, or v OP execname (OP == != < <= > >=:
 * kplan_str.c's kp_comm_cmp(), UBPF_K_CVCMP)? */
static bool comm_pair(const struct node *n, unsigned v)
{
	const struct node *o;

	if (n->op != N_BIN ||
	    (n->sub != OP_EQ && n->sub != OP_NE && n->sub != '<' &&
	     n->sub != '>' && n->sub != OP_LE && n->sub != OP_GE))
		return false;
	if (kp_is_comm(n->a))
		o = n->b;
	else if (kp_is_comm(n->b))
		o = n->a;
	else
		return false;
	return o->op == N_VAR && o->sub == (int)v;
}

/* Is every read of v under n, if any, a comparison with a literal
 * (kp_svar_lit(), kp_svar_olit()), with another string variable
 * (kp_svar_pair()), with execname (comm_pair()) or with an argument's
 * string
 * (kp_svar_arg()), or its strlen() (kp_svar_len()), a
 * self-> string's, or with tcmp a this-> one's? */
static bool cmp_reads_only(const struct d_prog *p, const struct node *n,
			   unsigned v, bool tcmp)
{
	int w, x;

	if (!n)
		return true;
	if ((kp_svar_lit(p, n, &w, NULL) || kp_svar_len(p, n, &w) ||
	     kp_svar_olit(p, n, &w, NULL, NULL)) &&
	    w == (int)v && (tcmp || p->vars[v].scope != SC_THIS))
		return true;
	if (kp_svar_pair(p, n, &w, &x) && (w == (int)v || x == (int)v) &&
	    (tcmp || p->vars[v].scope != SC_THIS))
		return true;
	if (comm_pair(n, v) && (tcmp || p->vars[v].scope != SC_THIS))
		return true;
	if (kp_svar_arg(p, n) == (int)v &&
	    (tcmp || p->vars[v].scope != SC_THIS))
		return true;
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)v)
		return false;
	if (!cmp_reads_only(p, n->a, v, tcmp) ||
	    !cmp_reads_only(p, n->b, v, tcmp) ||
	    !cmp_reads_only(p, n->c, v, tcmp))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!cmp_reads_only(p, n->args[i], v, tcmp))
			return false;
	return true;
}

/* Is key j of statement st, an aggregation's, variable v whole (the
 * kernel keys kaggs_v by its bytes: VKEY)? */
static bool whole_key(const struct stmt *st, unsigned j, unsigned v)
{
	return st->kind == S_AGG && st->keys[j]->op == N_VAR &&
	       st->keys[j]->sub == (int)v;
}

/* Does a statement of v (n of them) key an aggregation by variable
 * w whole? */
static bool keyed_by(const struct stmt *v, unsigned n, unsigned w)
{
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < v[i].nkeys; j++)
			if (whole_key(&v[i], j, w))
				return true;
		if (keyed_by(v[i].body, v[i].nbody, w) ||
		    keyed_by(v[i].els, v[i].nels, w))
			return true;
	}
	return false;
}

/* Does statement st read v only as a whole printf() or trace()
 * argument (OVSTR), compared with a literal (VSEQ), measured (VSLEN)
 * or stored whole into another string variable (SMOV), if at all? */
static bool reads_ok(const struct d_prog *p, const struct stmt *st, unsigned v,
		     bool tcmp)
{
	if (st->kind == S_EXPR && st->e && st->e->op == N_ASSIGN &&
	    st->e->sub == '=' && kp_str_var_of(p, st->e->a) >= 0 &&
	    st->e->a->sub != (int)v && kp_str_var_of(p, st->e->b) == (int)v)
		return true;
	if (st->kind == S_PRINTF || st->kind == S_TRACE) {
		for (unsigned j = 0; j < kp_out_nargs(st); j++) {
			const struct node *a =
				st->kind == S_TRACE ? st->e : st->args[j];

			if (a->op == N_VAR && a->sub == (int)v)
				continue;
			if (!cmp_reads_only(p, a, v, tcmp))
				return false;
		}
		return st->kind == S_TRACE || cmp_reads_only(p, st->e, v, tcmp);
	}
	if (!cmp_reads_only(p, st->e, v, tcmp))
		return false;
	for (unsigned j = 0; j < st->nargs; j++)
		if (!cmp_reads_only(p, st->args[j], v, tcmp))
			return false;
	for (unsigned j = 0; j < st->nkeys; j++)
		if (!whole_key(st, j, v) &&
		    !cmp_reads_only(p, st->keys[j], v, tcmp))
			return false;
	for (unsigned j = 0; j < st->nbody; j++)
		if (!reads_ok(p, &st->body[j], v, tcmp))
			return false;
	for (unsigned j = 0; j < st->nels; j++)
		if (!reads_ok(p, &st->els[j], v, tcmp))
			return false;
	return true;
}

/* Is every read of v under n, if any, a comparison with a literal? */
static bool lit_reads_only(const struct d_prog *p, const struct node *n,
			   unsigned v)
{
	int w;

	if (!n)
		return true;
	if (kp_svar_lit(p, n, &w, NULL) && w == (int)v)
		return true;
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)v)
		return false;
	if (!lit_reads_only(p, n->a, v) || !lit_reads_only(p, n->b, v) ||
	    !lit_reads_only(p, n->c, v))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!lit_reads_only(p, n->args[i], v))
			return false;
	return true;
}

/* ... in statements st[0..n) (a store's own variable not a read; an
 * aggregation's whole key is SKEY's) */
static bool stmts_lit_reads(const struct d_prog *p, const struct stmt *st,
			    unsigned n, unsigned v)
{
	for (unsigned i = 0; i < n; i++) {
		const struct node *e = st[i].e;

		if (e && e->op == N_ASSIGN && e->a->op == N_VAR &&
		    e->a->sub == (int)v)
			e = e->b;
		if (!lit_reads_only(p, e, v))
			return false;
		for (unsigned j = 0; j < st[i].nargs; j++)
			if (!lit_reads_only(p, st[i].args[j], v))
				return false;
		for (unsigned j = 0; j < st[i].nkeys; j++)
			if (!whole_key(&st[i], j, v) &&
			    !lit_reads_only(p, st[i].keys[j], v))
				return false;
		if (!stmts_lit_reads(p, st[i].body, st[i].nbody, v) ||
		    !stmts_lit_reads(p, st[i].els, st[i].nels, v))
			return false;
	}
	return true;
}

/* ... in the whole program: then a this-> string that is an argument's
 * (sarg_var()) is compared in place (SEQ), as before VSEQ read this->
 * strings, rather than copied into cgbuf and compared there */
static bool prog_lit_reads(const struct d_prog *p, unsigned v)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (!lit_reads_only(p, p->clauses[ci].pred, v) ||
		    !stmts_lit_reads(p, p->clauses[ci].stmts,
				     p->clauses[ci].nstmts, v))
			return false;
	return true;
}

/*
 * A this-> or self-> string the kernel keeps as its bytes (KV_STR;
 * kplan_out.c, cgen_out.c): every store of it a statement of its own
 * (at a clause's top or in an if's branch: c->flat),
 * v = copyinstr(E) (kp_sstr_ok() takes E where kp_ty() does), v = 0
 * or "" (which read as "", as run.c's var_get() has it), v = "literal"
 * (kp_str_lit_store()) or v = w, w another such string the kernel
 * keeps (kp_sstr_ok() checks: a w left to user space keeps that
 * clause there, and so v), at least one not a clear, and every read a
 * whole argument of printf() or trace(), the whole right side of
 * another such store, an aggregation's whole key (kplan.c's VKEY:
 * kaggs_v), v == "literal" or v != "literal" or strlen(v)
 * anywhere, or v OP w, OP == != < <= > >= (w another self-> or this->
 * string; kp_svar_vv() wants both kept) (a this-> one's reads only
 * with tcmp), the predicate too
 * (kp_svar_lit(), kp_svar_pair(), kp_svar_len(): the kernel
 * compares or measures the bytes it kept, cgen_svar.c's vseq(),
 * vveq(), vvcmp() and vslen()).  The kernel needs its bytes only to print,
 * compare or measure them, and the clauses that store, print and
 * compare it are kernel clauses like any other (at probes that may
 * have an out area, kp_out_where()): kp_vars_decide() keeps it only
 * while every clause touching it runs there.  BEGIN and END are
 * dtrace's thread's, apart.  kp_vars_decide() asks without tcmp
 * first, so a this-> string that is an argument's (sarg_var()) and
 * only compared stays that, compared in place.
 */
static bool str_var(const struct d_kplan *k, unsigned v, bool *mark, bool tcmp)
{
	const struct d_prog *p = k->prog;
	bool copy = false;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		clause_vars(k, c, mark);
		if (!mark[v] || kp_dtrace_only(c))
			continue;
		if (!kp_out_where(k, c) || !cmp_reads_only(p, c->pred, v, tcmp))
			return false;
		for (unsigned i = 0; i < c->nflat; i++) { /* branches too */
			const struct stmt *st = c->flat[i];
			const struct node *e = st->e;

			if (st->kind == S_IF) { /* its condition (its
						 * branches: their own) */
				if (!cmp_reads_only(p, e, v, tcmp))
					return false;
				continue;
			}
			if (st->kind == S_EXPR && e && e->op == N_ASSIGN &&
			    e->sub == '=' && e->a->op == N_VAR &&
			    e->a->sub == (int)v) {
				bool clr = kp_str_clear(e->b);

				if (!clr && !kp_copyinstr_of(e->b) &&
				    !kp_str_lit_store(p, e->b) &&
				    kp_str_var_of(p, e->b) < 0)
					return false;
				copy |= !clr;
				memset(mark, 0, p->nvars * sizeof(*mark));
				vars_of(e->b, mark);
				if (mark[v])
					return false;
				continue;
			}
			if (!reads_ok(p, st, v, tcmp))
				return false;
		}
	}
	return copy;
}

/*
 * Which variables the kernel keeps: self-> and this-> integers that no
 * clause it cannot run touches (user space would keep a second copy),
 * each of one type T wherever it is stored.  Taking a variable away
 * can take clauses away, which can take more variables: until nothing
 * changes.  BEGIN and END run in dtrace's own thread, whose self->
 * variables are its own and whose firings are not a traced probe's:
 * they keep theirs in user space, apart.
 */
/* fsite_assign()'s walk of n, in DTrace's action number action */
static bool fsite_walk(struct d_kplan *k, const struct node *n, unsigned clause,
		       int action)
{
	int arg;

	if (!n)
		return true;
	if (kp_str_cmp(k, n, &arg, NULL) || kp_svar_acmp(k, n, NULL, &arg)) {
		if (k->nfs >= UBPF_KFSITES)
			return false;
		k->fs[k->nfs++] =
			(struct kfsite){ n, clause, action, (uint8_t)arg };
		return true;
	}
	if (!fsite_walk(k, n->a, clause, action) ||
	    !fsite_walk(k, n->b, clause, action) ||
	    !fsite_walk(k, n->c, clause, action))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!fsite_walk(k, n->args[i], clause, action))
			return false;
	return true;
}

/*
 * fmode: each string comparison of a clause the kernel runs is a fault
 * site, numbered here, with what run.c's report_fault() needs to say
 * of it: the clause, the action (run.c's x->action where it is
 * evaluated: 0 in the predicate, an assignment's own, an aggregation's
 * plus the key's index, or plus the keys' count for its value) and
 * the argument whose string it reads.  The kernel sets the site's bits
 * in the record (cgen.c) when the string cannot be read and ends the
 * clause there; d_kplan_fault() turns them back into the fault.  false
 * when there are more than the record has bits for.
 */
static bool fsite_assign(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	k->nfs = 0;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!k->ok[ci])
			continue;
		if (!fsite_walk(k, c->pred, ci, 0))
			return false;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct kstmt *ks = &k->st[k->first[ci] + i];
			const struct stmt *st = c->flat[i];

			if (ks->assign) { /* an if's condition: its action */
				if (!fsite_walk(k, st->e, ci, st->action))
					return false;
				continue;
			}
			for (unsigned j = 0; j < st->nkeys; j++)
				if (!fsite_walk(k, st->keys[j], ci,
						st->action + (int)j))
					return false;
			if (st->nargs &&
			    !fsite_walk(k, st->args[0], ci,
					st->action + (int)st->nkeys))
				return false;
		}
	}
	return true;
}

/*
 * A this-> string that keys an aggregation and is an argument's
 * (sarg_var()), read only as whole keys and compared with literals
 * (prog_lit_reads()), where the program may copy arguments' strings,
 * stays that: SKEY copies the argument, as before string variables
 * were keys, rather than a copy kept in cgbuf (str_var()).
 */
static bool sarg_key(const struct d_kplan *k, unsigned v, bool *mark,
		     unsigned nthis)
{
	const struct d_prog *p = k->prog;
	bool keyed = false;

	for (unsigned ci = 0; ci < p->nclauses && !keyed; ci++)
		keyed = keyed_by(p->clauses[ci].stmts, p->clauses[ci].nstmts,
				 v);
	return keyed && nthis < UBPF_KTHIS && !k->nostr && !k->fmode &&
	       prog_lit_reads(p, v) && sarg_var(k, v, mark) >= 0;
}

/* Does a clause of p call progenyof() (D_NEED_ANC)? */
static bool prog_calls_progeny(const struct d_prog *p)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (d_clause_needs(p, ci) & D_NEED_ANC)
			return true;
	return false;
}

void kp_vars_decide(struct d_kplan *k)
{
	struct d_prog *p = k->prog;
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool changed = true, tls = false, strs = false, mems = false, vin;
	unsigned nthis = 0, ntstr = 0;

	k->nbits = 0;
	k->nprd = 0;
	memset(k->tls, 0, p->nclauses * sizeof(*k->tls));
	memset(k->kv, 0, p->nclauses * sizeof(*k->kv));
	memset(k->untyped, 0, p->nclauses * sizeof(*k->untyped));
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		k->vst[v] = KV_NO;
		k->vbit[v] = -1;
		k->vslot[v] = -1;
		if (k->horizon && var->scope != SC_THIS)
			continue; /* past it: user space's (kplan_exit.c) */
		/* (not one holding a struct or a fixed-size array: its
		 * bytes are user space's, mem.c) */
		if ((var->scope == SC_SELF || var->scope == SC_THIS ||
		     var->scope == SC_SELFASSOC) &&
		    var->kind != T_STR && !var->ptr && !var->psou &&
		    !var->sou &&
		    (var->scope != SC_THIS || nthis < UBPF_KTHIS)) {
			k->vst[v] = KV_CAND;
			if (var->scope == SC_THIS)
				k->vslot[v] = (int)nthis++;
		}
	}
	/* this-> pointers into a copy of their clause (kplan_mem.c) */
	for (unsigned v = 0; v < p->nvars; v++)
		if (k->vst[v] == KV_NO && kp_place_var(k, v))
			k->vst[v] = KV_PLACE;
	/* this-> and self-> strings kept as their bytes (str_var()); a
	 * this-> one compared or measured only when it is not an
	 * argument's (the loop below: SEQ compares that in place) */
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		if (k->vst[v] != KV_NO ||
		    (var->scope != SC_THIS &&
		     (var->scope != SC_SELF || k->horizon)) ||
		    var->kind != T_STR || var->ptr || var->psou ||
		    (var->scope == SC_THIS && ntstr >= UBPF_KTSTR))
			continue;
		if (var->scope == SC_THIS && sarg_key(k, v, mark, nthis))
			continue;
		if (!str_var(k, v, mark, false) &&
		    (var->scope != SC_THIS ||
		     (nthis < UBPF_KTHIS && !k->nostr && !k->fmode &&
		      prog_lit_reads(p, v) && sarg_var(k, v, mark) >= 0) ||
		     !str_var(k, v, mark, true)))
			continue;
		k->vst[v] = KV_STR;
		if (var->scope == SC_THIS)
			k->vslot[v] = (int)ntstr++;
	}
	/* this-> strings that are an argument's (not where a string's
	 * fault is the hit's: the store would be the site) */
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		if (var->scope != SC_THIS || var->kind != T_STR || var->ptr ||
		    var->psou || nthis >= UBPF_KTHIS || k->nostr || k->fmode ||
		    k->vst[v] != KV_NO)
			continue;
		k->varg[v] = sarg_var(k, v, mark);
		if (k->varg[v] >= 0) {
			k->vst[v] = KV_SARG;
			k->vslot[v] = (int)nthis++;
		}
	}
	while (vars_type_pass(k, false) || vars_type_pass(k, true))
		;
	for (unsigned v = 0; v < p->nvars; v++)
		if (k->vst[v] == KV_CAND) /* its stores disagree */
			k->vst[v] = KV_NO;
	while (changed) {
		changed = false;
		k->nst = 0;
		memset(k->ok, 0, p->nclauses * sizeof(*k->ok));
		memset(k->sout, 0, p->nclauses * sizeof(*k->sout));
		for (unsigned ci = 0; ci < p->nclauses; ci++) {
			if ((!k->user || !k->user[ci]) && kp_clause_ok(k, ci))
				k->nst += p->clauses[ci].nflat;
			else if (sout_ok(k, ci)) /* its values only */
				k->nst += p->clauses[ci].nstmts;
		}
		for (unsigned ci = 0; ci < p->nclauses; ci++) {
			const struct clause *c = &p->clauses[ci];

			if (k->ok[ci] || kp_dtrace_only(c))
				continue;
			if (k->sout[ci]) { /* its predicate's, speculate()'s */
				memset(mark, 0, p->nvars * sizeof(*mark));
				if (!k->spred[ci]) /* else the kernel's */
					vars_of(c->pred, mark);
				vars_of(c->stmts[0].e, mark);
			} else {
				clause_vars(k, c, mark);
			}
			/* the self-> integers it only reads, carried in
			 * its record where they fit (vin_where()) */
			vin = vin_where(k, ci);
			if (vin) {
				bool *vm = xcalloc(p->nvars, sizeof(*vm));

				vin = sizeof(struct ubpf_kout) +
					      8 * kp_vin_count(k, ci, vm) <=
				      UBPF_KOUTMAX;
				free(vm);
			}
			for (unsigned v = 0; v < p->nvars; v++)
				if (mark[v] &&
				    (k->vst[v] == KV_KERN ||
				     k->vst[v] == KV_SARG ||
				     k->vst[v] == KV_STR ||
				     k->vst[v] == KV_PLACE) &&
				    !(vin && vin_var(k, ci, v))) {
					k->vst[v] = KV_NO;
					changed = true;
				}
		}
	}
	memset(k->vin, 0, p->nclauses * sizeof(*k->vin));
	memset(k->vpred, 0, p->nclauses * sizeof(*k->vpred));
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (vin_where(k, ci) && kp_vin_count(k, ci, mark)) {
			k->vin[ci] = true;
			k->vpred[ci] = vpred_ok(k, ci);
			tls = true; /* it reads the kernel's self-> values */
		}
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		if (!k->ok[ci] && !k->sout[ci])
			continue;
		if (k->sout[ci]) /* the kernel reads its values' variables */
			sout_kvars(k, ci, mark);
		else
			clause_vars(k, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars; v++) {
			k->tls[ci] |= mark[v] &&
				      (p->vars[v].scope == SC_SELF ||
				       p->vars[v].scope == SC_SELFASSOC);
			k->kv[ci] |= mark[v] && (k->vst[v] == KV_KERN ||
						 k->vst[v] == KV_SARG ||
						 k->vst[v] == KV_STR);
		}
		tls |= k->tls[ci];
		if (k->ok[ci]) /* a sout clause's compare in user space */
			strs |= clause_strs(k, &p->clauses[ci]);
		if (k->ok[ci])
			mems |= kp_clause_mem(k, ci);
	}
	free(mark);
	/* a copy's fault sends the hit to user space whole too
	 * (kplan_mem.c): not where the kernel keeps self-> variables */
	if (tls && mems && !k->nomem) {
		k->nomem = true;
		kp_vars_decide(k);
		return;
	}
	/*
	 * A string the kernel cannot read (a fault) sends the hit to user
	 * space whole, unflagged (cgen.c), where a clause keeping self->
	 * variables cannot go.  Such a program has its faults at the hit
	 * instead (fmode: fsite_assign()), which keys of a string cannot
	 * (one longer than kaggs_s keeps is no fault, and still goes to
	 * user space): they stay there.  With more comparisons than the
	 * record has fault bits for, it compares no strings.
	 */
	/*
	 * progenyof()'s walk (UBPF_K_PROG) sends a hit whose chain it
	 * cannot finish to user space whole, as a string that cannot be
	 * read does: not where the kernel keeps self-> variables (no fault
	 * site for it: kplan.c's kp_prog_arg() refuses it there).
	 */
	if (tls && !k->noprog && prog_calls_progeny(p)) {
		k->noprog = true;
		kp_vars_decide(k);
		return;
	}
	if (tls && strs && !k->nostr && !k->fmode) {
		k->fmode = true;
		kp_vars_decide(k);
		return;
	}
	if (k->fmode && !k->nostr && !fsite_assign(k)) {
		k->fmode = false;
		k->nostr = true;
		kp_vars_decide(k);
	}
}
