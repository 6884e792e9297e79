// SPDX-License-Identifier: MIT
/*
 * cgen_agg.c - a plan's aggregations as code: AGG (and the key its KEY
 * instructions store), part of stage 2 of a generated program
 * (cgen_plan.c, whose cgen_plan() calls agg()).
 *
 * KEY stores into the kaggs key on the stack, which is as wide as
 * bpf_agg_cgen.c made kaggs's (the most keys a statement has, not
 * UBPF_KMAXKEYS: a hit hashes and compares every byte of it), and
 * each AGG writes its every word (agg_at(): {agg, bucket, pad} in
 * one store, a key its KEYs did not write 0), so nothing is zeroed
 * at the hit's start or after an AGG, and the zero value an
 * insert needs only where one is made; AGG computes
 * quantize()'s bucket (a branchy fls), lquantize()'s or
 * llquantize()'s (llq_bucket(): a test per order of magnitude, no
 * loop), finds the slot (kflat, by index) or the entry (kaggs:
 * lookup, insert if absent, lookup; a full map counts in kdrops)
 * and updates it as kagg.bpf.h's kval_update() does, each word a
 * program nested in this one on the CPU could change by one atomic
 * instruction (BPF_ADD; min() and max() by BPF_CMPXCHG, minmax();
 * doc/DESIGN.md's "Programs that nest on a CPU"); stddev()
 * updates two buckets, {hits, sum} and its 128-bit sum of squares
 * (stddev_sq(), kplan.c's "stddev() and llquantize()"), which the
 * generic program does not know.
 *
 * Where kaggs_v's room (cgen_svar.c's VKEY) is longer than
 * UBPF_KVSHORT (32) bytes, AGG looks a key whose string ends
 * within them (its byte 31 0: the room is zero-padded; not a
 * statement's pair of string keys, UBPF_KF_VPAIR, whose second
 * room may lie past byte 31) up in kaggs_w instead, whose key is
 * those 32 bytes (agg_at()): the map hashes and compares its
 * whole key at every hit, 72 bytes there and 296 in kaggs_v at
 * strsize 256 (the selfkey row of bench/perhit.sh: the leave's
 * program 250 ns a hit before, 120 after); a string is in one map
 * or the other by its bytes, so each key has one entry, and
 * bpf_agg_read.c merges both.
 *
 * Short pairs.  A statement's pair of kaggs_v keys (UBPF_KF_VPAIR:
 * two string variables, or one beside execname or a literal, the
 * toolkit's @num[this->file, "func", this->name]) is its two rooms side
 * by side, 552 bytes hashed and compared at every hit for two
 * variables at strsize 256 (bench/perhit.sh's selfpair row).  Where
 * each string ends within UBPF_KVSHORT bytes of its room, AGG makes
 * the key in place the first room's UBPF_KVSHORT bytes, then the
 * second's (short_pair()), and looks it up in kaggs_x (its key those
 * 2 * UBPF_KVSHORT bytes: 104 hashed) instead: a pair is in one map or
 * the other by its bytes, so each has one entry, and the merge puts a
 * kaggs_x key's halves back in their rooms (kplan_merge.c's
 * d_kplan_vpair_short()) before it reads it as kaggs_v's.
 *
 * Long string keys.  A kaggs_s key holds its copyinstr() strings,
 * NULs included, in UBPF_KSKEY (64) bytes: a path, a SQL statement or
 * a URL is longer, and such a hit went to user space whole, a record
 * run there (an @[copyinstr(arg0)] of queries of 70 to 80 bytes: a
 * record for every hit).  Where a statement's strings are SKEY's and
 * SKEY2's (not SMKEY's: a ?: of one), seq_read() no longer sends such
 * a hit away: AGG measures the copies (their S_SLEN, NULs included,
 * each at most UBPF_STRMAX, the helper's size) and where they pass
 * UBPF_KSKEY builds the key in kaggs_l instead (long_key()): the same
 * struct ubpf_kkey, then the strings as seq_read() copied them, the
 * second after the first's NUL, NUL-padded to the map's
 * UBPF_KSLONG(1) bytes, or UBPF_KSLONG(2) where a statement has two
 * (bpf_agg_cgen.c), in the kaggs_v key's room of cgbuf, which a
 * kaggs_s statement does not use.  A key is in one map or the other by
 * its strings' lengths, so each has one entry, and the merge reads
 * both as it reads kaggs_s's (up to the first NUL, the second after
 * it), cut to strsize - 1 as copyinstr() cuts: exact as kaggs_s is,
 * but where the copy filled UBPF_STRMAX bytes and strsize is past
 * UBPF_STRMAX, whose string run.c would read on (seq_read() sends
 * that hit away, as it does a value's).  The cost is the longer hash
 * (296 bytes for one string, 552 for two) and the room zeroed, for
 * those keys alone.
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
	static const int sh[] = { 32, 16, 8, 4, 2 };

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

/* kdrops' counter idx (fds[2]; UBPF_KDROP, UBPF_KDROP_NOMEM), per
 * CPU, += 1 atomically; r0-r5 clobbered */
