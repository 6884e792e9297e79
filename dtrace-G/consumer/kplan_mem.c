// SPDX-License-Identifier: MIT
/*
 * kplan_mem.c - members and *p read through copyin()'s pointers in the
 * kernel (doc/DESIGN.md's "Pointers and structs in the generated
 * programs": the first slice of it).
 *
 * What run.c does (mem.c): copyin(a, C) copies C bytes of the process
 * into scratch of the clause run, its value that scratch's address in
 * dtrace; a load through a pointer is made only where its bytes lie
 * wholly in a copy of this clause run, else it is "invalid address".
 * The number a pointer into a copy has is dtrace's and no kernel can
 * give it, so here such a pointer is a *place*, resolved at compile
 * time: {the copy, a constant offset}.  kp_mem_place() knows
 *
 *	copyin(argN, C)		N a constant, C one from 1 to UBPF_KCPYMAX
 *	(T *)P			a cast of a place to a pointer type
 *	P + k, k + P, P - k	k a constant, scaled as run.c's ptr_step()
 *				(d_ptr_scale(); void *: 1)
 *	*P, P[k] of a struct	(the struct is at the place)
 *	P->m, P.m		a nested struct or an array member (no load)
 *	this->p			a KV_PLACE variable (below)
 *
 * and kp_mem_load() a read of an integer or pointer (1, 2, 4 or 8
 * bytes) at a place, *P, P[k] or P->m, P.m (a bit-field's unit, then
 * its bits as mem.c's bits_value()), whose bytes lie within the copy's
 * C at compile time: kp_ty_at() types it as the node's integer type, so
 * it may be a predicate, a key, an aggregated value, a printf()
 * argument, a store's value, and kplan_expr.c emits it as one MLD.
 * Anything else that needs a place's number (printing it, comparing
 * it, storing it elsewhere, an offset not constant, a read past the
 * copy) is no integer kp_ty_at() computes, so its clause stays user
 * space's, exact as before.
 *
 * The copies.  Every copy an MLD of a plan names, each distinct
 * {argument, C} once, is read when the hit starts, before the plan's
 * first clause, into cgbuf's copy room (cgen_mem.c's mem_read(), past
 * the owner word: bpf_cg.c makes the map value that much longer where
 * d_kplan_mem_any() says a clause calls copyin()).  A copy that cannot
 * be read ends the plan before it did anything: the record goes
 * unflagged and user space runs every clause from it, as the generic
 * program's record, with its own copy (records.c's, whole or a fault at
 * its start), so the fault, its address, its action and ERROR's
 * arguments are run.c's -- as seq_read()'s strings do.  A copy read
 * though no clause needed it (its predicate false) costs only that.
 * A hit can go to user space whole only where the kernel keeps no
 * self-> variable (cgen_mem.c refuses such a plan with copies unless
 * their faults are sites, as seq_read() does one with strings).  Where
 * it keeps one, kp_vars_decide() decides again with mfault set: a
 * copy's fault is the hit's, at the statement that reads it
 * (kp_mem_sites(): each MLD, a place's store's too, a fault site in
 * k->fs after fsite_assign()'s strings, with run.c's action where it
 * is evaluated), the copy still read before the first clause, its
 * failure kept (cgen_mem.c's mem_read()) and tested at each MLD
 * (mld_fault()): the site's bits in the record, the clause ended, what
 * it did before kept, dtrace reporting it and firing ERROR in its
 * place (records.c's hit_run_kagg(), d_kplan_fault(): at the argument,
 * the copy's start, as run.c's d_copyin()).  The read's bytes and its
 * success are the hit's either way; the fault is at the statement.
 * An MLD on the right of && or || is kplan_expr.c's SC (read only
 * where the left does not decide); one in a branch of ?: (both are
 * computed), in a clause with an out area (whose faults are
 * d_kplan_out_run()'s, which knows no copy's) or past the 16 sites
 * cannot be one: then kp_vars_decide() decides again with nomem set,
 * and no clause reads a copy in the kernel.  The bytes are the
 * process's at the hit, as the generic
 * program's record copies copyin(argN, C) for run.c (bpf.c's ev_mem()),
 * so a clause the kernel runs reads what run.c would have.
 *
 * this-> place variables (KV_PLACE: kp_place_var()): a this-> pointer
 * every store of which is `this->p = P` at a clause's top level (at
 * most one a clause), every read of which lies in a clause that stores
 * it, after that store (a later statement, or in a later if's branch),
 * never in a predicate: each read then names its clause's copy, as in
 * run.c, and is that store's place (k->prd, keyed by the read's node:
 * kplan writes nothing into the tree).  The store takes no this-> slot
 * but an MLD flagged UBPF_KF_MCOPY, which loads
 * nothing: its copy is read (run.c makes it, and may fault on it,
 * though nothing reads it).  Like every variable it is the kernel's
 * only when every clause touching it is (kp_vars_decide()).
 *
 * stringof() of a place, printed (kp_mem_str(): MSTR).  A printf() or
 * trace() argument stringof(P), P a place at offset o, 0 <= o <= C,
 * where strsize is fixed for the run (kp_strsize_fixed()): the copy's
 * bytes from o up to a NUL, the copy's end or strsize - 1 bytes
 * (min(C - o, strsize - 1) at most: run.c's d_mem_string(), p may be
 * the copy's end, "", not past it), copied from the copy mem_read()
 * read into the out area's struct ubpf_kostr (cgen_out.c's mstr()) and
 * printed by dtrace as an OVSTR's tainted string (kplan_out.c's
 * kp_out_mstr()).  It cannot fault: its copy is read before the first
 * clause as an MLD's, one that could not be read sending the hit to
 * user space whole.  A clause that prints has no fault sites, so where
 * the kernel keeps self-> variables (mfault) kp_mem_sites() fails on it
 * and no copy is read in the kernel (nomem), as for a member printed.
 * Its copy counts in the room (kp_clause_room()) and its clause reads
 * copies (kp_clause_mem(): not a speculating one's).
 *
 * A clause whose copies pass the room (UBPF_KCPYROOM bytes, each C
 * rounded up to 8, or more than UBPF_KCPYSITES of them) is user space's
 * (kp_clause_room()); so is, silently, a probe's plan whose clauses'
 * copies together pass it (cgen_mem.c refuses it: its hits go to
 * user space, records).
 *
 * Not here (each clause user space's, with -v's reason): copies of an
 * address that is not an argument, of a size not constant or past
 * UBPF_KCPYMAX; places in self->, globals or arrays; stores through a
 * place; stringof() of one but printed (stored into a this-> string,
 * compared, strlen(), a key); structs held by value (this->s = *p);
 * alloca(), bcopy(), copyinto(), tracemem().
 */
