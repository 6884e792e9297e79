// SPDX-License-Identifier: MIT
/*
 * stmt.c - the statements of the D language (dtrace-G/d/) and d_run(),
 * which runs one clause for one firing: its predicate and statements in
 * DTrace's order, each expression evaluated by run.c's d_eval().
 *
 * Output.  A clause's output is built in a buffer and written only when
 * the clause completes, so a run-time error discards it, as DTrace's
 * kernel discards the record of a faulting ECB.  Unless quiet, a
 * committed record is "%3d %6d %32s " (CPU, probe ID, FUNCTION:NAME), the
 * traced data, and "\n"; the "CPU ID FUNCTION:NAME" header goes before the
 * first record (dtrace.c's chew()/chewrec()).  As in DTrace's kernel, a
 * clause whose statements record nothing (only assignments and
 * aggregations) produces no record and so no default line; a clause with
 * no statements at all does.  if/else runs one of its bodies; a firing
 * whose ifs skipped every recording statement leaves no record either,
 * as a false predicate (illumos runs each body as a predicated clause).
 * trace() prints by record size as dt_consume_cpu()'s record switch
 * does.
 *
 * Strings from the traced process (copyinstr(), string args[N],
 * execname: struct dv's tn) are printed made safe (sdk/text.h) by
 * printf()'s %s, trace() and the aggregation printing; in JSON output the
 * whole record is escaped as a JSON string instead.
 *
 * Where a record goes: to the output (the header before the first one),
 * or under speculate() to a speculative buffer (spec.c) that commit()
 * writes out after the committing record.  -F (flowindent) replaces the
 * default line with DTrace's indented flow column (flow_line()), and
 * -x oformat=json a whole record with one JSON object per line
 * (json_record()).  system() (with -w) runs its command when the record
 * is written, at the place in it where it was called; stop() and raise()
 * signal the firing process or thread at once and record nothing.
 *
 * Run-time errors (invalid address, division by zero) unwind with
 * longjmp to d_run() (d_fault()), which prints DTrace's "error on
 * enabled probe ID" line (dt_handle.c's dt_handle_err, dt_error.c's
 * fault strings); everything a clause allocates while it runs lives in a
 * per-run arena freed there.  A clause a generated BPF program ran at
 * the probe reports its fault through d_run_fault(), the same line, and
 * one whose printf() and trace() values it computed there prints them
 * through d_run_pre(): the same output path, the values given (an if
 * whose branches print takes its condition's value from them too, the
 * one the program computed, and runs the branch the program took:
 * d_stmts_prints(); the kernel ran every other statement but an
 * update keyed by the user stack (beside literals and what the record
 * carries: pid, execname...), d_stmt_ukey(),
 * made here as the interpreter makes it, from the record's stack, or by
 * a user address's name, d_stmt_uname(), the name given as a printed
 * one is, or by ucaller's name, d_stmt_ucall(), named from the
 * record's stack; a value they aggregate is given too
 * (d_agg_update()); an argument
 * that is a string function of the values it computed, basename() of
 * a copy, is evaluated before by d_eval_pinned(), those values given
 * as pins).  A
 * speculating clause whose values the program computed at the hit
 * (../consumer/kplan_spec.c's "Speculations") runs through d_run_spec():
 * its predicate and speculate() here, in time order with the clauses
 * that keep the buffers, its printf() and trace() from the values given
 * (one that faulted at the hit faults here, at its argument, only if
 * the clause gets there); where the program computed the predicate at
 * the hit too, its truth is given and the predicate not evaluated.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "d_impl.h"

/* A fault as DTrace numbers it (DTRACEFLT_*, ERROR's arg4). */
static int fault_code(int flt)
{
	switch (flt) {
	case FLT_BADADDR:
		return D_DTRACEFLT_BADADDR;
	case FLT_DIVZERO:
		return D_DTRACEFLT_DIVZERO;
	case FLT_NOSCRATCH:
		return D_DTRACEFLT_NOSCRATCH;
	default:
		return D_DTRACEFLT_ILLOP;
	}
}

static const char *fault_str(int flt)
{
	switch (flt) {
	case FLT_BADADDR:
		return "invalid address";
	case FLT_DIVZERO:
		return "divide-by-zero";
	case FLT_NOSCRATCH:
		return "out of scratch space";
	default:
		return "illegal operation";
	}
}

/* ------------------------------------------------------------------ */
/* Statements */

/*
 * Whether integer expression n is the script's alone (literals and
 * operators on them): printf's %c prints such a byte as it is, and any
 * other (an argument, memory, a variable) made safe, as a string from a
 * traced process is (issue 28, part 3).
 */
static bool script_int(const struct node *n)
{
	switch (n->op) {
	case N_INT:
		return true;
	case N_UN:
	case N_CAST:
		return script_int(n->a);
	case N_BIN:
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		return script_int(n->a) && script_int(n->b);
	case N_TERN:
		return script_int(n->a) && script_int(n->b) &&
		       script_int(n->c);
	default:
		return false;
	}
}

/* printf() and system(): the text goes to sb; tainted strings are made
 * safe (struct dv) when esc. */
