// SPDX-License-Identifier: MIT
/*
 * dtrace.c - the dtrace command: option parsing and the modes.
 *
 *	dtrace -h -s provider.d [-o provider.h]		write a header
 *	dtrace -G -s provider.d [-o provider.o] obj.o...	rewrite objects,
 *							write the probe object
 *	dtrace -l [-v] [-n desc] [-P prov] [-m mod] [-f func] [-p pid]
 *		[--object=FILE]				list probes (list.c)
 *	dtrace [-qvZ] -n desc|-s script [-c cmd] [-p pid] [-o file]
 *							trace (consumer/)
 *	dtrace -V					print the version
 *
 * Options follow DTrace so that build systems written for it work
 * unchanged: single-letter options that may be bundled (-Cs file.d) and
 * may come before or after the object files (-G x.o -o out.o),
 * `-x name[=value]` also written `-xnolibs`, and the model flags `-32`
 * and `-64`, which getopt sees as `-3 2` and `-6 4` (that is how DTrace
 * parses them too).  Usage errors exit 2; failures exit 1.
 *
 * -n, -P, -m and -f select probes by description and -p by process;
 * with -l they choose what is listed.  Without -l they (or -s, with or
 * without -c) ask for tracing: the options become a struct dt_trace_opts
 * and the consumer (consumer/consumer.h) runs the D program on the hits.
 *
 * `-x probestyle=inline` makes -h write inline probes (sdk/prov_header.c)
 * instead of the call form; any value but `inline` or `call` is a usage
 * error.
 *
 * Every output file is written to a temporary file and renamed into place
 * (sdk/outfile.c), so a failed run leaves no output behind and never
 * damages an existing file.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/dlang.h"
#include "dtrace.h"
#include "objects/probes.h"
#include "outfile.h"
#include "prov.h"
#include "registry.h"
#include "xalloc.h"

#define EXIT_USAGE 2

static const char *progname = "dtrace";

/* -x probestyle=: how -h writes probe macros (sdk/prov.h) */
static enum prov_probe_style probe_style = PROV_STYLE_CALL;

