// SPDX-License-Identifier: MIT
/*
 * inproc.c - backend: `-x activation=user`, probes hit in the process
 * with no kernel trap (doc/DESIGN.md §14).  An armed -G site calls the
 * recorder drti.o carries (drti/rec.c), which writes each hit into a
 * ring in memory shared with dtrace (drti/arena.h); this file arms the
 * sites, reads the rings and hands the records to records.c as any
 * backend's hits, so the same clauses run with the same output.
 *
 * The files.  This one has the backend's ops (opening, reading,
 * decoding) and the mux over the kernel backend beside it; inproc_arm.c
 * the arming (each probe on one path: the recorder's, or the kernel
 * backend's beside it); inproc_stop.c
 * the ending (disarming each process); inproc_proc.c what is done in a
 * held process (its memory and threads, an injected system call, the
 * recorder's symbols, a site's bytes, the arena made and unmapped);
 * inproc_exec.c following an exec; inproc_plan.c aggregating in the
 * process; inproc.h what they share.
 *
 * An exec (ip_exec_check(), ip_exec_answer(); arena.h has the protocol).
 * The first arena made in a process stays open there at USDT_EXEC_FD,
 * without close-on-exec; the new image's drti.o constructor finds it,
 * claims a slot with its pid and token (AT_RANDOM) and waits; each read
 * answers the slots: the traced process is reset to its new maps and
 * refreshed, which arms the new image (a fresh ip_proc, an arena of its
 * own) before any of its probes ran, then told to go on.  An image
 * armed without asking (a -c command, before its constructors) gets its
 * slot marked done (ip_image_done()), so its constructors do not ask.  An
 * exec whose image is told not to ask (DTRACE_DOF_INIT_DISABLE) goes to
 * the kernel path, for its process alone, and so does such an exec of a
 * fork child of a process a glob traces (ip_exec_handover(),
 * inproc_exec.c); one whose image cannot ask (the descriptor closed),
 * never asks, or gave up waiting is said; a fork child's exec that asks
 * is let go, said.
 *
 * Reading (drain()).  Every claimed segment of every arena, from its
 * tail to its head; each record becomes a hit with the segment's pid and
 * tid, the CPU the recorder's rdtscp gave, and its TSC turned into
 * CLOCK_MONOTONIC nanoseconds on the line through two (TSC, clock)
 * samples: one when the backend opened, one at this read.  The site is
 * found by the record's address when it is read (the arena's owner's
 * map: a fork child runs the same layout), and decode() converts the
 * registers as that site's note says.  A record flagged USDT_PC_EXT
 * goes on in the next slots with the strings the recorder copied at the
 * hit (arena.h, version 3): read whole, its slot count checked against
 * what waits, and decode_copies() gives them to the clauses as the
 * kernel path's copies (struct d_fire's str[], with strflt and strcut
 * for a copy that faulted or was cut); a copy spec per armed site of a
 * probe whose clauses read argument strings (ip_spec_put(),
 * inproc_plan.c).  Whose a segment is, is decided once per claim
 * (ip_seg_whose(), inproc_proc.c; arena.h, version 4): its recorder
 * said its pid namespace at the claim; dtrace's: its pid and tid as
 * written; another's: mapped to the process's numbers here through
 * /proc, or, gone before the read or not said, its records ignored,
 * said; a recorder of version 3 (nsst 0): its numbers, unless
 * ip_seg_alien() tells them another namespace's.  A segment of a pid
 * other than the owner's is a fork child (drti.o's fork handler makes
 * it claim its own): lin_fork() tells the tree (seg_fork()), whose
 * descriptions then decide whether its hits count, as on the kernel
 * path (a process in another pid namespace itself goes to the kernel
 * path whole, ip_pidns_other()).  Every read also
 * writes the heartbeat: the TSC now (and ip_beat() while a read's hits
 * run, records.c; dtrace's beat thread every 100 ms, inproc_beat.c,
 * whatever the main thread does).  Once three quarters of the
 * segments are claimed, a read also gives back those whose thread has
 * exited and whose records are all read (ip_seg_giveback(),
 * inproc_proc.c; arena.h, "Segments given back"), for new threads.
 *
 * Aggregating in the process (built with BPF, whose kplan.c decides).
 * The clauses the kernel path would aggregate in BPF are compiled, per
 * armed site, into a plan in the arena (probe_plan(), plan_site(),
 * plan_put(); arena.h has the encoding), which the recorder runs on its
 * thread's own aggregation slots instead of writing a record.  A record
 * flagged USDT_PC_AGG says the plan ran the probe's other clauses: its
 * decode sets kagg_rec and records.c runs only the rest (uclauses).
 * When tracing has ended, merge_proc() folds every owner thread's slots
 * into the program's aggregations with d_kplan_merge(), a thread for a
 * CPU, as bpf_agg_read.c folds the kernel's: the same output.
 *
 * Trust.  The arena is the process's own memory too; everything in it
 * is bounds-checked here (segment counts, head against tail, the record
 * address against the sites armed), so a process can lie only about its
 * own probes, as it already can with their arguments.
 *
 * Ending (stop()): inproc_stop.c.  After a SIGKILL of dtrace nothing
 * is restored: the heartbeat stops and every hit costs a call and a
 * compare.  A later dtrace that takes the process over (the dead
 * arena's beat stopped) gives every site of a probe it does not enable
 * that holds such a call, or an is-enabled `mov $1`, the file's bytes
 * back before it arms (ip_stale_restore(), inproc_proc.c): it points
 * every control block at its own arena, and those sites would write
 * records of no site it armed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif
#include "objfile.h"
#include "procfs.h"
#include "stapsdt.h"
#include "inproc.h"

#if defined(__x86_64__)

/*
 * The clock read between two TSC reads, paired with their middle: of
 * the tightest of SAMPLE_TRIES tries.  Every in-process hit's time is
 * its TSC placed on the line through the first and the latest pair
 * (tsc_to_ns()), and sorted among the kernel path's, stamped with the
 * clock itself (records.c); a pair off by d moves them all by up to d.
 * On a loaded machine a preemption between the two reads came in about
 * 1 try in 14,000 (two busy loops on the 2-CPU VM: 217 of 3,000,000
 * over 4 us, the worst 2.8 ms), enough to put one thread's hits a few
 * us apart, an in-process one and the kernel path's (a write() between
 * two USDT probes), out of their order.  (The D fuzzer under
 * DTRACE_ACTIVATION=user, beside the sanitizers' tests, once printed a
 * write()'s line before an in-process hit's that came first; not seen
 * again, so not shown to be this.)  A try that two reads of the TSC
 * bracket closely (SAMPLE_TIGHT ticks, about 1 us) ends the search.
 */
