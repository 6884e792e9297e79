// SPDX-License-Identifier: MIT
/*
 * actstr.c - strings at USDT probes, for tests/run-activation-str.sh:
 * -x activation=user copies them at the hit in the process
 * (drti/rec.c, doc/DESIGN.md §14), the kernel path with BPF.
 *
 * actstr MODE N: MODE "good" fires actstr:::req(i, word) N times from
 * each of 3 threads (four words), then a string crossing a page
 * boundary, one ending at the last byte of a page before a PROT_NONE
 * page, one of 5,000 bytes, and "" (req 1 to 5); actstr:::name(i, s)
 * with the words; req 6 and name 7 with buffers rewritten right after
 * the probe (short: "before", then "after!"; long: 4,095 'w', then 'z').
 * MODE "bad": req with NULL, 0x10, an unmapped page, a PROT_NONE page,
 * a string running into a PROT_NONE page with no NUL, then a word (the
 * process runs on).  MODE "seccomp": a seccomp filter that answers
 * EPERM to process_vm_readv(), installed at start (after dtrace armed
 * a -c command), then "good"'s words.  Last actstr:::name(99, "end"),
 * and "done N" printed at its end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actstr.h"

static const char *const words[] = { "alpha", "beta", "gamma", "delta" };
static long n;
static char wbuf[4096];

static void *thr(void *p)
{
	long t = (long)p;

	for (long i = 0; i < n; i++)
		ACTSTR_REQ((int)(t * 1000 + i), (char *)words[(i + t) % 4]);
	return NULL;
}

static void words_from_threads(void)
{
	pthread_t th[3];

	for (long t = 0; t < 3; t++)
		pthread_create(&th[t], NULL, thr, (void *)t);
	for (int t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < 4; i++)
		ACTSTR_NAME(i, (char *)words[i]);
}

static int deny_vm_readv(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m;

	if (argc < 3)
		return 2;
	n = atol(argv[2]);
	/* three pages: RW, RW, PROT_NONE; a fourth unmapped */
	/* at a fixed address: the faults' addresses the same every run */
	m = mmap((void *)0x600000000000, 4 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	munmap(m + 3 * pg, pg);
	mprotect(m + 2 * pg, pg, PROT_NONE);
	if (!strcmp(argv[1], "good")) {
		static char big[5001];

		words_from_threads();
		/* across pages 0 and 1 */
		strcpy(m + pg - 3, "crossing");
		ACTSTR_REQ(1, m + pg - 3);
		/* its NUL the last byte before the PROT_NONE page */
		memset(m + pg, 'e', pg - 1);
		m[2 * pg - 1] = '\0';
		ACTSTR_REQ(2, m + 2 * pg - 6);
		ACTSTR_REQ(3, m + pg);
		memset(big, 'x', 5000);
		big[5000] = '\0';
		ACTSTR_REQ(4, big);
		ACTSTR_REQ(5, (char *)"");
		/* rewritten right after the probe: what it held at the hit */
		strcpy(m, "before");
		ACTSTR_REQ(6, m);
		strcpy(m, "after!");
		memset(wbuf, 'w', sizeof(wbuf) - 1);
		ACTSTR_NAME(7, wbuf);
		memset(wbuf, 'z', sizeof(wbuf) - 1);
	} else if (!strcmp(argv[1], "bad")) {
		ACTSTR_REQ(1, NULL);
		ACTSTR_REQ(2, (char *)0x10);
		ACTSTR_REQ(3, m + 3 * pg);
		ACTSTR_REQ(4, m + 2 * pg + 8);
		memset(m + pg, 'y', pg);
		ACTSTR_REQ(5, m + 2 * pg - 20);
		ACTSTR_REQ(6, (char *)words[1]);
	} else if (!strcmp(argv[1], "seccomp")) {
		if (deny_vm_readv() < 0)
			return 4;
		words_from_threads();
	} else {
		return 2;
	}
	/*
	 * ACTSTR_WAIT=FILE: alive until FILE exists, so that a string
	 * dtrace reads when it runs the record (the kernel path's cut or
	 * failed copies) is read from this process, not from one gone
	 */
	ACTSTR_NAME(99, (char *)"end");
	if (getenv("ACTSTR_WAIT"))
		while (access(getenv("ACTSTR_WAIT"), F_OK) != 0)
			usleep(1000);
	printf("done %ld\n", n);
	return 0;
}
