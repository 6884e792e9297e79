// SPDX-License-Identifier: MIT
/*
 * safedir.c - safedir_check(): the state directory and every directory
 * above it are root's alone (safedir.h).
 *
 * The walk goes from / down, one component at a time, with lstat() on
 * the path so far, so a symbolic link anywhere is seen as one and never
 * followed.  "." and ".." components are refused rather than resolved:
 * the daemon's paths are absolute and plain, and resolving them here
 * would be a second path resolver to get right.
 */
#include "safedir.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int __attribute__((format(printf, 5, 6)))
bad(char *msg, size_t msglen, int err, const char *what, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(msg, msglen, "%s: %s", what[0] ? what : "/", why);
	return err;
}

static int check(const char *path, bool ancestor, char *msg, size_t msglen)
{
	char cur[PATH_MAX];
	size_t len = 0;
	const char *p = path;

	if (!path || path[0] != '/')
		return bad(msg, msglen, -EINVAL, path ? path : "",
			   "not an absolute path");
	if (strlen(path) >= sizeof(cur))
		return bad(msg, msglen, -ENAMETOOLONG, path, "path too long");
	cur[0] = '\0';
	for (;;) {
		struct stat st;
		const char *end;
		bool last;

		while (*p == '/')
			p++;
		end = p + strcspn(p, "/");
		last = !end[strspn(end, "/")];
		if (end > p) {
			size_t n = (size_t)(end - p);

			if ((n == 1 && p[0] == '.') ||
			    (n == 2 && p[0] == '.' && p[1] == '.'))
				return bad(msg, msglen, -EINVAL, path,
					   "'.' and '..' are not taken here");
			cur[len++] = '/';
			memcpy(cur + len, p, n);
			len += n;
			cur[len] = '\0';
		}
		if (lstat(len ? cur : "/", &st) < 0) {
			int err = -errno;

			return bad(msg, msglen, err, cur, "%s", strerror(-err));
		}
		if (S_ISLNK(st.st_mode))
			return bad(msg, msglen, -ELOOP, cur,
				   "is a symbolic link");
		if (!S_ISDIR(st.st_mode))
			return bad(msg, msglen, -ENOTDIR, cur,
				   "is not a directory");
		if (st.st_uid != 0)
			return bad(msg, msglen, -EPERM, cur,
				   "is owned by uid %lu, not by root",
				   (unsigned long)st.st_uid);
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		    ((last && !ancestor) || !(st.st_mode & S_ISVTX)))
			return bad(msg, msglen, -EPERM, cur,
				   "is writable by group or others (mode %04o)",
				   (unsigned)(st.st_mode & 07777));
		if (last)
			return 0;
		p = end;
	}
}

int safedir_check(const char *path, char *msg, size_t msglen)
{
	return check(path, false, msg, msglen);
}

int safedir_check_parent(const char *path, char *msg, size_t msglen)
{
	return check(path, true, msg, msglen);
}
