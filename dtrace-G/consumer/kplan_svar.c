// SPDX-License-Identifier: MIT
/*
 * kplan_svar.c - the string variables the kernel keeps (kplan_vars.c's
 * kp_vars_decide() asks, per variable): this-> strings that are
 * copyinstr(argN) wherever they are read (KV_SARG: sarg_var(), and
 * sarg_key() for one that keys an aggregation); this-> and self->
 * strings stored from copyinstr(), a literal or one another and only
 * printed, compared with a literal, another or execname, measured by
 * strlen() or an aggregation's key (KV_STR: str_var()), and this->
 * strings holding a format-time function of copyinstr(), only keyed by
 * or printed whole (KV_STR too, the store its copy's, a printed one's
 * leaves a room each: kplan_fkey.c), and self-> ones only keyed by or
 * tested against NULL (the same, the test whether the entry is there).
 * What makes
 * each exact is said at sarg_var() and str_var(); what the kernel does
 * with them is kplan_str.c's, kplan_out.c's and cgen_svar.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

/* this->v = copyinstr(argN), a statement of its own: N, else -1 */
static int sarg_store(const struct stmt *st, unsigned v)
{
	const struct node *b = kp_plain_store(st, v);

	return b ? kp_copyinstr_arg(b) : -1;
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
int sarg_var(const struct d_kplan *k, unsigned v, bool *mark)
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

/* Does a statement of v (n of them) key an aggregation by variable w
 * whole and by a format-time variable (kplan_fkey.c's k->fvar)? */
static bool keyed_beside_fvar(const struct d_kplan *k, const struct stmt *v,
			      unsigned n, unsigned w)
{
	for (unsigned i = 0; i < n; i++) {
		bool by_w = false, by_f = false;

		for (unsigned j = 0; j < v[i].nkeys; j++) {
			const struct node *x = v[i].keys[j];

			by_w |= whole_key(&v[i], j, w);
			by_f |= x->op == N_VAR && x->sub >= 0 && k->fvar &&
				k->fvar[x->sub];
		}
		if ((by_w && by_f) ||
		    keyed_beside_fvar(k, v[i].body, v[i].nbody, w) ||
		    keyed_beside_fvar(k, v[i].els, v[i].nels, w))
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
			const struct node *a = kp_out_node(st, j);

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
bool prog_lit_reads(const struct d_prog *p, unsigned v)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (!lit_reads_only(p, p->clauses[ci].pred, v) ||
		    !stmts_lit_reads(p, p->clauses[ci].stmts,
				     p->clauses[ci].nstmts, v))
			return false;
	return true;
}

/*
 * Characters stored (doc/DESIGN.md §8, "Characters stored into a
 * string kept"): the book's mysqld_qchit.d cuts a long query for its
 * key,
 *
 *	mysql*:::query-cache-hit /strlen(this->query) > 60/ {
 *		this->query[57] = '.'; ... this->query[60] = 0; }
 *
 * run.c's str_store() faults where s is unset (at address i), where i
 * is not below strsize, and where i is the string's length and c not
 * 0; past the length, or a NUL at the length, it does nothing; below
 * it, byte i becomes c (a NUL cutting the string there).  The kernel
 * stores it (UBPF_K_SCHR, cgen_svar.c's schr(): below the length, the
 * byte; else nothing) only where no fault can be, proved per clause
 * (schr_safe()): a this-> string, not a format-time one, i and c
 * constants, every such store at the clause's top (no if), the
 * predicate strlen(s) > K (or >= K + 1, either way round, maybe one
 * side of an &&) with K >= 0, so s is set and its length L0 > K when
 * the clause runs; i below strsize - 1; and each store with c not 0 at
 * an i <= K and below every index a NUL was stored at before it in the
 * clause, so i is below the length then (a NUL at j < L cuts L to j,
 * one at j >= L does nothing); the clause stores s no other way.
 */
bool kp_schr_of(const struct d_prog *p, const struct stmt *st, unsigned *v,
		int64_t *i, int64_t *c)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || e->sub != '=' ||
	    !e->a || e->a->op != N_DEREF || !e->a->ival || !e->a->a ||
	    e->a->a->op != N_VAR || e->a->a->sub < 0 ||
	    (unsigned)e->a->a->sub >= p->nvars || !e->a->b ||
	    !d_const_int(e->a->b, i) || !d_const_int(e->b, c))
		return false;
	*v = (unsigned)e->a->a->sub;
	*c = (int64_t)(uint8_t)*c; /* run.c's d_dv_int(c, 1, true) */
	return true;
}

/* strlen(v) */
static bool strlen_of(const struct node *n, unsigned v)
{
	return n && n->op == N_FUNC && d_funcs[n->sub].id == F_STRLEN &&
	       n->nargs == 1 && n->args[0]->op == N_VAR &&
	       n->args[0]->sub == (int)v;
}

