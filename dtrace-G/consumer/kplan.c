// SPDX-License-Identifier: MIT
/*
 * kplan.c - which clauses of a D program a BPF program can run in the
 * traced thread, and folding what it aggregated back into the
 * program's aggregations (kplan.h).  Its parts: which variables the
 * kernel keeps are kplan_vars.c's (the string variables kplan_svar.c's,
 * the clauses user space runs that read the kernel's self-> integers
 * kplan_vin.c's), the instructions it runs for one probe kplan_emit.c's
 * (with kplan_stmt.c's and kplan_expr.c's), the printf() and trace()
 * values it computes kplan_out.c's, why a clause is not the kernel's
 * (-v) kplan_why.c's (why an untyped clause has no typed forms
 * kplan_why_form.c's), the strings a plan compares, measures, stores
 * and keys by kplan_str.c's, what exit() and tick-N's printa(), clear() and
 * trunc() cut (the horizon, the lease, the flood, exit() at a traced
 * probe) kplan_exit.c's, speculating clauses kplan_spec.c's, and the
 * merge of the kernel's entries into the program's aggregations
 * kplan_merge.c's, which clauses run at a probe that types args[N]
 * otherwise kplan_here.c's, the members read through copyin()'s
 * pointers kplan_mem.c's, the global variables it counts, as sum()s
 * folded into them, kplan_gcnt.c's (kplan_impl.h is what they share).
 * This file decides which clauses, and types what the kernel computes.
 *
 * It is code generation, so it lives with the consumer, not with the D
 * language (dtrace-G/d/ knows nothing of the kernel: tests/run-layers.sh
 * checks).  It reads the D program's trees (../d/d_impl.h), as a
 * compiler's back end reads its front end's.
 *
 * A clause qualifies when it only aggregates integers (and, asked with
 * D_KPLAN_VARS, stores them in variables, below):
 *
 *	probe /pred/ { @a[k1, ...] = count() | sum(e) | avg(e) | min(e)
 *		| max(e) | quantize(e) | lquantize(e, lo, hi[, step]); ... }
 *
 * (and, with D_KPLAN_VARS, stddev(e) | llquantize(e, f, lo, hi, steps):
 * below)
 *
 * where pred, the keys and e are integer constants, arg0..arg11,
 * args[N] (N a constant) where the probe declares argument N an
 * integer (typed per probe: kp_ty_at(), kplan_emit.c's args_keys()), pid,
 * tid, id, casts, the unary and binary operators but assignment, / and
 * % by a constant (or a negated one) other than 0, && || ^^ and ?: with
 * both branches of one type; a key may also be probeprov, probemod,
 * probefunc or
 * probename, which the kernel keeps as the probe's ID and the merge
 * turns back into the name.  Anything else (a variable, a string, a
 * function, printf() -- but with D_KPLAN_VARS, of values the kernel
 * computes: kplan_out.c --, a quantize() increment, more than
 * UBPF_KMAXKEYS keys) keeps the clause in user space: so does ustack()
 * or ucaller, whose stack only dtrace can unwind (ustack.c), but a
 * stack printed whole (kplan_out.c's OSTK: dtrace unwinds the record's
 * as it formats) or counted as an aggregation's only key (the same
 * OSTK, the update dtrace's from the record: kplan_out.c's "User
 * stacks as aggregation keys").  Such a
 * clause reads nothing another clause writes and writes nothing another
 * clause reads but its
 * aggregations, so it gives the same result wherever it runs, before or
 * after the probe's other clauses: a probe may run some clauses in the
 * kernel and the rest from its record.  What breaks that is a clause of
 * a traced probe that reads or resets an aggregation while tracing goes
 * on (printa(), clear(), trunc()) or stops the run (exit()): a program
 * with one runs nothing in the kernel, but for exit(), printa(),
 * clear() and trunc() in tick-N clauses and exit() decided at the hit
 * in a traced probe's (kplan_exit.c).  BEGIN and END run in dtrace; the merge
 * comes before END.
 *
 * Same bits.  The user-space evaluator (../d/run.c) computes as DTrace does:
 * 64 bits, the C type of a result deciding only signed or unsigned
 * comparison, division and >>, and narrowing only at casts (and keys);
 * the types follow from the tree alone (the ?: rule above sees to it),
 * so the plan carries them: a cast narrows (UBPF_K_NORM), the
 * operations leave their 64 bits (sz 8), as binop() and reg() do.  Keys
 * keep their type per aggregating statement (the kernel's key names the
 * statement, not the aggregation), so 1 (int)
 * and 1 (long) stay two entries, as d_key_add() makes them.  A
 * statement without keys gets slots of the array kflat instead of hash
 * entries; a constant right operand rides in its operation (UBPF_KF_IMM),
 * already converted.
 *
 * Variables (D_KPLAN_VARS, for the generated programs of
 * ../consumer/cgen.c only).  A clause may also read cpu, uid and gid
 * (UBPF_K_CPU, _UID, _GID: the helpers the record's header and ids come
 * from, so the kernel's value is the one user space would read), ppid
 * where the kernel's BTF says where task_struct keeps the parent
 * (D_KPLAN_PPID; UBPF_K_PPID reads current->real_parent->tgid at the
 * offsets d_kplan_ppid() gives, as cgen_rec.c's anc_walk() and
 * cgen_kprov.c's kp_kctx() read it into the record for user space, so
 * a reparented process's is its new parent's in both; without the
 * BTF's offsets, user space's),
 * progenyof() of a constant pid with those offsets, in a program whose
 * kernel keeps no self-> variable (UBPF_K_PROG: kp_prog_arg()), and of a
 * pid the kernel computes there (UBPF_K_PROGX: kp_progx_arg()),
 * vtimestamp where the run keeps the clock (D_KPLAN_VTIME; UBPF_K_VTIME,
 * the prologue's one read a hit, the record's; beside self-> variables
 * the kernel keeps, each read a fault site: kplan_vars.c's vfault),
 * curpsinfo->pr_euid and pr_egid, pr_pgid and pr_sid where the BTF
 * says where task_struct keeps cred and the process's pids (D_KPLAN_ECRED,
 * D_KPLAN_SESS; UBPF_K_ECRED and UBPF_K_SESS read what cgen_rec.c's
 * u_ecred() and u_sess() read into the record: the cred's euid and
 * egid, the level-0 nr of signal->pids[PIDTYPE_PGID, _SID], the ids of
 * the namespace dtrace prints pid in, a setpgid() or setsid() before
 * the hit seen by both; at a uprobe, the only probe whose plan reads
 * them, the thread is alive in user mode, so its cred, signal and pids
 * are there and no read faults, where the record's would have left
 * them out and user space faulted), errno
 * (run.c's is the firing's errnum, which kprov_syscall.c's sys_fire()
 * sets at a system call's return alone, from arg0, the value the
 * kernel returned: -arg0 where it is -4095..-1, else 0; the plan
 * computes the same from ARG 0, which reads what the record carries,
 * where the probe says so, d_probe's errret, kplan_expr.c's kp_errno(),
 * and is the constant 0 at every other probe),
 * walltimestamp (the hit's timestamp plus the offset records.c's
 * hit_prep() adds, an immediate: d_kplan_wall()), and self-> and this->
 * integer variables (global arrays too: kplan_garr.c) and timestamp,
 * and store them (`v = e`, `v op= e`,
 * `v++` and `v--` statements: kp_stored()),
 * when the kernel keeps those variables: kp_vars_decide() takes a variable
 * only if every traced clause that touches it runs in the kernel (else
 * user space and the kernel would each have a copy), taking clauses and
 * variables away until nothing changes, but for a self-> integer that
 * a clause user space runs only reads, whose values at its place the
 * record carries (kplan_vin.c's "Shared self-> variables"); BEGIN and
 * END are dtrace's own thread's, apart.  So the "reads nothing another
 * clause writes" above still holds between the kernel's clauses and user
 * space's.  D types a variable's read dynamically -- what was last
 * stored, or unset its
 * zero's type (d_var_zero()) -- so a variable gets the one type T all
 * its stores give it (a self-> store of the constant 0 deletes and does
 * not count; a store reading the variable itself is tried with T its
 * zero's type), and a clause is taken only if its plan is the same
 * instruction for instruction, with the same key types, whichever of
 * its variables (those whose T differs from their zero's) are set
 * (clause_typed(), up to 4 such variables or element reads).  The
 * generated programs also keep thread-local arrays (self->a[k...],
 * integer keys: each narrowed to its type, its value the element's key
 * whatever the type, as ../d/value.c's d_dyn_key_add() keys it), their
 * elements 8 bytes as
 * stored, an absent one 0, of the one T all stores give them as a
 * variable's; where T is not the zero's (timestamp: KV_ELEMS), one
 * element may be set where another is not, so each read of an element
 * is typed set and unset apart (kplan_vars.c's open_bits(), elem_ty()):
 * `self->s[k] = timestamp` then `/self->s[k]/` and `timestamp -
 * self->s[k]` compute alike either way and are taken; `self->s[k] > 0`
 * (unsigned against signed) is not.  The kernel keeps no type per
 * element: it needs none where no plan depends on it.  The strings
 * the generated programs compare, measure, store and key by are
 * kplan_str.c's.
 *
 * stddev() and llquantize() (D_KPLAN_VARS: cgen_agg.c's code only;
 * the generic program, kfix.bpf.h and drti's recorder, whose plans are
 * made without it, never see them, so a clause using one stays in user
 * space there, decided here).  User space (../d/agg.c) keeps stddev()
 * as four words: hits, the sum, and the sum of |v|^2 as 128 bits (low
 * word first), each wrapping as unsigned arithmetic, and prints a
 * value computed from them.  The kernel keeps the same sums in two
 * buckets of the statement's key (kagg_bpf.h): 0 {hits, sum} as avg(),
 * 1 {low, high} of the squares, added at the hit with the carry
 * (cgen_agg.c's stddev_sq(): |v|^2 from v's 32-bit halves, every
 * product exact in 64 bits, |INT64_MIN| = 2^63 included); the merge
 * adds each CPU's pair as one 128-bit number, so sums mod 2^64 and mod
 * 2^128, whatever the order, give agg.c's words exactly.
 * llquantize()'s bucket is agg.c's llq_bucket() with its parameters as
 * constants (packed into the AGG's imm): cgen_agg.c's llq_bucket()
 * compares v with factor^low, then with each factor^(m+1), m = low..
 * high, and divides v - factor^m by the order's width, all 64-bit
 * values the compiler made sure fit, unrolled (at most 63 orders), so
 * the verifier sees no loop.  An increment (the sixth argument) keeps
 * the clause in user space, as quantize()'s does, and so do more than
 * 65,535 buckets (the key's bucket is a __u16).
 *
 * Record gates (D_KPLAN_VARS).  A clause that stays in user space
 * still needs its record, but only for the hits where it may run: when
 * its predicate is integers the hit alone decides (gate_ok(): no
 * variable, string or timestamp, nothing that can fault), the
 * generated program tests it (d_kplan_gate(), kplan_emit.c) and writes
 * the record only when some clause's test held (bpf_agg.c's
 * plan_of(), when every such clause of the probe is gated).  User
 * space runs the same clauses from the same records, so nothing it
 * prints changes.  A gate changes nothing a clause sees, so exit(),
 * printa() and the like, which keep every clause out of the kernel,
 * leave gates in.  A clause that reads self-> integers the kernel
 * keeps, whose predicate the kernel tests at its place among the
 * probe's clauses (kplan_vin.c's "Shared self-> variables",
 * d_kplan_vpred()), is a gate of its own: its ODONE asks for the
 * record.
 *
 * raise() at the hit (D_KPLAN_VARS).  raise(), stop(), system() and
 * setopt() act outside the program's data, so they kept every clause
 * of it in user space (kp_stmts_stop(): "an action the kernel's plans
 * are not ordered with"), and dtrace sent raise()'s signal when it
 * read the record, after the thread had run on.  raise() of a constant
 * signal, 1 to 64 (kp_raise_sig(): run.c's range, the kernel's
 * valid_signal()), and stop(), in a clause whose probes all run
 * generated programs, not a tick-N one's, are statements of the
 * kernel's instead (KP_ST_RAISE, kstmt's raise): RAISE sends the
 * signal to the firing thread (bpf_send_signal_thread()), stop()'s
 * SIGSTOP to its process (bpf_send_signal()), at its place among the
 * clause's statements, as DTrace posts them in probe context.  Any
 * other raise() keeps the program user space's, as before.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "text.h"


/* ------------------------------------------------------------------ */
/* Which clauses */

