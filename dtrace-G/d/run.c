// SPDX-License-Identifier: MIT
/*
 * run.c - the evaluator of the D language (dtrace-G/d/): d_eval(), a
 * tree-walking evaluation of one expression for one firing, which
 * stmt.c's d_run() calls for a clause's predicate and statements.
 *
 * Arithmetic is DTrace's: 64 bits wide, the result typed by C's usual
 * conversions but not narrowed to that type (reg()); casts, stores into
 * declared variables, keys and records narrow exactly as C does
 * (value.c's d_dv_int()); args[N] takes its type from the probe's
 * declared argument type at run time.  Strings of the traced process
 * come from the copies the kernel made at hit time (struct d_fire's str[])
 * or, failing that,
 * through its copyin callback.
 *
 * Nodes whose values were computed elsewhere (the leaves of a printf()
 * argument a generated program computed at the hit) are given to it as
 * pins (stmt.c's d_eval_pinned()): d_eval() returns a pin's value, or
 * raises its fault, and never evaluates below it.
 *
 * Run-time errors (invalid address, division by zero) unwind with
 * longjmp to stmt.c's d_run() (d_fault()), which reports them; what an
 * expression allocates lives in the run's arena (struct ectx's scratch),
 * freed there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "d_impl.h"

void __attribute__((noreturn))
d_fault(struct ectx *x, int flt, uint64_t addr)
{
	x->fault = flt;
	x->faddr = addr;
	longjmp(x->jb, 1);
}

/*
 * s[i]: D's string is a char array of strsize bytes, the string then
 * NULs, so i from 0 to strsize - 1 reads a char (0 past the string's
 * end); outside the array there is nothing to read, and DTrace's read
 * there is of whatever lies beyond: a fault (illegal operation, ERROR's
 * DTRACEFLT_ILLOP), never a made-up value.  A NULL string (a variable
 * cleared by 0, or a dynamic one never set) faults as DTrace's read of
 * address i does: invalid address (i).
 */
static struct dv var_get_null(struct ectx *x, const struct node *n,
			      bool *null);
static void var_set(struct ectx *x, const struct node *n, struct dv v);

static struct dv str_index(struct ectx *x, const struct node *n)
{
	bool null = false;
	struct dv s = n->a->op == N_VAR || n->a->op == N_ASSOC
			      ? var_get_null(x, n->a, &null)
			      : d_eval(x, n->a);
	struct dv i = d_eval(x, n->b);
	size_t len;

	if (null || (s.k == K_INT && s.i == 0)) /* NULL: its address 0 */
		d_fault(x, FLT_BADADDR, (uint64_t)i.i);
	if (s.k != K_STR || s.show || i.k != K_INT)
		d_fault(x, FLT_ILLOP, 0);
	if (!i.sg && i.sz == 8 ? (uint64_t)i.i >= x->p->strsize
			       : i.i < 0 || (uint64_t)i.i >= x->p->strsize)
		d_fault(x, FLT_ILLOP, 0);
	len = strnlen(s.s, (size_t)i.i + 1);
	return d_dv_int((size_t)i.i < len ? (signed char)s.s[i.i] : 0, 1,
			true);
}

/*
 * s[i] = c: the string variable s with its character i replaced, as
 * DTrace writes a string's char array in place (the idiom that cuts a
 * long string: s[57] = '.'; ... s[60] = 0;).  i is checked as s[i]
 * reads it.  A character past the end changes nothing s holds, and
 * is stored nowhere; one at the end that is not 0 would make bytes
 * after it part of the string that DTrace leaves unspecified: an
 * illegal operation, not a guess.
 */
static struct dv str_store(struct ectx *x, const struct node *n)
{
	const struct node *l = n->a;
	bool null = false;
	struct dv s = var_get_null(x, l->a, &null);
	struct dv i = d_eval(x, l->b);
	struct dv c = d_dv_int(d_eval(x, n->b).i, 1, true);
	size_t len;
	char *t;

	if (null || (s.k == K_INT && s.i == 0)) /* NULL: its address 0 */
		d_fault(x, FLT_BADADDR, (uint64_t)i.i);
	if (s.k != K_STR || s.show || i.k != K_INT)
		d_fault(x, FLT_ILLOP, 0);
	if (!i.sg && i.sz == 8 ? (uint64_t)i.i >= x->p->strsize
			       : i.i < 0 || (uint64_t)i.i >= x->p->strsize)
		d_fault(x, FLT_ILLOP, 0);
	len = strlen(s.s);
	if ((size_t)i.i > len || ((size_t)i.i == len && c.i == 0))
		return c;
	if ((size_t)i.i == len)
		d_fault(x, FLT_ILLOP, 0);
	t = d_ar_strndup(&x->scratch, s.s, len);
	t[i.i] = (char)c.i;
	s.s = t;
	var_set(x, l->a, s);
	return c;
}

