// SPDX-License-Identifier: MIT
/*
 * minforth.c - a tiny Forth-like interpreter with the probes a language
 * runtime ships (minforth.d): function entry and return with the name,
 * file and line of the function, script start and end, and errors.
 *
 *	minforth SCRIPT			run SCRIPT; exit status 1 on an error
 *	MINFORTH_STATS=1 minforth SCRIPT	also report on stderr at exit
 *					how many words were called and how
 *					many probe name strings were built
 *
 * The language: words separated by blanks; numbers (long) are pushed on
 * the data stack; `\` comments to the end of the line, `( ... )` inline.
 * Built in: + - * / mod dup drop swap over rot < > = . (print) cr emit,
 * and `." text"` (print text).  `: name ... ;` defines a word, and in a
 * definition `if [else] then`, `begin ... until` and `exit` work; a word
 * may call itself.  Definitions are compiled to a small array of ops,
 * the rest of the script runs as it is read.
 *
 * Probe arguments and _ENABLED()
 * ------------------------------
 * Word names are not C strings here: as in a classic Forth dictionary, a
 * word records where its name is in the script text and how long it is.
 * A probe needs NUL-terminated strings, so firing function-entry means
 * copying the name out first: cheap, but paid on every call of every
 * word, which is most of what an interpreter does.  So the interpreter
 * does what CPython, Ruby and Perl do with their function probes:
 *
 *   CPython: if (PyDTrace_FUNCTION_ENTRY_ENABLED())
 *                    dtrace_function_entry(frame);
 *   Ruby:    RUBY_DTRACE_METHOD_ENTRY_HOOK(): if the probe is enabled,
 *            rb_dtrace_setup() finds class, method, file and line, then
 *            RUBY_DTRACE_METHOD_ENTRY(...) fires;
 *   Perl:    PERL_DTRACE_PROBE_ENTRY(cv): if (PERL_SUB_ENTRY_ENABLED())
 *                    Perl_dtrace_probe_call(aTHX_ cv, TRUE);
 *
 * The _ENABLED() test is inline in the call path; building the arguments
 * and firing the probe is a separate function kept out of line (noinline,
 * cold), so an untraced call costs a load and compare of the probe's
 * semaphore and a branch not taken.  Semaphores are per probe: tracing
 * function-entry alone leaves function-return's _ENABLED() false.  The
 * MINFORTH_STATS count of names built makes this visible (the examples'
 * test checks it: 0 untraced, one per call with function-entry traced).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minforth.h"

#define STACK_MAX 256	/* data stack cells */
#define DEPTH_MAX 1000	/* nested calls (each is a C call) */
#define CTRL_MAX 32	/* open if/else/begin in one definition */
#define NAME_MAX_LEN 63 /* longest word name */

enum op_kind { OP_LIT, OP_PRIM, OP_CALL, OP_JZ, OP_JMP, OP_PRINT, OP_EXIT };

struct op {
	enum op_kind kind;
	int line;	/* for error messages */
	long arg;	/* value, primitive, word, jump target or text offset */
	size_t len;	/* OP_PRINT: length of the text */
};

struct word {
	size_t name;	/* offset of the name in the script text ... */
	size_t len;	/* ... and its length: names are not NUL-terminated */
	int line;	/* line of the definition */
	size_t start;	/* first op in vm.code */
};

static const char *const prims[] = {
	"+", "-", "*", "/", "mod", "dup", "drop", "swap",
	"over", "rot", "<", ">", "=", ".", "cr", "emit",
};
enum {
	P_ADD, P_SUB, P_MUL, P_DIV, P_MOD, P_DUP, P_DROP, P_SWAP,
	P_OVER, P_ROT, P_LT, P_GT, P_EQ, P_DOT, P_CR, P_EMIT, P_COUNT
};

struct vm {
	const char *file;
	char *text;		/* the whole script */
	size_t size, pos;	/* its length; the reader's position */
	int line;		/* the reader's line */

