// SPDX-License-Identifier: MIT
/*
 * elfw.c - build small 64-bit little-endian ET_REL objects (x86-64 or
 * aarch64: elfw_set_machine()) with libelf; localize the
 * symbols of an object after `ld -r` (see elfw.h).
 *
 * Section order in a written object:
 *
 *	[0]	null
 *	[1..g]	.group sections (a group must precede its members)
 *	...	the sections in the order they were added, each followed
 *		by its .rela section when it has relocations
 *	...	.symtab, .strtab, .shstrtab
 *
 * Symbol order: the null symbol, section symbols, other locals, then
 * globals and weaks, each group in the order added.  Contents are written
 * as raw little-endian bytes (ELF_T_BYTE): usdt-sdk only writes
 * little-endian objects (x86-64, aarch64) and only runs on x86-64 hosts,
 * so no conversion is needed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfw.h"
#include "grow.h"

/* clang's address-significance table (lld's --icf=safe): hints only */
#ifndef SHT_LLVM_ADDRSIG
#define SHT_LLVM_ADDRSIG 0x6fff4c03
#endif

struct wrela {
	uint64_t offset;
	int sym;
	uint32_t type;
	int64_t addend;
};

struct wsec {
	char *name;
	uint32_t type;
	uint64_t flags, align, entsize;
	void *data;
	size_t size;
	struct wrela *rel;
	unsigned nrel;
	size_t relcap;
	int secsym;		/* handle of its STT_SECTION symbol, 0 if none */
	unsigned index;		/* final index, set by elfw_write */
	unsigned relindex;
};

struct wsym {
	char *name;
	int sec;
	uint64_t value, size;
	int bind, type, vis;
	unsigned index;		/* final index */
};

struct wgroup {
	int sig;
	int *secs;
	unsigned n;
};

struct elfw {
	struct wsec *secs;	/* [0] unused */
	unsigned nsec;
	size_t seccap;
	struct wsym *syms;	/* [0] unused */
	unsigned nsym;
	size_t symcap;
	struct wgroup *groups;
	unsigned ngroup;
	unsigned machine;	/* e_machine: EM_X86_64 unless set */
};

static int elfw_err(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int elfw_err(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

struct elfw *elfw_new(void)
{
	struct elfw *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->secs = calloc(1, sizeof(*w->secs));
	w->syms = calloc(1, sizeof(*w->syms));
	if (!w->secs || !w->syms) {
		elfw_free(w);
		return NULL;
	}
	w->nsec = w->nsym = 1;
	w->machine = EM_X86_64;
	w->seccap = w->symcap = 1;
	return w;
}

void elfw_set_machine(struct elfw *w, unsigned machine)
{
	w->machine = machine;
}

void elfw_free(struct elfw *w)
{
	if (!w)
		return;
	for (unsigned i = 1; i < w->nsec; i++) {
		free(w->secs[i].name);
		free(w->secs[i].data);
		free(w->secs[i].rel);
	}
	for (unsigned i = 1; i < w->nsym; i++)
		free(w->syms[i].name);
	for (unsigned i = 0; i < w->ngroup; i++)
		free(w->groups[i].secs);
	free(w->secs);
	free(w->syms);
	free(w->groups);
	free(w);
}

int elfw_section(struct elfw *w, const char *name, uint32_t type,
		 uint64_t flags, uint64_t align, uint64_t entsize,
		 const void *data, size_t size)
{
	struct wsec *s;

	if (grow_one(&w->secs, &w->seccap, w->nsec, sizeof(*w->secs)))
		return -ENOMEM;
	s = &w->secs[w->nsec];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	s->type = type;
	s->flags = flags;
	s->align = align ? align : 1;
	s->entsize = entsize;
	if (elfw_set_data(w, (int)w->nsec, data, size) < 0) {
		free(s->name);
		return -ENOMEM;
	}
	return (int)w->nsec++;
}

int elfw_set_data(struct elfw *w, int sec, const void *data, size_t size)
{
	struct wsec *s = &w->secs[sec];
	void *copy = NULL;

	if (data && size) {
		copy = malloc(size);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, size);
	}
	free(s->data);
	s->data = copy;
	s->size = size;
	return 0;
}

int elfw_symbol(struct elfw *w, const char *name, int sec, uint64_t value,
		uint64_t size, int bind, int type, int visibility)
{
	struct wsym *s;

	if (grow_one(&w->syms, &w->symcap, w->nsym, sizeof(*w->syms)))
		return -ENOMEM;
	s = &w->syms[w->nsym];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name ? name : "");
	if (!s->name)
		return -ENOMEM;
	s->sec = sec;
	s->value = value;
	s->size = size;
	s->bind = bind;
	s->type = type;
	s->vis = visibility;
	return (int)w->nsym++;
}

