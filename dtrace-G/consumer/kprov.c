// SPDX-License-Identifier: MIT
/*
 * kprov.c - the providers whose probes are not sites in a user program:
 * syscall (kprov_syscall.c), profile-N and tick-N (kprov_profile.c) and
 * proc (kprov_proc.c).  This file is what they have in common; each
 * provider's file fills its table (struct provider, provider_impl.h):
 * how its probes are named (each(), why()) and armed (arm()), which
 * programs fire them (progs) and what the backend must have (needs).
 *
 * They ride the consumer's event path (doc/DESIGN.md §8, "The
 * consumer's event path"): their programs are part of the BPF backend's
 * object (bpf/kprov.bpf.h, in usdt.bpf.c), write the same ring buffer
 * with the same drop counting, and aggregate in the kernel through the
 * same plans (bpf_agg.c); a record is a USDT record (struct ubpf_rec)
 * whose ev has UBPF_EV_KPROV set and names the probe by its index in
 * struct kprov.  So records of USDT sites and of kernel probes are read
 * together, sorted by time and run in that order.  tick-N is the one
 * that needs no BPF: a timerfd in the consumer's loop, whose firings
 * are made into records (kprov_drain()) with the time the timer was
 * due, so they sort among the others too.
 *
 * A run.  kprov_match(), before any process is read, matches every
 * clause's descriptions against every kernel probe (the providers'
 * each(): the probes -l lists through kp_list(), and profile-N or
 * tick-N of any rate a description spells out); each probe a clause matches
 * becomes a struct kprobe with its clauses and an ID, and the descriptions
 * count the match, so a description of kernel probes alone passes the "matched
 * nothing" check, and -Z is unchanged.  Where the run's programs are generated
 * (cgen_kprov.c: each provider's cg_pro() has a prologue for each probe), each
 * probe gets its own, attached where the object's would be (kp_attach_perf());
 * else bpf.c asks kprov_autoload() which of the programs the tables name to
 * load. kprov_arm(), after the processes were enabled and before BEGIN: the
 * generated programs with their plans compiled in (kp_cg_arm()), or
 * the kernel's plans for the probes whose clauses aggregate there, then
 * each provider arms its probes.  A probe that a program fires, on a
 * run whose backend lacks its provider's needs (BE_CAP_KPROV: the
 * uprobe, fasttrap or in-process backend, or dtrace built without
 * libbpf), stops the run before BEGIN, with the provider and the
 * reason said.
 * kprov_start() sets the tick timers when BEGIN has fired, and
 * kprov_horizon() the horizon past which the kernel's clauses do not
 * run, the next firing that may exit() or read or reset aggregations
 * (kplan_exit.c's "Why exit()" and "printa() at tick-N"; kprov_drain() says
 * when a read took one of the latter, kprov_hit() folds at it), lending
 * the kernel UINT64_MAX until shortly before it, hz_revoke() giving
 * it back (kplan_exit.c's "The lease"); once user space has run an exit(),
 * kprov_exited() tells the kernel, whose programs then do nothing
 * (kplan_exit.c's "The flood").
 * Hits are decoded here (kprov_hit()) into a struct d_fire and run by
 * records.c's hit_run(), as every hit is (hit_run_kagg() where the
 * generated program ran clauses, the values of its printing and
 * speculating ones in the record's out area: cg_out_rec(),
 * kplan_out.c, kplan_spec.c's "Speculations").
 * kprov_stop(), with the backend's stop: no record is made after it.
 *
 * What a firing says.  pid, tid, CPU and execname are the thread that
 * fired (a system call's caller, the thread a profile tick interrupted,
 * 0 and "swapper/N" on an idle CPU, the process that forked, exec'd or
 * exited); uid and gid come with the record, and ppid too where the
 * kernel's BTF told where task_struct keeps the parent (else the traced
 * process's, or unknown: -1, and reading it faults), and with
 * progenyof() the chain of parents the hit walked (the kctx's pad says
 * how many links follow the out area, and whether it reached pid 0).
 * tick-N fires in dtrace itself, as BEGIN does: its
 * pid and execname are dtrace's (DTrace's are those of whatever thread
 * the interrupt found, on one CPU, often 0 and sched: arbitrary in
 * both).
 *
 * Scope.  As in DTrace, these probes are system-wide whatever -p and -c
 * say: a script keeps to its targets with /pid == $target/ or
 * /progenyof($target)/.  Where the predicate is as simple as that and
 * the clause aggregates, the kernel runs it (`syscall::read:entry /pid ==
 * $target/ { @ = count(); }` records nothing), and an exit() whose
 * predicate is as simple is decided there, at the hit, the counts cut
 * in the kernel's order (kplan_exit.c's "exit() at a traced probe"); any
 * other clause reads a record per firing.  dtrace's own system calls
 * are not traced (DTrace traces its consumer's, but ours read the
 * records of the calls they make: each read would make records); its
 * profile ticks and process events are.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

#include "bpf/kagg_bpf.h"
#include "bpf/kprov_bpf.h"
#include "bpf/usdt_bpf.h"
#include "kplan.h"
#include "kprov.h"
#include "../objects/probes.h"

bool kp_has_prog(const struct kprobe *p)
{
	const struct provider *pv = p->n.prov;

	for (size_t i = 0; i < pv->nprogs; i++)
		if (pv->progs[i].kind == (int)p->n.kind)
			return true;
	return false;
}

struct kprobe *kprov_rec_probe(const struct consumer *c, uint32_t ev)
{
	const struct kprov *kp = c->kp;
	uint32_t idx = ev & ~UBPF_EV_KPROV;

	return kp && (ev & UBPF_EV_KPROV) && idx < kp->n ? kp->probes[idx]
							 : NULL;
}

/* ------------------------------------------------------------------ */
/* Names: dtrace -l and matching */

