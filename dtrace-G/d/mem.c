// SPDX-License-Identifier: MIT
/*
 * mem.c - copyin(), the pointers into its copies, and tracemem(): how a
 * D program reads bytes of the traced process that are not a string;
 * alloca(), bcopy() and copyinto() on the same scratch.
 *
 * copyin(addr, size) copies size bytes of the firing process at addr
 * into the firing's scratch space and gives a void * to the copy, as
 * DTrace's does.  The copy lives in the evaluator's per-run arena (stmt.c
 * frees it when the clause ends) and is recorded in struct ectx's
 * cbufs; that list is what makes a pointer dereferenceable:
 *
 *	*(int *)copyin(arg1, 4)		   4 bytes, a signed int
 *	*(uint64_t *)(copyin(arg0, 16) + 8)  pointer arithmetic, C's scaling
 *	stringof(copyin(arg0, n))	   the bytes up to a NUL or the end
 *	tracemem(copyin(arg0, n), n)	   a hex dump (DTrace's layout)
 *
 * Types.  A value is still a 64-bit integer (value.c); what makes it a
 * pointer is its expression's type, worked out at compile time: the
 * node's ptr says the size of what it points to (D_PTR_VOID for
 * copyin()'s void *), set by copyin(), by a cast to a pointer type
 * (decl.c's d_parse_type()), by pointer +/- integer (integer + pointer
 * too) and by ?: of two like pointers; q - p of two is the elements
 * between, the bytes divided unsigned as DTrace does (check.c, run.c).
 * The unary * needs such a type and a pointee with a size: `*arg0` and
 * `*copyin(...)` are compile errors naming the line and column.  A
 * variable keeps the pointer type of its first assignment (check.c), or
 * of its declaration (int *x; declare.c); p++, p--, p += n and p -= n
 * scale n as p + n does (run.c).  A pointer to a pointer has ptr 8 and
 * its pc (struct d_pchain) says the rest: how many pointer levels lie
 * below the target and the innermost type.  The unary *, [ ] and an
 * array member of pointers step one level along it (d_pchain_deref(),
 * d_member_check()), so *pp + 1 of int **pp and a[1] + 1 of int *a[5]
 * scale by the int; pointers of one type agree in pc too.
 *
 * Structs and unions (decl.c declares and lays them out).  A pointer to
 * one (ptr D_PTR_SOU, psou which) reads a member at its offset:
 *
 *	this->r = (struct req *)copyin(arg0, sizeof (struct req));
 *	this->r->id	(*this->r).id	 this->r->in.x
 *
 * *p and a nested member are the struct itself (the node's sou): their
 * value is the copy's address, nothing is read, and the checker allows
 * them only as the operand of '.' (struct parser's sou_ok); a member of
 * an integer or pointer type is read as the unary * reads, under the
 * same rule below.  An array member is, as C's arrays decay, a pointer
 * to its first element (its node's sz 0: nothing read), usable only
 * with [ ] (N_DEREF with b: *(a + b)), * and stringof(), since
 * DTrace would print a char array's bytes where its value would print
 * an address.  Arithmetic on a struct pointer and [ ] of one (an array
 * of structs) scale by the struct's size (d_ptr_scale()).  A
 * bit-field reads the integer unit holding it, shifted and masked, and
 * sign-extended if its type is signed (d_member()).
 *
 * A struct held by value: a variable declared of a struct or union
 * type (struct foo x; self struct foo s; struct foo a[string];), or
 * one first assigned a struct (this->s = *p).  s = *p copies the
 * struct's bytes out of the copy p points into, into the variable's
 * slot (struct dv's show DV_SOU: the bytes in s; d_sou_put()), so it
 * outlives the clause and its scratch as C's struct assignment would;
 * reading s.m puts the bytes in a scratch copy of this run
 * (d_sou_get(): zeros while never assigned; not counted against the
 * copyin() budget: the variable's storage is not scratch in DTrace
 * either) and reads the member from it.  A store into one (s.m = v,
 * s.a[i] += v, s.in.m++) writes that scratch copy under the rule
 * below, then the copy goes back into the slot (d_lval(),
 * d_lval_store()): a store past the struct's end faults and changes
 * nothing.  A bit-field is stored as C stores it, its unit's other
 * bits kept.  A fixed-size array variable (int a[5];) is such a
 * variable of a struct whose one member is the array (declare.c's
 * fixed_array()); a[i] is that member's element, and its index is
 * checked against the size (the N_DEREF's nelem): a constant one at
 * compile time (D_ARR_BOUNDS), any other at each access
 * (index_check(): "invalid address"), so an index past the end never
 * reads or writes the bytes of a neighbouring copy in the arena.
 *
 * The unary & (d_addrof_check()) names an element or member of such
 * memory without reading it: &p->m is p + m's offset, &p[i] is p + i,
 * &*p is p, typed as a pointer to the member's type; the checker
 * rewrites it into that arithmetic, so the evaluator never sees a '&'.
 * A global struct or array variable's members and elements are named
 * in its own storage (N_VARADDR, d_var_addr(): the slot's bytes, which
 * stay where they are for the run), so &a[i] and &s.m are pointers that
 * read and write the variable itself, in a later firing too: find_buf()
 * takes that storage as it takes a copy (bcopy() and copyinto() write
 * only scratch, as DTrace's).  A clause holding one is run in user
 * space: the kernel's planner knows no N_VARADDR.  A self->, this-> or
 * associative array's struct has storage made and dropped with its
 * thread, clause or key, which a kept pointer could outlive: refused,
 * as the address of a variable itself is.
 *
 * Safety.  A pointer is dereferenced only when the bytes it names lie
 * wholly inside one copy this run made; anything else (a traced
 * process's address cast to a pointer, a copy a variable kept from an
 * earlier firing, reading past the end) is DTrace's run-time "invalid
 * address" fault, never a read of dtrace's own memory.
 *
 * Where the bytes come from.  copyin(argN, size) with a constant size
 * reads the copy the kernel made when the probe fired when the consumer
 * has one (struct d_fire's mem[], d_clause_memargs(): the BPF backend
 * copies them in the probe's context, so a buffer the process reuses
 * right after the probe still reads as it was); otherwise, and for any
 * other address, the consumer's copyin callback reads the process's
 * memory when the record is run (/proc/PID/mem, or deadmem.c's files
 * once the process has exited).  A firing may copy at most
 * D_COPYIN_MAX bytes in all: past it, or for a negative size, the
 * fault is DTrace's "out of scratch space".
 *
 * alloca(size) takes zeroed bytes of the same budget and records them
 * as a copy is recorded, so its pointer reads (and is written by
 * bcopy() and copyinto()) under the same rule: every byte a script
 * touches lies in scratch this run made.  A store through a pointer
 * (*p = v, p[i] = v, p->m = v, op=, ++, --: d_store()) writes under
 * that rule too, into a copy or an alloca() alike, as DTrace's copyin()
 * result is scratch the clause may write; the process's own memory is
 * never written here.
 *
 * copyoutstr("literal", argN, size), copyoutstr(copyinstr(argA), argN,
 * size) and copyout(copyin(argA, n), argN, size) under -w are written
 * by the BPF program at the hit, the last two from what it reads at
 * argument A's address just before (d_prog_copyout() says when that is
 * exact: the clause's first statement, no predicate, once, in a program
 * that reads no process memory but that source); the clause, run
 * later, faults where the write did (struct d_fire's copyout).  Where
 * the consumer holds the firing thread at its probe instead (a -c/-p
 * process: d_compile_opts' copyout_held), any source, destination and
 * size are taken, and the clause writes as it runs (d_copyout_held(),
 * through the consumer's copyout_w); the firing's hit-time copies are
 * not read after such a write (d_fire's wrote), the process is.
 * Without a process to hold, a buffer built otherwise (alloca() and
 * bcopy()) is refused: dtrace.1.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* ------------------------------------------------------------------ */