static void __attribute__((format(printf, 1, 2))) warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: %s [-CV] [-I dir] [-D name[=def]] [-U name] [-x opt[=val]]\n"
		"              [-32 | -64] -h -s script.d [-o header.h]\n"
		"       %s [-Cv] [...] -G -s script.d [-o probes.o] object.o ...\n"
		"       %s -l [-v] [-n desc] [-P provider] [-m [provider:]module]\n"
		"              [-f [[provider:]module:]function] [-p pid] [--object=FILE]\n"
		"       %s [-qZ] [-x opt[=val]] [-o file] [-p pid | -c 'cmd args']\n"
		"              -n 'desc [/pred/] [{actions}]' | -s script.d [arg ...]\n"
		"\n"
		"Build-time options:\n"
		"  -h            write a C header with a macro for every probe of the\n"
		"                providers in the script (default output: script.h in\n"
		"                the current directory)\n"
		"  -G            rewrite the probe calls in the objects into NOPs (in\n"
		"                place) and write an object with the probe tables,\n"
		"                stapsdt notes, semaphores and drti.o to link with\n"
		"                them (default output: script.o in the current\n"
		"                directory)\n"
		"  -s FILE       read provider definitions from FILE\n"
		"  -o FILE       write the output to FILE (- for standard output)\n"
		"  -C            run the C preprocessor over the script first ($CPP,\n"
		"                default %s)\n"
		"  -I DIR        add DIR to the preprocessor's include path\n"
		"  -D NAME[=DEF] define NAME for the preprocessor\n"
		"  -U NAME       undefine NAME for the preprocessor\n"
		"  -x OPT[=VAL]  set a DTrace option; `nolibs` is accepted for\n"
		"                compatibility and changes nothing here\n"
		"  -x probestyle=inline\n"
		"                with -h: probe macros are inline <sys/sdt.h> probes\n"
		"                (a NOP and a stapsdt note, emitted by the compiler,\n"
		"                kept by -flto); -G then reads their notes and\n"
		"                rewrites nothing.  probestyle=call (the default):\n"
		"                calls that -G rewrites into NOPs.  Objects built\n"
		"                with -flto are bitcode: run -G without them, for\n"
		"                the semaphores\n"
		"  -32, -64      data model: only -64 (LP64: x86-64; aarch64 for -h, -G)\n"
		"  -v            with -G, show each probe site before and after\n"
		"\n"
		"Listing probes:\n"
		"  -l            list probes: the dtrace provider's BEGIN, END and ERROR,\n"
		"                then the probes of every running process registered\n"
		"                with dtrace-helperd (provider named with its pid, as in\n"
		"                myapp4242), or those of the --object files\n"
		"  -n DESC       select probes matching DESC, provider:module:function:name;\n"
		"                fewer fields fill from the right (name, function:name,\n"
		"                module:function:name); each field is a glob (*, ?,\n"
		"                [...]) and an empty field matches anything\n"
		"  -P PROVIDER   select the probes of a provider\n"
		"  -m MODULE     select by module: [provider:]module\n"
		"  -f FUNCTION   select by function: [[provider:]module:]function\n"
		"  -p PID        only the user-level probes of process PID\n"
		"  -v            with -l, also print each probe's stability attributes,\n"
		"                argument types and sites (address, and FILE:LINE where\n"
		"                the object has DWARF line information)\n"
		"      --object=FILE\n"
		"                list the probes of FILE, a program, shared library or\n"
		"                object on disk (its DOF, else its stapsdt notes),\n"
		"                instead of those of running processes\n"
		"  -n, -P, -m, -f, -p and --object may be repeated; a probe is listed\n"
		"  when it matches any description given.\n"
		"\n"
		"Tracing (root; kernel uprobes, see dtrace(1) for the D subset):\n"
		"  -n CLAUSE     a probe clause: descriptions, an optional /predicate/\n"
		"                and {actions}; without actions, DTrace's default line\n"
		"  -P, -m, -f    enable the probes of a provider, module or function\n"
		"  -s FILE       run the D program in FILE (arguments after it are $1..;\n"
		"                - for standard input); -n and -s may be repeated,\n"
		"                their clauses run in command-line order\n"
		"  -e            compile the program and exit\n"
		"  -w            allow destructive actions: system(), stop(), raise()\n"
		"  -F            indent entry/return probes' lines by call depth\n"
		"  -c 'CMD ARGS' run CMD, trace it ($target) and stop when it exits\n"
		"  -p PID        trace process PID ($target) until it exits or ^C\n"
		"  -q            quiet: only what the program prints\n"
		"  -Z            allow descriptions that match no probe (yet)\n"
		"  -v            say at the end how many self-> variables are left\n"
		"  -o FILE       append the output to FILE\n"
		"  -x bufsize=SIZE   ring buffer per CPU (default 2m)\n"
		"  -x switchrate=RATE  how often buffers are read (default 10ms)\n"
		"  -x quiet, -x strsize=N  as in DTrace\n"
		"  Probes of -c and -p targets are found in the files they map, with\n"
		"  or without dtrace-helperd; other processes' probes are those in\n"
		"  the helper's registry.  Stop with ^C: END runs and aggregations\n"
		"  are printed.\n"
		"\n"
		"Environment: CPP (preprocessor for -C), LD (linker for -G),\n"
		"DTRACE_DRTI (drti.o for -G, default %s),\n"
		"DTRACE_STATEDIR (dtrace-helperd's state directory, read by -l and\n"
		"tracing;\n"
		"default %s).\n"
		"\n"
		"Other options:\n"
		"  -V, --version print the version and exit\n"
		"      --help    print this help and exit\n"
		"\n"
		"Compile probes out of a program by defining _DTRACE_VERSION as 0, or\n"
		"USDT_DISABLE_PROBES, before including the generated header.\n"
		"\n"
		"Report bugs at the usdt-sdk issue tracker.\n",
		progname, progname, progname, progname, DTRACE_DEFAULT_CPP, DRTI_PATH,
		REG_STATEDIR_DEFAULT);
}

static int __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	return EXIT_USAGE;
}