struct list_arg {
	const struct dt_lister *l;
	int r; /* row()'s first non-zero return */
};

/* One probe as a row of dtrace -l (list.c numbers and selects it). */
static void list_one(const struct kp_name *n, void *arg)
{
	struct list_arg *la = arg;
	struct dt_probe p = {0};

	if (la->r)
		return;
	p.origin = DT_ORIGIN_KERNEL;
	snprintf(p.provider, sizeof(p.provider), "%s", n->d.prov);
	p.prov = n->d.prov;
	p.mod = n->d.mod;
	p.func = n->d.func;
	p.name = n->d.name;
	p.path = "";
	/* DTrace's: Evolving provider and name, Private module and function */
	p.provattr = p.nameattr = DOF_ATTR(5, 5, 5);
	p.modattr = p.funcattr = DOF_ATTR(1, 1, 0);
	p.argsattr = DOF_ATTR(1, 1, 4);
	p.xargc = n->d.nargs;
	p.xargv = (const char **)n->d.argtypes;
	la->r = la->l->row(&p, -1, la->l->arg);
}

int kp_list(const struct provider *pv, const struct dt_lister *l)
{
	struct list_arg la = {l, 0};

	if (l->files || !pv->each)
		return 0; /* --object: the probes of files */
	pv->each(l->names, l->nnames, list_one, &la);
	return la.r;
}

bool kp_has(const struct kprov *kp, enum kp_kind kind)
{
	for (size_t i = 0; kp && i < kp->n; i++)
		if (kp->probes[i]->n.kind == kind)
			return true;
	return false;
}

uint8_t kp_ustk(struct consumer *c, const struct kprobe *p)
{
	/* as a USDT event's (bpf.c): ustack.c unwinds the copy */
	if (!(p->needs & D_NEED_USTACK))
		return 0;
	return (uint8_t)(ustack_size(c) / 1024);
}

uint64_t kp_cookie(struct consumer *c, const struct kprobe *p)
{
	return (UBPF_EV_KPROV | p->idx) |
	       (uint64_t)kp_ustk(c, p) << UBPF_KCOOKIE_USTK_SHIFT;
}

/* The literal probe names of the descriptions, each once. */
static void names_collect(struct consumer *c, struct kprov *kp)
{
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const char *nm = c->descs[ci][j].name;
			bool dup = false;

			if (!nm[0] || strpbrk(nm, "*?[\\"))
				continue;
			for (size_t k = 0; k < kp->nnames && !dup; k++)
				dup = !strcmp(kp->names[k], nm);
			if (!dup)
				PUSH(kp->names, kp->nnames, xstrdup(nm));
		}
}

/* Is n some clause's?  Then it is a probe of the run. */
static void match_one(const struct kp_name *n, void *arg)
{
	struct consumer *c = arg;
	struct kprov *kp = c->kp;
	struct kprobe *p = NULL;

	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		bool hit = false;

		for (unsigned j = 0; j < c->ndescs[ci]; j++)
			if (probe_matches(&c->descs[ci][j], n->d.prov, n->d.mod,
					  n->d.func, n->d.name)) {
				c->descs[ci][j].matched++;
				hit = true;
			}
		if (!hit)
			continue;
		if (!p) {
			p = xcalloc(1, sizeof(*p));
			p->idx = (unsigned)kp->n;
			p->cg_fd = -1;
			p->n = *n;
			p->n.d.prov = xstrdup(n->d.prov);
			p->n.d.mod = xstrdup(n->d.mod);
			p->n.d.func = xstrdup(n->d.func);
			p->n.d.name = xstrdup(n->d.name);
			p->dp.id = ++c->next_id;
			p->dp.prov = p->n.d.prov;
			p->dp.mod = p->n.d.mod;
			p->dp.func = p->n.d.func;
			p->dp.name = p->n.d.name;
			p->dp.nargs = n->d.nargs;
			p->dp.argtypes = n->d.argtypes;
			p->dp.errret = n->kind == KP_SYS_RETURN;
			PUSH(kp->probes, kp->n, p);
		}
		PROBE_CLAUSE_ADD(c, p, ci);
	}
}

void kprov_match(struct consumer *c)
{
	struct kprov *kp = xcalloc(1, sizeof(*kp));

	c->kp = kp;
	names_collect(c, kp);
	for (size_t i = 0; i < nproviders; i++)
		if (providers[i]->each)
			providers[i]->each(kp->names, kp->nnames, match_one, c);
}

unsigned kprov_source_matches(struct consumer *c, unsigned lo, unsigned hi)
{
	unsigned n = 0;

	for (size_t k = 0; c->kp && k < c->kp->n; k++) {
		const struct kprobe *p = c->kp->probes[k];
		bool hit = false;

		for (unsigned ci = 0; ci < p->nclauses && !hit; ci++)
			hit = p->clauses[ci] >= lo && p->clauses[ci] < hi;
		n += hit;
	}
	return n;
}

const char *kprov_why(struct consumer *c, const struct dt_desc *d, char *buf,
		      size_t len)
{
	(void)c;
	for (size_t i = 0; i < nproviders; i++) {
		const char *w = providers[i]->why
					? providers[i]->why(d, buf, len)
					: NULL;

		if (w)
			return w;
	}
	return NULL;
}

