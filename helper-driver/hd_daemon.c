// SPDX-License-Identifier: MIT
/*
 * hd_daemon.c - what makes dtrace-helperd a daemon: the state directory's
 * lock, going to the background, and telling systemd (helperd.h).
 *
 * The lock is an flock on <statedir>/helperd.pid, which also holds the
 * daemon's pid for the curious: two daemons never share a registry, and
 * a daemon killed outright leaves a file that the next one locks again.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helperd.h"

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

int hd_lock_statedir(const char *statedir)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (mkdir(statedir, 0755) < 0 && errno != EEXIST) {
		hd_log(HD_ERR, "cannot create %s: %s", statedir,
		       strerror(errno));
		return -1;
	}
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

void hd_write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		hd_log(HD_WARN, "cannot record the daemon's pid: %s",
		       strerror(errno));
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
