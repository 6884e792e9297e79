// SPDX-License-Identifier: MIT
/*
 * gprog.c - the probed program of the aarch64 guest (tests/arm64/
 * guest.sh, steps-guest.sh): gprog N [SECONDS] fires, N times, after
 * SECONDS of sleep (with "-" for SECONDS: once a byte is read from its
 * standard input, steps-helperd-guest.sh's cue), gp:::many with ten
 * arguments (eight go in x0-x7, the last two on the stack, -4@[sp] and
 * 1@[sp, 8]), gp:::name with a string, both through dtrace -h's header
 * (sites rewritten by -G), and gp:::sdt through <sys/sdt.h> (one nop,
 * its arguments where the compiler keeps them).  The values depend on
 * the iteration, so that a hit read with another's registers shows.
 * Each time it also calls, for the syscall provider, getpid(), write()
 * of 3 + i bytes of argv[0] to /dev/null on fd 100, lseek(100, 4096 +
 * i, SEEK_CUR) (an __NR3264_ call: 0 on /dev/null) and lseek(101, 7,
 * SEEK_SET) (fd 101 is not open: EBADF).  And, for the pid provider
 * (steps-pid-guest.sh), it calls sum10(i, i + 1, -2 - i, 3, 4, 5, 6,
 * 7, -8 - i, 9000 + i): eight arguments in x0-x7, two on the stack,
 * 9016 + i returned, no branch, so each of its instructions runs once a
 * call; and excl(&i), which returns i read with an exclusive load at
 * offset 4, an instruction arm64's uprobes refuse to probe.
 *
 * gprog spin N FILE, for profile-N: writes to FILE where spin() is (its
 * own section, gspin) and its return address (into main), as spin()
 * read it: "LO HI RA"; spin() makes the getppid system call
 * (its own svc: every user-mode instruction between the two calls is
 * spin()'s, none is libc's wrapper's or the caller's, where a tick
 * right after the call returns would land), runs its loop of N steps,
 * all in user mode, and makes the getppid call again.
 *
 * gprog proc FILE, for the proc provider: forks a child that execs
 * /bin/busybox sh -c 'exit 7' and waits for it, then forks one that
 * kills itself with SIGKILL and waits for it, and writes to FILE what
 * it saw: "PID PPID PID1 STATUS1 PID2 SIGNAL2" (its own pid and
 * parent's, each child's and how it ended).
 *
 * gprog stack FILE, for ustack() and uregs[]: main calls stk_a(), which
 * calls stk_b(), which fires gp:::deep(41, 42, 43) (-G site: x0-x2), and
 * writes to FILE what the machine says, apart from dtrace: stk_b's
 * return address (into stk_a) and frame pointer, stk_a's return address
 * (into main), and where stk_a, stk_b and main are:
 * "RA_B FP_B RA_A STK_A STK_B MAIN".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gp.h"

extern const char __start_gspin[], __stop_gspin[];

/* getppid, with the svc in spin()'s own section */
#define SPIN_GETPPID()                                                         \
	do {                                                                   \
		register long x8 __asm__("x8") = __NR_getppid;                 \
		register long x0 __asm__("x0");                                \
		__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");    \
		(void)x0;                                                      \
	} while (0)

static unsigned long spin_ra;

/* noipa: called as it is written, with every argument where AAPCS64
 * puts it */
__attribute__((noipa)) long sum10(long a0, long a1, long a2, long a3, long a4,
				  long a5, long a6, long a7, long a8, long a9)
{
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
}

/* in assembly, so that each instruction is where the comment says */
long excl(const long *p);
__asm__(".text\n"
	".globl excl\n"
	".type excl, %function\n"
	"excl:\n"
	"\tnop\n"	    /* 0 */
	"\tldxr x0, [x0]\n" /* 4: refused by the kernel */
	"\tclrex\n"	    /* 8 */
	"\tret\n"	    /* c */
	".size excl, . - excl\n");

__attribute__((noinline, section("gspin"))) static void spin(long n)
{
	spin_ra = (unsigned long)__builtin_return_address(0);
	SPIN_GETPPID();
	for (volatile long k = 0; k < n; k++)
		;
	SPIN_GETPPID();
}

static int spin_run(long n, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return 1;
	spin(n);
	return fprintf(f, "%lu %lu %lu\n", (unsigned long)__start_gspin,
		       (unsigned long)__stop_gspin, spin_ra) < 0 ||
	       fclose(f);
}

static int proc_run(const char *path)
{
	pid_t k1, k2;
	int s1, s2;
	FILE *f;

	k1 = fork();
	if (k1 == 0) {
		execl("/bin/busybox", "busybox", "sh", "-c", "exit 7",
		      (char *)NULL);
		_exit(127);
	}
	if (k1 < 0 || waitpid(k1, &s1, 0) != k1)
		return 1;
	k2 = fork();
	if (k2 == 0) {
		raise(SIGKILL);
		_exit(127);
	}
	if (k2 < 0 || waitpid(k2, &s2, 0) != k2)
		return 1;
	f = fopen(path, "w");
	if (!f ||
	    fprintf(f, "%d %d %d %d %d %d\n", (int)getpid(), (int)getppid(),
		    (int)k1, WIFEXITED(s1) ? WEXITSTATUS(s1) : -1, (int)k2,
		    WIFSIGNALED(s2) ? WTERMSIG(s2) : -1) < 0 ||
	    fclose(f))
		return 1;
	return 0;
}

static FILE *stk_f;

__attribute__((noipa)) static long stk_b(long n)
{
	GP_DEEP(n, n + 1, n + 2);
	fprintf(stk_f, "%lu %lu ", (unsigned long)__builtin_return_address(0),
		(unsigned long)__builtin_frame_address(0));
	return n;
}

__attribute__((noipa)) static long stk_a(long n)
{
	long r = stk_b(n);

	fprintf(stk_f, "%lu ", (unsigned long)__builtin_return_address(0));
	return r + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int fd;

	if (argc > 2 && !strcmp(argv[1], "stack")) {
		/* main's own call, not a tail call: its frame stays */
		stk_f = fopen(argv[2], "w");
		if (!stk_f || stk_a(41) != 42 ||
		    fprintf(stk_f, "%lu %lu %lu\n", (unsigned long)stk_a,
			    (unsigned long)stk_b, (unsigned long)main) < 0)
			return 1;
		return fclose(stk_f) != 0;
	}
	if (argc > 2 && !strcmp(argv[1], "proc"))
		return proc_run(argv[2]);
	if (argc > 3 && !strcmp(argv[1], "spin"))
		return spin_run(atol(argv[2]), argv[3]);
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || dup2(fd, 100) != 100)
		return 1;

	if (argc > 2 && !strcmp(argv[2], "-")) {
		char cue;

		if (read(0, &cue, 1) != 1)
			return 1;
	} else if (argc > 2) {
		sleep((unsigned)atoi(argv[2]));
	}
	for (long i = 0; i < n; i++) {
		if (sum10(i, i + 1, -2 - i, 3, 4, 5, 6, 7, -8 - i, 9000 + i) !=
			    9016 + i ||
		    excl(&i) != i)
			return 1;
		GP_MANY(i, i + 1, -2 - i, i * 1000, 5, 6, 7, 8, -9 - (int)i,
			'c');
		GP_NAME((int)i, argv[0]);
		DTRACE_PROBE3(gp, sdt, i * 3, -(int)i - 1, argv[0]);
		(void)getpid();
		if (write(100, argv[0], 3 + (size_t)i) != 3 + i ||
		    lseek(100, 4096 + i, SEEK_CUR) < 0 ||
		    lseek(101, 7, SEEK_SET) != -1)
			return 1;
	}
	return 0;
}
