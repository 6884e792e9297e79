// SPDX-License-Identifier: MIT
/*
 * kplan_gcnt.c - global variables the kernel counts (D_KPLAN_VARS, the
 * generated programs alone).
 *
 * The kernel keeps no global variable: one copy for every CPU, and
 * user space runs the clauses it cannot from records in time order, so
 * a global both sides wrote would be two.  But the toolkit's statistics
 * scripts (tcpstat.d, udpstat.d, sar-c.d, shortlived.d) use globals as
 * counters, which is what aggregations are for and commutes as they
 * do:
 *
 *	mib:::tcpInDataInorderBytes { TCP_in += arg0; }
 *	profile:::tick-1sec { printf("%d\n", TCP_in); TCP_in = 0; }
 *
 * A global G is *counted* (kp_gcnt_find()) where it is an integer
 * scalar (no string, pointer or struct, not an associative array) and
 * every clause that may fire at a traced probe (anything but BEGIN,
 * END and a clause all of whose descriptions are tick-N:
 * kprov.c's kprov_tick_clause()) mentions it only in counting
 * statements, `G += e`, `G -= e`, `G++`, `++G`, `G--`, `--G` (their
 * value unused: statements; e not reading G; no speculation in the
 * clause), and at least one such clause counts.  BEGIN, END and tick-N
 * clauses, which run in dtrace, may read and store it as they like.
 *
 * Why that is exact.  run.c computes `G += e` as binop('+', G, e): 64
 * bits, wrapping, typed by C's usual conversions of G's type and e's
 * (d_int_common()), then var_set() (narrowed only where G is declared).
 * Over any set of hits, in any order, the value is G plus the sum of
 * the e's modulo 2^64 (a declared type's narrowing is modulo 2^n and
 * commutes with it) and the type is the largest of G's and the e's in
 * C's order of the promoted types (int, unsigned int, long, unsigned
 * long: each conversion takes the larger), so the order of the hits
 * does not matter, only which hits were counted.  The kernel runs a
 * counting statement as a sum() of e without keys (a kflat slot: a the
 * sum, b set by a hit, cgen_agg.c's kval_update()), of e's one type,
 * fixed by the tree (kp_ty(); e reads no variable whose type set and
 * unset differ, no args[N], whose type is each probe's), and
 * d_kplan_merge() makes `G += sum` of that type (../d/run.c's
 * d_var_add(), binop() and var_set() themselves) where a hit was
 * counted, and nothing where none was (the type then stays G's).  Hits
 * user space runs from records (a clause the kernel does not take, a
 * hit past the horizon, a process not armed) do their `G += e` there;
 * the two meet as aggregations do.
 *
 * Where G is read: only in dtrace's own clauses.  BEGIN runs before
 * dtrace runs any record or merges any entry (consumer.c), which is
 * what a run without the kernel does too: every hit, counted in the
 * kernel or not, comes after BEGIN's stores.  END comes after the last
 * merge (bpf_agg_read.c, before END).  A tick-N clause that mentions G
 * is a fold firing (kp_gcnt_folds(), with d_kplan_exits() and
 * d_kplan_folds()): the kernel's horizon stops there (kplan_exit.c's
 * "printa() at tick-N"), and before its clauses run dtrace folds what
 * the kernel counted, every hit stamped before the firing and none
 * after, into G, the slots zeroed, exactly as it folds aggregations
 * for printa() and clear().  So `printf("%d", G); G = 0;` at tick-1sec
 * prints and resets each interval's count, as user space alone does.
 * The horizon costs what it costs aggregations: a grace period per
 * firing, and no self-> variable kept in the kernel (kplan_exit.c).
 *
 * What stays out: a global any traced clause reads (a predicate, a
 * value, a key: it would need the kernel's count at the hit) or stores
 * otherwise (`G = 1`, `G *= 2`: these do not commute), a value that
 * could fault or is typed per probe or per variable state, and a
 * clause that speculates.  The inproc recorder and the generic program
 * count nothing (no D_KPLAN_VARS); their clauses run in user space.
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

/* Could variable v be counted (an integer scalar global)? */
static bool gcnt_kind(const struct var *var)
{
	return var->scope == SC_GLOBAL && var->kind == T_INT && !var->ptr &&
	       !var->psou && !var->sou;
}

