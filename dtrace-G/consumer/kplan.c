// SPDX-License-Identifier: MIT
/*
 * kplan.c - which clauses of a D program a BPF program can run in the
 * traced thread, the instructions it runs for one probe, and folding
 * what it aggregated back into the program's aggregations (kplan.h).
 *
 * It is code generation, so it lives with the consumer, not with the D
 * language (dtrace-G/d/ knows nothing of the kernel: tests/run-layers.sh
 * checks).  It reads the D program's trees (../d/d_impl.h), as a
 * compiler's back end reads its front end's.
 *
 * A clause qualifies when it only aggregates integers:
 *
 *	probe /pred/ { @a[k1, ...] = count() | sum(e) | avg(e) | min(e)
 *		| max(e) | quantize(e) | lquantize(e, lo, hi[, step]); ... }
 *
 * where pred, the keys and e are integer constants, arg0..arg11, pid,
 * tid, id, casts, the unary and binary operators but assignment, / and
 * % by a constant (or a negated one) other than 0, && || ^^ and ?: with both branches of
 * one type; a key may also be probeprov, probemod, probefunc or
 * probename, which the kernel keeps as the probe's ID and the merge
 * turns back into the name.  Anything else (a variable, a string, a
 * function, printf(), a quantize() increment, more than UBPF_KMAXKEYS
 * keys) keeps the clause in user space: so does ustack() or ucaller,
 * whose stack only dtrace can unwind (ustack.c).  Such a clause reads nothing
 * another clause writes and writes nothing another clause reads but its
 * aggregations, so it gives the same result wherever it runs, before or
 * after the probe's other clauses: a probe may run some clauses in the
 * kernel and the rest from its record.  What breaks that is a clause of
 * a traced probe that reads or resets an aggregation while tracing goes
 * on (printa(), clear(), trunc()) or stops the run (exit(), after which
 * user space runs no more hits where the kernel would go on counting):
 * a program with one runs nothing in the kernel.  BEGIN and END run in
 * dtrace; the merge comes before END.
 *
 * Same bits.  The user-space evaluator (../d/run.c) computes as DTrace does:
 * 64 bits, the C type of a result deciding only signed or unsigned
 * comparison, division and >>, and narrowing only at casts (and keys);
 * the types follow from the tree alone (the ?: rule above sees to it),
 * so the plan carries them: a cast narrows (UBPF_K_NORM), the
 * operations leave their 64 bits (sz 8), as binop() and reg() do.  Keys keep their type per aggregating statement (the
 * kernel's key names the statement, not the aggregation), so 1 (int)
 * and 1 (long) stay two entries, as d_key_add() makes them.  A
 * statement without keys gets slots of the array kflat instead of hash
 * entries; a constant right operand rides in its operation (UBPF_KF_IMM),
 * already converted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"

/* An aggregating statement the kernel runs: kaggs' key names it. */
struct kstmt {
	const struct stmt *st;
	unsigned agg;
	uint8_t ksz[UBPF_KMAXKEYS], ksg[UBPF_KMAXKEYS];
	int kid[UBPF_KMAXKEYS]; /* B_PROBE* for a key naming the probe, or -1 */
	int slot;		/* without keys: its first slot in kflat, or -1 */
	unsigned nslots;
};

struct d_kplan {
	struct d_prog *prog;
	bool *ok; /* per clause */
	unsigned *first; /* per clause: its first struct kstmt */
	struct kstmt *st;
	unsigned nst;
	unsigned nflat; /* kflat slots given out */
};

/* ------------------------------------------------------------------ */
/* Which clauses */

/* An integer constant, maybe negated: its value. */
static bool const_of(const struct node *n, int64_t *v)
{
	if (n->op == N_UN && n->sub == '-' && n->a->op == N_INT) {
		*v = (int64_t)(0 - (uint64_t)n->a->ival);
		return true;
	}
	if (n->op != N_INT)
		return false;
	*v = n->ival;
	return true;
}

