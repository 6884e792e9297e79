/* SPDX-License-Identifier: MIT */
/*
 * bpf_be.h - the BPF backend's parts that files beyond it call
 * (HAVE_BPF only): bpf.c's, the kernel aggregation's (bpf_agg*.c;
 * bpf_agg_impl.h holds what those share), the generated programs'
 * (cgen.c's struct cgen_maps: the maps and the plans compiled in;
 * cgen_kprov.c's struct cgen_kpro: a kernel probe's prologue),
 * bpf_cg.c's, the kernel providers' programs (kprov.c, cgen_kprov.c)
 * and cgen_out.c's out area read back.  bpf_impl.h is the backend's
 * own (bpf.c, bpf_cg.c, bpf_attach.c).  Included by consumer_impl.h,
 * at its end.
 */
#ifndef USDT_DTRACE_BPF_BE_H
#define USDT_DTRACE_BPF_BE_H

#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#error "include consumer_impl.h, which includes this file"
#endif

#ifdef HAVE_BPF
/* bpf.c: the kernel lets BPF programs write user memory (copyoutstr()) */
bool bpf_write_user_ok(void);

/* bpf_agg.c: aggregating in the kernel, for bpf.c (bpf_kagg_keeps_tls():
 * bpf_agg_cgen.c; bpf_kagg_merge(): bpf_agg_read.c) */
struct bpf_object;
struct bpf_kagg;
struct bpf_kagg *bpf_kagg_new(struct consumer *c, struct bpf_object *obj);
void bpf_kagg_enable(struct consumer *c, struct bpf_kagg *k, struct tproc *pr);
bool bpf_kagg_keeps_tls(const struct bpf_kagg *k);
void bpf_kagg_proc_exit(struct consumer *c, struct bpf_kagg *k, pid_t pid);
void bpf_kagg_merge(struct consumer *c, struct bpf_kagg *k);
void bpf_kagg_free(struct bpf_kagg *k);
/* the run's one plan, compiled into the program (bpf/kfix.bpf.h) */
struct ubpf_kfix;
struct ubpf_kplan;
struct ubpf_ev;
bool bpf_kfix_candidate(struct consumer *c, const struct tprobe *p,
			const struct ubpf_ev *s, struct ubpf_kfix *f,
			struct ubpf_kplan *pl);
void bpf_kfix_set(struct bpf_kagg *k, const struct ubpf_kfix *f,
		  const struct ubpf_kplan *pl, int bss_fd, int evspec_fd);
