// SPDX-License-Identifier: MIT
/*
 * t-procfs.c - TAP tests for sdk/procfs.c, the one reader of
 * /proc/PID files.
 *
 *  - a small file: this process's stat starts with its pid, a buffer
 *    too small still gives a NUL-terminated prefix;
 *  - a stat text: a comm holding ") " and "(" is taken whole up to the
 *    last ')', cut to the buffer; the state and field 22 follow it; a
 *    text without a comm or without 22 fields is refused; this thread's
 *    own stat reads as running, with its comm;
 *  - parsing a text with every kind of line the kernel writes: a file
 *    mapping, an anonymous one, [heap] and [vdso], a path with blanks, a
 *    deleted file, and lines of other shapes (skipped), with the device
 *    as makedev() gives it and 0 for non-files;
 *  - lookups at the first and last byte of a mapping and just outside;
 *  - this process's real maps: the mapping that holds main() is
 *    executable and names this program's file (same inode as stat says);
 *  - a process that does not exist gives -ESRCH;
 *  - paths: /proc/PID/ and a formatted name, refused when too long;
 *  - the numeric entries of /proc and of /proc/PID/task: this process
 *    and a child it forked among /proc's, past its other entries;
 *    this (one-threaded) process's one task, its pid, and the child's;
 *    the child reaped, its task directory ENOENT;
 *  - a whole file: this process's maps text, and its auxv's page size
 *    (as getauxval() gives it), an absent entry -ENOENT;
 *  - the walk over executable file mappings: each (dev, ino) once, at
 *    its first executable mapping, with the same inode on another
 *    device a file of its own, and anonymous, [vdso] and non-executable
 *    mappings skipped;
 *  - a mapped file's name without " (deleted)";
 *  - the path that opens a mapping's file: this program's own mapping
 *    opens a file with its inode; a mapping whose path now holds another
 *    inode, with map_files closed (a pid that does not exist), is
 *    refused rather than read.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "tap.h"

static const char text[] =
	"55d0c8a00000-55d0c8a01000 r--p 00000000 fe:01 1234"
	"                       /usr/bin/my app\n"
	"55d0c8a01000-55d0c8a02000 r-xp 00001000 fe:01 1234"
	"                       /usr/bin/my app\n"
	"55d0c9000000-55d0c9021000 rw-p 00000000 00:00 0"
	"                          [heap]\n"
	"garbage line\n"
	"7f0000000000-7f0000001000 r-xp 00000000 103:0a 99 /lib/x.so "
	"(deleted)\n"
	"7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
	"7f0000004000-zz 0 0 0\n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0  [vdso]";

static void test_parse(void)
{
	struct proc_maps mm;
	const struct proc_map *m;

	is_int(proc_maps_parse(text, &mm), 0, "parse: a sample text");
	is_int(mm.n, 6, "parse: six mappings, two bad lines skipped");
	if (mm.n != 6)
		return;
	is_str(mm.m[0].path, "/usr/bin/my app", "parse: path with a blank");
	is_str(mm.m[1].perms, "r-xp", "parse: perms");
	is_int(mm.m[1].off, 0x1000, "parse: offset");
	is_int(mm.m[1].dev, makedev(0xfe, 1), "parse: device as makedev()");
	is_int(mm.m[1].ino, 1234, "parse: inode");
	is_str(mm.m[2].path, "[heap]", "parse: [heap]");
	is_int(mm.m[2].dev, 0, "parse: no device without an inode");
	is_str(mm.m[3].path, "/lib/x.so (deleted)", "parse: deleted kept");
	is_int(mm.m[3].dev, makedev(0x103, 0xa), "parse: 3-digit major");
	is_str(mm.m[4].path, "", "parse: anonymous mapping");
	is_str(mm.m[5].path, "[vdso]", "parse: last line without newline");

	m = proc_maps_find(&mm, 0x55d0c8a01000);
	ok(m == &mm.m[1], "find: first byte");
	m = proc_maps_find(&mm, 0x55d0c8a01fff);
	ok(m == &mm.m[1], "find: last byte");
	ok(!proc_maps_find(&mm, 0x55d0c8a02000), "find: end is outside");
	ok(!proc_maps_find(&mm, 0x1000), "find: below everything");
	proc_maps_free(&mm);
	is_int(mm.n, 0, "free: empty");
}

static void test_self(void)
{
	struct proc_maps mm;
	const struct proc_map *m;
	char exe[4096];
	struct stat st;
	ssize_t n;

	is_int(proc_maps_read(getpid(), &mm), 0, "self: maps read");
	m = proc_maps_find(&mm, (uint64_t)(uintptr_t)&test_self);
	ok(m && m->perms[2] == 'x', "self: code is in an executable mapping");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (m && n > 0 && stat("/proc/self/exe", &st) == 0) {
		exe[n] = '\0';
		is_str(m->path, exe, "self: the mapping names this program");
		is_int(m->ino, st.st_ino, "self: and its inode");
		is_int(m->dev, st.st_dev, "self: and its device");
	}
	proc_maps_free(&mm);
	is_int(proc_maps_read(0x7ffffff0, &mm), -ESRCH, "no such process");
}

static void test_small(void)
{
	char buf[512], want[32], tiny[4];
	ssize_t n;

	n = proc_read_file(getpid(), "stat", buf, sizeof(buf));
	ok(n > 0, "small: stat read");
	snprintf(want, sizeof(want), "%d (", (int)getpid());
	ok(n > 0 && strncmp(buf, want, strlen(want)) == 0,
	   "small: stat starts with our pid");
	n = proc_read_file(getpid(), "stat", tiny, sizeof(tiny));
	is_int(n, 3, "small: at most size - 1 bytes");
	is_int(strlen(tiny), 3, "small: NUL-terminated");
	is_int(proc_read_file(0x7ffffff0, "stat", buf, sizeof(buf)), -ESRCH,
	       "small: no such process");
}

static void test_stat(void)
{
	static const char t[] =
		"42 (a) S (b) c) R 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 "
		"20 0 1 0 98765 1000 10 18446744073709551615";
	struct proc_stat ps = { 0 };
	char comm[32], small[4], name[48];

	is_int(proc_stat_parse(t, &ps, comm, sizeof(comm)), 0,
	       "stat: parsed");
	is_str(comm, "a) S (b) c", "stat: comm up to the last ')'");
	ok(ps.state == 'R', "stat: state after the comm");
	ok(ps.start == 98765, "stat: field 22");
	is_int(proc_stat_parse(t, NULL, small, sizeof(small)), 0,
	       "stat: comm alone");
	is_str(small, "a) ", "stat: comm cut to the buffer");
	is_int(proc_stat_parse("42 a R 1 2 3", &ps, NULL, 0), -EINVAL,
	       "stat: no comm refused");
	is_int(proc_stat_parse("42 (a) R 1 2 3", &ps, NULL, 0), -EINVAL,
	       "stat: fewer than 22 fields refused");
	snprintf(name, sizeof(name), "task/%d/stat", (int)getpid());
	ps.state = 0;
	is_int(proc_stat_read(getpid(), name, &ps, comm, sizeof(comm)), 0,
	       "stat: this thread's read");
	ok(ps.state == 'R' && ps.start > 0, "stat: we run, since boot");
	is_str(comm, "t-procfs", "stat: our comm");
	is_int(proc_stat_read(0x7ffffff0, "stat", &ps, NULL, 0), -ESRCH,
	       "stat: no such process");
}

static void test_paths(void)
{
	char b[64], tiny[12];

	is_int(proc_path(b, sizeof(b), 42, "maps"), 0, "path: built");
	is_str(b, "/proc/42/maps", "path: /proc/PID/name");
	is_int(proc_path(b, sizeof(b), 42, "task/%d", 7), 0, "path: format");
	is_str(b, "/proc/42/task/7", "path: formatted name");
	is_int(proc_path(tiny, sizeof(tiny), 42, "mountinfo"), -ENAMETOOLONG,
	       "path: too long is refused");
}

/* Is id among the ids of pid's directory (0: /proc's)?  -1: not read;
 * *n the count of ids */
