/* SPDX-License-Identifier: MIT */
/*
 * objfile.h - an ELF file opened for reading, once, by every reader that
 * needs it at that moment (objfile.c): its descriptor and libelf handle,
 * ELF header, program headers, symbol tables, and an iterator over a
 * symbol table's named symbols.
 *
 * The tracer reads each file a traced process maps for its probes
 * (dtrace-G/objects/elfprobes.c) and for what its sites need (notes,
 * symbols: consumer/sites.c); `dtrace -l -p` for its probes and its load
 * bias.  They share one struct objfile instead of each opening, checking
 * and walking the file again.  Sections are found by name with elfsec.h
 * (elfw_section_find()) on of->elf.
 *
 * The file is untrusted and may be another user's: it is read with
 * ELF_C_READ, never mapped (its owner may truncate it under us, and a
 * mapped page past the new end is a SIGBUS where a short pread() is an
 * error), opened with O_NONBLOCK (a FIFO does not hang the open) and
 * taken only when it is a regular file.
 */
#ifndef USDT_OBJFILE_H
#define USDT_OBJFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <gelf.h>

struct objfile {
	char *path; /* as opened */
	int fd;
	struct stat st;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	GElf_Phdr *ph; /* e_phnum entries (one libelf cannot read: zeroes) */
	size_t nph;
	Elf_Scn *symtab; /* SHT_SYMTAB, or NULL (stripped) */
	Elf_Scn *dynsym; /* SHT_DYNSYM, or NULL */
};

/*
 * Open path and read its ELF and program headers: 0, or -errno with a
 * sentence in msg (no path in it: the caller names the file), *of then
 * empty: -ENOMEM, the open's -errno, -EINVAL ("not an ELF file (not a
 * regular file)", "not an ELF file", "bad ELF header: ...").
 */
int objf_open(struct objfile *of, const char *path, char *msg, size_t msglen);

/*
 * The same of a descriptor open for reading, which *of then owns (it is
 * closed on failure too); path names it in of->path.
 */
int objf_open_fd(struct objfile *of, int fd, const char *path, char *msg,
		 size_t msglen);

void objf_close(struct objfile *of);

/* The table that names the most symbols: .symtab, else .dynsym. */
static inline Elf_Scn *objf_symbols(const struct objfile *of)
{
	return of->symtab ? of->symtab : of->dynsym;
}

/*
 * The named symbols of a symbol table, in table order, from index 1 (0
 * is the null symbol); one whose entry or name cannot be read, or whose
 * name is empty, is skipped.
 *
 *	struct elf_syms it;
 *	for (elf_syms_begin(&it, elf, scn); elf_syms_next(&it, &s, &nm);)
 */
struct elf_syms {
	Elf *elf;
	Elf_Data *d;
	size_t strndx; /* the table's sh_link */
	size_t i, n;
};

void elf_syms_begin(struct elf_syms *it, Elf *elf, Elf_Scn *scn);
bool elf_syms_next(struct elf_syms *it, GElf_Sym *sym, const char **name);

/*
 * The function that holds address addr of section shndx (0: of any
 * defined section), named as `dtrace -G` names it and every reader of
 * its output must: among the STT_FUNC and STT_GNU_IFUNC symbols that
 * cover addr, a global or weak one before a local one, and a local
 * without '.' before a compiler's clone (helper.constprop.0, main.cold);
 * the first of the best rank in table order.  Its name, with the symbol
 * in *sym, or NULL if none covers addr.
 */
const char *elf_func_at(Elf *elf, Elf_Scn *symscn, size_t shndx,
			uint64_t addr, GElf_Sym *sym);

/*
 * How much of a function symbol's name names the function in a probe:
 * what precedes its first '.' (GCC's clones keep the source name before
 * the dot; a name that starts with '.' is kept whole), at most max bytes.
 */
size_t elf_func_name_len(const char *name, size_t max);

/*
 * The file offset of link-time address v: in the PT_LOAD segment that
 * holds it in the file (not in its zero-filled tail).  false if none.
 */
bool elf_vaddr_to_off(const GElf_Phdr *ph, size_t nph, uint64_t v,
		      uint64_t *off);

/*
 * The load bias of the file mapped at start from file offset pgoff (a
 * line of /proc/PID/maps): run-time address = link-time address + bias.
 * The mapping is of the PT_LOAD segment that starts in its first page,
 * else of the one whose file bytes hold pgoff (a mapping that starts in
 * the middle of a segment).  0, or -ENOENT when it is of no segment.
 */
int elf_load_bias(const GElf_Phdr *ph, size_t nph, uint64_t start,
		  uint64_t pgoff, uint64_t *bias);

#endif /* USDT_OBJFILE_H */
