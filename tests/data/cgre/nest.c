// SPDX-License-Identifier: MIT
/*
 * nest.c - run-cgen-nest.sh's traced program: hit(p, n) is the probe
 * point (pid provider), p a string whose every byte says n's parity
 * ("ab" repeated, or "cd" repeated, 200 bytes) and whose last bytes are
 * n: a record built from it whole has a string that run-cgen-nest.sh
 * can check against its number.
 *
 *   nest N   N calls of hit(), as fast as it can; then 300 ms of sleep
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
	char buf[256];

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 200; k += 2)
			memcpy(buf + k, i & 1 ? "cd" : "ab", 2);
		snprintf(buf + 200, sizeof(buf) - 200, "-%ld", i);
		hit(buf, i);
	}
	usleep(300000);
	return 0;
}
