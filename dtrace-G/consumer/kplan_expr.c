// SPDX-License-Identifier: MIT
/*
 * kplan_expr.c - an expression's instructions (emit()), for the
 * statements of kplan_stmt.c and the predicates of kplan_emit.c (whose
 * opening comment says the whole).  A string compared with a literal
 * is SEQ (an argument's) or VSEQ (a self-> string variable's; < <= >
 * >=: VSEQ whose agg is the order), the literal in the SDATA after it,
 * two such variables compared VVEQ, one with an argument's string
 * VACMP (a fault site, as SEQ, where kplan.c made it one; its step the
 * order for < <= > >=), and strlen() of one VSLEN; a literal stored
 * into one is SLIT (its SDATA after it too), another's bytes SMOV;
 * execname compared with a literal is CCMP (the literal's first 16
 * bytes in SDATA after it), with a string variable CVCMP, and execname
 * or a literal as a key CKEY or LKEY (lit_key(): a ?: of literals its
 * condition pushed first, both literals' SDATA after; a nested one its
 * leaf's number pushed, an LKEY and SDATA per leaf), execname beside
 * a copyinstr() key CWKEY (two words of its key), a second copyinstr()
 * key SKEY2 (after the first's NUL), both for the three; probeprov,
 * probemod, probefunc or probename compared with a literal or another
 * of them a CONST, the comparison's truth at this probe (kplan_str.c's
 * kp_ident_fold()), so the plans of probes whose truths differ differ.
 * args[N] is ARG, then NORM to the type the probe declares (kplan_emit.c's
 * opening comment: where it is none, the clause does not fit the
 * probe).
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
#include "kplan_emit.h"
#include "kplan_impl.h"
#include "xalloc.h"

/*
 * o, the string comparison n, a fault site: o->agg its number (1 up) in
 * the plan's list (kplan.c's fault mode), which holds every one the
 * clause can reach, so one not found cannot be reached (the plan full).
 */
void fault_site(struct em *m, struct ubpf_kop *o, const struct node *n)
{
	for (unsigned i = 0; m->k->fmode && i < m->k->nfs; i++)
		if (m->k->fs[i].n == n)
			o->agg = (uint16_t)(i + 1);
	if (m->k->fmode && !o->agg && !m->k->typing)
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
	if (m->k->vfault && !o->slot && !m->k->typing)
		m->full = true; /* not reached */
}

/*
 * o, an MLD of n (a load, or a place's store), a fault site where a
 * copy's fault is the hit's (kplan_mem.c's mfault): o->slot its number
 * (1 up) in the same list; not found, not reached (the plan full).
 */
