// SPDX-License-Identifier: MIT
/*
 * expr.c - the expression parser of the D language (dtrace-G/d/): a
 * recursive-descent parser over the tokens of lex.c that builds one small
 * tree (struct node) per expression, for compile.c's statements.
 *
 * Precedence is C's, lowest first: assignment (= and op=, right to
 * left), ?:, || ^^ &&, | ^ &, equality, relations, shifts, + -, * / %,
 * then the unary operators, casts (and (string) e and stringof e, which
 * are stringof()'s call) and prefix ++/--, then postfix ++/--
 * and the primaries: literals, variables (global, self->, this->,
 * associative array elements), builtins (func.c's table), function
 * calls (func.c's table) and args[N].  Binary operators of one level
 * are parsed in a loop, so a long sum leans left without recursion.
 * The comma operator is not D's: ',' separates arguments.
 *
 * Depth.  Every level of recursion counts in ps->depth; past D_MAXDEPTH
 * it is a located compile error, never a stack overflow.  A tree built
 * iteratively can still be deep (a 200,000-term sum), so compile.c has
 * d_check_height() walk each finished tree with the same limit before
 * the recursive checker and evaluator see it.
 *
 * Inside a predicate, '/' ends the predicate when the clause body, a
 * newline or the end of input follows (binprec()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

struct node *d_mknode(struct parser *ps, int op, const struct tok *at)
{
	struct node *n = d_ar_alloc(&ps->prog->pool, sizeof(*n));

	n->op = op;
	n->line = at->line;
	n->col = at->col;
	return n;
}

/*
 * Enter one level of expression nesting at token t; the matching
 * `ps->depth--` is at each return of the parse_* function that entered.
 */
static void nest(struct parser *ps, const struct tok *t)
{
	if (++ps->depth > D_MAXDEPTH)
		d_perrt(ps, D_NEST_DEPTH, t->line, t->col,
		       "expression nested too deeply (more than %d levels)",
		       D_MAXDEPTH);
}

/*
 * A tree the parser built iteratively (a long chain a + b + c + ...
 * leans left without any recursion) can still be too deep for the
 * recursive checker and evaluator: walk it, at most D_MAXDEPTH deep.
 */
void d_check_height(struct parser *ps, const struct node *n, unsigned d)
{
	if (!n)
		return;
	if (d > D_MAXDEPTH)
		d_perrt(ps, D_NEST_DEPTH, n->line, n->col,
		       "expression nested too deeply (more than %d levels)",
		       D_MAXDEPTH);
	d_check_height(ps, n->a, d + 1);
	d_check_height(ps, n->b, d + 1);
	d_check_height(ps, n->c, d + 1);
	for (unsigned i = 0; i < n->nargs; i++)
		d_check_height(ps, n->args[i], d + 1);
}


struct node **d_parse_args(struct parser *ps, unsigned *nargs, int close)
{
	struct node **v = NULL;
	unsigned n = 0;

	if (!d_is_op(ps, close)) {
		for (;;) {
			v = d_pool_grow(ps, v, n, sizeof(*v));
			v[n++] = d_parse_assign(ps);
			if (!d_is_op(ps, ','))
				break;
			d_lex(ps);
		}
	}
	d_expect(ps, close);
	*nargs = n;
	return v;
}

static const char *const action_names[] = {
	"printf", "trace",     "exit",	 "printa", "clear",
	"trunc",  "normalize", "denormalize", "setopt", "speculate",
	"commit", "discard",   "system",      "stop",	"raise",
	"tracemem", NULL,
};

/*
 * DTrace's functions and actions this D does not have, with the reason,
 * so a script that calls one is told why rather than that the name is
 * unknown (D_FUNC_UNDEF stays for names DTrace does not define either).
 */
