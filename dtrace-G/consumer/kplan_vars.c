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
 * clause_typed(), open_bits(); where the plan differs, a statement or
 * predicate reading at most two self-> or this-> integers whose types
 * differ is dispatched at the hit on whether they are set (a self->
 * one's value, a this-> one's stored bit), one form each: form_bits(),
 * kstmt's forms, k->pforms); this-> and self-> strings (KV_SARG,
 * KV_STR: kplan_svar.c's sarg_var() and str_var());
 * this-> pointers into a copy of their clause (KV_PLACE, kplan_mem.c's
 * kp_place_var()), each copy's read a fault site where the kernel keeps
 * self-> variables (mfault: a copy's fault would send the hit to user
 * space whole, where those cannot go; kp_mem_sites()), none read at all
 * where such sites cannot be (nomem); each kernel read of vtimestamp
 * a fault site where the kernel keeps self-> variables (vfault: a lost
 * clock would send the hit to user space whole; vt_sites()), none
 * printed there (novtout), none read at all where such sites cannot
 * be (novt); where the kernel keeps self-> variables and a clause it
 * runs at a uprobe site has an argument string whose fault must end
 * the clause, no such string copied before the probe's first clause
 * (noastr: kplan_out.c's R2, astr_in());
 * and, where the
 * kernel keeps self-> variables beside string comparisons, each
 * comparison numbered as a fault site (fsite_assign()); and the
 * clauses user space runs that read self-> integers the kernel keeps
 * (vin clauses: kplan_vin.c's "Shared self-> variables").  kplan.c
 * asks it per program (d_kplan_new()); what both read of the tree is
 * kplan_impl.h's.
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
void vars_of(const struct node *n, bool *mark)
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

void kp_stmts_each(const struct stmt *v, unsigned n,
		   void (*fn)(const struct node *, void *), void *ctx)
{
	for (unsigned i = 0; i < n; i++) {
		fn(v[i].e, ctx);
		for (unsigned j = 0; j < v[i].nargs; j++)
			fn(v[i].args[j], ctx);
		for (unsigned j = 0; j < v[i].nkeys; j++)
			fn(v[i].keys[j], ctx);
		kp_stmts_each(v[i].body, v[i].nbody, fn, ctx);
		kp_stmts_each(v[i].els, v[i].nels, fn, ctx);
	}
}

static void vars_of_fn(const struct node *n, void *mark)
{
	vars_of(n, mark);
}

void stmts_vars(const struct stmt *v, unsigned n, bool *mark)
{
	kp_stmts_each(v, n, vars_of_fn, mark);
}

/* The variables clause c of program p touches, into mark (cleared
 * first; kplan_spec.c's d_kplan_specs_late() asks too). */
void kp_clause_vars(const struct d_prog *p, const struct clause *c, bool *mark)
{
	memset(mark, 0, p->nvars * sizeof(*mark));
	vars_of(c->pred, mark);
	stmts_vars(c->stmts, c->nstmts, mark);
}

void clause_vars(const struct d_kplan *k, const struct clause *c, bool *mark)
{
	kp_clause_vars(k->prog, c, mark);
}

bool d_kplan_shared_vars(const struct d_prog *p, unsigned clause)
{
	bool *mark, any = false;

	if (clause >= p->nclauses)
		return false;
	mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	kp_clause_vars(p, &p->clauses[clause], mark);
	for (unsigned v = 0; v < p->nvars && !any; v++)
		any = mark[v] && (p->vars[v].scope == SC_SELF ||
				  p->vars[v].scope == SC_SELFASSOC ||
				  p->vars[v].scope == SC_ASSOC);
	free(mark);
	return any;
}

/*
 * this-> reads that follow a store (doc/DESIGN.md §8 "A variable set
 * and unset (F)", this-> reads after a store).  A this-> variable lives
 * for one firing, 0 of its zero's type at its start (d/stmt.c's
 * run_pre()), and a store sets it (run.c's var_set(): no store of 0
 * deletes one, as it does a self->); so a read in clause ci after a
 * store to it at the clause's top level, in an earlier statement, reads
 * what was stored: the clause ends where the store's value faults, and
 * nothing between unsets it.  Such a read is not open: typed as set
 * whatever k->absent says (kplan.c's kp_ty_at()), no bit in
 * open_bits(), no form dispatched on it.  The toolkit's flow scripts
 * (py_flowtime.d: this->delta = (timestamp - self->last) / 1000, then
 * printed) read such a variable, unsigned where an unset one would be a
 * signed 0, and were user space's for it ("clause 3 would compute
 * differently with it set and unset").  The reads into k->dset, by node
 * (each read is its own node), before any clause is typed.
 */
struct dset_walk {
	struct d_kplan *k;
	const bool *stored;
};

static void dset_reads(const struct node *n, void *ctx)
{
	struct dset_walk *w = ctx;
	struct d_kplan *k = w->k;

	if (!n)
		return;
	if (n->op == N_VAR && w->stored[n->sub]) {
		k->dset = xpush_room(k->dset, k->ndset, sizeof(*k->dset));
		k->dset[k->ndset++] = n;
	}
	dset_reads(n->a, ctx);
	dset_reads(n->b, ctx);
	dset_reads(n->c, ctx);
	for (unsigned i = 0; i < n->nargs; i++)
		dset_reads(n->args[i], ctx);
}

void kp_dset_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;
	bool *stored = xcalloc(p->nvars ? p->nvars : 1, sizeof(*stored));
	struct dset_walk w = { .k = k, .stored = stored };

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		memset(stored, 0, (p->nvars ? p->nvars : 1) * sizeof(*stored));
		for (unsigned i = 0; i < c->nstmts; i++) {
			const struct node *e = c->stmts[i].e;

			kp_stmts_each(&c->stmts[i], 1, dset_reads, &w);
			if (c->stmts[i].kind == S_EXPR && e &&
			    e->op == N_ASSIGN && e->a->op == N_VAR &&
			    p->vars[e->a->sub].scope == SC_THIS)
				stored[e->a->sub] = true;
		}
	}
	free(stored);
}

