// SPDX-License-Identifier: MIT
/*
 * trprog.c - the program tests/run-trace.sh traces (provider tr, and
 * trlib from libtrl.so).  It runs commands, from its arguments (one per
 * argument, then it exits) or else one per line on standard input, and
 * acknowledges each with "ok COMMAND" once done:
 *
 *	tick N		tr:::tick(i, word, -1000 * i) for i in 0..N-1, the
 *			words "alpha" "beta" "gamma" "delta" in turn
 *	edge N		tr:::tick(i, P - 2, P - 255) for i in 0..N-1, P the
 *			end of a page the next page after which is not
 *			readable (guard()): "xy" running into it (a string
 *			that faults past its first page) and 255 'z' up to
 *			it (one that fills copyinstr()'s 255 bytes and does
 *			not fault)
 *	sedge N		for i in 0..N-1 tr:::tick(i, B - 5, A - 200) and
 *			tr:::tick(i, B - 72, B - 5), A and B each the end of
 *			a page the next page after which is not readable:
 *			"beta" ending there, "beta" and 'X' running into it
 *			past 200 bytes (a string that faults where a read
 *			of a few bytes would not), and 67 'X' and "beta"
 *			ending there (71 bytes and the NUL: string
 *			compares read on the stack, cgen_sarg.c's
 *			seq_stack())
 *	ledge N		tr:::tick(i, A - 300, 0) for i in 0..N-1, A the end
 *			of a page the next page after which is not readable:
 *			300 'X' running into it (past the 256 bytes the
 *			kernel's compares read: a fault at strsize 512, none
 *			at 256, where copyinstr() reads 255 bytes)
 *	pair		tr:::pair(key, value) over a fixed series (for the
 *			aggregation tests)
 *	vals		tr:::tick(i, "vals", V) for a fixed series of V
 *			(vals(): tests/run-kagg-fn.sh's edges)
 *	msg		tr:::msg("hello", 7), its first argument a D string
 *	hostile		name itself "ev" ESC "[31m" (prctl), then fire
 *			tr:::msg(HOSTILE, 9): "a" ESC "[2J" BEL CR LF DEL
 *			0x9b 0xff "z" \ "b", controls a terminal acts on and
 *			ill-formed UTF-8 (dtrace must print them escaped)
 *	big		tr:::big(1, 2, ..., 12): six arguments on the stack
 *	lib N		libtrl.so's trlib:::call(i) for i in 0..N-1
 *	open PATH	dlopen PATH (trplug.so)	close: dlclose it
 *	plug N		the plugin's trplug:::hello("plugin", i), N times
 *	enabled		print "enabled T L P": the _ENABLED() semaphores of
 *			tr:::tick, trlib:::call and trplug:::hello (P is -1
 *			without the plugin)
 *	threads T N	T threads each fire tr:::tick(t, "thread", i) N times
 *			and count what they did; print "threads SUM"
 *	wait WHICH	wait (up to 60 s) until the semaphore of tick, lib or
 *			plug is up: a consumer has enabled the probe; "ok wait"
 *			or "timeout wait"
 *	spin T		start T threads firing tr:::tick(t, "spin", i) without
 *			pause, until "stop", which prints "spun A B": the
 *			iterations the threads counted and those they
 *			recorded in a shared counter (equal unless something
 *			went wrong)
 *	spinpair T	as spin, each iteration firing tr:::pair("spin", i)
 *			just before tr:::tick(t, "spin", i)
 *	sleep MS	sleep
 *	clock		print "clock NS", CLOCK_MONOTONIC's time in ns (the
 *			clock of the hits' and tick-N firings' timestamps)
 *	lines PATH N	wait (up to 60 s) until PATH has N lines or more (a
 *			consumer printed them: dtrace -o PATH); "ok lines"
 *			or "timeout lines"
 *	noargs		point the process's argument area (mm's arg_start
 *			and arg_end: noargs()) at a page it cannot read,
 *			for good: curpsinfo->pr_psargs cannot be read at
 *			later hits ("ok noargs", or "error noargs", or
 *			"error noargs: no PR_SET_MM_MAP (a kernel without
 *			CONFIG_CHECKPOINT_RESTORE)")
 *	emptyargs	as noargs, the area empty (arg_end at arg_start)
 *	done		tr:::done(0)
 *	quit		exit(0)
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/prctl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tr.h"

int trl_call(int x);
int trl_enabled(void);

static const char *const words[] = {"alpha", "beta", "gamma", "delta"};
static void *plug;
static long per_thread;
static volatile int spinning;
static int spinpair; /* tr:::pair before each tr:::tick */
static long spun_total;
static pthread_t spinners[64];
static long nspinners;