/*
 * -x options of the command's own: those build systems pass to DTrace,
 * which change nothing here but refusing them would break builds, and
 * ours, probestyle (-h), which -G accepts too, since builds pass the
 * same flags to both.  The D options tracing takes (the D program checks
 * their values) are the D language's list (d_known_option()).
 */
static const char *const known_xopts[] = {
	"nolibs", "lazyload", "linkmode", "linktype", "cpp", "cpppath",
	"droptags", "evaltime", "version", "probestyle",
	NULL,
};

/* -x NAME: the command's own, or one the D language knows (compile.c
 * keeps that list, d_known_option()). */
static bool known_xopt(const char *arg, size_t n)
{
	char name[64];

	for (unsigned i = 0; known_xopts[i]; i++)
		if (strlen(known_xopts[i]) == n &&
		    strncmp(known_xopts[i], arg, n) == 0)
			return true;
	if (n >= sizeof(name))
		return false;
	memcpy(name, arg, n);
	name[n] = '\0';
	return d_known_option(name);
}

static int set_probestyle(const char *val)
{
	if (val && strcmp(val, "call") == 0)
		probe_style = PROV_STYLE_CALL;
	else if (val && strcmp(val, "inline") == 0)
		probe_style = PROV_STYLE_INLINE;
	else
		return usage_error("failed to set -x probestyle: %s%s%s; use probestyle=call or probestyle=inline",
				   val ? "'" : "no value", val ? val : "",
				   val ? "' is not a probe style" : "");
	return 0;
}

/* -x bufsize=SIZE and -x switchrate=RATE (consumer/ parses them). */
static int set_bufsize(struct dtrace_cmd *c, const char *val)
{
	if (!val || dt_parse_size(val, &c->bufsize) < 0)
		return usage_error("failed to set -x bufsize: '%s' is not a size from 4k to 1g",
				   val ? val : "");
	return 0;
}

static int set_switchrate(struct dtrace_cmd *c, const char *val)
{
	if (!val || dt_parse_rate(val, &c->switchrate_ms) < 0)
		return usage_error("failed to set -x switchrate: '%s' is not a rate (10ms, 100hz, 1s)",
				   val ? val : "");
	return 0;
}

static int set_xopt(struct dtrace_cmd *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

	if (known_xopt(arg, n)) {
		PUSH(c->xopts, c->nxopts, arg);
		if (n == 3 && strncmp(arg, "cpp", 3) == 0)
			c->popts.cpp = true;
		if (n == 7 && strncmp(arg, "cpppath", 7) == 0) {
			if (!eq || !eq[1])
				return usage_error("-x cpppath needs a value");
			c->popts.cpp_cmd = eq + 1;
		}
		if (n == 10 && strncmp(arg, "probestyle", 10) == 0)
			return set_probestyle(eq ? eq + 1 : NULL);
		if (n == 5 && strncmp(arg, "quiet", 5) == 0)
			c->quiet = true;
		if (n == 7 && strncmp(arg, "bufsize", 7) == 0)
			return set_bufsize(c, eq ? eq + 1 : NULL);
		if (n == 10 && strncmp(arg, "switchrate", 10) == 0)
			return set_switchrate(c, eq ? eq + 1 : NULL);
		return 0;
	}
	return usage_error("failed to set -x %s: unknown option", arg);
}

static void add_cpp_arg(struct dtrace_cmd *c, char opt, const char *val)
{
	size_t n = strlen(val) + 3;
	char *s = xmalloc(n);

	snprintf(s, n, "-%c%s", opt, val);
	PUSH(c->cpp_argv, c->cpp_argc, s);
}

static int set_mode(struct dtrace_cmd *c, enum dtrace_mode m, char opt)
{
	static const char letters[] = { 0, 'h', 'G', 'V', 'l' };

	if (c->mode != MODE_NONE && c->mode != m)
		return usage_error("only one of -G, -h, -l and -V may be given (-%c after -%c)",
				   opt, letters[c->mode]);
	c->mode = m;
	return 0;
}

static void add_one_desc(struct dtrace_cmd *c, char opt, const char *text,
			 char *owned)
{
	int spec = opt == 'P' ? DT_SPEC_PROVIDER :
		   opt == 'm' ? DT_SPEC_MODULE :
		   opt == 'f' ? DT_SPEC_FUNC :
				DT_SPEC_NAME;
	struct dtrace_desc_arg d = {
		.opt = opt,
		.spec = spec,
		.text = owned ? owned : text,
		.owned = owned,
	};

	PUSH(c->descs, c->ndescs, d);
}

