// SPDX-License-Identifier: MIT
/*
 * kplan_emit.c - the instructions of the clauses kplan.c lets the
 * kernel run, for one probe (d_kplan_emit(), in the encoding of
 * bpf/kagg_bpf.h: a stack machine's instructions, each result narrowed
 * as ../d/run.c narrows it).  kplan.c decided which clauses qualify,
 * the types of their variables and their fault sites; this file only
 * walks a qualifying clause's tree: the predicate, a forward PRED jump
 * to the clause's end (SC for an && or || whose right side may fault:
 * a string compared, or a copy read, where their faults are the hit's),
 * then each statement's keys and its AGG, or its value and VST (an if:
 * its condition, its value kept in the out area where printing lies
 * under it (an OUT flagged UBPF_KF_KEEP), a PRED to its else, its
 * body, a JMP past the else, the else: emit_list(), the statements
 * numbered by the clause's flat
 * list, ../d/compile.c's flatten()); a
 * string compared with a literal is SEQ (an argument's) or VSEQ (a
 * self-> string variable's; < <= > >=: VSEQ whose agg is the order),
 * the literal in the SDATA after it, two
 * such variables compared VVEQ, one with an argument's string VACMP
 * (a fault site, as SEQ, where kplan.c made it one; its step the
 * order for < <= > >=), and strlen() of
 * one VSLEN; a literal
 * stored into one is SLIT (its SDATA after it too), another's bytes
 * SMOV; execname compared with a literal is CCMP (the literal's first
 * 16 bytes in SDATA after it), with a string variable CVCMP, and
 * execname or a literal as a key CKEY or LKEY (lit_key(): a ?: of
 * literals its condition pushed first, both literals' SDATA after),
 * execname beside a copyinstr() key CWKEY (two words of its key), a
 * second copyinstr() key SKEY2 (after the first's NUL), both for the
 * three; probeprov, probemod, probefunc or probename compared with a
 * literal or another of them a CONST, the comparison's truth at this
 * probe (kplan_str.c's kp_ident_fold()), so the plans of probes whose
 * truths differ differ.
 * The depth of the stack at each instruction is tracked
 * (UBPF_KSTACK), and a clause whose instructions do not fit UBPF_KOPS
 * is left to user space for that probe (false, the plan unchanged).
 * args[N] is typed here, at the probe (kplan.c's kp_ty_at()): ARG, then
 * NORM to the type the probe declares; where it is no integer, or a
 * key's type differs from the one the first plan with it fixed
 * (args_keys(): the merge has one type per key), the clause does not
 * fit that probe; so where args[N] printed as a string (kplan_out.c's
 * kp_out_sarg(): ARG, then OSTR) is no string there.  d_kplan_fits()
 * asks that of a clause alone, fixing no key type, with the first
 * reason (struct em's why: unfit()); kplan_here.c decides from it which
 * clauses the kernel runs at the probe, the others user space's.  A
 * record gate (d_kplan_gate()) is the predicate alone of a clause left
 * to user space, its PRED jumping past a REC, its arguments flagged
 * UBPF_KF_GATE.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

struct em {
	struct ubpf_kplan *pl;
	unsigned n;	   /* instructions */
	unsigned depth, max; /* stack */
	bool full;
	const struct d_probe *probe;
	const struct d_kplan *k;
	bool tls; /* a self-> variable read or written */
	bool gate; /* a record gate's predicate (d_kplan_gate()) */
	/* d_kplan_fits(): the first reason the clause does not fit this
	 * probe (unfit()), or NULL */
	char *why;
	size_t wlen;
};

/* The clause does not fit this probe, for the reason fmt says (the
 * first one is kept: d_kplan_fits()) */
static void unfit(struct em *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unfit(struct em *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->full && m->why && m->wlen && !m->why[0]) {
		va_start(ap, fmt);
		vsnprintf(m->why, m->wlen, fmt, ap);
		va_end(ap);
	}
	m->full = true;
}

static struct ubpf_kop *put(struct em *m, int op, int pops, int pushes)
{
	static struct ubpf_kop sink;
	struct ubpf_kop *o;

	if (m->n >= UBPF_KOPS) {
		m->full = true;
		return memset(&sink, 0, sizeof(sink));
	}
	o = &m->pl->ops[m->n++];
	memset(o, 0, sizeof(*o));
	o->op = (uint8_t)op;
	m->depth = m->depth - (unsigned)pops + (unsigned)pushes;
	if (m->depth > m->max)
		m->max = m->depth;
	return o;
}

/*
 * o, the string comparison n, a fault site: o->agg its number (1 up) in
 * the plan's list (kplan.c's fault mode), which holds every one the
 * clause can reach, so one not found cannot be reached (the plan full).
 */
static void fault_site(struct em *m, struct ubpf_kop *o,
		       const struct node *n)
{
	for (unsigned i = 0; m->k->fmode && i < m->k->nfs; i++)
		if (m->k->fs[i].n == n)
			o->agg = (uint16_t)(i + 1);
	if (m->k->fmode && !o->agg)
		m->full = true; /* not reached */
}

/*
 * o, a VTIME of n, a fault site where a lost clock ends the clause
 * (kplan_vars.c's vfault): o->slot its number (1 up) in the same list;
 * not found, not reached (the plan full).
 */
static void vt_site(struct em *m, struct ubpf_kop *o, const struct node *n)
{
	for (unsigned i = 0; m->k->vfault && i < m->k->nfs; i++)
		if (m->k->fs[i].n == n)
			o->slot = (uint16_t)(i + 1);
	if (m->k->vfault && !o->slot)
		m->full = true; /* not reached */
}

/*
 * o, an MLD of n (a load, or a place's store), a fault site where a
 * copy's fault is the hit's (kplan_mem.c's mfault): o->slot its number
 * (1 up) in the same list; not found, not reached (the plan full).
 */
static void mem_site(struct em *m, struct ubpf_kop *o, const struct node *n)
{
	for (unsigned i = 0; m->k->mfault && i < m->k->nfs; i++)
		if (m->k->fs[i].n == n)
			o->slot = (uint16_t)(i + 1);
	if (m->k->mfault && !o->slot)
		m->full = true; /* not reached */
}

/*
 * The comparison n reads args[N] (N arg) where this probe's argument is
 * no string: not the kernel's, for this probe (the plan full); one of
 * copyinstr(argN) is a string at every probe.
 */
static void args_str_only(struct em *m, const struct node *n, int arg)
{
	if ((kp_args_index(n->a) >= 0 || kp_args_index(n->b) >= 0) &&
	    !d_args_str(m->probe, (unsigned)arg))
		unfit(m, "args[%d] is no string there", arg);
}

/*
 * Convert the top, of type (fz, fg), to (sz, sg); nothing to do when it
 * is 8 bytes (the value is its 64 bits) or the type does not change.
 */
static void norm(struct em *m, uint8_t fz, uint8_t fg, uint8_t sz, uint8_t sg)
{
	struct ubpf_kop *o;

	if (sz == 8 || (sz == fz && sg == fg))
		return;
	o = put(m, UBPF_K_NORM, 1, 1);
	o->sz = sz;
	o->sg = sg;
}

/* VLD or VST o of variable v */
static void var_op(struct em *m, struct ubpf_kop *o, unsigned v)
{
	if (m->k->prog->vars[v].scope == SC_SELFASSOC) {
		o->n = UBPF_KV_SELFA;
		o->slot = (uint16_t)v;
		m->tls = true;
	} else if (m->k->prog->vars[v].scope == SC_SELF) {
		o->n = UBPF_KV_SELF;
		o->slot = (uint16_t)v;
		m->tls = true;
	} else {
		o->n = UBPF_KV_THIS;
		o->slot = (uint16_t)m->k->vslot[v];
	}
}

static void emit(struct em *m, const struct node *n);
static bool clause_emit(const struct d_kplan *k, unsigned clause,
			const struct d_probe *probe, struct ubpf_kplan *pl,
			char *why, size_t wlen);

/*
 * n reads args[] as this probe does not type it (kp_ty_at() refused
 * it there): the first args[N] whose kind is not the one n needs, as
 * the reason; strlen() and stringof() of it need a string, the rest an
 * integer.
 */
