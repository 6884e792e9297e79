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
 * on the tracepoints task:task_newtask (which has the clone flags, so a
 * thread is told from a process; sched_process_fork does not have
 * them), sched:sched_process_exec and sched:sched_process_exit, each
 * running its program of bpf/kprov.bpf.h (bpf_cookie: the probe).  A
 * tracepoint's programs belong to its trace_event_call and run for
 * every thread once one perf event on it exists (as a uprobe event's,
 * bpf.c), so each gets one "anchor" perf event, opened for dtrace
 * itself, that lives as long as the run.
 *
 * The kernel's layout.  Where a tracepoint's fields changed between
 * kernel versions (sched_process_exit has group_dead on 6.18, not on
 * 6.1; sched_process_fork's comm became __data_loc), their offsets are
 * read from the tracepoint's tracefs format file.  What no tracepoint gives (the exit
 * code for exit's arg0; the parent, for ppid in every kernel probe's
 * firing) is read from the task_struct, at offsets the kernel's BTF
 * (/sys/kernel/btf/vmlinux) gives: no kernel headers, no CO-RE.  The BTF
 * is read only when a clause of a kernel probe reads ppid or calls
 * progenyof(), or proc:::exit is enabled (parsing it costs 0.1 to 0.3 s).
 * Without it ppid is the traced process's parent or 0, and proc:::exit
 * cannot be enabled.  Without group_dead (older kernels), exit fires
 * when the thread whose id is the process's exits, which is the
 * process's end unless that thread left before the others.
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
#include <bpf/btf.h>
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
/*
 * The byte offset of member name of the struct or union type id, looked
 * for in its anonymous members too; -1 when it has none.
 */
long kp_btf_member(const struct btf *btf, __u32 id, const char *name,
		   int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 8 || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		long in;

		if (mn && *mn) {
			if (!strcmp(mn, name))
				return (long)(btf_member_bit_offset(t, i) / 8);
			continue;
		}
		in = kp_btf_member(btf, (__u32)btf__resolve_type(btf, m->type),
				   name, depth + 1);
		if (in >= 0)
			return (long)(btf_member_bit_offset(t, i) / 8) + in;
	}
	return -1;
}

/* task_struct's offsets from the kernel's BTF, into k (0 when unknown). */
static void kconf_btf(struct ubpf_kconf *k)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__s32 id;
	long o;

	if (!btf || libbpf_get_error(btf))
		return;
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	if (id > 0) {
		if ((o = kp_btf_member(btf, (__u32)id, "exit_code", 0)) >= 0)
			k->task_exit_code = (__u32)o + 1;
		if ((o = kp_btf_member(btf, (__u32)id, "real_parent", 0)) >= 0)
			k->task_real_parent = (__u32)o + 1;
		if ((o = kp_btf_member(btf, (__u32)id, "tgid", 0)) >= 0)
			k->task_tgid = (__u32)o + 1;
	}
	btf__free(btf);
}

int kp_kconf_fill(struct consumer *c, struct kprov *kp)
{
	struct bpf_object *obj = bpf_be_object(c);
	struct ubpf_kconf k = {0};
	uint32_t zero = 0;
	bool btf = kp_has(kp, KP_PROC_EXIT);
	int fd, o;

	if (!obj)
		return -1;
	/* reading the BTF takes 0.1 s or more: only when something needs it */
	for (size_t i = 0; i < kp->n; i++)
		btf |= kp->probes[i]->n.kind != KP_TICK &&
		       (kp->probes[i]->needs & D_NEED_PPID);
	if (btf)
		kconf_btf(&k);
	if ((o = kp_tp_field(c, "sched", "sched_process_exit", "group_dead")) >= 0)
		k.exit_group_dead = (__u16)(o + 1);
	if ((o = kp_tp_field(c, "task", "task_newtask", "pid")) >= 0)
		k.newtask_pid = (__u16)(o + 1);
	if ((o = kp_tp_field(c, "task", "task_newtask", "clone_flags")) >= 0)
		k.newtask_flags = (__u16)(o + 1);
	fd = bpf_object__find_map_fd_by_name(obj, "kconf");
	if (fd < 0 || bpf_map_update_elem(fd, &zero, &k, BPF_ANY) < 0) {
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
	if (kp_has(kp, KP_PROC_CREATE) && (!k.newtask_pid || !k.newtask_flags)) {
		say(c, "cannot enable proc:::create: tracepoint "
		       "task:task_newtask has no pid and clone_flags in %s",
		    kp_tracefs(c));
		return -1;
	}
	return 0;
}

/* One probe's anchor: a perf event on tracepoint grp/ev running prog. */
static int tp_arm(struct consumer *c, struct kprov *kp, const struct kprobe *p,
		  struct bpf_object *obj, const char *prog_name,
		  const char *grp, const char *ev)
{
	struct bpf_program *prog =
		bpf_object__find_program_by_name(obj, prog_name);
	struct perf_event_attr a = {0};
	LIBBPF_OPTS(bpf_perf_event_opts, po,
		    .bpf_cookie = kp_cookie(c, p));
	struct bpf_link *l;
	int id = kp_tp_id(c, grp, ev), fd;

	if (!prog || id < 0) {
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
	l = bpf_program__attach_perf_event_opts(prog, fd, &po);
	if (!l) {
		say(c, "cannot attach proc:::%s to tracepoint %s:%s: %s",
		    p->n.d.name, grp, ev, strerror(errno));
		close(fd);
		return -1;
	}
	kp_attach_add(kp, fd, l);
	return 0;
}
#endif

static int proc_arm(struct consumer *c, struct kprov *kp)
{
#ifdef HAVE_BPF
	struct bpf_object *obj = bpf_be_object(c);

	if (!obj)
		return -1;
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		int r = 0;

		if (p->n.kind == KP_PROC_CREATE)
			r = tp_arm(c, kp, p, obj, "kprov_create", "task",
				   "task_newtask");
		else if (p->n.kind == KP_PROC_EXEC)
			r = tp_arm(c, kp, p, obj, "kprov_exec", "sched",
				   "sched_process_exec");
		else if (p->n.kind == KP_PROC_EXIT)
			r = tp_arm(c, kp, p, obj, "kprov_exit", "sched",
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

/* Its programs (bpf/kprov.bpf.h), one per tracepoint */
static const struct prov_prog proc_progs[] = {
	{"kprov_exec", KP_PROC_EXEC, -1},
	{"kprov_exit", KP_PROC_EXIT, -1},
	{"kprov_create", KP_PROC_CREATE, -1},
};

const struct provider prov_proc = {
	.name = "proc",
	.needs = BE_CAP_KPROV,
	.each = proc_each,
	.arm = proc_arm,
	.progs = proc_progs,
	.nprogs = sizeof(proc_progs) / sizeof(proc_progs[0]),
};
