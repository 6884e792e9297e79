// SPDX-License-Identifier: MIT
/*
 * cgen_sarg.c - a plan's string arguments as code: SEQ, SKEY, SKEY2
 * and the copies they read, and the fault sites, part of stage 2 of a
 * generated program (cgen_plan.c, whose cgen_plan() calls seq_read(),
 * seq(), skey() and skey2()).
 *
 * SEQ, a string
 * argument compared with a literal: seq_read() copies each such
 * argument's string into cgbuf before the first clause runs (a
 * fault ends the plan there: the record goes unflagged and user
 * space runs every clause) -- onto the stack, where the plan only
 * compares it and a uprobe's argument slots past its nargs hold a
 * copy longer than the literals, so the program needs no cgbuf
 * before its record (seq_stack(): the bytes the compares need,
 * and where longer, copyinstr()'s fault told by the page those
 * ended in, or the rest read on in pieces to fault where its
 * strsize - 1 bytes would) -- and SEQ compares its length with the
 * literal's and its bytes a word at a time (8, then 4, 2, 1 bytes
 * for the tail), the literal's words as immediates -- a SEQ (not
 * !=) whose PRED follows it jumping straight to the clause's end on
 * the first difference (seq_pred()) -- (where the kernel
 * keeps self-> variables, each SEQ is a fault site instead: below);
 * SKEY copies it
 * the same way, NUL-padded (its part of cgbuf zeroed before the
 * copy), into a key of kaggs_s built in cgbuf (a key longer than
 * its 64 bytes ends the plan as a fault does), which AGG then
 * uses; both walk the bytes with str_chunks().  SKEY2 copies a second
 * argument's string after the first's NUL in its s (skey2()).  SLEN
 * pushes its length (slen(), cgen_plan.c's: the copy's count less the
 * NUL, cut to strsize -
 * 1; no seq_stack() copy, and a copy too full to tell it ends the
 * plan as a fault does).  An OSTR or SSTR flagged UBPF_KF_APRE (R2 of
 * doc/DESIGN.md §8, kplan_out.c) reads its argument's copy in cgbuf
 * (cgen_out.c's ostr_pre(): e->oparg, no seq_stack() copy), so a
 * printed argument string that cannot be read sends the hit to user
 * space whole too; the arguments each op reads are kplan.h's
 * d_kplan_op_strargs(), which kplan_emit.c counts against
 * UBPF_KSTRARGS.  An ordered SEQ (< <= > >=) is seq_ord(),
 * cgen_svar.c's, with the other compares of padded words.
 *
 * Faults at the
 * hit: a plan whose SEQ carry fault sites (kplan.c's, for
 * programs whose kernel keeps self-> variables, which no hit can
 * take to user space; SC skips the right side of an && or || that
 * may fault when the left decides, as run.c does) reads each
 * string as far as run.c would (pl->fstr bytes) and, when one
 * cannot be read, a byte at its address to tell where (there, or
 * the page after it); each SEQ
 * on such a string sets its site's bits in the upper half of
 * S_FLAGS and ends its clause, what it did so far kept, and the
 * record (written then even when no clause needs it) carries the
 * bits, flagged UBPF_RF_KFAULT, in its last 8 bytes: dtrace
 * reports the fault and fires ERROR in the clause's place
 * (records.c's hit_run_kagg()).
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
#include "kplan.h"

/*
 * The strings the plan's SEQ instructions compare (and SKEY, CACMP,
 * SMKEY and VACMP read), copied before any
 * of its clauses runs, each into its place in cgbuf (buf: its map).  A
 * string that cannot be read (a fault) ends the plan before it did
 * anything: the hit's record goes unflagged, so user space runs every
 * clause, reading the string as it would have (d_arg_str()), with the
 * same result as the generic program.  A plan that keeps self->
 * variables cannot send a hit there: its SEQ are fault sites
 * (cgen_fsites()), and a string that cannot be read is the hit's fault,
 * which seq() records in place.
 */
/* Is a, a string argument of the plan, a bounded copy's string whose
 * faults a BCPY of it decides (kplan_bstr.c's bfault)?  Its R2 reads
 * (an OSTR or SSTR flagged UBPF_KF_APRE) then follow a BCPY that
 * passed, and cannot fault. */
static bool bcpy_read(const struct ubpf_kplan *pl, unsigned a)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_BCPY &&
		    a == (unsigned)UBPF_KBSTR(pl->ops[pc].n,
					      pl->ops[pc].levels))
			return true;
	return false;
}

/*
 * Does the plan's SEQ fault at the hit (kplan.c's fault sites: every
 * SEQ, VACMP and AKEY has one, or none does), or an MLD (a copy's fault site,
 * cgen_mem.c's mld_fault(): the record carries those bits alike)?  A
 * plan with sites reads
 * pl->fstr bytes of each string (strsize - 1, the helper's size: it
 * reads up to that many, stopping after a NUL, and cuts the last for
 * its own NUL), the bytes run.c's d_read_user_str() reads (at most
 * strsize - 1, a page at a time, the string up to its NUL or cut
 * there), so a string faults here exactly where it would there; a
 * VACMP's or AKEY's copy that filled them has that last byte read
 * again (e->rbarg), so it holds strsize - 1 bytes as copyinstr() gives
 * them.  It has no SKEY (a key too long is not a fault, and goes to
 * user space: an argument's string is AKEY's there).  e->bad when
 * mixed.
 */