/*
 * progenyof(p) the kernel computes (UBPF_K_PROG): p an integer constant
 * once folded ($target, $1, $pid, a literal), with the BTF's offsets of
 * the parent (D_KPLAN_PPID, k->ppid), in a program whose kernel keeps no
 * self-> variable (k->noprog: a chain the walk cannot finish sends the
 * hit to user space whole, which such a program's hits cannot go to);
 * its pid as func.c compares it, (uint32_t)(pid_t)p, into *q.
 * doc/DESIGN.md's "progenyof() in the generated programs".
 */
bool kp_prog_arg(const struct d_kplan *k, const struct node *n, uint32_t *q)
{
	int64_t v;

	if (!k || !k->ppid || k->noprog || n->op != N_FUNC ||
	    d_funcs[n->sub].id != F_PROGENYOF || n->nargs != 1 ||
	    !d_const_int(n->args[0], &v))
		return false;
	if (q)
		*q = (uint32_t)(int32_t)v;
	return true;
}

/*
 * progenyof(p) of a p the kernel computes at pr (an integer: kp_ty_at()),
 * not a constant (UBPF_K_PROGX), under kp_prog_arg()'s conditions: the
 * plan's walk keeps the whole chain in cgbuf (pl->ancx, cgen_rec.c's
 * cgen_anc_plan()) and PROGX compares p's low 32 bits with the hit's
 * pid and each link there, as func.c compares (pid_t)p.  doc/DESIGN.md's
 * "progenyof() of a pid the plan computes".
 */
bool kp_progx_arg(const struct d_kplan *k, const struct d_probe *pr,
		  const struct node *n)
{
	uint8_t sz, sg;

	return k && k->ppid && !k->noprog && !k->noprogx && n->op == N_FUNC &&
	       d_funcs[n->sub].id == F_PROGENYOF && n->nargs == 1 &&
	       !kp_prog_arg(k, n, NULL) && n->args[0]->kind != T_STR &&
	       kp_ty_at(k, pr, n->args[0], &sz, &sg);
}

/*
 * The type a read of variable v gives: what every store gave it (its T,
 * see d_kplan_new()) or, unset, its zero's type (d_var_zero()), as
 * k->absent says; false for a variable the kernel does not keep.
 */
static bool var_ty(const struct d_kplan *k, unsigned v, uint8_t *sz,
		   uint8_t *sg)
{
	const struct var *var;

	if (!k || !k->vars || v >= k->prog->nvars ||
	    (k->vst[v] != KV_KERN && k->vst[v] != KV_RCON))
		return false;
	var = &k->prog->vars[v];
	if (k->vbit[v] >= 0 && (k->absent >> k->vbit[v] & 1)) {
		*sz = var->declared ? var->sz : 8;
		*sg = var->declared ? var->sg : 1;
	} else {
		*sz = k->vsz[v];
		*sg = k->vsg[v];
	}
	return true;
}

/*
 * The type a read n of an element of self->a[] gives: var_ty()'s, or
 * where the array's T differs from its zero's (KV_ELEMS), the zero's
 * when n is a read being typed unset (kplan_vars.c's open_bits()).
 */
static bool elem_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
		    uint8_t *sg)
{
	const struct var *var;
	unsigned v = (unsigned)n->sub;

	if (!var_ty(k, v, sz, sg))
		return false;
	if (k->vbit[v] != KV_ELEMS)
		return true;
	var = &k->prog->vars[v];
	for (unsigned i = 0; i < k->nelem; i++)
		if (k->elem[i] == n && (k->absent >> (k->nbits + (int)i) & 1)) {
			*sz = var->declared ? var->sz : 8;
			*sg = var->declared ? var->sg : 1;
		}
	return true;
}

const struct d_probe kp_anyprobe;

/*
 * The type of an integer expression the kernel can compute; false if
 * none.  args[N] (N a constant) has its declared type at probe pr
 * (run.c's d_args_int(): what the record's argument N reads as there);
 * pr KP_ANYPROBE, deciding a clause before any probe is known, types it
 * int64_t, and kplan_emit.c types the clause again at each probe,
 * leaving it to user space where that fails; pr NULL: no args[N].
 * uregs[C] is typed so too: 64 bits unsigned, at a uprobe site alone.
 */
