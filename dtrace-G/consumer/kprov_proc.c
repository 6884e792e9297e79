// SPDX-License-Identifier: MIT
/*
 * kprov_proc.c - the proc provider (kprov.c has the common part), and
 * what the kernel providers' programs need to know of the running
 * kernel (kp_kconf_fill()).
 *
 * Probes, as Oracle's Linux DTrace names them (module vmlinux, no
 * function), system-wide as in every DTrace:
 *
 *	proc:vmlinux::create		a process forked one (not a thread):
 *		fires in the parent; arg0 (args[0]) the child's pid
 *		(DTrace's args[0] is the child's psinfo_t)
 *	proc:vmlinux::exec-success	an exec succeeded: fires in the
 *		process, its execname the new one
 *	proc:vmlinux::exit		a process exited: fires in its last
 *		thread; arg0 why, as the parent's SIGCHLD says it:
 *		CLD_EXITED (1), CLD_KILLED (2) or CLD_DUMPED (3)
 *
 * on the tracepoints task_newtask (which has the clone flags, so a
 * thread is told from a process; sched_process_fork does not have
 * them), sched_process_exec and sched_process_exit, each running its
 * program (generated, cgen_kprov.c, with proc_cg_pro()'s prologue, or
 * bpf/kprov.bpf.h's).
 *
 * Raw tracepoints.  The programs are attached to the raw tracepoints
 * (BPF_RAW_TRACEPOINT_OPEN: a link fd per probe, raw_arm()), not to a
 * perf event on the tracepoint as they were: a tracepoint's programs
 * run for every thread once one perf event on it exists, so each probe
 * had an "anchor" event opened for dtrace itself, and releasing a
 * tracepoint's last perf event waits for two RCU grace periods under
 * the kernel's event_mutex, ~45 ms each, serially, at dtrace's exit
 * (kprov_syscall.c's "Exit"); a raw tracepoint's link goes in well
 * under a millisecond.  A raw tracepoint passes its TP_PROTO's
 * arguments, not the trace event's fields: sched_process_exec (task,
 * old_pid, bprm), of which exec-success reads none; sched_process_exit
 * (task, group_dead) from 6.16, (task) before; task_newtask (task,
 * clone_flags), the child's pid read from the task.  How many there
 * are, and group_dead's type, the kernel's BTF says (kbtf.c's
 * kbtf_tp_nargs(): a program that reads an argument the kernel does
 * not pass is refused at attach).  A raw tracepoint has no bpf_cookie
 * before 6.10: the generated programs have the probe as an immediate,
 * the generic ones read it from kconf (kp_kconf_fill()).  Where the
 * BTF does not give task_struct's pid or task_newtask's arguments,
 * create goes on the tracepoint's perf event as before, its record's
 * fields at the offsets its tracefs format file gives (kprov_create,
 * bpf_cookie the probe; kp_proc_raw() decides, for the prologue and
 * the generic object's autoload alike; DTRACE_PROC_RAW=0 takes that
 * path where the BTF has what is needed, for the tests).
 *
 * The kernel's layout.  What no tracepoint gives (the exit code for
 * exit's arg0; the parent, for ppid in every kernel probe's firing) is
 * read from the task_struct, at offsets the kernel's BTF
 * (/sys/kernel/btf/vmlinux) gives: no kernel headers, no CO-RE.  The
 * BTF is read only when a clause of a kernel probe reads ppid or calls
 * progenyof(), or proc:::exit or create is enabled (kbtf.c: ~10 ms of
 * CPU).  Without it ppid is the traced process's parent or 0, and
 * proc:::exit cannot be enabled.  Without group_dead (kernels before
 * 6.16), exit fires when the thread whose id is the process's exits,
 * which is the process's end unless that thread left before the
 * others.
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

static const char *const int_type[] = {"int"};

static void proc_each(char *const *names, size_t nnames, kp_each_fn fn,
		      void *arg)
{
	static const struct {
		const char *name;
		enum kp_kind kind;
		unsigned nargs;
	} pv[] = {
		{"create", KP_PROC_CREATE, 1},
		{"exec-success", KP_PROC_EXEC, 0},
		{"exit", KP_PROC_EXIT, 1},
	};

	(void)names;
	(void)nnames;
	for (size_t i = 0; i < sizeof(pv) / sizeof(pv[0]); i++) {
		struct kp_name n = {
			.d = {"proc", "vmlinux", "", pv[i].name, pv[i].nargs,
			      pv[i].nargs ? int_type : NULL},
			.prov = &prov_proc,
			.kind = pv[i].kind,
		};

		fn(&n, arg);
	}
}

#ifdef HAVE_BPF
/* task_struct's offsets from the kernel's BTF (kbtf.c), into k (0: unknown) */
static void kconf_btf(struct ubpf_kconf *k)
{
	long o;

	if ((o = kbtf_member("task_struct", "exit_code")) >= 0)
		k->task_exit_code = (__u32)o + 1;
	if ((o = kbtf_member("task_struct", "real_parent")) >= 0)
		k->task_real_parent = (__u32)o + 1;
	if ((o = kbtf_member("task_struct", "tgid")) >= 0)
		k->task_tgid = (__u32)o + 1;
}