/* Read a NUL-terminated string of the traced process at addr, at most
 * max - 1 bytes, one page at a time so a short string near the end of a
 * mapping reads. */
const char *d_read_user_str(struct ectx *x, uint64_t addr, size_t max)
{
	const struct d_fire *f = x->f;
	char *buf = d_ar_alloc(&x->scratch, max);
	size_t got = 0;

	if (!f->copyin || !addr)
		d_fault(x, FLT_BADADDR, addr);
	while (got < max - 1) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		void *nul;

		if (chunk > max - 1 - got)
			chunk = max - 1 - got;
		if (f->copyin(f->copyin_ctx, f->pid, a, buf + got, chunk) < 0)
			d_fault(x, FLT_BADADDR, a);
		nul = memchr(buf + got, '\0', chunk);
		if (nul)
			return buf;
		got += chunk;
	}
	buf[max - 1] = '\0';
	return buf;
}

struct ectx *d_ectx_new(struct d_prog *p, const struct clause *c,
			const struct d_fire *f)
{
	struct ectx *x = xcalloc(1, sizeof(*x));

	x->p = p;
	x->c = c;
	x->f = f;
	return x;
}

void d_ectx_free(struct ectx *x)
{
	free(x->out.b);
	free(x->after.b);
	d_ar_free(&x->scratch);
	free(x);
}

char *d_read_str_late(struct d_prog *p, const struct d_fire *f, uint64_t addr,
		      size_t max, uint64_t *faddr)
{
	struct ectx *x = d_ectx_new(p, NULL, f);
	char *s = NULL;

	if (setjmp(x->jb) == 0)
		s = xstrdup(d_read_user_str(x, addr, max));
	else
		*faddr = x->faddr;
	d_ectx_free(x);
	return s;
}

const char *d_arg_str(struct ectx *x, unsigned n, size_t max)
{
	const struct d_fire *f = x->f;

	if (f->str[n] && !(f->wrote && *f->wrote)) {
		size_t len = f->strlen[n];
		const char *nul = memchr(f->str[n], '\0', len);

		if (nul)
			len = (size_t)(nul - f->str[n]);
		else if (len < max - 1 && ((f->strflt >> n) & 1))
			d_fault(x, FLT_BADADDR, f->arg[n] + len);
		else if (len < max - 1 && ((f->strcut >> n) & 1))
			return d_read_user_str(x, f->arg[n], max);
		if (len > max - 1)
			len = max - 1;
		return d_ar_strndup(&x->scratch, f->str[n], len);
	}
	return d_read_user_str(x, f->arg[n], max);
}

/* Size and signedness of a declared argument type name. */
static void argtype(const char *t, uint8_t *sz, uint8_t *sg, bool *isstr);

bool d_args_str(const struct d_probe *pr, unsigned n)
{
	uint8_t sz, sg;
	bool isstr;

	if (!pr || !pr->argtypes || n >= pr->nargs || n >= D_MAXARGS)
		return false;
	argtype(pr->argtypes[n], &sz, &sg, &isstr);
	return isstr;
}

/*
 * args[n]'s integer type at probe pr, as N_ARGS below reads it (no
 * declared types: int64_t); false where it is a string or reading it
 * faults (n past the declared arguments)
 */
bool d_args_int(const struct d_probe *pr, unsigned n, uint8_t *sz,
		uint8_t *sg)
{
	bool isstr;

	if (n >= D_MAXARGS || (pr && pr->argtypes && n >= pr->nargs))
		return false;
	argtype(pr && pr->argtypes ? pr->argtypes[n] : NULL, sz, sg, &isstr);
	return !isstr;
}

