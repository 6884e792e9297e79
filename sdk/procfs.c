// SPDX-License-Identifier: MIT
/*
 * procfs.c - reading /proc/PID files (procfs.h).
 *
 * Small files are read with one read(2): the kernel produces them whole
 * (up to a page) on the first read, so a single call sees one consistent
 * snapshot.  A missing directory means the process does not exist.
 *
 * A stat file is parsed in one place (proc_stat_parse()): its comm may
 * hold ')' and blanks, so the fields after it are counted from the last
 * ')', which every reader that split it itself had to get right.
 *
 * The maps parser is hand-rolled rather than sscanf(): the helper reads a
 * process's maps on every registration, and sscanf() was a third of a
 * registration's time.  Every number is checked for overflow; a line of any
 * other shape is skipped.  The file is read whole before it is parsed, so one
 * parser serves readers that keep the text (to see whether it changed) and
 * readers that do not.
 *
 * The files a process maps executable are walked in one place
 * (proc_maps_next_file()): every reader of a process's code -- its
 * probes for `dtrace -l -p`, the pid provider's functions, the tracer's
 * sites, the C types of -c/-p targets -- wants each file once, and a
 * file is mapped executable more than once when a library is loaded
 * twice in separate namespaces or a segment is split.  A file is
 * identified by the (dev, ino) maps gives, not by its path: a file
 * replaced since it was mapped keeps its path and changes its inode.
 * Which earlier mappings are files is asked again for each one rather
 * than kept in a set: a process maps a few thousand regions at most, and
 * the walk then needs no memory and has no failure.
 *
 * The walks over /proc's processes and a process's threads are one
 * (proc_dir_open(), proc_dir_next()): an entry is an id when it is a
 * decimal number that fits a pid_t, nothing else ("self",
 * "thread-self", "sys" ... and any name the kernel adds later).
 *
 * A mapped file is read through /proc/PID/map_files/START-END, which is
 * the mapping's own file even after it was replaced or removed; where
 * map_files is closed (it needs CAP_SYS_ADMIN) the path serves only
 * while it still names the inode mapped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "grow.h"
#include "procfs.h"

int proc_path(char *buf, size_t size, pid_t pid, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, size, "/proc/%d/", (int)pid);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= size - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

DIR *proc_dir_open(pid_t pid)
{
	char path[64];
	int err;

	if (pid == 0)
		return opendir("/proc");
	err = proc_path(path, sizeof(path), pid, "task");
	if (err < 0) {
		errno = -err;
		return NULL;
	}
	return opendir(path);
}

pid_t proc_dir_next(DIR *d)
{
	struct dirent *de;

	while ((de = readdir(d))) {
		char *end;
		long id;

		errno = 0;
		id = strtol(de->d_name, &end, 10);
		if (!*end && end != de->d_name && !errno && id > 0 &&
		    id <= INT_MAX)
			return (pid_t)id;
	}
	return 0;
}

char *proc_read_text(pid_t pid, const char *name, size_t *len)
{
	char path[PATH_MAX];
	int err = proc_path(path, sizeof(path), pid, "%s", name);

	if (err < 0) {
		errno = -err;
		return NULL;
	}
	return sbuf_read_path(path, len);
}

int proc_auxv(pid_t pid, uint64_t type, uint64_t *val)
{
	size_t len;
	uint64_t *v = (uint64_t *)(void *)proc_read_text(pid, "auxv", &len);
	int err = -ENOENT;

	if (!v)
		return -errno;
	/* (type, value) pairs of native words, ended by AT_NULL */
	for (size_t i = 0; i + 1 < len / 8 && v[i] != AT_NULL && err; i += 2)
		if (v[i] == type) {
			*val = v[i + 1];
			err = 0;
		}
	free(v);
	return err;
}

ssize_t proc_read_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (proc_path(path, sizeof(path), pid, "%s", name) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n == 0)
		return -ESRCH;
	if (n > 0)
		buf[n] = '\0';
	return n;
}

int proc_stat_parse(const char *text, struct proc_stat *ps, char *comm,
		    size_t commlen)
{
	const char *lp = strchr(text, '('), *p = strrchr(text, ')');
	unsigned long long st;
	int field;

	/* comm may hold ')' and blanks: it ends at the last ')' */
	if (!lp || !p || p < lp || p[1] != ' ' || !p[2])
		return -EINVAL;
	if (comm && commlen) {
		size_t len = (size_t)(p - lp - 1);

		if (len >= commlen)
			len = commlen - 1;
		memcpy(comm, lp + 1, len);
		comm[len] = '\0';
	}
	if (ps)
		ps->state = p[2];
	/*
	 * After the last ')' comes the blank before field 3 (state); each
	 * step moves to the blank before the next field, so 19 steps reach
	 * starttime, field 22.
	 */
	p++;
	for (field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &st) != 1)
		return -EINVAL;
	if (ps)
		ps->start = st;
	return 0;
}

int proc_stat_read(pid_t pid, const char *name, struct proc_stat *ps,
		   char *comm, size_t commlen)
{
	/* field 22 is well inside: what is cut off is never read */
	char buf[1024];
	ssize_t n = proc_read_file(pid, name, buf, sizeof(buf));

	return n < 0 ? (int)n : proc_stat_parse(buf, ps, comm, commlen);
}

static int hexnum(const char **p, uint64_t *v)
{
	const char *c = *p;
	uint64_t x = 0;

	for (;; c++) {
		unsigned int d;

		if (*c >= '0' && *c <= '9')
			d = (unsigned int)(*c - '0');
		else if (*c >= 'a' && *c <= 'f')
			d = (unsigned int)(*c - 'a' + 10);
		else
			break;
		if (x >> 60)
			return -1;
		x = x << 4 | d;
	}
	if (c == *p)
		return -1;
	*p = c;
	*v = x;
	return 0;
}

