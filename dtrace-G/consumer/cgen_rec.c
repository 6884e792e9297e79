// SPDX-License-Identifier: MIT
/*
 * cgen_rec.c - what a generated program's record carries of the firing
 * thread and process beyond its arguments and ids, where that takes
 * more than a few instructions: code emitted into cgen.c's stage 3
 * (the record) that puts the same bytes, with the same flags, where
 * the generic program (bpf/usdt.bpf.c) puts them, so bpf.c decodes
 * both the same way and the output cannot differ (doc/DESIGN.md §8):
 * the ids and the parents (first), curpsinfo->pr_psargs (below) and
 * vtimestamp (with the switch program
 * that keeps its clock: further down).  And, for the plan (cgen_plan.c),
 * progenyof()'s walk of the same chain of parents the record carries
 * (cgen_anc_plan(), at the end).
 *
 * The ids and the parents.  The spec's cred puts the uid and gid after
 * the arguments (u_cred(), UBPF_RF_CRED: 8 bytes, the size stays
 * constant) and its ppid the parent's tgid through task_struct at the
 * BTF's offsets (anc_walk(), UBPF_RF_PPID), as usdt.bpf.c's cred_rec()
 * and ppid_rec(); the ppid's 8 bytes are there only when the parent
 * could be read, so such a record is built in cgbuf too; so are the
 * spec's ecred (u_ecred(): the effective ids through task_struct's
 * cred, UBPF_RF_ECRED) and sess (u_sess(): the process group's and
 * session's level-0 ids through signal->pids, UBPF_RF_SESS), as
 * ecred_rec() and sess_rec(), the psargs (below) after those.
 *
 * curpsinfo->pr_psargs (cgen_psargs()): usdt.bpf.c's psargs_rec(),
 * instruction for instruction in effect, in the record of a uprobe
 * event whose clauses read it and, as kprov_emit() puts it, of every
 * kernel probe in a run that reads it.  The current task's mm, and
 * the mm's arg_start and arg_end, are read with bpf_probe_read_kernel()
 * at the offsets the kernel's BTF gave (psargs.c's psargs_offs(), plus
 * one, as the generic program's rodata has them); then at most
 * UBPF_PSARGS bytes of the argument area with bpf_probe_read_user(),
 * after a 2-byte length, at the record's offset masked to cgbuf's
 * first half (the bound the verifier sees, as for the strings).  A
 * kernel thread (no mm), an empty area or a read that faults adds
 * nothing and no UBPF_RF_PSARGS; psargs.c then gives what the generic
 * program's record gives.  The mm's two words pass through the
 * record's bytes where the text then goes (or past its end), as
 * u_sess() passes its struct pid.
 *
 * Registers, as cgen.c's record stage has them: r9 the record (cgbuf
 * for pr_psargs), r8 its length so far; r1-r5 and r0 are clobbered,
 * S_KEY8 is free, and so are the plan's stack slots (S_STK()) and r7
 * (pid_tgid, in the header by then), which vtimestamp takes.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"

/*
 * A uprobe's record, as usdt.bpf.c's cred_rec(): the real uid and gid
 * at off of the record (r9), which is flagged UBPF_RF_CRED.
 */
void u_cred(struct em *e, int16_t off)
{
	call(e, BPF_FUNC_get_current_uid_gid);
	stx(e, BPF_W, 9, off, 0);
	alu_i(e, BPF_RSH, 0, 32);
	stx(e, BPF_W, 9, (int16_t)(off + 4), 0);
}

/*
 * bpf_probe_read_kernel(fp + at, 8, r3): the 8 kernel bytes at r3 into
 * the stack slot at (S_KEY8, a plan's S_STK()); the jump taken when the
 * read faults, to be fixed.  r0-r2 clobbered.
 */
static size_t rd_kern8(struct em *e, int16_t at)
{
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, at);
	alu_i(e, BPF_MOV, 2, 8);
	call(e, BPF_FUNC_probe_read_kernel);
	return jmp_i(e, BPF_JNE, 0, 0);
}

/*
 * copyout() with the thread held at the hit, as usdt.bpf.c's
 * hold_thread(), in instructions, where the event's spec has hold (bpf.c's
 * ev_copyout()), right before the output: the tid's entry in the hold
 * map (dlhold.c's) must be UBPF_HOLD_SEIZED, SIGURG's action (through
 * task_struct's sighand at m->hold1[0], its handler at m->hold1[2])
 * the default or SIG_IGN and SIGURG not in blocked (m->hold1[1]); then
 * the entry is UBPF_HOLD_CO and bpf_send_signal_thread(SIGURG) stops
 * the thread before it runs another instruction, its entry back to
 * UBPF_HOLD_SEIZED where the send failed.  Held: the entry's address
 * in S_HOLD and the record (r9) flagged UBPF_RF_HELD, which cgen.c's
 * record stage outputs with BPF_RB_FORCE_WAKEUP, marking the entry
 * UBPF_HOLD_DROP where the output fails; not held: S_HOLD 0, the
 * clause's copyout() faults (records.c).  The reads go through
 * S_KEY8; r1-r5 and r0 are clobbered, r6-r9 kept.
 */