static void do_printf(struct ectx *x, const struct stmt *st, struct sbuf *sb,
		      bool esc)
{
	const struct pfmt *pf = st->pf;
	struct dv *vals = NULL;
	unsigned s, j = 0, i;

	if (st->nargs)
		vals = d_ar_alloc(&x->scratch, st->nargs * sizeof(*vals));
	for (i = 0; i < st->nargs; i++) {
		x->action = st->action + (int)i;
		if (x->prespec && (int)x->ipre == x->pfault)
			d_fault(x, FLT_BADADDR, x->pfaddr); /* the hit's */
		vals[i] = x->pre ? x->pre[x->ipre++] : d_eval(x, st->args[i]);
		if (vals[i].k == K_INT)
			vals[i].tn = !script_int(st->args[i]);
		if (vals[i].k == K_STR && !vals[i].show &&
		    strlen(vals[i].s) >= x->p->strsize)
			vals[i].s = d_ar_strndup(&x->scratch, vals[i].s,
						 x->p->strsize - 1);
	}
	for (s = 0; s < pf->nseg; s++) {
		const struct pfseg *d = &pf->seg[s];
		int width = d->width, prec = d->prec;

		d_sb_add(sb, d->prefix, d->preflen);
		if (!d->conv)
			continue;
		if (d->conv == '%') {
			d_sb_puts(sb, "%");
			continue;
		}
		if ((d->flags & PF_DYNW) && j < st->nargs)
			width = (int)(int32_t)vals[j++].i;
		if ((d->flags & PF_DYNP) && j < st->nargs)
			prec = (int)(int32_t)vals[j++].i;
		if (j >= st->nargs)
			break;
		if (d->conv == 'a' || d->conv == 'A') /* names (stack.c) */
			vals[j] = d_stack_addr(x, vals[j], d->conv);
		d_pf_one(sb, d, width, prec, &vals[j++], esc);
	}
}

/* trace(): dt_consume_cpu()'s record formats by size. */
static void do_trace(struct ectx *x, const struct dv *v)
{
	struct sbuf *sb = &x->out;
	bool q = x->p->quiet;
	long long i;
	int w;

	if (v->k == K_STR && v->show) { /* a stack or a name: stack.c */
		d_stack_print(sb, x->p, v);
		return;
	}
	if (v->k == K_STR) {
		/* made safe in JSON output too, which then quotes it */
		char *fr;
		const char *s = d_out_str(v, true, &fr);

		if (q)
			d_sb_printf(sb, "%s", s);
		else
			d_sb_printf(sb, "  %-33s", s);
		free(fr);
		return;
	}
	i = d_out_int(v, &w);
	if (q)
		d_sb_printf(sb, "%lld", i);
	else
		d_sb_printf(sb, " %*lld", w, i);
}

/*
 * setopt(name [, value]) while tracing: only the options libdtrace lets
 * change at run time; a refusal is reported as DTrace reports it (on the
 * error stream, the clause going on).
 */
static void do_setopt(struct ectx *x, const struct stmt *st)
{
	static const char *const runtime[] = {
		"aggsortkey", "aggsortkeypos", "aggsortpos", "aggsortrev",
		"quiet", "rawbytes", "switchrate", "aggrate", "strsize",
		"aggpack", "agghist", "aggzoom", NULL,
	};
	const char *name = st->args[0]->sval;
	/* one argument: libdtrace passes "1" */
	const char *value = st->nargs > 1 ? st->args[1]->sval : "1";
	const struct d_probe *pr = x->f->probe;
	char msg[200];
	unsigned i;
	int rc = -1;

	for (i = 0; runtime[i]; i++)
		if (strcmp(runtime[i], name) == 0)
			break;
	if (runtime[i]) {
		/* an empty value unsets (-x's empty value does not) */
		bool flag = strcmp(name, "aggsortkey") == 0 ||
			    strcmp(name, "aggsortrev") == 0 ||
			    strcmp(name, "quiet") == 0 ||
			    strcmp(name, "aggpack") == 0 ||
			    strcmp(name, "agghist") == 0 ||
			    strcmp(name, "aggzoom") == 0;

		rc = d_set_option(x->p, name, flag && !*value ? "unset" : value,
				  msg, sizeof(msg));
		if (rc < 0)
			snprintf(msg, sizeof(msg), "Invalid value for "
						   "specified option");
	} else if (!d_known_option(name)) {
		snprintf(msg, sizeof(msg), "Invalid option name");
	} else {
		snprintf(msg, sizeof(msg),
			 "Operation illegal when tracing is active");
	}
	if (rc == 0 || !x->err)
		return;
	fprintf(x->err,
		"dtrace: error on enabled probe ID %u (ID %u: %s:%s:%s:%s): "
		"couldn't set option \"%s\" to \"%s\": %s\n",
		x->f->epid, pr ? pr->id : 0, pr && pr->prov ? pr->prov : "",
		pr && pr->mod ? pr->mod : "", pr && pr->func ? pr->func : "",
		pr && pr->name ? pr->name : "", name, value, msg);
}

/* system(): run cmd when the record is written up to here. */
static void add_cmd(struct ectx *x, const char *cmd, size_t len)
{
	char **nc = d_ar_alloc(&x->scratch, (x->ncmds + 1) * sizeof(*nc));
	size_t *na = d_ar_alloc(&x->scratch, (x->ncmds + 1) * sizeof(*na));

	if (x->ncmds) {
		memcpy(nc, x->cmds, x->ncmds * sizeof(*nc));
		memcpy(na, x->cmdat, x->ncmds * sizeof(*na));
	}
	nc[x->ncmds] = d_ar_strndup(&x->scratch, cmd, len);
	na[x->ncmds] = x->out.len;
	x->cmds = nc;
	x->cmdat = na;
	x->ncmds++;
}

bool d_stmts_prints(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i].kind == S_PRINTF || v[i].kind == S_TRACE ||
		    d_stmts_prints(v[i].body, v[i].nbody) ||
		    d_stmts_prints(v[i].els, v[i].nels))
			return true;
	return false;
}

/* count(), or a function of one value (no bucket bounds, no increment:
 * d_agg_update() takes the value given, where the kernel computed it) */
