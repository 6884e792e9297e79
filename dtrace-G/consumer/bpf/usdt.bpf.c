// SPDX-License-Identifier: MIT
/*
 * usdt.bpf.c - the BPF program the consumer's bpf backend (../bpf.c)
 * attaches to every uprobe event of a run, built with clang -target bpf
 * and embedded in dtrace.  It needs no kernel headers beyond the UAPI:
 * <linux/bpf.h> and libbpf's <bpf/bpf_helpers.h>.
 *
 * The kernel runs it on each hit of a site, in the thread that hit it,
 * before the perf events of the uprobe event would get a sample; it
 * returns 0, so none does.  Its bpf_cookie is the event's index: the
 * event's entry in evspec says where the site's arguments are (stapsdt
 * argument specs turned into register, memory at register + offset, or
 * constant, with size and sign), which of them point to strings the D
 * program reads with copyinstr(), and whether execname is read.  The
 * record (usdt_bpf.h) is built in a per-CPU scratch buffer and written
 * to the ring buffer in one bpf_ringbuf_output(), which wakes the reader
 * only once the buffer is half full (it reads every switchrate anyway),
 * and then once per position of the reader, not per record
 * (rbwake.bpf.h);
 * when the ring buffer is full the hit is counted in drops, per CPU, so
 * the consumer reports exactly what it lost.  The scratch, a plan's
 * (kagg.bpf.h's kvm_buf) and arm64's copy of the registers (uregs_buf,
 * UREGS()) are owned while in use (scratch_take()): a program that
 * interrupts another on its CPU (profile-N's in a uprobe's) finds them
 * taken and counts a drop.  Hits in dtrace itself
 * (self_pid, see ../bpf.c) are not recorded.  Clauses that only
 * aggregate integers run here instead, when the event's process has a
 * plan (kagg.bpf.h); a hit whose clauses all did so writes no record.
 * The kernel providers' programs (syscall, profile, proc) are in the
 * same object and write the same ring buffer (kprov.bpf.h).
 * A clause that reads ustack() has the record carry the user registers
 * and a copy of the stack (ustack_copy()), which dtrace unwinds; one
 * that reads vtimestamp, the thread's on-CPU time (vtime.bpf.h); one
 * that reads uid or gid, the thread's real ids (cred_rec()); one that
 * reads curpsinfo->pr_psargs, the process's argument area (psargs_rec());
 * one that reads pr_euid or pr_egid, the effective ids (ecred_rec());
 * one that reads ppid, the parent's pid (ppid_rec()); one that reads
 * pr_pgid or pr_sid, the process group and session (sess_rec()).
 * A run whose program calls copyout() or copyoutstr() (-w) loads
 * usdt_hit_w, which writes the bytes at the hit (bpf_probe_write_user():
 * a literal's, or those it reads just before at an argument's address)
 * and flags the
 * record so that the clause, run later in dtrace, faults where the
 * write did; no other run's program holds that helper.  Where that
 * cannot be (a locked-down kernel, a form it cannot write), a -c/-p run
 * stops the thread at the hit instead (hold_thread(): a signal only its
 * tracer, ../dlhold.c, sees), and dtrace runs the clause, writes, and
 * lets it go (UBPF_RF_HELD).
 *
 * Verification.  Every run without a generated program loads this one,
 * so its verifier cost is start-up: branches whose states differ only
 * in bounds the verifier need not know multiply its walk.  The record's
 * offset is passed through map memory where it would carry such bounds
 * into the string loop (rec_off()), and a run's optional parts are
 * gated on .rodata constants the verifier prunes (vtime_on, mem_on,
 * ustk_on, hold_thread()'s offsets: a count()'s generic program
 * verified 28,431 instructions with the stack's copy, copyin()'s and the
 * hold, 18,655 without).  The work done per
 * argument and per string, and a direct plan's operator and bucket,
 * are in global functions (BPF-to-BPF calls: ubpf_arg_fetch(),
 * ubpf_args(), ubpf_strs(), kagg.bpf.h's ubpf_kalu() and
 * ubpf_kbucket()), which the verifier checks once each, on their own,
 * taking a call as one that returns any value: inlined, each of their
 * branches went on as a state of its own through the rest of the
 * caller (usdt_hit 66,665 instructions verified, 12,048 so).  Their
 * pointer arguments are NULL to the verifier until tested, and carry
 * only scalars.  The strings are copied under bpf_loop(), whose
 * callback is verified as one pass, not twelve; only a record with
 * strings runs it.  Stack: Debian 6.1's verifier allows 512 bytes to a
 * chain of frames, each rounded up to 32 (at least 32), and the
 * largest programs' own frames (usdt_hit_w, kprov.bpf.h's) take 448,
 * so no call goes deeper than two frames of 32 or one callback of 64
 * (kagg.bpf.h's kstep()): the callbacks call no global function but
 * inline what they need (arg_of_in(), kbucket_in()), as a callback is
 * verified as one pass anyway.
 *
 * Registers.  For a uprobe the program's context is the thread's
 * struct pt_regs (struct ureg below), and the instruction pointer is the
 * probed instruction.  The object is compiled for the machine dtrace
 * runs on (make passes -D__TARGET_ARCH_arm64 on aarch64): x86-64's
 * pt_regs is the ptrace layout; arm64's starts with struct
 * user_pt_regs, x0-x30, sp, pc, the order uregs.h numbers them in.
 * The kernel providers' programs (kprov.bpf.h) read each machine's
 * system call and interrupted registers.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "uregs.h"
#include "usdt_bpf.h"
#include "ustk.bpf.h"


char LICENSE[] SEC("license") = "GPL";

/* dtrace's own pid, set by the loader: its hits are not traced */
const volatile __u32 self_pid = 0;

