// SPDX-License-Identifier: MIT
/*
 * decl.c - types and variables of the D language (dtrace-G/d/): the
 * integer type names of casts and declarations, the program's variables
 * (one struct var per name and scope), structs and unions, and the
 * traced programs' own types.  declare.c parses the declarations a
 * script makes outside its clauses with them.
 *
 * A declared integer variable keeps its size and sign: a value stored
 * into it is converted as C converts on assignment (d_var_conv()), and
 * its zero has its type (d_var_zero()), so trace() and printf() print
 * it as declared.
 *
 * Structs and unions (struct d_sou, one per tag; d_sou_find() makes an
 * incomplete one for a tag named before its members, as C's forward
 * reference): declare.c's parse_sou() lays out the script's own as the
 * x86-64 SysV ABI does, and d_parse_type() names them in casts, sizeof
 * and offsetof; the members are read through pointers into copyin()'s
 * copies (mem.c).  enum TAG stands wherever an integer type does
 * (casts, variables, members, keys): an int for the script's own tag
 * (declare.c's parse_enum() keeps it), the DWARF's size and sign for a
 * traced program's.
 *
 * The traced programs' own types (their DWARF) come through the
 * command's callback (d_compile_opts' ctype; d/ never reads a file):
 * asked lazily, once per name (ctype_lookup()), only for a struct,
 * union or enum tag, or a typedef name, that the script does not
 * declare itself, with DTrace's object scope (struct OBJ`TAG,
 * OBJ`NAME: scoped_name()).  A program's struct or union becomes one
 * of struct d_sou like the script's own (sou_import(); ct set), its
 * members converted to struct d_member the first time they are needed
 * (sou_fill()), at the offsets its compiler chose, so member access,
 * sizeof, offsetof and pointer arithmetic (mem.c) need nothing else; a
 * member D cannot read keeps its place and the reason (unsupp).  A
 * typedef resolves in d_parse_type() to what it names, pointers
 * included, after the script's own typedef of the name (d_typedef_find(),
 * declare.c's parse_typedef()), which shadows it as DTrace's D
 * container comes before the programs' types; an identifier is taken
 * for one of theirs only where a type can stand (followed by '*', ')'
 * or a name) and when it is no variable, built-in or function the
 * program has (typedef_at()); one that no object
 * declares while the program has no debug information is remembered,
 * so that the syntax error it leads to ((name *) or (name)x) says why
 * (lex.c's d_syntax_error()).  An enumerator is asked
 * for (d_enumerator()) by the checker, for a name that nothing assigns
 * before it is read and so would be an undefined variable (check.c),
 * and by the parser for a scoped OBJ`NAME in an expression (expr.c).
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

unsigned d_var_lookup(struct d_prog *p, int scope, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nvars; i++)
		if (p->vars[i].scope == scope &&
		    strcmp(p->vars[i].name, name) == 0)
			return i;
	p->vars = xpush_room(p->vars, p->nvars, sizeof(*p->vars));
	memset(&p->vars[i], 0, sizeof(p->vars[i]));
	p->vars[i].name = xstrdup(name);
	p->vars[i].scope = scope;
	p->vars[i].kind = T_ANY;
	p->vars[i].assigned = false;
	p->vars[i].declared = false;
	p->vars[i].tname = NULL;
	p->vars[i].nkeys = -1;
	p->vars[i].keykinds = NULL;
	p->nvars++;
	return i;
}

int d_var_find(const struct d_prog *p, int scope, const char *name)
{
	for (unsigned i = 0; i < p->nvars; i++)
		if (p->vars[i].scope == scope &&
		    strcmp(p->vars[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The name as the script writes it: x, self->x, this->x, a[ ]. */
const char *d_var_display(const struct var *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 v->scope == SC_SELF || v->scope == SC_SELFASSOC ? "self->"
		 : v->scope == SC_THIS ? "this->"
				       : "",
		 v->name,
		 v->scope == SC_ASSOC || v->scope == SC_SELFASSOC ? "[ ]" : "");
	return buf;
}

/* The value of a variable never set: zero of its declared type. */
struct dv d_var_zero(const struct var *v)
{
	if (v->kind == T_STR)
		return d_dv_str("");
	if (v->declared)
		return d_dv_int(0, v->sz, v->sg);
	return d_dv_int(0, 8, true);
}

