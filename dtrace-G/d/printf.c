// SPDX-License-Identifier: MIT
/*
 * printf.c - the formats of printf() and printa() in the D language
 * (dtrace-G/d/): split and checked at compile time, applied at run time.
 *
 * d_pf_create() splits a format into segments, literal text followed by
 * one conversion, with the flags, widths and conversion names of
 * illumos dt_printf.c's table (%d %i %u %x %o %c %s %S %p %a %A %k %T %Y,
 * the h/l/ll sizes, '*', '?', '@' for printa's value, ' and #); an
 * unknown conversion is a compile error.  d_pf_validate() matches
 * conversions with arguments as dt_printf_validate() does, with its
 * messages; a conversion with a size prefix (%hd, %lu, ...) refuses an
 * argument (printa(): key) whose C type the compiler knows
 * (d_int_type()) to differ from the prototype's in size or sign, as
 * DTrace does; %c and %C refuse one it knows to be wider than an int.
 * Where it cannot tell the type, l and ll take the value,
 * which is 64 bits wide as theirs is and prints whole; h and hh refuse
 * it, since the value, narrowed to their type at run time, could print
 * other than it is.
 *
 * d_pf_one() prints one conversion the way dt_printf_format() builds
 * it: the flags, the width, a precision only when positive, "ll" for
 * 8-byte integers, and %d turned into %i or %u by the value's
 * signedness; %S escapes as strchr2esc() does, %Y and %T print a time
 * as DTrace's ctime-like and RFC 822 layouts.  %s of a string from a
 * traced process (struct dv's tn) prints it made safe (txt_safe()),
 * the width and precision applying to the escaped text; so does %c of
 * a byte that is not the script's own (tn of an integer: a printf()
 * argument that is not made of literals, or a printa() key), so ESC,
 * C1 and bytes of no UTF-8 character print as \xNN.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "d_impl.h"
#include "text.h"

/* ------------------------------------------------------------------ */
/* printf formats (dt_printf.c's conversions and flags) */

/*
 * A size prefix (h, hh, l, ll) makes a conversion take one C integer type
 * (the "prototype"), as dt_printf.c's pfcheck_type() and its x variants
 * do: isz, the argument's size in bytes (0: any integer, the conversions
 * without a prefix), and isg its signedness (PF_SG_ANY: %hx %lx %llx and
 * their X, which take either).  DTrace compares integer types by their
 * encoding, size and sign, so long and long long are one type here as
 * they are there on LP64, and print alike.
 */
#define PF_SG_ANY 2

