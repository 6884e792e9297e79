// SPDX-License-Identifier: MIT
/*
 * prov_header.c - the header `dtrace -h` writes.
 *
 * For each probe the header gives the classic DTrace call form, which
 * `dtrace -G` later turns into a NOP, and an _ENABLED() test that reads
 * a semaphore:
 *
 *	#define MYAPP_QUERY_START(arg0, arg1) \
 *		(__extension__({ \
 *		_USDT_PRE___dtrace_myapp___query__start \
 *		__dtrace_myapp___query__start( \
 *			(const char *)(long)((void)0, (arg0)), \
 *			(int)(long)((void)0, (arg1))); \
 *		}))
 *	#define MYAPP_QUERY_START_ENABLED() \
 *		(__extension__({ \
 *		unsigned short __usdt_e = __usdt_sema_myapp___query__start; \
 *		__asm__ _USDT_ASM_INLINE(_USDT_SEMA___usdt_sema_myapp___query__start); \
 *		__builtin_expect(__usdt_e != 0, 0); \
 *		}))
 *	extern void __dtrace_myapp___query__start(const char *, int)
 *		__attribute__((visibility("hidden")));
 *	extern volatile unsigned short __usdt_sema_myapp___query__start
 *		__attribute__((visibility("hidden")));
 *
 * The assembler each macro expands to defines the two things every build
 * needs whether or not it ever runs `dtrace -G` over the objects, and
 * only in the objects that use the probe, so an object carries the stub
 * and note of only the probes it calls and tracers list only probes that
 * can fire (doc/DESIGN.md §10):
 *
 *  - the probe stub __dtrace_myapp___query__start: a hidden COMDAT
 *    function (section .text.<stub>, group <stub>) whose entry is a probe
 *    site, the 4-byte NOP -G writes first, then a 1-byte NOP and `ret`
 *    (x86site.h: never a single 5-byte NOP, which forks break; on
 *    aarch64 `nop; ret`, a64site.h), with its stapsdt note in the same
 *    group: the arguments are where the call put them (%rdi, %esi, ...,
 *    8(%rsp) for the seventh; x0, x1, ..., [sp] for the ninth), so
 *    bpftrace, gdb, perf and our dtrace trace a call that -G never saw
 *    (glib, libvirt and QEMU run -G with no objects, HotSpot and
 *    PostgreSQL's extensions never run it, LTO objects cannot be
 *    rewritten, hand-kept object lists drift);
 *  - the semaphore __usdt_sema_myapp___query__start, hidden, in .probes,
 *    in a COMDAT group of its own name, which the -G output defines the
 *    same way: of all the copies the linker keeps one per program or
 *    shared library.  _ENABLED() defines it too: a unit may test a probe
 *    it never fires.
 *
 * A file that defines the probe functions itself (a test's stand-ins)
 * defines USDT_NO_PROBE_STUBS before the include to leave both out.
 * Both are guarded by `.ifndef`, so every use of a probe in a unit, two
 * headers declaring one probe, or a -flto link that puts many units in
 * one assembler file, define each once (GNU as and clang's assembler
 * take a symbol only referenced so far as undefined).  With -G run over
 * an object its calls become NOPs with notes and DOF of their own, and
 * the stub simply goes unused.  __extension__ keeps -pedantic quiet about
 * the statement expression and the assembler's length (over C90's 509
 * bytes); `asm inline` (_USDT_ASM_INLINE, gcc 9 and clang 11 on) has the
 * compiler count it as the smallest size, since it adds no code to the
 * function, so a probe does not keep its function from being inlined.
 *
 * The line table.  The assembler attaches the compiler's pending `.loc`
 * to the next bytes it emits, in whatever section: clang's assembler
 * gave the probe's line to the stub's bytes, and the probe's own
 * instructions, the call included, no line (a debugger could not stop at
 * it, srcline named the function's first line).  So under clang the
 * assembler is in an always_inline function of the header
 * (_usdt_stub_<stub>(), _USDT_PRE_<stub>): its `.loc` is the header's,
 * and the call gets its line back.  gcc is not affected and takes the
 * statement itself.  Both stay before the call, so a probe that ends
 * its function is still a tail call (`jmp`), as before.  _ENABLED()
 * reads the semaphore first, for the same reason.
 *
 * Each argument goes through `long` to its declared type: a cast from
 * any scalar (integer, enum, bool, any pointer) to `long` and from
 * `long` to an integer or pointer type is silent under -Wall -Wextra in
 * C and C++, where a plain conversion to the prototype's type is not
 * (libvirt passes every argument as `void *`).  `(void)0, x` makes the
 * operand no longer a function call, which -Wbad-function-cast would
 * flag.  The declared types still decide what the probe records: the
 * prototype, the stub's note and the DOF all use them.
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
 * The header survives the edits real builds make to it: each macro's
 * body starts on the line after its name (Erlang lower-cases whole
 * `#define ERLANG_X(...)` lines, CPython renames the first PYTHON_ of a
 * line), `#if _DTRACE_VERSION` stands alone on its line (Mozilla turns it
 * into `#ifdef`), and no line but a macro's names holds an upper-case
 * provider prefix (PHP's s,PHP_,DTRACE_,g).
 *
 * The header names the script by its base name only, so that a build in
 * another directory writes the same bytes (reproducible builds).
 *
 * Probes compile out when _DTRACE_VERSION is defined as 0 (the DTrace
 * convention), USDT_DISABLE_PROBES is defined, or the target is neither
 * x86-64 nor aarch64 (LP64): the probe macros then expand to ((void)0), so their
 * arguments are not evaluated (nor even required to exist) and
 * `if (X_ENABLED()) X(...);` draws no empty-body warning, and every
 * _ENABLED() is (0).
 *
 * With -x probestyle=inline (PROV_STYLE_INLINE) each probe macro instead
 * expands to the inline probe of usdt-sdk's <sys/sdt.h>: the compiler
 * emits the NOP site and its stapsdt note where the macro is used, so
 * nothing is left for `dtrace -G` to rewrite.  The arguments are first
 * assigned to variables of the declared types, which gives each note the
 * size and signedness the provider file declares:
 *
 *	#define MYAPP_QUERY_START(arg0, arg1) \
 *		(__extension__({ \
 *			const char *__usdt_arg0 = \
 *				(const char *)(long)((void)0, (arg0)); \
 *			...
 *			_USDT_SDT_P2(myapp, query__start, \
 *				__usdt_sema_myapp___query__start, \
 *				__usdt_arg0, __usdt_arg1); \
 *		}))
 *
 * The note names the same semaphore as the call form.  The _USDT_SDT_*
 * machinery is copied from sdk/include/sys/sdt.h at build time (sdk/sdt.am
 * makes sdt-impl.inc of it), so a generated header needs no include path
 * and cannot drift from the installed <sys/sdt.h>; the copy's own guard
 * keeps the two from clashing when a file includes both.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prov_impl.h"
#include "a64site.h"
#include "x86site.h"

/* The part of <sys/sdt.h> that inline probes expand to, as a C string. */
static const char sdt_impl[] =
#include "sdk/sdt-impl.inc"
	;

