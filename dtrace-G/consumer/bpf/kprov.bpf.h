/* SPDX-License-Identifier: MIT */
/*
 * kprov.bpf.h - the kernel providers' programs (../kprov.c): part of
 * usdt.bpf.c, included after kagg.bpf.h, so they share its ring buffer
 * rb, its drops count, its scratch buffer and the kernel aggregation of
 * kagg.bpf.h.  The formats are kprov_bpf.h's.  The loader turns off
 * autoload for the programs a run does not use (../kprov.c), so a run
 * that only traces USDT probes loads what it loaded before.
 *
 *	kprov_sys_enter, kprov_sys_exit	raw tracepoints sys_enter and
 *		sys_exit (every system call of every thread): ksys[nr] says
 *		whether nr is traced; a 32-bit (compat) call, whose numbers
 *		are another table's, and dtrace's own calls are not
 *	kprov_sys_enter_tp, kprov_sys_exit_tp	the same on the tracepoints
 *		syscalls:sys_enter_NAME and sys_exit_NAME of a few calls
 *	kprov_profile	a perf_event program on the cpu-clock events of
 *		profile-N (bpf_cookie: the probe)
 *	kprov_exec, kprov_exit, kprov_create_raw	raw tracepoint
 *		programs on sched_process_exec, sched_process_exit and
 *		task_newtask (the probe: kconf's ck_*, a raw tracepoint
 *		having no bpf_cookie before 6.10); kprov_create, the
 *		tracepoint program on task_newtask's perf event (bpf_cookie:
 *		the probe) where the BTF does not say what create_raw needs
 *
 * Each builds a record as usdt_hit() does (kprov_emit()), or runs the
 * probe's plan first: a kernel probe's plan is kept in kplans under
 * (ev, pid 0), since the probe is every process's.  All of them are
 * "tracing" programs run with preemption off, one at a time per CPU, as
 * kagg.bpf.h requires.
 *
 * These are the generic programs, a run's when DTRACE_CGEN=0 or when
 * its kernel probes' clauses do not fit a generated program
 * (../cgen_kprov.c's kprov_cg_fits(): the effective ids, the
 * session).  Otherwise the run's programs are generated from its
 * clauses (../cgen_kprov.c, with each provider's prologue in its file)
 * and this object is not loaded at all.  What they do there, the same
 * as here:
 *
 *	profile-N, proc, a syscall probe on its call's own tracepoint:
 *		a program per probe, on its perf event (proc: its raw
 *		tracepoint), the probe's ev an immediate (no cookie read);
 *	syscall on the raw tracepoints (a glob over many calls,
 *		../kprov_syscall.c): per direction a dispatcher, attached to
 *		sys_enter or sys_exit, that ends a compat task's call and a
 *		number past UBPF_KSYS_MAX as kprov_sys_enter() and
 *		kprov_sys_exit() do, then tail-calls the number's program in
 *		a prog array (no program: the firing ends, as an empty ksys
 *		entry does here).  The calls' programs are shared where their
 *		code is the same: where a direction has more than one probe,
 *		each program reads which probe hit at the hit (its ev and D
 *		id, from the identity map indexed by the number, as ksys[nr]
 *		says it here; ../cgen_kprov.c's kp_ident()), so the code differs
 *		only where the clauses do, and identical code is loaded once
 *		(../bpf_cg.c): syscall:::entry with one clause loads one
 *		program for it, not one per call.
 *
 * Registers.  A raw tracepoint's arguments are the tracepoint's: for
 * sys_enter (struct pt_regs *, long nr), for sys_exit (struct pt_regs *,
 * long ret); the registers are kernel memory, read with
 * bpf_probe_read_kernel().  x86-64 passes a system call's arguments in
 * rdi, rsi, rdx, r10, r8, r9; on the way out the number is in orig_ax.
 * arm64 passes them in x0-x5 (struct ureg's regs[0..5]) and keeps the
 * number in pt_regs' syscallno, past struct user_pt_regs (KP_A64_*
 * below); its raw tracepoints run for a compat (AArch32) task's calls
 * too, which pstate's PSR_MODE32_BIT tells.  A profile tick's mode is
 * x86-64's cs & 3, arm64's pstate (EL0 where its M[3:0] is 0; an
 * AArch32 task's have PSR_MODE32_BIT: no stack is taken for them).
 *
 * User stacks.  A probe whose clauses read the stack (ksys's ustk, or
 * the cookie's bits above UBPF_KCOOKIE_USTK_SHIFT) has its record carry
 * the user registers and stack as usdt_hit() does (ustack_copy()).  The
 * registers are those of the thread's user mode: sys_enter's and
 * sys_exit's pt_regs; a profile tick's own when it interrupted user
 * mode (by cs or pstate); else those the kernel saved on entry at the
 * top of the thread's kernel stack (bpf_task_pt_regs(), 5.15, which
 * needs the kernel's BTF: none without it, kprov_btf): a per-call
 * tracepoint's,
 * a tick in the kernel, the proc probes' (exec-success: the new
 * image's entry; exit: the exit_group() call, whose memory is gone by
 * then, so the copy is empty and only the registers' frame remains).
 * A kernel thread's saved registers are not user mode's: its record
 * has no stack.  arm64's 33 registers are in the per-CPU uregs_buf
 * (UREGS(), as a USDT hit's: on the BPF stack they would pass the
 * verifier's 512 bytes; owned while filled and read, and taken only
 * where a clause reads the stack, UREGS_IF(): found taken, the hit is
 * a drop), read from struct user_pt_regs as they lie,
 * which is the order uregs.h numbers them in.  The generated programs
 * read them from the same places (../cgen_ustk.c's kp_uregs()): change one,
 * change both.
 */
