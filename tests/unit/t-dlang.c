// SPDX-License-Identifier: MIT
/*
 * t-dlang.c - TAP tests for dtrace-G/d/, the D language of `dtrace -n`
 * and `dtrace -s`, through its interface (dlang.h).  tests/d/ holds the
 * same language's tests as D programs run by the dtrace command.
 *
 * Every test compiles a program, fires fabricated probes at it (struct
 * d_fire, no kernel) and compares what it prints, byte for byte, with
 * DTrace's layout:
 *  - the default output ("CPU     ID    FUNCTION:NAME" header once, then
 *    "%3d %6d %32s " per record and a newline), quiet by pragma and by
 *    d_set_quiet(), which clauses leave a record at all;
 *  - trace() widths by type, every printf() conversion and flag;
 *  - predicates, self-> (the latency pattern), this->, globals and
 *    associative arrays, operators, casts, every builtin and function;
 *  - the aggregating functions, each in dt_consume.c's layout, sorted
 *    by value then key; printa() with and without a format, clear(),
 *    trunc(), exit();
 *  - macros in descriptions and expressions, comments, pragmas,
 *    compile errors with their line and column, run-time errors with
 *    DTrace's message, several d_compile() calls making one program;
 *  - ustack(), ucaller, ufunc(), umod(), usym(), uaddr(), %A %a %k, as
 *    stack.c prints what a fake consumer's callbacks answer;
 *  - a traced program's types, as a fake command's ctype callback
 *    gives them (decl.c's conversion, the errors it passes on).
 *
 * %Y is checked with TZ=UTC.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "d/dlang.h"
#include "kspec_model.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* Fixtures */

static const struct d_probe p_begin = {
	.id = 1,
	.prov = "dtrace",
	.mod = "",
	.func = "",
	.name = "BEGIN",
};

static const char *const q_types[] = { "string", "int", "uint8_t",
				       "char *" };
static const struct d_probe p_query = {
	.id = 70143,
	.prov = "myapp1234",
	.mod = "app",
	.func = "run_query",
	.name = "query-start",
	.nargs = 4,
	.argtypes = q_types,
};

static const struct d_probe p_read = {
	.id = 500,
	.prov = "syscall",
	.mod = "vmlinux",
	.func = "read",
	.name = "entry",
};

/* A fake process memory for copyin(): one string at 0x5000. */
#define USTR_ADDR 0x5000ULL
static const char ustr[] = "from copyin";

static int fake_copyin(void *ctx, pid_t pid, uint64_t addr, void *buf,
		       size_t len)
{
	uint64_t end = USTR_ADDR + sizeof(ustr);

	(void)ctx;
	(void)pid;
	if (addr < USTR_ADDR || addr + len > end + 4096)
		return -14; /* -EFAULT */
	memset(buf, 0, len);
	if (addr < end) {
		size_t n = (size_t)(end - addr);

		memcpy(buf, ustr + (addr - USTR_ADDR), n < len ? n : len);
	}
	return 0;
}

static struct d_fire mkfire(const struct d_probe *pr)
{
	struct d_fire f;

	memset(&f, 0, sizeof(f));
	f.probe = pr;
	f.epid = 1;
	f.cpu = 0;
	f.pid = 1234;
	f.tid = 1235;
	f.ppid = 1;
	f.cred = true;
	f.uid = 1000;
	f.execname = "app";
	f.timestamp = 5000;
	f.vtimestamp = 300;
	f.walltimestamp = 1700000000ULL * 1000000000ULL;
	f.copyin = fake_copyin;
	return f;
}

static struct d_prog *compile(const char *src)
{
	struct d_prog *p = NULL;
	char msg[512];

	if (d_compile(&p, src, NULL, msg, sizeof(msg)) != 0) {
		diag("compile failed: %s", msg);
		d_free(p);
		return NULL;
	}
	return p;
}

/* The error message of a program that must not compile. */
static char errbuf[1024];

static const char *compile_err_o(const char *src,
				 const struct d_compile_opts *o)
{
	struct d_prog *p = NULL;

	errbuf[0] = '\0';
	if (d_compile(&p, src, o, errbuf, sizeof(errbuf)) == 0)
		snprintf(errbuf, sizeof(errbuf), "(compiled)");
	d_free(p);
	return errbuf;
}

static const char *compile_err(const char *src)
{
	return compile_err_o(src, NULL);
}

/* Run every clause for one firing; output and errors into strings. */
static int fire_all(struct d_prog *p, const struct d_fire *f, char **out,
		    char **err)
{
	size_t ol = 0, el = 0;
	FILE *o = open_memstream(out, &ol), *e = open_memstream(err, &el);
	int rv = 0;
	unsigned c;

	for (c = 0; c < d_nclauses(p); c++)
		rv |= d_run(p, c, f, o, e);
	fclose(o);
	fclose(e);
	return rv;
}

/* What d_print_aggs() prints after its leading newline (checked once). */
static char *aggs_of(struct d_prog *p)
{
	char *s = NULL;
	size_t l = 0;
	FILE *o = open_memstream(&s, &l);

	d_print_aggs(p, o);
	fclose(o);
	if (s[0] != '\n') {
		ok(0, "d_print_aggs() begins with a newline");
		return s;
	}
	memmove(s, s + 1, l);
	return s;
}

/* Compile src, fire it once at pr, compare the output. */
static void out_is(const char *src, const struct d_probe *pr,
		   const char *want, const char *name)
{
	struct d_prog *p = compile(src);
	struct d_fire f = mkfire(pr);
	char *out = NULL, *err = NULL;

	if (!p) {
		ok(0, "%s", name);
		return;
	}
	f.arg[0] = 0x1000;
	fire_all(p, &f, &out, &err);
	is_str(out, want, "%s", name);
	if (err && *err)
		diag("stderr: %s", err);
	free(out);
	free(err);
	d_free(p);
}

/* Same, quiet, with the query probe and its arguments. */
static void q_is(const char *src, const char *want, const char *name)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "#pragma D option quiet\n%s", src);
	out_is(buf, &p_query, want, name);
}

/* ------------------------------------------------------------------ */

static void test_default_output(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_begin);
	char *out, *err;

	out_is("BEGIN { trace(1); }", &p_begin,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0      1                           :BEGIN         1\n",
	       "default output: header, record line, trace(int) \" %8d\"");

	p = compile("BEGIN { trace(1); }");
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	fire_all(p, &f, &out, &err);
	is_str(out, "  0      1                           :BEGIN         1\n",
	       "header printed once");
	free(out);
	free(err);
	d_free(p);

	out_is("BEGIN { trace(\"hi\"); trace(arg0); trace((uint8_t)300); "
	       "trace((short)-2); trace(-7); }",
	       &p_begin,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0      1                           :BEGIN   hi           "
	       "                                 4096  44    -2       -7\n",
	       "trace(): string \"  %-33s\", 8/1/2/4-byte integers, a "
	       "short signed as C has it");

	out_is("BEGIN", &p_begin,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0      1                           :BEGIN \n",
	       "a clause without actions prints the default line");
	out_is("BEGIN {}", &p_begin,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0      1                           :BEGIN \n",
	       "an empty action list prints the default line");
	out_is("syscall::read:entry { self->ts = timestamp; }", &p_read, "",
	       "a clause that only assigns leaves no record");
	out_is("syscall::read:entry { @[probefunc] = count(); }", &p_read, "",
	       "a clause that only aggregates leaves no record");
	out_is("syscall::read:entry { printf(\"x=%d\", 5); }", &p_read,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0    500                       read:entry x=5\n",
	       "printf() output follows the record line");
	out_is("#pragma D option quiet\nBEGIN { trace(1); trace(\"s\"); "
	       "trace(arg0); }",
	       &p_begin, "1s4096", "quiet: no header, trace() unpadded");

	p = compile("BEGIN { trace(2); }");
	d_set_quiet(p, true);
	ok(d_opt_quiet(p), "d_set_quiet() sets quiet");
	fire_all(p, &f, &out, &err);
	is_str(out, "2", "d_set_quiet(): no default output");
	free(out);
	free(err);
	d_free(p);
}

static void test_printf_conv(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err;

	p = compile("#pragma D option quiet\n"
		    "BEGIN { printf(\"%d %i %u|%d|%d\", -5, -5, -5, arg1, "
		    "(int)arg1); }");
	f.arg[1] = (uint64_t)-1;
	fire_all(p, &f, &out, &err);
	is_str(out, "-5 -5 4294967291|-1|-1",
	       "%s", "%d %i %u of int; %d of arg1 (int64_t) prints signed");
	free(out);
	free(err);
	d_free(p);

	q_is("BEGIN { printf(\"[%5d][%-5d][%05d][%+d][% d][%.3d]\", 42, 42, "
	     "42, 42, 42, 7); }",
	     "[   42][42   ][00042][+42][ 42][007]", "width, -, 0, +, space, "
	     "precision");
	q_is("BEGIN { printf(\"%x %X %#x %o %#o %p\", 255, 255, 255, 8, 8, "
	     "4096); }",
	     "ff FF 0xff 10 010 1000", "%x %X %#x %o %#o, %p is hex without "
				       "0x");
	q_is("BEGIN { printf(\"%x|%x\", -1, (uint64_t)-1); }",
	     "ffffffff|ffffffffffffffff", "%x by the value's size");
	q_is("BEGIN { printf(\"%c%c|%s|%10s|%-6s|%.2s|\", 72, 'i', \"str\", "
	     "\"right\", \"left\", \"abc\"); }",
	     "Hi|str|     right|left  |ab|", "%c, %s with width and "
					   "precision");
	q_is("BEGIN { printf(\"[%*d][%-*d][%.*s]\", 5, 42, 4, 7, 2, "
	     "\"xyz\"); }",
	     "[   42][7   ][xy]", "* width and precision from arguments");
	q_is("BEGIN { printf(\"%*d|\", -4, 1); }", "1   |",
	     "a negative * width left-justifies");
	q_is("BEGIN { printf(\"%hd %ld %lld %lu %llx %hhu\", (short)70000, "
	     "2L, 3LL, 4UL, 255LL, (unsigned char)262); }",
	     "4464 2 3 4 ff 6",
	     "length modifiers h l ll hh: an argument of the type, printed "
	     "at its size");
	q_is("BEGIN { printf(\"100%% %s\", \"done\"); }", "100% done", "%%");
	q_is("BEGIN { printf(\"%a %A\", 0x1234, 0x10); }", "0x1234 0x10",
	     "%a and %A without symbols print the address");
	q_is("BEGIN { printf(\"%S|%C\", \"a\\tb\\\"\", 10); }",
	     "a\\tb\\\"\\0|\\n",
	     "%S and %C escape (strchr2esc, NUL included)");
	q_is("BEGIN { printf(\"%Y\", walltimestamp); }",
	     "2023 Nov 14 22:13:20", "%Y: \"%Y %b %e %T\" (ctime reordered)");
	q_is("BEGIN { printf(\"%s\\n\", lltostr(123)); printf(\"tail\"); }",
	     "123\ntail", "several printf()s; text after the last "
			  "conversion");
	q_is("BEGIN { printf(\"no args\\n\"); }", "no args\n",
	     "printf() with only a format");
}

static void test_printf_errors(void)
{
	is_str(compile_err("BEGIN { printf(\"%d %d\\n\", 1); }"),
	       "line 1, column 9: printf( ) prototype mismatch: conversion "
	       "#2 (%d) is missing a corresponding value argument",
	       "printf(): missing argument");
	is_str(compile_err("BEGIN { printf(\"%d\\n\", 1, 2); }"),
	       "line 1, column 9: printf( ) prototype mismatch: only 1 "
	       "arguments required by this format string",
	       "printf(): extra argument");
	is_str(compile_err("BEGIN\n{\n\tprintf(\"%s\", 3);\n}"),
	       "line 3, column 2: printf( ) argument #2 is incompatible with "
	       "conversion #1 prototype:\n\tconversion: %s\n\t prototype: "
	       "char [] or string (or use stringof)\n\t  argument: int",
	       "%s", "printf(): %s of an int");
	is_str(compile_err("BEGIN { printf(\"%q\", 3); }"),
	       "line 1, column 9: format conversion #1 is undefined: %q",
	       "printf(): undefined conversion");
	is_str(compile_err("BEGIN { printf(\"%d\", execname); }"),
	       "line 1, column 9: printf( ) argument #2 is incompatible with "
	       "conversion #1 prototype:\n\tconversion: %d\n\t prototype: "
	       "char, short, int, long, or long long\n\t  argument: string",
	       "%s", "printf(): %d of a string");
	is_str(compile_err("BEGIN { printf(\"%@d\", 1); }"),
	       "line 1, column 9: %@ conversion requires an aggregation and "
	       "is not for use with printf( )",
	       "printf(): %%@ needs printa()");
}

