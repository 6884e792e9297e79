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
 *	provider := "provider" NAME "{" { probe } "}" ";"
 *	probe	 := "probe" NAME "(" params ")" [ ":" "(" params ")" ] ";"
 *	params	 := [ "void" | param { "," param } ]
 *	param	 := type [ NAME ]
 *	clause	 := DESC { "," DESC } [ "/" predicate "/" ] "{" ... "}"
 *
 * Clauses are skipped with their braces balanced (strings and character
 * constants may hold braces), so a configure probe holding only `BEGIN{}`
 * is accepted exactly as DTrace accepts it.  `inline` and `translator`
 * definitions are skipped the same way.
 *
 * The lexer works on one buffer: the file itself, or what the C
 * preprocessor made of it.  Line markers (`# 12 "file.h"`, `#line`) move
 * the reported position, so errors point into the user's source even
 * after -C.  Without -C, any directive other than #pragma and #line is
 * an error that says to use -C, because silently ignoring `#include`
 * would drop declarations.
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

#include "prov.h"
#include "prov_impl.h"

enum tok_kind { T_EOF, T_IDENT, T_NUM, T_STR, T_CHAR, T_PUNCT, T_PRAGMA };

struct tok {
	enum tok_kind kind;
	const char *s;		/* into the buffer */
	size_t len;
	const char *file;	/* interned */
	unsigned line, col;
	const char *linestart;
};

struct pending_attr {
	char *provider;
	enum prov_attr_which which;
	struct prov_attr attr;
	struct tok at;
};

struct parser {
	/* lexer */
	const char *buf, *end, *p;
	const char *linestart;
	unsigned line;
	const char *file;
	bool bol;
	char **files;		/* interned file names from line markers */
	unsigned file_cnt;

	struct tok tok;		/* last token taken */
	struct tok ahead[2];	/* lookahead, ahead[0] first */
	unsigned nahead;

	struct prov_file *pf;
	struct prov_diag *diag;
	struct pending_attr *attrs;
	unsigned attr_cnt;
};

/* Attributes of a provider that no #pragma D attributes mentions. */
static const struct prov_attr default_attr = {
	PROV_STAB_PRIVATE, PROV_STAB_PRIVATE, PROV_CLASS_UNKNOWN,
};

static void *xcalloc(size_t n, size_t sz)
{
	return calloc(n ? n : 1, sz ? sz : 1);
}

