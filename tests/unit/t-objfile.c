// SPDX-License-Identifier: MIT
/*
 * t-objfile.c - TAP tests for sdk/objfile.c, the ELF file its readers
 * share, on this test's own program file:
 *
 *  - it opens as ELF, with program headers and a symbol table;
 *  - the symbol iterator finds a function of this file by name (and
 *    never hands out an empty name);
 *  - that function's link-time address turns into a file offset whose
 *    bytes are the function's bytes in memory (elf_vaddr_to_off()), and
 *    the load bias computed from the mapping that holds it (as
 *    /proc/self/maps gives it) moves the link-time address to where the
 *    function runs (elf_load_bias());
 *  - what is not an ELF file is refused with the reason: a directory, a
 *    text file, a missing file (the open's errno); an address no
 *    segment holds has no offset;
 *  - a descriptor handed over (objf_open_fd()) is read the same, and
 *    closed when refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objfile.h"
#include "procfs.h"
#include "tap.h"

int t_objfile_marker(int x);

__attribute__((noinline, used)) int t_objfile_marker(int x)
{
	return x * 7 + 3;
}

static void test_self(void)
{
	struct objfile of;
	struct elf_syms it;
	struct proc_maps mm;
	const struct proc_map *m;
	const char *nm;
	GElf_Sym s;
	uint64_t v = 0, off = 0, bias = 0;
	unsigned char fbytes[16];
	char msg[128] = "";
	bool found = false, empty = false;

	if (!ok(objf_open(&of, "/proc/self/exe", msg, sizeof(msg)) == 0,
		"self: opens (%s)", msg))
		return;
	ok(of.nph > 0 && of.ph, "self: program headers read");
	ok(objf_symbols(&of) != NULL, "self: a symbol table");
	for (elf_syms_begin(&it, of.elf, objf_symbols(&of));
	     elf_syms_next(&it, &s, &nm);) {
		empty |= !*nm;
		if (!strcmp(nm, "t_objfile_marker")) {
			found = true;
			v = s.st_value;
		}
	}
	ok(found, "syms: the marker function is named");
	ok(!empty, "syms: no empty names");
	ok(found && elf_vaddr_to_off(of.ph, of.nph, v, &off),
	   "offset: the marker's address is in a segment");
	ok(pread(of.fd, fbytes, sizeof(fbytes), (off_t)off) ==
			   (ssize_t)sizeof(fbytes) &&
		   !memcmp(fbytes, (const void *)(uintptr_t)&t_objfile_marker,
			   sizeof(fbytes)),
	   "offset: the file's bytes there are the function's");
	ok(!elf_vaddr_to_off(of.ph, of.nph, UINT64_MAX - 4096, &off),
	   "offset: none for an address no segment holds");
	if (proc_maps_read(getpid(), &mm) == 0) {
		m = proc_maps_find(&mm, (uint64_t)(uintptr_t)&t_objfile_marker);
		ok(m &&
			   elf_load_bias(of.ph, of.nph, m->start, m->off,
					 &bias) == 0 &&
			   v + bias == (uint64_t)(uintptr_t)&t_objfile_marker,
		   "bias: link-time address + bias is where it runs");
		proc_maps_free(&mm);
	}
	is_int(elf_load_bias(of.ph, of.nph, 0x1000, 0x7fff0000, &bias), -ENOENT,
	       "bias: no segment at that offset");
	objf_close(&of);
	is_int(of.fd, -1, "close: empty");
	is_int(t_objfile_marker(1), 10, "the marker runs");
}

static void test_refused(void)
{
	struct objfile of;
	char msg[128], tmpl[] = "/tmp/t-objfile-XXXXXX";
	int fd;

	is_int(objf_open(&of, "/", msg, sizeof(msg)), -EINVAL, "dir: refused");
	is_str(msg, "not an ELF file (not a regular file)", "dir: why");
	is_int(objf_open(&of, "/nonexistent/x", msg, sizeof(msg)), -ENOENT,
	       "missing: the open's errno");
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		(void)!write(fd, "hello, not ELF\n", 15);
		close(fd);
		is_int(objf_open(&of, tmpl, msg, sizeof(msg)), -EINVAL,
		       "text: refused");
		is_str(msg, "not an ELF file", "text: why");
		unlink(tmpl);
	}
}

static void test_fd(void)
{
	struct objfile of;
	char msg[128] = "";
	int fd;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ok(fd >= 0 && objf_open_fd(&of, fd, "self", msg, sizeof(msg)) == 0 &&
		   of.fd == fd && !strcmp(of.path, "self") && of.nph > 0,
	   "fd: read as by path (%s)", msg);
	if (fd >= 0 && of.fd == fd)
		objf_close(&of);
	fd = open("/", O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	is_int(objf_open_fd(&of, fd, "/", msg, sizeof(msg)), -EINVAL,
	       "fd: a directory refused");
	ok(fd >= 0 && fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	   "fd: closed when refused");
}

int main(void)
{
	test_self();
	test_refused();
	test_fd();
	return tap_done();
}
