// SPDX-License-Identifier: MIT
/*
 * dlholdprog.c - waits for a line on standard input naming a library,
 * then dlopen()s it in a second thread (the main thread meanwhile
 * blocked in read(), so the process is multi-threaded when it loads),
 * calls its dlh_call(7) at once, and exits 0; 2 if the library does not
 * load.  Signals it did not ask for (SIGTRAP, SIGURG handled) would
 * end it otherwise.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[4096];
static int status;

static void *loader(void *arg)
{
	void *h = dlopen(path, RTLD_NOW);
	void (*call)(int) = h ? (void (*)(int))dlsym(h, "dlh_call") : NULL;

	(void)arg;
	if (!call) {
		fprintf(stderr, "dlholdprog: %s\n", dlerror());
		status = 2;
		return NULL;
	}
	call(7);
	return NULL;
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
	if (!fgets(path, sizeof(path), stdin))
		return 2;
	path[strcspn(path, "\n")] = 0;
	if (pthread_create(&t, NULL, loader, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	return status;
}
