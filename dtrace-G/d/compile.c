// SPDX-License-Identifier: MIT
/*
 * compile.c - the compiler of the D language of `dtrace -n` / `dtrace -s`
 * (contract in dlang.h; the parts of dtrace-G/d/ are listed in
 * d_impl.h): the program level of the recursive-descent parser -
 * clauses, probe descriptions, pragmas, declarations (decl.c), and the
 * statements of a clause body, whose expressions expr.c parses - and
 * the accessors the consumer uses to enable what the program names;
 * the options (#pragma D option and -x) are option.c's.
 *
 * A compile unit is a -s script or the text of one -n/-P/-m/-f option;
 * d_compile() appends its clauses to the program, so several options
 * make one program with clauses in command-line order.  Probe
 * descriptions are taken as text (dt_lex.l's RGX_PSPEC characters) with
 * $macros substituted; the consumer matches them.  A description that
 * names one of DTrace's probes this tracer does not have (the sched
 * provider, proc's probes beyond create, exec-success and exit) is
 * refused here with the reason (unsupp_desc()), -Z or not: where DTrace
 * would trace it, nothing here could, and the compiler would otherwise
 * stop first at the probe's typed args[].  Statement actions are
 * numbered as DTrace numbers them, so a run-time error names the same
 * "action #N".
 *
 * The statement parser enforces DTrace's speculation rules in a
 * clause (spec_rules(), spec.c's comment) and notes the destructive
 * actions, which the consumer refuses without -w
 * (d_destructive_refused()).
 *
 * After parsing, check.c types every expression in two passes, and
 * records what each clause reads of a firing.  Variables get their kind
 * from the first assignment anywhere in the program.
 *
 * A compile error longjmps back to d_compile() (d_perr() in lex.c); the
 * clauses of a failed unit are not added, the program stays usable.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "d_impl.h"

const char *const d_agg_fn_names[] = {
	"count", "sum", "avg", "min", "max", "quantize", "lquantize",
	"stddev", "llquantize",
};

/* rand()'s seed: the clock, never 0 (xorshift's fixed point). */
static uint64_t now_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) |
	       1;
}

static struct d_prog *prog_new(void)
{
	struct d_prog *p = xcalloc(1, sizeof(*p));

	p->strsize = D_STRSIZE;
	p->ustackframes = 100;
	p->jstackframes = 50;
	p->stackindent = 14;
	p->nspec = 1;
	p->rand_state = now_seed();
	p->last_cpu = -1;
	p->last_clause = -1;
	p->flow_last_clause = -1;
	return p;
}


static void check_stmts_height(struct parser *ps, const struct stmt *v,
			       unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];

		d_check_height(ps, st->e, 1);
		for (unsigned j = 0; j < st->nargs; j++)
			d_check_height(ps, st->args[j], 1);
		for (unsigned j = 0; j < st->nkeys; j++)
			d_check_height(ps, st->keys[j], 1);
		check_stmts_height(ps, st->body, st->nbody);
		check_stmts_height(ps, st->els, st->nels);
	}
}

static void check_clause_height(struct parser *ps, const struct clause *c)
{
	d_check_height(ps, c->pred, 1);
	check_stmts_height(ps, c->stmts, c->nstmts);
}

/* What the statements read of a firing (d_clause_strargs/needs). */
static void stmts_reads(const struct stmt *v, unsigned n, struct clause *c)
{
	for (unsigned j = 0; j < n; j++) {
		const struct stmt *st = &v[j];
		unsigned k;

		c->strargs |= d_strargs_of(st->e);
		c->needs |= d_needs_of(st->e);
		for (k = 0; k < st->nargs; k++) {
			c->strargs |= d_strargs_of(st->args[k]);
			c->needs |= d_needs_of(st->args[k]);
		}
		for (k = 0; k < st->nkeys; k++) {
			c->strargs |= d_strargs_of(st->keys[k]);
			c->needs |= d_needs_of(st->keys[k]);
		}
		/* %A names a user address as of the hit (stack.c) */
		for (k = 0; st->kind == S_PRINTF && st->pf && k < st->pf->nseg;
		     k++)
			if (st->pf->seg[k].conv == 'A')
				c->needs |= D_NEED_UNAME;
		stmts_reads(st->body, st->nbody, c);
		stmts_reads(st->els, st->nels, c);
	}
}


/* ------------------------------------------------------------------ */
/* Statements and clauses */

static unsigned agg_lookup(struct d_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->naggs; i++)
		if (strcmp(p->aggs[i].name, name) == 0)
			return i;
	p->aggs = xpush_room(p->aggs, p->naggs, sizeof(*p->aggs));
	memset(&p->aggs[i], 0, sizeof(p->aggs[i]));
	p->aggs[i].name = xstrdup(name);
	p->aggs[i].varid = i;
	p->aggs[i].nkeys = -1;
	p->aggs[i].normal = 1;
	p->naggs++;
	return i;
}

static const char *agg_display(const struct agg *a)
{
	return a->name[0] ? a->name : "_";
}

/* An aggregating function's parameter n: an integer constant expression
 * (d_const_int()), or an error naming it */
static int64_t const_int(struct parser *ps, struct node *n, const char *what)
{
	int64_t v;

	if (!d_const_int(n, &v))
		d_perrt(ps, D_PROTO_ARG, n->line, n->col,
			"%s must be an integer constant", what);
	return v;
}

/*
 * llquantize(value, factor, low, high, steps [, incr]): constants with
 * factor >= 2, low < high, steps a multiple of factor that divides a
 * power of factor, and factor^(high+1) within 64 bits.
 */
static void llq_params(struct parser *ps, struct agg *a, const struct tok *ft,
		       struct node **fargs)
{
	int64_t factor = const_int(ps, fargs[1], "llquantize( ) factor");
	int64_t low = const_int(ps, fargs[2], "llquantize( ) low magnitude");
	int64_t high = const_int(ps, fargs[3], "llquantize( ) high magnitude");
	int64_t steps = const_int(ps, fargs[4], "llquantize( ) steps");
	int64_t v, m;

