// SPDX-License-Identifier: MIT
/*
 * kplan_stmt.c - a statement's instructions, for kplan_emit.c's
 * clause_emit() (its opening comment says the whole): each statement's
 * keys and its AGG, or its value and VST (an if: its condition, its
 * value kept in the out area where printing lies under it (an OUT
 * flagged UBPF_KF_KEEP), a PRED to its else, its body, a JMP past the
 * else, the else: emit_list(), the statements numbered by the clause's
 * flat list, ../d/compile.c's flatten(); a statement with forms, one
 * per case of the self-> and this-> integers it reads set or unset, a
 * dispatch on whether they are: emit_forms()).  Each expression is
 * kplan_expr.c's emit(); struct em and put() are kplan_emit.h's.
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

/* An OUT, OSTR or OVSTR of a printed value x, its operand pushed; a
 * copyinstr(E, N) of a count the hit computes (kplan_str.c's
 * kp_ostr_hit()) pushes N too, which its OSTR pops first
 * (UBPF_KF_NCNT) */
static struct ubpf_kop *ostr_count(const struct d_kplan *k, struct em *m,
				   const struct node *x, int kind)
{
	struct ubpf_kop *o;

	if (kind != UBPF_K_OSTR || !kp_ostr_hit(k, x))
		return put(m, kind, 1, 0);
	emit(m, x->args[1]);
	o = put(m, kind, 2, 0);
	o->flags = UBPF_KF_NCNT;
	return o;
}

/* R2's OSTR of x, argument a's string (seq_read()'s copy, before the
 * first clause): no jump; a copyinstr(argN, M) of a count the hit
 * computes pushes M, which the OSTR pops (UBPF_KF_NCNT, cgen_out.c's
 * ostr_pre() clamps it as ostr_at() does) */
static struct ubpf_kop *apre_ostr(const struct d_kplan *k, struct em *m,
				  const struct node *x, int a)
{
	struct ubpf_kop *o;
	bool hit = kp_ostr_hit(k, x);

	if (hit)
		emit(m, x->args[1]);
	o = put(m, UBPF_K_OSTR, hit ? 1 : 0, 0);
	o->flags = UBPF_KF_APRE | (hit ? UBPF_KF_NCNT : 0);
	o->step = (uint16_t)a;
	return o;
}

/*
 * o, a kaggs_v key instruction whose room holds a string of strsize - 1
 * bytes at most (VKEY, AKEY): imm that bound; a pair's second (second:
 * kplan.c's vkey_pair()) sz the words of the first's room before it,
 * else step the map's room where it is longer (zeroed whole: a pair's
 * elsewhere)
 */
static void whole_room(const struct d_kplan *k, const struct kstmt *ks,
		       struct ubpf_kop *o, unsigned nth)
{
	o->imm = (int64_t)k->prog->strsize - 1;
	if (nth) /* a pair's second, or the third after it */
		o->sz = (uint8_t)(kp_vkey_room_at(k, ks, nth, NULL) / 8);
	else if (kp_vkey_imm(k) > o->imm)
		o->step = (uint16_t)kp_vkey_imm(k);
}

/* Statement i of clause's flat list (not an if), as kp_clause_emit()
 * makes it; pl the plan, m->pl */
/* The SSTR of variable v's copy b, copyinstr(E): R2's (apre, b an
 * argument's string) from seq_read()'s copy, nothing popped, no jump,
 * as a bounded copy's string always is (kplan_bstr.c); else E pushed
 * and popped */
static struct ubpf_kop *sstr_copy(struct em *m, const struct node *b,
				  unsigned v, bool apre)
{
	struct ubpf_kop *o;
	int ba = kp_bstr_read(m->k, b); /* always seq_read()'s copy */

	if (ba >= 0 || (apre && kp_copyinstr_arg(b) >= 0)) {
		o = put(m, UBPF_K_SSTR, 0, 0);
		var_op(m, o, v);
		o->flags = UBPF_KF_APRE;
		o->step = (uint16_t)(ba >= 0 ? ba : kp_copyinstr_arg(b));
		return o;
	}
	emit(m, b->args[0]);
	o = put(m, UBPF_K_SSTR, 1, 0);
	var_op(m, o, v);
	return o;
}

