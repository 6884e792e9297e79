// SPDX-License-Identifier: MIT
/*
 * cgen.c - the BPF program of one uprobe event, generated at run time
 * from the compiled D program, as straight-line code (bpf.c loads and
 * attaches it; doc/DESIGN.md §8).  The generic program (bpf/usdt.bpf.c)
 * finds out on every hit what to do -- the event's argument specs, the
 * plan of (event, pid), each plan instruction's operands -- and the
 * verifier walks every branch of that interpreter (~180,000
 * instructions, a quarter of a second) for every run.  Here what the
 * interpreter would look up is known when the program is made, so it
 * is code: a one-clause count() is a few dozen instructions, verified
 * in well under a millisecond.
 *
 * What it reads.  Nothing of the D tree: the clauses come as the plan
 * kplan.c already compiles for the kernel (struct ubpf_kplan,
 * kagg_bpf.h: a stack machine's instructions for the clauses that only
 * aggregate integers, with their types), and the site as bpf.c's
 * struct ubpf_ev (the stapsdt argument specs, execname).  kplan.c
 * refuses what it does not know, so a new kind of D node never reaches
 * this file; an instruction this file does not know refuses the plan
 * here (cgen_emit() returns false), and bpf.c then generates the
 * record-only program, whose records user space runs every clause of.
 *
 * Stages of one program:
 *
 *  1. Prologue.  r6 = the context (struct pt_regs), r7 = pid_tgid,
 *     r8 = the attach cookie (the event's index, as the generic
 *     program's); dtrace's own hits (self_pid) end here, and so does
 *     every hit of a program whose plan (or exit() tests) reads a run
 *     constant until BEGIN has fired (cgrcon's word 0 still 0:
 *     kplan_fkey.c's "Run constants in the kernel").  A site link's
 *     program is its event's alone (m->ev1, bpf_attach.c), and the
 *     event its process's (m->lpid), whose hits alone the link's pid
 *     filter lets come (the thread group's, Linux 6.12 on: never
 *     dtrace's): the index is an immediate, and where the plan reads
 *     no pid, tid or self-> variable (plan_tid()) the arming check
 *     compares the link's pid and pid_tgid is read at the record only
 *     (lazy), so a hit whose record gates all fail makes no helper
 *     call (each was 10-15 ns of a 60-75 ns hit, bench/RESULTS.md).
 *     The pretest: where the plan is one clause whose predicate, its
 *     first two instructions, compares an argument with an immediate
 *     and its failing ends the hit with nothing done (pre_pred(): no
 *     exit() test, horizon, fault site or string read before it, the
 *     record gated), that argument is loaded first and, for the
 *     event's first armed process (cgarm1, as stage 2 finds it), the
 *     predicate tested on it: a hit that fails it is the load, the
 *     arming's load and the two jumps (bpftrace's is the load and the
 *     jump; the predpf row of bench/perhit.sh), before the index, the
 *     flags, the clock and the other arguments; a hit that passes, or
 *     another process's, goes on as below, the plan testing it again.
 *     Then every
 *     argument the plan (or the exit() tests) reads is fetched once,
 *     per its spec, into a stack slot, and the others the record reads
 *     at the record's start (late_of(): the program is made once with
 *     every one here, and made again with those that no instruction
 *     before the record read fetched there, S_FLAGS zeroed there too
 *     where its zeroing was its one access before; a uprobe's program
 *     made for its event alone, m->ev1, sets r8 to its index there
 *     too, the arm hash's key taking it as an immediate): a hit that
 *     writes no record fetches only what its clauses test (strpred's
 *     /copyinstr(arg1) == "beta"/ arg1 alone, bench/RESULTS.md).  A
 *     register is one load from pt_regs at a
 *     constant offset (bpf/uregs.h, the machine's), memory at register +
 *     offset one bpf_probe_read_user() of its size (1, 2, 4, else 8 bytes), a
 *     constant an immediate; each narrowed to its size and sign as
 *     usdt.bpf.c's sized() does (%ah-style: bits 8-15, unnarrowed).
 *     Where exit() may be decided at a hit (m->act: kplan_exit.c's "exit()
 *     at a traced probe") or a tick's exit() cut at the horizon, the
 *     run's activity in cgact is read before the clock (act_load(): a
 *     hit that finds the run ended reads no time, so its stamp would
 *     be later than the exit's, kplan_exit.c's "The flood"): not
 *     0, the hit does nothing; then the event's exit() tests (m->xpl,
 *     compiled as a plan is) and, when one held, the cmpxchg that ends
 *     the run (act_test()); every record then says it was written
 *     while active (UBPF_RF_ACT), the winner's that it won
 *     (UBPF_RF_XWON), and the winner's plan ends at its exit clause
 *     (UBPF_K_XEND: cgen_plan.c).  Where the plan prints (an out
 *     area, cgen_out.c) S_OBUF is zeroed here and nothing more: the
 *     area is started by the first clause that writes into it, past
 *     its predicate, so a
 *     hit that fails every predicate pays for its gates alone (the
 *     arming check, the predicates, the record gate).  cgact, cghzn and
 *     cgarm1 (bpf_agg_cgen.c) are one-entry arrays whose value the program
 *     addresses directly (ldmapv(): BPF_PSEUDO_MAP_VALUE, Linux 5.5), a
 *     load where a lookup was a call and a NULL test.
 *     Owning cgbuf.  cgbuf is per CPU, not per program run, and a
 *     profile-N program interrupts a uprobe's or a raw tracepoint's on
 *     its CPU (a preemptible kernel lets another thread's hit in too:
 *     doc/DESIGN.md "Programs that nest on a CPU"): a program that
 *     addresses cgbuf (cgen_emit() makes it again to know) zeroes S_OWN
 *     here, past the exits that end a hit with nothing done, and each
 *     path takes its owner word (UBPF_CGOWN(), past all a record and
 *     its stack use) where it first needs cgbuf (own_need(): a cmpxchg
 *     of 0 to 1, its address kept at S_OWN): seq_read()'s copies, the
 *     plan's S_SBUF (mem_read()'s copies too, in the copy room past
 *     the owner word, which it covers), the out area's start
 *     (cgen_out_need()), the
 *     winner's record before its exit() swap (act_test()) and the
 *     record built there; where every path holds it already
 *     (e->owned), a load of S_OWN, where some may (e->ownmay), that
 *     load and, when 0, the take.  Every exit past the zeroing gives
 *     it back where its path may hold it (own_give(): the epilogue,
 *     kp_plan()'s exit; the unwinder when its tail call lands).  A
 *     hit that finds it held counts a drop (drops' key 1, said apart
 *     under -v: bpf.c's drops_read()) and ends (own_busy()), the
 *     interrupted hit whole, what its own plan did before kept; a hit
 *     refused by its predicates before any such place, or whose record
 *     is reserved in the ring, takes nothing and never drops.
 *  2. The plan, when the event has one (cgen_plan.c: only for a
 *     process bpf_agg_cgen.c armed, checked here, and, where tick-N may
 *     exit() or printa(), for a hit stamped before the horizon in
 *     cghzn: the time
 *     read once, before, is the record's (kplan_exit.c's "Why exit()"),
 *     the hit past it goes to the unflagged record; a plan that writes
 *     no record and reads no time (a uprobe's or a kernel probe's)
 *     reads the clock only when cghzn is
 *     not UINT64_MAX, dtrace's lease (hzfree, kplan_exit.c's "The lease"),
 *     its record reading its own; where the run decides no exit() at
 *     a hit, a uprobe's such plan has the lease in its arm word too
 *     (hzarm: bpf_agg_cgen.c's hz_marks()), the first armed pid unmarked
 *     while it is lent, and tests the activity and the horizon only
 *     on the hash's path, so its hit under the lease is count()'s;
 *     the plan's instructions
 *     as code, its strings and faults at the hit).  When no clause of
 *     the probe needs the record (and none faulted), the hit ends here;
 *     so does it when the plan's record gates (pl->record
 *     UBPF_KREC_GATE: every clause that needs the record has a
 *     predicate the plan tests, kplan.c's d_kplan_gated()) all failed,
 *     no REC having set bit 16 of S_FLAGS; a predicate that fails
 *     before anything could set it (cgen_plan()'s e->xpj: a
 *     one-clause plan's) jumps to the exit itself, past the gate.  A
 *     process not armed at an
 *     event whose plan keeps self-> variables puts its pid in cgtlsu
 *     (its hit goes to user space, with user space's copy of them:
 *     bpf_agg_cgen.c's tls_user() then never arms it where they are kept);
 *     a lookup comes first, since an update locks the hash's bucket
 *     even to find the pid there, and such a process fires there on.
 *     Such a hit sets cgtlsuw's u32 first.  A kernel probe's plan,
 *     run for every process, looks the tgid up there first where it
 *     keeps self-> and that word is set (kp_tlsu()): a process user
 *     space keeps them for (not 0; none, with cgtlsufull set) goes to
 *     the unflagged record, as a hit past the horizon (bpf_agg_cgen.c's
 *     "Two copies").
 *  3. The record (usdt_bpf.h's struct ubpf_rec and its arguments,
 *     flagged UBPF_RF_KAGG after a plan ran; with an out area whose hit
 *     started none, its ran word 0 and its size, cgen_out_rec(), on
 *     every path that comes here): bpf_ringbuf_reserve() of
 *     its constant size, filled in, bpf_ringbuf_submit() with a wakeup
 *     only once the ring is half full, and then one per position of
 *     the reader (rb_wake_ask(): bpf/rbwake.bpf.h's rule, its map the
 *     unwinder's); no room counts the hit in drops, per CPU.  With
 *     strings (copyinstr() of an argument: the spec's strmask) the
 *     record's length is known only at the end, so it is
 *     built in the per-CPU buffer cgbuf, each string a 2-byte length
 *     and bpf_probe_read_user_str()'s bytes at an offset masked to the
 *     buffer's first half (the verifier's bound); after the plan ran
 *     (UBPF_RF_KAGG), only the strings a clause it left to user space
 *     reads (pl->ustr, bpf_agg.c's plan_of(): an armed process's plan
 *     is the compiled one byte for byte, so the same), the record's
 *     strmask saying which (a printf() the kernel ran has its string
 *     in the out area already), and written with
 *     bpf_ringbuf_output(), as usdt.bpf.c does; so is a record with the
 *     copy of copyin(argN, size) at the hit (the spec's memmask: one
 *     argument, bpf.c's ev_mem()), a 2-byte length (0: a fault, which
 *     user space reads again) and bpf_probe_read_user()'s bytes.  The
 *     spec's cred, ppid, ecred and sess go after the arguments
 *     (cgen_rec.c's u_cred(), anc_walk(), u_ecred(), u_sess()), and
 *     after those its psargs
 *     (cgen_rec.c's cgen_psargs(): the argument area's first bytes,
 *     UBPF_RF_PSARGS), as psargs_rec().  In a run that reads
 *     vtimestamp, every record carries it right after the arguments,
 *     before the uid (cgen_rec.c's cgen_vtime(), UBPF_RF_VTIME: the
 *     thread's clock as vtime.bpf.h's vtime_now() reads it, kept by
 *     the switch program cgen_vtime_start() generates and attaches
 *     before any event; where the plan reads it, UBPF_K_VTIME, the
 *     value the prologue read into S_VT after the exit tests, so the
 *     clauses and the record have one value a hit).  A kernel probe's
 *     record has
 *     uid, gid and ppid in its kctx (cgen_kprov.c's kp_kctx()),
 *     vtimestamp and pr_psargs as a uprobe's (kprov.bpf.h's order),
 *     and neither the effective ids nor the session (kprov_cg_fits()
 *     refuses them there).  copyout() with the thread held (the
 *     spec's hold: bpf.c's ev_copyout()): the record complete, the
 *     thread is stopped right before the output (cgen_rec.c's
 *     u_hold(), usdt.bpf.c's hold_thread() in instructions), its
 *     record flagged UBPF_RF_HELD and output with a wake-up, its hold
 *     entry UBPF_HOLD_DROP where the output fails; a hit that ends
 *     before this stage (no record needed, its gates failed, the run
 *     ended or its exit() swap lost) holds nothing, and nothing runs
 *     its clauses, the copyout() among them.
 *  4. Epilogue: r0 = 0, exit.
 *
 * emit() makes them in that order, one function each: emit_shape()
 * first decides, from the maps, the site and the plan, what the
 * stages share (struct cgprog: which parts the record has, its length,
 * the clock, the horizon, the lease), then emit_prologue(),
 * emit_plan(), emit_record() (its strings, copies and stack in cgbuf:
 * emit_strs()) and emit_epilogue(), where the jumps the stages left
 * land.
 *
 * Kernel probes (syscall, profile-N, proc) take the same stages with
 * m->kp set: cgen_kprov.c says how, and has their stages' code
 * (kp_prologue(), kp_ident(), kp_tlsu(), kp_plan(), kp_kctx()).
 *
 * User stacks (ustack(), ustack_copy()'s copy or ustack_walk()'s
 * unwinder; a kernel probe's user registers, kp_uregs()): cgen_ustk.c.
 *
 * What is refused (bpf.c falls back to the generic program for the
 * whole run): pr_euid, pr_egid, pr_pgid and pr_sid at a kernel probe
 * (kprov_cg_fits()), copyout() and copyoutstr() written at the hit, or
 * held beside a user stack (bpf_cg.c's cg_fits()), a
 * kernel
 * probe its provider has no prologue for.  printf() and trace() of
 * values the plan computes
 * (kplan_out.c) put them in an out area after the uid and gid
 * (cgen_out.c: the record then built in cgbuf); a kernel probe's,
 * whose ids are in its kctx, after its arguments and vtimestamp, for
 * its printing and speculating clauses alike (kplan_out.c's
 * kp_sout_where(); kprov.c's kprov_hit() reads it).  Everything
 * else a clause does (printf() of execname or a string variable,
 * string predicates other than
 * an argument's string against a literal, self-> variables such a
 * clause reads, and the like) user space runs from the record, as
 * with the generic program.  A plan that keeps self-> variables is
 * never replaced by the record-only program: the variables are the
 * kernel's alone, so bpf.c refuses the event instead.  Only
 * instructions and helpers Linux 6.1's verifier accepts are emitted
 * (check-kmod's Debian guest): 64-bit ALU and conditional jumps (no
 * signed division, no sign-extending loads: those came in 6.6),
 * bpf_get_current_pid_tgid, bpf_get_attach_cookie (5.15),
 * bpf_probe_read_user, bpf_ktime_get_ns, bpf_get_smp_processor_id,
 * bpf_get_current_comm, bpf_get_current_uid_gid, bpf_get_current_task,
 * bpf_probe_read_kernel, bpf_get_current_task_btf and bpf_task_pt_regs
 * (5.15, where the kernel has BTF),
 * bpf_probe_read_user_str, bpf_probe_read_kernel_str (5.5: R2's copies
 * of seq_read()'s, cgen_out.c's ostr_pre()), bpf_send_signal_thread
 * (5.5: raise() at the hit, cgen_plan.c's RAISE), map lookup, update and
 * delete, and the ring
 * buffer's reserve, submit, output and query (5.8); a one-entry array's
 * value addressed by BPF_PSEUDO_MAP_VALUE (5.5).
 */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/kagg_bpf.h"