bool kp_ty_at(const struct d_kplan *k, const struct d_probe *pr,
	      const struct node *n, uint8_t *sz, uint8_t *sg)
{
	uint8_t az, ag, bz, bg, cz, cg;

	/* a node typed per probe that its clause must not take, since it
	 * cannot be user space's at a probe where it does not type
	 * (kplan_here.c's noslen: strlen(args[N]), uregs[], a ?: whose
	 * branches args[N] types apart, an args[N] key the probes type
	 * apart) */
	if (k && k->nnoslen && !kp_typed_node(k, n))
		return false;
	switch (n->op) {
	case N_INT:
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_ARGN:
		*sz = 8;
		*sg = 1;
		return n->sub >= 0 && n->sub < D_MAXARGS;
	case N_ARGS: /* an integer where the probe declares one */
		if (!pr || kp_args_index(n) < 0 || n->a->op != N_INT)
			return false;
		if (pr == KP_ANYPROBE) {
			*sz = 8;
			*sg = 1;
			return true;
		}
		return d_args_int(pr, (unsigned)n->a->ival, sz, sg);
	case N_UREGS: /* a uprobe site's register (kplan_expr.c's kp_ureg()):
		       * not at a kernel probe, nor in a clause tied to
		       * self-> that may fire at one (kp_typed_node()) */
		*sz = 8;
		*sg = 0;
		return k && k->vars && kp_ureg(n) >= 0 && kp_typed_node(k, n) &&
		       (!pr || pr == KP_ANYPROBE || kp_usite(pr));
	case N_VAR: /* a this-> read after a store: set (kp_dset()) */
		if (k && kp_dset(k, n) && k->vars &&
		    k->vst[n->sub] == KV_KERN) {
			*sz = k->vsz[n->sub];
			*sg = k->vsg[n->sub];
			return true;
		}
		return var_ty(k, (unsigned)n->sub, sz, sg);
	case N_ASSOC: /* self->a[k...]: integer keys */
		if (!n->nargs || n->nargs > UBPF_KMAXKEYS)
			return false;
		for (unsigned i = 0; i < n->nargs; i++) /* no args[N] */
			if (!kp_akey(k, n, i) &&	/* or a name's number */
			    !kp_ty(k, n->args[i], &az, &ag))
				return false;
		return elem_ty(k, n, sz, sg);
	case N_BUILTIN:
		switch (d_builtins[n->sub].id) {
		case B_TIMESTAMP:
		case B_WALLTIMESTAMP: /* timestamp + k->wall, as hit_prep() */
			*sz = 8;
			*sg = 0;
			return k && k->vars;
		case B_VTIMESTAMP: /* the record's (UBPF_K_VTIME) */
			*sz = 8;
			*sg = 0;
			return k && k->vtime && !k->novt;
		case B_PID:
		case B_TID:
			*sz = 4;
			*sg = 1;
			return true;
		case B_ID:
			*sz = 4;
			*sg = 0;
			return true;
		case B_CPU: /* the generated program's helpers: */
			*sz = 4;
			*sg = 1;
			return k && k->vars;
		case B_UID: /* the record's values, read as it reads them */
		case B_GID:
			*sz = 4;
			*sg = 0;
			return k && k->vars;
		case B_PPID: /* read as the record's (UBPF_K_PPID) */
			*sz = 4;
			*sg = 1;
			return k && k->ppid;
		case B_EUID: /* read as the record's (UBPF_K_ECRED) */
		case B_EGID:
			*sz = 4;
			*sg = 0;
			return k && k->ecred;
		case B_PGID: /* ... (UBPF_K_SESS) */
		case B_SID:
			*sz = 4;
			*sg = 1;
			return k && k->sess;
		case B_ERRNO: /* from arg0 at a system call's return, else 0
			       * (kp_errno(): d_probe's errret) */
			*sz = 4;
			*sg = 1;
			return k && k->vars;
		}
		return false;
	case N_UN:
		if (!kp_ty_at(k, pr, n->a, &az, &ag))
			return false;
		if (n->sub == '!') {
			*sz = 4;
			*sg = 1;
			return true;
		}
		if (n->sub != '~' && n->sub != '-' && n->sub != '+')
			return false;
		*sz = az < 4 ? 4 : az;
		*sg = az < 4 ? 1 : ag;
		return true;
	case N_CAST:
		if (!kp_ty_at(k, pr, n->a, &az, &ag))
			return false;
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_BIN:
		if (kp_str_cmp(k, n, NULL, NULL) ||
		    kp_svar_cmp(k, n, NULL, NULL) ||
		    kp_svar_ocmp(k, n, NULL, NULL, NULL) ||
		    kp_svar_vv(k, n, NULL, NULL) ||
		    kp_svar_acmp(k, n, NULL, NULL) ||
		    kp_comm_cmp(k, n, NULL, NULL, NULL) ||
		    kp_comm_arg(k, n, NULL, NULL) ||
		    (k && kp_ident_cmp(k, n))) {
			*sz = 4;
			*sg = 1;
			return true;
		}
		if (n->ptr || (n->sub == '-' && n->a->ptr && n->b->ptr) ||
		    !kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg))
			return false; /* pointer arithmetic scales: mem.c */
		if (d_op_cmp(n->sub)) {
			*sz = 4;
			*sg = 1;
			return true;
		}
		switch (n->sub) {
		case OP_SHL:
		case OP_SHR:
			*sz = az < 4 ? 4 : az;
			*sg = az < 4 ? 1 : ag;
			return true;
		case '+':
		case '-':
		case '*':
		case '&':
		case '|':
		case '^':
		case '/':
		case '%':
			break;
		default:
			return false;
		}
		/* run.c's common_type() */
		{
			unsigned tz;
			bool tg;

			d_int_common(az, ag, bz, bg, &tz, &tg);
			*sz = (uint8_t)tz;
			*sg = tg;
		}
		/* no division that could fault */
		if (n->sub == '/' || n->sub == '%') {
			int64_t v;

			return d_const_int(n->b, &v) &&
			       d_dv_int(v, *sz, *sg).i != 0;
		}
		return true;
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		if (!kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg))
			return false;
		*sz = 4;
		*sg = 1;
		return true;
	case N_FUNC: /* strlen() of a self-> string the kernel keeps, of
		      * copyinstr(argN) or args[N] (kp_arg_strlen()) or of
		      * execname; progenyof() of a constant (kp_prog_arg()) */
		if (kp_prog_arg(k, n, NULL) || kp_progx_arg(k, pr, n)) {
			*sz = d_funcs[n->sub].sz; /* int, func.c's */
			*sg = d_funcs[n->sub].sg;
			return true;
		}
		if (!kp_svar_strlen(k, n, NULL) &&
		    (kp_arg_strlen(k, n) < 0 || !arg_strlen_at(pr, n)) &&
		    !kp_comm_strlen(k, n))
			return false;
		*sz = d_funcs[n->sub].sz; /* size_t, as func.c has it */
		*sg = d_funcs[n->sub].sg;
		return true;
	case N_DEREF: /* read from a copy (kplan_mem.c) */
	case N_MEMBER:
		return kp_mem_ty(k, n, sz, sg);
	case N_TERN:
		if (!kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg) ||
		    !kp_ty_at(k, pr, n->c, &cz, &cg))
			return false;
		/* branches of two types: the one check.c gave the node
		 * (run.c's tern_type(): the branch's 64 bits, retyped), where
		 * it is the branches' common type here too; SEL keeps the
		 * 64 bits */
		if (bz != cz || bg != cg) {
			unsigned tz;
			bool tg;

			d_int_common(bz, bg, cz, cg, &tz, &tg);
			if (!n->sz || tz != n->sz || tg != n->sg)
				return false;
			bz = n->sz;
			bg = n->sg;
		} else if (n->sz) {
			return false; /* check.c typed them otherwise */
		}
		/* the kernel computes both branches; a comparison that
		 * faults at the hit must not run where run.c's would not */
		if (k && k->fmode &&
		    (kp_has_str_cmp(k, n->b) || kp_has_str_cmp(k, n->c)))
			return false;
		*sz = bz;
		*sg = bg;
		return true;
	}
	return false;
}

bool kp_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
	   uint8_t *sg)
{
	return kp_ty_at(k, NULL, n, sz, sg);
}

