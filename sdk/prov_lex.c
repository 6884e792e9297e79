// SPDX-License-Identifier: MIT
/*
 * prov_lex.c - the provider compiler's lexer and its diagnostics.
 *
 * The lexer works on one buffer: the file itself, or what the C
 * preprocessor made of it.  Line markers (`# 12 "file.h"`, `#line`) move
 * the reported position, so errors point into the user's source even
 * after -C.  Without -C, a directive of the C preprocessor other than
 * #pragma and #line is an error that says to use -C, because silently
 * ignoring `#include` would drop declarations.  Any other `#` line
 * (libvirt's `# file: src/util/vireventglib.c`, `# prefix: rpc`, which
 * its own scripts read) is a comment, as systemtap's line-based `dtrace`
 * reads it; for -C, prov_blank_hash_comments() blanks such lines before
 * cpp sees them, because cpp rejects them as invalid directives.
 *
 * Tokens are D's: identifiers, numbers, strings and character constants
 * (kept as written, escapes and all: the parser only compares and
 * skips them), one-character punctuation, and `#pragma` lines as one
 * token.  The parser looks at most two tokens ahead (prov_peek_n()).
 *
 * Every diagnostic goes through prov_err(): the token's file, line and
 * column, the source line it sits on (for the caret the caller prints),
 * the message and an optional hint.  Errors return -EINVAL, which the
 * parser passes up unchanged, so the first error ends the parse.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "prov_impl.h"

void *prov_calloc(size_t n, size_t sz)
{
	return calloc(n ? n : 1, sz ? sz : 1);
}

char *prov_strndup(const char *s, size_t n)
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

int __attribute__((format(printf, 4, 5)))
prov_err(struct parser *ps, const struct tok *t, const char *hint,
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

int prov_nomem(struct parser *ps)
{
	diag_at(ps->diag, NULL, NULL);
	snprintf(ps->diag->msg, sizeof(ps->diag->msg), "out of memory");
	ps->diag->hint[0] = '\0';
	return -ENOMEM;
}

/* How a token reads in a message: 'name', or "end of file". */
const char *prov_tokdesc(const struct tok *t, char *buf, size_t len)
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

const char *prov_intern_file(struct parser *ps, const char *s, size_t n)
{
	char **nf;

	for (unsigned i = 0; i < ps->file_cnt; i++)
		if (strlen(ps->files[i]) == n && memcmp(ps->files[i], s, n) == 0)
			return ps->files[i];
	if (grow_count(&ps->files, ps->file_cnt, sizeof(*ps->files)) < 0)
		return NULL;
	nf = ps->files;
	nf[ps->file_cnt] = prov_strndup(s, n);
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
			return prov_err(ps, at, NULL, "line number too large");
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
		ps->file = prov_intern_file(ps, name, o);
		if (!ps->file)
			return prov_nomem(ps);
	}
	ps->line = (unsigned)n - 1;
	return 0;
}

/* The directives of the C preprocessor (GNU's included). */
static bool cpp_directive(const char *w, size_t n)
{
	static const char *const known[] = {
		"define",   "undef",  "include", "include_next", "import",
		"if",	    "ifdef",  "ifndef",	 "elif",	 "elifdef",
		"elifndef", "else",   "endif",	 "line",	 "error",
		"warning",  "pragma", "ident",	 "sccs",	 "assert",
		"unassert",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i]) == n && memcmp(known[i], w, n) == 0)
			return true;
	return false;
}

/*
 * Is the `#` line whose text after the `#` is p..eol a comment?  It is
 * unless it is a null directive, a line marker (`# 12 "f"`) or a
 * directive the C preprocessor knows.
 */
static bool hash_comment(const char *p, const char *eol)
{
	const char *w;

	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p == eol || isdigit((unsigned char)*p))
		return false;
	w = p;
	while (p < eol && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	return !cpp_directive(w, (size_t)(p - w));
}

/*
 * Overwrite with blanks every comment `#` line (and its backslash
 * continuations) of buf, keeping the newlines so that cpp's line numbers
 * are the file's.  Returns how many lines were blanked.
 */
unsigned prov_blank_hash_comments(char *buf, size_t len)
{
	char *p = buf, *end = buf + len, *eol, *q;
	unsigned n = 0;
	bool cont = false;

	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		for (q = p; q < eol && (*q == ' ' || *q == '\t'); q++)
			;
		if (!cont && q < eol && *q == '#' && hash_comment(q + 1, eol)) {
			n++;
			for (;;) {
				bool more =
					eol > p && eol[-1] == '\\' && eol < end;

				memset(p, ' ', (size_t)(eol - p));
				if (!more)
					break;
				p = eol + 1;
				eol = memchr(p, '\n', (size_t)(end - p));
				if (!eol)
					eol = end;
			}
		}
		cont = eol > p && eol[-1] == '\\';
		p = eol + 1;
	}
	return n;
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
	    (wl == 4 && memcmp(w, "sccs", 4) == 0) || hash_comment(w, eol))
		return 0;
	t->len = (size_t)(p - hash);
	return prov_err(ps, t, "run dtrace with -C to preprocess the file",
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
				return prov_err(ps, &at, NULL,
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
			return prov_err(ps, t, NULL, "unterminated %s",
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

int prov_next(struct parser *ps)
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
int prov_peek_n(struct parser *ps, unsigned k, const struct tok **t)
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

int prov_peek(struct parser *ps, const struct tok **t)
{
	return prov_peek_n(ps, 0, t);
}

int prov_expect_punct(struct parser *ps, char c, const char *what)
{
	char b[64];
	int err = prov_next(ps);

	if (err)
		return err;
	if (!prov_is_punct(&ps->tok, c))
		return prov_err(ps, &ps->tok, NULL, "expected '%c' %s, found %s", c,
				what, prov_tokdesc(&ps->tok, b, sizeof(b)));
	return 0;
}