static bool args_why_at(struct em *m, const struct node *n, bool str)
{
	uint8_t z, g;
	int a;

	if (!n)
		return false;
	if ((a = kp_args_index(n)) >= 0) { /* args[N], maybe in stringof() */
		str |= n->op != N_ARGS;
		if (str ? d_args_str(m->probe, (unsigned)a)
			: d_args_int(m->probe, (unsigned)a, &z, &g))
			return false;
		unfit(m, "args[%d] is no %s there", a,
		      str ? "string" : "integer");
		return true;
	}
	str = n->op == N_FUNC && d_funcs[n->sub].id == F_STRLEN;
	if (args_why_at(m, n->a, false) || args_why_at(m, n->b, false) ||
	    args_why_at(m, n->c, false))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (args_why_at(m, n->args[i], str))
			return true;
	return false;
}

static void args_why(struct em *m, const struct node *n)
{
	if (!args_why_at(m, n, false))
		unfit(m, "args[] is not typed so there");
}

/*
 * progenyof(q), q its pid as func.c compares it (kplan.c's
 * kp_prog_arg()): 1 where q is 0, a constant (func.c's answer at every
 * hit); else PROG, n the index of q among the plan's pids (pl->anc,
 * added in plan order, the BTF's offsets in pl->anc_off), which the
 * program's walk finds or not before the first clause (cgen_rec.c's
 * cgen_anc_plan()).  A fifth pid at the probe leaves the clause to user
 * space there (the plan full; the entry points put pl->nanc back).
 */
static void prog(struct em *m, uint32_t q, uint8_t sz, uint8_t sg)
{
	struct ubpf_kplan *pl = m->pl;
	struct ubpf_kop *o;
	unsigned i;

	if (!q) {
		o = put(m, UBPF_K_CONST, 0, 1);
		o->imm = 1;
		o->sz = sz;
		o->sg = sg;
		return;
	}
	for (i = 0; i < pl->nanc && pl->anc[i] != q; i++)
		;
	if (i >= UBPF_KANC) {
		m->full = true;
		return;
	}
	if (i == pl->nanc) {
		pl->anc[pl->nanc++] = q;
		pl->anc_off[0] = m->k->ppid1[0] - 1;
		pl->anc_off[1] = m->k->ppid1[1] - 1;
	}
	o = put(m, UBPF_K_PROG, 0, 1);
	o->n = (uint8_t)i;
	o->imm = q;
	o->sz = sz;
	o->sg = sg;
}

/* prog()'s pids past the first nanc taken back (an entry point that
 * failed), every byte as before them (plans are compared whole) */
static void anc_back(struct ubpf_kplan *pl, uint8_t nanc)
{
	for (unsigned i = nanc; i < UBPF_KANC; i++)
		pl->anc[i] = 0;
	pl->nanc = nanc;
	if (!nanc)
		pl->anc_off[0] = pl->anc_off[1] = 0;
}

/*
 * Key j of ks, its string key, is args[N] (bare) and probe declares
 * argument N an integer: the key is that integer there (kaggs, typed
 * as args_keys() fixes it), as user space's args[N] reads it
 */
static bool skey_int(const struct kstmt *ks, unsigned j,
		     const struct d_probe *probe)
{
	uint8_t z, g;

	return (int)j == ks->skey && ks->svar < 0 &&
	       (ks->kargs & (1u << j)) &&
	       d_args_int(probe, ks->sarg, &z, &g);
}

/* SEQ's and VSEQ's literal s of len bytes: SDATA, 8 bytes each,
 * NUL-padded (its NUL in the last) */
static void sdata(struct em *m, const char *s, size_t len)
{
	for (size_t i = 0; i <= len; i += 8) {
		struct ubpf_kop *o;
		uint64_t w = 0;

		for (size_t j = 0; j < 8 && i + j < len; j++)
			w |= (uint64_t)(uint8_t)s[i + j] << (8 * j);
		o = put(m, UBPF_K_SDATA, 0, 0);
		o->imm = (int64_t)w;
	}
}

/*
 * A literal key's bytes, or a probe's name where a ?: key's branch is
 * probeprov, probemod, probefunc or probename (this probe's, kplan_str.c's
 * kp_lit_key()), cut to strsize - 1 bytes as agg.c cuts a key: its
 * length into *len; one longer than UBPF_KSTRMAX leaves the clause to
 * user space at this probe.
 */
static const char *lit_bytes(struct em *m, const struct node *n, size_t *len)
{
	const char *s = n->op == N_STR ? n->sval : kp_ident_str(m->probe, n);
	size_t max = m->k->prog->strsize - 1;

	if (!s) { /* not reached: kp_lit_key() took neither */
		m->full = true;
		s = "";
	}
	*len = strlen(s) < max ? strlen(s) : max;
	if (*len > UBPF_KSTRMAX) {
		if (n->op == N_STR)
			unfit(m, "a literal key longer than a key's room");
		else
			unfit(m, "%s longer than a key's room there",
			      d_builtins[n->sub].name);
		*len = UBPF_KSTRMAX;
	}
	return s;
}

/*
 * LKEY: key j is the literal n, or c ? "a" : "b" (kplan_str.c's
 * kp_lit_key(), a branch maybe this probe's name: lit_bytes()): c
 * pushed, then LKEY flagged UBPF_KF_SEL, each literal cut to
 * strsize - 1 bytes as agg.c cuts a key.
 */
static void lit_key(struct em *m, const struct node *n, unsigned j)
{
	size_t l1, l2 = 0;
	const char *s1, *s2 = NULL;
	struct ubpf_kop *o;

	if (n->op == N_TERN)
		emit(m, n->a);
	s1 = lit_bytes(m, n->op == N_TERN ? n->b : n, &l1);
	if (n->op == N_TERN)
		s2 = lit_bytes(m, n->c, &l2);
	o = put(m, UBPF_K_LKEY, n->op == N_TERN ? 1 : 0, 0);
	o->n = (uint8_t)j;
	o->imm = kp_vkey_imm(m->k); /* the key's room */
	o->step = (uint16_t)l1;
	if (n->op == N_TERN) {
		o->flags = UBPF_KF_SEL;
		o->levels = (uint16_t)l2;
	}
	sdata(m, s1, l1);
	if (n->op == N_TERN)
		sdata(m, s2, l2);
}

/*
 * errno (kplan.c's "Variables"): what run.c reads, the firing's errnum,
 * is set at a system call's return alone (kprov_syscall.c's sys_fire():
 * the probe's errret), from arg0, the value the kernel returned, which
 * the plan's ARG 0 reads as the record does: -arg0 where arg0 is
 * -4095..-1, else 0.  So there (arg0 + 4095 <u 4095) ? -arg0 : 0, an
 * int in 64 bits, as SEL computes a ?:; at every other probe the
 * constant 0.
 */
static void kp_errno(struct em *m)
{
	struct ubpf_kop *o;

	if (!m->probe || m->probe == KP_ANYPROBE || !m->probe->errret) {
		o = put(m, UBPF_K_CONST, 0, 1);
		o->sz = 4;
		o->sg = 1;
		return;
	}
	o = put(m, UBPF_K_ARG, 0, 1); /* the condition */
	if (m->gate)
		o->flags |= UBPF_KF_GATE;
	o = put(m, UBPF_K_ADD, 1, 1);
	o->flags = UBPF_KF_IMM;
	o->imm = 4095;
	o->sz = 8;
	o->sg = 1;
	o = put(m, UBPF_K_LTU, 1, 1);
	o->flags = UBPF_KF_IMM;
	o->imm = 4095;
	o = put(m, UBPF_K_ARG, 0, 1); /* -arg0 */
	if (m->gate)
		o->flags |= UBPF_KF_GATE;
	o = put(m, UBPF_K_NEG, 1, 1);
	o->sz = 8;
	o->sg = 1;
	o = put(m, UBPF_K_CONST, 0, 1); /* else 0 */
	o->sz = 4;
	o->sg = 1;
	put(m, UBPF_K_SEL, 3, 1);
}