#define SAMPLE_TRIES 5
#define SAMPLE_TIGHT 2000

static void sample(struct inproc *ip, uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < SAMPLE_TRIES && best > SAMPLE_TIGHT; i++) {
		uint64_t a = rdtsc_now(), n = now_ns(CLOCK_MONOTONIC),
			 b = rdtsc_now();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
	(void)ip;
}

static uint64_t tsc_to_ns(const struct inproc *ip, uint64_t t)
{
	unsigned __int128 d;

	if (t <= ip->tsc0 || ip->tsc1 <= ip->tsc0)
		return ip->ns0;
	d = (unsigned __int128)(t - ip->tsc0) * (ip->ns1 - ip->ns0);
	return ip->ns0 + (uint64_t)(d / (ip->tsc1 - ip->tsc0));
}

/* ------------------------------------------------------------------ */
/* The backend */

static int ip_open(struct consumer *c)
{
	struct inproc *ip = xcalloc(1, sizeof(*ip));
	struct timespec ts = {0, 2000000};
	uint64_t slots = 1;

	c->ip = ip;
	sample(ip, &ip->tsc0, &ip->ns0);
	nanosleep(&ts, NULL);
	sample(ip, &ip->tsc1, &ip->ns1);
	if (ip->ns1 <= ip->ns0 || ip->tsc1 <= ip->tsc0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "the TSC does not advance with the clock");
		return -ENOTSUP;
	}
	ip->hz = (uint64_t)((unsigned __int128)(ip->tsc1 - ip->tsc0) *
			    1000000000u / (ip->ns1 - ip->ns0));
	{
		/* dtrace's pid namespace, which segments say theirs against */
		struct stat ns;

		if (stat("/proc/self/ns/pid", &ns) == 0) {
			ip->ns_ok = true;
			ip->ns_dev = (uint64_t)ns.st_dev;
			ip->ns_ino = (uint64_t)ns.st_ino;
		}
	}
	/* a segment per thread: -x bufsize of records, a power of two */
	while (slots * 2 * sizeof(struct usdt_slot) <= c->rbsize &&
	       slots < (1u << 24))
		slots *= 2;
	ip->nslots = (uint32_t)slots;
	ip->seg_size =
		(USDT_SEG_HDR + slots * sizeof(struct usdt_slot) + 4095) &
		~(uint64_t)4095;
#ifdef HAVE_BPF
	/* clauses that only aggregate: plans run by the recorder */
	{
		const char *env = getenv("DTRACE_KAGG");
		struct d_kplan *kp;
		bool any = false;

		kp = env && !strcmp(env, "0")
			     ? NULL
			     : d_kplan_new(c->prog, 0, NULL, NULL, NULL);
		for (unsigned ci = 0; kp && ci < c->nclauses; ci++)
			any |= d_kplan_clause(kp, ci);
		if (any) {
			ip->kp = kp;
			ip->ran = xcalloc(c->nclauses, sizeof(*ip->ran));
			ip->agg_off = ip->seg_size;
			ip->seg_size += USDT_AGG_BYTES;
		} else if (kp) {
			d_kplan_free(kp);
		}
	}