bool kp_dset(const struct d_kplan *k, const struct node *n)
{
	for (unsigned i = 0; i < k->ndset; i++)
		if (k->dset[i] == n)
			return true;
	return false;
}

/*
 * this-> variables each clause keeps to itself (doc/DESIGN.md §8 "A
 * this-> variable each clause keeps to itself").  A this-> variable
 * lives for one firing and is shared by the clauses of it, so one that
 * a clause user space runs touches is user space's, and every clause
 * touching it with it (kp_vars_decide()).  But where every read of it,
 * in every clause, follows a store of it at that clause's top level
 * (kp_dset(): the toolkit's this->oncpu = vtimestamp - self->t, then
 * read, in several clauses; sshcipher2.d's crypt and compress returns),
 * and no predicate reads it, no clause reads a value another stored: a
 * clause user space runs makes and reads its own (run.c's this-> frame,
 * d_run_pre()), and the kernel's clauses theirs in cgbuf, the value each
 * read sees the one run.c's would.  So such a clause leaves it to the
 * kernel, and a store of it the kernel cannot compute with every
 * variable set is no part of its type (kp_stores_type(): that clause
 * is user space's, whatever forms it might be dispatched in).  The store's
 * place (v = E's v) is no read; v OP= E's is.
 */
struct priv_walk {
	const struct d_kplan *k;
	unsigned v;
	bool ok;
};

static void priv_reads(const struct node *n, void *ctx)
{
	struct priv_walk *w = ctx;

	if (!n || !w->ok)
		return;
	if (n->op == N_ASSIGN && n->sub == '=' && n->a && n->a->op == N_VAR &&
	    n->a->sub == (int)w->v) {
		priv_reads(n->b, ctx); /* the place is no read */
		return;
	}
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)w->v) {
		w->ok = n->op == N_VAR && kp_dset(w->k, n);
		return;
	}
	priv_reads(n->a, ctx);
	priv_reads(n->b, ctx);
	priv_reads(n->c, ctx);
	for (unsigned i = 0; i < n->nargs; i++)
		priv_reads(n->args[i], ctx);
}

static bool this_private(const struct d_kplan *k, unsigned v)
{
	const struct d_prog *p = k->prog;
	struct priv_walk w = { .k = k, .v = v, .ok = true };

	if (p->vars[v].scope != SC_THIS)
		return false;
	for (unsigned ci = 0; ci < p->nclauses && w.ok; ci++) {
		const struct clause *c = &p->clauses[ci];

		priv_reads(c->pred, &w);
		kp_stmts_each(c->stmts, c->nstmts, priv_reads, &w);
	}
	return w.ok;
}

/* An element read that open_bits() did not register: open all the same */
#define KP_OPEN (1u << 31)

/*
 * The bits (vbit) of the variables read under n whose type is open.  An
 * element of a KV_ELEMS array has a bit of its own per read (one set and
 * another unset is what user space may see: run.c types each element by
 * what was stored in it), nbits + its index in k->elem, registered there
 * when reg (typing: ty_all(), clause_typed()), else KP_OPEN when not; the
 * element or variable a '=' stores is not read.
 */
uint32_t open_bits(struct d_kplan *k, const struct node *n, bool reg)
{
	uint32_t b = 0;
	unsigned i;

	if (!n)
		return 0;
	if (n->op == N_VAR && k->vbit[n->sub] >= 0 && !kp_dset(k, n))
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
	/* ... nor the variable a '=' stores: its VST narrows to T, set or
	 * unset (the README's `self->ts = timestamp` beside a printf() of
	 * args[1], a string only at the probe, which the trial typing has
	 * none of) */
	if (n->op == N_ASSIGN && n->sub == '=' && n->a && n->a->op == N_VAR)
		return open_bits(k, n->b, reg);
	b |= open_bits(k, n->a, reg) | open_bits(k, n->b, reg) |
	     open_bits(k, n->c, reg);
	for (i = 0; i < n->nargs; i++)
		b |= open_bits(k, n->args[i], reg);
	return b;
}

/* The next subset of set after s (0 after the last). */
uint32_t next_subset(uint32_t s, uint32_t set)
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
	if (__builtin_popcount(set) > KP_TYPED_BITS || k->elem_full)
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

