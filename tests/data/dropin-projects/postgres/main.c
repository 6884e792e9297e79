/*
 * The server: loads the extension ./ext.so as PostgreSQL loads its
 * modules, then runs N queries (argv[1], default 2), each through the
 * extension too.  With a second argument it first waits (5 s at most)
 * until the extension's probe is traced: a consumer that finds the
 * libraries a process dlopen()s by reading its maps again (ours, every
 * 100 ms) sees the extension a moment after it is loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void exec_query(int i);
void start_transaction(int i);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	void *ext = dlopen("./ext.so", RTLD_NOW);
	void (*ext_run)(int);
	int (*ext_traced)(void);

	if (!ext) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&ext_run = dlsym(ext, "ext_run");
	if (!ext_run) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&ext_traced = dlsym(ext, "ext_traced");
	if (!ext_traced) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	for (int t = 0; argc > 2 && !ext_traced() && t < 500; t++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	for (int i = 0; i < n; i++) {
		start_transaction(i);
		exec_query(i);
		ext_run(i);
	}
	return 0;
}
