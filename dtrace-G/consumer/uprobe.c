// SPDX-License-Identifier: MIT
/*
 * uprobe.c - the consumer's uprobe-events backend: probe sites armed with
 * kernel uprobe events (tracefs) and perf events, hits read from perf
 * ring buffers.  It needs nothing but the kernel (CONFIG_UPROBE_EVENTS).
 *
 * This file is the perf events and the backend's ops; the uprobe events
 * themselves, what tracefs holds, are uprobe_ev.c's (uprobe_impl.h).
 *
 * Enabling.  For each probe site (file, file offset) one uprobe event is
 * created in tracefs under a group named after this run, "dtrace_PID_T"
 * (T: our start time), with the semaphore's file offset as reference
 * counter, so the kernel counts the _ENABLED() semaphore up in exactly
 * the processes where it installs the breakpoint, and down when it
 * removes it.  The event's fetch arguments copy, at hit time, the
 * arguments as the site's stapsdt note describes them (else the SysV
 * call registers and stack slots), the strings the D program reads with
 * copyinstr(), and the thread's name.  Perf events per (uprobe event,
 * thread of a traced process, CPU) turn it on: the kernel installs
 * breakpoints only in the address spaces of processes with such an
 * event, so another process running the same binary pays nothing.
 * inherit = 1 follows threads created later, and the fork tracker's
 * events keep those copies with their threads ("No swap", thread_open()).
 * A running process is held still (ptrace) while its events are opened,
 * so no thread takes a probe half enabled.  That is for sites only
 * descriptions pinning processes match (srv$target); a site that a glob
 * such as srv* matches, or could match in another process running the
 * file, is armed binary-wide
 * instead (but one -x activation=user hands over: tprobe.alone), for
 * every process (sites.c decides: tprobe.wide), with
 * up_wide_open(): per-CPU events with pid -1, every process mapping the
 * file; and decode drops the hits of processes
 * that are neither traced nor forked from one (lineage.c).
 *
 * Reading.  Each CPU has a ring buffer, which every event on that CPU
 * writes (PERF_EVENT_IOC_SET_OUTPUT); the fork tracker (dummy events with
 * task/comm records, inherited by every child; when a clause reads
 * stacks, mmap2 records of executable mappings too, for ustack.c's
 * dating of a frame's file: mmap2_record()) writes buffers of its
 * own, read after the hits', so that a lost record is known to be a
 * hit or a tracker record.  Every switchrate (10 ms) or when a
 * buffer is half full, all buffers are drained into the consumer's hits
 * (records.c sorts and runs them); a sample is decoded with the field
 * offsets its event's format file gave.  An event whose clauses read the
 * user stack also samples the user registers and stack (ustack.c), which
 * follow the raw data in the sample.  Records the kernel could not
 * store are reported ("N drops on CPU C"), and at the end the events' own
 * counts give the exact number of hits that were never read.
 *
 * Cleanup.  Closing the perf events makes the kernel remove the
 * breakpoints and count the semaphores down; then the uprobe events are
 * deleted.  A consumer killed with SIGKILL leaves its uprobe events (its
 * perf events die with it, so nothing stays armed); every run deletes
 * the groups of consumers that are no longer alive before it starts.
 *
 * A library a -p process (or a -c command) dlopen()s is armed before
 * its code runs as under the bpf backend: dlhold.c holds the thread at
 * ld.so's _dl_debug_state() with a uprobe and a program of its own, a
 * few BPF instructions that signal the thread; and a new image at its
 * exec stop, the -p process held from its first arming (up_enable()).
 * No hit is read through BPF: the program is the one stop that nothing
 * outlives a SIGKILLed dtrace by (doc/DESIGN.md §8 says why a perf
 * event's own SIGTRAP, attr.sigtrap, does not do), so where the kernel
 * refuses it, or dtrace was built without libbpf, the library is armed
 * when the maps are next read, and dtrace says so.
 *
 * The bpf backend (bpf.c) arms sites with these same functions: with
 * c->up.scope_only the per-thread perf events only scope the breakpoints
 * (one per thread on any CPU, no ring buffer), and c->up.event_new is
 * handed each new event to attach its BPF program to; binary-wide events
 * then only arm.  A site only the process's own pinned probes name may
 * instead be armed by the bpf backend's site link for that process, no
 * uprobe event nor perf events (link_fits(), c->up.site_link,
 * bpf_attach.c), and armed as above again when the link cannot follow
 * the process (up_site_relink()); not where the process has perf
 * events of a uprobe event on the site, which after an exec still arm
 * it (link_fits()).  The fork tracker (thread_open() with no event)
 * writes its per-CPU buffers either way, and is opened on a target with
 * no site (a program of kernel probes) when a clause reads stacks, for
 * the mapping records (up_track(), the bpf backend's target op).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "procfs.h"
#include "uprobe_impl.h"

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
				int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

/* ------------------------------------------------------------------ */
/* Perf events */

/*
 * The ring buffers: one per CPU, as in DTrace, owned by a dummy software
 * event on that CPU.  Every uprobe perf event is opened once per CPU for
 * each thread, with inherit = 1 so that threads created later are traced
 * too, and writes to its CPU's buffer (PERF_EVENT_IOC_SET_OUTPUT), as do
 * the copies the new threads inherit.  A buffer is only ever written from
 * its own CPU, which is what the kernel's ring buffer requires (it is why
 * the kernel refuses to map one buffer for a task and its inherited
 * events: their writers would run on several CPUs at once).
 */
