// SPDX-License-Identifier: MIT
/*
 * declare.c - the declarations a D script may make outside its clauses
 * (dtrace-G/d/): variables, inline names, enums, structs and unions.
 * decl.c has the types they name and the variables they make.
 *
 * Variables need no declaration in D: one gets its kind (integer or
 * string) from its first assignment anywhere in the program (check.c).
 * A declaration fixes it beforehand, with D's scopes:
 *
 *	int x;			a global scalar
 *	self uint64_t ts;	a thread-local (self->ts)
 *	this string s;		a clause-local (this->s)
 *	string name[int, string];	a global associative array and
 *				its key signature
 *	self int depth[int];	a thread-local one (self->depth[k])
 *
 * several declarators may share a type (int a, b; int *p, *q; each
 * declarator's '*'s its own as in C, so another count than the first's
 * is refused).  The types are the
 * integer type names of casts (char ... uint64_t, unsigned long long,
 * pointers, which hold addresses as 64-bit unsigned integers: one
 * declared so is a pointer, its arithmetic scaled as mem.c has it) and
 * string.  A declared integer variable keeps its size and sign: a value
 * stored into it is converted as C converts on assignment (decl.c's
 * d_var_conv()), and its zero has its type (d_var_zero()), so trace()
 * and printf() print it as declared.
 *
 * Errors, each at the line and column of the offending name: a name
 * declared twice with different types, or as a scalar and an array;
 * a built-in variable, function or action name declared as a global;
 * this-> associative arrays, which D does not have.  C's fixed-size
 * arrays (int a[4]; self uint8_t b[16];) are variables holding their
 * elements by value (fixed_array()).  check.c reports what does not match a
 * declaration at the use: a value of the other kind assigned, an
 * array indexed with another number or kind of keys, an array used as
 * a scalar or the reverse.  A declaration that repeats an earlier one
 * exactly is accepted, as C accepts it.
 *
 * struct TAG { members }; and union TAG { members }; declare C
 * aggregates the script reads through pointers into copyin()'s copies
 * (mem.c): parse_sou() lays them out as the x86-64 SysV ABI does;
 * struct TAG; declares an incomplete one (decl.c's d_sou_find()), usable
 * once its members are declared; bitfield() places bit-fields.
 * A variable of one (struct TAG x;, self struct TAG x;, this struct TAG
 * x;, struct TAG a[string];) holds a struct by value (its struct var's
 * sou; mem.c); a pointer to one, declared, and a struct key are
 * refused.  enum TAG { ... }; declares
 * constants (parse_enum()) and a tag that stands wherever an integer
 * type does, as an int.  inline TYPE NAME = expr; names an expression
 * (parse_inline(), d_inline_use()).  typedef TYPE NAME; names a type
 * (parse_typedef()), for declarations, members, keys, casts and sizeof;
 * typedef TYPE A, *B; several, each declarator with its own '*'s on the
 * one base type (stars_before() counts the first's in the text, since
 * d_parse_type() reads them with the base).
 *
 * At the top level a declaration is told from a probe description by
 * its first word (self, this, string, void, struct, union, typedef, an
 * integer type name or one of the script's typedefs):
 * probe descriptions never start with one and never hold a blank.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* ------------------------------------------------------------------ */
/* Declarations */

struct dtype {
	int kind; /* T_INT, T_STR */
	uint8_t sz, sg;
	uint16_t sou; /* a struct or union itself: which (mem.c) */
	uint8_t ptr, psg; /* a pointer's target, as struct var's (mem.c) */
	struct d_pchain pc;
	int stars;	  /* the '*'s it ends with: the first declarator's */
	char text[64]; /* as written, blanks collapsed */
};

bool d_starts_decl(struct parser *ps)
{
	const char *p = ps->pos.p, *q = p;
	uint8_t sz, sg;
	char w[32];

	while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
	       (*q >= '0' && *q <= '9') || *q == '_')
		q++;
	if (q == p || (size_t)(q - p) >= sizeof(w))
		return false;
	memcpy(w, p, (size_t)(q - p));
	w[q - p] = '\0';
	/* a word followed by a blank, '*' or ';': descriptions have none */
	if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r' && *q != '*')
		return false;
	return strcmp(w, "self") == 0 || strcmp(w, "this") == 0 ||
	       strcmp(w, "inline") == 0 || strcmp(w, "enum") == 0 ||
	       strcmp(w, "extern") == 0 ||
	       strcmp(w, "typedef") == 0 || d_typedef_find(ps->prog, w) ||
	       strcmp(w, "struct") == 0 || strcmp(w, "union") == 0 ||
	       strcmp(w, "string") == 0 || strcmp(w, "void") == 0 ||
	       strcmp(w, "const") == 0 || strcmp(w, "unsigned") == 0 ||
	       strcmp(w, "signed") == 0 || d_cast_type(w, &sz, &sg);
}

