// SPDX-License-Identifier: MIT
/*
 * kprov_syscall.c - the syscall provider (kprov.c has the common part):
 * syscall:vmlinux:NAME:entry and syscall:vmlinux:NAME:return for every
 * system call of the machine (x86-64 or aarch64), named as Linux names
 * them (openat, not open) and listed in the order of their numbers, as
 * Oracle's Linux DTrace lists them.
 *
 * The names.  The table is kprov_syscalls.h, which make generates from
 * the kernel headers' <asm/unistd.h> as the compiler finds it (one
 * KPROV_SYSCALL(nr, "name") line per __NR_name; arm64's __NR_lseek is
 * __NR3264_lseek's number): the one place that says which number is
 * which call.  A system call younger than those headers has no probe.
 *
 * Arming.  The map ksys, indexed by the call's number, says which probe
 * its entry and its return are (0: not traced), which arguments the
 * entry copies as strings and whether the thread's name is read; the
 * programs (bpf/kprov.bpf.h) look there first.  They sit either on the
 * raw tracepoints sys_enter and sys_exit, which run them for every
 * system call of every thread, or on the per-call tracepoints
 * syscalls:sys_enter_NAME and sys_exit_NAME of the calls traced, which
 * the kernel runs only for those (it tests a bitmap for the others).
 * Measured with bench/kprov.sh (bench/RESULTS.md) on the 2-vCPU VM, a
 * traced getppid() with a count() costs a little less on the raw
 * tracepoint (225 ns added against bpftrace's 242 on the per-call one;
 * 262 on ours), but the raw tracepoint added 147 ns to every getpid()
 * no one traced, against 33 for bpftrace's per-call tracepoint and 68
 * for ours (the slow path every call takes once any system call
 * tracepoint is on; on the raw one, the program's run up to its lookup
 * too: the generic program's, the generated one's are below, "Exit");
 * noise is tens of ns.  So a direction
 * (entry, return) with few calls (below, "Exit") goes on their
 * own tracepoints, each with one perf event opened for dtrace whose
 * program the tracepoint then runs for every thread (as a uprobe
 * event's, bpf.c); more (a glob such as syscall:::entry), or a call
 * whose tracepoint tracefs does not have (the names differ for a few:
 * stat is sys_enter_newstat; the module calls of a kernel without
 * modules have none), take the raw tracepoint: one attachment instead
 * of hundreds of perf events.  DTRACE_SYSCALL_RAW=1 takes it always,
 * for the benchmark's comparison.
 *
 * Exit.  A per-call tracepoint costs the run's end far more than it
 * saves while it runs.  The close of its perf event (the last
 * reference: the event's descriptor and its BPF link's) runs
 * perf_trace_destroy(), which under the kernel's global event_mutex
 * unregisters the tracepoint (perf_trace_event_unreg(), the last perf
 * event on it) and waits in tracepoint_synchronize_unregister() for an
 * RCU Tasks Trace and an RCU grace period, before the next tracepoint's
 * release may take the mutex: one tracepoint after the other, whatever
 * the threads (fdclose.c), about 45 ms each here (40-65 under load 5).
 * No order of the closes helps (measured with a test program, 4 calls'
 * events: all descriptors from threads at once 166-171 ms; the links
 * first 66 ms, the links' detach waiting a grace period of its own,
 * then the events 240 ms; one after the other 328 ms); the grace
 * periods are the kernel's, nothing of dtrace's can end before them,
 * and dtrace's exit would run the same releases (do_exit()'s closes).
 * The raw tracepoints' links are released in 0.2 ms (the probe
 * unregistered, its memory freed after a grace period nobody waits
 * for).  Against that, a per-call tracepoint saves a call no one
 * traces ~30 ns (bench/kprov.sh, 2026-11-30: getpid() 32 ns added on
 * getppid's own tracepoint, 62 on the raw one) and costs a traced call
 * ~34 ns more (96 against 62): one tracepoint's exit is ~1.5 million
 * untraced calls, half a minute of this machine's 55,000 a second.
 * So a run puts at most KP_SYS_PER_CALL_RUN tracepoints of both
 * directions on their own (the calls of both directions where they
 * fit, else the direction with fewer: one call's entry and return, or
 * two calls' entries, keep the untraced calls at bpftrace's cost and
 * its exit), the rest on the raw tracepoints; start to exit of `-c
 * true` with 4 calls' entry and return fell from 419 to 68 ms, with
 * 16 from 1,419 to 120 (bench/RESULTS.md).  DTRACE_SYSCALL_RAW=0 puts
 * every direction that fits on its calls' own (up to
 * KP_SYS_PER_CALL_MAX each), as before, for bench/kprov.sh and the
 * tests that compare the two.
 *
 * Generated (cgen_kprov.c).  Each probe's program is generated from its
 * clauses as a site's is, with sys_cg_pro()'s prologue: on the call's
 * own tracepoint, attached to its perf event; on the raw tracepoints,
 * of their type, put at its call's number in the direction's program
 * array (kp_sys_cg_load()), whose dispatcher, attached to sys_enter or
 * sys_exit, reads the number (sys_exit's from the registers, where a
 * compat task's call ends it) and tail-calls the number's program; a
 * number no probe has is an empty slot, the tail call falls through
 * and the firing ends.  So a glob such as syscall:::entry runs each
 * call's clauses in the kernel with no ksys lookup and no interpreter,
 * and the run loads no generic object.
 *
 * Shared.  A program per probe was 726 for syscall:::entry and return
 * (0.35-0.6 s of CPU to load on the 2-CPU machine), most of them the
 * same code but for the probe's ev and D id, immediates.  Where a
 * direction has more than one probe on the raw tracepoint, its
 * programs read those at the hit instead (cgen_kprov.c's kp_ident()): from
 * the identity map (sys_idmap(): one array entry, a struct cgk_id per
 * index, filled by cgen_kprov.c's cg_probe() and written by
 * kp_sys_cg_load()) at the index raw_ident() computes, the number for
 * entry (sys_enter's argument, a load), UBPF_KSYS_MAX + the number for
 * return (orig_ax or syscallno read again, as the dispatcher read it);
 * the plan's probe id (probefunc and the like as keys, id) is a CONST
 * flagged UBPF_KF_PRB, which loads it.  What is left differs only
 * where the calls' clauses do (a clause only some calls have),
 * and bpf_cg.c loads identical code once: the one-liner
 * loads a program per direction and the two dispatchers, 4, in about
 * 0.05 s of CPU.  A lone probe of a direction keeps the immediates
 * (return's extra read is about one bpf_probe_read_kernel()).
 *
 * What fires.  entry: arg0..arg5 the call's arguments (rdi, rsi, rdx,
 * r10, r8, r9; arm64: x0-x5); return: arg0 and arg1 the return value,
 * and errno the error of a failed call (the kernel returns -errno,
 * -4095..-1) or 0, as DTrace's.  A 32-bit process's calls (another
 * numbering) and dtrace's own are not traced (kprov.c says why).  exit
 * and exit_group have no return; a successful execve's return fires in
 * the new image.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

#include "bpf/kprov_bpf.h"
#include "bpf/uregs.h"
#include "kprov.h"

/* the most calls of one direction put on their own tracepoints */
#define KP_SYS_PER_CALL_MAX 32
/*
 * the most per-call tracepoints of a run, both directions together, by
 * default (DTRACE_SYSCALL_RAW unset): each costs the exit ~45 ms (the
 * "Exit" paragraph above)
 */