bool cgen_fsites(struct em *e, const struct ubpf_kplan *pl)
{
	bool any = false, none = false;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];

		bool cmp = o->op == UBPF_K_SEQ || o->op == UBPF_K_VACMP ||
			   o->op == UBPF_K_CACMP || o->op == UBPF_K_AKEY;

		if ((cmp && o->agg) || (o->op == UBPF_K_BCPY && o->agg) ||
		    ((o->op == UBPF_K_MLD || o->op == UBPF_K_VTIME) &&
		     o->slot) ||
		    (o->op == UBPF_K_SPECU && o->n) ||
		    (o->op == UBPF_K_SPECX && o->levels))
			any = true;
		else if (cmp || o->op == UBPF_K_SKEY ||
			 o->op == UBPF_K_SMKEY || o->op == UBPF_K_SKEY2 ||
			 o->op == UBPF_K_SLEN ||
			 ((o->op == UBPF_K_OSTR || o->op == UBPF_K_SSTR) &&
			  (o->flags & UBPF_KF_APRE) && !bcpy_read(pl, o->step)))
			none = true;
		if (cmp && (o->agg > UBPF_KFSITES ||
			    (o->agg && (o->jump <= pc || o->jump > pl->nops))))
			e->bad = true;
		if (o->op == UBPF_K_VTIME && o->slot &&
		    (o->slot > UBPF_KFSITES || o->jump <= pc ||
		     o->jump > pl->nops))
			e->bad = true;
		if (o->op == UBPF_K_BCPY &&
		    (!o->agg || o->agg > UBPF_KFSITES || o->jump <= pc ||
		     o->jump > pl->nops || o->step > UBPF_KBCPYPREV))
			e->bad = true;
	}
	if (any && (none || !pl->fstr || pl->fstr > UBPF_STRMAX))
		e->bad = true;
	return any;
}

/*
 * seq_read()'s copies on the stack, where every string the plan reads
 * is only compared with literals (SEQ: no SKEY, CACMP or SMKEY, no
 * fault sites) and the argument slots past the event's nargs (e->sroom
 * bytes, cgen.c's) hold, for each, a room of sn bytes (a multiple of
 * 8, 24 or more) two longer than its longest literal (a uprobe's
 * and a kernel probe's alike): the plan then addresses no cgbuf, and
 * its hit takes the owner word only where a later stage needs it
 * (cgen.c's own_need()).  The first read is of c bytes, what
 * the compares need (the longest literal and two, its NUL and a byte
 * past it, rounded up to a word: strncpy_from_user() reads a word at
 * a time and below a word's size a byte at a time).  One that finds the
 * NUL (a count below c) has the string whole, as copyinstr() would; one
 * that does not (c: c - 1 bytes or more) has a string longer than every
 * literal compared with it, so equal to none, and what is left to tell
 * is whether copyinstr() would have faulted on it: run.c's
 * d_read_user_str() reads pl->fstr bytes (strsize - 1) or to the NUL,
 * a fault sending the hit to the unflagged record (user space runs
 * the clause, which reports the error).  Where those bytes end in the
 * page the first read's last byte lies in (4,096-byte pages or larger:
 * a page reads whole or not at all), they read too, and the mismatch
 * stands with no more reads -- the common case of a long string.
 * Else (bytes past that page, or c past pl->fstr: none) the rest is
 * read on in pieces of sn bytes, each from the last byte of the one
 * before (which the helper replaced by its NUL), until one finds the
 * NUL or the last ends at byte pl->fstr - 1, a fault going where
 * seq_read()'s goes.  bpf_probe_read_user_str() faults only on a byte
 * up to the NUL or its size (strncpy_from_user() falls back to a byte
 * at a time where a word faults), the same bytes piece by piece as in
 * one read; a first read past pl->fstr that faults sends a hit user
 * space would not fault on to it, which decides it alike.  S_SLEN(j)
 * is the first read's count (stored before it is tested: a fault's
 * goes unread); the copy of argument j is at e->soff + j * sn
 * (str_chunks()).  The hit that finds the NUL takes one test after
 * the helper: the count unsigned below c (a fault's is negative).
 */
