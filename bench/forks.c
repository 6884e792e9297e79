// SPDX-License-Identifier: MIT
/*
 * forks.c - fork churn for bench/startup.sh: N children (argv[1],
 * default 16) forked one after another, each firing the probe K times
 * (argv[2], default 20000) from its first moment and exiting, the
 * parent waiting for each.  What a traced run pays for children it
 * learns of only after they have begun to fire: their hits are records
 * until it arms them, unless the kernel arms them at their fork
 * (dtrace-G/consumer/bpf_agg_cgen.c's "Forks").
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bprov.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;
	long k = argc > 2 ? atol(argv[2]) : 20000;

	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		int st;

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			for (long j = 0; j < k; j++)
				BPROV_HIT(j);
			_exit(0);
		}
		if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