#define KP_SYS_PER_CALL_RUN 2

static const struct {
	int nr;
	const char *name;
} sysnames[] = {
#define KPROV_SYSCALL(nr, name) {nr, name},
#include "dtrace-G/consumer/kprov_syscalls.h" /* generated (builddir) */
#undef KPROV_SYSCALL
};

static const char *const entry_types[] = {
	"int64_t", "int64_t", "int64_t", "int64_t", "int64_t", "int64_t",
};
static const char *const return_types[] = {"int64_t", "int64_t"};

static void sys_each(char *const *names, size_t nnames, kp_each_fn fn,
		     void *arg)
{
	(void)names;
	(void)nnames;
	for (size_t i = 0; i < sizeof(sysnames) / sizeof(sysnames[0]); i++) {
		struct kp_name n = {
			.d = {"syscall", "vmlinux", sysnames[i].name, "entry",
			      6, entry_types},
			.prov = &prov_syscall,
			.kind = KP_SYS_ENTRY,
			.nr = sysnames[i].nr,
		};

		fn(&n, arg);
		n.d.name = "return";
		n.d.nargs = 2;
		n.d.argtypes = return_types;
		n.kind = KP_SYS_RETURN;
		fn(&n, arg);
	}
}

/* The tracepoint of p's call and direction: syscalls:sys_enter_NAME. */
static int per_call_id(const struct consumer *c, const struct kprobe *p)
{
	char ev[128];

	snprintf(ev, sizeof(ev), "sys_%s_%s",
		 p->n.kind == KP_SYS_ENTRY ? "enter" : "exit", p->n.d.func);
	return kp_tp_id(c, "syscalls", ev);
}

