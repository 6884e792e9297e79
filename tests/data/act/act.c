/* SPDX-License-Identifier: MIT */
/*
 * act.c - the traced program of tests/run-activation-user.sh: fires
 * act:::hit(i, i * 3 - 7) N times, in T threads (and every tenth time
 * libactl.so's actl:::fire), then optionally forks a child that fires
 * them N more times (arguments + 1000000), and writes
 * what it fired to stdout, so the test compares dtrace's counts with
 * the program's own.  With a fourth argument it then fires act:::tick,
 * under its is-enabled guard, once per millisecond for that many
 * milliseconds (a run that dtrace can end or be killed in the middle
 * of, the process running on).  ACT_EXEC=K: then it execs itself, the
 * same arguments, K times in a chain (each new image fires at once);
 * ACT_CLOSEFD set: it closes descriptor 1023 first (the one an image
 * asks dtrace to arm it through).  ACT_CHILD_EXEC set: the fork child
 * then execs itself as `act N 0 0`.  ACT_CHILD_WAIT=FILE: the fork
 * child, once it fired, waits until FILE exists (a test looks at it
 * meanwhile; its parent waits for it).  ACT_SECCOMP set: it runs under a
 * seccomp filter.  ACT_CHILD_SLEEP=MS: the fork child sleeps that long
 * first.
 * ACT_SCRIBBLE set: once armed it fires one hit, then a fork child
 * writes the arena it shares with its parent (-x activation=user,
 * drti/arena.h), pointing the header's offsets far outside it, and
 * exits; the parent fires on (its recorder must not follow them).
 * ACT_WAVES=W: the T threads are started, fire and exit W times over
 * (more threads than the arena has segments); before each wave it
 * waits, up to 5 s, until the arena has T segments to claim, fresh or
 * given back (drti/arena.h: dtrace gives back those of exited threads).
 * ACT_END_WAIT=FILE: after the ticks it waits until FILE exists before
 * it prints and exits (a test checks its text and semaphores meanwhile).
 * ACT_NEWPID set: it unshares CLONE_NEWPID before it forks, so the fork
 * child is pid 1 of a new pid namespace (its getppid() 0).
 * ACT_NEWPID_AT=X|self with it: that child first makes a grandchild at
 * pid X of the new namespace (ns_last_pid), or at the parent's pid here,
 * which fires N hits in each of 2 threads (arguments + 2000000), prints
 * "grandchild X 2N" and waits, its threads alive, as ACT_CHILD_WAIT
 * says; the child reaps it before it exits.
 * ACT_SECCOMP_NS set: after ACT_WAIT's wait, a seccomp filter makes
 * newfstatat() fail with EPERM (a thread's claim cannot stat its pid
 * namespace), then it fires.
 * ACT_CLAIM_LATE set with ACT_NEWPID_AT: that child's first hit (its
 * time taken) claims its ring segment only once the grandchild's
 * threads have fired (they claim theirs first, with later hits): a
 * seccomp filter traps the claim's newfstatat() of /proc/self/ns/pid
 * (AT_FDCWD, no flags), whose SIGSYS handler lets the grandchild's
 * threads start and waits until they fired, then makes the call itself
 * (AT_NO_AUTOMOUNT set, which the filter lets by).
 * ACT_FIRED set: once its threads (and its fork child) have fired, before
 * the ticks, it prints "fired PID COUNT" (a test waits for that line
 * instead of sleeping, then ends dtrace while the ticks go on).
 * ACT_TICK_UNTIL=FILE: the ticks go on past MS until FILE exists, 60 s
 * at most (a test checks the process while it ticks, then lets it end at
 * once; one that failed before still ends).
 *
 *	act N T FORK [MS]
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWPID */
#include <errno.h>
#include <fcntl.h> /* AT_FDCWD, AT_NO_AUTOMOUNT */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act.h"
#include "arena.h" /* drti/: the layout a hostile child writes */

static long n;
static int linger; /* fire()'s threads wait for ACT_CHILD_WAIT's file */
static int fired;  /* ... and count here that they fired first */
static int *gfired; /* ACT_CLAIM_LATE, shared: [0] the child is in its
		     * claim, [1] the grandchild's threads fired */

long actl_fire(long i); /* libactl.so */

static void *fire(void *arg)
{
	long base = (long)arg;

	for (long i = 0; i < n; i++) {
		ACT_HIT((int)(i % 100), base + i * 3 - 7);
		if (i % 10 == 0) /* the library's probe, a tenth as often */
			(void)actl_fire(i);
	}
	if (linger) {
		__atomic_fetch_add(&fired, 1, __ATOMIC_RELEASE);
		while (getenv("ACT_CHILD_WAIT") &&
		       access(getenv("ACT_CHILD_WAIT"), F_OK))
			usleep(1000);
	}
	return NULL;
}

