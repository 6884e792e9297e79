/* SPDX-License-Identifier: MIT */
/*
 * kprov.h - what the kernel providers' files share (kprov.c, the common
 * part; kprov_syscall.c, kprov_profile.c, kprov_proc.c, one provider
 * each, its table a struct provider of provider_impl.h).  kprov.c's
 * design comment says how they fit the consumer; the rest of the
 * consumer sees only the kprov_* functions of consumer_run.h (and bpf_be.h).
 */
#ifndef USDT_DTRACE_KPROV_H
#define USDT_DTRACE_KPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/kprov_bpf.h"
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

/* A kernel probe's names and argument types. */
struct dt_kprobe {
	const char *prov, *mod, *func, *name;
	unsigned nargs;
	const char *const *argtypes; /* nargs type names, or NULL */
};

/* A kernel probe as its provider names it (dtrace -l, matching). */
struct kp_name {
	struct dt_kprobe d; /* names and argument types */
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
	int cg_fd;	  /* its generated program (cgen_kprov.c), or -1 */
	/* ... whose plan keeps self-> variables: an unflagged record may
	 * be a process's user space keeps them for (bpf_agg_cgen.c's "Two
	 * copies") */
	bool cg_tls;
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
	/* a clause of its may exit(), printa(), clear() or trunc(): the
	 * horizon's; folds: one of the last three (kplan_exit.c's "printa() at
	 * tick-N") */
	bool exits;
	bool folds;
	/* firing late_k (from 1) is stamped late_t, not its due time: the
	 * horizon's lease was given back after it was due (hz_revoke()) */
	uint64_t late_k, late_t;
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
	/* the horizon last told the kernel (kprov_horizon()); hz_off: a
	 * tick-N clause matched a site, so it stays 0 */
	uint64_t hz;
	bool hz_off;
	/* the kernel's aggregations keyed by interval (kplan_exit.c's
	 * "Intervals"): the folding ticks' period and base (their
	 * firings at base + k * period), 0 for none; no horizon moves */
	uint64_t ival_per, ival_base;
	/* the lease (kplan_exit.c's "The lease"): while hz_lease is set the
	 * kernel holds UINT64_MAX, and hz_revoke() writes hz_lease there
	 * hz_margin before it (hzfd1: a timerfd for then, fd + 1, 0 for
	 * none); hz_leases counts them, hz_late those given back late */
	uint64_t hz_lease, hz_margin;
	int hzfd1;
	unsigned long hz_leases, hz_late;
	/* programs loaded that read no clock under the lease (cgen.c's
	 * hzfree): the sites' (kprov_hzfree()), the kernel probes' */
	unsigned hz_free_up, hz_free_kp;
	bool cg;		 /* the programs are generated (cgen_kprov.c) */
	bool kconf_found;	 /* kconf is kp_kconf_find()'s */
	struct ubpf_kconf kconf;
	/* generated, on the raw tracepoints sys_enter and sys_exit
	 * (kprov_syscall.c): each direction's dispatcher and its program
	 * array, fd + 1 (0: none); the array is kprov_stop()'s once armed */
	int sys_disp1[2], sys_arr1[2];
	/* ... the identity map both directions' shared programs read
	 * (fd + 1, 0: none; kp_sys_cg_load() fills it from sys_idv: entry
	 * by number, return by UBPF_KSYS_MAX + number) */
	int sys_id1;
	struct cgk_id *sys_idv;
	/* kp_sys_per_call()'s answer per kind - KP_SYS_ENTRY (0: not yet
	 * asked, 1 no, 2 yes) and per_call_fit()'s, + 1 (0: not yet),
	 * decided once: the probes are all matched before the first ask */
	uint8_t sys_pc[2];
	unsigned sys_fit1[2];
};

/* a probe in a program probes share: its ev's index and its id, as the
 * program reads them at the hit (cgen_kprov.c's kp_ident()) */
struct cgk_id {
	uint32_t ev, id;
};

/*
 * A kernel probe's prologue in a generated program, as its provider's
 * cg_pro() writes it with the cgk_*() emitters (cgen_kprov.c): code
 * entered with the context in r6 and pid_tgid in r7 that puts each of
 * nargs arguments, 8 bytes, at r10 + cgk_arg(i), using r0-r5 only, and
 * may end a firing that is none (a thread's creation) with cgk_exit();
 * what the program is (type: enum bpf_prog_type), the strings the
 * record copies, whether dtrace's own firings are left out.
 */