const struct d_probe *kprov_probe_of(struct consumer *c, unsigned id)
{
	for (size_t k = 0; c->kp && k < c->kp->n; k++)
		if (c->kp->probes[k]->dp.id == id)
			return &c->kp->probes[k]->dp;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Arming */

const char *kp_tracefs(const struct consumer *c)
{
	return c->up.tfs[0] ? c->up.tfs : "/sys/kernel/tracing";
}

int kp_tp_id(const struct consumer *c, const char *grp, const char *ev)
{
	char path[PATH_MAX], *s;
	int id;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", kp_tracefs(c), grp,
		 ev);
	s = read_file(path, NULL);
	if (!s)
		return -1;
	id = atoi(s);
	free(s);
	return id > 0 ? id : -1;
}

/* A format line reads "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;...". */
int kp_tp_field(const struct consumer *c, const char *grp, const char *ev,
		const char *field)
{
	char path[PATH_MAX], *fmt, *line, *save = NULL;
	int off = -1;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", kp_tracefs(c),
		 grp, ev);
	fmt = read_file(path, NULL);
	if (!fmt)
		return -1;
	for (line = strtok_r(fmt, "\n", &save); line && off < 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f = strstr(line, "field:"), *semi, *nm, *o;
		size_t n;

		if (!f || !(semi = strchr(f, ';')) ||
		    !(o = strstr(semi, "offset:")))
			continue;
		nm = semi;
		while (nm > f && nm[-1] != ' ' && nm[-1] != '*')
			nm--;
		n = strcspn(nm, "[;");
		if (n == strlen(field) && !strncmp(nm, field, n))
			off = atoi(o + 7);
	}
	free(fmt);
	return off;
}

int kp_perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

void kp_attach_add(struct kprov *kp, int fd, struct bpf_link *link)
{
	struct kp_attach a = {fd, link};

	PUSH(kp->att, kp->natt, a);
}

#ifdef HAVE_BPF
int kp_attach_perf(struct kprov *kp, const struct kprobe *p,
		   struct bpf_object *obj, const char *prog, int fd,
		   uint64_t cookie)
{
	struct bpf_program *pg;
	struct bpf_link *l;

	if (p->cg_fd >= 0) { /* generated (cgen_kprov.c) */
		LIBBPF_OPTS(bpf_link_create_opts, lo,
			    .perf_event.bpf_cookie = UBPF_EV_KPROV | p->idx);
		int lfd = bpf_link_create(p->cg_fd, fd, BPF_PERF_EVENT, &lo);

		/* on, as libbpf's attach turns it on */
		if (lfd < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			if (lfd >= 0)
				close(lfd);
			return -1;
		}
		kp_attach_add(kp, fd, NULL);
		kp_attach_add(kp, lfd, NULL);
		return 0;
	}
	pg = obj ? bpf_object__find_program_by_name(obj, prog) : NULL;
	if (!pg) {
		errno = ENOENT;
		return -1;
	}
	{
		LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie);

		l = bpf_program__attach_perf_event_opts(pg, fd, &po);
	}
	if (!l)
		return -1;
	kp_attach_add(kp, fd, l);
	return 0;
}

/* kind's probes go on their own tracepoints' perf events, not raw ones */
static bool kp_prog_tp(struct consumer *c, enum kp_kind kind)
{
	if (kind == KP_SYS_ENTRY || kind == KP_SYS_RETURN)
		return kp_sys_per_call(c, kind);
	return !kp_proc_raw(c, kind);
}

/* The kernel providers' programs (their tables' progs) this run needs */
bool kprov_autoload(struct consumer *c, struct bpf_object *obj)
{
	bool any = false;

	for (size_t k = 0; k < nproviders; k++)
		for (size_t i = 0; i < providers[k]->nprogs; i++) {
			const struct prov_prog *pg = &providers[k]->progs[i];
			struct bpf_program *p =
				obj ? bpf_object__find_program_by_name(obj,
								       pg->name)
				    : NULL;
			bool on = c && kp_has(c->kp, (enum kp_kind)pg->kind);

			if (on && pg->per_call >= 0)
				on = kp_prog_tp(c, (enum kp_kind)pg->kind) ==
				     (pg->per_call == 1);
			if (p)
				bpf_program__set_autoload(p, on);
			any |= on;
		}
	return any;
}
#endif

/* The first probe that a program fires (all but tick-N). */
static const struct kprobe *bpf_probe(const struct kprov *kp)
{
	for (size_t i = 0; i < kp->n; i++)
		if (kp_has_prog(kp->probes[i]))
			return kp->probes[i];
	return NULL;
}

/* p needs its provider's programs: can this run load them?  0, or -1 */
static int bpf_usable(struct consumer *c, const struct kprobe *p)
{
	const char *why;

#ifdef HAVE_BPF
	unsigned needs = p->n.prov->needs;

	if ((c->be->caps & needs) == needs)
		return bpf_be_object(c) ? 0 : -1; /* else it said why */
	/* the in-process backend declares none of the providers' needs
	 * (doc/DESIGN.md §14, "Both paths in one run"): not the kernel's
	 * refusal, which is what was said before */
	if (c->be == &consumer_inproc_ops)
		why = "-x activation=user does not run it (-x "
		      "activation=kernel does)";
	else if (c->be_want)
		why = "the run uses another backend (DTRACE_BACKEND)";
	else
		why = "the kernel did not load the BPF program (root, or "
		      "CAP_BPF and CAP_PERFMON, are needed)";
#else
	why = "this dtrace was built without libbpf";
#endif
	say(c,
	    "cannot enable %s:%s:%s:%s: the %s provider needs the BPF "
	    "backend, and %s",
	    p->n.d.prov, p->n.d.mod, p->n.d.func, p->n.d.name, p->n.d.prov,
	    why);
	return -1;
}

