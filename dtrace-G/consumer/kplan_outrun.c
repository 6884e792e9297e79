// SPDX-License-Identifier: MIT
/*
 * kplan_outrun.c - dtrace's side of the values a generated program
 * computed at the hit (kplan_out.c's design comment says which and
 * why): a clause printed from its record's out area with no evaluation
 * (d_kplan_out_run(): struct orun's walk, the layouts made once per
 * clause, out_memo(); a copy's fault reported at its action, R1's late
 * re-read), a speculating clause's tags and text (d_kplan_kspec_*()),
 * and the self-> values the kernel kept put into dtrace's table: a
 * vin clause's for its run (d_kplan_vin_put(), kplan_vin.c) and a
 * thread's moved to user space (d_kplan_tls_put(), _tlsa_put(),
 * _tlss_put(): bpf_agg_cgen.c's "Two copies").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

/* vin clause clause's variables of thread tid: from data (in the area's
 * order) where data, else from save */
static void vin_set(const struct d_kplan *k, unsigned clause,
		    const uint8_t *data, int32_t tid, struct dv *save)
{
	bool *mark = xcalloc(k->prog->nvars, sizeof(*mark));
	size_t off = 0;

	kp_vin_vars(k, clause, mark);
	for (unsigned v = 0; v < k->prog->nvars; v++) {
		struct dv x = { .k = K_INT, .sz = k->vsz[v], .sg = k->vsg[v] };

		if (!mark[v])
			continue;
		if (data) {
			memcpy(&x.i, data + off, 8);
			off += kp_out_size(false);
		} else {
			x = save[v];
		}
		/* 0 deletes it, as a store of 0 does (run.c's var_set());
		 * else of the type T every store gives it; what user space
		 * held (a hit all of whose clauses it ran, unflagged) kept
		 * in save */
		x = d_self_put(k->prog, v, tid, x);
		if (data)
			save[v] = x;
	}
	free(mark);
}

struct dv *d_kplan_vin_put(const struct d_kplan *k, unsigned clause,
			   const uint8_t *data, size_t len, int32_t tid)
{
	bool *mark;
	struct dv *save;
	unsigned n;

	if (!d_kplan_vin(k, clause))
		return NULL;
	mark = xcalloc(k->prog->nvars, sizeof(*mark));
	n = kp_vin_count(k, clause, mark);
	free(mark);
	if (n * kp_out_size(false) > len)
		return NULL; /* not the plan's record */
	save = xcalloc(k->prog->nvars, sizeof(*save));
	vin_set(k, clause, data, tid, save);
	return save;
}

void d_kplan_vin_back(const struct d_kplan *k, unsigned clause, int32_t tid,
		      struct dv *save)
{
	if (save && d_kplan_vin(k, clause))
		vin_set(k, clause, NULL, tid, save);
	free(save);
}

void d_kplan_tls_put(const struct d_kplan *k, uint32_t var, int32_t tid,
		     int64_t v)
{
	if (var >= k->prog->nvars)
		return;
	(void)d_self_put(k->prog, var, tid,
			 (struct dv){ .i = v,
				      .k = K_INT,
				      .sz = k->vsz[var],
				      .sg = k->vsg[var] });
}

void d_kplan_tlsa_put(const struct d_kplan *k, uint32_t word, int32_t tid,
		      const int64_t *keys, int64_t v)
{
	/* word: the variable | its keys' count << 16 (cgen_plan.c's
	 * tlsa_key()); each integer key its value extended by its own type,
	 * the element's as run.c's d_dyn_key_add() keys it */
	uint32_t var = word & 0xffff, nk = (word >> 16) & 7;
	struct dv kv[UBPF_KMAXKEYS];

	if (var >= k->prog->nvars || nk > UBPF_KMAXKEYS)
		return;
	for (unsigned i = 0; i < nk; i++) {
		const char *s;

		if (kp_akey_var(k, var, i)) {
			/* a string's number (kplan_akey.c) */
			s = kp_akey_str(k, keys[i]);
			kv[i] = d_dv_str(s ? s : "");
			continue;
		}
		kv[i] = d_dv_int(keys[i], 8, true);
	}
	d_self_aput(k->prog, var, tid, kv, nk,
		    (struct dv){ .i = v,
				 .k = K_INT,
				 .sz = k->vsz[var],
				 .sg = k->vsg[var] });
}

