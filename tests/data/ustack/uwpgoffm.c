/* SPDX-License-Identifier: MIT */
/*
 * The walk's mapping check against a file mapped again at the same
 * addresses from another offset (tests/run-ustack.sh): N hits of
 * uwp_fire() through uwpgoff.c's pg_a(), a pause between them (dtrace
 * builds the walk's tables from the first hit's copy), then the
 * library's r-x mapping mapped again with MAP_FIXED from the same file
 * one page further on (pg_b's code where pg_a's was) and N hits more.
 * It ends with _exit(): the library's own exit code is no longer where
 * it was.  Exit status 0; 2 or 3 where the library could not be found
 * or mapped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

int pg_a(int (*cb)(int), int n);

__attribute__((noinline)) int uwp_fire(int n)
{
	__asm__ volatile("" ::: "memory");
	return n + 1;
}

static int cb(int n)
{
	return uwp_fire(n) * 2;
}

static void nap(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	unsigned long a, b, off, sa = 0, sb = 0, so = 0;
	char line[1024], path[512], perm[8], lib[512] = "";
	FILE *f = fopen("/proc/self/maps", "r");
	int n = argc > 1 ? atoi(argv[1]) : 4, fd, s = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &a, &b, perm,
			   &off, path) == 5 &&
		    perm[2] == 'x' && strstr(path, "/libuwpgoff.so")) {
			sa = a;
			sb = b;
			so = off;
			strcpy(lib, path);
		}
	if (f)
		fclose(f);
	if (!sa || (fd = open(lib, O_RDONLY)) < 0)
		return 2;
	for (int i = 0; i < n; i++, nap())
		s += pg_a(cb, i);
	if (mmap((void *)sa, sb - sa, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED, fd, (off_t)(so + 4096)) == MAP_FAILED)
		return 3;
	for (int i = 0; i < n; i++, nap())
		s += pg_a(cb, 10 + i);
	_exit(s < 0);
}