static bool seq_stack(struct em *e, const struct ubpf_kplan *pl)
{
	unsigned need[UBPF_KSTRARGS] = { 0 }, n;

	/* strsize - 1 past UBPF_STRMAX: seq_read()'s copy in cgbuf,
	 * which sends a string it cut to user space */
	if (!e->sroom || !e->nsarg || e->nsarg > UBPF_KSTRARGS ||
	    e->nfj + e->nsarg > sizeof(e->fj) / sizeof(e->fj[0]) || !pl->fstr ||
	    pl->fstr > UBPF_STRMAX)
		return false;
	/* (R2's OSTR and SSTR read their copy from cgbuf too, and a
	 * bounded copy's string is read there, bounded_read()) */
	for (unsigned j = 0; j < e->nsarg; j++)
		if (e->skarg[j] || e->czarg[j] || e->oparg[j] ||
		    e->sarg[j] >= UBPF_KBSTR0 || e->sarg[j] >= e->nargs)
			return false;
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j;

		/* VACMP's compare reads cgbuf's copy (vacmp()), and so
		 * do an ordered SEQ's (seq_ord()) and AKEY (akey()) */
		if (o->op == UBPF_K_VACMP || o->op == UBPF_K_SLEN ||
		    o->op == UBPF_K_AKEY || (o->op == UBPF_K_SEQ && o->levels))
			return false;
		if (o->op != UBPF_K_SEQ)
			continue;
		for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
			;
		if (j < e->nsarg && o->step + 2u > need[j])
			need[j] = o->step + 2u;
	}
	n = (e->sroom / e->nsarg) & ~7u;
	if (n > UBPF_STRMAX)
		n = UBPF_STRMAX;
	if (n < 24)
		return false;
	for (unsigned j = 0; j < e->nsarg; j++)
		if (need[j] > n)
			return false;
	e->sn = (uint16_t)n;
	for (unsigned j = 0; j < e->nsarg; j++) {
		int32_t at = e->soff + (int32_t)(j * n);
		int16_t sa = (int16_t)S_ARG(e->sarg[j]);
		/* the first read and pieces of 24 bytes or more: 13 */
		size_t jf[UBPF_STRMAX / 23 + 3], jd[UBPF_STRMAX / 23 + 4];
		unsigned nf = 0, nd = 0, c = (need[j] + 7u) & ~7u, off, sz;

		if (c < 8) /* not reached: every string is a SEQ's */
			c = 8;
		alu_r(e, BPF_MOV, 1, 10);
		alu_i(e, BPF_ADD, 1, at);
		alu_i(e, BPF_MOV, 2, (int32_t)c);
		ldx(e, BPF_DW, 3, 10, sa);
		call(e, BPF_FUNC_probe_read_user_str);
		stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0);   /* for SEQ */
		jd[nd++] = jmp_i(e, BPF_JLT, 0, (int32_t)c); /* NUL */
		jf[nf++] = jmp_i(e, BPF_JSLT, 0, 0);
		/* c bytes, no NUL: copyinstr()'s pl->fstr in the page of
		 * the last of them */
		if (c < pl->fstr) {
			ldx(e, BPF_DW, 3, 10, sa);
			alu_r(e, BPF_MOV, 4, 3);
			alu_i(e, BPF_ADD, 3, (int32_t)c - 1);
			alu_i(e, BPF_ADD, 4, (int32_t)pl->fstr - 1);
			alu_r(e, BPF_XOR, 3, 4);
			alu_i(e, BPF_RSH, 3, 12);
			jd[nd++] = jmp_i(e, BPF_JEQ, 3, 0);
		}
		for (off = c - 1; off + 1 < pl->fstr; off += sz - 1) {
			sz = pl->fstr - off < n ? pl->fstr - off : n;
			alu_r(e, BPF_MOV, 1, 10);
			alu_i(e, BPF_ADD, 1, at);
			alu_i(e, BPF_MOV, 2, (int32_t)sz);
			ldx(e, BPF_DW, 3, 10, sa);
			alu_i(e, BPF_ADD, 3, (int32_t)off);
			call(e, BPF_FUNC_probe_read_user_str);
			jf[nf++] = jmp_i(e, BPF_JSLT, 0, 0);
			if (off + sz >= pl->fstr)
				break;
			jd[nd++] = jmp_i(e, BPF_JLT, 0, (int32_t)sz); /* NUL */
		}
		jd[nd++] = jmp_i(e, BPF_JA, 0, 0);
		for (unsigned i = 0; i < nf; i++) /* a fault: seq_read()'s */
			fix(e, jf[i]);
		e->fj[e->nfj++] = jmp_i(e, BPF_JA, 0, 0);
		for (unsigned i = 0; i < nd; i++)
			fix(e, jd[i]);
	}
	return true;
}

/* Does o read its argument's string whole, as copyinstr() gives it
 * (VACMP, an ordered SEQ, AKEY; CACMP up to strsize - 1 bytes, which
 * matter where that is below execname's 16), not only up to a
 * literal's length? */
static bool seq_whole(const struct ubpf_kop *o)
{
	return o->op == UBPF_K_VACMP || o->op == UBPF_K_AKEY ||
	       o->op == UBPF_K_CACMP ||
	       (o->op == UBPF_K_SEQ && o->levels);
}

/* Does an SLEN of the plan measure argument a's string? */
static bool slen_of(const struct ubpf_kplan *pl, unsigned a)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_SLEN && pl->ops[pc].n == a)
			return true;
	return false;
}

void arg_addr(struct em *e, int reg, unsigned a)
{
	unsigned n = a >= UBPF_KBSTR0 ? UBPF_KBSTR_A(a) : a;

	if (n < e->nargs && n < UBPF_MAXARGS)
		ldx(e, BPF_DW, (uint8_t)reg, 10, (int16_t)S_ARG(n));
	else /* none: 0, as the record has it */
		alu_i(e, BPF_MOV, (uint8_t)reg, 0);
}

/*
 * A bounded copy's string (kplan_bstr.c), seq_read()'s j-th, r1 its
 * room: what run.c's copyin(argA, argL + 1) would fault on sends the
 * hit to user space, as a string that cannot be read does (e->fj):
 * argL past UBPF_KBSTRMAX - 1, unsigned (a negative one too), or its
 * first or last byte (at A, A + argL) not read -- with at most
 * UBPF_KBSTRMAX bytes those lie on every page the copy touches, and a
 * page reads whole or not at all.  Then r2 the helper's size: argL
 * bytes at most (UBPF_STRMAX - 1 where more, which seq_read() then
 * treats as any argument's string cut there) and the NUL; r1 the room
 * again.  A copy that faulted or is cut is a hit for user space, so
 * run.c's "invalid address" and "out of scratch space" stay its own.
 */
