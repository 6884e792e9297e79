/* SPDX-License-Identifier: MIT */
/*
 * kstk.c - the program tests/run-kstack.sh takes user stacks of at the
 * kernel providers: known noinline frames under main, built -O2
 * -fomit-frame-pointer so only the CFI unwinds them.
 *
 *	kstk spin MS	main -> outer -> inner, which spins MS ms of CPU
 *			time (profile-N samples it there)
 *	kstk write N	main -> do_write -> write(2) N times to /dev/null
 *	kstk exit	main -> leave -> exit(3)
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static unsigned long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

NOINLINE void inner(unsigned long ms)
{
	unsigned long end = cpu_ms() + ms;

	/* mostly arithmetic, a clock read every 2^16 rounds */
	for (unsigned long i = 0;; i++) {
		sink += i * 7;
		if (!(i & 0xffff) && cpu_ms() >= end)
			break;
	}
	__asm__ volatile("" ::: "memory");
}

NOINLINE void outer(unsigned long ms)
{
	inner(ms);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

NOINLINE void do_write(int fd, int n)
{
	for (int i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			exit(2);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void leave(int code)
{
	exit(code);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		outer(strtoul(argv[2], NULL, 10));
	} else if (argc == 3 && !strcmp(argv[1], "write")) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0)
			return 2;
		do_write(fd, atoi(argv[2]));
	} else if (argc == 2 && !strcmp(argv[1], "exit")) {
		leave(3);
	} else {
		return 2;
	}
	__asm__ volatile("" ::: "memory");
	return 0;
}
