// SPDX-License-Identifier: MIT
/*
 * kplan_why.c - why a traced clause runs in user space, from its
 * record, for -v (d_kplan_why(); bpf_agg_cgen.c says it).
 *
 * It decides nothing.  kplan.c and kplan_vars.c decide which clauses
 * the kernel runs (kp_vars_decide(): clauses and variables taken away
 * until nothing changes); once they have, this replays kp_clause_ok()'s
 * tests on the plan as decided (each variable's fate final, as the
 * last pass left it) in kp_clause_ok()'s order, and names the first
 * that fails: the clause fires where user space must run it (from an
 * exit() on); its predicate, or a statement, is
 * not one the kernel computes (kp_ty_at(), kp_stmt_ok(), kplan_out.c's
 * kp_out_ok(), the same calls on a scratch struct kstmt), and where
 * that statement reads or stores a variable the kernel does not keep,
 * which one and why it does not; the values it prints exceed the out
 * area; and, the only test left when all those pass, its plan would
 * differ with its variables set and unset (kplan_vars.c's
 * clause_typed()): the statement that differs and has no typed forms,
 * and why not (kplan_why_form.c's kp_form_why(), replaying form_bits()
 * and form_check(), naming the statement and the variable as this file
 * names them: kp_stmt_name(), kp_var_name(); a variable not kept for
 * an untyped clause's sake names it the same way).  Those are every
 * reason kp_clause_ok() and kp_vars_decide() have, so what -v says is
 * the reason, not a guess.
 * Where a clause fails both for a variable and for something of its
 * own, its own is said (the variable's fate follows from some clause's
 * own reason: the clause sharing self->p with one whose printf() the
 * kernel cannot compute names that one, which names its printf()).
 * A variable left to user space only because a clause touching it is
 * names that clause where its reason is its own or another variable's
 * own ("self->last is also touched by clause 4", tie_clause(): one
 * step, so a ring of ties ends at the general reason), and so does a
 * store reading such a variable; both are ties, said after any reason
 * of a variable's own in the clause (why_weak), so the toolkit's color
 * scripts name the store that keeps them in user space, not the
 * this->delta every clause computes from self->last.
 * Within a statement it names the innermost part the kernel does not
 * compute (culprit()): a function, a builtin, a string comparison, a
 * string key of a form kp_stmt_ok() does not take (a pair of string
 * keys it takes is passed over for the later key or the if that
 * refuses the statement);
 * a program none of whose clauses the kernel runs (exit() it cannot
 * decide, printa() at a traced probe) says so once, before
 * (d_kplan_xwhy(), d_kplan_awhy()), and d_kplan_why() says nothing
 * more then.  A speculating clause has its own (d_kplan_spec_why()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

/* Why uregs[] node x is not computed in the kernel (kp_ty_at(),
 * kp_ureg()) */
static const char *ureg_why(const struct node *x)
{
	return kp_ureg(x) < 0
#if defined(__aarch64__)
		       ? "uregs[] is not computed in the kernel on aarch64"
#else
		       ? "uregs[] is computed in the kernel only with a "
			 "constant index"
#endif
		       : "uregs[] is not computed in the kernel of a clause "
			 "that may fire at a kernel probe (which would leave "
			 "it user space's there) and that touches a self-> "
			 "or global variable or speculates, or that this-> "
			 "variables tie to one that does";
}

/* The first variable v under n for which want(k, v) holds, or -1. */
static int first_var(const struct d_kplan *k, const struct node *n,
		     bool (*want)(const struct d_kplan *, unsigned))
{
	int v;

	if (!n)
		return -1;
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub >= 0 &&
	    (unsigned)n->sub < k->prog->nvars && want(k, (unsigned)n->sub))
		return n->sub;
	if ((v = first_var(k, n->a, want)) >= 0 ||
	    (v = first_var(k, n->b, want)) >= 0 ||
	    (v = first_var(k, n->c, want)) >= 0)
		return v;
	for (unsigned i = 0; i < n->nargs; i++)
		if ((v = first_var(k, n->args[i], want)) >= 0)
			return v;
	return -1;
}

static bool not_kept(const struct d_kplan *k, unsigned v)
{
	return k->vst[v] == KV_NO;
}

/* The first variable under n the kernel does not keep, or -1. */
static int user_var(const struct d_kplan *k, const struct node *n)
{
	return first_var(k, n, not_kept);
}

/* kept with an open bit (its type set not its zero's: kplan_vars.c's
 * var_keep()); an array's element is not such a read */
static bool open_kept(const struct d_kplan *k, unsigned v)
{
	return k->vst[v] == KV_KERN && k->vbit[v] >= 0 &&
	       !kp_arr_scope(&k->prog->vars[v]);
}

/* The first variable under n the kernel keeps with an open bit, or -1. */
static int open_var(const struct d_kplan *k, const struct node *n)
{
	return first_var(k, n, open_kept);
}

static int stmt_user_var(const struct d_kplan *k, const struct stmt *st)
{
	int v = user_var(k, st->e);

	for (unsigned j = 0; v < 0 && j < st->nargs; j++)
		v = user_var(k, st->args[j]);
	for (unsigned j = 0; v < 0 && j < st->nkeys; j++)
		v = user_var(k, st->keys[j]);
	return v;
}

/* Does clause c touch variable v? */
static bool touches(const struct d_prog *p, const struct clause *c, unsigned v,
		    bool *mark)
{
	kp_clause_vars(p, c, mark);
	return mark[v];
}

/* bad_key()'s walk of n: the first key of an element of v (an N_ASSOC
 * node) that the kernel does not compute */
static const struct node *key_walk(const struct d_kplan *k,
				   const struct node *n, unsigned v)
{
	const struct node *r;
	uint8_t sz, sg;

	if (!n)
		return NULL;
	if (n->op == N_ASSOC && (unsigned)n->sub == v)
		for (unsigned i = 0; i < n->nargs; i++)
			if (!kp_akey(k, n, i) &&
			    (n->args[i]->kind == T_STR ||
			     !kp_ty(k, n->args[i], &sz, &sg)))
				return n->args[i];
	if ((r = key_walk(k, n->a, v)) || (r = key_walk(k, n->b, v)) ||
	    (r = key_walk(k, n->c, v)))
		return r;
	for (unsigned i = 0; i < n->nargs; i++)
		if ((r = key_walk(k, n->args[i], v)))
			return r;
	return NULL;
}

/* A key of thread-local array v the kernel does not compute, clause
 * first's before any other clause's, or NULL */
static const struct node *bad_key(const struct d_kplan *k, unsigned v,
				  unsigned first)
{
	const struct d_prog *p = k->prog;
	const struct node *r;

	for (unsigned o = 0; o <= p->nclauses; o++) {
		unsigned ci = o == 0 ? first : o - 1;
		const struct clause *c;

		if (ci >= p->nclauses || (o && ci == first))
			continue;
		c = &p->clauses[ci];

		if ((r = key_walk(k, c->pred, v)))
			return r;
		for (unsigned i = 0; i < c->nflat; i++) {
			const struct stmt *st = c->flat[i];

			if ((r = key_walk(k, st->e, v)))
				return r;
			for (unsigned j = 0; j < st->nargs; j++)
				if ((r = key_walk(k, st->args[j], v)))
					return r;
			for (unsigned j = 0; j < st->nkeys; j++)
				if ((r = key_walk(k, st->keys[j], v)))
					return r;
		}
	}
	return NULL;
}

const char *kp_var_name(const struct d_prog *p, unsigned v, char *buf,
			size_t len)
{
	const struct var *var = &p->vars[v];
	const char *pre = var->scope == SC_SELF || var->scope == SC_SELFASSOC
				  ? "self->"
			  : var->scope == SC_THIS ? "this->"
						  : "";

	snprintf(buf, len, "%s%s%s", pre, var->name,
		 var->scope == SC_SELFASSOC || var->scope == SC_ASSOC ? "[]"
								      : "");
	return buf;
}

