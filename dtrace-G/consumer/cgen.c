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
 *     program's); dtrace's own hits (self_pid) end here.  Then every
 *     argument the record or the plan reads is fetched once, per its
 *     spec, into a stack slot: a register is one load from pt_regs at a
 *     constant offset (bpf/uregs.h, the machine's), memory at register +
 *     offset one bpf_probe_read_user() of its size (1, 2, 4, else 8 bytes), a
 *     constant an immediate; each narrowed to its size and sign as
 *     usdt.bpf.c's sized() does (%ah-style: bits 8-15, unnarrowed).
 *  2. The plan, when the event has one: only for a process bpf_agg.c
 *     armed -- the event's first such process in the array cgarm1
 *     (indexed by event: a lookup the verifier inlines), any other by
 *     the key {event, pid} in the hash map cgarmed, each put there
 *     when that process's plan at this event is byte for byte the one
 *     compiled in (cgen_emit()'s pl), so any other process (a child
 *     not traced, one whose probe differs, a hit before its plans went
 *     in) writes an unflagged record and user space runs every clause
 *     for it, exactly as the generic program does.  Then each plan
 *     instruction becomes code.  Register allocation is the simplest
 *     that is exact: the stack machine's stack lives in fixed stack
 *     slots (its depth at each instruction is known here), operands
 *     are loaded into r1-r5 for the operation and the result is stored
 *     back, narrowed by the instruction's size and sign; r9 keeps an
 *     aggregated value across helper calls.  PRED is a forward jump to
 *     the end of its clause.  KEY stores into the kaggs key on the
 *     stack; AGG computes quantize()'s bucket (a branchy fls) or
 *     lquantize()'s, finds the slot (kflat, by index) or the entry
 *     (kaggs: lookup, insert if absent, lookup; a full map counts in
 *     kdrops) and updates it as kagg.bpf.h's kval_update() does.
 *     Signed / and % are BPF's unsigned division on magnitudes with the
 *     sign put back, C's truncation, as kagg.bpf.h's ksdiv().  Plans
 *     made with D_KPLAN_VARS (../d/kplan.c says which clauses) also
 *     have TIME (the firing's timestamp, read once in the prologue into
 *     S_TS, which the record then carries too), and VLD/VST of self->
 *     variables (the hash map cgtls under {tid, variable}: a lookup
 *     that finds none reads 0, a store of 0 deletes, a store the map
 *     has no room for counts in cgtlsdrops; an array's element, its
 *     keys popped, in the hash cgtlsa under {tid, variable and key
 *     types, keys}: tlsa_key()) and of this-> variables
 *     (stack slots zeroed where the plan starts: the kernel's clauses
 *     of a probe are one run of this program), and SEQ, a string
 *     argument compared with a literal: seq_read() copies each such
 *     argument's string into cgbuf before the first clause runs (a
 *     fault ends the plan there: the record goes unflagged and user
 *     space runs every clause), and SEQ compares its length with the
 *     literal's and its bytes a word at a time (8, then 4, 2, 1 bytes
 *     for the tail), the literal's words as immediates (where the kernel
 *     keeps self-> variables, each SEQ is a fault site instead: below);
 *     SKEY copies it
 *     the same way, NUL-padded (its part of cgbuf zeroed before the
 *     copy), into a key of kaggs_s built in cgbuf (a key longer than
 *     its 64 bytes ends the plan as a fault does), which AGG then
 *     uses; both walk the bytes with str_chunks().  Faults at the
 *     hit: a plan whose SEQ carry fault sites (kplan.c's, for
 *     programs whose kernel keeps self-> variables, which no hit can
 *     take to user space; SC skips the right side of an && or || that
 *     may fault when the left decides, as run.c does) reads each
 *     string as far as run.c would (pl->fstr bytes) and, when one
 *     cannot be read, a byte at its address to tell where (there, or
 *     the page after it); each SEQ
 *     on such a string sets its site's bits in the upper half of
 *     S_FLAGS and ends its clause, what it did so far kept, and the
 *     record (written then even when no clause needs it) carries the
 *     bits, flagged UBPF_RF_KFAULT, in its last 8 bytes: dtrace
 *     reports the fault and fires ERROR in the clause's place
 *     (records.c's hit_run_kagg()).  When no clause of the probe
 *     needs the record (and none faulted), the hit ends here.
 *  3. The record (usdt_bpf.h's struct ubpf_rec and its arguments,
 *     flagged UBPF_RF_KAGG after a plan ran): bpf_ringbuf_reserve() of
 *     its constant size, filled in, bpf_ringbuf_submit() with a wakeup
 *     only once the ring is half full; no room counts the hit in drops,
 *     per CPU.  With strings (copyinstr() of an argument: the spec's
 *     strmask) the record's length is known only at the end, so it is
 *     built in the per-CPU buffer cgbuf, each string a 2-byte length
 *     and bpf_probe_read_user_str()'s bytes at an offset masked to the
 *     buffer's first half (the verifier's bound), and written with
 *     bpf_ringbuf_output(), as usdt.bpf.c does; so is a record with the
 *     copy of copyin(argN, size) at the hit (the spec's memmask: one
 *     argument, bpf.c's ev_mem()), a 2-byte length (0: a fault, which
 *     user space reads again) and bpf_probe_read_user()'s bytes.  The
 *     spec's cred puts the uid and gid after the arguments (u_cred(),
 *     UBPF_RF_CRED: 8 bytes, the size stays constant) and its ppid the
 *     parent's tgid through task_struct at the BTF's offsets (u_ppid(),
 *     UBPF_RF_PPID), as usdt.bpf.c's cred_rec() and ppid_rec(); the
 *     ppid's 8 bytes are there only when the parent could be read, so
 *     such a record is built in cgbuf too; so are the spec's ecred
 *     (u_ecred(): the effective ids through task_struct's cred,
 *     UBPF_RF_ECRED) and sess (u_sess(): the process group's and
 *     session's level-0 ids through signal->pids, UBPF_RF_SESS), as
 *     ecred_rec() and sess_rec().  A kernel probe's record has uid, gid
 *     and ppid in its kctx (below) and neither of the last two
 *     (kprov_cg_fits() refuses them there).
 *  4. Epilogue: r0 = 0, exit.
 *
 * Kernel probes (syscall, profile-N, proc: cgen_kprov.c) take the same
 * stages with m->kp set: their provider's prologue (kprov.h's struct
 * cgk, emitted by the provider's file) instead of the argument specs,
 * the attach cookie their ev with UBPF_EV_KPROV put back; the plan,
 * every process's, run on every hit with no arming checked
 * (kp_plan()), and no record at all when it is the probe's every
 * clause and cannot fault; the record with a struct ubpf_kctx after
 * the header (kp_kctx(): uid, gid, and ppid through task_struct at the
 * BTF's offsets, as kprov.bpf.h's kprov_emit()).  The program types
 * are the provider's (tracepoint, perf_event), whose helpers include
 * all of these and bpf_get_current_task, bpf_get_current_uid_gid and
 * bpf_probe_read_kernel.
 *
 * User stacks.  An event whose clauses read the stack (the spec's ustk,
 * KiB) has the record, built in cgbuf (made with room for it), carry
 * the user registers and a copy of the stack as usdt.bpf.c's
 * ustack_copy() makes it, code for code (ustack_copy() here): the
 * output cannot differ, and the run verifies a few hundred
 * instructions instead of the generic program's 180,000.
 *
 * What is refused (bpf.c falls back to the generic program for the
 * whole run): vtimestamp, curpsinfo's pr_psargs (bpf.c's cg_fits()),
 * and pr_euid, pr_egid, pr_pgid, pr_sid at a kernel probe, a kernel
 * probe its provider has no prologue for (a system call on the raw
 * tracepoint) or whose clauses read the stack (its user registers are not
 * its context's).  Everything
 * else a clause does (printf(), trace(), string predicates other than
 * an argument's string against a literal, self-> variables a clause
 * that prints reads, and the like) user space runs from the record, as
 * with the generic program.  A plan that keeps self-> variables is
 * never replaced by the record-only program: the variables are the
 * kernel's alone, so bpf.c refuses the event instead.  Only
 * instructions and helpers Linux 6.1's verifier accepts are emitted
 * (check-kmod's Debian guest): 64-bit ALU and conditional jumps (no
 * signed division, no sign-extending loads: those came in 6.6),
 * bpf_get_current_pid_tgid, bpf_get_attach_cookie (5.15),
 * bpf_probe_read_user, bpf_ktime_get_ns, bpf_get_smp_processor_id,
 * bpf_get_current_comm, bpf_get_current_uid_gid, bpf_get_current_task,
 * bpf_probe_read_kernel,
 * bpf_probe_read_user_str, map lookup, update and delete, and the ring
 * buffer's reserve, submit, output and query (5.8).
 */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/kagg_bpf.h"
#include "bpf/kprov_bpf.h"
#include "bpf/uregs.h"
#include "bpf/usdt_bpf.h"
#include "consumer_impl.h"

/* pt_regs offsets, by UBPF_R_* (bpf/uregs.h) */
static const int16_t regoff[UREG_N] = UREG_OFFSETS;

/* the stack frame (offsets from r10) */
#define S_KEY8 (-8)		      /* {ev, pid}, a u32 index */
#define S_ARG(i) (-16 - 8 * (int)(i)) /* UBPF_MAXARGS arguments */
#define S_STK(i) (-16 - 8 * UBPF_MAXARGS - 8 * (int)(i))       /* the plan's */
#define S_KKEY (-16 - 8 * UBPF_MAXARGS - 8 * UBPF_KSTACK - 40) /* kaggs */
#define S_ZERO (S_KKEY - 16) /* a zero struct ubpf_kval */
#define S_COMM (S_ZERO - 16) /* the thread's name */
#define S_FLAGS (S_COMM - 8) /* the record's flags */
#define S_TS (S_FLAGS - 8)   /* the firing's timestamp, if the plan reads it */
#define S_VKEY (S_TS - 8)    /* cgtls's key {tid, variable} */
#define S_VVAL (S_VKEY - 8)  /* a value stored there */
#define S_THIS(i) (S_VVAL - 8 - 8 * (int)(i)) /* UBPF_KTHIS this-> */
#define S_SBUF S_THIS(UBPF_KTHIS) /* cgbuf, where SEQ's strings are */
#define S_SLEN(j) (S_SBUF - 8 - 8 * (int)(j)) /* their copies' lengths */
/* cgtlsa's key {tid, var, keys} */
#define S_AKEY (S_SLEN(UBPF_KSTRARGS - 1) - (int)sizeof(struct ubpf_kvakey))
/* SEQ's string of its j-th argument: in cgbuf, past what a record uses */
#define SEQ_AT(j) (UBPF_SCRATCH - UBPF_STRMAX * ((int)(j) + 1))
/* a kaggs_s key, built below them (a map key may be in a map value) */
#define SKEY_AT (SEQ_AT(UBPF_KSTRARGS) - (int)sizeof(struct ubpf_kskey))

struct em {
	struct bpf_insn *v;
	size_t n, cap;
	bool bad;
	/* SEQ: the arguments whose strings the plan compares, and the
	 * jumps taken when one cannot be read (to the unflagged record) */
	uint8_t sarg[UBPF_KSTRARGS];
	bool skarg[UBPF_KSTRARGS]; /* ... SKEY's: at most UBPF_KSKEY bytes */
	unsigned nsarg;
	size_t fj[UBPF_KSTRARGS * 2 + 1];
	unsigned nfj;
	/* SEQ with a fault site (fsites()): its jump to its clause's
	 * end, taken when its string could not be read; plan() fixes it */
	size_t sfj;
};

static void put(struct em *e, uint8_t code, uint8_t dst, uint8_t src,
		int16_t off, int32_t imm)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->v = xrealloc(e->v, e->cap, sizeof(*e->v));
	}
	e->v[e->n++] = (struct bpf_insn){.code = code,
					 .dst_reg = dst,
					 .src_reg = src,
					 .off = off,
					 .imm = imm};
}

