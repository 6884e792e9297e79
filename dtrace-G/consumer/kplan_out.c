// SPDX-License-Identifier: MIT
/*
 * kplan_out.c - printf() and trace() computed in the kernel, at the
 * hit: which of their statements a generated program (cgen.c,
 * cgen_out.c) can compute (kp_out_ok()), the plan instructions' slots
 * in the record's out area (kp_out_op()); and, in dtrace, the clause
 * printed from those values with no evaluation (kplan_outrun.c's
 * d_kplan_out_run()).
 *
 * Why.  A clause that prints used to run in user space from the hit's
 * record, milliseconds after the hit: a read of the process the
 * record does not carry (copyinstr(self->p) of an address kept at
 * entry, the classic entry/return pair) was a process_vm_readv() then,
 * and a process that had rewritten that memory meanwhile printed its
 * new bytes.  DTrace reads at the probe.  So here the kernel computes
 * each argument when the probe fires and user space only formats.
 *
 * What qualifies (D_KPLAN_VARS, generated programs only): a printf()
 * or trace() statement each of whose arguments is an integer kplan
 * computes (kp_ty(): arguments, pid, tid, timestamp, constants,
 * operators, the self-> and this-> integer variables the kernel keeps)
 * or copyinstr(E) of one such integer E (one argument: strsize - 1
 * bytes at most), or copyinstr(E, N), N a constant count (its OSTR
 * reads N bytes at most, strsize - 1 where N + 1 is not below strsize,
 * as run.c's copyinstr() reads: kplan_str.c's kp_ostr_count(); N 0,
 * user space's) or an integer the plan computes at the hit
 * (kp_ostr_hit(): popped by the OSTR, clamped so in the program, R2's
 * too; where the kernel keeps self-> variables, an argument's string
 * so at a uprobe before a statement the kernel runs is user space's,
 * kp_out_hitcnt_noastr()),
 * or stringof() of a copy's place
 * (kp_out_mstr(): kplan_mem.c's MSTR, no fault), or args[N] printed by
 * %s or trace() (kp_out_sarg(): the
 * OSTR of argument N at a probe declaring it a string, the clause
 * user space's at any other; in a clause that touches no variable and
 * does not speculate), or a string dtrace has without the kernel's help
 * (kp_out_here(): a literal, execname, the comm the record carries
 * for any clause that names it, which the interpreter reads as well,
 * and probeprov, probemod, probefunc and probename, the record's
 * probe's, as run.c's builtin() gives them), which takes no
 * instruction and no byte of the area, or a tree of string functions,
 * ?: and string comparisons over such values (kplan_str.c's
 * kp_out_leaves(): kp_out_ftime() for an argument that is not one
 * value, kp_out_whole()), each leaf computed into the area
 * as a whole argument is, in d_eval()'s order, and the tree evaluated
 * by dtrace when it formats (out_ftime(): d/stmt.c's d_eval_pinned()
 * with each leaf's value or fault pinned; curpsinfo->pr_psargs, whole
 * or in such a tree, is the record's copy there, taken only where
 * nothing the kernel runs follows in a clause that does not
 * speculate: a record without it faults as dtrace formats it,
 * kp_out_ftime_ok()), or a format-time this-> variable read whole
 * (kplan_fkey.c's kp_fvar_out(): its store's leaves' rooms, OVSTRs, the
 * store's tree evaluated as such a tree is: kp_out_tree()), or
 * ustack() or jstack()
 * printed whole (kp_out_stk(): OSTK, below), in a clause
 * whose every other statement kplan takes (stores, aggregations:
 * kp_stmt_ok()), so the clause is a kernel clause like any other and
 * kplan_vars.c's one-copy-per-variable rule holds as it is: a
 * variable such a clause reads is the kernel's only when every clause
 * touching it runs there, and then user space never reads it
 * (d_run_pre() runs only the clause's printf() and trace()).  Not
 * taken, so the clause keeps today's path: a string comparison in an
 * argument (its fault sites know no printf() action numbers), any
 * other string (a this-> or self-> variable but KV_STR's, below), a
 * clause that may fire where no generated program with an area runs
 * (kp_sout_where(), below: tick-N, BEGIN, END, ERROR; and where the
 * plan knows no probe's program, k->traced NULL as beside the
 * in-process activation, any description naming a kernel provider or
 * a pattern: kp_uprobes_only()), strsize above
 * UBPF_STRMAX or below 2, or a setopt() anywhere in the program (it
 * may change strsize while the kernel copies by the compiled one).
 *
 * Where: every probe the clause may fire at runs a generated program
 * whose record can carry the area (kp_sout_where(), k->traced:
 * bpf_agg_cgen.c's traced_clause()): a uprobe site's (USDT, pid), after the
 * uid and gid, or a kernel probe's own, cgen_kprov.c's for syscall (on
 * the call's tracepoint or the raw ones, shared or not), profile-N and
 * proc, after its kctx, arguments and vtimestamp, where kprov.c's
 * kprov_hit() reads it; not tick-N, BEGIN, END or ERROR, which fire
 * in dtrace with no program.  The clauses, their plan, ODONE bits and
 * dtrace's walk of them (cgen_out.c's cg_out_run(), records.c's
 * hit_run_kagg()) know no provider, so a kernel probe's clause is
 * exact by the same argument as a site's; a program the raw
 * tracepoints' calls share (cgen_kprov.c's kp_ident()) too, programs being
 * shared only where their instructions, so their plans, are the same.
 * What differs between the two is what a user sees of a copy (doc/
 * DESIGN.md §8, "Strings at the probe of pages not yet touched: the
 * rule"): the kernel's bpf_probe_read_user_str() cannot take a page
 * fault, so a string the process has not faulted into memory by the
 * probe (a literal in a page not yet touched, a path in a library's
 * read-only data at its first openat()) cannot be read there.  At a
 * kernel probe that is DTrace's "invalid address" at the hit, the
 * clause abandoned; the generic program's record of copyinstr(argN)
 * failed there too, and dtrace then read the string again after the
 * fact (run.c's d_arg_str()), which found it (tests/run-kprov-out.sh's
 * flt.d; bpftrace prints "" there).  At a uprobe site an argument
 * string (copyinstr(argN), args[N] by %s) that is only printed is read
 * again by dtrace when it runs the record, as the record path's
 * d_arg_str() reads it (below, "An OSTR that faulted"), so the three
 * ways print the same; the record's kprobe flag (cgen_out.c's
 * cg_out_rec(), from kprov.c or bpf.c) says which.  A clause at a kernel probe
 * that stays user space's and reads the process's memory by an address
 * (kplan_spec.c's node_late(): copyinstr(self->p), copyin(), a pointer's
 * member) reads it when dtrace runs the record: -v says why, clause by
 * clause (d_kplan_out_why(); a speculating one's d_kplan_spec_why()).
 * String variables (below) ask the same (kp_out_where()), so a self->
 * string kept in the kernel is a kernel probe's too.
 *
 * A speculating clause user space runs (kplan_spec.c's "Speculations",
 * kplan_vars.c's sout_ok()) has its printf() and trace() statements
 * taken by kp_out_ok() the same way, with the same area;
 * d_kplan_out_run() runs it through d_run_spec(), a copy that faulted
 * reported only where the clause reads it.  Where the kernel computes
 * its predicate too (kplan_vars.c's spred_ok()), that value is an OUT
 * of its own, the area's first 8 bytes (d_kplan_out_bytes() counts
 * them), and d_run_spec() tests its truth instead of the predicate.
 *
 * The record.  Each OUT (an integer) takes 8 bytes of the out area
 * and each OSTR a struct ubpf_kostr (the address, the bytes read, at
 * most strsize - 1 as d_read_user_str() reads, copyinstr(E, N)'s N,
 * or where it faulted),
 * in the plan's order, and ODONE n, after the clause's last statement
 * (so after its predicate's jump), sets bit n of the area's ran word:
 * kp_out_op() numbers them from the plan's instructions so far, and
 * dtrace numbers them again from the probe's kernel clauses in the
 * same order (records.c, cgen_out.c's cg_out_run()), both with
 * kp_out_size().  An OSTR that faulted makes the clause report that
 * fault (d_run_fault(): the first argument that faulted, its action
 * number as run.c's) and print nothing, as the interpreter's abandoned
 * clause does; the stores before it stand.  But at a uprobe site
 * (not a kernel probe's record) an OSTR of an argument string
 * (kp_out_astr(): copyinstr(argN), args[N] of kp_out_sarg()) with no
 * jump (below: nothing at the hit depended on the copy) is first read
 * again by out_list() with run.c's d_read_str_late(), strsize's bytes
 * (copyinstr(argN, M)'s M + 1: late_max(), d_arg_str()'s) at the
 * slot's address through the fire's copyin (process_vm_readv(),
 * deadmem.c once the process is gone): the read d_arg_str() makes
 * when the record holds no copy, at the same moment, so with the same
 * bytes, or the same fault at the same address, which is then the
 * one reported (the record path's answer; doc/DESIGN.md §8, R1).  A
 * speculating clause's likewise, before its fault is held for
 * d_run_spec(), and a copyinstr(argN) leaf of a tree dtrace evaluates
 * (out_ftime()), before its pin's fault is set.  Not a clause of
 * speculations in the kernel (late_off()): its held text is made once,
 * by the pass or at the place, and its fault reported at the place
 * only, so both must be decided from the area alone (a fault: a hole,
 * doc/DESIGN.md's step 4, *Strings*).  That walk runs in hold mode
 * (d_kplan_kspec_text(), d_kplan_kspec_fault(): struct orun's hold,
 * run_fault()): the first fault kept, not reported, the walk ended
 * there.  Where a statement other
 * than printf() and trace() follows the copy in the clause (a store,
 * an aggregation, a string variable's store: the kernel runs every
 * statement of the clause, kp_clause_ok()), the OSTR jumps to the
 * clause's end (kp_out_ends(): its jump; cgen_out.c's ostr()): a
 * fault sets the clause's ran bit (its levels, the ODONE number) and
 * skips the rest, so the statements after the copy do not run, as in
 * DTrace, where a fault ends the clause.  opensnoop's `{ printf(...,
 * copyinstr(self->p)); self->p = 0; }` is such a clause: it and
 * self->p are the kernel's, the string read at the probe.  Where only
 * printf() and trace() follow, no jump: the plan goes on, nothing it
 * does is seen, and dtrace stops at the first fault.  A speculating
 * clause has nothing but printf() and trace() after speculate()
 * (sout_ok()), so no jump: user space runs it and stops there.
 *
 * R2 (doc/DESIGN.md §8, "R2 and R3: the as-built plan").  At a uprobe
 * site (kp_usite(): the probe's provider none of dtrace's or the
 * kernel's) the jump is not DTrace's fault for an argument string
 * (kp_out_apre(): copyinstr(argN), args[N] by %s, a copyinstr(argN)
 * leaf or a copyinstr(argN, M) one (kplan_str.c's kp_ostr_arg()),
 * under a ?: too, with a statement other than printf() and
 * trace() after it; a string variable's store of copyinstr(argN)):
 * the plan copies it before its first clause (cgen_sarg.c's
 * seq_read()), a failed copy sending the hit to user space whole, as
 * the record path reads it (d_arg_str()), and the OSTR or SSTR, flagged
 * UBPF_KF_APRE, takes its bytes from that copy: no fault, no jump
 * (kplan_stmt.c's emit_stmt(), cgen_out.c's ostr_pre()).  Not where the
 * kernel keeps self-> variables (k->noastr, kplan_vars.c's
 * kp_vars_decide(): no hit of theirs can go to user space): there
 * such a copy faults at the hit, as DTrace's does (but one of a count
 * the hit computes: kp_out_hitcnt_noastr()).  A clause only at
 * kernel probes keeps its jump in any program.
 *
 * In a branch.  A kernel clause with ifs (kplan_vars.c's kp_if_why(),
 * kplan_stmt.c's emit_list()) may print, or store a string variable
 * (below), in any branch: the area's
 * layout stays static, every branch's values with their slots in plan
 * order (emit_list()'s: an if's condition, its body, its else), and
 * each if with such a statement (a printf(), trace() or SSTR) under
 * it, at any depth (kp_if_out()),
 * has an 8-byte slot before them for its condition's value (an OUT
 * flagged UBPF_KF_KEEP, stored and left for the if's PRED).  The
 * untaken branch's slots are not written at the hit; nothing reads
 * them: d_kplan_out_run() walks the clause's tree, reads an if's
 * value, takes its truth (d_truth(), as the program's PRED took it),
 * walks that branch and skips the other's bytes (kp_out_list_bytes(), which
 * d_kplan_out_bytes() sums over every branch: the worst case is what
 * must fit), and gives the value to d_run_pre() where a branch prints
 * (d/stmt.c's d_stmts_prints()), which runs the same branch, so the
 * statements that print, and the default line's header with them, are
 * the ones run.c would have run.  A copy's jump (kp_out_ends()) is
 * decided on its path: any statement but printf() and trace() after it
 * in its list, or after an if holding it in the enclosing lists (an if
 * counts as other).  ODONE runs on both paths: a hit whose path
 * printed nothing still writes its record, which prints nothing.
 *
 * Printed forms (doc/DESIGN.md §8 "Printed values typed apart set and
 * unset").  A printf() or trace() argument reading a self-> or this->
 * integer whose type set (T, its stores') is not its type unset (a
 * signed 8-byte 0) is computed in each type by the statement's typed
 * forms, dispatched at the hit as a store's or an aggregation's are
 * (kplan_vars.c's form_bits(), kplan_stmt.c's emit_forms(): one or two
 * open bits, two or four forms).  The area's layout is static: every
 * form writes its values into the same slots (kp_out_op() lays out
 * the last form and passes over the others' instructions, flagged
 * UBPF_KF_ALT), after an 8-byte slot of its own holding the form, the
 * bits it typed unset (kplan_stmt.c's form_slot()).  out_list() reads
 * that slot first and types the values with those bits unset (the
 * same k->absent the form was emitted with), so each value is printed
 * with the type run.c's evaluation gave it at that hit: unset, 0 - 1
 * is -1 and %x prints 16 digits; set to a uint32_t, 32 bits.  Not a
 * speculating clause's that user space runs (kplan_spec.c's sout: its
 * statements are emitted once, emit_list()'s sout), nor a name key's
 * count().
 *
 * The record's stack (OSTK, doc/DESIGN.md §8 "Printed user stacks
 * from the record").  Every record of an event whose clauses read the
 * user stack carries it, the kernel's clauses' too (the spec's ustk is
 * the clauses' needs; cgen_ustk.c copies it, or the unwinder writes the
 * walk's pcs), so a ustack() or jstack() argument needs nothing at the
 * hit: OSTK marks its place in the plan (cgen_ustk.c's ustack_out()
 * refuses a program whose records would carry no stack), takes no byte
 * of the area, and out_list() gives it d/stack.c's d_stack_rec(), the
 * record's stack unwound and named by the code the interpreter's
 * ustack() runs, with the same callbacks (records.c's hit_prep()).  Not
 * where the plan has fault sites (k->fmode): their bits end the record,
 * where the stack goes, and cgen.c refuses a program with both.
 *
 * User stacks as aggregation keys, first slice (doc/DESIGN.md §8 "User
 * stacks as aggregation keys in the generated programs").  A statement
 * @a[ustack(...)] = count() or @a[jstack(...)] = count() (one key the
 * stack whole, the others literals; or sum(V) and the other functions
 * of one value: ../d/stmt.c's d_stmt_ukey()) is taken as an OSTK is:
 * the clause is the kernel's (its predicate, variables and other
 * statements run at the hit), the statement an out statement with no
 * argument but V and no byte of the area but V's (ks->out, not an
 * aggregation: kaggs and the merge skip it), whose OSTK has the record
 * carry the hit's stack, and d_run_pre() makes its update from the
 * record, through the interpreter's own ustack() and d_agg_update()
 * (V the value given), at its place among the clause's statements: the
 * key is the text dtrace names from the record's stack, walked pcs or
 * copy, as for a clause user space runs, so the output cannot differ;
 * every hit the clause passes is a record, as before.  A name key of
 * ucaller (@a[usym(ucaller)] = sum(V): d_stmt_ucall(), the toolkit's
 * *_malloc.d) is made so too: frame 1 of the record's stack, which only
 * dtrace unwinds, named by the interpreter from the record.  Not taken
 * (user space's, as before): another function, another key beside the
 * stack but a literal or what every record of the probe carries (a
 * literal is a constant of the statement; pid, tid, cpu, execname, uid,
 * gid and the probe's names are the record's, which the event writes
 * where a clause reads them: d_run_pre() evaluates each as the
 * interpreter does; another key's value would have to come from the
 * area), a statement after
 * it that may end the clause from the area (a copy's fault, which
 * d_kplan_out_run() reports without running d_run_pre(), so the count
 * would be lost: ukey_after_ok()), a clause with an
 * if (d_stmts_prints() knows no such statement, so a branch's would
 * not be run), the generic program (k->vars).  The kernel's own
 * aggregation by {pid, the unwinder's generation, pcs} is the design's
 * next step, not built.  -v counts such clauses apart
 * (d_kplan_ukey(): "keying by the user stack in the kernel").
 *
 * Keys by a user address's name (doc/DESIGN.md, "Keys by a name").  A
 * statement @a[ufunc(E)] = count() (usym(), umod(), uaddr(); one key,
 * the name; or sum(V) and the other functions of one value:
 * ../d/stmt.c's d_stmt_uname()) is taken as a printf() of ufunc(E), V
 * is, by the same tests (arg_ok(): E a leaf the plan computes, V an
 * integer it computes, kp_out_ftime_ok(): not in a speculating
 * clause): an out statement whose arguments are the key and the value
 * (kp_out_nargs() 1 or 2, kp_out_node()), E (and V) written into the
 * area at the hit (emit_stmt()'s leaves), out_list()'s out_ftime()
 * naming E from the record's pid and time as a printed name is, and
 * d_run_pre() making the update at the statement's place, agg.c's
 * d_agg_update() taking that name (x->pre) for the key, and V next,
 * instead of d_eval(), which would read E and V from a record that
 * does not carry them.  So the key is the text a clause dtrace runs
 * names, dated the same way.  As for stack keys:
 * nothing after it may end the clause from the area (ukey_after_ok()),
 * a clause with an if is user space's (kplan_vars.c's kp_if_why()), so
 * is a speculating one (kplan_spec.c's kspec_plan_why() too) and an
 * exit() clause (kplan_exit.c's hit_int(): E must be the hit's, and the
 * name is no integer); d_kplan_out_any() gives the program its area.
 * -v counts them apart (d_kplan_ukey()'s names: "keying by a user
 * address's name in the kernel").
 *
 * String variables (KV_STR: kplan_svar.c's str_var(), a this-> or
 * self-> string only stored from copyinstr(E), a literal, another
 * such variable or strjoin()s of copies and literals (kplan_str.c's
 * "Joins": its parts SSTRs and SLITs, sz a UBPF_KJ_*), or cleared, and
 * only printed, compared with a
 * literal, another such variable or execname, measured or an
 * aggregation's key: kplan_str.c's kp_svar_cmp(), cgen_svar.c's VSEQ,
 * VVEQ, VVCMP, CVCMP, VSLEN, VKEY).  Its store (kp_sstr_ok(), a statement of
 * its own in a clause that may have an out area) is SSTR, which copies
 * the string into the kernel's variable and its address and length
 * into 16 bytes of the area, SLIT (a literal, kplan_str.c's
 * kp_str_lit_store(); a probe's name, or the leaf a ?: tree of them
 * and literals takes, as kp_str_lit_tree() says; a tree with copies
 * among its leaves, kp_str_copy_tree(), an SSTR or SLIT at the leaf
 * taken, the copies sharing one slot) or SMOV (another
 * variable's bytes, "" when that
 * one is unset), which cannot fault and take no byte of the area, or
 * SCLR, or SCOMM (execname: kplan_str.c's kp_comm_store(), as SLIT);
 * a printf()
 * or trace() argument that reads it is OVSTR, a struct ubpf_kostr of
 * its bytes as OSTR's.  A clause with such a store has an out area
 * even when it prints nothing (ODONE flagged UBPF_KF_NOREC, no record
 * for it): an SSTR that faulted sets the clause's ran bit itself and
 * ends the clause, and d_kplan_out_run() reports the fault at the
 * store's action number.  A clause whose own values pass the area
 * (UBPF_KOUTMAX) is not taken (kplan_vars.c's kp_clause_ok()): it
 * stays user space's, with its variables.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

/* Bytes one argument takes in the out area. */
unsigned kp_out_size(bool str)
{
	return ubpf_kop_room(str ? UBPF_K_OSTR : UBPF_K_OUT);
}