#include <string.h>

#include "kplan_impl.h"

/* copyin(argN, C): N and C, C a literal (a constant expression folded
 * into one: check.c's d_fold_int()), as mem.c's node_mem() takes it for
 * the copy made at the hit, which user space's runs of the clause read:
 * a size only the kernel took would be read by the interpreter from
 * the process, later */
static bool copy_site(const struct node *n, struct kp_place *pl)
{
	int64_t c;

	if (n->op != N_FUNC || d_funcs[n->sub].id != F_COPYIN ||
	    n->nargs != 2 || n->args[0]->op != N_ARGN || n->args[0]->sub < 0 ||
	    n->args[0]->sub >= D_MAXARGS || n->args[0]->sub >= UBPF_MAXARGS ||
	    n->args[1]->op != N_INT || !d_const_int(n->args[1], &c) || c < 1 ||
	    c > UBPF_KCPYMAX)
		return false;
	pl->arg = (uint8_t)n->args[0]->sub;
	pl->size = (uint32_t)c;
	pl->off = 0;
	return true;
}

/* an offset within reach of any copy (no overflow in the sums) */
static bool off_ok(int64_t off)
{
	return off > -(int64_t)UBPF_KCPYROOM && off < (int64_t)UBPF_KCPYROOM;
}

/* p[k] (n an N_DEREF with n->b): k a constant, its scaled bytes added
 * to pl's offset; false where k is not a constant or too far */
