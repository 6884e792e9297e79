// SPDX-License-Identifier: MIT
/*
 * srcline.c - source file and line of an address, from DWARF line tables
 * (libdwarf), for the probe sites `dtrace -l -v` shows.
 *
 * A file's line tables are read once into one array of address ranges:
 * each row of a line-number sequence covers the addresses up to the next
 * row's, the end_sequence row closes the sequence.  Rows at the same
 * address leave empty ranges behind, so the last row at an address is
 * the one that answers, as addr2line's does.  Lookups are a binary search.
 * File names are the full paths libdwarf builds from the line table's
 * directories (the compilation directory for relative ones), interned:
 * most rows of a compilation unit name the same few files.
 *
 * DWARF is a nicety here, never a reason to fail: a file without debug
 * information, one libdwarf cannot read, or a build without libdwarf
 * gives an empty map and the caller prints bare addresses.  Addresses
 * are link-time addresses of the file (for a relocatable object, offsets
 * in its sections, which libdwarf relocates as it reads).
 *
 * Written against libdwarf's classic interface (dwarf_init_b(),
 * dwarf_next_cu_header_d(), dwarf_srclines_b()), as in Debian 12's
 * 20210528.  Every call is given an error pointer: libdwarf aborts the
 * process on an error it cannot return.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srcline.h"

#ifdef HAVE_LIBDWARF
#include <dwarf.h>
#include <gelf.h>
#include <libdwarf.h>
#include <sys/stat.h>
#endif

struct range {
	uint64_t lo, hi; /* [lo, hi) */
	uint32_t file;	 /* index in files */
	uint32_t line;
};

struct dt_srcmap {
	struct range *r;
	size_t n, cap;
	char **files;
	size_t nfiles;
	bool rel; /* a relocatable object: addresses are REL_ADDR()s */
};

/*
 * In a relocatable object every section starts at 0, so an address alone
 * does not say which function it is in.  Such an object is read with
 * each allocated section moved to its own 4 GiB slot: the symbols'
 * values in a private copy of the file get the slot's base added before
 * libdwarf applies the relocations of the line tables, and lookups
 * name the section.
 */
#define REL_ADDR(shndx, off) ((uint64_t)(shndx) << 32 | (uint32_t)(off))

bool dt_srcmap_find(const struct dt_srcmap *m, size_t shndx, uint64_t addr,
		    const char **file, unsigned long *line)
{
	size_t lo = 0, hi;

	if (!m || !m->n)
		return false;
	if (m->rel) {
		if (!shndx || addr > UINT32_MAX)
			return false;
		addr = REL_ADDR(shndx, addr);
	}
	/* the last range starting at or below addr */
	hi = m->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->r[mid].lo <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* overlapping sequences (relocatable objects): look back a little */
	for (size_t i = lo + 1; i-- > 0 && lo - i < 64;) {
		const struct range *r = &m->r[i];

		if (r->lo <= addr && addr < r->hi) {
			*file = m->files[r->file];
			*line = r->line;
			return true;
		}
	}
	return false;
}

void dt_srcmap_free(struct dt_srcmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
	free(m->r);
	free(m);
}

#ifdef HAVE_LIBDWARF

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static int add_range(struct dt_srcmap *m, uint64_t lo, uint64_t hi,
		     uint32_t file, uint32_t line)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct range *nr = realloc(m->r, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		m->r = nr;
		m->cap = cap;
	}
	m->r[m->n++] = (struct range){lo, hi, file, line};
	return 0;
}

/* Intern a file name; UINT32_MAX without memory. */
static uint32_t intern(struct dt_srcmap *m, const char *name)
{
	char **nf;

	for (size_t i = m->nfiles; i-- > 0;)
		if (!strcmp(m->files[i], name))
			return (uint32_t)i;
	nf = realloc(m->files, (m->nfiles + 1) * sizeof(*nf));
	if (!nf)
		return UINT32_MAX;
	m->files = nf;
	nf[m->nfiles] = strdup(name);
	if (!nf[m->nfiles])
		return UINT32_MAX;
	return (uint32_t)m->nfiles++;
}

