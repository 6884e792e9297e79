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
 * unregistered (the daemon writes the file before it answers).
 *
 * bench/attack.sh runs it as an ordinary user while another user
 * attacks the helper, to show what the attacks cost everyone else.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	char path[4096];
	long long *t;
	long i, n, unreg = 0;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: victim PLUGIN N\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	snprintf(path, sizeof(path), "%s/%d", regdir ? regdir : "",
		 (int)getpid());
	for (i = 0; i < n; i++) {
		long long t0 = now_ns();
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "victim: %s\n", dlerror());
			return 1;
		}
		t[i] = now_ns() - t0;
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
