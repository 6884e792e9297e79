// SPDX-License-Identifier: MIT
/*
 * hd_check.c - DOF is parsed by a child that can do nothing but answer.
 *
 * The DOF a process registers is written by whoever controls that
 * process.  dof_check() is careful, fuzzed and bounded, but it is still
 * a parser of hostile bytes, and the daemon runs as root.  So the daemon
 * never runs it: a checker child does, under seccomp's strict mode, in
 * which the only system calls left are read(2), write(2), _exit(2) and
 * sigreturn(2).  Whatever a blob does to the parser there, it cannot
 * open a file, map memory, signal a process or talk to the FUSE device;
 * at worst the child dies or loops, the daemon notices (EOF on the pipe,
 * or no answer within HD_CHECK_TIMEOUT_MS, after which it kills it),
 * refuses the blob and starts a new child for the next request.
 *
 * Protocol, over two pipes (the child's stdin and stdout), native byte
 * order since both ends are this binary:
 *
 *	request:  struct ck_req, then len bytes of DOF
 *	reply:    struct ck_rep; if rc == 0, the relocated DOF (len bytes)
 *		  and nsites u64 probe-site addresses (probe and is-enabled
 *		  sites, run-time addresses after relocation)
 *
 * The daemon itself only checks the fixed 64-byte header
 * (dof_check_hdr(), to know how much to copy) and compares the site
 * addresses with the caller's mappings.  The child gets its memory
 * before it is locked down: a buffer for the largest blob and room for
 * the most sites such a blob can describe, touched lazily (page faults
 * are not system calls).
 *
 * Answers are remembered.  dof_check(), dof_relocate() and the site list
 * depend on nothing but the blob's bytes, its load address and the size
 * limit, so the last HD_CACHE_N answers for blobs of up to HD_CACHE_BLOB
 * bytes are kept (the bytes sent, the relocated bytes and the sites
 * returned), and a request whose three inputs equal one of them -- the
 * bytes compared in full -- gets the same answer without a round trip to
 * the checker: a program that loads and unloads the same plugin, or many
 * processes of one non-PIE program, pay it once.  Refusals are not kept.
 * What the daemon checks itself (the sites against the caller's
 * mappings, quotas) runs every time.
 *
 * Never waited for.  The daemon's loop must answer other callers while
 * a blob is with the checker (an 8 MiB one takes milliseconds, a
 * stalled or looping child the whole timeout), so one request at a time
 * is driven without blocking: hd_check_begin() writes what the pipe
 * takes, the pipes are in the loop's epoll set (the write side only
 * while a request waits for room), and hd_check_step() moves the
 * request on when either is ready, until the answer is in.  The
 * deadline (HD_CHECK_TIMEOUT_MS, --check-timeout) is the queue's timer
 * (hd_queue.c).  The child runs at a lower priority than the loop.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dof_check.h"
#include "helperd.h"

#define HD_CHECK_PIPE (1 << 20)

static unsigned check_timeout_ms = HD_CHECK_TIMEOUT_MS;

struct ck_req {
	uint64_t len;
	uint64_t base;
	uint64_t max;
};

struct ck_rep {
	int32_t rc;
	uint32_t pad;
	uint64_t off;
	uint64_t nsites;
	char msg[DOF_ERR_MSGLEN];
};

#define HD_CACHE_N 16
#define HD_CACHE_BLOB (64u << 10)

struct ck_cached {
	uint64_t len, base, max;
	uint8_t *in, *out;   /* len bytes each: as sent, as relocated */
	uint64_t *sites;
	uint64_t nsites;
};

static struct ck_cached cache[HD_CACHE_N];
static unsigned cache_next;

static pid_t ck_pid = -1;
static int ck_to = -1, ck_from = -1;

/* ---- the child ------------------------------------------------------- */

static __attribute__((noreturn)) void ck_exit(int code)
{
	/* exit_group(2), what _exit() calls, is not allowed in strict mode. */
	syscall(SYS_exit, code);
	for (;;)
		;
}

