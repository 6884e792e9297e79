// SPDX-License-Identifier: MIT
/*
 * t-aggfmt.c - TAP tests for the aggregation layouts of -x agghist,
 * -x aggpack and -x aggzoom (dtrace-G/d/aggfmt.c), through the D
 * language's interface (dlang.h): a program fills its aggregations in
 * one BEGIN firing, and what printa() and d_print_aggs() print is
 * compared byte for byte with the text worked out by hand from
 * libdtrace's rules (dt_consume.c, dt_aggregate.c):
 *  - aggpack: quantize() over the range of every key (one empty bucket
 *    either side, none below zero's), lquantize() over all its buckets,
 *    the header's dashes and min/max widths, the 8 levels in UTF-8 and
 *    in ASCII (TERM=dumb), negative counts ('v', 'V'), string keys
 *    right-aligned in 16 columns, llquantize() unchanged;
 *  - agghist: count(), sum(), avg() bars over the total of every key,
 *    "key"/"value" headers, negatives left of the line, min() and
 *    quantize() unchanged, normalize() dividing the number only;
 *  - aggzoom: the largest bar 38 of 40, in quantize() and agghist;
 *  - encoding=utf8 (bars in eighths of a column), encoding=ascii;
 *  - the options: #pragma D option, d_set_option(), setopt() at run
 *    time, bad values refused; JSON unchanged.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/dlang.h"
#include "tap.h"

static const struct d_probe p_begin = {
	.id = 1,
	.prov = "dtrace",
	.mod = "",
	.func = "",
	.name = "BEGIN",
};

/*
 * Compile src (options first), fire BEGIN once, and return what it
 * printed followed by what d_print_aggs() prints at the end.
 */
static char *run(const char *opts, const char *src)
{
	struct d_prog *p = NULL;
	struct d_fire f;
	char msg[512], *s = NULL;
	size_t l = 0;
	FILE *o;

	if (d_compile(&p, src, NULL, msg, sizeof(msg)) != 0) {
		diag("compile failed: %s", msg);
		d_free(p);
		return strdup("(did not compile)");
	}
	for (const char *q = opts; q && *q; q += strlen(q) + 1) {
		char name[64], *eq;

		snprintf(name, sizeof(name), "%s", q);
		eq = strchr(name, '=');
		if (eq)
			*eq++ = '\0';
		if (d_set_option(p, name, eq, msg, sizeof(msg)) != 0)
			diag("option %s: %s", q, msg);
	}
	memset(&f, 0, sizeof(f));
	f.probe = &p_begin;
	f.epid = 1;
	f.execname = "t";
	o = open_memstream(&s, &l);
	for (unsigned c = 0; c < d_nclauses(p); c++)
		d_run(p, c, &f, o, stderr);
	d_print_aggs(p, o);
	fclose(o);
	d_free(p);
	return s;
}

#define HDR "------------- Distribution -------------"