static int bufs_open(struct consumer *c, struct tcpu **v, size_t *nv)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int err = -ENODEV;

	if (*nv)
		return 0;
	for (long cpu = 0; cpu < n && cpu < 4096; cpu++) {
		struct perf_event_attr a = {0};
		struct tcpu tc = {.cpu = (int)cpu};
		int fd;

		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_SW_DUMMY;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(c->rbsize / 2);
		fd = (int)sys_perf_event_open(&a, -1, (int)cpu, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno != ENODEV && errno != ENOENT)
				err = -errno; /* not an offline CPU */
			continue;
		}
		tc.rb = mmap(NULL, c->rbsize + (size_t)getpagesize(),
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (tc.rb == MAP_FAILED) {
			err = -errno;
			close(fd);
			continue;
		}
		tc.fd = fd;
		PUSH(*v, *nv, tc);
	}
	return *nv ? 0 : err;
}

/* The hits' buffers (the uprobe backend only). */
static int cpus_open(struct consumer *c)
{
	return bufs_open(c, &c->up.cpus, &c->up.ncpus);
}

/*
 * The fork tracker's buffers: its own, so that a hit lost is never
 * mistaken for a tracker record lost, nor the other way round.
 */
static int trk_open(struct consumer *c)
{
	return bufs_open(c, &c->up.trk, &c->up.ntrk);
}

/*
 * Open one event per CPU on a thread, into that CPU's buffer.  e NULL:
 * the thread's fork tracker (below), else the uprobe event e.
 *
 * No swap: the tracker's events also ask for PERF_SAMPLE_READ, which
 * a dummy event never uses (it never samples) but which keeps the
 * kernel from swapping the perf contexts of a thread and its clones at
 * a switch (kernel/events/core.c, perf_event_context_sched_out(): a
 * context with an inherited SAMPLE_READ event counts in
 * nr_no_switch_fast; Linux 6.12 on, refused before).  A swap gave a
 * thread created after arming its creator's original events and the
 * creator the thread's inherited copies; the creator's exit freed the
 * copies, and the kernel's uprobe filter, which takes a hit only where
 * some event's task (hw.target) has the hitting memory, then matched
 * none: every later hit of the thread lost (doc/DESIGN.md §8, "Threads
 * whose creator exits first").
 */
static int thread_open(struct consumer *c, struct tproc *pr, struct tthread *th,
		       struct tevent *e)
{
	int err = !e ? trk_open(c) : c->up.scope_only ? 0 : cpus_open(c);
	struct tcpu *bufs = e ? c->up.cpus : c->up.trk;
	size_t nbufs = e ? c->up.ncpus : c->up.ntrk;