/*
 * .stapsdt.base, which every stapsdt note points at, defined once per
 * assembly file in a COMDAT group, as <sys/sdt.h> does.  "R"
 * (SHF_GNU_RETAIN) keeps it through lld --gc-sections; the compiler's
 * version stands in for its assembler's (binutils 2.36, LLVM 13), and
 * USDT_SDT_RETAIN decides where it is defined, as for <sys/sdt.h>.
 */
static const char stapsdt_base_asm[] =
	"#ifndef _USDT_STAPSDT_BASE\n"
	"#if defined(USDT_SDT_RETAIN)\n"
	"#define _USDT_STAPSDT_RETAIN USDT_SDT_RETAIN\n"
	"#elif defined(__clang__)\n"
	"#define _USDT_STAPSDT_RETAIN (__clang_major__ >= 13)\n"
	"#elif defined(__GNUC__)\n"
	"#define _USDT_STAPSDT_RETAIN (__GNUC__ >= 12)\n"
	"#else\n"
	"#define _USDT_STAPSDT_RETAIN 0\n"
	"#endif\n"
	"#if _USDT_STAPSDT_RETAIN\n"
	"#define _USDT_STAPSDT_BASE_FLAGS \"aGR\"\n"
	"#else\n"
	"#define _USDT_STAPSDT_BASE_FLAGS \"aG\"\n"
	"#endif\n"
	"#define _USDT_STAPSDT_BASE \\\n"
	"\t\".ifndef _.stapsdt.base\\n\" \\\n"
	"\t\".pushsection .stapsdt.base,\\\"\" _USDT_STAPSDT_BASE_FLAGS \\\n"
	"\t\"\\\",@progbits,.stapsdt.base,comdat\\n\" \\\n"
	"\t\".weak _.stapsdt.base\\n\" \\\n"
	"\t\".hidden _.stapsdt.base\\n\" \\\n"
	"\t\"_.stapsdt.base: .space 1\\n\" \\\n"
	"\t\".size _.stapsdt.base,1\\n\" \\\n"
	"\t\".popsection\\n\" \\\n"
	"\t\".endif\\n\"\n"
	"#endif\n\n";