void kp_kconf_find(struct consumer *c, struct kprov *kp)
{
	struct ubpf_kconf k = {0};
	bool btf = kp_has(kp, KP_PROC_EXIT) || kp_has(kp, KP_PROC_CREATE);
	const char *raw;
	long o;

	if (kp->kconf_found)
		return;
	/* reading the BTF takes ~10 ms: only when something needs it */
	for (size_t i = 0; i < kp->n; i++)
		btf |= kp->probes[i]->n.kind != KP_TICK &&
		       (kp->probes[i]->needs & D_NEED_PPID);
	if (btf)
		kconf_btf(&k);
	/* exit: (task, group_dead) from 6.16, (task) before */
	if (kp_has(kp, KP_PROC_EXIT) &&
	    kbtf_tp_nargs("sched_process_exit") >= 2 &&
	    (kbtf_tp_arg_is("sched_process_exit", 1, "bool") ||
	     kbtf_tp_arg_is("sched_process_exit", 1, "_Bool")))
		k.exit_raw_gd = 1;
	/* create: (task, clone_flags); the child's pid is task's */
	if (kp_has(kp, KP_PROC_CREATE)) {
		if ((o = kbtf_member("task_struct", "pid")) >= 0)
			k.task_pid = (__u32)o + 1;
		k.create_raw = k.task_pid && kbtf_tp_nargs("task_newtask") >= 2;
		/* DTRACE_PROC_RAW=0: the perf event, as without the BTF
		 * (tests/run-kprov.sh) */
		raw = getenv("DTRACE_PROC_RAW");
		if (raw && !strcmp(raw, "0"))
			k.create_raw = 0;
	}
	if (kp_has(kp, KP_PROC_CREATE) && !k.create_raw) {
		o = kp_tp_field(c, "task", "task_newtask", "pid");
		if (o >= 0)
			k.newtask_pid = (__u16)(o + 1);
		o = kp_tp_field(c, "task", "task_newtask", "clone_flags");
		if (o >= 0)
			k.newtask_flags = (__u16)(o + 1);
	}
	kp->kconf = k;
	kp->kconf_found = true;
}

bool kp_proc_raw(struct consumer *c, enum kp_kind kind)
{
	if (kind != KP_PROC_CREATE)
		return true;
	if (!c || !c->kp)
		return true;
	kp_kconf_find(c, c->kp);
	return c->kp->kconf.create_raw != 0;
}

int kp_kconf_fill(struct consumer *c, struct kprov *kp)
{
	/* generated programs (cgen_kprov.c) took kp->kconf as constants */
	struct bpf_object *obj = kp->cg ? NULL : bpf_be_object(c);
	struct ubpf_kconf k;
	uint32_t zero = 0;
	int fd = -1;

	if (!obj && !kp->cg)
		return -1;
	kp_kconf_find(c, kp);
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];

		if (p->n.kind == KP_PROC_EXEC)
			kp->kconf.ck_exec = kp_cookie(c, p);
		else if (p->n.kind == KP_PROC_EXIT)
			kp->kconf.ck_exit = kp_cookie(c, p);
		else if (p->n.kind == KP_PROC_CREATE)
			kp->kconf.ck_create = kp_cookie(c, p);
	}
	k = kp->kconf;
	if (obj)
		fd = bpf_object__find_map_fd_by_name(obj, "kconf");
	if (obj &&
	    (fd < 0 || bpf_map_update_elem(fd, &zero, &k, BPF_ANY) < 0)) {
		say(c, "cannot configure the kernel providers: %s",
		    strerror(fd < 0 ? ENOENT : errno));
		return -1;
	}
	if (kp_has(kp, KP_PROC_EXIT) && !k.task_exit_code) {
		say(c, "cannot enable proc:::exit: the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux) does not say where "
		       "task_struct keeps exit_code");
		return -1;
	}
	if (kp_has(kp, KP_PROC_CREATE) && !k.create_raw &&
	    (!k.newtask_pid || !k.newtask_flags)) {
		say(c, "cannot enable proc:::create: tracepoint "
		       "task:task_newtask has no pid and clone_flags in %s",
		    kp_tracefs(c));
		return -1;
	}
	return 0;
}

