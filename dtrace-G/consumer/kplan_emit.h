/* SPDX-License-Identifier: MIT */
/*
 * kplan_emit.h - what the three files of the kernel's instructions
 * share (kplan_emit.c's opening comment lists them: kplan_emit.c the
 * entry points, kplan_stmt.c the statements, kplan_expr.c the
 * expressions): the walk's state, struct em, and the functions one
 * defines and another calls.  Not for anything else: kplan.h is the
 * interface.
 */
#ifndef USDT_DTRACE_KPLAN_EMIT_H
#define USDT_DTRACE_KPLAN_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"

struct em {
	struct ubpf_kplan *pl;
	unsigned n;	     /* instructions */
	unsigned depth, max; /* stack */
	bool full;
	const struct d_probe *probe;
	const struct d_kplan *k;
	bool tls; /* a self-> variable read or written */
	bool garr; /* ... a global array's element (kplan_garr.c) */
	/* d_kplan_fits(): the first reason the clause does not fit this
	 * probe (unfit()), or NULL */
	char *why;
	size_t wlen;
};

/* kplan_emit.c */
/* The clause does not fit this probe, for the reason fmt says (the
 * first one is kept: d_kplan_fits()) */
void unfit(struct em *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct ubpf_kop *put(struct em *m, int op, int pops, int pushes);
void norm(struct em *m, uint8_t sz, uint8_t sg);
void var_op(struct em *m, struct ubpf_kop *o, unsigned v);
bool form_load(struct em *m, uint32_t b);

/* kplan_expr.c */
void mem_site(struct em *m, struct ubpf_kop *o, const struct node *n);
/* ... o, the string comparison or AKEY key n, a fault site (fmode):
 * o->agg */
void fault_site(struct em *m, struct ubpf_kop *o, const struct node *n);
bool skey_int(const struct kstmt *ks, unsigned j, const struct d_probe *probe);
void sdata(struct em *m, const char *s, size_t len);
void vkey_room(struct em *m, const struct kstmt *ks, struct ubpf_kop *o,
	       unsigned j);
void lit_key(struct em *m, const struct kstmt *ks, const struct node *n,
	     unsigned j);
void mix_key(struct em *m, const struct kstmt *ks, const struct node *n,
	     unsigned j);
void smix_key(struct em *m, const struct node *n, unsigned j, uint8_t a);
void assoc_keys(struct em *m, const struct node *n, struct ubpf_kop *o);
void emit(struct em *m, const struct node *n);

/* kplan_stmt.c */
void emit_list(struct em *m, const struct clause *c, unsigned clause,
	       unsigned from, unsigned to, bool sout);

#endif /* USDT_DTRACE_KPLAN_EMIT_H */
