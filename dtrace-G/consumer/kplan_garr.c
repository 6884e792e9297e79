// SPDX-License-Identifier: MIT
/*
 * kplan_garr.c - global associative arrays the kernel keeps (D_KPLAN_VARS,
 * the generated programs alone): the book's iolatency.d,
 *
 *	io:::start { start[arg0] = timestamp; }
 *	io:::done /start[arg0]/ {
 *		@time["disk I/O latency (ns)"] = quantize(timestamp -
 *start[arg0]); start[arg0] = 0;
 *	}
 *
 * and every script that hands a value from one thread to another by a
 * key both know (a request's id, a buffer's address), as bpftrace's
 * `@start[arg0]` maps do.
 *
 * How.  ../d/run.c keeps a global array as it keeps a thread-local one,
 * in the dynamic table: dyn_key() keys an element by the scope, the
 * variable and its keys (a thread-local one by the thread too),
 * dyn_put() deletes the element a store of 0 makes, and an absent
 * element reads as the variable's zero.  So the kernel keeps it as it
 * keeps self->a[] (kplan.c's design comment, "Variables"): in cgtlsa,
 * under {UBPF_KGARR_TID, variable with its keys' count and types, keys}
 * (cgen_plan.c's tlsa_key()), where the first word, a thread's id for
 * self->a[], is one no thread has (Linux's ids stay below 2^22,
 * PID_MAX_LIMIT); its elements 8 bytes, typed as a thread-local array's
 * (KV_ELEMS: each read typed set and unset, kplan_vars.c's open_bits());
 * its keys integers or the probe's names and literals (kplan_akey.c).
 * The plan's VLD and VST name it UBPF_KV_GARR, and a plan with one
 * carries UBPF_KTLS_GARR.  The element is one copy for the run, so:
 *
 *  - Every clause that touches it is the kernel's at every probe it may
 *    fire at: kp_vars_decide() takes the array to user space where a
 *    clause user space runs touches it, as it does a self-> variable,
 *    and where a clause that may fire for a process the kernel does
 *    not run it for does (kp_garr_drop(), garr_unarmed()): one where no
 *    generated program runs (BEGIN, END, ERROR, tick-N, which dtrace
 *    runs; unlike self->, whose BEGIN and END copies are dtrace's own
 *    thread's, a global is the same there), and one at uprobe sites of
 *    any process (a provider named without its process's id, `srv*`):
 *    a forked child fires through the sites it inherited before its
 *    registration reaches dtrace and its plan is armed, and those hits
 *    come to user space as records (run-trace-fork.sh: all of a -c
 *    server's children's).  A provider that names one process
 *    (`srv$target`, `pid$target`, -p's and -c's held until armed) and a
 *    kernel provider (its plans run for every process) have no such
 *    hit.  None where a horizon may send hits to user space
 *    (kp_vars_decide(): not a candidate).  A probe where a clause
 *    touching it is not the kernel's has its event refused (bpf_agg.c's
 *    UBPF_KTLS_UNFIT, d_kplan_kself()), as for self->.
 *  - No hit goes to user space whole: the program is in self->'s fault
 *    mode (k->tls[] of each clause touching it: copies and string
 *    compares fault at their sites, reported at the hit's place).
 *  - Should a hit's record still come unflagged (its process not armed
 *    at the event; kernel probes' plans skip a process user space
 *    keeps self-> for, bpf_agg_cgen.c's "Two copies"), the kernel ran
 *    none of its clauses, and user space does not run those that touch
 *    an array the kernel keeps (records.c's hit_run(),
 *    d_kplan_garr_clause()): it would run them on a second copy.  It
 *    counts them and says so at the end, as it does the speculating
 *    clauses of such hits under the kernel's speculations, but for a
 *    clause whose predicate of the record's values alone is false
 *    there (d_pred_false(): not running it is exact).  The plan's
 *    tls bit 1 (self->) is not set for an array: such a process is
 *    armed at its next enable, not kept in user space for good.
 *  - Across CPUs.  User space runs records in time order, one at a
 *    time; the kernel runs hits on several CPUs at once.  Each map
 *    operation is whole for the element (a lookup reads the 8 bytes an
 *    update wrote, a store of 0 deletes it), but a clause's read and its
 *    later store are two operations, and another CPU's may come
 *    between: two hits of one key at once may both read start[k] set
 *    and both count.  That is DTrace's own semantics: "scalar variables
 *    and associative arrays have a global scope and are not
 *    multi-processor safe" (the Oracle Solaris DTrace guide, Variables),
 *    and its dynamic variables are shared by the CPUs without a lock.
 *    So the kernel's answer is one DTrace gives; user space's time order
 *    is one of them.  Where the program orders the accesses itself (a
 *    buffer's io:::done after its io:::start, a reply after its
 *    request), they are the same.
 *  - A full map is a dynamic variable drop, counted and said as for
 *    self-> (cgen_plan.c's cgen_tls_drop()).  The entries outlive every
 *    thread: bpf_agg_cgen.c's tls_reap() leaves them, and counts them
 *    apart from the threads'.
 *
 * What stays user space's: an array of strings, pointers or structs;
 * one a clause keys by a value the kernel does not compute; one a
 * clause dtrace runs touches (kp_garr_why()); global scalars other than
 * kplan_gcnt.c's counters and kplan_fkey.c's run constants (run.c
 * types a scalar by its last store, so `start = 0` of an unsigned
 * variable leaves an int: a state the kernel's one type per variable
 * does not have).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "xalloc.h"

bool kp_garr(const struct d_kplan *k, unsigned v)
{
	return k && k->vars && v < k->prog->nvars &&
	       k->prog->vars[v].scope == SC_ASSOC && k->vst[v] == KV_KERN;
}

/*
 * May clause ci fire for a process not armed at its probe, which the
 * kernel does not run it for?  A clause where no generated program runs
 * (BEGIN, END, ERROR, tick-N: not k->traced), and one at a uprobe site
 * whose provider names no one process: a glob or none (`srv*`, every
 * process's, a forked child's before its plan is armed) or one that does
 * not end in its process's id.  A kernel provider's plan runs for every
 * process.
 */
