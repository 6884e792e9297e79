/* SPDX-License-Identifier: MIT */
/*
 * bpf_impl.h - what the bpf backend's three files share: bpf.c (loading,
 * argument specs, reading, the backend's ops), bpf_cg.c (generated
 * programs) and bpf_attach.c (the program attached to each uprobe event
 * uprobe.c makes, and detached at the end).  The backend's state is one struct
 * consumer_bpf, c->bpf.
 */
#ifndef USDT_BPF_IMPL_H
#define USDT_BPF_IMPL_H

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/kagg_bpf.h"
#include "bpf/kprov_bpf.h"
#include "bpf/usdt_bpf.h"
#include "consumer_impl.h"

/* An event's attachment (bpf_attach.c): its anchor perf event and link. */
struct bpf_anchor {
	int fd;
	struct bpf_link *link;
	int lfd; /* a generated program's link (no struct bpf_link) */
};

/* A generated program (cgen.c), kept for the events it fits. */
struct cg_prog {
	struct bpf_insn *v;
	size_t n;
	int fd;
	int type;   /* enum bpf_prog_type */
	int attach; /* its expected_attach_type (a site link's) or 0 */
};

struct consumer_bpf {
	struct bpf_object *obj;
	struct bpf_program *prog;
	int evspec_fd, drops_fd;
	struct ring_buffer *rb;
	struct bpf_anchor *anchors; /* by event index */
	size_t nanchors, anchors_cap;
	int ncpus;		 /* possible CPUs (per-CPU map values) */
	uint64_t *drops_seen;	 /* per CPU, then the owner word's per CPU */
	struct bpf_kagg *kagg;	 /* aggregating in the kernel, or NULL */
	size_t rbsz;		 /* the loaded ring buffer's bytes */
	bool ready;		 /* ring buffer and plans set up */
	bool kprov;		 /* loaded with kernel providers' programs */
	bool vtime;		 /* loaded for vtimestamp (vtime.c) */
	bool wr;		 /* loaded for copyoutstr() (usdt_hit_w) */
	bool cohold;		 /* ... with the thread held (dlhold.c's map) */
	struct bpf_link *vtlink; /* its sched_switch program's */
	bool load_failed;
	/* generated programs (cgen.c): decided at the first event */
	bool cg_tried, cg_on;
	bool cg_kp; /* kernel probes' programs attached (cgen_kprov.c) */
	struct cgen_maps cgm;
	struct cg_prog *cg;
	size_t ncg;
	/* the run's one plan (bpf/kfix.bpf.h), tried at the first event */
	bool fix_tried;
	struct ubpf_kfix fix;
	struct ubpf_kplan *fixpl;
	/* site links (bpf_attach.c): made, and refused by the kernel */
	size_t nlinks;
	bool links_no;
	/* the stack walk in the kernel (ustack_walk.c), or NULL; records
	 * with a stack: walked (UBPF_RF_UPCS), copied */
	struct uwalk *uw;
	uint64_t ustk_walked, ustk_copied;
	/* the programs' recursion_misses summed, as last read (misses_read()),
	 * and when next to read them (CLOCK_MONOTONIC ns) */
	uint64_t missed_seen, missed_next;
	bool missed_said; /* DTRACE_MISSED_SAY's line */
};

/* ustack_walk.c: the unwinder's maps (m->uwalk1), its loading, freed */
int uw_load(struct consumer *c, struct cgen_maps *m);
void uw_fill(struct consumer *c, int k);
void uw_poll(struct consumer *c);
void uw_free(struct consumer *c);
/* bpf.c: libbpf says nothing of this thread's loads (uw_fill()'s
 * loader, on a thread of its own) */
extern _Thread_local bool bpf_lb_mute;

/* bpf.c */
void ev_ctx(const struct tevent *e, struct ubpf_ev *s);
void ev_spec(const struct tevent *e, struct ubpf_ev *s);
void ev_mem(struct consumer *c, struct tevent *e, struct ubpf_ev *s);
void ev_copyout(struct consumer *c, struct tevent *e, struct ubpf_ev *s);
void fix_try(struct consumer *c, struct tevent *e);
size_t rb_bytes(const struct consumer *c, size_t percpu);
int rb_record(void *ctx, void *data, size_t len);
const char *lb_log_verdict(const char *log);

/* bpf_cg.c */
bool cg_fits(struct consumer *c);
void cg_try(struct consumer *c);
void cg_off(struct consumer *c);
int cg_load(struct consumer *c, struct bpf_insn *v, size_t n);
int cg_load_multi(struct consumer *c, struct bpf_insn *v, size_t n);
void cg_say(struct consumer *c);

/* bpf_attach.c */
int ev_new(struct consumer *c, struct tevent *e, size_t idx);
void links_destroy(struct consumer_bpf *b);
void site_links_on(struct consumer *c);

#endif
