// SPDX-License-Identifier: MIT
/*
 * run.c - the evaluator of the D language (dtrace-G/d/): d_run() runs one
 * clause for one firing, a tree-walking evaluation of its predicate and
 * statements in DTrace's order.
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
 * Output.  A clause's output is built in a buffer and written only when
 * the clause completes, so a run-time error discards it, as DTrace's
 * kernel discards the record of a faulting ECB.  Unless quiet, a
 * committed record is "%3d %6d %32s " (CPU, probe ID, FUNCTION:NAME), the
 * traced data, and "\n"; the "CPU ID FUNCTION:NAME" header goes before the
 * first record (dtrace.c's chew()/chewrec()).  As in DTrace's kernel, a
 * clause whose statements record nothing (only assignments and
 * aggregations) produces no record and so no default line; a clause with
 * no statements at all does.  if/else runs one of its bodies; a firing
 * whose ifs skipped every recording statement leaves no record either,
 * as a false predicate (illumos runs each body as a predicated clause).
 * trace() prints by record size as dt_consume_cpu()'s record switch
 * does.
 *
 * Strings from the traced process (copyinstr(), string args[N],
 * execname: struct dv's tn) are printed made safe (sdk/text.h) by
 * printf()'s %s, trace() and the aggregation printing; in JSON output the
 * whole record is escaped as a JSON string instead.
 *
 * Where a record goes: to the output (the header before the first one),
 * or under speculate() to a speculative buffer (spec.c) that commit()
 * writes out after the committing record.  -F (flowindent) replaces the
 * default line with DTrace's indented flow column (flow_line()), and
 * -x oformat=json a whole record with one JSON object per line
 * (json_record()).  system() (with -w) runs its command when the record
 * is written, at the place in it where it was called; stop() and raise()
 * signal the firing process or thread at once and record nothing.
 *
 * Run-time errors (invalid address, division by zero) unwind with
 * longjmp to d_run() (d_fault()), which prints DTrace's "error on
 * enabled probe ID" line (dt_handle.c's dt_handle_err, dt_error.c's
 * fault strings); everything a clause allocates while it runs lives in a
 * per-run arena freed there.  A clause a generated BPF program ran at
 * the probe reports its fault through d_run_fault(), the same line.
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

/* A fault as DTrace numbers it (DTRACEFLT_*, ERROR's arg4). */
static int fault_code(int flt)
{
	switch (flt) {
	case FLT_BADADDR:
		return D_DTRACEFLT_BADADDR;
	case FLT_DIVZERO:
		return D_DTRACEFLT_DIVZERO;
	case FLT_NOSCRATCH:
		return D_DTRACEFLT_NOSCRATCH;
	default:
		return D_DTRACEFLT_ILLOP;
	}
}

static const char *fault_str(int flt)
{
	switch (flt) {
	case FLT_BADADDR:
		return "invalid address";
	case FLT_DIVZERO:
		return "divide-by-zero";
	case FLT_NOSCRATCH:
		return "out of scratch space";
	default:
		return "illegal operation";
	}
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

const char *d_arg_str(struct ectx *x, unsigned n, size_t max)
{
	const struct d_fire *f = x->f;

	if (f->str[n]) {
		size_t len = f->strlen[n];
		const char *nul = memchr(f->str[n], '\0', len);

		if (nul)
			len = (size_t)(nul - f->str[n]);
		if (len > max - 1)
			len = max - 1;
		return d_ar_strndup(&x->scratch, f->str[n], len);
	}
	return d_read_user_str(x, f->arg[n], max);
}

/* Size and signedness of a declared argument type name. */
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
	unsigned sa = a->sz < 4 ? 4 : a->sz, sb = b->sz < 4 ? 4 : b->sz;
	bool ga = a->sz < 4 ? true : a->sg, gb = b->sz < 4 ? true : b->sg;

	if (sa != sb) {
		*sz = sa > sb ? sa : sb;
		*sg = sa > sb ? ga : gb;
	} else {
		*sz = sa;
		*sg = ga && gb;
	}
}

static bool truth(const struct dv *v)
{
	if (v->k == K_STR)
		return v->s && *v->s;
	return v->i != 0;
}