void bpf_kfix_off(struct bpf_kagg *k);
/* generated programs (cgen.c): their maps, the plans compiled in */
struct bpf_insn;
struct cgen_maps {
	int rb, drops;		  /* the record's ring buffer, its drops */
	int buf;		  /* a record with strings is built here */
	int kaggs, kflat, kdrops; /* kernel aggregation's, or -1 */
	unsigned kkeys;	   /* the keys in kaggs's key (bpf_kagg_cgen()) */
	int armed;	   /* {ev, pid} whose plan is compiled in */
	int arm1;	   /* by ev: its first such pid */
	int tls, tlsdrops; /* self-> variables, or -1 */
	int tlsa;	   /* self-> arrays' elements, or -1 */
	int tlsa1;	   /* ... of arrays of one key (cgtlsa1), or -1 */
	int tlss;	   /* self-> strings (cgen_out.c), or -1 */
	int kaggs_s;	   /* aggregations with a string key, or -1 */
	int kaggs_l;	   /* ... whose strings pass its UBPF_KSKEY, or -1 */
	unsigned lroom;	   /* ... kaggs_l's bytes of them (UBPF_KSLONG()) */
	int kaggs_v; /* ... a string variable's, execname, a literal; or -1 */
	/* a u32 set at a hit that goes to tlsu below (bpf_agg_cgen.c's "Two
	 * copies"), or -1 */
	int tlsuw;
	int tlsu, tlsufull; /* pids a self-> plan's hit missed, or -1 */
	int hzn; /* the horizon (u64: kplan_exit.c's "Why exit()"), or -1 */
	/* the run's activity (u64, 0 active: kplan_exit.c's "exit() at a
	 * traced probe"), or -1; the event's exit() tests, or NULL */
	int act;
	const struct ubpf_kplan *xpl;
	/* ... tested at that process's hits alone (sites.c's exit_scope():
	 * the exit clauses pin it), or 0: at every hit */
	uint32_t xpid;
	/* cgrcon, the run constants (u64 0: BEGIN not yet fired, then
	 * UBPF_KRCON slots: kplan_fkey.c's "Run constants in the
	 * kernel"), or -1 */
	int rcon;
	uint32_t self; /* dtrace's pid: its hits are skipped */
	uint32_t ev1;  /* a site link's event index + 1, or 0: the cookie */
	uint32_t lpid; /* ... and its process (ev1 only), or 0 */
	const struct cgen_kpro *kp; /* a kernel probe's program, or NULL */
	bool ustk_room;		    /* cgbuf holds a user stack's copy */
	/* ... and past its owner word the copy room (UBPF_KCPYROOM + 8
	 * bytes: kplan_mem.c, cgen_mem.c's mem_read()) */
	bool cpyroom;
	/* the unwinder's prog arrays (ustack_walk.c): perf event's,
	 * uprobe_multi's, fd + 1; 0: none, the stack copied */
	uint32_t uwalk1, uwalkm1;
	uint32_t ppid1[2]; /* task_struct's real_parent, tgid + 1, or 0 */
	/* a clause calls progenyof(): a record's ppid comes with the
	 * chain of parents (anc_wanted(); cgen_rec.c's anc_walk()) */
	bool anc;
	uint32_t ecred1[3];  /* ... cred, cred's euid, egid (ecred_offs()) */
	uint32_t sess1[4];   /* ... signal, pids, numbers, nr (sess_offs()) */
	uint32_t psargs1[3]; /* ... mm, arg_start, arg_end (psargs_offs()) */
	/* kaggs_v's short keys (kagg_bpf.h's UBPF_KVSHORT), or -1 */
	int kaggs_w;
	/* kaggs_v's pairs whose strings are short (cgen_agg.c's "Short
	 * pairs"), or -1 */
	int kaggs_x;
	/* vtimestamp's clock (cgen_rec.c), or -1; se.sum_exec_runtime + 1 */
	int vtimes, vtlink;
	uint32_t sumexec1;
	bool vtlose; /* DTRACE_VTIME_LOST: the seed marks it lost */
	/* cgzero: 16 zero bytes, a new aggregation entry's value
	 * (cgen_agg.c's agg_find()), or -1 */
	int zero;
	/* copyout() with the thread held at its probe (dlhold.c's map,
	 * dlhold_map(): not the generated programs' to close), or -1; the
	 * offsets + 1 of task_struct's sighand and blocked and of
	 * SIGURG's handler in sighand_struct (cgen_rec.c's u_hold()) */
	int hold;
	uint32_t hold1[3];
	/* out, where not NULL: whether the program reads the clock only
	 * when the horizon is not dtrace's lease (cgen.c's hzfree) */
	bool *hzfree;
	/* rb's last wake-up (bpf/rbwake.bpf.h: the unwinder's too) */
	int wake;
	/* rb's bytes as made (BPF_RB_RING_SIZE: cgen.c's rb_wake_ask()
	 * compares with half of it as an immediate; 0: asks the ring) */
	uint32_t rbsize;
	/* the lease is in arm1's words too (bpf_agg_cgen.c's hz_marks()): a
	 * horizon and no exit() decided at a hit (cgen.c's hzarm) */
	bool hzarm;
	/* cgspec: the speculation buffers' words, nspec u64 in one entry
	 * (kplan_spec.c's d_kplan_kspec(), cgen_spec.c), or -1; a plan
	 * holding UBPF_K_SPEC, SPECU or SPECX without it is refused */
	int spec;
	/* the kernel's aggregations keyed by interval (kplan_exit.c's
	 * "Intervals"): a key's pad word is (its hit's clock - base) /
	 * per, its low 32 bits (cgen.c); per 0: none */
	uint64_t ival_base, ival_per;
};
/*
 * cgbuf's rooms past its owner word (cgen.c's cg_room_off()): the copy
 * room (UBPF_KCPYROOM + 8 bytes, where m->cpyroom), the chain room
 * (UBPF_ANCROOM, where m->anc), then the key room (a struct
 * ubpf_klkey, always: kaggs_v's and kaggs_l's keys are built there);
 * CG_ROOM_END is cgbuf's value size (bpf_cg.c).
 */
