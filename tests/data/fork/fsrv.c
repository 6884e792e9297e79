// SPDX-License-Identifier: MIT
/*
 * fsrv.c - a forking server for tests/run-trace-fork.sh, deterministic
 * so that the test can expect exact counts.
 *
 *	fsrv DIR NCHILD DEPTH NTHREADS K EXEC PREFORK [SETID]
 *
 * Every process forks NCHILD children if it is less than DEPTH forks
 * from the first, fires srv:::req K times from its main thread (the
 * first process also K times from each of NTHREADS threads, created
 * after its children are forked), waits for its children, and
 * appends "PID HITS" to DIR/pids.  With EXEC 1, a process at DEPTH execs fsrv2
 * (this file built with -DFSRV_EXECD, next to us) after firing, which
 * waits until its own probe is enabled, fires 3 more and appends the
 * line; with EXEC 2 only the first child's fsrv2 registers, the others
 * run with DTRACE_DOF_INIT_DISABLE=1 and are known to a consumer only
 * through the fork tree; with EXEC 3 it execs fsrv itself (the same
 * file: `fsrv DIR HITS` does what fsrv2 does); with EXEC 4 it execs fsrv2
 * with an empty environment (execle()'s envp {NULL}).  With PREFORK 1 the
 * first process forks its children before DIR/go exists; every process
 * waits for DIR/go before it fires, so children forked before tracing
 * starts fire only once it has.  With SETID 1 every process but the
 * first, after its K hits, sets its real uid and gid to 65534 and 65533
 * (the effective and saved ones stay root's, so it can still write DIR)
 * and fires K more, counted in its line.  The first process writes
 * DIR/done when all are done.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* setresuid(), setresgid() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "srv.h"

static const char *dir;
static int nchild, depth_max, nthreads, k, do_exec, prefork, setid;
static int child_no; /* this process is its parent's child_no'th child */

static void nap(void)
{
	struct timespec ts = {0, 2000000};

	nanosleep(&ts, NULL);
}

static void record(const char *name, const char *line)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		_exit(3);
	close(fd);
}

static void record_pid(long hits)
{
	char line[64];

	snprintf(line, sizeof(line), "%d %ld\n", (int)getpid(), hits);
	record("pids", line);
}

static void fire(void)
{
	for (int i = 0; i < k; i++)
		SRV_REQ(i);
}

/* DIR HITS: the hits of the image that exec'd us */
static int execd_main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	dir = argv[1];
	k = 3;
	for (int i = 0; !SRV_REQ_ENABLED(); i++) {
		if (i > 60000)
			return 4; /* never traced: the test says so */
		nap();
	}
	fire();
	record_pid(atol(argv[2]) + k);
	return 0;
}

#ifdef FSRV_EXECD
int main(int argc, char **argv)
{
	return execd_main(argc, argv);
}
#else
static void *thread_main(void *arg)
{
	(void)arg;
	fire();
	return NULL;
}

static void wait_go(void)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/go", dir);
	for (int i = 0; access(p, F_OK) < 0; i++) {
		if (i > 60000)
			_exit(4);
		nap();
	}
}

static void body(int depth);

static pid_t spawn(int depth, int no)
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(5);
	if (pid == 0) {
		child_no = no;
		wait_go();
		body(depth);
		_exit(0);
	}
	return pid;
}

static void reap(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int st;

		char line[64];

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			snprintf(line, sizeof(line),
				 "child %d failed: status 0x%x\n",
				 (int)pids[i], st);
			record("errors", line);
		}
	}
}

/*
 * A process at depth (0: the first): fork, fire, wait, record.  (A child
 * forked after its parent fired is traced just as well: doc/DESIGN.md §9
 * has the check that an optimized uprobe does not crash it.)
 */
static void body(int depth)
{
	pthread_t th[16];
	pid_t kids[16];
	/* threads in the first process only: see tests/run-trace-fork.sh */
	int nt = depth == 0 ? nthreads : 0;
	long hits = (long)k * (1 + nt);
	int nk = 0;

	if (depth < depth_max)
		for (nk = 0; nk < nchild; nk++)
			kids[nk] = spawn(depth + 1, nk);
	fire();
	if (setid && depth > 0) { /* uid and gid as at each hit */
		if (setresgid(65533, 0, 0) < 0 || setresuid(65534, 0, 0) < 0)
			_exit(9);
		fire();
		hits += k;
	}
	for (int i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, thread_main, NULL))
			_exit(6);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	reap(kids, nk);
	if (do_exec && depth > 0 && depth == depth_max) {
		char self[PATH_MAX], prog[PATH_MAX + 8], n[32];
		ssize_t len = readlink("/proc/self/exe", self,
				       sizeof(self) - 1);

		if (len <= 0)
			_exit(7);
		self[len] = '\0';
		if (do_exec == 3) /* the same file */
			snprintf(prog, sizeof(prog), "%s", self);
		else {
			*strrchr(self, '/') = '\0';
			snprintf(prog, sizeof(prog), "%s/fsrv2", self);
		}
		snprintf(n, sizeof(n), "%ld", hits);
		if (do_exec == 2 && child_no > 0 &&
		    setenv("DTRACE_DOF_INIT_DISABLE", "1", 1) < 0)
			_exit(7);
		if (do_exec == 4) {
			char *none[] = { NULL };

			execle(prog, prog, dir, n, (char *)NULL, none);
		} else
			execl(prog, prog, dir, n, (char *)NULL);
		_exit(8);
	}
	record_pid(hits);
}

int main(int argc, char **argv)
{
	pid_t kids[16];

	if (argc == 3) /* exec'd by one of ours (EXEC 3) */
		return execd_main(argc, argv);
	if (argc != 8 && argc != 9)
		return 2;
	dir = argv[1];
	nchild = atoi(argv[2]);
	depth_max = atoi(argv[3]);
	nthreads = atoi(argv[4]);
	k = atoi(argv[5]);
	do_exec = atoi(argv[6]);
	prefork = atoi(argv[7]);
	setid = argc == 9 && atoi(argv[8]);
	if (nchild > 16 || nthreads > 16 || nchild < 0 || nthreads < 0)
		return 2;
	if (prefork) {
		/* children that exist before tracing starts */
		for (int i = 0; i < nchild; i++)
			kids[i] = spawn(1, i);
		record("prefork", "forked\n");
		wait_go();
		fire();
		reap(kids, nchild);
		record_pid(k);
	} else {
		wait_go();
		body(0);
	}
	record("done", "done\n");
	return 0;
}
#endif
