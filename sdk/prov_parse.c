// SPDX-License-Identifier: MIT
/*
 * prov_parse.c - lexer and parser for D provider definitions.
 *
 * The accepted language is the provider subset of D:
 *
 *	file	 := { pragma | typedef | tagdecl | provider | clause | ";" }
 *	pragma	 := "#pragma D attributes" N/D/C "provider" NAME WHAT
 *		  | "#pragma D option ..." | "#pragma D depends_on ..." (ignored)
 *	typedef	 := "typedef" type NAME ";"
 *	tagdecl	 := ("struct" | "union" | "enum") TAG [ "{" ... "}" ] ";"
 *	provider := "provider" NAME "{" { probe } "}" [ ";" ]
 *	probe	 := "probe" NAME "(" params ")" [ ":" "(" params ")" ] ";"
 *	params	 := [ "void" | param { "," param } ]
 *	param	 := type [ NAME ]
 *	clause	 := DESC { "," DESC } [ "/" predicate "/" ] "{" ... "}"
 *
 * A provider without its closing `;` (sssd's) is accepted with a warning.
 * Clauses are skipped with their braces balanced (strings and character
 * constants may hold braces), so a configure probe holding only `BEGIN{}`
 * is accepted exactly as DTrace accepts it.  `inline` and `translator`
 * definitions are skipped the same way.
 *
 * The tokens come from prov_lex.c (which also formats every diagnostic)
 * and the C types of parameters and typedefs are read by
 * prov_parse_type.c; the parser's state is in prov_impl.h.
 *
 * Invariants: every diagnostic carries the position of the token at fault;
 * on any error the partly built model is freed and nothing is returned.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "prov.h"
#include "prov_impl.h"

/* Attributes of a provider that no #pragma D attributes mentions. */
static const struct prov_attr default_attr = {
	PROV_STAB_PRIVATE, PROV_STAB_PRIVATE, PROV_CLASS_UNKNOWN,
};

/* ----------------------------------------------------------------------
 * Declarations
 */

static int parse_typedef(struct parser *ps)
{
	struct prov_type ty;
	struct tok nt = { 0 }, kw = ps->tok;
	struct prov_typedef *nt_arr;
	const struct prov_typedef *old;
	char *name = NULL;
	char b[64];
	int err;

	err = prov_parse_type(ps, &ty, &name, &nt, "in typedef", true);
	if (err)
		return err;
	if (!name) {
		const struct tok *la;

		err = prov_peek(ps, &la);
		if (!err)
			err = prov_err(ps, la, NULL,
				       "expected a name for the typedef, found %s",
				       prov_tokdesc(la, b, sizeof(b)));
		goto fail;
	}
	old = prov_find_typedef(ps->pf, name, strlen(name));
	if (old) {
		if (strcmp(old->type.cname, ty.cname) == 0)
			goto same;
		err = prov_err(ps, &nt, NULL,
			       "typedef '%s' redefined as '%s' (it was '%s' on line %u)",
			       name, ty.dname, old->type.cname, old->line);
		goto fail;
	}
	if (grow_count(&ps->pf->typedefs, ps->pf->typedef_cnt,
		       sizeof(*nt_arr)) < 0) {
		err = prov_nomem(ps);
		goto fail;
	}
	nt_arr = ps->pf->typedefs + ps->pf->typedef_cnt;
	memset(nt_arr, 0, sizeof(*nt_arr));
	nt_arr->file = strdup(kw.file ? kw.file : "");
	if (!nt_arr->file) {
		err = prov_nomem(ps);
		goto fail;
	}
	/* the D spelling of the new type is its own name */
	free(ty.dname);
	ty.dname = strdup(name);
	if (!ty.dname) {
		free(nt_arr->file);
		err = prov_nomem(ps);
		goto fail;
	}
	nt_arr->name = name;
	nt_arr->type = ty;
	nt_arr->line = kw.line;
	ps->pf->typedef_cnt++;
	return prov_expect_punct(ps, ';', "after typedef");
same:
	free(name);
	prov_type_clear(&ty);
	return prov_expect_punct(ps, ';', "after typedef");
fail:
	free(name);
	prov_type_clear(&ty);
	return err;
}