int kp_gcnt_count(const struct d_prog *p, const struct stmt *st,
		  const struct node **val, struct node *one, bool *sub)
{
	const struct node *e = st->e;
	int op;

	if (st->kind != S_EXPR || !e || !e->a || e->a->op != N_VAR || e->ptr ||
	    e->a->ptr || !gcnt_kind(&p->vars[e->a->sub]))
		return -1;
	if (e->op == N_ASSIGN && e->sub != '=') {
		op = d_compound_op(e->sub);
		if (op != '+' && op != '-')
			return -1;
		*val = e->b;
		*sub = op == '-';
		return e->a->sub;
	}
	if (e->op != N_INCDEC)
		return -1;
	memset(one, 0, sizeof(*one)); /* run.c's d_dv_int(1, 4, true) */
	one->op = N_INT;
	one->kind = T_INT;
	one->ival = 1;
	one->sz = 4;
	one->sg = 1;
	one->line = e->line;
	one->col = e->col;
	*val = one;
	*sub = e->sub != OP_INC;
	return e->a->sub;
}

/* A clause of dtrace's own (BEGIN, END, tick-N): it may read a count */
static bool own_clause(const struct d_prog *p, const bool *ticks, unsigned ci)
{
	return kp_dtrace_only(&p->clauses[ci]) || (ticks && ticks[ci]);
}

static bool speculates(const struct clause *c)
{
	for (unsigned i = 0; i < c->nflat; i++)
		if (c->flat[i]->kind == S_SPECULATE ||
		    c->flat[i]->kind == S_COMMIT ||
		    c->flat[i]->kind == S_DISCARD)
			return true;
	return false;
}

unsigned kp_gcnt_find(const struct d_prog *p, const bool *ticks, bool *cnt,
		      unsigned *why)
{
	unsigned nv = p->nvars ? p->nvars : 1, n = 0;
	bool *mark = xcalloc(nv, sizeof(*mark));
	bool *counted = xcalloc(nv, sizeof(*counted));

	for (unsigned v = 0; v < p->nvars; v++) {
		cnt[v] = gcnt_kind(&p->vars[v]);
		if (why)
			why[v] = 0;
	}
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		bool spec = speculates(c);

		if (own_clause(p, ticks, ci))
			continue;
		memset(mark, 0, nv * sizeof(*mark));
		vars_of(c->pred, mark);
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];
			const struct node *val;
			struct node one;
			bool sub;
			int v = kp_gcnt_count(p, st, &val, &one, &sub);

			if (v >= 0 && !spec) {
				counted[v] = true;
				vars_of(val == &one ? NULL : val, mark);
				continue;
			}
			vars_of(st->e, mark);
			for (unsigned j = 0; j < st->nargs; j++)
				vars_of(st->args[j], mark);
			for (unsigned j = 0; j < st->nkeys; j++)
				vars_of(st->keys[j], mark);
		}
		for (unsigned v = 0; v < p->nvars; v++)
			if (mark[v] && cnt[v]) {
				cnt[v] = false;
				if (why)
					why[v] = ci + 1;
			}
	}
	for (unsigned v = 0; v < p->nvars; v++) {
		cnt[v] = cnt[v] && counted[v];
		n += cnt[v];
	}
	free(mark);
	free(counted);
	return n;
}

/* Does clause ci mention a variable of cnt? */
static bool mentions(const struct d_prog *p, unsigned ci, const bool *cnt)
{
	const struct clause *c = &p->clauses[ci];
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool any = false;

	kp_clause_vars(p, c, mark);
	for (unsigned v = 0; v < p->nvars && !any; v++)
		any = mark[v] && cnt[v];
	free(mark);
	return any;
}

bool kp_gcnt_folds(const struct d_prog *p, const bool *ticks, unsigned ci)
{
	bool *cnt, any;

	if (!ticks || ci >= p->nclauses || !ticks[ci] || !p->nvars)
		return false;
	cnt = xcalloc(p->nvars, sizeof(*cnt));
	any = kp_gcnt_find(p, ticks, cnt, NULL) && mentions(p, ci, cnt);
	free(cnt);
	return any;
}

bool kp_gcnt_tick(const struct d_kplan *k, const bool *ticks, unsigned ci)
{
	return k->gcnt && ticks && ticks[ci] && mentions(k->prog, ci, k->gcnt);
}

/* A value the kernel adds as run.c would: it cannot fault and reads
 * nothing whose type is the probe's or the variable's state's */