/* A type at the current token, or a syntax error. */
static void parse_dtype(struct parser *ps, struct dtype *t)
{
	const char *b = ps->tk.start, *e;
	size_t n = 0;
	struct tok at = ps->tk;
	uint8_t ptr = 0, psg = 0;

	t->sou = 0;
	memset(&t->pc, 0, sizeof(t->pc));
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "string") == 0) {
		t->kind = T_STR;
		t->sz = 8;
		t->sg = 0;
		d_lex(ps);
	} else if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "void") == 0) {
		struct tok v = ps->tk;

		d_lex(ps);
		if (!d_is_op(ps, '*'))
			d_perrt(ps, D_DECL_VOIDOBJ, v.line, v.col,
			       "a variable cannot be of type void");
		ptr = D_PTR_VOID;
		while (d_is_op(ps, '*')) {
			d_lex(ps);
			if (d_is_op(ps, '*')) {
				ptr = 8; /* void **: a pointer's size */
				t->pc.n++;
				t->pc.base = D_PTR_VOID;
			}
		}
		t->kind = T_INT;
		t->sz = 8;
		t->sg = 0;
	} else if (d_starts_type(ps)) {
		t->kind = T_INT;
		d_parse_type(ps, &t->sz, &t->sg, &ptr, &psg, &t->sou, &t->pc);
		if (ptr == D_PTR_SOU)
			d_perrt(ps, D_IDENT_UNSUPP, at.line, at.col,
				"declared pointers to a struct or union are "
				"not supported: assign the cast pointer, "
				"undeclared (this->p = (struct NAME *)"
				"copyin(arg0, size))");
		if (ptr)
			t->sou = 0;
		if (t->sou) { /* held by value: its bytes (mem.c) */
			d_sou_size(ps, t->sou, D_DECL_INCOMPLETE, &at);
			t->sz = 8;
			t->sg = 0;
		}
	} else {
		d_syntax_error(ps);
	}
	/* int *x: arithmetic on x scales by what it points to, as on a
	 * variable first assigned a cast pointer (check.c) */
	t->ptr = ptr;
	t->psg = psg;
	/* the text from the first token to the last, blanks collapsed */
	e = ps->tk.start;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		e--;
	for (const char *c = b; c < e && n < sizeof(t->text) - 1; c++) {
		bool blank = *c == ' ' || *c == '\t' || *c == '\n' ||
			     *c == '\r';

		if (blank && n && t->text[n - 1] == ' ')
			continue;
		t->text[n++] = blank ? ' ' : *c;
	}
	t->text[n] = '\0';
	t->stars = 0;
	while (n && (t->text[n - 1] == '*' || t->text[n - 1] == ' ')) {
		if (t->text[n - 1] == '*')
			t->stars++;
		n--;
	}
}

/* A global may not take a name the parser resolves otherwise. */
static void check_global_name(struct parser *ps, const struct tok *nt)
{
	const char *what = NULL, *s = nt->s;

	for (unsigned i = 0; i < d_nbuiltins && !what; i++)
		if (strcmp(d_builtins[i].name, s) == 0)
			what = "a built-in variable";
	for (unsigned i = 0; i < d_nfuncs && !what; i++)
		if (strcmp(d_funcs[i].name, s) == 0)
			what = "a function";
	if (!what && d_is_action_name(s))
		what = "an action";
	if (!what && d_typedef_find(ps->prog, s))
		what = "a typedef name";
	if (!what && (strcmp(s, "args") == 0 ||
		      (strncmp(s, "arg", 3) == 0 && s[3] >= '0' &&
		       s[3] <= '9')))
		what = "a built-in variable";
	if (!what && (strcmp(s, "self") == 0 || strcmp(s, "this") == 0 ||
		      strcmp(s, "if") == 0 || strcmp(s, "else") == 0 ||
		      strcmp(s, "string") == 0 || strcmp(s, "NULL") == 0))
		what = "a reserved word";
	if (what)
		d_perrt(ps, D_DECL_IDRED, nt->line, nt->col, "cannot declare %s: it is %s", s,
		       what);
}

static bool same_keys(const struct var *v, const uint8_t *kk, int nk)
{
	if (v->nkeys != nk || !v->keykinds)
		return false;
	return memcmp(v->keykinds, kk, (size_t)nk) == 0;
}