	long stack[STACK_MAX];
	int sp;
	int depth;

	struct op *code;
	size_t ncode, code_cap;
	struct word *words;
	size_t nwords, words_cap;

	int defining;			/* inside : ... ; */
	size_t ctrl[CTRL_MAX];		/* open control structures: op index */
	char ctrl_kind[CTRL_MAX];	/* 'i' if, 'e' else, 'b' begin */
	int nctrl;

	unsigned long calls;	/* words called */
	unsigned long names;	/* probe name strings built */
};

/*
 * Report an error as "file:line: message" and fire the error probe
 * (errors are rare, so its arguments need no _ENABLED() guard).
 */
static int error(struct vm *vm, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	MINFORTH_ERROR(vm->file, line, msg);
	fprintf(stderr, "%s:%d: %s\n", vm->file, line, msg);
	return -1;
}

/* ---------------------------------------------------------------------
 * Probe arguments, built only while traced (see the comment at the top)
 */

static void word_name(struct vm *vm, const struct word *w, char *buf)
{
	memcpy(buf, vm->text + w->name, w->len);
	buf[w->len] = '\0';
	vm->names++;
}

static __attribute__((noinline, cold)) void
fire_function_entry(struct vm *vm, const struct word *w)
{
	char name[NAME_MAX_LEN + 1];

	word_name(vm, w, name);
	MINFORTH_FUNCTION_ENTRY(name, vm->file, w->line);
}

static __attribute__((noinline, cold)) void
fire_function_return(struct vm *vm, const struct word *w)
{
	char name[NAME_MAX_LEN + 1];

	word_name(vm, w, name);
	MINFORTH_FUNCTION_RETURN(name, vm->file, w->line);
}

#define FUNCTION_ENTRY_HOOK(vm, w)                              \
	do {                                                    \
		if (MINFORTH_FUNCTION_ENTRY_ENABLED())          \
			fire_function_entry(vm, w);             \
	} while (0)

#define FUNCTION_RETURN_HOOK(vm, w)                             \
	do {                                                    \
		if (MINFORTH_FUNCTION_RETURN_ENABLED())         \
			fire_function_return(vm, w);            \
	} while (0)

/* ---------------------------------------------------------------------
 * Execution
 */

static int need(struct vm *vm, int n, int line)
{
	if (vm->sp < n)
		return error(vm, line, "stack underflow");
	return 0;
}

static int push(struct vm *vm, long v, int line)
{
	if (vm->sp == STACK_MAX)
		return error(vm, line, "stack overflow");
	vm->stack[vm->sp++] = v;
	return 0;
}

/* Arithmetic wraps around, as in Forth: done on unsigned longs. */
static int prim(struct vm *vm, long p, int line)
{
	static const signed char arity[P_COUNT] = {
		[P_ADD] = 2, [P_SUB] = 2, [P_MUL] = 2, [P_DIV] = 2,
		[P_MOD] = 2, [P_DUP] = 1, [P_DROP] = 1, [P_SWAP] = 2,
		[P_OVER] = 2, [P_ROT] = 3, [P_LT] = 2, [P_GT] = 2,
		[P_EQ] = 2, [P_DOT] = 1, [P_CR] = 0, [P_EMIT] = 1,
	};
	long *s, a, b;

	if (need(vm, arity[p], line) < 0)
		return -1;
	s = vm->stack + vm->sp; /* s[-1] is the top */
	a = arity[p] >= 2 ? s[-2] : 0;
	b = arity[p] >= 1 ? s[-1] : 0;
	switch (p) {
	case P_ADD:
		s[-2] = (long)((unsigned long)a + (unsigned long)b);
		break;
	case P_SUB:
		s[-2] = (long)((unsigned long)a - (unsigned long)b);
		break;
	case P_MUL:
		s[-2] = (long)((unsigned long)a * (unsigned long)b);
		break;
	case P_DIV:
	case P_MOD:
		if (b == 0 || (b == -1 && a < -__LONG_MAX__))
			return error(vm, line, "division by zero or overflow");
		s[-2] = p == P_DIV ? a / b : a % b;
		break;
	case P_DUP:
		return push(vm, b, line);
	case P_DROP:
	case P_DOT:
	case P_EMIT:
		if (p == P_DOT)
			printf("%ld ", b);
		else if (p == P_EMIT)
			putchar((int)(unsigned char)b);
		vm->sp--;
		return 0;
	case P_SWAP:
		s[-2] = b;
		s[-1] = a;
		return 0;
	case P_OVER:
		return push(vm, a, line);
	case P_ROT: /* a b c -- b c a */
		s[-1] = s[-3];
		s[-3] = a;
		s[-2] = b;
		return 0;
	case P_LT:
		s[-2] = a < b ? -1 : 0;
		break;
	case P_GT:
		s[-2] = a > b ? -1 : 0;
		break;
	case P_EQ:
		s[-2] = a == b ? -1 : 0;
		break;
	case P_CR:
		putchar('\n');
		return 0;
	}
	vm->sp--; /* the binary operators: two in, one out */
	return 0;
}