static void *spin_main(void *arg)
{
	long t = (long)arg, i = 0;

	while (__atomic_load_n(&spinning, __ATOMIC_RELAXED)) {
		if (spinpair)
			TR_PAIR("spin", (int)i);
		TR_TICK((int)t, "spin", i);
		i++;
		__atomic_fetch_add(&spun_total, 1, __ATOMIC_RELAXED);
	}
	return (void *)i;
}

static int semaphore(const char *which)
{
	if (!strcmp(which, "tick"))
		return TR_TICK_ENABLED() ? 1 : 0;
	if (!strcmp(which, "lib"))
		return trl_enabled() ? 1 : 0;
	if (!strcmp(which, "plug") && plug) {
		int (*en)(void) = (int (*)(void))dlsym(plug, "trp_enabled");

		return en && en() ? 1 : 0;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	long t = (long)arg, done = 0;

	for (long i = 0; i < per_thread; i++) {
		TR_TICK((int)t, "thread", i);
		done++;
	}
	return (void *)done;
}

/*
 * noargs: the argument area moved to a page no one can read, for good,
 * LEN bytes of it (tests/run-cgen.sh's pr_psargs a record cannot
 * carry; LEN 0, an empty area, is one too).
 * PR_SET_MM_MAP, which any process may do to itself (the single
 * fields' PR_SET_MM wants CAP_SYS_RESOURCE): the whole map given,
 * every other field as /proc/self/stat has it (fields 26, 27 and 28,
 * then 45 to 51), the brk from sbrk(0), no auxv, no exe.  Only a
 * kernel built with CONFIG_CHECKPOINT_RESTORE has PR_SET_MM_MAP; one
 * without answers EINVAL to it and to PR_SET_MM_MAP_SIZE, which with it
 * only says the struct's size: that question first tells a missing
 * facility (-2) from a map refused (-1).
 */
static int noargs(size_t len)
{
	struct prctl_mm_map mm = { .exe_fd = (uint32_t)-1 };
	unsigned long long f[52] = { 0 };
	char buf[2048], *p;
	unsigned int sz;
	long pg = sysconf(_SC_PAGESIZE);
	char *m;
	FILE *fp;
	size_t n;

	if (prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE, (unsigned long)&sz, 0, 0))
		return errno == EINVAL ? -2 : -1;
	m = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	fp = fopen("/proc/self/stat", "r");
	n = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	buf[n] = '\0';
	/* after the command's name, which may hold blanks: field 3 on */
	if (m == MAP_FAILED || !(p = strrchr(buf, ')')))
		return -1;
	p = strtok(p + 1, " ");
	for (int i = 3; i <= 51 && p; i++, p = strtok(NULL, " "))
		f[i] = strtoull(p, NULL, 10);
	mm.start_code = f[26];
	mm.end_code = f[27];
	mm.start_stack = f[28];
	mm.start_data = f[45];
	mm.end_data = f[46];
	mm.start_brk = f[47];
	mm.brk = (uintptr_t)sbrk(0);
	mm.arg_start = (uintptr_t)m;
	mm.arg_end = (uintptr_t)m + len;
	mm.env_start = f[50];
	mm.env_end = f[51];
	return prctl(PR_SET_MM, PR_SET_MM_MAP, (unsigned long)&mm, sizeof(mm),
		     0);
}

/*
 * guard: the page at P made unreadable for good.  PROT_NONE, not
 * munmap(): the range stays this mapping's, so no later mapping (the
 * kernel's, a uprobe trampoline's, or a library's) can land in a hole
 * there between a hit and a later read of the string from user space
 * (DTRACE_CGEN=0 reads it after the hit), and both fault at the page.
 */
static int guard(char *p, long pg)
{
	return mprotect(p, (size_t)pg, PROT_NONE);
}

