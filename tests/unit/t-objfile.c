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
 *    closed when refused;
 *  - the function at an address is named by -G's rule (elf_func_at()):
 *    of symbols covering the same bytes, a global one before a local
 *    one, a local without '.' before a clone, whatever the table order;
 *    and a clone's name is cut at its dot (elf_func_name_len());
 *  - the load bias of a mapping that starts in the middle of a segment
 *    (a segment split by mprotect(), as RELRO does) is that segment's,
 *    like that of the mapping of its first page; a segment with no file
 *    bytes places no mapping.
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

/*
 * Two pieces of code, each named by several function symbols: a clone
 * and a plain local (the clone first in the table), and a clone, a local
 * and a global.  Never run: only their symbols are read.
 */
__asm__(".pushsection .text\n"
	".type t_objfile_a.cold, %function\n"
	"t_objfile_a.cold:\n"
	".type t_objfile_a, %function\n"
	"t_objfile_a:\n"
	".skip 16\n"
	".size t_objfile_a.cold, 16\n"
	".size t_objfile_a, 16\n"
	".type t_objfile_b.part.0, %function\n"
	"t_objfile_b.part.0:\n"
	".type t_objfile_b_local, %function\n"
	"t_objfile_b_local:\n"
	".globl t_objfile_b\n"
	".type t_objfile_b, %function\n"
	"t_objfile_b:\n"
	".skip 16\n"
	".size t_objfile_b.part.0, 16\n"
	".size t_objfile_b_local, 16\n"
	".size t_objfile_b, 16\n"
	".popsection\n");

static void test_func_at(void)
{
	struct objfile of;
	struct elf_syms it;
	const char *nm, *got;
	GElf_Sym s, fs;
	uint64_t a = 0, b = 0;
	char msg[128] = "";

	if (!ok(objf_open(&of, "/proc/self/exe", msg, sizeof(msg)) == 0,
		"func_at: opens (%s)", msg))
		return;
	for (elf_syms_begin(&it, of.elf, objf_symbols(&of));
	     elf_syms_next(&it, &s, &nm);) {
		if (!strcmp(nm, "t_objfile_a.cold"))
			a = s.st_value;
		if (!strcmp(nm, "t_objfile_b.part.0"))
			b = s.st_value;
	}
	ok(a && b, "func_at: the test's functions are in the table");
	got = elf_func_at(of.elf, objf_symbols(&of), 0, a + 5, &fs);
	is_str(got ? got : "(none)", "t_objfile_a",
	       "func_at: a local without '.' before a clone");
	ok(got && fs.st_value == a && fs.st_size == 16,
	   "func_at: its symbol handed back");
	got = elf_func_at(of.elf, objf_symbols(&of), 0, b, &fs);
	is_str(got ? got : "(none)", "t_objfile_b",
	       "func_at: a global before any local");
	ok(!elf_func_at(of.elf, objf_symbols(&of), 0, b + 16, &fs) ||
		   fs.st_value != b,
	   "func_at: a symbol does not cover the byte past its end");
	objf_close(&of);
	is_int((int)elf_func_name_len("helper.constprop.0", 127), 6,
	       "name: a clone is cut at its dot");
	is_int((int)elf_func_name_len(".hidden", 127), 7,
	       "name: a leading dot kept");
	is_int((int)elf_func_name_len("abcdef", 3), 3, "name: at most max");
}

static void test_bias(void)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), bias = 0;
	uint64_t start = 0x7f0000000000ULL, want;
	/* text from offset 0, data from 4 pages on with a page-size slide
	 * and 3 pages of file bytes, then bss alone */
	GElf_Phdr ph[3] = {
		{ .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = 0,
		  .p_filesz = 2 * pg },
		{ .p_type = PT_LOAD, .p_offset = 4 * pg + 0x10,
		  .p_vaddr = 5 * pg + 0x10, .p_filesz = 3 * pg },
		{ .p_type = PT_LOAD, .p_offset = 7 * pg + 0x10,
		  .p_vaddr = 9 * pg, .p_filesz = 0 },
	};

	want = start - 5 * pg;
	ok(elf_load_bias(ph, 3, start, 4 * pg, &bias) == 0 && bias == want,
	   "bias: the mapping of a segment's first page");
	bias = 0;
	ok(elf_load_bias(ph, 3, start + 2 * pg, 6 * pg, &bias) == 0 &&
		   bias == want,
	   "bias: a mapping from the middle of a segment, the same");
	is_int(elf_load_bias(ph, 3, start, 8 * pg, &bias), -ENOENT,
	       "bias: none past a segment's file bytes (bss alone)");
	bias = 1;
	ok(elf_load_bias(ph, 3, start, 0, &bias) == 0 && bias == start,
	   "bias: the text at offset 0");
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
	test_func_at();
	test_bias();
	return tap_done();
}