/*
 * How many probes of kind k could go on their calls' own tracepoints:
 * 0 where the direction has none, more than KP_SYS_PER_CALL_MAX or one
 * whose tracepoint tracefs lacks.  Found once a run (kp->sys_fit1):
 * each probe's is a read of its tracepoint's id in tracefs.
 */
static size_t per_call_fit(const struct consumer *c, enum kp_kind k)
{
	struct kprov *kp = c->kp;
	unsigned *fit1 = kp ? &kp->sys_fit1[k - KP_SYS_ENTRY] : NULL;
	size_t n = 0;

	if (fit1 && *fit1)
		return *fit1 - 1;
	for (size_t i = 0; kp && i < kp->n; i++) {
		if (kp->probes[i]->n.kind != k)
			continue;
		if (++n > KP_SYS_PER_CALL_MAX ||
		    per_call_id(c, kp->probes[i]) < 0) {
			n = 0;
			break;
		}
	}
	if (fit1)
		*fit1 = (unsigned)n + 1;
	return n;
}

static bool per_call_decide(const struct consumer *c, enum kp_kind k)
{
	const char *raw = getenv("DTRACE_SYSCALL_RAW");
	enum kp_kind o = k == KP_SYS_ENTRY ? KP_SYS_RETURN : KP_SYS_ENTRY;
	size_t n, no;

	if (raw && !strcmp(raw, "1"))
		return false; /* bench/kprov.sh compares */
	n = per_call_fit(c, k);
	if (!n || (raw && !strcmp(raw, "0")))
		return n > 0; /* as many as fit (bench, tests) */
	/*
	 * KP_SYS_PER_CALL_RUN tracepoints in all: both directions where
	 * they fit, else the one with fewer (entry where as many)
	 */
	if (n > KP_SYS_PER_CALL_RUN)
		return false;
	no = per_call_fit(c, o);
	return !no || no > KP_SYS_PER_CALL_RUN ||
	       n + no <= KP_SYS_PER_CALL_RUN || n < no ||
	       (n == no && k == KP_SYS_ENTRY);
}

/* asked per program and per probe: decided once (kp->sys_pc) */
bool kp_sys_per_call(const struct consumer *c, enum kp_kind k)
{
	uint8_t *pc;

	if (k != KP_SYS_ENTRY && k != KP_SYS_RETURN)
		return false;
	if (!c->kp)
		return per_call_decide(c, k);
	pc = &c->kp->sys_pc[k - KP_SYS_ENTRY];
	if (!*pc)
		*pc = per_call_decide(c, k) ? 2 : 1;
	return *pc == 2;
}

#ifdef HAVE_BPF
/*
 * How many arguments p's call has: the fields after __syscall_nr in its
 * sys_enter_NAME tracepoint's format (6 when tracefs does not say).
 */
static unsigned call_nargs(const struct consumer *c, const struct kprobe *p)
{
	char path[PATH_MAX], *fmt, *f;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format",
		 kp_tracefs(c), p->n.d.func);
	fmt = read_file(path, NULL);
	f = fmt ? strstr(fmt, "__syscall_nr;") : NULL;
	if (!f) {
		free(fmt);
		return 6;
	}
	while (n < 6 && (f = strstr(f + 1, "field:")))
		n++;
	free(fmt);
	return n;
}

/*
 * Each probe of kind k on its own tracepoint, running program name, or
 * its generated program (cgen_kprov.c).
 */
