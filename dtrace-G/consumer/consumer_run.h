/* SPDX-License-Identifier: MIT */
/*
 * consumer_run.h - the functions of the run's common parts that other
 * files call, by the file that defines them: consumer.c (say(), files
 * read, the processes, the backend chosen again), fdclose.c (perf
 * events closed in batches), struct umulti_attr (BPF_LINK_CREATE of a
 * uprobe_multi link, for dlhold.c and bpf_attach.c), ctypes.c (the
 * targets' C types), uprobe.c (what the bpf backend builds on),
 * sites.c and usdtprov.c (files, probes, the clauses matched),
 * records.c (hits read and run) and kprov.c (the kernel providers, in
 * the order a run calls them).  Included by consumer_impl.h, at its
 * end.
 */
#ifndef USDT_DTRACE_CONSUMER_RUN_H
#define USDT_DTRACE_CONSUMER_RUN_H

#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#error "include consumer_impl.h, which includes this file"
#endif

/* consumer.c: helpers every part uses */
void say(struct consumer *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* bytes of a CPU's buffer for -x bufsize (0: the default), page-rounded */
size_t consumer_bufsize(size_t want);
char *read_file(const char *path, size_t *lenp);
/* /proc/pid/name whole (procfs.h's proc_read_text), or NULL */
char *read_proc(pid_t pid, const char *name, size_t *lenp);
/* pid's current image laid out by the kernel (end_code set) */
bool image_laid_out(pid_t pid);
/* fdclose.c: close n descriptors (< 0 skipped) from many threads at once:
 * each close of a uprobe perf event waits for grace periods */
void close_many(const int *fds, size_t n);
/* ... or, for the events of a process that exited, from a thread while
 * the run goes on; close_wait() joins what is still closing */
void close_later(const int *fds, size_t n);
/* ... or, where nothing waits for the close, not even dtrace's exit, by
 * the closer, a child that outlives dtrace by those closes' waits */
void close_after(const int *fds, size_t n);
/* a helper child set apart from dtrace (the closer, the reaper), its
 * socket at 3; child_wait(): dtrace waits until it holds nothing else */
void child_detach(int sk, const char *name, bool keep_err);
bool child_wait(int fd);
/* ... or with the next close_many()'s, in its batch (close_wait() at the
 * latest): descriptors whose close nothing waits on until then */
void close_with_next(const int *fds, size_t n);

/*
 * BPF_LINK_CREATE of a uprobe_multi link (Linux 6.6 on), written out:
 * Debian 12's linux/bpf.h and libbpf 1.1 predate it.  The layout is the
 * kernel's union bpf_attr link_create, which does not change
 * (dlhold.c's breakpoint on ld.so, bpf_attach.c's site links).
 */
#define UMULTI_ATTACH 48 /* enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI */
struct umulti_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, mflags, pid;
};
void close_wait(void);
uint64_t now_ns(clockid_t clk);
struct tproc *proc_find(struct consumer *c, pid_t pid);
struct tproc *proc_add(struct consumer *c, pid_t pid, bool target);
/*
 * The backend in use cannot do caps (BE_CAP_*): it is closed and the
 * first other backend, in backend_choose()'s order, that can and opens
 * is used; 0, or the last one's -errno (it is c->be still).
 */
int backend_next(struct consumer *c, unsigned caps);
/*
 * -x activation=user: a kernel backend opened beside c->be (the
 * in-process one), into c->be_kernel: 0, or -1 with c->be_why
 */
int backend_open_kernel(struct consumer *c);

/* ctypes.c: the traced programs' C types (DWARF), for the D compiler */
struct dt_ctypes;
struct dt_ctypes *ctypes_open(struct consumer *c);
int ctypes_lookup(void *ctx, const char *obj, int kind, const char *name,
		  const struct d_ctype **t, char *msg, size_t msglen);

/* uprobe.c: what the bpf backend shares */
int up_open(struct consumer *c);
void up_enable(struct consumer *c, struct tproc *pr);
void up_track(struct consumer *c, struct tproc *pr);
void up_proc_exit(struct consumer *c, struct tproc *pr);
void up_proc_exec(struct consumer *c, struct tproc *pr);
void up_site_relink(struct consumer *c, struct tproc *pr);
bool up_site_linked(const struct consumer *c, pid_t pid);
void up_drain(struct consumer *c);
bool up_trk_exec_unread(const struct consumer *c, pid_t pid, uint64_t after,
			uint64_t *t);
