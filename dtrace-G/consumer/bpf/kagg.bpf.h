/* SPDX-License-Identifier: MIT */
/*
 * kagg.bpf.h - the part of usdt.bpf.c that aggregates in the kernel;
 * included by it (it uses its arg_of() and sized()), kept apart so the
 * record path and this one read on their own.  The formats are
 * kagg_bpf.h's.
 *
 * On a hit, kagg_hit() looks up the plan of (event, process) in kplans
 * (or, for the event's first process, in kplanv: kplan_of()).  A plan
 * of the direct shape runs in kagg_direct(), without the machine below.
 * Without one the hit is recorded as before, and user space runs every
 * clause of the probe.  With one, the arguments are fetched once into a
 * per-CPU scratch (kvm), and the plan runs there under bpf_loop(): one
 * callback per instruction, verified once however long the plan is,
 * and inlined by the verifier into a plain loop.  Jumps go forward
 * only, so nops callbacks are always enough.  The plan says whether the
 * probe has clauses that still need the record; the record then says
 * (UBPF_RF_KAGG) that the kernel ran the others, so user space runs
 * exactly the rest.
 *
 * A plan's arguments are fetched, and a direct plan's operator and
 * bucket computed, in global functions (ubpf_args(), ubpf_kalu(),
 * ubpf_kbucket()), which the verifier checks once each; kstep(), a
 * callback, inlines them (usdt.bpf.c: Verification, on the stack's
 * frames), and keeps its ways through apart as little as it can.
 *
 * Per-CPU values are updated without atomics: a uprobe's programs run
 * with preemption off (trace_call_bpf()), one at a time per CPU.
 */
#ifndef KAGG_BPF_BPF_H
#define KAGG_BPF_BPF_H

#include "kagg_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UBPF_MAXUSERS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ubpf_kplan_key);
	__type(value, struct ubpf_kplan);
} kplans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UBPF_MAXEV);
	__type(key, __u32);
	__type(value, struct ubpf_kplan1);
} kplan1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UBPF_KPLANV);
	__type(key, __u32);
	__type(value, struct ubpf_kplan);
} kplanv SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, UBPF_KMAXENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ubpf_kkey);
	__type(value, struct ubpf_kval);
} kaggs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UBPF_KFLAT);
	__type(key, __u32);
	__type(value, struct ubpf_kval);
} kflat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UBPF_KDROPS);
	__type(key, __u32);
	__type(value, __u64);
} kdrops SEC(".maps");

/* a plan's run: its arguments, stack and key */
struct kvm {
	__u64 args[UBPF_MAXARGS];
	__s64 st[UBPF_KSTACK];
	struct ubpf_kkey key;
	__u32 sp, pc;
	__u32 pid, tid;
	__u32 op, pad; /* kstep()'s op, passed through here */
	__u64 own; /* usdt.bpf.c's scratch_take() */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kvm);
} kvm_buf SEC(".maps");

struct kctx {
	const struct ubpf_kplan *pl;
	struct kvm *vm;
};

/*
 * The plan's stack slot i, masked where the verifier sees the mask:
 * clang proves i < UBPF_KSTACK from kstep()'s checks and drops a plain
 * "& (UBPF_KSTACK - 1)", and a verifier that tracks 32-bit bounds less
 * closely than 6.18's (Debian's 6.1) then refuses the store as an
 * unbounded access.  barrier_var() hides the bound from clang.
 */
static __always_inline __s64 *kslot(struct kvm *vm, __u32 i)
{
	__u64 x = i;

	barrier_var(x);
	return &vm->st[x & (UBPF_KSTACK - 1)];
}

/*
 * The highest bit set, 1-based; 0 for 0.  Without branches, so the
 * verifier walks one path, not one per bit found: each step halves the
 * width searched, and s is 1 exactly when x >> k is not 0 (x >> k is
 * below 2^32 there, so adding 2^32 - 1 carries into bit 32 just then).
 */
