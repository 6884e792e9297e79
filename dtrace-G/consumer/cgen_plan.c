// SPDX-License-Identifier: MIT
/*
 * cgen_plan.c - stage 2 of a generated program (cgen.c): the plan
 * kplan.c made for the event's probe, as code.
 *
 *  2. The plan, when the event has one: only for a process bpf_agg.c
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
 *     the else from its body's end, kplan_emit.c's emit_list(); each
 *     lands with the stack empty, and where a jump lands every cache
 *     resets): a comparison's PRED is that jump alone (the
 *     comparison's opposite, against an immediate where one fits), and
 *     a PRED on the value the instruction before pushed takes it from
 *     r1, not from its slot, where no jump lands (pop_top()); a
 *     PRED to the plan's end after only instructions that set no
 *     S_FLAGS bit and write nothing (op_pure()) is noted in e->xpj,
 *     which cgen.c sends to the exit where a record gate follows.  KEY
 *     stores into the kaggs key on the stack, which is as wide as
 *     bpf_agg.c made kaggs's (the most keys a statement has, not
 *     UBPF_KMAXKEYS: a hit hashes and compares every byte of it), and
 *     each AGG writes its every word (agg_at(): {agg, bucket, pad} in
 *     one store, a key its KEYs did not write 0), so nothing is zeroed
 *     at the hit's start or after an AGG, and the zero value an
 *     insert needs only where one is made; AGG computes
 *     quantize()'s bucket (a branchy fls), lquantize()'s or
 *     llquantize()'s (llq_bucket(): a test per order of magnitude, no
 *     loop), finds the slot (kflat, by index) or the entry (kaggs:
 *     lookup, insert if absent, lookup; a full map counts in kdrops)
 *     and updates it as kagg.bpf.h's kval_update() does, each word a
 *     program nested in this one on the CPU could change by one atomic
 *     instruction (BPF_ADD; min() and max() by BPF_CMPXCHG, minmax();
 *     doc/DESIGN.md's "Programs that nest on a CPU"); stddev()
 *     updates two buckets, {hits, sum} and its 128-bit sum of squares
 *     (stddev_sq(), kplan.c's "stddev() and llquantize()"), which the
 *     generic program does not know.
 *     Signed / and % are BPF's unsigned division on magnitudes with the
 *     sign put back, C's truncation, as kagg.bpf.h's ksdiv().  Plans
 *     made with D_KPLAN_VARS (kplan.c says which clauses) also
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
 *     space runs every clause) -- onto the stack, where the plan only
 *     compares it and a uprobe's argument slots past its nargs hold a
 *     copy longer than the literals, so the program needs no cgbuf
 *     before its record (seq_stack(): the bytes the compares need,
 *     and where longer, copyinstr()'s fault told by the page those
 *     ended in, or the rest read on in pieces to fault where its
 *     strsize - 1 bytes would) -- and SEQ compares its length with the
 *     literal's and its bytes a word at a time (8, then 4, 2, 1 bytes
 *     for the tail), the literal's words as immediates -- a SEQ (not
 *     !=) whose PRED follows it jumping straight to the clause's end on
 *     the first difference (seq_pred()) -- (where the kernel
 *     keeps self-> variables, each SEQ is a fault site instead: below);
 *     SKEY copies it
 *     the same way, NUL-padded (its part of cgbuf zeroed before the
 *     copy), into a key of kaggs_s built in cgbuf (a key longer than
 *     its 64 bytes ends the plan as a fault does), which AGG then
 *     uses; both walk the bytes with str_chunks().  SLEN pushes its
 *     length (slen(): the copy's count less the NUL, cut to strsize -
 *     1; no seq_stack() copy, and a copy too full to tell it ends the
 *     plan as a fault does).  Faults at the
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
 *     needs the record (and none faulted), the hit ends here.  REC,
 *     after a record gate's predicate (kplan_emit.c's d_kplan_gate()),
 *     sets S_FLAGS_REC: cgen.c then writes the record; an ARG the site
 *     lacks in such a predicate (UBPF_KF_GATE) sets it too, rather
 *     than refusing the plan, and the predicate reads 0 there.  OUT,
 *     OSTR and ODONE (printf()'s and trace()'s values) are
 *     cgen_out.c's, and so are the string variables such clauses
 *     print (SSTR, SLIT, SMOV, SCLR, OVSTR: this-> strings in cgbuf,
 *     their len zeroed where the out area starts; self-> strings in
 *     the hash cgtlss), an SSTR that faulted jumping to its clause's
 *     end as a fault site's SEQ does, and an OSTR with a jump too (a
 *     statement after it that a fault must skip).  VSEQ compares a self-> or
 *     this-> string's bytes there
 *     with its literal as SEQ compares an argument's copy (vseq()),
 *     VVEQ a self-> one's with another's (vveq()), VACMP one with
 *     an argument's copy, which seq_read() completed to the form the
 *     variable's copy has (vacmp(): a fault site as SEQ's; an
 *     order, < <= > >=, both copied zero-padded into cgbuf and
 *     ordered as VVCMP's: vacmp_ord(); VSEQ's order with its literal
 *     so too, vseq_ord()); VSLEN
 *     measures them (vslen()); a this-> one the plan never stores reads ""
 *     (svar_at()).  VKEY copies one's bytes into a key of kaggs_v
 *     built in cgbuf (vkey(): the room zeroed, then the string's len
 *     bytes), which AGG flagged UBPF_KF_VKEY then uses; VVCMP copies
 *     two so and compares them in strcmp()'s order (vvcmp()).  CKEY
 *     and LKEY write execname (bpf_get_current_comm(), cut to
 *     strsize - 1 bytes) or a literal (of two, by a popped value:
 *     a ?: of literals) into that key (ckey(), lkey()); CWKEY
 *     writes execname's 16 bytes into two words of a kaggs_s key
 *     beside an argument's string (cwkey()), SKEY2 a second
 *     argument's string after the first's NUL in its s (skey2());
 *     CCMP compares
 *     execname, on the stack at S_COMM, with a literal as padded
 *     words (ccmp()), CVCMP with a string variable, both copied
 *     zero-padded into cgbuf as VVCMP's (cvcmp()): kplan_str.c's
 *     "execname and literals".  Where kaggs_v's room is longer than
 *     UBPF_KVSHORT (32) bytes, AGG looks a key whose string ends
 *     within them (its byte 31 0: the room is zero-padded) up in
 *     kaggs_w instead, whose key is those 32 bytes (agg_at()): the
 *     map hashes and compares its whole key at every hit, 72 bytes
 *     there and 296 in kaggs_v at strsize 256 (the selfkey row of
 *     bench/perhit.sh: the leave's program 250 ns a hit before, 120
 *     after); a string is in one map or the other by its bytes, so
 *     each key has one entry, and bpf_agg.c merges both.
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

/*
 * r1 = llquantize()'s bucket of the value in r9 (../d/agg.c's
 * llq_bucket()), its parameters constants: a test per order of
 * magnitude m, low..high -- v < factor^(m+1): (v - factor^m) / width +
 * the bucket of factor^m --, no loop.  factor^(high+1) fits 64 bits
 * (the compiler saw to it), so every bound is exact; v - factor^m is
 * then not negative, and BPF's unsigned division of it is C's.
 */
