// SPDX-License-Identifier: MIT
/*
 * check.c - type checking of the D language (dtrace-G/d/): the kind
 * (integer or string) of every expression, and the messages DTrace's
 * compiler gives for a mismatch ("operator + requires an operand of
 * integer type", "strlen( ) argument #1 is incompatible with
 * prototype", "failed to resolve x: Unknown variable name").
 *
 * compile.c runs d_check_clause() over all clauses of a unit twice: a
 * lenient pass learns the kinds assignments store (a variable may be
 * assigned in a later clause than the one that reads it), then a strict
 * pass checks every use.  printf() formats are checked against their
 * arguments here too (d_pf_validate(), printf.c).
 *
 * Also here: what a clause reads of a firing (d_strargs_of(),
 * d_needs_of()), so the consumer has the kernel copy only that.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "d_impl.h"

/* ------------------------------------------------------------------ */
/* Type checking (kinds: integer or string) */


const char *d_kind_name(int k)
{
	return k == T_STR ? "string" : k == T_INT ? "int" : "unknown";
}

void d_need_int(struct parser *ps, struct node *n, int k,
		     const char *what, bool strict)
{
	if (strict && k == T_STR)
		d_perrt(ps, D_OP_INT, n->line, n->col,
		       "operator %s requires an operand of integer type", what);
}

/*
 * NULL or 0: DTrace lets a string be compared with the null pointer
 * constant (`strstr(s, "x") != NULL` in Ruby's test/dtrace), and its
 * string comparison reads a null string as "" (run.c's binop()).
 */
static bool is_null_const(const struct node *n)
{
	return n->op == N_INT && n->ival == 0;
}

/*
 * A divisor the compiler can see is 0 (an integer constant expression
 * whose value is: d_const_dv(), (int8_t)256 and 2 - 2 included): D
 * refuses it (D_DIV_ZERO) rather than fault at every firing.
 */
static bool zero_divisor(const struct node *n)
{
	int64_t v;

	return d_const_int(n, &v) && v == 0;
}

/*
 * *np, an integer constant expression that is not a literal (2 * 5,
 * sizeof (x) + 1), replaced by a new literal of its value, where a
 * literal of its type reads as that value (d_dv_int(): a sum past its
 * type, such as 4294967295U + 1, stays the expression).  A new node,
 * not the expression's own rewritten: an inline's tree is shared by
 * every use of its name, and its other uses keep their shape.  For the
 * operands DTrace takes as constants and this tree reads as literals:
 * ustack()'s and jstack()'s frames, args[N]'s and uregs[N]'s N,
 * tracemem()'s size, and copyin()'s size (its copy made at the hit,
 * mem.c's node_mem(), where the kernel's plans make theirs).
 */
void d_fold_int(struct parser *ps, struct node **np)
{
	const struct node *n = *np;
	struct tok at = { .line = n->line, .col = n->col };
	struct node *f;
	struct dv v;

	if (n->op == N_INT || !d_const_dv(n, &v) ||
	    d_dv_int(v.i, v.sz, v.sg).i != v.i)
		return;
	f = d_mknode(ps, N_INT, &at);
	f->ival = v.i;
	f->sz = v.sz;
	f->sg = v.sg;
	f->kind = T_INT;
	*np = f;
}