#ifndef KPROV_BPF_BPF_H
#define KPROV_BPF_BPF_H

#include "kprov_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UBPF_KSYS_MAX);
	__type(key, __u32);
	__type(value, struct ubpf_ksys);
} ksys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ubpf_kconf);
} kconf SEC(".maps");

/*
 * Set by the loader when the kernel has BTF (../bpf.c): without it the
 * verifier refuses bpf_get_current_task_btf(), so kprov_task_uregs()
 * must not reach it; a constant of the frozen .rodata, its branch is
 * dead code the verifier does not walk.
 */
const volatile __u32 kprov_btf = 0;

#define KP_NARGS 6		/* arguments a kernel probe records, at most */
#define KP_USER32_CS 0x23	/* x86-64 __USER32_CS: a compat task */
/*
 * arm64's struct pt_regs (arch/arm64/include/asm/ptrace.h, the same
 * from 5.x to 6.18) from pstate, the end of struct user_pt_regs, at
 * KP_A64_PSTATE: orig_x0, then the call's number, an s32 (little-endian:
 * the low half of its word).
 */
#define KP_A64_PSTATE UREG_A64_PSTATE_OFF
#define KP_A64_SYSCALLNO 280
#define KP_A64_MODE32 0x10 /* PSR_MODE32_BIT: an AArch32 (compat) task */
struct kp_a64_tail {
	__u64 pstate, orig_x0;
	__s32 syscallno;
	__u32 unused2;
};
_Static_assert(__builtin_offsetof(struct kp_a64_tail, syscallno) ==
		       KP_A64_SYSCALLNO - KP_A64_PSTATE,
	       "arm64 pt_regs: syscallno 16 bytes after pstate");

/*
 * The current thread's parent process, when kconf knows where it is; *pp
 * its task (0 where not read: no chain follows).
 */
static __always_inline __u32 kprov_ppid(__u64 *pp)
{
	__u32 zero = 0, tgid = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	__u64 task = bpf_get_current_task(), parent = 0;

	*pp = 0;
	if (!k || !k->task_real_parent || !k->task_tgid)
		return 0;
	if (bpf_probe_read_kernel(&parent, sizeof(parent),
				  (const void *)(task + k->task_real_parent -
						 1)) < 0 ||
	    !parent)
		return 0;
	if (bpf_probe_read_kernel(&tgid, sizeof(tgid),
				  (const void *)(parent + k->task_tgid - 1)) <
	    0)
		return 0;
	*pp = parent;
	return tgid;
}

/*
 * progenyof()'s chain (anc_on, usdt.bpf.c's anc_rec()) at off: its
 * links; their count and state in x's pad.  A record whose ppid was not
 * read (pp 0) has none (pad 0).
 */
static __always_inline __u32 kprov_anc(struct scratch *s, __u32 off,
				       struct ubpf_kctx *x, __u64 pp)
{
	__u32 zero = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	struct ubpf_anc an;