#include "bpf/kprov_bpf.h"
#include "bpf/unw_bpf.h"
#include "bpf/uregs.h"
#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"
#include "consumer_impl.h"

/* pt_regs offsets, by UBPF_R_* (bpf/uregs.h) */
static const int16_t regoff[UREG_N] = UREG_OFFSETS;

/* ------------------------------------------------------------------ */
/* 1. the arguments */

/*
 * Argument i by spec a into r1 (r1-r5 clobbered; memory's read through
 * its stack slot); arg_fetch() stores it there.
 */
static void arg_load(struct em *e, unsigned i, const struct ubpf_arg *a)
{
	switch (a->kind) {
	case UBPF_A_REG:
	case UBPF_A_REGHI:
		if (a->reg >= UREG_N) {
			e->bad = true;
			return;
		}
		ldx(e, BPF_DW, 1, 6, regoff[a->reg]);
		if (a->kind == UBPF_A_REGHI) {
			alu_i(e, BPF_RSH, 1, 8);
			alu_i(e, BPF_AND, 1, 0xff);
		} else {
			sized(e, 1, a->size, a->sgn);
		}
		break;
	case UBPF_A_MEM:
		if (a->reg >= UREG_N) {
			e->bad = true;
			return;
		}
		st(e, BPF_DW, 10, (int16_t)S_ARG(i), 0);
		ldx(e, BPF_DW, 3, 6, regoff[a->reg]);
		ld64(e, 4, (uint64_t)a->off);
		alu_r(e, BPF_ADD, 3, 4);
		alu_r(e, BPF_MOV, 1, 10);
		alu_i(e, BPF_ADD, 1, S_ARG(i));
		alu_i(e, BPF_MOV, 2,
		      a->size == 1 || a->size == 2 || a->size == 4 ? a->size
								   : 8);
		call(e, BPF_FUNC_probe_read_user);
		ldx(e, BPF_DW, 1, 10, (int16_t)S_ARG(i));
		sized(e, 1, a->size, a->sgn);
		break;
	case UBPF_A_CONST:
		ld64(e, 1, (uint64_t)a->off);
		sized(e, 1, a->size, a->sgn);
		break;
	default: /* not fetched: reads as 0 */
		alu_i(e, BPF_MOV, 1, 0);
		break;
	}
}

/* Argument i by spec a into its stack slot (r1-r5 clobbered). */
static void arg_fetch(struct em *e, unsigned i, const struct ubpf_arg *a)
{
	arg_load(e, i, a);
	stx(e, BPF_DW, 10, (int16_t)S_ARG(i), 1);
}

/* ------------------------------------------------------------------ */
/* The program */

/* Does the plan read pid_tgid (r7): pid, tid, self-> variables? */
static bool plan_tid(const struct ubpf_kplan *pl)
{
	return pl->tls || cgen_plan_has(pl, UBPF_K_PID, -1) ||
	       cgen_plan_has(pl, UBPF_K_TID, -1) ||
	       cgen_plan_has(pl, UBPF_K_VLD, UBPF_KV_SELF) ||
	       cgen_plan_has(pl, UBPF_K_VST, UBPF_KV_SELF) ||
	       cgen_plan_has(pl, UBPF_K_VLD, UBPF_KV_SELFA) ||
	       cgen_plan_has(pl, UBPF_K_VST, UBPF_KV_SELFA);
}

/* r0: the address of cgact's one value (a one-entry array) */
static void act_addr(struct em *e, int fd)
{
	ldmapv(e, 0, fd, 0);
}

/*
 * The run's activity, the first thing a hit reads, before its clock:
 * not 0 (an exit() the kernel decided, 1, or one user space ran, 2:
 * kplan_exit.c's "The flood"), the hit does nothing, no plan, no record.
 * A hit that read it set read it after dtrace's write, so its stamp,
 * read after, is later than the exit's.
 */
static void act_load(struct em *e, const struct cgen_maps *m, size_t *xj,
		     unsigned *nxj)
{
	act_addr(e, m->act);
	ldx(e, BPF_DW, 1, 0, 0);
	xj[(*nxj)++] = jmp_i(e, BPF_JNE, 1, 0);
}

/*
 * The horizon's lease (kplan_exit.c's "The lease"): cghzn UINT64_MAX, no
 * clock; else a hit stamped at or past it goes to the unflagged record
 * (e->hzj).
 */
static void hz_lease(struct em *e, const struct cgen_maps *m)
{
	size_t jfree;

	ldmapv(e, 1, m->hzn, 0); /* cghzn's one u64 */
	ldx(e, BPF_DW, 1, 1, 0);
	jfree = jmp_i(e, BPF_JEQ, 1, -1); /* UINT64_MAX */
	call(e, BPF_FUNC_ktime_get_ns);
	ldmapv(e, 1, m->hzn, 0);
	ldx(e, BPF_DW, 1, 1, 0);
	e->hzj[e->nhzj++] = jmp_r(e, BPF_JGE, 0, 1);
	fix(e, jfree);
}

