// SPDX-License-Identifier: MIT
/*
 * kplan_here.c - which clauses the kernel runs at one probe (doc/
 * DESIGN.md's "Clauses typed per probe and the variables the kernel
 * keeps").  kplan.c decides once, knowing no probe, which clauses the
 * kernel runs and which variables it keeps; args[N] is typed per probe
 * (kplan_emit.c types a clause again at each), so a clause the kernel
 * runs may not fit a probe: args[N] not the kind its kernel form needs
 * there, a probe's name as a key longer than a key's room, its
 * instructions past the plan's room beside the clauses before it.
 *
 * The rule (d_kplan_here(), asked by bpf_agg.c's plan_of() per probe
 * P and the clauses P matches): a clause the decision gave the kernel
 * runs there at P if it fits P (kplan_emit.c's d_kplan_fits(), with the
 * emitter's first reason), and all of them in order fit one plan with
 * the speculating (sout) and shared self-> reader (vin) clauses among
 * them (the room; where a sout or vin clause's values, which the
 * kernel must compute at every hit, do not fit after the kernel's
 * clauses before it but fit a plan of their own, the nearest of those
 * that user space can run instead -- keeping no variable that
 * outlives a firing, no speculation of the kernel's, and whose this->
 * closure reaches no variable a sout clause at P reads -- is user
 * space's at P, one at a time, and the room asked again: kept_room(); before,
 * plan_of() refused the event), less the closure over this->
 * variables: a this-> variable the kernel keeps (KV_KERN, KV_SARG,
 * KV_STR, scope SC_THIS) that a clause user space runs at P touches
 * is user space's at P, and
 * so is every clause at P touching it, until nothing changes (the room
 * asked again after, since a plan with fewer clauses may have room for
 * one left out; the set left only grows, so it ends; an exit clause's
 * UBPF_K_XEND is in the room, as plan_of() emits it, and where it does
 * not fit no clause after it is here).  That is exact
 * because a this-> variable lives for one firing and the probe's
 * clauses run in order (d/stmt.c's run_pre() resets this-> at each
 * firing; the generated program's slots are 0 at each run): at P each
 * of its readers and writers runs on one side.  At another probe the
 * same variable may be the kernel's.
 *
 * Variables that outlive a firing (self-> integers, strings, thread-
 * local arrays) have one copy for the run: a clause keeping one in the
 * kernel that is not here at P makes P's plan UBPF_KTLS_UNFIT
 * (d_kplan_kself(), bpf_agg.c's plan_of()), and the processes firing
 * P keep self-> in user space for good, every hit of theirs at an event
 * keeping it a record (bpf_agg_cgen.c's "Unfit events"; before
 * 2026-12-06 the event was refused).  So that such processes are few,
 * a clause may take the
 * forms typed per probe that the decision cannot know the probes of
 * (strlen(args[N]): kplan_str.c's kp_arg_strlen(); printf("%s", args[N]):
 * kplan_out.c's kp_out_sarg_ok(); uregs[], the kernel's at a uprobe site
 * alone, in a clause that may fire at a kernel probe: kp_ty_at()) only
 * where no chain of clauses
 * sharing this-> variables ties it to a clause touching a self->
 * (or global) variable or speculating (kp_typed_reach(), over the
 * program, once): at a probe where such a clause is not the kernel's,
 * the closure then reaches no variable that outlives a firing, and no
 * speculating clause (whose values must be computed in the kernel at
 * every probe: kplan_spec.c's "Speculations"; d_kplan_here() says false
 * where one reads a this-> variable user space's at P, and the event
 * is refused, its why[] naming the variable: bpf_agg.c's
 * bpf_kagg_unfit() says so).  The variables that outlive a firing
 * stop a closure's forms only where one of its clauses may fire at
 * probes that type args[] apart (one_typing(): descriptions naming
 * more than one provider or probe name, or a kernel provider's more
 * than one function): where each names one, a form types at every
 * probe of its clause or at none, and none sends all of its events'
 * processes to user space alike, never those of one of several (the
 * README's first example,
 * `myapp$target:::query-start { self->ts = timestamp; printf("%d %s",
 * args[0], args[1]); }`).  Three forms take no such leave, since at
 * a probe where they do not fit the processes would lose the kernel's
 * self-> for good: trace(args[N]) (kp_typed_free(): tied to nothing that
 * outlives a firing), whose kernel form is the string one, which the common
 * integer args[N] does not fit; a ?: whose branches args[N] may type
 * apart (check.c typed the node with no type, so run.c's value is the
 * branch taken's: c ? arg1 : args[1] where args[1] is a short), which
 * no one type in the kernel is (noslen_node() keeps it, for kplan.c's
 * kp_ty_at(), in any clause so tied); and, where the clause's probes
 * type args[] apart, an integer key reading args[N], whose type is the
 * first plan's (kplan_emit.c's args_keys()).  uregs[] at a kernel
 * probe types at none, so a clause that may fire at one keeps the old
 * gate for it.  A probe that contradicts the decision moves the self->
 * of the processes firing it to user space (bpf_agg_cgen.c's "Unfit
 * events"); deciding self-> variables knowing the probes is later work
 * (doc/DESIGN.md).
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

static unsigned root(unsigned *par, unsigned i)
{
	while (par[i] != i)
		i = par[i] = par[par[i]];
	return i;
}

/* The strlen(args[N]) nodes under n into k->noslen (slen), and its
 * uregs[] nodes where its clause may fire at a kernel probe (kern) */