static __always_inline int kfls(__u64 x)
{
	__u64 n = 0, s;

#define KFLS_STEP(k, lg)                                                 \
	s = (((x >> (k)) + 0xffffffffULL) >> 32) << (lg);                \
	x >>= s;                                                         \
	n += s;
	KFLS_STEP(32, 5)
	KFLS_STEP(16, 4)
	KFLS_STEP(8, 3)
	KFLS_STEP(4, 2)
	KFLS_STEP(2, 1)
	KFLS_STEP(1, 0)
#undef KFLS_STEP
	return (int)(n + x); /* x is 1 here, or 0 for 0 */
}

/*
 * quantize()'s bucket, as agg.c counts it: 63 holds 0; v > 0 goes to
 * 63 + (its highest bit), v < 0 to 63 - (the highest bit of -v).
 */
static __always_inline __u16 kqbucket(__s64 v)
{
	int b;

	if (v > 0)
		return (__u16)(63 + kfls((__u64)v));
	if (!v)
		return 63;
	b = 63 - kfls(0 - (__u64)v);
	return b < 0 ? 0 : (__u16)b;
}

/* lquantize()'s bucket: base, step and levels a ubpf_kop's imm, step
 * and levels */
static __always_inline __u16 klqbucket(__s64 v, __s64 base, __s64 step,
				       __s64 levels)
{
	if (v < base)
		return 0;
	if (v >= base + levels * step)
		return (__u16)(levels + 1);
	return (__u16)((__u64)(v - base) / (__u64)step + 1);
}

/*
 * C's / and % on int64_t, with the unsigned division BPF has; % by a
 * power of two (the common "arg0 % 2") as a mask: the remainder takes
 * a's sign.
 */
static __always_inline __s64 ksdiv(__s64 a, __s64 b, int mod)
{
	if (mod && b > 0 && !(b & (b - 1))) {
		__s64 r = a & (b - 1);

		return a < 0 && r ? r - b : r;
	}
	{
	__u64 ua = a < 0 ? 0 - (__u64)a : (__u64)a;
	__u64 ub = b < 0 ? 0 - (__u64)b : (__u64)b;
	__u64 q = ub ? ua / ub : 0;
	__s64 sq = (a < 0) != (b < 0) ? (__s64)(0 - q) : (__s64)q;

	if (mod)
		return (__s64)((__u64)a - (__u64)sq * (__u64)b);
	return sq;
	}
}

/* a OP b for the binary instructions, UBPF_K_ADD..UBPF_K_LXOR */
static __always_inline __s64 kalu(__u8 op, __s64 a, __s64 b)
{
	switch (op) {
	case UBPF_K_ADD: return (__s64)((__u64)a + (__u64)b);
	case UBPF_K_SUB: return (__s64)((__u64)a - (__u64)b);
	case UBPF_K_MUL: return (__s64)((__u64)a * (__u64)b);
	case UBPF_K_DIVU: return b ? (__s64)((__u64)a / (__u64)b) : 0;
	case UBPF_K_MODU: return b ? (__s64)((__u64)a % (__u64)b) : 0;
	case UBPF_K_DIVS: return ksdiv(a, b, 0);
	case UBPF_K_MODS: return ksdiv(a, b, 1);
	case UBPF_K_AND: return a & b;
	case UBPF_K_OR: return a | b;
	case UBPF_K_XOR: return a ^ b;
	case UBPF_K_SHL: return (__s64)((__u64)a << (b & 63));
	case UBPF_K_SHR: return (__s64)((__u64)a >> (b & 63));
	case UBPF_K_SAR: return a >> (b & 63);
	case UBPF_K_EQ: return a == b;
	case UBPF_K_NE: return a != b;
	case UBPF_K_LTS: return a < b;
	case UBPF_K_LTU: return (__u64)a < (__u64)b;
	case UBPF_K_GTS: return a > b;
	case UBPF_K_GTU: return (__u64)a > (__u64)b;
	case UBPF_K_LES: return a <= b;
	case UBPF_K_LEU: return (__u64)a <= (__u64)b;
	case UBPF_K_GES: return a >= b;
	case UBPF_K_GEU: return (__u64)a >= (__u64)b;
	case UBPF_K_LAND: return a && b;
	case UBPF_K_LOR: return a || b;
	case UBPF_K_LXOR: return !a != !b;
	}
	return 0;
}

