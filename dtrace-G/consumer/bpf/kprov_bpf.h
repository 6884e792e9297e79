/* SPDX-License-Identifier: MIT */
/*
 * kprov_bpf.h - the kernel providers (syscall, profile, proc; see
 * ../kprov.c): what their BPF programs (kprov.bpf.h, in usdt.bpf.c) and
 * the loader (../kprov*.c) agree on.  Fixed-size types of
 * <linux/types.h> only, as in usdt_bpf.h.
 *
 * A kernel provider's record is a USDT record (struct ubpf_rec) whose ev
 * has UBPF_EV_KPROV set; the rest of ev is the probe's index in the
 * consumer's table of kernel probes (struct kprov).  After the header
 * comes struct ubpf_kctx, what the firing thread's process is (a traced
 * USDT process is known to the consumer, any process may make a syscall
 * or take a profile tick), then nargs 8-byte arguments, then the
 * strings of strmask as in a USDT record, then, flagged UBPF_RF_USTACK,
 * the user registers and stack as in a USDT record (usdt_bpf.h): those
 * of the thread's user mode, where it was when it entered the kernel.
 *
 * syscall: ksys[nr] says which probe the entry and the return of system
 * call nr are (0: not traced), the arguments whose strings the entry
 * copies, and whether the thread's name is wanted.  A syscall no clause
 * traces costs the programs one array lookup.
 *
 * kconf[0]: what the loader found out about the running kernel, so the
 * programs need neither kernel headers nor CO-RE: offsets in struct
 * task_struct from the kernel's BTF (exit_code for proc:::exit,
 * real_parent and tgid for ppid) and the fields of tracepoints whose
 * layout changed over the versions (their tracefs format files), each
 * stored plus one, so 0 means "not known".
 */
#ifndef KPROV_BPF_H
#define KPROV_BPF_H

#include <linux/types.h>

/* ubpf_rec.ev of a kernel provider's record; the rest is the probe */
#define UBPF_EV_KPROV 0x80000000u
#define UBPF_KSYS_MAX 1024 /* system call numbers ksys holds */

/* proc: task_newtask's clone_flags of a thread; exit's arg0 (SIGCHLD's) */
#define KP_CLONE_THREAD 0x00010000
#define KP_CLD_EXITED 1
#define KP_CLD_KILLED 2
#define KP_CLD_DUMPED 3

/* ksys[nr] */
struct ubpf_ksys {
	__u32 ev[2];   /* entry, return: UBPF_EV_KPROV | probe, or 0 */
	__u16 strmask; /* entry: the arguments to copy as strings */
	__u8 comm[2];  /* entry, return: the thread's name */
	__u8 nargs;    /* the call's arguments (the per-call tracepoint's) */
	__u8 ustk[2];  /* entry, return: KiB of user stack (ubpf_ev's ustk) */
	__u8 pad;
};

/*
 * A profile or proc probe's bpf_cookie: its ev, and above it the KiB of
 * user stack its records carry (0: none), as ubpf_ev's ustk.
 */
#define UBPF_KCOOKIE_USTK_SHIFT 32

/* after struct ubpf_rec in a kernel provider's record */
struct ubpf_kctx {
	__u32 uid, gid;
	__u32 ppid; /* 0 when kconf does not know real_parent */
	__u32 pad;  /* progenyof()'s chain: struct ubpf_anc (usdt_bpf.h) */
};

/*
 * kconf[0]; each offset is the value plus one, 0: unknown.  The proc
 * probes are on raw tracepoints (../kprov_proc.c), whose arguments are
 * the TP_PROTO's; create is on task_newtask's perf event (its record's
 * fields, newtask_*) only where create_raw is not set.
 */
struct ubpf_kconf {
	__u32 task_exit_code;	/* offsetof(struct task_struct, ...) */
	__u32 task_real_parent;
	__u32 task_tgid;
	__u16 exit_group_dead;	/* sched_process_exit's group_dead */
	__u16 newtask_pid;	/* task_newtask's pid */
	__u16 newtask_flags;	/* task_newtask's clone_flags */
	__u16 pad[3];
	__u32 task_pid;		/* offsetof(struct task_struct, pid) */
	/* raw sched_process_exit's args[1] is group_dead (6.16 on) */
	__u8 exit_raw_gd;
	/* proc:::create on raw task_newtask (args: task, clone_flags) */
	__u8 create_raw;
	__u16 pad2;
	/* the probes' of the generic raw tracepoint programs (no cookie
	 * there before 6.10): kp_cookie()'s for exec, exit, create */
	__u64 ck_exec, ck_exit, ck_create;
};

#endif /* KPROV_BPF_H */
