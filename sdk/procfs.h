/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - the one reader of /proc/PID files in usdt-sdk (procfs.c):
 * small files whole (stat, status), and maps, parsed.
 *
 * dtrace-helperd checks that probe sites lie in executable mappings and
 * finds the file that holds a DOF; `dtrace -l -p` and the tracer find
 * the files a process maps.  Each line of the file is
 *
 *	start-end perms offset major:minor inode   path
 *	55d0c8a00000-55d0c8a01000 r-xp 00001000 fe:01 1234   /usr/bin/myapp
 *
 * (hex, hex, four letters, hex, hex:hex, decimal, then the path, padded
 * with blanks; anonymous mappings have none, and a file that was
 * replaced or removed ends in " (deleted)", which is kept).  A line that
 * does not have that shape is skipped, not an error: the kernel owns the
 * format, and a path may hold any byte but a newline.
 */
#ifndef USDT_PROCFS_H
#define USDT_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Read /proc/pid/name (a small file: stat, status, ...) into buf, at most
 * size - 1 bytes, NUL-terminated: the length, or -ESRCH (no such process,
 * or it is gone), or -errno.
 */
ssize_t proc_read_file(pid_t pid, const char *name, char *buf, size_t size);

struct proc_map {
	uint64_t start, end; /* [start, end) */
	uint64_t off;	     /* file offset of start */
	uint64_t dev;	     /* makedev(major, minor), like st_dev; 0: no file */
	uint64_t ino;	     /* 0 when the mapping is not a file's */
	char perms[5];	     /* "r-xp", NUL-terminated */
	char *path;	     /* malloc'ed; "" for an anonymous mapping */
};

struct proc_maps {
	struct proc_map *m; /* in address order, as the kernel lists them */
	size_t n;
};

/* Read /proc/pid/maps.  0, -ESRCH (no such process) or -errno. */
int proc_maps_read(pid_t pid, struct proc_maps *mm);

/* Parse the text of a maps file (NUL-terminated).  0 or -ENOMEM. */
int proc_maps_parse(const char *text, struct proc_maps *mm);

void proc_maps_free(struct proc_maps *mm);

/* The mapping containing addr, or NULL. */
const struct proc_map *proc_maps_find(const struct proc_maps *mm,
				      uint64_t addr);

#endif /* USDT_PROCFS_H */
