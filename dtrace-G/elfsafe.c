// SPDX-License-Identifier: MIT
/*
 * elfsafe.c - files another user may change, handed to libdwfl and libdw
 * in a form they can map without SIGBUS (issue 17, part 1).
 *
 * libdwfl and libdw map every file they open (libelf's ELF_C_READ_MMAP).
 * A page of such a mapping that lies past the file's end once its owner
 * has cut the file (ftruncate) raises SIGBUS in the reader: an
 * unprivileged process that maps its own ELF file and keeps cutting and
 * rewriting it killed root's `dtrace -n 'profile-997 { ... ufunc(...) }'`
 * in 6 of 30 runs, as soon as the stacks named one of its addresses.
 * dtrace's own readers use ELF_C_READ (pread: a short read is only an
 * error); libdwfl's cannot be told to, but the descriptors they map are
 * ours to choose: the session's callbacks (find_elf, find_debuginfo) and
 * dwfl_report_offline() take them from us.
 *
 * Trusted files are handed over as they are: regular files owned by root
 * or by dtrace's own user, writable by no one else, on a filesystem that
 * is not FUSE (whose daemon decides the size whatever the mode says).
 * That is the system's libraries and programs, at no cost.  Any other
 * file is copied once into a memfd that is then sealed against writing,
 * growing and shrinking, which nobody else can change; the copy is read
 * while the owner may be cutting the file, so it may be short or mixed,
 * and libelf then finds a bad file (the frames are named by address),
 * never a signal.  Copies are kept for the run, keyed by device, inode,
 * size and both times, so the hundred processes of a forking server
 * share one (the first 256 files: each kept copy is a descriptor).
 * Copies take memory: an untrusted file over 1 GiB, or one
 * that would take the run's copies past 2 GiB, is refused (a sparse file
 * would otherwise make root's dtrace take any amount), and its frames
 * are named by address.
 *
 * Separate debug files.  dwfl_standard_find_debuginfo() maps every
 * candidate to check its build-id before it returns, so the search is
 * done here, on safe descriptors, before libdwfl sees them: by build-id
 * under /usr/lib/debug/.build-id, then by the .gnu_debuglink name in the
 * file's directory, its .debug subdirectory and under /usr/lib/debug,
 * each checked against the module's build-id (or the link's CRC when the
 * module has none) with pread-based libelf.  A dwz alternate file
 * (.gnu_debugaltlink; libdwfl asks with a zero CRC) is looked for by the
 * same names and accepted unchecked, safe as any other.
 *
 * Module files are opened O_NONBLOCK and checked to be regular with
 * fstat() on the open descriptor: a stat() then open(), as libdwfl does,
 * lets the owner put a FIFO there in between, on whose open root's
 * dtrace would wait forever.
 *
 * Left to libdw: were a dwz alternate file found nowhere here, libdw
 * looks for it itself when a unit refers to it, and maps what it finds.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "elfsafe.h"

#define SAFE_FILE_MAX (1ULL << 30)  /* an untrusted file copied, at most */
#define SAFE_TOTAL_MAX (2ULL << 30) /* all copies of a run, at most */
#define SAFE_KEEP_MAX 256	    /* copies kept open for reuse */
#define FUSE_MAGIC 0x65735546
#define DEBUG_DIR "/usr/lib/debug"

struct safe_copy {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	int memfd;
};

static struct safe_copy *copies;
static size_t ncopies, copies_cap;
static uint64_t copied; /* bytes in copies */