/* Compile time */

/* The unary *: its operand must be a pointer to something sized. */
void d_mem_check(struct parser *ps, struct node *n)
{
	if (!n->a->ptr)
		d_perrt(ps, D_DEREF_NONPTR, n->line, n->col,
		       "operator %s requires an operand of pointer type: "
		       "cast copyin( )'s result, as *(int *)copyin(arg0, 4)",
		       n->b ? "[ ]" : "*");
	if (n->a->ptr == D_PTR_VOID)
		d_perrt(ps, D_DEREF_VOID, n->line, n->col,
		       "operator %s cannot dereference a void *: cast it "
		       "first, as *(int *)copyin(arg0, 4)",
		       n->b ? "[ ]" : "*");
	if (n->nelem) { /* a fixed-size array variable's: a constant index */
		const struct node *i = n->b;
		bool neg = i->op == N_UN && i->sub == '-' && i->a->op == N_INT;
		int64_t v = neg ? -i->a->ival : i->ival;

		if ((neg || i->op == N_INT) &&
		    (v < 0 || (uint64_t)v >= n->nelem))
			d_perrt(ps, D_ARR_BOUNDS, i->line, i->col,
				"index %lld is out of range for %s[%zu]",
				(long long)v,
				ps->prog->vars[n->a->a->sub].name, n->nelem);
	}
	if (n->a->ptr == D_PTR_SOU && n->b) { /* scaled by its size */
		struct tok at = { .line = n->line, .col = n->col };

		d_sou_size(ps, n->a->psou, D_DECL_INCOMPLETE, &at);
	}
	if (n->a->ptr == D_PTR_SOU) { /* a struct: '.' reads from it */
		n->sou = n->a->psou;
		n->sz = 0;
		return;
	}
	n->sz = n->a->ptr;
	n->sg = n->a->psg;
	if (n->a->pc.n) /* *pp: a pointer, to what pp's target points to */
		d_pchain_deref(n, &n->a->pc);
}

/* n is what a pointer to a pointer points to: itself a pointer, whose
 * target is pc's next level (8 bytes again while pc has more) or its
 * innermost type. */
void d_pchain_deref(struct node *n, const struct d_pchain *pc)
{
	struct d_pchain next = *pc;

	next.n--;
	if (next.n) {
		n->ptr = 8;
		n->psg = 0;
		n->psou = 0;
		n->pc = next;
		return;
	}
	n->ptr = pc->base;
	n->psg = pc->bsg;
	n->psou = pc->bsou;
	memset(&n->pc, 0, sizeof(n->pc));
}

/* Two pointers' targets' targets alike (pointers to one type). */
bool d_pchain_eq(const struct d_pchain *a, const struct d_pchain *b)
{
	return a->n == b->n &&
	       (!a->n ||
		(a->base == b->base && a->bsg == b->bsg && a->bsou == b->bsou));
}

/* What pointer arithmetic on n's pointer scales an integer by: the size
 * of what it points to (a struct's is known: the checker saw to it). */
uint64_t d_ptr_scale(const struct d_prog *p, const struct node *n)
{
	return n->ptr == D_PTR_SOU ? p->sous[n->psou - 1].size : n->ptr;
}

/* e.m and e->m: e a struct or union (*p, a nested member), or a
 * pointer to one; the member's offset in ival, its type in the node. */
