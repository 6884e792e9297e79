// SPDX-License-Identifier: MIT
/*
 * kplan_akey.c - probe names and string literals as keys of the
 * thread-local arrays the kernel keeps: `self->crypt_start[probefunc] =
 * vtimestamp` at a function's entry, read and cleared at its return (the
 * book's sshcipher*.d), `self->t["read"]`.
 *
 * cgtlsa keys an element by integers (cgen_plan.c's tlsa_key()).  A key
 * that is one of the probe's names (probeprov, probemod, probefunc,
 * probename) or a string literal is one string at every hit of a probe,
 * known when the probe's plan is made.  So where every key at position i
 * of array v, in every clause, is one of those (kp_akeys_make(): bit i of
 * k->akstr[v]), the kernel keys by the string's number in one table of
 * the run's (k->names: kp_akey_id() interns the strings as the plans are
 * made), an immediate in each probe's plan (kplan_expr.c's
 * assoc_keys()), typed as a signed 8-byte key in the variable word.
 *
 * Why that is exact: user space keys an element by its keys' values
 * (run.c's dyn_key(), value.c's d_key_add(): a string is "s", its bytes
 * and its NUL, whole, with no strsize cut), so two keys name one element
 * exactly when their strings are equal; here one string has one number
 * and one number one string, since the table only grows and a string is
 * found before it is added.  The names are the very strings run.c reads
 * (the probe's prov, mod, func and name, "" for none), a literal its
 * text.  An element moved to user space (d_kplan_tlsa_put(): a process
 * kept there, bpf_agg_cgen.c's "Two copies") has its key's string back
 * from the table; a thread's exit deletes its elements unread.
 * A key of another kind at that position anywhere (copyinstr(), a
 * variable, execname) leaves the position unflagged and the array user
 * space's, as before; -v names the key (kplan_why.c's bad_key()).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

/* the run's strings, numbered from 0 in the order first keyed */
struct kp_names {
	char **s;
	size_t n, cap;
};

/* Is n a probe's name or a string literal: a string the probe fixes? */
static bool probe_str(const struct node *n)
{
	if (n->op == N_STR)
		return n->sval != NULL;
	return ident(n) >= 0; /* probeprov, probemod, probefunc, probename */
}

/* kp_akeys_make()'s walk: clear the bits of v's key positions that n's
 * elements of v key by something else */
static void akey_walk(struct d_kplan *k, const struct node *n)
{
	if (!n)
		return;
	if (n->op == N_ASSOC && n->sub >= 0 &&
	    (unsigned)n->sub < k->prog->nvars) {
		uint8_t *b = &k->akstr[n->sub];

		/* (a position past this element's keys keeps its bit: the
		 * elements that have a key there decide it; more keys than
		 * UBPF_KMAXKEYS keep the array user space's anyway) */
		for (unsigned i = 0; i < n->nargs && i < UBPF_KMAXKEYS; i++)
			if (!probe_str(n->args[i]))
				*b &= (uint8_t) ~(1u << i);
	}
	akey_walk(k, n->a);
	akey_walk(k, n->b);
	akey_walk(k, n->c);
	for (unsigned i = 0; i < n->nargs; i++)
		akey_walk(k, n->args[i]);
}

static void akey_stmts(struct d_kplan *k, const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		akey_walk(k, v[i].e);
		for (unsigned j = 0; j < v[i].nargs; j++)
			akey_walk(k, v[i].args[j]);
		for (unsigned j = 0; j < v[i].nkeys; j++)
			akey_walk(k, v[i].keys[j]);
		akey_stmts(k, v[i].body, v[i].nbody);
		akey_stmts(k, v[i].els, v[i].nels);
	}
}

void kp_akeys_make(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	k->akstr = xcalloc(p->nvars ? p->nvars : 1, sizeof(*k->akstr));
	k->names = xcalloc(1, sizeof(*k->names));
	for (unsigned v = 0; v < p->nvars; v++)
		if (kp_arr_scope(&p->vars[v]))
			k->akstr[v] = (1u << UBPF_KMAXKEYS) - 1;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];

		akey_walk(k, c->pred);
		akey_stmts(k, c->stmts, c->nstmts);
	}
}

void kp_akeys_free(struct d_kplan *k)
{
	if (k->names) {
		for (size_t i = 0; i < k->names->n; i++)
			free(k->names->s[i]);
		free(k->names->s);
		free(k->names);
	}
	free(k->akstr);
}

bool kp_akey_var(const struct d_kplan *k, unsigned v, unsigned i)
{
	return k && k->akstr && v < k->prog->nvars && i < UBPF_KMAXKEYS &&
	       (k->akstr[v] >> i & 1);
}

bool kp_akey(const struct d_kplan *k, const struct node *n, unsigned i)
{
	return n->op == N_ASSOC && n->sub >= 0 &&
	       kp_akey_var(k, (unsigned)n->sub, i);
}

int64_t kp_akey_id(const struct d_kplan *k, const struct d_probe *pr,
		   const struct node *key)
{
	struct kp_names *t = k->names;
	const char *s = "";
	size_t i;

	if (key->op == N_STR)
		s = key->sval;
	else if (pr && pr != KP_ANYPROBE) /* as run.c's B_PROBE* */
		s = kp_ident_str(pr, key);
	if (!s)
		s = "";
	for (i = 0; i < t->n; i++)
		if (strcmp(t->s[i], s) == 0)
			return (int64_t)i;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->s = xrealloc(t->s, t->cap, sizeof(*t->s));
	}
	t->s[t->n] = xstrdup(s);
	return (int64_t)t->n++;
}

const char *kp_akey_str(const struct d_kplan *k, int64_t id)
{
	if (!k->names || id < 0 || (uint64_t)id >= k->names->n)
		return NULL;
	return k->names->s[id];
}