static __always_inline void kdrop(__u32 z)
{
	__u64 *dp = bpf_map_lookup_elem(&kdrops, &z);

	if (dp) /* atomic: a program nested in this one may count too */
		__sync_fetch_and_add(dp, 1);
}

/*
 * min() or max() of kv with v, exact where another program nests in
 * this one on the CPU (doc/DESIGN.md's "Programs that nest on a CPU";
 * cgen_agg.c's minmax() is the same): b 0 claimed by a compare-and-
 * swap to 2, then a written and b 1; b 2 found (a program this one
 * interrupted was writing a) counts a drop; b 1: a replaced only by a
 * compare-and-swap from the value compared, tried again with what a
 * nested program left, 3 times, then a drop.
 */
static __always_inline void kminmax(struct ubpf_kval *kv, __s64 v, int max)
{
	__s64 a;
	int t;

#pragma unroll
	for (t = 0; t < 3; t++) {
		if (kv->b == 0) {
			if (__sync_val_compare_and_swap(&kv->b, 0, 2) != 0)
				continue;
			kv->a = v;
			kv->b = 1;
			return;
		}
		if (kv->b != 1)
			break;
		a = kv->a;
		if (max ? v <= a : v >= a)
			return;
		if (__sync_val_compare_and_swap(&kv->a, a, v) == a)
			return;
	}
	kdrop(UBPF_KDROP);
}

/* fn's update of an entry's value: each word another program nested
 * in this one could update between a load and a store added atomically */
static __always_inline void kval_update(struct ubpf_kval *kv, __u8 fn,
					__s64 v)
{
	switch (fn) {
	case UBPF_F_COUNT:
	case UBPF_F_QUANTIZE:
	case UBPF_F_LQUANTIZE:
		__sync_fetch_and_add(&kv->a, 1);
		break;
	case UBPF_F_SUM:
		__sync_fetch_and_add(&kv->a, v);
		kv->b = 1;
		break;
	case UBPF_F_AVG:
		__sync_fetch_and_add(&kv->a, 1);
		__sync_fetch_and_add(&kv->b, v);
		break;
	case UBPF_F_MIN:
		kminmax(kv, v, 0);
		break;
	case UBPF_F_MAX:
		kminmax(kv, v, 1);
		break;
	}
}

/*
 * kalu() and the bucket of fn's aggregation as global functions (BPF-to-
 * BPF calls), for kagg_direct(): the verifier checks each body once, on
 * its own, and a call as one that returns any value.  Inlined, kalu()'s
 * 26 cases each went on as a state of its own through the rest of
 * kagg_direct(), once per operand.  kfix.bpf.h keeps the inlined ones,
 * whose .rodata constants the verifier prunes; kstep() too
 * (kbucket_in()).
 */
__attribute__((noinline)) __s64 ubpf_kalu(__u32 op, __s64 a, __s64 b)
{
	return kalu((__u8)op, a, b);
}

__attribute__((noinline)) __u64 ubpf_kbucket(__u32 fn, __s64 v,
					      __s64 base, __u32 step,
					      __u32 levels)
{
	return fn == UBPF_F_QUANTIZE	? kqbucket(v)
	       : fn == UBPF_F_LQUANTIZE ? klqbucket(v, base, step, levels)
					: 0;
}

static __always_inline __u16 kbucket(const struct ubpf_kop *o, __s64 v)
{
	return (__u16)ubpf_kbucket(o->n, v, o->imm, o->step, o->levels);
}

