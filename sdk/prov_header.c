// SPDX-License-Identifier: MIT
/*
 * prov_header.c - the header `dtrace -h` writes.
 *
 * For each probe the header gives the classic DTrace call form, which
 * `dtrace -G` later turns into a NOP, and an _ENABLED() test that reads
 * a semaphore the -G object defines:
 *
 *	#define MYAPP_QUERY_START(arg0, arg1) \
 *		__dtrace_myapp___query__start(arg0, arg1)
 *	#define MYAPP_QUERY_START_ENABLED() \
 *		__builtin_expect(__usdt_sema_myapp___query__start != 0, 0)
 *	extern void __dtrace_myapp___query__start(const char *, int)
 *		__attribute__((visibility("hidden")));
 *	extern volatile unsigned short __usdt_sema_myapp___query__start
 *		__attribute__((visibility("hidden")));
 *
 * The probe function is declared hidden so that the compiler always
 * emits a direct call, never a load of its address from the GOT: with
 * -fno-plt, clang would otherwise load the address into a register once
 * and call through it, leaving call sites `dtrace -G` cannot find.
 * The semaphore is volatile, so even under LTO the test is a load that
 * the compiler cannot fold; it is hidden, so an executable and each of
 * its shared libraries have their own.  Prototypes use the C spelling of
 * each native argument (typedefs of the provider file expanded), so the
 * header compiles on its own as C89 through C2x and as C++.
 *
 * The header names the script by its base name only, so that a build in
 * another directory writes the same bytes (reproducible builds).
 *
 * Probes compile out when _DTRACE_VERSION is defined as 0 (the DTrace
 * convention) or USDT_DISABLE_PROBES is defined: the probe macros then
 * expand to ((void)0), so their arguments are not evaluated (nor even
 * required to exist) and `if (X_ENABLED()) X(...);` draws no empty-body
 * warning, and every _ENABLED() is (0).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prov_impl.h"

/* "out/probes.h" -> "_PROBES_H" */
static void make_guard(const char *from, char *buf, size_t len)
{
	const char *base = strrchr(from, '/');
	size_t o = 0;

	base = base ? base + 1 : from;
	if (len < 4) {
		buf[0] = '\0';
		return;
	}
	buf[o++] = '_';
	for (const char *p = base; *p && o + 3 < len; p++)
		buf[o++] = isalnum((unsigned char)*p) ?
			(char)toupper((unsigned char)*p) : '_';
	buf[o] = '\0';
}

/* Visit every native argument type of every probe. */
#define FOR_EACH_ARG(pf, a)						\
	for (unsigned _v = 0; _v < (pf)->provider_cnt; _v++)		\
	for (unsigned _p = 0; _p < (pf)->providers[_v].probe_cnt; _p++)	\
	for (unsigned _a = 0;						\
	     _a < (pf)->providers[_v].probes[_p].nargc &&		\
	     ((a) = &(pf)->providers[_v].probes[_p].nargv[_a].type);	\
	     _a++)

static bool uses_include(const struct prov_file *pf, enum prov_sysinc inc)
{
	const struct prov_type *t;

	FOR_EACH_ARG(pf, t)
		if (t->inc == inc)
			return true;
	return false;
}

static bool uses_bool(const struct prov_file *pf)
{
	const struct prov_type *t;

	FOR_EACH_ARG(pf, t)
		if (strstr(t->cname, "_USDT_BOOL"))
			return true;
	return false;
}

/*
 * A pointer to `struct conn` in a prototype would declare the tag inside
 * the parameter list, out of the caller's sight; declare each tag first.
 */
static void forward_tags(const struct prov_file *pf, FILE *out)
{
	const struct prov_type *t, **seen;
	unsigned n = 0, max = 0;

	FOR_EACH_ARG(pf, t)
		max++;
	seen = calloc(max ? max : 1, sizeof(*seen));
	if (!seen)
		return;	/* the compiler will then say which tag is missing */
	FOR_EACH_ARG(pf, t) {
		unsigned i;

		if (!t->tag)
			continue;
		for (i = 0; i < n; i++)
			if (strcmp(seen[i]->tag, t->tag) == 0 &&
			    seen[i]->tag_is_union == t->tag_is_union)
				break;
		if (i < n)
			continue;
		seen[n++] = t;
		fprintf(out, "%s %s;\n", t->tag_is_union ? "union" : "struct",
			t->tag);
	}
	if (n)
		fputc('\n', out);
	free(seen);
}