static void llq_bucket(struct em *e, const struct ubpf_kop *o)
{
	uint64_t imm = (uint64_t)o->imm;
	unsigned factor = imm & 0xffff, low = (imm >> 16) & 0xffff;
	unsigned high = (imm >> 32) & 0xffff, nsteps = (unsigned)(imm >> 48);
	int64_t start = 1, end, n;
	size_t done[UINT8_MAX], nd = 0, j;
	unsigned b = 1, m;

	if (factor < 2 || high >= 64 || low >= high) {
		e->bad = true; /* kplan.c's parameters: not reached */
		return;
	}
	for (m = 0; m < low; m++)
		start *= (int64_t)factor;
	alu_i(e, BPF_MOV, 1, 0);
	ld64(e, 2, (uint64_t)start);
	done[nd++] = jmp_r(e, BPF_JSLT, 9, 2);
	for (m = low; m <= high; m++) {
		end = start * (int64_t)factor;
		n = end > nsteps ? nsteps : end;
		ld64(e, 2, (uint64_t)end);
		j = jmp_r(e, BPF_JSGE, 9, 2);
		alu_r(e, BPF_MOV, 1, 9);
		ld64(e, 2, (uint64_t)start);
		alu_r(e, BPF_SUB, 1, 2);
		ld64(e, 2, (uint64_t)(end / n));
		alu_r(e, BPF_DIV, 1, 2);
		alu_i(e, BPF_ADD, 1, (int32_t)b);
		done[nd++] = jmp_i(e, BPF_JA, 0, 0);
		fix(e, j);
		b += (unsigned)(n - n / (int64_t)factor);
		start = end;
	}
	alu_i(e, BPF_MOV, 1, (int32_t)b); /* factor^(high+1) and above */
	for (j = 0; j < nd; j++)
		fix(e, done[j]);
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
	} else if (o->n == UBPF_F_LLQUANTIZE) {
		llq_bucket(e, o);
	} else {
		alu_i(e, BPF_MOV, 1, 0);
	}
}

/*
 * stddev()'s bucket 1 at r0: {a, b} += |r9|^2, 128 bits (low word a),
 * as ../d/agg.c adds it.  BPF multiplies 64 by 64 bits into 64 only,
 * so with |v| = h * 2^32 + l: |v|^2 = h*h * 2^64 + h*l * 2^33 + l*l,
 * each product exact in 64 bits, the middle one split across the two
 * words; a carry is an unsigned sum less than an addend.  |INT64_MIN|
 * is 2^63 as BPF_NEG leaves it, read unsigned.
 */
static void stddev_sq(struct em *e)
{
	size_t j;

	alu_r(e, BPF_MOV, 2, 9);
	j = jmp_i(e, BPF_JSGE, 2, 0);
	alu_i(e, BPF_NEG, 2, 0);
	fix(e, j);
	alu_r(e, BPF_MOV, 3, 2);
	alu_i(e, BPF_RSH, 3, 32); /* h */
	alu_i(e, BPF_LSH, 2, 32);
	alu_i(e, BPF_RSH, 2, 32); /* l */
	alu_r(e, BPF_MOV, 4, 2);
	alu_r(e, BPF_MUL, 4, 2); /* l*l */
	alu_r(e, BPF_MOV, 5, 3);
	alu_r(e, BPF_MUL, 5, 2); /* h*l */
	alu_r(e, BPF_MUL, 3, 3); /* h*h */
	alu_r(e, BPF_MOV, 2, 5);
	alu_i(e, BPF_LSH, 2, 33);
	alu_r(e, BPF_ADD, 2, 4); /* the square's low word */
	j = jmp_r(e, BPF_JGE, 2, 4);
	alu_i(e, BPF_ADD, 3, 1);
	fix(e, j);
	alu_i(e, BPF_RSH, 5, 31);
	alu_r(e, BPF_ADD, 3, 5); /* its high word */
	/* the low word added atomically, its old value fetched: the carry
	 * is this hit's (a program nested here adds its own, with its own
	 * carry, before or after), and the high word is added with it */
	alu_r(e, BPF_MOV, 1, 2);
	xadd(e, 0, 0, 1, true);
	alu_r(e, BPF_ADD, 1, 2);
	j = jmp_r(e, BPF_JGE, 1, 2);
	alu_i(e, BPF_ADD, 3, 1);
	fix(e, j);
	xadd(e, 0, 8, 3, false);
}

/* kdrops' counter (fds[2]), per CPU, += 1 atomically; r0-r5 clobbered */
static void kdrop(struct em *e, const int *fds)
{
	size_t j;

	lookup0(e, fds[2]);
	j = jmp_i(e, BPF_JEQ, 0, 0);
	alu_i(e, BPF_MOV, 1, 1);
	xadd(e, 0, 0, 1, false);
	fix(e, j);
}

/* min()'s and max()'s tries (minmax()) */
#define MINMAX_TRIES 3

/*
 * min() or max() of the struct ubpf_kval at r0 with the value in r9:
 * {a, b}, b 1 when a holds a value.  Exact where another program
 * nests in this one (doc/DESIGN.md's "Programs that nest on a CPU"):
 * b 0 is claimed by a BPF_CMPXCHG to 2, a is written and b set to 1;
 * a program that finds b 2 interrupted that (it cannot wait for it)
 * and counts a drop in kdrops.  b 1: a is replaced only by a
 * BPF_CMPXCHG from the value compared; a nested program's update in
 * between makes it fail, and the comparison is made again with what
 * that program left, MINMAX_TRIES times, then a drop (a CPU whose
 * programs nest that deep at one entry).  User space reads b 1 only
 * (kplan_merge.c's d_kplan_merge()).  r0-r5 clobbered.
 */
