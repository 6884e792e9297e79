// SPDX-License-Identifier: MIT
/*
 * cgen_out.c - the values printf() and trace() print, computed by a
 * generated program at the hit (kplan_out.c says which clauses) and
 * carried in the record's out area; dtrace's side of that area.
 *
 * In the program (cgen.c's stages 1 to 3).  The prologue sets the stack
 * slot S_OBUF to 0: no area yet, so a hit whose predicates all fail
 * pays for them alone.  The first clause of the hit that writes into
 * the area (its first such instruction, past its predicate) finds
 * cgbuf (the record of such a program is always built there) and
 * keeps in S_OBUF the address of the out area, right after the
 * record's uid and gid: at a constant offset, so each value is one
 * store at a constant offset and the verifier sees every access
 * bounded; it zeroes the area's ran word and writes its size there
 * (cgen_out_need(): only where S_OBUF is still 0, so the ran bits of
 * clauses before it stay; tested again only where a jump lands,
 * cgen_plan.c).  Any record of a hit that started no area (a process
 * not armed, the horizon's, a fault's, a REC's, a printing clause's
 * predicate failed) gets ran 0 and the size at the record
 * (cgen_out_rec(), cgen.c's stage 3): never the ran word, nor the
 * values, of a hit before in the same per-CPU buffer.  Each plan
 * instruction then (cgen_out_op()): OUT pops a value into its slot
 * (flagged UBPF_KF_KEEP, an if's condition whose branches have values
 * in the area, it stores it and leaves it for the if's PRED:
 * kplan_out.c's kp_if_out(), dtrace's walk taking the branch it says);
 * OSTR pops an address into its struct ubpf_kostr and copies the
 * string with bpf_probe_read_user_str() of at most imm bytes
 * (strsize - 1, as run.c's d_read_user_str() reads, or copyinstr(E,
 * N)'s N, 1 to UBPF_STRMAX, as its copyinstr() reads; flagged
 * UBPF_KF_NCNT, N popped first, computed at the hit, clamped to imm
 * there as run.c clamps it and kept in the struct's cnt, 0 reading
 * nothing: ostr_at()): a copy that
 * filled them cut its last byte for a NUL, so that byte is read again
 * on its own and the string is the imm bytes run.c would have had; a
 * copy that faulted reads one byte at the address to say where, there
 * (-1) or at the page after it (-2: a string of at most 255 bytes
 * spans two pages at most, and run.c reads a page at a time); one
 * with a jump (a statement other than printf() or trace() follows it in
 * the clause: kplan_out.c's kp_out_ends()) that faulted sets its
 * clause's ran bit and S_FLAGS_REC and jumps to the clause's end, as
 * SSTR's does (below), so nothing after it runs; one flagged
 * UBPF_KF_APRE (R2, kplan_out.c's) pops nothing (but N, flagged
 * UBPF_KF_NCNT too, clamped as ostr_at() clamps it) and copies its
 * argument's string from seq_read()'s copy in cgbuf (ostr_pre(),
 * sstr_pre(): bpf_probe_read_kernel_str(), no fault, no jump).  ODONE n
 * sets bit n of the ran word and S_FLAGS_REC (the record is written
 * for it: bpf_agg.c gates the plan's record on it when no other clause
 * needs the record); before that, flagged NOREC or not, it ORs
 * UBPF_KSPEC_WHOLE into the act of each reached speculation tag of its
 * clause (e->ktag: cgen_plan.c hands it the tags since the last ODONE;
 * ktags_whole()), so a tag reached but not whole says a fault jumped
 * past the clause's end.  The record goes on after the area (cgen.c's length
 * includes it), flagged UBPF_RF_KOUT.  String variables such clauses
 * print (kplan_out.c's KV_STR) are kept as a struct ubpf_kostr: a
 * this-> one's in cgbuf above the record's half (TSTR_AT()), its len
 * zeroed where the area starts (cgen_out_tstr()), a self-> one's in the
 * hash cgtlss under {tid, variable}.  SSTR copies a string as OSTR
 * copies into the area (ostr_at()), at TSTR_AT(UBPF_KTSTR), and the
 * copy's address and len into its 16 bytes of the area; one that
 * faulted sets its clause's ran bit and S_FLAGS_REC and jumps to the
 * clause's end, the variable untouched; else the copy goes into it,
 * its 16 bytes and its first len (sstr_len(): every reader stops at
 * len, so what lies past it is left as it was).
 * SLIT writes a literal there as a copy of it would be, SCOMM the
 * hit's comm (execname) the same way (scomm()), and SMOV
 * copies another variable's struct ubpf_kostr there (bpf_probe_read_
 * kernel(); unset, the variable is cleared), and each goes into the
 * variable as SSTR's copy does; none can fault.
 * An SSTR or SLIT whose sz is a UBPF_KJ_* is a part of a strjoin()
 * (kplan_str.c's "Joins"): its copy is appended to the join's string at
 * TSTR_AT(UBPF_KTSTR + 1) instead, cut at imm, and the last part puts
 * that into the variable (join_add()).
 * OVSTR copies a variable's bytes into an argument's struct ubpf_kostr
 * (bpf_probe_read_kernel()), MSTR a place's string (stringof() of a
 * copy's place, kplan_mem.c) from the copy cgen_mem.c's mem_read() read
 * before the first clause (mstr(): bpf_probe_read_kernel_str(), as
 * ostr_pre() copies from seq_read()'s copy; no fault, no jump), SCLR
 * clears one; ODONE flagged
 * UBPF_KF_NOREC (a clause that only stores) writes nothing of its own:
 * where the clause has speculations' tags, it starts the area and ORs
 * UBPF_KSPEC_WHOLE into them, as any ODONE does (above).
 *
 * In dtrace.  The decoder (bpf.c) hands the area to cg_out_rec(), which
 * keeps it for the hit when the kernel ran some clause of it
 * (c->kout); records.c walks the probe's clauses in order and, for
 * each the kernel ran that prints from the area, cg_out_run() prints
 * it from its values (kplan_out.c's d_kplan_out_run()) or reports the
 * fault it had, in its place among the clauses user space runs.  A
 * speculating clause whose values the kernel computed (kplan_spec.c's
 * "Speculations": no test of its predicate in the program, so its ran
 * bit is set wherever the plan reached it) is walked the same way, and
 * run through d_run_spec(): its predicate (or the truth the program
 * computed for it, the area's first value) and speculate() in dtrace.
 * A clause user space runs whose area holds the values of the self->
 * integers it reads (kplan_vin.c's "Shared self-> variables") is
 * walked the same way (cg_out_vin()): its ran bit set, those variables
 * of the hit's thread are set from the area while run_clauses() runs
 * it; unset (its predicate failed at the hit), it is not run.  So the
 * area of a record the plan ran for is kept even where no bit is set
 * (cg_out_rec()).  A clause of speculations in the kernel
 * (kplan_spec.c's d_kplan_kspec()) hands its tags over at its place
 * (cg_kspec_run()), after the record of its own where it reached no
 * speculate() (kspec_own(): a take's, a close's), then reports its one
 * fault.
 */
#include "config.h"

#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>

#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"
#include "consumer_impl.h"
#include "kplan.h"

/* ------------------------------------------------------------------ */
/* The program */

unsigned cgen_out_bytes(const struct ubpf_kplan *pl)
{
	unsigned end = 0;
	bool any = false;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned e;

		if (o->op == UBPF_K_ODONE)
			any = true;
		if (!ubpf_kop_room(o->op)) /* it writes none */
			continue;
		e = (o->op == UBPF_K_SSTR || o->op == UBPF_K_OVSTR ? o->agg
								   : o->slot) +
		    ubpf_kop_room(o->op);
		if (e > end)
			end = e;
	}
	return any || end ? (unsigned)sizeof(struct ubpf_kout) + end : 0;
}

