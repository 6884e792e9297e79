// SPDX-License-Identifier: MIT
/*
 * bpf_agg_cgen.c - aggregating in the kernel with generated programs
 * (bpf_agg.c has the plans, bpf_agg_read.c the reading back): their
 * maps, the processes armed for them, tls_user() and self-> variables'
 * move to user space.
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
 * fit its plan marks it UBPF_KTLS_UNFIT, and its event's processes
 * keep them in user space instead ("Unfit events").  A clause keeping
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
 * Their plans may also gate the record (bpf_agg.c's plan_of()): where
 * every clause left to user space has an integer predicate kplan.c can
 * test at the hit, the plan ends with those tests and the record is
 * written only when one held; so do a kernel probe's generated
 * program's (bpf_agg.c's bpf_kagg_kplan()), not the generic
 * kprov.bpf.h's.
 * Clauses the kernel must not run at all are marked for d_kplan_new()
 * (user[]: they and the variables they touch are user space's): those
 * of dtrace:::ERROR, which also fire in dtrace, and in a run whose
 * copyout() is written with the thread held at the probe (c->cohold),
 * those after a copyout() clause that read the process, which must
 * read after dtrace's write, not at the hit before it.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
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
#include "bpf_agg_impl.h"
#include "consumer_impl.h"
#include "procfs.h"
#include "rec_impl.h"
#include "consumer_run.h"

/* cgarm1's mark: the lease not lent (hz_marks()); no pid has bit 31 */
#define ARM_NOLEASE 0x80000000u

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
	const unsigned *lists[] = { c->begin_clauses, c->end_clauses,
				    c->error_clauses };
	unsigned nl[] = { c->nbegin, c->nend, c->nerror };

	if (ci >= c->nclauses || !c->ndescs[ci])
		return false;
	for (unsigned k = 0; k < 3; k++)
		for (unsigned i = 0; i < nl[k]; i++)
			if (lists[k][i] == ci)
				return false;
	return kprov_prog_clause(c, ci);
}

/* clause ci's first probe description, as -v names the clause */
const char *clause_desc(const struct consumer *c, unsigned ci)
{
	return c->ndescs[ci] ? c->descs[ci][0].text : "";
}

/*
 * cgbar, an array of one map (cgbar_in), whose update is a barrier
 * (bpf_agg_read.c's bpf_kagg_barrier(): the kernel waits for every
 * program running to end); made once, at the start where a fold may
 * need it, else when a process's self-> moves ("Unfit events")
 */
static bool bar_make(struct bpf_kagg *k)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);

	if (k->bar_fd >= 0)
		return true;
	if (k->barin_fd < 0)
		k->barin_fd =
			map_new(BPF_MAP_TYPE_ARRAY, "cgbar_in", 4, 4, 1, 0);
	o.inner_map_fd = k->barin_fd;
	if (k->barin_fd >= 0)
		k->bar_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "cgbar",
					   4, 4, 1, &o);
	return k->bar_fd >= 0;
}