static void test_aggpack(void)
{
	char *s;

	/* key 1: 1 in bucket 1, 5 in bucket 2; key 2: -1, 0, 64 (2) */
	s = run("aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @q[1] = quantize(1); @q[1] = quantize(2);"
		" @q[1] = quantize(3, 4);"
		" @q[2] = quantize(0); @q[2] = quantize(-1);"
		" @q[2] = quantize(100, 2); }");
	is_str(s,
	       "\n"
	       "\n      key  min .-----------. max  | count\n"
	       "        1   -2 :   \u2582\u2587      : 128  | 6\n"
	       "        2   -2 : \u2583\u2583      \u2585 : 128  | 4\n",
	       "aggpack quantize(): one range for every key, 8 levels of "
	       "U+2581.., 'min' as wide as -2's 4 columns");
	free(s);

	setenv("TERM", "dumb", 1);
	s = run("aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @q[1] = quantize(1); @q[1] = quantize(2);"
		" @q[1] = quantize(3, 4);"
		" @q[2] = quantize(0); @q[2] = quantize(-1);"
		" @q[2] = quantize(100, 2); }");
	is_str(s,
	       "\n"
	       "\n      key  min .-----------. max  | count\n"
	       "        1   -2 :   _X      : 128  | 6\n"
	       "        2   -2 : xx      x : 128  | 4\n",
	       "aggpack in ASCII where TERM=dumb: \"__xxxxXX\"");
	free(s);

	/* zero's bucket lowest: the range starts there; negative counts */
	s = run("aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @ = quantize(0, 3); @ = quantize(2, -1);"
		" @ = quantize(20000, 2); }");
	is_str(s,
	       "\n"
	       "\n  min .-----------------. max   | count\n"
	       "    0 :x v            x : 32768 | 4\n",
	       "aggpack quantize(): no key, zero's bucket first, a "
	       "negative count as 'v', 32768 widens 'max'");
	free(s);

	/* lquantize(): every bucket, < base .. >= limit; string keys */
	s = run("aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @l[\"a\"] = lquantize(5, 0, 10, 2);"
		" @l[\"a\"] = lquantize(7, 0, 10, 2, 3);"
		" @l[\"bb\"] = lquantize(-1, 0, 10, 2);"
		" @l[\"bb\"] = lquantize(10, 0, 10, 2, 7); }");
	is_str(s,
	       "\n"
	       "\n              key     min .-------. max      | count\n"
	       "                a     < 0 :   xx  : >= 10    | 4\n"
	       "               bb     < 0 :_     X: >= 10    | 8\n",
	       "aggpack lquantize(): all levels + 2 buckets, min 7 and max "
	       "8 wide, string keys right-aligned in 16");
	free(s);

	/* llquantize(), count(): as without aggpack */
	s = run("aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @ll = llquantize(150, 10, 0, 3, 10);"
		" @c[\"k\"] = count(); }");
	is_str(s,
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "              90 |                                         "
	       "0        \n"
	       "             100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ "
	       "1        \n"
	       "             200 |                                         "
	       "0        \n"
	       "\n"
	       "  k                                                        "
	       "         1\n",
	       "aggpack leaves llquantize() and count() as they are");
	free(s);

	/* aggzoom: the largest is 0.95 of the total: 5 -> 'X' */
	s = run("aggpack\0aggzoom\0",
		"#pragma D option quiet\n"
		"BEGIN { @q = quantize(1, 1); @q = quantize(2, 5); }");
	is_str(s,
	       "\n"
	       "\n  min .----. max  | count\n"
	       "    0 : _X : 4    | 6\n",
	       "aggpack with aggzoom: the largest bucket the top level");
	free(s);
	unsetenv("TERM");
}