bool kp_out_mstr(const struct d_kplan *k, const struct node *a)
{
	struct kp_place pl;
	unsigned cnt;

	/* (or a bounded copy's string: seq_read()'s, an OSTR flagged
	 * UBPF_KF_APRE, kplan_bstr.c; its bytes printed as MSTR's) */
	return k && k->vars &&
	       (kp_mem_str(k, a, &pl, &cnt) || kp_bstr_read(k, a) >= 0);
}

unsigned kp_out_nargs(const struct stmt *st)
{
	if (st->kind != S_AGG)
		return st->kind == S_TRACE ? 1 : st->nargs;
	/* an update dtrace makes from the record: its value, after the
	 * key where the key is a name of an address the area carries */
	if (d_stack_key_in(st) || d_psargs_key_in(st))
		return st->nargs > 0;
	if (st->nkeys != 1 || !d_uname_func(st->keys[0]))
		return 0;
	return d_ucall_key(st->keys[0]) ? st->nargs > 0 : 1 + (st->nargs > 0);
}

const struct node *kp_out_node(const struct stmt *st, unsigned j)
{
	if (st->kind == S_AGG) /* (a stack key's: its value) */
		return j || d_stack_key_in(st) || d_psargs_key_in(st) ||
				       d_ucall_key(st->keys[0])
			       ? st->args[0]
			       : st->keys[0];
	return st->kind == S_TRACE ? st->e : st->args[j];
}