unsigned cgen_out_room(const struct ubpf_ev *s, bool anc)
{
	/* ppid (and progenyof()'s chain where a clause calls it: anc),
	 * ecred, sess; the fault bits */
	unsigned n = 8 + (anc ? UBPF_ANC_BYTES(UBPF_ANC - 1) : 0) + 2 * 8 + 8;

	for (unsigned i = 0; i < UBPF_MAXARGS; i++) {
		if (s->strmask & (1u << i))
			n += 2 + UBPF_STRMAX;
		if (s->memmask & (1u << i))
			n += 2 + s->memlen[i];
	}
	return n;
}

void cgen_out_setup(struct em *e, int buf, unsigned obase, unsigned bytes,
		    const struct ubpf_kplan *pl)
{
	if (buf < 0 || bytes > UBPF_KOUTMAX || obase > UBPF_SCRATCH / 2) {
		e->bad = true;
		return;
	}
	e->obuf = buf;
	e->obase = obase;
	e->obytes = bytes;
	e->opl = pl;
	e->ostarted = e->oany = false;
}

/*
 * The area started, once a hit: S_OBUF is 0 until then (cgen.c's
 * prologue), so a clause that finds it set leaves the ran bits of the
 * clauses before it as they are (no test where no code before starts
 * it: e->oany).  Starting it: cgbuf's address, its owner word taken
 * where the path does not hold it yet (cgen.c's own_need(): found
 * held, the hit counts a drop and ends, as one that found no room),
 * plus obase into S_OBUF, the ran word zeroed, the size written, and
 * the this-> strings' lens zeroed (cgen_out_tstr()): none was stored
 * before in this firing, since a store starts the area.
 */
void cgen_out_need(struct em *e)
{
	size_t j = 0, jnull, from = e->n;

	if (e->ostarted)
		return;
	if (!e->obytes || !e->opl) { /* no area: xpl, a kernel probe's */
		e->bad = true;
		return;
	}
	if (e->oany) {
		ldx(e, BPF_DW, 1, 10, S_OBUF);
		j = jmp_i(e, BPF_JNE, 1, 0);
	}
	jnull = own_need(e, e->obuf); /* cgbuf, held from here */
	if (jnull != SIZE_MAX) {      /* the first making's: no owner word */
		size_t jok = jmp_i(e, BPF_JA, 0, 0);

		fix(e, jnull);
		alu_i(e, BPF_MOV, 0, 0);
		put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		fix(e, jok);
	}
	alu_i(e, BPF_ADD, 0, (int32_t)e->obase);
	stx(e, BPF_DW, 10, S_OBUF, 0);
	st(e, BPF_DW, 0, 0, 0);
	st(e, BPF_DW, 0, 8, (int32_t)e->obytes);
	cgen_out_ktags(e, e->opl);
	cgen_out_tstr(e, e->opl);
	if (e->oany) {
		fix(e, j);
		/* S_OBUF set: cgbuf taken on that path too */
		if (e->ownoff) {
			e->owned = true;
			e->ownfrom = from;
		}
	}
	e->ostarted = e->oany = true;
}

void cgen_out_rec(struct em *e)
{
	size_t j;

	ldx(e, BPF_DW, 1, 10, S_OBUF);
	j = jmp_i(e, BPF_JNE, 1, 0);
	st(e, BPF_DW, 9, (int16_t)e->obase, 0);
	st(e, BPF_DW, 9, (int16_t)(e->obase + 8), (int32_t)e->obytes);
	fix(e, j);
}

/* r1 = the out area's byte off */
static void at(struct em *e, uint8_t r, int32_t off)
{
	ldx(e, BPF_DW, r, 10, S_OBUF);
	alu_i(e, BPF_ADD, r, off);
}

/* r0 = -1 when the byte at the address in S_VVAL cannot be read (the
 * string faults there), else -2 (at the page after it); dst: where the
 * byte may go */
static void where(struct em *e, int32_t dst)
{
	size_t j;

	at(e, 1, dst);
	alu_i(e, BPF_MOV, 2, 1);
	ldx(e, BPF_DW, 3, 10, S_VVAL);
	call(e, BPF_FUNC_probe_read_user);
	alu_i(e, BPF_MOV, 1, -1);
	j = jmp_i(e, BPF_JNE, 0, 0);
	alu_i(e, BPF_MOV, 1, -2);
	fix(e, j);
	alu_r(e, BPF_MOV, 0, 1);
}

/*
 * copyinstr() of the address in r1, at most cnt bytes, into the struct
 * ubpf_kostr base bytes past the out area's start (S_OBUF); r0 its len.
 * cs not 0 (UBPF_KF_NCNT): the count is copyinstr(E, N)'s N, at stack
 * slot cs, clamped as run.c's copyinstr() clamps it: cnt (strsize - 1)
 * where N, unsigned, is not below it (negative, N + 1 not below
 * strsize, 32 bits or more), else N; that count goes into the struct's
 * cnt (late_max() reads it), and back at cs, bounded for the verifier
 * (1 to cnt) where it is read; 0 reads nothing, len 0, or -1 (a fault)
 * at address 0, as run.c's d_read_user_str() of max 1.
 */
static void ostr_at(struct em *e, int32_t base, int32_t cnt, int16_t cs)
{
	int32_t dst = base + (int32_t)offsetof(struct ubpf_kostr, s);
	size_t jok, jst1, jst2, jst3, jre, jz = SIZE_MAX, jz0 = SIZE_MAX;

	if (cnt < 1 || cnt > UBPF_STRMAX) {
		e->bad = true;
		return;
	}
	/* the address: kept in the area (a fault's) and in S_VVAL */
	stx(e, BPF_DW, 10, S_VVAL, 1);
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_DW, 2, (int16_t)base, 1);
	if (cs) {
		size_t jc, jnz;

		ldx(e, BPF_DW, 1, 10, cs);
		jc = jmp_i(e, BPF_JLT, 1, cnt);
		alu_i(e, BPF_MOV, 1, cnt);
		fix(e, jc);
		stx(e, BPF_W, 2,
		    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, cnt)),
		    1);
		jnz = jmp_i(e, BPF_JNE, 1, 0);
		ldx(e, BPF_DW, 1, 10, S_VVAL);
		alu_i(e, BPF_MOV, 0, 0);
		jz = jmp_i(e, BPF_JNE, 1, 0);
		alu_i(e, BPF_MOV, 0, -1);
		jz0 = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jnz);
		stx(e, BPF_DW, 10, cs, 1); /* 1 to cnt */
	}
	at(e, 1, dst);
	if (cs)
		ldx(e, BPF_DW, 2, 10, cs);
	else
		alu_i(e, BPF_MOV, 2, cnt);
	ldx(e, BPF_DW, 3, 10, S_VVAL);
	call(e, BPF_FUNC_probe_read_user_str);
	jok = jmp_i(e, BPF_JSGE, 0, 1);
	where(e, dst);
	jst1 = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jok);
	if (cs) {
		ldx(e, BPF_DW, 2, 10, cs);
		jst2 = jmp_r(e, BPF_JNE, 0, 2);
	} else {
		jst2 = jmp_i(e, BPF_JNE, 0, cnt);
	}
	/* it filled the copy, its last byte cut for a NUL: read it */
	ldx(e, BPF_DW, 3, 10, S_VVAL);
	if (cs) {
		ldx(e, BPF_DW, 2, 10, cs);
		at(e, 1, dst - 1);
		alu_r(e, BPF_ADD, 1, 2);
		alu_i(e, BPF_ADD, 3, -1);
		alu_r(e, BPF_ADD, 3, 2);
	} else {
		at(e, 1, dst + cnt - 1);
		alu_i(e, BPF_ADD, 3, cnt - 1);
	}
	alu_i(e, BPF_MOV, 2, 1);
	call(e, BPF_FUNC_probe_read_user);
	jre = jmp_i(e, BPF_JEQ, 0, 0);
	where(e, dst); /* gone meanwhile: a fault after all */
	jst3 = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jre);
	if (cs)
		ldx(e, BPF_DW, 0, 10, cs);
	else
		alu_i(e, BPF_MOV, 0, cnt);
	fix(e, jst1);
	fix(e, jst2);
	fix(e, jst3);
	if (cs) {
		fix(e, jz);
		fix(e, jz0);
	}
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_W, 2,
	    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)), 0);
}