static void macro_params(FILE *out, unsigned n)
{
	fputc('(', out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%sarg%u", i ? ", " : "", i);
	fputc(')', out);
}

static int write_probe(const struct prov_provider *pv,
		       const struct prov_probe *pr, FILE *out,
		       struct prov_diag *diag)
{
	char macro[256], func[256], sema[256];

	if (prov_macro(pv->name, pr->name, macro, sizeof(macro)) < 0 ||
	    prov_func_sym(pv->name, pr->name, func, sizeof(func)) < 0 ||
	    prov_sema_sym(pv->name, pr->name, sema, sizeof(sema)) < 0) {
		snprintf(diag->msg, sizeof(diag->msg),
			 "names of probe '%s' in provider '%s' are too long",
			 pr->name, pv->name);
		return -ENAMETOOLONG;
	}
	fprintf(out, "#define\t%s", macro);
	macro_params(out, pr->nargc);
	fprintf(out, " \\\n\t%s", func);
	macro_params(out, pr->nargc);
	fprintf(out, "\n#define\t%s_ENABLED() \\\n"
		     "\t__builtin_expect(%s != 0, 0)\n", macro, sema);
	fprintf(out, "extern void %s(", func);
	if (pr->nargc == 0)
		fputs("void", out);
	for (unsigned i = 0; i < pr->nargc; i++)
		fprintf(out, "%s%s", i ? ", " : "", pr->nargv[i].type.cname);
	fprintf(out, ")\n"
		     "\t__attribute__((visibility(\"hidden\")));\n"
		     "extern volatile unsigned short %s\n"
		     "\t__attribute__((visibility(\"hidden\")));\n", sema);
	return 0;
}

static int write_stub(const struct prov_provider *pv,
		      const struct prov_probe *pr, FILE *out)
{
	char macro[256];

	if (prov_macro(pv->name, pr->name, macro, sizeof(macro)) < 0)
		return -ENAMETOOLONG;
	fprintf(out, "#define\t%s", macro);
	macro_params(out, pr->nargc);
	fprintf(out, " ((void)0)\n#define\t%s_ENABLED() (0)\n", macro);
	return 0;
}

int prov_write_header(const struct prov_file *pf,
		      const struct prov_header_opts *opts, FILE *out,
		      struct prov_diag *diag)
{
	const char *from = opts && opts->guard_from ? opts->guard_from : pf->path;
	const char *script = strrchr(pf->path, '/');
	char guard[256];
	int err;

	memset(diag, 0, sizeof(*diag));
	make_guard(from, guard, sizeof(guard));
	fprintf(out,
		"/*\n"
		" * Generated by dtrace -h (" PACKAGE_STRING ") from %s.\n"
		" * Do not edit: change the provider file and run dtrace -h again.\n"
		" *\n"
		" * PROVIDER_PROBE(args...) fires a probe; once `dtrace -G` has processed\n"
		" * the object it costs one NOP until it is traced.\n"
		" * PROVIDER_PROBE_ENABLED() is true only while a consumer traces the\n"
		" * probe: use it to skip building costly arguments.  Define\n"
		" * _DTRACE_VERSION as 0, or USDT_DISABLE_PROBES, to compile every probe\n"
		" * out.\n"
		" */\n"
		"#ifndef %s\n#define %s\n\n", script ? script + 1 : pf->path,
		guard, guard);
	if (uses_include(pf, PROV_INC_STDDEF))
		fputs("#include <stddef.h>\n", out);
	if (uses_include(pf, PROV_INC_STDINT))
		fputs("#include <stdint.h>\n", out);
	if (uses_include(pf, PROV_INC_SYSTYPES))
		fputs("#include <sys/types.h>\n", out);
	fputs("\n#ifndef _DTRACE_VERSION\n"
	      "#define _DTRACE_VERSION 1\n"
	      "#endif\n\n"
	      "#ifdef __cplusplus\n"
	      "extern \"C\" {\n"
	      "#endif\n\n"
	      "#if _DTRACE_VERSION && !defined(USDT_DISABLE_PROBES)\n\n", out);
	if (uses_bool(pf))
		fputs("#ifndef _USDT_BOOL\n"
		      "#ifdef __cplusplus\n"
		      "#define _USDT_BOOL bool\n"
		      "#else\n"
		      "#define _USDT_BOOL _Bool\n"
		      "#endif\n"
		      "#endif\n\n", out);
	forward_tags(pf, out);
	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		const struct prov_provider *pv = &pf->providers[v];

		fprintf(out, "/* provider %s */\n\n", pv->name);
		for (unsigned p = 0; p < pv->probe_cnt; p++) {
			err = write_probe(pv, &pv->probes[p], out, diag);
			if (err)
				return err;
			fputc('\n', out);
		}
	}
	fputs("#else /* probes compiled out */\n\n", out);
	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		const struct prov_provider *pv = &pf->providers[v];

		for (unsigned p = 0; p < pv->probe_cnt; p++) {
			err = write_stub(pv, &pv->probes[p], out);
			if (err)
				return err;
		}
	}
	fprintf(out, "\n#endif\n\n"
		     "#ifdef __cplusplus\n"
		     "}\n"
		     "#endif\n\n"
		     "#endif /* %s */\n", guard);
	if (ferror(out)) {
		snprintf(diag->msg, sizeof(diag->msg), "write error: %s",
			 strerror(errno));
		return -EIO;
	}
	return 0;
}