static void test_agghist(void)
{
	char *s;

	s = run("agghist\0",
		"#pragma D option quiet\n"
		"BEGIN { @c[\"x\"] = count(); @c[\"y\"] = count();"
		" @c[\"y\"] = count(); @c[\"y\"] = count();"
		" @s[1] = sum(-3); @s[2] = sum(1);"
		" @a = avg(10); @a = avg(20); }");
	is_str(s,
	       "\n"
	       "\n              key  " HDR " count    \n"
	       "                x |@@@@@@@@@@                               "
	       "1        \n"
	       "                y |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           "
	       "3        \n"
	       "\n      key  " HDR " count    \n"
	       "        1      @@@@@@@@@@@@@@@|                     "
	       "-3       \n"
	       "        2                     |@@@@@                "
	       "1        \n"
	       "\n           value  " HDR " count    \n"
	       " |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 15       \n",
	       "agghist: count() by string key, sum() with a negative "
	       "(half bars), avg() without keys");
	free(s);

	/* stddev 1 (of 2, 4) and 3 (of 1, 7): a quarter and three */
	s = run("agghist\0",
		"#pragma D option quiet\n"
		"BEGIN { @d[\"a\"] = stddev(2); @d[\"a\"] = stddev(4);"
		" @d[\"b\"] = stddev(1); @d[\"b\"] = stddev(7); }");
	is_str(s,
	       "\n"
	       "\n              key  " HDR " count    \n"
	       "                a |@@@@@@@@@@                               "
	       "1        \n"
	       "                b |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           "
	       "3        \n",
	       "agghist: stddev() bars of the standard deviations");
	free(s);

	s = run("agghist\0",
		"#pragma D option quiet\n"
		"BEGIN { @m[\"x\"] = min(4); @q = quantize(1); }");
	is_str(s,
	       "\n"
	       "  x                                                        "
	       "         4\n"
	       "\n           value  " HDR " count    \n"
	       "               0 |                                         "
	       "0        \n"
	       "               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ "
	       "1        \n"
	       "               2 |                                         "
	       "0        \n"
	       "\n",
	       "agghist leaves min() and quantize() as they are "
	       "(libdtrace totals count, sum, avg, stddev only)");
	free(s);

	s = run("agghist\0aggzoom\0",
		"#pragma D option quiet\n"
		"BEGIN { @c[1] = sum(100); @c[2] = sum(50);"
		" normalize(@c, 10); }");
	is_str(s,
	       "\n"
	       "\n      key  " HDR " count    \n"
	       "        2 |@@@@@@@@@@@@@@@@@@@                      5        \n"
	       "        1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   10       \n",
	       "agghist with aggzoom: the largest 38 of 40; normalize() "
	       "divides the number, not the bar");
	free(s);

	/* printa(@c): the header after printa()'s own newline; printa()
	 * with a format and JSON output do not change */
	s = run("agghist\0",
		"#pragma D option quiet\n"
		"BEGIN { @c[\"x\"] = count(); printa(@c);"
		" printa(\"%s %@d\\n\", @c); }");
	is_str(s,
	       "\n"
	       "\n              key  " HDR " count    \n"
	       "                x |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ "
	       "1        \n"
	       "x 1\n"
	       "\n",
	       "agghist in printa(@c); printa() with a format as usual");
	free(s);

	s = run("agghist\0aggpack\0",
		"#pragma D option quiet\n"
		"#pragma D option oformat=json\n"
		"BEGIN { @c[\"x\"] = count(); @q = quantize(1); }");
	is_str(s,
	       "{\"aggregation\":\"c\",\"keys\":[\"x\"],\"value\":1}\n"
	       "{\"aggregation\":\"q\",\"keys\":[],\"value\":{\"buckets\":"
	       "[{\"value\":1,\"count\":1}]}}\n",
	       "JSON output is the same under agghist and aggpack");
	free(s);
}

static void test_aggzoom(void)
{
	char *s;

	s = run("aggzoom\0",
		"#pragma D option quiet\n"
		"BEGIN { @l = lquantize(1, 0, 4, 1, 2);"
		" @l = lquantize(2, 0, 4, 1, 4); }");
	is_str(s,
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "               0 |                                         "
	       "0        \n"
	       "               1 |@@@@@@@@@@@@@@@@@@@                      "
	       "2        \n"
	       "               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   "
	       "4        \n"
	       "               3 |                                         "
	       "0        \n"
	       "\n",
	       "aggzoom lquantize(): 4 of 6 is 38 '@', 2 is 19");
	free(s);

	/* setopt() at run time: on for the first printa(), off after */
	s = run(NULL,
		"#pragma D option quiet\n"
		"BEGIN { @q = quantize(1, 1); @q = quantize(2, 3);"
		" setopt(\"aggzoom\"); printa(@q);"
		" setopt(\"aggzoom\", \"false\"); setopt(\"aggpack\", \"on\");"
		" printa(@q); setopt(\"aggpack\", \"\"); printa(@q); }");
	is_str(s,
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "               0 |                                         "
	       "0        \n"
	       "               1 |@@@@@@@@@@@@@                            "
	       "1        \n"
	       "               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   "
	       "3        \n"
	       "               4 |                                         "
	       "0        \n"
	       "\n"
	       "\n"
	       "\n  min .----. max  | count\n"
	       "    0 : \u2583\u2586 : 4    | 4\n"
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "               0 |                                         "
	       "0        \n"
	       "               1 |@@@@@@@@@@                               "
	       "1        \n"
	       "               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           "
	       "3        \n"
	       "               4 |                                         "
	       "0        \n"
	       "\n"
	       "\n",
	       "setopt() turns aggzoom and aggpack on and off while tracing");
	free(s);
}