static void alu_i(struct em *e, uint8_t op, uint8_t dst, int32_t imm)
{
	put(e, BPF_ALU64 | op | BPF_K, dst, 0, 0, imm);
}

static void alu_r(struct em *e, uint8_t op, uint8_t dst, uint8_t src)
{
	put(e, BPF_ALU64 | op | BPF_X, dst, src, 0, 0);
}

static void ld64(struct em *e, uint8_t dst, uint64_t v)
{
	if ((int64_t)v == (int32_t)v) {
		alu_i(e, BPF_MOV, dst, (int32_t)v);
		return;
	}
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)(uint32_t)v);
	put(e, 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
}

static void ldmap(struct em *e, uint8_t dst, int fd)
{
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
	put(e, 0, 0, 0, 0, 0);
}

static void ldx(struct em *e, uint8_t sz, uint8_t dst, uint8_t src, int16_t off)
{
	put(e, BPF_LDX | BPF_MEM | sz, dst, src, off, 0);
}

static void stx(struct em *e, uint8_t sz, uint8_t dst, int16_t off, uint8_t src)
{
	put(e, BPF_STX | BPF_MEM | sz, dst, src, off, 0);
}

static void st(struct em *e, uint8_t sz, uint8_t dst, int16_t off, int32_t imm)
{
	put(e, BPF_ST | BPF_MEM | sz, dst, 0, off, imm);
}

static void call(struct em *e, int32_t fn)
{
	put(e, BPF_JMP | BPF_CALL, 0, 0, 0, fn);
}

/* a jump whose offset is set later (fix()); its index */
static size_t jmp_i(struct em *e, uint8_t op, uint8_t dst, int32_t imm)
{
	put(e, BPF_JMP | op | BPF_K, dst, 0, 0, imm);
	return e->n - 1;
}

static size_t jmp_r(struct em *e, uint8_t op, uint8_t dst, uint8_t src)
{
	put(e, BPF_JMP | op | BPF_X, dst, src, 0, 0);
	return e->n - 1;
}

/* jump at index j lands on the next instruction to be emitted */
static void fix(struct em *e, size_t j)
{
	if (e->n - j - 1 > INT16_MAX)
		e->bad = true;
	e->v[j].off = (int16_t)(e->n - j - 1);
}

/* usdt.bpf.c's sized(): r to size bytes, sign- or zero-extended */
static void sized(struct em *e, uint8_t r, uint8_t size, uint8_t sgn)
{
	int32_t sh;

	if (size != 1 && size != 2 && size != 4)
		return;
	sh = 64 - 8 * size;
	alu_i(e, BPF_LSH, r, sh);
	alu_i(e, sgn ? BPF_ARSH : BPF_RSH, r, sh);
}

/* r = 1 if r's value is not 0, else 0 */
static void truth(struct em *e, uint8_t r)
{
	size_t j = jmp_i(e, BPF_JEQ, r, 0);

	alu_i(e, BPF_MOV, r, 1);
	fix(e, j);
}

/* ------------------------------------------------------------------ */
/* 1. the arguments */

/* Argument i by spec a into its stack slot (r1-r5 clobbered). */
static void arg_fetch(struct em *e, unsigned i, const struct ubpf_arg *a)
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
	stx(e, BPF_DW, 10, (int16_t)S_ARG(i), 1);
}

/* ------------------------------------------------------------------ */
/* 2. the plan */

/* r3 = fls(r2) for r2 != 0 (kagg.bpf.h's kfls()); r2 clobbered */
static void fls(struct em *e)
{
	static const int sh[] = {32, 16, 8, 4, 2};

	alu_i(e, BPF_MOV, 3, 1);
	for (size_t i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
		size_t j;

		alu_r(e, BPF_MOV, 4, 2);
		alu_i(e, BPF_RSH, 4, sh[i]);
		j = jmp_i(e, BPF_JEQ, 4, 0);
		alu_i(e, BPF_ADD, 3, sh[i]);
		alu_r(e, BPF_MOV, 2, 4);
		fix(e, j);
	}
	alu_i(e, BPF_RSH, 2, 1);
	{
		size_t j = jmp_i(e, BPF_JEQ, 2, 0);

		alu_i(e, BPF_ADD, 3, 1);
		fix(e, j);
	}
}

/* r1 = the bucket of the value in r9 for AGG o (kbucket()) */
static void bucket(struct em *e, const struct ubpf_kop *o)
{
	size_t j1, j2, j3, j4;

	if (o->n == UBPF_F_QUANTIZE) {
		alu_i(e, BPF_MOV, 1, 63);
		j1 = jmp_i(e, BPF_JEQ, 9, 0); /* 0: 63 */
		alu_r(e, BPF_MOV, 2, 9);
		j2 = jmp_i(e, BPF_JSGT, 9, 0);
		alu_i(e, BPF_NEG, 2, 0); /* v < 0: 63 - fls(-v), at least 0 */
		fls(e);
		alu_r(e, BPF_SUB, 1, 3);
		j3 = jmp_i(e, BPF_JSGE, 1, 0);
		alu_i(e, BPF_MOV, 1, 0);
		fix(e, j3);
		j4 = jmp_i(e, BPF_JA, 0, 0);
		fix(e, j2); /* v > 0: 63 + fls(v) */
		fls(e);
		alu_r(e, BPF_ADD, 1, 3);
		fix(e, j4);
		fix(e, j1);
	} else if (o->n == UBPF_F_LQUANTIZE) {
		int64_t base = o->imm;
		uint64_t top = (uint64_t)base +
			       (uint64_t)o->levels * (uint64_t)(int64_t)o->step;

		alu_i(e, BPF_MOV, 1, 0);
		ld64(e, 2, (uint64_t)base);
		j1 = jmp_r(e, BPF_JSLT, 9, 2);
		ld64(e, 3, top);
		alu_i(e, BPF_MOV, 1, (int32_t)o->levels + 1);
		j2 = jmp_r(e, BPF_JSGE, 9, 3);
		alu_r(e, BPF_MOV, 1, 9);
		alu_r(e, BPF_SUB, 1, 2);
		alu_i(e, BPF_DIV, 1, o->step); /* unsigned, as (__u64) */
		alu_i(e, BPF_ADD, 1, 1);
		fix(e, j2);
		fix(e, j1);
		/* kbucket()'s __u16 */
		alu_i(e, BPF_AND, 1, 0xffff);
	} else {
		alu_i(e, BPF_MOV, 1, 0);
	}
}

