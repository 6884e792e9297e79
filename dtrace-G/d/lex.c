// SPDX-License-Identifier: MIT
/*
 * lex.c - the lexer of the D language (dtrace-G/d/): D source to tokens,
 * one at a time, for the recursive-descent parser in compile.c.
 *
 * Tokens are C's: integer constants typed by C's rules (the first of
 * int, unsigned int, long, unsigned long that holds the value, narrowed
 * by u/l suffixes), string and character literals with C escapes,
 * identifiers, @aggregation names and operators, longest match first.
 * Blanks, newlines and comments (C and C++ style) separate them; the
 * position (line, column) of each token is kept for messages.
 *
 * Macros are expanded here, as dt_lex.l does: $1, $2, ... become an integer
 * token when the argument is numeric and a string otherwise, $$1, $$2, ...
 * always a string, $target and $pid the process IDs; compile.c calls
 * d_macro_text() too, for macros inside probe descriptions.
 *
 * Line markers of the C preprocessor (-C) set the line number, so
 * messages give the script's own lines (line_marker()).
 *
 * Compile errors: d_perrt() writes "line L, column C: message" into the
 * caller's buffer ("line L of FILE, ..." inside an #include'd FILE;
 * after "[D_TAG] " under -x errtags: d_impl.h lists the tags) and
 * longjmps back to d_compile(), so no parsing
 * function checks a return value, and everything parsed so far lives in
 * the program's arena (d_pool_strndup(), d_pool_grow()) and leaks
 * nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d_impl.h"

#define D_ERRTAG_NAME(t) #t,
const char *const d_errtag_names[] = {D_ERRTAGS(D_ERRTAG_NAME)};

static void __attribute__((format(printf, 5, 0)))
perr_v(struct parser *ps, int tag, int line, int col, const char *fmt,
       va_list ap)
{
	int n;

	n = snprintf(ps->msg, ps->msglen, "%s%s%sline %d%s%s, column %d: ",
		     ps->o && ps->o->errtags ? "[" : "",
		     ps->o && ps->o->errtags ? d_errtag_names[tag] : "",
		     ps->o && ps->o->errtags ? "] " : "", line,
		     ps->file ? " of " : "", ps->file ? ps->file : "", col);
	if (n < 0 || (size_t)n >= ps->msglen)
		n = 0;
	vsnprintf(ps->msg + n, ps->msglen - (size_t)n, fmt, ap);
}

void __attribute__((noreturn, format(printf, 5, 6)))
d_perrt(struct parser *ps, int tag, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perr_v(ps, tag, line, col, fmt, ap);
	va_end(ap);
	longjmp(ps->jb, 1);
}

void __attribute__((noreturn, format(printf, 4, 5)))
d_perr(struct parser *ps, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	perr_v(ps, D_UNKNOWN, line, col, fmt, ap);
	va_end(ap);
	longjmp(ps->jb, 1);
}

void d_lx_adv(struct lexpos *l)
{
	if (*l->p == '\n') {
		l->line++;
		l->col = 1;
	} else {
		l->col++;
	}
	l->p++;
}

/*
 * A line marker of the C preprocessor (-C): `# 12 "file" 1 3` or
 * `#line 12 "file"`, at the start of a line.  It names the line that
 * follows it, so the counter is set one short and the newline ending the
 * marker brings it to 12: the script's lines keep their numbers in
 * messages however many lines cpp dropped or added (its own prelude, an
 * #include, a run of blank lines it folded).  A marker naming a file
 * other than the script (an #include'd header) is remembered, and a
 * message raised while the lexer is in that file names it.  False, with
 * nothing consumed, for any other '#' line (#pragma: compile.c).
 */
static bool line_marker(struct parser *ps)
{
	struct lexpos *l = &ps->pos;
	const char *q = l->p + 1, *name = NULL;
	const char *src = ps->o ? ps->o->srcname : NULL;
	size_t namelen = 0;
	long n = 0;

	while (*q == ' ' || *q == '\t')
		q++;
	if (strncmp(q, "line", 4) == 0 && (q[4] == ' ' || q[4] == '\t'))
		for (q += 4; *q == ' ' || *q == '\t';)
			q++;
	if (!isdigit((unsigned char)*q))
		return false;
	while (isdigit((unsigned char)*q) && n < 100000000)
		n = n * 10 + (*q++ - '0');
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q == '"') {
		name = ++q;
		while (*q && *q != '"' && *q != '\n')
			q += q[0] == '\\' && q[1] && q[1] != '\n' ? 2 : 1;
		namelen = (size_t)(q - name);
		/* the script itself, or the blank prelude lines cpp's
		 * <built-in> and <command-line> give: no file named */
		if ((src && strlen(src) == namelen &&
		     memcmp(src, name, namelen) == 0) ||
		    name[0] == '<') {
			ps->file = NULL;
		} else {
			ps->file = d_pool_strndup(ps, name, namelen);
		}
	}
	while (*l->p && *l->p != '\n')
		d_lx_adv(l);
	l->line = (int)n - 1;
	return true;
}

