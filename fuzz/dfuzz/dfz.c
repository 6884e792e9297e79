// SPDX-License-Identifier: MIT
/*
 * dfz.c - the target of the D differential fuzzer (dfuzz.py): N rounds
 * (argv[1], 40 by default), each firing dfz:::ints, dfz:::strs and
 * dfz:::mix once with values drawn in a fixed order from the tables
 * below, then dfz:::done once.  One thread, no clock, no randomness:
 * two runs fire the same hits with the same arguments, so whatever a
 * D program prints of them must be the same whichever way dtrace runs
 * its clauses.
 *
 * The integers are the edges of every width (0, +-1, 127/128, 255/256,
 * the 16-, 32- and 64-bit limits), each passed through the probe's
 * typed argument, so the C conversion narrows them as a caller's would.
 * The strings: NULL (a copy faults), "", short words, paths for
 * basename() and dirname(), strings past the kernel's 64-byte keys and
 * past strsize 256, bytes above 0x7f.  Each round also writes one of
 * them to /dev/null, for syscall::write:entry.
 *
 * "dfz N fork": at round N/2 the process forks; the child fires rounds
 * N/2 to N/2+3 itself (through the sites it inherited: the probes of
 * provider dfz<child>, which a dfz* description matches), stays alive
 * 200 ms for dtrace to read its strings, and exits; the parent waits
 * for it, then goes on.  So the hits are still one sequence, the
 * child's between the parent's, whichever way dtrace runs them.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dfz.h"

static const long long ints[] = {
	0,	   1,	     -1,	 2,	      7,	 100,
	127,	   128,	     255,	 256,	      -128,	 -129,
	32767,	   -32768,   65535,	 65536,	      INT_MAX,	 INT_MIN,
	UINT_MAX,  LLONG_MAX, LLONG_MIN, 1000000007, -123456789,
};
#define NINTS (sizeof(ints) / sizeof(ints[0]))

#define Q10 "qqqqqqqqqq"
#define A26 "abcdefghijklmnopqrstuvwxyz"
/* in .rodata, so a string is read the same after the process exits */
static const char long70[] = Q10 Q10 Q10 Q10 Q10 Q10 Q10;
static const char long300[] = A26 A26 A26 A26 A26 A26 A26 A26 A26 A26 A26
	"abcdefghijklmn";
static const char *const strs[] = {
	NULL,	   "",		 "a",		"hello",	 "Hello World",
	"/usr/lib/libfoo.so.1", "a/b/c/",	"//",		 "/",
	"x.y.z",   long70,	 long300,	"\xff\x80 hi",	 "abc",
	"ABC def", "abcabc",
};
#define NSTRS (sizeof(strs) / sizeof(strs[0]))

static long long v(unsigned i)
{
	return ints[i % NINTS];
}

static char *s(unsigned i)
{
	return (char *)strs[i % NSTRS];
}

/* round i: the three probes, and the write */
static int round1(unsigned i, int fd)
{
	DFZ_INTS((int)v(i), (long)v(i * 7 + 3), (unsigned char)v(i + 5),
		 (short)v(i * 3 + 1), (unsigned int)v(i * 5 + 2),
		 (char)v(i * 11 + 4));
	DFZ_STRS(s(i), s(i * 5 + 3), (int)i);
	DFZ_MIX((long)v(i * 13 + 6), s(i * 7 + 1),
		(unsigned short)v(i * 2 + 9));
	/* a system call the kernel's syscall provider sees: a string and
	 * its length (NULL and 0 for the NULL one) */
	const char *w = s(i * 3 + 2);

	return fd >= 0 && write(fd, w, w ? strlen(w) : 0) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 40;
	int forks = argc > 2 && strcmp(argv[2], "fork") == 0;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (unsigned i = 0; i < n; i++) {
		if (forks && i == n / 2) {
			pid_t c = fork();
			int st;

			if (c < 0)
				return 1;
			if (c == 0) {
				for (unsigned j = i; j < i + 4; j++)
					if (round1(j, fd) < 0)
						_exit(1);
				usleep(200000);
				_exit(0);
			}
			if (waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0)
				return 1;
		}
		if (round1(i, fd) < 0)
			return 1;
	}
	DFZ_DONE((int)n);
	/* a while alive after the last hit: dtrace reads the strings of
	 * the records it has not run yet from the process */
	usleep(200000);
	return 0;
}