static void test_predicates(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err;
	int rv;

	q_is("BEGIN /pid == 1234/ { printf(\"a\"); }\n"
	     "BEGIN /pid != 1234/ { printf(\"b\"); }\n"
	     "BEGIN /pid > 1000 && tid < 2000/ { printf(\"c\"); }\n"
	     "BEGIN /pid < 0 || execname == \"app\"/ { printf(\"d\"); }\n"
	     "BEGIN /!(pid == 1)/ { printf(\"e\"); }\n"
	     "BEGIN /1 ^^ 1/ { printf(\"f\"); }\n"
	     "BEGIN /execname != \"app\"/ { printf(\"g\"); }\n"
	     "BEGIN /arg0 / 2 == 0x800/ { printf(\"h\"); }\n",
	     "acdeh", "predicates: comparisons, && || ! ^^, strings, "
		      "division inside");

	p = compile("syscall::read:entry { self->ts = timestamp; }\n"
		    "syscall::read:return /self->ts/ {\n"
		    "\tprintf(\"%d ns\\n\", timestamp - self->ts);\n"
		    "\tself->ts = 0;\n}\n");
	f = mkfire(&p_read);
	f.timestamp = 1000;
	rv = d_run(p, 1, &f, stdout, stderr);
	is_int(rv, 0, "self->ts unset reads 0: predicate false");
	d_run(p, 0, &f, stdout, stderr);
	f.timestamp = 1750;
	d_set_quiet(p, true);
	{
		size_t ol = 0, el = 0;
		FILE *o = open_memstream(&out, &ol);
		FILE *e = open_memstream(&err, &el);
		struct d_fire g = f;

		g.tid = 99; /* another thread has no self->ts */
		d_run(p, 1, &g, o, e);
		d_run(p, 1, &f, o, e);
		d_run(p, 1, &f, o, e); /* self->ts = 0 cleared it */
		fclose(o);
		fclose(e);
	}
	is_str(out, "750 ns\n", "self-> latency pattern across two clauses, "
				"per thread");
	free(out);
	free(err);

	/* d_thread_exit() forgets a thread's variables */
	f.timestamp = 2000;
	d_run(p, 0, &f, stdout, stderr);
	d_thread_exit(p, f.tid);
	f.timestamp = 2500;
	fire_all(p, &f, &out, &err); /* clause 0 sets again, 1 then fires */
	free(out);
	free(err);
	{
		struct d_prog *q = compile("#pragma D option quiet\n"
					   "a { self->x = 5; }\n"
					   "b { d_thread_exit_check = 1; "
					   "printf(\"%d\", self->x); }");

		f.timestamp = 1;
		d_run(q, 0, &f, stdout, stderr);
		d_thread_exit(q, f.tid);
		{
			size_t ol = 0;
			FILE *o = open_memstream(&out, &ol);

			d_run(q, 1, &f, o, stderr);
			fclose(o);
		}
		is_str(out, "0", "d_thread_exit() forgets self-> variables");
		free(out);
		d_free(q);
	}
	d_free(p);
}

static void test_variables(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err;

	q_is("BEGIN { this->a = 2; }\nBEGIN { printf(\"%d\", this->a * 3); }",
	     "6", "this-> lives across the clauses of one firing");
	p = compile("#pragma D option quiet\n"
		    "a { printf(\"[%d]\", this->v); this->v = 7; }");
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	f.timestamp++;
	fire_all(p, &f, &out, &err);
	is_str(out, "[0]", "this-> starts at 0 in every firing");
	free(out);
	free(err);
	d_free(p);

	p = compile("#pragma D option quiet\n"
		    "a { n++; total += arg0; name = execname; "
		    "printf(\"%d %d %s|\", n, total, name); }");
	f.arg[0] = 10;
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	fire_all(p, &f, &out, &err);
	is_str(out, "2 20 app|", "globals keep their values: ++ += strings");
	free(out);
	free(err);
	d_free(p);

	p = compile("#pragma D option quiet\n"
		    "a { c[execname, pid] += 2; printf(\"%d %d|\", "
		    "c[execname, pid], c[\"x\", 1]); }");
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	fire_all(p, &f, &out, &err);
	is_str(out, "4 0|", "associative arrays, unset element 0");
	free(out);
	free(err);
	d_free(p);

	q_is("a { x = 5; y = x++ + ++x; z = x-- - --x; printf(\"%d %d %d\", "
	     "x, y, z); }",
	     "5 12 2", "prefix and postfix ++ --");
	q_is("a { x = 100; x -= 1; x *= 2; x /= 3; x %= 50; x <<= 2; x >>= 1;"
	     " x |= 1; x &= 0xff; x ^= 2; printf(\"%d\", x); }",
	     "35", "compound assignments");
	q_is("a { printf(\"%d %d %d %d %d %d\", 7 / 2, -7 / 2, -7 % 3, "
	     "1 << 10, -16 >> 2, ~0); }",
	     "3 -3 -1 1024 -4 -1", "arithmetic and shifts");
	q_is("a { printf(\"%d %d %u %d\", 2 + 3 * 4, (2 + 3) * 4, "
	     "(unsigned int)-1 / 2, 1 ? 2 : 3); }",
	     "14 20 2147483647 2", "precedence, unsigned division, ?:");
	q_is("a { printf(\"%d %d %d %s\", -1 < 1u, (int)0xfffffffe, "
	     "(uint8_t)0x1ff, 0 ? \"y\" : \"n\"); }",
	     "0 -2 255 n", "C conversions: -1 < 1u is false; casts");
	q_is("a { printf(\"%d %d\", \"abc\" < \"abd\", \"b\" == \"b\"); }",
	     "1 1", "string comparisons");
}

static void test_builtins(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err;
	unsigned i;

	p = compile("#pragma D option quiet\n"
		    "a { printf(\"%d %d %d %d %s %d %d %d %d|\", pid, ppid, "
		    "tid, uid, execname, timestamp, vtimestamp, cpu, epid); "
		    "printf(\"%s:%s:%s:%s %d|\", probeprov, probemod, "
		    "probefunc, probename, id); "
		    "printf(\"%d %d %d\", arg0, arg5, arg11); }");
	f.cpu = 3;
	f.epid = 9;
	f.arg[0] = 11;
	f.arg[5] = 55;
	f.arg[11] = 1111;
	fire_all(p, &f, &out, &err);
	is_str(out,
	       "1234 1 1235 1000 app 5000 300 3 9|"
	       "myapp1234:app:run_query:query-start 70143|11 55 1111",
	       "builtins: pid ppid tid uid execname timestamp vtimestamp "
	       "cpu epid probe* id arg0..arg11");
	free(out);
	free(err);
	d_free(p);

	/* args[]: typed by the probe's declared argument types */
	p = compile("#pragma D option quiet\n"
		    "a { printf(\"%s|%d|%d|%x|\", args[0], args[1], args[2], "
		    "args[3]); trace(args[1]); }");
	f.str[0] = "SELECT 1";
	f.strlen[0] = 8;
	f.arg[0] = 0xdead;
	f.arg[1] = 0xffffffffull; /* int -1 */
	f.arg[2] = 0x1ff;	  /* uint8_t 255 */
	f.arg[3] = 0x7fff0000ull; /* char * */
	fire_all(p, &f, &out, &err);
	is_str(out, "SELECT 1|-1|255|7fff0000|-1",
	       "args[N]: string, int sign-extended, uint8_t, pointer");
	free(out);
	free(err);
	ok(d_clause_strargs(p, 0) == 0xf, "strargs: every args[N] used");
	ok(d_clause_needs(p, 0) == 0xf, "needs: every args[N] used, no execname");
	d_free(p);

	p = compile("a { @ = count(); } b /arg5 > 1/ { @x[args[arg0]] = sum(arg11); }");
	ok(p && d_clause_needs(p, 0) == 0, "needs: count() needs nothing");
	ok(p && d_clause_needs(p, 1) == D_NEED_ARGS,
	   "needs: args[] with a computed index needs every argument");
	d_free(p);

	p = compile("#pragma D option quiet\n"
		    "a { printf(\"%s|%s|%d|%s|%s|%s|%s\", copyinstr(arg0), "
		    "copyinstr(arg0, 3), strlen(copyinstr(arg0)), "
		    "stringof(pid), lltostr(-42), strjoin(execname, \"-x\"), "
		    "copyinstr(arg1)); }");
	ok(d_clause_strargs(p, 0) == 0x3, "strargs: copyinstr(arg0/arg1)");
	ok(d_clause_needs(p, 0) == (0x3 | D_NEED_EXECNAME),
	   "needs: arg0, arg1 and execname");
	f.str[0] = "hello world";
	f.strlen[0] = 5; /* the kernel copied 5 bytes only */
	f.str[1] = NULL;
	f.arg[1] = USTR_ADDR;
	fire_all(p, &f, &out, &err);
	is_str(out, "hello|hel|5|1234|-42|app-x|from copyin",
	       "copyinstr() from the hit-time copy and through copyin(); "
	       "strlen stringof lltostr strjoin");
	free(out);
	free(err);
	d_free(p);

	/* taint: the process's bytes print escaped, whatever cut them out;
	 * the script's own, and numbers computed from tainted strings, not */
	p = compile("#pragma D option quiet\n"
		    "a { printf(\"%s|%s|%s|%s|%s|%s\", basename(copyinstr(arg0)), "
		    "strstr(copyinstr(arg0), \"\\033\"), "
		    "lltostr(strlen(copyinstr(arg0))), \"\\033[0m\", "
		    "strjoin(\"\\033\", \"!\"), dirname(copyinstr(arg0))); }");
	f.str[0] = "/\x9b/\033[1mb";
	f.strlen[0] = 8;
	fire_all(p, &f, &out, &err);
	is_str(out, "\\x1b[1mb|\\x1b[1mb|8|\033[0m|\033!|/\\x9b",
	       "taint: string functions of copyinstr() print escaped, "
	       "literals and numbers as they are");
	free(out);
	free(err);
	d_free(p);

	/* strsize truncates strings */
	p = compile("#pragma D option quiet\n#pragma D option strsize=4\n"
		    "a { printf(\"%s|%s\", copyinstr(arg0), execname); x = "
		    "\"abcdef\"; printf(\"|%s\", x); }");
	f.str[0] = "hello";
	f.strlen[0] = 5;
	fire_all(p, &f, &out, &err);
	is_str(out, "hel|app|abc", "strsize=4 keeps 3 characters");
	free(out);
	free(err);
	is_str(d_get_option(p, "strsize"), "4", "d_get_option(strsize)");
	d_free(p);

	for (i = 0; i < 1; i++) {
		p = compile("a { trace(1); }");
		is_int(d_set_option(p, "bufsize", "4m", NULL, 0), 0,
		       "d_set_option(bufsize)");
		is_str(d_get_option(p, "bufsize"), "4m",
		       "d_get_option(bufsize)");
		ok(d_get_option(p, "switchrate") == NULL,
		   "d_get_option() of an unset option");
		d_free(p);
	}
}