void d_member_check(struct parser *ps, struct node *n, bool strict)
{
	const struct node *a = n->a;
	struct tok at = { .line = n->line, .col = n->col };
	const struct d_member *m;
	uint16_t sou;
	const struct node *outer = ps->sou_ok; /* a.b.c: a's '.' is in b's */

	ps->sou_ok = a;
	d_check(ps, n->a, strict);
	ps->sou_ok = outer;
	/* a variable no assignment checked so far has set (an aggregation's
	 * keys are checked as they are parsed, before the clause's
	 * statements): the strict pass knows what it points to */
	if (!strict && !a->ptr && !a->sou && a->kind == T_ANY) {
		n->sz = 8; /* for now: no array member (d_check()) */
		n->kind = T_ANY;
		return;
	}
	if (n->sub == OP_ARROW) {
		if (!a->ptr)
			d_perrt(ps, D_OP_PTR, n->line, n->col,
				"operator -> requires a pointer to a struct "
				"or union, cast as (struct NAME *)copyin(arg0, "
				"sizeof (struct NAME))");
		if (a->ptr != D_PTR_SOU)
			d_perrt(ps, D_OP_SOU, n->line, n->col,
				"operator -> requires a pointer to a struct "
				"or union, not to %s",
				a->ptr == D_PTR_VOID ? "void" : "an integer");
		sou = a->psou;
	} else {
		if (!a->sou)
			d_perrt(ps, D_OP_SOU, n->line, n->col,
				"operator . requires a struct or union: "
				"(*p).m, or p->m for a pointer p");
		sou = a->sou;
	}
	at.line = n->line;
	m = d_sou_member(ps, sou, n->sval, &at);
	if (m->unsupp)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"member %s of %s %s (%s) is %s: D cannot read it",
			n->sval, ps->prog->sous[sou - 1].isunion ? "union"
								 : "struct",
			ps->prog->sous[sou - 1].name,
			ps->prog->sous[sou - 1].obj, m->unsupp);
	n->ival = (int64_t)m->off;
	if (m->nelem) { /* an array: a pointer to its first element, as C's
			 * arrays decay; its value the address */
		n->sou = 0;
		n->sz = 0; /* d_member(): no read */
		n->sg = 0;
		n->ptr = m->sou ? D_PTR_SOU : m->ptr ? 8 : m->sz;
		n->psg = m->sou || m->ptr ? 0 : m->sg;
		n->psou = m->sou;
		memset(&n->pc, 0, sizeof(n->pc));
		if (m->ptr) { /* int *a[5]: a[i] is an int *, one level more */
			n->pc = m->pc;
			if (!m->pc.n) {
				n->pc.base = m->ptr;
				n->pc.bsg = m->psg;
				n->pc.bsou = m->psou;
			}
			n->pc.n++;
		}
		return;
	}
	n->sou = m->sou;
	n->sz = m->sz;
	n->sg = m->sg;
	n->ptr = m->ptr;
	n->psg = m->psg;
	n->psou = m->psou;
	n->pc = m->pc;
	n->bits = m->bits;
	n->shift = m->shift;
}

/* A node of op at n's place: the parts of &'s rewrite below. */
static struct node *at_node(struct parser *ps, const struct node *n, int op)
{
	struct tok at = { .line = n->line, .col = n->col };

	return d_mknode(ps, op, &at);
}

/* (uint64_t)e: an address as a plain integer, so that + adds bytes */
static struct node *as_u64(struct parser *ps, struct node *e)
{
	struct node *c = at_node(ps, e, N_CAST);

	c->sz = 8;
	c->a = e;
	return c;
}

/* e + off, in bytes */
static struct node *plus_bytes(struct parser *ps, struct node *e, int64_t off)
{
	struct node *b = at_node(ps, e, N_BIN), *k = at_node(ps, e, N_INT);

	k->ival = off;
	k->sz = 8;
	b->sub = '+';
	b->a = as_u64(ps, e);
	b->b = k;
	return b;
}

/*
 * An expression whose value is o's address, o a checked lvalue of
 * memory: *p is p, p[i] is p + i (C's scaling), e->m
 * is e + m's offset, e.m is e's address + the offset (e being *p, p[i]
 * or a nested member, whose value is already its address).  An element
 * of an array member starts at the member's address, typed as a pointer
 * to the element.  A global struct or array variable's member or
 * element (s.m, a[i] of int a[5]) starts at its storage (N_VARADDR);
 * any other variable's is refused.
 */
static struct node *addr_of(struct parser *ps, struct node *o,
			    const struct tok *amp)
{
	struct node *base;

	switch (o->op) {
	case N_DEREF:
		if (o->ival)
			d_perrt(ps, D_IDENT_UNSUPP, amp->line, amp->col,
				"cannot take the address of a string's "
				"character: a D string is dtrace's own "
				"storage, not the traced process's");
		if (!o->b)
			return o->a;
		base = o->a;
		if (o->a->op == N_MEMBER && !o->a->sz && !o->a->sou) {
			/* the element of an array member: from the
			 * member's address, as a pointer to the element */
			base = as_u64(ps, addr_of(ps, o->a, amp));
			base->ptr = o->a->ptr;
			base->psg = o->a->psg;
			base->psou = o->a->psou;
			base->pc = o->a->pc;
		}
		{
			struct node *b = at_node(ps, o, N_BIN);

			b->sub = '+';
			b->a = base;
			b->b = o->b;
			return b;
		}
	case N_MEMBER:
		if (o->sub == OP_ARROW)
			return plus_bytes(ps, o->a, o->ival);
		return plus_bytes(ps, addr_of(ps, o->a, amp), o->ival);
	case N_VAR:
		if (ps->prog->vars[o->sub].scope == SC_GLOBAL) {
			struct node *v = at_node(ps, o, N_VARADDR);

			v->sub = o->sub;
			v->sz = 8;
			return v;
		}
		/* fall through */
	case N_ASSOC:
		d_perrt(ps, D_IDENT_UNSUPP, amp->line, amp->col,
			"cannot take the address of a member or element of "
			"%s: only a global struct or array variable has "
			"storage of its own here; a self->, this-> or "
			"associative array's is made and dropped with its "
			"thread, clause or key, and a pointer kept past that "
			"would name nothing",
			ps->prog->vars[o->sub].name);
	default:
		d_perrt(ps, D_ADDROF_LVAL, amp->line, amp->col,
			"unacceptable operand for unary & operator");
	}
}

/*
 * &o (expr.c parses it as N_UN '&'): o an element or member of memory a
 * pointer names (a copyin() copy, an alloca(), or a traced process's
 * address cast to a pointer, which & does not read).  Once o's type is
 * known n becomes the pointer arithmetic that computes the address
 * (addr_of()), cast to a pointer to o's type, so nothing after the
 * checker (the evaluator, the BPF planner) meets a '&'.  A bit-field
 * and an array member itself (C's pointer to a whole array) are
 * refused.
 */