static void declare(struct parser *ps, int scope, const struct tok *nt,
		    const struct dtype *t, const uint8_t *kk, int nk)
{
	struct d_prog *p = ps->prog;
	int other = -1, i;
	struct var *v;
	char disp[160];

	if (scope == SC_GLOBAL || scope == SC_ASSOC)
		check_global_name(ps, nt);
	/* a scalar and an array of one name: the other kind of the same
	 * storage, global or thread-local */
	if (scope == SC_GLOBAL || scope == SC_ASSOC || scope == SC_SELF ||
	    scope == SC_SELFASSOC) {
		other = d_var_find(p,
				   scope == SC_GLOBAL  ? SC_ASSOC
				   : scope == SC_ASSOC ? SC_GLOBAL
				   : scope == SC_SELF  ? SC_SELFASSOC
						       : SC_SELF,
				   nt->s);
		if (other >= 0 && p->vars[other].declared) {
			v = &p->vars[other];
			d_perrt(ps, D_DECL_IDRED, nt->line, nt->col,
				"identifier redeclared: %s, declared %s at "
				"line %d, column %d",
				nt->s,
				v->scope == SC_ASSOC || v->scope == SC_SELFASSOC
					? "an associative array"
					: "a scalar",
				v->line, v->col);
		}
	}
	i = d_var_find(p, scope, nt->s);
	if (i >= 0 && p->vars[i].declared) {
		v = &p->vars[i];
		if (v->kind != t->kind || v->sz != t->sz || v->sg != t->sg ||
		    v->sou != t->sou || v->ptr != t->ptr || v->psg != t->psg ||
		    !d_pchain_eq(&v->pc, &t->pc) ||
		    ((scope == SC_ASSOC || scope == SC_SELFASSOC) &&
		     !same_keys(v, kk, nk)))
			d_perrt(ps, D_DECL_IDRED, nt->line, nt->col,
			       "identifier redeclared: %s, declared %s at "
			       "line %d, column %d",
			       d_var_display(v, disp, sizeof(disp)), v->tname,
			       v->line, v->col);
		return; /* the same declaration again */
	}
	i = (int)d_var_lookup(p, scope, nt->s); /* may move p->vars */
	v = &p->vars[i];
	v->declared = true;
	v->assigned = true;
	v->kind = t->kind;
	v->sz = t->sz;
	v->sg = t->sg;
	v->sou = t->sou;
	v->ptr = t->ptr;
	v->psg = t->psg;
	v->pc = t->pc;
	v->tname = xstrdup(t->text);
	v->line = nt->line;
	v->col = nt->col;
	if (scope == SC_ASSOC || scope == SC_SELFASSOC) {
		v->nkeys = nk;
		v->keykinds = xmalloc((size_t)nk);
		memcpy(v->keykinds, kk, (size_t)nk);
		v->kline = nt->line;
		v->kcol = nt->col;
	}
}

/*
 * One declaration, at the top level (d_starts_decl() said so): its
 * tokens up to the ';', which stays current, so the caller resumes
 * after it.
 */
/*
 * inline TYPE NAME = expr; (after "inline"): a name for an expression,
 * which every later use of NAME stands for (d_inline_use()), converted
 * to TYPE as a cast converts: DTrace's inline constants and expressions.
 */
static void parse_inline(struct parser *ps)
{
	struct d_prog *p = ps->prog;
	struct dtype t;
	struct tok nt;
	struct node *e;
	int k;

	parse_dtype(ps, &t);
	nt = ps->tk;
	if (nt.t != TK_ID)
		d_syntax_error(ps);
	for (unsigned i = 0; i < p->ninlines; i++)
		if (strcmp(p->inlines[i].name, nt.s) == 0)
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"identifier redeclared: inline %s", nt.s);
	d_lex(ps);
	d_expect(ps, '=');
	e = d_parse_expr(ps);
	k = d_check(ps, e, true);
	if (k != T_ANY && k != t.kind)
		d_perrt(ps, D_OP_INCOMPAT, nt.line, nt.col,
			"inline %s definition uses incompatible types: %s "
			"and %s",
			nt.s, t.text, d_kind_name(k));
	if (t.kind == T_INT && !e->ptr) {
		struct node *c = d_mknode(ps, N_CAST, &nt);

		c->a = e;
		c->sz = t.sz;
		c->sg = t.sg;
		c->kind = T_INT;
		e = c;
	}
	p->inlines = xpush_room(p->inlines, p->ninlines, sizeof(*p->inlines));
	p->inlines[p->ninlines].name = d_pool_strndup(ps, nt.s, strlen(nt.s));
	p->inlines[p->ninlines].e = e;
	p->ninlines++;
	if (!d_is_op(ps, ';'))
		d_syntax_error(ps);
	ps->pos.p = ps->tk.end;
	ps->pos.line = ps->tk.line;
	ps->pos.col = ps->tk.col + 1;
}

/*
 * enum [TAG] { NAME [= constant], ... }; its enumerators are int
 * constants (each an inline of its value, so any expression may use
 * them), counting up from 0 or from the last given value.  The TAG is
 * kept (d_script_enum()): a variable, member or cast of enum TAG is an
 * int, as in DTrace, where a script's enums are int-sized.
 */
