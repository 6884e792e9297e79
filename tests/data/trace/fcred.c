// SPDX-License-Identifier: MIT
/*
 * fcred.c - a process tree for the built-ins of forked children.
 *
 *	fcred NAME LOG
 *
 * The program (run under dtrace -c) fires fc:::hit(0), forks a child
 * that fires hit(1) and forks a grandchild that fires hit(2) and exits
 * at once; the child then execs NAME (a hard link to this program),
 * which fires hit(3).  Each hit appends "N PID PPID" to LOG, what the
 * process itself sees, for the test to compare with dtrace's ppid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc.h"

static void note(int n, const char *log)
{
	FILE *f = fopen(log, "a");

	if (!f)
		exit(2);
	fprintf(f, "%d %d %d\n", n, (int)getpid(), (int)getppid());
	fclose(f);
}

/*
 * Each hit at a site of its own: a child must not run a site its parent
 * hit before the fork (Linux 6.18 turns a hit NOP site into a call to a
 * trampoline page of the process, which a forked child does not get: it
 * dies there, with bpftrace as with dtrace).
 */
#define HIT(n, log)                                                       \
	do {                                                              \
		FC_HIT(n);                                                \
		note(n, log);                                             \
	} while (0)

int main(int argc, char **argv)
{
	pid_t a, b;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "exec")))
		return 2;
	if (argc == 4) {
		HIT(3, argv[2]);
		return 0;
	}
	HIT(0, argv[2]);
	a = fork();
	if (a == 0) {
		HIT(1, argv[2]);
		b = fork();
		if (b == 0) {
			HIT(2, argv[2]);
			_exit(0);
		}
		waitpid(b, NULL, 0);
		execl(argv[1], argv[1], argv[1], argv[2], "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(a, NULL, 0);
	return 0;
}