/*
 * 0 where no clause of the run copies an argument's bytes (copyin()) or
 * reads ustack(), set by the loader: the verifier prunes those parts
 * (Verification above); an event's memmask and ustk are then 0 too
 */
const volatile __u32 mem_on = 1, ustk_on = 1;

#if !defined(__TARGET_ARCH_arm64)
/* x86-64 struct pt_regs (its offsets: uregs.h, checked below) */
struct ureg {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si,
		di, orig_ax, ip, cs, flags, sp, ss;
};
#else
/* arm64 struct pt_regs, its first part (struct user_pt_regs) */
struct ureg {
	__u64 regs[31], sp, pc, pstate;
};
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UBPF_MAXEV);
	__type(key, __u32);
	__type(value, struct ubpf_ev);
} evspec SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 21); /* set by the loader */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* when a record wakes the reader (kprov.bpf.h's too) */
#include "rbwake.bpf.h"

/*
 * copyout() with the thread held at its probe: the tracer's map
 * (../dlhold.c, which the loader gives this one's place; 1 entry in a
 * run without it), a thread's UBPF_HOLD_* by tid, and the offsets + 1
 * in task_struct of sighand and blocked, and of SIGURG's handler in
 * sighand_struct (0: unknown, nothing held)
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} hold SEC(".maps");

const volatile __u32 hold_sighand = 0, hold_blocked = 0, hold_handler = 0;

/*
 * The thread stopped at this hit, as ../dlhold.c stops one in dlopen():
 * SIGURG sent to it (a signal-delivery-stop its tracer sees before the
 * thread runs another instruction, swallowed on resume), only where
 * dtrace has seized it and the signal, were dtrace to die, would do
 * nothing (its action the default, ignore, or SIG_IGN, not blocked).
 * Its map entry (UBPF_HOLD_CO) when it was, else NULL: not held, the
 * clause's copyout() faults.
 */
static __always_inline __u32 *hold_thread(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 *v;
	__u64 t, sh = 0, h = 2, bl = 1;

	/* first: a run that holds none (0s) has the verifier prune it all */
	if (!hold_sighand || !hold_blocked || !hold_handler)
		return 0;
	v = bpf_map_lookup_elem(&hold, &tid);
	if (!v || *v != UBPF_HOLD_SEIZED)
		return 0;
	t = bpf_get_current_task();
	if (bpf_probe_read_kernel(&sh, 8, (void *)(t + hold_sighand - 1)) ||
	    !sh ||
	    bpf_probe_read_kernel(&h, 8, (void *)(sh + hold_handler - 1)) ||
	    h > 1 ||
	    bpf_probe_read_kernel(&bl, 8, (void *)(t + hold_blocked - 1)) ||
	    (bl & (1ULL << (UBPF_SIGURG - 1))))
		return 0;
	*v = UBPF_HOLD_CO;
	if (bpf_send_signal_thread(UBPF_SIGURG)) {
		*v = UBPF_HOLD_SEIZED;
		return 0;
	}
	return v;
}

struct scratch {
	__u8 b[UBPF_SCRATCH + UBPF_USTKROOM];
	__u64 own; /* scratch_take()'s */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} buf SEC(".maps");

/*
 * A per-CPU scratch (buf, kagg.bpf.h's kvm_buf) is the CPU's, not the
 * program run's: a profile-N program interrupts a uprobe's on its CPU,
 * and a preemptible kernel lets another thread's hit run there while a
 * uprobe program is halfway (doc/DESIGN.md "Programs that nest on a
 * CPU").  Its owner word, own: 1 when taken here, which the caller
 * gives back (a store of 0) on every path after; 0 when it was taken
 * already, the hit then counted in drops and not run, never written
 * over another's record or plan.
 */
static __always_inline int scratch_take(__u64 *own)
{
	__u32 zero = 0;
	__u64 *dp;

	if (!__sync_val_compare_and_swap(own, 0, 1))
		return 1;
	dp = bpf_map_lookup_elem(&drops, &zero);
	if (dp)
		__sync_fetch_and_add(dp, 1);
	return 0;
}

/*
 * One 8-byte load at a constant offset from r, written in assembly: in
 * C, clang merges a switch's loads into one through a computed pointer,
 * or hoists the addresses out of a loop, and the verifier refuses a
 * context access through a modified pointer.
 */
#define UCTX_S_(x) #x
#define UCTX_S(x) UCTX_S_(x) /* the offset's value, not its name */
#define UCTX(r, off)                                                    \
	({                                                              \
		__u64 v_;                                               \
		asm volatile("%0 = *(u64 *)(%1 + " UCTX_S(off) ")"             \
			     : "=r"(v_)                                 \
			     : "r"(r));                                 \
		v_;                                                     \
	})

/*
 * The registers a spec may name, copied out of the context once with
 * constant offsets (the verifier refuses a context load whose offset
 * the compiler computed), indexed by UBPF_R_*: for a hit that writes a
 * record or runs a plan's instructions.
 */
#if !defined(__TARGET_ARCH_arm64)
static __always_inline void regs_load(__u64 *R, const struct ureg *r)
{
	R[UBPF_R_AX] = r->ax;
	R[UBPF_R_DX] = r->dx;
	R[UBPF_R_CX] = r->cx;
	R[UBPF_R_BX] = r->bx;
	R[UBPF_R_SI] = r->si;
	R[UBPF_R_DI] = r->di;
	R[UBPF_R_BP] = r->bp;
	R[UBPF_R_SP] = r->sp;
	R[UBPF_R_R8] = r->r8;
	R[UBPF_R_R9] = r->r9;
	R[UBPF_R_R10] = r->r10;
	R[UBPF_R_R11] = r->r11;
	R[UBPF_R_R12] = r->r12;
	R[UBPF_R_R13] = r->r13;
	R[UBPF_R_R14] = r->r14;
	R[UBPF_R_R15] = r->r15;
	R[UBPF_R_IP] = r->ip;
}
#else
/* x0-x30, sp, pc: register n at 8 * n (uregs.h) */
#define UREG_A64_EACH(X)                                                    \
	X(0, 0) X(1, 8) X(2, 16) X(3, 24) X(4, 32) X(5, 40) X(6, 48)       \
	X(7, 56) X(8, 64) X(9, 72) X(10, 80) X(11, 88) X(12, 96)           \
	X(13, 104) X(14, 112) X(15, 120) X(16, 128) X(17, 136) X(18, 144)  \
	X(19, 152) X(20, 160) X(21, 168) X(22, 176) X(23, 184) X(24, 192)  \
	X(25, 200) X(26, 208) X(27, 216) X(28, 224) X(29, 232) X(30, 240)  \
	X(31, 248) X(32, 256)

static __always_inline void regs_load(__u64 *R, const struct ureg *r)
{
#define UREG_LOAD(n, off) R[n] = UCTX(r, off);
	UREG_A64_EACH(UREG_LOAD)
#undef UREG_LOAD
}
#endif

/*
 * Room for a hit's copy of the registers (UREGS(R) declares R): on the
 * stack for x86-64's 17; arm64's 33 (264 bytes) with the rest of a
 * hit's frame would pass the verifier's 512 bytes of stack, so there
 * they are in a per-CPU array, uregs_buf.  That room is the CPU's, as
 * buf is (scratch_take()): another task's uprobe or tracepoint program
 * run while a preempted uprobe's is halfway would write its registers
 * over those the first is reading its arguments and stack from (a
 * profile-N sample in a uprobe's program copies the same thread's,
 * saved at the breakpoint: the same bytes).  So it has an owner word:
 * UREGS(R) takes it (R is NULL when it was taken already, the hit then
 * counted in drops, and the caller does nothing more) and gives it
 * back when R goes out of scope (the cleanup attribute: every return
 * and goto out of R's block).  UREGS_IF(R, want) takes it only where
 * want is true, for a program whose hits need the registers only for a
 * stack (R NULL where not wanted too: the caller tests want && !R).
 */
struct uregs_room {
	__u64 r[UBPF_NREG];
};

#if defined(__TARGET_ARCH_arm64)

struct uregs_cpu {
	struct uregs_room u; /* first: R points at it and at the struct */
	__u64 own;	     /* scratch_take()'s */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uregs_cpu);
} uregs_buf SEC(".maps");

