// SPDX-License-Identifier: MIT
/*
 * kplan_spec.c - clauses with speculation(), speculate(), commit() or
 * discard(): which speculating clauses have their values (and
 * predicate) computed at the probe (d_kplan_sout(), d_kplan_spred(),
 * kp_sout_here(); kplan_vars.c's sout_ok() and spred_ok()), why another
 * is not (d_kplan_spec_why()), and which read the process late
 * (d_kplan_specs_late()), and the speculations the kernel runs whole
 * (d_kplan_kspec(), below).
 *
 * Speculations.  speculation(), speculate(), commit() and discard()
 * are user space's (../d/spec.c keeps the buffers; kp_stmt_ok() takes
 * none of them, kp_ty() no speculation()), so a clause with one runs
 * from the hit's record, and kp_vars_decide() gives user space every
 * variable it touches (the ID's self->s; a sout clause's values',
 * below, stay the kernel's) and every clause touching those.  The
 * program's other clauses still run in the kernel
 * (kplan.c's stmts_stop() lets the three statements through): a speculation
 * reads no aggregation and stops nothing, and what it moves is output
 * only -- a clause's record into a buffer, a buffer's into the output
 * at the commit() -- which user space makes from the records in time
 * order, clause by clause, as it prints the kernel's printf() values
 * (records.c, cgen_out.c): the same order with or without the kernel.
 * -v says how many such clauses there are (bpf_agg_cgen.c).
 *
 * What user space cannot do is read the process at the hit.  So a
 * speculating clause of the common shape, speculate(E) and then
 * printf() and trace() only (kplan_vars.c's sout_ok(), k->sout), has
 * its values computed in the generated program, at the probe, as a
 * kernel clause's printf() has (kplan_out.c: OUT, OSTR, OVSTR into the
 * record's out area, then ODONE; kplan_emit.c emits no predicate for
 * it, d_kplan_sout_emit()), while user space runs the rest from the
 * record in time order as before: its predicate, then speculate(E),
 * then the printf() and trace() from the area's values
 * (d_kplan_out_run(), ../d/stmt.c's d_run_spec()).  Why that is exact:
 *  - The buffers, IDs, drops and the order of the output are user
 *    space's, made from the records in time order, as above: nothing
 *    of them moved.
 *  - The values are the kernel's, computed at the clause's place among
 *    the probe's kernel clauses: every variable they read is the
 *    kernel's (kp_out_ok() takes no other), and those only kernel
 *    clauses write, in program order, so each has the value the
 *    clause would have read at the hit; they store nothing and cannot
 *    fault but by a copy, which the area records.
 *  - The kernel computes them whether or not the predicate holds
 *    (nothing it does is seen but through the area): E is user
 *    space's and so is the predicate, but for the case below; they
 *    read no variable the kernel keeps (kp_vars_decide() takes theirs
 *    away from it, as a user space clause's), store nothing and read
 *    no memory by an address (kp_sout_here()), so they give what they
 *    gave at the hit.  A copy
 *    that faulted at the hit faults where the clause reads it: after
 *    the predicate held and speculate() ran (an ID past nspec faults
 *    first), at its argument's action number, and not at all when the
 *    predicate failed (tests/run-cgen-spec.sh's flt.d).  As at the
 *    hit in DTrace, a string not in memory then (a path in a
 *    library's read-only data at its first openat(), no page yet) is
 *    such a fault, where the user space path read it when dtrace ran
 *    the record.
 *  - A hit whose record comes unflagged (a process not armed, a fault
 *    that ends the plan) runs every clause in user space, as for any
 *    kernel clause; one keeping self-> variables puts the program in
 *    fault mode (kp_vars_decide()'s tls) as a kernel clause does, and
 *    where the values do not fit a probe's plan the event is refused
 *    (UBPF_KTLS_UNFIT, bpf_agg.c's plan_of()): the walk of the area
 *    would not know; kplan_here.c's kept_room() makes them room first
 *    where a kernel clause before them can be user space's there.
 *    No sout clause where a horizon may send a hit's clauses to user
 *    space.
 *  - Where: every probe the clause may fire at runs a generated
 *    program whose record can carry the area (kplan_out.c's
 *    kp_sout_where(): bpf_agg_cgen.c's traced_clause(), k->traced).  A
 *    uprobe site's (USDT, pid) puts it after the uid and gid; a kernel
 *    probe's own program (syscall, on the call's tracepoint or the raw
 *    ones, shared or not; profile-N; proc: cgen_kprov.c) after its
 *    kctx, arguments and vtimestamp, where kprov.c's kprov_hit() reads
 *    it (they are the same clauses: the plan, its ODONE bits and
 *    dtrace's walk of them, cgen_out.c's cg_out_run(), know no
 *    provider).  A program the raw tracepoints' calls share (cgen_kprov.c's
 *    kp_ident()) is exact too: programs are shared only where their
 *    instructions, so their plans, are the same, and dtrace walks the
 *    area by the probe the record names.  tick-N fires in dtrace with
 *    no program (kprov_tick_clause()), BEGIN, END and ERROR too: a
 *    clause that may fire there stays on the user space path, where
 *    those run exactly (nothing to read at a hit).  An ordinary
 *    printf() clause the kernel runs has the same area at the same
 *    probes (kplan_out.c's kp_out_ok()).
 * A predicate that is an integer the kernel computes and that cannot
 * fault (kplan_vars.c's spred_ok(): kp_ty(), no copy, no string, no
 * division but by a constant other than 0, nothing stored), the
 * kernel computes too (k->spred): its value, an OUT, is the area's
 * first 8 bytes, before the clause's values, and user space tests
 * its truth (d_kplan_out_run(), d_run_spec()'s truth) rather than the
 * predicate.  Its variables then stay the kernel's (kp_vars_decide()
 * marks E's only for user space), so `/self->ts/` or `/self->j == 2/`
 * of a variable a kernel clause stores keeps that clause in the
 * kernel: before, the predicate took the variable to user space, and
 * with it the clause storing it, every clause touching those, and so
 * often the speculating clause's own values (copyinstr(self->p) of
 * an address a clause tied so kept: read late; tests/run-cgen-spec.sh's
 * late2.d).  Exact as the values are: computed at the clause's place
 * among the probe's kernel clauses, it reads what the interpreter
 * would have read at the hit, and, storing nothing and unable to
 * fault, it changes nothing by being computed on every hit.  E stays
 * user space's: it reads an ID speculation() returned, which only
 * user space has.
 * -v says how many speculating clauses print so, how many of them
 * have their predicate computed so, why each other clause with
 * speculate() is not one of them (d_kplan_spec_why(): a store, a
 * statement before speculate() or other than printf() and trace()
 * after it, a predicate or E reading memory by an address, a value
 * the kernel does not compute, a strsize that may change:
 * kp_sout_where()), and how many still read late: a
 * speculated clause on the user space path reads the process when
 * dtrace runs its record, not at the hit
 * (copyinstr(self->p) of an address kept at an earlier probe may find
 * new bytes, or a thread gone, where DTrace reads at the probe; the
 * strings of the probe's own arguments the record carries), and -v
 * says how many of them read so, and how many of the clauses tied to
 * them by a self-> or this-> variable that runs in user space with them
 * (kp_vars_decide(); bpf_agg_cgen.c counts only those the plan left out of
 * the kernel; tied.d) (d_kplan_specs_late(): copyinto(), or
 * copyin() or copyinstr() of other than an argument, member access
 * and * through a pointer reading copyin()'s bytes, in a clause that
 * is not a sout one: one whose predicate or E reads so, or whose
 * values the kernel cannot compute; tests/run-cgen-spec.sh's latep.d).
 *
 * Speculations in the kernel (doc/DESIGN.md's "Speculations in the
 * kernel: the build in steps", step 3; d_kplan_kspec()).  All or
 * nothing for the program: where kp_kspec_pre() holds (nspec at most
 * UBPF_KSPECS; no -F, whose indent depends on the records before in
 * time order, where a held record is made ahead of its place; no
 * setopt(): the held text is made with the options fixed at compile
 * time, the default line and the JSON record (step 4) from the hit's
 * CPU and probe alone, which a held record has; no horizon; no exit()
 * decided at the hit, k->kexit: the hits the kernel lets through
 * before it run after it,
 * under records.c's kdrain, where the reading rule's pass has handed
 * them over already; every speculating clause fires
 * only where a generated program runs, k->traced: uprobe sites and,
 * step 5, the kernel providers' probes with a program of their own
 * (syscall, profile-N, proc: their records carry the area after the
 * kctx, the arguments and vtimestamp, bpf.c's rec_kout_at(), and name
 * their probe by its index, bpf_kspec_fire()), not at BEGIN, END,
 * ERROR or tick-N;
 * kspec_shape(): speculation() only as the whole value of a top-level
 * `v = ` into a self-> or this-> variable, speculate() after statements
 * that record nothing (../d/compile.c's spec_rules(): stores,
 * aggregations, ifs of them, which the kernel runs as in any kernel
 * clause; a fault there jumps to the clause's end, its tag unreached,
 * reported at the hit's place as any site's) and then any statement the
 * kernel runs (kp_stmt_ok(), kp_out_ok(): strings, string functions,
 * stores; step 4's *Strings*) but ustack() and jstack() and args[N]
 * printed as a string (out_kept()), or nothing (its record the default
 * line, the JSON record, or empty under -q, held as any; an empty one
 * never a drop, and printed as nothing), the four under
 * an if too (a step in a branch reached or not, as its tag says;
 * kp_if_out() gives such an if a slot, and d_kplan_kspec_tags() walks
 * the branches as out_list() does; where the clause prints, an
 * unreached speculate() leaves its record its own, printed at its
 * place: step 4's *Steps in a branch*), an ID
 * an integer that reads no memory, stores nothing and cannot fault; a
 * clause that takes or closes and prints has a record of its own, step
 * 4's *Own records*: cgen_out.c's kspec_own() prints it at the hit's
 * place, before the closes are run, where no speculate() was reached
 * and the clause ran to its end with no fault, or faulted after a
 * commit() that found its buffer active, as ../d/stmt.c's commit() at
 * the statement), d_kplan_new()
 * decides the variables with k->kspec on: kp_stmt_ok() takes the four
 * (struct kstmt's spec; speculation() types its variable an int,
 * kplan_vars.c's kp_stores_type()), so they are kernel clauses like any
 * other, and kp_vars_decide() puts the plan in the mode that sends no
 * armed hit to user space whole (as for self-> variables: user space
 * would step buffers the kernel counts).  kp_kspec_post() then asks
 * that every speculating clause did end up the kernel's, with no
 * count() keyed by the user stack (dtrace updates it from the record,
 * d_stmt_ukey(), which a speculating clause's place does not) and no
 * clause that records a user stack, kspec_plan_why(), and numbers
 * the fault sites of speculate(), commit() and discard() (an ID past
 * nspec: DTrace's illegal operation at the statement, spec_sites());
 * else the decision is made again without, as before, and -v says the
 * first test that failed (d_kplan_kspec_why()).  The plan's
 * instructions (kplan_stmt.c's emit_stmt(): SPEC then the store's VST;
 * SPECU; SPECX) each write a 16-byte tag into the clause's out area
 * (kplan_out.c's kp_out_op(), list_bytes()), which cgen_spec.c's steps
 * fill on the map cgspec's words (bpf_agg_cgen.c makes it, and the
 * barrier's maps); dtrace hands the tags to ../d/spec.c's held
 * generations in the reading rule's order (records.c's read_round(),
 * kspec_read.c; cgen_out.c's cg_kspec_run() and cg_kspec_pass()), the
 * held text made from the area's values (d_kplan_kspec_text(),
 * ../d/stmt.c's d_run_kspec()).  The clause's ODONE marks its reached
 * tags UBPF_KSPEC_WHOLE (cgen_out.c): a fault after speculate() (a
 * site's jump, a copy's) leaves the tag reached but not whole, and the
 * record is a hole (no text, no byte of specsize), as is one whose
 * area's walk meets a copy's fault (kplan_out.c's hold mode); the fault
 * is reported once, at the hit's place (cg_kspec_run()).  After a
 * commit() or discard(), any statement the kernel runs may follow (step
 * 4, doc/DESIGN.md): the words step at the statement and ../d/stmt.c
 * closes there too, and a clause's tags are handed over in the order of
 * its statements, so a close and then a take in one hit close the
 * generation first and open the next at the count the close found
 * (../d/spec.c's closing() picks the older one: the generations sorted
 * by c0, the closes in hand by n); a second close finds the word
 * inactive and is not handed over; a fault after a close leaves its tag
 * reached, handed over at the place before the fault is reported, as
 * ../d/stmt.c prints a commit() and then the fault.  What stays user
 * space's (the sout path above, or the records): the other shapes
 * (kspec_shape()'s), BEGIN, END, ERROR and tick-N (slice 2).
 *
 * Also left, user space's with -v saying why
 * (d_kplan_spec_why()): a speculating clause with a store (DTrace
 * allows stores there: only aggregations, destructive actions and
 * exit() may not follow speculate(), which ../d refuses too; the
 * kernel would have to make the store only where the predicate holds
 * and speculate()'s ID is not past nspec, which it cannot know before
 * dtrace runs the record: the ID is user space's); a predicate or E
 * that reads memory by an address or compares strings
 * (copyinstr(self->p) != "": a compare's fault sites are the hit's,
 * while this fault must be reported only where dtrace runs the
 * record, at action 0; latep.d); a predicate reading a variable user
 * space keeps (speculation()'s ID: then the whole predicate is user
 * space's, and the kernel variables it reads go there too); and E
 * reading a variable the kernel keeps (E is user space's: its
 * variables go there).  Where these read the process late, -v says
 * so (above).
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
#include "text.h"

/* Does n call speculation()? */
static bool is_spec(const struct node *n)
{
	return n->op == N_FUNC && d_funcs[n->sub].id == F_SPECULATION;
}