#endif
	/*
	 * a clause reads an argument's string: with -x usercopy, the
	 * recorder copies it at the hit (arena.h, version 3), strsize - 1
	 * bytes at most; without, its probe is the kernel path's
	 * (probe_refusal()).  Opt-in: the copy is a system call per string
	 * (process_vm_readv(), 1.7 us of CPU on the VM of bench/RESULTS.md,
	 * where the kernel path's whole hit costs about 1.2 us), and one the
	 * process makes, which a seccomp filter it installs after arming
	 * may answer by killing it (one that answers EPERM is said and
	 * read late, as the kernel path reads a failed copy)
	 */
	ip->usercopy = d_opt_flag(c->prog, "usercopy");
	for (unsigned ci = 0; ci < c->nclauses && ip->usercopy && !ip->copies;
	     ci++)
		ip->copies = d_clause_strargs(c->prog, ci) != 0;
	if (d_opt_strsize(c->prog) < 2 ||
	    d_opt_strsize(c->prog) - 1 > USDT_CSTRMAX)
		ip->copies = false;
	c->lin.on = true; /* fork children are told by their segments */
	c->lin.exec_drops = true;
	return 0;
}

/*
 * The records in slots [tail, head) of a ring of nslots: a record with
 * copies (USDT_PC_EXT) takes the slots its extension says, one that says
 * nonsense the rest.
 */
static uint64_t ring_records(const struct usdt_slot *slots, uint32_t nslots,
			     uint64_t tail, uint64_t head)
{
	uint64_t n = 0;

	while (tail != head) {
		uint32_t k = 1;

		if (slots[tail & (nslots - 1)].pc & USDT_PC_EXT) {
			const struct usdt_ext *x =
				(const struct usdt_ext *)&slots[(tail + 1) &
								(nslots - 1)];

			k = __atomic_load_n(&x->slots, __ATOMIC_RELAXED);
			if (k < 2 || k > head - tail)
				k = (uint32_t)(head - tail);
		}
		tail += k;
		n++;
	}
	return n;
}

/*
 * Segment i of ipp: its header, the first record waiting (tail to head:
 * when it was written, CLOCK_MONOTONIC; none, or nonsense, false).
 */
static struct usdt_seg *seg_at(const struct inproc *ip,
			       const struct ip_proc *ipp, uint32_t i)
{
	return (struct usdt_seg *)(ipp->map + USDT_ARENA_HDR +
				   (size_t)i * ip->seg_size);
}

static bool seg_first(const struct inproc *ip, const struct ip_proc *ipp,
		      uint32_t i, uint64_t *t)
{
	const struct usdt_seg *s = seg_at(ip, ipp, i);
	const struct usdt_slot *slots =
		(const struct usdt_slot *)((const uint8_t *)s + USDT_SEG_HDR);
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
	uint64_t tail = ipp->tails[i];

	if (head == tail || head < tail || head - tail > ip->nslots)
		return false;
	*t = tsc_to_ns(ip, slots[tail & (ip->nslots - 1)].tsc);
	return true;
}

/*
 * A segment of a pid not the owner's, not told yet: a fork child, told
 * the fork tree (lin_fork()) under its parent (sid->ppid, 0: the
 * owner), born just before the first record waiting in any of its
 * segments (t, or an earlier one: a thread's hit may be timed before
 * another's that claimed first), or by the start of its start's clock
 * tick (ip_born_by()) when that is earlier: a hit is timed when its
 * thread enters the recorder, before it claims a segment, so a segment
 * not ready yet, or claimed after this one, may hold an earlier hit,
 * which the tree, told a later birth, would not know the process at
 * (lin_hit_probe() keeps it one read, then drops it).  A child of
 * another pid namespace mapped here whose parent the tree has not been
 * told (a process of that namespace whose own segment is not read yet:
 * pid 1 there, say) is told first, under its own parent here
 * (sid->gppid), or the owner's, and by its own start so bounded:
 * "child's claim late, new namespace" in
 * tests/run-activation-user.sh, where that child's first hit, timed
 * before the grandchild's but claimed after them, was dropped unsaid
 * when the child was told born by the grandchild's first record.
 */
/*
 * The birth seg_fork() tells for pid: by (its start's tick, UINT64_MAX
 * unknown) where earlier than t, but never at or before the birth of a
 * life of that pid the tree already has (an earlier holder of the pid:
 * born before it, this one would take its place for that one's hits;
 * the start's tick runs up to 10 ms and any suspend early, revr20).
 */
static uint64_t early_birth(struct consumer *c, pid_t pid, uint64_t by,
			    uint64_t t)
{
	uint64_t born = by < t ? by : t, last = lin_newest_born(c, pid);

	return born <= last && last < t ? last + 1 : born;
}

static void seg_fork(struct consumer *c, struct ip_proc *ipp,
		     const struct ip_segid *sid, uint64_t t, uint32_t nseg)
{
	pid_t pp = sid->ppid > 0 ? sid->ppid : ipp->pid;
	uint64_t born, by;

	for (uint32_t j = 0; j < nseg; j++) {
		const struct ip_segid *o = &ipp->segid[j];
		uint64_t tj;

		if (o->pid == sid->pid &&
		    (o->state == IP_SEG_OLD || o->state == IP_SEG_OURS ||
		     o->state == IP_SEG_MAPPED) &&
		    __atomic_load_n(&seg_at(c->ip, ipp, j)->ready,
				    __ATOMIC_ACQUIRE) &&
		    seg_first(c->ip, ipp, j, &tj) && tj - 1 < t)
			t = tj - 1;
	}
	by = ip_born_by(sid->pid);
	born = early_birth(c, sid->pid, by, t);

	if (sid->state == IP_SEG_MAPPED && pp != ipp->pid) {
		bool known = false;

		for (size_t k = 0; k < ipp->nknown && !known; k++)
			known = ipp->known[k] == pp;
		if (!known) {
			pid_t gp = sid->gppid > 0 ? sid->gppid : ipp->pid;
			uint64_t pborn =
				early_birth(c, pp, ip_born_by(pp), born);

			if (!c->be_kernel || !lin_forked(c, pp, t))
				lin_fork(c, gp, pp, pp, pborn);
			PUSH(ipp->known, ipp->nknown, pp);
		}
	}
	/* the kernel path's tracker told it first */
	if (!c->be_kernel || !lin_forked(c, sid->pid, t))
		lin_fork(c, pp, sid->pid, sid->tid, born);
	PUSH(ipp->known, ipp->nknown, sid->pid);
}