static void minmax(struct em *e, uint8_t fn, const int *fds)
{
	size_t jdone[3 * MINMAX_TRIES], ndone = 0, jdrop[MINMAX_TRIES + 1];
	size_t ndrop = 0, jval, jnext, jend;

	alu_r(e, BPF_MOV, 5, 0);
	for (int t = 0; t < MINMAX_TRIES; t++) {
		ldx(e, BPF_DW, 1, 5, 8);
		jval = jmp_i(e, BPF_JEQ, 1, 1);
		jdrop[ndrop++] = jmp_i(e, BPF_JNE, 1, 0);
		/* b 0: claimed (2), then a = v, b = 1 */
		alu_i(e, BPF_MOV, 0, 0);
		alu_i(e, BPF_MOV, 2, 2);
		put(e, BPF_STX | BPF_ATOMIC | BPF_DW, 5, 2, 8, BPF_CMPXCHG);
		jnext = jmp_i(e, BPF_JNE, 0, 0);
		stx(e, BPF_DW, 5, 0, 9);
		st(e, BPF_DW, 5, 8, 1);
		jdone[ndone++] = jmp_i(e, BPF_JA, 0, 0);
		/* b 1: a = v where v < a (max: v > a), from the a compared */
		fix(e, jval);
		ldx(e, BPF_DW, 0, 5, 0);
		jdone[ndone++] =
			jmp_r(e, fn == UBPF_F_MIN ? BPF_JSGE : BPF_JSLE, 9, 0);
		alu_r(e, BPF_MOV, 1, 0);
		put(e, BPF_STX | BPF_ATOMIC | BPF_DW, 5, 9, 0, BPF_CMPXCHG);
		jdone[ndone++] = jmp_r(e, BPF_JEQ, 0, 1);
		fix(e, jnext);
	}
	jdrop[ndrop++] = jmp_i(e, BPF_JA, 0, 0);
	for (size_t i = 0; i < ndrop; i++)
		fix(e, jdrop[i]);
	kdrop(e, fds);
	jend = jmp_i(e, BPF_JA, 0, 0);
	for (size_t i = 0; i < ndone; i++)
		fix(e, jdone[i]);
	fix(e, jend);
}

/*
 * kval_update() of the struct ubpf_kval at r0 with the value in r9,
 * each word that a nested program could update between a load and a
 * store added atomically (xadd())
 */
static void kval_update(struct em *e, uint8_t fn, const int *fds)
{
	switch (fn) {
	case UBPF_F_COUNT:
	case UBPF_F_QUANTIZE:
	case UBPF_F_LQUANTIZE:
	case UBPF_F_LLQUANTIZE:
		alu_i(e, BPF_MOV, 1, 1);
		xadd(e, 0, 0, 1, false);
		break;
	case UBPF_F_SUM:
		xadd(e, 0, 0, 9, false);
		st(e, BPF_DW, 0, 8, 1);
		break;
	case UBPF_F_AVG: /* stddev()'s bucket 0 too (agg()) */
		alu_i(e, BPF_MOV, 1, 1);
		xadd(e, 0, 0, 1, false);
		xadd(e, 0, 8, 9, false);
		break;
	case UBPF_F_MIN:
	case UBPF_F_MAX:
		minmax(e, fn, fds);
		break;
	case UBPF_F_STDDEV: /* bucket 1: the square of |v| added */
		stddev_sq(e);
		break;
	default:
		e->bad = true;
	}
}

/* r2 = the key of an aggregation's entry: on the stack, or cgbuf's
 * at kat (SKEY_AT, VKEY_AT) */
static void key_ptr(struct em *e, int32_t kat)
{
	if (kat) {
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		alu_i(e, BPF_ADD, 2, kat);
	} else {
		alu_r(e, BPF_MOV, 2, 10);
		alu_i(e, BPF_ADD, 2, S_KKEY);
	}
}

static void agg_find(struct em *e, const int *fds, uint8_t fn, int map,
		     int32_t kat);

/*
 * The update fn of AGG o's entry in bucket r1, or kb where that is a
 * constant (>= 0: r1 not read), the value, if any, in r9: the slot of
 * kflat, or the entry of kaggs, made when absent.
 */
static void agg_at(struct em *e, const struct ubpf_kop *o, const int *fds,
		   uint8_t fn, int kb)
{
	size_t j1;
	bool vkeyed = (o->flags & UBPF_KF_VKEY) != 0;
	bool skeyed = (o->flags & UBPF_KF_SKEY) != 0 || vkeyed;
	int map = vkeyed ? fds[9] : skeyed ? fds[6] : fds[0];
	int32_t kat = vkeyed ? VKEY_AT : skeyed ? SKEY_AT : 0;

	if (o->flags & UBPF_KF_FLAT) {
		if (fds[1] < 0) {
			e->bad = true;
			return;
		}
		if (kb >= 0) { /* a constant bucket: the index at once */
			st(e, BPF_W, 10, S_KEY8, (int32_t)(kb + o->slot));
		} else {
			if (o->slot)
				alu_i(e, BPF_ADD, 1, o->slot);
			stx(e, BPF_W, 10, S_KEY8, 1);
		}
		lookup_at(e, fds[1], S_KEY8);
		j1 = jmp_i(e, BPF_JEQ, 0, 0);
		kval_update(e, fn, fds);
		fix(e, j1);
		return;
	}
	if (fds[0] < 0 || fds[2] < 0 || map < 0) {
		e->bad = true;
		return;
	}
	/* the key: {agg, bucket, pad 0} in one store, r1's low 16 bits
	 * the bucket (a constant where bucket() says so: kb); each k[n]
	 * a KEY did not write, 0 (e->kw), up to the map's keys */
	if (kb >= 0 && ((int64_t)kb << 16 | o->agg) <= INT32_MAX) {
		st(e, BPF_DW, 10, S_KKEY,
		   (int32_t)((int64_t)kb << 16 | o->agg));
	} else {
		alu_i(e, BPF_LSH, 1, 48);
		alu_i(e, BPF_RSH, 1, 32);
		alu_i(e, BPF_OR, 1, o->agg);
		stx(e, BPF_DW, 10, S_KKEY, 1);
	}
	for (unsigned i = 0; i < UBPF_KMAXKEYS; i++)
		if (!(e->kw & (1u << i)) && (skeyed || i < e->kkeys))
			st(e, BPF_DW, 10, (int16_t)(S_KKEY + 8 + 8 * (int)i),
			   0);
	if (skeyed) { /* the key with its string: in cgbuf (skey(), vkey()) */
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		for (int i = 0; i < (int)sizeof(struct ubpf_kkey); i += 8) {
			ldx(e, BPF_DW, 3, 10, (int16_t)(S_KKEY + i));
			stx(e, BPF_DW, 2, (int16_t)(kat + i), 3);
		}
	}
	if (vkeyed && fds[10] >= 0) {
		/* kaggs_w's key where the string ends within its
		 * UBPF_KVSHORT bytes: the room is zero-padded (svar_copy(),
		 * ckey(), lkey()), so its byte UBPF_KVSHORT - 1 is 0 then
		 * and only then, and the bytes past it are all 0 */
		size_t jlong, jend;

		ldx(e, BPF_DW, 2, 10, S_SBUF);
		ldx(e, BPF_B, 3, 2,
		    (int16_t)(kat + (int32_t)sizeof(struct ubpf_kkey) +
			      UBPF_KVSHORT - 1));
		jlong = jmp_i(e, BPF_JNE, 3, 0);
		agg_find(e, fds, fn, fds[10], kat);
		jend = jmp_i(e, BPF_JA, 0, 0);
		fix(e, jlong);
		agg_find(e, fds, fn, map, kat);
		fix(e, jend);
		return;
	}
	agg_find(e, fds, fn, map, kat);
}

