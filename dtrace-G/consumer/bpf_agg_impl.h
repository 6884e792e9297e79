/* SPDX-License-Identifier: MIT */
/*
 * bpf_agg_impl.h - what bpf_agg.c, bpf_agg_cgen.c and bpf_agg_read.c share:
 * struct bpf_kagg and the functions one defines and another calls.
 */
#ifndef BPF_AGG_IMPL_H
#define BPF_AGG_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kplan.h"
#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"

struct consumer;

struct bpf_kagg {
	struct d_kplan *kp;
	int plans_fd, aggs_fd, flat_fd, drops_fd, plan1_fd, planv_fd;
	int ncpus;
	pid_t first[UBPF_MAXEV];   /* kplan1's pid, per event */
	unsigned slot[UBPF_MAXEV]; /* and its slot + 1 */
	bool used[UBPF_KPLANV];
	bool *ran;    /* per clause: put in some plan */
	bool *direct; /* per clause: in a plan of the direct shape */
	/* generated programs: ran and direct of the last plan made, until
	 * a program carries it (bpf_kagg_cgen_ran(): cgen.c may refuse
	 * the plan, the event's program then the record-only one) */
	bool *pran, *pdirect;
	unsigned nclauses;
	/* -v, per clause the kernel runs: at how many probes it ran there
	 * and at how many user space ran it (plan_of(): kplan_here.c's
	 * d_kplan_here()), the first of those and why */
	unsigned *nkat, *nuat;
	char (*uwhy)[D_KPLAN_WHY];
	char **uat;
	/* the last plan made: d_kplan_here() refused it, why (else "") */
	char unfit[D_KPLAN_WHY];
	/* the run's one plan (kfix.bpf.h): NULL when not loaded with one */
	struct ubpf_kplan *fixpl;
	struct ubpf_kfix fix;
	int bss_fd, evspec_fd;
	pid_t fix_pid;	/* kfix_pid as last set */
	pid_t fix_used; /* a pid it was ever set to, for -v */
	/* generated programs (cgen.c): the plan compiled into each event's,
	 * and the map of the processes armed for it */
	bool cgen;
	int armed_fd, arm1_fd;	  /* arm1: by event, its first pid (first[]) */
	uint32_t *arm1;		  /* ... cgarm1's one value, mapped here */
	int tls_fd, tlsdrops_fd;  /* self-> variables the kernel keeps */
	int tlsa_fd;		  /* ... elements of self-> arrays */
	int tlsa1_fd;		  /* ... of arrays of one key (cgtlsa1) */
	int tlss_fd;		  /* ... self-> strings (cgen_out.c) */
	int tlsu_fd, tlsufull_fd; /* cgtlsu: tls_user() */
	int tlsuw_fd;		  /* ... its word ("Two copies") */
	int saggs_fd;		  /* kaggs_s: a key with a string */
	int laggs_fd;		  /* kaggs_l: its long keys, or -1 */
	unsigned lroom;		  /* ... their strings' bytes */
	int vaggs_fd;		  /* kaggs_v: a string variable's,
				   * execname or a literal */
	unsigned vroom;		  /* ... its bytes in the key */
	int waggs_fd;		  /* kaggs_w: kaggs_v's short keys, or -1 */
	int xaggs_fd;		  /* kaggs_x: its short pairs, or -1 */
	/* the entries the last read merged from kaggs_s, kaggs_l,
	 * kaggs_v, kaggs_w and kaggs_x (bpf_agg_read.c's skeys_say()) */
	unsigned nskeys[5];
	int hzn_fd;		  /* cghzn: the horizon (kplan_exit.c), or -1 */
	int act_fd;		  /* cgact: the run's activity, or -1 */
	/* cgbar, an array of one map (cgbar_in), updated as a barrier:
	 * bpf_kagg_barrier(); folds: bpf_kagg_fold()'s calls */
	int bar_fd, barin_fd;
	/* ... made for those (else for tls_go_user()'s alone, when it
	 * first needs one, or none) */
	bool bar_fold;
	/* cgspec: the speculation buffers' words (kplan_spec.c's
	 * d_kplan_kspec(): nspec u64 in one array entry, zeroed at its
	 * making), or -1 */
	int spec_fd;
	/* cgrcon: the run constants (kplan_fkey.c; word 0, then
	 * UBPF_KRCON u64 in one array entry, 0 until bpf_kagg_rcon()
	 * writes them after BEGIN), or -1 */
	int rcon_fd;
	unsigned long folds;
	/* the kernel's aggregations keyed by interval (kplan_exit.c's
	 * "Intervals"): the period, the base its intervals count from
	 * (cgen.c), 0 for none; at a fold, the firing's interval + 1,
	 * those before it folded (0: every one) */
	uint64_t ival_per, ival_base, ival_lim1;
	/* a tick's exit() at interval x: x + 1, the last merge taking the
	 * intervals before x alone; 0: every one */
	uint64_t ival_end1;
	unsigned kkeys;	   /* the keys in kaggs's key (struct cgen_maps') */
	bool fold_bad;	   /* said: a barrier or delete failed */
	unsigned act_lost; /* bpf_kagg_exit_lost()'s calls in a row */
	/* hits recorded unflagged at an event whose plan keeps self->
	 * (bpf_kagg_tls_hit()), by {ev, pid}; armed: the process was
	 * armed there too, before or after */
	struct tls_hits {
		uint32_t ev;
		pid_t pid;
		uint64_t n;
		bool armed;
	} * th;
	size_t nth;
	size_t tls_live; /* ... at the last bpf_kagg_tls_gone() */
	/* the keys of threads (cgtlsu: processes) found gone by
	 * bpf_kagg_tls_gone(), each its map's fd first, deleted by
	 * bpf_kagg_tls_reap() after the read between */
	struct tls_gone {
		int fd; /* (the map's key size is the fd's) */
		char key[sizeof(struct ubpf_kvakey)];
	} * gone;
	size_t ngone;
	/* threads whose kernel copy of self-> went to user space
	 * (bpf_kagg_tls_rec()), until they exit */
	pid_t *tmoved;
	size_t ntmoved;
	unsigned long tls_moved, tls_mthreads; /* entries, threads: -v */
	bool tls_all; /* bpf_kagg_tls_move_all() moved every thread's */
	/* unfit events (bpf_agg_cgen.c's "Unfit events"): how many, the
	 * processes kept in user space for them at their first enable,
	 * and the hits of processes armed elsewhere there (-v; said) */
	unsigned unfit_evs;
	unsigned long unfit_procs, unfit_mixed;
	/* ... and the processes armed before that went over (tls_go_user()):
	 * how many, each with the time its records are its own from */
	unsigned long unfit_moved;
	struct umoved {
		pid_t pid;
		uint64_t t0;
	} * umoved;
	size_t numoved;
	struct ubpf_kplan **cgplan;	       /* by event, UBPF_MAXEV */
	/* the lease in the arm words (hz_marks()): hzarm, the run's
	 * programs read it there (a horizon, no exit() at a hit); lent,
	 * cghzn UINT64_MAX and cgarm1's words unmarked; exited, user
	 * space ran exit() (nothing is lent after) */
	bool hzarm, lent, exited;
	/* forks armed in the kernel (bpf_agg_cgen.c's "Forks"): cgforkev,
	 * the fork program's link, none made (off: DTRACE_FORK_ARM=0, or
	 * it could not be), the events listed in cgforkev (by event) */
	int fork_fd, fork_link;
	bool fork_off;
	uint32_t fork_tgid1; /* task_struct's tgid offset + 1 */
	/* the children armed at the last bpf_kagg_fork_reap(), and
	 * whether it left entries of theirs */
	unsigned long long fork_seen, fork_reaped;
	bool fork_left;
	bool *forkev;
	uint32_t nforkev;
};

