// SPDX-License-Identifier: MIT
/*
 * bpf_agg_read.c - reading back what the kernel aggregated (bpf_agg.c
 * has the plans, bpf_agg_cgen.c the generated programs' maps), the
 * horizon, the activity and the folds.
 *
 * Reading back.  After the last drain and before END (struct
 * consumer_backend_ops' aggs), and at the folds below, every entry of
 * kaggs is looked up with its
 * per-CPU values and merged, and so is every slot of kflat that a hit
 * updated (the statements without keys); the entries the map had no
 * room for, and the min()/max() updates a nested program could not
 * finish (cgen_agg.c's minmax(): kdrops is made for kflat too), were
 * counted per CPU in kdrops and are reported as DTrace
 * reports them ("N aggregation drops on CPU C"), apart from the entries
 * the kernel could not allocate with the map not full (an insert's
 * -ENOMEM: Linux allocates a BPF_F_NO_PREALLOC map's entries as they
 * are made, without waiting), whose report says so (drops_say(); the
 * self-> variables' cgtlsdrops alike, "dynamic variable drops").  With -v,
 * dtrace says how many clauses ran in the kernel.  The keys with a string
 * variable's, execname's or a literal's bytes are in kaggs_v, or, where its
 * room is longer than UBPF_KVSHORT bytes and the string ends within them, in
 * kaggs_w (cgen_agg.c's agg_at()): both are read, each key in one.
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
 * that exits swaps to 1 (cgen.c's act_test()); bpf_agg_cgen.c's
 * bpf_kagg_xplan() makes each event's exit() tests, a uprobe event's
 * (bpf_attach.c) and a kernel probe's (cgen_kprov.c) alike, for the
 * clauses traced_clause() (there too) finds all of whose hits run such
 * a program.  A program with a horizon
 * gets cgact too: when user space has run an exit() (a tick's),
 * bpf_kagg_exited() writes 2 there and waits at the barrier, so no
 * hit after it sends a record (kplan_exit.c's "The flood").  Where no
 * exit() is decided at a hit, the lease is in cgarm1's words too
 * (bpf_agg_cgen.c's hz_marks(): kplan_exit.c's "The lease"): bit 31
 * set while cghzn is not UINT64_MAX or the run has exited, set before
 * those writes.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kplan.h"
#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "bpf_agg_impl.h"
#include "consumer_impl.h"

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
	if (!k->bar_fold)
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
	say(c,
	    "%s failed (%s): aggregations printed at tick-N firings may "
	    "be inexact",
	    what, strerror(errno));
}

void bpf_kagg_barrier(struct consumer *c, struct bpf_kagg *k)
{
	uint32_t zero = 0, v;

	if (!k || !k->bar_fold)
		return;
	v = (uint32_t)k->barin_fd;
	if (bpf_map_update_elem(k->bar_fd, &zero, &v, BPF_ANY) < 0)
		fold_bad(c, k, "waiting for the kernel's programs");
}

/*
 * One string-keyed map's entries (kaggs_s, kaggs_v, kaggs_w: a struct
 * ubpf_kkey, then slen bytes of the string), merged; del: each deleted
 * as it is read, as kagg_fold() does the integer keys' (a fold left
 * kaggs_v's and kaggs_w's in place, and the next interval printed them
 * again: revuk, 2026-12-02).
 */
_Static_assert(offsetof(struct ubpf_kskey, s) ==
			       offsetof(struct ubpf_kvskey, s) &&
		       offsetof(struct ubpf_kvwkey, s) ==
			       offsetof(struct ubpf_kvskey, s) &&
		       UBPF_KSKEY <= UBPF_KVROOMMAX &&
		       UBPF_KVSHORT <= UBPF_KVROOMMAX &&
		       offsetof(struct ubpf_klkey, s) ==
			       offsetof(struct ubpf_kvskey, s) &&
		       UBPF_KVROOMMAX <= UBPF_KSLONG(3),
	       "the string keys' layouts: one buffer reads them all");
