// SPDX-License-Identifier: MIT
/*
 * t-outfile.c - unit tests of all-or-nothing output (sdk/outfile.c): a
 * committed file has the content and usual permissions, an aborted one
 * leaves the previous file untouched and no temporary file behind.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "tap.h"

static char dir[] = "/tmp/t-outfile.XXXXXX";

static unsigned entries(void)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	if (!dp)
		return 9999;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

int main(void)
{
	struct outfile of;
	struct stat st;
	char path[256];
	mode_t old = umask(022);

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/out.h", dir);

	is_int(outfile_open(&of, path, 0666), 0, "open a new file");
	ok(access(path, F_OK) != 0, "target does not exist before commit");
	fputs("first\n", of.fp);
	is_int(outfile_commit(&of), 0, "commit");
	is_str(slurp(path), "first\n", "content written");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
	   "permissions 0666 minus the umask");
	is_int(entries(), 1, "no temporary file left after commit");

	is_int(outfile_open(&of, path, 0666), 0, "open over an existing file");
	fputs("second\n", of.fp);
	is_str(slurp(path), "first\n", "old content stays while writing");
	outfile_abort(&of);
	is_str(slurp(path), "first\n", "abort keeps the old content");
	is_int(entries(), 1, "no temporary file left after abort");

	is_int(outfile_open(&of, path, 0666), 0, "replace");
	fputs("third\n", of.fp);
	is_int(outfile_commit(&of), 0, "commit replacement");
	is_str(slurp(path), "third\n", "replaced atomically");

	is_int(outfile_open(&of, dir, 0666), -EISDIR, "a directory is refused");
	snprintf(path, sizeof(path), "%s/missing/out.h", dir);
	is_int(outfile_open(&of, path, 0666), -ENOENT,
	       "a missing directory is refused");
	is_int(outfile_open(&of, "/dev/null", 0666), 0,
	       "a device is written directly");
	ok(of.tmp == NULL, "no temporary file for a device");
	fputs("x", of.fp);
	is_int(outfile_commit(&of), 0, "commit to a device");
	ok(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode),
	   "/dev/null is still a device");

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		diag("could not remove %s", dir);
	umask(old);
	return tap_done();
}
