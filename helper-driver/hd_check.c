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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dof_check.h"
#include "helperd.h"

#define HD_CHECK_TIMEOUT_MS 2000
#define HD_CHECK_PIPE (1 << 20)

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

/* read/write with a deadline; -ETIMEDOUT, -EPIPE (child gone) or 0 */
static int xfer(int fd, void *buf, size_t len, bool writing,
		const struct timespec *until)
{
	size_t done = 0;

	while (done < len) {
		struct pollfd pfd = { fd, writing ? POLLOUT : POLLIN, 0 };
		struct timespec now;
		long ms;
		ssize_t n;

		/* Non-blocking: try first, wait only while full or empty. */
		n = writing ? write(fd, (const char *)buf + done, len - done) :
			      read(fd, (char *)buf + done, len - done);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			return -EPIPE;
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (until->tv_sec - now.tv_sec) * 1000 +
		     (until->tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
	}
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

/*
 * One round trip to the checker (started if need be): 0 with dof
 * relocated in place and *svp, *nsp the sites, or as hd_check_dof().
 */
static int ask(uint64_t max, uint8_t *dof, size_t len, uint64_t base,
	       uint64_t **svp, size_t *nsp, struct dof_err *err)
{
	struct ck_req rq = { len, base, max };
	struct ck_rep rp;
	struct timespec until;
	uint64_t *sv = NULL;
	int rc;

	if (ck_pid < 0) {
		rc = ck_start(max);
		if (rc) {
			snprintf(err->msg, sizeof(err->msg),
				 "cannot start the DOF checker: %s",
				 strerror(-rc));
			return -EAGAIN;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += HD_CHECK_TIMEOUT_MS / 1000;
	rc = xfer(ck_to, &rq, sizeof(rq), true, &until);
	if (!rc)
		rc = xfer(ck_to, dof, len, true, &until);
	if (!rc)
		rc = xfer(ck_from, &rp, sizeof(rp), false, &until);
	if (!rc && rp.rc == 0) {
		if (rp.nsites > len / 4 + 1) {
			rc = -EPIPE; /* a child gone wrong */
		} else {
			sv = malloc(rp.nsites ? rp.nsites * 8 : 8);
			rc = !sv ? -ENOMEM :
				   xfer(ck_from, dof, len, false, &until);
			if (!rc)
				rc = xfer(ck_from, sv, rp.nsites * 8, false,
					  &until);
		}
	}
	if (rc) {
		free(sv);
		snprintf(err->msg, sizeof(err->msg), "%s",
			 rc == -ETIMEDOUT ? "the DOF checker gave no answer in "
					    "time" :
			 rc == -ENOMEM ? "out of memory" :
					 "the DOF checker died on it");
		if (rc != -ENOMEM)
			ck_stop(rc == -ETIMEDOUT ? "timed out" : "died");
		return -EINVAL;
	}
	if (rp.rc) {
		err->code = rp.rc;
		err->off = rp.off;
		memcpy(err->msg, rp.msg, sizeof(err->msg));
		err->msg[sizeof(err->msg) - 1] = '\0';
		return rp.rc == -E2BIG ? -E2BIG : -EINVAL;
	}
	*svp = sv;
	*nsp = (size_t)rp.nsites;
	return 0;
}

int hd_check_dof(uint64_t max, uint8_t *dof, size_t len, uint64_t base,
		 uint64_t **sites, size_t *nsites, struct dof_err *err)
{
	uint8_t copy[4096], *in = NULL;
	int rc;

	*sites = NULL;
	*nsites = 0;
	memset(err, 0, sizeof(*err));
	if (cache_find(max, dof, len, base, sites, nsites))
		return 0;
	/* The bytes as sent, to remember the answer by. */
	if (len <= sizeof(copy))
		in = copy;
	else if (len <= HD_CACHE_BLOB)
		in = malloc(len);
	if (in)
		memcpy(in, dof, len);
	rc = ask(max, dof, len, base, sites, nsites, err);
	if (!rc && in)
		cache_add(max, in, dof, len, base, *sites, *nsites);
	if (in != copy)
		free(in);
	return rc;
}

void hd_check_stop(void)
{
	ck_stop(NULL);
	for (unsigned i = 0; i < HD_CACHE_N; i++)
		cache_drop(&cache[i]);
}