struct noslen_walk {
	struct d_kplan *k;
	bool slen; /* its strlen(args[N]) too */
	bool kern;
	/* its ?: whose branches args[N] may type apart (check.c typed
	 * the node with no type: run.c's value is the branch's own) */
	bool tern;
};

static void noslen_node(const struct node *n, void *ctx)
{
	const struct noslen_walk *w = ctx;
	struct d_kplan *k = w->k;
	bool kern = w->kern;

	if (!n)
		return;
	if ((w->slen && n->op == N_FUNC && d_funcs[n->sub].id == F_STRLEN &&
	     n->nargs == 1 && kp_args_index(n->args[0]) >= 0) ||
	    (n->op == N_UREGS && kern) ||
	    (w->tern && n->op == N_TERN && !n->sz && n->kind != T_STR &&
	     (kp_has_args(n->b) || kp_has_args(n->c)))) {
		k->noslen =
			xpush_room(k->noslen, k->nnoslen, sizeof(*k->noslen));
		k->noslen[k->nnoslen++] = n;
	}
	noslen_node(n->a, ctx);
	noslen_node(n->b, ctx);
	noslen_node(n->c, ctx);
	for (unsigned i = 0; i < n->nargs; i++)
		noslen_node(n->args[i], ctx);
}

/* Field i (0-3) of description d: its start, its length into *n */
static const char *desc_field(const char *d, unsigned i, size_t *n)
{
	for (; i; i--) {
		d = strchr(d, ':');
		if (!d)
			return NULL;
		d++;
	}
	*n = strcspn(d, ":");
	return d;
}

/* Is field i of d the same in e, not empty and without a glob? */
static bool same_field(const char *d, const char *e, unsigned i)
{
	size_t n = 0, m = 0;
	const char *a = desc_field(d, i, &n), *b = desc_field(e, i, &m);

	return a && b && n && n == m && !strncmp(a, b, n) &&
	       strcspn(a, "*?[\\") >= n;
}

/*
 * Does every probe clause c may fire at type args[] alike?  Where each
 * of its descriptions names one provider and one probe name, the same
 * in each (a USDT provider's probe declares its arguments once, for
 * every site), and for a kernel provider one function too (a system
 * call's are its own): `myapp$target:::query-start`, the README's.
 * Then a form typed per probe types at all of them or at none: none
 * refuses every event of the clause (the generic program runs them,
 * bpf_agg.c's UBPF_KTLS_UNFIT), never one event of several.
 */
static bool one_typing(const struct clause *c)
{
	if (!c->ndescs)
		return false;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j], *d0 = c->descs[0];
		unsigned colons = 0;

		for (const char *q = d; *q; q++)
			colons += *q == ':';
		if (colons != 3 || !same_field(d, d0, 0) ||
		    !same_field(d, d0, 3) ||
		    (kp_desc_kern(d) != 0 && !same_field(d, d0, 2)))
			return false;
	}
	return true;
}

