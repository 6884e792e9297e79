/* SPDX-License-Identifier: MIT */
/*
 * dlswap: dlopen()s dlswapa.so and dlswapb.so in turn, each dlclose()d
 * before the next is opened, so that ld.so maps each at the address the
 * other had.  Each calls back probe_here(round & 1) through two frames
 * of its own (alpha or bravo): arg0 says which library's frames the
 * stack holds.  Usage: dlswap ROUNDS START_MS|- ROUND_MS DIR [BATCHES]
 * ("-": start once a line is read from stdin): each round, BATCHES (1)
 * times 10 calls and ROUND_MS of sleep, then the dlclose().
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void probe_here(long lib)
{
	__asm__ volatile("" ::"r"(lib) : "memory");
}

/* the library's function by its address, for ufunc() and its kin */
__attribute__((noinline)) void probe_fn(long lib, void *fn)
{
	__asm__ volatile("" ::"r"(lib), "r"(fn) : "memory");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	int round_ms = argc > 3 ? atoi(argv[3]) : 200;
	char path[4096];
	const char *dir = argc > 4 ? argv[4] : ".";
	int batches = argc > 5 ? atoi(argv[5]) : 1;

	if (argc > 2 && argv[2][0] == '-') {
		if (!fgets(path, sizeof(path), stdin))
			return 2;
	} else {
		usleep((argc > 2 ? atoi(argv[2]) : 500) * 1000);
	}
	for (int r = 0; r < rounds; r++) {
		const char *fn = r & 1 ? "bravo" : "alpha";
		void (*f)(void (*)(long), long);
		void *h;

		snprintf(path, sizeof(path), "%s/dlswap%c.so", dir,
			 r & 1 ? 'b' : 'a');
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlswap: %s\n", dlerror());
			return 1;
		}
		f = (void (*)(void (*)(long), long))dlsym(h, fn);
		for (int k = 0; k < batches; k++) {
			for (int i = 0; i < 10; i++) {
				f(probe_here, r & 1);
				probe_fn(r & 1, (void *)f);
			}
			usleep(round_ms * 1000);
		}
		dlclose(h);
	}
	return 0;
}
