// SPDX-License-Identifier: MIT
/*
 * cgen_spec.c - speculation(), speculate() and commit()/discard() as a
 * generated program's code: the three steps on the buffers' words that
 * the kernel keeps (doc/DESIGN.md's "Speculations in the kernel: the
 * build in steps", step 1; the plan instructions UBPF_K_SPEC, SPECU and
 * SPECX of bpf/kagg_bpf.h, which kplan_stmt.c's emit_stmt() makes where
 * kplan_spec.c's d_kplan_kspec() holds; cgen_plan.c's dispatch calls
 * these emitters, the area started first, an ID's fault routed to the
 * site's bits and the clause's end, as a lost clock's).
 *
 * The words: one array map entry (cgspec, key 0) of nspec u64, read by
 * direct address (BPF_PSEUDO_MAP_VALUE, ldmapv()).  Word ID - 1: bit 0
 * the buffer active, bits 1-63 a count of speculate()s that only grows
 * (2^62 of them: never reached).  Each step is one atomic instruction
 * (BPF_ATOMIC with BPF_FETCH, Linux 5.12), so no hit takes a lock or
 * waits on another, whatever runs beside it on other CPUs or nested on
 * its own (lock-free: x86's JIT makes fetch_add one locked xadd, but
 * fetch_or and fetch_and a cmpxchg loop, which retries only when
 * another CPU changed the word meanwhile):
 *  - take (speculation()): fetch_or(1) on word 0, 1, ... nspec - 1,
 *    unrolled, stopping at the first whose old bit 0 was clear (an
 *    active word's fetch_or changes nothing): the ID is i + 1 and the
 *    generation opens at the old count; none, ID 0 (a failed
 *    speculation);
 *  - step (speculate(ID)): ID 0 does nothing; an ID past nspec, as an
 *    unsigned compare of ID - 1 (negative IDs included), jumps to the
 *    caller's fault (DTrace's illegal operation); else fetch_add(2): the
 *    record's sequence is the old count, and the old bit 0 says whether
 *    the buffer was active;
 *  - close (commit(ID), discard(ID)): the same tests, then
 *    fetch_and(~1): the hit that found bit 0 set closed the generation,
 *    whose records are the sequences from its open to the old count.
 * The word's offset is (ID - 1) << 3: a shift, not a multiplication, so
 * the verifier knows its low three bits (atomics are checked for
 * alignment strictly) and its range [0, 8 (nspec - 1)] from the bound
 * test.  The operand (1, 2, ~1) is in a register: a BPF atomic takes
 * its operand from one, its imm is the operation.
 *
 * Each step writes its tag, a struct ubpf_kspec, at tagoff in the out
 * area (S_OBUF, which the caller has started: cgen_out_need()):
 * speculation() {ID or 0, REACHED, the open count}; speculate() {ID,
 * REACHED | the old bit 0, the sequence}, speculate(0) {0, REACHED, 0};
 * a close {ID, REACHED | the old bit 0, the old count}.  It sets its
 * clause's ran bit (bit), UBPF_KOUT_SPEC and, for a close that found
 * the buffer active, UBPF_KOUT_CLOSE in the area's ran word, and
 * S_FLAGS_REC (the hit writes its record), as cgen_out.c's ran_fault()
 * does for a fault.  A fault jumps before anything is written.
 *
 * Registers: the ID comes in r1 (the caller pops it), speculation()'s
 * ID goes out in r1 (the caller pushes it); r1-r5 clobbered.  Only
 * cgen_impl.h's inline emitters are used, so tests/unit/t-cgspec.c
 * links this file alone and runs its steps in the kernel.
 */
#include "config.h"

#include "cgen_impl.h"

/* the tag {r4, r3, r1} at tagoff, and the ran word's bits: the clause's,
 * SPEC, and with close CLOSE where r3's bit 0 is set; S_FLAGS_REC */
static void spec_tag(struct em *e, int16_t tagoff, unsigned bit, bool close)
{
	size_t j;

	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_W, 2, (int16_t)(tagoff + offsetof(struct ubpf_kspec, id)),
	    4);
	stx(e, BPF_W, 2, (int16_t)(tagoff + offsetof(struct ubpf_kspec, act)),
	    3);
	stx(e, BPF_DW, 2, (int16_t)(tagoff + offsetof(struct ubpf_kspec, n)),
	    1);
	ldx(e, BPF_DW, 1, 2, 0);
	ld64(e, 5, (1ull << bit) | UBPF_KOUT_SPEC);
	alu_r(e, BPF_OR, 1, 5);
	if (close) {
		alu_i(e, BPF_AND, 3, UBPF_KSPEC_ACTIVE);
		j = jmp_i(e, BPF_JEQ, 3, 0);
		ld64(e, 5, UBPF_KOUT_CLOSE);
		alu_r(e, BPF_OR, 1, 5);
		fix(e, j);
	}
	stx(e, BPF_DW, 2, 0, 1);
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_OR, 1, S_FLAGS_REC);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
}