/* The type of an integer expression the kernel can compute; false if none. */
static bool ty(const struct node *n, uint8_t *sz, uint8_t *sg)
{
	uint8_t az, ag, bz, bg, cz, cg;

	switch (n->op) {
	case N_INT:
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_ARGN:
		*sz = 8;
		*sg = 1;
		return n->sub >= 0 && n->sub < D_MAXARGS;
	case N_BUILTIN:
		switch (d_builtins[n->sub].id) {
		case B_PID:
		case B_TID:
			*sz = 4;
			*sg = 1;
			return true;
		case B_ID:
			*sz = 4;
			*sg = 0;
			return true;
		}
		return false;
	case N_UN:
		if (!ty(n->a, &az, &ag))
			return false;
		if (n->sub == '!') {
			*sz = 4;
			*sg = 1;
			return true;
		}
		if (n->sub != '~' && n->sub != '-' && n->sub != '+')
			return false;
		*sz = az < 4 ? 4 : az;
		*sg = az < 4 ? 1 : ag;
		return true;
	case N_CAST:
		if (!ty(n->a, &az, &ag))
			return false;
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_BIN:
		if (n->ptr || !ty(n->a, &az, &ag) || !ty(n->b, &bz, &bg))
			return false; /* pointer arithmetic scales: mem.c */
		switch (n->sub) {
		case OP_SHL:
		case OP_SHR:
			*sz = az < 4 ? 4 : az;
			*sg = az < 4 ? 1 : ag;
			return true;
		case OP_EQ:
		case OP_NE:
		case '<':
		case '>':
		case OP_LE:
		case OP_GE:
			*sz = 4;
			*sg = 1;
			return true;
		case '+':
		case '-':
		case '*':
		case '&':
		case '|':
		case '^':
		case '/':
		case '%':
			break;
		default:
			return false;
		}
		/* run.c's common_type() */
		{
			unsigned sa = az < 4 ? 4 : az, sb = bz < 4 ? 4 : bz;
			bool ga = az < 4 ? true : ag, gb = bz < 4 ? true : bg;

			if (sa != sb) {
				*sz = (uint8_t)(sa > sb ? sa : sb);
				*sg = sa > sb ? ga : gb;
			} else {
				*sz = (uint8_t)sa;
				*sg = ga && gb;
			}
		}
		/* no division that could fault */
		if (n->sub == '/' || n->sub == '%') {
			int64_t v;

			return const_of(n->b, &v) && d_dv_int(v, *sz, *sg).i != 0;
		}
		return true;
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		if (!ty(n->a, &az, &ag) || !ty(n->b, &bz, &bg))
			return false;
		*sz = 4;
		*sg = 1;
		return true;
	case N_TERN:
		if (!ty(n->a, &az, &ag) || !ty(n->b, &bz, &bg) ||
		    !ty(n->c, &cz, &cg) || bz != cz || bg != cg)
			return false;
		*sz = bz;
		*sg = bg;
		return true;
	}
	return false;
}

/* probeprov and the like: the B_ id, else -1 */
static int ident(const struct node *n)
{
	if (n->op != N_BUILTIN)
		return -1;
	switch (d_builtins[n->sub].id) {
	case B_PROBEPROV:
	case B_PROBEMOD:
	case B_PROBEFUNC:
	case B_PROBENAME:
		return d_builtins[n->sub].id;
	}
	return -1;
}

/* Can the kernel run st?  Its key types into ks. */
static bool stmt_ok(const struct d_prog *p, const struct stmt *st,
		    struct kstmt *ks)
{
	const struct agg *a;
	uint8_t sz, sg;

	if (st->kind != S_AGG || st->nkeys > UBPF_KMAXKEYS)
		return false;
	a = &p->aggs[st->agg];
	switch (a->fn) {
	case AG_COUNT:
		break;
	case AG_SUM:
	case AG_AVG:
	case AG_MIN:
	case AG_MAX:
		if (st->nargs != 1)
			return false;
		break;
	case AG_QUANTIZE:
		if (st->nargs != 1) /* an increment */
			return false;
		break;
	case AG_LQUANTIZE:
		if (st->nargs > 4 || a->lq_levels >= UINT16_MAX)
			return false;
		break;
	default:
		return false;
	}
	if (st->nargs && !ty(st->args[0], &sz, &sg))
		return false;
	ks->st = st;
	ks->agg = st->agg;
	ks->slot = -1;
	ks->nslots = a->fn == AG_QUANTIZE     ? QZ_NBUCKETS
		     : a->fn == AG_LQUANTIZE ? a->lq_levels + 2u
					     : 1;
	for (unsigned i = 0; i < st->nkeys; i++) {
		ks->kid[i] = ident(st->keys[i]);
		ks->ksz[i] = 8;
		ks->ksg[i] = 0;
		if (ks->kid[i] < 0 &&
		    !ty(st->keys[i], &ks->ksz[i], &ks->ksg[i]))
			return false;
	}
	return true;
}

/* Does the clause fire only for dtrace:::BEGIN and dtrace:::END? */
static bool dtrace_only(const struct clause *c)
{
	if (c->spec != 0 && c->spec != 4)
		return false;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j], *name = strrchr(d, ':');
		unsigned colons = 0;

		name = name ? name + 1 : d;
		if (strcmp(name, "BEGIN") && strcmp(name, "END"))
			return false;
		for (const char *q = d; *q; q++)
			colons += *q == ':';
		if (colons == 3 && strncmp(d, ":", 1) &&
		    strncmp(d, "dtrace:", 7))
			return false;
	}
	return true;
}