static void test_runtime_errors(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err;
	int rv;

	p = compile("a { printf(\"before\"); trace(copyinstr(arg1)); }\n"
		    "a { trace(\"next\"); }");
	f.epid = 2;
	f.arg[1] = 0x10;
	rv = fire_all(p, &f, &out, &err);
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT,
	       "invalid address: D_RUN_ERROR, and ERROR fires");
	is_str(err,
	       "dtrace: error on enabled probe ID 2 (ID 70143: "
	       "myapp1234:app:run_query:query-start): invalid address "
	       "(0x10) in action #2\n",
	       "invalid address: DTrace's message");
	is_str(out,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0  70143            run_query:query-start   next         "
	       "                    \n",
	       "a faulting clause prints nothing; the next clause runs");
	free(out);
	free(err);
	d_free(p);

	p = compile("a { x = 1; y = 10 / (x - 1); }");
	rv = fire_all(p, &f, &out, &err);
	is_str(err,
	       "dtrace: error on enabled probe ID 2 (ID 70143: "
	       "myapp1234:app:run_query:query-start): divide-by-zero in "
	       "action #2\n",
	       "division by zero");
	free(out);
	free(err);
	d_free(p);

	p = compile("a /copyinstr(arg2) == \"x\"/ { trace(1); }");
	f.arg[2] = 0;
	f.copyin = NULL;
	fire_all(p, &f, &out, &err);
	is_str(err,
	       "dtrace: error on enabled probe ID 2 (ID 70143: "
	       "myapp1234:app:run_query:query-start): invalid address "
	       "(0x0) in predicate\n",
	       "a fault in the predicate");
	free(out);
	free(err);
	d_free(p);

	p = compile("a { trace(args[7]); }");
	f = mkfire(&p_query);
	rv = fire_all(p, &f, &out, &err);
	is_str(err,
	       "dtrace: error on enabled probe ID 1 (ID 70143: "
	       "myapp1234:app:run_query:query-start): illegal operation in "
	       "action #1\n",
	       "args[N] beyond the declared arguments");
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT, "... is a run-time error");
	free(out);
	free(err);
	d_free(p);

	/* a firing whose backend took no ids at the hit: gid, then uid in
	 * the next clause, fault (consumer/psargs.c's cred_check() refuses
	 * such runs; never 0) */
	p = compile("a { trace(gid); } a { trace(uid); }");
	f = mkfire(&p_query);
	f.cred = false;
	rv = fire_all(p, &f, &out, &err);
	is_str(err,
	       "dtrace: error on enabled probe ID 1 (ID 70143: "
	       "myapp1234:app:run_query:query-start): illegal operation in "
	       "action #1\n"
	       "dtrace: error on enabled probe ID 1 (ID 70143: "
	       "myapp1234:app:run_query:query-start): illegal operation in "
	       "action #1\n",
	       "uid and gid without the hit's ids: illegal operation");
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT, "... a fault that fires ERROR");
	free(out);
	free(err);
	d_free(p);
}

/* One clause of p for f: what it printed, and d_run()'s result. */
static int run_one(struct d_prog *p, unsigned c, const struct d_fire *f,
		   char **out, char **err)
{
	size_t ol = 0, el = 0;
	FILE *o = open_memstream(out, &ol), *e = open_memstream(err, &el);
	int rv = d_run(p, c, f, o, e);

	fclose(o);
	fclose(e);
	return rv;
}

static const struct d_probe p_error = {
	.id = 3,
	.prov = "dtrace",
	.mod = "",
	.func = "",
	.name = "ERROR",
};

/* dtrace:::ERROR: its arguments, the faulting firing's this-> kept, no
 * recursion from a fault in an ERROR clause. */
static void test_error_probe(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query), e;
	char *out, *err;
	int rv;

	p = compile("#pragma D option quiet\n"
		    "a { this->v = 7; trace(copyinstr(arg1 + 0x20)); }\n"
		    "a { printf(\"this->v %d\\n\", this->v); }\n"
		    "ERROR { this->v = 9; printf(\"%d %d %d %d %d %d %s\\n\", "
		    "arg0, arg1, arg2, (int)arg3, arg4, arg5, probename); }\n"
		    "ERROR { x = 0; y = 1 / x; }");
	f.epid = 5;
	f.arg[1] = 0x10;
	rv = run_one(p, 0, &f, &out, &err);
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT, "a fault fires ERROR");
	is_str(err,
	       "dtrace: error on enabled probe ID 5 (ID 70143: "
	       "myapp1234:app:run_query:query-start): invalid address "
	       "(0x30) in action #2\n",
	       "... after DTrace's message");
	free(out);
	free(err);
	e = f;
	d_error_enter(p, &e);
	is_int((int)e.arg[1], 5, "ERROR's arg1: the epid");
	e.probe = &p_error;
	e.epid = 3;
	rv = run_one(p, 2, &e, &out, &err);
	is_int(rv, 0, "the ERROR clause runs");
	is_str(out, "0 5 2 -1 1 48 ERROR\n",
	       "arg0 0, arg1 epid, arg2 action, arg3 -1, arg4 "
	       "DTRACEFLT_BADADDR, arg5 the address");
	free(out);
	free(err);
	e.epid = 4;
	rv = run_one(p, 3, &e, &out, &err);
	is_int(rv, D_RUN_ERROR, "a fault in ERROR does not fire ERROR");
	is_str(err, "", "... and prints no message");
	free(out);
	free(err);
	d_error_leave(p);
	f.epid = 6;
	rv = run_one(p, 1, &f, &out, &err);
	is_str(out, "this->v 7\n",
	       "the faulting firing's later clause keeps its this->");
	free(out);
	free(err);
	{
		size_t el = 0;
		FILE *ef = open_memstream(&err, &el);

		d_report_drops(p, ef);
		fclose(ef);
		is_str(err, "dtrace: 1 error in ERROR probe enabling\n",
		       "the fault in ERROR is counted and reported");
		free(err);
	}
	d_free(p);
}

/* d_run_fault(): a clause's fault at the probe (a generated BPF
 * program's, consumer/cgen.c) reported as d_run() reports its own, and
 * ERROR's arguments the same; at ERROR itself, no message. */
static void test_run_fault(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query), e;
	char *out, *err = NULL;
	size_t el = 0;
	FILE *ef;
	int rv;

	p = compile("#pragma D option quiet\n"
		    "a /copyinstr(arg1) == \"x\"/ { @n = count(); }\n"
		    "ERROR { printf(\"%d %d %d %d %d %d\\n\", arg0, arg1, "
		    "arg2, (int)arg3, arg4, arg5); }");
	f.epid = 5;
	ef = open_memstream(&err, &el);
	rv = d_run_fault(p, 0, &f, 0, false, 0x1000, ef);
	fclose(ef);
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT, "d_run_fault(): ERROR fires");
	is_str(err,
	       "dtrace: error on enabled probe ID 5 (ID 70143: "
	       "myapp1234:app:run_query:query-start): invalid address "
	       "(0x1000) in predicate\n",
	       "d_run_fault(): DTrace's message, in the predicate");
	free(err);
	e = f;
	d_error_enter(p, &e);
	e.probe = &p_error;
	e.epid = 3;
	rv = run_one(p, 1, &e, &out, &err);
	is_str(out, "0 5 0 -1 1 4096\n",
	       "d_run_fault(): ERROR's arguments, as a fault of its own");
	free(out);
	free(err);
	err = NULL;
	el = 0;
	ef = open_memstream(&err, &el);
	rv = d_run_fault(p, 1, &e, 1, false, 0x10, ef);
	fclose(ef);
	is_int(rv, D_RUN_ERROR, "d_run_fault() at ERROR: no ERROR");
	is_str(err, "", "d_run_fault() at ERROR: no message");
	free(err);
	d_error_leave(p);
	/* a lost vtimestamp's (illop): an illegal operation, address 0 */
	err = NULL;
	el = 0;
	ef = open_memstream(&err, &el);
	rv = d_run_fault(p, 0, &f, 1, true, 0x1000, ef);
	fclose(ef);
	is_int(rv, D_RUN_ERROR | D_RUN_FAULT,
	       "d_run_fault(illop): ERROR fires");
	is_str(err,
	       "dtrace: error on enabled probe ID 5 (ID 70143: "
	       "myapp1234:app:run_query:query-start): illegal operation "
	       "in action #1\n",
	       "d_run_fault(illop): run.c's message");
	free(err);
	d_free(p);
}

/* Speculations whose words the kernel keeps: d/spec.c's held
 * generations, the tags handed over as a record walk would */
static char *kspec_drops(struct d_prog *p)
{
	char *err = NULL;
	size_t el = 0;
	FILE *ef = open_memstream(&err, &el);

	d_report_drops(p, ef);
	fclose(ef);
	return err;
}

static void test_kspec(void)
{
	struct d_prog *p;
	char *out = NULL, *err;
	size_t ol = 0;
	FILE *of;

	p = compile("#pragma D option quiet\n#pragma D option nspec=2\n"
		    "#pragma D option specsize=7\nBEGIN { }");
	if (!p)
		return;
	of = open_memstream(&out, &ol);
	/* sequence order, not the order read; a hole; ID 2 apart */
	d_kspec_open(p, 1, 0);
	d_kspec_open(p, 2, 0);
	d_kspec_hold(p, 1, 2, 0, "c\n", 2);
	d_kspec_hold(p, 2, 0, 0, "x\n", 2);
	d_kspec_hold(p, 1, 0, 0, "a\n", 2);
	d_kspec_hold(p, 1, 1, 0, NULL, 0);
	d_kspec_close(p, 1, 3, true, false, of);
	fflush(of);
	is_str(out, "a\nc\n", "kspec: a commit prints in sequence order");
	/* the next generation's record in hand before its open and the
	 * close: not the closing one's */
	d_kspec_open(p, 1, 3);
	d_kspec_hold(p, 1, 3, 0, "d\n", 2);
	d_kspec_hold(p, 1, 4, 0, "e\n", 2);
	d_kspec_close(p, 1, 4, true, false, of);
	d_kspec_open(p, 1, 4);
	d_kspec_close(p, 1, 5, true, false, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\n",
	       "kspec: a record past the close waits for its generation");
	/* specsize 7: the third 3-byte record is a drop, by commit() and
	 * discard() alike; a stale sequence (6) is never handed over */
	d_kspec_open(p, 1, 5);
	d_kspec_hold(p, 1, 5, 0, "ff\n", 3);
	d_kspec_hold(p, 1, 7, 0, "hh\n", 3);
	d_kspec_close(p, 1, 6, true, false, of);
	d_kspec_open(p, 1, 7);
	d_kspec_hold(p, 1, 8, 0, "ii\n", 3);
	d_kspec_hold(p, 1, 9, 0, "jj\n", 3);
	d_kspec_close(p, 1, 10, false, false, of);
	d_kspec_open(p, 1, 10);
	d_kspec_hold(p, 1, 10, 0, "kk\n", 3);
	d_kspec_hold(p, 1, 11, 0, "ll\n", 3);
	d_kspec_hold(p, 1, 12, 0, "mm\n", 3);
	d_kspec_close(p, 1, 13, true, false, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\n",
	       "kspec: specsize decided in sequence order");
	err = kspec_drops(p);
	is_str(err, "dtrace: 2 speculative drops\n",
	       "kspec: drops counted by commit() and discard()");
	free(err);
	/* two closes at the same count: the generation opened at 13 and
	 * the empty one opened at 15; the first close run takes the first */
	d_kspec_open(p, 1, 13);
	d_kspec_open(p, 1, 15);
	d_kspec_hold(p, 1, 13, 0, "n\n", 2);
	d_kspec_hold(p, 1, 14, 0, "o\n", 2);
	d_kspec_ahead(p, 1, 15);
	d_kspec_close(p, 1, 15, false, false, of);
	d_kspec_close(p, 1, 15, true, true, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\n",
	       "kspec: equal counts, the discard run first takes the records");
	d_kspec_open(p, 1, 15);
	d_kspec_open(p, 1, 17);
	d_kspec_hold(p, 1, 15, 0, "p\n", 2);
	d_kspec_hold(p, 1, 16, 0, "q\n", 2);
	d_kspec_ahead(p, 1, 17);
	d_kspec_close(p, 1, 17, true, false, of);
	d_kspec_close(p, 1, 17, false, true, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\np\nq\n",
	       "kspec: equal counts, the commit run first prints them");
	/* sequences running on into the next generation: the later close
	 * run first takes its own only (the one opened at 19 between) */
	d_kspec_open(p, 1, 17);
	d_kspec_hold(p, 1, 17, 0, "r\n", 2);
	d_kspec_hold(p, 1, 18, 0, "s\n", 2);
	d_kspec_hold(p, 1, 19, 0, "t\n", 2);
	d_kspec_open(p, 1, 19);
	d_kspec_ahead(p, 1, 19);
	d_kspec_close(p, 1, 20, true, false, of);
	d_kspec_close(p, 1, 19, false, true, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\np\nq\nt\n",
	       "kspec: a close takes no generation opened inside its range");
	/* a close at a count the next generation opened at (a stale
	 * speculate() at 21 between): the empty one's close, run first */
	d_kspec_open(p, 1, 20);
	d_kspec_hold(p, 1, 20, 0, "u\n", 2);
	d_kspec_open(p, 1, 22);
	d_kspec_ahead(p, 1, 21);
	d_kspec_close(p, 1, 22, true, false, of);
	d_kspec_close(p, 1, 21, true, true, of);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\np\nq\nt\nu\n",
	       "kspec: a close at a later generation's count, run first");
	/* a failed speculation; ID 2 never closed: discarded at the end,
	 * its drops counted; an ID past nspec or 0 is ignored */
	d_kspec_open(p, 0, 0);
	d_kspec_hold(p, 2, 1, 0, "yyyyyy\n", 7);
	d_kspec_hold(p, 3, 0, 0, "z\n", 2);
	d_kspec_hold(p, 0, 0, 0, "z\n", 2);
	d_kspec_close(p, 0, 0, true, false, of);
	d_kspec_end(p, UINT64_MAX);
	fflush(of);
	is_str(out, "a\nc\nd\ne\nff\nkk\nll\np\nq\nt\nu\n",
	       "kspec: nothing more printed");
	err = kspec_drops(p);
	is_str(err,
	       "dtrace: 1 failed speculation (no speculative buffer "
	       "available)\ndtrace: 1 speculative drop\n",
	       "kspec: a failed speculation; the end's drops");
	free(err);
	fclose(of);
	free(out);
	d_free(p);
}