	if (err)
		return err;
	if (c->up.scope_only && e) {
		/*
		 * The breakpoints only: one event on any CPU, no buffer.
		 * The fork tracker (e NULL) still writes the per-CPU
		 * buffers, which then carry nothing else.
		 */
		struct perf_event_attr a = {0};
		struct tperf tp;
		int fd;

		a.type = PERF_TYPE_TRACEPOINT;
		a.size = sizeof(a);
		a.config = (uint64_t)e->tp;
		a.sample_period = 1;
		a.inherit = 1;
		a.remove_on_exec = c->up.no_roe ? 0 : 1;
		fd = (int)sys_perf_event_open(&a, th->tid, -1, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && !c->up.no_roe) {
			c->up.no_roe = true; /* as below */
			c->lin.exec_drops = false;
			a.remove_on_exec = 0;
			fd = (int)sys_perf_event_open(&a, th->tid, -1, -1,
						      PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0)
			return -errno;
		tp.fd = fd;
		tp.tid = th->tid;
		tp.ev = e;
		PUSH(pr->perf, pr->nperf, tp);
		return 0;
	}
	for (size_t cpu = 0; cpu < nbufs; cpu++) {
		struct perf_event_attr a = {0};
		struct tperf tp;
		int fd;

		a.size = sizeof(a);
		if (e) {
			a.type = PERF_TYPE_TRACEPOINT;
			a.config = (uint64_t)e->tp;
			a.sample_period = 1;
			a.remove_on_exec = c->up.no_roe ? 0 : 1;
		} else {
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_DUMMY;
			a.task = 1;
			a.comm = 1;
			a.comm_exec = 1;
			/* executable mappings, dated (ustack.c's
			 * mapped_at()) */
			a.mmap = a.mmap2 = ustack_maps_wanted(c);
		}
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		if (!e && !c->up.swaps) /* "No swap", above */
			a.sample_type |= PERF_SAMPLE_READ;
		if (e) /* registers and stack, after the raw data */
			ustack_perf_attr(c, e->needs, &a);
		a.inherit = 1;
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		fd = (int)sys_perf_event_open(&a, th->tid, bufs[cpu].cpu, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && !e && !c->up.swaps) {
			/* before Linux 6.12: "No swap", above */
			c->up.swaps = true;
			a.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
			fd = (int)sys_perf_event_open(&a, th->tid,
						      bufs[cpu].cpu, -1,
						      PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0 && errno == EINVAL && e && !c->up.no_roe) {
			/*
			 * Before Linux 5.13 there is no remove_on_exec: an
			 * exec'd child keeps the events it inherited, and
			 * lineage.c is told so.
			 */
			c->up.no_roe = true;
			c->lin.exec_drops = false;
			a.remove_on_exec = 0;
			fd = (int)sys_perf_event_open(&a, th->tid,
						      bufs[cpu].cpu, -1,
						      PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0)
			return -errno;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, bufs[cpu].fd) < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		tp.fd = fd;
		tp.tid = th->tid;
		tp.ev = e;
		PUSH(pr->perf, pr->nperf, tp);
	}
	return 0;
}

static struct tthread *thread_add(struct tproc *pr, pid_t tid)
{
	struct tthread th = {.tid = tid};

	for (size_t i = 0; i < pr->nth; i++)
		if (pr->th[i].tid == tid)
			return NULL;
	PUSH(pr->th, pr->nth, th);
	return &pr->th[pr->nth - 1];
}

static void report_open_error(struct consumer *c, struct tproc *pr, int err)
{
	c->enable_failed = true;
	if (c->up.perm_warned)
		return;
	c->up.perm_warned = true;
	say(c, "cannot enable probes in pid %d: perf_event_open: %s%s",
	    (int)pr->pid, strerror(-err),
	    err == -EACCES || err == -EPERM ? " (tracing needs root)" : "");
}

/* The threads of pr now, added to pr->th. */
static int proc_threads(struct tproc *pr)
{
	DIR *d = proc_dir_open(pr->pid);
	pid_t tid;

	if (!d)
		return -ESRCH;
	while ((tid = proc_dir_next(d)) > 0)
		(void)thread_add(pr, tid);
	closedir(d);
	return 0;
}

/*
 * Turn an event on in every thread of a process (known now); e NULL:
 * the fork tracker.
 */
static int proc_enable_event(struct consumer *c, struct tproc *pr,
			     struct tevent *e)
{
	int opened = 0;

	if (e) {
		for (size_t i = 0; i < pr->nevs; i++)
			if (pr->evs[i] == e)
				return 0;
		PUSH(pr->evs, pr->nevs, e);
	}
	if (proc_threads(pr) < 0)
		return -ESRCH;
	for (size_t i = 0; i < pr->nth; i++) {
		int err;

		if (pr->th[i].gone)
			continue;
		err = thread_open(c, pr, &pr->th[i], e);
		if (err == -ESRCH) {
			pr->th[i].gone = true;
			continue;
		}
		if (err) {
			if (!e || !site_refused(c, e->file, e->off, err))
				report_open_error(c, pr, err);
			return err;
		}
		opened++;
	}
	return opened ? 0 : -ESRCH;
}

/*
 * Whether every thread of pr carries the fork tracker just opened in
 * those it had (a process running, not held, may have created one
 * meanwhile from a thread that did not carry it yet): read the task
 * list again.  A thread created after that inherits it.
 */
static bool tracker_everywhere(struct tproc *pr)
{
	size_t n = pr->nth;

	return proc_threads(pr) == 0 && pr->nth == n;
}

/*
 * Hold still, too, the descendants of traced processes that the
 * consumer knows only through the fork tree (lineage.c): a child whose
 * registration dtrace has not read yet, or that registers nothing, is
 * traced all the same (a glob matches it), maps the file and may fire
 * the moment the first per-CPU event arms it: fork then exec, its
 * semaphore counted up by that event, fires at once.  The buffers are
 * read first, and again after each round, so that the forks (and
 * exits) of what was held are in the tree; a round that holds no new
 * thread ends it.  A pid in the tree whose exit is not written yet when
 * it is read, and that another process took meanwhile, would be held a
 * moment too: no harm but the pause.
 */
static size_t tree_freeze(struct consumer *c, struct frozen **fz, size_t n)
{
	for (int round = 0; round < 100; round++) {
		size_t before = n, np;
		pid_t *pids;

		drain_buffers(c);
		np = lin_untraced_alive(c, &pids);
		for (size_t i = 0; i < np; i++)
			n = proc_freeze(pids[i], fz, n);
		free(pids);
		if (n == before)
			break;
	}
	return n;
}

static int wide_open_cpus(struct consumer *c, struct tevent *e, long n)
{
	for (long cpu = 0; cpu < n && cpu < 4096; cpu++) {
		struct perf_event_attr a = {0};
		int fd, out = -1;

		if (!c->up.scope_only) {
			for (size_t i = 0; i < c->up.ncpus; i++)
				if (c->up.cpus[i].cpu == (int)cpu)
					out = c->up.cpus[i].fd;
			if (out < 0)
				continue; /* offline */
		}
		a.type = PERF_TYPE_TRACEPOINT;
		a.size = sizeof(a);
		a.config = (uint64_t)e->tp;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		if (!c->up.scope_only)
			ustack_perf_attr(c, e->needs, &a);
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		/* on only once it writes its CPU's buffer (below) */
		a.disabled = out >= 0;
		fd = (int)sys_perf_event_open(&a, -1, (int)cpu, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV || errno == ENOENT)
				continue; /* an offline CPU */
			return -errno;
		}
		PUSH(e->wfd, e->nwfd, fd);
		if (out >= 0 &&
		    (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out) < 0 ||
		     ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0))
			return -errno;
	}
	return e->nwfd ? 0 : -ENODEV;
}

/*
 * Arm e binary-wide: one event per CPU with pid -1, which puts every
 * process that maps the file in the uprobe's filter, so the kernel
 * installs the breakpoint (and counts the semaphore up) in all of them,
 * those that map it later included.  Whose hit it is, and whether it
 * counts, lin_hit_probe() decides.  On the uprobe backend each writes
 * its CPU's buffer; on the bpf backend the program is attached to the
 * uprobe event already and these only arm (no buffer).
 *
 * The first of them arms the site everywhere, one address space after
 * another, and the kernel counts each one's semaphore up before it
 * writes the breakpoint there (uprobe_write_opcode()): a process that
 * sees its semaphore up in between fires a NOP.  On the uprobe backend,
 * too, a hit on a CPU whose event is not open yet would be lost, and
 * one on a CPU whose event is open but does not write its buffer yet
 * would be counted and lost: each is opened disabled and turned on once
 * it writes its CPU's buffer.  So every process whose hits count is
 * held still until all are on, on both backends: the traced processes
 * and their descendants known only through the fork tree
 * (tree_freeze(); a process outside both has no hits that count).
 */