int kprov_arm(struct consumer *c)
{
	struct kprov *kp = c->kp;
	const struct kprobe *bp;

	if (!kp || !kp->n)
		return 0;
	if ((bp = bpf_probe(kp))) {
#ifdef HAVE_BPF
		int g = kp_cg_arm(c, kp); /* generated programs */

		if (g < 0)
			return -1;
		if (g > 0)
			goto arm;
#endif
		if (bpf_usable(c, bp) < 0)
			return -1;
#ifdef HAVE_BPF
		if (kp_kconf_fill(c, kp) < 0)
			return -1;
		/* plans first: a hit before its plan runs in user space */
		for (size_t i = 0; i < kp->n; i++) {
			struct kprobe *p = kp->probes[i];

			if (kp_has_prog(p))
				bpf_kagg_kprobe(c, bpf_kagg_of(c),
						UBPF_EV_KPROV | p->idx, &p->dp,
						p->clauses, p->epids,
						p->nclauses, &p->uclauses,
						&p->uepids, &p->nuclauses);
		}
#endif
	}
#ifdef HAVE_BPF
arm:
#endif
	for (size_t k = 0; k < nproviders; k++) {
		bool any = false;

		for (size_t i = 0; i < kp->n && !any; i++)
			any = kp->probes[i]->n.prov == providers[k];
		if (any && providers[k]->arm(c, kp) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ticks: timers in the loop */

/*
 * The horizon's lease (kplan_exit.c's "The lease"), on unless
 * DTRACE_HZ_LEASE=0; DTRACE_HZ_LEASE=late gives it back only when the
 * horizon is due (a margin of 0: every such firing late, for tests).
 */
static bool hz_lease_on(void)
{
	const char *e = getenv("DTRACE_HZ_LEASE");

	return !e || strcmp(e, "0");
}

/* How long before the horizon the lease is given back: half the
 * shortest period of a tick-N that may exit() or fold, at most 50 ms. */
static uint64_t hz_margin_of(uint64_t per1)
{
	const char *e = getenv("DTRACE_HZ_LEASE");

	if (e && !strcmp(e, "late"))
		return 0;
	return per1 / 2 < 50000000u ? per1 / 2 : 50000000u;
}

/* The kernel's horizon h, no lease (kplan_exit.c's "Why exit()") */
static void hz_set(struct consumer *c, uint64_t h)
{
	c->kp->hz_lease = 0;
	c->kp->hz = h;
#ifdef HAVE_BPF
	bpf_horizon(c, h);
#endif
}

/*
 * Give the lease back when the horizon is hz_margin away or nearer:
 * the kernel gets the horizon h, and every hit that read UINT64_MAX
 * read it before that write.  Read now after it: before h, each such
 * hit was before h, as the horizon's argument wants.  At or past h
 * (dtrace ran late), the hits between h and now may have counted in
 * the kernel: then the firings due at h of the ticks that may exit()
 * or fold are stamped now instead, as a timer that expired late, so
 * each hit stays on the side of the firing its stamp (or its read of
 * the lease) puts it, and a barrier ends every program that began
 * before now, their records written before the ring is read.
 */
static void hz_revoke(struct consumer *c)
{
	struct kprov *kp = c->kp;
	uint64_t h = kp ? kp->hz_lease : 0, ts;

	if (!h || now_ns(CLOCK_MONOTONIC) + kp->hz_margin < h)
		return;
	hz_set(c, h);
	ts = now_ns(CLOCK_MONOTONIC);
	if (ts < h)
		return;
	for (size_t i = 0; i < kp->nticks; i++) {
		struct kp_tick *t = &kp->ticks[i];

		if (t->exits && t->t0 &&
		    t->t0 + (t->k + 1) * t->p->n.period == h) {
			t->late_k = t->k + 1;
			t->late_t = ts;
		}
	}
	kp->hz_late++;
#ifdef HAVE_BPF
	bpf_barrier(c);
#endif
}

/* Which clauses are tick-N's (kprov_tick_clause()), for kplan's
 * d_kplan_exits() and d_kplan_folds(): a flag a clause, to free */
static bool *tick_clauses(const struct consumer *c)
{
	bool *tk = xcalloc(c->nclauses ? c->nclauses : 1, sizeof(*tk));

	for (unsigned i = 0; i < c->nclauses; i++)
		tk[i] = kprov_tick_clause(c, i);
	return tk;
}

/*
 * The interval of the tick-N probes with a clause that may exit() or
 * fold: the shortest of their periods, where every other is a multiple
 * of it (their firings all fall on its boundaries), else 0, as where
 * there are none (bpf_agg_cgen.c's question: kplan_exit.c's
 * "Intervals").
 */
uint64_t kprov_fold_period(const struct consumer *c)
{
	const struct kprov *kp = c->kp;
	uint64_t per = 0, *ps = NULL;
	bool *tk = tick_clauses(c);
	size_t n = 0;

	/* (asked before the ticks' timers are made: kprov_arm()) */
	for (size_t i = 0; kp && i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		bool ex = false;

		if (p->n.kind != KP_TICK || !p->n.period)
			continue;
		for (unsigned j = 0; j < p->nclauses; j++)
			ex |= d_kplan_exits(c->prog, tk, p->clauses[j]);
		if (!ex)
			continue;
		PUSH(ps, n, p->n.period);
		if (!per || p->n.period < per)
			per = p->n.period;
	}
	for (size_t i = 0; i < n; i++)
		if (ps[i] % per)
			per = 0;
	free(ps);
	free(tk);
	return per;
}

/*
 * Each timer expires at t0 + k * period exactly (an absolute time on
 * CLOCK_MONOTONIC, the clock bpf_ktime_get_ns() reads), the time its
 * k-th firing's record is stamped with: a hit stamped before it was
 * before the firing, in the kernel's terms and in the records' order.
 */
void kprov_start(struct consumer *c)
{
	struct kprov *kp = c->kp;
	uint64_t per1 = UINT64_MAX;
	bool *tk = tick_clauses(c);

	for (size_t i = 0; kp && i < kp->nticks; i++) {
		struct kp_tick *t = &kp->ticks[i];

		t->exits = t->folds = false;
		for (unsigned j = 0; j < t->p->nclauses; j++) {
			t->exits |=
				d_kplan_exits(c->prog, tk, t->p->clauses[j]);
			t->folds |=
				d_kplan_folds(c->prog, tk, t->p->clauses[j]);
		}
		if (t->exits && t->p->n.period < per1)
			per1 = t->p->n.period;
	}
	free(tk);
#ifdef HAVE_BPF
	/* intervals instead of the horizon (kplan_exit.c's "Intervals"):
	 * no horizon, no lease; the folding ticks fire at the base the
	 * programs divide by (bpf_ival()) */
	if (kp && (kp->ival_per = bpf_ival(c, &kp->ival_base)))
		per1 = UINT64_MAX;
#endif
	/*
	 * Until now the horizon was UINT64_MAX: a hit that read it was
	 * stamped before this write, so before any timer's start below and
	 * its first firing.  What is written is at most the first firing
	 * that may exit (its t0 comes after), and kprov_horizon() then
	 * moves it up to that firing.  With the lease nothing is written:
	 * UINT64_MAX is the lease, which kprov_horizon() times to end
	 * hz_margin before the first such firing (a hit that read it read
	 * it before hz_revoke() wrote that firing's due time).
	 */
	if (kp && !kp->hz_off && per1 != UINT64_MAX && hz_lease_on()) {
		/* the lease (kplan_exit.c's "The lease"): the kernel keeps
		 * UINT64_MAX until hz_margin before each horizon */
		int fd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);

		kp->hz_margin = hz_margin_of(per1);
		kp->hzfd1 = fd >= 0 ? fd + 1 : 0;
	}
	if (kp && !kp->hz_off && per1 != UINT64_MAX && !kp->hzfd1) {
		kp->hz = now_ns(CLOCK_MONOTONIC) + per1;
#ifdef HAVE_BPF
		bpf_horizon(c, kp->hz);
#endif
	}
	for (size_t i = 0; kp && i < kp->nticks; i++) {
		struct kp_tick *t = &kp->ticks[i];
		uint64_t per = t->p->n.period, due;
		struct itimerspec its = {
			.it_interval = {(time_t)(per / 1000000000u),
					(long)(per % 1000000000u)},
		};

		t->t0 = now_ns(CLOCK_MONOTONIC);
		t->k = 0;
		if (kp->ival_per && t->exits && per % kp->ival_per == 0) {
			/* firing k at base + k * per, the first after now,
			 * on an interval's boundary: a hit's interval is
			 * (t - base) / ival_per (cgen.c) */
			t->k = (t->t0 - kp->ival_base) / per;
			t->t0 = kp->ival_base;
		}
		due = t->t0 + (t->k + 1) * per;
		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
		if (timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
			say(c, "cannot start %s: %s", t->p->n.d.name,
			    strerror(errno));
	}
	kprov_horizon(c);
}

/* A tick-N description: profile:::tick-N or tick-N, no pattern. */
static bool tick_desc(const struct dt_desc *d)
{
	return (!d->prov[0] || !strcmp(d->prov, "profile")) && !d->mod[0] &&
	       !d->func[0] && !strncmp(d->name, "tick-", 5) &&
	       !strpbrk(d->name, "*?[\\");
}

/* dtrace:::END (or END), no pattern */
static bool end_desc(const struct dt_desc *d)
{
	return (!d->prov[0] || !strcmp(d->prov, "dtrace")) && !d->mod[0] &&
	       !d->func[0] && !strcmp(d->name, "END");
}

/*
 * A clause of tick-N descriptions, and maybe dtrace:::END beside them
 * (the interval report that prints once more at the end,
 * `profile:::tick-1sec, dtrace:::END { printa(@); trunc(@); }`): at a
 * firing it is a tick-N clause as any, folded at the horizon; at END
 * it runs after the last merge (kplan_exit.c's "Why exit()"), as an END
 * clause does, so printa(), clear() and trunc() there see every hit.
 */
bool kprov_tick_clause(const struct consumer *c, unsigned ci)
{
	bool tick = false;

	if (ci >= c->nclauses || !c->ndescs[ci])
		return false;
	for (unsigned j = 0; j < c->ndescs[ci]; j++) {
		if (tick_desc(&c->descs[ci][j]))
			tick = true;
		else if (!end_desc(&c->descs[ci][j]))
			return false;
	}
	return tick;
}

/*
 * Every kernel probe clause ci matched fires a program of its own (none
 * is tick-N, whose firings dtrace makes from its timer): bpf_agg_cgen.c's
 * traced_clause(), where an exit() may be decided at the hit.
 */
bool kprov_prog_clause(const struct consumer *c, unsigned ci)
{
	const struct kprov *kp = c->kp;

	for (size_t i = 0; kp && i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];

		for (unsigned j = 0; j < p->nclauses; j++)
			if (p->clauses[j] == ci && !kp_has_prog(p))
				return false;
	}
	return true;
}

uint64_t kprov_horizon0(const struct consumer *c)
{
	return c->kp && c->kp->hz_off ? 0 : UINT64_MAX;
}

void kprov_horizon_off(struct consumer *c)
{
	if (!c->kp || c->kp->hz_off)
		return;
	c->kp->hz_off = true;
	c->kp->hz = 0;
	c->kp->hz_lease = 0; /* the kernel's 0 for good ends it */
#ifdef HAVE_BPF
	bpf_horizon(c, 0);
	/* every hit the kernel counts has ended: kprov_site_fold() */
	bpf_barrier(c);
	/* ... and where the kernel kept self-> beside intervals, every
	 * hit now user space's, its copy goes there (kplan_exit.c's
	 * "Intervals"; before kprov_start() too, with nothing to move) */
	{
		uint64_t b;

		if (bpf_ival(c, &b))
			bpf_tls_move_all(c);
	}
#endif
}

/*
 * A site's hit that runs a tick-N clause that may read or reset
 * aggregations (a site named like a tick: kprov_horizon_off()).  The
 * kernel has counted nothing since the horizon went to 0, a barrier
 * before the site was armed, so what it holds was stamped before this
 * hit, whose earlier records have run: folded in first, as at a
 * firing (kplan_exit.c's "printa() at tick-N").
 */
void kprov_site_fold(struct consumer *c, const unsigned *cl, unsigned n)
{
	bool *tk;

	if (!c->kp || !c->kp->hz_off)
		return;
	tk = tick_clauses(c);
	for (unsigned i = 0; i < n; i++) {
		if (tk[cl[i]] && d_kplan_folds(c->prog, tk, cl[i])) {
#ifdef HAVE_BPF
			bpf_fold(c, UINT64_MAX); /* every interval */
#endif
			break;
		}
	}
	free(tk);
}

void kprov_hzfree(struct consumer *c)
{
	if (c->kp)
		c->kp->hz_free_up++;
}

/*
 * User space ran exit() (records.c), not one the kernel decided: every
 * generated program stops at its first instruction (bpf_agg_read.c's
 * bpf_kagg_exited(), kplan_exit.c's "The flood").
 */
void kprov_exited(struct consumer *c)
{
#ifdef HAVE_BPF
	/* a tick's: the kernel's intervals from its firing on are not
	 * counted (kplan_exit.c's "Intervals") */
	if (c->tick_at)
		bpf_ival_exit(c, c->tick_at);
	bpf_exited(c);
#else
	(void)c;
#endif
}

/*
 * The next firing of tick t, or of those that may exit() (exits): when
 * due (exits, the horizon's), or stamped (a late lease's, hz_revoke()).
 */
static uint64_t next_due(const struct kprov *kp, bool exits)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; kp && !kp->stopped && i < kp->nticks; i++) {
		const struct kp_tick *t = &kp->ticks[i];
		uint64_t d = t->t0 + (t->k + 1) * t->p->n.period;

		if (!exits && t->late_k == t->k + 1)
			d = t->late_t;

		if (!t->t0 && exits)
			return UINT64_MAX; /* not started: no move yet */
		if (t->t0 && (!exits || t->exits) && d < due)
			due = d;
	}
	return due;
}