	if (factor < 2 || factor > UINT16_MAX)
		d_perrt(ps, D_LLQUANT_FACTORVAL, fargs[1]->line, fargs[1]->col,
		       "llquantize( ) factor (argument #2) must be between 2 "
		       "and %d", UINT16_MAX);
	if (low < 0 || low > UINT16_MAX)
		d_perrt(ps, D_LLQUANT_LOWVAL, fargs[2]->line, fargs[2]->col,
		       "llquantize( ) low magnitude (argument #3) must be "
		       "between 0 and %d", UINT16_MAX);
	if (high <= low || high > UINT16_MAX)
		d_perrt(ps, D_LLQUANT_HIGHVAL, fargs[3]->line, fargs[3]->col,
		       "llquantize( ) high magnitude (argument #4) must be "
		       "greater than the low magnitude (argument #3)");
	if (steps < factor || steps > UINT16_MAX || steps % factor)
		d_perrt(ps, D_LLQUANT_FACTORNSTEPS, fargs[4]->line, fargs[4]->col,
		       "llquantize( ) steps (argument #5) must be a multiple "
		       "of the factor (argument #2)");
	for (v = factor; v < steps; v *= factor)
		;
	if (v % steps)
		d_perrt(ps, D_LLQUANT_FACTOREVEN, fargs[4]->line, fargs[4]->col,
		       "llquantize( ) steps (argument #5) must evenly divide "
		       "a power of the factor (argument #2)");
	for (v = 1, m = 0; m <= high; m++) {
		if (v > INT64_MAX / factor)
			d_perrt(ps, D_LLQUANT_MAGTOOBIG, fargs[3]->line, fargs[3]->col,
			       "llquantize( ) factor (argument #2) to the "
			       "power of the high magnitude (argument #4) "
			       "plus one overflows 64 bits");
		v *= factor;
	}
	if (a->defined && (a->llq_factor != factor || a->llq_low != low ||
			   a->llq_high != high || a->llq_nsteps != steps))
		d_perrt(ps, D_AGG_REDEF, ft->line, ft->col,
		       "@%s: llquantize( ) parameters differ from its "
		       "earlier definition", a->name[0] ? a->name : "_");
	a->llq_factor = (uint16_t)factor;
	a->llq_low = (uint16_t)low;
	a->llq_high = (uint16_t)high;
	a->llq_nsteps = (uint16_t)steps;
	a->llq_nbuckets = d_llq_nbuckets(a->llq_factor, a->llq_low,
					 a->llq_high, a->llq_nsteps);
}

static void parse_agg_stmt(struct parser *ps, struct stmt *st)
{
	struct d_prog *p = ps->prog;
	struct tok at = ps->tk, ft;
	struct agg *a;
	unsigned fi, nfargs, i;
	struct node **fargs;
	int fn = -1;

	st->kind = S_AGG;
	st->agg = agg_lookup(p, at.s);
	d_lex(ps);
	if (d_is_op(ps, '[')) {
		d_lex(ps);
		st->keys = d_parse_args(ps, &st->nkeys, ']');
		if (!st->nkeys)
			d_syntax_error(ps);
	}
	if (!d_is_op(ps, '='))
		d_syntax_error(ps);
	d_lex(ps);
	ft = ps->tk;
	if (ft.t != TK_ID)
		d_perrt(ps, D_AGG_FUNC, ft.line, ft.col, "@%s must be assigned the result "
					  "of an aggregating function",
		       at.s[0] ? at.s : "_");
	for (fi = 0; fi < sizeof(d_agg_fn_names) / sizeof(d_agg_fn_names[0]); fi++)
		if (strcmp(d_agg_fn_names[fi], ft.s) == 0)
			fn = (int)fi;
	if (fn < 0)
		d_perrt(ps, D_AGG_FUNC, ft.line, ft.col,
		       "%s( ) is not an aggregating function", ft.s);
	d_lex(ps);
	d_expect(ps, '(');
	fargs = d_parse_args(ps, &nfargs, ')');
	{
		static const unsigned lo[] = { 0, 1, 1, 1, 1, 1, 3, 1, 5 };
		static const unsigned hi[] = { 0, 1, 1, 1, 1, 2, 5, 1, 6 };

		if (nfargs < lo[fn] || nfargs > hi[fn])
			d_perrt(ps, D_PROTO_LEN, ft.line, ft.col,
			       "%s( ) prototype mismatch: %u args passed, %u "
			       "expected", ft.s, nfargs, lo[fn]);
	}
	a = &p->aggs[st->agg];
	if (a->defined && a->fn != fn)
		d_perrt(ps, D_AGG_REDEF, ft.line, ft.col,
		       "@%s: aggregation redefined: previously %s( ), now %s( )",
		       agg_display(a), d_agg_fn_names[a->fn], ft.s);
	if (a->defined && a->nkeys != (int)st->nkeys)
		d_perrt(ps, D_AGG_REDEF, at.line, at.col,
		       "@%s: key signature mismatch: %d keys before, %u now",
		       agg_display(a), a->nkeys, st->nkeys);
	if (fn == AG_LQUANTIZE) {
		int64_t base = const_int(ps, fargs[1], "lquantize( ) lower bound");
		int64_t high = const_int(ps, fargs[2], "lquantize( ) upper bound");
		int64_t step = nfargs > 3 ? const_int(ps, fargs[3],
						      "lquantize( ) step")
					  : 1;
		int64_t levels;

		if (step <= 0 || step > UINT16_MAX)
			d_perrt(ps, D_LQUANT_STEPVAL, ft.line, ft.col,
			       "lquantize( ) step must be between 1 and %d",
			       UINT16_MAX);
		if (base < INT32_MIN || base > INT32_MAX || high <= base)
			d_perrt(ps, D_LQUANT_MISMATCH, ft.line, ft.col,
			       "lquantize( ) upper bound must be greater than "
			       "lower bound");
		levels = (high - base) / step;
		if (levels < 1 || levels > UINT16_MAX)
			d_perrt(ps, D_LQUANT_STEPSMALL, ft.line, ft.col,
			       "lquantize( ) step must evenly divide the range "
			       "into at most %d levels", UINT16_MAX);
		if (a->defined && (a->lq_base != (int32_t)base ||
				   a->lq_step != (uint16_t)step ||
				   a->lq_levels != (uint16_t)levels))
			d_perrt(ps, D_AGG_REDEF, ft.line, ft.col,
			       "@%s: lquantize( ) parameters differ from its "
			       "earlier definition", agg_display(a));
		a->lq_base = (int32_t)base;
		a->lq_step = (uint16_t)step;
		a->lq_levels = (uint16_t)levels;
	}
	if (fn == AG_LLQUANTIZE)
		llq_params(ps, a, &ft, fargs);
	a->fn = fn;
	a->nkeys = (int)st->nkeys;
	a->defined = true;
	/* args: the value expression, and quantize's increment */
	st->args = fargs;
	st->nargs = nfargs;
	st->action = ps->action;
	ps->action += (int)st->nkeys + 1;
	for (i = 0; i < st->nkeys; i++)
		d_check(ps, st->keys[i], false);
	if (nfargs)
		d_check(ps, fargs[0], false);
}

