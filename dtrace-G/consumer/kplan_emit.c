// SPDX-License-Identifier: MIT
/*
 * kplan_emit.c - the instructions of the clauses kplan.c lets the
 * kernel run, for one probe (d_kplan_emit(), in the encoding of
 * bpf/kagg_bpf.h: a stack machine's instructions, each result narrowed
 * as ../d/run.c narrows it).  kplan.c decided which clauses qualify,
 * the types of their variables and their fault sites; this file and
 * its two parts only walk a qualifying clause's tree: the predicate
 * (where its self-> or this-> integers' types differ set and unset,
 * one test per case, dispatched on whether they are: pred_forms()), a
 * forward PRED jump to the clause's end (SC for an && or || whose right
 * side may fault: a string compared, or a copy read, where their faults
 * are the hit's), then each statement (kplan_stmt.c), each expression
 * in them kplan_expr.c's emit().  Its parts, sharing the walk's state
 * (struct em) and its functions through kplan_emit.h:
 *
 *	kplan_emit.c	the entry points: a clause (clause_emit()), its
 *			predicate and its end, a record gate, a vin or
 *			sout clause's values, args_keys()
 *	kplan_stmt.c	a statement's instructions, an if's branches
 *			(emit_stmt(), emit_list())
 *	kplan_expr.c	an expression's (emit()): strings, literals and
 *			execname compared, stored and as keys
 *
 * The depth of the stack at each instruction is tracked
 * (UBPF_KSTACK), and a clause whose instructions do not fit UBPF_KOPS
 * is left to user space for that probe (false, the plan unchanged).
 * args[N] is typed here, at the probe (kplan.c's kp_ty_at()): ARG, then
 * NORM to the type the probe declares; where it is no integer, or a
 * key's type differs from the one the first plan with it fixed
 * (args_keys(): the merge has one type per key), the clause does not
 * fit that probe; so where args[N] printed as a string (kplan_out.c's
 * kp_out_sarg(): ARG, then OSTR) is no string there.  d_kplan_fits()
 * asks that of a clause alone, fixing no key type, with the first
 * reason (struct em's why: unfit()); kplan_here.c decides from it which
 * clauses the kernel runs at the probe, the others user space's.  So
 * too where the plan, with the clauses before it, would copy more than
 * UBPF_KSTRARGS argument strings before its first clause (cgen_sarg.c's
 * seq_read(); the strings each instruction reads are
 * d_kplan_op_strargs()'s: SEQ, SKEY and the like, and R2's OSTR and
 * SSTR flagged UBPF_KF_APRE, kplan_out.c), so that a fifth is never
 * the code generator's refusal.  A
 * record gate (d_kplan_gate()) is the predicate alone of a clause left
 * to user space, its PRED jumping past a REC (an argument the site
 * lacks reads 0 there, as in the record: cgen_plan.c's ARG).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_emit.h"
#include "kplan_impl.h"
#include "xalloc.h"

unsigned d_kplan_op_strargs(const struct ubpf_kop *o, uint8_t a[2])
{
	switch (o->op) {
	case UBPF_K_SEQ:
	case UBPF_K_CACMP:
	case UBPF_K_VACMP:
	case UBPF_K_SLEN:
		a[0] = o->n;
		return 1;
	case UBPF_K_SKEY:
	case UBPF_K_SKEY2:
	case UBPF_K_AKEY:
		a[0] = (uint8_t)o->slot;
		return 1;
	case UBPF_K_SMKEY: /* of two strings: its second, levels */
		a[0] = (uint8_t)o->slot;
		a[1] = (uint8_t)o->levels;
		return o->agg == 3 ? 2 : 1;
	case UBPF_K_BCPY: /* its copy, whatever reads it (kplan_bstr.c) */
		a[0] = (uint8_t)UBPF_KBSTR(o->n, o->levels);
		return 1;
	case UBPF_K_OSTR:
	case UBPF_K_SSTR: /* R2's: kplan_stmt.c's emit_stmt() */
		a[0] = (uint8_t)o->step;
		return (o->flags & UBPF_KF_APRE) ? 1 : 0;
	default:
		return 0;
	}
}

