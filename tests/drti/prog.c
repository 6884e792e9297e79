// SPDX-License-Identifier: MIT
/*
 * prog.c - the host program of the drti tests.  Linked with drti.o and a
 * DOF blob it is a probed program; linked without them it is a plain host
 * that dlopens probed libraries.  It prints nothing of its own unless
 * something fails, so any output comes from drti.o.
 *
 *	prog                 exit 0
 *	prog fork            fork; the child exits through exit() so its
 *	                     destructors run; exit 0 if it exited cleanly
 *	prog dlopen LIB      dlopen LIB, call libprobe_hello if present,
 *	                     dlclose it, check it is really unmapped, then
 *	                     fork: a fork handler left behind by LIB would
 *	                     now jump into unmapped memory in the child
 *
 * Exit status: 0 fine, 2 usage or dlopen failure, 3 child killed by a
 * signal, 4 LIB still loaded after dlclose (the test is then meaningless).
 * -DPROG_NO_DLOPEN leaves the dlopen mode out, for static links.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fork_and_wait(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0)
		exit(0);
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "prog: child killed by signal %d\n",
			WTERMSIG(status));
		return 3;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 2;
}

#ifndef PROG_NO_DLOPEN
static int dlopen_close_fork(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*hello)(void);

	if (h == NULL) {
		fprintf(stderr, "prog: %s\n", dlerror());
		return 2;
	}
	*(void **)&hello = dlsym(h, "libprobe_hello");
	if (hello != NULL && hello() != 42)
		return 2;
	if (dlclose(h) != 0) {
		fprintf(stderr, "prog: dlclose: %s\n", dlerror());
		return 2;
	}
	h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	if (h != NULL) {
		fprintf(stderr, "prog: %s still loaded after dlclose\n", lib);
		return 4;
	}
	return fork_and_wait();
}
#endif

int main(int argc, char **argv)
{
	if (argc == 1)
		return 0;
	if (argc == 2 && strcmp(argv[1], "fork") == 0)
		return fork_and_wait();
#ifndef PROG_NO_DLOPEN
	if (argc == 3 && strcmp(argv[1], "dlopen") == 0)
		return dlopen_close_fork(argv[2]);
#endif
	fprintf(stderr, "usage: prog [fork | dlopen LIB]\n");
	return 2;
}
