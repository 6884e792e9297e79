// SPDX-License-Identifier: MIT
/*
 * kplan_str.c - the strings a plan compares, measures, stores and keys
 * by (D_KPLAN_VARS: the generated programs only, cgen_sarg.c's and
 * cgen_svar.c's):
 * copyinstr(argN) and an args[N] string, self-> and this-> string
 * variables, execname and literals; the tests kplan.c (kp_stmt_ok(),
 * kp_ty_at()), kplan_vars.c, kplan_svar.c and kplan_emit.c make of
 * them; and the printf() and trace() arguments dtrace computes from
 * values the plan computes at the hit (kp_out_leaves(), at the end).
 *
 * The generated programs (kplan.c's "Variables") also
 * compare copyinstr(argN) with a string literal (kp_str_cmp(): == !=,
 * and < <= > >= on the string cut to strsize - 1, seq_ord()) and
 * key an aggregation by one copyinstr(argN) (kp_arg_str(): UBPF_K_SKEY,
 * the entries in kaggs_s, merged with the string cut to strsize - 1 as
 * copyinstr() cuts it), also through a this-> string that is
 * copyinstr(argN) wherever it is read (KV_SARG, sarg_var()), or
 * args[N] (N a constant) at a probe declaring that argument a string
 * (run.c reads both with d_arg_str(); at a probe where args[N] is not
 * a string kplan_emit.c leaves the clause to user space), and measure
 * one by strlen(copyinstr(argN)), or by strlen(args[N]) where args[N]
 * is that string (kp_arg_strlen(): UBPF_K_SLEN, the
 * length of the copy cgen_sarg.c's seq_read() makes for SEQ and SKEY,
 * cut to strsize - 1; a copy too full to tell its length sends the hit
 * to user space as a fault does), but not
 * in a program whose kernel keeps self->
 * variables: a string that faults, or a key longer than kaggs_s keeps,
 * sends the whole hit to user space (cgen.c), where such a clause
 * cannot run.  Such a program compares strings still, but its faults
 * are the hit's (fmode, fsite_assign()): each comparison is a fault
 * site the kernel flags in the record, and kplan_merge.c's d_kplan_fault()
 * tells the consumer the clause, action and address to report, as run.c would
 * have.  Since a comparison may now fault, one on the right of && or
 * || is skipped as run.c skips it (UBPF_K_SC); one in a branch of ?:
 * is not taken (the kernel computes both branches).
 * A self-> or this-> string variable the kernel keeps as its bytes
 * (KV_STR, kplan_svar.c's str_var()) may be compared with a literal
 * too (kp_svar_cmp(): UBPF_K_VSEQ, the bytes its store copied at the
 * hit; a this-> one at a probe whose plan never stores it is unset
 * there, "", cgen_svar.c's svar_at()) and measured (strlen(),
 * kp_svar_strlen(): UBPF_K_VSLEN), with another such one, self-> or
 * this->, by == != < <= > >= (kp_svar_vv(): UBPF_K_VVEQ, two self->
 * ones' equality; else UBPF_K_VVCMP, strcmp()'s order); none reads
 * user memory, and none can fault.  With copyinstr(argN) or args[N]
 * by == != < <= > >= (kp_svar_acmp(): UBPF_K_VACMP; the order's as
 * VVCMP's, both zero-padded), which reads the
 * argument's string at the hit as SEQ does, d_read_user_str()'s
 * strsize - 1 bytes, and so is a fault site where the kernel keeps
 * self-> variables (and else a string that cannot be read sends the
 * hit to user space), counted with SEQ's by kp_has_str_cmp().  Such a
 * variable, self-> or
 * this->, may be stored from a literal (kp_str_lit_store():
 * UBPF_K_SLIT) or from another the kernel keeps (UBPF_K_SMOV, its
 * bytes copied whole), which cannot fault either, and key an
 * aggregation, whole, one per statement or two beside each other or
 * beside execname or a literal (a pair, below) (kp_stmt_ok()'s ks->svar:
 * UBPF_K_VKEY, the entries in kaggs_v, whose keys hold all the
 * strsize - 1 bytes its store kept, so none is cut; merged as kaggs_s's).
 *
 * probeprov, probemod, probefunc and probename compared with a literal
 * or with each other (kp_ident_cmp()) are folded into each probe's plan,
 * a constant there (kp_ident_fold()): run.c compares the probe's own
 * strings, which the plan's probe has.
 *
 * execname and literals (D_KPLAN_VARS).  execname is the hit's thread's
 * comm, which user space takes from the record (the program's
 * bpf_get_current_comm() at the hit: 16 bytes, read up to the NUL), so
 * the kernel reading it in the plan reads the same bytes, and a thread
 * that renames itself (prctl(PR_SET_NAME), exec) between hits is counted
 * under the name of each hit either way.  It may be an aggregation's
 * string key, one per statement as the others (kp_stmt_ok()'s ks->sx,
 * KSX_COMM: UBPF_K_CKEY, the entries in kaggs_v, the comm cut to
 * strsize - 1 bytes by the helper's size, as agg.c cuts a key; kaggs_v's
 * room, strsize - 1 bytes where a string variable keys it, is else only
 * as long as the longest execname or literal key: kplan_merge.c's
 * kp_vkey_imm(), 16 bytes for @[execname]), and so may a literal or a ?: of two
 * literals (or probeprov, probemod, probefunc, probename: the probe's, written
 * into its plan as a literal) whose condition the kernel computes, or a
 * nested ?: of them, any depth (kp_lit_key(), KSX_LIT:
 * UBPF_K_LKEY, the literal's bytes cut to strsize - 1 in the plan, the
 * condition's truth SEL's, a nested tree's leaf numbered by SELs of
 * constants (UBPF_KF_TAB); merged untainted, as run.c has the script's
 * strings), strsize fixed for the run (no setopt(): kp_strsize_fixed()),
 * and so may a ?: whose branches are execname and literals
 * (kp_mix_key(), KSX_MIX: UBPF_K_MKEY, the branch the condition chose
 * written as CKEY or LKEY writes it, and the key's own word k[n], 0 for
 * a string key, 1 where execname was taken: run.c's execname is
 * tainted, a literal not, and the merge gives each kernel entry its
 * taint, which d_key_add() ors into the entry of those bytes as it
 * does for the hits in user space).  It may be compared with a literal
 * (kp_comm_cmp(): UBPF_K_CCMP, == != < <= > >=, strcmp()'s order,
 * either way round: neither is cut, as run.c's binop() cuts neither,
 * and 16 bytes of both decide) or with a KV_STR variable (UBPF_K_CVCMP;
 * kplan_svar.c lets such a variable be read so), and measured
 * (kp_comm_strlen(): UBPF_K_CLEN, whole, as run.c's strlen() measures
 * it).  None of these reads user memory or can fault.  execname
 * compared with copyinstr(argN)
 * (kp_comm_arg(): UBPF_K_CACMP, the same six operators either way
 * round) reads the argument's string as SEQ reads it, cut to
 * strsize - 1 bytes as copyinstr() cuts it, against the comm whole (run.c's
 * binop() cuts neither operand: the cut is copyinstr()'s), their first
 * 16 bytes NUL-padded deciding as for a literal.  Its copy may fault:
 * in a program without fault sites a string that cannot be read sends
 * the whole hit to user space before the plan (cgen_sarg.c's
 * seq_read()), which reports the fault as before; in fault mode (a
 * program keeping self->: kp_has_str_cmp() counts CACMP a string read,
 * so such a program takes it) the comparison is a fault site as
 * VACMP's is (kplan_vars.c's fsite_walk(); its operator in the op's
 * step, its site in agg), its clause ending there.  (Until 2026-12-07
 * it was refused in fault mode, so such a clause was user space's;
 * before that day's fix, kp_has_str_cmp() did not count it and the
 * generator refused the plan.)
 * execname beside one copyinstr(argN) key, any order, is one kaggs_s key, execname's 16 bytes in two of its words
 * (kplan.c's str_pair_keys(): UBPF_K_CWKEY, merged by kplan_merge.c's
 * d_kplan_merge()), and so are two copyinstr() keys, both strings in its s, the
 * second after the first's NUL (UBPF_K_SKEY2), or three, the third after
 * the second's, and so are execname and two or three copyinstr(); strings
 * past its UBPF_KSKEY bytes are kaggs_l's (cgen_agg.c's "Long string
 * keys").  Two keys of kaggs_v's kinds (execname, a
 * literal or ?: of them, a KV_STR variable) are one kaggs_v key, their
 * rooms side by side in its s (kplan.c's vkey_pair(): where both fit
 * UBPF_KVROOMMAX bytes; the second's instruction offset by its sz,
 * cgen_svar.c's vkey_at(); split by kplan_merge.c's kp_vkey_pair()),
 * and so are a KV_STR variable and copyinstr(argN), either way round
 * (UBPF_K_AKEY: the argument's room strsize - 1 bytes of seq_read()'s
 * copy, cut as copyinstr() cuts it; where the kernel keeps self->
 * variables, a fault site, and so any copyinstr(argN) key there:
 * kp_arg_room()).
 * What stays user space's: execname beside another string key in one
 * statement but those, other three string keys, a pair of a kaggs_v
 * kind but a variable and a kaggs_s one, a
 * ?: key whose branches are not
 * execname and literals nor copyinstr(argN) and a literal or another
 * copyinstr(argM) (kp_smix_key(): UBPF_K_SMKEY, in kaggs_s, tagged as
 * MKEY's; not where the kernel has fault sites, since the arguments'
 * strings are read whichever branch is taken and only a fault that
 * sends the hit to user space is exact; copyinstr() beside execname;
 * probeprov, probemod, probefunc and probename are literals there,
 * each probe's own name in its plan: kp_lit_key()), a literal key over
 * UBPF_KSTRMAX bytes (after the cut),
 * execname compared with copyinstr() in a program whose kernel keeps
 * self-> variables, and every such clause where the kernel runs no plan
 * (DTRACE_CGEN=0's generic program, which knows none of these
 * instructions).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "text.h"

static int sarg_of(const struct d_kplan *k, const struct node *n);

/* NULL (the constant 0) compared with a string: the literal "", as
 * run.c's binop() compares them (DTrace's dtrace_strncmp()) */
