// SPDX-License-Identifier: MIT
/*
 * procfs.c - reading /proc/PID files (procfs.h).
 *
 * Small files are read with one read(2): the kernel produces them whole
 * (up to a page) on the first read, so a single call sees one consistent
 * snapshot.  A missing directory means the process does not exist.
 *
 * The maps parser is hand-rolled rather than sscanf(): the helper reads a
 * process's maps on every registration, and sscanf() was a third of a
 * registration's time.  Every number is checked for overflow; a line of any
 * other shape is skipped.  The file is read whole before it is parsed, so one
 * parser serves readers that keep the text (to see whether it changed) and
 * readers that do not.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "grow.h"
#include "procfs.h"

ssize_t proc_read_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
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
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
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