static int dir_has(pid_t pid, pid_t id, size_t *n)
{
	DIR *d = proc_dir_open(pid);
	pid_t e;
	int has = 0;

	*n = 0;
	if (!d)
		return -1;
	while ((e = proc_dir_next(d)) > 0) {
		++*n;
		has |= e == id;
	}
	closedir(d);
	return has;
}

static void test_dir(void)
{
	size_t n;
	pid_t kid;
	int st;

	/* /proc lists its other entries ("self" ...) before the pids: the
	 * walk goes past them */
	is_int(dir_has(0, getpid(), &n), 1, "dir: /proc lists us");
	ok(n > 1, "dir: /proc, %zu processes", n);
	is_int(dir_has(getpid(), getpid(), &n), 1, "dir: our task, our pid");
	is_int(n, 1, "dir: our one task alone");
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	ok(kid > 0, "dir: a child forked");
	if (kid <= 0)
		return;
	is_int(dir_has(0, kid, &n), 1, "dir: /proc lists the child");
	is_int(dir_has(kid, kid, &n), 1, "dir: the child's task");
	is_int(n, 1, "dir: the child's one task");
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	errno = 0;
	ok(!proc_dir_open(kid) && errno == ENOENT,
	   "dir: a process reaped, ENOENT");
	is_int(dir_has(0, kid, &n), 0, "dir: and not in /proc");
}