/*
 * Intervals (kplan_exit.c's "Intervals"): a key's pad word is the low 32
 * bits of its hits' interval; one is before firing k's, lim, when it
 * is less in serial order (a run's live intervals are a few apart)
 */
static bool ival_before(const struct ubpf_kkey *key, uint32_t lim)
{
	return (int32_t)(key->pad - lim) < 0;
}

/*
 * A fold at an interval (lim): the entries of fd (keys ksz bytes, a
 * struct ubpf_kkey first; str: a string's slen bytes after it) of the
 * intervals before lim, merged and deleted.  Their hits have ended
 * (the barrier) and nothing writes them; the later intervals' entries
 * are being written, so the keys are listed first, walking past those
 * (an entry replaced under the walk restarts it, which lists a key
 * twice at worst: merged once, as the second lookup finds it gone).
 */
static void fold_ival(struct consumer *c, struct bpf_kagg *k, int fd,
		      size_t ksz, size_t slen, uint32_t lim,
		      struct ubpf_kval *v, bool pairx)
{
	struct ubpf_klkey key, next; /* the longest key */
	char str[UBPF_KSLONG(3) + 1], *keys = NULL;
	size_t n = 0;
	void *prev = NULL;

	if (fd < 0)
		return;
	memset(&next, 0, sizeof(next));
	memset(&key, 0, sizeof(key));
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		memcpy(&key, &next, ksz);
		prev = &key;
		if (!ival_before(&key.k, lim))
			continue;
		keys = xpush_room(keys, n, ksz);
		memcpy(keys + n++ * ksz, &key, ksz);
	}
	for (size_t i = 0; i < n; i++) {
		memset(&key, 0, sizeof(key));
		memcpy(&key, keys + i * ksz, ksz);
		memset(str, 0, sizeof(str));
		memcpy(str, key.s, slen);
		if (pairx) /* kaggs_x: the halves back in their rooms */
			d_kplan_vpair_short(k->kp, &key.k, key.s, str);
		if (bpf_map_lookup_elem(fd, &key, v) < 0)
			continue; /* listed twice, merged once */
		d_kplan_merge(k->kp, &key.k, v, (unsigned)k->ncpus, probe_by_id,
			      c, slen ? str : NULL);
		if (bpf_map_delete_elem(fd, &key) < 0)
			fold_bad(c, k, "deleting a folded entry");
	}
	free(keys);
}