/*
 * The argument strings ops[0 .. n) copy before the plan's first clause
 * (cgen_sarg.c's seq_read() makes one copy of each): the first past
 * UBPF_KSTRARGS of them, else -1.  Asked of a clause's plan, and of a
 * record gate's, which holds none today (kplan.c's gate_ok() takes no
 * function or string) but would make an event with more the code
 * generator's refusal (e->bad), its probe then running the record-only
 * program whatever -v said.
 */
static int strargs_over(const struct ubpf_kplan *pl, unsigned n)
{
	uint8_t seen[UBPF_KSTRARGS];
	unsigned ns = 0;

	for (unsigned i = 0; i < n && i < UBPF_KOPS; i++) {
		uint8_t a[2];
		unsigned na = d_kplan_op_strargs(&pl->ops[i], a);

		for (unsigned q = 0; q < na; q++) {
			unsigned z;

			for (z = 0; z < ns && seen[z] != a[q]; z++)
				;
			if (z < ns)
				continue;
			if (ns == UBPF_KSTRARGS)
				return a[q];
			seen[ns++] = a[q];
		}
	}
	return -1;
}

int d_kplan_apre(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c;

	if (!k || !k->vars || k->noastr || clause >= k->prog->nclauses ||
	    !d_kplan_clause(k, clause))
		return -1;
	c = &k->prog->clauses[clause];
	if (!kp_usite_clause(c))
		return -1;
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct kstmt *ks = &k->st[k->first[clause] + i];
		int n = kp_out_apre(k, clause, i);

		if (n >= 0 && (ks->out || ks->sstr))
			return n;
	}
	return -1;
}

void unfit(struct em *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->full && m->why && m->wlen && !m->why[0]) {
		va_start(ap, fmt);
		vsnprintf(m->why, m->wlen, fmt, ap);
		va_end(ap);
	}
	m->full = true;
}

struct ubpf_kop *put(struct em *m, int op, int pops, int pushes)
{
	static struct ubpf_kop sink;
	struct ubpf_kop *o;

	if (m->n >= UBPF_KOPS) {
		m->full = true;
		return memset(&sink, 0, sizeof(sink));
	}
	o = &m->pl->ops[m->n++];
	memset(o, 0, sizeof(*o));
	o->op = (uint8_t)op;
	m->depth = m->depth - (unsigned)pops + (unsigned)pushes;
	if (m->depth > m->max)
		m->max = m->depth;
	return o;
}

/*
 * Narrow the top to (sz, sg), as run.c's d_dv_int() narrows a cast's
 * or a declared variable's value, whatever type it had: nothing to do
 * when it is 8 bytes (the value is its 64 bits).  A value already of
 * that type is narrowed too: an operator's keeps its high bits (reg()),
 * so a store of 0u - 1 into an unsigned int is 0xffffffff only once
 * narrowed (it was kept whole, and self->x + 1 was 0, not 4294967296).
 */
void norm(struct em *m, uint8_t sz, uint8_t sg)
{
	struct ubpf_kop *o;

	if (sz == 8)
		return;
	o = put(m, UBPF_K_NORM, 1, 1);
	o->sz = sz;
	o->sg = sg;
}

/* VLD or VST o of variable v */
void var_op(struct em *m, struct ubpf_kop *o, unsigned v)
{
	if (m->k->prog->vars[v].scope == SC_SELFASSOC) {
		o->n = UBPF_KV_SELFA;
		o->slot = (uint16_t)v;
		m->tls = true;
	} else if (m->k->prog->vars[v].scope == SC_ASSOC) {
		o->n = UBPF_KV_GARR; /* kplan_garr.c */
		o->slot = (uint16_t)v;
		m->garr = true;
	} else if (m->k->prog->vars[v].scope == SC_SELF) {
		o->n = UBPF_KV_SELF;
		o->slot = (uint16_t)v;
		m->tls = true;
	} else {
		o->n = UBPF_KV_THIS;
		o->slot = (uint16_t)m->k->vslot[v];
	}
}