int elfw_section_symbol(struct elfw *w, int sec)
{
	int h;

	if (w->secs[sec].secsym)
		return w->secs[sec].secsym;
	h = elfw_symbol(w, "", sec, 0, 0, STB_LOCAL, STT_SECTION,
			STV_DEFAULT);
	if (h > 0)
		w->secs[sec].secsym = h;
	return h;
}

int elfw_rela(struct elfw *w, int sec, uint64_t offset, int sym,
	      uint32_t type, int64_t addend)
{
	struct wsec *s = &w->secs[sec];

	if (grow_one(&s->rel, &s->relcap, s->nrel, sizeof(*s->rel)))
		return -ENOMEM;
	s->rel[s->nrel++] = (struct wrela){ offset, sym, type, addend };
	return 0;
}

int elfw_comdat(struct elfw *w, int sig, const int *secs, unsigned n)
{
	int *copy = malloc(n * sizeof(*copy));

	if (!copy ||
	    grow_count(&w->groups, w->ngroup, sizeof(*w->groups)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, secs, n * sizeof(*copy));
	w->groups[w->ngroup++] = (struct wgroup){sig, copy, n};
	for (unsigned i = 0; i < n; i++)
		w->secs[secs[i]].flags |= SHF_GROUP;
	return 0;
}

/*
 * Add s to a string table under construction: its offset, or -ENOMEM.
 * The empty string is the table's first byte, shared.
 */
static long strtab_add(struct sbuf *t, const char *s)
{
	long off = (long)t->len;

	if (!*s && t->len)
		return 0;
	if (sbuf_add(t, s, strlen(s) + 1) < 0)
		return -ENOMEM;
	return off;
}

static int add_scn(Elf *elf, const GElf_Shdr *sh, void *data, size_t size,
		   size_t align)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d;
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return -EINVAL;
	shdr = *sh;
	if (!gelf_update_shdr(scn, &shdr))
		return -EINVAL;
	if (!size && sh->sh_type != SHT_NOBITS)
		return 0;
	d = elf_newdata(scn);
	if (!d)
		return -EINVAL;
	d->d_buf = data;
	d->d_size = size;
	d->d_align = align;
	d->d_type = ELF_T_BYTE;
	d->d_version = EV_CURRENT;
	return 0;
}

