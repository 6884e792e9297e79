// SPDX-License-Identifier: MIT
/*
 * kplan_bstr.c - a bounded copy's string in the kernel: the idiom the
 * toolkit's and the book's Java scripts (j_calls.d, j_methodcalls.d,
 * j_objnew.d, ...) read hotspot's strings with, which carry a length
 * and no NUL:
 *
 *	this->class = (char *)copyin(arg1, arg2 + 1);
 *	this->class[arg2] = '\0';
 *	... stringof(this->class) ...
 *
 * What run.c does (mem.c): copyin(a, n) copies n bytes of the process
 * into the clause run's scratch, faulting "out of scratch space" where
 * n is negative or past what the run has left of D_COPYIN_MAX, and
 * "invalid address" at a where any of the n bytes cannot be read (or a
 * is 0); the store puts a NUL at byte argL, within the copy; stringof()
 * of the copy's start gives its bytes up to a NUL, the copy's end or
 * strsize - 1 bytes (d_mem_string()).  So where 0 <= argL and the copy
 * is made, the string is argument A's bytes up to the first NUL, argL
 * bytes or strsize - 1 bytes, whichever comes first: a pure function
 * of argL and the process's bytes.
 *
 * What the kernel does: a this-> variable every store of which is such
 * a copy, at a clause's top level, followed at once by its cut
 * (this->v[argL] = '\0' or 0, the same argL), once a clause, and every
 * other read of which is stringof(this->v) later in that clause, never
 * in a predicate (KV_BSTR: kp_bstr_var()), keeps nothing: the two
 * statements are nothing in the plan (kp_bstr_stmt()) and each read is
 * the string of a plan argument numbered UBPF_KBSTR(A, L) (k->brd,
 * kplan_str.c's sarg_of(), and join parts), which cgen_sarg.c's
 * seq_read() copies before the plan's first clause as it copies an
 * argument's string for copyinstr(argN): argL taken at most
 * UBPF_KBSTRMAX - 1 (unsigned, so not negative), the copy's first and
 * last bytes (A and A + argL) read, which with at most UBPF_KBSTRMAX
 * bytes lie on the only two pages the copy can touch, then at most
 * argL bytes (UBPF_STRMAX - 1 where more) up to a NUL.  Anything else
 * (argL out of range, a byte that cannot be read) sends the hit to
 * user space whole, before any clause ran, where run.c makes the copy
 * and its fault as it always did.  So the kernel's string is run.c's
 * wherever the kernel takes the hit, the bytes read at the hit (run.c
 * reads a size not constant from the process when it gets to the
 * record: the record copies only constant sizes, mem.c's node_mem()).
 * A clause whose copies could pass D_COPYIN_MAX together (each up to
 * UBPF_KBSTRMAX bytes), or that makes any other copy, is not taken.
 *
 * Where the kernel keeps self-> variables no hit can go to user space
 * whole, so the copy's fault is the hit's, at its statement (k->bfault,
 * as kplan_mem.c's mfault for constant copies): each store is a fault
 * site (kp_bstr_sites(), KFS_BSTR) and the plan's UBPF_K_BCPY there
 * (kp_bstr_bcpy()) decides what run.c's two statements would have done,
 * in run.c's order: argL -1, a copy of no bytes made and the cut's
 * store one byte below it, "invalid address" in the cut's action at an
 * address of dtrace's scratch (code 3; d_run_fault()'s D_RUNF_BELOW
 * takes one as run.c's store would); argL + 1 past what the clause's
 * copies before it left of D_COPYIN_MAX, or argL below -1, "out of
 * scratch space" (code 2: the copies before it are the clause's other
 * bounded ones, all made, since a fault ends the clause); a byte of
 * the copy that cannot be read, "invalid address" at A (code 1).
 * seq_read() then reads every page of the copy, argL up to
 * UBPF_KBCPYBUDGET - 1 (cgen_sarg.c's bounded_fs()), and only BCPY
 * says whether it failed.  The reads are the hit's, as the kernel's
 * copies of a string by any other address are (doc/DESIGN.md §8's
 * rule, (a)): a page the process has not touched yet is "invalid
 * address" where DTRACE_CGEN=0 reads the process later.  Taken only
 * where strsize is the run's and at most UBPF_STRMAX (the copy's
 * string whole in its room), the copy comes before every printf() and
 * trace() of its clause (so no out area's fault, reported at format
 * time, comes before it unseen), the clause does not speculate, and at
 * most UBPF_KBCPYPREV + 1 copies a clause.  Each clause's variable is
 * its own (every read follows its clause's store), so a clause user
 * space runs and one the kernel runs need not agree on it.
 */
