// SPDX-License-Identifier: MIT
/*
 * kpprog.c - the target of tests/run-kprov.sh: system calls, CPU time
 * and processes in exactly known numbers.
 *
 *	kpprog reads N		N read(2) calls on a pipe, each of 1 byte
 *	kpprog badread		one read(2) on fd -1 (EBADF)
 *	kpprog opens N		N open(2) and N openat(2) of /dev/null
 *	kpprog getcpu N		N getcpu(2) calls (never through the vDSO)
 *	kpprog spin N		N iterations of a loop that makes no call
 *	kpprog closes N [M]	N close(2) calls of descriptors 1000 to
 *				1000 + N - 1 (none open: EBADF); with M,
 *				then spin M and N more of 2000 to
 *				2000 + N - 1
 *	kpprog forkexec PATH	forks a child that execs PATH with the
 *				argument "hello", waits for it; forks a
 *				child that is killed by SIGKILL once asleep
 *				in pause(); prints both
 *				pids; exits with status 3
 *	kpprog hello		prints "hello" (what forkexec runs), then
 *				sleeps 0.3 s
 *	kpprog rewrites N	N openat(2) calls of the path
 *				"/nonexistent/rw-I" in a buffer, which
 *				is rewritten right after each returns
 *	kpprog untouched N	N openat(2) calls, each of a path in a
 *				fresh anonymous page the process has not
 *				touched (the empty string, ENOENT): not
 *				in memory at the call's entry, there
 *				after it (the pages stay mapped, the
 *				process 0.5 s more)
 *	kpprog badopens N	N (at most 3) pairs of openat(2) calls:
 *				"/nonexistent/ok-I" (a literal, ENOENT),
 *				then address 16 (no page: EFAULT); the
 *				process 0.5 s more
 *	kpprog sigs N		N turns, each a call of sig_hit(I) (I 0 to
 *				N - 1) and a getppid(2), the SIGUSR1s its
 *				handler counted printed after each ("I
 *				AFTER-CALL AFTER-SYSCALL", a line at a
 *				time), then, 0.3 s later, "got TOTAL"
 *				(run-cgen-raise.sh: raise() and stop() at
 *				the hit)
 *	kpprog topens N T	T threads (at most 16), started together,
 *				each making N openat(2) calls of the
 *				path "sf/tT-iI" (I 0 to N - 1), closing
 *				what opens; thread 0 calls getcpu(2)
 *				before the start and after its last call
 *	kpprog handoff N	two threads: the first makes pread64(2)
 *				calls of fd -1 at offsets 1 to N, each
 *				handed to the second by a pipe, which
 *				then makes a pwrite64(2) call of fd -1 at
 *				that offset; then one at offset N + 1,
 *				with no pread64() before it; then a
 *				third thread makes the pread64() at
 *				N + 2 and exits, and 0.3 s later a
 *				fourth the pwrite64() at N + 2
 *				(run-cgen-garr.sh: a global array from
 *				one thread to another, one outliving its
 *				writer)
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

/* the loop profile-N samples: in this program's text */
static __attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 2654435761u;
}

/* wait (10 s at most) until process pid sleeps: /proc/PID/stat's state S */
static void asleep(pid_t pid)
{
	char path[64], buf[512], *e;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 10000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		e = strrchr(buf, ')'); /* the state follows the name */
		if (e && e[1] == ' ' && e[2] == 'S')
			return;
		usleep(1000);
	}
}

/* sigs: SIGUSR1s counted, and the probe point */
static volatile sig_atomic_t nsigs;

static void on_usr1(int sig)
{
	(void)sig;
	nsigs++;
}

__attribute__((noinline)) long sig_hit(long i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return i;
}

static long nopens;
static pthread_barrier_t go;