/*
 * MKEY: key j is c ? a : b, a and b execname or literals (kplan_str.c's
 * kp_mix_key()): c pushed, then MKEY, each literal cut to strsize - 1
 * bytes as agg.c cuts a key, execname to as many as CKEY's.
 */
static void mix_key(struct em *m, const struct node *n, unsigned j)
{
	size_t max = m->k->prog->strsize - 1, l1 = 0, l2 = 0;
	bool ca = kp_is_comm(n->b), cb = kp_is_comm(n->c);
	struct ubpf_kop *o;

	emit(m, n->a);
	o = put(m, UBPF_K_MKEY, 1, 0);
	o->n = (uint8_t)j;
	o->imm = kp_vkey_imm(m->k); /* the key's room */
	o->agg = (uint16_t)((ca ? 1 : 0) | (cb ? 2 : 0));
	o->slot = m->k->prog->strsize < UBPF_KCOMM
			  ? (uint16_t)m->k->prog->strsize
			  : UBPF_KCOMM;
	if (!ca)
		l1 = strlen(n->b->sval) < max ? strlen(n->b->sval) : max;
	if (!cb)
		l2 = strlen(n->c->sval) < max ? strlen(n->c->sval) : max;
	o->step = (uint16_t)l1;
	o->levels = (uint16_t)l2;
	if (!ca)
		sdata(m, n->b->sval, l1);
	if (!cb)
		sdata(m, n->c->sval, l2);
}

/*
 * SMKEY: key j is c ? copyinstr(arg a) : "lit" or the other way round
 * (kplan_str.c's kp_smix_key()): c pushed, then SMKEY, the literal whole
 * (the merge cuts it as it cuts SKEY's string); or c ? copyinstr(arg
 * a) : copyinstr(arg b): SMKEY's agg 3, b in levels, no literal.
 */
static void smix_key(struct em *m, const struct node *n, unsigned j, uint8_t a)
{
	bool first = kp_copyinstr_arg(n->b) >= 0;
	const struct node *l = first ? n->c : n->b;
	struct ubpf_kop *o;

	emit(m, n->a);
	o = put(m, UBPF_K_SMKEY, 1, 0);
	o->n = (uint8_t)j;
	o->slot = a;
	if (kp_copyinstr_arg(l) >= 0) { /* two strings */
		o->agg = 3;
		o->levels = (uint16_t)kp_copyinstr_arg(l);
		return;
	}
	o->agg = first ? 1 : 2;
	o->step = (uint16_t)strlen(l->sval);
	sdata(m, l->sval, strlen(l->sval));
}

/*
 * The keys of self->a[k...] n, each narrowed to its type (d_key_add()
 * keeps a key as its type's size), pushed in order; the types into o's
 * imm, step keys (kagg_bpf.h's UBPF_KV_SELFA).
 */
static void assoc_keys(struct em *m, const struct node *n, struct ubpf_kop *o)
{
	int64_t types = 0;

	for (unsigned i = 0; i < n->nargs && i < UBPF_KMAXKEYS; i++) {
		uint8_t kz = 8, kg = 1;

		(void)kp_ty(m->k, n->args[i], &kz, &kg);
		emit(m, n->args[i]);
		norm(m, 8, 1, kz, kg);
		types |= (int64_t)((kz == 1   ? 0
				    : kz == 2 ? 1
				    : kz == 4 ? 2
					      : 3) |
				   (kg ? 4 : 0))
			 << (3 * i);
	}
	o->step = (uint16_t)n->nargs;
	o->imm = types;
}