static bool bounded_read(struct em *e, unsigned j)
{
	int16_t la = (int16_t)S_ARG(UBPF_KBSTR_L(e->sarg[j]));
	size_t jc;

	if (e->nfj + 3 > sizeof(e->fj) / sizeof(e->fj[0]))
		return false;
	ldx(e, BPF_DW, 2, 10, la);
	e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 2, UBPF_KBSTRMAX - 1);
	for (int last = 0; last < 2; last++) {
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		alu_i(e, BPF_ADD, 1, SEQ_AT(j));
		alu_i(e, BPF_MOV, 2, 1);
		arg_addr(e, 3, e->sarg[j]);
		if (last) {
			ldx(e, BPF_DW, 4, 10, la);
			alu_r(e, BPF_ADD, 3, 4);
		}
		call(e, BPF_FUNC_probe_read_user);
		e->fj[e->nfj++] = jmp_i(e, BPF_JNE, 0, 0);
	}
	/* a room read whole where SKEY zeroed it: the byte read is
	 * rewritten (the helper's copy starts there) */
	ldx(e, BPF_DW, 2, 10, la);
	jc = jmp_i(e, BPF_JLT, 2, UBPF_STRMAX - 1);
	alu_i(e, BPF_MOV, 2, UBPF_STRMAX - 1);
	fix(e, jc);
	alu_i(e, BPF_ADD, 2, 1);
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, SEQ_AT(j));
	return true;
}

/* into register reg argument n's value, 0 where the event has none
 * (as the record has it) */
static void arg_val(struct em *e, int reg, unsigned n)
{
	if (n < e->nargs && n < UBPF_MAXARGS)
		ldx(e, BPF_DW, (uint8_t)reg, 10, (int16_t)S_ARG(n));
	else
		alu_i(e, BPF_MOV, (uint8_t)reg, 0);
}

/*
 * A bounded copy's string where its fault is the hit's (kplan_bstr.c's
 * bfault: the plan has fault sites), seq_read()'s j-th, r1 its room:
 * nothing here sends the hit anywhere; a BCPY of it (bcpy(), below)
 * decides run.c's fault at the copy's statement, from argL and
 * S_SLEN(j), which is -1 where a byte of the copy cannot be read.
 * argL past UBPF_KBCPYBUDGET - 1 (unsigned: -1 and the negative ones
 * too) reads nothing: BCPY faults on it whatever the bytes are.  Else
 * byte A, then the first byte of each page after it up to A + argL,
 * 17 pages at most (a page reads whole or not at all), then the string
 * as run.c's stringof() of the cut copy has it: up to a NUL, argL or
 * pl->fstr (strsize - 1, at most UBPF_STRMAX - 1 here) bytes, the
 * helper's count with its NUL in S_SLEN(j).
 */
static void bounded_fs(struct em *e, const struct ubpf_kplan *pl, unsigned j)
{
	unsigned l = UBPF_KBSTR_L(e->sarg[j]);
	size_t done[UBPF_KBCPYBUDGET / 4096 + 4], past[UBPF_KBCPYBUDGET / 4096];
	unsigned nd = 0, np = 0;
	size_t jc;

	st(e, BPF_DW, 10, (int16_t)S_SLEN(j), -1);
	arg_val(e, 2, l);
	done[nd++] = jmp_i(e, BPF_JGT, 2, UBPF_KBCPYBUDGET - 1);
	for (unsigned i = 0; i <= UBPF_KBCPYBUDGET / 4096; i++) {
		arg_addr(e, 3, e->sarg[j]);
		if (i) { /* page i after A's: past A + argL, all read */
			alu_r(e, BPF_MOV, 4, 3);
			arg_val(e, 2, l);
			alu_r(e, BPF_ADD, 4, 2);
			alu_i(e, BPF_AND, 3, -4096);
			alu_i(e, BPF_ADD, 3, (int32_t)(i * 4096));
			past[np++] = jmp_r(e, BPF_JGT, 3, 4);
		}
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		alu_i(e, BPF_ADD, 1, SEQ_AT(j));
		alu_i(e, BPF_MOV, 2, 1);
		call(e, BPF_FUNC_probe_read_user);
		done[nd++] = jmp_i(e, BPF_JNE, 0, 0);
	}
	for (unsigned i = 0; i < np; i++)
		fix(e, past[i]);
	arg_val(e, 2, l);
	jc = jmp_i(e, BPF_JLE, 2, (int32_t)pl->fstr);
	alu_i(e, BPF_MOV, 2, (int32_t)pl->fstr);
	fix(e, jc);
	alu_i(e, BPF_ADD, 2, 1);
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, SEQ_AT(j));
	arg_addr(e, 3, e->sarg[j]);
	call(e, BPF_FUNC_probe_read_user_str);
	done[nd++] = jmp_i(e, BPF_JSLT, 0, 0);
	stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0);
	for (unsigned i = 0; i < nd; i++)
		fix(e, done[i]);
}