/* Does kp_ty() type n with every variable set (k->absent 0)? */
static bool ty_set(struct d_kplan *k, const struct node *n)
{
	uint32_t absent = k->absent;
	uint8_t z, g;
	bool ok;

	k->absent = 0;
	ok = kp_ty(k, n, &z, &g);
	k->absent = absent;
	return ok;
}

/* Does n read a variable whose type is still to be found (KV_CAND)? */
static bool reads_cand(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return false;
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub >= 0 &&
	    k->vst[n->sub] == KV_CAND)
		return true;
	if (reads_cand(k, n->a) || reads_cand(k, n->b) || reads_cand(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (reads_cand(k, n->args[i]))
			return true;
	return false;
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
			if (k->kspec && kp_spec_take_var(c->flat[i]) >= 0) {
				/* speculation(): an int (d/func.c's) */
				z = var->declared ? var->sz : 4;
				g = var->declared ? var->sg : 1;
				if (seen && (z != *tz || g != *tg))
					return 0;
				*tz = z;
				*tg = g;
				seen = true;
				continue;
			}
			if ((var->scope == SC_SELF || kp_arr_scope(var)) &&
			    b->op == N_INT && b->ival == 0)
				continue;
			if (!(all ? ty_all(k, b, &z, &g) ||
					      kp_zero_forms(k, v, b, &z, &g)
				  : kp_ty(k, b, &z, &g))) {
				/* one each clause keeps to itself: that
				 * clause is user space's, its store its own
				 * (this_private()), where the kernel cannot
				 * compute it with every variable set (a form
				 * any dispatch would need: emit_forms()); not
				 * while it reads a variable whose type is
				 * still to be found */
				if (k->tpriv && k->tpriv[v] &&
				    !reads_cand(k, b) && !ty_set(k, b))
					continue;
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
	if (kp_arr_scope(var))
		k->vbit[v] = KV_ELEMS;
	else if (k->nbits < 31)
		k->vbit[v] = k->nbits++;
	else
		k->vst[v] = KV_NO;
}

/*
 * A pass over the variables whose T is not known: true when one became
 * known.  A store that reads the variable itself (self->n = self->n + 1)
 * is known only by supposing T (the last resort, when no pass finds
 * more): the zero's type, every store giving it that; or else the type
 * U the stores give supposing the zero's, every store giving U again
 * with the variable read as U set and as its zero unset (the toolkit's
 * self->exclude[d] += this->elapsed, elapsed unsigned: an unset element
 * a signed 0, the sum unsigned either way).  Either is a fixpoint: from
 * unset, each store gives T whatever it reads, so a set variable holds
 * a T, as run.c's would.
 */
static bool vars_type_pass(struct d_kplan *k, bool suppose)
{
	const struct d_prog *p = k->prog;
	uint8_t tz, tg, z, g;
	unsigned nbits;

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
		if (!stores_type(k, v, &tz, &tg)) {
			k->vst[v] = KV_CAND;
			continue;
		}
		if (tz == zz && tg == zg)
			return true;
		/* U, read apart set and unset (var_keep()'s bit) */
		z = tz;
		g = tg;
		nbits = k->nbits;
		var_keep(k, v, z, g);
		if (k->vst[v] == KV_KERN && stores_type(k, v, &tz, &tg) &&
		    tz == z && tg == g)
			return true;
		k->nbits = nbits;
		k->vbit[v] = -1;
		k->vst[v] = KV_CAND;
	}
	return false;
}

/*
 * Whether clause ci's plan is the same whichever of its variables are
 * set (a statement with forms, kstmt's, is the same dispatch in every
 * pass: emit_forms() types it itself): the types of a variable set and
 * unset may differ (a store of timestamp makes it unsigned, an unset
 * one reads as a signed 0), and the plan must not depend on which one
 * user space would have seen.
 */
static bool typed_all(struct d_kplan *k, unsigned ci)
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
	if (__builtin_popcount(set) > KP_TYPED_BITS || k->elem_full)
		return false;
	a = xcalloc(1, sizeof(*a));
	b = xcalloc(1, sizeof(*b));
	k->absent = 0;
	k->typing = true;
	ok = kp_clause_emit(k, ci, &none, a);
	while (ok && (s = next_subset(s, set)) != 0) {
		k->absent = s;
		memset(b, 0, sizeof(*b));
		ok = kp_clause_emit(k, ci, &none, b) && a->nops == b->nops &&
		     !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
		/* and the keys' types, which the merge gives them (a
		 * statement with forms too: one layout for all of them);
		 * a statement with format-time keys or literal keys
		 * (kplan_fkey.c) is its copy, whose keys are the leaves
		 * and the literals' 0s */
		for (unsigned i = 0; ok && i < c->nflat; i++) {
			const struct kstmt *ks = &k->st[k->first[ci] + i];
			const struct stmt *st = ks->fkeys ? ks->st : c->flat[i];

			for (unsigned j = 0; ok && j < st->nkeys; j++) {
				uint8_t z, g;

				ok = ks->kid[j] >= 0 || (int)j == ks->skey ||
				     j + 1 == ks->kcomm || j + 1 == ks->skey2 ||
				     j + 1 == ks->skey3 || j + 1 == ks->vkey2 ||
				     j + 1 == ks->vkey3 ||
				     (kp_ty(k, st->keys[j], &z, &g) &&
				      z == ks->ksz[j] && g == ks->ksg[j]);
			}
		}
	}
	k->absent = 0;
	k->typing = false;
	k->nelem = 0;
	free(a);
	free(b);
	return ok;
}