/*
 * The entry of the key at kat (key_ptr()) in map, made when absent
 * (a full map counts in kdrops), updated by fn (the value in r9).
 */
static void agg_find(struct em *e, const int *fds, uint8_t fn, int map,
		     int32_t kat)
{
	size_t j1, j2;

	ldmap(e, 1, map);
	key_ptr(e, kat);
	call(e, BPF_FUNC_map_lookup_elem);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	st(e, BPF_DW, 10, S_ZERO, 0); /* not there: a zero value put */
	st(e, BPF_DW, 10, S_ZERO + 8, 0);
	ldmap(e, 1, map);
	key_ptr(e, kat);
	alu_r(e, BPF_MOV, 3, 10);
	alu_i(e, BPF_ADD, 3, S_ZERO);
	alu_i(e, BPF_MOV, 4, BPF_NOEXIST);
	call(e, BPF_FUNC_map_update_elem);
	ldmap(e, 1, map);
	key_ptr(e, kat);
	call(e, BPF_FUNC_map_lookup_elem);
	j2 = jmp_i(e, BPF_JNE, 0, 0);
	/* no room: kdrops, per CPU */
	kdrop(e, fds);
	{
		size_t j4 = jmp_i(e, BPF_JA, 0, 0);

		fix(e, j1);
		fix(e, j2);
		kval_update(e, fn, fds);
		fix(e, j4);
	}
}

/*
 * AGG o, the value (if any) in r9.  stddev() updates two buckets of
 * its key (kagg_bpf.h): 0 as avg() does, 1 its squares.
 */
static void agg(struct em *e, const struct ubpf_kop *o, const int *fds)
{
	if (o->n > UBPF_F_LLQUANTIZE ||
	    (o->n == UBPF_F_LQUANTIZE && o->step == 0)) {
		e->bad = true;
		return;
	}
	if (o->n == UBPF_F_STDDEV) {
		alu_i(e, BPF_MOV, 1, 0);
		agg_at(e, o, fds, UBPF_F_AVG, 0);
		alu_i(e, BPF_MOV, 1, 1);
		agg_at(e, o, fds, UBPF_F_STDDEV, 1);
	} else if (o->n == UBPF_F_QUANTIZE || o->n == UBPF_F_LQUANTIZE ||
		   o->n == UBPF_F_LLQUANTIZE) {
		bucket(e, o);
		agg_at(e, o, fds, o->n, -1);
	} else { /* bucket 0, a constant: r1 not set (agg_at()) */
		agg_at(e, o, fds, o->n, 0);
	}
	/* the next statement's keys: those its KEYs write (kstep() zeroes
	 * the values after each; agg_at() zeroes those not written) */
	e->kw = 0;
}

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
	lookup0(e, fds[4]);
	{
		size_t j4 = jmp_i(e, BPF_JEQ, 0, 0);

		alu_i(e, BPF_MOV, 1, 1);
		xadd(e, 0, 0, 1, false);
		fix(e, j4);
	}
	fix(e, j3);
	fix(e, j2);
}

/*
 * The top of the stack into r: no load into r1 when the instruction
 * before stored r1 in the top's slot and no jump lands here (e->land:
 * one of an op's own; e->pland: one of the plan's, on the op being
 * emitted), so an operand pushed and popped at once stays in r1 (its
 * slot written all the same).
 */
static void pop(struct em *e, unsigned *sp, uint8_t r)
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
/*
 * Does the plan's SEQ fault at the hit (kplan.c's fault sites: every
 * SEQ and VACMP has one, or none does)?  A plan with sites reads
 * pl->fstr bytes of each string (strsize - 1, the helper's size: it
 * reads up to that many, stopping after a NUL, and cuts the last for
 * its own NUL), the bytes run.c's d_read_user_str() reads (at most
 * strsize - 1, a page at a time, the string up to its NUL or cut
 * there), so a string faults here exactly where it would there; a
 * VACMP's copy that filled them has that last byte read again
 * (e->rbarg), so it holds strsize - 1 bytes as copyinstr() gives them.
 * It has no SKEY (a key too long is not a fault, and goes to user
 * space).  e->bad when mixed.
 */