int d_addrof_check(struct parser *ps, struct node *n, bool strict)
{
	struct node *o = n->a, *c;
	const struct node *outer = ps->sou_ok;
	struct tok amp = { .line = n->line, .col = n->col };
	int k;

	ps->sou_ok = o; /* &(*p), &p->nested, &p->arr: no value read */
	k = d_check(ps, o, strict);
	ps->sou_ok = outer;
	if (k == T_ANY && !strict)
		return n->kind = T_ANY; /* o's type: the strict pass */
	if (o->op != N_DEREF && o->op != N_MEMBER)
		d_perrt(ps, D_ADDROF_LVAL, amp.line, amp.col,
			"unacceptable operand for unary & operator");
	if (o->bits)
		d_perrt(ps, D_ADDROF_BITFIELD, amp.line, amp.col,
			"cannot take address of bit-field");
	if (o->op == N_MEMBER && !o->sz && !o->sou)
		d_perrt(ps, D_IDENT_UNSUPP, amp.line, amp.col,
			"cannot take the address of array member %s (a "
			"pointer to the whole array): its first element is "
			"at &%s[0]",
			o->sval, o->sval);
	c = as_u64(ps, addr_of(ps, o, &amp));
	if (o->sou) {
		c->ptr = D_PTR_SOU;
		c->psou = o->sou;
	} else if (o->ptr) { /* a pointer to a pointer (d_pchain) */
		c->ptr = 8;
		c->pc = o->pc;
		if (!o->pc.n) {
			c->pc.base = o->ptr;
			c->pc.bsg = o->psg;
			c->pc.bsou = o->psou;
		}
		c->pc.n++;
	} else {
		c->ptr = o->sz;
		c->psg = o->sg;
	}
	*n = *c;
	return d_check(ps, n, strict);
}

/* tracemem(addr, size [, nbytes]): addr a pointer, size a constant. */
void d_tracemem_check(struct parser *ps, struct stmt *st, bool strict)
{
	struct node *a = st->args[0], *sz;

	for (unsigned i = 0; i < st->nargs; i++) {
		d_check(ps, st->args[i], strict);
		d_need_int(ps, st->args[i], st->args[i]->kind, "tracemem( )",
			   strict);
		if (i) /* the sizes */
			d_fold_int(ps, &st->args[i]);
	}
	sz = st->args[1];
	if (!a->ptr)
		d_perrt(ps, D_TRACEMEM_ADDR, a->line, a->col,
		       "tracemem( ) argument #1 must be a pointer to "
		       "copyin( )'s scratch, as tracemem(copyin(arg0, 16), "
		       "16)");
	if (sz->op != N_INT || sz->ival <= 0 || sz->ival > D_COPYIN_MAX)
		d_perrt(ps, D_TRACEMEM_SIZE, sz->line, sz->col,
		       "tracemem( ) argument #2 must be a non-zero positive "
		       "integer constant of at most %d", D_COPYIN_MAX);
}

/* s = *p: s a variable of any kind that holds that struct from now on
 * (or declared of its type); anything else assigned to it, or it to
 * anything, is a compile error (check.c calls this for either side
 * being a struct). */
void d_sou_assign_check(struct parser *ps, struct node *n, struct var *v)
{
	const struct node *b = n->b;
	char disp[160];

	d_var_display(v, disp, sizeof(disp));
	if ((v->sou && ps->prog->sous[v->sou - 1].isarray) ||
	    (b->sou && ps->prog->sous[b->sou - 1].isarray))
		d_perrt(ps, D_OP_WRITE, n->line, n->col,
			"operator = cannot store an array: store its "
			"elements (a[i] = v)");
	if (!b->sou)
		d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
			"operator = cannot assign a%s %s to %s, which holds "
			"struct %s",
			b->kind == T_STR ? "" : "n", d_kind_name(b->kind), disp,
			ps->prog->sous[v->sou - 1].name);
	if (n->sub != '=')
		d_perrt(ps, D_OP_SOU, n->line, n->col,
			"operator %s cannot be applied to a struct or union",
			"op=");
	if (v->kind == T_STR || (v->kind == T_INT && !v->sou))
		d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
			"operator = cannot assign struct %s to %s, which "
			"holds a%s %s",
			ps->prog->sous[b->sou - 1].name, disp,
			v->kind == T_STR ? "" : "n",
			v->kind == T_STR ? "string" : "integer");
	if (v->sou && v->sou != b->sou)
		d_perrt(ps, D_OP_INCOMPAT, n->line, n->col,
			"operator = cannot assign struct %s to %s, which "
			"holds struct %s",
			ps->prog->sous[b->sou - 1].name, disp,
			ps->prog->sous[v->sou - 1].name);
	if (ps->void_ok != n)
		d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
			"a struct assignment is a statement of its own, not "
			"a value");
	v->sou = b->sou;
	v->kind = T_INT;
	v->assigned = true;
}

/* ------------------------------------------------------------------ */
/* Run time */

static void add_buf(struct ectx *x, unsigned char *buf, size_t size);

/* The copy holding [p, p + len), or NULL; else the storage of the
 * global struct or array variable holding it (d_var_addr()), as a copy
 * in *var. */
static const struct d_cbuf *find_buf(const struct ectx *x, uint64_t p,
				     size_t len, struct d_cbuf *var)
{
	const struct d_prog *pr = x->p;

	for (unsigned i = 0; i < x->ncbufs; i++) {
		uint64_t b = (uint64_t)(uintptr_t)x->cbufs[i].b;

		if (p >= b && p - b <= x->cbufs[i].len &&
		    len <= x->cbufs[i].len - (p - b))
			return &x->cbufs[i];
	}
	for (unsigned i = 0; var && i < pr->nvars && i < pr->nval; i++) {
		const struct dv *v = &pr->gval[i];
		size_t vlen;
		uint64_t b;

		if (pr->vars[i].scope != SC_GLOBAL || !pr->vars[i].sou ||
		    v->k != K_STR || v->show != DV_SOU)
			continue;
		vlen = pr->sous[pr->vars[i].sou - 1].size;
		b = (uint64_t)(uintptr_t)v->s;
		if (p >= b && p - b <= vlen && len <= vlen - (p - b)) {
			var->b = (unsigned char *)(uintptr_t)v->s;
			var->len = vlen;
			return var;
		}
	}
	return NULL;
}

struct dv d_copyin(struct ectx *x, const struct node *n, const struct dv *a)
{
	const struct d_fire *f = x->f;
	uint64_t addr = (uint64_t)a[0].i;
	unsigned char *buf;
	size_t size;

	if (a[1].i < 0 || (uint64_t)a[1].i > D_COPYIN_MAX - x->cbytes)
		d_fault(x, FLT_NOSCRATCH, 0);
	size = (size_t)a[1].i;
	buf = d_ar_alloc(&x->scratch, size ? size : 1);
	if (n->args[0]->op == N_ARGN && f->mem[n->args[0]->sub] &&
	    f->memlen[n->args[0]->sub] >= size && !(f->wrote && *f->wrote)) {
		memcpy(buf, f->mem[n->args[0]->sub], size);
	} else if (size && (!f->copyin || !addr ||
			    f->copyin(f->copyin_ctx, f->pid, addr, buf,
				      size) < 0)) {
		d_fault(x, FLT_BADADDR, addr);
	}
	add_buf(x, buf, size);
	return d_dv_int((int64_t)(uintptr_t)buf, 8, false);
}