static const struct d_probe p_sp = {
	.id = 12,
	.prov = "sp1234",
	.mod = "sp",
	.func = "run",
	.name = "data",
};

/* d_run_kspec()'s record of a speculate() the kernel reached with
 * nothing printed after it: the default line, the JSON record, or empty
 * under -q (a step sets x->recorded in its pre mode too, as run_clause()
 * sets it) */
static void test_kspec_text(void)
{
	static const char *const src[3] = {
		"sp*:::data { speculate(1); }",
		"#pragma D option oformat=json\nsp*:::data { speculate(1); }",
		"#pragma D option quiet\nsp*:::data { speculate(1); }",
	};
	static const char *const want[3] = {
		"  3     12                         run:data \n",
		"{\"cpu\":3,\"id\":12,\"provider\":\"sp1234\",\"module\":"
		"\"sp\",\"function\":\"run\",\"name\":\"data\",\"output\""
		":\"\"}\n",
		"",
	};
	static const char *const what[3] = { "the default line", "JSON",
					     "-q: empty" };

	for (unsigned i = 0; i < 3; i++) {
		struct d_prog *p = compile(src[i]);
		struct d_fire f = mkfire(&p_sp);
		/* its values (struct dv's, opaque here): none read, nothing
		 * is printed, but pre must be given for the pre mode */
		static uint64_t pre[16];
		char *rec = NULL;
		size_t len = 0;
		bool made;

		if (!p) {
			ok(0, "kspec text: %s", what[i]);
			continue;
		}
		f.cpu = 3;
		made = d_run_kspec(p, 0, &f, (const struct dv *)pre, true, NULL,
				   &rec, &len);
		ok(made && len == strlen(want[i]), "kspec text: %s made",
		   what[i]);
		is_str(rec ? rec : "(none)", want[i],
		       "kspec text: speculate() alone, %s", what[i]);
		free(rec);
		d_free(p);
	}
}

/* d_run_kspec()'s own record (doc/DESIGN.md's "Own records"), written
 * at the place: a commit() clause's only record, its default line (the
 * header before the first) or JSON record, where its tags say a step
 * was reached (stepped), wherever it is (here under an if, which the
 * pre mode does not walk); nothing where none was */
static void test_kspec_own(void)
{
	static const char *const src[2] = {
		"sp*:::end { if (arg2) { commit(1); } }",
		"#pragma D option oformat=json\n"
		"sp*:::end { if (arg2) { commit(1); } }",
	};
	static const char *const want[2] = {
		"CPU     ID                    FUNCTION:NAME\n"
		"  3     12                         run:data \n",
		"{\"cpu\":3,\"id\":12,\"provider\":\"sp1234\",\"module\":"
		"\"sp\",\"function\":\"run\",\"name\":\"data\",\"output\""
		":\"\"}\n",
	};
	static const char *const what[2] = { "the default line", "JSON" };

	for (unsigned i = 0; i < 2; i++) {
		struct d_prog *p = compile(src[i]);
		struct d_fire f = mkfire(&p_sp);
		static uint64_t pre[16]; /* none read: nothing printed */
		char *out = NULL, *rec = NULL;
		size_t ol = 0, len = 0;
		bool made[2];
		FILE *o;

		if (!p) {
			ok(0, "kspec own: %s", what[i]);
			continue;
		}
		f.cpu = 3;
		o = open_memstream(&out, &ol);
		made[0] = d_run_kspec(p, 0, &f, (const struct dv *)pre, false,
				      o, &rec, &len);
		fflush(o);
		is_str(out, "", "kspec own: %s, no step reached: nothing",
		       what[i]);
		made[1] = d_run_kspec(p, 0, &f, (const struct dv *)pre, true, o,
				      &rec, &len);
		fclose(o);
		ok(made[0] && made[1] && !rec && !len,
		   "kspec own: %s written, not kept", what[i]);
		is_str(out, want[i], "kspec own: commit()'s %s at its place",
		       what[i]);
		free(out);
		d_free(p);
	}
}

/* The interpreter's commit() and discard() close at the statement, as
 * DTrace's: commit(); discard() prints the records, and a take after a
 * commit() with nspec 1 gets ID 1 again */
static void test_spec_close_at(void)
{
	static const unsigned runs[2][4] = { { 0, 1, 2, ~0u }, { 0, 1, 3, 4 } };
	static const char *const want[2][4] = {
		{ "", "", "d 7\n", "" },
		{ "", "", "d 8\n", "id 1\n" },
	};
	static const char *const what[2][4] = {
		{ "taken", "speculated",
		  "commit(); discard() prints the records" },
		{ "taken again", "speculated again",
		  "commit(); speculation() prints the records",
		  "the take after the commit() gets ID 1 again (nspec 1)" },
	};
	struct d_prog *p;
	struct d_fire f = mkfire(&p_sp);

	p = compile("#pragma D option quiet\n"
		    "sp*:::begin { self->s = speculation(); }\n"
		    "sp*:::data { speculate(self->s); printf(\"d %d\\n\", "
		    "arg0); }\n"
		    "sp*:::end { commit(self->s); discard(self->s); }\n"
		    "sp*:::end { commit(self->s); self->s = speculation(); }\n"
		    "sp*:::end { printf(\"id %d\\n\", self->s); }");
	if (!p) {
		ok(0, "commit at the statement");
		return;
	}
	for (unsigned r = 0; r < 2; r++) {
		f.arg[0] = 7 + r;
		for (unsigned i = 0; i < 4 && runs[r][i] != ~0u; i++) {
			char *out = NULL, *err = NULL;

			run_one(p, runs[r][i], &f, &out, &err);
			is_str(out, want[r][i], "commit at the statement: %s",
			       what[r][i]);
			free(out);
			free(err);
		}
	}
	d_free(p);
}

/* After a lost record (d_kspec_lost()): every record held and every
 * later one a drop (not an empty one), nothing printed, the message
 * once; an exit()'s stamp (d_kspec_end()'s until): the holds stamped
 * after it forgotten, not counted */
static void test_kspec_lost(void)
{
	struct d_prog *p;
	char *out = NULL, *err = NULL, *drops;
	size_t ol = 0, el = 0;
	FILE *of, *ef;

	p = compile("#pragma D option quiet\n#pragma D option nspec=2\n"
		    "#pragma D option specsize=7\nBEGIN { }");
	if (!p)
		return;
	of = open_memstream(&out, &ol);
	ef = open_memstream(&err, &el);
	d_kspec_open(p, 1, 0);
	d_kspec_hold(p, 1, 0, 10, "a\n", 2);
	d_kspec_close(p, 1, 1, true, false, of);
	d_kspec_open(p, 1, 1);
	d_kspec_open(p, 2, 0);
	d_kspec_hold(p, 1, 1, 20, "b\n", 2);
	d_kspec_hold(p, 1, 2, 20, NULL, 0);
	d_kspec_hold(p, 2, 0, 20, "c\n", 2);
	d_kspec_hold(p, 2, 1, 20, "", 0); /* empty: never a drop */
	d_kspec_lost(p, ef);
	d_kspec_hold(p, 1, 3, 30, "d\n", 2);
	d_kspec_hold(p, 2, 2, 30, "", 0);
	d_kspec_ahead(p, 1, 4);
	d_kspec_close(p, 1, 4, true, true, of);
	d_kspec_open(p, 1, 4);
	d_kspec_hold(p, 1, 4, 40, "e\n", 2);
	d_kspec_lost(p, ef);
	d_kspec_close(p, 1, 5, true, false, of);
	d_kspec_open(p, 0, 0);
	d_kspec_end(p, UINT64_MAX);
	fflush(of);
	fflush(ef);
	is_str(out, "a\n",
	       "kspec lost: a close before the loss prints, none "
	       "after");
	is_str(err,
	       "dtrace: speculation buffers discarded after lost "
	       "records\n",
	       "kspec lost: the message once");
	drops = kspec_drops(p);
	is_str(drops,
	       "dtrace: 1 failed speculation (no speculative buffer "
	       "available)\ndtrace: 4 speculative drops\n",
	       "kspec lost: every record held or later a drop, holes and "
	       "empty records not");
	free(drops);
	d_free(p);
	/* exit() at stamp 50: the holds stamped after it, never run by the
	 * user space path, are forgotten uncounted; those at or before it
	 * decided as the end decides them */
	p = compile("#pragma D option quiet\n#pragma D option nspec=2\n"
		    "#pragma D option specsize=4\nBEGIN { }");
	if (!p)
		return;
	d_kspec_open(p, 1, 0);
	d_kspec_hold(p, 1, 0, 40, "aa\n", 3);
	d_kspec_hold(p, 1, 1, 60, "bb\n", 3);
	d_kspec_hold(p, 1, 2, 50, "cc\n", 3);
	d_kspec_open(p, 2, 0);
	d_kspec_hold(p, 2, 0, 70, "dd\n", 3);
	d_kspec_hold(p, 2, 1, 80, "ee\n", 3);
	d_kspec_end(p, 50);
	drops = kspec_drops(p);
	is_str(drops, "dtrace: 1 speculative drop\n",
	       "kspec end: holds stamped after the exit() not counted");
	free(drops);
	d_free(p);
	fclose(of);
	fclose(ef);
	free(out);
	free(err);
}

/*
 * The held generations on random runs: the kernel's words stepped as
 * the plan's atomics step them (kspec_model.h, as t-cgspec checks the
 * kernel's steps against), in one order of their steps (one
 * thread's, or many threads' interleaved: the same to the words), the
 * oracle the buffers as d/spec.c keeps them stepped in that order (its
 * rules written again here).  The tags are handed over as a walk would:
 * a close once every tag whose step came before its own is in hand,
 * after a random look ahead of tags that follow, in random order.
 */
#define KS_N 3
#define KS_OPS 200
struct ks_tag {
	unsigned kind; /* 0 open, 1 hold, 2 close; 3 handed, 4 told ahead,
			* 5 run */
	unsigned id;
	uint64_t a;
	bool commit;
	char rec[16];
	size_t len;
	char want[4096]; /* a close: what the oracle's prints */
};