/*
 * The run's activity (kplan_exit.c's "exit() at a traced probe"), loaded
 * before anything the hit does (act_load()): not 0, the hit does
 * nothing; else its exit()
 * tests (m->xpl: every exiting clause's predicate, a REC where one
 * held) and, when one held, cmpxchg 0 -> 1: the hit that did it ends
 * the run and its record says so (UBPF_RF_XWON); one beaten to it is
 * after the exit and does nothing, as a hit that found it 1.  Where
 * the record is built in cgbuf (strs) the winner takes its owner word
 * before the swap (own_need()): a hit that cannot have the buffer
 * does not win (its drop is said, a later hit exits), where taking
 * it after would lose the winner's record.
 */
static void act_test(struct em *e, const struct cgen_maps *m, unsigned nargs,
		     const int *fds, bool strs, bool lazy, size_t *xj,
		     unsigned *nxj)
{
	size_t jno, jwon, jother = SIZE_MAX;

	/* cgact's load and test came first, before the clock (act_load()) */
	if (!m->xpl || !m->xpl->nops)
		return;
	/* tests another process's probe does not have (m->xpid): its hit
	 * is not tested, as one that found no exit (a lazy program's hits
	 * are its link's process's, m->lpid: no code, for the verifier
	 * takes none it cannot reach) */
	if (m->xpid && lazy && m->xpid != m->lpid) {
		st(e, BPF_DW, 10, S_FLAGS, 0);
		return;
	}
	if (m->xpid && !lazy) {
		alu_r(e, BPF_MOV, 1, 7);
		alu_i(e, BPF_RSH, 1, 32);
		jother = jmp_i(e, BPF_JNE, 1, (int32_t)m->xpid);
	}
	cgen_plan(e, m->xpl, nargs, fds);
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	jno = jmp_i(e, BPF_JEQ, 1, 0);
	if (strs) { /* the winner's record, built in cgbuf: taken first */
		size_t jn = own_need(e, m->buf);

		if (jn != SIZE_MAX)
			xj[(*nxj)++] = jn;
	}
	act_addr(e, m->act);
	alu_r(e, BPF_MOV, 1, 0);
	alu_i(e, BPF_MOV, 2, 1);
	alu_i(e, BPF_MOV, 0, 0);
	put(e, BPF_STX | BPF_DW | BPF_ATOMIC, 1, 2, 0, BPF_CMPXCHG);
	xj[(*nxj)++] = jmp_i(e, BPF_JNE, 0, 0);
	st(e, BPF_DW, 10, S_FLAGS, UBPF_RF_XWON);
	jwon = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jno);
	if (jother != SIZE_MAX)
		fix(e, jother);
	st(e, BPF_DW, 10, S_FLAGS, 0);
	fix(e, jwon);
}

/*
 * The pretest (stage 1's "The pretest"): the plan's first clause's
 * predicate, ARG n OP an immediate, when its failing sends the hit to
 * the exit and nothing before it in the program does anything but read:
 * the plan is its clause (the PRED jumps to the plan's end), its record
 * gated (pl->record not 1: the PRED's jump is one of e.xpj), no exit()
 * test (m->act), horizon (hz) or fault site (fs) before it, and no
 * string the plan copies into cgbuf before its first clause
 * (seq_read(), the lookups of cgen_plan(): a failing one writes the
 * record).
 */
static bool pre_pred(const struct cgen_maps *m, const struct ubpf_kplan *pl,
		     unsigned nargs)
{
	static const uint8_t reads[] = {
		UBPF_K_SEQ,   UBPF_K_SKEY, UBPF_K_VKEY,
		UBPF_K_VVCMP, UBPF_K_CKEY, UBPF_K_LKEY,
		UBPF_K_CVCMP, UBPF_K_CCMP, UBPF_K_AKEY
	};
	const struct ubpf_kop *a, *p;

	if (!pl || m->kp || m->armed < 0 || m->arm1 < 0 || !m->ev1 ||
	    m->ev1 - 1 >= UBPF_MAXEV || m->act >= 0 || m->hzn >= 0 ||
	    pl->record == 1 || pl->nops < 2 || pl->nops > UBPF_KOPS)
		return false;
	a = &pl->ops[0];
	p = &pl->ops[1];
	if (a->op != UBPF_K_ARG || a->n >= nargs || p->op != UBPF_K_PRED ||
	    p->n < UBPF_K_EQ || p->n > UBPF_K_GEU ||
	    !(p->flags & UBPF_KF_IMM) || p->jump != pl->nops)
		return false;
	for (unsigned i = 0; i < sizeof(reads); i++)
		if (cgen_plan_has(pl, reads[i], -1))
			return false;
	return true;
}

/*
 * The record's wake-up, bpf/rbwake.bpf.h's rule (where the argument is)
 * in instructions, on the map the unwinder shares (m->wake): none below
 * half full; at half full or more, one per position of the reader.
 * rb_wake_ask() leaves the flags in r2 and in S_VVAL (free by now: the
 * plan's) the reader's position + 1 where a wake-up is asked for, else
 * 0; rb_wake_done(), on the path where the record is in, notes it.
 * Half full counts the record: r8, its length, where built in cgbuf
 * (plus the ring's header and rounding, 16), AVAIL_DATA already where
 * reserved (rbwake.bpf.h's rule).  Half the ring's size is an
 * immediate where bpf_cg.c says what it made (m->rbsize: the map's
 * max_entries, which BPF_RB_RING_SIZE returns), one helper call less a
 * record; else the ring is asked, as rbwake.bpf.h does.
 */
static void rb_wake_ask(struct em *e, const struct cgen_maps *m, bool r8len)
{
	size_t j[3];

	st(e, BPF_DW, 10, S_VVAL, 0);
	ldmap(e, 1, m->rb);
	alu_i(e, BPF_MOV, 2, BPF_RB_AVAIL_DATA);
	call(e, BPF_FUNC_ringbuf_query);
	if (r8len) {
		alu_r(e, BPF_ADD, 0, 8);
		alu_i(e, BPF_ADD, 0, 16);
	}
	if (m->rbsize >= 2) { /* a u32: its half fits an immediate */
		/* below half full */
		j[0] = jmp_i(e, BPF_JLT, 0, (int32_t)(m->rbsize / 2));
	} else {
		stx(e, BPF_DW, 10, S_KEY8, 0);
		ldmap(e, 1, m->rb);
		alu_i(e, BPF_MOV, 2, BPF_RB_RING_SIZE);
		call(e, BPF_FUNC_ringbuf_query);
		alu_i(e, BPF_RSH, 0, 1);
		ldx(e, BPF_DW, 1, 10, S_KEY8);
		j[0] = jmp_r(e, BPF_JLT, 1, 0); /* below half full */
	}
	ldmap(e, 1, m->rb);
	alu_i(e, BPF_MOV, 2, BPF_RB_CONS_POS);
	call(e, BPF_FUNC_ringbuf_query);
	alu_i(e, BPF_ADD, 0, 1);
	stx(e, BPF_DW, 10, S_VVAL, 0);
	lookup0(e, m->wake);
	j[1] = jmp_i(e, BPF_JEQ, 0, 0); /* no map: ask */
	ldx(e, BPF_DW, 1, 0, 0);
	ldx(e, BPF_DW, 2, 10, S_VVAL);
	j[2] = jmp_r(e, BPF_JNE, 1, 2); /* the reader moved: ask */
	st(e, BPF_DW, 10, S_VVAL, 0); /* asked for at this position */
	fix(e, j[0]);
	fix(e, j[1]);
	fix(e, j[2]);
	ldx(e, BPF_DW, 1, 10, S_VVAL);
	alu_i(e, BPF_MOV, 2, BPF_RB_NO_WAKEUP);
	j[0] = jmp_i(e, BPF_JEQ, 1, 0);
	alu_i(e, BPF_MOV, 2, BPF_RB_FORCE_WAKEUP);
	fix(e, j[0]);
}

static void rb_wake_done(struct em *e, const struct cgen_maps *m)
{
	size_t j[2];

	ldx(e, BPF_DW, 1, 10, S_VVAL);
	j[0] = jmp_i(e, BPF_JEQ, 1, 0);
	lookup0(e, m->wake);
	j[1] = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_DW, 1, 10, S_VVAL);
	stx(e, BPF_DW, 0, 0, 1);
	fix(e, j[0]);
	fix(e, j[1]);
}

/*
 * The pretest's code: argument n (a->n) loaded into r1 (arg_load()),
 * then, for the event's first armed process (cgarm1's
 * u32, at the event's offset: pre_pred() takes only a program that is
 * its event's alone), narrowed as the plan's ARG pushes it and
 * compared as its PRED compares: failing, the jump returned goes to
 * the exit.  Any other process, or a hit that passes, stores it in its
 * slot and goes on to the prologue, which finds it not armed, or armed,
 * as before.  SIZE_MAX: no jump (e->bad).
 */