static bool index_add(const struct d_kplan *k, const struct node *n,
		      struct kp_place *pl)
{
	uint64_t sc = d_ptr_scale(k->prog, n->a);
	int64_t c;

	if (!d_const_int(n->b, &c) || !off_ok(c) || sc > UBPF_KCPYROOM)
		return false;
	pl->off += c * (int64_t)sc;
	return true;
}

bool kp_mem_place(const struct d_kplan *k, const struct node *n,
		  struct kp_place *pl)
{
	int64_t c;

	if (!k || !k->vars || k->nomem || !n)
		return false;
	switch (n->op) {
	case N_FUNC:
		return copy_site(n, pl);
	case N_CAST: /* the same address */
		return n->ptr && kp_mem_place(k, n->a, pl);
	case N_VAR:
		if ((unsigned)n->sub >= k->prog->nvars ||
		    k->vst[n->sub] != KV_PLACE)
			return false;
		for (unsigned i = 0; i < k->nprd; i++)
			if (k->prd[i].rd == n)
				return kp_mem_place(k, k->prd[i].val, pl);
		return false;
	case N_BIN: { /* pointer arithmetic by a constant */
		const struct node *p, *i;
		uint64_t sc;

		if (!n->ptr || (n->sub != '+' && n->sub != '-'))
			return false;
		p = n->a->ptr ? n->a : n->b;
		i = n->a->ptr ? n->b : n->a;
		if (i->ptr || (n->sub == '-' && p != n->a) ||
		    !d_const_int(i, &c) || !kp_mem_place(k, p, pl))
			return false;
		/* run.c's ptr_step(): scaled by the result's pointee */
		sc = n->ptr == D_PTR_VOID ? 1 : d_ptr_scale(k->prog, n);
		if (!off_ok(c) || sc > UBPF_KCPYROOM)
			return false;
		c *= (int64_t)sc;
		pl->off += n->sub == '-' ? -c : c;
		return off_ok(pl->off);
	}
	case N_DEREF: /* *p or p[k] of a struct: the struct is there */
		if (!n->sou || n->ival || n->nelem ||
		    !kp_mem_place(k, n->a, pl))
			return false;
		if (n->b && !index_add(k, n, pl))
			return false;
		return off_ok(pl->off);
	case N_MEMBER: /* a nested struct or an array: no load */
		if ((!n->sou && n->sz) || !kp_mem_place(k, n->a, pl) ||
		    !off_ok(n->ival))
			return false;
		pl->off += n->ival;
		return off_ok(pl->off);
	}
	return false;
}

bool kp_mem_load(const struct d_kplan *k, const struct node *n,
		 struct kp_place *pl)
{
	if (!k || !k->vars || k->nomem || !n)
		return false;
	if (n->sz != 1 && n->sz != 2 && n->sz != 4 && n->sz != 8)
		return false;
	if (n->op == N_DEREF) {
		if (n->sou || n->ival || n->nelem || !kp_mem_place(k, n->a, pl))
			return false;
		if (n->b && !index_add(k, n, pl))
			return false;
	} else if (n->op == N_MEMBER) {
		if (n->sou || !kp_mem_place(k, n->a, pl) || !off_ok(n->ival))
			return false;
		pl->off += n->ival;
		if (n->bits &&
		    (n->bits > 8u * n->sz || n->shift + n->bits > 8u * n->sz))
			return false;
	} else {
		return false;
	}
	/* within the copy: run.c faults at dtrace's address past it */
	return pl->off >= 0 && pl->off + n->sz <= (int64_t)pl->size;
}

bool kp_mem_str(const struct d_kplan *k, const struct node *n,
		struct kp_place *pl, unsigned *cnt)
{
	uint64_t max;