static void argtype(const char *t, uint8_t *sz, uint8_t *sg, bool *isstr)
{
	char buf[128], *w[8], *save = NULL, *tok;
	unsigned nw = 0, i;
	bool uns = false, sgn = false;
	int longs = 0;
	uint8_t s = 8, g = 1;

	*isstr = false;
	*sz = 8;
	*sg = 1;
	if (!t)
		return;
	if (strchr(t, '*') || strchr(t, '[')) {
		*sg = 0;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", t);
	for (tok = strtok_r(buf, " \t", &save); tok && nw < 8;
	     tok = strtok_r(NULL, " \t", &save))
		w[nw++] = tok;
	for (i = 0; i < nw; i++) {
		uint8_t tsz, tsg;

		if (strcmp(w[i], "string") == 0) {
			*isstr = true;
			return;
		}
		if (strcmp(w[i], "const") == 0 ||
		    strcmp(w[i], "volatile") == 0)
			continue;
		if (strcmp(w[i], "unsigned") == 0) {
			uns = true;
			s = 4;
		} else if (strcmp(w[i], "signed") == 0) {
			sgn = true;
			s = 4;
		} else if (strcmp(w[i], "long") == 0) {
			longs++;
			s = 8;
		} else if (strcmp(w[i], "int") == 0) {
			if (!longs)
				s = 4;
		} else if (d_cast_type(w[i], &tsz, &tsg)) {
			s = tsz;
			g = tsg;
		}
	}
	if (uns)
		g = 0;
	else if (sgn)
		g = 1;
	*sz = s;
	*sg = g;
}

static struct dv builtin(struct ectx *x, int id)
{
	const struct d_fire *f = x->f;
	const struct d_probe *pr = f->probe;

	switch (d_builtins[id].id) {
	case B_PID:
		return d_dv_int(f->pid, 4, true);
	case B_PPID:
		if (f->ppid < 0) /* unknown: never the reaper's guess */
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int(f->ppid, 4, true);
	case B_TID:
		return d_dv_int(f->tid, 4, true);
	case B_UID:
		if (!f->cred) /* the backend took no ids at the hit */
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int((int64_t)f->uid, 4, false);
	case B_EXECNAME:
		/* the process names itself (prctl): tainted */
		return d_dv_tstr(f->execname ? f->execname : "");
	case B_EUID:
	case B_EGID:
		if (!f->ecred)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int(d_builtins[id].id == B_EUID ? (int64_t)f->euid
							    : (int64_t)f->egid,
				4, false);
	case B_PGID:
	case B_SID:
		if (!f->sess)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int(d_builtins[id].id == B_PGID ? f->pgid : f->sid,
				4, true);
	case B_PSARGS: /* the process writes its arguments: tainted */
		if (!f->psargs)
			d_fault(x, FLT_ILLOP, 0);
		/* a string of strsize - 1 bytes at most, as printf()'s %s
		 * prints it, so strlen() and compares see those bytes */
		if (strlen(f->psargs) >= x->p->strsize)
			return d_dv_tstr(d_ar_strndup(&x->scratch, f->psargs,
						      x->p->strsize - 1));
		return d_dv_tstr(f->psargs);
	case B_TIMESTAMP:
		return d_dv_int((int64_t)f->timestamp, 8, false);
	case B_VTIMESTAMP:
		if (f->vtimestamp == D_VTIME_UNKNOWN)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int((int64_t)f->vtimestamp, 8, false);
	case B_WALLTIMESTAMP:
		return d_dv_int((int64_t)f->walltimestamp, 8, false);
	case B_CPU:
		return d_dv_int(f->cpu, 4, true);
	case B_PROBEPROV:
		return d_dv_str(pr && pr->prov ? pr->prov : "");
	case B_PROBEMOD:
		return d_dv_str(pr && pr->mod ? pr->mod : "");
	case B_PROBEFUNC:
		return d_dv_str(pr && pr->func ? pr->func : "");
	case B_PROBENAME:
		return d_dv_str(pr && pr->name ? pr->name : "");
	case B_ID:
		return d_dv_int(pr ? pr->id : 0, 4, false);
	case B_GID:
		if (!f->cred)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int((int64_t)f->gid, 4, false);
	case B_ERRNO:
		return d_dv_int(f->errnum, 4, true);
	case B_UCALLER:
		return d_stack_ucaller(x);
	case B_CALLER:
		/* DTrace's is the kernel PC the probe was entered from; this
		 * tracer's probes are user-level and see no kernel stack */
		return d_dv_int(0, 8, false);
	case B_USTACKDEPTH:
		return d_stack_depth(x);
	default:
		return d_dv_int(f->epid, 4, false);
	}
}

/*
 * A result of D's arithmetic: the 64 bits of the operation, as DTrace's
 * registers hold them, labelled with the C type of the result (which
 * decides signed or unsigned comparison, division and >>, and the size a
 * record prints at: value.c's d_out_int(), printf()); not narrowed, so
 * 1 << 31 is 2147483648 to a comparison and x * y of two ints keeps
 * its high bits.  Casts and stores into declared variables narrow
 * (d_dv_int()), as do the records.
 */
static struct dv reg(uint64_t v, unsigned sz, bool sg)
{
	struct dv d = { .k = K_INT, .i = (int64_t)v, .sz = (uint8_t)sz,
			.sg = sg };

	return d;
}

/* C's integer promotions and usual arithmetic conversions: the type of
 * the result (the operands' values are not converted: their 64 bits are
 * already what DTrace's promotion makes of them). */
static void common_type(const struct dv *a, const struct dv *b, unsigned *sz,
			bool *sg)
{
	d_int_common(a->sz, a->sg, b->sz, b->sg, sz, sg);
}

/*
 * ?:'s value: the branch taken, typed as check.c typed the node where
 * its integer branches have two known types that differ (DTrace's
 * dt_cook_op3() promotes them: 1 ? -1 : 0u is an unsigned int), its 64
 * bits kept as reg() keeps them; else the branch's own type.
 */
static struct dv tern_type(const struct node *n, struct dv v)
{
	if (n->sz && v.k == K_INT) {
		v.sz = n->sz;
		v.sg = n->sg;
	}
	return v;
}

bool d_truth(const struct dv *v)
{
	if (v->k == K_STR)
		return v->s && *v->s;
	return v->i != 0;
}

/*
 * op on two integers, as a firing computes it: false where it faults (a
 * zero divisor, or op not an integer operator), *r untouched.  One
 * place for the arithmetic both binop() and the compiler's constants
 * (d_const_dv()) use, so a constant the compiler reads is the value the
 * expression has at a firing.
 */
static bool int_binop(int op, struct dv a, struct dv b, struct dv *r)
{
	unsigned sz;
	bool sg;
	uint64_t ua, ub, v;

	if (op == OP_SHL || op == OP_SHR) {
		sz = a.sz < 4 ? 4 : a.sz;
		sg = a.sz < 4 ? true : a.sg;
		ub = (uint64_t)b.i & 63;
		if (op == OP_SHL)
			*r = reg((uint64_t)a.i << ub, sz, sg);
		else if (sg)
			*r = reg((uint64_t)(a.i >> ub), sz, sg);
		else
			*r = reg((uint64_t)a.i >> ub, sz, sg);
		return true;
	}
	common_type(&a, &b, &sz, &sg);
	ua = (uint64_t)a.i;
	ub = (uint64_t)b.i;
	switch (op) {
	case '+':
		v = ua + ub;
		break;
	case '-':
		v = ua - ub;
		break;
	case '*':
		v = ua * ub;
		break;
	case '/':
	case '%':
		if (!ub)
			return false;
		if (sg) {
			if (a.i == INT64_MIN && b.i == -1)
				v = op == '/' ? (uint64_t)INT64_MIN : 0;
			else
				v = (uint64_t)(op == '/' ? a.i / b.i
							 : a.i % b.i);
		} else {
			v = op == '/' ? ua / ub : ua % ub;
		}
		break;
	case '&':
		v = ua & ub;
		break;
	case '|':
		v = ua | ub;
		break;
	case '^':
		v = ua ^ ub;
		break;
	case OP_EQ:
		*r = d_dv_int(a.i == b.i, 4, true);
		return true;
	case OP_NE:
		*r = d_dv_int(a.i != b.i, 4, true);
		return true;
	case '<':
		*r = d_dv_int(sg ? a.i < b.i : ua < ub, 4, true);
		return true;
	case '>':
		*r = d_dv_int(sg ? a.i > b.i : ua > ub, 4, true);
		return true;
	case OP_LE:
		*r = d_dv_int(sg ? a.i <= b.i : ua <= ub, 4, true);
		return true;
	case OP_GE:
		*r = d_dv_int(sg ? a.i >= b.i : ua >= ub, 4, true);
		return true;
	default:
		return false;
	}
	*r = reg(v, sz, sg);
	return true;
}

/* A unary operator other than '&' on an integer, as a firing computes it */
static struct dv int_unop(int op, struct dv a)
{
	if (op == '!')
		return d_dv_int(!a.i, 4, true);
	if (a.sz < 4)
		a = d_dv_int(a.i, 4, true);
	if (op == '~')
		return reg(~(uint64_t)a.i, a.sz, a.sg);
	if (op == '-')
		return reg(0 - (uint64_t)a.i, a.sz, a.sg);
	return a;
}

/*
 * n's value where the compiler knows it, an integer constant expression
 * (C's, as D's compiler folds them: literals, sizeof, enumerators and
 * inlines of such, and operators and integer casts over them): *v is
 * what evaluating n at a firing gives (int_binop(), int_unop(), a
 * cast's d_dv_int()), so a constant the compiler takes is never
 * another value.  False for anything else: a variable, a string, a
 * pointer, a division by zero (check.c refuses that one).
 */
bool d_const_dv(const struct node *n, struct dv *v)
{
	struct dv a, b, c;

	switch (n->op) {
	case N_INT:
		*v = d_dv_int(n->ival, n->sz, n->sg);
		return true;
	case N_UN:
		if (n->sub == '&' || !d_const_dv(n->a, &a))
			return false;
		*v = int_unop(n->sub, a);
		return true;
	case N_CAST:
		if (n->ptr || !d_const_dv(n->a, &a))
			return false;
		*v = d_dv_int(a.i, n->sz, n->sg);
		return true;
	case N_BIN:
		return d_const_dv(n->a, &a) && d_const_dv(n->b, &b) &&
		       int_binop(n->sub, a, b, v);
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		if (!d_const_dv(n->a, &a) || !d_const_dv(n->b, &b))
			return false;
		*v = d_dv_int(n->op == N_LAND  ? a.i && b.i
			      : n->op == N_LOR ? a.i || b.i
					       : !a.i != !b.i,
			      4, true);
		return true;
	case N_TERN:
		if (!d_const_dv(n->a, &a) || !d_const_dv(n->b, &b) ||
		    !d_const_dv(n->c, &c))
			return false;
		*v = a.i ? b : c;
		/* check.c may not have typed n yet (an enumerator): the
		 * type its tern_ty() gives, from the branches' */
		if (b.k == K_INT && c.k == K_INT &&
		    (b.sz != c.sz || b.sg != c.sg)) {
			unsigned tz;
			bool tg;

			d_int_common(b.sz, b.sg, c.sz, c.sg, &tz, &tg);
			v->sz = (uint8_t)tz;
			v->sg = tg;
		}
		return true;
	default:
		return false;
	}
}

/* n an integer constant expression (d_const_dv()): its value */
bool d_const_int(const struct node *n, int64_t *v)
{
	struct dv d;

	if (!d_const_dv(n, &d))
		return false;
	*v = d.i;
	return true;
}

static struct dv binop(struct ectx *x, int op, struct dv a, struct dv b)
{
	struct dv r;

	if (a.k == K_STR || b.k == K_STR) {
		int c;

		/* NULL against a string: a null string compares as "", as
		 * DTrace's dtrace_strncmp() has it (check.c allows only the
		 * constant) */
		if (a.k == K_INT && a.i == 0)
			a = d_dv_str("");
		if (b.k == K_INT && b.i == 0)
			b = d_dv_str("");
		if (a.k != K_STR || b.k != K_STR)
			d_fault(x, FLT_ILLOP, 0);
		c = strcmp(a.s, b.s);
		switch (op) {
		case OP_EQ:
			return d_dv_int(c == 0, 4, true);
		case OP_NE:
			return d_dv_int(c != 0, 4, true);
		case '<':
			return d_dv_int(c < 0, 4, true);
		case '>':
			return d_dv_int(c > 0, 4, true);
		case OP_LE:
			return d_dv_int(c <= 0, 4, true);
		case OP_GE:
			return d_dv_int(c >= 0, 4, true);
		default:
			d_fault(x, FLT_ILLOP, 0);
		}
	}
	if (!int_binop(op, a, b, &r))
		d_fault(x,
			(op == '/' || op == '%') && !b.i ? FLT_DIVZERO
							 : FLT_ILLOP,
			0);
	return r;
}

/* Key of a self-> variable or an associative array element. */
static void dyn_key(struct ectx *x, const struct node *n, struct sbuf *k)
{
	unsigned sc = (unsigned)x->p->vars[n->sub].scope, i;
	uint32_t id = (uint32_t)n->sub;
	/* the keys first, in the firing's scratch: one that faults
	 * (copyinstr(NULL)) unwinds before k holds memory to lose */
	struct dv *kv =
		n->nargs ? d_ar_alloc(&x->scratch, n->nargs * sizeof(*kv))
			 : NULL;

	for (i = 0; i < n->nargs; i++)
		kv[i] = d_eval(x, n->args[i]);
	d_sb_add(k, (const char *)&sc, sizeof(sc));
	if (sc == SC_SELF || sc == SC_SELFASSOC) {
		int32_t tid = (int32_t)x->f->tid;

		d_sb_add(k, (const char *)&tid, sizeof(tid));
	}
	d_sb_add(k, (const char *)&id, sizeof(id));
	for (i = 0; i < n->nargs; i++)
		d_dyn_key_add(k, &kv[i]);
}

static struct dv zero_of(struct ectx *x, unsigned var)
{
	return d_var_zero(&x->p->vars[var]);
}

static struct dv copy_out(struct ectx *x, struct dv v)
{
	if (v.k == K_STR)
		v.s = d_ar_strndup(&x->scratch, v.s, strlen(v.s));
	return v;
}

/*
 * The slot of variable node n: a global's or a this->'s, or a dynamic
 * one's (self->, an array element) under the key *k holds, built here
 * the first time (so a store's keys are evaluated once), NULL if absent
 * and not create.
 */
struct dv *d_var_slot(struct ectx *x, const struct node *n, struct sbuf *k,
		      bool create)
{
	struct d_prog *p = x->p;
	int sc = p->vars[n->sub].scope;
	struct hent *e;

	if (sc == SC_GLOBAL || sc == SC_THIS)
		return sc == SC_GLOBAL ? &p->gval[n->sub] : &p->cval[n->sub];
	if (!k->len)
		dyn_key(x, n, k);
	e = d_ht_find(&p->dyn, k->b, k->len);
	if (!e && create)
		e = d_ht_insert(&p->dyn, k->b, k->len);
	return e ? &e->val : NULL;
}

/*
 * A variable's value.  A string variable cleared by 0 (an integer in its
 * slot, or a dynamic one absent) reads "", as DTrace's string functions
 * read a NULL string; *null (when asked) says it is NULL, for what reads
 * a NULL string's memory (s[i]: str_index()).
 */
static struct dv var_get_null(struct ectx *x, const struct node *n,
			      bool *null)
{
	bool isstr = x->p->vars[n->sub].kind == T_STR;
	struct sbuf k = { 0 };
	struct dv *slot = d_var_slot(x, n, &k, false);
	struct dv v = slot ? *slot : zero_of(x, (unsigned)n->sub);

	free(k.b);
	if (null)
		*null = false;
	if (n->sou) /* a struct it holds: its bytes, for '.' (mem.c) */
		return d_sou_get(x, n, v);
	if ((!slot || v.k == K_INT) && isstr) { /* cleared by 0, absent */
		if (null)
			*null = true;
		return d_dv_str("");
	}
	return copy_out(x, v);
}

static struct dv var_get(struct ectx *x, const struct node *n)
{
	return var_get_null(x, n, NULL);
}

static void store(struct dv *slot, struct dv v)
{
	if (slot->k == K_STR)
		free((char *)slot->s);
	if (v.k == K_STR)
		v.s = xstrdup(v.s);
	*slot = v;
}

/* v into the dynamic variable keyed k (dyn_key()'s form), k freed;
 * assigning zero frees a dynamic variable, as in DTrace */
static void dyn_put(struct d_prog *p, struct sbuf *k, struct dv v)
{
	struct hent *e = d_ht_find(&p->dyn, k->b, k->len);

	if (v.k == K_INT && v.i == 0) {
		if (e)
			d_ht_remove(&p->dyn, e);
	} else {
		if (!e)
			e = d_ht_insert(&p->dyn, k->b, k->len);
		store(&e->val, v);
	}
	free(k->b);
}

static void var_set(struct ectx *x, const struct node *n, struct dv v)
{
	struct d_prog *p = x->p;
	int sc = p->vars[n->sub].scope;
	struct sbuf k = { 0 };

	v = d_var_conv(&p->vars[n->sub], v);
	if (v.k == K_STR && !v.show && strlen(v.s) >= p->strsize)
		v.s = d_ar_strndup(&x->scratch, v.s, p->strsize - 1);
	if (sc == SC_GLOBAL) {
		store(&p->gval[n->sub], v);
		return;
	}
	if (sc == SC_THIS) {
		store(&p->cval[n->sub], v);
		return;
	}
	dyn_key(x, n, &k);
	dyn_put(p, &k, v);
}

struct dv d_self_put(struct d_prog *p, unsigned var, int32_t tid, struct dv v)
{
	unsigned sc = SC_SELF; /* dyn_key()'s key */
	uint32_t id = (uint32_t)var;
	struct sbuf k = { 0 };
	struct hent *e;
	struct dv old = d_dv_int(0, 8, true);

	d_sb_add(&k, (const char *)&sc, sizeof(sc));
	d_sb_add(&k, (const char *)&tid, sizeof(tid));
	d_sb_add(&k, (const char *)&id, sizeof(id));
	e = d_ht_find(&p->dyn, k.b, k.len);
	if (e && e->val.k == K_INT)
		old = e->val;
	dyn_put(p, &k, v);
	return old;
}

void d_self_aput(struct d_prog *p, unsigned var, int32_t tid,
		 const struct dv *keys, unsigned nk, struct dv v)
{
	unsigned sc = (unsigned)p->vars[var].scope; /* dyn_key()'s key */
	uint32_t id = (uint32_t)var;
	struct sbuf k = { 0 };

	d_sb_add(&k, (const char *)&sc, sizeof(sc));
	d_sb_add(&k, (const char *)&tid, sizeof(tid));
	d_sb_add(&k, (const char *)&id, sizeof(id));
	for (unsigned i = 0; i < nk; i++)
		d_dyn_key_add(&k, &keys[i]);
	dyn_put(p, &k, v);
}

void d_var_add(struct d_prog *p, unsigned var, int op, uint64_t v, unsigned sz,
	       bool sg)
{
	struct dv r;

	if (p->gval[var].k != K_INT ||
	    !int_binop(op, p->gval[var], reg(v, sz, sg), &r))
		return;
	store(&p->gval[var], d_var_conv(&p->vars[var], r));
}

int d_compound_op(int op)
{
	switch (op) {
	case OP_ADDEQ:
		return '+';
	case OP_SUBEQ:
		return '-';
	case OP_MULEQ:
		return '*';
	case OP_DIVEQ:
		return '/';
	case OP_MODEQ:
		return '%';
	case OP_ANDEQ:
		return '&';
	case OP_OREQ:
		return '|';
	case OP_XOREQ:
		return '^';
	case OP_SHLEQ:
		return OP_SHL;
	default:
		return OP_SHR;
	}
}

/* p op= b, p++, p--: C's pointer arithmetic, as p + b's (N_BIN below):
 * b scaled by the size of what lv, a pointer, points to. */
static struct dv ptr_step(struct ectx *x, const struct node *lv, int op,
			  struct dv b)
{
	if ((op == '+' || op == '-') && lv->ptr && lv->ptr != D_PTR_VOID)
		return d_dv_int(
			(int64_t)((uint64_t)b.i * d_ptr_scale(x->p, lv)), 8,
			b.sg);
	return b;
}

struct dv d_eval(struct ectx *x, const struct node *n)
{
	struct dv a, b;

	for (unsigned i = 0; i < x->npins; i++) /* d_eval_pinned()'s */
		if (x->pins[i].n == n) {
			if (x->pins[i].flt)
				d_fault(x, FLT_BADADDR, x->pins[i].faddr);
			return x->pins[i].v;
		}
	switch (n->op) {
	case N_INT:
		return d_dv_int(n->ival, n->sz, n->sg);
	case N_STR:
		return d_dv_str(n->sval);
	case N_VAR:
	case N_ASSOC:
		return var_get(x, n);
	case N_BUILTIN:
		return builtin(x, n->sub);
	case N_ARGN:
		return d_dv_int((int64_t)x->f->arg[n->sub], 8, true);
	case N_ARGS: {
		const struct d_probe *pr = x->f->probe;
		uint8_t sz, sg;
		bool isstr;

		a = d_eval(x, n->a);
		if (a.i < 0 || a.i >= D_MAXARGS ||
		    (pr && pr->argtypes && (uint64_t)a.i >= pr->nargs))
			d_fault(x, FLT_ILLOP, 0);
		argtype(pr && pr->argtypes ? pr->argtypes[a.i] : NULL, &sz,
			&sg, &isstr);
		if (isstr)
			return d_dv_tstr(
				d_arg_str(x, (unsigned)a.i, x->p->strsize));
		return d_dv_int((int64_t)x->f->arg[a.i], sz, sg);
	}
	case N_FUNC:
		return d_eval_func(x, n);
	case N_UN:
		a = d_eval(x, n->a);
		if (a.k == K_STR)
			d_fault(x, FLT_ILLOP, 0);
		return int_unop(n->sub, a);
	case N_CAST:
		a = d_eval(x, n->a);
		return d_dv_int(a.i, n->sz, n->sg);
	case N_DEREF:
		if (n->ival) /* s[i] */
			return str_index(x, n);
		return d_deref(x, n);
	case N_MEMBER:
		return d_member(x, n);
	case N_UREGS:
		return d_uregs(x, n);
	case N_VARADDR:
		return d_var_addr(x, n);
	case N_BIN:
		a = d_eval(x, n->a);
		b = d_eval(x, n->b);
		if (n->ptr && n->ptr != D_PTR_VOID) { /* C's pointer scaling */
			if (n->a->ptr)
				b = ptr_step(x, n, n->sub, b);
			else /* n + p */
				a = ptr_step(x, n, n->sub, a);
		}
		if (n->sub == '-' && n->a->ptr && n->b->ptr &&
		    n->b->ptr != D_PTR_VOID) {
			/* q - p: the difference divided by the size of
			 * what p points to, unsigned as DTrace divides it
			 * (dt_cg_arithmetic_op()), a signed 64-bit result */
			struct dv d = binop(x, '-', a, b);

			return d_dv_int((int64_t)((uint64_t)d.i /
						  d_ptr_scale(x->p, n->b)),
					8, true);
		}
		return binop(x, n->sub, a, b);
	case N_LAND:
		a = d_eval(x, n->a);
		if (!d_truth(&a))
			return d_dv_int(0, 4, true);
		b = d_eval(x, n->b);
		return d_dv_int(d_truth(&b), 4, true);
	case N_LOR:
		a = d_eval(x, n->a);
		if (d_truth(&a))
			return d_dv_int(1, 4, true);
		b = d_eval(x, n->b);
		return d_dv_int(d_truth(&b), 4, true);
	case N_LXOR:
		a = d_eval(x, n->a);
		b = d_eval(x, n->b);
		return d_dv_int(d_truth(&a) != d_truth(&b), 4, true);
	case N_TERN:
		a = d_eval(x, n->a);
		return tern_type(n, d_truth(&a) ? d_eval(x, n->b)
						: d_eval(x, n->c));
	case N_ASSIGN:
		if (n->a->op == N_DEREF && n->a->ival) /* s[i] = c */
			return str_store(x, n);
		if (n->a->op == N_DEREF || n->a->op == N_MEMBER) {
			/* *p = v, p->m = v, s.m = v: into scratch or a
			 * struct variable (mem.c); the value first, as
			 * DTrace computes it */
			struct d_lval l;

			b = d_eval(x, n->b);
			d_lval(x, n->a, &l);
			if (n->sub != '=')
				b = binop(x, d_compound_op(n->sub),
					  d_lval_load(x, &l),
					  ptr_step(x, n->a,
						   d_compound_op(n->sub), b));
			return d_lval_store(x, &l, b);
		}
		b = d_eval(x, n->b);
		if (n->b->sou) { /* s = *p: the bytes (mem.c) */
			d_sou_put(x, n->a, NULL, (uint64_t)b.i);
			return d_dv_int(0, 4, true);
		}
		if (n->sub != '=') {
			a = var_get(x, n->a);
			b = binop(x, d_compound_op(n->sub), a,
				  ptr_step(x, n, d_compound_op(n->sub), b));
		}
		var_set(x, n->a, b);
		return b;
	case N_INCDEC:
		if (n->a->op == N_DEREF || n->a->op == N_MEMBER) {
			struct d_lval l; /* (*p)++, s.m--: as op= (mem.c) */

			d_lval(x, n->a, &l);
			a = d_lval_load(x, &l);
			b = d_lval_store(x, &l,
					 binop(x, n->sub == OP_INC ? '+' : '-',
					       a,
					       ptr_step(x, n->a, '+',
							d_dv_int(1, 4, true))));
			return n->ival ? a : b;
		}
		a = var_get(x, n->a);
		b = binop(x, n->sub == OP_INC ? '+' : '-', a,
			  ptr_step(x, n, '+', d_dv_int(1, 4, true)));
		var_set(x, n->a, b);
		return n->ival ? a : b;
	}
	d_fault(x, FLT_ILLOP, 0);
}