void up_stop(struct consumer *c);
void up_close_procs(struct consumer *c);
void up_close(struct consumer *c);

/* sites.c */
bool vaddr_to_off(const struct tfile *f, uint64_t v, uint64_t *off);
bool sym_lookup(const struct tfile *f, const char *name, size_t len,
		uint64_t *v);
const struct tnote *file_note_at(const struct tfile *f, uint64_t off);
/* may a description match a forked child's probe as its parent's, and
 * would a child's probe at p's site match p's clauses (sites.c) */
bool descs_may_pass(const struct consumer *c);
bool probe_child_same(const struct consumer *c, const struct tprobe *p);
struct d_kplan;
int exit_scope(const struct consumer *c, const struct tprobe *p,
	       const struct d_kplan *kp);
bool probe_matches(const struct dt_desc *d, const char *provider,
		   const char *mod, const char *func, const char *name);
bool proc_refresh(struct consumer *c, struct tproc *pr,
		  const struct reg_proc *rp);
struct proc_map; /* procfs.h */
/* the file mapped at m in pid, read once per run (cached by dev, ino);
   NULL if it cannot be looked at */
struct tfile *file_get(struct consumer *c, pid_t pid, const struct proc_map *m);
/* close what file_get() left open of a file it made (f->of) */
void file_release(struct tfile *f);
/* pid's probe at a site; with derive, made from another process's */
struct tprobe *probe_at_site(struct consumer *c, pid_t pid,
			     const struct tfile *f, uint64_t off, bool derive);
/* a probe record (its strings are its own now); probe_match() when set */
struct tprobe *probe_make(struct consumer *c, pid_t pid, char *bprov,
			  char *prov, char *mod, char *func, char *name,
			  struct tfile *f, unsigned nargs,
			  const char *const *argv);
void probe_match(struct consumer *c, struct tprobe *p);
/* pid's probe of these names, or NULL */
struct tprobe *probe_find(struct consumer *c, pid_t pid, const char *prov,
			  const char *mod, const char *func, const char *name);
/* the probe whose records carry id, a process's or a kernel provider's;
   ctx is the consumer (kplan.h's d_kplan_probe_fn) */
const struct d_probe *probe_by_id(void *ctx, unsigned id);
/* a name from a file or a process as a probe carries it: escaped */
char *probe_name_dup(const char *s);
/*
 * Clause ci enables probe p (a struct tprobe, or kprov.h's struct
 * kprobe: the same members): appended to its clauses, in program order,
 * with the epid its records carry, and what the clause reads (ERROR's
 * clauses too, c->eneeds: they read the faulting firing's) added to
 * what the probe's sites fetch.
 */
#define PROBE_CLAUSE_ADD(c, p, ci)                                             \
	do {                                                                   \
		PUSH((p)->clauses, (p)->nclauses, (ci));                       \
		/* in step with clauses, its room implied by the count */      \
		(p)->epids = xpush_room((p)->epids, (p)->nclauses - 1,         \
					sizeof(*(p)->epids));                  \
		(p)->epids[(p)->nclauses - 1] = ++(c)->next_epid;              \
		(p)->strmask |= d_clause_strargs((c)->prog, (ci));             \
		(p)->needs |= d_clause_needs((c)->prog, (ci)) | (c)->eneeds;   \
	} while (0)
/* usdtprov.c: 1 if pid maps a file with a USDT probe some description
   matches, 0 if not, -1 if its maps are those of hash *mh (set to the
   maps' hash) */
int usdt_maps_wanted(struct consumer *c, pid_t pid, const struct reg_proc *rp,
		     uint64_t *mh);

/* records.c */
void hit_push(struct consumer *c, const struct hit *h);
size_t arena_put(struct consumer *c, const void *p, size_t n);
/* false: a pending SIGINT/SIGTERM/SIGHUP ended it at a round's end, while
 * tracing went on (!c->done), with records left unread */
bool read_buffers(struct consumer *c);
bool hits_kept_of(const struct consumer *c, pid_t pid);
bool hits_kept_of_tid(const struct consumer *c, pid_t tid);
/* the backend's records into the hits, not run (lin_* facts applied) */
void drain_buffers(struct consumer *c);
void fire_dtrace(struct consumer *c, const struct d_probe *dp,
		 const unsigned *cl, unsigned n);
