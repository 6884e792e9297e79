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
 * candidate to check its build-id before it returns, and opens whatever
 * path a module's .gnu_debuglink or .gnu_debugaltlink names: a user's
 * program naming /etc/shadow, ../../../../etc/shadow, a device (whose
 * open has side effects: /dev/watchdog arms a reboot), a FIFO or a
 * root-only file got root's dtrace to open it (issue 28, part 1).  So
 * the search is done here, where the debuggers look and nowhere else:
 *  - by build-id under /usr/lib/debug/.build-id;
 *  - by the link's name, which must be a plain file name (no '/', not
 *    "." or ".."), in the module's directory and its .debug
 *    subdirectory, and in the same directory under /usr/lib/debug;
 *  - a dwz alternate file (.gnu_debugaltlink; libdwfl asks with a zero
 *    CRC) the same ways, or by its path when that lies below
 *    /usr/lib/debug (Debian's), and only with the build-id the link
 *    gives (libdw's, from the module's DWARF).
 * The module's directory is opened by name and must still hold the file
 * find_elf opened (dt_objid in the module's userdata: its owner may have
 * put a symbolic link to another directory at that name since).  In a
 * user's directory no symbolic link is followed (O_NOFOLLOW); in
 * /usr/lib/debug, root's, links are followed but must end below it.
 * Each candidate is opened O_PATH, which opens no device or FIFO; only a
 * regular file owned by root or by the module's owner (a root file for
 * another user's module only if anyone may read it) is then opened for
 * reading, the same inode through /proc/self/fd, made safe as above, and
 * taken only if its build-id (without one, the link's CRC) matches,
 * checked with pread-based libelf.
 *
 * Module files are opened O_NONBLOCK and checked to be regular with
 * fstat() on the open descriptor: a stat() then open(), as libdwfl does,
 * lets the owner put a FIFO there in between, on whose open root's
 * dtrace would wait forever.
 *
 * A file read on its own, not as a process's module (the C types of
 * ctypes.c, the source lines of srcline.c), gets an offline session
 * built here the one way (dt_dwfl_offline()): these callbacks, a safe
 * descriptor, the module bound to what the file was.
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
#include "grow.h"

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
		size_t want = size - at < (off_t)sizeof(buf)
				      ? (size_t)(size - at)
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
	if (grow_one(&copies, &copies_cap, ncopies, sizeof(*copies)) < 0)
		return mfd; /* not kept: still safe */
	c = &copies[ncopies++];
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = st.st_size;
	c->mtime = st.st_mtim;
	c->ctime = st.st_ctim;
	c->memfd = mfd;
	return fcntl(mfd, F_DUPFD_CLOEXEC, 0);
}

int dt_safe_open(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0 || (st && fstat(fd, st) < 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return dt_safe_fd(fd);
}

/*
 * What a module's file was when find_elf opened it: its inode and its
 * owner, kept in the module's userdata for the debug file search (the
 * name may mean another file by then).  One per distinct file, kept for
 * the run.
 */
struct dt_objid {
	dev_t dev;
	ino_t ino;
	uid_t uid;
	struct dt_objid *next;
};

static struct dt_objid *objids;

static struct dt_objid *objid_of(const struct stat *st)
{
	struct dt_objid *o;

	for (o = objids; o; o = o->next)
		if (o->dev == st->st_dev && o->ino == st->st_ino &&
		    o->uid == st->st_uid)
			return o;
	o = malloc(sizeof(*o));
	if (!o)
		return NULL; /* no search but /usr/lib/debug by build-id */
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	o->uid = st->st_uid;
	o->next = objids;
	objids = o;
	return o;
}

void dt_dwfl_bind(Dwfl_Module *mod, const struct stat *st)
{
	void **ud = NULL;

	if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) &&
	    ud)
		*ud = objid_of(st);
}

Dwfl_Module *dt_dwfl_offline(const char *path, Dwfl_Callbacks *cb,
			     char **debuginfo_path, Dwfl **dwfl)
{
	struct stat st;
	Dwfl_Module *mod;
	int fd;

	cb->find_elf = dwfl_build_id_find_elf;
	cb->find_debuginfo = dt_dwfl_find_debuginfo;
	cb->section_address = dwfl_offline_section_address;
	cb->debuginfo_path = debuginfo_path;
	*dwfl = dwfl_begin(cb);
	if (!*dwfl)
		return NULL;
	/* a descriptor safe to map, though another user owns the file */
	fd = dt_safe_open(path, &st);
	if (fd < 0)
		return NULL;
	dwfl_report_begin(*dwfl);
	mod = dwfl_report_offline(*dwfl, path, path, fd);
	if (dwfl_report_end(*dwfl, NULL, NULL) != 0 || !mod)
		return NULL;
	dt_dwfl_bind(mod, &st);
	return mod;
}