static bool node_spec(const struct node *n)
{
	return kp_node_any(n, is_spec);
}

/* speculation(), speculate(), commit() or discard() in v[0..n) */
static bool stmts_spec(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];

		if (st->kind == S_SPECULATE || st->kind == S_COMMIT ||
		    st->kind == S_DISCARD || node_spec(st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_spec(st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_spec(st->keys[j]))
				return true;
		if (st->kind == S_IF && (stmts_spec(st->body, st->nbody) ||
					 stmts_spec(st->els, st->nels)))
			return true;
	}
	return false;
}

bool d_kplan_specs(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	return node_spec(c->pred) || stmts_spec(c->stmts, c->nstmts);
}

/*
 * Does n read the traced process's memory by an address when it is
 * evaluated: copyinto(), copyin() of anything but argN (whose bytes
 * the record may carry: bpf.c's ev_mem(), mem.c's d_copyin()), or
 * copyinstr() of anything but an argument (arg0..arg11, args[N]),
 * whose string the record carries (run.c's d_arg_str())?  Member
 * access and * through a pointer read copyin()'s bytes (mem.c), so
 * copyin() covers them.
 */
static bool node_late(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_FUNC) {
		int id = d_funcs[n->sub].id;

		if (id == F_COPYINTO ||
		    (id == F_COPYIN && n->nargs && n->args[0]->op != N_ARGN))
			return true;
		if (id == F_COPYINSTR && n->nargs && n->args[0]->op != N_ARGN &&
		    n->args[0]->op != N_ARGS)
			return true;
	}
	if (node_late(n->a) || node_late(n->b) || node_late(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_late(n->args[i]))
			return true;
	return false;
}