/*
 * vals: -3..1100; for each power p of 2, 3 and 10 that fits, p - 1, p,
 * p + 1, p + p/2 - 1, p + p/2, 2p - 1, 5p - 1, 5p (llquantize()'s
 * bucket edges; a product that would overflow is p), each also
 * negated; 0 and the extremes of long (stddev()'s largest squares,
 * their sum past 2^128).
 */
static void vals(void)
{
	static const long bases[] = {2, 3, 10};
	static const long ext[] = {0, LONG_MIN, LONG_MIN + 1, LONG_MAX,
				   LONG_MAX - 1, LONG_MIN + 2, LONG_MAX};
	int i = 0;

	for (long v = -3; v <= 1100; v++)
		TR_TICK(i++, (char *)"vals", v);
	for (unsigned b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		for (long p = 1;; p *= bases[b]) {
			long c[] = {p - 1, p, p + 1, p + p / 2 - 1, p + p / 2,
				    p <= LONG_MAX / 2 ? 2 * p - 1 : p,
				    p <= LONG_MAX / 5 ? 5 * p - 1 : p,
				    p <= LONG_MAX / 5 ? 5 * p : p};

			for (unsigned j = 0; j < sizeof(c) / sizeof(*c); j++) {
				TR_TICK(i++, (char *)"vals", c[j]);
				TR_TICK(i++, (char *)"vals", -c[j]);
			}
			if (p > LONG_MAX / bases[b])
				break;
		}
	}
	for (unsigned j = 0; j < sizeof(ext) / sizeof(ext[0]); j++)
		TR_TICK(i++, (char *)"vals", ext[j]);
}

