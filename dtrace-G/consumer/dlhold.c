// SPDX-License-Identifier: MIT
/*
 * dlhold.c - a -p process, or a -c command once started, held at each
 * dlopen() until the library it maps is armed, before any of the
 * library's code (its constructors included) runs (doc/DESIGN.md §8,
 * "When -p arms a dlopen()").
 *
 * Why.  The maps are read every 100 ms: a library dlopen()ed meanwhile
 * runs its constructors and its first calls unarmed (a PostgreSQL
 * extension loaded by a traced backend).  ld.so calls the empty
 * function _dl_debug_state() with _r_debug.r_state = RT_CONSISTENT once
 * dlopen() has mapped the library and its dependencies, before it
 * relocates them or runs their constructors (dl_open_worker_begin):
 * the point where -c arms too (rtld.c).
 *
 * What stops the thread there must not outlive a SIGKILLed dtrace.  An
 * int3 written into ld.so, or a hardware breakpoint set through ptrace
 * (the kernel keeps DR0-DR7 when the tracer dies: tested on 6.18), kills
 * the process with SIGTRAP at its next dlopen() once nobody traces it.
 * So the breakpoint is a uprobe the kernel owns for us, taken out when
 * its descriptor closes, dtrace's death included: one uprobe_multi BPF
 * link per process, whose pid filters by thread group (Linux 6.12 on:
 * multi_wanted()), so that it covers the threads to come; on older
 * kernels, where the kernel refuses the link, for a process whose
 * leader has exited (dh_unlink()), or under DTRACE_UPROBE_MULTI=0,
 * perf events of the uprobe PMU (no tracefs event), one per thread (the
 * kernel's filter is by mm, but a thread's event ends with the thread).  The
 * link is the cheaper: one uprobe registration, not one a thread, and
 * none of it under the kernel's event_mutex, which a perf event's
 * close holds through its grace periods while the run's own uprobe
 * events wait to be unregistered (bench/RESULTS.md, "Start-up").  Its
 * BPF program (made here, a few instructions)
 * reads r_state and, at an RT_CONSISTENT that follows an RT_ADD (not a
 * dlclose()'s), stops the thread by sending it
 * SIGURG (bpf_send_signal_thread()): the process is ptrace-seized by
 * dtrace for the whole run, so the signal puts the thread in a
 * signal-delivery-stop before it returns into dlopen().  If dtrace dies
 * there, the kernel detaches it (exit_ptrace()) and the signal is
 * delivered; the program sends it only while the thread's SIGURG is at
 * its default action (ignore) or ignored, and not blocked (read from the
 * thread's task_struct, the offsets from the kernel's BTF), so that
 * delivery does nothing.  Otherwise, or for a thread dtrace has not
 * seized, it marks the thread and sends nothing: that dlopen() is armed
 * at the next read of the maps, as before, and dtrace says so once.
 *
 * The tracer.  Every thread is seized (PTRACE_SEIZE, with clones
 * followed), and its stops are dtrace's to pass on: the loop calls
 * dlhold_poll() on each SIGCHLD.  A signal-delivery-stop is resumed with
 * its signal, except ours (SIGURG, SI_KERNEL, the thread marked sent by
 * the program), which is swallowed after the new library is armed; a
 * group-stop is kept with PTRACE_LISTEN; a new thread is resumed from
 * its first stop.  To arm, every other thread is interrupted too, as
 * freeze.c holds a process (proc_freeze() calls dlhold_stop_all() for
 * a process held here: a second tracer cannot seize it).  At the end
 * every thread is stopped, taken out of the map (the program sends
 * nothing to a thread not in it) and detached with the signal it
 * stopped for; the link or the perf events are closed after, in the
 * batch of the site links (fdclose.c's close_with_next(): one grace
 * period for both, where each waited its own).  An exec stop closes the
 * process's site links (bpf_attach.c) and arms the new image, the
 * buffers read first for the exec's record (dh_arm()), before it runs;
 * and a leader gone before its threads has its sites armed as uprobe
 * events instead (up_site_relink()), as it has its breakpoint on ld.so.
 * A -p process is seized at its first arming (uprobe.c's up_enable()),
 * not at BEGIN, so that an exec in between is stopped at too.  A
 * process that cannot be seized (a debugger has it) or a kernel that
 * refuses the program keeps the 100 ms arming, said once.
 *
 * copyout() (-w) of what only the clause has.  The same stop serves a
 * write into the process before the thread goes on past a probe, as
 * DTrace's kernel writes before the probe returns: the generic BPF
 * program, given this map (dlhold_map()), sends SIGURG at a copyout()
 * probe's hit to a thread marked seized, under the same conditions, and
 * marks it DH_CO (bpf/usdt.bpf.c's hold_thread()).  Its stop, and any
 * other stop that comes first while that SIGURG is pending (another
 * signal, a group-stop: no handler runs before the write), is kept
 * (cohold) until records.c has run the hit and the clause has written
 * (dlhold_hit_done()); a record run before the stop came marks the
 * thread codone, and the stop goes on at once.  A record the ring
 * buffer dropped is marked DH_CODROP by the program: its stop goes on.
 * The thread has run nothing since the hit but the probed instruction,
 * which the kernel runs before any signal: a NOP at a USDT site, so
 * only those probes are held (bpf.c's site_nop()).
 *
 * A -c command is held by rtld.c until its probes are armed, under the
 * tracer PTRACE_TRACEME made, which cannot interrupt or listen: it is
 * handed over to a seize (dlhold_handover()) when it is let go.
 *
 * The backends that ask for it (BE_CAP_HOLD): bpf, and uprobe events,
 * whose hits are read without BPF but whose processes are held by this
 * program all the same (where it cannot be made, the 100 ms arming, said
 * above).  Not fasttrap (its arming under a hold is untested) nor -x
 * activation=user, which drives its threads with ptrace itself and has
 * a library's drti.o ask to be armed instead (inproc_exec.c), save for
 * a -p target none of whose files carries drti.o (no arena to ask
 * through: ip_exec_hold()), whose exec stop hands the new image to
 * ip_exec_stop() before the arming; where neither, sites.c says, at the
 * read of the maps that arms a dlopen()ed library, that its first hits
 * were missed.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/uregs.h"
#include "bpf/usdt_bpf.h"
#include "consumer_impl.h"
#include "procfs.h"

/*
 * A thread's entry in the program's map, keyed by its tid; the key with
 * DH_LAST added holds the r_state of its last hit (the program stops a
 * thread only at an RT_CONSISTENT after an RT_ADD, a dlopen() that
 * mapped something, not after a dlclose()'s RT_DELETE)
 */