static bool clause_emit(const struct d_kplan *k, unsigned clause,
			const struct d_probe *probe, struct ubpf_kplan *pl,
			char *why, size_t wlen);

/* prog()'s pids past the first nanc taken back, and progx()'s ancx
 * where it was 0 (an entry point that failed), every byte as before
 * them (plans are compared whole) */
static void anc_back(struct ubpf_kplan *pl, uint8_t nanc, uint8_t ancx)
{
	for (unsigned i = nanc; i < UBPF_KANC; i++)
		pl->anc[i] = 0;
	pl->nanc = nanc;
	pl->ancx = ancx;
	if (!nanc && !ancx)
		pl->anc_off[0] = pl->anc_off[1] = 0;
}

/*
 * The keys of clause's statements that read args[N] (kstmt's kargs),
 * typed at probe: with fix, each becomes the key's type for good where
 * none was yet; false where one differs from the type a plan fixed
 * before (the merge has one type per key: that probe's hits are user
 * space's, which types them there) or is not an integer there.
 */
static bool args_keys(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, bool fix, char *why,
		      size_t wlen)
{
	const struct clause *c = &k->prog->clauses[clause];

	for (unsigned i = 0; i < c->nflat; i++) {
		/* the layout this probe's plan runs (kstmt's alt) */
		struct kstmt *ks = kp_stmt_at(k, clause, i, probe, NULL);

		for (unsigned j = 0; ks->kargs && j < ks->st->nkeys; j++) {
			uint8_t z, g, bit = (uint8_t)(1u << j);

			if (!(ks->kargs & bit) ||
			    ((int)j == ks->skey && !skey_int(ks, j, probe)))
				continue; /* a string here: SKEY's */
			if (!kp_ty_at(k, probe, ks->st->keys[j], &z, &g)) {
				if (why)
					snprintf(why, wlen,
						 "key %u, args[], is no "
						 "integer there",
						 j + 1);
				return false;
			}
			if (ks->kfixed & bit) {
				if (z == ks->ksz[j] && g == ks->ksg[j])
					continue;
				if (why)
					snprintf(why, wlen,
						 "key %u's type there is not "
						 "the one the first plan "
						 "with it fixed",
						 j + 1);
				return false;
			} else if (fix) {
				ks->ksz[j] = z;
				ks->ksg[j] = g;
				ks->kfixed |= bit;
			}
		}
	}
	return true;
}

bool d_kplan_emit(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl)
{
	if (!d_kplan_clause(k, clause) ||
	    !args_keys(k, clause, probe, false, NULL, 0) ||
	    !kp_clause_emit(k, clause, probe, pl))
		return false;
	(void)args_keys(k, clause, probe, true, NULL, 0);
	return true;
}

/*
 * Does clause, which the kernel runs (d_kplan_clause()), fit probe:
 * kp_clause_emit() of it alone into a scratch plan, fixing no key's
 * type (args_keys() without fix)?  Not: the emitter's first reason
 * into why ("args[0] is no string there"), a function of the clause
 * and the probe's declared types and names alone.  trial: into pl as
 * it is (d_kplan_here()'s room), else a scratch plan.
 */
bool kp_clause_try(const struct d_kplan *k, unsigned clause,
		   const struct d_probe *probe, struct ubpf_kplan *pl,
		   char *why, size_t wlen)
{
	struct ubpf_kplan *t = pl ? pl : xcalloc(1, sizeof(*t));
	bool ok;

	if (why && wlen)
		why[0] = '\0';
	ok = args_keys(k, clause, probe, false, why, wlen) &&
	     clause_emit(k, clause, probe, t, why, wlen);
	if (!pl)
		free(t);
	return ok;
}