void d_kplan_tlss_put(const struct d_kplan *k, uint32_t var, int32_t tid,
		      const char *s, size_t n)
{
	char *b;

	if (var >= k->prog->nvars)
		return;
	/* its bytes, tainted, as d_kplan_out_run() makes a kernel string
	 * variable's */
	b = strndup(s, n);
	if (!b)
		abort();
	(void)d_self_put(k->prog, var, tid,
			 (struct dv){ .s = b, .k = K_STR, .tn = 1 });
	free(b);
}

/* Where a copy that faulted at the hit (so) faulted: its address, or
 * the page after it (-2) */
static uint64_t out_faddr(const struct ubpf_kostr *so)
{
	uint64_t at = (uint64_t)so->addr;

	return so->len == -2 ? (at | 4095) + 1 : at;
}

/* The max run.c's d_arg_str() reads argument string n with (an args[N]
 * or copyinstr(argN): strsize; copyinstr(argN, M): its count + 1, as
 * its OSTR's imm, kp_ostr_count(), or, M the hit's (kp_ostr_hit()),
 * the count the program clamped it to, so's cnt, + 1) */
static size_t late_max(const struct d_kplan *k, const struct node *n,
		       const struct ubpf_kostr *so)
{
	int c = kp_ostr_count(k->prog, n);

	if (c < 1 && kp_ostr_hit(k, n))
		return so->cnt < k->prog->strsize ? (size_t)so->cnt + 1
						  : k->prog->strsize;
	return c > 0 ? (size_t)c + 1 : k->prog->strsize;
}

/* d_kplan_out_run()'s walk of a record's area */
struct orun {
	const struct d_kplan *k;
	unsigned clause;
	const uint8_t *data;
	size_t len, off;
	const struct d_fire *f;
	FILE *err;
	struct dv *vals; /* for d_run_pre(), in the order it takes them */
	unsigned nv;
	char **strs;
	unsigned ns;
	int rv;
	int fat; /* a sout clause's value that faulted */
	uint64_t faddr;
	bool sout;
	bool kprobe; /* a kernel probe's record: its copies' faults stay */
	/* hold mode (d_kplan_kspec_text(), d_kplan_kspec_fault()): the
	 * first fault kept in hact, haddr (hflt), not reported, the walk
	 * ended there; no late re-read (R1) */
	bool hold, hflt;
	int hact;
	uint64_t haddr;
};

/* n's type as run.c types it at the record's probe: kp_ty()'s, or
 * where n reads args[N], which kp_ty() types at no probe, the probe's
 * (arg_ok(): such a value is printed from the area only so) */
static void out_ty(const struct orun *r, const struct node *n, uint8_t *sz,
		   uint8_t *sg)
{
	if (!kp_ty(r->k, n, sz, sg) && r->f && r->f->probe)
		(void)kp_ty_at(r->k, r->f->probe, n, sz, sg);
}

/*
 * The record path's layouts (out_memo()).  Which bytes of a clause's
 * area an argument takes, and how dtrace makes its value from them, is
 * the plan's: fixed once the plan is made (every form of a statement
 * lays its values out alike: kp_out_op()), and derived from the tree by
 * the same walks the plan was made with (kp_out_arg(), kp_out_whole(),
 * kp_out_ftime(), kp_out_list_bytes()).  A busy probe prints thousands of
 * records a second, so each clause's answers are made at its first
 * record and read from then on; only the values' types, which a
 * statement's forms change (k->absent), are still asked per record.
 */
