/* SPDX-License-Identifier: MIT */
/*
 * proc_impl.h - a traced process held and followed: freeze.c (its
 * threads stopped by ptrace while its sites are armed), dlhold.c (held
 * at each dlopen() until the new library is armed; stubs without
 * HAVE_BPF), rtld.c (a -c command run to where its libraries are
 * mapped), lineage.c (the fork tree a backend reports: whose probe a
 * hit is) and deadmem.c (copyin() of a process that exited).
 * Included by consumer_impl.h, at its end.
 */
#ifndef USDT_DTRACE_PROC_IMPL_H
#define USDT_DTRACE_PROC_IMPL_H

#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#error "include consumer_impl.h, which includes this file"
#endif

/* freeze.c: a process held still (ptrace) while its sites are armed */
struct frozen {
	pid_t tid;
	int sig; /* a signal that stopped it, delivered on release */
};
/* pid's threads seized and stopped, appended to *fz[0..n); the new n */
size_t proc_freeze(pid_t pid, struct frozen **fz, size_t n);
/* every thread of fz let go (and fz freed) */
void proc_thaw(struct frozen *fz, size_t n);

/*
 * dlhold.c: a -p process or -c command held at each dlopen() until the
 * new library is armed (HAVE_BPF); proc_freeze() holds such a process
 * through it
 */
#ifdef HAVE_BPF
bool dlhold_start(struct consumer *c, struct tproc *pr);
/* a -c command rtld.c holds let go into dlhold (false: let go, not held) */
bool dlhold_handover(struct consumer *c, struct tproc *pr);
/* that command's link on ld.so made beside its site links: what it
 * needs before them (link false), the link after them (true) */
void dlhold_prelink(struct consumer *c, struct tproc *pr, bool link);
void dlhold_poll(struct consumer *c);
void dlhold_gone(struct consumer *c, struct tproc *pr);
void dlhold_end(struct consumer *c);
bool dlhold_owns(pid_t pid);
bool dlhold_multi_wanted(void);
int dlhold_stop_all(pid_t pid);
void dlhold_resume_all(pid_t pid);
/*
 * copyout() with the thread held at its probe: the map usdt.bpf.c
 * shares (its fd, -1 with why) and the task_struct offsets it reads
 * (sighand, blocked, the SIGURG handler in sighand_struct); a held
 * hit's record has run (records.c)
 */
int dlhold_map(struct consumer *c, long offs[3], char *why, size_t whylen);
void dlhold_hit_done(pid_t pid, pid_t tid);
#else
static inline bool dlhold_start(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
	return false;
}
static inline bool dlhold_handover(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
	return false;
}
static inline void dlhold_prelink(struct consumer *c, struct tproc *pr,
				  bool link)
{
	(void)c;
	(void)pr;
	(void)link;
}
static inline void dlhold_poll(struct consumer *c)
{
	(void)c;
}
static inline void dlhold_gone(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}
static inline void dlhold_end(struct consumer *c)
{
	(void)c;
}
static inline bool dlhold_owns(pid_t pid)
{
	(void)pid;
	return false;
}
static inline bool dlhold_multi_wanted(void)
{
	return false;
}
static inline int dlhold_stop_all(pid_t pid)
{
	(void)pid;
	return -1;
}
static inline void dlhold_resume_all(pid_t pid)
{
	(void)pid;
}
static inline void dlhold_hit_done(pid_t pid, pid_t tid)
{
	(void)pid;
	(void)tid;
}
#endif

/* rtld.c: a -c command run to where its libraries are mapped */
/* ld.so's _dl_debug_state and _r_debug (dtrace's machine): 0, or -errno */
int rtld_ldso_symbols(const char *path, uint64_t *brk, uint64_t *rdebug,
		      uint64_t *lo, uint64_t *brk_off);
/* the file mapped at start in pid, by a path that reads that mapping's own
 * file (procfs.h), or NULL (malloc'd) */
char *rtld_mapped_at(pid_t pid, uint64_t start);
/* pid (ptrace-stopped after exec) run until ld.so has mapped everything
 * and stopped there: 0; -ENOENT/-ENOTSUP: no debugger interface to use
 * (nothing done); -EIO: failed halfway; *exited if it ended meanwhile */
int rtld_run_to_consistent(pid_t pid, bool *exited);
/* the uprobe events of the holds done, handed to the closer */
void rtld_holds_close(void);
/* the uprobe PMU's perf type (sysfs), or -1 where the kernel has none */
int rtld_uprobe_pmu_type(void);

/* lineage.c */
void lin_fork(struct consumer *c, pid_t ppid, pid_t pid, pid_t tid, uint64_t t);
void lin_exec(struct consumer *c, pid_t pid, uint64_t t);
/* the image of pid at t: its exec() time (0: the first known), and
 * the next exec()'s (UINT64_MAX: none known) */
void lin_image(struct consumer *c, pid_t pid, uint64_t t, uint64_t *since,
	       uint64_t *until);
/* pr exec'd: its new image's probes are found and armed anew */
void proc_exec_reset(struct consumer *c, struct tproc *pr);
void lin_exit(struct consumer *c, pid_t pid, pid_t tid, uint64_t t);
void lin_gone(struct consumer *c, pid_t pid, uint64_t t);
void lin_own(struct consumer *c, pid_t pid, struct tfile *f, uint64_t off,
	     uint64_t t);
void lin_know(struct consumer *c, pid_t pid, uint64_t t);
bool lin_carries(struct consumer *c, pid_t pid, const struct tfile *f,
		 uint64_t off, uint64_t t);
/* pid at t was forked from a process the tree knows (it has the tracker) */
bool lin_forked(struct consumer *c, pid_t pid, uint64_t t);
/* the birth of pid's newest life the tree knows, 0: none */
uint64_t lin_newest_born(struct consumer *c, pid_t pid);
struct tprobe *lin_hit_probe(struct consumer *c, pid_t pid, uint64_t t,
			     const struct hit_at *at, bool *defer);
/* live processes the tree knows that are not in c->procs (to free) */
size_t lin_untraced_alive(struct consumer *c, pid_t **out);

/* lineage.c: the parent the fork tree knows for pid, or 0 */
pid_t lin_ppid_at(struct consumer *c, pid_t pid, uint64_t t);
pid_t lin_parent(struct consumer *c, pid_t pid);

/* deadmem.c: copyin() of an exited process from its read-only files */
int deadmem_read(struct consumer *c, pid_t pid, uint64_t addr, void *buf,
		 size_t len);

#endif /* USDT_DTRACE_PROC_IMPL_H */