/* Skip a balanced {...} block; the '{' has been taken. */
int prov_skip_block(struct parser *ps, const struct tok *open,
		      const char *what)
{
	unsigned depth = 1;
	int err;

	while (depth) {
		err = prov_next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF)
			return prov_err(ps, &ps->tok, NULL,
					"expected '}' to close %s opened on line %u, found end of file",
					what, open->line);
		if (prov_is_punct(&ps->tok, '{'))
			depth++;
		else if (prov_is_punct(&ps->tok, '}'))
			depth--;
	}
	return 0;
}

/* struct TAG; | struct TAG { ... }; (and union, enum) */
static int parse_tagdecl(struct parser *ps)
{
	struct tok kw = ps->tok;
	const struct tok *la;
	char b[64];
	int err;

	err = prov_peek(ps, &la);
	if (err)
		return err;
	if (la->kind == T_IDENT) {
		prov_next(ps);
		err = prov_peek(ps, &la);
		if (err)
			return err;
	}
	if (prov_is_punct(la, '{')) {
		struct tok open;

		prov_next(ps);
		open = ps->tok;
		err = prov_skip_block(ps, &open, "the type definition");
		if (err)
			return err;
		err = prov_peek(ps, &la);
		if (err)
			return err;
	}
	if (!prov_is_punct(la, ';'))
		return prov_err(ps, la,
				"only forward declarations and definitions of types may appear here",
				"expected ';' after '%.*s' declaration, found %s",
				(int)kw.len, kw.s, prov_tokdesc(la, b, sizeof(b)));
	prov_next(ps);
	return 0;
}

/* inline and translator definitions: skipped up to their ';' */
static int skip_definition(struct parser *ps)
{
	struct tok kw = ps->tok;
	int err;

	for (;;) {
		err = prov_next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF)
			return prov_err(ps, &kw, NULL,
					"'%.*s' definition is not terminated by ';'",
					(int)kw.len, kw.s);
		if (prov_is_punct(&ps->tok, ';'))
			return 0;
		if (prov_is_punct(&ps->tok, '{')) {
			struct tok open = ps->tok;

			err = prov_skip_block(ps, &open, "the definition");
			if (err)
				return err;
		}
	}
}

static bool word_like(const struct tok *t)
{
	return t->kind == T_IDENT || t->kind == T_NUM;
}

/*
 * A D clause: probe descriptions, an optional predicate and a body, all
 * skipped.  Two words side by side with space between them cannot be part
 * of a probe description, so a typo such as `provder foo {` is reported
 * rather than silently taken for a clause.
 */
static int skip_clause(struct parser *ps)
{
	struct tok first = ps->tok, prev = ps->tok;
	const struct tok *la;
	bool pred = false;
	char b[64];
	int err;

	if (!word_like(&first) && !prov_is_punct(&first, ':') &&
	    !prov_is_punct(&first, '*') && !prov_is_punct(&first, '$'))
		return prov_err(ps, &first, NULL,
				"syntax error near %s: expected a provider definition",
				prov_tokdesc(&first, b, sizeof(b)));
	for (;;) {
		err = prov_next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF) {
			if (pred)
				return prov_err(ps, &first, NULL,
						"predicate of clause is not terminated");
			return prov_err(ps, &first, NULL,
					"clause '%.*s' has no body: expected '{'",
					(int)first.len, first.s);
		}
		if (prov_is_punct(&ps->tok, '{') && (!pred || prov_is_punct(&prev, '/')))
			break;
		if (prov_is_punct(&ps->tok, '/'))
			pred = true;
		if (!pred && word_like(&prev) && word_like(&ps->tok) &&
		    prev.s + prev.len != ps->tok.s)
			return prov_err(ps, &ps->tok, NULL,
					"syntax error near %s",
					prov_tokdesc(&ps->tok, b, sizeof(b)));
		prev = ps->tok;
	}
	first.len = (size_t)(prev.s + prev.len - first.s);
	{
		struct tok open = ps->tok;

		err = prov_skip_block(ps, &open, "the clause");
		if (err)
			return err;
	}
	/* an optional ';' may follow a clause */
	err = prov_peek(ps, &la);
	if (!err && prov_is_punct(la, ';'))
		prov_next(ps);
	ps->pf->clause_cnt++;
	return err;
}

