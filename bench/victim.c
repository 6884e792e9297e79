// SPDX-License-Identifier: MIT
/*
 * victim.c - how long one registration takes, cycle by cycle.
 *
 *	victim PLUGIN N		dlopen + dlclose PLUGIN N times (drti.o's
 *				constructor sends ADDDOF, its destructor
 *				REMOVE) and print the median, the 99th
 *				percentile and the slowest cycle, in us,
 *				and how many were not registered:
 *				"p50 P p99 Q max M unregistered U
 *				 slowwait V D"
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
 * Where the slowest cycles' time went: the kernel counts, per thread,
 * how long it sat runnable without a CPU (the second field of
 * /proc/PID/task/TID/schedstat, readable by everyone).  Around each
 * timed part the victim reads its own and, with $VICTIM_DAEMON_PID,
 * that of the daemon's loop (the thread that answers every request;
 * its workers and checker never hold an ADDDOF or REMOVE up); for the
 * slowest 1% of cycles it prints V, the share (%) of their time the
 * victim waited for a CPU, and D, the loop's wait in the same
 * intervals as a share of the same time (an upper bound on what the
 * loop's waiting cost the victim: it may wait while the victim runs).  A slow
 * cycle with V + D near 100 was slow because two CPUs were busy with
 * other work, not because the daemon made the victim wait.
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

/* Run-queue wait (ns) of one thread, from its schedstat. */
static long long run_delay(const char *path)
{
	unsigned long long cpu, wait;
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return 0;
	ok = fscanf(f, "%llu %llu", &cpu, &wait) == 2;
	fclose(f);
	return ok ? (long long)wait : 0;
}

/* ... of the daemon's loop, the thread that answers ADDDOF and REMOVE. */
static long long daemon_delay(int pid)
{
	char path[128];

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, pid);
	return run_delay(path);
}

struct cycle {
	long long ns, vwait, dwait;
};

static int cmp_cycle(const void *a, const void *b)
{
	const struct cycle *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

int main(int argc, char **argv)
{
	const char *regdir = getenv("VICTIM_REGDIR");
	const char *dev = getenv(DRTI_ENV_DEVNAME);
	const char *dp = getenv("VICTIM_DAEMON_PID");
	const char *self = "/proc/thread-self/schedstat";
	int dpid = dp ? atoi(dp) : 0;
	char path[4096];
	struct cycle *t;
	long long slow = 0, vw = 0, dw = 0;
	long i, n, k, unreg = 0;
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
		long long v0 = run_delay(self), d0 = daemon_delay(dpid);
		long long t0 = now_ns();
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "victim: %s\n", dlerror());
			return 1;
		}
		t[i].ns = now_ns() - t0;
		t[i].vwait = run_delay(self) - v0;
		t[i].dwait = daemon_delay(dpid) - d0;
		/* ENOTTY (a helper without SYNC) or not: then look. */
		if (fd >= 0)
			(void)ioctl(fd, DTRACEHIOC_SYNC, &zero);
		if (regdir && access(path, F_OK) != 0)
			unreg++;
		v0 = run_delay(self);
		d0 = daemon_delay(dpid);
		t0 = now_ns();
		dlclose(h);
		t[i].ns += now_ns() - t0;
		t[i].vwait += run_delay(self) - v0;
		t[i].dwait += daemon_delay(dpid) - d0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_cycle);
	for (k = n - 1; k >= 0 && k >= n - 1 - n / 100; k--) {
		slow += t[k].ns;
		vw += t[k].vwait;
		dw += t[k].dwait;
	}
	printf("p50 %lld p99 %lld max %lld unregistered %ld slowwait %lld "
	       "%lld\n",
	       t[n / 2].ns / 1000, t[(n * 99) / 100].ns / 1000,
	       t[n - 1].ns / 1000, unreg, slow ? vw * 100 / slow : 0,
	       slow ? dw * 100 / slow : 0);
	free(t);
	return 0;
}