/* bpf_agg.c */
/* k's per-clause marks, n clauses (bpf_agg_cgen.c's bpf_kagg_cgen()) */
void clause_marks(struct bpf_kagg *k, unsigned n);

/* bpf_agg_cgen.c */
/* clause ci's first probe description, as -v names it (bpf_agg_read.c) */
const char *clause_desc(const struct consumer *c, unsigned ci);
/* cgarm1's words marked, lent: the lease (bpf_agg_read.c's horizon) */
void hz_marks(struct bpf_kagg *k, bool lent);
/* pid armed for, or disarmed at, event ev (bpf_agg.c's enable) */
void cgen_arm(struct consumer *c, struct bpf_kagg *k, uint32_t ev, pid_t pid,
	      const struct ubpf_kplan *pl, bool pass);
void cgen_disarm(struct bpf_kagg *k, uint32_t ev, pid_t pid);
/* Is event ev's program the one of an unfit event ("Unfit events")? */
bool ev_unfit(const struct bpf_kagg *k, uint32_t ev);
/* pid's hits at self-> keeping events stay in user space (enable) */
bool tls_user(struct bpf_kagg *k, pid_t pid);
/* ... for good, where it fires event ev (its name), which is unfit
 * (bpf_agg_cgen.c's "Unfit events"); false: it could not move there */
bool tls_unfit_user(struct consumer *c, struct bpf_kagg *k, pid_t pid,
		    const char *ev);

#endif
