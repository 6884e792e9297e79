// SPDX-License-Identifier: MIT
/*
 * threads.c - thread churn for bench/startup.sh: N threads created and
 * joined one after another (argv[1], default 60), each firing the probe
 * 10 times.  What a traced run pays per thread it sees come and go: the
 * per-thread events a tracer opens and closes, where it has any (dlhold.c
 * had one a thread on ld.so before the uprobe_multi link).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bprov.h"

static void *run(void *arg)
{
	for (long i = 0; i < 10; i++)
		BPROV_HIT(i);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 60;

	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, run, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
		pthread_join(t, NULL);
	}
	return 0;
}