static void check_divisor(struct parser *ps, const struct node *n, int op,
			  const struct node *b)
{
	if ((op == '/' || op == '%' || op == OP_DIVEQ || op == OP_MODEQ) &&
	    zero_divisor(b))
		d_perrt(ps, D_DIV_ZERO, n->line, n->col,
			"expression contains %s by zero",
			op == '/' || op == OP_DIVEQ ? "division" : "modulo");
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

/*
 * A variable used as declared: a scalar not indexed, an associative
 * array indexed with its key signature (declared, or that of its first
 * use: the count of keys, and their kinds when declared).
 */
static void check_shape(struct parser *ps, struct node *n, bool strict)
{
	struct d_prog *p = ps->prog;
	struct var *v = &p->vars[n->sub];
	int other = -1;
	/* the same name as the other kind: scalar or array */
	int oscope = v->scope == SC_GLOBAL   ? SC_ASSOC
		     : v->scope == SC_ASSOC  ? SC_GLOBAL
		     : v->scope == SC_SELF   ? SC_SELFASSOC
		     : v->scope == SC_SELFASSOC ? SC_SELF
						: -1;

	/* the name declared, or used first (vars are made in program
	 * order), as the other kind */
	for (unsigned i = 0; i < p->nvars; i++)
		if ((p->vars[i].declared || i < (unsigned)n->sub) &&
		    p->vars[i].scope == oscope &&
		    strcmp(p->vars[i].name, v->name) == 0)
			other = (int)i;
	if (other >= 0) {
		const struct var *o = &p->vars[other];
		bool arr = o->scope == SC_ASSOC || o->scope == SC_SELFASSOC;

		if (!o->declared)
			d_perrt(ps, D_IDENT_BADREF, n->line, n->col,
				"%s is used before as %s: %s", v->name,
				arr ? "an associative array" : "a scalar",
				arr ? "index it" : "it has no keys");
		d_perrt(ps, D_IDENT_BADREF, n->line, n->col,
			"%s is declared %s at line %d, column %d: %s", v->name,
			arr ? "an associative array" : "a scalar", o->line,
			o->col, arr ? "index it" : "it has no keys");
	}
	if (v->scope != SC_ASSOC && v->scope != SC_SELFASSOC)
		return;
	if (v->nkeys < 0) {
		v->nkeys = (int)n->nargs;
		v->kline = n->line;
		v->kcol = n->col;
		return;
	}
	if (strict && v->nkeys != (int)n->nargs)
		d_perrt(ps, D_PROTO_LEN, n->line, n->col,
		       "%s[ ] indexed with %u key%s; its %s at line %d, "
		       "column %d has %d",
		       v->name, n->nargs, n->nargs == 1 ? "" : "s",
		       v->declared ? "declaration" : "first use", v->kline,
		       v->kcol, v->nkeys);
	if (strict && !v->keykinds && !v->declared) {
		/* undeclared: the first use's key kinds are the array's, as
		 * DTrace takes its key signature from the first use */
		bool known = true;

		for (unsigned i = 0; i < n->nargs; i++)
			known = known && n->args[i]->kind != T_ANY;
		if (known && n->nargs) {
			v->keykinds = xcalloc(n->nargs, 1);
			for (unsigned i = 0; i < n->nargs; i++)
				v->keykinds[i] = (uint8_t)n->args[i]->kind;
			v->kline = n->line;
			v->kcol = n->col;
			return;
		}
	}
	for (unsigned i = 0; strict && v->keykinds && i < n->nargs; i++) {
		int k = n->args[i]->kind;

		if (k != T_ANY && k != v->keykinds[i])
			d_perrt(ps, D_PROTO_ARG, n->args[i]->line, n->args[i]->col,
			       "%s[ ] key #%u is a%s %s; its %s at "
			       "line %d, column %d says %s",
			       v->name, i + 1, k == T_INT ? "n" : "",
			       d_kind_name(k),
			       v->declared ? "declaration" : "first use",
			       v->declared ? v->line : v->kline,
			       v->declared ? v->col : v->kcol,
			       d_kind_name(v->keykinds[i]));
	}
}

static int check1(struct parser *ps, struct node *n, bool strict);

/* v[k] (read or assigned) of a scalar v, at v's node vn: parse_primary()
 * reads a name its first use made a scalar as one */
static void __attribute__((noreturn))
scalar_indexed(struct parser *ps, const struct node *vn, const struct var *v)
{
	if (v->declared)
		d_perrt(ps, D_IDENT_BADREF, vn->line, vn->col,
			"%s is declared a scalar at line %d, column %d: it "
			"has no keys",
			v->name, v->line, v->col);
	d_perrt(ps, D_IDENT_BADREF, vn->line, vn->col,
		"%s is a scalar variable (a%s %s, used as one before): it may "
		"not be referenced as an associative array",
		v->name, v->kind == T_STR ? "" : "n",
		v->kind == T_STR ? "string" : "integer");
}

/*
 * *p = v, p[i] = v, p->m = v and s.m = v (op=, ++ and -- too): a store
 * into the bytes p points to, which at run time must lie in scratch
 * this firing made, copyin()'s or alloca()'s (mem.c's d_store()), as
 * DTrace stores only to scratch, or into struct variable s (mem.c's
 * d_lval()).  The target an integer (a bit-field too), the value one; a
 * nested struct, an array member and another string's character are not
 * stored to.
 */
static int store_check(struct parser *ps, struct node *n, bool strict)
{
	struct node *l = n->a;
	const char *op = n->op == N_INCDEC ? op_name(n->sub)
			 : n->sub == '='   ? "="
					   : "op=";
	const struct node *outer = ps->sou_ok;
	int kb;

	ps->sou_ok = l; /* an array or a struct: the errors below */
	d_check(ps, l, strict);
	ps->sou_ok = outer;
	if (l->sou)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"operator %s cannot store a nested struct or union "
			"whole: store its members",
			op);
	if (l->op == N_DEREF && l->ival)
		d_perrt(ps, D_OP_WRITE, n->line, n->col,
			"operator %s cannot store into this string: a "
			"character is written in a global, self-> or this-> "
			"string variable only (s[i] = c)",
			op);
	if (strict && !l->sz)
		d_perrt(ps, D_OP_WRITE, n->line, n->col,
			"operator %s cannot store an array: store its "
			"elements (p->a[i] = v)",
			op);
	if (n->op == N_ASSIGN) {
		kb = d_check(ps, n->b, strict);
		d_need_int(ps, n, kb, op, strict);
		check_divisor(ps, n, n->sub, n->b);
	}
	n->sz = l->sz;
	n->sg = l->sg;
	return T_INT;
}

