// SPDX-License-Identifier: MIT
/*
 * inproc_plan.c - the clauses -x activation=user aggregates in the
 * process (inproc.c has the mechanism, drti/arena.h the encoding):
 * each armed site's plan, from kplan.c's instructions with the site's
 * registers resolved, put into the arena's plan area and site hash;
 * at the end, every owner thread's slots merged with d_kplan_merge().
 * Also each armed site's copy spec (the argument strings its record
 * copies at the hit: arena.h, version 3), in the spec area and the same
 * site hash.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif
#include "objfile.h"
#include "procfs.h"
#include "stapsdt.h"
#include "inproc.h"

#if defined(__x86_64__)

/* ------------------------------------------------------------------ */
/* Plans: clauses the recorder aggregates in the arena (arena.h) */

#ifdef HAVE_BPF
_Static_assert(USDT_AFLAT >= UBPF_KFLAT, "a plan's flat slots fit");
_Static_assert(USDT_AKEYS == UBPF_KMAXKEYS, "a plan's keys fit");
_Static_assert(USDT_A_ARG > UBPF_K_SC, "USDT_A_ARG is no UBPF_K_*");

/*
 * Probe p's plan into pl: every clause kplan.c takes, in order; the
 * clauses left go to p->uclauses, which a record flagged USDT_PC_AGG
 * runs (records.c), once per probe.  false: no clause is planned.
 */
bool ip_probe_plan(struct inproc *ip, struct tprobe *p, struct ubpf_kplan *pl)
{
	bool any = false, fresh = !p->kplanned;

	memset(pl, 0, sizeof(*pl));
	if (fresh) {
		free(p->uclauses);
		free(p->uepids);
		p->uclauses = p->uepids = NULL;
		p->nuclauses = 0;
	}
	for (unsigned i = 0; i < p->nclauses; i++) {
		if (d_kplan_emit(ip->kp, p->clauses[i], &p->dp, pl)) {
			any = true; /* -v counts it once a site has the plan */
			continue;
		}
		pl->record = 1;
		if (fresh) {
			p->uclauses = xpush_room(p->uclauses, p->nuclauses,
						 sizeof(*p->uclauses));
			p->uepids = xpush_room(p->uepids, p->nuclauses,
					       sizeof(*p->uepids));
			p->uclauses[p->nuclauses] = p->clauses[i];
			p->uepids[p->nuclauses++] = p->epids[i];
		}
	}
	p->kplanned = true;
	return any;
}

/*
 * A site of p has p's plan (ip_plan_put()): its clauses, all but
 * p->uclauses, are aggregated in the process (-v).  Not before: a plan
 * the arena's encoding cannot take (ip_plan_site(): more than
 * USDT_AOPS instructions) or has no room for leaves the site's hits
 * records, every clause run from them.
 */
void ip_plan_ran(struct inproc *ip, const struct tprobe *p)
{
	for (unsigned i = 0; i < p->nclauses; i++) {
		bool user = false;

		for (unsigned j = 0; j < p->nuclauses && !user; j++)
			user = p->uclauses[j] == p->clauses[i];
		if (!user)
			ip->ran[p->clauses[i]] = true;
	}
}

/*
 * pl at site s, in the arena's encoding (arena.h): an argument becomes
 * the register the site's note names, converted as it says (0 where
 * the note has no such argument, as a record's decode gives).  false:
 * it does not fit, and the site's hits stay records.
 */
bool ip_plan_site(const struct ubpf_kplan *pl, const struct ip_site *s,
		  struct usdt_aplan *a)
{
	if (pl->nops > USDT_AOPS)
		return false;
	memset(a, 0, sizeof(*a) + USDT_AOPS * sizeof(a->ops[0]));
	a->nops = pl->nops;
	a->record = pl->record;
	for (unsigned i = 0; i < pl->nops; i++) {
		const struct ubpf_kop *o = &pl->ops[i];
		struct usdt_aop *d = &a->ops[i];

		if (o->op > UBPF_K_AGG || (o->flags & UBPF_KF_SKEY))
			return false; /* generated programs' only */
		d->op = o->op;
		d->sz = o->sz;
		d->sg = o->sg;
		d->n = o->n;
		d->imm = o->imm;
		d->imm_b = (o->flags & UBPF_KF_IMM) != 0;
		d->agg = o->agg;
		d->jump = o->jump;
		d->slot = o->slot;
		d->step = o->step;
		d->levels = o->levels;
		if (o->op == UBPF_K_ARG && o->n < s->nargs) {
			d->op = USDT_A_ARG;
			d->n = (uint8_t)s->reg[o->n];
			d->asz = s->size[o->n];
			d->asg = s->sgn[o->n];
		} else if (o->op == UBPF_K_ARG) {
			d->op = UBPF_K_CONST;
			d->imm = 0;
		}
		if (o->op == UBPF_K_PRED && o->jump <= i)
			return false;
		if (o->op == UBPF_K_AGG && (o->flags & UBPF_KF_FLAT))
			d->flags = USDT_AFL_FLAT;
		else if (o->op == UBPF_K_AGG && a->nkeyed++ == UINT8_MAX)
			return false;
	}
	return true;
}