#include <stdlib.h>
#include <string.h>

#include "kplan_impl.h"
#include "xalloc.h"

_Static_assert(UBPF_KBCPYBUDGET == D_COPYIN_MAX,
	       "BCPY's budget is run.c's D_COPYIN_MAX");

/* argN, N below both limits: N, else -1 */
static int argn(const struct node *n)
{
	return n && n->op == N_ARGN && n->sub >= 0 && n->sub < UBPF_MAXARGS &&
			       n->sub < D_MAXARGS
		       ? n->sub
		       : -1;
}

/* copyin(argA, argL + 1) (or 1 + argL), cast to a char pointer: A, L */
static bool bstr_copy(const struct node *b, int *a, int *l)
{
	const struct node *s;
	int64_t one;

	if (!b || b->op != N_CAST || b->ptr != 1 || b->psou)
		return false;
	b = b->a;
	if (!b || b->op != N_FUNC || d_funcs[b->sub].id != F_COPYIN ||
	    b->nargs != 2)
		return false;
	*a = argn(b->args[0]);
	s = b->args[1];
	if (*a < 0 || s->op != N_BIN || s->sub != '+')
		return false;
	if (argn(s->a) >= 0 && d_const_int(s->b, &one) && one == 1)
		*l = argn(s->a);
	else if (argn(s->b) >= 0 && d_const_int(s->a, &one) && one == 1)
		*l = argn(s->b);
	else
		return false;
	return true;
}

/* this->v = copyin(argA, argL + 1) (a statement of its own): A, L */
static bool bstr_store(const struct stmt *st, unsigned v, int *a, int *l)
{
	const struct node *b = kp_plain_store(st, v);

	return b && bstr_copy(b, a, l);
}

/* this->v[argL] = '\0' (or 0), a statement of its own */
static bool bstr_cut(const struct stmt *st, unsigned v, int l)
{
	const struct node *e = st->e, *d;
	int64_t z;

	if (l < 0 || st->kind != S_EXPR || !e || e->op != N_ASSIGN ||
	    e->sub != '=')
		return false;
	d = e->a;
	return d && d->op == N_DEREF && d->b && d->sz == 1 && !d->nelem &&
	       d->a && d->a->op == N_VAR && d->a->sub == (int)v &&
	       argn(d->b) == l && d_const_int(e->b, &z) && z == 0;
}

/* The reads of v under n into k->brd, each stringof(this->v), arg its
 * clause's copy (-1: none yet); false where n reads v otherwise, stores
 * it, or the table is full */
static bool bstr_reads(struct d_kplan *k, const struct node *n, unsigned v,
		       int arg)
{
	if (!n)
		return true;
	if (n->op == N_FUNC && d_funcs[n->sub].id == F_STRINGOF &&
	    n->nargs == 1 && n->args[0]->op == N_VAR &&
	    n->args[0]->sub == (int)v) {
		if (arg < 0 || k->nbrd >= KP_PRDS)
			return false;
		k->brd[k->nbrd].rd = n->args[0];
		k->brd[k->nbrd++].arg = (uint8_t)arg;
		return true;
	}
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)v)
		return false;
	if (!bstr_reads(k, n->a, v, arg) || !bstr_reads(k, n->b, v, arg) ||
	    !bstr_reads(k, n->c, v, arg))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!bstr_reads(k, n->args[i], v, arg))
			return false;
	return true;
}

static bool stmt_reads(struct d_kplan *k, const struct stmt *st, unsigned v,
		       int arg)
{
	if (!bstr_reads(k, st->e, v, arg))
		return false;
	for (unsigned i = 0; i < st->nargs; i++)
		if (!bstr_reads(k, st->args[i], v, arg))
			return false;
	for (unsigned i = 0; i < st->nkeys; i++)
		if (!bstr_reads(k, st->keys[i], v, arg))
			return false;
	for (unsigned i = 0; i < st->nbody; i++)
		if (!stmt_reads(k, &st->body[i], v, arg))
			return false;
	for (unsigned i = 0; i < st->nels; i++)
		if (!stmt_reads(k, &st->els[i], v, arg))
			return false;
	return true;
}

