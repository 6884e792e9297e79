// SPDX-License-Identifier: MIT
/*
 * fdclose.c - closing many uprobe perf events at once (close_many()),
 * a gone process's in the background (close_later()) or after dtrace
 * (close_after(), by dtrace-closer), and the start of a child set apart
 * from dtrace (child_detach(): the closer's, inproc_reap.c's reaper's).
 *
 * The close that destroys a uprobe perf event (or the BPF link on it, the
 * event's last reference) unregisters the uprobe when it was the site's
 * last event, and the kernel waits for grace periods before close(2)
 * returns: RCU Tasks Trace and SRCU in uprobe_unregister_sync() (Linux
 * 6.12 on), the tracepoints' SRCU and RCU in perf_trace_event_unreg().
 * Tens to hundreds of milliseconds a site: 269 pid probes took 36-39 s
 * to stop, libc's 2,900 functions 4.5 minutes (bpftrace pays the same:
 * 433 uprobes, a minute).  Those waits happen under the kernel's global
 * event_mutex, so no number of threads runs them side by side; what a
 * close does outside it does overlap: closed from 16 threads, the 269
 * probes stop in 26-29 s (16 threads do as well as 128).
 *
 * A tracepoint's perf event (kprov_syscall.c's per-call system call
 * tracepoints, kprov_proc.c's) waits the same way: its release, the
 * last on its tracepoint, unregisters it in perf_trace_event_unreg()
 * and waits for RCU Tasks Trace and RCU there, under event_mutex, in
 * the deferred fput that runs when the close(2) of its last reference
 * (the event's descriptor or its BPF link's) returns to user space.
 * About 45 ms a tracepoint, one after the other whatever the threads
 * and whatever the order of the closes (kprov_syscall.c's "Exit" has
 * the figures), and exiting would run the same releases; the one cut
 * is fewer such events: the syscall provider puts at most two on
 * their calls' own tracepoints, the rest on the raw tracepoints, whose
 * links' release waits for nothing.
 *
 * A uprobe_multi BPF link (a process's sites, bpf_attach.c; dlhold.c's
 * breakpoint on ld.so) unregisters its uprobes in its release and then
 * waits once, for RCU Tasks Trace (uprobe_unregister_sync(), 6.18),
 * outside event_mutex.  That wait is a grace period every waiter begun
 * before it started shares: links closed side by side wait one grace
 * period (30-70 ms here), closed four to a thread as before they waited
 * one per round (a -c command's 8 site links: three rounds, 120-210
 * ms).  So each descriptor gets a thread of its own, up to
 * CLOSE_THREADS, this one closing too; a thread costs tens of
 * microseconds and 64 KiB of stack, a grace period tens of ms.
 *
 * The threads only close descriptors; what the events counted is read
 * before (the callers' loops).  close_many() returns when every close
 * has returned, so what the caller does next (deleting the uprobe
 * events, letting a held process go, exiting) finds them all released.
 * One descriptor, or no thread to be had, and they are closed here,
 * one after the other.
 *
 * close_later() is for the events of a process or thread that exited
 * (uprobe.c's scope events, dlhold.c's breakpoint on ld.so): nothing can
 * hit them any more and what they counted was read, so the loop does not
 * wait for their grace periods.  A thread closes them while the run goes
 * on: reading the other processes, or, when the last -c command has
 * exited, the program's links detached (bpf.c; that wait is under
 * another lock), END and the aggregations.  close_wait(), called by
 * up_close() before the run's uprobe events are deleted (which needs
 * every perf event on them gone), so before dtrace exits, joins them.
 * At most LATER_MAX such threads at once: one more first joins the
 * oldest.  Without a thread the close is done at once, as before.
 *
 * close_after() is for those of close_later()'s whose close nothing in
 * dtrace waits for, not even its exit: a process's site links once it
 * exited (bpf_attach.c's site_unlink()), dlhold.c's links on ld.so and
 * its threads' uprobe PMU events, none of them an event tracefs holds
 * (the uprobe events that up_close() deletes need every perf event on
 * them gone first, so uprobe.c's stay close_later()'s).  A run's -c
 * command exits before dtrace does, and joining close_later()'s
 * threads at the end was most of a short run's time: a grace period or
 * two, 40-70 ms here, after the last output (a run of 60-130 ms).  So
 * they go to the closer, a child of dtrace forked at the first such
 * close with one end of a socket pair (as inproc_reap.c's reaper is):
 * dtrace sends the descriptors (SCM_RIGHTS) and closes its own, which
 * are no longer the last references and close at once; the closer
 * closes them as close_later() would (its threads) and, at EOF (dtrace
 * exited, however), joins them and exits.  Before dtrace goes on from
 * the fork, the closer has closed its copies of every other descriptor
 * of dtrace's (one it still held when dtrace closed its own would be
 * released by it, later: an event up_close() must delete, a live
 * process's link) and has /dev/null for stdin, stdout and stderr (no
 * pipe of dtrace's caller waits on it).  It leaves dtrace's session (a
 * ^C or SIGHUP for dtrace is not for it) and directory (for /), and is
 * named dtrace-closer (ps).  Where it cannot be started, or a send
 * fails (the socket full: thousands of exits faster than their grace
 * periods), close_later() instead.  DTRACE_CLOSER=0 turns it off.
 *
 * close_with_next() is for descriptors that must be closed but whose
 * close nothing waits on in between: dlhold.c's hold on ld.so at the
 * end of the run (dlhold_end(): the threads are detached and no longer
 * in the program's map, so nothing it does can stop one any more).
 * They are kept and closed by the next close_many(), with its own, so
 * that their grace period is the same one as the site links' that
 * bpf_attach.c's links_destroy() closes just after: closed alone first
 * they waited one of their own (30-70 ms).  close_wait(), and
 * teardown()'s close_many(NULL, 0) after the backend's close, close
 * any that no close_many() took (a backend that closes nothing).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "consumer_impl.h"

#define CLOSE_THREADS 64 /* at most */
#define LATER_MAX 8 /* close_later()'s threads at once */
#define CLOSER_BATCH 64 /* descriptors a message to the closer */