static void kdrop(struct em *e, const int *fds, int32_t idx)
{
	size_t j;

	st(e, BPF_W, 10, S_KEY8, idx);
	lookup_at(e, fds[2], S_KEY8);
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
	kdrop(e, fds, UBPF_KDROP);
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
 * at kat (SKEY_AT, e->vkoff) */
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
 * A pair's kaggs_x key ("Short pairs", above): where each string of
 * the kaggs_v key at kat ends within UBPF_KVSHORT bytes of its room
 * (e->vp1 bytes the first's, e->vp2 the second's: cgen_svar.c's
 * vkey_at()), its key made in place, the first room's UBPF_KVSHORT
 * bytes then the second's, each zero-padded; else the jumps into
 * jlong (*nlong of them, the key as it was).  r2, r3 taken.
 */
static void short_pair(struct em *e, int32_t kat, size_t *jlong,
		       unsigned *nlong)
{
	const int32_t s = kat + (int32_t)sizeof(struct ubpf_kkey);
	const int32_t w = UBPF_KVSHORT; /* a room's bytes in the key */
	const int32_t r1 = (int32_t)e->vp1;
	const int32_t n2 =
		(int32_t)(e->vp2 < UBPF_KVSHORT ? e->vp2 : UBPF_KVSHORT);

	ldx(e, BPF_DW, 2, 10, S_SBUF);
	/* a room longer than w: its byte w - 1 is 0 (zero-padded) exactly
	 * where its string ends within them; a shorter one always does */
	if (r1 > w) {
		ldx(e, BPF_B, 3, 2, (int16_t)(s + w - 1));
		jlong[(*nlong)++] = jmp_i(e, BPF_JNE, 3, 0);
	}
	if ((int32_t)e->vp2 > w) {
		ldx(e, BPF_B, 3, 2, (int16_t)(s + r1 + w - 1));
		jlong[(*nlong)++] = jmp_i(e, BPF_JNE, 3, 0);
	}
	/* the second's first n2 bytes (whole words) to w: down where r1
	 * is past w (the first's bytes there are 0), up where short of it
	 * (from the last word: the two overlap) */
	for (int32_t i = 0; r1 > w && i < n2; i += 8) {
		ldx(e, BPF_DW, 3, 2, (int16_t)(s + r1 + i));
		stx(e, BPF_DW, 2, (int16_t)(s + w + i), 3);
	}
	for (int32_t i = n2 - 8; r1 < w && i >= 0; i -= 8) {
		ldx(e, BPF_DW, 3, 2, (int16_t)(s + r1 + i));
		stx(e, BPF_DW, 2, (int16_t)(s + w + i), 3);
	}
	/* the first room's tail up to w, the second's past n2: 0 */
	for (int32_t i = r1; i < w; i += 8)
		st(e, BPF_DW, 2, (int16_t)(s + i), 0);
	for (int32_t i = n2; i < w; i += 8)
		st(e, BPF_DW, 2, (int16_t)(s + w + i), 0);
}

/*
 * The kaggs_l key of a kaggs_s statement (AGG o) whose strings, NULs
 * included, pass UBPF_KSKEY ("Long string keys", above): the key's
 * words (S_KKEY) and the strings of SKEY (e->lkj1) and SKEY2's second
 * and third (e->lkj2, e->lkj3) as seq_read() copied them, each after
 * the one before's NUL, NUL-padded, in cgbuf's key room (e->vkoff),
 * and the entry there updated; fds[13] is kaggs_l.  The
 * jump taken where they fit kaggs_s (the caller lands it on its key),
 * and, into *jend, those past the update: the one after it, and the
 * bounds the verifier is shown (a copy's count is UBPF_STRMAX at most,
 * the helper's size).
 */
static size_t long_key(struct em *e, const int *fds, uint8_t fn, size_t *jend,
		       unsigned *nend)
{
	const int32_t kk = (int32_t)sizeof(struct ubpf_kkey);
	const int32_t room = e->vkoff;
	/* SKEY's argument, and SKEY2's second and third (-1: none) */
	const int js[3] = { e->lkj1, e->lkj2, e->lkj2 >= 0 ? e->lkj3 : -1 };
	size_t jshort;

	ldx(e, BPF_DW, 1, 10, (int16_t)S_SLEN(js[0]));
	for (int q = 1; q < 3 && js[q] >= 0; q++) {
		ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(js[q]));
		alu_r(e, BPF_ADD, 1, 2);
	}
	jshort = jmp_i(e, BPF_JLE, 1, UBPF_KSKEY);
	ldx(e, BPF_DW, 2, 10, S_SBUF);
	for (int32_t i = kk; i < kk + e->lroom; i += 8)
		st(e, BPF_DW, 2, (int16_t)(room + i), 0);
	for (int32_t i = 0; i < kk; i += 8) {
		ldx(e, BPF_DW, 3, 10, (int16_t)(S_KKEY + i));
		stx(e, BPF_DW, 2, (int16_t)(room + i), 3);
	}
	for (int q = 0; q < 3 && js[q] >= 0; q++) {
		int j = js[q];

		ldx(e, BPF_DW, 1, 10, S_SBUF);
		alu_i(e, BPF_ADD, 1, room + kk);
		for (int p = 0; p < q; p++) { /* after the NULs before */
			ldx(e, BPF_DW, 4, 10, (int16_t)S_SLEN(js[p]));
			jend[(*nend)++] = jmp_i(e, BPF_JGT, 4, UBPF_STRMAX);
			alu_r(e, BPF_ADD, 1, 4);
		}
		ldx(e, BPF_DW, 2, 10, (int16_t)S_SLEN(j));
		jend[(*nend)++] = jmp_i(e, BPF_JGT, 2, UBPF_STRMAX);
		ldx(e, BPF_DW, 3, 10, S_SBUF);
		alu_i(e, BPF_ADD, 3, SEQ_AT(j));
		call(e, BPF_FUNC_probe_read_kernel);
	}
	agg_find(e, fds, fn, fds[13], room);
	jend[(*nend)++] = jmp_i(e, BPF_JA, 0, 0);
	return jshort;
}

