/* SPDX-License-Identifier: MIT */
/*
 * cgen_impl.h - what cgen.c (a generated program's prologue, record
 * and epilogue) and cgen_plan.c (its plan as code, with cgen_agg.c,
 * cgen_sarg.c and cgen_svar.c) share: the program's
 * stack frame, the emitter (struct em: the instructions so far, and
 * the jumps still to be fixed) and its one-instruction helpers.  Each
 * helper appends one BPF instruction (two for a 64-bit immediate); a
 * forward jump is emitted with offset 0 and set by fix() once its
 * target is the next instruction.  Some emit a short fixed run of
 * them, as lookup_at() a map lookup of a key on the stack and lookup0()
 * of key 0, which every map of one entry is read by.  Not for anything
 * else.
 */
#ifndef USDT_DTRACE_CGEN_IMPL_H
#define USDT_DTRACE_CGEN_IMPL_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "consumer_impl.h"

/* the stack frame (offsets from r10) */
#define S_KEY8 (-8)		      /* {ev, pid}, a u32 index */
#define S_ARG(i) (-16 - 8 * (int)(i)) /* UBPF_MAXARGS arguments */
/* the slot of the address a plan's string argument a is read from: a
 * bounded copy's (UBPF_KBSTR()) its argument A's */
#define S_SARG(a)                                                              \
	S_ARG((unsigned)(a) >= UBPF_KBSTR0 ? UBPF_KBSTR_A((unsigned)(a))       \
					   : (unsigned)(a))
#define S_STK(i) (-16 - 8 * UBPF_MAXARGS - 8 * (int)(i))       /* the plan's */
#define S_KKEY (-16 - 8 * UBPF_MAXARGS - 8 * UBPF_KSTACK - 40) /* kaggs */
/* the firing's vtimestamp, where the plan reads it (cgen.c's prologue,
 * UBPF_K_VTIME), in the room of 16 zero bytes a new aggregation entry's
 * value took before cgzero (cgen_agg.c's agg_find()) */
#define S_VT (S_KKEY - 8)
/* ... and in the other 8: the hold map's value while a copyout() hit
 * holds its thread, else 0 (cgen_rec.c's u_hold(), in the record) */
#define S_HOLD (S_VT - 8)
#define S_COMM (S_KKEY - 16 - 16) /* the thread's name */
#define S_FLAGS (S_COMM - 8) /* the record's flags */
/* S_FLAGS: the record's u16 flags; bit 16 a REC ran (the hit needs its
 * record); bits 32-63 the fault sites' (cgen_sarg.c) */
#define S_FLAGS_REC 0x10000
/* ... bits 17 to 20 PROG's pids found by the plan's walk (cgen_rec.c's
 * cgen_anc_plan(): pid i of the plan's anc at bit 17 + i), cleared
 * where the plan ends */
#define S_FLAGS_ANC(i) (1u << (17 + (unsigned)(i)))
#define S_FLAGS_ANCS (S_FLAGS_ANC(UBPF_KANC) - S_FLAGS_ANC(0))
/* ... bits 22 to 29 this-> slot i stored by the firing (a VST of it in
 * a plan that has UBPF_K_TSET, which reads them), cleared where the
 * plan ends (bit 21 the designed S_FLAGS_ANCOK's) */
#define S_FLAGS_THIS(i) (1u << (22 + (unsigned)(i)))
#define S_FLAGS_THISS (S_FLAGS_THIS(UBPF_KTHIS) - S_FLAGS_THIS(0))
_Static_assert(22 + UBPF_KTHIS <= 31, "S_FLAGS_THIS() below bit 31");
_Static_assert(17 + UBPF_KANC <= 21, "S_FLAGS_ANC() below bit 21");
#define S_TS (S_FLAGS - 8)   /* the firing's timestamp, if the plan reads it */
#define S_VKEY (S_TS - 8)    /* cgtls's key {tid, variable} */
#define S_VVAL (S_VKEY - 8)  /* a value stored there; rb_wake_ask()'s */
#define S_THIS(i) (S_VVAL - 8 - 8 * (int)(i)) /* UBPF_KTHIS this-> */
#define S_SBUF S_THIS(UBPF_KTHIS) /* cgbuf, where SEQ's strings are */
#define S_SLEN(j) (S_SBUF - 8 - 8 * (int)(j)) /* their copies' lengths */
/* cgtlsa's key {tid, var, keys} */
#define S_AKEY (S_SLEN(UBPF_KSTRARGS - 1) - (int)sizeof(struct ubpf_kvakey))
/* an element of an array of one key loaded again later in its clause
 * (cgen_plan.c's vld_again()): its cgtlsa1 key and value, in S_AKEY's
 * bytes past the UBPF_KVAKEY1 that cgtlsa1 reads */
