// SPDX-License-Identifier: MIT
/*
 * unw.bpf.c - the user stack walked in the kernel from each module's
 * CFI, for generated programs whose clauses read ustack() (x86-64).
 *
 * A generated program (../cgen.c) that would copy the stack builds its
 * record in cgbuf, leaves at UW_KIB_OFF how many KiB its copy would take
 * and tail-calls ustack_walk through a prog array just before its copy.
 * The walk starts from the hit's rip, rsp and rbp and steps a frame at a
 * time under bpf_loop() (a 6.1 verifier sees one step, not 128): the
 * module holding the pc (its process's slot of umods, found through upx
 * by tgid), checked once per walk with bpf_find_vma() to be the same
 * file (device, inode) from the same file offset over the same addresses
 * as when the tables were built (and not again by the thread's later hits while
 * mm_lock_seq, the count every change of the mappings moves, reads as it did
 * before the check: uvc, where the kernel keeps that count), then its row (a
 * binary search in urows) gives the CFA, the return address and the
 * caller's rbp (unw_bpf.h); the module and row of a pc the thread found
 * before in the same slot filling come from its uvc (uw_rc) instead of
 * the two searches.  On success it
 * appends the registers, as a copy's record has them, and the pcs
 * found instead of the stack's bytes, flags the record UBPF_RF_USTACK
 * | UBPF_RF_UPCS and outputs it itself, as the generated program would
 * have (drops counted; the wake-up rule of rbwake.bpf.h, its map the
 * generated programs'): a tail call that lands never returns, so the
 * caller's code after it never runs, and the walk gives cgbuf back
 * itself, on every path (its owner word, struct cgb's own, which the
 * caller took: ../cgen.c's own_need()).  (Where the
 * unwinder is not loaded, the tail call falls through to the caller's
 * own copy.)
 *
 * On any doubt it copies the stack instead, as the caller would have
 * (ustk.bpf.h's ustk_pages()), and dtrace unwinds the copy (../ustack.c,
 * libdwfl): no tables for the process or for its self_exec_id (an
 * exec(); useen then says which exec id the builder should key the
 * next tables with),
 * a pc in no module of the slot (the vDSO, a library mapped since, a
 * module without .eh_frame_hdr), a module's mapping not the one the
 * tables were built for (a library dlclose()d and another dlopen()ed
 * at its address; the same file mapped again there from another
 * offset), an unknown row, an rbp libdwfl would not know, a
 * read outside the bytes the copy would have taken (what lies above,
 * libdwfl reads later from the live process) or one that faults, no
 * task storage for the thread (uvc), and more than UW_MAXFR frames.
 * So what this walk gives is exactly what unwinding the copy would:
 * the same rows (libdw's, through the same CFI libdwfl uses first),
 * the same bytes, the same end (an undefined return address, or a zero
 * one, which gives no frame).
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "uregs.h"
#include "usdt_bpf.h"
#include "ustk.bpf.h"
#include "unw_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#if !defined(__TARGET_ARCH_arm64)
/* arm64 keeps the copy: nothing is walked there (../ustack_walk.c) */

struct super_block {
	__u32 s_dev;
} __attribute__((preserve_access_index));
struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));
struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));
struct vm_area_struct {
	unsigned long vm_start, vm_end;
	unsigned long vm_pgoff; /* the file's page at vm_start */
	struct file *vm_file;
} __attribute__((preserve_access_index));
/* a seqcount_t where the kernel has per-VMA locks and the count made
 * one (6.18); an int before that (6.4 on: bumped at unlock only), which
 * CO-RE does not match to this struct; none before 6.4 (Debian's 6.1):
 * then uvc keeps no checks (its frames only) and every walk checks */