/*
 * String variable v set from n, a literal, "", 0 or a probe's name (a
 * leaf of tree_store()'s): SLIT of its bytes at this probe, or SCLR for
 * "" and 0; a name past kp_str_lit_ok()'s bounds here leaves the clause
 * to user space at this probe.
 */
static void lit_store(struct em *m, unsigned v, const struct node *n)
{
	const struct d_kplan *k = m->k;
	struct ubpf_kop *o;
	const char *s;
	size_t len;

	s = n->op == N_STR ? n->sval : kp_ident_str(m->probe, n);
	if (kp_str_clear(n) || !s || !s[0]) {
		o = put(m, UBPF_K_SCLR, 0, 0);
		var_op(m, o, v);
		m->full |= !m->full && !kp_out_op(k, m->pl, m->n - 1, NULL);
		return;
	}
	if (!kp_str_lit_ok(k->prog, s)) {
		unfit(m,
		      "%s, stored into a string variable, too long or "
		      "not printable there",
		      d_builtins[n->sub].name);
		return;
	}
	len = strlen(s);
	o = put(m, UBPF_K_SLIT, 0, 0);
	var_op(m, o, v);
	o->step = (uint16_t)len;
	m->full |= !m->full && !kp_out_op(k, m->pl, m->n - 1, NULL);
	sdata(m, s, len);
}

/*
 * String variable v set from n, a probe's name or a ?: tree of them and
 * literals (kplan_str.c's kp_str_lit_tree()), or of those and copies
 * (kp_str_copy_tree()): each condition tested as an if's is (PRED to
 * the other branch, JMP past it: every jump lands with the stack
 * empty), so only the leaf run.c's ?: takes is stored; a literal leaf
 * lit_store()'s, a copy leaf an SSTR (E pushed and popped, its fault
 * ending the clause: never R2's copy before the plan, which would read
 * the leaf run.c does not take).  The copies share one slot
 * of the out area (kplan_out.c's kp_sstr_ok(): nsleaves 1): each but
 * the last flagged UBPF_KF_ALT, so kp_out_op() lays every one at the
 * slot of the first, and all flagged UBPF_KF_STREE, whose len
 * cgen_out.c's cgen_out_tstr() zeroes where the area starts: a leaf
 * literal taken reads as no fault.  *last: the last SSTR's index.
 */