/*
 * DTrace's built-in variables this tracer does not have, read by a
 * script that never assigns the name (a script's own global of the name
 * is its own): D_IDENT_UNSUPP with the reason, where the name alone
 * would read as a typo.
 */
static void unsupp_builtin(struct parser *ps, const struct node *n,
			   const char *name)
{
	static const struct {
		const char *name, *why;
	} vars[] = {
		{"curthread", "it points to the Solaris kernel's kthread_t "
			      "of the firing thread"},
		{"curcpu", "it points to the Solaris kernel's cpuinfo_t"},
		{"curlwpsinfo", "it points to the Solaris kernel's "
				"lwpsinfo_t (tid is the thread's ID)"},
		{"ipl", "it is the Solaris kernel's interrupt priority "
			"level"},
		{"zonename", "it names a Solaris zone"},
		{"cwd", "a hit does not record the process's working "
			"directory ($cwd is dtrace's)"},
		{"root", "a hit does not record the process's root "
			 "directory"},
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i].name, name) == 0)
			d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
				"%s is not supported: %s", name, vars[i].why);
}

/* A node's kind; a struct or union itself (*p, p->nested) stands only
 * where mem.c reads a member of it. */
int d_check(struct parser *ps, struct node *n, bool strict)
{
	int k = check1(ps, n, strict);

	if (n->sou && ps->sou_ok != n &&
	    ps->prog->sous[n->sou - 1].isarray)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"an array is not a value here: index it (a[i])");
	if (n->sou && ps->sou_ok != n)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"a struct or union is not a value here: read its "
			"members (p->m, (*p).m)");
	/* an array member (mem.c): DTrace traces a char array's bytes,
	 * where a pointer's value would print here */
	if (n->op == N_MEMBER && !n->sou && !n->sz && ps->sou_ok != n)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"an array member is not a value here: index it "
			"(a[i]), or read it with * or stringof( )");
	return k;
}

/*
 * The type of a branch of ?: before run time: a constant's (d_const_dv(),
 * which folds a ?: of constants as this types it), else what printf.c's
 * d_int_type() knows.
 */
static bool tern_ty(const struct d_prog *p, const struct node *n, uint8_t *sz,
		    uint8_t *sg)
{
	struct dv v;

	if (d_const_dv(n, &v)) {
		*sz = v.sz;
		*sg = v.sg;
		return v.k == K_INT;
	}
	return d_int_type(p, n, sz, sg);
}