static size_t pre_emit(struct em *e, const struct cgen_maps *m,
		       const struct ubpf_ev *s, const struct ubpf_kplan *pl,
		       bool lazy)
{
	const struct ubpf_kop *a = &pl->ops[0], *p = &pl->ops[1];
	bool i32 = p->imm == (int32_t)p->imm;
	/* the value compared: r1, or narrowed in r3 (r1 is the slot's) */
	uint8_t r = a->sz == 1 || a->sz == 2 || a->sz == 4 ? 3 : 1;
	size_t jarm, jno;

	arg_load(e, a->n, &s->a[a->n]);
	ldmapv(e, 2, m->arm1, (int32_t)(4 * (m->ev1 - 1)));
	ldx(e, BPF_W, 2, 2, 0);
	if (lazy) { /* the link's process: its hits alone */
		jarm = jmp_i(e, BPF_JNE, 2, (int32_t)m->lpid);
	} else {
		alu_r(e, BPF_MOV, 3, 7);
		alu_i(e, BPF_RSH, 3, 32);
		jarm = jmp_r(e, BPF_JNE, 2, 3);
	}
	if (r != 1)
		alu_r(e, BPF_MOV, r, 1);
	sized(e, r, a->sz, a->sg); /* cgen_plan()'s push() */
	if (!i32)
		ld64(e, 2, (uint64_t)p->imm);
	jno = i32 ? jmp_i(e, cgen_cmp_jmp(p->n, true), r, (int32_t)p->imm)
		  : jmp_r(e, cgen_cmp_jmp(p->n, true), r, 2);
	fix(e, jarm);
	/* the slot, where the hit goes on (a failing one needs none) */
	stx(e, BPF_DW, 10, (int16_t)S_ARG(a->n), 1);
	return e->bad ? SIZE_MAX : jno;
}

/*
 * cgbuf's owner word (stage 1's "Owning cgbuf"), where the hit's path
 * first needs cgbuf: held on every path here (e->owned), S_OWN's
 * address; else, where a path before may have taken it (e->ownmay),
 * S_OWN's, unless 0; else taken: a cmpxchg of 0 to 1 at cgbuf's
 * UBPF_CGOWN(), its address kept at S_OWN for the release
 * (own_give()); a take that finds it held jumps to own_busy(), which
 * counts a drop and ends the hit.
 */
static void own_bj(struct em *e, size_t j)
{
	if (e->nbj == e->cbj) {
		e->cbj = e->cbj ? 2 * e->cbj : 8;
		e->bj = xrealloc(e->bj, e->cbj, sizeof(*e->bj));
	}
	e->bj[e->nbj++] = j;
}

size_t own_need(struct em *e, int buf)
{
	size_t from = e->n, jhad = SIZE_MAX;

	if (!e->ownoff) { /* the first making: the lookup alone */
		lookup0(e, buf);
		return jmp_i(e, BPF_JEQ, 0, 0);
	}
	if (e->owned) {
		ldx(e, BPF_DW, 0, 10, S_OWN);
		return SIZE_MAX;
	}
	if (e->ownmay) {
		ldx(e, BPF_DW, 0, 10, S_OWN);
		jhad = jmp_i(e, BPF_JNE, 0, 0);
	}
	lookup0(e, buf);
	own_bj(e, jmp_i(e, BPF_JEQ, 0, 0)); /* cannot be: an array's key 0 */
	alu_r(e, BPF_MOV, 1, 0);
	stx(e, BPF_DW, 10, S_OWN, 1);
	alu_i(e, BPF_MOV, 0, 0);
	alu_i(e, BPF_MOV, 2, 1);
	put(e, BPF_STX | BPF_DW | BPF_ATOMIC, 1, 2, e->ownoff, BPF_CMPXCHG);
	own_bj(e, jmp_i(e, BPF_JNE, 0, 0));
	alu_r(e, BPF_MOV, 0, 1);
	if (jhad != SIZE_MAX)
		fix(e, jhad);
	e->owned = e->ownmay = true;
	e->ownfrom = from;
	return SIZE_MAX;
}

/* ... found held: the hit is counted in drops (key 1: the owner
 * word's, bpf.c's drops_read()), atomically (a program nested in this
 * one may count too), and ends; it holds nothing (S_OWN 0 on its path) */
static void own_busy(struct em *e, const struct cgen_maps *m)
{
	size_t jnull;

	for (unsigned i = 0; i < e->nbj; i++)
		fix(e, e->bj[i]);
	e->ownoff = 0;
	st(e, BPF_W, 10, S_KEY8, 1);
	lookup_at(e, m->drops, S_KEY8);
	jnull = jmp_i(e, BPF_JEQ, 0, 0);
	alu_i(e, BPF_MOV, 1, 1);
	put(e, BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 0, BPF_ADD);
	fix(e, jnull);
	alu_i(e, BPF_MOV, 0, 0);
	put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/*
 * Jumps to an unconditional jump taken straight to where it goes (its
 * target's target, to the end of a chain): a clause's end that is the
 * plan's jump to the exit (a string predicate's failing compares, the
 * strpred row's 3 hits in 4) is one jump, not two.  The paths are the
 * same, instruction for instruction but the jumps skipped.  Only
 * through a jump the instruction before falls into: one that only
 * jumps reached would be left unreachable, which the verifier refuses
 * (the jumps now skipping it were its only way in; an instruction
 * that is not such a jump keeps every way in it had).
 */
static void thread_jumps(struct bpf_insn *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t cl = BPF_CLASS(v[i].code), op = BPF_OP(v[i].code);
		long t;

		if ((cl != BPF_JMP && cl != BPF_JMP32) || op == BPF_CALL ||
		    op == BPF_EXIT || (cl == BPF_JMP32 && op == BPF_JA))
			continue;
		t = (long)i + 1 + v[i].off;
		for (unsigned hop = 0;
		     hop < 8 && t >= 1 && (size_t)t < n &&
		     v[t].code == (BPF_JMP | BPF_JA) && v[t].off != -1 &&
		     v[t - 1].code != (BPF_JMP | BPF_JA) &&
		     v[t - 1].code != (BPF_JMP | BPF_EXIT);
		     hop++)
			t += 1 + v[t].off;
		if (t - (long)i - 1 >= INT16_MIN &&
		    t - (long)i - 1 <= INT16_MAX)
			v[i].off = (int16_t)(t - (long)i - 1);
	}
}