#define S_ACKEY (S_AKEY + UBPF_KVAKEY1)
#define S_ACVAL (S_ACKEY + UBPF_KVAKEY1)
_Static_assert(UBPF_KVAKEY1 * 2 + 8 <= sizeof(struct ubpf_kvakey),
	       "S_ACKEY, S_ACVAL within S_AKEY");
/* the record's out area in cgbuf (cgen_out.c): 0 until a clause of the
 * hit starts it (cgen_out_need()) */
#define S_OBUF (S_AKEY - 8)
/* the probe's id, in a program probes share (cgen_kprov.c's kp_ident()) */
#define S_PRB (S_OBUF - 8)
/* cgbuf's owner word's address while the hit holds it, else 0 (cgen.c's
 * own_need()) */
#define S_OWN (S_PRB - 8)
_Static_assert(S_OWN >= -512, "the generated programs' stack: 512 bytes");
/* SEQ's string of its j-th argument: in cgbuf, past what a record uses */
#define SEQ_AT(j) (UBPF_SCRATCH - UBPF_STRMAX * ((int)(j) + 1))
/* a kaggs_s key, built below them (a map key may be in a map value) */
#define SKEY_AT (SEQ_AT(UBPF_KSTRARGS) - (int)sizeof(struct ubpf_kskey))
/* VVCMP's two copies, zero-padded, below it (above TSTR_AT()'s); a
 * kaggs_v key is built past cgbuf's owner word (e->vkoff: cgen.c's
 * cg_room_off()), where a pair's two rooms of strsize 256 fit */
#define VCMP_AT(i) (SKEY_AT - UBPF_STRMAX * ((int)(i) + 1))
/* SSTR's strings in cgbuf (cgen_out.c): this-> string i < UBPF_KTSTR,
 * and at UBPF_KTSTR a self-> string's copy before it goes into cgtlss
 * (every SSTR's copy, first), at UBPF_KTSTR + 1 a strjoin()'s string as
 * its parts are appended (UBPF_KJ_*);
 * above the record's half (and what its masked offsets may reach) */
#define TSTR_AT(i)                                                      \
	(UBPF_SCRATCH / 2 + 512 + (int)sizeof(struct ubpf_kostr) * (int)(i))
_Static_assert(VCMP_AT(1) >= TSTR_AT(UBPF_KTSTR + 2),
	       "cgbuf: VVCMP's copies above SSTR's strings and the join's");