static void emit(struct em *m, const struct node *n)
{
	uint8_t sz = 8, sg = 1, az, ag, bz, bg;
	struct ubpf_kop *o;
	int op;

	if (!kp_ty_at(m->k, m->probe, n, &sz, &sg) && kp_has_args(n)) {
		args_why(m, n); /* args[N]: no integer at this probe */
		return;
	}
	switch (n->op) {
	case N_DEREF: /* a read from a copy (kplan_mem.c), its type's */
	case N_MEMBER: {
		struct kp_place pl;

		if (!kp_mem_load(m->k, n, &pl)) {
			m->full = true;
			return;
		}
		o = put(m, UBPF_K_MLD, 0, 1);
		o->n = pl.arg;
		o->imm = pl.size;
		o->agg = (uint16_t)pl.off;
		o->sz = n->sz;
		o->sg = n->sg;
		o->levels = n->op == N_MEMBER ? n->bits : 0;
		o->step = n->op == N_MEMBER && n->bits ? n->shift : 0;
		mem_site(m, o, n);
		return;
	}
	case N_INT:
		o = put(m, UBPF_K_CONST, 0, 1);
		o->imm = n->ival;
		o->sz = sz;
		o->sg = sg;
		return;
	case N_ARGN:
		o = put(m, UBPF_K_ARG, 0, 1);
		o->n = (uint8_t)n->sub;
		if (m->gate)
			o->flags |= UBPF_KF_GATE;
		return;
	case N_ARGS: /* argument N as its declared type reads it (kp_ty()) */
		o = put(m, UBPF_K_ARG, 0, 1);
		o->n = (uint8_t)n->a->ival;
		if (m->gate)
			o->flags |= UBPF_KF_GATE;
		norm(m, 8, 1, sz, sg);
		return;
	case N_VAR: /* its 64 bits, as stored */
		o = put(m, UBPF_K_VLD, 0, 1);
		var_op(m, o, (unsigned)n->sub);
		return;
	case N_ASSOC: { /* self->a[k...]: the keys, then the element */
		struct ubpf_kop kt = {0};

		assoc_keys(m, n, &kt);
		o = put(m, UBPF_K_VLD, (int)n->nargs, 1);
		var_op(m, o, (unsigned)n->sub);
		o->step = kt.step;
		o->imm = kt.imm;
		return;
	}
	case N_BUILTIN:
		if (d_builtins[n->sub].id == B_TIMESTAMP) {
			put(m, UBPF_K_TIME, 0, 1);
			return;
		}
		if (d_builtins[n->sub].id == B_VTIMESTAMP) {
			o = put(m, UBPF_K_VTIME, 0, 1);
			vt_site(m, o, n);
			return;
		}
		if (d_builtins[n->sub].id == B_WALLTIMESTAMP) {
			/* the hit's timestamp + the offset user space adds
			 * (hit_prep()), 64 bits unsigned */
			put(m, UBPF_K_TIME, 0, 1);
			o = put(m, UBPF_K_ADD, 1, 1);
			o->flags = UBPF_KF_IMM;
			o->imm = m->k->wall;
			o->sz = 8;
			o->sg = 0;
			return;
		}
		if (d_builtins[n->sub].id == B_ERRNO) {
			kp_errno(m);
			return;
		}
		if (d_builtins[n->sub].id == B_ID) {
			o = put(m, UBPF_K_CONST, 0, 1);
			o->imm = m->probe->id;
			o->flags = UBPF_KF_PRB;
		} else if (d_builtins[n->sub].id == B_CPU) {
			o = put(m, UBPF_K_CPU, 0, 1);
		} else if (d_builtins[n->sub].id == B_PPID) {
			/* task_struct's real_parent, the parent's tgid */
			o = put(m, UBPF_K_PPID, 0, 1);
			o->imm =
				(int64_t)((uint64_t)(m->k->ppid1[0] - 1) |
					  (uint64_t)(m->k->ppid1[1] - 1) << 32);
		} else if (d_builtins[n->sub].id == B_EUID ||
			   d_builtins[n->sub].id == B_EGID) {
			/* task_struct's cred, struct cred's euid or egid */
			const uint32_t *c = m->k->ecred1;
			const unsigned id =
				d_builtins[n->sub].id == B_EUID ? 1 : 2;

			o = put(m, UBPF_K_ECRED, 0, 1);
			o->imm = (int64_t)((uint64_t)(c[0] - 1) |
					   (uint64_t)(c[id] - 1) << 32);
		} else if (d_builtins[n->sub].id == B_PGID ||
			   d_builtins[n->sub].id == B_SID) {
			/* task_struct's signal, its pids[PIDTYPE_PGID (2) or
			 * _SID (3)], struct pid's numbers[0].nr (bpf_agg_cgen.c
			 * sets D_KPLAN_SESS only where the last two fit 16
			 * bits) */
			const uint32_t *c = m->k->sess1;
			uint64_t t = d_builtins[n->sub].id == B_PGID ? 2 : 3;

			o = put(m, UBPF_K_SESS, 0, 1);
			o->imm = (int64_t)((uint64_t)(c[0] - 1) |
					   (uint64_t)(c[1] - 1 + 8 * t) << 32 |
					   (uint64_t)(c[2] - 1 + c[3] - 1)
						   << 48);
		} else if (d_builtins[n->sub].id == B_UID ||
			   d_builtins[n->sub].id == B_GID) {
			o = put(m, d_builtins[n->sub].id == B_UID ? UBPF_K_UID
								  : UBPF_K_GID,
				0, 1);
		} else {
			o = put(m, d_builtins[n->sub].id == B_PID ? UBPF_K_PID
								  : UBPF_K_TID,
				0, 1);
		}
		o->sz = sz;
		o->sg = sg;
		return;
	case N_UN:
		emit(m, n->a);
		if (n->sub == '+')
			return;
		o = put(m, n->sub == '!' ? UBPF_K_LNOT
			   : n->sub == '~' ? UBPF_K_BNOT
					   : UBPF_K_NEG,
			1, 1);
		o->sz = n->sub == '!' ? sz : 8; /* - and ~: 64 bits, reg() */
		o->sg = sg;
		return;
	case N_CAST:
		(void)kp_ty_at(m->k, m->probe, n->a, &az, &ag);
		emit(m, n->a);
		norm(m, az, ag, sz, sg);
		return;
	case N_BIN:
		if (n->sub == OP_SHL || n->sub == OP_SHR) {
			emit(m, n->a);
			{
				int64_t bc = 0;
				bool bimm = kp_const_of(n->b, &bc);

				/* the count: & 63, unconverted */
				if (!bimm)
					emit(m, n->b);
				o = put(m, n->sub == OP_SHL ? UBPF_K_SHL
					   : sg		   ? UBPF_K_SAR
							   : UBPF_K_SHR,
					bimm ? 1 : 2, 1);
				if (bimm) {
					o->flags = UBPF_KF_IMM;
					o->imm = bc;
				}
			}
			o->sz = 8; /* 64 bits, as run.c's reg() */
			o->sg = sg;
			return;
		}
		{
			const struct node *lit;
			int arg, w;
			unsigned cop;
			bool left;
			unsigned ord;

			if (kp_ident_cmp(m->k, n)) {
				/* the probe's names: this probe's truth,
				 * folded (kplan_str.c) */
				if (!m->probe || m->probe == KP_ANYPROBE) {
					unfit(m, "no probe to fold %s at",
					      d_builtins[ident(n->a) >= 0
								 ? n->a->sub
								 : n->b->sub]
						      .name);
					return;
				}
				o = put(m, UBPF_K_CONST, 0, 1);
				o->imm = kp_ident_fold(m->probe, n);
				o->sz = 4;
				o->sg = 1;
				return;
			}
			if (kp_str_cmp(m->k, n, &arg, &lit)) {
				size_t len = strlen(lit->sval);

				/* args[N]: copyinstr(argN) where a string */
				args_str_only(m, n, arg);

				o = put(m, UBPF_K_SEQ, 0, 1);
				o->n = (uint8_t)arg;
				o->step = (uint16_t)len;
				o->flags = n->sub == OP_NE ? UBPF_KF_NEG : 0;
				/* whole (an order, a literal past the
				 * prefix test's reach: kp_seq_prefix()):
				 * VVCMP's agg + 1, the argument on the left;
				 * imm strsize - 1, its cut */
				ord = kp_ord(n->sub, lit == n->b);
				if (!ord && !kp_seq_prefix(m->k, len))
					ord = n->sub == OP_EQ ? 0 + 1u : 1 + 1u;
				else if (ord)
					ord++;
				o->levels = (uint16_t)ord;
				if (o->levels) {
					o->imm = (int64_t)m->k->prog->strsize -
						 1;
					o->flags = 0;
				}
				fault_site(m, o, n);
				sdata(m, lit->sval, len);
				return;
			}
			if (kp_svar_acmp(m->k, n, &w, &arg)) {
				/* a string variable the kernel keeps and
				 * an argument's string (args[N]: where it
				 * is one) */
				args_str_only(m, n, arg);
				o = put(m, UBPF_K_VACMP, 0, 1);
				var_op(m, o, (unsigned)w);
				o->levels = o->n;
				o->n = (uint8_t)arg;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				o->flags = n->sub == OP_NE ? UBPF_KF_NEG : 0;
				/* an order: VVCMP's agg + 1, the variable
				 * on the left */
				left = n->a->op == N_VAR && n->a->sub == w;
				ord = kp_ord(n->sub, left);
				o->step = (uint16_t)(ord ? ord + 1 : 0);
				fault_site(m, o, n);
				return;
			}
			if (kp_svar_vv(m->k, n, &arg, &w) &&
			    ((n->sub != OP_EQ && n->sub != OP_NE) ||
			     m->k->prog->vars[arg].scope != SC_SELF ||
			     m->k->prog->vars[w].scope != SC_SELF)) {
				/* two string variables the kernel keeps, a
				 * this-> one or an order among them */
				struct ubpf_kop wb = { 0 };

				o = put(m, UBPF_K_VVCMP, 0, 1);
				var_op(m, &wb, (unsigned)w);
				var_op(m, o, (unsigned)arg);
				o->levels = wb.n;
				o->step = wb.slot;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				o->agg = n->sub == OP_EQ   ? 0
					 : n->sub == OP_NE ? 1
							   : kp_ord(n->sub, true);
				return;
			}
			if (kp_svar_vv(m->k, n, &arg, &w)) {
				/* two self-> strings the kernel keeps */
				o = put(m, UBPF_K_VVEQ, 0, 1);
				var_op(m, o, (unsigned)arg);
				o->step = (uint16_t)w;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				o->flags = n->sub == OP_NE ? UBPF_KF_NEG : 0;
				return;
			}
			if (kp_comm_arg(m->k, n, &arg, &cop)) {
				/* execname and an argument's string */
				args_str_only(m, n, arg);
				o = put(m, UBPF_K_CACMP, 0, 1);
				o->n = (uint8_t)arg;
				o->agg = (uint16_t)cop;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				return;
			}
			if (kp_comm_cmp(m->k, n, &lit, &arg, &cop) && lit) {
				/* execname and a literal: its first 16
				 * bytes decide (execname's NUL is among
				 * them), NUL-padded */
				size_t len = strlen(lit->sval);

				if (len > UBPF_KCOMM)
					len = UBPF_KCOMM;
				o = put(m, UBPF_K_CCMP, 0, 1);
				o->step = (uint16_t)len;
				o->agg = (uint16_t)cop;
				sdata(m, lit->sval, len);
				return;
			}
			if (kp_comm_cmp(m->k, n, &lit, &arg, &cop)) {
				/* execname and a string variable */
				o = put(m, UBPF_K_CVCMP, 0, 1);
				var_op(m, o, (unsigned)arg);
				o->levels = o->n;
				o->n = 0;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				o->agg = (uint16_t)cop;
				return;
			}
			if (kp_svar_ocmp(m->k, n, &arg, &lit, &cop)) {
				/* ordered with a literal: agg the order
				 * + 1, imm strsize - 1 */
				size_t len = strlen(lit->sval);

				o = put(m, UBPF_K_VSEQ, 0, 1);
				var_op(m, o, (unsigned)arg);
				o->step = (uint16_t)len;
				o->agg = (uint16_t)(cop + 1);
				o->imm = (int64_t)m->k->prog->strsize - 1;
				sdata(m, lit->sval, len);
				return;
			}
			if (kp_svar_cmp(m->k, n, &arg, &lit)) {
				/* a self-> string the kernel keeps */
				size_t len = strlen(lit->sval);

				o = put(m, UBPF_K_VSEQ, 0, 1);
				var_op(m, o, (unsigned)arg);
				o->step = (uint16_t)len;
				o->flags = n->sub == OP_NE ? UBPF_KF_NEG : 0;
				sdata(m, lit->sval, len);
				return;
			}
		}
		(void)kp_ty_at(m->k, m->probe, n->a, &az, &ag);
		(void)kp_ty_at(m->k, m->probe, n->b, &bz, &bg);
		{
			int64_t bc = 0;
			bool bimm = kp_const_of(n->b, &bc);
			/* the operands' common type (the comparisons' too) */
			unsigned sa = az < 4 ? 4 : az, sb = bz < 4 ? 4 : bz;
			bool ga = az < 4 ? true : ag, gb = bz < 4 ? true : bg;
			uint8_t cz = (uint8_t)(sa > sb ? sa : sb);
			uint8_t cg = sa != sb ? (sa > sb ? ga : gb) : ga && gb;

			(void)cz; /* the operands keep their 64 bits */
			emit(m, n->a);
			if (!bimm)
				emit(m, n->b);
			switch (n->sub) {
			case '+': op = UBPF_K_ADD; break;
			case '-': op = UBPF_K_SUB; break;
			case '*': op = UBPF_K_MUL; break;
			case '/': op = cg ? UBPF_K_DIVS : UBPF_K_DIVU; break;
			case '%': op = cg ? UBPF_K_MODS : UBPF_K_MODU; break;
			case '&': op = UBPF_K_AND; break;
			case '|': op = UBPF_K_OR; break;
			case '^': op = UBPF_K_XOR; break;
			case OP_EQ: op = UBPF_K_EQ; break;
			case OP_NE: op = UBPF_K_NE; break;
			case '<': op = cg ? UBPF_K_LTS : UBPF_K_LTU; break;
			case '>': op = cg ? UBPF_K_GTS : UBPF_K_GTU; break;
			case OP_LE: op = cg ? UBPF_K_LES : UBPF_K_LEU; break;
			default: op = cg ? UBPF_K_GES : UBPF_K_GEU; break;
			}
			o = put(m, op, bimm ? 1 : 2, 1);
			if (bimm) { /* a constant b */
				o->flags = UBPF_KF_IMM;
				o->imm = bc;
			}
			if (op <= UBPF_K_XOR) {
				o->sz = 8; /* not narrowed: run.c's reg() */
				o->sg = sg;
			}
		}
		return;
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		emit(m, n->a);
		if (n->op != N_LXOR &&
		    ((m->k->fmode && kp_has_str_cmp(m->k, n->b)) ||
		     (m->k->mfault && kp_node_mem(m->k, n->b)) ||
		     (m->k->vfault && kp_node_vt(n->b)))) {
			/* b may fault: run.c evaluates it only when a does
			 * not decide, and so does the kernel */
			unsigned sc = m->n;

			o = put(m, UBPF_K_SC, 1, 0);
			o->n = n->op == N_LOR;
			emit(m, n->b);
			o = put(m, UBPF_K_NE, 1, 1);
			o->flags = UBPF_KF_IMM;
			if (!m->full)
				m->pl->ops[sc].jump = (uint16_t)m->n;
			return;
		}
		emit(m, n->b);
		put(m, n->op == N_LAND	 ? UBPF_K_LAND
		       : n->op == N_LOR ? UBPF_K_LOR
					: UBPF_K_LXOR,
		    2, 1);
		return;
	case N_TERN:
		emit(m, n->a);
		emit(m, n->b);
		emit(m, n->c);
		put(m, UBPF_K_SEL, 3, 1);
		return;
	case N_FUNC: { /* strlen() of a self-> string the kernel keeps */
		int v;
		uint32_t q;

		if (kp_prog_arg(m->k, n, &q)) { /* progenyof(): prog() */
			prog(m, q, sz, sg);
			return;
		}
		if (kp_comm_strlen(m->k, n)) { /* ... or of execname */
			o = put(m, UBPF_K_CLEN, 0, 1);
			o->sz = d_funcs[n->sub].sz;
			o->sg = d_funcs[n->sub].sg;
			return;
		}
		if ((v = kp_arg_strlen(m->k, n)) >= 0) {
			/* ... or of copyinstr(argN): seq_read()'s copy */
			o = put(m, UBPF_K_SLEN, 0, 1);
			o->n = (uint8_t)v;
			o->imm = m->k->prog->strsize - 1;
			o->sz = d_funcs[n->sub].sz;
			o->sg = d_funcs[n->sub].sg;
			return;
		}
		if (!kp_svar_strlen(m->k, n, &v))
			break;
		o = put(m, UBPF_K_VSLEN, 0, 1);
		var_op(m, o, (unsigned)v);
		o->imm = m->k->prog->strsize - 1;
		return;
	}
	}
	m->full = true; /* kp_ty() refused it: not reached */
}

