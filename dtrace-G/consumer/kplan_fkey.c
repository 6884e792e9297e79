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
 * functions below (kplan_str.c's kp_ftime_strfn()), none of which
 * faults, reads the firing (no d_fire: the merge has none) or the
 * program's state.  So the key of
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
 * toolkit's @num[FILE, "func", NAME] (three string keys, two of them
 * variables: the literal a 0, the variables a pair) and @num["-",
 * "total", "-"], and a literal beside copyinstr() (a pair kaggs_s does
 * not keep) are the kernel's.
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
	unsigned ci;	       /* its clause (d_eval_pinned()'s) */
	struct node zero;      /* a literal's key in the copy */
	/* per key of bits: the tree the merge evaluates and the leaf in
	 * it pinned to the kernel's key (a literal's: the literal, zero);
	 * a format-time variable's key: the tree of its clause's store,
	 * and the variable's node for the copy (kp_fvar_clone()) */
	const struct node *tree[UBPF_KMAXKEYS], *leaf[UBPF_KMAXKEYS];
	struct node var[UBPF_KMAXKEYS];
};

/* A printed read of a format-time variable: the argument, and the store
 * before it in its clause */
struct kp_fpr {
	const struct node *n;
	const struct kp_fst *f;
};

/* A format-time variable's store (k->fvar) and its copy, v = L */
struct kp_fst {
	const struct stmt *st; /* the program's this->v = T */
	struct stmt sh;	       /* ... its copy: this->v = L */
	struct node e, a;      /* the copy's assignment, and its place */
	const struct node *tree, *leaf; /* T, and L in it */
	/* ... a dead variable's T may have several leaves, L the first;
	 * the copy makes each, in d_eval()'s order (kp_fvar_leaves()) */
	const struct node *leaves[KP_FLEAVES];
	unsigned nleaves;
	unsigned ci, v;
};

/* Is n such a tree (root: a function) over at most max leaves, each
 * into lv[*nl] in d_eval()'s order (d/func.c's d_eval_func(): the
 * arguments first, left to right)? */
static bool fkey_walk(const struct d_kplan *k, const struct node *n, bool root,
		      const struct node **lv, unsigned *nl, unsigned max)
{
	int64_t v;

	if (!root &&
	    (n->op == N_STR || d_const_int(n, &v) || kp_run_const(k, n)))
		return true;
	if (n->op == N_FUNC && kp_ftime_strfn(n)) {
		for (unsigned i = 0; i < n->nargs; i++)
			if (!fkey_walk(k, n->args[i], false, lv, nl, max))
				return false;
		return true;
	}
	if (root || *nl >= max)
		return false;
	lv[(*nl)++] = n;
	return true;
}

static const struct node *fkey_leaf(const struct d_kplan *k,
				    const struct node *n)
{
	const struct node *leaf = NULL;
	unsigned nl = 0;

	return n->kind == T_STR && fkey_walk(k, n, true, &leaf, &nl, 1) ? leaf
									: NULL;
}

/* A key that is one value for the run: a string literal, or a global
 * only BEGIN stores (kp_run_const()) */
static bool fkey_const(const struct d_kplan *k, const struct node *n)
{
	return n->op == N_STR || kp_run_const(k, n);
}

