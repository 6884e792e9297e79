/* SPDX-License-Identifier: MIT */
/*
 * provider_impl.h - the provider interface: struct provider, one table
 * per provider in the provider's own file (usdtprov.c, pidprov.c,
 * kprov_syscall.c, kprov_profile.c, kprov_proc.c), providers[] of
 * provider.c listing them, and provider.c's functions that answer for
 * a site by its kind.  Included by consumer_impl.h, at its end.
 */
#ifndef USDT_DTRACE_PROVIDER_IMPL_H
#define USDT_DTRACE_PROVIDER_IMPL_H

#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#error "include consumer_impl.h, which includes this file"
#endif

/*
 * A provider: one table, in the provider's own file, says what probes
 * it has and how a description matches them, what a backend must do to
 * arm them, how their arguments are read and what code runs at them.
 * providers[] (provider.c) lists them in the order their probes are
 * made, which is the order of their IDs.  There are two shapes:
 *
 * Site providers (USDT, pid) have probes at sites in the files the
 * traced processes map, each site an uprobe-style probe point of a kind
 * (SITE_*, in its key's top byte) that the provider owns (site_kinds):
 * file() makes the probe records a mapped file has, sites.c matches
 * them against the clauses, and the backend's enable() arms their
 * sites.  What an event at a site fetches is site_args()'s stapsdt
 * argument specs, which every backend turns into its own fetching
 * (tracefs fetch arguments, the BPF program's evspec, the fasttrap
 * module's ft_arg) and the generated program (cgen.c) into its prologue:
 * the specs are the provider's prologue.
 *
 * Kernel providers (syscall, profile and tick, proc: kprov.c) have
 * probes that are no site in a process: each() names every probe
 * (dtrace -l, matching), arm() arms the run's probes after the
 * processes' sites, and the code that runs at them is the programs of
 * bpf/kprov.bpf.h that progs names, each writing the arguments into
 * the record that kprov_hit() reads.
 */
struct kp_name; /* kprov.h */
struct kprov;	/* kprov.h */
struct kprobe;	/* kprov.h */
typedef void (*kp_each_fn)(const struct kp_name *n, void *arg);

/* A program of bpf/kprov.bpf.h and the kind of probe (kprov.h) it fires */
struct prov_prog {
	const char *name;
	int kind; /* enum kp_kind */
	/* system calls and proc:::create: -1 either; 0 the raw
	 * tracepoint; 1 the tracepoint's perf event (the call's own) */
	int per_call;
};

struct ubpf_kconf;
struct cgk;
struct provider {
	const char *name;
	/*
	 * What the backend must be able to do to arm its probes (BE_CAP_*):
	 * pid takes another backend; a kernel provider refuses the run.
	 */
	unsigned needs;

	/*
	 * dtrace -l: its rows after the registry's (struct dt_lister,
	 * consumer.h), pv being this table; 0 or row()'s non-zero return.
	 * NULL: none (USDT's probes are the registry's, which list.c reads).
	 */
	int (*list)(const struct provider *pv, const struct dt_lister *l);

	/* --- site providers --- */
	/* the site kinds it owns (1u << SITE_*); of those, return probes */
	unsigned site_kinds, ret_kinds;
	/* its probes are their process's alone: never armed binary-wide,
	 * never derived for a forked child (DTrace's fasttrap: pid) */
	bool pinned;
	/*
	 * After the descriptions are parsed and the backend chosen, before
	 * any process is read (pid: the processes pid<N> names, grabbed);
	 * 0, or -1 with it said.  NULL: nothing to do.
	 */
	int (*prepare)(struct consumer *c);
	/*
	 * pr maps f (f->failed: not an ELF file or no probes; first: f is
	 * not failed and pr is seen mapping it for the first time; rp: pr's
	 * registration, or NULL): make the probe records f has for pr,
	 * matched (probe_make(), probe_match()).
	 */
	void (*file)(struct consumer *c, struct tproc *pr, struct tfile *f,
		     bool first, const struct reg_proc *rp);
	/* what an event at site key fetches, as stapsdt argument specs */
	const char *(*site_args)(const struct tnote *note, uint64_t key);
	/* arming site key failed with err: said (once) and no error, when
	 * the site is one the kernel cannot probe (NULL: never) */
	bool (*refused)(struct consumer *c, const struct tfile *f, uint64_t key,
			int err);

	/* --- kernel providers --- */
	/*
	 * Each of its probes: those it always has, and those that the
	 * literal probe names in names[] make (profile-N, tick-N), each once.
	 */
	void (*each)(char *const *names, size_t nnames, kp_each_fn fn,
		     void *arg);
	/*
	 * Why a description that matched nothing matched nothing, when it
	 * names one of this provider's probes wrongly (a bad rate): into
	 * buf, else NULL.
	 */
	const char *(*why)(const struct dt_desc *d, char *buf, size_t len);
	/* arm this run's probes of the provider: 0, or -1 with it said */
	int (*arm)(struct consumer *c, struct kprov *kp);
	/*
	 * A firing of p whose thread and arguments kprov_hit() has read
	 * from its record: what the provider adds (syscall: the errno of a
	 * return).  NULL: nothing.
	 */
	void (*fire)(const struct kprobe *p, struct d_fire *f);
	/*
	 * Its code at probe p in a generated program (cgen_kprov.c): how
	 * its arguments are read, the prologue, into k (kprov.h's struct
	 * cgk), whose kc is what the kernel's BTF and tracefs said; with k
	 * NULL only whether it can.  false: the run takes the generic
	 * programs.  NULL: never generated.
	 */
	bool (*cg_pro)(const struct consumer *c, const struct kprobe *p,
		       const struct ubpf_kconf *kc, struct cgk *k);
	/* its programs; a probe of a kind no program fires (tick-N) fires
	 * in dtrace and needs no backend */
	const struct prov_prog *progs;
	size_t nprogs;
};

extern const struct provider prov_usdt, prov_pid, prov_syscall, prov_profile,
	prov_proc;
/* provider.c: every provider, in the order their probes get IDs */
extern const struct provider *const providers[];
extern const size_t nproviders;
/* the site provider of site kind k (SITE_*) */
const struct provider *site_provider(unsigned k);
/* what an event at site key fetches, as stapsdt argument specs */
const char *site_args(const struct tnote *note, uint64_t key);
/* site key is a return probe (a uretprobe, "r:") */
bool site_returns(uint64_t key);
/* arming site key failed with err: a site its provider says the kernel
 * cannot probe is said (once) and is no error */
bool site_refused(struct consumer *c, const struct tfile *f, uint64_t key,
		  int err);
/* every provider's prepare(): 0, or -1 said */
int providers_prepare(struct consumer *c);

#endif /* USDT_DTRACE_PROVIDER_IMPL_H */
