// SPDX-License-Identifier: MIT
/*
 * cycle.c - dlopen and dlclose a probed plugin N times, for
 * tests/run-helperd-dgram.sh:
 *
 *	cycle PLUGIN N keep|close [fork]
 *
 * N dlopen+dlclose cycles, then (keep) one more dlopen left open, or
 * (close) none; with fork, a child is forked after that.  Prints
 * "ready PID [CHILD]" and waits for end of file on stdin before it
 * exits.  Every ADD and REMOVE drti.o sends goes out before "ready": a
 * registry read after it (with SYNC) must hold exactly what is open.
 * The fork child's ADD is sent by drti.o's fork handler, which runs
 * before fork() returns in the child; the child then writes a byte to a
 * pipe, and the parent prints "ready" only once it has read it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *h = NULL;
	pid_t child = 0;
	long n, i;
	int c, fds[2];
	char b;

	if (argc < 4) {
		fprintf(stderr, "usage: cycle PLUGIN N keep|close [fork]\n");
		return 2;
	}
	n = atol(argv[2]);
	for (i = 0; i < n; i++) {
		h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "cycle: %s\n", dlerror());
			return 1;
		}
		dlclose(h);
	}
	if (!strcmp(argv[3], "keep") && !(h = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "cycle: %s\n", dlerror());
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 4 && !strcmp(argv[4], "fork")) {
		if (pipe(fds) < 0) {
			perror("cycle: pipe");
			return 1;
		}
		child = fork();
		if (child == 0) {
			/* drti.o's fork handler has sent the child's ADD */
			if (write(fds[1], "", 1) != 1)
				_exit(1);
			while ((c = getchar()) != EOF)
				;
			_exit(0);
		}
		if (child < 0) {
			perror("cycle: fork");
			return 1;
		}
		if (read(fds[0], &b, 1) != 1) {
			fprintf(stderr, "cycle: the child did not start\n");
			return 1;
		}
		close(fds[0]);
		close(fds[1]);
	}
	if (child > 0)
		printf("ready %d %d\n", (int)getpid(), (int)child);
	else
		printf("ready %d\n", (int)getpid());
	while ((c = getchar()) != EOF)
		;
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
