/* SPDX-License-Identifier: MIT */
/*
 * safedir.h - a directory root can trust: no other user can change what
 * is in it, now or later.
 *
 * dtrace-helperd runs as root and creates, replaces and deletes files in
 * its state directory.  If any directory on the way there belonged to
 * another user, or another user could write to it, that user could swap
 * a component for a symbolic link while the daemon works and make it
 * write or delete a file of root's anywhere (a `registry` link to /etc
 * did just that).  So the daemon only takes a directory that is, and
 * whose every ancestor is, a real directory (never a symbolic link)
 * owned by root and writable by nobody else -- an ancestor may be
 * world-writable when it is sticky, like /tmp, since then nobody else
 * can rename or delete what root made there.  Once that holds, only root
 * can change the answer, so checking once at start-up is enough.
 */
#ifndef USDT_SAFEDIR_H
#define USDT_SAFEDIR_H

#include <stddef.h>

/*
 * 0 when the absolute path names such a directory; else -errno (-ENOENT:
 * it does not exist; -EPERM: it or an ancestor is not safe; -ENOTDIR,
 * -ELOOP: a component is a file or a symbolic link), with a message in
 * msg naming the component and what is wrong with it.
 */
int safedir_check(const char *path, char *msg, size_t msglen);

/*
 * The same for a directory to create something in: it may itself be
 * world-writable when sticky, as its ancestors may.
 */
int safedir_check_parent(const char *path, char *msg, size_t msglen);

#endif
