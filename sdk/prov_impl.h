/* SPDX-License-Identifier: MIT */
/*
 * prov_impl.h - internals of the provider compiler shared between its
 * files (not installed, not for other parts of usdt-sdk).
 */
#ifndef USDT_PROV_IMPL_H
#define USDT_PROV_IMPL_H

#include <stdbool.h>
#include <string.h>

#include "prov.h"

/* A type name every provider file may use without declaring it. */
struct builtin_type {
	const char *name;	/* as written: "uint32_t" */
	const char *cname;	/* C spelling when no header declares it */
	unsigned size;
	bool is_signed;
	bool is_pointer;
	enum prov_sysinc inc;	/* header that declares `name`, if any */
};

const struct builtin_type *prov_builtin_type(const char *s, size_t n);

void prov_type_clear(struct prov_type *t);
int prov_type_copy(struct prov_type *dst, const struct prov_type *src);

/*
 * The parser's state, shared by its three files: prov_lex.c (diagnostics
 * and the lexer), prov_parse_type.c (C types in parameters and
 * typedefs) and prov_parse.c (declarations, pragmas, the file).
 */

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

struct prov_typedef {
	char *name;
	struct prov_type type;
	char *file;
	unsigned line;
};

/* prov_lex.c */
void *prov_calloc(size_t n, size_t sz);
char *prov_strndup(const char *s, size_t n);
int __attribute__((format(printf, 4, 5)))
prov_err(struct parser *ps, const struct tok *t, const char *hint,
	 const char *fmt, ...);
int prov_nomem(struct parser *ps);
const char *prov_tokdesc(const struct tok *t, char *buf, size_t len);
const char *prov_intern_file(struct parser *ps, const char *s, size_t n);
int prov_next(struct parser *ps);
int prov_peek_n(struct parser *ps, unsigned k, const struct tok **t);
int prov_peek(struct parser *ps, const struct tok **t);
int prov_expect_punct(struct parser *ps, char c, const char *what);
unsigned prov_blank_hash_comments(char *buf, size_t len);

static inline bool prov_is(const struct tok *t, const char *s)
{
	size_t n = strlen(s);

	return (t->kind == T_IDENT || t->kind == T_PUNCT) && t->len == n &&
	       memcmp(t->s, s, n) == 0;
}

static inline bool prov_is_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->s[0] == c;
}

/* prov_parse_type.c */
const struct prov_typedef *prov_find_typedef(const struct prov_file *pf,
					     const char *s, size_t n);
int prov_parse_type(struct parser *ps, struct prov_type *ty, char **name,
		    struct tok *nametok, const char *ctx, bool in_typedef);

/* prov_parse.c */
int prov_skip_block(struct parser *ps, const struct tok *open,
		    const char *what);

#endif /* USDT_PROV_IMPL_H */
