// SPDX-License-Identifier: MIT
/*
 * nest.c - run-cgen-nest.sh's traced program: hit(p, n) is the probe
 * point (pid provider), p a string whose every byte says n's parity
 * ("ab" repeated, or "cd" repeated, 200 bytes) and whose last bytes are
 * n: a record built from it whole has a string that run-cgen-nest.sh
 * can check against its number.
 *
 *   nest N [MS]  N calls of hit(), as fast as it can; then 300 ms of
 *                sleep.  With MS, MS milliseconds of sleep after the
 *                first call: time for dtrace to hand the kernel the
 *                process's unwind tables, which it reads once the
 *                first record shows the process (the stacks of the
 *                calls before are copied, not walked)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int hit(const char *p, long n)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	return (int)n + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	char buf[256];

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 200; k += 2)
			memcpy(buf + k, i & 1 ? "cd" : "ab", 2);
		snprintf(buf + 200, sizeof(buf) - 200, "-%ld", i);
		hit(buf, i);
		if (i == 0 && ms > 0)
			usleep((useconds_t)ms * 1000);
	}
	usleep(300000);
	return 0;
}
