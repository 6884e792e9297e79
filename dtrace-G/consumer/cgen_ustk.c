// SPDX-License-Identifier: MIT
/*
 * cgen_ustk.c - the user stack in a generated program (cgen.c's stage
 * 3, the record; doc/DESIGN.md §8).  An event whose clauses read the
 * stack (the spec's ustk, KiB) has the record, built in cgbuf (made
 * with room for it), carry
 * the user registers and a copy of the stack as usdt.bpf.c's
 * ustack_copy() makes it, code for code (ustack_copy() below): the
 * output cannot differ, and the run verifies a few hundred
 * instructions instead of the generic program's 180,000.  Before the
 * copy, where ustack_walk.c loaded the unwinder, a tail call hands the
 * record to it (ustack_walk() below): the stack walked in the kernel
 * from the modules' CFI, the record output with the pcs alone, or in
 * doubt with the copy, which the unwinder then makes itself (a tail
 * call that lands never comes back); where no unwinder is loaded the
 * tail call falls through to the copy.  A kernel probe's record
 * (cgen_kprov.c) carries the copy alone, as kprov.bpf.h's do (the
 * unwinder's context is a uprobe's), of the registers of the thread's
 * user mode, which are not its context's: kp_uregs() reads them where
 * its provider says (struct cgen_kpro's ureg) as kprov.bpf.h's
 * programs read them -- a raw tracepoint's struct pt_regs (sys_enter,
 * sys_exit), a perf event's own where the sample interrupted user
 * mode, else those the kernel saved on entry (bpf_task_pt_regs(),
 * which needs the kernel's BTF), none for a kernel thread or a compat
 * task -- and puts them in the record in UBPF_R_* order, so the copy
 * and the frames dtrace unwinds from it are the generic program's.
 */
#include "config.h"

#include <linux/bpf.h>
#include <stdint.h>

#include "bpf/unw_bpf.h"
#include "bpf/uregs.h"
#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"

/* pt_regs offsets, by UBPF_R_* (bpf/uregs.h) */
static const int16_t regoff[UREG_N] = UREG_OFFSETS;

/*
 * usdt.bpf.c's ustack_copy(), the record (r9, in cgbuf) being r8 bytes
 * long: at the next multiple of 8 the user registers (UBPF_R_*, from
 * pt_regs), a u32 length and a u32 0, then the stack from rsp to the
 * end of its page and a page at a time while fewer than kib KiB were
 * taken and the next page reads (the stack's top is where a read first
 * fails; a first read that fails copies nothing); the record's length
 * (r8, its u16 at 24) and UBPF_RF_USTACK added to its flags (u16 at
 * 30).  r6, r7 are taken: the context and pid_tgid are read no more.
 */
#define USTK_DATA (8 * (UBPF_R_IP + 1) + 8)