void kp_typed_reach(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;
	unsigned nc = p->nclauses ? p->nclauses : 1;
	unsigned nv = p->nvars ? p->nvars : 1;
	unsigned *par = xcalloc(nc, sizeof(*par));
	int *owner = xcalloc(nv, sizeof(*owner));
	bool *mark = xcalloc(nv, sizeof(*mark));
	bool *bad = xcalloc(nc, sizeof(*bad));
	bool *outl = xcalloc(nc, sizeof(*outl));
	bool *apart = xcalloc(nc, sizeof(*apart));

	k->tyok = xcalloc(nc, sizeof(*k->tyok));
	k->tyfree = xcalloc(nc, sizeof(*k->tyfree));
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		par[ci] = ci;
	for (unsigned v = 0; v < p->nvars; v++)
		owner[v] = -1;
	/* the clauses sharing this-> variables, one set */
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		kp_clause_vars(p, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars; v++) {
			if (!mark[v] || p->vars[v].scope != SC_THIS)
				continue;
			if (owner[v] < 0)
				owner[v] = (int)ci;
			else
				par[root(par, ci)] =
					root(par, (unsigned)owner[v]);
		}
	}
	/* ... none of which may speculate, or touch a variable that
	 * outlives a firing where one of them may fire at probes typed
	 * apart (one_typing()) */
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		bool b = false;

		kp_clause_vars(p, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars; v++)
			b |= mark[v] && p->vars[v].scope != SC_THIS;
		outl[root(par, ci)] |= b;
		apart[root(par, ci)] |= !one_typing(&p->clauses[ci]);
		bad[root(par, ci)] |= d_kplan_specs(p, ci);
	}
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		unsigned r = root(par, ci);
		/* (uregs[] at a kernel probe never types, whatever
		 * one_typing() says: a clause that may fire at one keeps
		 * the gate beside a variable that outlives a firing) */
		struct noslen_walk w = {
			.k = k,
			.slen = bad[r] || (outl[r] && apart[r]),
			.kern = !kp_uprobes_only(c) && (bad[r] || outl[r]),
			.tern = bad[r] || outl[r]
		};

		k->tyok[ci] = !w.slen;
		k->tyfree[ci] = !bad[r] && !outl[r];
		if (!w.slen && !w.kern && !w.tern)
			continue;
		noslen_node(c->pred, &w);
		kp_stmts_each(c->stmts, c->nstmts, noslen_node, &w);
		/* an integer key reading args[N] (kstmt's kargs) has the
		 * type of the first plan that fixes it (kplan_emit.c's
		 * args_keys()): at a probe typing it apart the clause is
		 * user space's, which a clause so tied cannot be */
		for (unsigned i = 0; w.slen && i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];

			for (unsigned j = 0; st->kind == S_AGG && j < st->nkeys;
			     j++)
				if (st->keys[j]->kind != T_STR &&
				    kp_has_args(st->keys[j])) {
					k->noslen = xpush_room(
						k->noslen, k->nnoslen,
						sizeof(*k->noslen));
					k->noslen[k->nnoslen++] = st->keys[j];
				}
		}
	}
	free(par);
	free(owner);
	free(mark);
	free(bad);
	free(outl);
	free(apart);
}

bool kp_typed_ok(const struct d_kplan *k, unsigned clause)
{
	return k->tyok && clause < k->prog->nclauses && k->tyok[clause];
}

/* Is clause free to be user space's at a probe where a form typed per
 * probe does not type: kp_typed_ok() without one_typing()'s leave (no
 * chain of this-> variables to one that outlives a firing, no
 * speculation), so that such a probe refuses no event? */
bool kp_typed_free(const struct d_kplan *k, unsigned clause)
{
	return k->tyfree && clause < k->prog->nclauses && k->tyfree[clause];
}

bool kp_typed_node(const struct d_kplan *k, const struct node *n)
{
	for (unsigned i = 0; i < k->nnoslen; i++)
		if (k->noslen[i] == n)
			return false;
	return true;
}

/* A this-> variable the kernel keeps */
static bool this_kept(const struct d_kplan *k, unsigned v)
{
	return k->prog->vars[v].scope == SC_THIS &&
	       (k->vst[v] == KV_KERN || k->vst[v] == KV_SARG ||
		k->vst[v] == KV_STR);
}

bool d_kplan_kself(const struct d_kplan *k, unsigned clause)
{
	const struct d_prog *p = k->prog;
	bool *mark, any = false;

	if (!d_kplan_clause(k, clause) || !k->kv[clause])
		return false;
	mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	kp_clause_vars(p, &p->clauses[clause], mark);
	for (unsigned v = 0; v < p->nvars; v++)
		any |= mark[v] && p->vars[v].scope != SC_THIS &&
		       (k->vst[v] == KV_KERN || k->vst[v] == KV_SARG ||
			k->vst[v] == KV_STR);
	free(mark);
	return any;
}

