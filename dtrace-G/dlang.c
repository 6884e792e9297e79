// SPDX-License-Identifier: MIT
/*
 * dlang.c - the D language of `dtrace -n` / `dtrace -s` (contract in
 * dlang.h): a hand-written lexer and recursive-descent parser that build a
 * small tree per clause, a tree-walking evaluator run once per firing, and
 * the printers that reproduce what DTrace's consumer prints.
 *
 * Values.  Every value is a 64-bit integer or a string, and carries the C
 * type DTrace would give it: a size (1, 2, 4, 8) and a signedness.  DTrace
 * prints by record size (trace() of an int is " %8d", of a uint64_t
 * " %16lld"; an aggregation key of type int is " %8d") and picks %u or %i
 * for printf's %d by signedness, so the type travels with the value:
 * pid is an int, arg0 an int64_t, an integer literal an int when it fits.
 * args[N] takes its type from the probe's declared argument type at run
 * time.  Arithmetic follows C's usual conversions.
 *
 * Output.  A clause's output is built in a buffer and written only when
 * the clause completes, so a run-time error discards it, as DTrace's
 * kernel discards the record of a faulting ECB.  Unless quiet, a
 * committed record is "%3d %6d %32s " (CPU, probe ID, FUNCTION:NAME), the
 * traced data, and "\n"; the "CPU ID FUNCTION:NAME" header goes before the
 * first record (dtrace.c's chew()/chewrec()).  As in DTrace's kernel, a
 * clause whose statements record nothing (only assignments and
 * aggregations) produces no record and so no default line; a clause with
 * no statements at all does.
 *
 * Layouts, all from illumos libdtrace: trace() and aggregation keys and
 * values from dt_consume.c (dt_consume_cpu's record switch,
 * dt_print_datum's width table, dt_print_bytes), quantize()/lquantize()
 * from dt_print_quantize/dt_print_lquantize/dt_print_quantline, printf
 * conversions from dt_printf.c's conversion table, the sort order from
 * dt_aggregate.c (variable, value, then keys), errors from dt_handle.c's
 * dt_handle_err and dt_error.c's fault strings.
 *
 * Run-time errors unwind with longjmp to d_run(); everything a clause
 * allocates while it runs lives in a per-run arena freed there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dlang.h"

#define D_STRSIZE 256 /* DTrace's default strsize, NUL included */

/* ------------------------------------------------------------------ */
/* Small helpers */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("dtrace: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		fputs("dtrace: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("dtrace: out of memory\n", stderr);
		abort();
	}
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* A growing output buffer. */
struct sbuf {
	char *b;
	size_t len, cap;
};

static void sb_add(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->b = xrealloc(sb->b, sb->cap);
	}
	memcpy(sb->b + sb->len, s, n);
	sb->len += n;
	sb->b[sb->len] = '\0';
}