/* The n->sz bytes at p, as n's integer type: p must lie in a copy. */
struct dv d_load(struct ectx *x, const struct node *n, uint64_t p)
{
	uint64_t v = 0;
	struct d_cbuf vb;

	if (!find_buf(x, p, n->sz, &vb))
		d_fault(x, FLT_BADADDR, p);
	memcpy(&v, (const void *)(uintptr_t)p, n->sz); /* little-endian */
	return d_dv_int((int64_t)v, n->sz, n->sg);
}

/* a[i] of a fixed-size array variable: i below its size, else the
 * "invalid address" fault at the element's address, as DTrace reports
 * an access past an array's end; never a neighbouring copy's bytes. */
static void index_check(struct ectx *x, const struct node *n, struct dv i,
			uint64_t at)
{
	if (n->nelem && ((i.sg && i.i < 0) || (uint64_t)i.i >= n->nelem))
		d_fault(x, FLT_BADADDR, at);
}

/* The address *p or p[i] names. */
uint64_t d_deref_addr(struct ectx *x, const struct node *n)
{
	struct dv p = d_eval(x, n->a);

	if (n->b) { /* a[i]: C's scaling by the element's size */
		struct dv i = d_eval(x, n->b);

		p.i = (int64_t)((uint64_t)p.i +
				(uint64_t)i.i * d_ptr_scale(x->p, n->a));
		index_check(x, n, i, (uint64_t)p.i);
	}
	return (uint64_t)p.i;
}

struct dv d_deref(struct ectx *x, const struct node *n)
{
	uint64_t p = d_deref_addr(x, n);

	if (n->sou) /* *p of a struct: its address, for '.' */
		return d_dv_int((int64_t)p, 8, false);
	return d_load(x, n, p);
}

/*
 * *p = v: v as n's integer type into the n->sz bytes at p, which must
 * lie in a copy or an alloca() of this run (scratch: DTrace stores
 * nowhere else, and here nothing else is dtrace's to write); the value
 * as stored, which is the assignment's.
 */
struct dv d_store(struct ectx *x, const struct node *n, uint64_t p, struct dv v)
{
	struct dv r = d_dv_int(v.i, n->sz, n->sg);
	uint64_t u = (uint64_t)r.i;
	struct d_cbuf vb;

	if (!find_buf(x, p, n->sz, &vb))
		d_fault(x, FLT_BADADDR, p);
	memcpy((void *)(uintptr_t)p, &u, n->sz); /* little-endian */
	return r;
}

/* Bit-field n's value in u, the bits at its shift: sign-extended if
 * its type is signed. */
static struct dv bits_value(const struct node *n, uint64_t u)
{
	u >>= n->shift;
	if (n->bits < 64) {
		u &= (1ULL << n->bits) - 1;
		if (n->sg && (u >> (n->bits - 1)) & 1)
			u |= ~0ULL << n->bits;
	}
	return d_dv_int((int64_t)u, n->sz, n->sg);
}

/* e.m, e->m: the member at e's address + its offset. */
struct dv d_member(struct ectx *x, const struct node *n)
{
	struct dv p = d_eval(x, n->a);
	uint64_t at = (uint64_t)p.i + (uint64_t)n->ival;
	struct dv v;

	if (n->sou || !n->sz) /* a nested struct, for '.'; an array */
		return d_dv_int((int64_t)at, 8, false);
	v = d_load(x, n, at);
	/* a bit-field: its bits of the unit holding it */
	return n->bits ? bits_value(n, (uint64_t)v.i) : v;
}

/*
 * The place a store writes (n: *p, p[i], e->m, e.m): its address and
 * type, and when it lies in a struct variable (e.m, e.a[i] with e the
 * variable or a '.' chain from it) that variable, whose bytes are a
 * scratch copy here (d_sou_get()) and go back into its slot once the
 * store is made (d_lval_store()).  A dynamic variable's keys are
 * evaluated once, here: the slot is found again by the same key.
 */
static uint64_t lval_addr(struct ectx *x, const struct node *n,
			  struct d_lval *l)
{
	/*
	 * a global's storage itself (d_var_addr()): a store goes in place,
	 * after its right side ran, so a write through a pointer into the
	 * variable made by that right side (a[0] = (*x = 5)) stays
	 */
	if (n->op == N_VAR && n->sou &&
	    x->p->vars[n->sub].scope == SC_GLOBAL)
		return (uint64_t)d_var_addr(x, n).i;
	if ((n->op == N_VAR || n->op == N_ASSOC) && n->sou) {
		struct sbuf k = { 0 };
		struct dv *slot = d_var_slot(x, n, &k, false);
		struct dv v = slot ? *slot : d_dv_int(0, 8, true);

		l->root = n;
		l->klen = k.len;
		l->key = d_ar_alloc(&x->scratch, k.len ? k.len : 1);
		if (k.len)
			memcpy(l->key, k.b, k.len);
		free(k.b);
		l->base = (uint64_t)d_sou_get(x, n, v).i;
		return l->base;
	}
	if (n->op == N_MEMBER && n->sub == '.')
		return lval_addr(x, n->a, l) + (uint64_t)n->ival;
	if (n->op == N_DEREF && n->b && n->a->op == N_MEMBER &&
	    n->a->sub == '.' && !n->a->sz && !n->a->sou) {
		uint64_t at = lval_addr(x, n->a, l); /* s.a[i] */
		struct dv i = d_eval(x, n->b);

		at += (uint64_t)i.i * d_ptr_scale(x->p, n->a);
		index_check(x, n, i, at);
		return at;
	}
	if (n->op == N_DEREF)
		return d_deref_addr(x, n);
	if (n->op == N_MEMBER) /* e->m */
		return (uint64_t)d_eval(x, n->a).i + (uint64_t)n->ival;
	return (uint64_t)d_eval(x, n).i; /* a struct's address, for '.' */
}

void d_lval(struct ectx *x, const struct node *n, struct d_lval *l)
{
	memset(l, 0, sizeof(*l));
	l->n = n;
	l->addr = lval_addr(x, n, l);
}