static void parse_enum(struct parser *ps)
{
	struct d_prog *p = ps->prog;
	int64_t next = 0;

	if (ps->tk.t == TK_ID) { /* the tag: enum TAG is an int */
		struct tok tt = ps->tk;

		if (d_script_enum(ps, tt.s))
			d_perrt(ps, D_DECL_IDRED, tt.line, tt.col,
				"enum %s is declared twice", tt.s);
		p->etags = d_pool_grow(ps, p->etags, p->netags,
				       sizeof(*p->etags));
		p->etags[p->netags++] = tt.s; /* in the pool */
		d_lex(ps);
	}
	d_expect(ps, '{');
	while (!d_is_op(ps, '}')) {
		struct tok nt = ps->tk;
		struct node *c;

		if (nt.t != TK_ID)
			d_syntax_error(ps);
		if (d_inline_use(ps, &nt))
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"identifier redeclared: %s", nt.s);
		d_lex(ps);
		if (d_is_op(ps, '=')) {
			struct node *e;

			d_lex(ps);
			e = d_parse_expr(ps);
			if (!d_const_int(e, &next))
				d_perrt(ps, D_DECL_ENCONST, e->line, e->col,
					"enumerator '%s' must be assigned an "
					"integral constant expression",
					nt.s);
		}
		if (next < INT32_MIN || next > INT32_MAX)
			d_perrt(ps, D_DECL_ENOFLOW, nt.line, nt.col,
				"enumerator '%s' value overflows INT_MAX "
				"(%d)",
				nt.s, INT32_MAX);
		c = d_mknode(ps, N_INT, &nt);
		c->ival = next;
		c->sz = 4;
		c->sg = 1;
		c->kind = T_INT;
		p->inlines = xpush_room(p->inlines, p->ninlines,
					sizeof(*p->inlines));
		p->inlines[p->ninlines].name =
			d_pool_strndup(ps, nt.s, strlen(nt.s));
		p->inlines[p->ninlines].e = c;
		p->ninlines++;
		next++;
		if (!d_is_op(ps, ','))
			break;
		d_lex(ps);
	}
	d_expect(ps, '}');
	if (!d_is_op(ps, ';'))
		d_syntax_error(ps);
	ps->pos.p = ps->tk.end;
	ps->pos.line = ps->tk.line;
	ps->pos.col = ps->tk.col + 1;
}

/*
 * A bit-field, at ':' (name NULL: unnamed), of an integer type of sz
 * bytes: the SysV ABI's placement, gcc's: at the next bit unless that
 * would cross a boundary of its type's size, then at that boundary (a
 * width of 0 only moves to it); a named one aligns the struct as its
 * type, an unnamed one does not.  Read as the sz-byte unit holding it,
 * shifted and masked (mem.c).
 */
/*
 * A size or a width in a declarator (after its '[' or ':'): an integer
 * constant expression, as C and D take them (int a[2 * 4], a member's
 * char name[LEN + 1] under -C, a bit-field's width), parsed up to the
 * token that ends it; its value (d_const_int()) into *v.  False where
 * it is not a constant.
 */
static bool decl_const(struct parser *ps, int64_t *v)
{
	return d_const_int(d_parse_assign(ps), v);
}

/*
 * After an array declarator's '[': does a size follow (a constant
 * expression, or ']' for the error that it is missing), not the key
 * types of an associative array?  A type name starts keys; so does an
 * identifier that names no constant (the error that it is not a type):
 * a constant is the script's enumerator or inline, one of D's own
 * (SIGUSR1, EPERM: d_const_lookup()), or sizeof or offsetof.
 */
static bool size_follows(struct parser *ps)
{
	int64_t v;

	if (ps->tk.t != TK_ID)
		return true;
	if (d_starts_type(ps))
		return false;
	return d_inline_use(ps, &ps->tk) || d_const_lookup(ps->tk.s, &v) ||
	       !strcmp(ps->tk.s, "sizeof") || !strcmp(ps->tk.s, "offsetof");
}

static void bitfield(struct parser *ps, struct d_sou *s, uint64_t *bits,
		     bool isu, const char *name, uint8_t sz, uint8_t sg,
		     bool notint, const struct tok *tt)
{
	struct d_member m = { 0 };
	uint64_t unit = (uint64_t)sz * 8, at;
	struct tok wt;

	if (notint)
		d_perrt(ps, D_DECL_BFTYPE, tt->line, tt->col,
			"a bit-field must be of an integer type");
	d_lex(ps); /* ':' */
	wt = ps->tk;
	if (!decl_const(ps, &wt.i) || wt.i < 0 || (uint64_t)wt.i > unit ||
	    (wt.i == 0 && name))
		d_perrt(ps, D_DECL_BFSIZE, wt.line, wt.col,
			"a bit-field's width must be a constant of 1 to %u "
			"(0 only for an unnamed one)",
			(unsigned)unit);
	at = isu ? 0 : *bits;
	if (wt.i == 0 || at / unit != (at + (uint64_t)wt.i - 1) / unit)
		at = (at + unit - 1) / unit * unit;
	if (at + (uint64_t)wt.i > *bits)
		*bits = at + (uint64_t)wt.i;
	if (!name || wt.i == 0)
		return;
	if (sz > s->align)
		s->align = sz;
	m.name = (char *)name; /* in the pool */
	m.sz = sz;
	m.sg = sg;
	m.off = at / unit * sz;
	m.shift = (uint8_t)(at % unit);
	m.bits = (uint8_t)wt.i;
	m.size = m.align = sz;
	s->m = d_pool_grow(ps, s->m, s->nm, sizeof(*s->m));
	s->m[s->nm++] = m;
}