static bool one_value_fn(const struct d_prog *p, const struct stmt *st)
{
	int fn = p->aggs[st->agg].fn;

	return fn == AG_COUNT ? !st->nargs
			      : st->nargs == 1 &&
					(fn == AG_SUM || fn == AG_AVG ||
					 fn == AG_MIN || fn == AG_MAX ||
					 fn == AG_QUANTIZE || fn == AG_STDDEV);
}

/*
 * A key beside a stack key that d_run_pre() evaluates from the record
 * as the interpreter does: a literal, or what every record of a probe
 * whose clause reads it carries (the firing's pid, tid, cpu, its comm
 * for execname, its real ids for uid and gid; the probe's names).
 */
static bool record_key(const struct node *n)
{
	if (n->op == N_STR || n->op == N_INT)
		return true;
	if (n->op != N_BUILTIN)
		return false;
	switch (d_builtins[n->sub].id) {
	case B_PID:
	case B_TID:
	case B_CPU:
	case B_EXECNAME:
	case B_UID:
	case B_GID:
	case B_PROBEPROV:
	case B_PROBEMOD:
	case B_PROBEFUNC:
	case B_PROBENAME:
		return true;
	}
	return false;
}

static bool psargs_key(const struct node *n)
{
	return n->op == N_BUILTIN && d_builtins[n->sub].id == B_PSARGS;
}

int d_psargs_key_at(const struct stmt *st)
{
	for (unsigned i = 0; i < st->nkeys; i++)
		if (psargs_key(st->keys[i]))
			return (int)i;
	return -1;
}

bool d_psargs_key_in(const struct stmt *st)
{
	return d_psargs_key_at(st) >= 0;
}

/* ... or curpsinfo->pr_psargs, the argument area's bytes the record of
 * a probe whose clause reads it carries (a record without them faults
 * there, as in a clause user space runs) */
static bool record_key_ps(const struct node *n)
{
	return record_key(n) || psargs_key(n);
}

int d_stmt_ukey_at(const struct d_prog *p, const struct stmt *st)
{
	int at = -1;

	if (st->kind != S_AGG || !st->nkeys || !one_value_fn(p, st))
		return -1;
	for (unsigned i = 0; i < st->nkeys; i++) {
		const struct node *n = st->keys[i];

		if (n->op == N_FUNC && at < 0 &&
		    (d_funcs[n->sub].id == F_USTACK ||
		     d_funcs[n->sub].id == F_JSTACK))
			at = (int)i;
		else if (!record_key_ps(n))
			return -1;
	}
	return at;
}

bool d_stmt_pkey(const struct d_prog *p, const struct stmt *st)
{
	if (st->kind != S_AGG || !st->nkeys || !one_value_fn(p, st) ||
	    !d_psargs_key_in(st))
		return false;
	for (unsigned i = 0; i < st->nkeys; i++)
		if (!record_key_ps(st->keys[i]))
			return false;
	return true;
}

bool d_stack_key_in(const struct stmt *st)
{
	for (unsigned i = 0; i < st->nkeys; i++)
		if (st->keys[i]->op == N_FUNC &&
		    (d_funcs[st->keys[i]->sub].id == F_USTACK ||
		     d_funcs[st->keys[i]->sub].id == F_JSTACK))
			return true;
	return false;
}

bool d_stmt_ukey(const struct d_prog *p, const struct stmt *st)
{
	return d_stmt_ukey_at(p, st) >= 0;
}

bool d_ucall_key(const struct node *n)
{
	const struct node *a;

	if (!d_uname_func(n) || n->nargs != 1)
		return false;
	a = n->args[0];
	return a->op == N_BUILTIN && d_builtins[a->sub].id == B_UCALLER;
}

/* A name key's update (one_value_fn()). */
static bool uname_fn(const struct d_prog *p, const struct stmt *st)
{
	return st->kind == S_AGG && st->nkeys == 1 &&
	       d_uname_func(st->keys[0]) && st->keys[0]->nargs == 1 &&
	       one_value_fn(p, st);
}

bool d_stmt_uname(const struct d_prog *p, const struct stmt *st)
{
	return uname_fn(p, st) && !d_ucall_key(st->keys[0]);
}

bool d_stmt_ucall(const struct d_prog *p, const struct stmt *st)
{
	return uname_fn(p, st) && d_ucall_key(st->keys[0]);
}

bool d_stmt_from_record(const struct d_prog *p, const struct stmt *st)
{
	return d_stmt_ukey(p, st) || d_stmt_uname(p, st) ||
	       d_stmt_ucall(p, st) || d_stmt_pkey(p, st);
}

static void exec_stmt(struct ectx *x, const struct stmt *st);

/* The branch of if st that its condition's truth t takes. */
static void exec_branch(struct ectx *x, const struct stmt *st, bool t)
{
	const struct stmt *v = t ? st->body : st->els;
	unsigned n = t ? st->nbody : st->nels;

	for (unsigned i = 0; i < n; i++)
		exec_stmt(x, &v[i]);
}

