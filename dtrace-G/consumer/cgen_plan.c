// SPDX-License-Identifier: MIT
/*
 * cgen_plan.c - stage 2 of a generated program (cgen.c): the plan
 * kplan.c made for the event's probe, as code.
 *
 *  2. The plan, when the event has one: only for a process bpf_agg_cgen.c
 *     armed (cgen.c's cgen_emit() checks) -- the event's first such
 *     process in cgarm1 (a u32 per event in one array value, loaded
 *     directly: BPF_PSEUDO_MAP_VALUE), any other by
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
 *     back, narrowed by the instruction's size and sign -- a value
 *     popped right after its push stays in r1, no load (pop()), and
 *     an operation with a constant that fits 32 bits is one
 *     instruction with it as the immediate; r9 keeps an
 *     aggregated value across helper calls.  PRED is a forward jump to
 *     the end of its clause (an if's: to its else, JMP a BPF_JA past
 *     the else from its body's end, kplan_stmt.c's emit_list(); each
 *     lands with the stack empty, and where a jump lands every cache
 *     resets): a comparison's PRED is that jump alone (the
 *     comparison's opposite, against an immediate where one fits), and
 *     a PRED on the value the instruction before pushed takes it from
 *     r1, not from its slot, where no jump lands (pop_top()); a
 *     PRED to the plan's end after only instructions that set no
 *     S_FLAGS bit and write nothing (op_pure()) is noted in e->xpj,
 *     which cgen.c sends to the exit where a record gate follows.  KEY
 *     and AGG, the aggregations, are cgen_agg.c's.
 *     Signed / and % are BPF's unsigned division on magnitudes with the
 *     sign put back, C's truncation, as kagg.bpf.h's ksdiv().  Plans
 *     made with D_KPLAN_VARS (kplan.c says which clauses) also
 *     have TIME (the firing's timestamp, read once in the prologue into
 *     S_TS, which the record then carries too), VTIME (the firing's
 *     vtimestamp, read once in the prologue into S_VT, the record's
 *     too: cgen_rec.c's cgen_vt_lost() sends a hit whose clock was
 *     lost to user space whole before the first clause), and VLD/VST of self->
 *     variables (the hash map cgtls under {tid, variable}: a lookup
 *     that finds none reads 0, a store of 0 deletes, a store the map
 *     has no room for counts in cgtlsdrops; an array's element, its
 *     keys popped, in the hash cgtlsa under {tid, variable and key
 *     types, keys}: tlsa_key()) and of this-> variables
 *     (stack slots zeroed where the plan starts: the kernel's clauses
 *     of a probe are one run of this program; where the plan has TSET,
 *     the typed forms' test of a slot stored by the firing, each VST
 *     of one also sets its bit S_FLAGS_THIS(), cleared where the plan
 *     ends, as PROG's bits are), and SEQ, SKEY, SKEY2
 *     and SLEN, a string argument's compares, keys and length, with
 *     the fault sites of plans whose kernel keeps self-> variables:
 *     cgen_sarg.c's.  When no clause of the probe needs the record
 *     (and none faulted), the hit ends here.  REC,
 *     after a record gate's predicate (kplan_emit.c's d_kplan_gate()),
 *     sets S_FLAGS_REC: cgen.c then writes the record (an ARG the site
 *     lacks reads 0 in such a predicate too, as the record has it, so
 *     the gate decides as user space will).  XEND,
 *     at an exit clause's place (kplan_exit.c's d_kplan_xend()), ends
 *     the winner's plan there: where S_FLAGS has UBPF_RF_XWON
 *     (cgen.c's act_test()), REC and a jump to the plan's end, kept
 *     with the PREDs' (the stack empty there, a landing point).  OUT,
 *     OSTR and ODONE (printf()'s and trace()'s values) are
 *     cgen_out.c's, and so are the string variables such clauses
 *     print (SSTR, SLIT, SMOV, SCLR, OVSTR: this-> strings in cgbuf,
 *     their len zeroed where the out area starts; self-> strings in
 *     the hash cgtlss), an SSTR that faulted jumping to its clause's
 *     end as a fault site's SEQ does, and an OSTR with a jump too (a
 *     statement after it that a fault must skip).  The string
 *     variables' compares, lengths and keys (VSEQ, VVEQ, VACMP, VVCMP,
 *     VSLEN, VKEY) and execname's and literals' (CKEY, LKEY, MKEY,
 *     SMKEY, CWKEY, CCMP, CVCMP, CACMP, CLEN) are cgen_svar.c's.  MLD
 *     reads an integer member or *p of a copy of copyin(argN, C)
 *     (kplan_mem.c): cgen_mem.c's mem_read() reads each copy the
 *     plan's MLDs name into cgbuf's copy room before the first clause,
 *     one that faults ending the plan as seq_read()'s strings do (the
 *     unflagged record: user space runs every clause, its faults
 *     run.c's), and mld() loads the bytes at a constant offset there.
 *     PROG (progenyof() of a constant) pushes its pid's bit, which
 *     cgen_rec.c's cgen_anc_plan() set walking the chain of parents
 *     right after seq_read(), before the first clause (a chain it
 *     could not finish sent the hit to the unflagged record there);
 *     the bits are cleared where the plan ends.  PROGX (progenyof() of
 *     a pid the plan computes: progx()) compares its pid with the
 *     chain that walk kept whole in cgbuf's chain room (pl->ancx).
 *
 * Where each part lives: this file, the walk over the plan
 * (cgen_plan()), the stack machine's stack (pop(), push()), the
 * arithmetic (binop()), self-> variables (tls_load(), tls_store(),
 * tlsa_key()), REC and XEND, SLEN's push (slen()) and curpsinfo's chains
 * (kchain()); cgen_agg.c, AGG (agg()); cgen_sarg.c, the argument
 * strings (seq_read(), seq(), skey()); cgen_svar.c, string variables,
 * execname and literals (vseq(), vveq(), vacmp(), ckey(), ccmp()...);
 * cgen_mem.c, the copies MLD reads (mem_read(), mld()); cgen_out.c,
 * printf()'s and trace()'s values.  They share
 * cgen_impl.h.
 */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"
#include "consumer_impl.h"

/* pt_regs offsets, by UBPF_R_* (bpf/uregs.h): UREG's */
static const int16_t regoff[UREG_N] = UREG_OFFSETS;

/* the BPF operation of op where it is one ALU64 instruction, the same
 * with an immediate (binop()'s), else -1 (BPF_ADD is 0) */