struct kp_oarg {
	const struct node *a; /* kp_out_arg() */
	bool s;		      /* ... its copy (copyinstr(), args[N]) */
	bool whole;	      /* kp_out_whole() */
	int nl;		      /* not whole: kp_out_ftime()'s leaves */
	struct kp_leaf *lv;
	const struct node *tree; /* ... and kp_out_tree() */
};
struct kp_ostmt {
	struct kp_oarg *args; /* an out statement's, kp_out_nargs() */
	bool ends;	      /* kp_out_ends() */
	unsigned body, els;   /* an if's: its branches' bytes */
};
struct kp_omemo {
	unsigned bytes;	     /* d_kplan_out_bytes() */
	struct kp_ostmt *st; /* per statement of the clause's flat list */
};

/* Clause's layout; with stmts, its statements' too (out_list()'s: a
 * clause whose area it walks) */
static const struct kp_omemo *out_memo(const struct d_kplan *k, unsigned clause,
				       bool stmts)
{
	struct d_kplan *kw = (struct d_kplan *)k;
	const struct clause *c = &k->prog->clauses[clause];
	struct kp_omemo *m;

	if (!kw->omemo)
		kw->omemo = xcalloc(k->prog->nclauses ? k->prog->nclauses : 1,
				    sizeof(*kw->omemo));
	if (!kw->omemo[clause]) {
		kw->omemo[clause] = xcalloc(1, sizeof(*m));
		kw->omemo[clause]->bytes = d_kplan_out_bytes(k, clause);
	}
	m = kw->omemo[clause];
	if (!stmts || m->st)
		return m;
	m->st = xcalloc(c->nflat ? c->nflat : 1, sizeof(*m->st));
	for (unsigned i = 0; i < c->nflat; i++) {
		const struct stmt *st = c->flat[i];
		const struct kstmt *ks = &k->st[k->first[clause] + i];
		struct kp_ostmt *o = &m->st[i];

		o->ends = kp_out_ends(c, i);
		if (ks->cond && kp_if_out(k, clause, i)) {
			o->body = kp_out_list_bytes(k, clause, st->fbody,
						    st->fels);
			o->els = kp_out_list_bytes(k, clause, st->fels,
						   st->fend);
		}
		if (!ks->out)
			continue;
		o->args = xcalloc(kp_out_nargs(st) ? kp_out_nargs(st) : 1,
				  sizeof(*o->args));
		for (unsigned j = 0; j < kp_out_nargs(st); j++) {
			struct kp_oarg *x = &o->args[j];
			struct kp_leaf lv[KP_LEAVES];

			x->a = kp_out_arg(st, j, &x->s);
			x->whole = kp_out_whole(k, st, j);
			x->nl = x->whole ? -1 : kp_out_ftime(k, st, j, lv);
			x->tree = kp_out_tree(k, st, j);
			if (x->nl > 0) {
				x->lv = xcalloc((size_t)x->nl, sizeof(*x->lv));
				memcpy(x->lv, lv, (size_t)x->nl * sizeof(*lv));
			}
		}
	}
	return m;
}

void kp_out_memo_free(struct d_kplan *k)
{
	for (unsigned ci = 0; k->omemo && ci < k->prog->nclauses; ci++) {
		struct kp_omemo *m = k->omemo[ci];
		const struct clause *c = &k->prog->clauses[ci];

		for (unsigned i = 0; m && m->st && i < c->nflat; i++) {
			for (unsigned j = 0;
			     m->st[i].args && j < kp_out_nargs(c->flat[i]); j++)
				free(m->st[i].args[j].lv);
			free(m->st[i].args);
		}
		if (m)
			free(m->st);
		free(m);
	}
	free(k->omemo);
	k->omemo = NULL;
}

unsigned d_kplan_out_rec_bytes(const struct d_kplan *k, unsigned clause)
{
	return out_memo(k, clause, false)->bytes;
}