/* Skip blanks, comments and line markers. */
void d_lx_skip(struct parser *ps)
{
	struct lexpos *l = &ps->pos;

	for (;;) {
		if (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' ||
		    *l->p == '\r' || *l->p == '\f' || *l->p == '\v') {
			d_lx_adv(l);
		} else if (l->p[0] == '/' && l->p[1] == '*') {
			int line = l->line, col = l->col;

			d_lx_adv(l);
			d_lx_adv(l);
			while (*l->p && !(l->p[0] == '*' && l->p[1] == '/'))
				d_lx_adv(l);
			if (!*l->p)
				d_perrt(ps, D_SYNTAX, line, col, "end-of-file encountered "
						    "before matching */");
			d_lx_adv(l);
			d_lx_adv(l);
		} else if (l->p[0] == '/' && l->p[1] == '/') {
			while (*l->p && *l->p != '\n')
				d_lx_adv(l);
		} else if (l->p[0] == '#' && l->col == 1 && line_marker(ps)) {
			continue;
		} else {
			return;
		}
	}
}

char *d_pool_strndup(struct parser *ps, const char *s, size_t n)
{
	return d_ar_strndup(&ps->prog->pool, s, n);
}

/*
 * Room for one more element of a parse-time array.  Parse-time memory
 * comes from the program's pool so that a compile error, which
 * longjmps out of any depth, leaks nothing.
 */
void *d_pool_grow(struct parser *ps, void *old, unsigned n, size_t sz)
{
	void *p = d_ar_alloc(&ps->prog->pool, (n + 1) * sz);

	if (n)
		memcpy(p, old, n * sz);
	return p;
}

/* $1..$N, $$1.., $target, $pid, $ppid, $pgid, $sid, $uid, $gid, $euid,
 * $egid, $cwd: the macro's text, or NULL (error). */