/*
 * struct NAME { members };, union NAME { members }; or struct NAME; (a
 * forward declaration).  The layout is the x86-64 SysV ABI's, as gcc's
 * for the same C: each member at the next multiple of its alignment (its
 * size for an integer or a pointer, the largest of its members' for a
 * nested struct or union, its element's for an array), a union's all at
 * 0, the whole rounded up to its largest alignment.
 */
static void parse_sou(struct parser *ps)
{
	struct d_prog *p = ps->prog;
	bool isu = ps->tk.s[0] == 'u';
	struct tok nt;
	uint16_t self;
	struct d_sou s = { 0 };
	uint64_t bits = 0; /* where the next member may start, in bits */

	d_lex(ps);
	nt = ps->tk;
	if (nt.t != TK_ID) /* struct ; */
		d_syntax_error(ps);
	self = d_sou_find(ps, nt.s, isu, &nt);
	d_lex(ps);
	if (d_is_op(ps, ';'))
		return;
	d_expect(ps, '{');
	if (p->sous[self - 1].defined)
		d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
			"%s %s is declared twice", isu ? "union" : "struct",
			nt.s);
	s.align = 1;
	while (!d_is_op(ps, '}')) {
		struct tok tt = ps->tk;
		uint8_t sz, sg, ptr, psg;
		struct d_pchain pc;
		uint16_t su;

		if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "void") == 0) {
			const char *q = ps->pos.p;

			while (*q == ' ' || *q == '\t' || *q == '\n' ||
			       *q == '\r')
				q++;
			if (*q != '*') /* void *p only */
				d_perrt(ps, D_DECL_VOIDOBJ, tt.line, tt.col,
					"a member cannot be of type void");
		} else if (!d_starts_type(ps)) {
			d_syntax_error(ps);
		}
		d_parse_type(ps, &sz, &sg, &ptr, &psg, &su, &pc);
		for (;;) {
			struct d_member m = { 0 };
			struct tok mt = ps->tk;
			uint64_t end;

			if (mt.t == TK_OP && mt.op == ':') { /* int : 3; */
				bitfield(ps, &s, &bits, isu, NULL, sz, sg,
					 ptr || su, &tt);
				goto next;
			}
			if (mt.t != TK_ID)
				d_syntax_error(ps);
			for (unsigned i = 0; i < s.nm; i++)
				if (strcmp(s.m[i].name, mt.s) == 0)
					d_perrt(ps, D_DECL_IDRED, mt.line,
						mt.col,
						"member %s is declared twice",
						mt.s);
			d_lex(ps);
			if (d_is_op(ps, ':')) {
				bitfield(ps, &s, &bits, isu, mt.s, sz, sg,
					 ptr || su, &tt);
				goto next;
			}
			m.name = mt.s; /* in the pool */
			if (su && !ptr) {
				const struct d_sou *n;

				if (su == self)
					d_perrt(ps, D_DECL_INCOMPLETE, tt.line,
						tt.col,
						"%s %s cannot contain itself",
						isu ? "union" : "struct", nt.s);
				n = d_sou_complete(ps, su, D_DECL_INCOMPLETE,
						 &tt);
				m.sou = su;
				m.size = n->size;
				m.align = n->align;
			} else {
				m.sz = sz;
				m.sg = sg;
				m.ptr = ptr;
				m.psg = psg;
				m.pc = pc;
				m.psou = ptr == D_PTR_SOU ? su : 0;
				m.size = m.align = sz;
			}
			if (d_is_op(ps, '[')) {
				struct tok b = ps->tk;

				int64_t ne = 0;

				d_lex(ps);
				if (d_is_op(ps, ']') || !decl_const(ps, &ne) ||
				    ne <= 0 || ne > D_COPYIN_MAX)
					d_perrt(ps, D_DECL_ARRSUB, b.line,
						b.col,
						"an array member needs a "
						"positive constant size of at "
						"most %d", D_COPYIN_MAX);
				m.nelem = (size_t)ne;
				m.size *= m.nelem;
				d_expect(ps, ']');
				if (d_is_op(ps, '['))
					d_perrt(ps, D_DECL_ARRSUB,
						ps->tk.line, ps->tk.col,
						"arrays of arrays are not "
						"supported");
			}
			end = (bits + 7) / 8;
			m.off = isu ? 0 : (end + m.align - 1) / m.align *
						  m.align;
			if ((m.off + m.size) * 8 > bits)
				bits = (m.off + m.size) * 8;
			if (m.align > s.align)
				s.align = m.align;
			s.m = d_pool_grow(ps, s.m, s.nm, sizeof(*s.m));
			s.m[s.nm++] = m;
next:
			if (bits > (uint64_t)D_COPYIN_MAX * 8)
				d_perrt(ps, D_DECL_ARRSUB, mt.line, mt.col,
					"%s %s is larger than copyin( ) can "
					"copy (%d bytes)",
					isu ? "union" : "struct", nt.s,
					D_COPYIN_MAX);
			if (!d_is_op(ps, ','))
				break;
			d_lex(ps);
		}
		if (!d_is_op(ps, ';'))
			d_syntax_error(ps);
		d_lex(ps);
	}
	if (!s.nm) /* C has no empty struct */
		d_syntax_error(ps);
	d_lex(ps);
	s.name = p->sous[self - 1].name;
	s.isunion = isu;
	s.defined = true;
	s.size = ((bits + 7) / 8 + s.align - 1) / s.align * s.align;
	p->sous[self - 1] = s;
}