static bool stmts_late(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];

		if (node_late(st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_late(st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_late(st->keys[j]))
				return true;
		if (st->kind == S_IF && (stmts_late(st->body, st->nbody) ||
					 stmts_late(st->els, st->nels)))
			return true;
	}
	return false;
}

bool kp_late(const struct clause *c)
{
	return node_late(c->pred) || stmts_late(c->stmts, c->nstmts);
}

/*
 * Which clauses are tied to one with speculations: does a clause touch
 * a self-> or this-> variable one of them touches, or one a clause so
 * tied touches?  kp_vars_decide() gives user space every variable a
 * clause it runs touches and every clause touching those, so such a
 * clause runs from the records too.  dtrace:::BEGIN and END clauses
 * are dtrace's own (kp_vars_decide() leaves their variables alone).
 * A sout clause's value variables stay the kernel's, so a clause tied
 * through one of them may run in the kernel: the caller asks the plan
 * (bpf_agg.c's d_kplan_clause()).  The closure is over the whole
 * program, so it is computed once, into tied[] (p->nclauses), at
 * d_kplan_specs_late()'s first ask, not once a clause.
 */
static void specs_tied(const struct d_prog *p, bool *tied)
{
	bool *vars, *mark, changed = false;
	size_t nv = p->nvars ? p->nvars : 1;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		tied[ci] = d_kplan_specs(p, ci) &&
			   !kp_dtrace_only(&p->clauses[ci]);
		changed |= tied[ci];
	}
	/* no speculating clause: none is tied (the walk below would
	 * find none) */
	if (!changed)
		return;
	vars = xcalloc(nv, sizeof(*vars));
	mark = xcalloc(nv, sizeof(*mark));
	while (changed) {
		changed = false;
		for (unsigned ci = 0; ci < p->nclauses; ci++) {
			bool shares = false;

			if (kp_dtrace_only(&p->clauses[ci]))
				continue;
			kp_clause_vars(p, &p->clauses[ci], mark);
			for (unsigned v = 0; v < p->nvars; v++)
				mark[v] = mark[v] &&
					  p->vars[v].scope != SC_GLOBAL &&
					  p->vars[v].scope != SC_ASSOC;
			for (unsigned v = 0; v < p->nvars; v++)
				shares |= mark[v] && vars[v];
			if (!tied[ci] && !shares)
				continue;
			changed |= !tied[ci];
			tied[ci] = true;
			for (unsigned v = 0; v < p->nvars; v++) {
				changed |= mark[v] && !vars[v];
				vars[v] |= mark[v];
			}
		}
	}
	free(vars);
	free(mark);
}