static char *xstrndup(const char *s, size_t n)
{
	char *r = malloc(n + 1);

	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

/* ----------------------------------------------------------------------
 * Diagnostics
 */

/* The buffer need not end in NUL or newline: end bounds the line. */
static void diag_at(struct prov_diag *d, const struct tok *t, const char *end)
{
	size_t n = 0;

	d->file[0] = d->srcline[0] = '\0';
	d->line = d->col = 0;
	if (!t)
		return;
	snprintf(d->file, sizeof(d->file), "%s", t->file ? t->file : "");
	d->line = t->line;
	d->col = t->col;
	if (t->linestart) {
		while (t->linestart + n < end && t->linestart[n] &&
		       t->linestart[n] != '\n' && n + 1 < sizeof(d->srcline))
			n++;
		memcpy(d->srcline, t->linestart, n);
		d->srcline[n] = '\0';
	}
}

static int __attribute__((format(printf, 4, 5)))
perr(struct parser *ps, const struct tok *t, const char *hint,
     const char *fmt, ...)
{
	va_list ap;

	diag_at(ps->diag, t, ps->end);
	va_start(ap, fmt);
	vsnprintf(ps->diag->msg, sizeof(ps->diag->msg), fmt, ap);
	va_end(ap);
	snprintf(ps->diag->hint, sizeof(ps->diag->hint), "%s",
		 hint ? hint : "");
	return -EINVAL;
}

static int nomem(struct parser *ps)
{
	diag_at(ps->diag, NULL, NULL);
	snprintf(ps->diag->msg, sizeof(ps->diag->msg), "out of memory");
	ps->diag->hint[0] = '\0';
	return -ENOMEM;
}

/* How a token reads in a message: 'name', or "end of file". */
static const char *tokdesc(const struct tok *t, char *buf, size_t len)
{
	if (t->kind == T_EOF)
		return "end of file";
	if (t->kind == T_PRAGMA)
		return "#pragma";
	snprintf(buf, len, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
	return buf;
}

/* ----------------------------------------------------------------------
 * Lexer
 */

static const char *intern_file(struct parser *ps, const char *s, size_t n)
{
	char **nf;

	for (unsigned i = 0; i < ps->file_cnt; i++)
		if (strlen(ps->files[i]) == n && memcmp(ps->files[i], s, n) == 0)
			return ps->files[i];
	nf = realloc(ps->files, (ps->file_cnt + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	ps->files = nf;
	nf[ps->file_cnt] = xstrndup(s, n);
	if (!nf[ps->file_cnt])
		return NULL;
	return nf[ps->file_cnt++];
}

static void mark(struct parser *ps, struct tok *t, const char *at)
{
	t->s = at;
	t->file = ps->file;
	t->line = ps->line;
	t->col = (unsigned)(at - ps->linestart) + 1;
	t->linestart = ps->linestart;
}

static void newline(struct parser *ps, const char *nl)
{
	ps->line++;
	ps->linestart = nl + 1;
	ps->bol = true;
}

/*
 * A line marker from the preprocessor: `# 12 "file" 1 3` or
 * `#line 12 "file"`.  `p` points at the number.  The marker names the
 * line that follows it, so the line counter is set one short: the newline
 * ending the directive brings it to `n`.
 */
static int line_marker(struct parser *ps, const char *p, const char *eol,
		       const struct tok *at)
{
	unsigned long n = 0;
	char name[1024];
	size_t o = 0;

	while (p < eol && isdigit((unsigned char)*p)) {
		n = n * 10 + (unsigned long)(*p++ - '0');
		if (n > 100000000UL)
			return perr(ps, at, NULL, "line number too large");
	}
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p < eol && *p == '"') {
		for (p++; p < eol && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < eol)
				p++;
			if (o + 1 < sizeof(name))
				name[o++] = *p;
		}
		ps->file = intern_file(ps, name, o);
		if (!ps->file)
			return nomem(ps);
	}
	ps->line = (unsigned)n - 1;
	return 0;
}

/*
 * Handle a directive starting at `hash`.  Returns 1 with a T_PRAGMA token
 * for #pragma, 0 for a directive that produces no token, or an error.
 */
static int directive(struct parser *ps, const char *hash, struct tok *t)
{
	const char *p = hash + 1, *eol = hash + 1, *w;
	size_t wl;

	mark(ps, t, hash);
	/* the logical line, backslash-newline continuations included */
	while (eol < ps->end && *eol != '\n')
		eol++;
	while (eol < ps->end && eol[-1] == '\\') {
		newline(ps, eol);
		for (eol++; eol < ps->end && *eol != '\n'; eol++)
			;
	}
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	w = p;
	while (p < eol && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	wl = (size_t)(p - w);
	ps->p = eol;
	if (wl == 0)
		return 0;				/* null directive */
	if (isdigit((unsigned char)*w))
		return line_marker(ps, w, eol, t);
	if (wl == 4 && memcmp(w, "line", 4) == 0) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		return line_marker(ps, p, eol, t);
	}
	if (wl == 6 && memcmp(w, "pragma", 6) == 0) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		t->kind = T_PRAGMA;
		t->s = p;
		t->len = (size_t)(eol - p);
		return 1;
	}
	if ((wl == 5 && memcmp(w, "ident", 5) == 0) ||
	    (wl == 4 && memcmp(w, "sccs", 4) == 0))
		return 0;
	t->len = (size_t)(p - hash);
	return perr(ps, t, "run dtrace with -C to preprocess the file",
		    "preprocessor directive '#%.*s' needs the C preprocessor",
		    (int)wl, w);
}

static int lex(struct parser *ps, struct tok *t)
{
	const char *p;
	int err;

again:
	p = ps->p;
	while (p < ps->end) {
		if (*p == '\n') {
			newline(ps, p);
		} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
			   *p == '\f' || *p == '\v') {
			;
		} else if (*p == '/' && p + 1 < ps->end && p[1] == '*') {
			const char *start = p;
			struct tok at;

			mark(ps, &at, start);
			at.len = 2;
			for (p += 2; p < ps->end; p++) {
				if (*p == '*' && p + 1 < ps->end && p[1] == '/')
					break;
				if (*p == '\n')
					newline(ps, p);
			}
			if (p >= ps->end) {
				ps->p = p;
				return perr(ps, &at, NULL,
					    "unterminated comment (it starts here)");
			}
			p++;
		} else if (*p == '/' && p + 1 < ps->end && p[1] == '/') {
			while (p < ps->end && *p != '\n')
				p++;
			continue;
		} else {
			break;
		}
		p++;
	}
	ps->p = p;
	memset(t, 0, sizeof(*t));
	if (p >= ps->end) {
		mark(ps, t, p);
		t->kind = T_EOF;
		return 0;
	}
	if (*p == '#' && ps->bol) {
		err = directive(ps, p, t);
		if (err < 0)
			return err;
		if (err == 0)
			goto again;
		return 0;
	}
	ps->bol = false;
	mark(ps, t, p);
	if (isalpha((unsigned char)*p) || *p == '_') {
		while (p < ps->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		t->kind = T_IDENT;
	} else if (isdigit((unsigned char)*p)) {
		while (p < ps->end &&
		       (isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			p++;
		t->kind = T_NUM;
	} else if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < ps->end && *p != q && *p != '\n') {
			if (*p == '\\' && p + 1 < ps->end && p[1] != '\n')
				p++;
			p++;
		}
		if (p >= ps->end || *p != q) {
			t->len = 1;
			ps->p = p;
			return perr(ps, t, NULL, "unterminated %s",
				    q == '"' ? "string" : "character constant");
		}
		p++;
		t->kind = q == '"' ? T_STR : T_CHAR;
	} else {
		p++;
		t->kind = T_PUNCT;
	}
	t->len = (size_t)(p - t->s);
	ps->p = p;
	return 0;
}

static int next(struct parser *ps)
{
	if (ps->nahead) {
		ps->tok = ps->ahead[0];
		ps->ahead[0] = ps->ahead[1];
		ps->nahead--;
		return 0;
	}
	return lex(ps, &ps->tok);
}

/* Look at the k-th token ahead (0 or 1) without taking it. */
static int peek_n(struct parser *ps, unsigned k, const struct tok **t)
{
	int err;

	while (ps->nahead <= k) {
		err = lex(ps, &ps->ahead[ps->nahead]);
		if (err)
			return err;
		ps->nahead++;
	}
	*t = &ps->ahead[k];
	return 0;
}

static int peek(struct parser *ps, const struct tok **t)
{
	return peek_n(ps, 0, t);
}

static bool is(const struct tok *t, const char *s)
{
	size_t n = strlen(s);

	return (t->kind == T_IDENT || t->kind == T_PUNCT) && t->len == n &&
	       memcmp(t->s, s, n) == 0;
}

static bool is_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->s[0] == c;
}