struct em {
	struct bpf_insn *v;
	size_t n, cap;
	bool bad;
	/* the event's arguments (cgen.c): one past them reads 0, as its
	 * record has it (bpf.c's bpf_decode()), an address 0 that faults
	 * (arg_addr()) */
	unsigned nargs;
	/* SEQ: the arguments whose strings the plan compares, and the
	 * jumps taken when one cannot be read (to the unflagged record) */
	uint8_t sarg[UBPF_KSTRARGS];
	bool skarg[UBPF_KSTRARGS]; /* ... SKEY's: at most UBPF_KSKEY bytes */
	/* ... SKEY's and SKEY2's, which kaggs_l may key by whole
	 * (cgen_agg.c's "Long string keys"), and SMKEY's, held to
	 * UBPF_KSKEY bytes */
	bool klarg[UBPF_KSTRARGS], snl[UBPF_KSTRARGS];
	/* ... read by SMKEYs flagged UBPF_KF_ANULL alone: an address 0
	 * is not read (the literal is the key there) */
	bool anarg[UBPF_KSTRARGS];
	/* kaggs_l's strings' bytes (UBPF_KSLONG()), 0: no kaggs_l; and
	 * the arguments (their j) of the kaggs_s key being built, SKEY's
	 * and SKEY2's (skey(), skey2(): -1 none), which AGG's key
	 * measures */
	uint16_t lroom;
	int lkj1, lkj2, lkj3;
	/* the kaggs_v pair being built: its second room's offset and
	 * bytes (vkey_at()), 0: none; cgen_agg.c's short_pair(); vp3: a
	 * third room too (kplan.c's vkey_third()), no short key then */
	unsigned vp1, vp2;
	bool vp3;
	bool vbuf; /* S_SBUF holds cgbuf for VKEY, VVCMP (cgen_plan()) */
	unsigned nsarg;
	/* ... and mem_read()'s two, and a PROG walk's cut */
	size_t fj[UBPF_KSTRARGS * 5 + 4]; /* (a bounded copy's takes 3 more) */
	unsigned nfj;
	/* MLD's copies (cgen_mem.c's mem_read()): cgbuf's copy room's
	 * offset (0: the map has none, bpf_cg.c), and each copy of the
	 * plan, {argument, bytes, its offset in the room} */
	uint16_t cpyoff;
	/* cgbuf's chain room's offset (0: none; bpf_cg.c): the hit's pid
	 * and its chain of parents, kept by cgen_anc_plan() for PROGX */
	uint16_t ancoff;
	/* cgbuf's kaggs_v key room (cg_room_off()), or 0: no cgbuf */
	uint16_t vkoff;
	unsigned ncpy;
	struct {
		uint8_t arg;
		uint16_t size, at;
	} cpy[UBPF_KCPYSITES];
	/* the horizon's (cgen.c): a hit stamped past it, to the same */
	size_t hzj[4]; /* ... and cgen_kprov.c's kp_tlsu()'s two */
	unsigned nhzj;
	/* cgen_plan()'s PRED jumps to the plan's end that no instruction
	 * before them can have set S_FLAGS's upper half for (no REC, no
	 * fault, nothing that writes): where the record gate follows,
	 * cgen.c sends them to the exit (a failing hit tests no gate) */
	size_t xpj[8];
	unsigned nxpj;
	/* SEQ with a fault site (fsites()): its jump to its clause's
	 * end, taken when its string could not be read; plan() fixes it */
	size_t sfj;
	/* the out area (cgen_out_setup()): cgbuf's fd, the area's offset
	 * in it and its bytes (0: none), the plan its ops are of; whether
	 * S_OBUF is set on every path to the next instruction, and whether
	 * any code so far sets it (jumps go forward: if none, it is 0 on
	 * every path) (cgen_out_need(), cgen_plan()) */
	int obuf;
	unsigned obase, obytes;
	const struct ubpf_kplan *opl;
	bool ostarted, oany;
	/* where fix() last made a jump land (cgen_plan.c's pop_top()),
	 * and where a jump of the plan does: the start of the op being
	 * emitted when one lands on it, else SIZE_MAX (cgen_plan()) */
	size_t land, pland;
	/* the kaggs key's words that KEY wrote since the last AGG (bit
	 * n: k[n]), the others zeroed by AGG (cgen_agg.c's agg_at()) */
	unsigned kw;
	/* the keys in kaggs's key (struct cgen_maps' kkeys) */
	unsigned kkeys;
	/* the key's pad word is the hit's interval, set in the prologue
	 * (cgen.c: kplan_exit.c's "Intervals"): AGG writes the words
	 * before it alone */
	bool ival;
	/* the event's records carry the user stack (its spec's ustk:
	 * cgen_ustk.c's ustack_copy(), ustack_walk()) */
	bool ustk;
	/* the probe's id is at S_PRB: a CONST flagged UBPF_KF_PRB loads
	 * it (a program several kernel probes share, cgen.c) */
	bool prb;
	/* CACMP's arguments (seq_read()): the first UBPF_KCOMM bytes of
	 * the copy zeroed before it, so the bytes past its NUL read 0 */
	bool czarg[UBPF_KSTRARGS];
	/* VACMP's and ordered SEQ's arguments where the plan has fault
	 * sites (seq_read()):
	 * a copy that filled its pl->fstr bytes has its last byte read
	 * again, which the helper cut for its NUL */
	bool rbarg[UBPF_KSTRARGS];
	/* R2's arguments (seq_read()): an OSTR or SSTR flagged
	 * UBPF_KF_APRE reads the copy (cgen_out.c's ostr_pre()), so it
	 * stays in cgbuf (no seq_stack()) */
	bool oparg[UBPF_KSTRARGS];
	/* cgbuf's owner word (cgen.c's own_need()): its offset in a
	 * program made owning it (0: made without, the first making);
	 * whether every path to the next instruction holds it (owned:
	 * cleared where a jump emitted before ownfrom, the take's start,
	 * lands: fix(), cgen_plan()'s landings) and whether any may
	 * (ownmay: some take emitted; jumps go forward, so if none, no
	 * path holds it); the jumps of a take that found it held (bj,
	 * to own_busy()) */
	int16_t ownoff;
	bool owned, ownmay;
	size_t ownfrom;
	size_t *bj;
	unsigned nbj, cbj;
	/* SEQ's copies on the stack (cgen_sarg.c's seq_stack()): the
	 * argument slots past the event's nargs, which cgen.c gives a
	 * uprobe's plan (soff the lowest, sroom bytes; 0: none), and where
	 * the copies went there, each copy's bytes (sn; 0: in cgbuf, at
	 * SEQ_AT()) */
	int16_t soff;
	uint16_t sroom, sn;
	/* cgspec's fd (struct cgen_maps' spec), or -1 */
	int spec;
	/* cgrcon's fd (struct cgen_maps' rcon), or -1 */
	int rcon;
	/* the area offsets of the tags (SPEC, SPECU, SPECX) since the
	 * last ODONE, which ORs UBPF_KSPEC_WHOLE into each (cgen_plan(),
	 * cgen_out_op()) */
	int16_t ktag[UBPF_KOUTMAX / sizeof(struct ubpf_kspec)];
	unsigned nktag;
	/* the self-> variable (its slot + 1; 0: none) whose value VLD
	 * left in S_VVAL for a VLD of it later in the clause (cgen_plan.c's
	 * vld_again()) */
	unsigned vcv;
	/* ... and the array of one key (GARR, SELFA: its slot + 1) whose
	 * element VLD left at S_ACVAL, its key at S_ACKEY (cgen_plan.c's
	 * vld_again()) */
	unsigned acv;
};