/*
 * The keys of clause's statements that read args[N] (kstmt's kargs),
 * typed at probe: with fix, each becomes the key's type for good where
 * none was yet; false where one differs from the type a plan fixed
 * before (the merge has one type per key: that probe's hits are user
 * space's, which types them there) or is not an integer there.
 */
static bool args_keys(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, bool fix, char *why,
		      size_t wlen)
{
	const struct clause *c = &k->prog->clauses[clause];

	for (unsigned i = 0; i < c->nflat; i++) {
		/* the layout this probe's plan runs (kstmt's alt) */
		struct kstmt *ks = kp_stmt_at(k, clause, i, probe, NULL);

		for (unsigned j = 0; ks->kargs && j < ks->st->nkeys; j++) {
			uint8_t z, g, bit = (uint8_t)(1u << j);

			if (!(ks->kargs & bit) ||
			    ((int)j == ks->skey && !skey_int(ks, j, probe)))
				continue; /* a string here: SKEY's */
			if (!kp_ty_at(k, probe, ks->st->keys[j], &z, &g)) {
				if (why)
					snprintf(why, wlen,
						 "key %u, args[], is no "
						 "integer there",
						 j + 1);
				return false;
			}
			if (ks->kfixed & bit) {
				if (z == ks->ksz[j] && g == ks->ksg[j])
					continue;
				if (why)
					snprintf(why, wlen,
						 "key %u's type there is not "
						 "the one the first plan "
						 "with it fixed",
						 j + 1);
				return false;
			} else if (fix) {
				ks->ksz[j] = z;
				ks->ksg[j] = g;
				ks->kfixed |= bit;
			}
		}
	}
	return true;
}

bool d_kplan_emit(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl)
{
	if (!d_kplan_clause(k, clause) ||
	    !args_keys(k, clause, probe, false, NULL, 0) ||
	    !kp_clause_emit(k, clause, probe, pl))
		return false;
	(void)args_keys(k, clause, probe, true, NULL, 0);
	return true;
}

/*
 * Does clause, which the kernel runs (d_kplan_clause()), fit probe:
 * kp_clause_emit() of it alone into a scratch plan, fixing no key's
 * type (args_keys() without fix)?  Not: the emitter's first reason
 * into why ("args[0] is no string there"), a function of the clause
 * and the probe's declared types and names alone.  trial: into pl as
 * it is (d_kplan_here()'s room), else a scratch plan.
 */
bool kp_clause_try(const struct d_kplan *k, unsigned clause,
		   const struct d_probe *probe, struct ubpf_kplan *pl,
		   char *why, size_t wlen)
{
	struct ubpf_kplan *t = pl ? pl : xcalloc(1, sizeof(*t));
	bool ok;

	if (why && wlen)
		why[0] = '\0';
	ok = args_keys(k, clause, probe, false, why, wlen) &&
	     clause_emit(k, clause, probe, t, why, wlen);
	if (!pl)
		free(t);
	return ok;
}

bool d_kplan_fits(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, char *why, size_t wlen)
{
	if (!d_kplan_clause(k, clause)) {
		if (why && wlen)
			snprintf(why, wlen, "it is not the kernel's");
		return false;
	}
	return kp_clause_try(k, clause, probe, NULL, why, wlen);
}

