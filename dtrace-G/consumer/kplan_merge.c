// SPDX-License-Identifier: MIT
/*
 * kplan_merge.c - what the kernel aggregated, back into the D
 * program's aggregations (d_kplan_merge(), for each entry bpf_agg_read.c
 * reads at the end or folds at a tick-N firing: kplan_exit.c's
 * "printa() at tick-N"; and for inproc_plan.c's slots, a thread for a
 * CPU): the entry's key made the statement's keys again, as d_key_add()
 * would have made them in user space (a probe's ID its name, kaggs_s's
 * and kaggs_v's strings cut as copyinstr() and agg.c cut them,
 * execname's taint), and each CPU's values added as agg.c adds a hit's
 * (kplan.c's "Same bits" and "stddev() and llquantize()" say why that
 * is exact); the layouts bpf_agg_read.c reads the entries by
 * (d_kplan_nkeys(), d_kplan_skey(), d_kplan_vkey(), kp_vkey_imm()), and
 * d_kplan_fault(), which fault a kernel clause's record flags.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "text.h"

/* ------------------------------------------------------------------ */
/* Merging */

bool d_kplan_fault(const struct d_kplan *k, unsigned clause, uint64_t mask,
		   int *action, unsigned *arg, bool *next, enum d_run_flt *kind)
{
	for (unsigned i = 0; i < k->nfs; i++) {
		unsigned b = (unsigned)(mask >> (2 * i)) & 3;

		if (k->fs[i].clause != clause || !b)
			continue;
		*action = k->fs[i].action;
		*arg = k->fs[i].arg;
		*next = false;
		switch (k->fs[i].kind) {
		case KFS_ILLOP:
			*kind = D_RUNF_ILLOP;
			break;
		case KFS_BSTR: /* BCPY's codes (kagg_bpf.h) */
			*kind = b == 1	 ? D_RUNF_ADDR
				: b == 2 ? D_RUNF_NOSCRATCH
					 : D_RUNF_BELOW;
			if (b == 3) /* the cut's store */
				*action = k->fs[i].cut;
			break;
		default:
			*kind = D_RUNF_ADDR;
			*next = (b & 2) != 0;
		}
		return true;
	}
	return false;
}

unsigned d_kplan_nkeys(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign ? k->st[st].st->nkeys : 0;
}

bool d_kplan_skey(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign && k->st[st].skey >= 0 &&
	       k->st[st].svar < 0 &&
	       (k->st[st].sx == KSX_NONE || k->st[st].sx == KSX_SMIX);
}

unsigned d_kplan_skey_long(const struct d_kplan *k, unsigned st)
{
	if (!d_kplan_skey(k, st) || k->st[st].sx != KSX_NONE)
		return 0;
	return k->st[st].skey3 ? 3 : k->st[st].skey2 ? 2 : 1;
}

unsigned d_kplan_vpair(const struct d_kplan *k, unsigned st)
{
	/* a third room is never in kaggs_x: cgen_svar.c's vkey_at() */
	if (st >= k->nst || k->st[st].assign || !k->st[st].vkey2 ||
	    k->st[st].vkey3)
		return 0;
	return kp_vkey_pair(k, &k->st[st], NULL);
}

void d_kplan_vpair_short(const struct d_kplan *k, const struct ubpf_kkey *key,
			 const char *s, char *out)
{
	unsigned r1, r;

	memset(out, 0, UBPF_KSLONG(3) + 1);
	if (!d_kplan_vpair(k, key->agg))
		return;
	r = kp_vkey_pair(k, &k->st[key->agg], &r1);
	memcpy(out, s, r1 < UBPF_KVSHORT ? r1 : UBPF_KVSHORT);
	memcpy(out + r1, s + UBPF_KVSHORT,
	       r - r1 < UBPF_KVSHORT ? r - r1 : UBPF_KVSHORT);
}

bool d_kplan_vkey(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign && k->st[st].skey >= 0 &&
	       (k->st[st].svar >= 0 ||
		(k->st[st].sx != KSX_NONE && k->st[st].sx != KSX_SMIX));
}

/*
 * The longest leaf of a ?: key (LKEY's tree, MKEY's two): a probe's
 * name whatever a probe's is (lit_key() takes no longer one)
 */
