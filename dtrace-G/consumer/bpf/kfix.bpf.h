/* SPDX-License-Identifier: MIT */
/*
 * kfix.bpf.h - the run's one plan, compiled into the program; included
 * by usdt.bpf.c after kagg.bpf.h (it uses reg_ctx(), arg_fetch_s(),
 * kalu(), kqbucket(), kval_update() and kflat).  The format is
 * kagg_bpf.h's struct ubpf_kfix.
 *
 * Why.  On a hit the shared program first finds out what to do: the
 * attach cookie (the event), the event's argument specs (evspec), the
 * pid, and the plan of (event, pid) (kagg.bpf.h's kplan_of()), and then
 * reads the plan's every field to pick its branches.  Measured with
 * kernel.bpf_stats_enabled on bench/bpfrun.sh's probe, the two helper
 * calls and the lookups cost more than bpftrace's whole program for
 * "/arg0 % 2 == 0/ { @ = count(); }": bpftrace compiles the script into
 * its program, which reads the register and updates the map.
 *
 * How.  When the run's first probe has a plan of kagg_direct()'s shape
 * that needs no record (bpf_agg.c: bpf_kfix_candidate()), the loader
 * sets kfix in .rodata before the load: the plan, its aggregation and
 * the specs its arguments have at that first site.  The verifier reads
 * .rodata as constants, so it keeps only the branches this plan takes:
 * what runs is one register read, the test and the update, as in
 * bpftrace's program.  Without kfix.on the verifier drops this path
 * instead, and the generic program is what it was.
 *
 * Exactness.  The path runs only for the process kfix_pid (.bss, set by
 * bpf_agg.c), and only while every event of the run has, for that
 * process, exactly kfix's plan (byte for byte) and every event's specs
 * of the arguments the plan reads are kfix's: then the generic path
 * would have found and run the same plan on the same values, so the
 * results are the same bits.  The loader sets kfix_pid to 0 before it
 * attaches a new event, before it enables a process (arms it) and when
 * the process exits, and sets it again only after the plans are in and
 * checked.  Any other process (a child, a second target, dtrace itself)
 * and any run the shape does not fit take the generic path.  It still
 * costs one helper call, the pid: without it a forked child, which
 * inherits the parent's breakpoints but not its probes, would be
 * counted as the parent.
 */
#ifndef KFIX_BPF_BPF_H
#define KFIX_BPF_BPF_H

#include "kagg_bpf.h"

/* set by the loader before the load (bpf.c) */
const volatile struct ubpf_kfix kfix = {0};

/* the process whose hits take this path; 0: none (bpf_agg.c sets it) */
__u32 kfix_pid = 0;

/* kd_val() with kfix's constants: d's value at this hit */
static __always_inline __s64 kf_val(const volatile struct ubpf_kdval *d,
				    const volatile struct ubpf_arg *a,
				    const struct ureg *R, __u64 pt)
{
	__u8 op = d->op, kind;
	__s64 v;

	switch (d->src) {
	case UBPF_K_ARG:
		kind = a->kind;
		v = (__s64)arg_fetch_s(kind == UBPF_A_CONST ? 0
							    : reg_ctx(R, a->reg),
				       kind, a->size, a->sgn, a->off);
		break;
	case UBPF_K_PID: v = (__s32)(pt >> 32); break;
	case UBPF_K_TID: v = (__s32)pt; break;
	default: v = d->vimm; break;
	}
	v = (__s64)sized((__u64)v, d->sz, d->sg);
	if (op == UBPF_K_AND)
		v = (__s64)sized((__u64)(v & d->imm), d->osz, d->osg);
	else if (op != UBPF_KD_NONE)
		v = (__s64)sized((__u64)kalu(op, v, d->imm), d->osz, d->osg);
	return v;
}

/* kd_test() with kfix's constants */
static __always_inline int kf_test(const volatile struct ubpf_kdtest *t,
				   const volatile struct ubpf_arg *a,
				   const struct ureg *R, __u64 pt)
{
	__u64 w = (__u64)kf_val(&t->v, a, R, pt) ^ t->flip;

	return (w - t->lo <= t->span) != t->neg;
}

/* 1 when the hit was this path's (and is done), 0 for the generic one */
static __always_inline int kfix_hit(const struct ureg *R)
{
	struct ubpf_kval *kv;
	__s64 v = 0, base, step, levels;
	__u32 z = 0;
	__u64 pt;
	__u8 nt, fn;

	if (!kfix.on)
		return 0;
	pt = bpf_get_current_pid_tgid();
	if ((__u32)(pt >> 32) != kfix_pid)
		return 0;
	nt = kfix.d.ntests;
	if (nt > 0 && !kf_test(&kfix.d.t[0], &kfix.arg[0], R, pt))
		return 1;
	if (nt > 1 && !kf_test(&kfix.d.t[1], &kfix.arg[1], R, pt))
		return 1;
	if (kfix.d.av.src != UBPF_KD_NONE)
		v = kf_val(&kfix.d.av, &kfix.arg[UBPF_KDTESTS], R, pt);
	fn = kfix.agg.n;
	if (fn == UBPF_F_QUANTIZE) {
		z = kqbucket(v);
	} else if (fn == UBPF_F_LQUANTIZE) {
		/* klqbucket() */
		base = kfix.agg.imm;
		step = kfix.agg.step;
		levels = kfix.agg.levels;
		if (v < base)
			z = 0;
		else if (v >= base + levels * step)
			z = (__u32)(levels + 1);
		else
			z = (__u32)((__u64)(v - base) / (__u64)step + 1);
	}
	z += kfix.agg.slot;
	kv = bpf_map_lookup_elem(&kflat, &z);
	if (kv)
		kval_update(kv, fn, v);
	return 1;
}

#endif /* KFIX_BPF_BPF_H */