bool d_kplan_sout_emit(const struct d_kplan *k, unsigned clause,
		       const struct d_probe *probe, struct ubpf_kplan *pl)
{
	return d_kplan_sout(k, clause) && kp_clause_emit(k, clause, probe, pl);
}

/* A vin clause (kplan_vin.c's "Shared self-> variables"): the value
 * of each self-> variable its record carries, in the variables' order,
 * OUT each, then ODONE; no test of its predicate: user space runs it */
/* The test of predicate n, the comparison fused into PRED where it is
 * one, as kp_clause_emit() fuses it; its jump the caller's */
static struct ubpf_kop *pred_test(struct em *m, const struct node *n)
{
	struct ubpf_kop *pred;
	bool sc = false; /* an SC lands past the comparison */
	unsigned i;

	emit(m, n);
	for (i = m->pl->nops; !m->full && i < m->n; i++)
		sc |= m->pl->ops[i].op == UBPF_K_SC &&
		      m->pl->ops[i].jump == m->n;
	if (!m->full && m->n > m->pl->nops && !sc &&
	    m->pl->ops[m->n - 1].op >= UBPF_K_EQ &&
	    m->pl->ops[m->n - 1].op <= UBPF_K_GEU) {
		pred = &m->pl->ops[m->n - 1];
		pred->n = pred->op;
		pred->op = UBPF_K_PRED;
		m->depth--;
		return pred;
	}
	return put(m, UBPF_K_PRED, 1, 0);
}

/* Store st of a self-> integer, as kp_clause_emit() makes it: the
 * value, as d_var_conv() makes it, then VST */
static void store_of(struct em *m, const struct stmt *st)
{
	const struct var *v = &m->k->prog->vars[st->e->a->sub];
	uint8_t bz = 8, bg = 1;
	struct node bin, one;
	const struct node *b = kp_stored(st, &bin, &one);
	struct ubpf_kop *o;

	(void)kp_ty(m->k, b, &bz, &bg);
	emit(m, b);
	if (v->declared)
		norm(m, bz, bg, v->sz, v->sg);
	o = put(m, UBPF_K_VST, 1, 0);
	var_op(m, o, (unsigned)st->e->a->sub);
}

bool kp_pred_emit(const struct d_kplan *k, const struct node *n,
		  const struct stmt *st, const struct d_probe *probe,
		  struct ubpf_kplan *pl)
{
	struct em m = { .pl = pl, .n = pl->nops, .probe = probe, .k = k };
	struct ubpf_kop *pred = NULL;
	uint8_t nanc = pl->nanc;

	if (n)
		pred = pred_test(&m, n);
	else
		store_of(&m, st);
	if (m.full || m.max > UBPF_KSTACK) {
		anc_back(pl, nanc);
		return false;
	}
	if (pred)
		pred->jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	return true;
}

bool d_kplan_vin_emit(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, struct ubpf_kplan *pl)
{
	struct em m = { .pl = pl, .n = pl->nops, .probe = probe, .k = k };
	struct ubpf_kop *pred = NULL;
	uint8_t nanc = pl->nanc;
	bool *mark;

	if (!d_kplan_vin(k, clause))
		return false;
	/* its predicate, where the kernel computes it (k->vpred): false,
	 * the values and ODONE are jumped over, its ran bit unset */
	if (k->vpred[clause])
		pred = pred_test(&m, k->prog->clauses[clause].pred);
	mark = xcalloc(k->prog->nvars ? k->prog->nvars : 1, sizeof(*mark));
	kp_vin_vars(k, clause, mark);
	for (unsigned v = 0; v < k->prog->nvars && !m.full; v++) {
		struct node nv = { .op = N_VAR, .sub = (int)v };

		if (!mark[v])
			continue;
		emit(&m, &nv);
		put(&m, UBPF_K_OUT, 1, 0);
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, &nv);
	}
	/* its stores of them, the kernel's too (kplan_vin.c's
	 * kstore_ok()), after the values it reads before them */
	for (unsigned i = 0; i < k->prog->clauses[clause].nstmts; i++) {
		const struct stmt *st = &k->prog->clauses[clause].stmts[i];
		int v = kp_assigned_var(st);

		if (v >= 0 && mark[v])
			store_of(&m, st);
	}
	free(mark);
	put(&m, UBPF_K_ODONE, 0, 0);
	m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, NULL);
	if (m.full || m.max > UBPF_KSTACK) {
		anc_back(pl, nanc);
		return false;
	}
	if (pred)
		pred->jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	if (m.tls)
		pl->tls |= 1;
	return true;
}

/* Statement i of clause's flat list (not an if), as kp_clause_emit()
 * makes it; pl the plan, m->pl */
