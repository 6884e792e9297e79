// SPDX-License-Identifier: MIT
/*
 * cpout.c - the target of tests/run-copyout.sh: fires fill with a
 * stack buffer holding "original-bytes", prints the buffer right after
 * the probe returns (so only a write made at the hit, before the probe
 * returned, shows), then fires fill with an address nothing maps (a
 * write there faults) and done.  `cpout copy` fires copy with a buffer
 * holding "original-bytes" and a source "from-the-source", prints the
 * buffer, then fires it with a source nothing maps (a read there
 * faults), prints it again, and fires done.  `cpout block` blocks
 * SIGURG first (dtrace cannot hold a thread that blocks it at a probe),
 * then does as `cpout`; `cpout wait FILE` waits until FILE exists (a
 * dtrace -p has taken it up), then does as `cpout`.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpout.h"

int main(int argc, char **argv)
{
	char b[32];

	memcpy(b, "original-bytes", 15);
	if (argc > 1 && !strcmp(argv[1], "block")) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGURG);
		sigprocmask(SIG_BLOCK, &s, NULL);
	}
	if (argc > 2 && !strcmp(argv[1], "wait"))
		while (access(argv[2], F_OK) != 0)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
	if (argc > 1 && !strcmp(argv[1], "copy")) {
		char src[] = "from-the-source";

		CPOUT_COPY(b, src);
		printf("after the copy: [%s]\n", b);
		memcpy(b, "original-bytes", 15);
		CPOUT_COPY(b, (char *)16);
		printf("after a copy from 0x10: [%s]\n", b);
		fflush(stdout);
		CPOUT_DONE();
		return 0;
	}
	CPOUT_FILL(b, (int)sizeof(b));
	printf("after the probe: [%s]\n", b);
	fflush(stdout);
	CPOUT_FILL((char *)16, 0);
	CPOUT_DONE();
	return 0;
}