	/* not where a copy's fault is at its statement (mfault: the
	 * program keeps self-> variables or speculations), where a printed
	 * string's copy has no fault site (cgen_mem.c's mem_read() refuses
	 * the two together): the clause is user space's, and is not
	 * counted among the clauses whose copies make mfault, so the
	 * others' copies keep their sites (kp_mem_sites()) */
	if (!n || n->op != N_FUNC || d_funcs[n->sub].id != F_STRINGOF ||
	    n->nargs != 1 || !n->args[0]->ptr || !kp_strsize_fixed(k) ||
	    k->mfault || !kp_mem_place(k, n->args[0], pl))
		return false;
	/* run.c's d_mem_string(): from p, which may be the copy's end
	 * (""), not past it nor before its start */
	if (pl->off < 0 || pl->off > (int64_t)pl->size)
		return false;
	max = pl->size - (uint64_t)pl->off;
	if (max > k->prog->strsize - 1)
		max = k->prog->strsize - 1;
	*cnt = (unsigned)max;
	return true;
}

bool kp_mem_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
	       uint8_t *sg)
{
	struct kp_place pl;

	if (!kp_mem_load(k, n, &pl))
		return false;
	*sz = n->sz;
	*sg = n->sg;
	return true;
}

/*
 * The reads of v in n into k->prd, each the place val; false where n
 * stores v, or reads it with val NULL (not yet stored), or the table is
 * full.
 */
static bool place_reads(struct d_kplan *k, const struct node *n, unsigned v,
			const struct node *val)
{
	if (!n)
		return true;
	if ((n->op == N_ASSIGN || n->op == N_INCDEC) && n->a &&
	    n->a->op == N_VAR && n->a->sub == (int)v)
		return false;
	if (n->op == N_VAR && n->sub == (int)v) {
		if (!val || k->nprd >= KP_PRDS)
			return false;
		k->prd[k->nprd].rd = n;
		k->prd[k->nprd++].val = val;
		return true;
	}
	if (!place_reads(k, n->a, v, val) || !place_reads(k, n->b, v, val) ||
	    !place_reads(k, n->c, v, val))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!place_reads(k, n->args[i], v, val))
			return false;
	return true;
}

static bool stmt_reads(struct d_kplan *k, const struct stmt *st, unsigned v,
		       const struct node *val)
{
	if (!place_reads(k, st->e, v, val))
		return false;
	for (unsigned i = 0; i < st->nargs; i++)
		if (!place_reads(k, st->args[i], v, val))
			return false;
	for (unsigned i = 0; i < st->nkeys; i++)
		if (!place_reads(k, st->keys[i], v, val))
			return false;
	for (unsigned i = 0; i < st->nbody; i++)
		if (!stmt_reads(k, &st->body[i], v, val))
			return false;
	for (unsigned i = 0; i < st->nels; i++)
		if (!stmt_reads(k, &st->els[i], v, val))
			return false;
	return true;
}

bool kp_place_var(struct d_kplan *k, unsigned v)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	unsigned nprd = k->nprd;
	bool any = false;

	if (!k->vars || k->nomem || var->scope != SC_THIS || !var->ptr ||
	    var->sou || var->kind == T_STR)
		return false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		const struct node *val = NULL;

		if (!place_reads(k, c->pred, v, NULL))
			goto no;
		for (unsigned i = 0; i < c->nstmts; i++) {
			const struct stmt *st = &c->stmts[i];
			const struct node *e = kp_plain_store(st, v);
			struct kp_place pl;

			if (!e) {
				if (!stmt_reads(k, st, v, val))
					goto no;
				continue;
			}
			/* once a clause, of a place, not of itself */
			if (val || !place_reads(k, e, v, NULL) ||
			    !kp_mem_place(k, e, &pl))
				goto no;
			val = e;
			any = true;
		}
	}
	if (any)
		return true;
no:
	k->nprd = nprd;
	return false;
}

bool kp_place_store(const struct d_kplan *k, const struct stmt *st)
{
	int v = kp_assigned_var(st);

	return v >= 0 && k->vst[v] == KV_PLACE &&
	       kp_plain_store(st, (unsigned)v) != NULL;
}