/* Does n read args[N]? */
bool kp_has_args(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_ARGS || kp_has_args(n->a) || kp_has_args(n->b) ||
	    kp_has_args(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (kp_has_args(n->args[i]))
			return true;
	return false;
}

/* self->v = e or this->v = e, v OP= e, v++, ++v, v--, --v (v also an
 * element self->a[k...]): v's index, else -1 */
int kp_assigned_var(const struct stmt *st)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e ||
	    (e->op != N_ASSIGN && e->op != N_INCDEC) || !e->a ||
	    (e->a->op != N_VAR && e->a->op != N_ASSOC))
		return -1;
	return e->a->sub;
}

const struct node *kp_plain_store(const struct stmt *st, unsigned v)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e || e->op != N_ASSIGN || e->sub != '=' ||
	    !e->a || e->a->op != N_VAR || e->a->sub != (int)v)
		return NULL;
	return e->b;
}

/*
 * The value the store st (kp_assigned_var()) gives its variable: e of
 * v = e; v OP e of v OP= e and v + 1, v - 1 of ++ and -- (pre- or
 * postfix: a statement's value is not used), as run.c computes them
 * (var_get(), binop() with the int 1, var_set()), built in *bin, *one.
 */
const struct node *kp_stored(const struct stmt *st, struct node *bin,
			     struct node *one)
{
	const struct node *e = st->e;

	if (e->op == N_ASSIGN && e->sub == '=')
		return e->b;
	memset(bin, 0, sizeof(*bin));
	bin->op = N_BIN;
	bin->a = e->a;
	bin->line = e->line;
	bin->col = e->col;
	if (e->op == N_ASSIGN) {
		bin->sub = d_compound_op(e->sub);
		bin->b = e->b;
		return bin;
	}
	memset(one, 0, sizeof(*one));
	one->op = N_INT;
	one->ival = 1;
	one->sz = 4;
	one->sg = 1;
	bin->sub = e->sub == OP_INC ? '+' : '-';
	bin->b = one;
	return bin;
}

/*
 * copyinstr(argN) (or stringof(args[N]), or a this-> string that is it,
 * KV_SARG; not args[N] bare, whose kind is each probe's) as a kaggs_v
 * room (AKEY, vkey_pair()), strsize fixed for the run (the room is
 * strsize - 1 bytes, the copy's cut); where the kernel keeps self->
 * variables too, the copy a fault site (fmode): N, else -1
 */
static int arg_room(const struct d_kplan *k, const struct node *n)
{
	if (n->op == N_ARGS || !kp_strsize_fixed(k))
		return -1;
	return kp_arg_room(k, n);
}

/*
 * Key i of st beside ks's string key skey, both of kaggs_v's kinds: a
 * pair (doc/DESIGN.md §8 "String functions printed from the out area",
 * two string keys).  skey's is execname (CKEY), a literal or a probe's
 * name or a ?: of them (LKEY), a ?: with execname (MKEY) or a KV_STR
 * variable (VKEY), and so is key i; the key's s holds the two rooms
 * side by side, the first's UBPF_KVROOM() of its bound (kplan_merge.c's
 * kp_vkey_bound(): 15 for execname, the literal's length, strsize - 1
 * for a variable), then the second's, each NUL-padded: fixed rooms
 * tell every pair apart ("ab" "c" from "a" "bc"), where a
 * concatenation would not.  Both rooms fit the s of struct
 * ubpf_kvskey (UBPF_KVROOMMAX bytes: three variables' at strsize 256),
 * the key built in cgbuf's room for it (cgen.c's cg_room_off()); the
 * map's key is as long as the program's longest room (kplan_merge.c's
 * kp_vkey_imm()), 552 bytes hashed at each hit for two variables at
 * strsize 256 (bench/perhit.sh's selfpair row).  The pair's entries are
 * kaggs_v's alone, never kaggs_w's (its short key would cut the second room:
 * cgen_agg.c's agg_at(), UBPF_KF_VPAIR), and its statement number in
 * the key keeps them apart from a one-string statement's.  Exact as
 * one such key is: each string is the bytes run.c would have keyed
 * by, cut where agg.c cuts a key.  A variable's room may also have
 * an argument's string beside it, either way round (the toolkit's
 * @calls[basename(copyinstr(arg0)), "func", this->name], its first key
 * the leaf: kplan_fkey.c): AKEY copies into its room, strsize - 1 bytes,
 * the copy seq_read() makes for SKEY, cut as copyinstr() cuts it (a
 * string that cannot be read, or that the copy cut, sends the hit to
 * user space whole before the plan, as SKEY's does), KSX_ARG
 * (arg_room()).  Not an argument's beside execname or a literal:
 * kaggs_s keys those (CWKEY; a literal is a format-time key's 0) in 64
 * bytes, not 512.  But where the kernel keeps self-> variables (fmode)
 * an argument's string is a key of kaggs_v alone, beside any of its
 * kinds or another argument's, or on its own (kp_stmt_plain()): there
 * its copy is a fault site (AKEY's, kplan_vars.c's akey_site()), where
 * SKEY's key too long for kaggs_s would be no fault.  Into ks (vkey2,
 * sx2, svar2, an argument's sx or sarg2), else false and ks as it
 * was.
 */
static bool vkey_third(const struct d_kplan *k, const struct stmt *st,
		       unsigned i, struct kstmt *ks);

static bool vkey_pair(const struct d_kplan *k, const struct stmt *st,
		      unsigned i, struct kstmt *ks)
{
	const struct node *n = st->keys[i];
	struct kstmt t = *ks;
	/* skey an argument's string (SKEY so far), which may become a
	 * pair's first room beside a variable (AKEY) */
	bool arg1 = ks->skey >= 0 && ks->svar < 0 && ks->sx == KSX_NONE &&
		    !ks->skey2 && !ks->kcomm &&
		    arg_room(k, st->keys[ks->skey]) >= 0;
	int a;

	if (ks->vkey2)
		return vkey_third(k, st, i, ks);
	if (ks->skey < 0 ||
	    (ks->svar < 0 && ks->sx != KSX_COMM && ks->sx != KSX_LIT &&
	     ks->sx != KSX_MIX && ks->sx != KSX_ARG && !arg1))
		return false;
	t.vkey2 = (uint8_t)(i + 1);
	t.svar2 = -1;
	if (arg1) { /* beside a variable only (AKEY) */
		if (!kp_out_svar(k, n))
			return false;
		t.sx = KSX_ARG;
		t.sx2 = KSX_NONE;
		t.svar2 = n->sub;
	} else if ((ks->svar >= 0 || k->fmode) && (a = arg_room(k, n)) >= 0) {
		/* a variable's, then an argument's; with fault sites, beside
		 * any (no kaggs_s there) */
		t.sx2 = KSX_ARG;
		t.sarg2 = (uint8_t)a;
	} else if (kp_out_svar(k, n)) {
		t.sx2 = KSX_NONE;
		t.svar2 = n->sub;
	} else if (kp_is_comm(n) && kp_strsize_fixed(k)) {
		t.sx2 = KSX_COMM;
	} else if (kp_lit_key(k, n)) {
		t.sx2 = KSX_LIT;
	} else if (kp_mix_key(k, n)) {
		t.sx2 = KSX_MIX;
	} else {
		return false;
	}
	/* "" (a bound of 0): no room of its own for its key instruction
	 * (cgen_svar.c's lkey() takes imm 1 at least) */
	if (!kp_vkey_bound(k, st->keys[ks->skey],
			   ks->svar >= 0 ? KSX_NONE : ks->sx) ||
	    !kp_vkey_bound(k, n, t.sx2) ||
	    kp_vkey_pair(k, &t, NULL) > UBPF_KVROOMMAX)
		return false;
	*ks = t;
	return true;
}

/*
 * Key i of st after ks's pair (vkey_pair()), a third kaggs_v string key:
 * the Ruby toolkit's @mallocs[self->file, self->type, self->name] at
 * every malloc() (rb_malloc.d), which was user space's, a record a
 * call.  A KV_STR variable alone (its bytes as kept: VKEY), its room
 * after the second's, strsize - 1 bytes rounded to a word, so that
 * three variables at strsize 256 fill the s of struct ubpf_kvskey
 * (UBPF_KVROOMMAX, 768 bytes; the map's key 808 bytes, hashed at each
 * hit).  Exact as a pair is: fixed rooms, each NUL-padded, each the
 * bytes run.c keys by; the merge splits the rooms (kplan_merge.c's
 * kp_vkey_rooms()).  Its entries are kaggs_v's alone, as a pair's, and
 * never kaggs_x's (cgen_svar.c's vkey_at(): a short key holds two
 * rooms).  Into ks (vkey3, svar3), else false and ks as it was.
 */
