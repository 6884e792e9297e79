// SPDX-License-Identifier: MIT
/*
 * bpf_agg.c - the bpf backend aggregating in the kernel: plans for the
 * clauses that allow it are put in the program's map kplans, and what
 * the program aggregated (kaggs) is read back once, when tracing has
 * stopped, into the D program's aggregations (kplan.c decides and
 * merges; bpf/kagg_bpf.h has the formats, bpf/kagg.bpf.h runs them).
 *
 * Plans.  When a process is enabled (bpf.c's enable, after uprobe.c's),
 * each of its uprobe events gets, under (event index, pid), the plan of
 * the process's probe at that site: the instructions of every clause of
 * the probe that d_kplan_emit() takes, in clause order, and whether any
 * clause is left that needs the hit's record.  The probe remembers the
 * clauses left (uclauses), which user space runs for a record that says
 * the kernel ran the rest (UBPF_RF_KAGG); a record without the flag -- a
 * hit before the plan was put in, or in a process without one -- runs
 * them all, so no hit is counted twice or missed.  The plans of a
 * process that exits are taken out (its pid may come back as another).
 *
 * Reading back.  After the last drain and before END (struct
 * consumer_backend_ops' aggs), and at the folds below, every entry of
 * kaggs is looked up with its
 * per-CPU values and merged, and so is every slot of kflat that a hit
 * updated (the statements without keys); the entries the map had no
 * room for, and the min()/max() updates a nested program could not
 * finish (cgen_agg.c's minmax(): kdrops is made for kflat too), were
 * counted per CPU in kdrops and are reported as DTrace
 * reports them ("N aggregation drops on CPU C").  With -v, dtrace says how many
 * clauses ran in the kernel.  The keys with a string variable's,
 * execname's or a literal's bytes are in kaggs_v, or, where its room
 * is longer than UBPF_KVSHORT bytes and the string ends within them,
 * in kaggs_w (cgen_agg.c's agg_at()): both are read, each key in one.
 *
 * A kernel provider's probe (syscall, profile, proc: kprov.c) is every
 * process's: its plan is put in once, under (ev, pid 0), before its
 * programs are attached, and stays for the run.
 *
 * Faster paths (kagg_bpf.h): kagg_direct() marks a plan of the common
 * one-aggregation shape, which the program then evaluates without its
 * instruction loop, and the first process of an event with a plan also
 * gets its plan in a slot of the array kplanv, named by kplan1[event],
 * so its hits need no hash lookup; the slot is freed when it exits.
 *
 * Generated programs (cgen.c) compile an event's plan into its code:
 * there is no kplans map, and enabling a process puts {event, pid} in
 * the map cgarmed instead, where the process's plan at that event is
 * byte for byte the one compiled in (bpf_kagg_cgen()), and the event's
 * first such pid in its u32 of cgarm1's one value (UBPF_MAXEV of them,
 * which the programs load directly and dtrace writes through its
 * mapping of the array, BPF_F_MMAPABLE: cgen_arm1()); the aggregation
 * maps are made here, only those some statement uses, and read back
 * as above.  Their plans may keep self-> variables (d_kplan_new()'s
 * D_KPLAN_VARS): in the maps cgtls (and cgtlsa, thread-local arrays'
 * elements; cgtlss, string ones, cgen_out.c's) made here, whose
 * entries of threads that exited are deleted each refresh
 * (bpf_kagg_tls_reap()); a probe whose clause keeping them does not
 * fit its plan marks it
 * UBPF_KTLS_UNFIT, and bpf.c refuses the event.  A clause keeping
 * this-> variables only that does not fit a probe is user space's
 * there, with them and the clauses touching them (kplan_here.c's
 * d_kplan_here(), which plan_of() asks; -v says at how many probes).
 * A process whose hit
 * at such an event came as a record before its first enable (a forked
 * child firing through the events it inherited before its registration
 * reached dtrace: the program notes its pid in cgtlsu) is armed there
 * never (tls_user()), so all of them do, with user space's variables;
 * a kernel probe's plan keeping them skips such a process too, and what
 * it stored for the process's threads before moves to user space
 * ("Two copies", bpf_kagg_tls_rec()).
 * Their plans may also
 * gate the record (plan_of()): where every clause left to user space
 * has an integer predicate kplan.c can test at the hit, the plan ends
 * with those tests and the record is written only when one held; so do
 * a kernel probe's generated program's (bpf_kagg_kplan()), not the
 * generic kprov.bpf.h's.
 *
 * The horizon (kplan_exit.c's "Why exit()"): a program whose tick-N clauses
 * may exit(), printa(), clear() or trunc() gets the array cghzn, one
 * u64, which every generated program's prologue tests a plan's hit
 * against (cgen.c: loaded directly, BPF_PSEUDO_MAP_VALUE): UINT64_MAX
 * until the ticks start, then what kprov.c's kprov_horizon() writes
 * through bpf_kagg_horizon().  Where
 * they may read or reset aggregations (kplan_exit.c's "printa() at tick-N")
 * it also gets cgbar, an array of one map (cgbar_in, which no program
 * reads), whose update is the barrier before a fold
 * (bpf_kagg_barrier()); and at each such firing, before its clauses
 * run, bpf_kagg_fold() reads back as at the end, deleting what it read
 * (kflat's slots zeroed), so the kernel counts the next interval from
 * nothing; -v says at how many firings.
 *
 * The activity (kplan_exit.c's "exit() at a traced probe"): a program with
 * exit() decided at the hit gets the array cgact, one u64, 0 while the
 * run is active, which every generated program tests first and the hit
 * that exits swaps to 1 (cgen.c's act_test()); bpf_kagg_xplan() makes
 * each event's exit() tests, a uprobe event's (bpf_attach.c) and a
 * kernel probe's (cgen_kprov.c) alike, for the clauses traced_clause()
 * finds all of whose hits run such a program.  A program with a horizon
 * gets cgact too: when user space has run an exit() (a tick's),
 * bpf_kagg_exited() writes 2 there and waits at the barrier, so no
 * hit after it sends a record (kplan_exit.c's "The flood").  Where no
 * exit() is decided at a hit, the lease is in cgarm1's words too
 * (hz_marks(): kplan_exit.c's "The lease"): bit 31 set while cghzn is not
 * UINT64_MAX or the run has exited, set before those writes.
 *
 * DTRACE_KAGG=0 turns it off: every hit is recorded and aggregated in
 * user space, which prints the same (tests/run-kagg.sh compares both).
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kplan.h"
#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "consumer_impl.h"
#include "procfs.h"

struct bpf_kagg {
	struct d_kplan *kp;
	int plans_fd, aggs_fd, flat_fd, drops_fd, plan1_fd, planv_fd;
	int ncpus;
	pid_t first[UBPF_MAXEV];   /* kplan1's pid, per event */
	unsigned slot[UBPF_MAXEV]; /* and its slot + 1 */
	bool used[UBPF_KPLANV];
	bool *ran;    /* per clause: put in some plan */
	bool *direct; /* per clause: in a plan of the direct shape */
	/* generated programs: ran and direct of the last plan made, until
	 * a program carries it (bpf_kagg_cgen_ran(): cgen.c may refuse
	 * the plan, the event's program then the record-only one) */
	bool *pran, *pdirect;
	unsigned nclauses;
	/* -v, per clause the kernel runs: at how many probes it ran there
	 * and at how many user space ran it (plan_of(): kplan_here.c's
	 * d_kplan_here()), the first of those and why */
	unsigned *nkat, *nuat;
	char (*uwhy)[D_KPLAN_WHY];
	char **uat;
	/* the run's one plan (kfix.bpf.h): NULL when not loaded with one */
	struct ubpf_kplan *fixpl;
	struct ubpf_kfix fix;
	int bss_fd, evspec_fd;
	pid_t fix_pid; /* kfix_pid as last set */
	pid_t fix_used; /* a pid it was ever set to, for -v */
	/* generated programs (cgen.c): the plan compiled into each event's,
	 * and the map of the processes armed for it */
	bool cgen;
	int armed_fd, arm1_fd; /* arm1: by event, its first pid (first[]) */
	uint32_t *arm1;		  /* ... cgarm1's one value, mapped here */
	int tls_fd, tlsdrops_fd; /* self-> variables the kernel keeps */
	int tlsa_fd;		 /* ... elements of self-> arrays */
	int tlss_fd;		 /* ... self-> strings (cgen_out.c) */
	int tlsu_fd, tlsufull_fd; /* cgtlsu: tls_user() */
	int tlsuw_fd;		  /* ... its word ("Two copies") */
	int saggs_fd;		 /* kaggs_s: a key with a string */
	int vaggs_fd;		 /* kaggs_v: a string variable's,
				  * execname or a literal */
	unsigned vroom;		 /* ... its bytes in the key */
	int waggs_fd;		 /* kaggs_w: kaggs_v's short keys, or -1 */
	int hzn_fd;		 /* cghzn: the horizon (kplan_exit.c), or -1 */
	int act_fd;		 /* cgact: the run's activity, or -1 */
	/* cgbar, an array of one map (cgbar_in), updated as a barrier:
	 * bpf_kagg_barrier(); folds: bpf_kagg_fold()'s calls */
	int bar_fd, barin_fd;
	unsigned long folds;
	bool fold_bad; /* said: a barrier or delete failed */
	unsigned act_lost;	 /* bpf_kagg_exit_lost()'s calls in a row */
	/* hits recorded unflagged at an event whose plan keeps self->
	 * (bpf_kagg_tls_hit()), by {ev, pid}; armed: the process was
	 * armed there too, before or after */
	struct tls_hits {
		uint32_t ev;
		pid_t pid;
		uint64_t n;
		bool armed;
	} *th;
	size_t nth;
	size_t tls_live;	 /* ... at the last bpf_kagg_tls_reap() */
	/* threads whose kernel copy of self-> went to user space
	 * (bpf_kagg_tls_rec()), until they exit */
	pid_t *tmoved;
	size_t ntmoved;
	unsigned long tls_moved, tls_mthreads; /* entries, threads: -v */
	struct ubpf_kplan **cgplan; /* by event, UBPF_MAXEV */
	/* the lease in the arm words (hz_marks()): hzarm, the run's
	 * programs read it there (a horizon, no exit() at a hit); lent,
	 * cghzn UINT64_MAX and cgarm1's words unmarked; exited, user
	 * space ran exit() (nothing is lent after) */
	bool hzarm, lent, exited;
};

/* cgarm1's mark: the lease not lent (hz_marks()); no pid has bit 31 */
#define ARM_NOLEASE 0x80000000u
static void hz_marks(struct bpf_kagg *k, bool lent);

/* k's per-clause marks (ran, direct, and pran, pdirect: plan_of()) */
static void clause_marks(struct bpf_kagg *k, unsigned n)
{
	unsigned m = n ? n : 1;

	k->ran = xcalloc(m, sizeof(*k->ran));
	k->direct = xcalloc(m, sizeof(*k->direct));
	k->pran = xcalloc(m, sizeof(*k->pran));
	k->pdirect = xcalloc(m, sizeof(*k->pdirect));
	k->nkat = xcalloc(m, sizeof(*k->nkat));
	k->nuat = xcalloc(m, sizeof(*k->nuat));
	k->uwhy = xcalloc(m, sizeof(*k->uwhy));
	k->uat = xcalloc(m, sizeof(*k->uat));
	k->nclauses = n;
}

struct bpf_kagg *bpf_kagg_new(struct consumer *c, struct bpf_object *obj)
{
	const char *env = getenv("DTRACE_KAGG");
	struct bpf_kagg *k;
	bool any = false;