static void __attribute__((noreturn))
agg_arg(struct parser *ps, struct node *n, const char *func, unsigned argn)
{
	d_perrt(ps, D_PROTO_ARG, n->line, n->col,
	       "%s( ) argument #%u is incompatible with prototype:\n"
	       "\tprototype: aggregation\n\t argument: %s",
	       func, argn, d_kind_name(n->kind));
}

/* An aggregation reference as an action argument: @name */
static unsigned parse_aggref(struct parser *ps, const char *func,
			     unsigned argn)
{
	struct d_prog *p = ps->prog;
	struct tok t = ps->tk;
	unsigned i;

	if (t.t != TK_AGG) {
		struct node *n = d_parse_assign(ps);

		d_check(ps, n, false);
		agg_arg(ps, n, func, argn);
	}
	d_lex(ps);
	for (i = 0; i < p->naggs; i++)
		if (strcmp(p->aggs[i].name, t.s) == 0 && p->aggs[i].defined)
			return i;
	d_perrt(ps, D_PRINTA_AGGBAD, t.line, t.col, "undefined aggregation: @%s",
	       t.s[0] ? t.s : "_");
}

/*
 * An action taking exactly want arguments, the first its expression:
 * DTrace's prototype error, located at the action's name, for others.
 */
static void action_args(struct parser *ps, struct stmt *st,
			const struct tok *t, const char *name, unsigned want)
{
	st->args = d_parse_args(ps, &st->nargs, ')');
	if (st->nargs != want)
		d_perrt(ps, D_PROTO_LEN, t->line, t->col,
		       "%s( ) prototype mismatch: %u args passed, %u "
		       "expected", name, st->nargs, want);
	st->e = want ? st->args[0] : NULL;
	st->action = ps->action++;
}