bool kp_out_ends(const struct clause *c, unsigned i)
{
	const struct stmt *st = c->flat[i];

	/* after it in its own list, then after the if holding that list
	 * in the list holding the if, up to the clause's top; an if counts
	 * as other (its condition may fault) */
	for (;;) {
		const struct stmt *up = st->fup ? c->flat[st->fup - 1] : NULL;
		unsigned end = !up ? c->nstmts : st->fbr ? up->fend : up->fels;

		for (unsigned l = st->fi + 1; l < end; l++)
			if (c->flat[l]->kind != S_PRINTF &&
			    c->flat[l]->kind != S_TRACE)
				return true;
		if (!up)
			return false;
		st = up;
	}
}

bool kp_if_out(const struct d_kplan *k, unsigned ci, unsigned i)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct stmt *st = c->flat[i];

	if (!k->vars || st->kind != S_IF)
		return false;
	for (unsigned j = st->fbody; j < st->fend; j++) {
		const struct kstmt *ks = &k->st[k->first[ci] + j];

		/* a step's tag too (its slot after the if's value, where
		 * kp_out_list_bytes() and d_kplan_kspec_tags() look) */
		if (ks->out || ks->sstr || ks->spec ||
		    (ks->cond && kp_if_out(k, ci, j)))
			return true;
	}
	return false;
}

