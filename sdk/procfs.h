/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - the one reader of /proc/PID files in usdt-sdk (procfs.c):
 * their paths, small files whole (stat, status), any file whole (maps,
 * auxv), maps parsed, the files a process maps executable (each once),
 * and a path that opens the very file a mapping maps (map_files); and
 * the numeric entries of /proc (the processes) or /proc/PID/task (a
 * process's threads).
 *
 * dtrace-helperd checks that probe sites lie in executable mappings and
 * finds the file that holds a DOF; `dtrace -l -p`, the pid provider and
 * the tracer find the files a process maps.  Each line of maps is
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

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Build "/proc/PID/" followed by the printf-formatted name in buf: 0, or
 * -ENAMETOOLONG (buf then holds a truncated path that opens nothing).
 */
int proc_path(char *buf, size_t size, pid_t pid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The processes (pid 0: /proc) or pid's threads (/proc/PID/task), one
 * id each proc_dir_next() call, in readdir()'s order, the other entries
 * ("self", "sys" ...) passed over; 0 at the end (a readdir() that
 * fails ends it too).  proc_dir_open() gives NULL with errno set
 * (ENOENT: no such process); closedir() ends the walk:
 *
 *	DIR *d = proc_dir_open(pid);
 *	pid_t tid;
 *
 *	if (!d)
 *		return -errno;
 *	while ((tid = proc_dir_next(d)) > 0)
 *		...
 *	closedir(d);
 */
DIR *proc_dir_open(pid_t pid);
pid_t proc_dir_next(DIR *d);

/*
 * Read /proc/pid/name whole, whatever its size (maps, auxv): a malloc'ed
 * buffer with a NUL after the bytes read, their count in *len unless len
 * is NULL; else NULL with errno set (ENOENT: no such process; ENOMEM; a
 * read that failed part way, as when the process exits meanwhile, is a
 * failure: the text would not be the whole of it).
 */
char *proc_read_text(pid_t pid, const char *name, size_t *len);

/*
 * The value of one auxv entry of pid (AT_BASE, AT_ENTRY ...) in *val:
 * 0, -ENOENT when the vector has no such entry, or -errno.
 */
int proc_auxv(pid_t pid, uint64_t type, uint64_t *val);

/*
 * Read /proc/pid/name (a small file: stat, status, ...) into buf, at most
 * size - 1 bytes, NUL-terminated: the length, or -ESRCH (no such process,
 * or it is gone), or -errno.
 */
ssize_t proc_read_file(pid_t pid, const char *name, char *buf, size_t size);

/* What the tracer and the registry read of a process's or thread's stat. */
struct proc_stat {
	char state;	/* field 3: R, S, D, T, t, Z ... */
	uint64_t start; /* field 22, starttime: clock ticks after boot */
};

/*
 * Parse the text of a stat file, "pid (comm) S ppid ...": its state and
 * starttime into *ps (unless NULL), its comm, which may hold ')' and
 * blanks, into comm cut to commlen - 1 bytes (unless comm is NULL or
 * commlen 0).  0, or -EINVAL when the text is not of that shape.
 */
int proc_stat_parse(const char *text, struct proc_stat *ps, char *comm,
		    size_t commlen);

/*
 * The same of /proc/pid/name, name "stat" or "task/TID/stat": 0, or
 * -ESRCH (no such process or thread), -EINVAL, -errno.
 */
int proc_stat_read(pid_t pid, const char *name, struct proc_stat *ps,
		   char *comm, size_t commlen);

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

/*
 * The files pid maps executable, each once: a mapping of a file (an
 * inode and an absolute path) with execute permission whose (dev, ino)
 * no earlier such mapping has.  Start with *k = 0; each call returns the
 * file's first executable mapping and moves *k past it, NULL at the end.
 *
 *	for (size_t k = 0; (m = proc_maps_next_file(&mm, &k));)
 */
const struct proc_map *proc_maps_next_file(const struct proc_maps *mm,
					   size_t *k);

/*
 * The length of m->path without the " (deleted)" the kernel appends when
 * the file was replaced or removed since it was mapped: the name the
 * process knew the file by.
 */
size_t proc_map_name_len(const struct proc_map *m);

/*
 * "/proc/PID/map_files/START-END": the file mapped there, even when it
 * was replaced or removed since; opening it needs CAP_SYS_ADMIN (and the
 * right to ptrace pid).  0 or -ENAMETOOLONG.
 */
int proc_map_files_path(char *buf, size_t size, pid_t pid,
			const struct proc_map *m);

/*
 * A path that reads the very file m maps: its map_files entry when that
 * can be read, else m's own path when the file there still has m's
 * inode; 0, or -ENOENT when neither does (the file was replaced and
 * map_files is closed to us: refused rather than another file read).
 */
int proc_map_open_path(char *buf, size_t size, pid_t pid,
		       const struct proc_map *m);

#endif /* USDT_PROCFS_H */