/*
 * Open bits b, read by one statement or predicate, if it may be
 * dispatched on them at the hit, else 0: at most two (KP_FORMS forms),
 * each a self-> integer's, set exactly when non-zero, or a this->
 * integer's in a stack slot, set when the firing stored it (its bit
 * at the hit: cgen_plan.c's S_FLAGS_THIS(), UBPF_K_TSET); not an
 * array's element reads (KV_ELEMS: keys evaluated twice, not built).
 */
static uint32_t form_check(const struct d_kplan *k, uint32_t b)
{
	if (!b || __builtin_popcount(b) > 2 || (b & KP_OPEN) ||
	    (k->nbits < 31 && (b >> k->nbits)))
		return 0;
	for (unsigned v = 0; v < k->prog->nvars; v++)
		if (k->vbit[v] >= 0 && (b >> k->vbit[v] & 1) &&
		    !kp_form_var(k, v))
			return 0;
	return b;
}

/* Can the hit tell variable v set from unset (a form's dispatch,
 * kplan_emit.c's form_load())?  A self-> integer (VLD: set is
 * non-zero), a this-> one in a slot (TSET, its bit in S_FLAGS) */
bool kp_form_var(const struct d_kplan *k, unsigned v)
{
	const struct var *var = &k->prog->vars[v];

	return var->scope == SC_SELF ||
	       (var->scope == SC_THIS && k->vslot[v] >= 0 &&
		k->vslot[v] < UBPF_KTHIS);
}

uint32_t kp_form_bits(struct d_kplan *k, const struct node *n)
{
	return form_check(k, open_bits(k, n, false));
}

/*
 * The open bits statement i of clause ci may be dispatched on at the
 * hit (kstmt's forms; form_check()), or 0: an aggregation or a store
 * of an integer the kernel computes, or a printf() or trace() of a
 * clause the kernel runs (each form's values in the same slots, the
 * form's own typing said by the slot before them: kplan_out.c's
 * "Printed forms"; not a speculating clause's, whose values a clause
 * user space runs prints: kplan_spec.c), and no string stored.
 */
static uint32_t form_bits(struct d_kplan *k, unsigned ci, unsigned i)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct stmt *st = c->flat[i];
	const struct kstmt *ks = &k->st[k->first[ci] + i];
	bool pr = ks->out && (st->kind == S_PRINTF || st->kind == S_TRACE) &&
		  !k->sout[ci];
	uint32_t b;

	/* (a speculation's step: one tag at one place, no forms) */
	if (ks->cond || (ks->out && !pr) || ks->sstr || ks->sclr || ks->smov ||
	    ks->schr || ks->spec ||
	    (st->kind != S_AGG && st->kind != S_EXPR && !pr))
		return 0;
	if (ks->assign && !pr && /* (an out statement's assign: no store) */
	    (k->vst[kp_assigned_var(st)] != KV_KERN || kp_place_store(k, st)))
		return 0;
	b = open_bits(k, st->e, false);
	for (unsigned j = 0; j < st->nargs; j++)
		b |= open_bits(k, st->args[j], false);
	for (unsigned j = 0; j < st->nkeys; j++)
		b |= open_bits(k, st->keys[j], false);
	return form_check(k, b);
}

/*
 * Whether clause ci's plan is typed as user space types it, whichever
 * of its variables are set: the same plan in every case (typed_all()),
 * or where not, the same once the statements whose forms differ are
 * dispatched at the hit (form_bits(), doc/DESIGN.md §8 "A variable set
 * and unset (F)"): every statement that may be gets its forms, then
 * each is tried without them, kept where the plan stays the same (no
 * dispatch where its forms are one); the predicate the same (pforms,
 * kplan_emit.c's pred_forms()).  An if's condition has no forms (not
 * built): a clause whose condition differs stays user space's.
 */
