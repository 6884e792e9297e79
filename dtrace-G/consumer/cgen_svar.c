// SPDX-License-Identifier: MIT
/*
 * cgen_svar.c - a plan's string variables, execname and literals as
 * code: their compares, lengths and keys, part of stage 2 of a
 * generated program (cgen_plan.c, whose cgen_plan() calls each).  The
 * variables' copies are cgen_out.c's (SSTR, SLIT, SMOV, SCLR), the
 * argument strings' cgen_sarg.c's.
 *
 * VSEQ compares a self-> or
 * this-> string's bytes there
 * with its literal as SEQ compares an argument's copy (vseq()),
 * VVEQ a self-> one's with another's (vveq()), VACMP one with
 * an argument's copy, which seq_read() completed to the form the
 * variable's copy has (vacmp(): a fault site as SEQ's; an
 * order, < <= > >=, both copied zero-padded into cgbuf and
 * ordered as VVCMP's: vacmp_ord(); VSEQ's order with its literal
 * so too, vseq_ord()); VSLEN
 * measures them (vslen()); a this-> one the plan never stores reads ""
 * (svar_at()).  VKEY copies one's bytes into a key of kaggs_v
 * built in cgbuf (vkey(): the room zeroed, then the string's len
 * bytes), which AGG flagged UBPF_KF_VKEY then uses (cgen_agg.c's
 * agg_at(), kaggs_w where the string is short); VVCMP copies
 * two so and compares them in strcmp()'s order (vvcmp()).  CKEY
 * and LKEY write execname (bpf_get_current_comm(), cut to
 * strsize - 1 bytes) or a literal (of two, by a popped value:
 * a ?: of literals) into that key (ckey(), lkey()); CWKEY
 * writes execname's 16 bytes into two words of a kaggs_s key
 * beside an argument's string (cwkey());
 * CCMP compares
 * execname, on the stack at S_COMM, with a literal as padded
 * words (ccmp()), CVCMP with a string variable, both copied
 * zero-padded into cgbuf as VVCMP's (cvcmp()): kplan_str.c's
 * "execname and literals".
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

/*
 * r0 = the address of string variable o's struct ubpf_kostr (o->n,
 * o->slot), or 0 when it reads "": a self-> one's cgtlss entry (fds[8];
 * none when never set or cleared), a this-> one's TSTR_AT(slot) in
 * cgbuf when its len is not 0 (cgen_out_need() zeroed it where the
 * area started).  A this-> one the plan never stores (SSTR, SLIT, SMOV,
 * SCLR) is unset in every firing of the probe and reads "" (0): its
 * clause may have no out area (cgen_out_bytes()), so no S_OBUF, and
 * one the plan stores has one, the storing clause's; where no clause
 * of the hit started the area yet (S_OBUF 0), none stored it: "".
 */
static void svar_at(struct em *e, const struct ubpf_kplan *pl,
		    const struct ubpf_kop *o, const int *fds)
{
	bool set = false;
	size_t j, jnone = SIZE_MAX;

	if (o->n == UBPF_KV_SELF) {
		if (fds[8] < 0) {
			e->bad = true;
			return;
		}
		cgen_tlss_call(e, o->slot, fds[8], BPF_FUNC_map_lookup_elem);
		return;
	}
	if (o->n != UBPF_KV_THIS || o->slot >= UBPF_KTSTR) {
		e->bad = true;
		return;
	}
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *s = &pl->ops[pc];

		set |= (s->op == UBPF_K_SSTR || s->op == UBPF_K_SLIT ||
			s->op == UBPF_K_SMOV || s->op == UBPF_K_SCLR ||
			s->op == UBPF_K_SCOMM) &&
		       s->n == UBPF_KV_THIS && s->slot == o->slot;
	}
	alu_i(e, BPF_MOV, 0, 0);
	if (!set || !e->oany) /* no store, or none before: S_OBUF 0 */
		return;
	if (!cgen_out_bytes(pl) || !e->obytes) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 1, 10, S_OBUF);
	if (!e->ostarted)
		jnone = jmp_i(e, BPF_JEQ, 1, 0);
	alu_i(e, BPF_ADD, 1, TSTR_AT(o->slot) - (int32_t)e->obase);
	ldx(e, BPF_W, 2, 1, (int16_t)offsetof(struct ubpf_kostr, len));
	j = jmp_i(e, BPF_JEQ, 2, 0);
	alu_r(e, BPF_MOV, 0, 1);
	fix(e, j);
	if (jnone != SIZE_MAX)
		fix(e, jnone);
}

static void vseq_ord(struct em *e, const struct ubpf_kplan *pl,
		     const struct ubpf_kop *o, const int *fds);

/*
 * r1 = VSEQ pl->ops[*pc]'s result: the self-> or this-> string
 * variable's bytes (svar_at(): a struct ubpf_kostr its SSTR filled)
 * against the literal of the SDATA that follow, as seq() compares an
 * argument's: the len its copy kept (NUL included: kplan_str.c's
 * kp_svar_lit() keeps the literal shorter than a copy that filled the
 * variable) is the literal's plus one, and the bytes before the NUL
 * the literal's.  One unset (no entry; a this-> len of 0) reads
 * "", as run.c's var_get() does.  Flagged UBPF_KF_PRES (a self->
 * format-time variable with "", ../kplan_fkey.c), whether the entry is
 * absent, its bytes unread.  No fault: the store read the string.
 * *pc is left on the last SDATA.
 */
void vseq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	  const int *fds)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	struct seq_lit l = { .d = &pl->ops[*pc + 1] };
	unsigned len = o->step;
	size_t jnone;

	if (len > UBPF_KSTRMAX || *pc + 1 + (len + 8) / 8 > pl->nops) {
		e->bad = true;
		return;
	}
	if (o->agg) {
		vseq_ord(e, pl, o, fds);
		*pc += (len + 8) / 8;
		return;
	}
	if (o->flags & UBPF_KF_PRES) {
		/* a self-> format-time variable with "": unset, its
		 * entry absent (set, it is never "": ../kplan_fkey.c) */
		if (len || o->n != UBPF_KV_SELF) {
			e->bad = true;
			return;
		}
		svar_at(e, pl, o, fds);
		alu_i(e, BPF_MOV, 1, 1);
		jnone = jmp_i(e, BPF_JEQ, 0, 0);
		alu_i(e, BPF_MOV, 1, 0);
		fix(e, jnone);
		if (o->flags & UBPF_KF_NEG)
			alu_i(e, BPF_XOR, 1, 1);
		*pc += (len + 8) / 8;
		return;
	}
	svar_at(e, pl, o, fds);
	alu_i(e, BPF_MOV, 1, len == 0);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	l.jf = xcalloc(len / 8 + 5, sizeof(*l.jf));
	alu_i(e, BPF_MOV, 1, 0);
	alu_r(e, BPF_MOV, 2, 0);
	ldx(e, BPF_W, 3, 2, (int16_t)offsetof(struct ubpf_kostr, len));
	l.jf[l.njf++] = jmp_i(e, BPF_JNE, 3, (int32_t)len + 1);
	str_chunks_at(e, 2, (int32_t)offsetof(struct ubpf_kostr, s), len,
		      seq_chunk, &l);
	alu_i(e, BPF_MOV, 1, 1);
	for (size_t i = 0; i < l.njf; i++)
		fix(e, l.jf[i]);
	free(l.jf);
	fix(e, jnone);
	if (o->flags & UBPF_KF_NEG)
		alu_i(e, BPF_XOR, 1, 1);
	*pc += (len + 8) / 8;
}

