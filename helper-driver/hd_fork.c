// SPDX-License-Identifier: MIT
/*
 * hd_fork.c - learn of fork() and exec() from the kernel, so that a fork
 * child of a registered process costs its parent nothing.
 *
 * Without this, drti.o's fork handler registers every child of a probed
 * program itself: a synchronous ADDDOF per fork, which made each fork of
 * a probed server about 1 ms slower with the helper up.  A child's DOF is
 * its parent's, at the same addresses (fork copies the address space), so
 * the daemon can register it alone: the kernel's process connector
 * (NETLINK_CONNECTOR, CN_IDX_PROC; CONFIG_PROC_EVENTS) reports every
 * fork, exec and exit on the machine.  The device then reports
 * DTRACE_HELPER_SIZE_FOLLOWS_FORK as its size (usdt/helper_abi.h), which
 * tells drti.o that its fork handler may send nothing.
 *
 * Settling.  A fork of a registered process (or of a child still
 * pending) makes the child PENDING: a list, in memory, of what it
 * inherits (module, load bias, DOF address, generation) -- no system
 * call.  Most children of a forking server either exit or exec soon; an
 * exit or exec event forgets a pending child, and its REMOVE of an
 * inherited generation (drti's destructor at exit) just strikes that
 * one, so such a child costs the daemon a few event reads and the child
 * one REMOVE round trip, as it would without inheriting.  A child still
 * alive HD_FORK_SETTLE_MS after its fork, or one that sends ADDDOF, is
 * registered for real: each inherited entry goes through the whole of
 * ADDDOF against the child (hd_reg_copy()), under the parent's
 * generation, and gets its registry file -- so `dtrace -l` lists a fork
 * child at most that long after the fork, and a consumer traces it like
 * any process.  Children of children inherit the pending list or the
 * registrations of their parent, whichever it has.  An exec event drops
 * what the process held: those registrations described the image exec
 * replaced (before the connector, the periodic check found that out up
 * to a second later).
 *
 * Ordering.  Events are queued by the kernel when the fork or exec
 * happens, before the child or the new image runs.  The daemon drains
 * the socket before it serves any request it has read (hd_fork_drain()
 * from hd_dev.c) and before it handles any datagram it has read
 * (hd_sock.c), so a child's REMOVE of an inherited generation, or a new
 * image's ADDDOF or ADD datagram, always finds the fork or exec already
 * applied.  Draining before the request or datagram is read would not
 * do: what happened in between would be applied after it.
 *
 * Trust.  Only messages from the kernel (netlink port 0) are read; any
 * process may send a unicast netlink message to our socket, and a forged
 * fork event would copy one process's probes to another.  What a child
 * inherits is checked as ADDDOF checks its own (hd_reg_copy()): its copy
 * of the DOF read from it and validated, every site in an executable
 * mapping of the child -- clone(CLONE_PARENT) makes the event name the
 * caller's parent, whose memory the child does not have.  A leader
 * thread's exit forgets a pending child even if other threads live on
 * (a fork child with threads whose first thread exits within
 * HD_FORK_SETTLE_MS): it is then not listed, as a process that never
 * registered.
 *
 * Where it is not used.  The connector needs root (CAP_NET_ADMIN) and
 * answers only a listener in the initial pid and user namespaces (the
 * pids it reports are global); a CUSE device is a character device whose
 * size drti cannot be told.  Elsewhere children register themselves as
 * before.  Lost events (the socket's buffer overflowed: ENOBUFS) are made
 * good by scanning every process for DOF (hd_scan.c), as at start-up.
 * The connector reports every process's forks, not only probed ones';
 * each costs the daemon one recv() and a lookup.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "helperd.h"

/* The inode numbers of the initial namespaces (include/linux/proc_ns.h). */
#define HD_INIT_PID_NS_INO 0xEFFFFFFCU
#define HD_INIT_USER_NS_INO 0xEFFFFFFDU

#define HD_FORK_SETTLE_MS 10