static const struct {
	const char *name, *why;
} unsupp_funcs[] = {
	{"stack", "kernel stacks are not recorded (ustack( ) is the user "
		  "stack)"},
	{"func", "it names a kernel address (ufunc( ) names a user one)"},
	{"sym", "it names a kernel address (usym( ) names a user one)"},
	{"mod", "it names a kernel address (umod( ) names a user one)"},
	{"getmajor", "it reads a Solaris kernel dev_t"},
	{"getminor", "it reads a Solaris kernel dev_t"},
	{"ddi_pathname", "it reads a Solaris kernel device node"},
	{"msgsize", "it reads a Solaris kernel STREAMS message"},
	{"msgdsize", "it reads a Solaris kernel STREAMS message"},
	{"mutex_owned", "it reads a Solaris kernel lock"},
	{"mutex_owner", "it reads a Solaris kernel lock"},
	{"mutex_type_adaptive", "it reads a Solaris kernel lock"},
	{"mutex_type_spin", "it reads a Solaris kernel lock"},
	{"rw_read_held", "it reads a Solaris kernel lock"},
	{"rw_write_held", "it reads a Solaris kernel lock"},
	{"rw_iswriter", "it reads a Solaris kernel lock"},
	{"breakpoint", "it stops the kernel in its debugger"},
	{"panic", "it panics the kernel"},
	{"chill", "it spins in the kernel at the probe"},
};

bool d_is_action_name(const char *s)
{
	unsigned i;

	for (i = 0; action_names[i]; i++)
		if (strcmp(action_names[i], s) == 0)
			return true;
	return false;
}

/*
 * (name) operand, name no type nor variable: a cast to a type this D
 * does not know (a Solaris kernel type such as kthread_t, a traced
 * program's without debug information), which C's grammar reads as a
 * syntax error at the operand.  Said so, at that operand as DTrace has it, rather than
 * a bare "syntax error near" the operand.  ps->tk is the token after
 * the '('; the caller restores the position when this returns.
 */
static void unknown_cast(struct parser *ps)
{
	struct tok name = ps->tk, op;
	struct d_prog *p = ps->prog;

	if (name.t != TK_ID || d_var_find(p, SC_GLOBAL, name.s) >= 0 ||
	    d_var_find(p, SC_ASSOC, name.s) >= 0)
		return;
	d_lex(ps);
	if (!d_is_op(ps, ')'))
		return;
	d_lex(ps);
	op = ps->tk;
	if (op.t != TK_ID && op.t != TK_INT && op.t != TK_STR)
		return;
	/* the type lookup said why it found no such type (decl.c: a
	 * traced program without debug information): that says more */
	if (ps->td_note && ps->td_miss.s && strcmp(ps->td_miss.s, name.s) == 0)
		d_perrt(ps, D_SYNTAX, ps->td_miss.line, ps->td_miss.col,
			"syntax error near \"%.*s\": no type named %s was "
			"found: %s",
			(int)(op.end - op.start), op.start, name.s,
			ps->td_note);
	d_perrt(ps, D_SYNTAX, op.line, op.col,
		"syntax error near \"%.*s\": %s is not a type name, so "
		"(%s) is no cast (D's types, the script's typedefs and the "
		"traced program's are known; Solaris kernel types such as "
		"kthread_t are not)",
		(int)(op.end - op.start), op.start, name.s, name.s);
}

static struct node *parse_primary(struct parser *ps)
{
	struct tok t = ps->tk;
	struct node *n;
	unsigned i;