static const struct {
	const char *name;
	char conv;  /* what we print */
	int argkind; /* T_INT, T_STR */
	const char *proto;
	uint8_t isz, isg;
} pfconvs[] = {
	/* %a %A: an address or a name (stack.c) */
	{ "a", 'a', T_ANY, "pointer or integer", 0, 0 },
	{ "A", 'A', T_ANY, "pointer or integer", 0, 0 },
	{ "c", 'c', T_INT, "char, short, or int", 0, 0 },
	{ "C", 'C', T_INT, "char, short, or int", 0, 0 },
	{ "d", 'd', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "hd", 'd', T_INT, "short", 2, 1 },
	{ "hi", 'i', T_INT, "short", 2, 1 },
	{ "ho", 'o', T_INT, "unsigned short", 2, 0 },
	{ "hu", 'u', T_INT, "unsigned short", 2, 0 },
	{ "hx", 'x', T_INT, "short", 2, PF_SG_ANY },
	{ "hX", 'X', T_INT, "short", 2, PF_SG_ANY },
	{ "hhd", 'd', T_INT, "char", 1, 1 },
	{ "hhu", 'u', T_INT, "unsigned char", 1, 0 },
	{ "hhx", 'x', T_INT, "char", 1, PF_SG_ANY },
	{ "i", 'i', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "k", 'k', T_STR, "stack", 0, 0 },
	{ "ld", 'd', T_INT, "long", 8, 1 },
	{ "li", 'i', T_INT, "long", 8, 1 },
	{ "lo", 'o', T_INT, "unsigned long", 8, 0 },
	{ "lu", 'u', T_INT, "unsigned long", 8, 0 },
	{ "lx", 'x', T_INT, "long", 8, PF_SG_ANY },
	{ "lX", 'X', T_INT, "long", 8, PF_SG_ANY },
	{ "lld", 'd', T_INT, "long long", 8, 1 },
	{ "lli", 'i', T_INT, "long long", 8, 1 },
	{ "llo", 'o', T_INT, "unsigned long long", 8, 0 },
	{ "llu", 'u', T_INT, "unsigned long long", 8, 0 },
	{ "llx", 'x', T_INT, "long long", 8, PF_SG_ANY },
	{ "llX", 'X', T_INT, "long long", 8, PF_SG_ANY },
	{ "o", 'o', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "p", 'p', T_INT, "pointer or integer", 0, 0 },
	{ "s", 's', T_STR, "char [] or string (or use stringof)", 0, 0 },
	{ "S", 'S', T_STR, "char [] or string (or use stringof)", 0, 0 },
	{ "T", 'T', T_INT, "int64_t", 0, 0 },
	{ "u", 'u', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "x", 'x', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "X", 'X', T_INT, "char, short, int, long, or long long", 0, 0 },
	{ "Y", 'Y', T_INT, "int64_t", 0, 0 },
	{ "%", '%', T_ANY, "void", 0, 0 },
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
struct pfmt *d_pf_create(struct parser *ps, const char *s,
			      const struct tok *at, const char *func)
{
	struct pfmt *pf = d_ar_alloc(&ps->prog->pool, sizeof(*pf));
	const char *p, *q;
	struct pfseg *seg = NULL;
	unsigned n = 0;

	pf->fmt = d_pool_strndup(ps, s, strlen(s));
	if (!*s)
		d_perrt(ps, D_PRINTF_FMT_EMPTY, at->line, at->col, "%s( ) format string is empty",
		       func);
	for (q = pf->fmt; (p = strchr(q, '%')) != NULL; q = *p ? p + 1 : p) {
		struct pfseg *d;
		char name[8];
		unsigned namelen = 0;
		int digits = 0, dot = 0, c, k;

		seg = d_pool_grow(ps, seg, n, sizeof(*seg));
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
					d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
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
					d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
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
				d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
				       "format conversion #%u uses unsupported "
				       "positional format (%%n$)", n);
			case '%':
				if (p[-1] == '%')
					break;
				d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
				       "format conversion #%u cannot be "
				       "combined with other format flags: %%%%",
				       n);
			case '\0':
				d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
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
			d_perrt(ps, D_PRINTF_FMT, at->line, at->col,
			       "format conversion #%u is undefined: %%%s", n,
			       name);
		}
		memcpy(d->name, name, namelen + 1);
		d->conv = pfconvs[k].conv;
	}
	if (*q) {
		seg = d_pool_grow(ps, seg, n, sizeof(*seg));
		seg[n].prefix = q;
		seg[n].preflen = strlen(q);
		n++;
	}
	pf->seg = seg;
	pf->nseg = n;
	return pf;
}

/*
 * The C integer type of an expression as the compiler knows it before
 * run time, for a conversion with a size prefix: a literal's, a cast's
 * (the cast narrows the value at run time to just that: run.c), a
 * declared variable's (stores narrow to it), argN's (int64_t), the
 * timestamps' (uint64_t), pid's and tid's (int), unary - ~ + of one
 * of those (C's promotion to int), and ?: of two of those (the type
 * check.c gave it; of one type, that type).  False for the rest (an
 * undeclared variable's value, whose type is that of whatever was last
 * stored; args[N], typed per probe; a function's result; binary
 * operators and comparisons, whose C conversions are not modelled): there l
 * and ll print the 64-bit value, h and hh refuse rather than guess, and
 * a cast decides it.  A key of a later compile unit (another
 * d_compile()) is not seen by a printa() checked before it; it prints at
 * its own size.
 */