int elfw_write(struct elfw *w, int fd, char *msg, size_t msglen)
{
	struct sbuf str = {0}, shstr = {0};
	Elf64_Sym *symtab = NULL;
	Elf64_Rela **relbufs = NULL;
	uint32_t **grpbufs = NULL;
	unsigned idx = 1, nlocal = 0, k = 1, symtab_idx, strtab_idx, shstr_idx;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf *elf = NULL;
	int err = -ENOMEM;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return elfw_err(msg, msglen, "libelf is out of date");

	/* final section indices */
	idx += w->ngroup;
	for (unsigned i = 1; i < w->nsec; i++) {
		w->secs[i].index = idx++;
		if (w->secs[i].nrel)
			w->secs[i].relindex = idx++;
	}
	symtab_idx = idx++;
	strtab_idx = idx++;
	shstr_idx = idx++;

	/* final symbol indices: section symbols, locals, then the rest */
	for (int pass = 0; pass < 3; pass++) {
		for (unsigned i = 1; i < w->nsym; i++) {
			struct wsym *s = &w->syms[i];
			int p = s->type == STT_SECTION ? 0 :
				s->bind == STB_LOCAL ? 1 : 2;

			if (p == pass)
				s->index = k++;
		}
		if (pass == 1)
			nlocal = k;
	}

	symtab = calloc(w->nsym, sizeof(*symtab));
	relbufs = calloc(w->nsec, sizeof(*relbufs));
	grpbufs = calloc(w->ngroup + 1, sizeof(*grpbufs));
	if (!symtab || !relbufs || !grpbufs)
		goto out;
	if (strtab_add(&str, "") < 0 || strtab_add(&shstr, "") < 0)
		goto out;
	for (unsigned i = 1; i < w->nsym; i++) {
		struct wsym *s = &w->syms[i];
		Elf64_Sym *e = &symtab[s->index];
		long n = strtab_add(&str, s->name);

		if (n < 0)
			goto out;
		e->st_name = (Elf64_Word)n;
		e->st_value = s->value;
		e->st_size = s->size;
		e->st_info = (unsigned char)ELF64_ST_INFO(s->bind, s->type);
		e->st_other = (unsigned char)ELF64_ST_VISIBILITY(s->vis);
		e->st_shndx = s->sec == SHN_ABS ? SHN_ABS :
			      s->sec ? (Elf64_Section)w->secs[s->sec].index : 0;
	}

	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &eh)) {
		err = elfw_err(msg, msglen, "libelf: %s", elf_errmsg(-1));
		goto out;
	}
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	/* GNU: its SHF_GNU_RETAIN is honoured (GNU ld reads the flag only then) */
	eh.e_ident[EI_OSABI] = ELFOSABI_GNU;
	eh.e_type = ET_REL;
	eh.e_machine = (Elf64_Half)w->machine;
	eh.e_version = EV_CURRENT;
	eh.e_shstrndx = (Elf64_Half)shstr_idx;
	if (!gelf_update_ehdr(elf, &eh))
		goto libelf_err;

	for (unsigned g = 0; g < w->ngroup; g++) {
		struct wgroup *gr = &w->groups[g];
		long n = strtab_add(&shstr, ".group");
		unsigned nm = 1;

		/* a member's relocation section is a member too */
		grpbufs[g] = calloc(2 * gr->n + 1, sizeof(uint32_t));
		if (n < 0 || !grpbufs[g])
			goto out;
		grpbufs[g][0] = GRP_COMDAT;
		for (unsigned i = 0; i < gr->n; i++) {
			const struct wsec *m = &w->secs[gr->secs[i]];

			grpbufs[g][nm++] = m->index;
			if (m->nrel)
				grpbufs[g][nm++] = m->relindex;
		}
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (Elf64_Word)n;
		sh.sh_type = SHT_GROUP;
		sh.sh_link = symtab_idx;
		sh.sh_info = w->syms[gr->sig].index;
		sh.sh_entsize = 4;
		sh.sh_addralign = 4;
		if (add_scn(elf, &sh, grpbufs[g], nm * 4, 4) < 0)
			goto libelf_err;
	}
	for (unsigned i = 1; i < w->nsec; i++) {
		struct wsec *s = &w->secs[i];
		long n = strtab_add(&shstr, s->name);

		if (n < 0)
			goto out;
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (Elf64_Word)n;
		sh.sh_type = s->type;
		sh.sh_flags = s->flags;
		sh.sh_addralign = s->align;
		sh.sh_entsize = s->entsize;
		if (s->type == SHT_NOBITS)
			sh.sh_size = s->size;
		if (add_scn(elf, &sh, s->data, s->size, s->align) < 0)
			goto libelf_err;
		if (!s->nrel)
			continue;
		{
			char rname[256];
			Elf64_Rela *r = calloc(s->nrel, sizeof(*r));

			if (!r)
				goto out;
			relbufs[i] = r;
			for (unsigned j = 0; j < s->nrel; j++) {
				r[j].r_offset = s->rel[j].offset;
				r[j].r_info = ELF64_R_INFO(
					w->syms[s->rel[j].sym].index,
					s->rel[j].type);
				r[j].r_addend = s->rel[j].addend;
			}
			snprintf(rname, sizeof(rname), ".rela%s", s->name);
			n = strtab_add(&shstr, rname);
			if (n < 0)
				goto out;
			memset(&sh, 0, sizeof(sh));
			sh.sh_name = (Elf64_Word)n;
			sh.sh_type = SHT_RELA;
			sh.sh_flags = SHF_INFO_LINK |
				      (s->flags & SHF_GROUP);
			sh.sh_link = symtab_idx;
			sh.sh_info = s->index;
			sh.sh_entsize = sizeof(Elf64_Rela);
			sh.sh_addralign = 8;
			if (add_scn(elf, &sh, r, s->nrel * sizeof(*r), 8) < 0)
				goto libelf_err;
		}
	}
	{
		long n1 = strtab_add(&shstr, ".symtab");
		long n2 = strtab_add(&shstr, ".strtab");
		long n3 = strtab_add(&shstr, ".shstrtab");

		if (n1 < 0 || n2 < 0 || n3 < 0)
			goto out;
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (Elf64_Word)n1;
		sh.sh_type = SHT_SYMTAB;
		sh.sh_link = strtab_idx;
		sh.sh_info = nlocal;
		sh.sh_entsize = sizeof(Elf64_Sym);
		sh.sh_addralign = 8;
		if (add_scn(elf, &sh, symtab, w->nsym * sizeof(*symtab), 8) < 0)
			goto libelf_err;
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (Elf64_Word)n2;
		sh.sh_type = SHT_STRTAB;
		sh.sh_addralign = 1;
		if (add_scn(elf, &sh, str.b, str.len, 1) < 0)
			goto libelf_err;
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (Elf64_Word)n3;
		sh.sh_type = SHT_STRTAB;
		sh.sh_addralign = 1;
		if (add_scn(elf, &sh, shstr.b, shstr.len, 1) < 0)
			goto libelf_err;
	}
	if (elf_update(elf, ELF_C_WRITE) < 0)
		goto libelf_err;
	err = 0;
	goto out;