	switch (t.t) {
	case TK_INT:
		n = d_mknode(ps, N_INT, &t);
		n->ival = t.i;
		n->sz = t.sz;
		n->sg = t.sg;
		d_lex(ps);
		return n;
	case TK_STR:
		n = d_mknode(ps, N_STR, &t);
		n->sval = t.s;
		d_lex(ps);
		return n;
	case TK_OP:
		if (t.op == '(') {
			d_lex(ps);
			n = d_parse_expr(ps);
			d_expect(ps, ')');
			return n;
		}
		d_syntax_error(ps);
	case TK_ID: {
		char *obj, *name;
		int64_t v;

		/* OBJ`NAME: an enumerator of that traced object's (decl.c) */
		if (!d_scoped_name(ps, &obj, &name)) {
			/* the script's typedef names a type, never a value,
			 * as in C */
			if (d_typedef_find(ps->prog, t.s))
				d_perrt(ps, D_SYNTAX, t.line, t.col,
					"%s is a typedef name, not a value",
					t.s);
			break;
		}
		if (!d_enumerator(ps, obj, name, &t, &v))
			d_perrt(ps, D_TYPE_ERR, t.line, t.col,
				"%s`%s: no enumerator of that name in that "
				"object's debug information", obj, name);
		d_lex(ps);
		n = d_mknode(ps, N_INT, &t);
		n->ival = v;
		n->sz = v >= INT32_MIN && v <= INT32_MAX ? 4 : 8;
		n->sg = 1;
		return n;
	}
	default:
		d_syntax_error(ps);
	}
	d_lex(ps);
	if ((n = d_inline_use(ps, &t)) != NULL)
		return n;
	if (strcmp(t.s, "self") == 0 || strcmp(t.s, "this") == 0) {
		int scope = t.s[0] == 's' ? SC_SELF : SC_THIS;

		if (!d_is_op(ps, OP_ARROW))
			d_syntax_error(ps);
		d_lex(ps);
		if (ps->tk.t != TK_ID)
			d_syntax_error(ps);
		{
			struct tok nt = ps->tk;

			d_lex(ps);
			/* self->s[i], this->s[i] of a variable used before
			 * as a scalar: indexed (s a string: parse_postfix),
			 * as D resolves a name by its first use */
			if (d_is_op(ps, '[') &&
			    (scope == SC_THIS ||
			     d_var_find(ps->prog, SC_SELFASSOC, nt.s) < 0) &&
			    d_var_find(ps->prog, scope, nt.s) >= 0) {
				n = d_mknode(ps, N_VAR, &t);
				n->sub = d_var_find(ps->prog, scope, nt.s);
				return n;
			}
			if (d_is_op(ps, '[')) {
				/* self->a[k]: a thread-local associative
				 * array (this-> has none, as in D) */
				if (scope == SC_THIS)
					d_perrt(ps, D_DECL_LOCASSC, nt.line,
						nt.col,
						"this-> variables cannot be "
						"associative arrays");
				d_lex(ps);
				n = d_mknode(ps, N_ASSOC, &t);
				n->sub = (int)d_var_lookup(ps->prog,
							   SC_SELFASSOC, nt.s);
				n->args = d_parse_args(ps, &n->nargs, ']');
				if (!n->nargs)
					d_syntax_error(ps);
				return n;
			}
			n = d_mknode(ps, N_VAR, &t);
			n->sub = (int)d_var_lookup(ps->prog, scope, nt.s);
			return n;
		}
	}
	if (strncmp(t.s, "arg", 3) == 0 && isdigit((unsigned char)t.s[3])) {
		char *end;
		unsigned long k = strtoul(t.s + 3, &end, 10);

		if (!*end && k < D_MAXARGS && (t.s[3] != '0' || !t.s[4])) {
			n = d_mknode(ps, N_ARGN, &t);
			n->sub = (int)k;
			return n;
		}
	}
	if (strcmp(t.s, "args") == 0) {
		d_expect(ps, '[');
		n = d_mknode(ps, N_ARGS, &t);
		n->a = d_parse_expr(ps);
		d_expect(ps, ']');
		return n;
	}
	if (strcmp(t.s, "NULL") == 0) { /* a null pointer */
		n = d_mknode(ps, N_INT, &t);
		n->sz = 8;
		return n;
	}
	{
		int64_t cv; /* SIGUSR1, EPERM, DTRACEFLT_BADADDR (func.c) */

		/* DTrace's that this tracer cannot give: refused, not 0 */
		if (strcmp(t.s, "stackdepth") == 0)
			d_perrt(ps, D_IDENT_UNSUPP, t.line, t.col,
				"stackdepth is not supported: DTrace's is "
				"the depth of the kernel stack the probe "
				"fired on (at a user probe, the trap's), "
				"which a hit does not record here; "
				"ustackdepth is the user stack's");
		if (strcmp(t.s, "curpsinfo") == 0) /* its fields (func.c) */
			return d_psinfo_member(ps, &t);
		if (strcmp(t.s, "uregs") == 0) { /* uregs[R_PC] (stack.c) */
			d_expect(ps, '[');
			n = d_mknode(ps, N_UREGS, &t);
			n->a = d_parse_expr(ps);
			d_expect(ps, ']');
			return n;
		}
		if (d_const_lookup(t.s, &cv)) {
			n = d_mknode(ps, N_INT, &t);
			n->ival = cv;
			n->sz = 4;
			n->sg = 1;
			return n;
		}
	}
	for (i = 0; i < d_nbuiltins; i++)
		if (strcmp(d_builtins[i].name, t.s) == 0) {
			n = d_mknode(ps, N_BUILTIN, &t);
			n->sub = (int)i;
			return n;
		}
	for (i = 0; i < d_nfuncs; i++)
		if (strcmp(d_funcs[i].name, t.s) == 0) {
			if (!d_is_op(ps, '('))
				d_syntax_error(ps);
			d_lex(ps);
			n = d_mknode(ps, N_FUNC, &t);
			n->sub = (int)i;
			n->args = d_parse_args(ps, &n->nargs, ')');
			if (n->nargs < d_funcs[i].minargs ||
			    n->nargs > d_funcs[i].maxargs)
				d_perrt(ps, D_PROTO_LEN, t.line, t.col,
				       "%s( ) prototype mismatch: %u args "
				       "passed, %u expected",
				       t.s, n->nargs, d_funcs[i].minargs);
			return n;
		}
	if (d_is_action_name(t.s))
		d_perrt(ps, D_CG_EXPR, t.line, t.col,
		       "%s( ) may not be used in an expression", t.s);
	for (i = 0; d_is_op(ps, '(') &&
		    i < sizeof(unsupp_funcs) / sizeof(unsupp_funcs[0]);
	     i++)
		if (strcmp(unsupp_funcs[i].name, t.s) == 0)
			d_perrt(ps, D_IDENT_UNSUPP, t.line, t.col,
				"%s( ) is not supported: %s", t.s,
				unsupp_funcs[i].why);
	if (d_is_op(ps, '('))
		d_perrt(ps, D_FUNC_UNDEF, t.line, t.col, "failed to resolve %s: "
					"Unknown function name", t.s);
	if (d_is_op(ps, '[') && (d_var_find(ps->prog, SC_ASSOC, t.s) >= 0 ||
				 d_var_find(ps->prog, SC_GLOBAL, t.s) < 0)) {
		d_lex(ps);
		n = d_mknode(ps, N_ASSOC, &t);
		n->sub = (int)d_var_lookup(ps->prog, SC_ASSOC, t.s);
		n->args = d_parse_args(ps, &n->nargs, ']');
		if (!n->nargs)
			d_syntax_error(ps);
		return n;
	}
	n = d_mknode(ps, N_VAR, &t);
	n->sub = (int)d_var_lookup(ps->prog, SC_GLOBAL, t.s);
	return n;
}