/* n itself reads a copy: a load (MLD) or stringof() of a place (MSTR) */
static bool node_copy(const struct d_kplan *k, const struct node *n,
		      struct kp_place *pl)
{
	unsigned cnt;

	return ((n->op == N_DEREF || n->op == N_MEMBER) &&
		kp_mem_load(k, n, pl)) ||
	       kp_mem_str(k, n, pl, &cnt);
}

static bool node_mem(const struct d_kplan *k, const struct node *n)
{
	struct kp_place pl;

	if (!n)
		return false;
	if (node_copy(k, n, &pl))
		return true;
	if (node_mem(k, n->a) || node_mem(k, n->b) || node_mem(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_mem(k, n->args[i]))
			return true;
	return false;
}

bool kp_node_mem(const struct d_kplan *k, const struct node *n)
{
	return node_mem(k, n);
}

/* a fault site for n, reading a copy of argument arg, in k->fs */
static bool msite_add(struct d_kplan *k, const struct node *n, unsigned ci,
		      int action, uint8_t arg)
{
	return kp_fsite_add(k, n, ci, action, arg, KFS_STR, 0);
}

/*
 * kp_mem_sites()'s walk of n, evaluated at action: each load a site;
 * false where a load lies in a branch of ?: (the kernel computes both,
 * run.c one) or the sites run out.  The right side of && and || is
 * kplan_expr.c's SC, as for a string comparison.
 */
static bool msite_walk(struct d_kplan *k, const struct node *n, unsigned ci,
		       int action)
{
	struct kp_place pl;

	if (!n)
		return true;
	if ((n->op == N_DEREF || n->op == N_MEMBER) && kp_mem_load(k, n, &pl))
		return msite_add(k, n, ci, action, pl.arg);
	if (node_copy(k, n, &pl)) /* an MSTR: a printed value's, no site */
		return false;
	if (n->op == N_TERN)
		return !node_mem(k, n->b) && !node_mem(k, n->c) &&
		       msite_walk(k, n->a, ci, action);
	if (!msite_walk(k, n->a, ci, action) ||
	    !msite_walk(k, n->b, ci, action) ||
	    !msite_walk(k, n->c, ci, action))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!msite_walk(k, n->args[i], ci, action))
			return false;
	return true;
}

bool kp_mem_sites(struct d_kplan *k, unsigned nfs)
{
	const struct d_prog *p = k->prog;

	k->nfs = nfs;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		/* a speculating clause's values (kplan_spec.c): the out
		 * area's too */
		if (k->sout[ci] && kp_clause_mem(k, ci))
			return false;
		if (!k->ok[ci] || !kp_clause_mem(k, ci))
			continue;
		/* a clause with an out area reports its faults from it
		 * (d_kplan_out_run()), which knows no copy's */
		if (kp_out_clause(k, ci) || !msite_walk(k, c->pred, ci, 0))
			return false;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct kstmt *ks = &k->st[k->first[ci] + i];
			const struct stmt *st = c->flat[i];
			struct kp_place pl;

			if (ks->assign) { /* a store, an if's condition */
				if (kp_place_store(k, st) &&
				    (!kp_mem_place(k, st->e->b, &pl) ||
				     !msite_add(k, st->e, ci, st->action,
						pl.arg)))
					return false;
				if (!msite_walk(k, st->e, ci, st->action))
					return false;
				continue;
			}
			/* an aggregation: its keys, then its value */
			if (node_mem(k, st->e))
				return false;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (!msite_walk(k, st->keys[j], ci,
						st->action + (int)j))
					return false;
			for (unsigned j = 1; j < st->nargs; j++)
				if (node_mem(k, st->args[j]))
					return false;
			if (st->nargs &&
			    !msite_walk(k, st->args[0], ci,
					st->action + (int)st->nkeys))
				return false;
		}
	}
	return true;
}