	if (!anc_on || !pp || !k || off > UBPF_SCRATCH / 2 - 4 * UBPF_ANC)
		return off;
	off = anc_rec(s, off, pp, x->ppid, k->task_real_parent, k->task_tgid,
		      &an);
	__builtin_memcpy(&x->pad, &an, sizeof(an));
	return off;
}

/* The plan of kernel probe ev, if it has one (kagg_hit()'s sense). */
static __always_inline int kprov_kagg(__u32 ev, __u64 pt, const __u64 *args)
{
	struct ubpf_kplan_key pk = {ev, 0};
	const struct ubpf_kplan *pl = bpf_map_lookup_elem(&kplans, &pk);
	struct kctx kc;
	struct kvm *vm;
	__u32 zero = 0, i;

	if (!pl)
		return -1;
	vm = bpf_map_lookup_elem(&kvm_buf, &zero);
	if (!vm)
		return -1;
	if (!scratch_take(&vm->own)) /* a plan halfway on this CPU */
		return 0;
	for (i = 0; i < UBPF_MAXARGS; i++)
		vm->args[i] = i < KP_NARGS ? args[i] : 0;
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

/*
 * R: the registers of the current thread's user mode, saved when it
 * entered the kernel; false for a kernel thread (no user mode).
 */
#if defined(__TARGET_ARCH_arm64)
static __always_inline int kprov_task_uregs(__u64 *R)
{
	__u64 p, pstate = 0;

	if (!kprov_btf || !R)
		return 0;
	p = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	/* struct user_pt_regs is our order (uregs.h): read as it is */
	if (!p ||
	    bpf_probe_read_kernel(&pstate, sizeof(pstate),
				  (const void *)(p + KP_A64_PSTATE)) < 0 ||
	    (pstate & (UREG_A64_MODE_MASK | KP_A64_MODE32)) ||
	    bpf_probe_read_kernel(R, 8 * UBPF_NREG, (const void *)p) < 0)
		return 0;
	return 1;
}
#else
static __always_inline int kprov_task_uregs(__u64 *R)
{
	struct ureg r;
	__u64 p;

	if (!kprov_btf)
		return 0;
	p = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!p || bpf_probe_read_kernel(&r, sizeof(r), (const void *)p) < 0 ||
	    (r.cs & 3) != 3 || r.cs == KP_USER32_CS)
		return 0;
	regs_load(R, &r);
	return 1;
}
#endif

/*
 * One hit of kernel probe ev: its plan, then (unless the plan was all)
 * its record: struct ubpf_rec, struct ubpf_kctx, nargs arguments, the
 * vtimestamp, progenyof()'s chain (kprov_anc()), the effective ids, the process
 * group and session and the argument area where the run reads them, the strings
 * of strmask, and where ustk (KiB) is set and R (the user registers) is not
 * NULL, the user stack.
 */