/*
 * Format-time variables (doc/DESIGN.md §8 "A this-> holding a
 * format-time value as a key"): the toolkit's this->file =
 * basename(copyinstr(arg0)), then @num[this->file, "func", this->name].
 * A this-> string v whose every store is this->v = T at its clause's
 * top level, T a tree fkey_walk() takes over a copyinstr() leaf L (not
 * reading v), one store a clause at most, and whose every read is an
 * aggregation's whole key or a whole printf() or trace() argument
 * (below) at the clause's top level after that clause's store (none in
 * a predicate, an if, inside another tree, before the store or in a
 * clause without one), is kept by the kernel as L's
 * bytes: the store's copy this->v = L is a KV_STR store as any
 * (kplan_out.c's kp_sstr_ok() takes the copy: SSTR, its fault the
 * store's, ending the clause as run.c's copyinstr() inside T does), and
 * each statement it keys has the fkeys copy with the variable as the
 * leaf and T as the tree (the merge evaluates T over the kernel's
 * bytes of L).  Exact for fkeys' reason: T a pure function of L and
 * strsize, the aggregations commuting; and L is read once, at the
 * store, as run.c reads it: the key reads the variable, not the
 * process again.  The variable's nodes in the program are never a
 * KV_STR read (kp_out_svar()): the kernel's bytes are L's, not T's, so
 * only the copies' nodes (the store's place, the keys') are.
 *
 * A printed one (doc/DESIGN.md §8 "A format-time this-> string
 * printed"), read only as whole printf() and trace() arguments (the
 * toolkit's and the book's rb_flowinfo.d print this->name =
 * strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1))), may have
 * up to KP_FLEAVES leaves, each copied by the store into a room of its
 * own (k->frooms[v] of UBPF_KTSTR's, kplan_vars.c; kplan_stmt.c's
 * SSTRs), in d_eval()'s order, the first that faults ending the
 * clause at the store's action as a dead one's (below).  Each printed
 * read (fprs_add(), kp_fvar_out()) is an argument dtrace computes from
 * leaves (kplan_out.c's out_ftime()): an OVSTR of each room into the
 * record, then d_eval_pinned() of the store's T, each leaf of T
 * pinned to its room's bytes, the result cut at strsize - 1 as run.c's
 * store cuts a string.  Exact because the rooms hold what run.c's
 * copyinstr()s read at the store (the same reads, cut alike), nothing
 * between the store and the read changes them (one store a clause,
 * read after it in that clause), and T is a pure function of its
 * leaves and strsize, as any printed tree is.  A variable that also
 * keys has one leaf (the merge pins one), its one room the key's too.
 *
 * Not one that is read and whose every store the kernel computes whole
 * (joins_only(): a copy, or strjoin()s of copies and literals,
 * kplan_str.c's "Joins"): that is a string variable kept as its value,
 * one room, keyed, printed and compared by its bytes.
 *
 * A store that changes nothing (kp_fvar_noop(), doc/DESIGN.md §8
 * "strjoin() stored in the kernel"): the toolkit's Ruby scripts follow
 * this->file = basename(copyinstr(arg1)) with this->file = this->file
 * != NULL ? this->file : ".".  basename() and dirname() never give ""
 * (d/func.c's path_part(): "." for "", "/" for slashes, else at least
 * one byte, which strsize 2 or more keeps), and run.c compares a string
 * with NULL as with "", so the test is true and the store writes the
 * variable's own value: every walk here passes over it (not a store,
 * not a read), and the kernel runs it as nothing (kstmt's noop).
 *
 * A dead one, never read anywhere (fvar_read(): the toolkit's
 * *_syscolors.d store this->name = strjoin(strjoin(copyinstr(arg1),
 * "::"), copyinstr(arg0)) and never use it), may have up to KP_FLEAVES
 * copyinstr() leaves in T: nothing reads what the store keeps, so all
 * the kernel owes run.c is the leaves' faults.  The store's copy makes
 * each leaf in d_eval()'s order into the variable's bytes, an SSTR
 * each (kp_fvar_leaves(), kplan_stmt.c), the first that faults ending
 * the clause with that leaf's address at the store's action, as
 * run.c's d_eval_func() evaluates the arguments left to right and
 * unwinds at the first fault; T's functions fault on nothing.
 */
static unsigned fvar_leaves(const struct d_kplan *k, const struct stmt *st,
			    unsigned v, bool *mark, unsigned max,
			    const struct node **lv)
{
	const struct node *b = kp_plain_store(st, v);
	unsigned nl = 0;

	if (!b || b->kind != T_STR || !fkey_walk(k, b, true, lv, &nl, max))
		return 0;
	for (unsigned l = 0; l < nl; l++)
		if (!kp_copyinstr_of(lv[l]))
			return 0;
	memset(mark, 0, k->prog->nvars * sizeof(*mark));
	vars_of(b, mark);
	return mark[v] ? 0 : nl;
}

/* Does n read v? */
static bool reads_v(const struct d_kplan *k, const struct node *n, unsigned v,
		    bool *mark)
{
	memset(mark, 0, k->prog->nvars * sizeof(*mark));
	vars_of(n, mark);
	return mark[v];
}

/* Is n this->v's read (N_VAR v)? */
static bool is_v(const struct node *n, unsigned v)
{
	return n->op == N_VAR && n->sub == (int)v;
}

/* Is n v != NULL (or NULL != v, v == NULL, NULL == v: *eq says ==)? */
static bool null_test(const struct node *n, unsigned v, bool *eq)
{
	int64_t z;

	if (n->op != N_BIN || (n->sub != OP_NE && n->sub != OP_EQ))
		return false;
	*eq = n->sub == OP_EQ;
	return (is_v(n->a, v) && d_const_int(n->b, &z) && z == 0) ||
	       (is_v(n->b, v) && d_const_int(n->a, &z) && z == 0);
}

/* Does T never give "": its root basename() or dirname() (d/func.c's
 * path_part(): "." for "", "/" for slashes, else at least the one
 * byte that is no slash, which a strsize of 2 or more keeps)? */
static bool never_empty(const struct node *t)
{
	return t->op == N_FUNC && (d_funcs[t->sub].id == F_BASENAME ||
				   d_funcs[t->sub].id == F_DIRNAME);
}

bool kp_fvar_noop(const struct d_kplan *k, const struct clause *c,
		  const struct stmt *st)
{
	const struct node *b, *t = NULL;
	bool eq, ok = false, *mark;
	int v;

	if (st->fup || (v = kp_assigned_var(st)) < 0 ||
	    !(b = kp_plain_store(st, (unsigned)v)) || b->op != N_TERN ||
	    !null_test(b->a, (unsigned)v, &eq) ||
	    !is_v(eq ? b->c : b->b, (unsigned)v) ||
	    (eq ? b->b : b->c)->op != N_STR)
		return false;
	/* the statement before it that touches v: v = T, T never "" and
	 * not reading v */
	mark = xcalloc(k->prog->nvars, sizeof(*mark));
	for (unsigned i = st->fi; i-- > 0 && !t;) {
		const struct stmt *p = &c->stmts[i];

		if ((t = kp_plain_store(p, (unsigned)v))) {
			ok = never_empty(t) &&
			     !reads_v(k, t, (unsigned)v, mark);
			break;
		}
		memset(mark, 0, k->prog->nvars * sizeof(*mark));
		stmts_vars(p, 1, mark);
		if (mark[v])
			break;
	}
	free(mark);
	return ok;
}