int copyin(void *ctx, pid_t pid, uint64_t addr, void *buf, size_t len);
pid_t parent_of(void *ctx, pid_t pid);
void anc_take(struct tproc *pr);

/* records.c: let go of the threads that exited (d_thread_exit()) */
void threads_reap(struct consumer *c);
/*
 * records.c: run clauses cl (epids ep) of probe dp for firing f, whose
 * probe-specific part the decoder filled: the clocks, copyin and the
 * thread are added here, as for every hit.
 */
void hit_run(struct consumer *c, const struct d_probe *dp, const unsigned *cl,
	     const unsigned *ep, unsigned n, struct d_fire *f);
/*
 * ... a hit some of whose clauses cl the kernel ran (c->kagg_rec): the
 * others, ucl (a subsequence of cl, in order), run here, and a fault
 * the kernel's had (c->kfault) is reported in its place among them, as
 * is printed what one computed for printf() and trace() (c->kout).
 */
void hit_run_kagg(struct consumer *c, const struct d_probe *dp,
		  const unsigned *cl, const unsigned *ep, unsigned n,
		  const unsigned *ucl, const unsigned *uep, unsigned nu,
		  struct d_fire *f);
/* records.c: a firing in dtrace itself (BEGIN, END, tick-N) */
void fire_self(struct consumer *c, struct d_fire *f, char *comm,
	       size_t commlen);

/*
 * kprov.c: the kernel providers, in the order a run calls them: match
 * the clauses (before the processes are read; descriptions count their
 * matches), arm (after the processes were enabled; 0 or -1 said), start
 * the ticks (after BEGIN), then their fds in the loop, their records
 * into the hits (drain) and each such hit run (hit.kprov), and stop.
 */
void kprov_match(struct consumer *c);
unsigned kprov_source_matches(struct consumer *c, unsigned lo, unsigned hi);
/* why d, which matched nothing, names no probe (a bad rate), or NULL */
const char *kprov_why(struct consumer *c, const struct dt_desc *d, char *buf,
		      size_t len);
int kprov_arm(struct consumer *c);
void kprov_start(struct consumer *c);
size_t kprov_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max);
/* true when a firing whose clause folds was read (bpf_barrier()) */
bool kprov_drain(struct consumer *c);
void kprov_hit(struct consumer *c, const struct hit *h);
/* kprov_stop_begin() starts the closes, kprov_stop() waits for them */
void kprov_stop_begin(struct consumer *c);
void kprov_stop(struct consumer *c);
const struct d_probe *kprov_probe_of(struct consumer *c, unsigned id);
/*
 * The horizon (kplan_exit.c's "Why exit()"): whether clause ci fires at
 * tick-N probes alone, by its descriptions (dtrace:::END beside them
 * too: it runs after the last merge); a site it matched after all
 * (kprov_horizon_off(): the horizon 0 for good); the next tick firing's
 * due time, UINT64_MAX when none is to come (a hit stamped at or past
 * it waits for it); the horizon moved to the next firing whose clause
 * may exit, after a read that ran the firings before it.
 */
bool kprov_tick_clause(const struct consumer *c, unsigned ci);
uint64_t kprov_horizon0(const struct consumer *c); /* before BEGIN */
/* the one period of the ticks that may exit() or fold, else 0
 * (bpf_agg_cgen.c: kplan_exit.c's "Intervals") */
uint64_t kprov_fold_period(const struct consumer *c);
/* exit() at the hit (kplan_exit.c): clause ci's kernel probes each fire a
 * program (bpf_agg_cgen.c's traced_clause()) */
bool kprov_prog_clause(const struct consumer *c, unsigned ci);
void kprov_horizon_off(struct consumer *c);
uint64_t kprov_next_due(const struct consumer *c);
void kprov_horizon(struct consumer *c);
void kprov_site_fold(struct consumer *c, const unsigned *cl, unsigned n);
/* a site's program loaded that reads no clock under the lease (-v) */
void kprov_hzfree(struct consumer *c);
/* user space ran exit(): the kernel's programs stop (kplan_exit.c's "The
 * flood") */
void kprov_exited(struct consumer *c);

#endif /* USDT_DTRACE_CONSUMER_RUN_H */
