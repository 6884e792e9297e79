// SPDX-License-Identifier: MIT
/*
 * freeze.c - hold a running process still while its probes are armed,
 * as DTrace grabs it, for the backends that arm sites one at a time
 * (uprobe.c, bpf.c through it, fasttrap.c).
 *
 * Why.  A USDT semaphore goes up with the first armed site of its
 * probe, and in the kernel each site's semaphore goes up before its
 * breakpoint is written (uprobe_write_opcode() counts the reference
 * up, then replaces the page, and may sleep in between): a thread that
 * runs meanwhile sees its is-enabled guard true and takes a site that
 * is still a NOP, a hit nobody records.  A program that waits for its
 * guard and then fires at once (a child that exec'd a probed program,
 * tests/data/fork's fsrv2) loses its first hits that way.
 *
 * How.  Every thread is seized and interrupted (ptrace), the threads
 * created meanwhile too (the task list is read again until a round
 * finds none new), then let go where it was; a signal that arrived
 * meanwhile is delivered on release.  A process that cannot be seized
 * (a debugger has it) is armed running.  A -p process dlhold.c holds at
 * its dlopen()s is dtrace's tracee already: its threads are stopped and
 * resumed there (one entry, FROZEN_HELD, stands for them).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "consumer_impl.h"
#include "procfs.h"

/* an entry whose threads dlhold.c stopped */
#define FROZEN_HELD (-1)

size_t proc_freeze(pid_t pid, struct frozen **fz, size_t n)
{
	bool more = true;

	if (dlhold_owns(pid)) {
		if (dlhold_stop_all(pid) == 0) {
			*fz = xpush_room(*fz, n, sizeof(**fz));
			(*fz)[n++] = (struct frozen){pid, FROZEN_HELD};
		}
		return n;
	}

	for (int round = 0; more && round < 100; round++) {
		DIR *d = proc_dir_open(pid);
		pid_t tid;

		more = false;
		if (!d)
			break;
		while ((tid = proc_dir_next(d)) > 0) {
			struct frozen f = {tid, 0};
			bool seen = false;
			int st;

			for (size_t i = 0; i < n; i++)
				seen |= (*fz)[i].tid == tid;
			if (seen || ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
				continue;
			more = true;
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0 &&
			    waitpid(tid, &st, __WALL) == tid &&
			    WIFSTOPPED(st) && (st >> 16) != PTRACE_EVENT_STOP)
				f.sig = WSTOPSIG(st); /* a signal's stop */
			*fz = xpush_room(*fz, n, sizeof(**fz));
			(*fz)[n++] = f;
		}
		closedir(d);
	}
	return n;
}

void proc_thaw(struct frozen *fz, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fz[i].sig == FROZEN_HELD)
			dlhold_resume_all(fz[i].tid);
		else
			(void)ptrace(PTRACE_DETACH, fz[i].tid, NULL,
				     (void *)(long)fz[i].sig);
	free(fz);
}