static int check1(struct parser *ps, struct node *n, bool strict)
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
			d_check(ps, n->args[i], strict);
		check_shape(ps, n, strict);
		n->ptr = v->ptr; /* mem.c: a pointer kept in a variable */
		n->psg = v->psg;
		n->psou = v->psou;
		n->pc = v->pc;
		n->sou = v->sou; /* a struct it holds (mem.c) */
		/* a name nothing assigns (anywhere, or before this read in
		 * program order), which would be refused as undefined: an
		 * enumerator of the traced programs' if they have one
		 * (decl.c), an int constant as C's enumerators are */
		if (n->op == N_VAR && v->scope == SC_GLOBAL && !v->assigned &&
		    !v->declared && (strict || ps->ordered_pass)) {
			struct tok at = { .line = n->line, .col = n->col };
			int64_t ev;

			if (d_enumerator(ps, NULL, v->name, &at, &ev)) {
				n->op = N_INT;
				n->ival = ev;
				n->sz = ev >= INT32_MIN && ev <= INT32_MAX ? 4 : 8;
				n->sg = 1;
				n->ptr = 0;
				n->psg = 0;
				n->psou = 0;
				memset(&n->pc, 0, sizeof(n->pc));
				n->sou = 0;
				return n->kind = T_INT;
			}
		}
		if (strict && !v->assigned && v->scope == SC_GLOBAL)
			unsupp_builtin(ps, n, v->name);
		if (strict && !v->assigned &&
		    (v->scope == SC_GLOBAL || v->scope == SC_ASSOC))
			d_perrt(ps, D_IDENT_UNDEF, n->line, n->col,
			       "failed to resolve %s: Unknown variable name",
			       v->name);
		/* read before anything in program order assigns it (the
		 * lenient pass goes in that order): DTrace resolves names
		 * in order and so refuses it; a declaration comes first */
		if (!strict && ps->ordered_pass && !v->assigned && !v->early &&
		    (v->scope == SC_GLOBAL || v->scope == SC_ASSOC)) {
			v->early = true;
			v->rline = n->line;
			v->rcol = n->col;
		}
		if (strict && v->early && !v->declared)
			d_perrt(ps, D_IDENT_UNDEF, v->rline, v->rcol,
				"failed to resolve %s: Unknown variable name "
				"(used before anything assigns it: declare it "
				"first)",
				v->name);
		return n->kind = v->kind;
	}
	case N_BUILTIN:
		return n->kind = d_builtins[n->sub].str ? T_STR : T_INT;
	case N_ARGN:
		return n->kind = T_INT;
	case N_ARGS:
		ka = d_check(ps, n->a, strict);
		d_need_int(ps, n->a, ka, "[ ]", strict);
		d_fold_int(ps, &n->a);
		return n->kind = T_ANY;
	case N_FUNC: {
		const struct node *outer = ps->sou_ok;

		for (i = 0; i < n->nargs; i++) {
			/* stringof(an array member): its bytes (mem.c) */
			ps->sou_ok = d_funcs[n->sub].id == F_STRINGOF
					     ? n->args[i]
					     : outer;
			d_check(ps, n->args[i], strict);
			if (n->args[i]->sou)
				d_perrt(ps, D_IDENT_UNSUPP, n->args[i]->line,
					n->args[i]->col,
					"a struct or union is not a value "
					"here: read its members (p->m, "
					"(*p).m)");
		}
		ps->sou_ok = outer;
		if (d_funcs[n->sub].id == F_COPYIN) {
			n->ptr = D_PTR_VOID;
			if (n->nargs == 2)
				d_fold_int(ps, &n->args[1]);
		}
		return n->kind = d_check_func(ps, n, strict);
	}
	case N_DEREF: {
		const struct node *outer = ps->sou_ok;

		ps->sou_ok = n->a; /* an array member (mem.c) */
		ka = d_check(ps, n->a, strict);
		ps->sou_ok = outer;
		if (n->b) { /* a[i] */
			kb = d_check(ps, n->b, strict);
			d_need_int(ps, n, kb, "[ ]", strict);
			/* s[i]: a char of the string (run.c), D's string
			 * being a char array of strsize bytes */
			if (ka == T_STR) {
				if (n->a->op == N_FUNC &&
				    d_stack_func(d_funcs[n->a->sub].id))
					d_perrt(ps, D_OP_INT, n->line, n->col,
						"operator [ ] cannot index "
						"%s( )'s value: it is not a "
						"string",
						d_funcs[n->a->sub].name);
				n->ival = 1;
				n->sz = 1;
				n->sg = 1;
				return n->kind = T_INT;
			}
			if (ka == T_ANY && !strict && !n->a->ptr)
				return n->kind = T_ANY; /* as below */
			if (n->a->op == N_VAR && !n->a->ptr &&
			    (p->vars[n->a->sub].scope == SC_GLOBAL ||
			     p->vars[n->a->sub].scope == SC_SELF))
				scalar_indexed(ps, n->a, &p->vars[n->a->sub]);
		}
		/* what the operand holds is not known yet (mem.c's
		 * d_member_check()): the strict pass checks it */
		if (ka == T_ANY && !strict && !n->a->ptr)
			return n->kind = T_ANY;
		d_mem_check(ps, n);
		return n->kind = T_INT;
	}
	case N_MEMBER:
		n->kind = T_INT;
		d_member_check(ps, n, strict); /* T_ANY: not known yet */
		return n->kind;
	case N_VARADDR: /* made by &'s rewrite (mem.c), already typed */
		return n->kind = T_INT;
	case N_UREGS:
		ka = d_check(ps, n->a, strict);
		d_need_int(ps, n->a, ka, "uregs[ ]", strict);
		d_fold_int(ps, &n->a);
		d_uregs_check(ps, n);
		return n->kind = T_INT;
	case N_UN:
		if (n->sub == '&') /* rewritten as the address (mem.c) */
			return d_addrof_check(ps, n, strict);
		ka = d_check(ps, n->a, strict);
		d_need_int(ps, n, ka, op_name(n->sub), strict);
		return n->kind = T_INT;
	case N_CAST:
		ka = d_check(ps, n->a, strict);
		d_need_int(ps, n, ka, "( )", strict);
		return n->kind = T_INT;
	case N_BIN:
		ka = d_check(ps, n->a, strict);
		kb = d_check(ps, n->b, strict);
		check_divisor(ps, n, n->sub, n->b);
		if (((n->sub == '+' || n->sub == '-') && n->a->ptr &&
		     !n->b->ptr) ||
		    (n->sub == '+' && !n->a->ptr && n->b->ptr)) {
			/* pointer arithmetic (mem.c), n + p as p + n */
			const struct node *pn = n->a->ptr ? n->a : n->b;
			struct tok at = { .line = n->line, .col = n->col };

			if (pn->ptr == D_PTR_SOU) /* scaled by its size */
				d_sou_size(ps, pn->psou, D_DECL_INCOMPLETE,
					   &at);
			n->ptr = pn->ptr;
			n->psg = pn->psg;
			n->psou = pn->psou;
			n->pc = pn->pc;
		}
		if (n->a->ptr && n->b->ptr &&
		    (n->sub == '+' || n->sub == '-')) {
			/* q - p: the elements between them (run.c), of
			 * pointers to one type (void * goes with any) */
			struct tok at = { .line = n->line, .col = n->col };

			if (n->sub == '+')
				d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
					"operator + cannot add two pointers");
			if (n->a->ptr != D_PTR_VOID &&
			    n->b->ptr != D_PTR_VOID &&
			    (n->a->ptr != n->b->ptr ||
			     n->a->psou != n->b->psou ||
			     !d_pchain_eq(&n->a->pc, &n->b->pc)))
				d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
					"operator - requires pointers to one "
					"type");
			if (n->b->ptr == D_PTR_SOU)
				d_sou_size(ps, n->b->psou, D_DECL_INCOMPLETE,
					   &at);
		}
		if (!d_op_cmp(n->sub)) {
			d_need_int(ps, n, ka, op_name(n->sub), strict);
			d_need_int(ps, n, kb, op_name(n->sub), strict);
		} else if (strict && ka != T_ANY && kb != T_ANY && ka != kb &&
			   !(ka == T_STR && is_null_const(n->b)) &&
			   !(kb == T_STR && is_null_const(n->a))) {
			d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
				"operator %s requires operands of the same "
				"type: %s and %s",
				op_name(n->sub), d_kind_name(ka),
				d_kind_name(kb));
		}
		return n->kind = T_INT;
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		d_check(ps, n->a, strict);
		d_check(ps, n->b, strict);
		return n->kind = T_INT;
	case N_TERN:
		d_check(ps, n->a, strict);
		kb = d_check(ps, n->b, strict);
		kc = d_check(ps, n->c, strict);
		if (n->b->ptr && n->b->ptr == n->c->ptr &&
		    n->b->psou == n->c->psou &&
		    d_pchain_eq(&n->b->pc, &n->c->pc)) {
			n->ptr = n->b->ptr;
			n->psg = n->b->psg;
			n->psou = n->b->psou;
			n->pc = n->b->pc;
		}
		if (strict && kb != T_ANY && kc != T_ANY && kb != kc)
			d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
			       "operator ?: operands must have compatible "
			       "types: %s and %s",
			       d_kind_name(kb), d_kind_name(kc));
		/* integers of two known types: C's conversions type it
		 * (run.c's tern_type()) */
		n->sz = n->sg = 0;
		{
			uint8_t bz, bg, cz, cg;
			unsigned tz;
			bool tg;

			if (!n->b->ptr && !n->c->ptr &&
			    tern_ty(p, n->b, &bz, &bg) &&
			    tern_ty(p, n->c, &cz, &cg) &&
			    (bz != cz || bg != cg)) {
				d_int_common(bz, bg, cz, cg, &tz, &tg);
				n->sz = (uint8_t)tz;
				n->sg = tg;
			}
		}
		return n->kind = kb != T_ANY ? kb : kc;
	case N_ASSIGN: {
		struct var *v;
		char disp[160];

		/* *p = v, p[i] = v, p->m = v, s.m = v: a store into scratch
		 * or a struct variable (mem.c) */
		if ((n->a->op == N_DEREF && n->a->a->op != N_VAR) ||
		    n->a->op == N_MEMBER)
			return n->kind = store_check(ps, n, strict);
		v = &p->vars[n->a->sub];
		if (n->a->op == N_DEREF) { /* x[k] = of a scalar x */
			const struct var *sv = &p->vars[n->a->a->sub];

			d_check(ps, n->a->a, strict);
			if (n->a->b)
				d_check(ps, n->a->b, strict);
			d_check(ps, n->b, strict);
			if (!strict) /* what x holds may not be known yet */
				return n->kind = T_ANY;
			if (n->a->a->ptr)
				return n->kind = store_check(ps, n, strict);
			/* s[i] = c: a character of a string variable, as
			 * DTrace's strings are char arrays (run.c) */
			if (sv->kind == T_STR && n->sub == '=') {
				d_check(ps, n->a, strict);
				d_need_int(ps, n, n->b->kind, "=", strict);
				n->sz = 1;
				n->sg = 1;
				return n->kind = T_INT;
			}
			if (sv->kind == T_STR)
				d_perrt(ps, D_OP_WRITE, n->line, n->col,
					"operator op= cannot be applied to a "
					"string's character: assign it "
					"(%s[i] = c)",
					sv->name);
			scalar_indexed(ps, n->a->a, sv);
		}
		for (i = 0; i < n->a->nargs; i++)
			d_check(ps, n->a->args[i], strict);
		check_shape(ps, n->a, strict);
		{
			const struct node *outer = ps->sou_ok;

			ps->sou_ok = n->b; /* this->s = *p (mem.c) */
			kb = d_check(ps, n->b, strict);
			ps->sou_ok = outer;
		}
		if (n->b->sou || v->sou) {
			d_sou_assign_check(ps, n, v);
			return n->kind = T_INT;
		}
		check_divisor(ps, n, n->sub, n->b);
		if (n->sub == '=' && n->b->ptr && !v->assigned) {
			v->ptr = n->b->ptr; /* mem.c */
			v->psg = n->b->psg;
			v->psou = n->b->psou;
			v->pc = n->b->pc;
		}
		n->ptr = v->ptr;
		n->psg = v->psg;
		n->psou = v->psou;
		n->pc = v->pc;
		if (n->sub != '=') {
			d_need_int(ps, n, kb, "op=", strict);
			d_need_int(ps, n, v->kind, "op=", strict);
			kb = T_INT;
		}
		if (!v->assigned || v->kind == T_ANY) {
			v->assigned = true;
			if (v->kind == T_ANY)
				v->kind = kb;
		} else if (v->kind == T_STR && n->sub == '=' &&
			   is_null_const(n->b)) {
			/* D's typeless 0 clears any variable: a string one
			 * then reads "" (a dynamic one is freed: run.c) */
		} else if (strict && kb != T_ANY && v->kind != kb) {
			d_var_display(v, disp, sizeof(disp));
			/* a[ ]: its name alone */
			if (v->scope == SC_ASSOC || v->scope == SC_SELFASSOC)
				disp[strlen(disp) - 3] = '\0';
			if (v->declared)
				d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
				       "operator = cannot assign a %s to %s, "
				       "declared %s at line %d, column %d",
				       d_kind_name(kb), disp, v->tname,
				       v->line, v->col);
			d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
			       "operator = cannot assign a %s to %s, "
			       "which holds a%s %s",
			       d_kind_name(kb), disp,
			       v->kind == T_INT ? "n" : "",
			       d_kind_name(v->kind));
		}
		return n->kind = v->kind;
	}
	case N_INCDEC: {
		struct var *v;

		if (n->a->op == N_DEREF && n->a->a->op == N_VAR && !strict &&
		    !n->a->a->ptr) {
			/* x[k]++: what x holds may not be known yet */
			d_check(ps, n->a, strict);
			return n->kind = T_ANY;
		}
		if (n->a->op == N_DEREF || n->a->op == N_MEMBER) /* a store */
			return n->kind = store_check(ps, n, strict);
		if (n->a->op != N_VAR && n->a->op != N_ASSOC)
			d_perrt(ps, D_OP_WRITE, n->line, n->col,
			       "operator %s requires a writable variable",
			       op_name(n->sub));
		v = &p->vars[n->a->sub];
		for (i = 0; i < n->a->nargs; i++)
			d_check(ps, n->a->args[i], strict);
		check_shape(ps, n->a, strict);
		if (v->sou)
			d_perrt(ps, D_OP_SOU, n->line, n->col,
				"operator %s cannot be applied to %s",
				op_name(n->sub),
				p->sous[v->sou - 1].isarray
					? "an array: apply it to an element"
					: "a struct or union");
		d_need_int(ps, n, v->kind, op_name(n->sub), strict);
		v->assigned = true;
		if (v->kind == T_ANY)
			v->kind = T_INT;
		n->ptr = v->ptr; /* p++ steps by what p points to (run.c) */
		n->psg = v->psg;
		n->psou = v->psou;
		n->pc = v->pc;
		return n->kind = T_INT;
	}
	}
	return T_ANY;
}

