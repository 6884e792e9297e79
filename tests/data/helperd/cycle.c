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
	int c;

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
		child = fork();
		if (child == 0) {
			while ((c = getchar()) != EOF)
				;
			_exit(0);
		}
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