/* Every record waiting in ipp's segments into the hits. */
void ip_drain_proc(struct consumer *c, struct ip_proc *ipp, size_t idx)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)ipp->map;
	uint32_t nseg = __atomic_load_n(&a->next_seg, __ATOMIC_ACQUIRE);

	if (nseg > IP_NSEG)
		nseg = IP_NSEG;
	/* whose each segment is, first: a child's threads found together */
	for (uint32_t i = 0; i < nseg && !c->read_more; i++) {
		struct usdt_seg *s = seg_at(ip, ipp, i);
		uint64_t t0;

		if (ipp->segid[i].state == IP_SEG_NEW &&
		    __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
			ip_seg_whose(ip, ipp, s, &ipp->segid[i],
				     seg_first(ip, ipp, i, &t0)
					     ? t0
					     : now_ns(CLOCK_MONOTONIC));
	}
	for (uint32_t i = 0; i < nseg && !c->read_more; i++) {
		struct usdt_seg *s = seg_at(ip, ipp, i);
		const struct usdt_slot *slots =
			(const struct usdt_slot *)((uint8_t *)s + USDT_SEG_HDR);
		struct ip_segid *sid = &ipp->segid[i];
		uint64_t head, tail = ipp->tails[i], *lost = NULL, t0;
		pid_t pid, tid;

		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
			continue;
		head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
		/* the first record waiting, when it was written */
		t0 = head != tail && head - tail <= ip->nslots
			     ? tsc_to_ns(ip, slots[tail & (ip->nslots - 1)].tsc)
			     : now_ns(CLOCK_MONOTONIC);
		if (sid->state == IP_SEG_NEW) /* whose, once per claim */
			ip_seg_whose(ip, ipp, s, sid, t0);
		pid = sid->pid;
		tid = sid->tid;
		if (head == tail)
			continue;
		if (head < tail || head - tail > ip->nslots || pid <= 0 ||
		    sid->state == IP_SEG_BAD) {
			/* the process wrote nonsense: skip what it claims */
			ipp->corrupt += head > tail ? head - tail : 1;
			ipp->tails[i] = head;
			__atomic_store_n(&s->tail, head, __ATOMIC_RELEASE);
			continue;
		}
		if (sid->state == IP_SEG_GONE)
			lost = &ipp->ns_gone;
		else if (sid->state == IP_SEG_NSFAIL)
			lost = &ipp->ns_fail;
		if (!lost && pid != ipp->pid) {
			bool known = false;

			for (size_t k = 0; k < ipp->nknown && !known; k++)
				known = ipp->known[k] == pid;
			if (!known && sid->state == IP_SEG_OLD &&
			    ip_seg_alien(ipp, pid, (pid_t)s->ppid))
				lost = &ipp->alien;
			if (!known && !lost)
				seg_fork(c, ipp, sid, t0 - 1, nseg);
		}
		if (lost) {
			/* not this pid's, or not known whose: ignored, said */
			*lost += ring_records(slots, ip->nslots, tail, head);
			ipp->tails[i] = head;
			__atomic_store_n(&s->tail, head, __ATOMIC_RELEASE);
			continue;
		}
		while (tail != head) {
			const struct usdt_slot *r =
				&slots[tail & (ip->nslots - 1)];
			uint8_t raw[8 + sizeof(*r)], *rp = raw;
			uint32_t ix = (uint32_t)idx, hid, n = 1;
			const struct ip_site *st;
			struct hit hh = {0};

			if (c->read_cap && !c->read_tick &&
			    c->alen >= c->read_cap) {
				c->read_more = true;
				break;
			}
			if (r->pc & USDT_PC_EXT) {
				/*
				 * copies follow (arena.h): the record whole,
				 * its slots read once and checked against what
				 * waits and a quarter of the ring (the most
				 * copy_refusal() lets a spec take)
				 */
				const struct usdt_ext *x =
					(const struct usdt_ext
						 *)&slots[(tail + 1) &
							  (ip->nslots - 1)];

				n = __atomic_load_n(&x->slots,
						    __ATOMIC_RELAXED);
				if (n < 2 || n > head - tail ||
				    n > ip->nslots / 4) {
					ipp->corrupt += head - tail;
					tail = head;
					break;
				}
				if (ip->xcap < 8 + (size_t)n * sizeof(*r)) {
					ip->xcap = 8 + (size_t)n * sizeof(*r);
					ip->xraw =
						xrealloc(ip->xraw, 1, ip->xcap);
				}
				rp = ip->xraw;
				for (uint32_t k = 0; k < n; k++)
					memcpy(rp + 8 + (size_t)k * sizeof(*r),
					       &slots[(tail + k) &
						      (ip->nslots - 1)],
					       sizeof(*r));
			} else {
				memcpy(rp + 8, r, sizeof(*r));
			}
			st = ip_site_find(ipp, r->pc & USDT_PC_ADDR);
			hid = st ? st->hid : 0; /* 0: not a site armed */
			memcpy(rp, &ix, 4);
			memcpy(rp + 4, &hid, 4);
			hh.time = tsc_to_ns(ip, r->tsc);
			hh.pid = (uint32_t)pid;
			hh.tid = (uint32_t)tid;
			hh.cpu = (uint32_t)(r->pc >> 48) & 0xfff;
			hh.rawlen = 8 + (size_t)n * sizeof(*r);
			hh.rawoff = arena_put(c, rp, hh.rawlen);
			hh.inproc = true;
			hit_push(c, &hh);
			c->received++;
			tail += n;
		}
		ipp->tails[i] = tail;
		__atomic_store_n(&s->tail, tail, __ATOMIC_RELEASE);
	}
}