/*
 * r1 = the length of the string in the struct ubpf_kostr at r0 (not 0),
 * a variable's copy of at most imm bytes (strsize - 1): its len less the
 * NUL when the copy ended before imm bytes, else imm, or imm - 1 when
 * the last byte, read again on its own, is the string's NUL
 * (cgen_out.c's ostr_at()).  r2 taken.
 */
static void kostr_len(struct em *e, int64_t imm)
{
	size_t jshort, jnul;

	ldx(e, BPF_W, 1, 0, (int16_t)offsetof(struct ubpf_kostr, len));
	jshort = jmp_i(e, BPF_JNE, 1, (int32_t)imm);
	ldx(e, BPF_B, 2, 0,
	    (int16_t)(offsetof(struct ubpf_kostr, s) + (size_t)imm - 1));
	alu_i(e, BPF_MOV, 1, (int32_t)imm + 1);
	jnul = jmp_i(e, BPF_JNE, 2, 0);
	alu_i(e, BPF_MOV, 1, (int32_t)imm);
	fix(e, jnul);
	fix(e, jshort);
	alu_i(e, BPF_SUB, 1, 1); /* the NUL */
}

/*
 * r1 = VSLEN o: strlen() of the self-> or this-> string variable, from
 * the copy its SSTR kept (svar_at(), kostr_len()).  One unset reads "":
 * 0.
 */
void vslen(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds)
{
	size_t jnone;

	if (o->imm < 1 || o->imm > UBPF_STRMAX - 1) {
		e->bad = true;
		return;
	}
	svar_at(e, pl, o, fds);
	alu_i(e, BPF_MOV, 1, 0);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	kostr_len(e, o->imm);
	fix(e, jnone);
}

/*
 * SCHR o: s[i] = c into the this-> string variable (svar_at()), i
 * o->agg and c o->step, constants: r1 its length (kostr_len()); where i is below it, byte i = c, and a NUL there cuts the string
 * at i (len i + 1, the NUL counted, as a copy that ended there has
 * it); else nothing, as run.c's str_store() does past the string (the
 * plan has SCHR only where i == the length with c not 0, a fault
 * there, cannot be: kplan_svar.c's "Characters stored").  One unset
 * (r0 0) is left so: the plan's proof says it is set.  No fault.
 */
void schr(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	  const int *fds)
{
	size_t jnone, jpast;

	if (o->n != UBPF_KV_THIS || o->imm < 1 || o->imm > UBPF_STRMAX - 1 ||
	    o->agg >= o->imm || o->step > 0xff) {
		e->bad = true;
		return;
	}
	svar_at(e, pl, o, fds);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	kostr_len(e, o->imm);
	jpast = jmp_i(e, BPF_JLE, 1, (int32_t)o->agg);
	st(e, BPF_B, 0, (int16_t)(offsetof(struct ubpf_kostr, s) + o->agg),
	   (int32_t)o->step);
	if (!o->step)
		st(e, BPF_W, 0, (int16_t)offsetof(struct ubpf_kostr, len),
		   (int32_t)o->agg + 1);
	fix(e, jpast);
	fix(e, jnone);
}

/*
 * Register r, holding a string's length loaded from its S_SLEN slot
 * (seq_read()'s: 0 to UBPF_STRMAX, a fault sent away before), ANDed
 * with UBPF_STRMAX * 2 - 1: its value the same, but an ALU result,
 * which the verifier gives an id of its own, so a test of r splits
 * r's range alone.  A register filled from a stack slot shares the
 * slot's id, and the verifier narrows both at each test (its linked
 * scalars): cmp_words()' test per word would leave the slot a range
 * per word on each path, and a later use of it as a helper's size
 * (vacmp_ord()'s copy), which makes it precise, keeps the verifier
 * from pruning those paths: every clause after a string == was
 * verified once per word (tests/run-cgen-svkey.sh's tord.d at strsize
 * 256: 184,327 instructions, most of them that).
 */
static void lenmask(struct em *e, uint8_t r)
{
	alu_i(e, BPF_AND, r, UBPF_STRMAX * 2 - 1);
}

/*
 * The first r3 bytes (len, 1 or more) of the strings at r2 + a and
 * r0 + b compared a word at a time, for words words, unrolled: the
 * word len ends in masked to its low bytes (past a NUL lies whatever
 * an earlier copy left).  A difference jumps from jne (appended at
 * *nne), the end of len from jeq (at *neq); falling out of the last
 * word is equal too, for the caller to jump.  vveq()'s and vacmp()'s.
 * r1, r4, r5 are taken.
 */
static void cmp_words(struct em *e, unsigned words, int32_t a, int32_t b,
		      size_t *jeq, unsigned *neq, size_t *jne, unsigned *nne)
{
	for (unsigned i = 0; i < words; i++) {
		size_t jfull;

		if (i)
			jeq[(*neq)++] = jmp_i(e, BPF_JLE, 3, (int32_t)(8 * i));
		ldx(e, BPF_DW, 4, 2, (int16_t)(a + 8 * (int32_t)i));
		ldx(e, BPF_DW, 5, 0, (int16_t)(b + 8 * (int32_t)i));
		alu_r(e, BPF_XOR, 4, 5);
		jfull = jmp_i(e, BPF_JGE, 3, (int32_t)(8 * i + 8));
		/* len - 8i (1 to 7) bytes of this word: the low ones */
		alu_r(e, BPF_MOV, 5, 3);
		alu_i(e, BPF_SUB, 5, (int32_t)(8 * i));
		alu_i(e, BPF_LSH, 5, 3);
		alu_i(e, BPF_MOV, 1, 1);
		alu_r(e, BPF_LSH, 1, 5);
		alu_i(e, BPF_SUB, 1, 1);
		alu_r(e, BPF_AND, 4, 1);
		jne[(*nne)++] = jmp_i(e, BPF_JNE, 4, 0);
		jeq[(*neq)++] = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jfull);
		jne[(*nne)++] = jmp_i(e, BPF_JNE, 4, 0);
	}
}

/*
 * r1 = cmp_words()'s verdict: 0 where one of the nne jumps at jne
 * lands (a difference), 1 where one of the neq at jeq does (equal),
 * the two joined after.  vveq()'s and vacmp()'s epilogue, and
 * cgen_plan.c's progx()'s.
 */
void cmp_result(struct em *e, const size_t *jeq, unsigned neq,
		const size_t *jne, unsigned nne)
{
	size_t j;

	for (unsigned i = 0; i < nne; i++)
		fix(e, jne[i]);
	alu_i(e, BPF_MOV, 1, 0);
	j = jmp_i(e, BPF_JA, 0, 0);
	for (unsigned i = 0; i < neq; i++)
		fix(e, jeq[i]);
	alu_i(e, BPF_MOV, 1, 1);
	fix(e, j);
}

