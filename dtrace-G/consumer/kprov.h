/* SPDX-License-Identifier: MIT */
/*
 * kprov.h - what the kernel providers' files share (kprov.c, the common
 * part; kprov_syscall.c, kprov_profile.c, kprov_proc.c, one provider
 * each, its table a struct provider of consumer_impl.h).  kprov.c's
 * design comment says how they fit the consumer; the rest of the
 * consumer sees only the kprov_* functions of consumer_impl.h.
 */
#ifndef USDT_DTRACE_KPROV_H
#define USDT_DTRACE_KPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "consumer_impl.h"

enum kp_kind {
	KP_SYS_ENTRY,
	KP_SYS_RETURN,
	KP_PROFILE,
	KP_TICK,
	KP_PROC_CREATE,
	KP_PROC_EXEC,
	KP_PROC_EXIT,
};

/* A kernel probe as its provider names it (dtrace -l, matching). */
struct kp_name {
	struct dt_kprobe d; /* names and argument types (consumer.h) */
	const struct provider *prov; /* its provider's table */
	enum kp_kind kind;
	int nr;		 /* KP_SYS_*: the system call's number */
	uint64_t period; /* KP_PROFILE, KP_TICK: ns between firings */
};

/* A kernel probe some clause enables in this run. */
struct kprobe {
	unsigned idx; /* in struct kprov: the record's ev is UBPF_EV_KPROV | idx */
	struct kp_name n; /* the names are the probe's own copies */
	struct d_probe dp;
	unsigned *clauses, *epids, nclauses;
	/* after a plan went into the kernel: the clauses user space runs */
	unsigned *uclauses, *uepids, nuclauses;
	uint16_t strmask; /* d_clause_strargs() of its clauses */
	uint32_t needs;	  /* d_clause_needs() of its clauses */
};

/* A perf event and the program attached to it (NULL: none yet). */
struct bpf_link;
struct kp_attach {
	int fd;
	struct bpf_link *link;
};

/* A tick-N probe's timer (kprov_profile.c). */
struct kp_tick {
	struct kprobe *p;
	int fd;	     /* timerfd, CLOCK_MONOTONIC */
	uint64_t t0; /* when it was set: firing k is at t0 + k * period */
	uint64_t k;  /* firings pushed */
};

struct kprov {
	struct kprobe **probes;
	size_t n;
	/* names the descriptions spell out (profile-N is made on demand) */
	char **names;
	size_t nnames;
	/* what the providers armed: given back by kprov_stop() */
	struct kp_attach *att;
	size_t natt;
	struct kp_tick *ticks;
	size_t nticks;
	bool stopped;
};

/* kprov.c: for the providers */
bool kp_has(const struct kprov *kp, enum kp_kind kind);
/* KiB of user stack p's records carry (-x ustacksize), 0: no clause asks */
uint8_t kp_ustk(struct consumer *c, const struct kprobe *p);
/* the bpf_cookie of a profile or proc probe (kprov_bpf.h) */
uint64_t kp_cookie(struct consumer *c, const struct kprobe *p);
/* give back on stop: a perf event fd and its link (NULL: fd only) */
void kp_attach_add(struct kprov *kp, int fd, struct bpf_link *link);
/* a perf event, or -1 with errno (PERF_FLAG_FD_CLOEXEC) */
struct perf_event_attr;
int kp_perf_open(struct perf_event_attr *a, pid_t pid, int cpu);

/*
 * kprov_proc.c: what the programs need to know of the running kernel
 * (struct ubpf_kconf: task_struct offsets from its BTF, tracepoint
 * fields from tracefs) into their map kconf; 0, or -1 with it said.
 */
int kp_kconf_fill(struct consumer *c, struct kprov *kp);
#ifdef HAVE_BPF
/* kprov_proc.c: the byte offset of member name of the BTF struct or
 * union id, its anonymous members searched too (depth 0); -1: none */
struct btf;
long kp_btf_member(const struct btf *btf, uint32_t id, const char *name,
		   int depth);
#endif
/* kprov.c: where tracefs is (the uprobe backend's finding, else the
 * usual place) */
const char *kp_tracefs(const struct consumer *c);
/* kprov.c: tracepoint grp:ev's ID in tracefs, or -1 */
int kp_tp_id(const struct consumer *c, const char *grp, const char *ev);
/* kprov.c: the offset of field in tracepoint grp:ev's record, or -1 */
int kp_tp_field(const struct consumer *c, const char *grp, const char *ev,
		const char *field);
/*
 * kprov_syscall.c: the run's system call probes of kind k go on the
 * per-call tracepoints syscalls:sys_enter_NAME (sys_exit_NAME), not on
 * the raw tracepoint
 */
bool kp_sys_per_call(const struct consumer *c, enum kp_kind k);

#endif /* USDT_DTRACE_KPROV_H */