/* Does n store anything (=, the compound ones, ++, --)? */
static bool node_stores(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_ASSIGN || n->op == N_INCDEC)
		return true;
	if (node_stores(n->a) || node_stores(n->b) || node_stores(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_stores(n->args[i]))
			return true;
	return false;
}

bool kp_sout_here(const struct node *n)
{
	return !node_spec(n) && !node_late(n) && !node_stores(n);
}

bool d_kplan_sout(const struct d_kplan *k, unsigned clause)
{
	return k && k->sout && clause < k->prog->nclauses && k->sout[clause];
}

bool d_kplan_spred(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_sout(k, clause) && k->spred && k->spred[clause];
}

/* Does v[0..n) hold a statement that stores (outside its keys)? */
static bool stmts_store(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (node_stores(v[i].e) || stmts_store(v[i].body, v[i].nbody) ||
		    stmts_store(v[i].els, v[i].nels))
			return true;
		for (unsigned j = 0; j < v[i].nargs; j++)
			if (node_stores(v[i].args[j]))
				return true;
	}
	return false;
}

const char *d_kplan_spec_why(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c;
	const struct node *e;
	bool spec = false, first;

	if (!k || clause >= k->prog->nclauses || d_kplan_sout(k, clause) ||
	    d_kplan_clause(k, clause))
		return NULL;
	c = &k->prog->clauses[clause];
	for (unsigned i = 0; i < c->nstmts; i++)
		spec |= c->stmts[i].kind == S_SPECULATE;
	if (!spec || kp_dtrace_only(c))
		return NULL; /* commit(), discard(), speculation(): dtrace's */
	first = c->stmts[0].kind == S_SPECULATE;
	e = first ? c->stmts[0].e : NULL;
	if (!k->vars)
		return "no variable is the kernel's in this plan";
	if (stmts_store(c->stmts, c->nstmts) || node_stores(c->pred))
		return "it stores a variable (a store the kernel would have "
		       "to make only where the predicate holds and "
		       "speculate() does not fault)";
	if (!first)
		return "a statement before speculate()";
	if (node_spec(c->pred) || node_spec(e))
		return "its predicate or speculate()'s argument calls "
		       "speculation()";
	if (node_late(c->pred) || node_late(e))
		return "its predicate or speculate()'s argument reads the "
		       "process's memory by an address";
	for (unsigned i = 1; i < c->nstmts; i++)
		if (c->stmts[i].kind != S_PRINTF && c->stmts[i].kind != S_TRACE)
			return "a statement other than printf() and trace() "
			       "after speculate()";
	if (k->user && k->user[clause])
		return "it fires in user space (dtrace:::ERROR), or it "
		       "calls exit(), which dtrace runs from the record";
	if (k->horizon)
		return "a hit may go to user space past the horizon";
	if (kp_sout_where(k, clause))
		return kp_sout_where(k, clause);
	return "a printf() or trace() value the kernel does not compute "
	       "(a string it does not copy, a variable user space keeps, "
	       "more than the out area holds)";
}