static int per_call_attach(struct consumer *c, struct kprov *kp,
			   struct bpf_object *obj, enum kp_kind k,
			   const char *name)
{
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		struct perf_event_attr a = {0};
		int fd;

		if (p->n.kind != k)
			continue;
		a.type = PERF_TYPE_TRACEPOINT;
		a.size = sizeof(a);
		a.config = (uint64_t)per_call_id(c, p);
		a.sample_period = 1;
		a.disabled = 1;
		fd = kp_perf_open(&a, getpid(), -1);
		if (fd < 0) {
			say(c, "cannot enable %s:%s:%s:%s: %s", p->n.d.prov,
			    p->n.d.mod, p->n.d.func, p->n.d.name,
			    strerror(errno));
			return -1;
		}
		if (kp_attach_perf(kp, p, obj, name, fd, 0) < 0) {
			say(c, "cannot attach %s:%s:%s:%s: %s", p->n.d.prov,
			    p->n.d.mod, p->n.d.func, p->n.d.name,
			    strerror(errno));
			close(fd);
			return -1;
		}
	}
	return 0;
}

/* Attach program name to raw tracepoint tp, given back on stop. */
static int raw_attach(struct consumer *c, struct kprov *kp,
		      struct bpf_object *obj, const char *name, const char *tp)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);
	struct bpf_link *l = prog ? bpf_program__attach_raw_tracepoint(prog, tp)
				  : NULL;

	if (!l) {
		say(c, "cannot attach the syscall provider to raw tracepoint "
		       "%s: %s",
		    tp, strerror(prog ? errno : ENOENT));
		return -1;
	}
	kp_attach_add(kp, -1, l);
	return 0;
}
#endif

#ifdef HAVE_BPF
static int raw_cg_attach(struct consumer *c, struct kprov *kp, int side);
#endif

static int sys_arm(struct consumer *c, struct kprov *kp)
{
#ifdef HAVE_BPF
	struct bpf_object *obj = kp->cg ? NULL : bpf_be_object(c);
	struct ubpf_ksys *v;
	bool per_call;
	int fd;

	if (kp->cg) /* generated: each probe its program, on its call's */
		goto attach;
	if (!obj)
		return -1;
	fd = bpf_object__find_map_fd_by_name(obj, "ksys");
	if (fd < 0) {
		say(c, "the BPF program has no map ksys");
		return -1;
	}
	v = xcalloc(UBPF_KSYS_MAX, sizeof(*v));
	for (uint32_t nr = 0; nr < UBPF_KSYS_MAX; nr++)
		v[nr].nargs = 6;
	per_call = kp_sys_per_call(c, KP_SYS_ENTRY);
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		int side = p->n.kind == KP_SYS_RETURN;

		if ((p->n.kind != KP_SYS_ENTRY && !side) || p->n.nr < 0 ||
		    p->n.nr >= UBPF_KSYS_MAX)
			continue;
		v[p->n.nr].ev[side] = UBPF_EV_KPROV | p->idx;
		v[p->n.nr].comm[side] = (p->needs & D_NEED_EXECNAME) != 0;
		v[p->n.nr].ustk[side] = kp_ustk(c, p);
		if (!side) { /* the six arguments of a call at most */
			v[p->n.nr].strmask = p->strmask & 0x3f;
			if (per_call)
				v[p->n.nr].nargs = (uint8_t)call_nargs(c, p);
		}
	}
	for (uint32_t nr = 0; nr < UBPF_KSYS_MAX; nr++)
		if ((v[nr].ev[0] || v[nr].ev[1]) &&
		    bpf_map_update_elem(fd, &nr, &v[nr], BPF_ANY) < 0) {
			say(c, "cannot enable system call %u: %s", nr,
			    strerror(errno));
			free(v);
			return -1;
		}
	free(v);