static void fire_threads(unsigned t, long base)
{
	pthread_t th[64];

	for (unsigned i = 0; i < t; i++)
		pthread_create(&th[i], NULL, fire, (void *)base);
	for (unsigned i = 0; i < t; i++)
		pthread_join(th[i], NULL);
}

/* where this process maps its arena, or 0 */
static unsigned long arena_at(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo = 0;

	while (f && !lo && fgets(line, sizeof(line), f))
		if (strstr(line, "usdt-arena"))
			lo = strtoul(line, NULL, 16);
	if (f)
		fclose(f);
	return lo;
}

/* Up to 5 s until the arena has t segments this process can claim. */
static void await_segments(unsigned t)
{
	const struct usdt_arena *a = (const struct usdt_arena *)arena_at();

	for (int w = 0; a && w < 5000; w++) {
		unsigned have = 0;

		if (a->next_seg < a->nseg)
			have = a->nseg - a->next_seg;
		for (uint32_t i = 0; i < a->nseg && have < t; i++) {
			const struct usdt_seg *s =
				(const struct usdt_seg *)((const char *)a +
							  USDT_ARENA_HDR +
							  i * a->seg_size);

			have += __atomic_load_n(&s->given, __ATOMIC_ACQUIRE) &&
				(!s->own || s->pid == (uint32_t)getpid());
		}
		if (have >= t)
			return;
		usleep(1000);
	}
}

/*
 * A grandchild at pid x of this process's pid namespace (ACT_NEWPID_AT:
 * this process is pid 1 of a new one, alone there), which fires n hits
 * in each of 2 threads, which wait for ACT_CHILD_WAIT's file (alive
 * while dtrace reads); its pid, or exit 4.
 */
static pid_t grandchild_at(long x)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	pid_t g;

	if (!f || fprintf(f, "%ld", x - 1) < 0 || fclose(f) != 0) {
		perror("act: ns_last_pid");
		exit(4);
	}
	g = fork();
	if (g == 0) {
		pthread_t th[2];

		if (getpid() != (pid_t)x)
			_exit(4);
		for (int w = 0; gfired && w < 10000 &&
				!__atomic_load_n(&gfired[0], __ATOMIC_ACQUIRE);
		     w++)
			usleep(1000);
		linger = 1; /* its threads alive until the file: dtrace reads */
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, fire, (void *)2000000);
		while (__atomic_load_n(&fired, __ATOMIC_ACQUIRE) < 2)
			usleep(1000);
		if (gfired)
			__atomic_store_n(&gfired[1], 1, __ATOMIC_RELEASE);
		printf("grandchild %d %ld\n", (int)getpid(), 2 * n);
		fflush(stdout);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	if (g != (pid_t)x)
		exit(4);
	return g;
}

/*
 * ACT_CLAIM_LATE: the trapped newfstatat() (the recorder's claim, inside
 * __usdt_rec(): nothing here fires a probe), made once the grandchild's
 * threads, let start here, have fired; as asked but for AT_NO_AUTOMOUNT.
 */
static void claim_late(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	struct timespec ts = { 0, 1000000 };
	int e = errno;

	(void)sig;
	(void)si;
	__atomic_store_n(&gfired[0], 1, __ATOMIC_RELEASE);
	for (int w = 0;
	     w < 10000 && !__atomic_load_n(&gfired[1], __ATOMIC_ACQUIRE); w++)
		nanosleep(&ts, NULL);
	g[REG_RAX] = syscall(SYS_newfstatat, g[REG_RDI], g[REG_RSI], g[REG_RDX],
			     g[REG_R10] | AT_NO_AUTOMOUNT);
	if (g[REG_RAX] < 0)
		g[REG_RAX] = -errno;
	errno = e;
}

static void claim_late_arm(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)AT_FDCWD, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[3])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { 8, f };
	struct sigaction sa = { 0 };

	sa.sa_sigaction = claim_late;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
		_exit(3);
}