struct mm_struct {
	struct {
		unsigned int sequence;
	} mm_lock_seq;
} __attribute__((preserve_access_index));
struct task_struct {
	__u64 self_exec_id;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

/* x86-64 struct pt_regs (usdt.bpf.c checks its offsets against uregs.h) */
struct ureg {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di,
		orig_ax, ip, cs, flags, sp, ss;
};

struct cgb {
	__u8 b[UBPF_SCRATCH + UBPF_USTKROOM];
	__u64 own; /* UBPF_CGOWN(1): the generated program's hold on it */
};

/* the generated programs' maps (the loader gives their fds) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgb);
} cgbuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* the wake-up rule, its map shared with the generated programs */
#include "rbwake.bpf.h"

/* the tables (../ustack_walk.c fills them) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UW_MAXROWS);
	__type(key, __u32);
	__type(value, struct uw_row);
} urows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UW_MAXPAGES);
	__type(key, __u32);
	__type(value, __u32);
} upages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UW_MAXSLOTS);
	__type(key, __u32);
	__type(value, struct uw_slot);
} umods SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UW_MAXSLOTS);
	__type(key, __u32);
	__type(value, struct uw_px);
} upx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} useen SEC(".maps");

/*
 * The frames a thread found before: what a pc's two searches gave (its
 * module and that module's row), by the slot filling and the pc, which
 * say it all -- a filling's modules are written before upx points at
 * it and never again (a slot reused is a new gen), a file's rows never
 * change while the run lasts -- so an entry is the searches' own
 * answer.  Direct-mapped (UW_RC entries, the pc's bits), filled only
 * where both searches found a row and the mapping was checked; gen 0
 * is no filling's (uw_px.gen starts at 1), so an entry never written
 * matches nothing.  Kept in the thread's uvc: only the thread's own
 * hits read and write it, one at a time (a per-CPU map would be shared
 * with another thread's program where a uprobe_multi program, run
 * with migration but not preemption off, is preempted mid-write).
 * walk() looks the thread's uvc up once and step() takes it from the
 * walk's state (struct walk's vc), not a look-up a frame.
 */
#define UW_RC 16
struct uw_rc {
	__u64 adj;
	__u32 gen, mi;
	struct uw_mod m;
	struct uw_row r;
};

/*
 * Per thread, the modules of its slot bpf_find_vma() found unchanged
 * while mm_lock_seq was seq (even): the bits of mask.  Reused by a
 * later hit of the thread only for the same slot filling (slot, gen,
 * xid) while mm_lock_seq still reads seq, and within 250 jiffies of t
 * (2.5 s at most, HZ 100; 2^31 write locks take minutes: the 32-bit
 * count cannot have come round).  And the frames it found (rc).  A
 * task's storage goes with it.
 */
struct uw_vc {
	struct uw_rc rc[UW_RC]; /* first: its address is the value's */
	__u64 t, xid;
	__u32 seq, mask, slot, gen;
	__u32 ci, pad; /* step()'s index into rc */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct uw_vc);
} uvc SEC(".maps");

/* the stack's first bytes, read once (8 more: a bounded 8-byte load);
 * o: rd()'s offset, passed through the map's memory (rd()).  Per CPU,
 * and only the walk holding cgbuf (its owner word) uses it */
struct blk {
	__u8 b[UW_BLK + 8];
	__u64 o;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blk);
} ublk SEC(".maps");

struct walk {
	struct uw_vc *vc; /* the thread's (walk()'s one look-up) */
	__u64 pc, sp, bp;
	__u64 sp0, lim; /* the copy would take [sp0, sp0 + lim) */
	__u32 blen;	/* ublk holds [sp0, sp0 + blen) */
	__u32 off;	/* the pcs' offset in cgbuf */
	__u32 slot, nmods, gen;
	__u32 vmask; /* modules bpf_find_vma() checked */
	__u32 n;     /* frames */
	__u32 bpok;  /* rbp is known */
	__u32 done;  /* the stack ended: the walk holds */
};

struct vma {
	__u64 start, end, ino, pgoff;
	__u32 dev, file;
};

static long vma_cb(struct task_struct *t, struct vm_area_struct *v, void *d)
{
	struct vma *g = d;
	struct file *f = v->vm_file;

	(void)t;
	g->start = v->vm_start;
	g->end = v->vm_end;
	if (f) {
		g->ino = f->f_inode->i_ino;
		g->dev = f->f_inode->i_sb->s_dev;
		g->pgoff = v->vm_pgoff;
		g->file = 1;
	}
	return 0;
}