attach:
	per_call = kp_sys_per_call(c, KP_SYS_ENTRY);
	if (per_call) {
		if (per_call_attach(c, kp, obj, KP_SYS_ENTRY,
				    "kprov_sys_enter_tp") < 0)
			return -1;
	} else if (kp_has(kp, KP_SYS_ENTRY) &&
		   (kp->cg ? raw_cg_attach(c, kp, 0)
			   : raw_attach(c, kp, obj, "kprov_sys_enter",
					"sys_enter")) < 0) {
		return -1;
	}
	if (kp_sys_per_call(c, KP_SYS_RETURN)) {
		if (per_call_attach(c, kp, obj, KP_SYS_RETURN,
				    "kprov_sys_exit_tp") < 0)
			return -1;
	} else if (kp_has(kp, KP_SYS_RETURN) &&
		   (kp->cg ? raw_cg_attach(c, kp, 1)
			   : raw_attach(c, kp, obj, "kprov_sys_exit",
					"sys_exit")) < 0) {
		return -1;
	}
	return 0;
#else
	(void)c;
	(void)kp;
	return -1; /* kprov_arm() said so */
#endif
}

/* A return's firing: a failing call returns -errno, as the kernel says */
static void sys_fire(const struct kprobe *p, struct d_fire *f)
{
	int64_t ret = (int64_t)f->arg[0];

	if (p->n.kind == KP_SYS_RETURN)
		f->errnum = ret < 0 && ret >= -4095 ? (int)-ret : 0;
}

#ifdef HAVE_BPF
/*
 * The raw tracepoints' context (struct bpf_raw_tracepoint_args): args[0]
 * the call's struct pt_regs (kernel memory), args[1] sys_enter's call
 * number or sys_exit's return value.  Where the registers lie is
 * kprov.bpf.h's: x86-64's arguments in rdi, rsi, rdx, r10, r8, r9, the
 * number on the way out orig_ax, a compat task's cs __USER32_CS;
 * arm64's in x0-x5, pstate (PSR_MODE32_BIT: a compat task) then orig_x0
 * then the number, an s32, at KP_A64_*.
 */
#define RAW_REGS 0
#define RAW_ARG1 8
#if defined(__aarch64__)
#define RAW_PSTATE UREG_A64_PSTATE_OFF
#define RAW_MODE32 0x10
#else
#define RAW_ORIG_AX 120
#define RAW_CS 136
#define RAW_USER32_CS 0x23
/* r10 .. cs, one read: the arguments' registers lie between */
#define RAW_LO UREG_X86_64_R10
#define RAW_SPAN (RAW_CS + 8 - RAW_LO)
#endif

/* r3 = the registers + off; r1 = r10 + to; r2 = size; read; r0 != 0
 * jumps (the index to fix) */
static size_t raw_read(struct cgk *k, uint8_t ctx, int32_t off, int16_t to,
		       int32_t size)
{
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 3, ctx, RAW_REGS, 0);
	cgk_put(k, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, off);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	cgk_put(k, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, to);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	cgk_put(k, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
	return cgk_jmp(k, BPF_JMP | BPF_JNE | BPF_K, 0, 0);
}

/*
 * A raw entry's prologue: kprov_sys_enter()'s checks and reads after
 * the dispatcher (below) chose the probe by the number: not a compat
 * task's call, the six argument registers, whatever the call's count
 * (the raw tracepoint's record has no length to check, and kprov.bpf.h
 * records all six).  The registers are read into the argument slots
 * 11 down (free: nargs is 6; cgen.c reads none past nargs), then moved
 * to 0..5 through r0-r5; a read that fails ends the firing, as there.
 */
static void raw_enter_pro(struct cgk *k)
{
	const int16_t base = cgk_arg(11); /* the lowest slot */
	size_t j[3], jok;
	unsigned nj = 0;
#if defined(__aarch64__)
	j[nj++] = raw_read(k, 6, RAW_PSTATE, base, 8);
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, base, 0);
	cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, RAW_MODE32);
	j[nj++] = cgk_jmp(k, BPF_JMP | BPF_JNE | BPF_K, 1, 0);
	j[nj++] = raw_read(k, 6, 0, base, 8 * 6);
	for (unsigned i = 0; i < 6; i++) /* x0-x5, as they lie */
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, (uint8_t)i, 10,
			(int16_t)(base + 8 * i), 0);
#else
	static const int16_t reg[6] = {
		UREG_X86_64_DI, UREG_X86_64_SI, UREG_X86_64_DX,
		UREG_X86_64_R10, UREG_X86_64_R8, UREG_X86_64_R9,
	};

	j[nj++] = raw_read(k, 6, RAW_LO, base, RAW_SPAN);
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10,
		(int16_t)(base + RAW_CS - RAW_LO), 0);
	j[nj++] = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_K, 1, RAW_USER32_CS);
	for (unsigned i = 0; i < 6; i++)
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, (uint8_t)i, 10,
			(int16_t)(base + reg[i] - RAW_LO), 0);