/* A fault at at in action action: kept in hold mode, else reported;
 * r->rv set either way (the walk ends) */
static void run_fault(struct orun *r, int action, uint64_t at, bool illop)
{
	int rv;

	if (r->hold) {
		if (!r->hflt) {
			r->hflt = true;
			r->hact = action;
			r->haddr = at;
		}
		r->rv = -1;
		return;
	}
	rv = d_run_fault(r->k->prog, r->clause, r->f, action,
			 illop ? D_RUNF_ILLOP : D_RUNF_ADDR, at, r->err);
	r->rv = rv ? rv : -1;
}

/* A fault at faddr of argument j of st, a printf() or trace(): a
 * sout clause's pre[r->nv - 1], reported if the clause gets there;
 * else the hit's, reported here */
static void arg_fault(struct orun *r, const struct stmt *st, unsigned j,
		      uint64_t faddr, bool illop)
{
	if (r->sout) { /* (an address's: pr_psargs is not a sout's) */
		r->fat = (int)r->nv - 1;
		r->faddr = faddr;
		return;
	}
	run_fault(r, st->kind == S_TRACE ? st->action : st->action + (int)j,
		  faddr, illop);
}

/* No late re-read (R1) of an argument string that faulted at the hit:
 * in hold mode, nor for a clause of speculations in the kernel, whose
 * held text the pass or the place makes and whose fault the place
 * reports: two reads could disagree (doc/DESIGN.md's step 4, *Strings*) */
static bool late_off(const struct orun *r)
{
	return r->hold || d_kplan_kspec_clause(r->k, r->clause);
}

/*
 * Argument j of st, which dtrace computes from its leaves (kplan_str.c's
 * kp_out_leaves(), "String functions printed from the out area"): each
 * leaf's value read from the area into a pin (a copy that faulted: its
 * address, the page after where the string ran into it, as
 * out_faddr()'s), then d_eval_pinned() of the argument, which meets
 * the pins in run.c's order and raises the first faulted one it
 * reaches (one in a branch not taken is never read, as run.c never
 * copies it).  Into *v, its string kept in r->strs; false where the
 * walk ends (a fault, or not the plan's record).
 */