static int imm_op(uint8_t op)
{
	switch (op) {
	case UBPF_K_ADD: return BPF_ADD;
	case UBPF_K_SUB: return BPF_SUB;
	case UBPF_K_MUL: return BPF_MUL;
	case UBPF_K_AND: return BPF_AND;
	case UBPF_K_OR: return BPF_OR;
	case UBPF_K_XOR: return BPF_XOR;
	default: return -1;
	}
}

/*
 * The BPF jump that holds when comparison op (UBPF_K_EQ..UBPF_K_GEU)
 * holds, or, with negate, when it fails (a PRED's; cgen.c's pretest).
 */
uint8_t cgen_cmp_jmp(uint8_t op, bool negate)
{
	static const uint8_t jop[][2] = {
		[UBPF_K_EQ] = { BPF_JEQ, BPF_JNE },
		[UBPF_K_NE] = { BPF_JNE, BPF_JEQ },
		[UBPF_K_LTS] = { BPF_JSLT, BPF_JSGE },
		[UBPF_K_LTU] = { BPF_JLT, BPF_JGE },
		[UBPF_K_GTS] = { BPF_JSGT, BPF_JSLE },
		[UBPF_K_GTU] = { BPF_JGT, BPF_JLE },
		[UBPF_K_LES] = { BPF_JSLE, BPF_JSGT },
		[UBPF_K_LEU] = { BPF_JLE, BPF_JGT },
		[UBPF_K_GES] = { BPF_JSGE, BPF_JSLT },
		[UBPF_K_GEU] = { BPF_JGE, BPF_JLT },
	};

	return jop[op][negate];
}

/* r1 = r1 OP r2 for the binary operations (kalu()) */
static void binop(struct em *e, uint8_t op)
{
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
		j = jmp_r(e, cgen_cmp_jmp(op, false), 1, 2);
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
	lookup_at(e, fd, key);
	alu_i(e, BPF_MOV, 1, 0);
	j = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_DW, 1, 0, 0);
	fix(e, j);
}

/*
 * After a map update of a self-> variable (r0 its return): a failure
 * counted in cgtlsdrops (fds[4]), per CPU, DTrace's dynamic variable
 * drops: counter UBPF_KDROP_NOMEM where the kernel could not allocate
 * the entry (-ENOMEM, the map not full: bpf_agg_read.c says so), else
 * UBPF_KDROP.  r0-r5 clobbered.
 */
void cgen_tls_drop(struct em *e, const int *fds)
{
	size_t jok = jmp_i(e, BPF_JSGE, 0, 0), jn, j;

	st(e, BPF_W, 10, S_KEY8, UBPF_KDROP);
	jn = jmp_i(e, BPF_JNE, 0, -ENOMEM);
	st(e, BPF_W, 10, S_KEY8, UBPF_KDROP_NOMEM);
	fix(e, jn);
	lookup_at(e, fds[4], S_KEY8);
	j = jmp_i(e, BPF_JEQ, 0, 0);
	alu_i(e, BPF_MOV, 1, 1);
	xadd(e, 0, 0, 1, false);
	fix(e, j);
	fix(e, jok);
}

/*
 * self-> variable v of the firing thread = r1: 0 deletes it, as
 * user space's var_set() does; a value the map has no room for is a
 * dynamic variable drop (cgen_tls_drop()).  An array's element (map
 * cgtlsa, fd >= 0) by the key at S_AKEY.
 */
static void tls_store(struct em *e, const int *fds, uint16_t v, int fd)
{
	int16_t key = fd >= 0 ? S_AKEY : S_VKEY;
	size_t j1, j2;

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
	cgen_tls_drop(e, fds);
	fix(e, j2);
}

/*
 * The top of the stack into r: no load into r1 when the instruction
 * before stored r1 in the top's slot and no jump lands here (e->land:
 * one of an op's own; e->pland: one of the plan's, on the op being
 * emitted), so an operand pushed and popped at once stays in r1 (its
 * slot written all the same).
 */
void pop(struct em *e, unsigned *sp, uint8_t r)
{
	const struct bpf_insn *l = e->n ? &e->v[e->n - 1] : NULL;

	if (!*sp) {
		e->bad = true;
		return;
	}
	if (r == 1 && e->land != e->n && e->pland != e->n && l &&
	    l->code == (BPF_STX | BPF_MEM | BPF_DW) && l->dst_reg == 10 &&
	    l->src_reg == 1 && l->off == (int16_t)S_STK(*sp - 1)) {
		--*sp;
		return;
	}
	ldx(e, BPF_DW, r, 10, (int16_t)S_STK(--*sp));
}

/* r1 pushed as it is (the stack full: the program refused) */
static void push_r1(struct em *e, unsigned *sp)
{
	if (*sp >= UBPF_KSTACK) {
		e->bad = true;
		return;
	}
	stx(e, BPF_DW, 10, (int16_t)S_STK((*sp)++), 1);
}

static void push(struct em *e, unsigned *sp, const struct ubpf_kop *o)
{
	sized(e, 1, o->sz, o->sg);
	push_r1(e, sp);
}

/*
 * CONST o pushed: its immediate narrowed here, as push()'s sized()
 * would at the hit (`self->t = 0`: one instruction, not three)
 */
static void push_const(struct em *e, unsigned *sp, const struct ubpf_kop *o)
{
	uint64_t v = (uint64_t)o->imm;

	if (o->sz == 1 || o->sz == 2 || o->sz == 4) {
		unsigned sh = 64 - 8 * (unsigned)o->sz;

		v <<= sh;
		v = o->sg ? (uint64_t)((int64_t)v >> sh) : v >> sh;
	}
	ld64(e, 1, v);
	push_r1(e, sp);
}

/*
 * pop() into r1 of the value the instruction before pushed, as pop()
 * elides it, so a predicate on a value just pushed is its test and its
 * jump alone (a failing hit's every instruction counts: the predpf row
 * of bench/perhit.sh)
 */
static void pop_top(struct em *e, unsigned *sp)
{
	pop(e, sp, 1);
}

/* The map of VLD/VST o's element: cgtlsa1 for an array of one key
 * (UBPF_KVAKEY1), else cgtlsa; -1 none */
static int tlsa_fd(const int *fds, const struct ubpf_kop *o)
{
	return o->step == 1 && fds[12] >= 0 ? fds[12] : fds[7];
}