#endif
	for (unsigned i = 0; i < 6; i++)
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, (uint8_t)i,
			cgk_arg(i), 0);
	jok = cgk_jmp(k, BPF_JMP | BPF_JA, 0, 0);
	for (unsigned i = 0; i < nj; i++)
		cgk_fix(k, j[i]);
	cgk_exit(k);
	cgk_fix(k, jok);
}

/* How many probes of kind k the run has. */
static size_t kind_count(const struct kprov *kp, enum kp_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < kp->n; i++)
		n += kp->probes[i]->n.kind == k;
	return n;
}

/*
 * The identity map of the raw tracepoints' shared programs (cgen_kprov.c's
 * kp_ident()), made for the first: one entry, 2 * UBPF_KSYS_MAX struct
 * cgk_id, entry's by number, then return's; its fd, or -1.
 */
static int sys_idmap(struct kprov *kp)
{
	if (!kp->sys_id1) {
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cgksysid", 4,
					2 * UBPF_KSYS_MAX *
						sizeof(struct cgk_id),
					1, NULL);

		if (fd < 0)
			return -1;
		kp->sys_id1 = fd + 1;
		kp->sys_idv = xcalloc(2 * UBPF_KSYS_MAX,
				      sizeof(*kp->sys_idv));
	}
	return kp->sys_id1 - 1;
}

/*
 * A shared raw program's index in the identity map (cgen_kprov.c's
 * kp_ident()): entry's the number, sys_enter's args[1]; return's
 * UBPF_KSYS_MAX + the number, read from the registers as the
 * dispatcher read it (raw_dispatch(): a compat task's call, another
 * numbering, never comes here), the read's failure or a number past
 * the map ending the firing.
 */
static void raw_ident(struct cgk *k, int side)
{
	const int16_t slot = cgk_arg(11); /* free: before the prologue */
	size_t j[2], jok;

	if (!side) {
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, RAW_ARG1, 0);
		return;
	}
#if defined(__aarch64__)
	/* pstate, orig_x0, then the number (s32, zero-extended) */
	j[0] = raw_read(k, 6, RAW_PSTATE + 16, slot, 4);
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_W, 1, 10, slot, 0);
#else
	j[0] = raw_read(k, 6, RAW_ORIG_AX, slot, 8);
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, slot, 0);
#endif
	j[1] = cgk_jmp(k, BPF_JMP | BPF_JGT | BPF_K, 1, UBPF_KSYS_MAX - 1);
	cgk_put(k, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, UBPF_KSYS_MAX);
	jok = cgk_jmp(k, BPF_JMP | BPF_JA, 0, 0);
	cgk_fix(k, j[0]);
	cgk_fix(k, j[1]);
	cgk_exit(k);
	cgk_fix(k, jok);
}

/*
 * The prologue of a generated program (cgen_kprov.c).  On p's own
 * tracepoint: what kprov_sys_enter_tp() and kprov_sys_exit_tp() read,
 * from the same context (the call's number at 8, then its arguments or
 * its return value), as direct loads, which the kernel checks against
 * the record's length when the program is attached: so only the call's
 * own arguments, the others 0.  On the raw tracepoint: a program of
 * that type, which the direction's dispatcher tail-calls for p's
 * number (kp_sys_cg_load()), reading what kprov_sys_enter() and
 * kprov_sys_exit() read: the six registers (raw_enter_pro()), or the
 * return value twice (the dispatcher has left out a compat task's).
 */
