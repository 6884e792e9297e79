// SPDX-License-Identifier: MIT
/*
 * ctl.c - a program with probes (provider hdt, and hdlib from libhdl.so)
 * that tests/run-helperd.sh steers through its life, one command per
 * line on stdin, each acknowledged on stdout once done:
 *
 *	open PATH	dlopen PATH (a plugin with probes) -> "opened"
 *	close		dlclose it -> "closed"
 *	fork		fork a child that sleeps until killed -> "forked PID"
 *	fork2		fork a child that forks a grandchild, both sleeping
 *			until killed -> "forked2 CHILD GRANDCHILD" (from the
 *			child)
 *	exec PROG ARG	execvp PROG ARG (the probes' image is gone)
 *	quit		exit(0) (drti's destructor sends REMOVE)
 *
 * End of input also exits.  `ctl quick` exits at once (the test's
 * thousand short-lived processes).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hdt.h"

int hdl_call(int x);

int main(int argc, char **argv)
{
	char line[512];
	void *plug = NULL;

	HDT_START(argc);
	hdl_call(argc);
	if (argc > 1 && !strcmp(argv[1], "quick"))
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		char *arg;

		line[strcspn(line, "\n")] = '\0';
		arg = strchr(line, ' ');
		if (arg)
			*arg++ = '\0';
		HDT_COMMAND(line, (int)strlen(line));
		if (!strcmp(line, "open") && arg) {
			plug = dlopen(arg, RTLD_NOW);
			if (!plug) {
				printf("error %s\n", dlerror());
				continue;
			}
			printf("opened\n");
		} else if (!strcmp(line, "close") && plug) {
			dlclose(plug);
			plug = NULL;
			printf("closed\n");
		} else if (!strcmp(line, "fork")) {
			pid_t pid = fork();

			if (pid == 0) {
				for (;;)
					pause();
			}
			printf("forked %d\n", (int)pid);
		} else if (!strcmp(line, "fork2")) {
			if (fork() == 0) {
				pid_t g = fork();

				if (g == 0) {
					for (;;)
						pause();
				}
				printf("forked2 %d %d\n", (int)getpid(), (int)g);
				fflush(stdout);
				for (;;)
					pause();
			}
		} else if (!strcmp(line, "exec") && arg) {
			char *arg2 = strchr(arg, ' ');

			if (arg2)
				*arg2++ = '\0';
			fflush(stdout);
			execlp(arg, arg, arg2, (char *)NULL);
			printf("error exec %s\n", arg);
		} else if (!strcmp(line, "quit")) {
			return 0;
		} else {
			printf("error unknown command '%s'\n", line);
		}
	}
	return 0;
}
