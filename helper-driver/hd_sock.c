// SPDX-License-Identifier: MIT
/*
 * hd_sock.c - registrations that need no answer: the datagram socket.
 *
 * Why.  A registration through the device is a round trip through the
 * daemon: the caller's ioctl waits while the kernel hands the request to
 * FUSE or CUSE, the daemon's loop is scheduled, answers, and the caller
 * is scheduled again.  That was most of what a probed library's
 * dlopen+dlclose cost with the helper up (30-80 us, bench/RESULTS.md),
 * although the daemon answers before it checks anything (hd_queue.c).
 * Nothing in the answer is needed: drti.o ignores failures, and the
 * generation only names the registration for its REMOVE.  So drti.o
 * sends its ADD and its REMOVE as datagrams (usdt/helper_abi.h:
 * dtrace_helper_msg_t) to an AF_UNIX socket the daemon owns, and goes on
 * at once; its cost is a stat(2), a socket(2), a sendto(2) and a
 * close(2), with no wait for the daemon.
 *
 * Who sent it.  The socket has SO_PASSCRED: the kernel attaches the
 * sending process's pid and real uid to every datagram, which the sender
 * cannot forge (an explicit SCM_CREDENTIALS naming another pid or uid
 * needs CAP_SYS_ADMIN or CAP_SETUID).  The message's thread id is only
 * where the DOF is read from, taken when it is a thread of that pid
 * (hd_reg.c checks), else the pid is.  A datagram may be read after
 * its sender has exited and its pid has been reused: hd_reg.c then finds
 * a process of another user at that pid and refuses, or one of the same
 * user, in whose memory the DOF must be found and checked as ever -- a
 * sender can at worst have its own user's other process read.  A sender
 * in a pid namespace the daemon cannot see arrives with pid 0: refused.
 * Beyond that, everything is checked as an ADDDOF is (hd_reg.c, the
 * same stages, records, quotas and debts): the DOF is read from the
 * sender's memory, so a datagram carries 96 bytes however large the
 * blob, and the socket needs no size limit of its own.
 *
 * The generation.  Without an answer drti.o never learns one; a REMOVE
 * names its registration by the DOF address instead, unique in a process
 * (a second registration at an address replaces the first: hd_reg.c).
 * hd_reg_remove_dof() withdraws whatever the process holds, has queued
 * or inherited there.
 *
 * Order.  One socket's queue is first in, first out, so a process's
 * REMOVE is read after its ADD, and an ADD of a library loaded again at
 * the same address after both.  What is sent to the device instead
 * (helper_abi.h: the socket was full or absent) could overtake what waits
 * in the socket, so the device's ADDDOF (a queued REMOVE of an earlier
 * load at the same address would withdraw it), REMOVEDOF (a datagram
 * ADD's REMOVE that the socket refused) and SYNC of everything (a
 * consumer's, which must see every registration made before it) are
 * served only after a BARRIER: the daemon reads the socket until it is
 * empty or it has read as many datagrams as the queue can hold -- the
 * kernel queues at most net.unix.max_dgram_qlen + 1, read when the socket
 * is made -- so every datagram sent before the request has been read.
 *
 * Against the kernel's process events (hd_fork.c) the order is: a batch
 * of datagrams is read, then the connector's socket until it is empty,
 * then the batch is handled.  The kernel queues a fork event before the
 * child runs, an exec event before the new image does and an exit event
 * before the pid can be reused, so every event that came before a
 * datagram was sent is applied before the datagram is handled: a
 * child's ADD finds its fork applied, a new image's ADD its exec.  The
 * events were once read before the batch instead: a fork or exec that
 * came between that read and the datagram's (the daemon preempted there,
 * or still handling earlier datagrams) was applied after the ADD it
 * preceded and dropped it as belonging to the pid's former process --
 * a program and its fork child both unregistered
 * (tests/run-helperd-dgram.sh stops the daemon in that gap).  Events
 * that came after a datagram may be applied before it, which the
 * datagram cannot tell: a fork then finds the parent's ADD not handled
 * yet, so a child of a process registered by datagram registers itself
 * (drti.o) and never counts on inheriting; an exec, that the ADD's DOF
 * is read from the new image and checked as ever; a pid reused, the
 * case under "Who sent it".
 *
 * Fairness.  A datagram costs its sender no wait, so nothing slows a
 * flooding sender down the way a held answer does (hd_tarpit.c).  The
 * daemon therefore reads the socket at most HD_SOCK_RATE datagrams a
 * second (a bucket of HD_SOCK_BURST), and not at all while the user of
 * the last ADD has more than its share of registrations waiting to be
 * checked (hd_queue_may_answer_early(), the device's limit on early
 * answers).  Meanwhile the socket fills, further senders get EAGAIN and
 * drti.o uses the device, where the tarpit and the held answers apply as
 * ever: a flood costs the daemon at most its budget of reads, and other
 * users register at the device's cost.  A user in debt has its
 * datagrams refused as its ADDDOFs would be.  A barrier reads out of
 * turn, at most a queue's worth per device request (a round trip of the
 * sender's), and what it reads is taken from the budget.
 *
 * Trust.  The socket lives in a directory that must be, with every
 * directory above it, root's alone (sdk/safedir.h), so no other user
 * can put a socket of its own in its place and receive what programs
 * send (DOF addresses: where libraries are loaded).  A socket file left
 * by a daemon that died is replaced; one that a live daemon answers on
 * is left alone, and this daemon serves the device only.  The file is
 * 0666 (every user's programs register) and unlinked at exit, after
 * the datagrams still queued are read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "helperd.h"
#include "safedir.h"

#define HD_SOCK_RATE 20000u /* datagrams read a second */
#define HD_SOCK_BURST 256u  /* ... at once */
#define HD_SOCK_BATCH 64u   /* per wake-up, so the device is served between */
#define HD_SOCK_POLL_NS 200000u /* while datagrams come, read this often */