enum cg_room { CG_ROOM_CPY, CG_ROOM_ANC, CG_ROOM_VKEY, CG_ROOM_END };
uint32_t cg_room_off(const struct cgen_maps *m, enum cg_room r);
/*
 * A kernel probe's program (cgen_kprov.c): its provider's prologue,
 * entered with the context in r6 and pid_tgid in r7, which leaves the
 * arguments in the stack slots cgen_arg_slot() names (r0-r5 its own,
 * an exit its own to skip a firing); the record after the header a
 * struct ubpf_kctx, the parent's tgid read through task_struct at
 * parent1 - 1 and tgid1 - 1 (0: ppid 0).
 */
struct cgen_kpro {
	const struct bpf_insn *v;
	size_t n;
	uint32_t parent1, tgid1;
	/* a program probes share (idmap >= 0): iv the provider's code,
	 * entered with the context in r6 before the prologue, that leaves
	 * in r1 the hit's index in idmap, a one-entry array whose value is
	 * idmax struct cgk_id (kprov.h): the probe's ev and id, read at
	 * the hit instead of immediates (r0-r5 its own, an exit its own) */
	const struct bpf_insn *iv;
	size_t in;
	int idmap;
	uint32_t idmax;
	/* where ustack()'s user registers are (enum cgk_ureg), and
	 * whether the kernel has the BTF bpf_task_pt_regs() needs */
	uint8_t ureg;
	bool btf;
};
/*
 * Where a kernel probe's program finds the user registers of the
 * thread it fired in (cgen_ustk.c's kp_uregs(), as kprov.bpf.h's programs
 * find them): those saved at the top of its kernel stack
 * (bpf_task_pt_regs(): a tracepoint's), a raw tracepoint's struct
 * pt_regs * (sys_enter's and sys_exit's args[0]), or a perf event's
 * own where the sample interrupted user mode, else the saved ones.
 */
enum cgk_ureg {
	CGK_UREG_TASK,
	CGK_UREG_RAW,
	CGK_UREG_PERF,
};
int16_t cgen_arg_slot(unsigned i);
bool cgen_emit(const struct cgen_maps *m, const struct ubpf_ev *s,
	       const struct ubpf_kplan *pl, struct bpf_insn **out, size_t *n);
struct bpf_kagg *bpf_kagg_cgen(struct consumer *c, struct cgen_maps *m,
			       int *err);
bool bpf_kagg_plan(struct consumer *c, struct bpf_kagg *k, struct tprobe *p,
		   struct ubpf_kplan *pl);
/* the plan made last is in a program loaded: -v counts its clauses */
void bpf_kagg_cgen_ran(struct bpf_kagg *k);
/* the run constants written after BEGIN (kplan_fkey.c); -1: said, the
 * run cannot go on exactly */
int bpf_kagg_rcon(struct consumer *c, struct bpf_kagg *k);
void bpf_kagg_cgen_plan(struct bpf_kagg *k, uint32_t ev,
			const struct ubpf_kplan *pl);
/* The kernel's self-> entries (and cgtlsu's) of threads gone, found
 * (how many, with moved threads gone), then deleted after a read of the
 * buffers between, but a thread's with a hit kept for the next read
 * (records.c's threads_reap()) */