static void sb_puts(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char tmp[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sb_add(sb, tmp, (size_t)n);
		return;
	}
	if (sb->len + (size_t)n + 1 > sb->cap) {
		sb->cap = (sb->len + (size_t)n + 1) * 2;
		sb->b = xrealloc(sb->b, sb->cap);
	}
	va_start(ap, fmt);
	vsnprintf(sb->b + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* A bump allocator: compile-time trees (per program) and run-time
 * scratch (per d_run). */
struct arena {
	struct ablk *blk;
};

struct ablk {
	struct ablk *next;
	size_t used, cap;
	max_align_t data[];
};

static void *ar_alloc(struct arena *a, size_t n)
{
	struct ablk *b = a->blk;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->used + n > b->cap) {
		size_t cap = n > 8192 ? n : 8192;

		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		b->next = a->blk;
		a->blk = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

static char *ar_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = ar_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void ar_free(struct arena *a)
{
	struct ablk *b, *n;

	for (b = a->blk; b; b = n) {
		n = b->next;
		free(b);
	}
	a->blk = NULL;
}

/* ------------------------------------------------------------------ */
/* Values */

enum { K_INT, K_STR };

struct dv {
	int64_t i;
	const char *s;
	uint8_t k;  /* K_INT or K_STR */
	uint8_t sz; /* 1, 2, 4, 8 for integers */
	uint8_t sg; /* signed */
};

static struct dv dv_int(int64_t v, unsigned sz, bool sg)
{
	struct dv d = { .k = K_INT, .sz = (uint8_t)sz, .sg = sg };

	switch (sz) {
	case 1:
		d.i = sg ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
		break;
	case 2:
		d.i = sg ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
		break;
	case 4:
		d.i = sg ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
		break;
	default:
		d.sz = 8;
		d.i = v;
	}
	return d;
}

static struct dv dv_str(const char *s)
{
	struct dv d = { .k = K_STR, .s = s, .sz = 8 };

	return d;
}

/* ------------------------------------------------------------------ */
/* Hash table with byte-string keys: self-> and associative variables,
 * and the index of aggregation entries. */

struct hent {
	struct hent *next;
	uint64_t hash;
	size_t klen;
	struct dv val; /* strings owned (malloc) */
	size_t idx;    /* aggregation entry index */
	unsigned char key[];
};

struct htab {
	struct hent **b;
	size_t nb, n;
};

static uint64_t hash_bytes(const unsigned char *k, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--) {
		h ^= *k++;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct hent *ht_find(struct htab *t, const void *key, size_t klen)
{
	uint64_t h;
	struct hent *e;

	if (!t->nb)
		return NULL;
	h = hash_bytes(key, klen);
	for (e = t->b[h % t->nb]; e; e = e->next)
		if (e->hash == h && e->klen == klen &&
		    memcmp(e->key, key, klen) == 0)
			return e;
	return NULL;
}

static struct hent *ht_insert(struct htab *t, const void *key, size_t klen)
{
	struct hent *e;
	size_t i;

	if (t->n + 1 > t->nb * 2) {
		size_t nb = t->nb ? t->nb * 4 : 64;
		struct hent **b = xcalloc(nb, sizeof(*b));

		for (i = 0; i < t->nb; i++) {
			struct hent *x, *nx;

			for (x = t->b[i]; x; x = nx) {
				nx = x->next;
				x->next = b[x->hash % nb];
				b[x->hash % nb] = x;
			}
		}
		free(t->b);
		t->b = b;
		t->nb = nb;
	}
	e = xcalloc(1, sizeof(*e) + klen);
	e->hash = hash_bytes(key, klen);
	e->klen = klen;
	memcpy(e->key, key, klen);
	e->next = t->b[e->hash % t->nb];
	t->b[e->hash % t->nb] = e;
	t->n++;
	return e;
}

static void ht_remove(struct htab *t, struct hent *victim)
{
	struct hent **pp;

	for (pp = &t->b[victim->hash % t->nb]; *pp; pp = &(*pp)->next) {
		if (*pp == victim) {
			*pp = victim->next;
			t->n--;
			if (victim->val.k == K_STR)
				free((char *)victim->val.s);
			free(victim);
			return;
		}
	}
}

static void ht_clear(struct htab *t)
{
	size_t i;

	for (i = 0; i < t->nb; i++) {
		struct hent *e, *n;

		for (e = t->b[i]; e; e = n) {
			n = e->next;
			if (e->val.k == K_STR)
				free((char *)e->val.s);
			free(e);
		}
	}
	free(t->b);
	t->b = NULL;
	t->nb = t->n = 0;
}

/* Serialize a tuple of values into a key. */
static void key_add(struct sbuf *k, const struct dv *v)
{
	if (v->k == K_STR) {
		sb_add(k, "s", 1);
		sb_add(k, v->s, strlen(v->s) + 1);
	} else {
		unsigned char t[3] = { 'i', v->sz, v->sg };

		sb_add(k, (const char *)t, 3);
		sb_add(k, (const char *)&v->i, sizeof(v->i));
	}
}

/* ------------------------------------------------------------------ */
/* The program */

enum {
	/* expression nodes */
	N_INT,
	N_STR,
	N_VAR,	   /* global, self-> or this-> scalar */
	N_ASSOC,   /* global associative array element */
	N_BUILTIN, /* pid, execname, ... */
	N_ARGN,	   /* arg0..arg11 */
	N_ARGS,	   /* args[expr] */
	N_FUNC,	   /* copyinstr, strlen, ... */
	N_UN,	   /* unary operator */
	N_BIN,	   /* binary operator */
	N_LAND,
	N_LOR,
	N_LXOR,
	N_TERN,
	N_ASSIGN, /* op: '=' or the compound operator */
	N_INCDEC, /* op: OP_INC/OP_DEC; ival 1 = postfix */
	N_CAST,
};

/* multi-character operators */
enum {
	OP_ARROW = 256,
	OP_INC,
	OP_DEC,
	OP_SHL,
	OP_SHR,
	OP_LE,
	OP_GE,
	OP_EQ,
	OP_NE,
	OP_LAND,
	OP_LOR,
	OP_LXOR,
	OP_ADDEQ,
	OP_SUBEQ,
	OP_MULEQ,
	OP_DIVEQ,
	OP_MODEQ,
	OP_ANDEQ,
	OP_OREQ,
	OP_XOREQ,
	OP_SHLEQ,
	OP_SHREQ,
};

enum {
	B_PID,
	B_PPID,
	B_TID,
	B_UID,
	B_EXECNAME,
	B_TIMESTAMP,
	B_VTIMESTAMP,
	B_WALLTIMESTAMP,
	B_CPU,
	B_PROBEPROV,
	B_PROBEMOD,
	B_PROBEFUNC,
	B_PROBENAME,
	B_ID,
	B_EPID,
};

static const struct {
	const char *name;
	int id;
	uint8_t str, sz, sg;
} builtins[] = {
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

enum { F_COPYINSTR, F_STRLEN, F_STRINGOF, F_LLTOSTR, F_STRJOIN };

static const struct {
	const char *name;
	int id;
	unsigned minargs, maxargs;
} funcs[] = {
	{ "copyinstr", F_COPYINSTR, 1, 2 },
	{ "strlen", F_STRLEN, 1, 1 },
	{ "stringof", F_STRINGOF, 1, 1 },
	{ "lltostr", F_LLTOSTR, 1, 1 },
	{ "strjoin", F_STRJOIN, 2, 2 },
};

/* compile-time kinds */
enum { T_ANY, T_INT, T_STR };

enum { SC_GLOBAL, SC_SELF, SC_THIS, SC_ASSOC };

struct var {
	char *name;
	int scope;
	int kind; /* T_ANY until assigned */
	bool assigned;
};

struct node {
	int op;
	int sub; /* operator, builtin, function, variable index */
	int line, col;
	int64_t ival;
	uint8_t sz, sg; /* N_INT, N_CAST */
	char *sval;
	struct node *a, *b, *c;
	struct node **args;
	unsigned nargs;
	int kind; /* T_* after checking */
};

/* printf conversion */
#define PF_ALT 0x01
#define PF_ZPAD 0x02
#define PF_LEFT 0x04
#define PF_SPOS 0x08
#define PF_DYNW 0x10
#define PF_DYNP 0x20
#define PF_GROUP 0x40
#define PF_SPACE 0x80
#define PF_AGG 0x100

struct pfseg {
	const char *prefix;
	size_t preflen;
	char conv; /* 0: prefix only */
	char name[8];
	unsigned flags;
	int width, prec;
};

struct pfmt {
	char *fmt;
	struct pfseg *seg;
	unsigned nseg;
};

enum { AG_COUNT, AG_SUM, AG_AVG, AG_MIN, AG_MAX, AG_QUANTIZE, AG_LQUANTIZE };

static const char *const agg_fn_names[] = {
	"count", "sum", "avg", "min", "max", "quantize", "lquantize",
};

#define QZ_NBUCKETS 127
#define QZ_ZERO 63

struct aent {
	struct dv *keys; /* strings owned */
	unsigned nkeys;
	int64_t *data;
};

struct agg {
	char *name; /* "" for the anonymous @ */
	unsigned varid;
	int fn;
	int nkeys; /* -1 until defined */
	int32_t lq_base;
	uint16_t lq_step, lq_levels;
	bool defined, printed;
	struct aent *ents;
	size_t n, cap;
	struct htab index;
};

enum {
	S_EXPR,
	S_PRINTF,
	S_TRACE,
	S_EXIT,
	S_PRINTA,
	S_CLEAR,
	S_TRUNC,
	S_AGG,
};

struct stmt {
	int kind;
	int line, col;
	int action; /* DTrace action number of the statement's first action */
	struct node *e;
	struct node **args;
	unsigned nargs;
	struct pfmt *pf;
	unsigned agg; /* index in prog->aggs */
	struct node **keys;
	unsigned nkeys;
};

struct clause {
	char **descs;
	unsigned ndescs;
	int spec;
	struct node *pred;
	struct stmt *stmts;
	unsigned nstmts;
	bool records; /* a firing leaves a record (default line) */
	uint16_t strargs;
	uint32_t needs; /* d_clause_needs() */
};

struct opt {
	char *name, *value;
};

struct d_prog {
	struct arena pool;
	struct clause *clauses;
	unsigned nclauses;
	struct var *vars;
	unsigned nvars;
	struct agg *aggs;
	unsigned naggs;
	struct opt *opts;
	unsigned nopts;
	bool quiet;
	bool defaultargs;
	bool aggsortrev, aggsortkey;
	size_t strsize;
	int exit_status;
	bool heading;
	/* storage */
	struct dv *gval;   /* per var (globals) */
	struct dv *cval;   /* per var (this->) */
	unsigned nval;
	struct htab dyn;   /* self-> and associative arrays */
	/* clause-local variables live for one firing */
	const struct d_probe *last_probe;
	uint64_t last_ts;
	pid_t last_tid;
	int last_cpu;
	int last_clause;
};

/* ------------------------------------------------------------------ */
/* Options */

static const char *const known_opts[] = {
	"quiet",       "bufsize",     "switchrate",  "aggsize",
	"aggrate",     "strsize",     "dynvarsize",  "cleanrate",
	"statusrate",  "nspec",	      "specsize",    "defaultargs",
	"aggsortrev",  "aggsortkey",  "bufpolicy",   "bufresize",
	"stackframes", "ustackframes", "zdefs",      "rawbytes",
	"cpu",	       "grabanon",    "temporal",    NULL,
};

static int set_option(struct d_prog *p, const char *name, const char *value,
		      char *msg, size_t msglen)
{
	unsigned i;

	if (strcmp(name, "destructive") == 0 || strcmp(name, "flowindent") == 0) {
		snprintf(msg, msglen, "option %s is not supported", name);
		return -1;
	}
	for (i = 0; known_opts[i]; i++)
		if (strcmp(known_opts[i], name) == 0)
			break;
	if (!known_opts[i]) {
		snprintf(msg, msglen,
			 "failed to set option '%s': Invalid option name", name);
		return -1;
	}
	if (strcmp(name, "strsize") == 0) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = value ? strtoull(value, &end, 0) : 0;
		if (!value || errno || *end || v < 2 || v > 65536) {
			snprintf(msg, msglen,
				 "failed to set option 'strsize' to '%s': "
				 "Invalid value for specified option",
				 value ? value : "");
			return -1;
		}
		p->strsize = (size_t)v;
	}
	if (strcmp(name, "quiet") == 0)
		p->quiet = true;
	else if (strcmp(name, "defaultargs") == 0)
		p->defaultargs = true;
	else if (strcmp(name, "aggsortrev") == 0)
		p->aggsortrev = true;
	else if (strcmp(name, "aggsortkey") == 0)
		p->aggsortkey = true;
	for (i = 0; i < p->nopts; i++)
		if (strcmp(p->opts[i].name, name) == 0)
			break;
	if (i == p->nopts) {
		p->opts = xrealloc(p->opts, (p->nopts + 1) * sizeof(*p->opts));
		p->opts[i].name = xstrdup(name);
		p->opts[i].value = NULL;
		p->nopts++;
	}
	free(p->opts[i].value);
	p->opts[i].value = xstrdup(value ? value : "");
	return 0;
}

static struct d_prog *prog_new(void)
{
	struct d_prog *p = xcalloc(1, sizeof(*p));

	p->strsize = D_STRSIZE;
	p->last_cpu = -1;
	p->last_clause = -1;
	return p;
}

/* ------------------------------------------------------------------ */
/* Lexer and parser */

enum { TK_EOF, TK_INT, TK_STR, TK_ID, TK_AGG, TK_OP };

struct tok {
	int t;
	int op;
	int64_t i;
	uint8_t sz, sg;
	char *s; /* TK_STR, TK_ID, TK_AGG (pool) */
	int line, col;
	const char *start, *end;
};

struct lexpos {
	const char *p;
	int line, col;
};

struct parser {
	struct d_prog *prog;
	const struct d_compile_opts *o;
	const char *src;
	struct lexpos pos;
	struct tok tk; /* current token */
	bool in_pred;
	jmp_buf jb;
	char *msg;
	size_t msglen;
	int action; /* action counter of the current clause */
	struct clause *cl; /* this unit's clauses */
	unsigned ncl;
	struct sbuf tmp; /* text being lexed */
};

static void __attribute__((noreturn, format(printf, 4, 5)))
perr(struct parser *ps, int line, int col, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->msg, ps->msglen, "line %d, column %d: ", line, col);
	if (n < 0 || (size_t)n >= ps->msglen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(ps->msg + n, ps->msglen - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(ps->jb, 1);
}

static void lx_adv(struct lexpos *l)
{
	if (*l->p == '\n') {
		l->line++;
		l->col = 1;
	} else {
		l->col++;
	}
	l->p++;
}

/* Skip blanks and comments. */
static void lx_skip(struct parser *ps)
{
	struct lexpos *l = &ps->pos;

	for (;;) {
		if (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' ||
		    *l->p == '\r' || *l->p == '\f' || *l->p == '\v') {
			lx_adv(l);
		} else if (l->p[0] == '/' && l->p[1] == '*') {
			int line = l->line, col = l->col;

			lx_adv(l);
			lx_adv(l);
			while (*l->p && !(l->p[0] == '*' && l->p[1] == '/'))
				lx_adv(l);
			if (!*l->p)
				perr(ps, line, col, "end-of-file encountered "
						    "before matching */");
			lx_adv(l);
			lx_adv(l);
		} else if (l->p[0] == '/' && l->p[1] == '/') {
			while (*l->p && *l->p != '\n')
				lx_adv(l);
		} else {
			return;
		}
	}
}

static char *pool_strndup(struct parser *ps, const char *s, size_t n)
{
	return ar_strndup(&ps->prog->pool, s, n);
}

/*
 * Room for one more element of a parse-time array.  Parse-time memory
 * comes from the program's pool so that a compile error, which
 * longjmps out of any depth, leaks nothing.
 */
static void *pool_grow(struct parser *ps, void *old, unsigned n, size_t sz)
{
	void *p = ar_alloc(&ps->prog->pool, (n + 1) * sz);

	if (n)
		memcpy(p, old, n * sz);
	return p;
}

/* $1..$N, $$1.., $target, $pid: the macro's text, or NULL (error). */
static const char *macro_text(struct parser *ps, const char *name,
			      bool *is_int, char *buf, size_t buflen, int line,
			      int col)
{
	const struct d_compile_opts *o = ps->o;

	*is_int = false;
	if (strcmp(name, "target") == 0) {
		if (!o || o->target <= 0)
			perr(ps, line, col,
			     "macro $target is not defined: use -c or -p");
		snprintf(buf, buflen, "%d", (int)o->target);
		*is_int = true;
		return buf;
	}
	if (strcmp(name, "pid") == 0) {
		snprintf(buf, buflen, "%d", (int)getpid());
		*is_int = true;
		return buf;
	}
	if (isdigit((unsigned char)name[0])) {
		unsigned long n = strtoul(name, NULL, 10);

		if (n == 0) {
			snprintf(buf, buflen, "%s",
				 o && o->srcname ? o->srcname : "dtrace");
			return buf;
		}
		if (!o || n > o->macro_argc) {
			if (ps->prog->defaultargs) {
				*is_int = true;
				return "";
			}
			perr(ps, line, col,
			     "macro argument $%lu is not defined", n);
		}
		return o->macro_argv[n - 1];
	}
	perr(ps, line, col, "macro $%s is not defined", name);
}

static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	(void)strtoll(s, &end, 0);
	return !errno && !*end;
}

static void lex_number(struct parser *ps, struct tok *t)
{
	struct lexpos *l = &ps->pos;
	const char *s = l->p;
	char *end;
	uint64_t v;
	bool hex = false, uns = false;
	int lng = 0;

	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		hex = true;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		perr(ps, t->line, t->col, "integer constant is too large");
	if (s[0] == '0' && !hex && end - s > 1)
		hex = true; /* octal: same rules as hex */
	while (l->p < end)
		lx_adv(l);
	for (;;) {
		if (*l->p == 'u' || *l->p == 'U')
			uns = true;
		else if (*l->p == 'l' || *l->p == 'L')
			lng++;
		else
			break;
		lx_adv(l);
	}
	if (isalnum((unsigned char)*l->p) || *l->p == '_')
		perr(ps, t->line, t->col, "invalid digit or suffix in "
					  "integer constant");
	t->t = TK_INT;
	t->i = (int64_t)v;
	/* C's rules: the first of int, [unsigned int,] long [, unsigned
	 * long] that holds the value, narrowed by the suffixes */
	if (!lng && !uns && v <= INT32_MAX) {
		t->sz = 4, t->sg = 1;
	} else if (!lng && (uns || hex) && v <= UINT32_MAX) {
		t->sz = 4, t->sg = 0;
	} else if (!uns && v <= INT64_MAX) {
		t->sz = 8, t->sg = 1;
	} else {
		t->sz = 8, t->sg = 0;
	}
}

static int esc_char(struct parser *ps, int line, int col)
{
	struct lexpos *l = &ps->pos;
	int c = *l->p, v;

	lx_adv(l);
	switch (c) {
	case 'n':
		return '\n';
	case 't':
		return '\t';
	case 'r':
		return '\r';
	case 'a':
		return '\a';
	case 'b':
		return '\b';
	case 'f':
		return '\f';
	case 'v':
		return '\v';
	case '\\':
	case '\'':
	case '"':
	case '?':
		return c;
	case 'x':
		v = 0;
		if (!isxdigit((unsigned char)*l->p))
			perr(ps, line, col, "invalid escape sequence");
		while (isxdigit((unsigned char)*l->p)) {
			int d = *l->p;

			v = v * 16 + (isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10));
			lx_adv(l);
		}
		return v & 0xff;
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7': {
		int n = 1;

		v = c - '0';
		while (n < 3 && *l->p >= '0' && *l->p <= '7') {
			v = v * 8 + (*l->p - '0');
			lx_adv(l);
			n++;
		}
		return v & 0xff;
	}
	default:
		perr(ps, line, col, "invalid escape sequence \\%c", c);
	}
}

static const struct {
	const char *s;
	int op;
} ops3[] = { { "<<=", OP_SHLEQ }, { ">>=", OP_SHREQ } },
  ops2[] = { { "->", OP_ARROW }, { "++", OP_INC },   { "--", OP_DEC },
	     { "<<", OP_SHL },	 { ">>", OP_SHR },   { "<=", OP_LE },
	     { ">=", OP_GE },	 { "==", OP_EQ },    { "!=", OP_NE },
	     { "&&", OP_LAND },	 { "||", OP_LOR },   { "^^", OP_LXOR },
	     { "+=", OP_ADDEQ }, { "-=", OP_SUBEQ }, { "*=", OP_MULEQ },
	     { "/=", OP_DIVEQ }, { "%=", OP_MODEQ }, { "&=", OP_ANDEQ },
	     { "|=", OP_OREQ },	 { "^=", OP_XOREQ } };

static void lex(struct parser *ps)
{
	struct lexpos *l = &ps->pos;
	struct tok *t = &ps->tk;
	const char *s;
	unsigned i;

	lx_skip(ps);
	memset(t, 0, sizeof(*t));
	t->line = l->line;
	t->col = l->col;
	t->start = l->p;
	s = l->p;
	if (!*s) {
		t->t = TK_EOF;
	} else if (isdigit((unsigned char)*s)) {
		lex_number(ps, t);
	} else if (isalpha((unsigned char)*s) || *s == '_') {
		while (isalnum((unsigned char)*l->p) || *l->p == '_')
			lx_adv(l);
		t->t = TK_ID;
		t->s = pool_strndup(ps, s, (size_t)(l->p - s));
	} else if (*s == '@') {
		lx_adv(l);
		while (isalnum((unsigned char)*l->p) || *l->p == '_')
			lx_adv(l);
		t->t = TK_AGG;
		t->s = pool_strndup(ps, s + 1, (size_t)(l->p - s - 1));
	} else if (*s == '"') {
		struct sbuf *sb = &ps->tmp;

		sb->len = 0;
		lx_adv(l);
		while (*l->p != '"') {
			if (!*l->p || *l->p == '\n')
				perr(ps, t->line, t->col,
				     "newline encountered in string literal");
			if (*l->p == '\\') {
				char c;

				lx_adv(l);
				c = (char)esc_char(ps, t->line, t->col);
				sb_add(sb, &c, 1);
			} else {
				sb_add(sb, l->p, 1);
				lx_adv(l);
			}
		}
		lx_adv(l);
		t->t = TK_STR;
		t->s = pool_strndup(ps, sb->b ? sb->b : "", sb->len);
	} else if (*s == '\'') {
		int c;

		lx_adv(l);
		if (*l->p == '\\') {
			lx_adv(l);
			c = esc_char(ps, t->line, t->col);
		} else if (*l->p && *l->p != '\'') {
			c = (unsigned char)*l->p;
			lx_adv(l);
		} else {
			perr(ps, t->line, t->col, "empty character constant");
		}
		if (*l->p != '\'')
			perr(ps, t->line, t->col,
			     "unterminated character constant");
		lx_adv(l);
		t->t = TK_INT;
		t->i = (int8_t)c;
		t->sz = 4;
		t->sg = 1;
	} else if (*s == '$') {
		char name[64], buf[64];
		const char *txt;
		bool isint, dbl = false;
		size_t n = 0;

		lx_adv(l);
		if (*l->p == '$') {
			dbl = true;
			lx_adv(l);
		}
		while ((isalnum((unsigned char)*l->p) || *l->p == '_') &&
		       n < sizeof(name) - 1) {
			name[n++] = *l->p;
			lx_adv(l);
		}
		name[n] = '\0';
		if (!n)
			perr(ps, t->line, t->col, "syntax error near \"$\"");
		txt = macro_text(ps, name, &isint, buf, sizeof(buf), t->line,
				 t->col);
		if (!dbl && (isint || is_number(txt))) {
			t->t = TK_INT;
			t->i = *txt ? (int64_t)strtoll(txt, NULL, 0) : 0;
			if (t->i >= INT32_MIN && t->i <= INT32_MAX)
				t->sz = 4;
			else
				t->sz = 8;
			t->sg = 1;
		} else {
			t->t = TK_STR;
			t->s = pool_strndup(ps, txt, strlen(txt));
		}
	} else {
		t->t = TK_OP;
		for (i = 0; i < sizeof(ops3) / sizeof(ops3[0]); i++)
			if (strncmp(s, ops3[i].s, 3) == 0) {
				t->op = ops3[i].op;
				lx_adv(l);
				lx_adv(l);
				lx_adv(l);
				goto done;
			}
		for (i = 0; i < sizeof(ops2) / sizeof(ops2[0]); i++)
			if (strncmp(s, ops2[i].s, 2) == 0) {
				t->op = ops2[i].op;
				lx_adv(l);
				lx_adv(l);
				goto done;
			}
		if (!strchr("+-*/%&|^!~<>=?:;,()[]{}.", *s))
			perr(ps, t->line, t->col, "invalid character '%c'",
			     isprint((unsigned char)*s) ? *s : '?');
		t->op = (unsigned char)*s;
		lx_adv(l);
	}
done:
	t->end = l->p;
}

static void __attribute__((noreturn)) syntax_error(struct parser *ps)
{
	struct tok *t = &ps->tk;

	if (t->t == TK_EOF)
		perr(ps, t->line, t->col,
		     "syntax error near end of input");
	perr(ps, t->line, t->col, "syntax error near \"%.*s\"",
	     (int)(t->end - t->start), t->start);
}

static bool is_op(struct parser *ps, int op)
{
	return ps->tk.t == TK_OP && ps->tk.op == op;
}

static void expect(struct parser *ps, int op)
{
	if (!is_op(ps, op))
		syntax_error(ps);
	lex(ps);
}

static struct node *mknode(struct parser *ps, int op, const struct tok *at)
{
	struct node *n = ar_alloc(&ps->prog->pool, sizeof(*n));

	n->op = op;
	n->line = at->line;
	n->col = at->col;
	return n;
}

static unsigned var_lookup(struct d_prog *p, int scope, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nvars; i++)
		if (p->vars[i].scope == scope &&
		    strcmp(p->vars[i].name, name) == 0)
			return i;
	p->vars = xrealloc(p->vars, (p->nvars + 1) * sizeof(*p->vars));
	p->vars[i].name = xstrdup(name);
	p->vars[i].scope = scope;
	p->vars[i].kind = T_ANY;
	p->vars[i].assigned = false;
	p->nvars++;
	return i;
}

static struct node *parse_expr(struct parser *ps);
static struct node *parse_assign(struct parser *ps);

/* A type name for a cast: size and signedness, or false. */
static bool cast_type(const char *name, uint8_t *sz, uint8_t *sg)
{
	static const struct {
		const char *n;
		uint8_t sz, sg;
	} t[] = {
		{ "char", 1, 1 },      { "short", 2, 1 },    { "int", 4, 1 },
		{ "long", 8, 1 },      { "int8_t", 1, 1 },   { "int16_t", 2, 1 },
		{ "int32_t", 4, 1 },   { "int64_t", 8, 1 },  { "uint8_t", 1, 0 },
		{ "uint16_t", 2, 0 },  { "uint32_t", 4, 0 }, { "uint64_t", 8, 0 },
		{ "uintptr_t", 8, 0 }, { "intptr_t", 8, 1 }, { "size_t", 8, 0 },
		{ "ssize_t", 8, 1 },   { "pid_t", 4, 1 },    { "uid_t", 4, 0 },
		{ "gid_t", 4, 0 },     { "off_t", 8, 1 },    { "_Bool", 1, 0 },
		{ "bool", 1, 0 },      { "uint_t", 4, 0 },   { "ulong_t", 8, 0 },
		{ "signed", 4, 1 },    { "unsigned", 4, 0 },
	};
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].n, name) == 0) {
			*sz = t[i].sz;
			*sg = t[i].sg;
			return true;
		}
	return false;
}

