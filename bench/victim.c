// SPDX-License-Identifier: MIT
/*
 * victim.c - how long one registration takes, cycle by cycle.
 *
 *	victim PLUGIN N		dlopen + dlclose PLUGIN N times (drti.o's
 *				constructor sends ADDDOF, its destructor
 *				REMOVE) and print the median, the 99th
 *				percentile and the slowest cycle, in us,
 *				and how many were not registered:
 *				"p50 P p99 Q max M unregistered U"
 *
 * A refused registration is fast, so each one is checked: with
 * $VICTIM_REGDIR set (the helper's <statedir>/registry), a cycle whose
 * process has no file there while the plugin is loaded counts as
 * unregistered.  dtrace-helperd answers ADDDOF before it checks the DOF
 * and writes the file after, so the check first sends SYNC to the
 * device ($DTRACE_DOF_INIT_DEVNAME), as a consumer listing the probes
 * would: each registration is checked and recorded before its dlclose.
 * The check and its SYNC are not timed; the dlclose after them is.
 *
 * bench/attack.sh runs it as an ordinary user while another user
 * attacks the helper, to show what the attacks cost everyone else.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usdt/helper_abi.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *regdir = getenv("VICTIM_REGDIR");
	const char *dev = getenv(DRTI_ENV_DEVNAME);
	char path[4096];
	long long *t;
	long i, n, unreg = 0;
	int fd = -1, zero = 0;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: victim PLUGIN N\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	snprintf(path, sizeof(path), "%s/%d", regdir ? regdir : "",
		 (int)getpid());
	if (regdir)
		fd = open(dev && *dev ? dev : DTRACE_HELPER_DEVICE,
			  O_RDWR | O_CLOEXEC);
	for (i = 0; i < n; i++) {
		long long t0 = now_ns();
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "victim: %s\n", dlerror());
			return 1;
		}
		t[i] = now_ns() - t0;
		/* ENOTTY (a helper without SYNC) or not: then look. */
		if (fd >= 0)
			(void)ioctl(fd, DTRACEHIOC_SYNC, &zero);
		if (regdir && access(path, F_OK) != 0)
			unreg++;
		t0 = now_ns();
		dlclose(h);
		t[i] += now_ns() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_ll);
	printf("p50 %lld p99 %lld max %lld unregistered %ld\n",
	       t[n / 2] / 1000, t[(n * 99) / 100] / 1000, t[n - 1] / 1000,
	       unreg);
	free(t);
	return 0;
}
