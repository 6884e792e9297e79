// SPDX-License-Identifier: MIT
/*
 * dlholdprog.c - a second thread waits for a line on standard input
 * naming a library, dlopen()s it, calls its dlh_call(7) at once, and
 * ends the process with status 0 (2 if the library does not load).  The
 * main thread waits in pthread_join() meanwhile (the process is
 * multi-threaded when it loads).  With DLH_LATE set the main thread
 * first reads a line itself and only then starts the second thread (one
 * created while traced).  With DLH_URG set SIGURG is handled by exiting
 * 3: a SIGURG it did not ask for ends it.  With DLH_WAIT set the second
 * thread, after its call, reads standard input to its end before it
 * ends the process (it lives on until dtrace has read its maps).  With
 * DLH_LEADER_EXIT set the main thread leaves with pthread_exit() once
 * the second one is started (a process whose leader is a zombie while
 * it loads).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *loader(void *arg)
{
	char path[4096];
	void *h;
	void (*call)(int);

	(void)arg;
	if (!fgets(path, sizeof(path), stdin))
		exit(2);
	path[strcspn(path, "\n")] = 0;
	h = dlopen(path, RTLD_NOW);
	call = h ? (void (*)(int))dlsym(h, "dlh_call") : NULL;
	if (!call) {
		fprintf(stderr, "dlholdprog: %s\n", dlerror());
		exit(2);
	}
	call(7);
	if (getenv("DLH_WAIT"))
		while (fgets(path, sizeof(path), stdin))
			;
	exit(0);
}

static void urg(int sig)
{
	(void)sig;
	_exit(3);
}

int main(void)
{
	pthread_t t;

	if (getenv("DLH_URG"))
		signal(SIGURG, urg);
	if (getenv("DLH_LATE")) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 2;
	}
	if (pthread_create(&t, NULL, loader, NULL) != 0)
		return 2;
	if (getenv("DLH_LEADER_EXIT"))
		pthread_exit(NULL);
	pthread_join(t, NULL);
	return 2;
}