/*
 * 8 bytes of the stack at a, only where the copy would have them.  The
 * offset into the block goes through the map's memory (k->o), the same
 * value back: the verifier then needs the mask's bound alone, not a
 * precise o, which it would trace back through a, sp0 and the CFA's
 * sums to the walk's registers in the caller's stack (w->sp, w->bp,
 * w->sp0, w->lim), and a precise register kept from one bpf_loop()
 * step to the next defeats the pruning of step()'s states: 158,090
 * instructions verified at each load on 6.18 (0.8-0.9 s), 24,239 (0.12
 * s) this way.
 */
static __always_inline int rd(struct walk *w, __u64 a, __u64 *v)
{
	__u64 o = a - w->sp0;
	__u32 z = 0;

	if (a < w->sp0 || o + 8 > w->lim)
		return -1;
	if (o + 8 <= w->blen) {
		struct blk *k = bpf_map_lookup_elem(&ublk, &z);

		if (!k)
			return -1;
		*(volatile __u64 *)&k->o = o;
		o = *(volatile __u64 *)&k->o;
		*v = *(__u64 *)(k->b + (o & (UW_BLK - 1)));
		return 0;
	}
	return bpf_probe_read_user(v, 8, (void *)a) < 0 ? -1 : 0;
}

/* the module holding a pc: entry i of the slot, one per bpf_loop() step */
struct modq {
	__u64 adj;
	__u32 slot, nmods, mi;
	struct uw_mod m;
};

static long mod_step(__u32 i, void *arg)
{
	struct modq *q = arg;
	struct uw_slot *s;

	if (i >= q->nmods || i >= UW_MAXMODS)
		return 1;
	s = bpf_map_lookup_elem(&umods, &q->slot);
	if (!s)
		return 1;
	barrier_var(i);
	i &= UW_MAXMODS - 1; /* the bound above, as the verifier sees it */
	if (q->adj < s->m[i].start || q->adj >= s->m[i].end)
		return 0;
	__builtin_memcpy(&q->m, &s->m[i], sizeof(q->m));
	q->mi = i;
	return 1;
}

/* the row at rel: the last of [lo, hi) at or below it, by halves */
struct rowq {
	__u64 rel;
	__u32 lo, hi;
};

static __always_inline long row_halve(struct rowq *q)
{
	__u32 mid;
	struct uw_row *r;

	if (q->lo + 1 >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	r = bpf_map_lookup_elem(&urows, &mid);
	if (!r) {
		q->hi = q->lo; /* not found: the walk gives up */
		return 1;
	}
	if (r->pc <= q->rel)
		q->lo = mid;
	else
		q->hi = mid;
	return 0;
}

static long row_step(__u32 i, void *arg)
{
	(void)i;
	return row_halve(arg);
}

/* mm_lock_seq, or 1 (odd: not to be relied on) where it is not a seqcount */
static __always_inline __u32 mm_seq(struct task_struct *t)
{
	if (bpf_core_field_exists(t->mm->mm_lock_seq.sequence)) {
		struct mm_struct *mm = t->mm;

		if (mm)
			return mm->mm_lock_seq.sequence;
	}
	return 1;
}

/*
 * Module mi found by bpf_find_vma() as the tables have it: for the
 * thread's next hits (walk()) while mm_lock_seq reads what walk() read
 * before the checks (a change since would have moved it).
 */
static __always_inline void vc_add(struct walk *w, __u32 mi)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 seq = mm_seq(t);
	struct uw_vc *vc;

	if (seq & 1)
		return; /* (and no checks kept at all on 6.1) */
	vc = bpf_task_storage_get(&uvc, t, 0, 0);
	if (vc && vc->slot == w->slot && vc->gen == w->gen && vc->seq == seq)
		vc->mask |= 1u << mi;
}