static int sfd = -1, tfd = -1;
static char *spath;
static dev_t sdev;
static ino_t sino;
static unsigned qmax;	   /* datagrams the queue holds at most */
static double tokens;
static uint64_t tokens_ns;
static bool off_jobs;	   /* paused: a user has too much unchecked */
static bool in_epoll;	   /* EPOLLIN is asked for */
static uid_t jobs_uid;	   /* that user */

static void want(struct helperd *hd, bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0,
				  .data.u64 = HD_EV_SOCK };

	if (sfd < 0 || on == in_epoll)
		return;
	if (epoll_ctl(hd->epfd, EPOLL_CTL_MOD, sfd, &ev) == 0)
		in_epoll = on;
}

static unsigned read_qlen(void)
{
	char buf[32];
	ssize_t n;
	long v;
	int fd = open("/proc/sys/net/unix/max_dgram_qlen",
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 && v < INT_MAX ? (unsigned)v : 0;
}

/* The directory is root's alone and the path is ours to bind: 0 or -1. */
static int prepare(const char *path)
{
	char dir[PATH_MAX], msg[PATH_MAX + 128], *slash;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		hd_log(HD_ERR, "--socket: %s must be an absolute path below a "
		       "directory", path);
		return -1;
	}
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		hd_log(HD_ERR, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (safedir_check(dir, msg, sizeof(msg)) < 0) {
		hd_log(HD_ERR, "unsafe socket directory %s: %s (it and every "
		       "directory above it must be root's, writable by "
		       "nobody else, and no symbolic link)", dir, msg);
		return -1;
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		hd_log(HD_ERR, "%s exists and is not a socket; not replacing "
		       "it", path);
		return -1;
	}
	/* A live daemon's socket accepts a connect; a dead one's refuses. */
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		hd_log(HD_ERR, "%s is the socket of a live daemon; not taking "
		       "it", path);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	if (unlink(path) < 0 && errno != ENOENT) {
		hd_log(HD_ERR, "cannot remove the stale socket %s: %s", path,
		       strerror(errno));
		return -1;
	}
	return 0;
}

int hd_sock_start(struct helperd *hd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = HD_EV_SOCK };
	struct stat st;
	int one = 1;
	unsigned q;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		hd_log(HD_ERR, "--socket: %s is too long for a socket", path);
		return -1;
	}
	if (prepare(path) < 0)
		goto fail;
	memcpy(sa.sun_path, path, strlen(path));
	sfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || tfd < 0 ||
	    setsockopt(sfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(sfd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		hd_log(HD_ERR, "cannot bind the socket %s: %s", path,
		       strerror(errno));
		goto fail;
	}
	/* Its queue limit was taken from this sysctl when it was made. */
	q = read_qlen();
	qmax = (q ? q : 512) + 1;
	if (stat(path, &st) < 0 || chmod(path, 0666) < 0 ||
	    epoll_ctl(hd->epfd, EPOLL_CTL_ADD, sfd, &ev) < 0) {
		hd_log(HD_ERR, "cannot set up the socket %s: %s", path,
		       strerror(errno));
		unlink(path);
		goto fail;
	}
	in_epoll = true;
	ev.data.u64 = HD_EV_SOCKTIMER;
	if (epoll_ctl(hd->epfd, EPOLL_CTL_ADD, tfd, &ev) < 0) {
		hd_log(HD_ERR, "cannot set up the socket's timer: %s",
		       strerror(errno));
		unlink(path);
		goto fail;
	}
	sdev = st.st_dev;
	sino = st.st_ino;
	spath = strdup(path);
	tokens = HD_SOCK_BURST;
	tokens_ns = hd_mono_ns();
	return 0;
fail:
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	sfd = tfd = -1;
	hd_log(HD_WARN, "registrations go through the device only");
	return -1;
}