/* printa(), clear(), trunc(), exit(), or what kplan.c does not know */
static bool stmts_stop(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		switch (v[i].kind) {
		case S_EXPR:
		case S_PRINTF:
		case S_TRACE:
		case S_TRACEMEM:
		case S_AGG:
			break;
		case S_IF:
			if (stmts_stop(v[i].body, v[i].nbody) ||
			    stmts_stop(v[i].els, v[i].nels))
				return true;
			break;
		default:
			return true;
		}
	}
	return false;
}

struct d_kplan *d_kplan_new(struct d_prog *p)
{
	struct d_kplan *k = xcalloc(1, sizeof(*k));
	unsigned ci, i;

	k->prog = p;
	k->ok = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->ok));
	k->first = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->first));
	for (ci = 0; ci < p->nclauses; ci++)
		if (!dtrace_only(&p->clauses[ci]) &&
		    stmts_stop(p->clauses[ci].stmts, p->clauses[ci].nstmts))
			return k;
	for (ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		uint8_t sz, sg;
		bool ok = c->nstmts > 0 && k->nst + c->nstmts <= UINT16_MAX &&
			  (!c->pred || ty(c->pred, &sz, &sg));

		k->first[ci] = k->nst;
		k->st = xrealloc(k->st, k->nst + c->nstmts + 1, sizeof(*k->st));
		for (i = 0; ok && i < c->nstmts; i++)
			ok = stmt_ok(p, &c->stmts[i], &k->st[k->nst + i]);
		if (!ok)
			continue;
		/* no keys: slots of kflat while they last */
		for (i = 0; i < c->nstmts; i++) {
			struct kstmt *ks = &k->st[k->nst + i];

			if (ks->st->nkeys || k->nflat + ks->nslots > UBPF_KFLAT)
				continue;
			ks->slot = (int)k->nflat;
			k->nflat += ks->nslots;
		}
		k->nst += c->nstmts;
		k->ok[ci] = true;
	}
	return k;
}

void d_kplan_free(struct d_kplan *k)
{
	if (!k)
		return;
	free(k->ok);
	free(k->first);
	free(k->st);
	free(k);
}

bool d_kplan_clause(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses && k->ok[clause];
}

unsigned d_kplan_nstmts(const struct d_kplan *k)
{
	return k->nst;
}

bool d_kplan_flat(const struct d_kplan *k, unsigned st, unsigned *slot,
		  unsigned *nslots)
{
	if (st >= k->nst || k->st[st].slot < 0)
		return false;
	*slot = (unsigned)k->st[st].slot;
	*nslots = k->st[st].nslots;
	return true;
}

/* ------------------------------------------------------------------ */
/* Instructions */

struct em {
	struct ubpf_kplan *pl;
	unsigned n;	   /* instructions */
	unsigned depth, max; /* stack */
	bool full;
	const struct d_probe *probe;
};

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