void u_hold(struct em *e, const struct cgen_maps *m)
{
	size_t jf[9], jok;
	unsigned nf = 0;

	st(e, BPF_DW, 10, S_HOLD, 0);
	call(e, BPF_FUNC_get_current_pid_tgid);
	stx(e, BPF_W, 10, S_KEY8, 0);
	lookup_at(e, m->hold, S_KEY8);
	jf[nf++] = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 1, 0, 0);
	jf[nf++] = jmp_i(e, BPF_JNE, 1, UBPF_HOLD_SEIZED);
	stx(e, BPF_DW, 10, S_HOLD, 0);
	/* the task's sighand, SIGURG's handler in it, the task's
	 * blocked: each read through S_KEY8 */
	for (int i = 0; i < 3; i++) {
		if (i == 1) { /* the handler: from sighand */
			ldx(e, BPF_DW, 3, 10, S_KEY8);
			alu_i(e, BPF_ADD, 3, (int32_t)(m->hold1[2] - 1));
		} else {
			call(e, BPF_FUNC_get_current_task);
			alu_r(e, BPF_MOV, 3, 0);
			alu_i(e, BPF_ADD, 3,
			      (int32_t)(m->hold1[i ? 1 : 0] - 1));
		}
		jf[nf++] = rd_kern8(e, S_KEY8);
		ldx(e, BPF_DW, 1, 10, S_KEY8);
		if (i == 0) /* no sighand */
			jf[nf++] = jmp_i(e, BPF_JEQ, 1, 0);
		else if (i == 1) /* a handler of its own */
			jf[nf++] = jmp_i(e, BPF_JGT, 1, 1);
		else { /* SIGURG blocked */
			alu_i(e, BPF_AND, 1, 1 << (UBPF_SIGURG - 1));
			jf[nf++] = jmp_i(e, BPF_JNE, 1, 0);
		}
	}
	ldx(e, BPF_DW, 1, 10, S_HOLD);
	st(e, BPF_W, 1, 0, UBPF_HOLD_CO);
	alu_i(e, BPF_MOV, 1, UBPF_SIGURG);
	call(e, BPF_FUNC_send_signal_thread);
	jok = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_DW, 1, 10, S_HOLD);
	st(e, BPF_W, 1, 0, UBPF_HOLD_SEIZED);
	for (unsigned i = 0; i < nf; i++)
		fix(e, jf[i]);
	st(e, BPF_DW, 10, S_HOLD, 0);
	jf[0] = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jok);
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, UBPF_RF_HELD);
	stx(e, BPF_H, 9, 30, 1);
	fix(e, jf[0]);
}

/* struct ubpf_anc's 4 bytes as the host reads them */
static int32_t anc_word(unsigned n, unsigned state)
{
	struct ubpf_anc a = { (__u16)n, (__u16)state };
	uint32_t w;

	memcpy(&w, &a, sizeof(w));
	return (int32_t)w;
}

/*
 * The parent's tgid at the hit, A[0], and with anc progenyof()'s chain
 * after it, as usdt.bpf.c's ppid_rec() and anc_rec() and kprov.bpf.h's
 * kprov_anc(): read through task_struct at o (offsets + 1) from the
 * current task, the parent's task kept in S_KEY8 (free here).
 *
 * A uprobe's record (!kp): A[0] and 4 bytes at r8 (masked as the
 * strings' are), the record (r9) flagged UBPF_RF_PPID, and the links
 * after them; nothing, and no flag, when a read of A[0] faults or there
 * is no parent.  A kernel probe's (kp): A[0] and struct ubpf_anc in its
 * kctx (kp_kctx() wrote them, 0 0 where not read), the links at r8.
 * r8 is past what was written.
 *
 * The walk is unrolled: link i (1 .. UBPF_ANC - 1) at a constant offset
 * from r9 + r8, which stays put, each exit (n links, complete or cut)
 * a block that stores its struct ubpf_anc and the padding; all of them
 * then move r8 past the links by the count read back, so the verifier
 * meets one state there, not one a link.
 */