	if (env && !strcmp(env, "0"))
		return NULL;
	k = xcalloc(1, sizeof(*k));
	k->kp = d_kplan_new(c->prog, 0, NULL, NULL, NULL);
	k->tls_fd = k->tlsdrops_fd = k->saggs_fd = k->tlsa_fd = -1;
	k->tlsu_fd = k->tlsufull_fd = k->tlss_fd = k->hzn_fd = -1;
	k->tlsuw_fd = -1;
	k->act_fd = k->vaggs_fd = k->waggs_fd = -1;
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		any |= d_kplan_clause(k->kp, ci);
	k->plans_fd = bpf_object__find_map_fd_by_name(obj, "kplans");
	k->aggs_fd = bpf_object__find_map_fd_by_name(obj, "kaggs");
	k->flat_fd = bpf_object__find_map_fd_by_name(obj, "kflat");
	k->drops_fd = bpf_object__find_map_fd_by_name(obj, "kdrops");
	k->plan1_fd = bpf_object__find_map_fd_by_name(obj, "kplan1");
	k->planv_fd = bpf_object__find_map_fd_by_name(obj, "kplanv");
	k->ncpus = libbpf_num_possible_cpus();
	if (!any || k->plans_fd < 0 || k->aggs_fd < 0 || k->flat_fd < 0 ||
	    k->drops_fd < 0 || k->plan1_fd < 0 || k->planv_fd < 0 ||
	    k->ncpus <= 0) {
		bpf_kagg_free(k);
		return NULL;
	}
	clause_marks(k, c->nclauses);
	return k;
}