static bool spec_ok(struct em *e, unsigned nspec, int16_t tagoff, unsigned bit)
{
	if (!nspec || nspec > UBPF_KSPECS || bit >= UBPF_KOUTS ||
	    tagoff < (int16_t)sizeof(struct ubpf_kout) ||
	    tagoff + sizeof(struct ubpf_kspec) > UBPF_KOUTMAX || tagoff % 8) {
		e->bad = true;
		return false;
	}
	return true;
}

void cgen_spec_take(struct em *e, int words, unsigned nspec, int16_t tagoff,
		    unsigned bit)
{
	size_t jf[UBPF_KSPECS];

	if (!spec_ok(e, nspec, tagoff, bit))
		return;
	ldmapv(e, 2, words, 0);
	for (unsigned i = 0; i < nspec; i++) {
		alu_i(e, BPF_MOV, 4, (int32_t)i + 1);
		alu_i(e, BPF_MOV, 1, 1);
		put(e, BPF_STX | BPF_ATOMIC | BPF_DW, 2, 1, (int16_t)(8 * i),
		    BPF_OR | BPF_FETCH);
		alu_r(e, BPF_MOV, 3, 1);
		alu_i(e, BPF_AND, 3, 1);
		jf[i] = jmp_i(e, BPF_JEQ, 3, 0);
	}
	/* every buffer active: a failed speculation, {0, REACHED, 0} */
	alu_i(e, BPF_MOV, 4, 0);
	alu_i(e, BPF_MOV, 1, 0);
	for (unsigned i = 0; i < nspec; i++)
		fix(e, jf[i]);
	alu_i(e, BPF_RSH, 1, 1);
	alu_i(e, BPF_MOV, 3, UBPF_KSPEC_REACHED);
	spec_tag(e, tagoff, bit, false);
	alu_r(e, BPF_MOV, 1, 4);
}

/* speculate() (close false) or commit()/discard() of the ID in r1 */
static void spec_word(struct em *e, int words, unsigned nspec, int16_t tagoff,
		      unsigned bit, bool close, size_t *jfault)
{
	size_t jz, jd;

	*jfault = SIZE_MAX;
	if (!spec_ok(e, nspec, tagoff, bit))
		return;
	alu_r(e, BPF_MOV, 4, 1);
	jz = jmp_i(e, BPF_JEQ, 1, 0);
	alu_i(e, BPF_SUB, 1, 1);
	*jfault = jmp_i(e, BPF_JGE, 1, (int32_t)nspec);
	alu_i(e, BPF_LSH, 1, 3);
	ldmapv(e, 2, words, 0);
	alu_r(e, BPF_ADD, 2, 1);
	alu_i(e, BPF_MOV, 3, close ? ~1 : 2);
	put(e, BPF_STX | BPF_ATOMIC | BPF_DW, 2, 3, 0,
	    (close ? BPF_AND : BPF_ADD) | BPF_FETCH);
	alu_r(e, BPF_MOV, 1, 3);
	alu_i(e, BPF_RSH, 1, 1);
	alu_i(e, BPF_AND, 3, UBPF_KSPEC_ACTIVE);
	alu_i(e, BPF_OR, 3, UBPF_KSPEC_REACHED);
	jd = jmp_i(e, BPF_JA, 0, 0);
	/* ID 0: nothing stepped, {0, REACHED, 0} (r4 is 0) */
	fix(e, jz);
	alu_i(e, BPF_MOV, 1, 0);
	alu_i(e, BPF_MOV, 3, UBPF_KSPEC_REACHED);
	fix(e, jd);
	spec_tag(e, tagoff, bit, close);
}

void cgen_spec_step(struct em *e, int words, unsigned nspec, int16_t tagoff,
		    unsigned bit, size_t *jfault)
{
	spec_word(e, words, nspec, tagoff, bit, false, jfault);
}

void cgen_spec_close(struct em *e, int words, unsigned nspec, int16_t tagoff,
		     unsigned bit, size_t *jfault)
{
	spec_word(e, words, nspec, tagoff, bit, true, jfault);
}