/*
 * -n takes a D program's probe clause, as in DTrace: a comma-separated
 * list of descriptions, then perhaps a /predicate/ and an { action }.
 * For listing, each description counts and the rest is ignored here;
 * a text without separators is taken whole.
 */
static void add_source(struct dtrace_cmd *c, const char *text, const char *name,
		       int spec)
{
	struct dt_source s = {.text = text, .name = name, .spec = spec};

	PUSH(c->srcs, c->nsrcs, s);
}

static void add_desc(struct dtrace_cmd *c, char opt, const char *text)
{
	size_t len = strcspn(text, "/{");
	char *copy, *piece, *save = NULL;
	int n = 0;

	add_source(c, text, NULL,
		   opt == 'P'	? DT_SPEC_PROVIDER
		   : opt == 'm' ? DT_SPEC_MODULE
		   : opt == 'f' ? DT_SPEC_FUNC
				: DT_SPEC_NAME);
	if (opt != 'n' || (!text[len] && !strpbrk(text, ", \t\n"))) {
		add_one_desc(c, opt, text, NULL);
		return;
	}
	copy = xstrndup(text, len);
	for (piece = strtok_r(copy, ",", &save); piece;
	     piece = strtok_r(NULL, ",", &save)) {
		size_t plen;

		piece += strspn(piece, " \t\n");
		plen = strlen(piece);
		while (plen && strchr(" \t\n", piece[plen - 1]))
			plen--;
		if (!plen)
			continue;
		add_one_desc(c, opt, NULL, xstrndup(piece, plen));
		n++;
	}
	free(copy);
	/* Nothing before the clause: keep it whole, for the error message. */
	if (!n)
		add_one_desc(c, opt, text, NULL);
}

static int add_pid(struct dtrace_cmd *c, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT_MAX)
		return usage_error("invalid process ID '%s' for -p", arg);
	PUSH(c->pids, c->npids, (pid_t)v);
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(struct dtrace_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'H' + 256 },
		{ "version", no_argument, NULL, 'V' },
		{ "object", required_argument, NULL, 'O' + 256 },
		{ NULL, 0, NULL, 0 },
	};
	int ch, err;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":3:6:c:CD:ef:FGhI:lm:n:o:p:P:qs:U:vVwx:Z",
				 longopts, NULL)) != -1) {
		switch (ch) {
		case 'O' + 256:
			PUSH(c->objects, c->nobjects, optarg);
			break;
		case 'l':
			err = set_mode(c, MODE_LIST, 'l');
			if (err)
				return err;
			break;
		case 'f':
			/*
			 * libtool appends -fPIC (or -fpic) when dtrace -G runs
			 * as its "compiler"; written in one word it is that
			 * flag, which means nothing to us, not a function.
			 */
			if (strcmp(argv[optind - 1], "-fPIC") == 0 ||
			    strcmp(argv[optind - 1], "-fpic") == 0)
				break;
			/* fall through */
		case 'n':
		case 'P':
		case 'm':
			add_desc(c, (char)ch, optarg);
			break;
		case 'p':
			err = add_pid(c, optarg);
			if (err)
				return err;
			break;
		case 'c':
			PUSH(c->cmds, c->ncmds, optarg);
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'Z':
			c->zero_ok = true;
			break;
		case 'w':
			err = set_xopt(c, "destructive");
			if (err)
				return err;
			break;
		case 'F':
			err = set_xopt(c, "flowindent");
			if (err)
				return err;
			break;
		case 'e':
			c->compile_only = true;
			break;
		case 'H' + 256:
			usage(stdout);
			return EXIT_SUCCESS;
		case '3':
			if (strcmp(optarg, "2") != 0)
				return usage_error("invalid option -3%s", optarg);
			warnx("-32: 32-bit programs are not supported; usdt-sdk targets LP64 (x86-64, and aarch64 for -h and -G)");
			return EXIT_FAILURE;
		case '6':
			if (strcmp(optarg, "4") != 0)
				return usage_error("invalid option -6%s", optarg);
			break;
		case 'C':
			c->popts.cpp = true;
			break;
		case 'D':
		case 'I':
		case 'U':
			add_cpp_arg(c, (char)ch, optarg);
			break;
		case 'G':
			err = set_mode(c, MODE_LINK, 'G');
			if (err)
				return err;
			break;
		case 'h':
			err = set_mode(c, MODE_HEADER, 'h');
			if (err)
				return err;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 's':
			/* several scripts make one program, for tracing;
			 * -h and -G take one (cmd_header, cmd_link) */
			if (!c->script)
				c->script = optarg;
			c->nscripts++;
			add_source(c, NULL, optarg, 0);
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'V':
			err = set_mode(c, MODE_VERSION, 'V');
			if (err)
				return err;
			break;
		case 'x':
			err = set_xopt(c, optarg);
			if (err)
				return err;
			break;
		case ':':
			if (optopt == 'O' + 256)
				return usage_error("option --object requires an argument");
			return usage_error("option -%c requires an argument",
					   optopt);
		default:
			if (optopt)
				return usage_error("invalid option -%c", optopt);
			return usage_error("invalid option '%s'",
					   argv[optind - 1]);
		}
	}
	c->args = argv + optind;
	c->argc = argc - optind;
	c->popts.cpp_argv = c->cpp_argv;
	c->popts.cpp_argc = c->cpp_argc;
	return -1;
}

