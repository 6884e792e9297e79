// SPDX-License-Identifier: MIT
/*
 * t-prov.c - unit tests of the provider compiler (sdk/prov_parse.c):
 * every grammar construct, the type model of every accepted type, the
 * argument map of translated lists, pragmas, clauses, line markers, and
 * the position and text of each error.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prov.h"
#include "prov_impl.h"
#include "tap.h"

static struct prov_diag d;

static struct prov_file *parse(const char *src)
{
	struct prov_file *pf = NULL;
	int err = prov_parse_buf("t.d", src, strlen(src), &pf, &d);

	if (err) {
		diag("unexpected error: line %u:%u: %s", d.line, d.col, d.msg);
		return NULL;
	}
	return pf;
}

/* Expect an error at line:col whose message contains `msg`. */
static void parse_fails(const char *src, unsigned line, unsigned col,
			const char *msg, const char *what)
{
	struct prov_file *pf = NULL;
	int err = prov_parse_buf("t.d", src, strlen(src), &pf, &d);

	if (!ok(err == -EINVAL && !pf, "%s: rejected", what)) {
		prov_file_free(pf);
		return;
	}
	if (!ok(d.line == line && d.col == col, "%s: at line %u:%u", what,
		line, col))
		diag("got line %u:%u (%s)", d.line, d.col, d.msg);
	if (!ok(strstr(d.msg, msg) != NULL, "%s: says '%s'", what, msg))
		diag("got '%s'", d.msg);
}

static void test_design_example(void)
{
	static const char src[] =
		"#pragma D attributes Evolving/Evolving/Common provider myapp provider\n"
		"typedef unsigned int Oid;              /* typedefs allowed */\n"
		"struct conn;                           /* forward declarations */\n"
		"provider myapp {\n"
		"\tprobe query__start(const char *, int);\n"
		"\tprobe query__done(const char *q, long rows) : (string q, long rows);\n"
		"\tprobe tick();\n"
		"};\n";
	struct prov_file *pf = parse(src);
	const struct prov_provider *pv;
	const struct prov_probe *pr;

	if (!ok(pf != NULL, "design example parses"))
		return;
	is_int(pf->provider_cnt, 1, "one provider");
	pv = prov_find_provider(pf, "myapp");
	if (!ok(pv != NULL, "provider myapp found"))
		goto out;
	is_int(pv->line, 4, "provider line");
	is_int(pv->probe_cnt, 3, "three probes");
	is_int(pv->attr[PROV_ATTR_PROVIDER].name, PROV_STAB_EVOLVING,
	       "pragma: provider names Evolving");
	is_int(pv->attr[PROV_ATTR_PROVIDER].data, PROV_STAB_EVOLVING,
	       "pragma: provider data Evolving");
	is_int(pv->attr[PROV_ATTR_PROVIDER].dclass, PROV_CLASS_COMMON,
	       "pragma: provider class Common");
	is_int(pv->attr[PROV_ATTR_ARGS].name, PROV_STAB_PRIVATE,
	       "default args attribute Private");
	is_int(pv->attr[PROV_ATTR_ARGS].dclass, PROV_CLASS_UNKNOWN,
	       "default args class Unknown");

	pr = prov_find_probe(pv, "query__start");
	if (ok(pr != NULL, "query__start found")) {
		is_str(pr->pubname, "query-start", "public name");
		is_int(pr->nargc, 2, "query-start nargc");
		is_str(pr->nargv[0].type.dname, "const char *", "arg0 dname");
		is_str(pr->nargv[0].type.cname, "const char *", "arg0 cname");
		ok(pr->nargv[0].type.is_string, "const char * is a string");
		is_int(pr->nargv[0].type.size, 8, "pointer size");
		ok(pr->nargv[0].name == NULL, "unnamed parameter");
		is_str(pr->nargv[1].type.dname, "int", "arg1 int");
		ok(pr->nargv[1].type.is_signed, "int is signed");
		ok(!pr->has_xargs, "no translated list");
		is_int(pr->xargc, 2, "xargs default to native");
		is_int(pr->argmap[0], 0, "identity map 0");
		is_int(pr->argmap[1], 1, "identity map 1");
		is_int(pr->line, 5, "probe line");
		is_int(pr->col, 8, "probe column");
	}
	pr = prov_find_probe(pv, "query__done");
	if (ok(pr != NULL, "query__done found")) {
		ok(pr->has_xargs, "translated list");
		is_int(pr->xargc, 2, "two xargs");
		is_str(pr->xargv[0].type.dname, "string", "xarg0 is string");
		ok(pr->xargv[0].type.is_string, "string is a string");
		is_str(pr->xargv[0].type.cname, "const char *",
		       "string's C spelling");
		is_str(pr->nargv[1].name, "rows", "named native arg");
		is_int(pr->argmap[1], 1, "map by name");
	}
	pr = prov_find_probe(pv, "tick");
	if (ok(pr != NULL, "tick found")) {
		is_int(pr->nargc, 0, "tick has no args");
		is_int(pr->xargc, 0, "tick has no xargs");
	}
	ok(prov_find_probe(pv, "query-start") == NULL,
	   "lookup is by declared name");
out:
	prov_file_free(pf);
}

