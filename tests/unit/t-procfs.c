// SPDX-License-Identifier: MIT
/*
 * t-procfs.c - TAP tests for sdk/procfs.c, the one reader of
 * /proc/PID files.
 *
 *  - a small file: this process's stat starts with its pid, a buffer
 *    too small still gives a NUL-terminated prefix;
 *  - parsing a text with every kind of line the kernel writes: a file
 *    mapping, an anonymous one, [heap] and [vdso], a path with blanks, a
 *    deleted file, and lines of other shapes (skipped), with the device
 *    as makedev() gives it and 0 for non-files;
 *  - lookups at the first and last byte of a mapping and just outside;
 *  - this process's real maps: the mapping that holds main() is
 *    executable and names this program's file (same inode as stat says);
 *  - a process that does not exist gives -ESRCH.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

int main(void)
{
	test_small();
	test_parse();
	test_self();
	return tap_done();
}