/*
 * r1 = VVEQ o: the self-> string variables o->slot and o->step (their
 * cgtlss entries, fds[8], each a struct ubpf_kostr an SSTR, SLIT or
 * SMOV filled) equal: the same len (a string has one: the NUL's
 * included below o->imm bytes, strsize - 1, else imm with the last
 * byte read again, cgen_out.c's ostr_at()) and the same first len
 * bytes, compared a word at a time for as many words as imm bytes
 * take, the last word masked to the bytes len leaves in it (what lies
 * past the NUL is whatever an earlier copy left there); no loop.  An
 * entry absent (never set, or cleared) reads "", as run.c's var_get()
 * has it: equal to another absent or to one whose len is 1.
 */
void vveq(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t sb = (int32_t)offsetof(struct ubpf_kostr, s);
	int16_t lo = (int16_t)offsetof(struct ubpf_kostr, len);
	unsigned words = (unsigned)(o->imm + 7) / 8, nne = 0, neq = 0;
	size_t jna, jnb, j, jend[3], *jne, *jeq;

	if (o->n != UBPF_KV_SELF || fds[8] < 0 || o->imm < 1 ||
	    o->imm > UBPF_STRMAX - 1) {
		e->bad = true;
		return;
	}
	jne = xcalloc(2 * (size_t)words + 2, sizeof(*jne));
	jeq = xcalloc(2 * (size_t)words + 2, sizeof(*jeq));
	cgen_tlss_call(e, o->slot, fds[8], BPF_FUNC_map_lookup_elem);
	jna = jmp_i(e, BPF_JEQ, 0, 0);
	stx(e, BPF_DW, 10, S_VVAL, 0); /* the first entry, over the call */
	cgen_tlss_call(e, o->step, fds[8], BPF_FUNC_map_lookup_elem);
	ldx(e, BPF_DW, 2, 10, S_VVAL);
	ldx(e, BPF_W, 3, 2, lo);
	jnb = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 4, 0, lo);
	jne[nne++] = jmp_r(e, BPF_JNE, 3, 4);
	cmp_words(e, words, sb, sb, jeq, &neq, jne, &nne);
	jeq[neq++] = jmp_i(e, BPF_JA, 0, 0);
	/* the second absent: equal when the first is "" */
	fix(e, jnb);
	alu_i(e, BPF_MOV, 1, 0);
	j = jmp_i(e, BPF_JNE, 3, 1);
	alu_i(e, BPF_MOV, 1, 1);
	fix(e, j);
	jend[0] = jmp_i(e, BPF_JA, 0, 0);
	/* the first absent: equal when the second is absent or "" */
	fix(e, jna);
	cgen_tlss_call(e, o->step, fds[8], BPF_FUNC_map_lookup_elem);
	alu_i(e, BPF_MOV, 1, 1);
	jend[1] = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 3, 0, lo);
	alu_i(e, BPF_MOV, 1, 0);
	j = jmp_i(e, BPF_JNE, 3, 1);
	alu_i(e, BPF_MOV, 1, 1);
	fix(e, j);
	jend[2] = jmp_i(e, BPF_JA, 0, 0);
	cmp_result(e, jeq, neq, jne, nne);
	for (unsigned i = 0; i < 3; i++)
		fix(e, jend[i]);
	free(jne);
	free(jeq);
	if (o->flags & UBPF_KF_NEG)
		alu_i(e, BPF_XOR, 1, 1);
}

static void vacmp_ord(struct em *e, const struct ubpf_kplan *pl,
		      const struct ubpf_kop *o, unsigned j, const int *fds);

/*
 * r1 = VACMP o: the string variable (o->levels its kind, o->slot;
 * svar_at()) == copyinstr(argument o->n) (UBPF_KF_NEG: !=), the
 * argument's string as seq_read() copied it.  A fault site (o->agg)
 * whose string could not be read sets its bits and jumps to its
 * clause's end, as seq()'s.  The copy is then the string as
 * copyinstr() gives it in the form an SSTR's copy has (cgen_out.c's
 * ostr_at()): its len the helper's count, the NUL's included, below
 * o->imm bytes (strsize - 1); else o->imm, its last byte the string's
 * own (seq_read() read it again with fault sites; without, the copy
 * went on to UBPF_STRMAX bytes and the count is cut to imm, the cut
 * copyinstr() makes), a NUL or not.  One string has one such form,
 * the variable's as the argument's, so the two are equal when their
 * lens are and their first len bytes, compared as vveq() compares
 * two variables: a word at a time for the words imm bytes take, the
 * word len ends in masked to its low bytes (past the NUL lies what an
 * earlier copy left).  A variable unset (no entry; a this-> len of 0)
 * reads "", equal to an argument's "" (len 1).
 */
void vacmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds)
{
	struct ubpf_kop v = { .n = (uint8_t)o->levels,
			      .slot = o->slot,
			      .imm = o->imm };
	int32_t sb = (int32_t)offsetof(struct ubpf_kostr, s);
	unsigned words = (unsigned)(o->imm + 7) / 8, j, nne = 0, neq = 0;
	size_t jnone, jcut, jend, jx, *jne, *jeq;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || o->imm < 1 || o->imm > UBPF_STRMAX - 1 ||
	    (o->agg && (!e->rbarg[j] || pl->fstr != o->imm))) {
		e->bad = true;
		return;
	}
	if (o->agg) /* a fault site: one unread ends the clause */
		fault_at(e, j, o->agg);
	if (o->step) {
		vacmp_ord(e, pl, o, j, fds);
		return;
	}
	svar_at(e, pl, &v, fds);
	if (e->bad)
		return;
	jne = xcalloc(2 * (size_t)words + 2, sizeof(*jne));
	jeq = xcalloc(2 * (size_t)words + 2, sizeof(*jeq));
	/* r3 = the argument's len, cut to imm; unlinked from its slot
	 * (lenmask()), as the words' tests split its range */
	ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
	lenmask(e, 3);
	jcut = jmp_i(e, BPF_JLE, 3, (int32_t)o->imm);
	alu_i(e, BPF_MOV, 3, (int32_t)o->imm);
	fix(e, jcut);
	/* the variable unset: equal to "" (len 1) */
	alu_i(e, BPF_MOV, 1, 0);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 4, 0, (int16_t)offsetof(struct ubpf_kostr, len));
	jne[nne++] = jmp_r(e, BPF_JNE, 3, 4);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	cmp_words(e, words, SEQ_AT(j), sb, jeq, &neq, jne, &nne);
	jeq[neq++] = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jnone);
	jx = jmp_i(e, BPF_JNE, 3, 1);
	alu_i(e, BPF_MOV, 1, 1);
	fix(e, jx);
	jend = jmp_i(e, BPF_JA, 0, 0);
	cmp_result(e, jeq, neq, jne, nne);
	fix(e, jend);
	free(jne);
	free(jeq);
	if (o->flags & UBPF_KF_NEG)
		alu_i(e, BPF_XOR, 1, 1);
}

/* r2 = the key buffer (S_SBUF), its room of room bytes at at zeroed */
static void room_zero(struct em *e, int32_t at, unsigned room)
{
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 2, (int16_t)(at + (int32_t)i), 0);
}