static __always_inline __u64 *uregs_take(void)
{
	__u32 zero = 0;
	struct uregs_cpu *u = bpf_map_lookup_elem(&uregs_buf, &zero);

	return u && scratch_take(&u->own) ? u->u.r : 0;
}

static __always_inline void uregs_give(__u64 **R)
{
	if (*R)
		((struct uregs_cpu *)*R)->own = 0;
}
#define UREGS_IF(R, want)                                               \
	__u64 *R __attribute__((cleanup(uregs_give))) =                   \
		(want) ? uregs_take() : 0
#define UREGS(R) UREGS_IF(R, 1)
#else
#define UREGS(R) struct uregs_room R##_room; __u64 *R = R##_room.r
#define UREGS_IF(R, want) UREGS(R)
#endif

static __always_inline __u64 reg_of(const __u64 *R, __u8 n)
{
	return n <= UBPF_R_IP ? R[n] : 0;
}

/*
 * Register n of the context, read where a spec names it, for a plan
 * run straight-line (kagg_direct()): it reads only the registers its
 * arguments need.  Each case is one load at a constant offset (UCTX).
 */
#if !defined(__TARGET_ARCH_arm64)
static __always_inline __u64 reg_ctx(const struct ureg *r, __u8 n)
{
	switch (n) {
	case UBPF_R_AX: return UCTX(r, UREG_X86_64_AX);
	case UBPF_R_DX: return UCTX(r, UREG_X86_64_DX);
	case UBPF_R_CX: return UCTX(r, UREG_X86_64_CX);
	case UBPF_R_BX: return UCTX(r, UREG_X86_64_BX);
	case UBPF_R_SI: return UCTX(r, UREG_X86_64_SI);
	case UBPF_R_DI: return UCTX(r, UREG_X86_64_DI);
	case UBPF_R_BP: return UCTX(r, UREG_X86_64_BP);
	case UBPF_R_SP: return UCTX(r, UREG_X86_64_SP_OFF);
	case UBPF_R_R8: return UCTX(r, UREG_X86_64_R8);
	case UBPF_R_R9: return UCTX(r, UREG_X86_64_R9);
	case UBPF_R_R10: return UCTX(r, UREG_X86_64_R10);
	case UBPF_R_R11: return UCTX(r, UREG_X86_64_R11);
	case UBPF_R_R12: return UCTX(r, UREG_X86_64_R12);
	case UBPF_R_R13: return UCTX(r, UREG_X86_64_R13);
	case UBPF_R_R14: return UCTX(r, UREG_X86_64_R14);
	case UBPF_R_R15: return UCTX(r, UREG_X86_64_R15);
	case UBPF_R_IP: return UCTX(r, UREG_X86_64_IP_OFF);
	}
	return 0;
}