/* One datagram: handled, or dropped with a reason. */
static void handle(struct helperd *hd, const dtrace_helper_msg_t *m,
		   size_t len, const struct ucred *cr)
{
	pid_t tid;
	int rc;

	if (!cr || cr->pid <= 0) {
		hd_log_reject("datagram from a process outside the daemon's "
			      "pid namespace refused");
		return;
	}
	if (len != sizeof(*m) || m->dhm_magic != DTRACE_HELPER_MSG_MAGIC ||
	    m->dhm_pad != 0 || (m->dhm_op != DTRACE_HELPER_MSG_ADD &&
				m->dhm_op != DTRACE_HELPER_MSG_REMOVE)) {
		hd_log_odd("pid %d: a datagram of %zu bytes that is not a "
			   "helper message", (int)cr->pid, len);
		return;
	}
	/* The message's thread, if it is one of the sender's (hd_reg.c). */
	tid = m->dhm_tid > 0 && m->dhm_tid != cr->pid &&
			      hd_tgid(m->dhm_tid, NULL) == cr->pid ?
		      m->dhm_tid :
		      cr->pid;
	if (m->dhm_op == DTRACE_HELPER_MSG_REMOVE) {
		(void)hd_reg_remove_dof(hd, tid, cr->uid, cr->pid,
					m->dhm_helper.dofhp_dof);
		return;
	}
	hd_fork_settle(hd, cr->pid);
	rc = hd_reg_adddof_dgram(hd, cr->pid, tid, cr->uid, &m->dhm_helper);
	if (rc == 0 && !hd_queue_may_answer_early(hd, cr->uid)) {
		/* Its user has its share unchecked: stop reading for now. */
		off_jobs = true;
		jobs_uid = cr->uid;
	}
}

/* A datagram read and not handled yet, with what the kernel said. */
struct dgram {
	dtrace_helper_msg_t m;
	size_t len;
	bool has_cr;
	struct ucred cr;
};

/* Read up to max datagrams into d: how many (fewer: the queue is empty). */
static unsigned read_some(struct dgram *d, unsigned max)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	unsigned n = 0;

	while (n < max) {
		struct iovec iov = { &d[n].m, sizeof(d[n].m) };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		struct cmsghdr *c;
		ssize_t got = recvmsg(sfd, &mh, MSG_TRUNC | MSG_CMSG_CLOEXEC);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		d[n].has_cr = false;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
				memcpy(&d[n].cr, CMSG_DATA(c), sizeof(d[n].cr));
				d[n].has_cr = true;
			}
		if (mh.msg_flags & MSG_CTRUNC)
			d[n].has_cr = false;
		d[n].len = mh.msg_flags & MSG_TRUNC ? (size_t)got + 1
						    : (size_t)got;
		n++;
	}
	return n;
}