/*
 * A library dlclose()d and dlopen()ed again (at the same address or
 * not) holds fresh NOPs, a zero control block and a zero semaphore: its
 * probes are armed anew, as the kernel re-inserts a uprobe in a new
 * mapping of its file.  Every read looks at each object's control block
 * (one pread: maps can read the same before and after), and at where
 * the objects are when a refresh read other maps.  This only looks:
 * pr->maps were read with the process running, perhaps before an
 * arming since (a refresh's, whose maps read and hold are apart), so
 * what it sees changed goes to ip_enable(), which decides with the
 * process held what is no longer as armed, reads the records waiting
 * and forgets it, and arms it anew (forget_stale(), inproc_arm.c).  An
 * object unmapped (its control block cannot be read) has nothing of it
 * running and nothing to arm: it is looked at again when it is back.
 */
void ip_remap_check(struct consumer *c, struct ip_proc *ipp)
{
	struct tproc *pr = ipp->pr;
	struct proc_maps mm = {0};
	bool again = false, moved;

	if (ipp->gone || pr->exited || !pr->maps || c->read_more)
		return;
	moved = !ipp->maps_seen || strcmp(ipp->maps_seen, pr->maps);
	if (moved) {
		free(ipp->maps_seen);
		ipp->maps_seen = xstrdup(pr->maps);
		if (proc_maps_parse(pr->maps, &mm) < 0)
			return;
	}
	for (size_t i = 0; i < ipp->nobjs && !again; i++) {
		const struct ip_obj *o = &ipp->objs[i];
		const uint64_t gone = ~(uint64_t)0;
		uint64_t b = o->bias, v = 0;
		bool found = moved ? ip_file_bias(o->file, &mm, &b) : b != gone;

		if (o->bias == gone || !found)
			again = found; /* mapped again: armed anew */
		else if (b != o->bias)
			again = true; /* moved */
		else if (ip_mem_rw(pr->pid, o->ctl, &v, sizeof(v), false) == 0)
			again = v != ipp->taddr; /* 0: mapped anew */
	}
	proc_maps_free(&mm);
	if (again || ipp->rearm)
		ip_enable(c, pr);
}

static void arena_beat(const struct ip_proc *ipp, uint64_t t)
{
	__atomic_store_n(&((struct usdt_arena *)ipp->map)->hb, t,
			 __ATOMIC_RELEASE);
}

/*
 * The heartbeat in every arena (the recorder's hb_limit: a hit finding
 * it older than a second is a drop): written at each read (ip_drain()),
 * after arming an exec'd image (inproc_exec.c), and while a read's hits
 * run (records.c, at most every sixteenth of a second): a read busy past
 * the second (the kernel path's records of the same run on a loaded
 * machine, a system() that takes long) is still dtrace reading, and the
 * process's hits meanwhile are not drops.  The beat thread
 * (inproc_beat.c) covers a single hit that runs past the second, while
 * these beats say the main thread is not stuck (ip_beat_main()); they
 * stay the arenas' for a run whose thread could not start.
 */
void ip_beat(struct consumer *c, bool every)
{
	struct inproc *ip = c->ip;
	uint64_t t;

	if (!ip || ip->stopped)
		return;
	t = rdtsc_now();
	if (!every && t - ip->beat_at < ip->hz / 16)
		return;
	ip->beat_at = t;
	ip_beat_main(t);
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map)
			arena_beat(ip->procs[i], t);
}

static void ip_drain(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t t = rdtsc_now();

	sample(ip, &ip->tsc1, &ip->ns1);
	if (!ip->stopped)
		ip_beat_main(t); /* the beat thread's stamp (inproc_beat.c) */
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		if (!ipp->map)
			continue;
		if (!ip_exec_check(c, ipp) && !ip->stopped)
			ip_remap_check(c, ipp);
		if (!ip->stopped) /* the heartbeat: still here */
			arena_beat(ipp, t);
		ip->beat_at = t;
		ip_drain_proc(c, ipp, i);
		if (!ip->stopped && !ipp->gone)
			ip_seg_giveback(c, ipp);
	}
	/* ip->procs may grow here (an exec'd image armed) */
	for (size_t i = 0; i < ip->nprocs; i++)
		ip_exec_answer(c, ip->procs[i]);
	ip_exec_handover(c);
	ip_drops_say(c, NULL);
}