static void test_encoding(void)
{
	char *s;

	/* 1 of 3: 13 1/3 columns, 2 of 3: 26 2/3 (truncated eighths) */
	s = run("encoding=utf8\0",
		"#pragma D option quiet\n"
		"BEGIN { @q = quantize(1); @q = quantize(2, 2); }");
	is_str(s,
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "               0 |                                         "
	       "0        \n"
	       "               1 |\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
	       "\u2588\u2588\u2588\u2588\u2588\u2588\u258e"
	       "                           1        \n"
	       "               2 |\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
	       "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
	       "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u258b"
	       "              2        \n"
	       "               4 |                                         "
	       "0        \n"
	       "\n",
	       "encoding=utf8: bars in eighths of a column");
	free(s);

	/* a negative count keeps the '@' bars, whatever the encoding */
	s = run("encoding=utf8\0",
		"#pragma D option quiet\n"
		"BEGIN { @q = quantize(1, -1); }");
	is_str(s,
	       "\n"
	       "\n           value  " HDR " count    \n"
	       "               0                                         | "
	       "0        \n"
	       "               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| "
	       "-1       \n"
	       "               2                                         | "
	       "0        \n"
	       "\n",
	       "encoding=utf8: negative counts as '@' left of the line");
	free(s);

	/* encoding=ascii wins over a TERM that would take UTF-8 */
	setenv("TERM", "xterm", 1);
	s = run("encoding=ascii\0aggpack\0",
		"#pragma D option quiet\n"
		"BEGIN { @q = quantize(1); @q = quantize(2, 2); }");
	is_str(s,
	       "\n"
	       "\n  min .----. max  | count\n"
	       "    0 : xx : 4    | 3\n",
	       "encoding=ascii: aggpack in \"__xxxxXX\" under TERM=xterm");
	free(s);
	unsetenv("TERM");
}

static void test_option_values(void)
{
	struct d_prog *p = NULL;
	char msg[256];

	ok(d_compile(&p, "#pragma D option aggpack=maybe\nBEGIN {}", NULL,
		     msg, sizeof(msg)) != 0 &&
		   strstr(msg, "failed to set option 'aggpack' to 'maybe': "
			       "Invalid value for specified option") != NULL,
	   "#pragma D option aggpack=maybe is refused: %s", msg);
	d_free(p);
	p = NULL;
	if (d_compile(&p, "BEGIN {}", NULL, msg, sizeof(msg)) != 0) {
		ok(0, "compile");
		return;
	}
	ok(d_set_option(p, "agghist", "-1", msg, sizeof(msg)) != 0,
	   "agghist=-1 is refused");
	ok(d_set_option(p, "encoding", "latin1", msg, sizeof(msg)) != 0 &&
		   d_set_option(p, "encoding", NULL, msg, sizeof(msg)) != 0,
	   "encoding=latin1 and a bare encoding are refused");
	ok(d_set_option(p, "aggzoom", "off", msg, sizeof(msg)) == 0 &&
		   d_set_option(p, "aggzoom", "yes", msg, sizeof(msg)) == 0 &&
		   d_set_option(p, "aggpack", "1", msg, sizeof(msg)) == 0,
	   "off, yes and numbers are taken");
	d_free(p);
}

int main(void)
{
	unsetenv("TERM");
	test_aggpack();
	test_agghist();
	test_aggzoom();
	test_encoding();
	test_option_values();
	return tap_done();
}