static void exec_stmt(struct ectx *x, const struct stmt *st)
{
	struct d_prog *p = x->p;
	struct dv v;

	x->action = st->action;
	if (x->pre && !x->prespec && st->kind == S_IF &&
	    (d_stmts_prints(st->body, st->nbody) ||
	     d_stmts_prints(st->els, st->nels))) {
		/* d_run_pre(): the kernel ran the if, and its condition's
		 * value is the next one given: the branch it took */
		v = x->pre[x->ipre++];
		exec_branch(x, st, d_truth(&v));
		return;
	}
	if (x->pre && !x->prespec && st->kind != S_PRINTF &&
	    st->kind != S_TRACE && !d_stmt_from_record(p, st)) {
		/* d_run_pre(), d_run_kspec(): the kernel ran it (a stack
		 * or name key's count() is made here, from the record, the
		 * name's key given); a step it
		 * reached records still, which d_run_kspec() says from
		 * its tags (one in an if is not met here) */
		return;
	}
	if (st->kind != S_EXPR && st->kind != S_AGG && st->kind != S_IF &&
	    st->kind != S_STOP && st->kind != S_RAISE)
		x->recorded = true;
	switch (st->kind) {
	case S_IF:
		v = d_eval(x, st->e);
		exec_branch(x, st, d_truth(&v));
		break;
	case S_EXPR:
		(void)d_eval(x, st->e);
		break;
	case S_TRACEMEM:
		d_tracemem(x, st);
		break;
	case S_TRACE:
		if (x->prespec && (int)x->ipre == x->pfault)
			d_fault(x, FLT_BADADDR, x->pfaddr); /* the hit's */
		v = x->pre ? x->pre[x->ipre++] : d_eval(x, st->e);
		if (v.k == K_STR && !v.show && strlen(v.s) >= p->strsize)
			v.s = d_ar_strndup(&x->scratch, v.s, p->strsize - 1);
		do_trace(x, &v);
		break;
	case S_EXIT:
		v = d_eval(x, st->e);
		x->exited = true;
		x->status = (int)(int32_t)v.i;
		break;
	case S_PRINTF:
		/* made safe in JSON output too, which then quotes it */
		do_printf(x, st, &x->out, true);
		break;
	case S_SYSTEM: {
		struct sbuf cmd = { 0 };

		do_printf(x, st, &cmd, false); /* a command, not output */
		add_cmd(x, cmd.b ? cmd.b : "", cmd.len);
		free(cmd.b);
		break;
	}
	case S_STOP:
		/* the firing process, never dtrace itself (BEGIN, END) */
		if (x->f->pid > 0 && x->f->pid != getpid())
			(void)kill(x->f->pid, SIGSTOP);
		break;
	case S_RAISE:
		v = d_eval(x, st->e);
		if (v.i <= 0 || v.i >= NSIG)
			d_fault(x, FLT_ILLOP, 0);
		if (x->f->pid > 0 && x->f->tid > 0)
			(void)syscall(SYS_tgkill, x->f->pid, x->f->tid,
				      (int)v.i);
		break;
	case S_PRINTA:
		d_printa(p, st->aggv, st->naggv, st->pf,
			 p->json && !st->pf ? &x->after : &x->out);
		break;
	case S_NORMALIZE:
		x->action = st->action + 1;
		v = d_eval(x, st->e);
		if (v.i <= 0)
			d_fault(x, FLT_ILLOP, 0);
		p->aggs[st->agg].normal = (uint64_t)v.i;
		break;
	case S_DENORMALIZE:
		p->aggs[st->agg].normal = 1;
		break;
	case S_SETOPT:
		do_setopt(x, st);
		break;
	case S_SPECULATE:
		v = d_eval(x, st->e);
		x->speculating = true;
		x->spec = d_spec_get(x, v.i);
		break;
	case S_COMMIT:
	case S_DISCARD: {
		struct dspec *sp;

		v = d_eval(x, st->e);
		sp = d_spec_get(x, v.i);
		if (!sp)
			break;
		/* both close the buffer at the statement, as DTrace's
		 * (its buffer inactive again where only one CPU had
		 * records): a discard() or commit() after finds nothing,
		 * a speculation() after may take it again; a commit()'s
		 * records are written at the clause's end, after its own
		 * record */
		if (st->kind == S_COMMIT) {
			struct sbuf *nv = d_ar_alloc(
				&x->scratch, (x->ncommits + 1) * sizeof(*nv));

			if (x->ncommits)
				memcpy(nv, x->commits,
				       x->ncommits * sizeof(*nv));
			nv[x->ncommits] = (struct sbuf){ 0 };
			nv[x->ncommits].b = d_ar_strndup(
				&x->scratch, sp->buf.b ? sp->buf.b : "",
				sp->buf.len);
			nv[x->ncommits++].len = sp->buf.len;
			x->commits = nv;
		}
		d_spec_free(sp);
		break;
	}
	case S_CLEAR:
		d_agg_clear(&p->aggs[st->agg]);
		break;
	case S_TRUNC:
		v = d_dv_int(0, 8, true);
		if (st->e) {
			x->action = st->action + 1;
			v = d_eval(x, st->e);
		}
		d_agg_trunc(p, &p->aggs[st->agg], v.i);
		break;
	case S_AGG:
		d_agg_update(x, &p->aggs[st->agg], st);
		break;
	}
}

/*
 * Records to the output; the "CPU ID FUNCTION:NAME" header before the
 * first one (also when it arrives by commit()).  A committed buffer may
 * hold no record (every speculated clause dropped): no header then.
 */
void d_emit(struct d_prog *p, FILE *out, const char *b, size_t len)
{
	if (!len)
		return; /* quiet and silent, or nothing committed */
	if (!p->heading) {
		p->heading = true;
		/* dtrace.c's chew(): the flow header even when quiet */
		if (p->json)
			;
		else if (p->flowindent)
			fprintf(out, "%3s %-41s\n", "CPU", "FUNCTION");
		else if (!p->quiet)
			fprintf(out, "%3s %6s %32s\n", "CPU", "ID",
				"FUNCTION:NAME");
	}
	fwrite(b, 1, len, out);
}

/* A record with system() commands: each runs where it was called, after
 * what comes before it is written out (its output goes to dtrace's). */