struct close_job {
	const int *fds;
	size_t n;
	atomic_size_t next;
};

/* close_with_next()'s descriptors, for the next close_many() */
static int *next_fds;
static size_t next_n;

static void *close_worker(void *arg)
{
	struct close_job *j = arg;
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->n)
		if (j->fds[i] >= 0)
			close(j->fds[i]);
	return NULL;
}

static void close_all(const int *fds, size_t n)
{
	pthread_t th[CLOSE_THREADS];
	struct close_job j = {.fds = fds, .n = n};
	size_t want = n > 1 ? n - 1 : 0, made = 0; /* and this thread */
	pthread_attr_t at;

	if (want > CLOSE_THREADS)
		want = CLOSE_THREADS;
	if (want && pthread_attr_init(&at) == 0) {
		(void)pthread_attr_setstacksize(&at, 64 * 1024);
		while (made < want &&
		       pthread_create(&th[made], &at, close_worker, &j) == 0)
			made++;
		pthread_attr_destroy(&at);
	}
	close_worker(&j); /* this thread too; all of them if none started */
	for (size_t i = 0; i < made; i++)
		pthread_join(th[i], NULL);
}

void close_many(const int *fds, size_t n)
{
	int *all;

	if (!next_n) {
		close_all(fds, n);
		return;
	}
	/* close_with_next()'s with these, in one batch */
	all = xcalloc(next_n + n + 1, sizeof(*all));
	memcpy(all, next_fds, next_n * sizeof(*all));
	if (n)
		memcpy(all + next_n, fds, n * sizeof(*all));
	close_all(all, next_n + n);
	free(all);
	free(next_fds);
	next_fds = NULL;
	next_n = 0;
}

void close_with_next(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			PUSH(next_fds, next_n, fds[i]);
}

struct later {
	pthread_t th;
	int *fds;
	size_t n;
};

static struct later later_q[LATER_MAX];
static size_t later_head, later_n; /* a ring: the oldest at later_head */

static void *later_worker(void *arg)
{
	struct later *l = arg;

	close_all(l->fds, l->n); /* not close_many(): next_fds are ours */
	return NULL;
}

static void later_join_oldest(void)
{
	struct later *l = &later_q[later_head];

	pthread_join(l->th, NULL);
	free(l->fds);
	l->fds = NULL;
	later_head = (later_head + 1) % LATER_MAX;
	later_n--;
}

void close_later(const int *fds, size_t n)
{
	struct later *l;
	pthread_attr_t at;
	bool made = false;

	if (!n)
		return;
	if (later_n == LATER_MAX)
		later_join_oldest();
	l = &later_q[(later_head + later_n) % LATER_MAX];
	l->fds = malloc(n * sizeof(*fds));
	l->n = n;
	if (l->fds && pthread_attr_init(&at) == 0) {
		memcpy(l->fds, fds, n * sizeof(*fds));
		(void)pthread_attr_setstacksize(&at, 64 * 1024);
		made = pthread_create(&l->th, &at, later_worker, l) == 0;
		pthread_attr_destroy(&at);
	}
	if (made) {
		later_n++;
		return;
	}
	free(l->fds);
	l->fds = NULL;
	close_all(fds, n);
}