void anc_walk(struct em *e, const uint32_t o[2], bool kp, bool anc)
{
	const int16_t x = (int16_t)sizeof(struct ubpf_rec);
	/* the links from r9 + r8; struct ubpf_anc from there, or where kp
	 * from r9 (the kctx's pad) */
	const int16_t lb = kp ? 0 : 8, ao = kp ? (int16_t)(x + 12) : 4;
	size_t jn[3], jz, j31, jl[UBPF_ANC][3] = { { 0 } },
			       jf[UBPF_ANC] = { 0 };
	size_t jt[2 * UBPF_ANC];
	unsigned nt = 0;

	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(o[0] - 1));
	jn[0] = rd_kern8(e, S_KEY8);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	jn[1] = jmp_i(e, BPF_JEQ, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(o[1] - 1));
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	alu_r(e, BPF_MOV, 1, 9);
	if (kp)
		alu_i(e, BPF_ADD, 1, (int32_t)(x + 8));
	else
		alu_r(e, BPF_ADD, 1, 8);
	alu_i(e, BPF_MOV, 2, 4);
	call(e, BPF_FUNC_probe_read_kernel);
	jn[2] = jmp_i(e, BPF_JNE, 0, 0);
	if (!kp) {
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		st(e, BPF_W, 1, 4, 0);
		ldx(e, BPF_H, 1, 9, 30);
		alu_i(e, BPF_OR, 1, UBPF_RF_PPID);
		stx(e, BPF_H, 9, 30, 1);
	}
	if (!anc) {
		if (!kp)
			alu_i(e, BPF_ADD, 8, 8);
		goto none;
	}
	/* A[0] 0: complete, no link */
	if (kp) {
		ldx(e, BPF_W, 1, 9, (int16_t)(x + 8));
	} else {
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		ldx(e, BPF_W, 1, 1, 0);
	}
	jz = jmp_i(e, BPF_JEQ, 1, 0);
	for (unsigned i = 1; i < UBPF_ANC; i++) {
		int16_t at = (int16_t)(lb + 4 * (int)(i - 1));

		ldx(e, BPF_DW, 3, 10, S_KEY8);
		alu_i(e, BPF_ADD, 3, (int32_t)(o[0] - 1));
		jl[i][0] = rd_kern8(e, S_KEY8);
		ldx(e, BPF_DW, 3, 10, S_KEY8);
		jl[i][1] = jmp_i(e, BPF_JEQ, 3, 0);
		alu_i(e, BPF_ADD, 3, (int32_t)(o[1] - 1));
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		alu_i(e, BPF_ADD, 1, at);
		alu_i(e, BPF_MOV, 2, 4);
		call(e, BPF_FUNC_probe_read_kernel);
		jl[i][2] = jmp_i(e, BPF_JNE, 0, 0);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		ldx(e, BPF_W, 1, 1, at);
		jf[i] = jmp_i(e, BPF_JEQ, 1, 0);
	}
	j31 = jmp_i(e, BPF_JA, 0, 0); /* UBPF_ANC links, none 0 */
	/* each exit's block, n links: past UBPF_ANC - 1, none 0 (the fall
	 * through), or a read of link n + 1 that failed: cut; link n 0:
	 * complete */
	for (int full = 0; full < 2; full++) {
		for (unsigned n = 0; n < UBPF_ANC; n++) {
			if (!full && n + 1 < UBPF_ANC) {
				fix(e, jl[n + 1][0]);
				fix(e, jl[n + 1][1]);
				fix(e, jl[n + 1][2]);
			} else if (!full) {
				fix(e, j31);
			}
			if (full)
				fix(e, n ? jf[n] : jz);
			alu_r(e, BPF_MOV, 1, 9);
			if (!kp)
				alu_r(e, BPF_ADD, 1, 8);
			st(e, BPF_W, 1, ao,
			   anc_word(n, full ? UBPF_ANC_FULL : UBPF_ANC_CUT));
			if (n & 1) {
				alu_r(e, BPF_MOV, 1, 9);
				alu_r(e, BPF_ADD, 1, 8);
				st(e, BPF_W, 1, (int16_t)(lb + 4 * (int)n), 0);
			}
			jt[nt++] = jmp_i(e, BPF_JA, 0, 0);
		}
	}
	/* past the links, by the count the block wrote */
	for (unsigned k = 0; k < nt; k++)
		fix(e, jt[k]);
	alu_r(e, BPF_MOV, 1, 9);
	if (!kp)
		alu_r(e, BPF_ADD, 1, 8);
	ldx(e, BPF_H, 2, 1, ao);
	alu_i(e, BPF_LSH, 2, 2);
	alu_i(e, BPF_ADD, 2, 7);
	alu_i(e, BPF_AND, 2, ~7);
	alu_r(e, BPF_ADD, 8, 2);
	alu_i(e, BPF_ADD, 8, lb);
none:
	fix(e, jn[0]);
	fix(e, jn[1]);
	fix(e, jn[2]);
}
/* 8 bytes put at r8: r8 past them, the record (r9) flagged f */
static void u_done(struct em *e, int32_t f)
{
	alu_i(e, BPF_ADD, 8, 8);
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, f);
	stx(e, BPF_H, 9, 30, 1);
}

