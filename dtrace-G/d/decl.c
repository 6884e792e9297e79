// SPDX-License-Identifier: MIT
/*
 * decl.c - types and declarations of the D language (dtrace-G/d/): the
 * integer type names of casts and declarations, the program's variables
 * (one struct var per name and scope), and the declarations a script
 * may make outside its clauses.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <string.h>

#include "d_impl.h"

unsigned d_var_lookup(struct d_prog *p, int scope, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nvars; i++)
		if (p->vars[i].scope == scope &&
		    strcmp(p->vars[i].name, name) == 0)
			return i;
	p->vars = d_xrealloc(p->vars, (p->nvars + 1) * sizeof(*p->vars));
	p->vars[i].name = d_xstrdup(name);
	p->vars[i].scope = scope;
	p->vars[i].kind = T_ANY;
	p->vars[i].assigned = false;
	p->nvars++;
	return i;
}
/* A type name for a cast: size and signedness, or false. */
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
void d_parse_type(struct parser *ps, uint8_t *sz, uint8_t *sg)
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
		} else if (d_cast_type(ps->tk.s, &tsz, &tsg)) {
			s = tsz;
			g = tsg;
		} else {
			break;
		}
		any = true;
		d_lex(ps);
	}
	if (uns)
		g = 0;
	else if (sgn)
		g = 1;
	while (d_is_op(ps, '*')) {
		s = 8;
		g = 0;
		d_lex(ps);
	}
	*sz = s;
	*sg = g;
}

bool d_starts_type(struct parser *ps)
{
	uint8_t sz, sg;

	if (ps->tk.t != TK_ID)
		return false;
	return d_cast_type(ps->tk.s, &sz, &sg) ||
	       strcmp(ps->tk.s, "const") == 0 ||
	       strcmp(ps->tk.s, "unsigned") == 0 ||
	       strcmp(ps->tk.s, "signed") == 0;
}