static void arg_clear(struct prov_arg *a)
{
	free(a->name);
	prov_type_clear(&a->type);
}

static void probe_clear(struct prov_probe *pr)
{
	for (unsigned i = 0; i < pr->nargc; i++)
		arg_clear(&pr->nargv[i]);
	for (unsigned i = 0; i < pr->xargc; i++)
		arg_clear(&pr->xargv[i]);
	free(pr->nargv);
	free(pr->xargv);
	free(pr->argmap);
	free(pr->name);
	free(pr->pubname);
	free(pr->file);
	memset(pr, 0, sizeof(*pr));
}

/* An argument list "( ... )"; the '(' is the next token. */
static int parse_params(struct parser *ps, const char *probe, bool xlated,
			struct prov_arg **argv, unsigned *argc)
{
	const struct tok *la;
	struct prov_arg *v = NULL;
	unsigned n = 0;
	char ctx[160], b[64];
	int err;

	*argv = NULL;
	*argc = 0;
	err = prov_expect_punct(ps, '(', xlated ? "to open the translated argument list"
					   : "after the probe name");
	if (err)
		return err;
	err = prov_peek(ps, &la);
	if (err)
		return err;
	if (prov_is_punct(la, ')')) {
		prov_next(ps);
		return 0;
	}
	if (prov_is(la, "void")) {
		const struct tok *la2;

		/* `(void)` is an empty list; `(void *p)` is not */
		err = prov_peek_n(ps, 1, &la2);
		if (err)
			return err;
		if (prov_is_punct(la2, ')')) {
			prov_next(ps);
			prov_next(ps);
			return 0;
		}
	}
	for (;;) {
		struct prov_arg a = {0};
		struct tok nt, at;

		err = prov_peek(ps, &la);
		if (err)
			goto fail;
		at = *la;
		snprintf(ctx, sizeof(ctx), "in %sargument %u of probe '%s'",
			 xlated ? "translated " : "", n + 1, probe);
		err = prov_parse_type(ps, &a.type, &a.name, &nt, ctx, false);
		if (err)
			goto fail;
		if (a.type.kind == PROV_K_FLOAT || a.type.kind == PROV_K_STRUCT ||
		    a.type.kind == PROV_K_VOID) {
			const char *what = a.type.kind == PROV_K_FLOAT ?
				"floating-point type" : a.type.kind == PROV_K_VOID ?
				"type" : a.type.tag_is_union ? "union" : "struct";
			const char *hint = a.type.kind == PROV_K_FLOAT ?
				"floating-point arguments travel in SSE registers, which uprobe consumers cannot read; pass a scaled integer instead" :
				a.type.kind == PROV_K_VOID ?
				"a probe with no arguments is written 'probe name()' or 'probe name(void)'" :
				"pass a pointer to it instead";

			err = prov_err(ps, &at, hint, "%s '%s' cannot be passed by value %s",
				       what, a.type.dname, ctx);
			arg_clear(&a);
			goto fail;
		}
		if (n == PROV_ARGS_MAX) {
			err = prov_err(ps, &at,
				       "pass a pointer to a structure that holds the rest",
				       "probe '%s' has more than %d arguments", probe,
				       PROV_ARGS_MAX);
			arg_clear(&a);
			goto fail;
		}
		if (grow_count(&v, n, sizeof(*v)) < 0) {
			arg_clear(&a);
			err = prov_nomem(ps);
			goto fail;
		}
		v[n++] = a;
		err = prov_next(ps);
		if (err)
			goto fail;
		if (prov_is_punct(&ps->tok, ')'))
			break;
		if (!prov_is_punct(&ps->tok, ',')) {
			err = prov_err(ps, &ps->tok, NULL,
				       "expected ',' or ')' in the argument list of probe '%s', found %s",
				       probe, prov_tokdesc(&ps->tok, b, sizeof(b)));
			goto fail;
		}
	}
	*argv = v;
	*argc = n;
	return 0;
fail:
	for (unsigned i = 0; i < n; i++)
		arg_clear(&v[i]);
	free(v);
	return err;
}