static bool vkey_third(const struct d_kplan *k, const struct stmt *st,
		       unsigned i, struct kstmt *ks)
{
	const struct node *n = st->keys[i];
	struct kstmt t = *ks;

	if (!ks->vkey2 || ks->vkey3 || !kp_out_svar(k, n))
		return false;
	t.vkey3 = (uint8_t)(i + 1);
	t.svar3 = n->sub;
	if (!kp_vkey_bound(k, n, KSX_NONE) ||
	    kp_vkey_pair(k, &t, NULL) > UBPF_KVROOMMAX)
		return false;
	*ks = t;
	return true;
}

/* Is a key of st after key i a string other than args[N] bare? */
static bool str_after(const struct stmt *st, unsigned i)
{
	for (unsigned j = i + 1; j < st->nkeys; j++)
		if (st->keys[j]->kind == T_STR && st->keys[j]->op != N_ARGS)
			return true;
	return false;
}

/* Can the kernel run st?  Its key types into ks. */
/*
 * Keys of one execname and one copyinstr(argN) (or a this-> string
 * that is it, KV_SARG, or stringof(args[N]), the clause user space's
 * at a probe where args[N] is no string: kplan_stmt.c; with bare,
 * args[N] itself, the statement's layout at a probe where it is a
 * string: bare_alts()), or of two
 * copyinstr() (argN and argM, N and M maybe the same), the others
 * integers the kernel computes or the probe's names, in any order:
 * one key of kaggs_s (generated
 * programs).  Two strings: both in its s, the first key's as SKEY
 * copies it, the second's right after its NUL (UBPF_K_SKEY2), both
 * with their NULs at most UBPF_KSKEY bytes (else the hit is user
 * space's whole, as a string key too long for kaggs_s is: seq_read());
 * a string has no NUL, so the bytes up to the first NUL are the first
 * and the next up to the second NUL the second, and the merge splits
 * them so, each cut to strsize - 1 and tainted as SKEY's.
 * execname: the string copied as SKEY copies it into its s, execname
 * (16 bytes, its NUL and the zeros after it included) into two of its
 * words, execname's own k[] and the string key's (0 for SKEY; both
 * are a key's words, so the map tells entries apart by all of it),
 * UBPF_K_CWKEY.  The merge (d_kplan_merge()) makes execname's string
 * of the two words, cut to strsize - 1 as agg.c cuts a key, and
 * tainted, as run.c's execname is.  Both (three string keys:
 * execname and two copyinstr()): the two strings in s, execname in
 * the two words, the merge splitting each as above.  A third
 * copyinstr() (the Ruby scripts' @[basename(copyinstr(arg2)),
 * copyinstr(arg0), copyinstr(arg1)], file, class and method): its
 * string after the second's NUL (SKEY2 flagged as the third, step the
 * first's argument + 1), the three within UBPF_KSKEY bytes or, past
 * them, in kaggs_l's UBPF_KSLONG(3) (cgen_agg.c's "Long string
 * keys"), the merge splitting at the second NUL too; not args[N] bare,
 * whose statement's other layout (bare_alts()) keys an integer there,
 * and a third would take it from it.  Where kp_arg_str() takes
 * a string key (no fault sites: a string that cannot be read, or longer than
 * kaggs_s keeps, sends the hit to user space whole) and strsize is fixed for
 * the run, as for execname's own key (CKEY).  Into ks (skey, sarg, kcomm), else
 * false and ks as it was.
 */
static bool str_pair_keys(const struct d_kplan *k, const struct stmt *st,
			  struct kstmt *ks, bool bare)
{
	int c = -1, s = -1, sa = -1, s2 = -1, sa2 = -1, s3 = -1, sa3 = -1;
	uint8_t sz, sg;

	if (!k->vars || !kp_strsize_fixed(k))
		return false;
	for (unsigned i = 0; i < st->nkeys; i++) {
		/* stringof(args[N]) too (kplan_stmt.c leaves the clause
		 * to user space at a probe where args[N] is no string, as
		 * for a lone one); args[N] bare only with bare, an integer
		 * key at a probe declaring an integer (kargs) in the
		 * statement's other layout (bare_alts()) */
		int a = kp_arg_str(k, st->keys[i]);
		bool plain = a >= 0 && (st->keys[i]->op != N_ARGS || bare);

		if (kp_is_comm(st->keys[i]) && c < 0)
			c = (int)i;
		else if (plain && s < 0)
			s = (int)i, sa = a;
		else if (plain && s2 < 0)
			s2 = (int)i, sa2 = a;
		else if (a >= 0 && st->keys[i]->op != N_ARGS && s3 < 0)
			s3 = (int)i, sa3 = a; /* (not args[N] bare) */
		else if (ident(st->keys[i]) < 0 &&
			 !kp_ty_at(k, KP_ANYPROBE, st->keys[i], &sz, &sg))
			return false;
	}
	if ((c < 0 && s2 < 0) || s < 0)
		return false;
	for (unsigned i = 0; i < st->nkeys; i++) {
		ks->kid[i] = ident(st->keys[i]);
		ks->ksz[i] = 8;
		ks->ksg[i] = 0;
		if ((int)i == c || (int)i == s || (int)i == s2 || (int)i == s3)
			continue;
		if (ks->kid[i] < 0 && kp_has_args(st->keys[i]))
			ks->kargs |= (uint8_t)(1u << i); /* typed per probe */
		if (ks->kid[i] < 0)
			(void)kp_ty_at(k, KP_ANYPROBE, st->keys[i], &ks->ksz[i],
				       &ks->ksg[i]);
	}
	ks->skey = s;
	ks->sarg = (uint8_t)sa;
	ks->kcomm = (uint8_t)(c + 1);
	ks->skey2 = (uint8_t)(s2 + 1);
	ks->sarg2 = (uint8_t)(sa2 < 0 ? 0 : sa2);
	ks->skey3 = (uint8_t)(s3 + 1);
	ks->sarg3 = (uint8_t)(sa3 < 0 ? 0 : sa3);
	if (st->keys[s]->op == N_ARGS)
		ks->sbare |= (uint8_t)(1u << s);
	if (s2 >= 0 && st->keys[s2]->op == N_ARGS)
		ks->sbare |= (uint8_t)(1u << s2);
	return true;
}

/*
 * args[N] bare beside another string key (D_KPLAN_VARS).  A string key
 * that is args[N] at a probe declaring argument N a string, an integer
 * at one declaring an integer: a lone one is kaggs_s's key at the
 * first and kaggs' at the second (kplan_expr.c's skey_int()), but a
 * statement's layout beside another string key (str_pair_keys(): SKEY2
 * or CWKEY, in one kaggs_s key) is fixed before the probes are known,
 * and its bare args[N] can be no integer there.  So str_pair_keys()
 * takes it (k->bare) and each such statement gets a second layout, the
 * one it had without (args[N] an integer key typed per probe, the
 * other string key alone: CKEY, SKEY), as a statement of its own
 * appended to k->st (kstmt's alt) with its own number: at a probe
 * where each bare args[N] of the pair is a string the plan runs the
 * first, elsewhere the second (kp_stmt_at(); kplan_stmt.c), and the
 * merge reads each entry by its statement's layout into the one
 * aggregation.  A probe where neither fits (args[N] undeclared) runs
 * the clause in user space, as for a lone one.
 */
static void bare_alts(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		for (unsigned i = 0; k->ok[ci] && i < p->clauses[ci].nflat;
		     i++) {
			unsigned at = k->first[ci] + i;
			struct kstmt alt;

			if (k->st[at].assign || !k->st[at].sbare ||
			    k->nst + 1 > UINT16_MAX)
				continue;
			k->bare = false;
			if (kp_stmt_ok(k,
				       k->st[at].ost ? k->st[at].ost
						     : k->st[at].st,
				       &alt)) {
				xgrow(&k->st, &k->stcap, (size_t)k->nst + 1,
				      sizeof(*k->st));
				k->st[k->nst] = alt;
				k->st[at].alt = ++k->nst;
			}
			k->bare = true;
		}
	}
}