/* output clause n's ran bit and S_FLAGS_REC set, as sstr() sets them
 * for a fault the clause ends at; r2 = S_OBUF */
static void ran_fault(struct em *e, unsigned n)
{
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	ldx(e, BPF_DW, 1, 2, 0);
	ld64(e, 3, 1ull << n);
	alu_r(e, BPF_OR, 1, 3);
	stx(e, BPF_DW, 2, 0, 1);
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_OR, 1, S_FLAGS_REC);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
}

/*
 * OSTR o, the address in r1.  Where a statement the kernel runs follows
 * in the clause (o->jump, kplan_out.c's kp_out_ends()), a copy that
 * faulted sets output clause o->levels' bit and S_FLAGS_REC and jumps
 * to the clause's end (e->sfj, which cgen_plan() points there), as
 * sstr() does: nothing after the copy runs (a store, an aggregation,
 * another copy), as run.c abandons the clause, and dtrace reports the
 * fault from the area (d_kplan_out_run()).  Where only printf() and
 * trace() follow, the plan goes on and dtrace stops at the fault.
 */
static void ostr(struct em *e, const struct ubpf_kop *o, int16_t cs)
{
	size_t jok;

	ostr_at(e, (int32_t)sizeof(struct ubpf_kout) + o->slot, (int32_t)o->imm,
		cs);
	if (!o->jump)
		return;
	if (o->levels >= UBPF_KOUTS) {
		e->bad = true;
		return;
	}
	jok = jmp_i(e, BPF_JSGE, 0, 0);
	ran_fault(e, o->levels);
	e->sfj = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jok);
}

/* At most cnt bytes of the string at cgbuf + src (S_SBUF) and a NUL
 * into the struct ubpf_kostr base bytes past S_OBUF, by
 * bpf_probe_read_kernel_str() of cnt + 1 bytes (it cannot fault: cgbuf
 * is the program's map value), and its len: the count with the NUL, cnt
 * where the string is cut there (no NUL in cnt bytes); r0 that len */
static void kstr_copy(struct em *e, int32_t base, int32_t cnt, int32_t src,
		      int16_t cs)
{
	size_t jc;

	at(e, 1, base + (int32_t)offsetof(struct ubpf_kostr, s));
	if (cs) { /* the count at stack slot cs, 1 to cnt (ostr_pre()) */
		ldx(e, BPF_DW, 2, 10, cs);
		alu_i(e, BPF_ADD, 2, 1);
	} else {
		alu_i(e, BPF_MOV, 2, cnt + 1);
	}
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, src);
	call(e, BPF_FUNC_probe_read_kernel_str);
	if (cs) {
		ldx(e, BPF_DW, 2, 10, cs);
		jc = jmp_r(e, BPF_JSLE, 0, 2);
		alu_r(e, BPF_MOV, 0, 2);
	} else {
		jc = jmp_i(e, BPF_JSLE, 0, cnt); /* cut: cnt bytes, no NUL */
		alu_i(e, BPF_MOV, 0, cnt);
	}
	fix(e, jc);
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_W, 2,
	    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)), 0);
}

/*
 * R2 (doc/DESIGN.md §8, "R2 and R3: the as-built plan"): an OSTR or
 * SSTR flagged UBPF_KF_APRE pops nothing (an OSTR flagged UBPF_KF_NCNT
 * too pops copyinstr(argN, N)'s N: ostr_pre(), below); its string is
 * argument
 * o->step's, which seq_read() (cgen_sarg.c) copied into cgbuf at
 * SEQ_AT(j) before the plan's first clause (UBPF_STRMAX bytes, a failed
 * copy having sent the hit to user space whole), so nothing here can
 * fault and there is no jump: the struct ubpf_kostr base bytes past
 * S_OBUF gets the argument's value as its address and, by
 * bpf_probe_read_kernel_str() of cnt + 1 bytes from the copy, at most
 * cnt bytes of it and a NUL (the copy holds every byte ostr_at()'s
 * read would: cnt is strsize - 1, below UBPF_STRMAX, or less), len as
 * ostr_at()'s: the count with the NUL, cnt where the string is cut
 * there (no NUL in cnt bytes); r0 that len.  cs not 0: the count is
 * at stack slot cs, 1 to cnt (ostr_pre()'s clamp); cnt 0: len 0,
 * nothing copied.  false (e->bad): the
 * argument has no copy in cgbuf (a bug's: kplan counts the room,
 * seq_read() never puts such a one on the stack).
 */
static bool pre_copy(struct em *e, const struct ubpf_kop *o, int32_t base,
		     int32_t cnt, int16_t cs)
{
	unsigned j;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->step; j++)
		;
	if (j >= e->nsarg || e->sn || !e->oparg[j] || cnt < 0 ||
	    cnt > UBPF_STRMAX - 1 || (!cnt && cs)) {
		e->bad = true;
		return false;
	}
	arg_addr(e, 1, e->sarg[j]);
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_DW, 2, (int16_t)base, 1);
	if (cnt)
		kstr_copy(e, base, cnt, SEQ_AT(j), cs);
	else /* a count of 0: len 0 */
		st(e, BPF_W, 2,
		   (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)),
		   0);
	return true;
}

/*
 * MSTR o: stringof() of a place (kplan_mem.c's kp_mem_str()), the
 * bytes of its copy (mem_read()'s, in cgbuf's copy room) from o->agg up
 * to a NUL, o->step of them at most (min(C - o, strsize - 1), as run.c's
 * d_mem_string() cuts it), into the struct ubpf_kostr at o->slot by
 * kstr_copy(), len as ostr_pre()'s, the address 0 (no fault: a copy that
 * could not be read sent the hit to user space whole).  The helper
 * reads o->step + 1 bytes, the last of which it overwrites with its
 * NUL: past the copy's C at most by one byte, still in the room or its
 * 8 bytes of slack.
 */
static void mstr(struct em *e, const struct ubpf_kop *o)
{
	int32_t base = (int32_t)sizeof(struct ubpf_kout) + o->slot;
	int j = mem_copy(e, o);

	if (j < 0 || o->step > UBPF_STRMAX - 1 ||
	    sizeof(struct ubpf_kout) + o->slot + sizeof(struct ubpf_kostr) >
		    UBPF_KOUTMAX) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	st(e, BPF_DW, 2, (int16_t)base, 0);
	kstr_copy(e, base, (int32_t)o->step,
		  (int32_t)(e->cpyoff + e->cpy[j].at + o->agg), 0);
}

/* OSTR o flagged UBPF_KF_APRE: pre_copy() of imm bytes, or, cs not 0
 * (UBPF_KF_NCNT), of copyinstr(argN, N)'s N at stack slot cs clamped
 * as ostr_at() clamps it (N < imm as it is, else imm; 0 reads
 * nothing), into the struct's cnt (kplan_out.c's late_max() reads it;
 * an R2 slot is never negative, so it is not met there) */
static void ostr_pre(struct em *e, const struct ubpf_kop *o, int16_t cs)
{
	int32_t base = (int32_t)sizeof(struct ubpf_kout) + o->slot;
	size_t jc, jnz, jz;

	if (o->jump ||
	    sizeof(struct ubpf_kout) + o->slot + sizeof(struct ubpf_kostr) >
		    UBPF_KOUTMAX) {
		e->bad = true;
		return;
	}
	if (!cs) {
		(void)pre_copy(e, o, base, (int32_t)o->imm, 0);
		return;
	}
	/* N clamped as ostr_at() clamps it, into cnt; 0 reads nothing
	 * (the address is not 0: its copy ahead succeeded) */
	ldx(e, BPF_DW, 1, 10, cs);
	jc = jmp_i(e, BPF_JLT, 1, (int32_t)o->imm);
	alu_i(e, BPF_MOV, 1, (int32_t)o->imm);
	fix(e, jc);
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_W, 2,
	    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, cnt)), 1);
	jnz = jmp_i(e, BPF_JNE, 1, 0);
	if (!pre_copy(e, o, base, 0, 0))
		return;
	jz = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jnz);
	stx(e, BPF_DW, 10, cs, 1); /* 1 to imm */
	(void)pre_copy(e, o, base, (int32_t)o->imm, cs);
	fix(e, jz);
}