/*
 * The per-machine parts of the probe stubs (write_stub_asm()): the
 * stub's code, whose entry is the probe site (site.h: x86site.h's
 * X86_STUB_BYTES, a64site.h's A64_STUB_BYTES, which -G recognises), and
 * which of the two argument strings its note carries (an #if in each
 * stub rather than a function-like macro: the header's only
 * function-like macros are the probes', which build systems find and
 * edit by their `#define NAME(` lines).  One header serves every machine
 * it is compiled for, so both are written and the compiler picks.  aarch64's is written as the mnemonics, so that the assembler
 * marks it as code for disassemblers; they assemble to A64_STUB_BYTES
 * (tests/run-arm64.sh checks that -G recognises the stub).
 */
static void write_stub_arch(FILE *out)
{
	const struct site_arch *x = &site_arch_x86_64;

	fputs("#ifndef _USDT_STUB_CODE\n"
	      "#if defined(__aarch64__)\n"
	      "#define _USDT_STUB_CODE \"nop\\n\" \"ret\\n\"\n"
	      "#else\n"
	      "#define _USDT_STUB_CODE \".byte ", out);
	for (unsigned i = 0; i < x->stub_size; i++)
		fprintf(out, "%s0x%02x", i ? ", " : "", x->stub[i]);
	fputs("\\n\"\n"
	      "#endif\n"
	      "#endif\n\n"
	      "#ifndef _USDT_ASM_INLINE\n"
	      "#if defined(__clang__) ? __clang_major__ >= 11 : __GNUC__ >= 9\n"
	      "#define _USDT_ASM_INLINE __inline__\n"
	      "#else\n"
	      "#define _USDT_ASM_INLINE\n"
	      "#endif\n"
	      "#endif\n\n", out);
}

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
 * "(const char *)(long)((void)0, (arg0))": any scalar, silently.  The
 * cast names the type without its top-level qualifiers (`const int`,
 * `char *const`), which C++ warns are ignored on a cast's result.
 */
static void write_arg(const struct prov_probe *pr, unsigned i, FILE *out)
{
	const char *t = pr->nargv[i].type.cname, *star = strrchr(t, '*');
	size_t n = strlen(t);
	bool again = true;

	while (again) {
		again = false;
		if (star) {
			/* "char * const" -> "char *" */
			while (n && t[n - 1] == ' ')
				n--;
			for (const char *q = "const\0volatile\0"; *q;
			     q += strlen(q) + 1) {
				size_t l = strlen(q);

				if (n > l && (size_t)(t + n - star) > l &&
				    strncmp(t + n - l, q, l) == 0) {
					n -= l;
					again = true;
				}
			}
		} else {
			/* "const int" -> "int" */
			for (const char *q = "const \0volatile \0"; *q;
			     q += strlen(q) + 1) {
				size_t l = strlen(q);

				if (strncmp(t, q, l) == 0) {
					t += l;
					n -= l;
					again = true;
				}
			}
		}
	}
	while (n && t[n - 1] == ' ')
		n--;
	fprintf(out, "(%.*s)(long)((void)0, (arg%u))", (int)n, t, i);
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

		/* "char *__usdt_arg0 = ...", "int __usdt_arg1 = ..." */
		fprintf(out, "\t\t%s%s__usdt_arg%u = \\\n\t\t\t", t,
			n && t[n - 1] == '*' ? "" : " ", i);
		write_arg(pr, i, out);
		fputs("; \\\n", out);
	}
	fprintf(out, "\t\t_USDT_SDT_P%u(%s, %s, \\\n\t\t\t%s", pr->nargc,
		pv->name, pr->name, sema);
	for (unsigned i = 0; i < pr->nargc; i++)
		fprintf(out, "%s__usdt_arg%u", i % 4 ? ", " : ", \\\n\t\t\t",
			i);
	fputs("); \\\n\t}))", out);
}