/* kval_update() of the struct ubpf_kval at r0 with the value in r9 */
static void kval_update(struct em *e, uint8_t fn)
{
	size_t j1, j2;

	switch (fn) {
	case UBPF_F_COUNT:
	case UBPF_F_QUANTIZE:
	case UBPF_F_LQUANTIZE:
		ldx(e, BPF_DW, 1, 0, 0);
		alu_i(e, BPF_ADD, 1, 1);
		stx(e, BPF_DW, 0, 0, 1);
		break;
	case UBPF_F_SUM:
		ldx(e, BPF_DW, 1, 0, 0);
		alu_r(e, BPF_ADD, 1, 9);
		stx(e, BPF_DW, 0, 0, 1);
		st(e, BPF_DW, 0, 8, 1);
		break;
	case UBPF_F_AVG:
		ldx(e, BPF_DW, 1, 0, 0);
		alu_i(e, BPF_ADD, 1, 1);
		stx(e, BPF_DW, 0, 0, 1);
		ldx(e, BPF_DW, 1, 0, 8);
		alu_r(e, BPF_ADD, 1, 9);
		stx(e, BPF_DW, 0, 8, 1);
		break;
	case UBPF_F_MIN:
	case UBPF_F_MAX:
		/* if (!b || v < a) a = v (max: v > a); b = 1 */
		ldx(e, BPF_DW, 1, 0, 8);
		j1 = jmp_i(e, BPF_JEQ, 1, 0);
		ldx(e, BPF_DW, 1, 0, 0);
		j2 = jmp_r(e, fn == UBPF_F_MIN ? BPF_JSGE : BPF_JSLE, 9, 1);
		fix(e, j1);
		stx(e, BPF_DW, 0, 0, 9);
		fix(e, j2);
		st(e, BPF_DW, 0, 8, 1);
		break;
	default:
		e->bad = true;
	}
}

/* r2 = the key of an aggregation's entry: on the stack, or cgbuf's */
static void key_ptr(struct em *e, bool skeyed)
{
	if (skeyed) {
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		alu_i(e, BPF_ADD, 2, SKEY_AT);
	} else {
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KKEY);
	}
}

/* AGG o, the value (if any) in r9 */
static void agg(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	size_t j1, j2, j3;
	bool skeyed = (o->flags & UBPF_KF_SKEY) != 0;
	int map = skeyed ? fds[6] : fds[0];

	if (o->n > UBPF_F_LQUANTIZE ||
	    (o->n == UBPF_F_LQUANTIZE && o->step == 0)) {
		e->bad = true;
		return;
	}
	bucket(e, o);
	if (o->flags & UBPF_KF_FLAT) {
		if (fds[1] < 0) {
			e->bad = true;
			return;
		}
		alu_i(e, BPF_ADD, 1, o->slot);
		stx(e, BPF_W, 10, S_KEY8, 1);
		ldmap(e, 1, fds[1]);
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KEY8);
		call(e, BPF_FUNC_map_lookup_elem);
		j1 = jmp_i(e, BPF_JEQ, 0, 0);
		kval_update(e, o->n);
		fix(e, j1);
		return;
	}
	if (fds[0] < 0 || fds[2] < 0 || (skeyed && fds[6] < 0)) {
		e->bad = true;
		return;
	}
	stx(e, BPF_H, 10, S_KKEY + 2, 1);
	st(e, BPF_H, 10, S_KKEY, o->agg);
	if (skeyed) { /* the key with its string: in cgbuf (skey()) */
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		for (int i = 0; i < (int)sizeof(struct ubpf_kkey); i += 8) {
			ldx(e, BPF_DW, 3, 10, (int16_t)(S_KKEY + i));
			stx(e, BPF_DW, 2, (int16_t)(SKEY_AT + i), 3);
		}
	}
	ldmap(e, 1, map);
	key_ptr(e, skeyed);
	call(e, BPF_FUNC_map_lookup_elem);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	ldmap(e, 1, map);
	key_ptr(e, skeyed);
	alu_r(e, BPF_MOV, 3, 10);
	alu_i(e, BPF_ADD, 3, S_ZERO);
	alu_i(e, BPF_MOV, 4, BPF_NOEXIST);
	call(e, BPF_FUNC_map_update_elem);
	ldmap(e, 1, map);
	key_ptr(e, skeyed);
	call(e, BPF_FUNC_map_lookup_elem);
	j2 = jmp_i(e, BPF_JNE, 0, 0);
	/* no room: kdrops, per CPU */
	st(e, BPF_W, 10, S_KEY8, 0);
	ldmap(e, 1, fds[2]);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, S_KEY8);
	call(e, BPF_FUNC_map_lookup_elem);
	j3 = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_DW, 1, 0, 0);
	alu_i(e, BPF_ADD, 1, 1);
	stx(e, BPF_DW, 0, 0, 1);
	fix(e, j3);
	{
		size_t j4 = jmp_i(e, BPF_JA, 0, 0);

		fix(e, j1);
		fix(e, j2);
		kval_update(e, o->n);
		fix(e, j4);
	}
	/* as kstep(): the key's values start at 0 for the next one */
	for (unsigned i = 0; i < UBPF_KMAXKEYS; i++)
		st(e, BPF_DW, 10, (int16_t)(S_KKEY + 8 + 8 * (int)i), 0);
}

/* r1 = r1 OP r2 for the binary operations (kalu()) */
static void binop(struct em *e, uint8_t op)
{
	static const uint8_t jop[] = {
		[UBPF_K_EQ] = BPF_JEQ,	 [UBPF_K_NE] = BPF_JNE,
		[UBPF_K_LTS] = BPF_JSLT, [UBPF_K_LTU] = BPF_JLT,
		[UBPF_K_GTS] = BPF_JSGT, [UBPF_K_GTU] = BPF_JGT,
		[UBPF_K_LES] = BPF_JSLE, [UBPF_K_LEU] = BPF_JLE,
		[UBPF_K_GES] = BPF_JSGE, [UBPF_K_GEU] = BPF_JGE,
	};
	size_t j, j2;

	switch (op) {
	case UBPF_K_ADD:
		alu_r(e, BPF_ADD, 1, 2);
		return;
	case UBPF_K_SUB:
		alu_r(e, BPF_SUB, 1, 2);
		return;
	case UBPF_K_MUL:
		alu_r(e, BPF_MUL, 1, 2);
		return;
	case UBPF_K_AND:
		alu_r(e, BPF_AND, 1, 2);
		return;
	case UBPF_K_OR:
		alu_r(e, BPF_OR, 1, 2);
		return;
	case UBPF_K_XOR:
		alu_r(e, BPF_XOR, 1, 2);
		return;
	case UBPF_K_SHL:
	case UBPF_K_SHR:
	case UBPF_K_SAR:
		alu_i(e, BPF_AND, 2, 63);
		alu_r(e,
		      op == UBPF_K_SHL	 ? BPF_LSH
		      : op == UBPF_K_SHR ? BPF_RSH
					 : BPF_ARSH,
		      1, 2);
		return;
	case UBPF_K_DIVU:
	case UBPF_K_MODU: /* b ? a OP b : 0 */
		j = jmp_i(e, BPF_JNE, 2, 0);
		alu_i(e, BPF_MOV, 1, 0);
		j2 = jmp_i(e, BPF_JA, 0, 0);
		fix(e, j);
		alu_r(e, op == UBPF_K_DIVU ? BPF_DIV : BPF_MOD, 1, 2);
		fix(e, j2);
		return;
	case UBPF_K_DIVS:
	case UBPF_K_MODS:
		/* ksdiv(): magnitudes divided, the quotient's sign put back */
		alu_r(e, BPF_MOV, 3, 1);
		alu_r(e, BPF_MOV, 4, 2);
		j = jmp_i(e, BPF_JSGE, 1, 0);
		alu_i(e, BPF_NEG, 1, 0);
		fix(e, j);
		j = jmp_i(e, BPF_JSGE, 2, 0);
		alu_i(e, BPF_NEG, 2, 0);
		fix(e, j);
		j = jmp_i(e, BPF_JNE, 2, 0);
		alu_i(e, BPF_MOV, 1, 0);
		j2 = jmp_i(e, BPF_JA, 0, 0);
		fix(e, j);
		alu_r(e, BPF_DIV, 1, 2);
		fix(e, j2);
		alu_r(e, BPF_MOV, 5, 3);
		alu_r(e, BPF_XOR, 5, 4);
		j = jmp_i(e, BPF_JSGE, 5, 0);
		alu_i(e, BPF_NEG, 1, 0);
		fix(e, j);
		if (op == UBPF_K_MODS) { /* a - q * b */
			alu_r(e, BPF_MUL, 1, 4);
			alu_r(e, BPF_SUB, 3, 1);
			alu_r(e, BPF_MOV, 1, 3);
		}
		return;
	case UBPF_K_LAND:
	case UBPF_K_LOR:
	case UBPF_K_LXOR:
		truth(e, 1);
		truth(e, 2);
		alu_r(e,
		      op == UBPF_K_LAND	 ? BPF_AND
		      : op == UBPF_K_LOR ? BPF_OR
					 : BPF_XOR,
		      1, 2);
		return;
	}
	if (op >= UBPF_K_EQ && op <= UBPF_K_GEU) {
		alu_i(e, BPF_MOV, 3, 1);
		j = jmp_r(e, jop[op], 1, 2);
		alu_i(e, BPF_MOV, 3, 0);
		fix(e, j);
		alu_r(e, BPF_MOV, 1, 3);
		return;
	}
	e->bad = true;
}

/*
 * r1 = self-> variable v of the firing thread, 0 when it has none; an
 * array's element (map cgtlsa, fd >= 0) by the key at S_AKEY
 */
static void tls_load(struct em *e, const int *fds, uint16_t v, int fd)
{
	int16_t key = fd >= 0 ? S_AKEY : S_VKEY;
	size_t j;

	if (fd < 0)
		fd = fds[3];
	if (fd < 0) {
		e->bad = true;
		return;
	}
	if (key == S_VKEY) {
		stx(e, BPF_W, 10, S_VKEY, 7); /* the tid: pid_tgid's low half */
		st(e, BPF_W, 10, S_VKEY + 4, v);
	}
	ldmap(e, 1, fd);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, key);
	call(e, BPF_FUNC_map_lookup_elem);
	alu_i(e, BPF_MOV, 1, 0);
	j = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_DW, 1, 0, 0);
	fix(e, j);
}