/*
 * The closure over this-> variables at probe: one the kernel keeps
 * that a clause at cl[0..n) not here touches is user space's (uvar[],
 * uby[] the clause), and so is every clause touching it (here[] false,
 * why says), until nothing changes; mark is scratch
 */
static void this_closure(const struct d_kplan *k, const unsigned *cl,
			 unsigned n, bool *here, bool *uvar, unsigned *uby,
			 bool *mark, char (*why)[D_KPLAN_WHY])
{
	const struct d_prog *p = k->prog;
	bool changed = true;

	while (changed) {
		changed = false;
		for (unsigned i = 0; i < n; i++) {
			if (here[i] || !d_kplan_clause(k, cl[i]))
				continue;
			kp_clause_vars(p, &p->clauses[cl[i]], mark);
			for (unsigned v = 0; v < p->nvars; v++)
				if (mark[v] && !uvar[v] && this_kept(k, v)) {
					uvar[v] = true;
					uby[v] = cl[i];
				}
		}
		for (unsigned i = 0; i < n; i++) {
			if (!here[i])
				continue;
			kp_clause_vars(p, &p->clauses[cl[i]], mark);
			for (unsigned v = 0; v < p->nvars && here[i]; v++) {
				if (!mark[v] || !uvar[v])
					continue;
				here[i] = false;
				changed = true;
				if (why)
					snprintf(why[i], sizeof(why[i]),
						 "this->%s is user space's "
						 "there: clause %u",
						 p->vars[v].name, uby[v] + 1);
			}
		}
	}
}

/*
 * The first speculating clause at cl[0..n) reading a this-> variable
 * user space's there (uvar[]): its index in cl, the variable into *var;
 * n where none does (mark is scratch)
 */
static unsigned sout_user(const struct d_kplan *k, const unsigned *cl,
			  unsigned n, const bool *uvar, bool *mark,
			  unsigned *var)
{
	const struct d_prog *p = k->prog;

	for (unsigned i = 0; i < n; i++) {
		if (!d_kplan_sout(k, cl[i]))
			continue;
		kp_clause_vars(p, &p->clauses[cl[i]], mark);
		for (unsigned v = 0; v < p->nvars; v++)
			if (mark[v] && uvar[v]) {
				*var = v;
				return i;
			}
	}
	return n;
}

/* A sout or vin clause's values into t (plan_of()'s order) */
static bool kept_emit(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, struct ubpf_kplan *t)
{
	return d_kplan_sout(k, clause) ? d_kplan_sout_emit(k, clause, probe, t)
				       : d_kplan_vin_emit(k, clause, probe, t);
}

/*
 * The sout or vin clause cl[i], whose values (which the kernel must
 * compute) do not fit after the kernel's clauses before it at probe:
 * where they fit a plan of their own, the kernel's clause nearest
 * before it that keeps no variable outliving a firing, is no
 * speculation of the kernel's (which user space cannot run instead:
 * d_kplan_kself(), d_kplan_kspec_clause()) and whose this-> closure
 * (this_closure(), from uvar[], the variables user space's so far)
 * reaches no variable a speculating clause at probe reads (which would
 * refuse the event: sout_user()) is user space's at probe; false where
 * none is (plan_of() then refuses the event)
 */
static bool kept_room(const struct d_kplan *k, const unsigned *cl, unsigned n,
		      unsigned i, const struct d_probe *probe, bool *here,
		      const bool *uvar, char (*why)[D_KPLAN_WHY])
{
	unsigned nv = k->prog->nvars ? k->prog->nvars : 1, var;
	struct ubpf_kplan *a = xcalloc(1, sizeof(*a));
	bool alone = kept_emit(k, cl[i], probe, a), found = false;
	bool *h = xcalloc(n, sizeof(*h));
	bool *u = xcalloc(nv, sizeof(*u));
	bool *mark = xcalloc(nv, sizeof(*mark));
	unsigned *uby = xcalloc(nv, sizeof(*uby));

	free(a);
	for (unsigned j = i; alone && !found && j-- > 0;) {
		if (!here[j] || d_kplan_kself(k, cl[j]) ||
		    d_kplan_kspec_clause(k, cl[j]))
			continue;
		memcpy(h, here, n * sizeof(*h));
		memcpy(u, uvar, nv * sizeof(*u));
		h[j] = false;
		this_closure(k, cl, n, h, u, uby, mark, NULL);
		if (sout_user(k, cl, n, u, mark, &var) < n)
			continue;
		here[j] = false;
		found = true;
		if (why)
			snprintf(why[j], sizeof(why[j]),
				 "the probe's plan has no room for clause "
				 "%u's values after it, which the kernel must "
				 "compute (%s)",
				 cl[i] + 1,
				 d_kplan_sout(k, cl[i]) ? "speculating"
							: "its self-> values");
	}
	free(h);
	free(u);
	free(mark);
	free(uby);
	return found;
}