_Static_assert(__builtin_offsetof(struct ureg, ax) == UREG_X86_64_AX &&
		       __builtin_offsetof(struct ureg, dx) == UREG_X86_64_DX &&
		       __builtin_offsetof(struct ureg, cx) == UREG_X86_64_CX &&
		       __builtin_offsetof(struct ureg, bx) == UREG_X86_64_BX &&
		       __builtin_offsetof(struct ureg, si) == UREG_X86_64_SI &&
		       __builtin_offsetof(struct ureg, di) == UREG_X86_64_DI &&
		       __builtin_offsetof(struct ureg, bp) == UREG_X86_64_BP &&
		       __builtin_offsetof(struct ureg, sp) ==
			       UREG_X86_64_SP_OFF &&
		       __builtin_offsetof(struct ureg, r8) == UREG_X86_64_R8 &&
		       __builtin_offsetof(struct ureg, r9) == UREG_X86_64_R9 &&
		       __builtin_offsetof(struct ureg, r10) == UREG_X86_64_R10 &&
		       __builtin_offsetof(struct ureg, r11) == UREG_X86_64_R11 &&
		       __builtin_offsetof(struct ureg, r12) == UREG_X86_64_R12 &&
		       __builtin_offsetof(struct ureg, r13) == UREG_X86_64_R13 &&
		       __builtin_offsetof(struct ureg, r14) == UREG_X86_64_R14 &&
		       __builtin_offsetof(struct ureg, r15) == UREG_X86_64_R15 &&
		       __builtin_offsetof(struct ureg, ip) == UREG_X86_64_IP_OFF,
	       "struct ureg is x86-64's struct pt_regs (bpf/uregs.h)");
#else
static __always_inline __u64 reg_ctx(const struct ureg *r, __u8 n)
{
	switch (n) {
#define UREG_CASE(n, off)                                                \
	case n:                                                          \
		return UCTX(r, off);
		UREG_A64_EACH(UREG_CASE)
#undef UREG_CASE
	}
	return 0;
}

_Static_assert(__builtin_offsetof(struct ureg, sp) == 8 * UREG_A64_SP &&
		       __builtin_offsetof(struct ureg, pc) == 8 * UREG_A64_IP,
	       "struct ureg is arm64's struct user_pt_regs (bpf/uregs.h)");
#endif

/* Truncate to the argument's size, extending its sign. */
static __always_inline __u64 sized(__u64 v, __u8 size, __u8 sgn)
{
	switch (size) {
	case 1: return sgn ? (__u64)(__s64)(__s8)v : (__u8)v;
	case 2: return sgn ? (__u64)(__s64)(__s16)v : (__u16)v;
	case 4: return sgn ? (__u64)(__s64)(__s32)v : (__u32)v;
	}
	return v;
}

/*
 * An argument of kind, size and sign, at off (MEM: from the register,
 * which holds reg; CONST: the value).  Scalars, so that kfix.bpf.h can
 * pass the constants of its .rodata and the verifier drops the cases.
 */
static __always_inline __u64 arg_fetch_s(__u64 reg, __u8 kind, __u8 size,
					 __u8 sgn, __s64 off)
{
	__u64 v = 0;

	switch (kind) {
	case UBPF_A_REG:
		v = reg;
		break;
	case UBPF_A_REGHI:
		return (reg >> 8) & 0xff;
	case UBPF_A_MEM: {
		const void *p = (const void *)(reg + off);

		switch (size) {
		case 1: bpf_probe_read_user(&v, 1, p); break;
		case 2: bpf_probe_read_user(&v, 2, p); break;
		case 4: bpf_probe_read_user(&v, 4, p); break;
		default: bpf_probe_read_user(&v, 8, p); break;
		}
		break;
	}
	case UBPF_A_CONST:
		v = (__u64)off;
		break;
	default:
		return 0;
	}
	return sized(v, size, sgn);
}

/*
 * arg_fetch_s() as a global function (a BPF-to-BPF call): the verifier
 * checks its body once, on its own, and each call site as one call
 * returning any value, where inlined its kind, size and sign branches
 * multiplied the states of every loop it was in.  kfix.bpf.h keeps the
 * inlined one, whose .rodata constants the verifier prunes.
 */
__attribute__((noinline)) __u64 ubpf_arg_fetch(__u64 reg, __u32 kind,
						__u32 size, __u32 sgn,
						__s64 off)
{
	return arg_fetch_s(reg, (__u8)kind, (__u8)size, (__u8)sgn, off);
}

/* Argument a, whose register (a->reg) holds reg. */
static __always_inline __u64 arg_fetch(__u64 reg, const struct ubpf_arg *a)
{
	return ubpf_arg_fetch(reg, a->kind, a->size, a->sgn, a->off);
}

static __always_inline __u64 arg_of(const __u64 *R, const struct ubpf_arg *a)
{
	return arg_fetch(reg_of(R, a->reg), a);
}

/*
 * arg_of() with arg_fetch_s() inlined, for a bpf_loop() callback, which
 * may not call a global function on 6.1 (the chain of frames would pass
 * its 512 bytes: kagg.bpf.h's kbucket_in()) and is verified as one pass.
 */
static __always_inline __u64 arg_of_in(const __u64 *R,
				       const struct ubpf_arg *a)
{
	return arg_fetch_s(reg_of(R, a->reg), a->kind, a->size, a->sgn,
			   a->off);
}

static __always_inline __u64 arg_ctx(const struct ureg *r,
				     const struct ubpf_arg *a)
{
	return arg_fetch(a->kind == UBPF_A_CONST ? 0 : reg_ctx(r, a->reg), a);
}

/* a hit's arguments, as the record and a plan's run hold them */
struct uargv {
	__u64 v[UBPF_MAXARGS];
};