static size_t ip_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	(void)c;
	(void)pfd;
	(void)max;
	return 0; /* no descriptor: read every switchrate */
}

/*
 * The copies a record carries (arena.h, version 3) into f: str[N] and
 * strlen[N] from each field copied, strflt's bit N where the copy
 * faulted after its bytes (run.c reports it there, not read again),
 * strcut's where strsize - 1 bytes held no NUL.  A field not copied
 * (the call refused: seccomp) leaves str[N] NULL, read when the record
 * runs, as the kernel path's failed copies are.  false: the record lies
 * about its own bytes (a process writing its arena).
 */
static bool decode_copies(struct consumer *c, struct ip_proc *ipp,
			  const struct hit *h, struct d_fire *f)
{
	const uint8_t *raw = h->raw + 8;
	size_t len = h->rawlen - 8, off = 2 * sizeof(struct usdt_slot);
	struct usdt_ext x;

	if (len < off)
		goto bad;
	memcpy(&x, raw + sizeof(struct usdt_slot), sizeof(x));
	if (x.nf > USDT_CFIELDS ||
	    (size_t)x.slots * sizeof(struct usdt_slot) != len)
		goto bad;
	for (uint32_t i = 0; i < x.nf; i++) {
		struct usdt_fhdr fh;

		if (len - off < sizeof(fh))
			goto bad;
		memcpy(&fh, raw + off, sizeof(fh));
		off += sizeof(fh);
		if (fh.arg >= D_MAXARGS || fh.len > USDT_CSTRMAX ||
		    len - off < fh.len || fh.state < USDT_FS_NUL ||
		    fh.state > USDT_FS_NOCOPY ||
		    (fh.state == USDT_FS_NOCOPY && fh.len))
			goto bad;
		if (fh.state == USDT_FS_NOCOPY) {
			ipp->nocopy++;
			continue;
		}
		if (memchr(raw + off, '\0', fh.len))
			goto bad; /* the bytes before a NUL, a cut, a fault */
		f->str[fh.arg] = (const char *)(raw + off);
		f->strlen[fh.arg] = fh.len;
		if (fh.state == USDT_FS_FAULT)
			f->strflt |= (uint16_t)(1u << fh.arg);
		if (fh.state == USDT_FS_CUT)
			f->strcut |= (uint16_t)(1u << fh.arg);
		off += (fh.len + 7u) & ~(size_t)7;
		if (off > len)
			goto bad;
	}
	(void)c;
	return true;
bad:
	ipp->corrupt++;
	return false;
}

static bool ip_decode(struct consumer *c, const struct hit *h, struct d_fire *f,
		      char *comm, size_t commlen, struct hit_at *at)
{
	struct inproc *ip = c->ip;
	struct usdt_slot r;
	const struct ip_site *s;
	struct ip_proc *ipp;
	uint32_t ix, hid;

	if (h->rawlen < 8 + sizeof(r))
		return false;
	memcpy(&ix, h->raw, 4);
	memcpy(&hid, h->raw + 4, 4);
	memcpy(&r, h->raw + 8, sizeof(r));
	if (!(r.pc & USDT_PC_EXT) && h->rawlen != 8 + sizeof(r))
		return false;
	if (ix >= ip->nprocs)
		return false;
	ipp = ip->procs[ix];
	/* the site as it was when read: its library may be gone since */
	if (!hid || hid > ipp->nhist) {
		ipp->corrupt++; /* not a site we armed */
		return false;
	}
	s = &ipp->hist[hid - 1];
	at->file = s->file;
	at->off = s->off;
	/* the owner's plan ran the probe's other clauses (records.c) */
	c->kagg_rec = (r.pc & USDT_PC_AGG) && (pid_t)h->pid == ipp->pid;
	f->cpu = (int)h->cpu;
	f->pid = (pid_t)h->pid;
	f->tid = (pid_t)h->tid;
	if (commlen) /* execname is refused (probe_refusal()) */
		comm[0] = '\0';
	f->execname = comm;
	f->timestamp = h->time;
	/*
	 * On its second try, a hit of a process neither traced nor in the
	 * fork tree at its time is dropped (lin_hit_probe()'s test, whose
	 * nodes from lin_fork() all have a parent): counted, said
	 * (ip_stats()), never silent; seg_fork() tells a child's birth by
	 * its start so that none of its hits is
	 */
	if (h->deferred && !proc_find(c, f->pid) &&
	    !lin_forked(c, f->pid, f->timestamp))
		ipp->unborn++;
	for (unsigned i = 0; i < s->nargs; i++) {
		uint64_t v = r.arg[s->reg[i]];
		unsigned bits = 8u * s->size[i];

		if (bits < 64) {
			v &= (UINT64_C(1) << bits) - 1;
			if (s->sgn[i] && (v >> (bits - 1)) & 1)
				v |= ~((UINT64_C(1) << bits) - 1);
		}
		f->arg[i] = v;
	}
	if ((r.pc & USDT_PC_EXT) && !decode_copies(c, ipp, h, f))
		return false;
	return true;
}