struct kstmt *kp_stmt_at(const struct d_kplan *k, unsigned clause,
			 unsigned i, const struct d_probe *probe,
			 unsigned *at)
{
	unsigned n = k->first[clause] + i;
	const struct kstmt *ks = &k->st[n];
	bool here = true;

	if (ks->skey >= 0 && (ks->sbare >> ks->skey & 1))
		here = d_args_str(probe, ks->sarg);
	if (ks->skey2 && (ks->sbare >> (ks->skey2 - 1) & 1))
		here = here && d_args_str(probe, ks->sarg2);
	if (!here && ks->alt)
		n = ks->alt - 1;
	if (at)
		*at = n;
	return &k->st[n];
}

bool kp_stmt_plain(const struct d_kplan *k, const struct stmt *st,
		   struct kstmt *ks)
{
	const struct d_prog *p = k->prog;
	const struct agg *a;
	uint8_t sz, sg;
	int v = k->vars ? kp_assigned_var(st) : -1;
	bool bcpy;

	memset(ks, 0, sizeof(*ks));
	ks->st = st;
	ks->slot = -1;
	ks->svar = -1;
	if (kp_bstr_stmt(k, st, &bcpy)) { /* a bounded copy: seq_read()'s */
		ks->skey = -1;
		ks->assign = true;
		ks->agg = ~0u;
		ks->bcpy = bcpy; /* its fault site's test (kplan_bstr.c) */
		ks->noop = !bcpy;
		return true;
	}
	/* "raise() at the hit": RAISE */
	if (st->kind == S_RAISE || st->kind == S_STOP) {
		ks->skey = -1;
		ks->assign = true; /* no aggregation, no store */
		ks->agg = ~0u;
		ks->raise = true;
		return k->vars && kp_raise_sig(st, NULL);
	}
	if ((ks->spec = (uint8_t)kp_spec_stmt(k, st)) != KS_NONE) {
		/* a speculation's step (kplan_spec.c's d_kplan_kspec()): not
		 * an aggregation; speculation() into an integer the kernel
		 * keeps, the others' ID an integer it computes */
		ks->skey = -1;
		ks->assign = true;
		ks->agg = ~0u;
		if (ks->spec == KS_TAKE)
			return v >= 0 && k->vst[v] == KV_KERN;
		return st->e && st->e->kind != T_STR &&
		       kp_ty(k, st->e, &sz, &sg) && !kp_has_str_cmp(k, st->e);
	}
	if (v >= 0 && k->gcnt && k->gcnt[v]) /* a global counted */
		return kp_gcnt_stmt(k, st, ks) > 0;
	if (v >= 0) { /* a store: of a variable kept, of a value it can have */
		struct node bin, one;

		ks->assign = true;
		ks->agg = ~0u;
		if (k->vst[v] == KV_SARG) /* sarg_var() saw it */
			return true;
		if (k->vst[v] == KV_PLACE) /* a place: kplan_mem.c */
			return kp_place_store(k, st);
		if (k->vst[v] == KV_STR) /* kplan_out.c's kp_sstr_ok() */
			return false;
		return var_ty(k, (unsigned)v, &sz, &sg) &&
		       kp_ty(k, st->e->a, &sz, &sg) && /* self->a[k]'s keys */
		       kp_ty(k, kp_stored(st, &bin, &one), &sz, &sg);
	}
	if (st->kind != S_AGG || st->nkeys > UBPF_KMAXKEYS)
		return false;
	a = &p->aggs[st->agg];
	switch (a->fn) {
	case AG_COUNT:
		break;
	case AG_SUM:
	case AG_AVG:
	case AG_MIN:
	case AG_MAX:
		if (st->nargs != 1)
			return false;
		break;
	case AG_QUANTIZE:
		if (st->nargs != 1) /* an increment */
			return false;
		break;
	case AG_LQUANTIZE:
		if (st->nargs > 4 || a->lq_levels >= UINT16_MAX)
			return false;
		break;
	case AG_STDDEV: /* generated programs only ("stddev() and ...") */
		if (!k->vars || st->nargs != 1)
			return false;
		break;
	case AG_LLQUANTIZE: /* no increment; a bucket is a __u16 */
		if (!k->vars || st->nargs != 5 ||
		    a->llq_nbuckets > UINT16_MAX)
			return false;
		break;
	default:
		return false;
	}
	/* the value, as d_agg_update() aggregates it: int64_t */
	if (st->nargs && !kp_ty_at(k, KP_ANYPROBE, st->args[0], &sz, &sg))
		return false;
	ks->agg = st->agg;
	ks->nslots = a->fn == AG_QUANTIZE	? QZ_NBUCKETS
		     : a->fn == AG_LQUANTIZE	? a->lq_levels + 2u
		     : a->fn == AG_LLQUANTIZE	? a->llq_nbuckets
		     : a->fn == AG_STDDEV	? 2
						: 1;
	ks->skey = -1;
	ks->svar = -1;
	/* execname or copyinstr(), and one; args[N] bare in the pair
	 * where that takes, else an integer key beside another pair */
	if (str_pair_keys(k, st, ks, k->bare) ||
	    (k->bare && str_pair_keys(k, st, ks, false)))
		return true;
	for (unsigned i = 0; i < st->nkeys; i++) {
		int sa = kp_arg_str(k, st->keys[i]), ar;

		ks->kid[i] = ident(st->keys[i]);
		ks->ksz[i] = 8;
		ks->ksg[i] = 0;
		if (ks->kid[i] < 0 && vkey_pair(k, st, i, ks))
			continue; /* a second kaggs_v string key */
		ar = k->fmode && ks->skey < 0 ? arg_room(k, st->keys[i]) : -1;
		if (ar >= 0) {
			/* where the kernel keeps self-> variables, an
			 * argument's string is kaggs_v's, its copy a fault
			 * site (AKEY), not kaggs_s's (SKEY), whose too long
			 * a key is no fault */
			ks->skey = (int)i;
			ks->sarg = (uint8_t)ar;
			ks->sx = KSX_ARG;
			continue;
		}
		if (ks->skey < 0 && kp_smix_key(k, st->keys[i]) >= 0) {
			/* c ? copyinstr(argN) : "lit" (SMKEY, kaggs_s) */
			ks->skey = (int)i;
			ks->sarg = (uint8_t)kp_smix_key(k, st->keys[i]);
			ks->sx = KSX_SMIX;
			continue;
		}
		if (sa >= 0 && ks->skey < 0 &&
		    !(st->keys[i]->op == N_ARGS && str_after(st, i))) {
			/* one string key (args[N] bare leaves it to a
			 * string key after it, and is an integer key:
			 * bare_alts()'s layout, where the probe declares
			 * an integer) */
			ks->skey = (int)i;
			ks->sarg = (uint8_t)sa;
			/* args[N] bare: an integer at a probe declaring one
			 * (kplan_expr.c's skey_int(), kaggs' key) */
			if (st->keys[i]->op == N_ARGS)
				ks->kargs |= (uint8_t)(1u << i);
			continue;
		}
		if (ks->skey < 0 && kp_out_svar(k, st->keys[i])) {
			/* ... or a string variable's bytes (VKEY) */
			ks->skey = (int)i;
			ks->svar = st->keys[i]->sub;
			continue;
		}
		if (ks->skey < 0 &&
		    ((kp_is_comm(st->keys[i]) && kp_strsize_fixed(k)) ||
		     kp_lit_key(k, st->keys[i]) ||
		     kp_mix_key(k, st->keys[i]))) {
			/* ... or execname's, or a literal's, or a ?: of
			 * them (CKEY, LKEY, MKEY) */
			ks->skey = (int)i;
			ks->sx = kp_is_comm(st->keys[i])      ? KSX_COMM
				 : kp_lit_key(k, st->keys[i]) ? KSX_LIT
							      : KSX_MIX;
			continue;
		}
		if (ks->kid[i] < 0 && kp_has_args(st->keys[i]))
			ks->kargs |= (uint8_t)(1u << i); /* typed per probe */
		if (ks->kid[i] < 0 &&
		    !kp_ty_at(k, KP_ANYPROBE, st->keys[i], &ks->ksz[i],
			      &ks->ksg[i]))
			return false;
	}
	return true;
}