/* Match each translated argument to a native one: by name, else position. */
static int map_xargs(struct parser *ps, struct prov_probe *pr,
		     const struct tok *at)
{
	pr->argmap = prov_calloc(pr->xargc, 1);
	if (!pr->argmap)
		return prov_nomem(ps);
	for (unsigned i = 0; i < pr->xargc; i++) {
		const char *xn = pr->xargv[i].name;
		unsigned j;

		if (xn) {
			for (j = 0; j < pr->nargc; j++)
				if (pr->nargv[j].name &&
				    strcmp(pr->nargv[j].name, xn) == 0)
					break;
			if (j == pr->nargc)
				return prov_err(ps, at,
						"name the native argument the same way, or leave the translated argument unnamed to map it by position",
						"translated argument %u '%s' of probe '%s' matches no native argument",
						i + 1, xn, pr->name);
		} else {
			j = i;
			if (j >= pr->nargc)
				return prov_err(ps, at, NULL,
						"translated argument %u of probe '%s' has no native argument %u to map to",
						i + 1, pr->name, i + 1);
		}
		pr->argmap[i] = (uint8_t)j;
	}
	return 0;
}

/* The name after the keyword kw ("probe", "provider"), in *name. */
static int next_name(struct parser *ps, const char *kw, struct tok *name)
{
	char b[64];
	int err = prov_next(ps);

	if (err)
		return err;
	if (ps->tok.kind != T_IDENT)
		return prov_err(ps, &ps->tok, NULL,
				"expected a %s name after '%s', found %s", kw,
				kw, prov_tokdesc(&ps->tok, b, sizeof(b)));
	*name = ps->tok;
	return 0;
}

static int parse_probe(struct parser *ps, struct prov_provider *pv)
{
	struct prov_probe pr = {0};
	const struct prov_probe *dup;
	struct tok nametok, xat;
	const struct tok *la;
	char pub[PROV_PROBE_NAME_MAX + 16];
	int err;

	err = next_name(ps, "probe", &nametok);
	if (err)
		return err;
	pr.name = prov_strndup(nametok.s, nametok.len);
	pr.file = strdup(nametok.file ? nametok.file : "");
	if (!pr.name || !pr.file) {
		err = prov_nomem(ps);
		goto fail;
	}
	pr.line = nametok.line;
	pr.col = nametok.col;
	if (prov_pubname(pr.name, pub, PROV_PROBE_NAME_MAX) < 0) {
		err = prov_err(ps, &nametok, NULL,
			       "probe name '%s' is too long (at most %d characters)",
			       pr.name, PROV_PROBE_NAME_MAX - 1);
		goto fail;
	}
	pr.pubname = strdup(pub);
	if (!pr.pubname) {
		err = prov_nomem(ps);
		goto fail;
	}
	dup = prov_find_probe(pv, pr.name);
	if (dup) {
		err = prov_err(ps, &nametok, NULL,
			       "probe '%s' is declared twice in provider '%s' (first on line %u)",
			       pr.name, pv->name, dup->line);
		goto fail;
	}
	err = parse_params(ps, pr.name, false, &pr.nargv, &pr.nargc);
	if (err)
		goto fail;
	err = prov_peek(ps, &la);
	if (err)
		goto fail;
	if (prov_is_punct(la, ':')) {
		prov_next(ps);
		err = prov_peek(ps, &la);
		if (err)
			goto fail;
		xat = *la;
		err = parse_params(ps, pr.name, true, &pr.xargv, &pr.xargc);
		if (err)
			goto fail;
		pr.has_xargs = true;
		err = map_xargs(ps, &pr, &xat);
		if (err)
			goto fail;
	} else {
		pr.xargc = pr.nargc;
		pr.xargv = prov_calloc(pr.nargc, sizeof(*pr.xargv));
		pr.argmap = prov_calloc(pr.nargc, 1);
		if (!pr.xargv || !pr.argmap) {
			err = prov_nomem(ps);
			goto fail;
		}
		for (unsigned i = 0; i < pr.nargc; i++) {
			pr.argmap[i] = (uint8_t)i;
			if (prov_type_copy(&pr.xargv[i].type, &pr.nargv[i].type) ||
			    (pr.nargv[i].name &&
			     !(pr.xargv[i].name = strdup(pr.nargv[i].name)))) {
				err = prov_nomem(ps);
				goto fail;
			}
		}
	}
	{
		char what[PROV_PROBE_NAME_MAX + 48];

		snprintf(what, sizeof(what),
			 "after the declaration of probe '%s'", pr.name);
		err = prov_expect_punct(ps, ';', what);
		if (err)
			goto fail;
	}
	if (grow_count(&pv->probes, pv->probe_cnt, sizeof(*pv->probes)) < 0) {
		err = prov_nomem(ps);
		goto fail;
	}
	pv->probes[pv->probe_cnt++] = pr;
	return 0;
fail:
	probe_clear(&pr);
	return err;
}