/* An identifier an inline declared: the tree it stands for, or NULL. */
struct node *d_inline_use(struct parser *ps, const struct tok *t)
{
	const struct d_prog *p = ps->prog;

	for (unsigned i = 0; i < p->ninlines; i++)
		if (strcmp(p->inlines[i].name, t->s) == 0)
			return p->inlines[i].e;
	return NULL;
}

/*
 * TYPE NAME[N] (after the '[', N a constant expression: decl_const()):
 * a fixed-size array variable, held by value as a struct variable is
 * (mem.c): its type becomes a struct of the script's that only it can
 * name ("int[5]", one per element type and size), whose one member is
 * the array (struct d_sou's isarray); expr.c's parse_postfix() makes
 * NAME[i] that member's element, its index checked against N (struct
 * node's nelem).  Its elements are integers or structs; an array of
 * arrays or of strings is refused.
 */
static void fixed_array(struct parser *ps, struct dtype *t,
			const struct tok *b, const char *vname)
{
	struct d_prog *p = ps->prog;
	struct d_member m = { 0 };
	struct d_sou *s;
	char name[96];
	uint16_t su;
	int64_t n = 0;
	size_t esize;

	if (d_is_op(ps, ']') || !decl_const(ps, &n) || n <= 0 ||
	    n > D_COPYIN_MAX)
		d_perrt(ps, D_DECL_ARRSUB, b->line, b->col,
			"an array needs a positive constant size of at most "
			"%d",
			D_COPYIN_MAX);
	if (t->kind == T_STR)
		d_perrt(ps, D_IDENT_UNSUPP, b->line, b->col,
			"arrays of strings are not supported: declare an "
			"associative array (string %s[int])",
			vname);
	d_expect(ps, ']');
	if (d_is_op(ps, '['))
		d_perrt(ps, D_DECL_ARRSUB, ps->tk.line, ps->tk.col,
			"arrays of arrays are not supported");
	esize = t->sou ? p->sous[t->sou - 1].size : t->sz;
	if ((uint64_t)n * esize > D_COPYIN_MAX)
		d_perrt(ps, D_DECL_ARRSUB, b->line, b->col,
			"%s[%lld] is larger than %d bytes", t->text,
			(long long)n, D_COPYIN_MAX);
	snprintf(name, sizeof(name), "%s[%lld]", t->text, (long long)n);
	su = d_sou_find(ps, name, false, b);
	s = &p->sous[su - 1];
	if (!s->defined) {
		m.name = s->name;
		m.nelem = (size_t)n;
		m.size = esize * (size_t)n;
		if (t->sou) {
			m.sou = t->sou;
			m.align = p->sous[t->sou - 1].align;
		} else {
			m.sz = t->sz;
			m.sg = t->sg;
			m.align = t->sz;
			/* int *a[5]: a[i] + 1 scales by the int (mem.c) */
			m.ptr = t->ptr;
			m.psg = t->psg;
			m.pc = t->pc;
		}
		s->m = d_pool_grow(ps, NULL, 0, sizeof(*s->m));
		s->m[0] = m;
		s->nm = 1;
		s->align = m.align;
		s->size = m.size;
		s->defined = true;
		s->isarray = true;
	}
	t->sou = su;
	t->sz = 8;
	t->sg = 0;
	t->ptr = 0; /* the array itself, held by value */
	t->psg = 0;
	memset(&t->pc, 0, sizeof(t->pc));
	n = (int64_t)strlen(name);
	if ((size_t)n >= sizeof(t->text))
		n = sizeof(t->text) - 1;
	memcpy(t->text, name, (size_t)n);
	t->text[n] = '\0';
}

/*
 * One typedef's NAME (nt) for td: as in DTrace, the script's typedef
 * shadows a traced program's of the name (their DWARF, asked for only
 * when the script has none) and conflicts with its own: the same
 * definition again is accepted, as C accepts it, a different one
 * refused, and so is one of D's built-in type names (d_cast_type())
 * other than as it is.  NAME may not be a variable, inline, built-in,
 * function, action or reserved word: the parser tells a type from an
 * expression by it.
 */
