/* SPDX-License-Identifier: MIT */
/*
 * actdl.c - for tests/run-activation-user.sh: dlopen()s LIB (libactl.so)
 * three times, each time waiting 300 ms (a consumer arms a library it
 * finds at its next refresh), firing actl:::fire 1000 times with
 * arg0 = round * 10000 + i, and dlclose()ing it; then fires act:::tick
 * once per millisecond for 600 ms.  Between rounds the library is
 * unmapped and mapped again, mostly at the same address.  With ACT_NOW
 * set, it fires as soon as dlopen() returns (hits only a library armed
 * before it runs counts).  ACT_HOLD=FILE: it waits for FILE before the
 * ticks.  ACT_ROUNDS=N: N rounds instead of 3; ACT_TIGHT set: no wait
 * after dlclose() either (dlopen(), fire, dlclose() in a tight loop);
 * ACT_LIB2=LIB2: odd rounds open LIB2 (a copy of LIB: another file,
 * mostly mapped where LIB was).
 *
 *	actdl LIB		(ACT_WAIT=FILE: waits for FILE first)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "act.h"

int main(int argc, char **argv)
{
	long rounds = getenv("ACT_ROUNDS") ? atol(getenv("ACT_ROUNDS")) : 3;

	if (argc != 2)
		return 2;
	if (getenv("ACT_WAIT"))
		while (access(getenv("ACT_WAIT"), F_OK) != 0)
			usleep(1000);
	for (long k = 0; k < rounds; k++) {
		const char *lib = k % 2 && getenv("ACT_LIB2")
					  ? getenv("ACT_LIB2")
					  : argv[1];
		void *h = dlopen(lib, RTLD_NOW);
		long (*f)(long);

		if (!h)
			return 3;
		f = (long (*)(long))dlsym(h, "actl_fire");
		if (!f)
			return 4;
		if (!getenv("ACT_NOW"))
			usleep(300000);
		for (long i = 0; i < 1000; i++)
			(void)f(k * 10000 + i);
		dlclose(h);
		if (!getenv("ACT_TIGHT"))
			usleep(50000);
	}
	if (getenv("ACT_HOLD"))
		while (access(getenv("ACT_HOLD"), F_OK) != 0)
			usleep(1000);
	for (int i = 0; i < 600; i++) {
		ACT_TICK(i);
		usleep(1000);
	}
	printf("rounds %ld\n", rounds);
	return 0;
}