enum {
	DH_SEIZED = UBPF_HOLD_SEIZED,
	DH_SENT = 2,
	DH_MISSED = 3,
	DH_CO = UBPF_HOLD_CO,	   /* held at a copyout() probe (usdt.bpf.c) */
	DH_CODROP = UBPF_HOLD_DROP /* ... whose record was dropped */
};
#define DH_LAST 0x80000000u

#define ENOTSUP_KERNEL 524 /* the kernel's ENOTSUPP */

/*
 * TH_NEW: a clone not yet at its first stop; TH_ZOMBIE: a leader that
 * exited before its threads, waited for until its exit is reported
 */
enum { TH_RUN, TH_STOP, TH_LISTEN, TH_NEW, TH_ZOMBIE };

struct dh_thread {
	pid_t tid;
	int state;
	int sig;     /* TH_STOP: the signal to resume it with */
	bool listen; /* TH_STOP: a group-stop, resumed with PTRACE_LISTEN */
	bool hold; /* TH_STOP in dlopen(): resumed once its library is armed */
	/* held at a copyout() probe (DH_CO): stopped until its record has
	 * run (cohold), or its record ran before the stop came (codone) */
	bool cohold, codone;
	int pfd;   /* its uprobe PMU event on _dl_debug_state, or -1 (none,
		    * or the process has the link) */
};

struct dh_proc {
	struct tproc *pr;
	char *ldso; /* its ld.so, and _dl_debug_state's file offset there */
	uint64_t off;
	bool events; /* each thread gets its event (th_add()) */
	int lfd;     /* the process's uprobe_multi link, or -1 */
	struct dh_thread *th;
	size_t nth;
	unsigned depth; /* dlhold_stop_all() calls not yet resumed */
	bool arm;	/* a thread holds in dlopen(): arm at the next poll */
	bool missed_said;
};

/* Where the program reads whether SIGURG would do anything if delivered. */
struct dh_offs {
	long sighand, blocked, handler; /* handler: in the sighand_struct */
};

/* a -c command's link on ld.so made with its site links, not yet used */
struct dh_pre {
	pid_t pid;
	int lfd;    /* or -1: not made (yet) */
	char *ldso; /* its ld.so, _dl_debug_state's offset there */
	uint64_t off;
};

/* one tracer per dtrace: freeze.c asks by pid, without the consumer */
static struct {
	struct consumer *c;
	int prog_fd, map_fd;
	/*
	 * the program as a uprobe_multi link takes it, -1 once the kernel
	 * refused either; the perf events' (prog_fd) is made when first
	 * needed, from the same offsets and distance
	 */
	int mprog_fd;
	bool multi_no;
	struct dh_offs o;
	long delta;
	struct dh_proc **p;
	size_t np;
	bool failed; /* the program could not be made: said once */
	bool progs;  /* dh_open_prog() has run */
	bool arming; /* in dh_arm(): proc_refresh() is not entered again */
	pid_t *refused; /* dlhold_start() could not take them: said once */
	size_t nrefused;
	struct dh_pre *pre; /* links made before the seize (dlhold_prelink()) */
	size_t npre;
} dh = {.prog_fd = -1, .map_fd = -1, .mprog_fd = -1};

static struct dh_proc *dh_find(pid_t pid)
{
	for (size_t i = 0; i < dh.np; i++)
		if (dh.p[i]->pr->pid == pid)
			return dh.p[i];
	return NULL;
}

bool dlhold_owns(pid_t pid)
{
	return dh_find(pid) != NULL;
}

/* ------------------------------------------------------------------ */
/* The program */

/* the kernel's offsets the program reads (kbtf.c); -1: one is unknown */
static int dh_offsets(struct dh_offs *o)
{
	long action = kbtf_member("sighand_struct", "action");
	long sa = kbtf_member("k_sigaction", "sa");
	long h = kbtf_member("sigaction", "sa_handler");
	long sz = kbtf_size("k_sigaction");

	o->sighand = kbtf_member("task_struct", "sighand");
	o->blocked = kbtf_member("task_struct", "blocked");
	o->handler = -1;
	if (action >= 0 && sa >= 0 && h >= 0 && sz > 0)
		o->handler = action + (SIGURG - 1) * sz + sa + h;
	return o->sighand < 0 || o->blocked < 0 || o->handler < 0 ? -1 : 0;
}

#define INSN(c, d, s, o, i)                                                    \
	((struct bpf_insn){.code = (c),                                        \
			   .dst_reg = (d),                                     \
			   .src_reg = (s),                                     \
			   .off = (o),                                         \
			   .imm = (i)})
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define AND_IMM(d, i) INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST_IMM(sz, d, o, i) INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JNE_IMM(d, i, o) INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JGT_IMM(d, i, o) INSN(BPF_JMP | BPF_JGT | BPF_K, d, 0, o, i)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/*
 * The program at _dl_debug_state: r_state is at a fixed distance from
 * the function (both in ld.so), `delta` from the hit's ip.
 */