static void add_typedef(struct parser *ps, struct d_typedef td,
			const struct tok *ntp)
{
	static const char *const kw[] = {
		"struct", "union",  "enum",	"void",	    "const",
		"volatile", "typedef", "inline", "sizeof", "offsetof", "char",
		"short", "int", "long", "signed", "unsigned",
	};
	struct d_prog *p = ps->prog;
	const struct d_typedef *old;
	struct tok nt = *ntp;
	uint8_t csz, csg;

	for (unsigned i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strcmp(nt.s, kw[i]) == 0)
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"cannot declare %s: it is a reserved word",
				nt.s);
	old = d_typedef_find(p, nt.s);
	if (old) {
		if (old->sz != td.sz || old->sg != td.sg ||
		    old->sou != td.sou || old->isvoid != td.isvoid ||
		    old->stars != td.stars)
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"typedef redeclared: %s, declared otherwise "
				"at line %d, column %d",
				nt.s, old->line, old->col);
		return; /* the same typedef again */
	}
	if (d_cast_type(nt.s, &csz, &csg)) {
		if (td.stars || td.sou || td.isvoid || td.sz != csz ||
		    td.sg != csg)
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"typedef redeclared: %s is D's own type, "
				"otherwise",
				nt.s);
		return; /* what the name is already */
	}
	check_global_name(ps, &nt);
	for (unsigned i = 0; i < p->ninlines; i++)
		if (strcmp(p->inlines[i].name, nt.s) == 0)
			d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
				"identifier redeclared: %s, an inline", nt.s);
	if (d_var_find(p, SC_GLOBAL, nt.s) >= 0 ||
	    d_var_find(p, SC_ASSOC, nt.s) >= 0)
		d_perrt(ps, D_DECL_IDRED, nt.line, nt.col,
			"identifier redeclared: %s, a variable", nt.s);
	td.name = nt.s; /* in the pool */
	td.line = nt.line;
	td.col = nt.col;
	p->tdefs = d_pool_grow(ps, p->tdefs, p->ntdefs, sizeof(*p->tdefs));
	p->tdefs[p->ntdefs++] = td;
}

/* The '*'s of the declarator whose NAME starts at e (const and volatile
 * between them skipped), counted back from NAME to the base type. */
static unsigned stars_before(const char *from, const char *e)
{
	unsigned n = 0;

	while (e > from) {
		const char *w = e;

		if (isspace((unsigned char)e[-1])) {
			e--;
			continue;
		}
		if (e[-1] == '*') {
			n++;
			e--;
			continue;
		}
		while (w > from &&
		       (isalnum((unsigned char)w[-1]) || w[-1] == '_'))
			w--;
		if ((e - w == 5 && strncmp(w, "const", 5) == 0) ||
		    (e - w == 8 && strncmp(w, "volatile", 8) == 0)) {
			e = w;
			continue;
		}
		break;
	}
	return n;
}

/*
 * typedef TYPE NAME[, NAME...]; (after "typedef"): each NAME stands for
 * TYPE with its own declarator's '*'s wherever a type may
 * (d_parse_type()), kept as its base type and its '*'s
 * (typedef struct s s_t, *sp_t; as in C).
 */
static void parse_typedef(struct parser *ps)
{
	struct d_typedef td = { 0 };
	struct tok at = ps->tk, nt;
	uint8_t sz, sg, ptr, psg;
	struct d_pchain pc;
	uint16_t su;
	unsigned first;

	if (at.t == TK_ID && strcmp(at.s, "string") == 0)
		d_perrt(ps, D_IDENT_UNSUPP, at.line, at.col,
			"a typedef of string is not supported");
	const char *q = ps->pos.p, *e;

	if (!d_starts_type(ps) &&
	    !(at.t == TK_ID && strcmp(at.s, "void") == 0))
		d_syntax_error(ps);
	/* the first NAME is the last word before the first ',' or ';':
	 * d_parse_type() stops there even where NAME is a type already
	 * (typedef long size_t; redeclares size_t, as C reads it) */
	while (*q && *q != ';' && *q != ',')
		q++;
	e = q;
	while (e > ps->pos.p && isspace((unsigned char)e[-1]))
		e--;
	while (e > ps->pos.p && (isalnum((unsigned char)e[-1]) || e[-1] == '_'))
		e--;
	ps->type_end = e;
	first = stars_before(ps->pos.p, e);
	d_parse_type(ps, &sz, &sg, &ptr, &psg, &su, &pc);
	ps->type_end = NULL;
	nt = ps->tk;
	if (nt.t != TK_ID)
		d_syntax_error(ps);
	/* the base type and its '*'s back from what d_parse_type() gives
	 * a declaration: pc says what a pointer to a pointer ends at */
	if (!ptr) {
		td.sz = sz;
		td.sg = sg;
		td.sou = su;
	} else {
		uint8_t base = pc.n ? pc.base : ptr;

		td.stars = pc.n ? pc.n + 1u : 1u;
		td.isvoid = base == D_PTR_VOID;
		td.sou = base != D_PTR_SOU ? 0 : pc.n ? pc.bsou : su;
		if (!td.isvoid && !td.sou) {
			td.sz = base;
			td.sg = pc.n ? pc.bsg : psg;
		}
	}
	add_typedef(ps, td, &nt);
	d_lex(ps);
	/* the others: the same base, each with its own '*'s (the first
	 * declarator's taken off what TYPE itself has) */
	while (d_is_op(ps, ',')) {
		struct d_typedef t = td;
		unsigned n = 0;

		d_lex(ps);
		for (;;) {
			if (d_is_op(ps, '*'))
				n++;
			else if (!(ps->tk.t == TK_ID &&
				   (strcmp(ps->tk.s, "const") == 0 ||
				    strcmp(ps->tk.s, "volatile") == 0)))
				break;
			d_lex(ps);
		}
		if (ps->tk.t != TK_ID)
			d_syntax_error(ps);
		t.stars = td.stars - first + n;
		if (!t.stars && td.isvoid)
			d_perrt(ps, D_DECL_VOIDOBJ, ps->tk.line, ps->tk.col,
				"cannot declare %s of type void: only a "
				"pointer to void",
				ps->tk.s);
		if (t.stars && !td.stars && !t.sou && !t.sz)
			d_syntax_error(ps);
		add_typedef(ps, t, &ps->tk);
		d_lex(ps);
	}
}