size_t bpf_kagg_tls_gone(struct bpf_kagg *k);
void bpf_kagg_tls_reap(struct consumer *c, struct bpf_kagg *k);
/* the fork program's entries of children gone (bpf_agg_cgen.c's
 * "Forks"), each refresh; and how many children it armed (-v) */
void bpf_kagg_fork_reap(struct bpf_kagg *k);
unsigned long long bpf_kagg_forks(const struct bpf_kagg *k);
void bpf_kagg_tls_hit(struct bpf_kagg *k, uint32_t ev, pid_t pid, pid_t tid,
		      uint64_t t);
/* An unflagged record of thread tid of pid at a kernel probe whose plan
 * keeps self->, before its clauses run (bpf_agg_cgen.c's "Two copies"; a
 * uprobe's: bpf_kagg_tls_hit()) */
void bpf_kagg_tls_rec(struct bpf_kagg *k, pid_t pid, pid_t tid);
/* The kernel's self-> entries of thread tid (0: every thread) put into
 * user space's table and deleted: how many.  Exact only where no
 * program that stores them for those threads may run: for one thread,
 * at a record bpf_kagg_tls_rec() takes; for every thread, after a word
 * every such program tests and a barrier (doc/DESIGN.md's "the move") */
size_t bpf_kagg_tls_move(struct bpf_kagg *k, pid_t tid);
void bpf_kagg_tls_move_all(struct bpf_kagg *k);
size_t bpf_tls_gone(struct consumer *c);
void bpf_tls_reap(struct consumer *c);
void bpf_kagg_horizon(struct bpf_kagg *k, uint64_t h);
uint64_t bpf_kagg_exited(struct consumer *c, struct bpf_kagg *k);
void bpf_exited(struct consumer *c);
bool bpf_kagg_exit_lost(struct consumer *c);
struct tprobe;
int bpf_kagg_xscope(struct consumer *c, struct bpf_kagg *k,
		    const struct tprobe *p);
int bpf_kagg_xplan(struct consumer *c, struct bpf_kagg *k,
		   const struct d_probe *dp, const unsigned *cl, unsigned n,
		   struct ubpf_kplan *xpl);
void bpf_horizon(struct consumer *c, uint64_t h);
/*
 * printa(), clear(), trunc() at tick-N (kplan_exit.c's "printa() at
 * tick-N"): the barrier after a folding firing was read, before the
 * ring is (every program that started before it has ended), and the
 * fold at that firing, before its clauses run
 */
void bpf_kagg_barrier(struct consumer *c, struct bpf_kagg *k);
void bpf_kagg_fold(struct consumer *c, struct bpf_kagg *k, uint64_t at);
void bpf_barrier(struct consumer *c);
/* at: the firing's time (its intervals before it, where the kernel keys
 * by interval: kplan_exit.c's "Intervals"), UINT64_MAX every one */
void bpf_fold(struct consumer *c, uint64_t at);
/* the period the kernel's aggregations are keyed by, and their base
 * (*base), or 0: no intervals (kplan_exit.c's "Intervals") */
uint64_t bpf_ival(struct consumer *c, uint64_t *base);
uint64_t bpf_kagg_ival(const struct bpf_kagg *k, uint64_t *base);
/* a tick firing at at ran exit(): the intervals from its on are not
 * the run's (bpf_kagg_merge() leaves them) */
void bpf_ival_exit(struct consumer *c, uint64_t at);
void bpf_kagg_ival_exit(struct bpf_kagg *k, uint64_t at);
/* every thread's self-> variables to user space, where every hit now
 * goes (kprov.c's kprov_horizon_off() beside intervals) */
void bpf_tls_move_all(struct consumer *c);
/*
 * bpf_cg.c, for the kernel providers' generated programs (cgen_kprov.c):
 * whether the run's programs are generated (decided now if no event
 * decided it), the maps they share, a program loaded as type (its fd,
 * or -errno with c->be_why), and that the kernel probes' are attached
 * (a uprobe event's refused program can then no longer send the run
 * to the generic program).
 */