static int expect_punct(struct parser *ps, char c, const char *what)
{
	char b[64];
	int err = next(ps);

	if (err)
		return err;
	if (!is_punct(&ps->tok, c))
		return perr(ps, &ps->tok, NULL, "expected '%c' %s, found %s", c,
			    what, tokdesc(&ps->tok, b, sizeof(b)));
	return 0;
}

/* ----------------------------------------------------------------------
 * Types
 */

static int skip_block(struct parser *ps, const struct tok *open,
		      const char *what);

struct prov_typedef {
	char *name;
	struct prov_type type;
	char *file;
	unsigned line;
};

void prov_type_clear(struct prov_type *t)
{
	free(t->dname);
	free(t->cname);
	free(t->tag);
	memset(t, 0, sizeof(*t));
}

int prov_type_copy(struct prov_type *dst, const struct prov_type *src)
{
	*dst = *src;
	dst->dname = dst->cname = dst->tag = NULL;
	dst->dname = strdup(src->dname);
	dst->cname = strdup(src->cname);
	if (src->tag)
		dst->tag = strdup(src->tag);
	if (!dst->dname || !dst->cname || (src->tag && !dst->tag)) {
		prov_type_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static const struct prov_typedef *find_typedef(const struct prov_file *pf,
					       const char *s, size_t n)
{
	for (unsigned i = 0; i < pf->typedef_cnt; i++)
		if (strlen(pf->typedefs[i].name) == n &&
		    memcmp(pf->typedefs[i].name, s, n) == 0)
			return &pf->typedefs[i];
	return NULL;
}

/* A growing string for building type spellings. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *ns;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 32) + n;

		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Append a word or '*' with D/C spacing: "const char *", "char **". */
static void sb_tok(struct sbuf *b, const char *s, size_t n)
{
	bool star = n == 1 && *s == '*';

	if (b->len && !(star && b->s[b->len - 1] == '*'))
		sb_add(b, " ", 1);
	sb_add(b, s, n);
}

enum base_kind { B_NONE, B_INTWORDS, B_BOOL, B_FLOAT, B_VOID, B_STRING,
		 B_TAG, B_NAMED };

/*
 * Parse a type, and the parameter or typedef name after it if there is
 * one.  On return *name is that name (NULL if absent) and *nametok its
 * token.  Integer keywords are counted and checked the way C does, so
 * `long unsigned int` and `unsigned long` are the same type.
 */
static int parse_type(struct parser *ps, struct prov_type *ty, char **name,
		      struct tok *nametok, const char *ctx, bool in_typedef)
{
	int n_signed = 0, n_unsigned = 0, n_char = 0, n_short = 0, n_int = 0,
	    n_long = 0, n_ptr = 0, n_float = 0, n_double = 0;
	enum base_kind base = B_NONE;
	const struct prov_typedef *td = NULL;
	const struct builtin_type *bt = NULL;
	struct sbuf dname = { 0 }, prequal = { 0 }, postq = { 0 };
	struct sbuf cname = { 0 };
	struct tok first, tagtok = { 0 }, named = { 0 };
	char *tag = NULL;
	bool tag_union = false, is_enum = false;
	const struct tok *la;
	char b[64];
	int err;

	*name = NULL;
	memset(ty, 0, sizeof(*ty));
	err = peek(ps, &la);
	if (err)
		return err;
	first = *la;

	for (;;) {
		err = peek(ps, &la);
		if (err)
			goto out;
		if (is_punct(la, '*')) {
			if (base == B_NONE) {
				err = perr(ps, la, NULL,
					   "expected a type before '*' %s", ctx);
				goto out;
			}
			next(ps);
			n_ptr++;
			sb_tok(&dname, "*", 1);
			sb_tok(&postq, "*", 1);
			continue;
		}
		if (la->kind != T_IDENT)
			break;
		if (is(la, "const") || is(la, "volatile") || is(la, "restrict")) {
			next(ps);
			sb_tok(&dname, ps->tok.s, ps->tok.len);
			if (n_ptr)
				sb_tok(&postq, ps->tok.s, ps->tok.len);
			else
				sb_tok(&prequal, ps->tok.s, ps->tok.len);
			continue;
		}
		if (n_ptr)
			break;		/* a name after the pointers */
		if (is(la, "signed") || is(la, "unsigned") || is(la, "char") ||
		    is(la, "short") || is(la, "int") || is(la, "long")) {
			if (base != B_NONE && base != B_INTWORDS &&
			    !(base == B_FLOAT && is(la, "long"))) {
				err = perr(ps, la, NULL,
					   "'%.*s' cannot follow another type %s",
					   (int)la->len, la->s, ctx);
				goto out;
			}
			next(ps);
			n_signed += is(&ps->tok, "signed");
			n_unsigned += is(&ps->tok, "unsigned");
			n_char += is(&ps->tok, "char");
			n_short += is(&ps->tok, "short");
			n_int += is(&ps->tok, "int");
			n_long += is(&ps->tok, "long");
			if (base == B_NONE)
				base = B_INTWORDS;
			sb_tok(&dname, ps->tok.s, ps->tok.len);
			continue;
		}
		if (base != B_NONE) {
			if (base == B_INTWORDS &&
			    (is(la, "float") || is(la, "double")) && !n_char &&
			    !n_short && !n_int && !n_signed && !n_unsigned) {
				/* "long double" */
			} else {
				break;	/* the parameter or typedef name */
			}
		}
		next(ps);
		sb_tok(&dname, ps->tok.s, ps->tok.len);
		if (is(&ps->tok, "_Bool")) {
			base = B_BOOL;
		} else if (is(&ps->tok, "float") || is(&ps->tok, "double")) {
			n_float += is(&ps->tok, "float");
			n_double += is(&ps->tok, "double");
			base = B_FLOAT;
		} else if (is(&ps->tok, "void")) {
			base = B_VOID;
		} else if (is(&ps->tok, "string")) {
			base = B_STRING;
		} else if (is(&ps->tok, "struct") || is(&ps->tok, "union") ||
			   is(&ps->tok, "enum")) {
			struct tok kw = ps->tok;

			base = B_TAG;
			tag_union = is(&kw, "union");
			err = peek(ps, &la);
			if (err)
				goto out;
			if (la->kind == T_IDENT) {
				next(ps);
				tagtok = ps->tok;
				sb_tok(&dname, ps->tok.s, ps->tok.len);
				err = peek(ps, &la);
				if (err)
					goto out;
			} else if (!is_punct(la, '{')) {
				err = perr(ps, la, NULL,
					   "expected a tag name after '%.*s', found %s",
					   (int)kw.len, kw.s,
					   tokdesc(la, b, sizeof(b)));
				goto out;
			}
			if (is_punct(la, '{')) {
				struct tok open;

				/*
				 * `typedef struct { ... } name;` is common; a
				 * pointer to it reaches headers as void *.
				 */
				if (!tagtok.s && !in_typedef) {
					err = perr(ps, la,
						   "give the type a tag: 'struct name { ... }'",
						   "anonymous %.*s types are not supported %s",
						   (int)kw.len, kw.s, ctx);
					goto out;
				}
				next(ps);
				open = ps->tok;
				err = skip_block(ps, &open, "the type definition");
				if (err)
					goto out;
			}
			if (is(&kw, "enum")) {
				/* an enum is passed as an int */
				base = B_INTWORDS;
				is_enum = true;
			} else if (tagtok.s) {
				tag = xstrndup(tagtok.s, tagtok.len);
				if (!tag) {
					err = nomem(ps);
					goto out;
				}
			}
		} else {
			named = ps->tok;
			td = find_typedef(ps->pf, named.s, named.len);
			if (!td)
				bt = prov_builtin_type(named.s, named.len);
			if (!td && !bt) {
				err = perr(ps, &named,
					   "declare it first, e.g. 'typedef unsigned int Oid;', or pass it with -C and a #define",
					   "unknown type name '%.*s' %s",
					   (int)named.len, named.s, ctx);
				goto out;
			}
			base = B_NAMED;
		}
	}

	if (base == B_NONE) {
		err = peek(ps, &la);
		if (!err)
			err = perr(ps, la, NULL, "expected a type %s, found %s",
				   ctx, tokdesc(la, b, sizeof(b)));
		goto out;
	}

	/* the name that ends the declaration, if any */
	err = peek(ps, &la);
	if (err)
		goto out;
	if (la->kind == T_IDENT) {
		next(ps);
		*nametok = ps->tok;
		*name = xstrndup(ps->tok.s, ps->tok.len);
		if (!*name) {
			err = nomem(ps);
			goto out;
		}
		err = peek(ps, &la);
		if (err)
			goto out;
	}
	if (is_punct(la, '[')) {
		err = perr(ps, la, "pass a pointer to the first element instead",
			   "array types are not supported %s", ctx);
		goto out;
	}
	if (is_punct(la, '(')) {
		err = perr(ps, la, "cast it to 'uintptr_t' or 'void *'",
			   "function and function pointer types are not supported %s",
			   ctx);
		goto out;
	}

	/* the type model */
	ty->inc = PROV_INC_NONE;
	switch (base) {
	case B_INTWORDS:
		if (n_char > 1 || n_short > 1 || n_int > 1 || n_long > 2 ||
		    (n_signed && n_unsigned) || n_signed > 1 || n_unsigned > 1 ||
		    (n_char && (n_short || n_long || n_int)) ||
		    (n_short && n_long)) {
			err = perr(ps, &first, NULL,
				   "invalid combination of type specifiers '%s' %s",
				   dname.s ? dname.s : "", ctx);
			goto out;
		}
		ty->kind = PROV_K_INT;
		ty->is_enum = is_enum;
		ty->is_signed = !n_unsigned;
		ty->size = n_char ? 1 : n_short ? 2 : n_long ? 8 : 4;
		if (n_char)
			sb_str(&cname, n_unsigned ? "unsigned char" :
				       n_signed ? "signed char" : "char");
		else if (is_enum)
			/* the header cannot name the enum: void * takes any pointer */
			sb_str(&cname, n_ptr ? "void" : "int");
		else {
			if (n_unsigned)
				sb_str(&cname, "unsigned ");
			sb_str(&cname, n_short ? "short" :
				       n_long == 2 ? "long long" :
				       n_long ? "long" : "int");
		}
		break;
	case B_BOOL:
		ty->kind = PROV_K_INT;
		ty->size = 1;
		sb_str(&cname, "_USDT_BOOL");
		break;
	case B_FLOAT:
		if (n_float + n_double != 1 || (n_float && n_long)) {
			err = perr(ps, &first, NULL,
				   "invalid floating-point type '%s' %s",
				   dname.s ? dname.s : "", ctx);
			goto out;
		}
		ty->kind = PROV_K_FLOAT;
		ty->size = n_float ? 4 : n_long ? 16 : 8;
		sb_str(&cname, dname.s);
		break;
	case B_VOID:
		ty->kind = PROV_K_VOID;
		sb_str(&cname, "void");
		break;
	case B_STRING:
		ty->kind = PROV_K_PTR;
		ty->size = 8;
		ty->is_string = true;
		sb_str(&cname, "const char *");
		break;
	case B_TAG:
		ty->kind = PROV_K_STRUCT;
		ty->tag = tag;
		ty->tag_is_union = tag_union;
		tag = NULL;
		if (ty->tag) {
			sb_str(&cname, ty->tag_is_union ? "union " : "struct ");
			sb_str(&cname, ty->tag);
		} else {
			sb_str(&cname, "void");	/* anonymous: see above */
		}
		break;
	case B_NAMED:
		if (td) {
			*ty = td->type;
			ty->dname = ty->cname = ty->tag = NULL;
			if (td->type.tag && !(ty->tag = strdup(td->type.tag))) {
				err = nomem(ps);
				goto out;
			}
			is_enum = td->type.is_enum;
			sb_str(&cname, is_enum && n_ptr ? "void" :
							  td->type.cname);
		} else {
			ty->size = bt->size;
			ty->is_signed = bt->is_signed;
			ty->kind = bt->is_pointer ? PROV_K_PTR : PROV_K_INT;
			ty->inc = bt->inc;
			sb_str(&cname, bt->inc != PROV_INC_NONE ? bt->name :
							       bt->cname);
		}
		break;
	case B_NONE:
		break;
	}

	/*
	 * Qualifiers written before a typedef'd pointer apply to the
	 * pointer itself: `const cstr` with cstr = char * is `char *const`.
	 */
	if (prequal.s) {
		struct sbuf q = { 0 };
		bool after = ty->kind == PROV_K_PTR;

		if (after) {
			sb_str(&q, cname.s);
			sb_tok(&q, prequal.s, prequal.len);
		} else {
			sb_str(&q, prequal.s);
			sb_tok(&q, cname.s, cname.len);
		}
		free(cname.s);
		cname = q;
	}
	if (postq.s) {
		const char *s = postq.s;

		/* re-tokenise "* const *" onto the C spelling */
		while (*s) {
			const char *e = s;

			while (*s == ' ')
				s++;
			e = s;
			while (*e && *e != ' ')
				e++;
			if (e == s)
				break;
			if (*s == '*') {
				for (const char *c = s; c < e; c++)
					sb_tok(&cname, "*", 1);
			} else {
				sb_tok(&cname, s, (size_t)(e - s));
			}
			s = e;
		}
	}
	if (n_ptr) {
		bool plain_char = base == B_INTWORDS && n_char && !n_unsigned;

		ty->is_string = n_ptr == 1 && plain_char && !n_signed;
		ty->kind = PROV_K_PTR;
		ty->size = 8;
		ty->is_signed = false;
		ty->is_enum = false;
		if (is_enum && n_ptr > 1 && !cname.oom) {
			/* void ** would not take an enum **: one level only */
			free(cname.s);
			memset(&cname, 0, sizeof(cname));
			sb_str(&cname, "void *");
		}
	}
	if (dname.oom || cname.oom || prequal.oom || postq.oom) {
		err = nomem(ps);
		goto out;
	}
	ty->dname = dname.s;
	ty->cname = cname.s;
	dname.s = cname.s = NULL;
	if (strlen(ty->dname) >= PROV_TYPE_NAME_MAX) {
		err = perr(ps, &first, NULL,
			   "type name '%.40s...' is longer than %d characters %s",
			   ty->dname, PROV_TYPE_NAME_MAX - 1, ctx);
		goto out;
	}
	err = 0;
out:
	free(dname.s);
	free(cname.s);
	free(prequal.s);
	free(postq.s);
	free(tag);
	if (err) {
		prov_type_clear(ty);
		free(*name);
		*name = NULL;
	}
	return err;
}

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

	err = parse_type(ps, &ty, &name, &nt, "in typedef", true);
	if (err)
		return err;
	if (!name) {
		const struct tok *la;

		err = peek(ps, &la);
		if (!err)
			err = perr(ps, la, NULL,
				   "expected a name for the typedef, found %s",
				   tokdesc(la, b, sizeof(b)));
		goto fail;
	}
	old = find_typedef(ps->pf, name, strlen(name));
	if (old) {
		if (strcmp(old->type.cname, ty.cname) == 0)
			goto same;
		err = perr(ps, &nt, NULL,
			   "typedef '%s' redefined as '%s' (it was '%s' on line %u)",
			   name, ty.dname, old->type.cname, old->line);
		goto fail;
	}
	nt_arr = realloc(ps->pf->typedefs,
			 (ps->pf->typedef_cnt + 1) * sizeof(*nt_arr));
	if (!nt_arr) {
		err = nomem(ps);
		goto fail;
	}
	ps->pf->typedefs = nt_arr;
	nt_arr += ps->pf->typedef_cnt;
	memset(nt_arr, 0, sizeof(*nt_arr));
	nt_arr->file = strdup(kw.file ? kw.file : "");
	if (!nt_arr->file) {
		err = nomem(ps);
		goto fail;
	}
	/* the D spelling of the new type is its own name */
	free(ty.dname);
	ty.dname = strdup(name);
	if (!ty.dname) {
		free(nt_arr->file);
		err = nomem(ps);
		goto fail;
	}
	nt_arr->name = name;
	nt_arr->type = ty;
	nt_arr->line = kw.line;
	ps->pf->typedef_cnt++;
	return expect_punct(ps, ';', "after typedef");
same:
	free(name);
	prov_type_clear(&ty);
	return expect_punct(ps, ';', "after typedef");
fail:
	free(name);
	prov_type_clear(&ty);
	return err;
}

/* Skip a balanced {...} block; the '{' has been taken. */
static int skip_block(struct parser *ps, const struct tok *open,
		      const char *what)
{
	unsigned depth = 1;
	int err;

	while (depth) {
		err = next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF)
			return perr(ps, &ps->tok, NULL,
				    "expected '}' to close %s opened on line %u, found end of file",
				    what, open->line);
		if (is_punct(&ps->tok, '{'))
			depth++;
		else if (is_punct(&ps->tok, '}'))
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

	err = peek(ps, &la);
	if (err)
		return err;
	if (la->kind == T_IDENT) {
		next(ps);
		err = peek(ps, &la);
		if (err)
			return err;
	}
	if (is_punct(la, '{')) {
		struct tok open;

		next(ps);
		open = ps->tok;
		err = skip_block(ps, &open, "the type definition");
		if (err)
			return err;
		err = peek(ps, &la);
		if (err)
			return err;
	}
	if (!is_punct(la, ';'))
		return perr(ps, la,
			    "only forward declarations and definitions of types may appear here",
			    "expected ';' after '%.*s' declaration, found %s",
			    (int)kw.len, kw.s, tokdesc(la, b, sizeof(b)));
	next(ps);
	return 0;
}

/* inline and translator definitions: skipped up to their ';' */
static int skip_definition(struct parser *ps)
{
	struct tok kw = ps->tok;
	int err;

	for (;;) {
		err = next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF)
			return perr(ps, &kw, NULL,
				    "'%.*s' definition is not terminated by ';'",
				    (int)kw.len, kw.s);
		if (is_punct(&ps->tok, ';'))
			return 0;
		if (is_punct(&ps->tok, '{')) {
			struct tok open = ps->tok;

			err = skip_block(ps, &open, "the definition");
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

	if (!word_like(&first) && !is_punct(&first, ':') &&
	    !is_punct(&first, '*') && !is_punct(&first, '$'))
		return perr(ps, &first, NULL,
			    "syntax error near %s: expected a provider definition",
			    tokdesc(&first, b, sizeof(b)));
	for (;;) {
		err = next(ps);
		if (err)
			return err;
		if (ps->tok.kind == T_EOF) {
			if (pred)
				return perr(ps, &first, NULL,
					    "predicate of clause is not terminated");
			return perr(ps, &first, NULL,
				    "clause '%.*s' has no body: expected '{'",
				    (int)first.len, first.s);
		}
		if (is_punct(&ps->tok, '{') && (!pred || is_punct(&prev, '/')))
			break;
		if (is_punct(&ps->tok, '/'))
			pred = true;
		if (!pred && word_like(&prev) && word_like(&ps->tok) &&
		    prev.s + prev.len != ps->tok.s)
			return perr(ps, &ps->tok, NULL,
				    "syntax error near %s",
				    tokdesc(&ps->tok, b, sizeof(b)));
		prev = ps->tok;
	}
	first.len = (size_t)(prev.s + prev.len - first.s);
	{
		struct tok open = ps->tok;

		err = skip_block(ps, &open, "the clause");
		if (err)
			return err;
	}
	/* an optional ';' may follow a clause */
	err = peek(ps, &la);
	if (!err && is_punct(la, ';'))
		next(ps);
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
	err = expect_punct(ps, '(', xlated ? "to open the translated argument list"
					   : "after the probe name");
	if (err)
		return err;
	err = peek(ps, &la);
	if (err)
		return err;
	if (is_punct(la, ')')) {
		next(ps);
		return 0;
	}
	if (is(la, "void")) {
		const struct tok *la2;

		/* `(void)` is an empty list; `(void *p)` is not */
		err = peek_n(ps, 1, &la2);
		if (err)
			return err;
		if (is_punct(la2, ')')) {
			next(ps);
			next(ps);
			return 0;
		}
	}
	for (;;) {
		struct prov_arg a = { 0 };
		struct prov_arg *nv;
		struct tok nt, at;

		err = peek(ps, &la);
		if (err)
			goto fail;
		at = *la;
		snprintf(ctx, sizeof(ctx), "in %sargument %u of probe '%s'",
			 xlated ? "translated " : "", n + 1, probe);
		err = parse_type(ps, &a.type, &a.name, &nt, ctx, false);
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

			err = perr(ps, &at, hint, "%s '%s' cannot be passed by value %s",
				   what, a.type.dname, ctx);
			arg_clear(&a);
			goto fail;
		}
		if (n == PROV_ARGS_MAX) {
			err = perr(ps, &at,
				   "pass a pointer to a structure that holds the rest",
				   "probe '%s' has more than %d arguments", probe,
				   PROV_ARGS_MAX);
			arg_clear(&a);
			goto fail;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			arg_clear(&a);
			err = nomem(ps);
			goto fail;
		}
		v = nv;
		v[n++] = a;
		err = next(ps);
		if (err)
			goto fail;
		if (is_punct(&ps->tok, ')'))
			break;
		if (!is_punct(&ps->tok, ',')) {
			err = perr(ps, &ps->tok, NULL,
				   "expected ',' or ')' in the argument list of probe '%s', found %s",
				   probe, tokdesc(&ps->tok, b, sizeof(b)));
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
	pr->argmap = xcalloc(pr->xargc, 1);
	if (!pr->argmap)
		return nomem(ps);
	for (unsigned i = 0; i < pr->xargc; i++) {
		const char *xn = pr->xargv[i].name;
		unsigned j;

		if (xn) {
			for (j = 0; j < pr->nargc; j++)
				if (pr->nargv[j].name &&
				    strcmp(pr->nargv[j].name, xn) == 0)
					break;
			if (j == pr->nargc)
				return perr(ps, at,
					    "name the native argument the same way, or leave the translated argument unnamed to map it by position",
					    "translated argument %u '%s' of probe '%s' matches no native argument",
					    i + 1, xn, pr->name);
		} else {
			j = i;
			if (j >= pr->nargc)
				return perr(ps, at, NULL,
					    "translated argument %u of probe '%s' has no native argument %u to map to",
					    i + 1, pr->name, i + 1);
		}
		pr->argmap[i] = (uint8_t)j;
	}
	return 0;
}

static int parse_probe(struct parser *ps, struct prov_provider *pv)
{
	struct prov_probe pr = { 0 };
	struct prov_probe *np;
	const struct prov_probe *dup;
	struct tok nametok, xat;
	const struct tok *la;
	char pub[PROV_PROBE_NAME_MAX + 16], b[64];
	int err;

	err = next(ps);
	if (err)
		return err;
	if (ps->tok.kind != T_IDENT)
		return perr(ps, &ps->tok, NULL,
			    "expected a probe name after 'probe', found %s",
			    tokdesc(&ps->tok, b, sizeof(b)));
	nametok = ps->tok;
	pr.name = xstrndup(nametok.s, nametok.len);
	pr.file = strdup(nametok.file ? nametok.file : "");
	if (!pr.name || !pr.file) {
		err = nomem(ps);
		goto fail;
	}
	pr.line = nametok.line;
	pr.col = nametok.col;
	if (prov_pubname(pr.name, pub, PROV_PROBE_NAME_MAX) < 0) {
		err = perr(ps, &nametok, NULL,
			   "probe name '%s' is too long (at most %d characters)",
			   pr.name, PROV_PROBE_NAME_MAX - 1);
		goto fail;
	}
	pr.pubname = strdup(pub);
	if (!pr.pubname) {
		err = nomem(ps);
		goto fail;
	}
	dup = prov_find_probe(pv, pr.name);
	if (dup) {
		err = perr(ps, &nametok, NULL,
			   "probe '%s' is declared twice in provider '%s' (first on line %u)",
			   pr.name, pv->name, dup->line);
		goto fail;
	}
	err = parse_params(ps, pr.name, false, &pr.nargv, &pr.nargc);
	if (err)
		goto fail;
	err = peek(ps, &la);
	if (err)
		goto fail;
	if (is_punct(la, ':')) {
		next(ps);
		err = peek(ps, &la);
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
		pr.xargv = xcalloc(pr.nargc, sizeof(*pr.xargv));
		pr.argmap = xcalloc(pr.nargc, 1);
		if (!pr.xargv || !pr.argmap) {
			err = nomem(ps);
			goto fail;
		}
		for (unsigned i = 0; i < pr.nargc; i++) {
			pr.argmap[i] = (uint8_t)i;
			if (prov_type_copy(&pr.xargv[i].type, &pr.nargv[i].type) ||
			    (pr.nargv[i].name &&
			     !(pr.xargv[i].name = strdup(pr.nargv[i].name)))) {
				err = nomem(ps);
				goto fail;
			}
		}
	}
	{
		char what[PROV_PROBE_NAME_MAX + 48];

		snprintf(what, sizeof(what),
			 "after the declaration of probe '%s'", pr.name);
		err = expect_punct(ps, ';', what);
		if (err)
			goto fail;
	}
	np = realloc(pv->probes, (pv->probe_cnt + 1) * sizeof(*np));
	if (!np) {
		err = nomem(ps);
		goto fail;
	}
	pv->probes = np;
	np[pv->probe_cnt++] = pr;
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

static int parse_provider(struct parser *ps)
{
	struct prov_provider pv = { 0 };
	struct prov_provider *np;
	const struct prov_provider *dup;
	struct tok nametok, open;
	char b[64];
	int err;

	err = next(ps);
	if (err)
		return err;
	if (ps->tok.kind != T_IDENT)
		return perr(ps, &ps->tok, NULL,
			    "expected a provider name after 'provider', found %s",
			    tokdesc(&ps->tok, b, sizeof(b)));
	nametok = ps->tok;
	if (isdigit((unsigned char)nametok.s[nametok.len - 1]))
		return perr(ps, &nametok,
			    "consumers name a process's provider by appending its pid (myapp1234), so a trailing digit would be ambiguous",
			    "provider name '%.*s' must not end with a digit",
			    (int)nametok.len, nametok.s);
	if (nametok.len + PROV_PID_DIGITS >= PROV_NAME_MAX)
		return perr(ps, &nametok, NULL,
			    "provider name '%.*s' is too long (at most %d characters, leaving room for a pid)",
			    (int)nametok.len, nametok.s,
			    PROV_NAME_MAX - PROV_PID_DIGITS - 1);
	pv.name = xstrndup(nametok.s, nametok.len);
	pv.file = strdup(nametok.file ? nametok.file : "");
	if (!pv.name || !pv.file) {
		err = nomem(ps);
		goto fail;
	}
	pv.line = nametok.line;
	pv.col = nametok.col;
	for (unsigned i = 0; i < PROV_ATTR_CNT; i++)
		pv.attr[i] = default_attr;
	dup = prov_find_provider(ps->pf, pv.name);
	if (dup) {
		err = perr(ps, &nametok, NULL,
			   "provider '%s' is defined twice (first on line %u)",
			   pv.name, dup->line);
		goto fail;
	}
	err = expect_punct(ps, '{', "after the provider name");
	if (err)
		goto fail;
	open = ps->tok;
	for (;;) {
		err = next(ps);
		if (err)
			goto fail;
		if (is_punct(&ps->tok, '}'))
			break;
		if (is_punct(&ps->tok, ';'))
			continue;
		if (is(&ps->tok, "probe")) {
			err = parse_probe(ps, &pv);
			if (err)
				goto fail;
			continue;
		}
		if (ps->tok.kind == T_EOF)
			err = perr(ps, &ps->tok, NULL,
				   "expected '}' to close provider '%s' (opened on line %u), found end of file",
				   pv.name, open.line);
		else
			err = perr(ps, &ps->tok, NULL,
				   "expected 'probe' or '}' in provider '%s', found %s",
				   pv.name, tokdesc(&ps->tok, b, sizeof(b)));
		goto fail;
	}
	{
		char what[PROV_NAME_MAX + 48];

		snprintf(what, sizeof(what),
			 "after the definition of provider '%s'", pv.name);
		err = expect_punct(ps, ';', what);
		if (err)
			goto fail;
	}
	np = realloc(ps->pf->providers,
		     (ps->pf->provider_cnt + 1) * sizeof(*np));
	if (!np) {
		err = nomem(ps);
		goto fail;
	}
	ps->pf->providers = np;
	np[ps->pf->provider_cnt++] = pv;
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
	struct pending_attr pa = { 0 }, *npa;
	size_t n;
	int v;

	if (!pragma_word(&p, end, &w, &n) || n != 1 || *w != 'D')
		return 0;			/* not ours: ignore */
	if (!pragma_word(&p, end, &w, &n))
		return perr(ps, t, NULL, "empty '#pragma D' directive");
	if ((n == 6 && memcmp(w, "option", 6) == 0) ||
	    (n == 10 && memcmp(w, "depends_on", 10) == 0) ||
	    (n == 7 && memcmp(w, "binding", 7) == 0))
		return 0;
	if (n != 10 || memcmp(w, "attributes", 10) != 0)
		return perr(ps, t, NULL, "unknown control directive '#pragma D %.*s'",
			    (int)n, w);

	/*
	 * Name[/Data[/Class]]: fields left out are the most stable values,
	 * Standard/Standard/Common, as in DTrace.
	 */
	if (!pragma_word(&p, end, &w, &n))
		return perr(ps, t, hint, "#pragma D attributes needs attributes");
	pa.attr.name = pa.attr.data = PROV_STAB_STANDARD;
	pa.attr.dclass = PROV_CLASS_COMMON;
	{
		const char *f = w, *wend = w + n;

		for (unsigned i = 0; f <= wend; i++) {
			const char *e = memchr(f, '/', (size_t)(wend - f));

			if (!e)
				e = wend;
			if (i == 3)
				return perr(ps, t, hint,
					    "invalid attributes '%.*s': more than three fields",
					    (int)n, w);
			if (i < 2)
				v = lookup_name(f, (size_t)(e - f),
						prov_stability_name, PROV_STAB_MAX);
			else
				v = lookup_name(f, (size_t)(e - f),
						prov_class_name, PROV_CLASS_MAX);
			if (v < 0 && i < 2)
				return perr(ps, t,
					    "stability levels are Internal, Private, Obsolete, External, Unstable, Evolving, Stable and Standard",
					    "invalid stability level '%.*s' in #pragma D attributes",
					    (int)(e - f), f);
			if (v < 0)
				return perr(ps, t,
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
		return perr(ps, t, hint,
			    "#pragma D attributes applies only to a provider");
	if (!pragma_word(&p, end, &w, &n))
		return perr(ps, t, hint, "#pragma D attributes needs a provider name");
	pa.provider = xstrndup(w, n);
	if (!pa.provider)
		return nomem(ps);
	if (!pragma_word(&p, end, &w, &n)) {
		free(pa.provider);
		return perr(ps, t, hint,
			    "#pragma D attributes needs what it applies to");
	}
	for (v = 0; v < PROV_ATTR_CNT; v++)
		if (strlen(whats[v]) == n && memcmp(whats[v], w, n) == 0)
			break;
	if (v == PROV_ATTR_CNT) {
		free(pa.provider);
		return perr(ps, t, hint, "invalid attribute target '%.*s'",
			    (int)n, w);
	}
	pa.which = (enum prov_attr_which)v;
	pa.at = *t;
	npa = realloc(ps->attrs, (ps->attr_cnt + 1) * sizeof(*npa));
	if (!npa) {
		free(pa.provider);
		return nomem(ps);
	}
	ps->attrs = npa;
	npa[ps->attr_cnt++] = pa;
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
pwarn(struct parser *ps, const struct tok *t, const char *fmt, ...)
{
	char msg[600], *full, **nw;
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
		return nomem(ps);
	nw = realloc(ps->pf->warnings, (ps->pf->warning_cnt + 1) * sizeof(*nw));
	if (!nw) {
		free(full);
		return nomem(ps);
	}
	ps->pf->warnings = nw;
	nw[ps->pf->warning_cnt++] = full;
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
		err = next(ps);
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
			if (is(&ps->tok, "provider"))
				err = parse_provider(ps);
			else if (is(&ps->tok, "typedef"))
				err = parse_typedef(ps);
			else if (is(&ps->tok, "struct") || is(&ps->tok, "union") ||
				 is(&ps->tok, "enum"))
				err = parse_tagdecl(ps);
			else if (is(&ps->tok, "inline") ||
				 is(&ps->tok, "translator"))
				err = skip_definition(ps);
			else if (is(&ps->tok, "probe")) {
				char b[64];

				err = perr(ps, &ps->tok, NULL,
					   "syntax error near %s: probes are declared inside 'provider NAME { ... };'",
					   tokdesc(&ps->tok, b, sizeof(b)));
			} else if (is_punct(&ps->tok, ';'))
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
	ps.pf = xcalloc(1, sizeof(*ps.pf));
	if (!ps.pf)
		return nomem(&ps);
	ps.pf->path = strdup(name);
	ps.file = ps.pf->path ? intern_file(&ps, name, strlen(name)) : NULL;
	if (!ps.file) {
		prov_file_free(ps.pf);
		return nomem(&ps);
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