/*
 * BCPY o (kplan_bstr.c): run.c's copyin(argA, argL + 1) and its cut
 * this->v[argL] = 0 at the copy's statement, of the copy bounded_fs()
 * read: its site's bits (kagg_bpf.h's BCPY: 3 argL -1, 2 out of
 * scratch space, 1 a byte not read) and a jump to the clause's end
 * (e->sfj), in run.c's order (d_copyin() tests the size before it
 * reads); else nothing.  The scratch the copies before it in the clause
 * took (o->step of them, each one's L a byte of o->imm) is the sum of
 * their argL + 1: each was made, or the clause ended there.
 */
void bcpy(struct em *e, const struct ubpf_kop *o)
{
	unsigned a = UBPF_KBSTR(o->n, o->levels), j;
	size_t jf[4], jok;
	unsigned nf = 0;

	for (j = 0; j < e->nsarg && e->sarg[j] != a; j++)
		;
	if (j >= e->nsarg || e->sn || !o->agg || o->agg > UBPF_KFSITES ||
	    o->step > UBPF_KBCPYPREV) {
		e->bad = true;
		return;
	}
	arg_val(e, 1, o->levels);
	alu_i(e, BPF_MOV, 3, 3);
	jf[nf++] = jmp_i(e, BPF_JEQ, 1, -1);
	alu_i(e, BPF_MOV, 3, 2);
	jf[nf++] = jmp_i(e, BPF_JGT, 1, UBPF_KBCPYBUDGET - 1);
	for (unsigned i = 0; i < o->step; i++) {
		arg_val(e, 2, (unsigned)((uint64_t)o->imm >> (8 * i)) & 0xff);
		alu_r(e, BPF_ADD, 1, 2);
		alu_i(e, BPF_ADD, 1, 1);
	}
	alu_i(e, BPF_ADD, 1, 1);
	jf[nf++] = jmp_i(e, BPF_JGT, 1, UBPF_KBCPYBUDGET);
	alu_i(e, BPF_MOV, 3, 1);
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j));
	jf[nf++] = jmp_i(e, BPF_JSLT, 2, 0);
	jok = jmp_i(e, BPF_JA, 0, 0);
	for (unsigned i = 0; i < nf; i++)
		fix(e, jf[i]);
	fault_set(e, o->agg);
	fix(e, jok);
}