bool d_kplan_fits(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, char *why, size_t wlen)
{
	if (!d_kplan_clause(k, clause)) {
		if (why && wlen)
			snprintf(why, wlen, "it is not the kernel's");
		return false;
	}
	return kp_clause_try(k, clause, probe, NULL, why, wlen);
}

bool d_kplan_sout_emit(const struct d_kplan *k, unsigned clause,
		       const struct d_probe *probe, struct ubpf_kplan *pl)
{
	return d_kplan_sout(k, clause) && kp_clause_emit(k, clause, probe, pl);
}

/* A vin clause (kplan_vin.c's "Shared self-> variables"): the value
 * of each self-> variable its record carries, in the variables' order,
 * OUT each, then ODONE; no test of its predicate: user space runs it */
/* The test of predicate n, the comparison fused into PRED where it is
 * one, as kp_clause_emit() fuses it; its jump the caller's */
static struct ubpf_kop *pred_test(struct em *m, const struct node *n)
{
	struct ubpf_kop *pred;
	bool sc = false; /* an SC lands past the comparison */
	unsigned i;

	emit(m, n);
	for (i = m->pl->nops; !m->full && i < m->n; i++)
		sc |= m->pl->ops[i].op == UBPF_K_SC &&
		      m->pl->ops[i].jump == m->n;
	if (!m->full && m->n > m->pl->nops && !sc &&
	    m->pl->ops[m->n - 1].op >= UBPF_K_EQ &&
	    m->pl->ops[m->n - 1].op <= UBPF_K_GEU) {
		pred = &m->pl->ops[m->n - 1];
		pred->n = pred->op;
		pred->op = UBPF_K_PRED;
		m->depth--;
		return pred;
	}
	return put(m, UBPF_K_PRED, 1, 0);
}

/*
 * The dispatch of typed forms on open bit b (kstmt's forms, the
 * predicate's pforms): whether the variable whose bit it is
 * (kplan_vars.c's var_keep()) is set, pushed: a self-> integer's VLD
 * (set exactly when non-zero: a store of 0 deletes it), a this->
 * integer's TSET (stored by the firing, 0 included: run.c's var_set()
 * sets it whatever the value); false (and unfit) where none has it,
 * never another variable's test.
 */
bool form_load(struct em *m, uint32_t b)
{
	int bit = __builtin_ctz(b);

	for (unsigned v = 0; v < m->k->prog->nvars; v++) {
		const struct var *var = &m->k->prog->vars[v];

		if (m->k->vbit[v] != bit)
			continue;
		if (var->scope == SC_SELF) {
			var_op(m, put(m, UBPF_K_VLD, 0, 1), v);
			return true;
		}
		if (var->scope == SC_THIS && m->k->vslot[v] >= 0 &&
		    m->k->vslot[v] < UBPF_KTHIS) {
			struct ubpf_kop *o = put(m, UBPF_K_TSET, 0, 1);

			o->n = UBPF_KV_THIS;
			o->slot = (uint16_t)m->k->vslot[v];
			o->sz = 4;
			o->sg = 1;
			return true;
		}
		break;
	}
	unfit(m, "no self-> or this-> integer has the open bit %d", bit);
	return false;
}

/*
 * The test of predicate n dispatched on its open bits (k->pforms: self->
 * and this-> integers whose type set and unset differ), as
 * kplan_stmt.c's emit_forms() dispatches a statement: per bit, lowest
 * first, the variable's set test (form_load()) and a PRED to its unset
 * forms, each form pred_test() with k->absent
 * those bits, its PRED's index into preds (the caller's jump: false
 * ends the clause), its true path a JMP past the last form (into jmps,
 * patched by the caller to the clause's first statement).  Without
 * bits, pred_test() alone.
 */