bool bpf_cg_on(struct consumer *c);
const struct cgen_maps *bpf_cg_maps(struct consumer *c);
int bpf_cg_load(struct consumer *c, int type, struct bpf_insn *v, size_t n);
/* the fork program (cgen_fork.c) on task_newtask, with cgarmed and
 * cgforkev's fds and task_struct's tgid offset + 1: its link, or -1 */
int cgen_fork_start(struct consumer *c, int armed, int list, uint32_t tgid1);
int cgen_vtime_start(struct consumer *c, struct cgen_maps *m);
void bpf_cg_armed(struct consumer *c);
bool bpf_kagg_kplan(struct consumer *c, struct bpf_kagg *k,
		    const struct d_probe *dp, const unsigned *cl,
		    const unsigned *ep, unsigned n, struct ubpf_kplan *pl,
		    unsigned **ucl, unsigned **uep, unsigned *nu);
/*
 * The refusal of the last plan made, UBPF_KTLS_UNFIT, into c->be_why:
 * the clauses of what (an event or a probe) do not fit one plan, and
 * why
 */
void bpf_kagg_unfit(struct consumer *c, const struct bpf_kagg *k,
		    const char *what);
/*
 * A uprobe event whose clauses keeping self-> do not fit its plan: the
 * plan that keeps its processes in user space instead into pl, true
 * (bpf_agg_cgen.c's "Unfit events"); false where the event is refused
 */
bool bpf_kagg_unfit_stub(struct consumer *c, struct bpf_kagg *k,
			 struct ubpf_kplan *pl);
#endif

#ifdef HAVE_BPF
/*
 * kprov.c: which of its programs bpf.c loads (c NULL: none), into obj
 * unless NULL; whether the run uses any
 */
bool kprov_autoload(struct consumer *c, struct bpf_object *obj);
/*
 * cgen_kprov.c: whether each kernel probe of the run that a program
 * fires can have its program generated (its provider's cg_pro())
 */
bool kprov_cg_fits(struct consumer *c);
/*
 * cgen_kprov.c, for bpf_cg.c's cg_try(): every kernel probe's program
 * generated and loaded, before anything is attached; 0, or -1 with
 * c->be_why (none kept).  kprov_cg_reset(): they were closed.
 */
int kprov_cg_load(struct consumer *c);
void kprov_cg_reset(struct consumer *c);
/* bpf.c: the program, loaded now if it was not; NULL when it cannot be */
struct bpf_object *bpf_be_object(struct consumer *c);
/* bpf.c: its aggregating in the kernel, or NULL */
struct bpf_kagg *bpf_kagg_of(struct consumer *c);
/*
 * bpf_agg.c: a kernel probe's plan, under (ev, pid 0); the clauses left
 * to user space into *ucl, *uep, *nu (all of them without a plan)
 */
void bpf_kagg_kprobe(struct consumer *c, struct bpf_kagg *k, uint32_t ev,
		     const struct d_probe *dp, const unsigned *cl,
		     const unsigned *ep, unsigned n, unsigned **ucl,
		     unsigned **uep, unsigned *nu);
/*
 * bpf_agg.c: clause faulted in the kernel at f's hit (c->kfault): where
 * (DTrace's action number), its kind and, for D_RUNF_ADDR, the invalid
 * address, as run.c would have faulted on the same string or copy
 * (d_kplan_fault()'s kinds; address 0 for the others)
 */
bool bpf_kagg_fault(struct consumer *c, unsigned clause, const struct d_fire *f,
		    int *action, enum d_run_flt *kind, uint64_t *addr);