/*
 * cgtlsa's key of the element VLD/VST o names, at S_AKEY: the thread
 * (a global array's, GARR: UBPF_KGARR_TID),
 * the variable with its keys' count and types, the keys popped (the
 * last on top), those it does not have 0 (none past the first where its
 * map is cgtlsa1, which reads the first UBPF_KVAKEY1 bytes; r1
 * clobbered).
 */
static void tlsa_key(struct em *e, unsigned *sp, const struct ubpf_kop *o,
		     const int *fds)
{
	if (!o->step || o->step > UBPF_KMAXKEYS || (uint64_t)o->imm > 0xfff) {
		e->bad = true;
		return;
	}
	for (int i = UBPF_KMAXKEYS - 1; i >= 0; i--) {
		if (i >= (int)o->step) {
			if (tlsa_fd(fds, o) != fds[7]) /* (cgtlsa1's) */
				continue;
			st(e, BPF_DW, 10, (int16_t)(S_AKEY + 8 + 8 * i), 0);
			continue;
		}
		pop(e, sp, 1);
		stx(e, BPF_DW, 10, (int16_t)(S_AKEY + 8 + 8 * i), 1);
	}
	if (o->n == UBPF_KV_GARR) /* a global array's: no thread */
		st(e, BPF_W, 10, S_AKEY, (int32_t)UBPF_KGARR_TID);
	else
		stx(e, BPF_W, 10, S_AKEY, 7);
	/* (the keys' types are not the element's: run.c's dyn_key(),
	 * d_dyn_key_add(), keys by the values alone, each pushed extended
	 * by its own type as d_dv_int() extends it) */
	st(e, BPF_W, 10, S_AKEY + 4,
	   (int32_t)(o->slot | (uint32_t)o->step << 16));
}

bool cgen_plan_has(const struct ubpf_kplan *pl, uint8_t op, int n)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == op && (n < 0 || pl->ops[pc].n == n))
			return true;
	return false;
}

/* Does the plan order a string variable with a literal (VSEQ's agg:
 * vseq_ord(), whose copy is in cgbuf)? */
/* A step's tag (o: SPEC, SPECU, SPECX) for the next ODONE to mark
 * whole (cgen_out_op()) */
static void ktag(struct em *e, const struct ubpf_kop *o)
{
	if (e->nktag >= sizeof(e->ktag) / sizeof(e->ktag[0])) {
		e->bad = true;
		return;
	}
	e->ktag[e->nktag++] = (int16_t)(sizeof(struct ubpf_kout) + o->slot);
}

static bool vseq_ordered(const struct ubpf_kplan *pl)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_VSEQ && pl->ops[pc].agg)
			return true;
	return false;
}

/* REC: the hit needs its record (S_FLAGS_REC in S_FLAGS, r1 taken) */
static void rec(struct em *e)
{
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_OR, 1, S_FLAGS_REC);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
}

/*
 * Whether o leaves S_FLAGS as it was and writes nothing (no REC, no
 * fault site, no store, no aggregation, no out area): a PRED after
 * only such instructions fails with the record gate's bits still 0
 * (e->xpj).
 */
static bool op_pure(const struct ubpf_kop *o)
{
	switch (o->op) {
	case UBPF_K_VTIME: /* a lost one sent away, or a site's bits */
		return !o->slot;
	case UBPF_K_ARG: /* 0 where the site lacks it, as its record */
	case UBPF_K_CONST:
	case UBPF_K_PID:
	case UBPF_K_TID:
	case UBPF_K_NORM:
	case UBPF_K_NEG:
	case UBPF_K_BNOT:
	case UBPF_K_LNOT:
	case UBPF_K_SEL:
	case UBPF_K_PRED:
	case UBPF_K_JMP:
	case UBPF_K_TIME:
	case UBPF_K_GLD:
	case UBPF_K_CPU:
	case UBPF_K_UREG:
	case UBPF_K_UID:
	case UBPF_K_GID:
	case UBPF_K_PROG: /* its bit, set by the walk before the plan */
	case UBPF_K_PROGX: /* compares with the walk's words alone */
	case UBPF_K_TSET:  /* reads S_FLAGS's bit */
	case UBPF_K_PPID: /* its scratch the slot it pushes */
	case UBPF_K_ECRED:
	case UBPF_K_SESS:
		return true;
	default:
		return o->op >= UBPF_K_ADD && o->op <= UBPF_K_LXOR;
	}
}

/*
 * SLEN o: strlen(copyinstr(argument o->n)), from seq_read()'s copy of
 * it in cgbuf (never seq_stack()'s, which may end at a literal's
 * length): the helper's count (S_SLEN(), the NUL included; a fault,
 * or a copy as full as strsize - 1 could not tell apart from one cut,
 * sent the hit to user space before the plan ran) less the NUL, cut to
 * o->imm (strsize - 1) as copyinstr() cuts the string: run.c's
 * d_read_user_str() reads no further, so a string longer than that is
 * its first strsize - 1 bytes there too.
 */
static void slen(struct em *e, const struct ubpf_kop *o, unsigned *sp)
{
	unsigned j;
	size_t jc;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || e->sn || o->imm < 0) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, (int16_t)S_SLEN(j));
	alu_i(e, BPF_SUB, 1, 1);
	if (o->imm < UBPF_STRMAX) { /* else no copy is longer */
		jc = jmp_i(e, BPF_JLE, 1, (int32_t)o->imm);
		alu_i(e, BPF_MOV, 1, (int32_t)o->imm);
		fix(e, jc);
	}
	push(e, sp, o);
}

/*
 * PPID o: current->real_parent->tgid, read as cgen.c's u_ppid() and
 * kp_kctx() read it for the record (a read that faults, or no parent,
 * leaves 0; neither happens to the thread that hit the probe, whose
 * real_parent is always set: a parent's exit reparents it first, and
 * the new parent's tgid is what both read).
 * ECRED, SESS o: curpsinfo->pr_euid or pr_egid (current->cred, then
 * the id in it), pr_pgid or pr_sid (current->signal, its pids[] entry,
 * then that struct pid's numbers[0].nr), each pointer and the id read
 * with bpf_probe_read_kernel() at o->imm's offsets into the slot the
 * value is pushed to, as cgen_rec.c's u_ecred() and u_sess() read them for
 * the record.  A NULL pointer or a read that fails leaves 0 there (the
 * slot zeroed first, a failed read zeroing what it was to write); at a
 * uprobe, the only probe whose plan has these (kplan.h's
 * D_KPLAN_ECRED), neither happens: the thread is alive in user mode,
 * its cred and signal set, and its process's group and session
 * detached only once the whole thread group is dead.
 */