/*
 * String variables.  A this-> string is a struct ubpf_kostr in cgbuf
 * (TSTR_AT(slot)), its len zeroed where the out area starts (before any
 * store of the firing: a store starts it), so one not set in this
 * firing reads "" as run.c's does; a self-> string is one in
 * the hash cgtlss under {tid, variable} (the tid r7's low half), absent
 * when never set or cleared (run.c's var_set() deletes at 0; "" reads
 * the same), copied at TSTR_AT(UBPF_KTSTR) first and put there whole.
 * Their bytes past S_OBUF: base.  An SSTR writes the string's address
 * and length at agg in the out area, another op a whole struct
 * ubpf_kostr (kagg_bpf.h's ubpf_kop_room()): tstr_base() bounds that
 * room.
 */
static bool tstr_base(struct em *e, const struct ubpf_kop *o, int32_t *base)
{
	if ((o->n != UBPF_KV_THIS && o->n != UBPF_KV_SELF) ||
	    (o->n == UBPF_KV_THIS && o->slot >= UBPF_KTSTR) || o->imm < 1 ||
	    o->imm > UBPF_STRMAX - 1 ||
	    sizeof(struct ubpf_kout) + o->agg + ubpf_kop_room(o->op) >
		    UBPF_KOUTMAX) {
		e->bad = true;
		return false;
	}
	*base = TSTR_AT(o->n == UBPF_KV_THIS ? o->slot : UBPF_KTSTR) -
		(int32_t)e->obase;
	return true;
}

/*
 * S_VKEY = cgtlss's key of self-> variable v, and the call of fn
 * (lookup or delete) on cgtlss (fd) with it: r0 its answer
 */
void cgen_tlss_call(struct em *e, uint16_t v, int fd, int32_t fn)
{
	stx(e, BPF_W, 10, S_VKEY, 7);
	st(e, BPF_W, 10, S_VKEY + 4, v);
	ldmap(e, 1, fd);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, S_VKEY);
	call(e, fn);
}

/*
 * SSTR o, the address in r1: the copy, made at TSTR_AT(UBPF_KTSTR)
 * first, into the variable, its address and length into the out area
 * at o->agg; one that faulted sets output clause o->levels' bit and
 * S_FLAGS_REC and jumps to the clause's end (e->sfj, which cgen_plan()
 * points there): the variable keeps what it had (a failed read zeroes
 * what it read into, and marks its len), and nothing after the store
 * runs, as run.c abandons the clause; else the copy goes into the
 * variable (sstr_put()).
 */
static void sstr_put(struct em *e, const struct ubpf_kop *o, const int *fds,
		     int32_t base, int32_t vbase);

/*
 * r2, r3 = what of the copy at base (S_OBUF's) goes into a variable:
 * its addr, len and first len bytes, len at most o->imm (ostr_at()'s
 * count), from r3.  The bytes past len are no part of the string --
 * every reader stops at len (svar_copy(), vveq(), vseq(), vslen(), the
 * out area's) -- so the variable's are left as they were, as the copy's
 * were (bpf_probe_read_user_str() writes up to its NUL): a string of 4
 * bytes copies 21, not strsize + 16.
 */
static void sstr_len(struct em *e, const struct ubpf_kop *o, int32_t base)
{
	size_t j;

	ldx(e, BPF_DW, 3, 10, S_OBUF);
	ldx(e, BPF_W, 2, 3,
	    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)));
	j = jmp_i(e, BPF_JLE, 2, (int32_t)o->imm); /* bounds: not taken */
	alu_i(e, BPF_MOV, 2, (int32_t)o->imm);
	fix(e, j);
	alu_i(e, BPF_ADD, 2, (int32_t)offsetof(struct ubpf_kostr, s));
	alu_i(e, BPF_ADD, 3, base);
}

/*
 * A part of a strjoin() (SSTR's and SLIT's sz a UBPF_KJ_*: kplan_str.c's
 * kp_join_parts()): the string of the copy at base (S_OBUF's, a struct
 * ubpf_kostr as ostr_at() leaves it, or a literal as cgen_out_lit()
 * writes it) appended to the join's at TSTR_AT(UBPF_KTSTR + 1), whose
 * len holds its bytes so far (the first part starts it at 0), cut at
 * imm: run.c's strjoin() cuts its result at strsize - 1, and a cut of a
 * cut is that cut.  The copy's string is its len - 1 bytes (the NUL
 * read with them), or imm where len is imm and its last byte no NUL (a
 * copy ostr_at() cut: the bytes run.c's copyinstr() keeps); len 0, "".
 * The last part ends the join: a NUL after its bytes and len as a
 * copy's (the NUL's counted, below imm), then it goes into the
 * variable as a store's copy goes (sstr_put()).
 */
static void join_add(struct em *e, const struct ubpf_kop *o, const int *fds,
		     int32_t base, int32_t vbase)
{
	int32_t jb = TSTR_AT(UBPF_KTSTR + 1) - (int32_t)e->obase;
	int32_t lo = (int32_t)offsetof(struct ubpf_kostr, len);
	int32_t so = (int32_t)offsetof(struct ubpf_kostr, s);
	int32_t imm = (int32_t)o->imm;
	size_t j, jz, jn, jl, jd0, jd1, jfull, jput;

	if (o->sz < UBPF_KJ_FIRST || o->sz > UBPF_KJ_LAST || imm < 1 ||
	    imm > UBPF_STRMAX - 1) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	if (o->sz == UBPF_KJ_FIRST)
		st(e, BPF_W, 2, (int16_t)(jb + lo), 0);
	/* r4: the copy's bytes */
	ldx(e, BPF_W, 3, 2, (int16_t)(base + lo));
	alu_i(e, BPF_MOV, 4, 0);
	jz = jmp_i(e, BPF_JEQ, 3, 0);
	j = jmp_i(e, BPF_JLE, 3, imm); /* bounds: not taken */
	alu_i(e, BPF_MOV, 3, imm);
	fix(e, j);
	alu_r(e, BPF_MOV, 4, 3);
	alu_i(e, BPF_SUB, 4, 1);
	jn = jmp_i(e, BPF_JNE, 3, imm);
	ldx(e, BPF_B, 5, 2, (int16_t)(base + so + imm - 1));
	jl = jmp_i(e, BPF_JEQ, 5, 0);
	alu_i(e, BPF_MOV, 4, imm);
	fix(e, jz);
	fix(e, jn);
	fix(e, jl);
	/* r3: the join's bytes so far; r4 at most the room left */
	ldx(e, BPF_W, 3, 2, (int16_t)(jb + lo));
	j = jmp_i(e, BPF_JLE, 3, imm); /* bounds: not taken */
	alu_i(e, BPF_MOV, 3, imm);
	fix(e, j);
	alu_i(e, BPF_MOV, 5, imm);
	alu_r(e, BPF_SUB, 5, 3);
	j = jmp_r(e, BPF_JLE, 4, 5);
	alu_r(e, BPF_MOV, 4, 5);
	fix(e, j);
	jd0 = jmp_i(e, BPF_JEQ, 4, 0);
	jd1 = jmp_i(e, BPF_JGT, 4, imm); /* bounds: not taken */
	alu_r(e, BPF_MOV, 5, 3);
	alu_r(e, BPF_ADD, 5, 4);
	stx(e, BPF_W, 2, (int16_t)(jb + lo), 5);
	alu_r(e, BPF_MOV, 1, 2);
	alu_i(e, BPF_ADD, 1, jb + so);
	alu_r(e, BPF_ADD, 1, 3);
	alu_r(e, BPF_MOV, 3, 2);
	alu_i(e, BPF_ADD, 3, base + so);
	alu_r(e, BPF_MOV, 2, 4);
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, jd0);
	fix(e, jd1);
	if (o->sz != UBPF_KJ_LAST)
		return;
	/* the end: its NUL, its len as a copy's, then the variable's */
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	st(e, BPF_DW, 2, (int16_t)jb, 0); /* (no address) */
	ldx(e, BPF_W, 3, 2, (int16_t)(jb + lo));
	jfull = jmp_i(e, BPF_JGE, 3, imm);
	alu_r(e, BPF_MOV, 1, 2);
	alu_i(e, BPF_ADD, 1, jb + so);
	alu_r(e, BPF_ADD, 1, 3);
	st(e, BPF_B, 1, 0, 0);
	alu_i(e, BPF_ADD, 3, 1);
	stx(e, BPF_W, 2, (int16_t)(jb + lo), 3);
	jput = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jfull);
	st(e, BPF_W, 2, (int16_t)(jb + lo), imm);
	fix(e, jput);
	sstr_put(e, o, fds, jb, vbase);
}