static void provider_clear(struct prov_provider *pv)
{
	for (unsigned i = 0; i < pv->probe_cnt; i++)
		probe_clear(&pv->probes[i]);
	free(pv->probes);
	free(pv->name);
	free(pv->file);
	memset(pv, 0, sizeof(*pv));
}

static int __attribute__((format(printf, 3, 4)))
pwarn(struct parser *ps, const struct tok *t, const char *fmt, ...);

static int parse_provider(struct parser *ps)
{
	struct prov_provider pv = {0};
	const struct prov_provider *dup;
	struct tok nametok, open;
	char b[64];
	int err;

	err = next_name(ps, "provider", &nametok);
	if (err)
		return err;
	if (isdigit((unsigned char)nametok.s[nametok.len - 1]))
		return prov_err(ps, &nametok,
				"consumers name a process's provider by appending its pid (myapp1234), so a trailing digit would be ambiguous",
				"provider name '%.*s' must not end with a digit",
				(int)nametok.len, nametok.s);
	if (nametok.len + PROV_PID_DIGITS >= PROV_NAME_MAX)
		return prov_err(ps, &nametok, NULL,
				"provider name '%.*s' is too long (at most %d characters, leaving room for a pid)",
				(int)nametok.len, nametok.s,
				PROV_NAME_MAX - PROV_PID_DIGITS - 1);
	pv.name = prov_strndup(nametok.s, nametok.len);
	pv.file = strdup(nametok.file ? nametok.file : "");
	if (!pv.name || !pv.file) {
		err = prov_nomem(ps);
		goto fail;
	}
	pv.line = nametok.line;
	pv.col = nametok.col;
	for (unsigned i = 0; i < PROV_ATTR_CNT; i++)
		pv.attr[i] = default_attr;
	dup = prov_find_provider(ps->pf, pv.name);
	if (dup) {
		err = prov_err(ps, &nametok, NULL,
			       "provider '%s' is defined twice (first on line %u)",
			       pv.name, dup->line);
		goto fail;
	}
	err = prov_expect_punct(ps, '{', "after the provider name");
	if (err)
		goto fail;
	open = ps->tok;
	for (;;) {
		err = prov_next(ps);
		if (err)
			goto fail;
		if (prov_is_punct(&ps->tok, '}'))
			break;
		if (prov_is_punct(&ps->tok, ';'))
			continue;
		if (prov_is(&ps->tok, "probe")) {
			err = parse_probe(ps, &pv);
			if (err)
				goto fail;
			continue;
		}
		if (ps->tok.kind == T_EOF)
			err = prov_err(ps, &ps->tok, NULL,
				       "expected '}' to close provider '%s' (opened on line %u), found end of file",
				       pv.name, open.line);
		else
			err = prov_err(ps, &ps->tok, NULL,
				       "expected 'probe' or '}' in provider '%s', found %s",
				       pv.name, prov_tokdesc(&ps->tok, b, sizeof(b)));
		goto fail;
	}
	/*
	 * sssd's provider file ends `}` without the `;`; systemtap's dtrace
	 * reads it line by line and never asks for one.  Accepted, with a
	 * warning where the `;` belongs.
	 */
	{
		const struct tok *la;
		struct tok close = ps->tok;

		err = prov_peek(ps, &la);
		if (err)
			goto fail;
		if (prov_is_punct(la, ';'))
			err = prov_next(ps);
		else
			err = pwarn(ps, &close,
				    "provider '%s' is closed without ';' after its '}'; accepted, as systemtap's dtrace does",
				    pv.name);
		if (err)
			goto fail;
	}
	if (grow_count(&ps->pf->providers, ps->pf->provider_cnt,
		       sizeof(*ps->pf->providers)) < 0) {
		err = prov_nomem(ps);
		goto fail;
	}
	ps->pf->providers[ps->pf->provider_cnt++] = pv;
	return 0;
fail:
	provider_clear(&pv);
	return err;
}