static void pred_forms(struct em *m, const struct node *n, uint32_t bits,
		       uint32_t absent, unsigned *preds, unsigned *np,
		       unsigned *jmps, unsigned *nj)
{
	struct d_kplan *kw = (struct d_kplan *)m->k; /* its typing state */
	struct ubpf_kop *o;
	uint32_t b = bits & -bits, was = kw->absent;
	unsigned pj;

	if (!bits) { /* a form: typed with those bits alone unset */
		kw->absent = absent;
		o = pred_test(m, n);
		kw->absent = was;
		if (!m->full)
			preds[(*np)++] = (unsigned)(o - m->pl->ops);
		return;
	}
	if (!form_load(m, b))
		return;
	put(m, UBPF_K_PRED, 1, 0);
	pj = m->n - 1;
	pred_forms(m, n, bits & ~b, absent, preds, np, jmps, nj);
	put(m, UBPF_K_JMP, 0, 0);
	if (m->full)
		return;
	jmps[(*nj)++] = m->n - 1;
	m->pl->ops[pj].jump = (uint16_t)m->n;
	pred_forms(m, n, bits & ~b, absent | b, preds, np, jmps, nj);
}

/* Predicate n's test, dispatched on bits (pred_forms()), its PREDs
 * into preds (*np of them), the caller's to jump past the clause */
static void pred_emit(struct em *m, const struct node *n, uint32_t bits,
		      unsigned *preds, unsigned *np)
{
	unsigned jmps[KP_FORMS], nj = 0;

	*np = 0;
	if (!bits) {
		struct ubpf_kop *o = pred_test(m, n);

		if (!m->full)
			preds[(*np)++] = (unsigned)(o - m->pl->ops);
		return;
	}
	pred_forms(m, n, bits, 0, preds, np, jmps, &nj);
	for (unsigned q = 0; !m->full && q < nj; q++)
		m->pl->ops[jmps[q]].jump = (uint16_t)m->n;
}

/* Store st of a self-> integer, as kp_clause_emit() makes it: the
 * value, as d_var_conv() makes it, then VST */
static void store_of(struct em *m, const struct stmt *st)
{
	const struct var *v = &m->k->prog->vars[st->e->a->sub];
	struct node bin, one;
	struct ubpf_kop *o;

	emit(m, kp_stored(st, &bin, &one));
	if (v->declared)
		norm(m, v->sz, v->sg);
	o = put(m, UBPF_K_VST, 1, 0);
	var_op(m, o, (unsigned)st->e->a->sub);
}

bool kp_pred_emit(const struct d_kplan *k, const struct node *n, uint32_t forms,
		  const struct stmt *st, const struct d_probe *probe,
		  struct ubpf_kplan *pl)
{
	struct em m = { .pl = pl, .n = pl->nops, .probe = probe, .k = k };
	unsigned preds[KP_FORMS], np = 0;
	uint8_t nanc = pl->nanc, ancx = pl->ancx;

	if (n)
		pred_emit(&m, n, forms, preds, &np);
	else
		store_of(&m, st);
	if (m.full || m.max > UBPF_KSTACK) {
		anc_back(pl, nanc, ancx);
		return false;
	}
	for (unsigned q = 0; q < np; q++)
		pl->ops[preds[q]].jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	return true;
}