struct bpf_insn;
struct cgk {
	struct bpf_insn *v;
	size_t n;
	int type;
	unsigned nargs;
	uint16_t strmask;
	bool self;
	/* a program other probes of the provider may share (cgen_kprov.c):
	 * the code that leaves the hit's index in the identity map in r1
	 * (struct cgen_kpro's iv), the map (fd + 1, 0: the program is the
	 * probe's alone), its entries, and this probe's entry, which
	 * cg_probe() fills */
	struct bpf_insn *iv;
	size_t in;
	int idmap1;
	uint32_t idmax;
	struct cgk_id *id;
	/* where ustack()'s user registers are (bpf_be.h's enum
	 * cgk_ureg; 0, CGK_UREG_TASK: the saved ones) */
	uint8_t ureg;
};
/* one instruction (BPF_LDX | BPF_MEM | BPF_DW, ...) */
void cgk_put(struct cgk *k, uint8_t code, uint8_t dst, uint8_t src,
	     int16_t off, int32_t imm);
/* a jump whose offset cgk_fix() sets: its index */
size_t cgk_jmp(struct cgk *k, uint8_t code, uint8_t dst, int32_t imm);
/* the jump at j lands on the next instruction */
void cgk_fix(struct cgk *k, size_t j);
/* r0 = 0, exit: the firing is not the probe's */
void cgk_exit(struct cgk *k);
/* argument i's stack slot (off r10) */
int16_t cgk_arg(unsigned i);
/* size bytes of kernel memory at src + off into argument i's slot
 * (zeroed first; 0 when unreadable); r0-r5 clobbered */
void cgk_read_kernel(struct cgk *k, unsigned i, uint8_t size, uint8_t src,
		     int32_t off);

/* kprov.c: does a program fire p?  (tick-N's fire in dtrace) */
bool kp_has_prog(const struct kprobe *p);
/* kprov.c: the probe a kernel probe's record of ev (UBPF_EV_KPROV |
 * index) names, or NULL (bpf.c's bpf_kspec_fire(), kprov_hit()) */
struct kprobe *kprov_rec_probe(const struct consumer *c, uint32_t ev);
/*
 * kprov.c: probe p's program on perf event fd, given back on stop: the
 * generated one (p->cg_fd, bpf_cookie its ev) or the object's program
 * named prog with bpf_cookie cookie (0: none); 0, or -1 with errno
 */
struct bpf_object;
int kp_attach_perf(struct kprov *kp, const struct kprobe *p,
		   struct bpf_object *obj, const char *prog, int fd,
		   uint64_t cookie);
/* cgen_kprov.c: at kprov_arm(), whether the run's kernel probes have
 * generated programs (loaded by kprov_cg_load()): 1, 0 when the generic
 * programs are the run's, -1 with it said */
int kp_cg_arm(struct consumer *c, struct kprov *kp);
/* kprov_syscall.c, from kprov_cg_load(): the raw tracepoints'
 * dispatchers, once every probe has its program; 0, or -1 with
 * c->be_why.  kp_sys_cg_reset(): the arrays not armed, closed */
int kp_sys_cg_load(struct consumer *c, struct kprov *kp);
void kp_sys_cg_reset(struct kprov *kp);

/* kprov.c: for the providers */
/* each kernel provider's list (struct provider): its probes, from each() */
int kp_list(const struct provider *pv, const struct dt_lister *l);
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
 * fields from tracefs): into kp->kconf (once; nothing said), and then
 * into the generic programs' map kconf with what a probe cannot do
 * without said; 0, or -1 with it said.
 */
void kp_kconf_find(struct consumer *c, struct kprov *kp);
int kp_kconf_fill(struct consumer *c, struct kprov *kp);
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
/*
 * kprov_proc.c: the run's proc probe of kind k goes on its raw
 * tracepoint, not on the tracepoint's perf event (create, where the
 * kernel's BTF lacks task_struct's pid or task_newtask's arguments)
 */
bool kp_proc_raw(struct consumer *c, enum kp_kind k);

#endif /* USDT_DTRACE_KPROV_H */