/*
 * ... as ecred_rec(): the effective uid and gid at r8, through
 * task_struct's cred at o (offsets + 1: cred, euid, egid), flagged
 * UBPF_RF_ECRED; nothing, and no flag, when a read faults.
 */
void u_ecred(struct em *e, const uint32_t o[3])
{
	size_t j[4];
	unsigned nj = 0;

	task_ptr(e, o[0], j, &nj);
	rec_at(e, 0);
	kread(e, 4, o[1], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	rec_at(e, 0);
	alu_i(e, BPF_ADD, 1, 4);
	kread(e, 4, o[2], j, &nj);
	u_done(e, UBPF_RF_ECRED);
	for (unsigned i = 0; i < nj; i++)
		fix(e, j[i]);
}

/*
 * ... as sess_rec(): the process group's and session's ids at r8, each
 * the level-0 nr of signal->pids[type] (SESS_PGID 2, SESS_SID 3) at o
 * (offsets + 1: signal, pids, numbers, nr), flagged UBPF_RF_SESS;
 * nothing, and no flag, when a read faults or a pid is not there.  The
 * struct pid pointer passes through the record's bytes at r8 + 8,
 * which the id then overwrites or the record's end leaves out.
 */
void u_sess(struct em *e, const uint32_t o[4])
{
	size_t j[8];
	unsigned nj = 0;

	task_ptr(e, o[0], j, &nj);
	for (int t = 2; t <= 3; t++) {
		ldx(e, BPF_DW, 3, 10, S_KEY8);
		rec_at(e, 0);
		alu_i(e, BPF_ADD, 1, 8);
		kread(e, 8, o[1] + 8 * (uint32_t)t, j, &nj);
		rec_at(e, 0);
		ldx(e, BPF_DW, 3, 1, 8);
		j[nj++] = jmp_i(e, BPF_JEQ, 3, 0);
		alu_i(e, BPF_ADD, 1, 4 * (t - 2));
		alu_i(e, BPF_ADD, 3, (int32_t)(o[2] - 1));
		kread(e, 4, o[3], j, &nj);
	}
	u_done(e, UBPF_RF_SESS);
	for (unsigned i = 0; i < nj; i++)
		fix(e, j[i]);
}

void cgen_psargs(struct em *e, const uint32_t o[3])
{
	size_t j[6], jn;
	unsigned nj = 0;

	/* task->mm into S_KEY8; none (a kernel thread): nothing */
	task_ptr(e, o[0], j, &nj);
	/* mm->arg_start, mm->arg_end at r8, r8 + 8 */
	rec_at(e, 0);
	kread(e, 8, o[1], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	rec_at(e, 8);
	kread(e, 8, o[2], j, &nj);
	/* n = min(arg_end - arg_start, UBPF_PSARGS); none: nothing */
	rec_at(e, 0);
	ldx(e, BPF_DW, 3, 1, 0);
	ldx(e, BPF_DW, 2, 1, 8);
	j[nj++] = jmp_r(e, BPF_JLE, 2, 3);
	alu_r(e, BPF_SUB, 2, 3);
	jn = jmp_i(e, BPF_JLE, 2, UBPF_PSARGS);
	alu_i(e, BPF_MOV, 2, UBPF_PSARGS);
	fix(e, jn);
	/* its length, then its bytes: the length stands only if they
	 * read (r8 moves past them then) */
	stx(e, BPF_H, 1, 0, 2);
	alu_i(e, BPF_ADD, 1, 2);
	call(e, BPF_FUNC_probe_read_user);
	j[nj++] = jmp_i(e, BPF_JNE, 0, 0);
	rec_at(e, 0);
	ldx(e, BPF_H, 2, 1, 0);
	alu_i(e, BPF_ADD, 8, 2);
	alu_r(e, BPF_ADD, 8, 2);
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, UBPF_RF_PSARGS);
	stx(e, BPF_H, 9, 30, 1);
	for (unsigned i = 0; i < nj; i++)
		fix(e, j[i]);
}

/*
 * vtimestamp: bpf/vtime.bpf.h's clock, emitted.  A run that reads it
 * (vtime_wanted()) gets, beside the events' programs, the switch
 * program (cgen_vtime_start(): vtime_switch, instruction for
 * instruction in effect, on the raw tracepoint sched_switch) and the
 * hash map cgvtimes it keeps {since, acc, on, lost} in by task_struct
 * address; every record of the run (a uprobe event's, a kernel
 * probe's) then carries the thread's time in the 8 bytes after the
 * arguments, flagged UBPF_RF_VTIME, as usdt_hit_vt's and kprov_emit()'s
 * (cgen_vtime(): vtime_now(), and vtime_seed() at a thread's first
 * hit), UBPF_VTIME_LOST where a switch went unreported.  Where the
 * event's plan reads it (UBPF_K_VTIME) the clock is read once, in the
 * prologue before the plan (cgen.c: into S_VT, the entry's pointer in
 * r9, which nothing holds there), and the record stores that value:
 * its clauses and the record's have one value a hit.  With
 * DTRACE_VTIME_LOST=1 (vtime_lose(), a test hook) the seed marks the
 * entry lost, so a thread's first hit has its value and every later
 * one UBPF_VTIME_LOST.
 * vtime.bpf.h says why each step is there; the loops it unrolls are
 * unrolled here the same number of times.
 */

/* struct vtime_ent's fields (vtime.bpf.h) */
#define VT_SINCE 0
#define VT_ACC 8
#define VT_ON 16
#define VT_LOST 20
#define VT_SIZE 24
#define VT_TASK_DEAD 0x80 /* include/linux/sched.h */

/* the switch program's stack: now, the key */
#define SW_NOW (-8)
#define SW_KEY (-16)

/* r1 = the ctx's args[a] (r6) in SW_KEY, r0 = its entry or NULL */
static size_t sw_lookup(struct em *e, int vtimes, int a)
{
	ldx(e, BPF_DW, 1, 6, (int16_t)(8 * a));
	stx(e, BPF_DW, 10, SW_KEY, 1);
	lookup_at(e, vtimes, SW_KEY);
	return jmp_i(e, BPF_JEQ, 0, 0);
}

/* *(u32 *)(r0 + VT_LOST) = 1 when *(u32 *)(r0 + VT_ON) is (not) set */
static void sw_lost_if(struct em *e, uint8_t op)
{
	size_t j;

	ldx(e, BPF_W, 1, 0, VT_ON);
	j = jmp_i(e, op, 1, 0);
	st(e, BPF_W, 0, VT_LOST, 1);
	fix(e, j);
}

int cgen_vtime_start(struct consumer *c, struct cgen_maps *m)
{
	struct em e = {0};
	size_t j1, j2, j3, j4;
	int fd, link;

	m->vtimes = bpf_map_create(BPF_MAP_TYPE_HASH, "cgvtimes", 8, VT_SIZE,
				   UBPF_VTIME_MAX, NULL);
	if (m->vtimes < 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "creating the vtimestamp map: %s", strerror(errno));
		return -1;
	}
	/* ctx: preempt, prev, next, prev_state (u64 each) */
	alu_r(&e, BPF_MOV, 6, 1);
	call(&e, BPF_FUNC_ktime_get_ns);
	stx(&e, BPF_DW, 10, SW_NOW, 0);
	j1 = sw_lookup(&e, m->vtimes, 1); /* prev leaves the CPU */
	ldx(&e, BPF_DW, 1, 6, 0);
	j2 = jmp_i(&e, BPF_JNE, 1, 0);
	ldx(&e, BPF_DW, 1, 6, 24);
	alu_i(&e, BPF_AND, 1, VT_TASK_DEAD);
	j3 = jmp_i(&e, BPF_JEQ, 1, 0);
	ldmap(&e, 1, m->vtimes); /* for good: its entry goes */
	alu_r(&e, BPF_MOV, 2, 10);
	alu_i(&e, BPF_ADD, 2, SW_KEY);
	call(&e, BPF_FUNC_map_delete_elem);
	j4 = jmp_i(&e, BPF_JA, 0, 0);
	fix(&e, j2);
	fix(&e, j3);
	sw_lost_if(&e, BPF_JNE); /* its switch in was not reported */
	ldx(&e, BPF_DW, 1, 10, SW_NOW);
	ldx(&e, BPF_DW, 2, 0, VT_SINCE);
	alu_r(&e, BPF_SUB, 1, 2);
	ldx(&e, BPF_DW, 2, 0, VT_ACC);
	alu_r(&e, BPF_ADD, 1, 2);
	stx(&e, BPF_DW, 0, VT_ACC, 1);
	st(&e, BPF_W, 0, VT_ON, 0);
	fix(&e, j1);
	fix(&e, j4);
	j1 = sw_lookup(&e, m->vtimes, 2); /* next comes on */
	sw_lost_if(&e, BPF_JEQ); /* its last switch out was not reported */
	ldx(&e, BPF_DW, 1, 10, SW_NOW);
	stx(&e, BPF_DW, 0, VT_SINCE, 1);
	st(&e, BPF_W, 0, VT_ON, 1);
	fix(&e, j1);
	alu_i(&e, BPF_MOV, 0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	fd = bpf_cg_load(c, BPF_PROG_TYPE_RAW_TRACEPOINT, e.v, e.n);
	if (fd < 0)
		return -1;
	link = bpf_raw_tracepoint_open("sched_switch", fd);
	if (link < 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "attaching the vtimestamp switch program to "
			 "sched_switch: %s",
			 strerror(errno));
		return -1;
	}
	m->vtlink = link;
	return 0;
}