void close_wait(void)
{
	if (next_n) /* none took them */
		close_many(NULL, 0);
	while (later_n)
		later_join_oldest();
}

/* the closer: dtrace's end of its socket + 1 (0: not started yet), or
 * -1 where it could not be or is not wanted */
static int closer_fd;

/*
 * A child of dtrace's that may outlive it (the closer, inproc_reap.c's
 * reaper), set apart: sk, its end of a socket pair, made descriptor 3;
 * stdin and stdout /dev/null, and stderr unless keep_err; every other
 * descriptor of dtrace's closed; a session of its own (a ^C or SIGHUP
 * for dtrace is not for it), name for ps.  Then a byte to dtrace, whose
 * child_wait() waits for it: a copy the child still held when dtrace
 * closed its own would be released by the child, later (an event
 * up_close() must delete, a live process's link).  A child that cannot
 * be set apart exits.
 */
void child_detach(int sk, const char *name, bool keep_err)
{
	int nul;

	(void)setsid();
	(void)prctl(PR_SET_NAME, name, 0, 0, 0);
	if (sk != 3 && (dup2(sk, 3) < 0 || close(sk) < 0))
		_exit(1);
	(void)syscall(SYS_close_range, 4u, ~0u, 0u);
	nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		for (int f = 0; f < (keep_err ? 2 : 3); f++)
			if (f != nul)
				(void)dup2(nul, f);
		if (nul > 3) /* (0, 1 or 2 where dtrace had none there) */
			close(nul);
	}
	if (send(3, "r", 1, MSG_NOSIGNAL) != 1)
		_exit(1);
}

bool child_wait(int fd)
{
	for (;;) {
		char r;
		ssize_t got = recv(fd, &r, 1, 0);

		if (got == 1 && r == 'r')
			return true;
		if (got < 0 && errno == EINTR)
			continue;
		return false;
	}
}

/* The closer: close_later() on what it is sent, until EOF. */
static __attribute__((noreturn)) void closer(int sk)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* dtrace's handlers are not its own */
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)chdir("/"); /* no file system kept busy after dtrace */
	child_detach(sk, "dtrace-closer", false);
	/* dtrace's threads are not the closer's: none of its own yet */
	later_head = later_n = 0;
	next_n = 0;
	next_fds = NULL;
	for (;;) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(CLOSER_BATCH * sizeof(int))];
		} u;
		char byte;
		struct iovec iov = { &byte, 1 };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.b,
				    .msg_controllen = sizeof(u.b) };
		ssize_t r = recvmsg(3, &m, MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* EOF: dtrace exited */
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h;
		     h = CMSG_NXTHDR(&m, h)) {
			int fds[CLOSER_BATCH];
			size_t n;

			if (h->cmsg_level != SOL_SOCKET ||
			    h->cmsg_type != SCM_RIGHTS)
				continue;
			n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (n > CLOSER_BATCH)
				n = CLOSER_BATCH;
			memcpy(fds, CMSG_DATA(h), n * sizeof(int));
			close_later(fds, n);
		}
	}
	close_wait();
	_exit(0);
}

/* The closer started: false where it cannot be (fork, socketpair). */
static bool closer_start(void)
{
	const char *e = getenv("DTRACE_CLOSER");
	int sv[2];
	pid_t pid;

	closer_fd = -1;
	if (e && !strcmp(e, "0"))
		return false;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return false;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return false;
	}
	if (pid == 0) {
		close(sv[0]);
		closer(sv[1]);
	}
	close(sv[1]);
	if (!child_wait(sv[0])) { /* it holds nothing else of dtrace's */
		close(sv[0]);
		return false;
	}
	closer_fd = sv[0] + 1;
	return true;
}

/* fds[0..n) (none < 0) to the closer: false where not all went */
static bool closer_send(const int *fds, size_t n)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(CLOSER_BATCH * sizeof(int))];
	} u;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *h;

	memset(&u, 0, sizeof(u));
	m.msg_control = u.b;
	m.msg_controllen = CMSG_SPACE(n * sizeof(int));
	h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(h), fds, n * sizeof(int));
	return sendmsg(closer_fd - 1, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
}

void close_after(const int *fds, size_t n)
{
	int v[CLOSER_BATCH];
	size_t k = 0;

	if (!closer_fd)
		(void)closer_start();
	for (size_t i = 0; i <= n; i++) {
		if (i < n && fds[i] >= 0)
			v[k++] = fds[i];
		if (!k || (k < CLOSER_BATCH && i < n))
			continue;
		if (closer_fd > 0 && closer_send(v, k)) {
			for (size_t j = 0; j < k; j++)
				close(v[j]); /* not the last reference */
		} else {
			close_later(v, k);
		}
		k = 0;
	}
}