/*
 * Site addr's plan (NULL: its hits are records) into ipp's arena: the
 * plan area (a plan put there already is shared), then the site hash,
 * whose entry for addr, left by a library once mapped there, is
 * overwritten.  The process is held.  true when the site has plan a.
 */
bool ip_plan_put(const struct inproc *ip, struct ip_proc *ipp, uint64_t addr,
		 const struct usdt_aplan *a)
{
	/* where ip_arena_make() put them: never the header's word, which
	 * the process can write */
	size_t site_off = USDT_ARENA_HDR + (size_t)IP_NSEG * ip->seg_size;
	struct usdt_asite *tab = (struct usdt_asite *)(ipp->map + site_off);
	uint8_t *area =
		ipp->map + site_off + USDT_ASITES * sizeof(struct usdt_asite);
	size_t len = a ? sizeof(*a) + a->nops * sizeof(a->ops[0]) : 0;
	uint32_t at = 0, k = usdt_asite_hash(addr);

	for (size_t i = 0; a && i < ipp->nplans && !at; i++)
		if (ipp->plans[i] + len <= ipp->plan_used &&
		    !memcmp(area + ipp->plans[i], a, len))
			at = ipp->plans[i] + 1;
	if (a && !at && ipp->plan_used + len <= USDT_APLANS) {
		memcpy(area + ipp->plan_used, a, len);
		PUSH(ipp->plans, ipp->nplans, (uint32_t)ipp->plan_used);
		at = (uint32_t)ipp->plan_used + 1;
		ipp->plan_used = (ipp->plan_used + len + 7) & ~(size_t)7;
	}
	for (unsigned j = 0; j < USDT_ASITES; j++) {
		struct usdt_asite *e = &tab[(k + j) & (USDT_ASITES - 1)];

		if (e->addr == addr || (!e->addr && at)) {
			e->plan = at;
			__atomic_store_n(&e->addr, addr, __ATOMIC_RELEASE);
			return at != 0;
		}
		if (!e->addr)
			return false; /* no plan, no entry: records */
	}
	return false;
}

/*
 * What the threads of ipp's owner aggregated, into the program's
 * aggregations (kplan.c merges them as it merges the kernel's, a
 * thread for a CPU), once tracing has ended.  Everything is checked:
 * the arena is the process's memory too.
 */
static void merge_proc(struct consumer *c, struct ip_proc *ipp)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)ipp->map;
	uint32_t nseg = __atomic_load_n(&a->next_seg, __ATOMIC_ACQUIRE);
	struct ubpf_kval *v;
	uint8_t **own = NULL;
	size_t nown = 0;

	if (nseg > IP_NSEG)
		nseg = IP_NSEG;
	for (uint32_t i = 0; i < nseg; i++) {
		uint8_t *sp =
			ipp->map + USDT_ARENA_HDR + (size_t)i * ip->seg_size;
		struct usdt_seg *s = (struct usdt_seg *)sp;

		/* given back (its thread exited), its slots are still its */
		if ((__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) ||
		     __atomic_load_n(&s->given, __ATOMIC_ACQUIRE)) &&
		    s->own && (pid_t)s->pid == ipp->pid)
			PUSH(own, nown, sp + ip->agg_off);
	}
	for (size_t i = 0; i < nown; i++) {
		const struct usdt_aent *tab =
			(const struct usdt_aent *)(own[i] +
						   USDT_AFLAT * 2 *
							   sizeof(int64_t));

		for (unsigned j = 0; j < USDT_AHASH; j++) {
			struct ubpf_kkey key = { 0 };
			struct ubpf_kval val;

			if (!__atomic_load_n(&tab[j].used, __ATOMIC_ACQUIRE))
				continue;
			key.agg = tab[j].agg;
			key.bucket = tab[j].bucket;
			memcpy(key.k, tab[j].k, sizeof(key.k));
			val.a = tab[j].a;
			val.b = tab[j].b;
			d_kplan_merge(ip->kp, &key, &val, 1, probe_by_id, c, NULL);
		}
	}
	/* the statements without keys: a slot, every thread's value */
	v = xcalloc(nown ? nown : 1, sizeof(*v));
	for (unsigned st = 0; nown && st < d_kplan_nstmts(ip->kp); st++) {
		unsigned slot, n;

		if (!d_kplan_flat(ip->kp, st, &slot, &n))
			continue;
		for (unsigned i = 0; i < n && slot + i < USDT_AFLAT; i++) {
			struct ubpf_kkey key = { 0 };
			bool hit = false;

			for (size_t t = 0; t < nown; t++) {
				const int64_t *f = (const int64_t *)own[t];

				v[t].a = f[2 * (slot + i)];
				v[t].b = f[2 * (slot + i) + 1];
				hit |= v[t].a || v[t].b;
			}
			if (!hit)
				continue;
			key.agg = (uint16_t)st;
			key.bucket = (uint16_t)i;
			d_kplan_merge(ip->kp, &key, v, (unsigned)nown, probe_by_id,
				      c, NULL);
		}
	}
	free(v);
	free(own);
}