/* The copy at base into o's variable, or a strjoin()'s part appended */
static void sstr_to(struct em *e, const struct ubpf_kop *o, const int *fds,
		    int32_t base, int32_t vbase)
{
	if (o->sz)
		join_add(e, o, fds, base, vbase);
	else
		sstr_put(e, o, fds, base, vbase);
}

static void sstr(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t base, vbase, fo = (int32_t)sizeof(struct ubpf_kout) + o->agg;
	size_t jok;

	if (!tstr_base(e, o, &vbase))
		return;
	base = TSTR_AT(UBPF_KTSTR) - (int32_t)e->obase; /* the copy's */
	if (o->levels >= UBPF_KOUTS ||
	    (o->n == UBPF_KV_SELF && (fds[8] < 0 || fds[4] < 0))) {
		e->bad = true;
		return;
	}
	ostr_at(e, base, (int32_t)o->imm, 0);
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	ldx(e, BPF_DW, 1, 2, (int16_t)base);
	stx(e, BPF_DW, 2, (int16_t)fo, 1);
	stx(e, BPF_W, 2,
	    (int16_t)(fo + (int32_t)offsetof(struct ubpf_kostr, len)), 0);
	jok = jmp_i(e, BPF_JSGE, 0, 0);
	ldx(e, BPF_DW, 1, 2, 0);
	ld64(e, 3, 1ull << o->levels);
	alu_r(e, BPF_OR, 1, 3);
	stx(e, BPF_DW, 2, 0, 1);
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_i(e, BPF_OR, 1, S_FLAGS_REC);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
	e->sfj = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jok);
	sstr_to(e, o, fds, base, vbase);
}

/*
 * SSTR o flagged UBPF_KF_APRE (R2, above): seq_read()'s copy of
 * argument o->step at TSTR_AT(UBPF_KTSTR) (pre_copy()), its address and
 * length into the out area at o->agg, then into the variable as sstr()'s
 * copy goes.  Only a this-> string's: a self-> one's store keeps a
 * self-> variable, so its program has no R2 (kplan_vars.c's noastr).
 */
static void sstr_pre(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t base, vbase, fo = (int32_t)sizeof(struct ubpf_kout) + o->agg;

	if (!tstr_base(e, o, &vbase))
		return;
	if (o->n != UBPF_KV_THIS || o->jump) {
		e->bad = true;
		return;
	}
	base = TSTR_AT(UBPF_KTSTR) - (int32_t)e->obase; /* the copy's */
	if (!pre_copy(e, o, base, (int32_t)o->imm, 0))
		return;
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	ldx(e, BPF_DW, 1, 2, (int16_t)base);
	stx(e, BPF_DW, 2, (int16_t)fo, 1);
	stx(e, BPF_W, 2,
	    (int16_t)(fo + (int32_t)offsetof(struct ubpf_kostr, len)), 0);
	sstr_to(e, o, fds, base, vbase);
}

/*
 * The string (a struct ubpf_kostr) base bytes past S_OBUF into o's
 * variable, whose own bytes are at vbase: a this-> string's slot, or a
 * self-> string's entry in cgtlss (fds[8]), over the thread's entry
 * when it has one, else put there (the map allocates); one the map has
 * no room for is a dynamic variable drop (cgen_plan.c's cgen_tls_drop()).
 */
static void sstr_put(struct em *e, const struct ubpf_kop *o, const int *fds,
		     int32_t base, int32_t vbase)
{
	size_t jin, jend;

	if (o->n != UBPF_KV_SELF) { /* the this-> string's slot */
		ldx(e, BPF_DW, 1, 10, S_OBUF);
		alu_i(e, BPF_ADD, 1, vbase);
		sstr_len(e, o, base);
		call(e, BPF_FUNC_probe_read_kernel);
		return;
	}
	/* the thread's entry, there since its first store: the copy over
	 * it (only the thread reads or writes it), no allocation */
	cgen_tlss_call(e, o->slot, fds[8], BPF_FUNC_map_lookup_elem);
	jin = jmp_i(e, BPF_JEQ, 0, 0);
	alu_r(e, BPF_MOV, 1, 0);
	sstr_len(e, o, base);
	call(e, BPF_FUNC_probe_read_kernel);
	jend = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jin);
	ldmap(e, 1, fds[8]);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, S_VKEY);
	ldx(e, BPF_DW, 3, 10, S_OBUF);
	alu_i(e, BPF_ADD, 3, base);
	alu_i(e, BPF_MOV, 4, BPF_ANY);
	call(e, BPF_FUNC_map_update_elem);
	cgen_tls_drop(e, fds);
	fix(e, jend);
}

/* SCLR o: the variable reads "" (this->: its len 0; self->: deleted) */
static void sclr(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t base;

	if (!tstr_base(e, o, &base))
		return;
	if (o->n == UBPF_KV_THIS) {
		ldx(e, BPF_DW, 2, 10, S_OBUF);
		st(e, BPF_W, 2,
		   (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)),
		   0);
		return;
	}
	if (fds[8] < 0) {
		e->bad = true;
		return;
	}
	cgen_tlss_call(e, o->slot, fds[8], BPF_FUNC_map_delete_elem);
}

/*
 * SLIT pl->ops[*pc]: the literal of the step SDATA after it (kplan_str.c's
 * kp_str_lit_store(): shorter than strsize - 2, so its len tells it
 * from a copy an SSTR cut) written at TSTR_AT(UBPF_KTSTR) as a copy
 * of it would be, its len the NUL's included, then into the variable
 * as SSTR's copy goes (sstr_put()).  *pc is left on the last SDATA.
 */
void cgen_out_lit(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		  const int *fds)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	unsigned len = o->step;
	int32_t base, vbase, s = (int32_t)offsetof(struct ubpf_kostr, s);

	cgen_out_need(e);
	if (!tstr_base(e, o, &vbase))
		return;
	/* (a strjoin()'s part: any literal kp_join_parts() cut at imm, its
	 * len imm at most, which join_add() reads as a copy's) */
	if (len > UBPF_KSTRMAX || (len + 2 > o->imm && !o->sz) ||
	    len > o->imm || *pc + 1 + (len + 8) / 8 > pl->nops ||
	    (o->n == UBPF_KV_SELF && (fds[8] < 0 || fds[4] < 0))) {
		e->bad = true;
		return;
	}
	base = TSTR_AT(UBPF_KTSTR) - (int32_t)e->obase;
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	st(e, BPF_DW, 2, (int16_t)base, 0);
	st(e, BPF_W, 2,
	   (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)),
	   (int32_t)(len + 1 < o->imm ? len + 1 : o->imm));
	for (unsigned i = 0; i < (len + 8) / 8; i++) {
		ld64(e, 1, (uint64_t)pl->ops[*pc + 1 + i].imm);
		stx(e, BPF_DW, 2, (int16_t)(base + s + 8 * (int32_t)i), 1);
	}
	*pc += (len + 8) / 8;
	sstr_to(e, o, fds, base, vbase);
}

