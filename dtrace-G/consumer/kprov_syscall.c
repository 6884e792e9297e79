// SPDX-License-Identifier: MIT
/*
 * kprov_syscall.c - the syscall provider (kprov.c has the common part):
 * syscall:vmlinux:NAME:entry and syscall:vmlinux:NAME:return for every
 * x86-64 system call, named as Linux names them (openat, not open) and
 * listed in the order of their numbers, as Oracle's Linux DTrace lists
 * them.
 *
 * The names.  The table is kprov_syscalls.h, which make generates from
 * the kernel headers' <asm/unistd_64.h> as the compiler finds it (one
 * KPROV_SYSCALL(nr, "name") line per __NR_name): the one place that
 * says which number is which call.  A system call younger than those
 * headers has no probe.
 *
 * Arming.  Two programs serve every system call (bpf/kprov.bpf.h): one
 * on the raw tracepoint sys_enter, one on sys_exit, each run for every
 * system call of every thread once attached; the map ksys, indexed by
 * the call's number, says which probe its entry and its return are
 * (0: not traced), which arguments the entry copies as strings and
 * whether the thread's name is read.  A call no clause traces costs a
 * program run and an array lookup (sys_exit also reads orig_ax to know
 * the number); per-system-call tracepoints (syscalls:sys_enter_NAME)
 * would cost the others nothing, but each traced call more (the perf
 * trace buffer filled before the program runs), and a glob over all of
 * them one perf event per call: measured in bench/RESULTS.md.  Only the
 * raw tracepoints a run needs are attached.
 *
 * What fires.  entry: arg0..arg5 the call's arguments (rdi, rsi, rdx,
 * r10, r8, r9); return: arg0 and arg1 the return value, and errno the
 * error of a failed call (the kernel returns -errno, -4095..-1) or 0,
 * as DTrace's.  A 32-bit process's calls (another numbering) and
 * dtrace's own are not traced (kprov.c says why).  exit and exit_group
 * have no return; a successful execve's return fires in the new image.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

#include "bpf/kprov_bpf.h"
#include "kprov.h"

static const struct {
	int nr;
	const char *name;
} sysnames[] = {
#define KPROV_SYSCALL(nr, name) {nr, name},
#include "kprov_syscalls.h"
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

#ifdef HAVE_BPF
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
	struct bpf_object *obj = bpf_be_object(c);
	struct ubpf_ksys *v;
	int fd;

	if (!obj)
		return -1;
	fd = bpf_object__find_map_fd_by_name(obj, "ksys");
	if (fd < 0) {
		say(c, "the BPF program has no map ksys");
		return -1;
	}
	v = xcalloc(UBPF_KSYS_MAX, sizeof(*v));
	for (size_t i = 0; i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		int side = p->n.kind == KP_SYS_RETURN;

		if ((p->n.kind != KP_SYS_ENTRY && !side) || p->n.nr < 0 ||
		    p->n.nr >= UBPF_KSYS_MAX)
			continue;
		v[p->n.nr].ev[side] = UBPF_EV_KPROV | p->idx;
		v[p->n.nr].comm[side] = (p->needs & D_NEED_EXECNAME) != 0;
		if (!side) /* the six arguments of a call */
			v[p->n.nr].strmask = p->strmask & 0x3f;
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
	if (kp_has(kp, KP_SYS_ENTRY) &&
	    raw_attach(c, kp, obj, "kprov_sys_enter", "sys_enter") < 0)
		return -1;
	if (kp_has(kp, KP_SYS_RETURN) &&
	    raw_attach(c, kp, obj, "kprov_sys_exit", "sys_exit") < 0)
		return -1;
	return 0;
#else
	(void)c;
	(void)kp;
	return -1; /* kprov_arm() said so */
#endif
}

const struct kprov_provider kprov_syscall = {
	.name = "syscall",
	.each = sys_each,
	.arm = sys_arm,
};