static int dh_prog(int map_fd, long delta, const struct dh_offs *o, bool multi,
		   char *msg, size_t msglen)
{
	static const int16_t uregoff[UREG_N] = UREG_OFFSETS;
	struct bpf_insn v[96];
	size_t n = 0, j_out[12], nj = 0, j_miss[8], nm = 0;
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, po, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 0);

	if (multi)
		po.expected_attach_type =
			(enum bpf_attach_type)UMULTI_ATTACH;
	int fd;

	v[n++] = MOV_REG(BPF_REG_6, BPF_REG_1);
	/* the instruction pointer in the kernel's pt_regs (bpf/uregs.h) */
	v[n++] = LDX(BPF_DW, BPF_REG_3, BPF_REG_6, uregoff[UREG_IP]);
	v[n++] = ADD_IMM(BPF_REG_3, (__s32)delta);
	v[n++] = MOV_REG(BPF_REG_1, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_1, -8);
	v[n++] = ST_IMM(BPF_DW, BPF_REG_10, -8, 0);
	v[n++] = MOV_IMM(BPF_REG_2, 4);
	v[n++] = CALL(BPF_FUNC_probe_read_user);
	j_out[nj++] = n;
	v[n++] = JNE_IMM(BPF_REG_0, 0, 0);
	v[n++] = LDX(BPF_W, BPF_REG_7, BPF_REG_10, -8);
	/* the thread's last state (r8, -1 if none) replaced by this one */
	v[n++] = CALL(BPF_FUNC_get_current_pid_tgid);
	v[n++] =
		INSN(BPF_ALU | BPF_OR | BPF_K, BPF_REG_0, 0, 0, (__s32)DH_LAST);
	v[n++] = STX(BPF_W, BPF_REG_10, BPF_REG_0, -20);
	v[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		      0, map_fd);
	v[n++] = INSN(0, 0, 0, 0, 0);
	v[n++] = MOV_REG(BPF_REG_2, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_2, -20);
	v[n++] = CALL(BPF_FUNC_map_lookup_elem);
	v[n++] = MOV_IMM(BPF_REG_8, -1);
	v[n++] = JEQ_IMM(BPF_REG_0, 0, 1);
	v[n++] = LDX(BPF_W, BPF_REG_8, BPF_REG_0, 0);
	v[n++] = STX(BPF_W, BPF_REG_10, BPF_REG_7, -24);
	v[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		      0, map_fd);
	v[n++] = INSN(0, 0, 0, 0, 0);
	v[n++] = MOV_REG(BPF_REG_2, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_2, -20);
	v[n++] = MOV_REG(BPF_REG_3, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_3, -24);
	v[n++] = MOV_IMM(BPF_REG_4, BPF_ANY);
	v[n++] = CALL(BPF_FUNC_map_update_elem);
	j_out[nj++] = n;
	v[n++] = JNE_IMM(BPF_REG_7, RT_CONSISTENT, 0);
	j_out[nj++] = n;
	v[n++] = JNE_IMM(BPF_REG_8, RT_ADD, 0);
	/* the thread's entry: only a thread dtrace seized is stopped */
	v[n++] = CALL(BPF_FUNC_get_current_pid_tgid);
	v[n++] = STX(BPF_W, BPF_REG_10, BPF_REG_0, -16);
	v[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		      0, map_fd);
	v[n++] = INSN(0, 0, 0, 0, 0);
	v[n++] = MOV_REG(BPF_REG_2, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_2, -16);
	v[n++] = CALL(BPF_FUNC_map_lookup_elem);
	j_out[nj++] = n;
	v[n++] = JEQ_IMM(BPF_REG_0, 0, 0);
	v[n++] = MOV_REG(BPF_REG_8, BPF_REG_0);
	v[n++] = LDX(BPF_W, BPF_REG_1, BPF_REG_8, 0);
	j_out[nj++] = n;
	v[n++] = JNE_IMM(BPF_REG_1, DH_SEIZED, 0);
	/* SIGURG delivered without dtrace must do nothing */
	v[n++] = CALL(BPF_FUNC_get_current_task);
	v[n++] = MOV_REG(BPF_REG_9, BPF_REG_0);
	v[n++] = MOV_REG(BPF_REG_1, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_1, -24);
	v[n++] = MOV_IMM(BPF_REG_2, 8);
	v[n++] = MOV_REG(BPF_REG_3, BPF_REG_9);
	v[n++] = ADD_IMM(BPF_REG_3, (__s32)o->sighand);
	v[n++] = CALL(BPF_FUNC_probe_read_kernel);
	j_miss[nm++] = n;
	v[n++] = JNE_IMM(BPF_REG_0, 0, 0);
	v[n++] = LDX(BPF_DW, BPF_REG_3, BPF_REG_10, -24);
	v[n++] = ADD_IMM(BPF_REG_3, (__s32)o->handler);
	v[n++] = MOV_REG(BPF_REG_1, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_1, -24);
	v[n++] = MOV_IMM(BPF_REG_2, 8);
	v[n++] = CALL(BPF_FUNC_probe_read_kernel);
	j_miss[nm++] = n;
	v[n++] = JNE_IMM(BPF_REG_0, 0, 0);
	v[n++] = LDX(BPF_DW, BPF_REG_1, BPF_REG_10, -24);
	j_miss[nm++] = n;
	v[n++] = JGT_IMM(BPF_REG_1, 1, 0); /* neither SIG_DFL nor SIG_IGN */
	v[n++] = MOV_REG(BPF_REG_1, BPF_REG_10);
	v[n++] = ADD_IMM(BPF_REG_1, -24);
	v[n++] = MOV_IMM(BPF_REG_2, 8);
	v[n++] = MOV_REG(BPF_REG_3, BPF_REG_9);
	v[n++] = ADD_IMM(BPF_REG_3, (__s32)o->blocked);
	v[n++] = CALL(BPF_FUNC_probe_read_kernel);
	j_miss[nm++] = n;
	v[n++] = JNE_IMM(BPF_REG_0, 0, 0);
	v[n++] = LDX(BPF_DW, BPF_REG_1, BPF_REG_10, -24);
	v[n++] = AND_IMM(BPF_REG_1, 1 << (SIGURG - 1));
	j_miss[nm++] = n;
	v[n++] = JNE_IMM(BPF_REG_1, 0, 0);
	v[n++] = ST_IMM(BPF_W, BPF_REG_8, 0, DH_SENT);
	v[n++] = MOV_IMM(BPF_REG_1, SIGURG);
	v[n++] = CALL(BPF_FUNC_send_signal_thread);
	j_out[nj++] = n;
	v[n++] = JEQ_IMM(BPF_REG_0, 0, 0);
	/* miss: */
	for (size_t i = 0; i < nm; i++)
		v[j_miss[i]].off = (__s16)(n - j_miss[i] - 1);
	v[n++] = ST_IMM(BPF_W, BPF_REG_8, 0, DH_MISSED);
	/* out: */
	for (size_t i = 0; i < nj; i++)
		v[j_out[i]].off = (__s16)(n - j_out[i] - 1);
	v[n++] = MOV_IMM(BPF_REG_0, 0);
	v[n++] = EXIT();
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dtrace_dlhold", "GPL", v, n,
			   &po);
	if (fd < 0 && msg)
		snprintf(msg, msglen, "its program was refused: %s%s%s",
			 strerror(errno), *log ? ": " : "", log);
	return fd < 0 ? -1 : fd;
}

/* ------------------------------------------------------------------ */
/* ld.so's _dl_debug_state */

/*
 * File offset of ld.so's _dl_debug_state, and the distance from it to
 * _r_debug.r_state (rtld.c reads ld.so's dynsym).
 */
static int ldso_debug(const char *path, uint64_t *off, long *delta)
{
	uint64_t brk, rdebug, lo;

	if (rtld_ldso_symbols(path, &brk, &rdebug, &lo, off) < 0)
		return -1;
	*delta = (long)(rdebug - brk) + (long)offsetof(struct r_debug, r_state);
	return 0;
}

