// SPDX-License-Identifier: MIT
/*
 * fpair.c - a forking program for tests/run-trace-fork.sh whose
 * children fire pair:::entry and pair:::return around each call, and
 * hold still (hold()) until dtrace arms them, right after fork or
 * between their first entry and its return.
 *
 *	fpair DIR NCHILD K QUIET WAITMS
 *
 * Waits for DIR/go, forks NCHILD children and fires entry(i) and
 * return(i) for i = 0 .. K - 1; so does each child, but with QUIET 0
 * it holds between its first entry and return (it fired through the
 * events it inherited before its registration, in drti.o's fork
 * handler, reached dtrace), with QUIET 1 before its first entry (it
 * fires only once dtrace has it).  Each appends "PID K" to DIR/pids;
 * the first writes DIR/done when all are done ("failed" if a child
 * did).
 *
 * hold() blocks in epoll_wait() on an empty set for WAITMS ms, which
 * returns early, with EINTR, when dtrace seizes and interrupts the
 * process to arm it (freeze.c: ptrace); it lets go with the process
 * armed.  A dtrace that does not hold it (DTRACE_CGEN=0, the uprobe
 * backend) leaves it the whole WAITMS.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pair.h"

static int waitms;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static void hold(void)
{
	struct epoll_event ev;
	int fd = epoll_create1(0);

	if (fd < 0)
		_exit(6);
	(void)epoll_wait(fd, &ev, 1, waitms);
	close(fd);
}

static void record(const char *dir, const char *name, const char *line)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		_exit(3);
	close(fd);
}

/* hold: 0 never, 1 before the first entry, 2 before its return */
static void pairs(const char *dir, int k, int when)
{
	char line[64];

	for (int i = 0; i < k; i++) {
		if (i == 0 && when == 1)
			hold();
		PAIR_ENTRY(i);
		if (i == 0 && when == 2)
			hold();
		PAIR_RETURN(i);
	}
	snprintf(line, sizeof(line), "%d %d\n", (int)getpid(), k);
	record(dir, "pids", line);
}

int main(int argc, char **argv)
{
	char p[PATH_MAX];
	pid_t kids[16];
	int nchild, k, quiet, bad = 0;

	if (argc != 6)
		return 2;
	nchild = atoi(argv[2]);
	k = atoi(argv[3]);
	quiet = atoi(argv[4]);
	waitms = atoi(argv[5]);
	if (nchild < 1 || nchild > 16 || k < 1 || waitms < 0)
		return 2;
	snprintf(p, sizeof(p), "%s/go", argv[1]);
	for (int n = 0; access(p, F_OK) < 0; n++) {
		if (n > 60000)
			return 4;
		nap(2);
	}
	for (int i = 0; i < nchild; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 5;
		if (kids[i] == 0) {
			pairs(argv[1], k, quiet ? 1 : 2);
			_exit(0);
		}
	}
	pairs(argv[1], k, 0);
	for (int i = 0; i < nchild; i++) {
		int st;

		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	}
	record(argv[1], "done", bad ? "failed\n" : "done\n");
	return bad;
}