/*
 * Frame f: its pc recorded, the caller's registers found; 1 ends.  The
 * two searches are bpf_loop()s of their own, so the verifier sees each
 * step once, whichever module and row (unrolled, their branches
 * multiplied: 750,000 instructions verified, seconds at each start).
 * But the row search's first eight halvings are inline: a page's rows
 * are at most a few hundred, so the searches end there, and each
 * bpf_loop() step is an indirect call (a return thunk on this CPU);
 * eight halvings cost the verifier little (24,239 instructions in all
 * on 6.18.44, 15,706 with none).  And a pc found
 * before, by this thread in this slot filling, is not searched again:
 * its uw_rc gives the module and row (the same hit after hit at a probe, and
 * then the walk's cost is the stack's reads).
 */
static long step(__u32 f, void *arg)
{
	struct walk *w = arg;
	__u32 z = 0, lo, ci;
	struct cgb *b = bpf_map_lookup_elem(&cgbuf, &z);
	struct modq mq = {};
	struct rowq rq;
	struct uw_row *r, row;
	struct uw_rc *rc;
	struct uw_vc *vc;
	__u64 cfa, ra, bp;

	if (!b || f >= UW_MAXFR)
		return 1;
	*(__u64 *)(b->b + ((w->off + 8 * f) & (UBPF_SCRATCH - 1))) = w->pc;
	w->n = f + 1;
	/* libdwfl looks a caller's frame up at its return address - 1 */
	mq.adj = w->pc - (f ? 1 : 0);
	/* found before (uw_rc): the module and row the searches give */
	ci = (__u32)(mq.adj ^ (mq.adj >> 8)) & (UW_RC - 1);
	vc = w->vc;
	/* the index through the map's memory: its bound is then the
	 * mask's alone, no precision traced back to w->pc in the caller's
	 * stack (which meets a 6.18 verifier bug, "stack slot 18, total
	 * slots 12") */
	*(volatile __u32 *)&vc->ci = ci;
	ci = *(volatile __u32 *)&vc->ci & (UW_RC - 1);
	rc = &vc->rc[ci];
	if (rc->adj == mq.adj && rc->gen == w->gen && rc->mi < UW_MAXMODS) {
		mq.mi = rc->mi;
		__builtin_memcpy(&mq.m, &rc->m, sizeof(mq.m));
		__builtin_memcpy(&row, &rc->r, sizeof(row));
		rc = NULL; /* nothing to keep */
		goto found;
	}
	mq.slot = w->slot;
	mq.nmods = w->nmods;
	mq.mi = UW_MAXMODS;
	bpf_loop(UW_MAXMODS, mod_step, &mq, 0);
	if (mq.mi >= UW_MAXMODS)
		return 1;
	rq.rel = mq.adj - mq.m.bias;
	rq.lo = mq.m.lo;
	rq.hi = mq.m.hi;
	if (rq.rel >> 12 < (__u64)mq.m.npg - 1 && mq.m.npg) { /* a few rows */
		__u32 k = mq.m.pg + (__u32)(rq.rel >> 12), *p0, *p1;

		p0 = bpf_map_lookup_elem(&upages, &k);
		k++;
		p1 = bpf_map_lookup_elem(&upages, &k);
		if (!p0 || !p1)
			return 1;
		rq.lo = mq.m.lo + *p0;
		rq.hi = mq.m.lo + *p1 + 1;
	}
	if (!row_halve(&rq) && !row_halve(&rq) && !row_halve(&rq) &&
	    !row_halve(&rq) && !row_halve(&rq) && !row_halve(&rq) &&
	    !row_halve(&rq) && !row_halve(&rq))
		bpf_loop(UW_SEARCH, row_step, &rq, 0);
	lo = rq.lo;
	r = bpf_map_lookup_elem(&urows, &lo);
	if (rq.lo + 1 != rq.hi || !r || r->pc > rq.rel)
		return 1;
	__builtin_memcpy(&row, r, sizeof(row));
found:
	if (!(w->vmask & (1u << mq.mi))) {
		struct vma g = {};

		if (bpf_find_vma(bpf_get_current_task_btf(), mq.adj, vma_cb, &g,
				 0) ||
		    !g.file || g.start > mq.m.start || g.end < mq.m.end ||
		    g.ino != mq.m.ino || g.dev != mq.m.dev ||
		    g.pgoff + ((mq.m.start - g.start) >> 12) != mq.m.pgoff)
			return 1;
		w->vmask |= 1u << mq.mi;
		vc_add(w, mq.mi);
	}
	if (rc) { /* for the next hit at this pc (the mapping checked) */
		rc->adj = mq.adj;
		rc->mi = mq.mi;
		__builtin_memcpy(&rc->m, &mq.m, sizeof(rc->m));
		__builtin_memcpy(&rc->r, &row, sizeof(rc->r));
		rc->gen = w->gen;
	}
	r = &row;
	if (r->kind == UW_K_END) {
		w->done = 1;
		return 1;
	}
	if (r->kind == UW_K_SP)
		cfa = w->sp + (__s64)r->cfa;
	else if (r->kind == UW_K_BP && w->bpok)
		cfa = w->bp + (__s64)r->cfa;
	else
		return 1;
	if (rd(w, cfa - 8, &ra))
		return 1;
	if (r->bpk == UW_BP_AT) {
		if (rd(w, cfa + (__s64)r->bp, &bp))
			return 1;
		w->bp = bp;
		w->bpok = 1;
	} else if (r->bpk != UW_BP_SAME) {
		w->bpok = 0;
	}
	w->sp = cfa;
	w->pc = ra;
	if (!ra) { /* the end, with no frame for it */
		w->done = 1;
		return 1;
	}
	return 0;
}