int up_wide_open(struct consumer *c, struct tevent *e)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int err = c->up.scope_only ? 0 : cpus_open(c);
	struct frozen *fz = NULL;
	size_t nfz = 0;

	if (err)
		return err;
	for (size_t i = 0; i < c->nprocs; i++)
		if (!c->procs[i]->exited && !c->procs[i]->held)
			nfz = proc_freeze(c->procs[i]->pid, &fz, nfz);
	nfz = tree_freeze(c, &fz, nfz);
	err = wide_open_cpus(c, e, n);
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
	return err;
}

/* Close e's binary-wide events, adding up what they counted. */
static void wide_close(struct consumer *c, struct tevent *e)
{
	for (size_t i = 0; i < e->nwfd; i++) {
		uint64_t n;

		if (read(e->wfd[i], &n, sizeof(n)) == (ssize_t)sizeof(n))
			c->up.fired += n;
	}
	close_many(e->wfd, e->nwfd);
	free(e->wfd);
	e->wfd = NULL;
	e->nwfd = 0;
}

/* Copy len bytes at ring offset pos (which may wrap) to dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	if (pos + len <= size) {
		memcpy(dst, data + pos, len);
	} else {
		size_t a = (size_t)(size - pos);

		memcpy(dst, data + pos, a);
		memcpy((uint8_t *)dst + a, data, len - a);
	}
}

/*
 * The tracker's PERF_RECORD_MMAP2 (an executable mapping of a traced
 * process): pid, tid, addr, len, pgoff, maj, min, ino, ino_generation,
 * prot, flags, the file's name, then the sample id (pid, tid, time,
 * cpu: its time 16 bytes from the end), for ustack.c.
 */
static void mmap2_record(struct consumer *c, const uint8_t *rec, size_t size)
{
	const uint8_t *q = rec + sizeof(struct perf_event_header);
	struct ustack_mapped m = {0};
	uint64_t addr, len, pgoff;
	uint32_t pid;

	if (size < sizeof(struct perf_event_header) + 64 + 24)
		return;
	memcpy(&pid, q, 4);
	memcpy(&addr, q + 8, 8);
	memcpy(&len, q + 16, 8);
	memcpy(&pgoff, q + 24, 8);
	memcpy(&m.maj, q + 32, 4);
	memcpy(&m.min, q + 36, 4);
	memcpy(&m.ino, q + 40, 8);
	memcpy(&m.t, rec + size - 16, 8);
	m.pid = (pid_t)pid;
	m.lo = addr;
	m.hi = addr + len;
	m.base = addr - pgoff;
	m.file = q[64] == '/';
	ustack_mapped(c, &m);
}

/*
 * Take every record out of one ring buffer: samples are copied to the
 * arena (the buffer space is given back at once), lost-record counts
 * are reported.
 */