/* Is v read anywhere, but as the place of its own stores v = T, T not
 * reading it?  (Then it is dead: the stores' values are never used.) */
static bool fvar_read(const struct d_kplan *k, unsigned v, bool *mark)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (reads_v(k, c->pred, v, mark))
			return true;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			const struct node *b = kp_plain_store(st, v);

			if (kp_fvar_noop(k, c, st))
				continue;
			if (b) {
				if (reads_v(k, b, v, mark))
					return true;
				continue;
			}
			memset(mark, 0, p->nvars * sizeof(*mark));
			stmts_vars(st, 1, mark);
			if (mark[v])
				return true;
		}
	}
	return false;
}

/* Is v an aggregation's key anywhere? */
static bool fvar_keyed(const struct d_kplan *k, unsigned v)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++)
		for (unsigned i = 0; i < p->clauses[ci].nflat; i++) {
			const struct stmt *st = p->clauses[ci].flat[i];

			for (unsigned j = 0; st->kind == S_AGG && j < st->nkeys;
			     j++)
				if (st->keys[j]->op == N_VAR &&
				    st->keys[j]->sub == (int)v)
					return true;
		}
	return false;
}

/* The leaves a store of v may have: one where v keys (the merge pins
 * one), else up to KP_FLEAVES (each copied in d_eval()'s order by the
 * store's copy: a dead v's into its one room, a printed v's into a
 * room each) */
static unsigned fvar_max(const struct d_kplan *k, unsigned v)
{
	return fvar_keyed(k, v) ? 1 : KP_FLEAVES;
}

/* Is st, after v's store in its clause, a printf() or trace() whose
 * every argument reading v is v whole?  Into *reads, whether one is. */
static bool fvar_printed(const struct d_kplan *k, const struct stmt *st,
			 unsigned v, bool *mark, bool *reads)
{
	*reads = false;
	if ((st->kind != S_PRINTF && st->kind != S_TRACE) ||
	    (st->kind == S_PRINTF && st->e && reads_v(k, st->e, v, mark)))
		return false;
	for (unsigned j = 0; j < kp_out_nargs(st); j++) {
		const struct node *a = kp_out_node(st, j);

		if (a->op == N_VAR && a->sub == (int)v)
			*reads = true;
		else if (reads_v(k, a, v, mark))
			return false;
	}
	return true;
}

/* Is v read, and every store of it a copy or strjoin()s the kernel
 * computes (kplan_str.c's "Joins")?  Then it is a string the kernel
 * keeps as its value, not as leaves: one room, its bytes compared,
 * printed and keyed as any copy's. */
static bool joins_only(const struct d_kplan *k, unsigned v, bool *mark)
{
	const struct d_prog *p = k->prog;
	const struct node *pv[KP_JPARTS];
	bool any = false;

	for (unsigned ci = 0; ci < p->nclauses; ci++)
		for (unsigned i = 0; i < p->clauses[ci].nflat; i++) {
			const struct node *b =
				kp_plain_store(p->clauses[ci].flat[i], v);

			if (!b)
				continue;
			if (!kp_join_parts(k, b, pv) && !kp_copyinstr_of(b))
				return false;
			any = true;
		}
	return any && fvar_read(k, v, mark);
}

/*
 * A self-> one (doc/DESIGN.md §8 "A self-> string holding a format-time
 * value"): the toolkit's *_malloc.d store self->file =
 * basename(copyinstr(arg0)) at a function's entry, clear it at its
 * return and key @[self->file, self->name] at malloc() in another
 * clause, another probe; rb_malloc.d and sh_syscalls.d test it against
 * NULL first.  A self-> string v whose every store is v = T or a clear
 * (0 or ""), each T a statement of its clause's top level, fkey_walk()'s
 * tree over one copyinstr() leaf and not reading v, every T the same
 * tree but for its leaf (same_tree(): the merge evaluates one of them
 * for all), and whose every read in a clause that may fire at a traced
 * probe (BEGIN's and END's are dtrace's thread's own) is an
 * aggregation's whole key or a test of whether it is set (v == NULL, v
 * != NULL, v == "", v != "": null_reads(); then T never "",
 * never_empty()), is kept by the kernel as its leaf's bytes in cgtlss,
 * as a this-> one is in cgbuf: each store's copy v = L (SSTR; its fault
 * the store's, the variable untouched, as run.c's), a clear SCLR
 * (deleted), a key VKEY marked where absent (UBPF_KF_PRES: run.c reads
 * an unset one as "", which T of no leaf gives, so the merge must know:
 * kp_fkey_merge()), a test VSEQ of whether the entry is there
 * (UBPF_KF_PRES: set, v is T(L), never "", so v != "" exactly when it
 * is set, and NULL compares as "").  Exact as a this-> one is: L read
 * once, at the store, as run.c reads it; T a pure function of L and
 * strsize; the aggregations commuting; and a variable's entry there
 * exactly when run.c's is (SSTR makes it, SCLR deletes it, a thread's
 * exit deletes both: kplan_vars.c).
 */