void ustack_copy(struct em *e, uint8_t kib, bool kp)
{
	const int32_t want = (int32_t)kib * 1024;
	const int16_t data = USTK_DATA;
	size_t jdone[UBPF_USTKMAX / 4096 * 2 + 2], nd = 0, j;

	if (kp) { /* kp_uregs() put them at r8, aligned: rsp from there */
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		ldx(e, BPF_DW, 6, 1, (int16_t)(8 * UBPF_R_SP));
	} else {
		alu_i(e, BPF_ADD, 8, 7);
		alu_i(e, BPF_AND, 8, ~7);
		alu_r(e, BPF_MOV, 2, 9);
		alu_r(e, BPF_ADD, 2, 8);
		for (unsigned i = 0; i <= UBPF_R_IP; i++) {
			ldx(e, BPF_DW, 1, 6, regoff[i]);
			stx(e, BPF_DW, 2, (int16_t)(8 * i), 1);
		}
		ldx(e, BPF_DW, 6, 6, regoff[UBPF_R_SP]);
	}
	/* r7 = the first read's size: to the end of rsp's page, <= want */
	alu_i(e, BPF_MOV, 7, 4096);
	alu_r(e, BPF_MOV, 1, 6);
	alu_i(e, BPF_AND, 1, 4095);
	alu_r(e, BPF_SUB, 7, 1);
	j = jmp_i(e, BPF_JLE, 7, want);
	alu_i(e, BPF_MOV, 7, want);
	fix(e, j);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	alu_i(e, BPF_ADD, 1, data);
	alu_r(e, BPF_MOV, 2, 7);
	alu_r(e, BPF_MOV, 3, 6);
	call(e, BPF_FUNC_probe_read_user);
	j = jmp_i(e, BPF_JSGE, 0, 0);
	alu_i(e, BPF_MOV, 7, 0);
	jdone[nd++] = jmp_i(e, BPF_JA, 0, 0);
	fix(e, j);
	for (unsigned i = 0; i < UBPF_USTKMAX / 4096; i++) {
		jdone[nd++] = jmp_i(e, BPF_JGE, 7, want);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_ADD, 1, 8);
		alu_i(e, BPF_ADD, 1, data);
		alu_r(e, BPF_ADD, 1, 7);
		alu_i(e, BPF_MOV, 2, 4096);
		alu_r(e, BPF_MOV, 3, 6);
		alu_r(e, BPF_ADD, 3, 7);
		call(e, BPF_FUNC_probe_read_user);
		jdone[nd++] = jmp_i(e, BPF_JSLT, 0, 0);
		alu_i(e, BPF_ADD, 7, 4096);
	}
	for (size_t i = 0; i < nd; i++)
		fix(e, jdone[i]);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	stx(e, BPF_W, 1, (int16_t)(data - 8), 7);
	st(e, BPF_W, 1, (int16_t)(data - 4), 0);
	alu_i(e, BPF_ADD, 8, data);
	alu_r(e, BPF_ADD, 8, 7);
	stx(e, BPF_H, 9, 24, 8);
	/* the record's flags as they are, with those the fields after the
	 * header added (cred, ppid, ...): not S_FLAGS, which lacks them */
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, UBPF_RF_USTACK);
	stx(e, BPF_H, 9, 30, 1);
}

/*
 * The stack walked in the kernel (bpf/unw.bpf.c through the prog array
 * arr, ustack_walk.c): the KiB the copy would take left at UW_KIB_OFF
 * in cgbuf (r9), the record's length already at its u16 at 24, then a
 * tail call with the context (r6).  The unwinder outputs the record
 * itself, with the pcs or the copy, and never comes back; an empty
 * slot (no unwinder) falls through to the copy, r6-r9 as they were.
 */
void ustack_walk(struct em *e, uint32_t arr, uint8_t kib)
{
	st(e, BPF_W, 9, UW_KIB_OFF, kib);
	alu_r(e, BPF_MOV, 1, 6);
	ldmap(e, 2, (int)arr);
	alu_i(e, BPF_MOV, 3, 0);
	call(e, BPF_FUNC_tail_call);
}

/*
 * OSTK (kplan_out.c's kp_out_stk()): a printf() or trace() of a clause
 * the program runs (or its @[ustack()] = count(), whose update dtrace
 * makes from the record: kplan_out.c's "User stacks as aggregation
 * keys") prints the user stack of the hit's record, which
 * dtrace unwinds and names as it formats the clause (d/stack.c's
 * d_stack_rec()), as it does for a clause it runs from the record.  No
 * instruction: the record stage copies the stack (ustack_copy()), or
 * the unwinder outputs the record with its pcs (ustack_walk()), for
 * every record of an event whose clauses read the stack, the kernel's
 * too (the spec's ustk, from the clauses' needs).  A program whose
 * records would carry none is refused rather than print no frames.
 */
void ustack_out(struct em *e)
{
	if (!e->ustk)
		e->bad = true;
}

/*
 * A kernel probe's user registers (kprov.bpf.h's, by where its provider
 * says they are: k->ureg), for ustack_copy(): at r7, the record's
 * length (r8) rounded up to 8, in UBPF_R_* order, then r8 = r7; a
 * thread with none (a kernel thread's, a compat task's, a read that
 * faults, no BTF for bpf_task_pt_regs()) jumps to the jumps it adds
 * to nj, r8 as it was: the record then has no stack, and no
 * UBPF_RF_USTACK, as kprov_emit() given no registers.  Registers read
 * from kernel memory land first where the stack's copy goes (past
 * USTK_DATA), as struct pt_regs lies (UKP_SIZE bytes, the mode word at
 * UKP_MODE), and are put in order from there; a perf event's own are
 * loads from its context.  r6 (the context) stays; r1-r5, r0 and r7
 * are taken.
 */