uint64_t kprov_next_due(const struct consumer *c)
{
	return c->begun ? next_due(c->kp, false) : UINT64_MAX;
}

void kprov_horizon(struct consumer *c)
{
	struct kprov *kp = c->kp;
	uint64_t h;

	/* after exit() it stays below the firing that called it; none
	 * where the kernel keys by interval */
	if (!kp || kp->hz_off || kp->stopped || c->exit_called || kp->ival_per)
		return;
	h = next_due(kp, true);
	if (h == kp->hz || h == kp->hz_lease || h == UINT64_MAX)
		return; /* no firing that may exit is to come: none */
	if (kp->hzfd1) { /* the lease, till hz_margin before h */
		uint64_t at = h - kp->hz_margin;
		struct itimerspec its = {
			.it_value = {(time_t)(at / 1000000000u),
				     (long)(at % 1000000000u)},
		};

		if (now_ns(CLOCK_MONOTONIC) < at &&
		    timerfd_settime(kp->hzfd1 - 1, TFD_TIMER_ABSTIME, &its,
				    NULL) == 0) {
			kp->hz_lease = h;
			kp->hz = UINT64_MAX;
			kp->hz_leases++;
#ifdef HAVE_BPF
			bpf_horizon(c, UINT64_MAX);
#endif
			return;
		}
	}
	hz_set(c, h);
}