void seq_read(struct em *e, const struct ubpf_kplan *pl, int buf,
	      unsigned nargs)
{
	bool fs = cgen_fsites(e, pl);
	size_t jn, jnull;

	e->sn = 0; /* in cgbuf, unless seq_stack() */

	/* each op's strings (kplan.h's d_kplan_op_strargs(), the walk
	 * kplan_emit.c counts the room with): SMKEY of two strings has
	 * two, an OSTR or SSTR flagged UBPF_KF_APRE (R2) its argument's */
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		uint8_t as[2];
		unsigned na = d_kplan_op_strargs(o, as);
		bool apre = (o->op == UBPF_K_OSTR || o->op == UBPF_K_SSTR) &&
			    (o->flags & UBPF_KF_APRE);

		for (unsigned q = 0; q < na; q++) {
			unsigned j, a = as[q];

			for (j = 0; j < e->nsarg && e->sarg[j] != a; j++)
				;
			/* a bounded copy's: both its arguments there, and
			 * no fault site (seq_read() sends the hit to user
			 * space) */
			bool bad =
				a >= UBPF_KBSTR0
					? (a >= UBPF_KBSTR(UBPF_MAXARGS, 0) ||
					   (fs ? !bcpy_read(pl, a) ||
							    pl->fstr >=
								    UBPF_STRMAX
					       : UBPF_KBSTR_A(a) >= nargs ||
							    UBPF_KBSTR_L(a) >=
								    nargs))
					: a >= UBPF_MAXARGS;

			if (j >= e->nsarg && (j >= UBPF_KSTRARGS || bad ||
					      buf < 0 || (pl->tls && !fs))) {
				e->bad = true;
				return;
			}
			if (j >= e->nsarg) {
				e->skarg[j] = e->czarg[j] = e->rbarg[j] = false;
				e->snl[j] = e->klarg[j] = false;
				e->oparg[j] = false;
				e->anarg[j] = true;
				e->sarg[e->nsarg++] = (uint8_t)a;
			}
			e->anarg[j] &= o->op == UBPF_K_SMKEY && o->agg == 1 &&
				       (o->flags & UBPF_KF_ANULL) && q == 0;
			e->skarg[j] |=
				o->op == UBPF_K_SKEY || o->op == UBPF_K_SMKEY;
			e->snl[j] |= o->op == UBPF_K_SMKEY;
			e->klarg[j] |=
				o->op == UBPF_K_SKEY || o->op == UBPF_K_SKEY2;
			e->czarg[j] |= o->op == UBPF_K_CACMP;
			e->rbarg[j] |= seq_whole(o) && fs;
			e->oparg[j] |= apre;
		}
	}
	if (!e->nsarg || (!fs && seq_stack(e, pl)))
		return;
	jn = own_need(e, buf); /* the hit needs cgbuf from here */
	if (jn != SIZE_MAX)
		e->fj[e->nfj++] = jn;
	stx(e, BPF_DW, 10, S_SBUF, 0);
	for (unsigned j = 0; j < e->nsarg; j++) {
		/* a key's string kaggs_l keeps whole (agg_at()) */
		bool lng = e->klarg[j] && e->lroom && !e->snl[j];

		ldx(e, BPF_DW, 1, 10, S_SBUF);
		/* SKEY's: the key's bytes past the NUL read as 0 */
		for (int i = 0; e->skarg[j] && i < UBPF_KSKEY; i += 8)
			st(e, BPF_DW, 1, (int16_t)(SEQ_AT(j) + i), 0);
		/* CACMP's: its first UBPF_KCOMM bytes */
		for (int i = 0; !e->skarg[j] && e->czarg[j] && i < UBPF_KCOMM;
		     i += 8)
			st(e, BPF_DW, 1, (int16_t)(SEQ_AT(j) + i), 0);
		alu_i(e, BPF_ADD, 1, SEQ_AT(j));
		if (e->sarg[j] >= UBPF_KBSTR0 && fs) { /* BCPY's to judge */
			bounded_fs(e, pl, j);
			continue;
		}
		if (e->sarg[j] >= UBPF_KBSTR0) {
			if (!bounded_read(e, j)) {
				e->bad = true;
				return;
			}
		} else {
			alu_i(e, BPF_MOV, 2, fs ? pl->fstr : UBPF_STRMAX);
		}
		arg_addr(e, 3, e->sarg[j]);
		/* an address 0 that only an SMKEY flagged UBPF_KF_ANULL
		 * reads: not read (its ?: takes the literal), its length 0 */
		jnull = SIZE_MAX;
		if (e->anarg[j] && !fs)
			jnull = jmp_i(e, BPF_JEQ, 3, 0);
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
			arg_addr(e, 3, e->sarg[j]);
			call(e, BPF_FUNC_probe_read_user);
			alu_i(e, BPF_MOV, 1, -1);
			j1 = jmp_i(e, BPF_JNE, 0, 0);
			alu_i(e, BPF_MOV, 1, -2);
			fix(e, j1);
			alu_r(e, BPF_MOV, 0, 1);
			fix(e, jok);
		} else {
			e->fj[e->nfj++] = jmp_i(e, BPF_JSLT, 0, 0);
			/* strsize - 1 past what was read: a string the copy
			 * cut (no NUL in its first UBPF_STRMAX - 1 bytes)
			 * is read on by run.c, which may fault there, so
			 * the hit is user space's (a kaggs_s key's already
			 * is); and where SLEN measures it, or kaggs_l keys
			 * by it, strsize - 1 of UBPF_STRMAX too, a copy
			 * that full telling no length (UBPF_STRMAX - 1
			 * bytes, or more) */
			bool cut = pl->fstr > UBPF_STRMAX ||
				   (pl->fstr == UBPF_STRMAX &&
				    (slen_of(pl, e->sarg[j]) || lng));

			if (cut && (!e->skarg[j] || lng) &&
			    e->nfj >= sizeof(e->fj) / sizeof(e->fj[0]))
				e->bad = true;
			else if (cut && (!e->skarg[j] || lng))
				e->fj[e->nfj++] =
					jmp_i(e, BPF_JEQ, 0, UBPF_STRMAX);
		}
		if (jnull != SIZE_MAX) {
			size_t jover = jmp_i(e, BPF_JA, 0, 0);

			fix(e, jnull);
			alu_i(e, BPF_MOV, 0, 0);
			fix(e, jover);
		}
		stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0); /* for SEQ */
		/* a key longer than kaggs_s keeps: the hit is user space's,
		 * but where kaggs_l keeps it (lng) */
		if (e->skarg[j] && !lng && e->nfj < UBPF_KSTRARGS * 2 + 1)
			e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 0, UBPF_KSKEY);
		else if (e->skarg[j] && !lng)
			e->bad = true;
		/* VACMP's, with fault sites: the helper read pl->fstr
		 * bytes (strsize - 1, as d_read_user_str() reads) and cut
		 * the last for its NUL: that byte again, on its own (it
		 * read once, it reads again), so the copy holds the string
		 * as copyinstr() has it, as an SSTR's copy does */
		if (e->rbarg[j]) {
			size_t jf = jmp_i(e, BPF_JNE, 0, pl->fstr);

			ldx(e, BPF_DW, 1, 10, S_SBUF);
			alu_i(e, BPF_ADD, 1, SEQ_AT(j) + pl->fstr - 1);
			alu_i(e, BPF_MOV, 2, 1);
			arg_addr(e, 3, e->sarg[j]);
			alu_i(e, BPF_ADD, 3, pl->fstr - 1);
			call(e, BPF_FUNC_probe_read_user);
			fix(e, jf);
		}
	}
	/* SKEY2's pairs (and threes): the strings, NULs included, in
	 * kaggs_s's s, or the hit is user space's, as a key too long is,
	 * but where kaggs_l keys by them (agg_at()) */
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j0 = 0, j1, j2;

		if (o->op != UBPF_K_SKEY2)
			continue;
		if (o->step) /* a third: the first's too */
			for (; j0 < e->nsarg && e->sarg[j0] != o->step - 1u;
			     j0++)
				;
		for (j1 = 0; j1 < e->nsarg && e->sarg[j1] != o->levels; j1++)
			;
		for (j2 = 0; j2 < e->nsarg && e->sarg[j2] != o->slot; j2++)
			;
		if (j0 >= e->nsarg || j1 >= e->nsarg || j2 >= e->nsarg ||
		    e->nfj >= sizeof(e->fj) / sizeof(e->fj[0])) {
			e->bad = true;
			return;
		}
		if (e->lroom >= UBPF_KSLONG(o->step ? 3 : 2) &&
		    (!o->step || !e->snl[j0]) && !e->snl[j1] && !e->snl[j2])
			continue;
		ldx(e, BPF_DW, 1, 10, (int16_t)S_SLEN(j1));
		ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j2));
		alu_r(e, BPF_ADD, 1, 2);
		if (o->step) {
			ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j0));
			alu_r(e, BPF_ADD, 1, 2);
		}
		e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 1, UBPF_KSKEY);
	}
}