static void run(char *line)
{
	char *arg = strchr(line, ' ');
	long n;

	if (arg)
		*arg++ = '\0';
	n = arg ? strtol(arg, NULL, 10) : 0;
	if (!strcmp(line, "tick")) {
		for (long i = 0; i < n; i++)
			TR_TICK((int)i, (char *)words[i % 4], -1000 * i);
	} else if (!strcmp(line, "edge")) {
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED || guard(m + pg, pg) < 0) {
			printf("error edge\n");
			return;
		}
		memset(m + pg - 255, 'z', 255);
		memcpy(m + pg - 2, "xy", 2);
		for (long i = 0; i < n; i++)
			TR_TICK((int)i, m + pg - 2, (long)(m + pg - 255));
		/* the page stays: user space may read the strings later */
	} else if (!strcmp(line, "sedge")) {
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 4 * (size_t)pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *a = m + pg, *b = m + 3 * pg;

		if (m == MAP_FAILED || guard(a, pg) < 0 || guard(b, pg) < 0) {
			printf("error sedge\n");
			return;
		}
		memset(a - 200, 'X', 200);
		memcpy(a - 200, "beta", 4);
		memset(b - 72, 'X', 67);
		memcpy(b - 5, "beta", 5);
		for (long i = 0; i < n; i++) {
			TR_TICK((int)i, b - 5, (long)(a - 200));
			TR_TICK((int)i, b - 72, (long)(b - 5));
		}
		/* the pages stay: user space may read the strings later */
	} else if (!strcmp(line, "ledge")) {
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *a = m + pg;

		if (m == MAP_FAILED || guard(a, pg) < 0) {
			printf("error ledge\n");
			return;
		}
		memset(a - 300, 'X', 300);
		for (long i = 0; i < n; i++)
			TR_TICK((int)i, a - 300, 0L);
		/* the page stays: user space may read the string later */
	} else if (!strcmp(line, "vals")) {
		vals();
	} else if (!strcmp(line, "pair")) {
		static const int v[] = {0, 1, 2, 3, 4, 5, 7, 8, 100, 1000,
					-1, -5, 42, 64, 65, 3};

		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			TR_PAIR((char *)words[i % 3], v[i]);
	} else if (!strcmp(line, "msg")) {
		TR_MSG((char *)"hello", 7);
	} else if (!strcmp(line, "hostile")) {
		prctl(PR_SET_NAME, "ev\033[31m", 0, 0, 0);
		TR_MSG((char *)"a\033[2J\a\r\n\177\233\377z\\b", 9);
	} else if (!strcmp(line, "big")) {
		TR_BIG(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
	} else if (!strcmp(line, "lib")) {
		for (long i = 0; i < n; i++)
			trl_call((int)i);
	} else if (!strcmp(line, "open") && arg) {
		plug = dlopen(arg, RTLD_NOW);
		if (!plug) {
			printf("error %s\n", dlerror());
			return;
		}
	} else if (!strcmp(line, "close") && plug) {
		dlclose(plug);
		plug = NULL;
	} else if (!strcmp(line, "plug") && plug) {
		int (*hello)(int) = (int (*)(int))dlsym(plug, "trp_hello");

		if (hello)
			hello((int)n);
	} else if (!strcmp(line, "enabled")) {
		int p = -1;

		if (plug) {
			int (*en)(void) = (int (*)(void))dlsym(plug,
							       "trp_enabled");
			p = en ? en() : -1;
		}
		printf("enabled %d %d %d\n", TR_TICK_ENABLED() ? 1 : 0,
		       trl_enabled() ? 1 : 0, p < 0 ? -1 : p ? 1 : 0);
	} else if (!strcmp(line, "threads") && arg) {
		char *rest;
		long t = strtol(arg, &rest, 10), sum = 0;
		pthread_t th[64];

		per_thread = strtol(rest, NULL, 10);
		if (t > 64)
			t = 64;
		for (long i = 0; i < t; i++)
			pthread_create(&th[i], NULL, thread_main, (void *)i);
		for (long i = 0; i < t; i++) {
			void *r;

			pthread_join(th[i], &r);
			sum += (long)r;
		}
		printf("threads %ld\n", sum);
	} else if (!strcmp(line, "wait") && arg) {
		struct timespec ts = {0, 1000000};

		for (int i = 0; i < 60000 && !semaphore(arg); i++)
			nanosleep(&ts, NULL);
		if (!semaphore(arg)) {
			printf("timeout wait\n");
			return;
		}
	} else if ((!strcmp(line, "spin") || !strcmp(line, "spinpair")) &&
		   arg && !nspinners) {
		spinpair = !strcmp(line, "spinpair");
		nspinners = n > 64 ? 64 : n;
		spinning = 1;
		for (long i = 0; i < nspinners; i++)
			pthread_create(&spinners[i], NULL, spin_main, (void *)i);
	} else if (!strcmp(line, "stop") && nspinners) {
		long sum = 0;

		__atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
		for (long i = 0; i < nspinners; i++) {
			void *r;

			pthread_join(spinners[i], &r);
			sum += (long)r;
		}
		nspinners = 0;
		printf("spun %ld %ld\n", sum, spun_total);
	} else if (!strcmp(line, "lines") && arg && strrchr(arg, ' ')) {
		struct timespec ts = {0, 1000000};
		char *sp = strrchr(arg, ' ');
		long want = strtol(sp + 1, NULL, 10), have = 0;

		*sp = '\0';
		for (int i = 0; i < 60000; i++) {
			FILE *f = fopen(arg, "r");
			int ch;

			have = 0;
			while (f && (ch = getc(f)) != EOF)
				have += ch == '\n';
			if (f)
				fclose(f);
			if (have >= want)
				break;
			nanosleep(&ts, NULL);
		}
		*sp = ' ';
		if (have < want) {
			printf("timeout lines\n");
			return;
		}
	} else if (!strcmp(line, "sleep")) {
		struct timespec ts = {n / 1000, (n % 1000) * 1000000};

		nanosleep(&ts, NULL);
	} else if (!strcmp(line, "noargs") || !strcmp(line, "emptyargs")) {
		int r = noargs(line[0] == 'e' ? 0 : 16);

		if (r < 0) {
			printf("error %s%s\n", line,
			       r == -2 ? ": no PR_SET_MM_MAP (a kernel without "
					 "CONFIG_CHECKPOINT_RESTORE)"
				       : "");
			return;
		}
	} else if (!strcmp(line, "clock")) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("clock %lld\n",
		       (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	} else if (!strcmp(line, "done")) {
		TR_DONE(0);
	} else if (!strcmp(line, "quit")) {
		exit(0);
	} else {
		printf("unknown %s\n", line);
		return;
	}
	printf("ok %s\n", line);
}

int main(int argc, char **argv)
{
	char line[512];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			snprintf(line, sizeof(line), "%s", argv[i]);
			run(line);
		}
		return 0;
	}
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		run(line);
	}
	return 0;
}