/* Are a and b one tree but for their leaves la and lb? */
static bool same_tree(const struct node *a, const struct node *la,
		      const struct node *b, const struct node *lb)
{
	if (a == la || b == lb)
		return a == la && b == lb;
	if (!a || !b)
		return a == b;
	if (a->op != b->op || a->sub != b->sub || a->kind != b->kind ||
	    a->sz != b->sz || a->sg != b->sg || a->ival != b->ival ||
	    a->nargs != b->nargs || !a->sval != !b->sval ||
	    (a->sval && strcmp(a->sval, b->sval)))
		return false;
	if (!same_tree(a->a, la, b->a, lb) || !same_tree(a->b, la, b->b, lb) ||
	    !same_tree(a->c, la, b->c, lb))
		return false;
	for (unsigned i = 0; i < a->nargs; i++)
		if (!same_tree(a->args[i], la, b->args[i], lb))
			return false;
	return true;
}

/* Is every read of v under n a test of whether it is set (v == NULL,
 * v != NULL, v == "", v != "": kp_svar_lit() with "")?  *tests set
 * where one is. */
static bool null_reads(const struct d_prog *p, const struct node *n, unsigned v,
		       bool *tests)
{
	const struct node *lit;
	int w;

	if (!n)
		return true;
	if (kp_svar_lit(p, n, &w, &lit) && w == (int)v) {
		*tests = true;
		return !lit->sval[0];
	}
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)v)
		return false;
	if (!null_reads(p, n->a, v, tests) || !null_reads(p, n->b, v, tests) ||
	    !null_reads(p, n->c, v, tests))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!null_reads(p, n->args[i], v, tests))
			return false;
	return true;
}

static bool sfvar_is(const struct d_kplan *k, unsigned v, bool *mark)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	const struct node *t0 = NULL, *l0 = NULL;
	bool tests = false;

	if (var->kind != T_STR || var->ptr || var->psou || var->sou ||
	    joins_only(k, v, mark))
		return false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (kp_dtrace_only(c))
			continue;
		if (!null_reads(p, c->pred, v, &tests))
			return false;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			const struct node *b = kp_plain_store(st, v), *lv[1];

			if (kp_fvar_noop(k, c, st))
				continue;
			if (b && kp_str_clear(b))
				continue;
			if (b) { /* v = T at the clause's top */
				if (st < c->stmts ||
				    st >= c->stmts + c->nstmts ||
				    fvar_leaves(k, st, v, mark, 1, lv) != 1)
					return false;
				if (!t0) {
					t0 = b;
					l0 = lv[0];
				} else if (!same_tree(t0, l0, b, lv[0])) {
					return false;
				}
				continue;
			}
			/* (an if's condition; its branches are c->flat's) */
			if (!null_reads(p, st->e, v, &tests))
				return false;
			if (st->kind == S_IF)
				continue;
			for (unsigned j = 0; j < st->nargs; j++)
				if (!null_reads(p, st->args[j], v, &tests))
					return false;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (!(st->kind == S_AGG &&
				      is_v(st->keys[j], v)) &&
				    !null_reads(p, st->keys[j], v, &tests))
					return false;
		}
	}
	return t0 && (!tests || never_empty(t0));
}

bool kp_fvar_self(const struct d_kplan *k, unsigned v)
{
	return k && k->fvar && v < k->prog->nvars && k->fvar[v] &&
	       k->prog->vars[v].scope == SC_SELF;
}

/* Is v a format-time variable?  The leaves its stores may have (fvar_max())
 * into *max. */
static bool fvar_is(const struct d_kplan *k, unsigned v, bool *mark,
		    unsigned *max)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	const struct node *lv[KP_FLEAVES];
	bool any = false, printed;

	if (var->scope == SC_SELF) {
		*max = 1;
		return sfvar_is(k, v, mark);
	}
	if (var->scope != SC_THIS || var->kind != T_STR || var->ptr ||
	    var->psou || var->sou || joins_only(k, v, mark))
		return false;
	*max = fvar_max(k, v);
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		bool stored = false;

		if (reads_v(k, c->pred, v, mark))
			return false;
		for (unsigned i = 0; i < c->nstmts; i++) {
			const struct stmt *st = &c->stmts[i];

			if (kp_fvar_noop(k, c, st))
				continue; /* (its v = T before it) */
			if (fvar_leaves(k, st, v, mark, *max, lv)) {
				if (stored)
					return false;
				stored = any = true;
				continue;
			}
			memset(mark, 0, p->nvars * sizeof(*mark));
			stmts_vars(st, 1, mark);
			if (!mark[v])
				continue;
			if (stored && fvar_printed(k, st, v, mark, &printed) &&
			    printed)
				continue;
			if (!stored || st->kind != S_AGG ||
			    reads_v(k, st->e, v, mark))
				return false;
			for (unsigned j = 0; j < st->nargs; j++)
				if (reads_v(k, st->args[j], v, mark))
					return false;
			for (unsigned j = 0; j < st->nkeys; j++)
				if ((st->keys[j]->op != N_VAR ||
				     st->keys[j]->sub != (int)v) &&
				    reads_v(k, st->keys[j], v, mark))
					return false;
		}
	}
	return any;
}