/* ld.so as pid maps it: the file at AT_BASE (rtld.c) */
static char *ldso_path(pid_t pid)
{
	uint64_t base = 0;

	if (proc_auxv(pid, AT_BASE, &base) < 0 || !base)
		return NULL;
	return rtld_mapped_at(pid, base);
}

/* pid's ld.so has the debugger interface (a static program has none) */
static bool ldso_has_debug(pid_t pid)
{
	char *ldso = ldso_path(pid);
	uint64_t off;
	long delta;
	bool ok = ldso && ldso_debug(ldso, &off, &delta) == 0;

	free(ldso);
	return ok;
}

/*
 * dp's breakpoint as one uprobe_multi link for its thread group: fd, or
 * -1 with errno (the caller falls back to the perf events)
 */
static int dh_link(const struct dh_proc *dp)
{
	struct umulti_attr a;
	__u64 off = dp->off;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)dh.mprog_fd;
	a.attach_type = UMULTI_ATTACH;
	a.path = (uint64_t)(uintptr_t)dp->ldso;
	a.offsets = (uint64_t)(uintptr_t)&off;
	a.cnt = 1;
	a.pid = (uint32_t)dp->pr->pid;
	return (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * DTRACE_UPROBE_MULTI=0: the perf events only.  So too before Linux
 * 6.12: the link's pid filter ran the program for the leader thread
 * alone in 6.6 (another thread's dlopen() would go by unheld, and
 * unsaid), by mm from 46ba0e49b642 ("bpf: fix multi-uprobe PID
 * filtering logic", 6.10), by thread group after (6.12 has both).
 */
/* the running kernel is Linux maj.min or later (false where not known) */
static bool kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

static bool multi_wanted(void)
{
	const char *e = getenv("DTRACE_UPROBE_MULTI");

	if (e && strcmp(e, "0") == 0)
		return false;
	return kernel_at_least(6, 12);
}

/* whether a uprobe_multi link's pid filter is the thread group's
 * (bpf_attach.c's site links have the same need) */
bool dlhold_multi_wanted(void)
{
	return multi_wanted();
}

/* No hold this run, said once with why. */
static void dh_fail(struct consumer *c, const char *why)
{
	dh.failed = true;
	say(c,
	    "a library a traced process dlopen()s is armed when its maps "
	    "are next read (its first hits can be missed): %s",
	    why);
}

/* the perf events' program, made when a process first needs it */
static int dh_plain_prog(void)
{
	char why[512] = "";

	if (dh.prog_fd < 0 && !dh.failed) {
		dh.prog_fd = dh_prog(dh.map_fd, dh.delta, &dh.o, false, why,
				     sizeof(why));
		if (dh.prog_fd < 0)
			dh_fail(dh.c, why);
	}
	return dh.prog_fd;
}

/* ------------------------------------------------------------------ */
/* The tracer */

static void map_set(pid_t tid, __u32 v)
{
	__u32 k = (__u32)tid;

	(void)bpf_map_update_elem(dh.map_fd, &k, &v, BPF_ANY);
}

static __u32 map_get(pid_t tid)
{
	__u32 k = (__u32)tid, v = 0;

	(void)bpf_map_lookup_elem(dh.map_fd, &k, &v);
	return v;
}

/*
 * The uprobe on _dl_debug_state as a perf event of thread tid, running
 * the program: fd, or -1 with errno.  One per thread: the kernel's
 * filter is by mm, so any one would stop every thread, but a per-thread
 * event ends with its thread (the leader may exit first); each hit runs
 * the program once per event, which sends once (the entry says sent).
 */
static int th_event(const struct dh_proc *dp, pid_t tid)
{
	struct perf_event_attr a = {0};
	int fd, type = rtld_uprobe_pmu_type(), err;

	if (type < 0) {
		errno = ENOENT;
		return -1;
	}
	a.size = sizeof(a);
	a.type = (__u32)type;
	a.config1 = (__u64)(uintptr_t)dp->ldso;
	a.config2 = dp->off;
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, dh.prog_fd) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static struct dh_thread *th_add(struct dh_proc *dp, pid_t tid, int state)
{
	for (size_t i = 0; i < dp->nth; i++)
		if (dp->th[i].tid == tid)
			return &dp->th[i];
	dp->th = xpush_room(dp->th, dp->nth, sizeof(*dp->th));
	dp->th[dp->nth] =
		(struct dh_thread){.tid = tid, .state = state, .pfd = -1};
	map_set(tid, DH_SEIZED);
	/* a clone, stopped before its first instruction; a link has it */
	if (dp->events && dp->lfd < 0)
		dp->th[dp->nth].pfd = th_event(dp, tid);
	return &dp->th[dp->nth++];
}

/* a dlopen() the program could not hold (DH_MISSED): said once */
static void th_missed(struct dh_proc *dp, pid_t tid)
{
	if (dp->missed_said || map_get(tid) != DH_MISSED)
		return;
	dp->missed_said = true;
	/* hits lost: said under -q too */
	say(dh.c,
	    "pid %d: a dlopen() could not be held (its thread handles or "
	    "blocks SIGURG): its library's first hits can be missed",
	    (int)dp->pr->pid);
}

/*
 * Thread i is gone (or its process is): nothing can hit its event, so
 * the close, which waits for the kernel's grace periods, is not waited
 * for, not even by dtrace's exit (fdclose.c's close_after()).
 */
static void th_del(struct dh_proc *dp, size_t i)
{
	__u32 k = (__u32)dp->th[i].tid;

	th_missed(dp, dp->th[i].tid);
	if (dp->th[i].pfd >= 0)
		close_after(&dp->th[i].pfd, 1);
	(void)bpf_map_delete_elem(dh.map_fd, &k);
	k |= DH_LAST;
	(void)bpf_map_delete_elem(dh.map_fd, &k);
	dp->th[i] = dp->th[--dp->nth];
}

static void th_resume(struct dh_thread *t)
{
	if (t->state != TH_STOP || t->hold || t->cohold)
		return;
	if (t->listen)
		(void)ptrace(PTRACE_LISTEN, t->tid, NULL, NULL);
	else
		(void)ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)t->sig);
	t->state = t->listen ? TH_LISTEN : TH_RUN;
	t->sig = 0;
	t->listen = false;
}

static void dh_arm(struct dh_proc *dp);

/*
 * What a wait said of thread i: it is stopped (TH_STOP, with what to
 * resume it with), or gone.  Resumed at once unless the process is
 * held (depth) or the stop is ours, which arms first.
 */