/*
 * Set by var_why(): the reason d_kplan_why() is composing is a variable
 * the kernel does not keep (it then prefers a reason of the clause's
 * own: two clauses sharing a variable each name the other otherwise).
 * why_nested: own_fail() is asking, and var_why() only sets why_var.
 * One consumer thread asks, at plan time.
 */
static bool why_var, why_nested;
/* ... and the variable's reason is only that its clauses are user
 * space's, or its own store (d_kplan_why() prefers another) */
static bool why_weak;
/* d_kplan_why()'s last reason's pass (0: the clause's own, 1: a
 * variable's own, 2: a variable's tie), and how deep var_why() is
 * following a tie to another clause (one step: tie_clause()) */
static int why_pass, why_depth;

static bool own_fail(const struct d_kplan *k, unsigned ci);
static const struct node *culprit(const struct d_kplan *k,
				  const struct node *n);
static const char *node_name(const struct d_kplan *k, const struct node *n,
			     char *buf, size_t len);

/* snprintf() of a reason cut at len, as the others are (vsnprintf(): its
 * parts are long enough that a check at compile time would refuse) */
static void put_why(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_why(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* f's variable's types, where it has an open bit: "its stores are
 * unsigned 4-byte values, unset it is a signed 8-byte 0", into buf */
static const char *fwhy_types(const struct d_kplan *k, const struct fwhy *f,
			      uint8_t tz, uint8_t tg, char *buf, size_t len)
{
	bool arr = kp_arr_scope(&k->prog->vars[f->var]);

	snprintf(buf, len,
		 "its stores are %s %u-byte values, %s a signed 8-byte 0",
		 tg ? "signed" : "unsigned", (unsigned)tz,
		 arr ? "an unset element" : "unset it is");
	return buf;
}

/*
 * A clause other than ci touching v that user space runs for a reason
 * d_kplan_why() says of it at pass 0 or 1 (its own, or one of another
 * variable's own: not a tie), or nclauses.  One step deep: the reasons
 * of that clause's variables are not followed further (why_depth), so
 * two clauses tied through each other end at the old reason.
 */
static unsigned tie_clause(const struct d_kplan *k, unsigned ci, unsigned v,
			   bool *mark)
{
	const struct d_prog *p = k->prog;
	bool sv = why_var, sw = why_weak;
	char tmp[600];
	unsigned o;

	if (why_depth)
		return p->nclauses;
	for (o = 0; o < p->nclauses; o++) {
		const char *r;
		int pass;

		if (o == ci || k->ok[o] || k->sout[o] ||
		    kp_dtrace_only(&p->clauses[o]) ||
		    !touches(p, &p->clauses[o], v, mark))
			continue;
		why_depth++;
		r = d_kplan_why(k, o, tmp, sizeof(tmp));
		pass = why_pass;
		why_depth--;
		if (r && pass < 2)
			break;
	}
	why_var = sv;
	why_weak = sw;
	return o;
}

/* Why the kernel does not keep variable v (clause ci's), into buf. */
static void var_why(const struct d_kplan *k, unsigned ci, unsigned v, char *buf,
		    size_t len)
{
	const struct d_prog *p = k->prog;
	const struct var *var = &p->vars[v];
	bool *mark;
	char name[128];
	const struct stmt *bad = NULL;
	const struct node *kn;
	struct fwhy fw;
	uint8_t tz, tg;
	unsigned o;
	int st;

	why_var = true;
	why_weak = false;
	if (why_nested) {
		buf[0] = '\0';
		return;
	}
	mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	kp_var_name(p, v, name, sizeof(name));
	if (var->scope == SC_GLOBAL && k->rconst && k->rconst[v] &&
	    var->kind == T_INT && !var->ptr && !var->psou && !var->sou) {
		/* a run constant the kernel does not read (kplan_fkey.c) */
		if (kp_rcon_type(k, v, &tz, &tg))
			snprintf(buf, len,
				 "%s is a global BEGIN alone stores, and the "
				 "kernel reads %u such at most",
				 name, UBPF_KRCON);
		else
			snprintf(
				buf, len,
				"%s is a global BEGIN alone stores, but not "
				"one type the kernel knows before BEGIN fires "
				"(every store `%s = e`, e an integer it "
				"computes reading no variable, and where that "
				"type is not a signed 8-byte 0's, one store at "
				"the top of a BEGIN clause without a "
				"predicate, after statements that cannot "
				"fault)",
				name, name);
		goto out;
	}
	if (var->scope == SC_GLOBAL && kp_gcnt_why(k, v, buf, len))
		goto out; /* a counter it could be: kplan_gcnt.c */
	if (var->scope == SC_GLOBAL) {
		snprintf(buf, len,
			 "%s is a global scalar: the kernel keeps self-> and "
			 "this-> variables, global arrays and counters",
			 name);
		goto out;
	}
	if (var->scope == SC_ASSOC && kp_garr_why(k, v, buf, len))
		goto out; /* kplan_garr.c */
	if ((var->ptr || var->psou) && !var->sou &&
	    var->scope == SC_THIS) { /* kplan_mem.c's places */
		snprintf(buf, len, "%s %s", name, kp_place_why(k, v));
		goto out;
	}
	if (var->ptr || var->psou || var->sou) {
		snprintf(buf, len,
			 "%s holds a pointer or a struct: the kernel keeps "
			 "integer and string variables only",
			 name);
		goto out;
	}
	if (k->horizon && var->scope != SC_THIS) {
		snprintf(buf, len,
			 "%s is a %s in a program whose tick-N "
			 "clauses exit() or read aggregations: past the "
			 "horizon user space runs every clause, so it keeps "
			 "them",
			 name,
			 var->scope == SC_ASSOC ? "global array"
						: "self-> variable");
		goto out;
	}
	if (k->ival && var->scope == SC_ASSOC) {
		snprintf(buf, len,
			 "%s is a global array in a program whose tick-N "
			 "clauses read aggregations: a probe named like the "
			 "tick would send every hit to user space, where its "
			 "elements could not move",
			 name);
		goto out;
	}
	/* a clause user space runs for a reason of its own */
	for (o = 0; o < p->nclauses; o++)
		if (o != ci && !k->ok[o] && !kp_dtrace_only(&p->clauses[o]) &&
		    touches(p, &p->clauses[o], v, mark) && own_fail(k, o) &&
		    (k->sout[o] || kp_vin_why(k, o, v)))
			break;
	/* (one that only reads a self-> integer has it in its record:
	 * kplan_vin.c's "Shared self-> variables") */
	if (o < p->nclauses && !k->sout[o] && kp_vin_why(k, o, v) == 1) {
		snprintf(buf, len,
			 "%s is also stored by clause %u, which runs in user "
			 "space: the kernel makes such a store too only "
			 "where it tests the predicate, nothing before the "
			 "store may fault or end the clause and it computes "
			 "the value",
			 name, o + 1);
		goto out;
	}
	if (o < p->nclauses && !k->sout[o] && kp_vin_why(k, o, v) == 3) {
		snprintf(buf, len,
			 "%s is also read by clause %u, which runs in user "
			 "space where no generated program's record carries "
			 "the kernel's value (tick-N, BEGIN, END, ERROR, "
			 "past an exit() decided at the hit)",
			 name, o + 1);
		goto out;
	}
	if (o < p->nclauses) {
		snprintf(buf, len,
			 "%s is also %s by clause %u, which runs in user "
			 "space",
			 name, k->sout[o] ? "read" : "touched", o + 1);
		goto out;
	}
	if (var->kind == T_STR && kp_arr_scope(var)) {
		snprintf(buf, len,
			 "%s is a %s array of strings: the kernel keeps self-> "
			 "and this-> strings, not arrays of them",
			 name,
			 var->scope == SC_ASSOC ? "global" : "thread-local");
		goto out;
	}
	if (var->kind == T_STR && k->tnoroom && k->tnoroom[v]) {
		snprintf(buf, len,
			 "%s is a this-> string the kernel would keep, but "
			 "its %d rooms are taken (a format-time one printed "
			 "takes one per copyinstr() of its store)",
			 name, UBPF_KTSTR);
		goto out;
	}
	if (var->kind == T_STR) {
		snprintf(buf, len,
			 "%s is a string the kernel does not keep (only "
			 "copyinstr(), a literal, strjoin()s of them, a "
			 "probe's name, a ?: of copies, literals and names or "
			 "another such string stored, and only printed, "
			 "compared, measured or a key; or a function of "
			 "copyinstr() such as basename(): a this-> one "
			 "stored once in its clause, then only a key or "
			 "printed whole, a self-> one one function wherever "
			 "stored, then only a key or tested against NULL)",
			 name);
		goto out;
	}
	/* its type (kplan_vars.c's kp_stores_type(), var_keep()), each
	 * store typed by kp_ty(), which leaves k as it is: the cast */
	st = kp_stores_type((struct d_kplan *)k, v, false, &tz, &tg, &bad);
	if (st == 0) {
		snprintf(buf, len, "%s: its stores give it different types",
			 name);
		goto out;
	}
	/* a clause typed apart for it set and unset (kplan_vars.c's
	 * clause_typed(); an array's each element read apart) */
	for (o = 0; st > 0 && o < p->nclauses; o++)
		if (k->untyped[o] && touches(p, &p->clauses[o], v, mark))
			break;
	if (st > 0 && o < p->nclauses &&
	    kp_form_why(k, o, (int)v, tz, tg, &fw)) {
		char ty[160];

		put_why(buf, len,
			"%s: clause %u's %s at line %d would compute "
			"differently with %s set and unset, and %s (%s: "
			"declare it, or cast the value to int64_t)",
			name, o + 1, fw.what, fw.line,
			kp_arr_scope(var) ? "an element" : "it", fw.why,
			fwhy_types(k, &fw, tz, tg, ty, sizeof(ty)));
		goto out;
	}
	if (st > 0 && o < p->nclauses) {
		bool arr = kp_arr_scope(var);

		snprintf(buf, len,
			 "%s: clause %u would compute differently with %s "
			 "set and unset: its stores are %s %u-byte values, "
			 "%s a signed 8-byte 0 (declare it, or cast the "
			 "value to int64_t)",
			 name, o + 1, arr ? "an element" : "it",
			 tg ? "signed" : "unsigned", (unsigned)tz,
			 arr ? "an unset element" : "unset it is");
		goto out;
	}
	if (st < 0) {
		/* the store the kernel does not compute: what in it */
		struct node bin, one;
		const struct node *e = kp_stored(bad, &bin, &one);
		const struct node *x = culprit(k, e);
		char what[128];
		int w = x ? user_var(k, x) : -1;
		uint8_t az, ag;

		if (!x && kp_has_args(e) &&
		    kp_ty_at(k, KP_ANYPROBE, e, &az, &ag))
			/* kplan_vars.c types stores by kp_ty(): no args[N] */
			snprintf(buf, len,
				 "%s: its store at line %d reads args[], "
				 "which is typed per probe, and a variable "
				 "the kernel keeps is not (arg0..arg11 are)",
				 name, bad->line);
		else if (w >= 0 && w != (int)v &&
			 (o = tie_clause(k, ci, (unsigned)w, mark)) <
				 p->nclauses)
			snprintf(
				buf, len,
				"%s: its store at line %d reads %s, which "
				"the kernel does not keep: it is also "
				"touched by clause %u, which runs in user "
				"space",
				name, bad->line,
				kp_var_name(p, (unsigned)w, what, sizeof(what)),
				o + 1);
		else if (w >= 0 && w != (int)v)
			snprintf(buf, len,
				 "%s: its store at line %d reads %s, which "
				 "the kernel does not keep",
				 name, bad->line,
				 kp_var_name(p, (unsigned)w, what,
					     sizeof(what)));
		else if (x && x->op == N_UREGS && k->vars)
			snprintf(buf, len, "%s: its store at line %d: %s", name,
				 bad->line, ureg_why(x));
		else if (*node_name(k, x, what, sizeof(what)))
			snprintf(buf, len,
				 "%s: its store at line %d computes %s, "
				 "which the kernel does not",
				 name, bad->line, what);
		else
			snprintf(buf, len,
				 "%s: its store at line %d is not one the "
				 "kernel computes",
				 name, bad->line);
		/* (reading another variable not kept is a tie to it, as
		 * weak as a clause's: a reason of the clause's own, or a
		 * variable's own, is said before it) */
		why_weak = true;
		goto out;
	}
	/* a thread-local array read or stored with a key the kernel does
	 * not compute (a string: probefunc, copyinstr()) */
	if (kp_arr_scope(var) && (kn = bad_key(k, v, ci)) != NULL) {
		char what[128];

		if (!*node_name(k, kn, what, sizeof(what)))
			snprintf(what, sizeof(what), "%s",
				 kn->kind == T_STR ? "a string" : "a value");
		snprintf(buf, len,
			 "%s: its key at line %d is %s, which the kernel does "
			 "not compute (it keys arrays by integers, the "
			 "probe's names and literals alone)",
			 name, kn->line, what);
		goto out;
	}
	/* a clause touching it that user space runs for a reason of its
	 * own or of another variable's own: the tie followed one step */
	if ((o = tie_clause(k, ci, v, mark)) < p->nclauses) {
		snprintf(buf, len,
			 "%s is also touched by clause %u, which runs in "
			 "user space",
			 name, o + 1);
		why_weak = true; /* a tie: the clause's own said first */
		goto out;
	}
	/* a store whose type is one with a variable it reads set and
	 * another unset (kplan_vars.c's ty_all()): no one type for it */
	if (!var->declared &&
	    (var->scope == SC_THIS || var->scope == SC_SELF) &&
	    kp_stores_type((struct d_kplan *)k, v, true, &tz, &tg, &bad) < 0 &&
	    bad) {
		struct node bin, one;
		int w = open_var(k, kp_stored(bad, &bin, &one));

		if (w >= 0) {
			char what[128];

			kp_var_name(p, (unsigned)w, what, sizeof(what));
			snprintf(buf, len,
				 "%s: its store at line %d reads %s, %s "
				 "%u-byte value set and a signed 8-byte 0 "
				 "unset, so the store has no one type (a "
				 "cast, (int64_t)%s, gives it one)",
				 name, bad->line, what,
				 k->vsg[w] ? "a signed" : "an unsigned",
				 (unsigned)k->vsz[w], what);
			goto out;
		}
	}
	why_weak = true;
	snprintf(buf, len,
		 "%s is not one the kernel keeps: each clause touching it "
		 "runs in user space for another variable's sake, or no "
		 "room is left for it",
		 name);
out:
	free(mark);
}

/*
 * The node of n (an integer expression the kernel does not compute)
 * that keeps it out: the deepest whose integer operands the kernel
 * computes (a string operand is not descended into: what the kernel
 * takes of strings is a whole comparison's or key's form), or NULL
 */
/* Does n measure an argument's string in the kernel (kp_arg_strlen())? */
static bool has_arg_strlen(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return false;
	if (kp_arg_strlen(k, n) >= 0 || has_arg_strlen(k, n->a) ||
	    has_arg_strlen(k, n->b) || has_arg_strlen(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (has_arg_strlen(k, n->args[i]))
			return true;
	return false;
}

static const struct node *culprit(const struct d_kplan *k, const struct node *n)
{
	const struct node *sub[3], *r;
	uint8_t sz, sg;

	if (!n || kp_ty_at(k, KP_ANYPROBE, n, &sz, &sg))
		return NULL;
	sub[0] = n->a;
	sub[1] = n->b;
	sub[2] = n->c;
	for (unsigned i = 0; i < 3; i++)
		if (sub[i] && sub[i]->kind != T_STR && (r = culprit(k, sub[i])))
			return r;
	for (unsigned i = 0; i < n->nargs; i++)
		if (n->args[i] && n->args[i]->kind != T_STR &&
		    (r = culprit(k, n->args[i])))
			return r;
	return n;
}

/* What culprit n is, into buf ("" where it has no name to give) */
static const char *node_name(const struct d_kplan *k, const struct node *n,
			     char *buf, size_t len)
{
	buf[0] = '\0';
	if (!n)
		return buf;
	if (n->op == N_FUNC && n->sub >= 0 && (unsigned)n->sub < d_nfuncs)
		snprintf(buf, len, "%s()", d_funcs[n->sub].name);
	else if (n->op == N_ARGS)
		snprintf(buf, len, "args[]");
	else if (n->op == N_UREGS) /* stack.c's: from the record's regs */
		snprintf(buf, len, "uregs[]");
	else if (n->op == N_BUILTIN && n->sub >= 0 &&
		 (unsigned)n->sub < d_nbuiltins) /* indexes the table */
		snprintf(buf, len, "%s", d_builtins[n->sub].name);
	(void)k;
	return buf;
}

/* A nested ?: key's first leaf that is neither a literal nor one of
 * the probe's names (kplan_str.c's kp_lit_key() takes no such tree),
 * else NULL */
static const struct node *odd_leaf(const struct node *n)
{
	const struct node *r;

	if (n->op != N_TERN)
		return n->op == N_STR || ident(n) >= 0 ? NULL : n;
	r = odd_leaf(n->b);
	return r ? r : odd_leaf(n->c);
}

/*
 * Why expression n (what: "its predicate", "its value", "key 2", ...)
 * is not one the kernel computes, into buf: the variable it reads that
 * the kernel does not keep, else the function or builtin that keeps it
 * out, else nothing more
 */
static void expr_why(const struct d_kplan *k, unsigned ci, const struct node *n,
		     char *buf, size_t len)
{
	const struct node *x = culprit(k, n);
	char name[128];
	int v = user_var(k, x ? x : n);

	buf[0] = '\0';
	if (v >= 0) {
		var_why(k, ci, (unsigned)v, buf, len);
		return;
	}
	if (x && x->op == N_BUILTIN && d_builtins[x->sub].id == B_PPID &&
	    k->vars) { /* kp_ty_at(): only without D_KPLAN_PPID */
		snprintf(buf, len,
			 "ppid is not computed in the kernel: its BTF does "
			 "not say where task_struct keeps the parent");
		return;
	}
	if (x && x->op == N_BUILTIN && d_builtins[x->sub].id == B_VTIMESTAMP &&
	    k->vtime && k->novt) { /* kp_ty_at(): kplan_vars.c's novt */
		snprintf(buf, len,
			 "vtimestamp is not read in the kernel of a program "
			 "that keeps self-> variables where a lost clock "
			 "cannot end the clause at the read: a clause that "
			 "speculates, a ?: branch, or more than 16 fault "
			 "sites");
		return;
	}
	if (x && x->op == N_FUNC && d_funcs[x->sub].id == F_PROGENYOF &&
	    x->nargs == 1 && k->vars) { /* kplan.c's kp_prog_arg(),
					 * kp_progx_arg() */
		snprintf(buf, len, "%s",
			 !k->ppid
				 ? "progenyof() is not computed in the kernel: "
				   "its BTF does not say where task_struct "
				   "keeps the parent"
			 : k->noprog || k->noprogx
				 ? "progenyof() is not computed in the kernel "
				   "where it would keep self-> variables: a "
				   "chain it cannot finish could not send the "
				   "hit to user space"
				 : "progenyof() is computed in the kernel only "
				   "of a pid the kernel computes");
		return;
	}
	if (x && x->op == N_TERN && !x->sz &&
	    (kp_has_args(x->b) || kp_has_args(x->c))) { /* kp_ty_at() */
		snprintf(buf, len, "%s",
			 kp_typed_node(k, x)
				 ? "a ?: of args[] and a value of another "
				   "type: run.c types its value as the branch "
				   "taken, which no one type in the kernel is "
				   "(a cast of args[] gives it one)"
				 : "a ?: whose branches args[] may type apart "
				   "(run.c types its value as the branch "
				   "taken) is not computed in the kernel of a "
				   "clause that this-> variables tie to a "
				   "self-> or global variable or a "
				   "speculation: at a probe where they do, the "
				   "clause could not be user space's");
		return;
	}
	if (x && x->op == N_FUNC && d_funcs[x->sub].id == F_STRLEN &&
	    x->nargs == 1 && kp_args_index(x->args[0]) >= 0 && k->vars &&
	    !k->fmode && !k->nostr &&
	    !kp_typed_node(k, x)) { /* kp_arg_strlen() */
		snprintf(buf, len,
			 "strlen() of args[] is not computed in the kernel of "
			 "a clause that this-> variables tie to a self-> or "
			 "global variable or a speculation: at a probe where "
			 "the argument is not a string the clause would be "
			 "user space's, with the this-> variables it touches "
			 "and the clauses touching them");
		return;
	}
	if (x && x->op == N_FUNC && d_funcs[x->sub].id == F_STRLEN &&
	    x->nargs == 1 &&
	    (kp_copyinstr_arg(x->args[0]) >= 0 ||
	     kp_args_index(x->args[0]) >= 0) &&
	    k->vars &&
	    (k->fmode || k->nostr)) { /* kp_arg_strlen(): kp_arg_str()'s */
		snprintf(buf, len,
			 "strlen() of %s is not computed in the kernel of %s",
			 kp_copyinstr_arg(x->args[0]) >= 0 ? "copyinstr()"
							   : "args[]",
			 k->fmode ? "a program that keeps self-> variables: "
				    "a string that cannot be read could not "
				    "send the hit to user space"
				  : "a program with more string comparisons "
				    "than the record has fault bits for");
		return;
	}
	if (x && x->op == N_UREGS && k->vars) { /* kp_ty_at(), kp_ureg() */
		snprintf(buf, len, "%s", ureg_why(x));
		return;
	}
	if (x && x->op == N_BUILTIN && k->vars &&
	    (((d_builtins[x->sub].id == B_EUID ||
	       d_builtins[x->sub].id == B_EGID) &&
	      !k->ecred) ||
	     ((d_builtins[x->sub].id == B_PGID ||
	       d_builtins[x->sub].id == B_SID) &&
	      !k->sess))) { /* kp_ty_at(): without D_KPLAN_ECRED, _SESS */
		snprintf(buf, len,
			 "%s is not computed in the kernel: its BTF does not "
			 "say where %s",
			 d_builtins[x->sub].name,
			 d_builtins[x->sub].id == B_EUID ||
					 d_builtins[x->sub].id == B_EGID
				 ? "task_struct keeps cred, or struct cred "
				   "euid and egid"
				 : "task_struct keeps signal, signal_struct "
				   "pids, struct pid numbers or struct upid "
				   "nr");
		return;
	}
	if (x && x->op == N_FUNC && d_funcs[x->sub].id == F_COPYIN &&
	    k->vars) { /* kplan_mem.c's kp_mem_load() */
		snprintf(buf, len, "%s",
			 k->nomem ? "copyin() is not read in the kernel of a "
				    "program that keeps self-> variables "
				    "where a copy's fault cannot be at its "
				    "statement: a clause that prints, a ?: "
				    "branch, or more than 16 fault sites"
				  : "copyin() is read in the kernel only as "
				    "copyin(argN, C), C a constant from 1 to "
				    "512, its integer members or *p at "
				    "constant offsets within its C bytes");
		return;
	}
	if (*node_name(k, x, name, sizeof(name))) {
		snprintf(buf, len, "%s is not computed in the kernel", name);
		return;
	}
	/* an integer of strings: a comparison the kernel does not make */
	if (x &&
	    ((x->a && x->a->kind == T_STR) || (x->b && x->b->kind == T_STR))) {
		const struct node *sn =
			x->a && x->a->kind == T_STR && x->a->op != N_STR ? x->a
									 : x->b;

		node_name(k, sn, name, sizeof(name));
		snprintf(buf, len,
			 "a string comparison%s%s the kernel does not make",
			 *name ? " of " : "", name);
	}
}

static const char *const stmt_names[] = {
	[S_EXPR] = "expression",
	[S_PRINTF] = "printf()",
	[S_TRACE] = "trace()",
	[S_EXIT] = "exit()",
	[S_PRINTA] = "printa()",
	[S_CLEAR] = "clear()",
	[S_TRUNC] = "trunc()",
	[S_AGG] = "aggregation",
	[S_IF] = "if statement",
	[S_NORMALIZE] = "normalize()",
	[S_DENORMALIZE] = "denormalize()",
	[S_SETOPT] = "setopt()",
	[S_SPECULATE] = "speculate()",
	[S_COMMIT] = "commit()",
	[S_DISCARD] = "discard()",
	[S_SYSTEM] = "system()",
	[S_STOP] = "stop()",
	[S_RAISE] = "raise()",
	[S_TRACEMEM] = "tracemem()",
};

const char *kp_stmt_name(const struct d_kplan *k, const struct stmt *st,
			 char *buf, size_t len)
{
	const struct d_prog *p = k->prog;
	const char *s = st->kind >= 0 &&
					(size_t)st->kind <
						sizeof(stmt_names) /
							sizeof(*stmt_names) &&
					stmt_names[st->kind]
				? stmt_names[st->kind]
				: "statement";
	int v;

	if (st->kind == S_AGG && st->agg < p->naggs) {
		const struct agg *a = &p->aggs[st->agg];

		snprintf(buf, len, "@%s = %s()", a->name,
			 a->fn >= AG_COUNT && a->fn <= AG_LLQUANTIZE
				 ? d_agg_fn_names[a->fn]
				 : "?");
		return buf;
	}
	if (st->kind == S_EXPR && (v = kp_assigned_var(st)) >= 0) {
		char name[128];

		snprintf(buf, len, "store to %s",
			 kp_var_name(p, (unsigned)v, name, sizeof(name)));
		return buf;
	}
	snprintf(buf, len, "%s", s);
	return buf;
}

/*
 * Statement st's string keys other than literals (a literal is a
 * format-time key's 0, kplan_fkey.c) as kaggs_v's rooms: more than
 * three, or a third that is no string variable (kplan.c's
 * vkey_third()), said into buf; false where neither.
 */
static bool rooms_why(const struct stmt *st, char *buf, size_t len)
{
	unsigned n = 0, third = 0;

	for (unsigned j = 0; j < st->nkeys; j++)
		if (st->keys[j]->kind == T_STR && st->keys[j]->op != N_STR &&
		    ++n == 3)
			third = j + 1;
	if (n > 3) {
		snprintf(buf, len,
			 "its %u string keys (the kernel keys by three at "
			 "most, the third a string variable)",
			 n);
		return true;
	}
	if (n == 3 && st->keys[third - 1]->op != N_VAR) {
		snprintf(buf, len,
			 "key %u: a third string key, which the kernel keys "
			 "by only where it is a string variable",
			 third);
		return true;
	}
	return false;
}

/* The keys among st's first n that are copyinstr(argN) (kplan_str.c's
 * kp_arg_str()) */
static unsigned arg_keys(const struct d_kplan *k, const struct stmt *st,
			 unsigned n)
{
	unsigned c = 0;

	for (unsigned i = 0; i < n && i < st->nkeys; i++)
		c += kp_arg_str(k, st->keys[i]) >= 0;
	return c;
}

/*
 * Why statement i of clause ci, which neither kp_stmt_ok() nor
 * kp_out_ok() takes, is not the kernel's, into buf ("" where no more
 * can be said than its kind)
 */
static void stmt_why(const struct d_kplan *k, unsigned ci, unsigned i,
		     char *buf, size_t len)
{
	const struct d_prog *p = k->prog;
	const struct clause *c = &p->clauses[ci];
	const struct stmt *st = c->flat[i]; /* a branch's too */
	const struct stmt *kst;
	const struct agg *a;
	char sub[520];
	struct kstmt pks;
	uint8_t sz, sg, fk;
	unsigned fci;
	bool pair;
	int v;

	buf[0] = '\0';
	if (st->kind == S_EXPR && st->e && st->e->op == N_FUNC &&
	    (d_funcs[st->e->sub].id == F_COPYOUT ||
	     d_funcs[st->e->sub].id == F_COPYOUTSTR)) {
		/* generated programs hold the thread (bpf_cg.c) */
		snprintf(buf, len,
			 "copyout() and copyoutstr() are dtrace's to "
			 "write, when it runs the record (the thread held "
			 "at a USDT probe)");
		return;
	}
	if (st->kind == S_IF) { /* its condition (kplan_vars.c's
				 * kp_flat_ok()) */
		expr_why(k, ci, st->e, buf, len);
		return;
	}
	if (kp_bstr_cut_form(st)) { /* kplan_bstr.c's cut, not taken */
		snprintf(
			buf, len,
			"a copy cut at a length (this->p = (char *)copyin(argA, "
			"argL + 1); this->p[argL] = '\\0') is made in the "
			"kernel only where every other read of it is "
			"stringof(this->p) later in its clause and the clause "
			"makes no other copy; where the kernel keeps self-> "
			"variables, only where its fault can be one of the "
			"record's 16 fault sites: before every printf() and "
			"trace() of its clause, in a clause whose data goes "
			"to no buffer for a commit or discard, and at a "
			"strsize of at most 256 fixed for the run");
		return;
	}
	if (st->kind == S_EXPR && st->e && st->e->op == N_ASSIGN &&
	    (st->e->a->op == N_DEREF || st->e->a->op == N_MEMBER)) {
		/* run.c's str_store() and mem.c's stores */
		snprintf(buf, len, "%s",
			 st->e->a->op == N_DEREF && st->e->a->ival
				 ? "a character stored into a string (s[i] "
				   "= c) is made in the kernel only into a "
				   "this-> string, i and c constants, at the "
				   "clause's top, where its predicate "
				   "strlen(s) > K proves it cannot fault: "
				   "each c not 0 at an i <= K and below "
				   "every NUL stored before it"
				 : "a store through a pointer or into a "
				   "struct (*p = v, p[i] = v, p->m = v, s.m = "
				   "v) is not made in the kernel");
		return;
	}
	if (st->kind == S_EXPR && (v = kp_assigned_var(st)) >= 0 &&
	    k->vst[v] == KV_NO) {
		var_why(k, ci, (unsigned)v, buf, len);
		return;
	}
	if (st->kind == S_PRINTF || st->kind == S_TRACE) {
		if (!kp_strsize_fixed(k)) {
			snprintf(buf, len,
				 "strsize is set by setopt() or out of the "
				 "kernel's range");
			return;
		}
		if (!kp_out_where(k, c)) { /* kplan_out.c says why */
			snprintf(buf, len, "%s", kp_sout_where(k, ci));
			return;
		}
		for (unsigned j = 0; k->novtout && j < st->nargs; j++)
			if (kp_node_vt(st->args[j])) { /* kp_out_ok() */
				snprintf(buf, len,
					 "vtimestamp is printed in the kernel "
					 "only in a program that keeps no "
					 "self-> variable: a lost clock there "
					 "must end the clause");
				return;
			}
		/* an argument's own reason before the first one's that is
		 * a variable's (printf("%d %d", self->n, progenyof(1)):
		 * progenyof()) */
		char vfirst[sizeof(sub) + 32] = "";
		bool vv = false, vw = false;

		for (unsigned j = 0; j < kp_out_nargs(st); j++) {
			bool str;
			const struct node *x = kp_out_arg(st, j, &str);
			struct kp_leaf lv[KP_LEAVES];
			const struct node *w = kp_out_node(st, j);

			/* kplan_out.c's arg_ok() */
			if (kp_out_here(w) || kp_out_svar(k, w) ||
			    kp_out_mstr(k, w))
				continue;
			if (kp_out_stk(w) && !k->fmode)
				continue;
			if (kp_out_stk(w)) {
				snprintf(buf, len,
					 "argument %u: the record's stack "
					 "beside string comparisons whose "
					 "faults the kernel keeps (their bits "
					 "end the record, where the stack "
					 "would go)",
					 j + 1);
				return;
			}
			if (kp_out_sarg(st, j) >= 0) {
				bool sok = kp_out_sarg_ok(k, ci);

				if (sok && (st->kind != S_TRACE ||
					    kp_typed_free(k, ci)))
					continue;
				if (sok) {
					snprintf(buf, len,
						 "argument %u: trace(args[]) "
						 "in a clause tied to a self-> "
						 "or global variable, which "
						 "cannot be user space's at a "
						 "probe where its string form "
						 "does not fit (args[] an "
						 "integer there)",
						 j + 1);
					return;
				}
				snprintf(buf, len,
					 "argument %u: args[] printed as a "
					 "string in a clause that %s, which "
					 "cannot be user space's at a probe "
					 "where args[] is no string",
					 j + 1,
					 d_kplan_specs(p, ci)
						 ? "speculates"
						 : "this-> variables tie to a "
						   "self-> or global variable "
						   "or a speculation");
				return;
			}
			if (kp_out_hitcnt_noastr(k, ci, st, j)) {
				snprintf(buf, len,
					 "argument %u: copyinstr() of an "
					 "argument's string at a uprobe, of a "
					 "length the hit computes, before a "
					 "statement the kernel runs, where the "
					 "kernel keeps self-> variables (no "
					 "copy ahead)",
					 j + 1);
				return;
			}
			if (!kp_out_whole(k, st, j) &&
			    kp_out_ftime(k, st, j, lv) >= 0) {
				/* dtrace computes it from its leaves */
				if (kp_out_ftime_ok(k, ci, st, j))
					continue;
				if (d_kplan_specs(p, ci) && kp_out_names(w)) {
					snprintf(buf, len,
						 "argument %u: a user "
						 "address's name in a "
						 "speculating clause (a held "
						 "record is formatted without "
						 "the process's modules)",
						 j + 1);
					return;
				}
				if (kp_has_psargs(w)) {
					snprintf(
						buf, len, "argument %u: %s",
						j + 1,
						d_kplan_specs(p, ci)
							? "pr_psargs in a "
							  "speculating clause, "
							  "whose faults user "
							  "space reports at "
							  "its place"
							: "pr_psargs, a string "
							  "the record may lack, "
							  "is printed from it "
							  "only where nothing "
							  "the kernel runs "
							  "follows in the "
							  "clause (its fault is "
							  "met as dtrace "
							  "formats, after the "
							  "hit ran the rest)");
					return;
				}
				snprintf(buf, len,
					 "argument %u: a copy run.c may not "
					 "reach (a branch of ?:, right of && "
					 "or ||) before a statement the "
					 "kernel runs",
					 j + 1);
				return;
			}
			if (str && kp_ostr_count(p, w) < 1 &&
			    !kp_ostr_hit(k, w) &&
			    w->nargs == 2) { /* kplan_out.c's arg_ok() */
				int64_t cn;

				snprintf(buf, len, "argument %u: %s", j + 1,
					 d_const_int(w->args[1], &cn)
						 ? "copyinstr() of 0 bytes, "
						   "which reads nothing"
						 : "copyinstr() of a length "
						   "the kernel does not "
						   "compute");
				return;
			}
			if (!str && w->op == N_FUNC &&
			    d_funcs[w->sub].id == F_STRINGOF && w->nargs == 1 &&
			    w->args[0]->ptr && k->vars) {
				/* kplan_mem.c's kp_mem_str() */
				snprintf(buf, len, "argument %u: %s", j + 1,
					 k->mfault && !k->nomem
						 ? "stringof() of a copy is "
						   "printed from the kernel "
						   "only in a program that "
						   "keeps no self-> variables "
						   "or speculations there (a "
						   "copy's fault is at its "
						   "statement beside them, "
						   "and a printed string has "
						   "no fault site)"
					 : k->nomem
						 ? "copyin() is not read in "
						   "the kernel of a program "
						   "that keeps self-> "
						   "variables where a copy's "
						   "fault cannot be at its "
						   "statement: a clause that "
						   "prints, a ?: branch, or "
						   "more than 16 fault sites"
						 : "stringof() of a pointer "
						   "is printed from the kernel "
						   "only where it is a place: "
						   "copyin(argN, C), or a "
						   "this-> pointer into it the "
						   "kernel keeps, at a "
						   "constant offset up to C, "
						   "strsize fixed for the run");
				return;
			}
			if (d_uname_func(w) && w->nargs == 1) {
				/* named as dtrace formats (kplan_str.c's
				 * ftime_func()): its address's reason */
				x = w->args[0];
				str = false;
			} else if ((str && w->nargs != 1) ||
				   (!str && w->kind == T_STR)) {
				/* a variable's: its reason, a tie the later
				 * passes follow to its root (nested, where a
				 * clause is asked whether it fails alone, as
				 * before: it does) */
				int sv = w->op == N_VAR && !why_nested
						 ? user_var(k, w)
						 : -1;

				if (sv >= 0) {
					var_why(k, ci, (unsigned)sv, sub,
						sizeof(sub));
					if (!*vfirst) {
						snprintf(vfirst, sizeof(vfirst),
							 "argument %u: %s",
							 j + 1, sub);
						vv = why_var;
						vw = why_weak;
					}
					continue;
				}
				node_name(k, w, sub, sizeof(sub));
				snprintf(buf, len,
					 "argument %u%s%s, a string the "
					 "kernel does not compute",
					 j + 1, *sub ? ", " : "", sub);
				return;
			}
			if (kp_ty(k, x, &sz, &sg) && !kp_has_str_cmp(k, x))
				continue;
			why_var = why_weak = false;
			if (kp_has_str_cmp(k, x))
				snprintf(sub, sizeof(sub), "%s",
					 has_arg_strlen(k, x)
						 ? "strlen() of an argument's "
						   "string, a read that may "
						   "fault"
						 : "a string comparison");
			else if (kp_has_args(x) &&
				 kp_ty_at(k, KP_ANYPROBE, x, &sz, &sg))
				snprintf(sub, sizeof(sub),
					 "args[] is typed per probe, which "
					 "the kernel prints only in a clause "
					 "that neither touches a self-> or "
					 "global variable or a speculation "
					 "nor shares this-> variables with "
					 "one that does (arg0..arg11 are "
					 "typed alike at every probe)");
			else
				expr_why(k, ci, x, sub, sizeof(sub));
			if (!why_var) {
				snprintf(buf, len, "argument %u%s%s", j + 1,
					 *sub ? ": " : "", sub);
				return;
			}
			if (!*vfirst) {
				snprintf(vfirst, sizeof(vfirst),
					 "argument %u%s%s", j + 1,
					 *sub ? ": " : "", sub);
				vv = why_var;
				vw = why_weak;
			}
		}
		if (*vfirst) {
			snprintf(buf, len, "%s", vfirst);
			why_var = vv;
			why_weak = vw;
			return;
		}
		if ((v = stmt_user_var(k, st)) >= 0)
			var_why(k, ci, (unsigned)v, buf, len);
		return;
	}
	if (st->kind == S_AGG && st->agg < p->naggs) {
		if (st->nkeys > UBPF_KMAXKEYS) {
			snprintf(buf, len, "more than %u keys",
				 (unsigned)UBPF_KMAXKEYS);
			return;
		}
		a = &p->aggs[st->agg];
		if ((a->fn == AG_QUANTIZE && st->nargs != 1) ||
		    (a->fn == AG_LQUANTIZE && st->nargs > 4) ||
		    (a->fn == AG_LLQUANTIZE && st->nargs != 5)) {
			snprintf(buf, len,
				 "%s() with an increment, which the kernel "
				 "does not take",
				 d_agg_fn_names[a->fn]);
			return;
		}
		if ((a->fn == AG_LQUANTIZE && a->lq_levels >= UINT16_MAX) ||
		    (a->fn == AG_LLQUANTIZE && a->llq_nbuckets > UINT16_MAX)) {
			snprintf(buf, len,
				 "more buckets than the kernel's plans count");
			return;
		}
		if (st->nargs &&
		    !kp_ty_at(k, KP_ANYPROBE, st->args[0], &sz, &sg)) {
			expr_why(k, ci, st->args[0], sub, sizeof(sub));
			snprintf(buf, len, "its value%s%s", *sub ? ": " : "",
				 sub);
			return;
		}
		/* where the statement as written is not one kp_stmt_ok()
		 * takes, its copy with the format-time keys' leaves and the
		 * literals' 0s is what the kernel would key by (kplan_fkey.c):
		 * the reason is the copy's */
		kst = kp_stmt_plain(k, st, &pks)
			      ? NULL
			      : kp_fkey_stmt(k, st, &fk, &fci);
		if (!kst)
			kst = st;
		/* a stack or name key's count(), its key a function
		 * (kplan_out.c's kp_out_ok()) */
		if (k->vars && d_stmt_from_record(p, st) &&
		    d_psargs_key_in(st) &&
		    (kp_out_ends(&p->clauses[ci], i) || d_kplan_specs(p, ci))) {
			snprintf(buf, len,
				 "key %d, curpsinfo->pr_psargs, a string the "
				 "record may lack, keys an update dtrace makes "
				 "from it only where nothing the kernel runs "
				 "follows in the clause (its fault is met "
				 "there), and not in a speculating clause",
				 d_psargs_key_at(st) + 1);
			return;
		}
		if (k->vars && d_stmt_from_record(p, st) &&
		    kp_ukey_after_ends(k, ci, i)) {
			int at = d_stmt_ukey(p, st) ? d_stmt_ukey_at(p, st) : 0;

			if (d_stmt_pkey(p, st))
				snprintf(buf, len,
					 "its keys, curpsinfo->pr_psargs among "
					 "them: a statement after it may end "
					 "the clause from the area (a copy's "
					 "fault) before its count is made");
			else
				snprintf(buf, len,
					 "key %d, %s(): a statement after it "
					 "may end the clause from the area (a "
					 "copy's fault) before its count is "
					 "made",
					 at + 1,
					 d_funcs[st->keys[at]->sub].name);
			return;
		}
		for (unsigned j = 0, ns = 0; j < st->nkeys; j++) {
			const struct node *x = kst->keys[j];

			/* a name key's count() (../d/stmt.c's
			 * d_stmt_uname()): its address's reason, as a
			 * printed name's (kplan_out.c's arg_ok()) */
			if (d_stmt_uname(k->prog, st) &&
			    !kp_ty_at(k, KP_ANYPROBE, x->args[0], &sz, &sg)) {
				expr_why(k, ci, x->args[0], sub, sizeof(sub));
				snprintf(buf, len,
					 "key 1, %s() of an address%s%s",
					 d_funcs[x->sub].name, *sub ? ": " : "",
					 sub);
				return;
			}
			if (x->kind == T_STR) {
				/* kp_stmt_ok()'s string key forms */
				if (kp_arg_str(k, x) >= 0 ||
				    kp_smix_key(k, x) >= 0 ||
				    kp_out_svar(k, x) ||
				    (kp_is_comm(x) && kp_strsize_fixed(k)) ||
				    kp_lit_key(k, x) || kp_mix_key(k, x)) {
					if (++ns < 2)
						continue;
					/* copyinstr() keys: three in one
					 * kaggs_s key at most (kplan.c's
					 * str_pair_keys()) */
					if (arg_keys(k, kst, j + 1) > 3 &&
					    kp_arg_str(k, x) >= 0) {
						snprintf(buf, len,
							 "key %u: a fourth "
							 "copyinstr() key (the "
							 "kernel keys by three "
							 "at most)",
							 j + 1);
						return;
					}
					if (arg_keys(k, kst, kst->nkeys) > 3 &&
					    kp_arg_str(k, x) >= 0)
						continue;
					/* a pair kp_stmt_ok() takes (its
					 * vkey2, skey2, a probe's name as
					 * a word, kid; true where its keys
					 * all pass: it fails only at a key
					 * this loop names first, so key j
					 * is one it typed): refused for
					 * another reason, a later key's, an
					 * if's (kp_flat_ok()) or a
					 * variable's */
					pair = kp_stmt_ok(k, kst, &pks);
					if (pks.vkey2 == j + 1 ||
					    pks.vkey3 == j + 1 ||
					    pks.skey2 == j + 1 ||
					    pks.kid[j] >= 0 || pair) {
						if (!kp_nifs(c) ||
						    pks.kid[j] >= 0)
							continue;
						snprintf(buf, len,
							 "key %u: a second "
							 "string key, whose "
							 "pair the kernel "
							 "keeps only in a "
							 "clause without if "
							 "statements",
							 j + 1);
						return;
					}
					snprintf(buf, len,
						 "key %u: a second string key, "
						 "of a pair the kernel does "
						 "not keep",
						 j + 1);
					return;
				}
				if (x->op == N_TERN &&
				    (x->b->op == N_TERN ||
				     x->c->op == N_TERN) &&
				    *node_name(k, odd_leaf(x), sub,
					       sizeof(sub))) {
					snprintf(buf, len,
						 "key %u, a nested ?: with a "
						 "leaf %s, neither a literal "
						 "nor the probe's name",
						 j + 1, sub);
					return;
				}
				node_name(k, x, sub, sizeof(sub));
				if (x->op == N_VAR && x->sub >= 0 &&
				    (unsigned)x->sub < p->nvars && k->tnoroom &&
				    k->tnoroom[x->sub]) {
					char vn[128];

					snprintf(buf, len,
						 "key %u, %s: a this-> string "
						 "the kernel would keep, but "
						 "its %d rooms are taken",
						 j + 1,
						 kp_var_name(p,
							     (unsigned)x->sub,
							     vn, sizeof(vn)),
						 UBPF_KTSTR);
					return;
				}
				/* a string variable refused only as one of
				 * more rooms than kaggs_v's key holds (its
				 * clause user space's, it is not kept, and
				 * so not keyed by) */
				if (x->op == N_VAR && rooms_why(kst, buf, len))
					return;
				snprintf(buf, len,
					 "key %u%s%s, a string the kernel "
					 "does not key by",
					 j + 1, *sub ? ", " : "", sub);
				return;
			}
			if (!kp_typed_node(k, x)) { /* kplan_here.c's */
				snprintf(buf, len,
					 "key %u reads args[], which the "
					 "clause's probes type apart, in a "
					 "clause that this-> variables tie to "
					 "a self-> or global variable or a "
					 "speculation: the key's type is the "
					 "first plan's, and at a probe typing "
					 "it otherwise the clause could not "
					 "be user space's",
					 j + 1);
				return;
			}
			if (kp_ty_at(k, KP_ANYPROBE, x, &sz, &sg))
				continue;
			expr_why(k, ci, x, sub, sizeof(sub));
			snprintf(buf, len, "key %u%s%s", j + 1,
				 *sub ? ": " : "", sub);
			return;
		}
	}
	if ((v = stmt_user_var(k, st)) >= 0) {
		var_why(k, ci, (unsigned)v, buf, len);
		if (buf[0] || why_nested)
			return;
	}
	/* a kept integer variable's store of a value it does not type
	 * (kplan_vars.c types stores by kp_ty(), one type a variable):
	 * this->v = args[N], where nothing above said why */
	if (st->kind == S_EXPR && (v = kp_assigned_var(st)) >= 0 &&
	    st->e->op == N_ASSIGN && st->e->b && st->e->b->kind != T_STR &&
	    !kp_ty(k, st->e->b, &sz, &sg)) {
		expr_why(k, ci, st->e->b, sub, sizeof(sub));
		if (!*sub && kp_has_args(st->e->b))
			snprintf(sub, sizeof(sub),
				 "args[] is typed per probe, and a variable "
				 "the kernel keeps is not (arg0..arg11 are)");
		snprintf(buf, len, "its value%s%s", *sub ? ": " : "", sub);
	}
}

/*
 * Does clause ci fail kp_clause_ok()'s tests for a reason of its own,
 * not a variable's (the first pass of d_kplan_why())?
 */
static bool own_fail(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];
	char tmp[600];
	struct kstmt ks;
	uint8_t sz, sg;
	bool r = false, nested = why_nested, wv = why_var;

	/* an exit() decided at the hit, speculating (its own -v line:
	 * d_kplan_spec_why()) */
	if ((k->kexit && k->xcl[ci]) || d_kplan_specs(k->prog, ci))
		return true;
	why_nested = true;
	if (c->pred && !kp_ty_at(k, KP_ANYPROBE, c->pred, &sz, &sg)) {
		why_var = false;
		expr_why(k, ci, c->pred, tmp, sizeof(tmp));
		r = !why_var;
	}
	if (kp_if_why(k, ci, tmp, sizeof(tmp)))
		r = true;
	for (unsigned i = 0; !r && i < c->nflat; i++) {
		if (kp_flat_ok(k, ci, i, &ks))
			continue;
		why_var = false;
		stmt_why(k, ci, i, tmp, sizeof(tmp));
		r = !why_var;
	}
	why_nested = nested;
	why_var = wv;
	return r;
}

const char *d_kplan_why(const struct d_kplan *k, unsigned ci, char *buf,
			size_t len)
{
	const struct d_prog *p = k->prog;
	const struct clause *c;
	struct kstmt ks;
	struct fwhy fw;
	char what[160], vwhy[600];
	uint8_t sz, sg;

	if (ci >= p->nclauses || !k->vars || k->xwhy || k->awhy || k->ok[ci] ||
	    k->sout[ci])
		return NULL;
	c = &p->clauses[ci];
	if (kp_dtrace_only(c))
		return NULL;
	if (k->kexit && k->xcl[ci]) {
		snprintf(buf, len,
			 "it calls exit(), which dtrace runs from the record "
			 "of the one hit that wins it");
		return buf;
	}
	/* the predicate, then each statement, as kp_clause_ok() asks: the
	 * first that fails for a reason of its own (pass 0), else the
	 * first that fails for a variable with a reason of its own (pass
	 * 1), else the first that fails for a variable at all (pass 2) */
	why_pass = 0;
	for (int pass = 0; pass < 3; pass++) {
		why_pass = pass;
		if (c->pred && !kp_ty_at(k, KP_ANYPROBE, c->pred, &sz, &sg)) {
			why_var = why_weak = false;
			expr_why(k, ci, c->pred, vwhy, sizeof(vwhy));
			if (pass == (why_var ? 1 + why_weak : 0)) {
				snprintf(buf, len,
					 "line %d: its predicate is not one "
					 "the kernel computes%s%s",
					 c->pred->line, *vwhy ? ": " : "",
					 vwhy);
				return buf;
			}
		}
		if (!pass && kp_if_why(k, ci, buf, len)) /* the clause's */
			return buf;
		for (unsigned i = 0; i < c->nflat; i++) { /* branches too */
			const struct stmt *st = c->flat[i];

			if (kp_flat_ok(k, ci, i, &ks))
				continue;
			why_var = why_weak = false;
			stmt_why(k, ci, i, vwhy, sizeof(vwhy));
			if (pass != (why_var ? 1 + why_weak : 0))
				continue;
			if (st->kind == S_IF) {
				snprintf(buf, len,
					 "line %d: its if statement's "
					 "condition is not one the kernel "
					 "computes%s%s",
					 st->line, *vwhy ? ": " : "", vwhy);
				return buf;
			}
			snprintf(buf, len,
				 "line %d: its %s is not one the kernel "
				 "%s%s%s",
				 st->line,
				 kp_stmt_name(k, st, what, sizeof(what)),
				 st->kind == S_PRINTF || st->kind == S_TRACE
					 ? "computes at the hit"
					 : "runs",
				 *vwhy ? ": " : "", vwhy);
			return buf;
		}
	}
	why_pass = 0;
	if (kp_out_clause(k, ci) &&
	    sizeof(struct ubpf_kout) + d_kplan_out_bytes(k, ci) >
		    UBPF_KOUTMAX) {
		snprintf(buf, len,
			 "the values it prints take %zu bytes, more than "
			 "the kernel's out area holds (%u)",
			 sizeof(struct ubpf_kout) + d_kplan_out_bytes(k, ci),
			 (unsigned)UBPF_KOUTMAX);
		return buf;
	}
	if (!kp_clause_room(k, ci)) { /* kplan_mem.c */
		snprintf(buf, len,
			 "its copyin()s read in the kernel pass the %u bytes "
			 "(or %u copies) it has room for",
			 (unsigned)UBPF_KCPYROOM, (unsigned)UBPF_KCPYSITES);
		return buf;
	}
	if (k->untyped[ci] && kp_form_why(k, ci, -1, 0, 0, &fw)) {
		char name[128], ty[160];

		put_why(buf, len,
			"line %d: its %s would compute differently with %s "
			"set and unset, and %s (%s: declare it, or cast "
			"the value to int64_t)",
			fw.line, fw.what,
			kp_var_name(p, (unsigned)fw.var, name, sizeof(name)),
			fw.why,
			fwhy_types(k, &fw, k->vsz[fw.var], k->vsg[fw.var], ty,
				   sizeof(ty)));
		return buf;
	}
	snprintf(buf, len,
		 "its plan would differ with its variables set and unset "
		 "(an unset variable reads as a signed 0, a stored "
		 "timestamp is unsigned)");
	return buf;
}

const char *d_kplan_awhy(const struct d_kplan *k, unsigned *clause, char *buf,
			 size_t len)
{
	const struct stmt *st = k->awhyst;
	char what[160];
	bool agg;

	if (!k->awhy || k->awhyc >= k->prog->nclauses || !st)
		return NULL;
	if (clause)
		*clause = k->awhyc;
	agg = st->kind == S_PRINTA || st->kind == S_CLEAR ||
	      st->kind == S_TRUNC || st->kind == S_NORMALIZE ||
	      st->kind == S_DENORMALIZE;
	snprintf(buf, len, "line %d: its %s %s%s", st->line,
		 kp_stmt_name(k, st, what, sizeof(what)),
		 agg ? "reads or resets aggregations while the kernel counts "
		       "them (only a tick-N clause's may)"
		     : "is an action the kernel's plans are not ordered "
		       "with",
		 st->kind != S_RAISE && st->kind != S_STOP ? ""
		 : !kp_raise_sig(st, NULL)
			 ? " (the kernel sends a constant signal, 1 to 64, "
			   "at the hit)"
			 : " (the kernel sends a constant signal at the hit "
			   "of a probe whose program is generated, not "
			   "tick-N's)");
	return buf;
}