static int rd(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int wr(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Every site address of every probe, into sites[max]: count or -1. */
static int64_t collect_sites(const uint8_t *dof, size_t len, uint64_t *sites,
			     uint64_t max, struct dof_err *err)
{
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	uint32_t pcur = 0;
	uint64_t n = 0;
	int rc;

	while ((rc = dof_prov_next(dof, len, &pcur, &pv, err)) > 0) {
		uint64_t cur = 0;

		while ((rc = dof_probe_next(&pv, &cur, &pr, err)) > 0) {
			unsigned i, k = pr.noffs + pr.nenoffs;

			for (i = 0; i < k; i++) {
				uint32_t off = i < pr.noffs ?
					dof_probe_off(&pr, i) :
					dof_probe_enoff(&pr, i - pr.noffs);

				if (pr.addr + off < pr.addr) {
					static const char m[] =
						"probe site address wraps "
						"past 2^64";

					memcpy(err->msg, m, sizeof(m));
					err->off = pr.rec_off;
					return -1;
				}
				if (n == max)
					return -1;
				sites[n++] = pr.addr + off;
			}
		}
		if (rc < 0)
			return -1;
	}
	return rc < 0 ? -1 : (int64_t)n;
}

static __attribute__((noreturn)) void child(uint64_t max)
{
	/* Each site is one u32 offset in the blob, so max / 4 bounds them. */
	uint64_t max_sites = max / 4 + 1;
	uint8_t *buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint64_t *sites = mmap(NULL, max_sites * 8, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

	if (buf == MAP_FAILED || sites == MAP_FAILED)
		ck_exit(3);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) < 0)
		ck_exit(4);
	for (;;) {
		struct ck_req rq;
		struct ck_rep rp;
		struct dof_err err;
		int64_t n = 0;
		int rc;

		if (rd(0, &rq, sizeof(rq)) < 0)
			ck_exit(0); /* the daemon closed the pipe */
		if (rq.len > max || rq.max > max)
			ck_exit(5); /* the daemon never sends that */
		if (rd(0, buf, rq.len) < 0)
			ck_exit(6);
		memset(&rp, 0, sizeof(rp));
		memset(&err, 0, sizeof(err));
		rc = dof_check(buf, rq.len, rq.max, &err);
		if (!rc && dof_relocate(buf, rq.len, rq.base, &err) < 0)
			rc = -EINVAL;
		if (!rc) {
			n = collect_sites(buf, rq.len, sites, max_sites, &err);
			if (n < 0) {
				rc = -EINVAL;
				if (!err.msg[0])
					memcpy(err.msg, "too many probe sites",
					       sizeof("too many probe sites"));
			}
		}
		rp.rc = rc;
		rp.off = err.off;
		memcpy(rp.msg, err.msg, sizeof(rp.msg));
		rp.msg[sizeof(rp.msg) - 1] = '\0';
		rp.nsites = rc ? 0 : (uint64_t)n;
		if (wr(1, &rp, sizeof(rp)) < 0 ||
		    (!rc && (wr(1, buf, rq.len) < 0 ||
			     wr(1, sites, rp.nsites * 8) < 0)))
			ck_exit(7);
	}
}

/* ---- the daemon's side ------------------------------------------------ */

static void ck_stop(const char *why)
{
	int st;

	if (ck_pid < 0)
		return;
	close(ck_to);
	close(ck_from);
	ck_to = ck_from = -1;
	if (why)
		kill(ck_pid, SIGKILL);
	if (waitpid(ck_pid, &st, 0) == ck_pid && why) {
		if (WIFSIGNALED(st))
			hd_log(HD_WARN, "DOF checker %s (killed by signal %d); "
			       "a new one takes over", why, WTERMSIG(st));
		else
			hd_log(HD_WARN, "DOF checker %s (exit %d); a new one "
			       "takes over", why, WEXITSTATUS(st));
	}
	ck_pid = -1;
}

static int ck_start(uint64_t max)
{
	int in[2], out[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return err;
	}
	if (pid == 0) {
		sigset_t all;

		/* Only the two pipes: no device, no epoll, no registry. */
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			ck_exit(2);
		if (syscall(SYS_close_range, 2, ~0U, 0) < 0)
			for (int fd = 2; fd < 1024; fd++)
				close(fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Checking yields to answering requests. */
		setpriority(PRIO_PROCESS, 0, 5);
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		child(max);
	}
	close(in[0]);
	close(out[1]);
	/*
	 * Big pipes: an 8 MiB blob crosses each in 8 wake-ups instead of
	 * 128 (less if the system's pipe-max-size is lower; then as is).
	 */
	fcntl(in[1], F_SETPIPE_SZ, HD_CHECK_PIPE);
	fcntl(out[0], F_SETPIPE_SZ, HD_CHECK_PIPE);
	/* Never block on a child that stopped reading or writing. */
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	ck_pid = pid;
	ck_to = in[1];
	ck_from = out[0];
	return 0;
}

static void cache_drop(struct ck_cached *c)
{
	free(c->in);
	free(c->out);
	free(c->sites);
	memset(c, 0, sizeof(*c));
}

/* A remembered answer for these inputs: relocate dof in place. */
static bool cache_find(uint64_t max, uint8_t *dof, size_t len, uint64_t base,
		       uint64_t **sites, size_t *nsites)
{
	for (unsigned i = 0; i < HD_CACHE_N; i++) {
		struct ck_cached *c = &cache[i];
		uint64_t *sv;

		if (!c->in || c->len != len || c->base != base ||
		    c->max != max || memcmp(c->in, dof, len))
			continue;
		sv = malloc(c->nsites ? c->nsites * 8 : 8);
		if (!sv)
			return false;
		memcpy(sv, c->sites, c->nsites * 8);
		memcpy(dof, c->out, len);
		*sites = sv;
		*nsites = c->nsites;
		return true;
	}
	return false;
}

static void cache_add(uint64_t max, const uint8_t *in, const uint8_t *out,
		      size_t len, uint64_t base, const uint64_t *sites,
		      size_t nsites)
{
	struct ck_cached *c = &cache[cache_next];

	if (len > HD_CACHE_BLOB)
		return;
	cache_next = (cache_next + 1) % HD_CACHE_N;
	cache_drop(c);
	c->in = malloc(len ? len : 1);
	c->out = malloc(len ? len : 1);
	c->sites = malloc(nsites ? nsites * 8 : 8);
	if (!c->in || !c->out || !c->sites) {
		cache_drop(c);
		return;
	}
	memcpy(c->in, in, len);
	memcpy(c->out, out, len);
	memcpy(c->sites, sites, nsites * 8);
	c->len = len;
	c->base = base;
	c->max = max;
	c->nsites = nsites;
}

/* ---- one request at a time, driven from the daemon's event loop ------ */

enum ck_phase { PH_IDLE, PH_REQ, PH_BLOB, PH_REP, PH_DOF, PH_SITES, PH_DONE };

static struct {
	enum ck_phase phase;
	uint64_t max, base;
	uint8_t *dof;	/* the caller's buffer: relocated in place */
	size_t len;
	uint8_t *in;	/* the bytes as sent, to remember the answer by */
	size_t off;	/* of the current phase's transfer */
	struct ck_req rq;
	struct ck_rep rp;
	uint64_t *sv;
	uint64_t deadline_ns;
	int rc;
	struct dof_err err;
} op;

static int ep_fd = -1;
static uint64_t ep_tag;
static bool ep_out; /* ck_to is watched for room */

void hd_check_epoll(int epfd, uint64_t tag)
{
	ep_fd = epfd;
	ep_tag = tag;
}

/* Watch ck_to for room (while a request is written) or not. */
static void watch_out(bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLOUT : 0,
				  .data.u64 = ep_tag };

	if (ep_fd < 0 || ck_to < 0 || ep_out == on)
		return;
	if (epoll_ctl(ep_fd, EPOLL_CTL_MOD, ck_to, &ev) == 0)
		ep_out = on;
}

/* A new checker's pipes join the loop (closing them leaves it). */
static void watch_new(void)
{
	struct epoll_event in = { .events = EPOLLIN, .data.u64 = ep_tag };
	struct epoll_event out = { .events = 0, .data.u64 = ep_tag };

	ep_out = false;
	if (ep_fd < 0)
		return;
	epoll_ctl(ep_fd, EPOLL_CTL_ADD, ck_from, &in);
	epoll_ctl(ep_fd, EPOLL_CTL_ADD, ck_to, &out);
}

/* Move bytes without blocking: 1 done, 0 would block, -EPIPE. */
static int move(int fd, void *buf, size_t len, bool writing)
{
	while (op.off < len) {
		ssize_t n = writing ?
			write(fd, (const char *)buf + op.off, len - op.off) :
			read(fd, (char *)buf + op.off, len - op.off);

		if (n > 0) {
			op.off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		return -EPIPE; /* EOF or an error: the child is gone */
	}
	op.off = 0;
	return 1;
}

/* The request is over: rc is its answer (a failed checker is stopped). */
static void finish(int rc)
{
	watch_out(false);
	if (rc == -ETIMEDOUT || rc == -EPIPE) {
		snprintf(op.err.msg, sizeof(op.err.msg), "%s",
			 rc == -ETIMEDOUT ? "the DOF checker gave no answer "
					    "in time" :
					    "the DOF checker died on it");
		op.err.code = 0;
		ck_stop(rc == -ETIMEDOUT ? "timed out" : "died");
		rc = -EINVAL;
	} else if (rc == -ENOMEM) {
		snprintf(op.err.msg, sizeof(op.err.msg), "out of memory");
		op.err.code = 0;
		ck_stop("dropped (out of memory)");
		rc = -EINVAL;
	}
	if (rc) {
		free(op.sv);
		op.sv = NULL;
	} else if (op.in) {
		cache_add(op.max, op.in, op.dof, op.len, op.base, op.sv,
			  (size_t)op.rp.nsites);
	}
	free(op.in);
	op.in = NULL;
	op.rc = rc;
	op.phase = PH_DONE;
}

bool hd_check_step(void)
{
	int r = 1;

	while (r == 1) {
		switch (op.phase) {
		case PH_IDLE:
		case PH_DONE:
			return op.phase == PH_DONE;
		case PH_REQ:
			r = move(ck_to, &op.rq, sizeof(op.rq), true);
			if (r == 1)
				op.phase = PH_BLOB;
			break;
		case PH_BLOB:
			r = move(ck_to, op.dof, op.len, true);
			if (r == 1) {
				watch_out(false);
				op.phase = PH_REP;
			}
			break;
		case PH_REP:
			r = move(ck_from, &op.rp, sizeof(op.rp), false);
			if (r != 1)
				break;
			if (op.rp.rc) {
				op.err.code = op.rp.rc;
				op.err.off = op.rp.off;
				memcpy(op.err.msg, op.rp.msg, sizeof(op.err.msg));
				op.err.msg[sizeof(op.err.msg) - 1] = '\0';
				finish(op.rp.rc == -E2BIG ? -E2BIG : -EINVAL);
				return true;
			}
			if (op.rp.nsites > op.len / 4 + 1) {
				finish(-EPIPE); /* a child gone wrong */
				return true;
			}
			op.sv = malloc(op.rp.nsites ? op.rp.nsites * 8 : 8);
			if (!op.sv) {
				finish(-ENOMEM);
				return true;
			}
			op.phase = PH_DOF;
			break;
		case PH_DOF:
			r = move(ck_from, op.dof, op.len, false);
			if (r == 1)
				op.phase = PH_SITES;
			break;
		case PH_SITES:
			r = move(ck_from, op.sv, op.rp.nsites * 8, false);
			if (r == 1) {
				finish(0);
				return true;
			}
			break;
		}
	}
	if (r < 0) {
		finish(r);
		return true;
	}
	/* Would block: writing waits for room, reading for the answer. */
	watch_out(op.phase == PH_REQ || op.phase == PH_BLOB);
	return false;
}

int hd_check_begin(uint64_t max, uint8_t *dof, size_t len, uint64_t base)
{
	size_t n;
	int rc;

	if (op.phase != PH_IDLE)
		return -EBUSY;
	memset(&op, 0, sizeof(op));
	op.max = max;
	op.dof = dof;
	op.len = len;
	op.base = base;
	if (cache_find(max, dof, len, base, &op.sv, &n)) {
		op.rp.nsites = n;
		op.phase = PH_DONE;
		return 1;
	}
	if (ck_pid < 0) {
		rc = ck_start(max);
		if (rc) {
			snprintf(op.err.msg, sizeof(op.err.msg),
				 "cannot start the DOF checker: %s",
				 strerror(-rc));
			op.rc = -EAGAIN;
			op.phase = PH_DONE;
			return 1;
		}
		watch_new();
	}
	/* The bytes as sent, to remember the answer by. */
	if (len <= HD_CACHE_BLOB) {
		op.in = malloc(len ? len : 1);
		if (op.in)
			memcpy(op.in, dof, len);
	}
	op.rq.len = len;
	op.rq.base = base;
	op.rq.max = max;
	op.deadline_ns = hd_mono_ns() + check_timeout_ms * 1000000ull;
	op.phase = PH_REQ;
	return hd_check_step() ? 1 : 0;
}

int hd_check_fd_wanted(short *events)
{
	if (op.phase == PH_REQ || op.phase == PH_BLOB) {
		*events = POLLOUT;
		return ck_to;
	}
	if (op.phase == PH_REP || op.phase == PH_DOF || op.phase == PH_SITES) {
		*events = POLLIN;
		return ck_from;
	}
	return -1;
}

uint64_t hd_check_deadline(void)
{
	return op.phase == PH_IDLE || op.phase == PH_DONE ? 0 : op.deadline_ns;
}

bool hd_check_expire(uint64_t now)
{
	if (!hd_check_deadline() || now < op.deadline_ns)
		return false;
	finish(-ETIMEDOUT);
	return true;
}

int hd_check_end(uint64_t **sites, size_t *nsites, struct dof_err *err)
{
	int rc = op.rc;

	*sites = NULL;
	*nsites = 0;
	*err = op.err;
	if (op.phase != PH_DONE)
		return -EINPROGRESS;
	if (!rc) {
		*sites = op.sv;
		*nsites = (size_t)op.rp.nsites;
	}
	op.sv = NULL;
	op.phase = PH_IDLE;
	return rc;
}

void hd_check_set_timeout(unsigned ms)
{
	check_timeout_ms = ms;
}

unsigned hd_check_timeout(void)
{
	return check_timeout_ms;
}

void hd_check_stop(void)
{
	if (op.phase != PH_IDLE) {
		free(op.sv);
		free(op.in);
		memset(&op, 0, sizeof(op));
	}
	ck_stop(NULL);
	for (unsigned i = 0; i < HD_CACHE_N; i++)
		cache_drop(&cache[i]);
}
