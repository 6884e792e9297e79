// SPDX-License-Identifier: MIT
/*
 * func.c - the builtin variables and the functions of the D language
 * (dtrace-G/d/): their names (the tables expr.c resolves identifiers
 * with), the kinds of their arguments and results (d_check_func(), for
 * check.c), and what they compute at run time (d_eval_func(), for
 * run.c's evaluator).  One place per function: adding one is a table
 * row, a case in each switch here, and a line in dtrace(1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* ------------------------------------------------------------------ */
/* The names the parser resolves (check.c and run.c index these tables
 * by the node's sub) */

const struct d_builtin d_builtins[] = {
	{ "pid", B_PID, 0, 4, 1 },
	{ "ppid", B_PPID, 0, 4, 1 },
	{ "tid", B_TID, 0, 4, 1 },
	{ "uid", B_UID, 0, 4, 0 },
	{ "execname", B_EXECNAME, 1, 8, 0 },
	{ "timestamp", B_TIMESTAMP, 0, 8, 0 },
	{ "vtimestamp", B_VTIMESTAMP, 0, 8, 0 },
	{ "walltimestamp", B_WALLTIMESTAMP, 0, 8, 0 },
	{ "cpu", B_CPU, 0, 4, 1 },
	{ "probeprov", B_PROBEPROV, 1, 8, 0 },
	{ "probemod", B_PROBEMOD, 1, 8, 0 },
	{ "probefunc", B_PROBEFUNC, 1, 8, 0 },
	{ "probename", B_PROBENAME, 1, 8, 0 },
	{ "id", B_ID, 0, 4, 0 },
	{ "epid", B_EPID, 0, 4, 0 },
};

const struct d_func d_funcs[] = {
	{ "copyinstr", F_COPYINSTR, 1, 2 },
	{ "strlen", F_STRLEN, 1, 1 },
	{ "stringof", F_STRINGOF, 1, 1 },
	{ "lltostr", F_LLTOSTR, 1, 1 },
	{ "strjoin", F_STRJOIN, 2, 2 },
};

const unsigned d_nbuiltins = sizeof(d_builtins) / sizeof(d_builtins[0]);
const unsigned d_nfuncs = sizeof(d_funcs) / sizeof(d_funcs[0]);


/* ------------------------------------------------------------------ */
/* Kinds */

int d_check_func(struct parser *ps, struct node *n, bool strict)
{
	unsigned i;

	switch (d_funcs[n->sub].id) {
	case F_COPYINSTR:
		if (strict && n->args[0]->kind == T_STR)
			d_perr(ps, n->line, n->col,
			       "copyinstr( ) argument #1 is incompatible "
			       "with prototype:\n\tprototype: uintptr_t"
			       "\n\t argument: string");
		if (n->nargs > 1)
			d_need_int(ps, n->args[1], n->args[1]->kind,
				 "copyinstr( )", strict);
		return T_STR;
	case F_STRLEN:
		if (strict && n->args[0]->kind == T_INT)
			d_perr(ps, n->line, n->col,
			       "strlen( ) argument #1 is incompatible "
			       "with prototype:\n\tprototype: string\n"
			       "\t argument: int");
		return T_INT;
	case F_STRJOIN:
		for (i = 0; i < 2; i++)
			if (strict && n->args[i]->kind == T_INT)
				d_perr(ps, n->line, n->col,
				       "strjoin( ) argument #%u is "
				       "incompatible with prototype:\n"
				       "\tprototype: string\n\t "
				       "argument: int", i + 1);
		return T_STR;
	case F_LLTOSTR:
		d_need_int(ps, n->args[0], n->args[0]->kind,
			 "lltostr( )", strict);
		return T_STR;
	default: /* stringof */
		return T_STR;
	}
}

/* ------------------------------------------------------------------ */
/* Evaluation */

static const char *lltostr(struct ectx *x, int64_t v, bool sg)
{
	char buf[32];

	if (sg)
		snprintf(buf, sizeof(buf), "%" PRId64, v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v);
	return d_ar_strndup(&x->scratch, buf, strlen(buf));
}

struct dv d_eval_func(struct ectx *x, const struct node *n)
{
	struct d_prog *p = x->p;
	struct dv a, b;

	switch (d_funcs[n->sub].id) {
	case F_COPYINSTR: {
		size_t max = p->strsize;

		if (n->nargs > 1) {
			b = d_eval(x, n->args[1]);
			if (b.i >= 0 && (uint64_t)b.i + 1 < max)
				max = (size_t)b.i + 1;
		}
		if (n->args[0]->op == N_ARGN)
			return d_dv_str(d_arg_str(x, (unsigned)n->args[0]->sub, max));
		if (n->args[0]->op == N_ARGS) {
			a = d_eval(x, n->args[0]->a);
			if (a.i >= 0 && a.i < D_MAXARGS)
				return d_dv_str(d_arg_str(x, (unsigned)a.i, max));
		}
		a = d_eval(x, n->args[0]);
		if (a.k == K_STR)
			return a;
		return d_dv_str(d_read_user_str(x, (uint64_t)a.i, max));
	}
	case F_STRLEN:
		a = d_eval(x, n->args[0]);
		if (a.k != K_STR)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int((int64_t)strlen(a.s), 8, false);
	case F_STRJOIN: {
		char *s;
		size_t la, lb;

		a = d_eval(x, n->args[0]);
		b = d_eval(x, n->args[1]);
		if (a.k != K_STR || b.k != K_STR)
			d_fault(x, FLT_ILLOP, 0);
		la = strlen(a.s);
		lb = strlen(b.s);
		s = d_ar_alloc(&x->scratch, la + lb + 1);
		memcpy(s, a.s, la);
		memcpy(s + la, b.s, lb + 1);
		if (la + lb >= p->strsize)
			s[p->strsize - 1] = '\0';
		return d_dv_str(s);
	}
	case F_LLTOSTR:
		a = d_eval(x, n->args[0]);
		return d_dv_str(lltostr(x, a.i, true));
	default: /* stringof */
		a = d_eval(x, n->args[0]);
		if (a.k == K_STR)
			return a;
		return d_dv_str(lltostr(x, a.i, a.sg));
	}
}