static const struct node *null_lit(const struct node *l)
{
	static char none[1];
	static const struct node empty = { .op = N_STR,
					   .kind = T_STR,
					   .sval = none };
	int64_t z;

	return l->op != N_STR && d_const_int(l, &z) && z == 0 ? &empty : l;
}

/*
 * copyinstr(argN) == "string" (or !=, either way round; copyinstr(argN)
 * or a this-> variable that is it, sarg_of()), which generated
 * programs compare at the probe (UBPF_K_SEQ): the argument's N and
 * the literal (NULL's "": null_lit()) into *arg, *lit.  The string
 * copied at the hit is what user space would read (d_arg_str()), cut
 * to strsize - 1 bytes, which
 * changes no comparison with a literal shorter than that
 * (kp_seq_prefix(); a longer one is compared whole, below).
 * Ordered, < <= > >= (either way round: SEQ's levels the order + 1,
 * kp_ord(), cgen_svar.c's seq_ord()), the literal at most UBPF_KSTRMAX
 * bytes, any strsize from 2 to UBPF_STRMAX (the copy whole in cgbuf, as
 * VACMP's): run.c's binop() cuts neither side, and the argument's
 * string is copyinstr()'s, at most strsize - 1 bytes, so within them
 * and the byte after, both zero-padded, the two order as strcmp()
 * orders them, a literal longer than the cut included (as
 * kp_svar_olit()'s); so are == and != where kp_seq_prefix() cannot
 * tell them.
 */
bool kp_str_cmp(const struct d_kplan *k, const struct node *n, int *arg,
		const struct node **lit)
{
	const struct node *f, *l;
	bool ord;
	int a;

	if (!k || !k->vars || k->nostr || n->op != N_BIN)
		return false;
	ord = kp_ord(n->sub, true) != 0;
	if (!ord && n->sub != OP_EQ && n->sub != OP_NE)
		return false;
	f = sarg_of(k, n->a) >= 0 ? n->a : n->b;
	l = f == n->a ? n->b : n->a;
	/* NULL: "" (kp_svar_lit()); not beside a bare args[N], an
	 * integer (a pointer) where a probe does not type it a string */
	if (!ord && f->op != N_ARGS)
		l = null_lit(l);
	a = sarg_of(k, f);
	if (a < 0 || l->op != N_STR || !l->sval ||
	    strlen(l->sval) > UBPF_KSTRMAX)
		return false;
	/* == and != the prefix test cannot tell: whole, as an order */
	if ((ord || !kp_seq_prefix(k, strlen(l->sval))) &&
	    (k->prog->strsize < 2 || k->prog->strsize > UBPF_STRMAX))
		return false;
	if (arg)
		*arg = a;
	if (lit)
		*lit = l;
	return true;
}

/*
 * Can SEQ tell == from != of a literal of len bytes by the copy's
 * length and the literal's bytes alone (cgen_sarg.c's seq())?  Where
 * the literal is shorter than strsize - 1, so the cut user space makes
 * changes no result; and where faults are the hit's, the kernel reading
 * strsize - 1 bytes as d_read_user_str() does, only where a string of
 * the literal's length is told from a longer one cut there
 * (fsite_assign()).  Else SEQ compares whole (levels: seq_ord()), the
 * string cut as copyinstr() cuts it, where strsize is at most
 * UBPF_STRMAX (kp_str_cmp()): before, such a clause was user space's,
 * its strings read after the hit.
 */
bool kp_seq_prefix(const struct d_kplan *k, size_t len)
{
	if (len + 1 >= k->prog->strsize)
		return false;
	return !k->fmode || (k->prog->strsize <= UBPF_STRMAX + 1 &&
			     len + 3 <= k->prog->strsize);
}

/*
 * v == "string" or v != "string" (either way round), v a self-> or
 * this-> string variable, the literal at most UBPF_KSTRMAX bytes and
 * strsize - 3 (so a string the store cut at strsize - 1 bytes is never
 * equal, and the kernel's copy tells equal from longer by its length
 * alone):
 * v's index and the literal into *v, *lit, whatever the kernel keeps.
 * NULL is the literal "" here (null_lit()), so v != NULL is v != ""
 * (the book's nismatch.d: /self->map != NULL/).
 * kplan_svar.c's str_var() lets a KV_STR variable be read so.
 */
bool kp_svar_lit(const struct d_prog *p, const struct node *n, int *v,
		 const struct node **lit)
{
	const struct node *f, *l;

	if (n->op != N_BIN || (n->sub != OP_EQ && n->sub != OP_NE))
		return false;
	f = n->a->op == N_VAR ? n->a : n->b;
	l = null_lit(f == n->a ? n->b : n->a);
	if (f->op != N_VAR || f->sub < 0 || (unsigned)f->sub >= p->nvars ||
	    (p->vars[f->sub].scope != SC_SELF &&
	     p->vars[f->sub].scope != SC_THIS) ||
	    p->vars[f->sub].kind != T_STR || l->op != N_STR || !l->sval ||
	    strlen(l->sval) > UBPF_KSTRMAX || strlen(l->sval) + 3 > p->strsize)
		return false;
	if (v)
		*v = f->sub;
	if (lit)
		*lit = l;
	return true;
}

