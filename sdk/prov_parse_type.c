// SPDX-License-Identifier: MIT
/*
 * prov_parse_type.c - the C types of probe parameters and typedefs.
 *
 * A provider file's types are C's as D writes them: integer keywords in
 * any order (`long unsigned int` is `unsigned long`, counted and checked
 * as C does), `_Bool`, floating types, `void`, D's `string`,
 * `struct`/`union`/`enum` tags (with or without a body, which is
 * skipped), typedef names of the file and the builtin names of
 * prov_types.c, qualifiers, and any number of `*`.  prov_parse_type()
 * reads one such type and the parameter or typedef name after it, and
 * builds two spellings: D's (what `dtrace -l -v` and the DOF show) and
 * C's (what the generated header declares, with the header each name
 * needs).  Arrays and function pointers are refused with the position
 * of the token at fault.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "prov_impl.h"

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

const struct prov_typedef *prov_find_typedef(const struct prov_file *pf,
					       const char *s, size_t n)
{
	for (unsigned i = 0; i < pf->typedef_cnt; i++)
		if (strlen(pf->typedefs[i].name) == n &&
		    memcmp(pf->typedefs[i].name, s, n) == 0)
			return &pf->typedefs[i];
	return NULL;
}

/* A growing string for building type spellings; out of memory is noted
 * and reported once, when the type is done. */
struct tbuf {
	struct sbuf sb;
	bool oom;
};

static void sb_add(struct tbuf *b, const char *s, size_t n)
{
	if (!b->oom && sbuf_add(&b->sb, s, n) < 0)
		b->oom = true;
}