bool d_int_type(const struct d_prog *p, const struct node *n, uint8_t *sz,
		uint8_t *sg)
{
	const struct var *v;
	uint8_t cz, cg;

	switch (n->op) {
	case N_TERN:
		if (n->sz) {
			*sz = n->sz;
			*sg = n->sg;
			return true;
		}
		return d_int_type(p, n->b, sz, sg) &&
		       d_int_type(p, n->c, &cz, &cg) && cz == *sz && cg == *sg;
	case N_INT:
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_CAST:
		if (n->ptr || n->sou)
			return false;
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_ARGN:
		*sz = 8;
		*sg = 1;
		return true;
	case N_BUILTIN: /* as run.c's builtin() gives them */
		switch (d_builtins[n->sub].id) {
		case B_TIMESTAMP:
		case B_VTIMESTAMP:
		case B_WALLTIMESTAMP:
			*sz = 8;
			*sg = 0;
			return true;
		case B_PID:
		case B_TID:
			*sz = 4;
			*sg = 1;
			return true;
		default:
			return false;
		}
	case N_VAR:
		v = &p->vars[n->sub];
		if (!v->declared || v->kind != T_INT || v->ptr || v->sou ||
		    !v->sz)
			return false;
		*sz = v->sz;
		*sg = v->sg;
		return true;
	case N_UN:
		if ((n->sub != '-' && n->sub != '~' && n->sub != '+') ||
		    !d_int_type(p, n->a, sz, sg))
			return false;
		if (*sz < 4) {
			*sz = 4;
			*sg = 1;
		}
		return true;
	default:
		return false;
	}
}

static const char *pf_int_name(uint8_t sz, uint8_t sg)
{
	switch (sz) {
	case 1:
		return sg ? "char" : "unsigned char";
	case 2:
		return sg ? "short" : "unsigned short";
	case 4:
		return sg ? "int" : "unsigned int";
	default:
		return sg ? "int64_t" : "uint64_t";
	}
}

/*
 * printa(): the type of aggregation agg's key j, where every statement
 * aggregating into it gives that key one type d_int_type() knows;
 * false where one does not, or two differ.
 */
static bool pf_key_type(const struct d_prog *p, const struct stmt *v,
			unsigned n, unsigned agg, unsigned j, bool *seen,
			uint8_t *sz, uint8_t *sg)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];
		uint8_t z, g;

		if (st->kind == S_IF) {
			if (!pf_key_type(p, st->body, st->nbody, agg, j, seen,
					 sz, sg) ||
			    !pf_key_type(p, st->els, st->nels, agg, j, seen, sz,
					 sg))
				return false;
			continue;
		}
		if (st->kind != S_AGG || st->agg != agg || j >= st->nkeys)
			continue;
		if (!d_int_type(p, st->keys[j], &z, &g) ||
		    (*seen && (z != *sz || g != *sg)))
			return false;
		*seen = true;
		*sz = z;
		*sg = g;
	}
	return true;
}

/* ... over the clauses compiled before and those of this unit */
static bool pf_keys_type(const struct parser *ps, unsigned agg, unsigned j,
			 uint8_t *sz, uint8_t *sg)
{
	const struct d_prog *p = ps->prog;
	bool seen = false;
	unsigned c;

	for (c = 0; c < p->nclauses; c++)
		if (!pf_key_type(p, p->clauses[c].stmts, p->clauses[c].nstmts,
				 agg, j, &seen, sz, sg))
			return false;
	for (c = 0; c < ps->ncl; c++)
		if (!pf_key_type(p, ps->cl[c].stmts, ps->cl[c].nstmts, agg, j,
				 &seen, sz, sg))
			return false;
	return seen;
}

/*
 * DTrace's refusal (dt_printf_validate()'s D_PRINTF_ARG_TYPE) of
 * conversion #conv, pfconvs[k], for an argument of type type: what and
 * num name it ("argument", 2; "key", 1; "aggregating action", 0: no
 * number).
 */
static void pf_incompatible(struct parser *ps, int k, const char *type,
			    const char *func, const char *what, unsigned num,
			    unsigned conv, const struct tok *at)
{
	char n[16] = "";

	if (num)
		snprintf(n, sizeof(n), " #%u", num);
	d_perrt(ps, D_PRINTF_ARG_TYPE, at->line, at->col,
		"%s( ) %s%s is incompatible with conversion #%u "
		"prototype:\n\tconversion: %%%s\n\t prototype: %s"
		"\n\t  argument: %s",
		func, what, n, conv, pfconvs[k].name, pfconvs[k].proto, type);
}

/* An aggregation's value type as DTrace names it: count()'s unsigned. */
static const char *agg_vtype(const struct parser *ps, unsigned agg)
{
	return ps->prog->aggs[agg].fn == AG_COUNT ? "uint64_t" : "int64_t";
}

/*
 * A conversion with a size prefix (pfconvs[k].isz) and its argument, of
 * type sz and sg where known: refused where that is not the prototype's;
 * where the compiler cannot tell it, refused for h and hh only (every
 * value is 64 bits wide, so l and ll print it whole).  what and num name
 * the argument in the message ("argument", 2), conv the conversion's
 * number.
 */