static bool garr_unarmed(const struct d_kplan *k, unsigned ci)
{
	const struct clause *c = &k->prog->clauses[ci];

	if (!k->traced || !k->traced[ci])
		return true;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j];
		size_t n = strcspn(d, ":");
		int kern = kp_desc_kern(d);

		if (kern == 1)
			continue;
		if (kern < 0 || !n || d[n] != ':' ||
		    !isdigit((unsigned char)d[n - 1]))
			return true;
	}
	return false;
}

/* Does clause ci touch a global array the kernel may keep where it may
 * fire for a process not armed (garr_unarmed())?  Each such array taken
 * to user space (KV_NO); mark is scratch. */
bool kp_garr_drop(struct d_kplan *k, unsigned ci, bool *mark)
{
	const struct d_prog *p = k->prog;
	bool changed = false;

	if (!garr_unarmed(k, ci))
		return false;
	kp_clause_vars(p, &p->clauses[ci], mark);
	for (unsigned v = 0; v < p->nvars; v++)
		if (mark[v] && p->vars[v].scope == SC_ASSOC &&
		    k->vst[v] != KV_NO) {
			k->vst[v] = KV_NO;
			changed = true;
		}
	return changed;
}

/*
 * The clauses touching a global array the kernel keeps, once its
 * variables are decided (kp_vars_decide()); mark: room for a mark per
 * variable.  records.c asks at every unflagged record.
 */
void kp_garr_marks(struct d_kplan *k, bool *mark)
{
	const struct d_prog *p = k->prog;

	k->garr_any = false;
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		k->garrc[ci] = false;
		if (!k->vars)
			continue;
		kp_clause_vars(p, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars && !k->garrc[ci]; v++)
			k->garrc[ci] = mark[v] && kp_garr(k, v);
		k->garr_any |= k->garrc[ci];
	}
}

bool d_kplan_garrs_any(const struct d_kplan *k)
{
	return k && k->garr_any;
}

bool d_kplan_garr_clause(const struct d_kplan *k, unsigned clause)
{
	return k && clause < k->prog->nclauses && k->garrc[clause];
}

unsigned d_kplan_garrs(const struct d_kplan *k, const bool *ran, char *buf,
		       size_t len)
{
	const struct d_prog *p = k->prog;
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	bool *seen = xcalloc(p->nvars ? p->nvars : 1, sizeof(*seen));
	unsigned n = 0;
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		if (!ran[ci] || !k->ok[ci])
			continue;
		kp_clause_vars(p, &p->clauses[ci], mark);
		for (unsigned v = 0; v < p->nvars; v++)
			seen[v] |= mark[v] && kp_garr(k, v);
	}
	for (unsigned v = 0; v < p->nvars; v++) {
		if (!seen[v])
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s[]",
					       n ? ", " : "", p->vars[v].name);
		n++;
	}
	free(mark);
	free(seen);
	return n;
}

/* Why global array v is not the kernel's, where the reason is its own
 * (a clause that may fire for a process not armed touches it): into
 * buf, else NULL */
const char *kp_garr_why(const struct d_kplan *k, unsigned v, char *buf,
			size_t len)
{
	const struct d_prog *p = k->prog;
	bool *mark = xcalloc(p->nvars ? p->nvars : 1, sizeof(*mark));
	const char *r = NULL;

	for (unsigned ci = 0; ci < p->nclauses && !r; ci++) {
		if (!garr_unarmed(k, ci))
			continue;
		kp_clause_vars(p, &p->clauses[ci], mark);
		if (!mark[v])
			continue;
		if (!k->traced || !k->traced[ci])
			snprintf(buf, len,
				 "%s[] is a global array that clause %u "
				 "touches, which dtrace runs (BEGIN, END, "
				 "ERROR, tick-N): the kernel keeps one only "
				 "where every clause touching it fires in a "
				 "generated program",
				 p->vars[v].name, ci + 1);
		else
			snprintf(buf, len,
				 "%s[] is a global array that clause %u "
				 "touches at probes of any process (a "
				 "provider without its process's id, as "
				 "srv*): a process's hits before its plan is "
				 "armed (a forked child's) are user space's, "
				 "so the kernel keeps one only where every "
				 "such clause names one process (srv$target, "
				 "pid$target) or a kernel probe",
				 p->vars[v].name, ci + 1);
		r = buf;
	}
	free(mark);
	return r;
}
