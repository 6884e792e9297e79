// SPDX-License-Identifier: MIT
/*
 * replay.c - main() for a fuzz harness built without libFuzzer.
 *
 *	replay-HARNESS [-v] PATH...
 *
 * Feeds every file named, and every regular file in every directory named
 * (not recursively, in name order, dot files skipped), to the harness's
 * LLVMFuzzerTestOneInput() once, in a heap buffer of exactly the file's
 * size so that AddressSanitizer sees a read one byte past the end.  This
 * is how `make check` replays the inputs that once crashed a harness
 * (fuzz/regress/) with any compiler, sanitizers or not.
 *
 * Exit status: 0 when every input ran (a harness aborts on a broken
 * invariant, a sanitizer ends the process on a report), 2 when a path
 * cannot be read.  -v names each input on stderr before running it, so
 * a crash report follows the name of the input that caused it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Optional in a harness, as in libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static bool verbose;
static unsigned long nrun;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	uint8_t chunk[65536];

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n > cap) {
			uint8_t *nb;

			cap = (len + n) * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n",
					path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);

	/* exactly len bytes, as libFuzzer hands them over */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		if (verbose)
			fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	nrun++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int err = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || asprintf(&nn[n], "%s/%s", dir, e->d_name) < 0) {
			names = nn ? nn : names;
			err = -1;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!err && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			err = run_file(names[i]);
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	int i = 1, err = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		verbose = true;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [-v] FILE-OR-DIRECTORY...\n",
			argv[0]);
		return 2;
	}
	for (; i < argc && !err; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			err = -1;
		} else if (S_ISDIR(st.st_mode)) {
			err = run_dir(argv[i]);
		} else {
			err = run_file(argv[i]);
		}
	}
	if (err)
		return 2;
	printf("replay: %lu inputs ran\n", nrun);
	return 0;
}
