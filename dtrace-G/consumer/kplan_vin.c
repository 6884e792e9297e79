// SPDX-License-Identifier: MIT
/*
 * kplan_vin.c - the clauses user space runs that read self-> integers
 * the kernel keeps (vin clauses): where one may be (vin_where()), the
 * variables its record carries (vin_var(), kp_vin_vars()), its kernel
 * stores (kstore_ok()) and its predicate tested in the kernel
 * (vpred_ok()); kplan_vars.c's kp_vars_decide() asks, kplan_emit.c
 * emits them and kplan_why.c says why not (kp_vin_why()).
 *
 * Shared self-> variables.  A variable has one copy: the kernel's only
 * while every clause touching it runs there.  But a clause user space
 * runs for a reason of its own (a stack as a key, a string the kernel
 * does not compute) and reads a self-> integer, the latency idiom's
 *	read:entry { self->ts = timestamp; }
 *	read:return /self->ts/ { @ = quantize(timestamp - self->ts);
 *		@s[ustack()] = count(); self->ts = 0; }
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
 *    (bpf_agg_cgen.c's reap) and dtrace keeps none.
 *  - The predicate: where it is an integer the kernel computes, of its
 *    variables (so those the area carries) and the hit's values, that
 *    cannot fault, stores nothing, reads no memory by an address
 *    (kp_sout_here()), no string and no timestamp (a record gate's
 *    rule, kplan.c's gate_ok()), and whose test is the same
 *    instructions whichever of its variables are set, or is once
 *    dispatched at the hit on the self-> integers whose types differ
 *    (vpred_ok(), k->pforms, as kplan_vars.c's clause_typed()), the
 *    kernel tests it first
 *    (k->vpred): false, the
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
 *    whose exit() is decided at the hit: k->user), nor a sout one;
 *    the values fit the area (UBPF_KOUTMAX).  Where they do not fit
 *    after the kernel's clauses before it, the nearest one user space
 *    can run is user space's at that probe (kplan_here.c's
 *    kept_room()); a probe whose plan cannot hold them still is
 *    refused, as a sout clause's (UBPF_KTLS_UNFIT).  A hit
 *    whose record comes unflagged (a process never armed: bpf_agg_cgen.c's
 *    tls_user(); at a kernel probe, one so kept: "Two copies" there)
 *    runs every clause with user space's copy, as for every clause
 *    keeping self-> variables; the put back keeps that copy.
 * A self-> string the kernel keeps that such a clause reads in its
 * predicate alone, the kernel testing that predicate, needs no value in
 * the record: dtrace takes the kernel's truth (vin_ptest()).
 * Still user space's: a variable a user space clause stores but by a
 * kernel store, this-> variables, thread-local arrays and self->
 * strings such a clause touches otherwise.
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

/*
 * A clause user space runs that reads self-> integers the kernel keeps
 * (k->vin: "Shared self-> variables" above):
 * one that may have an out area (kp_sout_where(): every probe it fires
 * at runs a generated program), not dtrace's own (BEGIN, END), not one
 * that fires in user space too (ERROR, the clauses whose exit() is
 * decided at the hit: k->user), nor a sout one (its own area).
 */
bool vin_where(const struct d_kplan *k, unsigned ci)
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
 * gid, cpu, id, epid, timestamp, walltimestamp, errno; not vtimestamp,
 * which faults where the record says the clock was lost) and variables
 * (no pointer or struct), operators but / and % by other than a
 * constant not 0; with whole (a printf() or trace() argument or a key,
 * whole), also a literal, execname, a probe's name, a string variable
 * or ustack() of constants.
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
		    (!d_const_int(n->b, &c) || !c))
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

static bool typed_same(struct d_kplan *k, const struct node *n,
		       const struct stmt *st, uint32_t *forms);

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
	       typed_same(k, NULL, st, NULL);
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
bool vin_var(struct d_kplan *k, unsigned ci, unsigned v)
{
	return k->vst[v] == KV_KERN && k->prog->vars[v].scope == SC_SELF &&
	       vin_stores_ok(k, ci, v);
}

/*
 * Is v a self-> string the kernel keeps (KV_STR: kplan_svar.c's, or a
 * format-time one, kplan_fkey.c's) that vin clause ci reads in its
 * predicate alone, a predicate the kernel tests (vpred_ok(): VSEQ's
 * tests of it against NULL, "" or a literal read no memory and cannot
 * fault)?  Then the record carries nothing of it: the kernel's truth at
 * the clause's place is the one run.c's test would have there, and
 * dtrace runs the clause's statements on that truth, testing nothing
 * again (records.c, d_run_truth(); its own copy of v is none, which
 * would read "").  The *_malloc.d scripts' `/self->name == NULL/ {
 * @[usym(ucaller)] = ...; }`.
 */