/*
 * SMOV o: the string variable of kind o->levels and slot o->step (a
 * self-> one's entry, or a this-> one's slot, len 0 when unset in the
 * firing) copied whole, its imm bytes, at TSTR_AT(UBPF_KTSTR), then
 * into o's variable as SSTR's copy goes (sstr_put()); one unset reads
 * "", so o's is cleared (sclr()), as run.c's var_set() stores "".
 */
static void smov(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	struct ubpf_kop from = { .n = (uint8_t)o->levels,
				 .slot = o->step,
				 .imm = o->imm };
	int32_t base, vbase, fbase;
	size_t jnone, jend;

	if (!tstr_base(e, o, &vbase) || !tstr_base(e, &from, &fbase))
		return;
	if ((o->n == UBPF_KV_SELF || from.n == UBPF_KV_SELF) &&
	    (fds[8] < 0 || fds[4] < 0)) {
		e->bad = true;
		return;
	}
	base = TSTR_AT(UBPF_KTSTR) - (int32_t)e->obase;
	if (from.n == UBPF_KV_SELF) {
		cgen_tlss_call(e, from.slot, fds[8], BPF_FUNC_map_lookup_elem);
		jnone = jmp_i(e, BPF_JEQ, 0, 0);
		alu_r(e, BPF_MOV, 3, 0);
	} else {
		ldx(e, BPF_DW, 3, 10, S_OBUF);
		alu_i(e, BPF_ADD, 3, fbase);
		ldx(e, BPF_W, 1, 3, (int16_t)offsetof(struct ubpf_kostr, len));
		jnone = jmp_i(e, BPF_JEQ, 1, 0);
	}
	ldx(e, BPF_DW, 1, 10, S_OBUF);
	alu_i(e, BPF_ADD, 1, base);
	alu_i(e, BPF_MOV, 2,
	      (int32_t)offsetof(struct ubpf_kostr, s) + (int32_t)o->imm);
	call(e, BPF_FUNC_probe_read_kernel);
	sstr_put(e, o, fds, base, vbase);
	jend = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jnone);
	sclr(e, o, fds);
	fix(e, jend);
}

/*
 * SCOMM o: execname, the hit's comm (cgen_svar.c's clen(): its 16
 * bytes NUL-padded at r10 + S_COMM, r1 its length), written at
 * TSTR_AT(UBPF_KTSTR) as SLIT writes a literal (address 0, len the
 * bytes with the NUL: kplan_str.c's kp_comm_store() keeps it below
 * strsize - 2, so it is told from a copy an SSTR cut), then into o's
 * variable as SSTR's copy goes (sstr_put()).  Nothing to fault.
 */
static void scomm(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t base, vbase, s = (int32_t)offsetof(struct ubpf_kostr, s);

	if (!tstr_base(e, o, &vbase))
		return;
	if (o->imm < UBPF_KCOMM + 1 ||
	    (o->n == UBPF_KV_SELF && (fds[8] < 0 || fds[4] < 0))) {
		e->bad = true;
		return;
	}
	base = TSTR_AT(UBPF_KTSTR) - (int32_t)e->obase;
	clen(e);
	alu_i(e, BPF_ADD, 1, 1); /* its NUL */
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	st(e, BPF_DW, 2, (int16_t)base, 0);
	stx(e, BPF_W, 2,
	    (int16_t)(base + (int32_t)offsetof(struct ubpf_kostr, len)), 1);
	for (int32_t i = 0; i < UBPF_KCOMM; i += 8) {
		ldx(e, BPF_DW, 1, 10, (int16_t)(S_COMM + i));
		stx(e, BPF_DW, 2, (int16_t)(base + s + i), 1);
	}
	sstr_put(e, o, fds, base, vbase);
}

/* OVSTR o: the variable's struct ubpf_kostr (imm bytes of its string)
 * into the out area at o->agg; a self-> one absent reads "" */
static void ovstr(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	int32_t base, dst = (int32_t)sizeof(struct ubpf_kout) + o->agg;
	int32_t size =
		(int32_t)offsetof(struct ubpf_kostr, s) + (int32_t)o->imm;
	size_t j = SIZE_MAX, jend = SIZE_MAX;

	if (!tstr_base(e, o, &base))
		return;
	if (o->n == UBPF_KV_SELF) {
		if (fds[8] < 0) {
			e->bad = true;
			return;
		}
		cgen_tlss_call(e, o->slot, fds[8], BPF_FUNC_map_lookup_elem);
		j = jmp_i(e, BPF_JNE, 0, 0);
		ldx(e, BPF_DW, 2, 10, S_OBUF);
		st(e, BPF_W, 2,
		   (int16_t)(dst + (int32_t)offsetof(struct ubpf_kostr, len)),
		   0);
		jend = jmp_i(e, BPF_JA, 0, 0);
		fix(e, j);
		alu_r(e, BPF_MOV, 3, 0);
	} else {
		ldx(e, BPF_DW, 3, 10, S_OBUF);
		alu_i(e, BPF_ADD, 3, base);
	}
	ldx(e, BPF_DW, 1, 10, S_OBUF);
	alu_i(e, BPF_ADD, 1, dst);
	alu_i(e, BPF_MOV, 2, size);
	call(e, BPF_FUNC_probe_read_kernel);
	if (jend != SIZE_MAX)
		fix(e, jend);
}

/*
 * The tags of the speculation steps (cgen_spec.c), their id and act
 * zeroed where the area starts, r0 its address (cgen_out_need()): a
 * step not reached at this hit reads act 0 (the area keeps the bytes
 * of the last hit that used the CPU's cgbuf).
 */
void cgen_out_ktags(struct em *e, const struct ubpf_kplan *pl)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];

		if (o->op == UBPF_K_SPEC || o->op == UBPF_K_SPECU ||
		    o->op == UBPF_K_SPECX)
			st(e, BPF_DW, 0,
			   (int16_t)(sizeof(struct ubpf_kout) + o->slot), 0);
		else if (o->op == UBPF_K_SLIT) /* its SDATA */
			pc += (o->step + 8u) / 8u;
	}
}

void cgen_out_tstr(struct em *e, const struct ubpf_kplan *pl)
{
	unsigned done = 0;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		/* the variable, and SMOV's source */
		struct ubpf_kop v[2] = { *o,
					 { .n = (uint8_t)o->levels,
					   .slot = o->step,
					   .imm = o->imm } };
		int32_t base;

		if (o->op != UBPF_K_SSTR && o->op != UBPF_K_SCLR &&
		    o->op != UBPF_K_OVSTR && o->op != UBPF_K_SLIT &&
		    o->op != UBPF_K_SMOV && o->op != UBPF_K_SCOMM)
			continue;
		for (unsigned i = 0; i < (o->op == UBPF_K_SMOV ? 2u : 1u);
		     i++) {
			if (v[i].n != UBPF_KV_THIS ||
			    !tstr_base(e, &v[i], &base) ||
			    (done >> v[i].slot & 1))
				continue;
			done |= 1u << v[i].slot;
			ldx(e, BPF_DW, 2, 10, S_OBUF);
			st(e, BPF_W, 2,
			   (int16_t)(base +
				     (int32_t)offsetof(struct ubpf_kostr, len)),
			   0);
		}
		/* a ?: tree's copies' slot: a literal taken, no fault
		 * (kplan_stmt.c's tree_store()) */
		if (o->op == UBPF_K_SSTR && (o->flags & UBPF_KF_STREE) &&
		    !(o->flags & UBPF_KF_ALT) && /* (once: the last's) */
		    sizeof(struct ubpf_kout) + o->agg +
				    ubpf_kop_room(UBPF_K_SSTR) <=
			    UBPF_KOUTMAX) {
			ldx(e, BPF_DW, 2, 10, S_OBUF);
			st(e, BPF_W, 2,
			   (int16_t)(sizeof(struct ubpf_kout) + o->agg +
				     offsetof(struct ubpf_kostr, len)),
			   0);
		}
		if (o->op == UBPF_K_SLIT) /* its SDATA */
			pc += (o->step + 8u) / 8u;
	}
}