/* the hit's stack: the plan's slots, free once it ran */
#define VS_S1 S_STK(0)	/* vtime_now(): since, read first */
#define VS_ACC S_STK(1) /* ... acc */
#define VS_E2 S_STK(2)	/* vtime_seed(): sum_exec_runtime, read again */
#define VS_N S_STK(5)	/* ... the new entry, VT_SIZE bytes */
_Static_assert(UBPF_KSTACK >= 6, "the plan's stack holds the seed");

/* bpf_probe_read_kernel(fp + at, 8, task (S_KEY8) + sumexec1 - 1) */
static void vt_sumexec(struct em *e, uint32_t sumexec1, int16_t at)
{
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, at);
	alu_i(e, BPF_MOV, 2, 8);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	alu_i(e, BPF_ADD, 3, (int32_t)(sumexec1 - 1));
	call(e, BPF_FUNC_probe_read_kernel);
}

void cgen_vtime(struct em *e, const struct cgen_maps *m, uint8_t base,
		int16_t off, uint8_t ent)
{
	size_t jseed, jlost, jok, jout[4], jret[6], j;
	unsigned nout = 0, nret = 0;

	if (!m->sumexec1 || ent < 7 || ent > 9 ||
	    base == ent) { /* vtime_check() refused the run */
		e->bad = true;
		return;
	}
	call(e, BPF_FUNC_get_current_task);
	stx(e, BPF_DW, 10, S_KEY8, 0);
	lookup_at(e, m->vtimes, S_KEY8);
	jseed = jmp_i(e, BPF_JEQ, 0, 0);
	/* vtime_now(): the thread runs this, so a switch in unreported
	 * when on is clear; lost for good then */
	sw_lost_if(e, BPF_JNE);
	ldx(e, BPF_W, 1, 0, VT_LOST);
	jlost = jmp_i(e, BPF_JEQ, 1, 0);
	ld64(e, 1, UBPF_VTIME_LOST);
	stx(e, BPF_DW, base, off, 1);
	jok = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jlost);
	alu_r(e, BPF_MOV, ent, 0); /* callee-saved, free here */
	for (int i = 0; i < 4; i++) {
		ldx(e, BPF_DW, 1, ent, VT_SINCE);
		stx(e, BPF_DW, 10, VS_S1, 1);
		ldx(e, BPF_DW, 1, ent, VT_ACC);
		stx(e, BPF_DW, 10, VS_ACC, 1);
		call(e, BPF_FUNC_ktime_get_ns);
		ldx(e, BPF_DW, 1, ent, VT_SINCE);
		ldx(e, BPF_DW, 2, 10, VS_S1);
		if (i < 3)
			jout[nout++] = jmp_r(e, BPF_JEQ, 1, 2);
	}
	for (unsigned i = 0; i < nout; i++)
		fix(e, jout[i]);
	alu_r(e, BPF_SUB, 0, 1); /* acc + (now - since) */
	ldx(e, BPF_DW, 1, 10, VS_ACC);
	alu_r(e, BPF_ADD, 0, 1);
	stx(e, BPF_DW, base, off, 0);
	j = jmp_i(e, BPF_JA, 0, 0);
	/* vtime_seed(): its entry {now, sum_exec_runtime}, made again
	 * while sum_exec_runtime moved around the insert; the value either
	 * way */
	fix(e, jseed);
	for (int i = 0; i < 3; i++) {
		vt_sumexec(e, m->sumexec1, VS_N + VT_ACC);
		call(e, BPF_FUNC_ktime_get_ns);
		stx(e, BPF_DW, 10, VS_N + VT_SINCE, 0);
		st(e, BPF_W, 10, VS_N + VT_ON, 1);
		/* DTRACE_VTIME_LOST: lost from the seed on (the hook) */
		st(e, BPF_W, 10, VS_N + VT_LOST, m->vtlose ? 1 : 0);
		ldmap(e, 1, m->vtimes);
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KEY8);
		alu_r(e, BPF_MOV, 3, 10);
		alu_i(e, BPF_ADD, 3, VS_N);
		alu_i(e, BPF_MOV, 4, BPF_NOEXIST);
		call(e, BPF_FUNC_map_update_elem);
		jret[nret++] = jmp_i(e, BPF_JNE, 0, 0);
		vt_sumexec(e, m->sumexec1, VS_E2);
		ldx(e, BPF_DW, 1, 10, VS_N + VT_ACC);
		ldx(e, BPF_DW, 2, 10, VS_E2);
		jret[nret++] = jmp_r(e, BPF_JEQ, 1, 2);
		ldmap(e, 1, m->vtimes);
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KEY8);
		call(e, BPF_FUNC_map_delete_elem);
	}
	for (unsigned i = 0; i < nret; i++)
		fix(e, jret[i]);
	ldx(e, BPF_DW, 1, 10, VS_N + VT_ACC);
	stx(e, BPF_DW, base, off, 1);
	fix(e, j);
	fix(e, jok);
}