/*
 * Arguments 0 to n - 1 of the event e, read from the registers R, into
 * out; with rest, 0 in the others.  A global function (as
 * ubpf_arg_fetch()): the verifier checks its loop once, not once per
 * caller and per state the caller is in.  Its pointers may be NULL to
 * the verifier, which checks it alone.
 */
__attribute__((noinline)) int ubpf_args(struct uargv *out,
					const struct uregs_room *R,
					const struct ubpf_ev *e, __u32 n,
					__u32 rest)
{
	__u32 i;

	if (!out || !R || !e)
		return 0;
	for (i = 0; i < UBPF_MAXARGS; i++) {
		if (i < n)
			out->v[i] = arg_of(R->r, &e->a[i]);
		else if (rest)
			out->v[i] = 0;
		else
			break;
	}
	return 0;
}

#include "kagg.bpf.h"
#include "kfix.bpf.h"
#include "vtime.bpf.h"

/*
 * The user stack for ustack() (usdt_bpf.h's layout): the registers R,
 * then a copy of the stack from rsp, up to the end of rsp's page and
 * then a page at a time while fewer than kib KiB were taken and the
 * next page reads: the stack's top is where a read first fails.  The
 * result is the record's length.
 */
static __always_inline __u32 ustack_copy(struct scratch *s, __u32 off,
					 const __u64 *R, __u8 kib)
{
	__u64 sp = R[UBPF_R_SP];
	__u32 want = (__u32)kib * 1024, got, i, *lenp;
	__u8 *dst;

	off = (off + 7) & ~7u;
	if (off > UBPF_SCRATCH / 2)
		return 0; /* cannot be: the strings end below */
	for (i = 0; i <= UBPF_R_IP; i++)
		*(__u64 *)(s->b + off + 8 * i) = R[i];
	off += 8 * (UBPF_R_IP + 1);
	lenp = (__u32 *)(s->b + off);
	off += 8;
	dst = s->b + off;
	got = ustk_pages(dst, sp, want);
	lenp[0] = got;
	lenp[1] = 0;
	return off + got;
}

/*
 * One hit; vt (a constant): the record carries the thread's on-CPU time
 * (vtime.bpf.h).  usdt_hit() and usdt_hit_vt() are its two programs,
 * so a run without vtimestamp loads the code it loaded before.
 */
/*
 * The firing thread's real uid and gid, as bpf_get_current_uid_gid()
 * has them in the initial user namespace (DTrace's uid is the real one),
 * at off; the record flagged UBPF_RF_CRED.  The offset after them.
 */
static __always_inline __u32 cred_rec(struct scratch *s, __u32 off,
				      struct ubpf_rec *h)
{
	__u64 ug = bpf_get_current_uid_gid();

	if (off > UBPF_SCRATCH / 2 - 8)
		return off;
	*(__u32 *)(s->b + off) = (__u32)ug;
	*(__u32 *)(s->b + off + 4) = (__u32)(ug >> 32);
	h->flags |= UBPF_RF_CRED;
	return off + 8;
}

/*
 * Set by the loader (../bpf.c, from ../psargs.c): the offsets + 1 of
 * task_struct's mm and mm_struct's arg_start and arg_end, from the
 * kernel's BTF; 0 while a run reads no pr_psargs.
 */
const volatile __u32 psargs_mm = 0, psargs_as = 0, psargs_ae = 0;

/*
 * The first UBPF_PSARGS bytes of the current process's argument area
 * (its argv strings, each ending in a NUL, as exec laid them out and
 * as the process may have rewritten them since), at off with a 2-byte
 * length before them; the record flagged UBPF_RF_PSARGS.  Nothing, and
 * no flag, when there is no area to read (no mm: a kernel thread, a
 * task past exit_mm(); an empty one, arg_end not above arg_start) or
 * its read faults.
 */
static __always_inline __u32 psargs_rec(struct scratch *s, __u32 off,
					struct ubpf_rec *h)
{
	__u64 task = bpf_get_current_task(), mm = 0, as = 0, ae = 0;
	__u32 n;
	__u16 *lp;

	if (!psargs_mm || !psargs_as || !psargs_ae)
		return off;
	if (bpf_probe_read_kernel(&mm, 8, (void *)(task + psargs_mm - 1)) ||
	    !mm ||
	    bpf_probe_read_kernel(&as, 8, (void *)(mm + psargs_as - 1)) ||
	    bpf_probe_read_kernel(&ae, 8, (void *)(mm + psargs_ae - 1)) ||
	    ae <= as)
		return off;
	n = ae - as > UBPF_PSARGS ? UBPF_PSARGS : (__u32)(ae - as);
	off &= UBPF_SCRATCH / 2 - 1;
	lp = (__u16 *)(s->b + off);
	if (n < 1 || n > UBPF_PSARGS ||
	    bpf_probe_read_user(s->b + off + 2, n, (const void *)as))
		return off;
	*lp = (__u16)n;
	h->flags |= UBPF_RF_PSARGS;
	return off + 2 + n;
}

/*
 * Set by the loader (../bpf.c, from ../psargs.c): the offsets + 1 of
 * task_struct's real_parent and tgid; 0 while a run reads no ppid.
 */
const volatile __u32 ppid_rp = 0, ppid_tgid = 0;
/* Set by the loader (../bpf.c): a clause calls progenyof() (D_NEED_ANC),
 * so a record's ppid comes with the chain of parents (anc_rec()). */
const volatile __u32 anc_on = 0;