/* Statement st of v's clause after its store f: its whole reads of v
 * (fvar_printed()), printed from f's leaves */
static void fprs_add(struct d_kplan *k, const struct stmt *st, unsigned v,
		     const struct kp_fst *f, bool *mark)
{
	bool reads;

	if (!fvar_printed(k, st, v, mark, &reads) || !reads)
		return;
	for (unsigned j = 0; j < kp_out_nargs(st); j++) {
		const struct node *a = kp_out_node(st, j);

		if (a->op != N_VAR || a->sub != (int)v)
			continue;
		k->fpr = xrealloc(k->fpr, k->nfpr + 1, sizeof(*k->fpr));
		k->fpr[k->nfpr++] = (struct kp_fpr){ .n = a, .f = f };
	}
}

/* The store of format-time variable v in clause ci (fvar_is(): one) */
static const struct kp_fst *fvar_store_in(const struct d_kplan *k, unsigned ci,
					  unsigned v)
{
	for (unsigned i = 0; i < k->nfst; i++)
		if (k->fst[i]->ci == ci && k->fst[i]->v == v)
			return k->fst[i];
	return NULL;
}

static void fvars_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;
	unsigned nv = p->nvars ? p->nvars : 1;
	bool *mark = xcalloc(nv, sizeof(*mark));

	unsigned max;

	k->fvar = xcalloc(nv, sizeof(*k->fvar));
	k->frooms = xcalloc(nv, sizeof(*k->frooms));
	for (unsigned v = 0; v < p->nvars; v++) {
		/* (a printed one's leaves a room each; a dead one's, or
		 * one that keys, one room) */
		bool rooms;

		k->frooms[v] = 1;
		if (!fvar_is(k, v, mark, &max))
			continue;
		k->fvar[v] = true;
		rooms = fvar_read(k, v, mark) && !fvar_keyed(k, v);
		for (unsigned ci = 0; ci < p->nclauses; ci++) {
			const struct clause *c = &p->clauses[ci];
			const struct kp_fst *last = NULL;

			for (unsigned i = 0; i < c->nstmts; i++) {
				const struct stmt *st = &c->stmts[i];
				const struct node *lv[KP_FLEAVES];
				unsigned nl =
					fvar_leaves(k, st, v, mark, max, lv);
				struct kp_fst *f;
				if (!nl) {
					if (last)
						fprs_add(k, st, v, last, mark);
					continue;
				}
				if (rooms && nl > k->frooms[v])
					k->frooms[v] = nl;
				k->fst = xrealloc(k->fst, k->nfst + 1,
						  sizeof(*k->fst));
				f = k->fst[k->nfst++] = xcalloc(1, sizeof(*f));
				f->st = st;
				f->ci = ci;
				f->v = v;
				f->tree = st->e->b;
				f->leaf = lv[0];
				memcpy(f->leaves, lv, nl * sizeof(*lv));
				f->nleaves = nl;
				f->a = *st->e->a;
				f->e = *st->e;
				f->e.a = &f->a;
				f->e.b = (struct node *)lv[0];
				f->sh = *st;
				f->sh.e = &f->e;
				last = f;
			}
		}
	}
	free(mark);
}

unsigned kp_fvar_rooms(const struct d_kplan *k, unsigned v)
{
	return k->frooms && v < k->prog->nvars ? k->frooms[v] : 1;
}

int kp_fvar_out(const struct d_kplan *k, const struct node *a,
		struct kp_leaf *lv, const struct node **tree)
{
	const struct kp_fst *f = NULL;

	for (unsigned i = 0; i < k->nfpr && !f; i++)
		if (k->fpr[i].n == a)
			f = k->fpr[i].f;
	if (!f)
		return 0;
	for (unsigned l = 0; l < f->nleaves; l++)
		lv[l] = (struct kp_leaf){ .n = f->leaves[l],
					  .kind = UBPF_K_OVSTR,
					  .var = f->v,
					  .room = l };
	if (tree)
		*tree = f->tree;
	return (int)f->nleaves;
}

const struct stmt *kp_fvar_store(const struct d_kplan *k, const struct stmt *st)
{
	for (unsigned i = 0; i < k->nfst; i++)
		if (k->fst[i]->st == st)
			return &k->fst[i]->sh;
	return st;
}

const struct node *const *kp_fvar_leaves(const struct d_kplan *k,
					 const struct stmt *sh, unsigned *n)
{
	for (unsigned i = 0; i < k->nfst; i++)
		if (&k->fst[i]->sh == sh) {
			*n = k->fst[i]->nleaves;
			return k->fst[i]->leaves;
		}
	*n = 1;
	return (const struct node *const *)&sh->e->b;
}

bool kp_fvar_clone(const struct d_kplan *k, const struct node *n)
{
	for (unsigned i = 0; i < k->nfst; i++)
		if (&k->fst[i]->a == n)
			return true;
	for (unsigned i = 0; i < k->nfsh; i++)
		for (unsigned j = 0; j < UBPF_KMAXKEYS; j++)
			if (&k->fsh[i]->var[j] == n)
				return true;
	return false;
}