void bpf_kagg_free(struct bpf_kagg *k)
{
	if (!k)
		return;
	d_kplan_free(k->kp);
	free(k->fixpl);
	if (k->cgplan)
		for (size_t i = 0; i < UBPF_MAXEV; i++)
			free(k->cgplan[i]);
	free(k->cgplan);
	if (k->arm1)
		(void)munmap(k->arm1, UBPF_MAXEV * sizeof(*k->arm1));
	if (k->cgen) { /* the maps bpf_kagg_cgen() made */
		int fds[] = { k->aggs_fd,     k->flat_fd,     k->drops_fd,
			      k->armed_fd,    k->arm1_fd,     k->tls_fd,
			      k->tlsdrops_fd, k->saggs_fd,    k->tlsa_fd,
			      k->tlsu_fd,     k->tlsufull_fd, k->tlss_fd,
			      k->hzn_fd,      k->act_fd,      k->bar_fd,
			      k->barin_fd,    k->vaggs_fd,    k->waggs_fd,
			      k->tlsuw_fd };

		for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	free(k->ran);
	free(k->direct);
	free(k->pran);
	for (unsigned i = 0; k->uat && i < k->nclauses; i++)
		free(k->uat[i]);
	free(k->uat);
	free(k->uwhy);
	free(k->nkat);
	free(k->nuat);
	free(k->pdirect);
	free(k->th);
	free(k->tmoved);
	free(k);
}

/* A direct operand at ops[*i]: a source, then perhaps OP imm. */
static bool kd_val_at(const struct ubpf_kplan *pl, unsigned *i,
		      struct ubpf_kdval *d)
{
	const struct ubpf_kop *o = &pl->ops[*i];

	if (*i >= pl->nops || (o->op != UBPF_K_ARG && o->op != UBPF_K_PID &&
			       o->op != UBPF_K_TID && o->op != UBPF_K_CONST) ||
	    (o->op == UBPF_K_ARG && o->n >= UBPF_MAXARGS))
		return false;
	d->src = o->op;
	d->n = o->n;
	d->sz = o->sz;
	d->sg = o->sg;
	d->vimm = o->imm;
	d->op = UBPF_KD_NONE;
	if (++*i >= pl->nops)
		return true;
	o = &pl->ops[*i];
	if (o->op >= UBPF_K_ADD && o->op <= UBPF_K_LXOR &&
	    (o->flags & UBPF_KF_IMM)) {
		d->op = o->op;
		d->imm = o->imm;
		d->osz = o->sz;
		d->osg = o->sg;
		++*i;
	}
	return true;
}

static bool kd_cmp(uint8_t op)
{
	return op >= UBPF_K_EQ && op <= UBPF_K_GEU;
}

/*
 * t's range test (kagg_bpf.h) for "v CMP c", CMP one of UBPF_K_EQ..GEU
 * or 0 for v's truth (v != 0).  In the order the comparison uses (w = v
 * ^ flip, unsigned), each operator is one range of w, or its negation.
 */
static void kd_range(struct ubpf_kdtest *t, uint8_t cmp, int64_t c)
{
	bool sg = cmp == UBPF_K_LTS || cmp == UBPF_K_GTS ||
		  cmp == UBPF_K_LES || cmp == UBPF_K_GES;
	uint64_t flip = sg ? UINT64_C(1) << 63 : 0, w = (uint64_t)c ^ flip;
	uint64_t lo = 0, hi = UINT64_MAX;
	bool never = false, neg = false;

	switch (cmp) {
	case 0: /* v != 0 */
		lo = hi = 0;
		neg = true;
		break;
	case UBPF_K_EQ: lo = hi = w; break;
	case UBPF_K_NE: lo = hi = w; neg = true; break;
	case UBPF_K_LTS:
	case UBPF_K_LTU:
		if (w == 0)
			never = true;
		else
			hi = w - 1;
		break;
	case UBPF_K_LES:
	case UBPF_K_LEU: hi = w; break;
	case UBPF_K_GTS:
	case UBPF_K_GTU:
		if (w == UINT64_MAX)
			never = true;
		else
			lo = w + 1;
		break;
	default: lo = w; break; /* GES, GEU */
	}
	t->flip = flip;
	t->lo = never ? 0 : lo;
	t->span = never ? UINT64_MAX : hi - lo;
	t->neg = never ? 1 : neg;
}

/*
 * % by a power of two as &: always for an unsigned %; for a signed one
 * only where the test asks whether it is 0 (a negative v's remainder
 * is negative, but 0 exactly when v & (m - 1) is).  The remainder is
 * smaller than m, which its type holds, so narrowing keeps it.
 */
static void kd_mask(struct ubpf_kdval *d, bool zero_test)
{
	if ((d->op == UBPF_K_MODU || (d->op == UBPF_K_MODS && zero_test)) &&
	    d->imm > 0 && !(d->imm & (d->imm - 1))) {
		d->op = UBPF_K_AND;
		d->imm -= 1;
	}
}

/*
 * A test at ops[*i], ending before end: "v [OP imm] [CMP imm]", or with
 * fused (a PRED instruction with its own comparison) "v [OP imm]"
 * compared as fused says.
 */
static bool kd_test_at(const struct ubpf_kplan *pl, unsigned *i,
		       unsigned end, const struct ubpf_kop *fused,
		       struct ubpf_kdtest *t)
{
	const struct ubpf_kop *o;
	uint8_t cmp = 0;
	int64_t c = 0;

	memset(t, 0, sizeof(*t));
	if (!kd_val_at(pl, i, &t->v) || *i > end)
		return false;
	if (fused) {
		cmp = fused->n;
		c = fused->imm;
	} else if (kd_cmp(t->v.op)) { /* the operation was the comparison */
		cmp = t->v.op;
		c = t->v.imm;
		t->v.op = UBPF_KD_NONE;
	} else if (*i < end && kd_cmp((o = &pl->ops[*i])->op) &&
		   (o->flags & UBPF_KF_IMM) && !o->sz) {
		cmp = o->op;
		c = o->imm;
		++*i;
	}
	kd_mask(&t->v, !cmp || ((cmp == UBPF_K_EQ || cmp == UBPF_K_NE) && !c));
	kd_range(t, cmp, c);
	return true;
}

/*
 * Whether pl is "[/t [&& t]/] @ = fn([v [OP imm]])", each test t "v [OP
 * imm] [CMP imm]", with a keyless aggregation (not stddev() or
 * llquantize(), the generated programs' alone): then pl->d describes it
 * (kagg_bpf.h), and the program runs it without its instruction loop.
 * A predicate's only comparison rides in its PRED instruction; two
 * tests are each one's instructions, then LAND, then a PRED of the
 * truth.
 */
static void kagg_direct(struct ubpf_kplan *pl)
{
	struct ubpf_kdirect d;
	const struct ubpf_kop *o;
	unsigned i = 0, j;

	memset(&d, 0, sizeof(d));
	d.av.src = UBPF_KD_NONE;
	for (j = 0; j < pl->nops && pl->ops[j].op != UBPF_K_PRED; j++)
		;
	if (j < pl->nops) {
		o = &pl->ops[j];
		if (o->jump != pl->nops ||
		    (o->n && !(o->flags & UBPF_KF_IMM)))
			return;
		if (!kd_test_at(pl, &i, j, o->n ? o : NULL, &d.t[0]))
			return;
		d.ntests = 1;
		if (i < j) { /* t && t */
			if (o->n || !kd_test_at(pl, &i, j, NULL, &d.t[1]) ||
			    i + 1 != j || pl->ops[i].op != UBPF_K_LAND)
				return;
			d.ntests = 2;
			i++;
		}
		if (i != j)
			return;
		i = j + 1;
	}
	if (i + 1 < pl->nops && !kd_val_at(pl, &i, &d.av))
		return;
	kd_mask(&d.av, false);
	o = &pl->ops[i];
	if (i + 1 != pl->nops || o->op != UBPF_K_AGG ||
	    !(o->flags & UBPF_KF_FLAT) || o->n > UBPF_F_LQUANTIZE ||
	    (o->n == UBPF_F_COUNT) != (d.av.src == UBPF_KD_NONE))
		return;
	d.agg = (uint16_t)i;
	d.on = 1;
	pl->d = d;
}

/*
 * The plan of probe dp's clauses cl (epids ep) into pl: those
 * d_kplan_here() says the kernel runs there (kplan_here.c); with ucl,
 * the clauses left for user space into *ucl, *uep, *nu, and -v's
 * counts per clause (once per probe: ucl is given once).  With gates (a
 * uprobe's generated program), when every clause left for user space
 * has a predicate the program can test (d_kplan_gated()), their tests
 * follow the kernel's clauses and the record is written only when one
 * held (UBPF_KREC_GATE); a clause reading the kernel's self-> values
 * whose predicate the kernel tests at its place (d_kplan_vpred()) is
 * its own gate, its ODONE asking for the record.  false when no clause runs in the kernel and
 * none is gated.
 */
static bool plan_of(struct bpf_kagg *k, const struct d_probe *dp,
		    const unsigned *cl, const unsigned *ep, unsigned n,
		    struct ubpf_kplan *pl, unsigned **ucl, unsigned **uep,
		    unsigned *nu, bool gates)
{
	bool any = false, gated = false;
	bool *in = xcalloc(n ? n : 1, sizeof(*in)); /* in the kernel */
	bool *here = xcalloc(n ? n : 1, sizeof(*here));
	char(*why)[D_KPLAN_WHY] = xcalloc(n ? n : 1, sizeof(*why));
	unsigned last = 0, nk = 0;
	/* a generated program's: said once a program carries the plan */
	bool *ran = k->cgen ? k->pran : k->ran;
	bool *direct = k->cgen ? k->pdirect : k->direct;

	memset(pl, 0, sizeof(*pl));
	if (k->cgen) {
		memset(k->pran, 0, k->nclauses * sizeof(*k->pran));
		memset(k->pdirect, 0, k->nclauses * sizeof(*k->pdirect));
	}
	/* which the kernel runs here (kplan_here.c): the others, and the
	 * this-> variables they touch, are user space's at this probe; a
	 * speculating clause reading one of those is refused */
	if (!d_kplan_here(k->kp, dp, cl, n, here, why))
		pl->tls |= UBPF_KTLS_UNFIT;
	for (unsigned i = 0; i < n; i++) {
		if (ucl && k->nkat && cl[i] < k->nclauses &&
		    d_kplan_clause(k->kp, cl[i])) { /* -v */
			if (here[i]) {
				k->nkat[cl[i]]++;
			} else if (!k->nuat[cl[i]]++) {
				snprintf(k->uwhy[cl[i]], sizeof(why[i]), "%s",
					 why[i]);
				char at[4 * 64 + 4];

				snprintf(at, sizeof(at), "%s:%s:%s:%s",
					 dp->prov, dp->mod, dp->func, dp->name);
				k->uat[cl[i]] = xstrdup(at);
			}
		}
		if (here[i] && d_kplan_emit(k->kp, cl[i], dp, pl)) {
			in[i] = true;
			any = true;
			last = cl[i];
			ran[cl[i]] = true;
			continue;
		}
		/* a speculating clause user space runs from the values
		 * its out area has (kplan_spec.c's "Speculations"); where they
		 * do not fit, the walk of the area (records.c) would not
		 * know: the event is refused */
		if (d_kplan_sout(k->kp, cl[i])) {
			if (d_kplan_sout_emit(k->kp, cl[i], dp, pl))
				any = true;
			else
				pl->tls |= UBPF_KTLS_UNFIT;
		}
		/* one whose record carries the kernel's self-> values
		 * it reads (kplan_vars.c's "Shared self-> variables"):
		 * where they do not fit, refused as a sout one */
		else if (d_kplan_vin(k->kp, cl[i])) {
			if (d_kplan_vin_emit(k->kp, cl[i], dp, pl))
				any = true;
			else
				pl->tls |= UBPF_KTLS_UNFIT;
		}
		/* its self-> variables are the kernel's: it cannot run in
		 * user space instead (cgen.c's caller refuses the event);
		 * its this-> ones are user space's here with it
		 * (d_kplan_here()), unless the kernel's plan did not take
		 * it after all (not reached: d_kplan_here() tried it) */
		else if (d_kplan_kself(k->kp, cl[i]) ||
			 (here[i] && d_kplan_kvars(k->kp, cl[i])))
			pl->tls |= UBPF_KTLS_UNFIT;
		pl->record = 1;
		pl->ustr |= d_kplan_strargs(k->kp, cl[i]); /* cgen.c */
		/* (a vin clause whose predicate the kernel tests is its
		 * own gate: its ODONE asks for the record) */
		if (!d_kplan_gated(k->kp, cl[i]) &&
		    !d_kplan_vpred(k->kp, cl[i]))
			gates = false;
		if (ucl) {
			*ucl = xpush_room(*ucl, *nu, sizeof(**ucl));
			*uep = xpush_room(*uep, *nu, sizeof(**uep));
			(*ucl)[*nu] = cl[i];
			(*uep)[(*nu)++] = ep[i];
		}
	}
	/* the gates, where every clause left has one and they all fit */
	nk = pl->nops;
	gated = gates && pl->record;
	for (unsigned i = 0; i < n && gated; i++)
		if (!in[i] && !d_kplan_vpred(k->kp, cl[i]))
			gated = d_kplan_gate(k->kp, cl[i], dp, pl);
	free(in);
	free(here);
	free(why);
	if (gated) {
		pl->record = UBPF_KREC_GATE;
	} else {
		/* and what a gate that did not fit wrote past them */
		memset(&pl->ops[nk], 0, (UBPF_KOPS - nk) * sizeof(pl->ops[0]));
		pl->nops = (uint16_t)nk;
	}
	/* printf()'s values (cgen_out.c): a record when such a clause ran */
	if (!pl->record && d_kplan_prints(pl))
		pl->record = UBPF_KREC_GATE;
	if (any && !gated)
		kagg_direct(pl);
	if (pl->d.on)
		direct[last] = true;
	return any || gated;
}

/*
 * p's plan into pl; false when no clause of p runs in the kernel.  The
 * clauses left for user space go to p->uclauses (once per probe: the
 * plan is the same at each of its sites).
 */
static bool probe_plan(struct consumer *c, struct bpf_kagg *k,
		       struct tprobe *p, struct ubpf_kplan *pl)
{
	bool any;

	(void)c;
	if (p->kplanned)
		return plan_of(k, &p->dp, p->clauses, p->epids, p->nclauses,
			       pl, NULL, NULL, NULL, k->cgen);
	free(p->uclauses);
	free(p->uepids);
	p->uclauses = p->uepids = NULL;
	p->nuclauses = 0;
	any = plan_of(k, &p->dp, p->clauses, p->epids, p->nclauses, pl,
		      &p->uclauses, &p->uepids, &p->nuclauses, k->cgen);
	p->kplanned = true;
	return any;
}

/* p's plan, for a generated program (cgen.c): as bpf_kagg_enable()'s */
bool bpf_kagg_plan(struct consumer *c, struct bpf_kagg *k, struct tprobe *p,
		   struct ubpf_kplan *pl)
{
	return k && p && p->nclauses && probe_plan(c, k, p, pl);
}

static int map_new(enum bpf_map_type t, const char *name, uint32_t ksz,
		   uint32_t vsz, uint32_t n, uint32_t flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

	return bpf_map_create(t, name, ksz, vsz, n, &o);
}

/*
 * Aggregating in the kernel for generated programs: the maps the plans
 * write (kaggs only where a statement has keys, kflat only where one
 * has none, kdrops with kaggs) and cgarmed, made here and named in *m
 * (-1: none); NULL without kernel aggregation (DTRACE_KAGG=0, no clause
 * that qualifies) or when a map cannot be made (*err).
 */
/*
 * Every hit of clause ci runs a program generated here, which can test
 * its exit() (kplan_exit.c's "exit() at a traced probe"), by what it
 * matched: not BEGIN, END or ERROR, which fire in dtrace; uprobe sites,
 * USDT or pid, whenever they come (bpf_attach.c's cg_prog() gives each
 * its exit() tests); and kernel probes (kprov.c's, matched before this
 * is asked) only where each fires a program of its own
 * (kprov_prog_clause()): cgen_kprov.c's, in a run whose programs are
 * generated (this one: the run's are all generated or none, and
 * kprov_cg_load() failing sends it to the generic programs, which
 * decide no exit()), never tick-N's timer in dtrace, whose exit() is
 * the horizon's (a clause of tick-N alone: ticks[]).
 */
static bool traced_clause(const struct consumer *c, unsigned ci)
{
	const unsigned *lists[] = {c->begin_clauses, c->end_clauses,
				   c->error_clauses};
	unsigned nl[] = {c->nbegin, c->nend, c->nerror};

	if (ci >= c->nclauses || !c->ndescs[ci])
		return false;
	for (unsigned k = 0; k < 3; k++)
		for (unsigned i = 0; i < nl[k]; i++)
			if (lists[k][i] == ci)
				return false;
	return kprov_prog_clause(c, ci);
}

/* clause ci's first probe description, as -v names the clause */
static const char *clause_desc(const struct consumer *c, unsigned ci)
{
	return c->ndescs[ci] ? c->descs[ci][0].text : "";
}

struct bpf_kagg *bpf_kagg_cgen(struct consumer *c, struct cgen_maps *m,
			       int *err)
{
	const char *env = getenv("DTRACE_KAGG");
	struct bpf_kagg *k;
	bool any = false, keyed = false, flat = false, tls = false;
	unsigned kkeys = 0; /* the most keys of a statement in kaggs */
	bool skeyed = false, vkeyed = false, fold = false, *user, *ticks,
	     *traced;
	unsigned nspec = 0, nlate = 0, ntied = 0, nsout = 0, xwhyc = 0;
	unsigned nspred = 0, nvin = 0;
	uint32_t po[2], eo[3], sx[4];
	bool ppid, ecred, sess;
	char why[640];

	*err = 0;
	m->kaggs = m->kflat = m->kdrops = m->armed = m->arm1 = -1;
	m->kkeys = 0;
	m->tls = m->tlsdrops = m->kaggs_s = m->tlsa = m->kaggs_v = -1;
	m->kaggs_w = -1;
	m->tlsu = m->tlsufull = m->tlss = m->hzn = m->act = -1;
	m->tlsuw = -1;
	m->xpl = NULL; /* each event's own (bpf_kagg_xplan()) */
	if (env && !strcmp(env, "0"))
		return NULL;
	k = xcalloc(1, sizeof(*k));
	/* dtrace:::ERROR's clauses run in user space, in the faulting
	 * thread's context: their variables must be user space's */
	user = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*user));
	for (unsigned i = 0; i < c->nerror; i++)
		if (c->error_clauses[i] < c->nclauses)
			user[c->error_clauses[i]] = true;
	/* tick-N's clauses: their exit() is cut at the horizon */
	ticks = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*ticks));
	for (unsigned i = 0; i < c->nclauses; i++) {
		ticks[i] = kprov_tick_clause(c, i);
		fold |= ticks[i] && d_kplan_folds(c->prog, i);
	}
	/* the clauses of uprobe sites and of the kernel probes with a
	 * program: their exit() is decided at the hit (kplan_exit.c's "exit()
	 * at a traced probe"), not beside the in-process activation,
	 * whose hits no BPF program sees */
	traced = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*traced));
	for (unsigned i = 0; i < c->nclauses && !c->ip; i++)
		traced[i] = traced_clause(c, i);
	/* ppid in the kernel where the BTF says where the parent is (the
	 * BTF read only when a clause reads ppid) */
	ppid = ppid_wanted(c) && ppid_offs(po) == 0;
	/* ... and so curpsinfo's effective ids, group and session (the
	 * last two offsets of those packed in 16 bits: kplan_emit.c) */
	ecred = ecred_wanted(c) && ecred_offs(eo) == 0;
	sess = sess_wanted(c) && sess_offs(sx) == 0 && sx[1] + 24 <= 0xffff &&
	       sx[2] + sx[3] <= 0xffff;
	k->kp = d_kplan_new(c->prog,
			    D_KPLAN_VARS | (ppid ? D_KPLAN_PPID : 0) |
				    (ecred ? D_KPLAN_ECRED : 0) |
				    (sess ? D_KPLAN_SESS : 0),
			    user, ticks, traced);
	d_kplan_wall(k->kp, (int64_t)c->wall_offset);
	if (ppid)
		d_kplan_ppid(k->kp, po);
	if (ecred)
		d_kplan_ecred(k->kp, eo);
	if (sess)
		d_kplan_sess(k->kp, sx);
	/* -v: why a clause with speculations is user space's (kplan_spec.c's
	 * "Speculations") */
	for (unsigned i = 0; i < c->nclauses; i++) {
		bool so = d_kplan_sout(k->kp, i),
		     spec = traced[i] && !so && d_kplan_specs(c->prog, i),
		     late = traced[i] && !so && !d_kplan_clause(k->kp, i) &&
			    d_kplan_specs_late(k->kp, i);

		nsout += traced[i] && so;
		nspred += traced[i] && d_kplan_spred(k->kp, i);
		nspec += spec;
		nlate += spec && late;
		ntied += !spec && late;
	}
	/* ... and those whose values the kernel computes at the hit */
	if (c->o->verbose && nsout)
		say(c,
		    "%u clause%s with speculations printing values computed "
		    "in the kernel, at the probe: speculate() and the "
		    "buffers are user space's",
		    nsout, nsout == 1 ? "" : "s");
	/* -v: the clauses user space runs that read self-> variables
	 * the kernel keeps, their values carried in the records
	 * (kplan_vars.c's "Shared self-> variables") */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		nvin += d_kplan_vin(k->kp, i);
	if (c->o->verbose && nvin)
		say(c,
		    "%u clause%s in user space reading self-> variables the "
		    "kernel keeps, their values read at the probe into the "
		    "record",
		    nvin, nvin == 1 ? "" : "s");
	/* ... of which the kernel computes the predicate too */
	if (c->o->verbose && nspred)
		say(c,
		    "%u of them with predicates computed in the kernel, at "
		    "the probe: dtrace tests their truth",
		    nspred);
	if (c->o->verbose && nspec)
		say(c,
		    "%u clause%s with speculations run in user space, from "
		    "the records: the generated programs keep no "
		    "speculative buffers",
		    nspec, nspec == 1 ? "" : "s");
	/* ... and why a speculating one is not a sout clause */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		if (traced[i] && d_kplan_spec_why(k->kp, i))
			say(c,
			    "clause %u speculates in user space, its "
			    "predicate and values read from the record: %s",
			    i + 1, d_kplan_spec_why(k->kp, i));
	/* ... and what that costs: a read of the process's memory by an
	 * address happens when dtrace runs the record, not at the probe */
	if (c->o->verbose && nlate)
		say(c,
		    "%u of them read%s the process's memory when dtrace runs "
		    "the record, not at the probe: copyin() or copyinstr() "
		    "of an address the process may have rewritten since",
		    nlate, nlate == 1 ? "s" : "");
	/* ... and of the clauses their variables keep out of the kernel
	 * with them (kplan_spec.c's d_kplan_specs_late()) */
	if (c->o->verbose && ntied)
		say(c,
		    "%u clause%s sharing their variables read%s the "
		    "process's memory when dtrace runs the record too, not "
		    "at the probe",
		    ntied, ntied == 1 ? "" : "s", ntied == 1 ? "s" : "");
	/* ... and why a clause at a kernel probe that reads the process's
	 * memory by an address does so from the record, not at the probe
	 * (kplan_out.c; at uprobe sites and in the clauses above, said
	 * otherwise) */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		if (!d_kplan_specs_late(k->kp, i) && d_kplan_out_why(k->kp, i))
			say(c,
			    "clause %u reads the process's memory when dtrace "
			    "runs the record, not at the probe: %s",
			    i + 1, d_kplan_out_why(k->kp, i));
	/* -v: why an exit() keeps every clause out of the kernel */
	if (c->o->verbose && d_kplan_xwhy(k->kp, &xwhyc))
		say(c,
		    "every clause runs in user space: clause %u's exit() "
		    "is not decided at the hit: %s",
		    xwhyc + 1, d_kplan_xwhy(k->kp, NULL));
	/* ... or a printa() at a traced probe (kplan_why.c) */
	if (c->o->verbose && d_kplan_awhy(k->kp, &xwhyc, why, sizeof(why)))
		say(c, "every clause runs in user space: clause %u (%s): %s",
		    xwhyc + 1, clause_desc(c, xwhyc), why);
	/* -v: why each other traced clause is user space's (kplan_why.c;
	 * a speculating one's said above) */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		if (traced[i] && !d_kplan_spec_why(k->kp, i) &&
		    (user[i] ? snprintf(why, sizeof(why),
					"it fires at dtrace:::ERROR too, in "
					"dtrace") > 0
			     : d_kplan_why(k->kp, i, why, sizeof(why)) != NULL))
			say(c,
			    "clause %u (%s) runs in user space, from its "
			    "record: %s",
			    i + 1, clause_desc(c, i), why);
	/* -v: which of the traced clauses user space runs read the
	 * process late (a speculating one's, or one tied to it, said
	 * above, as is a kernel probe's with d_kplan_out_why()'s reason) */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		if (traced[i] && !d_kplan_clause(k->kp, i) &&
		    !d_kplan_sout(k->kp, i) && !d_kplan_specs(c->prog, i) &&
		    !d_kplan_specs_late(k->kp, i) &&
		    !d_kplan_out_why(k->kp, i) && d_kplan_late(c->prog, i))
			say(c,
			    "clause %u (%s) reads the process's memory when "
			    "dtrace runs its record, not at the probe: "
			    "copyin(), copyinstr() or copyinto() of an "
			    "address the process may have rewritten since",
			    i + 1, clause_desc(c, i));
	free(user);
	free(ticks);
	free(traced);
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		/* (a sout clause's values too: a program whose only work
		 * in the kernel they are has a plan, kplan_spec.c's
		 * "Speculations") */
		any |= d_kplan_clause(k->kp, ci) || d_kplan_gated(k->kp, ci) ||
		       d_kplan_sout(k->kp, ci) || d_kplan_vin(k->kp, ci);
		/* (a clause reading the kernel's self-> values, storing
		 * them too, where no kernel clause touches them: cgtls) */
		tls |= d_kplan_tls(k->kp, ci) || d_kplan_vin(k->kp, ci);
	}
	k->plans_fd = k->aggs_fd = k->flat_fd = k->drops_fd = -1;
	k->plan1_fd = k->planv_fd = k->armed_fd = k->arm1_fd = -1;
	k->tls_fd = k->tlsdrops_fd = k->saggs_fd = k->tlsa_fd = -1;
	k->tlsu_fd = k->tlsufull_fd = k->tlss_fd = k->hzn_fd = -1;
	k->tlsuw_fd = -1;
	k->act_fd = k->bar_fd = k->barin_fd = k->vaggs_fd = -1;
	k->waggs_fd = -1;
	k->ncpus = libbpf_num_possible_cpus();
	if (!any || k->ncpus <= 0) {
		bpf_kagg_free(k);
		return NULL;
	}
	for (unsigned st = 0; st < d_kplan_nstmts(k->kp); st++) {
		unsigned slot, n;

		if (!d_kplan_isagg(k->kp, st))
			continue;
		if (d_kplan_flat(k->kp, st, &slot, &n)) {
			flat = true;
		} else {
			keyed = true;
			if (d_kplan_nkeys(k->kp, st) > kkeys)
				kkeys = d_kplan_nkeys(k->kp, st);
		}
		skeyed |= d_kplan_skey(k->kp, st);
		vkeyed |= d_kplan_vkey(k->kp, st);
	}
	if (skeyed)
		k->saggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_s",
				      sizeof(struct ubpf_kskey),
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
	/* a string variable's key: all strsize - 1 bytes its store kept
	 * (kplan_out.c: strsize at most UBPF_STRMAX), so none is cut;
	 * with none, execname's 16 or the longest literal's, cut
	 * (kplan_merge.c's kp_vkey_imm()) */
	k->vroom = d_kplan_vkey_room(k->kp);
	if (vkeyed && k->vroom && k->vroom <= UBPF_STRMAX)
		k->vaggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_v",
				      sizeof(struct ubpf_kkey) + k->vroom,
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
	/* ... and where that room is longer than UBPF_KVSHORT, the keys
	 * whose string ends within it, in kaggs_w: a map's hash and
	 * compare take its whole key, 296 bytes at strsize 256 where
	 * "alpha"'s take 72 (the selfkey row of bench/perhit.sh); a key
	 * is in one map or the other by its bytes, and both are merged
	 * (d_kplan_merge() adds) */
	if (vkeyed && k->vroom > UBPF_KVSHORT && k->vroom <= UBPF_STRMAX)
		k->waggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_w",
				      sizeof(struct ubpf_kvwkey),
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
	/*
	 * self-> variables: {tid, variable} -> value, allocated as they
	 * are stored (preallocating the 65,536 entries made a timed
	 * entry/return pair no faster, bench/perhit.sh)
	 */
	if (tls) {
		k->tls_fd = map_new(BPF_MAP_TYPE_HASH, "cgtls",
				    sizeof(struct ubpf_kvkey), 8, UBPF_KTLS,
				    BPF_F_NO_PREALLOC);
		k->tlsdrops_fd = map_new(BPF_MAP_TYPE_PERCPU_ARRAY, "cgtlsdrops",
					 4, 8, 1, 0);
		/* self->a[k]: the same, the keys in the key */
		k->tlsa_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlsa",
				     sizeof(struct ubpf_kvakey), 8, UBPF_KTLS,
				     BPF_F_NO_PREALLOC);
		/* self->s = copyinstr(E): a struct ubpf_kostr each */
		k->tlss_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlss",
				     sizeof(struct ubpf_kvkey),
				     sizeof(struct ubpf_kostr), UBPF_KTLS,
				     BPF_F_NO_PREALLOC);
		/* pid -> its pid: a hit not armed there (tls_user()) */
		k->tlsu_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlsu", 4, 4,
				     UBPF_MAXUSERS, BPF_F_NO_PREALLOC);
		k->tlsufull_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgtlsufull", 4,
					 4, 1, 0);
		/* a u32 set once a hit went there ("Two copies") */
		k->tlsuw_fd =
			map_new(BPF_MAP_TYPE_ARRAY, "cgtlsuw", 4, 4, 1, 0);
	}
	/*
	 * kaggs's key: {agg, bucket, pad} and as many keys as a statement
	 * has at most, not UBPF_KMAXKEYS (a hit hashes and compares the
	 * whole key; the generated code writes those words alone:
	 * cgen_agg.c's agg_at()), read back into a zeroed ubpf_kkey
	 */
	if (kkeys > UBPF_KMAXKEYS)
		kkeys = UBPF_KMAXKEYS;
	if (keyed) {
		k->aggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs",
				     offsetof(struct ubpf_kkey, k) +
					     kkeys * sizeof(int64_t),
				     sizeof(struct ubpf_kval), UBPF_KMAXENTRIES,
				     BPF_F_NO_PREALLOC);
	}
	/* a kflat slot's min() or max() can drop too (cgen_agg.c's
	 * minmax()) */
	if (keyed || flat)
		k->drops_fd = map_new(BPF_MAP_TYPE_PERCPU_ARRAY, "kdrops", 4, 8,
				      1, 0);
	if (flat)
		k->flat_fd = map_new(BPF_MAP_TYPE_PERCPU_ARRAY, "kflat", 4,
				     sizeof(struct ubpf_kval), UBPF_KFLAT, 0);
	k->armed_fd = map_new(BPF_MAP_TYPE_HASH, "cgarmed",
			      sizeof(struct ubpf_kplan_key), 4, UBPF_MAXUSERS,
			      BPF_F_NO_PREALLOC);
	/* the events' first pids, one value of UBPF_MAXEV u32s, which the
	 * programs address directly (BPF_PSEUDO_MAP_VALUE: cgen.c) and
	 * dtrace writes a u32 of through its mapping (cgen_arm1()) */
	k->arm1_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgarm1", 4,
			     UBPF_MAXEV * sizeof(uint32_t), 1, BPF_F_MMAPABLE);
	if (k->arm1_fd >= 0) {
		void *a =
			mmap(NULL, UBPF_MAXEV * sizeof(uint32_t),
			     PROT_READ | PROT_WRITE, MAP_SHARED, k->arm1_fd, 0);

		if (a == MAP_FAILED) {
			close(k->arm1_fd);
			k->arm1_fd = -1;
		} else {
			k->arm1 = a;
		}
	}
	/* the horizon, none until the ticks start (kprov_start()) */
	if (d_kplan_horizon(k->kp)) {
		/* the lease in the arm words (hz_marks()), lent as cghzn's
		 * UINT64_MAX is, no word written yet */
		k->hzarm = !d_kplan_kexit(k->kp);
		k->lent = true;
		k->hzn_fd = map_new(BPF_MAP_TYPE_ARRAY, "cghzn", 4, 8, 1, 0);
		bpf_kagg_horizon(k, kprov_horizon0(c));
	}
	/* the barrier before a fold (bpf_kagg_barrier()), and after a
	 * horizon's lease given back late (kprov.c's hz_revoke()) */
	fold = d_kplan_horizon(k->kp);
	if (fold) {
		LIBBPF_OPTS(bpf_map_create_opts, o);

		k->barin_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgbar_in", 4, 4, 1,
				      0);
		o.inner_map_fd = k->barin_fd;
		if (k->barin_fd >= 0)
			k->bar_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS,
						   "cgbar", 4, 4, 1, &o);
	}
	/* the run's activity, 0 (active) until an exit() at a hit, or
	 * one user space ran at a tick (kplan_exit.c's "The flood") */
	if (d_kplan_kexit(k->kp) || d_kplan_horizon(k->kp))
		k->act_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgact", 4, 8, 1, 0);
	k->cgen = true; /* bpf_kagg_free() closes them */
	if ((keyed && (k->aggs_fd < 0 || k->drops_fd < 0)) ||
	    (flat && (k->flat_fd < 0 || k->drops_fd < 0)) || k->armed_fd < 0 ||
	    k->arm1_fd < 0 ||
	    (tls && (k->tls_fd < 0 || k->tlsdrops_fd < 0 || k->tlsa_fd < 0 ||
		     k->tlsu_fd < 0 || k->tlss_fd < 0 || k->tlsufull_fd < 0 ||
		     k->tlsuw_fd < 0)) ||
	    (skeyed && k->saggs_fd < 0) || (vkeyed && k->vaggs_fd < 0) ||
	    (vkeyed && k->vroom > UBPF_KVSHORT && k->waggs_fd < 0) ||
	    (d_kplan_horizon(k->kp) && k->hzn_fd < 0) ||
	    (fold && k->bar_fd < 0) ||
	    ((d_kplan_kexit(k->kp) || d_kplan_horizon(k->kp)) &&
	     k->act_fd < 0)) {
		*err = errno ? -errno : -EINVAL;
		bpf_kagg_free(k);
		return NULL;
	}
	k->cgplan = xcalloc(UBPF_MAXEV, sizeof(*k->cgplan));
	clause_marks(k, c->nclauses);
	m->kaggs = k->aggs_fd;
	m->kkeys = kkeys;
	m->kflat = k->flat_fd;
	m->kdrops = k->drops_fd;
	m->armed = k->armed_fd;
	m->arm1 = k->arm1_fd;
	m->tls = k->tls_fd;
	m->tlsdrops = k->tlsdrops_fd;
	m->tlsa = k->tlsa_fd;
	m->tlss = k->tlss_fd;
	m->tlsu = k->tlsu_fd;
	m->tlsufull = k->tlsufull_fd;
	m->tlsuw = k->tlsuw_fd;
	m->kaggs_s = k->saggs_fd;
	m->kaggs_v = k->vaggs_fd;
	m->kaggs_w = k->waggs_fd;
	m->hzn = k->hzn_fd;
	m->act = k->act_fd;
	m->hzarm = k->hzarm;
	return k;
}