static bool sys_cg_pro(const struct consumer *c, const struct kprobe *p,
		       const struct ubpf_kconf *kc, struct cgk *k)
{
	bool raw = !kp_sys_per_call(c, p->n.kind);
	int side = p->n.kind == KP_SYS_RETURN;
	unsigned na;

	(void)kc;
	if (raw && (p->n.nr < 0 || p->n.nr >= UBPF_KSYS_MAX))
		return false; /* no slot in the dispatcher's array */
	if (!k)
		return true;
	k->type = raw ? BPF_PROG_TYPE_RAW_TRACEPOINT : BPF_PROG_TYPE_TRACEPOINT;
	/* ustack(): the call's pt_regs, or those saved on entry */
	k->ureg = raw ? CGK_UREG_RAW : CGK_UREG_TASK;
	k->self = true; /* dtrace's own calls are not traced (kprov.c) */
	if (raw && kind_count(c->kp, p->n.kind) > 1) {
		/* the probe read at the hit: probes whose code is the
		 * same share one program (bpf_cg.c loads it once) */
		struct cgk ik = {0};
		int fd = sys_idmap(c->kp);

		if (fd < 0)
			return false;
		raw_ident(&ik, side);
		k->iv = ik.v;
		k->in = ik.n;
		k->idmap1 = fd + 1;
		k->idmax = 2 * UBPF_KSYS_MAX;
		k->id = &c->kp->sys_idv[side * UBPF_KSYS_MAX + p->n.nr];
	}
	if (p->n.kind == KP_SYS_RETURN) {
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, raw ? RAW_ARG1 : 16,
			0);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(0), 0);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(1), 0);
		k->nargs = 2;
		return true;
	}
	k->nargs = 6;
	k->strmask = p->strmask & 0x3f;
	if (raw) {
		raw_enter_pro(k);
		return true;
	}
	na = call_nargs(c, p);
	for (unsigned i = 0; i < 6; i++) {
		if (i < na)
			cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6,
				(int16_t)(16 + 8 * i), 0);
		else
			cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 0);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(i), 0);
	}
	return true;
}

/*
 * A raw tracepoint's dispatcher: the call's number (sys_enter's args[1];
 * sys_exit's from the registers, read with cs or pstate, a compat
 * task's call ending there), out of ksys's range (unsigned, 64 bits, as
 * kprov_sys() compares the long) ending it, then a tail call to the
 * number's program in array arr, which, when no probe of the direction
 * is the call's, is none and the firing ends: the one cost a call no
 * one traces pays, against the generic program's ksys lookup.
 */
static void raw_dispatch(struct cgk *k, int side, int arr)
{
	size_t j[4] = {0};
	unsigned nj = 0;

	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	if (!side) {
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 3, 6, RAW_ARG1, 0);
	} else {
#if defined(__aarch64__)
		/* pstate, orig_x0, the number (s32, zero-extended: a
		 * negative one is past the range still) */
		j[nj++] = raw_read(k, 6, RAW_PSTATE, -24, 24);
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, -24, 0);
		cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, RAW_MODE32);
		j[nj++] = cgk_jmp(k, BPF_JMP | BPF_JNE | BPF_K, 1, 0);
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_W, 3, 10, -8, 0);
#else
		/* orig_ax, ip, cs */
		j[nj++] = raw_read(k, 6, RAW_ORIG_AX, -24, 24);
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, -8, 0);
		j[nj++] = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_K, 1,
				  RAW_USER32_CS);
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 3, 10, -24, 0);
#endif
	}
	j[nj++] = cgk_jmp(k, BPF_JMP | BPF_JGT | BPF_K, 3, UBPF_KSYS_MAX - 1);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
	cgk_put(k, BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_MAP_FD, 0, arr);
	cgk_put(k, 0, 0, 0, 0, 0);
	cgk_put(k, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
	for (unsigned i = 0; i < nj; i++)
		cgk_fix(k, j[i]);
	cgk_exit(k);
}

void kp_sys_cg_reset(struct kprov *kp)
{
	if (kp->sys_id1) /* the programs that read it hold it */
		close(kp->sys_id1 - 1);
	kp->sys_id1 = 0;
	free(kp->sys_idv);
	kp->sys_idv = NULL;
	for (int side = 0; side < 2; side++) {
		if (kp->sys_arr1[side])
			close(kp->sys_arr1[side] - 1);
		kp->sys_arr1[side] = 0;
		kp->sys_disp1[side] = 0; /* bpf_cg.c's, closed there */
	}
}