struct row {
	Dwarf_Addr addr;
	Dwarf_Unsigned line;
	uint32_t file;
	bool end;
};

/* One compilation unit's line table into ranges. */
static int read_cu(Dwarf_Debug dbg, struct dt_srcmap *m, Dwarf_Die cu)
{
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed nlines = 0;
	Dwarf_Unsigned version;
	Dwarf_Small ntables;
	Dwarf_Error err = NULL;
	struct row prev = {0, 0, 0, true};
	/* per-unit cache: DWARF file number -> interned index */
	uint32_t cache[64];
	int ret = 0;

	memset(cache, 0xff, sizeof(cache));
	if (dwarf_srclines_b(cu, &version, &ntables, &ctx, &err) != DW_DLV_OK) {
		if (err)
			dwarf_dealloc(dbg, err, DW_DLA_ERROR);
		return 0; /* a unit without lines */
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &nlines, &err) !=
	    DW_DLV_OK) {
		if (err)
			dwarf_dealloc(dbg, err, DW_DLA_ERROR);
		goto out;
	}
	for (Dwarf_Signed i = 0; i < nlines; i++) {
		struct row cur = {0, 0, 0, false};
		Dwarf_Unsigned fno = 0;
		Dwarf_Bool end = 0;
		char *src = NULL;

		if (dwarf_lineaddr(lines[i], &cur.addr, &err) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &cur.line, &err) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &err) != DW_DLV_OK) {
			if (err)
				dwarf_dealloc(dbg, err, DW_DLA_ERROR);
			err = NULL;
			prev.end = true;
			continue;
		}
		cur.end = end != 0;
		if (dwarf_line_srcfileno(lines[i], &fno, &err) != DW_DLV_OK) {
			if (err)
				dwarf_dealloc(dbg, err, DW_DLA_ERROR);
			err = NULL;
			fno = UINT64_MAX;
		}
		if (fno < 64 && cache[fno] != UINT32_MAX) {
			cur.file = cache[fno];
		} else if (dwarf_linesrc(lines[i], &src, &err) == DW_DLV_OK) {
			cur.file = intern(m, src);
			dwarf_dealloc(dbg, src, DW_DLA_STRING);
			if (cur.file == UINT32_MAX) {
				ret = -ENOMEM;
				goto out;
			}
			if (fno < 64)
				cache[fno] = cur.file;
		} else {
			if (err)
				dwarf_dealloc(dbg, err, DW_DLA_ERROR);
			err = NULL;
			prev.end = true;
			continue;
		}
		/* the previous row covers up to this one */
		if (!prev.end && cur.addr > prev.addr &&
		    add_range(m, prev.addr, cur.addr, prev.file,
			      (uint32_t)prev.line)) {
			ret = -ENOMEM;
			goto out;
		}
		prev = cur;
	}
out:
	dwarf_srclines_dealloc_b(ctx);
	return ret;
}

/*
 * A copy of the relocatable object in buf, with each allocated section's
 * symbols moved to the section's slot (see REL_ADDR).  ELF64 little-endian
 * only (the caller checked); every offset is checked against the size.
 */
static bool move_sections(uint8_t *buf, size_t size)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh;
	size_t shnum;

	if (size < sizeof(*eh) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return false;
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	shnum = eh->e_shnum;
	for (size_t i = 0; i < shnum; i++) {
		Elf64_Sym *sym;
		size_t n;

		if (sh[i].sh_type != SHT_SYMTAB ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym) ||
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		sym = (Elf64_Sym *)(buf + sh[i].sh_offset);
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t j = 1; j < n; j++) {
			size_t sec = sym[j].st_shndx;

			if (sec == SHN_UNDEF || sec >= shnum ||
			    sec >= SHN_LORESERVE ||
			    !(sh[sec].sh_flags & SHF_ALLOC) ||
			    sym[j].st_value > UINT32_MAX)
				continue;
			sym[j].st_value = REL_ADDR(sec, sym[j].st_value);
		}
	}
	return true;
}

