/* SPDX-License-Identifier: MIT */
/*
 * inproc.h - what the files of the -x activation=user backend share
 * (inproc.c, inproc_arm.c, inproc_proc.c, inproc_exec.c, inproc_plan.c,
 * inproc_stop.c, inproc_reap.c): the state
 * of a run and of each armed process, and the calls between them.
 * inproc.c's comment is the mechanism; doc/DESIGN.md §14 the design.
 */
#ifndef DTRACE_CONSUMER_INPROC_H
#define DTRACE_CONSUMER_INPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif

#if defined(__x86_64__)

#define IP_NSEG 256
#define IP_LEAVE 1000	 /* holds at disarm until no thread is in a recorder */
#define IP_HBUCKETS 4096 /* ip_proc.hist's chains, a power of two */

/* A site armed in one process. */
struct ip_site {
	uint64_t addr; /* in the process */
	struct tfile *file;
	uint64_t off; /* file offset (the probe's site key) */
	uint8_t orig[6];
	uint8_t armed[5]; /* what we wrote: restored only over these */
	uint8_t len;	  /* bytes rewritten: 5 */
	bool enabled;	  /* a legacy is-enabled site */
	uint8_t nargs;
	int8_t reg[D_MAXARGS]; /* the recorded register of argument i */
	uint8_t size[D_MAXARGS];
	bool sgn[D_MAXARGS];
	uint32_t hid; /* in ip_proc.hist, + 1 */
};

/* A control block enable() wrote, and what it held before. */
struct ip_ctlw {
	uint64_t at, old;
};

/* A semaphore counted up. */
struct ip_sema {
	uint64_t addr;
	struct tfile *file;
	uint32_t
		slot; /* its entry in the arena's log (arena.h), + 1; 0: none */
	uint64_t up;  /* CLOCK_BOOTTIME ns, the process held: raised then */
};

/* The recorder of one file as the process maps it. */
struct ip_obj {
	struct tfile *file;
	uint64_t bias;
	uint64_t rec, rec_end, sys, ctl, name;
	uint64_t ctl_size; /* 16: it has usdt_ctl.len (arena.h) */
};

/* A fork child not traced itself, watched for an exec (inproc_exec.c). */
struct ip_kid {
	pid_t pid;
	uint64_t start; /* its start time: a pid reused is another process */
};

/*
 * A segment's writer as dtrace numbers it (ip_seg_whose(), decided at
 * the segment's first read after its claim; arena.h, version 4).
 */
enum {
	IP_SEG_NEW,    /* not decided yet */
	IP_SEG_OLD,    /* nsst 0 (a version-3 recorder): ip_seg_alien() */
	IP_SEG_OURS,   /* dtrace's pid namespace: its numbers taken */
	IP_SEG_MAPPED, /* another's, mapped to the process's numbers here */
	IP_SEG_GONE,   /* another's, its process or thread gone: ignored */
	IP_SEG_NSFAIL, /* its namespace could not be read: ignored */
	IP_SEG_BAD,    /* nonsense in nsst: ignored as corrupt */
};

struct ip_segid {
	pid_t pid, tid; /* here */
	pid_t ppid;	/* its parent here; 0: not known (the owner) */
	pid_t gppid;	/* IP_SEG_MAPPED: the parent's parent here, or 0 */
	int state;	/* IP_SEG_* */
};