bool d_kplan_here(const struct d_kplan *k, const struct d_probe *probe,
		  const unsigned *cl, unsigned n, bool *here,
		  char (*why)[D_KPLAN_WHY])
{
	const struct d_prog *p = k->prog;
	unsigned nv = p->nvars ? p->nvars : 1;
	bool *mark = xcalloc(nv, sizeof(*mark));
	bool *uvar = xcalloc(nv, sizeof(*uvar));   /* user space's at probe */
	unsigned *uby = xcalloc(nv, sizeof(*uby)); /* ... for this clause */
	struct ubpf_kplan *t = xcalloc(1, sizeof(*t));
	char w[D_KPLAN_WHY];
	bool room = false, ok;
	unsigned nx = 0, si, var = 0;

	for (unsigned i = 0; i < n; i++)
		nx += d_kplan_xclause(k, cl[i]);

	for (unsigned i = 0; i < n; i++) {
		w[0] = '\0';
		here[i] = d_kplan_clause(k, cl[i]) &&
			  d_kplan_fits(k, cl[i], probe, w, sizeof(w));
		if (why)
			snprintf(why[i], sizeof(why[i]), "%s",
				 d_kplan_clause(k, cl[i]) ? w : "");
	}
	while (!room) {
		/* the closure over this-> variables */
		this_closure(k, cl, n, here, uvar, uby, mark, why);
		/* the room: the clauses in one plan, as plan_of() makes it
		 * (its gates after them are not needed: they go first) */
		room = true;
		memset(t, 0, sizeof(*t));
		for (unsigned i = 0; i < n && room; i++) {
			if (here[i]) {
				/* (the copies ahead's room, R2: that reason,
				 * kplan_emit.c's clause_emit()) */
				static const char room_r[] =
					"the probe's plan has no room to copy";

				w[0] = '\0';
				if (kp_clause_try(k, cl[i], probe, t, w,
						  sizeof(w)))
					continue;
				here[i] = false;
				room = false;
				if (why &&
				    !strncmp(w, room_r, sizeof(room_r) - 1))
					snprintf(why[i], sizeof(why[i]), "%s",
						 w);
				else if (why)
					snprintf(why[i], sizeof(why[i]),
						 "its instructions do not fit "
						 "the probe's plan beside the "
						 "clauses before it");
			} else if (d_kplan_sout(k, cl[i]) ||
				   d_kplan_vin(k, cl[i])) {
				if (!kept_emit(k, cl[i], probe, t) &&
				    kept_room(k, cl, n, i, probe, here, uvar,
					      why))
					room = false;
			} else if (i + 1 < n && d_kplan_xclause(k, cl[i]) &&
				   !d_kplan_xend(k, cl[i], probe, t, nx > 1)) {
				/* the winner's end, as plan_of() emits it:
				 * without it no clause after is here */
				for (unsigned j = i + 1; j < n; j++) {
					if (!here[j])
						continue;
					here[j] = false;
					room = false;
					if (why)
						snprintf(why[j], sizeof(why[j]),
							 "the probe's plan has "
							 "no room for clause "
							 "%u's exit() before "
							 "it",
							 cl[i] + 1);
				}
			}
		}
	}
	/* a speculating clause whose values read one that is not here:
	 * why says, at the clause */
	si = sout_user(k, cl, n, uvar, mark, &var);
	if (si < n && why)
		snprintf(why[si], sizeof(why[si]),
			 "clause %u, whose speculated values the kernel must "
			 "compute, reads this->%s, which is user space's "
			 "there (clause %u)",
			 cl[si] + 1, p->vars[var].name, uby[var] + 1);
	ok = si == n;
	free(mark);
	free(uvar);
	free(uby);
	free(t);
	return ok;
}