static void tree_store(struct em *m, unsigned v, const struct node *n,
		       unsigned *last)
{
	struct ubpf_kop *o;
	unsigned pj, jj;

	if (n->op == N_TERN) {
		emit(m, n->a);
		put(m, UBPF_K_PRED, 1, 0);
		pj = m->n - 1;
		tree_store(m, v, n->b, last);
		put(m, UBPF_K_JMP, 0, 0);
		jj = m->n - 1;
		if (m->full)
			return;
		m->pl->ops[pj].jump = (uint16_t)m->n;
		tree_store(m, v, n->c, last);
		if (!m->full)
			m->pl->ops[jj].jump = (uint16_t)m->n;
		return;
	}
	if (!kp_copyinstr_of(n)) {
		lit_store(m, v, n);
		return;
	}
	o = sstr_copy(m, n, v, false);
	o->flags |= UBPF_KF_ALT | UBPF_KF_STREE;
	m->full |= !m->full && !kp_out_op(m->k, m->pl, m->n - 1, NULL);
	*last = m->n - 1;
}

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

	/* R2 (doc/DESIGN.md §8, "R2 and R3: the as-built plan"): at a
	 * uprobe site, in a program whose kernel keeps no self-> variable,
	 * an argument string whose fault must end the clause is the copy
	 * cgen_sarg.c's seq_read() makes before the first clause, a failed
	 * one sending the hit to user space whole: the OSTR or SSTR, flagged
	 * UBPF_KF_APRE with step the argument, takes its bytes from that
	 * copy, pops nothing and has no jump */
	bool apre = kp_usite(probe) && !k->noastr;

	if ((sout && !ks->out) || /* speculate(): user space's */
	    ks->noop)		  /* a store that changes nothing */
		return;
	if (ks->raise) { /* kplan.c's "raise() at the hit" */
		int64_t sig = 0;

		o = put(m, UBPF_K_RAISE, 0, 0);
		if (!kp_raise_sig(st, &sig))
			m->full = true; /* kp_stmt_plain() took none other */
		o->imm = sig;
		o->n = st->kind == S_STOP; /* the process, not the thread */
		return;
	}
	if (ks->bcpy) { /* a bounded copy's fault site (kplan_bstr.c) */
		o = put(m, UBPF_K_BCPY, 0, 0);
		if (!kp_bstr_bcpy(k, clause, st, o) && !k->typing)
			m->full = true; /* no site: not reached */
		return;
	}
	if (ks->spec) { /* a step on the buffers' words: kplan_spec.c */
		if (ks->spec == KS_TAKE) {
			o = put(m, UBPF_K_SPEC, 0, 1);
			o->sz = 4; /* speculation(): an int */
			o->sg = 1;
		} else {
			emit(m, st->e);
			o = put(m,
				ks->spec == KS_STEP ? UBPF_K_SPECU
						    : UBPF_K_SPECX,
				1, 0);
			o->n = ks->spec == KS_DISCARD;
			/* its fault site (kplan_spec.c's spec_sites()):
			 * SPECU's n, SPECX's levels */
			for (j = 0; j < k->nfs; j++)
				if (k->fs[j].n == st->e &&
				    k->fs[j].kind == KFS_ILLOP) {
					if (ks->spec == KS_STEP)
						o->n = (uint8_t)(j + 1);
					else
						o->levels = (uint16_t)(j + 1);
				}
			if (!k->typing &&
			    !(ks->spec == KS_STEP ? o->n : o->levels))
				m->full = true; /* no site: not reached */
		}
		m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		if (ks->spec == KS_TAKE && !m->full) {
			o = put(m, UBPF_K_VST, 1, 0);
			var_op(m, o, (unsigned)kp_spec_take_var(st));
		}
		return;
	}
	/* a stack key's count(): the record's stack, the update dtrace's
	 * (kplan_out.c); a name key's is an out statement as a printf()'s
	 * (below), its key the argument */
	if (ks->out &&
	    (d_stmt_ukey(k->prog, st) || d_stmt_ucall(k->prog, st))) {
		/* (ucaller's name is named from the stack too) */
		put(m, UBPF_K_OSTK, 0, 0);
		m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		if (!st->nargs)
			return;
		/* ... and its value, an out argument (below) */
	}
	if (ks->out) { /* printf(), trace(): kplan_out.c */
		bool ends = kp_out_ends(c, i);

		for (j = 0; j < kp_out_nargs(st) && !m->full; j++) {
			struct kp_place pp;
			unsigned cnt;
			int sa;
			bool s;
			const struct node *v = kp_out_arg(st, j, &s);
			struct kp_leaf lv[KP_LEAVES];
			int nl = kp_out_ftime(k, st, j, lv);
			const struct node *w = kp_out_node(st, j);

			/* computed by dtrace from its leaves (kplan_str.c's
			 * kp_out_leaves()): each as a whole one's, in
			 * d_eval()'s order; a copy run.c may not reach has
			 * no jump (kplan_out.c's kp_out_ftime_ok()) */
			for (int l = 0; l < nl && !m->full; l++) {
				const struct node *x = lv[l].n;
				/* R2's argument (kplan_str.c) */
				int xa = lv[l].kind == UBPF_K_OSTR
						 ? kp_ostr_arg(x)
						 : -1;

				if (lv[l].kind == UBPF_K_OVSTR) {
					o = put(m, UBPF_K_OVSTR, 0, 0);
					var_op(m, o, lv[l].var);
					o->slot = (uint16_t)(o->slot +
							     lv[l].room);
				} else if (xa >= 0 && apre && ends) {
					o = apre_ostr(k, m, x, xa);
				} else {
					emit(m, lv[l].kind == UBPF_K_OSTR
							? x->args[0]
							: x);
					o = ostr_count(k, m, x, lv[l].kind);
					if (lv[l].kind == UBPF_K_OSTR &&
					    !lv[l].cond && ends)
						o->jump = 1;
					/* (one R2 takes elsewhere: a bug's) */
					if (lv[l].kind == UBPF_K_OSTR &&
					    lv[l].cond && ends)
						unfit(m, "a copy under a ?: "
							 "cannot end the "
							 "clause here");
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
			if (!s && kp_bstr_read(k, v) >= 0) {
				/* a bounded copy's string: seq_read()'s
				 * copy (kplan_bstr.c), as R2's */
				o = apre_ostr(k, m, v, kp_bstr_read(k, v));
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, v);
				continue;
			}
			if (!s && kp_mem_str(k, v, &pp, &cnt)) {
				/* stringof() of a place: its copy's bytes,
				 * read before the first clause (MSTR) */
				o = put(m, UBPF_K_MSTR, 0, 0);
				o->n = pp.arg;
				o->imm = pp.size;
				o->agg = (uint16_t)pp.off;
				o->step = (uint16_t)cnt;
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, v);
				continue;
			}
			sa = s ? kp_out_sarg(st, j) : -1;
			if (s && apre && ends &&
			    (sa >= 0 || kp_ostr_arg(w) >= 0)) {
				/* R2: seq_read()'s copy, no ARG; the count
				 * a copyinstr(argN, M)'s (kp_out_op() of w,
				 * as below) */
				if (sa >= 0 && !d_args_str(probe, (unsigned)sa))
					unfit(m, "args[%d] is no string there",
					      sa);
				o = apre_ostr(k, m, w,
					      sa >= 0 ? sa : kp_ostr_arg(w));
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, w);
				continue;
			}
			if (s && sa >= 0) {
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
			o = ostr_count(k, m, w, s ? UBPF_K_OSTR : UBPF_K_OUT);
			/* a fault ends the clause before the statements
			 * after it: its jump, to the end (below) */
			if (s && !m->full && kp_out_ends(c, i))
				o->jump = 1;
			/* (a copy's: the copyinstr(), for its count) */
			m->full |= !m->full &&
				   !kp_out_op(k, pl, m->n - 1,
					      s ? kp_out_node(st, j) : v);
		}
		return;
	}
	if (ks->schr) { /* s[i] = c (kplan_svar.c's "Characters stored") */
		unsigned w = 0;
		int64_t ix = 0, ch = 0;

		(void)kp_schr_of(k->prog, st, &w, &ix, &ch);
		o = put(m, UBPF_K_SCHR, 0, 0);
		var_op(m, o, w);
		o->agg = (uint16_t)ix;
		o->step = (uint8_t)ch;
		m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		return;
	}
	if (ks->smov) { /* a literal, execname, another string variable */
		const struct node *b = st->e->b;

		if (b->op == N_TERN || ident(b) >= 0) { /* kp_str_lit_tree() */
			unsigned none;

			tree_store(m, (unsigned)st->e->a->sub, b, &none);
			return;
		}

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
			m->full |=
				!m->full && !kp_out_op(k, pl, m->n - 1, NULL);
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
			m->full |=
				!m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		}
		return;
	}
	/* strjoin()s of copies and literals (kplan_str.c's "Joins"): each
	 * part in turn appended to the join (sz, UBPF_KJ_*), the last
	 * putting it into the variable; a copy's fault ends the clause */
	if (ks->sjoin) {
		const struct node *pv[KP_JPARTS];
		int np = kp_join_parts(k, st->e->b, pv);
		unsigned v = (unsigned)st->e->a->sub;

		for (int l = 0; l < np; l++) {
			const struct node *b = pv[l];
			uint8_t jz = l == 0	   ? UBPF_KJ_FIRST
				     : l == np - 1 ? UBPF_KJ_LAST
						   : UBPF_KJ_MID;

			if (b->op == N_STR) { /* cut at strsize - 1 */
				size_t len = strlen(b->sval);

				if (len > k->prog->strsize - 1)
					len = k->prog->strsize - 1;
				o = put(m, UBPF_K_SLIT, 0, 0);
				var_op(m, o, v);
				o->step = (uint16_t)len;
				o->sz = jz;
				m->full |= !m->full &&
					   !kp_out_op(k, pl, m->n - 1, NULL);
				sdata(m, b->sval, len);
				continue;
			}
			o = sstr_copy(m, b, v, apre);
			o->sz = jz;
			m->full |=
				!m->full && !kp_out_op(k, pl, m->n - 1, NULL);
		}
		return;
	}
	if (ks->stree) { /* a ?: tree of copies and literals */
		unsigned last = ~0u;

		tree_store(m, (unsigned)st->e->a->sub, st->e->b, &last);
		if (!m->full && last != ~0u) /* the slot's room: after it */
			m->pl->ops[last].flags &= (uint16_t)~UBPF_KF_ALT;
		return;
	}
	/* a string variable's copy, each of a dead one's in turn (the
	 * first fault ends the clause, the copies after it unmade) */
	for (unsigned l = 0; ks->sstr && l < ks->nsleaves; l++) {
		unsigned v = (unsigned)st->e->a->sub;

		o = sstr_copy(m, ks->sleaves[l], v, apre);
		/* a printed format-time variable's leaf: its own room */
		if (kp_fvar_rooms(k, v) > 1)
			o->slot = (uint16_t)(o->slot + l);
		m->full |= !m->full && !kp_out_op(k, pl, m->n - 1, NULL);
	}
	if (ks->sstr)
		return;
	if (ks->sclr) {
		o = put(m, UBPF_K_SCLR, 0, 0);
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
		struct node bin, one;
		struct ubpf_kop kt = { 0 };

		if (st->e->a->op == N_ASSOC) /* the keys, below */
			assoc_keys(m, st->e->a, &kt);
		emit(m, kp_stored(st, &bin, &one));
		if (v->declared)
			norm(m, v->sz, v->sg);
		o = put(m, UBPF_K_VST, 1 + kt.step, 0);
		var_op(m, o, (unsigned)st->e->a->sub);
		o->step = kt.step;
		o->imm = kt.imm;
		return;
	}
	if (ks->gvar) { /* a global counted: its value's sum() (kplan_gcnt.c) */
		struct node one;

		emit(m, kp_gcnt_value(k, ks, &one));
		o = put(m, UBPF_K_AGG, 1, 0);
		o->agg = (uint16_t)at;
		o->n = UBPF_F_SUM;
		if (ks->slot >= 0) {
			o->flags = UBPF_KF_FLAT;
			o->slot = (uint16_t)ks->slot;
		}
		return;
	}
	a = &k->prog->aggs[st->agg];
	for (j = 0; j < st->nkeys; j++) {
		/* a pair of kaggs_v keys (kplan.c's vkey_pair()): the
		 * second's room after the first's (vkey_room()) */
		bool second = ks->vkey2 && j + 1 == ks->vkey2;
		bool vthird = ks->vkey3 && j + 1 == ks->vkey3;
		unsigned sx = second ? ks->sx2 : ks->sx;

		if (((int)j == ks->skey && ks->svar >= 0) ||
		    (second && sx == KSX_NONE) || vthird) {
			/* a string variable's bytes, as kept: its room
			 * zeroed whole where the map's is longer (step:
			 * a pair's elsewhere); a third's after the pair
			 * (kplan.c's vkey_third()) */
			unsigned sv = (unsigned)(vthird	  ? ks->svar3
						 : second ? ks->svar2
							  : ks->svar);

			o = put(m, UBPF_K_VKEY, 0, 0);
			var_op(m, o, sv);
			/* a self-> format-time variable's: absent marked
			 * (kplan_fkey.c) */
			if (kp_fvar_self(k, sv))
				o->flags |= UBPF_KF_PRES;
			o->levels = o->n;
			o->n = (uint8_t)j;
			whole_room(k, ks, o, vthird ? 2 : second ? 1 : 0);
			continue;
		}
		if (((int)j == ks->skey || second) && sx == KSX_ARG) {
			/* an argument's string, in its room of the pair
			 * (kplan.c's vkey_pair()), or alone where the
			 * kernel keeps self-> variables (its copy a fault
			 * site there) */
			unsigned an = second ? ks->sarg2 : ks->sarg;

			if (kp_args_index(st->keys[j]) >= 0 &&
			    !d_args_str(probe, an))
				unfit(m, "args[%u] is no string there", an);
			o = put(m, UBPF_K_AKEY, 0, 0);
			o->n = (uint8_t)j;
			o->slot = (uint16_t)an;
			fault_site(m, o, st->keys[j]); /* fmode's */
			whole_room(k, ks, o, second ? 1 : 0);
			continue;
		}
		if ((j + 1 == ks->skey2 || j + 1 == ks->skey3) &&
		    ks->skey >= 0) {
			/* a second copyinstr(): after the first's NUL in
			 * the kaggs_s key; a third after the second's
			 * (step: the first's argument + 1); args[N]: where
			 * a string */
			bool third = j + 1 == ks->skey3;
			unsigned an = third ? ks->sarg3 : ks->sarg2;

			if (kp_args_index(st->keys[j]) >= 0 &&
			    !d_args_str(probe, an))
				unfit(m, "args[%u] is no string there", an);
			o = put(m, UBPF_K_SKEY2, 0, 0);
			o->n = (uint8_t)j;
			o->slot = (uint16_t)an;
			o->levels = third ? ks->sarg2 : ks->sarg;
			o->step = third ? (uint16_t)(ks->sarg + 1) : 0;
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
		if (((int)j == ks->skey || second) && sx == KSX_COMM) {
			/* execname, cut as agg.c cuts a key */
			o = put(m, UBPF_K_CKEY, 0, 0);
			o->n = (uint8_t)j;
			vkey_room(m, ks, o, j);
			o->step = k->prog->strsize < UBPF_KCOMM
					  ? (uint16_t)k->prog->strsize
					  : UBPF_KCOMM;
			continue;
		}
		if (((int)j == ks->skey || second) && sx == KSX_LIT) {
			lit_key(m, ks, st->keys[j], j);
			continue;
		}
		if (((int)j == ks->skey || second) && sx == KSX_MIX) {
			mix_key(m, ks, st->keys[j], j);
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
	if (ks->skey >= 0 &&
	    (ks->svar >= 0 || (ks->sx != KSX_NONE && ks->sx != KSX_SMIX)))
		o->flags |= UBPF_KF_VKEY;
	if (ks->vkey2) /* kaggs_v's alone: no short key (cgen_agg.c) */
		o->flags |= UBPF_KF_VPAIR;
	else if (sk)
		o->flags |= UBPF_KF_SKEY;
	switch (a->fn) {
	case AG_COUNT:
		o->n = UBPF_F_COUNT;
		break;
	case AG_SUM:
		o->n = UBPF_F_SUM;
		break;
	case AG_AVG:
		o->n = UBPF_F_AVG;
		break;
	case AG_MIN:
		o->n = UBPF_F_MIN;
		break;
	case AG_MAX:
		o->n = UBPF_F_MAX;
		break;
	case AG_QUANTIZE:
		o->n = UBPF_F_QUANTIZE;
		break;
	case AG_STDDEV:
		o->n = UBPF_F_STDDEV;
		break;
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

/* A printed statement's form, absent, into the out area's 8 bytes
 * before its values (an OUT of the constant, unsigned) */
static void form_slot(struct em *m, uint32_t absent)
{
	/* (its type for kp_out_op(): 8 bytes, unsigned) */
	static const struct node mask = { .op = N_INT, .kind = T_INT, .sz = 8 };
	struct ubpf_kop *o = put(m, UBPF_K_CONST, 0, 1);

	o->imm = absent;
	o->sz = 8;
	o->sg = 0;
	put(m, UBPF_K_OUT, 1, 0);
	m->full |= !m->full && !kp_out_op(m->k, m->pl, m->n - 1, &mask);
}

/*
 * Statement i dispatched on its open bits (kstmt's forms: self-> and
 * this-> integers whose type set and unset differ; kplan_vars.c's
 * clause_typed()), absent those typed unset so far.  A bit at a time,
 * lowest first: the variable's set test (kplan_emit.c's form_load():
 * a self-> variable's VLD, set exactly when non-zero, a store of 0
 * deleting it, cgen_plan.c's tls_store(), run.c's dyn_put(); a this->
 * variable's TSET, set when the firing stored it, 0 included, as
 * run.c's var_set() stores a 0 of its type), a PRED to its unset
 * forms, its set forms
 * then a JMP past the last form (jmps, patched by the caller), the
 * unset forms.  Each form is the statement emitted with k->absent
 * those bits alone (it reads no other open bit), as run.c types its
 * reads at the statement's start: nothing in a statement stores a
 * variable before its reads (the kernel's stores are whole statements,
 * VST last).  Every jump lands at depth 0, as emit_list()'s do.  A
 * printf() or trace()'s form writes its slot first (form_slot()), and
 * every form's instructions but the last's are flagged UBPF_KF_ALT:
 * they write the last form's slots (kplan_out.c's "Printed forms").
 */
static void emit_forms(struct em *m, const struct clause *c, unsigned clause,
		       unsigned i, uint32_t bits, uint32_t absent,
		       unsigned *jmps, unsigned *nj)
{
	struct d_kplan *kw = (struct d_kplan *)m->k; /* its typing state */
	uint32_t b = bits & -bits;
	unsigned pj;

	if (!bits) {
		const struct kstmt *ks = &m->k->st[m->k->first[clause] + i];
		uint32_t was = kw->absent;
		unsigned start = m->n;

		kw->absent = absent;
		if (ks->out) /* the form's slot: kplan_out.c's printed forms */
			form_slot(m, absent);
		emit_stmt(m, c, clause, i, false);
		kw->absent = was;
		/* a form but the last: its area's slots are the last one's
		 * (kp_out_op() lays out the last's) */
		for (unsigned q = start;
		     ks->out && absent != ks->forms && !m->full && q < m->n;
		     q++)
			m->pl->ops[q].flags |= UBPF_KF_ALT;
		return;
	}
	if (!form_load(m, b))
		return;
	put(m, UBPF_K_PRED, 1, 0);
	pj = m->n - 1;
	emit_forms(m, c, clause, i, bits & ~b, absent, jmps, nj);
	put(m, UBPF_K_JMP, 0, 0);
	if (m->full)
		return;
	jmps[(*nj)++] = m->n - 1;
	m->pl->ops[pj].jump = (uint16_t)m->n;
	emit_forms(m, c, clause, i, bits & ~b, absent | b, jmps, nj);
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
void emit_list(struct em *m, const struct clause *c, unsigned clause,
	       unsigned from, unsigned to, bool sout)
{
	for (unsigned i = from; i < to && !m->full; i++) {
		const struct kstmt *ks = &m->k->st[m->k->first[clause] + i];
		const struct stmt *st = c->flat[i];
		unsigned start = m->n, pj, jj = 0;
		bool sc = false; /* an SC lands past the comparison */

		if (!ks->cond && ks->forms && !sout) {
			unsigned jmps[KP_FORMS], nj = 0;

			emit_forms(m, c, clause, i, ks->forms, 0, jmps, &nj);
			for (unsigned q = 0; !m->full && q < nj; q++)
				m->pl->ops[jmps[q]].jump = (uint16_t)m->n;
			continue;
		}
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