bool cgen_fsites(struct em *e, const struct ubpf_kplan *pl)
{
	bool any = false, none = false;

	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];

		bool cmp = o->op == UBPF_K_SEQ || o->op == UBPF_K_VACMP;

		if (cmp && o->agg)
			any = true;
		else if (cmp || o->op == UBPF_K_SKEY || o->op == UBPF_K_CACMP ||
			 o->op == UBPF_K_SMKEY || o->op == UBPF_K_SKEY2 ||
			 o->op == UBPF_K_SLEN)
			none = true;
		if (cmp && (o->agg > UBPF_KFSITES ||
			    (o->agg && (o->jump <= pc || o->jump > pl->nops))))
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
	    e->nfj + e->nsarg > sizeof(e->fj) / sizeof(e->fj[0]) ||
	    !pl->fstr || pl->fstr > UBPF_STRMAX)
		return false;
	for (unsigned j = 0; j < e->nsarg; j++)
		if (e->skarg[j] || e->czarg[j])
			return false;
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j;

		/* VACMP's compare reads cgbuf's copy (vacmp()), and so
		 * does an ordered SEQ's (seq_ord()) */
		if (o->op == UBPF_K_VACMP || o->op == UBPF_K_SLEN ||
		    (o->op == UBPF_K_SEQ && o->levels))
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
		stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0); /* for SEQ */
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
 * (VACMP, an ordered SEQ), not only up to a literal's length? */
static bool seq_whole(const struct ubpf_kop *o)
{
	return o->op == UBPF_K_VACMP || (o->op == UBPF_K_SEQ && o->levels);
}

/* Does an SLEN of the plan measure argument a's string? */
static bool slen_of(const struct ubpf_kplan *pl, unsigned a)
{
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].op == UBPF_K_SLEN && pl->ops[pc].n == a)
			return true;
	return false;
}

static void seq_read(struct em *e, const struct ubpf_kplan *pl, int buf,
		     unsigned nargs)
{
	bool fs = cgen_fsites(e, pl);
	size_t jn;

	e->sn = 0; /* in cgbuf, unless seq_stack() */

	for (unsigned pc = 0, second = 0; pc < pl->nops && pc < UBPF_KOPS;
	     pc += !second) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j, a;

		if (o->op != UBPF_K_SEQ && o->op != UBPF_K_SKEY &&
		    o->op != UBPF_K_CACMP && o->op != UBPF_K_SMKEY &&
		    o->op != UBPF_K_VACMP && o->op != UBPF_K_SKEY2 &&
		    o->op != UBPF_K_SLEN)
			continue;
		a = o->op == UBPF_K_SKEY || o->op == UBPF_K_SMKEY ||
				    o->op == UBPF_K_SKEY2
			    ? o->slot
			    : o->n;
		/* SMKEY of two strings: its second (levels) next time */
		if (second)
			a = o->levels;
		second = !second && o->op == UBPF_K_SMKEY && o->agg == 3;
		for (j = 0; j < e->nsarg && e->sarg[j] != a; j++)
			;
		if (j < e->nsarg) {
			e->skarg[j] |=
				o->op == UBPF_K_SKEY || o->op == UBPF_K_SMKEY;
			e->czarg[j] |= o->op == UBPF_K_CACMP;
			e->rbarg[j] |= seq_whole(o) && fs;
			continue;
		}
		if (j >= UBPF_KSTRARGS || a >= nargs || buf < 0 ||
		    (pl->tls && !fs)) {
			e->bad = true;
			return;
		}
		e->skarg[j] = o->op == UBPF_K_SKEY || o->op == UBPF_K_SMKEY;
		e->czarg[j] = o->op == UBPF_K_CACMP;
		e->rbarg[j] = seq_whole(o) && fs;
		e->sarg[e->nsarg++] = (uint8_t)a;
	}
	if (!e->nsarg || (!fs && seq_stack(e, pl)))
		return;
	jn = own_need(e, buf); /* the hit needs cgbuf from here */
	if (jn != SIZE_MAX)
		e->fj[e->nfj++] = jn;
	stx(e, BPF_DW, 10, S_SBUF, 0);
	for (unsigned j = 0; j < e->nsarg; j++) {
		ldx(e, BPF_DW, 1, 10, S_SBUF);
		/* SKEY's: the key's bytes past the NUL read as 0 */
		for (int i = 0; e->skarg[j] && i < UBPF_KSKEY; i += 8)
			st(e, BPF_DW, 1, (int16_t)(SEQ_AT(j) + i), 0);
		/* CACMP's: its first UBPF_KCOMM bytes */
		for (int i = 0; !e->skarg[j] && e->czarg[j] && i < UBPF_KCOMM;
		     i += 8)
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
			/* strsize - 1 past what was read: a string the copy
			 * cut (no NUL in its first UBPF_STRMAX - 1 bytes)
			 * is read on by run.c, which may fault there, so
			 * the hit is user space's (a key's already is);
			 * and where SLEN measures it, strsize - 1 of
			 * UBPF_STRMAX too, a copy that full telling no
			 * length (UBPF_STRMAX - 1 bytes, or more) */
			bool cut = pl->fstr > UBPF_STRMAX ||
				   (pl->fstr == UBPF_STRMAX &&
				    slen_of(pl, e->sarg[j]));

			if (cut && !e->skarg[j] &&
			    e->nfj >= sizeof(e->fj) / sizeof(e->fj[0]))
				e->bad = true;
			else if (cut && !e->skarg[j])
				e->fj[e->nfj++] =
					jmp_i(e, BPF_JEQ, 0, UBPF_STRMAX);
		}
		stx(e, BPF_DW, 10, (int16_t)S_SLEN(j), 0); /* for SEQ */
		/* a key longer than kaggs_s keeps: the hit is user space's */
		if (e->skarg[j] && e->nfj < UBPF_KSTRARGS * 2 + 1)
			e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 0, UBPF_KSKEY);
		else if (e->skarg[j])
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
			ldx(e, BPF_DW, 3, 10, (int16_t)S_ARG(e->sarg[j]));
			alu_i(e, BPF_ADD, 3, pl->fstr - 1);
			call(e, BPF_FUNC_probe_read_user);
			fix(e, jf);
		}
	}
	/* SKEY2's pairs: both strings, NULs included, in kaggs_s's s, or
	 * the hit is user space's, as a key too long is */
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++) {
		const struct ubpf_kop *o = &pl->ops[pc];
		unsigned j1, j2;

		if (o->op != UBPF_K_SKEY2)
			continue;
		for (j1 = 0; j1 < e->nsarg && e->sarg[j1] != o->levels; j1++)
			;
		for (j2 = 0; j2 < e->nsarg && e->sarg[j2] != o->slot; j2++)
			;
		if (j1 >= e->nsarg || j2 >= e->nsarg ||
		    e->nfj >= sizeof(e->fj) / sizeof(e->fj[0])) {
			e->bad = true;
			return;
		}
		ldx(e, BPF_DW, 1, 10, (int16_t)S_SLEN(j1));
		ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j2));
		alu_r(e, BPF_ADD, 1, 2);
		e->fj[e->nfj++] = jmp_i(e, BPF_JGT, 1, UBPF_KSKEY);
	}
}