static void emit(struct em *m, const struct node *n)
{
	uint8_t sz = 8, sg = 1, az, ag, bz, bg;
	struct ubpf_kop *o;
	int op;

	(void)ty(n, &sz, &sg);
	switch (n->op) {
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
	case N_BUILTIN:
		if (d_builtins[n->sub].id == B_ID) {
			o = put(m, UBPF_K_CONST, 0, 1);
			o->imm = m->probe->id;
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
		(void)ty(n->a, &az, &ag);
		emit(m, n->a);
		norm(m, az, ag, sz, sg);
		return;
	case N_BIN:
		if (n->sub == OP_SHL || n->sub == OP_SHR) {
			emit(m, n->a);
			{
				int64_t bc = 0;
				bool bimm = const_of(n->b, &bc);

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
		(void)ty(n->a, &az, &ag);
		(void)ty(n->b, &bz, &bg);
		{
			int64_t bc = 0;
			bool bimm = const_of(n->b, &bc);
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
	}
	m->full = true; /* ty() refused it: not reached */
}

bool d_kplan_emit(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl)
{
	const struct clause *c;
	struct em m = {pl, pl->nops, 0, 0, false, probe};
	struct ubpf_kop *pred = NULL;
	unsigned i, j;

	if (!d_kplan_clause(k, clause))
		return false;
	c = &k->prog->clauses[clause];
	if (c->pred) {
		emit(&m, c->pred);
		if (!m.full && m.n > pl->nops &&
		    pl->ops[m.n - 1].op >= UBPF_K_EQ &&
		    pl->ops[m.n - 1].op <= UBPF_K_GEU) {
			/* the comparison and the test in one instruction */
			pred = &pl->ops[m.n - 1];
			pred->n = pred->op;
			pred->op = UBPF_K_PRED;
			m.depth--;
		} else {
			pred = put(&m, UBPF_K_PRED, 1, 0);
		}
	}
	for (i = 0; i < c->nstmts; i++) {
		const struct kstmt *ks = &k->st[k->first[clause] + i];
		const struct stmt *st = ks->st;
		const struct agg *a = &k->prog->aggs[st->agg];
		struct ubpf_kop *o;

		for (j = 0; j < st->nkeys; j++) {
			if (ks->kid[j] >= 0) {
				o = put(&m, UBPF_K_CONST, 0, 1);
				o->imm = probe->id;
			} else {
				emit(&m, st->keys[j]);
			}
			o = put(&m, UBPF_K_KEY, 1, 0);
			o->n = (uint8_t)j;
		}
		if (st->nargs)
			emit(&m, st->args[0]);
		o = put(&m, UBPF_K_AGG, st->nargs ? 1 : 0, 0);
		o->agg = (uint16_t)(k->first[clause] + i);
		if (ks->slot >= 0) {
			o->flags = UBPF_KF_FLAT;
			o->slot = (uint16_t)ks->slot;
		}
		switch (a->fn) {
		case AG_COUNT: o->n = UBPF_F_COUNT; break;
		case AG_SUM: o->n = UBPF_F_SUM; break;
		case AG_AVG: o->n = UBPF_F_AVG; break;
		case AG_MIN: o->n = UBPF_F_MIN; break;
		case AG_MAX: o->n = UBPF_F_MAX; break;
		case AG_QUANTIZE: o->n = UBPF_F_QUANTIZE; break;
		default:
			o->n = UBPF_F_LQUANTIZE;
			o->imm = a->lq_base;
			o->step = a->lq_step;
			o->levels = a->lq_levels;
			break;
		}
	}
	if (m.full || m.max > UBPF_KSTACK) {
		/* what was written past pl->nops is not part of the plan */
		return false;
	}
	if (pred)
		pred->jump = (uint16_t)m.n;
	pl->nops = (uint16_t)m.n;
	return true;
}

/* ------------------------------------------------------------------ */
/* Merging */

void d_kplan_merge(const struct d_kplan *k, const struct ubpf_kkey *key,
		   const struct ubpf_kval *vals, unsigned ncpus,
		   d_kplan_probe_fn probe_of, void *ctx)
{
	const struct kstmt *ks;
	struct dv keys[UBPF_KMAXKEYS];
	char kbuf[UBPF_KMAXKEYS][D_STRSIZE];
	struct agg *a;
	int64_t *d, sa = 0, sb = 0;
	unsigned i;

	if (key->agg >= k->nst)
		return;
	ks = &k->st[key->agg];
	a = &k->prog->aggs[ks->agg];
	for (i = 0; i < ks->st->nkeys; i++) {
		const struct d_probe *pr;
		const char *s = "";
		size_t max;

		if (ks->kid[i] < 0) {
			keys[i] = d_dv_int(key->k[i], ks->ksz[i], ks->ksg[i]);
			continue;
		}
		pr = probe_of(ctx, (unsigned)key->k[i]);
		if (pr)
			s = ks->kid[i] == B_PROBEPROV	? pr->prov
			    : ks->kid[i] == B_PROBEMOD	? pr->mod
			    : ks->kid[i] == B_PROBEFUNC ? pr->func
							: pr->name;
		/* as d_agg_update(): a key is at most strsize - 1 bytes */
		max = k->prog->strsize < sizeof(kbuf[i]) ? k->prog->strsize
							 : sizeof(kbuf[i]);
		snprintf(kbuf[i], max, "%s", s ? s : "");
		keys[i] = d_dv_str(kbuf[i]);
	}
	for (i = 0; i < ncpus; i++) {
		sa = (int64_t)((uint64_t)sa + (uint64_t)vals[i].a);
		sb = (int64_t)((uint64_t)sb + (uint64_t)vals[i].b);
	}
	d = d_agg_entry(a, keys, ks->st->nkeys)->data;
	switch (a->fn) {
	case AG_COUNT:
	case AG_SUM:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		break;
	case AG_AVG:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)sb);
		break;
	case AG_MIN:
	case AG_MAX:
		for (i = 0; i < ncpus; i++)
			if (vals[i].b && (a->fn == AG_MIN ? vals[i].a < d[0]
							  : vals[i].a > d[0]))
				d[0] = vals[i].a;
		break;
	case AG_QUANTIZE:
		if (key->bucket < QZ_NBUCKETS)
			d[key->bucket] += sa;
		break;
	case AG_LQUANTIZE:
		if (key->bucket <= a->lq_levels + 1u)
			d[key->bucket] += sa;
		break;
	}
}