static bool clause_typed(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	struct kstmt *st = &k->st[k->first[ci]];
	bool any;

	k->pforms[ci] = 0;
	for (unsigned i = 0; i < c->nflat; i++)
		st[i].forms = 0;
	if (typed_all(k, ci))
		return true;
	k->pforms[ci] = kp_form_bits(k, c->pred);
	any = k->pforms[ci] != 0;
	for (unsigned i = 0; i < c->nflat; i++)
		any |= (st[i].forms = form_bits(k, ci, i)) != 0;
	if (!any || !typed_all(k, ci)) {
		k->pforms[ci] = 0;
		for (unsigned i = 0; i < c->nflat; i++)
			st[i].forms = 0;
		return false;
	}
	if (k->pforms[ci]) {
		uint32_t f = k->pforms[ci];

		k->pforms[ci] = 0;
		if (!typed_all(k, ci))
			k->pforms[ci] = f;
	}
	for (unsigned i = 0; i < c->nflat; i++) {
		uint32_t f = st[i].forms;

		if (!f)
			continue;
		st[i].forms = 0;
		if (!typed_all(k, ci))
			st[i].forms = f;
	}
	return true;
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
 * if/else in the generated programs (doc/DESIGN.md §8; kplan_stmt.c's
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
	if (ks->assign) { /* of an integer; a step (speculate(),
			   * commit(), discard() in a branch) stores none */
		int v = kp_assigned_var(st);

		return v >= 0 ? k->vst[v] != KV_SARG
			      : ks->spec != 0 || ks->raise;
	}
	return (ks->skey < 0 || ks->sx == KSX_LIT || ks->sx == KSX_COMM) &&
	       ks->svar < 0 && !ks->kcomm && !ks->skey2 && !ks->sbare &&
	       !ks->vkey2;
}

/* Clause ci alone: can the kernel run it?  Its statements (c->flat)
 * into k->st. */
bool kp_clause_ok(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	uint8_t sz, sg;
	/* a clause with no statement prints its default line from its
	 * record: in the generated programs alone, whose ODONE writes it
	 * (kp_out_clause()) */
	bool ok = (c->nstmts > 0 || k->vars) &&
		  k->nst + c->nflat <= UINT16_MAX &&
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

/* Does clause ci compare a string (kp_str_cmp()) or key by an
 * argument's (SKEY, or SMKEY's c ? copyinstr(argN) : "lit", whose copy
 * before the plan sends a fault's hit to user space whole: fmode keeps
 * SMKEY out)?  In its conditions and branches too (c->flat); a
 * statement with format-time keys as the kernel runs it, its copy keyed
 * by the leaves (kplan_fkey.c: @[strjoin("a", copyinstr(arg0))] keys by
 * copyinstr(arg0), which fmode makes an AKEY and a fault site). */
static bool clause_strs(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	if (kp_has_str_cmp(k, c->pred))
		return true;
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct kstmt *ks = &k->st[k->first[ci] + i];
		const struct stmt *st =
			ks->fkeys && ks->st ? ks->st : c->flat[i];

		if (kp_has_str_cmp(k, st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (kp_has_str_cmp(k, st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (kp_has_str_cmp(k, st->keys[j]) ||
			    kp_arg_str(k, st->keys[j]) >= 0 ||
			    kp_smix_key(k, st->keys[j]) >= 0)
				return true;
	}
	return false;
}

/* Does n store into variable v? */
bool stores_into(const struct node *n, unsigned v)
{
	if (!n)
		return false;
	if ((n->op == N_ASSIGN || n->op == N_INCDEC) && n->a &&
	    (n->a->op == N_VAR || n->a->op == N_ASSOC) && n->a->sub == (int)v)
		return true;
	/* s[i] = c: run.c's str_store() changes s */
	if (n->op == N_ASSIGN && n->a && n->a->op == N_DEREF && n->a->ival &&
	    n->a->a && n->a->a->op == N_VAR && n->a->a->sub == (int)v)
		return true;
	if (stores_into(n->a, v) || stores_into(n->b, v) ||
	    stores_into(n->c, v))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (stores_into(n->args[i], v))
			return true;
	return false;
}

bool kp_fsite_add(struct d_kplan *k, const struct node *n, unsigned ci,
		  int action, uint8_t arg, uint8_t kind, int cut)
{
	if (k->nfs >= UBPF_KFSITES)
		return false;
	k->fs[k->nfs++] = (struct kfsite){ n, ci, action, arg, kind, cut };
	return true;
}

/* fsite_assign()'s walk of n, in DTrace's action number action */
static bool fsite_walk(struct d_kplan *k, const struct node *n, unsigned clause,
		       int action)
{
	int arg;

	if (!n)
		return true;
	if (kp_str_cmp(k, n, &arg, NULL) || kp_svar_acmp(k, n, NULL, &arg) ||
	    kp_comm_arg(k, n, &arg, NULL))
		return kp_fsite_add(k, n, clause, action, (uint8_t)arg, KFS_STR,
				    0);
	if (!fsite_walk(k, n->a, clause, action) ||
	    !fsite_walk(k, n->b, clause, action) ||
	    !fsite_walk(k, n->c, clause, action))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!fsite_walk(k, n->args[i], clause, action))
			return false;
	return true;
}

/* ... and key j of ks, where it is an argument's string (AKEY: kplan.c's
 * KSX_ARG), its copy, in the same action */
static bool akey_site(struct d_kplan *k, const struct kstmt *ks, unsigned j,
		      unsigned clause, int action)
{
	bool first = (int)j == ks->skey && ks->sx == KSX_ARG;
	bool second = ks->vkey2 && j + 1 == ks->vkey2 && ks->sx2 == KSX_ARG;

	if (!first && !second)
		return true;
	return kp_fsite_add(k, ks->st->keys[j], clause, action,
			    first ? ks->sarg : ks->sarg2, KFS_STR, 0);
}

/*
 * fmode: each string comparison of a clause the kernel runs is a fault
 * site (and each argument's string an aggregation keys by: AKEY),
 * numbered here, with what run.c's report_fault() needs to say
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
			for (unsigned j = 0; j < st->nkeys; j++) {
				if (!fsite_walk(k, st->keys[j], ci,
						st->action + (int)j))
					return false;
				if (!akey_site(k, ks, j, ci,
					       st->action + (int)j))
					return false;
			}
			if (st->nargs &&
			    !fsite_walk(k, st->args[0], ci,
					st->action + (int)st->nkeys))
				return false;
		}
	}
	return true;
}

/* Does a clause of p call progenyof() (D_NEED_ANC)? */
static bool prog_calls_progeny(const struct d_prog *p)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (d_clause_needs(p, ci) & D_NEED_ANC)
			return true;
	return false;
}

/* Does a clause read vtimestamp (one the kernel runs, a vin clause's
 * store, a printed value: any of them could read it in the kernel)? */
static bool prog_reads_vtime(const struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (d_clause_needs(p, ci) & D_NEED_VTIME)
			return true;
	return false;
}

/* Does n read vtimestamp? */
static bool is_vt(const struct node *n)
{
	return n->op == N_BUILTIN && d_builtins[n->sub].id == B_VTIMESTAMP;
}

bool kp_node_vt(const struct node *n)
{
	return kp_node_any(n, is_vt);
}

/* Does a clause the kernel runs print vtimestamp from its out area? */
static bool vt_printed(const struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!k->ok[ci] && !k->sout[ci])
			continue;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];

			if (st->kind != S_PRINTF && st->kind != S_TRACE)
				continue;
			for (unsigned j = 0; j < st->nargs; j++)
				if (kp_node_vt(st->args[j]))
					return true;
		}
	}
	return false;
}