static inline void put(struct em *e, uint8_t code, uint8_t dst,
		       uint8_t src, int16_t off, int32_t imm)
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

static inline void alu_i(struct em *e, uint8_t op, uint8_t dst,
			 int32_t imm)
{
	put(e, BPF_ALU64 | op | BPF_K, dst, 0, 0, imm);
}

static inline void alu_r(struct em *e, uint8_t op, uint8_t dst,
			 uint8_t src)
{
	put(e, BPF_ALU64 | op | BPF_X, dst, src, 0, 0);
}

static inline void ld64(struct em *e, uint8_t dst, uint64_t v)
{
	if ((int64_t)v == (int32_t)v) {
		alu_i(e, BPF_MOV, dst, (int32_t)v);
		return;
	}
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, (int32_t)(uint32_t)v);
	put(e, 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
}

static inline void ldmap(struct em *e, uint8_t dst, int fd)
{
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
	put(e, 0, 0, 0, 0, 0);
}

/*
 * dst = the address of byte off of the value of fd, a one-entry array
 * (BPF_PSEUDO_MAP_VALUE, Linux 5.5): a pointer the verifier knows is
 * not NULL, where a bpf_map_lookup_elem() would take the key's store,
 * a call (inlined to a bounds test) and a NULL test every hit
 */
static inline void ldmapv(struct em *e, uint8_t dst, int fd, int32_t off)
{
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_VALUE, 0, fd);
	put(e, 0, 0, 0, 0, off);
}

static inline void ldx(struct em *e, uint8_t sz, uint8_t dst, uint8_t src,
		       int16_t off)
{
	put(e, BPF_LDX | BPF_MEM | sz, dst, src, off, 0);
}

static inline void stx(struct em *e, uint8_t sz, uint8_t dst, int16_t off,
		       uint8_t src)
{
	put(e, BPF_STX | BPF_MEM | sz, dst, src, off, 0);
}

static inline void st(struct em *e, uint8_t sz, uint8_t dst, int16_t off,
		      int32_t imm)
{
	put(e, BPF_ST | BPF_MEM | sz, dst, 0, off, imm);
}

/*
 * *(u64 *)(dst + off) += src, one atomic instruction (BPF_ATOMIC, 5.12
 * on): a program nested in this one on the CPU (doc/DESIGN.md's
 * "Programs that nest on a CPU") that adds between a load and a store
 * would be lost.  fetch: src gets the word's old value.
 */
static inline void xadd(struct em *e, uint8_t dst, int16_t off, uint8_t src,
			bool fetch)
{
	put(e, BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off,
	    fetch ? BPF_ADD | BPF_FETCH : BPF_ADD);
}

static inline void call(struct em *e, int32_t fn)
{
	put(e, BPF_JMP | BPF_CALL, 0, 0, 0, fn);
}

/*
 * r0 = bpf_map_lookup_elem(fd, r10 + key), the key's bytes already at
 * key on the stack: its value's address, or NULL; r1-r5 clobbered
 */