/* ----------------------------------------------------------------------
 * #pragma D
 */

static int lookup_name(const char *w, size_t n, const char *(*name)(unsigned),
		       unsigned max)
{
	for (unsigned v = 0; v <= max; v++) {
		const char *s = name(v);

		if (strlen(s) == n && strncasecmp(s, w, n) == 0)
			return (int)v;
	}
	return -1;
}

/* Split the next whitespace-separated word of a pragma. */
static bool pragma_word(const char **p, const char *end, const char **w,
			size_t *n)
{
	while (*p < end && isspace((unsigned char)**p))
		(*p)++;
	*w = *p;
	while (*p < end && !isspace((unsigned char)**p))
		(*p)++;
	*n = (size_t)(*p - *w);
	return *n > 0;
}

static int parse_pragma(struct parser *ps)
{
	static const char *const whats[PROV_ATTR_CNT] = {
		"provider", "module", "function", "name", "args",
	};
	const struct tok *t = &ps->tok;
	const char *p = t->s, *end = t->s + t->len, *w;
	const char *hint = "the form is '#pragma D attributes Name/Data/Class provider NAME provider|module|function|name|args'";
	struct pending_attr pa = {0};
	size_t n;
	int v;

	if (!pragma_word(&p, end, &w, &n) || n != 1 || *w != 'D')
		return 0;			/* not ours: ignore */
	if (!pragma_word(&p, end, &w, &n))
		return prov_err(ps, t, NULL, "empty '#pragma D' directive");
	if ((n == 6 && memcmp(w, "option", 6) == 0) ||
	    (n == 10 && memcmp(w, "depends_on", 10) == 0) ||
	    (n == 7 && memcmp(w, "binding", 7) == 0))
		return 0;
	if (n != 10 || memcmp(w, "attributes", 10) != 0)
		return prov_err(ps, t, NULL, "unknown control directive '#pragma D %.*s'",
				(int)n, w);

	/*
	 * Name[/Data[/Class]]: fields left out are the most stable values,
	 * Standard/Standard/Common, as in DTrace.
	 */
	if (!pragma_word(&p, end, &w, &n))
		return prov_err(ps, t, hint, "#pragma D attributes needs attributes");
	pa.attr.name = pa.attr.data = PROV_STAB_STANDARD;
	pa.attr.dclass = PROV_CLASS_COMMON;
	{
		const char *f = w, *wend = w + n;

		for (unsigned i = 0; f <= wend; i++) {
			const char *e = memchr(f, '/', (size_t)(wend - f));

			if (!e)
				e = wend;
			if (i == 3)
				return prov_err(ps, t, hint,
						"invalid attributes '%.*s': more than three fields",
						(int)n, w);
			if (i < 2)
				v = lookup_name(f, (size_t)(e - f),
						prov_stability_name, PROV_STAB_MAX);
			else
				v = lookup_name(f, (size_t)(e - f),
						prov_class_name, PROV_CLASS_MAX);
			if (v < 0 && i < 2)
				return prov_err(ps, t,
						"stability levels are Internal, Private, Obsolete, External, Unstable, Evolving, Stable and Standard",
						"invalid stability level '%.*s' in #pragma D attributes",
						(int)(e - f), f);
			if (v < 0)
				return prov_err(ps, t,
						"dependency classes are Unknown, CPU, Platform, Group, ISA and Common",
						"invalid dependency class '%.*s' in #pragma D attributes",
						(int)(e - f), f);
			if (i == 0)
				pa.attr.name = (uint8_t)v;
			else if (i == 1)
				pa.attr.data = (uint8_t)v;
			else
				pa.attr.dclass = (uint8_t)v;
			f = e + 1;
		}
	}

	if (!pragma_word(&p, end, &w, &n) || n != 8 ||
	    memcmp(w, "provider", 8) != 0)
		return prov_err(ps, t, hint,
				"#pragma D attributes applies only to a provider");
	if (!pragma_word(&p, end, &w, &n))
		return prov_err(ps, t, hint, "#pragma D attributes needs a provider name");
	pa.provider = prov_strndup(w, n);
	if (!pa.provider)
		return prov_nomem(ps);
	if (!pragma_word(&p, end, &w, &n)) {
		free(pa.provider);
		return prov_err(ps, t, hint,
				"#pragma D attributes needs what it applies to");
	}
	for (v = 0; v < PROV_ATTR_CNT; v++)
		if (strlen(whats[v]) == n && memcmp(whats[v], w, n) == 0)
			break;
	if (v == PROV_ATTR_CNT) {
		free(pa.provider);
		return prov_err(ps, t, hint, "invalid attribute target '%.*s'",
				(int)n, w);
	}
	pa.which = (enum prov_attr_which)v;
	pa.at = *t;
	if (grow_count(&ps->attrs, ps->attr_cnt, sizeof(*ps->attrs)) < 0) {
		free(pa.provider);
		return prov_nomem(ps);
	}
	ps->attrs[ps->attr_cnt++] = pa;
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
pwarn(struct parser *ps, const struct tok *t, const char *fmt, ...)
{
	char msg[600], *full;
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->file && strcmp(t->file, ps->pf->path) != 0)
		n = asprintf(&full, "%s: line %u: %s", t->file, t->line, msg);
	else
		n = asprintf(&full, "line %u: %s", t->line, msg);
	if (n < 0)
		return prov_nomem(ps);
	if (grow_count(&ps->pf->warnings, ps->pf->warning_cnt,
		       sizeof(*ps->pf->warnings)) < 0) {
		free(full);
		return prov_nomem(ps);
	}
	ps->pf->warnings[ps->pf->warning_cnt++] = full;
	return 0;
}