/* a fault site for vtimestamp's read n, in k->fs */
static bool vsite_add(struct d_kplan *k, const struct node *n, unsigned ci,
		      int action)
{
	return kp_fsite_add(k, n, ci, action, 0, KFS_ILLOP, 0);
}

/* vt_sites()'s walk of n, evaluated at action: each read a site; false
 * where one lies in a branch of ?: (the kernel computes both, run.c
 * one) or the sites run out; && and ||'s right side is kplan_expr.c's
 * SC, read only where the left does not decide */
static bool vsite_walk(struct d_kplan *k, const struct node *n, unsigned ci,
		       int action)
{
	if (!n)
		return true;
	if (n->op == N_BUILTIN && d_builtins[n->sub].id == B_VTIMESTAMP)
		return vsite_add(k, n, ci, action);
	if (n->op == N_TERN)
		return !kp_node_vt(n->b) && !kp_node_vt(n->c) &&
		       vsite_walk(k, n->a, ci, action);
	if (!vsite_walk(k, n->a, ci, action) ||
	    !vsite_walk(k, n->b, ci, action) ||
	    !vsite_walk(k, n->c, ci, action))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!vsite_walk(k, n->args[i], ci, action))
			return false;
	return true;
}

/*
 * vfault: each read of vtimestamp in a clause the kernel runs is a
 * fault site after the first nfs (strings', copies'), with run.c's
 * action where it is evaluated (as fsite_assign()'s): a lost clock
 * sets its bits and ends the clause there, d_kplan_fault() giving an
 * illegal operation, as run.c's read faults.  A clause with an out
 * area too (a this-> string it keeps, a printf(): the toolkit's
 * *_cputime.d): the site's jump, the clause's end, passes its ODONE,
 * so the area says the clause did not run and dtrace reports the
 * site's fault in its place (records.c's hit_run_kagg(): cg_out_run()
 * finds no area, bpf_kagg_fault() the site), printing nothing of it
 * -- run.c's abandoned clause, whose printf()s before the read DTrace
 * drops with its record.  No area's own fault comes first unseen: a
 * copy that faults (SSTR, OSTR with a jump) ends the clause there, and
 * one that does not jump has only printf()s after it, which read no
 * vtimestamp here (novtout).  false where a site cannot be: a
 * speculating clause's (its area's tags, kplan_spec.c), a ?: branch,
 * more sites than the record has bits for.
 */
static bool vt_sites(struct d_kplan *k, unsigned nfs)
{
	const struct d_prog *p = k->prog;

	k->nfs = nfs;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!(d_clause_needs(p, ci) & D_NEED_VTIME) ||
		    (!k->ok[ci] && !k->sout[ci]))
			continue;
		if (k->sout[ci] || !vsite_walk(k, c->pred, ci, 0))
			return false;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct kstmt *ks = &k->st[k->first[ci] + i];
			const struct stmt *st = c->flat[i];

			if (ks->assign) { /* a store, an if's condition */
				if (!vsite_walk(k, st->e, ci, st->action))
					return false;
				continue;
			}
			/* an aggregation: its keys, then its value */
			if (kp_node_vt(st->e))
				return false;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (!vsite_walk(k, st->keys[j], ci,
						st->action + (int)j))
					return false;
			for (unsigned j = 1; j < st->nargs; j++)
				if (kp_node_vt(st->args[j]))
					return false;
			if (st->nargs &&
			    !vsite_walk(k, st->args[0], ci,
					st->action + (int)st->nkeys))
				return false;
		}
	}
	return true;
}

