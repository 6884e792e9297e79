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
 *
 * With -x probestyle=inline (PROV_STYLE_INLINE) each probe macro instead
 * expands to the inline probe of usdt-sdk's <sys/sdt.h>: the compiler
 * emits the NOP site and its stapsdt note where the macro is used, so
 * nothing is left for `dtrace -G` to rewrite and -flto builds keep every
 * probe.  The arguments are first assigned to variables of the declared
 * types, which converts and checks them as the prototype of the call form
 * does and gives each note the size and signedness the provider file
 * declares:
 *
 *	#define MYAPP_QUERY_START(arg0, arg1) \
 *		(__extension__({ \
 *			const char *__usdt_arg0 = (arg0); \
 *			int __usdt_arg1 = (arg1); \
 *			_USDT_SDT_P2(myapp, query__start, \
 *				__usdt_sema_myapp___query__start, \
 *				__usdt_arg0, __usdt_arg1); \
 *		}))
 *
 * The note names the same semaphore as the call form, which the -G
 * object defines and _ENABLED() reads.  The _USDT_SDT_* machinery is
 * copied from sdk/include/sys/sdt.h at build time (sdk/sdt.am makes
 * sdt-impl.inc of it), so a generated header needs no include path and
 * cannot drift from the installed <sys/sdt.h>; the copy's own guard
 * keeps the two from clashing when a file includes both.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prov_impl.h"

/* The part of <sys/sdt.h> that inline probes expand to, as a C string. */
static const char sdt_impl[] =
#include "sdk/sdt-impl.inc"
	;

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

/*
 * The inline form of a probe macro: the arguments in variables of the
 * declared types, then the <sys/sdt.h> probe of that many arguments.
 */
static void write_inline_body(const struct prov_provider *pv,
			      const struct prov_probe *pr, const char *sema,
			      FILE *out)
{
	fputs("(__extension__({ \\\n", out);
	for (unsigned i = 0; i < pr->nargc; i++) {
		const char *t = pr->nargv[i].type.cname;
		size_t n = strlen(t);

		/* "char *__usdt_arg0", "int __usdt_arg1" */
		fprintf(out, "\t\t%s%s__usdt_arg%u = (arg%u); \\\n", t,
			n && t[n - 1] == '*' ? "" : " ", i, i);
	}
	fprintf(out, "\t\t_USDT_SDT_P%u(%s, %s, \\\n\t\t\t%s", pr->nargc,
		pv->name, pr->name, sema);
	for (unsigned i = 0; i < pr->nargc; i++)
		fprintf(out, "%s__usdt_arg%u", i % 4 ? ", " : ", \\\n\t\t\t",
			i);
	fputs("); \\\n\t}))", out);
}

static int write_probe(const struct prov_provider *pv,
		       const struct prov_probe *pr,
		       enum prov_probe_style style, FILE *out,
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
	fputs(" \\\n\t", out);
	if (style == PROV_STYLE_INLINE) {
		write_inline_body(pv, pr, sema, out);
	} else {
		fputs(func, out);
		macro_params(out, pr->nargc);
	}
	fprintf(out, "\n#define\t%s_ENABLED() \\\n"
		     "\t__builtin_expect(%s != 0, 0)\n", macro, sema);
	if (style != PROV_STYLE_INLINE) {
		fprintf(out, "extern void %s(", func);
		if (pr->nargc == 0)
			fputs("void", out);
		for (unsigned i = 0; i < pr->nargc; i++)
			fprintf(out, "%s%s", i ? ", " : "",
				pr->nargv[i].type.cname);
		fputs(")\n\t__attribute__((visibility(\"hidden\")));\n", out);
	}
	fprintf(out, "extern volatile unsigned short %s\n"
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
	bool inl = opts && opts->style == PROV_STYLE_INLINE;
	char guard[256];
	int err;

	memset(diag, 0, sizeof(*diag));
	make_guard(from, guard, sizeof(guard));
	if (inl)
		fprintf(out,
			"/*\n"
			" * Generated by dtrace -h -x probestyle=inline (" PACKAGE_STRING ")\n"
			" * from %s.\n"
			" * Do not edit: change the provider file and run dtrace -h again.\n"
			" *\n"
			" * PROVIDER_PROBE(args...) is an inline probe, as <sys/sdt.h> makes\n"
			" * them: the compiler emits eleven bytes of NOPs and a stapsdt note\n"
			" * where it is used, so tracers see it without any rewriting, also in\n"
			" * -flto builds.  PROVIDER_PROBE_ENABLED() is true only while a consumer\n"
			" * traces the probe: use it to skip building costly arguments.  Link the\n"
			" * object `dtrace -G -s %s` writes: it defines the semaphores\n"
			" * _ENABLED() reads (pass it the objects, unless they are -flto ones, to\n"
			" * add the probes to its DOF).  Define _DTRACE_VERSION as 0, or\n"
			" * USDT_DISABLE_PROBES, to compile every probe out.\n"
			" */\n"
			"#ifndef %s\n#define %s\n\n", script ? script + 1 : pf->path,
			script ? script + 1 : pf->path, guard, guard);
	else
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
			err = write_probe(pv, &pv->probes[p],
					  inl ? PROV_STYLE_INLINE :
						PROV_STYLE_CALL, out, diag);
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
	fputs("\n#endif\n\n"
	      "#ifdef __cplusplus\n"
	      "}\n"
	      "#endif\n", out);
	if (inl)
		fprintf(out, "\n"
			"/*\n"
			" * The inline probe machinery of usdt-sdk's <sys/sdt.h>, copied from\n"
			" * it, so that this header needs no include path.  Whichever of the\n"
			" * two copies comes first is used.  A system header, so that -std=c89\n"
			" * -pedantic accepts its variadic macros.\n"
			" */\n"
			"#ifdef __GNUC__\n"
			"#pragma GCC system_header\n"
			"#endif\n"
			"%s", sdt_impl);
	fprintf(out, "\n#endif /* %s */\n", guard);
	if (ferror(out)) {
		snprintf(diag->msg, sizeof(diag->msg), "write error: %s",
			 strerror(errno));
		return -EIO;
	}
	return 0;
}