/*
 * Call word wi.  Entry and return probes pair up even when an error
 * unwinds the call, as they do in the runtimes whose probes these copy.
 * No word is defined while one runs, so w and the code stay put.
 */
static int call(struct vm *vm, size_t wi)
{
	const struct word *w = &vm->words[wi];
	size_t pc = w->start;
	int err = 0;

	if (vm->depth == DEPTH_MAX)
		return error(vm, w->line, "%.*s: more than %d nested calls",
			     (int)w->len, vm->text + w->name, DEPTH_MAX);
	vm->depth++;
	vm->calls++;
	FUNCTION_ENTRY_HOOK(vm, w);
	while (!err) {
		const struct op *op = &vm->code[pc++];

		switch (op->kind) {
		case OP_LIT:
			err = push(vm, op->arg, op->line);
			break;
		case OP_PRIM:
			err = prim(vm, op->arg, op->line);
			break;
		case OP_CALL:
			err = call(vm, (size_t)op->arg);
			break;
		case OP_JZ:
			err = need(vm, 1, op->line);
			if (!err && vm->stack[--vm->sp] == 0)
				pc = (size_t)op->arg;
			break;
		case OP_JMP:
			pc = (size_t)op->arg;
			break;
		case OP_PRINT:
			fwrite(vm->text + op->arg, 1, op->len, stdout);
			break;
		case OP_EXIT:
			goto out;
		}
	}
out:
	FUNCTION_RETURN_HOOK(vm, w);
	vm->depth--;
	return err;
}

/* ---------------------------------------------------------------------
 * Reading and compiling
 */

/* The next blank-separated token: 1 and its place, or 0 at the end. */
static int token(struct vm *vm, size_t *start, size_t *len, int *line)
{
	const char *t = vm->text;

	for (;;) {
		while (vm->pos < vm->size && isspace((unsigned char)t[vm->pos]))
			if (t[vm->pos++] == '\n')
				vm->line++;
		if (vm->pos == vm->size)
			return 0;
		*start = vm->pos;
		*line = vm->line;
		while (vm->pos < vm->size && !isspace((unsigned char)t[vm->pos]))
			vm->pos++;
		*len = vm->pos - *start;
		if (*len == 1 && t[*start] == '\\') {
			while (vm->pos < vm->size && t[vm->pos] != '\n')
				vm->pos++;
		} else if (*len == 1 && t[*start] == '(') {
			while (vm->pos < vm->size && t[vm->pos] != ')')
				if (t[vm->pos++] == '\n')
					vm->line++;
			if (vm->pos < vm->size)
				vm->pos++;
		} else {
			return 1;
		}
	}
}