/* Whether the program v (n instructions) addresses cgbuf (fd buf). */
static bool uses_buf(const struct bpf_insn *v, size_t n, int buf)
{
	for (size_t i = 0; buf >= 0 && i + 1 < n; i++)
		if (v[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    v[i].src_reg == BPF_PSEUDO_MAP_FD && v[i].imm == buf)
			return true;
	return false;
}

/* what the record stage does that the first emit() did before it:
 * the arguments no stage before the record reads (late), fetched
 * there; S_FLAGS zeroed there, not in the prologue (flate) */
struct late {
	uint32_t args;
	bool flags;
};

/*
 * The offset of cgbuf's room r (bpf_be.h's enum cg_room): past the owner
 * word (and the user stack's room before it, where one is kept), each
 * room there only where the run has it, but the key room, which every
 * cgbuf has (a kaggs_v key's, a kaggs_l key's: 808 bytes a CPU cost
 * less than a test at each use: cgen_svar.c's vkey_at(), cgen_agg.c's
 * agg_at()).  Every offset
 * fits an instruction's 16 bits, and the value a per-CPU array's 32 KiB.
 */
_Static_assert(UBPF_CGOWN(1) + 8 + UBPF_KCPYROOM + 8 + UBPF_ANCROOM +
			       sizeof(struct ubpf_klkey) <=
		       INT16_MAX,
	       "cgbuf's rooms: 16-bit offsets");
_Static_assert(sizeof(struct ubpf_kvskey) <= sizeof(struct ubpf_klkey),
	       "cgbuf's key room: a kaggs_v key's, a kaggs_l key's");
_Static_assert(UBPF_ANCROOM % 8 == 0 && UBPF_KCPYROOM % 8 == 0,
	       "cgbuf's rooms: each at a word");
uint32_t cg_room_off(const struct cgen_maps *m, enum cg_room r)
{
	uint32_t off = UBPF_CGOWN(m->ustk_room) + 8;

	if (r == CG_ROOM_CPY)
		return off;
	off += m->cpyroom ? UBPF_KCPYROOM + 8 : 0;
	if (r == CG_ROOM_ANC)
		return off;
	off += m->anc ? UBPF_ANCROOM : 0;
	if (r == CG_ROOM_VKEY)
		return off;
	return off + (uint32_t)sizeof(struct ubpf_klkey);
}

static bool emit(const struct cgen_maps *m, const struct ubpf_ev *s,
		 const struct ubpf_kplan *pl, bool own, const struct late *lt,
		 size_t *rec0, struct bpf_insn **out, size_t *n);

/* an instruction's access size, by its BPF_SIZE */
static int acc_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

/*
 * Whether v[i] (of n) reads or writes the stack's bytes [lo, lo + sz)
 * (r10 + off), or may: *rd, whether it reads them or may.  A pointer
 * made from r10 (a helper's key or buffer) reaches from its offset
 * (the next instruction's add) up: one that starts above the bytes
 * does not; one in seq_stack()'s room (the argument slots past nargs:
 * room, cgen_sarg.c keeps its copies within it) reaches no slot
 * outside it; any other, or one with no add after, may read them.
 */
static bool stk_at(const struct bpf_insn *v, size_t i, size_t n, int lo, int sz,
		   const int room[2], bool *rd)
{
	const struct bpf_insn *x = &v[i];
	uint8_t cl = BPF_CLASS(x->code);

	*rd = false;
	if (cl == BPF_ALU64 && BPF_OP(x->code) == BPF_MOV &&
	    BPF_SRC(x->code) == BPF_X && x->src_reg == 10) {
		const struct bpf_insn *a = i + 1 < n ? &v[i + 1] : NULL;

		*rd = true;
		if (!a || a->code != (BPF_ALU64 | BPF_ADD | BPF_K) ||
		    a->dst_reg != x->dst_reg)
			return true;
		if (a->imm >= lo + sz)
			return *rd = false;
		if (a->imm >= room[0] && a->imm < room[1] &&
		    (lo >= room[1] || lo + sz <= room[0]))
			return *rd = false;
		return true;
	}
	if (cl == BPF_LDX && BPF_MODE(x->code) == BPF_MEM && x->src_reg == 10)
		*rd = true;
	else if ((cl == BPF_STX || cl == BPF_ST) && x->dst_reg == 10)
		*rd = BPF_MODE(x->code) != BPF_MEM; /* an atomic reads */
	else
		return false;
	return x->off < lo + sz && x->off + acc_size(x->code) > lo;
}

/*
 * From a program emitted with nothing late (v, the record from rec0 on):
 * which arguments of nargs no instruction before the record reads
 * (a stage that reads them needs them in their slots: the plan's ARG,
 * seq_read()'s strings, the exit() tests'), so the record's stage can
 * fetch them (the hit that never writes a record pays nothing for
 * them: the strpred row of bench/perhit.sh reads arg1 alone); and
 * whether S_FLAGS's one access there is the prologue's zeroing (no
 * plan's REC, fault, record gate or exit() test touches it), so that
 * zeroing can be the record's too.  A kernel probe's, whose provider's
 * prologue fills the slots, and a program whose r6 (the context) the
 * stages before the record change, keep everything where it is.
 */
static struct late late_of(const struct cgen_maps *m, const struct bpf_insn *v,
			   size_t rec0, unsigned nargs)
{
	struct late lt = { 0, false };
	/* seq_stack()'s room: the argument slots past nargs (emit_shape()) */
	const int room[2] = { S_ARG(UBPF_MAXARGS - 1),
			      nargs ? S_ARG(nargs - 1) : S_ARG(0) + 8 };
	unsigned nfl = 0;
	bool rd;

	if (m->kp)
		return lt;
	lt.args = nargs >= 32 ? UINT32_MAX : (1u << nargs) - 1;
	for (size_t i = 0; i < rec0; i++) {
		const struct bpf_insn *x = &v[i];
		uint8_t cl = BPF_CLASS(x->code);

		if (i && x->dst_reg == 6 &&
		    (cl == BPF_ALU64 || cl == BPF_ALU || cl == BPF_LDX ||
		     cl == BPF_LD))
			return (struct late){ 0, false };
		for (unsigned a = 0; a < nargs; a++)
			if (stk_at(v, i, rec0, S_ARG(a), 8, room, &rd) && rd)
				lt.args &= ~(1u << a);
		if (stk_at(v, i, rec0, S_FLAGS, 8, room, &rd))
			nfl += rd || x->code != (BPF_ST | BPF_MEM | BPF_DW) ||
					       x->imm != 0
				       ? 2
				       : 1;
	}
	lt.flags = nfl == 1;
	return lt;
}

/*
 * The program, made once; made again owning cgbuf where it turns out to
 * address it (uses_buf()): a program that never touches cgbuf (a count,
 * a record reserved in the ring) pays nothing for it, and one that does
 * takes the owner word where each path first needs cgbuf (own_need()):
 * a hit refused before that takes nothing.  Before that, where the
 * first making shows arguments or the flags' zeroing that only the
 * record needs (late_of()), it is made again with them at the record;
 * the owning one keeps that (owning adds no read of either before the
 * record).
 */
bool cgen_emit(const struct cgen_maps *m, const struct ubpf_ev *s,
	       const struct ubpf_kplan *pl, struct bpf_insn **out, size_t *n)
{
	size_t rec0 = 0;
	struct late lt = { 0, false };

	if (!emit(m, s, pl, false, &lt, &rec0, out, n))
		return false;
	lt = late_of(m, *out, rec0,
		     s->nargs < UBPF_MAXARGS ? s->nargs : UBPF_MAXARGS);
	if (lt.args || lt.flags) {
		free(*out);
		if (!emit(m, s, pl, false, &lt, &rec0, out, n))
			return false;
	}
	if (!uses_buf(*out, *n, m->buf))
		return true;
	free(*out);
	return emit(m, s, pl, true, &lt, &rec0, out, n);
}

/*
 * One program's making (emit()): what emit_shape() decides from the
 * maps, the site and the plan before any instruction, and the jumps a
 * stage leaves for a later one to land (each member's comment is where
 * emit_shape() sets it, or the stage that sets it).
 */
struct cgprog {
	const struct cgen_maps *m;
	const struct ubpf_ev *s;
	const struct ubpf_kplan *pl;
	bool own;
	const struct late *lt;
	unsigned nargs, hdr;
	bool cred, ppid, kanc, ecred, sess, psargs, vt, vtp;
	int fds[15];
	bool strs;
	uint16_t kskip;
	bool hz, tsp, hzfree, ts, fs, hzarm;
	/* the plan aggregates where the kernel keys by interval: the
	 * hit's in the kaggs key's pad word (kplan_exit.c's "Intervals") */
	bool ival;
	unsigned len, ob, obase;
	bool lazy;
	bool hold; /* copyout(): the thread held at the hit (u_hold()) */
	/* jumps to the end, no record: the run no longer active; the
	 * plan's failing PREDs whose record gate would fail (e.xpj) */
	size_t xj[5], xpj[sizeof(((struct em *)NULL)->xpj) / sizeof(size_t)];
	unsigned nxj, nxpj;
	/* the pretest's failing jump, and the argument it fetched */
	size_t jpre;
	unsigned apre;
	/* the jumps to the end before S_OWN was zeroed (xj[0 .. nxj0)):
	 * past the release */
	unsigned nxj0;
	/* the prologue's jump past everything for dtrace's own hits, the
	 * plan's to the end where no record is written, the record's
	 * where cgbuf could not be owned */
	size_t jself, jdone, jbuf;
	/* ... and for every hit before BEGIN has fired (reads_rcon()) */
	size_t jgate;
};

/*
 * What the program will be, before its first instruction: p's
 * decisions (the maps m, the site s, the plan pl); false where it
 * cannot be made (then *out stays NULL).
 */
static bool emit_shape(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;
	const struct ubpf_ev *s = p->s;
	const struct ubpf_kplan *pl = p->pl;
	unsigned nargs = s->nargs < UBPF_MAXARGS ? s->nargs : UBPF_MAXARGS;
	int fds[15] = { m->kaggs,    m->kflat,	 m->kdrops,  m->tls,
			m->tlsdrops, m->buf,	 m->kaggs_s, m->tlsa,
			m->tlss,     m->kaggs_v, m->kaggs_w, m->zero,
			m->tlsa1,    m->kaggs_l, m->kaggs_x };

	p->nargs = nargs;
	/* the arguments follow the header (a kernel probe's: its kctx) */
	p->hdr = (unsigned)sizeof(struct ubpf_rec) +
		 (m->kp ? (unsigned)sizeof(struct ubpf_kctx) : 0);
	/* a uprobe's uid and gid (a kernel probe's are in its kctx) and
	 * its parent's pid, when the clauses read them */
	p->cred = !m->kp && s->cred;
	p->ppid = !m->kp && s->ppid && m->ppid1[0] && m->ppid1[1];
	/* a kernel probe's progenyof() chain (its ppid is in its kctx) */
	p->kanc = m->kp && m->anc && m->kp->parent1 && m->kp->tgid1;
	/* ... and the effective ids, the session, when known */
	p->ecred = !m->kp && s->ecred && m->ecred1[0] && m->ecred1[1] &&
		   m->ecred1[2];
	p->sess = !m->kp && s->sess && m->sess1[0] && m->sess1[1] &&
		  m->sess1[2] && m->sess1[3];
	/* ... and the argument area (cgen_rec.c; a kernel probe's too) */
	p->psargs =
		s->psargs && m->psargs1[0] && m->psargs1[1] && m->psargs1[2];
	/* vtimestamp, right after the arguments (cgen_rec.c), as both
	 * generic programs put it in every record of the run */
	p->vt = m->vtimes >= 0;
	/* ... read once before the plan where it reads it (VTIME), into
	 * S_VT, which the record stores: one value a hit */
	p->vtp = p->vt && pl && cgen_plan_has(pl, UBPF_K_VTIME, -1);
	memcpy(p->fds, fds, sizeof(p->fds));
	/* strings, a copyin() copy or the stack: built in cgbuf */
	p->strs = s->strmask != 0 || s->memmask != 0 || s->ustk != 0 ||
		  p->ppid || p->kanc || p->ecred || p->sess ||
		  p->psargs; /* present when read */
	/* the strings no clause left to user space reads (pl->ustr): a
	 * record the plan ran for (UBPF_RF_KAGG: user space runs only
	 * those clauses) leaves their copies out, and its strmask says so;
	 * a hit not armed copies them all, its record running every clause */
	p->kskip = pl && !m->kp && m->armed >= 0 && m->arm1 >= 0
			   ? (uint16_t)(s->strmask & ~pl->ustr)
			   : 0;
	/* the horizon (kplan_exit.c's "Why exit()"): the plan runs only for a
	 * hit stamped before it */
	p->hz = pl && m->hzn >= 0 && (m->kp || (m->armed >= 0 && m->arm1 >= 0));
	/* one timestamp a firing, the plan's, the horizon's and the
	 * record's */
	p->tsp = pl && cgen_plan_has(pl, UBPF_K_TIME, -1);
	/* faults at the hit: the record's last 8 bytes, its sites' bits
	 * (kept in S_FLAGS's upper half while the plan runs) */
	p->fs = pl && (m->kp || (m->armed >= 0 && m->arm1 >= 0)) &&
		cgen_fsites(e, pl);
	/* the horizon's lease (kplan_exit.c's "The lease"): a plan (a uprobe's
	 * or a kernel probe's) that writes no record and reads no time
	 * reads the clock only when the horizon is not UINT64_MAX,
	 * dtrace's lease; the record, past it or unarmed, reads its own */
	p->ival = pl && m->ival_per && cgen_plan_has(pl, UBPF_K_AGG, -1);
	p->hzfree = p->hz && !p->tsp && !pl->record && !p->fs && !m->ival_per;
	if (m->hzfree)
		*m->hzfree = p->hzfree;
	/* ... and where the lease is in the arm words too (bpf_agg_cgen.c's
	 * hz_marks(): no exit() decided at a hit), a uprobe's hit whose
	 * arm word is its pid unmarked tests neither the horizon nor the
	 * activity: they move to the hash's path (hz_slow()) */
	p->hzarm = p->hzfree && m->hzarm && !m->kp && m->armed >= 0 &&
		   m->arm1 >= 0 && (!m->xpl || !m->xpl->nops);
	/* ... and where a speculation steps a buffer's word, read before
	 * the step (kspec_read.c: a hit that stepped before a close is
	 * stamped before it) */
	p->ts = (p->hz && !p->hzfree) || p->tsp || p->ival ||
		(pl && (cgen_plan_has(pl, UBPF_K_SPEC, -1) ||
			cgen_plan_has(pl, UBPF_K_SPECU, -1) ||
			cgen_plan_has(pl, UBPF_K_SPECX, -1)));
	p->len = p->hdr + 8 * nargs + (p->vt ? 8 : 0) + (p->cred ? 8 : 0) +
		 (p->fs && !p->strs ? 8 : 0);
	/* printf()'s values (cgen_out.c): the out area, after the uid and
	 * gid (a kernel probe's: after its arguments and vtimestamp, its
	 * ids being in its kctx), in a record built in cgbuf */
	p->ob = pl ? cgen_out_bytes(pl) : 0;
	p->obase = p->hdr + 8 * nargs + (p->vt ? 8 : 0) + (p->cred ? 8 : 0);
	/* pid_tgid read only for the record: a site link's program (its
	 * process's hits alone come) whose plan reads no pid, tid or
	 * self-> variable */
	p->lazy = m->ev1 && m->lpid && !m->kp && !(pl && plan_tid(pl)) &&
		  !(m->xpl && plan_tid(m->xpl));
	/* copyout() with the thread held (bpf.c's ev_copyout(): a uprobe
	 * event's, at a NOP), where the hold map and its offsets are */
	p->hold = s->hold && !m->kp && m->hold >= 0 && m->hold1[0] &&
		  m->hold1[1] && m->hold1[2];
	p->jpre = SIZE_MAX;
	p->apre = UBPF_MAXARGS;
	/* the argument slots past nargs: seq_stack()'s (a kernel probe's
	 * too: its provider's prologue's scratch is used before the plan,
	 * and nothing reads a slot past nargs after it) */
	e->soff = (int16_t)S_ARG(UBPF_MAXARGS - 1);
	e->sroom = (uint16_t)(8 * (UBPF_MAXARGS - nargs));
	e->nargs = nargs;
	if (p->ob) { /* the fault bits, if any, at the end (strs) */
		p->strs = true;
		p->len = p->obase + p->ob;
		e->bad |= p->len + cgen_out_room(s, m->anc) >
			  UBPF_SCRATCH / 2 - 1;
	}
	return !((s->ustk && !m->ustk_room) || (p->strs && m->buf < 0) ||
		 e->bad);
}

/* Does plan pl read a run constant (GLD)? */
static bool reads_rcon(const struct ubpf_kplan *pl)
{
	for (unsigned i = 0; pl && i < pl->nops && i < UBPF_KOPS; i++)
		if (pl->ops[i].op == UBPF_K_GLD)
			return true;
	return false;
}

/* 1. the prologue: the stages before the plan; true where the kernel
 * probe's plan ran every clause (kp_plan()): no plan here, no record */
static bool emit_prologue(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;
	const struct ubpf_ev *s = p->s;
	const struct ubpf_kplan *pl = p->pl;

	alu_r(e, BPF_MOV, 6, 1);
	if (!p->lazy) {
		call(e, BPF_FUNC_get_current_pid_tgid);
		alu_r(e, BPF_MOV, 7, 0);
	}
	if (m->kp && m->kp->idmap >= 0) { /* the probes': their idmap's */
		kp_ident(e, m->kp);
	} else if (!m->ev1) {
		alu_r(e, BPF_MOV, 1, 6);
		call(e, BPF_FUNC_get_attach_cookie);
		alu_r(e, BPF_MOV, 8, 0);
		alu_i(e, BPF_AND, 8, (int32_t)0x7fffffff); /* ev: u32 */
	}
	if (!p->lazy) { /* a link's hits are its process's: never dtrace's */
		alu_r(e, BPF_MOV, 1, 7);
		alu_i(e, BPF_RSH, 1, 32);
		p->jself = jmp_i(e, BPF_JEQ, 1, (int32_t)m->self);
	}
	/* a plan reading the run constants: nothing before BEGIN has fired
	 * (cgrcon's word 0 still 0: kplan_fkey.c), not even the clock */
	if (m->rcon >= 0 && (reads_rcon(pl) || reads_rcon(m->xpl))) {
		ldmapv(e, 1, m->rcon, 0);
		ldx(e, BPF_DW, 1, 1, 0);
		p->jgate = jmp_i(e, BPF_JEQ, 1, 0);
	}
	if (m->act >= 0 && !p->hzarm) /* ended: nothing, not even the clock */
		act_load(e, m, p->xj, &p->nxj);
	if (!p->fs && pre_pred(m, pl, p->nargs)) { /* before any other work */
		p->jpre = pre_emit(e, m, s, pl, p->lazy);
		p->apre = pl->ops[0].n;
	}
	/* the program is this event's (probe's) alone: its index, after
	 * the pretest (a hit that fails it needs none); a uprobe's, an
	 * immediate where the arm hash's key and the record take it (the
	 * plan reads no r8), so a hit that writes no record sets none */
	if (m->kp && m->kp->idmap < 0 && m->ev1)
		alu_i(e, BPF_MOV, 8, (int32_t)((m->ev1 - 1) & 0x7fffffff));
	if (p->ts) {
		call(e, BPF_FUNC_ktime_get_ns);
		stx(e, BPF_DW, 10, S_TS, 0);
	}
	if (p->ival) {
		/* the hit's interval, (t - base) / per, in the kaggs key's
		 * pad word, which each AGG leaves (cgen_agg.c's agg_at()):
		 * the base was read before the program was loaded, so t is
		 * not below it, and BPF's division is unsigned */
		ld64(e, 1, m->ival_base);
		alu_r(e, BPF_SUB, 0, 1);
		if (m->ival_per <= INT32_MAX) {
			alu_i(e, BPF_DIV, 0, (int32_t)m->ival_per);
		} else {
			ld64(e, 1, m->ival_per);
			alu_r(e, BPF_DIV, 0, 1);
		}
		stx(e, BPF_W, 10, S_KKEY + 4, 0);
	}
	if (m->kp) /* a kernel probe: its provider's code reads them */
		kp_prologue(e, m->kp);
	else
		for (unsigned i = 0; i < p->nargs; i++)
			if (i != p->apre && !(p->lt->args & (1u << i)))
				arg_fetch(e, i, &s->a[i]); /* late: the
							    * record's */
	/* cgbuf's owner word: none held from here, until a path needs
	 * cgbuf (own_need()); S_OWN's 0 from a register, which Linux 6.1's
	 * verifier knows for one (the jumps before end with nothing taken,
	 * as do the provider's prologue's exits) */
	p->nxj0 = p->nxj;
	if (p->own) {
		e->ownoff = (int16_t)UBPF_CGOWN(m->ustk_room);
		alu_i(e, BPF_MOV, 1, 0);
		stx(e, BPF_DW, 10, S_OWN, 1);
	}
	if (!p->lt->flags) /* else the record's (late_of()) */
		st(e, BPF_DW, 10, S_FLAGS, 0);
	if (p->ob) { /* no area yet: a register's 0, which Linux 6.1's
		      * verifier knows for one (not an immediate's) */
		alu_i(e, BPF_MOV, 1, 0);
		stx(e, BPF_DW, 10, S_OBUF, 1);
	}
	if (m->act >= 0)
		act_test(e, m, p->nargs, p->fds, p->strs, p->lazy, p->xj,
			 &p->nxj);
	/* the plan's vtimestamp (cgen_rec.c): after the exit tests (a hit
	 * they end reads no clock), before the lease and the plan; r9 is
	 * free, the scratch (S_STK, S_KEY8) written before it is read */
	if (p->vtp)
		cgen_vtime(e, m, 10, S_VT, 9);
	if (p->ob) /* its clauses start it (cgen_out.c), not the exit tests */
		cgen_out_setup(e, m->buf, p->obase, p->ob, pl);
	/* the lease: no clock while it holds (hzarm: past the arm word) */
	if (p->hz && p->hzfree && !p->hzarm) {
		hz_lease(e, m);
	} else if (p->hz && !p->hzfree) {
		/* at or past it: the unflagged record */
		ldmapv(e, 1, m->hzn, 0); /* cghzn's one u64 */
		ldx(e, BPF_DW, 1, 1, 0);
		ldx(e, BPF_DW, 2, 10, S_TS);
		e->hzj[e->nhzj++] = jmp_r(e, BPF_JGE, 2, 1);
	}
	if (m->kp && pl && (pl->tls & 1) && m->tlsu >= 0 && m->tlsufull >= 0 &&
	    m->tlsuw >= 0)
		kp_tlsu(e, m); /* a process user space keeps self-> for */
	return m->kp && pl && kp_plan(e, m, pl, p->nargs);
}

/* 2. the plan, for an armed process */
static void emit_plan(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;
	const struct ubpf_kplan *pl = p->pl;
	size_t j1, j2, jarm, jinh;

	/* the event's first armed process: its u32 in cgarm1's one
	 * value (by event: bpf_agg_cgen.c), loaded directly, at a
	 * constant offset where the program is the event's alone;
	 * any other: the hash */
	j1 = SIZE_MAX;
	j2 = SIZE_MAX;
	if (!m->ev1) {
		j1 = jmp_i(e, BPF_JGE, 8, UBPF_MAXEV);
		ldmapv(e, 1, m->arm1, 0);
		alu_r(e, BPF_MOV, 2, 8);
		alu_i(e, BPF_LSH, 2, 2);
		alu_r(e, BPF_ADD, 1, 2);
	} else if (m->ev1 - 1 < UBPF_MAXEV) {
		ldmapv(e, 1, m->arm1, (int32_t)(4 * (m->ev1 - 1)));
	}
	if (!m->ev1 || m->ev1 - 1 < UBPF_MAXEV) {
		ldx(e, BPF_W, 1, 1, 0);
		if (p->lazy) { /* the link's process: its hits alone */
			j2 = jmp_i(e, BPF_JEQ, 1, (int32_t)m->lpid);
		} else {
			alu_r(e, BPF_MOV, 2, 7);
			alu_i(e, BPF_RSH, 2, 32);
			j2 = jmp_r(e, BPF_JEQ, 1, 2);
		}
	}
	if (j1 != SIZE_MAX)
		fix(e, j1);
	if (p->hzarm) { /* no lease in the arm word: the activity, then
			 * the horizon, as before it (hz_lease()) */
		if (m->act >= 0)
			act_load(e, m, p->xj, &p->nxj);
		hz_lease(e, m);
	}
	if (m->ev1 && !m->kp) /* r8 is set at the record */
		st(e, BPF_W, 10, S_KEY8, (int32_t)((m->ev1 - 1) & 0x7fffffff));
	else
		stx(e, BPF_W, 10, S_KEY8, 8);
	if (p->lazy) {
		st(e, BPF_W, 10, S_KEY8 + 4, (int32_t)m->lpid);
	} else {
		alu_r(e, BPF_MOV, 1, 7);
		alu_i(e, BPF_RSH, 1, 32);
		stx(e, BPF_W, 10, S_KEY8 + 4, 1);
	}
	lookup_at(e, m->armed, S_KEY8);
	jarm = jmp_i(e, BPF_JEQ, 0, 0);
	jinh = SIZE_MAX;
	if ((pl->tls & 1) && m->tlsu >= 0 && m->tlsufull >= 0 &&
	    m->tlsuw >= 0) {
		/* armed at its fork, not by dtrace (bpf_agg_cgen.c's
		 * "Forks"): a pid in cgtlsu other than 0 is user space's
		 * (its key, the pid, is S_KEY8's second word) */
		size_t jx, jn;

		ldx(e, BPF_W, 1, 0, 0);
		alu_i(e, BPF_AND, 1, ARMED_INH);
		jx = jmp_i(e, BPF_JEQ, 1, 0);
		lookup_at(e, m->tlsu, S_KEY8 + 4);
		jn = jmp_i(e, BPF_JEQ, 0, 0);
		ldx(e, BPF_W, 1, 0, 0);
		jinh = jmp_i(e, BPF_JNE, 1, 0);
		fix(e, jx);
		fix(e, jn);
	}
	if (j2 != SIZE_MAX)
		fix(e, j2);
	cgen_plan(e, pl, p->nargs, p->fds);
	/* a PRED that fails with no REC or fault possible before
	 * it: the gate below would fail, so the exit, at once */
	if (pl->record != 1)
		for (unsigned i = 0; i < e->nxpj; i++)
			p->xpj[p->nxpj++] = e->xpj[i];
	if (!pl->record && !p->fs) {
		p->jdone = jmp_i(e, BPF_JA, 0, 0);
	} else {
		if (pl->record != 1) { /* a fault's, a REC's */
			ldx(e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(e, BPF_RSH, 1, pl->record ? 16 : 32);
			p->jdone = jmp_i(e, BPF_JEQ, 1, 0);
		}
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_OR, 1, UBPF_RF_KAGG);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
	}
	if ((pl->tls & 1) && m->tlsu >= 0 && m->tlsufull >= 0 &&
	    m->tlsuw >= 0) {
		/* not armed where self-> is kept: the pid goes in
		 * cgtlsu (an entry there stays), bpf_agg.c's
		 * bpf_kagg_enable() keeps it unarmed there for good */
		/* the armed path writes the record (not after a
		 * jdone of JA: then it never falls through) */
		bool falls = pl->record || p->fs;
		size_t jover = falls ? jmp_i(e, BPF_JA, 0, 0) : 0, j3;
		size_t jhad;

		fix(e, jarm);
		if (jinh != SIZE_MAX)
			fix(e, jinh);
		/* cgtlsuw's word first, at every such hit: a kernel
		 * probe's hit of this thread after it reads 1 and
		 * looks its pid up (kp_tlsu()) */
		ldmapv(e, 1, m->tlsuw, 0);
		st(e, BPF_W, 1, 0, 1);
		alu_r(e, BPF_MOV, 1, 7);
		alu_i(e, BPF_RSH, 1, 32);
		stx(e, BPF_W, 10, S_KEY8, 1);
		/* there already (every later hit): a lookup, not an
		 * update, which locks the bucket to find it there */
		lookup_at(e, m->tlsu, S_KEY8);
		jhad = jmp_i(e, BPF_JNE, 0, 0);
		ldmap(e, 1, m->tlsu);
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KEY8);
		alu_r(e, BPF_MOV, 3, 2);
		alu_i(e, BPF_MOV, 4, BPF_NOEXIST);
		call(e, BPF_FUNC_map_update_elem);
		/* no room: cgtlsufull says so, and no process is
		 * armed there any more (an -EEXIST is no news) */
		j1 = jmp_i(e, BPF_JEQ, 0, 0);
		j2 = jmp_i(e, BPF_JEQ, 0, -EEXIST);
		lookup0(e, m->tlsufull);
		j3 = jmp_i(e, BPF_JEQ, 0, 0);
		st(e, BPF_W, 0, 0, 1);
		fix(e, j1);
		fix(e, j2);
		fix(e, j3);
		fix(e, jhad);
		if (falls)
			fix(e, jover);
	} else {
		fix(e, jarm);
	}
	for (unsigned i = 0; i < e->nfj; i++) /* seq_read()'s faults */
		fix(e, e->fj[i]);
	for (unsigned i = 0; i < e->nhzj; i++) /* past the horizon */
		fix(e, e->hzj[i]);
}