/* VVCMP's order of comparison sub (2 <, 3 >, 4 <=, 5 >=), as written
 * where left (the string variable on the left), else its two sides
 * swapped; 0 for other than an order */
unsigned kp_ord(int sub, bool left)
{
	switch (sub) {
	case '<':
		return left ? 2 : 3;
	case '>':
		return left ? 3 : 2;
	case OP_LE:
		return left ? 4 : 5;
	case OP_GE:
		return left ? 5 : 4;
	default:
		return 0;
	}
}

/*
 * v OP "string", OP < <= > >= (either way round), v a self-> or this->
 * string variable, the literal at most UBPF_KSTRMAX bytes (run.c's
 * binop() cuts neither: the variable holds at most strsize - 1 bytes,
 * so within them and the byte after, zero-padded, the two order as
 * strcmp() orders them; a literal longer than strsize - 1 bytes is
 * never equal to it, and orders it by those bytes alone, the
 * variable's NUL below the literal's byte there: cgen_svar.c's
 * vseq_ord()): v's index, the literal and the order (VVCMP's agg, v on
 * the left) into *v, *lit, *op, whatever the kernel keeps.
 * kplan_svar.c's str_var() lets a KV_STR variable be read so.
 */
bool kp_svar_olit(const struct d_prog *p, const struct node *n, int *v,
		  const struct node **lit, unsigned *op)
{
	const struct node *f, *l;
	bool left;

	if (n->op != N_BIN || (n->sub != '<' && n->sub != '>' &&
			       n->sub != OP_LE && n->sub != OP_GE))
		return false;
	left = n->a->op == N_VAR;
	f = left ? n->a : n->b;
	l = left ? n->b : n->a;
	if (kp_str_var_of(p, f) < 0 || l->op != N_STR || !l->sval ||
	    strlen(l->sval) > UBPF_KSTRMAX)
		return false;
	if (v)
		*v = f->sub;
	if (lit)
		*lit = l;
	if (op)
		*op = kp_ord(n->sub, left);
	return true;
}

/* ... of a KV_STR variable: UBPF_K_VSEQ with the order (cgen_svar.c's
 * vseq_ord()) */
bool kp_svar_ocmp(const struct d_kplan *k, const struct node *n, int *v,
		  const struct node **lit, unsigned *op)
{
	int w;

	if (!k || !k->vars || !kp_svar_olit(k->prog, n, &w, lit, op) ||
	    k->vst[w] != KV_STR || k->prog->strsize > UBPF_STRMAX)
		return false;
	if (v)
		*v = w;
	return true;
}

/* ... of a KV_STR variable: the generated program compares the bytes
 * its store kept (UBPF_K_VSEQ, cgen_svar.c's vseq()), which no fault
 * can stop */
bool kp_svar_cmp(const struct d_kplan *k, const struct node *n, int *v,
		 const struct node **lit)
{
	int w;

	if (!k || !k->vars || !kp_svar_lit(k->prog, n, &w, lit) ||
	    k->vst[w] != KV_STR)
		return false;
	if (v)
		*v = w;
	return true;
}

/*
 * v OP copyinstr(argN), OP == != < <= > >= (strcmp()'s order, as
 * run.c's binop()), either way round, v a self-> or this-> string
 * variable and the other side copyinstr(argN) or args[N] (N a
 * constant, maybe in stringof()): v's index, whatever the kernel
 * keeps, else -1.  kplan_svar.c's str_var() lets a KV_STR variable be
 * read so.
 */
int kp_svar_arg(const struct d_prog *p, const struct node *n)
{
	const struct node *f, *o;

	if (n->op != N_BIN ||
	    (n->sub != OP_EQ && n->sub != OP_NE && n->sub != '<' &&
	     n->sub != '>' && n->sub != OP_LE && n->sub != OP_GE))
		return -1;
	f = kp_str_var_of(p, n->a) >= 0 ? n->a : n->b;
	o = f == n->a ? n->b : n->a;
	if (kp_str_var_of(p, f) < 0 ||
	    (kp_copyinstr_arg(o) < 0 && kp_args_index(o) < 0))
		return -1;
	return f->sub;
}

/*
 * ... of a KV_STR variable: generated programs compare the bytes its
 * store kept with the argument's string as copyinstr() gives it
 * (UBPF_K_VACMP, cgen_svar.c's vacmp()): read at the hit as SEQ reads
 * it (seq_read()), which is d_read_user_str()'s rule -- at most
 * strsize - 1 bytes, up to the first NUL, the string cut there -- and,
 * where the kernel keeps self-> variables (fmode), a fault site
 * (fsite_assign()) whose read touches exactly the bytes run.c's does
 * (the NUL's included, or the strsize - 1 read), so it faults exactly
 * where that would; elsewhere a string that cannot be read sends the
 * hit to user space whole.  The variable and N into *v, *arg.
 */
bool kp_svar_acmp(const struct d_kplan *k, const struct node *n, int *v,
		  int *arg)
{
	int w = k && k->vars && !k->nostr ? kp_svar_arg(k->prog, n) : -1;
	int a;

	if (w < 0 || k->vst[w] != KV_STR || k->prog->strsize < 2 ||
	    k->prog->strsize > UBPF_STRMAX)
		return false;
	a = sarg_of(k, n->a->op == N_VAR && n->a->sub == w ? n->b : n->a);
	if (a < 0)
		return false;
	if (v)
		*v = w;
	if (arg)
		*arg = a;
	return true;
}

/* v OP w, OP == != < <= > >= (strcmp()'s order, as run.c's binop()),
 * both self-> or this-> string variables: their indexes into *v and
 * *w, whatever the kernel keeps */
bool kp_svar_pair(const struct d_prog *p, const struct node *n, int *v, int *w)
{
	const struct node *s[2];

	if (n->op != N_BIN ||
	    (n->sub != OP_EQ && n->sub != OP_NE && n->sub != '<' &&
	     n->sub != '>' && n->sub != OP_LE && n->sub != OP_GE))
		return false;
	s[0] = n->a;
	s[1] = n->b;
	for (unsigned i = 0; i < 2; i++)
		if (s[i]->op != N_VAR || s[i]->sub < 0 ||
		    (unsigned)s[i]->sub >= p->nvars ||
		    (p->vars[s[i]->sub].scope != SC_SELF &&
		     p->vars[s[i]->sub].scope != SC_THIS) ||
		    p->vars[s[i]->sub].kind != T_STR)
			return false;
	if (v)
		*v = s[0]->sub;
	if (w)
		*w = s[1]->sub;
	return true;
}

/* ... both KV_STR: the generated program compares the bytes their
 * stores kept (UBPF_K_VVEQ, cgen_svar.c's vveq(), for two self-> ones
 * and == or !=; else UBPF_K_VVCMP, vvcmp()) */
bool kp_svar_vv(const struct d_kplan *k, const struct node *n, int *v, int *w)
{
	int a, b;

	if (!k || !k->vars || !kp_svar_pair(k->prog, n, &a, &b) ||
	    k->vst[a] != KV_STR || k->vst[b] != KV_STR)
		return false;
	if (v)
		*v = a;
	if (w)
		*w = b;
	return true;
}

/* strlen(v), v a self-> or this-> string variable: v's index into *v */
bool kp_svar_len(const struct d_prog *p, const struct node *n, int *v)
{
	const struct node *a;

	if (n->op != N_FUNC || d_funcs[n->sub].id != F_STRLEN || n->nargs != 1)
		return false;
	a = n->args[0];
	if (a->op != N_VAR || a->sub < 0 || (unsigned)a->sub >= p->nvars ||
	    (p->vars[a->sub].scope != SC_SELF &&
	     p->vars[a->sub].scope != SC_THIS) ||
	    p->vars[a->sub].kind != T_STR)
		return false;
	if (v)
		*v = a->sub;
	return true;
}