static void dh_status(struct dh_proc *dp, size_t i, int st)
{
	struct dh_thread *t = &dp->th[i];
	int sig, ev;
	bool ours = false;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		th_del(dp, i);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	sig = WSTOPSIG(st);
	ev = st >> 16;
	t->state = TH_STOP;
	t->sig = 0;
	t->listen = false;
	if (ev == PTRACE_EVENT_CLONE) {
		unsigned long nt = 0;

		if (ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &nt) == 0 && nt)
			(void)th_add(dp, (pid_t)nt, TH_NEW);
		t = &dp->th[i]; /* th_add may move it */
	} else if (ev == PTRACE_EVENT_EXEC) {
		/*
		 * the new image is mapped and has run nothing: the old
		 * one's site links go now (a leader's would arm the new
		 * image, which is armed anew; another thread's exec left
		 * them nothing), bpf_attach.c; and the new image is armed
		 * before it runs (dh_arm())
		 */
		if (dh.c->up.site_unlink)
			(void)dh.c->up.site_unlink(dh.c, dp->pr->pid, false);
		/* -x activation=user: armed in-process (inproc_exec.c) */
		if (dh.c->ip)
			t->sig = ip_exec_stop(dh.c, dp->pr, t->tid);
		ours = true;
	} else if (ev == PTRACE_EVENT_STOP) {
		/* a group-stop stays one; else our interrupt, a first stop */
		t->listen = sig == SIGSTOP || sig == SIGTSTP ||
			    sig == SIGTTIN || sig == SIGTTOU;
	} else if (ev == 0) {
		siginfo_t si;
		__u32 m = map_get(t->tid);

		ours = sig == SIGURG &&
		       (m == DH_SENT || m == DH_CO || m == DH_CODROP) &&
		       ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) == 0 &&
		       si.si_code == SI_KERNEL;
		if (ours)
			map_set(t->tid, DH_SEIZED);
		else
			t->sig = sig;
		/*
		 * a copyout() probe's stop (usdt.bpf.c's hold_thread()):
		 * kept until the hit's record has run (dlhold_hit_done()),
		 * unless it has already; its record dropped, let go
		 */
		if (ours && m != DH_SENT) {
			ours = false;
			t->cohold = m == DH_CO && !t->codone;
			t->codone = false;
		}
	}
	/*
	 * Any other stop while a copyout() probe's SIGURG is still pending
	 * (another signal dequeued first, a group-stop) is kept too: the
	 * thread runs nothing, a handler included, before the write.
	 */
	if (map_get(t->tid) == DH_CO && !t->codone)
		t->cohold = true;
	/*
	 * A stop of ours seen while the process is held is an arming
	 * (proc_refresh()) under way, which must not be entered again: the
	 * thread stays stopped until the next poll arms (dlhold_poll()).
	 */
	t->hold = ours;
	dp->arm |= ours;
	if (ours && !dp->depth && !dh.arming)
		dh_arm(dp);
	else if (!dp->depth)
		th_resume(t);
}

/* a thread's state letter from its stat ('Z': a zombie leader); 0: gone */
static char th_state(pid_t pid, pid_t tid)
{
	struct proc_stat ps;
	char name[48];

	snprintf(name, sizeof(name), "task/%d/stat", (int)tid);
	return proc_stat_read(pid, name, &ps, NULL, 0) == 0 ? ps.state : 0;
}

/* a thread that runs nothing until we say so */
static bool th_still(const struct dh_thread *t)
{
	return t->state == TH_STOP || t->state == TH_LISTEN ||
	       t->state == TH_ZOMBIE;
}

/* Wait until thread tid has stopped (or is gone). */
static void th_wait_stop(struct dh_proc *dp, pid_t tid)
{
	for (;;) {
		size_t i;
		int st;
		pid_t w;
		char c;

		for (i = 0; i < dp->nth && dp->th[i].tid != tid; i++)
			;
		if (i == dp->nth || th_still(&dp->th[i]))
			return;
		w = waitpid(tid, &st, __WALL | WNOHANG);
		if (w == tid) {
			dh_status(dp, i, st);
			continue;
		}
		c = w < 0 ? 0 : th_state(dp->pr->pid, tid);
		if (c == 'Z') {
			dp->th[i].state =
				TH_ZOMBIE; /* dlhold_poll() reaps it */
			return;
		}
		if (!c || c == 'X') {
			th_del(dp, i);
			return;
		}
		nanosleep(&(struct timespec){0, 20000}, NULL);
	}
}

/* Every thread of dp stopped where it is (nested calls count). */
static void dh_stop(struct dh_proc *dp)
{
	if (dp->depth++)
		return;
	for (size_t i = 0; i < dp->nth; i++)
		if (dp->th[i].state == TH_RUN)
			(void)ptrace(PTRACE_INTERRUPT, dp->th[i].tid, NULL,
				     NULL);
	/*
	 * clones reported meanwhile join the list, and are waited too; a
	 * thread gone moves the last one to its place: until a round finds
	 * every thread still
	 */
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < dp->nth; i++)
			if (!th_still(&dp->th[i])) {
				th_wait_stop(dp, dp->th[i].tid);
				again = true;
			}
	}
}

static void dh_resume(struct dh_proc *dp)
{
	if (!dp->depth || --dp->depth)
		return;
	for (size_t i = 0; i < dp->nth; i++)
		th_resume(&dp->th[i]);
}

int dlhold_stop_all(pid_t pid)
{
	struct dh_proc *dp = dh_find(pid);

	if (!dp)
		return -1;
	dh_stop(dp);
	return 0;
}

void dlhold_resume_all(pid_t pid)
{
	struct dh_proc *dp = dh_find(pid);

	if (dp)
		dh_resume(dp);
}

/*
 * The record of a copyout() probe's hit in thread tid has run (its
 * writes made): the thread goes on from its stop, or, stopped for
 * another reason first or not stopped yet, when the stop of ours comes
 * (dh_status()).
 */
void dlhold_hit_done(pid_t pid, pid_t tid)
{
	struct dh_proc *dp = dh_find(pid);

	for (size_t i = 0; dp && i < dp->nth; i++) {
		struct dh_thread *t = &dp->th[i];

		if (t->tid != tid)
			continue;
		t->codone = map_get(tid) == DH_CO;
		if (t->cohold) {
			t->cohold = false;
			if (!dp->depth)
				th_resume(t);
		}
		return;
	}
}

/*
 * A thread stopped in dlopen() or at its exec: the new library or image
 * armed, then all go on.  The buffers are read first: the exec's record
 * (the fork tracker's, written before the exec stop) has the new
 * image's probes found anew (lineage.c's lin_exec()).
 */