static size_t tern_bound(const struct node *n)
{
	size_t b, c;

	if (n->op != N_TERN)
		return kp_is_comm(n)   ? UBPF_KCOMM - 1
		       : ident(n) >= 0 ? UBPF_KSTRMAX
				       : strlen(n->sval);
	b = tern_bound(n->b);
	c = tern_bound(n->c);
	return b > c ? b : c;
}

size_t kp_vkey_bound(const struct d_kplan *k, const struct node *n, unsigned sx)
{
	size_t max = k->prog->strsize - 1, l;

	if (sx == KSX_NONE || sx == KSX_ARG) {
		/* a string variable: all its store kept; an argument's:
		 * copyinstr()'s cut */
		l = max;
	} else if (sx == KSX_COMM) {
		l = UBPF_KCOMM - 1;
	} else if (n->op == N_TERN) {
		l = tern_bound(n);
	} else {
		l = strlen(n->sval);
	}
	return l < max ? l : max;
}

unsigned kp_vkey_rooms(const struct d_kplan *k, const struct kstmt *ks,
		       unsigned room[3])
{
	room[0] = UBPF_KVROOM(kp_vkey_bound(k, ks->st->keys[ks->skey],
					    ks->svar >= 0 ? KSX_NONE : ks->sx));
	room[1] = UBPF_KVROOM(
		kp_vkey_bound(k, ks->st->keys[ks->vkey2 - 1], ks->sx2));
	room[2] = !ks->vkey3
			  ? 0
			  : UBPF_KVROOM(kp_vkey_bound(
				    k, ks->st->keys[ks->vkey3 - 1], KSX_NONE));
	return room[0] + room[1] + room[2];
}

unsigned kp_vkey_room_at(const struct d_kplan *k, const struct kstmt *ks,
			 unsigned nth, unsigned *len)
{
	unsigned r[3];

	(void)kp_vkey_rooms(k, ks, r);
	if (len)
		*len = r[nth];
	return nth == 0 ? 0 : nth == 1 ? r[0] : r[0] + r[1];
}

unsigned kp_vkey_pair(const struct d_kplan *k, const struct kstmt *ks,
		      unsigned *room1)
{
	unsigned r[3], all = kp_vkey_rooms(k, ks, r);

	if (room1)
		*room1 = r[0];
	return all;
}

/*
 * The bytes of string kaggs_v's keys need (their room is UBPF_KVROOM()
 * of it): strsize - 1 where a string variable keys it (VKEY: all its
 * store kept), else the longest execname (15 bytes at most: 16 with
 * its NUL) or literal (cut to strsize - 1) a key has (kp_vkey_bound()).
 * A smaller room is a shorter key to hash at every hit: 16 bytes for
 * @[execname] where strsize 256 would make 256.  Two string keys of a
 * statement (kplan.c's vkey_pair()) take their two rooms side by side,
 * and a third's after them (vkey_third()), which may pass strsize - 1
 * (a variable's beside execname's) up to UBPF_KVROOMMAX (three
 * variables' at strsize 256): the room is then at least their sum
 * (UBPF_KVROOM() of one byte less).
 */
int64_t kp_vkey_imm(const struct d_kplan *k)
{
	size_t need = 1;
	unsigned pair = 0;

	for (unsigned i = 0; i < k->nst; i++) {
		const struct kstmt *ks = &k->st[i];
		size_t l;

		if (!d_kplan_vkey(k, i))
			continue;
		l = kp_vkey_bound(k, ks->st->keys[ks->skey],
				  ks->svar >= 0 ? KSX_NONE : ks->sx);
		if (l > need)
			need = l;
		if (ks->vkey2 && kp_vkey_pair(k, ks, NULL) > pair)
			pair = kp_vkey_pair(k, ks, NULL);
	}
	return (int64_t)(pair && pair - 1 > need ? pair - 1 : need);
}

unsigned d_kplan_vkey_room(const struct d_kplan *k)
{
	return k->prog->strsize < 2 ? 0 : UBPF_KVROOM(kp_vkey_imm(k));
}