static inline void lookup_at(struct em *e, int fd, int16_t key)
{
	ldmap(e, 1, fd);
	alu_r(e, BPF_MOV, 2, 10);
	alu_i(e, BPF_ADD, 2, key);
	call(e, BPF_FUNC_map_lookup_elem);
}

/* ... of key 0, a u32 stored at S_KEY8: an array's first entry (a
 * per-CPU one's, this CPU's) */
static inline void lookup0(struct em *e, int fd)
{
	st(e, BPF_W, 10, S_KEY8, 0);
	lookup_at(e, fd, S_KEY8);
}

/* a jump whose offset is set later (fix()); its index */
static inline size_t jmp_i(struct em *e, uint8_t op, uint8_t dst,
			   int32_t imm)
{
	put(e, BPF_JMP | op | BPF_K, dst, 0, 0, imm);
	return e->n - 1;
}

static inline size_t jmp_r(struct em *e, uint8_t op, uint8_t dst,
			   uint8_t src)
{
	put(e, BPF_JMP | op | BPF_X, dst, src, 0, 0);
	return e->n - 1;
}

/* jump at index j lands on the next instruction to be emitted */
static inline void fix(struct em *e, size_t j)
{
	if (e->n - j - 1 > INT16_MAX)
		e->bad = true;
	e->v[j].off = (int16_t)(e->n - j - 1);
	e->land = e->n;
	if (j < e->ownfrom) /* a path from before the take: not held */
		e->owned = false;
}

/* cgbuf given back, before an exit: where every path here holds it, a
 * store through S_OWN; where some may, S_OWN tested first (0: not
 * held); where none can, nothing (r1 clobbered) */
static inline void own_give(struct em *e)
{
	size_t j = 0;

	if (!e->ownoff || !e->ownmay)
		return;
	ldx(e, BPF_DW, 1, 10, S_OWN);
	if (!e->owned)
		j = jmp_i(e, BPF_JEQ, 1, 0);
	st(e, BPF_DW, 1, e->ownoff, 0);
	if (!e->owned)
		fix(e, j);
}

/* usdt.bpf.c's sized(): r to size bytes, sign- or zero-extended */
static inline void sized(struct em *e, uint8_t r, uint8_t size,
			 uint8_t sgn)
{
	int32_t sh;

	if (size != 1 && size != 2 && size != 4)
		return;
	sh = 64 - 8 * size;
	alu_i(e, BPF_LSH, r, sh);
	alu_i(e, sgn ? BPF_ARSH : BPF_RSH, r, sh);
}

/* r = 1 if r's value is not 0, else 0 */
static inline void truth(struct em *e, uint8_t r)
{
	size_t j = jmp_i(e, BPF_JEQ, r, 0);

	alu_i(e, BPF_MOV, r, 1);
	fix(e, j);
}

/* the record's bytes at r8 (masked to cgbuf's first half): r1 = the
 * record (r9) + r8 + at */
static inline void rec_at(struct em *e, int32_t at)
{
	alu_i(e, BPF_AND, 8, UBPF_SCRATCH / 2 - 1);
	alu_r(e, BPF_MOV, 1, 9);
	alu_r(e, BPF_ADD, 1, 8);
	if (at)
		alu_i(e, BPF_ADD, 1, at);
}

/*
 * bpf_probe_read_kernel(r1, size, r3 + off1 - 1) (off1: a BTF offset
 * + 1), and a jump (its index in j[*nj]) taken when it faults
 */
static inline void kread(struct em *e, int32_t size, uint32_t off1,
			 size_t *j, unsigned *nj)
{
	alu_i(e, BPF_ADD, 3, (int32_t)(off1 - 1));
	alu_i(e, BPF_MOV, 2, size);
	call(e, BPF_FUNC_probe_read_kernel);
	j[(*nj)++] = jmp_i(e, BPF_JNE, 0, 0);
}

/*
 * r3 = the current task's pointer member at off1 (a BTF offset + 1),
 * read through S_KEY8; a jump (in j[*nj]) taken when the read faults
 * and one when the pointer is NULL
 */
static inline void task_ptr(struct em *e, uint32_t off1, size_t *j,
			    unsigned *nj)
{
	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	kread(e, 8, off1, j, nj);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j[(*nj)++] = jmp_i(e, BPF_JEQ, 3, 0);
}

/* cgen.c: r0 = cgbuf (fd buf), its owner word taken where the hit's
 * path does not hold it yet (in a program made owning it: e->ownoff);
 * a take that finds it held counts a drop and ends the hit.  The jump
 * taken when the lookup finds none (the first making's, which owns
 * nothing), else SIZE_MAX.  r0-r5 clobbered. */