/* A run's tags in step order; the oracle's failed speculations and
 * drops; how many tags */
static size_t ks_gen(struct ks_tag *t, uint64_t *fails, uint64_t *drops)
{
	uint64_t w[KS_N] = { 0 };
	char obuf[KS_N][4096];
	size_t olen[KS_N] = { 0 }, nt = 0;

	*fails = *drops = 0;
	for (unsigned op = 0; op < KS_OPS; op++) {
		unsigned r = (unsigned)rand() % 10;
		unsigned id = (unsigned)rand() % (KS_N + 1);
		struct ksm_tag g;

		memset(&t[nt], 0, sizeof(t[nt]));
		if (r < 2) { /* speculation() */
			unsigned i = ksm_take(w, KS_N, &g);

			t[nt].kind = 0;
			t[nt].id = g.id;
			t[nt].a = g.n;
			nt++;
			if (i)
				olen[i - 1] = 0;
			else
				++*fails;
		} else if (r < 8) { /* speculate(id), a record */
			struct ks_tag *k = &t[nt];

			if (!id)
				continue;
			ksm_step(w, KS_N, id, false, &g);
			if (!(g.act & 1))
				continue; /* dropped silently */
			k->kind = 1;
			k->id = id;
			k->a = g.n;
			k->len = (size_t)snprintf(k->rec, sizeof(k->rec),
						  "%u.%u%s\n", op, id,
						  r & 1 ? "xx" : "");
			nt++;
			if (olen[id - 1] + k->len > 12) {
				++*drops;
				continue;
			}
			memcpy(obuf[id - 1] + olen[id - 1], k->rec, k->len);
			olen[id - 1] += k->len;
		} else { /* commit(id) or discard(id) */
			if (!id)
				continue;
			ksm_step(w, KS_N, id, true, &g);
			if (!(g.act & 1))
				continue;
			t[nt].kind = 2;
			t[nt].id = id;
			t[nt].a = g.n;
			t[nt].commit = r == 8;
			if (r == 8)
				memcpy(t[nt].want, obuf[id - 1], olen[id - 1]);
			nt++;
		}
	}
	return nt;
}

/* Hand over a tag in hand before its place */
static void ks_hand(struct d_prog *p, struct ks_tag *t)
{
	if (t->kind == 1)
		d_kspec_hold(p, t->id, t->a, 0, t->rec, t->len);
	else if (t->kind == 0)
		d_kspec_open(p, t->id, t->a);
	else
		d_kspec_ahead(p, t->id, t->a);
	t->kind = t->kind < 2 ? 3 : 4;
}

/* Tags lo .. hi - 1 not handed, in random order; ahead more of those
 * from hi on (no failed speculation: it is counted at its place) */
static void ks_before(struct d_prog *p, struct ks_tag *t, size_t nt, size_t lo,
		      size_t hi, size_t ahead)
{
	size_t idx[KS_OPS], m = 0;

	for (size_t j = lo; j < hi; j++)
		if (t[j].kind < 3)
			idx[m++] = j;
	for (size_t j = hi + 1; j < nt && ahead; j++)
		if (t[j].kind == 1 || t[j].kind == 2 ||
		    (t[j].kind == 0 && t[j].id)) {
			idx[m++] = j;
			ahead--;
		}
	while (m) {
		size_t k = (size_t)rand() % m;

		ks_hand(p, &t[idx[k]]);
		idx[k] = idx[--m];
	}
}

static char *ks_report(uint64_t fails, uint64_t drops)
{
	static char w[256];
	int n = 0;

	w[0] = 0;
	if (fails)
		n = snprintf(w, sizeof(w),
			     "dtrace: %llu failed speculation%s (no "
			     "speculative buffer available)\n",
			     (unsigned long long)fails, fails == 1 ? "" : "s");
	if (drops)
		snprintf(w + n, sizeof(w) - (size_t)n,
			 "dtrace: %llu speculative drop%s\n",
			 (unsigned long long)drops, drops == 1 ? "" : "s");
	return w;
}

static void test_kspec_random(void)
{
	static struct ks_tag t[KS_OPS];
	unsigned bad = 0, badx = 0, runs = 0;

	srand(26);
	for (unsigned run = 0; run < 600; run++) {
		/* the first half in step order (one thread); the second the
		 * closes in a random order (threads' hits stamped otherwise
		 * than their steps came) */
		bool cross = run >= 300;
		struct d_prog *p = compile(
			"#pragma D option quiet\n#pragma D option nspec=3\n"
			"#pragma D option specsize=12\nBEGIN { }");
		uint64_t fails, drops;
		size_t nt = ks_gen(t, &fails, &drops), cl[KS_OPS], nc = 0;
		bool moved = true;
		char *err;

		if (!p)
			return;
		for (size_t i = 0; i < nt; i++)
			if (t[i].kind == 2)
				cl[nc++] = i;
		runs += cross;
		for (size_t i = nc; cross && i > 1; i--) {
			size_t j = (size_t)rand() % i, x = cl[i - 1];

			cl[i - 1] = cl[j];
			cl[j] = x;
		}
		/* two closes of one ID at one count: either may have been
		 * first, the words do not say (they are paired in the order
		 * run); the oracle knows one order, so run them in it */
		while (cross && moved) {
			moved = false;
			for (size_t i = 0; i < nc; i++)
				for (size_t j = i + 1; j < nc; j++) {
					size_t x = cl[i];

					if (t[x].id != t[cl[j]].id ||
					    t[x].a != t[cl[j]].a || x < cl[j])
						continue;
					cl[i] = cl[j];
					cl[j] = x;
					moved = true;
				}
		}
		for (size_t i = 0; i < nc; i++) {
			struct ks_tag *c = &t[cl[i]];
			char *got = NULL;
			size_t gl = 0;
			FILE *f = open_memstream(&got, &gl);

			ks_before(p, t, nt, 0, cl[i], (size_t)rand() % 6);
			d_kspec_close(p, c->id, c->a, c->commit, c->kind == 4,
				      f);
			c->kind = 5;
			fclose(f);
			if (strcmp(got, c->want) && !(cross ? badx++ : bad++))
				diag("run %u: close of %u at %llu: got '%s', "
				     "want '%s'",
				     run, c->id, (unsigned long long)c->a, got,
				     c->want);
			free(got);
		}
		ks_before(p, t, nt, 0, nt, 0);
		d_kspec_end(p, UINT64_MAX);
		err = kspec_drops(p);
		if (strcmp(err, ks_report(fails, drops)) &&
		    !(cross ? badx++ : bad++))
			diag("run %u: got '%s', want '%s'", run, err,
			     ks_report(fails, drops));
		free(err);
		d_free(p);
	}
	is_int(bad, 0,
	       "kspec: 300 random runs of one thread: each close's "
	       "output and the drops as the user space path's");
	is_int(badx, 0,
	       "kspec: %u random runs, the closes run in another "
	       "order than their steps: each close's own",
	       runs);
}

static void test_exit(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_begin);
	char *out, *err;
	int rv;

	p = compile("BEGIN { exit(3); printf(\"after\"); }");
	rv = fire_all(p, &f, &out, &err);
	is_int(rv, D_RUN_EXIT, "exit(): D_RUN_EXIT");
	is_int(d_exit_status(p), 3, "exit(3): status 3");
	is_str(out,
	       "CPU     ID                    FUNCTION:NAME\n"
	       "  0      1                           :BEGIN after\n",
	       "the rest of the clause still runs after exit()");
	free(out);
	free(err);
	d_free(p);
}

static void test_aggregations(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err, *a;
	static const char *const names[] = { "bash", "sh", "ls", "sh", "bash" };
	unsigned i;

	p = compile("a { @[execname] = count(); }");
	for (i = 0; i < 5; i++) {
		f.execname = names[i];
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
	}
	a = aggs_of(p);
	is_str(a,
	       "  ls                                                         "
	       "       1\n"
	       "  bash                                                       "
	       "       2\n"
	       "  sh                                                         "
	       "       2\n",
	       "%s", "count() by string key: \"  %-50s %16lld\", by value then key");
	free(a);
	d_free(p);

	p = compile("a { @c[pid, probefunc] = count(); }");
	f = mkfire(&p_query);
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	f.pid = 7;
	f.probe = &p_read;
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	a = aggs_of(p);
	is_str(a,
	       "        7  read                                              "
	       "                1\n"
	       "     1234  run_query                                         "
	       "                2\n",
	       "%s", "two keys: int pid \" %8d\", string; count");
	free(a);
	d_free(p);

	p = compile("a { @ = count(); @s = sum(arg0); @av = avg(arg0); "
		    "@mi = min(arg0); @ma = max(arg0); @k[arg0] = sum(1); }");
	f = mkfire(&p_query);
	for (i = 0; i < 3; i++) {
		f.arg[0] = i == 1 ? (uint64_t)-4 : (uint64_t)(i * 10 + 5);
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
	}
	a = aggs_of(p);
	/* values 5, -4, 25 */
	is_str(a,
	       "                3\n"
	       "               26\n"
	       "                8\n"
	       "               -4\n"
	       "               25\n"
	       "                5                1\n"
	       "               25                1\n"
	       "               -4                1\n",
	       "%s", "no key; sum avg min max; a uint64_t key \" %16lld\", "
	       "compared unsigned (dt_aggregate_keycmp)");
	free(a);
	d_free(p);

	p = compile("a { @q = quantize(arg0); }");
	{
		static const int64_t v[] = { -3, 0, 0, 5 };

		for (i = 0; i < 4; i++) {
			f.arg[0] = (uint64_t)v[i];
			fire_all(p, &f, &out, &err);
			free(out);
			free(err);
		}
	}
	a = aggs_of(p);
	is_str(a,
	       "\n"
	       "           value  ------------- Distribution ------------- "
	       "count    \n"
	       "              -4 |                                         0"
	       "        \n"
	       "              -2 |@@@@@@@@@@                               1"
	       "        \n"
	       "              -1 |                                         0"
	       "        \n"
	       "               0 |@@@@@@@@@@@@@@@@@@@@                     2"
	       "        \n"
	       "               1 |                                         0"
	       "        \n"
	       "               2 |                                         0"
	       "        \n"
	       "               4 |@@@@@@@@@@                               1"
	       "        \n"
	       "               8 |                                         0"
	       "        \n"
	       "\n",
	       "quantize(): -3 counts under -2 (dtrace_aggregate_quantize), "
	       "zero values, one empty bucket either side");
	free(a);
	d_free(p);

	p = compile("a { @l = lquantize(arg0, 0, 100, 10); }");
	{
		static const int64_t v[] = { -1, 5, 20, 29, 95, 100, 1000 };

		for (i = 0; i < 7; i++) {
			f.arg[0] = (uint64_t)v[i];
			fire_all(p, &f, &out, &err);
			free(out);
			free(err);
		}
	}
	a = aggs_of(p);
	is_str(a,
	       "\n"
	       "           value  ------------- Distribution ------------- "
	       "count    \n"
	       "             < 0 |@@@@@@                                   1"
	       "        \n"
	       "               0 |@@@@@@                                   1"
	       "        \n"
	       "              10 |                                         0"
	       "        \n"
	       "              20 |@@@@@@@@@@@                              2"
	       "        \n"
	       "              30 |                                         0"
	       "        \n"
	       "              40 |                                         0"
	       "        \n"
	       "              50 |                                         0"
	       "        \n"
	       "              60 |                                         0"
	       "        \n"
	       "              70 |                                         0"
	       "        \n"
	       "              80 |                                         0"
	       "        \n"
	       "              90 |@@@@@@                                   1"
	       "        \n"
	       "          >= 100 |@@@@@@@@@@@                              2"
	       "        \n"
	       "\n",
	       "lquantize(): \"< 0\" and \">= 100\" buckets");
	free(a);
	d_free(p);

	p = compile("a { @[\"k\"] = quantize(0); }");
	for (i = 0; i < 3; i++) {
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
	}
	a = aggs_of(p);
	is_str(a,
	       "  k                                                 \n"
	       "           value  ------------- Distribution ------------- "
	       "count    \n"
	       "              -1 |                                         0"
	       "        \n"
	       "               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3"
	       "        \n"
	       "               1 |                                         0"
	       "        \n"
	       "\n",
	       "quantize() with a key: the key, then the distribution");
	free(a);
	d_free(p);

	/* aggregations print in the order the program names them */
	p = compile("a { @z = count(); @a = sum(2); }");
	fire_all(p, &f, &out, &err);
	free(out);
	free(err);
	a = aggs_of(p);
	is_str(a, "                1\n                2\n",
	       "aggregations print in program order");
	free(a);
	d_free(p);

	is_str(compile_err("a { @x = count(); @x = sum(1); }"),
	       "line 1, column 24: @x: aggregation redefined: previously "
	       "count( ), now sum( )",
	       "an aggregation keeps its function");
	is_str(compile_err("a { @x = foo(1); }"),
	       "line 1, column 10: foo( ) is not an aggregating function",
	       "unknown aggregating function");
	is_str(compile_err("a { printa(@nope); }"),
	       "line 1, column 12: undefined aggregation: @nope",
	       "printa() of an undefined aggregation");
}