static void kchain(struct em *e, const struct ubpf_kop *o, unsigned *sp)
{
	const int16_t slot = (int16_t)S_STK(*sp);
	const uint64_t imm = (uint64_t)o->imm;
	uint32_t off[3];
	unsigned n;
	size_t j[2];

	if (*sp >= UBPF_KSTACK) {
		e->bad = true;
		return;
	}
	off[0] = (uint32_t)imm;
	if (o->op == UBPF_K_ECRED || o->op == UBPF_K_PPID) {
		off[1] = (uint32_t)(imm >> 32);
		n = 2;
	} else {
		off[1] = (uint32_t)(imm >> 32) & 0xffff;
		off[2] = (uint32_t)(imm >> 48);
		n = 3;
	}
	st(e, BPF_DW, 10, slot, 0);
	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	for (unsigned i = 0; i < n; i++) {
		if (i) { /* the pointer read before: NULL, 0 */
			ldx(e, BPF_DW, 3, 10, slot);
			j[i - 1] = jmp_i(e, BPF_JEQ, 3, 0);
		}
		alu_i(e, BPF_ADD, 3, (int32_t)off[i]);
		alu_r(e, BPF_MOV, 1, 10);
		alu_i(e, BPF_ADD, 1, slot);
		alu_i(e, BPF_MOV, 2, i + 1 < n ? 8 : 4);
		call(e, BPF_FUNC_probe_read_kernel);
	}
	for (unsigned i = 0; i + 1 < n; i++)
		fix(e, j[i]);
	ldx(e, BPF_W, 1, 10, slot);
	push(e, sp, o);
}

/*
 * PROGX: progenyof(p) of the p on top, from the words cgen_rec.c's
 * cgen_anc_plan() kept in cgbuf's chain room before the first clause
 * (pl->ancx): the hit's pid, then the chain of parents to the 0 that
 * ends it (complete: a chain the walk could not finish sent the hit to
 * user space whole there).  p as func.c compares it, its low 32 bits
 * ((uint32_t)(pid_t)p); 1 at the first word equal to it, 0 at the
 * chain's 0 (compared first: progenyof(0) is 1) or past the room.  r1
 * p, r2 cgbuf, r3 the word.
 */
static void progx(struct em *e, const struct ubpf_kplan *pl, unsigned *sp)
{
	size_t jy[UBPF_ANC + 1], jn[UBPF_ANC];
	unsigned ny = 0, nn = 0;

	if (!pl->ancx || !e->ancoff || !e->vbuf) {
		e->bad = true;
		return;
	}
	pop(e, sp, 1);
	put(e, BPF_ALU | BPF_MOV | BPF_X, 1, 1, 0, 0); /* w1 = w1 */
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned k = 0; k <= UBPF_ANC; k++) {
		ldx(e, BPF_W, 3, 2, (int16_t)(e->ancoff + 4 * k));
		jy[ny++] = jmp_r(e, BPF_JEQ, 3, 1);
		if (k) /* word 0 is the pid, not the chain's end */
			jn[nn++] = jmp_i(e, BPF_JEQ, 3, 0);
	}
	cmp_result(e, jy, ny, jn, nn);
	push_r1(e, sp);
}

/* push bit b of S_FLAGS (PROG's ancestors, TSET's this-> set bits) */
static void flag_bit(struct em *e, unsigned b, unsigned *sp)
{
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_RSH, 1, (int32_t)b);
	alu_i(e, BPF_AND, 1, 1);
	push_r1(e, sp);
}

/* o leaves S_VVAL's self-> value (e->vcv) as it was: vld_again()'s */
static bool vval_kept(const struct ubpf_kop *o)
{
	return op_pure(o) ||
	       (o->op == UBPF_K_VLD &&
		(o->n == UBPF_KV_THIS || o->n == UBPF_KV_SELF));
}

/*
 * Whether the self-> variable VLD pc loads is loaded again by a VLD
 * after it with only op_pure() instructions and this-> or self-> loads
 * in between, and no jump landing there: its value then stays in S_VVAL
 * (e->vcv), which none of those write, and the second load reads it
 * there, not with a lookup (the self row of bench/perhit.sh:
 * `/self->t/ { @ = quantize(timestamp - self->t); }`).  The same value:
 * only this thread's VST writes the variable, and none comes between
 * (a program nested in this one on the CPU that wrote it is a firing
 * after this one's, and DTrace runs a firing's clauses whole, with
 * interrupts off: a nested firing's writes come after them).
 *
 * The same for an element of an array of one key (cgtlsa1's, SELFA or
 * GARR), loaded again by a VLD of the array (`/start[arg0]/ { @ =
 * quantize(timestamp - start[arg0]); }`, the garr row): its key and
 * value are then kept at S_ACKEY and S_ACVAL, which none of those
 * write, and the second load whose key is the same 16 bytes reads the
 * value there (alda_load()).  For a thread-local array as above; a
 * global array's element another CPU stores between the two reads is
 * read as before that store, both reads then coming before it, an
 * order D's unlocked globals allow (kplan_garr.c's "Across CPUs").
 */
static bool vld_again(const struct ubpf_kplan *pl, unsigned pc, const bool *tgt)
{
	const struct ubpf_kop *o = &pl->ops[pc];

	for (unsigned q = pc + 1; q < pl->nops && q < UBPF_KOPS; q++) {
		const struct ubpf_kop *p = &pl->ops[q];

		if (tgt[q])
			return false;
		if (p->op == UBPF_K_VLD && p->n == o->n && p->slot == o->slot &&
		    (o->n == UBPF_KV_SELF || p->step == 1))
			return true;
		if (!vval_kept(p))
			return false;
	}
	return false;
}

/* VLD o's element = r1, from S_ACVAL where its key (at S_AKEY) is the
 * one at S_ACKEY, else looked up in map fd */
static void alda_load(struct em *e, const int *fds, const struct ubpf_kop *o,
		      int fd)
{
	size_t j1, j2, j3;

	ldx(e, BPF_DW, 1, 10, S_AKEY);
	ldx(e, BPF_DW, 2, 10, S_ACKEY);
	j1 = jmp_r(e, BPF_JNE, 1, 2);
	ldx(e, BPF_DW, 1, 10, S_AKEY + 8);
	ldx(e, BPF_DW, 2, 10, S_ACKEY + 8);
	j2 = jmp_r(e, BPF_JNE, 1, 2);
	ldx(e, BPF_DW, 1, 10, S_ACVAL);
	j3 = jmp_i(e, BPF_JA, 0, 0);
	fix(e, j1);
	fix(e, j2);
	tls_load(e, fds, o->slot, fd);
	fix(e, j3);
}