/* ... of a KV_STR variable: UBPF_K_VSLEN, from the copy its store kept */
bool kp_svar_strlen(const struct d_kplan *k, const struct node *n, int *v)
{
	int w;

	if (!k || !k->vars || !kp_svar_len(k->prog, n, &w) ||
	    k->vst[w] != KV_STR)
		return false;
	if (v)
		*v = w;
	return true;
}

/* execname */
bool kp_is_comm(const struct node *n)
{
	return n->op == N_BUILTIN && d_builtins[n->sub].id == B_EXECNAME;
}

bool kp_node_any(const struct node *n, bool (*is)(const struct node *))
{
	if (!n)
		return false;
	if (is(n) || kp_node_any(n->a, is) || kp_node_any(n->b, is) ||
	    kp_node_any(n->c, is))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (kp_node_any(n->args[i], is))
			return true;
	return false;
}

static bool is_psargs(const struct node *n)
{
	return n->op == N_BUILTIN && d_builtins[n->sub].id == B_PSARGS;
}

/* Is curpsinfo->pr_psargs in the tree n (kp_out_leaves()'s record
 * value that may fault)? */
bool kp_has_psargs(const struct node *n)
{
	return kp_node_any(n, is_psargs);
}

/*
 * strlen(execname) (D_KPLAN_VARS): UBPF_K_CLEN counts the bytes before
 * the NUL of the comm bpf_get_current_comm() gives at the hit, the
 * bytes the record's execname is read from; run.c measures that string
 * whole (execname is not cut by strsize), and nothing can fault.
 */
bool kp_comm_strlen(const struct d_kplan *k, const struct node *n)
{
	return k && k->vars && n && n->op == N_FUNC &&
	       d_funcs[n->sub].id == F_STRLEN && n->nargs == 1 &&
	       kp_is_comm(n->args[0]);
}

/* A literal as a key: its bytes cut to strsize - 1, as agg.c cuts a
 * key, at most UBPF_KSTRMAX of them (its SDATA) */
static bool lit_key1(const struct d_kplan *k, const struct node *n)
{
	size_t len;

	if (n->op != N_STR || !n->sval)
		return false;
	len = strlen(n->sval);
	if (len > k->prog->strsize - 1)
		len = k->prog->strsize - 1;
	return len <= UBPF_KSTRMAX;
}

/* probeprov and the like: the B_ id, else -1 */
int ident(const struct node *n)
{
	if (n->op != N_BUILTIN)
		return -1;
	switch (d_builtins[n->sub].id) {
	case B_PROBEPROV:
	case B_PROBEMOD:
	case B_PROBEFUNC:
	case B_PROBENAME:
		return d_builtins[n->sub].id;
	}
	return -1;
}

/*
 * probeprov, probemod, probefunc or probename at probe pr: its string
 * (run.c's, untainted: d_dv_str()), else NULL when n is none of them
 */
const char *kp_ident_str(const struct d_probe *pr, const struct node *n)
{
	const char *s;

	switch (ident(n)) {
	case B_PROBEPROV:
		s = pr->prov;
		break;
	case B_PROBEMOD:
		s = pr->mod;
		break;
	case B_PROBEFUNC:
		s = pr->func;
		break;
	case B_PROBENAME:
		s = pr->name;
		break;
	default:
		return NULL;
	}
	return s ? s : "";
}

/*
 * probeprov, probemod, probefunc or probename compared with a string
 * literal or with another of the four, or two literals ("a" < "b",
 * $$1 == "" once the macro is read) (== != < <= > >=, either way
 * round): run.c's binop() compares the probe's d_probe strings and the
 * literals whole with strcmp(), cutting neither, so at one probe the
 * truth is a constant, which kplan_expr.c's emit() folds into that
 * probe's plan (a CONST, kp_ident_fold()).  It reads nothing at the
 * hit and cannot fault.  A program several kernel probes share
 * (cgen.c's kp_ident()) is one only where the instructions are the
 * same, so probes whose folds differ get programs of their own.
 * Generated programs only (k->vars), as the other string comparisons.
 */
bool kp_ident_cmp(const struct d_kplan *k, const struct node *n)
{
	if (k && !k->vars)
		return false;
	if (n->op != N_BIN || !d_op_cmp(n->sub))
		return false;
	return (ident(n->a) >= 0 || (n->a->op == N_STR && n->a->sval)) &&
	       (ident(n->b) >= 0 || (n->b->op == N_STR && n->b->sval));
}

/* kp_ident_cmp()'s n at probe pr: its truth, 0 or 1 */
int kp_ident_fold(const struct d_probe *pr, const struct node *n)
{
	const char *a = n->a->op == N_STR ? n->a->sval : kp_ident_str(pr, n->a);
	const char *b = n->b->op == N_STR ? n->b->sval : kp_ident_str(pr, n->b);
	int c = strcmp(a, b);

	switch (n->sub) {
	case OP_EQ:
		return c == 0;
	case OP_NE:
		return c != 0;
	case '<':
		return c < 0;
	case '>':
		return c > 0;
	case OP_LE:
		return c <= 0;
	default:
		return c >= 0;
	}
}

/*
 * A key that is a literal or c ? "a" : "b" (c an integer the kernel
 * computes): generated programs write its bytes into a kaggs_v key
 * (UBPF_K_LKEY), strsize fixed for the run (kp_strsize_fixed()).  The
 * kernel computes c as SEL does (its 64 bits' truth, run.c's
 * d_truth()); c cannot fault (kp_ty() takes no comparison that can).
 * A branch may also be probeprov, probemod, probefunc or probename,
 * which run.c gives as the probe's string, untainted as a literal:
 * each probe has a plan of its own (kplan_expr.c's lit_key() writes
 * that probe's string as the literal; a program several kernel probes
 * share is one only where their instructions, these bytes among them,
 * are the same: cgen_kprov.c), and one longer than UBPF_KSTRMAX bytes
 * after the cut leaves the clause to user space at that probe.  A
 * branch may itself be such a ?: (a tree of any depth, the leaves
 * literals or the probe's names): the kernel computes every condition
 * of the tree, run.c only those on the way to its leaf, which is
 * exact because each is an integer kp_ty() takes as a ?:'s branch
 * (no string comparison in -F mode, as kp_ty_at()'s N_TERN), which
 * writes nothing and cannot fault but where a string that cannot be
 * read sends the hit to user space whole, which takes only its own
 * way; lit_key() numbers the leaves (LKEY flagged UBPF_KF_TAB).
 */
static bool lit_tree(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	if (n->op != N_TERN)
		return lit_key1(k, n) || ident(n) >= 0;
	return lit_tree(k, n->b) && lit_tree(k, n->c) &&
	       kp_ty(k, n->a, &sz, &sg) &&
	       !(k->fmode && kp_has_str_cmp(k, n->a));
}

bool kp_lit_key(const struct d_kplan *k, const struct node *n)
{
	if (!k || !k->vars || !kp_strsize_fixed(k))
		return false;
	if (n->op == N_TERN)
		return lit_tree(k, n);
	return lit_key1(k, n);
}

/*
 * A key c ? a : b whose branches are execname or literals, one of them
 * execname at least (both literals: kp_lit_key()), c as kp_lit_key()'s:
 * generated programs write the branch c chooses into the kaggs_v key
 * (UBPF_K_MKEY), execname as CKEY writes it, a literal as LKEY does,
 * and mark the key's word k[n] where execname was taken, since run.c's
 * execname is tainted and a literal is not: an entry with the same
 * bytes from both is two entries in the kernel, one each, merged into
 * one whose taint is their or, as d_key_add() ors a key's.
 */