void mem_site(struct em *m, struct ubpf_kop *o, const struct node *n)
{
	for (unsigned i = 0; m->k->mfault && i < m->k->nfs; i++)
		if (m->k->fs[i].n == n)
			o->slot = (uint16_t)(i + 1);
	if (m->k->mfault && !o->slot && !m->k->typing)
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

/*
 * progenyof(p), p no constant (kplan.c's kp_progx_arg(), which kp_ty()
 * checked): p, then PROGX, the plan's walk keeping the whole chain for
 * it (pl->ancx, the BTF's offsets in pl->anc_off: cgen_rec.c's
 * cgen_anc_plan()).
 */
static void progx(struct em *m, const struct node *n, uint8_t sz, uint8_t sg)
{
	struct ubpf_kplan *pl = m->pl;
	struct ubpf_kop *o;

	emit(m, n->args[0]);
	pl->ancx = 1;
	pl->anc_off[0] = m->k->ppid1[0] - 1;
	pl->anc_off[1] = m->k->ppid1[1] - 1;
	o = put(m, UBPF_K_PROGX, 1, 1);
	o->sz = sz;
	o->sg = sg;
}

/*
 * Key j of ks, its string key, is args[N] (bare) and probe declares
 * argument N an integer: the key is that integer there (kaggs, typed
 * as args_keys() fixes it), as user space's args[N] reads it
 */
bool skey_int(const struct kstmt *ks, unsigned j, const struct d_probe *probe)
{
	uint8_t z, g;

	return (int)j == ks->skey && ks->svar < 0 && (ks->kargs & (1u << j)) &&
	       d_args_int(probe, ks->sarg, &z, &g);
}

/* SEQ's and VSEQ's literal s of len bytes: SDATA, 8 bytes each,
 * NUL-padded (its NUL in the last) */
void sdata(struct em *m, const char *s, size_t len)
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
 * The room of kaggs_v key instruction o (CKEY, LKEY, MKEY), key j of
 * statement ks: a lone key's, or a pair's first (kplan.c's vkey_pair()),
 * imm the map's bytes (kp_vkey_imm()), its whole room zeroed and the
 * string written from the room's start; a pair's second (ks->vkey2),
 * imm its own bound (kp_vkey_bound()) and sz the words before its room,
 * the first's (cgen_svar.c's vkey_at()): sz is read only where a value
 * is pushed (cgen_plan.c's push()), which no key instruction does.
 */
void vkey_room(struct em *m, const struct kstmt *ks, struct ubpf_kop *o,
	       unsigned j)
{
	o->imm = kp_vkey_imm(m->k);
	if (!ks->vkey2 || j + 1 != ks->vkey2)
		return;
	o->imm = (int64_t)kp_vkey_bound(m->k, ks->st->keys[j], ks->sx2);
	o->sz = (uint8_t)(kp_vkey_room_at(m->k, ks, 1, NULL) / 8);
}

/* The leaves of a ?: tree */
static unsigned tern_leaves(const struct node *n)
{
	return n->op == N_TERN ? tern_leaves(n->b) + tern_leaves(n->c) : 1;
}

/*
 * A nested ?: key's leaf number (kp_lit_key()'s tree, its leaves
 * numbered from *i left to right): each condition pushed and each
 * leaf a CONST, chosen by SEL as emit() computes an integer ?:, so the
 * number on the stack is that of the leaf run.c's ?: would take.
 */
static void lit_leaf(struct em *m, const struct node *n, unsigned *i)
{
	struct ubpf_kop *o;

	if (n->op != N_TERN) {
		o = put(m, UBPF_K_CONST, 0, 1);
		o->imm = (int64_t)(*i)++;
		o->sz = 8;
		o->sg = 1;
		return;
	}
	emit(m, n->a);
	lit_leaf(m, n->b, i);
	lit_leaf(m, n->c, i);
	put(m, UBPF_K_SEL, 3, 1);
}

/* A nested ?: key's leaves, left to right: an LKEY each, flagged
 * UBPF_KF_TAB, levels its number, its SDATA after it; the first pops
 * the leaf's number and its agg says how many (lit_key()) */
static void lit_leaves(struct em *m, const struct kstmt *ks,
		       const struct node *n, unsigned j, unsigned *i)
{
	struct ubpf_kop *o;
	const char *s;
	size_t l;

	if (n->op == N_TERN) {
		lit_leaves(m, ks, n->b, j, i);
		lit_leaves(m, ks, n->c, j, i);
		return;
	}
	s = lit_bytes(m, n, &l);
	o = put(m, UBPF_K_LKEY, *i == 0, 0); /* the first pops the number */
	o->n = (uint8_t)j;
	vkey_room(m, ks, o, j);
	o->step = (uint16_t)l;
	o->flags = UBPF_KF_TAB;
	o->levels = (uint16_t)(*i)++;
	sdata(m, s, l);
}

/*
 * LKEY: key j is the literal n, or c ? "a" : "b" (kplan_str.c's
 * kp_lit_key(), a branch maybe this probe's name: lit_bytes()): c
 * pushed, then LKEY flagged UBPF_KF_SEL, each literal cut to
 * strsize - 1 bytes as agg.c cuts a key.  A deeper tree (a branch
 * itself a ?:): its leaf's number pushed (lit_leaf()), then its leaves
 * (lit_leaves()), the first LKEY's pop choosing among them all.
 */
void lit_key(struct em *m, const struct kstmt *ks, const struct node *n,
	     unsigned j)
{
	size_t l1, l2 = 0;
	const char *s1, *s2 = NULL;
	struct ubpf_kop *o;

	if (n->op == N_TERN && (n->b->op == N_TERN || n->c->op == N_TERN)) {
		unsigned i = 0, first;

		if (tern_leaves(n) > UBPF_KLEAVES) {
			unfit(m, "a ?: key of more than %d literals",
			      UBPF_KLEAVES);
			return;
		}
		lit_leaf(m, n, &i);
		i = 0;
		first = m->n;
		lit_leaves(m, ks, n, j, &i);
		if (!m->full) /* the first says how many */
			m->pl->ops[first].agg = (uint16_t)i;
		return;
	}
	if (n->op == N_TERN)
		emit(m, n->a);
	s1 = lit_bytes(m, n->op == N_TERN ? n->b : n, &l1);
	if (n->op == N_TERN)
		s2 = lit_bytes(m, n->c, &l2);
	o = put(m, UBPF_K_LKEY, n->op == N_TERN ? 1 : 0, 0);
	o->n = (uint8_t)j;
	vkey_room(m, ks, o, j); /* the key's room */
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
 * uregs[C] (stack.c's d_uregs()): what a hit's record carries is the
 * registers the program copied from its context with the stack
 * (usdt.bpf.c's ustack_copy(), cgen_ustk.c's), so at a uprobe site
 * (USDT, pid) the register's 64 bits in that pt_regs are uregs[C]
 * exactly: UREG, n the register's index in the record's (d_fire's)
 * order, UBPF_R_*.  A kernel probe's record carries the thread's user
 * mode's (cgen_ustk.c's kp_uregs(): none for a kernel thread, where
 * uregs[] faults) and its context is not them: user space's there,
 * per probe (kp_ty_at(), emit()).  A computed index stays user
 * space's, its fault its.  On aarch64 the generic programs copy the
 * registers through uregs_buf, not as here: user space's (-1).
 */
int kp_ureg(const struct node *n)
{
#if defined(__aarch64__)
	(void)n;
	return -1;
#else
	return n->a && n->a->op == N_INT ? d_ureg_dwarf(n->a->ival) : -1;
#endif
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
	put(m, UBPF_K_ARG, 0, 1); /* the condition */
	o = put(m, UBPF_K_ADD, 1, 1);
	o->flags = UBPF_KF_IMM;
	o->imm = 4095;
	o->sz = 8;
	o->sg = 1;
	o = put(m, UBPF_K_LTU, 1, 1);
	o->flags = UBPF_KF_IMM;
	o->imm = 4095;
	put(m, UBPF_K_ARG, 0, 1); /* -arg0 */
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
void mix_key(struct em *m, const struct kstmt *ks, const struct node *n,
	     unsigned j)
{
	size_t max = m->k->prog->strsize - 1, l1 = 0, l2 = 0;
	bool ca = kp_is_comm(n->b), cb = kp_is_comm(n->c);
	struct ubpf_kop *o;

	emit(m, n->a);
	o = put(m, UBPF_K_MKEY, 1, 0);
	o->n = (uint8_t)j;
	vkey_room(m, ks, o, j); /* the key's room */
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
 * Is c argument a's truth: argN, or argN != 0 (NULL), or 0 != argN?
 * Then argN ? copyinstr(argN) : "lit" copies where the address is not
 * 0 and nowhere else, as run.c's ?: evaluates one branch: seq_read()
 * reads no string at an address 0 (UBPF_KF_ANULL), where it would
 * fault and send the hit to user space, a record for every NULL.
 */
static bool arg_truth(const struct node *c, uint8_t a)
{
	int64_t z;

	if (c->op == N_ARGN)
		return c->sub == a;
	if (c->op != N_BIN || c->sub != OP_NE)
		return false;
	if (c->a->op == N_ARGN && c->a->sub == a)
		return d_const_int(c->b, &z) && z == 0;
	if (c->b->op == N_ARGN && c->b->sub == a)
		return d_const_int(c->a, &z) && z == 0;
	return false;
}

/*
 * SMKEY: key j is c ? copyinstr(arg a) : "lit" or the other way round
 * (kplan_str.c's kp_smix_key()): c pushed, then SMKEY, the literal whole
 * (the merge cuts it as it cuts SKEY's string); or c ? copyinstr(arg
 * a) : copyinstr(arg b): SMKEY's agg 3, b in levels, no literal.
 * Flagged UBPF_KF_ANULL where c is the copy's argument's truth
 * (arg_truth()).
 */
void smix_key(struct em *m, const struct node *n, unsigned j, uint8_t a)
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
	if (first && arg_truth(n->a, a))
		o->flags |= UBPF_KF_ANULL;
	o->step = (uint16_t)strlen(l->sval);
	sdata(m, l->sval, strlen(l->sval));
}

/*
 * The keys of self->a[k...] n, each narrowed to its type and extended
 * from it (d_dyn_key_add() keys an element by that 64-bit value),
 * pushed in order; the types into o's imm, step keys (kagg_bpf.h's
 * UBPF_KV_SELFA).
 */
void assoc_keys(struct em *m, const struct node *n, struct ubpf_kop *o)
{
	int64_t types = 0;

	for (unsigned i = 0; i < n->nargs && i < UBPF_KMAXKEYS; i++) {
		uint8_t kz = 8, kg = 1;

		if (kp_akey(m->k, n, i)) { /* a string's number, an int64_t */
			struct ubpf_kop *c = put(m, UBPF_K_CONST, 0, 1);

			c->imm = kp_akey_id(m->k, m->probe, n->args[i]);
		} else {
			(void)kp_ty(m->k, n->args[i], &kz, &kg);
			emit(m, n->args[i]);
			norm(m, kz, kg);
		}
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

void emit(struct em *m, const struct node *n)
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
		return;
	case N_ARGS: /* argument N as its declared type reads it (kp_ty()) */
		o = put(m, UBPF_K_ARG, 0, 1);
		o->n = (uint8_t)n->a->ival;
		norm(m, sz, sg);
		return;
	case N_UREGS: /* a uprobe site's register (kp_ureg()) */
		if (m->probe && m->probe != KP_ANYPROBE &&
		    !kp_usite(m->probe)) {
			unfit(m, "uregs[] at a kernel probe is the thread's "
				 "user registers, which its context is not");
			return;
		}
		if (!kp_ty_at(m->k, m->probe, n, &az, &ag)) {
			unfit(m, "uregs[] is not computed in the kernel there");
			return;
		}
		o = put(m, UBPF_K_UREG, 0, 1);
		o->n = (uint8_t)kp_ureg(n);
		return;
	case N_VAR: /* its 64 bits, as stored */
		if (m->k->vst[n->sub] == KV_RCON) { /* cgrcon's slot */
			o = put(m, UBPF_K_GLD, 0, 1);
			o->n = (uint8_t)m->k->vslot[n->sub];
			return;
		}
		o = put(m, UBPF_K_VLD, 0, 1);
		var_op(m, o, (unsigned)n->sub);
		return;
	case N_ASSOC: { /* self->a[k...]: the keys, then the element */
		struct ubpf_kop kt = { 0 };

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
			o = put(m,
				d_builtins[n->sub].id == B_UID ? UBPF_K_UID
							       : UBPF_K_GID,
				0, 1);
		} else {
			o = put(m,
				d_builtins[n->sub].id == B_PID ? UBPF_K_PID
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
		o = put(m,
			n->sub == '!'	? UBPF_K_LNOT
			: n->sub == '~' ? UBPF_K_BNOT
					: UBPF_K_NEG,
			1, 1);
		o->sz = n->sub == '!' ? sz : 8; /* - and ~: 64 bits, reg() */
		o->sg = sg;
		return;
	case N_CAST:
		emit(m, n->a);
		norm(m, sz, sg);
		return;
	case N_BIN:
		if (n->sub == OP_SHL || n->sub == OP_SHR) {
			emit(m, n->a);
			{
				int64_t bc = 0;
				bool bimm = d_const_int(n->b, &bc);

				/* the count: & 63, unconverted */
				if (!bimm)
					emit(m, n->b);
				o = put(m,
					n->sub == OP_SHL ? UBPF_K_SHL
					: sg		 ? UBPF_K_SAR
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
				o->agg = n->sub == OP_EQ ? 0
					 : n->sub == OP_NE
						 ? 1
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
				o->step = (uint16_t)cop;
				o->imm = (int64_t)m->k->prog->strsize - 1;
				fault_site(m, o, n);
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
				/* a self-> format-time variable's, with ""
				 * (kplan_fkey.c): whether it is unset */
				if (kp_fvar_self(m->k, (unsigned)arg))
					o->flags |= UBPF_KF_PRES;
				sdata(m, lit->sval, len);
				return;
			}
		}
		(void)kp_ty_at(m->k, m->probe, n->a, &az, &ag);
		(void)kp_ty_at(m->k, m->probe, n->b, &bz, &bg);
		{
			int64_t bc = 0;
			bool bimm = d_const_int(n->b, &bc);
			/* the operands' common type (the comparisons' too;
			 * its size unused: the operands keep their 64 bits) */
			unsigned cz;
			bool cg;

			d_int_common(az, ag, bz, bg, &cz, &cg);
			emit(m, n->a);
			if (!bimm)
				emit(m, n->b);
			switch (n->sub) {
			case '+':
				op = UBPF_K_ADD;
				break;
			case '-':
				op = UBPF_K_SUB;
				break;
			case '*':
				op = UBPF_K_MUL;
				break;
			case '/':
				op = cg ? UBPF_K_DIVS : UBPF_K_DIVU;
				break;
			case '%':
				op = cg ? UBPF_K_MODS : UBPF_K_MODU;
				break;
			case '&':
				op = UBPF_K_AND;
				break;
			case '|':
				op = UBPF_K_OR;
				break;
			case '^':
				op = UBPF_K_XOR;
				break;
			case OP_EQ:
				op = UBPF_K_EQ;
				break;
			case OP_NE:
				op = UBPF_K_NE;
				break;
			case '<':
				op = cg ? UBPF_K_LTS : UBPF_K_LTU;
				break;
			case '>':
				op = cg ? UBPF_K_GTS : UBPF_K_GTU;
				break;
			case OP_LE:
				op = cg ? UBPF_K_LES : UBPF_K_LEU;
				break;
			default:
				op = cg ? UBPF_K_GES : UBPF_K_GEU;
				break;
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
		put(m,
		    n->op == N_LAND  ? UBPF_K_LAND
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
		/* ... of a pid the plan computes: progx() */
		if (d_funcs[n->sub].id == F_PROGENYOF) {
			progx(m, n, sz, sg);
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
