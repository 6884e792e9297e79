// SPDX-License-Identifier: MIT
/*
 * elfsec.c - find and copy an ELF file's sections by name (elfsec.h).
 *
 * The names live in the section-header string table (e_shstrndx, which
 * libelf resolves through the extended numbering when there are more
 * than SHN_LORESERVE sections).  elf_strptr() checks the offset against
 * that table, so a damaged sh_name gives NULL, and the section is simply
 * not the one sought.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "elfsec.h"

Elf_Scn *elfw_section_next(Elf *elf, Elf_Scn *scn, const char *name,
			   GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

void *elfw_section_copy(Elf_Scn *scn, const GElf_Shdr *sh, size_t *len)
{
	Elf_Data *d;
	void *buf;

	*len = 0;
	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	buf = malloc(d->d_size);
	if (!buf)
		return NULL;
	memcpy(buf, d->d_buf, d->d_size);
	*len = d->d_size;
	return buf;
}