/* Is the argument, whole, a string dtrace has without the kernel: a
 * literal (the program's own text), execname (the record's comm,
 * which the program copies at the hit for every clause that names it:
 * what the interpreter reads too) or probeprov, probemod, probefunc or
 * probename (the record's probe's, the d_probe field run.c's builtin()
 * gives, d_run_pre() cutting it to strsize - 1 as it cuts any string
 * it prints)?  It takes no plan instruction and no byte of the out
 * area. */
bool kp_out_here(const struct node *a)
{
	return a->op == N_STR || ident(a) >= 0 ||
	       (a->op == N_BUILTIN && d_builtins[a->sub].id == B_EXECNAME);
}

/* Is the argument, whole, ustack() or jstack() (its arguments
 * constants: d/stack.c's d_stack_check())?  The record's stack: the
 * program copied it, or walked its pcs, for every record of the event
 * (cgen_ustk.c), so the plan's OSTK takes no byte of the area and
 * dtrace formats the stack from the record (d/stack.c's d_stack_rec()),
 * as the interpreter's ustack() does. */
bool kp_out_stk(const struct node *a)
{
	return a->op == N_FUNC && (d_funcs[a->sub].id == F_USTACK ||
				   d_funcs[a->sub].id == F_JSTACK);
}

/* Argument j: the integer, or the address whose string is printed
 * (args[N] of kp_out_sarg(): that node, whose address is argument N's
 * at a probe declaring it a string). */
const struct node *kp_out_arg(const struct stmt *st, unsigned j, bool *str)
{
	const struct node *a = kp_out_node(st, j);

	*str = a->op == N_FUNC && d_funcs[a->sub].id == F_COPYINSTR;
	if (!*str && kp_out_sarg(st, j) >= 0) {
		*str = true;
		return a;
	}
	return *str ? a->args[0] : a;
}

/*
 * Argument j is args[N] whole (N a constant, maybe in stringof()): N,
 * else -1.  At a probe declaring argument N a string it is the string
 * run.c reads with d_arg_str(x, N, strsize), copyinstr(argN)'s, so an
 * OSTR of argument N there (kplan_stmt.c's emit_stmt()), its fault
 * copyinstr(argN)'s; at any other probe (an integer there, printed as
 * its digits, or no such argument) the clause is user space's
 * (kplan_here.c's d_kplan_here(), kp_out_sarg_ok()).
 */
int kp_out_sarg(const struct stmt *st, unsigned j)
{
	unsigned at = 0; /* the argument each conversion takes */

	if (st->kind == S_TRACE)
		return kp_args_index(st->e);
	if (st->kind == S_AGG) /* a name key's: an integer's name */
		return -1;
	/* printf(): only one that %s prints (of one that %d prints, an
	 * integer where it works, -v says why it is user space's) */
	for (unsigned i = 0; st->pf && i < st->pf->nseg && at <= j; i++) {
		const struct pfseg *d = &st->pf->seg[i];

		if (!d->conv || d->conv == '%')
			continue;
		at += !!(d->flags & PF_DYNW) + !!(d->flags & PF_DYNP);
		if (at == j && d->conv == 's')
			return kp_args_index(st->args[j]);
		at++;
	}
	return -1;
}

/*
 * May clause ci print args[N] as a string (kp_out_sarg())?  Only where
 * leaving its plan at a probe that does not declare N a string leaves
 * the clause to user space there, with the this-> variables it touches
 * (kplan_here.c's d_kplan_here()): this-> variables do not tie it to a
 * clause touching a self-> variable (whose event would be refused at
 * that probe: bpf_agg.c's plan_of()) or speculating (a sout clause's
 * plan must fit at every probe), nor does it speculate itself
 * (kplan_here.c's kp_typed_ok()).
 */
bool kp_out_sarg_ok(const struct d_kplan *k, unsigned ci)
{
	return !d_kplan_specs(k->prog, ci) && kp_typed_ok(k, ci);
}

/* The providers whose probes are no uprobe site's: dtrace's own and
 * the kernel's (kprov.c), one list for the three questions below */
static const char *const kern_prov[] = { "dtrace", "syscall", "profile", "tick",
					 "proc" };

/* Is the n bytes at d one of them? */
static bool kern_named(const char *d, size_t n)
{
	for (size_t i = 0; i < sizeof(kern_prov) / sizeof(kern_prov[0]); i++)
		if (strlen(kern_prov[i]) == n && !strncmp(d, kern_prov[i], n))
			return true;
	return false;
}

/*
 * Description d's provider: 1 where it is a kernel one (kern_named()),
 * 0 where it is another, named without a glob, -1 where it may be
 * either (empty, a glob in it, or not a four-field description)
 */
int kp_desc_kern(const char *d)
{
	const char *colon = strchr(d, ':');
	unsigned colons = 0;
	size_t n;

	for (const char *q = d; *q; q++)
		colons += *q == ':';
	if (colons != 3 || !colon || colon == d)
		return -1;
	n = (size_t)(colon - d);
	if (strcspn(d, "*?[\\") < n)
		return -1;
	return kern_named(d, n);
}

/* May the clause fire only at probes of uprobes (USDT, pid)? */
bool kp_uprobes_only(const struct clause *c)
{
	if (!c->ndescs)
		return false;
	for (unsigned j = 0; j < c->ndescs; j++)
		if (kp_desc_kern(c->descs[j]) != 0)
			return false;
	return true;
}

bool kp_usite(const struct d_probe *probe)
{
	/* (a probe with no provider is a trial's, kplan_vars.c's
	 * clause_typed(): its plans are compared, never run) */
	return probe &&
	       (!probe->prov || !kern_named(probe->prov, strlen(probe->prov)));
}

/* May clause c fire at a profile-N probe (its provider "profile", or
 * one a glob or an empty field may name)? */
bool kp_profile_clause(const struct clause *c)
{
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j], *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : 0;

		if (!colon || !n || strcspn(d, "*?[\\") < n ||
		    (n == 7 && !strncmp(d, "profile", 7)))
			return true;
	}
	return false;
}

bool kp_usite_clause(const struct clause *c)
{
	for (unsigned j = 0; j < c->ndescs; j++)
		if (kp_desc_kern(c->descs[j]) != 1)
			return true;
	return false;
}

/* Does a statement of v (n of them) call setopt()?  strsize may change
 * while tracing: the kernel's copies are of the compiled one. */
static bool setopt_in(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i].kind == S_SETOPT || setopt_in(v[i].body, v[i].nbody) ||
		    setopt_in(v[i].els, v[i].nels))
			return true;
	return false;
}

/* a, an integer that reads args[N]: typed at each probe as that probe
 * types it (kp_ty() types it at none) */
static bool args_per_probe(const struct d_kplan *k, const struct node *a)
{
	uint8_t sz, sg;

	return kp_has_args(a) && !kp_has_str_cmp(k, a) &&
	       kp_ty_at(k, KP_ANYPROBE, a, &sz, &sg);
}

bool kp_out_whole(const struct d_kplan *k, const struct stmt *st, unsigned j)
{
	uint8_t sz, sg;
	bool str;
	const struct node *a = kp_out_arg(st, j, &str);
	const struct node *whole = kp_out_node(st, j);

	if (str || kp_out_here(whole) || kp_out_svar(k, whole) ||
	    kp_out_stk(whole) || kp_out_mstr(k, whole))
		return true; /* (copyinstr(E, N): arg_ok() asks its count) */
	return whole->kind != T_STR &&
	       ((kp_ty(k, a, &sz, &sg) && !kp_has_str_cmp(k, a)) ||
		args_per_probe(k, a));
}