/*
 * The stack walked from the hit's registers: the frames found (their
 * pcs in cgbuf at w->off), or 0 where the copy must give them.
 */
static __always_inline __u32 walk(struct walk *w, struct ureg *ctx,
				  struct blk *k, __u32 kib)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 xid = t->self_exec_id;
	__u32 want, first, n, seq;
	struct uw_px *px;
	struct uw_vc *vc;

	px = bpf_map_lookup_elem(&upx, &tgid);
	if (!px || px->xid != xid) { /* no tables of this image yet */
		bpf_map_update_elem(&useen, &tgid, &xid, BPF_ANY);
		return 0;
	}
	w->pc = ctx->ip;
	w->sp = w->sp0 = ctx->sp;
	w->bp = ctx->bp;
	w->bpok = 1;
	/* as much as the copy takes: to the end of rsp's page, then pages
	 * while fewer than kib KiB were taken (ustk_pages(), ustk.bpf.h) */
	want = kib * 1024;
	first = 4096 - (__u32)(w->sp & 4095);
	w->lim =
		first >= want ? want : first + ((want - first + 4095) & ~4095u);
	/* the block: UW_BLK bytes, into the next page where the copy
	 * would take it; where they cannot all be read, to the end of
	 * rsp's page (rsp near its page's end: each read past the block
	 * reads the stack itself, rd(), the same bytes but a helper call
	 * each, two a frame) */
	n = w->lim < UW_BLK ? (__u32)w->lim : UW_BLK;
	barrier_var(n);
	n &= 2047;
	if (n > UW_BLK)
		n = UW_BLK;
	if (bpf_probe_read_user(k->b, n, (void *)w->sp) == 0) {
		w->blen = n;
	} else if (n > first) {
		n = first;
		barrier_var(n);
		n &= 2047;
		if (n > UW_BLK)
			n = UW_BLK;
		if (bpf_probe_read_user(k->b, n, (void *)w->sp) == 0)
			w->blen = n;
	}
	w->slot = px->slot;
	w->nmods = px->nmods;
	w->gen = px->gen;
	/*
	 * The checks this thread made under the same mm_lock_seq: every
	 * change of the mappings (mmap, munmap, mprotect, mremap, brk) holds
	 * mmap_lock for writing, which makes the count odd when taken and
	 * even again when let go, so an even count read now as it was read
	 * before the checks means the same VMAs, the same files at the same
	 * addresses.  The count is read before the checks, so a change
	 * during them leaves a count that no longer matches.
	 */
	seq = mm_seq(t);
	vc = bpf_task_storage_get(&uvc, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	/*
	 * No storage for the thread (no memory, or the storage's lock
	 * busy on this CPU): the copy.  A walk without it would verify
	 * twice over (step()'s states with a NULL vc and with one: 24,239
	 * instructions, 16,107 this way).
	 */
	if (!vc)
		return 0;
	w->vc = vc; /* for step(): one look-up a walk, not one a frame */
	if (!(seq & 1)) {
		__u64 now = bpf_jiffies64();

		if (vc->seq == seq && vc->xid == xid &&
		    vc->slot == px->slot && vc->gen == px->gen &&
		    now - vc->t < 250) {
			w->vmask = vc->mask;
		} else { /* step() adds the modules it checks */
			vc->t = now;
			vc->xid = xid;
			vc->slot = px->slot;
			vc->gen = px->gen;
			vc->mask = 0;
			vc->seq = seq;
		}
	}
	bpf_loop(UW_MAXFR, step, w, 0);
	return w->done && w->n <= UW_MAXFR ? w->n : 0;
}