/* ODONE: UBPF_KSPEC_WHOLE into the act of each reached tag since the
 * last ODONE (e->ktag, cgen_plan.c's; an unreached one stays act 0): its
 * clause got here, past every fault site's jump */
static void ktags_whole(struct em *e)
{
	for (unsigned i = 0; i < e->nktag; i++) {
		int16_t at =
			(int16_t)(e->ktag[i] +
				  (int16_t)offsetof(struct ubpf_kspec, act));
		size_t j;

		ldx(e, BPF_DW, 2, 10, S_OBUF);
		ldx(e, BPF_W, 1, 2, at);
		j = jmp_i(e, BPF_JEQ, 1, 0);
		alu_i(e, BPF_OR, 1, UBPF_KSPEC_WHOLE);
		stx(e, BPF_W, 2, at, 1);
		fix(e, j);
	}
	e->nktag = 0;
}

void cgen_out_op(struct em *e, const struct ubpf_kop *o, unsigned *sp,
		 const int *fds)
{
	/* the area, unless the op touches nothing of cgbuf: a clause that
	 * only stores (ODONE's NOREC, but where it marks tags whole), a
	 * self-> string cleared */
	if (!(o->op == UBPF_K_ODONE && (o->flags & UBPF_KF_NOREC) &&
	      !e->nktag) &&
	    !(o->op == UBPF_K_SCLR && o->n == UBPF_KV_SELF))
		cgen_out_need(e);
	if (o->op == UBPF_K_SCLR) {
		sclr(e, o, fds);
		return;
	}
	if (o->op == UBPF_K_OVSTR) {
		ovstr(e, o, fds);
		return;
	}
	if (o->op == UBPF_K_MSTR) {
		mstr(e, o);
		return;
	}
	if (o->op == UBPF_K_SMOV) {
		smov(e, o, fds);
		return;
	}
	if (o->op == UBPF_K_SCOMM) {
		scomm(e, o, fds);
		return;
	}
	if (o->op == UBPF_K_ODONE) {
		if (o->n >= UBPF_KOUTS) {
			e->bad = true;
			return;
		}
		ktags_whole(e);
		if (o->flags & UBPF_KF_NOREC) /* its SSTR set it, if faulted */
			return;
		ldx(e, BPF_DW, 2, 10, S_OBUF);
		ldx(e, BPF_DW, 1, 2, 0);
		if (o->n < 31) {
			alu_i(e, BPF_OR, 1, (int32_t)(1u << o->n));
		} else {
			ld64(e, 3, 1ull << o->n);
			alu_r(e, BPF_OR, 1, 3);
		}
		stx(e, BPF_DW, 2, 0, 1);
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_OR, 1, S_FLAGS_REC);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
		return;
	}
	if ((o->op == UBPF_K_OSTR || o->op == UBPF_K_SSTR) &&
	    (o->flags & UBPF_KF_APRE)) { /* R2: nothing popped but N */
		if (o->flags & UBPF_KF_NCNT) {
			if (o->op != UBPF_K_OSTR || *sp < 1) {
				e->bad = true;
				return;
			}
			--*sp;
		}
		if (o->op == UBPF_K_OSTR)
			ostr_pre(e, o,
				 (o->flags & UBPF_KF_NCNT) ? (int16_t)S_STK(*sp)
							   : 0);
		else
			sstr_pre(e, o, fds);
		return;
	}
	/* (the room kp_out_op() laid out, ubpf_kop_room(): a string's past
	 * an OUT near the area's end once refused the plan the planner had
	 * fitted; an SSTR's, its address and length at agg, tstr_base()
	 * bounds) */
	if (*sp < ((o->flags & UBPF_KF_NCNT) ? 2u : 1u) ||
	    (o->op != UBPF_K_SSTR &&
	     sizeof(struct ubpf_kout) + o->slot + ubpf_kop_room(o->op) >
		     UBPF_KOUTMAX) ||
	    ((o->flags & UBPF_KF_KEEP) && o->op != UBPF_K_OUT) ||
	    ((o->flags & UBPF_KF_NCNT) && o->op != UBPF_K_OSTR)) {
		e->bad = true;
		return;
	}
	/* NCNT: copyinstr(E, N)'s N, popped first, read at its slot */
	if (o->flags & UBPF_KF_NCNT)
		--*sp;
	/* KEEP: an if's condition, left on the stack for its PRED */
	ldx(e, BPF_DW, 1, 10,
	    (int16_t)S_STK((o->flags & UBPF_KF_KEEP) ? *sp - 1 : --*sp));
	if (o->op == UBPF_K_SSTR) {
		sstr(e, o, fds);
		return;
	}
	if (o->op == UBPF_K_OSTR) {
		ostr(e, o,
		     (o->flags & UBPF_KF_NCNT) ? (int16_t)S_STK(*sp + 1) : 0);
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_OBUF);
	stx(e, BPF_DW, 2, (int16_t)(sizeof(struct ubpf_kout) + o->slot), 1);
}

/* ------------------------------------------------------------------ */
/* dtrace */

bool cg_out_rec(struct consumer *c, const uint8_t *raw, size_t len, size_t *off,
		bool kprobe)
{
	struct ubpf_kout h;

	c->kout = NULL;
	c->koutk = kprobe; /* its copies' faults stay (kplan_out.c) */
	if (*off + sizeof(h) > len)
		return false;
	memcpy(&h, raw + *off, sizeof(h));
	if (h.bytes < sizeof(h) || h.bytes > UBPF_KOUTMAX ||
	    *off + h.bytes > len)
		return false;
	/* (ran 0 too: a clause whose area says it did not run, one user
	 * space runs from the kernel's values, is not run: cg_out_vin()) */
	if (c->kagg_rec) {
		c->kout = raw + *off;
		c->koutlen = (size_t)h.bytes;
	}
	*off += (size_t)h.bytes;
	return true;
}

/* The run's plans, where the kernel aggregates */
static const struct d_kplan *kplan_of(struct consumer *c)
{
	struct bpf_kagg *ka = bpf_kagg_of(c);

	return ka ? bpf_kagg_kp(ka) : NULL;
}

/*
 * The next area of the record w walks, clause's (the areas are in the
 * probe's order of the clauses that have one), its *n bytes; NULL where
 * the kernel says the clause did not run there, or the record is short.
 * w moves past it either way.
 */
static const uint8_t *area_next(struct consumer *c, const struct d_kplan *k,
				unsigned clause, struct cg_out_walk *w,
				unsigned *n)
{
	struct ubpf_kout h;
	unsigned ord = w->ord++;
	size_t off = w->off;

	*n = d_kplan_out_rec_bytes(k, clause);
	w->off += *n;
	memcpy(&h, c->kout, sizeof(h));
	if (ord >= UBPF_KOUTS || !(h.ran >> ord & 1) ||
	    sizeof(h) + off + *n > c->koutlen)
		return NULL;
	return c->kout + sizeof(h) + off;
}

bool cg_out_run(struct consumer *c, unsigned clause, const struct d_fire *f,
		struct cg_out_walk *w, int *rv)
{
	const struct d_kplan *k = kplan_of(c);
	const uint8_t *a;
	unsigned n;

	if (!c->kout || !k || !d_kplan_out_area(k, clause))
		return false;
	if (!(a = area_next(c, k, clause, w, &n)))
		return false;
	*rv = d_kplan_out_run(k, clause, a, n, f, c->koutk, c->out, stderr);
	return true;
}