static void ip_proc_exit(struct consumer *c, struct tproc *pr)
{
	struct ip_proc *ipp = ip_proc_of(c, pr);

	/* its children may still write the arena: it stays mapped here */
	if (ipp) {
		ip_exec_unasked(c, ipp);
		ipp->gone = true;
		ipp->taddr = 0;
	}
}

/* The drops counted in ipp's arena: its noseg and each claimed
 * segment's (arena.h), counts that only grow (a segment given back
 * keeps its count, which the thread that takes it adds to). */
static uint64_t arena_drops(const struct inproc *ip, const struct ip_proc *ipp)
{
	const struct usdt_arena *a = (const struct usdt_arena *)ipp->map;
	uint64_t drops;
	uint32_t n;

	if (!a)
		return 0;
	drops = __atomic_load_n(&a->noseg, __ATOMIC_RELAXED);
	n = __atomic_load_n(&a->next_seg, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < n && k < IP_NSEG; k++) {
		const struct usdt_seg *s =
			(const struct usdt_seg *)(ipp->map + USDT_ARENA_HDR +
						  (size_t)k * ip->seg_size);

		drops += __atomic_load_n(&s->drops, __ATOMIC_RELAXED);
	}
	return drops;
}

/* ... those of ipp's not said yet, now taken as said */
static uint64_t drops_unsaid(const struct inproc *ip, struct ip_proc *ipp)
{
	uint64_t d = arena_drops(ip, ipp), n;

	if (d <= ipp->drops_said)
		return 0;
	n = d - ipp->drops_said;
	ipp->drops_said = d;
	return n;
}

/*
 * Drops are said as they are found, as the kernel path says its rings'
 * (bpf.c, "N drops on CPU C") and DTrace its buffers': after each read,
 * those counted since the last said, of every arena mapped (only: the
 * one arena about to be unmapped, inproc_arm.c), and the rest at the
 * end (ip_stats()).  So a run killed later, or one that runs long, has
 * said the hits it lost, and when.
 */
void ip_drops_say(struct consumer *c, struct ip_proc *only)
{
	struct inproc *ip = c->ip;
	uint64_t drops = 0;

	if (only)
		drops = drops_unsaid(ip, only);
	for (size_t i = 0; !only && i < ip->nprocs; i++)
		drops += drops_unsaid(ip, ip->procs[i]);
	if (drops)
		say(c,
		    "%" PRIu64 " drops (hits the in-process rings could not "
		    "hold, or written while dtrace was not reading)",
		    drops);
}

static void ip_stats(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t corrupt = 0, given = 0, alien = 0, nocopy = 0;
	uint64_t ns_gone = 0, ns_fail = 0, unborn = 0;
	int ns_errno = 0;

	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		corrupt += ipp->corrupt;
		alien += ipp->alien;
		ns_gone += ipp->ns_gone;
		ns_fail += ipp->ns_fail;
		unborn += ipp->unborn;
		if (ipp->ns_fail)
			ns_errno = ipp->ns_errno;
		nocopy += ipp->nocopy;
		given += ipp->given;
	}
	ip_drops_say(c, NULL);
	if (corrupt)
		say(c,
		    "%" PRIu64 " records ignored: not a hit of an armed site "
		    "(a process wrote its arena)",
		    corrupt);
	if (alien)
		say(c,
		    "%" PRIu64 " records ignored: written in another pid "
		    "namespace (a fork child's pid there names another "
		    "process here)",
		    alien);
	if (ns_gone)
		say(c,
		    "%" PRIu64 " records ignored: written in another pid "
		    "namespace by a process gone before dtrace read them",
		    ns_gone);
	if (ns_fail)
		say(c,
		    "%" PRIu64 " records ignored: their thread's pid "
		    "namespace could not be read (/proc/self/ns/pid: %s)",
		    ns_fail, strerror(ns_errno));
	if (unborn)
		say(c,
		    "%" PRIu64 " hits dropped: timed before dtrace knew their "
		    "process (a fork child's)",
		    unborn);
	if (given && c->o->verbose)
		say(c, "%" PRIu64 " ring segments of exited threads given back",
		    given);
	if (nocopy)
		say(c,
		    "%" PRIu64 " strings not copied at the hit (the process "
		    "refused process_vm_readv(): a seccomp filter?), read "
		    "when dtrace ran the record",
		    nocopy);
}

static void ip_close(struct consumer *c)
{
	struct inproc *ip = c->ip;

	if (!ip)
		return;
	ip_stop(c);
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		if (ipp->map)
			munmap(ipp->map, ipp->len);
		ipp->map = NULL;
	}
	free(ip->xraw);
	ip->xraw = NULL;
#ifdef HAVE_BPF
	d_kplan_free(ip->kp); /* merged already (ip_aggs()) */
	ip->kp = NULL;
	free(ip->ran);
	ip->ran = NULL;
#endif
}

#else /* !__x86_64__ */

static int ip_open(struct consumer *c)
{
	snprintf(c->be_why, sizeof(c->be_why),
		 "-x activation=user is built for x86-64 only");
	return -ENOTSUP;
}