bool d_kplan_late(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	return node_late(c->pred) || stmts_late(c->stmts, c->nstmts);
}

bool d_kplan_specs_late(struct d_kplan *k, unsigned clause)
{
	const struct d_prog *p = k->prog;
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	/* the walk first: specs_tied() is the closure over the program,
	 * made at the first clause that reads late and kept in the plan */
	if (!node_late(c->pred) && !stmts_late(c->stmts, c->nstmts))
		return false;
	if (d_kplan_specs(p, clause))
		return true;
	if (!k->tied) {
		k->tied = xcalloc(p->nclauses, sizeof(*k->tied));
		specs_tied(p, k->tied);
	}
	return k->tied[clause];
}

/* ------------------------------------------------------------------ */
/* Speculations in the kernel (doc/DESIGN.md's "Speculations in the
 * kernel: the build in steps", step 3; the comment of d_kplan_kspec()
 * in kplan.h) */

int kp_spec_take_var(const struct stmt *st)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || e->sub != '=' ||
	    !e->a || e->a->op != N_VAR || !e->b || e->b->op != N_FUNC ||
	    d_funcs[e->b->sub].id != F_SPECULATION)
		return -1;
	return e->a->sub;
}

int kp_spec_stmt(const struct d_kplan *k, const struct stmt *st)
{
	if (!k->kspec)
		return KS_NONE;
	switch (st->kind) {
	case S_SPECULATE:
		return KS_STEP;
	case S_COMMIT:
		return KS_COMMIT;
	case S_DISCARD:
		return KS_DISCARD;
	default:
		return kp_spec_take_var(st) >= 0 ? KS_TAKE : KS_NONE;
	}
}