size_t kprov_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	struct kprov *kp = c->kp;
	size_t n = 0;

	if (!kp || kp->stopped)
		return 0;
	for (size_t i = 0; i < kp->nticks; i++) {
		if (pfd && n < max)
			pfd[n] = (struct pollfd){.fd = kp->ticks[i].fd,
						 .events = POLLIN};
		if (!pfd || n < max)
			n++;
	}
	if (kp->hzfd1) { /* the lease's end: a read gives it back */
		if (pfd && n < max)
			pfd[n] = (struct pollfd){.fd = kp->hzfd1 - 1,
						 .events = POLLIN};
		if (!pfd || n < max)
			n++;
	}
	return n;
}

/*
 * Each tick due since the last read, a record with the time it was due;
 * true when one of them folds the kernel's aggregations (kplan_exit.c's
 * "printa() at tick-N"): the barrier comes next, before the ring is read.
 */
bool kprov_drain(struct consumer *c)
{
	struct kprov *kp = c->kp;
	bool fold = false;
	uint64_t lt = 0, bump = 0;

	if (!kp || kp->stopped || !c->begun)
		return false;
	if (kp->hzfd1) { /* the lease, given back before the timers' read */
		uint64_t x;

		(void)!read(kp->hzfd1 - 1, &x, sizeof(x));
		hz_revoke(c);
	}
	/*
	 * A firing stamped late (hz_revoke(): the give-back's time G, the
	 * kernel having counted under the lease until then) comes before
	 * every other firing of a tick that may exit or fold read with
	 * it: one due between its due time and G (dtrace later than a
	 * period, the same tick's next firing, or another such tick's)
	 * ran at G too, and stamped with its due time it would sort
	 * before the late one and fold the hits counted until G, whose
	 * records, stamped after it, would print after its interval
	 * (run-kagg-tick.sh's "lease late" under the sanitizers).  So
	 * such a firing is stamped G + 1, G + 2, ... in the order read.
	 */
	for (size_t i = 0; i < kp->nticks; i++)
		if (kp->ticks[i].late_k == kp->ticks[i].k + 1 &&
		    kp->ticks[i].late_t > lt)
			lt = kp->ticks[i].late_t;
	for (size_t i = 0; i < kp->nticks; i++) {
		struct kp_tick *t = &kp->ticks[i];
		uint64_t due;

		if (read(t->fd, &due, sizeof(due)) != (ssize_t)sizeof(due))
			continue;
		fold |= due && t->folds;
		while (due--) {
			struct ubpf_rec r = {0};
			struct hit h = {0};

			t->k++;
			r.time = t->late_k == t->k
					 ? t->late_t /* hz_revoke() */
					 : t->t0 + t->k * t->p->n.period;
			if (lt && t->exits && t->late_k != t->k && r.time <= lt)
				r.time = lt + ++bump;
			r.ev = UBPF_EV_KPROV | t->p->idx;
			r.len = sizeof(r);
			h.time = r.time;
			h.kprov = true;
			h.tick = true;
			h.rawlen = sizeof(r);
			h.rawoff = arena_put(c, &r, sizeof(r));
			hit_push(c, &h);
		}
	}
	return fold;
}