static void emit_stmt(struct em *m, const struct clause *c, unsigned clause,
		      unsigned i, bool sout)
{
	const struct d_kplan *k = m->k;
	const struct d_probe *probe = m->probe;
	struct ubpf_kplan *pl = m->pl;
	unsigned at; /* the statement's number: its layout's here */
	const struct kstmt *ks = kp_stmt_at(k, clause, i, probe, &at);
	const struct stmt *st = ks->st;
	const struct agg *a;
	struct ubpf_kop *o;
	unsigned j;
	bool sk = false; /* a string key, in kaggs_s */

	if (sout && !ks->out) /* speculate(): user space's */
		return;
	if (ks->out) { /* printf(), trace(): kplan_out.c */
		for (j = 0; j < kp_out_nargs(st) && !m->full; j++) {
			int sa;
			bool s;
			const struct node *v = kp_out_arg(st, j, &s);
			struct kp_leaf lv[KP_LEAVES];
			int nl = kp_out_ftime(k, st, j, lv);

			/* computed by dtrace from its leaves (kplan_str.c's
			 * kp_out_leaves()): each as a whole one's, in
			 * d_eval()'s order; a copy run.c may not reach has
			 * no jump (kplan_out.c's kp_out_ftime_ok()) */
			for (int l = 0; l < nl && !m->full; l++) {
				const struct node *x = lv[l].n;

				if (lv[l].kind == UBPF_K_OVSTR) {
					o = put(m, UBPF_K_OVSTR, 0, 0);
					var_op(m, o, (unsigned)x->sub);
				} else {
					emit(m, lv[l].kind == UBPF_K_OSTR
							? x->args[0]
							: x);
					o = put(m, (int)lv[l].kind, 1, 0);
					if (lv[l].kind == UBPF_K_OSTR &&
					    !lv[l].cond && kp_out_ends(c, i))
						o->jump = 1;
				}
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, x);
			}
			if (nl >= 0)
				continue;
			if (!s && kp_out_here(v)) /* dtrace has it */
				continue;
			if (!s && kp_out_stk(v)) { /* the record's stack */
				put(m, UBPF_K_OSTK, 0, 0);
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, v);
				continue;
			}
			if (!s && kp_out_svar(k, v)) { /* its bytes */
				o = put(m, UBPF_K_OVSTR, 0, 0);
				var_op(m, o, (unsigned)v->sub);
				m->full |= !m->full &&
					  !kp_out_op(k, pl, m->n - 1, v);
				continue;
			}
			if (s && (sa = kp_out_sarg(st, j)) >= 0) {
				/* args[N]: argument N's string where the
				 * probe declares one, else user space's
				 * here (kplan_out.c's kp_out_sarg()) */
				if (!d_args_str(probe, (unsigned)sa))
					unfit(m, "args[%d] is no string there",
					      sa);
				o = put(m, UBPF_K_ARG, 0, 1);
				o->n = (uint8_t)sa;
			} else {
				emit(m, v);
			}
			o = put(m, s ? UBPF_K_OSTR : UBPF_K_OUT, 1, 0);
			/* a fault ends the clause before the statements
			 * after it: its jump, to the end (below) */
			if (s && !m->full && kp_out_ends(c, i))
				o->jump = 1;
			m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, v);
		}
		return;
	}
	if (ks->smov) { /* a literal, execname, another string variable */
		const struct node *b = st->e->b;

		if (kp_is_comm(b)) { /* the hit's comm (kp_comm_store()) */
			o = put(m, UBPF_K_SCOMM, 0, 0);
			var_op(m, o, (unsigned)st->e->a->sub);
			m->full |=
				!m->full && !kp_out_op(k, pl, m->n - 1, NULL);
			return;
		}
		if (b->op == N_STR) {
			size_t len = strlen(b->sval);

			o = put(m, UBPF_K_SLIT, 0, 0);
			var_op(m, o, (unsigned)st->e->a->sub);
			o->step = (uint16_t)len;
			m->full |= !m->full &&
				  !kp_out_op(k, pl, m->n - 1, NULL);
			sdata(m, b->sval, len);
			return;
		}
		{
			struct ubpf_kop from;

			memset(&from, 0, sizeof(from));
			var_op(m, &from, (unsigned)b->sub);
			o = put(m, UBPF_K_SMOV, 0, 0);
			var_op(m, o, (unsigned)st->e->a->sub);
			o->levels = from.n;
			o->step = from.slot;
			m->full |= !m->full &&
				  !kp_out_op(k, pl, m->n - 1, NULL);
		}
		return;
	}
	if (ks->sstr || ks->sclr) { /* a string variable's */
		if (ks->sstr)
			emit(m, st->e->b->args[0]);
		o = put(m, ks->sstr ? UBPF_K_SSTR : UBPF_K_SCLR,
			ks->sstr ? 1 : 0, 0);
		var_op(m, o, (unsigned)st->e->a->sub);
		m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		return;
	}
	if (ks->assign && !ks->cond && kp_place_store(k, st)) {
		/* a place: its reads read the copy; the copy itself is
		 * read, as run.c makes it (kplan_mem.c) */
		struct kp_place pp;

		if (!kp_mem_place(k, st->e->b, &pp)) {
			m->full = true;
			return;
		}
		o = put(m, UBPF_K_MLD, 0, 0);
		o->flags = UBPF_KF_MCOPY;
		o->n = pp.arg;
		o->imm = pp.size;
		o->sz = 1;
		mem_site(m, o, st->e);
		return;
	}
	if (ks->assign && k->vst[st->e->a->sub] == KV_SARG) {
		/* nothing to keep but the copy, whose fault sends
		 * the hit to user space: copyinstr(argN) == "" */
		char nul[1] = "";
		struct node empty = { .op = N_STR, .sval = nul };
		struct node eq = { .op = N_BIN, .sub = OP_EQ };

		eq.a = st->e->b;
		eq.b = &empty;
		emit(m, &eq);
		o = put(m, UBPF_K_VST, 1, 0);
		var_op(m, o, (unsigned)st->e->a->sub);
		return;
	}
	if (ks->assign) { /* the value, as d_var_conv() makes it */
		const struct var *v = &k->prog->vars[st->e->a->sub];
		uint8_t bz = 8, bg = 1;
		struct node bin, one;
		const struct node *b = kp_stored(st, &bin, &one);
		struct ubpf_kop kt = {0};

		if (st->e->a->op == N_ASSOC) /* the keys, below */
			assoc_keys(m, st->e->a, &kt);
		(void)kp_ty(k, b, &bz, &bg);
		emit(m, b);
		if (v->declared)
			norm(m, bz, bg, v->sz, v->sg);
		o = put(m, UBPF_K_VST, 1 + kt.step, 0);
		var_op(m, o, (unsigned)st->e->a->sub);
		o->step = kt.step;
		o->imm = kt.imm;
		return;
	}
	a = &k->prog->aggs[st->agg];
	for (j = 0; j < st->nkeys; j++) {
		if ((int)j == ks->skey && ks->svar >= 0) {
			/* a string variable's bytes, as kept */
			o = put(m, UBPF_K_VKEY, 0, 0);
			var_op(m, o, (unsigned)ks->svar);
			o->levels = o->n;
			o->n = (uint8_t)j;
			o->imm = (int64_t)k->prog->strsize - 1;
			continue;
		}
		if (j + 1 == ks->skey2 && ks->skey >= 0) {
			/* a second copyinstr(): after the first's
			 * NUL in the kaggs_s key; args[N]: where a
			 * string */
			if (kp_args_index(st->keys[j]) >= 0 &&
			    !d_args_str(probe, ks->sarg2))
				unfit(m, "args[%u] is no string there",
				      (unsigned)ks->sarg2);
			o = put(m, UBPF_K_SKEY2, 0, 0);
			o->n = (uint8_t)j;
			o->slot = ks->sarg2;
			o->levels = ks->sarg;
			sk = true;
			continue;
		}
		if (j + 1 == ks->kcomm && ks->skey >= 0) {
			/* execname beside copyinstr(): in two
			 * words of the kaggs_s key */
			o = put(m, UBPF_K_CWKEY, 0, 0);
			o->n = (uint8_t)j;
			o->levels = (uint16_t)ks->skey;
			continue;
		}
		if ((int)j == ks->skey && ks->sx == KSX_COMM) {
			/* execname, cut as agg.c cuts a key */
			o = put(m, UBPF_K_CKEY, 0, 0);
			o->n = (uint8_t)j;
			o->imm = kp_vkey_imm(k);
			o->step = k->prog->strsize < UBPF_KCOMM
					  ? (uint16_t)k->prog->strsize
					  : UBPF_KCOMM;
			continue;
		}
		if ((int)j == ks->skey && ks->sx == KSX_LIT) {
			lit_key(m, st->keys[j], j);
			continue;
		}
		if ((int)j == ks->skey && ks->sx == KSX_MIX) {
			mix_key(m, st->keys[j], j);
			continue;
		}
		if ((int)j == ks->skey && ks->sx == KSX_SMIX) {
			smix_key(m, st->keys[j], j, ks->sarg);
			sk = true;
			continue;
		}
		if ((int)j == ks->skey && !skey_int(ks, j, probe)) {
			/* the program copies it; args[N]:
			 * copyinstr(argN) where a string */
			if (kp_args_index(st->keys[j]) >= 0 &&
			    !d_args_str(probe, ks->sarg))
				unfit(m, "args[%u] is no string there",
				      (unsigned)ks->sarg);
			o = put(m, UBPF_K_SKEY, 0, 0);
			o->n = (uint8_t)j;
			o->slot = ks->sarg;
			sk = true;
			continue;
		}
		if (ks->kid[j] >= 0) {
			o = put(m, UBPF_K_CONST, 0, 1);
			o->imm = probe->id;
			o->flags = UBPF_KF_PRB;
		} else {
			emit(m, st->keys[j]);
		}
		o = put(m, UBPF_K_KEY, 1, 0);
		o->n = (uint8_t)j;
	}
	if (st->nargs)
		emit(m, st->args[0]);
	o = put(m, UBPF_K_AGG, st->nargs ? 1 : 0, 0);
	o->agg = (uint16_t)at;
	if (ks->slot >= 0) {
		o->flags = UBPF_KF_FLAT;
		o->slot = (uint16_t)ks->slot;
	}
	if (ks->skey >= 0 && (ks->svar >= 0 || (ks->sx != KSX_NONE &&
						ks->sx != KSX_SMIX)))
		o->flags |= UBPF_KF_VKEY;
	else if (sk)
		o->flags |= UBPF_KF_SKEY;
	switch (a->fn) {
	case AG_COUNT: o->n = UBPF_F_COUNT; break;
	case AG_SUM: o->n = UBPF_F_SUM; break;
	case AG_AVG: o->n = UBPF_F_AVG; break;
	case AG_MIN: o->n = UBPF_F_MIN; break;
	case AG_MAX: o->n = UBPF_F_MAX; break;
	case AG_QUANTIZE: o->n = UBPF_F_QUANTIZE; break;
	case AG_STDDEV: o->n = UBPF_F_STDDEV; break;
	case AG_LLQUANTIZE:
		o->n = UBPF_F_LLQUANTIZE;
		o->imm = (int64_t)((uint64_t)a->llq_factor |
				   (uint64_t)a->llq_low << 16 |
				   (uint64_t)a->llq_high << 32 |
				   (uint64_t)a->llq_nsteps << 48);
		break;
	default:
		o->n = UBPF_F_LQUANTIZE;
		o->imm = a->lq_base;
		o->step = a->lq_step;
		o->levels = a->lq_levels;
		break;
	}
}

