// SPDX-License-Identifier: MIT
/*
 * prov_input.c - getting a provider file's text: read it, or run the C
 * preprocessor over it (dtrace -C).
 *
 * The preprocessor is $CPP if set (split on blanks, so CPP="gcc -E"
 * works; no shell is involved), else the one chosen at configure time.
 * It is run as
 *
 *	CPP -x c -D__SUNW_D=1 -Ulinux -Uunix [user -I/-D/-U ...] FILE
 *
 * `-x c` because gcc's driver would take a .d file for linker input;
 * `linux` and `unix` are GNU predefined macros that would silently turn a
 * provider or probe of that name into "1".  The preprocessor's own
 * messages go straight to our stderr; its output comes back through a
 * pipe, line markers included, so the parser can report positions in the
 * user's files.
 *
 * A provider file may hold `#` comment lines that cpp rejects as invalid
 * directives (libvirt's `# file: ...`; see prov_lex.c).  When it does, cpp
 * reads a copy from an anonymous file on its stdin instead (`-` in place
 * of FILE) with those lines blanked, behind a `# 1 "FILE"` marker so that
 * its messages and ours name the user's file and lines, and with
 * `-iquote DIR-OF-FILE` so that `#include "x.h"` still finds x.h beside
 * the file.  A file without such lines is given to cpp untouched.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grow.h"
#include "prov_impl.h"

extern char **environ;

static int diag_errno(struct prov_diag *d, const char *path, int err,
		      const char *what)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->file, sizeof(d->file), "%s", path);
	snprintf(d->msg, sizeof(d->msg), "%s %s: %s", what, path,
		 strerror(err));
	return -err;
}

/* Read all of fd into a NUL-terminated buffer. */
static int slurp(int fd, char **buf, size_t *len)
{
	struct sbuf sb = {0};
	int err = sbuf_read_fd(&sb, fd);

	if (err) {
		free(sb.b);
		return err;
	}
	*buf = sb.b;
	*len = sb.len;
	return 0;
}

/*
 * The script at path opened to be read: its descriptor, or -errno with
 * the reason in diag (a directory opens, but is no script).
 */
static int script_open(const char *path, struct prov_diag *diag)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_errno(diag, path, errno, "cannot open");
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return diag_errno(diag, path, EISDIR, "cannot read");
	}
	return fd;
}

int prov_read_file(const char *path, char **buf, size_t *len,
		   struct prov_diag *diag)
{
	int fd, err;