bool kp_mix_key(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	if (!k || !k->vars || !kp_strsize_fixed(k) || n->op != N_TERN ||
	    (!kp_is_comm(n->b) && !kp_is_comm(n->c)) ||
	    (!kp_is_comm(n->b) && !lit_key1(k, n->b)) ||
	    (!kp_is_comm(n->c) && !lit_key1(k, n->c)))
		return false;
	return kp_ty(k, n->a, &sz, &sg) &&
	       !(k->fmode && kp_has_str_cmp(k, n->a));
}

/*
 * A key c ? copyinstr(argN) : "lit" (or the literal first), c as
 * kp_lit_key()'s, the literal at most UBPF_KSKEY - 1 bytes: generated
 * programs write the branch c chooses into the kaggs_s key
 * (UBPF_K_SMKEY), the argument's string as SKEY writes it, the literal
 * NUL-padded, both cut at the merge as SKEY's are, and mark the key's
 * word k[n] where the string was taken (run.c's copyinstr() is tainted,
 * a literal not: as MKEY's).  Or c ? copyinstr(argN) : copyinstr(argM)
 * (SMKEY's agg 3): either branch the argument's string as SKEY writes
 * it, k[n] 1 (both tainted).  Where kaggs_s keys are taken
 * (kp_arg_str(): no fault sites): the arguments' strings are read at
 * every hit, whichever branch c chooses, and one that cannot be read,
 * or is longer than kaggs_s keeps, sends the hit to user space whole,
 * which evaluates only the branch c chose, as run.c does.  N (the
 * first branch's where both are strings), or -1.
 */
int kp_smix_key(const struct d_kplan *k, const struct node *n)
{
	const struct node *s, *l;
	uint8_t sz, sg;
	int a;

	if (!k || !k->vars || k->nostr || k->fmode || n->op != N_TERN)
		return -1;
	s = kp_copyinstr_arg(n->b) >= 0 ? n->b : n->c;
	l = s == n->b ? n->c : n->b;
	a = kp_copyinstr_arg(s);
	if (a < 0 ||
	    (kp_copyinstr_arg(l) < 0 && (l->op != N_STR || !l->sval ||
					 strlen(l->sval) > UBPF_KSKEY - 1)) ||
	    !kp_ty(k, n->a, &sz, &sg) || kp_has_str_cmp(k, n->a))
		return -1;
	return a;
}

/*
 * execname OP "literal" or execname OP v, v a KV_STR variable, OP == !=
 * < <= > >= (either way round: *op is OP's number as VVCMP's agg, 0 ==
 * 1 != 2 < 3 > 4 <= 5 >=, for execname on the left).  run.c compares
 * the record's comm whole with strcmp(), which is what the kernel's
 * bpf_get_current_comm() reads at the hit (the record's own comm);
 * the literal is never cut, and neither is execname (at most 15
 * bytes), whatever strsize is.
 */
bool kp_comm_cmp(const struct d_kplan *k, const struct node *n,
		 const struct node **lit, int *v, unsigned *op)
{
	static const unsigned turned[] = { 0, 1, 3, 2, 5, 4 };
	const struct node *o;
	unsigned x;
	bool left;

	if (!k || !k->vars || n->op != N_BIN)
		return false;
	switch (n->sub) {
	case OP_EQ:
		x = 0;
		break;
	case OP_NE:
		x = 1;
		break;
	case '<':
		x = 2;
		break;
	case '>':
		x = 3;
		break;
	case OP_LE:
		x = 4;
		break;
	case OP_GE:
		x = 5;
		break;
	default:
		return false;
	}
	left = kp_is_comm(n->a);
	if (!left && !kp_is_comm(n->b))
		return false;
	o = left ? n->b : n->a;
	if (o->op == N_STR) {
		if (!o->sval)
			return false;
		if (lit)
			*lit = o;
	} else if (kp_out_svar(k, o)) {
		if (lit)
			*lit = NULL;
		if (v)
			*v = o->sub;
	} else {
		return false;
	}
	if (op)
		*op = left ? x : turned[x];
	return true;
}

/*
 * execname OP copyinstr(argN) (or a this-> variable that is it, or
 * args[N]: sarg_of()), OP == != < <= > >=, either way round (*op as
 * kp_comm_cmp()'s): generated programs compare the comm the kernel
 * reads at the hit with the argument's string as run.c compares the
 * record's (UBPF_K_CACMP), the string cut to strsize - 1 bytes as
 * copyinstr() cuts it, execname whole.  The copy may fault: a fault
 * site in fault mode (k->fmode), else the whole hit user space's.
 */
bool kp_comm_arg(const struct d_kplan *k, const struct node *n, int *arg,
		 unsigned *op)
{
	static const unsigned turned[] = { 0, 1, 3, 2, 5, 4 };
	static const int subs[] = { OP_EQ, OP_NE, '<', '>', OP_LE, OP_GE };
	unsigned x;
	bool left;
	int a;

	if (!k || !k->vars || k->nostr || n->op != N_BIN)
		return false;
	for (x = 0; x < 6 && subs[x] != n->sub; x++)
		;
	if (x == 6)
		return false;
	left = kp_is_comm(n->a);
	if (!left && !kp_is_comm(n->b))
		return false;
	a = sarg_of(k, left ? n->b : n->a);
	if (a < 0)
		return false;
	if (arg)
		*arg = a;
	if (op)
		*op = left ? x : turned[x];
	return true;
}

/* copyinstr(E), one argument (strsize's bytes) */
bool kp_copyinstr_of(const struct node *n)
{
	return n->op == N_FUNC && d_funcs[n->sub].id == F_COPYINSTR &&
	       n->nargs == 1;
}

/*
 * Joins (doc/DESIGN.md §8 "strjoin() stored in the kernel").  A string
 * variable's store v = T, T strjoin()s whose leaves are copyinstr(E) (E
 * an integer the plan computes) and string literals, at least one copy
 * (the toolkit's and the book's Ruby scripts: this->name =
 * strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1))), is kept
 * as T's value: the kernel computes it at the hit (kplan_stmt.c's
 * parts, cgen_out.c's join_add()), so the variable is a KV_STR as a
 * copy's store makes one, keyed, printed or compared by its bytes.
 * Exact: run.c's strjoin() is the concatenation cut at strsize - 1,
 * and a cut of a concatenation of cuts is the cut of the
 * concatenation, so T is the parts in order, each copy cut as
 * copyinstr() cuts it, the whole cut at strsize - 1; the copies are
 * made in d_eval()'s order (the arguments left to right), each an SSTR
 * whose fault ends the clause at the store's action, the variable
 * untouched (the join is built apart and put into it at the end), as
 * run.c unwinds at the first fault; and strjoin() of a tainted string
 * is tainted (d_eval_func()), as the kernel's bytes print.  A literal
 * is cut at strsize - 1 bytes when the plan is made (its bytes past
 * the cut are past the join's).
 */
static bool join_walk(const struct d_kplan *k, const struct node *n,
		      const struct node **pv, int *np, unsigned *nl)
{
	uint8_t sz, sg;

	if (n->op == N_FUNC && d_funcs[n->sub].id == F_STRJOIN && n->nargs == 2)
		return join_walk(k, n->args[0], pv, np, nl) &&
		       join_walk(k, n->args[1], pv, np, nl);
	if (*np >= KP_JPARTS)
		return false;
	if (n->op == N_STR && n->sval && strlen(n->sval) <= UBPF_KSTRMAX) {
		pv[(*np)++] = n;
		return true;
	}
	if (kp_bstr_read(k, n) >= 0 && *nl < KP_FLEAVES) {
		/* a bounded copy's string: seq_read()'s (kplan_bstr.c) */
		pv[(*np)++] = n;
		++*nl;
		return true;
	}
	if (!kp_copyinstr_of(n) || *nl >= KP_FLEAVES ||
	    !kp_ty(k, n->args[0], &sz, &sg) || kp_has_str_cmp(k, n->args[0]))
		return false;
	pv[(*np)++] = n;
	++*nl;
	return true;
}