static int decnum(const char **p, uint64_t *v)
{
	const char *c = *p;
	uint64_t x = 0;

	for (; *c >= '0' && *c <= '9'; c++) {
		if (x > UINT64_MAX / 10 - 1)
			return -1;
		x = x * 10 + (uint64_t)(*c - '0');
	}
	if (c == *p)
		return -1;
	*p = c;
	*v = x;
	return 0;
}

/*
 * One line, up to (not including) its newline at end: 1 with *m filled
 * but for the path, whose bounds go to *path and *plen; 0 if the line
 * has another shape.
 */
static int parse_line(const char *c, const char *end, struct proc_map *m,
		      const char **path, size_t *plen)
{
	uint64_t maj, min;
	const char *perms;

	if (hexnum(&c, &m->start) || *c++ != '-' || hexnum(&c, &m->end) ||
	    *c++ != ' ')
		return 0;
	perms = c;
	if (end - c < 5)
		return 0;
	c += 4;
	if (*c++ != ' ' || hexnum(&c, &m->off) || *c++ != ' ' ||
	    hexnum(&c, &maj) || *c++ != ':' || hexnum(&c, &min) ||
	    *c++ != ' ' || decnum(&c, &m->ino) || c > end)
		return 0;
	while (c < end && *c == ' ')
		c++;
	memcpy(m->perms, perms, 4);
	m->perms[4] = '\0';
	m->dev = m->ino ? makedev((unsigned int)maj, (unsigned int)min) : 0;
	*path = c;
	*plen = (size_t)(end - c);
	return 1;
}

int proc_maps_parse(const char *text, struct proc_maps *mm)
{
	size_t cap = 0;

	mm->m = NULL;
	mm->n = 0;
	while (*text) {
		const char *nl = strchr(text, '\n');
		const char *end = nl ? nl : text + strlen(text);
		struct proc_map m;
		const char *path;
		size_t plen;

		if (parse_line(text, end, &m, &path, &plen)) {
			if (grow_one(&mm->m, &cap, mm->n, sizeof(*mm->m)) < 0)
				goto nomem;
			m.path = strndup(path, plen);
			if (!m.path)
				goto nomem;
			mm->m[mm->n++] = m;
		}
		text = nl ? nl + 1 : end;
	}
	return 0;
nomem:
	proc_maps_free(mm);
	return -ENOMEM;
}

int proc_maps_read(pid_t pid, struct proc_maps *mm)
{
	char path[64];
	struct sbuf sb = {0};
	int fd, err;

	mm->m = NULL;
	mm->n = 0;
	(void)proc_path(path, sizeof(path), pid, "maps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/*
	 * An error (the process went away while we read) ends the text
	 * like end of file: what was read is still true.
	 */
	if (sbuf_read_fd(&sb, fd) == -ENOMEM)
		err = -ENOMEM;
	else
		err = proc_maps_parse(sb.b, mm);
	free(sb.b);
	close(fd);
	return err;
}

void proc_maps_free(struct proc_maps *mm)
{
	for (size_t i = 0; i < mm->n; i++)
		free(mm->m[i].path);
	free(mm->m);
	mm->m = NULL;
	mm->n = 0;
}

const struct proc_map *proc_maps_find(const struct proc_maps *mm, uint64_t addr)
{
	size_t lo = 0, hi = mm->n;

	/* The kernel lists mappings in address order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < mm->m[mid].start)
			hi = mid;
		else if (addr >= mm->m[mid].end)
			lo = mid + 1;
		else
			return &mm->m[mid];
	}
	return NULL;
}

static bool is_exec_file(const struct proc_map *m)
{
	return m->perms[2] == 'x' && m->ino && m->path[0] == '/';
}

const struct proc_map *proc_maps_next_file(const struct proc_maps *mm,
					   size_t *k)
{
	for (; *k < mm->n; ++*k) {
		const struct proc_map *m = &mm->m[*k];
		bool seen = false;

		if (!is_exec_file(m))
			continue;
		for (size_t i = 0; i < *k && !seen; i++)
			seen = mm->m[i].ino == m->ino &&
			       mm->m[i].dev == m->dev &&
			       is_exec_file(&mm->m[i]);
		if (!seen) {
			++*k;
			return m;
		}
	}
	return NULL;
}

size_t proc_map_name_len(const struct proc_map *m)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(m->path), k = sizeof(del) - 1;

	if (n > k && !strcmp(m->path + n - k, del))
		n -= k;
	return n;
}

int proc_map_files_path(char *buf, size_t size, pid_t pid,
			const struct proc_map *m)
{
	return proc_path(buf, size, pid, "map_files/%llx-%llx",
			 (unsigned long long)m->start,
			 (unsigned long long)m->end);
}

int proc_map_open_path(char *buf, size_t size, pid_t pid,
		       const struct proc_map *m)
{
	size_t n = proc_map_name_len(m);
	struct stat st;

	if (proc_map_files_path(buf, size, pid, m) == 0 &&
	    access(buf, R_OK) == 0)
		return 0;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, m->path, n);
	buf[n] = '\0';
	/*
	 * The inode alone: maps gives the device of the filesystem backing
	 * the mapping, which on a stacked one (overlayfs) is not the device
	 * stat(2) reports for the path.
	 */
	if (stat(buf, &st) != 0 || (uint64_t)st.st_ino != m->ino) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}