static void dh_arm(struct dh_proc *dp)
{
	bool held = dp->pr->held;

	dh_stop(dp);
	dh.arming = true;
	dp->pr->held = true; /* the arming holds nothing more of it */
	drain_buffers(dh.c);
	(void)proc_refresh(dh.c, dp->pr, NULL);
	dp->pr->held = held;
	dh.arming = false;
	dp->arm = false;
	for (size_t i = 0; i < dp->nth; i++)
		dp->th[i].hold = false;
	dh_resume(dp);
}

/* Every thread of pid seized, its clones to come too. */
static int dh_seize(struct dh_proc *dp)
{
	bool more = true;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;

	for (int round = 0; more && round < 100; round++) {
		DIR *d = proc_dir_open(dp->pr->pid);
		pid_t tid;

		more = false;
		if (!d)
			return -1;
		while ((tid = proc_dir_next(d)) > 0) {
			bool seen = false;

			for (size_t i = 0; i < dp->nth; i++)
				seen |= dp->th[i].tid == tid;
			if (seen)
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)opts) < 0) {
				/* a zombie leader cannot be seized either */
				if (errno == EPERM &&
				    th_state(dp->pr->pid, tid) != 'Z') {
					closedir(d);
					return -1; /* someone traces it */
				}
				continue; /* it exited */
			}
			more = true;
			(void)th_add(dp, tid, TH_RUN);
		}
		closedir(d);
	}
	return 0;
}

/*
 * dp let go: every thread stopped, taken out of the program's map, then
 * detached with the signal it stopped for.  The link (or the perf
 * events) closed by the caller's batch (close_with_next()): once every
 * thread is stopped none runs the program, and once out of the map
 * none is sent a SIGURG by it, so nothing it does after can stop one
 * (a dlopen() after this goes on unheld, as after the close it was; a
 * SIGURG the program sent before is seen in dh_stop() as ours and
 * swallowed, or, still pending at the detach, delivered: the program
 * sends it only where its delivery does nothing).
 */
static void dh_release(struct dh_proc *dp)
{
	dp->events = false;
	dh_stop(dp);
	for (size_t i = 0; i < dp->nth; i++) {
		__u32 k = (__u32)dp->th[i].tid;

		(void)bpf_map_delete_elem(dh.map_fd, &k);
		k |= DH_LAST;
		(void)bpf_map_delete_elem(dh.map_fd, &k);
	}
	if (dp->lfd >= 0)
		close_with_next(&dp->lfd, 1);
	dp->lfd = -1;
	for (size_t i = 0; i < dp->nth; i++) {
		struct dh_thread *t = &dp->th[i];

		if (t->pfd >= 0)
			close_with_next(&t->pfd, 1);
		t->pfd = -1;
		/* a group-stop is the kernel's again once detached; a thread
		 * held in dlopen() goes on, its SIGURG swallowed */
		(void)ptrace(PTRACE_DETACH, t->tid, NULL,
			     (void *)(long)(t->listen ? 0 : t->sig));
	}
	free(dp->th);
	free(dp->ldso);
	free(dp);
}

/*
 * The map and a program, the link's where the kernel takes it: 0, or
 * -1 with the reason said once
 */
/* the map and the offsets (also usdt.bpf.c's): 0, or -1 with why */
static int dh_open_map(struct consumer *c, char *why, size_t whylen)
{
	/*
	 * Entries made as threads are held (a few at a time; its programs
	 * are uprobes', process context, where the kernel may allocate): a
	 * preallocated 65,536 cost every run 24 ms of system time.  Before
	 * Linux 6.1 a tracing program's map allocated at run time makes the
	 * verifier WARN (and PREEMPT_RT refuse it): preallocated there.
	 */
	LIBBPF_OPTS(bpf_map_create_opts, noprealloc,
		    .map_flags = kernel_at_least(6, 1) ? BPF_F_NO_PREALLOC : 0);

	if (dh.map_fd >= 0)
		return 0;
	dh.c = c;
	if (dh_offsets(&dh.o) < 0)
		snprintf(why, whylen,
			 "the kernel's BTF does not describe task_struct's "
			 "signals");
	else if ((dh.map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "dtrace_dlhold",
					     4, 4, 65536, &noprealloc)) < 0)
		snprintf(why, whylen, "its map was refused: %s",
			 strerror(errno));
	return dh.map_fd < 0 ? -1 : 0;
}

int dlhold_map(struct consumer *c, long offs[3], char *why, size_t whylen)
{
	if (dh_open_map(c, why, whylen) < 0)
		return -1;
	offs[0] = dh.o.sighand;
	offs[1] = dh.o.blocked;
	offs[2] = dh.o.handler;
	return dh.map_fd;
}

static int dh_open_prog(struct consumer *c, long delta)
{
	char why[512] = "";

	if (dh.progs || dh.failed)
		return dh.failed ? -1 : 0;
	dh.c = c;
	dh.delta = delta;
	if (dh_open_map(c, why, sizeof(why)) < 0) {
		dh_fail(c, why);
		return -1;
	}
	dh.progs = true;
	/* a kernel without uprobe_multi refuses the attach type */
	dh.multi_no = !multi_wanted();
	if (!dh.multi_no)
		dh.mprog_fd = dh_prog(dh.map_fd, delta, &dh.o, true, NULL, 0);
	dh.multi_no |= dh.mprog_fd < 0;
	return dh.multi_no ? (dh_plain_prog() < 0 ? -1 : 0) : 0;
}

/* pid's entry made by dlhold_prelink(), or NULL */
static struct dh_pre *dh_pre_find(pid_t pid)
{
	for (size_t i = 0; i < dh.npre; i++)
		if (dh.pre[i].pid == pid)
			return &dh.pre[i];
	return NULL;
}

/*
 * pid's entry made by dlhold_prelink() taken out of the list: true, *p
 * its (the caller frees p->ldso); false, p->lfd -1 and p->ldso NULL.
 */
static bool dh_pre_pop(pid_t pid, struct dh_pre *p)
{
	struct dh_pre *e = dh_pre_find(pid);

	if (!e) {
		*p = (struct dh_pre){.pid = pid, .lfd = -1};
		return false;
	}
	*p = *e;
	*e = dh.pre[--dh.npre];
	return true;
}

/* pid's link made by dlhold_prelink(), taken out of the list; or -1 */
static int dh_pre_take(pid_t pid)
{
	struct dh_pre p;

	(void)dh_pre_pop(pid, &p);
	free(p.ldso);
	return p.lfd;
}

/* a link made before the seize and not used: nothing waits on its close */
static void dh_pre_drop(int lfd)
{
	if (lfd >= 0)
		close_later(&lfd, 1);
}