/* bpf_agg.c: the run's kplan (not NULL) */
struct d_kplan;
const struct d_kplan *bpf_kagg_kp(const struct bpf_kagg *k);
/*
 * cgen_out.c: printf()'s values computed at the hit.  cg_out_rec(): the
 * record's out area at *off (UBPF_RF_KOUT), kept in c->kout when the
 * kernel ran a clause of it (kprobe, a kernel probe's record: kprov.c's,
 * kept in c->koutk for kplan_out.c's late reads), *off past it; false:
 * a bad record.
 * cg_out_run(): clause, next in the walk w of the probe's clauses (in
 * order), the kernel ran and prints from the area: printed (or its
 * fault reported), d_run()'s result in *rv; false: not such a clause.
 */
bool cg_out_rec(struct consumer *c, const uint8_t *raw, size_t len, size_t *off,
		bool kprobe);
struct cg_out_walk {
	unsigned ord;
	size_t off;
};
bool cg_out_run(struct consumer *c, unsigned clause, const struct d_fire *f,
		struct cg_out_walk *w, int *rv);
/* A clause user space runs whose record carries self-> values the kernel
 * keeps (kplan.h's d_kplan_vin()): -1 not one (or no area: the
 * in-process activation's record); 0 the area says it did
 * not run at the hit; 1 its variables of f's thread set from the area
 * (the walk w goes on past it), what they held in *save, for
 * cg_out_vin_end() to put back (and free) after the clause ran */
int cg_out_vin(struct consumer *c, unsigned clause, const struct d_fire *f,
	       struct cg_out_walk *w, struct dv **save);
void cg_out_vin_end(struct consumer *c, unsigned clause, const struct d_fire *f,
		    struct dv *save);
/*
 * Speculations in the kernel (kplan.h's d_kplan_kspec()): the steps'
 * tags of a hit's areas handed to ../d/spec.c's held generations.
 * cg_kspec_run(): clause, a speculating one the kernel ran, next in
 * the walk w, at its place: its own record printed where it reached
 * no speculate() (a take's, a close's: doc/DESIGN.md's "Own records"),
 * a failed speculation counted, and where
 * the pass did not take the hit (taken false) its opens and holds
 * (stamp 0), and its closes run (told: taken), then its one fault
 * reported (the site's, bpf_kagg_fault(), else the area's first,
 * kplan.h's d_kplan_kspec_fault()): *rv d_run_fault()'s result (0:
 * none; D_RUN_FAULT: the caller fires ERROR); false: not such a
 * clause.  cg_kspec_pass(): the pass ahead of the hit's place
 * (records.c's read_round(), kspec_read.c): the area kout (koutlen
 * bytes) of a hit at probe clauses cl (n; ucl, nu: those user space
 * runs), its opens, holds (stamped) and closes told.
 * bpf_kspec_fire(): the pass's hand-over of hit h (bpf.c: its probe
 * found as its run would find it); false: its process is not known yet
 * (lin_hit_probe() would defer it).  bpf_kspec_on(): the run's
 * speculations are the kernel's.
 */
bool cg_kspec_run(struct consumer *c, unsigned clause, const struct d_fire *f,
		  struct cg_out_walk *w, bool taken, int *rv);
void cg_kspec_pass(struct consumer *c, const unsigned *cl, unsigned n,
		   const unsigned *ucl, unsigned nu, const uint8_t *kout,
		   size_t koutlen, const struct d_fire *f, uint64_t stamp);
struct hit;
bool bpf_kspec_fire(struct consumer *c, const struct hit *h);
bool bpf_kspec_on(struct consumer *c);
/* Does the run keep a global array in the kernel (kplan_garr.c)?  Does
 * clause touch one (records.c's hit_run() does not run it)? */
bool bpf_garr_on(struct consumer *c);
bool bpf_garr_clause(struct consumer *c, unsigned clause);
/* BEGIN has fired: the run constants into the kernel (bpf_kagg_rcon());
 * 0 where there are none or another backend runs */
int bpf_rcon_begun(struct consumer *c);
#endif

#endif /* USDT_DTRACE_BPF_BE_H */