/* A fork child that inherits registrations and is not registered yet. */
struct inherit {
	dof_helper_t h;
	uint64_t gen;
};

struct pending {
	pid_t pid;
	uint64_t due_ns; /* CLOCK_MONOTONIC: register it then */
	size_t n;
	struct inherit *v;
};

static struct pending *pend;
static size_t npend, cappend;
static int timer_fd = -1;
static bool timer_armed;

static struct pending *find_pending(pid_t pid)
{
	for (size_t i = 0; i < npend; i++)
		if (pend[i].pid == pid)
			return &pend[i];
	return NULL;
}

static void drop_pending(struct pending *pp)
{
	free(pp->v);
	*pp = pend[--npend];
}

static void arm_timer(uint64_t due_ns)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (timer_fd < 0)
		return;
	its.it_value.tv_sec = (time_t)(due_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(due_ns % 1000000000u);
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
	timer_armed = true;
}

/* Register a pending child for real and forget it as pending. */
static void settle(struct helperd *hd, struct pending *pp)
{
	pid_t pid = pp->pid;
	size_t n = pp->n, i, ok = 0;
	struct inherit *v = pp->v;

	pp->v = NULL;
	drop_pending(pp);
	for (i = 0; i < n; i++) {
		int rc = hd_reg_copy(hd, pid, &v[i].h, v[i].gen);

		if (rc == 0)
			ok++;
		else if (rc == -ESRCH || rc == -ENOENT)
			break; /* gone */
	}
	free(v);
	if (ok)
		hd_log(HD_DEBUG, "pid %d: %zu of %zu inherited registration(s) "
		       "queued", (int)pid, ok, n);
}

/* fork: what parent holds or inherits, the child inherits. */
static void on_fork(struct helperd *hd, pid_t parent, pid_t child)
{
	const struct reg_proc *rp = hd_reg_proc(hd, parent);
	struct pending *pp = find_pending(parent), *cp;
	struct inherit *v;
	size_t n, i, nq = 0;

	if (parent == child)
		return;
	/* Whatever was recorded under the child's pid is of a dead process. */
	hd_reg_prune_pid(hd, child, "exited (its pid was reused)");
	cp = find_pending(child);
	if (cp)
		drop_pending(cp);
	pp = find_pending(parent); /* dropping may have moved it */
	/* What the parent has in the queue, answered but not checked yet. */
	if (!pp)
		nq = hd_queue_pending_of(hd, parent, NULL, NULL, SIZE_MAX);
	n = pp ? pp->n : (rp ? rp->nent : 0) + nq;
	if (!n)
		return;
	if (grow_one(&pend, &cappend, npend, sizeof(*pend)) < 0)
		return;
	pp = find_pending(parent); /* the table may have moved */
	v = malloc(n * sizeof(*v));
	if (!v)
		return;
	if (pp) {
		memcpy(v, pp->v, n * sizeof(*v));
	} else {
		dof_helper_t *qh = calloc(nq ? nq : 1, sizeof(*qh));
		uint64_t *qg = calloc(nq ? nq : 1, sizeof(*qg));

		if (!qh || !qg) {
			free(qh);
			free(qg);
			free(v);
			return;
		}
		hd_queue_pending_of(hd, parent, qh, qg, nq);
		for (i = 0; i < nq; i++) {
			v[n - nq + i].h = qh[i];
			v[n - nq + i].gen = qg[i];
		}
		free(qh);
		free(qg);
		for (i = 0; i < n - nq; i++) {
			const struct reg_entry *e = &rp->ent[i];

			memset(&v[i].h, 0, sizeof(v[i].h));
			snprintf(v[i].h.dofhp_mod, sizeof(v[i].h.dofhp_mod),
				 "%s", e->mod);
			v[i].h.dofhp_addr = e->base;
			v[i].h.dofhp_dof = e->dof_addr;
			v[i].gen = e->gen;
		}
	}
	cp = &pend[npend++];
	cp->pid = child;
	cp->n = n;
	cp->v = v;
	cp->due_ns = hd_mono_ns() + HD_FORK_SETTLE_MS * 1000000ull;
	if (!timer_armed)
		arm_timer(cp->due_ns);
}