/*
 * Fault site agg (1 up) of a comparison reading seq_read()'s j-th
 * string: where that read failed (S_SLEN(j) -1 or -2), its bits in
 * S_FLAGS (usdt_bpf.h's, two a site) and the clause's end (e->sfj).
 * seq()'s and vacmp()'s.  r1 and r3 are taken.
 */
static void fault_at(struct em *e, unsigned j, unsigned agg)
{
	size_t jok;

	ldx(e, BPF_DW, 3, 10, (int16_t)S_SLEN(j));
	jok = jmp_i(e, BPF_JSGE, 3, 0);
	alu_i(e, BPF_NEG, 3, 0); /* 1 or 2: usdt_bpf.h's bits */
	alu_i(e, BPF_LSH, 3, (int32_t)(32 + 2 * (agg - 1)));
	ldx(e, BPF_DW, 1, 10, S_FLAGS);
	alu_r(e, BPF_OR, 1, 3);
	stx(e, BPF_DW, 10, S_FLAGS, 1);
	e->sfj = jmp_i(e, BPF_JA, 0, 0);
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
static void str_chunks_at(struct em *e, uint8_t base, int32_t at,
			  unsigned n,
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

static void str_chunks(struct em *e, unsigned j, unsigned n,
		       void (*fn)(struct em *, void *, unsigned, unsigned),
		       void *ctx)
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

/*
 * SKEY2 o: copyinstr(argument o->slot)'s copy, its NUL included (its
 * count, S_SLEN), into the kaggs_s key's s right after the NUL of
 * argument o->levels' (SKEY's, copied before, NUL-padded): at that
 * count's offset.  seq_read() sent the hit to user space where the two
 * counts pass UBPF_KSKEY; the bounds here are the verifier's.
 */
static void skey2(struct em *e, const struct ubpf_kop *o)
{
	unsigned j1, j2;
	size_t jb1, jb2;

	for (j1 = 0; j1 < e->nsarg && e->sarg[j1] != o->levels; j1++)
		;
	for (j2 = 0; j2 < e->nsarg && e->sarg[j2] != o->slot; j2++)
		;
	if (j1 >= e->nsarg || j2 >= e->nsarg || !e->skarg[j1]) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 4, 10, (int16_t)S_SLEN(j1));
	ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j2));
	jb1 = jmp_i(e, BPF_JGT, 4, UBPF_KSKEY);
	jb2 = jmp_i(e, BPF_JGT, 2, UBPF_KSKEY);
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, SKEY_AT + (int32_t)sizeof(struct ubpf_kkey));
	alu_r(e, BPF_ADD, 1, 4);
	ldx(e, BPF_DW, 3, 10, S_SBUF);
	alu_i(e, BPF_ADD, 3, SEQ_AT(j2));
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, jb1);
	fix(e, jb2);
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
 * and jumps to its clause's end (e->sfj, which cgen_plan() points there).  The
 * copy's length (NUL included, kept by seq_read()) is the literal's
 * plus one, and its bytes before the NUL are the literal's, compared a
 * word at a time (str_chunks()); *pc is left on the last SDATA.  With
 * fj, the comparison is a PRED's (cgen_plan() fuses them): no r1, the
 * jumps taken on a difference put in fj (*nfj of them, at most
 * UBPF_KSTRMAX / 8 + 5) for the caller to point at the PRED's end.
 */
static void seq_ord(struct em *e, const struct ubpf_kop *o, unsigned j);

static void seq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		size_t *fj, unsigned *nfj)
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
static unsigned seq_pred(const struct ubpf_kplan *pl, unsigned pc,
			 const bool *tgt)
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
			s->op == UBPF_K_SMOV || s->op == UBPF_K_SCLR) &&
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
 * "", as run.c's var_get() does.  No fault: the store read the string.
 * *pc is left on the last SDATA.
 */
static void vseq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
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
 * r1 = VSLEN o: strlen() of the self-> or this-> string variable, from
 * the copy its SSTR kept (svar_at()): its len less the NUL when the copy
 * ended before o->imm bytes (strsize - 1), else imm, or imm - 1 when the
 * last byte, read again on its own, is the string's NUL (cgen_out.c's
 * ostr_at()).  One unset reads "": 0.
 */
static void vslen(struct em *e, const struct ubpf_kplan *pl,
		  const struct ubpf_kop *o, const int *fds)
{
	size_t jnone, jshort, jnul;

	if (o->imm < 1 || o->imm > UBPF_STRMAX - 1) {
		e->bad = true;
		return;
	}
	svar_at(e, pl, o, fds);
	alu_i(e, BPF_MOV, 1, 0);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 1, 0, (int16_t)offsetof(struct ubpf_kostr, len));
	jshort = jmp_i(e, BPF_JNE, 1, (int32_t)o->imm);
	ldx(e, BPF_B, 2, 0,
	    (int16_t)(offsetof(struct ubpf_kostr, s) + (size_t)o->imm - 1));
	alu_i(e, BPF_MOV, 1, (int32_t)o->imm + 1);
	jnul = jmp_i(e, BPF_JNE, 2, 0);
	alu_i(e, BPF_MOV, 1, (int32_t)o->imm);
	fix(e, jnul);
	fix(e, jshort);
	alu_i(e, BPF_SUB, 1, 1); /* the NUL */
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
			jeq[(*neq)++] =
				jmp_i(e, BPF_JLE, 3, (int32_t)(8 * i));
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
 * the two joined after.  vveq()'s and vacmp()'s epilogue.
 */