/* Is key n a format-time variable's, read in clause ci? */
static const struct kp_fst *fvar_key(const struct d_kplan *k, unsigned ci,
				     const struct node *n)
{
	if (n->op != N_VAR || n->sub < 0 || !k->fvar[n->sub])
		return NULL;
	if (kp_fvar_self(k, (unsigned)n->sub)) /* its stores' T are one */
		for (unsigned i = 0; i < k->nfst; i++)
			if (k->fst[i]->v == (unsigned)n->sub)
				return k->fst[i];
	return fvar_store_in(k, ci, (unsigned)n->sub);
}

void kp_fkeys_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	fvars_make(k);
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			struct kp_fsh *f;
			uint8_t bits = 0;

			if (st->kind != S_AGG || st->nkeys > UBPF_KMAXKEYS)
				continue;
			for (unsigned j = 0; j < st->nkeys; j++)
				if (fkey_leaf(k, st->keys[j]) ||
				    fkey_const(k, st->keys[j]) ||
				    fvar_key(k, ci, st->keys[j]))
					bits |= (uint8_t)(1u << j);
			if (!bits)
				continue;
			k->fsh = xrealloc(k->fsh, k->nfsh + 1, sizeof(*k->fsh));
			f = k->fsh[k->nfsh++] = xcalloc(1, sizeof(*f));
			f->st = st;
			f->ci = ci;
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
				const struct node *l =
					fkey_leaf(k, st->keys[j]);
				const struct kp_fst *fs =
					fvar_key(k, ci, st->keys[j]);

				if (fkey_const(k, st->keys[j]))
					l = &f->zero;
				f->tree[j] = st->keys[j];
				f->leaf[j] = l;
				if (fs) { /* the variable, T its store's */
					f->var[j] = *st->keys[j];
					l = &f->var[j];
					f->tree[j] = fs->tree;
					f->leaf[j] = fs->leaf;
				}
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
	for (unsigned i = 0; i < k->nfst; i++)
		free(k->fst[i]);
	free(k->fst);
	free(k->fvar);
	free(k->frooms);
	free(k->fpr);
}

const struct stmt *kp_fkey_stmt(const struct d_kplan *k, const struct stmt *st,
				uint8_t *bits, unsigned *ci)
{
	if (!kp_strsize_fixed(k)) /* the merge cuts at the run's strsize */
		return NULL;
	for (unsigned i = 0; i < k->nfsh; i++)
		if (k->fsh[i]->st == st) {
			*bits = k->fsh[i]->bits;
			*ci = k->fsh[i]->ci;
			return &k->fsh[i]->sh;
		}
	return NULL;
}

void kp_fkey_merge(const struct d_kplan *k, const struct kstmt *ks,
		   struct dv *keys, char (*kbuf)[D_STRSIZE], uint8_t absent)
{
	size_t max =
		k->prog->strsize < D_STRSIZE ? k->prog->strsize : D_STRSIZE;
	const struct kp_fsh *f = NULL;

	for (unsigned i = 0; i < k->nfsh && !f; i++)
		if (k->fsh[i]->st == ks->ost)
			f = k->fsh[i];
	if (!f) { /* kp_stmt_ok() took ks's copy from k->fsh */
		fprintf(stderr,
			"dtrace: internal error: no format-time keys of line "
			"%d\n",
			ks->ost->line);
		abort();
	}
	for (unsigned j = 0; j < ks->st->nkeys; j++) {
		struct d_pin pin = { 0 };
		uint64_t faddr = 0;
		char *str = NULL;
		struct dv v;

		if (!(ks->fkeys >> j & 1))
			continue;
		if (absent >> j & 1) {
			/* a self-> one unset: "", as run.c's var_get() reads
			 * it (the script's own, untainted) */
			kbuf[j][0] = '\0';
			keys[j] = d_dv_str(kbuf[j]);
			continue;
		}
		pin.n = f->leaf[j]; /* the leaf, a node of the tree */
		pin.v = keys[j];
		if (d_eval_pinned(k->prog, ks->fci, NULL, f->tree[j], &pin, 1,
				  &v, &str, &faddr) != 0) {
			/* no kp_ftime_strfn() faults, nor a global's read */
			fprintf(stderr,
				"dtrace: internal error: a format-time key "
				"of line %d could not be made\n",
				ks->ost->line);
			abort();
		}
		if (v.k == K_STR) {
			/* as d_agg_update(): a key is at most strsize - 1
			 * bytes */
			snprintf(kbuf[j], max ? max : 1, "%s", v.s ? v.s : "");
			v.s = kbuf[j];
		}
		free(str);
		keys[j] = v; /* an integer global's: its value */
	}
}

/*
 * The run's constants (doc/DESIGN.md §8 "Globals BEGIN stores"): a
 * global scalar, an integer or a string, that no clause but BEGIN's
 * stores (a clause whose every description is BEGIN; no store, ++ or
 * --, of it or into it, in any other clause's predicate or statements).
 * BEGIN fires before dtrace runs or formats any record (consumer.c:
 * the records read before it wait for c->begun), so every record is
 * formatted, and every kernel entry merged, with the value BEGIN left:
 * the one run.c would read at any hit.  So such a variable is nothing
 * in the out area where a printf() or trace() argument reads it
 * (kplan_str.c's format-time trees: d_eval_pinned() reads the global),
 * and a key that is one is a 0 in the kernel's key, made by the merge
 * as a literal is (the toolkit's color scripts print
 * color_shell = "\033[2;35m" so; top = $1 in BEGIN).  Anywhere else (a
 * predicate, a value the kernel computes) an integer one is read from
 * cgrcon at the hit where its type is known before BEGIN fires ("Run
 * constants in the kernel", below); a string one is not.
 */