static void emit_cmds(struct ectx *x, FILE *out, const char *b, size_t len,
		      size_t lead)
{
	size_t done = 0;

	for (unsigned i = 0; i < x->ncmds; i++) {
		size_t at = lead + x->cmdat[i];

		d_emit(x->p, out, b + done, at - done);
		done = at;
		fflush(out);
		if (system(x->cmds[i]) == -1 && x->err)
			fprintf(x->err, "dtrace: failed to run \"%s\": %s\n",
				x->cmds[i], strerror(errno));
	}
	d_emit(x->p, out, b + done, len - done);
}

/*
 * -F (flowindent), as dtrace(1) and libdtrace indent: a probe named
 * "entry" or "...-entry" is an entry (" -> ", syscall " => "), one named
 * "return" or "...-return" a return (" <- ", " <= "), anything else "| "
 * with FUNCTION:NAME; entries indent what follows by two, returns
 * unindent themselves.  Several clauses of one firing indent once: an
 * entry whose last record was the same probe from another clause is not
 * an entry, and a return is one only for the last clause that may match
 * it (libdtrace looks at the next record in the buffer; we look at the
 * descriptions of the clauses after this one).
 */
static int flow_kind(const char *n)
{
	size_t len = strlen(n);

	if ((len == 5 || (len > 5 && n[len - 6] == '-')) &&
	    strcmp(n + len - 5, "entry") == 0)
		return 1;
	if ((len == 6 || (len > 6 && n[len - 7] == '-')) &&
	    strcmp(n + len - 6, "return") == 0)
		return 2;
	return 0;
}