/* vin_ptest() but the predicate's test: v read in ci's predicate alone */
static bool ptest_var(const struct d_kplan *k, unsigned ci, unsigned v)
{
	const struct clause *c = &k->prog->clauses[ci];
	bool *mark, in_pred, in_body;

	if (k->vst[v] != KV_STR || k->prog->vars[v].scope != SC_SELF ||
	    !c->pred || stores_into(c->pred, v))
		return false;
	mark = xcalloc(k->prog->nvars, sizeof(*mark));
	vars_of(c->pred, mark);
	in_pred = mark[v];
	memset(mark, 0, k->prog->nvars * sizeof(*mark));
	stmts_vars(c->stmts, c->nstmts, mark);
	in_body = mark[v];
	free(mark);
	return in_pred && !in_body;
}

bool vin_ptest(struct d_kplan *k, unsigned ci, unsigned v)
{
	return ptest_var(k, ci, v) && vpred_ok(k, ci);
}

bool kp_vin_ptests(struct d_kplan *k, unsigned ci)
{
	unsigned v;

	for (v = 0; v < k->prog->nvars && !ptest_var(k, ci, v); v++)
		;
	return v < k->prog->nvars && vpred_ok(k, ci); /* (one test) */
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
	if (!k->vars || k->horizon || k->sout[ci] || (k->user && k->user[ci]) ||
	    kp_dtrace_only(c) || kp_sout_where(k, ci))
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

/* Does n read timestamp, walltimestamp or vtimestamp (which faults
 * where the clock was lost)? */
static bool reads_time(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_TIMESTAMP ||
				   d_builtins[n->sub].id == B_VTIMESTAMP ||
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
 * whichever of its variables are set, or is once dispatched at the hit
 * on the self-> integers whose types differ (typed_same(), its forms
 * into k->pforms[ci], as kplan_vars.c's clause_typed()): then its
 * truth at the hit is the one user space computes from the record's
 * values.
 */
bool vpred_ok(struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	uint8_t sz, sg;

	k->pforms[ci] = 0;
	return c->pred && c->pred->kind != T_STR && kp_sout_here(c->pred) &&
	       !reads_time(c->pred) &&
	       kp_ty_at(k, KP_ANYPROBE, c->pred, &sz, &sg) &&
	       !kp_has_str_cmp(k, c->pred) &&
	       typed_same(k, c->pred, NULL, &k->pforms[ci]);
}

/* Are the instructions of predicate n's test, dispatched on the open
 * bits f (0: none), or (n NULL) of store st, a kernel store, the same
 * whichever of its variables are set? */
static bool same_with(struct d_kplan *k, const struct node *n, uint32_t f,
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
	if (__builtin_popcount(set) > KP_TYPED_BITS || k->elem_full) {
		k->nelem = 0;
		return false;
	}
	a = xcalloc(1, sizeof(*a));
	b = xcalloc(1, sizeof(*b));
	k->absent = 0;
	k->typing = true;
	ok = kp_pred_emit(k, n, f, st, &none, a);
	while (ok && (s = next_subset(s, set)) != 0) {
		k->absent = s;
		memset(b, 0, sizeof(*b));
		ok = kp_pred_emit(k, n, f, st, &none, b) &&
		     a->nops == b->nops &&
		     !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
	}
	k->absent = 0;
	k->typing = false;
	k->nelem = 0;
	free(a);
	free(b);
	return ok;
}

/* Is predicate n's test (or, n NULL, store st's) typed as user space
 * types it whichever of its variables are set (as kplan_vars.c's
 * clause_typed())?  The same instructions in every case, or for a
 * predicate (forms not NULL), the same once dispatched at the hit on
 * its open bits (kp_form_bits()), those into *forms (else 0). */
static bool typed_same(struct d_kplan *k, const struct node *n,
		       const struct stmt *st, uint32_t *forms)
{
	uint32_t f;

	if (forms)
		*forms = 0;
	if (same_with(k, n, 0, st))
		return true;
	if (!n || !forms || !(f = kp_form_bits(k, n)) ||
	    !same_with(k, n, f, st))
		return false;
	*forms = f;
	return true;
}