static void test_printa_clear_trunc(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out, *err, *a;
	static const char *const names[] = { "bash", "sh", "ls", "sh", "bash",
					      "bash" };
	unsigned i;

	p = compile("#pragma D option quiet\n"
		    "a { @c[execname] = count(); }\n"
		    "b { printa(@c); printa(\"%-6s %@u|\", @c); }");
	for (i = 0; i < 6; i++) {
		f.execname = names[i];
		d_run(p, 0, &f, stdout, stderr);
	}
	fire_all(p, &f, &out, &err); /* clause 0 counts bash once more */
	is_str(out,
	       "\n"
	       "  ls                                                         "
	       "       1\n"
	       "  sh                                                         "
	       "       2\n"
	       "  bash                                                       "
	       "       4\n"
	       "ls     1|sh     2|bash   4|",
	       "printa(@c): newline then the rows; printa(fmt, @c) per "
	       "entry");
	free(out);
	free(err);
	a = aggs_of(p);
	is_str(a, "", "an aggregation printa() printed is not printed again "
		      "at the end");
	free(a);
	{
		size_t l = 0;
		FILE *o = open_memstream(&a, &l);

		d_print_aggs(p, o);
		fclose(o);
		is_str(a, "\n", "d_print_aggs(): the newline dtrace prints "
				"when tracing stops, even with nothing to print");
		free(a);
	}
	d_free(p);

	p = compile("#pragma D option quiet\n"
		    "a { @c[execname] = count(); }\n"
		    "b { clear(@c); }\n"
		    "c { trunc(@c, 2); }\n"
		    "d { trunc(@c, -1); }\n"
		    "e { trunc(@c); }");
	for (i = 0; i < 6; i++) {
		f.execname = names[i];
		d_run(p, 0, &f, stdout, stderr);
	}
	d_run(p, 2, &f, stdout, stderr);
	a = aggs_of(p);
	is_str(a,
	       "  sh                                                         "
	       "       2\n"
	       "  bash                                                       "
	       "       3\n",
	       "trunc(@c, 2) keeps the two largest");
	free(a);
	d_run(p, 3, &f, stdout, stderr);
	a = aggs_of(p);
	is_str(a,
	       "  sh                                                         "
	       "       2\n",
	       "trunc(@c, -1) keeps the smallest");
	free(a);
	d_run(p, 1, &f, stdout, stderr);
	a = aggs_of(p);
	is_str(a,
	       "  sh                                                         "
	       "       0\n",
	       "clear(@c) zeroes the values and keeps the keys");
	free(a);
	d_run(p, 4, &f, stdout, stderr);
	a = aggs_of(p);
	is_str(a, "", "trunc(@c) removes every key");
	free(a);
	d_free(p);

	p = compile("#pragma D option quiet\n"
		    "a { @s[execname] = sum(arg0); @a = avg(arg0); }\n"
		    "b { printa(\"%s=%@d\\n\", @s); printa(\"avg %@d\\n\", "
		    "@a); }");
	f.execname = "x";
	f.arg[0] = (uint64_t)-6;
	d_run(p, 0, &f, stdout, stderr);
	f.arg[0] = 2;
	d_run(p, 0, &f, stdout, stderr);
	{
		size_t ol = 0;
		FILE *o = open_memstream(&out, &ol);

		d_run(p, 1, &f, o, stderr);
		fclose(o);
	}
	/* pfprint_average() divides the uint64_t sum by the count */
	is_str(out, "x=-4\navg 9223372036854775806\n",
	       "printa(fmt): %%@d of sum() is signed; of avg() as DTrace's "
	       "unsigned division");
	free(out);
	d_free(p);
}

static void test_macros(void)
{
	struct d_prog *p = NULL;
	static const char *const argv[] = { "42", "hello" };
	struct d_compile_opts o = { .srcname = "t.d",
				    .macro_argv = argv,
				    .macro_argc = 2,
				    .target = 4321 };
	char msg[256];
	struct d_fire f = mkfire(&p_query);
	char *out, *err;

	is_int(d_compile(&p,
			 "myapp$target:::query-start,pid$1::f:e\n"
			 "/pid != $target/\n"
			 "{ printf(\"%d %s %s %d\", $1, $$1, $$2, $target); }",
			 &o, msg, sizeof(msg)),
	       0, "compile with macros");
	is_str(d_clause_desc(p, 0, 0), "myapp4321:::query-start",
	       "$target in a description");
	is_str(d_clause_desc(p, 0, 1), "pid42::f:e", "$1 in a description");
	is_int(d_clause_ndescs(p, 0), 2, "two comma-separated descriptions");
	d_set_quiet(p, true);
	fire_all(p, &f, &out, &err);
	is_str(out, "42 42 hello 4321", "$1 is an integer, $$1 a string, "
					"$target");
	free(out);
	free(err);
	d_free(p);

	is_str(compile_err_o("BEGIN { trace($3); }", &o),
	       "line 1, column 15: macro argument $3 is not defined",
	       "an undefined macro argument");
	is_str(compile_err("BEGIN { trace($target); }"),
	       "line 1, column 15: macro $target is not defined: use -c or -p",
	       "$target without -c or -p");

	p = NULL;
	o.spec = 2;
	is_int(d_compile(&p, " libc.so.6 ", &o, msg, sizeof(msg)), 0,
	       "-m text is one description");
	is_str(d_clause_desc(p, 0, 0), "libc.so.6", "... trimmed");
	is_int(d_clause_spec(p, 0), 2, "... with its spec");
	o.spec = 4;
	is_int(d_compile(&p, "syscall::read*:entry", &o, msg, sizeof(msg)),
	       0, "a second d_compile() appends");
	is_int(d_nclauses(p), 2, "two clauses");
	is_str(d_clause_desc(p, 1, 0), "syscall::read*:entry",
	       "globs kept in descriptions");
	is_int(d_clause_spec(p, 1), 4, "-n spec");
	d_free(p);
}

static void test_syntax(void)
{
	struct d_prog *p;
	struct d_fire f = mkfire(&p_begin);
	char *out, *err;

	p = compile("#!/usr/sbin/dtrace -s\n"
		    "/* a block\n   comment */\n"
		    "#pragma D option quiet\n"
		    "BEGIN // a line comment\n"
		    "{\n"
		    "\tprintf(\"one \"); /* inline */ printf(\"two\")\n"
		    "}\n"
		    "dtrace:::BEGIN,:::tick-1s { printf(\"|three\"); }\n");
	ok(p != NULL, "#! line, comments, pragma, last ';' optional");
	if (p) {
		fire_all(p, &f, &out, &err);
		is_str(out, "one two|three", "... and the program runs");
		is_str(d_clause_desc(p, 1, 1), ":::tick-1s",
		       "description with empty fields");
		free(out);
		free(err);
		d_free(p);
	}
	is_str(compile_err("BEGIN\n{\n\ttrace(1)\n\ttrace(2);\n}"),
	       "line 4, column 2: syntax error near \"trace\"",
	       "missing ';' between statements");
	is_str(compile_err("BEGIN { x = ; }"),
	       "line 1, column 13: syntax error near \";\"",
	       "syntax error near a token");
	is_str(compile_err("BEGIN { trace(1); "),
	       "line 1, column 19: syntax error near end of input",
	       "unterminated clause");
	is_str(compile_err("BEGIN { trace(y); }"),
	       "line 1, column 15: failed to resolve y: Unknown variable name",
	       "an unknown variable");
	is_str(compile_err("BEGIN { /* never closed"),
	       "line 1, column 9: end-of-file encountered before matching */",
	       "unterminated comment");
	is_str(compile_err("#pragma D option nosuch\nBEGIN"),
	       "line 1, column 1: failed to set option 'nosuch': Invalid "
	       "option name",
	       "an unknown option");
	{
		struct d_prog *dp = compile("BEGIN { system(\"true\"); }");

		ok(dp && d_destructive_refused(dp),
		   "system() without the destructive option: refused");
		d_free(dp);
		dp = compile("#pragma D option destructive\n"
			     "BEGIN { stop(); raise(9); }");
		ok(dp && !d_destructive_refused(dp),
		   "... with #pragma D option destructive: allowed");
		d_free(dp);
	}
	is_str(compile_err("BEGIN { trace(\"a\" + 1); }"),
	       "line 1, column 19: operator + requires an operand of integer "
	       "type",
	       "arithmetic on a string");
	is_str(compile_err("BEGIN { foo(1); }"),
	       "line 1, column 9: failed to resolve foo: Unknown function "
	       "name",
	       "an unknown function");
	is_str(compile_err("BEGIN { x = 1; x = \"s\"; }"),
	       "line 1, column 18: operator = cannot assign a string to x, "
	       "which holds an int",
	       "a variable keeps its type");
}

/* -F: run the clauses listed (those the firing's probe matches). */
static void fire_some(struct d_prog *p, const struct d_fire *f,
		      const unsigned *cl, unsigned n, FILE *o)
{
	for (unsigned i = 0; i < n; i++)
		d_run(p, cl[i], f, o, stderr);
}

static void test_flowindent(void)
{
	static const struct d_probe fe_outer = {
		.id = 20,
		.prov = "py1234",
		.mod = "libpython",
		.func = "outer",
		.name = "function-entry",
	};
	static const struct d_probe fe_inner = {
		.id = 21,
		.prov = "py1234",
		.mod = "libpython",
		.func = "inner",
		.name = "function-entry",
	};
	static const struct d_probe fr_inner = {
		.id = 22,
		.prov = "py1234",
		.mod = "libpython",
		.func = "inner",
		.name = "function-return",
	};
	static const struct d_probe fr_outer = {
		.id = 23,
		.prov = "py1234",
		.mod = "libpython",
		.func = "outer",
		.name = "function-return",
	};
	static const struct d_probe line = {
		.id = 24,
		.prov = "py1234",
		.mod = "libpython",
		.func = "inner",
		.name = "line",
	};
	static const struct d_probe gentry = {
		.id = 25,
		.prov = "py1234",
		.mod = "libpython",
		.func = "inner",
		.name = "gentry",
	};
	static const unsigned entry_cl[] = { 0, 1 }, ret_cl[] = { 2, 3 },
			      line_cl[] = { 4 };
	struct d_prog *p;
	struct d_fire f;
	char *out = NULL, msg[200];
	size_t ol = 0;
	FILE *o;

	/* two clauses on entries and on returns: one indent each */
	p = compile("*:::function-entry {}\n"
		    "*:::function-entry { trace(1); }\n"
		    "*:::function-return { trace(2); }\n"
		    "*:::function-return {}\n"
		    "*:::line, *:::gentry {}\n");
	if (!p || d_set_option(p, "flowindent", "", msg, sizeof(msg))) {
		ok(0, "flowindent: compile");
		return;
	}
	o = open_memstream(&out, &ol);
	f = mkfire(&fe_outer);
	fire_some(p, &f, entry_cl, 2, o);
	f = mkfire(&fe_inner);
	fire_some(p, &f, entry_cl, 2, o);
	f = mkfire(&line);
	fire_some(p, &f, line_cl, 1, o);
	f = mkfire(&gentry);
	fire_some(p, &f, line_cl, 1, o);
	f = mkfire(&fr_inner);
	fire_some(p, &f, ret_cl, 2, o);
	f = mkfire(&fr_outer);
	fire_some(p, &f, ret_cl, 2, o);
	fclose(o);
	is_str(out,
	       "CPU FUNCTION                                 \n"
	       "  0  -> outer                                 \n"
	       "  0   | outer:function-entry                          1\n"
	       "  0    -> inner                               \n"
	       "  0     | inner:function-entry                        1\n"
	       "  0     | inner:line                          \n"
	       "  0     | inner:gentry                        \n"
	       "  0     | inner:function-return                       2\n"
	       "  0    <- inner                               \n"
	       "  0   | outer:function-return                         2\n"
	       "  0  <- outer                                 \n",
	       "-F: -> and <- by call depth, one indent per firing, | for "
	       "other probes and other clauses");
	free(out);
	d_free(p);

	/* syscall entries and returns: => and <=, quiet keeps the lines */
	p = compile("syscall::read:entry { printf(\"x\"); }");
	d_set_option(p, "flowindent", "", msg, sizeof(msg));
	d_set_quiet(p, true);
	out = NULL;
	o = open_memstream(&out, &ol);
	f = mkfire(&p_read);
	d_run(p, 0, &f, o, stderr);
	fclose(o);
	is_str(out,
	       "CPU FUNCTION                                 \n"
	       "  0  => read                                  x",
	       "-F: syscall => ; with -q the flow lines stay, the newline goes");
	free(out);
	d_free(p);
}