static void rb_drain(struct consumer *c, struct tcpu *tc, bool tracker)
{
	static uint8_t rec[1 << 16]; /* a record's size is 16 bits */
	struct perf_event_mmap_page *mp = tc->rb;
	const uint8_t *data = (const uint8_t *)tc->rb + getpagesize();
	uint64_t size = c->rbsize, head, tail;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		uint64_t pos = tail % size;

		ring_copy(data, size, pos, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break; /* cannot happen: the kernel writes whole records
				*/
		ring_copy(data, size, pos, rec, hdr.size);
		if (hdr.type == PERF_RECORD_SAMPLE) {
			/* TID, TIME, CPU (+ reserved), RAW size and bytes */
			const uint8_t *q = rec + sizeof(hdr);
			struct hit h = {0};
			uint32_t raw;

			c->received++;
			memcpy(&h.pid, q, 4);
			memcpy(&h.tid, q + 4, 4);
			memcpy(&h.time, q + 8, 8);
			memcpy(&h.cpu, q + 16, 4);
			memcpy(&raw, q + 24, 4);
			if (28 + (size_t)raw <= hdr.size - sizeof(hdr)) {
				/* what follows raw too: a user stack */
				size_t all = hdr.size - sizeof(hdr) - 28;

				h.rawoff = arena_put(c, q + 28, all);
				h.rawlen = raw;
				h.xlen = (uint32_t)(all - raw);
				hit_push(c, &h);
			}
		} else if (hdr.type == PERF_RECORD_FORK ||
			   hdr.type == PERF_RECORD_EXIT) {
			/* pid, ppid, tid, ptid, time (the trackers') */
			uint32_t v[4];
			uint64_t t;

			if (hdr.size >= sizeof(hdr) + 24) {
				memcpy(v, rec + sizeof(hdr), 16);
				memcpy(&t, rec + sizeof(hdr) + 16, 8);
				if (hdr.type == PERF_RECORD_FORK)
					lin_fork(c, (pid_t)v[1], (pid_t)v[0],
						 (pid_t)v[2], t);
				else
					lin_exit(c, (pid_t)v[0], (pid_t)v[2],
						 t);
			}
		} else if (hdr.type == PERF_RECORD_COMM) {
			/* pid, tid, comm, then the sample id: pid, tid,
			 * time, cpu */
			uint32_t pid;
			uint64_t t;

			if ((hdr.misc & PERF_RECORD_MISC_COMM_EXEC) &&
			    hdr.size >= sizeof(hdr) + 8 + 24) {
				memcpy(&pid, rec + sizeof(hdr), 4);
				memcpy(&t, rec + hdr.size - 16, 8);
				lin_exec(c, (pid_t)pid, t);
			}
		} else if (hdr.type == PERF_RECORD_MMAP2) {
			mmap2_record(c, rec, hdr.size);
		} else if (hdr.type == PERF_RECORD_LOST) {
			uint64_t lost;
			uint32_t cpu = (uint32_t)tc->cpu;

			memcpy(&lost, rec + sizeof(hdr) + 8, 8);
			if (tracker) {
				ustack_mapped_lost(c);
				/* children forked then may be missed */
				c->up.trk_lost += lost;
				say(c,
				    "%" PRIu64 " fork tracker records lost on "
				    "CPU %u",
				    lost, cpu);
			} else {
				c->up.drops += lost;
				say(c, "%" PRIu64 " drops on CPU %u", lost,
				    cpu);
			}
		}
		tail += hdr.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* A record's event, by its type (the tracepoint ID, 16 bits). */
static struct tevent *event_by_tp(struct consumer *c, uint16_t tp)
{
	return c->up.by_tp ? c->up.by_tp[tp] : NULL;
}

static uint64_t field_u(const struct hit *h, int off, int size, bool sgn)
{
	uint64_t v = 0;

	if (off < 0 || (uint32_t)(off + size) > h->rawlen)
		return 0;
	switch (size) {
	case 1: {
		uint8_t x;

		memcpy(&x, h->raw + off, 1);
		v = sgn ? (uint64_t)(int64_t)(int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, h->raw + off, 2);
		v = sgn ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, h->raw + off, 4);
		v = sgn ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, h->raw + off, 8);
		break;
	}
	return v;
}

/* A __data_loc string: its bytes (NUL excluded), or NULL. */
static const char *field_str(const struct hit *h, int off, size_t *len)
{
	uint32_t loc, o, l;

	if (off < 0 || (uint32_t)off + 4 > h->rawlen)
		return NULL;
	memcpy(&loc, h->raw + off, 4);
	o = loc & 0xffff;
	l = loc >> 16;
	if (!l || o + l > h->rawlen)
		return NULL;
	*len = strnlen((const char *)h->raw + o, l);
	return (const char *)h->raw + o;
}

/* A sample's site (by its event) and what the event fetched. */
static bool up_decode(struct consumer *c, const struct hit *h,
		      struct d_fire *f, char *comm, size_t commlen,
		      struct hit_at *at)
{
	uint16_t type;
	struct tevent *e;
	size_t cl = 0;
	const char *cs;

	if (h->rawlen < 8)
		return false;
	memcpy(&type, h->raw, 2);
	e = event_by_tp(c, type);
	if (!e)
		return false;
	at->file = e->file;
	at->off = e->off;
	f->cpu = (int)h->cpu;
	f->pid = (pid_t)h->pid;
	f->tid = (pid_t)h->tid;
	cs = field_str(h, e->comm_off, &cl);
	if (cs)
		snprintf(comm, commlen, "%.*s", (int)cl, cs);
	f->execname = comm;
	f->timestamp = h->time;
	for (unsigned i = 0; i < e->nargs && i < D_MAXARGS; i++) {
		f->arg[i] = field_u(h, e->arg_off[i], e->arg_size[i],
				    e->arg_signed[i]);
		if (e->str_off[i] >= 0)
			f->str[i] = field_str(h, e->str_off[i], &f->strlen[i]);
	}
	if ((e->needs & D_NEED_USTACK) && h->xlen)
		(void)ustack_perf_decode(h->raw + h->rawlen, h->xlen,
					 &c->ucap);
	return true;
}

/* ------------------------------------------------------------------ */
/* The backend */

static void proc_disable(struct tproc *pr)
{
	for (size_t i = 0; i < pr->nperf; i++)
		(void)ioctl(pr->perf[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Close pr's events.  Their counts (which include the threads that
 * inherited them) say how many hits there were: a hit the kernel could
 * not store after the last PERF_RECORD_LOST is counted there too, so the
 * drops reported at the end are exact.  The buffers must have been read.
 * later: pr exited, so nothing waits for the closes (close_later()).
 */
static void proc_close(struct consumer *c, struct tproc *pr, bool later)
{
	int *fds = xcalloc(pr->nperf ? pr->nperf : 1, sizeof(*fds));

	for (size_t i = 0; i < pr->nperf; i++) {
		uint64_t n;

		fds[i] = pr->perf[i].fd;
		if (pr->perf[i].fd < 0)
			continue;
		if (read(pr->perf[i].fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
			c->up.fired += n;
	}
	if (later)
		close_later(fds, pr->nperf);
	else
		close_many(fds, pr->nperf); /* each close waits: fdclose.c */
	free(fds);
	free(pr->perf);
	pr->perf = NULL;
	pr->nperf = 0;
	free(pr->th);
	pr->th = NULL;
	pr->nth = 0;
}

/*
 * tracefs is looked for now, but only missed when a probe is to be
 * enabled: BEGIN and END alone need no kernel help.
 */
int up_open(struct consumer *c)
{
	uint64_t mystart = 0;

	if (up_tracefs_find(c) < 0) {
		snprintf(c->up.err, sizeof(c->up.err),
			 "cannot enable probes: no tracefs with uprobe_events "
			 "(is CONFIG_UPROBE_EVENTS on, and are we root?)");
	} else {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/uprobe_events", c->up.tfs);
		if (access(p, W_OK) < 0)
			snprintf(c->up.err, sizeof(c->up.err),
				 "cannot enable probes: %s: %s (tracing needs "
				 "root)",
				 p, strerror(errno));
	}
	if (!c->up.err[0])
		up_reap_groups(c, NULL);
	(void)reg_proc_stat(getpid(), &mystart, NULL, 0);
	snprintf(c->up.group, sizeof(c->up.group), GROUP_PREFIX "%d_%" PRIu64,
		 (int)getpid(), mystart);
	c->lin.on = true;
	c->lin.exec_drops = true; /* until remove_on_exec is refused */
	return 0;
}

/*
 * Whether pr carries every site it wants (and so the fork tracker too:
 * both came with the events it inherited, the tracker first); then its
 * probes are on as they are, and it need not be held still at all.
 * Nothing it can do takes inherited events away but an exec, and an
 * exec'd image registers anew.  A site armed binary-wide is carried by
 * every process; the tracker then only by one forked from a tracked
 * process (lin_forked()).
 */
static bool carries_all(struct consumer *c, struct tproc *pr, uint64_t now)
{
	bool any = false, forked = lin_forked(c, pr->pid, now);

	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		for (unsigned s = 0; s < p->noffs; s++) {
			if (!forked ||
			    (!up_event_wide(c, p->file, p->offs[s]) &&
			     !lin_carries(c, pr->pid, p->file, p->offs[s],
					  now)))
				return false;
			any = true;
		}
	}
	if (!any)
		return false;
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];

		if (p->pid == pr->pid && p->nclauses)
			p->enabled = true;
	}
	pr->tracked = true;
	ustack_tracked(c, pr->pid, now); /* since its fork, at least now */
	return true;
}

/*
 * Whether pr's site (f, off) may be armed by a site link, for pr alone
 * (bpf_attach.c): only where no other process's hit there could count
 * under the per-thread events either.  Those are inherited by a child
 * forked later, whose hits count only for a probe of its own
 * (lineage.c); a link's pid filter loses them.  So every probe at the
 * site is pr's own and pinned, not binary-wide (sites.c: no glob can
 * match it, here or in another process), and pr is a process whose exec
 * dtrace stops at before the new image runs (dlhold.c, which closes the
 * links there): one dlhold.c holds (a -p process from its first
 * arming on, bpf.c's bpf_enable()), or a -c command rtld.c holds until
 * BEGIN, handed to dlhold.c then (or its sites armed again as uprobe
 * events when it cannot be, up_site_relink()).  A return probe keeps
 * its event.
 *
 * Nor where pr has per-thread perf events of a uprobe event at the
 * site, an earlier image's (or its own, up_site_relink()): the link
 * would run a second program at each hit there.  remove_on_exec takes
 * such an event out of the thread's perf context, but not out of the
 * uprobe event's filter: the kernel drops an event from the filter
 * (trace_uprobe.c, uprobe_perf_close()) only when it is freed, at its
 * close, and until then the filter takes any address space that the
 * event's target thread has (hw.target->mm), which after an exec is the
 * new image's.  So that event goes on arming the site in every image
 * the thread execs, and its program runs at each hit there (the exec
 * chain under -p counted each new image's ticks twice, 140 for 80, when
 * its first image had uprobe events and the next ones links): the
 * event is used again instead (up_event_get()).
 */
static bool link_fits(struct consumer *c, struct tproc *pr, struct tfile *f,
		      uint64_t off)
{
	if (!c->up.site_link || site_returns(off) ||
	    !(dlhold_owns(pr->pid) ||
	      (pr->created && pr->held && !c->released)))
		return false;
	for (size_t i = 0; i < pr->nperf; i++)
		if (pr->perf[i].ev && pr->perf[i].ev->file == f &&
		    pr->perf[i].ev->off == off)
			return false;
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct tprobe *q = c->probes[i];

		if (q->file != f)
			continue;
		for (unsigned s = 0; s < q->noffs; s++)
			if (q->offs[s] == off && (q->wide || q->pid != pr->pid))
				return false;
	}
	return true;
}

/*
 * Whether pr's site (f, off) is armed already by a link of pr's: a
 * library dlclose()d and mapped again is (the link's filter is pr's
 * address space, whatever it maps), and a second link would run the
 * program twice at each hit.
 */
static bool linked(const struct consumer *c, const struct tproc *pr,
		   const struct tfile *f, uint64_t off)
{
	for (size_t i = 0; i < c->up.nevs; i++)
		if (c->up.evs[i]->lpid == pr->pid &&
		    c->up.evs[i]->file == f && c->up.evs[i]->off == off)
			return true;
	return false;
}

/* whether process pid has sites armed by site links (bpf_attach.c) */
bool up_site_linked(const struct consumer *c, pid_t pid)
{
	for (size_t i = 0; i < c->up.nevs; i++)
		if (c->up.evs[i]->lpid == pid)
			return true;
	return false;
}

/*
 * pr's sites that site links arm (bpf_attach.c) armed as uprobe events
 * instead, as up_enable() would have, then the links closed, pr held
 * still in between so that no hit is taken twice or by neither: for a
 * process whose leader exited before its threads (the link's filter
 * reads the leader's mm, so another consumer of the site unregistering
 * would take the breakpoint out of the others), and a -c command that
 * dlhold.c could not take (no exec stop would close the links before
 * a new image ran).
 */
void up_site_relink(struct consumer *c, struct tproc *pr)
{
	struct frozen *fz = NULL;
	size_t nfz = 0, n = c->up.nevs;
	uint64_t now;

	if (!up_site_linked(c, pr->pid) || !c->up.site_unlink)
		return;
	if (!pr->held)
		nfz = proc_freeze(pr->pid, &fz, 0);
	drain_buffers(c);
	now = now_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < n; i++) {
		struct tevent *l = c->up.evs[i], *e;

		if (l->lpid != pr->pid)
			continue;
		e = up_event_get(c, l->file, l->off, l->strmask, l->needs,
				 l->nargs, false);
		if (e && proc_enable_event(c, pr, e) == 0)
			lin_own(c, pr->pid, l->file, l->off, now);
	}
	(void)c->up.site_unlink(c, pr->pid, false);
	if (c->up.site_relinked)
		c->up.site_relinked(c, pr);
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
}