static void cmp_result(struct em *e, const size_t *jeq, unsigned neq,
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
static void vveq(struct em *e, const struct ubpf_kop *o, const int *fds)
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
static void vacmp(struct em *e, const struct ubpf_kplan *pl,
		  const struct ubpf_kop *o, const int *fds)
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

/* Does the plan have instruction op (of variable kind n, for VLD/VST)? */
/*
 * String variable v's bytes (svar_at(): the struct ubpf_kostr its store
 * filled, v->n its kind, v->imm strsize - 1) into cgbuf at at (S_SBUF,
 * cgen_plan()'s), NUL-padded: UBPF_KVROOM(imm) bytes zeroed first,
 * then its first len (a copy that ended early: its NUL's included; one
 * of imm bytes, strsize - 1: its last read again, maybe a NUL,
 * cgen_out.c's ostr_at()), so the bytes past the string are 0
 * whatever an earlier copy left past its NUL: one string, one copy,
 * nothing of it cut.  One unset (absent, a this-> len of 0) is "":
 * every byte 0.  No fault.
 */
static void svar_copy(struct em *e, const struct ubpf_kplan *pl,
		      const struct ubpf_kop *v, int32_t at, const int *fds)
{
	unsigned room = UBPF_KVROOM(v->imm);
	size_t jnone, jbig;

	if (v->imm < 1 || v->imm > UBPF_STRMAX - 1 || !e->vbuf ||
	    (v->n != UBPF_KV_SELF && v->n != UBPF_KV_THIS)) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 2, (int16_t)(at + (int32_t)i), 0);
	svar_at(e, pl, v, fds);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)offsetof(struct ubpf_kostr, s));
	ldx(e, BPF_W, 2, 0, (int16_t)offsetof(struct ubpf_kostr, len));
	jbig = jmp_i(e, BPF_JGT, 2, (int32_t)v->imm); /* none: bounds */
	ldx(e, BPF_DW, 1, 10, S_SBUF);
	alu_i(e, BPF_ADD, 1, at);
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, jnone);
	fix(e, jbig);
}

/* VKEY o: the string variable's bytes (o->levels its kind) into the
 * kaggs_v key at VKEY_AT in cgbuf (svar_copy()) */