/* ------------------------------------------------------------------ */
/* User stacks and names (d/stack.c), with a fake process: module "app"
 * maps 0x1000-0x3000, where c, b, a and main are 0x40 bytes each from
 * 0x1000 and nothing names 0x2000 on; "libc.so.6" maps 0x7000-0x8000
 * with getpid at 0x7100; nothing maps the rest. */

static const struct {
	const char *mod, *sym;
	uint64_t lo, hi;
	unsigned line;
} fake_syms[] = {
	{ "app", "c", 0x1000, 0x1040, 10 },
	{ "app", "b", 0x1040, 0x1080, 20 },
	{ "app", "a", 0x1080, 0x10c0, 30 },
	{ "app", "main", 0x10c0, 0x1100, 40 },
	{ "app", NULL, 0x1100, 0x3000, 0 },
	{ "libc.so.6", "getpid", 0x7100, 0x7120, 0 },
	{ "libc.so.6", NULL, 0x7000, 0x8000, 0 },
};

static const uint64_t fake_pcs[] = { 0x1011, 0x104c, 0x108c, 0x10ea,
				     0x2005, 0x9000 };
static unsigned fake_depth = 6; /* frames the fake stack has */

static unsigned fake_ustack(void *ctx, uint64_t *pcs, unsigned max)
{
	unsigned n = fake_depth < max ? fake_depth : max;

	(void)ctx;
	memcpy(pcs, fake_pcs, n * sizeof(*pcs));
	return n;
}

static bool fake_usym(void *ctx, pid_t pid, uint64_t pc, unsigned flags,
		      struct d_usym *s)
{
	uint64_t at = (flags & D_USYM_RET) ? pc - 1 : pc;

	(void)ctx;
	(void)pid;
	memset(s, 0, sizeof(*s));
	if (flags & D_USYM_KERNEL) {
		if (pc != 0xffffffff81000010ULL)
			return false;
		s->mod = "vmlinux";
		s->sym = "schedule";
		s->off = 0x10;
		return true;
	}
	for (size_t i = 0; i < sizeof(fake_syms) / sizeof(fake_syms[0]); i++)
		if (at >= fake_syms[i].lo && at < fake_syms[i].hi) {
			s->mod = fake_syms[i].mod;
			s->sym = fake_syms[i].sym;
			s->off = pc - fake_syms[i].lo;
			if ((flags & D_USYM_LINE) && fake_syms[i].line) {
				s->file = "app.c";
				s->line = fake_syms[i].line +
					  (unsigned)(at - fake_syms[i].lo) / 16;
			}
			return true;
		}
	return false;
}

static void u_is(const char *src, const char *want, const char *name)
{
	struct d_prog *p = compile(src);
	struct d_fire f = mkfire(&p_query);
	char *out = NULL, *err = NULL;

	if (!p) {
		ok(0, "%s", name);
		return;
	}
	f.ustack = fake_ustack;
	f.usym = fake_usym;
	f.arg[0] = 0x1040;
	f.arg[1] = 0x7100;
	fire_all(p, &f, &out, &err);
	is_str(out, want, "%s", name);
	if (err && *err)
		diag("stderr: %s", err);
	free(out);
	free(err);
	d_free(p);
}

static void test_ustack(void)
{
	struct d_prog *p;
	struct d_fire f;
	char *out = NULL, *err = NULL, *aggs;
	static const char stack6[] =
		"\n"
		"              app`c+0x11\n"
		"              app`b+0xc\n"
		"              app`a+0xc\n"
		"              app`main+0x2a\n"
		"              app`0x2005\n"
		"              0x9000\n";

	u_is("#pragma D option quiet\na { ustack(); }", stack6,
	     "ustack(): a frame per line after 14 spaces: module`func+0xoff, "
	     "module`0xaddr without a symbol, 0xaddr outside every module");
	u_is("a { ustack(2); }",
	     "CPU     ID                    FUNCTION:NAME\n"
	     "  0  70143            run_query:query-start \n"
	     "              app`c+0x11\n"
	     "              app`b+0xc\n\n",
	     "ustack(2): two frames; a statement that records, as trace()");
	u_is("#pragma D option quiet\n#pragma D option stackindent=2\n"
	     "#pragma D option ustackframes=1\na { trace(ustack()); }",
	     "\n  app`c+0x11\n",
	     "-x stackindent, -x ustackframes");
	u_is("#pragma D option quiet\na { ufunc(arg0); usym(arg0 + 5); "
	     "umod(arg0); uaddr(arg0); uaddr(arg0 + 5); uaddr(0x2005); "
	     "umod(0x9000); ufunc(arg1); }",
	     "  app`b                                             "
	     "  app`b                                             "
	     "  app                                               "
	     "  app`b                                             "
	     "  app`b+0x5                                         "
	     "  app`0x2005                                        "
	     "  0x9000                                            "
	     "  libc.so.6`getpid                                  ",
	     "ufunc usym umod uaddr: \"  %-50s\"; no +0x0 at a function's "
	     "start");
	u_is("#pragma D option quiet\na { printf(\"%A|%A|%a|%a|%s|%d\", "
	     "arg0 + 1, 0x9000, 0xffffffff81000010, 0x1000, "
	     "ufunc(ucaller), ucaller); }",
	     "app`b+0x1|0x9000|vmlinux`schedule+0x10|0x1000|app`b|4172",
	     "%A of a user address, %a of a kernel one, ufunc(ucaller), "
	     "ucaller the caller's return address");
	u_is("#pragma D option quiet\na { printf(\"%k|%-4k|\", ustack(2), "
	     "ustack(1)); }",
	     "\napp`c+0x11\napp`b+0xc\n|\n    app`c+0x11\n|",
	     "%k: a stack, indented by a left-aligned width");
	u_is("#pragma D option quiet\n#pragma D option srcline\n"
	     "a { ustack(2); uaddr(arg0 + 0x11); }",
	     "\n"
	     "              app`c+0x11 [app.c:11]\n"
	     "              app`b+0xc [app.c:20]\n"
	     "  app`b+0x11 [app.c:21]                             ",
	     "-x srcline: the line of the call in a caller's frame");
	u_is("#pragma D option quiet\n#pragma D option strsize=8\n"
	     "a { s = ustack(); trace(s); }",
	     stack6, "strsize cuts no stack, also through a variable");

	/* what the consumer must capture: the stack only for ustack() and
	 * ucaller */
	p = compile("a { ustack(); } b { ufunc(arg0); } c { trace(ucaller); }");
	if (p) {
		ok(d_clause_needs(p, 0) & D_NEED_USTACK, "needs: ustack()");
		ok(!(d_clause_needs(p, 1) & D_NEED_USTACK) &&
			   (d_clause_needs(p, 1) & 1),
		   "needs: ufunc(arg0) wants arg0, no stack");
		ok(d_clause_needs(p, 2) & D_NEED_USTACK, "needs: ucaller");
		d_free(p);
	}

	/* @[ustack()] = count(): a key per distinct stack, printed as one */
	p = compile("a { @[ustack(2)] = count(); }");
	f = mkfire(&p_query);
	f.ustack = fake_ustack;
	f.usym = fake_usym;
	if (p) {
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
		fake_depth = 1;
		fire_all(p, &f, &out, &err);
		free(out);
		free(err);
		fake_depth = 6;
		aggs = aggs_of(p);
		is_str(aggs,
		       "\n              app`c+0x11\n                1\n"
		       "\n              app`c+0x11\n              app`b+0xc\n"
		       "                2\n",
		       "@[ustack()] = count(): exact counts per stack, "
		       "each printed after an empty line");
		free(aggs);
		d_free(p);
	}

	/* a firing without stacks or names (BEGIN, END): empty, numbers */
	out_is("#pragma D option quiet\nBEGIN { ustack(); ufunc(0x1040); }",
	       &p_begin,
	       "\n  0x1040                                            ",
	       "no consumer callbacks: an empty stack, addresses as numbers");

	is_str(compile_err("a { ustack(arg0); }"),
	       "line 1, column 12: ustack( ) argument #1 must be a positive "
	       "integer constant (at most 1000)",
	       "ustack(n): n is a constant");
}


/* copyin(), pointers into its copies, tracemem() (mem.c) */
static void test_copyin(void)
{
	static const unsigned char hit[8] = { 0xfe, 0xff, 0xff, 0xff,
					      'h', 'i', 't', 0 };
	struct d_prog *p;
	struct d_fire f = mkfire(&p_query);
	char *out = NULL, *err = NULL;
	uint32_t sz[D_MAXARGS];

	q_is("a { printf(\"%s|%d|%x|%d\", stringof(copyin(0x5000, 4)), "
	     "*(char *)(copyin(0x5000, 2) + 1), "
	     "*((uint16_t *)copyin(0x5000, 4) + 1), "
	     "*(1 ? (char *)copyin(0x5000, 1) : (char *)copyin(0x5001, 1))); }",
	     "from|114|6d6f|102",
	     "copyin(): stringof, a char, uint16_t * scaling, ?: of pointers");
	q_is("a { this->p = copyin(0x5005, 6); printf(\"[%s]\", "
	     "stringof(this->p)); }",
	     "[copyin]", "stringof() of a copy kept in this->, no NUL in it");

	/* the kernel's copy at the hit wins over reading the process */
	p = compile("#pragma D option quiet\n"
		    "a { printf(\"%d %s\", *(int *)copyin(arg0, 4), "
		    "stringof((char *)copyin(arg0, 8) + 4)); "
		    "y = copyin(arg0 + 4, 4); }\n"
		    "a / *(int *)copyin(arg2, 8) / { x = copyin(arg0, 2); }");
	ok(p && d_clause_memargs(p, 0, sz) == 0x1 && sz[0] == 8 &&
		   sz[2] == 0,
	   "memargs: the largest copyin(arg0, n); arg0 + 4 is no argument");
	ok(p && d_clause_memargs(p, 1, sz) == 0x5 && sz[0] == 2 &&
		   sz[2] == 8,
	   "memargs: the predicate's and the statements' copies");
	f.arg[0] = 0x9999;
	f.arg[2] = 0x5000;
	f.mem[0] = hit;
	f.memlen[0] = sizeof(hit);
	if (p)
		fire_all(p, &f, &out, &err);
	is_str(err, "dtrace: error on enabled probe ID 1 (ID 70143: "
	       "myapp1234:app:run_query:query-start): invalid address "
	       "(0x999d) in action #3\n",
	       "... copyin(arg0 + 4, n) reads the process (here: faults)");
	f.arg[0] = 0x5000;
	free(out);
	free(err);
	if (p)
		fire_all(p, &f, &out, &err);
	is_str(out, "-2 hit", "copyin(argN, n) reads the copy made at the hit");
	d_free(p);
	free(out);
	free(err);
	out = err = NULL;

	/* tracemem(): DTrace's raw-bytes layout */
	q_is("a { tracemem(copyin(0x5000, 12), 12); }",
	     "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	     "  0123456789abcdef\n"
	     "         0: 66 72 6f 6d 20 63 6f 70 79 69 6e 00"
	     "              from copyin.\n",
	     "tracemem()");

	/* faults: the process's address, past the copy, scratch space */
	p = compile("a { trace(*(int *)copyin(0x10, 4)); }\n"
		    "a { trace(*(int *)(copyin(0x5000, 4) + 1)); }\n"
		    "a { trace(*(int *)arg0); }\n"
		    "a { x = copyin(0x5000, 70000); }");
	f = mkfire(&p_query);
	f.arg[0] = 0x5000;
	if (p)
		fire_all(p, &f, &out, &err);
	ok(err && strstr(err, "invalid address (0x10) in action #1") &&
		   strstr(err, "invalid address (0x5000) in action #1") &&
		   strstr(err, "out of scratch space in action #1") &&
		   out && !*out,
	   "copyin() faults: %s", err ? err : "(none)");
	free(out);
	free(err);
	d_free(p);

	is_str(compile_err("a { trace(*arg0); }"),
	       "line 1, column 11: operator * requires an operand of "
	       "pointer type: cast copyin( )'s result, as *(int *)copyin(arg0, "
	       "4)",
	       "* of an integer");
	is_str(compile_err("a { tracemem(copyin(0, 4), arg0); }"),
	       "line 1, column 28: tracemem( ) argument #2 must be a "
	       "non-zero positive integer constant of at most 65536",
	       "tracemem() of a variable size");
	is_str(compile_err("a { trace((void)1); }"),
	       "line 1, column 12: cannot cast to void: it has no value",
	       "a cast to void");
}