/*
 * The strings, as usdt.bpf.c copies them: each a 2-byte length
 * (the NUL counted; 0 for a fault) and its bytes, at an offset
 * masked to the buffer's first half, which the verifier sees
 * bounded; r8 (the event's index is written) is the offset.
 */
static void emit_strs(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;
	const struct ubpf_ev *s = p->s;

	alu_i(e, BPF_MOV, 8, (int32_t)p->len);
	if (p->ppid) /* ... and progenyof()'s chain */
		anc_walk(e, m->ppid1, false, m->anc);
	if (p->kanc) { /* a kernel probe's chain: its A[0] in the kctx */
		const uint32_t ko[2] = { m->kp->parent1, m->kp->tgid1 };

		anc_walk(e, ko, true, true);
	}
	if (p->ecred)
		u_ecred(e, m->ecred1);
	if (p->sess)
		u_sess(e, m->sess1);
	if (p->psargs)
		cgen_psargs(e, m->psargs1);
	for (unsigned i = 0; i < p->nargs; i++) {
		size_t j, jk = SIZE_MAX;

		if (!(s->strmask & (1u << i)))
			continue;
		if (p->kskip & (1u << i)) { /* not after the plan ran */
			ldx(e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(e, BPF_AND, 1, UBPF_RF_KAGG);
			jk = jmp_i(e, BPF_JNE, 1, 0);
		}
		alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		alu_i(e, BPF_ADD, 1, 2);
		alu_i(e, BPF_MOV, 2, UBPF_STRMAX);
		ldx(e, BPF_DW, 3, 10, (int16_t)S_ARG(i));
		call(e, BPF_FUNC_probe_read_user_str);
		j = jmp_i(e, BPF_JSGE, 0, 0);
		alu_i(e, BPF_MOV, 0, 0);
		fix(e, j);
		j = jmp_i(e, BPF_JLE, 0, UBPF_STRMAX);
		alu_i(e, BPF_MOV, 0, UBPF_STRMAX);
		fix(e, j);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		stx(e, BPF_H, 1, 0, 0);
		alu_i(e, BPF_ADD, 8, 2);
		alu_r(e, BPF_ADD, 8, 0);
		if (jk != SIZE_MAX)
			fix(e, jk);
	}
	/*
	 * copyin(argN, size) of the one argument ev_mem() picked:
	 * a 2-byte length (0 for a fault: mem.c reads it later)
	 * and bpf_probe_read_user()'s bytes, as usdt.bpf.c
	 */
	for (unsigned i = 0; i < p->nargs; i++) {
		unsigned sz = s->memlen[i];
		size_t j;

		if (!(s->memmask & (1u << i)) || !sz)
			continue;
		if (sz > UBPF_MEMMAX) {
			e->bad = true;
			break;
		}
		alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		alu_i(e, BPF_ADD, 1, 2);
		alu_i(e, BPF_MOV, 2, (int32_t)sz);
		ldx(e, BPF_DW, 3, 10, (int16_t)S_ARG(i));
		call(e, BPF_FUNC_probe_read_user);
		alu_i(e, BPF_MOV, 1, (int32_t)sz);
		j = jmp_i(e, BPF_JSGE, 0, 0);
		alu_i(e, BPF_MOV, 1, 0);
		fix(e, j);
		alu_r(e, BPF_MOV, 2, 9);
		alu_r(e, BPF_ADD, 2, 8);
		stx(e, BPF_H, 2, 0, 1);
		alu_i(e, BPF_ADD, 8, 2);
		alu_r(e, BPF_ADD, 8, 1);
	}
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	if (p->fs) { /* the fault bits, before the stack (rec_kfault()) */
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_RSH, 1, 32);
		alu_r(e, BPF_MOV, 2, 9);
		alu_r(e, BPF_ADD, 2, 8);
		stx(e, BPF_DW, 2, 0, 1);
		alu_i(e, BPF_ADD, 8, 8);
	}
	stx(e, BPF_H, 9, 24, 8);
	if (s->ustk && m->uwalk1 && !m->kp) /* the walk, else on to
					     * the copy */
		ustack_walk(e, m->uwalk1 - 1, s->ustk);
	if (s->ustk && m->kp) { /* the thread's user registers */
		size_t nj = 0, j[8];

		kp_uregs(e, m->kp, &nj, j);
		ustack_copy(e, s->ustk, true);
		for (size_t i = 0; i < nj; i++) /* none: no stack */
			fix(e, j[i]);
	} else if (s->ustk) { /* r6 (the context) is the stack's
			       * after it */
		ustack_copy(e, s->ustk, false);
	}
}