/* a PRED's jump pj to the plan's end after pure instructions alone */
static void pure_pred(struct em *e, bool pure, const struct ubpf_kop *o,
		      const struct ubpf_kplan *pl, size_t pj)
{
	if (pure && o->jump == pl->nops &&
	    e->nxpj < sizeof(e->xpj) / sizeof(e->xpj[0]))
		e->xpj[e->nxpj++] = pj;
}

/*
 * The plan's instructions (kagg.bpf.h's kstep(), one at a time), nargs
 * arguments fetched; fds: kaggs, kflat, kdrops, cgtls, cgtlsdrops, cgbuf,
 * kaggs_s, cgtlsa, cgtlss, kaggs_v, kaggs_w.  Its end is where every PRED's
 * clause ends, at most.  The
 * firing's timestamp is in S_TS when the plan reads it.
 */
void cgen_plan(struct em *e, const struct ubpf_kplan *pl, unsigned nargs,
	       const int *fds)
{
	size_t *at = xcalloc((size_t)pl->nops + 1, sizeof(*at));
	/* the jumps to a clause's end: a PRED's, or a fused SEQ's (a
	 * length's and a chunk's each: seq()) */
	size_t npj = 2 * (size_t)pl->nops + 8;
	size_t *pj = xcalloc(npj, sizeof(*pj));
	unsigned *pd = xcalloc(npj, sizeof(*pd));
	unsigned *pdep = xcalloc(npj, sizeof(*pdep));
	unsigned *dp = xcalloc((size_t)pl->nops + 1, sizeof(*dp));
	/* SEQ's fault jumps: they leave nothing on the stack that the
	 * clause's end reads */
	size_t *fjx = xcalloc((size_t)pl->nops + 1, sizeof(*fjx));
	unsigned *fjt = xcalloc((size_t)pl->nops + 1, sizeof(*fjt));
	/* where a jump lands (any op's jump: more than there are is only
	 * a test of S_OBUF more) */
	bool *tgt = xcalloc((size_t)pl->nops + 1, sizeof(*tgt));
	unsigned sp = 0, np = 0, nf = 0, from = 0;
	bool landed, pure = true; /* op_pure() every instruction so far */
	/* this-> slots' set bits (S_FLAGS_THIS()): kept where TSET reads
	 * them, a plan without one unchanged */
	bool tset = cgen_plan_has(pl, UBPF_K_TSET, -1);
	uint8_t jn;

	e->nxpj = 0;
	e->vcv = e->acv = 0;
	e->pland = SIZE_MAX;
	e->kw = 0; /* the kaggs key: each AGG writes it whole (agg_at()) */
	seq_read(e, pl, fds[5], nargs);
	/* S_SBUF holds cgbuf where seq_read() took it */
	e->vbuf = e->nsarg > 0 && !e->sn;
	/* progenyof()'s walk, before the first clause: only where a hit
	 * it cannot answer may go to user space whole (no fault sites, no
	 * self-> variable the kernel keeps: kplan.c's kp_prog_arg()) */
	if ((pl->nanc || pl->ancx) &&
	    (cgen_fsites(e, pl) || (pl->tls & (1 | UBPF_KTLS_GARR))))
		e->bad = true;
	cgen_vt_lost(e, pl);
	cgen_anc_plan(e, pl, fds[5]);
	/* the out area: started by the first clause of the hit that
	 * writes into it (cgen_out_need(), which also makes the this->
	 * strings read ""), known started only until a jump lands */
	e->ostarted = e->oany = false;
	e->nktag = 0;
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		if (pl->ops[pc].jump > pc && pl->ops[pc].jump <= pl->nops)
			tgt[pl->ops[pc].jump] = true;
		if (pl->ops[pc].op == UBPF_K_XEND) /* to the plan's end */
			tgt[pl->nops] = true;
	}
	/* VKEY's keys and VVCMP's copies are built in cgbuf too
	 * (S_SBUF): seq_read() found it, or here, a lookup of a
	 * one-entry array that cannot fail (the verifier wants the
	 * test: seq_read()'s way out) */
	if (!e->vbuf && fds[5] >= 0 &&
	    (cgen_plan_has(pl, UBPF_K_VKEY, -1) ||
	     cgen_plan_has(pl, UBPF_K_AKEY, -1) ||
	     cgen_plan_has(pl, UBPF_K_VVCMP, -1) ||
	     cgen_plan_has(pl, UBPF_K_CKEY, -1) ||
	     cgen_plan_has(pl, UBPF_K_LKEY, -1) ||
	     cgen_plan_has(pl, UBPF_K_MKEY, -1) ||
	     cgen_plan_has(pl, UBPF_K_CVCMP, -1) || vseq_ordered(pl))) {
		size_t j = own_need(e, fds[5]);

		if (j != SIZE_MAX)
			e->fj[e->nfj++] = j;
		stx(e, BPF_DW, 10, S_SBUF, 0);
		e->vbuf = true;
	}
	/* the copies MLD reads, before the first clause */
	mem_read(e, pl, fds[5], nargs);
	/* this-> variables start at 0 in each firing */
	if (cgen_plan_has(pl, UBPF_K_VLD, UBPF_KV_THIS) ||
	    cgen_plan_has(pl, UBPF_K_VST, UBPF_KV_THIS))
		for (unsigned i = 0; i < UBPF_KTHIS; i++)
			st(e, BPF_DW, 10, (int16_t)S_THIS(i), 0);
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS && !e->bad;
	     pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		uint8_t op = o->op, eop;

		at[pc] = e->n;
		dp[pc] = sp;
		/* a jump lands here (or on an SDATA before: after its op):
		 * the area may not be started on its path */
		landed = false;
		for (; from <= pc; from++)
			landed |= tgt[from];
		if (landed) /* ... nor cgbuf held (own_need()) */
			e->ostarted = e->owned = false;
		e->pland = landed ? e->n : SIZE_MAX;
		/* S_VVAL's self-> value: only across vld_again()'s ops */
		if (landed || !vval_kept(o))
			e->vcv = 0;
		/* ... and S_ACVAL's element: across vld_again()'s */
		if (landed || (!vval_kept(o) && o->op != UBPF_K_VLD))
			e->acv = 0;
		pure &= op_pure(o);
		eop = op == UBPF_K_PRED && o->n ? o->n : op;
		switch (eop) {
		case UBPF_K_CONST:
			if ((o->flags & UBPF_KF_PRB) && e->prb) {
				ldx(e, BPF_DW, 1, 10, S_PRB); /* kp_ident() */
				push(e, &sp, o);
			} else {
				push_const(e, &sp, o);
			}
			continue;
		case UBPF_K_ARG:
			if (o->n >= nargs) {
				/* one the event has not: 0, as its record
				 * says it (bpf.c's bpf_decode() takes the
				 * fetched ones into a zeroed fire), where
				 * the plan was refused, and with it, beside
				 * self-> variables, the whole run */
				alu_i(e, BPF_MOV, 1, 0);
				push(e, &sp, o);
				continue;
			}
			ldx(e, BPF_DW, 1, 10, (int16_t)S_ARG(o->n));
			push(e, &sp, o);
			continue;
		case UBPF_K_REC:
			rec(e);
			continue;
		case UBPF_K_XEND: { /* the winner's plan ends at its exit
				     * clause: REC, then the plan's end */
			size_t jlost;

			ldx(e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(e, BPF_AND, 1, UBPF_RF_XWON);
			jlost = jmp_i(e, BPF_JEQ, 1, 0);
			rec(e);
			pj[np] = jmp_i(e, BPF_JA, 0, 0);
			pd[np] = pl->nops;
			pdep[np++] = sp; /* 0: between clauses */
			fix(e, jlost);
			continue;
		}
		case UBPF_K_OSTR: /* a copy whose fault may end the clause
				   * (a jump where one must), */
		case UBPF_K_SSTR: /* ... a string variable's store (always) */
			/* (R2's, flagged UBPF_KF_APRE: no jump, no fault:
			 * cgen_out.c's ostr_pre(), sstr_pre()) */
			if (((eop == UBPF_K_SSTR &&
			      !(o->flags & UBPF_KF_APRE)) ||
			     o->jump) &&
			    (o->jump <= pc || o->jump > pl->nops)) {
				e->bad = true;
				continue;
			}
			e->sfj = SIZE_MAX;
			cgen_out_op(e, o, &sp, fds);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			continue;
		case UBPF_K_SPEC: /* speculation(): cgen_spec.c, its tag in
				   * the area, started first */
			if (e->spec < 0 || o->imm < 1 || o->imm > UBPF_KSPECS) {
				e->bad = true;
				continue;
			}
			cgen_out_need(e);
			cgen_spec_take(
				e, e->spec, (unsigned)o->imm,
				(int16_t)(sizeof(struct ubpf_kout) + o->slot),
				o->agg);
			ktag(e, o);
			push(e, &sp, o);
			continue;
		case UBPF_K_SPECU:   /* speculate(), commit(), discard(): an */
		case UBPF_K_SPECX: { /* ID past nspec, the site's fault */
			unsigned site = op == UBPF_K_SPECU ? o->n : o->levels;
			size_t jf = SIZE_MAX, jok;

			if (e->spec < 0 || o->imm < 1 || o->imm > UBPF_KSPECS ||
			    !site || site > UBPF_KFSITES || o->jump <= pc ||
			    o->jump > pl->nops) {
				e->bad = true;
				continue;
			}
			cgen_out_need(e);
			pop(e, &sp, 1);
			if (op == UBPF_K_SPECU)
				cgen_spec_step(
					e, e->spec, (unsigned)o->imm,
					(int16_t)(sizeof(struct ubpf_kout) +
						  o->slot),
					o->agg, &jf);
			else
				cgen_spec_close(
					e, e->spec, (unsigned)o->imm,
					(int16_t)(sizeof(struct ubpf_kout) +
						  o->slot),
					o->agg, &jf);
			if (jf == SIZE_MAX) {
				e->bad = true;
				continue;
			}
			ktag(e, o);
			/* the fault: the site's two bits 3 (an illegal
			 * operation), the clause's end (e->sfj) */
			jok = jmp_i(e, BPF_JA, 0, 0);
			fix(e, jf);
			alu_i(e, BPF_MOV, 3, 3);
			e->sfj = SIZE_MAX;
			fault_set(e, site);
			fjx[nf] = e->sfj;
			fjt[nf++] = o->jump;
			fix(e, jok);
			continue;
		}
		case UBPF_K_OSTK: /* the record's stack: cgen_ustk.c */
			ustack_out(e);
			continue;
		case UBPF_K_OUT: /* printf(), trace(): cgen_out.c */
		case UBPF_K_ODONE:
		case UBPF_K_SCLR:
		case UBPF_K_OVSTR:
		case UBPF_K_MSTR: /* stringof() of a copy's place */
		case UBPF_K_SMOV:
		case UBPF_K_SCOMM:
			cgen_out_op(e, o, &sp, fds);
			continue;
		case UBPF_K_SLIT: {
			unsigned first = pc;

			cgen_out_lit(e, pl, &pc, fds);
			for (unsigned i = first + 1; i <= pc; i++) {
				at[i] = e->n;
				dp[i] = sp;
			}
			continue;
		}
		case UBPF_K_TIME:
			ldx(e, BPF_DW, 1, 10, S_TS);
			push(e, &sp, o);
			continue;
		case UBPF_K_GLD: /* cgrcon's slot (the prologue's gate, cgen.c)
				  */
			if (e->rcon < 0 || o->n >= UBPF_KRCON) {
				e->bad = true;
				continue;
			}
			ldmapv(e, 1, e->rcon, 0);
			ldx(e, BPF_DW, 1, 1, (int16_t)(8 * (o->n + 1)));
			push(e, &sp, o);
			continue;
		case UBPF_K_VTIME:     /* the prologue's read (cgen.c) */
			if (o->slot) { /* a fault site's jump as SEQ's */
				e->sfj = SIZE_MAX;
				cgen_vt_fault(e, o);
				if (e->sfj != SIZE_MAX) {
					fjx[nf] = e->sfj;
					fjt[nf++] = o->jump;
				}
			}
			ldx(e, BPF_DW, 1, 10, S_VT);
			push(e, &sp, o);
			continue;
		case UBPF_K_UREG: /* r6, the uprobe's pt_regs (cgen.c) */
			if (o->n >= UREG_N) {
				e->bad = true;
				continue;
			}
			ldx(e, BPF_DW, 1, 6, regoff[o->n]);
			push(e, &sp, o);
			continue;
		case UBPF_K_CPU: /* as the record's header has it */
			call(e, BPF_FUNC_get_smp_processor_id);
			alu_r(e, BPF_MOV, 1, 0);
			sized(e, 1, 4, 1);
			push(e, &sp, o);
			continue;
		case UBPF_K_UID: /* as u_cred() and kp_kctx() write them */
		case UBPF_K_GID:
			call(e, BPF_FUNC_get_current_uid_gid);
			alu_r(e, BPF_MOV, 1, 0);
			if (eop == UBPF_K_GID)
				alu_i(e, BPF_RSH, 1, 32);
			sized(e, 1, 4, 0);
			push(e, &sp, o);
			continue;
		case UBPF_K_PPID:
		case UBPF_K_ECRED:
		case UBPF_K_SESS:
			kchain(e, o, &sp);
			continue;
		case UBPF_K_PROG: /* (S_FLAGS >> (17 + n)) & 1 */
			if (o->n >= pl->nanc ||
			    pl->anc[o->n] != (uint32_t)o->imm) {
				e->bad = true;
				continue;
			}
			flag_bit(e, 17 + o->n, &sp);
			continue;
		case UBPF_K_PROGX:
			progx(e, pl, &sp);
			continue;
		case UBPF_K_TSET: /* (S_FLAGS >> (22 + slot)) & 1 */
			if (o->n != UBPF_KV_THIS || o->slot >= UBPF_KTHIS) {
				e->bad = true;
				continue;
			}
			flag_bit(e, 22 + o->slot, &sp);
			continue;
		case UBPF_K_SLEN:
			slen(e, o, &sp);
			continue;
		case UBPF_K_CLEN:
			clen(e);
			push(e, &sp, o);
			continue;
		case UBPF_K_MLD: /* a read from a copy (mem_read()) */
			if (o->slot) { /* a fault site's jump as SEQ's */
				e->sfj = SIZE_MAX;
				mld_fault(e, o);
				if (e->sfj != SIZE_MAX) {
					fjx[nf] = e->sfj;
					fjt[nf++] = o->jump;
				}
			}
			if (o->flags & UBPF_KF_MCOPY) /* the copy alone */
				continue;
			mld(e, o);
			push(e, &sp, o);
			continue;
		case UBPF_K_SKEY:
			skey(e, o);
			continue;
		case UBPF_K_SKEY2:
			skey2(e, o);
			continue;
		case UBPF_K_VKEY:
			vkey(e, pl, o, fds);
			continue;
		case UBPF_K_RAISE: /* kplan.c's "raise() at the hit" */
			if (o->imm < 1 || o->imm > UBPF_KRAISEMAX) {
				e->bad = true;
				continue;
			}
			alu_i(e, BPF_MOV, 1, (int32_t)o->imm);
			call(e, o->n ? BPF_FUNC_send_signal
				     : BPF_FUNC_send_signal_thread);
			continue;
		case UBPF_K_BCPY: /* a bounded copy's fault site */
			if (o->jump <= pc || o->jump > pl->nops) {
				e->bad = true;
				continue;
			}
			e->sfj = SIZE_MAX;
			bcpy(e, o);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			continue;
		case UBPF_K_AKEY: /* a fault site's jump as SEQ's */
			if (o->agg && (o->jump <= pc || o->jump > pl->nops)) {
				e->bad = true;
				continue;
			}
			e->sfj = SIZE_MAX;
			akey(e, pl, o);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			continue;
		case UBPF_K_CKEY:
			ckey(e, o);
			continue;
		case UBPF_K_CWKEY:
			cwkey(e, o);
			continue;
		case UBPF_K_CVCMP:
			cvcmp(e, pl, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_LKEY:
		case UBPF_K_MKEY:
		case UBPF_K_SMKEY:
		case UBPF_K_CCMP: {
			unsigned first = pc;

			if (op == UBPF_K_LKEY) {
				lkey(e, pl, &pc, &sp);
			} else if (op == UBPF_K_MKEY) {
				mkey(e, pl, &pc, &sp);
			} else if (op == UBPF_K_SMKEY) {
				smkey(e, pl, &pc, &sp);
				e->lkj1 = -1; /* kaggs_s's alone */
			} else {
				ccmp(e, pl, &pc);
				push(e, &sp, o);
			}
			for (unsigned i = first + 1; i <= pc; i++) {
				at[i] = e->n;
				dp[i] = sp;
			}
			continue;
		}
		case UBPF_K_SEQ: {
			unsigned first = pc, q = seq_pred(pl, pc, tgt);
			size_t fj[UBPF_KSTRMAX / 8 + 5];
			unsigned nfj = 0;

			e->sfj = SIZE_MAX;
			seq(e, pl, &pc, q ? fj : NULL, &nfj);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			if (q && !e->bad) {
				/* its PRED: the differences jump to its end */
				for (unsigned i = 0; i < nfj && np < npj; i++) {
					pj[np] = fj[i];
					pd[np] = pl->ops[q].jump;
					pdep[np++] = sp;
				}
				if (np >= npj || pl->ops[q].jump <= q ||
				    pl->ops[q].jump > pl->nops)
					e->bad = true;
				for (unsigned i = first + 1; i <= q; i++) {
					at[i] = e->n;
					dp[i] = sp;
				}
				pc = q;
				continue;
			}
			push(e, &sp, o);
			/* the SDATA skipped: where a jump may land */
			for (unsigned i = first + 1; i <= pc; i++) {
				at[i] = e->n;
				dp[i] = sp;
			}
			continue;
		}
		case UBPF_K_VSLEN:
			vslen(e, pl, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_SCHR: /* s[i] = c (cgen_svar.c) */
			schr(e, pl, o, fds);
			continue;
		case UBPF_K_VVEQ:
			vveq(e, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_VVCMP:
			vvcmp(e, pl, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_VACMP: /* a fault site's jump as SEQ's */
		case UBPF_K_CACMP:
			if (o->agg && (o->jump <= pc || o->jump > pl->nops)) {
				e->bad = true;
				continue;
			}
			e->sfj = SIZE_MAX;
			if (op == UBPF_K_CACMP)
				cacmp(e, o);
			else
				vacmp(e, pl, o, fds);
			if (e->sfj != SIZE_MAX) {
				fjx[nf] = e->sfj;
				fjt[nf++] = o->jump;
			}
			push(e, &sp, o);
			continue;
		case UBPF_K_VSEQ: {
			unsigned first = pc;

			vseq(e, pl, &pc, fds);
			push(e, &sp, o);
			for (unsigned i = first + 1; i <= pc; i++) {
				at[i] = e->n;
				dp[i] = sp;
			}
			continue;
		}
		case UBPF_K_VLD:
			if (o->n == UBPF_KV_SELF &&
			    e->vcv == (unsigned)o->slot + 1) {
				ldx(e, BPF_DW, 1, 10, S_VVAL); /* kept */
			} else if (o->n == UBPF_KV_SELF) {
				tls_load(e, fds, o->slot, -1);
				e->vcv = 0;
				if (vld_again(pl, pc, tgt)) {
					stx(e, BPF_DW, 10, S_VVAL, 1);
					e->vcv = (unsigned)o->slot + 1;
				}
			} else if ((o->n == UBPF_KV_SELFA ||
				    o->n == UBPF_KV_GARR) &&
				   tlsa_fd(fds, o) >= 0) {
				bool one = tlsa_fd(fds, o) != fds[7];

				tlsa_key(e, &sp, o, fds);
				if (one && e->acv == (unsigned)o->slot + 1)
					alda_load(e, fds, o, fds[12]);
				else
					tls_load(e, fds, o->slot,
						 tlsa_fd(fds, o));
				e->acv = 0;
				if (one && vld_again(pl, pc, tgt)) {
					stx(e, BPF_DW, 10, S_ACVAL, 1);
					ldx(e, BPF_DW, 2, 10, S_AKEY);
					stx(e, BPF_DW, 10, S_ACKEY, 2);
					ldx(e, BPF_DW, 2, 10, S_AKEY + 8);
					stx(e, BPF_DW, 10, S_ACKEY + 8, 2);
					e->acv = (unsigned)o->slot + 1;
				}
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
			} else if ((o->n == UBPF_KV_SELFA ||
				    o->n == UBPF_KV_GARR) &&
				   tlsa_fd(fds, o) >= 0) {
				/* the value, kept while the keys are popped */
				stx(e, BPF_DW, 10, S_VVAL, 1);
				tlsa_key(e, &sp, o, fds);
				ldx(e, BPF_DW, 1, 10, S_VVAL);
				tls_store(e, fds, o->slot, tlsa_fd(fds, o));
			} else if (o->n == UBPF_KV_THIS &&
				   o->slot < UBPF_KTHIS) {
				stx(e, BPF_DW, 10, (int16_t)S_THIS(o->slot), 1);
				if (tset) { /* stored: TSET's bit */
					ldx(e, BPF_DW, 1, 10, S_FLAGS);
					alu_i(e, BPF_OR, 1,
					      (int32_t)S_FLAGS_THIS(o->slot));
					stx(e, BPF_DW, 10, S_FLAGS, 1);
				}
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
			pop_top(e, &sp);
			break;
		case UBPF_K_JMP: /* an if's body done: past its else */
			if (o->jump <= pc || o->jump > pl->nops) {
				e->bad = true;
				continue;
			}
			pj[np] = jmp_i(e, BPF_JA, 0, 0);
			pd[np] = o->jump;
			pdep[np++] = sp; /* 0: kplan_stmt.c's emit_list() */
			continue;
		case UBPF_K_KEY:
			e->kw |= 1u << (o->n & (UBPF_KMAXKEYS - 1));
			pop(e, &sp, 1);
			stx(e, BPF_DW, 10,
			    (int16_t)(S_KKEY + 8 +
				      8 * (o->n & (UBPF_KMAXKEYS - 1))),
			    1);
			continue;
		case UBPF_K_AGG:
			if (o->n != UBPF_F_COUNT) /* count() reads none */
				pop(e, &sp, 9);
			agg(e, o, fds);
			continue;
		default:
			if (eop < UBPF_K_ADD || eop > UBPF_K_LXOR) {
				e->bad = true; /* an instruction not known */
				continue;
			}
			if (op == UBPF_K_PRED && eop >= UBPF_K_EQ &&
			    eop <= UBPF_K_GEU) {
				/* a comparison's: its jump when it fails,
				 * against the immediate where one fits */
				bool i32 = (o->flags & UBPF_KF_IMM) &&
					   o->imm == (int32_t)o->imm;

				if (i32) {
					pop_top(e, &sp);
				} else if (o->flags & UBPF_KF_IMM) {
					ld64(e, 2, (uint64_t)o->imm);
					pop(e, &sp, 1);
				} else {
					pop(e, &sp, 2);
					pop(e, &sp, 1);
				}
				if (o->jump <= pc || o->jump > pl->nops) {
					e->bad = true;
					continue;
				}
				/* the jump when it does not hold */
				jn = cgen_cmp_jmp(eop, true);
				pj[np] = i32 ? jmp_i(e, jn, 1, (int32_t)o->imm)
					     : jmp_r(e, jn, 1, 2);
				pure_pred(e, pure, o, pl, pj[np]);
				pd[np] = o->jump;
				pdep[np++] = sp;
				continue;
			}
			if ((o->flags & UBPF_KF_IMM) && imm_op(eop) >= 0 &&
			    o->imm == (int32_t)o->imm) {
				/* BPF's immediate is o->imm sign-extended */
				pop(e, &sp, 1);
				alu_i(e, (uint8_t)imm_op(eop), 1,
				      (int32_t)o->imm);
			} else if (o->flags & UBPF_KF_IMM) {
				pop(e, &sp, 1);
				ld64(e, 2, (uint64_t)o->imm);
				binop(e, eop);
			} else {
				pop(e, &sp, 2);
				pop(e, &sp, 1);
				binop(e, eop);
			}
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
		pure_pred(e, pure, o, pl, pj[np]);
		pd[np] = o->jump;
		pdep[np++] = sp; /* the depth the jump lands with */
	}
	at[pl->nops] = e->n;
	dp[pl->nops] = sp;
	if (pl->nanc) { /* the walk's bits, where every clause ends: not
			 * a REC's for cgen.c's S_FLAGS >> 16 */
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_AND, 1, (int32_t)~S_FLAGS_ANCS);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
	}
	if (tset) { /* the this-> slots' bits, as the walk's */
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_AND, 1, (int32_t)~S_FLAGS_THISS);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
	}
	if (np || nf) /* a jump to the end: cgbuf may not be held there */
		e->owned = false;
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
	free(tgt);
	free(at);
	free(pj);
	free(pd);
	free(pdep);
	free(dp);
}