/* script.d -> script.h, in the current directory as DTrace does. */
static char *default_output(const char *script, const char *ext)
{
	const char *base = strrchr(script, '/');
	const char *dot;
	char *out;
	size_t n;

	base = base ? base + 1 : script;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	out = xmalloc(n + strlen(ext) + 1);
	memcpy(out, base, n);
	strcpy(out + n, ext);
	return out;
}

static int load_script(const struct dtrace_cmd *c, struct prov_file **pf)
{
	struct prov_diag d;
	int err;

	err = prov_parse_file(c->script, &c->popts, pf, &d);
	if (err) {
		prov_diag_print(stderr, c->script, &d);
		return err;
	}
	for (unsigned i = 0; i < (*pf)->warning_cnt; i++)
		fprintf(stderr, "%s: warning: %s: %s\n", progname, c->script,
			(*pf)->warnings[i]);
	return 0;
}

/* -h and -G read one provider file. */
static int one_script(const struct dtrace_cmd *c)
{
	const char *second = NULL;

	if (c->nscripts < 2)
		return 0;
	for (unsigned i = 0, n = 0; i < c->nsrcs && !second; i++)
		if (c->srcs[i].name && ++n == 2)
			second = c->srcs[i].name;
	return usage_error("only one -s script may be given ('%s' and '%s')",
			   c->script, second ? second : "");
}

static int cmd_header(struct dtrace_cmd *c)
{
	struct prov_header_opts ho = { 0 };
	struct prov_file *pf = NULL;
	struct prov_diag d;
	struct outfile of;
	char *defout = NULL;
	const char *out = c->output;
	int err;

	if (!c->script)
		return usage_error("-h needs a provider script: -s file.d");
	if (one_script(c))
		return EXIT_USAGE;
	for (int i = 0; i < c->argc; i++)
		warnx("warning: -h ignores the argument '%s'", c->args[i]);
	if (load_script(c, &pf))
		return EXIT_FAILURE;
	if (!out)
		out = defout = default_output(c->script, ".h");
	err = outfile_open(&of, out, 0666);
	if (err) {
		warnx("failed to open %s: %s", out, strerror(-err));
		goto fail;
	}
	/* the guard comes from the output's name, as in DTrace */
	if (strcmp(out, "-") == 0 && !defout)
		defout = default_output(c->script, ".h");
	ho.guard_from = strcmp(out, "-") == 0 ? defout : out;
	ho.style = probe_style;
	err = prov_write_header(pf, &ho, of.fp, &d);
	if (err) {
		outfile_abort(&of);
		warnx("failed to write %s: %s", out, d.msg);
		goto fail;
	}
	err = outfile_commit(&of);
	if (err) {
		warnx("failed to write %s: %s", out, strerror(-err));
		goto fail;
	}
	prov_file_free(pf);
	free(defout);
	return EXIT_SUCCESS;
fail:
	prov_file_free(pf);
	free(defout);
	return EXIT_FAILURE;
}