static bool trusted(int fd, const struct stat *st)
{
	struct statfs fs;

	if (st->st_uid != 0 && st->st_uid != geteuid())
		return false;
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return false;
	return fstatfs(fd, &fs) == 0 && fs.f_type != FUSE_MAGIC;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* A sealed memfd holding what fd's file reads now, or -1. */
static int copy_of(int fd, off_t size)
{
	static char buf[1 << 16];
	int mfd = memfd_create("dtrace-elf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	off_t at = 0;

	if (mfd < 0)
		return -1;
	while (at < size) {
		size_t want = size - at < (off_t)sizeof(buf) ? (size_t)(size - at)
							     : sizeof(buf);
		ssize_t n = pread(fd, buf, want, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* cut meanwhile: the copy is short */
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(mfd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(mfd);
				return -1;
			}
			w += k;
		}
		at += n;
	}
	if (fcntl(mfd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) <
	    0) {
		close(mfd);
		return -1;
	}
	copied += (uint64_t)at;
	return mfd;
}

int dt_safe_fd(int fd)
{
	struct safe_copy *c;
	struct stat st;
	int mfd;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (trusted(fd, &st))
		return fd;
	for (size_t i = 0; i < ncopies; i++) {
		c = &copies[i];
		if (c->dev == st.st_dev && c->ino == st.st_ino &&
		    c->size == st.st_size && same_time(c->mtime, st.st_mtim) &&
		    same_time(c->ctime, st.st_ctim)) {
			close(fd);
			return fcntl(c->memfd, F_DUPFD_CLOEXEC, 0);
		}
	}
	if ((uint64_t)st.st_size > SAFE_FILE_MAX ||
	    copied + (uint64_t)st.st_size > SAFE_TOTAL_MAX) {
		close(fd);
		return -1;
	}
	mfd = copy_of(fd, st.st_size);
	close(fd);
	if (mfd < 0)
		return -1;
	if (ncopies == SAFE_KEEP_MAX)
		return mfd; /* not kept: a descriptor each is enough */
	if (ncopies == copies_cap) {
		size_t cap = copies_cap ? 2 * copies_cap : 16;
		struct safe_copy *nv = realloc(copies, cap * sizeof(*nv));

		if (!nv)
			return mfd; /* not kept: still safe */
		copies = nv;
		copies_cap = cap;
	}
	c = &copies[ncopies++];
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = st.st_size;
	c->mtime = st.st_mtim;
	c->ctime = st.st_ctim;
	c->memfd = mfd;
	return fcntl(mfd, F_DUPFD_CLOEXEC, 0);
}

int dt_safe_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	return fd < 0 ? -1 : dt_safe_fd(fd);
}

int dt_dwfl_proc_find_elf(Dwfl_Module *mod, void **userdata,
			  const char *module_name, Dwarf_Addr base,
			  char **file_name, Elf **elfp)
{
	int fd;

	if (module_name[0] != '/')
		/* [vdso: PID] and the like: read from the process's memory */
		return dwfl_linux_proc_find_elf(mod, userdata, module_name,
						base, file_name, elfp);
	fd = open(module_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		/* "PATH (deleted)": libdwfl reads it from the process */
		const char *d = strstr(module_name, " (deleted)");

		if (d && !d[sizeof(" (deleted)") - 1])
			return dwfl_linux_proc_find_elf(mod, userdata,
							module_name, base,
							file_name, elfp);
		return -1;
	}
	fd = dt_safe_fd(fd);
	if (fd < 0)
		return -1;
	*file_name = strdup(module_name);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* Separate debug files */

static uint32_t crc32_fd(int fd, bool *ok)
{
	static uint32_t tab[256];
	static char buf[1 << 16];
	uint32_t crc = 0xffffffffu;
	off_t at = 0;
	ssize_t n;

	if (!tab[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			tab[i] = c;
		}
	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			crc = tab[(crc ^ (unsigned char)buf[i]) & 0xff] ^
			      (crc >> 8);
		at += n;
	}
	*ok = n == 0;
	return crc ^ 0xffffffffu;
}

/* Whether the debug file at fd belongs to mod (see the top). */
static bool belongs(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *want;
	const void *have;
	GElf_Addr va;
	int wlen = dwfl_module_build_id(mod, &want, &va);
	ssize_t hlen;
	bool ok;
	Elf *elf;

	if (wlen <= 0) {
		uint32_t c = crc32_fd(fd, &ok);

		return ok && crc && c == crc;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return false;
	hlen = dwelf_elf_gnu_build_id(elf, &have);
	ok = hlen == wlen && !memcmp(have, want, (size_t)wlen);
	elf_end(elf);
	return ok;
}

/* Open candidate path; the descriptor if it is the one (check), else -1 */
static int try_debug(Dwfl_Module *mod, const char *path, bool check,
		     GElf_Word crc, const struct stat *main_st,
		     char **debuginfo_file_name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -1;
	if (main_st && fstat(fd, &st) == 0 && st.st_dev == main_st->st_dev &&
	    st.st_ino == main_st->st_ino) {
		close(fd); /* the module's own file */
		return -1;
	}
	fd = dt_safe_fd(fd);
	if (fd < 0)
		return -1;
	if ((check && !belongs(mod, fd, crc)) ||
	    !(*debuginfo_file_name = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

int dt_dwfl_find_debuginfo(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	/* libdwfl asks for a dwz alternate file with a zero CRC */
	bool alt = debuglink_file && !debuglink_crc;
	const unsigned char *id;
	struct stat main_st, *mst = NULL;
	char path[PATH_MAX], dir[PATH_MAX];
	GElf_Addr va;
	int idlen, fd;

	(void)userdata;
	(void)modname;
	(void)base;
	*debuginfo_file_name = NULL;
	idlen = alt ? 0 : dwfl_module_build_id(mod, &id, &va);
	if (idlen > 1) {
		int n = snprintf(path, sizeof(path), DEBUG_DIR "/.build-id/%02x/",
				 id[0]);

		for (int i = 1; i < idlen && n < (int)sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n,
				      "%02x", id[i]);
		snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
		fd = try_debug(mod, path, true, 0, NULL, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!debuglink_file || !*debuglink_file)
		return -1;
	if (debuglink_file[0] == '/')
		return try_debug(mod, debuglink_file, !alt, debuglink_crc,
				 NULL, debuginfo_file_name);
	if (!file_name || file_name[0] != '/')
		return -1;
	snprintf(dir, sizeof(dir), "%s", file_name);
	*strrchr(dir, '/') = '\0';
	if (stat(file_name, &main_st) == 0)
		mst = &main_st;
	/* the file's directory, its .debug, the same under DEBUG_DIR */
	for (int k = 0; k < 3; k++) {
		int n = k == 0	 ? snprintf(path, sizeof(path), "%s/%s", dir,
					    debuglink_file)
			: k == 1 ? snprintf(path, sizeof(path), "%s/.debug/%s",
					    dir, debuglink_file)
				 : snprintf(path, sizeof(path), DEBUG_DIR "%s/%s",
					    dir, debuglink_file);

		if (n < 0 || n >= (int)sizeof(path))
			continue;
		fd = try_debug(mod, path, !alt, debuglink_crc, mst,
			       debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	return -1;
}