/*
 * The exit() tests of probe dp's clauses cl (kplan_exit.c's "exit() at a
 * traced probe") into xpl, for every hit of its events (cgen.c's
 * prologue): each such clause's predicate, then REC, which there means
 * "this hit exits"; a clause without one exits at every hit.  The
 * arguments are the site's: one it does not record leaves the event
 * without a program (cgen.c), never a guess.  1, 0 when there are
 * none, -1 when they do not fit (the event cannot be traced exactly).
 */
int bpf_kagg_xplan(struct consumer *c, struct bpf_kagg *k,
		   const struct d_probe *dp, const unsigned *cl, unsigned n,
		   struct ubpf_kplan *xpl)
{
	(void)c;
	memset(xpl, 0, sizeof(*xpl));
	if (!k || k->act_fd < 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (d_kplan_xclause(k->kp, cl[i]) &&
		    !d_kplan_xtest(k->kp, cl[i], dp, xpl))
			return -1;
	}
	for (unsigned pc = 0; pc < xpl->nops && pc < UBPF_KOPS; pc++)
		xpl->ops[pc].flags &= (uint16_t)~UBPF_KF_GATE;
	return xpl->nops > 0;
}

/*
 * The exiting hit's record lost (kplan_exit.c's "exit() at a traced probe"):
 * the hit that swapped cgact to 1 writes its record after the swap, and
 * a full ring drops it (counted, drops_read()).  The kernel runs nothing
 * more and dtrace, which ends at that record, would wait for the target
 * to end.  True at the second call in a row (the consumer's 100 ms
 * refresh, every record read in between, so a winner still between its
 * swap and its record's commit has been read by then) that finds cgact
 * set, the exit not run and drops counted.
 */