/* Can n not fault, computed by the kernel: constants, arguments, the
 * variables it keeps (integers), pid, tid and the like, and operators
 * but division and remainder (by a constant other than 0 only), casts
 * and ?:; no copy, no string, no vtimestamp (a lost clock faults) */
bool kp_node_safe(const struct node *n)
{
	if (!n)
		return true;
	switch (n->op) {
	case N_INT:
	case N_ARGN:
		return true;
	case N_VAR:
		return n->kind != T_STR;
	case N_BUILTIN:
		return n->kind != T_STR &&
		       d_builtins[n->sub].id != B_VTIMESTAMP;
	case N_BIN:
		if ((n->sub == '/' || n->sub == '%') &&
		    (!n->b || n->b->op != N_INT || !n->b->ival))
			return false;
		/* fall through */
	case N_UN:
	case N_LAND:
	case N_LOR:
	case N_LXOR:
	case N_TERN:
	case N_CAST:
		return n->kind != T_STR && kp_node_safe(n->a) &&
		       kp_node_safe(n->b) && kp_node_safe(n->c);
	default:
		return false;
	}
}

/* A printf() or trace() value of st that stays out of a speculating
 * clause in the kernel, why; else NULL.  Every other value kp_out_ok()
 * takes may follow speculate() (doc/DESIGN.md's step 4, *Strings*) */
static const char *out_kept(const struct stmt *st)
{
	if (st->kind != S_PRINTF && st->kind != S_TRACE)
		return NULL;
	for (unsigned j = 0; j < kp_out_nargs(st); j++) {
		if (kp_out_stk(kp_out_node(st, j)))
			return "ustack() or jstack() in a speculating clause "
			       "(cgen.c refuses a record with both fault bits "
			       "and a stack)";
		if (kp_out_sarg(st, j) >= 0)
			return "args[N] printed as a string in a speculating "
			       "clause (its plan is per probe: "
			       "kp_out_sarg_ok())";
	}
	return NULL;
}

/* Is the ID n one of spred_ok()'s kind before the decision (an integer,
 * nothing stored, read by an address, no speculation())? */
static bool id_ok(const struct node *n)
{
	return n && n->kind != T_STR && kp_sout_here(n) && kp_node_safe(n);
}