/* The value at l, as its type (a bit-field's bits). */
struct dv d_lval_load(struct ectx *x, const struct d_lval *l)
{
	struct dv v = d_load(x, l->n, l->addr);

	return l->n->bits ? bits_value(l->n, (uint64_t)v.i) : v;
}

/*
 * v into l: as the type's integer, or into a bit-field's bits of its
 * unit (the others kept); then a struct variable's copy back into its
 * slot.  The value as stored, which is the assignment's.
 */
struct dv d_lval_store(struct ectx *x, const struct d_lval *l, struct dv v)
{
	const struct node *n = l->n;
	struct dv r;

	if (n->bits) {
		uint64_t u = (uint64_t)d_load(x, n, l->addr).i;
		uint64_t m = n->bits < 64 ? (1ULL << n->bits) - 1 : ~0ULL;

		u = (u & ~(m << n->shift)) | (((uint64_t)v.i & m) << n->shift);
		d_store(x, n, l->addr, d_dv_int((int64_t)u, n->sz, n->sg));
		r = bits_value(n, (uint64_t)v.i << n->shift);
	} else {
		r = d_store(x, n, l->addr, v);
	}
	if (l->root) {
		struct sbuf k = { .b = l->key, .len = l->klen };

		d_sou_put(x, l->root, &k, l->base);
	}
	return r;
}

/* stringof() of a pointer: the copy's bytes from p to a NUL, the end of
 * the copy, or strsize - 1 bytes, whichever comes first. */
struct dv d_mem_string(struct ectx *x, uint64_t p)
{
	struct d_cbuf vb;
	const struct d_cbuf *b = find_buf(x, p, 0, &vb);
	const char *s = (const char *)(uintptr_t)p;
	size_t len, max;

	if (!b)
		d_fault(x, FLT_BADADDR, p);
	max = b->len - (size_t)(p - (uint64_t)(uintptr_t)b->b);
	if (max > x->p->strsize - 1)
		max = x->p->strsize - 1;
	len = strnlen(s, max);
	return d_dv_tstr(d_ar_strndup(&x->scratch, s, len));
}

/* Record [buf, buf + size) as scratch this run may read and write. */
static void add_buf(struct ectx *x, unsigned char *buf, size_t size)
{
	/* the list lives in the arena too: grown by copying, it is short */
	struct d_cbuf *v = d_ar_alloc(&x->scratch, (x->ncbufs + 1) * sizeof(*v));

	if (x->ncbufs)
		memcpy(v, x->cbufs, x->ncbufs * sizeof(*v));
	v[x->ncbufs].b = buf;
	v[x->ncbufs].len = size;
	x->cbufs = v;
	x->ncbufs++;
	x->cbytes += size;
}

/* this->s (a struct variable, slot its value): the address of a scratch
 * copy of its bytes, zeros while it was never assigned. */
struct dv d_sou_get(struct ectx *x, const struct node *n, struct dv slot)
{
	size_t size = x->p->sous[n->sou - 1].size;
	unsigned char *buf = d_ar_alloc(&x->scratch, size ? size : 1);
	struct d_cbuf *v;

	if (slot.k == K_STR && slot.show == DV_SOU)
		memcpy(buf, slot.s, size);
	else
		memset(buf, 0, size);
	/* as add_buf(), outside the copyin() budget */
	v = d_ar_alloc(&x->scratch, (x->ncbufs + 1) * sizeof(*v));
	if (x->ncbufs)
		memcpy(v, x->cbufs, x->ncbufs * sizeof(*v));
	v[x->ncbufs].b = buf;
	v[x->ncbufs].len = size;
	x->cbufs = v;
	x->ncbufs++;
	return d_dv_int((int64_t)(uintptr_t)buf, 8, false);
}

/*
 * s = *p: the struct's bytes at addr (in a copy of this run) into
 * struct variable var's slot (k: a dynamic one's key, as
 * d_var_slot() takes it; NULL: built here), which owns them as it owns
 * a string.
 */
void d_sou_put(struct ectx *x, const struct node *var, struct sbuf *k,
	       uint64_t addr)
{
	size_t size = x->p->sous[x->p->vars[var->sub].sou - 1].size;
	struct sbuf own = { 0 };
	struct dv *slot;
	struct d_cbuf vb;
	char *b;

	if (!find_buf(x, addr, size, &vb))
		d_fault(x, FLT_BADADDR, addr);
	slot = d_var_slot(x, var, k ? k : &own, true);
	free(own.b);
	if (slot->k == K_STR && slot->show == DV_SOU) { /* in place */
		memmove((char *)slot->s, (const void *)(uintptr_t)addr, size);
		return;
	}
	if (slot->k == K_STR)
		free((char *)slot->s);
	b = xmalloc(size ? size : 1);
	memcpy(b, (const void *)(uintptr_t)addr, size);
	*slot = d_dv_str(b);
	slot->show = DV_SOU;
}

/*
 * The address of global struct or array variable n->sub's storage
 * (N_VARADDR: &s.m, &a[i]): its slot's bytes, made (zeros) here if it
 * was never assigned.  They stay where they are for the program's life
 * (d_sou_put() writes in place), so a pointer into them kept in a
 * variable reads and writes them in a later firing too (find_buf()).
 */
struct dv d_var_addr(struct ectx *x, const struct node *n)
{
	struct dv *slot = &x->p->gval[n->sub];
	size_t size = x->p->sous[x->p->vars[n->sub].sou - 1].size;
	char *b;

	if (slot->k != K_STR || slot->show != DV_SOU) {
		b = xmalloc(size ? size : 1);
		memset(b, 0, size ? size : 1);
		*slot = d_dv_str(b);
		slot->show = DV_SOU;
	}
	return d_dv_int((int64_t)(uintptr_t)slot->s, 8, false);
}

/* alloca(size): size bytes of the clause's scratch, zeroed. */
struct dv d_alloca(struct ectx *x, const struct dv *a)
{
	unsigned char *buf;

	if ((a[0].sg && a[0].i < 0) ||
	    (uint64_t)a[0].i > D_COPYIN_MAX - x->cbytes)
		d_fault(x, FLT_NOSCRATCH, 0);
	buf = d_ar_alloc(&x->scratch, a[0].i ? (size_t)a[0].i : 1);
	memset(buf, 0, a[0].i ? (size_t)a[0].i : 1);
	add_buf(x, buf, (size_t)a[0].i);
	return d_dv_int((int64_t)(uintptr_t)buf, 8, false);
}

