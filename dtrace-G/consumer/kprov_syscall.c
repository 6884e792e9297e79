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
 * too); noise is tens of ns.  So a direction
 * (entry, return) with at most KP_SYS_PER_CALL_MAX calls goes on their
 * own tracepoints, each with one perf event opened for dtrace whose
 * program the tracepoint then runs for every thread (as a uprobe
 * event's, bpf.c); more (a glob such as syscall:::entry), or a call
 * whose tracepoint tracefs does not have (the names differ for a few:
 * stat is sys_enter_newstat; the module calls of a kernel without
 * modules have none), take the raw tracepoint: one attachment instead
 * of hundreds of perf events.  DTRACE_SYSCALL_RAW=1 takes it always,
 * for the benchmark's comparison.
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
#include "kprov.h"

/* the most calls of one direction put on their own tracepoints */
#define KP_SYS_PER_CALL_MAX 32

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

bool kp_sys_per_call(const struct consumer *c, enum kp_kind k)
{
	const struct kprov *kp = c->kp;
	const char *raw = getenv("DTRACE_SYSCALL_RAW");
	size_t n = 0;

	if (raw && !strcmp(raw, "1"))
		return false; /* bench/kprov.sh compares */
	for (size_t i = 0; kp && i < kp->n; i++) {
		if (kp->probes[i]->n.kind != k)
			continue;
		if (++n > KP_SYS_PER_CALL_MAX ||
		    per_call_id(c, kp->probes[i]) < 0)
			return false;
	}
	return n > 0;
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
		   raw_attach(c, kp, obj, "kprov_sys_enter", "sys_enter") < 0) {
		return -1;
	}
	if (kp_sys_per_call(c, KP_SYS_RETURN)) {
		if (per_call_attach(c, kp, obj, KP_SYS_RETURN,
				    "kprov_sys_exit_tp") < 0)
			return -1;
	} else if (kp_has(kp, KP_SYS_RETURN) &&
		   raw_attach(c, kp, obj, "kprov_sys_exit", "sys_exit") < 0) {
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
 * The prologue of a generated program (cgen_kprov.c), on p's own
 * tracepoint only: what kprov_sys_enter_tp() and kprov_sys_exit_tp()
 * read, from the same context (the call's number at 8, then its
 * arguments or its return value), as direct loads, which the kernel
 * checks against the record's length when the program is attached: so
 * only the call's own arguments, the others 0.  On the raw tracepoint
 * one program serves every call (ksys): none generated.
 */
static bool sys_cg_pro(const struct consumer *c, const struct kprobe *p,
		       const struct ubpf_kconf *kc, struct cgk *k)
{
	unsigned na;

	(void)kc;
	if (!kp_sys_per_call(c, p->n.kind))
		return false;
	if (!k)
		return true;
	k->type = BPF_PROG_TYPE_TRACEPOINT;
	k->self = true; /* dtrace's own calls are not traced (kprov.c) */
	if (p->n.kind == KP_SYS_RETURN) {
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 16, 0);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(0), 0);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(1), 0);
		k->nargs = 2;
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
	k->nargs = 6;
	k->strmask = p->strmask & 0x3f;
	return true;
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