/*
 * Can the kernel run st?  Its key types into ks.  Where it cannot as
 * written and it has format-time keys or string literals among its keys,
 * its copy with their leaves and 0s instead (kplan_fkey.c), where that
 * can: ks's st the copy, ost st.
 */
bool kp_stmt_ok(const struct d_kplan *k, const struct stmt *st,
		struct kstmt *ks)
{
	const struct stmt *sh;
	unsigned ci;
	uint8_t fk;

	if (kp_stmt_plain(k, st, ks))
		return true;
	if (!(sh = kp_fkey_stmt(k, st, &fk, &ci)))
		return false;
	if (!kp_stmt_plain(k, sh, ks)) {
		/* ks as the statement as written left it */
		(void)kp_stmt_plain(k, st, ks);
		return false;
	}
	ks->fkeys = fk;
	ks->ost = st;
	ks->fci = ci;
	return true;
}

/* Does the clause fire only for dtrace:::BEGIN and dtrace:::END? */
bool kp_dtrace_only(const struct clause *c)
{
	if (c->spec != 0 && c->spec != 4)
		return false;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j], *name = strrchr(d, ':');
		unsigned colons = 0;

		name = name ? name + 1 : d;
		if (strcmp(name, "BEGIN") && strcmp(name, "END"))
			return false;
		for (const char *q = d; *q; q++)
			colons += *q == ':';
		if (colons == 3 && strncmp(d, ":", 1) &&
		    strncmp(d, "dtrace:", 7))
			return false;
	}
	return true;
}

bool kp_raise_sig(const struct stmt *st, int64_t *sig)
{
	int64_t v;

	if (st->kind == S_STOP) { /* the firing process stopped */
		if (sig)
			*sig = SIGSTOP;
		return true;
	}
	if (st->kind != S_RAISE || !st->e || !d_const_int(st->e, &v) || v < 1 ||
	    v > UBPF_KRAISEMAX)
		return false;
	if (sig)
		*sig = v;
	return true;
}

/*
 * The first statement of v that is printa(), clear(), trunc(),
 * normalize(), exit() (but those ok lets through) or what kplan.c does
 * not know, or NULL (kplan_why.c names it).  ok: nothing of its own
 * (KP_ST_NONE); exit() (KP_ST_EXIT: a traced probe's, decided at the
 * hit); exit() and what reads, resets or scales aggregations
 * (KP_ST_TICK: a tick-N clause's, cut at the horizon, the kernel's
 * aggregations folded in at its firing)
 */
const struct stmt *kp_stmts_stop(const struct stmt *v, unsigned n, int ok)
{
	const struct stmt *s;

	for (unsigned i = 0; i < n; i++) {
		switch (v[i].kind) {
		case S_EXPR:
		case S_PRINTF:
		case S_TRACE:
		case S_TRACEMEM:
		case S_AGG:
		/* user space's clauses, which touch no aggregation and
		 * stop nothing (kplan_spec.c's "Speculations") */
		case S_SPECULATE:
		case S_COMMIT:
		case S_DISCARD:
			break;
		case S_EXIT:
			if (!(ok & (KP_ST_EXIT | KP_ST_TICK)))
				return &v[i];
			break;
		case S_PRINTA:
		case S_CLEAR:
		case S_TRUNC:
		case S_NORMALIZE:
		case S_DENORMALIZE:
			if (!(ok & KP_ST_TICK))
				return &v[i];
			break;
		case S_RAISE: /* at the hit: kp_stmt_plain() */
		case S_STOP:
			if (!(ok & KP_ST_RAISE) || !kp_raise_sig(&v[i], NULL))
				return &v[i];
			break;
		case S_IF:
			if ((s = kp_stmts_stop(v[i].body, v[i].nbody, ok)) ||
			    (s = kp_stmts_stop(v[i].els, v[i].nels, ok)))
				return s;
			break;
		default:
			return &v[i];
		}
	}
	return NULL;
}

bool stmts_stop(const struct stmt *v, unsigned n, int ok)
{
	return kp_stmts_stop(v, n, ok) != NULL;
}

void d_kplan_wall(struct d_kplan *k, int64_t off)
{
	k->wall = off;
}

void d_kplan_ppid(struct d_kplan *k, const uint32_t o[2])
{
	k->ppid1[0] = o[0];
	k->ppid1[1] = o[1];
}

void d_kplan_ecred(struct d_kplan *k, const uint32_t o[3])
{
	memcpy(k->ecred1, o, sizeof(k->ecred1));
}

void d_kplan_sess(struct d_kplan *k, const uint32_t o[4])
{
	memcpy(k->sess1, o, sizeof(k->sess1));
}

/* The modes kp_vars_decide() sets one way, as before it first ran: its
 * decision again, without speculations in the kernel (d_kplan_new()) */
static void kspec_undo(struct d_kplan *k)
{
	k->noastr = k->mfault = k->nomem = k->fmode = k->nostr = false;
	k->noprog = k->noprogx = k->novt = k->novtout = k->vfault = false;
	k->bfault = k->nobstr = false;
	k->nfs = 0;
}

