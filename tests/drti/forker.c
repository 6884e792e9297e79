// SPDX-License-Identifier: MIT
/*
 * forker.c - an application destructor that forks.  Linked before drti.o,
 * its .fini_array entry comes first and so runs after drti.o's destructor
 * (the array runs backwards), but before crtbeginS's __cxa_finalize drops
 * the program's fork handlers.  In that window drti.o's handler is still
 * registered; the child must not register a DOF drti.o just withdrew.
 */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((destructor)) static void forker_fini(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, (int *)0, 0);
}