static struct node *parse_postfix(struct parser *ps)
{
	struct node *n = parse_primary(ps);
	unsigned chain = 0;

	/* e.m, e->m (mem.c): resolved by the checker, which knows the
	 * types of variables */
	while (d_is_op(ps, '.') || d_is_op(ps, OP_ARROW) || d_is_op(ps, '[')) {
		struct node *m = d_mknode(ps, N_MEMBER, &ps->tk);

		if (++chain + ps->depth > D_MAXDEPTH)
			d_perrt(ps, D_NEST_DEPTH, ps->tk.line, ps->tk.col,
				"expression nested too deeply (more than %d "
				"levels)", D_MAXDEPTH);
		if (d_is_op(ps, '[') && n->op == N_VAR &&
		    ps->prog->vars[n->sub].sou &&
		    ps->prog->sous[ps->prog->vars[n->sub].sou - 1].isarray) {
			/* a[i] of a fixed-size array variable (declare.c):
			 * the element of its struct's one member, i checked
			 * against its size (mem.c) */
			const struct d_sou *s =
				&ps->prog->sous[ps->prog->vars[n->sub].sou - 1];

			m->sub = '.';
			m->a = n;
			m->sval = s->m[0].name;
			n = m;
			m = d_mknode(ps, N_DEREF, &ps->tk);
			m->nelem = s->m[0].nelem;
		}
		if (d_is_op(ps, '[')) { /* a[i]: *(a + i), as in C */
			d_lex(ps);
			m->op = N_DEREF;
			m->a = n;
			m->b = d_parse_expr(ps);
			d_expect(ps, ']');
			n = m;
			continue;
		}
		m->sub = ps->tk.op;
		m->a = n;
		d_lex(ps);
		if (ps->tk.t != TK_ID)
			d_syntax_error(ps);
		m->sval = ps->tk.s;
		d_lex(ps);
		n = m;
	}
	while (d_is_op(ps, OP_INC) || d_is_op(ps, OP_DEC)) {
		struct node *m = d_mknode(ps, N_INCDEC, &ps->tk);

		m->sub = ps->tk.op;
		m->ival = 1;
		m->a = n;
		d_lex(ps);
		n = m;
	}
	return n;
}