/*
 * The providers' events and links closed from threads (close_later()),
 * this returning at once: the close of a tracepoint's last perf event
 * waits for RCU Tasks Trace and RCU under the kernel's event_mutex, a
 * link's detach for RCU Tasks Trace, tens of ms each, and they were
 * closed one after the other, after the backend's own closes had taken
 * theirs.  Started before the backend's stop (teardown()), the links'
 * waits overlap those (the events' stay one after the other, under
 * event_mutex, in the kernel's deferred fput); a libbpf
 * link is disconnected first, so that the event's descriptor, which its
 * perf link owns, is closed here once and not twice.  Records may still
 * be made until close_wait() has returned: kprov_stop() waits for it.
 */
void kprov_stop_begin(struct consumer *c)
{
	struct kprov *kp = c->kp;
	int *fds;
	size_t n = 0;

	if (!kp || kp->stopped || !kp->natt)
		return;
	fds = xcalloc(2 * kp->natt, sizeof(*fds));
	for (size_t i = 0; i < kp->natt; i++) {
#ifdef HAVE_BPF
		struct bpf_link *l = kp->att[i].link;

		if (l) {
			int lfd = bpf_link__fd(l);

			bpf_link__disconnect(l);
			bpf_link__destroy(l);
			if (lfd >= 0 && lfd != kp->att[i].fd)
				fds[n++] = lfd;
		}
#endif
		if (kp->att[i].fd >= 0)
			fds[n++] = kp->att[i].fd;
	}
	kp->natt = 0;
	close_later(fds, n);
	free(fds);
}

void kprov_stop(struct consumer *c)
{
	struct kprov *kp = c->kp;

	if (!kp || kp->stopped)
		return;
	kprov_stop_begin(c);
	close_wait(); /* no record is made after this */
	kp->stopped = true;
	if (c->o->verbose && kp->hz_leases)
		say(c, "the horizon leased %lu time%s, given back late %lu "
		    "time%s", kp->hz_leases, kp->hz_leases == 1 ? "" : "s",
		    kp->hz_late, kp->hz_late == 1 ? "" : "s");
	if (c->o->verbose && kp->hz_leases &&
	    (kp->hz_free_up || kp->hz_free_kp))
		say(c, "the lease spared the clock of %u site program%s, "
		    "%u kernel probe program%s", kp->hz_free_up,
		    kp->hz_free_up == 1 ? "" : "s", kp->hz_free_kp,
		    kp->hz_free_kp == 1 ? "" : "s");
	for (size_t i = 0; i < kp->nticks; i++)
		if (kp->ticks[i].fd >= 0)
			close(kp->ticks[i].fd);
	kp->nticks = 0;
	if (kp->hzfd1)
		close(kp->hzfd1 - 1);
	kp->hzfd1 = 0;
	kp->hz_lease = 0;
}

/* ------------------------------------------------------------------ */
/* Records */