/* ------------------------------------------------------------------ */
/* The traced programs' types (d_compile_opts' ctype), as a fake
 * command answers: what d/ makes of a struct d_ctype. */

static const struct d_ctype ct_i32 = {.kind = D_CT_INT, .size = 4, .sg = true};
static const struct d_ctype ct_u16 = {.kind = D_CT_INT, .size = 2};
static const struct d_ctype ct_u8 = {.kind = D_CT_INT, .size = 1};
static const struct d_ctype ct_dbl = {.kind = D_CT_OTHER, .size = 8,
				      .what = "a floating-point type"};
static const struct d_ctype ct_row = {.kind = D_CT_ARRAY, .size = 8,
				      .ref = &ct_i32, .nelem = 2};
static const struct d_ctype ct_grid = {.kind = D_CT_ARRAY, .size = 16,
				       .ref = &ct_row, .nelem = 2};
static const struct d_ctype ct_tag = {.kind = D_CT_ARRAY, .size = 4,
				      .ref = &ct_u8, .nelem = 4};
static const struct d_cmember ct_inner_m[] = {
	{.name = "a", .type = &ct_u16, .off = 0},
	{.name = "b", .type = &ct_u8, .off = 2},
};
static const struct d_ctype ct_inner = {.kind = D_CT_STRUCT,
					.name = "inner",
					.obj = "a.out",
					.size = 4,
					.m = ct_inner_m,
					.nm = 2};
static const struct d_cmember ct_anon_m[] = {
	{.name = "x", .type = &ct_i32, .off = 0},
	{.name = "y", .type = &ct_u16, .off = 0},
};
static const struct d_ctype ct_anon = {.kind = D_CT_UNION,
				       .obj = "a.out",
				       .size = 4,
				       .m = ct_anon_m,
				       .nm = 2};
static const struct d_ctype ct_outer;
static const struct d_ctype ct_outer_p = {.kind = D_CT_PTR, .size = 8,
					  .ref = &ct_outer};
/* laid over "from copyin\0" (fake_copyin()): id "from", in.a " c",
 * in.b 'o', x and tag "yin\0"; f bits 28-39 (across the first int:
 * 0x206), g bits 81-83 of 'n' (0x6e: 111, -1 signed) */
static const struct d_cmember ct_outer_m[] = {
	{.name = "id", .type = &ct_i32, .off = 0},
	{.name = "in", .type = &ct_inner, .off = 4},
	{.name = NULL, .type = &ct_anon, .off = 8},
	{.name = "f", .type = &ct_i32, .off = 3, .bitoff = 28, .bits = 12},
	{.name = "g", .type = &ct_i32, .off = 10, .bitoff = 81, .bits = 3},
	{.name = "next", .type = &ct_outer_p, .off = 16},
	{.name = "d", .type = &ct_dbl, .off = 24},
	{.name = "grid", .type = &ct_grid, .off = 32},
	{.name = "tag", .type = &ct_tag, .off = 8}, /* over x */
};
static const struct d_ctype ct_outer = {.kind = D_CT_STRUCT,
					.name = "outer",
					.obj = "a.out",
					.size = 56,
					.m = ct_outer_m,
					.nm = 9};
static const struct d_cenum ct_color_e[] = {{"COLOR_RED", 5},
					    {"COLOR_BLUE", -2}};
static const struct d_ctype ct_color = {.kind = D_CT_ENUM,
					.name = "color",
					.obj = "a.out",
					.size = 4,
					.sg = true,
					.e = ct_color_e,
					.ne = 2};

static unsigned ct_calls;

static int fake_ctype(void *ctx, const char *obj, int kind, const char *name,
		      const struct d_ctype **t, char *msg, size_t msglen)
{
	(void)ctx;
	ct_calls++;
	if (obj && strcmp(obj, "a.out") != 0) {
		snprintf(msg, msglen, "no object named %s", obj);
		return -2;
	}
	if (strcmp(name, "clash") == 0) {
		snprintf(msg, msglen, "clash is declared differently in a.out "
				      "and libx.so");
		return -1;
	}
	if ((kind == D_CT_STRUCT && strcmp(name, "outer") == 0) ||
	    (kind == D_CT_TYPEDEF && strcmp(name, "outer_t") == 0))
		*t = &ct_outer;
	else if (kind == D_CT_TYPEDEF && strcmp(name, "outer_p") == 0)
		*t = &ct_outer_p;
	else if (kind == D_CT_TYPEDEF && strcmp(name, "u16_t") == 0)
		*t = &ct_u16;
	else if ((kind == D_CT_ENUM && strcmp(name, "color") == 0) ||
		 (kind == D_CT_ENUMERATOR && strncmp(name, "COLOR_", 6) == 0))
		*t = &ct_color;
	else {
		snprintf(msg, msglen, "the traced program has no debug "
				      "information");
		return 0;
	}
	return 1;
}

static void test_ctypes(void)
{
	struct d_compile_opts o = {.ctype = fake_ctype};
	struct d_prog *p = NULL;
	struct d_fire f = mkfire(&p_query);
	char msg[512], *out = NULL, *err = NULL;
	const char *src =
		"#pragma D option quiet\n"
		"a {\n"
		"  this->o = (struct outer *)copyin(arg0, sizeof (outer_t));\n"
		"  this->q = (outer_p)this->o;\n"
		"  printf(\"%x %x %c %x %d %d %d\\n\", this->o->id,\n"
		"    this->o->in.a, this->o->in.b, this->q->x, this->o->f,\n"
		"    this->o->g, this->o->y == 0x6979);\n"
		"  printf(\"%s %d %d\\n\", stringof(this->o->tag),\n"
		"    (uintptr_t)(this->o + 1) - (uintptr_t)this->o,\n"
		"    this->o->next == 0);\n"
		"  printf(\"%d %d %d %d %d %d\\n\", sizeof (struct outer),\n"
		"    offsetof(struct a.out`outer, d), sizeof (a.out`outer_t),\n"
		"    COLOR_RED, a.out`COLOR_BLUE, (u16_t)-1);\n"
		"  printf(\"%d %d\\n\", sizeof (enum color), (enum color)-1);\n"
		"}\n";

	ct_calls = 0;
	if (d_compile(&p, src, &o, msg, sizeof(msg)) != 0) {
		diag("compile failed: %s", msg);
		ok(0, "a program's types through the ctype callback");
	} else {
		f.arg[0] = USTR_ADDR;
		fire_all(p, &f, &out, &err);
		is_str(out,
		       "6d6f7266 6320 o 6e6979 518 -1 1\n"
		       "yin 56 1\n"
		       "56 24 56 5 -2 65535\n"
		       "4 -1\n",
		       "a program's struct through the ctype callback: "
		       "members, nested, anonymous union, bit-fields across "
		       "a unit and signed, typedefs (of a pointer too), "
		       "scoped names, enums and enumerators");
		if (err && *err)
			diag("stderr: %s", err);
		/* outer_t, outer, outer_p, a.out`outer, a.out`outer_t,
		 * COLOR_RED, a.out`COLOR_BLUE, u16_t, color: struct outer
		 * and (enum color) again are the program's answers kept */
		is_int(ct_calls, 9, "each name asked of the command once");
	}
	free(out);
	free(err);
	d_free(p);

	o.errtags = true;
	is_str(compile_err_o("a { this->o = (struct outer *)copyin(arg0, "
			     "56); trace(this->o->d); }",
			     &o),
	       "[D_IDENT_UNSUPP] line 1, column 62: member d of struct outer "
	       "(a.out) is a floating-point type: D cannot read it",
	       "a member D cannot read: refused where read");
	is_str(compile_err_o("a { this->o = (struct outer *)copyin(arg0, "
			     "56); trace(this->o->grid); }",
			     &o),
	       "[D_IDENT_UNSUPP] line 1, column 62: member grid of struct "
	       "outer (a.out) is an array of arrays: D cannot read it",
	       "an array of arrays: refused where read");
	is_str(compile_err_o("BEGIN { trace(sizeof (struct clash)); }", &o),
	       "[D_TYPE_AMBIG] line 1, column 30: clash is declared "
	       "differently in a.out and libx.so",
	       "the command's ambiguity: D_TYPE_AMBIG with its message");
	is_str(compile_err_o("BEGIN { trace(sizeof (struct libx.so`outer)); }",
			     &o),
	       "[D_TYPE_SCOPE] line 1, column 30: no object named libx.so",
	       "an object the command does not know: D_TYPE_SCOPE");
	is_str(compile_err_o("BEGIN { trace(sizeof (struct a.out`nope)); }",
			     &o),
	       "[D_TYPE_ERR] line 1, column 30: struct a.out`nope: the "
	       "traced program has no debug information",
	       "a scoped struct the object lacks: D_TYPE_ERR with the "
	       "command's note");
	is_str(compile_err_o("BEGIN { trace(sizeof (struct nope)); }", &o),
	       "[D_SIZEOF_TYPE] line 1, column 23: struct nope is "
	       "incomplete: it is declared but its members are not; the "
	       "traced program has no debug information",
	       "an unscoped struct found nowhere: today's error, with the "
	       "command's note");
	is_str(compile_err_o("struct outer { char c; };\n"
			     "BEGIN { trace(sizeof (struct outer)); exit(0); "
			     "}",
			     &o),
	       "(compiled)", "the script's own struct comes first");
	is_str(compile_err_o("BEGIN { COLOR_RED = 1; trace(COLOR_RED); }", &o),
	       "(compiled)",
	       "a variable the script assigns first is the script's");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_default_output();
	test_printf_conv();
	test_printf_errors();
	test_predicates();
	test_variables();
	test_builtins();
	test_runtime_errors();
	test_error_probe();
	test_run_fault();
	test_kspec();
	test_kspec_text();
	test_kspec_own();
	test_spec_close_at();
	test_kspec_random();
	test_kspec_lost();
	test_exit();
	test_aggregations();
	test_printa_clear_trunc();
	test_macros();
	test_syntax();
	test_flowindent();
	test_ustack();
	test_copyin();
	test_ctypes();
	return tap_done();
}
