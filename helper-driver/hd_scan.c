// SPDX-License-Identifier: MIT
/*
 * hd_scan.c - find the probes of processes that started before the daemon.
 *
 * drti.o registers a program's DOF once, from its constructor.  A program
 * started while no helper ran (the daemon started late, was restarted
 * after a crash with an empty state directory, or a server forked its
 * workers before the helper came up) would otherwise stay invisible until
 * it restarts -- the weakness other Linux helpers share.  At start the
 * daemon therefore walks /proc: for every process, every mapped ELF file
 * that has an allocated .SUNW_dof section (each file is opened and read
 * once, by device and inode, through /proc/PID/map_files so a replaced
 * or deleted file is still the one mapped), and every DOF blob in that
 * section (a program linked from several `dtrace -G` outputs has one
 * per output, 8-aligned, back to back), it registers the blob as if the
 * process had sent ADDDOF, with the same checks.  The blob is read from
 * the process, so the dynamic linker's relocations are already applied,
 * exactly as for a real ADDDOF.
 *
 * Load bias: 0 for ET_EXEC; for ET_DYN the start of the file's offset-0
 * mapping minus the page of its lowest PT_LOAD p_vaddr -- what drti.o
 * gets from dl_iterate_phdr.
 *
 * Skipped: the daemon itself, processes it may not read (EPERM: an
 * unprivileged daemon sees only its own user's), blobs already recorded
 * (restored from the registry) and processes that opted out with
 * DTRACE_DOF_INIT_DISABLE in their environment.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsec.h"
#include "grow.h"
#include "helperd.h"
#include "objfile.h"

struct obj {
	uint64_t dev, ino;
	bool has_dof;
	int etype;
	uint64_t dof_addr, dof_size; /* link-time */
	uint64_t min_vaddr;
};

struct objcache {
	struct obj *v;
	size_t n, cap;
};

/* What o's file, open on fd (closed here), holds; path names it. */
static void inspect(int fd, const char *path, struct obj *o)
{
	struct objfile of;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	o->min_vaddr = UINT64_MAX;
	if (objf_open_fd(&of, fd, path, NULL, 0) < 0)
		return;
	if (of.ehdr.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	o->etype = of.ehdr.e_type;
	for (size_t i = 0; i < of.nph; i++)
		if (of.ph[i].p_type == PT_LOAD &&
		    of.ph[i].p_vaddr < o->min_vaddr)
			o->min_vaddr = of.ph[i].p_vaddr;
	while ((scn = elfw_section_next(of.elf, scn, DOF_SECTION_NAME, &sh))) {
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type == SHT_PROGBITS &&
		    sh.sh_size >= sizeof(dof_hdr_t) && sh.sh_size <= (64 << 20)) {
			o->has_dof = true;
			o->dof_addr = sh.sh_addr;
			o->dof_size = sh.sh_size;
			break;
		}
	}
out:
	objf_close(&of);
}

static const struct obj *lookup(struct objcache *c, pid_t pid,
				const struct proc_map *m)
{
	char path[PATH_MAX];
	struct stat st;
	struct obj *o;
	size_t i;
	int fd;

	for (i = 0; i < c->n; i++)
		if (c->v[i].dev == m->dev && c->v[i].ino == m->ino)
			return &c->v[i];
	if (grow_one(&c->v, &c->cap, c->n, sizeof(*c->v)) < 0)
		return NULL;
	(void)proc_map_files_path(path, sizeof(path), pid, m);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && m->path[0] == '/' &&
	    proc_path(path, sizeof(path), pid, "root%s", m->path) == 0)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			(uint64_t)st.st_dev != m->dev ||
			(uint64_t)st.st_ino != m->ino)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return NULL; /* not cached: another process may open it */
	o = &c->v[c->n++];
	memset(o, 0, sizeof(*o));
	o->dev = m->dev;
	o->ino = m->ino;
	inspect(fd, path, o);
	return o;
}

