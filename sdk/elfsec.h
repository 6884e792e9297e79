/* SPDX-License-Identifier: MIT */
/*
 * elfsec.h - finding and copying an ELF file's sections by name: the one
 * section reader of usdt-sdk (elfsec.c), for the elfw_ family.
 *
 * `dtrace -G` reads the stapsdt notes of its input objects, `dtrace -l
 * --object` and the tracer read .SUNW_dof, .note.stapsdt and
 * .stapsdt.base of programs and libraries on disk.  They all look a
 * section up by name, and a relocatable object may hold several sections
 * of one name (one .note.stapsdt per COMDAT group), so the lookup is an
 * iterator.  The file is untrusted: a section header or name libelf
 * cannot read is skipped, never followed.
 */
#ifndef USDT_ELFSEC_H
#define USDT_ELFSEC_H

#include <stddef.h>

#include <gelf.h>

/*
 * The next section after scn (NULL: from the start) whose name is name,
 * with its header in *sh; NULL when there is none.
 */
Elf_Scn *elfw_section_next(Elf *elf, Elf_Scn *scn, const char *name,
			   GElf_Shdr *sh);

/* The first section of that name (elfw_section_next from the start). */
static inline Elf_Scn *elfw_section_find(Elf *elf, const char *name,
					 GElf_Shdr *sh)
{
	return elfw_section_next(elf, NULL, name, sh);
}

/*
 * A malloc'ed copy of the section's bytes as the file holds them, with
 * *len; NULL with *len 0 when it has none (SHT_NOBITS, empty) or without
 * memory.
 */
void *elfw_section_copy(Elf_Scn *scn, const GElf_Shdr *sh, size_t *len);

#endif /* USDT_ELFSEC_H */
