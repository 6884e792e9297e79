// SPDX-License-Identifier: MIT
/*
 * kplan_zform.c - a this-> integer stored with two types, where every
 * form but one stores 0 and every read of it prints it (kplan_vars.c's
 * kp_stores_type() asks: kp_zero_forms()).
 *
 * The idiom.  pg_qslower.d and mysqld_qslower.d (the book's, chapter
 * 10) print a query's times at its end:
 *
 *	this->etime = self->exec / 1000000;
 *	printf("%5d ...", ..., this->etime, ...);
 *
 * self->exec is set (timestamp - self->estart: unsigned 8 bytes) only
 * where the query executed; unset it reads as a signed 8-byte 0 (run.c),
 * so the store's value is unsigned in one form and signed in the other,
 * and this->etime, typed by what was stored, has no one type: the
 * kernel kept neither it nor the clause ("the store has no one type").
 *
 * Why one type T (the form with every variable set) is exact here.  In
 * every form whose type differs from T the value stored is 0 whatever
 * the hit (zero_when(): an unset variable reads 0, and 0 * x, x * 0,
 * 0 & x, 0 / c and 0 % c for a constant c not 0, 0 << x, 0 >> x, the
 * sum, difference, or, xor of zeros and a cast of 0 are 0 under any
 * typing), so the kernel's plan, which dispatches the store on the
 * variables being set (kplan_vars.c's forms) or computes T's form with
 * a 0 read, stores the same 64 bits run.c would; what differs is only
 * the type the value has, T in the kernel's out area, the other form's
 * in run.c.  And 0 prints the same text under every integer type where
 * each read of the variable is a whole printf() argument whose
 * conversion is c, d, i, o, u, x or X without the + or space flags
 * (printf.c's d_pf_one(): %d of an unsigned type is %u, and only the
 * sign flags tell a signed 0 from an unsigned one), or trace()'s, and
 * every read follows a store of it in its clause (kplan_vars.c's
 * this_private(): no read of another firing's value, none unset, no
 * predicate).  Any other read (arithmetic, a comparison, a key, an
 * aggregated value) would see T where run.c sees the other type: the
 * variable stays user space's, -v saying why as before.
 */
#include "config.h"

#include <stdint.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

/* Is n 0 whenever the variables of open bits s are unset? */
static bool zero_when(const struct d_kplan *k, const struct node *n, uint32_t s)
{
	if (!n)
		return false;
	switch (n->op) {
	case N_INT:
		return n->ival == 0;
	case N_VAR:
		return n->sub >= 0 && k->vbit[n->sub] >= 0 &&
		       (s >> k->vbit[n->sub] & 1) && !kp_dset(k, n);
	case N_CAST:
		return zero_when(k, n->a, s);
	case N_BIN:
		switch (n->sub) {
		case '*':
		case '&':
			return zero_when(k, n->a, s) || zero_when(k, n->b, s);
		case '/':
		case '%':
			return zero_when(k, n->a, s) && n->b->op == N_INT &&
			       n->b->ival != 0;
		case OP_SHL:
		case OP_SHR:
			return zero_when(k, n->a, s);
		case '+':
		case '-':
		case '|':
		case '^':
			return zero_when(k, n->a, s) && zero_when(k, n->b, s);
		}
		return false;
	}
	return false;
}

/* printf()'s argument j of st: may a 0 of any integer type be printed
 * there with the same text (a conversion c d i o u x X, no sign flag)? */
static bool zero_conv(const struct stmt *st, unsigned j)
{
	unsigned at = 0; /* the argument each conversion takes */

	for (unsigned i = 0; st->pf && i < st->pf->nseg && at <= j; i++) {
		const struct pfseg *d = &st->pf->seg[i];

		if (!d->conv || d->conv == '%')
			continue;
		at += !!(d->flags & PF_DYNW) + !!(d->flags & PF_DYNP);
		if (at == j)
			return !(d->flags & (PF_SPOS | PF_SPACE)) &&
			       (d->conv == 'c' || d->conv == 'd' ||
				d->conv == 'i' || d->conv == 'o' ||
				d->conv == 'u' || d->conv == 'x' ||
				d->conv == 'X');
		at++;
	}
	return false;
}

/* Does n read v (a read: the place a '=' stores is none)? */
static bool reads_v(const struct node *n, unsigned v)
{
	if (!n)
		return false;
	if (n->op == N_ASSIGN && n->sub == '=' && n->a && n->a->op == N_VAR &&
	    n->a->sub == (int)v)
		return reads_v(n->b, v);
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sub == (int)v)
		return true;
	if (reads_v(n->a, v) || reads_v(n->b, v) || reads_v(n->c, v))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (reads_v(n->args[i], v))
			return true;
	return false;
}

/* Is every read of v in st a whole argument printed as zero_conv()
 * says, or trace()'s? */
static bool stmt_prints_only(const struct stmt *st, unsigned v)
{
	if (st->kind == S_TRACE && st->e && st->e->op == N_VAR &&
	    st->e->sub == (int)v)
		return true;
	if (st->kind == S_PRINTF) {
		for (unsigned j = 0; j < st->nargs; j++) {
			const struct node *a = st->args[j];

			if (a->op == N_VAR && a->sub == (int)v) {
				if (!zero_conv(st, j))
					return false;
			} else if (reads_v(a, v)) {
				return false;
			}
		}
		return true;
	}
	if (reads_v(st->e, v))
		return false;
	for (unsigned j = 0; j < st->nargs; j++)
		if (reads_v(st->args[j], v))
			return false;
	for (unsigned j = 0; j < st->nkeys; j++)
		if (reads_v(st->keys[j], v))
			return false;
	for (unsigned j = 0; j < st->nbody; j++)
		if (!stmt_prints_only(&st->body[j], v))
			return false;
	for (unsigned j = 0; j < st->nels; j++)
		if (!stmt_prints_only(&st->els[j], v))
			return false;
	return true;
}

bool kp_zero_forms(struct d_kplan *k, unsigned v, const struct node *b,
		   uint8_t *z, uint8_t *g)
{
	const struct d_prog *p = k->prog;
	uint32_t set, s = 0, was = k->absent;
	uint8_t z1, g1;
	bool ok = true;

	if (p->vars[v].scope != SC_THIS || !k->tpriv || !k->tpriv[v])
		return false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		if (reads_v(c->pred, v))
			return false;
		for (unsigned i = 0; i < c->nstmts; i++)
			if (!stmt_prints_only(&c->stmts[i], v))
				return false;
	}
	k->nelem = 0;
	k->elem_full = false;
	set = open_bits(k, b, true);
	k->nelem = 0;
	/* (an array's element read, KV_ELEMS: not taken) */
	if (!set || __builtin_popcount(set) > KP_TYPED_BITS || k->elem_full ||
	    (set >> k->nbits) != 0)
		return false;
	k->absent = 0;
	if (!kp_ty(k, b, z, g)) {
		k->absent = was;
		return false;
	}
	while (ok && (s = next_subset(s, set)) != 0) {
		k->absent = s;
		ok = kp_ty(k, b, &z1, &g1) &&
		     ((z1 == *z && g1 == *g) || zero_when(k, b, s));
	}
	k->absent = was;
	return ok;
}