int dt_dwfl_proc_find_elf(Dwfl_Module *mod, void **userdata,
			  const char *module_name, Dwarf_Addr base,
			  char **file_name, Elf **elfp)
{
	struct stat st;
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
	if (fstat(fd, &st) == 0)
		*userdata = objid_of(&st); /* for the debug file search */
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

/* Whether the debug file at fd has build-id want, or (no build-id to
 * compare) the link's CRC. */
static bool belongs(int fd, const unsigned char *want, int wlen, GElf_Word crc)
{
	const void *have;
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

/* A file name and nothing else: no directory, not "." or "..". */
static bool plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Whether absolute path p has no "." or ".." component. */
static bool clean_path(const char *p)
{
	for (const char *c = p; (c = strchr(c, '/')); c++) {
		size_t n = strcspn(c + 1, "/");

		if ((n == 1 && c[1] == '.') ||
		    (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
	}
	return true;
}

struct dbg_want {
	const struct dt_objid *obj; /* the module's file, or NULL */
	const unsigned char *id;    /* the build-id to match, or NULL */
	int idlen;
	GElf_Word crc; /* else the link's CRC */
};

/*
 * Candidate name in directory dirfd, for w (see the top): the descriptor
 * after dt_safe_fd() if it is the one, else -1.  The name is opened
 * O_PATH, which opens no device or FIFO, without following a symbolic
 * link unless under_debug_dir (root's tree, whose links root made: the
 * file reached must still lie below DEBUG_DIR); only once fstat() has
 * found a regular file of root's or of the module's owner is the same
 * inode opened for reading, through /proc/self/fd.
 */
static int try_debug(int dirfd, const char *name, bool under_debug_dir,
		     const struct dbg_want *w, char **debuginfo_file_name)
{
	uid_t owner = w->obj ? w->obj->uid : 0;
	char p[64], real[PATH_MAX];
	struct stat st, st2;
	ssize_t n;
	int pfd, fd;

	pfd = openat(dirfd, name,
		     O_PATH | O_CLOEXEC | (under_debug_dir ? 0 : O_NOFOLLOW));
	if (pfd < 0)
		return -1;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != owner) ||
	    /* root's file for another's module: one its owner may read */
	    (st.st_uid == 0 && owner != 0 && !(st.st_mode & S_IROTH)) ||
	    (w->obj && st.st_dev == w->obj->dev && st.st_ino == w->obj->ino)) {
		close(pfd);
		return -1;
	}
	n = readlink(p, real, sizeof(real) - 1);
	if (n <= 0 || (size_t)n >= sizeof(real) - 1) {
		close(pfd);
		return -1;
	}
	real[n] = '\0';
	if (under_debug_dir &&
	    strncmp(real, DEBUG_DIR "/", sizeof(DEBUG_DIR "/") - 1)) {
		close(pfd);
		return -1;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		return -1;
	}
	fd = dt_safe_fd(fd);
	if (fd < 0)
		return -1;
	if (!belongs(fd, w->id, w->idlen, w->crc) ||
	    !(*debuginfo_file_name = strdup(real))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The directory of the module's file path, opened O_PATH, if it still
 * holds that file (its owner may have put a symbolic link to another
 * directory at the directory's name since); else -1.
 */
static int object_dir(const char *path, const struct dt_objid *obj)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	char dir[PATH_MAX];
	struct stat st;
	int dfd;

	if (!obj || path[0] != '/' || !base[1] ||
	    (size_t)(base - path) >= sizeof(dir))
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path);
	dfd = open(dir[0] ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (fstatat(dfd, base + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != obj->dev || st.st_ino != obj->ino) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/* The link's name in the module's directory, its .debug and the same
 * directory under DEBUG_DIR. */
static int by_link(const char *mainfile, const char *link,
		   const struct dbg_want *w, char **debuginfo_file_name)
{
	int dfd = object_dir(mainfile, w->obj), sub, fd;
	char path[PATH_MAX];

	if (dfd < 0)
		return -1;
	fd = try_debug(dfd, link, false, w, debuginfo_file_name);
	if (fd < 0) {
		sub = openat(dfd, ".debug",
			     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			fd = try_debug(sub, link, false, w,
				       debuginfo_file_name);
			close(sub);
		}
	}
	close(dfd);
	if (fd < 0 && clean_path(mainfile)) {
		int n = snprintf(path, sizeof(path), DEBUG_DIR "%.*s/%s",
				 (int)(strrchr(mainfile, '/') - mainfile),
				 mainfile, link);

		if (n > 0 && n < (int)sizeof(path))
			fd = try_debug(AT_FDCWD, path, true, w,
				       debuginfo_file_name);
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
	struct dbg_want w = {userdata ? *userdata : NULL, NULL, 0,
			     debuglink_crc};
	const char *mainfile = NULL;
	char path[PATH_MAX];
	GElf_Addr va;
	int fd;

	(void)modname;
	(void)base;
	(void)file_name;
	*debuginfo_file_name = NULL;
	if (alt) {
		/* taken only with the build-id its link names */
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
		const char *name;
		const void *id;

		w.idlen = dw ? (int)dwelf_dwarf_gnu_debugaltlink(dw, &name, &id)
			     : -1;
		if (w.idlen <= 0)
			return -1;
		w.id = id;
	} else {
		w.idlen = dwfl_module_build_id(mod, &w.id, &va);
	}
	if (w.idlen > 1) {
		int n = snprintf(path, sizeof(path),
				 DEBUG_DIR "/.build-id/%02x/", w.id[0]);

		for (int i = 1; i < w.idlen && n < (int)sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - (size_t)n,
				      "%02x", w.id[i]);
		snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
		fd = try_debug(AT_FDCWD, path, true, &w, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!debuglink_file || !*debuglink_file)
		return -1;
	/* Debian's dwz files are named by their path below DEBUG_DIR */
	if (alt &&
	    !strncmp(debuglink_file, DEBUG_DIR "/", sizeof(DEBUG_DIR "/") - 1))
		return clean_path(debuglink_file)
			       ? try_debug(AT_FDCWD, debuglink_file, true, &w,
					   debuginfo_file_name)
			       : -1;
	if (!plain_name(debuglink_file))
		return -1;
	(void)dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			       NULL);
	return by_link(mainfile, debuglink_file, &w, debuginfo_file_name);
}