libelf_err:
	err = elfw_err(msg, msglen, "libelf: %s", elf_errmsg(-1));
out:
	if (err == -ENOMEM)
		snprintf(msg, msglen, "out of memory");
	if (elf)
		elf_end(elf);
	for (unsigned i = 0; relbufs && i < w->nsec; i++)
		free(relbufs[i]);
	for (unsigned i = 0; grpbufs && i < w->ngroup; i++)
		free(grpbufs[i]);
	free(relbufs);
	free(grpbufs);
	free(symtab);
	free(str.b);
	free(shstr.b);
	return err;
}

/* ----------------------------------------------------------------------
 * Localizing after `ld -r`
 */

int elfw_localize(const char *path, int (*keep)(const char *name, void *arg),
		  void *arg, char *msg, size_t msglen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL, *symscn = NULL;
	Elf_Data *symd = NULL, *strd;
	GElf_Shdr symsh, sh;
	Elf64_Sym *old = NULL, *nsym = NULL;
	unsigned *map = NULL;
	size_t n, k = 0, nlocal = 0;
	int fd, err = -EINVAL;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return elfw_err(msg, msglen, "libelf is out of date");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "cannot open %s: %s", path,
			 strerror(errno));
		return err;
	}
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!elf)
		goto libelf_err;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			goto libelf_err;
		if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			err = elfw_err(msg, msglen,
				       "%s: extended section indices are not supported",
				       path);
			goto out;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
		}
	}
	if (!symscn) {
		err = elfw_err(msg, msglen, "%s: no symbol table", path);
		goto out;
	}
	symd = elf_getdata(symscn, NULL);
	strd = elf_getdata(elf_getscn(elf, symsh.sh_link), NULL);
	if (!symd || !strd)
		goto libelf_err;
	n = symd->d_size / sizeof(Elf64_Sym);
	old = malloc(symd->d_size);
	nsym = malloc(symd->d_size);
	map = malloc(n * sizeof(*map));
	if (!old || !nsym || !map) {
		err = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out;
	}
	memcpy(old, symd->d_buf, symd->d_size);

	/* pass 0: locals; 1: globals to localize; 2: globals to keep */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			Elf64_Sym *s = &old[i];
			int bind = ELF64_ST_BIND(s->st_info);
			const char *name = s->st_name < strd->d_size ?
				(const char *)strd->d_buf + s->st_name : "";
			int p;

			if (bind == STB_LOCAL)
				p = 0;
			else if (s->st_shndx != SHN_UNDEF &&
				 !(keep && keep(name, arg)))
				p = 1;
			else
				p = 2;
			if (p != pass)
				continue;
			nsym[k] = *s;
			if (p == 1) {
				nsym[k].st_info = (unsigned char)ELF64_ST_INFO(
					STB_LOCAL, ELF64_ST_TYPE(s->st_info));
				nsym[k].st_other = (unsigned char)
					ELF64_ST_VISIBILITY(STV_DEFAULT);
			}
			map[i] = (unsigned)k++;
		}
		if (pass == 1)
			nlocal = k;
	}
	memcpy(symd->d_buf, nsym, symd->d_size);
	elf_flagdata(symd, ELF_C_SET, ELF_F_DIRTY);
	symsh.sh_info = (Elf64_Word)nlocal;
	if (!gelf_update_shdr(symscn, &symsh))
		goto libelf_err;

	/* renumber every reference to the symbol table */
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			goto libelf_err;
		if (sh.sh_link != elf_ndxscn(symscn))
			continue;
		if (sh.sh_type == SHT_GROUP) {
			if (sh.sh_info >= n)
				goto bad;
			sh.sh_info = map[sh.sh_info];
			if (!gelf_update_shdr(scn, &sh))
				goto libelf_err;
			continue;
		}
		if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			goto libelf_err;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
			if (sh.sh_type == SHT_RELA) {
				GElf_Rela r;

				if (!gelf_getrela(d, (int)i, &r))
					goto libelf_err;
				if (GELF_R_SYM(r.r_info) >= n)
					goto bad;
				r.r_info = GELF_R_INFO(map[GELF_R_SYM(r.r_info)],
						       GELF_R_TYPE(r.r_info));
				if (!gelf_update_rela(d, (int)i, &r))
					goto libelf_err;
			} else {
				GElf_Rel r;

				if (!gelf_getrel(d, (int)i, &r))
					goto libelf_err;
				if (GELF_R_SYM(r.r_info) >= n)
					goto bad;
				r.r_info = GELF_R_INFO(map[GELF_R_SYM(r.r_info)],
						       GELF_R_TYPE(r.r_info));
				if (!gelf_update_rel(d, (int)i, &r))
					goto libelf_err;
			}
		}
		elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
	}
	if (elf_update(elf, ELF_C_WRITE) < 0)
		goto libelf_err;
	err = 0;
	goto out;