/*
 * Fault site site (1 up) taken: its two bits, r3 (1: the address, 2:
 * the next page, 3: an illegal operation; usdt_bpf.h's), into S_FLAGS
 * at 32 + 2 * (site - 1), and a jump to the clause's end (e->sfj,
 * which cgen_plan() points at the op's jump).  The one place a site's
 * bits are set: fault_at()'s strings, cgen_mem.c's copies,
 * cgen_rec.c's clock.  r1 taken.
 */
void fault_set(struct em *e, unsigned site)
{
	alu_i(e, BPF_LSH, 3, (int32_t)(32 + 2 * (site - 1)));
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_r(e, BPF_OR, 1, 3);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
	e->sfj = jmp_i(e, BPF_JA, 0, 0);
}

/*
 * Fault site agg (1 up) of a comparison reading seq_read()'s j-th
 * string: where that read failed (S_SLEN(j) -1 or -2), its bits in
 * S_FLAGS (usdt_bpf.h's, two a site) and the clause's end (e->sfj).
 * seq()'s and vacmp()'s.  r1 and r3 are taken.
 */
void fault_at(struct em *e, unsigned j, unsigned agg)
{
	size_t jok;

	ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
	jok = jmp_i(e, BPF_JSGE, 3, 0);
	alu_i(e, BPF_NEG, 3, 0); /* 1 or 2: usdt_bpf.h's bits */
	fault_set(e, agg);
	fix(e, jok);
}

/*
 * The first n bytes of the string seq_read() copied for its j-th
 * argument, in loads of 8 bytes, then 4, 2 and 1 for the tail, each
 * naturally aligned (SEQ_AT() is): each into r3, loaded from register
 * base, and handed to fn with its offset and size; base is r2, cgbuf
 * throughout, or the frame, r10, for seq_stack()'s copies, which only
 * SEQ reads (no SKEY: skey_chunk() stores at r2).  The one emitter of
 * the strings' bounded bytes: SEQ compares them with its literal, SKEY
 * copies them into its key.
 */
void str_chunks_at(struct em *e, uint8_t base, int32_t at, unsigned n,
		   void (*fn)(struct em *, void *, unsigned, unsigned),
		   void *ctx)
{
	for (unsigned off = 0, sz; off < n && !e->bad; off += sz) {
		sz = n - off >= 8 ? 8 : n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
		ldx(e,
		    sz == 8   ? BPF_DW
		    : sz == 4 ? BPF_W
		    : sz == 2 ? BPF_H
			      : BPF_B,
		    3, base, (int16_t)(at + (int)off));
		fn(e, ctx, off, sz);
	}
}

void str_chunks(struct em *e, unsigned j, unsigned n,
		void (*fn)(struct em *, void *, unsigned, unsigned), void *ctx)
{
	if (e->sn) { /* seq_stack()'s copy, on the frame */
		str_chunks_at(e, 10, e->soff + (int32_t)(j * e->sn), n, fn,
			      ctx);
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	str_chunks_at(e, 2, SEQ_AT(j), n, fn, ctx);
}

/* str_chunks() for SKEY: the chunk into the kaggs_s key at cgbuf */
void skey_chunk(struct em *e, void *ctx, unsigned off, unsigned sz)
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
void skey(struct em *e, const struct ubpf_kop *o)
{
	unsigned j;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->slot; j++)
		;
	if (j >= e->nsarg || !e->skarg[j]) {
		e->bad = true;
		return;
	}
	str_chunks(e, j, UBPF_KSKEY, skey_chunk, NULL);
	e->lkj1 = e->snl[j] ? -1 : (int)j; /* AGG's key (agg_at()) */
	e->lkj2 = e->lkj3 = -1;
}

/*
 * SKEY2 o: copyinstr(argument o->slot)'s copy, its NUL included (its
 * count, S_SLEN), into the kaggs_s key's s right after the NUL of
 * argument o->levels' (SKEY's, copied before, NUL-padded): at that
 * count's offset; or, a third (o->step), after the NULs of argument
 * o->step - 1's (SKEY's) and o->levels' (the second's): at the two
 * counts' sum.  Only where the counts' sum is UBPF_KSKEY at most: else
 * seq_read() sent the hit to user space, or kaggs_l keys by them
 * (agg_at()) and the key here is not read; the other bounds are the
 * verifier's.
 */