/*
 * Read up to max datagrams and handle them: how many were read (fewer:
 * the queue is empty).  A batch is read first, then the kernel's process
 * events, then the batch is handled: every fork, exec and exit that came
 * before a datagram was sent is queued in the connector's socket by then
 * (the top of this file, "Order").
 */
static unsigned drain(struct helperd *hd, unsigned max)
{
	struct dgram d[HD_SOCK_BATCH];
	unsigned n = 0;

	if (sfd < 0)
		return 0;
	for (;;) {
		unsigned want =
			max - n < HD_SOCK_BATCH ? max - n : HD_SOCK_BATCH;
		unsigned got = read_some(d, want);

		hd_fork_drain(hd);
		for (unsigned i = 0; i < got; i++)
			handle(hd, &d[i].m, d[i].len,
			       d[i].has_cr ? &d[i].cr : NULL);
		n += got;
		if (got < want || n >= max)
			return n;
	}
}

static void refill(uint64_t now)
{
	tokens += (double)(now - tokens_ns) / 1e9 * HD_SOCK_RATE;
	if (tokens > HD_SOCK_BURST)
		tokens = HD_SOCK_BURST;
	tokens_ns = now;
}

static void arm(uint64_t ns)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	its.it_value.tv_sec = (time_t)(ns / 1000000000u);
	its.it_value.tv_nsec = (long)(ns % 1000000000u);
	timerfd_settime(tfd, 0, &its, NULL);
}

/*
 * Read what the budget allows, then wait: for the next datagram (the
 * socket was empty), for HD_SOCK_POLL_NS (datagrams came: read again
 * then, the socket off the loop meanwhile, so that a sender does not
 * wake the daemon for each), for the budget, or for the queue.
 */
static void step(struct helperd *hd)
{
	unsigned max, n;

	if (sfd < 0)
		return;
	if (off_jobs) {
		want(hd, false);
		return;
	}
	refill(hd_mono_ns());
	max = tokens < 1 ? 0 :
	      tokens < HD_SOCK_BATCH ? (unsigned)tokens : HD_SOCK_BATCH;
	n = max ? drain(hd, max) : 0;
	tokens -= n;
	if (off_jobs) {
		want(hd, false);
	} else if (max == 0 || (n == max && tokens < 1)) {
		/* Out of reads: sleep until a batch is earned back. */
		want(hd, false);
		arm((uint64_t)((HD_SOCK_BATCH - (tokens < 0 ? 0 : tokens)) *
			       1e9 / HD_SOCK_RATE));
	} else if (n > 0) {
		want(hd, false);
		arm(HD_SOCK_POLL_NS);
	} else {
		want(hd, true);
	}
}

void hd_sock_run(struct helperd *hd)
{
	if (in_epoll)
		step(hd);
}

void hd_sock_timer(struct helperd *hd)
{
	uint64_t ticks;

	if (tfd >= 0 && read(tfd, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: woken early */
	}
	step(hd);
}

void hd_sock_poll(struct helperd *hd)
{
	if (!off_jobs || !hd_queue_may_answer_early(hd, jobs_uid))
		return;
	off_jobs = false;
	step(hd);
}

void hd_sock_barrier(struct helperd *hd)
{
	if (sfd < 0)
		return;
	tokens -= drain(hd, qmax);
}

void hd_sock_stop(struct helperd *hd)
{
	struct stat st;

	if (sfd < 0)
		return;
	/* Ours still (no later daemon took the path): it goes. */
	if (spath && stat(spath, &st) == 0 && st.st_dev == sdev &&
	    st.st_ino == sino)
		unlink(spath);
	/* What was sent before it went is read: no datagram is lost. */
	drain(hd, qmax);
	close(sfd);
	close(tfd);
	sfd = tfd = -1;
	free(spath);
	spath = NULL;
}