/* 3. the record, its strings, copies and stack in cgbuf by emit_strs() */
static void emit_record(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;
	const struct ubpf_ev *s = p->s;
	size_t jnull = 0, jdrop;

	/* what no stage before read (late_of()): every path to the record
	 * comes here, r6 still the context */
	if (p->lt->flags)
		st(e, BPF_DW, 10, S_FLAGS, 0);
	if (!m->kp && m->ev1) /* its index (the prologue's note) */
		alu_i(e, BPF_MOV, 8, (int32_t)((m->ev1 - 1) & 0x7fffffff));
	for (unsigned i = 0; i < p->nargs; i++)
		if (i != p->apre && (p->lt->args & (1u << i)))
			arg_fetch(e, i, &s->a[i]);
	if (p->lazy) { /* pid_tgid, which nothing before needed */
		call(e, BPF_FUNC_get_current_pid_tgid);
		alu_r(e, BPF_MOV, 7, 0);
	}
	if (s->comm) {
		alu_r(e, BPF_MOV, 1, 10);
		alu_i(e, BPF_ADD, 1, S_COMM);
		alu_i(e, BPF_MOV, 2, 16);
		call(e, BPF_FUNC_get_current_comm);
	}
	if (p->strs) { /* built in cgbuf, its length known at the end: its
			* owner's (own_need()) */
		size_t jn = own_need(e, m->buf);

		p->jbuf = jn == SIZE_MAX ? 0 : jn;
	} else {
		ldmap(e, 1, m->rb);
		alu_i(e, BPF_MOV, 2, (int32_t)p->len);
		alu_i(e, BPF_MOV, 3, 0);
		call(e, BPF_FUNC_ringbuf_reserve);
		jnull = jmp_i(e, BPF_JEQ, 0, 0);
	}
	alu_r(e, BPF_MOV, 9, 0);
	if (p->ob) /* the area no clause started: ran 0, whatever the path */
		cgen_out_rec(e);
	if (p->ts) {
		ldx(e, BPF_DW, 0, 10, S_TS);
	} else {
		call(e, BPF_FUNC_ktime_get_ns);
	}
	stx(e, BPF_DW, 9, 0, 0);
	alu_r(e, BPF_MOV, 1, 7);
	alu_i(e, BPF_RSH, 1, 32);
	stx(e, BPF_W, 9, 8, 1);
	stx(e, BPF_W, 9, 12, 7);
	call(e, BPF_FUNC_get_smp_processor_id);
	stx(e, BPF_W, 9, 16, 0);
	stx(e, BPF_W, 9, 20, 8);
	st(e, BPF_H, 9, 24, (int32_t)p->len);
	st(e, BPF_H, 9, 26, (int32_t)p->nargs);
	st(e, BPF_H, 9, 28, s->strmask);
	if (p->kskip) {
		size_t j;

		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_AND, 1, UBPF_RF_KAGG);
		j = jmp_i(e, BPF_JEQ, 1, 0);
		st(e, BPF_H, 9, 28, (int32_t)(s->strmask & ~p->kskip));
		fix(e, j);
	}
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	if (p->vt)
		alu_i(e, BPF_OR, 1, UBPF_RF_VTIME);
	if (p->cred)
		alu_i(e, BPF_OR, 1, UBPF_RF_CRED);
	if (p->fs)
		alu_i(e, BPF_OR, 1, UBPF_RF_KFAULT);
	if (p->ob)
		alu_i(e, BPF_OR, 1, UBPF_RF_KOUT);
	if (m->act >= 0)
		alu_i(e, BPF_OR, 1, UBPF_RF_ACT);
	stx(e, BPF_H, 9, 30, 1);
	for (int i = 0; i < 16; i += 8) {
		if (s->comm) {
			ldx(e, BPF_DW, 1, 10, (int16_t)(S_COMM + i));
			stx(e, BPF_DW, 9, (int16_t)(32 + i), 1);
		} else {
			st(e, BPF_DW, 9, (int16_t)(32 + i), 0);
		}
	}
	if (m->kp)
		kp_kctx(e, m->kp);
	for (unsigned i = 0; i < p->nargs; i++) {
		ldx(e, BPF_DW, 1, 10, (int16_t)S_ARG(i));
		stx(e, BPF_DW, 9, (int16_t)(p->hdr + 8 * i), 1);
	}
	if (p->vtp) { /* the prologue's read (S_VT) */
		ldx(e, BPF_DW, 1, 10, S_VT);
		stx(e, BPF_DW, 9, (int16_t)(p->hdr + 8 * p->nargs), 1);
	} else if (p->vt) {
		cgen_vtime(e, m, 9, (int16_t)(p->hdr + 8 * p->nargs), 7);
	}
	if (p->cred)
		u_cred(e, (int16_t)(p->hdr + 8 * p->nargs + (p->vt ? 8 : 0)));
	if (p->fs && !p->strs) { /* the fault bits, last */
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_RSH, 1, 32);
		stx(e, BPF_DW, 9, (int16_t)(p->len - 8), 1);
	}
	if (p->strs)
		emit_strs(e, p);
	/* copyout(): the thread held here, the record complete */
	if (p->hold)
		u_hold(e, m);
	/* wake the reader once per position of it at half full; a held
	 * thread's record at once */
	rb_wake_ask(e, m, p->strs);
	if (p->hold) {
		size_t j;

		ldx(e, BPF_DW, 1, 10, S_HOLD);
		j = jmp_i(e, BPF_JEQ, 1, 0);
		alu_i(e, BPF_MOV, 2, BPF_RB_FORCE_WAKEUP);
		fix(e, j);
	}
	if (p->strs) {
		alu_r(e, BPF_MOV, 4, 2);
		ldmap(e, 1, m->rb);
		alu_r(e, BPF_MOV, 2, 9);
		alu_r(e, BPF_MOV, 3, 8);
		call(e, BPF_FUNC_ringbuf_output);
		jnull = jmp_i(e, BPF_JSLT, 0, 0);
	} else {
		alu_r(e, BPF_MOV, 1, 9);
		call(e, BPF_FUNC_ringbuf_submit);
	}
	rb_wake_done(e, m); /* the record is in */
	jdrop = jmp_i(e, BPF_JA, 0, 0);
	/* no room: drops, per CPU */
	fix(e, jnull);
	if (p->hold && p->strs) { /* held, its record lost: let go */
		size_t j;

		ldx(e, BPF_DW, 1, 10, S_HOLD);
		j = jmp_i(e, BPF_JEQ, 1, 0);
		st(e, BPF_W, 1, 0, UBPF_HOLD_DROP);
		fix(e, j);
	}
	lookup0(e, m->drops);
	jnull = jmp_i(e, BPF_JEQ, 0, 0);
	alu_i(e, BPF_MOV, 1, 1); /* atomic: a program nested in this one
				  * may count too */
	put(e, BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 0, BPF_ADD);
	fix(e, jnull);
	fix(e, jdrop);
}