/*
 * self-> variable v of the firing thread = r1: 0 deletes it, as
 * user space's var_set() does; a value the map has no room for is
 * counted in cgtlsdrops, per CPU (DTrace's dynamic variable drops).  An
 * array's element (map cgtlsa, fd >= 0) by the key at S_AKEY.
 */
static void tls_store(struct em *e, const int *fds, uint16_t v, int fd)
{
	int16_t key = fd >= 0 ? S_AKEY : S_VKEY;
	size_t j1, j2, j3;

	if (fd < 0)
		fd = fds[3];
	if (fd < 0 || fds[4] < 0) {
		e->bad = true;
		return;
	}
	stx(e, BPF_DW, 10, S_VVAL, 1);
	if (key == S_VKEY) {
		stx(e, BPF_W, 10, S_VKEY, 7);
		st(e, BPF_W, 10, S_VKEY + 4, v);
	}
	j1 = jmp_i(e, BPF_JNE, 1, 0);
	ldmap(e, 1, fd);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, key);
	call(e, BPF_FUNC_map_delete_elem);
	j2 = jmp_i(e, BPF_JA, 0, 0);
	fix(e, j1);
	ldmap(e, 1, fd);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, key);
	alu_r(e, BPF_MOV, 3, 10);
	alu_i(e, BPF_ADD, 3, S_VVAL);
	alu_i(e, BPF_MOV, 4, BPF_ANY);
	call(e, BPF_FUNC_map_update_elem);
	j3 = jmp_i(e, BPF_JSGE, 0, 0);
	st(e, BPF_W, 10, S_KEY8, 0);
	ldmap(e, 1, fds[4]);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, S_KEY8);
	call(e, BPF_FUNC_map_lookup_elem);
	{
		size_t j4 = jmp_i(e, BPF_JEQ, 0, 0);

		ldx(e, BPF_DW, 1, 0, 0);
		alu_i(e, BPF_ADD, 1, 1);
		stx(e, BPF_DW, 0, 0, 1);
		fix(e, j4);
	}
	fix(e, j3);
	fix(e, j2);
}

static void pop(struct em *e, unsigned *sp, uint8_t r)
{
	if (!*sp) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, r, 10, (int16_t)S_STK(--*sp));
}

static void push(struct em *e, unsigned *sp, const struct ubpf_kop *o)
{
	if (*sp >= UBPF_KSTACK) {
		e->bad = true;
		return;
	}
	sized(e, 1, o->sz, o->sg);
	stx(e, BPF_DW, 10, (int16_t)S_STK((*sp)++), 1);
}

/*
 * cgtlsa's key of the element VLD/VST o names, at S_AKEY: the thread,
 * the variable with its keys' count and types, the keys popped (the
 * last on top), those it does not have 0 (r1 clobbered).
 */
static void tlsa_key(struct em *e, unsigned *sp, const struct ubpf_kop *o)
{
	if (!o->step || o->step > UBPF_KMAXKEYS || (uint64_t)o->imm > 0xfff) {
		e->bad = true;
		return;
	}
	for (int i = UBPF_KMAXKEYS - 1; i >= 0; i--) {
		if (i >= (int)o->step) {
			st(e, BPF_DW, 10, (int16_t)(S_AKEY + 8 + 8 * i), 0);
			continue;
		}
		pop(e, sp, 1);
		stx(e, BPF_DW, 10, (int16_t)(S_AKEY + 8 + 8 * i), 1);
	}
	stx(e, BPF_W, 10, S_AKEY, 7);
	st(e, BPF_W, 10, S_AKEY + 4,
	   (int32_t)(o->slot | (uint32_t)o->step << 16 |
		     (uint32_t)o->imm << 19));
}

/*
 * The strings the plan's SEQ instructions compare, copied before any
 * of its clauses runs, each into its place in cgbuf (buf: its map).  A
 * string that cannot be read (a fault) ends the plan before it did
 * anything: the hit's record goes unflagged, so user space runs every
 * clause, reading the string as it would have (d_arg_str()), with the
 * same result as the generic program.  A plan that keeps self->
 * variables cannot send a hit there: its SEQ are fault sites
 * (fsites()), and a string that cannot be read is the hit's fault,
 * which seq() records in place.
 */
/*
 * Does the plan's SEQ fault at the hit (kplan.c's fault sites: every
 * SEQ has one, or none does)?  A plan with sites reads pl->fstr bytes
 * of each string, as many as run.c's d_read_user_str(), so a string
 * faults here exactly where it would there; it has no SKEY (a key too
 * long is not a fault, and goes to user space).  e->bad when mixed.
 */
static bool fsites(struct em *e, const struct ubpf_kplan *pl)
{
	bool any = false, none = false;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];

		if (o->op == UBPF_K_SEQ && o->agg)
			any = true;
		else if (o->op == UBPF_K_SEQ || o->op == UBPF_K_SKEY)
			none = true;
		if (o->op == UBPF_K_SEQ &&
		    (o->agg > UBPF_KFSITES ||
		     (o->agg && (o->jump <= pc || o->jump > pl->nops))))
			e->bad = true;
	}
	if (any && (none || !pl->fstr || pl->fstr > UBPF_STRMAX))
		e->bad = true;
	return any;
}

static void seq_read(struct em *e, const struct ubpf_kplan *pl, int buf,
		     unsigned nargs)
{
	bool fs = fsites(e, pl);

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j, a;

		if (o->op != UBPF_K_SEQ && o->op != UBPF_K_SKEY)
			continue;
		a = o->op == UBPF_K_SEQ ? o->n : o->slot;
		for (j = 0; j < e->nsarg && e->sarg[j] != a; j++)
			;
		if (j < e->nsarg) {
			e->skarg[j] |= o->op == UBPF_K_SKEY;
			continue;
		}
		if (j >= UBPF_KSTRARGS || a >= nargs || buf < 0 ||
		    (pl->tls && !fs)) {
			e->bad = true;
			return;
		}
		e->skarg[j] = o->op == UBPF_K_SKEY;
		e->sarg[e->nsarg++] = (uint8_t)a;
	}
	if (!e->nsarg)
		return;
	st(e, BPF_W, 10, S_KEY8, 0);
	ldmap(e, 1, buf);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, S_KEY8);
	call(e, BPF_FUNC_map_lookup_elem);
	e->fj[e->nfj++] = jmp_i(e, BPF_JEQ, 0, 0);
	stx(e, BPF_DW, 10, S_SBUF, 0);
	for (unsigned j = 0; j < e->nsarg; j++) {
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		/* SKEY's: the key's bytes past the NUL read as 0 */
		for (int i = 0; e->skarg[j] && i < UBPF_KSKEY; i += 8)
			st(e, BPF_DW, 1, (int16_t)(SEQ_AT(j) + i), 0);
		alu_i(e, BPF_ADD, 1, SEQ_AT(j));
		alu_i(e, BPF_MOV, 2, fs ? pl->fstr : UBPF_STRMAX);
		ldx(e, BPF_DW, 3, 10, (int16_t)S_ARG(e->sarg[j]));
		call(e, BPF_FUNC_probe_read_user_str);
		if (fs) {
			/* a fault, for SEQ: -1 at the string's address, -2
			 * at the next page (its first byte reads: the
			 * string runs into an unreadable page, which
			 * d_read_user_str() reads a page at a time) */
			size_t jok = jmp_i(e, BPF_JSGE, 0, 0), j1;

			ldx(e, BPF_DW, 1, 10, S_SBUF);
			alu_i(e, BPF_ADD, 1, SEQ_AT(j));
			alu_i(e, BPF_MOV, 2, 1);
			ldx(e, BPF_DW, 3, 10, (int16_t)S_ARG(e->sarg[j]));
			call(e, BPF_FUNC_probe_read_user);
			alu_i(e, BPF_MOV, 1, -1);
			j1 = jmp_i(e, BPF_JNE, 0, 0);
			alu_i(e, BPF_MOV, 1, -2);
			fix(e, j1);
			alu_r(e, BPF_MOV, 0, 1);
			fix(e, jok);
		} else {
			e->fj[e->nfj++] = jmp_i(e, BPF_JSLT, 0, 0);
		}
		stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0); /* for SEQ */
		/* a key longer than kaggs_s keeps: the hit is user space's */
		if (e->skarg[j] && e->nfj < UBPF_KSTRARGS * 2 + 1)
			e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 0, UBPF_KSKEY);
	}
}

/*
 * The first n bytes of the string seq_read() copied for its j-th
 * argument, in loads of 8 bytes, then 4, 2 and 1 for the tail, each
 * naturally aligned (SEQ_AT() is): each into r3 and handed to fn with
 * its offset and size; r2 is cgbuf throughout.  The one emitter of the
 * strings' bounded bytes: SEQ compares them with its literal, SKEY
 * copies them into its key.
 */
static void str_chunks(struct em *e, unsigned j, unsigned n,
		       void (*fn)(struct em *, void *, unsigned, unsigned),
		       void *ctx)
{
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned off = 0, sz; off < n && !e->bad; off += sz) {
		sz = n - off >= 8 ? 8 : n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
		ldx(e,
		    sz == 8   ? BPF_DW
		    : sz == 4 ? BPF_W
		    : sz == 2 ? BPF_H
			      : BPF_B,
		    3, 2, (int16_t)(SEQ_AT(j) + (int)off));
		fn(e, ctx, off, sz);
	}
}