struct bpf_kagg *bpf_kagg_cgen(struct consumer *c, struct cgen_maps *m,
			       int *err)
{
	const char *env = getenv("DTRACE_KAGG");
	struct bpf_kagg *k;
	bool any = false, keyed = false, flat = false, tls = false;
	unsigned kkeys = 0; /* the most keys of a statement in kaggs */
	bool skeyed = false, vkeyed = false, fold = false, *user, *ticks,
	     *traced, *held, *ipv;
	unsigned nlong = 0; /* a kaggs_s key's strings in kaggs_l: 1 to 3 */
	unsigned vpair = 0; /* the longest pair of kaggs_v's rooms */
	unsigned nspec = 0, nlate = 0, ntied = 0, nsout = 0, xwhyc = 0;
	unsigned nspred = 0, nvin = 0, ntruth = 0, nkspec = 0;
	uint32_t po[2], eo[3], sx[4];
	bool ppid, ecred, sess, vtime;
	const char *ivenv = getenv("DTRACE_KAGG_IVAL");
	uint64_t ivper;
	char why[640];

	*err = 0;
	m->kaggs = m->kflat = m->kdrops = m->armed = m->arm1 = -1;
	m->kkeys = 0;
	m->tls = m->tlsdrops = m->kaggs_s = m->tlsa = m->kaggs_v = -1;
	m->tlsa1 = -1;
	m->kaggs_w = -1;
	m->kaggs_x = -1;
	m->kaggs_l = -1;
	m->lroom = 0;
	m->tlsu = m->tlsufull = m->tlss = m->hzn = m->act = -1;
	m->tlsuw = -1;
	m->spec = m->rcon = -1;
	m->ival_base = m->ival_per = 0;
	m->xpl = NULL; /* each event's own (bpf_kagg_xplan()) */
	m->xpid = 0;
	if (env && !strcmp(env, "0"))
		return NULL;
	k = xcalloc(1, sizeof(*k));
	/* dtrace:::ERROR's clauses run in user space, in the faulting
	 * thread's context: their variables must be user space's */
	user = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*user));
	for (unsigned i = 0; i < c->nerror; i++)
		if (c->error_clauses[i] < c->nclauses)
			user[c->error_clauses[i]] = true;
	/*
	 * Beside the in-process activation (c->ip) the kernel path has the
	 * probes the recorder hands it (inproc.c: a string it cannot copy,
	 * a stripped object, a process in another pid namespace), while
	 * the rest of the run's uprobe sites fire into the processes'
	 * arenas, whose records user space runs: a self-> variable or a
	 * global array that a clause at such sites touches has its one
	 * copy in user space.  Kept in the kernel, the in-process hits
	 * would read and store another (dfuzz, activation=user: a self->
	 * stored at a probe the kernel path took read 0 at the others).
	 * Such a clause is user space's here, so its variables are too;
	 * this-> variables live one firing, on one path.
	 */
	ipv = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*ipv));
	for (unsigned i = 0; c->ip && i < c->nclauses; i++)
		if (traced_clause(c, i) && d_kplan_shared_vars(c->prog, i))
			user[i] = ipv[i] = true;
	/* copyout() with the thread held (cgen_rec.c's u_hold()): dtrace
	 * writes when it runs the clause, so a clause after it that reads
	 * the process reads there too, after the write, as DTrace's
	 * does, not at the hit, before it */
	held = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*held));
	for (unsigned i = 0, co = 0; c->cohold && i < c->nclauses; i++) {
		uint32_t size[D_MAXARGS];

		held[i] = co && (d_clause_strargs(c->prog, i) ||
				 d_clause_memargs(c->prog, i, size) ||
				 d_kplan_late(c->prog, i));
		user[i] |= held[i];
		if (!co && (d_clause_needs(c->prog, i) & D_NEED_COPYOUT))
			co = i + 1;
	}
	/* tick-N's clauses: their exit() is cut at the horizon */
	ticks = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*ticks));
	for (unsigned i = 0; i < c->nclauses; i++)
		ticks[i] = kprov_tick_clause(c, i);
	for (unsigned i = 0; i < c->nclauses; i++)
		fold |= ticks[i] && d_kplan_folds(c->prog, ticks, i);
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
	 * last two offsets of those packed in 16 bits: kplan_expr.c) */
	ecred = ecred_wanted(c) && ecred_offs(eo) == 0;
	sess = sess_wanted(c) && sess_offs(sx) == 0 && sx[1] + 24 <= 0xffff &&
	       sx[2] + sx[3] <= 0xffff;
	/* ... and vtimestamp where the run keeps the clock (bpf_cg.c) */
	vtime = m->vtimes >= 0 && m->sumexec1;
	/* intervals in place of the horizon where they may be
	 * (kplan_exit.c's "Intervals"): the folding ticks of one period,
	 * no speculation, not beside the in-process activation;
	 * DTRACE_KAGG_IVAL=0 never, =1 even where no self-> gains */
	ivper = fold ? kprov_fold_period(c) : 0;
	for (unsigned i = 0; ivper && i < c->nclauses; i++)
		if (d_kplan_specs(c->prog, i))
			ivper = 0;
	if (c->ip || (ivenv && !strcmp(ivenv, "0")))
		ivper = 0;
	k->kp = d_kplan_new(c->prog,
			    D_KPLAN_VARS | (ppid ? D_KPLAN_PPID : 0) |
				    (ecred ? D_KPLAN_ECRED : 0) |
				    (sess ? D_KPLAN_SESS : 0) |
				    (vtime ? D_KPLAN_VTIME : 0) |
				    (ivper ? D_KPLAN_IVAL : 0) |
				    (ivper && ivenv && !strcmp(ivenv, "1")
					     ? D_KPLAN_IVAL_ALL
					     : 0),
			    user, ticks, traced);
	if (d_kplan_ival(k->kp)) {
		struct timespec ts;

		/* the base the intervals count from: before any program
		 * is loaded, so no hit is stamped before it; the ticks
		 * fire at base + k * period (kprov.c's kprov_start()) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k->ival_base = (uint64_t)ts.tv_sec * 1000000000u +
			       (uint64_t)ts.tv_nsec;
		k->ival_per = ivper;
		m->ival_base = k->ival_base;
		m->ival_per = ivper;
		if (c->o->verbose)
			say(c,
			    "the kernel's aggregations keyed by their "
			    "interval of %" PRIu64 " ns: no horizon, the "
			    "kernel keeps self-> beside the report",
			    ivper);
	}
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
		     spec = traced[i] && !so && d_kplan_specs(c->prog, i) &&
			    !d_kplan_kspec_clause(k->kp, i),
		     late = traced[i] && !so && !d_kplan_clause(k->kp, i) &&
			    d_kplan_specs_late(k->kp, i);

		nsout += traced[i] && so;
		nspred += traced[i] && d_kplan_spred(k->kp, i);
		nspec += spec;
		nlate += spec && late;
		ntied += !spec && late;
	}
	/* -v: the speculations in the kernel (kplan_spec.c's
	 * d_kplan_kspec()), or the first test that kept them out of it */
	for (unsigned i = 0; i < c->nclauses; i++)
		nkspec += d_kplan_kspec_clause(k->kp, i);
	if (c->o->verbose && nkspec)
		say(c,
		    "%u clause%s with speculations run in the kernel: the "
		    "buffers' words are the kernel's, their records held by "
		    "dtrace",
		    nkspec, nkspec == 1 ? "" : "s");
	if (c->o->verbose && d_kplan_kspec_why(k->kp))
		say(c, "speculations stay user space's: %s",
		    d_kplan_kspec_why(k->kp));
	/* ... and those whose values the kernel computes at the hit */
	if (c->o->verbose && nsout)
		say(c,
		    "%u clause%s with speculations printing values computed "
		    "in the kernel, at the probe: speculate() and the "
		    "buffers are user space's",
		    nsout, nsout == 1 ? "" : "s");
	/* -v: the clauses user space runs that read self-> variables
	 * the kernel keeps, their values carried in the records
	 * (kplan_vin.c's "Shared self-> variables") */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++) {
		bool vals = d_kplan_vin_vals(k->kp, i);

		nvin += vals;
		ntruth += !vals && d_kplan_vin(k->kp, i);
	}
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
	/* ... and those that only test a self-> string the kernel keeps
	 * (kplan_vin.c's vin_ptest()): run on the kernel's truth */
	if (c->o->verbose && ntruth)
		say(c,
		    "%u clause%s in user space testing self-> strings the "
		    "kernel keeps in %s predicate%s, run on the kernel's "
		    "truth of %s",
		    ntruth, ntruth == 1 ? "" : "s",
		    ntruth == 1 ? "its" : "their", ntruth == 1 ? "" : "s",
		    ntruth == 1 ? "it" : "them");
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
	/* (-v's R2 line, of the clauses that copy an argument string ahead
	 * in some probe's plan: bpf_agg_read.c, after the run) */
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
		    (held[i] ? snprintf(why, sizeof(why),
					"it reads the process after a "
					"copyout() that dtrace writes with "
					"the thread held at the probe") > 0
		     : user[i]
			     ? snprintf(why, sizeof(why),
					"it fires at dtrace:::ERROR too, "
					"in dtrace") > 0
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
	/* -v: the clauses kept out beside the in-process activation */
	for (unsigned i = 0; c->o->verbose && i < c->nclauses; i++)
		if (ipv[i])
			say(c,
			    "clause %u (%s) runs in user space where the kernel "
			    "path has its probe: it touches self-> variables "
			    "or a global array, which the in-process "
			    "activation's hits read and store in user space",
			    i + 1, clause_desc(c, i));
	free(user);
	free(held);
	free(ipv);
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
	k->laggs_fd = -1;
	k->tlsu_fd = k->tlsufull_fd = k->tlss_fd = k->hzn_fd = -1;
	k->tlsuw_fd = k->tlsa1_fd = -1;
	k->act_fd = k->bar_fd = k->barin_fd = k->vaggs_fd = -1;
	k->waggs_fd = k->spec_fd = k->rcon_fd = -1;
	k->xaggs_fd = -1;
	k->fork_fd = k->fork_link = -1;
	k->ncpus = libbpf_num_possible_cpus();
	if (!any || k->ncpus <= 0) {
		bpf_kagg_free(k);
		return NULL;
	}
	{
		/* the child's tgid, asked before tracing starts (kbtf.c
		 * keeps the answers asked by then for the boot) where a
		 * description may match a child's probe */
		const char *fa = getenv("DTRACE_FORK_ARM");
		long o = -1;

		k->fork_off = (fa && !strcmp(fa, "0")) || !descs_may_pass(c) ||
			      (o = kbtf_member("task_struct", "tgid")) < 0;
		k->fork_tgid1 = k->fork_off ? 0 : (uint32_t)o + 1;
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
		if (d_kplan_vpair(k->kp, st) > vpair)
			vpair = d_kplan_vpair(k->kp, st);
		if (d_kplan_skey_long(k->kp, st) > nlong)
			nlong = d_kplan_skey_long(k->kp, st);
		vkeyed |= d_kplan_vkey(k->kp, st);
	}
	if (skeyed)
		k->saggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_s",
				      sizeof(struct ubpf_kskey),
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
	/* ... and its keys whose strings pass its s: the same key, their
	 * UBPF_STRMAX bytes each (cgen_agg.c's "Long string keys"); a
	 * kernel that refuses a key that long (Linux before 5.11: 512
	 * bytes at most) sends those hits to user space, as before */
	k->lroom = UBPF_KSLONG(nlong);
	if (skeyed && nlong) {
		int was = errno; /* (not a failure: *err) */

		k->laggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_l",
				      sizeof(struct ubpf_kkey) + k->lroom,
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
		errno = was;
	}
	/* a string variable's key: all strsize - 1 bytes its store kept
	 * (kplan_out.c: strsize at most UBPF_STRMAX), so none is cut;
	 * with none, execname's 16 or the longest literal's, cut; a pair
	 * of two, both rooms (kplan_merge.c's kp_vkey_imm()) */
	k->vroom = d_kplan_vkey_room(k->kp);
	if (vkeyed && k->vroom && k->vroom <= UBPF_KVROOMMAX)
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
	if (vkeyed && k->vroom > UBPF_KVSHORT && k->vroom <= UBPF_KVROOMMAX)
		k->waggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_w",
				      sizeof(struct ubpf_kvwkey),
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
	/* ... and its pairs whose strings are short, where their rooms are
	 * longer than that key (cgen_agg.c's "Short pairs"); without it
	 * (a kernel that refused it) the pairs are kaggs_v's, as before */
	if (vkeyed && k->vaggs_fd >= 0 && vpair > 2 * UBPF_KVSHORT) {
		int was = errno;

		k->xaggs_fd = map_new(BPF_MAP_TYPE_PERCPU_HASH, "kaggs_x",
				      sizeof(struct ubpf_kvxkey),
				      sizeof(struct ubpf_kval),
				      UBPF_KMAXENTRIES, BPF_F_NO_PREALLOC);
		errno = was;
	}
	/*
	 * self-> variables: {tid, variable} -> value, allocated as they
	 * are stored (preallocating the 65,536 entries made a timed
	 * entry/return pair no faster, bench/perhit.sh)
	 */
	if (tls) {
		k->tls_fd = map_new(BPF_MAP_TYPE_HASH, "cgtls",
				    sizeof(struct ubpf_kvkey), 8, UBPF_KTLS,
				    BPF_F_NO_PREALLOC);
		k->tlsdrops_fd = map_new(BPF_MAP_TYPE_PERCPU_ARRAY,
					 "cgtlsdrops", 4, 8, UBPF_KDROPS, 0);
		/* self->a[k]: the same, the keys in the key */
		k->tlsa_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlsa",
				     sizeof(struct ubpf_kvakey), 8, UBPF_KTLS,
				     BPF_F_NO_PREALLOC);
		/* ... those of one key under the key's first 16 bytes, a
		 * shorter hash and compare at each lookup (the garr row of
		 * bench/perhit.sh) */
		k->tlsa1_fd =
			map_new(BPF_MAP_TYPE_HASH, "cgtlsa1", UBPF_KVAKEY1, 8,
				UBPF_KTLS, BPF_F_NO_PREALLOC);
		/* self->s = copyinstr(E): a struct ubpf_kostr each */
		k->tlss_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlss",
				     sizeof(struct ubpf_kvkey),
				     sizeof(struct ubpf_kostr), UBPF_KTLS,
				     BPF_F_NO_PREALLOC);
		/* pid -> its pid: a hit not armed there (tls_user()) */
		k->tlsu_fd = map_new(BPF_MAP_TYPE_HASH, "cgtlsu", 4, 4,
				     UBPF_MAXUSERS, BPF_F_NO_PREALLOC);
		k->tlsufull_fd =
			map_new(BPF_MAP_TYPE_ARRAY, "cgtlsufull", 4, 4, 1, 0);
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
				      UBPF_KDROPS, 0);
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
		k->hzarm = !d_kplan_kexit(k->kp) && !d_kplan_ival(k->kp);
		k->lent = true;
		k->hzn_fd = map_new(BPF_MAP_TYPE_ARRAY, "cghzn", 4, 8, 1, 0);
		bpf_kagg_horizon(k, kprov_horizon0(c));
	}
	/* the speculation buffers' words (kplan_spec.c's d_kplan_kspec()):
	 * nspec u64, inactive and counted 0 at the making, read by the
	 * programs by direct address (cgen_spec.c) */
	if (d_kplan_kspec(k->kp))
		k->spec_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgspec", 4,
				     8 * d_kplan_kspec_n(k->kp), 1, 0);
	/* the barrier before a fold (bpf_kagg_barrier()), and after a
	 * horizon's lease given back late (kprov.c's hz_revoke()); and
	 * before a read holding a speculation's close is run (records.c,
	 * kspec_read.c) */
	fold = d_kplan_horizon(k->kp) || d_kplan_kspec(k->kp);
	k->bar_fold = fold && bar_make(k);
	/* the run's activity, 0 (active) until an exit() at a hit, or
	 * one user space ran at a tick (kplan_exit.c's "The flood") */
	if (d_kplan_kexit(k->kp) || d_kplan_horizon(k->kp))
		k->act_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgact", 4, 8, 1, 0);
	/* the run constants the plans read (kplan_fkey.c), 0 until BEGIN
	 * has fired (bpf_kagg_rcon()) */
	if (d_kplan_nrcon(k->kp))
		k->rcon_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgrcon", 4,
				     8 * (1 + UBPF_KRCON), 1, 0);
	k->cgen = true; /* bpf_kagg_free() closes them */
	if ((keyed && (k->aggs_fd < 0 || k->drops_fd < 0)) ||
	    (flat && (k->flat_fd < 0 || k->drops_fd < 0)) || k->armed_fd < 0 ||
	    k->arm1_fd < 0 ||
	    (tls && (k->tls_fd < 0 || k->tlsdrops_fd < 0 || k->tlsa_fd < 0 ||
		     k->tlsa1_fd < 0 || k->tlsu_fd < 0 || k->tlss_fd < 0 ||
		     k->tlsufull_fd < 0 || k->tlsuw_fd < 0)) ||
	    (skeyed && k->saggs_fd < 0) || (vkeyed && k->vaggs_fd < 0) ||
	    (vkeyed && k->vroom > UBPF_KVSHORT && k->waggs_fd < 0) ||
	    (d_kplan_horizon(k->kp) && k->hzn_fd < 0) ||
	    (fold && k->bar_fd < 0) ||
	    (d_kplan_kspec(k->kp) && k->spec_fd < 0) ||
	    (d_kplan_nrcon(k->kp) && k->rcon_fd < 0) ||
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
	k->kkeys = kkeys;
	m->kflat = k->flat_fd;
	m->kdrops = k->drops_fd;
	m->armed = k->armed_fd;
	m->arm1 = k->arm1_fd;
	m->tls = k->tls_fd;
	m->tlsdrops = k->tlsdrops_fd;
	m->tlsa = k->tlsa_fd;
	m->tlsa1 = k->tlsa1_fd;
	m->tlss = k->tlss_fd;
	m->tlsu = k->tlsu_fd;
	m->tlsufull = k->tlsufull_fd;
	m->tlsuw = k->tlsuw_fd;
	m->kaggs_s = k->saggs_fd;
	m->kaggs_l = k->laggs_fd;
	m->lroom = k->laggs_fd >= 0 ? k->lroom : 0;
	m->kaggs_v = k->vaggs_fd;
	m->kaggs_w = k->waggs_fd;
	m->kaggs_x = k->xaggs_fd;
	m->hzn = k->hzn_fd;
	m->act = k->act_fd;
	m->hzarm = k->hzarm;
	m->spec = k->spec_fd;
	m->rcon = k->rcon_fd;
	return k;
}