/*
 * kbucket() inlined, for kstep(): a bpf_loop() callback, whose frame
 * (40 bytes, 64 as 6.1's verifier rounds it) with a call's below it
 * would pass the 512 bytes of stack a chain of frames may have where
 * the program's own frame is as large as kprov.bpf.h's (6.1: "combined
 * stack size of 3 calls is 544").  The callback is verified as one
 * pass, so its branches cost little there.
 */
static __always_inline __u16 kbucket_in(const struct ubpf_kop *o, __s64 v)
{
	return o->n == UBPF_F_QUANTIZE	  ? kqbucket(v)
	       : o->n == UBPF_F_LQUANTIZE ? klqbucket(v, o->imm, o->step,
						      o->levels)
					  : 0;
}

static __always_inline void kagg_update(struct kvm *vm,
					const struct ubpf_kop *o, __s64 v)
{
	struct ubpf_kval *kv, zero = {0, 0};
	int nomem = 0;
	__u32 z;

	vm->key.agg = o->agg;
	vm->key.bucket = kbucket_in(o, v);
	if (o->flags & UBPF_KF_FLAT) {
		z = (__u32)o->slot + vm->key.bucket;
		kv = bpf_map_lookup_elem(&kflat, &z);
		if (!kv)
			return;
	} else {
		kv = bpf_map_lookup_elem(&kaggs, &vm->key);
	}
	if (!kv) {
		/* -ENOMEM: cgen_agg.c's agg_find() */
		nomem = bpf_map_update_elem(&kaggs, &vm->key, &zero,
					    BPF_NOEXIST) == -12; /* -ENOMEM */
		kv = bpf_map_lookup_elem(&kaggs, &vm->key);
	}
	if (!kv) {
		kdrop(nomem ? UBPF_KDROP_NOMEM : UBPF_KDROP);
		return;
	}
	kval_update(kv, o->n, v);
}

/*
 * One instruction; 1 ends the run.  A 6.18 verifier checks a bpf_loop()
 * callback as a loop, until its states repeat (6.1's checked it once),
 * and in one pass every way through it went on as a state of its own:
 * each operand fetch left sp a different known value, each case of the
 * switch op a different constant, both precise (the branches they
 * decide), so no state of the tail pruned another (the generic program
 * of a count(): 52,911 instructions verified, 0.33 s).  So sp, once the
 * operands are off the stack, and op, once the switch has run, come
 * back through the CPU's kvm, the same values to the hit but unknown to
 * the verifier, whose ways through the tail then prune each other
 * (28,431 instructions).  kvm, not the plan: a plan dtrace rewrites
 * meanwhile does not change the op this step runs.
 */