int kp_out_ftime(const struct d_kplan *k, const struct stmt *st, unsigned j,
		 struct kp_leaf *lv)
{
	int n;

	if (kp_out_whole(k, st, j))
		return -1;
	n = kp_fvar_out(k, kp_out_node(st, j), lv, NULL);
	return n ? n : kp_out_leaves(k, kp_out_node(st, j), lv);
}

const struct node *kp_out_tree(const struct d_kplan *k, const struct stmt *st,
			       unsigned j)
{
	struct kp_leaf lv[KP_FLEAVES];
	const struct node *t = kp_out_node(st, j);

	(void)kp_fvar_out(k, t, lv, &t);
	return t;
}

/* Does a statement the kernel runs follow st in clause c
 * (kp_out_ends())? */
static bool stmt_ends(const struct clause *c, const struct stmt *st)
{
	for (unsigned i = 0; i < c->nflat; i++)
		if (c->flat[i] == st)
			return kp_out_ends(c, i);
	return false;
}

/* Argument j of st in clause ci, where the kernel keeps self->
 * variables (k->noastr: no R2 copy ahead): a copyinstr(argN, M) of a
 * count the hit computes (kplan_str.c's kp_ostr_arg(), kp_ostr_hit()),
 * whole or a leaf, in a clause that may fire at a uprobe site
 * (kp_usite_clause()), where a statement the kernel runs follows
 * (kp_out_ends()): user space's.  Its OSTR's jump would fault at the
 * hit on a page the process has not touched yet, where the record
 * path reads it (doc/DESIGN.md §8, "Strings at the probe of pages not
 * yet touched: the rule"). */
bool kp_out_hitcnt_noastr(const struct d_kplan *k, unsigned ci,
			  const struct stmt *st, unsigned j)
{
	struct kp_leaf lv[KP_LEAVES];
	const struct clause *c = &k->prog->clauses[ci];
	const struct node *w = kp_out_node(st, j);
	int n = kp_out_ftime(k, st, j, lv);
	bool hit = kp_ostr_hit(k, w) && kp_ostr_arg(w) >= 0;

	for (int l = 0; l < n; l++)
		hit |= lv[l].kind == UBPF_K_OSTR && kp_ostr_hit(k, lv[l].n) &&
		       kp_ostr_arg(lv[l].n) >= 0;
	return k->noastr && hit && kp_usite_clause(c) && stmt_ends(c, st);
}

/* Argument j of st, statement i of clause ci, computed when dtrace
 * formats (kp_out_ftime()): a copy run.c may not reach (under a ?:
 * branch, right of && or ||) cannot end the clause at its fault, the
 * kernel not knowing whether run.c read it, so where a statement
 * other than printf() and trace() follows (kp_out_ends()) the
 * argument is user space's; elsewhere its copy has no jump and dtrace
 * stops at the fault it reaches. */
bool kp_out_ftime_ok(const struct d_kplan *k, unsigned ci,
		     const struct stmt *st, unsigned j)
{
	const struct clause *c = &k->prog->clauses[ci];
	struct kp_leaf lv[KP_LEAVES];
	int n = kp_out_ftime(k, st, j, lv);
	bool ends = stmt_ends(c, st);

	if (kp_out_hitcnt_noastr(k, ci, st, j))
		return false;
	/* a name of a user address in a speculating clause: a held record
	 * of the kernel's buffers is formatted without the process's
	 * modules (bpf.c's bpf_kspec_fire()) */
	if (d_kplan_specs(k->prog, ci) && kp_out_names(kp_out_node(st, j)))
		return false;
	/* pr_psargs: a record without it faults at format time
	 * (kplan_str.c's kp_out_leaves()), which the hit never saw: only
	 * where the clause has nothing after it for the kernel to run, as
	 * a copy with no jump, and not where user space holds the clause
	 * (a speculation's, whose faults are reported at its place) */
	if (kp_has_psargs(kp_out_node(st, j)) &&
	    (ends || d_kplan_specs(k->prog, ci)))
		return false;
	/* (R2: copyinstr(argN) in a clause only at uprobe sites, in a
	 * program with no noastr, is copied before the probe's first
	 * clause, whatever branch run.c takes: a failed copy sends the hit
	 * to user space whole, which takes the branch as run.c does) */
	for (int l = 0; l < n; l++)
		if (lv[l].kind == UBPF_K_OSTR && lv[l].cond && ends &&
		    (k->noastr || !kp_uprobes_only(c) ||
		     kp_ostr_arg(lv[l].n) < 0))
			return false;
	return n >= 0;
}

/* One argument of clause ci: can the kernel compute it? */
static bool arg_ok(const struct d_kplan *k, unsigned ci, const struct stmt *st,
		   unsigned j)
{
	uint8_t sz, sg;
	bool str;
	const struct node *a = kp_out_arg(st, j, &str);
	const struct node *whole = kp_out_node(st, j);

	if (kp_out_here(whole) || kp_out_svar(k, whole) ||
	    kp_out_mstr(k, whole))
		return true;
	/* the record's stack: not beside fault sites, whose bits are the
	 * record's last 8 bytes where the stack would be (cgen.c) */
	if (kp_out_stk(whole))
		return !k->fmode;
	/* typed at each probe; trace(args[N]) is the string form too,
	 * which an integer args[N] (the common one) does not fit: only in
	 * a clause that may be user space's at such a probe, never
	 * refusing its event (kp_typed_free()) */
	if (kp_out_sarg(st, j) >= 0)
		return kp_out_sarg_ok(k, ci) &&
		       (st->kind != S_TRACE || kp_typed_free(k, ci));
	if (!kp_out_whole(k, st, j)) /* dtrace computes it, from leaves */
		return kp_out_ftime_ok(k, ci, st, j);
	/* copyinstr(E, N): N a constant count (kp_ostr_count()) or one
	 * the hit computes (kp_ostr_hit()) */
	if (str && kp_ostr_count(k->prog, whole) < 1 &&
	    (!kp_ostr_hit(k, whole) || kp_out_hitcnt_noastr(k, ci, st, j)))
		return false;
	if (kp_ty(k, a, &sz, &sg))
		return !kp_has_str_cmp(k, a);
	/* args[N] typed per probe (an integer args[0] printed): the plan
	 * computes it at each probe as that probe types it (kplan_expr.c's
	 * ARG, NORM), and dtrace types the value by the record's probe
	 * (out_ty()); a probe that types it otherwise (a string, none)
	 * leaves the clause to user space there, as args[N] printed by %s
	 * (kp_out_sarg_ok()) */
	return args_per_probe(k, a) && kp_out_sarg_ok(k, ci);
}

/* Is strsize one the kernel's strings can follow (2 to UBPF_STRMAX),
 * fixed for the run (no setopt())? */
bool kp_strsize_fixed(const struct d_kplan *k)
{
	if (!k->vars || k->prog->strsize < 2 || k->prog->strsize > UBPF_STRMAX)
		return false;
	for (unsigned l = 0; l < k->prog->nclauses; l++)
		if (setopt_in(k->prog->clauses[l].stmts,
			      k->prog->clauses[l].nstmts))
			return false;
	return true;
}

/* May clause c have an out area at all (strsize, no setopt(), every
 * probe's program a generated one: kp_sout_where())? */
bool kp_out_where(const struct d_kplan *k, const struct clause *c)
{
	return !kp_sout_where(k, (unsigned)(c - k->prog->clauses));
}

/*
 * May clause ci (a kernel clause that prints, or a sout one: kplan_spec.c's
 * "Speculations") have an out area?  As
 * kp_out_where(), but at kernel probes too: where every hit of the
 * clause runs a generated program (k->traced, bpf_agg_cgen.c's
 * traced_clause(): a uprobe site's, or a syscall, profile-N or proc
 * probe's own, cgen_kprov.c's, whose record carries the area after its
 * kctx, arguments and vtimestamp), not tick-N's timer, BEGIN, END or
 * ERROR, which fire in dtrace and run no program.  NULL, or why not.
 */