static void sb_str(struct tbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Append a word or '*' with D/C spacing: "const char *", "char **". */
static void sb_tok(struct tbuf *b, const char *s, size_t n)
{
	bool star = n == 1 && *s == '*';

	if (b->sb.len && !(star && b->sb.b[b->sb.len - 1] == '*'))
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
int prov_parse_type(struct parser *ps, struct prov_type *ty, char **name,
		      struct tok *nametok, const char *ctx, bool in_typedef)
{
	int n_signed = 0, n_unsigned = 0, n_char = 0, n_short = 0, n_int = 0,
	    n_long = 0, n_ptr = 0, n_float = 0, n_double = 0;
	enum base_kind base = B_NONE;
	const struct prov_typedef *td = NULL;
	const struct builtin_type *bt = NULL;
	struct tbuf dname = {0}, prequal = {0}, postq = {0};
	struct tbuf cname = {0};
	struct tok first, tagtok = { 0 }, named = { 0 };
	char *tag = NULL;
	bool tag_union = false, is_enum = false;
	const struct tok *la;
	char b[64];
	int err;

	*name = NULL;
	memset(ty, 0, sizeof(*ty));
	err = prov_peek(ps, &la);
	if (err)
		return err;
	first = *la;

	for (;;) {
		err = prov_peek(ps, &la);
		if (err)
			goto out;
		if (prov_is_punct(la, '*')) {
			if (base == B_NONE) {
				err = prov_err(ps, la, NULL,
					       "expected a type before '*' %s", ctx);
				goto out;
			}
			prov_next(ps);
			n_ptr++;
			sb_tok(&dname, "*", 1);
			sb_tok(&postq, "*", 1);
			continue;
		}
		if (la->kind != T_IDENT)
			break;
		if (prov_is(la, "const") || prov_is(la, "volatile") || prov_is(la, "restrict")) {
			prov_next(ps);
			sb_tok(&dname, ps->tok.s, ps->tok.len);
			if (n_ptr)
				sb_tok(&postq, ps->tok.s, ps->tok.len);
			else
				sb_tok(&prequal, ps->tok.s, ps->tok.len);
			continue;
		}
		if (n_ptr)
			break;		/* a name after the pointers */
		if (prov_is(la, "signed") || prov_is(la, "unsigned") || prov_is(la, "char") ||
		    prov_is(la, "short") || prov_is(la, "int") || prov_is(la, "long")) {
			if (base != B_NONE && base != B_INTWORDS &&
			    !(base == B_FLOAT && prov_is(la, "long"))) {
				err = prov_err(ps, la, NULL,
					       "'%.*s' cannot follow another type %s",
					       (int)la->len, la->s, ctx);
				goto out;
			}
			prov_next(ps);
			n_signed += prov_is(&ps->tok, "signed");
			n_unsigned += prov_is(&ps->tok, "unsigned");
			n_char += prov_is(&ps->tok, "char");
			n_short += prov_is(&ps->tok, "short");
			n_int += prov_is(&ps->tok, "int");
			n_long += prov_is(&ps->tok, "long");
			if (base == B_NONE)
				base = B_INTWORDS;
			sb_tok(&dname, ps->tok.s, ps->tok.len);
			continue;
		}
		if (base != B_NONE) {
			if (base == B_INTWORDS &&
			    (prov_is(la, "float") || prov_is(la, "double")) && !n_char &&
			    !n_short && !n_int && !n_signed && !n_unsigned) {
				/* "long double" */
			} else {
				break;	/* the parameter or typedef name */
			}
		}
		prov_next(ps);
		sb_tok(&dname, ps->tok.s, ps->tok.len);
		if (prov_is(&ps->tok, "_Bool")) {
			base = B_BOOL;
		} else if (prov_is(&ps->tok, "float") || prov_is(&ps->tok, "double")) {
			n_float += prov_is(&ps->tok, "float");
			n_double += prov_is(&ps->tok, "double");
			base = B_FLOAT;
		} else if (prov_is(&ps->tok, "void")) {
			base = B_VOID;
		} else if (prov_is(&ps->tok, "string")) {
			base = B_STRING;
		} else if (prov_is(&ps->tok, "struct") || prov_is(&ps->tok, "union") ||
			   prov_is(&ps->tok, "enum")) {
			struct tok kw = ps->tok;

			base = B_TAG;
			tag_union = prov_is(&kw, "union");
			err = prov_peek(ps, &la);
			if (err)
				goto out;
			if (la->kind == T_IDENT) {
				prov_next(ps);
				tagtok = ps->tok;
				sb_tok(&dname, ps->tok.s, ps->tok.len);
				err = prov_peek(ps, &la);
				if (err)
					goto out;
			} else if (!prov_is_punct(la, '{')) {
				err = prov_err(ps, la, NULL,
					       "expected a tag name after '%.*s', found %s",
					       (int)kw.len, kw.s,
					       prov_tokdesc(la, b, sizeof(b)));
				goto out;
			}
			if (prov_is_punct(la, '{')) {
				struct tok open;

				/*
				 * `typedef struct { ... } name;` is common; a
				 * pointer to it reaches headers as void *.
				 */
				if (!tagtok.s && !in_typedef) {
					err = prov_err(ps, la,
						       "give the type a tag: 'struct name { ... }'",
						       "anonymous %.*s types are not supported %s",
						       (int)kw.len, kw.s, ctx);
					goto out;
				}
				prov_next(ps);
				open = ps->tok;
				err = prov_skip_block(ps, &open, "the type definition");
				if (err)
					goto out;
			}
			if (prov_is(&kw, "enum")) {
				/* an enum is passed as an int */
				base = B_INTWORDS;
				is_enum = true;
			} else if (tagtok.s) {
				tag = prov_strndup(tagtok.s, tagtok.len);
				if (!tag) {
					err = prov_nomem(ps);
					goto out;
				}
			}
		} else {
			named = ps->tok;
			td = prov_find_typedef(ps->pf, named.s, named.len);
			if (!td)
				bt = prov_builtin_type(named.s, named.len);
			if (!td && !bt) {
				err = prov_err(ps, &named,
					       "declare it first, e.g. 'typedef unsigned int Oid;', or pass it with -C and a #define",
					       "unknown type name '%.*s' %s",
					       (int)named.len, named.s, ctx);
				goto out;
			}
			base = B_NAMED;
		}
	}

	if (base == B_NONE) {
		err = prov_peek(ps, &la);
		if (!err)
			err = prov_err(ps, la, NULL, "expected a type %s, found %s",
				       ctx, prov_tokdesc(la, b, sizeof(b)));
		goto out;
	}

	/* the name that ends the declaration, if any */
	err = prov_peek(ps, &la);
	if (err)
		goto out;
	if (la->kind == T_IDENT) {
		prov_next(ps);
		*nametok = ps->tok;
		*name = prov_strndup(ps->tok.s, ps->tok.len);
		if (!*name) {
			err = prov_nomem(ps);
			goto out;
		}
		err = prov_peek(ps, &la);
		if (err)
			goto out;
	}
	if (prov_is_punct(la, '[')) {
		err = prov_err(ps, la, "pass a pointer to the first element instead",
			       "array types are not supported %s", ctx);
		goto out;
	}
	if (prov_is_punct(la, '(')) {
		err = prov_err(ps, la, "cast it to 'uintptr_t' or 'void *'",
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
			err = prov_err(ps, &first, NULL,
				       "invalid combination of type specifiers "
				       "'%s' %s",
				       dname.sb.b ? dname.sb.b : "", ctx);
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
			err = prov_err(ps, &first, NULL,
				       "invalid floating-point type '%s' %s",
				       dname.sb.b ? dname.sb.b : "", ctx);
			goto out;
		}
		ty->kind = PROV_K_FLOAT;
		ty->size = n_float ? 4 : n_long ? 16 : 8;
		sb_str(&cname, dname.sb.b);
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
				err = prov_nomem(ps);
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
	if (prequal.sb.b) {
		struct tbuf q = {0};
		bool after = ty->kind == PROV_K_PTR;

		if (after) {
			sb_str(&q, cname.sb.b);
			sb_tok(&q, prequal.sb.b, prequal.sb.len);
		} else {
			sb_str(&q, prequal.sb.b);
			sb_tok(&q, cname.sb.b, cname.sb.len);
		}
		free(cname.sb.b);
		cname = q;
	}
	if (postq.sb.b) {
		const char *s = postq.sb.b;

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
			free(cname.sb.b);
			memset(&cname, 0, sizeof(cname));
			sb_str(&cname, "void *");
		}
	}
	if (dname.oom || cname.oom || prequal.oom || postq.oom) {
		err = prov_nomem(ps);
		goto out;
	}
	ty->dname = dname.sb.b;
	ty->cname = cname.sb.b;
	dname.sb.b = cname.sb.b = NULL;
	if (strlen(ty->dname) >= PROV_TYPE_NAME_MAX) {
		err = prov_err(ps, &first, NULL,
			       "type name '%.40s...' is longer than %d characters %s",
			       ty->dname, PROV_TYPE_NAME_MAX - 1, ctx);
		goto out;
	}
	err = 0;
out:
	free(dname.sb.b);
	free(cname.sb.b);
	free(prequal.sb.b);
	free(postq.sb.b);
	free(tag);
	if (err) {
		prov_type_clear(ty);
		free(*name);
		*name = NULL;
	}
	return err;
}