bool d_kplan_vin_emit(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, struct ubpf_kplan *pl)
{
	struct em m = { .pl = pl, .n = pl->nops, .probe = probe, .k = k };
	unsigned preds[KP_FORMS], np = 0;
	uint8_t nanc = pl->nanc, ancx = pl->ancx;
	bool *mark;

	if (!d_kplan_vin(k, clause))
		return false;
	/* its predicate, where the kernel computes it (k->vpred): false,
	 * the values and ODONE are jumped over, its ran bit unset; its
	 * forms k->pforms's (kplan_vin.c's vpred_ok()) */
	if (k->vpred[clause])
		pred_emit(&m, k->prog->clauses[clause].pred, k->pforms[clause],
			  preds, &np);
	mark = xcalloc(k->prog->nvars ? k->prog->nvars : 1, sizeof(*mark));
	kp_vin_vars(k, clause, mark);
	for (unsigned v = 0; v < k->prog->nvars && !m.full; v++) {
		struct node nv = { .op = N_VAR, .sub = (int)v };

		if (!mark[v])
			continue;
		emit(&m, &nv);
		put(&m, UBPF_K_OUT, 1, 0);
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, &nv);
	}
	/* its stores of them, the kernel's too (kplan_vin.c's
	 * kstore_ok()), after the values it reads before them */
	for (unsigned i = 0; i < k->prog->clauses[clause].nstmts; i++) {
		const struct stmt *st = &k->prog->clauses[clause].stmts[i];
		int v = kp_assigned_var(st);

		if (v >= 0 && mark[v])
			store_of(&m, st);
	}
	free(mark);
	put(&m, UBPF_K_ODONE, 0, 0);
	m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, NULL);
	if (m.full || m.max > UBPF_KSTACK) {
		anc_back(pl, nanc, ancx);
		return false;
	}
	for (unsigned q = 0; q < np; q++)
		pl->ops[preds[q]].jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	if (m.tls)
		pl->tls |= 1;
	if (m.garr)
		pl->tls |= UBPF_KTLS_GARR;
	return true;
}

/* A sout clause (kplan_vars.c's sout_ok()): its printf() and trace()
 * values and ODONE, with no test of its predicate but where the kernel
 * computes it (k->spred: tested, then its truth an OUT, the area's
 * first 8 bytes); user space runs the rest */