static void stores_of(const struct node *n, void *ctx)
{
	bool *st = ctx;

	if (!n)
		return;
	if ((n->op == N_ASSIGN || n->op == N_INCDEC) && n->a)
		vars_of(n->a, st); /* the place, its keys too (harmless) */
	stores_of(n->a, st);
	stores_of(n->b, st);
	stores_of(n->c, st);
	for (unsigned i = 0; i < n->nargs; i++)
		stores_of(n->args[i], st);
}

static bool begin_only(const struct clause *c)
{
	if (!kp_dtrace_only(c))
		return false;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *name = strrchr(c->descs[j], ':');

		if (strcmp(name ? name + 1 : c->descs[j], "BEGIN"))
			return false;
	}
	return true;
}

void kp_consts_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;
	unsigned nv = p->nvars ? p->nvars : 1;
	bool *st = xcalloc(nv, sizeof(*st));

	k->rconst = xcalloc(nv, sizeof(*k->rconst));
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (begin_only(c))
			continue;
		stores_of(c->pred, st);
		kp_stmts_each(c->stmts, c->nstmts, stores_of, st);
	}
	for (unsigned v = 0; v < p->nvars; v++) {
		const struct var *var = &p->vars[v];

		k->rconst[v] = !st[v] && var->scope == SC_GLOBAL && !var->ptr &&
			       !var->sou &&
			       (var->kind == T_STR || var->kind == T_INT);
	}
	free(st);
}

bool kp_run_const(const struct d_kplan *k, const struct node *n)
{
	return k->rconst && n->op == N_VAR && !n->ptr && !n->sou &&
	       (n->kind == T_STR || n->kind == T_INT) && k->rconst[n->sub];
}

/*
 * Run constants in the kernel (doc/DESIGN.md §8 "Run constants in the
 * kernel").  A run constant is one value for every hit, but the plans
 * are made before BEGIN fires, so a kernel clause reading an integer
 * one (a predicate, a value: the book's `timezero = timestamp` and
 * `min_ns = $1 * 1000000`) reads it from cgrcon's slot at the hit
 * (UBPF_K_GLD), which dtrace writes once BEGIN has fired (consumer.c,
 * bpf_agg_cgen.c's bpf_kagg_rcon()), and the plan is typed with the
 * type BEGIN leaves it: a declared variable's (run.c's d_var_conv()),
 * else the one type of every BEGIN store, each `G = e` of an e the
 * kernel types (kp_ty()) that reads no variable; none, the zero's (a
 * signed 8-byte 0, d_var_zero()).  BEGIN's `G += e` or `G++` are not
 * typed so (their type is G's and e's together).  A type that is not
 * the zero's needs a store BEGIN surely makes (kp_rcon_type()'s top:
 * at the top of a BEGIN clause without a predicate, after statements
 * that cannot fault, begin_safe()), since a store under a predicate,
 * or after a fault, would leave the zero's type; d_kplan_rcon_value()
 * checks the values after BEGIN all the same, and a type that differs
 * ends the run there, never reading the slot with the wrong type.
 *
 * The hits before the write: the -c commands are let go after BEGIN
 * (consumer.c), so none of theirs comes before; a -p process's or
 * another process's hit at a probe armed before BEGIN fires can, and
 * a program whose plan reads a slot ends such a hit with nothing done
 * (cgen.c's gate: word 0 still 0), as DTrace drops every hit of a
 * probe but BEGIN until BEGIN has fired (its dtrace_probe() runs no
 * enabling while the state is not yet active).
 */
struct rcon_walk {
	const struct d_kplan *k;
	unsigned v;
	bool any, bad;
	uint8_t sz, sg;
};

static void rcon_stores(const struct node *n, void *ctx)
{
	struct rcon_walk *w = ctx;
	const struct d_prog *p = w->k->prog;
	uint8_t sz, sg;
	bool *mark;
	bool reads = false;

	if (!n || w->bad)
		return;
	if ((n->op == N_ASSIGN || n->op == N_INCDEC) && n->a &&
	    n->a->op == N_VAR && (unsigned)n->a->sub == w->v) {
		if (n->op != N_ASSIGN || n->sub != '=' || !n->b ||
		    n->b->kind == T_STR || n->b->ptr) {
			w->bad = true;
			return;
		}
		mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
		vars_of(n->b, mark);
		for (unsigned i = 0; i < p->nvars; i++)
			reads |= mark[i];
		free(mark);
		if (reads || !kp_ty(w->k, n->b, &sz, &sg) ||
		    (w->any && (sz != w->sz || sg != w->sg))) {
			w->bad = true;
			return;
		}
		w->any = true;
		w->sz = sz;
		w->sg = sg;
	}
	rcon_stores(n->a, ctx);
	rcon_stores(n->b, ctx);
	rcon_stores(n->c, ctx);
	for (unsigned i = 0; i < n->nargs; i++)
		rcon_stores(n->args[i], ctx);
}

