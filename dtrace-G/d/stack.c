// SPDX-License-Identifier: MIT
/*
 * stack.c - user stacks and the names of user addresses in the D
 * language (dtrace-G/d/): ustack([nframes [, strsize]]), jstack(), ucaller,
 * ustackdepth (the frames the consumer unwinds, at most 1024), ufunc(pc),
 *umod(pc), usym(pc), uaddr(pc), printf's %A, %a and %k, their options, and how
 *they print; uregs[], the registers the consumer takes with a firing's stack.
 *
 * Values.  The consumer unwinds a firing's stack and names addresses
 * (struct d_fire's ustack and usym callbacks, consumer/ustack.c); this
 * part turns its answers into text at the firing, as DTrace's consumer
 * prints them (libdtrace's dt_print_ustack(), dtrace_uaddr2str()):
 *
 *	ustack()	one frame per line, innermost first:
 *			module`function+0xoff, module`function where
 *			the offset is 0, module`0xaddr where no symbol
 *			covers the address, 0xaddr outside every module
 *	uaddr(pc), %A	module`function+0xoff, as a frame
 *	ufunc(pc), usym(pc)	module`function (DTrace's usym rounds
 *			the address down to its symbol, so both name the
 *			function)
 *	umod(pc)	module
 *
 * With -x srcline a frame and uaddr() add " [file.c:12]" where DWARF
 * knows the line (DTrace prints none; the option is ours).  A value is
 * a string (K_STR) that remembers how it prints (struct dv's show:
 * DV_STACK, DV_SYM), so it can be stored in variables, compared, and
 * used as an aggregation key: @[ustack()] = count() counts per distinct
 * printed stack, and since the names are taken at the firing, a process
 * that exited long before the aggregation is printed still has them.
 * (DTrace keys on the process and the raw addresses and names them when
 * it prints; the same stack in two processes is one entry here.)  A
 * clause a generated BPF program ran at the hit that prints a stack
 * whole gets the same text from d_stack_rec(), the stack of the hit's
 * record as the firing's callbacks give it
 * (../consumer/kplan_out.c's OSTK).  The
 * names come from files a traced user controls, so they are tainted
 * (struct dv's tn): each frame prints made safe.  strsize does not cut
 * these values.  A stack the consumer says the copy ran out under
 * (struct d_fire's ustack_cut) ends with the line "[truncated: N bytes
 * of stack copied]", part of the value (no frame has that form: no
 * backtick, no 0x), and in JSON with {"truncated":N}.
 *
 * Printing (dt_print_datum()): a stack, by trace(), as an aggregation
 * key or by printf's %k, is a newline and then each frame on its own
 * line after -x stackindent spaces (14); printf's %k indents by the
 * conversion's width when it is left-aligned (%-20k), else not at all.
 * A name prints as "  %-50s", also when quiet.  In JSON output a stack
 * is an array of frames.
 *
 * jstack() is DTrace's ustack() with the frames a process's ustack
 * helper (a JVM's, an interpreter's) annotates.  No helper runs here:
 * none is registered (a DOF's helper sections are not loaded, and no
 * runtime builds one for Linux), so it is what DTrace's is for a
 * process without one, ustack()'s frames, its default count
 * jstackframes'; the strsize of both, a helper's room, is unused.
 *
 * Options: ustackframes (frames of ustack() without an argument, 100),
 * jstackframes (jstack()'s, 50), jstackstrsize (accepted),
 * maxframes (the most frames any ustack() or jstack() gives),
 * stackindent, srcline, and for the consumer mangled (names as the
 * symbol tables have them, not demangled) and ustacksize (bytes of
 * stack each hit copies, 1k to 16k, 8k by default).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"
#include "text.h"

#define D_USTACKFRAMES 100   /* DTrace's default for ustackframes */
#define D_USTACKFRAMES_MAX 1000
#define D_STACKINDENT 14
/* the last line of a stack the copy ran out under (see the top) */
#define D_STACK_CUT_FMT "[truncated: %zu bytes of stack copied]"

/* ------------------------------------------------------------------ */
/* Options */

static int bad_value(const char *name, const char *value, const char *why,
		     char *msg, size_t msglen)
{
	snprintf(msg, msglen,
		 "failed to set option '%s' to '%s': Invalid value for "
		 "specified option%s",
		 name, value ? value : "", why);
	return -1;
}