static bool out_ftime(struct orun *r, const struct stmt *st, unsigned j,
		      const struct kp_oarg *oa, bool ends, struct dv *v)
{
	const struct d_kplan *k = r->k;
	const struct kp_leaf *lv = oa->lv;
	struct d_pin pin[KP_LEAVES];
	char *ls[KP_LEAVES]; /* the copies' strings */
	int nl = oa->nl;
	unsigned nls = 0;
	uint64_t faddr = 0;
	char *str = NULL;
	bool ok = true;
	int frv;

	if (nl < 0) {
		r->rv = -1;
		return false;
	}
	for (int l = 0; l < nl; l++) {
		struct d_pin *p = &pin[l];
		struct ubpf_kostr so;
		bool s = lv[l].kind != UBPF_K_OUT;

		memset(p, 0, sizeof(*p));
		p->n = lv[l].n;
		if (r->off + kp_out_size(s) > r->len) {
			r->rv = -1; /* not the plan's record */
			ok = false;
			break;
		}
		if (!s) {
			uint8_t sz = 8, sg = 1;
			int64_t x;

			memcpy(&x, r->data + r->off, 8);
			r->off += 8;
			out_ty(r, lv[l].n, &sz, &sg);
			p->v = (struct dv){
				.i = x, .k = K_INT, .sz = sz, .sg = sg
			};
			continue;
		}
		memcpy(&so, r->data + r->off, sizeof(so));
		r->off += sizeof(so);
		/* an argument string the probe could not read, at a uprobe,
		 * with no jump (ends: none after the statement; a leaf
		 * under a ?: or && with one is refused, kp_out_ftime_ok()):
		 * read now, as the record path's d_arg_str() reads it, as
		 * out_list() reads a whole argument's (R1); a leaf in a
		 * branch d_eval_pinned() does not take is read too, its
		 * value unused */
		if (so.len < 0 && !r->kprobe && !ends && !late_off(r) &&
		    lv[l].kind == UBPF_K_OSTR && kp_ostr_arg(lv[l].n) >= 0) {
			uint64_t fa = 0;
			char *late = d_read_str_late(
				k->prog, r->f, (uint64_t)so.addr,
				late_max(k, lv[l].n, &so), &fa);

			if (late) {
				ls[nls] = late;
				p->v = (struct dv){ .s = ls[nls++],
						    .k = K_STR,
						    .tn = 1 };
				continue;
			}
			p->flt = true;
			p->faddr = fa;
			continue;
		}
		if (so.len < 0) { /* faulted, raised where d_eval() gets */
			p->flt = true;
			p->faddr = (uint64_t)so.addr;
			if (so.len == -2)
				p->faddr = (p->faddr | 4095) + 1;
			continue;
		}
		/* (a slot after a copy that jumped is not written: that
		 * copy is met first, never this) */
		ls[nls] = strndup(so.s, (size_t)so.len < sizeof(so.s)
						? (size_t)so.len
						: sizeof(so.s));
		if (!ls[nls])
			abort();
		p->v = (struct dv){ .s = ls[nls++], .k = K_STR, .tn = 1 };
	}
	if (ok && (frv = d_eval_pinned(k->prog, r->clause, r->f, oa->tree, pin,
				       (unsigned)nl, v, &str, &faddr))) {
		arg_fault(r, st, j, faddr, frv == 2); /* 2: pr_psargs's */
		ok = false;
	}
	/* a format-time variable's store's tree: its value as run.c's
	 * store keeps it, strsize - 1 bytes at most */
	if (ok && str && oa->tree != kp_out_node(st, j) &&
	    strlen(str) >= k->prog->strsize)
		str[k->prog->strsize - 1] = '\0';
	/* the result's string is d_eval_pinned()'s copy: one per
	 * argument in r->strs, as a copy's */
	while (nls)
		free(ls[--nls]);
	if (str)
		r->strs[r->ns++] = str;
	return ok;
}

/* Statements [from, to) of the clause's flat list, as the plan wrote
 * their values: an if with a slot (kp_if_out()) its condition's value,
 * then the branch it took, the other's bytes skipped (its slots not
 * written at this hit) */