static void pf_check_size(struct parser *ps, int k, bool known, uint8_t sz,
			  uint8_t sg, const char *func, const char *what,
			  unsigned num, unsigned conv, const struct tok *at)
{
	if (!pfconvs[k].isz || (!known && pfconvs[k].isz == 8))
		return;
	if (!known)
		d_perrt(ps, D_PRINTF_ARG_TYPE, at->line, at->col,
			"%s( ) %s #%u has a type not known at compile time, "
			"and conversion #%u (%%%s) takes %s only: cast it, as "
			"in (%s)x",
			func, what, num, conv, pfconvs[k].name,
			pfconvs[k].proto, pfconvs[k].proto);
	if (sz != pfconvs[k].isz ||
	    (pfconvs[k].isg != PF_SG_ANY && sg != pfconvs[k].isg))
		pf_incompatible(ps, k, pf_int_name(sz, sg), func, what, num,
				conv, at);
}

/*
 * Check a format against its arguments (dt_printf_validate()): every
 * conversion needs an argument of a compatible kind, '*' needs an
 * integer; printf() may not have extra arguments.  keys: for printa(),
 * the kinds of the aggregation's keys (NULL when unknown yet), and nargs
 * the number of aggregations, one per %@ at most.  A conversion with a
 * size prefix refuses an argument (printa(): a key of aggregation agg's)
 * of another type than its prototype's, and h and hh one of a type not
 * known at compile time (pf_check_size()).  %c and %C take a char, short
 * or int (dt_printf.c's pfcheck_csi()): an argument the compiler knows to
 * be wider (arg0, timestamp, a cast to a 64-bit type) is refused as
 * DTrace refuses it, not printed as its low byte; one whose type it
 * cannot tell prints its low byte, as C's %c prints an int's.  %@c and
 * %@C, an aggregation's 64-bit value, are refused too.
 */