/*
 * VTIME's lost clock, before the plan's first clause (cgen_plan.c):
 * where the plan reads vtimestamp, a hit whose S_VT is UBPF_VTIME_LOST
 * goes to user space whole (e->fj, the unflagged record, as
 * seq_read()'s faults), whose run.c faults at each clause's read of
 * it, statement for statement.  Only in a plan with no fault site: the
 * kernel keeps no self-> variable there (kplan_vars.c's novt), so no
 * clause the hit sends away has state the kernel would keep.
 */
void cgen_vt_lost(struct em *e, const struct ubpf_kplan *pl)
{
	bool site = false, whole = false;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_VTIME) {
			site |= pl->ops[pc].slot != 0;
			whole |= pl->ops[pc].slot == 0;
		}
	if (!whole) /* none, or each a fault site (cgen_vt_fault()) */
		return;
	if (site || cgen_fsites(e, pl) || (pl->tls & (1 | UBPF_KTLS_GARR)) ||
	    e->nfj >= sizeof(e->fj) / sizeof(e->fj[0])) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, S_VT);
	ld64(e, 2, UBPF_VTIME_LOST);
	e->fj[e->nfj++] = jmp_r(e, BPF_JEQ, 1, 2);
}

/*
 * VTIME o, a fault site (o->slot, 1 up: a plan whose kernel keeps
 * self-> variables, kplan_vars.c's vfault): where S_VT is
 * UBPF_VTIME_LOST, the site's two bits (3 at 32 + 2 * (slot - 1) in
 * S_FLAGS, d_kplan_fault()'s illegal operation; a string's and a
 * copy's set 1 or 2) and the clause's end (e->sfj, which cgen_plan()
 * points at o->jump): what the clause did before stays, as run.c's
 * fault at the read leaves it.  r1 to r3 taken.
 */