static void parse_action(struct parser *ps, struct stmt *st)
{
	struct tok t = ps->tk;
	const char *name = t.s;

	d_lex(ps);
	d_expect(ps, '(');
	if (strcmp(name, "printf") == 0 || strcmp(name, "system") == 0) {
		st->kind = name[1] == 'r' ? S_PRINTF : S_SYSTEM;
		if (ps->tk.t != TK_STR)
			d_perrt(ps, D_PROTO_ARG, ps->tk.line, ps->tk.col,
			       "%s( ) argument #1 is incompatible with "
			       "prototype:\n\tprototype: string constant",
			       name);
		st->pf = d_pf_create(ps, ps->tk.s, &t, name);
		if (st->kind == S_SYSTEM)
			ps->prog->uses_destructive = true;
		d_lex(ps);
		if (d_is_op(ps, ',')) {
			d_lex(ps);
			st->args = d_parse_args(ps, &st->nargs, ')');
		} else {
			d_expect(ps, ')');
		}
		st->action = ps->action;
		ps->action += st->nargs ? (int)st->nargs : 1;
	} else if (strcmp(name, "printa") == 0) {
		st->kind = S_PRINTA;
		if (ps->tk.t == TK_STR) {
			st->pf = d_pf_create(ps, ps->tk.s, &t, "printa");
			d_lex(ps);
			d_expect(ps, ',');
		}
		st->agg = parse_aggref(ps, "printa", st->pf ? 2 : 1);
		st->aggv = d_pool_grow(ps, NULL, 0, sizeof(*st->aggv));
		st->aggv[st->naggv++] = st->agg;
		while (d_is_op(ps, ',')) {
			struct tok at;
			unsigned ag;

			d_lex(ps);
			at = ps->tk;
			ag = parse_aggref(ps, "printa",
					  st->naggv + (st->pf ? 2 : 1));
			if (ps->prog->aggs[ag].nkeys !=
			    ps->prog->aggs[st->agg].nkeys)
				d_perrt(ps, D_PRINTA_AGGPROTO, at.line, at.col,
				       "printa( ) argument #%u: @%s has %d "
				       "keys, @%s %d: the aggregations of one "
				       "printa( ) must have the same keys",
				       st->naggv + (st->pf ? 2 : 1),
				       agg_display(&ps->prog->aggs[ag]),
				       ps->prog->aggs[ag].nkeys,
				       agg_display(&ps->prog->aggs[st->agg]),
				       ps->prog->aggs[st->agg].nkeys);
			st->aggv = d_pool_grow(ps, st->aggv, st->naggv,
					       sizeof(*st->aggv));
			st->aggv[st->naggv++] = ag;
		}
		d_expect(ps, ')');
		st->action = ps->action;
		ps->action += (int)st->naggv;
	} else if (strcmp(name, "clear") == 0) {
		st->kind = S_CLEAR;
		st->agg = parse_aggref(ps, "clear", 1);
		d_expect(ps, ')');
		st->action = ps->action++;
	} else if (strcmp(name, "trunc") == 0) {
		st->kind = S_TRUNC;
		st->agg = parse_aggref(ps, "trunc", 1);
		if (d_is_op(ps, ',')) {
			d_lex(ps);
			st->e = d_parse_assign(ps);
		}
		d_expect(ps, ')');
		st->action = ps->action;
		ps->action += 2;
	} else if (strcmp(name, "normalize") == 0 ||
		   strcmp(name, "denormalize") == 0) {
		bool norm = name[0] == 'n';

		st->kind = norm ? S_NORMALIZE : S_DENORMALIZE;
		st->agg = parse_aggref(ps, name, 1);
		if (norm) {
			d_expect(ps, ',');
			st->e = d_parse_assign(ps);
		}
		d_expect(ps, ')');
		st->action = ps->action;
		ps->action += norm ? 2 : 1;
	} else if (strcmp(name, "speculate") == 0 ||
		   strcmp(name, "commit") == 0 ||
		   strcmp(name, "discard") == 0) {
		st->kind = name[0] == 's' ? S_SPECULATE
			   : name[0] == 'c' ? S_COMMIT : S_DISCARD;
		action_args(ps, st, &t, name, 1);
	} else if (strcmp(name, "stop") == 0 || strcmp(name, "raise") == 0) {
		unsigned want = name[0] == 'r';

		st->kind = want ? S_RAISE : S_STOP;
		action_args(ps, st, &t, name, want);
		ps->prog->uses_destructive = true;
	} else if (strcmp(name, "tracemem") == 0) {
		st->kind = S_TRACEMEM;
		st->args = d_parse_args(ps, &st->nargs, ')');
		if (st->nargs < 2 || st->nargs > 3)
			d_perrt(ps, D_PROTO_LEN, t.line, t.col,
			       "tracemem( ) prototype mismatch: %u args "
			       "passed, 2 or 3 expected", st->nargs);
		st->e = st->args[0];
		st->action = ps->action++;
	} else if (strcmp(name, "setopt") == 0) {
		st->kind = S_SETOPT;
		st->args = d_parse_args(ps, &st->nargs, ')');
		if (st->nargs < 1 || st->nargs > 2)
			d_perrt(ps, D_PROTO_LEN, t.line, t.col,
			       "setopt( ) prototype mismatch: %u args passed, "
			       "1 or 2 expected", st->nargs);
		for (unsigned i = 0; i < st->nargs; i++)
			if (st->args[i]->op != N_STR)
				d_perrt(ps, D_PROTO_ARG, st->args[i]->line, st->args[i]->col,
				       "setopt( ) argument #%u must be a "
				       "string constant", i + 1);
		st->action = ps->action++;
	} else {
		st->kind = strcmp(name, "trace") == 0 ? S_TRACE : S_EXIT;
		action_args(ps, st, &t, name, 1);
	}
}

static void parse_stmt(struct parser *ps, struct stmt *st);

/*
 * DTrace's rules for speculations in one clause, in textual order
 * (spec.c): speculate() once, before any data-recording action; no
 * aggregation, exit(), commit() or discard() after it; no
 * data-recording action with commit().
 */
static void spec_rules(struct parser *ps, const struct stmt *st)
{
	const char *what = NULL;
	int tag = D_UNKNOWN;

	switch (st->kind) {
	case S_SPECULATE:
		if (ps->cl_speculates) {
			what = "speculate( ) may appear only once in a clause";
			tag = D_SPEC_SPEC;
		} else if (ps->cl_commits) {
			what = "speculate( ) may not follow commit( )";
			tag = D_SPEC_COMM;
		} else if (ps->cl_records) {
			what = "speculate( ) must come before the clause's "
			       "data-recording actions";
			tag = D_SPEC_DREC;
		}
		ps->cl_speculates = true;
		break;
	case S_COMMIT:
	case S_DISCARD:
		if (ps->cl_speculates) {
			what = st->kind == S_COMMIT
				       ? "commit( ) may not follow speculate( )"
				       : "discard( ) may not follow speculate( )";
			tag = D_COMM_SPEC;
		} else if (st->kind == S_COMMIT && ps->cl_records) {
			what = "commit( ) may not share a clause with "
			       "data-recording actions";
			tag = D_COMM_DREC;
		}
		if (st->kind == S_COMMIT)
			ps->cl_commits = true;
		break;
	case S_AGG:
		if (ps->cl_speculates) {
			what = "aggregating actions may not follow speculate( )";
			tag = D_AGG_SPEC;
		}
		break;
	case S_EXIT:
		if (ps->cl_speculates) {
			what = "exit( ) may not follow speculate( )";
			tag = D_EXIT_SPEC;
		}
		ps->cl_records = true;
		break;
	case S_SYSTEM:
	case S_STOP:
	case S_RAISE:
		if (ps->cl_speculates) {
			what = "destructive actions may not follow "
			       "speculate( )";
			tag = D_ACT_SPEC;
		} else if (st->kind == S_SYSTEM && ps->cl_commits) {
			what = "data-recording actions may not share a clause "
			       "with commit( )";
			tag = D_DREC_COMM;
		}
		if (st->kind == S_SYSTEM)
			ps->cl_records = true;
		break;
	default:
		if (ps->cl_commits) {
			what = "data-recording actions may not share a clause "
			       "with commit( )";
			tag = D_DREC_COMM;
		}
		ps->cl_records = true;
		break;
	}
	if (what)
		d_perrt(ps, tag, st->line, st->col, "%s", what);
}