/*
 * progenyof()'s chain (usdt_bpf.h's UBPF_ANC): the links after A[0] =
 * a, the tgid of task p, walked through real_parent at rp - 1 and tgid at
 * tg - 1, written at off on (u32 each, padded to 8), their count and the
 * chain's state in *an; the offset past them.  off is at most
 * UBPF_SCRATCH / 2 - 4 * UBPF_ANC (the callers' room checks).
 */
static __always_inline __u32 anc_rec(struct scratch *s, __u32 off, __u64 p,
				     __u32 a, __u32 rp, __u32 tg,
				     struct ubpf_anc *an)
{
	__u32 i, o;

	an->n = 0;
	an->state = a ? UBPF_ANC_CUT : UBPF_ANC_FULL;
	off &= UBPF_SCRATCH / 2 - 1;
	for (i = 1; a && i < UBPF_ANC; i++) {
		__u64 q = 0;
		__u32 t = 0;

		if (bpf_probe_read_kernel(&q, 8, (const void *)(p + rp - 1)) ||
		    !q ||
		    bpf_probe_read_kernel(&t, 4, (const void *)(q + tg - 1)))
			break; /* cut */
		o = (off + 4 * (i - 1)) & (UBPF_SCRATCH / 2 - 1);
		*(__u32 *)(s->b + o) = t;
		an->n = (__u16)i;
		if (!t) {
			an->state = UBPF_ANC_FULL;
			break;
		}
		p = q;
	}
	if (an->n & 1) { /* the padding */
		o = (off + 4 * (__u32)an->n) & (UBPF_SCRATCH / 2 - 1);
		*(__u32 *)(s->b + o) = 0;
	}
	return off + UBPF_ANC_BYTES(an->n);
}

/*
 * The firing thread's parent process's pid (real_parent's tgid: the
 * reaper's once the parent has exited), at off with 4 zero bytes, or
 * with anc_on the chain after it (anc_rec()); the record flagged
 * UBPF_RF_PPID.  Nothing, and no flag, when it cannot be
 * read.
 */
static __always_inline __u32 ppid_rec(struct scratch *s, __u32 off,
				      struct ubpf_rec *h)
{
	__u64 task = bpf_get_current_task(), parent = 0;
	__u32 tgid = 0;

	if (!ppid_rp || !ppid_tgid ||
	    off > UBPF_SCRATCH / 2 - 8 - (anc_on ? 4 * UBPF_ANC : 0))
		return off;
	if (bpf_probe_read_kernel(&parent, 8, (void *)(task + ppid_rp - 1)) ||
	    !parent ||
	    bpf_probe_read_kernel(&tgid, 4, (void *)(parent + ppid_tgid - 1)))
		return off;
	*(__u32 *)(s->b + off) = tgid;
	*(__u32 *)(s->b + off + 4) = 0;
	h->flags |= UBPF_RF_PPID;
	if (anc_on) {
		struct ubpf_anc an;
		__u32 at = off & (UBPF_SCRATCH / 2 - 1);

		off = anc_rec(s, at + 8, parent, tgid, ppid_rp, ppid_tgid, &an);
		*(struct ubpf_anc *)(s->b + at + 4) = an;
		return off;
	}
	return off + 8;
}

/*
 * Set by the loader (../bpf.c, from ../psargs.c): the offsets + 1 of
 * task_struct's signal, signal_struct's pids, struct pid's numbers and
 * struct upid's nr; 0 while a run reads neither pr_pgid nor pr_sid.
 */
const volatile __u32 sess_sig = 0, sess_pids = 0, sess_nums = 0,
		     sess_nr = 0;

/* the kernel's enum pid_type (4.19 on): the slots of signal->pids */
#define SESS_PGID 2
#define SESS_SID 3

/* The global id (level 0) of the struct pid at signal->pids[type]. */
static __always_inline int sess_id(__u64 sig, int type, __u32 *id)
{
	__u64 pid = 0;

	if (bpf_probe_read_kernel(&pid, 8,
				  (void *)(sig + sess_pids - 1 + 8 * type)) ||
	    !pid)
		return -1;
	return bpf_probe_read_kernel(id, 4,
				     (void *)(pid + sess_nums - 1 + sess_nr -
					      1))
		       ? -1
		       : 0;
}

/*
 * The process group's and session's ids of the firing process, 4 bytes
 * each, at off; the record flagged UBPF_RF_SESS.  Nothing, and no flag,
 * when they cannot be read.
 */
static __always_inline __u32 sess_rec(struct scratch *s, __u32 off,
				      struct ubpf_rec *h)
{
	__u64 task = bpf_get_current_task(), sig = 0;
	__u32 pg = 0, sd = 0;

	if (!sess_sig || !sess_pids || !sess_nums || !sess_nr ||
	    off > UBPF_SCRATCH / 2 - 8)
		return off;
	if (bpf_probe_read_kernel(&sig, 8, (void *)(task + sess_sig - 1)) ||
	    !sig || sess_id(sig, SESS_PGID, &pg) || sess_id(sig, SESS_SID, &sd))
		return off;
	*(__u32 *)(s->b + off) = pg;
	*(__u32 *)(s->b + off + 4) = sd;
	h->flags |= UBPF_RF_SESS;
	return off + 8;
}

/*
 * Set by the loader (../bpf.c, from ../psargs.c): the offsets + 1 of
 * task_struct's cred (the effective credentials) and struct cred's
 * euid and egid; 0 while a run reads neither.
 */
const volatile __u32 ecred_cred = 0, ecred_euid = 0, ecred_egid = 0;

/*
 * The firing thread's effective uid and gid (the kernel's kuid_t and
 * kgid_t, the ids of the initial namespace, as bpf_get_current_uid_gid()
 * gives the real ones), at off; the record flagged UBPF_RF_ECRED.
 * Nothing, and no flag, when they cannot be read.
 */