void hd_fork_timer(struct helperd *hd)
{
	uint64_t ticks, now = hd_mono_ns(), next = 0;
	size_t i = 0;

	if (read(timer_fd, &ticks, sizeof(ticks)) < 0 && errno == EAGAIN)
		return;
	timer_armed = false;
	while (i < npend) {
		if (pend[i].due_ns <= now) {
			settle(hd, &pend[i]); /* moves the last into i */
			continue;
		}
		if (!next || pend[i].due_ns < next)
			next = pend[i].due_ns;
		i++;
	}
	if (next)
		arm_timer(next);
}

/* The pending child a request comes from (tid: any of its threads). */
static struct pending *pending_of(pid_t tid)
{
	struct pending *pp;
	pid_t pid;

	if (!npend)
		return NULL;
	pp = find_pending(tid);
	if (pp)
		return pp;
	pid = hd_tgid(tid, NULL);
	return pid > 0 && pid != tid ? find_pending(pid) : NULL;
}

bool hd_fork_remove(struct helperd *hd, pid_t tid, int gen)
{
	struct pending *pp = pending_of(tid);

	(void)hd;
	if (!pp || gen <= 0)
		return false;
	for (size_t i = 0; i < pp->n; i++)
		if (pp->v[i].gen == (uint64_t)gen) {
			pp->v[i] = pp->v[--pp->n];
			if (!pp->n)
				drop_pending(pp);
			return true;
		}
	return false;
}

unsigned hd_fork_remove_dof(struct helperd *hd, pid_t pid, uint64_t addr)
{
	struct pending *pp = pending_of(pid);
	unsigned n = 0;
	size_t i = 0;

	(void)hd;
	while (pp && i < pp->n) {
		if (pp->v[i].h.dofhp_dof == addr) {
			pp->v[i] = pp->v[--pp->n];
			n++;
			continue;
		}
		i++;
	}
	if (pp && !pp->n)
		drop_pending(pp);
	return n;
}

void hd_fork_settle_all(struct helperd *hd)
{
	while (npend)
		settle(hd, &pend[0]);
}

void hd_fork_settle(struct helperd *hd, pid_t tid)
{
	struct pending *pp = pending_of(tid);

	if (pp)
		settle(hd, pp);
}

static bool in_init_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 &&
	       st.st_ino == HD_INIT_PID_NS_INO &&
	       stat("/proc/self/ns/user", &st) == 0 &&
	       st.st_ino == HD_INIT_USER_NS_INO;
}

static int listen_op(int fd, enum proc_cn_mcast_op op)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(op))];
	struct nlmsghdr *nl = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nl);

	memset(buf, 0, sizeof(buf));
	nl->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nl->nlmsg_type = NLMSG_DONE;
	nl->nlmsg_pid = 0;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(fd, buf, nl->nlmsg_len, 0) < 0 ? -errno : 0;
}

/*
 * One datagram from the kernel: fork and exec events are applied; an
 * acknowledgement is returned in *ack (its error, or -1 if none).
 */
static void handle(struct helperd *hd, const char *buf, size_t len, int *ack)
{
	const struct nlmsghdr *nl = (const struct nlmsghdr *)buf;

	for (; NLMSG_OK(nl, len); nl = NLMSG_NEXT(nl, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nl);
		struct proc_event evbuf;
		const struct proc_event *ev = &evbuf;

		if (nl->nlmsg_type == NLMSG_ERROR ||
		    nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)) ||
		    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
			continue;
		/* cn->data is only 4-byte aligned: copy it out */
		memcpy(&evbuf, cn->data, sizeof(evbuf));
		switch (ev->what) {
		case PROC_EVENT_NONE:
			if (ack)
				*ack = (int)ev->event_data.ack.err;
			break;
		case PROC_EVENT_FORK:
			/* A new thread is no new process. */
			if (ev->event_data.fork.child_pid ==
			    ev->event_data.fork.child_tgid)
				on_fork(hd, ev->event_data.fork.parent_tgid,
					ev->event_data.fork.child_tgid);
			break;
		case PROC_EVENT_EXEC: {
			pid_t pid = ev->event_data.exec.process_tgid;
			struct pending *pp = find_pending(pid);

			if (pp)
				drop_pending(pp);
			hd_reg_prune_pid(hd, pid, "exec'ed");
			break;
		}
		case PROC_EVENT_EXIT: {
			struct pending *pp;

			if (ev->event_data.exit.process_pid !=
			    ev->event_data.exit.process_tgid)
				break;
			pp = find_pending(ev->event_data.exit.process_pid);
			if (pp)
				drop_pending(pp);
			hd_reg_exit_seen(hd, ev->event_data.exit.process_pid);
			break;
		}
		default:
			break;
		}
	}
}