/* After '(' when the next token names a type: the cast's type. */
static void parse_cast_type(struct parser *ps, uint8_t *sz, uint8_t *sg)
{
	bool uns = false, sgn = false, any = false;
	uint8_t s = 4, g = 1;

	while (ps->tk.t == TK_ID) {
		uint8_t tsz, tsg;

		if (strcmp(ps->tk.s, "const") == 0 ||
		    strcmp(ps->tk.s, "volatile") == 0) {
		} else if (strcmp(ps->tk.s, "unsigned") == 0) {
			uns = true;
		} else if (strcmp(ps->tk.s, "signed") == 0) {
			sgn = true;
		} else if (strcmp(ps->tk.s, "long") == 0 && any) {
			s = 8; /* long long */
		} else if (strcmp(ps->tk.s, "int") == 0 && any) {
			/* unsigned int, short int, long int */
		} else if (cast_type(ps->tk.s, &tsz, &tsg)) {
			s = tsz;
			g = tsg;
		} else {
			break;
		}
		any = true;
		lex(ps);
	}
	if (uns)
		g = 0;
	else if (sgn)
		g = 1;
	while (is_op(ps, '*')) {
		s = 8;
		g = 0;
		lex(ps);
	}
	*sz = s;
	*sg = g;
}

static bool starts_type(struct parser *ps)
{
	uint8_t sz, sg;

	if (ps->tk.t != TK_ID)
		return false;
	return cast_type(ps->tk.s, &sz, &sg) ||
	       strcmp(ps->tk.s, "const") == 0 ||
	       strcmp(ps->tk.s, "unsigned") == 0 ||
	       strcmp(ps->tk.s, "signed") == 0;
}

static struct node **parse_args(struct parser *ps, unsigned *nargs, int close)
{
	struct node **v = NULL;
	unsigned n = 0;

	if (!is_op(ps, close)) {
		for (;;) {
			v = pool_grow(ps, v, n, sizeof(*v));
			v[n++] = parse_assign(ps);
			if (!is_op(ps, ','))
				break;
			lex(ps);
		}
	}
	expect(ps, close);
	*nargs = n;
	return v;
}

static const char *const action_names[] = {
	"printf", "trace", "exit", "printa", "clear", "trunc", NULL,
};

static bool is_action_name(const char *s)
{
	unsigned i;

	for (i = 0; action_names[i]; i++)
		if (strcmp(action_names[i], s) == 0)
			return true;
	return false;
}

static struct node *parse_primary(struct parser *ps)
{
	struct tok t = ps->tk;
	struct node *n;
	unsigned i;

	switch (t.t) {
	case TK_INT:
		n = mknode(ps, N_INT, &t);
		n->ival = t.i;
		n->sz = t.sz;
		n->sg = t.sg;
		lex(ps);
		return n;
	case TK_STR:
		n = mknode(ps, N_STR, &t);
		n->sval = t.s;
		lex(ps);
		return n;
	case TK_OP:
		if (t.op == '(') {
			lex(ps);
			n = parse_expr(ps);
			expect(ps, ')');
			return n;
		}
		syntax_error(ps);
	case TK_ID:
		break;
	default:
		syntax_error(ps);
	}
	lex(ps);
	if (strcmp(t.s, "self") == 0 || strcmp(t.s, "this") == 0) {
		int scope = t.s[0] == 's' ? SC_SELF : SC_THIS;

		if (!is_op(ps, OP_ARROW))
			syntax_error(ps);
		lex(ps);
		if (ps->tk.t != TK_ID)
			syntax_error(ps);
		n = mknode(ps, N_VAR, &t);
		n->sub = (int)var_lookup(ps->prog, scope, ps->tk.s);
		lex(ps);
		return n;
	}
	if (strncmp(t.s, "arg", 3) == 0 && isdigit((unsigned char)t.s[3])) {
		char *end;
		unsigned long k = strtoul(t.s + 3, &end, 10);

		if (!*end && k < D_MAXARGS && (t.s[3] != '0' || !t.s[4])) {
			n = mknode(ps, N_ARGN, &t);
			n->sub = (int)k;
			return n;
		}
	}
	if (strcmp(t.s, "args") == 0) {
		expect(ps, '[');
		n = mknode(ps, N_ARGS, &t);
		n->a = parse_expr(ps);
		expect(ps, ']');
		return n;
	}
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, t.s) == 0) {
			n = mknode(ps, N_BUILTIN, &t);
			n->sub = (int)i;
			return n;
		}
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strcmp(funcs[i].name, t.s) == 0) {
			if (!is_op(ps, '('))
				syntax_error(ps);
			lex(ps);
			n = mknode(ps, N_FUNC, &t);
			n->sub = (int)i;
			n->args = parse_args(ps, &n->nargs, ')');
			if (n->nargs < funcs[i].minargs ||
			    n->nargs > funcs[i].maxargs)
				perr(ps, t.line, t.col,
				     "%s( ) prototype mismatch: %u args "
				     "passed, %u expected",
				     t.s, n->nargs, funcs[i].minargs);
			return n;
		}
	if (is_action_name(t.s))
		perr(ps, t.line, t.col,
		     "%s( ) may not be used in an expression", t.s);
	if (is_op(ps, '('))
		perr(ps, t.line, t.col, "failed to resolve %s: "
					"Unknown function name", t.s);
	if (is_op(ps, '[')) {
		lex(ps);
		n = mknode(ps, N_ASSOC, &t);
		n->sub = (int)var_lookup(ps->prog, SC_ASSOC, t.s);
		n->args = parse_args(ps, &n->nargs, ']');
		if (!n->nargs)
			syntax_error(ps);
		return n;
	}
	n = mknode(ps, N_VAR, &t);
	n->sub = (int)var_lookup(ps->prog, SC_GLOBAL, t.s);
	return n;
}

static struct node *parse_postfix(struct parser *ps)
{
	struct node *n = parse_primary(ps);

	while (is_op(ps, OP_INC) || is_op(ps, OP_DEC)) {
		struct node *m = mknode(ps, N_INCDEC, &ps->tk);

		m->sub = ps->tk.op;
		m->ival = 1;
		m->a = n;
		lex(ps);
		n = m;
	}
	return n;
}

static struct node *parse_unary(struct parser *ps)
{
	struct tok t = ps->tk;
	struct node *n;

	if (t.t == TK_OP) {
		switch (t.op) {
		case '!':
		case '~':
		case '-':
		case '+':
			lex(ps);
			n = mknode(ps, N_UN, &t);
			n->sub = t.op;
			n->a = parse_unary(ps);
			return n;
		case OP_INC:
		case OP_DEC:
			lex(ps);
			n = mknode(ps, N_INCDEC, &t);
			n->sub = t.op;
			n->a = parse_unary(ps);
			return n;
		case '(': {
			struct lexpos save = ps->pos;
			struct tok savet = ps->tk;

			lex(ps);
			if (starts_type(ps)) {
				n = mknode(ps, N_CAST, &t);
				parse_cast_type(ps, &n->sz, &n->sg);
				expect(ps, ')');
				n->a = parse_unary(ps);
				return n;
			}
			ps->pos = save;
			ps->tk = savet;
			break;
		}
		default:
			break;
		}
	}
	return parse_postfix(ps);
}

/* Binary operator precedence, lowest 1; 0: not a binary operator. */
static int binprec(struct parser *ps, int op)
{
	switch (op) {
	case OP_LOR:
		return 1;
	case OP_LXOR:
		return 2;
	case OP_LAND:
		return 3;
	case '|':
		return 4;
	case '^':
		return 5;
	case '&':
		return 6;
	case OP_EQ:
	case OP_NE:
		return 7;
	case '<':
	case '>':
	case OP_LE:
	case OP_GE:
		return 8;
	case OP_SHL:
	case OP_SHR:
		return 9;
	case '+':
	case '-':
		return 10;
	case '/':
		/*
		 * In a predicate, '/' ends it when what follows is the
		 * clause body, the end of input or a new line: the usual
		 * "/pred/ {" and "/pred/\n{".
		 */
		if (ps->in_pred) {
			const char *q = ps->pos.p;

			while (*q == ' ' || *q == '\t' || *q == '\r')
				q++;
			if (!*q || *q == '{' || *q == '\n')
				return 0;
		}
		return 11;
	case '*':
	case '%':
		return 11;
	default:
		return 0;
	}
}

static struct node *parse_binary(struct parser *ps, int minprec)
{
	struct node *l = parse_unary(ps);

	for (;;) {
		struct tok t = ps->tk;
		int prec = t.t == TK_OP ? binprec(ps, t.op) : 0;
		struct node *n;

		if (!prec || prec < minprec)
			return l;
		lex(ps);
		switch (t.op) {
		case OP_LAND:
			n = mknode(ps, N_LAND, &t);
			break;
		case OP_LOR:
			n = mknode(ps, N_LOR, &t);
			break;
		case OP_LXOR:
			n = mknode(ps, N_LXOR, &t);
			break;
		default:
			n = mknode(ps, N_BIN, &t);
			n->sub = t.op;
		}
		n->a = l;
		n->b = parse_binary(ps, prec + 1);
		l = n;
	}
}

static struct node *parse_cond(struct parser *ps)
{
	struct node *c = parse_binary(ps, 1), *n;
	struct tok t = ps->tk;
	bool pred = ps->in_pred;

	if (!is_op(ps, '?'))
		return c;
	lex(ps);
	n = mknode(ps, N_TERN, &t);
	n->a = c;
	ps->in_pred = false;
	n->b = parse_assign(ps);
	ps->in_pred = pred;
	expect(ps, ':');
	n->c = parse_cond(ps);
	return n;
}

static bool is_assign_op(int op)
{
	return op == '=' || (op >= OP_ADDEQ && op <= OP_SHREQ);
}

static struct node *parse_assign(struct parser *ps)
{
	struct node *l = parse_cond(ps), *n;
	struct tok t = ps->tk;

	if (t.t != TK_OP || !is_assign_op(t.op))
		return l;
	if (l->op != N_VAR && l->op != N_ASSOC)
		perr(ps, t.line, t.col,
		     "operator %s can only be applied to a writable variable",
		     t.op == '=' ? "=" : "op=");
	lex(ps);
	n = mknode(ps, N_ASSIGN, &t);
	n->sub = t.op;
	n->a = l;
	n->b = parse_assign(ps);
	return n;
}

static struct node *parse_expr(struct parser *ps)
{
	struct node *n = parse_assign(ps);

	/* the comma operator is not D's: ',' separates arguments */
	return n;
}

/* ------------------------------------------------------------------ */
/* printf formats (dt_printf.c's conversions and flags) */

static const struct {
	const char *name;
	char conv;  /* what we print */
	int argkind; /* T_INT, T_STR */
	const char *proto;
} pfconvs[] = {
	{ "a", 'a', T_INT, "pointer or integer" },
	{ "A", 'A', T_INT, "pointer or integer" },
	{ "c", 'c', T_INT, "char, short, or int" },
	{ "C", 'C', T_INT, "char, short, or int" },
	{ "d", 'd', T_INT, "char, short, int, long, or long long" },
	{ "hd", 'd', T_INT, "short" },
	{ "hi", 'i', T_INT, "short" },
	{ "ho", 'o', T_INT, "unsigned short" },
	{ "hu", 'u', T_INT, "unsigned short" },
	{ "hx", 'x', T_INT, "short" },
	{ "hX", 'X', T_INT, "short" },
	{ "hhd", 'd', T_INT, "char" },
	{ "hhu", 'u', T_INT, "unsigned char" },
	{ "hhx", 'x', T_INT, "char" },
	{ "i", 'i', T_INT, "char, short, int, long, or long long" },
	{ "ld", 'd', T_INT, "long" },
	{ "li", 'i', T_INT, "long" },
	{ "lo", 'o', T_INT, "unsigned long" },
	{ "lu", 'u', T_INT, "unsigned long" },
	{ "lx", 'x', T_INT, "long" },
	{ "lX", 'X', T_INT, "long" },
	{ "lld", 'd', T_INT, "long long" },
	{ "lli", 'i', T_INT, "long long" },
	{ "llo", 'o', T_INT, "unsigned long long" },
	{ "llu", 'u', T_INT, "unsigned long long" },
	{ "llx", 'x', T_INT, "long long" },
	{ "llX", 'X', T_INT, "long long" },
	{ "o", 'o', T_INT, "char, short, int, long, or long long" },
	{ "p", 'p', T_INT, "pointer or integer" },
	{ "s", 's', T_STR, "char [] or string (or use stringof)" },
	{ "S", 'S', T_STR, "char [] or string (or use stringof)" },
	{ "T", 'T', T_INT, "int64_t" },
	{ "u", 'u', T_INT, "char, short, int, long, or long long" },
	{ "x", 'x', T_INT, "char, short, int, long, or long long" },
	{ "X", 'X', T_INT, "char, short, int, long, or long long" },
	{ "Y", 'Y', T_INT, "int64_t" },
	{ "%", '%', T_ANY, "void" },
};