/*
 * One probe's program (the generated one, else the object's prog_name)
 * on raw tracepoint ev: its link is given back on stop.
 */
static int raw_arm(struct consumer *c, struct kprov *kp, const struct kprobe *p,
		   struct bpf_object *obj, const char *prog_name,
		   const char *ev)
{
	struct bpf_program *pg = NULL;
	int fd = p->cg_fd, lfd;

	if (fd < 0) {
		pg = obj ? bpf_object__find_program_by_name(obj, prog_name)
			 : NULL;
		fd = pg ? bpf_program__fd(pg) : -1;
	}
	if (fd < 0) {
		say(c, "cannot enable proc:::%s: no program %s loaded",
		    p->n.d.name, prog_name);
		return -1;
	}
	lfd = bpf_raw_tracepoint_open(ev, fd);
	if (lfd < 0) {
		say(c, "cannot attach proc:::%s to raw tracepoint %s: %s",
		    p->n.d.name, ev, strerror(errno));
		return -1;
	}
	kp_attach_add(kp, lfd, NULL);
	return 0;
}

/*
 * create without create_raw: an anchor perf event on tracepoint grp:ev
 * running prog (the header says why a raw tracepoint is better)
 */
static int tp_arm(struct consumer *c, struct kprov *kp, const struct kprobe *p,
		  struct bpf_object *obj, const char *prog_name,
		  const char *grp, const char *ev)
{
	struct perf_event_attr a = {0};
	int id = kp_tp_id(c, grp, ev), fd;

	if (id < 0) {
		say(c, "cannot enable proc:::%s: no tracepoint %s:%s in %s",
		    p->n.d.name, grp, ev, kp_tracefs(c));
		return -1;
	}
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)id;
	a.sample_period = 1;
	a.disabled = 1;
	fd = kp_perf_open(&a, getpid(), -1);
	if (fd < 0) {
		say(c, "cannot enable proc:::%s: tracepoint %s:%s: %s",
		    p->n.d.name, grp, ev, strerror(errno));
		return -1;
	}
	if (kp_attach_perf(kp, p, obj, prog_name, fd, kp_cookie(c, p)) < 0) {
		say(c, "cannot attach proc:::%s to tracepoint %s:%s: %s",
		    p->n.d.name, grp, ev, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

/*
 * The prologue of a generated program (cgen_kprov.c): what
 * kprov_create_raw() (kprov_create() without create_raw),
 * kprov_exec() and kprov_exit() read, at the offsets kp_kconf_find()
 * found, as constants; the raw tracepoint's arguments are loads from
 * the context.  create: not a thread (clone_flags' CLONE_THREAD), arg0
 * the child's pid; exit: the process's last thread (group_dead, else
 * the thread whose id is the process's), arg0 from task_struct's
 * exit_code.  Their firings in dtrace are traced, as there.
 */
static bool proc_cg_pro(const struct consumer *c, const struct kprobe *p,
			const struct ubpf_kconf *kc, struct cgk *k)
{
	size_t j, j2;

	(void)c;
	if (!k)
		return true;
	k->type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	switch (p->n.kind) {
	case KP_PROC_EXEC:
		k->nargs = 0;
		return true;
	case KP_PROC_CREATE:
		if (kc->create_raw) { /* args[0] the child, args[1] flags */
			cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 8, 0);
			cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0,
				KP_CLONE_THREAD);
			j = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_K, 1, 0);
			cgk_exit(k); /* a thread, not a process */
			cgk_fix(k, j);
			cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 0, 0);
			cgk_read_kernel(k, 0, 4, 1, (int32_t)kc->task_pid - 1);
		} else {
			if (!kc->newtask_pid || !kc->newtask_flags)
				return false;
			k->type = BPF_PROG_TYPE_TRACEPOINT;
			cgk_read_kernel(k, 0, 8, 6, kc->newtask_flags - 1);
			cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10,
				cgk_arg(0), 0);
			cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0,
				KP_CLONE_THREAD);
			j = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_K, 1, 0);
			cgk_exit(k); /* a thread, not a process */
			cgk_fix(k, j);
			cgk_read_kernel(k, 0, 4, 6, kc->newtask_pid - 1);
		}
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, cgk_arg(0), 0);
		cgk_put(k, BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0, 32);
		cgk_put(k, BPF_ALU64 | BPF_ARSH | BPF_K, 1, 0, 0, 32);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 1, cgk_arg(0), 0);
		k->nargs = 1;
		return true;
	case KP_PROC_EXIT:
		if (!kc->task_exit_code)
			return false;
		if (kc->exit_raw_gd) { /* args[1]: group_dead, a bool */
			cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 8, 0);
			cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 0xff);
			j = cgk_jmp(k, BPF_JMP | BPF_JNE | BPF_K, 1, 0);
		} else {
			cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0);
			cgk_put(k, BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0, 32);
			cgk_put(k, BPF_ALU64 | BPF_RSH | BPF_K, 1, 0, 0, 32);
			cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 2, 7, 0, 0);
			cgk_put(k, BPF_ALU64 | BPF_RSH | BPF_K, 2, 0, 0, 32);
			j = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_X, 1, 0);
			k->v[j].src_reg = 2;
		}
		cgk_exit(k); /* not the process's last thread */
		cgk_fix(k, j);
		cgk_put(k, BPF_JMP | BPF_CALL, 0, 0, 0,
			BPF_FUNC_get_current_task);
		cgk_read_kernel(k, 0, 4, 0, (int32_t)kc->task_exit_code - 1);
		cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 10, cgk_arg(0), 0);
		/* !(code & 0x7f) ? CLD_EXITED : code & 0x80 ? CLD_DUMPED :
		 * CLD_KILLED */
		cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, KP_CLD_EXITED);
		cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 2, 1, 0, 0);
		cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 2, 0, 0, 0x7f);
		j = cgk_jmp(k, BPF_JMP | BPF_JEQ | BPF_K, 2, 0);
		cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, KP_CLD_DUMPED);
		cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, 0x80);
		j2 = cgk_jmp(k, BPF_JMP | BPF_JNE | BPF_K, 1, 0);
		cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, KP_CLD_KILLED);
		cgk_fix(k, j);
		cgk_fix(k, j2);
		cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 3, cgk_arg(0), 0);
		k->nargs = 1;
		return true;
	default:
		return false;
	}
}
#endif