SEC("uprobe")
int ustack_walk(struct ureg *ctx)
{
	__u32 z = 0, off, kib, n, len;
	struct cgb *b = bpf_map_lookup_elem(&cgbuf, &z);
	struct blk *k = bpf_map_lookup_elem(&ublk, &z);
	struct walk w = {};
	struct rbw rw;
	__u64 *dp;
	__u16 *h;

	if (!b)
		return 0;
	if (!k)
		goto out;
	kib = *(__u32 *)(b->b + UW_KIB_OFF);
	off = (*(__u16 *)(b->b + 24) + 7u) & ~7u;
	if (off > UBPF_SCRATCH / 2 || !kib || kib > UBPF_USTKMAX / 1024)
		goto out; /* cannot be: cgen.c wrote both */
	barrier_var(off);
	off &= UBPF_SCRATCH - 8; /* the bound above, as the verifier sees it */
	{
		__u64 R[UBPF_R_IP + 1] = { ctx->ax,  ctx->dx,  ctx->cx,
					   ctx->bx,  ctx->si,  ctx->di,
					   ctx->bp,  ctx->sp,  ctx->r8,
					   ctx->r9,  ctx->r10, ctx->r11,
					   ctx->r12, ctx->r13, ctx->r14,
					   ctx->r15, ctx->ip };

		for (int i = 0; i <= UBPF_R_IP; i++)
			*(__u64 *)(b->b + off + 8 * i) = R[i];
	}
	w.off = off + 8 * (UBPF_R_IP + 1) + 8;
	h = (__u16 *)(b->b + 30);
	n = walk(&w, ctx, k, kib);
	if (n) { /* the pcs, where step() put them */
		n *= 8;
		*h |= UBPF_RF_USTACK | UBPF_RF_UPCS;
	} else {
		n = ustk_pages(b->b + off + 8 * (UBPF_R_IP + 1) + 8, ctx->sp,
			       kib * 1024);
		*h |= UBPF_RF_USTACK;
	}
	*(__u32 *)(b->b + off + 8 * (UBPF_R_IP + 1)) = n;
	*(__u32 *)(b->b + off + 8 * (UBPF_R_IP + 1) + 4) = 0;
	len = off + 8 * (UBPF_R_IP + 1) + 8 + n;
	*(__u16 *)(b->b + 24) = (__u16)len;
	barrier_var(len);
	len &= 32767; /* at most 4240 + 20480: a bound the verifier sees */
	/* the wake-up: one per position of the reader at half full */
	rbw_ask(&rw, len);
	if (bpf_ringbuf_output(&rb, b->b, len, rw.fl) < 0) {
		dp = bpf_map_lookup_elem(&drops, &z);
		if (dp)
			__sync_fetch_and_add(dp, 1);
	} else {
		rbw_done(&rw);
	}
out:
	/* the record is out: cgbuf is the next hit's on this CPU (the
	 * generated program that tail-called took it, cgen.c's
	 * own_need()) */
	b->own = 0;
	return 0;
}
#endif
