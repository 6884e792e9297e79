// SPDX-License-Identifier: MIT
/*
 * inproc_stop.c - the end of -x activation=user tracing in each armed
 * process (inproc.c has the mechanism; doc/DESIGN.md §14): ip_stop()
 * zeroes the heartbeats (a hit from then on is the run's no more, and no
 * loss), disarms every process still alive, then the fork children that
 * kept the armed text and the arena (inproc_reap.c, ip_reap_children()),
 * and tells the reaper the run ended.
 *
 * Disarming (ip_disarm(); the reaper's and the children's too, what
 * they found armed put in an ip_proc).  The process is held again; what
 * was written is put back only where the file is still mapped as it was
 * armed (a library dlclose()d since has other things at those
 * addresses): the control blocks go to 0, a site gets its NOPs back only
 * where it holds the call we wrote, each semaphore goes down by the one
 * we added (its log entry zeroed first).  Then no thread may be left
 * inside a recorder, between reading its control block and returning,
 * when the arena goes: one that is is let run out (nothing enters
 * again) and the process held again, with no single step, whose SIGTRAP
 * stop a dtrace killed in it would leave to kill the process.
 * Last, descriptor USDT_EXEC_FD is closed where it is ours and the arena
 * unmapped, both by injected calls (inproc_proc.c's ip_inject()).  The
 * heartbeat, 0 since ip_stop() began, makes a fork child dtrace could not
 * put back (not found, not held) return at once from then on.  A process
 * that exited before its exit was seen (a SIGINT ends the loop first)
 * fails a hold or an injection with nothing to put back: not reported.
 */
#include "config.h"

#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#include "procfs.h"
#include "inproc.h"

#if defined(__x86_64__)

/* Is f (of ipp's objects) still mapped where it was armed? */
static bool obj_live(const struct ip_proc *ipp, const struct tfile *f,
		     const bool *live)
{
	for (size_t i = 0; i < ipp->nobjs; i++)
		if (ipp->objs[i].file == f)
			return live[i];
	return false;
}

/*
 * Has ipp's process exited (its pidfd readable within a second: a SIGKILL
 * takes a moment)?  Then there was nothing to put back, and a hold or an
 * injection that failed is no news: the loop had not seen the exit yet,
 * as when a signal ended it first (consumer.c's loop()).
 */
static bool ip_exited(const struct ip_proc *ipp)
{
	struct pollfd p = { .fd = ipp->pr->pidfd, .events = POLLIN };

	return ipp->pr->pidfd >= 0 && poll(&p, 1, 1000) > 0;
}

/*
 * ipp's sites, semaphores and control blocks back as they were.  Only
 * where the file is still mapped as it was when armed (a library
 * dlclose()d since has other things at those addresses now, or is
 * mapped there anew: its control block does not read our arena, its
 * semaphore is not ours to lower), and a site only where it holds the
 * call we wrote.
 */