const char *kp_sout_where(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	if (!kp_strsize_fixed(k))
		return "strsize may change, or is one the kernel's copies "
		       "cannot follow";
	if (kp_uprobes_only(c) || (k->traced && k->traced[ci]))
		return NULL;
	return "it may fire where no generated program runs (tick-N, "
	       "BEGIN, END, ERROR: in dtrace, with no out area)";
}

const char *d_kplan_out_why(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c;

	if (!k || ci >= k->prog->nclauses || d_kplan_clause(k, ci) ||
	    d_kplan_specs(k->prog, ci))
		return NULL; /* (a speculating one: d_kplan_spec_why()) */
	c = &k->prog->clauses[ci];
	if (kp_uprobes_only(c) || kp_dtrace_only(c) || !kp_late(c))
		return NULL;
	if (!k->vars)
		return "no variable is the kernel's in this plan";
	if (k->user && k->user[ci])
		return "it fires in user space (dtrace:::ERROR), or it "
		       "calls exit(), which dtrace runs from the record";
	if (kp_sout_where(k, ci))
		return kp_sout_where(k, ci);
	/* (a statement after its copy is none: a fault ends the clause
	 * there, OSTR's jump) */
	return "a statement the kernel does not run or a value it does not "
	       "compute (a string it does not copy, a variable user space "
	       "keeps, more than the out area holds)";
}

bool kp_out_svar(const struct d_kplan *k, const struct node *a)
{
	/* (a format-time variable's bytes are its leaf's: only its
	 * copies' nodes read them, kplan_fkey.c) */
	return k && k->vars && a->op == N_VAR && a->sub >= 0 &&
	       (unsigned)a->sub < k->prog->nvars && k->vst[a->sub] == KV_STR &&
	       (!k->fvar || !k->fvar[a->sub] || kp_fvar_clone(k, a));
}

bool kp_sstr_ok(const struct d_kplan *k, unsigned ci, const struct stmt *st,
		struct kstmt *ks)
{
	const struct node *e, *b;
	uint8_t sz, sg;

	st = kp_fvar_store(k, st); /* a format-time variable's: its leaf */
	e = st->e;
	memset(ks, 0, sizeof(*ks));
	ks->st = st;
	ks->slot = -1;
	ks->skey = -1;
	ks->svar = -1;
	if (kp_fvar_noop(k, &k->prog->clauses[ci], st) && k->vars &&
	    k->vst[e->a->sub] == KV_STR &&
	    kp_out_where(k, &k->prog->clauses[ci])) {
		ks->assign = true; /* v's own value again: nothing to do */
		ks->agg = ~0u;
		ks->noop = true;
		return true;
	}
	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || e->sub != '=' ||
	    !kp_out_where(k, &k->prog->clauses[ci]))
		return false;
	{ /* s[i] = c of a this-> string kept (kplan_svar.c's "Characters
	   * stored": str_var() took it, its clause's proof made) */
		unsigned w;
		int64_t ix, ch;

		if (kp_schr_of(k->prog, st, &w, &ix, &ch)) {
			if (!k->vars || k->vst[w] != KV_STR ||
			    k->prog->vars[w].scope != SC_THIS ||
			    (k->fvar && k->fvar[w]))
				return false;
			ks->assign = true;
			ks->agg = ~0u;
			ks->schr = true;
			return true;
		}
	}
	/* (a self-> format-time variable's clear: its place the
	 * program's node, not a copy's, kplan_fkey.c) */
	if (!kp_out_svar(k, e->a) &&
	    !(e->a->op == N_VAR && k->vars && e->a->sub >= 0 &&
	      kp_fvar_self(k, (unsigned)e->a->sub) &&
	      k->vst[e->a->sub] == KV_STR && kp_str_clear(e->b)))
		return false;
	b = e->b;
	ks->assign = true;
	ks->agg = ~0u;
	if (kp_str_clear(b)) {
		ks->sclr = true;
		return true;
	}
	if (kp_str_lit_store(k->prog, b) || kp_comm_store(k->prog, b) ||
	    kp_str_lit_tree(k, b) ||
	    (kp_out_svar(k, b) && b->sub != e->a->sub)) {
		ks->smov = true; /* SLIT, SCOMM, SMOV: nothing to fault */
		return true;
	}
	ks->sstr = true;
	/* a ?: tree of copies and literals: one slot (kplan_str.c's
	 * kp_str_copy_tree()) */
	if (kp_str_copy_tree(k, b) && !(k->fvar && k->fvar[e->a->sub])) {
		ks->stree = true;
		ks->nsleaves = 1;
		return true;
	}
	{ /* strjoin()s of copies and literals (kplan_str.c's "Joins") */
		const struct node *pv[KP_JPARTS];
		int np = kp_join_parts(k, b, pv);

		if (np > 0 && !(k->fvar && k->fvar[e->a->sub])) {
			ks->sjoin = true;
			for (int l = 0; l < np; l++)
				ks->nsleaves += pv[l]->op != N_STR;
			return true;
		}
	}
	ks->sleaves = kp_fvar_leaves(k, st, &ks->nsleaves);
	for (unsigned l = 0; l < ks->nsleaves; l++) {
		b = ks->sleaves[l];
		if (!kp_copyinstr_of(b) || !kp_ty(k, b->args[0], &sz, &sg) ||
		    kp_has_str_cmp(k, b->args[0]))
			return false;
	}
	return true;
}

/* Does argument j of st (a printf(), trace() or name key) copy at the
 * hit: a copyinstr() whole, or a leaf dtrace formats from that is not
 * an integer (an OSTR, OVSTR: a copy whose fault out_list() reports)?
 * Or may it fault as one does: pr_psargs, whose absence out_ftime()
 * reports the same way. */
static bool arg_copies(const struct d_kplan *k, const struct stmt *st,
		       unsigned j)
{
	struct kp_leaf lv[KP_LEAVES];
	bool s;
	int n;

	(void)kp_out_arg(st, j, &s);
	if (s || kp_has_psargs(kp_out_node(st, j)))
		return true;
	n = kp_out_ftime(k, st, j, lv);
	for (int l = 0; l < n; l++)
		if (lv[l].kind != UBPF_K_OUT)
			return true;
	return false;
}

/* May statement st, after a stack or name key's count() in its clause,
 * end the clause from the area (a copy's fault, which
 * d_kplan_out_run() reports before d_run_pre() runs the clause: the
 * count before it would not be made)?  Conservatively yes for a printed
 * string or a name key but what takes no copy (a literal, execname, a
 * probe's name, a string variable's bytes, a stack, a name of integer
 * leaves), a string key or value, and a store but of an integer
 * variable the kernel keeps. */
static bool ukey_after_ok(const struct d_kplan *k, const struct stmt *st)
{
	int v;

	if (d_stmt_ukey(k->prog, st) && !st->nargs)
		return true;
	if (st->kind == S_PRINTF || st->kind == S_TRACE ||
	    d_stmt_from_record(k->prog, st)) {
		for (unsigned j = 0; j < kp_out_nargs(st); j++)
			if (arg_copies(k, st, j))
				return false;
		return true;
	}
	if (st->kind == S_AGG) {
		for (unsigned j = 0; j < st->nkeys; j++)
			if (st->keys[j]->kind == T_STR)
				return false;
		for (unsigned j = 0; j < st->nargs; j++)
			if (st->args[j]->kind == T_STR)
				return false;
		return true;
	}
	v = kp_assigned_var(st);
	return v >= 0 && k->vst[v] != KV_STR && k->vst[v] != KV_SARG &&
	       k->vst[v] != KV_PLACE;
}

bool kp_ukey_after_ends(const struct d_kplan *k, unsigned ci, unsigned i)
{
	const struct clause *c = &k->prog->clauses[ci];

	for (unsigned l = i + 1; l < c->nflat; l++)
		if (!ukey_after_ok(k, c->flat[l]))
			return true;
	return false;
}