static bool plain_val(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return true;
	switch (n->op) {
	case N_STR:
	case N_ARGS:
	case N_FUNC:
	case N_ASSIGN:
	case N_INCDEC:
	case N_DEREF:
	case N_MEMBER:
	case N_UREGS:
	case N_VARADDR:
		return false;
	case N_VAR:
	case N_ASSOC:
		if (k->prog->vars[n->sub].kind == T_STR ||
		    k->prog->vars[n->sub].ptr)
			return false;
		break;
	case N_BUILTIN:
		if (d_builtins[n->sub].id == B_VTIMESTAMP)
			return false; /* a fault site where self-> is kept */
		break;
	default:
		break;
	}
	if (n->kind == T_STR || n->ptr || !plain_val(k, n->a) ||
	    !plain_val(k, n->b) || !plain_val(k, n->c))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!plain_val(k, n->args[i]))
			return false;
	return true;
}

int kp_gcnt_stmt(const struct d_kplan *k, const struct stmt *st,
		 struct kstmt *ks)
{
	const struct node *val;
	struct node one;
	bool sub;
	int v = k->gcnt ? kp_gcnt_count(k->prog, st, &val, &one, &sub) : -1;

	if (v < 0 || !k->gcnt[v])
		return -1;
	memset(ks, 0, sizeof(*ks));
	ks->st = st;
	ks->agg = ~0u;
	ks->slot = ks->svar = ks->skey = -1;
	ks->nslots = 1;
	ks->gvar = (unsigned)v + 1;
	ks->gsub = sub;
	/* (open_bits() with reg false changes nothing of k) */
	return plain_val(k, val) &&
	       !open_bits((struct d_kplan *)k, val, false) &&
	       kp_ty(k, val, &ks->gsz, &ks->gsg);
}

const struct node *kp_gcnt_value(const struct d_kplan *k,
				 const struct kstmt *ks, struct node *one)
{
	const struct node *val = NULL;
	bool sub;

	(void)kp_gcnt_count(k->prog, ks->st, &val, one, &sub);
	return val;
}

void kp_gcnt_merge(const struct d_kplan *k, const struct kstmt *ks,
		   const struct ubpf_kval *vals, unsigned ncpus)
{
	uint64_t sum = 0;
	bool hit = false;

	for (unsigned i = 0; i < ncpus; i++) {
		sum += (uint64_t)vals[i].a;
		hit |= vals[i].b != 0;
	}
	if (hit)
		d_var_add(k->prog, ks->gvar - 1, ks->gsub ? '-' : '+', sum,
			  ks->gsz, ks->gsg);
}

const char *kp_gcnt_why(const struct d_kplan *k, unsigned v, char *buf,
			size_t len)
{
	const struct d_prog *p = k->prog;

	if (v >= p->nvars || !gcnt_kind(&p->vars[v]) || !k->gwhy)
		return NULL;
	if (k->gcnt && k->gcnt[v])
		snprintf(buf, len,
			 "the value it adds to the global %s is not one the "
			 "kernel counts (an integer that cannot fault, typed "
			 "alike at every probe and whatever is set)",
			 p->vars[v].name);
	else if (k->gwhy[v])
		snprintf(
			buf, len,
			"%s is a global variable that clause %u reads or stores "
			"at a probe: the kernel keeps self-> and this-> "
			"variables, and a global only where the probes' "
			"clauses add to it alone (+=, -=, ++, --) and "
			"BEGIN, END and tick-N clauses read it, or BEGIN "
			"alone stores it",
			p->vars[v].name, k->gwhy[v]);
	else
		return NULL;
	return buf;
}

unsigned d_kplan_gcounted(const struct d_kplan *k, const bool *ran, char *buf,
			  size_t len)
{
	const struct d_prog *p = k->prog;
	unsigned n = 0;
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned v = 0; k->gcnt && v < p->nvars; v++) {
		bool seen = false;

		for (unsigned ci = 0; ci < p->nclauses && !seen; ci++)
			for (unsigned i = 0; ran[ci] && k->ok[ci] && !seen &&
					     i < p->clauses[ci].nflat;
			     i++)
				seen = k->st[k->first[ci] + i].gvar == v + 1;
		if (!seen)
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       n ? ", " : "", p->vars[v].name);
		n++;
	}
	return n;
}