/* Has a clause the kernel runs that may fire at a uprobe site an R2
 * form (kplan_out.c's kp_out_apre())? */
static bool astr_in(const struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		if (!k->ok[ci] || !kp_usite_clause(&p->clauses[ci]))
			continue;
		for (unsigned i = 0; i < p->clauses[ci].nflat; i++)
			if (kp_out_apre(k, ci, i) >= 0)
				return true;
	}
	return false;
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
void kp_vars_decide(struct d_kplan *k)
{
	struct d_prog *p = k->prog;
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool changed = true, tls = false, strs = false, mems = false, vin;
	unsigned nthis = 0, ntstr = 0;

	k->nbits = 0;
	k->nprd = 0;
	for (unsigned v = 0; v < p->nvars; v++)
		k->tpriv[v] = this_private(k, v);
	memset(k->tls, 0, p->nclauses * sizeof(*k->tls));
	memset(k->kv, 0, p->nclauses * sizeof(*k->kv));
	memset(k->untyped, 0, p->nclauses * sizeof(*k->untyped));
	kp_rcon_assign(k); /* the run constants: cgrcon's slots */
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		if (k->vst[v] == KV_RCON) /* else KV_NO, -1, -1 */
			continue;
		if (k->horizon && var->scope != SC_THIS)
			continue; /* past it: user space's (kplan_exit.c) */
		/* a site named like the tick sends every hit to user space
		 * (kplan_exit.c's "Intervals"): self->'s move there, a
		 * global array's would not */
		if (k->ival && var->scope == SC_ASSOC)
			continue;
		/* (not one holding a struct or a fixed-size array: its
		 * bytes are user space's, mem.c) */
		if ((var->scope == SC_SELF || var->scope == SC_THIS ||
		     kp_arr_scope(var)) &&
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
	/* ... and bounded copies' strings (kplan_bstr.c) */
	k->nbrd = 0;
	for (unsigned v = 0; v < p->nvars; v++)
		if (k->vst[v] == KV_NO && kp_bstr_var(k, v))
			k->vst[v] = KV_BSTR;
	/* this-> and self-> strings kept as their bytes (str_var()); a
	 * this-> one compared or measured only when it is not an
	 * argument's (the loop below: SEQ compares that in place) */
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		k->tnoroom[v] = false;
		if (k->vst[v] != KV_NO ||
		    (var->scope != SC_THIS &&
		     (var->scope != SC_SELF || k->horizon)) ||
		    var->kind != T_STR || var->ptr || var->psou)
			continue;
		if (var->scope == SC_THIS &&
		    ntstr + kp_fvar_rooms(k, v) > UBPF_KTSTR) {
			/* (one it would keep: -v says so, kplan_why.c) */
			k->tnoroom[v] = str_var(k, v, mark, true);
			continue;
		}
		if (var->scope == SC_THIS && sarg_key(k, v, mark, nthis))
			continue;
		if (!str_var(k, v, mark, false) &&
		    (var->scope != SC_THIS ||
		     (nthis < UBPF_KTHIS && !k->nostr && !k->fmode &&
		      prog_lit_reads(p, v) && sarg_var(k, v, mark) >= 0) ||
		     !str_var(k, v, mark, true)))
			continue;
		k->vst[v] = KV_STR;
		if (var->scope == SC_THIS) { /* (a room per leaf printed) */
			k->vslot[v] = (int)ntstr;
			ntstr += kp_fvar_rooms(k, v);
		}
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

			/* a global array is one copy for the run, dtrace's
			 * clauses' too (kplan_garr.c) */
			changed |= kp_garr_drop(k, ci, mark);
			if (k->ok[ci] || kp_dtrace_only(c))
				continue;
			if (k->sout[ci]) { /* its predicate's, speculate()'s */
				memset(mark, 0, p->nvars * sizeof(*mark));
				if (!k->spred[ci]) /* else the kernel's */
					vars_of(c->pred, mark);
				vars_of(c->stmts[0].e, mark);
			} else {
				clause_vars(k, c, mark);
				/* (not the this-> ones each clause keeps to
				 * itself: this_private()) */
				for (unsigned v = 0; v < p->nvars; v++)
					if (mark[v] && k->tpriv[v])
						mark[v] = false;
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
				    !(vin && (vin_var(k, ci, v) ||
					      vin_ptest(k, ci, v)))) {
					k->vst[v] = KV_NO;
					changed = true;
				}
		}
	}
	memset(k->vin, 0, p->nclauses * sizeof(*k->vin));
	memset(k->vpred, 0, p->nclauses * sizeof(*k->vpred));
	memset(k->vtruth, 0, p->nclauses * sizeof(*k->vtruth));
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		bool pt;

		if (!vin_where(k, ci))
			continue;
		pt = kp_vin_ptests(k, ci);
		if (kp_vin_count(k, ci, mark) || pt) {
			k->vin[ci] = true;
			k->vpred[ci] = vpred_ok(k, ci);
			k->vtruth[ci] = pt && k->vpred[ci];
			tls = true; /* it reads the kernel's self-> values */
		}
	}
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		if (!k->ok[ci] && !k->sout[ci])
			continue;
		if (k->sout[ci]) /* the kernel reads its values' variables */
			sout_kvars(k, ci, mark);
		else
			clause_vars(k, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars; v++) {
			k->tls[ci] |=
				mark[v] && (p->vars[v].scope == SC_SELF ||
					    p->vars[v].scope == SC_SELFASSOC ||
					    kp_garr(k, v));
			k->kv[ci] |= mark[v] && (k->vst[v] == KV_KERN ||
						 k->vst[v] == KV_SARG ||
						 k->vst[v] == KV_STR);
		}
		tls |= k->tls[ci];
		if (k->ok[ci]) /* a sout clause's compare in user space */
			strs |= clause_strs(k, ci);
		if (k->ok[ci])
			mems |= kp_clause_mem(k, ci);
	}
	kp_garr_marks(k, mark);
	free(mark);
	/* speculations in the kernel (kplan_spec.c's d_kplan_kspec()): no
	 * hit may go to user space whole, whether or not the IDs are
	 * self-> variables (user space would step buffers the kernel
	 * counts), so the modes that keep them there, as for self->
	 * variables */
	tls |= k->kspec;
	/* R2's copies before the first clause send a hit to user space
	 * whole where one fails: not where the kernel keeps self->
	 * variables (noastr: no copy ahead, the copies fault at the hit as
	 * DTrace's do) */
	if (tls && !k->noastr && astr_in(k)) {
		k->noastr = true;
		kp_vars_decide(k);
		return;
	}
	/* ... and so does a bounded copy's (kplan_bstr.c): where the
	 * kernel keeps self-> variables, its fault is at its statement
	 * instead (bfault: kp_bstr_sites(), below) */
	if (tls && !k->bfault && !k->nobstr && kp_bstr_in(k)) {
		k->bfault = true;
		kp_vars_decide(k);
		return;
	}
	/* a copy's fault sends the hit to user space whole too
	 * (kplan_mem.c): not where the kernel keeps self-> variables,
	 * whose copies fault at their statement instead (mfault:
	 * kp_mem_sites(), below) */
	if (tls && mems && !k->nomem && !k->mfault) {
		k->mfault = true;
		kp_vars_decide(k);
		return;
	}
	/*
	 * A string the kernel cannot read (a fault) sends the hit to user
	 * space whole, unflagged (cgen.c), where a clause keeping self->
	 * variables cannot go.  Such a program has its faults at the hit
	 * instead (fmode: fsite_assign()), which SKEY's keys cannot (one
	 * longer than kaggs_s keeps is no fault, and still goes to user
	 * space): an argument's string is kaggs_v's there (AKEY), its copy
	 * a site.  With more comparisons than the record has fault bits
	 * for, it compares no strings.
	 */
	/*
	 * progenyof()'s walk (UBPF_K_PROG) sends a hit whose chain it
	 * cannot finish to user space whole, as a string that cannot be
	 * read does: not where the kernel keeps self-> variables (no fault
	 * site for it: kplan.c's kp_prog_arg() refuses it there).  PROGX
	 * (a pid the plan computes) is refused first, alone (noprogx): the
	 * self-> variables may be kept only for its clauses, and without
	 * them the constants' PROG stays the kernel's, as before PROGX.
	 */
	if (tls && !k->noprogx && prog_calls_progeny(p)) {
		k->noprogx = true;
		kp_vars_decide(k);
		return;
	}
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
		return;
	}
	/* each MLD a fault site after the strings' (kplan_mem.c); where
	 * one cannot be, no copy is read in the kernel (nomem) */
	if (k->mfault && !kp_mem_sites(k, k->fmode ? k->nfs : 0)) {
		k->mfault = false;
		k->nomem = true;
		kp_vars_decide(k);
		return;
	}
	/* each bounded copy's store a fault site after those; where one
	 * cannot be, no bounded copy is made in the kernel (nobstr) */
	if (k->bfault &&
	    !kp_bstr_sites(k, k->fmode || k->mfault ? k->nfs : 0)) {
		k->bfault = false;
		k->nobstr = true;
		kp_vars_decide(k);
		return;
	}
	/*
	 * A lost clock (UBPF_K_VTIME) sends the hit to user space whole
	 * too: not where the kernel keeps self-> variables, whose reads of
	 * vtimestamp are fault sites after the others instead (vfault:
	 * vt_sites()).  A clause printing from its out area reports its
	 * copies' faults from it (d_kplan_out_run()), which knows none of
	 * these: no printed value reads it (novtout, kplan_out.c's
	 * kp_out_ok()); a read elsewhere in such a clause is a site like
	 * any (its fault leaves the area unrun), and where a site cannot
	 * be, no clause reads it in the kernel (novt).
	 */
	k->vfault = false;
	if (tls && k->vtime && !k->novt && prog_reads_vtime(k)) {
		if (!k->novtout && vt_printed(k)) {
			k->novtout = true;
			kp_vars_decide(k);
			return;
		}
		unsigned base = k->fmode || k->mfault || k->bfault ? k->nfs : 0;

		if (!vt_sites(k, base)) {
			k->nfs = base; /* the others' alone */
			k->novt = true;
			kp_vars_decide(k);
			return;
		}
		k->vfault = true;
	}
}