static int uint_value(const char *value, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!value || !*value || *value == '-')
		return -1;
	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int d_stack_option(struct d_prog *p, const char *name, const char *value,
		   char *msg, size_t msglen)
{
	unsigned long v;

	if (!strcmp(name, "maxframes")) {
		if (uint_value(value, D_USTACKFRAMES_MAX, &v) < 0 || !v)
			return bad_value(name, value, " (1 to 1000)", msg,
					 msglen);
		p->maxframes = (unsigned)v;
	} else if (!strcmp(name, "ustackframes") ||
		   !strcmp(name, "jstackframes")) {
		if (uint_value(value, D_USTACKFRAMES_MAX, &v) < 0 || !v)
			return bad_value(name, value, " (1 to 1000)", msg,
					 msglen);
		if (name[0] == 'u')
			p->ustackframes = (unsigned)v;
		else
			p->jstackframes = (unsigned)v;
	} else if (!strcmp(name, "jstackstrsize")) {
		/* the room for a helper's strings: none is run here */
		if (uint_value(value, 65536, &v) < 0)
			return bad_value(name, value, " (0 to 65536)", msg,
					 msglen);
	} else if (!strcmp(name, "stackindent")) {
		if (uint_value(value, 1000, &v) < 0)
			return bad_value(name, value, "", msg, msglen);
		p->stackindent = (int)v;
	} else if (!strcmp(name, "srcline") || !strcmp(name, "mangled")) {
		int on = d_flag_value(value);

		if (on < 0)
			return bad_value(name, value, "", msg, msglen);
		if (name[0] == 's')
			p->srcline = on;
	} else if (!strcmp(name, "ustacksize")) {
		size_t n;

		if (d_parse_size(value, &n) < 0 || n < 1024 || n > 16384)
			return bad_value(name, value, " (1k to 16k)", msg,
					 msglen);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Compiling */

bool d_stack_func(int id)
{
	return id == F_USTACK || id == F_JSTACK || id == F_UFUNC ||
	       id == F_UMOD ||
	       id == F_USYM || id == F_UADDR;
}

/*
 * ustack()'s arguments are constants, as DTrace's compiler wants them
 * (the size of the record is fixed at compile time there).
 */
void d_stack_check(struct parser *ps, const struct node *n)
{
	for (unsigned i = 0; i < n->nargs; i++) {
		const struct node *a = n->args[i];

		if (a->op != N_INT || a->ival < (i ? 0 : 1) ||
		    a->ival > (i ? 65536 : D_USTACKFRAMES_MAX))
			d_perrt(ps, D_USTACK_FRAMES, a->line, a->col,
			       "%s( ) argument #%u must be a %s integer "
			       "constant%s",
			       d_funcs[n->sub].name, i + 1,
			       i ? "non-negative" : "positive",
			       i ? "" : " (at most 1000)");
	}
}

/* A statement that is only ustack() or ufunc() etc. records it. */
bool d_stack_stmt(const struct node *e)
{
	return e->op == N_FUNC && d_stack_func(d_funcs[e->sub].id);
}

/* ------------------------------------------------------------------ */
/* Values */

enum { HOW_ADDR, HOW_FUNC, HOW_MOD };

/* One address as DTrace prints it (see the top). */
static void fmt_addr(struct sbuf *sb, const struct d_usym *s, bool found,
		     uint64_t pc, int how, bool line)
{
	unsigned long long a = (unsigned long long)pc;

	if (!found || !s->mod) {
		d_sb_printf(sb, "0x%llx", a);
		return;
	}
	if (how == HOW_MOD) {
		d_sb_puts(sb, s->mod);
		return;
	}
	if (!s->sym)
		d_sb_printf(sb, "%s`0x%llx", s->mod, a);
	else if (how == HOW_FUNC || !s->off)
		d_sb_printf(sb, "%s`%s", s->mod, s->sym);
	else
		d_sb_printf(sb, "%s`%s+0x%llx", s->mod, s->sym,
			    (unsigned long long)s->off);
	if (line && s->file)
		d_sb_printf(sb, " [%s:%u]", s->file, s->line);
}

static bool fire_lookup(const struct d_prog *p, const struct d_fire *f,
			uint64_t pc, unsigned flags, struct d_usym *s)
{
	memset(s, 0, sizeof(*s));
	if (p->srcline)
		flags |= D_USYM_LINE;
	return f->usym && f->usym(f->ustack_ctx, f->pid, pc, flags, s);
}

static bool lookup(struct ectx *x, uint64_t pc, unsigned flags,
		   struct d_usym *s)
{
	return fire_lookup(x->p, x->f, pc, flags, s);
}

static struct dv text_value(struct ectx *x, struct sbuf *sb, uint8_t show)
{
	struct dv v = d_dv_tstr(d_ar_strndup(&x->scratch, sb->b ? sb->b : "",
					     sb->len));

	free(sb->b);
	v.show = show;
	return v;
}

/* The most frames ustack(), ustack(n), jstack() or jstack(n) (n, its
 * arguments' values a) gives */
static unsigned stack_max(const struct d_prog *p, const struct node *n,
			  const struct dv *a)
{
	unsigned max = n->nargs				? (unsigned)a[0].i
		       : d_funcs[n->sub].id == F_JSTACK ? p->jstackframes
							: p->ustackframes;

	if (!max)
		max = D_USTACKFRAMES;
	if (p->maxframes && max > p->maxframes)
		max = p->maxframes;
	return max;
}

/* f's stack as ustack() prints it, at most max frames (pcs room for
 * them), into sb */
static void stack_text(const struct d_prog *p, const struct d_fire *f,
		       unsigned max, uint64_t *pcs, struct sbuf *sb)
{
	unsigned cnt = f->ustack ? f->ustack(f->ustack_ctx, pcs, max) : 0;
	size_t cut;

	for (unsigned i = 0; i < cnt && i < max; i++) {
		struct d_usym s;
		bool found = fire_lookup(p, f, pcs[i], i ? D_USYM_RET : 0, &s);

		if (i)
			d_sb_puts(sb, "\n");
		fmt_addr(sb, &s, found, pcs[i], HOW_ADDR, true);
	}
	/* the unwinder wanted more than the hit copied: say so (a line no
	 * frame can be, having no backtick and no 0x) */
	if (cnt && f->ustack_cut && (cut = f->ustack_cut(f->ustack_ctx)))
		d_sb_printf(sb, "\n" D_STACK_CUT_FMT, cut);
}

static struct dv eval_ustack(struct ectx *x, const struct node *n,
			     const struct dv *a)
{
	unsigned max = stack_max(x->p, n, a);
	struct sbuf sb = { 0 };

	stack_text(x->p, x->f, max,
		   d_ar_alloc(&x->scratch, max * sizeof(uint64_t)), &sb);
	return text_value(x, &sb, DV_STACK);
}

struct dv d_stack_rec(const struct d_prog *p, const struct d_fire *f,
		      const struct node *n, char **fr)
{
	struct dv a[1] = { { .i = n->nargs ? n->args[0]->ival : 0 } };
	unsigned max = stack_max(p, n, a);
	uint64_t *pcs = calloc(max, sizeof(*pcs));
	struct sbuf sb = { 0 };
	struct dv v;

	if (!pcs)
		abort();
	stack_text(p, f, max, pcs, &sb);
	free(pcs);
	if (!sb.b && !(sb.b = strdup("")))
		abort();
	*fr = sb.b;
	v = d_dv_tstr(sb.b);
	v.show = DV_STACK;
	return v;
}

struct dv d_stack_eval(struct ectx *x, const struct node *n,
		       const struct dv *a)
{
	int id = d_funcs[n->sub].id;
	struct sbuf sb = {0};
	struct d_usym s;
	uint64_t pc;
	bool found;

	if (id == F_USTACK || id == F_JSTACK)
		return eval_ustack(x, n, a);
	pc = (uint64_t)a[0].i;
	found = lookup(x, pc, 0, &s);
	fmt_addr(&sb, &s, found, pc,
		 id == F_UMOD	 ? HOW_MOD
		 : id == F_UADDR ? HOW_ADDR
				 : HOW_FUNC,
		 id == F_UADDR);
	return text_value(x, &sb, DV_SYM);
}

/* ucaller: the return address of the probe's function (frame 1). */
struct dv d_stack_ucaller(struct ectx *x)
{
	const struct d_fire *f = x->f;
	uint64_t pcs[2] = {0, 0};

	if (!f->ustack || f->ustack(f->ustack_ctx, pcs, 2) < 2)
		return d_dv_int(0, 8, false);
	return d_dv_int((int64_t)pcs[1], 8, false);
}

/*
 * uregs[R_*]: the firing thread's user registers when the probe fired,
 * which the consumer takes with its stack (struct d_fire's uregs), by
 * Linux DTrace's x86-64 numbers (struct pt_regs' slots), or on aarch64
 * its aarch64 ones (x0-x30 0 to 30, sp 32, pc 33, pstate 34).  What a
 * hit takes is the general registers, the stack pointer and the pc; the
 * others (flags, segments, orig_ax, trap number; pstate) are not
 * recorded, so a constant index of one is a compile error, and a
 * computed one a run-time illegal operation, as an index past the last
 * register is; a firing without registers (BEGIN, END, ERROR: no traced
 * thread) is one too.  d_ureg_dwarf(): register r's index in
 * d_fire's uregs (the DWARF order, bpf/uregs.h's UBPF_R_*), -1 where a
 * hit does not record it, -2 where there is no such register; the
 * kernel reads the same one from a uprobe's pt_regs (the consumer's
 * kplan_expr.c, UBPF_K_UREG).
 */
#if defined(__aarch64__)
#define UREGS_RANGE "R_X0 0 to R_PSTATE", D_R_A64_PSTATE
#define UREGS_KEPT "the general registers, R_SP and R_PC, not R_PSTATE"
int d_ureg_dwarf(int64_t r)
{
	/* d_fire's order: x0-x30, sp 31, pc 32 */
	if (r >= 0 && r <= 30)
		return (int)r;
	if (r == D_R_A64_SP || r == D_R_A64_PC)
		return (int)r - 1;
	return r == D_R_A64_PSTATE ? -1 : -2;
}
#else
#define UREGS_RANGE "R_R15 0 to R_TRAPNO", D_R_TRAPNO
#define UREGS_KEPT                                                         \
	"the general registers, R_PC and R_SP, not the flags, segment "    \
	"registers, R_ERR or R_TRAPNO"
int d_ureg_dwarf(int64_t r)
{
	static const int8_t dw[D_R_NREGS] = {
		[D_R_R15] = 15, [D_R_R14] = 14, [D_R_R13] = 13,
		[D_R_R12] = 12, [D_R_RBP] = 6,	[D_R_RBX] = 3,
		[D_R_R11] = 11, [D_R_R10] = 10, [D_R_R9] = 9,
		[D_R_R8] = 8,	[D_R_RAX] = 0,	[D_R_RCX] = 2,
		[D_R_RDX] = 1,	[D_R_RSI] = 4,	[D_R_RDI] = 5,
		[D_R_ERR] = -1, [D_R_RIP] = 16, [D_R_CS] = -1,
		[D_R_RFL] = -1, [D_R_RSP] = 7,	[D_R_SS] = -1,
		[D_R_DS] = -1,	[D_R_ES] = -1,	[D_R_FS] = -1,
		[D_R_GS] = -1,	[D_R_TRAPNO] = -1,
	};

	return r >= 0 && r < D_R_NREGS ? dw[r] : -2;
}
#endif

void d_uregs_check(struct parser *ps, const struct node *n)
{
	int dw;

	if (n->a->op != N_INT)
		return;
	dw = d_ureg_dwarf(n->a->ival);
	if (dw == -2)
		d_perrt(ps, D_UREGS_IDX, n->a->line, n->a->col,
			"uregs[%lld]: no such register (%s %d)",
			(long long)n->a->ival, UREGS_RANGE);
	if (dw < 0)
		d_perrt(ps, D_IDENT_UNSUPP, n->a->line, n->a->col,
			"uregs[%lld] is not supported: a hit records %s",
			(long long)n->a->ival, UREGS_KEPT);
}

struct dv d_uregs(struct ectx *x, const struct node *n)
{
	struct dv r = d_eval(x, n->a);
	int dw = d_ureg_dwarf(r.i);

	if (dw < 0 || !x->f->uregs)
		d_fault(x, FLT_ILLOP, 0);
	return d_dv_int((int64_t)x->f->uregs[dw], 8, false);
}

/* ustackdepth: the frames of the firing's user stack, as far as the
 * copy of it taken at the hit (ustacksize) unwinds, at most
 * D_USTACKDEPTH_MAX. */
#define D_USTACKDEPTH_MAX 1024
struct dv d_stack_depth(struct ectx *x)
{
	const struct d_fire *f = x->f;
	uint64_t *pcs;

	if (!f->ustack)
		return d_dv_int(0, 4, false);
	pcs = d_ar_alloc(&x->scratch, D_USTACKDEPTH_MAX * sizeof(*pcs));
	return d_dv_int(f->ustack(f->ustack_ctx, pcs, D_USTACKDEPTH_MAX), 4,
			false);
}

/*
 * printf's %A (a user address of the firing process) and %a (a kernel
 * address) of an integer: its name, as uaddr() gives it; a number where
 * no module (%A) or kernel symbol (%a) has it.
 */
struct dv d_stack_addr(struct ectx *x, struct dv v, char conv)
{
	struct sbuf sb = {0};
	struct d_usym s;
	bool found;

	if (v.k != K_INT)
		return v;
	if (conv == 'a') {
		const struct d_fire *f = x->f;

		memset(&s, 0, sizeof(s));
		found = f->usym && f->usym(f->ustack_ctx, f->pid,
					   (uint64_t)v.i, D_USYM_KERNEL, &s);
	} else {
		found = lookup(x, (uint64_t)v.i, 0, &s);
	}
	fmt_addr(&sb, &s, found, (uint64_t)v.i, HOW_ADDR, conv == 'A');
	return text_value(x, &sb, DV_SYM);
}

/* ------------------------------------------------------------------ */
/* Printing */

/* A stack: a newline, then each frame after indent spaces. */
static void print_frames(struct sbuf *sb, const char *s, int indent)
{
	d_sb_puts(sb, "\n");
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *frame = xmalloc(n + 1), *safe;

		memcpy(frame, s, n);
		frame[n] = '\0';
		safe = xmalloc(TXT_SAFE_MAX(n));
		d_sb_printf(sb, "%*s%s\n", indent, "",
			    txt_safe(frame, safe, TXT_SAFE_MAX(n)));
		free(safe);
		free(frame);
		s += n;
		if (*s)
			s++;
	}
}

/* trace() of a stack or a name, and either as an aggregation key. */
void d_stack_print(struct sbuf *sb, const struct d_prog *p,
		   const struct dv *v)
{
	char *fr;

	if (v->show == DV_STACK) {
		print_frames(sb, v->s, p->stackindent);
		return;
	}
	d_sb_printf(sb, "  %-50s", d_out_str(v, true, &fr));
	free(fr);
}

/* printf's %k (and %s) of a stack: indented by a left-aligned width. */
void d_stack_print_k(struct sbuf *sb, const struct pfseg *d, int width,
		     const struct dv *v)
{
	int indent = width < 0 ? -width : (d->flags & PF_LEFT) ? width : 0;

	print_frames(sb, v->k == K_STR ? v->s : "", indent);
}

/*
 * -x oformat=json: a stack as an array of its frames, each made safe
 * (txt_safe()) as in text output before JSON quotes it: a JSON reader
 * that prints a frame gets no control byte of the traced file's names.
 */
void d_stack_json(struct sbuf *sb, const struct dv *v)
{
	const char *s = v->s;

	d_sb_puts(sb, "[");
	for (bool first = true; *s; first = false) {
		size_t n = strcspn(s, "\n"), cut;
		char *f = xmalloc(n + 1), *safe = xmalloc(TXT_SAFE_MAX(n));
		int end = -1;

		memcpy(f, s, n);
		f[n] = '\0';
		txt_safe(f, safe, TXT_SAFE_MAX(n));
		if (!first)
			d_sb_puts(sb, ",");
		/* the marker, last: {"truncated": bytes copied} */
		if (!s[n] && sscanf(f, D_STACK_CUT_FMT "%n", &cut, &end) == 1 &&
		    end == (int)n)
			d_sb_printf(sb, "{\"truncated\":%zu}", cut);
		else
			d_json_str(sb, safe, strlen(safe));
		free(safe);
		free(f);
		s += n;
		if (*s)
			s++;
	}
	d_sb_puts(sb, "]");
}