/* Statements v[0..n) of a clause, an if's branches in their place: NULL
 * where they may be the kernel's, else why not */
static const char *shape_list(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];
		const char *why;

		if (kp_spec_take_var(st) >= 0)
			continue;
		if (st->kind == S_SPECULATE) {
			if (!id_ok(st->e))
				return "speculate()'s ID is not an integer "
				       "the kernel computes without a fault";
			continue;
		}
		if (st->kind == S_COMMIT || st->kind == S_DISCARD) {
			if (!id_ok(st->e))
				return "commit()'s or discard()'s ID is not "
				       "an integer the kernel computes "
				       "without a fault";
			continue;
		}
		if (out_kept(st))
			return out_kept(st);
		if (node_spec(st->e))
			return "speculation() not as the whole value of a "
			       "store into a self-> or this-> variable";
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_spec(st->args[j]))
				return "speculation() not as the whole value "
				       "of a store";
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_spec(st->keys[j]))
				return "speculation() not as the whole value "
				       "of a store";
		if (st->kind == S_IF &&
		    ((why = shape_list(st->body, st->nbody)) ||
		     (why = shape_list(st->els, st->nels))))
			return why;
	}
	return NULL;
}

/* Clause c's shape (d_kplan_kspec()): NULL where it may be the kernel's,
 * else why not.  A step in a branch is reached or not, its tag says
 * (act 0 where not: cgen_out_ktags()); where the clause prints, an
 * unreached speculate() leaves its record the clause's own, printed at
 * its place (cgen_out.c's kspec_own(), doc/DESIGN.md's "Own records"). */
static const char *kspec_shape(const struct clause *c)
{
	if (node_spec(c->pred))
		return "its predicate calls speculation()";
	return shape_list(c->stmts, c->nstmts);
}

/* Does clause c of p touch a self-> variable? */
static bool kspec_self(const struct d_prog *p, const struct clause *c)
{
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool r = false;

	kp_clause_vars(p, c, mark);
	for (unsigned v = 0; v < p->nvars; v++)
		r |= mark[v] && (p->vars[v].scope == SC_SELF ||
				 p->vars[v].scope == SC_SELFASSOC);
	free(mark);
	return r;
}

/* Does a clause of p that may fire at a uprobe site touch a self->
 * variable (cgen_kprov.c's kp_tlsu(): a thread whose first such hit
 * came before its process was armed keeps them in user space, cgtlsu,
 * and every plan keeping self-> variables sends its hits unflagged)? */
static bool usite_self(const struct d_prog *p)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (!kp_dtrace_only(&p->clauses[ci]) &&
		    kp_usite_clause(&p->clauses[ci]) &&
		    kspec_self(p, &p->clauses[ci]))
			return true;
	return false;
}

bool kp_kspec_pre(struct d_kplan *k, const bool *traced)
{
	const struct d_prog *p = k->prog;
	bool any = false, usite;

	k->kspec = false;
	k->kswhy = NULL;
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		any |= d_kplan_specs(p, ci);
	if (!any)
		return false;
	if (!k->vars || !traced)
		k->kswhy = "no generated program runs the clauses";
	else if (p->nspec > UBPF_KSPECS)
		k->kswhy = "nspec is past 64, the most the kernel keeps";
	else if (p->flowindent)
		k->kswhy = "-F indents by the records before it in time order; "
			   "held records are made ahead of their place";
	else if (!kp_strsize_fixed(k))
		k->kswhy = "setopt() may change the options the held records "
			   "are made with";
	else if (k->horizon)
		k->kswhy = "a hit may go to user space past the horizon";
	else if (k->kexit)
		k->kswhy = "exit() is decided at the hit (the hits the kernel "
			   "lets through before it run after it: a later "
			   "step)";
	if (k->kswhy)
		return false;
	usite = usite_self(p);
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		const char *why;

		if (!d_kplan_specs(p, ci))
			continue;
		if (kp_dtrace_only(c) || !traced[ci] ||
		    (k->user && k->user[ci]))
			why = "it may fire where no generated program runs "
			      "(dtrace's own probes, tick-N: a later step)";
		else if (kp_profile_clause(c))
			why = "it may fire at profile-N, whose sample may run "
			      "inside another program on its CPU after that "
			      "hit's stamp and before its step, so the buffers "
			      "would not be stepped in time order (a later "
			      "step)";
		else if (usite && !kp_uprobes_only(c) && kspec_self(p, c))
			why = "it keeps self-> variables at a kernel probe "
			      "beside clauses keeping them at uprobe sites: a "
			      "process that hits one before it is armed keeps "
			      "its self-> variables in user space for its "
			      "life, and its records at kernel probes would "
			      "step no buffer (a later step)";
		else
			why = kspec_shape(c);
		if (why) {
			snprintf(k->kswbuf, sizeof(k->kswbuf), "clause %u: %s",
				 ci + 1, why);
			k->kswhy = k->kswbuf;
			return false;
		}
	}
	k->kspec = true;
	return true;
}