static void out_list(struct orun *r, unsigned from, unsigned to)
{
	const struct d_kplan *k = r->k;
	/* (its typing state: a form's, for the values it printed) */
	struct d_kplan *kw = (struct d_kplan *)r->k;
	const struct clause *c = &k->prog->clauses[r->clause];
	const struct kp_omemo *mo = out_memo(k, r->clause, true);
	uint32_t was;

	for (unsigned i = from; i < to && !r->rv && r->fat < 0; i++) {
		const struct stmt *st = c->flat[i];
		const struct kstmt *ks = &k->st[k->first[r->clause] + i];
		const struct kp_ostmt *os = &mo->st[i];

		if (ks->cond) {
			struct dv t;
			int64_t x;
			uint8_t sz = 8, sg = 1;
			bool taken;

			if (!kp_if_out(k, r->clause, i))
				continue; /* nothing of it in the area */
			if (r->off + kp_out_size(false) > r->len) {
				r->rv = -1; /* not the plan's record */
				return;
			}
			memcpy(&x, r->data + r->off, 8);
			r->off += kp_out_size(false);
			(void)kp_ty(k, st->e, &sz, &sg);
			t = (struct dv){
				.i = x, .k = K_INT, .sz = sz, .sg = sg
			};
			taken = d_truth(&t);
			/* d_run_pre() takes it where a branch prints */
			if (d_stmts_prints(st->body, st->nbody) ||
			    d_stmts_prints(st->els, st->nels))
				r->vals[r->nv++] = t;
			if (taken) {
				out_list(r, st->fbody, st->fels);
				r->off += os->els;
			} else {
				r->off += os->body;
				out_list(r, st->fels, st->fend);
			}
			continue;
		}
		if (ks->spec) { /* a step's tag: d_kplan_kspec_tags()'s */
			r->off += KTAG_SIZE;
			continue;
		}
		if (ks->sstr) { /* the store's copies, up to a fault */
			for (unsigned l = 0; l < ks->nsleaves && !r->rv; l++) {
				struct ubpf_kostr so;

				if (r->off + SSTR_SIZE > r->len) {
					r->rv = -1;
					return;
				}
				memcpy(&so, r->data + r->off, SSTR_SIZE);
				r->off += SSTR_SIZE;
				if (so.len < 0)
					run_fault(r, st->action, out_faddr(&so),
						  false);
			}
			continue;
		}
		if (!ks->out)
			continue;
		/* a statement with forms: the form the hit took, whose types
		 * its values have (kplan_stmt.c's form_slot(): "Printed forms"
		 * above) */
		was = k->absent;
		if (ks->forms) {
			uint64_t f;

			if (r->off + kp_out_size(false) > r->len) {
				r->rv = -1;
				return;
			}
			memcpy(&f, r->data + r->off, 8);
			r->off += kp_out_size(false);
			if (f & ~(uint64_t)ks->forms) {
				r->rv = -1; /* not the plan's record */
				return;
			}
			kw->absent = (uint32_t)f;
		}
		for (unsigned j = 0; j < kp_out_nargs(st) && !r->rv; j++) {
			struct dv *v = &r->vals[r->nv++];
			struct ubpf_kostr so;
			const struct kp_oarg *oa = &os->args[j];
			bool s = oa->s;
			const struct node *a = oa->a;
			uint8_t sz = 8, sg = 1;
			int64_t x;
			uint64_t fa;
			char *late = NULL;

			if (!oa->whole) { /* from its leaves */
				if (!out_ftime(r, st, j, oa, os->ends, v))
					goto done;
				continue;
			}
			if (!s && kp_out_here(a)) { /* as d_eval() has it */
				const char *en = r->f->execname;
				const struct d_probe *pr = r->f->probe;

				*v = a->op == N_STR ? d_dv_str(a->sval)
				     : ident(a) < 0
					     ? d_dv_tstr(en ? en : "")
					     : d_dv_str(pr ? kp_ident_str(pr, a)
							   : "");
				continue;
			}
			if (!s && kp_out_stk(a)) { /* OSTK: the record's */
				*v = d_stack_rec(k->prog, r->f, a,
						 &r->strs[r->ns++]);
				continue;
			}
			/* its bytes, as OSTR's */
			s |= kp_out_svar(k, a) || kp_out_mstr(k, a);
			if (r->off + kp_out_size(s) > r->len) {
				r->rv = -1; /* not the plan's record */
				goto done;
			}
			if (!s) {
				memcpy(&x, r->data + r->off, 8);
				r->off += 8;
				out_ty(r, a, &sz, &sg);
				*v = (struct dv){
					.i = x, .k = K_INT, .sz = sz, .sg = sg
				};
				continue;
			}
			memcpy(&so, r->data + r->off, sizeof(so));
			r->off += sizeof(so);
			fa = so.len < 0 ? out_faddr(&so) : 0;
			/* an argument string the probe could not read, at a
			 * uprobe, with no jump (nothing at the hit depended
			 * on it): read now, as the record path's d_arg_str()
			 * reads it (the "Strings at the probe of pages not
			 * yet touched" paragraph above) */
			if (so.len < 0 && !r->kprobe && !late_off(r) &&
			    kp_out_astr(st, j) >= 0 && !os->ends) {
				late = d_read_str_late(
					k->prog, r->f, (uint64_t)so.addr,
					late_max(k, kp_out_node(st, j), &so),
					&fa);
				if (late)
					so.len = 0;
			}
			if (so.len < 0 &&
			    r->sout) { /* if the clause gets there */
				r->fat = (int)r->nv - 1;
				r->faddr = fa;
				goto done;
			}
			if (so.len < 0) { /* the hit's fault, reported here */
				run_fault(r,
					  st->kind == S_TRACE
						  ? st->action
						  : st->action + (int)j,
					  fa, false);
				goto done;
			}
			r->strs[r->ns] =
				late ? late
				     : strndup(so.s,
					       (size_t)so.len < sizeof(so.s)
						       ? (size_t)so.len
						       : sizeof(so.s));
			if (!r->strs[r->ns])
				abort();
			*v = (struct dv){ .s = r->strs[r->ns++],
					  .k = K_STR,
					  .tn = 1 };
		}
	done:
		kw->absent = was;
	}
}