void ip_disarm(struct consumer *c, struct ip_proc *ipp)
{
	struct proc_maps mm = { 0 };
	struct ip_hold h;
	bool bad = false, inside = false, *live;
	uint64_t sys = 0;
	int um;

	if (ipp->disarmed || ipp->gone || !ipp->pr || ipp->pr->exited ||
	    !ipp->map) /* nothing armed here (the kernel path's, whole) */
		return;
	ipp->disarmed = true;
	if (!ip_hold_all(ipp->pr, &h)) {
		if (!ip_exited(ipp))
			say(c,
			    "pid %d could not be held to disarm its sites; they "
			    "call the recorder, which returns at once",
			    (int)ipp->pid);
		return;
	}
	live = xcalloc(ipp->nobjs, sizeof(*live));
	if (proc_maps_read(ipp->pid, &mm) == 0)
		for (size_t i = 0; i < ipp->nobjs; i++) {
			uint64_t b, v = 0;

			/* and not mapped anew there since (forget_stale()) */
			live[i] = ip_file_bias(ipp->objs[i].file, &mm, &b) &&
				  b == ipp->objs[i].bias &&
				  ip_mem_rw(ipp->pid, ipp->objs[i].ctl, &v,
					    sizeof(v), false) == 0 &&
				  v == ipp->taddr;
			if (live[i] && !sys)
				sys = ipp->objs[i].sys;
		}
	proc_maps_free(&mm);
	for (size_t i = 0; i < ipp->nobjs; i++) {
		uint64_t z = 0;

		if (live[i])
			bad |= ip_mem_rw(ipp->pid, ipp->objs[i].ctl, &z,
					 sizeof(z), true) < 0;
	}
	for (size_t i = 0; i < ipp->nsites; i++) {
		struct ip_site *st = &ipp->sites[i];
		uint8_t cur[5];

		if (!obj_live(ipp, st->file, live) ||
		    ip_mem_rw(ipp->pid, st->addr, cur, sizeof(cur), false) <
			    0 ||
		    memcmp(cur, st->armed, sizeof(cur)))
			continue; /* not ours any more */
		bad |= ip_mem_rw(ipp->pid, st->addr, st->orig, st->len, true) <
		       0;
	}
	for (size_t i = 0; i < ipp->nsemas; i++) {
		uint16_t v;

		ip_semlog_clear(ipp, &ipp->semas[i]); /* first (arena.h) */
		if (obj_live(ipp, ipp->semas[i].file, live) &&
		    ip_mem_rw(ipp->pid, ipp->semas[i].addr, &v, 2, false) ==
			    0 &&
		    v > 0) {
			v--;
			bad |= ip_mem_rw(ipp->pid, ipp->semas[i].addr, &v, 2,
					 true) < 0;
		}
	}
	/*
	 * Nobody left between reading the control block and returning: a
	 * thread inside a recorder is let run (the blocks read 0 now and
	 * the sites hold their NOPs, so none enters again; it leaves at
	 * once, making no system call) and the process held again.  No
	 * single step: a dtrace that died in its SIGTRAP stop would leave
	 * the SIGTRAP to kill the process.  One that stays (a SIGSTOP
	 * there) keeps the arena mapped.
	 */
	for (unsigned k = 0;; k++) {
		struct timespec ts = { 0, 100000 };
		bool in = false;

		for (size_t i = 0; i < ipp->nobjs && !in; i++)
			in = live[i] && ip_held_in(&h, ipp->objs[i].rec,
						   ipp->objs[i].rec_end);
		if (!in)
			break;
		if (k == IP_LEAVE || h.one) {
			inside = true;
			break;
		}
		ip_release(&h);
		nanosleep(&ts, NULL);
		if (!ip_hold_all(ipp->pr, &h)) {
			free(live);
			if (!ip_exited(ipp))
				say(c,
				    "pid %d could not be held again once its sites "
				    "were restored: its ring buffer stays mapped",
				    (int)ipp->pid);
			return;
		}
	}
	free(live);
	/* the descriptor an exec would inherit, where it is ours */
	if (sys && ip_exec_fd_state(c, ipp->pid) == EXFD_OURS) {
		bool ours;

		(void)ip_inject(&h, sys, SYS_close, USDT_EXEC_FD, 0, 0, 0, 0, 0,
				&ours);
	}
	/* a site left armed must find the arena: unmapped only after */
	if (inside)
		say(c,
		    "pid %d: its ring buffer stays mapped (a thread stayed "
		    "inside the recorder); its sites are restored",
		    (int)ipp->pid);
	else if (!bad && (um = ip_arena_unmap(ipp, &h, sys)) < 0 &&
		 !ip_exited(ipp))
		say(c,
		    "pid %d: its ring buffer stays mapped (%s); its sites are "
		    "restored",
		    (int)ipp->pid,
		    um == -EPERM ? "it filters its system calls: seccomp"
		    : um == -ENOENT
			    ? "no file it maps holds the recorder as armed "
			      "any more: cut, changed or unmapped"
		    : um == -EFAULT ? "the call to unmap it faulted: the file "
				      "it maps the recorder from was cut or "
				      "changed"
				    : strerror(-um));
	ip_release(&h);
	if (bad && !ip_exited(ipp))
		say(c,
		    "pid %d: its sites could not all be restored; they call "
		    "the recorder, which returns at once",
		    (int)ipp->pid);
}

void ip_stop(struct consumer *c)
{
	struct inproc *ip = c->ip;

	if (!ip || ip->stopped)
		return;
	/*
	 * Tracing has ended: a hit from now on is none of the run's, and
	 * no loss (hb 0: the recorder returns at once and counts no drop),
	 * while the processes are held and disarmed one by one, and for
	 * good in a fork child that keeps the armed text.  Zeroed after
	 * the disarming, the hits of threads firing flat out filled the
	 * rings dtrace no longer read, and an exit() at the first hit
	 * ended saying "37827 drops".  The beat thread first: a beat it
	 * was writing must not land after the zeroes.
	 */
	ip_beat_quit();
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map) {
			struct usdt_arena *a =
				(struct usdt_arena *)ip->procs[i]->map;

			__atomic_store_n(&a->hb_limit, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&a->hb, 0, __ATOMIC_RELEASE);
		}
	for (size_t i = 0; i < ip->nprocs; i++) {
		ip_exec_unasked(c, ip->procs[i]);
		ip_disarm(c, ip->procs[i]);
	}
	/* the fork children that kept the armed text and the arena */
	ip_reap_children(c);
	ip->stopped = true;
	ip_reap_end(c); /* it ended: nothing for the reaper to do */
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_stop_unused;
#endif /* __x86_64__ */