int kp_join_parts(const struct d_kplan *k, const struct node *b,
		  const struct node **pv)
{
	int np = 0;
	unsigned nl = 0;

	if (b->op != N_FUNC || d_funcs[b->sub].id != F_STRJOIN ||
	    !join_walk(k, b, pv, &np, &nl) || !nl)
		return 0;
	return np;
}

/*
 * copyinstr(E) or copyinstr(E, N), N an integer constant, printed
 * (doc/DESIGN.md §8 "String functions printed from the out area",
 * copyinstr(E, N)): the bytes its OSTR reads, as run.c's copyinstr()
 * reads them: at most N where N + 1 < strsize (N >= 0), else strsize
 * - 1.  ostr_at() takes any count from 1 to UBPF_STRMAX with run.c's
 * rules (a copy that filled the count reads its last byte again; a
 * fault at the address or the page after).  N = 0 reads nothing and
 * faults only at address 0: -1, the argument user space's; a computed
 * N has no compiled count: -1, kp_ostr_hit()'s question.  Only
 * printed: a store stays the one-argument form (kp_copyinstr_of()),
 * since VSLEN, VSEQ and VVEQ read a stored variable on the rule that
 * every store copied strsize - 1 bytes.
 */
int kp_ostr_count(const struct d_prog *p, const struct node *n)
{
	int64_t c;

	if (n->op != N_FUNC || d_funcs[n->sub].id != F_COPYINSTR ||
	    n->nargs < 1 || n->nargs > 2 || p->strsize < 2)
		return -1;
	if (n->nargs == 1)
		return (int)p->strsize - 1;
	if (!d_const_int(n->args[1], &c) || c == 0)
		return -1;
	return c > 0 && (uint64_t)c + 1 < p->strsize ? (int)c
						     : (int)p->strsize - 1;
}

/*
 * copyinstr(E, N), N an integer the plan computes at the hit (kp_ty(),
 * no string comparison: argN, an arithmetic of them, a self-> or
 * this-> integer the kernel keeps; none can fault, kp_ty() taking no
 * division by a value the hit computes), not a constant (those are
 * kp_ostr_count()'s): its OSTR pops N after the address
 * (UBPF_KF_NCNT) and clamps it in the program as run.c's copyinstr()
 * clamps it: N bytes at most where 0 <= N and N + 1 < strsize, else
 * strsize - 1 (negative, 32 bits or more); 0 reads nothing, faulting
 * only at address 0 (cgen_out.c's ostr_at()).  Printed only, as
 * kp_ostr_count()'s form.
 */
bool kp_ostr_hit(const struct d_kplan *k, const struct node *n)
{
	int64_t c;
	uint8_t sz, sg;

	return n->op == N_FUNC && d_funcs[n->sub].id == F_COPYINSTR &&
	       n->nargs == 2 && k->prog->strsize >= 2 &&
	       !d_const_int(n->args[1], &c) && kp_ty(k, n->args[1], &sz, &sg) &&
	       !kp_has_str_cmp(k, n->args[1]);
}

/* copyinstr(argN) or copyinstr(argN, M): N, else -1 (whether M is a
 * count kp_ostr_count() or kp_ostr_hit() takes is theirs); R2's copy
 * ahead of a leaf or a whole argument (kplan_stmt.c's emit_stmt(),
 * kplan_out.c's kp_out_apre()), an argument string as the record path
 * reads it (doc/DESIGN.md §8, "Strings at the probe of pages not yet
 * touched: the rule") */
int kp_ostr_arg(const struct node *n)
{
	if (n->op != N_FUNC || d_funcs[n->sub].id != F_COPYINSTR ||
	    n->nargs < 1 || n->nargs > 2 || n->args[0]->op != N_ARGN ||
	    n->args[0]->sub < 0 || n->args[0]->sub >= D_MAXARGS)
		return -1;
	return n->args[0]->sub;
}

/* 0 or "": what a string variable set to it reads ("") */
bool kp_str_clear(const struct node *n)
{
	return (n->op == N_INT && n->ival == 0) ||
	       (n->op == N_STR && n->sval && !n->sval[0]);
}

/*
 * A literal stored into a string variable (not "": kp_str_clear()): at
 * most UBPF_KSTRMAX bytes and strsize - 3, as kp_svar_lit()'s, so the
 * copy's length tells it from a string an SSTR cut (VSLEN, VSEQ read
 * only the length then), and printed the same whether tainted or not:
 * the kernel's bytes print as a traced process's (kplan_out.c's
 * d_kplan_out_run()), where run.c prints the script's own as they are.
 */
bool kp_str_lit_ok(const struct d_prog *p, const char *s)
{
	char safe[TXT_SAFE_MAX(UBPF_KSTRMAX)];
	size_t len = strlen(s);

	return len && len <= UBPF_KSTRMAX && len + 3 <= p->strsize &&
	       !strcmp(txt_safe(s, safe, sizeof(safe)), s);
}

bool kp_str_lit_store(const struct d_prog *p, const struct node *n)
{
	return n->op == N_STR && n->sval && kp_str_lit_ok(p, n->sval);
}

/*
 * A string variable set from a probe's name or from a ?: tree whose
 * leaves are literals, probe names, "" or 0 (mysqld_qslower.d's
 * self->cache = probename == "query-cache-hit" ? "hit" : "miss"): each
 * probe has a plan of its own, so a name is that probe's string, written
 * as a literal (kplan_stmt.c's lit_store() at tree_store()'s leaves: SLIT, or
 * SCLR for "" and 0), within kp_str_lit_store()'s bounds there or the clause is
 * user space's at that probe; each condition is an integer the kernel computes
 * as kp_lit_key()'s (kp_ty(), nothing that can fault, no string comparison
 * where the kernel has fault sites), tested as an if's (PRED, JMP), so the
 * kernel stores the leaf run.c's ?: takes, and nothing else: a condition run.c
 * does not reach is not computed either.  A leaf literal as kp_str_lit_store()
 * takes one.
 */
static bool lit_store_leaf(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	if (n->op != N_TERN)
		return kp_str_clear(n) || kp_str_lit_store(k->prog, n) ||
		       ident(n) >= 0;
	return lit_store_leaf(k, n->b) && lit_store_leaf(k, n->c) &&
	       kp_ty(k, n->a, &sz, &sg) &&
	       !(k->fmode && kp_has_str_cmp(k, n->a));
}

bool kp_str_lit_tree(const struct d_kplan *k, const struct node *n)
{
	if (!k || !k->vars || (n->op != N_TERN && ident(n) < 0))
		return false;
	return lit_store_leaf(k, n);
}

/*
 * A string variable set from a ?: tree whose leaves are copies,
 * copyinstr(E), and lit_store_leaf()'s literals, names, "" and 0, at
 * least one leaf a copy (CPython's cfunction.d: this->module = arg3 ?
 * copyinstr(arg3) : ""): the conditions tested as kp_str_lit_tree()'s are, so
 * the kernel makes the copy of the leaf run.c's ?: takes, at that
 * leaf, and no other (a copy before the plan, R2's, would read
 * arg3 == NULL at every hit and fault).  Each copy is an SSTR whose
 * fault ends the clause at the store's action, as run.c's d_eval()
 * unwinds from the one copy it makes; the leaves share one slot of the
 * out area, its len zeroed where the area starts, so a literal taken
 * reads as no fault (kplan_stmt.c's tree_store(), cgen_out.c's
 * cgen_out_tstr()).  E as kp_sstr_ok() takes a copy's: an integer the
 * kernel computes, no string comparison in it.
 */