/* A process armed: its arena and what was rewritten. */
struct ip_proc {
	pid_t pid;
	struct tproc *pr;
	uint8_t *map; /* dtrace's mapping of the arena */
	size_t len;
	uint64_t taddr; /* the process's */
	struct ip_obj *objs;
	size_t nobjs;
	struct ip_site *sites; /* sorted by addr once armed */
	size_t nsites;
	/*
	 * every site ever armed here, never forgotten (one entry for each
	 * address, file and offset): a record names its site by index from
	 * when it is read, so that one written before its library was
	 * dlclose()d still decodes once the site is forgotten (ip_drain_proc())
	 */
	struct ip_site *hist;
	size_t nhist;
	uint32_t *hbucket; /* IP_HBUCKETS chains through hist, by address */
	uint32_t *hnext;   /* per hist entry: the next in its chain, + 1 */
	struct ip_sema *semas;
	size_t nsemas;
	uint64_t *tails; /* per segment: records read */
	pid_t *known;	 /* pids told to the tree (children) */
	size_t nknown;
	bool gone; /* exited: nothing to restore */
	bool disarmed;
	bool exec_said;
	bool exec_pending; /* exec'd; its new image is to ask (USDT_EXEC_FD) */
	bool exec_fd;	   /* we put the arena at USDT_EXEC_FD */
	bool kernel;	   /* the kernel path takes it whole (ip_enable()) */
	bool kpin;	   /* ... as an exec'd image told not to ask */
	bool exec_kernel;  /* exec'd, not to ask: ip_exec_handover() */
	bool exec_envwait; /* exec'd, whether it asks not known yet: its
			      environment read again (exec_decide()) */
	bool other;	   /* another dtrace traces it in-process (live) */
	bool dl_asks;	   /* its drti.o asks at a dlopen() */
	bool dl_said;	   /* a dlopen() that gave up waiting: said */
	bool rearm;	   /* records to read before arming (forget_stale()) */
	uint64_t *dl_pre;  /* dev, ino of each file mapped when the arena
			      was made: those never asked (ip_dl_asks()) */
	size_t ndl_pre;
	uint64_t given;	 /* segments of exited threads given back */
	uint64_t drops_said; /* its arena's drops said (ip_drops_say()) */
	uint64_t ino;	 /* the arena's memfd */
	char *maps_seen; /* pr->maps when remap_check() last looked */
	uint64_t corrupt;
	uint64_t made_ns; /* CLOCK_BOOTTIME ns before its arena was made */
	uint64_t alien;	  /* records of another pid namespace's pid, ignored
			     (ip_seg_alien()) */
	struct ip_segid *segid; /* per segment, beside tails */
	uint64_t ns_gone;	/* records of another namespace's process
				   gone before they were read, ignored */
	uint64_t ns_fail;	/* records whose thread could not say its
				   pid namespace, ignored */
	int ns_errno;		/* ... the last such thread's errno */
	uint64_t unborn;	/* hits timed before the tree knew their
				   process, dropped (ip_decode()) */
	struct {		/* the last segment of another pid namespace
				   mapped here (ip_seg_whose()) */
		uint64_t dev, ino;
		pid_t nspid, pid;
	} ns_last;
	/*
	 * its fork children watched for an exec (ip_exec_handover()), from
	 * known[] up to kids_from; the arena's address in them and the
	 * image token they share, 0 until known
	 */
	struct ip_kid *kids;
	size_t nkids, kids_from;
	bool kids_wide; /* a glob can match their probes (family_ready()) */
	uint64_t kid_taddr, kid_tok[2];
	size_t plan_used; /* bytes of the arena's plan area given out */
	uint32_t *plans;  /* ... where each plan put there starts */
	size_t nplans;
	size_t spec_used; /* bytes of the arena's spec area given out */
	uint64_t nocopy;  /* strings its recorder could not copy (seccomp) */
};

/* An arena this run made, as the reaper is told of it (inproc_reap.c). */
struct ip_told {
	uint64_t ino;  /* its memfd */
	int32_t pid;   /* the process it was made in */
	uint32_t kind; /* the message's (inproc_reap.c) */
	uint64_t tok;  /* that process's image then: AT_RANDOM's first 8 */
};

/* A probe handed to the kernel path, and why (said under -v). */
struct ip_kprobe {
	struct tprobe *p;
	char *why;
};