/* A description (fields right-aligned at its spec) matches probe pr. */
static bool desc_matches(const char *desc, int spec,
			 const struct d_probe *pr)
{
	const char *f[4] = { pr->prov, pr->mod, pr->func, pr->name };
	char buf[512], *parts[4], *q;
	int n = 0, last = spec >= 1 && spec <= 3 ? spec - 1 : 3, first;

	snprintf(buf, sizeof(buf), "%s", desc);
	for (q = buf;; q++) {
		char *colon = strchr(q, ':');

		if (n == 4)
			return false;
		parts[n++] = q;
		if (!colon)
			break;
		*colon = '\0';
		q = colon;
	}
	first = last - (n - 1);
	if (first < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (*parts[i] && fnmatch(parts[i], f[first + i] ? f[first + i]
								: "", 0) != 0)
			return false;
	return true;
}

static bool later_clause_matches(const struct d_prog *p, unsigned clause,
				 const struct d_probe *pr)
{
	for (unsigned i = clause + 1; i < p->nclauses; i++)
		for (unsigned j = 0; j < p->clauses[i].ndescs; j++)
			if (p->clauses[i].records &&
			    desc_matches(p->clauses[i].descs[j],
					 p->clauses[i].spec, pr))
				return true;
	return false;
}

static void flow_line(struct ectx *x, struct sbuf *rec)
{
	struct d_prog *p = x->p;
	const struct d_probe *pr = x->f->probe;
	int clause = (int)(x->c - p->clauses);
	const char *func = pr && pr->func ? pr->func : "";
	const char *n = pr && pr->name ? pr->name : "";
	bool sys = pr && pr->prov && strcmp(pr->prov, "syscall") == 0;
	int flow = flow_kind(n);
	const char *prefix;
	char name[1024];

	if (flow == 1 && p->flow_last_probe == pr &&
	    p->flow_last_clause != clause)
		flow = 0;
	if (flow == 2 && pr && later_clause_matches(p, (unsigned)clause, pr))
		flow = 0;
	prefix = flow == 1 ? (sys ? " => " : " -> ")
		 : flow == 2 ? (sys ? " <= " : " <- ")
			     : "| ";
	if (flow == 2 && p->flow_depth > 0)
		p->flow_depth -= 2;
	if (flow)
		snprintf(name, sizeof(name), "%*s%s%s", p->flow_depth, "",
			 prefix, func);
	else
		snprintf(name, sizeof(name), "%*s%s%s:%s", p->flow_depth, "",
			 prefix, func, n);
	d_sb_printf(rec, "%3d %-41s ", x->f->cpu, name);
	if (flow == 1)
		p->flow_depth += 2;
	p->flow_last_probe = pr;
	p->flow_last_clause = clause;
}

/*
 * -x oformat=json: a record is one line, {"cpu":N,"id":ID,"provider":
 * ...,"module":...,"function":...,"name":...,"output":"..."} with what
 * the clause printed as a JSON string (d_json_str(): no control bytes,
 * no ill-formed UTF-8).
 */
static void json_record(struct ectx *x, struct sbuf *rec)
{
	const struct d_probe *pr = x->f->probe;
	const char *f[4] = { "", "", "", "" };
	static const char *const names[4] = { "provider", "module",
					       "function", "name" };

	if (pr) {
		f[0] = pr->prov ? pr->prov : "";
		f[1] = pr->mod ? pr->mod : "";
		f[2] = pr->func ? pr->func : "";
		f[3] = pr->name ? pr->name : "";
	}
	d_sb_printf(rec, "{\"cpu\":%d,\"id\":%u", x->f->cpu,
		    pr ? pr->id : 0);
	for (unsigned i = 0; i < 4; i++) {
		d_sb_printf(rec, ",\"%s\":", names[i]);
		d_json_str(rec, f[i], strlen(f[i]));
	}
	d_sb_puts(rec, ",\"output\":");
	d_json_str(rec, x->out.b ? x->out.b : "", x->out.len);
	d_sb_puts(rec, "}\n");
}

/*
 * The clause's record, when a recording statement ran (an if may skip
 * them all, as a false predicate does) or the clause has none, then what
 * its commit()s committed.  Also on a fault after a commit(): the
 * commit() wrote the record and the buffer at its statement, as
 * DTrace's, so they stay printed before the fault is reported (a
 * clause with commit() records nothing else: spec_rules()).
 */
static void write_record(struct ectx *x, FILE *out)
{
	struct d_prog *p = x->p;
	const struct clause *c = x->c;
	const struct d_probe *pr = x->f->probe;
	unsigned i;

	if (c->records && (x->recorded || !c->nstmts)) {
		struct sbuf rec = { 0 };
		size_t lead;

		if (p->json) {
			json_record(x, &rec);
			/* commands run after the record */
			for (i = 0; i < x->ncmds; i++)
				x->cmdat[i] = 0;
			lead = rec.len;
		} else {
			if (p->flowindent) {
				flow_line(x, &rec);
			} else if (!p->quiet) {
				char name[512];

				snprintf(name, sizeof(name), "%s:%s",
					 pr && pr->func ? pr->func : "",
					 pr && pr->name ? pr->name : "");
				d_sb_printf(&rec, "%3d %6d %32s ", x->f->cpu,
					    pr ? (int)pr->id : 0, name);
			}
			lead = rec.len;
			if (x->out.len)
				d_sb_add(&rec, x->out.b, x->out.len);
			if (!p->quiet)
				d_sb_puts(&rec, "\n");
		}
		/* JSON: printa()'s rows, records of their own */
		if (x->after.len)
			d_sb_add(&rec, x->after.b, x->after.len);
		if (x->kcap)
			d_sb_add(x->kcap, rec.b ? rec.b : "", rec.len);
		else if (x->speculating)
			d_spec_record(p, x->spec, rec.b ? rec.b : "", rec.len);
		else
			emit_cmds(x, out, rec.b ? rec.b : "", rec.len, lead);
		free(rec.b);
	}
	/* what commit() committed follows the committing record */
	for (i = 0; i < x->ncommits; i++)
		d_emit(p, out, x->commits[i].b, x->commits[i].len);
}

/* The clause proper; a fault longjmps out to d_run(). */
static void run_clause(struct ectx *x, FILE *out)
{
	struct d_prog *p = x->p;
	const struct clause *c = x->c;
	unsigned i;

	if (c->pred && x->ptruth >= 0 && (x->prespec || !x->pre)) {
		/* d_run_spec(), d_run_truth(): the program's value */
		if (!x->ptruth)
			return;
	} else if (c->pred && (!x->pre || x->prespec)) { /* d_run_pre(): held */
		struct dv v;

		x->action = 0;
		v = d_eval(x, c->pred);
		if (!d_truth(&v))
			return;
	}
	for (i = 0; i < c->nstmts; i++)
		exec_stmt(x, &c->stmts[i]);
	write_record(x, out);
	if (x->exited) {
		p->exit_status = x->status;
		x->rv |= D_RUN_EXIT;
	}
}

static bool is_error_probe(const struct d_probe *pr)
{
	return pr && pr->prov && pr->name && strcmp(pr->prov, "dtrace") == 0 &&
	       strcmp(pr->name, "ERROR") == 0;
}

/*
 * A fault: DTrace's message on err, and what dtrace:::ERROR fires with
 * kept for d_error_enter().  A fault in an ERROR clause fires nothing
 * (no recursion) and prints no message: it is counted, and reported as
 * DTrace reports it ("1 error in ERROR probe enabling").
 */
static int report_fault(const struct ectx *x, FILE *err)
{
	const struct d_probe *pr = x->f->probe;
	struct d_prog *p = x->p;
	char details[40] = "", where[32];

	if (is_error_probe(pr)) {
		p->dblerrors++;
		return D_RUN_ERROR;
	}
	p->errors++;
	p->flt_epid = x->f->epid;
	p->flt_action = x->action;
	p->flt_type = fault_code(x->fault);
	p->flt_addr = x->fault == FLT_BADADDR ? x->faddr : 0;

	if (x->fault == FLT_BADADDR)
		snprintf(details, sizeof(details), " (0x%llx)",
			 (unsigned long long)x->faddr);
	if (x->action == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%d", x->action);
	if (err)
		fprintf(err,
			"dtrace: error on enabled probe ID %u (ID %u: "
			"%s:%s:%s:%s): %s%s in %s\n",
			x->f->epid, pr ? pr->id : 0,
			pr && pr->prov ? pr->prov : "",
			pr && pr->mod ? pr->mod : "",
			pr && pr->func ? pr->func : "",
			pr && pr->name ? pr->name : "",
			fault_str(x->fault), details, where);
	return D_RUN_ERROR | D_RUN_FAULT;
}

/* The faulting firing's clause-local state, while ERROR's clauses run. */
struct d_errsave {
	struct dv *cval;
	char *tok_str;
	size_t tok_pos;
	bool tok_tn;
	const struct d_probe *last_probe;
	uint64_t last_ts;
	pid_t last_tid;
	int last_cpu, last_clause;
};

void d_error_enter(struct d_prog *p, struct d_fire *f)
{
	struct d_errsave *sv;

	if (!p || p->errsave)
		return;
	sv = xcalloc(1, sizeof(*sv));
	sv->cval = p->cval;
	sv->tok_str = p->tok_str;
	sv->tok_pos = p->tok_pos;
	sv->tok_tn = p->tok_tn;
	sv->last_probe = p->last_probe;
	sv->last_ts = p->last_ts;
	sv->last_tid = p->last_tid;
	sv->last_cpu = p->last_cpu;
	sv->last_clause = p->last_clause;
	p->errsave = sv;
	/* integers: d_run() sets them up at ERROR's first clause */
	p->cval = xcalloc(p->nval, sizeof(*p->cval));
	p->tok_str = NULL;
	p->tok_pos = 0;
	p->last_probe = NULL;
	/* DTrace's arguments: arg0 is its state (none here), arg3 the DIF
	 * offset, which an evaluator of trees does not have: -1, "not
	 * applicable" */
	memset(f->arg, 0, sizeof(f->arg));
	f->arg[1] = p->flt_epid;
	f->arg[2] = (uint64_t)(int64_t)p->flt_action;
	f->arg[3] = (uint64_t)-1;
	f->arg[4] = (uint64_t)(int64_t)p->flt_type;
	f->arg[5] = p->flt_addr;
	f->strflt = f->strcut = 0;
	for (unsigned i = 0; i < D_MAXARGS; i++) {
		f->str[i] = NULL;
		f->strlen[i] = 0;
		f->mem[i] = NULL;
		f->memlen[i] = 0;
	}
}

void d_error_leave(struct d_prog *p)
{
	struct d_errsave *sv = p ? p->errsave : NULL;

	if (!sv)
		return;
	for (unsigned i = 0; i < p->nval; i++)
		if (p->cval[i].k == K_STR)
			free((char *)p->cval[i].s);
	free(p->cval);
	free(p->tok_str);
	p->cval = sv->cval;
	p->tok_str = sv->tok_str;
	p->tok_pos = sv->tok_pos;
	p->tok_tn = sv->tok_tn;
	p->last_probe = sv->last_probe;
	p->last_ts = sv->last_ts;
	p->last_tid = sv->last_tid;
	p->last_cpu = sv->last_cpu;
	p->last_clause = sv->last_clause;
	p->errsave = NULL;
	free(sv);
}

int d_run(struct d_prog *p, unsigned clause, const struct d_fire *f,
	  FILE *out, FILE *err)
{
	return d_run_pre(p, clause, f, NULL, out, err);
}

static int run_pre(struct d_prog *p, unsigned clause, const struct d_fire *f,
		   const struct dv *pre, bool spec, int fault_at,
		   uint64_t fault_addr, int truth, FILE *out, FILE *err);

int d_run_pre(struct d_prog *p, unsigned clause, const struct d_fire *f,
	      const struct dv *pre, FILE *out, FILE *err)
{
	return run_pre(p, clause, f, pre, false, -1, 0, -1, out, err);
}

int d_run_spec(struct d_prog *p, unsigned clause, const struct d_fire *f,
	       const struct dv *pre, int fault_at, uint64_t fault_addr,
	       int truth, FILE *out, FILE *err)
{
	return run_pre(p, clause, f, pre, true, fault_at, fault_addr, truth,
		       out, err);
}

int d_run_truth(struct d_prog *p, unsigned clause, const struct d_fire *f,
		FILE *out, FILE *err)
{
	return run_pre(p, clause, f, NULL, false, -1, 0, 1, out, err);
}

static int run_pre(struct d_prog *p, unsigned clause, const struct d_fire *f,
		   const struct dv *pre, bool spec, int fault_at,
		   uint64_t fault_addr, int truth, FILE *out, FILE *err)
{
	const struct d_probe *pr = f->probe;
	struct ectx *x;
	unsigned i;
	int rv;

	if (!p || clause >= p->nclauses)
		return 0;
	/*
	 * this-> variables last for one firing, across its clauses: a new
	 * firing is a different probe, time, thread or CPU, or a clause
	 * that does not follow the last one run.
	 */
	if (pr != p->last_probe || f->timestamp != p->last_ts ||
	    f->tid != p->last_tid || f->cpu != p->last_cpu ||
	    (int)clause <= p->last_clause) {
		for (i = 0; i < p->nval; i++) {
			if (p->cval[i].k == K_STR)
				free((char *)p->cval[i].s);
			p->cval[i] = p->vars[i].kind == T_STR
					     ? d_dv_str(xstrdup(""))
					     : d_var_zero(&p->vars[i]);
		}
		free(p->tok_str);
		p->tok_str = NULL;
		p->tok_pos = 0;
		p->last_probe = pr;
		p->last_ts = f->timestamp;
		p->last_tid = f->tid;
		p->last_cpu = f->cpu;
	}
	p->last_clause = (int)clause;
	x = d_ectx_new(p, &p->clauses[clause], f);
	x->err = err;
	x->pre = pre;
	x->prespec = spec;
	x->pfault = fault_at;
	x->pfaddr = fault_addr;
	x->ptruth = truth;
	if (setjmp(x->jb) == 0) {
		run_clause(x, out);
	} else {
		if (x->ncommits) /* a fault after a commit() */
			write_record(x, out);
		x->rv = report_fault(x, err);
	}
	d_spec_tick(p, f->timestamp, err);
	rv = x->rv;
	d_ectx_free(x);
	return rv;
}

/* d_pred_false()'s test: n reads only what a record carries, its leaves
 * record_key()'s or the firing's arguments */
static bool pred_of_firing(const struct node *n)
{
	if (!n)
		return true;
	switch (n->op) {
	case N_ARGN:
		return true;
	case N_UN:
		if (n->sub == '&')
			return false;
		/* fall through */
	case N_BIN:
	case N_LAND:
	case N_LOR:
	case N_LXOR:
	case N_TERN:
	case N_CAST:
		return n->nargs == 0 && pred_of_firing(n->a) &&
		       pred_of_firing(n->b) && pred_of_firing(n->c);
	default:
		return record_key(n);
	}
}

bool d_pred_false(struct d_prog *p, unsigned clause, const struct d_fire *f)
{
	const struct clause *c;
	struct ectx *x;
	volatile bool held = true;

	if (!p || clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	if (!c->pred || !pred_of_firing(c->pred))
		return false;
	x = d_ectx_new(p, c, f);
	x->err = NULL;
	x->pfault = -1;
	x->ptruth = -1;
	if (setjmp(x->jb) == 0) { /* (a fault: the clause's, not false) */
		struct dv v;

		x->action = 0;
		v = d_eval(x, c->pred);
		held = d_truth(&v);
	}
	d_ectx_free(x);
	return !held;
}

/*
 * A speculating clause the kernel ran (../consumer/kplan_spec.c's
 * d_kplan_kspec()): its predicate held and its steps stepped the
 * buffers' words at the hit, so only its printf() and trace() are run
 * here, from pre, as d_run_pre() runs them.  stepped: a speculate(),
 * commit() or discard() was reached (its tag's act), which records
 * still, as run_clause() has it (speculate() alone: the default line,
 * the JSON record, or an empty record under -q; commit()'s only
 * record), wherever it is (the pre mode does not walk an if that does
 * not print).  With out NULL, the record of a reached speculate() is
 * kept in *rec (malloc()ed, never NULL when true), not written: the
 * held generations print it at the commit() (spec.c's d_kspec_hold()).
 * Else it is the clause's own record (no speculate() reached: a take,
 * a close, doc/DESIGN.md's "Own records"), written to out at the
 * hit's place, the header before the first (d_emit(); no system() in
 * a kernel clause).  It reads no variable (its values are given) and
 * may run ahead of its hit's place (records.c's pass), so it leaves
 * the firing's this-> variables, the last firing's marks and the
 * once-a-second report alone.  false: a fault (none in its class:
 * every value, strings included, is given, read at the hit; a copy's
 * fault is the area's, found by the hold mode's walk before this
 * runs).
 */
bool d_run_kspec(struct d_prog *p, unsigned clause, const struct d_fire *f,
		 const struct dv *pre, bool stepped, FILE *out, char **rec,
		 size_t *rlen)
{
	struct sbuf sb = { 0 };
	struct ectx *x;
	bool ok;

	*rec = NULL;
	*rlen = 0;
	if (!p || clause >= p->nclauses)
		return false;
	x = d_ectx_new(p, &p->clauses[clause], f);
	x->err = stderr;
	x->pre = pre;
	x->prespec = false; /* the predicate and the steps: the kernel's */
	x->pfault = -1;
	x->ptruth = -1;
	x->recorded = stepped;
	x->kcap = out ? NULL : &sb;
	if (setjmp(x->jb) == 0) {
		run_clause(x, out);
		ok = true;
	} else {
		ok = false;
	}
	d_ectx_free(x);
	if (!ok || out) {
		free(sb.b);
		return ok;
	}
	*rlen = sb.len;
	*rec = sb.b ? sb.b : xcalloc(1, 1);
	return true;
}

int d_eval_pinned(struct d_prog *p, unsigned clause, const struct d_fire *f,
		  const struct node *n, const struct d_pin *pins,
		  unsigned npins, struct dv *v, char **str, uint64_t *faddr)
{
	struct ectx *x;
	int rv;

	*str = NULL;
	x = d_ectx_new(p, &p->clauses[clause], f);
	x->pins = pins;
	x->npins = npins;
	if (setjmp(x->jb) == 0) {
		*v = d_eval(x, n);
		if (v->k == K_STR) { /* out of the arena */
			*str = xstrdup(v->s ? v->s : "");
			v->s = *str;
		}
	} else {
		/* a pin's fault, or pr_psargs's: no other format-time node
		 * faults (kplan_str.c's kp_out_leaves()) */
		*faddr = x->faddr;
		x->rv = x->fault == FLT_ILLOP ? 2 : 1;
	}
	rv = x->rv;
	d_ectx_free(x);
	return rv;
}

int d_run_fault(struct d_prog *p, unsigned clause, const struct d_fire *f,
		int action, enum d_run_flt kind, uint64_t addr, FILE *err)
{
	struct ectx x = { 0 };
	int rv;

	if (!p || clause >= p->nclauses)
		return 0;
	x.p = p;
	x.c = &p->clauses[clause];
	x.f = f;
	x.err = err;
	x.action = action;
	x.fault = kind == D_RUNF_ILLOP	     ? FLT_ILLOP
		  : kind == D_RUNF_NOSCRATCH ? FLT_NOSCRATCH
					     : FLT_BADADDR;
	x.faddr = kind == D_RUNF_ADDR ? addr : 0;
	/* the byte below a copy of no bytes: d_copyin()'s scratch of one
	 * byte for it, as the clause run would have taken it first */
	if (kind == D_RUNF_BELOW)
		x.faddr = (uint64_t)(uintptr_t)d_ar_alloc(&x.scratch, 1) - 1;
	rv = report_fault(&x, err);
	d_ar_free(&x.scratch);
	return rv;
}

void d_thread_exit(struct d_prog *p, pid_t tid)
{
	size_t i;

	if (!p || !p->dyn.nb)
		return;
	for (i = 0; i < p->dyn.nb; i++) {
		struct hent *e = p->dyn.b[i], *n;

		for (; e; e = n) {
			unsigned sc;
			int32_t t;

			n = e->next;
			if (e->klen < sizeof(sc) + sizeof(t))
				continue;
			memcpy(&sc, e->key, sizeof(sc));
			memcpy(&t, e->key + sizeof(sc), sizeof(t));
			if ((sc == SC_SELF || sc == SC_SELFASSOC) &&
			    t == (int32_t)tid)
				d_ht_remove(&p->dyn, e);
		}
	}
}

size_t d_self_live(const struct d_prog *p)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->dyn.nb; i++)
		for (const struct hent *e = p->dyn.b[i]; e; e = e->next) {
			unsigned sc;

			if (e->klen < sizeof(sc) + sizeof(int32_t))
				continue;
			memcpy(&sc, e->key, sizeof(sc));
			n += sc == SC_SELF || sc == SC_SELFASSOC;
		}
	return n;
}