int kp_sys_cg_load(struct consumer *c, struct kprov *kp)
{
	static const enum kp_kind kinds[2] = {KP_SYS_ENTRY, KP_SYS_RETURN};
	uint32_t zero = 0;

	/* which probe each number's shared program runs for */
	if (kp->sys_id1 &&
	    bpf_map_update_elem(kp->sys_id1 - 1, &zero, kp->sys_idv,
				BPF_ANY) < 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "cannot fill the system calls' identity map: %s",
			 strerror(errno));
		goto refused;
	}
	for (int side = 0; side < 2; side++) {
		struct cgk k = {0};
		int arr, fd;

		if (!kp_has(kp, kinds[side]) ||
		    kp_sys_per_call(c, kinds[side]))
			continue;
		arr = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "cgksys", 4, 4,
				     UBPF_KSYS_MAX, NULL);
		if (arr < 0) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "no program array for raw tracepoint %s: %s",
				 side ? "sys_exit" : "sys_enter",
				 strerror(errno));
			goto refused;
		}
		kp->sys_arr1[side] = arr + 1;
		for (size_t i = 0; i < kp->n; i++) {
			const struct kprobe *p = kp->probes[i];
			uint32_t nr = (uint32_t)p->n.nr;

			if (p->n.kind != kinds[side] || p->cg_fd < 0)
				continue;
			if (bpf_map_update_elem(arr, &nr, &p->cg_fd,
						BPF_ANY) < 0) {
				snprintf(c->be_why, sizeof(c->be_why),
					 "cannot put %s:%s:%s:%s's program "
					 "in its array: %s",
					 p->n.d.prov, p->n.d.mod, p->n.d.func,
					 p->n.d.name, strerror(errno));
				goto refused;
			}
		}
		raw_dispatch(&k, side, arr);
		fd = bpf_cg_load(c, BPF_PROG_TYPE_RAW_TRACEPOINT, k.v, k.n);
		if (fd < 0)
			goto refused; /* said; k.v is bpf_cg.c's */
		kp->sys_disp1[side] = fd + 1;
	}
	if (kp->sys_id1) { /* filled: the programs hold it now */
		close(kp->sys_id1 - 1);
		kp->sys_id1 = 0;
		free(kp->sys_idv);
		kp->sys_idv = NULL;
	}
	return 0;
refused:
	kp_sys_cg_reset(kp);
	return -1;
}

/* The direction's dispatcher on its raw tracepoint; its array with it. */
static int raw_cg_attach(struct consumer *c, struct kprov *kp, int side)
{
	const char *tp = side ? "sys_exit" : "sys_enter";
	int lfd;

	if (!kp->sys_disp1[side] || !kp->sys_arr1[side]) {
		say(c, "the syscall provider has no generated program for "
		       "raw tracepoint %s",
		    tp);
		return -1;
	}
	lfd = bpf_raw_tracepoint_open(tp, kp->sys_disp1[side] - 1);
	if (lfd < 0) {
		say(c, "cannot attach the syscall provider to raw tracepoint "
		       "%s: %s",
		    tp, strerror(errno));
		return -1;
	}
	kp_attach_add(kp, lfd, NULL);
	/* the array: its programs are gone once its last fd is */
	kp_attach_add(kp, kp->sys_arr1[side] - 1, NULL);
	kp->sys_arr1[side] = 0;
	return 0;
}
#endif

/*
 * Its programs (bpf/kprov.bpf.h): on the raw tracepoints sys_enter and
 * sys_exit, or on each call's own (syscalls:sys_enter_NAME), as
 * kp_sys_per_call() decides for the run.
 */
static const struct prov_prog sys_progs[] = {
	{"kprov_sys_enter", KP_SYS_ENTRY, 0},
	{"kprov_sys_exit", KP_SYS_RETURN, 0},
	{"kprov_sys_enter_tp", KP_SYS_ENTRY, 1},
	{"kprov_sys_exit_tp", KP_SYS_RETURN, 1},
};

const struct provider prov_syscall = {
	.name = "syscall",
	.needs = BE_CAP_KPROV,
	.each = sys_each,
	.list = kp_list,
	.arm = sys_arm,
	.fire = sys_fire,
#ifdef HAVE_BPF
	.cg_pro = sys_cg_pro,
#endif
	.progs = sys_progs,
	.nprogs = sizeof(sys_progs) / sizeof(sys_progs[0]),
};