static __always_inline void kprov_emit(__u32 ev, __u64 pt, const __u64 *args,
				       __u32 nargs, __u16 strmask, __u8 comm,
				       const __u64 *R, __u8 ustk)
{
	__u32 zero = 0, off, i;
	struct scratch *s = bpf_map_lookup_elem(&buf, &zero);
	struct ubpf_rec *h;
	struct ubpf_kctx *x;
	__u64 *a, ug, *dp, pp;
	struct rbw rw;
	int k;

	if (!s)
		return;
	k = kprov_kagg(ev, pt, args);
	if (!k)
		return; /* every clause ran in the kernel */
	if (!scratch_take(&s->own)) /* a record halfway on this CPU */
		return;
	h = (struct ubpf_rec *)s->b;
	h->time = bpf_ktime_get_ns();
	h->pid = (__u32)(pt >> 32);
	h->tid = (__u32)pt;
	h->cpu = bpf_get_smp_processor_id();
	h->ev = ev;
	if (nargs > KP_NARGS)
		nargs = KP_NARGS;
	h->nargs = (__u16)nargs;
	h->strmask = strmask;
	h->flags = k > 0 ? UBPF_RF_KAGG : 0;
	if (comm)
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	else
		__builtin_memset(h->comm, 0, sizeof(h->comm));
	x = (struct ubpf_kctx *)(s->b + sizeof(*h));
	ug = bpf_get_current_uid_gid();
	x->uid = (__u32)ug;
	x->gid = (__u32)(ug >> 32);
	x->ppid = kprov_ppid(&pp);
	x->pad = 0;
	a = (__u64 *)(s->b + sizeof(*h) + sizeof(*x));
	for (i = 0; i < KP_NARGS; i++) {
		if (i >= nargs)
			break;
		a[i] = args[i];
	}
	off = sizeof(*h) + sizeof(*x) + 8 * nargs;
	if (vtime_on) /* the thread's on-CPU time (vtime.bpf.h) */
		off = vtime_rec(s, off, h);
	off = kprov_anc(s, off, x, pp); /* progenyof()'s chain */
	if (ecred_cred) /* one reads pr_euid or pr_egid (usdt.bpf.c) */
		off = ecred_rec(s, off, h);
	if (sess_sig) /* one reads pr_pgid or pr_sid */
		off = sess_rec(s, off, h);
	if (psargs_mm) /* a clause reads pr_psargs (usdt.bpf.c) */
		off = psargs_rec(s, off, h);
	for (i = 0; i < KP_NARGS; i++) {
		__u16 *lp;
		long n;

		if (!(strmask & (1u << i)))
			continue;
		off &= UBPF_SCRATCH / 2 - 1;
		lp = (__u16 *)(s->b + off);
		n = bpf_probe_read_user_str(s->b + off + 2, UBPF_STRMAX,
					    (const void *)args[i]);
		if (n < 0)
			n = 0;
		*lp = (__u16)n;
		off += 2 + (__u32)n;
	}
	off &= UBPF_SCRATCH / 2 - 1;
	if (ustk && R) {
		off = ustack_copy(s, off, R, ustk);
		h->flags |= UBPF_RF_USTACK;
	}
	h->len = (__u16)off;
	if (off < sizeof(*h) + sizeof(*x))
		goto out;
	rbw_ask(&rw, off); /* the wake-up: usdt.bpf.c's (rbwake.bpf.h) */
	if (bpf_ringbuf_output(&rb, s->b, off, rw.fl) < 0) {
		dp = bpf_map_lookup_elem(&drops, &zero);
		if (dp)
			__sync_fetch_and_add(dp, 1);
	} else {
		rbw_done(&rw);
	}
out:
	s->own = 0;
}

/* ------------------------------------------------------------------ */
/* syscall */

/* ksys[nr] of a 64-bit system call some clause traces, else NULL */
static __always_inline const struct ubpf_ksys *kprov_sys(long nr, __u64 pt)
{
	__u32 k = (__u32)nr;
	const struct ubpf_ksys *s;

	if (nr < 0 || nr >= UBPF_KSYS_MAX)
		return 0;
	s = bpf_map_lookup_elem(&ksys, &k);
	if (!s || (__u32)(pt >> 32) == self_pid)
		return 0;
	return s;
}

#if defined(__TARGET_ARCH_arm64)
SEC("raw_tp")
int kprov_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	const struct ubpf_ksys *s = kprov_sys((long)ctx->args[1], pt);
	const void *regs = (const void *)ctx->args[0];
	__u64 a[KP_NARGS], pstate;
	int ur;

	if (!s || !s->ev[0])
		return 0;
	if (bpf_probe_read_kernel(&pstate, sizeof(pstate),
				  regs + KP_A64_PSTATE) < 0 ||
	    (pstate & KP_A64_MODE32) ||
	    bpf_probe_read_kernel(a, sizeof(a), regs) < 0)
		return 0;
	if (s->ustk[0]) { /* the call's pt_regs: user mode's, our order */
		UREGS(R);

		if (!R) /* halfway on this CPU: a drop (UREGS()) */
			return 0;
		ur = bpf_probe_read_kernel(R, 8 * UBPF_NREG, regs) == 0;
		kprov_emit(s->ev[0], pt, a, KP_NARGS, s->strmask, s->comm[0],
			   ur ? R : 0, s->ustk[0]);
		return 0;
	}
	kprov_emit(s->ev[0], pt, a, KP_NARGS, s->strmask, s->comm[0], 0, 0);
	return 0;
}