static unsigned fold_skeys(struct consumer *c, struct bpf_kagg *k, int fd,
			   size_t slen, bool del, struct ubpf_kval *v,
			   bool pairx)
{
	struct ubpf_klkey sk, snext; /* the longest of them */
	char str[UBPF_KSLONG(3) + 1];
	void *sprev = NULL;
	unsigned n = 0;

	if (fd < 0)
		return 0;
	memset(&snext, 0, sizeof(snext));
	while (bpf_map_get_next_key(fd, sprev, &snext) == 0) {
		sk = snext;
		sprev = del ? NULL : &sk;
		if (!del && k->ival_end1 &&
		    !ival_before(&sk.k, (uint32_t)(k->ival_end1 - 1)))
			continue; /* past a tick's exit() */
		memset(str, 0, sizeof(str));
		memcpy(str, sk.s, slen);
		if (pairx) /* kaggs_x: the halves back in their rooms */
			d_kplan_vpair_short(k->kp, &sk.k, sk.s, str);
		if (bpf_map_lookup_elem(fd, &sk, v) == 0) {
			d_kplan_merge(k->kp, &sk.k, v, (unsigned)k->ncpus,
				      probe_by_id, c, str);
			n++;
		}
		if (del && bpf_map_delete_elem(fd, &sk) < 0) {
			fold_bad(c, k, "deleting a folded entry");
			sprev = &sk;
			del = false;
		}
	}
	return n;
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
	if (del && k->ival_lim1) { /* intervals before lim1 - 1 */
		uint32_t lim = (uint32_t)(k->ival_lim1 - 1);
		size_t kk = sizeof(struct ubpf_kkey);

		fold_ival(c, k, k->aggs_fd, kk - 8 * (UBPF_KMAXKEYS - k->kkeys),
			  0, lim, v, false);
		fold_ival(c, k, k->saggs_fd, kk + UBPF_KSKEY, UBPF_KSKEY, lim,
			  v, false);
		fold_ival(c, k, k->laggs_fd, kk + k->lroom, k->lroom, lim, v,
			  false);
		fold_ival(c, k, k->vaggs_fd, kk + k->vroom, k->vroom, lim, v,
			  false);
		fold_ival(c, k, k->waggs_fd, kk + UBPF_KVSHORT, UBPF_KVSHORT,
			  lim, v, false);
		fold_ival(c, k, k->xaggs_fd, kk + 2 * UBPF_KVSHORT,
			  2 * UBPF_KVSHORT, lim, v, true);
		free(v);
		return;
	}
	/* kaggs's keys may be shorter (bpf_kagg_cgen()): the rest 0 */
	memset(&next, 0, sizeof(next));
	while (k->aggs_fd >= 0 &&
	       bpf_map_get_next_key(k->aggs_fd, prev, &next) == 0) {
		key = next;
		prev = kdel ? NULL : &key;
		if (!del && k->ival_end1 &&
		    !ival_before(&key, (uint32_t)(k->ival_end1 - 1)))
			continue; /* past a tick's exit() */
		if (bpf_map_lookup_elem(k->aggs_fd, &key, v) == 0)
			d_kplan_merge(k->kp, &key, v, (unsigned)k->ncpus,
				      probe_by_id, c, NULL);
		if (kdel && bpf_map_delete_elem(k->aggs_fd, &key) < 0) {
			fold_bad(c, k, "deleting a folded entry");
			prev = &key;
			kdel = false;
		}
	}
	/* the statements with a string key: kaggs_s, its long keys
	 * kaggs_l; a string
	 * variable's, execname, a literal: kaggs_v, its room's bytes;
	 * its short keys: kaggs_w, UBPF_KVSHORT bytes; its short pairs:
	 * kaggs_x, each room's UBPF_KVSHORT */
	k->nskeys[0] = fold_skeys(c, k, k->saggs_fd, UBPF_KSKEY, del, v, false);
	k->nskeys[1] = fold_skeys(c, k, k->laggs_fd, k->lroom, del, v, false);
	k->nskeys[2] = fold_skeys(c, k, k->vaggs_fd, k->vroom, del, v, false);
	k->nskeys[3] =
		fold_skeys(c, k, k->waggs_fd, UBPF_KVSHORT, del, v, false);
	k->nskeys[4] =
		fold_skeys(c, k, k->xaggs_fd, 2 * UBPF_KVSHORT, del, v, true);
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
void bpf_kagg_fold(struct consumer *c, struct bpf_kagg *k, uint64_t at)
{
	if (!k || !k->bar_fold)
		return;
	/* keyed by interval: those before the firing's (kplan_exit.c's
	 * "Intervals"), every one at a site's fold (at UINT64_MAX) */
	k->ival_lim1 = 0;
	if (k->ival_per && at != UINT64_MAX && at >= k->ival_base)
		k->ival_lim1 = (at - k->ival_base) / k->ival_per + 1;
	kagg_fold(c, k, true);
	k->ival_lim1 = 0;
	k->folds++;
}

/*
 * A tick firing at at (on an interval's boundary: kprov_start()) ran
 * exit(): the hits from at on are after it, as user space leaves their
 * records, so the last merge leaves the intervals from at's on
 * (kplan_exit.c's "Intervals").  The first exit alone.
 */
void bpf_kagg_ival_exit(struct bpf_kagg *k, uint64_t at)
{
	if (k && k->ival_per && !k->ival_end1 && at >= k->ival_base)
		k->ival_end1 = (at - k->ival_base) / k->ival_per + 1;
}

uint64_t bpf_kagg_ival(const struct bpf_kagg *k, uint64_t *base)
{
	if (!k || !k->ival_per)
		return 0;
	*base = k->ival_base;
	return k->ival_per;
}

/*
 * The drops counted in fd (kdrops, cgtlsdrops: per CPU, counters
 * UBPF_KDROP and UBPF_KDROP_NOMEM), said as DTrace says them ("N
 * aggregation drops on CPU C"), those the kernel could not allocate
 * with nomem after
 */
static void drops_say(struct consumer *c, int fd, int ncpus, const char *what,
		      const char *nomem)
{
	uint64_t *d = xcalloc((size_t)ncpus, sizeof(*d));

	for (uint32_t why = 0; why < UBPF_KDROPS; why++) {
		if (bpf_map_lookup_elem(fd, &why, d) < 0)
			continue;
		for (int cpu = 0; cpu < ncpus; cpu++)
			if (d[cpu])
				say(c, "%" PRIu64 " %s drop%s on CPU %d%s",
				    d[cpu], what, d[cpu] == 1 ? "" : "s", cpu,
				    why == UBPF_KDROP_NOMEM ? nomem : "");
	}
	free(d);
}

/*
 * -v: the string keys' entries the last read merged, by map (those the
 * run has): which of kaggs_s and kaggs_l, kaggs_v, kaggs_w and kaggs_x
 * holds a statement's keys is decided at each hit by the strings'
 * lengths (cgen_agg.c)
 */
static void skeys_say(struct consumer *c, const struct bpf_kagg *k)
{
	const int fd[5] = { k->saggs_fd, k->laggs_fd, k->vaggs_fd, k->waggs_fd,
			    k->xaggs_fd };
	static const char *const nm[5] = { "kaggs_s", "kaggs_l", "kaggs_v",
					   "kaggs_w", "kaggs_x" };
	char buf[160];
	size_t at = 0;

	if (!c->o->verbose || !k->cgen)
		return;
	for (unsigned i = 0; i < 5; i++)
		if (fd[i] >= 0 && at < sizeof(buf))
			at += (size_t)snprintf(buf + at, sizeof(buf) - at,
					       "%s%s %u", at ? ", " : "", nm[i],
					       k->nskeys[i]);
	if (at)
		say(c, "BPF: string keys read from the kernel: %s", buf);
}

void bpf_kagg_merge(struct consumer *c, struct bpf_kagg *k)
{
	uint64_t mixed = 0;
	unsigned nran = 0, ndirect = 0, nout = 0, nukey = 0, nuname = 0,
		 npkey = 0;

	if (!k)
		return;
	kagg_fold(c, k, false);
	skeys_say(c, k);
	drops_say(c, k->drops_fd, k->ncpus, "aggregation",
		  " (entries the kernel could not allocate)");
	/* self-> variables the map had no room for, as DTrace says it */
	if (k->tlsdrops_fd >= 0)
		drops_say(c, k->tlsdrops_fd, k->ncpus, "dynamic variable",
			  " (variables the kernel could not allocate)");
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		/* printing from values computed there (kplan_out.c) */
		bool pr = false, un = false, pk = false,
		     uk = k->ran[ci] && d_kplan_ukey(k->kp, ci, &pr, &un, &pk);
		bool out = k->ran[ci] && d_kplan_out(k->kp, ci);

		/* (speculations in the kernel: counted apart,
		 * bpf_agg_cgen.c) */
		if (d_kplan_kspec_clause(k->kp, ci))
			continue;
		nran += k->ran[ci] && !out;
		nout += out && ((!uk && !un && !pk) || pr);
		nukey += uk;
		nuname += un;
		npkey += pk;
		ndirect += k->direct[ci];
	}
	/* -v: the kernel clauses that copy an argument string before the
	 * probe's first clause (R2, doc/DESIGN.md §8 "R2 and R3: the
	 * as-built plan": kplan_stmt.c's emit_stmt()), in some probe's
	 * plan: not one user space ran at each of its probes
	 * (kplan_here.c) */
	for (unsigned ci = 0; c->o->verbose && k->cgen && ci < c->nclauses;
	     ci++)
		if (k->ran[ci] && d_kplan_apre(k->kp, ci) >= 0)
			say(c,
			    "clause %u copies copyinstr(arg%d) before the "
			    "probe's first clause: a string the probe cannot "
			    "read sends the hit to user space whole",
			    ci + 1, d_kplan_apre(k->kp, ci));
	if (c->o->verbose && nran)
		say(c, "%u clause%s aggregated in the kernel", nran,
		    nran == 1 ? "" : "s");
	if (c->o->verbose && nran) { /* (kplan_gcnt.c) */
		char names[256];
		unsigned ng =
			d_kplan_gcounted(k->kp, k->ran, names, sizeof(names));

		if (ng)
			say(c, "%u global%s counted in the kernel: %s", ng,
			    ng == 1 ? "" : "s", names);
		ng = d_kplan_garrs(k->kp, k->ran, names, sizeof(names));
		if (ng) /* (kplan_garr.c) */
			say(c, "%u global array%s kept in the kernel: %s", ng,
			    ng == 1 ? "" : "s", names);
	}
	if (c->o->verbose && nout)
		say(c, "%u clause%s printing values computed in the kernel",
		    nout, nout == 1 ? "" : "s");
	if (c->o->verbose && nukey)
		say(c,
		    "%u clause%s keying by the user stack in the kernel, "
		    "each count made from its record",
		    nukey, nukey == 1 ? "" : "s");
	if (c->o->verbose && nuname)
		say(c,
		    "%u clause%s keying by a user address's name in the "
		    "kernel, each count made from its record",
		    nuname, nuname == 1 ? "" : "s");
	if (c->o->verbose && npkey)
		say(c,
		    "%u clause%s keying by curpsinfo->pr_psargs in the "
		    "kernel, each count made from its record",
		    npkey, npkey == 1 ? "" : "s");
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
		say(c,
		    "the kernel's aggregations folded in at %lu tick "
		    "firing%s",
		    k->folds, k->folds == 1 ? "" : "s");
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
	/* ... and at an unfit event (bpf_agg_cgen.c's "Unfit events") */
	if (k->unfit_mixed)
		say(c,
		    "%lu hit%s at events whose clauses keeping self-> did not "
		    "fit ran in user space, in processes whose self-> "
		    "variables the kernel keeps",
		    k->unfit_mixed, k->unfit_mixed == 1 ? "" : "s");
	if (c->o->verbose && k->unfit_evs)
		say(c,
		    "%u uprobe event%s whose clauses keeping self-> did not "
		    "fit: %lu process%s firing %s kept self-> in user space "
		    "from %s first enable, %lu moved there later",
		    k->unfit_evs, k->unfit_evs == 1 ? "" : "s", k->unfit_procs,
		    k->unfit_procs == 1 ? "" : "es",
		    k->unfit_evs == 1 ? "it" : "them",
		    k->unfit_procs == 1 ? "its" : "their", k->unfit_moved);
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
	if (c->o->verbose) { /* bpf_kagg_forks(): a map read, once */
		unsigned long long n = bpf_kagg_forks(k);

		if (n)
			say(c,
			    "%llu forked child%s armed in the kernel at %s fork",
			    n, n == 1 ? "" : "ren", n == 1 ? "its" : "their");
		if (n && k->fork_reaped)
			say(c, "%llu entr%s of forked children gone taken back",
			    k->fork_reaped, k->fork_reaped == 1 ? "y" : "ies");
	}
}