bad:
	err = elfw_err(msg, msglen, "%s: symbol index out of range", path);
	goto out;
libelf_err:
	err = elfw_err(msg, msglen, "%s: libelf: %s", path, elf_errmsg(-1));
out:
	if (elf)
		elf_end(elf);
	close(fd);
	free(old);
	free(nsym);
	free(map);
	return err;
}

/* ----------------------------------------------------------------------
 * Adding another relocatable object, as `ld -r` of the two would
 *
 * Used for drti.o, an object usdt-sdk builds itself: its sections are
 * appended as they are (a relocatable object may hold several sections
 * of one name, so nothing is combined), its symbols added with section
 * symbols shared and indices renumbered at write, and its relocations
 * attached to the copies.  What this plain copy would get wrong is
 * refused before anything is added, so the caller can hand the whole
 * job to the linker instead: groups, SHT_REL, SHF_LINK_ORDER, common
 * symbols, extended section indices, another machine.  clang's
 * .llvm_addrsig (symbol indices, a hint for identical-code folding) is
 * dropped, as the copy would make its indices wrong.  Once copying
 * has begun an error is final: w is then half merged.
 */

/* Whether the object in elf is one elfw_add_object() can copy. */
static const char *add_object_refusal(const struct elfw *w, Elf *elf,
				      const GElf_Ehdr *eh, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL ||
	    eh->e_machine != w->machine)
		return "not a relocatable object for the output's machine";
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return "unreadable section header";
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			return "unreadable section name";
		switch (sh.sh_type) {
		case SHT_GROUP:
		case SHT_REL:
		case SHT_SYMTAB_SHNDX:
			return "a section of a kind it does not copy";
		case SHT_RELA:
		case SHT_SYMTAB:
		case SHT_STRTAB:
			continue;
		}
		if (sh.sh_flags & (SHF_LINK_ORDER | SHF_GROUP))
			return "a section tied to another";
		if (sh.sh_type == SHT_LLVM_ADDRSIG)
			continue;	/* symbol indices: dropped below */
		if (sh.sh_link || (sh.sh_info && !(sh.sh_flags & SHF_INFO_LINK)))
			return "a section tied to another";
	}
	return NULL;
}