SEC("raw_tp")
int kprov_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct kp_a64_tail t;
	const struct ubpf_ksys *s;
	const void *regs = (const void *)ctx->args[0];
	__u64 a[KP_NARGS] = {};

	if (bpf_probe_read_kernel(&t, sizeof(t), regs + KP_A64_PSTATE) < 0 ||
	    (t.pstate & KP_A64_MODE32))
		return 0;
	s = kprov_sys(t.syscallno, pt);
	if (!s || !s->ev[1])
		return 0;
	a[0] = a[1] = ctx->args[1]; /* the return value, twice (DTrace) */
	if (s->ustk[1]) {
		UREGS(R);
		int ur;

		if (!R) /* halfway on this CPU: a drop (UREGS()) */
			return 0;
		ur = bpf_probe_read_kernel(R, 8 * UBPF_NREG, regs) == 0;
		kprov_emit(s->ev[1], pt, a, 2, 0, s->comm[1], ur ? R : 0,
			   s->ustk[1]);
		return 0;
	}
	kprov_emit(s->ev[1], pt, a, 2, 0, s->comm[1], 0, 0);
	return 0;
}
#else
SEC("raw_tp")
int kprov_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	const struct ubpf_ksys *s = kprov_sys((long)ctx->args[1], pt);
	struct ureg r;
	__u64 a[KP_NARGS], R[UBPF_R_IP + 1];

	if (!s || !s->ev[0])
		return 0;
	if (bpf_probe_read_kernel(&r, sizeof(r),
				  (const void *)ctx->args[0]) < 0 ||
	    r.cs == KP_USER32_CS)
		return 0;
	a[0] = r.di;
	a[1] = r.si;
	a[2] = r.dx;
	a[3] = r.r10;
	a[4] = r.r8;
	a[5] = r.r9;
	if (s->ustk[0])
		regs_load(R, &r);
	kprov_emit(s->ev[0], pt, a, KP_NARGS, s->strmask, s->comm[0], R,
		   s->ustk[0]);
	return 0;
}

SEC("raw_tp")
int kprov_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct {
		__u64 orig_ax, ip, cs;
	} t;
	const struct ubpf_ksys *s;
	__u64 a[KP_NARGS] = {0}, R[UBPF_R_IP + 1];
	int ur = 0;

	if (bpf_probe_read_kernel(&t, sizeof(t),
				  (const void *)(ctx->args[0] +
						 __builtin_offsetof(struct ureg,
								    orig_ax))) <
		    0 ||
	    t.cs == KP_USER32_CS)
		return 0;
	s = kprov_sys((long)t.orig_ax, pt);
	if (!s || !s->ev[1])
		return 0;
	a[0] = a[1] = ctx->args[1]; /* the return value, twice (DTrace) */
	if (s->ustk[1]) {
		struct ureg r;

		ur = bpf_probe_read_kernel(&r, sizeof(r),
					   (const void *)ctx->args[0]) == 0;
		if (ur)
			regs_load(R, &r);
	}
	kprov_emit(s->ev[1], pt, a, 2, 0, s->comm[1], ur ? R : 0, s->ustk[1]);
	return 0;
}
#endif

/*
 * The same on the per-system-call tracepoints syscalls:sys_enter_NAME
 * and sys_exit_NAME, for a run that traces a few calls (kprov_syscall.c
 * says why): the context is what the kernel passes a tracepoint
 * program there, laid out as the tracepoint's format says (the call's
 * number at 8, then its arguments or return value); the kernel skips a
 * compat task's calls itself.
 */
struct ksys_enter_tp {
	__u64 common;
	__s32 nr; /* an int (the format's); the 4 bytes after it are not set */
	__u32 pad;
	__u64 args[KP_NARGS];
};