static void test_text(void)
{
	struct proc_maps mm;
	size_t len = 0;
	uint64_t v = 0;
	char *t;

	t = proc_read_text(getpid(), "maps", &len);
	ok(t && len > 0 && strlen(t) == len, "text: maps whole, NUL after");
	ok(t && proc_maps_parse(t, &mm) == 0 &&
		   proc_maps_find(&mm, (uint64_t)(uintptr_t)&test_text),
	   "text: parses, and holds our code");
	if (t)
		proc_maps_free(&mm);
	free(t);
	errno = 0;
	ok(!proc_read_text(0x7ffffff0, "maps", NULL) && errno == ENOENT,
	   "text: no such process");
	is_int(proc_auxv(getpid(), AT_PAGESZ, &v), 0, "auxv: AT_PAGESZ read");
	is_int(v, getauxval(AT_PAGESZ), "auxv: as getauxval() says");
	is_int(proc_auxv(getpid(), 0x7fff, &v), -ENOENT, "auxv: absent entry");
	ok(proc_auxv(0x7ffffff0, AT_PAGESZ, &v) < 0, "auxv: no such process");
}

static const char xtext[] =
	"1000-2000 r--p 00000000 08:01 10 /bin/prog\n"
	"2000-3000 r-xp 00001000 08:01 10 /bin/prog\n"
	"3000-4000 rw-p 00000000 00:00 0 \n"
	"4000-5000 r-xp 00000000 00:00 0 [vdso]\n"
	"5000-6000 r-xp 00001000 08:01 20 /lib/libx.so (deleted)\n"
	"6000-7000 r-xp 00004000 08:01 10 /bin/prog\n"
	"7000-8000 r-xp 00001000 08:02 10 /mnt/other\n"
	"8000-9000 rw-p 00001000 08:01 30 /lib/data\n"
	"9000-a000 r-xp 00002000 08:01 20 /lib/libx.so (deleted)\n";

static void test_files(void)
{
	struct proc_maps mm;
	const struct proc_map *m;
	uint64_t got[8];
	size_t n = 0;

	if (proc_maps_parse(xtext, &mm) < 0) {
		ok(0, "files: parse");
		return;
	}
	for (size_t k = 0; n < 8 && (m = proc_maps_next_file(&mm, &k));)
		got[n++] = m->start;
	is_int(n, 3, "files: three files mapped executable");
	ok(n == 3 && got[0] == 0x2000 && got[1] == 0x5000 && got[2] == 0x7000,
	   "files: each at its first executable mapping, in order");
	is_int(proc_map_name_len(&mm.m[4]), strlen("/lib/libx.so"),
	       "name: without (deleted)");
	is_int(proc_map_name_len(&mm.m[0]), strlen("/bin/prog"),
	       "name: a live file's whole path");
	proc_maps_free(&mm);
}

static void test_open_path(void)
{
	struct proc_maps mm;
	const struct proc_map *m;
	struct proc_map fake;
	char path[4096];
	struct stat st;

	if (proc_maps_read(getpid(), &mm) < 0) {
		ok(0, "open: maps read");
		return;
	}
	m = proc_maps_find(&mm, (uint64_t)(uintptr_t)&test_open_path);
	ok(m && proc_map_open_path(path, sizeof(path), getpid(), m) == 0 &&
		   stat(path, &st) == 0 && st.st_ino == m->ino,
	   "open: our own code's mapping opens our file");
	if (m) {
		fake = *m;
		fake.ino = m->ino + 1; /* the path now holds another file */
		is_int(proc_map_open_path(path, sizeof(path), 0x7ffffff0,
					  &fake),
		       -ENOENT, "open: a replaced file is refused");
		fake.ino = m->ino;
		is_int(proc_map_open_path(path, sizeof(path), 0x7ffffff0,
					  &fake),
		       0, "open: without map_files, the path if still it");
	}
	proc_maps_free(&mm);
}

int main(void)
{
	test_small();
	test_stat();
	test_parse();
	test_self();
	test_paths();
	test_dir();
	test_text();
	test_files();
	test_open_path();
	return tap_done();
}