/* A value stored into v: an integer converted to v's declared type. */
struct dv d_var_conv(const struct var *v, struct dv val)
{
	if (v->declared && v->kind == T_INT && val.k == K_INT)
		return d_dv_int(val.i, v->sz, v->sg);
	return val;
}
/* ------------------------------------------------------------------ */
/* Structs and unions */

/* struct or union NAME: its index + 1, a new incomplete one if the
 * script has not named it yet (C's forward reference). */
uint16_t d_sou_find(struct parser *ps, const char *name, bool isu,
		    const struct tok *at)
{
	struct d_prog *p = ps->prog;
	unsigned i;

	for (i = 0; i < p->nsous; i++)
		if (!p->sous[i].ct && strcmp(p->sous[i].name, name) == 0)
			break;
	if (i < p->nsous) {
		if (p->sous[i].isunion != isu)
			d_perrt(ps, D_DECL_IDRED, at->line, at->col,
				"%s is declared as a %s and used as a %s",
				name, isu ? "struct" : "union",
				isu ? "union" : "struct");
		return (uint16_t)(i + 1);
	}
	if (p->nsous == UINT16_MAX - 1)
		d_perrt(ps, D_PROTO_LEN, at->line, at->col,
			"more than %d structs and unions", UINT16_MAX - 1);
	p->sous = xpush_room(p->sous, p->nsous, sizeof(*p->sous));
	memset(&p->sous[i], 0, sizeof(p->sous[i]));
	p->sous[i].name = d_pool_strndup(ps, name, strlen(name));
	p->sous[i].isunion = isu;
	p->nsous++;
	return (uint16_t)(i + 1);
}

static void sou_fill(struct parser *ps, uint16_t sou, const struct tok *at);

const struct d_sou *d_sou_complete(struct parser *ps, uint16_t sou, int tag,
				   const struct tok *at)
{
	const struct d_sou *s = &ps->prog->sous[sou - 1];

	if (!s->defined && s->ct && !s->ct->incomplete) {
		sou_fill(ps, sou, at);
		s = &ps->prog->sous[sou - 1];
	}
	if (!s->defined && s->ct)
		d_perrt(ps, tag, at->line, at->col,
			"%s %s is incomplete: %s declares it without its "
			"members", s->isunion ? "union" : "struct", s->name,
			s->obj);
	if (!s->defined)
		d_perrt(ps, tag, at->line, at->col,
			"%s %s is incomplete: it is declared but its members "
			"are not%s%s", s->isunion ? "union" : "struct", s->name,
			s->note ? "; " : "", s->note ? s->note : "");
	return s;
}

/* sizeof (struct NAME): an error with tag if NAME has no members yet. */
size_t d_sou_size(struct parser *ps, uint16_t sou, int tag,
		  const struct tok *at)
{
	return d_sou_complete(ps, sou, tag, at)->size;
}

/* The member name of a complete struct or union, or a compile error. */
const struct d_member *d_sou_member(struct parser *ps, uint16_t sou,
				    const char *name, const struct tok *at)
{
	const struct d_sou *s = d_sou_complete(ps, sou, D_DECL_INCOMPLETE, at);

	for (unsigned i = 0; i < s->nm; i++)
		if (strcmp(s->m[i].name, name) == 0)
			return &s->m[i];
	d_perrt(ps, D_TYPE_MEMBER, at->line, at->col,
		"%s is not a member of %s %s", name,
		s->isunion ? "union" : "struct", s->name);
}