/* the copyin() calls under n */
static unsigned copies(const struct node *n)
{
	unsigned c;

	if (!n)
		return 0;
	c = n->op == N_FUNC && d_funcs[n->sub].id == F_COPYIN;
	c += copies(n->a) + copies(n->b) + copies(n->c);
	for (unsigned i = 0; i < n->nargs; i++)
		c += copies(n->args[i]);
	return c;
}

static unsigned stmt_copies(const struct stmt *v, unsigned n)
{
	unsigned c = 0;

	for (unsigned i = 0; i < n; i++) {
		c += copies(v[i].e);
		for (unsigned j = 0; j < v[i].nargs; j++)
			c += copies(v[i].args[j]);
		for (unsigned j = 0; j < v[i].nkeys; j++)
			c += copies(v[i].keys[j]);
		c += stmt_copies(v[i].body, v[i].nbody) +
		     stmt_copies(v[i].els, v[i].nels);
	}
	return c;
}

/* Is every copy clause c makes a bounded one's (of any variable), at
 * the top level, so many that D_COPYIN_MAX holds them all? */
static bool clause_copies_ok(const struct d_kplan *k, const struct clause *c)
{
	const struct d_prog *p = k->prog;
	unsigned nb = 0;

	for (unsigned i = 0; i < c->nstmts; i++) {
		int v = kp_assigned_var(&c->stmts[i]), a, l;

		if (v >= 0 && p->vars[v].scope == SC_THIS &&
		    bstr_store(&c->stmts[i], (unsigned)v, &a, &l))
			nb++;
	}
	return copies(c->pred) + stmt_copies(c->stmts, c->nstmts) == nb &&
	       (uint64_t)nb * UBPF_KBSTRMAX <= D_COPYIN_MAX;
}

/* bfault: is strsize the run's, its strings whole in a room
 * (seq_read()'s)?  (A record's fault bits go before its user stack:
 * rec_impl.h's rec_kfault().) */
static bool bfault_prog_ok(const struct d_kplan *k)
{
	return kp_strsize_fixed(k);
}

/* bfault: may store st, a copy of clause ci, be a fault site?  No
 * printf() or trace() before it, a clause that does not speculate, at
 * most UBPF_KBCPYPREV copies before it */
static bool bfault_ok(const struct d_kplan *k, unsigned ci,
		      const struct stmt *st)
{
	const struct clause *c = &k->prog->clauses[ci];
	unsigned nb = 0;

	if (d_kplan_specs(k->prog, ci))
		return false;
	for (unsigned i = 0; i < c->nflat && c->flat[i] != st; i++)
		if (c->flat[i]->kind == S_PRINTF || c->flat[i]->kind == S_TRACE)
			return false;
	for (const struct stmt *t = c->stmts; t < st; t++) {
		int v = kp_assigned_var(t), a, l;

		nb += v >= 0 && bstr_store(t, (unsigned)v, &a, &l);
	}
	return nb <= UBPF_KBCPYPREV;
}

bool kp_bstr_var(struct d_kplan *k, unsigned v)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	unsigned nbrd = k->nbrd;
	bool any = false;

	if (!k->vars || k->nostr || k->nobstr || var->scope != SC_THIS ||
	    var->ptr != 1 || var->psou || var->sou || var->kind == T_STR ||
	    (k->bfault && !bfault_prog_ok(k)))
		return false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		int arg = -1;
		bool read = true; /* each copy read */

		if (!bstr_reads(k, c->pred, v, -1))
			goto no;
		for (unsigned i = 0; i < c->nstmts; i++) {
			const struct stmt *st = &c->stmts[i];
			unsigned n0 = k->nbrd;
			int a, l;

			if (!bstr_store(st, v, &a, &l)) {
				if (!stmt_reads(k, st, v, arg))
					goto no;
				read |= k->nbrd > n0;
				continue;
			}
			/* once a clause, its cut next */
			if (arg >= 0 || i + 1 >= c->nstmts ||
			    !bstr_cut(&c->stmts[i + 1], v, l) ||
			    !clause_copies_ok(k, c) ||
			    (k->bfault && !bfault_ok(k, ci, st)))
				goto no;
			arg = UBPF_KBSTR(a, l);
			read = false;
			any = true;
			i++;
		}
		if (!read) /* a copy nothing reads: made all the same */
			goto no;
	}
	if (any)
		return true;