static void vkey(struct em *e, const struct ubpf_kplan *pl,
		 const struct ubpf_kop *o, const int *fds)
{
	struct ubpf_kop v = { .n = (uint8_t)o->levels,
			      .slot = o->slot,
			      .imm = o->imm };

	svar_copy(e, pl, &v,
		  VKEY_AT + (int32_t)sizeof(struct ubpf_kkey), fds);
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
static void vvcmp(struct em *e, const struct ubpf_kplan *pl,
		  const struct ubpf_kop *o, const int *fds)
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
	    o->imm < 1 || o->imm > UBPF_STRMAX - 1 ||
	    o->step > UBPF_KSTRMAX || room > UBPF_STRMAX) {
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
static void seq_ord(struct em *e, const struct ubpf_kop *o, unsigned j)
{
	unsigned nw, cap;
	uint64_t lw[UBPF_KSTRMAX / 8 + 1];
	size_t jcut;

	if (o->levels < 1 || o->levels > 6 || (o->flags & UBPF_KF_NEG) ||
	    o->imm < 1 || o->imm > UBPF_STRMAX - 1 ||
	    o->step > UBPF_KSTRMAX || e->sn) {
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
 * CKEY o: execname into the kaggs_v key at VKEY_AT in cgbuf: the room
 * (UBPF_KVROOM(o->imm), kplan_merge.c's kp_vkey_imm(): the map's) zeroed,
 * then bpf_get_current_comm() of o->step bytes (strsize's, 16 at
 * most), which copies the comm cut to one byte less and its NUL
 * (Linux 6.1's strscpy() pads no further, later ones' strscpy_pad()
 * do: the zeroed room pads it either way): the name at the hit, cut
 * as agg.c cuts a key (strsize - 1 bytes), every byte past it 0 (a
 * NUL past the room is no part of the key).
 */
static void ckey(struct em *e, const struct ubpf_kop *o)
{
	int32_t at = VKEY_AT + (int32_t)sizeof(struct ubpf_kkey);
	unsigned room = UBPF_KVROOM(o->imm);
	int32_t sz = o->step;

	if (o->imm < 1 || o->imm > UBPF_STRMAX - 1 || !e->vbuf || sz < 2 ||
	    sz > UBPF_KCOMM) {
		e->bad = true;
		return;
	}
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 2, (int16_t)(at + (int32_t)i), 0);
	sbuf_at(e, 1, at);
	alu_i(e, BPF_MOV, 2, sz);
	call(e, BPF_FUNC_get_current_comm);
}

/*
 * LKEY pl->ops[*pc]: the literal's bytes (its SDATA, cut by kplan to
 * strsize - 1 bytes) into the kaggs_v key at VKEY_AT, its room
 * (UBPF_KVROOM(o->imm), the map's) zeroed first; flagged UBPF_KF_SEL,
 * the value popped into r1 chooses: not 0 the first literal, else the
 * second (SEL's test).  The words past the room are the literal's
 * NUL-padding: not written.  *pc is left on the last SDATA.
 */
static void lkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		 unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	int32_t at = VKEY_AT + (int32_t)sizeof(struct ubpf_kkey);
	unsigned room = UBPF_KVROOM(o->imm);
	bool sel = (o->flags & UBPF_KF_SEL) != 0;
	unsigned n1 = o->step / 8u + 1, n2 = sel ? o->levels / 8u + 1 : 0;
	size_t jelse = 0, jend = 0;

	if (o->imm < 1 || o->imm > UBPF_STRMAX - 1 || !e->vbuf ||
	    o->step > UBPF_KSTRMAX || (sel && o->levels > UBPF_KSTRMAX) ||
	    *pc + n1 + n2 >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	if (sel)
		pop(e, sp, 1);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 2, (int16_t)(at + (int32_t)i), 0);
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
 * at VKEY_AT as CKEY and LKEY write them, its room zeroed first; the
 * key's word k[n] (S_KKEY, which AGG copies) says which, 1 execname,
 * and is KEY's as far as AGG is concerned (e->kw).  *pc is left on the
 * last SDATA.
 */
static void mkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		 unsigned *sp)
{
	const struct ubpf_kop *o = &pl->ops[*pc];
	int32_t at = VKEY_AT + (int32_t)sizeof(struct ubpf_kkey);
	unsigned room = UBPF_KVROOM(o->imm), kn = o->n & (UBPF_KMAXKEYS - 1);
	bool ca = (o->agg & 1) != 0, cb = (o->agg & 2) != 0;
	unsigned n1 = ca ? 0 : o->step / 8u + 1;
	unsigned n2 = cb ? 0 : o->levels / 8u + 1;
	int16_t kw = (int16_t)(S_KKEY + 8 + 8 * (int)kn);
	size_t jelse, jend;

	if (o->imm < 1 || o->imm > UBPF_STRMAX - 1 || !e->vbuf || o->agg < 1 ||
	    o->agg > 3 || o->slot < 2 || o->slot > UBPF_KCOMM ||
	    (!ca && o->step > UBPF_KSTRMAX) ||
	    (!cb && o->levels > UBPF_KSTRMAX) ||
	    *pc + n1 + n2 >= pl->nops + 1u) {
		e->bad = true;
		return;
	}
	pop(e, sp, 1);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (unsigned i = 0; i < room; i += 8)
		st(e, BPF_DW, 2, (int16_t)(at + (int32_t)i), 0);
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
static void smkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
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
static void clen(struct em *e)
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
static void cwkey(struct em *e, const struct ubpf_kop *o)
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
static void ccmp(struct em *e, const struct ubpf_kplan *pl, unsigned *pc)
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
static void cvcmp(struct em *e, const struct ubpf_kplan *pl,
		  const struct ubpf_kop *o, const int *fds)
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
 * r1 = CACMP o: execname OP copyinstr(argument o->n), OP o->agg
 * (padded_cmp()'s).  execname is copied into cgbuf at VCMP_AT(0), its
 * room zeroed (UBPF_KCOMM bytes); the argument's string, which
 * seq_read() copied after zeroing its first UBPF_KCOMM bytes (so the
 * bytes past its NUL are 0), goes to VCMP_AT(1) cut to o->imm bytes
 * (strsize - 1, as copyinstr() cuts it: the bytes from there on 0).
 * execname ends within its 16 bytes, so the first 16 bytes of both,
 * NUL-padded, decide strcmp()'s order whatever the string's length
 * (as CCMP's literal).  A string that cannot be read sent the hit to
 * user space whole before the plan (seq_read(): no fault sites).
 */
static void cacmp(struct em *e, const struct ubpf_kop *o)
{
	unsigned j;

	for (j = 0; j < e->nsarg && e->sarg[j] != o->n; j++)
		;
	if (j >= e->nsarg || !e->czarg[j] || o->agg > 5 || o->imm < 1 ||
	    !e->vbuf) {
		e->bad = true;
		return;
	}
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
	padded_cmp(e, 2, VCMP_AT(0), VCMP_AT(1), NULL, UBPF_KCOMM / 8, o->agg);
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
	case UBPF_K_ARG: /* a gate's ARG the site lacks is a REC */
		return !(o->flags & UBPF_KF_GATE);
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
	case UBPF_K_CPU:
	case UBPF_K_UID:
	case UBPF_K_GID:
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
 * value is pushed to, as cgen.c's u_ecred() and u_sess() read them for
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
 */
static bool vld_again(const struct ubpf_kplan *pl, unsigned pc,
		      const bool *tgt)
{
	const struct ubpf_kop *o = &pl->ops[pc];

	for (unsigned q = pc + 1; q < pl->nops && q < UBPF_KOPS; q++) {
		const struct ubpf_kop *p = &pl->ops[q];

		if (tgt[q])
			return false;
		if (p->op == UBPF_K_VLD && p->n == UBPF_KV_SELF &&
		    p->slot == o->slot)
			return true;
		if (!vval_kept(p))
			return false;
	}
	return false;
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
	uint8_t jn;

	e->nxpj = 0;
	e->vcv = 0;
	e->pland = SIZE_MAX;
	e->kw = 0; /* the kaggs key: each AGG writes it whole (agg_at()) */
	seq_read(e, pl, fds[5], nargs);
	/* the out area: started by the first clause of the hit that
	 * writes into it (cgen_out_need(), which also makes the this->
	 * strings read ""), known started only until a jump lands */
	e->ostarted = e->oany = false;
	for (unsigned pc = 0; pc < pl->nops && pc < UBPF_KOPS; pc++)
		if (pl->ops[pc].jump > pc && pl->ops[pc].jump <= pl->nops)
			tgt[pl->ops[pc].jump] = true;
	/* VKEY's keys and VVCMP's copies are built in cgbuf too
	 * (S_SBUF): seq_read() found it, or here, a lookup of a
	 * one-entry array that cannot fail (the verifier wants the
	 * test: seq_read()'s way out) */
	e->vbuf = e->nsarg > 0 && !e->sn;
	if (!e->vbuf && fds[5] >= 0 &&
	    (cgen_plan_has(pl, UBPF_K_VKEY, -1) ||
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
			if (o->n >= nargs && (o->flags & UBPF_KF_GATE)) {
				/* a gate cannot tell: the record decides */
				rec(e);
				alu_i(e, BPF_MOV, 1, 0);
				push(e, &sp, o);
				continue;
			}
			if (o->n >= nargs) {
				e->bad = true;
				continue;
			}
			ldx(e, BPF_DW, 1, 10, (int16_t)S_ARG(o->n));
			push(e, &sp, o);
			continue;
		case UBPF_K_REC:
			rec(e);
			continue;
		case UBPF_K_OSTR: /* a copy whose fault may end the clause
				   * (a jump where one must), */
		case UBPF_K_SSTR: /* ... a string variable's store (always) */
			if ((eop == UBPF_K_SSTR || o->jump) &&
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
		case UBPF_K_OUT: /* printf(), trace(): cgen_out.c */
		case UBPF_K_ODONE:
		case UBPF_K_SCLR:
		case UBPF_K_OVSTR:
		case UBPF_K_SMOV:
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
		case UBPF_K_SLEN:
			slen(e, o, &sp);
			continue;
		case UBPF_K_CLEN:
			clen(e);
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
		case UBPF_K_CACMP:
			cacmp(e, o);
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
		case UBPF_K_VVEQ:
			vveq(e, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_VVCMP:
			vvcmp(e, pl, o, fds);
			push(e, &sp, o);
			continue;
		case UBPF_K_VACMP: /* a fault site's jump as SEQ's */
			if (o->agg && (o->jump <= pc || o->jump > pl->nops)) {
				e->bad = true;
				continue;
			}
			e->sfj = SIZE_MAX;
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
			pop_top(e, &sp);
			break;
		case UBPF_K_JMP: /* an if's body done: past its else */
			if (o->jump <= pc || o->jump > pl->nops) {
				e->bad = true;
				continue;
			}
			pj[np] = jmp_i(e, BPF_JA, 0, 0);
			pd[np] = o->jump;
			pdep[np++] = sp; /* 0: kplan_emit.c's emit_list() */
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
