// SPDX-License-Identifier: MIT
/*
 * bpf_agg.c - the bpf backend aggregating in the kernel: plans for the
 * clauses that allow it are put in the program's map kplans, and what
 * the program aggregated (kaggs) is read back once, when tracing has
 * stopped, into the D program's aggregations (kplan.c decides and
 * merges; bpf/kagg_bpf.h has the formats, bpf/kagg.bpf.h runs them).
 * This file has the plans (below: "Plans", a kernel provider's probe, the
 * faster paths); bpf_agg_cgen.c has the generated programs' maps, their
 * arming, tls_user() and the move of self-> variables ("Generated
 * programs"); bpf_agg_read.c the reading back, the horizon, the activity
 * and the folds; bpf_agg_impl.h struct bpf_kagg, which all three share.
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
 * DTRACE_KAGG=0 turns it off: every hit is recorded and aggregated in
 * user space, which prints the same (tests/run-kagg.sh compares both).
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kplan.h"
#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "bpf_agg_impl.h"
#include "consumer_impl.h"

/* k's per-clause marks (ran, direct, and pran, pdirect: plan_of()) */
void clause_marks(struct bpf_kagg *k, unsigned n)
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
	k->laggs_fd = -1;
	k->tlsu_fd = k->tlsufull_fd = k->tlss_fd = k->hzn_fd = -1;
	k->tlsuw_fd = k->tlsa1_fd = -1;
	k->act_fd = k->vaggs_fd = k->waggs_fd = k->spec_fd = -1;
	k->xaggs_fd = -1;
	k->rcon_fd = -1;
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
	free(k->forkev);
	if (k->cgen && k->fork_link >= 0) /* the fork program's first */
		close(k->fork_link);
	if (k->cgen) { /* the maps bpf_kagg_cgen() made */
		int fds[] = { k->aggs_fd,     k->flat_fd,     k->drops_fd,
			      k->armed_fd,    k->arm1_fd,     k->tls_fd,
			      k->tlsdrops_fd, k->saggs_fd,    k->tlsa_fd,
			      k->tlsu_fd,     k->tlsufull_fd, k->tlss_fd,
			      k->hzn_fd,      k->act_fd,      k->bar_fd,
			      k->barin_fd,    k->vaggs_fd,    k->waggs_fd,
			      k->tlsuw_fd,    k->spec_fd,     k->rcon_fd,
			      k->tlsa1_fd,    k->fork_fd,     k->laggs_fd,
			      k->xaggs_fd };

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
	free(k->gone);
	free(k->umoved);
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
 * its own gate, its ODONE asking for the record.  At an exit clause
 * (user space's: kplan_exit.c's "exit() at a traced probe") followed
 * by another, the winner's end, UBPF_K_XEND (d_kplan_xend()); one that
 * does not fit leaves the clauses after it user space's.  false when
 * no clause runs in the kernel and none is gated.
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
	unsigned last = 0, nk = 0, nx = 0;
	/* an exit clause's XEND that did not fit: the clauses after it
	 * are user space's here (kplan_exit.c's d_kplan_xend()) */
	bool xcut = false;
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
	k->unfit[0] = '\0';
	if (!d_kplan_here(k->kp, dp, cl, n, here, why)) {
		pl->tls |= UBPF_KTLS_UNFIT;
		for (unsigned i = 0; i < n && !k->unfit[0]; i++)
			if (d_kplan_sout(k->kp, cl[i]))
				snprintf(k->unfit, sizeof(k->unfit), "%s",
					 why[i]);
	}
	for (unsigned i = 0; i < n; i++)
		nx += d_kplan_xclause(k->kp, cl[i]);
	for (unsigned i = 0; i < n; i++) {
		if (xcut && here[i]) { /* not reached: d_kplan_here() tried */
			here[i] = false;
			if (d_kplan_kvars(k->kp, cl[i]))
				pl->tls |= UBPF_KTLS_UNFIT;
		}
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
		 * know: the event is refused (d_kplan_here() made them room
		 * where a clause before them could be user space's) */
		if (d_kplan_sout(k->kp, cl[i])) {
			if (d_kplan_sout_emit(k->kp, cl[i], dp, pl))
				any = true;
			else
				pl->tls |= UBPF_KTLS_UNFIT;
		}
		/* one whose record carries the kernel's self-> values
		 * it reads (kplan_vin.c's "Shared self-> variables"):
		 * where they do not fit, refused as a sout one */
		else if (d_kplan_vin(k->kp, cl[i])) {
			if (d_kplan_vin_emit(k->kp, cl[i], dp, pl))
				any = true;
			else
				pl->tls |= UBPF_KTLS_UNFIT;
		}
		/* its self-> variables are the kernel's: it cannot run in
		 * user space instead at this probe alone (bpf_attach.c's
		 * cg_prog() keeps the event's processes in user space:
		 * bpf_agg_cgen.c's "Unfit events");
		 * its this-> ones are user space's here with it
		 * (d_kplan_here()), unless the kernel's plan did not take
		 * it after all (not reached: d_kplan_here() tried it) */
		else if (d_kplan_kself(k->kp, cl[i]) ||
			 (here[i] && d_kplan_kvars(k->kp, cl[i])))
			pl->tls |= UBPF_KTLS_UNFIT;
		/* ... nor one whose speculations are the kernel's (kplan.h's
		 * d_kplan_kspec()): user space would step its own buffers
		 * beside the kernel's words */
		else if (d_kplan_kspec_clause(k->kp, cl[i]))
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
		/* an exit clause: the winner's plan ends here, where a
		 * clause follows (kplan_exit.c's "exit() at a traced
		 * probe") */
		if (!xcut && i + 1 < n && d_kplan_xclause(k->kp, cl[i]) &&
		    !d_kplan_xend(k->kp, cl[i], dp, pl, nx > 1))
			xcut = true;
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

void bpf_kagg_unfit(struct consumer *c, const struct bpf_kagg *k,
		    const char *what)
{
	if (k && k->unfit[0])
		snprintf(c->be_why, sizeof(c->be_why),
			 "the clauses of %s that keep variables in the "
			 "kernel do not fit one plan: %s",
			 what, k->unfit);
	else
		snprintf(c->be_why, sizeof(c->be_why),
			 "the clauses of %s that keep variables in the "
			 "kernel do not fit one plan: a clause whose self-> "
			 "variables or speculated values the kernel must "
			 "keep has no room there, and user space cannot run "
			 "it instead",
			 what);
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

/*
 * May a forked child of p's process run pl, its plan at an event, from
 * its fork on (bpf_agg_cgen.c's "Forks")?  Where the child's plan there
 * is pl: its probe matches p's clauses (sites.c's probe_child_same())
 * and nothing of pl names p's probe itself (its id or its provider's
 * name: pl made again for a probe of another id and pid must be pl);
 * and where user space runs nothing of a hit: no clause left to it
 * (a record it runs clauses from names the child's probe, whose clauses
 * it has not planned), no global array (two copies), no exit() or
 * speculation in the kernel; a record of the kernel's printf() values
 * it only formats.
 */
static bool plan_inherits(struct consumer *c, struct bpf_kagg *k,
			  const struct tprobe *p, const struct ubpf_kplan *pl)
{
	struct ubpf_kplan *pl2;
	struct d_probe dp;
	bool *ran, *direct, same;
	unsigned *ucl = NULL, *uep = NULL, nu = 0, *nkat;
	char unfit[sizeof(k->unfit)], prov[256];

	if (!k->cgen || k->fork_off ||
	    (pl->record && (d_kplan_kexit(k->kp) || d_kplan_kspec(k->kp))) ||
	    (pl->tls & (UBPF_KTLS_GARR | UBPF_KTLS_UNFIT)) ||
	    !probe_child_same(c, p))
		return false;
	dp = p->dp;
	if (strcmp(p->prov, p->bprov)) { /* another process's name */
		snprintf(prov, sizeof(prov), "%s%d", p->bprov,
			 p->pid == 1 ? 2 : 1);
		dp.prov = prov;
	}
	dp.id ^= 0x40000000u;
	ran = xmalloc((k->nclauses + 1) * sizeof(*ran));
	direct = xmalloc((k->nclauses + 1) * sizeof(*direct));
	memcpy(ran, k->pran, k->nclauses * sizeof(*ran));
	memcpy(direct, k->pdirect, k->nclauses * sizeof(*direct));
	memcpy(unfit, k->unfit, sizeof(unfit));
	pl2 = xcalloc(1, sizeof(*pl2));
	nkat = k->nkat; /* no -v count for the trial */
	k->nkat = NULL;
	same = plan_of(k, &dp, p->clauses, p->epids, p->nclauses, pl2, &ucl,
		       &uep, &nu, k->cgen) &&
	       !memcmp(pl, pl2, sizeof(*pl)) && !nu;
	k->nkat = nkat;
	free(ucl);
	free(uep);
	memcpy(k->pran, ran, k->nclauses * sizeof(*ran));
	memcpy(k->pdirect, direct, k->nclauses * sizeof(*direct));
	memcpy(k->unfit, unfit, sizeof(unfit));
	free(pl2);
	free(ran);
	free(direct);
	return same;
}

/*
 * An unfit event (bpf_agg_cgen.c's "Unfit events") where pr has an
 * enabled probe with clauses: its index, or -1
 */
static long proc_unfit(struct consumer *c, struct bpf_kagg *k, struct tproc *pr)
{
	for (size_t i = 0; i < c->up.nevs && i < UBPF_MAXEV; i++) {
		struct tevent *e = c->up.evs[i];
		struct tprobe *p;

		if (!ev_unfit(k, (uint32_t)i))
			continue;
		p = probe_at_site(c, pr->pid, e->file, e->off, false);
		if (p && p->enabled && p->nclauses)
			return (long)i;
	}
	return -1;
}

/*
 * pr was enabled: a plan for each of its events whose probe has one,
 * but none that keeps self-> variables where tls_user() says its hits
 * there stay in user space (its threads then have no variable in the
 * kernel), or where it fires an unfit event (tls_unfit_user()).
 */
void bpf_kagg_enable(struct consumer *c, struct bpf_kagg *k, struct tproc *pr)
{
	struct ubpf_kplan *pl;
	bool user = false;
	long uev;

	if (!k)
		return;
	if (k->cgen && k->tlsu_fd >= 0) {
		uev = proc_unfit(c, k, pr);
		user = uev >= 0 ? tls_unfit_user(c, k, pr->pid,
						 c->up.evs[uev]->name)
				: tls_user(k, pr->pid);
	}
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
			cgen_arm(c, k, (uint32_t)i, pr->pid, pl,
				 plan_inherits(c, k, p, pl));
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
	for (size_t i = k->numoved; i-- > 0;) /* ... so its t0 goes */
		if (k->umoved[i].pid == pid)
			k->umoved[i] = k->umoved[--k->numoved];
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

const struct d_kplan *bpf_kagg_kp(const struct bpf_kagg *k)
{
	return k->kp;
}

bool bpf_kagg_fault(struct consumer *c, unsigned clause, const struct d_fire *f,
		    int *action, enum d_run_flt *kind, uint64_t *addr)
{
	struct bpf_kagg *k = bpf_kagg_of(c);
	unsigned arg;
	bool next;

	if (!k || !k->kp ||
	    !d_kplan_fault(k->kp, clause, c->kfault, action, &arg, &next,
			   kind) ||
	    (*kind == D_RUNF_ADDR && arg >= D_MAXARGS))
		return false;
	*addr = 0;
	if (*kind != D_RUNF_ADDR) /* no address of the process's */
		return true;
	/* d_read_user_str() reads a page at a time: past the string's
	 * first page, the next one is where it faults */
	*addr = next ? (f->arg[arg] | 4095) + 1 : f->arg[arg];
	return true;
}