/* Every value the walk of clause's area may give: each if's, each
 * argument's */
static unsigned out_nvals(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c = &k->prog->clauses[clause];
	unsigned nall = 0;

	for (unsigned i = 0; i < c->nflat; i++) {
		const struct kstmt *ks = &k->st[k->first[clause] + i];

		nall += ks->cond ? 1 : ks->out ? kp_out_nargs(c->flat[i]) : 0;
	}
	return nall;
}

int d_kplan_out_run(const struct d_kplan *k, unsigned clause,
		    const uint8_t *data, size_t len, const struct d_fire *f,
		    bool kprobe, FILE *out, FILE *err)
{
	const struct clause *c = &k->prog->clauses[clause];
	struct orun r = { .k = k,
			  .clause = clause,
			  .data = data,
			  .len = len,
			  .f = f,
			  .err = err,
			  .fat = -1,
			  .sout = d_kplan_sout(k, clause),
			  .kprobe = kprobe };
	unsigned nall = 0;
	int truth = -1; /* its predicate's, where the kernel computed it */

	if (d_kplan_spred(k, clause)) { /* first: the predicate's value */
		struct dv pv;
		int64_t x;
		uint8_t sz = 8, sg = 1;

		if (len < 8)
			return 0; /* not the plan's record */
		memcpy(&x, data, 8);
		r.off = 8;
		(void)kp_ty(k, c->pred, &sz, &sg);
		pv = (struct dv){ .i = x, .k = K_INT, .sz = sz, .sg = sg };
		truth = d_truth(&pv);
	}

	nall = out_nvals(k, clause);
	r.vals = xcalloc(nall ? nall : 1, sizeof(*r.vals));
	r.strs = xcalloc(nall ? nall : 1, sizeof(*r.strs));
	out_list(&r, 0, c->nstmts);
	if (!r.rv && r.sout) /* its predicate and speculate() run here */
		r.rv = d_run_spec(k->prog, clause, f, r.vals, r.fat, r.faddr,
				  truth, out, err);
	else if (!r.rv)
		r.rv = d_run_pre(k->prog, clause, f, r.vals, out, err);
	for (unsigned i = 0; i < r.ns; i++)
		free(r.strs[i]);
	free(r.strs);
	free(r.vals);
	return r.rv < 0 ? 0 : r.rv;
}

/* The tags of statements [from, to) of clause's flat list into t (at
 * most max, n so far), the area read from *off on: an if's value, then
 * its body's and its else's bytes, as out_list() walks them; every tag
 * read, a branch not taken included (act 0: cgen_out_ktags() zeroed
 * it where the area started) */