struct inproc {
	struct ip_proc **procs;
	size_t nprocs;
	uint64_t tsc0, ns0; /* the first (TSC, clock) sample */
	uint64_t tsc1, ns1; /* the latest */
	uint64_t hz;	    /* TSC ticks per second */
	uint64_t beat_at;   /* the TSC of the last heartbeat (ip_beat()) */
	uint32_t nslots;
	uint64_t seg_size;
	bool stopped;
	/* dtrace's pid namespace (/proc/self/ns/pid); ns_ok false: none */
	bool ns_ok;
	uint64_t ns_dev, ns_ino;
	/* aggregating in the arena (HAVE_BPF: kplan.c decides what) */
	struct d_kplan *kp;   /* NULL: every hit is a record */
	/*
	 * copies at the hit (arena.h, version 3): some clause reads an
	 * argument's string, and strsize lets the recorder copy it
	 */
	bool copies;
	bool usercopy; /* -x usercopy: copies at the hit allowed */
	uint8_t *xraw; /* a record with copies, read whole (ip_drain_proc()) */
	size_t xcap;
	bool *ran;	      /* per clause: put in some plan */
	uint64_t agg_off;     /* a segment's aggregation area */
	bool child_exec_said; /* a fork child's exec, said once */
	bool kexec_said;      /* an image handed to the kernel path, said */
	uint64_t kids_ns;     /* when fork children were last looked at */
	bool kb_failed;	      /* the kernel backend beside would not open */
	char kb_why[512];
	/* kernel_enable() under way: pr, and the probes it hands over */
	struct tproc *kpr;
	const struct ip_kprobe *kpp;
	size_t nkpp;
	/* the reaper (inproc_reap.c): told each arena through a socket */
	int reap_fd; /* + 1; 0: none started yet */
	pid_t reap_pid;
	struct ip_told *told; /* every arena made, in order */
	size_t ntold;
};