void cgen_vt_fault(struct em *e, const struct ubpf_kop *o)
{
	size_t jok;

	if (!o->slot || o->slot > UBPF_KFSITES) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, S_VT);
	ld64(e, 2, UBPF_VTIME_LOST);
	jok = jmp_r(e, BPF_JNE, 1, 2);
	alu_i(e, BPF_MOV, 3, 3);
	fault_set(e, o->slot);
	fix(e, jok);
}

/*
 * progenyof() in the plan (UBPF_K_PROG; doc/DESIGN.md's "progenyof() in
 * the generated programs"): before the plan's first clause, where the
 * plan has PROG (cgen_plan.c), the hit's pid and then its chain of
 * parents are compared with each of the plan's pids (pl->anc, at most
 * UBPF_KANC), the one found setting its bit, S_FLAGS_ANC(i), which
 * PROG pushes.  The chain is the record's (anc_walk() above,
 * usdt.bpf.c's anc_rec()): A[0] the tgid of current->real_parent, A[k +
 * 1] that of the real_parent of the task A[k] was read from, the task
 * pointer walked (S_STK(0), the current task's first), each read with
 * bpf_probe_read_kernel() at pl->anc_off (the BTF's offsets); at most
 * UBPF_ANC links, unrolled, no loop.  Each link: the parent's pointer
 * (a read that fails or a NULL: cut), its tgid into S_STK(1), zeroed
 * first (a read that fails: cut), a compare per pid without a branch
 * (x = tgid ^ q in 32 bits, then (x - 1) >> 63, 1 exactly where x is
 * 0, at bit 17 + i, ORed into S_FLAGS), then the way out where every
 * pid's bit is set or the link is 0, the chain's end (complete: the
 * compares made first, so a pid not found there is 0).  Past UBPF_ANC
 * links, or a read that failed, the chain is cut with a pid not found:
 * no answer is exact, so the hit goes to user space whole (e->fj, the
 * unflagged record, S_FLAGS_ANCS cleared first, as seq_read()'s fault
 * does), whose func.c walks the record's chain, cut too, and faults
 * "illegal operation" where a clause asks.  No branch sets a bit, so
 * the verifier meets the same state at the way out from every link.
 * Both stack slots are the plan's, free before its first clause; r1
 * keeps the tgid across the compares (no call among them).
 *
 * Where the plan also has PROGX (pl->ancx: progenyof() of a pid the
 * plan computes), the walk keeps the chain for it: cgbuf taken (S_SBUF,
 * own_need(), a lookup that fails sending the hit to the unflagged
 * record as seq_read()'s does), the hit's pid at word 0 of its chain
 * room (e->ancoff, UBPF_ANCROOM bytes: bpf_cg.c) and each link's tgid
 * at word k + 1 as it is read, and no way out before the chain's end:
 * only a complete chain reaches the plan, its 0 the last word written
 * (the room's other words are a former hit's).  PROGX then compares
 * its pid with those words (cgen_plan.c's progx()).  The room is the
 * hit's while it holds cgbuf (the owner word): no other program on the
 * CPU writes it between the walk and the plan's reads.
 */