/*
 * Statements up to the '}' that closes a clause body or a block, which
 * stays current.  A statement ends at ';' or before the '}'; an if
 * statement ends with its body.
 */
static struct stmt *parse_stmts(struct parser *ps, unsigned *np)
{
	struct stmt *v = NULL;
	unsigned n = 0;

	for (;;) {
		while (d_is_op(ps, ';'))
			d_lex(ps);
		if (d_is_op(ps, '}'))
			break;
		if (ps->tk.t == TK_EOF)
			d_syntax_error(ps);
		v = d_pool_grow(ps, v, n, sizeof(*v));
		parse_stmt(ps, &v[n]);
		if (v[n++].kind != S_IF && !d_is_op(ps, ';') &&
		    !d_is_op(ps, '}'))
			d_syntax_error(ps);
	}
	*np = n;
	return v;
}

/* The body of an if or an else: a block, or one statement. */
static struct stmt *parse_body(struct parser *ps, unsigned *np)
{
	struct stmt *v;

	if (d_is_op(ps, '{')) {
		d_lex(ps);
		v = parse_stmts(ps, np);
		d_lex(ps); /* the '}' */
		return v;
	}
	v = d_pool_grow(ps, NULL, 0, sizeof(*v));
	parse_stmt(ps, v);
	*np = 1;
	if (v->kind != S_IF) {
		/* as in a clause body, the last ';' before '}' may go */
		if (d_is_op(ps, ';'))
			d_lex(ps);
		else if (!d_is_op(ps, '}'))
			d_syntax_error(ps);
	}
	return v;
}

/*
 * if (expr) body [else body]: the condition is one action, as a
 * predicate is; else if is an else whose body is an if statement.
 * Nesting counts in the parser's depth, so the recursive checker and
 * evaluator stay within D_MAXDEPTH.
 */
static void parse_if(struct parser *ps, struct stmt *st)
{
	struct tok t = ps->tk;

	if (++ps->sdepth > D_MAXDEPTH)
		d_perrt(ps, D_NEST_DEPTH, t.line, t.col,
		       "statements nested too deeply (more than %d levels)",
		       D_MAXDEPTH);
	st->kind = S_IF;
	d_lex(ps);
	d_expect(ps, '(');
	st->e = d_parse_expr(ps);
	d_expect(ps, ')');
	st->action = ps->action++;
	st->body = parse_body(ps, &st->nbody);
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "else") == 0) {
		d_lex(ps);
		st->els = parse_body(ps, &st->nels);
	}
	ps->sdepth--;
}

static void parse_stmt(struct parser *ps, struct stmt *st)
{
	memset(st, 0, sizeof(*st));
	st->line = ps->tk.line;
	st->col = ps->tk.col;
	if (ps->tk.t == TK_AGG) {
		parse_agg_stmt(ps, st);
		spec_rules(ps, st);
		return;
	}
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "if") == 0) {
		parse_if(ps, st);
		return;
	}
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "else") == 0)
		d_perrt(ps, D_SYNTAX, ps->tk.line, ps->tk.col, "else without if");
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "typedef") == 0)
		d_perrt(ps, D_SYNTAX, ps->tk.line, ps->tk.col,
			"typedef inside a probe clause: declare the type "
			"outside the clauses");
	if (ps->tk.t == TK_ID && d_is_action_name(ps->tk.s)) {
		struct lexpos save = ps->pos;
		struct tok savet = ps->tk;

		d_lex(ps);
		if (d_is_op(ps, '(')) {
			ps->pos = save;
			ps->tk = savet;
			parse_action(ps, st);
			spec_rules(ps, st);
			return;
		}
		ps->pos = save;
		ps->tk = savet;
	}
	st->kind = S_EXPR;
	st->e = d_parse_expr(ps);
	if (d_stack_stmt(st->e)) /* ustack(); records it, as trace() */
		st->kind = S_TRACE;
	st->action = ps->action++;
}

/* Probe description characters (dt_lex.l's RGX_PSPEC, plus macros). */
static bool desc_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '*' || c == '?' ||
	       c == '[' || c == ']' || c == '\\' || c == ':' || c == '$' ||
	       c == '-' || c == '!' || c == '`' || c == '+' || c == '~';
}

/* The text of one description with $macros substituted. */
static char *subst_desc(struct parser *ps, const char *s, size_t n, int line,
			int col)
{
	struct sbuf *sb = &ps->tmp;
	size_t i = 0;

	sb->len = 0;
	while (i < n) {
		if (s[i] == '$') {
			char name[64], buf[64];
			size_t k = 0;
			bool isint;
			const char *txt;

			i++;
			if (i < n && s[i] == '$')
				i++;
			while (i < n && (isalnum((unsigned char)s[i]) ||
					 s[i] == '_') &&
			       k < sizeof(name) - 1) {
				name[k++] = s[i++];
				/* $1x: one digit only after a digit */
				if (isdigit((unsigned char)name[0]) &&
				    !isdigit((unsigned char)s[i]))
					break;
			}
			name[k] = '\0';
			if (!k)
				d_perrt(ps, D_SYNTAX, line, col,
				       "syntax error near \"$\" in probe "
				       "description");
			txt = d_macro_text(ps, name, &isint, buf, sizeof(buf),
					   line, col);
			d_sb_puts(sb, txt);
		} else {
			d_sb_add(sb, &s[i], 1);
			i++;
		}
	}
	return d_pool_strndup(ps, sb->b ? sb->b : "", sb->len);
}

/*
 * DTrace's probes, by provider and name, that this tracer does not have,
 * and why (name NULL: every probe of the provider).  A description whose
 * provider field is one of these names, literally, and whose name field
 * is one of its names, literally (or anything, for a NULL one), is
 * refused: DTrace would trace it.  A pattern (proc:::, proc:::signal-*)
 * matches the probes that exist here, as any description does.
 */