static long kstep(__u64 i, void *ctx)
{
	struct kctx *kc = ctx;
	const struct ubpf_kplan *pl = kc->pl;
	struct kvm *vm = kc->vm;
	const struct ubpf_kop *o;
	__u32 pc = vm->pc, sp = vm->sp;
	__s64 a = 0, b = 0, c = 0, r = 0;
	__u8 op, eop;

	(void)i;
	if (pc >= UBPF_KOPS || pc >= pl->nops || sp > UBPF_KSTACK)
		return 1;
	o = &pl->ops[pc];
	vm->pc = pc + 1;
	op = o->op;
	/* a PRED with n tests a comparison of its own (UBPF_K_EQ..) */
	eop = op == UBPF_K_PRED && o->n ? o->n : op;
	/* operands off the stack */
	if (eop >= UBPF_K_NORM && eop <= UBPF_K_LNOT) {
		if (sp < 1)
			return 1;
		a = *kslot(vm, sp - 1);
		sp--;
	} else if (eop >= UBPF_K_ADD && eop <= UBPF_K_LXOR &&
		   (o->flags & UBPF_KF_IMM)) {
		if (sp < 1)
			return 1;
		b = o->imm;
		a = *kslot(vm, sp - 1);
		sp--;
	} else if (eop >= UBPF_K_ADD && eop <= UBPF_K_LXOR) {
		if (sp < 2)
			return 1;
		b = *kslot(vm, sp - 1);
		a = *kslot(vm, sp - 2);
		sp -= 2;
	} else if (eop == UBPF_K_SEL) {
		if (sp < 3)
			return 1;
		c = *kslot(vm, sp - 1);
		b = *kslot(vm, sp - 2);
		a = *kslot(vm, sp - 3);
		sp -= 3;
	} else if (op == UBPF_K_PRED || op == UBPF_K_KEY ||
		   (op == UBPF_K_AGG && o->n != UBPF_F_COUNT)) {
		if (sp < 1)
			return 1;
		a = *kslot(vm, sp - 1);
		sp--;
	}
	vm->sp = sp; /* the same sp, each fetch's alike to the verifier */
	sp = *(volatile __u32 *)&vm->sp;
	if (sp > UBPF_KSTACK)
		return 1; /* cannot be: checked above */
	vm->op = op;
	switch (eop) {
	case UBPF_K_CONST: r = o->imm; break;
	case UBPF_K_ARG: r = (__s64)vm->args[o->n < UBPF_MAXARGS ? o->n : 0]; break;
	case UBPF_K_PID: r = (__s32)vm->pid; break;
	case UBPF_K_TID: r = (__s32)vm->tid; break;
	case UBPF_K_NORM: r = a; break;
	case UBPF_K_NEG: r = (__s64)(0 - (__u64)a); break;
	case UBPF_K_BNOT: r = ~a; break;
	case UBPF_K_LNOT: r = !a; break;
	case UBPF_K_SEL: r = a ? b : c; break;
	case UBPF_K_PRED: r = a; break;
	case UBPF_K_KEY:
		vm->key.k[o->n & (UBPF_KMAXKEYS - 1)] = a;
		vm->sp = sp;
		return 0;
	case UBPF_K_AGG:
		kagg_update(vm, o, a);
		__builtin_memset(vm->key.k, 0, sizeof(vm->key.k));
		vm->sp = sp;
		return 0;
	default:
		if (eop < UBPF_K_ADD || eop > UBPF_K_LXOR)
			return 1;
		r = kalu(eop, a, b); /* not ubpf_kalu(): kbucket_in() */
		break;
	}
	op = (__u8) * (volatile __u32 *)&vm->op; /* each case's alike */
	if (op == UBPF_K_PRED) {
		vm->sp = sp;
		if (!r)
			vm->pc = o->jump;
		return 0;
	}
	if (sp >= UBPF_KSTACK)
		return 1;
	*kslot(vm, sp) = (__s64)sized((__u64)r, o->sz, o->sg);
	vm->sp = sp + 1;
	return 0;
}

/* A direct plan's operand (kagg_bpf.h's struct ubpf_kdval) */
static __always_inline __s64 kd_val(const struct ubpf_kdval *d,
				    const struct ubpf_ev *e,
				    const struct ureg *R, __u64 pt)
{
	__s64 v;

	switch (d->src) {
	case UBPF_K_ARG:
		v = d->n < e->nargs && d->n < UBPF_MAXARGS
			    ? (__s64)arg_ctx(R, &e->a[d->n < UBPF_MAXARGS ? d->n : 0])
			    : 0;
		break;
	case UBPF_K_PID: v = (__s32)(pt >> 32); break;
	case UBPF_K_TID: v = (__s32)pt; break;
	default: v = d->vimm; break;
	}
	v = (__s64)sized((__u64)v, d->sz, d->sg);
	/* & first: the loader turns % by a power of two into it where it can */
	if (d->op == UBPF_K_AND)
		v = (__s64)sized((__u64)(v & d->imm), d->osz, d->osg);
	else if (d->op != UBPF_KD_NONE)
		v = (__s64)sized((__u64)ubpf_kalu(d->op, v, d->imm), d->osz,
				 d->osg);
	return v;
}