bool kp_out_ok(const struct d_kplan *k, unsigned ci, unsigned i,
	       struct kstmt *ks)
{
	const struct stmt *st = k->prog->clauses[ci].flat[i];

	if (kp_sstr_ok(k, ci, st, ks)) /* a string variable's store */
		return true;
	memset(ks, 0, sizeof(*ks));
	ks->st = st;
	ks->slot = -1;
	ks->skey = -1;
	ks->svar = -1;
	if (st->kind != S_PRINTF && st->kind != S_TRACE &&
	    !(k->vars && d_stmt_from_record(k->prog, st)))
		return false;
	/* a stack or name key's count(): nothing after it may end the
	 * clause from the area (ukey_after_ok()) */
	if (st->kind == S_AGG && kp_ukey_after_ends(k, ci, i))
		return false;
	/* ... and a pr_psargs key's: a record without the argument area
	 * faults at the statement (d_run_pre()), which the hit never saw:
	 * only where nothing the kernel runs follows it (as a printed
	 * pr_psargs: kp_out_ftime_ok()), not in a speculating clause */
	if (st->kind == S_AGG && d_psargs_key_in(st) &&
	    (kp_out_ends(&k->prog->clauses[ci], i) ||
	     d_kplan_specs(k->prog, ci)))
		return false;
	/* vtimestamp where a lost clock would have to end the clause
	 * (kplan_vars.c's novtout): the area's faults are not sites */
	for (unsigned j = 0; k->novtout && j < st->nargs; j++)
		if (kp_node_vt(st->args[j]))
			return false;
	if (k->novtout && d_stmt_uname(k->prog, st) && kp_node_vt(st->keys[0]))
		return false;
	/* where every hit of the clause runs a generated program with an
	 * area: a uprobe site's, or a kernel probe's own (syscall,
	 * profile-N, proc), for a kernel clause as for a speculating one
	 * (only sout_ok() asks of those) */
	if (kp_sout_where(k, ci))
		return false;
	for (unsigned j = 0; j < kp_out_nargs(st); j++)
		if (!arg_ok(k, ci, st, j))
			return false;
	/* a copy's fault ends the clause here: what follows, the
	 * kernel's too (kp_clause_ok() takes the clause only where the
	 * kernel runs every statement), is jumped over (kp_out_ends(),
	 * OSTR's jump); a speculating clause has nothing but printf() and
	 * trace() after speculate() (sout_ok()), so no jump */
	/* not an aggregation (kaggs, kflat, the merge skip it) */
	ks->assign = true;
	ks->out = true;
	ks->agg = ~0u;
	return true;
}

/* Does the clause (which the kernel runs) print from its out area
 * (prints), or have one at all (a string variable's store)? */
static bool out_clause(const struct d_kplan *k, unsigned clause, bool prints)
{
	const struct clause *c = &k->prog->clauses[clause];

	/* no statement: its record is its default line (or JSON record,
	 * or nothing under -q), d_run_pre()'s as any clause's */
	if (!c->nstmts)
		return true;
	/* (a sout clause's first statement, speculate(), has an entry
	 * of its own and no if: nflat is nstmts) */
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct kstmt *ks = &k->st[k->first[clause] + i];

		if (ks->out ||
		    (!prints && (ks->sstr || ks->sclr || ks->smov || ks->spec)))
			return true;
	}
	return false;
}

bool kp_out_clause(const struct d_kplan *k, unsigned clause)
{
	return k->vars && out_clause(k, clause, false);
}

bool kp_out_prints(const struct d_kplan *k, unsigned clause)
{
	return k->vars && out_clause(k, clause, true);
}

bool kp_out_op(const struct d_kplan *k, struct ubpf_kplan *pl, unsigned at,
	       const struct node *a)
{
	struct ubpf_kop *o = &pl->ops[at];
	unsigned off = 0, nd = 0;
	uint8_t sz = 8, sg = 1;

	for (unsigned pc = 0; pc < at; pc++) {
		/* (a form's but the last's: the last's slots, below) */
		if (!(pl->ops[pc].flags & UBPF_KF_ALT))
			off += ubpf_kop_room(pl->ops[pc].op);
		nd += pl->ops[pc].op == UBPF_K_ODONE;
	}
	switch (o->op) {
	case UBPF_K_SPEC: /* a step's tag: its slot, its clause's bit */
	case UBPF_K_SPECU:
	case UBPF_K_SPECX:
		o->slot = (uint16_t)off;
		o->agg = (uint16_t)nd;
		o->imm = k->prog->nspec;
		return nd < UBPF_KOUTS &&
		       sizeof(struct ubpf_kout) + off + ubpf_kop_room(o->op) <=
			       UBPF_KOUTMAX;
	case UBPF_K_ODONE:
		o->n = (uint8_t)nd;
		return nd < UBPF_KOUTS;
	case UBPF_K_SCLR:
	case UBPF_K_SLIT:
	case UBPF_K_SCOMM:
	case UBPF_K_SMOV:
	case UBPF_K_SCHR:
		o->imm = (int64_t)k->prog->strsize - 1;
		return true;
	case UBPF_K_OSTK: /* the record's: no byte of the area */
		return true;
	case UBPF_K_MSTR: /* its copy's n, imm, agg, step: emit_stmt()'s */
		o->slot = (uint16_t)off;
		return sizeof(struct ubpf_kout) + off + ubpf_kop_room(o->op) <=
		       UBPF_KOUTMAX;
	case UBPF_K_SSTR: /* its address and length; its clause's bit */
	case UBPF_K_OVSTR:
		o->imm = (int64_t)k->prog->strsize - 1;
		o->agg = (uint16_t)off;
		o->levels = (uint16_t)nd;
		return nd < UBPF_KOUTS &&
		       sizeof(struct ubpf_kout) + off + ubpf_kop_room(o->op) <=
			       UBPF_KOUTMAX;
	case UBPF_K_OUT:
		/* the value's type, for printing: clause_typed() compares
		 * it whichever of the clause's variables are set */
		(void)kp_ty(k, a, &sz, &sg);
		o->sz = sz;
		o->sg = sg;
		break;
	default: /* OSTR: the interpreter's copyinstr() reads as much
		  * (a, the copyinstr() or args[N]: strsize - 1, or
		  * copyinstr(E, N)'s count); its clause's bit, set where a
		  * fault ends it (its jump) */
		o->imm = (int64_t)k->prog->strsize - 1;
		if (o->op == UBPF_K_OSTR && a && kp_ostr_count(k->prog, a) > 0)
			o->imm = kp_ostr_count(k->prog, a);
		o->levels = (uint16_t)nd;
		if (o->jump && nd >= UBPF_KOUTS)
			return false;
		break;
	}
	o->slot = (uint16_t)off;
	return sizeof(struct ubpf_kout) + off + ubpf_kop_room(o->op) <=
	       UBPF_KOUTMAX;
}

bool d_kplan_out(const struct d_kplan *k, unsigned clause)
{
	return k && k->vars && clause < k->prog->nclauses &&
	       d_kplan_clause(k, clause) && out_clause(k, clause, true);
}

bool d_kplan_ukey(const struct d_kplan *k, unsigned clause, bool *prints,
		  bool *names, bool *psargs)
{
	const struct clause *c;
	bool uk = false;

	*prints = *names = *psargs = false;
	if (!d_kplan_out(k, clause))
		return false;
	c = &k->prog->clauses[clause];
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct kstmt *ks = &k->st[k->first[clause] + i];

		if (ks->out && (d_stmt_uname(k->prog, c->flat[i]) ||
				d_stmt_ucall(k->prog, c->flat[i])))
			*names = true;
		else if (ks->out && d_stmt_pkey(k->prog, c->flat[i]))
			*psargs = true;
		else if (ks->out && c->flat[i]->kind == S_AGG)
			uk = true;
		else if (ks->out)
			*prints = true;
	}
	return uk;
}