static const struct {
	const char *prov, *name, *why;
} unsupp_probes[] = {
	{ "sched", NULL,
	  "the sched provider is the Solaris dispatcher's (enqueue, "
	  "dequeue, on-cpu, off-cpu, sleep, wakeup, ...), with its "
	  "lwpsinfo_t, psinfo_t and cpuinfo_t as arguments; this tracer has "
	  "no sched provider" },
#define PROC_HAS "the proc provider here has create, exec-success and exit"
	{ "proc", "signal-send",
	  "its arguments are the receiving thread's lwpsinfo_t and "
	  "process's psinfo_t and the signal, which no hit takes here; "
	  PROC_HAS },
	{ "proc", "signal-handle",
	  "it fires as a thread takes a signal, with its siginfo_t and "
	  "handler, which no hit takes here; " PROC_HAS },
	{ "proc", "signal-discard",
	  "its arguments are the discarding thread's lwpsinfo_t and "
	  "process's psinfo_t, which no hit takes here; " PROC_HAS },
	{ "proc", "signal-clear",
	  "it fires as a thread's sigwait() clears a pending signal, which "
	  "no hit sees here; " PROC_HAS },
	{ "proc", "exec",
	  "it fires before an exec with the path, which no hit takes here; "
	  PROC_HAS },
	{ "proc", "exec-failure",
	  "it fires after a failed exec with the error, which no hit takes "
	  "here; " PROC_HAS },
	{ "proc", "fault",
	  "it fires on a machine fault with its siginfo_t, which no hit "
	  "takes here; " PROC_HAS },
	{ "proc", "lwp-create", "threads are not traced by it here; " PROC_HAS },
	{ "proc", "lwp-start", "threads are not traced by it here; " PROC_HAS },
	{ "proc", "lwp-exit", "threads are not traced by it here; " PROC_HAS },
	{ "proc", "start",
	  "it fires in a new process before its first instruction, which no "
	  "hit sees here; " PROC_HAS },
#undef PROC_HAS
};

/*
 * Refuse a description of one of unsupp_probes[].  spec says the field
 * the text's last field is (1 provider ... 4 name, 0 as 4), the ones
 * before it standing to its left, as DTrace reads -P, -m, -f and -n.
 */
static void unsupp_desc(struct parser *ps, const char *d, int spec, int line,
			int col)
{
	const char *f[4] = { "", "", "", "" }, *q;
	size_t len[4] = { 0, 0, 0, 0 };
	int nf = 1, last = spec >= 1 && spec <= 4 ? spec - 1 : 3, k;

	for (q = d; *q; q++)
		if (*q == ':')
			nf++;
	if (nf > last + 1)
		return; /* too many fields: the consumer says so */
	k = last - nf + 1;
	f[k] = d;
	for (q = d;; q++)
		if (*q == ':' || !*q) {
			len[k] = (size_t)(q - f[k]);
			if (!*q)
				break;
			f[++k] = q + 1;
		}
	for (size_t i = 0; i < sizeof(unsupp_probes) / sizeof(unsupp_probes[0]);
	     i++) {
		const char *pv = unsupp_probes[i].prov, *nm = unsupp_probes[i].name;

		if (len[0] != strlen(pv) || strncmp(f[0], pv, len[0]) != 0)
			continue;
		if (nm && (len[3] != strlen(nm) || strncmp(f[3], nm, len[3])))
			continue;
		d_perrt(ps, D_IDENT_UNSUPP, line, col,
			"probe description %s is not supported: %s", d,
			unsupp_probes[i].why);
	}
}

static void parse_pragma(struct parser *ps)
{
	struct lexpos *l = &ps->pos;
	int line = l->line, col = l->col;
	const char *s = l->p, *e;
	char buf[512], line_text[512], *w[4] = { 0 }, *save = NULL, *tokp;
	unsigned nw = 0;
	size_t n;

	while (*l->p && *l->p != '\n')
		d_lx_adv(l);
	e = l->p;
	n = (size_t)(e - s);
	if (n >= sizeof(buf))
		d_perrt(ps, D_PRAGMA_MALFORM, line, col, "#pragma line too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	memcpy(line_text, buf, n + 1);
	if (line == 1 && buf[0] == '#' && buf[1] == '!')
		return; /* interpreter line */
	for (tokp = strtok_r(buf + 1, " \t\r", &save); tokp && nw < 4;
	     tokp = strtok_r(NULL, " \t\r", &save))
		w[nw++] = tokp;
	if (nw >= 1 && (strcmp(w[0], "pragma") != 0))
		d_perrt(ps, D_PRAGCTL_INVAL, line, col, "invalid control directive: #%s", w[0]);
	if (nw < 2)
		d_perrt(ps, D_PRAGMA_MALFORM, line, col, "malformed #pragma");
	if (strcmp(w[1], "D") != 0)
		return; /* other pragmas are ignored, as in C */
	if (nw < 3)
		d_perrt(ps, D_PRAGMA_MALFORM, line, col, "malformed #pragma D");
	if (strcmp(w[2], "option") == 0) {
		char *eq, emsg[160];

		if (nw != 4)
			d_perrt(ps, D_PRAGMA_MALFORM, line, col,
			       "malformed #pragma option <option>=<val>");
		eq = strchr(w[3], '=');
		if (eq)
			*eq++ = '\0';
		if (d_option_set(ps->prog, w[3], eq, emsg, sizeof(emsg)) < 0)
			d_perrt(ps, D_PRAGMA_OPTSET, line, col, "%s", emsg);
		return;
	}
	if (strcmp(w[2], "error") == 0) {
		/* the program refuses itself: the rest of the line says why */
		const char *why = line_text + (w[2] - buf) + 5;

		while (*why == ' ' || *why == '\t')
			why++;
		d_perrt(ps, D_PRAGERR, line, col, "#pragma error: %s", why);
	}
	if (strcmp(w[2], "attributes") == 0 || strcmp(w[2], "binding") == 0 ||
	    strcmp(w[2], "depends_on") == 0)
		return;
	d_perrt(ps, D_PRAGMA_INVAL, line, col, "invalid D pragma: %s", w[2]);
}

static bool stmts_record(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (v[i].kind == S_IF) {
			if (stmts_record(v[i].body, v[i].nbody) ||
			    stmts_record(v[i].els, v[i].nels))
				return true;
		} else if (v[i].kind != S_EXPR && v[i].kind != S_AGG &&
			   v[i].kind != S_STOP && v[i].kind != S_RAISE) {
			return true;
		}
	}
	return false;
}

