// SPDX-License-Identifier: MIT
/*
 * regbench.c - what registering a probe-carrying object costs.
 *
 *	regbench PLUGIN N	dlopen + dlclose PLUGIN N times; prints the
 *				mean ns per cycle (drti.o's constructor sends
 *				its ADD, its destructor its REMOVE: datagrams
 *				where DTRACE_DOF_INIT_SOCKNAME names the
 *				daemon's socket, else ioctls on the device)
 *	regbench -S PLUGIN N	the same with SYNC between dlopen and dlclose
 *				(usdt/helper_abi.h, on the device drti.o
 *				uses): each registration checked and in the
 *				registry before it is withdrawn, what a
 *				registration that a consumer lists costs
 *	regbench -f PLUGIN N	dlopen PLUGIN once, then fork N children
 *				one after the other, each exit(0)ing at once,
 *				reaping each before the next; prints the mean
 *				ns per fork+exit+wait (drti.o's fork handler
 *				runs in every child, its destructor at exit)
 *	regbench -s PROG N	posix_spawn PROG (no arguments) N times, one
 *				after the other, waiting for each; prints the
 *				mean ns per start (PROG's drti.o constructor
 *				registers, its destructor removes)
 *	regbench -n DEVICE N	N ioctls on DEVICE that the helper answers
 *				ENOTTY at once (a command number it does not
 *				serve); prints the mean ns per ioctl: the
 *				round trip to the daemon, the floor under
 *				every ADDDOF and REMOVE
 *
 * Run with the helper up, with DTRACE_DOF_INIT_DEVNAME and
 * DTRACE_DOF_INIT_SOCKNAME naming a missing device and socket, and with
 * DTRACE_DOF_INIT_DISABLE set, to separate the helper's
 * cost from dlopen's, fork's and exec's own.  bench/run.sh also runs
 * several at once for registrations per second.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "usdt/helper_abi.h"

extern char **environ;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr, "usage: regbench PLUGIN N\n"
			"       regbench -S PLUGIN N\n"
			"       regbench -f PLUGIN N\n"
			"       regbench -s PROG N\n"
			"       regbench -n DEVICE N\n");
	return 2;
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "regbench: child %d failed\n", (int)pid);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = "";
	long i, n;
	long long t0;
	void *h;

	if (argc == 4 && argv[1][0] == '-') {
		mode = argv[1];
		argv++;
		argc--;
	}
	if (argc != 3 || (n = atol(argv[2])) <= 0)
		return usage();
	if (!strcmp(mode, "-s")) {
		char *args[] = { argv[1], NULL };

		t0 = now_ns();
		for (i = 0; i < n; i++) {
			pid_t pid;
			int err = posix_spawn(&pid, argv[1], NULL, NULL, args,
					      environ);

			if (err) {
				fprintf(stderr, "regbench: %s: %s\n", argv[1],
					strerror(err));
				return 1;
			}
			if (reap(pid) < 0)
				return 1;
		}
		printf("%lld\n", (now_ns() - t0) / n);
		return 0;
	}
	if (!strcmp(mode, "-n")) {
		/* Type 0xd8 is the helper's; number 1 is none of its requests. */
		unsigned long cmd = _IOW(0xd8, 1, int);
		int fd = open(argv[1], O_RDWR | O_CLOEXEC), arg = 0;

		if (fd < 0) {
			fprintf(stderr, "regbench: %s: %s\n", argv[1],
				strerror(errno));
			return 1;
		}
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (ioctl(fd, cmd, &arg) != -1 || errno != ENOTTY) {
				fprintf(stderr, "regbench: %s: ioctl 0x%lx was "
					"not refused with ENOTTY\n", argv[1],
					cmd);
				return 1;
			}
		printf("%lld\n", (now_ns() - t0) / n);
		close(fd);
		return 0;
	}
	if (!strcmp(mode, "-f")) {
		h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "regbench: %s\n", dlerror());
			return 1;
		}
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid < 0) {
				perror("regbench: fork");
				return 1;
			}
			if (pid == 0)
				exit(0);
			if (reap(pid) < 0)
				return 1;
		}
		printf("%lld\n", (now_ns() - t0) / n);
		dlclose(h);
		return 0;
	}
	if (!strcmp(mode, "-S")) {
		const char *dev = getenv(DRTI_ENV_DEVNAME);
		int fd, zero = 0;

		fd = open(dev && *dev ? dev : DTRACE_HELPER_DEVICE,
			  O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			perror("regbench: the helper device");
			return 1;
		}
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
			if (!h) {
				fprintf(stderr, "regbench: %s\n", dlerror());
				return 1;
			}
			if (ioctl(fd, DTRACEHIOC_SYNC, &zero) < 0) {
				perror("regbench: SYNC");
				return 1;
			}
			dlclose(h);
		}
		printf("%lld\n", (now_ns() - t0) / n);
		close(fd);
		return 0;
	}
	if (mode[0])
		return usage();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "regbench: %s\n", dlerror());
			return 1;
		}
		dlclose(h);
	}
	printf("%lld\n", (now_ns() - t0) / n);
	return 0;
}