/* 4. the epilogue, where every path ends */
static void emit_epilogue(struct em *e, struct cgprog *p)
{
	const struct cgen_maps *m = p->m;

	if (p->strs && p->jbuf)
		fix(e, p->jbuf);
	if (p->jdone)
		fix(e, p->jdone);
	for (unsigned i = p->nxj0; i < p->nxj; i++)
		fix(e, p->xj[i]);
	for (unsigned i = 0; i < p->nxpj; i++)
		fix(e, p->xpj[i]);
	own_give(e); /* every path that may hold cgbuf comes here */
	if (p->jself)
		fix(e, p->jself);
	if (p->jgate)
		fix(e, p->jgate);
	for (unsigned i = 0; i < p->nxj0; i++)
		fix(e, p->xj[i]);
	if (p->jpre != SIZE_MAX)
		fix(e, p->jpre);
	alu_i(e, BPF_MOV, 0, 0);
	put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (e->nbj)
		own_busy(e, m);
}

/*
 * The program's stages, as the opening comment numbers them: the
 * prologue; the plan, for an armed process; the record; the epilogue,
 * where every path ends (a kernel probe whose plan ran every clause in
 * the kernel goes from its prologue there).
 */
static bool emit(const struct cgen_maps *m, const struct ubpf_ev *s,
		 const struct ubpf_kplan *pl, bool own, const struct late *lt,
		 size_t *rec0, struct bpf_insn **out, size_t *n)
{
	struct em e = {
		.kkeys = m->kkeys,
		.ival = m->ival_per != 0,
		.spec = m->spec,
		.rcon = m->rcon,
		.ustk = s->ustk != 0,
		/* MLD's copies: past cgbuf's owner word (mem_read()) */
		.cpyoff =
			m->cpyroom ? (uint16_t)cg_room_off(m, CG_ROOM_CPY) : 0,
		/* progenyof()'s chain room: past them (cgen_anc_plan()) */
		.ancoff = m->anc ? (uint16_t)cg_room_off(m, CG_ROOM_ANC) : 0,
		/* the kaggs_v key's: past them (cgen_svar.c's vkey_at()) */
		.vkoff = m->buf >= 0 ? (uint16_t)cg_room_off(m, CG_ROOM_VKEY)
				     : 0,
		/* kaggs_l's strings (cgen_agg.c's "Long string keys"),
		 * its key built in the kaggs_v key's room */
		.lroom =
			m->kaggs_l >= 0 && m->buf >= 0 ? (uint16_t)m->lroom : 0,
		.lkj1 = -1,
		.lkj2 = -1,
		.lkj3 = -1,
	};
	struct cgprog p = { .m = m, .s = s, .pl = pl, .own = own, .lt = lt };

	*out = NULL;
	*n = 0;
	if (!emit_shape(&e, &p))
		return false;
	if (!emit_prologue(&e, &p)) {
		if (pl && m->armed >= 0 && m->arm1 >= 0)
			emit_plan(&e, &p);
		*rec0 = e.n;
		emit_record(&e, &p);
	}
	emit_epilogue(&e, &p);
	free(e.bj);
	if (e.bad) {
		free(e.v);
		return false;
	}
	thread_jumps(e.v, e.n);
	*out = e.v;
	*n = e.n;
	return true;
}