/*
 * String variable v's bytes (svar_at(): the struct ubpf_kostr its store
 * filled, v->n its kind, v->imm strsize - 1) into cgbuf at at (S_SBUF,
 * cgen_plan()'s), NUL-padded: UBPF_KVROOM(imm) bytes zeroed first,
 * then its first len (a copy that ended early: its NUL's included; one
 * of imm bytes, strsize - 1: its last read again, maybe a NUL,
 * cgen_out.c's ostr_at()), so the bytes past the string are 0
 * whatever an earlier copy left past its NUL: one string, one copy,
 * nothing of it cut.  One unset (absent, a this-> len of 0) is "":
 * every byte 0; but flagged UBPF_KF_PRES (a self-> format-time
 * variable's key, ../kplan_fkey.c), an absent one's byte 1 is 1, which
 * no string's is after a NUL at byte 0, so the merge tells it from a
 * leaf "" stored.  No fault.
 */
static void svar_copy(struct em *e, const struct ubpf_kplan *pl,
		      const struct ubpf_kop *v, int32_t at, const int *fds)
{
	/* (v->step: a longer room to zero, the map's: VKEY's) */
	unsigned room = UBPF_KVROOM(v->step > v->imm ? v->step : v->imm);
	size_t jnone, jbig;

	if (v->imm < 1 || v->imm > UBPF_STRMAX - 1 || room > UBPF_KVROOMMAX ||
	    !e->vbuf || (v->n != UBPF_KV_SELF && v->n != UBPF_KV_THIS)) {
		e->bad = true;
		return;
	}
	room_zero(e, at, room);
	svar_at(e, pl, v, fds);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)offsetof(struct ubpf_kostr, s));
	ldx(e, BPF_W, 2, 0, (int16_t)offsetof(struct ubpf_kostr, len));
	jbig = jmp_i(e, BPF_JGT, 2, (int32_t)v->imm); /* none: bounds */
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, at);
	call(e, BPF_FUNC_probe_read_kernel);
	if (v->flags & UBPF_KF_PRES) { /* absent: marked */
		size_t jdone = jmp_i(e, BPF_JA, 0, 0);

		fix(e, jnone);
		if (v->n != UBPF_KV_SELF)
			e->bad = true;
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		st(e, BPF_B, 2, (int16_t)(at + 1), 1);
		fix(e, jdone);
	} else {
		fix(e, jnone);
	}
	fix(e, jbig);
}

/*
 * Where kaggs_v key instruction o (VKEY, CKEY, LKEY, MKEY) writes its
 * string, room bytes: the key's s in cgbuf's key room (e->vkoff, past
 * the owner word: cgen.c's cg_room_off()), or o->sz words into it, a
 * pair's second string (kplan_expr.c's vkey_room(), UBPF_KF_VPAIR), its
 * room after the first's, or a third's after the second's (kplan.c's
 * vkey_third(): the keys' instructions come in their order, so its
 * offset is the greater); all within s (UBPF_KVROOMMAX bytes: kplan.c's
 * vkey_pair()), else the program is refused.
 */
static int32_t vkey_at(struct em *e, const struct ubpf_kop *o, unsigned room)
{
	unsigned off = 8u * o->sz;

	if (off + room > UBPF_KVROOMMAX || !e->vkoff)
		e->bad = true;
	if (o->sz && e->vp1 && off > e->vp1) {
		/* a third room: kaggs_x's short key holds two */
		e->vp3 = true;
	} else if (o->sz) { /* a pair's second room: where, its bytes */
		e->vp1 = off;
		e->vp2 = UBPF_KVROOM(o->imm);
	}
	return e->vkoff + (int32_t)sizeof(struct ubpf_kkey) + (int32_t)off;
}

/* VKEY o: the string variable's bytes (o->levels its kind) into the
 * kaggs_v key in cgbuf (svar_copy(), vkey_at()), the map's room zeroed
 * (o->step where longer than its own: a pair's elsewhere) */
void vkey(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	  const int *fds)
{
	struct ubpf_kop v = { .n = (uint8_t)o->levels,
			      .slot = o->slot,
			      .imm = o->imm,
			      .step = o->step,
			      .flags = o->flags & UBPF_KF_PRES };
	int32_t at =
		vkey_at(e, o, UBPF_KVROOM(o->step > o->imm ? o->step : o->imm));

	if (!e->bad)
		svar_copy(e, pl, &v, at, fds);
}

/*
 * r1 = the truth of a OP b (agg's numbering, VVCMP's: 0 ==, 1 !=, 2 <,
 * 3 >, 4 <=, 5 >=), a and b zero-padded strings of words words at
 * register base + ra and + rb (base r2 holding cgbuf, or r10: the
 * stack), or, lw given, b the literal words lw[] (immediates);
 * strcmp()'s order (unsigned bytes): the first word that differs
 * decides, its bytes made big-endian (BPF_END) and compared unsigned;
 * unrolled, no loop.
 */
static void padded_cmp(struct em *e, uint8_t base, int32_t ra, int32_t rb,
		       const uint64_t *lw, unsigned words, unsigned op)
{
	static const uint8_t jop[] = { BPF_JEQ,	 BPF_JNE,  BPF_JSLT,
				       BPF_JSGT, BPF_JSLE, BPF_JSGE };
	size_t *jd, jeq, j;
	unsigned nd = 0;

	jd = xcalloc((size_t)words + 1, sizeof(*jd));
	for (unsigned i = 0; i < words; i++) {
		ldx(e, BPF_DW, 4, base, (int16_t)(ra + 8 * (int)i));
		if (lw)
			ld64(e, 5, lw[i]);
		else
			ldx(e, BPF_DW, 5, base, (int16_t)(rb + 8 * (int)i));
		jd[nd++] = jmp_r(e, BPF_JNE, 4, 5);
	}
	alu_i(e, BPF_MOV, 1, 0); /* equal */
	jeq = jmp_i(e, BPF_JA, 0, 0);
	for (unsigned i = 0; i < nd; i++)
		fix(e, jd[i]);
	put(e, BPF_ALU | BPF_END | BPF_TO_BE, 4, 0, 0, 64);
	put(e, BPF_ALU | BPF_END | BPF_TO_BE, 5, 0, 0, 64);
	alu_i(e, BPF_MOV, 1, 1);
	j = jmp_r(e, BPF_JGT, 4, 5);
	alu_i(e, BPF_MOV, 1, -1);
	fix(e, j);
	fix(e, jeq);
	free(jd);
	/* r1 = strcmp()'s sign: the comparison's truth */
	alu_i(e, BPF_MOV, 3, 1);
	j = jmp_i(e, jop[op], 1, 0);
	alu_i(e, BPF_MOV, 3, 0);
	fix(e, j);
	alu_r(e, BPF_MOV, 1, 3);
}

/*
 * r1 = VVCMP o: the string variables a (o->n, o->slot) and b
 * (o->levels, o->step), self-> or this-> each, compared in strcmp()'s
 * order (run.c's binop(): unsigned bytes) by o->agg (0 ==, 1 !=, 2 <,
 * 3 >, 4 <=, 5 >=).  Each is copied zero-padded into its room in cgbuf
 * (svar_copy(), as VKEY's key: its bytes, "" when unset, the rest 0),
 * and the NUL is 0 and sorts below every byte, so the padded copies'
 * words compare as the strings do: word i of both, for as many words
 * as imm bytes (strsize - 1) take, unrolled (no loop, no branch but
 * the one leaving at the first word that differs, whose bytes, made
 * big-endian (BPF_END), compare unsigned).  No fault: the stores read
 * the strings.
 */
void vvcmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds)
{
	struct ubpf_kop a = { .n = o->n, .slot = o->slot, .imm = o->imm };
	struct ubpf_kop b = { .n = (uint8_t)o->levels,
			      .slot = o->step,
			      .imm = o->imm };
	unsigned words = (unsigned)(o->imm + 7) / 8;

	if (o->agg > 5) {
		e->bad = true;
		return;
	}
	svar_copy(e, pl, &a, VCMP_AT(0), fds);
	svar_copy(e, pl, &b, VCMP_AT(1), fds);
	if (e->bad)
		return;
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	padded_cmp(e, 2, VCMP_AT(0), VCMP_AT(1), NULL, words, o->agg);
}

/*
 * r1 = VACMP o's order (o->step - 1, VVCMP's agg: 2 <, 3 >, 4 <=, 5
 * >=): the string variable (svar_copy() into VCMP_AT(0)) against the
 * argument j's string (seq_read()'s copy, a fault already sent away:
 * vacmp()), as copyinstr() gives it: its first len bytes, len the
 * helper's count (the NUL's included) cut to o->imm (strsize - 1: the
 * copy's bytes up to there are the string's, its last read again with
 * fault sites, seq_read()), into VCMP_AT(1), its room zeroed first, so
 * both are zero-padded strings of at most imm bytes and padded_cmp()
 * orders them as run.c's strcmp() orders the two.
 */
static void vacmp_ord(struct em *e, const struct ubpf_kplan *pl,
		      const struct ubpf_kop *o, unsigned j, const int *fds)
{
	struct ubpf_kop v = { .n = (uint8_t)o->levels,
			      .slot = o->slot,
			      .imm = o->imm };
	unsigned room = UBPF_KVROOM(o->imm);
	size_t jcut;

	if (o->step < 3 || o->step > 6 || (o->flags & UBPF_KF_NEG) ||
	    room > UBPF_STRMAX || e->sn) {
		e->bad = true;
		return;
	}
	svar_copy(e, pl, &v, VCMP_AT(0), fds);
	if (e->bad)
		return;
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 1, (int16_t)(VCMP_AT(1) + (int32_t)i), 0);
	alu_i(e, BPF_ADD, 1, VCMP_AT(1));
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j));
	jcut = jmp_i(e, BPF_JLE, 2, (int32_t)o->imm);
	alu_i(e, BPF_MOV, 2, (int32_t)o->imm);
	fix(e, jcut);
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, SEQ_AT(j));
	call(e, BPF_FUNC_probe_read_kernel);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	padded_cmp(e, 2, VCMP_AT(0), VCMP_AT(1), NULL, room / 8,
		   (unsigned)o->step - 1);
}

/* r1 = &cgbuf[at] (S_SBUF's) */
static void sbuf_at(struct em *e, uint8_t r, int32_t at)
{
	ldx(e, BPF_DW, r, 10, S_SBUF);
	alu_i(e, BPF_ADD, r, at);
}

/*
 * The literal of the SDATA at d, len bytes (len / 8 + 1 of them), as
 * words: word i, 0 past them (its NUL-padding)
 */
static uint64_t lit_word(const struct ubpf_kop *d, unsigned len, unsigned i)
{
	return i < len / 8 + 1 && d[i].op == UBPF_K_SDATA ? (uint64_t)d[i].imm
							  : 0;
}

/*
 * r1 = VSEQ o's order (o->agg - 1, VVCMP's agg: 2 <, 3 >, 4 <=, 5 >=):
 * the string variable (svar_copy() into VCMP_AT(0), zero-padded, at
 * most o->imm bytes: strsize - 1) against the literal of the SDATA
 * after o (o->step bytes, at most UBPF_KSTRMAX: kplan_str.c's
 * kp_svar_olit()), its words immediates, zero past its NUL, for the
 * words imm bytes take: padded_cmp(), strcmp()'s order.  A literal
 * longer than imm is compared up to byte imm, where the variable has
 * its NUL and the literal does not: the word holding that byte too (a
 * word past the room where imm fills it, zeroed here), so a variable
 * equal to the literal's first imm bytes orders below it.  No fault:
 * the store read the string.
 */
static void vseq_ord(struct em *e, const struct ubpf_kplan *pl,
		     const struct ubpf_kop *o, const int *fds)
{
	struct ubpf_kop v = { .n = o->n, .slot = o->slot, .imm = o->imm };
	unsigned room = UBPF_KVROOM(o->imm), nw = room / 8;
	uint64_t lw[UBPF_STRMAX / 8 + 1];

	if (o->agg < 3 || o->agg > 6 || (o->flags & UBPF_KF_NEG) ||
	    o->imm < 1 || o->imm > UBPF_STRMAX - 1 || o->step > UBPF_KSTRMAX ||
	    room > UBPF_STRMAX) {
		e->bad = true;
		return;
	}
	if (o->step > o->imm) /* a long literal: up to byte imm */
		nw = (unsigned)o->imm / 8 + 1;
	for (unsigned i = 0; i < nw; i++)
		lw[i] = lit_word(o + 1, o->step, i);
	svar_copy(e, pl, &v, VCMP_AT(0), fds);
	if (e->bad)
		return;
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = room / 8; i < nw; i++) /* past the room: 0 */
		st(e, BPF_DW, 2, (int16_t)(VCMP_AT(0) + 8 * (int32_t)i), 0);
	padded_cmp(e, 2, VCMP_AT(0), 0, lw, nw, (unsigned)o->agg - 1);
}

/*
 * r1 = SEQ o's comparison whole (o->levels - 1, VVCMP's agg: 0 ==, 1 !=,
 * 2 <, 3 >, 4 <=, 5 >=, the argument on the left): argument j's string
 * (seq_read()'s copy in cgbuf, a fault already sent away: seq()) as copyinstr()
 * gives it -- the helper's count, the NUL's included, cut to o->imm bytes
 * (strsize - 1: up to there the copy is the string's, its last byte
 * read again with fault sites, seq_read(), as VACMP's) -- against the
 * literal of the SDATA after o (o->step bytes, at most UBPF_KSTRMAX:
 * kplan_str.c's kp_str_cmp()), both zero-padded: padded_cmp(), strcmp()'s
 * order.  Only the words up to byte m are compared (nw), m the
 * literal's length or imm, the smaller: the literal has its NUL at its
 * length, the cut string (at most imm bytes) one at imm at the latest,
 * so where those words are equal both end there (equal: a literal
 * longer than imm never is), and else the first difference lies within
 * them.  So the copy into VCMP_AT(0) is of those words alone, zeroed
 * first, then the string's bytes up to its NUL, imm or the words' end,
 * whichever comes first.
 */
