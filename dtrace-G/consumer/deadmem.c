// SPDX-License-Identifier: MIT
/*
 * deadmem.c - copyin() of a traced process that has exited: the bytes
 * of its read-only file mappings, read from the files.
 *
 * The kernel copies at hit time only the strings a clause reads as
 * copyinstr(argN) (the BPF backend's strmask); any other read of the
 * traced process (copyinstr() of a variable that kept an earlier
 * probe's argument, copyin()) goes through process_vm_readv() when the
 * record is run, a few milliseconds later.  By then a short-lived
 * process may have exited, and a process without its mm answers ESRCH:
 * Perl's t/run/dtrace.t keeps phase-change's arg0 (a literal in perl's
 * .rodata) in a global and reads it with copyinstr() in later
 * sub-entry probes, the last of which fire just before perl exits.
 *
 * DTrace reads in probe context, so it never sees this.  Much of what
 * scripts read that way cannot have changed since, because it is a
 * file's bytes mapped read-only: string literals and other constants.
 * So when the process is gone, an address inside such a mapping of the
 * process's last maps (struct tproc's maps, read at most 100 ms before
 * it exited, and kept until its records are run) is read from the file,
 * at the mapping's offset, when all of this holds:
 *
 *   - the mapping is not writable and names a file whose device and
 *     inode are still the ones mapped (not deleted or replaced);
 *   - the file is a 64-bit ELF object, and the offset lies inside the
 *     file part (p_filesz) of a PT_LOAD segment without PF_W.  This
 *     leaves out RELRO, which the dynamic linker writes before making
 *     it read-only and which therefore differs from the file.
 *
 * Anything else (heap, stack, writable data, a mapping made after the
 * last maps were read) stays an invalid address, as it was.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "procfs.h"

/*
 * How many bytes at file offset off may be read as the process saw them:
 * those up to the end of the file part of a PT_LOAD segment without PF_W.
 * 0 when off is in no such segment.
 */
static uint64_t ro_segment_left(int fd, uint64_t off)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W))
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
			return ph.p_filesz - (off - ph.p_offset);
	}
	return 0;
}

/* Read from the file behind m what the process saw at addr. */
static ssize_t read_mapped(const struct proc_map *m, uint64_t addr, void *buf,
			   size_t len)
{
	uint64_t off = m->off + (addr - m->start), left;
	struct stat st;
	ssize_t n = -1;
	int fd;

	if (m->perms[0] != 'r' || m->perms[1] == 'w' || !m->ino ||
	    m->path[0] != '/')
		return -1;
	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == m->dev &&
	    (uint64_t)st.st_ino == m->ino) {
		left = ro_segment_left(fd, off);
		if (len > left)
			len = (size_t)left;
		if (len > m->end - addr)
			len = (size_t)(m->end - addr);
		n = len ? pread(fd, buf, len, (off_t)off) : -1;
	}
	close(fd);
	return n > 0 ? n : -1;
}

int deadmem_read(struct consumer *c, pid_t pid, uint64_t addr, void *buf,
		 size_t len)
{
	struct tproc *pr = proc_find(c, pid);
	struct proc_maps mm = {0};
	size_t got = 0;

	if (!pr || !pr->maps || proc_maps_parse(pr->maps, &mm) < 0)
		return -EFAULT;
	while (got < len) {
		const struct proc_map *m = proc_maps_find(&mm, addr + got);
		ssize_t n;

		if (!m)
			break;
		n = read_mapped(m, addr + got, (char *)buf + got, len - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	proc_maps_free(&mm);
	if (!got)
		return -EFAULT;
	if (got < len) /* as copyin(): what could be read, then zeros */
		memset((char *)buf + got, 0, len - got);
	return 0;
}