static void kspec_tags_of(const struct d_kplan *k, unsigned clause,
			  unsigned from, unsigned to, const uint8_t *data,
			  size_t len, unsigned *off, struct d_kstag *t,
			  unsigned max, unsigned *n)
{
	const struct clause *c = &k->prog->clauses[clause];

	for (unsigned i = from; i < to; i++) {
		const struct stmt *st = c->flat[i];
		const struct kstmt *ks = &k->st[k->first[clause] + i];
		struct ubpf_kspec g;

		if (ks->cond && kp_if_out(k, clause, i)) {
			*off += kp_out_size(false);
			kspec_tags_of(k, clause, st->fbody, st->fels, data, len,
				      off, t, max, n);
			kspec_tags_of(k, clause, st->fels, st->fend, data, len,
				      off, t, max, n);
			continue;
		}
		if (!ks->spec) {
			*off += kp_out_list_bytes(k, clause, i, i + 1);
			continue;
		}
		if (*off + KTAG_SIZE > len || *n >= max)
			return;
		memcpy(&g, data + *off, sizeof(g));
		*off += KTAG_SIZE;
		t[(*n)++] = (struct d_kstag){ ks->spec, g.id, g.act, g.n };
	}
}

unsigned d_kplan_kspec_tags(const struct d_kplan *k, unsigned clause,
			    const uint8_t *data, size_t len, struct d_kstag *t,
			    unsigned max)
{
	const struct clause *c = &k->prog->clauses[clause];
	unsigned off = 0, n = 0;

	kspec_tags_of(k, clause, 0, c->nstmts, data, len, &off, t, max, &n);
	return n;
}

/* The hold mode's walk of a speculating clause's area (data, len) into
 * r: its values, or the first fault kept (d_kplan_kspec_text(),
 * d_kplan_kspec_fault()); kspec_done() frees it */
static void kspec_walk(struct orun *r, const struct d_kplan *k, unsigned clause,
		       const uint8_t *data, size_t len, const struct d_fire *f)
{
	unsigned nall = out_nvals(k, clause);

	*r = (struct orun){ .k = k,
			    .clause = clause,
			    .data = data,
			    .len = len,
			    .f = f,
			    .err = stderr,
			    .fat = -1,
			    .hold = true };
	r->vals = xcalloc(nall ? nall : 1, sizeof(*r->vals));
	r->strs = xcalloc(nall ? nall : 1, sizeof(*r->strs));
	out_list(r, 0, k->prog->clauses[clause].nstmts);
}

static void kspec_done(struct orun *r)
{
	for (unsigned i = 0; i < r->ns; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->vals);
}

bool d_kplan_kspec_text(const struct d_kplan *k, unsigned clause,
			const uint8_t *data, size_t len, const struct d_fire *f,
			char **rec, size_t *rlen)
{
	struct orun r;
	bool ok;

	*rec = NULL;
	*rlen = 0;
	kspec_walk(&r, k, clause, data, len, f);
	/* a fault on the walk's path: a hole (the place reports it,
	 * d_kplan_kspec_fault()) */
	ok = !r.rv && r.fat < 0 &&
	     d_run_kspec(k->prog, clause, f, r.vals, true, NULL, rec, rlen);
	kspec_done(&r);
	return ok;
}

bool d_kplan_kspec_own(const struct d_kplan *k, unsigned clause,
		       const uint8_t *data, size_t len, const struct d_fire *f,
		       bool stepped, bool faulted, FILE *out)
{
	struct orun r;
	char *rec;
	size_t rlen;
	bool ok;

	kspec_walk(&r, k, clause, data, len, f);
	/* a fault on the walk's path: no record, but after a commit()
	 * (faulted), whose clause's record is its default line or JSON
	 * record alone, reading no value */
	ok = (faulted || (!r.rv && r.fat < 0)) &&
	     d_run_kspec(k->prog, clause, f, r.vals, stepped, out, &rec, &rlen);
	kspec_done(&r);
	return ok;
}

bool d_kplan_kspec_fault(const struct d_kplan *k, unsigned clause,
			 const uint8_t *data, size_t len,
			 const struct d_fire *f, int *action, uint64_t *addr)
{
	struct orun r;

	kspec_walk(&r, k, clause, data, len, f);
	*action = r.hact;
	*addr = r.haddr;
	kspec_done(&r);
	return r.hflt;
}