static struct dv binop(struct ectx *x, int op, struct dv a, struct dv b)
{
	unsigned sz;
	bool sg;
	uint64_t ua, ub, r;

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
	if (op == OP_SHL || op == OP_SHR) {
		sz = a.sz < 4 ? 4 : a.sz;
		sg = a.sz < 4 ? true : a.sg;
		ub = (uint64_t)b.i & 63;
		if (op == OP_SHL)
			return reg((uint64_t)a.i << ub, sz, sg);
		if (sg)
			return reg((uint64_t)(a.i >> ub), sz, sg);
		return reg((uint64_t)a.i >> ub, sz, sg);
	}
	common_type(&a, &b, &sz, &sg);
	ua = (uint64_t)a.i;
	ub = (uint64_t)b.i;
	switch (op) {
	case '+':
		r = ua + ub;
		break;
	case '-':
		r = ua - ub;
		break;
	case '*':
		r = ua * ub;
		break;
	case '/':
	case '%':
		if (!ub)
			d_fault(x, FLT_DIVZERO, 0);
		if (sg) {
			if (a.i == INT64_MIN && b.i == -1)
				r = op == '/' ? (uint64_t)INT64_MIN : 0;
			else
				r = (uint64_t)(op == '/' ? a.i / b.i
							 : a.i % b.i);
		} else {
			r = op == '/' ? ua / ub : ua % ub;
		}
		break;
	case '&':
		r = ua & ub;
		break;
	case '|':
		r = ua | ub;
		break;
	case '^':
		r = ua ^ ub;
		break;
	case OP_EQ:
		return d_dv_int(a.i == b.i, 4, true);
	case OP_NE:
		return d_dv_int(a.i != b.i, 4, true);
	case '<':
		return d_dv_int(sg ? a.i < b.i : ua < ub, 4, true);
	case '>':
		return d_dv_int(sg ? a.i > b.i : ua > ub, 4, true);
	case OP_LE:
		return d_dv_int(sg ? a.i <= b.i : ua <= ub, 4, true);
	case OP_GE:
		return d_dv_int(sg ? a.i >= b.i : ua >= ub, 4, true);
	default:
		d_fault(x, FLT_ILLOP, 0);
	}
	return reg(r, sz, sg);
}

/* Key of a self-> variable or an associative array element. */
static void dyn_key(struct ectx *x, const struct node *n, struct sbuf *k)
{
	unsigned sc = (unsigned)x->p->vars[n->sub].scope, i;
	uint32_t id = (uint32_t)n->sub;

	d_sb_add(k, (const char *)&sc, sizeof(sc));
	if (sc == SC_SELF || sc == SC_SELFASSOC) {
		int32_t tid = (int32_t)x->f->tid;

		d_sb_add(k, (const char *)&tid, sizeof(tid));
	}
	d_sb_add(k, (const char *)&id, sizeof(id));
	for (i = 0; i < n->nargs; i++) {
		struct dv v = d_eval(x, n->args[i]);

		d_key_add(k, &v);
	}
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
 * A variable's value.  A string variable cleared by 0 (an integer in its
 * slot, or a dynamic one absent) reads "", as DTrace's string functions
 * read a NULL string; *null (when asked) says it is NULL, for what reads
 * a NULL string's memory (s[i]: str_index()).
 */