/* Is key i of ks, kaggs_v's room at p, a self-> format-time variable's
 * that was unset at the hit (VKEY flagged UBPF_KF_PRES: byte 1 marked
 * after a NUL at byte 0, which no string's is; cgen_svar.c's
 * svar_copy())? */
static bool absent_room(const struct d_kplan *k, const struct kstmt *ks,
			unsigned i, const char *p)
{
	const struct node *n = ks->st->keys[i];

	return n->op == N_VAR && n->sub >= 0 &&
	       kp_fvar_self(k, (unsigned)n->sub) && !p[0] && p[1] == 1;
}

/*
 * The nth string of a kaggs_s or kaggs_l key's s, str (its bytes, a NUL
 * past them: bpf_agg_read.c's buffers), each after the NUL of the one
 * before it; "" past the bytes
 */
static const char *nth_str(const char *str, unsigned nth)
{
	size_t at = 0;

	for (unsigned q = 0; q < nth; q++) {
		at += strnlen(str + at, UBPF_KSLONG(3) - at);
		if (at >= UBPF_KSLONG(3))
			return "";
		at++; /* past the NUL */
	}
	return at < UBPF_KSLONG(3) ? str + at : "";
}

void d_kplan_merge(const struct d_kplan *k, const struct ubpf_kkey *key,
		   const struct ubpf_kval *vals, unsigned ncpus,
		   d_kplan_probe_fn probe_of, void *ctx, const char *str)
{
	const struct kstmt *ks;
	struct dv keys[UBPF_KMAXKEYS];
	char kbuf[UBPF_KMAXKEYS][D_STRSIZE];
	uint8_t absent = 0; /* the keys of self-> variables unset */
	struct agg *a;
	int64_t *d, sa = 0, sb = 0;
	unsigned i;

	if (key->agg >= k->nst || k->st[key->agg].assign)
		return;
	ks = &k->st[key->agg];
	if (ks->gvar) { /* a global counted: kplan_gcnt.c */
		kp_gcnt_merge(k, ks, vals, ncpus);
		return;
	}
	a = &k->prog->aggs[ks->agg];
	for (i = 0; i < ks->st->nkeys; i++) {
		const struct d_probe *pr;
		const char *s = "";
		size_t max;
		bool tagged;

		if (ks->vkey2 && ((int)i == ks->skey || i == ks->vkey2 - 1u ||
				  i == ks->vkey3 - 1u)) {
			/* two or three kaggs_v keys: fixed rooms side by
			 * side, each NUL-padded (kp_vkey_rooms()), each to
			 * its NUL, cut as agg.c cuts a key and tainted by
			 * its own kind as a lone one's (below) */
			unsigned room;
			unsigned nth = (int)i == ks->skey    ? 0
				       : i == ks->vkey2 - 1u ? 1
							     : 2;
			unsigned sx = nth == 2	      ? (unsigned)KSX_NONE
				      : nth == 1      ? ks->sx2
				      : ks->svar >= 0 ? (unsigned)KSX_NONE
						      : ks->sx;
			unsigned at = kp_vkey_room_at(k, ks, nth, &room);
			const char *p = !str ? "" : str + at;
			size_t l = strnlen(p, room);

			if (str && absent_room(k, ks, i, p))
				absent |= (uint8_t)(1u << i);

			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			if (l > max - 1)
				l = max - 1;
			memcpy(kbuf[i], p, l);
			kbuf[i][l] = '\0';
			keys[i] = sx == KSX_LIT || (sx == KSX_MIX && !key->k[i])
					  ? d_dv_str(kbuf[i])
					  : d_dv_tstr(kbuf[i]);
			continue;
		}
		if (ks->skey2 && str &&
		    ((int)i == ks->skey || i == ks->skey2 - 1u ||
		     i == ks->skey3 - 1u)) {
			/* two or three strings in kaggs_s's s (or
			 * kaggs_l's): the first up to its NUL, the second
			 * after it (SKEY2), the third after the second's */
			unsigned nth = (int)i == ks->skey    ? 0
				       : i == ks->skey2 - 1u ? 1
							     : 2;

			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			snprintf(kbuf[i], max, "%s", nth_str(str, nth));
			keys[i] = d_dv_tstr(kbuf[i]);
			continue;
		}
		if ((int)i == ks->skey && (str || ks->svar >= 0)) {
			/* kaggs_s, kaggs_v: as copyinstr() cuts it (kaggs:
			 * an args[N] key that was an integer, below) */
			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			if (str && absent_room(k, ks, i, str))
				absent |= (uint8_t)(1u << i);
			snprintf(kbuf[i], max, "%s", str ? str : "");
			/* a literal's is the script's own (run.c: untainted);
			 * MKEY's, SMKEY's k[i] says execname or the
			 * argument's string was taken */
			tagged = ks->sx == KSX_MIX || ks->sx == KSX_SMIX;
			keys[i] = ks->sx == KSX_LIT || (tagged && !key->k[i])
					  ? d_dv_str(kbuf[i])
					  : d_dv_tstr(kbuf[i]);
			continue;
		}
		if (ks->kcomm && i == ks->kcomm - 1u && ks->skey >= 0) {
			/* execname: 16 bytes in two words (CWKEY) */
			char comm[UBPF_KCOMM + 1];

			memcpy(comm, &key->k[i], 8);
			memcpy(comm + 8, &key->k[ks->skey], 8);
			comm[UBPF_KCOMM] = '\0';
			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			snprintf(kbuf[i], max, "%s", comm);
			keys[i] = d_dv_tstr(kbuf[i]);
			continue;
		}
		if (ks->kid[i] < 0) {
			keys[i] = d_dv_int(key->k[i], ks->ksz[i], ks->ksg[i]);
			continue;
		}
		pr = probe_of(ctx, (unsigned)key->k[i]);
		if (pr)
			s = ks->kid[i] == B_PROBEPROV	? pr->prov
			    : ks->kid[i] == B_PROBEMOD	? pr->mod
			    : ks->kid[i] == B_PROBEFUNC ? pr->func
							: pr->name;
		/* as d_agg_update(): a key is at most strsize - 1 bytes */
		max = k->prog->strsize < sizeof(kbuf[i]) ? k->prog->strsize
							 : sizeof(kbuf[i]);
		snprintf(kbuf[i], max, "%s", s ? s : "");
		keys[i] = d_dv_str(kbuf[i]);
	}
	if (ks->fkeys) /* format-time keys: made of their leaves */
		kp_fkey_merge(k, ks, keys, kbuf, absent);
	for (i = 0; i < ncpus; i++) {
		sa = (int64_t)((uint64_t)sa + (uint64_t)vals[i].a);
		sb = (int64_t)((uint64_t)sb + (uint64_t)vals[i].b);
	}
	d = d_agg_entry(a, keys, ks->st->nkeys)->data;
	switch (a->fn) {
	case AG_COUNT:
	case AG_SUM:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		break;
	case AG_AVG:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)sb);
		break;
	case AG_MIN:
	case AG_MAX:
		/* b 2: claimed by a hit still writing a (cgen_agg.c's
		 * minmax()) */
		for (i = 0; i < ncpus; i++)
			if (vals[i].b == 1 &&
			    (a->fn == AG_MIN ? vals[i].a < d[0]
					     : vals[i].a > d[0]))
				d[0] = vals[i].a;
		break;
	case AG_QUANTIZE:
		if (key->bucket < QZ_NBUCKETS)
			d[key->bucket] += sa;
		break;
	case AG_LQUANTIZE:
		if (key->bucket <= a->lq_levels + 1u)
			d[key->bucket] += sa;
		break;
	case AG_LLQUANTIZE:
		if (key->bucket < a->llq_nbuckets)
			d[key->bucket] += sa;
		break;
	case AG_STDDEV:
		if (key->bucket == 0) { /* hits, sum: as avg() */
			d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
			d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)sb);
		} else if (key->bucket == 1) { /* squares: 128 bits */
			unsigned __int128 acc =
				((unsigned __int128)(uint64_t)d[3] << 64) |
				(uint64_t)d[2];

			for (i = 0; i < ncpus; i++)
				acc += ((unsigned __int128)(uint64_t)vals[i].b
					<< 64) |
				       (uint64_t)vals[i].a;
			d[2] = (int64_t)(uint64_t)acc;
			d[3] = (int64_t)(uint64_t)(acc >> 64);
		}
		break;
	}
}
