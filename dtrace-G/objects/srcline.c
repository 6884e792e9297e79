// SPDX-License-Identifier: MIT
/*
 * srcline.c - source file and line of an address, from DWARF line tables
 * (elfutils' libdwfl), for the probe sites `dtrace -l -v` shows.
 *
 * The object is reported to a libdwfl session of its own, as a file on
 * disk (dwfl_report_offline()), and each lookup is one
 * dwfl_module_getsrc(): libdw reads a unit's line table once, the first
 * time an address in it is asked, and answers the row covering the
 * address (the last row at an address, as addr2line's answer).  File
 * names are the full paths libdw builds from the line table's directories
 * (the compilation directory for relative ones); they live as long as the
 * map.  A separate debug file is found by build-id or debuglink under
 * /usr/lib/debug, as for the stacks (consumer/usym.c).  The file may be
 * another user's, who can cut it while libdwfl maps it: libdwfl gets the
 * descriptors elfsafe.c makes safe.
 *
 * Addresses are link-time addresses of the file.  A relocatable object
 * has no layout of its own: libdwfl gives each allocated section an
 * address when the object is reported (writing it into the section
 * header it holds) and applies the relocations of the debug sections
 * against those addresses, so an offset in section shndx is asked at that
 * section's address plus the offset.
 *
 * DWARF is a nicety here, never a reason to fail: a file without debug
 * information, or one libdw cannot read, gives an empty map and the
 * caller prints bare addresses.
 *
 * dwfl_module_getsrc() finds an address's unit through .debug_aranges,
 * which clang does not write (and which libdw 0.188 does not make up
 * from the units' own ranges); where it finds nothing, the unit whose
 * ranges cover the address is looked for one by one (dwarf_haspc()) and
 * its line table asked (dt_dwfl_srcline(), which usym.c uses too).
 *
 * (This used libdwarf before the stacks came: libdwarf and libdw export
 * the same dwarf_* names and each calls its own through the PLT, so the
 * two cannot live in one process; dtrace uses libdw alone.)
 */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsafe.h"
#include "srcline.h"

struct dt_srcmap {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* link-time address + bias = the session's address */
	bool rel;	 /* a relocatable object: addresses name a section */
	Elf *elf;	 /* its ELF as libdwfl holds it (section addresses) */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

bool dt_dwfl_srcline(struct Dwfl_Module *mod, uint64_t addr,
		     const char **file, unsigned long *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	const char *f;
	int lineno = 0;

	if (l) {
		f = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
		if (!f || lineno <= 0)
			return false;
		*file = f;
		*line = (unsigned long)lineno;
		return true;
	}
	/* no .debug_aranges (clang): the unit whose ranges have addr */
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Line *dl;

		if (addr < bias || dwarf_haspc(cu, addr - bias) <= 0)
			continue;
		dl = dwarf_getsrc_die(cu, addr - bias);
		f = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
		if (!f || dwarf_lineno(dl, &lineno) != 0 || lineno <= 0)
			return false;
		*file = f;
		*line = (unsigned long)lineno;
		return true;
	}
	return false;
}

bool dt_srcmap_find(const struct dt_srcmap *m, size_t shndx, uint64_t addr,
		    const char **file, unsigned long *line)
{
	Dwarf_Addr a = addr;

	if (!m || !m->mod)
		return false;
	if (m->rel) {
		Elf_Scn *scn;
		GElf_Shdr sh;

		if (!shndx || !m->elf || !(scn = elf_getscn(m->elf, shndx)) ||
		    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    addr >= sh.sh_size)
			return false;
		a = sh.sh_addr + addr;
	}
	return dt_dwfl_srcline(m->mod, a + m->bias, file, line);
}

void dt_srcmap_free(struct dt_srcmap *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m);
}

struct dt_srcmap *dt_srcmap_open(const char *path)
{
	struct dt_srcmap *m = calloc(1, sizeof(*m));
	GElf_Ehdr eh;

	if (!m)
		return NULL;
	m->mod = dt_dwfl_offline(path, &m->cb, &m->debuginfo_path, &m->dwfl);
	if (!m->mod)
		return m;
	m->elf = dwfl_module_getelf(m->mod, &m->bias);
	if (!m->elf || !gelf_getehdr(m->elf, &eh)) {
		m->mod = NULL;
		return m;
	}
	m->rel = eh.e_type == ET_REL;
	return m;
}