/* The global or weak symbol of w named name, 0 if none. */
static int find_global(const struct elfw *w, const char *name)
{
	for (unsigned i = 1; i < w->nsym; i++)
		if (w->syms[i].bind != STB_LOCAL && name &&
		    strcmp(w->syms[i].name, name) == 0)
			return (int)i;
	return 0;
}

/*
 * An added object's global s (in section sec, 0 if undefined) meets w's
 * symbol h of the same name: a reference takes the definition, as the
 * linker resolves them; the stricter visibility wins.  Two definitions
 * are refused, unless one is weak (the strong one stays).
 */
static int resolve(struct elfw *w, int h, int sec, const GElf_Sym *s)
{
	struct wsym *o = &w->syms[h];
	int vis = GELF_ST_VISIBILITY(s->st_other);

	if (vis != STV_DEFAULT &&
	    (o->vis == STV_DEFAULT || vis < o->vis))
		o->vis = vis;
	if (!sec)
		return h;
	if (o->sec && o->bind != STB_WEAK &&
	    GELF_ST_BIND(s->st_info) != STB_WEAK)
		return -EEXIST;
	if (o->sec && GELF_ST_BIND(s->st_info) == STB_WEAK)
		return h;
	o->sec = sec;
	o->value = s->st_value;
	o->size = s->st_size;
	o->bind = GELF_ST_BIND(s->st_info);
	o->type = GELF_ST_TYPE(s->st_info);
	return h;
}