/*
 * Attributes may be given before or after the provider they name.  DTrace
 * quietly drops a pragma naming a provider the file does not define; so
 * do we, but we say so.
 */
static int apply_pragmas(struct parser *ps)
{
	for (unsigned i = 0; i < ps->attr_cnt; i++) {
		struct pending_attr *pa = &ps->attrs[i];
		struct prov_provider *pv = (struct prov_provider *)
			prov_find_provider(ps->pf, pa->provider);
		int err;

		if (pv) {
			pv->attr[pa->which] = pa->attr;
			continue;
		}
		err = pwarn(ps, &pa->at,
			    "#pragma D attributes names provider '%s', which this file does not define; ignored",
			    pa->provider);
		if (err)
			return err;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Top level
 */

void prov_file_free(struct prov_file *pf)
{
	if (!pf)
		return;
	for (unsigned i = 0; i < pf->provider_cnt; i++)
		provider_clear(&pf->providers[i]);
	for (unsigned i = 0; i < pf->typedef_cnt; i++) {
		free(pf->typedefs[i].name);
		free(pf->typedefs[i].file);
		prov_type_clear(&pf->typedefs[i].type);
	}
	for (unsigned i = 0; i < pf->warning_cnt; i++)
		free(pf->warnings[i]);
	free(pf->warnings);
	free(pf->providers);
	free(pf->typedefs);
	free(pf->path);
	free(pf);
}

static int parse_all(struct parser *ps)
{
	int err;

	for (;;) {
		err = prov_next(ps);
		if (err)
			return err;
		switch (ps->tok.kind) {
		case T_EOF:
			/*
			 * An empty file (or one of comments only) declares no
			 * provider: QEMU writes such files for trace groups
			 * without events and runs -h and -G on them, so they
			 * give an empty header and an object with nothing in it.
			 */
			return apply_pragmas(ps);
		case T_PRAGMA:
			err = parse_pragma(ps);
			break;
		default:
			if (prov_is(&ps->tok, "provider"))
				err = parse_provider(ps);
			else if (prov_is(&ps->tok, "typedef"))
				err = parse_typedef(ps);
			else if (prov_is(&ps->tok, "struct") || prov_is(&ps->tok, "union") ||
				 prov_is(&ps->tok, "enum"))
				err = parse_tagdecl(ps);
			else if (prov_is(&ps->tok, "inline") ||
				 prov_is(&ps->tok, "translator"))
				err = skip_definition(ps);
			else if (prov_is(&ps->tok, "probe")) {
				char b[64];

				err = prov_err(ps, &ps->tok, NULL,
					       "syntax error near %s: probes are declared inside 'provider NAME { ... };'",
					       prov_tokdesc(&ps->tok, b, sizeof(b)));
			} else if (prov_is_punct(&ps->tok, ';'))
				err = 0;
			else
				err = skip_clause(ps);
			break;
		}
		if (err)
			return err;
	}
}

int prov_parse_buf(const char *name, const char *buf, size_t len,
		   struct prov_file **out, struct prov_diag *diag)
{
	struct parser ps = { 0 };
	int err;

	memset(diag, 0, sizeof(*diag));
	*out = NULL;
	ps.buf = ps.p = ps.linestart = buf;
	ps.end = buf + len;
	ps.line = 1;
	ps.bol = true;
	ps.diag = diag;
	ps.pf = prov_calloc(1, sizeof(*ps.pf));
	if (!ps.pf)
		return prov_nomem(&ps);
	ps.pf->path = strdup(name);
	ps.file = ps.pf->path ? prov_intern_file(&ps, name, strlen(name)) : NULL;
	if (!ps.file) {
		prov_file_free(ps.pf);
		return prov_nomem(&ps);
	}
	err = parse_all(&ps);
	for (unsigned i = 0; i < ps.attr_cnt; i++)
		free(ps.attrs[i].provider);
	free(ps.attrs);
	/* diagnostics hold copies of file names, so these can go */
	for (unsigned i = 0; i < ps.file_cnt; i++)
		free(ps.files[i]);
	free(ps.files);
	if (err) {
		prov_file_free(ps.pf);
		return err;
	}
	*out = ps.pf;
	return 0;
}

int prov_parse_file(const char *path, const struct prov_opts *opts,
		    struct prov_file **out, struct prov_diag *diag)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	memset(diag, 0, sizeof(*diag));
	*out = NULL;
	if (opts && opts->cpp)
		err = prov_run_cpp(path, opts, &buf, &len, diag);
	else
		err = prov_read_file(path, &buf, &len, diag);
	if (err)
		return err;
	err = prov_parse_buf(path, buf, len, out, diag);
	free(buf);
	return err;
}