bool d_kplan_out_area(const struct d_kplan *k, unsigned clause)
{
	return k && k->vars && clause < k->prog->nclauses &&
	       (d_kplan_vin(k, clause) ||
		((d_kplan_clause(k, clause) || d_kplan_sout(k, clause)) &&
		 out_clause(k, clause, false)));
}

/* The out area's bytes of statements [from, to) of clause's flat list,
 * the branches of their ifs included: each if with a slot (kp_if_out())
 * its 8, and both branches, whose slots are static */
unsigned kp_out_list_bytes(const struct d_kplan *k, unsigned clause,
			   unsigned from, unsigned to)
{
	const struct clause *c = &k->prog->clauses[clause];
	unsigned n = 0;

	for (unsigned i = from; i < to; i++) {
		const struct stmt *st = c->flat[i];
		const struct kstmt *ks = &k->st[k->first[clause] + i];

		if (ks->cond && kp_if_out(k, clause, i))
			n += kp_out_size(false) +
			     kp_out_list_bytes(k, clause, st->fbody, st->fend);
		if (ks->sstr)
			n += SSTR_SIZE * ks->nsleaves;
		if (ks->spec)
			n += KTAG_SIZE;
		if (!ks->out)
			continue;
		if (ks->forms) /* its form's slot (form_slot()) */
			n += kp_out_size(false);
		for (unsigned j = 0; j < kp_out_nargs(st); j++) {
			bool s;
			const struct node *a = kp_out_arg(st, j, &s);
			struct kp_leaf lv[KP_LEAVES];
			int nl = kp_out_ftime(k, st, j, lv);

			for (int l = 0; l < nl; l++) /* its leaves' */
				n += kp_out_size(lv[l].kind != UBPF_K_OUT);
			if (nl < 0 &&
			    (s || (!kp_out_here(a) && !kp_out_stk(a))))
				n += kp_out_size(s || kp_out_svar(k, a) ||
						 kp_out_mstr(k, a));
		}
	}
	return n;
}

unsigned d_kplan_out_bytes(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c = &k->prog->clauses[clause];
	unsigned n = d_kplan_spred(k, clause) ? kp_out_size(false) : 0;

	if (d_kplan_vin(k, clause)) { /* its variables' values */
		bool *mark = xcalloc(k->prog->nvars, sizeof(*mark));

		n = kp_vin_count(k, clause, mark) * kp_out_size(false);
		free(mark);
		return n;
	}

	return n + kp_out_list_bytes(k, clause, 0, c->nstmts);
}

bool d_kplan_prints(const struct ubpf_kplan *pl)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_ODONE)
			return true;
	return false;
}

/* Does n read execname? */
static bool comm_in(const struct node *n)
{
	if (!n)
		return false;
	if (kp_is_comm(n) || comm_in(n->a) || comm_in(n->b) || comm_in(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (comm_in(n->args[i]))
			return true;
	return false;
}

/* Does a statement of v (n of them) key an aggregation by execname, a
 * literal or a ?: (CKEY, LKEY), or compare execname (CVCMP)? */
static bool kstr_in(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (comm_in(v[i].e) || kstr_in(v[i].body, v[i].nbody) ||
		    kstr_in(v[i].els, v[i].nels))
			return true;
		for (unsigned j = 0; j < v[i].nkeys; j++)
			if (kp_is_comm(v[i].keys[j]) ||
			    v[i].keys[j]->op == N_STR ||
			    v[i].keys[j]->op == N_TERN)
				return true;
	}
	return false;
}

bool d_kplan_out_any(const struct d_prog *p)
{
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		if (comm_in(p->clauses[ci].pred) ||
		    kstr_in(p->clauses[ci].stmts, p->clauses[ci].nstmts))
			return true; /* their keys, copies: in cgbuf */
	for (unsigned ci = 0; ci < p->nclauses; ci++)
		for (unsigned i = 0; i < p->clauses[ci].nflat; i++) {
			const struct stmt *st = p->clauses[ci].flat[i];

			/* (a name key's count(): its address in the area) */
			if (st->kind == S_PRINTF || st->kind == S_TRACE ||
			    d_stmt_uname(p, st) || d_stmt_ucall(p, st))
				return true;
			/* a string variable's store (SSTR: an out area,
			 * its copy in cgbuf) where nothing prints */
			if (st->kind == S_EXPR && st->e &&
			    st->e->op == N_ASSIGN &&
			    kp_str_var_of(p, st->e->a) >= 0)
				return true;
		}
	/* a self-> integer, which a clause user space runs may read from
	 * its record's area (kplan_vin.c's "Shared self-> variables") */
	for (unsigned v = 0; v < p->nvars; v++)
		if (p->vars[v].scope == SC_SELF && p->vars[v].kind != T_STR)
			return true;
	return false;
}

/*
 * Argument j of st, an argument string: copyinstr(argN) or args[N]
 * printed by %s or trace() (kp_out_sarg(), at a probe declaring it a
 * string, the only one whose plan has its OSTR), the string the record
 * path reads with d_arg_str(): N, else -1
 */
int kp_out_astr(const struct stmt *st, unsigned j)
{
	int n = kp_out_sarg(st, j);

	return n >= 0 ? n : kp_ostr_arg(kp_out_node(st, j));
}

/*
 * Statement i of clause ci's first R2 form (doc/DESIGN.md §8, "R2 and
 * R3: the as-built plan"): a copy of an argument string whose failure
 * must end the clause at the hit -- a printf() or trace() argument
 * that is one (kp_out_astr()) or such a leaf (kp_ostr_arg()) of one
 * dtrace computes (kp_out_ftime(), under a ?: too), where a statement other
 * than printf() and trace() follows (kp_out_ends()), or a string
 * variable's store of copyinstr(argN): its argument's number, else -1.
 * From the tree, not k->st (kp_out_ok() asks it).
 */
int kp_out_apre(const struct d_kplan *k, unsigned ci, unsigned i)
{
	const struct clause *c = &k->prog->clauses[ci];
	const struct stmt *st = c->flat[i];
	const struct node *e = st->e;

	if (st->kind == S_EXPR && e && e->op == N_ASSIGN && e->sub == '=' &&
	    e->a->op == N_VAR && e->a->sub >= 0 &&
	    (unsigned)e->a->sub < k->prog->nvars &&
	    k->prog->vars[e->a->sub].kind == T_STR) {
		/* its copies: a strjoin()'s (kplan_str.c's "Joins"), a
		 * format-time variable's leaves (kplan_fkey.c), or one */
		const struct node *pv[KP_JPARTS];
		const struct node *const *lv;
		int np = kp_join_parts(k, e->b, pv);
		unsigned nl;

		for (int l = 0; l < np; l++) /* (a literal's is -1) */
			if (kp_copyinstr_arg(pv[l]) >= 0)
				return kp_copyinstr_arg(pv[l]);
		lv = kp_fvar_leaves(k, kp_fvar_store(k, st), &nl);
		for (unsigned l = 0; l < nl; l++)
			if (kp_copyinstr_arg(lv[l]) >= 0)
				return kp_copyinstr_arg(lv[l]);
		return -1;
	}
	if ((st->kind != S_PRINTF && st->kind != S_TRACE) || !kp_out_ends(c, i))
		return -1;
	for (unsigned j = 0; j < kp_out_nargs(st); j++) {
		struct kp_leaf lv[KP_LEAVES];
		int n = kp_out_astr(st, j), nl;

		if (n >= 0)
			return n;
		nl = kp_out_ftime(k, st, j, lv);
		for (int l = 0; l < nl; l++)
			if (lv[l].kind == UBPF_K_OSTR &&
			    kp_ostr_arg(lv[l].n) >= 0)
				return kp_ostr_arg(lv[l].n);
	}
	return -1;
}