/* Does predicate n hold only where strlen(v) > *k? */
static bool strlen_above(const struct node *n, unsigned v, int64_t *k)
{
	int64_t x;

	if (!n)
		return false;
	if (n->op == N_LAND)
		return strlen_above(n->a, v, k) || strlen_above(n->b, v, k);
	if (n->op != N_BIN)
		return false;
	if (strlen_of(n->a, v) && d_const_int(n->b, &x) &&
	    (n->sub == '>' || n->sub == OP_GE)) {
		*k = n->sub == '>' ? x : x - 1;
		return true;
	}
	if (strlen_of(n->b, v) && d_const_int(n->a, &x) &&
	    (n->sub == '<' || n->sub == OP_LE)) {
		*k = n->sub == '<' ? x : x - 1;
		return true;
	}
	return false;
}

/* Can no s[i] = c of v in clause c fault?  (Above.) */
static bool schr_safe(const struct d_kplan *k, const struct clause *c,
		      unsigned v)
{
	const struct d_prog *p = k->prog;
	int64_t bound, nul = INT64_MAX, i, ch;
	unsigned w;

	if (p->vars[v].scope != SC_THIS || (k->fvar && k->fvar[v]) ||
	    c->nflat != c->nstmts || stores_into(c->pred, v) ||
	    !strlen_above(c->pred, v, &bound) || bound < 0 ||
	    bound >= (int64_t)p->strsize)
		return false;
	for (unsigned j = 0; j < c->nstmts; j++) {
		const struct stmt *st = &c->stmts[j];

		if (kp_schr_of(p, st, &w, &i, &ch) && w == v) {
			if (i < 0 || i >= (int64_t)p->strsize - 1)
				return false;
			if (ch && (i > bound || i >= nul))
				return false;
			if (!ch && i < nul)
				nul = i;
			continue;
		}
		if (stores_into(st->e, v) || kp_plain_store(st, v))
			return false;
	}
	return true;
}

/*
 * A this-> or self-> string the kernel keeps as its bytes (KV_STR;
 * kplan_out.c, cgen_out.c): every store of it a statement of its own
 * (at a clause's top or in an if's branch: c->flat),
 * v = copyinstr(E) (kp_sstr_ok() takes E where kp_ty() does), v = 0
 * or "" (which read as "", as run.c's var_get() has it), v = "literal"
 * (kp_str_lit_store()), v = a probe's name or a ?: tree of literals and
 * probe names (kp_str_lit_tree()) or of them and copies
 * (kp_str_copy_tree()), v = execname (kp_comm_store(): strsize 18 or
 * more), v = strjoin()s of copies and literals (kplan_str.c's
 * kp_join_parts(), computed at the hit) or v = w, w another such string
 * the kernel
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
bool str_var(const struct d_kplan *k, unsigned v, bool *mark, bool tcmp)
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
			const struct node *e = st->e, *b;

			if (kp_fvar_noop(k, c, st))
				continue; /* (kplan_fkey.c) */

			{ /* s[i] = c, where it cannot fault */
				unsigned w;
				int64_t ix, ch;

				if (kp_schr_of(p, st, &w, &ix, &ch) && w == v) {
					if (!schr_safe(k, c, v))
						return false;
					continue;
				}
			}
			if (st->kind == S_IF) { /* its condition (its
						 * branches: their own) */
				if (!cmp_reads_only(p, e, v, tcmp))
					return false;
				continue;
			}
			if ((b = kp_plain_store(st, v))) {
				bool clr = kp_str_clear(b);

				const struct node *pv[KP_JPARTS];

				if (!clr && !kp_copyinstr_of(b) &&
				    !kp_str_lit_store(p, b) &&
				    !kp_str_lit_tree(k, b) &&
				    !kp_str_copy_tree(k, b) &&
				    !kp_comm_store(p, b) &&
				    kp_str_var_of(p, b) < 0 &&
				    !kp_join_parts(k, b,
						   pv) &&     /* kplan_str.c */
				    !(k->fvar && k->fvar[v])) /* kplan_fkey.c */
					return false;
				copy |= !clr;
				memset(mark, 0, p->nvars * sizeof(*mark));
				vars_of(b, mark);
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
 * A this-> string that keys an aggregation and is an argument's
 * (sarg_var()), read only as whole keys and compared with literals
 * (prog_lit_reads()), where the program may copy arguments' strings,
 * stays that: SKEY copies the argument, as before string variables
 * were keys, rather than a copy kept in cgbuf (str_var()); but not one
 * keying a statement beside a format-time variable (the toolkit's
 * this->name beside this->file = basename(...)), which kaggs_v keys
 * as a pair of bytes kept (vkey_pair()).
 */
bool sarg_key(const struct d_kplan *k, unsigned v, bool *mark, unsigned nthis)
{
	const struct d_prog *p = k->prog;
	bool keyed = false;

	/* (not beside a format-time variable's key, a KV_STR's bytes:
	 * kaggs_v keys such a pair, kaggs_s does not) */
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (keyed_beside_fvar(k, p->clauses[ci].stmts,
				      p->clauses[ci].nstmts, v))
			return false;
	for (unsigned ci = 0; ci < p->nclauses && !keyed; ci++)
		keyed = keyed_by(p->clauses[ci].stmts, p->clauses[ci].nstmts,
				 v);
	return keyed && nthis < UBPF_KTHIS && !k->nostr && !k->fmode &&
	       prog_lit_reads(p, v) && sarg_var(k, v, mark) >= 0;
}