size_t own_need(struct em *e, int buf);
/* cgen_ustk.c: usdt.bpf.c's ustack_copy() of kib KiB at r8 of the record
 * (r9; kp: kp_uregs() put the registers there) */
void ustack_copy(struct em *e, uint8_t kib, bool kp);
/* ... the tail call to the unwinder in prog array arr (falls through) */
void ustack_walk(struct em *e, uint32_t arr, uint8_t kib);
/* ... OSTK: a plan printing the record's stack, whose records must
 * carry it (e->ustk) */
void ustack_out(struct em *e);
/* ... a kernel probe's user registers at r8, rounded up (none: j[nj++]) */
void kp_uregs(struct em *e, const struct cgen_kpro *k, size_t *nj, size_t *j);
/* cgen_kprov.c: the provider's prologue, r8's UBPF_EV_KPROV put back */
void kp_prologue(struct em *e, const struct cgen_kpro *k);
/* ... a shared program's probe: its ev in r8, its D id at S_PRB */
void kp_ident(struct em *e, const struct cgen_kpro *k);
/* ... the plan, unarmed; true when the program has no record */
bool kp_plan(struct em *e, const struct cgen_maps *m,
	     const struct ubpf_kplan *pl, unsigned nargs);
/* ... a process user space keeps self-> for: to the unflagged record */
void kp_tlsu(struct em *e, const struct cgen_maps *m);
/* ... struct ubpf_kctx after the header (r9): uid, gid, ppid */
void kp_kctx(struct em *e, const struct cgen_kpro *k);
/* cgen_rec.c: a uprobe's record's real uid and gid at off (r9) */
void u_cred(struct em *e, int16_t off);
/* copyout() with the thread held at the hit (S_HOLD; the record r9) */
void u_hold(struct em *e, const struct cgen_maps *m);
/* ... the parent's tgid and, with anc, progenyof()'s chain after it */
void anc_walk(struct em *e, const uint32_t o[2], bool kp, bool anc);
/* ... the effective uid and gid at r8, through task_struct's cred at o */
void u_ecred(struct em *e, const uint32_t o[3]);
/* ... the process group's and session's ids at r8, through signal at o */
void u_sess(struct em *e, const uint32_t o[4]);
/* cgen_rec.c: the record's pr_psargs at r8 (r9 the record, in cgbuf),
 * from task_struct's mm and mm_struct's arg_start, arg_end (offsets + 1) */
void cgen_psargs(struct em *e, const uint32_t o[3]);
/* r1 = 1 where one of the neq jumps at jeq lands, 0 where one at jne
 * does (cgen_svar.c) */
void cmp_result(struct em *e, const size_t *jeq, unsigned neq,
		const size_t *jne, unsigned nne);
/* ... vtimestamp at off of base (r9, the record; or r10, S_VT), from
 * the clock cgen_vtime_start() keeps, its entry in register ent (r7 at
 * the record, r9 in the prologue: clobbered) */
void cgen_vtime(struct em *e, const struct cgen_maps *m, uint8_t base,
		int16_t off, uint8_t ent);
/* VTIME's lost clock sends the hit to user space whole (cgen_rec.c) ... */
void cgen_vt_lost(struct em *e, const struct ubpf_kplan *pl);
/* ... or, a fault site, ends the clause, its bits set */
void cgen_vt_fault(struct em *e, const struct ubpf_kop *o);
/* ... progenyof()'s walk for the plan's PROG (pl->anc): S_FLAGS_ANC()
 * set for each pid found; a chain cut before all were found, a jump
 * in e->fj (the hit to user space whole); with pl->ancx (PROGX) the
 * whole chain, kept in cgbuf's chain room (buf its fd) */
void cgen_anc_plan(struct em *e, const struct ubpf_kplan *pl, int buf);
/* cgen_plan.c: the BPF jump of comparison op (UBPF_K_EQ..GEU), or its
 * negation */
uint8_t cgen_cmp_jmp(uint8_t op, bool negate);
/* ... whether the plan has instruction op (of variable kind n; -1: any) */
bool cgen_plan_has(const struct ubpf_kplan *pl, uint8_t op, int n);
/* ... its code, nargs arguments fetched; fds: kaggs, kflat, kdrops,
 * cgtls, cgtlsdrops, cgbuf, kaggs_s, cgtlsa, cgtlss, kaggs_v, kaggs_w,
 * cgzero, cgtlsa1, kaggs_l, kaggs_x */
