// SPDX-License-Identifier: MIT
/*
 * fo.c - a traced process whose probe sites are hit, then forks a child
 * that hits them too (tests/run-fork-optimized.sh).
 *
 * Linux 6.18 turns a uprobe on any single 5-byte NOP into a call to a
 * trampoline page of the process once the site is hit; a child forked
 * after that inherits the rewritten text but not the trampoline, and
 * died of SIGSEGV at its first hit when -G and the header stubs wrote
 * such a NOP (doc/DESIGN.md §4).  Each round the parent hits both probes
 * HITS times, forks, and the child hits them CHILD_HITS times and exits
 * 0; the parent reports how each child ended, and every process prints
 * "pid N" lines of its own hits for the test to compare with the
 * tracer's counts.  With an argument (after), the child's hits come
 * after the tracer has gone.  fire() reaches its probe through a call followed by
 * more code (a call site at every -O); fire_tail() ends in its probe (a
 * tail call at -O2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fo.h"

#define ROUNDS 2
#define HITS 5
#define CHILD_HITS 4

volatile int sink;

__attribute__((noinline)) void fire(int i)
{
	FO_HIT(i);
	sink++;
}

__attribute__((noinline)) void fire_tail(int i)
{
	FO_TAIL(i);
}

static void hits(int n, int base)
{
	for (int k = 0; k < n; k++) {
		fire(base + k);
		fire_tail(base + k);
	}
}

/* wait (up to a minute) until the test creates the file */
static int await(const char *path)
{
	for (int i = 0; i < 6000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "fo: no %s after a minute\n", path);
	return -1;
}

/*
 * fo after: once "armed" exists, one round whose child waits for "go"
 * (made after the tracer has gone) before its hits.
 */
static int after(void)
{
	pid_t c;
	int st;

	if (await("armed") < 0)
		return 1;
	hits(HITS, 0);
	printf("pid %d %d\n", (int)getpid(), HITS);
	fflush(stdout);
	c = fork();
	if (c < 0) {
		perror("fork");
		return 1;
	}
	if (c == 0)
		_exit(await("go") < 0 ? 2 : (hits(CHILD_HITS, 100), 0));
	if (waitpid(c, &st, 0) != c) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(st) || WEXITSTATUS(st) != 0) {
		printf("child %d: %s %d\n", (int)c,
		       WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc > 1)
		return after();
	for (int r = 0; r < ROUNDS; r++) {
		pid_t c;
		int st;

		hits(HITS, 0);
		fflush(stdout);
		c = fork();
		if (c < 0) {
			perror("fork");
			return 1;
		}
		if (c == 0) {
			hits(CHILD_HITS, 100);
			printf("pid %d %d\n", (int)getpid(), CHILD_HITS);
			fflush(stdout);
			_exit(0);
		}
		if (waitpid(c, &st, 0) != c) {
			perror("waitpid");
			return 1;
		}
		if (WIFSIGNALED(st)) {
			printf("child %d: signal %d\n", (int)c, WTERMSIG(st));
			status = 1;
		} else if (WEXITSTATUS(st) != 0) {
			printf("child %d: exit %d\n", (int)c, WEXITSTATUS(st));
			status = 1;
		}
	}
	printf("pid %d %d\n", (int)getpid(), ROUNDS * HITS);
	return status;
}