/* A size argument of bcopy() and the like: negative is too big. */
static size_t size_arg(struct ectx *x, const struct dv *v, uint64_t at)
{
	if ((v->sg && v->i < 0) || (uint64_t)v->i > D_COPYIN_MAX)
		d_fault(x, FLT_BADADDR, at);
	return (size_t)v->i;
}

/* bcopy(src, dst, size): both in this run's scratch (DTrace: src any
 * address it may load, dst scratch; here every readable byte is a copy). */
void d_bcopy(struct ectx *x, const struct dv *a)
{
	uint64_t src = (uint64_t)a[0].i, dst = (uint64_t)a[1].i;
	size_t n = size_arg(x, &a[2], dst);
	struct d_cbuf vb;

	if (!find_buf(x, src, n, &vb))
		d_fault(x, FLT_BADADDR, src);
	if (!find_buf(x, dst, n, NULL)) /* scratch only, as DTrace's */
		d_fault(x, FLT_BADADDR, dst);
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
}

/*
 * copyout(buf, uaddr, size), copyoutstr(str, uaddr, size) with the
 * firing thread held at its probe (f->copyout 2: consumer/dlhold.c):
 * the bytes the clause has now (scratch: alloca(), copyin()'s copies;
 * a string, up to its NUL, cut to size) written into the process before
 * the thread runs on.  A source outside the scratch faults at it, a
 * write that fails at the destination.
 */
void d_copyout_held(struct ectx *x, const struct dv *a, bool str)
{
	const struct d_fire *f = x->f;
	uint64_t dst = (uint64_t)a[1].i;
	size_t n = size_arg(x, &a[2], dst);
	const void *src;
	struct d_cbuf vb;

	if (str) {
		src = a[0].s;
		if (strlen(a[0].s) + 1 < n)
			n = strlen(a[0].s) + 1;
	} else {
		if (n && !find_buf(x, (uint64_t)a[0].i, n, &vb))
			d_fault(x, FLT_BADADDR, (uint64_t)a[0].i);
		src = (const void *)(uintptr_t)a[0].i;
	}
	if (n && f->wrote) /* even a write that fails part way */
		*f->wrote = true;
	if (n && (!f->copyout_w || !dst ||
		  f->copyout_w(f->copyin_ctx, f->pid, dst, src, n) < 0))
		d_fault(x, FLT_BADADDR, dst);
}

/* copyinto(uaddr, size, dst): copyin() into scratch the script has. */
void d_copyinto(struct ectx *x, const struct dv *a)
{
	const struct d_fire *f = x->f;
	uint64_t addr = (uint64_t)a[0].i, dst = (uint64_t)a[2].i;
	size_t n = size_arg(x, &a[1], dst);

	if (!find_buf(x, dst, n, NULL)) /* scratch only, as bcopy()'s */
		d_fault(x, FLT_BADADDR, dst);
	if (n && (!f->copyin || !addr ||
		  f->copyin(f->copyin_ctx, f->pid, addr,
			    (void *)(uintptr_t)dst, n) < 0))
		d_fault(x, FLT_BADADDR, addr);
}

/*
 * tracemem(): DTrace's raw-bytes layout (a header of the 16 column
 * digits, then per 16 bytes the offset, the bytes in hex and as text, a
 * byte outside ' '..'~' shown as '.', so the process's bytes never
 * reach the terminal as controls).  A third argument, when not negative
 * and smaller, is how many of the size's bytes to show.
 */
void d_tracemem(struct ectx *x, const struct stmt *st)
{
	struct dv p = d_eval(x, st->args[0]), d;
	size_t size = (size_t)st->args[1]->ival, i, j;
	struct sbuf *sb = &x->out;
	const unsigned char *c;
	struct d_cbuf vb;

	if (st->nargs > 2) {
		d = d_eval(x, st->args[2]);
		if (!(d.sg && d.i < 0) && (uint64_t)d.i < size)
			size = (size_t)d.i;
	}
	if (!find_buf(x, (uint64_t)p.i, size, &vb))
		d_fault(x, FLT_BADADDR, (uint64_t)p.i);
	if (!size)
		return;
	c = (const unsigned char *)(uintptr_t)p.i;
	d_sb_printf(sb, "\n%5s      ", "");
	for (i = 0; i < 16; i++)
		d_sb_printf(sb, "  %c", "0123456789abcdef"[i]);
	d_sb_puts(sb, "  0123456789abcdef\n");
	for (i = 0; i < size; i += 16) {
		d_sb_printf(sb, "%5s%5zx:", "", i);
		for (j = i; j < i + 16 && j < size; j++)
			d_sb_printf(sb, " %02x", c[j]);
		for (; j % 16; j++)
			d_sb_puts(sb, "   ");
		d_sb_puts(sb, "  ");
		for (j = i; j < i + 16 && j < size; j++)
			d_sb_printf(sb, "%c",
				    c[j] < ' ' || c[j] > '~' ? '.' : c[j]);
		d_sb_puts(sb, "\n");
	}
}

/* ------------------------------------------------------------------ */
/* What the kernel may copy at hit time (d_clause_memargs) */

static uint16_t node_mem(const struct node *n, uint32_t *size)
{
	uint16_t m = 0;

	if (!n)
		return 0;
	if (n->op == N_FUNC && d_funcs[n->sub].id == F_COPYIN &&
	    n->args[0]->op == N_ARGN && n->args[1]->op == N_INT &&
	    n->args[1]->ival > 0 && n->args[1]->ival <= D_COPYIN_MAX) {
		unsigned a = (unsigned)n->args[0]->sub;

		m |= (uint16_t)(1u << a);
		if ((uint32_t)n->args[1]->ival > size[a])
			size[a] = (uint32_t)n->args[1]->ival;
	}
	m |= node_mem(n->a, size) | node_mem(n->b, size) |
	     node_mem(n->c, size);
	for (unsigned i = 0; i < n->nargs; i++)
		m |= node_mem(n->args[i], size);
	return m;
}

