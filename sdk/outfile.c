// SPDX-License-Identifier: MIT
/*
 * outfile.c - all-or-nothing output files (see outfile.h).
 *
 * Temporary files are registered with signal handlers (tmpfiles_track)
 * that remove them on SIGINT, SIGTERM and SIGHUP.  The handler only calls
 * unlink(2), which is async-signal-safe, then re-raises the signal with
 * the default action so the exit status still tells the shell what
 * happened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/*
 * The tracked temporary files.  The handler walks the array while the
 * main program may be changing it, so every change happens with the
 * signals blocked, and slots are pointers the handler reads atomically.
 */
static const char *volatile *tracked;
static volatile size_t ntracked;
static size_t cap_tracked;

static const int cleanup_sigs[] = { SIGINT, SIGTERM, SIGHUP };

static void cleanup_on_signal(int sig)
{
	for (size_t i = 0; i < ntracked; i++)
		if (tracked[i])
			unlink(tracked[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(cleanup_sigs) / sizeof(cleanup_sigs[0]); i++)
		sigaddset(&set, cleanup_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void install_handlers(void)
{
	static int installed;
	struct sigaction sa;

	if (installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(cleanup_sigs) / sizeof(cleanup_sigs[0]); i++) {
		struct sigaction old;

		/* leave signals the caller chose to ignore ignored */
		if (sigaction(cleanup_sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(cleanup_sigs[i], &sa, NULL);
	}
	installed = 1;
}

void tmpfiles_track(const char *path)
{
	sigset_t old;

	install_handlers();
	block(&old);
	if (ntracked == cap_tracked) {
		size_t cap = cap_tracked ? cap_tracked * 2 : 16;
		const char *volatile *n = realloc((void *)tracked,
						  cap * sizeof(*n));

		if (!n) {
			/* untracked: the file may outlive a signal */
			sigprocmask(SIG_SETMASK, &old, NULL);
			return;
		}
		tracked = n;
		cap_tracked = cap;
	}
	tracked[ntracked] = path;
	ntracked = ntracked + 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void tmpfiles_untrack(const char *path)
{
	sigset_t old;

	block(&old);
	for (size_t i = 0; i < ntracked; i++) {
		if (tracked[i] != path)
			continue;
		tracked[i] = tracked[ntracked - 1];
		ntracked = ntracked - 1;
		break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int outfile_open(struct outfile *of, const char *path, int mode)
{
	struct stat st;
	char *dcopy = NULL;
	mode_t um;
	int fd, err;

	memset(of, 0, sizeof(*of));
	of->mode = mode;
	of->path = strdup(path);
	if (!of->path)
		return -ENOMEM;
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			err = -EISDIR;
			goto fail;
		}
		of->fp = fopen(path, "w");
		if (!of->fp) {
			err = -errno;
			goto fail;
		}
		return 0;
	}
	dcopy = strdup(path);
	if (!dcopy) {
		err = -ENOMEM;
		goto fail;
	}
	{
		const char *dir = dirname(dcopy);
		const char *base = strrchr(path, '/');
		size_t n;

		base = base ? base + 1 : path;
		n = strlen(dir) + strlen(base) + 16;
		of->tmp = malloc(n);
		if (!of->tmp) {
			err = -ENOMEM;
			goto fail;
		}
		snprintf(of->tmp, n, "%s/.%s.XXXXXX", dir, base);
	}
	tmpfiles_track(of->tmp);
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		tmpfiles_untrack(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
		goto fail;
	}
	/* mkstemp makes 0600; give the file the usual permissions */
	um = umask(0);
	umask(um);
	if (fchmod(fd, (mode_t)mode & ~um) < 0) {
		err = -errno;
		close(fd);
		goto fail_tmp;
	}
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		err = -errno;
		close(fd);
		goto fail_tmp;
	}
	free(dcopy);
	return 0;
fail_tmp:
	unlink(of->tmp);
	tmpfiles_untrack(of->tmp);
fail:
	free(dcopy);
	free(of->tmp);
	free(of->path);
	memset(of, 0, sizeof(*of));
	return err;
}

void outfile_abort(struct outfile *of)
{
	if (of->fp && of->fp != stdout)
		fclose(of->fp);
	if (of->tmp) {
		unlink(of->tmp);
		tmpfiles_untrack(of->tmp);
	}
	free(of->tmp);
	free(of->path);
	memset(of, 0, sizeof(*of));
}

int outfile_commit(struct outfile *of)
{
	int err = 0;

	if (of->fp == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = -errno ? -errno : -EIO;
		of->fp = NULL;
	} else if (of->fp) {
		if (ferror(of->fp))
			err = -EIO;
		if (fclose(of->fp) != 0 && !err)
			err = -errno;
		of->fp = NULL;
	}
	if (!err && of->tmp && rename(of->tmp, of->path) < 0)
		err = -errno;
	if (err) {
		outfile_abort(of);
		return err;
	}
	if (of->tmp)
		tmpfiles_untrack(of->tmp);
	free(of->tmp);
	free(of->path);
	memset(of, 0, sizeof(*of));
	return 0;
}