static void anc_bits(struct em *e, const struct ubpf_kplan *pl)
{
	ldx(e, BPF_DW, 3, 10, S_FLAGS);
	for (unsigned i = 0; i < pl->nanc; i++) {
		put(e, BPF_ALU | BPF_MOV | BPF_X, 2, 1, 0, 0); /* w2 = w1 */
		put(e, BPF_ALU | BPF_XOR | BPF_K, 2, 0, 0, (int32_t)pl->anc[i]);
		alu_i(e, BPF_SUB, 2, 1);
		alu_i(e, BPF_RSH, 2, 63);
		alu_i(e, BPF_LSH, 2, (int32_t)(17 + i));
		alu_r(e, BPF_OR, 3, 2);
	}
	stx(e, BPF_DW, 10, S_FLAGS, 3);
}

/* PROGX's chain room: word k of it = w1 (r2 clobbered) */
static void anc_keep(struct em *e, unsigned k)
{
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	stx(e, BPF_W, 2, (int16_t)(e->ancoff + 4 * k), 1);
}

void cgen_anc_plan(struct em *e, const struct ubpf_kplan *pl, int buf)
{
	const int32_t all = (int32_t)(S_FLAGS_ANC(pl->nanc) - S_FLAGS_ANC(0));
	const int16_t tk = (int16_t)S_STK(0), tg = (int16_t)S_STK(1);
	const bool keep = pl->ancx != 0;
	size_t jok[2 * UBPF_ANC + 1], jcut[3 * UBPF_ANC];
	unsigned nok = 0, ncut = 0;

	if (!pl->nanc && !keep)
		return;
	if (pl->nanc > UBPF_KANC || !pl->anc_off[0] || !pl->anc_off[1] ||
	    e->nfj + 2 > sizeof(e->fj) / sizeof(e->fj[0]) ||
	    (keep &&
	     (!e->ancoff || buf < 0 || e->ancoff + UBPF_ANCROOM > INT16_MAX))) {
		e->bad = true;
		return;
	}
	if (keep && !e->vbuf) { /* cgbuf's address at S_SBUF */
		size_t jn = own_need(e, buf);

		if (jn != SIZE_MAX)
			e->fj[e->nfj++] = jn;
		stx(e, BPF_DW, 10, S_SBUF, 0);
		e->vbuf = true;
	}
	/* the hit's own pid */
	call(e, BPF_FUNC_get_current_pid_tgid);
	alu_r(e, BPF_MOV, 1, 0);
	alu_i(e, BPF_RSH, 1, 32);
	if (keep)
		anc_keep(e, 0);
	anc_bits(e, pl);
	alu_i(e, BPF_AND, 3, all);
	if (!keep)
		jok[nok++] = jmp_i(e, BPF_JEQ, 3, all);
	call(e, BPF_FUNC_get_current_task);
	stx(e, BPF_DW, 10, tk, 0);
	for (unsigned k = 0; k < UBPF_ANC; k++) {
		ldx(e, BPF_DW, 3, 10, tk);
		alu_i(e, BPF_ADD, 3, (int32_t)pl->anc_off[0]);
		jcut[ncut++] = rd_kern8(e, tk);
		ldx(e, BPF_DW, 3, 10, tk);
		jcut[ncut++] = jmp_i(e, BPF_JEQ, 3, 0);
		st(e, BPF_DW, 10, tg, 0);
		alu_i(e, BPF_ADD, 3, (int32_t)pl->anc_off[1]);
		alu_r(e, BPF_MOV, 1, 10);
		alu_i(e, BPF_ADD, 1, tg);
		alu_i(e, BPF_MOV, 2, 4);
		call(e, BPF_FUNC_probe_read_kernel);
		jcut[ncut++] = jmp_i(e, BPF_JNE, 0, 0);
		ldx(e, BPF_W, 1, 10, tg);
		if (keep)
			anc_keep(e, k + 1);
		anc_bits(e, pl);
		alu_i(e, BPF_AND, 3, all);
		if (!keep) /* every pid found: the rest is not needed */
			jok[nok++] = jmp_i(e, BPF_JEQ, 3, all);
		jok[nok++] = jmp_i(e, BPF_JEQ, 1, 0); /* complete */
	}
	/* cut: the hit's clauses are user space's, bits cleared */
	for (unsigned i = 0; i < ncut; i++)
		fix(e, jcut[i]);
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_AND, 1, (int32_t)~S_FLAGS_ANCS);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
	e->fj[e->nfj++] = jmp_i(e, BPF_JA, 0, 0);
	for (unsigned i = 0; i < nok; i++)
		fix(e, jok[i]);
}
