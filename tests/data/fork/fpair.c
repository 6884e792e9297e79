// SPDX-License-Identifier: MIT
/*
 * fpair.c - a forking program for tests/run-trace-fork.sh whose
 * children fire pair:::entry and pair:::return around each call, the
 * first pair at once after fork, before their own registration (drti.o's
 * fork handler) can have reached a consumer, and its return only once
 * it has and the consumer has had time to act on it.
 *
 *	fpair DIR STATEDIR NCHILD K
 *
 * Waits for DIR/go, forks NCHILD children; each fires entry(i) and
 * return(i) for i = 0 .. K - 1, and between its first entry and return
 * waits until dtrace-helperd's STATEDIR/registry/PID exists, then 300
 * ms more; so does the first process, without waiting.  Each appends
 * "PID K" to DIR/pids; the first writes DIR/done when all are done.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pair.h"

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
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

static void pairs(const char *dir, const char *state, int k)
{
	char p[PATH_MAX], line[64];

	if (state)
		snprintf(p, sizeof(p), "%s/registry/%d", state, (int)getpid());
	for (int i = 0; i < k; i++) {
		PAIR_ENTRY(i);
		if (i == 0 && state) {
			for (int n = 0; access(p, F_OK) < 0; n++) {
				if (n > 3000)
					_exit(4); /* never registered */
				nap(2);
			}
			nap(300);
		}
		PAIR_RETURN(i);
	}
	snprintf(line, sizeof(line), "%d %d\n", (int)getpid(), k);
	record(dir, "pids", line);
}

int main(int argc, char **argv)
{
	char p[PATH_MAX];
	pid_t kids[16];
	int nchild, k, bad = 0;

	if (argc != 5)
		return 2;
	nchild = atoi(argv[3]);
	k = atoi(argv[4]);
	if (nchild < 1 || nchild > 16 || k < 1)
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
			pairs(argv[1], argv[2], k);
			_exit(0);
		}
	}
	pairs(argv[1], NULL, k);
	for (int i = 0; i < nchild; i++) {
		int st;

		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	}
	record(argv[1], "done", bad ? "failed\n" : "done\n");
	return bad;
}