static int pfconv_lookup(const char *name)
{
	unsigned i;

	for (i = 0; i < sizeof(pfconvs) / sizeof(pfconvs[0]); i++)
		if (strcmp(pfconvs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Split a format into segments, as dt_printf_create() does. */
static struct pfmt *pf_create(struct parser *ps, const char *s,
			      const struct tok *at, const char *func)
{
	struct pfmt *pf = ar_alloc(&ps->prog->pool, sizeof(*pf));
	const char *p, *q;
	struct pfseg *seg = NULL;
	unsigned n = 0;

	pf->fmt = pool_strndup(ps, s, strlen(s));
	if (!*s)
		perr(ps, at->line, at->col, "%s( ) format string is empty",
		     func);
	for (q = pf->fmt; (p = strchr(q, '%')) != NULL; q = *p ? p + 1 : p) {
		struct pfseg *d;
		char name[8];
		unsigned namelen = 0;
		int digits = 0, dot = 0, c, k;

		seg = pool_grow(ps, seg, n, sizeof(*seg));
		d = &seg[n++];
		memset(d, 0, sizeof(*d));
		d->prefix = q;
		d->preflen = (size_t)(p - q);
		for (;;) {
			c = *++p;
			if (isdigit(c)) {
				int v = 0;

				if (!dot && !digits && c == '0') {
					d->flags |= PF_ZPAD;
					d->flags &= ~PF_LEFT;
					continue;
				}
				while (isdigit((unsigned char)*p))
					v = v * 10 + (*p++ - '0');
				p--;
				if (dot)
					d->prec = v;
				else
					d->width = v;
				digits++;
				continue;
			}
			switch (c) {
			case '#':
				d->flags |= PF_ALT;
				continue;
			case '*': {
				unsigned f = dot ? PF_DYNP : PF_DYNW;

				if (d->flags & f) {
					perr(ps, at->line, at->col,
					     "format conversion #%u has more "
					     "than one '*' specified for the "
					     "output %s",
					     n, dot ? "precision" : "width");
				}
				d->flags |= f;
				continue;
			}
			case '+':
				d->flags |= PF_SPOS;
				continue;
			case '-':
				d->flags |= PF_LEFT;
				d->flags &= ~PF_ZPAD;
				continue;
			case '.':
				if (dot++) {
					perr(ps, at->line, at->col,
					     "format conversion #%u has more "
					     "than one '.' specified", n);
				}
				digits = 0;
				continue;
			case '?':
				d->width = 16;
				continue;
			case '@':
				d->flags |= PF_AGG;
				continue;
			case '\'':
				d->flags |= PF_GROUP;
				continue;
			case ' ':
				d->flags |= PF_SPACE;
				continue;
			case '$':
				perr(ps, at->line, at->col,
				     "format conversion #%u uses unsupported "
				     "positional format (%%n$)", n);
			case '%':
				if (p[-1] == '%')
					break;
				perr(ps, at->line, at->col,
				     "format conversion #%u cannot be "
				     "combined with other format flags: %%%%",
				     n);
			case '\0':
				perr(ps, at->line, at->col,
				     "format conversion #%u name expected "
				     "before end of format string", n);
			case 'h':
			case 'l':
			case 'L':
			case 'w':
				if (namelen < sizeof(name) - 2)
					name[namelen++] = (char)c;
				continue;
			default:
				break;
			}
			break;
		}
		name[namelen++] = (char)c;
		name[namelen] = '\0';
		k = pfconv_lookup(name);
		if (k < 0) {
			perr(ps, at->line, at->col,
			     "format conversion #%u is undefined: %%%s", n,
			     name);
		}
		memcpy(d->name, name, namelen + 1);
		d->conv = pfconvs[k].conv;
	}
	if (*q) {
		seg = pool_grow(ps, seg, n, sizeof(*seg));
		seg[n].prefix = q;
		seg[n].preflen = strlen(q);
		n++;
	}
	pf->seg = seg;
	pf->nseg = n;
	return pf;
}

static const char *kind_name(int k)
{
	return k == T_STR ? "string" : k == T_INT ? "int" : "unknown";
}

/*
 * Check a format against its arguments (dt_printf_validate()): every
 * conversion needs an argument of a compatible kind, '*' needs an
 * integer; printf() may not have extra arguments.  keys: for printa(),
 * the kinds of the aggregation's keys (NULL when unknown yet).
 */
static void pf_validate(struct parser *ps, struct pfmt *pf, const char *func,
			struct node **args, unsigned nargs, const int *keys,
			unsigned nkeys, bool printa, const struct tok *at)
{
	unsigned i, j = 0;
	unsigned navail = printa ? nkeys : nargs;

	for (i = 0; i < pf->nseg; i++) {
		struct pfseg *d = &pf->seg[i];
		int k, want, got;

		if (!d->conv || d->conv == '%')
			continue;
		k = pfconv_lookup(d->name);
		for (int dyn = 0; dyn < 2; dyn++) {
			/* the width's argument comes first */
			unsigned f = dyn ? PF_DYNP : PF_DYNW;

			if (!(d->flags & f))
				continue;
			if (j >= navail)
				perr(ps, at->line, at->col,
				     "%s( ) prototype mismatch: conversion "
				     "#%u (%%%s) is missing a corresponding "
				     "\"%s\" argument",
				     func, i + 1, d->name, dyn ? ".*" : "*");
			got = printa ? (keys ? keys[j] : T_ANY)
				     : args[j]->kind;
			if (got == T_STR)
				perr(ps, at->line, at->col,
				     "%s( ) argument #%u is incompatible with "
				     "conversion #%u prototype:\n\tconversion:"
				     " %% %s %s\n\t prototype: int\n\t  "
				     "argument: string",
				     func, j + 2, i + 1, dyn ? ".*" : "*",
				     d->name);
			j++;
		}
		if (d->flags & PF_AGG) {
			if (!printa)
				perr(ps, at->line, at->col,
				     "%%@ conversion requires an aggregation "
				     "and is not for use with %s( )", func);
			continue;
		}
		if (j >= navail)
			perr(ps, at->line, at->col,
			     "%s( ) prototype mismatch: conversion #%u (%%%s) "
			     "is missing a corresponding value argument",
			     func, i + 1, d->name);
		got = printa ? (keys ? keys[j] : T_ANY) : args[j]->kind;
		want = pfconvs[k].argkind;
		if (got != T_ANY && want != T_ANY && got != want)
			perr(ps, at->line, at->col,
			     "%s( ) %s #%u is incompatible with conversion "
			     "#%u prototype:\n\tconversion: %%%s\n\t "
			     "prototype: %s\n\t  argument: %s",
			     func, printa ? "key" : "argument",
			     printa ? j + 1 : j + 2, i + 1, d->name,
			     pfconvs[k].proto, kind_name(got));
		j++;
	}
	if (!printa && j < nargs)
		perr(ps, at->line, at->col,
		     "%s( ) prototype mismatch: only %u arguments required "
		     "by this format string", func, j);
}

/* ------------------------------------------------------------------ */
/* Type checking (kinds: integer or string) */

static int check(struct parser *ps, struct node *n, bool strict);

static void need_int(struct parser *ps, struct node *n, int k,
		     const char *what, bool strict)
{
	if (strict && k == T_STR)
		perr(ps, n->line, n->col,
		     "operator %s requires an operand of integer type", what);
}

static const char *op_name(int op)
{
	static char b[2];

	switch (op) {
	case OP_SHL:
		return "<<";
	case OP_SHR:
		return ">>";
	case OP_LE:
		return "<=";
	case OP_GE:
		return ">=";
	case OP_EQ:
		return "==";
	case OP_NE:
		return "!=";
	case OP_INC:
		return "++";
	case OP_DEC:
		return "--";
	default:
		b[0] = (char)op;
		b[1] = '\0';
		return b;
	}
}

static int check(struct parser *ps, struct node *n, bool strict)
{
	struct d_prog *p = ps->prog;
	int ka, kb, kc;
	unsigned i;

	switch (n->op) {
	case N_INT:
		return n->kind = T_INT;
	case N_STR:
		return n->kind = T_STR;
	case N_VAR:
	case N_ASSOC: {
		struct var *v = &p->vars[n->sub];

		for (i = 0; i < n->nargs; i++)
			check(ps, n->args[i], strict);
		if (strict && !v->assigned && v->scope == SC_GLOBAL)
			perr(ps, n->line, n->col,
			     "failed to resolve %s: Unknown variable name",
			     v->name);
		if (strict && !v->assigned && v->scope == SC_ASSOC)
			perr(ps, n->line, n->col,
			     "failed to resolve %s: Unknown variable name",
			     v->name);
		return n->kind = v->kind;
	}
	case N_BUILTIN:
		return n->kind = builtins[n->sub].str ? T_STR : T_INT;
	case N_ARGN:
		return n->kind = T_INT;
	case N_ARGS:
		ka = check(ps, n->a, strict);
		need_int(ps, n->a, ka, "[ ]", strict);
		return n->kind = T_ANY;
	case N_FUNC:
		for (i = 0; i < n->nargs; i++)
			check(ps, n->args[i], strict);
		switch (funcs[n->sub].id) {
		case F_COPYINSTR:
			if (strict && n->args[0]->kind == T_STR)
				perr(ps, n->line, n->col,
				     "copyinstr( ) argument #1 is incompatible "
				     "with prototype:\n\tprototype: uintptr_t"
				     "\n\t argument: string");
			if (n->nargs > 1)
				need_int(ps, n->args[1], n->args[1]->kind,
					 "copyinstr( )", strict);
			return n->kind = T_STR;
		case F_STRLEN:
			if (strict && n->args[0]->kind == T_INT)
				perr(ps, n->line, n->col,
				     "strlen( ) argument #1 is incompatible "
				     "with prototype:\n\tprototype: string\n"
				     "\t argument: int");
			return n->kind = T_INT;
		case F_STRJOIN:
			for (i = 0; i < 2; i++)
				if (strict && n->args[i]->kind == T_INT)
					perr(ps, n->line, n->col,
					     "strjoin( ) argument #%u is "
					     "incompatible with prototype:\n"
					     "\tprototype: string\n\t "
					     "argument: int", i + 1);
			return n->kind = T_STR;
		case F_LLTOSTR:
			need_int(ps, n->args[0], n->args[0]->kind,
				 "lltostr( )", strict);
			return n->kind = T_STR;
		default: /* stringof */
			return n->kind = T_STR;
		}
	case N_UN:
		ka = check(ps, n->a, strict);
		need_int(ps, n, ka, op_name(n->sub), strict);
		return n->kind = T_INT;
	case N_CAST:
		ka = check(ps, n->a, strict);
		need_int(ps, n, ka, "( )", strict);
		return n->kind = T_INT;
	case N_BIN:
		ka = check(ps, n->a, strict);
		kb = check(ps, n->b, strict);
		switch (n->sub) {
		case OP_EQ:
		case OP_NE:
		case '<':
		case '>':
		case OP_LE:
		case OP_GE:
			if (strict && ka != T_ANY && kb != T_ANY && ka != kb)
				perr(ps, n->line, n->col,
				     "operator %s requires operands of the "
				     "same type: %s and %s",
				     op_name(n->sub), kind_name(ka),
				     kind_name(kb));
			return n->kind = T_INT;
		default:
			need_int(ps, n, ka, op_name(n->sub), strict);
			need_int(ps, n, kb, op_name(n->sub), strict);
			return n->kind = T_INT;
		}
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		check(ps, n->a, strict);
		check(ps, n->b, strict);
		return n->kind = T_INT;
	case N_TERN:
		check(ps, n->a, strict);
		kb = check(ps, n->b, strict);
		kc = check(ps, n->c, strict);
		if (strict && kb != T_ANY && kc != T_ANY && kb != kc)
			perr(ps, n->line, n->col,
			     "operator ?: operands must have compatible "
			     "types: %s and %s",
			     kind_name(kb), kind_name(kc));
		return n->kind = kb != T_ANY ? kb : kc;
	case N_ASSIGN: {
		struct var *v = &p->vars[n->a->sub];

		for (i = 0; i < n->a->nargs; i++)
			check(ps, n->a->args[i], strict);
		kb = check(ps, n->b, strict);
		if (n->sub != '=') {
			need_int(ps, n, kb, "op=", strict);
			need_int(ps, n, v->kind, "op=", strict);
			kb = T_INT;
		}
		if (!v->assigned || v->kind == T_ANY) {
			v->assigned = true;
			if (v->kind == T_ANY)
				v->kind = kb;
		} else if (strict && kb != T_ANY && v->kind != kb) {
			perr(ps, n->line, n->col,
			     "operator = cannot assign a %s to %s%s, "
			     "which holds a%s %s",
			     kind_name(kb),
			     v->scope == SC_SELF   ? "self->"
			     : v->scope == SC_THIS ? "this->"
						   : "",
			     v->name, v->kind == T_INT ? "n" : "",
			     kind_name(v->kind));
		}
		return n->kind = v->kind;
	}
	case N_INCDEC: {
		struct var *v;

		if (n->a->op != N_VAR && n->a->op != N_ASSOC)
			perr(ps, n->line, n->col,
			     "operator %s requires a writable variable",
			     op_name(n->sub));
		v = &p->vars[n->a->sub];
		for (i = 0; i < n->a->nargs; i++)
			check(ps, n->a->args[i], strict);
		need_int(ps, n, v->kind, op_name(n->sub), strict);
		v->assigned = true;
		if (v->kind == T_ANY)
			v->kind = T_INT;
		return n->kind = T_INT;
	}
	}
	return T_ANY;
}

/* Which arguments' strings the clause reads (d_clause_strargs). */
static uint16_t strargs_of(const struct node *n)
{
	uint16_t m = 0;
	unsigned i;

	if (!n)
		return 0;
	if (n->op == N_FUNC && funcs[n->sub].id == F_COPYINSTR &&
	    n->args[0]->op == N_ARGN)
		m |= (uint16_t)(1u << n->args[0]->sub);
	if (n->op == N_ARGS) {
		if (n->a->op == N_INT && n->a->ival >= 0 &&
		    n->a->ival < D_MAXARGS)
			m |= (uint16_t)(1u << n->a->ival);
		else if (n->a->op != N_INT)
			m |= (1u << D_MAXARGS) - 1;
	}
	m |= strargs_of(n->a) | strargs_of(n->b) | strargs_of(n->c);
	for (i = 0; i < n->nargs; i++)
		m |= strargs_of(n->args[i]);
	return m;
}

/* What the clause reads of a firing (d_clause_needs). */
static uint32_t needs_of(const struct node *n)
{
	uint32_t m = 0;
	unsigned i;

	if (!n)
		return 0;
	if (n->op == N_ARGN)
		m |= 1u << n->sub;
	if (n->op == N_ARGS) {
		if (n->a->op == N_INT && n->a->ival >= 0 &&
		    n->a->ival < D_MAXARGS)
			m |= 1u << n->a->ival;
		else
			m |= D_NEED_ARGS;
	}
	if (n->op == N_BUILTIN && builtins[n->sub].id == B_EXECNAME)
		m |= D_NEED_EXECNAME;
	m |= needs_of(n->a) | needs_of(n->b) | needs_of(n->c);
	for (i = 0; i < n->nargs; i++)
		m |= needs_of(n->args[i]);
	return m;
}

/* ------------------------------------------------------------------ */
/* Statements and clauses */

static unsigned agg_lookup(struct d_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->naggs; i++)
		if (strcmp(p->aggs[i].name, name) == 0)
			return i;
	p->aggs = xrealloc(p->aggs, (p->naggs + 1) * sizeof(*p->aggs));
	memset(&p->aggs[i], 0, sizeof(p->aggs[i]));
	p->aggs[i].name = xstrdup(name);
	p->aggs[i].varid = i;
	p->aggs[i].nkeys = -1;
	p->naggs++;
	return i;
}

static const char *agg_display(const struct agg *a)
{
	return a->name[0] ? a->name : "_";
}

static int64_t const_int(struct parser *ps, struct node *n, const char *what)
{
	int64_t v;

	switch (n->op) {
	case N_INT:
		return n->ival;
	case N_UN:
		if (n->sub == '-')
			return -const_int(ps, n->a, what);
		if (n->sub == '+')
			return const_int(ps, n->a, what);
		break;
	case N_CAST:
		v = const_int(ps, n->a, what);
		return dv_int(v, n->sz, n->sg).i;
	default:
		break;
	}
	perr(ps, n->line, n->col, "%s must be an integer constant", what);
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
	lex(ps);
	if (is_op(ps, '[')) {
		lex(ps);
		st->keys = parse_args(ps, &st->nkeys, ']');
		if (!st->nkeys)
			syntax_error(ps);
	}
	if (!is_op(ps, '='))
		syntax_error(ps);
	lex(ps);
	ft = ps->tk;
	if (ft.t != TK_ID)
		perr(ps, ft.line, ft.col, "@%s must be assigned the result "
					  "of an aggregating function",
		     at.s[0] ? at.s : "_");
	for (fi = 0; fi < sizeof(agg_fn_names) / sizeof(agg_fn_names[0]); fi++)
		if (strcmp(agg_fn_names[fi], ft.s) == 0)
			fn = (int)fi;
	if (fn < 0)
		perr(ps, ft.line, ft.col,
		     "%s( ) is not an aggregating function", ft.s);
	lex(ps);
	expect(ps, '(');
	fargs = parse_args(ps, &nfargs, ')');
	{
		static const unsigned lo[] = { 0, 1, 1, 1, 1, 1, 3 };
		static const unsigned hi[] = { 0, 1, 1, 1, 1, 2, 4 };

		if (nfargs < lo[fn] || nfargs > hi[fn])
			perr(ps, ft.line, ft.col,
			     "%s( ) prototype mismatch: %u args passed, %u "
			     "expected", ft.s, nfargs, lo[fn]);
	}
	a = &p->aggs[st->agg];
	if (a->defined && a->fn != fn)
		perr(ps, ft.line, ft.col,
		     "@%s: aggregation redefined: previously %s( ), now %s( )",
		     agg_display(a), agg_fn_names[a->fn], ft.s);
	if (a->defined && a->nkeys != (int)st->nkeys)
		perr(ps, at.line, at.col,
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
			perr(ps, ft.line, ft.col,
			     "lquantize( ) step must be between 1 and %d",
			     UINT16_MAX);
		if (base < INT32_MIN || base > INT32_MAX || high <= base)
			perr(ps, ft.line, ft.col,
			     "lquantize( ) upper bound must be greater than "
			     "lower bound");
		levels = (high - base) / step;
		if (levels < 1 || levels > UINT16_MAX)
			perr(ps, ft.line, ft.col,
			     "lquantize( ) step must evenly divide the range "
			     "into at most %d levels", UINT16_MAX);
		if (a->defined && (a->lq_base != (int32_t)base ||
				   a->lq_step != (uint16_t)step ||
				   a->lq_levels != (uint16_t)levels))
			perr(ps, ft.line, ft.col,
			     "@%s: lquantize( ) parameters differ from its "
			     "earlier definition", agg_display(a));
		a->lq_base = (int32_t)base;
		a->lq_step = (uint16_t)step;
		a->lq_levels = (uint16_t)levels;
	}
	a->fn = fn;
	a->nkeys = (int)st->nkeys;
	a->defined = true;
	/* args: the value expression, and quantize's increment */
	st->args = fargs;
	st->nargs = nfargs;
	st->action = ps->action;
	ps->action += (int)st->nkeys + 1;
	for (i = 0; i < st->nkeys; i++)
		check(ps, st->keys[i], false);
	if (nfargs)
		check(ps, fargs[0], false);
}

static void __attribute__((noreturn))
agg_arg(struct parser *ps, struct node *n, const char *func, unsigned argn)
{
	perr(ps, n->line, n->col,
	     "%s( ) argument #%u is incompatible with prototype:\n"
	     "\tprototype: aggregation\n\t argument: %s",
	     func, argn, kind_name(n->kind));
}

/* An aggregation reference as an action argument: @name */
static unsigned parse_aggref(struct parser *ps, const char *func,
			     unsigned argn)
{
	struct d_prog *p = ps->prog;
	struct tok t = ps->tk;
	unsigned i;

	if (t.t != TK_AGG) {
		struct node *n = parse_assign(ps);

		check(ps, n, false);
		agg_arg(ps, n, func, argn);
	}
	lex(ps);
	for (i = 0; i < p->naggs; i++)
		if (strcmp(p->aggs[i].name, t.s) == 0 && p->aggs[i].defined)
			return i;
	perr(ps, t.line, t.col, "undefined aggregation: @%s",
	     t.s[0] ? t.s : "_");
}

static void parse_action(struct parser *ps, struct stmt *st)
{
	struct tok t = ps->tk;
	const char *name = t.s;

	lex(ps);
	expect(ps, '(');
	if (strcmp(name, "printf") == 0) {
		st->kind = S_PRINTF;
		if (ps->tk.t != TK_STR)
			perr(ps, ps->tk.line, ps->tk.col,
			     "printf( ) argument #1 is incompatible with "
			     "prototype:\n\tprototype: string constant");
		st->pf = pf_create(ps, ps->tk.s, &t, "printf");
		lex(ps);
		if (is_op(ps, ',')) {
			lex(ps);
			st->args = parse_args(ps, &st->nargs, ')');
		} else {
			expect(ps, ')');
		}
		st->action = ps->action;
		ps->action += st->nargs ? (int)st->nargs : 1;
	} else if (strcmp(name, "printa") == 0) {
		st->kind = S_PRINTA;
		if (ps->tk.t == TK_STR) {
			st->pf = pf_create(ps, ps->tk.s, &t, "printa");
			lex(ps);
			expect(ps, ',');
		}
		st->agg = parse_aggref(ps, "printa", st->pf ? 2 : 1);
		if (is_op(ps, ','))
			perr(ps, ps->tk.line, ps->tk.col,
			     "printa( ) of several aggregations is not "
			     "supported");
		expect(ps, ')');
		st->action = ps->action++;
	} else if (strcmp(name, "clear") == 0) {
		st->kind = S_CLEAR;
		st->agg = parse_aggref(ps, "clear", 1);
		expect(ps, ')');
		st->action = ps->action++;
	} else if (strcmp(name, "trunc") == 0) {
		st->kind = S_TRUNC;
		st->agg = parse_aggref(ps, "trunc", 1);
		if (is_op(ps, ',')) {
			lex(ps);
			st->e = parse_assign(ps);
		}
		expect(ps, ')');
		st->action = ps->action;
		ps->action += 2;
	} else {
		st->kind = strcmp(name, "trace") == 0 ? S_TRACE : S_EXIT;
		st->args = parse_args(ps, &st->nargs, ')');
		if (st->nargs != 1)
			perr(ps, t.line, t.col,
			     "%s( ) prototype mismatch: %u args passed, 1 "
			     "expected", name, st->nargs);
		st->e = st->args[0];
		st->action = ps->action++;
	}
}

static void parse_stmt(struct parser *ps, struct stmt *st)
{
	memset(st, 0, sizeof(*st));
	st->line = ps->tk.line;
	st->col = ps->tk.col;
	if (ps->tk.t == TK_AGG) {
		parse_agg_stmt(ps, st);
		return;
	}
	if (ps->tk.t == TK_ID && is_action_name(ps->tk.s)) {
		struct lexpos save = ps->pos;
		struct tok savet = ps->tk;

		lex(ps);
		if (is_op(ps, '(')) {
			ps->pos = save;
			ps->tk = savet;
			parse_action(ps, st);
			return;
		}
		ps->pos = save;
		ps->tk = savet;
	}
	st->kind = S_EXPR;
	st->e = parse_expr(ps);
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
				perr(ps, line, col,
				     "syntax error near \"$\" in probe "
				     "description");
			txt = macro_text(ps, name, &isint, buf, sizeof(buf),
					 line, col);
			sb_puts(sb, txt);
		} else {
			sb_add(sb, &s[i], 1);
			i++;
		}
	}
	return pool_strndup(ps, sb->b ? sb->b : "", sb->len);
}