static void ip_enable(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static void ip_target(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static bool ip_dl_asks(struct consumer *c, struct tproc *pr,
		       const struct tfile *f)
{
	(void)c, (void)pr, (void)f;
	return false;
}

static size_t ip_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	(void)c;
	(void)pfd;
	(void)max;
	return 0;
}

void ip_beat(struct consumer *c, bool every)
{
	(void)c;
	(void)every;
}

static void ip_drain(struct consumer *c)
{
	(void)c;
}

static bool ip_decode(struct consumer *c, const struct hit *h, struct d_fire *f,
		      char *comm, size_t commlen, struct hit_at *at)
{
	(void)c, (void)h, (void)f, (void)comm, (void)commlen, (void)at;
	return false;
}

static void ip_proc_exit(struct consumer *c, struct tproc *pr)
{
	(void)c;
	(void)pr;
}

static void ip_stop(struct consumer *c)
{
	(void)c;
}

static void ip_stats(struct consumer *c)
{
	(void)c;
}

static void ip_aggs(struct consumer *c)
{
	(void)c;
}

static void ip_close(struct consumer *c)
{
	(void)c;
}

#endif

/*
 * The kernel backend opened beside this one (kernel_enable()): its
 * records and its end go with ours; a hit says whose it is (inproc).
 */
static size_t mux_poll_fds(struct consumer *c, struct pollfd *pfd,
			   size_t max)
{
	return c->be_kernel ? c->be_kernel->poll_fds(c, pfd, max)
			    : ip_poll_fds(c, pfd, max);
}

/*
 * The kernel backend's records first: an exec record there resets the
 * process (lineage.c, proc_exec_reset()), and must be in before the new
 * image's ask is answered (ip_exec_answer()) and it is armed, or the kernel
 * backend's enable, reading it then, arms every probe the reset left off
 * (the calls armed in-process too: breakpoints over them).
 * And the kernel's again after the process's: a kernel hit that came
 * after the first read but before a later in-process one would else be
 * read only next time, after that one ran, and an exit() there dropped
 * it (run-copyin.sh under DTRACE_ACTIVATION=user, about a run in ten
 * under load: nothing printed).  The hits of one read run in time order
 * (records.c).
 */
static void mux_drain(struct consumer *c)
{
	if (c->be_kernel)
		c->be_kernel->drain(c);
	ip_drain(c);
	if (c->be_kernel && !c->read_more)
		c->be_kernel->drain(c);
}

static bool mux_decode(struct consumer *c, const struct hit *h,
		       struct d_fire *f, char *comm, size_t commlen,
		       struct hit_at *at)
{
	if (h->inproc || !c->be_kernel)
		return ip_decode(c, h, f, comm, commlen, at);
	return c->be_kernel->decode(c, h, f, comm, commlen, at);
}

static void mux_proc_exit(struct consumer *c, struct tproc *pr)
{
	ip_proc_exit(c, pr);
	if (c->be_kernel)
		c->be_kernel->proc_exit(c, pr);
}

/*
 * pr exec'd, as the kernel backend's records say (proc_exec_reset():
 * every probe of pr off).  Read inside kernel_enable() (the kernel
 * backend's enable reads its records first), it would have that enable
 * arm every probe of pr, those armed in-process too: those stay on, so
 * it arms only the probes handed to it.
 */
static void mux_proc_exec(struct consumer *c, struct tproc *pr)
{
#if defined(__x86_64__)
	struct inproc *ip = c->ip;

	if (ip && ip->kpr == pr)
		for (size_t i = 0; i < c->nprobes; i++) {
			struct tprobe *p = c->probes[i];
			bool mine = false;

			if (p->pid != pr->pid)
				continue;
			for (size_t k = 0; k < ip->nkpp && !mine; k++)
				mine = ip->kpp[k].p == p;
			p->enabled = !mine;
		}
#endif
	if (c->be_kernel && c->be_kernel->proc_exec)
		c->be_kernel->proc_exec(c, pr);
}

static void mux_stop(struct consumer *c)
{
	ip_stop(c);
	if (c->be_kernel)
		c->be_kernel->stop(c);
}

static void mux_aggs(struct consumer *c)
{
	ip_aggs(c);
	if (c->be_kernel && c->be_kernel->aggs)
		c->be_kernel->aggs(c);
}

static void mux_stats(struct consumer *c)
{
	ip_stats(c);
	if (c->be_kernel)
		c->be_kernel->stats(c);
}

static void mux_close(struct consumer *c)
{
	ip_close(c);
	if (c->be_kernel)
		c->be_kernel->close(c);
	c->be_kernel = NULL;
}

const struct consumer_backend_ops consumer_inproc_ops = {
	.name = "in-process",
	.key = "inproc",
	.open = ip_open,
	.enable = ip_enable,
	.poll_fds = mux_poll_fds,
	.drain = mux_drain,
	.decode = mux_decode,
	.proc_exit = mux_proc_exit,
	.proc_exec = mux_proc_exec,
	.dl_asks = ip_dl_asks,
	.target = ip_target,
	.stop = mux_stop,
	.aggs = mux_aggs,
	.stats = mux_stats,
	.close = mux_close,
};