/*
 * Statements [from, to) of clause's flat list (struct clause's flat:
 * the clause's top, or an if's body or else), in order.  An if: its
 * condition, where a statement under it has values in the out area
 * (kplan_out.c's kp_if_out()) an OUT flagged UBPF_KF_KEEP (the value
 * into its slot, left on the stack), tested as a predicate is (its
 * PRED, fused with a final comparison where no KEEP stands between,
 * jumping to the else's first instruction), the body, then
 * where there is an else a JMP past it, and the else.  Every statement
 * starts and ends with an empty stack, so every jump lands at depth 0
 * (cgen_plan.c's dp[to] check).  The recursion's depth is the
 * parser's nesting, at most D_MAXDEPTH.
 */
static void emit_list(struct em *m, const struct clause *c, unsigned clause,
		      unsigned from, unsigned to, bool sout)
{
	for (unsigned i = from; i < to && !m->full; i++) {
		const struct kstmt *ks = &m->k->st[m->k->first[clause] + i];
		const struct stmt *st = c->flat[i];
		unsigned start = m->n, pj, jj = 0;
		bool sc = false; /* an SC lands past the comparison */

		if (!ks->cond) {
			emit_stmt(m, c, clause, i, sout);
			continue;
		}
		emit(m, st->e);
		for (unsigned q = start; !m->full && q < m->n; q++)
			sc |= m->pl->ops[q].op == UBPF_K_SC &&
			      m->pl->ops[q].jump == m->n;
		if (kp_if_out(m->k, clause, i)) {
			/* its value in the area (KEEP), for dtrace's walk
			 * of the branch it takes: kplan_out.c */
			struct ubpf_kop *o = put(m, UBPF_K_OUT, 0, 0);

			o->flags = UBPF_KF_KEEP;
			m->full |= !m->full &&
				   !kp_out_op(m->k, m->pl, m->n - 1, st->e);
			sc = true; /* no fusing: the PRED pops it */
		}
		if (!m->full && m->n > start && !sc &&
		    m->pl->ops[m->n - 1].op >= UBPF_K_EQ &&
		    m->pl->ops[m->n - 1].op <= UBPF_K_GEU) {
			struct ubpf_kop *o = &m->pl->ops[m->n - 1];

			o->n = o->op;
			o->op = UBPF_K_PRED;
			m->depth--;
		} else {
			put(m, UBPF_K_PRED, 1, 0);
		}
		pj = m->n - 1;
		emit_list(m, c, clause, st->fbody, st->fels, sout);
		if (st->fels < st->fend) {
			put(m, UBPF_K_JMP, 0, 0);
			jj = m->n - 1;
		}
		if (m->full)
			return;
		m->pl->ops[pj].jump = (uint16_t)m->n;
		emit_list(m, c, clause, st->fels, st->fend, sout);
		if (m->full)
			return;
		if (jj)
			m->pl->ops[jj].jump = (uint16_t)m->n;
	}
}

/* A sout clause (kplan_vars.c's sout_ok()): its printf() and trace()
 * values and ODONE, with no test of its predicate but where the kernel
 * computes it (k->spred: tested, then its truth an OUT, the area's
 * first 8 bytes); user space runs the rest */
static bool clause_emit(const struct d_kplan *k, unsigned clause,
			const struct d_probe *probe, struct ubpf_kplan *pl,
			char *why, size_t wlen)
{
	const struct clause *c = &k->prog->clauses[clause];
	struct em m = { .pl = pl,
			.n = pl->nops,
			.probe = probe,
			.k = k,
			.why = why,
			.wlen = wlen };
	struct ubpf_kop *pred = NULL;
	unsigned i;
	bool sout = k->sout && k->sout[clause];
	uint8_t nanc = pl->nanc;

	if (c->pred && !sout) {
		pred = pred_test(&m, c->pred);
	} else if (c->pred && k->spred && k->spred[clause]) {
		/*
		 * A sout clause whose predicate the kernel computes
		 * (spred_ok(): an integer that cannot fault): false, the
		 * clause ends here, its area unwritten and no record asked
		 * for it (its ODONE not reached: user space runs nothing of
		 * it, as for a false predicate), where every hit wrote one
		 * before (at a syscall probe, every process's call: drops
		 * under load); true, its truth, 1, is the area's first 8
		 * bytes, which d_kplan_out_run() tests
		 */
		struct ubpf_kop *one;

		pred = pred_test(&m, c->pred);
		one = put(&m, UBPF_K_CONST, 0, 1);
		one->imm = 1;
		one->sz = 8;
		one->sg = 1;
		put(&m, UBPF_K_OUT, 1, 0);
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, c->pred);
	}
	emit_list(&m, c, clause, 0, c->nstmts, sout);
	if (kp_out_clause(k, clause)) { /* it ran: kplan_out.c */
		struct ubpf_kop *o = put(&m, UBPF_K_ODONE, 0, 0);

		if (!kp_out_prints(k, clause)) /* it stores strings only */
			o->flags = UBPF_KF_NOREC;
		m.full |= !m.full && !kp_out_op(k, pl, m.n - 1, NULL);
	}
	if (m.full || m.max > UBPF_KSTACK) {
		/* what was written past pl->nops is not part of the plan */
		if (why && wlen && !why[0])
			snprintf(why, wlen,
				 "its instructions do not fit the probe's "
				 "plan");
		/* what was written past pl->nops is not part of the plan,
		 * nor are prog()'s pids it added */
		anc_back(pl, nanc);
		return false;
	}
	if (pred)
		pred->jump = (uint16_t)m.n;
	/* the bytes run.c reads of a string (cgen_sarg.c's seq_read()) */
	pl->fstr = k->prog->strsize - 1 > UINT16_MAX
			   ? UINT16_MAX
			   : (uint16_t)(k->prog->strsize - 1);
	/* a string that faults ends the clause here too */
	for (i = pl->nops; i < m.n; i++) {
		if (((pl->ops[i].op == UBPF_K_SEQ ||
		      pl->ops[i].op == UBPF_K_VACMP) &&
		     pl->ops[i].agg) ||
		    ((pl->ops[i].op == UBPF_K_MLD ||
		      pl->ops[i].op == UBPF_K_VTIME) &&
		     pl->ops[i].slot))
			pl->ops[i].jump = (uint16_t)m.n;
		if (pl->ops[i].op == UBPF_K_SSTR ||
		    (pl->ops[i].op == UBPF_K_OSTR && pl->ops[i].jump))
			pl->ops[i].jump = (uint16_t)m.n;
	}
	pl->nops = (uint16_t)m.n;
	if (m.tls)
		pl->tls |= 1;
	return true;
}

/*
 * The predicate of a clause user space runs, then REC: the test and
 * the jump past REC fused where the predicate is a comparison, as
 * kp_clause_emit() fuses them.
 */
bool d_kplan_gate(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl)
{
	struct em m = {
		.pl = pl, .n = pl->nops, .probe = probe, .k = k, .gate = true
	};
	struct ubpf_kop *pred;
	uint8_t nanc = pl->nanc;

	if (!d_kplan_gated(k, clause))
		return false;
	emit(&m, k->prog->clauses[clause].pred);
	if (!m.full && m.n > pl->nops && pl->ops[m.n - 1].op >= UBPF_K_EQ &&
	    pl->ops[m.n - 1].op <= UBPF_K_GEU) {
		pred = &pl->ops[m.n - 1];
		pred->n = pred->op;
		pred->op = UBPF_K_PRED;
		m.depth--;
	} else {
		pred = put(&m, UBPF_K_PRED, 1, 0);
	}
	put(&m, UBPF_K_REC, 0, 0);
	if (m.full || m.max > UBPF_KSTACK || m.tls) {
		anc_back(pl, nanc);
		return false;
	}
	pred->jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	return true;
}

bool kp_clause_emit(const struct d_kplan *k, unsigned clause,
		    const struct d_probe *probe, struct ubpf_kplan *pl)
{
	return clause_emit(k, clause, probe, pl, NULL, 0);
}