/* Read what is queued; 1 if the kernel dropped events, else 0. */
static int drain(struct helperd *hd, int *ack)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	int lost = 0;

	for (;;) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(hd->cn_fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);

		if (n < 0) {
			if (errno == ENOBUFS) {
				lost = 1;
				continue;
			}
			if (errno == EINTR)
				continue;
			return lost; /* EAGAIN: empty */
		}
		/* Port 0 is the kernel; anything else is forged. */
		if (fl != sizeof(from) || from.nl_family != AF_NETLINK ||
		    from.nl_pid != 0)
			continue;
		handle(hd, buf, (size_t)n, ack);
	}
}

void hd_fork_drain(struct helperd *hd)
{
	if (hd->cn_fd < 0)
		return;
	if (drain(hd, NULL)) {
		hd_log(HD_NOTICE, "the kernel dropped process events (too "
		       "many forks at once); scanning for fork children");
		hd_reg_exit_seen(hd, -1);
		hd_scan_all(hd);
	}
}

static int epoll_ctl_add(struct helperd *hd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = HD_EV_FORKTIMER };

	return epoll_ctl(hd->epfd, EPOLL_CTL_ADD, fd, &ev);
}

int hd_fork_start(struct helperd *hd)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = CN_IDX_PROC };
	struct pollfd pfd;
	int fd = -1, ack = -1, size = 4 << 20, err;

	hd->cn_fd = -1;
	hd->follows_fork = false;
	if (!in_init_ns()) {
		hd_log(HD_INFO, "not in the initial pid and user namespaces: "
		       "fork children register themselves");
		return 0;
	}
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer_fd < 0 || epoll_ctl_add(hd, timer_fd) < 0)
		goto unavailable;
	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		goto unavailable;
	sa.nl_pid = 0; /* the kernel picks our port */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto unavailable;
	/* Bursts of forks: as root the limit does not apply. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	hd->cn_fd = fd;
	err = listen_op(fd, PROC_CN_MCAST_LISTEN);
	if (err) {
		errno = -err;
		goto unavailable;
	}
	/* The kernel acknowledges a listener it accepted; wait for that. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (ack < 0 && poll(&pfd, 1, 1000) == 1)
		drain(hd, &ack);
	if (ack != 0) {
		errno = ack > 0 ? ack : ETIMEDOUT;
		goto unavailable;
	}
	hd->follows_fork = true;
	return 0;

unavailable:
	hd_log(HD_INFO, "no process events from the kernel (%s): fork "
	       "children register themselves", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (timer_fd >= 0)
		close(timer_fd);
	timer_fd = -1;
	hd->cn_fd = -1;
	return 0;
}

void hd_fork_stop(struct helperd *hd)
{
	if (hd->cn_fd < 0)
		return;
	listen_op(hd->cn_fd, PROC_CN_MCAST_IGNORE);
	close(hd->cn_fd);
	hd->cn_fd = -1;
	hd->follows_fork = false;
	if (timer_fd >= 0)
		close(timer_fd);
	timer_fd = -1;
	while (npend)
		drop_pending(&pend[0]);
	free(pend);
	pend = NULL;
	cappend = 0;
}