void skey2(struct em *e, const struct ubpf_kop *o)
{
	unsigned j0 = 0, j1, j2;
	size_t jb[5];
	unsigned nb = 0;

	if (o->step)
		for (; j0 < e->nsarg && e->sarg[j0] != o->step - 1u; j0++)
			;
	for (j1 = 0; j1 < e->nsarg && e->sarg[j1] != o->levels; j1++)
		;
	for (j2 = 0; j2 < e->nsarg && e->sarg[j2] != o->slot; j2++)
		;
	if (j0 >= e->nsarg || j1 >= e->nsarg || j2 >= e->nsarg ||
	    !e->skarg[o->step ? j0 : j1]) {
		e->bad = true;
		return;
	}
	/* r4: the offset (the counts before it), r2: its count */
	ldx(e, BPF_DW, 4, 10, (int16_t)S_SLEN(j1));
	jb[nb++] = jmp_i(e, BPF_JGT, 4, UBPF_KSKEY);
	if (o->step) {
		ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j0));
		jb[nb++] = jmp_i(e, BPF_JGT, 3, UBPF_KSKEY);
		alu_r(e, BPF_ADD, 4, 3);
	}
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j2));
	jb[nb++] = jmp_i(e, BPF_JGT, 2, UBPF_KSKEY);
	alu_r(e, BPF_MOV, 1, 4);
	alu_r(e, BPF_ADD, 1, 2);
	jb[nb++] = jmp_i(e, BPF_JGT, 1, UBPF_KSKEY);
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, SKEY_AT + (int32_t)sizeof(struct ubpf_kkey));
	alu_r(e, BPF_ADD, 1, 4);
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, SEQ_AT(j2));
	call(e, BPF_FUNC_probe_read_kernel);
	for (unsigned i = 0; i < nb; i++)
		fix(e, jb[i]);
	/* AGG's key (agg_at()): the strings in turn, none SMKEY's */
	if (!o->step && e->lkj1 == (int)j1 && !e->snl[j2])
		e->lkj2 = (int)j2;
	else if (o->step && e->lkj1 == (int)j0 && e->lkj2 == (int)j1 &&
		 !e->snl[j2])
		e->lkj3 = (int)j2;
	else
		e->lkj1 = -1;
}

/* str_chunks() for SEQ: r3 against the literal's bytes there */
void seq_chunk(struct em *e, void *ctx, unsigned off, unsigned sz)
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
 * and jumps to its clause's end (e->sfj, which cgen_plan() points there).  The
 * copy's length (NUL included, kept by seq_read()) is the literal's
 * plus one, and its bytes before the NUL are the literal's, compared a
 * word at a time (str_chunks()); *pc is left on the last SDATA.  With
 * fj, the comparison is a PRED's (cgen_plan() fuses them): no r1, the
 * jumps taken on a difference put in fj (*nfj of them, at most
 * UBPF_KSTRMAX / 8 + 5) for the caller to point at the PRED's end.
 */
void seq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc, size_t *fj,
	 unsigned *nfj)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	struct seq_lit l = { .d = &pl->ops[*pc + 1] };
	unsigned j, len = o->step;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || len > UBPF_KSTRMAX ||
	    *pc + 1 + (len + 8) / 8 > pl->nops) {
		e->bad = true;
		return;
	}
	if (o->agg) /* a fault site: one unread ends the clause */
		fault_at(e, j, o->agg);
	if (o->levels) { /* whole: r1, never a PRED's (seq_pred()) */
		if (fj || (o->agg && (!e->rbarg[j] || pl->fstr != o->imm))) {
			e->bad = true;
			return;
		}
		seq_ord(e, o, j);
		*pc += (len + 8) / 8;
		return;
	}
	/* a jump for the length, one per chunk at most */
	l.jf = xcalloc(len / 8 + 5, sizeof(*l.jf));
	if (!fj)
		alu_i(e, BPF_MOV, 1, 0);
	ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
	l.jf[l.njf++] = jmp_i(e, BPF_JNE, 3, (int32_t)len + 1);
	str_chunks(e, j, len, seq_chunk, &l);
	*pc += (len + 8) / 8;
	if (fj) {
		memcpy(fj, l.jf, l.njf * sizeof(*fj));
		*nfj = (unsigned)l.njf;
		free(l.jf);
		return;
	}
	alu_i(e, BPF_MOV, 1, 1);
	for (size_t i = 0; i < l.njf; i++)
		fix(e, l.jf[i]);
	free(l.jf);
	if (o->flags & UBPF_KF_NEG)
		alu_i(e, BPF_XOR, 1, 1);
}

/*
 * The PRED that tests SEQ pl->ops[pc]'s result alone, right after its
 * SDATA, where no jump lands on it or the SDATA (tgt) and the SEQ is
 * no !=: its index (seq() then jumps to its end), else 0.
 */
unsigned seq_pred(const struct ubpf_kplan *pl, unsigned pc, const bool *tgt)
{
	const struct ubpf_kop *o = &pl->ops[pc];
	unsigned q = pc + 1 + (o->step + 8u) / 8u;

	if ((o->flags & UBPF_KF_NEG) || o->levels || o->step > UBPF_KSTRMAX ||
	    q >= pl->nops || pl->ops[q].op != UBPF_K_PRED || pl->ops[q].n)
		return 0;
	for (unsigned i = pc + 1; i <= q; i++)
		if (tgt[i])
			return 0;
	return q;
}