/* topens' thread t (its argument) */
static void *topens(void *arg)
{
	int t = (int)(long)arg;
	char path[64];
	unsigned cpu, node;

	if (!t)
		syscall(SYS_getcpu, &cpu, &node, NULL);
	pthread_barrier_wait(&go);
	for (long i = 0; i < nopens; i++) {
		int fd;

		snprintf(path, sizeof(path), "sf/t%d-i%ld", t, i);
		fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	if (!t)
		syscall(SYS_getcpu, &cpu, &node, NULL);
	return NULL;
}

/* handoff's second thread: each offset read from the pipe (fd in arg) */
static void *handoff_to(void *arg)
{
	int fd = (int)(long)arg;
	long off;

	while (read(fd, &off, sizeof(off)) == (ssize_t)sizeof(off))
		(void)syscall(SYS_pwrite64, -1, NULL, 0, off);
	return NULL;
}

/* handoff's third thread: the pread64() at *arg's offset */
static void *handoff_from(void *arg)
{
	(void)syscall(SYS_pread64, -1, NULL, 0, *(long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	int p[2];
	char c;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "reads")) {
		if (pipe(p) < 0)
			return 1;
		for (long i = 0; i < n; i++)
			if (write(p[1], "x", 1) != 1 || read(p[0], &c, 1) != 1)
				return 1;
	} else if (!strcmp(argv[1], "badread")) {
		if (read(-1, &c, 1) != -1)
			return 1;
	} else if (!strcmp(argv[1], "opens")) {
		for (long i = 0; i < n; i++) {
			close((int)syscall(SYS_open, "/dev/null", O_RDONLY));
			close((int)syscall(SYS_openat, AT_FDCWD, "/dev/null",
					   O_RDONLY));
		}
	} else if (!strcmp(argv[1], "getcpu")) {
		unsigned cpu, node;

		for (long i = 0; i < n; i++)
			syscall(SYS_getcpu, &cpu, &node, NULL);
	} else if (!strcmp(argv[1], "spin")) {
		spin(n);
	} else if (!strcmp(argv[1], "closes")) {
		long m = argc > 3 ? atol(argv[3]) : 0;

		for (long i = 0; i < n; i++)
			close((int)(1000 + i));
		if (m) {
			spin(m);
			for (long i = 0; i < n; i++)
				close((int)(2000 + i));
		}
	} else if (!strcmp(argv[1], "forkexec") && argc > 2) {
		pid_t a, b;

		fflush(stdout);
		if ((a = fork()) == 0) {
			execl(argv[2], argv[2], "hello", (char *)NULL);
			_exit(127);
		}
		waitpid(a, NULL, 0);
		if ((b = fork()) == 0) {
			for (;;)
				pause();
		}
		/* killed asleep in pause(), not anywhere on its way there:
		 * its exit's ustack() is then the same in every run */
		asleep(b);
		kill(b, SIGKILL);
		waitpid(b, NULL, 0);
		printf("%d %d\n", (int)a, (int)b);
		return 3;
	} else if (!strcmp(argv[1], "rewrites")) {
		static char path[64];

		for (long i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "/nonexistent/rw-%ld", i);
			syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
			snprintf(path, sizeof(path), "/rewritten/after-%ld", i);
		}
	} else if (!strcmp(argv[1], "untouched")) {
		for (long i = 0; i < n; i++) {
			char *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (pg == MAP_FAILED)
				return 1;
			syscall(SYS_openat, AT_FDCWD, pg, O_RDONLY);
		}
		usleep(500000); /* for a reader after the fact */
	} else if (!strcmp(argv[1], "badopens")) {
		/* a path, then an address no page holds: openat's EFAULT */
		static const char *const ok[] = { "/nonexistent/ok-0",
						  "/nonexistent/ok-1",
						  "/nonexistent/ok-2" };

		for (long i = 0; i < n && i < 3; i++) {
			syscall(SYS_openat, AT_FDCWD, ok[i], O_RDONLY);
			syscall(SYS_openat, AT_FDCWD, (char *)16, O_RDONLY);
		}
		usleep(500000); /* for a reader after the fact */
	} else if (!strcmp(argv[1], "topens") && argc > 3) {
		pthread_t th[16];
		int nt = atoi(argv[3]);

		if (nt < 1 || nt > 16)
			return 2;
		nopens = n;
		pthread_barrier_init(&go, NULL, (unsigned)nt);
		for (long t = 0; t < nt; t++)
			pthread_create(&th[t], NULL, topens, (void *)t);
		for (int t = 0; t < nt; t++)
			pthread_join(th[t], NULL);
	} else if (!strcmp(argv[1], "handoff")) {
		pthread_t th;
		long last = n + 1;

		if (pipe(p) < 0)
			return 1;
		pthread_create(&th, NULL, handoff_to, (void *)(long)p[0]);
		for (long i = 1; i <= n; i++) {
			(void)syscall(SYS_pread64, -1, NULL, 0, i);
			if (write(p[1], &i, sizeof(i)) != (ssize_t)sizeof(i))
				return 1;
		}
		if (write(p[1], &last, sizeof(last)) != (ssize_t)sizeof(last))
			return 1;
		close(p[1]);
		pthread_join(th, NULL);
		last = n + 2;
		pthread_create(&th, NULL, handoff_from, &last);
		pthread_join(th, NULL);
		usleep(300000); /* past a refresh of the threads gone */
		if (pipe(p) < 0 ||
		    write(p[1], &last, sizeof(last)) != (ssize_t)sizeof(last))
			return 1;
		close(p[1]);
		pthread_create(&th, NULL, handoff_to, (void *)(long)p[0]);
		pthread_join(th, NULL);
	} else if (!strcmp(argv[1], "sigs")) {
		setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is */
		signal(SIGUSR1, on_usr1);
		for (long i = 0; i < n; i++) {
			int a, b;

			(void)sig_hit(i);
			a = (int)nsigs;
			(void)syscall(SYS_getppid);
			b = (int)nsigs;
			printf("%ld %d %d\n", i, a, b);
		}
		fflush(stdout);
		usleep(300000);
		printf("got %d\n", (int)nsigs);
	} else if (!strcmp(argv[1], "hello")) {
		printf("hello\n");
		/*
		 * 0.3 s more before it exits, for dtrace to read its maps
		 * after ld.so mapped libc (the tracker's mapping record,
		 * ustack.c's ustack_mapped_read()): a process gone before
		 * any read of them has its exit's frames as addresses
		 */
		fflush(stdout);
		usleep(300000);
	} else {
		return 2;
	}
	return 0;
}