int cg_out_vin(struct consumer *c, unsigned clause, const struct d_fire *f,
	       struct cg_out_walk *w, struct dv **save)
{
	const struct d_kplan *k = kplan_of(c);
	const uint8_t *a;
	unsigned n;

	/* no area (the in-process activation's record, whose plans keep
	 * no variable): the clause as any other */
	if (!c->kout || !k || !d_kplan_vin(k, clause))
		return -1;
	if (!(a = area_next(c, k, clause, w, &n)))
		return 0;
	*save = d_kplan_vin_put(k, clause, a, n, (int32_t)f->tid);
	return *save ? 1 : 0;
}

void cg_out_vin_end(struct consumer *c, unsigned clause,
		    const struct d_fire *f, struct dv *save)
{
	struct bpf_kagg *ka = bpf_kagg_of(c);

	if (ka)
		d_kplan_vin_back(bpf_kagg_kp(ka), clause, (int32_t)f->tid,
				 save);
	else
		free(save);
}

/* ------------------------------------------------------------------ */
/* Speculations in the kernel: the tags (kplan.h's d_kplan_kspec()) */

/* The tags of clause's area a (n bytes) handed over: ahead, by the pass
 * (opens and holds of IDs, stamped stamp, and closes told); else at the
 * hit's place (a failed speculation counted; where the pass did not
 * take the hit, its opens and holds, stamped 0: it has run; closes run,
 * told where it did) */
static void kspec_tags(struct consumer *c, const struct d_kplan *k,
		       unsigned clause, const uint8_t *a, unsigned n,
		       const struct d_fire *f, bool ahead, bool taken,
		       uint64_t stamp)
{
	struct d_kstag t[UBPF_KOUTMAX / sizeof(struct ubpf_kspec)];
	unsigned nt = d_kplan_kspec_tags(k, clause, a, n, t,
					 sizeof(t) / sizeof(t[0]));

	for (unsigned i = 0; i < nt; i++) {
		bool active = (t[i].act & UBPF_KSPEC_ACTIVE) != 0;
		char *rec = NULL;
		size_t rlen = 0;

		if (!(t[i].act & UBPF_KSPEC_REACHED))
			continue; /* not reached at this hit */
		switch (t[i].kind) {
		case KS_TAKE:
			if (!t[i].id) { /* failed: counted at its place */
				if (!ahead)
					d_kspec_open(c->prog, 0, 0);
			} else if (ahead || !taken) {
				d_kspec_open(c->prog, t[i].id, t[i].n);
			}
			break;
		case KS_STEP: /* speculate(0), or an inactive buffer: none */
			if (!t[i].id || !active || (!ahead && taken))
				break;
			/* a hole (no record, no byte of specsize): its
			 * clause faulted after the step (no WHOLE: a
			 * site's jump, or a copy's), or the walk meets a
			 * copy's fault; the place reports it */
			if (!(t[i].act & UBPF_KSPEC_WHOLE) ||
			    !d_kplan_kspec_text(k, clause, a, n, f, &rec,
						&rlen))
				rec = NULL;
			d_kspec_hold(c->prog, t[i].id, t[i].n,
				     ahead ? stamp : 0, rec, rlen);
			free(rec);
			break;
		default: /* commit(), discard() that found it active */
			if (!active)
				break;
			if (ahead)
				d_kspec_ahead(c->prog, t[i].id, t[i].n);
			else
				d_kspec_close(c->prog, t[i].id, t[i].n,
					      t[i].kind == KS_COMMIT, taken,
					      c->out);
			break;
		}
	}
}

/* Clause's own record at its place, where it reached no speculate()
 * (doc/DESIGN.md's "Own records": a take, a close; a reached
 * speculate()'s record is held or dropped): printed where the clause
 * ran to its end (every reached tag UBPF_KSPEC_WHOLE) with no fault
 * (flt: the site's or the area's), or where the fault came after a
 * reached commit() that found its buffer active, as the interpreter's
 * commit() at the statement leaves its record and the buffer printed
 * before the fault (../d/stmt.c's write_record()) */
static void kspec_own(struct consumer *c, const struct d_kplan *k,
		      unsigned clause, const uint8_t *a, unsigned n,
		      const struct d_fire *f, bool flt)
{
	struct d_kstag t[UBPF_KOUTMAX / sizeof(struct ubpf_kspec)];
	unsigned nt = d_kplan_kspec_tags(k, clause, a, n, t,
					 sizeof(t) / sizeof(t[0]));
	bool stepped = false, whole = true, commit = false;

	for (unsigned i = 0; i < nt; i++) {
		if (!(t[i].act & UBPF_KSPEC_REACHED))
			continue;
		if (t[i].kind == KS_STEP)
			return;
		whole &= (t[i].act & UBPF_KSPEC_WHOLE) != 0;
		stepped |= t[i].kind != KS_TAKE;
		commit |= t[i].kind == KS_COMMIT &&
			  (t[i].act & UBPF_KSPEC_ACTIVE);
	}
	if (flt ? commit : whole)
		(void)d_kplan_kspec_own(k, clause, a, n, f, stepped, flt,
					c->out);
}

bool cg_kspec_run(struct consumer *c, unsigned clause, const struct d_fire *f,
		  struct cg_out_walk *w, bool taken, int *rv)
{
	const struct d_kplan *k = kplan_of(c);
	const uint8_t *a = NULL;
	unsigned n = 0;
	int action;
	uint64_t addr;
	enum d_run_flt kind = D_RUNF_ADDR;
	bool flt;

	*rv = 0;
	if (!c->kout || !k || !d_kplan_kspec_clause(k, clause))
		return false;
	if (d_kplan_out_area(k, clause))
		a = area_next(c, k, clause, w, &n);
	/* its one fault, reported at its place after its record and its
	 * closes (never the pass's: its holds are holes): a site's (an ID
	 * past nspec, a compare, a lost clock), else the first on the walk
	 * of its area (a copy's).  Only one can be real: no site follows a
	 * copy that does not jump, and one that jumps ends the clause */
	flt = bpf_kagg_fault(c, clause, f, &action, &kind, &addr) ||
	      (a && d_kplan_kspec_fault(k, clause, a, n, f, &action, &addr));
	if (a) {
		/* the clause's own record, then its closes, in DTrace's
		 * order: a commit()'s buffer follows its clause's record */
		kspec_own(c, k, clause, a, n, f, flt);
		kspec_tags(c, k, clause, a, n, f, false, taken, 0);
	}
	if (flt)
		*rv = d_run_fault(c->prog, clause, f, action, kind, addr,
				  stderr);
	return true;
}

void cg_kspec_pass(struct consumer *c, const unsigned *cl, unsigned n,
		   const unsigned *ucl, unsigned nu, const uint8_t *kout,
		   size_t koutlen, const struct d_fire *f, uint64_t stamp)
{
	const struct d_kplan *k = kplan_of(c);
	const uint8_t *sk = c->kout;
	size_t sl = c->koutlen;
	struct cg_out_walk w = { 0 };
	unsigned j = 0;

	if (!k)
		return;
	/* the area walked as hit_run_kagg() walks it (records.c) */
	c->kout = kout;
	c->koutlen = koutlen;
	for (unsigned i = 0; i < n; i++) {
		bool user = j < nu && ucl[j] == cl[i];
		const uint8_t *a;
		unsigned an;

		if (user) {
			j++;
			if ((d_kplan_sout(k, cl[i]) &&
			     d_kplan_out_area(k, cl[i])) ||
			    d_kplan_vin(k, cl[i]))
				(void)area_next(c, k, cl[i], &w, &an);
			continue;
		}
		if (!d_kplan_out_area(k, cl[i]))
			continue;
		a = area_next(c, k, cl[i], &w, &an);
		if (a && d_kplan_kspec_clause(k, cl[i]))
			kspec_tags(c, k, cl[i], a, an, f, true, false, stamp);
	}
	c->kout = sk;
	c->koutlen = sl;
}
