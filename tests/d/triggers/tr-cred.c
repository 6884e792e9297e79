/* SPDX-License-Identifier: MIT */
/*
 * tr-cred.c - a trigger for tests/d/ (a tst.NAME.d.trigger names it): a
 * process that changes its credentials and its session between two
 * hits, so uid, gid and the like are tested as they are at each hit and
 * not as they were when dtrace took up the process.
 *
 *	tr-cred [UID GID]	tr_cred(0); setsid(); setresgid(GID,
 *				65532, 0); setresuid(UID, 65531, 0);
 *				tr_cred(1)
 *				(UID 65534 and GID 65533 by default: the
 *				real ids, the effective ones 65531 and
 *				65532, root saved)
 *
 * Run as root (as dtrace -c runs it): exit status 1 when the ids cannot
 * be changed.  It writes nothing on standard output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <grp.h>
#include <stdlib.h>
#include <unistd.h>

/* never inlined, cloned or given another signature: the probed function
 * is the one called, with the argument the C source passes */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

int tr_cred(int step);

NOINLINE int tr_cred(int step)
{
	__asm__ volatile("" ::: "memory");
	return step;
}

int main(int argc, char **argv)
{
	uid_t uid = argc > 2 ? (uid_t)atoi(argv[1]) : 65534;
	gid_t gid = argc > 2 ? (gid_t)atoi(argv[2]) : 65533;

	tr_cred(0);
	if (setsid() < 0 || setgroups(0, NULL) < 0 ||
	    setresgid(gid, 65532, 0) < 0 ||
	    setresuid(uid, 65531, 0) < 0)
		return 1;
	tr_cred(1);
	return 0;
}