void kprov_hit(struct consumer *c, const struct hit *h)
{
	struct kprov *kp = c->kp;
	struct ubpf_rec r;
	struct ubpf_kctx x;
	struct d_fire f = {0};
	char comm[32] = "";
	struct kprobe *p;
	struct tproc *pr;
	size_t off;

	c->kout = NULL; /* none but this record's (cg_out_rec()) */
	if (!kp || h->rawlen < sizeof(r))
		return;
	memcpy(&r, h->raw, sizeof(r));
	p = kprov_rec_probe(c, r.ev);
	if (!p || r.len > h->rawlen)
		return;
	if (!kp_has_prog(p)) { /* tick-N */
		fire_self(c, &f, comm, sizeof(comm)); /* in dtrace, as BEGIN */
		f.timestamp = r.time;
#ifdef HAVE_BPF
		/* every hit before it has run: what the kernel counted
		 * before it joins them (kplan_exit.c's "printa() at tick-N") */
		for (size_t i = 0; i < kp->nticks; i++)
			if (kp->ticks[i].p == p && kp->ticks[i].folds)
				bpf_fold(c, r.time);
#endif
		goto run;
	}
	off = sizeof(r) + sizeof(x) + 8u * r.nargs;
	if (r.nargs > D_MAXARGS || off > r.len)
		return;
	if ((r.flags & UBPF_RF_VTIME) &&
	    !vtime_rec(c, h->raw, r.len, &off, (pid_t)r.tid, &f.vtimestamp))
		return;
#ifdef HAVE_BPF
	/* printf() and trace() values computed at the hit, a kernel
	 * clause's or a speculating one's (cgen.c puts the out area
	 * there: kplan_out.c, kplan_spec.c's "Speculations"), kept in c->kout
	 * where the plan ran */
	c->kagg_rec = (r.flags & UBPF_RF_KAGG) != 0;
	if ((r.flags & UBPF_RF_KOUT) &&
	    !cg_out_rec(c, h->raw, r.len, &off, true))
		return;
	/* the plan kept self-> and did not run: the thread's kernel copy
	 * to user space first, where its process's are kept (bpf_agg_cgen.c's
	 * "Two copies") */
	if (!c->kagg_rec && p->cg_tls)
		bpf_kagg_tls_rec(bpf_kagg_of(c), (pid_t)r.pid, (pid_t)r.tid);
#endif
	memcpy(&x, h->raw + sizeof(r), sizeof(x));
	/* progenyof()'s chain, where the run took it (kprov.bpf.h's
	 * kprov_anc(), cgen.c's kp_anc()): its state in the kctx's pad */
	if (!rec_anc(h->raw, r.len, &off, x.pad, &f))
		return;
	if ((r.flags & UBPF_RF_ECRED) && !rec_ecred(h->raw, r.len, &off, &f))
		return;
	if ((r.flags & UBPF_RF_SESS) && !rec_sess(h->raw, r.len, &off, &f))
		return;
	if (r.flags & UBPF_RF_PSARGS) { /* as a USDT record's (bpf.c) */
		const uint8_t *pa;
		uint16_t n;

		if (!(pa = rec_field(h->raw, r.len, &off, &n)))
			return;
		f.psargs = psargs_text(pa, n, c->psargs_buf);
	}
	f.cpu = (int)r.cpu;
	f.pid = (pid_t)r.pid;
	f.tid = (pid_t)r.tid;
	f.cred = true;
	f.uid = x.uid;
	f.gid = x.gid;
	f.ppid = (pid_t)x.ppid;
	if (!f.ppid && (pr = proc_find(c, f.pid)))
		f.ppid = pr->ppid;
	/* 0 is the parent of the idle task, init and kthreadd only: for
	 * another a parent the kernel could not read (unknown: ppid and
	 * progenyof() fault, not a chain that ends there) */
	if (!f.ppid && f.pid > 2)
		f.ppid = -1;
	if (p->needs & D_NEED_EXECNAME)
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(r.comm),
			 r.comm);
	f.execname = comm;
	f.timestamp = r.time;
	for (unsigned i = 0; i < r.nargs; i++)
		memcpy(&f.arg[i], h->raw + sizeof(r) + sizeof(x) + 8 * i, 8);
	if (p->n.prov->fire) /* what the provider adds (syscall: errno) */
		p->n.prov->fire(p, &f);
	for (unsigned i = 0; i < D_MAXARGS; i++) {
		const uint8_t *sp;
		uint16_t n;

		if (!(r.strmask & (1u << i)))
			continue;
		if (!(sp = rec_field(h->raw, r.len, &off, &n)))
			break;
		/* as bpf.c: n counts the NUL, 0 is a fault */
		if (n > 0 && n < UBPF_STRMAX) {
			f.str[i] = (const char *)sp;
			f.strlen[i] = strnlen(f.str[i], n - 1u);
		}
	}
	/* the plan's faults at the hit (cgen.c), before any stack */
	c->kfault = rec_kfault(h->raw, r.len, &off, r.flags);
	if (r.flags & UBPF_RF_USTACK) /* as a USDT record's (bpf.c) */
		rec_ustack(h->raw, r.len, off, &c->ucap);
run:
	/* a tick's firing time, where its exit() cuts the intervals
	 * (kplan_exit.c's "Intervals": kprov_exited()) */
	c->tick_at = kp_has_prog(p) ? 0 : r.time;
	if (r.flags & UBPF_RF_KAGG) /* the kernel ran the others */
		hit_run_kagg(c, &p->dp, p->clauses, p->epids, p->nclauses,
			     p->uclauses, p->uepids, p->nuclauses, &f);
	else
		hit_run(c, &p->dp, p->clauses, p->epids, p->nclauses, &f);
	c->tick_at = 0;
}