struct type_case {
	const char *decl;	/* as written in the probe */
	const char *dname;
	const char *cname;
	enum prov_kind kind;
	unsigned size;
	int is_signed;
	int is_string;
	enum prov_sysinc inc;
};

static const struct type_case types[] = {
	{ "char", "char", "char", PROV_K_INT, 1, 1, 0, PROV_INC_NONE },
	{ "signed char", "signed char", "signed char", PROV_K_INT, 1, 1, 0, 0 },
	{ "unsigned char", "unsigned char", "unsigned char", PROV_K_INT, 1, 0, 0, 0 },
	{ "short", "short", "short", PROV_K_INT, 2, 1, 0, 0 },
	{ "short int", "short int", "short", PROV_K_INT, 2, 1, 0, 0 },
	{ "unsigned short", "unsigned short", "unsigned short", PROV_K_INT, 2, 0, 0, 0 },
	{ "int", "int", "int", PROV_K_INT, 4, 1, 0, 0 },
	{ "signed", "signed", "int", PROV_K_INT, 4, 1, 0, 0 },
	{ "unsigned", "unsigned", "unsigned int", PROV_K_INT, 4, 0, 0, 0 },
	{ "unsigned int", "unsigned int", "unsigned int", PROV_K_INT, 4, 0, 0, 0 },
	{ "long", "long", "long", PROV_K_INT, 8, 1, 0, 0 },
	{ "long int", "long int", "long", PROV_K_INT, 8, 1, 0, 0 },
	{ "unsigned long", "unsigned long", "unsigned long", PROV_K_INT, 8, 0, 0, 0 },
	{ "long unsigned int", "long unsigned int", "unsigned long", PROV_K_INT, 8, 0, 0, 0 },
	{ "long long", "long long", "long long", PROV_K_INT, 8, 1, 0, 0 },
	{ "unsigned long long", "unsigned long long", "unsigned long long", PROV_K_INT, 8, 0, 0, 0 },
	{ "_Bool", "_Bool", "_USDT_BOOL", PROV_K_INT, 1, 0, 0, 0 },
	{ "bool", "bool", "_USDT_BOOL", PROV_K_INT, 1, 0, 0, 0 },
	{ "int8_t", "int8_t", "int8_t", PROV_K_INT, 1, 1, 0, PROV_INC_STDINT },
	{ "uint8_t", "uint8_t", "uint8_t", PROV_K_INT, 1, 0, 0, PROV_INC_STDINT },
	{ "int16_t", "int16_t", "int16_t", PROV_K_INT, 2, 1, 0, PROV_INC_STDINT },
	{ "uint16_t", "uint16_t", "uint16_t", PROV_K_INT, 2, 0, 0, PROV_INC_STDINT },
	{ "int32_t", "int32_t", "int32_t", PROV_K_INT, 4, 1, 0, PROV_INC_STDINT },
	{ "uint32_t", "uint32_t", "uint32_t", PROV_K_INT, 4, 0, 0, PROV_INC_STDINT },
	{ "int64_t", "int64_t", "int64_t", PROV_K_INT, 8, 1, 0, PROV_INC_STDINT },
	{ "uint64_t", "uint64_t", "uint64_t", PROV_K_INT, 8, 0, 0, PROV_INC_STDINT },
	{ "intptr_t", "intptr_t", "intptr_t", PROV_K_INT, 8, 1, 0, PROV_INC_STDINT },
	{ "uintptr_t", "uintptr_t", "uintptr_t", PROV_K_INT, 8, 0, 0, PROV_INC_STDINT },
	{ "intmax_t", "intmax_t", "intmax_t", PROV_K_INT, 8, 1, 0, PROV_INC_STDINT },
	{ "size_t", "size_t", "size_t", PROV_K_INT, 8, 0, 0, PROV_INC_SYSTYPES },
	{ "ssize_t", "ssize_t", "ssize_t", PROV_K_INT, 8, 1, 0, PROV_INC_SYSTYPES },
	{ "off_t", "off_t", "off_t", PROV_K_INT, 8, 1, 0, PROV_INC_SYSTYPES },
	{ "pid_t", "pid_t", "pid_t", PROV_K_INT, 4, 1, 0, PROV_INC_SYSTYPES },
	{ "uid_t", "uid_t", "uid_t", PROV_K_INT, 4, 0, 0, PROV_INC_SYSTYPES },
	{ "gid_t", "gid_t", "gid_t", PROV_K_INT, 4, 0, 0, PROV_INC_SYSTYPES },
	{ "ptrdiff_t", "ptrdiff_t", "ptrdiff_t", PROV_K_INT, 8, 1, 0, PROV_INC_STDDEF },
	{ "uint_t", "uint_t", "unsigned int", PROV_K_INT, 4, 0, 0, 0 },
	{ "u_longlong_t", "u_longlong_t", "unsigned long long", PROV_K_INT, 8, 0, 0, 0 },
	{ "caddr_t", "caddr_t", "char *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "enum color", "enum color", "int", PROV_K_INT, 4, 1, 0, 0 },
	{ "char *", "char *", "char *", PROV_K_PTR, 8, 0, 1, 0 },
	{ "const char *", "const char *", "const char *", PROV_K_PTR, 8, 0, 1, 0 },
	{ "char const *", "char const *", "const char *", PROV_K_PTR, 8, 0, 1, 0 },
	{ "const char *const", "const char * const", "const char * const", PROV_K_PTR, 8, 0, 1, 0 },
	{ "unsigned char *", "unsigned char *", "unsigned char *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "char **", "char **", "char **", PROV_K_PTR, 8, 0, 0, 0 },
	{ "void *", "void *", "void *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "const void *", "const void *", "const void *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "string", "string", "const char *", PROV_K_PTR, 8, 0, 1, 0 },
	{ "struct conn *", "struct conn *", "struct conn *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "union u *", "union u *", "union u *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "int *", "int *", "int *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "uint64_t *", "uint64_t *", "uint64_t *", PROV_K_PTR, 8, 0, 0, PROV_INC_STDINT },
	{ "Oid", "Oid", "unsigned int", PROV_K_INT, 4, 0, 0, 0 },
	{ "Oid *", "Oid *", "unsigned int *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "cstr", "cstr", "char *", PROV_K_PTR, 8, 0, 1, 0 },
	{ "const cstr", "const cstr", "char * const", PROV_K_PTR, 8, 0, 1, 0 },
	{ "conn_t", "conn_t", "struct conn *", PROV_K_PTR, 8, 0, 0, 0 },
	{ "len_t", "len_t", "size_t", PROV_K_INT, 8, 0, 0, PROV_INC_SYSTYPES },
	{ "big_t", "big_t", "long long", PROV_K_INT, 8, 1, 0, 0 },
};

static void test_types(void)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const struct type_case *c = &types[i];
		const struct prov_type *t;
		struct prov_file *pf;
		char src[512];

		snprintf(src, sizeof(src),
			 "typedef unsigned int Oid;\n"
			 "typedef char *cstr;\n"
			 "typedef struct conn *conn_t;\n"
			 "typedef size_t len_t;\n"
			 "typedef long long big_t;\n"
			 "provider p { probe x(%s v); };\n", c->decl);
		pf = parse(src);
		if (!ok(pf != NULL, "type '%s' accepted", c->decl))
			continue;
		t = &pf->providers[0].probes[0].nargv[0].type;
		is_str(t->dname, c->dname, "'%s' D spelling", c->decl);
		is_str(t->cname, c->cname, "'%s' C spelling", c->decl);
		is_int(t->kind, c->kind, "'%s' kind", c->decl);
		is_int(t->size, c->size, "'%s' size", c->decl);
		is_int(t->is_signed, c->is_signed, "'%s' signedness", c->decl);
		is_int(t->is_string, c->is_string, "'%s' string-ness", c->decl);
		is_int(t->inc, c->inc, "'%s' system header", c->decl);
		is_str(pf->providers[0].probes[0].nargv[0].name, "v",
		       "'%s' parameter name", c->decl);
		prov_file_free(pf);
	}
}

static void test_tags(void)
{
	struct prov_file *pf = parse(
		"struct conn { int fd; char name[16]; };\n"
		"union val;\n"
		"enum color { RED, GREEN };\n"
		"typedef struct conn conn_s;\n"
		"provider p { probe a(struct conn *c, union val *v, conn_s *s); };\n");
	const struct prov_probe *pr;

	if (!ok(pf != NULL, "struct/union/enum declarations"))
		return;
	pr = &pf->providers[0].probes[0];
	is_str(pr->nargv[0].type.tag, "conn", "struct tag kept");
	ok(!pr->nargv[0].type.tag_is_union, "struct is not a union");
	is_str(pr->nargv[1].type.tag, "val", "union tag kept");
	ok(pr->nargv[1].type.tag_is_union, "union is a union");
	is_str(pr->nargv[2].type.cname, "struct conn *",
	       "typedef of struct expands under a pointer");
	is_str(pr->nargv[2].type.tag, "conn", "typedef keeps the tag");
	prov_file_free(pf);
}

static void test_params(void)
{
	struct prov_file *pf = parse(
		"provider p {\n"
		"  probe v(void);\n"
		"  probe vp(void *p);\n"
		"  probe twelve(int a1, int a2, int a3, int a4, int a5, int a6,\n"
		"               int a7, int a8, int a9, int a10, int a11, int a12);\n"
		"  probe swap(int a, char *b) : (char *b, int a);\n"
		"  probe pos(int, long) : (long, int);\n"
		"  probe fewer(int a, int b, int c) : (int c);\n"
		"};\n");
	const struct prov_provider *pv;
	const struct prov_probe *pr;

	if (!ok(pf != NULL, "parameter lists"))
		return;
	pv = &pf->providers[0];
	pr = prov_find_probe(pv, "v");
	is_int(pr->nargc, 0, "(void) is empty");
	pr = prov_find_probe(pv, "vp");
	is_int(pr->nargc, 1, "(void *p) has one argument");
	is_str(pr->nargv[0].type.dname, "void *", "void pointer");
	pr = prov_find_probe(pv, "twelve");
	is_int(pr->nargc, 12, "twelve arguments");
	is_str(pr->nargv[11].name, "a12", "twelfth name");
	pr = prov_find_probe(pv, "swap");
	is_int(pr->xargc, 2, "swap xargc");
	is_int(pr->argmap[0], 1, "xarg b maps to native 1");
	is_int(pr->argmap[1], 0, "xarg a maps to native 0");
	pr = prov_find_probe(pv, "pos");
	is_int(pr->argmap[0], 0, "unnamed xargs map by position (0)");
	is_int(pr->argmap[1], 1, "unnamed xargs map by position (1)");
	is_str(pr->xargv[0].type.dname, "long", "translated type kept");
	pr = prov_find_probe(pv, "fewer");
	is_int(pr->xargc, 1, "fewer translated arguments");
	is_int(pr->argmap[0], 2, "xarg c maps to native 2");
	prov_file_free(pf);
}

static void test_clauses(void)
{
	struct prov_file *pf;

	/* QEMU runs -h and -G on provider files of trace groups with no events */
	pf = parse("");
	if (ok(pf != NULL, "an empty file is accepted"))
		is_int(pf->provider_cnt, 0, "empty file: no providers");
	prov_file_free(pf);
	pf = parse("  /* nothing */ \n\n");
	if (ok(pf != NULL, "a file of comments only is accepted"))
		is_int(pf->provider_cnt, 0, "comments only: no providers");
	prov_file_free(pf);

	pf = parse("BEGIN{}");
	if (ok(pf != NULL, "a BEGIN{} script is accepted")) {
		is_int(pf->provider_cnt, 0, "BEGIN{}: no providers");
		is_int(pf->clause_cnt, 1, "BEGIN{}: one clause");
		prov_file_free(pf);
	}
	pf = parse("#!/usr/sbin/dtrace -s\n"
		   "#pragma D option quiet\n"
		   "BEGIN, END { printf(\"}{\\\"\"); x = '}'; }\n"
		   "syscall::read:entry\n/pid == $target && arg0 > 1/\n{ @[probefunc] = count(); }\n"
		   "pid$target:a.out:main:entry { self->t = timestamp; };\n"
		   "tick-1s { exit(0); }\n"
		   "inline int LIMIT = 5;\n"
		   "translator info_t < struct conn *c > { fd = c->fd; };\n"
		   "provider after { probe x(); };\n");
	if (ok(pf != NULL, "clauses, inline and translator are skipped")) {
		is_int(pf->clause_cnt, 4, "four clauses counted");
		is_int(pf->provider_cnt, 1, "provider after clauses");
		prov_file_free(pf);
	}
	pf = parse("// line comment\n/* block\n comment */ provider p { probe a(); }; // end");
	if (ok(pf != NULL, "comments of both kinds"))
		prov_file_free(pf);
	/* as in C, a comment before '#' still leaves a directive */
	pf = parse("/* only a comment */ #pragma D option quiet\n;\n");
	if (ok(pf != NULL, "a directive may follow a comment"))
		is_int(pf->provider_cnt, 0, "pragma-only file has no providers");
	prov_file_free(pf);
}

static void test_pragmas(void)
{
	struct prov_file *pf = parse(
		"provider r { probe a(); };\n"
		"#pragma D attributes Stable/Evolving/Common provider r provider\n"
		"#pragma D attributes evolving provider r module\n"
		"#pragma D attributes Unstable/Private provider r function\n"
		"#pragma D attributes Standard/Standard/ISA provider r name\n"
		"#pragma D attributes Internal/Internal/CPU provider r args\n"
		"#pragma D attributes Stable provider elsewhere provider\n"
		"#pragma ident \"whatever\"\n"
		"#pragma once\n");
	const struct prov_provider *pv;

	if (!ok(pf != NULL, "pragmas after the provider"))
		return;
	pv = &pf->providers[0];
	is_int(pv->attr[PROV_ATTR_PROVIDER].name, PROV_STAB_STABLE, "provider name");
	is_int(pv->attr[PROV_ATTR_PROVIDER].data, PROV_STAB_EVOLVING, "provider data");
	is_int(pv->attr[PROV_ATTR_MODULE].name, PROV_STAB_EVOLVING,
	       "case-insensitive name");
	is_int(pv->attr[PROV_ATTR_MODULE].data, PROV_STAB_STANDARD,
	       "missing data defaults to Standard");
	is_int(pv->attr[PROV_ATTR_MODULE].dclass, PROV_CLASS_COMMON,
	       "missing class defaults to Common");
	is_int(pv->attr[PROV_ATTR_FUNCTION].data, PROV_STAB_PRIVATE, "function data");
	is_int(pv->attr[PROV_ATTR_NAME].dclass, PROV_CLASS_ISA, "name class");
	is_int(pv->attr[PROV_ATTR_ARGS].dclass, PROV_CLASS_CPU, "args class");
	is_int(pf->warning_cnt, 1, "pragma for an undefined provider warns");
	if (pf->warning_cnt)
		ok(strstr(pf->warnings[0], "line 7:") &&
		   strstr(pf->warnings[0], "'elsewhere'"),
		   "warning names line and provider");
	prov_file_free(pf);
}

/*
 * As systemtap's dtrace reads them: `#` lines that are no directive are
 * comments, and a provider may end without its ';' (with a warning).
 */
static void test_systemtap_forms(void)
{
	struct prov_file *pf;
	char buf[] = "provider p {\n# file: a.c\n#define X \\\n  1\n"
		     "  # prefix: rpc \\\n continued\n#\n# 3 \"x\"\n"
		     "#!shebang\n}\n";

	pf = parse("provider p {\n# file: src/a.c\n #\tprefix: rpc\n"
		   "\tprobe a(int);\n# binary: x\n};\n");
	ok(pf && pf->provider_cnt == 1 && pf->providers[0].probe_cnt == 1 &&
	   pf->providers[0].probes[0].line == 4 && pf->warning_cnt == 0,
	   "'# file:' lines are comments");
	prov_file_free(pf);
	pf = parse("provider p {\n probe a();\n}\nprovider q { probe b(); }\n");
	ok(pf && pf->provider_cnt == 2, "providers without ';' accepted");
	is_int(pf ? pf->warning_cnt : 0, 2, "one warning each");
	if (pf && pf->warning_cnt == 2)
		ok(strcmp(pf->warnings[0],
			  "line 3: provider 'p' is closed without ';' after its '}'; accepted, as systemtap's dtrace does") == 0 &&
		   strstr(pf->warnings[1], "line 4: provider 'q'"),
		   "warnings name the line of the '}'");
	prov_file_free(pf);
	/* for cpp: comment lines (and continuations) blanked, lines kept */
	is_int(prov_blank_hash_comments(buf, strlen(buf)), 3,
	       "three comment lines blanked");
	ok(strcmp(buf, "provider p {\n           \n#define X \\\n  1\n"
		       "                 \n          \n#\n# 3 \"x\"\n"
		       "         \n}\n") == 0,
	   "directives, null directives and markers kept");
}

static void test_line_markers(void)
{
	struct prov_file *pf;

	pf = parse("# 1 \"probes.d\"\n"
		   "# 1 \"types.h\" 1\n"
		   "typedef int myint;\n"
		   "# 3 \"probes.d\" 2\n"
		   "provider p {\n"
		   "  probe a(myint);\n"
		   "};\n");
	if (ok(pf != NULL, "line markers are understood")) {
		is_int(pf->providers[0].line, 3, "provider line after marker");
		is_int(pf->providers[0].probes[0].line, 4, "probe line after marker");
		is_str(pf->providers[0].file, "probes.d", "provider file");
		prov_file_free(pf);
	}
	parse_fails("# 1 \"x.d\"\n# 40 \"inc/types.h\"\n\n  typedef float money;\n"
		    "provider p { probe a(money); };\n", 42, 22,
		    "floating-point type 'money'", "marker");
	is_str(d.file, "inc/types.h", "error reported in the included file");
	parse_fails("#line 100 \"other.d\"\nprovider p { probe a(foo); };\n",
		    100, 22, "unknown type name 'foo'", "#line directive");
	is_str(d.file, "other.d", "#line sets the file");
}

static void test_errors(void)
{
	parse_fails("provider p { probe a(foo_t); };", 1, 22,
		    "unknown type name 'foo_t' in argument 1 of probe 'a'",
		    "unknown type");
	ok(strstr(d.hint, "typedef") != NULL, "unknown type hint");
	parse_fails("provider p {\n probe a(int, double);\n};", 2, 15,
		    "floating-point type 'double' cannot be passed by value",
		    "double");
	ok(strstr(d.hint, "SSE") != NULL, "float hint names SSE registers");
	parse_fails("provider p { probe a(float f); };", 1, 22,
		    "floating-point type 'float'", "float");
	parse_fails("provider p { probe a(long double f); };", 1, 22,
		    "floating-point type 'long double'", "long double");
	parse_fails("struct s { int a; };\nprovider p { probe a(struct s v); };",
		    2, 22, "struct 'struct s' cannot be passed by value",
		    "struct by value");
	parse_fails("provider p { probe a(union u v); };", 1, 22,
		    "union 'union u' cannot be passed by value", "union by value");
	parse_fails("typedef struct s s_t;\nprovider p { probe a(s_t v); };", 2,
		    22, "cannot be passed by value", "typedef'd struct by value");
	parse_fails("provider app2 { probe a(); };", 1, 10,
		    "provider name 'app2' must not end with a digit",
		    "trailing digit");
	parse_fails("provider p {\n probe a();\n probe a(int);\n};", 3, 8,
		    "probe 'a' is declared twice in provider 'p' (first on line 2)",
		    "duplicate probe");
	parse_fails("provider p { probe a(); };\nprovider p { probe b(); };", 2,
		    10, "provider 'p' is defined twice", "duplicate provider");
	parse_fails("provider p {\n /* never closed\n probe a();\n};", 2, 2,
		    "unterminated comment", "unterminated comment");
	parse_fails("provider p {\n probe a()\n probe b();\n};", 3, 2,
		    "expected ';' after the declaration of probe 'a', found 'probe'",
		    "missing ';' after probe");
	parse_fails("provider p {\n probe a();\n", 3, 1,
		    "expected '}' to close provider 'p' (opened on line 1)",
		    "missing '}'");
	parse_fails("#include <stdio.h>\nprovider p { probe a(); };", 1, 1,
		    "'#include' needs the C preprocessor", "#include without -C");
	ok(strstr(d.hint, "-C") != NULL, "hint says -C");
	parse_fails("provider p { probe a(int, int, int, int, int, int, int, int, "
		    "int, int, int, int, int); };", 1, 82,
		    "probe 'a' has more than 12 arguments", "13 arguments");
	parse_fails("provider p { probe a(int v[4]); };", 1, 27,
		    "array types are not supported", "array");
	parse_fails("provider p { probe a(int (*f)(void)); };", 1, 26,
		    "function and function pointer types", "function pointer");
	parse_fails("provider p { probe a(void v); };", 1, 22,
		    "type 'void' cannot be passed by value", "void by value");
	parse_fails("provider p { probe a(int, void); };", 1, 27,
		    "type 'void' cannot be passed by value", "void not alone");
	parse_fails("probe a();", 1, 1, "probes are declared inside", "stray probe");
	parse_fails("provder p {\n probe a();\n};", 1, 9, "syntax error near 'p'",
		    "typo is not a clause");
	parse_fails("BEGIN { printf(\"x); }\n", 1, 16, "unterminated string",
		    "unterminated string");
	parse_fails("BEGIN { x = 1;\n", 2, 1,
		    "expected '}' to close the clause opened on line 1",
		    "unterminated clause");
	parse_fails("#pragma D attributes Bogus/Evolving/Common provider p provider\n"
		    "provider p { probe a(); };", 1, 1,
		    "invalid stability level 'Bogus'", "bad stability");
	parse_fails("#pragma D attributes Stable/Stable/Everywhere provider p provider\n",
		    1, 1, "invalid dependency class 'Everywhere'", "bad class");
	parse_fails("#pragma D attributes Stable provider p everything\n", 1, 1,
		    "invalid attribute target 'everything'", "bad target");
	parse_fails("#pragma D attributes Stable/Stable/Common/Extra provider p name\n",
		    1, 1, "more than three fields", "four fields");
	parse_fails("#pragma D frobnicate\n", 1, 1,
		    "unknown control directive '#pragma D frobnicate'",
		    "unknown pragma");
	parse_fails("provider p { probe a(int a, int b) : (int c); };", 1, 38,
		    "translated argument 1 'c' of probe 'a' matches no native argument",
		    "unmatched translated name");
	parse_fails("provider p { probe a(int) : (int, int); };", 1, 29,
		    "translated argument 2 of probe 'a' has no native argument 2",
		    "too many unnamed translated arguments");
	parse_fails("provider p { probe a(unsigned signed x); };", 1, 22,
		    "invalid combination of type specifiers", "bad specifiers");
	parse_fails("provider p { probe a(short long x); };", 1, 22,
		    "invalid combination of type specifiers", "short long");
	parse_fails("provider p { probe a(int x y); };", 1, 28,
		    "expected ',' or ')'", "two names");
	parse_fails("typedef int t;\ntypedef long t;\n", 2, 14,
		    "typedef 't' redefined", "typedef redefined");
	parse_fails("provider p { probe aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(); };",
		    1, 20, "is too long", "long probe name");
	parse_fails("provider pppppppppppppppppppppppppppppppppppppppppppppppppppppp { probe a(); };",
		    1, 10, "is too long", "long provider name");
	parse_fails("provider p { probe a(struct { int x; } *v); };", 1, 29,
		    "anonymous struct types are not supported", "anonymous struct");
	parse_fails("provider p { probe a(const); };", 1, 27, "expected a type",
		    "qualifier without a type");
	parse_fails("provider p { int x; };", 1, 14,
		    "expected 'probe' or '}' in provider 'p', found 'int'",
		    "declaration in a provider");
}

static void test_anonymous_typedef(void)
{
	struct prov_file *pf = parse("typedef struct { int fd; } conn_t;\n"
				     "typedef union { int i; long l; } val_t;\n"
				     "typedef enum { A, B } kind_t;\n"
				     "provider p { probe a(conn_t *c, const val_t *v, kind_t k); };");
	const struct prov_probe *pr;

	if (!ok(pf != NULL, "typedefs of anonymous struct, union and enum"))
		return;
	pr = &pf->providers[0].probes[0];
	is_str(pr->nargv[0].type.cname, "void *",
	       "pointer to anonymous struct is void * in headers");
	is_str(pr->nargv[0].type.dname, "conn_t *", "and keeps its D name");
	is_str(pr->nargv[1].type.cname, "const void *", "qualifiers kept");
	is_str(pr->nargv[2].type.cname, "int", "anonymous enum is int");
	is_int(pr->nargv[2].type.size, 4, "anonymous enum size");
	prov_file_free(pf);
}

static void test_typedef_same(void)
{
	struct prov_file *pf = parse("typedef int t;\ntypedef int t;\n"
				     "provider p { probe a(t); };");

	ok(pf != NULL, "identical typedef may be repeated");
	prov_file_free(pf);
}

static void test_diag_print(void)
{
	struct prov_diag dd = { 0 };
	char buf[1024] = "";
	FILE *fp = fmemopen(buf, sizeof(buf), "w");

	snprintf(dd.file, sizeof(dd.file), "probes.d");
	dd.line = 3;
	dd.col = 10;
	snprintf(dd.msg, sizeof(dd.msg), "boom");
	snprintf(dd.srcline, sizeof(dd.srcline), "\tprobe x(foo);");
	snprintf(dd.hint, sizeof(dd.hint), "try this");
	prov_diag_print(fp, "probes.d", &dd);
	fclose(fp);
	is_str(buf,
	       "dtrace: failed to compile script probes.d: line 3:10: boom\n"
	       "    \tprobe x(foo);\n"
	       "    \t        ^\n"
	       "dtrace: hint: try this\n",
	       "diagnostic layout");

	memset(buf, 0, sizeof(buf));
	fp = fmemopen(buf, sizeof(buf), "w");
	snprintf(dd.file, sizeof(dd.file), "inc.h");
	dd.col = 0;
	dd.srcline[0] = dd.hint[0] = '\0';
	prov_diag_print(fp, "probes.d", &dd);
	fclose(fp);
	is_str(buf, "dtrace: failed to compile script probes.d: inc.h: line 3: boom\n",
	       "diagnostic in another file");
}

int main(void)
{
	test_design_example();
	test_types();
	test_tags();
	test_params();
	test_clauses();
	test_pragmas();
	test_line_markers();
	test_systemtap_forms();
	test_errors();
	test_anonymous_typedef();
	test_typedef_same();
	test_diag_print();
	return tap_done();
}