void d_pf_validate(struct parser *ps, struct pfmt *pf, const char *func,
		   struct node **args, unsigned nargs, const int *keys,
		   unsigned nkeys, bool printa, unsigned agg,
		   const struct tok *at)
{
	unsigned i, j = 0, naggs = 0;
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
				d_perrt(ps, D_PRINTF_ARG_PROTO, at->line, at->col,
				       "%s( ) prototype mismatch: conversion "
				       "#%u (%%%s) is missing a corresponding "
				       "\"%s\" argument",
				       func, i + 1, d->name, dyn ? ".*" : "*");
			got = printa ? (keys ? keys[j] : T_ANY)
				     : args[j]->kind;
			if (got == T_STR)
				d_perrt(ps, D_PRINTF_ARG_TYPE, at->line, at->col,
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
				d_perrt(ps, D_PRINTF_AGG_CONV, at->line, at->col,
				       "%%@ conversion requires an aggregation "
				       "and is not for use with %s( )", func);
			/* printa(): nargs is the number of aggregations */
			if (++naggs > nargs)
				d_perrt(ps, D_PRINTF_ARG_PROTO, at->line, at->col,
				       "%s( ) prototype mismatch: conversion "
				       "#%u (%%@%s) is missing a corresponding "
				       "aggregation argument",
				       func, i + 1, d->name);
			/* pfcheck_csi(): the value is 64 bits, DTrace's
			 * uint64_t for count(), int64_t for the rest
			 * (the first aggregation's, as dt_printf_validate()
			 * types it) */
			if (d->conv == 'c' || d->conv == 'C')
				pf_incompatible(ps, k, agg_vtype(ps, agg), func,
						"aggregating action", 0, i + 1,
						at);
			continue;
		}
		if (j >= navail)
			d_perrt(ps, D_PRINTF_ARG_PROTO, at->line, at->col,
			       "%s( ) prototype mismatch: conversion #%u (%%%s) "
			       "is missing a corresponding value argument",
			       func, i + 1, d->name);
		got = printa ? (keys ? keys[j] : T_ANY) : args[j]->kind;
		want = pfconvs[k].argkind;
		if (got != T_ANY && want != T_ANY && got != want)
			pf_incompatible(ps, k, d_kind_name(got), func,
					printa ? "key" : "argument",
					printa ? j + 1 : j + 2, i + 1, at);
		if (pfconvs[k].isz || d->conv == 'c' || d->conv == 'C') {
			uint8_t sz = 0, sg = 0;
			bool known;

			if (printa) {
				known = pf_keys_type(ps, agg, j, &sz, &sg);
			} else {
				known = d_int_type(ps->prog, args[j], &sz, &sg);
			}
			if (pfconvs[k].isz)
				pf_check_size(ps, k, known, sz, sg, func,
					      printa ? "key" : "argument",
					      printa ? j + 1 : j + 2, i + 1,
					      at);
			else if (known && sz > 4) /* pfcheck_csi() */
				pf_incompatible(
					ps, k, pf_int_name(sz, sg), func,
					printa ? "key" : "argument",
					printa ? j + 1 : j + 2, i + 1, at);
		}
		j++;
	}
	if (!printa && j < nargs)
		d_perrt(ps, D_PRINTF_ARG_EXTRA, at->line, at->col,
		       "%s( ) prototype mismatch: only %u arguments required "
		       "by this format string", func, j);
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
			d_sb_puts(sb, "\\0");
			return;
		case '\a':
			d_sb_puts(sb, "\\a");
			break;
		case '\b':
			d_sb_puts(sb, "\\b");
			break;
		case '\f':
			d_sb_puts(sb, "\\f");
			break;
		case '\n':
			d_sb_puts(sb, "\\n");
			break;
		case '\r':
			d_sb_puts(sb, "\\r");
			break;
		case '\t':
			d_sb_puts(sb, "\\t");
			break;
		case '\v':
			d_sb_puts(sb, "\\v");
			break;
		case '"':
			d_sb_puts(sb, "\\\"");
			break;
		case '\\':
			d_sb_puts(sb, "\\\\");
			break;
		case ' ':
			d_sb_add(sb, &c, 1);
			break;
		default:
			if (c < '!' || c > '~') {
				b[0] = '\\';
				b[1] = (char)(((c >> 6) & 3) + '0');
				b[2] = (char)(((c >> 3) & 7) + '0');
				b[3] = (char)((c & 7) + '0');
				b[4] = '\0';
				d_sb_puts(sb, b);
			} else {
				d_sb_add(sb, &c, 1);
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
void d_pf_one(struct sbuf *sb, const struct pfseg *d, int width,
		   int prec, const struct dv *v, bool escape)
{
	char *safe = NULL;
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

	if (conv == 'k' || (conv == 's' && val.show == DV_STACK)) {
		d_stack_print_k(sb, d, width, &val); /* stack.c */
		return;
	}
	switch (conv) {
	case 's':
	case 'S':
		if (val.k == K_STR)
			sarg = conv == 's' ? d_out_str(&val, escape, &safe)
					   : val.s;
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
		/* a name from d_stack_addr(), or an address not named */
		if (val.k == K_STR) {
			sarg = d_out_str(&val, escape, &safe);
			break;
		}
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
		d_sb_printf(sb, fmt, sarg);
		free(esc.b);
		free(safe);
		return;
	}
	if (val.k == K_STR) /* args[N] of string type with %d: its address */
		val = d_dv_int(0, 8, false);
	switch (conv) {
	case 'c':
		if (escape && val.tn) {
			/* a byte of a traced process's: made safe as %s is */
			char c[2] = {(char)val.i, '\0'};

			if (!c[0]) {
				strcpy(f, "c");
				d_sb_printf(sb, fmt, 0);
				return;
			}
			strcpy(f, "s");
			d_sb_printf(sb, fmt, txt_safe(c, tmp, sizeof(tmp)));
			return;
		}
		strcpy(f, "c");
		d_sb_printf(sb, fmt, (int)(int32_t)val.i);
		return;
	case 'd':
	case 'i':
		if (conv == 'i' || val.sg) {
			if (val.sz == 8) {
				strcpy(f, "lli");
				d_sb_printf(sb, fmt, (long long)val.i);
			} else {
				strcpy(f, "i");
				d_sb_printf(sb, fmt, (int)val.i);
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
		d_sb_printf(sb, fmt, (unsigned long long)val.i);
	} else {
		f[0] = conv;
		f[1] = '\0';
		d_sb_printf(sb, fmt, (unsigned)(uint64_t)val.i &
					   (val.sz == 4   ? 0xffffffffu
					    : val.sz == 2 ? 0xffffu
							  : 0xffu));
	}
}

#pragma GCC diagnostic pop