/*
 * An event per site, turned on in every thread of pr, pr held still;
 * but none for a site pr carries already, through events it inherited
 * from the process it was forked from (lineage.c), nor for a site armed
 * binary-wide (a wide probe's site is armed so, once, for every process).  The buffers are read
 * first, with pr held: every fork and exec that made pr what it is now
 * was written before, so lin_carries() knows it.  The fork tracker goes
 * on first: a child forked after any site event is on is in the tree.
 */
void up_enable(struct consumer *c, struct tproc *pr)
{
	struct frozen *fz = NULL;
	size_t nfz = 0;
	uint64_t now;
	bool prelink = pr->created && pr->held && !c->released &&
		       (c->be->caps & BE_CAP_HOLD);

	/*
	 * A -p process held by dlhold.c from its first arming on, not
	 * from BEGIN: an exec meanwhile is stopped at, and its new image
	 * armed there, before it runs; the site links it takes closed
	 * there (link_fits()).  Where it cannot be, said once.
	 */
	if (pr->target && !pr->created && !c->released &&
	    (c->be->caps & BE_CAP_HOLD))
		(void)dlhold_start(c, pr);
	drain_buffers(c);
	now = now_ns(CLOCK_MONOTONIC);
	if (carries_all(c, pr, now))
		return;
	if (!pr->held)
		nfz = proc_freeze(pr->pid, &fz, 0);
	if (prelink) /* what its link needs, before the sites' links */
		dlhold_prelink(c, pr, false);
	drain_buffers(c);
	now = now_ns(CLOCK_MONOTONIC);
	if (!pr->tracked && !c->up.err[0]) {
		int err = proc_enable_event(c, pr, NULL);

		pr->tracked = err == 0;
		if (pr->tracked && tracker_everywhere(pr))
			ustack_tracked(c, pr->pid, now_ns(CLOCK_MONOTONIC));
		if (err && err != -ESRCH)
			goto out;
	}
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];
		unsigned nargs;

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		p->enabled = true;
		nargs = p->nargs;
		for (unsigned s = 0; s < p->noffs; s++) {
			struct tevent *e;

			if (up_event_wide(c, p->file, p->offs[s]))
				continue;
			if (p->wide && !p->alone) {
				(void)up_event_get(c, p->file, p->offs[s],
						   p->fstrmask, p->fneeds,
						   nargs, true);
				continue;
			}
			if (lin_carries(c, pr->pid, p->file, p->offs[s], now) ||
			    linked(c, pr, p->file, p->offs[s]))
				continue;
			if (link_fits(c, pr, p->file, p->offs[s])) {
				int err = up_event_link(c, pr->pid, p->file,
							p->offs[s], p->fstrmask,
							p->fneeds, nargs);

				if (!err) /* its exec must be seen */
					lin_know(c, pr->pid, now);
				if (err != -ENOEXEC)
					continue; /* or said why not */
			}
			e = up_event_get(c, p->file, p->offs[s], p->fstrmask,
					 p->fneeds, nargs, false);
			if (!e)
				continue;
			if (proc_enable_event(c, pr, e) == 0)
				lin_own(c, pr->pid, p->file, p->offs[s], now);
		}
	}
	/*
	 * a -c command held until BEGIN: its link on ld.so made now, while
	 * the kernel's rcu_sync still counts the sites' registrations as
	 * recent (dlhold_prelink(): no grace period of its own)
	 */
	if (prelink)
		dlhold_prelink(c, pr, true);