static struct node *parse_unary1(struct parser *ps);

static struct node *parse_unary(struct parser *ps)
{
	struct node *n;

	nest(ps, &ps->tk);
	n = parse_unary1(ps);
	ps->depth--;
	return n;
}

/*
 * sizeof (type) or sizeof expr: a size_t constant.  An expression's size
 * is its type's, which must be known here (a constant, a cast, argN, a
 * built-in or a declared variable); a string's is refused (D_SIZEOF_TYPE).
 */
static struct node *parse_sizeof(struct parser *ps, const struct tok *t)
{
	struct node *n, *e;
	uint8_t sz = 0, sg, ptr, psg;
	size_t size = 0;
	uint16_t sou;

	if (d_is_op(ps, '(')) {
		struct lexpos save = ps->pos;
		struct tok savet = ps->tk;

		d_lex(ps);
		if (d_starts_type(ps) ||
		    (ps->tk.t == TK_ID && strcmp(ps->tk.s, "void") == 0)) {
			struct tok tt = ps->tk;

			d_parse_type(ps, &sz, &sg, &ptr, &psg, &sou, NULL);
			if (sou && !ptr)
				size = d_sou_size(ps, sou, D_SIZEOF_TYPE, &tt);
			else
				size = sz;
			d_expect(ps, ')');
		} else {
			ps->pos = save;
			ps->tk = savet;
		}
	}
	if (!size) {
		e = parse_unary(ps);
		if (e->op == N_INT || e->op == N_CAST)
			sz = e->sz;
		else if (e->op == N_ARGN)
			sz = 8;
		else if (e->op == N_BUILTIN && !d_builtins[e->sub].str)
			sz = d_builtins[e->sub].sz;
		else if (e->op == N_VAR && ps->prog->vars[e->sub].declared &&
			 ps->prog->vars[e->sub].sou) /* a struct's bytes */
			size = d_sou_size(ps, ps->prog->vars[e->sub].sou,
					  D_SIZEOF_TYPE, t);
		else if (e->op == N_VAR && ps->prog->vars[e->sub].declared &&
			 ps->prog->vars[e->sub].kind == T_INT)
			sz = ps->prog->vars[e->sub].sz;
		if (!sz && !size)
			d_perrt(ps, D_SIZEOF_TYPE, t->line, t->col,
				"sizeof: the type of this operand is not "
				"known to the compiler (a string, or a variable "
				"without a declaration): give sizeof a type");
		if (!size)
			size = sz;
	}
	n = d_mknode(ps, N_INT, t);
	n->ival = (int64_t)size;
	n->sz = 8;
	n->sg = 0;
	return n;
}