bool bpf_kagg_exit_lost(struct consumer *c)
{
	struct bpf_kagg *k = bpf_kagg_of(c);
	uint32_t zero = 0;
	uint64_t v = 0;

	if (!k || k->act_fd < 0)
		return false;
	if (c->exit_called || !c->up.drops ||
	    bpf_map_lookup_elem(k->act_fd, &zero, &v) || !v) {
		k->act_lost = 0;
		return false;
	}
	return ++k->act_lost >= 2;
}

/*
 * User space ran exit() (kplan_exit.c's "The flood"): cgact 2, so every
 * generated program's next hit does nothing (cgen.c's act_load()),
 * then a barrier, so every hit that read it 0 has ended.  The time
 * after it, or 0 (no cgact, or no barrier map: a run whose only exit()
 * the kernel decides, and BEGIN's or END's).
 */
uint64_t bpf_kagg_exited(struct consumer *c, struct bpf_kagg *k)
{
	uint32_t zero = 0;
	uint64_t v = 2;
	struct timespec ts;

	if (!k || k->act_fd < 0)
		return 0;
	k->exited = true; /* no lease from now on: marked first */
	hz_marks(k, false);
	if (bpf_map_update_elem(k->act_fd, &zero, &v, BPF_ANY) < 0)
		return 0;
	if (k->bar_fd < 0)
		return 0;
	bpf_kagg_barrier(c, k);
	if (k->fold_bad || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The horizon (kplan_exit.c's "Why exit()"): a hit stamped at or past h runs
 * no plan; kprov.c's kprov_horizon() moves it.
 */
void bpf_kagg_horizon(struct bpf_kagg *k, uint64_t h)
{
	uint32_t zero = 0;
	bool lend;

	if (!k || k->hzn_fd < 0)
		return;
	lend = h == UINT64_MAX && !k->exited;
	if (!lend) /* the arm words marked first (hz_marks()) */
		hz_marks(k, false);
	(void)bpf_map_update_elem(k->hzn_fd, &zero, &h, BPF_ANY);
	if (lend)
		hz_marks(k, true);
}

/*
 * The barrier before a fold (kplan_exit.c's "printa() at tick-N"): every
 * generated program that started before the call has ended when it
 * returns.  An update of a map of maps does that (the kernel's
 * maybe_wait_bpf_programs(): synchronize_rcu(), and each of those
 * programs runs inside rcu_read_lock()); the value is the one inner map,
 * so nothing the programs read changes.  One that fails (it should not:
 * the map and its value are ours) is said, once: the folds that follow
 * may not be exact.
 */
static void fold_bad(struct consumer *c, struct bpf_kagg *k, const char *what)
{
	if (k->fold_bad)
		return;
	k->fold_bad = true;
	say(c, "%s failed (%s): aggregations printed at tick-N firings may "
	    "be inexact", what, strerror(errno));
}

void bpf_kagg_barrier(struct consumer *c, struct bpf_kagg *k)
{
	uint32_t zero = 0, v;

	if (!k || k->bar_fd < 0)
		return;
	v = (uint32_t)k->barin_fd;
	if (bpf_map_update_elem(k->bar_fd, &zero, &v, BPF_ANY) < 0)
		fold_bad(c, k, "waiting for the kernel's programs");
}

/*
 * The plan plan_of() made last is in a program loaded (-v counts its
 * clauses): not before, since a plan cgen.c refuses leaves the event
 * the record-only program, which runs every clause in user space.
 */
void bpf_kagg_cgen_ran(struct bpf_kagg *k)
{
	for (unsigned ci = 0; k && k->cgen && ci < k->nclauses; ci++) {
		k->ran[ci] |= k->pran[ci];
		k->direct[ci] |= k->pdirect[ci];
	}
}

/* Event ev's generated program runs plan pl for the processes armed. */
void bpf_kagg_cgen_plan(struct bpf_kagg *k, uint32_t ev,
			const struct ubpf_kplan *pl)
{
	if (!k || !k->cgen || ev >= UBPF_MAXEV)
		return;
	bpf_kagg_cgen_ran(k);
	free(k->cgplan[ev]);
	k->cgplan[ev] = xcalloc(1, sizeof(*pl));
	*k->cgplan[ev] = *pl;
}

/*
 * A kernel provider's probe (kprov.c): one plan for every process, under
 * (ev, pid 0).  Without one (no kernel aggregation, or no clause that
 * qualifies) user space runs every clause: *ucl stays empty and no
 * record is flagged.
 */
void bpf_kagg_kprobe(struct consumer *c, struct bpf_kagg *k, uint32_t ev,
		     const struct d_probe *dp, const unsigned *cl,
		     const unsigned *ep, unsigned n, unsigned **ucl,
		     unsigned **uep, unsigned *nu)
{
	struct ubpf_kplan_key key = {ev, 0};
	struct ubpf_kplan *pl;

	if (!k)
		return;
	pl = xcalloc(1, sizeof(*pl));
	if (plan_of(k, dp, cl, ep, n, pl, ucl, uep, nu, false) &&
	    bpf_map_update_elem(k->plans_fd, &key, pl, BPF_ANY) < 0)
		say(c, "cannot aggregate %s:%s:%s:%s in the kernel: %s",
		    dp->prov, dp->mod, dp->func, dp->name, strerror(errno));
	free(pl);
}

/*
 * The same plan for a kernel probe's generated program (cgen_kprov.c),
 * into pl, which the program carries, with record gates as a uprobe's
 * (cgen_kprov.c's kp_plan() writes the record only when one held); false
 * when no clause runs in the kernel and none is gated (none without
 * kernel aggregation).
 */
bool bpf_kagg_kplan(struct consumer *c, struct bpf_kagg *k,
		    const struct d_probe *dp, const unsigned *cl,
		    const unsigned *ep, unsigned n, struct ubpf_kplan *pl,
		    unsigned **ucl, unsigned **uep, unsigned *nu)
{
	(void)c;
	memset(pl, 0, sizeof(*pl));
	return k && plan_of(k, dp, cl, ep, n, pl, ucl, uep, nu, k->cgen);
}

/*
 * ev's plan pl for pid, also in a kplanv slot when pid is the event's
 * first process with a plan (or its plan changed) and a slot is free.
 * The slot is written while kplan1 does not name it.
 */
static void plan1_put(struct bpf_kagg *k, uint32_t ev, pid_t pid,
		      const struct ubpf_kplan *pl)
{
	struct ubpf_kplan1 f;
	unsigned s;

	if (ev >= UBPF_MAXEV || (k->first[ev] && k->first[ev] != pid))
		return;
	if (k->first[ev] == pid) {
		/* hits use the hash's (new) plan while the slot changes */
		f.pid = f.slot = 0;
		if (bpf_map_update_elem(k->plan1_fd, &ev, &f, BPF_ANY) < 0)
			return;
		s = k->slot[ev] - 1;
	} else {
		for (s = 0; s < UBPF_KPLANV && k->used[s]; s++)
			;
		if (s == UBPF_KPLANV)
			return;
	}
	if (bpf_map_update_elem(k->planv_fd, &s, pl, BPF_ANY) < 0)
		return;
	f.pid = (uint32_t)pid;
	f.slot = s + 1;
	if (bpf_map_update_elem(k->plan1_fd, &ev, &f, BPF_ANY) < 0)
		return;
	k->used[s] = true;
	k->first[ev] = pid;
	k->slot[ev] = s + 1;
}

/* ------------------------------------------------------------------ */
/* The run's one plan (kfix.bpf.h) */

/*
 * Whether probe p (at its first event, whose specs are s) has a plan
 * kfix can carry: of the direct shape, needing no record, its arguments
 * recorded at that site.  Then *f is kfix and *pl the plan.  A plan
 * made here with a d_kplan of its own gives the same bytes as
 * bpf_kagg_enable()'s (the kflat slots follow the clauses' order);
 * kfix_fits() compares them byte for byte anyway.
 */
bool bpf_kfix_candidate(struct consumer *c, const struct tprobe *p,
			const struct ubpf_ev *s, struct ubpf_kfix *f,
			struct ubpf_kplan *pl)
{
	const char *env = getenv("DTRACE_KAGG"), *fenv = getenv("DTRACE_KFIX");
	const struct ubpf_kdval *v[UBPF_KDTESTS + 1];
	struct bpf_kagg t;
	bool ok = false;

	if ((env && !strcmp(env, "0")) || (fenv && !strcmp(fenv, "0")) ||
	    !p || !p->nclauses)
		return false;
	memset(&t, 0, sizeof(t));
	t.kp = d_kplan_new(c->prog, 0, NULL, NULL, NULL);
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		(void)d_kplan_clause(t.kp, ci);
	t.ran = xcalloc(c->nclauses, sizeof(*t.ran));
	t.direct = xcalloc(c->nclauses, sizeof(*t.direct));
	if (!plan_of(&t, &p->dp, p->clauses, p->epids, p->nclauses, pl, NULL,
		     NULL, NULL, false) ||
	    !pl->d.on || pl->record || pl->d.agg >= pl->nops)
		goto out;
	memset(f, 0, sizeof(*f));
	f->d = pl->d;
	f->agg = pl->ops[pl->d.agg];
	v[0] = &pl->d.t[0].v;
	v[1] = &pl->d.t[1].v;
	v[2] = &pl->d.av;
	for (unsigned i = 0; i <= UBPF_KDTESTS; i++) {
		bool used = i < UBPF_KDTESTS ? i < pl->d.ntests
					     : pl->d.av.src != UBPF_KD_NONE;

		if (!used || v[i]->src != UBPF_K_ARG)
			continue;
		if (v[i]->n >= s->nargs || v[i]->n >= UBPF_MAXARGS)
			goto out;
		f->arg[i] = s->a[v[i]->n];
	}
	f->on = 1;
	ok = true;
out:
	d_kplan_free(t.kp);
	free(t.ran);
	free(t.direct);
	return ok;
}

/* The program was loaded with kfix f (plan pl): kfix_pid is in bss_fd. */
void bpf_kfix_set(struct bpf_kagg *k, const struct ubpf_kfix *f,
		  const struct ubpf_kplan *pl, int bss_fd, int evspec_fd)
{
	if (!k || !f->on || bss_fd < 0)
		return;
	k->fix = *f;
	k->fixpl = xcalloc(1, sizeof(*k->fixpl));
	*k->fixpl = *pl;
	k->bss_fd = bss_fd;
	k->evspec_fd = evspec_fd;
}

static void kfix_put(struct bpf_kagg *k, pid_t pid)
{
	uint32_t zero = 0, v = (uint32_t)pid;

	if (bpf_map_update_elem(k->bss_fd, &zero, &v, BPF_ANY) == 0)
		k->fix_pid = pid;
}

/* No process takes the path (before its plans may change). */
void bpf_kfix_off(struct bpf_kagg *k)
{
	if (k && k->fixpl && k->fix_pid)
		kfix_put(k, 0);
}

/* The spec of argument v's (if an argument) is kfix's arg */
static bool kfix_spec(const struct ubpf_ev *s, const struct ubpf_kdval *v,
		      bool used, const struct ubpf_arg *arg)
{
	if (!used || v->src != UBPF_K_ARG)
		return true;
	return v->n < s->nargs && v->n < UBPF_MAXARGS &&
	       !memcmp(&s->a[v->n], arg, sizeof(*arg));
}

/*
 * Whether kfix may run pid's hits: every event of the run has, for
 * pid, exactly kfix's plan in kplans, and the specs kfix carries.
 */
static bool kfix_fits(struct consumer *c, struct bpf_kagg *k, pid_t pid)
{
	struct ubpf_kplan *pl;
	struct ubpf_ev s;
	bool ok = c->up.nevs > 0 && pid > 0 && pid != getpid();

	pl = xcalloc(1, sizeof(*pl));
	for (size_t i = 0; ok && i < c->up.nevs; i++) {
		struct ubpf_kplan_key key = {(uint32_t)i, (uint32_t)pid};
		uint32_t ev = (uint32_t)i;

		ok = bpf_map_lookup_elem(k->plans_fd, &key, pl) == 0 &&
		     !memcmp(pl, k->fixpl, sizeof(*pl)) &&
		     bpf_map_lookup_elem(k->evspec_fd, &ev, &s) == 0 &&
		     kfix_spec(&s, &pl->d.t[0].v, pl->d.ntests > 0,
			       &k->fix.arg[0]) &&
		     kfix_spec(&s, &pl->d.t[1].v, pl->d.ntests > 1,
			       &k->fix.arg[1]) &&
		     kfix_spec(&s, &pl->d.av, pl->d.av.src != UBPF_KD_NONE,
			       &k->fix.arg[UBPF_KDTESTS]);
	}
	free(pl);
	return ok;
}

/* After pid's plans went in: the path for it, or for the one before. */
static void kfix_pick(struct consumer *c, struct bpf_kagg *k, pid_t pid)
{
	pid_t was = k->fix_used;

	if (!k->fixpl || k->fix_pid)
		return;
	if (was && was != pid && kfix_fits(c, k, was))
		pid = was;
	else if (!kfix_fits(c, k, pid))
		return;
	kfix_put(k, pid);
	if (k->fix_pid)
		k->fix_used = pid;
}

/* k->th's entry for {ev, pid}, made if none */
static struct tls_hits *tls_hits_of(struct bpf_kagg *k, uint32_t ev,
				    pid_t pid)
{
	for (size_t i = k->nth; i-- > 0;)
		if (k->th[i].ev == ev && k->th[i].pid == pid)
			return &k->th[i];
	k->th = xpush_room(k->th, k->nth, sizeof(*k->th));
	k->th[k->nth] = (struct tls_hits){ev, pid, 0, false};
	return &k->th[k->nth++];
}

/*
 * A hit at event ev in process pid that the kernel did not run the plan
 * of (not armed: a -p process while its probes go in, a forked child
 * before or without its plans): user space runs every clause for it.
 * Where the plan keeps self-> variables, that is exact only if the
 * process is never armed there (all its hits then run in user space,
 * with its variables); bpf_kagg_merge() says how many hits were not.
 */
void bpf_kagg_tls_hit(struct bpf_kagg *k, uint32_t ev, pid_t pid, pid_t tid)
{
	if (k && k->cgen && ev < UBPF_MAXEV && k->cgplan[ev] &&
	    (k->cgplan[ev]->tls & 1)) {
		tls_hits_of(k, ev, pid)->n++;
		bpf_kagg_tls_rec(k, pid, tid);
	}
}

/*
 * cgarm1's u32 of event ev = pid, one aligned store the programs read
 * whole, after the syscalls before it (cgarmed's update)
 */
static void cgen_arm1(struct bpf_kagg *k, uint32_t ev, pid_t pid)
{
	uint32_t w = (uint32_t)pid;

	if (pid && k->hzarm && !k->lent) /* no lease: the hash's path */
		w |= ARM_NOLEASE;
	__atomic_store_n(&k->arm1[ev], w, __ATOMIC_RELEASE);
	k->first[ev] = pid;
}

/*
 * The lease in the arm words (kplan_exit.c's "The lease"; cgen.c's hzarm):
 * in a run with a horizon and no exit() decided at a hit, a program
 * that would skip the clock under the lease skips the horizon and the
 * activity too when the event's arm word is its pid unmarked, and
 * tests them on the hash's path when it is not.  So every arm word
 * carries ARM_NOLEASE unless cghzn holds the lease (UINT64_MAX) and
 * the run is active: lent false marks them all before cghzn or cgact
 * leaves that (a hit that read one unmarked read it before that write,
 * as one that read UINT64_MAX: the lease's argument holds for it), and
 * lent true unmarks them after cghzn is lent again.
 */
static void hz_marks(struct bpf_kagg *k, bool lent)
{
	if (!k->hzarm || !k->arm1 || k->lent == lent)
		return;
	k->lent = lent;
	for (uint32_t ev = 0; ev < UBPF_MAXEV; ev++)
		if (k->first[ev])
			cgen_arm1(k, ev, k->first[ev]);
	/* the marks before the writes that follow (cghzn's, cgact's) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* No longer armed for ev's program: pid's hits there are recorded. */
static void cgen_disarm(struct bpf_kagg *k, uint32_t ev, pid_t pid)
{
	struct ubpf_kplan_key key = {ev, (uint32_t)pid};

	if (ev < UBPF_MAXEV && k->first[ev] == pid)
		cgen_arm1(k, ev, 0);
	(void)bpf_map_delete_elem(k->armed_fd, &key);
}

/*
 * Armed where ev's program runs exactly pid's plan pl: in cgarm1 when
 * pid is the event's first, else in the hash; disarmed where not.
 */
static void cgen_arm(struct consumer *c, struct bpf_kagg *k, uint32_t ev,
		     pid_t pid, const struct ubpf_kplan *pl)
{
	struct ubpf_kplan_key key = {ev, (uint32_t)pid};
	uint32_t one = 1;

	if (ev >= UBPF_MAXEV || !k->cgplan[ev] ||
	    memcmp(k->cgplan[ev], pl, sizeof(*pl))) {
		cgen_disarm(k, ev, pid);
		return;
	}
	if (bpf_map_update_elem(k->armed_fd, &key, &one, BPF_ANY) < 0) {
		say(c, "cannot aggregate in the kernel for pid %d: %s",
		    (int)pid, strerror(errno));
		return;
	}
	if (!k->first[ev])
		cgen_arm1(k, ev, pid);
	if (k->cgplan[ev]->tls & 1)
		tls_hits_of(k, ev, pid)->armed = true;
}

/* Do the generated programs keep self-> variables (cgtls)? */
bool bpf_kagg_keeps_tls(const struct bpf_kagg *k)
{
	return k && k->tls_fd >= 0;
}

/*
 * Whether pid's hits where the kernel keeps self-> variables stay in
 * user space, every clause run there with user space's copy, for the
 * process's whole life: decided at its first enable, with it held
 * still, and kept in cgtlsu.  A generated program that finds a process
 * not armed at such an event puts its pid there (cgen.c), so an entry
 * says that user space may have run one of its hits already (a forked
 * child firing through the events it inherited before its registration
 * reached dtrace): it stays unarmed there.  No entry: none did, and 0
 * goes in, which says armed from now on (the program's BPF_NOEXIST
 * leaves it).  When the map had no room for an entry (cgtlsufull, set
 * by the program or here), an undecided process is kept in user space.
 * bpf_kagg_tls_reap() takes the entries of processes gone.
 */
static bool tls_user(struct bpf_kagg *k, pid_t pid)
{
	uint32_t key = (uint32_t)pid, v = 0, zero = 0, one = 1;

	if (bpf_map_lookup_elem(k->tlsu_fd, &key, &v) == 0)
		return v != 0;
	if (bpf_map_lookup_elem(k->tlsufull_fd, &zero, &v) < 0 || v)
		return true;
	if (bpf_map_update_elem(k->tlsu_fd, &key, &zero, BPF_NOEXIST) == 0)
		return false;
	(void)bpf_map_update_elem(k->tlsufull_fd, &zero, &one, BPF_ANY);
	return true;
}

/*
 * Two copies.  A kernel probe's plan runs for every process, unarmed
 * (cgen_kprov.c), so a process tls_user() keeps in user space would
 * have a second copy of the self-> variables it keeps: user space's,
 * which its uprobe hits' records use, and the kernel's, which its
 * kernel probes' plans used.  Its kernel probe hits use user space's
 * too: such a program whose plan keeps self-> looks the hit's tgid up
 * in cgtlsu first (cgen_kprov.c's kp_tlsu()), and a pid there not 0 (kept in
 * user space), or none there while cgtlsufull is set (undecided, so
 * kept there: tls_user()), runs no plan and writes the whole record,
 * unflagged, as a hit not armed; user space runs its clauses.  The
 * lookup is made only once cgtlsuw's u32 reads 1, which every uprobe
 * hit that goes to cgtlsu (not armed where self-> is kept) sets first
 * and nothing clears: a run with no such hit pays a direct load and a
 * test per hit.  What
 * the kernel's plans stored for its threads before that (a forked
 * child's kernel probe hits before its first uprobe hit put its pid in
 * cgtlsu) moves to user space, thread by thread, before user space
 * runs a record of the thread that may read it: at each unflagged
 * record of an event whose plan keeps self-> (bpf.c's bpf_decode(),
 * kprov.c's kprov_hit(), before its clauses run), a thread not moved
 * yet of a process kept in user space (tls_kept_user(), the map read
 * now) has its entries of cgtls, cgtlsa and cgtlss put into user
 * space's table (bpf_kagg_tls_move()) and deleted.
 *
 * Why that is exact without a barrier (doc/DESIGN.md's "Why the move
 * is exact" needs one: it moves every thread at once).  A thread's hits
 * run one after another, each to its end, and the record in hand is
 * one of them: every kernel store of the thread made by a hit before
 * it had ended when the record was written (its map update made, then
 * the ring's submit: what dtrace read after it sees).  No hit of the
 * thread after the record runs a plan keeping self->: the record is
 * unflagged at such an event because its process is kept in user
 * space, which the entry said before the record was written (a
 * uprobe's hit put it there or found it, a kernel probe's hit found
 * it), and an entry not 0 stays for the process's life, cgtlsufull
 * too; so every later hit of the thread finds it, at a uprobe not
 * armed (tls_user() said so at its enable), at a kernel probe by the
 * lookup, which it makes: the record's hit read cgtlsuw's word 1 (a
 * kernel probe's) or wrote it (a uprobe's), and a later read by the
 * same thread of the same word sees that or a later value (coherence;
 * a thread that moves to another CPU sees its own past), and no later
 * value is 0.  A hit of another thread in flight on another CPU that read
 * no entry stores under its own tid, which moves at that thread's own
 * first such record, after that hit.  So user space runs each of the
 * thread's records that read a kept variable after the copy that
 * holds its last kernel value, and the kernel's copy is not used
 * after: one copy at a time.  User space's table has no entry of a
 * kept variable for the thread before the move (its records before
 * were of events whose plans do not keep self->, whose clauses touch
 * none, or flagged, whose vin puts are undone after each clause), so
 * the move overwrites nothing user space made.  A thread moved is
 * forgotten when it is gone (bpf_kagg_tls_reap(), as its variables
 * are), so a tid reused by a thread of another such process is moved
 * again.
 */

/* Is pid kept in user space where self-> is kept (tls_user()'s answer,
 * or the one it would give, read now)? */
static bool tls_kept_user(struct bpf_kagg *k, pid_t pid)
{
	uint32_t key = (uint32_t)pid, v = 0, zero = 0;

	if (bpf_map_lookup_elem(k->tlsu_fd, &key, &v) == 0)
		return v != 0;
	return bpf_map_lookup_elem(k->tlsufull_fd, &zero, &v) == 0 && v;
}

/* cgtlsa's entry: its keys as d_key_add() had them (kplan_out.c) */
static void tlsa_put(struct bpf_kagg *k, const struct ubpf_kvakey *ak,
		     int64_t v)
{
	int64_t keys[UBPF_KMAXKEYS];

	for (unsigned i = 0; i < UBPF_KMAXKEYS; i++)
		keys[i] = (int64_t)ak->k[i];
	d_kplan_tlsa_put(k->kp, ak->var, (int32_t)ak->tid, keys, v);
}

/* cgtlss's entry: its len bytes (a copy that faulted left the variable
 * as it was: cgen_out.c's SSTR) */
static void tlss_put(struct bpf_kagg *k, const struct ubpf_kvakey *ak,
		     const struct ubpf_kostr *so)
{
	size_t n = so->len < 0 ? 0 : (size_t)so->len;

	d_kplan_tlss_put(k->kp, ak->var, (int32_t)ak->tid, so->s,
			 n < sizeof(so->s) ? n : sizeof(so->s));
}

/* fd's entries (keys ksz bytes, starting {tid, var}) of thread tid, or
 * of every thread (tid 0), put into user space's table and deleted:
 * how many */
enum { TM_INT, TM_ARR, TM_STR };
static size_t tls_move_map(struct bpf_kagg *k, int fd, size_t ksz, int kind,
			   pid_t tid)
{
	char key[sizeof(struct ubpf_kvakey)], next[sizeof(key)], *keys = NULL;
	struct ubpf_kostr *val = xcalloc(1, sizeof(*val)); /* the largest */
	size_t n = 0, moved = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		uint32_t t;

		memcpy(key, next, ksz);
		prev = key;
		memcpy(&t, key, sizeof(t));
		if (tid && t != (uint32_t)tid)
			continue;
		keys = xpush_room(keys, n, ksz);
		memcpy(keys + n++ * ksz, key, ksz);
	}
	for (size_t i = 0; i < n; i++) {
		const char *kb = keys + i * ksz;
		struct ubpf_kvakey ak = { 0 };
		int64_t v;

		memcpy(&ak, kb, ksz); /* {tid, var} first, either key */
		if (bpf_map_lookup_elem(fd, kb, val) == 0) {
			memcpy(&v, val, sizeof(v));
			moved++;
			if (kind == TM_INT)
				d_kplan_tls_put(k->kp, ak.var, (int32_t)ak.tid,
						v);
			else if (kind == TM_ARR)
				tlsa_put(k, &ak, v);
			else /* a struct ubpf_kostr */
				tlss_put(k, &ak, val);
		}
		(void)bpf_map_delete_elem(fd, kb);
	}
	free(keys);
	free(val);
	return moved;
}

size_t bpf_kagg_tls_move(struct bpf_kagg *k, pid_t tid)
{
	size_t n = 0;

	if (!k || k->tls_fd < 0)
		return 0;
	n += tls_move_map(k, k->tls_fd, sizeof(struct ubpf_kvkey), TM_INT, tid);
	if (k->tlsa_fd >= 0)
		n += tls_move_map(k, k->tlsa_fd, sizeof(struct ubpf_kvakey),
				  TM_ARR, tid);
	if (k->tlss_fd >= 0)
		n += tls_move_map(k, k->tlss_fd, sizeof(struct ubpf_kvkey),
				  TM_STR, tid);
	return n;
}

void bpf_kagg_tls_rec(struct bpf_kagg *k, pid_t pid, pid_t tid)
{
	if (!k || !k->cgen || k->tlsu_fd < 0 || k->tlsufull_fd < 0 || tid <= 0)
		return;
	for (size_t i = 0; i < k->ntmoved; i++)
		if (k->tmoved[i] == tid)
			return;
	if (!tls_kept_user(k, pid))
		return;
	k->tmoved = xpush_room(k->tmoved, k->ntmoved, sizeof(*k->tmoved));
	k->tmoved[k->ntmoved++] = tid;
	k->tls_mthreads++;
	k->tls_moved += bpf_kagg_tls_move(k, tid);
}

/*
 * pr was enabled: a plan for each of its events whose probe has one,
 * but none that keeps self-> variables where tls_user() says its hits
 * there stay in user space (its threads then have no variable in the
 * kernel).
 */
void bpf_kagg_enable(struct consumer *c, struct bpf_kagg *k, struct tproc *pr)
{
	struct ubpf_kplan *pl;
	bool user;

	if (!k)
		return;
	user = k->cgen && k->tlsu_fd >= 0 && tls_user(k, pr->pid);
	bpf_kfix_off(k); /* bpf_enable() did so already, before arming */
	pl = xcalloc(1, sizeof(*pl));
	for (size_t i = 0; i < c->up.nevs; i++) {
		struct tevent *e = c->up.evs[i];
		struct ubpf_kplan_key key = {(uint32_t)i, (uint32_t)pr->pid};
		struct tprobe *p = probe_at_site(c, pr->pid, e->file, e->off,
						 false);

		if (!p || !p->enabled || !p->nclauses ||
		    !probe_plan(c, k, p, pl))
			continue;
		if (k->cgen && user && (pl->tls & 1)) {
			cgen_disarm(k, (uint32_t)i, pr->pid);
			continue;
		}
		if (k->cgen) {
			cgen_arm(c, k, (uint32_t)i, pr->pid, pl);
			continue;
		}
		if (bpf_map_update_elem(k->plans_fd, &key, pl, BPF_ANY) < 0)
			say(c, "cannot aggregate in the kernel for pid %d: %s",
			    (int)pr->pid, strerror(errno));
		else
			plan1_put(k, (uint32_t)i, pr->pid, pl);
	}
	free(pl);
	kfix_pick(c, k, pr->pid);
}

void bpf_kagg_proc_exit(struct consumer *c, struct bpf_kagg *k, pid_t pid)
{
	if (!k)
		return;
	if (k->fix_pid == pid)
		bpf_kfix_off(k);
	if (k->tlsu_fd >= 0) { /* its pid may come back as another */
		uint32_t key = (uint32_t)pid;

		(void)bpf_map_delete_elem(k->tlsu_fd, &key);
	}
	for (size_t i = 0; i < c->up.nevs; i++) {
		struct ubpf_kplan_key key = {(uint32_t)i, (uint32_t)pid};

		if (k->cgen) {
			cgen_disarm(k, (uint32_t)i, pid);
			continue;
		}
		(void)bpf_map_delete_elem(k->plans_fd, &key);
		if (i < UBPF_MAXEV && k->first[i] == pid) {
			struct ubpf_kplan1 f = {0, 0};

			(void)bpf_map_update_elem(k->plan1_fd, &key.ev, &f,
						  BPF_ANY);
			k->used[k->slot[i] - 1] = false;
			k->first[i] = 0;
			k->slot[i] = 0;
		}
	}
}

/*
 * The self-> variables the kernel keeps (cgtls, arrays' elements in
 * cgtlsa) of threads that exited are deleted, as records.c's
 * threads_reap() deletes user space's, on
 * the same refresh: a thread whose hits only the kernel ran sent no
 * record, so the threads are those the map names, each looked up as
 * /proc/TID.  A thread that gets the id later starts with none.  The
 * number left is k->tls_live, for -v.
 */
static size_t tls_reap(int fd, size_t ksz)
{
	/* both keys start {tid, var}: struct ubpf_kvkey */
	char key[sizeof(struct ubpf_kvakey)], next[sizeof(key)], *gone = NULL;
	size_t ngone = 0, live = 0;
	uint32_t last = 0, tid;
	bool last_gone = false;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		memcpy(&tid, key, sizeof(tid));
		if (tid != last || !last) { /* a variable's keys: one check */
			char path[32];

			(void)proc_path(path, sizeof(path), (pid_t)tid, ".");
			last = tid;
			last_gone = access(path, F_OK) < 0 && errno == ENOENT;
		}
		if (last_gone) {
			gone = xpush_room(gone, ngone, ksz);
			memcpy(gone + ngone++ * ksz, key, ksz);
		} else {
			live++;
		}
	}
	for (size_t i = 0; i < ngone; i++)
		(void)bpf_map_delete_elem(fd, gone + i * ksz);
	free(gone);
	return live;
}

void bpf_kagg_tls_reap(struct bpf_kagg *k)
{
	if (!k || k->tls_fd < 0)
		return;
	k->tls_live = tls_reap(k->tls_fd, sizeof(struct ubpf_kvkey));
	if (k->tlsa_fd >= 0)
		k->tls_live += tls_reap(k->tlsa_fd, sizeof(struct ubpf_kvakey));
	if (k->tlss_fd >= 0)
		k->tls_live += tls_reap(k->tlss_fd, sizeof(struct ubpf_kvkey));
	if (k->tlsu_fd >= 0) /* processes, not threads, but a pid is a tid */
		(void)tls_reap(k->tlsu_fd, sizeof(uint32_t));
	/* the threads moved (bpf_kagg_tls_rec()) that are gone */
	for (size_t i = 0; i < k->ntmoved;) {
		char path[32];

		(void)proc_path(path, sizeof(path), k->tmoved[i], ".");
		if (access(path, F_OK) < 0 && errno == ENOENT)
			k->tmoved[i] = k->tmoved[--k->ntmoved];
		else
			i++;
	}
}

const struct d_kplan *bpf_kagg_kp(const struct bpf_kagg *k)
{
	return k->kp;
}

bool bpf_kagg_fault(struct consumer *c, unsigned clause, const struct d_fire *f,
		    int *action, uint64_t *addr)
{
	struct bpf_kagg *k = bpf_kagg_of(c);
	unsigned arg;
	bool next;

	if (!k || !k->kp ||
	    !d_kplan_fault(k->kp, clause, c->kfault, action, &arg, &next) ||
	    arg >= D_MAXARGS)
		return false;
	/* d_read_user_str() reads a page at a time: past the string's
	 * first page, the next one is where it faults */
	*addr = next ? (f->arg[arg] | 4095) + 1 : f->arg[arg];
	return true;
}

/*
 * Merge what the kernel aggregated into the D program's aggregations;
 * del: and take it out of the kernel (a fold: bpf_kagg_fold()), whose
 * maps no program writes meanwhile.  A deleted entry makes the next
 * key the first again, so each loop takes the first key until none is
 * left, or one cannot be deleted (then on as a read alone).
 */
static void kagg_fold(struct consumer *c, struct bpf_kagg *k, bool del)
{
	struct ubpf_kkey key, next;
	struct ubpf_kval *v;
	void *prev = NULL;
	bool kdel = del;

	v = xcalloc((size_t)k->ncpus, sizeof(*v));
	/* kaggs's keys may be shorter (bpf_kagg_cgen()): the rest 0 */
	memset(&next, 0, sizeof(next));
	while (k->aggs_fd >= 0 &&
	       bpf_map_get_next_key(k->aggs_fd, prev, &next) == 0) {
		key = next;
		prev = kdel ? NULL : &key;
		if (bpf_map_lookup_elem(k->aggs_fd, &key, v) == 0)
			d_kplan_merge(k->kp, &key, v, (unsigned)k->ncpus,
				      probe_by_id, c, NULL);
		if (kdel && bpf_map_delete_elem(k->aggs_fd, &key) < 0) {
			fold_bad(c, k, "deleting a folded entry");
			prev = &key;
			kdel = false;
		}
	}
	/* the statements with a string key: kaggs_s */
	if (k->saggs_fd >= 0) {
		struct ubpf_kskey sk, snext;
		char str[UBPF_KSKEY + 1];
		void *sprev = NULL;
		bool sdel = del;

		while (bpf_map_get_next_key(k->saggs_fd, sprev, &snext) == 0) {
			sk = snext;
			sprev = sdel ? NULL : &sk;
			memcpy(str, sk.s, UBPF_KSKEY);
			str[UBPF_KSKEY] = '\0';
			if (bpf_map_lookup_elem(k->saggs_fd, &sk, v) == 0)
				d_kplan_merge(k->kp, &sk.k, v,
					      (unsigned)k->ncpus, probe_by_id,
					      c, str);
			if (sdel &&
			    bpf_map_delete_elem(k->saggs_fd, &sk) < 0) {
				fold_bad(c, k, "deleting a folded entry");
				sprev = &sk;
				sdel = false;
			}
		}
	}
	/* ... a string variable's, execname, a literal: kaggs_v, its
	 * room's bytes */
	if (k->vaggs_fd >= 0) {
		struct ubpf_kvskey vk, vnext;
		char str[UBPF_STRMAX + 1];
		void *vprev = NULL;

		memset(&vnext, 0, sizeof(vnext));
		while (bpf_map_get_next_key(k->vaggs_fd, vprev, &vnext) == 0) {
			vk = vnext;
			vprev = &vk;
			memcpy(str, vk.s, k->vroom);
			str[k->vroom] = '\0';
			if (bpf_map_lookup_elem(k->vaggs_fd, &vk, v) == 0)
				d_kplan_merge(k->kp, &vk.k, v,
					      (unsigned)k->ncpus, probe_by_id,
					      c, str);
		}
	}
	/* ... its short keys: kaggs_w, UBPF_KVSHORT bytes */
	if (k->waggs_fd >= 0) {
		struct ubpf_kvwkey wk, wnext;
		char str[UBPF_KVSHORT + 1];
		void *wprev = NULL;

		memset(&wnext, 0, sizeof(wnext));
		while (bpf_map_get_next_key(k->waggs_fd, wprev, &wnext) == 0) {
			wk = wnext;
			wprev = &wk;
			memcpy(str, wk.s, UBPF_KVSHORT);
			str[UBPF_KVSHORT] = '\0';
			if (bpf_map_lookup_elem(k->waggs_fd, &wk, v) == 0)
				d_kplan_merge(k->kp, &wk.k, v,
					      (unsigned)k->ncpus, probe_by_id,
					      c, str);
		}
	}
	/* the statements without keys: their slots of kflat */
	for (unsigned st = 0; st < d_kplan_nstmts(k->kp); st++) {
		unsigned slot, n;

		if (!d_kplan_flat(k->kp, st, &slot, &n))
			continue;
		for (unsigned i = 0; i < n; i++) {
			uint32_t idx = slot + i;
			bool hit = false;

			if (bpf_map_lookup_elem(k->flat_fd, &idx, v) < 0)
				continue;
			for (int cpu = 0; cpu < k->ncpus; cpu++)
				hit |= v[cpu].a || v[cpu].b;
			if (!hit)
				continue;
			memset(&key, 0, sizeof(key));
			key.agg = (uint16_t)st;
			key.bucket = (uint16_t)i;
			d_kplan_merge(k->kp, &key, v, (unsigned)k->ncpus,
				      probe_by_id, c, NULL);
			if (!del)
				continue;
			memset(v, 0, (size_t)k->ncpus * sizeof(*v));
			if (bpf_map_update_elem(k->flat_fd, &idx, v, BPF_ANY))
				fold_bad(c, k, "zeroing a folded slot");
		}
	}
	free(v);
}

/*
 * A fold (kplan_exit.c's "printa() at tick-N"): at a tick-N firing whose
 * clause may read or reset aggregations, before it runs, what the
 * kernel aggregated moves into user space's aggregations, the kernel's
 * entries deleted and its kflat slots zeroed.  The barrier came when
 * the firing was read (kprov_drain()), and the horizon is still at or
 * before the firing: nothing writes the maps.
 */
void bpf_kagg_fold(struct consumer *c, struct bpf_kagg *k)
{
	if (!k || k->bar_fd < 0)
		return;
	kagg_fold(c, k, true);
	k->folds++;
}

void bpf_kagg_merge(struct consumer *c, struct bpf_kagg *k)
{
	uint64_t *drops, mixed = 0;
	unsigned nran = 0, ndirect = 0, nout = 0;
	uint32_t zero = 0;

	if (!k)
		return;
	kagg_fold(c, k, false);
	drops = xcalloc((size_t)k->ncpus, sizeof(*drops));
	if (bpf_map_lookup_elem(k->drops_fd, &zero, drops) == 0)
		for (int cpu = 0; cpu < k->ncpus; cpu++)
			if (drops[cpu])
				say(c, "%" PRIu64 " aggregation drop%s on CPU %d",
				    drops[cpu], drops[cpu] == 1 ? "" : "s", cpu);
	/* self-> variables the map had no room for, as DTrace says it */
	memset(drops, 0, (size_t)k->ncpus * sizeof(*drops));
	if (k->tlsdrops_fd >= 0 &&
	    bpf_map_lookup_elem(k->tlsdrops_fd, &zero, drops) == 0)
		for (int cpu = 0; cpu < k->ncpus; cpu++)
			if (drops[cpu])
				say(c,
				    "%" PRIu64 " dynamic variable drop%s on "
				    "CPU %d",
				    drops[cpu], drops[cpu] == 1 ? "" : "s", cpu);
	free(drops);
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		/* printing from values computed there (kplan_out.c) */
		bool out = k->ran[ci] && d_kplan_out(k->kp, ci);

		nran += k->ran[ci] && !out;
		nout += out;
		ndirect += k->direct[ci];
	}
	if (c->o->verbose && nran)
		say(c, "%u clause%s aggregated in the kernel", nran,
		    nran == 1 ? "" : "s");
	if (c->o->verbose && nout)
		say(c, "%u clause%s printing values computed in the kernel",
		    nout, nout == 1 ? "" : "s");
	if (c->o->verbose && ndirect)
		say(c, "%u of them without the plan's instruction loop",
		    ndirect);
	/* ... and the clauses the kernel runs at some of their probes
	 * only (plan_of(): kplan_here.c's d_kplan_here()) */
	for (unsigned ci = 0; c->o->verbose && ci < k->nclauses; ci++)
		if (k->nuat[ci])
			say(c,
			    "clause %u (%s) ran in user space at %u of its %u "
			    "probes, first %s: %s",
			    ci + 1, clause_desc(c, ci), k->nuat[ci],
			    k->nuat[ci] + k->nkat[ci], k->uat[ci],
			    k->uwhy[ci][0] ? k->uwhy[ci] : "no reason kept");
	if (c->o->verbose && k->folds)
		say(c, "the kernel's aggregations folded in at %lu tick "
		    "firing%s", k->folds, k->folds == 1 ? "" : "s");
	/* not exact, so said without -v (bpf_kagg_tls_hit()) */
	for (size_t i = 0; i < k->nth; i++)
		if (k->th[i].armed)
			mixed += k->th[i].n;
	if (mixed)
		say(c,
		    "%" PRIu64 " hit%s ran in user space before the process's "
		    "plan was armed, with user space's self-> variables, not "
		    "the kernel's",
		    mixed, mixed == 1 ? "" : "s");
	if (c->o->verbose && k->tls_fd >= 0)
		say(c, "%zu self-> variable%s live in the kernel", k->tls_live,
		    k->tls_live == 1 ? "" : "s");
	if (c->o->verbose && k->tls_mthreads)
		say(c,
		    "self-> variables of %lu thread%s kept in user space "
		    "moved from the kernel: %lu entr%s",
		    k->tls_mthreads, k->tls_mthreads == 1 ? "" : "s",
		    k->tls_moved, k->tls_moved == 1 ? "y" : "ies");
	if (c->o->verbose && k->fix_used)
		say(c, "the plan of pid %d was compiled into the program",
		    (int)k->fix_used);
}