struct d_kplan *d_kplan_new(struct d_prog *p, unsigned flags, const bool *user,
			    const bool *ticks, const bool *traced)
{
	struct d_kplan *k = xcalloc(1, sizeof(*k));
	unsigned ci, i, nv = p->nvars ? p->nvars : 1;
	bool *xuser = NULL;

	k->prog = p;
	k->ok = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->ok));
	k->sout = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->sout));
	k->spred = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->spred));
	k->vin = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->vin));
	k->vpred = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->vpred));
	k->vtruth = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->vtruth));
	k->garrc = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->garrc));
	k->first = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->first));
	k->tls = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->tls));
	k->kv = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->kv));
	k->untyped =
		xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->untyped));
	k->pforms = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->pforms));
	k->user = user; /* read by kp_vars_decide() only, below */
	k->vst = xcalloc(nv, sizeof(*k->vst));
	k->vsz = xcalloc(nv, sizeof(*k->vsz));
	k->vsg = xcalloc(nv, sizeof(*k->vsg));
	k->vbit = xcalloc(nv, sizeof(*k->vbit));
	k->vslot = xcalloc(nv, sizeof(*k->vslot));
	k->tnoroom = xcalloc(nv, sizeof(*k->tnoroom));
	k->tpriv = xcalloc(nv, sizeof(*k->tpriv));
	k->varg = xcalloc(nv, sizeof(*k->varg));
	kp_akeys_make(k);  /* before any key is typed: kplan_akey.c */
	kp_typed_reach(k); /* before any clause is asked: kplan_here.c */
	kp_consts_make(k); /* ... the run's constants (kplan_fkey.c) */
	kp_fkeys_make(k);  /* ... and the copies of kplan_fkey.c */
	kp_dset_make(k);   /* ... and the this-> reads after a store */
	/* a predicate that gates the record changes nothing a clause
	 * sees, so exit() and printa() do not rule gates out */
	k->gates = (flags & D_KPLAN_VARS) != 0;
	k->xcl = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->xcl));
	/* before exit_at_hit(): the generated programs' values (cpu, uid,
	 * gid, errno) decide an exit() as they decide a gate, which
	 * d_kplan_xtest() makes of its predicate */
	k->vars = (flags & D_KPLAN_VARS) != 0;
	if (k->vars) /* the run constants, before exit_at_hit() */
		kp_rcon_assign(k);
	k->ppid = k->vars && (flags & D_KPLAN_PPID);
	k->vtime = k->vars && (flags & D_KPLAN_VTIME);
	k->ecred = k->vars && (flags & D_KPLAN_ECRED);
	k->sess = k->vars && (flags & D_KPLAN_SESS);
	if (k->vars && traced) { /* kplan_out.c's kp_sout_where() */
		k->traced = xcalloc(p->nclauses ? p->nclauses : 1,
				    sizeof(*k->traced));
		memcpy(k->traced, traced, p->nclauses * sizeof(*traced));
	}
	k->bare = k->vars; /* args[N] bare in a string pair: bare_alts() */
	if (k->vars) {	   /* globals counted (kplan_gcnt.c) */
		k->gcnt = xcalloc(nv, sizeof(*k->gcnt));
		k->gwhy = xcalloc(nv, sizeof(*k->gwhy));
		if (!kp_gcnt_find(p, ticks, k->gcnt, k->gwhy)) {
			free(k->gcnt);
			k->gcnt = NULL;
		}
	}
	for (ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		bool tick = ticks && ticks[ci] && (flags & D_KPLAN_VARS);
		bool tr = traced && traced[ci] && (flags & D_KPLAN_VARS);

		/* raise() of a constant at the hit, where every probe of
		 * the clause runs a generated program ("raise() at the
		 * hit"); a tick-N clause's stays dtrace's */
		int rs = tr && !tick ? KP_ST_RAISE : 0;
		const struct stmt *stop;

		/* a tick-N clause reading a global the kernel counts: cut
		 * at the horizon, folded there (d_kplan_folds()) */
		if (tick && kp_gcnt_tick(k, ticks, ci))
			k->horizon = true;
		if (kp_dtrace_only(c) ||
		    !stmts_stop(c->stmts, c->nstmts, KP_ST_NONE | rs))
			continue;
		if (tick && !stmts_stop(c->stmts, c->nstmts, KP_ST_TICK)) {
			/* exit(), printa(), clear(), trunc() at a tick-N
			 * firing: cut at the horizon, folded there */
			k->horizon = true;
			continue;
		}
		if ((stop = kp_stmts_stop(c->stmts, c->nstmts,
					  KP_ST_EXIT | rs))) {
			/* printa(), clear(), trunc(): -v says which */
			k->awhy = true;
			k->awhyc = ci;
			k->awhyst = stop;
			goto none;
		}
		if (!tr || !exit_at_hit(k, c)) {
			if (flags & D_KPLAN_VARS) {
				k->xwhy = exit_why(k, c, tr);
				k->xwhyc = ci;
			}
			goto none;
		}
		k->kexit = k->xcl[ci] = true; /* decided at the hit */
	}
	kp_ival_decide(k, flags); /* kplan_exit.c */
	if (k->kexit) {
		/* the exit clauses run in user space, from the winner's
		 * record; every other clause is decided as any is, the
		 * winner's plan ending at its exit clause (UBPF_K_XEND:
		 * kplan_exit.c's "exit() at a traced probe") */
		xuser = xcalloc(p->nclauses, sizeof(*xuser));
		for (ci = 0; ci < p->nclauses; ci++)
			xuser[ci] = (user && user[ci]) || k->xcl[ci];
		k->user = xuser;
	}
	if (k->vars) {
		/* speculations in the kernel where they may be (kplan_spec.c's
		 * d_kplan_kspec()), decided again without them where a
		 * speculating clause did not end up the kernel's */
		if (kp_kspec_pre(k, traced)) {
			kp_vars_decide(k);
			if (!kp_kspec_post(k)) {
				k->kspec = false;
				kspec_undo(k);
				kp_vars_decide(k);
			}
		} else {
			kp_vars_decide(k);
		}
		bare_alts(k);
		k->user = NULL;
		free(xuser);
	} else {
		for (ci = 0; ci < p->nclauses; ci++)
			if (kp_clause_ok(k, ci))
				k->nst += p->clauses[ci].nflat;
	}
	/* no keys: slots of kflat while they last */
	for (ci = 0; ci < p->nclauses; ci++) {
		if (!k->ok[ci])
			continue;
		for (i = 0; i < p->clauses[ci].nflat; i++) {
			struct kstmt *ks = &k->st[k->first[ci] + i];

			/* (none keyed by interval: kaggs's pad word) */
			if (ks->assign || ks->st->nkeys || k->ival ||
			    k->nflat + ks->nslots > UBPF_KFLAT)
				continue;
			ks->slot = (int)k->nflat;
			k->nflat += ks->nslots;
		}
	}
	return k;
none: /* nothing in the kernel but gates, no exit() decided there */
	k->kexit = false;
	memset(k->xcl, 0, (p->nclauses ? p->nclauses : 1) * sizeof(*k->xcl));
	return k;
}

/*
 * Record gates.  An integer predicate reads nothing a clause can
 * change: no variable (which an earlier clause of the probe may have
 * set in user space), no string (whose copy in the record is a second
 * read of memory another thread may be writing), only the firing's
 * arguments, pid, tid, id, cpu, uid, gid (in the generated programs,
 * which alone have gates) and constants; and nothing it computes can
 * fault (kp_ty() takes / and % by a constant other than 0 only).
 */
bool gate_ok(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return true;
	if (n->op == N_VAR && k && k->vars &&
	    (unsigned)n->sub < k->prog->nvars && k->vst[n->sub] == KV_RCON)
		return true; /* one value for every hit (kplan_fkey.c) */
	if (n->op == N_VAR || n->op == N_ASSOC || n->op == N_ASSIGN ||
	    n->op == N_INCDEC || n->op == N_FUNC || n->op == N_STR ||
	    (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_TIMESTAMP ||
				    d_builtins[n->sub].id == B_VTIMESTAMP ||
				    d_builtins[n->sub].id == B_WALLTIMESTAMP)))
		return false;
	if (!gate_ok(k, n->a) || !gate_ok(k, n->b) || !gate_ok(k, n->c))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!gate_ok(k, n->args[i]))
			return false;
	return true;
}

bool d_kplan_gated(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c;
	uint8_t sz, sg;

	if (!k->gates || clause >= k->prog->nclauses ||
	    d_kplan_clause(k, clause))
		return false;
	c = &k->prog->clauses[clause];
	return c->pred && !kp_dtrace_only(c) && gate_ok(k, c->pred) &&
	       kp_ty(k, c->pred, &sz, &sg);
}

void d_kplan_free(struct d_kplan *k)
{
	if (!k)
		return;
	kp_out_memo_free(k);
	free(k->ok);
	free(k->tyok);
	free(k->tyfree);
	free(k->noslen);
	free(k->sout);
	free(k->spred);
	free(k->vin);
	free(k->vpred);
	free(k->vtruth);
	free(k->garrc);
	free(k->first);
	free(k->st);
	free(k->tls);
	free(k->kv);
	free(k->untyped);
	free(k->pforms);
	free(k->vst);
	free(k->vsz);
	free(k->vsg);
	free(k->vbit);
	free(k->vslot);
	free(k->tnoroom);
	free(k->tpriv);
	free(k->varg);
	kp_akeys_free(k);
	free(k->xcl);
	free(k->tied);
	free(k->traced);
	kp_fkeys_free(k);
	free(k->rconst);
	free(k->gcnt);
	free(k->gwhy);
	free(k->dset);
	free(k);
}

bool d_kplan_clause(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses && k->ok[clause];
}

bool d_kplan_tls(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_clause(k, clause) && k->tls[clause];
}

uint16_t d_kplan_strargs(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses ? d_clause_strargs(k->prog, clause)
					  : 0xffff;
}

bool d_kplan_vin(const struct d_kplan *k, unsigned clause)
{
	return k && k->vin && clause < k->prog->nclauses && k->vin[clause];
}

bool d_kplan_vpred(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_vin(k, clause) && k->vpred[clause];
}

bool d_kplan_vtruth(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_vpred(k, clause) && k->vtruth[clause];
}

bool d_kplan_vin_vals(const struct d_kplan *k, unsigned clause)
{
	bool *mark;
	unsigned n;

	if (!d_kplan_vin(k, clause))
		return false;
	mark = xcalloc(k->prog->nvars ? k->prog->nvars : 1, sizeof(*mark));
	n = kp_vin_count(k, clause, mark);
	free(mark);
	return n > 0;
}

bool d_kplan_kvars(const struct d_kplan *k, unsigned clause)
{
	return (d_kplan_clause(k, clause) || d_kplan_sout(k, clause)) &&
	       k->kv[clause];
}

bool d_kplan_tlsvar(const struct d_kplan *k, unsigned var)
{
	return k->vars && var < k->prog->nvars && k->vst[var] == KV_KERN &&
	       (k->prog->vars[var].scope == SC_SELF ||
		k->prog->vars[var].scope == SC_SELFASSOC);
}

unsigned d_kplan_nvars(const struct d_kplan *k)
{
	return k->prog->nvars;
}

bool d_kplan_isagg(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign;
}

unsigned d_kplan_nstmts(const struct d_kplan *k)
{
	return k->nst;
}

bool d_kplan_flat(const struct d_kplan *k, unsigned st, unsigned *slot,
		  unsigned *nslots)
{
	if (st >= k->nst || k->st[st].slot < 0)
		return false;
	*slot = (unsigned)k->st[st].slot;
	*nslots = k->st[st].nslots;
	return true;
}