static uint16_t stmts_mem(const struct stmt *v, unsigned n, uint32_t *size)
{
	uint16_t m = 0;

	for (unsigned j = 0; j < n; j++) {
		const struct stmt *st = &v[j];
		unsigned k;

		m |= node_mem(st->e, size);
		for (k = 0; k < st->nargs; k++)
			m |= node_mem(st->args[k], size);
		for (k = 0; k < st->nkeys; k++)
			m |= node_mem(st->keys[k], size);
		m |= stmts_mem(st->body, st->nbody, size);
		m |= stmts_mem(st->els, st->nels, size);
	}
	return m;
}

uint16_t d_clause_memargs(const struct d_prog *p, unsigned clause,
			  uint32_t size[D_MAXARGS])
{
	const struct clause *c;

	memset(size, 0, D_MAXARGS * sizeof(size[0]));
	if (!p || clause >= p->nclauses)
		return 0;
	c = &p->clauses[clause];
	return node_mem(c->pred, size) | stmts_mem(c->stmts, c->nstmts, size);
}

/* ------------------------------------------------------------------ */
/* What the kernel writes at hit time (d_prog_copyout) */

/*
 * copyout() and copyoutstr() calls in n (out: the last), and reads of
 * the process other than a write's source (copyinstr(argA),
 * copyin(argA, n): the BPF program reads it just before it writes, as
 * the clause orders them).
 */
static void node_out(const struct node *n, unsigned *nout,
		     const struct node **out, bool *reads)
{
	if (!n)
		return;
	if (n->op == N_FUNC) {
		int id = d_funcs[n->sub].id;

		if (id == F_COPYOUTSTR || id == F_COPYOUT) {
			const struct node *b = n->args[0];

			++*nout;
			*out = n;
			if (b->op == N_FUNC) /* its argN, n: no reads */
				b = NULL;
			node_out(b, nout, out, reads);
			node_out(n->args[1], nout, out, reads);
			node_out(n->args[2], nout, out, reads);
			return;
		}
		if (id == F_COPYIN || id == F_COPYINSTR || id == F_COPYINTO)
			*reads = true;
	}
	node_out(n->a, nout, out, reads);
	node_out(n->b, nout, out, reads);
	node_out(n->c, nout, out, reads);
	for (unsigned i = 0; i < n->nargs; i++)
		node_out(n->args[i], nout, out, reads);
}

static void stmts_out(const struct stmt *v, unsigned n, unsigned *nout,
		      const struct node **out, bool *reads)
{
	for (unsigned j = 0; j < n; j++) {
		const struct stmt *st = &v[j];
		unsigned k;

		node_out(st->e, nout, out, reads);
		for (k = 0; k < st->nargs; k++)
			node_out(st->args[k], nout, out, reads);
		for (k = 0; k < st->nkeys; k++)
			node_out(st->keys[k], nout, out, reads);
		stmts_out(st->body, st->nbody, nout, out, reads);
		stmts_out(st->els, st->nels, nout, out, reads);
	}
}

int d_prog_copyout(const struct d_prog *p, struct d_copyout *co,
		   const char **why)
{
	const struct node *out = NULL, *src;
	unsigned nout = 0, at = 0;
	bool reads = false;
	uint64_t size;

	memset(co, 0, sizeof(*co));
	for (unsigned ci = 0; p && ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		unsigned before = nout;

		node_out(c->pred, &nout, &out, &reads);
		stmts_out(c->stmts, c->nstmts, &nout, &out, &reads);
		if (nout != before)
			at = ci;
	}
	if (!nout)
		return 0;
	/* taken only because the thread can be held (copyout_held) */
	*why = d_copyout_why(out, d_funcs[out->sub].id == F_COPYOUTSTR);
	src = out->args[0];
	size = (uint64_t)out->args[2]->ival;
	if (*why)
		;
	else if (nout > 1)
		*why = "more than one copyout( ) or copyoutstr( ) in the "
		       "program";
	else if (reads)
		*why = "copyout( ) or copyoutstr( ) in a program that reads "
		       "the process's memory (copyin( ), copyinstr( ), "
		       "copyinto( )) but for the write's own source: those "
		       "reads are made at the hit or later, so they would not "
		       "see the write in the order the clauses say";
	else if (p->clauses[at].pred ||
		 p->clauses[at].stmts[0].kind != S_EXPR ||
		 p->clauses[at].stmts[0].e != out)
		*why = "copyout( ) or copyoutstr( ) that is not its clause's "
		       "first statement, in a clause without a predicate: the "
		       "BPF program writes at every hit of the clause's "
		       "probes, before anything else of the clause runs";
	else if (src->op == N_STR &&
		 strlen(src->sval) + 1 > D_COPYOUT_MAX)
		*why = "copyoutstr( ) of a string longer than the BPF "
		       "program's 63 bytes";
	else if (src->op == N_FUNC && d_funcs[src->sub].id == F_COPYINSTR &&
		 size > D_COPYOUT_MAX - 1)
		*why = "copyoutstr(copyinstr(argA), argN, size) with a size "
		       "over the 63 bytes the BPF program reads at the hit";
	else if (src->op == N_FUNC && d_funcs[src->sub].id == F_COPYIN &&
		 ((uint64_t)src->args[1]->ival > D_COPYOUT_MAX ||
		  src->args[1]->ival <= 0 ||
		  size > (uint64_t)src->args[1]->ival))
		*why = "copyout(copyin(argA, n), argN, size) with n over the "
		       "64 bytes the BPF program reads at the hit, or a size "
		       "over n (bytes the copy does not hold)";
	if (*why)
		return -1;
	co->clause = at;
	co->arg = (unsigned)out->args[1]->sub;
	co->len = (size_t)size; /* at most size bytes */
	if (src->op == N_STR) {
		co->bytes = src->sval;
		if (strlen(co->bytes) + 1 < co->len) /* the NUL too */
			co->len = strlen(co->bytes) + 1;
		return 1;
	}
	co->src = 1 + (unsigned)src->args[0]->sub;
	co->str = d_funcs[src->sub].id == F_COPYINSTR;
	/* copyinstr(): what the clause's own copy holds, strsize's NUL
	 * included, at most the 64 the program reads */
	co->rlen = co->str ? p->strsize : (size_t)src->args[1]->ival;
	if (co->rlen > D_COPYOUT_MAX)
		co->rlen = D_COPYOUT_MAX;
	return 1;
}