/* offsetof (struct NAME, member): a size_t constant. */
static struct node *parse_offsetof(struct parser *ps, const struct tok *t)
{
	struct node *n;
	const struct d_member *m;
	struct tok tt, mt;
	uint8_t sz, sg, ptr, psg;
	uint16_t sou;

	d_expect(ps, '(');
	tt = ps->tk;
	if (!d_starts_type(ps))
		d_syntax_error(ps);
	d_parse_type(ps, &sz, &sg, &ptr, &psg, &sou, NULL);
	if (!sou || ptr)
		d_perrt(ps, D_OFFSETOF_TYPE, tt.line, tt.col,
			"offsetof( ) operand must be a struct or union type");
	d_expect(ps, ',');
	mt = ps->tk;
	if (mt.t != TK_ID)
		d_syntax_error(ps);
	d_lex(ps);
	d_expect(ps, ')');
	m = d_sou_member(ps, sou, mt.s, &mt);
	if (m->bits)
		d_perrt(ps, D_OFFSETOF_BITFIELD, mt.line, mt.col,
			"offsetof( ) cannot be applied to bit-field %s",
			mt.s);
	n = d_mknode(ps, N_INT, t);
	n->ival = (int64_t)m->off;
	n->sz = 8;
	n->sg = 0;
	return n;
}

/*
 * (string) e and stringof e: the Guide's Strings chapter has them equal
 * in meaning, stringof binding as tightly as a cast, its parentheses
 * optional; both are the stringof() of the function table (func.c).
 */
static struct node *stringof_of(struct parser *ps, const struct tok *t,
				struct node *a)
{
	struct node *n = d_mknode(ps, N_FUNC, t);

	for (unsigned i = 0; i < d_nfuncs; i++)
		if (d_funcs[i].id == F_STRINGOF)
			n->sub = (int)i;
	n->args = d_pool_grow(ps, NULL, 0, sizeof(*n->args));
	n->args[0] = a;
	n->nargs = 1;
	return n;
}

static struct node *parse_unary1(struct parser *ps)
{
	struct tok t = ps->tk;
	struct node *n;