/* str_chunks() for SKEY: the chunk into the kaggs_s key at cgbuf */
static void skey_chunk(struct em *e, void *ctx, unsigned off, unsigned sz)
{
	(void)ctx;
	stx(e,
	    sz == 8   ? BPF_DW
	    : sz == 4 ? BPF_W
	    : sz == 2 ? BPF_H
		      : BPF_B,
	    2, (int16_t)(SKEY_AT + (int)sizeof(struct ubpf_kkey) + (int)off),
	    3);
}

/*
 * SKEY o: the string of its argument (seq_read()'s) into the kaggs_s
 * key's bytes, NUL-padded (a hash key is all its bytes): seq_read()
 * zeroed the key's length of the buffer before the copy, so the bytes
 * past the NUL are 0 and the key is its UBPF_KSKEY bytes copied.
 */
static void skey(struct em *e, const struct ubpf_kop *o)
{
	unsigned j;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->slot; j++)
		;
	if (j >= e->nsarg || !e->skarg[j]) {
		e->bad = true;
		return;
	}
	str_chunks(e, j, UBPF_KSKEY, skey_chunk, NULL);
}

/* SEQ's literal, for str_chunks(): its SDATA instructions and the
 * jumps taken on a difference */
struct seq_lit {
	const struct ubpf_kop *d; /* the first SDATA */
	size_t *jf;
	size_t njf;
};

/* str_chunks() for SEQ: r3 against the literal's bytes there */
static void seq_chunk(struct em *e, void *ctx, unsigned off, unsigned sz)
{
	struct seq_lit *l = ctx;
	uint64_t v = 0;

	for (unsigned i = 0; i < sz; i++) {
		const struct ubpf_kop *d = &l->d[(off + i) / 8];

		if (d->op != UBPF_K_SDATA) {
			e->bad = true;
			return;
		}
		v |= (uint64_t)(uint8_t)((uint64_t)d->imm >>
					 (8 * ((off + i) % 8)))
		     << (8 * i);
	}
	if (v <= INT32_MAX) {
		l->jf[l->njf++] = jmp_i(e, BPF_JNE, 3, (int32_t)v);
	} else {
		ld64(e, 4, v);
		l->jf[l->njf++] = jmp_r(e, BPF_JNE, 3, 4);
	}
}

/*
 * r1 = SEQ pl->ops[pc]'s result: its argument's string (read by
 * seq_read()) the literal of the SDATA instructions that follow.  A
 * fault site whose string could not be read sets its bits (1 at the
 * string's address, 2 at the next page) at 32 + 2 * site in S_FLAGS
 * and jumps to its clause's end (e->sfj, which plan() points there).  The
 * copy's length (NUL included, kept by seq_read()) is the literal's
 * plus one, and its bytes before the NUL are the literal's, compared a
 * word at a time (str_chunks()); *pc is left on the last SDATA.
 */
static void seq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	struct seq_lit l = {.d = &pl->ops[*pc + 1]};
	unsigned j, len = o->step;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || len > UBPF_KSTRMAX ||
	    *pc + 1 + (len + 8) / 8 > pl->nops) {
		e->bad = true;
		return;
	}
	if (o->agg) { /* a fault site: one unread ends the clause */
		size_t jok;

		ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
		jok = jmp_i(e, BPF_JSGE, 3, 0);
		alu_i(e, BPF_NEG, 3, 0); /* 1 or 2: usdt_bpf.h's bits */
		alu_i(e, BPF_LSH, 3, 32 + 2 * (o->agg - 1));
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_r(e, BPF_OR, 1, 3);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
		e->sfj = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jok);
	}
	/* a jump for the length, one per chunk at most */
	l.jf = xcalloc(len / 8 + 5, sizeof(*l.jf));
	alu_i(e, BPF_MOV, 1, 0);
	ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
	l.jf[l.njf++] = jmp_i(e, BPF_JNE, 3, (int32_t)len + 1);
	str_chunks(e, j, len, seq_chunk, &l);
	alu_i(e, BPF_MOV, 1, 1);
	for (size_t i = 0; i < l.njf; i++)
		fix(e, l.jf[i]);
	free(l.jf);
	if (o->flags & UBPF_KF_NEG)
		alu_i(e, BPF_XOR, 1, 1);
	*pc += (len + 8) / 8;
}

/* Does the plan have instruction op (of variable kind n, for VLD/VST)? */
static bool plan_has(const struct ubpf_kplan *pl, uint8_t op, int n)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == op && (n < 0 || pl->ops[pc].n == n))
			return true;
	return false;
}

/*
 * The plan's instructions (kagg.bpf.h's kstep(), one at a time), nargs
 * arguments fetched; fds: kaggs, kflat, kdrops, cgtls, cgtlsdrops, cgbuf,
 * kaggs_s, cgtlsa.  Its end is where every PRED's clause ends, at most.  The
 * firing's timestamp is in S_TS when the plan reads it.
 */
static void plan(struct em *e, const struct ubpf_kplan *pl, unsigned nargs,
		 const int *fds)
{
	size_t *at = xcalloc((size_t)pl->nops + 1, sizeof(*at));
	size_t *pj = xcalloc((size_t)pl->nops + 1, sizeof(*pj));
	unsigned *pd = xcalloc((size_t)pl->nops + 1, sizeof(*pd));
	unsigned *pdep = xcalloc((size_t)pl->nops + 1, sizeof(*pdep));
	unsigned *dp = xcalloc((size_t)pl->nops + 1, sizeof(*dp));
	/* SEQ's fault jumps: they leave nothing on the stack that the
	 * clause's end reads */
	size_t *fjx = xcalloc((size_t)pl->nops + 1, sizeof(*fjx));
	unsigned *fjt = xcalloc((size_t)pl->nops + 1, sizeof(*fjt));
	unsigned sp = 0, np = 0, nf = 0;

	/* the kaggs key and a zero value: the verifier reads them whole
	 * (kflat's slots need neither) */
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		if (pl->ops[pc].op != UBPF_K_AGG ||
		    (pl->ops[pc].flags & UBPF_KF_FLAT))
			continue;
		for (int i = 0; i < 40; i += 8)
			st(e, BPF_DW, 10, (int16_t)(S_KKEY + i), 0);
		st(e, BPF_DW, 10, S_ZERO, 0);
		st(e, BPF_DW, 10, S_ZERO + 8, 0);
		break;
	}
	seq_read(e, pl, fds[5], nargs);
	/* this-> variables start at 0 in each firing */
	if (plan_has(pl, UBPF_K_VLD, UBPF_KV_THIS) ||
	    plan_has(pl, UBPF_K_VST, UBPF_KV_THIS))
		for (unsigned i = 0; i < UBPF_KTHIS; i++)
			st(e, BPF_DW, 10, (int16_t)S_THIS(i), 0);
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS && !e->bad;
	     pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		uint8_t op = o->op, eop;

		at[pc] = e->n;
		dp[pc] = sp;
		eop = op == UBPF_K_PRED && o->n ? o->n : op;
		switch (eop) {
		case UBPF_K_CONST:
			ld64(e, 1, (uint64_t)o->imm);
			push(e, &sp, o);
			continue;
		case UBPF_K_ARG:
			if (o->n >= nargs) {
				e->bad = true;
				continue;
			}
			ldx(e, BPF_DW, 1, 10, (int16_t)S_ARG(o->n));
			push(e, &sp, o);
			continue;
		case UBPF_K_TIME:
			ldx(e, BPF_DW, 1, 10, S_TS);
			push(e, &sp, o);
			continue;
		case UBPF_K_SKEY:
			skey(e, o);
			continue;
		case UBPF_K_SEQ: {
			unsigned first = pc;

			e->sfj = SIZE_MAX;
			seq(e, pl, &pc);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			push(e, &sp, o);
			/* the SDATA skipped: where a jump may land */
			for (unsigned i = first + 1; i <= pc; i++) {
				at[i] = e->n;
				dp[i] = sp;
			}
			continue;
		}
		case UBPF_K_VLD:
			if (o->n == UBPF_KV_SELF) {
				tls_load(e, fds, o->slot, -1);
			} else if (o->n == UBPF_KV_SELFA && fds[7] >= 0) {
				tlsa_key(e, &sp, o);
				tls_load(e, fds, o->slot, fds[7]);
			} else if (o->n == UBPF_KV_THIS &&
				   o->slot < UBPF_KTHIS) {
				ldx(e, BPF_DW, 1, 10, (int16_t)S_THIS(o->slot));
			} else {
				e->bad = true;
				continue;
			}
			push(e, &sp, o);
			continue;
		case UBPF_K_VST:
			pop(e, &sp, 1);
			if (o->n == UBPF_KV_SELF) {
				tls_store(e, fds, o->slot, -1);
			} else if (o->n == UBPF_KV_SELFA && fds[7] >= 0) {
				/* the value, kept while the keys are popped */
				stx(e, BPF_DW, 10, S_VVAL, 1);
				tlsa_key(e, &sp, o);
				ldx(e, BPF_DW, 1, 10, S_VVAL);
				tls_store(e, fds, o->slot, fds[7]);
			} else if (o->n == UBPF_KV_THIS &&
				   o->slot < UBPF_KTHIS) {
				stx(e, BPF_DW, 10, (int16_t)S_THIS(o->slot), 1);
			} else {
				e->bad = true;
			}
			continue;
		case UBPF_K_PID:
		case UBPF_K_TID:
			alu_r(e, BPF_MOV, 1, 7);
			if (eop == UBPF_K_PID)
				alu_i(e, BPF_RSH, 1, 32);
			sized(e, 1, 4, 1); /* (__s32) */
			push(e, &sp, o);
			continue;
		case UBPF_K_NORM:
		case UBPF_K_NEG:
		case UBPF_K_BNOT:
		case UBPF_K_LNOT:
			pop(e, &sp, 1);
			if (eop == UBPF_K_NEG) {
				alu_i(e, BPF_NEG, 1, 0);
			} else if (eop == UBPF_K_BNOT) {
				alu_i(e, BPF_XOR, 1, -1);
			} else if (eop == UBPF_K_LNOT) {
				truth(e, 1);
				alu_i(e, BPF_XOR, 1, 1);
			}
			push(e, &sp, o);
			continue;
		case UBPF_K_SC: /* a decides: n is the result */
			pop(e, &sp, 1);
			if (sp >= UBPF_KSTACK || o->jump <= pc ||
			    o->jump > pl->nops) {
				e->bad = true;
				continue;
			}
			st(e, BPF_DW, 10, (int16_t)S_STK(sp), o->n);
			pj[np] = jmp_i(e, o->n ? BPF_JNE : BPF_JEQ, 1, 0);
			pd[np] = o->jump;
			pdep[np++] = sp + 1;
			continue;
		case UBPF_K_SEL: {
			size_t j;

			pop(e, &sp, 3);
			pop(e, &sp, 2);
			pop(e, &sp, 4);
			alu_r(e, BPF_MOV, 1, 2);
			j = jmp_i(e, BPF_JNE, 4, 0);
			alu_r(e, BPF_MOV, 1, 3);
			fix(e, j);
			push(e, &sp, o);
			continue;
		}
		case UBPF_K_PRED: /* its own truth */
			pop(e, &sp, 1);
			break;
		case UBPF_K_KEY:
			pop(e, &sp, 1);
			stx(e, BPF_DW, 10,
			    (int16_t)(S_KKEY + 8 +
				      8 * (o->n & (UBPF_KMAXKEYS - 1))),
			    1);
			continue;
		case UBPF_K_AGG:
			if (o->n != UBPF_F_COUNT) {
				pop(e, &sp, 9);
			} else {
				alu_i(e, BPF_MOV, 9, 0);
			}
			agg(e, o, fds);
			continue;
		default:
			if (eop < UBPF_K_ADD || eop > UBPF_K_LXOR) {
				e->bad = true; /* an instruction not known */
				continue;
			}
			if (o->flags & UBPF_KF_IMM) {
				ld64(e, 2, (uint64_t)o->imm);
			} else {
				pop(e, &sp, 2);
			}
			pop(e, &sp, 1);
			binop(e, eop);
			if (op == UBPF_K_PRED)
				break;
			push(e, &sp, o);
			continue;
		}
		/* PRED: r1 is the test; 0 goes to the clause's end */
		if (o->jump <= pc || o->jump > pl->nops) {
			e->bad = true;
			continue;
		}
		pj[np] = jmp_i(e, BPF_JEQ, 1, 0);
		pd[np] = o->jump;
		pdep[np++] = sp; /* the depth the jump lands with */
	}
	at[pl->nops] = e->n;
	dp[pl->nops] = sp;
	for (unsigned i = 0; i < np && !e->bad; i++) {
		unsigned to = pd[i];
		size_t j = pj[i];

		/* the stack slots there must be the ones it left with */
		if (dp[to] != pdep[i] || at[to] - j - 1 > INT16_MAX)
			e->bad = true;
		else
			e->v[j].off = (int16_t)(at[to] - j - 1);
	}
	for (unsigned i = 0; i < nf && !e->bad; i++) {
		if (fjt[i] > pl->nops || at[fjt[i]] - fjx[i] - 1 > INT16_MAX)
			e->bad = true;
		else
			e->v[fjx[i]].off = (int16_t)(at[fjt[i]] - fjx[i] - 1);
	}
	free(fjx);
	free(fjt);
	free(at);
	free(pj);
	free(pd);
	free(pdep);
	free(dp);
}

