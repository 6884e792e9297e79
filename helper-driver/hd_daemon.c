// SPDX-License-Identifier: MIT
/*
 * hd_daemon.c - what makes dtrace-helperd a daemon: the state directory's
 * lock, going to the background, and telling systemd (helperd.h).
 *
 * The state directory is taken only if it and every directory above it
 * are root's alone (sdk/safedir.h), so no other user can swap a part of
 * the path for a link to a file of root's.  The lock is an flock on
 * <statedir>/helperd.pid, which also holds the daemon's pid for the
 * curious: two daemons never share a registry, and a daemon killed
 * outright leaves a file that the next one locks again.  The descriptor
 * budget (hd_fd_budget) is set here too: how many pidfds hd_reg.c may
 * hold in all and per user.
 * Going to the background is a fork whose parent waits on a pipe until
 * the child says it is serving (one byte) or dies (the pipe closes), so
 * `dtrace-helperd && start-servers` never starts the servers early.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helperd.h"
#include "registry.h"
#include "safedir.h"

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
void hd_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || !*path)
		return;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) <
	    0)
		hd_log(HD_WARN, "cannot notify systemd: %s", strerror(errno));
	close(fd);
}

/*
 * The state directory, and the registry directory in it, must be root's
 * alone (sdk/safedir.h): the parent before we create anything in it,
 * then the directories themselves.
 */
static int statedir_safe(const char *statedir)
{
	char path[PATH_MAX], msg[PATH_MAX + 128], *slash;

	snprintf(path, sizeof(path), "%s", statedir);
	slash = strrchr(path, '/');
	if (slash && slash != path) {
		*slash = '\0';
		if (safedir_check_parent(path, msg, sizeof(msg)) < 0)
			goto unsafe;
	}
	if (mkdir(statedir, 0755) < 0 && errno != EEXIST) {
		hd_log(HD_ERR, "cannot create %s: %s", statedir,
		       strerror(errno));
		return -1;
	}
	if (safedir_check(statedir, msg, sizeof(msg)) < 0)
		goto unsafe;
	snprintf(path, sizeof(path), "%s/%s", statedir, REG_DIR);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		hd_log(HD_ERR, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (safedir_check(path, msg, sizeof(msg)) < 0)
		goto unsafe;
	return 0;
unsafe:
	hd_log(HD_ERR, "unsafe state directory %s: %s (it and every "
	       "directory above it must be root's, writable by nobody else, "
	       "and no symbolic link)", statedir, msg);
	return -1;
}

int hd_lock_statedir(const char *statedir)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (statedir_safe(statedir) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/helperd.pid", statedir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		hd_log(HD_ERR, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		hd_log(HD_ERR, "another dtrace-helperd (pid %s) uses %s",
		       buf[0] ? buf : "?", statedir);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Descriptors: the soft RLIMIT_NOFILE is raised to the hard one (systemd
 * starts services with 1,024 soft), and a quarter of it, at most 256, is
 * kept for what the daemon opens to serve requests (the device, /proc
 * files, the checker's pipes, registry files).  The rest may be pidfds,
 * a quarter of them for the processes of any one user other than root.
 */
void hd_fd_budget(struct helperd *hd)
{
	struct rlimit rl;
	rlim_t n, reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = rl.rlim_max = 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max;

		if (want == RLIM_INFINITY || want > (1 << 20))
			want = 1 << 20;
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	n = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1 << 20)
		    ? 1 << 20
		    : rl.rlim_cur;
	reserve = n / 4 < 256 ? n / 4 : 256;
	hd->pidfd_max = (unsigned)(n - reserve);
	hd->pidfd_uid_max = hd->pidfd_max / 4 ? hd->pidfd_max / 4 : 1;
	hd_log(HD_DEBUG, "descriptors: %llu, up to %u pidfds (%u per user)",
	       (unsigned long long)n, hd->pidfd_max, hd->pidfd_uid_max);
}

void hd_write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		hd_log(HD_WARN, "cannot record the daemon's pid: %s",
		       strerror(errno));
}

void hd_device_file(struct helperd *hd, bool up)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], line[PATH_MAX + 2];
	int fd, n, err = 0;

	snprintf(path, sizeof(path), "%s/%s", hd->statedir, REG_DEVICE_FILE);
	if (!up) {
		if (unlink(path) < 0 && errno != ENOENT)
			hd_log(HD_WARN, "cannot remove %s: %s", path,
			       strerror(errno));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	n = snprintf(line, sizeof(line), "%s\n", hd->device);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0)
		err = errno;
	else if (write(fd, line, (size_t)n) != n)
		err = errno ? errno : EIO;
	if (fd >= 0 && close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err) {
		hd_log(HD_WARN, "cannot write %s: %s (readers of the registry "
		       "cannot wait for registrations being checked)", path,
		       strerror(err));
		unlink(tmp);
	}
}

/*
 * Background: the parent waits on a pipe until the child is ready (it
 * writes one byte) or has failed (the pipe closes), so a boot script's
 * `dtrace-helperd && start-servers` is never early.
 */
int hd_background(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0) {
		hd_log(HD_ERR, "pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		hd_log(HD_ERR, "fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

void hd_detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}