void cgen_plan(struct em *e, const struct ubpf_kplan *pl, unsigned nargs,
	       const int *fds);
/* ... the top of the stack machine's stack into register r (*sp its
 * depth), no load where the instruction before stored r1 there */
void pop(struct em *e, unsigned *sp, uint8_t r);

/* cgen_agg.c: AGG o: its bucket, its kflat slot or kaggs entry, the
 * update */
void agg(struct em *e, const struct ubpf_kop *o, const int *fds);

/* cgen_mem.c: MLD's copies read before the plan's first clause, and an
 * MLD's load into r1 */
void mem_read(struct em *e, const struct ubpf_kplan *pl, int buf,
	      unsigned nargs);
void mld(struct em *e, const struct ubpf_kop *o);
void mld_fault(struct em *e, const struct ubpf_kop *o);
/* ... the copy an MLD or MSTR o reads (its index in e->cpy), -1 where
 * mem_read() read none */
int mem_copy(const struct em *e, const struct ubpf_kop *o);

/* cgen_sarg.c: whether the plan has fault sites (SEQ's, kplan.c's) */
bool cgen_fsites(struct em *e, const struct ubpf_kplan *pl);
/* ... into register reg the address a plan's string argument a is read
 * from (S_SARG()'s), 0 where the event has no such argument */
void arg_addr(struct em *e, int reg, unsigned a);
/* ... the strings its SEQ (SKEY, CACMP, SMKEY, VACMP, SLEN) read,
 * copied before any clause runs */
void seq_read(struct em *e, const struct ubpf_kplan *pl, int buf,
	      unsigned nargs);
/* ... fault site agg of a compare reading seq_read()'s j-th string */
void fault_set(struct em *e, unsigned site);
void fault_at(struct em *e, unsigned j, unsigned agg);
/* ... a bounded copy's fault site (BCPY: kplan_bstr.c's bfault) */
void bcpy(struct em *e, const struct ubpf_kop *o);
/* ... the first n bytes at base + at, a load each, handed to fn */
void str_chunks_at(struct em *e, uint8_t base, int32_t at, unsigned n,
		   void (*fn)(struct em *, void *, unsigned, unsigned),
		   void *ctx);
/* ... the same for seq_read()'s copy of its j-th argument */
void str_chunks(struct em *e, unsigned j, unsigned n,
		void (*fn)(struct em *, void *, unsigned, unsigned), void *ctx);
/* SEQ's literal, for str_chunks(): its SDATA instructions and the
 * jumps taken on a difference */
struct seq_lit {
	const struct ubpf_kop *d; /* the first SDATA */
	size_t *jf;
	size_t njf;
};
/* ... str_chunks() for SEQ: r3 against the literal's bytes there (ctx
 * a struct seq_lit) */
void seq_chunk(struct em *e, void *ctx, unsigned off, unsigned sz);
/* ... str_chunks() for SKEY: the chunk into the kaggs_s key at cgbuf */
void skey_chunk(struct em *e, void *ctx, unsigned off, unsigned sz);
/* ... SKEY o: the argument's string into the kaggs_s key in cgbuf */
void skey(struct em *e, const struct ubpf_kop *o);
/* ... SKEY2 o: a second argument's string after the first's NUL */
void skey2(struct em *e, const struct ubpf_kop *o);
/* ... r1 = SEQ pl->ops[*pc] (with fj: a PRED's jumps instead) */
void seq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc, size_t *fj,
	 unsigned *nfj);
/* ... the PRED that tests SEQ pl->ops[pc] alone, else 0 */
unsigned seq_pred(const struct ubpf_kplan *pl, unsigned pc, const bool *tgt);

/* cgen_svar.c: r1 = an ordered SEQ o (< <= > >=) of seq_read()'s j-th
 * string with its literal */
void seq_ord(struct em *e, const struct ubpf_kop *o, unsigned j);
/* ... r1 = VSEQ pl->ops[*pc]: a string variable == its literal */
void vseq(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	  const int *fds);
/* ... r1 = VSLEN o: a string variable's length */
void schr(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	  const int *fds);
void vslen(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds);
/* ... r1 = VVEQ o: two self-> string variables equal */
void vveq(struct em *e, const struct ubpf_kop *o, const int *fds);
/* ... r1 = VACMP o: a string variable against an argument's string */
void vacmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds);
/* ... VKEY o: a string variable into the kaggs_v key in cgbuf */
void vkey(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	  const int *fds);
/* ... AKEY o: an argument's string into its room of a kaggs_v pair */
void akey(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o);
/* ... r1 = VVCMP o: two string variables in strcmp()'s order */
void vvcmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds);
/* ... CKEY o: execname into the kaggs_v key */
void ckey(struct em *e, const struct ubpf_kop *o);
/* ... LKEY pl->ops[*pc]: a literal (of two, by a popped value) there */
void lkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	  unsigned *sp);
/* ... MKEY pl->ops[*pc]: execname or a literal, by a popped value */
void mkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	  unsigned *sp);
/* ... SMKEY pl->ops[*pc]: an argument's string or a literal */
void smkey(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
	   unsigned *sp);