static bool clause_records(const struct clause *c)
{
	return !c->nstmts || stmts_record(c->stmts, c->nstmts);
}

/*
 * Clause c's flat list (struct clause's flat): its statements, then the
 * branches of each if in the list's order, each if's body and else
 * together, so an if's branches are two ranges of it and the statements
 * of the clause's top keep their indices.
 */
static unsigned stmts_count(const struct stmt *v, unsigned n)
{
	unsigned r = n;

	for (unsigned i = 0; i < n; i++)
		if (v[i].kind == S_IF)
			r += stmts_count(v[i].body, v[i].nbody) +
			     stmts_count(v[i].els, v[i].nels);
	return r;
}

static void flatten(struct parser *ps, struct clause *c)
{
	unsigned n = stmts_count(c->stmts, c->nstmts);

	c->flat = d_ar_alloc(&ps->prog->pool, (n ? n : 1) * sizeof(*c->flat));
	c->nflat = 0;
	for (unsigned i = 0; i < c->nstmts; i++) {
		c->stmts[i].fi = c->nflat;
		c->stmts[i].fup = c->stmts[i].fbr = 0;
		c->flat[c->nflat++] = &c->stmts[i];
	}
	for (unsigned q = 0; q < c->nflat; q++) {
		struct stmt *st = (struct stmt *)c->flat[q];

		if (st->kind != S_IF)
			continue;
		st->fbody = c->nflat;
		for (unsigned i = 0; i < st->nbody + st->nels; i++) {
			struct stmt *b = i < st->nbody
						 ? &st->body[i]
						 : &st->els[i - st->nbody];

			if (i == st->nbody)
				st->fels = c->nflat;
			b->fi = c->nflat;
			b->fup = q + 1;
			b->fbr = i >= st->nbody;
			c->flat[c->nflat++] = b;
		}
		if (!st->nels)
			st->fels = c->nflat;
		st->fend = c->nflat;
	}
}

static void add_clause(struct parser *ps, struct clause *c)
{
	check_clause_height(ps, c);
	ps->cl = xpush_room(ps->cl, ps->ncl, sizeof(*ps->cl));
	ps->cl[ps->ncl++] = *c;
}

static void parse_clause(struct parser *ps, struct clause *c)
{
	struct lexpos *l = &ps->pos;
	char **descs = NULL;
	unsigned nd = 0;

	memset(c, 0, sizeof(*c));
	c->spec = ps->o ? ps->o->spec : 0;
	ps->action = 1;
	ps->cl_records = ps->cl_speculates = ps->cl_commits = false;
	for (;;) {
		const char *s;
		int line, col;

		d_lx_skip(ps);
		s = l->p;
		line = l->line;
		col = l->col;
		while (*l->p && desc_char((unsigned char)*l->p))
			d_lx_adv(l);
		if (l->p == s) {
			d_lex(ps);
			d_syntax_error(ps);
		}
		descs = d_pool_grow(ps, descs, nd, sizeof(*descs));
		descs[nd++] = subst_desc(ps, s, (size_t)(l->p - s), line, col);
		unsupp_desc(ps, descs[nd - 1], c->spec, line, col);
		d_lx_skip(ps);
		if (*l->p != ',')
			break;
		d_lx_adv(l);
	}
	c->descs = descs;
	c->ndescs = nd;

	d_lex(ps);
	if (d_is_op(ps, '/')) {
		ps->in_pred = true;
		d_lex(ps);
		c->pred = d_parse_expr(ps);
		ps->in_pred = false;
		d_expect(ps, '/');
	}
	if (d_is_op(ps, '{')) {
		d_lex(ps);
		c->stmts = parse_stmts(ps, &c->nstmts);
		/* the '}' stays current: the caller rewinds to after it */
		ps->pos.p = ps->tk.end;
		ps->pos.line = ps->tk.line;
		ps->pos.col = ps->tk.col + 1;
	} else if (ps->tk.t != TK_EOF) {
		/* no body: the next clause begins at this token */
		ps->pos.p = ps->tk.start;
		ps->pos.line = ps->tk.line;
		ps->pos.col = ps->tk.col;
	}
}

static void grow_storage(struct d_prog *p)
{
	if (p->nval < p->nvars) {
		p->gval = xrealloc(p->gval, p->nvars, sizeof(*p->gval));
		p->cval = xrealloc(p->cval, p->nvars, sizeof(*p->cval));
		for (unsigned i = p->nval; i < p->nvars; i++) {
			struct dv z = d_var_zero(&p->vars[i]);

			/* a string never set is "" (D's zeroed array); one
			 * cleared by 0 is NULL, an integer slot (run.c) */
			p->gval[i] = z;
			p->cval[i] = z;
			if (z.k == K_STR) {
				p->gval[i] = d_dv_str(xstrdup(""));
				p->cval[i] = d_dv_str(xstrdup(""));
			}
		}
		p->nval = p->nvars;
	}
}