/* ------------------------------------------------------------------ */
/* The user stack */

/*
 * usdt.bpf.c's ustack_copy(), the record (r9, in cgbuf) being r8 bytes
 * long: at the next multiple of 8 the user registers (UBPF_R_*, from
 * pt_regs), a u32 length and a u32 0, then the stack from rsp to the
 * end of its page and a page at a time while fewer than kib KiB were
 * taken and the next page reads (the stack's top is where a read first
 * fails; a first read that fails copies nothing); the record's length
 * (r8, its u16 at 24) and UBPF_RF_USTACK added to its flags (u16 at 30).  r6, r7 are
 * taken: the context and pid_tgid are read no more.
 */
static void ustack_copy(struct em *e, uint8_t kib)
{
	const int32_t want = (int32_t)kib * 1024;
	const int16_t data = 8 * (UBPF_R_IP + 1) + 8;
	size_t jdone[UBPF_USTKMAX / 4096 * 2 + 2], nd = 0, j;

	alu_i(e, BPF_ADD, 8, 7);
	alu_i(e, BPF_AND, 8, ~7);
	alu_r(e, BPF_MOV, 2, 9);
	alu_r(e, BPF_ADD, 2, 8);
	for (unsigned i = 0; i <= UBPF_R_IP; i++) {
		ldx(e, BPF_DW, 1, 6, regoff[i]);
		stx(e, BPF_DW, 2, (int16_t)(8 * i), 1);
	}
	ldx(e, BPF_DW, 6, 6, regoff[UBPF_R_SP]);
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

/* ------------------------------------------------------------------ */
/* Kernel probes (cgen_kprov.c) */

int16_t cgen_arg_slot(unsigned i)
{
	return (int16_t)S_ARG(i);
}

/*
 * The provider's prologue (ctx in r6, pid_tgid in r7, the cookie in
 * r8): its instructions, jumps relative and exits its own, as they
 * are; then the record's ev gets UBPF_EV_KPROV back (the cookie is
 * masked to 31 bits above).
 */
static void kp_prologue(struct em *e, const struct cgen_kpro *k)
{
	for (size_t i = 0; i < k->n; i++)
		put(e, k->v[i].code, k->v[i].dst_reg, k->v[i].src_reg,
		    k->v[i].off, k->v[i].imm);
	alu_i(e, BPF_OR, 8, INT32_MIN);
}

/*
 * A kernel probe's plan, kprov.bpf.h's kprov_kagg(): every process's,
 * so it runs on every hit (no cgarm1/cgarmed).  true when it is all
 * the probe's clauses and cannot fault: the program has no record.  A
 * string it cannot read (seq_read()) goes to the unflagged record, or
 * with fault sites is the hit's fault: a record then, for it alone.
 */
static bool kp_plan(struct em *e, const struct cgen_maps *m,
		    const struct ubpf_kplan *pl, unsigned nargs)
{
	int fds[8] = {m->kaggs,	   m->kflat, m->kdrops,	 m->tls,
		      m->tlsdrops, m->buf,   m->kaggs_s, m->tlsa};

	bool fs = fsites(e, pl);

	plan(e, pl, nargs, fds);
	if (!pl->record && !e->nfj && !fs)
		return true;
	if (!pl->record) { /* a record only for a fault */
		size_t jf = 0;

		if (fs) {
			ldx(e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(e, BPF_RSH, 1, 32);
			jf = jmp_i(e, BPF_JNE, 1, 0);
		}
		alu_i(e, BPF_MOV, 0, 0);
		put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		if (fs)
			fix(e, jf);
	}
	if (pl->record || fs) {
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_OR, 1, UBPF_RF_KAGG);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
	}
	for (unsigned i = 0; i < e->nfj; i++) /* past it, flags still 0 */
		fix(e, e->fj[i]);
	e->nfj = 0;
	return false;
}

/*
 * struct ubpf_kctx after the header (r9), as kprov.bpf.h's kprov_emit()
 * and kprov_ppid(): uid, gid, and the parent's tgid read through
 * task_struct at the offsets the kernel's BTF gave (0 when unknown or
 * unreadable); S_KEY8 is free here.
 */
static void kp_kctx(struct em *e, const struct cgen_kpro *k)
{
	const int16_t x = (int16_t)sizeof(struct ubpf_rec);
	size_t j1, j2 = 0;

	call(e, BPF_FUNC_get_current_uid_gid);
	stx(e, BPF_W, 9, x, 0);
	alu_i(e, BPF_RSH, 0, 32);
	stx(e, BPF_W, 9, (int16_t)(x + 4), 0);
	st(e, BPF_DW, 9, (int16_t)(x + 8), 0); /* ppid 0, pad */
	if (!k->parent1 || !k->tgid1)
		return;
	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(k->parent1 - 1));
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	alu_i(e, BPF_MOV, 2, 8);
	call(e, BPF_FUNC_probe_read_kernel);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j2 = jmp_i(e, BPF_JEQ, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(k->tgid1 - 1));
	alu_r(e, BPF_MOV, 1, 9);
	alu_i(e, BPF_ADD, 1, (int16_t)(x + 8));
	alu_i(e, BPF_MOV, 2, 4);
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, j1);
	fix(e, j2);
}

/*
 * A uprobe's record, as usdt.bpf.c's cred_rec(): the real uid and gid
 * at off of the record (r9), which is flagged UBPF_RF_CRED.
 */