static int cmd_link(struct dtrace_cmd *c)
{
	struct dt_link_opts lo = {0};
	struct prov_file *pf = NULL;
	char *defout = NULL, msg[16384];
	const char *out = c->output;
	int err;

	if (!c->script)
		return usage_error("-G needs a provider script: -s file.d");
	if (one_script(c))
		return EXIT_USAGE;
	if (load_script(c, &pf))
		return EXIT_FAILURE;
	if (!out)
		out = defout = default_output(c->script, ".o");
	lo.script = c->script;
	lo.objects = c->args;
	lo.nobjects = c->argc;
	lo.verbose = c->verbose;
	err = dtrace_link(&lo, pf, out, msg, sizeof(msg));
	if (err && msg[0])
		warnx("%s", msg);
	prov_file_free(pf);
	free(defout);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* `-s -`: the program on standard input, read whole. */
static char *read_stdin_script(void)
{
	struct sbuf sb = {0};
	size_t n;

	do {
		xsbuf_reserve(&sb, 4096);
		n = fread(sb.b + sb.len, 1, sb.cap - sb.len - 1, stdin);
		sb.len += n;
	} while (n > 0);
	if (ferror(stdin)) {
		warnx("failed to read the script from standard input: %s",
		      strerror(errno));
		free(sb.b);
		return NULL;
	}
	sb.b[sb.len] = '\0';
	return sb.b;
}

/*
 * A D script for -s: read (through cpp with -C, whose line markers the
 * D lexer follows, so messages give the script's lines); "-" is
 * standard input (not through cpp).
 */
static char *read_d_script(const struct dtrace_cmd *c, const char *path)
{
	struct prov_diag d;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (strcmp(path, "-") == 0)
		return read_stdin_script();
	if (c->popts.cpp)
		err = prov_run_cpp(path, &c->popts, &buf, &len, &d);
	else
		err = prov_read_file(path, &buf, &len, &d);
	if (err) {
		prov_diag_print(stderr, path, &d);
		return NULL;
	}
	return buf;
}

static int cmd_trace(struct dtrace_cmd *c)
{
	struct dt_trace_opts o = { 0 };
	char **owned = xcalloc(c->nsrcs, sizeof(*owned));
	int rc;

	for (unsigned i = 0; i < c->nsrcs; i++) {
		struct dt_source *src = &c->srcs[i];
		struct prov_file *pf = NULL;
		struct prov_diag d;
		char *text;

		if (!src->name || src->text)
			continue;
		/*
		 * The script is read once (a pipe, /dev/stdin or a FIFO
		 * gives its text only once) and that text is what is
		 * checked and run.
		 */
		text = read_d_script(c, src->name);
		if (!text) {
			rc = EXIT_FAILURE;
			goto out;
		}
		src->text = text;
		owned[i] = text;
		/*
		 * A provider file with no probe clauses is what -h and -G
		 * read: the mode was forgotten, say so rather than run it.
		 */
		if (strcmp(src->name, "-") != 0 &&
		    prov_parse_buf(src->name, text, strlen(text), &pf,
				   &d) == 0 &&
		    pf->provider_cnt && !pf->clause_cnt) {
			prov_file_free(pf);
			rc = usage_error("no mode given: %s declares providers and no probe clauses; use -h to write a header or -G to link",
					 src->name);
			goto out;
		}
		prov_file_free(pf);
		pf = NULL;
		if (strcmp(src->name, "-") == 0)
			src->name = "<stdin>";
	}
	o.statedir = reg_statedir();
	o.src = c->srcs;
	o.nsrc = c->nsrcs;
	o.pids = c->pids;
	o.npids = c->npids;
	o.cmds = c->cmds;
	o.ncmds = c->ncmds;
	o.macro_argv = (const char *const *)c->args;
	o.macro_argc = (unsigned)c->argc;
	o.quiet = c->quiet;
	o.zero_ok = c->zero_ok;
	o.verbose = c->verbose;
	o.output = c->output;
	o.bufsize = c->bufsize;
	o.switchrate_ms = c->switchrate_ms;
	o.xopts = c->xopts;
	o.nxopts = c->nxopts;
	o.compile_only = c->compile_only;
	rc = dt_trace(&o);
out:
	for (unsigned i = 0; i < c->nsrcs; i++)
		free(owned[i]);
	free(owned);
	return rc;
}

/*
 * The combinations parse_args() cannot judge alone; -1 to go on, else
 * the exit status.
 */
static int cmd_list(const struct dtrace_cmd *c)
{
	struct dt_list_opts o = {
		.descs = c->descs,
		.ndescs = c->ndescs,
		.pids = c->pids,
		.npids = c->npids,
		.cmds = c->cmds,
		.ncmds = c->ncmds,
		.objects = c->objects,
		.nobjects = c->nobjects,
		.verbose = c->verbose,
	};

	return dtrace_list(&o);
}

static int check_modes(const struct dtrace_cmd *c)
{
	static const char letters[] = { 0, 'h', 'G', 'V', 'l' };
	char sel = c->ndescs ? c->descs[0].opt : c->npids ? 'p' : 0;

	if (c->mode == MODE_LIST) {
		if (c->script)
			return usage_error("-l lists probes; -s names a provider file for -h and -G (select probes with -n, -P, -m or -f)");
		if (c->output)
			return usage_error("-o is not supported with -l");
		if (c->argc > 0)
			return usage_error("-l takes no operands ('%s'); to list the probes of a file, use --object=%s",
					   c->args[0], c->args[0]);
		if ((c->npids || c->ncmds) && c->nobjects)
			return usage_error("-%c selects running processes; --object lists files on disk: give one or the other",
					   c->npids ? 'p' : 'c');
		return -1;
	}
	if (c->mode == MODE_NONE && (c->nsrcs || c->script || c->ncmds)) {
		if (c->nobjects)
			return usage_error("--object lists the probes of a file; add -l");
		if (!c->nsrcs && !c->script)
			return usage_error("no probes specified: give -n, -P, -m, -f or -s with -c");
		return -1; /* tracing */
	}
	if (c->ncmds)
		return usage_error("-c runs a command to trace; it cannot be used with -%c",
				   letters[c->mode]);
	if (sel)
		return usage_error("-%c selects probes for -l; it cannot be used with -%c",
				   sel, letters[c->mode]);
	if (c->nobjects)
		return usage_error("--object names a file whose probes -l lists; add -l");
	return -1;
}

int main(int argc, char **argv)
{
	struct dtrace_cmd c = { 0 };
	int rc;

	rc = parse_args(&c, argc, argv);
	if (rc >= 0)
		goto out;
	rc = check_modes(&c);
	if (rc >= 0)
		goto out;
	switch (c.mode) {
	case MODE_LIST:
		rc = cmd_list(&c);
		break;
	case MODE_VERSION:
		printf("%s: Sun D 1.13 compatible (%s)\n", progname,
		       PACKAGE_STRING);
		rc = EXIT_SUCCESS;
		break;
	case MODE_HEADER:
		rc = cmd_header(&c);
		break;
	case MODE_LINK:
		rc = cmd_link(&c);
		break;
	case MODE_NONE:
		if (c.nsrcs || c.script)
			rc = cmd_trace(&c);
		else if (c.npids)
			rc = usage_error("no probes specified: give -n, -P, -m, -f or -s with -p");
		else
			rc = usage_error("no mode given: use -n or -s to trace, -l to list probes, -h to write a header or -G to link");
		break;
	}
out:
	for (unsigned i = 0; i < c.cpp_argc; i++)
		free((char *)c.cpp_argv[i]);
	free(c.cpp_argv);
	for (unsigned i = 0; i < c.ndescs; i++)
		free(c.descs[i].owned);
	free(c.descs);
	free(c.pids);
	free(c.objects);
	free(c.srcs);
	free(c.cmds);
	free(c.xopts);
	if (fflush(stdout) != 0) {
		warnx("write error on standard output: %s", strerror(errno));
		rc = EXIT_FAILURE;
	}
	return rc;
}