#if defined(__aarch64__)
#define UKP_SIZE (8 * (UREG_A64_N + 1)) /* user_pt_regs, pstate last */
#define UKP_MODE UREG_A64_PSTATE_OFF
#define UKP_MODE_MASK UREG_A64_MODE_MASK
#define UKP_MODE32 0x10 /* PSR_MODE32_BIT */
#else
#define UKP_SIZE 168 /* struct pt_regs */
#define UKP_MODE 136 /* cs */
#define UKP_USER32_CS 0x23
#endif

/* kernel memory's pt_regs (pointer in r3) in order at r9 + r7 */
static void ukp_read(struct em *e, size_t *nj, size_t *j)
{
	const int16_t data = USTK_DATA;

	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 7);
	alu_i(e, BPF_ADD, 1, data);
	alu_i(e, BPF_MOV, 2, UKP_SIZE);
	call(e, BPF_FUNC_probe_read_kernel);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 0, 0);
}

/* ... put in UBPF_R_* order, from where ukp_read() put them */
static void ukp_order(struct em *e)
{
	const int16_t data = USTK_DATA;

	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 7);
	for (unsigned i = 0; i <= UBPF_R_IP; i++) {
		ldx(e, BPF_DW, 2, 1, (int16_t)(data + regoff[i]));
		stx(e, BPF_DW, 1, (int16_t)(8 * i), 2);
	}
}

/* the saved ones, kprov.bpf.h's kprov_task_uregs(): user mode's */
static void ukp_task(struct em *e, const struct cgen_kpro *k, size_t *nj,
		     size_t *j)
{
	if (!k->btf) { /* kprov_btf 0: none */
		j[(*nj)++] = jmp_i(e, BPF_JA, 0, 0);
		return;
	}
	call(e, BPF_FUNC_get_current_task_btf);
	alu_r(e, BPF_MOV, 1, 0);
	call(e, BPF_FUNC_task_pt_regs);
	alu_r(e, BPF_MOV, 3, 0);
	ukp_read(e, nj, j);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 7);
	ldx(e, BPF_DW, 2, 1, (int16_t)(USTK_DATA + UKP_MODE));
#if defined(__aarch64__)
	/* EL0, not AArch32 */
	alu_i(e, BPF_AND, 2, UKP_MODE_MASK | UKP_MODE32);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 2, 0);
#else
	/* cs: user mode's, not a compat task's */
	j[(*nj)++] = jmp_i(e, BPF_JEQ, 2, UKP_USER32_CS);
	alu_i(e, BPF_AND, 2, 3);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 2, 3);
#endif
	ukp_order(e);
}

void kp_uregs(struct em *e, const struct cgen_kpro *k, size_t *nj, size_t *j)
{
	size_t jk, jok;

	alu_r(e, BPF_MOV, 7, 8);
	alu_i(e, BPF_ADD, 7, 7);
	alu_i(e, BPF_AND, 7, ~7);
	switch (k->ureg) {
	case CGK_UREG_RAW: /* args[0], the call's pt_regs */
		ldx(e, BPF_DW, 3, 6, 0);
		ukp_read(e, nj, j);
		ukp_order(e);
		break;
	case CGK_UREG_PERF: /* the sample's, where it was in user mode */
		ldx(e, BPF_DW, 1, 6, UKP_MODE);
		alu_r(e, BPF_MOV, 2, 1);
#if defined(__aarch64__)
		alu_i(e, BPF_AND, 2, UKP_MODE_MASK);
		jk = jmp_i(e, BPF_JNE, 2, 0);
		alu_i(e, BPF_AND, 1, UKP_MODE32);
		j[(*nj)++] = jmp_i(e, BPF_JNE, 1, 0);
#else
		alu_i(e, BPF_AND, 2, 3);
		jk = jmp_i(e, BPF_JEQ, 2, 0);
		j[(*nj)++] = jmp_i(e, BPF_JEQ, 1, UKP_USER32_CS);
#endif
		alu_r(e, BPF_MOV, 2, 9);
		alu_r(e, BPF_ADD, 2, 7);
		for (unsigned i = 0; i <= UBPF_R_IP; i++) {
			ldx(e, BPF_DW, 1, 6, regoff[i]);
			stx(e, BPF_DW, 2, (int16_t)(8 * i), 1);
		}
		jok = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jk); /* in the kernel: the saved ones */
		ukp_task(e, k, nj, j);
		fix(e, jok);
		break;
	default:
		ukp_task(e, k, nj, j);
		break;
	}
	alu_r(e, BPF_MOV, 8, 7);
}