static __always_inline __u32 ecred_rec(struct scratch *s, __u32 off,
				       struct ubpf_rec *h)
{
	__u64 task = bpf_get_current_task(), cred = 0;
	__u32 eu = 0, eg = 0;

	if (!ecred_cred || !ecred_euid || !ecred_egid ||
	    off > UBPF_SCRATCH / 2 - 8)
		return off;
	if (bpf_probe_read_kernel(&cred, 8,
				  (void *)(task + ecred_cred - 1)) ||
	    !cred ||
	    bpf_probe_read_kernel(&eu, 4, (void *)(cred + ecred_euid - 1)) ||
	    bpf_probe_read_kernel(&eg, 4, (void *)(cred + ecred_egid - 1)))
		return off;
	*(__u32 *)(s->b + off) = eu;
	*(__u32 *)(s->b + off + 4) = eg;
	h->flags |= UBPF_RF_ECRED;
	return off + 8;
}

/*
 * off, passed through the record's len (written again at the end), so
 * the verifier sees it as any 16-bit value: it tracks the bounds of
 * registers and of the stack, not of map memory.  Without it, off's
 * bounds after each string copy differed with the copies taken before
 * (and with the registers clang kept it in), the string loop's states
 * never matched, and the verifier walked its 12 iterations once per
 * such history: 328,562 instructions for usdt_hit, 80% of them in
 * that loop (66,700 with it).  Every use of off masks it first.
 */
static __always_inline __u32 rec_off(struct ubpf_rec *h, __u32 off)
{
	*(volatile __u16 *)&h->len = (__u16)off;
	return *(volatile __u16 *)&h->len;
}

/* ubpf_strs()'s loop: the record's scratch, the registers, the event's
 * spec and the offset of the next string */
struct ustrs {
	struct scratch *s;
	const struct uregs_room *R;
	const struct ubpf_ev *e;
	__u32 off;
};

/* The string at argument i, if strmask names it (bpf_loop()'s callback) */
static long ustr_one(__u64 i, void *ctx)
{
	struct ustrs *c = ctx;
	struct scratch *s = c->s;
	const struct ubpf_ev *e = c->e;
	__u32 off = c->off;
	__u16 *lp;
	long n;

	if (i >= UBPF_MAXARGS)
		return 1;
	if (!(e->strmask & (1u << i)))
		return 0;
	off &= UBPF_SCRATCH / 2 - 1;
	lp = (__u16 *)(s->b + off);
	n = bpf_probe_read_user_str(s->b + off + 2, UBPF_STRMAX,
				    (const void *)arg_of_in(c->R->r, &e->a[i]));
	if (n < 0)
		n = 0;
	*lp = (__u16)n;
	off += 2 + (__u32)n;
	c->off = rec_off((struct ubpf_rec *)s->b, off);
	return 0;
}

/*
 * The strings at the arguments of e's strmask, in argument order, each
 * at off with a 2-byte length before it (0 bytes where the read
 * faults), read from the registers R; the offset after them.  A global
 * function (as ubpf_args()), its loop under bpf_loop(): the callback is
 * verified as one pass, where the unrolled loop's 12 copies were each
 * walked with the strmask bit set and clear.
 */
__attribute__((noinline)) __u32 ubpf_strs(struct scratch *s, __u32 off,
					  const struct uregs_room *R,
					  const struct ubpf_ev *e)
{
	struct ustrs c;

	if (!s || !R || !e)
		return off;
	c.s = s;
	c.R = R;
	c.e = e;
	c.off = off;
	bpf_loop(UBPF_MAXARGS, ustr_one, &c, 0);
	return c.off;
}