/* After `."`: the text up to the next '"' (one blank after `."` skipped). */
static int string(struct vm *vm, int line, size_t *start, size_t *len)
{
	const char *end;

	if (vm->pos < vm->size)
		vm->pos++;
	end = memchr(vm->text + vm->pos, '"', vm->size - vm->pos);
	if (!end)
		return error(vm, line, "unterminated .\" string");
	*start = vm->pos;
	*len = (size_t)(end - (vm->text + vm->pos));
	for (size_t i = 0; i < *len; i++)
		if (vm->text[*start + i] == '\n')
			vm->line++;
	vm->pos = (size_t)(end - vm->text) + 1;
	return 0;
}

static int is(const struct vm *vm, size_t start, size_t len, const char *s)
{
	return strlen(s) == len && memcmp(vm->text + start, s, len) == 0;
}

static int number(const struct vm *vm, size_t start, size_t len, long *v)
{
	char buf[32], *end;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, vm->text + start, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[buf[0] == '-' && len > 1]))
		return 0;
	errno = 0;
	*v = strtol(buf, &end, 10);
	return *end == '\0' && errno == 0;
}

/* The newest word of that name (a later definition hides earlier ones). */
static long find_word(const struct vm *vm, size_t start, size_t len)
{
	for (size_t i = vm->nwords; i-- > 0;) {
		const struct word *w = &vm->words[i];

		if (w->len == len &&
		    memcmp(vm->text + w->name, vm->text + start, len) == 0)
			return (long)i;
	}
	return -1;
}

static long find_prim(const struct vm *vm, size_t start, size_t len)
{
	for (long i = 0; i < P_COUNT; i++)
		if (is(vm, start, len, prims[i]))
			return i;
	return -1;
}

static int emit(struct vm *vm, enum op_kind kind, long arg, int line)
{
	if (vm->ncode == vm->code_cap) {
		size_t cap = vm->code_cap ? vm->code_cap * 2 : 64;
		struct op *c = realloc(vm->code, cap * sizeof(*c));

		if (!c)
			return error(vm, line, "out of memory");
		vm->code = c;
		vm->code_cap = cap;
	}
	vm->code[vm->ncode++] = (struct op){ kind, line, arg, 0 };
	return 0;
}

static int define(struct vm *vm, int line)
{
	size_t start, len;
	int nline;

	if (!token(vm, &start, &len, &nline))
		return error(vm, line, "':' without a name");
	if (len > NAME_MAX_LEN)
		return error(vm, nline, "name longer than %d characters",
			     NAME_MAX_LEN);
	if (vm->nwords == vm->words_cap) {
		size_t cap = vm->words_cap ? vm->words_cap * 2 : 16;
		struct word *w = realloc(vm->words, cap * sizeof(*w));

		if (!w)
			return error(vm, line, "out of memory");
		vm->words = w;
		vm->words_cap = cap;
	}
	/* defined at once, so that the word can call itself */
	vm->words[vm->nwords++] = (struct word){ start, len, nline, vm->ncode };
	vm->defining = 1;
	return 0;
}