const char *d_macro_text(struct parser *ps, const char *name,
			      bool *is_int, char *buf, size_t buflen, int line,
			      int col)
{
	const struct d_compile_opts *o = ps->o;

	*is_int = false;
	if (strcmp(name, "target") == 0) {
		if (!o || o->target <= 0)
			d_perrt(ps, D_MACRO_UNDEF, line, col,
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
	{
		/* dtrace's own process, as DTrace's macros are */
		static const char *const ids[] = { "ppid", "pgid", "sid",
						   "uid",  "gid",  "euid",
						   "egid" };
		long long v[] = { getppid(), getpgid(0), getsid(0),
				  getuid(),  getgid(),	 geteuid(),
				  getegid() };

		for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			if (strcmp(name, ids[i]) == 0) {
				snprintf(buf, buflen, "%lld", v[i]);
				*is_int = true;
				return buf;
			}
		if (strcmp(name, "cwd") == 0) { /* a string: the pool's */
			char *cwd = getcwd(NULL, 0);
			const char *r;

			if (!cwd)
				d_perr(ps, line, col, "macro $cwd: %s",
				       strerror(errno));
			r = d_pool_strndup(ps, cwd, strlen(cwd));
			free(cwd);
			return r;
		}
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
			d_perrt(ps, D_MACRO_UNDEF, line, col,
			       "macro argument $%lu is not defined", n);
		}
		return o->macro_argv[n - 1];
	}
	d_perrt(ps, D_MACRO_UNDEF, line, col, "macro $%s is not defined", name);
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
		d_perrt(ps, D_INT_OFLOW, t->line, t->col, "integer constant is too large");
	if (s[0] == '0' && !hex && end - s > 1)
		hex = true; /* octal: same rules as hex */
	while (l->p < end)
		d_lx_adv(l);
	for (;;) {
		if (*l->p == 'u' || *l->p == 'U')
			uns = true;
		else if (*l->p == 'l' || *l->p == 'L')
			lng++;
		else
			break;
		d_lx_adv(l);
	}
	if (isalnum((unsigned char)*l->p) || *l->p == '_')
		d_perrt(ps, D_INT_DIGIT, t->line, t->col, "invalid digit or suffix in "
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

	d_lx_adv(l);
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
			d_perrt(ps, D_STR_ESC, line, col, "invalid escape sequence");
		while (isxdigit((unsigned char)*l->p)) {
			int d = *l->p;

			v = v * 16 + (isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10));
			d_lx_adv(l);
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
			d_lx_adv(l);
			n++;
		}
		return v & 0xff;
	}
	default:
		d_perrt(ps, D_STR_ESC, line, col, "invalid escape sequence \\%c", c);
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

void d_lex(struct parser *ps)
{
	struct lexpos *l = &ps->pos;
	struct tok *t = &ps->tk;
	const char *s;
	unsigned i;

	d_lx_skip(ps);
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
			d_lx_adv(l);
		t->t = TK_ID;
		t->s = d_pool_strndup(ps, s, (size_t)(l->p - s));
	} else if (*s == '@') {
		d_lx_adv(l);
		while (isalnum((unsigned char)*l->p) || *l->p == '_')
			d_lx_adv(l);
		t->t = TK_AGG;
		t->s = d_pool_strndup(ps, s + 1, (size_t)(l->p - s - 1));
	} else if (*s == '"') {
		struct sbuf *sb = &ps->tmp;

		sb->len = 0;
		d_lx_adv(l);
		while (*l->p != '"') {
			if (!*l->p || *l->p == '\n')
				d_perrt(ps, D_STR_NL, t->line, t->col,
				       "newline encountered in string literal");
			if (*l->p == '\\') {
				char c;

				d_lx_adv(l);
				c = (char)esc_char(ps, t->line, t->col);
				d_sb_add(sb, &c, 1);
			} else {
				d_sb_add(sb, l->p, 1);
				d_lx_adv(l);
			}
		}
		d_lx_adv(l);
		t->t = TK_STR;
		t->s = d_pool_strndup(ps, sb->b ? sb->b : "", sb->len);
	} else if (*s == '\'') {
		int c;

		d_lx_adv(l);
		if (*l->p == '\\') {
			d_lx_adv(l);
			c = esc_char(ps, t->line, t->col);
		} else if (*l->p && *l->p != '\'') {
			c = (unsigned char)*l->p;
			d_lx_adv(l);
		} else {
			d_perrt(ps, D_CHR_NULL, t->line, t->col, "empty character constant");
		}
		if (*l->p != '\'')
			d_perrt(ps, D_CHR_NL, t->line, t->col,
			       "unterminated character constant");
		d_lx_adv(l);
		t->t = TK_INT;
		t->i = (int8_t)c;
		t->sz = 4;
		t->sg = 1;
	} else if (*s == '$') {
		char name[64], buf[64];
		const char *txt;
		bool isint, dbl = false;
		size_t n = 0;

		d_lx_adv(l);
		if (*l->p == '$') {
			dbl = true;
			d_lx_adv(l);
		}
		while ((isalnum((unsigned char)*l->p) || *l->p == '_') &&
		       n < sizeof(name) - 1) {
			name[n++] = *l->p;
			d_lx_adv(l);
		}
		name[n] = '\0';
		if (!n)
			d_perrt(ps, D_SYNTAX, t->line, t->col, "syntax error near \"$\"");
		txt = d_macro_text(ps, name, &isint, buf, sizeof(buf), t->line,
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
			t->s = d_pool_strndup(ps, txt, strlen(txt));
		}
	} else {
		t->t = TK_OP;
		for (i = 0; i < sizeof(ops3) / sizeof(ops3[0]); i++)
			if (strncmp(s, ops3[i].s, 3) == 0) {
				t->op = ops3[i].op;
				d_lx_adv(l);
				d_lx_adv(l);
				d_lx_adv(l);
				goto done;
			}
		for (i = 0; i < sizeof(ops2) / sizeof(ops2[0]); i++)
			if (strncmp(s, ops2[i].s, 2) == 0) {
				t->op = ops2[i].op;
				d_lx_adv(l);
				d_lx_adv(l);
				goto done;
			}
		if (*s == '`')
			d_perrt(ps, D_IDENT_UNSUPP, t->line, t->col,
				"`%.*s: kernel symbols are not supported "
				"(this dtrace reads no kernel variables)",
				(int)strspn(s + 1, "abcdefghijklmnopqrstuvwxyz"
						   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
						   "0123456789_`."),
				s + 1);
		if (!strchr("+-*/%&|^!~<>=?:;,()[]{}.", *s))
			d_perrt(ps, D_SYNTAX, t->line, t->col, "invalid character '%c'",
			       isprint((unsigned char)*s) ? *s : '?');
		t->op = (unsigned char)*s;
		d_lx_adv(l);
	}
done:
	t->end = l->p;
}

void __attribute__((noreturn)) d_syntax_error(struct parser *ps)
{
	struct tok *t = &ps->tk;

	if (ps->td_note && t->start && t->start >= ps->td_miss.end) {
		/* right after a name taken for no type, nothing but '*'
		 * and ')' between: (request_t *)..., (req_id_t)arg0 */
		const char *q = ps->td_miss.end;

		while (q < t->start && strchr(" \t\r\n*)", *q))
			q++;
		if (q == t->start)
			d_perrt(ps, D_SYNTAX, ps->td_miss.line,
				ps->td_miss.col,
				"syntax error near \"%.*s\": no type named %s "
				"was found: %s",
				(int)(t->end - t->start), t->start,
				ps->td_miss.s, ps->td_note);
	}
	if (t->t == TK_EOF)
		d_perrt(ps, D_SYNTAX, t->line, t->col,
		       "syntax error near end of input");
	d_perrt(ps, D_SYNTAX, t->line, t->col, "syntax error near \"%.*s\"",
	       (int)(t->end - t->start), t->start);
}

bool d_is_op(struct parser *ps, int op)
{
	return ps->tk.t == TK_OP && ps->tk.op == op;
}

void d_expect(struct parser *ps, int op)
{
	if (!d_is_op(ps, op))
		d_syntax_error(ps);
	d_lex(ps);
}