/* A fork child writes the shared arena's header (ACT_SCRIBBLE). */
static void scribble(void)
{
	unsigned long lo = arena_at();
	pid_t c;

	if (!lo) {
		fprintf(stderr, "act: no arena to scribble on\n");
		exit(4);
	}
	c = fork();
	if (c == 0) {
		struct usdt_arena *a = (struct usdt_arena *)lo;

		a->seg_size = UINT64_C(1) << 44;
		a->next_seg = 7;
		a->agg_off = UINT64_C(1) << 45;
		a->site_off = UINT64_C(1) << 46;
		a->plan_off = UINT64_C(1) << 46;
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned t;
	int fk;
	long ms;
	const char *until = getenv("ACT_TICK_UNTIL");

	if (argc < 4)
		return 2;
	n = atol(argv[1]);
	t = (unsigned)atoi(argv[2]);
	fk = atoi(argv[3]);
	ms = argc > 4 ? atol(argv[4]) : 0;
	if (t > 64)
		return 2;
	/* ACT_SECCOMP set: under a seccomp filter (one that allows all) */
	if (getenv("ACT_SECCOMP")) {
		struct sock_filter allow[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fp = {1, allow};

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
			return 3;
	}
	/* the first wait lets a -p consumer arm before anything fires */
	if (getenv("ACT_WAIT"))
		while (access(getenv("ACT_WAIT"), F_OK) != 0)
			usleep(1000);
	if (getenv("ACT_SECCOMP_NS")) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0,
				 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fp = { 4, f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
			return 3;
	}
	if (getenv("ACT_SCRIBBLE")) {
		ACT_HIT(0, 0); /* this thread's segment, before the child */
		scribble();
	}
	if (getenv("ACT_WAVES")) {
		int w = atoi(getenv("ACT_WAVES"));

		for (int i = 0; i < w; i++) {
			await_segments(t);
			fire_threads(t, 0);
		}
		t *= (unsigned)w; /* what it fired, below */
	} else if (t) {
		fire_threads(t, 0);
	} else {
		fire((void *)0);
	}
	if (fk) {
		pid_t c, self = getpid();

		if (getenv("ACT_NEWPID") && unshare(CLONE_NEWPID) < 0)
			return 3;
		c = fork();

		if (c == 0) {
			pid_t g = 0;

			if (getenv("ACT_CLAIM_LATE")) {
				gfired =
					mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
				if (gfired == MAP_FAILED)
					_exit(3);
			}
			if (getenv("ACT_NEWPID") && getenv("ACT_NEWPID_AT"))
				g = grandchild_at(
					strcmp(getenv("ACT_NEWPID_AT"), "self")
						? atol(getenv("ACT_NEWPID_AT"))
						: (long)self);
			if (gfired)
				claim_late_arm();
			/* ACT_CHILD_SLEEP ms: a consumer may find it first */
			if (getenv("ACT_CHILD_SLEEP"))
				usleep((useconds_t)atoi(
					       getenv("ACT_CHILD_SLEEP")) *
				       1000);
			fire((void *)1000000);
			printf("child %d %ld\n", (int)getpid(), n);
			fflush(stdout);
			/* ACT_CHILD_WAIT=FILE: then it waits for FILE */
			if (getenv("ACT_CHILD_WAIT"))
				while (access(getenv("ACT_CHILD_WAIT"), F_OK))
					usleep(1000);
			/* ACT_CHILD_EXEC set: then it execs act N 0 0 */
			if (getenv("ACT_CHILD_EXEC")) {
				char *av[] = {argv[0], argv[1], "0", "0", NULL};

				unsetenv("ACT_CHILD_EXEC");
				execv("/proc/self/exe", av);
			}
			if (g)
				waitpid(g, NULL, 0);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	if (getenv("ACT_FIRED")) {
		printf("fired %d %ld\n", (int)getpid(), n * (t ? t : 1));
		fflush(stdout);
	}
	/* (ACT_TICK_UNTIL: at most 60 s past MS, so a test whose check
	 * failed before it made the file still ends, and fails) */
	for (long i = 0;
	     i < ms || (until && i < ms + 60000 && access(until, F_OK) != 0);
	     i++) {
		struct timespec ts = {0, 1000000};

		if (ACT_TICK_ENABLED()) /* the semaphore must go up */
			ACT_TICK((int)i);
		nanosleep(&ts, NULL);
	}
	/* ACT_END_WAIT=FILE: alive until FILE exists, for a test's checks */
	if (getenv("ACT_END_WAIT"))
		while (access(getenv("ACT_END_WAIT"), F_OK) != 0)
			usleep(1000);
	printf("parent %d %ld\n", (int)getpid(), n * (t ? t : 1));
	fflush(stdout);
	/* ACT_EXEC=K: K times more, each a new image of the same process */
	if (getenv("ACT_EXEC") && atoi(getenv("ACT_EXEC")) > 0) {
		char k[16];

		snprintf(k, sizeof(k), "%d", atoi(getenv("ACT_EXEC")) - 1);
		setenv("ACT_EXEC", k, 1);
		unsetenv("ACT_WAIT");
		if (getenv("ACT_CLOSEFD")) /* as a daemon closes them all */
			close(1023);
		execv("/proc/self/exe", argv);
		return 1;
	}
	return 0;
}