static void parse_pragma(struct parser *ps)
{
	struct lexpos *l = &ps->pos;
	int line = l->line, col = l->col;
	const char *s = l->p, *e;
	char buf[512], *w[4] = { 0 }, *save = NULL, *tokp;
	unsigned nw = 0;
	size_t n;

	while (*l->p && *l->p != '\n')
		lx_adv(l);
	e = l->p;
	n = (size_t)(e - s);
	if (n >= sizeof(buf))
		perr(ps, line, col, "#pragma line too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (line == 1 && buf[0] == '#' && buf[1] == '!')
		return; /* interpreter line */
	for (tokp = strtok_r(buf + 1, " \t\r", &save); tokp && nw < 4;
	     tokp = strtok_r(NULL, " \t\r", &save))
		w[nw++] = tokp;
	if (nw >= 1 && (strcmp(w[0], "pragma") != 0))
		perr(ps, line, col, "invalid control directive: #%s", w[0]);
	if (nw < 2)
		perr(ps, line, col, "malformed #pragma");
	if (strcmp(w[1], "D") != 0)
		return; /* other pragmas are ignored, as in C */
	if (nw < 3)
		perr(ps, line, col, "malformed #pragma D");
	if (strcmp(w[2], "option") == 0) {
		char *eq, emsg[160];

		if (nw != 4)
			perr(ps, line, col,
			     "malformed #pragma option <option>=<val>");
		eq = strchr(w[3], '=');
		if (eq)
			*eq++ = '\0';
		if (set_option(ps->prog, w[3], eq, emsg, sizeof(emsg)) < 0)
			perr(ps, line, col, "%s", emsg);
		return;
	}
	if (strcmp(w[2], "attributes") == 0 || strcmp(w[2], "binding") == 0 ||
	    strcmp(w[2], "depends_on") == 0 || strcmp(w[2], "error") == 0)
		return;
	perr(ps, line, col, "invalid D pragma: %s", w[2]);
}

static bool clause_records(const struct clause *c)
{
	unsigned i;

	if (!c->nstmts)
		return true;
	for (i = 0; i < c->nstmts; i++)
		if (c->stmts[i].kind != S_EXPR && c->stmts[i].kind != S_AGG)
			return true;
	return false;
}

static void add_clause(struct parser *ps, struct clause *c)
{
	ps->cl = xrealloc(ps->cl, (ps->ncl + 1) * sizeof(*ps->cl));
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
	for (;;) {
		const char *s;
		int line, col;

		lx_skip(ps);
		s = l->p;
		line = l->line;
		col = l->col;
		while (*l->p && desc_char((unsigned char)*l->p))
			lx_adv(l);
		if (l->p == s) {
			lex(ps);
			syntax_error(ps);
		}
		descs = pool_grow(ps, descs, nd, sizeof(*descs));
		descs[nd++] = subst_desc(ps, s, (size_t)(l->p - s), line, col);
		lx_skip(ps);
		if (*l->p != ',')
			break;
		lx_adv(l);
	}
	c->descs = descs;
	c->ndescs = nd;

	lex(ps);
	if (is_op(ps, '/')) {
		ps->in_pred = true;
		lex(ps);
		c->pred = parse_expr(ps);
		ps->in_pred = false;
		expect(ps, '/');
	}
	if (is_op(ps, '{')) {
		struct stmt *v = NULL;
		unsigned n = 0;

		lex(ps);
		for (;;) {
			while (is_op(ps, ';'))
				lex(ps);
			if (is_op(ps, '}'))
				break;
			if (ps->tk.t == TK_EOF)
				syntax_error(ps);
			v = pool_grow(ps, v, n, sizeof(*v));
			parse_stmt(ps, &v[n]);
			n++;
			if (!is_op(ps, ';') && !is_op(ps, '}'))
				syntax_error(ps);
		}
		/* the '}' stays current: the caller rewinds to after it */
		c->stmts = v;
		c->nstmts = n;
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

static void check_clause(struct parser *ps, struct clause *c, bool strict)
{
	struct d_prog *p = ps->prog;
	unsigned i, j;

	if (c->pred)
		check(ps, c->pred, strict);
	for (i = 0; i < c->nstmts; i++) {
		struct stmt *st = &c->stmts[i];
		struct tok at = { .line = st->line, .col = st->col };

		switch (st->kind) {
		case S_EXPR:
		case S_TRACE:
			check(ps, st->e, strict);
			break;
		case S_EXIT:
			check(ps, st->e, strict);
			need_int(ps, st->e, st->e->kind, "exit( )", strict);
			break;
		case S_TRUNC:
			if (st->e) {
				check(ps, st->e, strict);
				need_int(ps, st->e, st->e->kind, "trunc( )",
					 strict);
			}
			break;
		case S_PRINTF:
			for (j = 0; j < st->nargs; j++)
				check(ps, st->args[j], strict);
			if (strict)
				pf_validate(ps, st->pf, "printf", st->args,
					    st->nargs, NULL, 0, false, &at);
			break;
		case S_PRINTA:
			if (strict && st->pf) {
				struct agg *a = &p->aggs[st->agg];

				pf_validate(ps, st->pf, "printa", NULL, 0,
					    NULL, (unsigned)a->nkeys, true,
					    &at);
			}
			break;
		case S_AGG:
			for (j = 0; j < st->nkeys; j++)
				check(ps, st->keys[j], strict);
			for (j = 0; j < st->nargs; j++) {
				check(ps, st->args[j], strict);
				if (j < 1 || p->aggs[st->agg].fn == AG_QUANTIZE)
					need_int(ps, st->args[j],
						 st->args[j]->kind,
						 agg_fn_names[p->aggs[st->agg]
								      .fn],
						 strict);
			}
			break;
		default:
			break;
		}
	}
}

static void grow_storage(struct d_prog *p)
{
	if (p->nval < p->nvars) {
		p->gval = xrealloc(p->gval, p->nvars * sizeof(*p->gval));
		p->cval = xrealloc(p->cval, p->nvars * sizeof(*p->cval));
		for (unsigned i = p->nval; i < p->nvars; i++) {
			p->gval[i] = dv_int(0, 8, true);
			p->cval[i] = dv_int(0, 8, true);
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
		c.descs = ar_alloc(&p->pool, sizeof(*c.descs));
		c.descs[0] = subst_desc(ps, s, (size_t)(e - s), 1, 1);
		c.ndescs = 1;
		add_clause(ps, &c);
	} else {
		for (;;) {
			struct clause c;

			lx_skip(ps);
			if (!*ps->pos.p)
				break;
			if (*ps->pos.p == '#') {
				parse_pragma(ps);
				continue;
			}
			parse_clause(ps, &c);
			add_clause(ps, &c);
		}
	}
	/* kinds: a lenient pass learns what assignments store, a strict
	 * one checks every use (a variable may be assigned in a later
	 * clause than the one that reads it) */
	for (i = 0; i < ps->ncl; i++)
		check_clause(ps, &ps->cl[i], false);
	for (i = 0; i < ps->ncl; i++)
		check_clause(ps, &ps->cl[i], true);
	for (i = 0; i < ps->ncl; i++) {
		struct clause *c = &ps->cl[i];
		unsigned j;

		c->records = clause_records(c);
		c->strargs = strargs_of(c->pred);
		c->needs = needs_of(c->pred);
		for (j = 0; j < c->nstmts; j++) {
			struct stmt *st = &c->stmts[j];
			unsigned k;

			c->strargs |= strargs_of(st->e);
			c->needs |= needs_of(st->e);
			for (k = 0; k < st->nargs; k++) {
				c->strargs |= strargs_of(st->args[k]);
				c->needs |= needs_of(st->args[k]);
			}
			for (k = 0; k < st->nkeys; k++) {
				c->strargs |= strargs_of(st->keys[k]);
				c->needs |= needs_of(st->keys[k]);
			}
		}
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
		p->clauses = xrealloc(p->clauses, (p->nclauses + ps->ncl) *
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

static void agg_free_entries(struct agg *a)
{
	size_t i;
	unsigned k;

	for (i = 0; i < a->n; i++) {
		for (k = 0; k < a->ents[i].nkeys; k++)
			if (a->ents[i].keys[k].k == K_STR)
				free((char *)a->ents[i].keys[k].s);
		free(a->ents[i].keys);
		free(a->ents[i].data);
	}
	free(a->ents);
	a->ents = NULL;
	a->n = a->cap = 0;
	ht_clear(&a->index);
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
	for (i = 0; i < p->nvars; i++)
		free(p->vars[i].name);
	free(p->vars);
	for (i = 0; i < p->naggs; i++) {
		agg_free_entries(&p->aggs[i]);
		free(p->aggs[i].name);
	}
	free(p->aggs);
	for (i = 0; i < p->nopts; i++) {
		free(p->opts[i].name);
		free(p->opts[i].value);
	}
	free(p->opts);
	ht_clear(&p->dyn);
	free(p->clauses);
	ar_free(&p->pool);
	free(p);
}

bool d_opt_quiet(const struct d_prog *p)
{
	return p && p->quiet;
}

void d_set_quiet(struct d_prog *p, bool quiet)
{
	if (p)
		p->quiet = quiet;
}

int d_set_option(struct d_prog *p, const char *name, const char *value,
		 char *msg, size_t msglen)
{
	char dummy[1];

	if (!msg || !msglen) {
		msg = dummy;
		msglen = sizeof(dummy);
	}
	if (strcmp(name, "quiet") == 0 && value && *value &&
	    strcmp(value, "0") == 0) {
		p->quiet = false;
		return 0;
	}
	return set_option(p, name, value, msg, msglen);
}

const char *d_get_option(const struct d_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; p && i < p->nopts; i++)
		if (strcmp(p->opts[i].name, name) == 0)
			return p->opts[i].value;
	return NULL;
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

int d_exit_status(const struct d_prog *p)
{
	return p ? p->exit_status : 0;
}

/* ------------------------------------------------------------------ */
/* Evaluation */

enum { FLT_BADADDR, FLT_ILLOP, FLT_DIVZERO };

struct ectx {
	struct d_prog *p;
	const struct clause *c;
	const struct d_fire *f;
	struct arena scratch;
	struct sbuf out;
	jmp_buf jb;
	int action; /* 0: predicate */
	int fault;
	uint64_t faddr;
	bool exited;
	int status;
	int rv;
};

static void __attribute__((noreturn))
fault(struct ectx *x, int flt, uint64_t addr)
{
	x->fault = flt;
	x->faddr = addr;
	longjmp(x->jb, 1);
}

static const char *fault_str(int flt)
{
	switch (flt) {
	case FLT_BADADDR:
		return "invalid address";
	case FLT_DIVZERO:
		return "divide-by-zero";
	default:
		return "illegal operation";
	}
}

static struct dv eval(struct ectx *x, const struct node *n);

/* Read a NUL-terminated string of the traced process at addr, at most
 * max - 1 bytes, one page at a time so a short string near the end of a
 * mapping reads. */
static const char *read_user_str(struct ectx *x, uint64_t addr, size_t max)
{
	const struct d_fire *f = x->f;
	char *buf = ar_alloc(&x->scratch, max);
	size_t got = 0;

	if (!f->copyin || !addr)
		fault(x, FLT_BADADDR, addr);
	while (got < max - 1) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		void *nul;

		if (chunk > max - 1 - got)
			chunk = max - 1 - got;
		if (f->copyin(f->copyin_ctx, f->pid, a, buf + got, chunk) < 0)
			fault(x, FLT_BADADDR, a);
		nul = memchr(buf + got, '\0', chunk);
		if (nul)
			return buf;
		got += chunk;
	}
	buf[max - 1] = '\0';
	return buf;
}

static const char *arg_str(struct ectx *x, unsigned n, size_t max)
{
	const struct d_fire *f = x->f;

	if (f->str[n]) {
		size_t len = f->strlen[n];
		const char *nul = memchr(f->str[n], '\0', len);

		if (nul)
			len = (size_t)(nul - f->str[n]);
		if (len > max - 1)
			len = max - 1;
		return ar_strndup(&x->scratch, f->str[n], len);
	}
	return read_user_str(x, f->arg[n], max);
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
		} else if (cast_type(w[i], &tsz, &tsg)) {
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

	switch (builtins[id].id) {
	case B_PID:
		return dv_int(f->pid, 4, true);
	case B_PPID:
		return dv_int(f->ppid, 4, true);
	case B_TID:
		return dv_int(f->tid, 4, true);
	case B_UID:
		return dv_int((int64_t)f->uid, 4, false);
	case B_EXECNAME:
		return dv_str(f->execname ? f->execname : "");
	case B_TIMESTAMP:
		return dv_int((int64_t)f->timestamp, 8, false);
	case B_VTIMESTAMP:
		return dv_int((int64_t)f->vtimestamp, 8, false);
	case B_WALLTIMESTAMP:
		return dv_int((int64_t)f->walltimestamp, 8, false);
	case B_CPU:
		return dv_int(f->cpu, 4, true);
	case B_PROBEPROV:
		return dv_str(pr && pr->prov ? pr->prov : "");
	case B_PROBEMOD:
		return dv_str(pr && pr->mod ? pr->mod : "");
	case B_PROBEFUNC:
		return dv_str(pr && pr->func ? pr->func : "");
	case B_PROBENAME:
		return dv_str(pr && pr->name ? pr->name : "");
	case B_ID:
		return dv_int(pr ? pr->id : 0, 4, false);
	default:
		return dv_int(f->epid, 4, false);
	}
}

/* C's integer promotions and usual arithmetic conversions. */
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

		if (a.k != K_STR || b.k != K_STR)
			fault(x, FLT_ILLOP, 0);
		c = strcmp(a.s, b.s);
		switch (op) {
		case OP_EQ:
			return dv_int(c == 0, 4, true);
		case OP_NE:
			return dv_int(c != 0, 4, true);
		case '<':
			return dv_int(c < 0, 4, true);
		case '>':
			return dv_int(c > 0, 4, true);
		case OP_LE:
			return dv_int(c <= 0, 4, true);
		case OP_GE:
			return dv_int(c >= 0, 4, true);
		default:
			fault(x, FLT_ILLOP, 0);
		}
	}
	if (op == OP_SHL || op == OP_SHR) {
		sz = a.sz < 4 ? 4 : a.sz;
		sg = a.sz < 4 ? true : a.sg;
		a = dv_int(a.i, sz, sg);
		ub = (uint64_t)b.i & 63;
		if (op == OP_SHL)
			return dv_int((int64_t)((uint64_t)a.i << ub), sz, sg);
		if (sg)
			return dv_int(a.i >> ub, sz, sg);
		return dv_int((int64_t)((uint64_t)a.i >> ub), sz, sg);
	}
	common_type(&a, &b, &sz, &sg);
	a = dv_int(a.i, sz, sg);
	b = dv_int(b.i, sz, sg);
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
			fault(x, FLT_DIVZERO, 0);
		if (sg) {
			if (a.i == INT64_MIN && b.i == -1)
				r = op == '/' ? (uint64_t)INT64_MIN : 0;
			else
				r = (uint64_t)(op == '/' ? a.i / b.i
							 : a.i % b.i);
		} else {
			if (sz == 4) {
				ua &= 0xffffffffu;
				ub &= 0xffffffffu;
			}
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
		return dv_int(a.i == b.i, 4, true);
	case OP_NE:
		return dv_int(a.i != b.i, 4, true);
	case '<':
		return dv_int(sg ? a.i < b.i : ua < ub, 4, true);
	case '>':
		return dv_int(sg ? a.i > b.i : ua > ub, 4, true);
	case OP_LE:
		return dv_int(sg ? a.i <= b.i : ua <= ub, 4, true);
	case OP_GE:
		return dv_int(sg ? a.i >= b.i : ua >= ub, 4, true);
	default:
		fault(x, FLT_ILLOP, 0);
	}
	return dv_int((int64_t)r, sz, sg);
}

/* Key of a self-> variable or an associative array element. */
static void dyn_key(struct ectx *x, const struct node *n, struct sbuf *k)
{
	unsigned sc = (unsigned)x->p->vars[n->sub].scope, i;
	uint32_t id = (uint32_t)n->sub;

	sb_add(k, (const char *)&sc, sizeof(sc));
	if (sc == SC_SELF) {
		int32_t tid = (int32_t)x->f->tid;

		sb_add(k, (const char *)&tid, sizeof(tid));
	}
	sb_add(k, (const char *)&id, sizeof(id));
	for (i = 0; i < n->nargs; i++) {
		struct dv v = eval(x, n->args[i]);

		key_add(k, &v);
	}
}

static struct dv zero_of(struct ectx *x, unsigned var)
{
	if (x->p->vars[var].kind == T_STR)
		return dv_str("");
	return dv_int(0, 8, true);
}

static struct dv copy_out(struct ectx *x, struct dv v)
{
	if (v.k == K_STR)
		v.s = ar_strndup(&x->scratch, v.s, strlen(v.s));
	return v;
}

static struct dv var_get(struct ectx *x, const struct node *n)
{
	struct d_prog *p = x->p;
	int sc = p->vars[n->sub].scope;
	struct sbuf k = { 0 };
	struct hent *e;
	struct dv v;

	if (sc == SC_GLOBAL) {
		v = p->gval[n->sub];
		if (v.k == K_INT && p->vars[n->sub].kind == T_STR)
			return dv_str(""); /* a string never set */
		return copy_out(x, v);
	}
	if (sc == SC_THIS)
		return copy_out(x, p->cval[n->sub]);
	dyn_key(x, n, &k);
	e = ht_find(&p->dyn, k.b, k.len);
	free(k.b);
	v = e ? copy_out(x, e->val) : zero_of(x, (unsigned)n->sub);
	return v;
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

	if (v.k == K_STR && strlen(v.s) >= p->strsize)
		v.s = ar_strndup(&x->scratch, v.s, p->strsize - 1);
	if (sc == SC_GLOBAL) {
		store(&p->gval[n->sub], v);
		return;
	}
	if (sc == SC_THIS) {
		store(&p->cval[n->sub], v);
		return;
	}
	dyn_key(x, n, &k);
	e = ht_find(&p->dyn, k.b, k.len);
	/* assigning zero frees a dynamic variable, as in DTrace */
	if (v.k == K_INT && v.i == 0) {
		if (e)
			ht_remove(&p->dyn, e);
	} else {
		if (!e)
			e = ht_insert(&p->dyn, k.b, k.len);
		store(&e->val, v);
	}
	free(k.b);
}

static int compound_op(int op)
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

static const char *lltostr(struct ectx *x, int64_t v, bool sg)
{
	char buf[32];

	if (sg)
		snprintf(buf, sizeof(buf), "%" PRId64, v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v);
	return ar_strndup(&x->scratch, buf, strlen(buf));
}

static struct dv eval_func(struct ectx *x, const struct node *n)
{
	struct d_prog *p = x->p;
	struct dv a, b;

	switch (funcs[n->sub].id) {
	case F_COPYINSTR: {
		size_t max = p->strsize;

		if (n->nargs > 1) {
			b = eval(x, n->args[1]);
			if (b.i >= 0 && (uint64_t)b.i + 1 < max)
				max = (size_t)b.i + 1;
		}
		if (n->args[0]->op == N_ARGN)
			return dv_str(arg_str(x, (unsigned)n->args[0]->sub, max));
		if (n->args[0]->op == N_ARGS) {
			a = eval(x, n->args[0]->a);
			if (a.i >= 0 && a.i < D_MAXARGS)
				return dv_str(arg_str(x, (unsigned)a.i, max));
		}
		a = eval(x, n->args[0]);
		if (a.k == K_STR)
			return a;
		return dv_str(read_user_str(x, (uint64_t)a.i, max));
	}
	case F_STRLEN:
		a = eval(x, n->args[0]);
		if (a.k != K_STR)
			fault(x, FLT_ILLOP, 0);
		return dv_int((int64_t)strlen(a.s), 8, false);
	case F_STRJOIN: {
		char *s;
		size_t la, lb;

		a = eval(x, n->args[0]);
		b = eval(x, n->args[1]);
		if (a.k != K_STR || b.k != K_STR)
			fault(x, FLT_ILLOP, 0);
		la = strlen(a.s);
		lb = strlen(b.s);
		s = ar_alloc(&x->scratch, la + lb + 1);
		memcpy(s, a.s, la);
		memcpy(s + la, b.s, lb + 1);
		if (la + lb >= p->strsize)
			s[p->strsize - 1] = '\0';
		return dv_str(s);
	}
	case F_LLTOSTR:
		a = eval(x, n->args[0]);
		return dv_str(lltostr(x, a.i, true));
	default: /* stringof */
		a = eval(x, n->args[0]);
		if (a.k == K_STR)
			return a;
		return dv_str(lltostr(x, a.i, a.sg));
	}
}

static struct dv eval(struct ectx *x, const struct node *n)
{
	struct dv a, b;

	switch (n->op) {
	case N_INT:
		return dv_int(n->ival, n->sz, n->sg);
	case N_STR:
		return dv_str(n->sval);
	case N_VAR:
	case N_ASSOC:
		return var_get(x, n);
	case N_BUILTIN:
		return builtin(x, n->sub);
	case N_ARGN:
		return dv_int((int64_t)x->f->arg[n->sub], 8, true);
	case N_ARGS: {
		const struct d_probe *pr = x->f->probe;
		uint8_t sz, sg;
		bool isstr;

		a = eval(x, n->a);
		if (a.i < 0 || a.i >= D_MAXARGS ||
		    (pr && pr->argtypes && (uint64_t)a.i >= pr->nargs))
			fault(x, FLT_ILLOP, 0);
		argtype(pr && pr->argtypes ? pr->argtypes[a.i] : NULL, &sz,
			&sg, &isstr);
		if (isstr)
			return dv_str(arg_str(x, (unsigned)a.i, x->p->strsize));
		return dv_int((int64_t)x->f->arg[a.i], sz, sg);
	}
	case N_FUNC:
		return eval_func(x, n);
	case N_UN:
		a = eval(x, n->a);
		if (a.k == K_STR)
			fault(x, FLT_ILLOP, 0);
		if (n->sub == '!')
			return dv_int(!a.i, 4, true);
		if (a.sz < 4)
			a = dv_int(a.i, 4, true);
		if (n->sub == '~')
			return dv_int(~a.i, a.sz, a.sg);
		if (n->sub == '-')
			return dv_int((int64_t)(0 - (uint64_t)a.i), a.sz, a.sg);
		return a;
	case N_CAST:
		a = eval(x, n->a);
		return dv_int(a.i, n->sz, n->sg);
	case N_BIN:
		a = eval(x, n->a);
		b = eval(x, n->b);
		return binop(x, n->sub, a, b);
	case N_LAND:
		a = eval(x, n->a);
		if (!truth(&a))
			return dv_int(0, 4, true);
		b = eval(x, n->b);
		return dv_int(truth(&b), 4, true);
	case N_LOR:
		a = eval(x, n->a);
		if (truth(&a))
			return dv_int(1, 4, true);
		b = eval(x, n->b);
		return dv_int(truth(&b), 4, true);
	case N_LXOR:
		a = eval(x, n->a);
		b = eval(x, n->b);
		return dv_int(truth(&a) != truth(&b), 4, true);
	case N_TERN:
		a = eval(x, n->a);
		return truth(&a) ? eval(x, n->b) : eval(x, n->c);
	case N_ASSIGN:
		b = eval(x, n->b);
		if (n->sub != '=') {
			a = var_get(x, n->a);
			b = binop(x, compound_op(n->sub), a, b);
		}
		var_set(x, n->a, b);
		return b;
	case N_INCDEC:
		a = var_get(x, n->a);
		b = binop(x, n->sub == OP_INC ? '+' : '-', a,
			  dv_int(1, 4, true));
		var_set(x, n->a, b);
		return n->ival ? a : b;
	}
	fault(x, FLT_ILLOP, 0);
}

/* ------------------------------------------------------------------ */
/* printf */

/* DTrace's %Y: ctime(3C) rearranged to "1973 Dec  3 17:20:00". */
static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!localtime_r(&sec, &tm) ||
	    !strftime(buf, len, "%Y %b %e %H:%M:%S", &tm))
		snprintf(buf, len, "%" PRIu64, ns);
}

/* %T: RFC 822. */
static void fmt_time822(char *buf, size_t len, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!localtime_r(&sec, &tm) ||
	    !strftime(buf, len, "%a, %d %b %G %T %Z", &tm))
		snprintf(buf, len, "%" PRIu64, ns);
}

/* strchr2esc(): C escapes for %S; stops after an escaped NUL, which
 * DTrace prints because its string records are NUL-padded. */
static void esc_str(struct sbuf *sb, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];
		char b[5];

		switch (c) {
		case '\0':
			sb_puts(sb, "\\0");
			return;
		case '\a':
			sb_puts(sb, "\\a");
			break;
		case '\b':
			sb_puts(sb, "\\b");
			break;
		case '\f':
			sb_puts(sb, "\\f");
			break;
		case '\n':
			sb_puts(sb, "\\n");
			break;
		case '\r':
			sb_puts(sb, "\\r");
			break;
		case '\t':
			sb_puts(sb, "\\t");
			break;
		case '\v':
			sb_puts(sb, "\\v");
			break;
		case '"':
			sb_puts(sb, "\\\"");
			break;
		case '\\':
			sb_puts(sb, "\\\\");
			break;
		case ' ':
			sb_add(sb, &c, 1);
			break;
		default:
			if (c < '!' || c > '~') {
				b[0] = '\\';
				b[1] = (char)(((c >> 6) & 3) + '0');
				b[2] = (char)(((c >> 3) & 7) + '0');
				b[3] = (char)((c & 7) + '0');
				b[4] = '\0';
				sb_puts(sb, b);
			} else {
				sb_add(sb, &c, 1);
			}
		}
	}
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/*
 * One conversion, the way dt_printf_format() builds it: flags, width,
 * precision (only when > 0), "ll" for 8-byte integers, and the output
 * conversion; %d becomes %i or %u by the value's signedness.
 */