struct ksys_exit_tp {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

SEC("tp")
int kprov_sys_enter_tp(struct ksys_enter_tp *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	const struct ubpf_ksys *s = kprov_sys(ctx->nr, pt);
	__u64 a[KP_NARGS] = {0};
	__u32 i;
	int ur;

	if (!s || !s->ev[0])
		return 0;
	UREGS_IF(R, s->ustk[0]);
	if (s->ustk[0] && !R) /* halfway on this CPU: a drop (UREGS()) */
		return 0;
	/*
	 * The kernel refuses a program that reads the context past the
	 * call's own arguments (its record is that long), and the rest of
	 * the six it passes are not set: copied, then zeroed past nargs.
	 */
	bpf_probe_read_kernel(a, sizeof(a), ctx->args);
	for (i = 0; i < KP_NARGS; i++)
		if (i >= s->nargs)
			a[i] = 0;
	ur = s->ustk[0] && kprov_task_uregs(R);
	kprov_emit(s->ev[0], pt, a, KP_NARGS, s->strmask, s->comm[0],
		   ur ? R : 0, s->ustk[0]);
	return 0;
}

SEC("tp")
int kprov_sys_exit_tp(struct ksys_exit_tp *ctx)
{
	__u64 pt = bpf_get_current_pid_tgid();
	const struct ubpf_ksys *s = kprov_sys(ctx->nr, pt);
	__u64 a[KP_NARGS] = {0};
	int ur;

	if (!s || !s->ev[1])
		return 0;
	UREGS_IF(R, s->ustk[1]);
	if (s->ustk[1] && !R) /* halfway on this CPU: a drop (UREGS()) */
		return 0;
	a[0] = a[1] = (__u64)ctx->ret;
	ur = s->ustk[1] && kprov_task_uregs(R);
	kprov_emit(s->ev[1], pt, a, 2, 0, s->comm[1], ur ? R : 0, s->ustk[1]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* profile */

/* struct bpf_perf_event_data: the machine's user registers first
 * (struct ureg, uregs.h: pt_regs on x86-64, user_pt_regs on arm64) */
struct kperf_ctx {
	struct ureg regs;
	__u64 sample_period;
	__u64 addr;
};

#if defined(__TARGET_ARCH_arm64)
SEC("perf_event")
int kprov_profile(struct kperf_ctx *ctx)
{
	__u64 ck = bpf_get_attach_cookie(ctx);
	__u64 a[KP_NARGS] = {}, pc = ctx->regs.pc, ps = ctx->regs.pstate;
	__u8 ustk = (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT);
	int ur = 0;

	/* arg0 the kernel's PC, arg1 the user's (EL0): the other is 0 */
	if (ps & UREG_A64_MODE_MASK)
		a[0] = pc;
	else
		a[1] = pc;
	if (ustk) { /* the interrupted user mode's, or the saved one */
		UREGS(R);

		if (!R) /* halfway on this CPU: a drop (UREGS()) */
			return 0;
		if (!(ps & UREG_A64_MODE_MASK)) {
			if (!(ps & KP_A64_MODE32)) {
				regs_load(R, &ctx->regs);
				ur = 1;
			}
		} else {
			ur = kprov_task_uregs(R);
		}
		kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 2, 0, 1,
			   ur ? R : 0, ustk);
		return 0;
	}
	kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 2, 0, 1, 0, 0);
	return 0;
}
#else
SEC("perf_event")
int kprov_profile(struct kperf_ctx *ctx)
{
	__u64 ck = bpf_get_attach_cookie(ctx);
	__u64 a[KP_NARGS] = {0}, ip = ctx->regs.ip, R[UBPF_R_IP + 1];
	__u8 ustk = (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT);
	int ur = 0;

	/* arg0 the kernel's PC, arg1 the user's: the other is 0 */
	if (ctx->regs.cs & 3)
		a[1] = ip;
	else
		a[0] = ip;
	if (ustk) { /* the interrupted user mode's, or the saved one */
		if (ctx->regs.cs & 3) {
			if (ctx->regs.cs != KP_USER32_CS) {
				regs_load(R, &ctx->regs);
				ur = 1;
			}
		} else {
			ur = kprov_task_uregs(R);
		}
	}
	kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 2, 0, 1,
		   ur ? R : 0, ustk);
	return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* proc */

/* A field of a tracepoint's record at kconf's offset (+1), or 0. */
static __always_inline __u64 kprov_tpfield(const void *ctx, __u32 off1,
					   __u32 size)
{
	__u64 v = 0;

	if (off1 && size <= sizeof(v))
		bpf_probe_read_kernel(&v, size, (const char *)ctx + off1 - 1);
	return v;
}

/* The cookie's stack size (KiB): non-zero where a clause reads it */
#define KPROV_CK_USTK(ck) ((__u8)((ck) >> UBPF_KCOOKIE_USTK_SHIFT))

/* The cookie's user stack: R filled, or 0 (none asked, or none). */
static __always_inline const __u64 *kprov_ck_uregs(__u64 ck, __u64 *R)
{
	if (!KPROV_CK_USTK(ck) || !kprov_task_uregs(R))
		return 0;
	return R;
}

/*
 * The proc probes' raw tracepoints pass TP_PROTO's arguments:
 * sched_process_exec (task, old_pid, bprm), sched_process_exit (task,
 * and group_dead from 6.16: kconf's exit_raw_gd), task_newtask (task,
 * clone_flags).  A program that reads past the arguments the running
 * kernel passes is refused at attach, so exit reads group_dead with
 * bpf_probe_read_kernel(), only where there is one.
 */
SEC("raw_tp")
int kprov_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	__u64 a[KP_NARGS] = {0};
	__u64 ck;