/*
 * The run constants into cgrcon once BEGIN has fired (consumer.c), the
 * slots first, then word 0, which opens every program's gate (cgen.c):
 * two writes, so a hit that finds the gate open finds the slots
 * written.  -1 (said) where BEGIN left one of another type than the
 * plans read it as, or the write failed: the run cannot go on exactly.
 */
int bpf_kagg_rcon(struct consumer *c, struct bpf_kagg *k)
{
	uint64_t v[1 + UBPF_KRCON] = { 0 };
	unsigned n = k && k->cgen ? d_kplan_nrcon(k->kp) : 0;
	uint32_t key = 0;
	char why[384];

	if (!n || k->rcon_fd < 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (!d_kplan_rcon_value(k->kp, i, &v[1 + i], why,
					sizeof(why))) {
			say(c, "%s", why);
			return -1;
		}
	if (bpf_map_update_elem(k->rcon_fd, &key, v, BPF_ANY) < 0)
		goto bad;
	v[0] = 1;
	if (bpf_map_update_elem(k->rcon_fd, &key, v, BPF_ANY) < 0)
		goto bad;
	return 0;
bad:
	say(c, "cannot write the run constants (cgrcon): %s", strerror(errno));
	return -1;
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
	return xpl->nops > 0;
}

/*
 * Whose hits of tprobe p's events bpf_kagg_xplan()'s tests are for
 * (sites.c's exit_scope()): 0 every process's, a pid, or -1 none
 * exactly (the event is not traced: its exit cannot be decided).
 */
int bpf_kagg_xscope(struct consumer *c, struct bpf_kagg *k,
		    const struct tprobe *p)
{
	if (!k || k->act_fd < 0)
		return 0;
	return exit_scope(c, p, k->kp);
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
	if (pl->tls & UBPF_KTLS_UNFIT) /* runs no clause: "Unfit events" */
		k->unfit_evs++;
	else
		bpf_kagg_cgen_ran(k);
	free(k->cgplan[ev]);
	k->cgplan[ev] = xcalloc(1, sizeof(*pl));
	*k->cgplan[ev] = *pl;
}

/* k->th's entry for {ev, pid}, made if none */
static struct tls_hits *tls_hits_of(struct bpf_kagg *k, uint32_t ev, pid_t pid)
{
	for (size_t i = k->nth; i-- > 0;)
		if (k->th[i].ev == ev && k->th[i].pid == pid)
			return &k->th[i];
	k->th = xpush_room(k->th, k->nth, sizeof(*k->th));
	k->th[k->nth] = (struct tls_hits){ ev, pid, 0, false };
	return &k->th[k->nth++];
}

bool ev_unfit(const struct bpf_kagg *k, uint32_t ev)
{
	return ev < UBPF_MAXEV && k->cgplan[ev] &&
	       (k->cgplan[ev]->tls & UBPF_KTLS_UNFIT);
}

static bool tls_kept_user(struct bpf_kagg *k, pid_t pid);
static uint64_t umoved_t0(const struct bpf_kagg *k, pid_t pid);

/*
 * A hit at event ev in process pid that the kernel did not run the plan
 * of (not armed: a -p process while its probes go in, a forked child
 * before or without its plans): user space runs every clause for it.
 * Where the plan keeps self-> variables, that is exact only if the
 * process is never armed there (all its hits then run in user space,
 * with its variables); bpf_kagg_merge() says how many hits were not.
 */
void bpf_kagg_tls_hit(struct bpf_kagg *k, uint32_t ev, pid_t pid, pid_t tid,
		      uint64_t t)
{
	uint64_t t0;

	/* (every copy user space's since bpf_kagg_tls_move_all()) */
	if (k && k->cgen && !k->tls_all && ev < UBPF_MAXEV && k->cgplan[ev] &&
	    (k->cgplan[ev]->tls & 1)) {
		t0 = umoved_t0(k, pid);
		if (t0 && t >= t0) /* its own since tls_go_user() */
			return;
		tls_hits_of(k, ev, pid)->n++;
		/* an unfit event's hit of a process whose self-> variables
		 * the kernel kept: not exact, said ("Unfit events") */
		if (ev_unfit(k, ev) && (t0 || !tls_kept_user(k, pid)))
			k->unfit_mixed++;
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
void hz_marks(struct bpf_kagg *k, bool lent)
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
void cgen_disarm(struct bpf_kagg *k, uint32_t ev, pid_t pid)
{
	struct ubpf_kplan_key key = { ev, (uint32_t)pid };

	if (ev < UBPF_MAXEV && k->first[ev] == pid)
		cgen_arm1(k, ev, 0);
	(void)bpf_map_delete_elem(k->armed_fd, &key);
}

/*
 * Forks.  A forked child fires through the sites it inherited from its
 * first instruction, and dtrace arms it only once its registration (or
 * its fork record) has reached it: until then every hit of it is a
 * record user space runs, and where its plan keeps self-> variables its
 * first such hit keeps the child in user space for its whole life
 * (tls_user(): a forking server's children, a database's backends).
 * So where a child's plan at an event is its parent's, the kernel arms
 * it at its fork (cgen_fork.c's program on task_newtask, before the
 * child first runs): it copies each {ev, parent} entry of cgarmed that
 * carries ARMED_PASS to {ev, child}, as ARMED_INH | ARMED_PASS, for the
 * events cgforkev lists.  dtrace sets ARMED_PASS where bpf_agg.c's
 * plan_inherits() says the child's plan there is the parent's:
 *  - the clauses a child's probe at the site matches are the parent's:
 *    no description that may match the site names a provider whose
 *    match depends on the pid (srv$target, srv1*: sites.c's
 *    probe_child_same()); a pid probe's is its own process's;
 *  - the plan names nothing of the parent's probe: made again for a
 *    probe of another pid's provider and another id, it is the same;
 *  - user space runs nothing of its hits: no clause left to it (a
 *    flagged record's others run from the child's probe, which dtrace
 *    has not planned), no global array (two copies), no exit() or
 *    speculation in the kernel; the kernel's printf() values it only
 *    formats, the child's fork record read before them (bpf.c);
 *  - self->: the child's hits run with the kernel's copy from the
 *    first.  One of its hits at an event where it is not armed (an
 *    event listed too late, a library armed in the parent while the
 *    fork was in flight) goes to user space and puts the pid in cgtlsu,
 *    as any; from then on its ARMED_INH entries run no self-> plan
 *    (cgen.c looks cgtlsu up for them), so it has user space's copy
 *    alone, the kernel's moved there at its records ("Two copies").
 * dtrace's own arming of the child later (its registration) finds the
 * same plan and makes the entry ARMED_USER | ARMED_PASS; or decides it
 * otherwise (tls_user()), and disarms it.  A child dtrace never arms
 * keeps its entries until the refresh finds it gone
 * (bpf_kagg_fork_reap()); a pid reused before that by a process that
 * maps the same file is armed at those events, whose plans are no
 * process's own.  An exec leaves the entries, which only the same file
 * mapped again fires, with the same plans.  The cost: a loop over at
 * most UBPF_KFORKEV events at each fork of any process (a hash lookup
 * each), the child's entries; and a cgtlsu lookup at each self-> hit of
 * a child dtrace has not armed itself.  -v says how many children were
 * armed so; DTRACE_FORK_ARM=0 leaves them as before.
 */
static bool fork_ready(struct consumer *c, struct bpf_kagg *k)
{
	if (k->fork_link >= 0 || k->fork_off)
		return k->fork_link >= 0;
	k->fork_off = true; /* until it is made */
	k->fork_fd = map_new(BPF_MAP_TYPE_ARRAY, "cgforkev", 4,
			     sizeof(struct ubpf_kforkev), 1, 0);
	if (k->fork_fd < 0)
		return false;
	k->fork_link =
		cgen_fork_start(c, k->armed_fd, k->fork_fd, k->fork_tgid1);
	if (k->fork_link < 0) {
		if (c->o->verbose)
			say(c, "BPF: forked children armed by dtrace alone: %s",
			    c->be_why);
		return false;
	}
	k->forkev = xcalloc(UBPF_MAXEV, sizeof(*k->forkev));
	k->fork_off = false;
	return true;
}

/*
 * Event ev in cgforkev's list (made so on first use): the event first,
 * then the count, in two writes, so that the program reads no event it
 * was not given (an unlisted word is 0, an event too, which it would
 * only look up).  false where the list is full or there is no program.
 */
static bool fork_list(struct consumer *c, struct bpf_kagg *k, uint32_t ev)
{
	struct ubpf_kforkev v;
	uint32_t key = 0;

	if (!fork_ready(c, k))
		return false;
	if (k->forkev[ev])
		return true;
	if (k->nforkev >= UBPF_KFORKEV ||
	    bpf_map_lookup_elem(k->fork_fd, &key, &v) < 0)
		return false;
	v.ev[k->nforkev] = ev;
	if (bpf_map_update_elem(k->fork_fd, &key, &v, BPF_ANY) < 0)
		return false;
	v.n = ++k->nforkev;
	if (bpf_map_update_elem(k->fork_fd, &key, &v, BPF_ANY) < 0)
		return false;
	k->forkev[ev] = true;
	return true;
}

/* How many forked children the fork program armed (-v). */
unsigned long long bpf_kagg_forks(const struct bpf_kagg *k)
{
	struct ubpf_kforkev v;
	uint32_t key = 0;

	if (!k || k->fork_fd < 0 ||
	    bpf_map_lookup_elem(k->fork_fd, &key, &v) < 0)
		return 0;
	return v.forks;
}

/*
 * cgarmed's entries and values, n of them at most, into key[], v[]
 * (BPF_MAP_LOOKUP_BATCH, a syscall per batch; one at a time where the
 * kernel has no batches, or one failed): how many
 */
static long armed_read(int fd, struct ubpf_kplan_key *key, uint32_t *v,
		       size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	struct ubpf_kplan_key cur, next;
	uint64_t in = 0, out = 0;
	size_t got = 0;
	bool first = true;

	for (;;) {
		uint32_t cnt = (uint32_t)(n - got);
		int r;

		if (!cnt)
			return (long)got;
		r = bpf_map_lookup_batch(fd, first ? NULL : &in, &out,
					 key + got, v + got, &cnt, &o);
		if (r < 0 && errno != ENOENT)
			break;
		got += cnt;
		if (r < 0) /* ENOENT: the last batch */
			return (long)got;
		in = out;
		first = false;
	}
	got = 0; /* no batches here (or none that worked): one at a time */
	first = true;
	while (got < n &&
	       bpf_map_get_next_key(fd, first ? NULL : &cur, &next) == 0) {
		first = false;
		cur = next;
		if (bpf_map_lookup_elem(fd, &cur, &v[got]) == 0)
			key[got++] = cur;
	}
	return (long)got;
}

/*
 * The entries the fork program made for children that are gone and
 * that dtrace never armed (an entry it armed goes at the process's
 * exit: bpf_kagg_proc_exit()); each refresh where the program has armed
 * a child since the last look, or that look left such an entry.
 */
void bpf_kagg_fork_reap(struct bpf_kagg *k)
{
	struct ubpf_kplan_key *key;
	uint32_t *v;
	unsigned long long forks;
	long n;
	bool left = false;

	if (!k || k->fork_link < 0)
		return;
	forks = bpf_kagg_forks(k);
	if (forks == k->fork_seen && !k->fork_left)
		return;
	key = xcalloc(UBPF_MAXUSERS, sizeof(*key));
	v = xcalloc(UBPF_MAXUSERS, sizeof(*v));
	n = armed_read(k->armed_fd, key, v, UBPF_MAXUSERS);
	for (long i = 0; i < n; i++) {
		char path[32];

		if ((v[i] & ARMED_USER) || !(v[i] & ARMED_INH))
			continue;
		(void)proc_path(path, sizeof(path), (pid_t)key[i].pid, ".");
		if (access(path, F_OK) == 0 || errno != ENOENT)
			left = true;
		else if (bpf_map_delete_elem(k->armed_fd, &key[i]) == 0)
			k->fork_reaped++;
	}
	free(key);
	free(v);
	k->fork_seen = forks;
	k->fork_left = left;
}

/*
 * Armed where ev's program runs exactly pid's plan pl: in cgarm1 when
 * pid is the event's first, else in the hash; disarmed where not.
 * pass: its forked children may have the entry too ("Forks").
 */
void cgen_arm(struct consumer *c, struct bpf_kagg *k, uint32_t ev, pid_t pid,
	      const struct ubpf_kplan *pl, bool pass)
{
	struct ubpf_kplan_key key = { ev, (uint32_t)pid };
	uint32_t one = ARMED_USER;

	if (ev >= UBPF_MAXEV || !k->cgplan[ev] || ev_unfit(k, ev) ||
	    memcmp(k->cgplan[ev], pl, sizeof(*pl))) {
		cgen_disarm(k, ev, pid);
		return;
	}
	if (pass && fork_list(c, k, ev))
		one |= ARMED_PASS;
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
 * pid's cgtlsu entry, made v where it has none (*made): the value it
 * has (a program's, where one put the pid there meanwhile), 1 for a
 * process undecided while the map is full
 */
static uint32_t tls_entry(struct bpf_kagg *k, pid_t pid, uint32_t v, bool *made)
{
	uint32_t key = (uint32_t)pid, cur = 0, zero = 0, one = 1;

	*made = false;
	if (bpf_map_lookup_elem(k->tlsu_fd, &key, &cur) == 0)
		return cur;
	if (bpf_map_lookup_elem(k->tlsufull_fd, &zero, &cur) < 0 || cur)
		return 1;
	if (bpf_map_update_elem(k->tlsu_fd, &key, &v, BPF_NOEXIST) == 0) {
		*made = true;
		return v;
	}
	if (errno == EEXIST && bpf_map_lookup_elem(k->tlsu_fd, &key, &cur) == 0)
		return cur;
	(void)bpf_map_update_elem(k->tlsufull_fd, &zero, &one, BPF_ANY);
	return 1;
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
bool tls_user(struct bpf_kagg *k, pid_t pid)
{
	bool made;

	return tls_entry(k, pid, 0, &made) != 0;
}

/*
 * Unfit events.  The decision (kplan.c) is made once, before any uprobe
 * site is known, and a clause the kernel runs keeping self-> variables
 * may not fit a site's probe when it comes: its plan has no room for
 * the kernel's clauses there (UBPF_KOPS), or a form typed per probe
 * does not type there (kplan_here.c).  The clause cannot be user
 * space's at that probe alone: self-> has one copy for a thread.  So,
 * instead of refusing the event (and with it the run, which it did
 * until 2026-12-06), bpf_attach.c's cg_prog() gives it the plan
 * bpf_kagg_unfit_stub() makes: no clause, tls 1 | UBPF_KTLS_UNFIT, so
 * that no process is ever armed there (cgen_arm(): ev_unfit()) and
 * every hit takes cgen.c's path of a hit not armed where self-> is
 * kept: its pid into cgtlsu, the whole record, unflagged.  A process
 * that may fire such an event is kept in user space for its life, as a
 * forked child whose hit came before its plan (tls_user()): at its
 * first enable (bpf_agg.c's bpf_kagg_enable() asks tls_unfit_user()
 * where one of its enabled probes sits at an unfit event), its cgtlsu
 * entry is made 1 and cgtlsuw's word 1, so that it is armed at no
 * event whose plan keeps self->, and its kernel probe hits skip their
 * plans ("Two copies"); every clause of it runs in user space with
 * user space's copy of self->, and its events whose plans keep none
 * stay armed.  Exact as the forked child's is: decided with the
 * process held still (bpf.c's bpf_enable()) before any plan ran for
 * it, or after a hit of it at an event not armed made the entry 1
 * already.  Other processes keep the kernel's plans.
 *
 * A process decided armed already (its entry 0: a library dlopen()ed
 * later brings the unfit site) goes over at that enable (tls_go_user(),
 * doc/DESIGN.md's "A later probe that contradicts: the move", for one
 * process): t0 read, its entry made 1 and cgtlsuw's word 1, every event
 * keeping self-> disarmed for it, then a barrier (cgbar's update waits
 * for every program running to end: each that read the old state has
 * made its stores), then each of its threads' kernel copy moved into
 * user space's table (bpf_kagg_tls_move(), the threads noted moved).
 * From there its hits run no plan keeping self-> (not armed; a kernel
 * probe's looks the entry up), so one copy is live at a time, as in
 * the whole run's move.  Its records stamped from t0 on are its own;
 * one stamped before that comes unflagged at such an event (a hit not
 * armed while the kernel kept its copy) ran on user space's copy: not
 * exact, counted and said at the end (unfit_mixed, or the "before the
 * process's plan was armed" count), as is a hit at an unfit event of a
 * process never enabled since.  Where the barrier cannot be made the
 * enable fails, the run with it, saying which process and event.  Not
 * taken (the event refused as before):
 * speculations the kernel keeps (user space would step its own buffers
 * beside the kernel's words), a global array the kernel keeps (user
 * space skips the clauses touching it in an unflagged record), the
 * in-process activation, or cgtlsu's maps missing; DTRACE_UNFIT_USER=0
 * refuses as before, for tests.
 */
bool bpf_kagg_unfit_stub(struct consumer *c, struct bpf_kagg *k,
			 struct ubpf_kplan *pl)
{
	const char *env = getenv("DTRACE_UNFIT_USER");

	if (!k || !k->cgen || !k->kp || c->ip || k->tls_fd < 0 ||
	    k->tlsu_fd < 0 || k->tlsufull_fd < 0 || k->tlsuw_fd < 0 ||
	    d_kplan_kspec(k->kp) || d_kplan_garrs_any(k->kp) ||
	    (env && !strcmp(env, "0")))
		return false;
	memset(pl, 0, sizeof(*pl));
	pl->tls = 1 | UBPF_KTLS_UNFIT;
	pl->record = 1;
	pl->ustr = UINT16_MAX; /* (an armed hit's: none is) */
	return true;
}

/*
 * pid, armed where self-> is kept, goes over to user space for good:
 * its entry 1, every event keeping self-> disarmed for it, a barrier
 * (every program that read the old state has ended), then each of its
 * threads' kernel copy moved (bpf_kagg_tls_move()); false where the
 * barrier could not be made.  Its records stamped from t0 on are its
 * own after the move, not counted by bpf_kagg_tls_hit().
 */
static bool tls_go_user(struct consumer *c, struct bpf_kagg *k, pid_t pid)
{
	uint32_t key = (uint32_t)pid, zero = 0, one = 1, bin;
	struct timespec ts;
	char path[64];
	DIR *d;
	struct dirent *de;

	if (!bar_make(k))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (bpf_map_update_elem(k->tlsu_fd, &key, &one, BPF_EXIST) < 0)
		return false;
	(void)bpf_map_update_elem(k->tlsuw_fd, &zero, &one, BPF_ANY);
	for (size_t i = 0; i < c->up.nevs && i < UBPF_MAXEV; i++)
		if (k->cgplan[i] && (k->cgplan[i]->tls & 1))
			cgen_disarm(k, (uint32_t)i, pid);
	bin = (uint32_t)k->barin_fd;
	if (bpf_map_update_elem(k->bar_fd, &zero, &bin, BPF_ANY) < 0) {
		say(c, "cannot wait for the kernel's programs: %s",
		    strerror(errno));
		return false; /* (its entry stays 1: user space's, inexact) */
	}
	k->umoved = xpush_room(k->umoved, k->numoved, sizeof(*k->umoved));
	k->umoved[k->numoved].pid = pid;
	k->umoved[k->numoved++].t0 =
		(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) /* (as at a thread's record) */
		bpf_kagg_tls_rec(k, pid, (pid_t)atoi(de->d_name));
	if (d)
		closedir(d);
	k->unfit_moved++;
	return true;
}

/*
 * pid fires an unfit event: kept in user space for its life, from its
 * first enable or moved there now (true); false where it cannot move
 * (said, the enable failed)
 */
bool tls_unfit_user(struct consumer *c, struct bpf_kagg *k, pid_t pid,
		    const char *ev)
{
	uint32_t zero = 0, one = 1;
	bool made;

	if (!tls_entry(k, pid, 1, &made) && !tls_go_user(c, k, pid)) {
		say(c,
		    "cannot trace pid %d at uprobe event %s/%s: the kernel "
		    "keeps its self-> variables, clauses keeping them do not "
		    "fit that probe's plan, and they cannot move to user "
		    "space",
		    (int)pid, c->up.group, ev);
		c->enable_failed = true;
		return false;
	}
	k->unfit_procs += made;
	/* its kernel probes' hits look it up from now on (kp_tlsu()) */
	(void)bpf_map_update_elem(k->tlsuw_fd, &zero, &one, BPF_ANY);
	return true;
}

/* The time from which pid's records are its own after tls_go_user()
 * (0: it did not go) */
static uint64_t umoved_t0(const struct bpf_kagg *k, pid_t pid)
{
	for (size_t i = k->numoved; i-- > 0;)
		if (k->umoved[i].pid == pid)
			return k->umoved[i].t0;
	return 0;
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
		/* (a global array's element is no thread's: the kernel's) */
		if (t == UBPF_KGARR_TID || (tid && t != (uint32_t)tid))
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
	if (k->tlsa1_fd >= 0)
		n += tls_move_map(k, k->tlsa1_fd, UBPF_KVAKEY1, TM_ARR, tid);
	if (k->tlsa_fd >= 0)
		n += tls_move_map(k, k->tlsa_fd, sizeof(struct ubpf_kvakey),
				  TM_ARR, tid);
	if (k->tlss_fd >= 0)
		n += tls_move_map(k, k->tlss_fd, sizeof(struct ubpf_kvkey),
				  TM_STR, tid);
	return n;
}

/*
 * Every hit goes to user space now (kprov.c's kprov_horizon_off(): the
 * horizon 0 for good, after which a barrier ended every hit that ran a
 * plan), beside intervals, where the kernel kept self-> (kplan_exit.c's
 * "Intervals"): every thread's copy moves there, as a thread's does at
 * its record ("Two copies"), and no later record moves or counts one.
 */
void bpf_kagg_tls_move_all(struct bpf_kagg *k)
{
	size_t n;

	if (!k || !k->cgen || k->tls_all)
		return;
	k->tls_all = true;
	n = bpf_kagg_tls_move(k, 0);
	k->tls_moved += n;
	k->tls_mthreads += n > 0;
}

void bpf_kagg_tls_rec(struct bpf_kagg *k, pid_t pid, pid_t tid)
{
	size_t n;

	if (!k || !k->cgen || k->tlsu_fd < 0 || k->tlsufull_fd < 0 || tid <= 0)
		return;
	for (size_t i = 0; i < k->ntmoved; i++)
		if (k->tmoved[i] == tid)
			return;
	if (!tls_kept_user(k, pid))
		return;
	k->tmoved = xpush_room(k->tmoved, k->ntmoved, sizeof(*k->tmoved));
	k->tmoved[k->ntmoved++] = tid;
	/* (-v counts the threads that had entries to move: one whose
	 * record came before any store of the kernel's has none) */
	n = bpf_kagg_tls_move(k, tid);
	k->tls_mthreads += n > 0;
	k->tls_moved += n;
}

/*
 * The self-> variables the kernel keeps (cgtls, arrays' elements in
 * cgtlsa) of threads that exited are deleted, as records.c's
 * threads_reap() deletes user space's, on the same refresh and in the
 * same two steps: a thread whose hits only the kernel ran sent no
 * record, so the threads are those the maps name, each looked up as
 * /proc/TID, and the keys of those gone are noted
 * (bpf_kagg_tls_gone()); then the buffers are read, and only then are
 * the keys deleted (bpf_kagg_tls_reap()).  A thread gone before the
 * read wrote its records before it, and one of them may be the record
 * at which its kernel copy moves to user space (a forked child kept
 * there: "Two copies"), which reads its cgtlsu entry and then its
 * entries here: deleted before that read, the child's records ran
 * with user space's copy unset, its first return's value lost (a
 * child that fires 20 pairs and exits between a read and a refresh:
 * 22 runs in 160 of run-trace-fork.sh's mixed arming, four loops side
 * by side).  A thread with a hit kept for
 * the next read keeps its entries until a later reap, as user space's
 * do.  A thread that gets the id later starts with none.  The number
 * left is k->tls_live, for -v.  A global array's elements
 * (../kplan_garr.c: UBPF_KGARR_TID, an id no thread has) are the run's:
 * left and not counted.
 */
static size_t tls_note(struct bpf_kagg *k, int fd, size_t ksz)
{
	/* both keys start {tid, var}: struct ubpf_kvkey */
	char key[sizeof(struct ubpf_kvakey)], next[sizeof(key)];
	size_t live = 0;
	uint32_t last = 0, tid;
	bool last_gone = false;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		memcpy(&tid, key, sizeof(tid));
		if (tid == UBPF_KGARR_TID) /* a global array's: no thread */
			continue;
		if (tid != last || !last) { /* a variable's keys: one check */
			char path[32];

			(void)proc_path(path, sizeof(path), (pid_t)tid, ".");
			last = tid;
			last_gone = access(path, F_OK) < 0 && errno == ENOENT;
		}
		if (last_gone) {
			struct tls_gone *g;

			k->gone =
				xpush_room(k->gone, k->ngone, sizeof(*k->gone));
			g = &k->gone[k->ngone++];
			g->fd = fd;
			memcpy(g->key, key, ksz);
		} else {
			live++;
		}
	}
	return live;
}

/* a tid in k->tmoved whose thread is gone */
static bool tmoved_gone(const struct bpf_kagg *k, size_t i)
{
	char path[32];

	(void)proc_path(path, sizeof(path), k->tmoved[i], ".");
	return access(path, F_OK) < 0 && errno == ENOENT;
}

size_t bpf_kagg_tls_gone(struct bpf_kagg *k)
{
	size_t n = 0;

	if (!k || k->tls_fd < 0)
		return 0;
	k->ngone = 0;
	k->tls_live = tls_note(k, k->tls_fd, sizeof(struct ubpf_kvkey));
	if (k->tlsa_fd >= 0)
		k->tls_live +=
			tls_note(k, k->tlsa_fd, sizeof(struct ubpf_kvakey));
	if (k->tlsa1_fd >= 0)
		k->tls_live += tls_note(k, k->tlsa1_fd, UBPF_KVAKEY1);
	if (k->tlss_fd >= 0)
		k->tls_live +=
			tls_note(k, k->tlss_fd, sizeof(struct ubpf_kvkey));
	if (k->tlsu_fd >= 0) /* processes, not threads, but a pid is a tid */
		(void)tls_note(k, k->tlsu_fd, sizeof(uint32_t));
	for (size_t i = 0; i < k->ntmoved; i++)
		n += tmoved_gone(k, i);
	return k->ngone + n;
}

void bpf_kagg_tls_reap(struct consumer *c, struct bpf_kagg *k)
{
	if (!k || k->tls_fd < 0)
		return;
	for (size_t i = 0; i < k->ngone; i++) {
		const struct tls_gone *g = &k->gone[i];
		uint32_t id;

		memcpy(&id, g->key, sizeof(id));
		/* (cgtlsu's key a process's: kept while any thread of it
		 * has a hit kept) */
		if (g->fd == k->tlsu_fd ? hits_kept_of(c, (pid_t)id)
					: hits_kept_of_tid(c, (pid_t)id))
			continue;
		(void)bpf_map_delete_elem(g->fd, g->key);
	}
	k->ngone = 0;
	/* the threads moved (bpf_kagg_tls_rec()) that are gone */
	for (size_t i = 0; i < k->ntmoved;)
		if (tmoved_gone(k, i) && !hits_kept_of_tid(c, k->tmoved[i]))
			k->tmoved[i] = k->tmoved[--k->ntmoved];
		else
			i++;
}