/* Whether the script declared enum TAG (parse_enum()). */
bool d_script_enum(struct parser *ps, const char *tag)
{
	for (unsigned i = 0; i < ps->prog->netags; i++)
		if (strcmp(ps->prog->etags[i], tag) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The traced programs' types (d_compile_opts' ctype: their DWARF) */

/*
 * Ask the command for a type of the traced programs, once per (obj,
 * kind, name) for the program: the type, or NULL when no object has it
 * (*note, when not NULL, says why, e.g. an object without debug
 * information).  The command's errors are compile errors at at.
 */
static const struct d_ctype *ctype_lookup(struct parser *ps, const char *obj,
					  int kind, const char *name,
					  const struct tok *at,
					  const char **note)
{
	struct d_prog *p = ps->prog;
	struct d_tlook *l = NULL;
	char msg[512];

	for (unsigned i = 0; i < p->ntlooks && !l; i++)
		if (p->tlooks[i].kind == kind &&
		    strcmp(p->tlooks[i].name, name) == 0 &&
		    (obj ? p->tlooks[i].obj && !strcmp(p->tlooks[i].obj, obj)
			 : !p->tlooks[i].obj))
			l = &p->tlooks[i];
	if (!l) {
		const struct d_ctype *t = NULL;
		int ret = 0;

		msg[0] = '\0';
		if (ps->o && ps->o->ctype)
			ret = ps->o->ctype(ps->o->ctype_ctx, obj, kind, name, &t,
					   msg, sizeof(msg));
		p->tlooks =
			xpush_room(p->tlooks, p->ntlooks, sizeof(*p->tlooks));
		l = &p->tlooks[p->ntlooks++];
		l->obj = obj ? d_pool_strndup(ps, obj, strlen(obj)) : NULL;
		l->name = d_pool_strndup(ps, name, strlen(name));
		l->kind = kind;
		l->ret = ret == 1 && !t ? 0 : ret;
		l->t = t;
		l->msg = msg[0] ? d_pool_strndup(ps, msg, strlen(msg)) : NULL;
	}
	if (note)
		*note = l->msg;
	if (l->ret == -1)
		d_perrt(ps, D_TYPE_AMBIG, at->line, at->col, "%s", l->msg);
	if (l->ret < 0)
		d_perrt(ps, D_TYPE_SCOPE, at->line, at->col, "%s", l->msg);
	return l->ret == 1 ? l->t : NULL;
}

/*
 * A module-scoped name at the current identifier, DTrace's OBJ`NAME
 * (`struct a.out`request`, `libfoo.so.1`request_t`): the object and the
 * name, and the lexer moved past them; false (nothing moved) if the
 * text there is not one.  The object is a file name as probe
 * descriptions' module field gives it, dots and all, which the lexer's
 * identifiers do not hold, hence the look at the text.
 */
static bool scoped_name(struct parser *ps, char **obj, char **name)
{
	const char *b = ps->tk.start, *q = ps->pos.p, *n;

	if (ps->tk.t != TK_ID || ps->tk.end != q)
		return false;
	while (isalnum((unsigned char)*q) || *q == '_' || *q == '.' ||
	       *q == '-' || *q == '+')
		q++;
	if (*q != '`')
		return false;
	n = ++q;
	if (!isalpha((unsigned char)*q) && *q != '_')
		return false;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	if (obj) {
		*obj = d_pool_strndup(ps, b, (size_t)(n - 1 - b));
		*name = d_pool_strndup(ps, n, (size_t)(q - n));
		while (ps->pos.p < q)
			d_lx_adv(&ps->pos);
	}
	return true;
}

bool d_scoped_name(struct parser *ps, char **obj, char **name)
{
	return scoped_name(ps, obj, name);
}

/* An enumerator of the traced programs (of obj's, when not NULL): its
 * value, or false when none declares it.  Unscoped, boolean_t's
 * B_FALSE and B_TRUE (d_cast_type()) come first, as DTrace finds the
 * kernel's enumerators before a program's. */
bool d_enumerator(struct parser *ps, const char *obj, const char *name,
		  const struct tok *at, int64_t *v)
{
	const struct d_ctype *t;

	if (!obj && (strcmp(name, "B_FALSE") == 0 ||
		     strcmp(name, "B_TRUE") == 0)) {
		*v = name[2] == 'T';
		return true;
	}
	if (!ps->o || !ps->o->ctype)
		return false;
	t = ctype_lookup(ps, obj, D_CT_ENUMERATOR, name, at, NULL);
	for (unsigned i = 0; t && i < t->ne; i++)
		if (strcmp(t->e[i].name, name) == 0) {
			*v = t->e[i].value;
			return true;
		}
	return false;
}

/* A program's struct or union as one of the script's: the same one for
 * the same type, its members converted when first needed. */
static uint16_t sou_import(struct parser *ps, const struct d_ctype *ct,
			   const struct tok *at)
{
	struct d_prog *p = ps->prog;
	struct d_sou *s;
	unsigned i;

	for (i = 0; i < p->nsous; i++)
		if (p->sous[i].ct == ct)
			return (uint16_t)(i + 1);
	if (p->nsous == UINT16_MAX - 1)
		d_perrt(ps, D_PROTO_LEN, at->line, at->col,
			"more than %d structs and unions", UINT16_MAX - 1);
	p->sous = xpush_room(p->sous, p->nsous, sizeof(*p->sous));
	s = &p->sous[i];
	memset(s, 0, sizeof(*s));
	s->name = ct->name ? d_pool_strndup(ps, ct->name, strlen(ct->name))
			   : (char *)"<anonymous>";
	s->isunion = ct->kind == D_CT_UNION;
	s->ct = ct;
	s->obj = ct->obj;
	s->size = ct->size;
	p->nsous++;
	return (uint16_t)(i + 1);
}

static const char *ctype_what(const struct d_ctype *t)
{
	switch (t->kind) {
	case D_CT_VOID: return "void";
	case D_CT_INT: return "an integer";
	case D_CT_ENUM: return "an enum";
	case D_CT_PTR: return "a pointer";
	case D_CT_ARRAY: return "an array";
	case D_CT_STRUCT: return "a struct";
	case D_CT_UNION: return "a union";
	case D_CT_FUNC: return "a function";
	default: return t->what ? t->what : "of a type D does not have";
	}
}

static bool int_size(uint64_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* A pointer's target as a node's ptr, psg, psou and pc; false if D
 * cannot read what it points to, through every pointer level. */
static bool ptr_target(struct parser *ps, const struct d_ctype *t, uint8_t *ptr,
		       uint8_t *psg, uint16_t *psou, struct d_pchain *pc,
		       const struct tok *at)
{
	*psg = 0;
	*psou = 0;
	memset(pc, 0, sizeof(*pc));
	switch (t ? t->kind : D_CT_OTHER) {
	case D_CT_VOID:
	case D_CT_FUNC: /* code: an address, never read */
		*ptr = D_PTR_VOID;
		return true;
	case D_CT_INT:
	case D_CT_ENUM:
		if (!int_size(t->size))
			return false;
		*ptr = (uint8_t)t->size;
		*psg = t->sg;
		return true;
	case D_CT_PTR: { /* what that pointer points to, to the end */
		struct d_pchain in;

		if (!ptr_target(ps, t->ref, &pc->base, &pc->bsg, &pc->bsou, &in,
				at) ||
		    in.n == UINT8_MAX)
			return false;
		if (in.n)
			*pc = in;
		pc->n = (uint8_t)(in.n + 1);
		*ptr = 8;
		return true;
	}
	case D_CT_STRUCT:
	case D_CT_UNION:
		*ptr = D_PTR_SOU;
		*psou = sou_import(ps, t, at);
		return true;
	default:
		return false;
	}
}

/* One member of a program's type, or (no name) the members of an
 * anonymous struct or union in it, as C lets them be named. */
static void import_members(struct parser *ps, struct d_sou *s,
			   const struct d_ctype *ct, uint64_t base,
			   uint64_t limit, const struct tok *at)
{
	for (unsigned i = 0; i < ct->nm; i++) {
		const struct d_cmember *cm = &ct->m[i];
		const struct d_ctype *t = cm->type;
		struct d_member m = { 0 };
		char why[160];

		why[0] = '\0';
		if (!cm->name) {
			if (t->kind == D_CT_STRUCT || t->kind == D_CT_UNION)
				import_members(ps, s, t, base + cm->off, limit,
					       at);
			continue;
		}
		m.name = d_pool_strndup(ps, cm->name, strlen(cm->name));
		m.off = base + cm->off;
		if (cm->bits) {
			/* the unit of its type's size holding it, as
			 * gcc and clang place them; else the fewest
			 * bytes that do, inside the struct */
			uint64_t b = base * 8 + cm->bitoff, unit, at8;
			uint64_t sz = t->size;

			if ((t->kind != D_CT_INT && t->kind != D_CT_ENUM) ||
			    !int_size(sz) || cm->bits > 64) {
				snprintf(why, sizeof(why),
					 "a bit-field of %s", ctype_what(t));
				goto unsupp;
			}
			unit = sz * 8;
			at8 = b / unit * unit;
			if (b + cm->bits > at8 + unit ||
			    at8 / 8 + sz > limit) {
				at8 = b / 8 * 8;
				for (sz = 1; sz <= 8; sz *= 2)
					if (b - at8 + cm->bits <= sz * 8 &&
					    at8 / 8 + sz <= limit)
						break;
				if (sz > 8) {
					snprintf(why, sizeof(why),
						 "a bit-field laid across "
						 "more than 8 bytes");
					goto unsupp;
				}
			}
			m.off = at8 / 8;
			m.shift = (uint8_t)(b - at8);
			m.bits = (uint8_t)cm->bits;
			m.sz = (uint8_t)sz;
			m.sg = t->sg;
			m.size = m.align = sz;
			goto add;
		}
		if (t->kind == D_CT_ARRAY) {
			const struct d_ctype *e = t->ref;

			if (!e || e->kind == D_CT_ARRAY) {
				snprintf(why, sizeof(why),
					 "an array of arrays");
				goto unsupp;
			}
			/* no bound (a flexible array member): [ ] reads
			 * what the copy holds, as for any array */
			m.nelem = t->nelem ? (size_t)t->nelem : 1;
			t = e;
		}
		switch (t->kind) {
		case D_CT_INT:
		case D_CT_ENUM:
			if (!int_size(t->size)) {
				snprintf(why, sizeof(why),
					 "an integer of %llu bytes",
					 (unsigned long long)t->size);
				goto unsupp;
			}
			m.sz = (uint8_t)t->size;
			m.sg = t->sg;
			m.align = t->size;
			break;
		case D_CT_PTR:
			if (!ptr_target(ps, t->ref, &m.ptr, &m.psg, &m.psou,
					&m.pc, at)) {
				snprintf(why, sizeof(why),
					 "a pointer to %s",
					 t->ref ? ctype_what(t->ref)
						: "an unknown type");
				goto unsupp;
			}
			m.sz = 8;
			m.align = 8;
			break;
		case D_CT_STRUCT:
		case D_CT_UNION: {
			uint16_t su = sou_import(ps, t, at);

			if (t->incomplete) {
				snprintf(why, sizeof(why),
					 "%s without members",
					 ctype_what(t));
				goto unsupp;
			}
			m.sou = su;
			m.align = d_sou_complete(ps, su, D_DECL_INCOMPLETE, at)
					  ->align;
			break;
		}
		default:
			snprintf(why, sizeof(why), "%s", ctype_what(t));
			goto unsupp;
		}
		m.size = cm->type->size;
		goto add;
unsupp:
		m.unsupp = d_pool_strndup(ps, why, strlen(why));
		m.size = cm->type->size;
		m.align = 1;
add:
		if (m.align > s->align)
			s->align = m.align;
		s->m = d_pool_grow(ps, s->m, s->nm, sizeof(*s->m));
		s->m[s->nm++] = m;
	}
}

/* A program's struct or union: its members, converted once. */
static void sou_fill(struct parser *ps, uint16_t sou, const struct tok *at)
{
	struct d_prog *p = ps->prog;
	struct d_sou s;

	if (p->sous[sou - 1].filling)
		d_perrt(ps, D_TYPE_ERR, at->line, at->col,
			"%s %s (%s) contains itself",
			p->sous[sou - 1].isunion ? "union" : "struct",
			p->sous[sou - 1].name, p->sous[sou - 1].obj);
	p->sous[sou - 1].filling = true;
	s = p->sous[sou - 1];
	s.m = NULL;
	s.nm = 0;
	s.align = 1;
	import_members(ps, &s, s.ct, 0, s.ct->size, at);
	s.defined = true;
	s.filling = false;
	p->sous[sou - 1] = s; /* p->sous may have moved */
}

/*
 * struct [OBJ`]TAG or union [OBJ`]TAG, after the keyword: the script's
 * own declaration of TAG first (DTrace's D namespace), then the traced
 * programs' (OBJ's alone when given); a TAG found nowhere is the
 * script's incomplete one, as before, the lookup's note kept for the
 * error that needs its members.
 */
static uint16_t sou_named(struct parser *ps, bool isu)
{
	struct d_prog *p = ps->prog;
	struct tok at = ps->tk;
	char *obj = NULL, *name = ps->tk.s;
	const struct d_ctype *t;
	const char *note = NULL;
	uint16_t su;

	if (scoped_name(ps, &obj, &name)) {
		t = ctype_lookup(ps, obj, isu ? D_CT_UNION : D_CT_STRUCT, name,
				 &at, &note);
		if (!t)
			d_perrt(ps, D_TYPE_ERR, at.line, at.col,
				"%s %s`%s: %s", isu ? "union" : "struct", obj,
				name,
				note ? note
				     : "no such type in that object's debug "
				       "information");
		return sou_import(ps, t, &at);
	}
	for (unsigned i = 0; i < p->nsous; i++)
		if (!p->sous[i].ct && strcmp(p->sous[i].name, name) == 0)
			return d_sou_find(ps, name, isu, &at);
	t = ctype_lookup(ps, NULL, isu ? D_CT_UNION : D_CT_STRUCT, name, &at,
			 &note);
	if (t)
		return sou_import(ps, t, &at);
	su = d_sou_find(ps, name, isu, &at);
	if (note)
		p->sous[su - 1].note = note;
	return su;
}

/* A typedef name of the traced programs at the current identifier (with
 * OBJ` or without), or NULL; with move, the lexer goes past it. */
static const struct d_ctype *typedef_at(struct parser *ps, bool move)
{
	struct tok at = ps->tk;
	char *obj = NULL, *name;
	const char *note = NULL, *q;
	const struct d_ctype *t;

	if (ps->tk.t != TK_ID)
		return NULL;
	if (scoped_name(ps, NULL, NULL)) {
		if (!move) { /* a type, or (an enumerator) not one */
			struct lexpos save = ps->pos;

			scoped_name(ps, &obj, &name);
			ps->pos = save;
			return ctype_lookup(ps, obj, D_CT_TYPEDEF, name, &at,
					    NULL);
		}
		scoped_name(ps, &obj, &name);
		t = ctype_lookup(ps, obj, D_CT_TYPEDEF, name, &at, &note);
		if (!t)
			d_perrt(ps, D_TYPE_ERR, at.line, at.col,
				"%s`%s: %s", obj, name,
				note ? note
				     : "no such type in that object's debug "
				       "information");
		return t;
	}
	/* a name followed by '*', ')' or a name, as a type is, and not
	 * one the program uses otherwise */
	q = ps->pos.p;
	while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
		q++;
	if (*q != '*' && *q != ')' && !isalpha((unsigned char)*q) &&
	    *q != '_')
		return NULL;
	if (!ps->o || !ps->o->ctype || d_inline_use(ps, &ps->tk) ||
	    d_var_find(ps->prog, SC_GLOBAL, ps->tk.s) >= 0 ||
	    d_var_find(ps->prog, SC_ASSOC, ps->tk.s) >= 0)
		return NULL;
	for (unsigned i = 0; i < d_nbuiltins; i++)
		if (strcmp(d_builtins[i].name, ps->tk.s) == 0)
			return NULL;
	for (unsigned i = 0; i < d_nfuncs; i++)
		if (strcmp(d_funcs[i].name, ps->tk.s) == 0)
			return NULL;
	if (strcmp(ps->tk.s, "self") == 0 || strcmp(ps->tk.s, "this") == 0 ||
	    strcmp(ps->tk.s, "sizeof") == 0 ||
	    strcmp(ps->tk.s, "offsetof") == 0 ||
	    strcmp(ps->tk.s, "string") == 0 || strcmp(ps->tk.s, "NULL") == 0 ||
	    strncmp(ps->tk.s, "arg", 3) == 0)
		return NULL;
	t = ctype_lookup(ps, NULL, D_CT_TYPEDEF, ps->tk.s, &at, &note);
	if (!t && note) { /* for the syntax error it may cause */
		ps->td_miss = at;
		ps->td_note = note;
	}
	return t;
}

/*
 * A type name for a cast: size and signedness, or false.  boolean_t is
 * DTrace's from the Solaris kernel's <sys/types.h>, typedef enum {
 * B_FALSE, B_TRUE } boolean_t: an enum, so a signed int (its
 * enumerators are d_enumerator()'s); DTrace finds it in the kernel's
 * types before a traced program's, and so does this table.
 */
bool d_cast_type(const char *name, uint8_t *sz, uint8_t *sg)
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
		{ "boolean_t", 4, 1 },
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

/*
 * After '(' when the next token names a type (or is void): the cast's
 * type.  With ptr (casts), a pointer's target too: its size (D_PTR_VOID
 * for void *) and signedness, 0 when the type is no pointer; a pointer
 * to a pointer points to 8 unsigned bytes, and pc (when given) says
 * what those point to, to the innermost type (mem.c).
 */
void d_parse_type(struct parser *ps, uint8_t *sz, uint8_t *sg, uint8_t *ptr,
		  uint8_t *psg, uint16_t *sou, struct d_pchain *pc)
{
	bool uns = false, sgn = false, any = false, isvoid = false;
	uint16_t su = 0;
	uint8_t s = 4, g = 1;
	unsigned stars = 0, tstars = 0; /* tstars: a typedef's own */
	const struct d_ctype *td;
	const struct d_typedef *std;
	struct tok at = ps->tk;
	/* C's specifiers, counted for its rules on combining them */
	unsigned nchar = 0, nshort = 0, nlong = 0, nint = 0, nsign = 0;
	unsigned nnamed = 0;

	while (ps->tk.t == TK_ID && ps->tk.start != ps->type_end) {
		uint8_t tsz, tsg;
		const char *w = ps->tk.s;

		if (sou && !any &&
		    (strcmp(w, "struct") == 0 || strcmp(w, "union") == 0)) {
			bool isu = w[0] == 'u';

			d_lex(ps);
			if (ps->tk.t != TK_ID)
				d_syntax_error(ps);
			su = sou_named(ps, isu);
			nnamed++;
		} else if (!any && strcmp(w, "enum") == 0) {
			/* the script's enum: an int; a traced program's:
			 * an integer of its size and sign */
			struct tok et;
			char *obj = NULL, *name;
			const struct d_ctype *t;
			const char *note = NULL;

			d_lex(ps);
			et = ps->tk;
			if (et.t != TK_ID)
				d_syntax_error(ps);
			name = et.s;
			nnamed++;
			if (!scoped_name(ps, &obj, &name) &&
			    d_script_enum(ps, name)) {
				s = 4;
				g = 1;
			} else {
				t = ctype_lookup(ps, obj, D_CT_ENUM, name, &et,
						 &note);
				if (!t || !int_size(t->size))
					d_perrt(ps, D_TYPE_ERR, et.line, et.col,
						"enum %s%s%s: %s",
						obj ? obj : "", obj ? "`" : "",
						name,
						t ? "not of an integer size"
						: note
						    ? note
						    : "neither the script nor "
						      "a traced object "
						      "declares it");
				s = (uint8_t)t->size;
				g = t->sg;
			}
		} else if (ptr && !any && strcmp(w, "void") == 0) {
			isvoid = true;
			nnamed++;
		} else if (strcmp(w, "const") == 0 ||
			   strcmp(w, "volatile") == 0) {
			/* a qualifier: what follows may still be any
			 * type (const struct req *, const request_t *) */
			d_lex(ps);
			continue;
		} else if (strcmp(w, "unsigned") == 0) {
			uns = true;
			nsign++;
		} else if (strcmp(w, "signed") == 0) {
			sgn = true;
			nsign++;
		} else if (strcmp(w, "long") == 0) {
			nlong++;
		} else if (strcmp(w, "short") == 0) {
			nshort++;
		} else if (strcmp(w, "char") == 0) {
			nchar++;
		} else if (strcmp(w, "int") == 0) {
			nint++;
		} else if (!any && (std = d_typedef_find(ps->prog, w))) {
			/* the script's own typedef, before the traced
			 * programs' (DTrace's D container first) */
			if ((std->sou && !sou) || (std->isvoid && !ptr))
				d_perrt(ps, D_TYPE_ERR, ps->tk.line,
					ps->tk.col,
					"type %s is %s: not supported here", w,
					std->isvoid ? "a void pointer"
						    : "a struct or union");
			s = std->sz;
			g = std->sg;
			su = std->sou;
			isvoid = std->isvoid;
			tstars = std->stars;
			nnamed++;
		} else if (d_cast_type(w, &tsz, &tsg)) {
			s = tsz;
			g = tsg;
			nnamed++;
		} else if (!any && (td = typedef_at(ps, true))) {
			/* a traced program's typedef: what it names,
			 * pointers included */
			struct tok tt = ps->tk;

			while (td->kind == D_CT_PTR && td->ref) {
				tstars++;
				td = td->ref;
			}
			switch (td->kind) {
			case D_CT_INT:
			case D_CT_ENUM:
				if (!int_size(td->size))
					d_perrt(ps, D_TYPE_ERR, tt.line, tt.col,
						"type %s is an integer of %llu "
						"bytes: not supported", w,
						(unsigned long long)td->size);
				s = (uint8_t)td->size;
				g = td->sg;
				break;
			case D_CT_VOID:
			case D_CT_FUNC:
				if (!ptr || (!tstars && td->kind == D_CT_FUNC))
					d_perrt(ps, D_TYPE_ERR, tt.line, tt.col,
						"type %s is %s: not supported "
						"here", w, ctype_what(td));
				isvoid = true;
				break;
			case D_CT_STRUCT:
			case D_CT_UNION:
				if (!sou)
					d_perrt(ps, D_TYPE_ERR, tt.line, tt.col,
						"type %s is %s: not supported "
						"here", w, ctype_what(td));
				su = sou_import(ps, td, &tt);
				break;
			default:
				d_perrt(ps, D_TYPE_ERR, tt.line, tt.col,
					"type %s is %s: not supported", w,
					ctype_what(td));
			}
			nnamed++;
		} else {
			break;
		}
		/* long short, char int, int8_t long, unsigned signed, ... */
		if (nsign > 1 || nint > 1 || nlong > 2 || nchar > 1 ||
		    nshort > 1 || nnamed > 1 ||
		    (nchar > 0) + (nshort > 0) + (nlong > 0) > 1 ||
		    (nchar && nint) ||
		    (nnamed && (nchar || nshort || nlong || nint || nsign))) {
			int n = (int)(ps->tk.start - at.start);

			while (n > 0 && (at.start[n - 1] == ' ' ||
					 at.start[n - 1] == '\t' ||
					 at.start[n - 1] == '\n'))
				n--;
			d_perrt(ps, D_DECL_COMBO, ps->tk.line, ps->tk.col,
				"invalid type combination: %s after %.*s", w,
				n, at.start);
		}
		any = true;
		d_lex(ps);
	}
	if (nchar)
		s = 1;
	else if (nshort)
		s = 2;
	else if (nlong)
		s = 8;
	if (uns)
		g = 0;
	else if (sgn)
		g = 1;
	while (d_is_op(ps, '*')) {
		stars++;
		d_lex(ps);
	}
	stars += tstars;
	if (pc) { /* int **: what the target, itself a pointer, points to */
		memset(pc, 0, sizeof(*pc));
		if (stars > 1) {
			if (stars - 1 > UINT8_MAX)
				d_perrt(ps, D_IDENT_UNSUPP, at.line, at.col,
					"too many levels of pointers");
			pc->n = (uint8_t)(stars - 1);
			pc->base = isvoid ? D_PTR_VOID : su ? D_PTR_SOU : s;
			pc->bsg = isvoid || su ? 0 : g;
			pc->bsou = su;
		}
	}
	if (su && stars > 1)
		su = 0; /* a pointer to a pointer */
	if (sou)
		*sou = su;
	if (ptr) {
		*ptr = stars == 0   ? 0
		       : stars > 1  ? 8
		       : isvoid	    ? D_PTR_VOID
		       : su	    ? D_PTR_SOU
				    : s;
		*psg = stars == 1 && !isvoid && !su ? g : 0;
		if (isvoid && !stars)
			d_perrt(ps, D_CAST_INVAL, at.line, at.col,
			       "cannot cast to void: it has no value");
	}
	if (stars) {
		s = 8;
		g = 0;
	} else if (su) {
		s = 0; /* the struct itself: its size is d_sou_size()'s */
		g = 0;
	}
	*sz = s;
	*sg = g;
}


/* The script's typedef NAME, or NULL. */
const struct d_typedef *d_typedef_find(const struct d_prog *p,
				       const char *name)
{
	for (unsigned i = 0; i < p->ntdefs; i++)
		if (strcmp(p->tdefs[i].name, name) == 0)
			return &p->tdefs[i];
	return NULL;
}

bool d_starts_type(struct parser *ps)
{
	uint8_t sz, sg;

	if (ps->tk.t != TK_ID)
		return false;
	return d_cast_type(ps->tk.s, &sz, &sg) ||
	       d_typedef_find(ps->prog, ps->tk.s) ||
	       strcmp(ps->tk.s, "const") == 0 ||
	       strcmp(ps->tk.s, "struct") == 0 ||
	       strcmp(ps->tk.s, "union") == 0 ||
	       strcmp(ps->tk.s, "unsigned") == 0 ||
	       strcmp(ps->tk.s, "signed") == 0 ||
	       strcmp(ps->tk.s, "enum") == 0 ||
	       typedef_at(ps, false);
}