/*
 * The semaphore and the probe stub of the call form, as assembler the
 * probe macros expand to (see the top of this file): _USDT_SEMA_<sema>
 * defines the semaphore, _USDT_STUB_<func> the semaphore, the stub, its
 * note and .stapsdt.base, each guarded by `.ifndef`.  The note's
 * argument string is the machine's (_USDT_NARGS_<func>, picked by #if:
 * the header's only function-like macros are the probes').  Local
 * labels 991-994 are numeric, so they never clash with another
 * expansion.  With USDT_NO_PROBE_STUBS each is the empty string.
 * _USDT_PRE_<stub> is what the probe macro puts before its call: the
 * statement, or under clang a call of an always_inline function that
 * holds it (the line table: see the top of this file).
 */
static int write_stub_asm(const struct prov_provider *pv,
			  const struct prov_probe *pr, const char *func,
			  const char *sema, FILE *out)
{
	char args[2][PROV_ARGS_MAX * 24] = { "", "" };
	const struct site_arch *arch[2] = { &site_arch_x86_64,
					    &site_arch_aarch64 };

	for (unsigned m = 0; m < 2; m++) {
		size_t ao = 0;

		for (unsigned a = 0; a < pr->nargc; a++) {
			char spec[32];

			if (arch[m]->arg_spec(&pr->nargv[a].type, a,
					      arch[m]->stub_kind, spec,
					      sizeof(spec)) < 0)
				return -EINVAL;
			ao += (size_t)snprintf(args[m] + ao,
					       sizeof(args[m]) - ao, "%s%s",
					       a ? " " : "", spec);
		}
	}
	fprintf(out,
		"#ifndef USDT_NO_PROBE_STUBS\n"
		"#if defined(__aarch64__)\n"
		"#define _USDT_NARGS_%1$s \"%3$s\"\n"
		"#else\n"
		"#define _USDT_NARGS_%1$s \"%2$s\"\n"
		"#endif\n", func, args[0], args[1]);
	fprintf(out,
		"#define _USDT_SEMA_%1$s \\\n"
		"\t\".ifndef %1$s\\n\" \\\n"
		"\t\".pushsection .probes,\\\"awG\\\",@progbits,%1$s,comdat\\n\" \\\n"
		"\t\".weak %1$s\\n\" \\\n"
		"\t\".hidden %1$s\\n\" \\\n"
		"\t\".type %1$s,@object\\n\" \\\n"
		"\t\".size %1$s,2\\n\" \\\n"
		"\t\".balign 2\\n\" \\\n"
		"\t\"%1$s:\\n\" \\\n"
		"\t\".zero 2\\n\" \\\n"
		"\t\".popsection\\n\" \\\n"
		"\t\".endif\\n\"\n", sema);
	fprintf(out,
		"#define _USDT_STUB_%1$s \\\n"
		"\t_USDT_SEMA_%2$s \\\n"
		"\t\".ifndef %1$s\\n\" \\\n"
		"\t\".pushsection .text.%1$s,\\\"axG\\\",@progbits,%1$s,comdat\\n\" \\\n"
		"\t\".weak %1$s\\n\" \\\n"
		"\t\".hidden %1$s\\n\" \\\n"
		"\t\".type %1$s,@function\\n\" \\\n"
		"\t\"%1$s:\\n\" \\\n"
		"\t_USDT_STUB_CODE \\\n"
		"\t\".size %1$s,.-%1$s\\n\" \\\n"
		"\t\".pushsection .note.stapsdt,\\\"?\\\",@note\\n\" \\\n"
		"\t\".balign 4\\n\" \\\n"
		"\t\".4byte 992f-991f, 994f-993f, 3\\n\" \\\n"
		"\t\"991: .asciz \\\"stapsdt\\\"\\n\" \\\n"
		"\t\"992: .balign 4\\n\" \\\n"
		"\t\"993: .8byte %1$s, _.stapsdt.base, %2$s\\n\" \\\n"
		"\t\".asciz \\\"%3$s\\\"\\n\" \\\n"
		"\t\".asciz \\\"%4$s\\\"\\n\" \\\n"
		"\t\".asciz \\\"\" _USDT_NARGS_%1$s \"\\\"\\n\" \\\n"
		"\t\"994: .balign 4\\n\" \\\n"
		"\t\".popsection\\n\" \\\n"
		"\t\".popsection\\n\" \\\n"
		"\t\".endif\\n\" \\\n"
		"\t_USDT_STAPSDT_BASE\n"
		"#else\n"
		"#define _USDT_SEMA_%2$s \"\"\n"
		"#define _USDT_STUB_%1$s \"\"\n"
		"#endif\n"
		"#if defined(__clang__)\n"
		"#pragma clang diagnostic push\n"
		"#pragma clang diagnostic ignored \"-Woverlength-strings\"\n"
		"static __inline__ __attribute__((__always_inline__, __unused__))\n"
		"void _usdt_stub_%1$s(void)\n"
		"{\n"
		"\t__asm__ _USDT_ASM_INLINE(_USDT_STUB_%1$s);\n"
		"}\n"
		"#pragma clang diagnostic pop\n"
		"#define _USDT_PRE_%1$s _usdt_stub_%1$s();\n"
		"#else\n"
		"#define _USDT_PRE_%1$s __asm__ _USDT_ASM_INLINE(_USDT_STUB_%1$s);\n"
		"#endif\n", func, sema, pv->name, pr->name);
	return 0;
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
		fprintf(out, "(__extension__({ \\\n"
			     "\t_USDT_PRE_%s \\\n"
			     "\t%s(", func, func);
		for (unsigned i = 0; i < pr->nargc; i++) {
			fputs(" \\\n\t\t", out);
			write_arg(pr, i, out);
			if (i + 1 < pr->nargc)
				fputc(',', out);
		}
		fputs("); \\\n"
		      "\t}))", out);
	}
	if (style == PROV_STYLE_INLINE)
		fprintf(out, "\n#define\t%s_ENABLED() \\\n"
			     "\t__builtin_expect(%s != 0, 0)\n", macro, sema);
	else
		fprintf(out, "\n#define\t%s_ENABLED() \\\n"
			     "\t(__extension__({ \\\n"
			     "\tunsigned short __usdt_e = %s; \\\n"
			     "\t__asm__ _USDT_ASM_INLINE(_USDT_SEMA_%s); \\\n"
			     "\t__builtin_expect(__usdt_e != 0, 0); \\\n"
			     "\t}))\n", macro, sema, sema);
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
	if (style != PROV_STYLE_INLINE &&
	    write_stub_asm(pv, pr, func, sema, out) < 0) {
		snprintf(diag->msg, sizeof(diag->msg),
			 "probe '%s' in provider '%s': an argument has no stapsdt spelling",
			 pr->name, pv->name);
		return -EINVAL;
	}
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
			" * PROVIDER_PROBE(args...) fires a probe: a call to a stub that is a\n"
			" * probe site, or, once `dtrace -G` has processed the object, one NOP\n"
			" * in its place.  It costs that until it is traced.\n"
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
	      "#undef _USDT_PROBES_LIVE\n"
	      "#if _DTRACE_VERSION\n"
	      "#if !defined(USDT_DISABLE_PROBES) && \\\n"
	      "    (defined(__x86_64__) || defined(__aarch64__)) && defined(__LP64__)\n"
	      "#define _USDT_PROBES_LIVE 1\n"
	      "#endif\n"
	      "#endif\n\n"
	      "#ifdef _USDT_PROBES_LIVE\n\n", out);
	if (!inl) {
		fputs(stapsdt_base_asm, out);
		write_stub_arch(out);
	}
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
	fputs("\n#endif\n"
	      "#undef _USDT_PROBES_LIVE\n\n"
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