/* Open the file for libdwarf: as it is, or moved (relocatable objects). */
static int dwarf_open(int fd, struct dt_srcmap *m, Dwarf_Debug *dbg, Elf **elf,
		      uint8_t **copy)
{
	Dwarf_Error err = NULL;
	unsigned char ident[EI_NIDENT];
	Elf64_Half type;
	struct stat st;
	int ret;

	*elf = NULL;
	*copy = NULL;
	if (pread(fd, ident, sizeof(ident), 0) == (ssize_t)sizeof(ident) &&
	    pread(fd, &type, sizeof(type), EI_NIDENT) ==
		    (ssize_t)sizeof(type) &&
	    memcmp(ident, ELFMAG, SELFMAG) == 0 &&
	    ident[EI_CLASS] == ELFCLASS64 && ident[EI_DATA] == ELFDATA2LSB &&
	    type == ET_REL && fstat(fd, &st) == 0 && st.st_size > 0) {
		size_t size = (size_t)st.st_size;

		*copy = malloc(size);
		if (!*copy || pread(fd, *copy, size, 0) != (ssize_t)size ||
		    !move_sections(*copy, size) ||
		    elf_version(EV_CURRENT) == EV_NONE ||
		    !(*elf = elf_memory((char *)*copy, size))) {
			free(*copy);
			*copy = NULL;
			return DW_DLV_NO_ENTRY;
		}
		m->rel = true;
		ret = dwarf_elf_init_b(*elf, DW_DLC_READ, DW_GROUPNUMBER_ANY,
				       NULL, NULL, dbg, &err);
	} else {
		ret = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL,
				   NULL, dbg, &err);
	}
	if (ret == DW_DLV_ERROR && err)
		dwarf_dealloc(*dbg, err, DW_DLA_ERROR);
	return ret;
}

struct dt_srcmap *dt_srcmap_open(const char *path)
{
	struct dt_srcmap *m;
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	uint8_t *copy;
	Elf *elf;
	Dwarf_Unsigned hdr_len, typeoff, next = 0;
	Dwarf_Half version, addr_size, off_size, ext_size, cu_type;
	Dwarf_Off abbrev;
	Dwarf_Sig8 sig;
	int fd, ret;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return m;
	ret = dwarf_open(fd, m, &dbg, &elf, &copy);
	if (ret != DW_DLV_OK) {
		if (elf)
			elf_end(elf);
		free(copy);
		close(fd);
		return m;
	}
	for (;;) {
		Dwarf_Die cu = NULL;

		err = NULL;
		ret = dwarf_next_cu_header_d(dbg, 1, &hdr_len, &version,
					     &abbrev, &addr_size, &off_size,
					     &ext_size, &sig, &typeoff, &next,
					     &cu_type, &err);
		if (ret != DW_DLV_OK)
			break;
		ret = dwarf_siblingof_b(dbg, NULL, 1, &cu, &err);
		if (ret != DW_DLV_OK)
			break;
		ret = read_cu(dbg, m, cu);
		dwarf_dealloc(dbg, cu, DW_DLA_DIE);
		if (ret)
			break;
	}
	if (ret == DW_DLV_ERROR && err)
		dwarf_dealloc(dbg, err, DW_DLA_ERROR);
	err = NULL;
	dwarf_finish(dbg, &err);
	if (elf)
		elf_end(elf);
	free(copy);
	close(fd);
	if (m->n)
		qsort(m->r, m->n, sizeof(m->r[0]), cmp_range);
	return m;
}

#else /* !HAVE_LIBDWARF */

struct dt_srcmap *dt_srcmap_open(const char *path)
{
	(void)path;
	return calloc(1, sizeof(struct dt_srcmap));
}

#endif