void seq_ord(struct em *e, const struct ubpf_kop *o, unsigned j)
{
	unsigned nw, cap;
	uint64_t lw[UBPF_KSTRMAX / 8 + 1];
	size_t jcut;

	if (o->levels < 1 || o->levels > 6 || (o->flags & UBPF_KF_NEG) ||
	    o->imm < 1 || o->imm > UBPF_STRMAX - 1 || o->step > UBPF_KSTRMAX ||
	    e->sn) {
		e->bad = true;
		return;
	}
	nw = (o->step < o->imm ? o->step : (unsigned)o->imm) / 8u + 1u;
	cap = 8 * nw < (unsigned)o->imm ? 8 * nw : (unsigned)o->imm;
	for (unsigned i = 0; i < nw; i++)
		lw[i] = lit_word(o + 1, o->step, i);
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	for (unsigned i = 0; i < nw; i++)
		st(e, BPF_DW, 1, (int16_t)(VCMP_AT(0) + 8 * (int32_t)i), 0);
	alu_i(e, BPF_ADD, 1, VCMP_AT(0));
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j));
	jcut = jmp_i(e, BPF_JLE, 2, (int32_t)cap);
	alu_i(e, BPF_MOV, 2, (int32_t)cap);
	fix(e, jcut);
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, SEQ_AT(j));
	call(e, BPF_FUNC_probe_read_kernel);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	padded_cmp(e, 2, VCMP_AT(0), 0, lw, nw, o->levels - 1u);
}

/*
 * CKEY o: execname into the kaggs_v key in cgbuf (vkey_at()): the room
 * (UBPF_KVROOM(o->imm), kplan_merge.c's kp_vkey_imm(): the map's) zeroed,
 * then bpf_get_current_comm() of o->step bytes (strsize's, 16 at
 * most), which copies the comm cut to one byte less and its NUL
 * (Linux 6.1's strscpy() pads no further, later ones' strscpy_pad()
 * do: the zeroed room pads it either way): the name at the hit, cut
 * as agg.c cuts a key (strsize - 1 bytes), every byte past it 0 (a
 * NUL past the room is no part of the key).
 */
void ckey(struct em *e, const struct ubpf_kop *o)
{
	unsigned room = UBPF_KVROOM(o->imm);
	int32_t sz = o->step;
	/* (the helper's NUL may fall past the room, strsize 9: no part
	 * of the key, a pair's second room rewritten after it) */
	int32_t at = vkey_at(e, o, room > (unsigned)sz ? room : (unsigned)sz);

	if (o->imm < 1 || o->imm > UBPF_KVROOMMAX - 1 || !e->vbuf || sz < 2 ||
	    sz > UBPF_KCOMM || e->bad) {
		e->bad = true;
		return;
	}
	room_zero(e, at, room);
	sbuf_at(e, 1, at);
	alu_i(e, BPF_MOV, 2, sz);
	call(e, BPF_FUNC_get_current_comm);
}

/*
 * AKEY o: argument o->slot's string, seq_read()'s copy of it in cgbuf,
 * into its room of the kaggs_v key at vkey_at() (o->sz words in where
 * it is a pair's second, as VKEY's), the room (UBPF_KVROOM() of imm,
 * or of step where the map's is longer) zeroed first: the copy's first
 * min(count, imm) bytes, count the helper's (the NUL's included), imm
 * strsize - 1, so the string as copyinstr() cuts it, its NUL copied
 * where it came before the cut.  Without fault sites the copy read
 * UBPF_STRMAX bytes at most and a string that cannot be read, or that
 * the copy cut, already sent the hit to user space whole
 * (cgen_fsites()): every byte up to the cut is the string's as
 * d_read_user_str() reads it, and a fault past the cut, which run.c
 * never reads, sends a hit it would not fault on, which runs it alike.
 * With them (o->agg its site + 1: kplan.c's fmode), the copy read
 * pl->fstr bytes (strsize - 1, as run.c reads) and its last again
 * (e->rbarg): a string that cannot be read sets the site's bits and
 * ends the clause (fault_at(), the jump cgen_plan() points at o->jump),
 * and one that filled the copy has all imm bytes there.
 */
void akey(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o)
{
	unsigned room = UBPF_KVROOM(o->step > o->imm ? o->step : o->imm), j;
	int32_t at = vkey_at(e, o, room);
	size_t jnone, jcut;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->slot; j++)
		;
	if (j >= e->nsarg || o->imm < 1 || o->imm > UBPF_STRMAX - 1 ||
	    !e->vbuf || e->sn || e->bad ||
	    (o->agg && (!e->rbarg[j] || pl->fstr != o->imm))) {
		e->bad = true;
		return;
	}
	if (o->agg) /* a fault site: one unread ends the clause */
		fault_at(e, j, o->agg);
	room_zero(e, at, room);
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j));
	jnone = jmp_i(e, BPF_JSLE, 2, 0); /* not reached: read, or away */
	jcut = jmp_i(e, BPF_JLE, 2, (int32_t)o->imm);
	alu_i(e, BPF_MOV, 2, (int32_t)o->imm);
	fix(e, jcut);
	sbuf_at(e, 1, at);
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, SEQ_AT(j));
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, jnone);
}

/*
 * LKEY pl->ops[*pc]: the literal's bytes (its SDATA, cut by kplan to
 * strsize - 1 bytes) into the kaggs_v key (vkey_at()), its room
 * (UBPF_KVROOM(o->imm), the map's) zeroed first; flagged UBPF_KF_SEL,
 * the value popped into r1 chooses: not 0 the first literal, else the
 * second (SEL's test).  The words past the room are the literal's
 * NUL-padding: not written.  *pc is left on the last SDATA.  Flagged
 * UBPF_KF_TAB (lkey_tab()): the first of o->agg LKEYs, each with its
 * SDATA, the popped value the number (levels) of the one written: a
 * test and a jump past the rest for each but the last, which is what
 * is left (kplan_expr.c's lit_leaf() pushes 0 to o->agg - 1 alone).
 */
static void lkey_tab(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		     unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	unsigned room = UBPF_KVROOM(o->imm), q = *pc;
	int32_t at = vkey_at(e, o, room);
	size_t jend[UBPF_KLEAVES];

	if (o->imm < 1 || o->imm > UBPF_KVROOMMAX - 1 || !e->vbuf || e->bad ||
	    o->agg < 2 || o->agg > UBPF_KLEAVES) {
		e->bad = true;
		return;
	}
	pop(e, sp, 1);
	room_zero(e, at, room);
	for (unsigned k = 0; k < o->agg; k++) {
		const struct ubpf_kop *d = &pl->ops[q];
		unsigned nw = d->step / 8u + 1;
		size_t jn = 0;

		if (q + nw >= pl->nops || d->op != UBPF_K_LKEY ||
		    !(d->flags & UBPF_KF_TAB) || d->levels != k ||
		    d->n != o->n || d->imm != o->imm || d->sz != o->sz ||
		    d->step > UBPF_KSTRMAX) {
			e->bad = true;
			return;
		}
		if (k + 1 < o->agg) /* the last: what is left */
			jn = jmp_i(e, BPF_JNE, 1, (int32_t)k);
		for (unsigned i = 0; i < nw && 8 * i < room; i++) {
			ld64(e, 3, lit_word(d + 1, d->step, i));
			stx(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 3);
		}
		if (k + 1 < o->agg) {
			jend[k] = jmp_i(e, BPF_JA, 0, 0);
			fix(e, jn);
		}
		q += 1 + nw;
	}
	for (unsigned k = 0; k + 1 < o->agg; k++)
		fix(e, jend[k]);
	*pc = q - 1;
}

void lkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc, unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	unsigned room = UBPF_KVROOM(o->imm);
	int32_t at = vkey_at(e, o, room);
	bool sel = (o->flags & UBPF_KF_SEL) != 0;
	unsigned n1 = o->step / 8u + 1, n2 = sel ? o->levels / 8u + 1 : 0;
	size_t jelse = 0, jend = 0;

	if (o->flags & UBPF_KF_TAB) {
		lkey_tab(e, pl, pc, sp);
		return;
	}
	if (o->imm < 1 || o->imm > UBPF_KVROOMMAX - 1 || !e->vbuf || e->bad ||
	    o->step > UBPF_KSTRMAX || (sel && o->levels > UBPF_KSTRMAX) ||
	    *pc + n1 + n2 >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	if (sel)
		pop(e, sp, 1);
	room_zero(e, at, room);
	if (sel)
		jelse = jmp_i(e, BPF_JEQ, 1, 0);
	for (unsigned i = 0; i < n1 && 8 * i < room; i++) {
		ld64(e, 3, lit_word(&pl->ops[*pc + 1], o->step, i));
		stx(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 3);
	}
	if (sel) {
		const struct ubpf_kop *d2 = &pl->ops[*pc + 1 + n1];

		jend = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jelse);
		for (unsigned i = 0; i < n2 && 8 * i < room; i++) {
			ld64(e, 3, lit_word(d2, o->levels, i));
			stx(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 3);
		}
		fix(e, jend);
	}
	*pc += n1 + n2;
}

/*
 * One branch of MKEY into the kaggs_v key at cgbuf + at (r2 cgbuf, its
 * room zeroed): execname (comm), sz bytes at most as CKEY's, the key's
 * word kw 1; else the literal of len bytes in the SDATA from d, kw 0.
 */
static void mkey_branch(struct em *e, bool comm, unsigned sz, unsigned len,
			const struct ubpf_kop *d, int32_t at, unsigned room,
			int16_t kw)
{
	st(e, BPF_DW, 10, kw, comm ? 1 : 0);
	if (comm) {
		sbuf_at(e, 1, at);
		alu_i(e, BPF_MOV, 2, (int32_t)sz);
		call(e, BPF_FUNC_get_current_comm);
		return;
	}
	for (unsigned i = 0; i < len / 8u + 1 && 8 * i < room; i++) {
		ld64(e, 3, lit_word(d, len, i));
		stx(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 3);
	}
}

/*
 * MKEY pl->ops[*pc]: c popped into r1 chooses a (not 0) or b, each
 * execname or a literal (o->agg's bits), written into the kaggs_v key
 * at vkey_at() as CKEY and LKEY write them, its room zeroed first; the
 * key's word k[n] (S_KKEY, which AGG copies) says which, 1 execname,
 * and is KEY's as far as AGG is concerned (e->kw).  *pc is left on the
 * last SDATA.
 */
void mkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc, unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	unsigned room = UBPF_KVROOM(o->imm), kn = o->n & (UBPF_KMAXKEYS - 1);
	int32_t at = vkey_at(e, o, room > o->slot ? room : o->slot);
	bool ca = (o->agg & 1) != 0, cb = (o->agg & 2) != 0;
	unsigned n1 = ca ? 0 : o->step / 8u + 1;
	unsigned n2 = cb ? 0 : o->levels / 8u + 1;
	int16_t kw = (int16_t)(S_KKEY + 8 + 8 * (int)kn);
	size_t jelse, jend;

	if (o->imm < 1 || o->imm > UBPF_KVROOMMAX - 1 || !e->vbuf ||
	    o->agg < 1 || o->agg > 3 || o->slot < 2 || o->slot > UBPF_KCOMM ||
	    e->bad || (!ca && o->step > UBPF_KSTRMAX) ||
	    (!cb && o->levels > UBPF_KSTRMAX) ||
	    *pc + n1 + n2 >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	pop(e, sp, 1);
	room_zero(e, at, room);
	jelse = jmp_i(e, BPF_JEQ, 1, 0);
	mkey_branch(e, ca, o->slot, o->step, &pl->ops[*pc + 1], at, room, kw);
	jend = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jelse);
	mkey_branch(e, cb, o->slot, o->levels, &pl->ops[*pc + 1 + n1], at, room,
		    kw);
	fix(e, jend);
	e->kw |= 1u << kn;
	*pc += n1 + n2;
}

/*
 * SMKEY pl->ops[*pc]: c popped into r1 chooses a (not 0) or b, one the
 * argument's string (seq_read()'s, copied into the kaggs_s key as
 * skey() copies it), the other the literal of its SDATA (the key's
 * UBPF_KSKEY bytes zeroed, then its words), or (agg 3) both an
 * argument's string, each as skey() copies it (seq_read() read both,
 * whichever is taken); the key's word k[n] (S_KKEY, AGG's: e->kw) 1
 * where a string was taken.  *pc is left on the last SDATA.
 */
void smkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	   unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	int32_t at = SKEY_AT + (int32_t)sizeof(struct ubpf_kkey);
	unsigned kn = o->n & (UBPF_KMAXKEYS - 1), nsd = o->step / 8u + 1, j,
		 j2 = 0;
	int16_t kw = (int16_t)(S_KKEY + 8 + 8 * (int)kn);
	size_t jelse, jend = 0;

	if (o->agg == 3)
		nsd = 0;
	for (j = 0; j < e->nsarg && e->sarg[j] != o->slot; j++)
		;
	for (; o->agg == 3 && j2 < e->nsarg && e->sarg[j2] != o->levels; j2++)
		;
	if (j >= e->nsarg || !e->skarg[j] || o->agg < 1 || o->agg > 3 ||
	    (o->agg == 3 && (j2 >= e->nsarg || !e->skarg[j2] || o->step)) ||
	    o->step > UBPF_KSKEY - 1 || *pc + nsd >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	pop(e, sp, 1);
	jelse = jmp_i(e, BPF_JEQ, 1, 0);
	for (int b = 1; b <= 2; b++) {
		if (b == 2) {
			jend = jmp_i(e, BPF_JA, 0, 0);
			fix(e, jelse);
		}
		st(e, BPF_DW, 10, kw, o->agg == b || o->agg == 3 ? 1 : 0);
		if (o->agg == b || o->agg == 3) {
			str_chunks(e, b == 2 && o->agg == 3 ? j2 : j,
				   UBPF_KSKEY, skey_chunk, NULL);
			continue;
		}
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		for (unsigned i = 0; i < UBPF_KSKEY / 8; i++)
			st(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 0);
		for (unsigned i = 0; i < nsd; i++) {
			ld64(e, 3, lit_word(&pl->ops[*pc + 1], o->step, i));
			stx(e, BPF_DW, 2, (int16_t)(at + 8 * (int32_t)i), 3);
		}
	}
	fix(e, jend);
	e->kw |= 1u << kn;
	*pc += nsd;
}

/* execname (bpf_get_current_comm(), 16 bytes) at r10 + S_COMM,
 * NUL-padded: the slots zeroed first, since Linux 6.1's helper
 * (strscpy()) leaves the bytes past the NUL as they were (the record's
 * comm, read again after the plan, is read only up to its NUL) */