/* The fault sites of speculate(), commit() and discard() (an ID past
 * nspec: DTrace's illegal operation at the statement's action), after
 * the first nfs */
static bool spec_sites(struct d_kplan *k, unsigned nfs)
{
	const struct d_prog *p = k->prog;

	k->nfs = nfs;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (!k->ok[ci])
			continue;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct kstmt *ks = &k->st[k->first[ci] + i];

			if (ks->spec != KS_STEP && ks->spec != KS_COMMIT &&
			    ks->spec != KS_DISCARD)
				continue;
			if (!kp_fsite_add(k, c->flat[i]->e, ci,
					  c->flat[i]->action, 0, KFS_ILLOP, 0))
				return false;
		}
	}
	return true;
}

/* Clause ci's plan (kp_kspec_post()): NULL where its speculations may
 * be the kernel's, else why not.  d_run_kspec() may run ahead of the
 * place and runs no aggregation, so one dtrace updates from the record
 * (d_stmt_ukey()) would never be made.  A string stored from a copy
 * (SSTR) is taken: its fault is the site's or the area's, which
 * cg_kspec_run() reports at the place (step 4's part B). */
static const char *kspec_plan_why(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	for (unsigned i = 0; i < c->nflat; i++)
		if (d_stmt_ukey(k->prog, c->flat[i]))
			return "an aggregation keyed by the user stack, "
			       "which dtrace updates from the record";
		else if (d_stmt_uname(k->prog, c->flat[i]) ||
			 d_stmt_ucall(k->prog, c->flat[i]))
			return "an aggregation keyed by a user address's "
			       "name, which dtrace updates from the record";
		else if (d_stmt_pkey(k->prog, c->flat[i]))
			return "an aggregation keyed by "
			       "curpsinfo->pr_psargs, which dtrace updates "
			       "from the record";
	return NULL;
}

bool kp_kspec_post(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	if (!k->kspec)
		return false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		char why[256];
		const char *w;

		if (!d_kplan_specs(p, ci))
			continue;
		if (k->ok[ci] && (w = kspec_plan_why(k, ci))) {
			snprintf(k->kswbuf, sizeof(k->kswbuf), "clause %u: %s",
				 ci + 1, w);
			k->kswhy = k->kswbuf;
			return false;
		}
		if (k->ok[ci])
			continue;
		if (!d_kplan_why(k, ci, why, sizeof(why)))
			snprintf(why, sizeof(why), "%s",
				 "the kernel does not run it whole");
		snprintf(k->kswbuf, sizeof(k->kswbuf),
			 "clause %u is not the kernel's: %s", ci + 1, why);
		k->kswhy = k->kswbuf;
		return false;
	}
	if (!spec_sites(k, k->fmode || k->mfault || k->bfault || k->vfault
				   ? k->nfs
				   : 0)) {
		k->kswhy = "more fault sites than the record has bits for";
		return false;
	}
	return true;
}

bool d_kplan_kspec(const struct d_kplan *k)
{
	return k && k->kspec;
}

const char *d_kplan_kspec_why(const struct d_kplan *k)
{
	return k && !k->kspec ? k->kswhy : NULL;
}

unsigned d_kplan_kspec_n(const struct d_kplan *k)
{
	return k->prog->nspec;
}

bool d_kplan_kspec_clause(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_kspec(k) && clause < k->prog->nclauses &&
	       d_kplan_specs(k->prog, clause);
}