static struct dv var_get_null(struct ectx *x, const struct node *n,
			      bool *null)
{
	struct d_prog *p = x->p;
	int sc = p->vars[n->sub].scope;
	bool isstr = p->vars[n->sub].kind == T_STR;
	struct sbuf k = { 0 };
	struct hent *e;
	struct dv v;

	if (null)
		*null = false;
	if (sc == SC_GLOBAL || sc == SC_THIS) {
		v = sc == SC_GLOBAL ? p->gval[n->sub] : p->cval[n->sub];
		if (n->sou) /* a struct it holds: its bytes, for '.' */
			return d_sou_get(x, n, v);
		if (v.k == K_INT && isstr) { /* cleared by 0 */
			if (null)
				*null = true;
			return d_dv_str("");
		}
		return copy_out(x, v);
	}
	dyn_key(x, n, &k);
	e = d_ht_find(&p->dyn, k.b, k.len);
	free(k.b);
	if (!e && isstr && null)
		*null = true;
	v = e ? copy_out(x, e->val) : zero_of(x, (unsigned)n->sub);
	return v;
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

static void var_set(struct ectx *x, const struct node *n, struct dv v)
{
	struct d_prog *p = x->p;
	int sc = p->vars[n->sub].scope;
	struct sbuf k = { 0 };
	struct hent *e;

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
	e = d_ht_find(&p->dyn, k.b, k.len);
	/* assigning zero frees a dynamic variable, as in DTrace */
	if (v.k == K_INT && v.i == 0) {
		if (e)
			d_ht_remove(&p->dyn, e);
	} else {
		if (!e)
			e = d_ht_insert(&p->dyn, k.b, k.len);
		store(&e->val, v);
	}
	free(k.b);
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

struct dv d_eval(struct ectx *x, const struct node *n)
{
	struct dv a, b;

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
		if (n->sub == '!')
			return d_dv_int(!a.i, 4, true);
		if (a.sz < 4)
			a = d_dv_int(a.i, 4, true);
		if (n->sub == '~')
			return reg(~(uint64_t)a.i, a.sz, a.sg);
		if (n->sub == '-')
			return reg(0 - (uint64_t)a.i, a.sz, a.sg);
		return a;
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
	case N_BIN:
		a = d_eval(x, n->a);
		b = d_eval(x, n->b);
		if (n->ptr && n->ptr != D_PTR_VOID) /* C's pointer scaling */
			b = d_dv_int((int64_t)((uint64_t)b.i *
					       d_ptr_scale(x->p, n)),
				     8, b.sg);
		return binop(x, n->sub, a, b);
	case N_LAND:
		a = d_eval(x, n->a);
		if (!truth(&a))
			return d_dv_int(0, 4, true);
		b = d_eval(x, n->b);
		return d_dv_int(truth(&b), 4, true);
	case N_LOR:
		a = d_eval(x, n->a);
		if (truth(&a))
			return d_dv_int(1, 4, true);
		b = d_eval(x, n->b);
		return d_dv_int(truth(&b), 4, true);
	case N_LXOR:
		a = d_eval(x, n->a);
		b = d_eval(x, n->b);
		return d_dv_int(truth(&a) != truth(&b), 4, true);
	case N_TERN:
		a = d_eval(x, n->a);
		return truth(&a) ? d_eval(x, n->b) : d_eval(x, n->c);
	case N_ASSIGN:
		if (n->a->op == N_DEREF && n->a->ival) /* s[i] = c */
			return str_store(x, n);
		if (n->a->op == N_DEREF) { /* *p = v: into scratch (mem.c) */
			uint64_t at = d_deref_addr(x, n->a);

			b = d_eval(x, n->b);
			if (n->sub != '=')
				b = binop(x, d_compound_op(n->sub),
					  d_load(x, n->a, at), b);
			return d_store(x, n->a, at, b);
		}
		b = d_eval(x, n->b);
		if (n->b->sou) { /* this->s = *p: the bytes (mem.c) */
			struct d_prog *p = x->p;
			struct dv *slot = p->vars[n->a->sub].scope == SC_GLOBAL
						  ? &p->gval[n->a->sub]
						  : &p->cval[n->a->sub];
			struct dv v = d_sou_set(x, n->b, (uint64_t)b.i);

			if (slot->k == K_STR)
				free((char *)slot->s);
			*slot = v;
			return d_dv_int(0, 4, true);
		}
		if (n->sub != '=') {
			a = var_get(x, n->a);
			b = binop(x, d_compound_op(n->sub), a, b);
		}
		var_set(x, n->a, b);
		return b;
	case N_INCDEC:
		if (n->a->op == N_DEREF) { /* (*p)++: into scratch (mem.c) */
			uint64_t at = d_deref_addr(x, n->a);

			a = d_load(x, n->a, at);
			b = d_store(x, n->a, at,
				    binop(x, n->sub == OP_INC ? '+' : '-', a,
					  d_dv_int(1, 4, true)));
			return n->ival ? a : b;
		}
		a = var_get(x, n->a);
		b = binop(x, n->sub == OP_INC ? '+' : '-', a,
			  d_dv_int(1, 4, true));
		var_set(x, n->a, b);
		return n->ival ? a : b;
	}
	d_fault(x, FLT_ILLOP, 0);
}

/* ------------------------------------------------------------------ */
/* Statements */

/*
 * Whether integer expression n is the script's alone (literals and
 * operators on them): printf's %c prints such a byte as it is, and any
 * other (an argument, memory, a variable) made safe, as a string from a
 * traced process is (issue 28, part 3).
 */
static bool script_int(const struct node *n)
{
	switch (n->op) {
	case N_INT:
		return true;
	case N_UN:
	case N_CAST:
		return script_int(n->a);
	case N_BIN:
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		return script_int(n->a) && script_int(n->b);
	case N_TERN:
		return script_int(n->a) && script_int(n->b) &&
		       script_int(n->c);
	default:
		return false;
	}
}

/* printf() and system(): the text goes to sb; tainted strings are made
 * safe (struct dv) when esc. */
static void do_printf(struct ectx *x, const struct stmt *st, struct sbuf *sb,
		      bool esc)
{
	const struct pfmt *pf = st->pf;
	struct dv *vals = NULL;
	unsigned s, j = 0, i;

	if (st->nargs)
		vals = d_ar_alloc(&x->scratch, st->nargs * sizeof(*vals));
	for (i = 0; i < st->nargs; i++) {
		x->action = st->action + (int)i;
		vals[i] = d_eval(x, st->args[i]);
		if (vals[i].k == K_INT)
			vals[i].tn = !script_int(st->args[i]);
		if (vals[i].k == K_STR && !vals[i].show &&
		    strlen(vals[i].s) >= x->p->strsize)
			vals[i].s = d_ar_strndup(&x->scratch, vals[i].s,
						 x->p->strsize - 1);
	}
	for (s = 0; s < pf->nseg; s++) {
		const struct pfseg *d = &pf->seg[s];
		int width = d->width, prec = d->prec;

		d_sb_add(sb, d->prefix, d->preflen);
		if (!d->conv)
			continue;
		if (d->conv == '%') {
			d_sb_puts(sb, "%");
			continue;
		}
		if ((d->flags & PF_DYNW) && j < st->nargs)
			width = (int)(int32_t)vals[j++].i;
		if ((d->flags & PF_DYNP) && j < st->nargs)
			prec = (int)(int32_t)vals[j++].i;
		if (j >= st->nargs)
			break;
		if (d->conv == 'a' || d->conv == 'A') /* names (stack.c) */
			vals[j] = d_stack_addr(x, vals[j], d->conv);
		d_pf_one(sb, d, width, prec, &vals[j++], esc);
	}
}

/* trace(): dt_consume_cpu()'s record formats by size. */
static void do_trace(struct ectx *x, const struct dv *v)
{
	struct sbuf *sb = &x->out;
	bool q = x->p->quiet;
	long long i;
	int w;

	if (v->k == K_STR && v->show) { /* a stack or a name: stack.c */
		d_stack_print(sb, x->p, v);
		return;
	}
	if (v->k == K_STR) {
		/* made safe in JSON output too, which then quotes it */
		char *fr;
		const char *s = d_out_str(v, true, &fr);

		if (q)
			d_sb_printf(sb, "%s", s);
		else
			d_sb_printf(sb, "  %-33s", s);
		free(fr);
		return;
	}
	i = d_out_int(v, &w);
	if (q)
		d_sb_printf(sb, "%lld", i);
	else
		d_sb_printf(sb, " %*lld", w, i);
}

/*
 * setopt(name [, value]) while tracing: only the options libdtrace lets
 * change at run time; a refusal is reported as DTrace reports it (on the
 * error stream, the clause going on).
 */
static void do_setopt(struct ectx *x, const struct stmt *st)
{
	static const char *const runtime[] = {
		"aggsortkey", "aggsortkeypos", "aggsortpos", "aggsortrev",
		"quiet", "rawbytes", "switchrate", "aggrate", "strsize",
		"aggpack", "agghist", "aggzoom", NULL,
	};
	const char *name = st->args[0]->sval;
	/* one argument: libdtrace passes "1" */
	const char *value = st->nargs > 1 ? st->args[1]->sval : "1";
	const struct d_probe *pr = x->f->probe;
	char msg[200];
	unsigned i;
	int rc = -1;

	for (i = 0; runtime[i]; i++)
		if (strcmp(runtime[i], name) == 0)
			break;
	if (runtime[i]) {
		/* an empty value unsets (-x's empty value does not) */
		bool flag = strcmp(name, "aggsortkey") == 0 ||
			    strcmp(name, "aggsortrev") == 0 ||
			    strcmp(name, "quiet") == 0 ||
			    strcmp(name, "aggpack") == 0 ||
			    strcmp(name, "agghist") == 0 ||
			    strcmp(name, "aggzoom") == 0;

		rc = d_set_option(x->p, name, flag && !*value ? "unset" : value,
				  msg, sizeof(msg));
		if (rc < 0)
			snprintf(msg, sizeof(msg), "Invalid value for "
						   "specified option");
	} else if (!d_known_option(name)) {
		snprintf(msg, sizeof(msg), "Invalid option name");
	} else {
		snprintf(msg, sizeof(msg),
			 "Operation illegal when tracing is active");
	}
	if (rc == 0 || !x->err)
		return;
	fprintf(x->err,
		"dtrace: error on enabled probe ID %u (ID %u: %s:%s:%s:%s): "
		"couldn't set option \"%s\" to \"%s\": %s\n",
		x->f->epid, pr ? pr->id : 0, pr && pr->prov ? pr->prov : "",
		pr && pr->mod ? pr->mod : "", pr && pr->func ? pr->func : "",
		pr && pr->name ? pr->name : "", name, value, msg);
}

/* system(): run cmd when the record is written up to here. */
static void add_cmd(struct ectx *x, const char *cmd, size_t len)
{
	char **nc = d_ar_alloc(&x->scratch, (x->ncmds + 1) * sizeof(*nc));
	size_t *na = d_ar_alloc(&x->scratch, (x->ncmds + 1) * sizeof(*na));

	if (x->ncmds) {
		memcpy(nc, x->cmds, x->ncmds * sizeof(*nc));
		memcpy(na, x->cmdat, x->ncmds * sizeof(*na));
	}
	nc[x->ncmds] = d_ar_strndup(&x->scratch, cmd, len);
	na[x->ncmds] = x->out.len;
	x->cmds = nc;
	x->cmdat = na;
	x->ncmds++;
}

static void exec_stmt(struct ectx *x, const struct stmt *st)
{
	struct d_prog *p = x->p;
	struct dv v;

	x->action = st->action;
	if (st->kind != S_EXPR && st->kind != S_AGG && st->kind != S_IF &&
	    st->kind != S_STOP && st->kind != S_RAISE)
		x->recorded = true;
	switch (st->kind) {
	case S_IF:
		v = d_eval(x, st->e);
		if (truth(&v))
			for (unsigned i = 0; i < st->nbody; i++)
				exec_stmt(x, &st->body[i]);
		else
			for (unsigned i = 0; i < st->nels; i++)
				exec_stmt(x, &st->els[i]);
		break;
	case S_EXPR:
		(void)d_eval(x, st->e);
		break;
	case S_TRACEMEM:
		d_tracemem(x, st);
		break;
	case S_TRACE:
		v = d_eval(x, st->e);
		if (v.k == K_STR && !v.show && strlen(v.s) >= p->strsize)
			v.s = d_ar_strndup(&x->scratch, v.s, p->strsize - 1);
		do_trace(x, &v);
		break;
	case S_EXIT:
		v = d_eval(x, st->e);
		x->exited = true;
		x->status = (int)(int32_t)v.i;
		break;
	case S_PRINTF:
		/* made safe in JSON output too, which then quotes it */
		do_printf(x, st, &x->out, true);
		break;
	case S_SYSTEM: {
		struct sbuf cmd = { 0 };

		do_printf(x, st, &cmd, false); /* a command, not output */
		add_cmd(x, cmd.b ? cmd.b : "", cmd.len);
		free(cmd.b);
		break;
	}
	case S_STOP:
		/* the firing process, never dtrace itself (BEGIN, END) */
		if (x->f->pid > 0 && x->f->pid != getpid())
			(void)kill(x->f->pid, SIGSTOP);
		break;
	case S_RAISE:
		v = d_eval(x, st->e);
		if (v.i <= 0 || v.i >= NSIG)
			d_fault(x, FLT_ILLOP, 0);
		if (x->f->pid > 0 && x->f->tid > 0)
			(void)syscall(SYS_tgkill, x->f->pid, x->f->tid,
				      (int)v.i);
		break;
	case S_PRINTA:
		d_printa(p, st->aggv, st->naggv, st->pf,
			 p->json && !st->pf ? &x->after : &x->out);
		break;
	case S_NORMALIZE:
		x->action = st->action + 1;
		v = d_eval(x, st->e);
		if (v.i <= 0)
			d_fault(x, FLT_ILLOP, 0);
		p->aggs[st->agg].normal = (uint64_t)v.i;
		break;
	case S_DENORMALIZE:
		p->aggs[st->agg].normal = 1;
		break;
	case S_SETOPT:
		do_setopt(x, st);
		break;
	case S_SPECULATE:
		v = d_eval(x, st->e);
		x->speculating = true;
		x->spec = d_spec_get(x, v.i);
		break;
	case S_COMMIT:
	case S_DISCARD: {
		struct dspec *sp;

		v = d_eval(x, st->e);
		sp = d_spec_get(x, v.i);
		if (!sp)
			break;
		if (st->kind == S_DISCARD) {
			d_spec_free(sp);
			break;
		}
		for (unsigned i = 0; i < x->ncommits; i++)
			if (x->commits[i] == sp)
				sp = NULL;
		if (!sp)
			break;
		{
			struct dspec **nv = d_ar_alloc(
				&x->scratch, (x->ncommits + 1) * sizeof(*nv));

			if (x->ncommits)
				memcpy(nv, x->commits,
				       x->ncommits * sizeof(*nv));
			nv[x->ncommits++] = sp;
			x->commits = nv;
		}
		break;
	}
	case S_CLEAR:
		d_agg_clear(&p->aggs[st->agg]);
		break;
	case S_TRUNC:
		v = d_dv_int(0, 8, true);
		if (st->e) {
			x->action = st->action + 1;
			v = d_eval(x, st->e);
		}
		d_agg_trunc(p, &p->aggs[st->agg], v.i);
		break;
	case S_AGG:
		d_agg_update(x, &p->aggs[st->agg], st);
		break;
	}
}

/*
 * Records to the output; the "CPU ID FUNCTION:NAME" header before the
 * first one (also when it arrives by commit()).  A committed buffer may
 * hold no record (every speculated clause dropped): no header then.
 */
static void emit(struct d_prog *p, FILE *out, const char *b, size_t len)
{
	if (!len)
		return; /* quiet and silent, or nothing committed */
	if (!p->heading) {
		p->heading = true;
		/* dtrace.c's chew(): the flow header even when quiet */
		if (p->json)
			;
		else if (p->flowindent)
			fprintf(out, "%3s %-41s\n", "CPU", "FUNCTION");
		else if (!p->quiet)
			fprintf(out, "%3s %6s %32s\n", "CPU", "ID",
				"FUNCTION:NAME");
	}
	fwrite(b, 1, len, out);
}

/* A record with system() commands: each runs where it was called, after
 * what comes before it is written out (its output goes to dtrace's). */
static void emit_cmds(struct ectx *x, FILE *out, const char *b, size_t len,
		      size_t lead)
{
	size_t done = 0;

	for (unsigned i = 0; i < x->ncmds; i++) {
		size_t at = lead + x->cmdat[i];

		emit(x->p, out, b + done, at - done);
		done = at;
		fflush(out);
		if (system(x->cmds[i]) == -1 && x->err)
			fprintf(x->err, "dtrace: failed to run \"%s\": %s\n",
				x->cmds[i], strerror(errno));
	}
	emit(x->p, out, b + done, len - done);
}

/*
 * -F (flowindent), as dtrace(1) and libdtrace indent: a probe named
 * "entry" or "...-entry" is an entry (" -> ", syscall " => "), one named
 * "return" or "...-return" a return (" <- ", " <= "), anything else "| "
 * with FUNCTION:NAME; entries indent what follows by two, returns
 * unindent themselves.  Several clauses of one firing indent once: an
 * entry whose last record was the same probe from another clause is not
 * an entry, and a return is one only for the last clause that may match
 * it (libdtrace looks at the next record in the buffer; we look at the
 * descriptions of the clauses after this one).
 */
static int flow_kind(const char *n)
{
	size_t len = strlen(n);

	if ((len == 5 || (len > 5 && n[len - 6] == '-')) &&
	    strcmp(n + len - 5, "entry") == 0)
		return 1;
	if ((len == 6 || (len > 6 && n[len - 7] == '-')) &&
	    strcmp(n + len - 6, "return") == 0)
		return 2;
	return 0;
}

/* A description (fields right-aligned at its spec) matches probe pr. */
static bool desc_matches(const char *desc, int spec,
			 const struct d_probe *pr)
{
	const char *f[4] = { pr->prov, pr->mod, pr->func, pr->name };
	char buf[512], *parts[4], *q;
	int n = 0, last = spec >= 1 && spec <= 3 ? spec - 1 : 3, first;

	snprintf(buf, sizeof(buf), "%s", desc);
	for (q = buf;; q++) {
		char *colon = strchr(q, ':');

		if (n == 4)
			return false;
		parts[n++] = q;
		if (!colon)
			break;
		*colon = '\0';
		q = colon;
	}
	first = last - (n - 1);
	if (first < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (*parts[i] && fnmatch(parts[i], f[first + i] ? f[first + i]
								: "", 0) != 0)
			return false;
	return true;
}

static bool later_clause_matches(const struct d_prog *p, unsigned clause,
				 const struct d_probe *pr)
{
	for (unsigned i = clause + 1; i < p->nclauses; i++)
		for (unsigned j = 0; j < p->clauses[i].ndescs; j++)
			if (p->clauses[i].records &&
			    desc_matches(p->clauses[i].descs[j],
					 p->clauses[i].spec, pr))
				return true;
	return false;
}

static void flow_line(struct ectx *x, struct sbuf *rec)
{
	struct d_prog *p = x->p;
	const struct d_probe *pr = x->f->probe;
	int clause = (int)(x->c - p->clauses);
	const char *func = pr && pr->func ? pr->func : "";
	const char *n = pr && pr->name ? pr->name : "";
	bool sys = pr && pr->prov && strcmp(pr->prov, "syscall") == 0;
	int flow = flow_kind(n);
	const char *prefix;
	char name[1024];

	if (flow == 1 && p->flow_last_probe == pr &&
	    p->flow_last_clause != clause)
		flow = 0;
	if (flow == 2 && pr && later_clause_matches(p, (unsigned)clause, pr))
		flow = 0;
	prefix = flow == 1 ? (sys ? " => " : " -> ")
		 : flow == 2 ? (sys ? " <= " : " <- ")
			     : "| ";
	if (flow == 2 && p->flow_depth > 0)
		p->flow_depth -= 2;
	if (flow)
		snprintf(name, sizeof(name), "%*s%s%s", p->flow_depth, "",
			 prefix, func);
	else
		snprintf(name, sizeof(name), "%*s%s%s:%s", p->flow_depth, "",
			 prefix, func, n);
	d_sb_printf(rec, "%3d %-41s ", x->f->cpu, name);
	if (flow == 1)
		p->flow_depth += 2;
	p->flow_last_probe = pr;
	p->flow_last_clause = clause;
}

/*
 * -x oformat=json: a record is one line, {"cpu":N,"id":ID,"provider":
 * ...,"module":...,"function":...,"name":...,"output":"..."} with what
 * the clause printed as a JSON string (d_json_str(): no control bytes,
 * no ill-formed UTF-8).
 */
static void json_record(struct ectx *x, struct sbuf *rec)
{
	const struct d_probe *pr = x->f->probe;
	const char *f[4] = { "", "", "", "" };
	static const char *const names[4] = { "provider", "module",
					       "function", "name" };

	if (pr) {
		f[0] = pr->prov ? pr->prov : "";
		f[1] = pr->mod ? pr->mod : "";
		f[2] = pr->func ? pr->func : "";
		f[3] = pr->name ? pr->name : "";
	}
	d_sb_printf(rec, "{\"cpu\":%d,\"id\":%u", x->f->cpu,
		    pr ? pr->id : 0);
	for (unsigned i = 0; i < 4; i++) {
		d_sb_printf(rec, ",\"%s\":", names[i]);
		d_json_str(rec, f[i], strlen(f[i]));
	}
	d_sb_puts(rec, ",\"output\":");
	d_json_str(rec, x->out.b ? x->out.b : "", x->out.len);
	d_sb_puts(rec, "}\n");
}

/* The clause proper; a fault longjmps out to d_run(). */
static void run_clause(struct ectx *x, FILE *out)
{
	struct d_prog *p = x->p;
	const struct clause *c = x->c;
	const struct d_probe *pr = x->f->probe;
	unsigned i;

	if (c->pred) {
		struct dv v;

		x->action = 0;
		v = d_eval(x, c->pred);
		if (!truth(&v))
			return;
	}
	for (i = 0; i < c->nstmts; i++)
		exec_stmt(x, &c->stmts[i]);
	/* a record when a recording statement ran (an if may skip them
	 * all, as a false predicate does), or the clause has none */
	if (c->records && (x->recorded || !c->nstmts)) {
		struct sbuf rec = { 0 };
		size_t lead;

		if (p->json) {
			json_record(x, &rec);
			/* commands run after the record */
			for (i = 0; i < x->ncmds; i++)
				x->cmdat[i] = 0;
			lead = rec.len;
		} else {
			if (p->flowindent) {
				flow_line(x, &rec);
			} else if (!p->quiet) {
				char name[512];

				snprintf(name, sizeof(name), "%s:%s",
					 pr && pr->func ? pr->func : "",
					 pr && pr->name ? pr->name : "");
				d_sb_printf(&rec, "%3d %6d %32s ", x->f->cpu,
					    pr ? (int)pr->id : 0, name);
			}
			lead = rec.len;
			if (x->out.len)
				d_sb_add(&rec, x->out.b, x->out.len);
			if (!p->quiet)
				d_sb_puts(&rec, "\n");
		}
		/* JSON: printa()'s rows, records of their own */
		if (x->after.len)
			d_sb_add(&rec, x->after.b, x->after.len);
		if (x->speculating)
			d_spec_record(p, x->spec, rec.b ? rec.b : "", rec.len);
		else
			emit_cmds(x, out, rec.b ? rec.b : "", rec.len, lead);
		free(rec.b);
	}
	/* what commit() committed follows the committing record */
	for (i = 0; i < x->ncommits; i++) {
		emit(p, out, x->commits[i]->buf.b, x->commits[i]->buf.len);
		d_spec_free(x->commits[i]);
	}
	if (x->exited) {
		p->exit_status = x->status;
		x->rv |= D_RUN_EXIT;
	}
}

static bool is_error_probe(const struct d_probe *pr)
{
	return pr && pr->prov && pr->name && strcmp(pr->prov, "dtrace") == 0 &&
	       strcmp(pr->name, "ERROR") == 0;
}

/*
 * A fault: DTrace's message on err, and what dtrace:::ERROR fires with
 * kept for d_error_enter().  A fault in an ERROR clause fires nothing
 * (no recursion) and prints no message: it is counted, and reported as
 * DTrace reports it ("1 error in ERROR probe enabling").
 */
static int report_fault(const struct ectx *x, FILE *err)
{
	const struct d_probe *pr = x->f->probe;
	struct d_prog *p = x->p;
	char details[40] = "", where[32];

	if (is_error_probe(pr)) {
		p->dblerrors++;
		return D_RUN_ERROR;
	}
	p->errors++;
	p->flt_epid = x->f->epid;
	p->flt_action = x->action;
	p->flt_type = fault_code(x->fault);
	p->flt_addr = x->fault == FLT_BADADDR ? x->faddr : 0;

	if (x->fault == FLT_BADADDR)
		snprintf(details, sizeof(details), " (0x%llx)",
			 (unsigned long long)x->faddr);
	if (x->action == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%d", x->action);
	if (err)
		fprintf(err,
			"dtrace: error on enabled probe ID %u (ID %u: "
			"%s:%s:%s:%s): %s%s in %s\n",
			x->f->epid, pr ? pr->id : 0,
			pr && pr->prov ? pr->prov : "",
			pr && pr->mod ? pr->mod : "",
			pr && pr->func ? pr->func : "",
			pr && pr->name ? pr->name : "",
			fault_str(x->fault), details, where);
	return D_RUN_ERROR | D_RUN_FAULT;
}

/* The faulting firing's clause-local state, while ERROR's clauses run. */
struct d_errsave {
	struct dv *cval;
	char *tok_str;
	size_t tok_pos;
	bool tok_tn;
	const struct d_probe *last_probe;
	uint64_t last_ts;
	pid_t last_tid;
	int last_cpu, last_clause;
};

void d_error_enter(struct d_prog *p, struct d_fire *f)
{
	struct d_errsave *sv;

	if (!p || p->errsave)
		return;
	sv = xcalloc(1, sizeof(*sv));
	sv->cval = p->cval;
	sv->tok_str = p->tok_str;
	sv->tok_pos = p->tok_pos;
	sv->tok_tn = p->tok_tn;
	sv->last_probe = p->last_probe;
	sv->last_ts = p->last_ts;
	sv->last_tid = p->last_tid;
	sv->last_cpu = p->last_cpu;
	sv->last_clause = p->last_clause;
	p->errsave = sv;
	/* integers: d_run() sets them up at ERROR's first clause */
	p->cval = xcalloc(p->nval, sizeof(*p->cval));
	p->tok_str = NULL;
	p->tok_pos = 0;
	p->last_probe = NULL;
	/* DTrace's arguments: arg0 is its state (none here), arg3 the DIF
	 * offset, which an evaluator of trees does not have: -1, "not
	 * applicable" */
	memset(f->arg, 0, sizeof(f->arg));
	f->arg[1] = p->flt_epid;
	f->arg[2] = (uint64_t)(int64_t)p->flt_action;
	f->arg[3] = (uint64_t)-1;
	f->arg[4] = (uint64_t)(int64_t)p->flt_type;
	f->arg[5] = p->flt_addr;
	for (unsigned i = 0; i < D_MAXARGS; i++) {
		f->str[i] = NULL;
		f->strlen[i] = 0;
		f->mem[i] = NULL;
		f->memlen[i] = 0;
	}
}

void d_error_leave(struct d_prog *p)
{
	struct d_errsave *sv = p ? p->errsave : NULL;

	if (!sv)
		return;
	for (unsigned i = 0; i < p->nval; i++)
		if (p->cval[i].k == K_STR)
			free((char *)p->cval[i].s);
	free(p->cval);
	free(p->tok_str);
	p->cval = sv->cval;
	p->tok_str = sv->tok_str;
	p->tok_pos = sv->tok_pos;
	p->tok_tn = sv->tok_tn;
	p->last_probe = sv->last_probe;
	p->last_ts = sv->last_ts;
	p->last_tid = sv->last_tid;
	p->last_cpu = sv->last_cpu;
	p->last_clause = sv->last_clause;
	p->errsave = NULL;
	free(sv);
}

int d_run(struct d_prog *p, unsigned clause, const struct d_fire *f,
	  FILE *out, FILE *err)
{
	const struct d_probe *pr = f->probe;
	struct ectx *x;
	unsigned i;
	int rv;

	if (!p || clause >= p->nclauses)
		return 0;
	/*
	 * this-> variables last for one firing, across its clauses: a new
	 * firing is a different probe, time, thread or CPU, or a clause
	 * that does not follow the last one run.
	 */
	if (pr != p->last_probe || f->timestamp != p->last_ts ||
	    f->tid != p->last_tid || f->cpu != p->last_cpu ||
	    (int)clause <= p->last_clause) {
		for (i = 0; i < p->nval; i++) {
			if (p->cval[i].k == K_STR)
				free((char *)p->cval[i].s);
			p->cval[i] = p->vars[i].kind == T_STR
					     ? d_dv_str(xstrdup(""))
					     : d_var_zero(&p->vars[i]);
		}
		free(p->tok_str);
		p->tok_str = NULL;
		p->tok_pos = 0;
		p->last_probe = pr;
		p->last_ts = f->timestamp;
		p->last_tid = f->tid;
		p->last_cpu = f->cpu;
	}
	p->last_clause = (int)clause;
	x = xcalloc(1, sizeof(*x));
	x->p = p;
	x->c = &p->clauses[clause];
	x->f = f;
	x->err = err;
	if (setjmp(x->jb) == 0) {
		run_clause(x, out);
	} else {
		x->rv = report_fault(x, err);
	}
	d_spec_tick(p, f->timestamp, err);
	rv = x->rv;
	free(x->out.b);
	free(x->after.b);
	d_ar_free(&x->scratch);
	free(x);
	return rv;
}

int d_run_fault(struct d_prog *p, unsigned clause, const struct d_fire *f,
		int action, uint64_t addr, FILE *err)
{
	struct ectx x = { 0 };

	if (!p || clause >= p->nclauses)
		return 0;
	x.p = p;
	x.c = &p->clauses[clause];
	x.f = f;
	x.err = err;
	x.action = action;
	x.fault = FLT_BADADDR;
	x.faddr = addr;
	return report_fault(&x, err);
}

void d_thread_exit(struct d_prog *p, pid_t tid)
{
	size_t i;

	if (!p || !p->dyn.nb)
		return;
	for (i = 0; i < p->dyn.nb; i++) {
		struct hent *e = p->dyn.b[i], *n;

		for (; e; e = n) {
			unsigned sc;
			int32_t t;

			n = e->next;
			if (e->klen < sizeof(sc) + sizeof(t))
				continue;
			memcpy(&sc, e->key, sizeof(sc));
			memcpy(&t, e->key + sizeof(sc), sizeof(t));
			if ((sc == SC_SELF || sc == SC_SELFASSOC) &&
			    t == (int32_t)tid)
				d_ht_remove(&p->dyn, e);
		}
	}
}

size_t d_self_live(const struct d_prog *p)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->dyn.nb; i++)
		for (const struct hent *e = p->dyn.b[i]; e; e = e->next) {
			unsigned sc;

			if (e->klen < sizeof(sc) + sizeof(int32_t))
				continue;
			memcpy(&sc, e->key, sizeof(sc));
			n += sc == SC_SELF || sc == SC_SELFASSOC;
		}
	return n;
}