static void comm_stack(struct em *e)
{
	st(e, BPF_DW, 10, S_COMM, 0);
	st(e, BPF_DW, 10, S_COMM + 8, 0);
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_COMM);
	alu_i(e, BPF_MOV, 2, UBPF_KCOMM);
	call(e, BPF_FUNC_get_current_comm);
}

/*
 * r1 = CLEN: strlen(execname), the bytes of comm_stack()'s copy before
 * its NUL, which the helper puts within the 16 (at most 15 counted).
 */
void clen(struct em *e)
{
	size_t j[UBPF_KCOMM - 1];

	comm_stack(e);
	alu_i(e, BPF_MOV, 1, 0);
	for (int i = 0; i < UBPF_KCOMM - 1; i++) {
		ldx(e, BPF_B, 2, 10, (int16_t)(S_COMM + i));
		j[i] = jmp_i(e, BPF_JEQ, 2, 0);
		alu_i(e, BPF_ADD, 1, 1);
	}
	for (int i = 0; i < UBPF_KCOMM - 1; i++)
		fix(e, j[i]);
}

/*
 * CWKEY o: execname, 16 bytes (comm_stack(): zeroed, then the comm, its
 * NUL and zeros after it), into the kaggs key's words k[o->n] and
 * k[o->levels] on the stack (agg_at() copies them into the kaggs_s
 * key with the others and leaves both as written: e->kw).
 */
void cwkey(struct em *e, const struct ubpf_kop *o)
{
	if (o->n >= UBPF_KMAXKEYS || o->levels >= UBPF_KMAXKEYS ||
	    o->levels == o->n) {
		e->bad = true;
		return;
	}
	comm_stack(e);
	ldx(e, BPF_DW, 1, 10, S_COMM);
	stx(e, BPF_DW, 10, (int16_t)(S_KKEY + 8 + 8 * o->n), 1);
	ldx(e, BPF_DW, 1, 10, S_COMM + 8);
	stx(e, BPF_DW, 10, (int16_t)(S_KKEY + 8 + 8 * o->levels), 1);
	e->kw |= 1u << o->n | 1u << o->levels;
}

/*
 * r1 = CCMP pl->ops[*pc]: execname OP the literal of its SDATA, OP o->agg
 * (padded_cmp()'s).  Both are compared as their first 16 bytes,
 * NUL-padded: execname is at most 15 bytes and its NUL, so a literal
 * of 16 bytes or more differs from it within them, and one shorter is
 * padded as execname is; the order of the padded words is strcmp()'s.
 * Nothing to fault.  *pc is left on the last SDATA.
 */
void ccmp(struct em *e, const struct ubpf_kplan *pl, unsigned *pc)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	unsigned nsd = o->step / 8u + 1;
	uint64_t lw[UBPF_KCOMM / 8];

	if (o->agg > 5 || o->step > UBPF_KCOMM || *pc + nsd >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	for (unsigned i = 0; i < UBPF_KCOMM / 8; i++)
		lw[i] = lit_word(&pl->ops[*pc + 1], o->step, i);
	comm_stack(e);
	padded_cmp(e, 10, S_COMM, 0, lw, UBPF_KCOMM / 8, o->agg);
	*pc += nsd;
}

/*
 * r1 = CVCMP o: execname OP the string variable (o->levels its kind,
 * o->slot, o->imm strsize - 1), OP o->agg: execname copied into cgbuf
 * at VCMP_AT(0), the variable at VCMP_AT(1) (svar_copy()), both rooms
 * zeroed to the longer of the two (16 bytes, UBPF_KVROOM(imm)), then
 * compared word by word (padded_cmp()).  The variable holds at most
 * strsize - 1 bytes, as run.c's; execname is whole, as run.c's.
 */
void cvcmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds)
{
	struct ubpf_kop v = { .n = (uint8_t)o->levels,
			      .slot = o->slot,
			      .imm = o->imm };
	unsigned room = UBPF_KVROOM(o->imm);

	if (room < UBPF_KCOMM)
		room = UBPF_KCOMM;
	if (o->agg > 5 || !e->vbuf || room > UBPF_STRMAX) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8) {
		st(e, BPF_DW, 2, (int16_t)(VCMP_AT(0) + (int32_t)i), 0);
		st(e, BPF_DW, 2, (int16_t)(VCMP_AT(1) + (int32_t)i), 0);
	}
	sbuf_at(e, 1, VCMP_AT(0));
	alu_i(e, BPF_MOV, 2, UBPF_KCOMM);
	call(e, BPF_FUNC_get_current_comm);
	svar_copy(e, pl, &v, VCMP_AT(1), fds);
	if (e->bad)
		return;
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	padded_cmp(e, 2, VCMP_AT(0), VCMP_AT(1), NULL, room / 8, o->agg);
}

/*
 * r1 = CACMP o: execname OP copyinstr(argument o->n), OP o->step
 * (padded_cmp()'s).  execname is copied into cgbuf at VCMP_AT(0), its
 * room zeroed (UBPF_KCOMM bytes); the argument's string, which
 * seq_read() copied after zeroing its first UBPF_KCOMM bytes (so the
 * bytes past its NUL are 0), goes to VCMP_AT(1) cut to o->imm bytes
 * (strsize - 1, as copyinstr() cuts it: the bytes from there on 0).
 * execname ends within its 16 bytes, so the first 16 bytes of both,
 * NUL-padded, decide strcmp()'s order whatever the string's length
 * (as CCMP's literal).  A string that cannot be read sent the hit to
 * user space whole before the plan (seq_read(): no fault sites), or,
 * at a fault site (o->agg), sets its bits and ends the clause as
 * vacmp()'s; seq_read() then read strsize - 1 bytes and that last
 * again (e->rbarg), so the copy's first imm bytes are the string's
 * as copyinstr() gives them, the rest 0 up to the 16th.
 */
void cacmp(struct em *e, const struct ubpf_kop *o)
{
	unsigned j;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || !e->czarg[j] || o->step > 5 || o->imm < 1 ||
	    !e->vbuf || (o->agg && !e->rbarg[j])) {
		e->bad = true;
		return;
	}
	if (o->agg) /* a fault site: one unread ends the clause */
		fault_at(e, j, o->agg);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (int i = 0; i < UBPF_KCOMM; i += 8)
		st(e, BPF_DW, 2, (int16_t)(VCMP_AT(0) + i), 0);
	sbuf_at(e, 1, VCMP_AT(0));
	alu_i(e, BPF_MOV, 2, UBPF_KCOMM);
	call(e, BPF_FUNC_get_current_comm);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (int i = 0; i < UBPF_KCOMM; i += 8) {
		ldx(e, BPF_DW, 3, 2, (int16_t)(SEQ_AT(j) + i));
		if (o->imm <= i) {
			alu_i(e, BPF_MOV, 3, 0);
		} else if (o->imm < i + 8) { /* the cut within the word */
			ld64(e, 4, (1ull << (8 * (o->imm - i))) - 1);
			alu_r(e, BPF_AND, 3, 4);
		}
		stx(e, BPF_DW, 2, (int16_t)(VCMP_AT(1) + i), 3);
	}
	padded_cmp(e, 2, VCMP_AT(0), VCMP_AT(1), NULL, UBPF_KCOMM / 8, o->step);
}