static void pf_one(struct sbuf *sb, const struct pfseg *d, int width,
		   int prec, const struct dv *v)
{
	char fmt[64], *f = fmt, tmp[64];
	char conv = d->conv;
	const char *sarg = NULL;
	struct sbuf esc = { 0 };
	struct dv val = *v;

	*f++ = '%';
	if (d->flags & PF_ALT)
		*f++ = '#';
	if (d->flags & PF_ZPAD)
		*f++ = '0';
	if (width < 0 || (d->flags & PF_LEFT))
		*f++ = '-';
	if (d->flags & PF_SPOS)
		*f++ = '+';
	if (d->flags & PF_GROUP)
		*f++ = '\'';
	if (d->flags & PF_SPACE)
		*f++ = ' ';
	if (width)
		f += snprintf(f, 16, "%d", width < 0 ? -width : width);
	if (prec > 0)
		f += snprintf(f, 16, ".%d", prec);

	switch (conv) {
	case 's':
	case 'S':
		if (val.k == K_STR)
			sarg = val.s;
		else
			sarg = val.sg ? (snprintf(tmp, sizeof(tmp), "%" PRId64,
						  val.i),
					 tmp)
				      : (snprintf(tmp, sizeof(tmp),
						  "%" PRIu64, (uint64_t)val.i),
					 tmp);
		if (conv == 'S') {
			esc_str(&esc, sarg, strlen(sarg) + 1);
			sarg = esc.b;
		}
		break;
	case 'a':
	case 'A':
		snprintf(tmp, sizeof(tmp), "0x%" PRIx64, (uint64_t)val.i);
		sarg = tmp;
		break;
	case 'Y':
		fmt_time(tmp, sizeof(tmp), (uint64_t)val.i);
		sarg = tmp;
		break;
	case 'T':
		fmt_time822(tmp, sizeof(tmp), (uint64_t)val.i);
		sarg = tmp;
		break;
	case 'C': {
		char c = (char)val.i;

		esc_str(&esc, &c, 1);
		sarg = esc.b ? esc.b : "";
		break;
	}
	default:
		break;
	}
	if (sarg) {
		strcpy(f, "s");
		sb_printf(sb, fmt, sarg);
		free(esc.b);
		return;
	}
	if (val.k == K_STR) /* args[N] of string type with %d: its address */
		val = dv_int(0, 8, false);
	switch (conv) {
	case 'c':
		strcpy(f, "c");
		sb_printf(sb, fmt, (int)(int32_t)val.i);
		return;
	case 'd':
	case 'i':
		if (conv == 'i' || val.sg) {
			if (val.sz == 8) {
				strcpy(f, "lli");
				sb_printf(sb, fmt, (long long)val.i);
			} else {
				strcpy(f, "i");
				sb_printf(sb, fmt, (int)val.i);
			}
			return;
		}
		conv = 'u';
		break;
	case 'p':
		conv = 'x';
		break;
	default:
		break;
	}
	/* unsigned conversions: u o x X */
	if (val.sz == 8) {
		f[0] = 'l';
		f[1] = 'l';
		f[2] = conv;
		f[3] = '\0';
		sb_printf(sb, fmt, (unsigned long long)val.i);
	} else {
		f[0] = conv;
		f[1] = '\0';
		sb_printf(sb, fmt, (unsigned)(uint64_t)val.i &
					   (val.sz == 4   ? 0xffffffffu
					    : val.sz == 2 ? 0xffffu
							  : 0xffu));
	}
}