static void u_cred(struct em *e, int16_t off)
{
	call(e, BPF_FUNC_get_current_uid_gid);
	stx(e, BPF_W, 9, off, 0);
	alu_i(e, BPF_RSH, 0, 32);
	stx(e, BPF_W, 9, (int16_t)(off + 4), 0);
}

/*
 * ... as ppid_rec(): the parent process's pid and 4 zero bytes at r8
 * (the record's offset, masked as the strings' are), read through
 * task_struct at o (offsets + 1), r8 past them and the record flagged
 * UBPF_RF_PPID; nothing, and no flag, when a read faults or there is no
 * parent.  S_KEY8 is free here.
 */
static void u_ppid(struct em *e, const uint32_t o[2])
{
	size_t j1, j2, j3;

	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(o[0] - 1));
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	alu_i(e, BPF_MOV, 2, 8);
	call(e, BPF_FUNC_probe_read_kernel);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j2 = jmp_i(e, BPF_JEQ, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(o[1] - 1));
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	alu_i(e, BPF_MOV, 2, 4);
	call(e, BPF_FUNC_probe_read_kernel);
	j3 = jmp_i(e, BPF_JNE, 0, 0);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	st(e, BPF_W, 1, 4, 0);
	alu_i(e, BPF_ADD, 8, 8);
	ldx(e, BPF_H, 1, 9, 30);
	alu_i(e, BPF_OR, 1, UBPF_RF_PPID);
	stx(e, BPF_H, 9, 30, 1);
	fix(e, j1);
	fix(e, j2);
	fix(e, j3);
}

/* r8 masked, r1 = the record (r9) + r8: where the next bytes go */
static void u_at(struct em *e)
{
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
}

/*
 * r1 = where, r2 = size, r3 = r3 + off: bpf_probe_read_kernel(), and a
 * jump (its index, in j[*nj]) taken when it faults.
 */