/*
 * Statement st of a BEGIN clause cannot end the clause with a fault: a
 * printf() or trace() of literals and values that cannot fault, a
 * store of such a value into a scalar variable (the header printed
 * before pg_qslower.d's `min_ns = $1 * 1000000`).
 */
static bool begin_safe(const struct stmt *st)
{
	const struct node *e = st->e;

	if (st->kind == S_PRINTF || st->kind == S_TRACE) {
		for (unsigned j = 0; j < st->nargs; j++)
			if (st->args[j]->op != N_STR &&
			    !kp_node_safe(st->args[j]))
				return false;
		return true;
	}
	return st->kind == S_EXPR && e && e->op == N_ASSIGN && e->sub == '=' &&
	       e->a && e->a->op == N_VAR && e->b &&
	       (e->b->op == N_STR || kp_node_safe(e->b));
}

bool kp_rcon_type(const struct d_kplan *k, unsigned v, uint8_t *sz, uint8_t *sg)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	struct rcon_walk w = { .k = k, .v = v };
	bool top = false;

	if (!k->vars || !k->rconst || !k->rconst[v] ||
	    var->scope != SC_GLOBAL || var->kind != T_INT || var->ptr ||
	    var->psou || var->sou)
		return false;
	if (var->declared) {
		*sz = var->sz;
		*sg = var->sg;
		return true;
	}
	for (unsigned ci = 0; ci < p->nclauses && !w.bad; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!begin_only(c))
			continue;
		rcon_stores(c->pred, &w);
		kp_stmts_each(c->stmts, c->nstmts, rcon_stores, &w);
		for (unsigned i = 0; !c->pred && i < c->nstmts; i++) {
			const struct node *e = c->stmts[i].e;

			if (c->stmts[i].kind == S_EXPR && e &&
			    e->op == N_ASSIGN && e->sub == '=' && e->a &&
			    e->a->op == N_VAR && (unsigned)e->a->sub == v &&
			    kp_node_safe(e->b)) {
				top = true;
				break;
			}
			if (!begin_safe(&c->stmts[i]))
				break;
		}
	}
	/* a type not the zero's needs a store every BEGIN makes: one at
	 * the top of a BEGIN clause without a predicate, after statements
	 * that cannot end the clause with a fault */
	if (w.bad || (w.any && (w.sz != 8 || !w.sg) && !top))
		return false;
	*sz = w.any ? w.sz : 8;
	*sg = w.any ? w.sg : 1;
	return true;
}

/* Does a clause of a traced probe read v (the kernel may: its plan, its
 * record gate, its exit() test)? */
static bool rcon_read(const struct d_kplan *k, unsigned v)
{
	const struct d_prog *p = k->prog;
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool r = false;

	for (unsigned ci = 0; ci < p->nclauses && !r; ci++) {
		if (kp_dtrace_only(&p->clauses[ci]))
			continue;
		kp_clause_vars(p, &p->clauses[ci], mark);
		r = mark[v];
	}
	free(mark);
	return r;
}

void kp_rcon_assign(struct d_kplan *k)
{
	uint8_t rz, rg;

	k->nrcon = 0;
	for (unsigned v = 0; v < k->prog->nvars; v++) {
		k->vst[v] = KV_NO;
		k->vbit[v] = -1;
		k->vslot[v] = -1;
		if (k->nrcon < UBPF_KRCON && kp_rcon_type(k, v, &rz, &rg)) {
			k->vst[v] = KV_RCON;
			k->vslot[v] = (int)k->nrcon++;
			k->vsz[v] = rz;
			k->vsg[v] = rg;
		}
	}
}

unsigned d_kplan_nrcon(const struct d_kplan *k)
{
	return k && k->vars ? k->nrcon : 0;
}

bool d_kplan_rcon_value(const struct d_kplan *k, unsigned slot, uint64_t *val,
			char *why, size_t wlen)
{
	const struct d_prog *p = k->prog;
	const struct dv *g;
	char name[128], got[48];

	for (unsigned v = 0; v < p->nvars; v++) {
		if (k->vst[v] != KV_RCON || k->vslot[v] != (int)slot)
			continue;
		g = &p->gval[v];
		*val = g->k == K_INT ? (uint64_t)g->i : 0;
		if ((g->k == K_INT && g->sz == k->vsz[v] &&
		     g->sg == k->vsg[v]) ||
		    !rcon_read(k, v))
			return true;
		kp_var_name(p, v, name, sizeof(name));
		if (g->k != K_INT)
			snprintf(got, sizeof(got), "not an integer");
		else
			snprintf(got, sizeof(got), "%s %u-byte integer",
				 g->sg ? "a signed" : "an unsigned",
				 (unsigned)g->sz);
		snprintf(why, wlen,
			 "BEGIN left %s %s, and the kernel's programs were "
			 "made reading it as %s %u-byte integer, the type "
			 "its stores give it (one of them did not run)",
			 name, got, k->vsg[v] ? "a signed" : "an unsigned",
			 (unsigned)k->vsz[v]);
		return false;
	}
	snprintf(why, wlen, "no run constant in slot %u", slot);
	return false;
}