/* Which arguments' strings the clause reads (d_clause_strargs). */
uint16_t d_strargs_of(const struct node *n)
{
	uint16_t m = 0;
	unsigned i;

	if (!n)
		return 0;
	if (n->op == N_FUNC && d_funcs[n->sub].id == F_COPYINSTR &&
	    n->args[0]->op == N_ARGN)
		m |= (uint16_t)(1u << n->args[0]->sub);
	if (n->op == N_ARGS) {
		if (n->a->op == N_INT && n->a->ival >= 0 &&
		    n->a->ival < D_MAXARGS)
			m |= (uint16_t)(1u << n->a->ival);
		else if (n->a->op != N_INT)
			m |= (1u << D_MAXARGS) - 1;
	}
	m |= d_strargs_of(n->a) | d_strargs_of(n->b) | d_strargs_of(n->c);
	for (i = 0; i < n->nargs; i++)
		m |= d_strargs_of(n->args[i]);
	return m;
}

bool d_uname_func(const struct node *n)
{
	if (!n || n->op != N_FUNC)
		return false;
	switch (d_funcs[n->sub].id) {
	case F_UFUNC:
	case F_USYM:
	case F_UMOD:
	case F_UADDR:
		return true;
	default:
		return false;
	}
}

/* What the clause reads of a firing (d_clause_needs). */
uint32_t d_needs_of(const struct node *n)
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
	if (n->op == N_BUILTIN && d_builtins[n->sub].id == B_EXECNAME)
		m |= D_NEED_EXECNAME;
	if ((n->op == N_BUILTIN && d_builtins[n->sub].id == B_PPID) ||
	    (n->op == N_FUNC && d_funcs[n->sub].id == F_PROGENYOF))
		m |= D_NEED_PPID;
	if (n->op == N_FUNC && d_funcs[n->sub].id == F_PROGENYOF)
		m |= D_NEED_ANC; /* its chain at the hit, where taken */
	if ((n->op == N_BUILTIN && (d_builtins[n->sub].id == B_UCALLER ||
				    d_builtins[n->sub].id == B_USTACKDEPTH)) ||
	    (n->op == N_FUNC && (d_funcs[n->sub].id == F_USTACK ||
				  d_funcs[n->sub].id == F_JSTACK)) ||
	    n->op == N_UREGS) /* the registers come with the stack */
		m |= D_NEED_USTACK;
	if (d_uname_func(n))
		m |= D_NEED_UNAME;
	if (n->op == N_BUILTIN && d_builtins[n->sub].id == B_VTIMESTAMP)
		m |= D_NEED_VTIME;
	if (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_UID ||
				   d_builtins[n->sub].id == B_GID))
		m |= D_NEED_CRED;
	if (n->op == N_BUILTIN && d_builtins[n->sub].id == B_PSARGS)
		m |= D_NEED_PSARGS;
	if (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_EUID ||
				   d_builtins[n->sub].id == B_EGID))
		m |= D_NEED_ECRED;
	if (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_PGID ||
				   d_builtins[n->sub].id == B_SID))
		m |= D_NEED_SESS;
	if (n->op == N_FUNC && (d_funcs[n->sub].id == F_COPYOUTSTR ||
				d_funcs[n->sub].id == F_COPYOUT))
		m |= D_NEED_COPYOUT;
	m |= d_needs_of(n->a) | d_needs_of(n->b) | d_needs_of(n->c);
	for (i = 0; i < n->nargs; i++)
		m |= d_needs_of(n->args[i]);
	return m;
}