static bool copy_tree_leaf(const struct d_kplan *k, const struct node *n,
			   unsigned *ncopy)
{
	uint8_t sz, sg;

	if (n->op == N_TERN)
		return copy_tree_leaf(k, n->b, ncopy) &&
		       copy_tree_leaf(k, n->c, ncopy) &&
		       kp_ty(k, n->a, &sz, &sg) &&
		       !(k->fmode && kp_has_str_cmp(k, n->a));
	if (kp_copyinstr_of(n)) {
		++*ncopy;
		return kp_ty(k, n->args[0], &sz, &sg) &&
		       !kp_has_str_cmp(k, n->args[0]);
	}
	return lit_store_leaf(k, n);
}

bool kp_str_copy_tree(const struct d_kplan *k, const struct node *n)
{
	unsigned nc = 0;

	return k && k->vars && n->op == N_TERN && copy_tree_leaf(k, n, &nc) &&
	       nc > 0;
}

/*
 * v = execname, v a string variable the kernel keeps (UBPF_K_SCOMM:
 * the comm bpf_get_current_comm() gives at the hit, which the record's
 * execname is read from too): where strsize is 18 or more, since the
 * comm is at most 15 bytes, so, as for a literal (at most strsize - 3:
 * kp_str_lit_store()), VSLEN, VSEQ and VVEQ tell it from a copy that
 * filled the variable by its length, and run.c's var_set() never cuts
 * it.  Nothing to fault.
 */
bool kp_comm_store(const struct d_prog *p, const struct node *n)
{
	return kp_is_comm(n) && p->strsize >= UBPF_KCOMM + 2;
}

/* A self-> or this-> string variable read whole: its index, else -1 */
int kp_str_var_of(const struct d_prog *p, const struct node *n)
{
	const struct var *v;

	if (n->op != N_VAR || n->sub < 0 || (unsigned)n->sub >= p->nvars)
		return -1;
	v = &p->vars[n->sub];
	if ((v->scope != SC_SELF && v->scope != SC_THIS) || v->kind != T_STR ||
	    v->ptr || v->psou)
		return -1;
	return n->sub;
}

/* copyinstr(argN): N, else -1 */
int kp_copyinstr_arg(const struct node *n)
{
	if (n->op != N_FUNC || d_funcs[n->sub].id != F_COPYINSTR ||
	    n->nargs != 1 || n->args[0]->op != N_ARGN || n->args[0]->sub < 0 ||
	    n->args[0]->sub >= D_MAXARGS)
		return -1;
	return n->args[0]->sub;
}

/* stringof(E): E (of a string it is the string itself, func.c) */
static const struct node *unstringof(const struct node *n)
{
	while (n->op == N_FUNC && d_funcs[n->sub].id == F_STRINGOF &&
	       n->nargs == 1)
		n = n->args[0];
	return n;
}

/* args[N], N a constant, maybe in stringof(): N, else -1 */
int kp_args_index(const struct node *n)
{
	n = unstringof(n);
	if (n->op != N_ARGS || n->a->op != N_INT || n->a->ival < 0 ||
	    n->a->ival >= D_MAXARGS)
		return -1;
	return (int)n->a->ival;
}

/*
 * copyinstr(argN), a read of a KV_SARG variable that is it, or args[N]
 * (N a constant), which is it at a probe declaring that argument a
 * string (run.c's d_args_str(): both read d_arg_str()); kplan_emit.c
 * leaves the clause to user space at a probe where it is not (an
 * integer there, whose stringof() is its digits, or no such
 * argument); any of them in stringof(), which returns a string as it
 * is: N, else -1
 */
static int sarg_of(const struct d_kplan *k, const struct node *n)
{
	n = unstringof(n);
	if (n->op == N_VAR && k->vst[n->sub] == KV_SARG)
		return k->varg[n->sub];
	if (n->op == N_VAR && k->vst[n->sub] == KV_BSTR)
		return kp_bstr_read(k, n);
	if (n->op == N_ARGS)
		return kp_args_index(n);
	return kp_copyinstr_arg(n);
}

/* copyinstr(argN) as a kaggs_v room (kplan.c's AKEY), which may fault
 * at the hit where the kernel keeps self-> variables (a fault site:
 * fmode): N, else -1 */
int kp_arg_room(const struct d_kplan *k, const struct node *n)
{
	if (!k || !k->vars || k->nostr)
		return -1;
	return sarg_of(k, n);
}

/* ... as a key of kaggs_s (SKEY: no fault site, so not in fmode) */
int kp_arg_str(const struct d_kplan *k, const struct node *n)
{
	return k && !k->fmode ? kp_arg_room(k, n) : -1;
}

/*
 * strlen(copyinstr(argN)), or strlen(args[N]) (N a constant, maybe in
 * stringof()), where the kernel reads arguments' strings as
 * kp_arg_str()'s keys (no fault sites: a string that cannot be read
 * sends the hit to user space whole, which faults as it would have):
 * UBPF_K_SLEN, the length of cgen_sarg.c's seq_read() copy, cut to
 * strsize - 1 as copyinstr() cuts it.  args[N] is that string at a
 * probe declaring argument N a string (run.c's N_ARGS and func.c's
 * copyinstr() both read d_arg_str(x, N, strsize)); kp_ty_at() takes it
 * only there (at KP_ANYPROBE, for kplan_emit.c to type at each probe,
 * which leaves the clause to user space where it is not).  N, else -1.
 */
int kp_arg_strlen(const struct d_kplan *k, const struct node *n)
{
	if (!n || n->op != N_FUNC || d_funcs[n->sub].id != F_STRLEN ||
	    n->nargs != 1 ||
	    (kp_copyinstr_arg(n->args[0]) < 0 && kp_args_index(n->args[0]) < 0))
		return -1;
	if (k && kp_args_index(n->args[0]) >= 0 && !kp_typed_node(k, n))
		return -1; /* not tied to self->: below */
	return kp_arg_str(k, n->args[0]);
}

/*
 * Why strlen(args[N]) only in a clause that this-> variables do not tie
 * to a self-> (or global) variable or a speculation (kplan_here.c's
 * kp_typed_reach()): a clause spanning probes that declare argument N a
 * string and probes that do not runs in the kernel at the first and in
 * user space at the others (kplan_here.c's d_kplan_here()), with the
 * this-> variables it touches and the clauses touching them, which a
 * clause keeping a self-> variable in the kernel cannot be (bpf_agg.c's
 * plan_of(): the event refused, "do not fit one plan"), and which
 * self-> variables the kernel keeps is decided before any probe is
 * known.  So such a clause is user space's at every probe, as before
 * kp_arg_strlen() took args[N] (kplan_why.c says why).
 */

/* strlen(args[N]) of kp_arg_strlen() typed at probe pr (kp_ty_at()):
 * a string there (pr NULL: no args[N]; KP_ANYPROBE: typed later) */
bool arg_strlen_at(const struct d_probe *pr, const struct node *n)
{
	int a = kp_args_index(n->args[0]);

	return a < 0 ||
	       (pr && (pr == KP_ANYPROBE || d_args_str(pr, (unsigned)a)));
}

/* Does n compare an argument's string, a read of the process that may
 * fault (kp_str_cmp(), kp_svar_acmp()), or measure one
 * (kp_arg_strlen())? */