static bool clause_emit(const struct d_kplan *k, unsigned clause,
			const struct d_probe *probe, struct ubpf_kplan *pl,
			char *why, size_t wlen)
{
	const struct clause *c = &k->prog->clauses[clause];
	struct em m = { .pl = pl,
			.n = pl->nops,
			.probe = probe,
			.k = k,
			.why = why,
			.wlen = wlen };
	struct ubpf_kop *pred = NULL;
	unsigned i, preds[KP_FORMS], np = 0;
	bool sout = k->sout && k->sout[clause];
	uint8_t nanc = pl->nanc, ancx = pl->ancx;

	if (c->pred && !sout) {
		pred_emit(&m, c->pred, k->pforms[clause], preds, &np);
	} else if (c->pred && k->spred && k->spred[clause]) {
		/*
		 * A sout clause whose predicate the kernel computes
		 * (spred_ok(): an integer that cannot fault): false, the
		 * clause ends here, its area unwritten and no record asked
		 * for it (its ODONE not reached: user space runs nothing of
		 * it, as for a false predicate), where every hit wrote one
		 * before (at a syscall probe, every process's call: drops
		 * under load); true, its truth, 1, is the area's first 8
		 * bytes, which d_kplan_out_run() tests
		 */
		struct ubpf_kop *one;

		pred = pred_test(&m, c->pred);
		one = put(&m, UBPF_K_CONST, 0, 1);
		one->imm = 1;
		one->sz = 8;
		one->sg = 1;
		put(&m, UBPF_K_OUT, 1, 0);
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, c->pred);
	}
	emit_list(&m, c, clause, 0, c->nstmts, sout);
	if (kp_out_clause(k, clause)) { /* it ran: kplan_out.c */
		struct ubpf_kop *o = put(&m, UBPF_K_ODONE, 0, 0);

		if (!kp_out_prints(k, clause)) /* it stores strings only */
			o->flags = UBPF_KF_NOREC;
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, NULL);
	}
	/* the argument strings the plan copies before its first clause,
	 * the ones before it included: past UBPF_KSTRARGS the clause is
	 * user space's here */
	if (!m.full) {
		int a = strargs_over(pl, m.n);

		if (a >= 0)
			unfit(&m,
			      "the probe's plan has no room to copy "
			      "copyinstr(arg%d) before its first clause",
			      a);
	}
	if (m.full || m.max > UBPF_KSTACK) {
		/* what was written past pl->nops is not part of the plan */
		if (why && wlen && !why[0])
			snprintf(why, wlen,
				 "its instructions do not fit the probe's "
				 "plan");
		/* what was written past pl->nops is not part of the plan,
		 * nor are prog()'s pids it added */
		anc_back(pl, nanc, ancx);
		return false;
	}
	if (pred)
		pred->jump = (uint16_t)m.n;
	for (i = 0; i < np; i++) /* the predicate's false: the end */
		pl->ops[preds[i]].jump = (uint16_t)m.n;
	/* the bytes run.c reads of a string (cgen_sarg.c's seq_read()) */
	pl->fstr = k->prog->strsize - 1 > UINT16_MAX
			   ? UINT16_MAX
			   : (uint16_t)(k->prog->strsize - 1);
	/* a string that faults ends the clause here too */
	for (i = pl->nops; i < m.n; i++) {
		if (((pl->ops[i].op == UBPF_K_SEQ ||
		      pl->ops[i].op == UBPF_K_VACMP ||
		      pl->ops[i].op == UBPF_K_CACMP ||
		      pl->ops[i].op == UBPF_K_AKEY ||
		      pl->ops[i].op == UBPF_K_BCPY) &&
		     pl->ops[i].agg) ||
		    ((pl->ops[i].op == UBPF_K_MLD ||
		      pl->ops[i].op == UBPF_K_VTIME) &&
		     pl->ops[i].slot))
			pl->ops[i].jump = (uint16_t)m.n;
		if ((pl->ops[i].op == UBPF_K_SSTR ||
		     (pl->ops[i].op == UBPF_K_OSTR && pl->ops[i].jump)) &&
		    !(pl->ops[i].flags & UBPF_KF_APRE))
			pl->ops[i].jump = (uint16_t)m.n;
		/* an ID past nspec ends the clause (kplan_spec.c) */
		if ((pl->ops[i].op == UBPF_K_SPECU && pl->ops[i].n) ||
		    (pl->ops[i].op == UBPF_K_SPECX && pl->ops[i].levels))
			pl->ops[i].jump = (uint16_t)m.n;
	}
	pl->nops = (uint16_t)m.n;
	if (m.tls)
		pl->tls |= 1;
	if (m.garr)
		pl->tls |= UBPF_KTLS_GARR;
	return true;
}

/*
 * The predicate of a clause user space runs, then REC: the test and
 * the jump past REC fused where the predicate is a comparison, as
 * kp_clause_emit() fuses them.
 */
bool d_kplan_gate(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl)
{
	struct em m = { .pl = pl, .n = pl->nops, .probe = probe, .k = k };
	struct ubpf_kop *pred;
	uint8_t nanc = pl->nanc, ancx = pl->ancx;

	if (!d_kplan_gated(k, clause))
		return false;
	emit(&m, k->prog->clauses[clause].pred);
	if (!m.full && m.n > pl->nops && pl->ops[m.n - 1].op >= UBPF_K_EQ &&
	    pl->ops[m.n - 1].op <= UBPF_K_GEU) {
		pred = &pl->ops[m.n - 1];
		pred->n = pred->op;
		pred->op = UBPF_K_PRED;
		m.depth--;
	} else {
		pred = put(&m, UBPF_K_PRED, 1, 0);
	}
	put(&m, UBPF_K_REC, 0, 0);
	if (m.full || m.max > UBPF_KSTACK || m.tls || m.garr ||
	    strargs_over(pl, m.n) >= 0) {
		anc_back(pl, nanc, ancx);
		return false;
	}
	pred->jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	return true;
}

bool kp_clause_emit(const struct d_kplan *k, unsigned clause,
		    const struct d_probe *probe, struct ubpf_kplan *pl)
{
	return clause_emit(k, clause, probe, pl, NULL, 0);
}