/* the distinct copies n reads into sites (at most UBPF_KCPYSITES + 1) */
static void node_sites(const struct d_kplan *k, const struct node *n,
		       struct kp_place *sites, unsigned *ns)
{
	struct kp_place pl;

	if (!n)
		return;
	if (node_copy(k, n, &pl)) {
		unsigned j;

		for (j = 0; j < *ns; j++)
			if (sites[j].arg == pl.arg && sites[j].size == pl.size)
				break;
		if (j == *ns && *ns <= UBPF_KCPYSITES)
			sites[(*ns)++] = pl;
		return;
	}
	node_sites(k, n->a, sites, ns);
	node_sites(k, n->b, sites, ns);
	node_sites(k, n->c, sites, ns);
	for (unsigned i = 0; i < n->nargs; i++)
		node_sites(k, n->args[i], sites, ns);
}

/* the copy of a KV_PLACE variable's store st, if it is one, into sites */
static void store_site(const struct d_kplan *k, const struct stmt *st,
		       struct kp_place *sites, unsigned *ns)
{
	struct kp_place pl;
	unsigned j;

	if (!kp_place_store(k, st) || !kp_mem_place(k, st->e->b, &pl))
		return;
	for (j = 0; j < *ns; j++)
		if (sites[j].arg == pl.arg && sites[j].size == pl.size)
			break;
	if (j == *ns && *ns <= UBPF_KCPYSITES)
		sites[(*ns)++] = pl;
}

bool kp_clause_room(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	struct kp_place sites[UBPF_KCPYSITES + 1];
	unsigned ns = 0, room = 0;

	for (unsigned i = 0; i < c->nstmts; i++)
		store_site(k, &c->stmts[i], sites, &ns);
	node_sites(k, c->pred, sites, &ns);
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct stmt *st = c->flat[i];

		node_sites(k, st->e, sites, &ns);
		for (unsigned j = 0; j < st->nargs; j++)
			node_sites(k, st->args[j], sites, &ns);
		for (unsigned j = 0; j < st->nkeys; j++)
			node_sites(k, st->keys[j], sites, &ns);
	}
	if (ns > UBPF_KCPYSITES)
		return false;
	for (unsigned j = 0; j < ns; j++)
		room += (sites[j].size + 7u) / 8u * 8u;
	return room <= UBPF_KCPYROOM;
}

bool kp_clause_mem(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	if (node_mem(k, c->pred))
		return true;
	for (unsigned i = 0; i < c->nstmts; i++)
		if (kp_place_store(k, &c->stmts[i]))
			return true;
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct stmt *st = c->flat[i];

		if (node_mem(k, st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_mem(k, st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_mem(k, st->keys[j]))
				return true;
	}
	return false;
}

const char *kp_place_why(const struct d_kplan *k, unsigned v)
{
	const struct var *var = &k->prog->vars[v];

	if (var->scope != SC_THIS || var->sou)
		return "holds a pointer or a struct: the kernel keeps "
		       "integer and string variables only";
	if (k->nomem)
		return "holds a pointer: the kernel keeps self-> variables, "
		       "and a copy's fault could not be at its statement (a "
		       "clause that prints, a ?: branch, more than 16 fault "
		       "sites), so it reads no copy";
	return "holds a pointer: the kernel keeps a this-> pointer only "
	       "where it points into copyin(argN, C) of its clause (C a "
	       "constant up to 512), stored once at the clause's top level, "
	       "read only after that there and in no clause user space runs";
}

static bool is_copyin(const struct node *n)
{
	return n->op == N_FUNC && d_funcs[n->sub].id == F_COPYIN;
}

static bool calls_copyin(const struct node *n)
{
	return kp_node_any(n, is_copyin);
}

bool d_kplan_mem_any(const struct d_prog *p)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (calls_copyin(c->pred))
			return true;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];

			if (calls_copyin(st->e))
				return true;
			for (unsigned j = 0; j < st->nargs; j++)
				if (calls_copyin(st->args[j]))
					return true;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (calls_copyin(st->keys[j]))
					return true;
		}
	}
	return false;
}