/*
 * A -c command rtld.c holds at its entry point, its sites being armed
 * (uprobe.c's up_enable()): its link on ld.so made then rather than at
 * BEGIN, when dlhold_handover() seizes it.  A uprobe's registration
 * takes the kernel's dup_mmap_sem for writing, whose rcu_sync waits a
 * grace period unless the last writer left less than one before: made
 * at BEGIN the link waited one of its own in about half the runs
 * (0.8-35 ms), made just after the site links' it does not.  So the
 * map, the program and ld.so's offsets are made first (link false,
 * before the sites: the map's creation alone took 2-10 ms, the whole
 * 12-44 ms, past the window), the link itself after them (link true).
 * The program stops no thread that is not in its map, and none is
 * until the seize: meanwhile the command runs nothing (rtld.c holds
 * it), and the link only notes the r_state of any hit.  Only the link:
 * the perf events (DTRACE_UPROBE_MULTI=0, older kernels) are per
 * thread, made after the seize.  Nothing here is said: dh_start()
 * says what fails, again.
 */
void dlhold_prelink(struct consumer *c, struct tproc *pr, bool link)
{
	struct dh_pre *p = NULL;
	struct dh_proc tmp = {.pr = pr, .lfd = -1};
	long delta = 0;

	for (size_t i = 0; i < dh.npre; i++)
		if (dh.pre[i].pid == pr->pid)
			p = &dh.pre[i];
	if (!link) {
		if (p || dh_find(pr->pid) || !multi_wanted())
			return;
		tmp.ldso = ldso_path(pr->pid);
		if (!tmp.ldso)
			return;
		if (ldso_debug(tmp.ldso, &tmp.off, &delta) < 0 ||
		    dh_open_prog(c, delta) < 0 || dh.multi_no) {
			free(tmp.ldso);
			return;
		}
		dh.pre = xpush_room(dh.pre, dh.npre, sizeof(*dh.pre));
		dh.pre[dh.npre++] = (struct dh_pre){
			.pid = pr->pid, .lfd = -1, .ldso = tmp.ldso,
			.off = tmp.off};
		return;
	}
	if (!p || p->lfd >= 0 || dh.multi_no)
		return;
	tmp.ldso = p->ldso;
	tmp.off = p->off;
	p->lfd = dh_link(&tmp);
}

/*
 * pr (a -p process) held at each dlopen() from now on: true, or false
 * with the reason said (the 100 ms arming stays).
 */
static bool dh_start(struct consumer *c, struct tproc *pr)
{
	struct dh_proc *dp;
	struct dh_pre p;
	bool had = dh_pre_pop(pr->pid, &p);
	char *ldso = had ? p.ldso : ldso_path(pr->pid);
	uint64_t off = p.off;
	long delta = dh.delta;
	size_t nev = 0;
	int err = 0, pre = p.lfd;

	if (!ldso) { /* static, or exited */
		dh_pre_drop(pre);
		return false;
	}
	/*
	 * a -c command's ld.so was read by dlhold_prelink(), which made
	 * the program from it (dh.delta): not read again
	 */
	if ((!had && ldso_debug(ldso, &off, &delta) < 0) ||
	    dh_open_prog(c, delta) < 0) {
		dh_pre_drop(pre);
		free(ldso);
		return false;
	}
	dp = xcalloc(1, sizeof(*dp));
	dp->pr = pr;
	dp->ldso = ldso;
	dp->off = off;
	dp->lfd = -1;
	if (dh_seize(dp) < 0) {
		dh_pre_drop(pre);
		say(c,
		    "pid %d cannot be held at its dlopen()s (it is traced "
		    "already): a library it loads is armed when its maps "
		    "are next read",
		    (int)pr->pid);
		dh_release(dp);
		return false;
	}
	/* the breakpoint last: a stop only where every thread is ours */
	dp->events = true;
	/*
	 * The link's filter reads the leader's mm: a leader that exited
	 * before its threads has none, and the breakpoint would be put in
	 * no process (those get the per-thread events)
	 */
	if (!dh.multi_no && th_state(pr->pid, pr->pid) != 'Z') {
		dp->lfd = pre >= 0 ? pre : dh_link(dp);
		pre = -1;
		/* the kernel does not know the link: never again this run */
		if (dp->lfd < 0 && (errno == EINVAL || errno == EOPNOTSUPP ||
				    errno == ENOTSUP_KERNEL)) {
			dh.multi_no = true;
			close(dh.mprog_fd);
			dh.mprog_fd = -1;
		}
	}
	dh_pre_drop(pre); /* not taken: the leader gone, or no links */
	if (dp->lfd >= 0)
		nev = 1;
	else if (dh_plain_prog() < 0) {
		dh_release(dp);
		return false;
	}
	for (size_t i = 0; dp->lfd < 0 && i < dp->nth; i++) {
		dp->th[i].pfd = th_event(dp, dp->th[i].tid);
		if (dp->th[i].pfd >= 0)
			nev++;
		else if (!err)
			err = errno;
	}
	if (!nev) {
		say(c,
		    "pid %d cannot be held at its dlopen()s (uprobe on "
		    "_dl_debug_state: %s): a library it loads is armed "
		    "when its maps are next read",
		    (int)pr->pid, strerror(err ? err : ESRCH));
		dh_release(dp);
		return false;
	}
	dh.p = xpush_room(dh.p, dh.np, sizeof(*dh.p));
	dh.p[dh.np++] = dp;
	dlhold_poll(c); /* stops that came while seizing */
	return true;
}

/*
 * dh_start() once for pr (bpf.c's bpf_enable() starts a -p process
 * before its sites are armed, consumer.c at BEGIN), and where it fails,
 * pr's site links, made for a -c command held until BEGIN (uprobe.c's
 * link_fits()), go over to uprobe events: no exec stop would close
 * them before a new image ran.
 */
bool dlhold_start(struct consumer *c, struct tproc *pr)
{
	if (dh_find(pr->pid))
		return true;
	for (size_t i = 0; i < dh.nrefused; i++)
		if (dh.refused[i] == pr->pid)
			return false; /* said */
	if (dh_start(c, pr))
		return true;
	up_site_relink(c, pr);
	PUSH(dh.refused, dh.nrefused, pr->pid);
	return false;
}

/*
 * A -c command let go (it was held by rtld.c under PTRACE_TRACEME's
 * tracer, which can neither interrupt nor listen) into a seize: detached
 * into a group-stop (SIGSTOP: none of its code has run, so no handler
 * sees it, and its parent is dtrace), seized there, then continued with
 * SIGCONT.  False: it runs, let go as before, armed by the maps.
 */