#pragma GCC diagnostic pop

/* ------------------------------------------------------------------ */
/* Aggregations */

static int64_t qz_bucketval(int b)
{
	if (b < QZ_ZERO)
		return -(int64_t)(1ULL << (QZ_ZERO - 1 - b));
	if (b == QZ_ZERO)
		return 0;
	return (int64_t)(1ULL << (b - QZ_ZERO - 1));
}

static size_t agg_ndata(const struct agg *a)
{
	switch (a->fn) {
	case AG_AVG:
		return 2;
	case AG_QUANTIZE:
		return QZ_NBUCKETS;
	case AG_LQUANTIZE:
		return (size_t)a->lq_levels + 2;
	default:
		return 1;
	}
}

static void agg_init_data(const struct agg *a, int64_t *d)
{
	memset(d, 0, agg_ndata(a) * sizeof(*d));
	if (a->fn == AG_MIN)
		d[0] = INT64_MAX;
	else if (a->fn == AG_MAX)
		d[0] = INT64_MIN;
}

static void agg_update(struct ectx *x, struct agg *a, const struct stmt *st)
{
	struct sbuf k = { 0 };
	struct dv *keys = NULL, v = dv_int(0, 8, true), incr = dv_int(1, 8, true);
	struct hent *h;
	struct aent *e;
	int64_t *d;
	unsigned i;

	if (st->nkeys)
		keys = ar_alloc(&x->scratch, st->nkeys * sizeof(*keys));
	for (i = 0; i < st->nkeys; i++) {
		x->action = st->action + (int)i;
		keys[i] = eval(x, st->keys[i]);
		if (keys[i].k == K_STR && strlen(keys[i].s) >= x->p->strsize)
			keys[i].s = ar_strndup(&x->scratch, keys[i].s,
					       x->p->strsize - 1);
		key_add(&k, &keys[i]);
	}
	x->action = st->action + (int)st->nkeys;
	if (st->nargs)
		v = eval(x, st->args[0]);
	if (a->fn == AG_QUANTIZE && st->nargs > 1)
		incr = eval(x, st->args[1]);
	if (a->fn == AG_LQUANTIZE && st->nargs > 4)
		incr = eval(x, st->args[4]);
	if (v.k == K_STR || incr.k == K_STR)
		fault(x, FLT_ILLOP, 0);
	/* integers aggregate as int64_t */
	v = dv_int(v.i, 8, true);

	h = ht_find(&a->index, k.b ? k.b : "", k.len);
	if (!h) {
		if (a->n == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 16;
			a->ents = xrealloc(a->ents, a->cap * sizeof(*a->ents));
		}
		e = &a->ents[a->n];
		e->nkeys = st->nkeys;
		e->keys = xcalloc(st->nkeys, sizeof(*e->keys));
		for (i = 0; i < st->nkeys; i++) {
			e->keys[i] = keys[i];
			if (keys[i].k == K_STR)
				e->keys[i].s = xstrdup(keys[i].s);
		}
		e->data = xmalloc(agg_ndata(a) * sizeof(*e->data));
		agg_init_data(a, e->data);
		h = ht_insert(&a->index, k.b ? k.b : "", k.len);
		h->idx = a->n++;
	}
	free(k.b);
	d = a->ents[h->idx].data;
	switch (a->fn) {
	case AG_COUNT:
		d[0]++;
		break;
	case AG_SUM:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)v.i);
		break;
	case AG_AVG:
		d[0]++;
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)v.i);
		break;
	case AG_MIN:
		if (v.i < d[0])
			d[0] = v.i;
		break;
	case AG_MAX:
		if (v.i > d[0])
			d[0] = v.i;
		break;
	case AG_QUANTIZE: {
		int b;

		/*
		 * DTrace's buckets: v >= 0 goes to the largest bucket value
		 * <= v; v < 0 to the first (most negative) bucket value >= v,
		 * so -5 counts under -4, as 5 counts under 4.
		 */
		if (v.i < 0) {
			for (b = 0; b < QZ_ZERO - 1; b++)
				if (v.i <= qz_bucketval(b))
					break;
		} else {
			for (b = QZ_ZERO; b < QZ_NBUCKETS - 1; b++)
				if (v.i < qz_bucketval(b + 1))
					break;
		}
		d[b] += incr.i;
		break;
	}
	case AG_LQUANTIZE: {
		int64_t base = a->lq_base, step = a->lq_step;
		int64_t levels = a->lq_levels;

		if (v.i < base)
			d[0] += incr.i;
		else if (v.i >= base + levels * step)
			d[levels + 1] += incr.i;
		else
			d[(v.i - base) / step + 1] += incr.i;
		break;
	}
	}
}

/* dt_aggregate_valcmp() and friends */
static long double lq_sum(const struct agg *a, const int64_t *d)
{
	int64_t base = a->lq_base;
	unsigned i;
	long double t = (long double)d[0] * (long double)(base - 1);

	for (i = 0; i < a->lq_levels; base += a->lq_step, i++)
		t += (long double)d[i + 1] * (long double)base;
	return t + (long double)d[a->lq_levels + 1] * (long double)(base + 1);
}

static int64_t lq_zero(const struct agg *a, const int64_t *d)
{
	int64_t base = a->lq_base;
	unsigned i;

	if (base - 1 == 0)
		return d[0];
	for (i = 0; i < a->lq_levels; base += a->lq_step, i++)
		if (base == 0)
			return d[i + 1];
	if (base + 1 == 0)
		return d[a->lq_levels + 1];
	return 0;
}

static int cmp3(long double l, long double r)
{
	return l < r ? -1 : l > r ? 1 : 0;
}

static int valcmp(const struct agg *a, const int64_t *l, const int64_t *r)
{
	int c;
	int i;

	switch (a->fn) {
	case AG_AVG:
		return cmp3((long double)(l[0] ? l[1] / l[0] : 0),
			    (long double)(r[0] ? r[1] / r[0] : 0));
	case AG_QUANTIZE: {
		long double lt = 0, rt = 0;

		for (i = 0; i < QZ_NBUCKETS; i++) {
			lt += (long double)qz_bucketval(i) * (long double)l[i];
			rt += (long double)qz_bucketval(i) * (long double)r[i];
		}
		if ((c = cmp3(lt, rt)) != 0)
			return c;
		return cmp3((long double)l[QZ_ZERO], (long double)r[QZ_ZERO]);
	}
	case AG_LQUANTIZE:
		if ((c = cmp3(lq_sum(a, l), lq_sum(a, r))) != 0)
			return c;
		return cmp3((long double)lq_zero(a, l),
			    (long double)lq_zero(a, r));
	default:
		return l[0] < r[0] ? -1 : l[0] > r[0] ? 1 : 0;
	}
}

/* dt_aggregate_keycmp(): fewer keys first; per key the smaller record
 * first (an integer before a string), integers as unsigned, strings by
 * bytes. */
static int keycmp(const struct aent *l, const struct aent *r)
{
	unsigned i;

	if (l->nkeys != r->nkeys)
		return l->nkeys < r->nkeys ? -1 : 1;
	for (i = 0; i < l->nkeys; i++) {
		const struct dv *a = &l->keys[i], *b = &r->keys[i];
		unsigned sa = a->k == K_STR ? 0x10000 : a->sz;
		unsigned sb = b->k == K_STR ? 0x10000 : b->sz;
		int c;

		if (sa != sb)
			return sa < sb ? -1 : 1;
		if (a->k == K_STR) {
			c = strcmp(a->s, b->s);
			if (c)
				return c < 0 ? -1 : 1;
			continue;
		}
		{
			uint64_t ua = (uint64_t)a->i, ub = (uint64_t)b->i;

			if (a->sz < 8) {
				uint64_t m = (1ULL << (a->sz * 8)) - 1;

				ua &= m;
				ub &= m;
			}
			if (ua != ub)
				return ua < ub ? -1 : 1;
		}
	}
	return 0;
}

struct sortctx {
	const struct agg *a;
	const struct aent *ents;
	int rev;     /* 1 or -1 */
	bool bykey;
};

static struct sortctx *sort_ctx; /* qsort() has no argument */

static int ent_cmp(const void *lp, const void *rp)
{
	const struct sortctx *s = sort_ctx;
	const struct aent *l = &s->ents[*(const size_t *)lp];
	const struct aent *r = &s->ents[*(const size_t *)rp];
	int c;

	if (s->bykey) {
		c = keycmp(l, r);
		if (c)
			return c * s->rev;
		return valcmp(s->a, l->data, r->data) * s->rev;
	}
	c = valcmp(s->a, l->data, r->data);
	if (c)
		return c * s->rev;
	return keycmp(l, r) * s->rev;
}