/*
 * The update fn of AGG o's entry in bucket r1, or kb where that is a
 * constant (>= 0: r1 not read), the value, if any, in r9: the slot of
 * kflat, or the entry of kaggs, made when absent.
 */
static void agg_at(struct em *e, const struct ubpf_kop *o, const int *fds,
		   uint8_t fn, int kb)
{
	size_t j1, jl[8];
	unsigned nl = 0;
	bool vkeyed = (o->flags & UBPF_KF_VKEY) != 0;
	bool skeyed = (o->flags & UBPF_KF_SKEY) != 0 || vkeyed;
	int map = vkeyed ? fds[9] : skeyed ? fds[6] : fds[0];
	int32_t kat = vkeyed ? e->vkoff : skeyed ? SKEY_AT : 0;

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
	if (fds[0] < 0 || fds[2] < 0 || map < 0 || fds[11] < 0) {
		e->bad = true;
		return;
	}
	/* the key: {agg, bucket, pad 0} in one store, r1's low 16 bits
	 * the bucket (a constant where bucket() says so: kb); each k[n]
	 * a KEY did not write, 0 (e->kw), up to the map's keys */
	if (e->ival) { /* {agg, bucket}: pad is the hit's interval */
		if (kb >= 0) {
			st(e, BPF_W, 10, S_KKEY,
			   (int32_t)(uint32_t)((uint32_t)kb << 16 | o->agg));
		} else {
			alu_i(e, BPF_LSH, 1, 48);
			alu_i(e, BPF_RSH, 1, 32);
			alu_i(e, BPF_OR, 1, o->agg);
			stx(e, BPF_W, 10, S_KKEY, 1);
		}
	} else if (kb >= 0 && ((int64_t)kb << 16 | o->agg) <= INT32_MAX) {
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
	if (skeyed && !vkeyed && e->lroom && e->lkj1 >= 0) {
		if (fds[13] < 0 || !e->vkoff) {
			e->bad = true;
			return;
		}
		fix(e, long_key(e, fds, fn, jl, &nl));
	}
	if (skeyed) { /* the key with its string: in cgbuf (skey(), vkey()) */
		ldx(e, BPF_DW, 2, 10, S_SBUF);
		for (int i = 0; i < (int)sizeof(struct ubpf_kkey); i += 8) {
			ldx(e, BPF_DW, 3, 10, (int16_t)(S_KKEY + i));
			stx(e, BPF_DW, 2, (int16_t)(kat + i), 3);
		}
	}
	if (vkeyed && fds[10] >= 0 && !(o->flags & UBPF_KF_VPAIR)) {
		/* kaggs_w's key where the string ends within its
		 * UBPF_KVSHORT bytes: the room is zero-padded (svar_copy(),
		 * ckey(), lkey()), so its byte UBPF_KVSHORT - 1 is 0 then
		 * and only then, and the bytes past it are all 0 (not so
		 * of a pair's two rooms, UBPF_KF_VPAIR: kaggs_v's alone) */
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
	/* (not stddev()'s: its two buckets are two AGGs of one key, and
	 * short_pair() rewrites the key in place, so the second would
	 * hash the first's short key as a kaggs_v one) */
	if (vkeyed && (o->flags & UBPF_KF_VPAIR) && fds[14] >= 0 && e->vp1 &&
	    !e->vp3 && e->vp1 + e->vp2 > 2 * UBPF_KVSHORT &&
	    o->n != UBPF_F_STDDEV) {
		size_t jlong[2], jend;
		unsigned nlong = 0;

		short_pair(e, kat, jlong, &nlong);
		agg_find(e, fds, fn, fds[14], kat);
		jend = jmp_i(e, BPF_JA, 0, 0);
		for (unsigned i = 0; i < nlong; i++)
			fix(e, jlong[i]);
		agg_find(e, fds, fn, map, kat);
		fix(e, jend);
		e->vp1 = e->vp2 = 0;
		e->vp3 = false;
		return;
	}
	agg_find(e, fds, fn, map, kat);
	for (unsigned i = 0; i < nl; i++)
		fix(e, jl[i]);
}

/*
 * The entry of the key at kat (key_ptr()) in map, made when absent,
 * updated by fn (the value in r9).  An insert that fails is a drop in
 * kdrops, per CPU: UBPF_KDROP_NOMEM where the kernel could not allocate
 * the entry (-ENOMEM: Linux allocates a BPF_F_NO_PREALLOC map's entries
 * at the insert, without waiting, and under memory pressure that fails
 * with the map nowhere near full), else UBPF_KDROP; either way the
 * entry is looked up again first, in case another CPU made it.
 */
static void agg_find(struct em *e, const int *fds, uint8_t fn, int map,
		     int32_t kat)
{
	size_t j1, j2, j3, jnomem, jfull;

	ldmap(e, 1, map);
	key_ptr(e, kat);
	call(e, BPF_FUNC_map_lookup_elem);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	ldmap(e, 1, map); /* not there: a zero value put, cgzero's */
	key_ptr(e, kat);
	ldmapv(e, 3, fds[11], 0);
	alu_i(e, BPF_MOV, 4, BPF_NOEXIST);
	call(e, BPF_FUNC_map_update_elem);
	jnomem = jmp_i(e, BPF_JEQ, 0, -ENOMEM);
	ldmap(e, 1, map);
	key_ptr(e, kat);
	call(e, BPF_FUNC_map_lookup_elem);
	j2 = jmp_i(e, BPF_JNE, 0, 0);
	kdrop(e, fds, UBPF_KDROP);
	jfull = jmp_i(e, BPF_JA, 0, 0);
	fix(e, jnomem);
	ldmap(e, 1, map);
	key_ptr(e, kat);
	call(e, BPF_FUNC_map_lookup_elem);
	j3 = jmp_i(e, BPF_JNE, 0, 0);
	kdrop(e, fds, UBPF_KDROP_NOMEM);
	{
		size_t j4 = jmp_i(e, BPF_JA, 0, 0);

		fix(e, j1);
		fix(e, j2);
		fix(e, j3);
		kval_update(e, fn, fds);
		fix(e, j4);
		fix(e, jfull);
	}
}

/*
 * AGG o, the value (if any) in r9.  stddev() updates two buckets of
 * its key (kagg_bpf.h): 0 as avg() does, 1 its squares.
 */
void agg(struct em *e, const struct ubpf_kop *o, const int *fds)
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
	 * the values after each; agg_at() zeroes those not written), and
	 * its pair's rooms (vkey_at()) */
	e->kw = 0;
	e->vp1 = e->vp2 = 0;
	e->vp3 = false;
}