bool dlhold_handover(struct consumer *c, struct tproc *pr)
{
	bool ok = false;
	int st;

	/* dlhold_prelink()'s entry: its ld.so has the interface */
	if ((!dh_pre_find(pr->pid) && !ldso_has_debug(pr->pid)) ||
	    ptrace(PTRACE_DETACH, pr->pid, NULL, (void *)(long)SIGSTOP) < 0) {
		dh_pre_drop(dh_pre_take(pr->pid));
		return false; /* the caller detaches it */
	}
	if (waitpid(pr->pid, &st, WUNTRACED) != pr->pid || !WIFSTOPPED(st)) {
		dh_pre_drop(dh_pre_take(pr->pid));
		return false; /* gone: the loop sees its pidfd */
	}
	/* not held: its sites take uprobe events (it is stopped) */
	ok = dlhold_start(c, pr);
	(void)kill(pr->pid, SIGCONT);
	return ok;
}

/*
 * Each stop of a held thread passed on; called on every SIGCHLD and
 * every refresh (which also sees a dlopen() that was not held).
 */
/*
 * dp's leader exited before its threads: the link's filter, which reads
 * the leader's mm, no longer matches the process, and another consumer
 * of the same uprobe unregistering would take the breakpoint out of it.
 * Its threads get their perf events (which put the breakpoint back),
 * then the link goes.  Checked at each poll while the process has a
 * link or site links: the refresh of the maps polls every 100 ms.
 *
 * Another thread's exec makes the leader a zombie too, for a moment:
 * de_thread() kills every other thread, and the exec'ing one, woken by
 * the leader's exit, then takes its pid (the leader's pid is no zombie
 * from there on) and stops at its exec stop, which closes the links and
 * arms the new image on links again (dh_status()).  Nothing in /proc
 * tells that thread apart while it runs (its syscall file says
 * "running"), so a leader seen a zombie with threads alive is looked
 * at again, every millisecond for up to 20 ms, before it counts as gone
 * (one -p run in about twenty under load went over to uprobe events at
 * a thread's exec: exact all the same, the slower way).  Either way the
 * counts are exact; only the way the new image is armed differs.
 */
static bool leader_gone_once(const struct dh_proc *dp)
{
	bool live = false;

	if (th_state(dp->pr->pid, dp->pr->pid) != 'Z')
		return false;
	/* none left running: the process is exiting, links can stay */
	for (size_t i = 0; i < dp->nth && !live; i++) {
		char st = th_state(dp->pr->pid, dp->th[i].tid);

		live = st && st != 'Z' && st != 'X';
	}
	return live;
}

static bool leader_gone_first(const struct dh_proc *dp)
{
	struct timespec ms = {0, 1000 * 1000};

	for (int i = 0; i < 20; i++) {
		if (!leader_gone_once(dp))
			return false;
		nanosleep(&ms, NULL);
	}
	return leader_gone_once(dp);
}

static void dh_unlink(struct dh_proc *dp, bool gone)
{
	if (dp->lfd < 0 || !gone || dh_plain_prog() < 0)
		return;
	for (size_t i = 0; i < dp->nth; i++)
		if (dp->th[i].pfd < 0 && dp->th[i].tid != dp->pr->pid)
			dp->th[i].pfd = th_event(dp, dp->th[i].tid);
	close_later(&dp->lfd, 1);
	dp->lfd = -1;
}

void dlhold_poll(struct consumer *c)
{
	for (size_t p = 0; p < dh.np; p++) {
		struct dh_proc *dp = dh.p[p];
		bool gone;

		for (size_t i = 0; i < dp->nth;) {
			pid_t tid = dp->th[i].tid;
			size_t before = dp->nth;
			int st;

			if (waitpid(tid, &st, __WALL | WNOHANG) != tid) {
				i++;
				continue;
			}
			dh_status(dp, i, st);
			/* gone: i holds another thread now */
			if (dp->nth >= before && dp->th[i].tid == tid)
				i++;
		}
		for (size_t i = 0; i < dp->nth; i++)
			th_missed(dp, dp->th[i].tid);
		gone = (dp->lfd >= 0 || up_site_linked(c, dp->pr->pid)) &&
		       leader_gone_first(dp);
		dh_unlink(dp, gone);
		/* its site links' filter too (bpf_attach.c): the sites
		 * armed again as uprobe events, the process held */
		if (gone)
			up_site_relink(c, dp->pr);
		if (dp->arm && !dp->depth && !dh.arming)
			dh_arm(dp);
	}
}

/*
 * pr exited: what is left of it forgotten, its links and events closed
 * by the closer (nothing can hit them: close_after())
 */
void dlhold_gone(struct consumer *c, struct tproc *pr)
{
	struct dh_proc *dp = dh_find(pr->pid);
	int pre = dh_pre_take(pr->pid);

	if (pre >= 0)
		close_after(&pre, 1);
	if (!dp)
		return;
	dlhold_poll(c);
	for (size_t i = 0; i < dh.np; i++)
		if (dh.p[i] == dp)
			dh.p[i] = dh.p[--dh.np];
	if (dp->lfd >= 0)
		close_after(&dp->lfd, 1);
	dp->lfd = -1;
	if (dp->nth) { /* the process's events closed by one thread */
		int *fds = xcalloc(dp->nth, sizeof(*fds));

		for (size_t i = 0; i < dp->nth; i++) {
			fds[i] = dp->th[i].pfd;
			dp->th[i].pfd = -1;
		}
		close_after(fds, dp->nth);
		free(fds);
	}
	while (dp->nth)
		th_del(dp, 0);
	free(dp->th);
	free(dp->ldso);
	free(dp);
}

/* Every held process let go, where it was. */
void dlhold_end(struct consumer *c)
{
	(void)c;
	dlhold_poll(c);
	for (size_t i = 0; i < dh.np; i++)
		dh_release(dh.p[i]);
	free(dh.p);
	dh.p = NULL;
	dh.np = 0;
	free(dh.refused);
	dh.refused = NULL;
	dh.nrefused = 0;
	for (size_t i = 0; i < dh.npre; i++) {
		if (dh.pre[i].lfd >= 0)
			close_with_next(&dh.pre[i].lfd, 1);
		free(dh.pre[i].ldso);
	}
	free(dh.pre);
	dh.pre = NULL;
	dh.npre = 0;
	if (dh.prog_fd >= 0)
		close(dh.prog_fd);
	if (dh.mprog_fd >= 0)
		close(dh.mprog_fd);
	if (dh.map_fd >= 0)
		close(dh.map_fd);
	dh.prog_fd = dh.map_fd = dh.mprog_fd = -1;
	dh.progs = false;
}