void d_parse_decl(struct parser *ps)
{
	int scope = SC_GLOBAL;
	struct dtype t;

	d_lex(ps);
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "inline") == 0) {
		d_lex(ps);
		parse_inline(ps);
		return;
	}
	/* extern TYPE NAME; declares a kernel symbol's type, read as
	 * `NAME: there is none to read here */
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "extern") == 0)
		d_perrt(ps, D_IDENT_UNSUPP, ps->tk.line, ps->tk.col,
			"extern declarations are not supported: they give "
			"the type of a kernel symbol (read as `name), and "
			"this dtrace reads no kernel variables");
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "typedef") == 0) {
		d_lex(ps);
		parse_typedef(ps);
		goto end;
	}
	if (ps->tk.t == TK_ID && strcmp(ps->tk.s, "enum") == 0) {
		const char *q = ps->pos.p;

		/* enum [TAG] { declares the type; enum [OBJ`]TAG NAME a
		 * variable of it */
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '.' ||
		       *q == '-' || *q == '+' || *q == '`')
			q++;
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q == '{') {
			d_lex(ps);
			parse_enum(ps);
			return;
		}
	}
	if (ps->tk.t == TK_ID && (strcmp(ps->tk.s, "struct") == 0 ||
				  strcmp(ps->tk.s, "union") == 0)) {
		const char *q = ps->pos.p;

		/* struct NAME { or struct NAME ;: a declaration of the
		 * type; anything else declares a variable (refused) */
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		       (*q >= '0' && *q <= '9') || *q == '_')
			q++;
		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q == '{' || *q == ';') {
			parse_sou(ps);
			goto end;
		}
	}
	if (ps->tk.t == TK_ID && (strcmp(ps->tk.s, "self") == 0 ||
				  strcmp(ps->tk.s, "this") == 0)) {
		scope = ps->tk.s[0] == 's' ? SC_SELF : SC_THIS;
		d_lex(ps);
	}
	parse_dtype(ps, &t);
	for (bool first = true;; first = false) {
		struct tok nt = ps->tk, st = ps->tk;
		uint8_t kk[D_MAXARGS];
		int nk = 0, stars = 0;

		/* int *x, *y: each declarator's '*'s are its own, as C
		 * has them; one type per declaration here, so another
		 * count than the first declarator's is refused */
		while (!first && d_is_op(ps, '*')) {
			stars++;
			d_lex(ps);
		}
		nt = ps->tk;
		if (!first && stars != t.stars && nt.t == TK_ID)
			d_perrt(ps, D_IDENT_UNSUPP, st.line, st.col,
				"declarators of different pointer types in "
				"one declaration are not supported: declare "
				"%s on its own",
				nt.s);
		if (nt.t != TK_ID)
			d_syntax_error(ps);
		d_lex(ps);
		if (d_is_op(ps, '[')) {
			struct tok b = ps->tk;

			d_lex(ps);
			if (size_follows(ps)) {
				struct dtype at = t; /* int a[5] */

				fixed_array(ps, &at, &b, nt.s);
				declare(ps, scope, &nt, &at, kk, 0);
				goto next;
			}
			if (scope == SC_THIS)
				d_perrt(ps, D_DECL_LOCASSC, b.line, b.col,
					"this-> variables cannot be "
					"associative arrays");
			for (;;) {
				struct dtype kt;
				struct tok kat = ps->tk;

				if (nk == D_MAXARGS)
					d_perrt(ps, D_PROTO_LEN, ps->tk.line, ps->tk.col,
					       "more than %d keys", D_MAXARGS);
				parse_dtype(ps, &kt);
				if (kt.sou)
					d_perrt(ps, D_IDENT_UNSUPP, kat.line,
						kat.col,
						"a struct or union is not "
						"supported as a key: key by "
						"its members");
				kk[nk++] = (uint8_t)kt.kind;
				if (!d_is_op(ps, ','))
					break;
				d_lex(ps);
			}
			d_expect(ps, ']');
		}
		declare(ps,
			!nk		   ? scope
			: scope == SC_SELF ? SC_SELFASSOC
					   : SC_ASSOC,
			&nt, &t, kk, nk);
next:
		if (!d_is_op(ps, ','))
			break;
		d_lex(ps);
	}
end:
	if (!d_is_op(ps, ';'))
		d_syntax_error(ps);
	ps->pos.p = ps->tk.end;
	ps->pos.line = ps->tk.line;
	ps->pos.col = ps->tk.col + 1;
}