/* ... r1 = CLEN: execname's length */
void clen(struct em *e);
/* ... CWKEY o: execname's 16 bytes into a kaggs_s key */
void cwkey(struct em *e, const struct ubpf_kop *o);
/* ... r1 = CCMP pl->ops[*pc]: execname against a literal */
void ccmp(struct em *e, const struct ubpf_kplan *pl, unsigned *pc);
/* ... r1 = CVCMP o: execname against a string variable */
void cvcmp(struct em *e, const struct ubpf_kplan *pl, const struct ubpf_kop *o,
	   const int *fds);
/* ... r1 = CACMP o: execname against an argument's string */
void cacmp(struct em *e, const struct ubpf_kop *o);

/* cgen_out.c: the out area's bytes the plan's OUT, OSTR and ODONE take
 * (0: none) */
unsigned cgen_out_bytes(const struct ubpf_kplan *pl);
/* ... the most a record of spec s puts after it (its offsets are masked
 * to cgbuf's first half: the whole must fit there), with progenyof()'s
 * chain of parents where anc (cgen_maps' anc) */
unsigned cgen_out_room(const struct ubpf_ev *s, bool anc);
/* ... the area of plan pl: obase bytes into the record in cgbuf (buf),
 * bytes long; emits nothing (cgen.c's prologue zeroes S_OBUF) */
void cgen_out_setup(struct em *e, int buf, unsigned obase, unsigned bytes,
		    const struct ubpf_kplan *pl);
/* ... S_OBUF set: the area started (zeroed) where no clause of the hit
 * started it yet, unless e->ostarted says it is on every path here */
void cgen_out_need(struct em *e);
/* ... the record (r9, in cgbuf) of a hit that started no area: its
 * ran word 0 and its size, never a hit before's (r1 clobbered) */
void cgen_out_rec(struct em *e);
void cgen_out_op(struct em *e, const struct ubpf_kop *o, unsigned *sp,
		 const int *fds);
/* ... this-> strings (SSTR, SLIT, SMOV, OVSTR) read "" where the area
 * starts (cgen_out_need()) */
void cgen_out_tstr(struct em *e, const struct ubpf_kplan *pl);
/* ... the speculation steps' tags unreached (id and act 0) there too */
void cgen_out_ktags(struct em *e, const struct ubpf_kplan *pl);
/* ... SLIT, its SDATA after it (*pc left on the last) */
void cgen_out_lit(struct em *e, const struct ubpf_kplan *pl, unsigned *pc,
		  const int *fds);
/* ... r0 = fn (lookup or delete) of cgtlss (fd) at self-> string v's
 * key {tid, v}, built in S_VKEY */
void cgen_tlss_call(struct em *e, uint16_t v, int fd, int32_t fn);
/* cgen_plan.c: after a self-> variable's map update (r0 its return), a
 * failure counted in cgtlsdrops, its cause apart (r0-r5 clobbered) */
void cgen_tls_drop(struct em *e, const int *fds);

/* cgen_spec.c: speculation() on the nspec words of cgspec (fd words),
 * its tag at tagoff in the out area, output clause bit's ran bit set;
 * the ID it took (0: none) in r1 (r1-r5 clobbered) */
void cgen_spec_take(struct em *e, int words, unsigned nspec, int16_t tagoff,
		    unsigned bit);
/* ... speculate() of the ID in r1; *jfault the jump taken for an ID
 * past nspec (nothing written), for the caller to fix */
void cgen_spec_step(struct em *e, int words, unsigned nspec, int16_t tagoff,
		    unsigned bit, size_t *jfault);
/* ... commit() or discard() of the ID in r1 (the same) */
void cgen_spec_close(struct em *e, int words, unsigned nspec, int16_t tagoff,
		     unsigned bit, size_t *jfault);

#endif /* USDT_DTRACE_CGEN_IMPL_H */