int elfw_add_object(struct elfw *w, const char *path,
		    int (*skip)(const char *name), char *msg, size_t msglen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *symd = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t nscn = 0, shstrndx = 0, nsym = 0, strndx = 0;
	int *secmap = NULL, *symmap = NULL;
	const char *why;
	int fd, err = -ENOMEM;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return elfw_err(msg, msglen, "libelf is out of date");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msglen, "cannot open %s: %s", path,
			 strerror(errno));
		return err;
	}
	/* ELF_C_READ: a copy in memory, safe from the file changing */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &nscn) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		err = elfw_err(msg, msglen, "%s: %s", path, elf_errmsg(-1));
		goto out;
	}
	why = add_object_refusal(w, elf, &eh, shstrndx);
	if (why) {
		snprintf(msg, msglen, "%s: %s", path, why);
		err = -ENOTSUP;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symd = elf_getdata(scn, NULL);
			nsym = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			strndx = sh.sh_link;
		}
	}
	secmap = calloc(nscn ? nscn : 1, sizeof(*secmap));
	symmap = calloc(nsym ? nsym : 1, sizeof(*symmap));
	if (!secmap || !symmap)
		goto out;

	/* sections; a symbol or relocation in a skipped one is refused */
	for (scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		Elf_Data *d;
		int h;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_SYMTAB ||
		    sh.sh_type == SHT_STRTAB || sh.sh_type == SHT_LLVM_ADDRSIG ||
		    (skip && skip(name)))
			continue;
		d = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
		if (sh.sh_type != SHT_NOBITS && sh.sh_size &&
		    (!d || d->d_size != sh.sh_size)) {
			err = elfw_err(msg, msglen, "%s: section %s: %s",
				       path, name, elf_errmsg(-1));
			goto out;
		}
		h = elfw_section(w, name, sh.sh_type,
				 sh.sh_flags & ~(uint64_t)SHF_INFO_LINK,
				 sh.sh_addralign, sh.sh_entsize,
				 d ? d->d_buf : NULL, sh.sh_size);
		if (h < 0)
			goto out;
		secmap[elf_ndxscn(scn)] = h;
	}

	/* symbols: skipped sections' symbols are dropped, then refused if used */
	for (size_t i = 1; i < nsym; i++) {
		GElf_Sym s;
		const char *name;
		int sec = 0, h;

		if (!gelf_getsym(symd, (int)i, &s)) {
			err = elfw_err(msg, msglen, "%s: symbol %zu: %s",
				       path, i, elf_errmsg(-1));
			goto out;
		}
		name = elf_strptr(elf, strndx, s.st_name);
		if (s.st_shndx == SHN_COMMON || s.st_shndx == SHN_XINDEX ||
		    (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_ABS)) {
			err = elfw_err(msg, msglen,
				       "%s: symbol %s: a section it does not copy",
				       path, name ? name : "?");
			goto out;
		}
		if (s.st_shndx == SHN_ABS) {
			sec = SHN_ABS;
		} else if (s.st_shndx != SHN_UNDEF) {
			if (s.st_shndx >= nscn || !secmap[s.st_shndx])
				continue;
			sec = secmap[s.st_shndx];
		}
		if (GELF_ST_TYPE(s.st_info) == STT_SECTION)
			h = elfw_section_symbol(w, sec);
		else if (GELF_ST_BIND(s.st_info) != STB_LOCAL &&
			 (h = find_global(w, name)) > 0)
			h = resolve(w, h, sec, &s);
		else
			h = elfw_symbol(w, name, sec, s.st_value, s.st_size,
					GELF_ST_BIND(s.st_info),
					GELF_ST_TYPE(s.st_info),
					GELF_ST_VISIBILITY(s.st_other));
		if (h == -EEXIST) {
			err = elfw_err(msg, msglen,
				       "%s: %s is defined twice", path, name);
			goto out;
		}
		if (h < 0)
			goto out;
		symmap[i] = h;
	}

	/* relocations */
	for (scn = NULL; (scn = elf_nextscn(elf, scn));) {
		Elf_Data *d;
		size_t n;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_RELA)
			continue;
		if (sh.sh_info >= nscn || !secmap[sh.sh_info]) {
			err = elfw_err(msg, msglen,
				       "%s: relocations for a section not copied",
				       path);
			goto out;
		}
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t j = 0; j < n; j++) {
			GElf_Rela r;
			size_t si;

			if (!d || !gelf_getrela(d, (int)j, &r)) {
				err = elfw_err(msg, msglen, "%s: %s", path,
					       elf_errmsg(-1));
				goto out;
			}
			si = GELF_R_SYM(r.r_info);
			if (si >= nsym || (si && !symmap[si])) {
				err = elfw_err(msg, msglen,
					       "%s: a relocation against a symbol not copied",
					       path);
				goto out;
			}
			if (elfw_rela(w, secmap[sh.sh_info], r.r_offset,
				      si ? symmap[si] : 0,
				      (uint32_t)GELF_R_TYPE(r.r_info),
				      r.r_addend) < 0)
				goto out;
		}
	}
	err = 0;
out:
	if (err == -ENOMEM)
		snprintf(msg, msglen, "out of memory");
	free(secmap);
	free(symmap);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

void elfw_localize_all(struct elfw *w,
		       int (*keep)(const char *name, void *arg), void *arg)
{
	for (unsigned i = 1; i < w->nsym; i++) {
		struct wsym *s = &w->syms[i];

		if (s->sec && s->bind != STB_LOCAL && !keep(s->name, arg))
			s->bind = STB_LOCAL;
	}
}