static __always_inline int usdt_fire(struct ureg *ctx, const int vt,
				     const int wr)
{
	__u32 ev, zero = 0;
	const struct ubpf_ev *e;
	__u64 pt, *dp;
	struct scratch *s;
	struct ubpf_rec *h;
	__u64 *args;
	__u32 off, nargs;
	__u32 *hv = 0;
	struct rbw rw;
	int k;

	if (kfix_hit(ctx))
		return 0; /* the run's one plan ran (kfix.bpf.h) */
	ev = (__u32)bpf_get_attach_cookie(ctx);
	e = bpf_map_lookup_elem(&evspec, &ev);
	pt = bpf_get_current_pid_tgid();
	if (!e || (__u32)(pt >> 32) == self_pid)
		return 0;
	k = kagg_hit(ev, pt, e, ctx);
	if (!k)
		return 0; /* every clause ran in the kernel */
	s = bpf_map_lookup_elem(&buf, &zero);
	if (!s || !scratch_take(&s->own))
		return 0;
	UREGS(R);
	if (!R) /* arm64's room halfway on this CPU: a drop (UREGS()) */
		goto out;
	regs_load(R, ctx);
	h = (struct ubpf_rec *)s->b;
	h->time = bpf_ktime_get_ns();
	h->pid = (__u32)(pt >> 32);
	h->tid = (__u32)pt;
	h->cpu = bpf_get_smp_processor_id();
	h->ev = ev;
	nargs = e->nargs;
	if (nargs > UBPF_MAXARGS)
		nargs = UBPF_MAXARGS;
	h->nargs = (__u16)nargs;
	h->strmask = e->strmask;
	h->flags = k > 0 ? UBPF_RF_KAGG : 0;
	if (e->comm)
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	else
		__builtin_memset(h->comm, 0, sizeof(h->comm));
	args = (__u64 *)(s->b + sizeof(*h));
	ubpf_args((struct uargv *)args, (const struct uregs_room *)R, e,
		  nargs, 0);
	off = sizeof(*h) + 8 * nargs;
	if (vt) /* the thread's on-CPU time (vtime.bpf.h) */
		off = vtime_rec(s, off, h);
	if (e->cred)
		off = cred_rec(s, off, h);
	if (e->ppid)
		off = ppid_rec(s, off, h);
	if (e->ecred)
		off = ecred_rec(s, off, h);
	if (e->sess)
		off = sess_rec(s, off, h);
	if (e->psargs)
		off = psargs_rec(s, off, h);
	off = rec_off(h, off);
	if (e->strmask)
		off = ubpf_strs(s, off, (const struct uregs_room *)R, e);
	/*
	 * copyin(argN, size) of one argument (bpf.c's ev_mem() picks it):
	 * straight-line code.  A loop over every argument, unrolled or
	 * under bpf_loop(), made the verifier walk four to five times the
	 * instructions of the whole program (its load went from 0.2 to
	 * 0.8 s here, and to minutes in check-kmod's emulated guest).  The
	 * address is the argument already in the record.
	 */
	if (mem_on && e->memmask) {
		__u32 a = e->memarg, n = 0;
		__u16 *lp;

		barrier_var(a);
		a &= 15;
		off &= UBPF_SCRATCH / 2 - 1;
		lp = (__u16 *)(s->b + off);
		if (a < UBPF_MAXARGS && a < nargs)
			n = e->memlen[a];
		barrier_var(n); /* as in ustack_copy(): keep the bound */
		n &= 511;
		if (n > UBPF_MEMMAX)
			n = UBPF_MEMMAX;
		if (n && bpf_probe_read_user(s->b + off + 2, n,
					     (const void *)args[a]) < 0)
			n = 0;
		*lp = (__u16)n;
		off += 2 + n;
	}
	off &= UBPF_SCRATCH / 2 - 1;
	if (ustk_on && e->ustk) {
		off = ustack_copy(s, off, R, e->ustk);
		h->flags |= UBPF_RF_USTACK;
	}
	/*
	 * copyout(), copyoutstr() (-w): DTrace writes before the probe
	 * returns, so here, after the copies above (a program that writes
	 * reads none of the process's memory but the write's source:
	 * d_prog_copyout()).  The kernel warns once that a program writes
	 * user memory.
	 */
	if (wr && e->wlen) {
		__u32 a = e->warg, n = e->wlen, sa = e->wsrc, rn = e->wrlen;
		long got = UBPF_WMAX;
		char w[UBPF_WMAX];

		/* from the stack: 6.1's verifier refused e->wbytes as the
		 * source ("R2 min value is outside of the allowed memory
		 * range") */
		__builtin_memcpy(w, e->wbytes, sizeof(w));
		barrier_var(a);
		a &= 15;
		barrier_var(n);
		/* 1 to UBPF_WMAX as the verifier sees it (6.1 took n == 0
		 * for possible past an `if (n)`); wlen is in that range */
		n = ((n - 1) & (UBPF_WMAX - 1)) + 1;
		/* copyin(argA, rn), copyinstr(argA): read just before the
		 * write, as the clause orders them; a read that faults
		 * writes nothing */
		barrier_var(sa);
		sa &= 15;
		barrier_var(rn);
		rn = ((rn - 1) & (UBPF_WMAX - 1)) + 1;
		if (sa && sa <= UBPF_MAXARGS) {
			const void *from =
				(const void *)arg_of(R, &e->a[sa - 1]);

			if (e->wstr) {
				got = bpf_probe_read_user_str(w, rn, from);
				if (got > 0 && (__u32)got < n)
					n = (__u32)got; /* its NUL the last */
			} else {
				got = bpf_probe_read_user(w, rn, from);
				got = got < 0 ? got : 1;
			}
			barrier_var(n);
			n = ((n - 1) & (UBPF_WMAX - 1)) + 1;
		}
		if (got > 0 && a < UBPF_MAXARGS) {
			h->flags |= UBPF_RF_WROTE;
			if (bpf_probe_write_user((void *)arg_of(R, &e->a[a]),
						 w, n) < 0)
				h->flags |= UBPF_RF_WFAULT;
		}
	}
	h->len = (__u16)off;
	if (off < sizeof(*h))
		goto out;
	/*
	 * copyout() with the thread held: stopped here, its record read at
	 * once; a record dropped lets it go (../dlhold.c)
	 */
	if (!wr && e->hold && (hv = hold_thread()))
		h->flags |= UBPF_RF_HELD;
	/* wake the reader once per position of it at half full, not per
	 * record (rbwake.bpf.h); a held thread's record at once */
	rbw_ask(&rw, off);
	if (hv)
		rw.fl = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&rb, s->b, off, rw.fl) < 0) {
		if (hv)
			*hv = UBPF_HOLD_DROP;
		dp = bpf_map_lookup_elem(&drops, &zero);
		if (dp)
			__sync_fetch_and_add(dp, 1);
	} else {
		rbw_done(&rw);
	}
out:
	s->own = 0;
	return 0;
}

SEC("uprobe")
int usdt_hit(struct ureg *ctx)
{
	return usdt_fire(ctx, 0, 0);
}

SEC("uprobe")
int usdt_hit_vt(struct ureg *ctx)
{
	return usdt_fire(ctx, 1, 0);
}

/* a program with copyoutstr() (-w) only: the helper that writes user
 * memory stays out of every other run's program */
SEC("uprobe")
int usdt_hit_w(struct ureg *ctx)
{
	return usdt_fire(ctx, 0, 1);
}

#include "kprov.bpf.h"