out:
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
}

/* A buffer half full wakes the loop before the switchrate tick. */
static size_t up_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	size_t n = 0;

	if (!pfd)
		return c->up.ncpus + c->up.ntrk;
	for (size_t i = 0; i < c->up.ncpus && n < max; i++)
		pfd[n++] = (struct pollfd){.fd = c->up.cpus[i].fd,
					   .events = POLLIN};
	for (size_t i = 0; i < c->up.ntrk && n < max; i++)
		pfd[n++] = (struct pollfd){.fd = c->up.trk[i].fd,
					   .events = POLLIN};
	return n;
}

/*
 * A -p or -c target with no site to arm (a program of kernel probes),
 * when a clause reads stacks: the fork tracker all the same, for the
 * mapping records of it and of the children it forks from then on
 * (ustack.c's ustack_mapped_read(): their maps read while they live,
 * so an exit's stack is named from the libraries ld.so mapped).
 */
void up_track(struct consumer *c, struct tproc *pr)
{
	bool failed = c->enable_failed, warned = c->up.perm_warned;
	int err;

	if (pr->tracked || c->up.err[0] || !ustack_maps_wanted(c))
		return;
	/* an aid only here: a failure fails nothing (-v says it) */
	c->up.perm_warned = true;
	err = proc_enable_event(c, pr, NULL);
	c->enable_failed = failed;
	c->up.perm_warned = warned;
	pr->tracked = err == 0;
	if (err && err != -ESRCH && c->o->verbose)
		say(c,
		    "pid %d: no fork tracker (perf_event_open: %s): its "
		    "and its children's maps are read only when a hit asks",
		    (int)pr->pid, strerror(-err));
	if (pr->tracked && tracker_everywhere(pr))
		ustack_tracked(c, pr->pid, now_ns(CLOCK_MONOTONIC));
}

/*
 * The hits, then the tracker's records: a child's FORK record was
 * written before the child ran, so every hit just read has its fork in
 * the tree (lineage.c).
 */
void up_drain(struct consumer *c)
{
	for (size_t i = 0; i < c->up.ncpus; i++)
		rb_drain(c, &c->up.cpus[i], false);
	for (size_t i = 0; i < c->up.ntrk; i++)
		rb_drain(c, &c->up.trk[i], true);
	/* every record written before a new mapping's is read: the maps
	 * of the processes that made one (ustack.c) */
	ustack_mapped_read(c);
}