/* Parse and check one unit into ps->cl; a compile error longjmps out. */
static void compile_unit(struct parser *ps, const char *src)
{
	const struct d_compile_opts *o = ps->o;
	struct d_prog *p = ps->prog;
	unsigned i;

	if (o && o->spec >= 1 && o->spec <= 3) {
		/* -P, -m, -f: the text is one description */
		struct clause c;
		const char *s = src, *e;

		memset(&c, 0, sizeof(c));
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		c.spec = o->spec;
		c.descs = d_ar_alloc(&p->pool, sizeof(*c.descs));
		c.descs[0] = subst_desc(ps, s, (size_t)(e - s), 1, 1);
		unsupp_desc(ps, c.descs[0], c.spec, 1, 1);
		c.ndescs = 1;
		add_clause(ps, &c);
	} else {
		bool decls = false;

		for (;;) {
			struct clause c;

			d_lx_skip(ps);
			if (!*ps->pos.p)
				break;
			if (*ps->pos.p == '#') {
				parse_pragma(ps);
				continue;
			}
			if (d_starts_decl(ps)) {
				d_parse_decl(ps);
				decls = true;
				continue;
			}
			parse_clause(ps, &c);
			add_clause(ps, &c);
		}
		/* a script of nothing (or of pragmas alone) would trace
		 * nothing until killed: D refuses it */
		if (o && o->srcname && !ps->ncl && !decls)
			d_perrt(ps, D_EMPTY, ps->pos.line, ps->pos.col,
				"empty D program translation unit");
	}
	/* kinds: a lenient pass learns what assignments store, a strict
	 * one checks every use (a variable may be assigned in a later
	 * clause than the one that reads it) */
	ps->ordered_pass = true;
	for (i = 0; i < ps->ncl; i++)
		d_check_clause(ps, &ps->cl[i], false);
	ps->ordered_pass = false;
	for (i = 0; i < ps->ncl; i++)
		d_check_clause(ps, &ps->cl[i], true);
	for (i = 0; i < ps->ncl; i++) {
		struct clause *c = &ps->cl[i];

		c->records = clause_records(c);
		flatten(ps, c);
		c->strargs = d_strargs_of(c->pred);
		c->needs = d_needs_of(c->pred);
		stmts_reads(c->stmts, c->nstmts, c);
	}
}

static int compile_guarded(struct parser *ps, const char *src)
{
	if (setjmp(ps->jb))
		return -1;
	compile_unit(ps, src);
	return 0;
}

int d_compile(struct d_prog **progp, const char *src,
	      const struct d_compile_opts *o, char *msg, size_t msglen)
{
	struct parser *ps;
	struct d_prog *p;
	char dummy[1];
	int rc;

	if (!msg || !msglen) {
		msg = dummy;
		msglen = sizeof(dummy);
	}
	msg[0] = '\0';
	if (!*progp)
		*progp = prog_new();
	p = *progp;
	ps = xcalloc(1, sizeof(*ps));
	ps->prog = p;
	ps->o = o;
	ps->src = src;
	ps->pos.p = src;
	ps->pos.line = 1;
	ps->pos.col = 1;
	ps->msg = msg;
	ps->msglen = msglen;
	rc = compile_guarded(ps, src);
	if (rc == 0) {
		p->clauses = xrealloc(p->clauses, p->nclauses + ps->ncl,
				      sizeof(*p->clauses));
		if (ps->ncl)
			memcpy(p->clauses + p->nclauses, ps->cl,
			       ps->ncl * sizeof(*ps->cl));
		p->nclauses += ps->ncl;
	}
	grow_storage(p);
	free(ps->cl);
	free(ps->tmp.b);
	free(ps);
	return rc;
}

void d_free(struct d_prog *p)
{
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < p->nval; i++) {
		if (p->gval[i].k == K_STR)
			free((char *)p->gval[i].s);
		if (p->cval[i].k == K_STR)
			free((char *)p->cval[i].s);
	}
	free(p->gval);
	free(p->cval);
	for (i = 0; i < p->nvars; i++) {
		free(p->vars[i].name);
		free(p->vars[i].tname);
		free(p->vars[i].keykinds);
	}
	free(p->vars);
	for (i = 0; i < p->naggs; i++) {
		d_agg_free_entries(&p->aggs[i]);
		free(p->aggs[i].name);
	}
	free(p->aggs);
	d_spec_free_all(p);
	for (i = 0; i < p->nopts; i++) {
		free(p->opts[i].name);
		free(p->opts[i].value);
	}
	free(p->opts);
	free(p->inlines);
	free(p->sous); /* names and members in the pool */
	free(p->tlooks); /* strings in the pool */
	d_ht_clear(&p->dyn);
	free(p->tok_str);
	free(p->clauses);
	d_ar_free(&p->pool);
	free(p);
}

unsigned d_nclauses(const struct d_prog *p)
{
	return p ? p->nclauses : 0;
}

unsigned d_clause_ndescs(const struct d_prog *p, unsigned clause)
{
	return clause < p->nclauses ? p->clauses[clause].ndescs : 0;
}

const char *d_clause_desc(const struct d_prog *p, unsigned clause,
			  unsigned desc)
{
	if (clause >= p->nclauses || desc >= p->clauses[clause].ndescs)
		return NULL;
	return p->clauses[clause].descs[desc];
}

int d_clause_spec(const struct d_prog *p, unsigned clause)
{
	return clause < p->nclauses ? p->clauses[clause].spec : 0;
}

uint16_t d_clause_strargs(const struct d_prog *p, unsigned clause)
{
	return clause < p->nclauses ? p->clauses[clause].strargs : 0;
}

uint32_t d_clause_needs(const struct d_prog *p, unsigned clause)
{
	return clause < p->nclauses ? p->clauses[clause].needs : 0;
}

bool d_destructive_refused(const struct d_prog *p)
{
	return p && p->uses_destructive && !p->destructive;
}

int d_exit_status(const struct d_prog *p)
{
	return p ? p->exit_status : 0;
}