static void check_stmts(struct parser *ps, struct stmt *v, unsigned n,
			bool strict)
{
	struct d_prog *p = ps->prog;
	unsigned i, j;

	for (i = 0; i < n; i++) {
		struct stmt *st = &v[i];
		struct tok at = { .line = st->line, .col = st->col };

		switch (st->kind) {
		case S_IF:
			d_check(ps, st->e, strict);
			check_stmts(ps, st->body, st->nbody, strict);
			check_stmts(ps, st->els, st->nels, strict);
			break;
		case S_EXPR:
		case S_TRACE:
			ps->void_ok = st->kind == S_EXPR ? st->e : NULL;
			d_check(ps, st->e, strict);
			ps->void_ok = NULL;
			break;
		case S_EXIT:
			d_check(ps, st->e, strict);
			d_need_int(ps, st->e, st->e->kind, "exit( )", strict);
			break;
		case S_TRUNC:
			if (st->e) {
				d_check(ps, st->e, strict);
				d_need_int(ps, st->e, st->e->kind, "trunc( )",
					 strict);
			}
			break;
		case S_PRINTF:
		case S_SYSTEM:
			for (j = 0; j < st->nargs; j++)
				d_check(ps, st->args[j], strict);
			if (strict)
				d_pf_validate(ps, st->pf,
					      st->kind == S_PRINTF ? "printf"
								   : "system",
					      st->args, st->nargs, NULL, 0,
					      false, 0, &at);
			break;
		case S_TRACEMEM:
			d_tracemem_check(ps, st, strict);
			break;
		case S_RAISE:
			d_check(ps, st->e, strict);
			d_need_int(ps, st->e, st->e->kind, "raise( )", strict);
			break;
		case S_PRINTA:
			if (strict && st->pf) {
				struct agg *a = &p->aggs[st->agg];

				d_pf_validate(ps, st->pf, "printa", NULL,
					      st->naggv, NULL,
					      (unsigned)a->nkeys, true, st->agg,
					      &at);
			}
			break;
		case S_SPECULATE:
		case S_COMMIT:
		case S_DISCARD:
			d_check(ps, st->e, strict);
			d_need_int(ps, st->e, st->e->kind,
				   st->kind == S_SPECULATE ? "speculate( )"
				   : st->kind == S_COMMIT ? "commit( )"
							  : "discard( )",
				   strict);
			break;
		case S_NORMALIZE:
			d_check(ps, st->e, strict);
			d_need_int(ps, st->e, st->e->kind, "normalize( )",
				   strict);
			break;
		case S_AGG:
			for (j = 0; j < st->nkeys; j++)
				d_check(ps, st->keys[j], strict);
			for (j = 0; j < st->nargs; j++) {
				d_check(ps, st->args[j], strict);
				int fn = p->aggs[st->agg].fn;

				if (j < 1 || fn == AG_QUANTIZE ||
				    (fn == AG_LQUANTIZE && j == 4) ||
				    (fn == AG_LLQUANTIZE && j == 5))
					d_need_int(ps, st->args[j],
						 st->args[j]->kind,
						 d_agg_fn_names[p->aggs[st->agg]
								      .fn],
						 strict);
			}
			break;
		default:
			break;
		}
	}
}

void d_check_clause(struct parser *ps, struct clause *c, bool strict)
{
	if (c->pred)
		d_check(ps, c->pred, strict);
	check_stmts(ps, c->stmts, c->nstmts, strict);
}