static unsigned scan_blobs(struct helperd *hd, pid_t pid, uid_t uid,
			   const char *path, uint64_t bias, uint64_t addr,
			   uint64_t size)
{
	static const uint8_t magic[4] = { DOF_MAG_MAG0, DOF_MAG_MAG1,
					  DOF_MAG_MAG2, DOF_MAG_MAG3 };
	const char *base = strrchr(path, '/');
	unsigned found = 0;
	uint8_t *sec;
	uint64_t off = 0;
	struct hd_fetch f;

	if (hd_guard_fetch(pid, uid, addr, size, 0, &f) < 0) {
		hd_log(HD_DEBUG, "pid %d: %s: DOF not read: %s", (int)pid,
		       path, f.why);
		return 0;
	}
	sec = f.buf;
	base = base ? base + 1 : path;
	while (off + sizeof(dof_hdr_t) <= size) {
		dof_hdr_t h;
		dof_helper_t dh;

		memcpy(&h, sec + off, sizeof(h));
		if (memcmp(h.dofh_ident, magic, sizeof(magic))) {
			off += 8;
			continue;
		}
		if (!hd_reg_has(hd, pid, addr + off)) {
			memset(&dh, 0, sizeof(dh));
			snprintf(dh.dofhp_mod, sizeof(dh.dofhp_mod), "%s", base);
			dh.dofhp_addr = bias;
			dh.dofhp_dof = addr + off;
			if (hd_reg_adddof_now(hd, pid, &dh,
					      REG_ORIGIN_SCAN) > 0)
				found++;
		}
		if (h.dofh_filesz < sizeof(h) || h.dofh_filesz > size - off)
			break;
		off += (h.dofh_filesz + 7) & ~(uint64_t)7;
	}
	hd_fetch_free(&f);
	return found;
}

static unsigned scan_pid(struct helperd *hd, struct objcache *c, pid_t pid)
{
	struct proc_maps mm;
	unsigned found = 0;
	bool checked_env = false;
	uid_t uid = 0;
	size_t i, j;

	if (hd_tgid(pid, &uid) != pid || hd_guard_maps(pid, uid, &mm) < 0)
		return 0;
	for (i = 0; i < mm.n; i++) {
		const struct proc_map *m = &mm.m[i];
		const struct obj *o;
		uint64_t bias = 0;
		char type[64];

		/* One visit per object: its first (offset 0) mapping. */
		if (!m->ino || m->off != 0)
			continue;
		for (j = 0; j < i; j++)
			if (mm.m[j].dev == m->dev && mm.m[j].ino == m->ino)
				break;
		if (j < i)
			continue;
		if (hd_on_fuse(pid, m->dev, type, sizeof(type))) {
			/* Opening or reading it could hang on its server. */
			hd_log(HD_DEBUG, "pid %d: %s is on %s; not scanned",
			       (int)pid, m->path, type);
			continue;
		}
		o = lookup(c, pid, m);
		if (!o || !o->has_dof)
			continue;
		if (!checked_env) {
			checked_env = true;
			if (hd_guard_env_has(pid, uid, DRTI_ENV_DISABLE)) {
				hd_log(HD_DEBUG, "pid %d: %s set, not scanned",
				       (int)pid, DRTI_ENV_DISABLE);
				break;
			}
		}
		if (o->etype == ET_DYN)
			bias = m->start - (o->min_vaddr & ~(uint64_t)0xfff);
		found += scan_blobs(hd, pid, uid, m->path, bias,
				    o->dof_addr + bias,
				    o->dof_size);
	}
	proc_maps_free(&mm);
	return found;
}

unsigned hd_scan_all(struct helperd *hd)
{
	struct objcache c = { NULL, 0, 0 };
	unsigned found = 0;
	pid_t pid, self = getpid();
	DIR *d;

	elf_version(EV_CURRENT);
	d = proc_dir_open(0);
	if (!d) {
		hd_log(HD_WARN, "cannot scan /proc: %s", strerror(errno));
		return 0;
	}
	while ((pid = proc_dir_next(d)) > 0)
		if (pid != self)
			found += scan_pid(hd, &c, pid);
	closedir(d);
	free(c.v);
	hd->n_scanned += found;
	return found;
}