static inline uint64_t rdtsc_now(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * What pid holds at USDT_EXEC_FD: nothing or an arena of an earlier run
 * (ours to take), one of this run's arenas (an exec will ask), or a
 * file of its own (left alone: its execs are not followed).
 */
enum { EXFD_FREE, EXFD_OURS, EXFD_OTHER };

/* The threads held: the frozen ones, or a -c command's only thread. */
struct ip_hold {
	struct frozen *fz;
	size_t n;
	pid_t one; /* pr->held: the command, stopped by us already */
};

/* inproc_proc.c */
/* what -G writes at a site, and what arming writes at an is-enabled one */
extern const uint8_t ip_nop_call[5], ip_nop_got[6], ip_nop_en[5], ip_mov_1[5];
int ip_mem_rw(pid_t pid, uint64_t addr, void *buf, size_t len, bool write);
bool ip_proc_exiting(pid_t pid);
long ip_race_us(void);
bool ip_hold_all(struct tproc *pr, struct ip_hold *h);
void ip_release(struct ip_hold *h);
size_t ip_hold_count(const struct ip_hold *h);
void ip_kill_point(void);
int ip_skip_site(struct ip_hold *h, size_t i, const struct ip_site *s);
bool ip_held_in(struct ip_hold *h, uint64_t lo, uint64_t hi);
long ip_inject(struct ip_hold *h, uint64_t sys, long nr, long a0, long a1,
	       long a2, long a3, long a4, long a5, bool *ours);
bool ip_seccomp_filtered(pid_t pid);
bool ip_pidns_other(pid_t pid);
bool ip_seg_alien(const struct ip_proc *ipp, pid_t pid, pid_t ppid);
uint64_t ip_born_by(pid_t pid);
void ip_seg_whose(const struct inproc *ip, struct ip_proc *ipp,
		  const struct usdt_seg *s, struct ip_segid *sid,
		  uint64_t first_ns);
bool ip_no_proc(pid_t pid);
bool ip_file_bias(const struct tfile *f, const struct proc_maps *mm,
		  uint64_t *bias);
uint64_t ip_off_to_addr(const struct tfile *f, uint64_t bias, uint64_t off);
void ip_forget_file(struct ip_proc *ipp, const struct tfile *f);
struct ip_obj *ip_proc_obj(struct ip_proc *ipp, struct tfile *f,
			   const struct proc_maps *mm, char *why, size_t wlen);
int ip_file_bytes(const struct tfile *f, uint64_t off, uint8_t b[6]);
bool ip_site_args_plan(const struct tnote *n, struct ip_site *s, char *why,
		       size_t wlen);
int ip_site_cmp(const void *a, const void *b);
const struct ip_site *ip_site_find(const struct ip_proc *ipp, uint64_t addr);
struct ip_proc *ip_proc_of(struct consumer *c, struct tproc *pr);
int ip_arena_make(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		  const struct ip_obj *o, char *why, size_t wlen);
int ip_arena_first(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		   const struct ip_obj *o, const struct proc_maps *mm,
		   char *why, size_t wlen);
bool ip_file_has_rec(const struct tfile *f);
int ip_ctl_arm(const struct ip_proc *ipp, const struct ip_obj *o,
	       struct ip_ctlw **ctlw, size_t *nctl, char *why, size_t wlen);
uint32_t ip_hist_add(struct ip_proc *ipp, const struct ip_site *s);
size_t ip_stale_restore(struct consumer *c, struct ip_proc *ipp,
			const struct proc_maps *mm, size_t *nsem);
uint32_t ip_semlog_add(struct ip_proc *ipp, uint64_t addr);
uint64_t ip_boot_ns(void);
bool ip_call_stale(const uint8_t cur[5], const uint8_t fb[6], uint64_t a,
		   uint64_t rec, bool en);
struct tfile *ip_note_sema(const struct tproc *pr, const struct proc_maps *mm,
			   uint64_t addr);
bool ip_semlog_valid(const struct tproc *pr, const struct proc_maps *mm,
		     const struct usdt_semlog *l, const uint64_t tok[2]);
void ip_semlog_clear(struct ip_proc *ipp, const struct ip_sema *s);
int ip_arena_unmap(struct ip_proc *ipp, struct ip_hold *h, uint64_t sys);
void ip_seg_giveback(struct consumer *c, struct ip_proc *ipp);

/* inproc_exec.c */
int ip_exec_fd_state(struct consumer *c, pid_t pid);
int ip_image_token(pid_t pid, uint64_t tok[2]);
bool ip_image_done(struct consumer *c, pid_t pid);
bool ip_exec_check(struct consumer *c, struct ip_proc *ipp);
void ip_exec_unasked(struct consumer *c, struct ip_proc *ipp);
void ip_exec_answer(struct consumer *c, struct ip_proc *root);
void ip_drops_say(struct consumer *c, struct ip_proc *only);
void ip_exec_handover(struct consumer *c);
enum { IPK_ARM, IPK_KERNEL, IPK_WAIT };
int ip_exec_picked(struct consumer *c, struct ip_proc *ipp);
void ip_exec_hold(struct consumer *c, struct tproc *pr);
bool ip_dl_asks(struct consumer *c, struct tproc *pr, const struct tfile *f);
int ip_objs_ready(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		  const struct proc_maps *mm, struct ip_ctlw **ctlw,
		  size_t *nctl, bool *made, char *why, size_t wlen);

/* inproc_plan.c */
#ifdef HAVE_BPF
bool ip_probe_plan(struct inproc *ip, struct tprobe *p, struct ubpf_kplan *pl);
void ip_plan_ran(struct inproc *ip, const struct tprobe *p);
bool ip_plan_site(const struct ubpf_kplan *pl, const struct ip_site *s,
		  struct usdt_aplan *a);
bool ip_plan_put(const struct inproc *ip, struct ip_proc *ipp, uint64_t addr,
		 const struct usdt_aplan *a);
#endif
void ip_aggs(struct consumer *c);

/* inproc_plan.c: copies at the hit */
bool ip_spec_site(const struct consumer *c, const struct tprobe *p,
		  const struct ip_site *s, struct usdt_cspec *sp);
void ip_spec_put(const struct inproc *ip, struct ip_proc *ipp, uint64_t addr,
		 const struct usdt_cspec *sp);
size_t ip_site_area(const struct inproc *ip);

/* inproc.c */
void ip_remap_check(struct consumer *c, struct ip_proc *ipp);
void ip_drain_proc(struct consumer *c, struct ip_proc *ipp, size_t idx);

/* inproc_arm.c */
void ip_enable(struct consumer *c, struct tproc *pr);
void ip_target(struct consumer *c, struct tproc *pr);

/* inproc_stop.c */
void ip_disarm(struct consumer *c, struct ip_proc *ipp);
void ip_stop(struct consumer *c);

/* inproc_beat.c */
void ip_beat_add(struct usdt_arena *a, uint64_t hz);
void ip_beat_main(uint64_t t);
void ip_beat_del(struct usdt_arena *a);
void ip_beat_quit(void);

/* inproc_reap.c */
void ip_reap_tell(struct consumer *c, pid_t pid, uint64_t ino);
void ip_reap_children(struct consumer *c);
void ip_reap_end(struct consumer *c);

#endif /* __x86_64__ */

#endif /* DTRACE_CONSUMER_INPROC_H */