void ip_aggs(struct consumer *c)
{
	struct inproc *ip = c->ip;
	unsigned nran = 0;

	if (!ip || !ip->kp)
		return;
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map)
			merge_proc(c, ip->procs[i]);
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		nran += ip->ran[ci];
	if (c->o->verbose && nran)
		say(c, "%u clause%s aggregated in the process", nran,
		    nran == 1 ? "" : "s");
}
#else
void ip_aggs(struct consumer *c)
{
	(void)c;
}
#endif

/* ------------------------------------------------------------------ */
/* Copies at the hit: each armed site's copy spec (arena.h, version 3) */

_Static_assert(sizeof(struct usdt_cfield) == 8 &&
		       sizeof(struct usdt_fhdr) == 16 &&
		       sizeof(struct usdt_ext) == 64 &&
		       sizeof(struct usdt_cspec) == 8 + 8 * USDT_CFIELDS,
	       "rec.c reads these as words");

/*
 * Site s's copy spec for probe p into sp: a field for each argument
 * whose string a clause of p reads (p->fstrmask) that the site passes
 * in a register, strsize - 1 bytes.  false: nothing to copy.
 */
bool ip_spec_site(const struct consumer *c, const struct tprobe *p,
		  const struct ip_site *s, struct usdt_cspec *sp)
{
	size_t ss = d_opt_strsize(c->prog);

	memset(sp, 0, sizeof(*sp));
	if (ss < 2 || ss - 1 > USDT_CSTRMAX) /* setopt() since: read late */
		return false;
	for (unsigned n = 0; n < s->nargs && n < D_MAXARGS; n++) {
		struct usdt_cfield *f;

		if (!((p->fstrmask >> n) & 1) || s->reg[n] < 0 ||
		    s->reg[n] >= USDT_REC_ARGS || sp->nf >= USDT_CFIELDS)
			continue;
		f = &sp->f[sp->nf++];
		f->arg = (uint8_t)n;
		f->reg = (uint8_t)s->reg[n];
		f->asz = s->size[n];
		f->asg = s->sgn[n];
		f->len = (uint32_t)(ss - 1);
	}
	return sp->nf != 0;
}

/* the site hash, plan and spec areas' bytes after the segments */
size_t ip_site_area(const struct inproc *ip)
{
	size_t n = 0;

	if (ip->kp || ip->copies)
		n += USDT_ASITES * sizeof(struct usdt_asite) + USDT_APLANS;
	if (ip->copies)
		n += USDT_ASPECS;
	return n;
}

/*
 * Site addr's copy spec sp (NULL: none) into ipp's spec area and site
 * hash, beside its plan (ip_plan_put(), called first); identical specs
 * are shared.  A spec that finds no room copies nothing: its strings
 * are read when dtrace runs the record, as the kernel path's failed
 * copies are.
 */
void ip_spec_put(const struct inproc *ip, struct ip_proc *ipp, uint64_t addr,
		 const struct usdt_cspec *sp)
{
	/* where ip_arena_make() put them: never the header's words */
	size_t site_off = USDT_ARENA_HDR + (size_t)IP_NSEG * ip->seg_size;
	struct usdt_asite *tab = (struct usdt_asite *)(ipp->map + site_off);
	uint8_t *area = ipp->map + site_off +
			USDT_ASITES * sizeof(struct usdt_asite) + USDT_APLANS;
	uint32_t at = 0, k = usdt_asite_hash(addr);

	if (!ip->copies)
		return;
	for (size_t o = 0; sp && o < ipp->spec_used && !at; o += sizeof(*sp))
		if (!memcmp(area + o, sp, sizeof(*sp)))
			at = (uint32_t)o + 1;
	if (sp && !at && ipp->spec_used + sizeof(*sp) <= USDT_ASPECS) {
		memcpy(area + ipp->spec_used, sp, sizeof(*sp));
		at = (uint32_t)ipp->spec_used + 1;
		ipp->spec_used += sizeof(*sp);
	}
	for (unsigned j = 0; j < USDT_ASITES; j++) {
		struct usdt_asite *e = &tab[(k + j) & (USDT_ASITES - 1)];

		if (e->addr == addr || (!e->addr && at)) {
			__atomic_store_n(&e->spec, at, __ATOMIC_RELEASE);
			__atomic_store_n(&e->addr, addr, __ATOMIC_RELEASE);
			return;
		}
		if (!e->addr)
			return;
	}
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_plan_unused;
#endif /* __x86_64__ */