/* A direct predicate's test (kagg_bpf.h's struct ubpf_kdtest) */
static __always_inline int kd_test(const struct ubpf_kdtest *t,
				   const struct ubpf_ev *e,
				   const struct ureg *R, __u64 pt)
{
	__u64 w = (__u64)kd_val(&t->v, e, R, pt) ^ t->flip;

	return (w - t->lo <= t->span) != t->neg;
}

/*
 * A direct plan: the predicate's tests (&&: the first false one ends
 * it; they have no side effects), then one keyless aggregation, as the
 * instructions would run them.
 */
static __always_inline void kagg_direct(const struct ubpf_kplan *pl,
					const struct ubpf_ev *e,
					const struct ureg *R, __u64 pt)
{
	const struct ubpf_kdirect *d = &pl->d;
	const struct ubpf_kop *o;
	struct ubpf_kval *kv;
	__s64 v = 0;
	__u32 z;

	if (d->ntests > 0 && !kd_test(&d->t[0], e, R, pt))
		return;
	if (d->ntests > 1 && !kd_test(&d->t[1], e, R, pt))
		return;
	if (d->agg >= UBPF_KOPS)
		return;
	o = &pl->ops[d->agg];
	v = d->av.src != UBPF_KD_NONE ? kd_val(&d->av, e, R, pt) : 0;
	z = (__u32)o->slot + kbucket(o, v);
	kv = bpf_map_lookup_elem(&kflat, &z);
	if (kv)
		kval_update(kv, o->n, v);
}

/* The plan of (ev, pid): kplanv's slot when pid is the event's first */
static __always_inline const struct ubpf_kplan *kplan_of(__u32 ev, __u32 pid)
{
	struct ubpf_kplan_key pk = {ev, pid};
	const struct ubpf_kplan1 *f = bpf_map_lookup_elem(&kplan1, &ev);
	const struct ubpf_kplan *pl = NULL;
	__u32 slot;

	/*
	 * Two calls, each with its own map: one call site given either map
	 * would not have the array's lookup inlined by the verifier.
	 */
	if (f && f->pid == pid && f->slot) {
		slot = f->slot - 1;
		pl = bpf_map_lookup_elem(&kplanv, &slot);
		barrier_var(pl);
	}
	if (pl)
		return pl;
	return bpf_map_lookup_elem(&kplans, &pk);
}

/*
 * Run the plan of (ev, this process), if it has one: -1 without a
 * plan, 0 when no record is needed, 1 when it is (then flagged).
 */
static __always_inline int kagg_hit(__u32 ev, __u64 pt,
				    const struct ubpf_ev *e,
				    const struct ureg *R)
{
	const struct ubpf_kplan *pl = kplan_of(ev, (__u32)(pt >> 32));
	struct kctx kc;
	struct kvm *vm;
	__u32 zero = 0, nargs;

	if (!pl)
		return -1;
	if (pl->d.on) {
		kagg_direct(pl, e, R, pt);
		return pl->record ? 1 : 0;
	}
	vm = bpf_map_lookup_elem(&kvm_buf, &zero);
	if (!vm)
		return -1;
	if (!scratch_take(&vm->own)) /* a plan halfway on this CPU */
		return 0;
	UREGS(Rv);
	if (!Rv) { /* arm64's room halfway on this CPU: a drop (UREGS()) */
		vm->own = 0;
		return 0;
	}
	regs_load(Rv, R);
	nargs = e->nargs;
	/* past the site's arguments, 0, as the records give user space
	 * (the scratch is per CPU: it would hold the last hit's) */
	ubpf_args((struct uargv *)vm->args, (const struct uregs_room *)Rv, e,
		  nargs, 1);
	vm->pid = (__u32)(pt >> 32);
	vm->tid = (__u32)pt;
	vm->sp = vm->pc = 0;
	__builtin_memset(&vm->key, 0, sizeof(vm->key));
	kc.pl = pl;
	kc.vm = vm;
	bpf_loop(pl->nops, kstep, &kc, 0);
	vm->own = 0;
	return pl->record ? 1 : 0;
}

#endif /* KAGG_BPF_BPF_H */