/* Compile control words; 1 if the token was not one of them. */
static int control(struct vm *vm, size_t start, size_t len, int line)
{
	int n = vm->nctrl;
	char top = n ? vm->ctrl_kind[n - 1] : 0;

	if (is(vm, start, len, "if") || is(vm, start, len, "begin")) {
		if (n == CTRL_MAX)
			return error(vm, line, "control structures too deep");
		vm->ctrl[n] = vm->ncode;
		vm->ctrl_kind[n] = vm->text[start] == 'i' ? 'i' : 'b';
		vm->nctrl++;
		return vm->text[start] == 'i' ? emit(vm, OP_JZ, 0, line) : 0;
	}
	if (is(vm, start, len, "else")) {
		if (top != 'i')
			return error(vm, line, "'else' without 'if'");
		vm->code[vm->ctrl[n - 1]].arg = (long)vm->ncode + 1;
		vm->ctrl[n - 1] = vm->ncode;
		vm->ctrl_kind[n - 1] = 'e';
		return emit(vm, OP_JMP, 0, line);
	}
	if (is(vm, start, len, "then")) {
		if (top != 'i' && top != 'e')
			return error(vm, line, "'then' without 'if'");
		vm->code[vm->ctrl[n - 1]].arg = (long)vm->ncode;
		vm->nctrl--;
		return 0;
	}
	if (is(vm, start, len, "until")) {
		if (top != 'b')
			return error(vm, line, "'until' without 'begin'");
		vm->nctrl--;
		return emit(vm, OP_JZ, (long)vm->ctrl[n - 1], line);
	}
	if (is(vm, start, len, "exit"))
		return emit(vm, OP_EXIT, 0, line);
	if (is(vm, start, len, ";")) {
		if (n)
			return error(vm, line, "unfinished if or begin");
		vm->defining = 0;
		return emit(vm, OP_EXIT, 0, line);
	}
	return 1;
}

static int is_control(const struct vm *vm, size_t start, size_t len)
{
	static const char *const words[] = {
		"if", "else", "then", "begin", "until", "exit", ";",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (is(vm, start, len, words[i]))
			return 1;
	return 0;
}

/* One token: compiled inside a definition, executed outside. */
static int step(struct vm *vm, size_t start, size_t len, int line)
{
	long v, i;
	int r;

	if (is(vm, start, len, ":")) {
		if (vm->defining)
			return error(vm, line, "':' inside a definition");
		return define(vm, line);
	}
	if (is(vm, start, len, ".\"")) {
		size_t s = 0, l = 0;

		if (string(vm, line, &s, &l) < 0)
			return -1;
		if (!vm->defining) {
			fwrite(vm->text + s, 1, l, stdout);
			return 0;
		}
		if (emit(vm, OP_PRINT, (long)s, line) < 0)
			return -1;
		vm->code[vm->ncode - 1].len = l;
		return 0;
	}
	if (vm->defining) {
		r = control(vm, start, len, line);
		if (r <= 0)
			return r;
	} else if (is_control(vm, start, len)) {
		return error(vm, line, "'%.*s' outside a definition", (int)len,
			     vm->text + start);
	}
	if (number(vm, start, len, &v))
		return vm->defining ? emit(vm, OP_LIT, v, line)
				    : push(vm, v, line);
	if ((i = find_word(vm, start, len)) >= 0)
		return vm->defining ? emit(vm, OP_CALL, i, line) : call(vm, i);
	if ((i = find_prim(vm, start, len)) >= 0)
		return vm->defining ? emit(vm, OP_PRIM, i, line)
				    : prim(vm, i, line);
	return error(vm, line, "unknown word '%.*s'", (int)len, vm->text + start);
}

static int run(struct vm *vm)
{
	size_t start, len;
	int line;

	while (token(vm, &start, &len, &line))
		if (step(vm, start, len, line) < 0)
			return -1;
	if (vm->defining)
		return error(vm, vm->line, "definition not ended with ';'");
	return 0;
}

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *b;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

int main(int argc, char **argv)
{
	struct vm vm = { .line = 1 };
	const char *stats = getenv("MINFORTH_STATS");
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: minforth SCRIPT\n");
		return 2;
	}
	vm.file = argv[1];
	vm.text = slurp(vm.file, &vm.size);
	if (!vm.text) {
		fprintf(stderr, "minforth: %s: %s\n", vm.file, strerror(errno));
		return 2;
	}
	MINFORTH_SCRIPT_START(vm.file);
	status = run(&vm) < 0;
	MINFORTH_SCRIPT_DONE(vm.file, status);
	fflush(stdout);
	if (stats && *stats)
		fprintf(stderr, "minforth: %lu calls, %lu probe names built\n",
			vm.calls, vm.names);
	free(vm.code);
	free(vm.words);
	free(vm.text);
	return status;
}