/* Entry indices in printing order; the caller frees. */
static size_t *agg_sorted(const struct d_prog *p, const struct agg *a,
			  bool rev)
{
	size_t *ix = xmalloc((a->n ? a->n : 1) * sizeof(*ix));
	struct sortctx s = { a, a->ents, 1, p->aggsortkey };
	size_t i;

	if (p->aggsortrev)
		rev = !rev;
	s.rev = rev ? -1 : 1;
	for (i = 0; i < a->n; i++)
		ix[i] = i;
	sort_ctx = &s;
	qsort(ix, a->n, sizeof(*ix), ent_cmp);
	sort_ctx = NULL;
	return ix;
}

/* dt_print_quantline() */
static void quantline(struct sbuf *sb, int64_t val, long double total,
		      bool positives, bool negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned len = 40, depth;
	long double f;

	if (!negatives) {
		if (positives) {
			f = (fabsl((long double)val) * len) / total;
			depth = (unsigned)(f + 0.5);
		} else {
			depth = 0;
		}
		sb_printf(sb, "|%s%s %-9lld\n", ats + len - depth,
			  spaces + depth, (long long)val);
		return;
	}
	if (!positives) {
		f = (fabsl((long double)val) * len) / total;
		depth = (unsigned)(f + 0.5);
		sb_printf(sb, "%s%s| %-9lld\n", spaces + depth,
			  ats + len - depth, (long long)val);
		return;
	}
	/* both: half-length bars either side of a centre line */
	len /= 2;
	f = (fabsl((long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (val <= 0)
		sb_printf(sb, "%s%s|%*s %-9lld\n", spaces + 20 + depth,
			  ats + 20 + len - depth, (int)len, "",
			  (long long)val);
	else
		sb_printf(sb, "%20s|%s%s %-9lld\n", "", ats + 20 + len - depth,
			  spaces + 20 + depth, (long long)val);
}

static void print_quantize(struct sbuf *sb, const int64_t *d)
{
	int first = 0, last = QZ_NBUCKETS - 1, i;
	long double total = 0;
	bool pos = false, neg = false;

	while (first < QZ_NBUCKETS - 1 && d[first] == 0)
		first++;
	if (first == QZ_NBUCKETS - 1) {
		first = QZ_ZERO - 1;
		last = QZ_ZERO + 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && d[last] == 0)
			last--;
		if (last < QZ_NBUCKETS - 1)
			last++;
	}
	for (i = first; i <= last; i++) {
		pos |= d[i] > 0;
		neg |= d[i] < 0;
		total += fabsl((long double)d[i]);
	}
	sb_printf(sb, "\n%16s %41s %-9s\n", "value",
		  "------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		sb_printf(sb, "%16lld ", (long long)qz_bucketval(i));
		quantline(sb, d[i], total, pos, neg);
	}
}

static void print_lquantize(struct sbuf *sb, const struct agg *a,
			    const int64_t *d)
{
	int levels = a->lq_levels, first = 0, last = levels + 1, i;
	long double total = 0;
	bool pos = false, neg = false;

	while (first <= levels + 1 && d[first] == 0)
		first++;
	if (first > levels + 1) {
		first = 0;
		last = 2;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && d[last] == 0)
			last--;
		if (last < levels + 1)
			last++;
	}
	for (i = first; i <= last; i++) {
		pos |= d[i] > 0;
		neg |= d[i] < 0;
		total += fabsl((long double)d[i]);
	}
	sb_printf(sb, "\n%16s %41s %-9s\n", "value",
		  "------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		char c[32];

		if (i == 0) {
			snprintf(c, sizeof(c), "< %d", (int)a->lq_base);
			sb_printf(sb, "%16s ", c);
		} else if (i == levels + 1) {
			snprintf(c, sizeof(c), ">= %d",
				 (int)(a->lq_base + levels * a->lq_step));
			sb_printf(sb, "%16s ", c);
		} else {
			sb_printf(sb, "%16d ",
				  (int)(a->lq_base + (i - 1) * a->lq_step));
		}
		quantline(sb, d[i], total, pos, neg);
	}
}

/* dt_print_datum() for a key: width by record size. */
static void print_key(struct sbuf *sb, const struct dv *k)
{
	if (k->k == K_STR) {
		sb_printf(sb, "  %-50s", k->s);
		return;
	}
	switch (k->sz) {
	case 1:
		sb_printf(sb, " %3d", (int)(uint8_t)k->i);
		break;
	case 2:
		sb_printf(sb, " %5d", (int)(uint16_t)k->i);
		break;
	case 4:
		sb_printf(sb, " %8d", (int)(int32_t)k->i);
		break;
	default:
		sb_printf(sb, " %16lld", (long long)k->i);
	}
}

static void print_value(struct sbuf *sb, const struct agg *a, const int64_t *d)
{
	switch (a->fn) {
	case AG_QUANTIZE:
		print_quantize(sb, d);
		break;
	case AG_LQUANTIZE:
		print_lquantize(sb, a, d);
		break;
	case AG_AVG:
		sb_printf(sb, " %16lld", (long long)(d[0] ? d[1] / d[0] : 0));
		break;
	default:
		sb_printf(sb, " %16lld", (long long)d[0]);
	}
}

/* dt_print_aggs() for every entry of one aggregation. */
static void print_agg(struct d_prog *p, struct agg *a, struct sbuf *sb)
{
	size_t *ix = agg_sorted(p, a, false), i;
	unsigned k;

	for (i = 0; i < a->n; i++) {
		const struct aent *e = &a->ents[ix[i]];

		for (k = 0; k < e->nkeys; k++)
			print_key(sb, &e->keys[k]);
		print_value(sb, a, e->data);
		sb_puts(sb, "\n");
	}
	free(ix);
}

/* printa() with a format: dt_printf_format() once per entry, keys for
 * the plain conversions, the value for %@. */
static void printa_fmt(struct d_prog *p, struct agg *a, const struct pfmt *pf,
		       struct sbuf *sb)
{
	size_t *ix = agg_sorted(p, a, false), i;

	for (i = 0; i < a->n; i++) {
		const struct aent *e = &a->ents[ix[i]];
		unsigned s, key = 0;

		for (s = 0; s < pf->nseg; s++) {
			const struct pfseg *d = &pf->seg[s];
			int width = d->width, prec = d->prec;
			struct dv v;

			sb_add(sb, d->prefix, d->preflen);
			if (!d->conv) {
				if (pf->nseg == 1)
					break;
				continue;
			}
			if (d->conv == '%') {
				sb_puts(sb, "%");
				continue;
			}
			if (d->flags & PF_DYNW)
				width = key < e->nkeys ? (int)e->keys[key++].i
						       : 0;
			if (d->flags & PF_DYNP)
				prec = key < e->nkeys ? (int)e->keys[key++].i
						      : 0;
			if (d->flags & PF_AGG) {
				if (a->fn == AG_QUANTIZE) {
					print_quantize(sb, e->data);
					continue;
				}
				if (a->fn == AG_LQUANTIZE) {
					print_lquantize(sb, a, e->data);
					continue;
				}
				/* pfprint_average() divides unsigned */
				if (a->fn == AG_AVG)
					v = dv_int(e->data[0]
							   ? (int64_t)((uint64_t)e->data[1] /
								       (uint64_t)e->data[0])
							   : 0,
						   8, true);
				else
					v = dv_int(e->data[0], 8,
						   a->fn != AG_COUNT);
			} else if (key < e->nkeys) {
				v = e->keys[key++];
			} else {
				break;
			}
			pf_one(sb, d, width, prec, &v);
		}
	}
	free(ix);
	a->printed = true;
}

static void agg_clear(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		memset(a->ents[i].data, 0, agg_ndata(a) * sizeof(int64_t));
}

/* trunc(@a, n): keep the n largest (n < 0: the -n smallest). */
static void agg_trunc(struct d_prog *p, struct agg *a, int64_t keep)
{
	size_t *ix, i, nkeep;
	bool *kept;
	struct aent *ents;
	size_t n = 0;

	if (keep == 0) {
		agg_free_entries(a);
		return;
	}
	ix = agg_sorted(p, a, keep > 0);
	nkeep = (size_t)(keep < 0 ? -keep : keep);
	if (nkeep >= a->n) {
		free(ix);
		return;
	}
	kept = xcalloc(a->n, sizeof(*kept));
	for (i = 0; i < nkeep; i++)
		kept[ix[i]] = true;
	ents = xmalloc(a->n * sizeof(*ents));
	for (i = 0; i < a->n; i++) {
		if (kept[i]) {
			ents[n++] = a->ents[i];
		} else {
			unsigned k;

			for (k = 0; k < a->ents[i].nkeys; k++)
				if (a->ents[i].keys[k].k == K_STR)
					free((char *)a->ents[i].keys[k].s);
			free(a->ents[i].keys);
			free(a->ents[i].data);
		}
	}
	free(a->ents);
	free(kept);
	free(ix);
	a->ents = ents;
	a->cap = a->n;
	a->n = n;
	/* rebuild the index */
	ht_clear(&a->index);
	for (i = 0; i < n; i++) {
		struct sbuf k = { 0 };
		struct hent *h;
		unsigned j;

		for (j = 0; j < ents[i].nkeys; j++)
			key_add(&k, &ents[i].keys[j]);
		h = ht_insert(&a->index, k.b ? k.b : "", k.len);
		h->idx = i;
		free(k.b);
	}
}

void d_print_aggs(struct d_prog *p, FILE *out)
{
	struct sbuf sb = { 0 };
	unsigned i;

	if (!p)
		return;
	/* dtrace.c's main(): a newline when tracing stops, then
	 * dtrace_aggregate_print() of what printa() did not print */
	sb_puts(&sb, "\n");
	for (i = 0; i < p->naggs; i++) {
		unsigned j = p->aggsortrev ? p->naggs - 1 - i : i;

		if (p->aggs[j].printed || !p->aggs[j].defined)
			continue;
		print_agg(p, &p->aggs[j], &sb);
	}
	if (sb.len)
		fwrite(sb.b, 1, sb.len, out);
	free(sb.b);
}

/* ------------------------------------------------------------------ */
/* Statements */

static void do_printf(struct ectx *x, const struct stmt *st)
{
	const struct pfmt *pf = st->pf;
	struct dv *vals = NULL;
	unsigned s, j = 0, i;

	if (st->nargs)
		vals = ar_alloc(&x->scratch, st->nargs * sizeof(*vals));
	for (i = 0; i < st->nargs; i++) {
		x->action = st->action + (int)i;
		vals[i] = eval(x, st->args[i]);
		if (vals[i].k == K_STR && strlen(vals[i].s) >= x->p->strsize)
			vals[i].s = ar_strndup(&x->scratch, vals[i].s,
					       x->p->strsize - 1);
	}
	for (s = 0; s < pf->nseg; s++) {
		const struct pfseg *d = &pf->seg[s];
		int width = d->width, prec = d->prec;

		sb_add(&x->out, d->prefix, d->preflen);
		if (!d->conv)
			continue;
		if (d->conv == '%') {
			sb_puts(&x->out, "%");
			continue;
		}
		if ((d->flags & PF_DYNW) && j < st->nargs)
			width = (int)(int32_t)vals[j++].i;
		if ((d->flags & PF_DYNP) && j < st->nargs)
			prec = (int)(int32_t)vals[j++].i;
		if (j >= st->nargs)
			break;
		pf_one(&x->out, d, width, prec, &vals[j++]);
	}
}

/* trace(): dt_consume_cpu()'s record formats by size. */
static void do_trace(struct ectx *x, const struct dv *v)
{
	struct sbuf *sb = &x->out;
	bool q = x->p->quiet;

	if (v->k == K_STR) {
		if (q)
			sb_printf(sb, "%s", v->s);
		else
			sb_printf(sb, "  %-33s", v->s);
		return;
	}
	switch (v->sz) {
	case 1:
		sb_printf(sb, q ? "%d" : " %3d", (int)(uint8_t)v->i);
		break;
	case 2:
		sb_printf(sb, q ? "%d" : " %5d", (int)(uint16_t)v->i);
		break;
	case 4:
		sb_printf(sb, q ? "%d" : " %8d", (int)(int32_t)v->i);
		break;
	default:
		sb_printf(sb, q ? "%lld" : " %16lld", (long long)v->i);
	}
}

static void exec_stmt(struct ectx *x, const struct stmt *st)
{
	struct d_prog *p = x->p;
	struct dv v;

	x->action = st->action;
	switch (st->kind) {
	case S_EXPR:
		(void)eval(x, st->e);
		break;
	case S_TRACE:
		v = eval(x, st->e);
		if (v.k == K_STR && strlen(v.s) >= p->strsize)
			v.s = ar_strndup(&x->scratch, v.s, p->strsize - 1);
		do_trace(x, &v);
		break;
	case S_EXIT:
		v = eval(x, st->e);
		x->exited = true;
		x->status = (int)(int32_t)v.i;
		break;
	case S_PRINTF:
		do_printf(x, st);
		break;
	case S_PRINTA:
		if (st->pf) {
			printa_fmt(p, &p->aggs[st->agg], st->pf, &x->out);
		} else {
			sb_puts(&x->out, "\n");
			print_agg(p, &p->aggs[st->agg], &x->out);
			p->aggs[st->agg].printed = true;
		}
		break;
	case S_CLEAR:
		agg_clear(&p->aggs[st->agg]);
		break;
	case S_TRUNC:
		v = dv_int(0, 8, true);
		if (st->e) {
			x->action = st->action + 1;
			v = eval(x, st->e);
		}
		agg_trunc(p, &p->aggs[st->agg], v.i);
		break;
	case S_AGG:
		agg_update(x, &p->aggs[st->agg], st);
		break;
	}
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
		v = eval(x, c->pred);
		if (!truth(&v))
			return;
	}
	for (i = 0; i < c->nstmts; i++)
		exec_stmt(x, &c->stmts[i]);
	if (c->records) {
		if (!p->heading) {
			p->heading = true;
			if (!p->quiet)
				fprintf(out, "%3s %6s %32s\n", "CPU", "ID",
					"FUNCTION:NAME");
		}
		if (!p->quiet) {
			char name[512];

			snprintf(name, sizeof(name), "%s:%s",
				 pr && pr->func ? pr->func : "",
				 pr && pr->name ? pr->name : "");
			fprintf(out, "%3d %6d %32s ", x->f->cpu,
				pr ? (int)pr->id : 0, name);
		}
		if (x->out.len)
			fwrite(x->out.b, 1, x->out.len, out);
		if (!p->quiet)
			fputc('\n', out);
	}
	if (x->exited) {
		p->exit_status = x->status;
		x->rv |= D_RUN_EXIT;
	}
}

static void report_fault(const struct ectx *x, FILE *err)
{
	const struct d_probe *pr = x->f->probe;
	char details[40] = "", where[32];

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
					     ? dv_str(xstrdup(""))
					     : dv_int(0, 8, true);
		}
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
	if (setjmp(x->jb) == 0) {
		run_clause(x, out);
	} else {
		report_fault(x, err);
		x->rv = D_RUN_ERROR;
	}
	rv = x->rv;
	free(x->out.b);
	ar_free(&x->scratch);
	free(x);
	return rv;
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
			if (sc == SC_SELF && t == (int32_t)tid)
				ht_remove(&p->dyn, e);
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
			n += sc == SC_SELF;
		}
	return n;
}