	if (t.t == TK_ID && strcmp(t.s, "sizeof") == 0) {
		d_lex(ps);
		return parse_sizeof(ps, &t);
	}
	if (t.t == TK_ID && strcmp(t.s, "offsetof") == 0) {
		d_lex(ps);
		return parse_offsetof(ps, &t);
	}
	if (t.t == TK_ID && strcmp(t.s, "stringof") == 0) {
		struct lexpos save = ps->pos;

		d_lex(ps);
		if (!d_is_op(ps, '(')) /* stringof e */
			return stringof_of(ps, &t, parse_unary(ps));
		ps->pos = save; /* stringof(e): the function's call */
		ps->tk = t;
	}
	if (t.t == TK_OP) {
		switch (t.op) {
		case '!':
		case '~':
		case '-':
		case '+':
			d_lex(ps);
			n = d_mknode(ps, N_UN, &t);
			n->sub = t.op;
			n->a = parse_unary(ps);
			return n;
		case '*': /* mem.c: a pointer into copyin()'s scratch */
			d_lex(ps);
			n = d_mknode(ps, N_DEREF, &t);
			n->a = parse_unary(ps);
			return n;
		case '&': /* the address of an element or member of
			   * memory (mem.c's d_addrof_check()); D's own
			   * variables have none */
			d_lex(ps);
			n = d_mknode(ps, N_UN, &t);
			n->sub = '&';
			n->a = parse_unary(ps);
			if (n->a->op == N_VAR || n->a->op == N_ASSOC ||
			    n->a->op == N_BUILTIN || n->a->op == N_ARGN ||
			    n->a->op == N_ARGS)
				d_perrt(ps, D_ADDROF_VAR, t.line, t.col,
					"cannot take the address of a D "
					"variable: its storage is DTrace's, not "
					"the traced process's");
			return n;
		case OP_INC:
		case OP_DEC:
			d_lex(ps);
			n = d_mknode(ps, N_INCDEC, &t);
			n->sub = t.op;
			n->a = parse_unary(ps);
			return n;
		case '(': {
			struct lexpos save = ps->pos;
			struct tok savet = ps->tk;

			d_lex(ps);
			if (ps->tk.t == TK_ID &&
			    strcmp(ps->tk.s, "string") == 0) {
				d_lex(ps);
				if (d_is_op(ps, ')')) { /* (string) e */
					d_lex(ps);
					return stringof_of(ps, &t,
							   parse_unary(ps));
				}
				ps->pos = save;
				ps->tk = savet;
				d_lex(ps);
			}
			if (d_starts_type(ps) ||
			    (ps->tk.t == TK_ID &&
			     strcmp(ps->tk.s, "void") == 0)) {
				struct tok tt = ps->tk;

				n = d_mknode(ps, N_CAST, &t);
				d_parse_type(ps, &n->sz, &n->sg, &n->ptr,
					     &n->psg, &n->psou, &n->pc);
				if (n->psou && !n->ptr)
					d_perrt(ps, D_CAST_INVAL, tt.line,
						tt.col,
						"cannot cast to a struct or "
						"union: cast to a pointer to "
						"one");
				d_expect(ps, ')');
				n->a = parse_unary(ps);
				return n;
			}
			unknown_cast(ps);
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
		d_lex(ps);
		switch (t.op) {
		case OP_LAND:
			n = d_mknode(ps, N_LAND, &t);
			break;
		case OP_LOR:
			n = d_mknode(ps, N_LOR, &t);
			break;
		case OP_LXOR:
			n = d_mknode(ps, N_LXOR, &t);
			break;
		default:
			n = d_mknode(ps, N_BIN, &t);
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

	if (!d_is_op(ps, '?'))
		return c;
	nest(ps, &t);
	d_lex(ps);
	n = d_mknode(ps, N_TERN, &t);
	n->a = c;
	ps->in_pred = false;
	n->b = d_parse_assign(ps);
	ps->in_pred = pred;
	d_expect(ps, ':');
	n->c = parse_cond(ps);
	ps->depth--;
	return n;
}

static bool is_assign_op(int op)
{
	return op == '=' || (op >= OP_ADDEQ && op <= OP_SHREQ);
}

struct node *d_parse_assign(struct parser *ps)
{
	struct node *l = parse_cond(ps), *n;
	struct tok t = ps->tk;

	if (t.t != TK_OP || !is_assign_op(t.op))
		return l;
	/* *p =, p[i] =, p->m = and s.m = store into scratch or a struct
	 * variable (mem.c); x[k] = of a scalar x (parse_primary) is refused
	 * by the checker, which knows what x holds */
	if (l->op != N_VAR && l->op != N_ASSOC && l->op != N_DEREF &&
	    l->op != N_MEMBER)
		d_perrt(ps, D_OP_WRITE, t.line, t.col,
		       "operator %s can only be applied to a writable variable",
		       t.op == '=' ? "=" : "op=");
	nest(ps, &t);
	d_lex(ps);
	n = d_mknode(ps, N_ASSIGN, &t);
	n->sub = t.op;
	n->a = l;
	n->b = d_parse_assign(ps);
	ps->depth--;
	return n;
}

struct node *d_parse_expr(struct parser *ps)
{
	struct node *n = d_parse_assign(ps);

	/* the comma operator is not D's: ',' separates arguments */
	return n;
}