/*
 * Is there a COMM record of an exec() by pid stamped after "after" in
 * the fork tracker's buffers, not read yet?  The earliest's time in *t
 * (each CPU's buffer is in time order, not all).  Only looked at: the records
 * are read, in their order, by up_drain().  The kernel writes it during
 * the exec() (begin_new_exec()), before it maps the new image's files,
 * so a maps text that names any of them was read after it was written:
 * ustack.c asks, after such a read, whether the text is of an image the
 * fork tree does not know yet.
 */
bool up_trk_exec_unread(const struct consumer *c, pid_t pid, uint64_t after,
			uint64_t *t)
{
	uint8_t rec[sizeof(struct perf_event_header) + 8 + 16 + 24];
	bool found = false;

	for (size_t i = 0; i < c->up.ntrk; i++) {
		const struct tcpu *tc = &c->up.trk[i];
		const struct perf_event_mmap_page *mp = tc->rb;
		const uint8_t *data = (const uint8_t *)tc->rb + getpagesize();
		uint64_t size = c->rbsize, head, tail;

		head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		for (tail = mp->data_tail; tail < head;) {
			struct perf_event_header hdr;
			uint64_t xt;
			uint32_t p;

			ring_copy(data, size, tail % size, &hdr, sizeof(hdr));
			if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
				break;
			/* pid, tid, comm (16 bytes at most here: the
			 * kernel's TASK_COMM_LEN), then the sample id:
			 * pid, tid, time, cpu */
			if (hdr.type == PERF_RECORD_COMM &&
			    (hdr.misc & PERF_RECORD_MISC_COMM_EXEC) &&
			    hdr.size >= sizeof(hdr) + 8 + 24 &&
			    hdr.size <= sizeof(rec)) {
				ring_copy(data, size, tail % size, rec,
					  hdr.size);
				memcpy(&p, rec + sizeof(hdr), 4);
				memcpy(&xt, rec + hdr.size - 16, 8);
				if ((pid_t)p == pid && xt > after &&
				    (!found || xt < *t)) {
					*t = xt;
					found = true;
				}
			}
			tail += hdr.size;
		}
	}
	return found;
}

/*
 * pr's events are closed, unless a child it forked may still carry
 * copies of them: closing would take those away (they are closed at the
 * end).
 */
void up_proc_exit(struct consumer *c, struct tproc *pr)
{
	if (!pr->forked)
		proc_close(c, pr, true);
}

/* pr exec'd: its events went with the old image (remove_on_exec). */
void up_proc_exec(struct consumer *c, struct tproc *pr)
{
	free(pr->evs);
	pr->evs = NULL;
	pr->nevs = 0;
	free(pr->th); /* the exec left one thread: read them again */
	pr->th = NULL;
	pr->nth = 0;
}

void up_stop(struct consumer *c)
{
	for (size_t i = 0; i < c->nprocs; i++)
		proc_disable(c->procs[i]);
	for (size_t i = 0; i < c->up.nevs; i++)
		for (size_t k = 0; k < c->up.evs[i]->nwfd; k++)
			(void)ioctl(c->up.evs[i]->wfd[k],
				    PERF_EVENT_IOC_DISABLE, 0);
}

/* Close every perf event on a site, adding up what they counted. */
void up_close_procs(struct consumer *c)
{
	for (size_t i = 0; i < c->nprocs; i++)
		proc_close(c, c->procs[i], false);
	for (size_t i = 0; i < c->up.nevs; i++)
		wide_close(c, c->up.evs[i]);
}

static void up_stats(struct consumer *c)
{
	uint64_t seen = c->received + c->up.drops;

	up_close_procs(c);
	if (c->up.fired > seen)
		say(c,
		    "%" PRIu64 " drops (hits the buffers could not hold, "
		    "counted when tracing stopped)",
		    c->up.fired - seen);
}

/*
 * Closing the perf events removes the breakpoints and counts the
 * semaphores back down; then the run's uprobe events can be deleted.
 */
void up_close(struct consumer *c)
{
	up_close_procs(c);
	for (size_t i = 0; i < c->up.ncpus; i++) {
		munmap(c->up.cpus[i].rb, c->rbsize + (size_t)getpagesize());
		close(c->up.cpus[i].fd);
	}
	c->up.ncpus = 0;
	for (size_t i = 0; i < c->up.ntrk; i++) {
		munmap(c->up.trk[i].rb, c->rbsize + (size_t)getpagesize());
		close(c->up.trk[i].fd);
	}
	c->up.ntrk = 0;
	close_wait(); /* the exited processes' events, before the delete */
	/*
	 * only where the run wrote some: the read of uprobe_events waits for
	 * the kernel's event_mutex, which any uprobe perf event's close
	 * holds through its grace periods (rtld.c's hold's, dlhold.c's,
	 * another run's), 40 ms of a -c run's end where the sites were
	 * all links
	 */
	if (c->up.group[0] && !c->up.err[0] && c->up.made)
		up_reap_groups(c, c->up.group);
}

const struct consumer_backend_ops consumer_uprobe_ops = {
	.name = "uprobe events",
	.key = "uprobe",
#ifdef HAVE_BPF
	.caps = BE_CAP_UPROBES | BE_CAP_HOLD, /* dlhold.c's own program */
#else
	.caps = BE_CAP_UPROBES,
#endif
	.open = up_open,
	.enable = up_enable,
	.poll_fds = up_poll_fds,
	.drain = up_drain,
	.decode = up_decode,
	.proc_exit = up_proc_exit,
	.proc_exec = up_proc_exec,
	.stop = up_stop,
	.stats = up_stats,
	.close = up_close,
};