	(void)ctx;
	if (!k || !k->ck_exec)
		return 0;
	ck = k->ck_exec;
	UREGS_IF(R, KPROV_CK_USTK(ck));
	if (KPROV_CK_USTK(ck) && !R) /* halfway on this CPU: a drop */
		return 0;
	kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 0, 0, 1,
		   kprov_ck_uregs(ck, R), (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT));
	return 0;
}

SEC("raw_tp")
int kprov_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	__u64 pt = bpf_get_current_pid_tgid(), task = bpf_get_current_task();
	__u64 a[KP_NARGS] = {0};
	__u64 ck, gd = 0;
	int code = 0;

	if (!k || !k->task_exit_code || !k->ck_exit)
		return 0;
	ck = k->ck_exit;
	/*
	 * The process's exit is its last thread's (group_dead); a kernel
	 * whose tracepoint does not pass it gets the exit of the thread
	 * whose id is the process's.
	 */
	if (k->exit_raw_gd)
		bpf_probe_read_kernel(&gd, sizeof(gd), &ctx->args[1]);
	if (k->exit_raw_gd ? !(gd & 0xff) : (__u32)pt != (__u32)(pt >> 32))
		return 0;
	bpf_probe_read_kernel(&code, sizeof(code),
			      (const void *)(task + k->task_exit_code - 1));
	a[0] = !(code & 0x7f)  ? KP_CLD_EXITED
	       : (code & 0x80) ? KP_CLD_DUMPED
			       : KP_CLD_KILLED;
	UREGS_IF(R, KPROV_CK_USTK(ck));
	if (KPROV_CK_USTK(ck) && !R) /* halfway on this CPU: a drop */
		return 0;
	kprov_emit((__u32)ck, pt, a, 1, 0, 1, kprov_ck_uregs(ck, R),
		   (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT));
	return 0;
}

SEC("raw_tp")
int kprov_create_raw(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	__u64 a[KP_NARGS] = {0};
	__u64 ck;
	__s32 pid = 0;

	if (!k || !k->task_pid || !k->ck_create ||
	    (ctx->args[1] & KP_CLONE_THREAD))
		return 0; /* a thread, not a process */
	ck = k->ck_create;
	bpf_probe_read_kernel(&pid, sizeof(pid),
			      (const void *)(ctx->args[0] + k->task_pid - 1));
	a[0] = (__u64)(__s64)pid;
	UREGS_IF(R, KPROV_CK_USTK(ck));
	if (KPROV_CK_USTK(ck) && !R) /* halfway on this CPU: a drop */
		return 0;
	kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 1, 0, 1,
		   kprov_ck_uregs(ck, R), (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT));
	return 0;
}

/* create on task_newtask's perf event: its record's fields */
SEC("tp")
int kprov_create(void *ctx)
{
	__u32 zero = 0;
	const struct ubpf_kconf *k = bpf_map_lookup_elem(&kconf, &zero);
	__u64 a[KP_NARGS] = {0};
	__u64 ck = bpf_get_attach_cookie(ctx);

	if (!k || !k->newtask_pid || !k->newtask_flags ||
	    (kprov_tpfield(ctx, k->newtask_flags, 8) & KP_CLONE_THREAD))
		return 0; /* a thread, not a process */
	a[0] = (__u64)(__s64)(__s32)kprov_tpfield(ctx, k->newtask_pid, 4);
	UREGS_IF(R, KPROV_CK_USTK(ck));
	if (KPROV_CK_USTK(ck) && !R) /* halfway on this CPU: a drop */
		return 0;
	kprov_emit((__u32)ck, bpf_get_current_pid_tgid(), a, 1, 0, 1,
		   kprov_ck_uregs(ck, R), (__u8)(ck >> UBPF_KCOOKIE_USTK_SHIFT));
	return 0;
}

#endif /* KPROV_BPF_BPF_H */