static int proc_arm(struct consumer *c, struct kprov *kp)
{
#ifdef HAVE_BPF
	struct bpf_object *obj = kp->cg ? NULL : bpf_be_object(c);

	if (!obj && !kp->cg)
		return -1;
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		int r = 0;

		if (p->n.kind == KP_PROC_CREATE && kp->kconf.create_raw)
			r = raw_arm(c, kp, p, obj, "kprov_create_raw",
				    "task_newtask");
		else if (p->n.kind == KP_PROC_CREATE)
			r = tp_arm(c, kp, p, obj, "kprov_create", "task",
				   "task_newtask");
		else if (p->n.kind == KP_PROC_EXEC)
			r = raw_arm(c, kp, p, obj, "kprov_exec",
				    "sched_process_exec");
		else if (p->n.kind == KP_PROC_EXIT)
			r = raw_arm(c, kp, p, obj, "kprov_exit",
				    "sched_process_exit");
		if (r < 0)
			return -1;
	}
	return 0;
#else
	(void)c;
	(void)kp;
	return -1; /* kprov_arm() said so */
#endif
}

/*
 * Its programs (bpf/kprov.bpf.h), one per tracepoint; create's on the
 * raw tracepoint (0) or, where the BTF does not say what is needed
 * there, on the tracepoint's perf event (1), as kp_proc_raw() says
 */
static const struct prov_prog proc_progs[] = {
	{"kprov_exec", KP_PROC_EXEC, -1},
	{"kprov_exit", KP_PROC_EXIT, -1},
	{"kprov_create_raw", KP_PROC_CREATE, 0},
	{"kprov_create", KP_PROC_CREATE, 1},
};

const struct provider prov_proc = {
	.name = "proc",
	.needs = BE_CAP_KPROV,
	.each = proc_each,
	.list = kp_list,
	.arm = proc_arm,
#ifdef HAVE_BPF
	.cg_pro = proc_cg_pro,
#endif
	.progs = proc_progs,
	.nprogs = sizeof(proc_progs) / sizeof(proc_progs[0]),
};