static void u_read(struct em *e, int32_t size, uint32_t off1, size_t *j,
		   unsigned *nj)
{
	alu_i(e, BPF_ADD, 3, (int32_t)(off1 - 1));
	alu_i(e, BPF_MOV, 2, size);
	call(e, BPF_FUNC_probe_read_kernel);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 0, 0);
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
static void u_ecred(struct em *e, const uint32_t o[3])
{
	size_t j[4];
	unsigned nj = 0;

	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	u_read(e, 8, o[0], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j[nj++] = jmp_i(e, BPF_JEQ, 3, 0);
	u_at(e);
	u_read(e, 4, o[1], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	u_at(e);
	alu_i(e, BPF_ADD, 1, 4);
	u_read(e, 4, o[2], j, &nj);
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
static void u_sess(struct em *e, const uint32_t o[4])
{
	size_t j[8];
	unsigned nj = 0;

	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	u_read(e, 8, o[0], j, &nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j[nj++] = jmp_i(e, BPF_JEQ, 3, 0);
	for (int t = 2; t <= 3; t++) {
		ldx(e, BPF_DW, 3, 10, S_KEY8);
		u_at(e);
		alu_i(e, BPF_ADD, 1, 8);
		u_read(e, 8, o[1] + 8 * (uint32_t)t, j, &nj);
		u_at(e);
		ldx(e, BPF_DW, 3, 1, 8);
		j[nj++] = jmp_i(e, BPF_JEQ, 3, 0);
		alu_i(e, BPF_ADD, 1, 4 * (t - 2));
		alu_i(e, BPF_ADD, 3, (int32_t)(o[2] - 1));
		u_read(e, 4, o[3], j, &nj);
	}
	u_done(e, UBPF_RF_SESS);
	for (unsigned i = 0; i < nj; i++)
		fix(e, j[i]);
}

/* ------------------------------------------------------------------ */
/* The program */

bool cgen_emit(const struct cgen_maps *m, const struct ubpf_ev *s,
	       const struct ubpf_kplan *pl, struct bpf_insn **out, size_t *n)
{
	struct em e = {0};
	unsigned nargs = s->nargs < UBPF_MAXARGS ? s->nargs : UBPF_MAXARGS;
	/* the arguments follow the header (a kernel probe's: its kctx) */
	unsigned hdr = (unsigned)sizeof(struct ubpf_rec) +
		       (m->kp ? (unsigned)sizeof(struct ubpf_kctx) : 0);
	/* a uprobe's uid and gid (a kernel probe's are in its kctx) and
	 * its parent's pid, when the clauses read them */
	bool cred = !m->kp && s->cred;
	bool ppid = !m->kp && s->ppid && m->ppid1[0] && m->ppid1[1];
	/* ... and the effective ids, the session, when known */
	bool ecred = !m->kp && s->ecred && m->ecred1[0] && m->ecred1[1] &&
		     m->ecred1[2];
	bool sess = !m->kp && s->sess && m->sess1[0] && m->sess1[1] &&
		    m->sess1[2] && m->sess1[3];
	int fds[8] = {m->kaggs,	   m->kflat, m->kdrops,	 m->tls,
		      m->tlsdrops, m->buf,   m->kaggs_s, m->tlsa};
	size_t jself, jarm, jdone = 0, jnull = 0, jdrop, jbuf = 0;
	/* strings, a copyin() copy or the stack: built in cgbuf */
	bool strs = s->strmask != 0 || s->memmask != 0 || s->ustk != 0 ||
		    ppid || ecred || sess; /* present only when read */
	/* one timestamp a firing, the plan's and the record's */
	bool ts = pl && plan_has(pl, UBPF_K_TIME, -1);
	/* faults at the hit: the record's last 8 bytes, its sites' bits
	 * (kept in S_FLAGS's upper half while the plan runs) */
	bool fs = pl && (m->kp || (m->armed >= 0 && m->arm1 >= 0)) &&
		  fsites(&e, pl);
	unsigned len = hdr + 8 * nargs + (cred ? 8 : 0) + (fs && !strs ? 8 : 0);

	*out = NULL;
	*n = 0;
	if ((s->ustk && (!m->ustk_room || m->kp || fs)) ||
	    (strs && m->buf < 0) || e.bad)
		return false;
	/* 1. prologue */
	alu_r(&e, BPF_MOV, 6, 1);
	call(&e, BPF_FUNC_get_current_pid_tgid);
	alu_r(&e, BPF_MOV, 7, 0);
	alu_r(&e, BPF_MOV, 1, 6);
	call(&e, BPF_FUNC_get_attach_cookie);
	alu_r(&e, BPF_MOV, 8, 0);
	alu_i(&e, BPF_AND, 8, (int32_t)0x7fffffff); /* ev: u32 */
	alu_r(&e, BPF_MOV, 1, 7);
	alu_i(&e, BPF_RSH, 1, 32);
	jself = jmp_i(&e, BPF_JEQ, 1, (int32_t)m->self);
	if (ts) {
		call(&e, BPF_FUNC_ktime_get_ns);
		stx(&e, BPF_DW, 10, S_TS, 0);
	}
	if (m->kp) /* a kernel probe: its provider's code reads them */
		kp_prologue(&e, m->kp);
	else
		for (unsigned i = 0; i < nargs; i++)
			arg_fetch(&e, i, &s->a[i]);
	st(&e, BPF_DW, 10, S_FLAGS, 0);
	if (m->kp && pl && kp_plan(&e, m, pl, nargs))
		goto done; /* every clause ran in the kernel: no record */
	/* 2. the plan, for an armed process */
	if (pl && m->armed >= 0 && m->arm1 >= 0) {
		size_t j1, j2;

		/* the event's first armed process: an array the verifier
		 * inlines; any other: the hash */
		stx(&e, BPF_W, 10, S_KEY8, 8);
		ldmap(&e, 1, m->arm1);
		alu_r(&e, BPF_MOV, 2, 10);
		alu_i(&e, BPF_ADD, 2, S_KEY8);
		call(&e, BPF_FUNC_map_lookup_elem);
		j1 = jmp_i(&e, BPF_JEQ, 0, 0);
		ldx(&e, BPF_W, 1, 0, 0);
		alu_r(&e, BPF_MOV, 2, 7);
		alu_i(&e, BPF_RSH, 2, 32);
		j2 = jmp_r(&e, BPF_JEQ, 1, 2);
		fix(&e, j1);
		alu_r(&e, BPF_MOV, 1, 7);
		alu_i(&e, BPF_RSH, 1, 32);
		stx(&e, BPF_W, 10, S_KEY8, 8);
		stx(&e, BPF_W, 10, S_KEY8 + 4, 1);
		ldmap(&e, 1, m->armed);
		alu_r(&e, BPF_MOV, 2, 10);
		alu_i(&e, BPF_ADD, 2, S_KEY8);
		call(&e, BPF_FUNC_map_lookup_elem);
		jarm = jmp_i(&e, BPF_JEQ, 0, 0);
		fix(&e, j2);
		plan(&e, pl, nargs, fds);
		if (!pl->record && !fs) {
			jdone = jmp_i(&e, BPF_JA, 0, 0);
		} else {
			if (!pl->record) { /* a record only for a fault */
				ldx(&e, BPF_DW, 1, 10, S_FLAGS);
				alu_i(&e, BPF_RSH, 1, 32);
				jdone = jmp_i(&e, BPF_JEQ, 1, 0);
			}
			ldx(&e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(&e, BPF_OR, 1, UBPF_RF_KAGG);
			stx(&e, BPF_DW, 10, S_FLAGS, 1);
		}
		fix(&e, jarm);
		for (unsigned i = 0; i < e.nfj; i++) /* seq_read()'s faults */
			fix(&e, e.fj[i]);
	}
	/* 3. the record */
	if (s->comm) {
		alu_r(&e, BPF_MOV, 1, 10);
		alu_i(&e, BPF_ADD, 1, S_COMM);
		alu_i(&e, BPF_MOV, 2, 16);
		call(&e, BPF_FUNC_get_current_comm);
	}
	if (strs) { /* built in cgbuf: its length is known at the end */
		st(&e, BPF_W, 10, S_KEY8, 0);
		ldmap(&e, 1, m->buf);
		alu_r(&e, BPF_MOV, 2, 10);
		alu_i(&e, BPF_ADD, 2, S_KEY8);
		call(&e, BPF_FUNC_map_lookup_elem);
		jbuf = jmp_i(&e, BPF_JEQ, 0, 0);
	} else {
		ldmap(&e, 1, m->rb);
		alu_i(&e, BPF_MOV, 2, (int32_t)len);
		alu_i(&e, BPF_MOV, 3, 0);
		call(&e, BPF_FUNC_ringbuf_reserve);
		jnull = jmp_i(&e, BPF_JEQ, 0, 0);
	}
	alu_r(&e, BPF_MOV, 9, 0);
	if (ts) {
		ldx(&e, BPF_DW, 0, 10, S_TS);
	} else {
		call(&e, BPF_FUNC_ktime_get_ns);
	}
	stx(&e, BPF_DW, 9, 0, 0);
	alu_r(&e, BPF_MOV, 1, 7);
	alu_i(&e, BPF_RSH, 1, 32);
	stx(&e, BPF_W, 9, 8, 1);
	stx(&e, BPF_W, 9, 12, 7);
	call(&e, BPF_FUNC_get_smp_processor_id);
	stx(&e, BPF_W, 9, 16, 0);
	stx(&e, BPF_W, 9, 20, 8);
	st(&e, BPF_H, 9, 24, (int32_t)len);
	st(&e, BPF_H, 9, 26, (int32_t)nargs);
	st(&e, BPF_H, 9, 28, s->strmask);
	ldx(&e, BPF_DW, 1, 10, S_FLAGS);
	if (cred)
		alu_i(&e, BPF_OR, 1, UBPF_RF_CRED);
	if (fs)
		alu_i(&e, BPF_OR, 1, UBPF_RF_KFAULT);
	stx(&e, BPF_H, 9, 30, 1);
	for (int i = 0; i < 16; i += 8) {
		if (s->comm) {
			ldx(&e, BPF_DW, 1, 10, (int16_t)(S_COMM + i));
			stx(&e, BPF_DW, 9, (int16_t)(32 + i), 1);
		} else {
			st(&e, BPF_DW, 9, (int16_t)(32 + i), 0);
		}
	}
	if (m->kp)
		kp_kctx(&e, m->kp);
	for (unsigned i = 0; i < nargs; i++) {
		ldx(&e, BPF_DW, 1, 10, (int16_t)S_ARG(i));
		stx(&e, BPF_DW, 9, (int16_t)(hdr + 8 * i), 1);
	}
	if (cred)
		u_cred(&e, (int16_t)(hdr + 8 * nargs));
	if (fs && !strs) { /* the fault bits, last */
		ldx(&e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(&e, BPF_RSH, 1, 32);
		stx(&e, BPF_DW, 9, (int16_t)(len - 8), 1);
	}
	/*
	 * The strings, as usdt.bpf.c copies them: each a 2-byte length
	 * (the NUL counted; 0 for a fault) and its bytes, at an offset
	 * masked to the buffer's first half, which the verifier sees
	 * bounded; r8 (the event's index is written) is the offset.
	 */
	if (strs) {
		alu_i(&e, BPF_MOV, 8, (int32_t)len);
		if (ppid)
			u_ppid(&e, m->ppid1);
		if (ecred)
			u_ecred(&e, m->ecred1);
		if (sess)
			u_sess(&e, m->sess1);
		for (unsigned i = 0; i < nargs; i++) {
			size_t j;

			if (!(s->strmask & (1u << i)))
				continue;
			alu_i(&e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
			alu_r(&e, BPF_MOV, 1, 9);
			alu_r(&e, BPF_ADD, 1, 8);
			alu_i(&e, BPF_ADD, 1, 2);
			alu_i(&e, BPF_MOV, 2, UBPF_STRMAX);
			ldx(&e, BPF_DW, 3, 10, (int16_t)S_ARG(i));
			call(&e, BPF_FUNC_probe_read_user_str);
			j = jmp_i(&e, BPF_JSGE, 0, 0);
			alu_i(&e, BPF_MOV, 0, 0);
			fix(&e, j);
			j = jmp_i(&e, BPF_JLE, 0, UBPF_STRMAX);
			alu_i(&e, BPF_MOV, 0, UBPF_STRMAX);
			fix(&e, j);
			alu_r(&e, BPF_MOV, 1, 9);
			alu_r(&e, BPF_ADD, 1, 8);
			stx(&e, BPF_H, 1, 0, 0);
			alu_i(&e, BPF_ADD, 8, 2);
			alu_r(&e, BPF_ADD, 8, 0);
		}
		/*
		 * copyin(argN, size) of the one argument ev_mem() picked:
		 * a 2-byte length (0 for a fault: mem.c reads it later)
		 * and bpf_probe_read_user()'s bytes, as usdt.bpf.c
		 */
		for (unsigned i = 0; i < nargs; i++) {
			unsigned sz = s->memlen[i];
			size_t j;

			if (!(s->memmask & (1u << i)) || !sz)
				continue;
			if (sz > UBPF_MEMMAX) {
				e.bad = true;
				break;
			}
			alu_i(&e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
			alu_r(&e, BPF_MOV, 1, 9);
			alu_r(&e, BPF_ADD, 1, 8);
			alu_i(&e, BPF_ADD, 1, 2);
			alu_i(&e, BPF_MOV, 2, (int32_t)sz);
			ldx(&e, BPF_DW, 3, 10, (int16_t)S_ARG(i));
			call(&e, BPF_FUNC_probe_read_user);
			alu_i(&e, BPF_MOV, 1, (int32_t)sz);
			j = jmp_i(&e, BPF_JSGE, 0, 0);
			alu_i(&e, BPF_MOV, 1, 0);
			fix(&e, j);
			alu_r(&e, BPF_MOV, 2, 9);
			alu_r(&e, BPF_ADD, 2, 8);
			stx(&e, BPF_H, 2, 0, 1);
			alu_i(&e, BPF_ADD, 8, 2);
			alu_r(&e, BPF_ADD, 8, 1);
		}
		alu_i(&e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
		if (fs) { /* the fault bits, last (no stack: above) */
			ldx(&e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(&e, BPF_RSH, 1, 32);
			alu_r(&e, BPF_MOV, 2, 9);
			alu_r(&e, BPF_ADD, 2, 8);
			stx(&e, BPF_DW, 2, 0, 1);
			alu_i(&e, BPF_ADD, 8, 8);
		}
		stx(&e, BPF_H, 9, 24, 8);
		if (s->ustk) /* r6 (the context) is the stack's after it */
			ustack_copy(&e, s->ustk);
	}
	/* wake the reader only once the ring is half full */
	ldmap(&e, 1, m->rb);
	alu_i(&e, BPF_MOV, 2, BPF_RB_AVAIL_DATA);
	call(&e, BPF_FUNC_ringbuf_query);
	stx(&e, BPF_DW, 10, S_KEY8, 0);
	ldmap(&e, 1, m->rb);
	alu_i(&e, BPF_MOV, 2, BPF_RB_RING_SIZE);
	call(&e, BPF_FUNC_ringbuf_query);
	alu_i(&e, BPF_RSH, 0, 1);
	ldx(&e, BPF_DW, 1, 10, S_KEY8);
	alu_i(&e, BPF_MOV, 2, BPF_RB_NO_WAKEUP);
	{
		size_t j = jmp_r(&e, BPF_JLT, 1, 0);

		alu_i(&e, BPF_MOV, 2, BPF_RB_FORCE_WAKEUP);
		fix(&e, j);
	}
	if (strs) {
		alu_r(&e, BPF_MOV, 4, 2);
		ldmap(&e, 1, m->rb);
		alu_r(&e, BPF_MOV, 2, 9);
		alu_r(&e, BPF_MOV, 3, 8);
		call(&e, BPF_FUNC_ringbuf_output);
		jnull = jmp_i(&e, BPF_JSLT, 0, 0);
	} else {
		alu_r(&e, BPF_MOV, 1, 9);
		call(&e, BPF_FUNC_ringbuf_submit);
	}
	jdrop = jmp_i(&e, BPF_JA, 0, 0);
	/* no room: drops, per CPU */
	fix(&e, jnull);
	st(&e, BPF_W, 10, S_KEY8, 0);
	ldmap(&e, 1, m->drops);
	alu_r(&e, BPF_MOV, 2, 10);
	alu_i(&e, BPF_ADD, 2, S_KEY8);
	call(&e, BPF_FUNC_map_lookup_elem);
	jnull = jmp_i(&e, BPF_JEQ, 0, 0);
	ldx(&e, BPF_DW, 1, 0, 0);
	alu_i(&e, BPF_ADD, 1, 1);
	stx(&e, BPF_DW, 0, 0, 1);
	/* 4. epilogue */
	fix(&e, jnull);
	fix(&e, jdrop);
done:
	fix(&e, jself);
	if (strs && jbuf)
		fix(&e, jbuf);
	if (jdone)
		fix(&e, jdone);
	alu_i(&e, BPF_MOV, 0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (e.bad) {
		free(e.v);
		return false;
	}
	*out = e.v;
	*n = e.n;
	return true;
}