	fd = script_open(path, diag);
	if (fd < 0)
		return fd;
	err = slurp(fd, buf, len);
	close(fd);
	if (err)
		return diag_errno(diag, path, -err, "cannot read");
	if (memchr(*buf, '\0', *len)) {
		free(*buf);
		*buf = NULL;
		memset(diag, 0, sizeof(*diag));
		snprintf(diag->file, sizeof(diag->file), "%s", path);
		snprintf(diag->msg, sizeof(diag->msg),
			 "%s holds NUL bytes: it is not a D source file", path);
		return -EINVAL;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -(w < 0 ? errno : EIO);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * If path holds comment `#` lines, an anonymous file with its text, those
 * lines blanked, behind a line marker naming path; else -1 with *err 0.
 */
static int cleaned_copy(const char *path, struct prov_diag *diag, int *err)
{
	char *text = NULL, *marker = NULL;
	size_t len = 0, o = 0;
	int fd = -1;

	*err = prov_read_file(path, &text, &len, diag);
	if (*err)
		return -1;
	if (prov_blank_hash_comments(text, len) == 0) {
		free(text);
		return -1;
	}
	marker = malloc(2 * strlen(path) + 16);
	if (!marker) {
		*err = -ENOMEM;
		goto out;
	}
	o = (size_t)sprintf(marker, "# 1 \"");
	for (const char *c = path; *c; c++) {
		if (*c == '"' || *c == '\\')
			marker[o++] = '\\';
		marker[o++] = *c;
	}
	o += (size_t)sprintf(marker + o, "\"\n");
	fd = memfd_create("provider-file", MFD_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		goto out;
	}
	*err = write_all(fd, marker, o);
	if (!*err)
		*err = write_all(fd, text, len);
	if (!*err && lseek(fd, 0, SEEK_SET) < 0)
		*err = -errno;
	if (*err) {
		close(fd);
		fd = -1;
	}
out:
	if (*err)
		diag_errno(diag, path, -*err, "cannot preprocess");
	free(marker);
	free(text);
	return fd;
}

int prov_run_cpp(const char *path, const struct prov_opts *opts, char **buf,
		 size_t *len, struct prov_diag *diag)
{
	static const char *const fixed[] = {
		"-x", "c", "-D__SUNW_D=1", "-Ulinux", "-Uunix",
	};
	const char *cmd = opts->cpp_cmd;
	char *words = NULL, *save = NULL, *w;
	const char **argv = NULL;
	size_t argc = 0, max;
	posix_spawn_file_actions_t fa;
	int pfd[2] = {-1, -1}, status, err, fd, in = -1;
	char *quotedir = NULL;
	pid_t pid;

	memset(diag, 0, sizeof(*diag));
	*buf = NULL;
	/* fail early, with the plain message, if the file is unreadable */
	fd = script_open(path, diag);
	if (fd < 0)
		return fd;
	close(fd);
	in = cleaned_copy(path, diag, &err);
	if (err)
		return err;
	if (in >= 0) {
		const char *slash = strrchr(path, '/');

		if (asprintf(&quotedir, "-iquote%.*s",
			     slash ? (int)(slash - path) + 1 : 1,
			     slash ? path : ".") < 0) {
			quotedir = NULL;
			err = -ENOMEM;
			snprintf(diag->msg, sizeof(diag->msg), "out of memory");
			goto out;
		}
	}

	if (!cmd || !*cmd)
		cmd = getenv("CPP");
	if (!cmd || !*cmd)
		cmd = DTRACE_DEFAULT_CPP;
	words = strdup(cmd);
	max = strlen(cmd) / 2 + 2 + sizeof(fixed) / sizeof(fixed[0]) +
	      opts->cpp_argc + 3;
	argv = calloc(max, sizeof(*argv));
	if (!words || !argv) {
		err = -ENOMEM;
		snprintf(diag->msg, sizeof(diag->msg), "out of memory");
		goto out;
	}
	for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	if (argc == 0) {
		err = -EINVAL;
		snprintf(diag->msg, sizeof(diag->msg),
			 "the preprocessor command is empty");
		goto out;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[argc++] = fixed[i];
	for (unsigned i = 0; i < opts->cpp_argc; i++)
		argv[argc++] = opts->cpp_argv[i];
	if (in >= 0)
		argv[argc++] = quotedir;
	argv[argc++] = in >= 0 ? "-" : path;
	argv[argc] = NULL;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err = diag_errno(diag, path, errno, "cannot preprocess");
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
			   environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (err) {
		snprintf(diag->msg, sizeof(diag->msg),
			 "cannot run the preprocessor '%s': %s", argv[0],
			 strerror(err));
		snprintf(diag->hint, sizeof(diag->hint),
			 "install cpp, or name one with the CPP environment variable");
		err = -err;
		goto out;
	}
	err = slurp(pfd[0], buf, len);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err) {
		diag_errno(diag, path, -err, "cannot preprocess");
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(diag->msg, sizeof(diag->msg),
			 WIFEXITED(status) ?
			 "the preprocessor '%s' failed (exit status %d)" :
			 "the preprocessor '%s' was killed by signal %d",
			 argv[0], WIFEXITED(status) ? WEXITSTATUS(status) :
						      WTERMSIG(status));
		err = -EINVAL;
		goto out;
	}
	err = 0;
out:
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (in >= 0)
		close(in);
	free(quotedir);
	free(argv);
	free(words);
	return err;
}