no:
	k->nbrd = nbrd;
	return false;
}

int kp_bstr_read(const struct d_kplan *k, const struct node *n)
{
	if (!k || !k->vars || !n)
		return -1;
	while (n->op == N_FUNC && d_funcs[n->sub].id == F_STRINGOF &&
	       n->nargs == 1)
		n = n->args[0];
	if (n->op != N_VAR || n->sub < 0 ||
	    (unsigned)n->sub >= k->prog->nvars || k->vst[n->sub] != KV_BSTR)
		return -1;
	for (unsigned i = 0; i < k->nbrd; i++)
		if (k->brd[i].rd == n)
			return k->brd[i].arg;
	return -1;
}

/* this->v[argL] = '\0' (or 0) of some this->v: v, else -1 */
static int cut_var(const struct stmt *st)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || !e->a ||
	    e->a->op != N_DEREF || !e->a->a || e->a->a->op != N_VAR ||
	    e->a->a->sub < 0 ||
	    !bstr_cut(st, (unsigned)e->a->a->sub, argn(e->a->b)))
		return -1;
	return e->a->a->sub;
}

bool kp_bstr_stmt(const struct d_kplan *k, const struct stmt *st, bool *bcpy)
{
	int v = kp_assigned_var(st), a, l;

	*bcpy = false;
	if (!k->vars)
		return false;
	if (v >= 0) {
		if (k->vst[v] != KV_BSTR ||
		    !bstr_store(st, (unsigned)v, &a, &l))
			return false;
		*bcpy = k->bfault;
		return true;
	}
	/* the cut: of a KV_BSTR variable, whose every cut follows its
	 * store (kp_bstr_var()) */
	v = cut_var(st);
	return v >= 0 && (unsigned)v < k->prog->nvars && k->vst[v] == KV_BSTR;
}

bool kp_bstr_cut_form(const struct stmt *st)
{
	return cut_var(st) >= 0;
}

bool kp_bstr_in(const struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		bool *mark;
		bool any = false;

		if (!k->ok[ci])
			continue;
		mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
		clause_vars(k, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars && !any; v++)
			any = mark[v] && k->vst[v] == KV_BSTR;
		free(mark);
		if (any)
			return true;
	}
	return false;
}

/* The KV_BSTR store st of clause c, at c->stmts[i]: A and L */
static bool store_at(const struct d_kplan *k, const struct stmt *st, int *a,
		     int *l)
{
	int v = kp_assigned_var(st);

	return v >= 0 && k->vst[v] == KV_BSTR &&
	       bstr_store(st, (unsigned)v, a, l);
}

bool kp_bstr_sites(struct d_kplan *k, unsigned nfs)
{
	const struct d_prog *p = k->prog;

	k->nfs = nfs;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!k->ok[ci])
			continue;
		for (unsigned i = 0; i + 1 < c->nstmts; i++) {
			const struct stmt *st = &c->stmts[i];
			int a, l;

			if (!store_at(k, st, &a, &l))
				continue;
			if (!kp_fsite_add(k, st->e, ci, st->action, (uint8_t)a,
					  KFS_BSTR, c->stmts[i + 1].action))
				return false;
		}
	}
	return true;
}

bool kp_bstr_bcpy(const struct d_kplan *k, unsigned ci, const struct stmt *st,
		  struct ubpf_kop *o)
{
	const struct clause *c = &k->prog->clauses[ci];
	int a, l;

	if (!k->bfault || !store_at(k, st, &a, &l))
		return false;
	o->n = (uint8_t)a;
	o->levels = (uint16_t)l;
	o->step = 0;
	o->imm = 0;
	for (const struct stmt *t = c->stmts; t < st; t++) {
		int ta, tl;

		if (!store_at(k, t, &ta, &tl))
			continue;
		if (o->step >= UBPF_KBCPYPREV)
			return false;
		o->imm |= (int64_t)tl << (8 * o->step++);
	}
	for (unsigned i = 0; i < k->nfs; i++)
		if (k->fs[i].n == st->e && k->fs[i].kind == KFS_BSTR)
			o->agg = (uint16_t)(i + 1);
	return o->agg != 0;
}
