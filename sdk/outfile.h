/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - write a file so that it is either complete or untouched.
 *
 * Output goes to a temporary file beside the target, which is renamed
 * over the target only once everything was written.  A failed or
 * interrupted run (SIGINT, SIGTERM, SIGHUP) removes the temporary file;
 * the previous target, if any, stays exactly as it was.  Targets that
 * are not regular files (/dev/stdout, a FIFO) and "-" are written
 * directly.
 */
#ifndef USDT_OUTFILE_H
#define USDT_OUTFILE_H

#include <stdio.h>

struct outfile {
	char *path;	/* the target */
	char *tmp;	/* temporary name, NULL when writing directly */
	FILE *fp;
	int mode;	/* permissions for a new file, before the umask */
};

/* Open for writing; 0 or -errno.  mode as for open(2), e.g. 0666. */
int outfile_open(struct outfile *of, const char *path, int mode);

/* Flush, close and move into place; 0 or -errno (then as outfile_abort). */
int outfile_commit(struct outfile *of);

/* Throw away what was written; the target is left untouched. */
void outfile_abort(struct outfile *of);

/*
 * Temporary files to remove if SIGINT, SIGTERM or SIGHUP arrives while
 * they exist.  `path` must stay valid until it is untracked.
 */
void tmpfiles_track(const char *path);
void tmpfiles_untrack(const char *path);

#endif /* USDT_OUTFILE_H */
