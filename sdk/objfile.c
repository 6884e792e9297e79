// SPDX-License-Identifier: MIT
/*
 * objfile.c - an ELF file opened once for its readers (objfile.h).
 *
 * objf_open() does what every reader of a file on disk did for itself:
 * open it without following it into a FIFO or device, check that it is
 * a regular file, begin libelf on it without mapping it, and read the
 * ELF header, the section-header string index, the program headers and
 * where the two symbol tables are.  What the file holds beyond that is
 * each reader's to judge (machine, type, which table it wants): the
 * DOF reader takes ELF64 x86-64 objects of every type, the tracer's
 * note reader any ELF.
 *
 * elf_func_at() is the one rule that names the function holding an
 * address, for the -G linker (dtrace-G/link) that writes the names into
 * DOF and for the tracer (dtrace-G/objects) that must find the same name
 * in a stapsdt note's object; neither layer may call the other.
 *
 * elf_load_bias() is the one answer to where a mapped file was loaded,
 * for the tracer's probes and pid functions and the in-process
 * recorder alike.  A mapping of a segment's first page starts at that
 * page, whatever the page size; one that starts in the middle of a
 * segment's bytes (a segment split in two by mprotect(), as RELRO does,
 * or whose head was unmapped) is placed by that segment too.  Segments
 * with no file bytes are mapped anonymously and place no file mapping.
 *
 * The symbol iterator bounds its walk by the table's own size and
 * entry size and skips what libelf cannot read, so a damaged table
 * ends the walk or loses entries, never reads outside the file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objfile.h"

static int objf_fail(char *msg, size_t msglen, int err, const char *why,
		     const char *detail)
{
	if (msg && msglen)
		snprintf(msg, msglen, "%s%s", why, detail ? detail : "");
	return err;
}

int objf_open(struct objfile *of, const char *path, char *msg, size_t msglen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0) {
		err = -errno;
		memset(of, 0, sizeof(*of));
		of->fd = -1;
		return objf_fail(msg, msglen, err, strerror(-err), NULL);
	}
	return objf_open_fd(of, fd, path, msg, msglen);
}

int objf_open_fd(struct objfile *of, int fd, const char *path, char *msg,
		 size_t msglen)
{
	Elf_Scn *scn = NULL;
	int err;

	memset(of, 0, sizeof(*of));
	of->fd = fd;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = objf_fail(msg, msglen, -EINVAL,
				"libelf: ", elf_errmsg(-1));
		goto fail;
	}
	if (fstat(of->fd, &of->st) < 0 || !S_ISREG(of->st.st_mode)) {
		err = objf_fail(msg, msglen, -EINVAL,
				"not an ELF file (not a regular file)", NULL);
		goto fail;
	}
	of->path = strdup(path);
	if (!of->path) {
		err = objf_fail(msg, msglen, -ENOMEM, "out of memory", NULL);
		goto fail;
	}
	/* ELF_C_READ, never ELF_C_READ_MMAP: see objfile.h */
	of->elf = elf_begin(of->fd, ELF_C_READ, NULL);
	if (!of->elf || elf_kind(of->elf) != ELF_K_ELF) {
		err = objf_fail(msg, msglen, -EINVAL, "not an ELF file", NULL);
		goto fail;
	}
	if (!gelf_getehdr(of->elf, &of->ehdr) ||
	    elf_getshdrstrndx(of->elf, &of->shstrndx) != 0) {
		err = objf_fail(msg, msglen, -EINVAL,
				"bad ELF header: ", elf_errmsg(-1));
		goto fail;
	}
	if (elf_getphdrnum(of->elf, &of->nph) == 0 && of->nph) {
		of->ph = calloc(of->nph, sizeof(*of->ph));
		if (!of->ph) {
			err = objf_fail(msg, msglen, -ENOMEM, "out of memory",
					NULL);
			goto fail;
		}
		for (size_t i = 0; i < of->nph; i++)
			if (!gelf_getphdr(of->elf, (int)i, &of->ph[i]))
				memset(&of->ph[i], 0, sizeof(of->ph[i]));
	} else {
		of->nph = 0;
	}
	while ((scn = elf_nextscn(of->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			of->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			of->dynsym = scn;
	}
	return 0;
fail:
	objf_close(of);
	return err;
}

void objf_close(struct objfile *of)
{
	if (of->elf)
		elf_end(of->elf);
	if (of->fd >= 0)
		close(of->fd);
	free(of->ph);
	free(of->path);
	memset(of, 0, sizeof(*of));
	of->fd = -1;
}

void elf_syms_begin(struct elf_syms *it, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;

	memset(it, 0, sizeof(*it));
	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(it->d = elf_getdata(scn, NULL)))
		return;
	it->elf = elf;
	it->strndx = sh.sh_link;
	it->i = 1;
	it->n = sh.sh_size / sh.sh_entsize;
}

bool elf_syms_next(struct elf_syms *it, GElf_Sym *sym, const char **name)
{
	while (it->d && it->i < it->n) {
		size_t i = it->i++;
		const char *nm;

		if (!gelf_getsym(it->d, (int)i, sym))
			continue;
		nm = elf_strptr(it->elf, it->strndx, sym->st_name);
		if (!nm || !*nm)
			continue;
		*name = nm;
		return true;
	}
	return false;
}

const char *elf_func_at(Elf *elf, Elf_Scn *symscn, size_t shndx,
			uint64_t addr, GElf_Sym *sym)
{
	struct elf_syms it;
	const char *best = NULL, *name;
	GElf_Sym s;
	int rank = -1;

	for (elf_syms_begin(&it, elf, symscn); elf_syms_next(&it, &s, &name);) {
		int rk;

		if (s.st_shndx == SHN_UNDEF || (shndx && s.st_shndx != shndx) ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    addr < s.st_value || addr - s.st_value >= s.st_size)
			continue;
		rk = GELF_ST_BIND(s.st_info) != STB_LOCAL ? 3
		     : !strchr(name, '.')		  ? 2
							  : 1;
		if (rk > rank) {
			rank = rk;
			best = name;
			*sym = s;
		}
	}
	return best;
}

size_t elf_func_name_len(const char *name, size_t max)
{
	const char *dot = strchr(name, '.');
	size_t n = dot && dot != name ? (size_t)(dot - name) : strlen(name);

	return n < max ? n : max;
}

bool elf_vaddr_to_off(const GElf_Phdr *ph, size_t nph, uint64_t v,
		      uint64_t *off)
{
	for (size_t i = 0; i < nph; i++)
		if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr &&
		    v - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = ph[i].p_offset + (v - ph[i].p_vaddr);
			return true;
		}
	return false;
}

int elf_load_bias(const GElf_Phdr *ph, size_t nph, uint64_t start,
		  uint64_t pgoff, uint64_t *bias)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	const GElf_Phdr *seg = NULL;

	/* the segment whose first page the mapping starts with */
	for (size_t i = 0; i < nph && !seg; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_filesz &&
		    ph[i].p_offset >= pgoff && ph[i].p_offset - pgoff < pg)
			seg = &ph[i];
	/* else the one whose file bytes the mapping starts in the middle of */
	for (size_t i = 0; i < nph && !seg; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset < pgoff &&
		    pgoff - ph[i].p_offset < ph[i].p_filesz)
			seg = &ph[i];
	if (!seg)
		return -ENOENT;
	/* file offset x is at start + (x - pgoff) and links at
	 * p_vaddr + (x - p_offset) */
	*bias = start - pgoff + seg->p_offset - seg->p_vaddr;
	return 0;
}