bool kp_has_str_cmp(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return false;
	if (kp_str_cmp(k, n, NULL, NULL) || kp_svar_acmp(k, n, NULL, NULL) ||
	    kp_comm_arg(k, n, NULL, NULL) || kp_arg_strlen(k, n) >= 0)
		return true;
	if (kp_has_str_cmp(k, n->a) || kp_has_str_cmp(k, n->b) ||
	    kp_has_str_cmp(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (kp_has_str_cmp(k, n->args[i]))
			return true;
	return false;
}

/*
 * String functions printed from the out area (doc/DESIGN.md §8): a
 * printf() or trace() argument that is not one value the plan computes
 * whole (kplan_out.c's kp_out_whole()) but a format-time tree over
 * leaves it computes.  Walked in d_eval()'s order (a function's
 * arguments left to right, a ?:'s condition then both branches, &&'s
 * and ||'s left then right), each node is:
 *  - nothing in the area: an integer or string literal, execname (the
 *    record's comm, which d_eval()'s builtin() reads), and
 *    curpsinfo->pr_psargs (the argument area's bytes the record of
 *    every hit carries in a run whose clauses read it, cgen_rec.c's
 *    cgen_psargs(), turned into text by bpf.c and kprov.c as for a
 *    clause run from the record: the same bytes builtin() reads),
 *    and a global only BEGIN stores (kplan_fkey.c's kp_run_const():
 *    the value BEGIN left, which every record is formatted after);
 *  - a leaf: a KV_STR variable (OVSTR), copyinstr(E) of an integer E
 *    the plan computes, or copyinstr(E, N) of a constant count
 *    (kp_ostr_count(): OSTR), an integer the plan computes whole
 *    (OUT: kp_ty() and no string comparison the kernel would make);
 *  - a format-time node, which dtrace evaluates from the leaves'
 *    values (d/stmt.c's d_eval_pinned()): strjoin(), substr(),
 *    basename(), dirname(), strlen(), toupper(), tolower(), strstr(),
 *    strchr(), strrchr(), index(), rindex(), lltostr() (a constant
 *    base, 2 to 36), ?:, a string comparison (strings, or NULL, on
 *    both sides), && || ^^, and the integer operators but / and %
 *    (no pointer's), unary ! ~ - + and a cast to an integer of one;
 *    ufunc(), usym(), umod() and uaddr(), named by d/stack.c through
 *    the record's struct d_fire (records.c's hit_prep(): its pid and
 *    time, ustack.c's dating), as for a clause dtrace runs from it.
 * None of these can fault: each depends on its arguments and strsize
 * only (the names, on the record's pid and time too, which the
 * formatting has), and the checker made them strings or integers as need_str()
 * wants; / and % (a zero divisor), a computed base, strtok() (which
 * goes on with the program's state) and rand() are not taken.  So the
 * only faults are the copies', met in run.c's order, and pr_psargs's:
 * a record without the argument area (a kernel thread, a read of it
 * that faulted at the hit) makes builtin() fault (illegal operation)
 * where d_eval() reaches it, at format time, which cannot end the
 * clause at the hit, so kplan_out.c's kp_out_ftime_ok() takes it only
 * where no statement the kernel runs follows in the clause, and not
 * in a speculating one (kp_has_psargs()).  Anything else
 * under the argument leaves it, and its clause, user space's.  cond:
 * the node is under a ?: branch or right of && or ||, where run.c may
 * not reach it (the leaf's cond).  The leaves, at most KP_LEAVES, into
 * lv; their count, or -1.
 */
static bool ftime_str_side(const struct node *n)
{
	return n->kind == T_STR || (n->op == N_INT && n->ival == 0);
}

bool kp_out_names(const struct node *a)
{
	return kp_node_any(a, d_uname_func);
}

bool kp_ftime_strfn(const struct node *n)
{
	int64_t b;

	switch (d_funcs[n->sub].id) {
	case F_STRJOIN:
	case F_SUBSTR:
	case F_BASENAME:
	case F_DIRNAME:
	case F_TOUPPER:
	case F_TOLOWER:
	case F_STRSTR:
	case F_STRCHR:
	case F_STRRCHR:
		return true;
	case F_LLTOSTR:
		return n->nargs < 2 ||
		       (d_const_int(n->args[1], &b) && b >= 2 && b <= 36);
	default:
		return false;
	}
}

static bool ftime_func(const struct node *n)
{
	switch (d_funcs[n->sub].id) {
	case F_STRLEN:
	case F_INDEX:
	case F_RINDEX:
		return true;
	default: /* the names read the record's pid and time */
		return kp_ftime_strfn(n) || d_uname_func(n);
	}
}

static bool ftime_walk(const struct d_kplan *k, const struct node *n, bool cond,
		       struct kp_leaf *lv, int *nl)
{
	uint8_t sz, sg;

	if (n->op == N_INT || n->op == N_STR || kp_is_comm(n) ||
	    (n->op == N_BUILTIN && d_builtins[n->sub].id == B_PSARGS) ||
	    kp_run_const(k, n))
		return true; /* dtrace has it, from the record or BEGIN */
	if (kp_out_svar(k, n) ||
	    ((kp_ostr_count(k->prog, n) > 0 || kp_ostr_hit(k, n)) &&
	     kp_ty(k, n->args[0], &sz, &sg) &&
	     !kp_has_str_cmp(k, n->args[0])) ||
	    (n->kind != T_STR && !n->ptr && !n->sou && kp_ty(k, n, &sz, &sg) &&
	     !kp_has_str_cmp(k, n))) {
		if (*nl >= KP_LEAVES)
			return false;
		lv[*nl].n = n;
		lv[*nl].kind =
			kp_out_svar(k, n) ? UBPF_K_OVSTR
			: kp_ostr_count(k->prog, n) > 0 || kp_ostr_hit(k, n)
				? UBPF_K_OSTR
				: UBPF_K_OUT;
		lv[*nl].cond = cond;
		lv[*nl].var =
			lv[*nl].kind == UBPF_K_OVSTR ? (unsigned)n->sub : 0;
		lv[*nl].room = 0;
		++*nl;
		return true;
	}
	if (n->ptr || n->sou)
		return false;
	switch (n->op) {
	case N_FUNC:
		if (!ftime_func(n))
			return false;
		for (unsigned i = 0; i < n->nargs; i++)
			if (!ftime_walk(k, n->args[i], cond, lv, nl))
				return false;
		return true;
	case N_TERN:
		return ftime_walk(k, n->a, cond, lv, nl) &&
		       ftime_walk(k, n->b, true, lv, nl) &&
		       ftime_walk(k, n->c, true, lv, nl);
	case N_LAND:
	case N_LOR:
		return ftime_walk(k, n->a, cond, lv, nl) &&
		       ftime_walk(k, n->b, true, lv, nl);
	case N_LXOR:
		return ftime_walk(k, n->a, cond, lv, nl) &&
		       ftime_walk(k, n->b, cond, lv, nl);
	case N_UN:
		if (n->a->kind == T_STR || n->a->ptr ||
		    (n->sub != '!' && n->sub != '~' && n->sub != '-' &&
		     n->sub != '+'))
			return false;
		return ftime_walk(k, n->a, cond, lv, nl);
	case N_CAST:
		if (n->kind == T_STR || n->a->kind == T_STR || n->a->ptr)
			return false;
		return ftime_walk(k, n->a, cond, lv, nl);
	case N_BIN:
		switch (n->sub) {
		case OP_EQ:
		case OP_NE:
		case '<':
		case '>':
		case OP_LE:
		case OP_GE:
			if (n->a->kind == T_STR || n->b->kind == T_STR) {
				if (!ftime_str_side(n->a) ||
				    !ftime_str_side(n->b))
					return false;
				break;
			}
			/* fall through */
		case '+':
		case '-':
		case '*':
		case '&':
		case '|':
		case '^':
		case OP_SHL:
		case OP_SHR:
			if (n->a->kind == T_STR || n->b->kind == T_STR ||
			    n->a->ptr || n->b->ptr)
				return false;
			break;
		default:
			return false;
		}
		return ftime_walk(k, n->a, cond, lv, nl) &&
		       ftime_walk(k, n->b, cond, lv, nl);
	default:
		return false;
	}
}

int kp_out_leaves(const struct d_kplan *k, const struct node *a,
		  struct kp_leaf *lv)
{
	int nl = 0;

	return ftime_walk(k, a, false, lv, &nl) ? nl : -1;
}
