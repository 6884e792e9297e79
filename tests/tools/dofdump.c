// SPDX-License-Identifier: MIT
/*
 * dofdump.c - print the DOF in an ELF file's .SUNW_dof section.
 *
 *	dofdump FILE
 *
 * A developer and test tool.  FILE is an object (ET_REL, as `dtrace -G`
 * writes it), an executable or a shared library (ET_EXEC, ET_DYN).  The
 * section may hold several blobs back to back, each starting 8-aligned
 * (a link of several -G outputs concatenates their sections); every blob
 * is validated with dof_check() (sdk/dof_check.c) before anything of it is
 * printed, and read only through the sdk iterators.
 *
 * Output is line-oriented and stable, one record per line, so shell tests
 * can grep or diff it (numbers in hex with 0x unless they are counts):
 *
 *	elf type=ET_REL machine=62
 *	section .SUNW_dof size=0x1c8 addr=0x0 flags=WA
 *	blob 0 offset=0x0
 *	hdr version=2 model=2 encoding=1 difvers=2 difireg=8 diftreg=8 ...
 *	sec 0 PROBES align=8 flags=0x1 entsize=48 offset=0x100 size=0x60
 *	provider myapp provattr=Evolving/Evolving/Common modattr=... ...
 *	probe myapp:main:query-start addr=0x0 nargc=2 nargv="char *","int"
 *	  xargc=2 xargv="string","int" argmap=0,1 offs=0x12 enoffs=0x30
 *	reloc SETX name=$dtrace1234.main offset=0x0 data=0x0 probe=...
 *	elfreloc off=0x100 R_X86_64_64 sym=$dtrace1234.main+0 probe=...
 *
 * (a probe is one line).  elfreloc lists the ELF relocations that patch
 * the section: for ET_REL those of the .rela section that applies to it
 * (this is how `dtrace -G` fills dofpr_addr: R_X86_64_64 against the
 * function's alias symbol), for linked files the dynamic ones inside it
 * (R_X86_64_RELATIVE in a PIE or shared library; the R_AARCH64_ ones in an
 * aarch64 file).  probe= names the probe
 * whose dofpr_addr the relocation writes, or "-".  In a linked file each
 * probe is followed by
 *
 *	 resolved addr=0x401126 sym=main+0x0
 *	 site 0x401138 sym=main+0x12
 *	 ensite 0x401156 sym=main+0x30
 *
 * the link-time address of its function (from a dynamic relocation of the
 * field if there is one, else the field itself) and of each site, each
 * with the .symtab function containing it (an original name is preferred
 * to a `$dtrace` alias at the same address).
 *
 * Exit status 0; 1 with "dofdump: FILE: ..." on stderr if the file cannot
 * be read, has no .SUNW_dof, or holds invalid DOF (then with the
 * validator's message and the byte offset it blamed); 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dof_check.h"

#define DOF_SECTION ".SUNW_dof"

struct dump {
	const char *path;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *dof_scn;
	size_t dof_ndx;
	GElf_Shdr dof_shdr;
	const uint8_t *data;
	size_t size;
	Elf_Scn *symtab; /* .symtab, else .dynsym; NULL if neither */
	bool linked;	 /* ET_EXEC or ET_DYN */
};

static int fail(const struct dump *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(const struct dump *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dofdump: %s: ", d->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* Blob text, quoted; validated text has no control characters. */
static void print_quoted(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static const char *sect_name(uint32_t type)
{
	static const char *const names[] = {
		"NONE",	    "COMMENTS", "SOURCE",    "ECBDESC",	 "PROBEDESC",
		"ACTDESC",  "DIFOHDR",	"DIF",	     "STRTAB",	 "VARTAB",
		"RELTAB",   "TYPTAB",	"URELHDR",   "KRELHDR",	 "OPTDESC",
		"PROVIDER", "PROBES",	"PRARGS",    "PROFFS",	 "INTTAB",
		"UTSNAME",  "XLTAB",	"XLMEMBERS", "XLIMPORT", "XLEXPORT",
		"PREXPORT", "PRENOFFS",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static void print_attr(const char *what, dof_attr_t a)
{
	static const char *const stab[] = {
		"Internal", "Private",	"Obsolete", "External",
		"Unstable", "Evolving", "Stable",   "Standard",
	};
	static const char *const cls[] = {
		"Unknown", "CPU", "Platform", "Group", "ISA", "Common",
	};

	/* dof_check() has bounded every field. */
	printf(" %s=%s/%s/%s", what, stab[DOF_ATTR_NAME(a)],
	       stab[DOF_ATTR_DATA(a)], cls[DOF_ATTR_CLASS(a)]);
}

static const char *reloc_name(unsigned int machine, unsigned int type,
			      char *buf, size_t len)
{
	if (machine == EM_X86_64) {
		switch (type) {
		case R_X86_64_NONE:
			return "R_X86_64_NONE";
		case R_X86_64_64:
			return "R_X86_64_64";
		case R_X86_64_PC32:
			return "R_X86_64_PC32";
		case R_X86_64_PLT32:
			return "R_X86_64_PLT32";
		case R_X86_64_GLOB_DAT:
			return "R_X86_64_GLOB_DAT";
		case R_X86_64_RELATIVE:
			return "R_X86_64_RELATIVE";
		case R_X86_64_32:
			return "R_X86_64_32";
		case R_X86_64_32S:
			return "R_X86_64_32S";
		case R_X86_64_PC64:
			return "R_X86_64_PC64";
		}
	}
	if (machine == EM_AARCH64) {
		switch (type) {
		case R_AARCH64_NONE:
			return "R_AARCH64_NONE";
		case R_AARCH64_ABS64:
			return "R_AARCH64_ABS64";
		case R_AARCH64_GLOB_DAT:
			return "R_AARCH64_GLOB_DAT";
		case R_AARCH64_RELATIVE:
			return "R_AARCH64_RELATIVE";
		}
	}
	snprintf(buf, len, "R_%u_%u", machine, type);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Symbols */

static const char *sym_name(const struct dump *d, Elf_Scn *symscn, size_t ndx,
			    GElf_Sym *sym)
{
	GElf_Shdr sh;
	Elf_Data *data;
	const char *name;

	if (symscn == NULL || gelf_getshdr(symscn, &sh) == NULL ||
	    (data = elf_getdata(symscn, NULL)) == NULL ||
	    gelf_getsym(data, (int)ndx, sym) == NULL)
		return NULL;
	name = elf_strptr(d->elf, sh.sh_link, sym->st_name);
	if ((name == NULL || *name == '\0') &&
	    GELF_ST_TYPE(sym->st_info) == STT_SECTION) {
		Elf_Scn *s = elf_getscn(d->elf, sym->st_shndx);
		GElf_Shdr ssh;

		if (s != NULL && gelf_getshdr(s, &ssh) != NULL)
			name = elf_strptr(d->elf, d->shstrndx, ssh.sh_name);
	}
	return name;
}

/*
 * The function symbol containing addr: among those covering it, an
 * original name beats a `$dtrace` alias, then global beats weak beats
 * local, then the lowest index wins.
 */
static bool func_at(const struct dump *d, uint64_t addr, const char **name,
		    uint64_t *value)
{
	static const int rank_bind[] = {
		[STB_LOCAL] = 2,
		[STB_GLOBAL] = 0,
		[STB_WEAK] = 1,
	};
	int best = -1;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t i, n;

	if (d->symtab == NULL || gelf_getshdr(d->symtab, &sh) == NULL ||
	    sh.sh_entsize == 0 || (data = elf_getdata(d->symtab, NULL)) == NULL)
		return false;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *nm;
		int rank, bind;

		if (gelf_getsym(data, (int)i, &sym) == NULL ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		if (!(addr >= sym.st_value &&
		      (addr - sym.st_value < sym.st_size ||
		       (sym.st_size == 0 && addr == sym.st_value))))
			continue;
		nm = elf_strptr(d->elf, sh.sh_link, sym.st_name);
		if (nm == NULL || *nm == '\0')
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		rank = (strncmp(nm, "$dtrace", 7) == 0) * 4 +
		       (bind <= STB_WEAK ? rank_bind[bind] : 3);
		if (best < 0 || rank < best) {
			best = rank;
			*name = nm;
			*value = sym.st_value;
		}
	}
	return best >= 0;
}

static void print_at(const struct dump *d, const char *what, uint64_t addr)
{
	const char *name;
	uint64_t value;

	printf(" %s0x%" PRIx64, what, addr);
	if (func_at(d, addr, &name, &value))
		printf(" sym=%s+0x%" PRIx64 "\n", name, addr - value);
	else
		printf(" sym=?\n");
}

/* ------------------------------------------------------------------ */
/* ELF relocations applying to the DOF section */

/*
 * Call fn for each RELA entry that patches .SUNW_dof: for ET_REL those
 * of the section whose sh_info is .SUNW_dof, for linked files the
 * dynamic ones whose address falls inside it.  off is section-relative.
 */
typedef void (*rela_fn)(const struct dump *d, Elf_Scn *symscn, uint64_t off,
			const GElf_Rela *r, void *ctx);

static void for_each_rela(const struct dump *d, rela_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_RELA ||
		    sh.sh_entsize == 0)
			continue;
		if (!d->linked && sh.sh_info != d->dof_ndx)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;
			uint64_t off = 0;

			if (gelf_getrela(data, (int)i, &r) == NULL)
				continue;
			if (d->linked) {
				if (r.r_offset < d->dof_shdr.sh_addr ||
				    r.r_offset - d->dof_shdr.sh_addr >= d->size)
					continue;
				off = r.r_offset - d->dof_shdr.sh_addr;
			} else {
				off = r.r_offset;
			}
			fn(d, elf_getscn(d->elf, sh.sh_link), off, &r, ctx);
		}
	}
}

/* Section offset of each probe's dofpr_addr, for naming targets. */
struct probe_ref {
	uint64_t off;
	char name[DTRACE_PROVNAMELEN + DTRACE_FUNCNAMELEN + DTRACE_NAMELEN];
};

struct probe_refs {
	struct probe_ref *v;
	size_t n;
};

static const char *probe_at(const struct probe_refs *pr, uint64_t off)
{
	size_t i;

	for (i = 0; i < pr->n; i++)
		if (pr->v[i].off == off)
			return pr->v[i].name;
	return "-";
}

static void print_rela(const struct dump *d, Elf_Scn *symscn, uint64_t off,
		       const GElf_Rela *r, void *ctx)
{
	const struct probe_refs *refs = ctx;
	size_t symndx = GELF_R_SYM(r->r_info);
	char tbuf[32];
	GElf_Sym sym;
	const char *name = NULL;

	printf("elfreloc off=0x%" PRIx64 " %s sym=", off,
	       reloc_name(d->ehdr.e_machine, GELF_R_TYPE(r->r_info), tbuf,
			  sizeof(tbuf)));
	if (symndx != 0)
		name = sym_name(d, symscn, symndx, &sym);
	printf("%s", symndx == 0 ? "*ABS*" : name != NULL ? name : "?");
	if (r->r_addend == 0)
		printf("+0");
	else if (r->r_addend < 0)
		printf("-0x%" PRIx64, -(uint64_t)r->r_addend);
	else
		printf("+0x%" PRIx64, (uint64_t)r->r_addend);
	printf(" probe=%s\n", probe_at(refs, off));
}

/* The value a dynamic relocation gives the 8 bytes at section offset off. */
struct resolve {
	uint64_t off, value;
	bool found, known;
};

static void resolve_rela(const struct dump *d, Elf_Scn *symscn, uint64_t off,
			 const GElf_Rela *r, void *ctx)
{
	struct resolve *rs = ctx;
	GElf_Sym sym;

	if (off != rs->off)
		return;
	rs->found = true;
	rs->known = false;
	/* the same three kinds on both machines, under other numbers */
	switch (d->ehdr.e_machine << 16 | GELF_R_TYPE(r->r_info)) {
	case EM_X86_64 << 16 | R_X86_64_RELATIVE:
	case EM_AARCH64 << 16 | R_AARCH64_RELATIVE:
		rs->value = (uint64_t)r->r_addend;
		rs->known = true;
		break;
	case EM_X86_64 << 16 | R_X86_64_64:
	case EM_X86_64 << 16 | R_X86_64_GLOB_DAT:
	case EM_AARCH64 << 16 | R_AARCH64_ABS64:
	case EM_AARCH64 << 16 | R_AARCH64_GLOB_DAT:
		if (sym_name(d, symscn, GELF_R_SYM(r->r_info), &sym) != NULL &&
		    sym.st_shndx != SHN_UNDEF) {
			rs->value = sym.st_value + (uint64_t)r->r_addend;
			rs->known = true;
		}
		break;
	}
}

/* ------------------------------------------------------------------ */
/* One blob */

static void print_list(const struct dof_probe_info *pr, bool xlated)
{
	const char *t;

	for (t = dof_argv_next(pr, xlated, NULL); t != NULL;
	     t = dof_argv_next(pr, xlated, t)) {
		if (t != (xlated ? pr->xargv : pr->nargv))
			putchar(',');
		print_quoted(t);
	}
}

static void print_probe(const struct dump *d, uint64_t blob_off,
			const struct dof_probe_info *pr)
{
	unsigned int i;

	printf("probe %s:%s:%s addr=0x%" PRIx64 " nargc=%u nargv=", pr->prov,
	       pr->func, pr->name, pr->addr, pr->nargc);
	print_list(pr, false);
	printf(" xargc=%u xargv=", pr->xargc);
	print_list(pr, true);
	printf(" argmap=");
	for (i = 0; i < pr->xargc; i++)
		printf("%s%u", i ? "," : "", pr->argmap[i]);
	printf(" offs=");
	for (i = 0; i < pr->noffs; i++)
		printf("%s0x%" PRIx32, i ? "," : "", dof_probe_off(pr, i));
	printf(" enoffs=");
	for (i = 0; i < pr->nenoffs; i++)
		printf("%s0x%" PRIx32, i ? "," : "", dof_probe_enoff(pr, i));
	putchar('\n');

	if (d->linked) {
		struct resolve rs = {.off = blob_off + pr->rec_off};
		uint64_t base;

		for_each_rela(d, resolve_rela, &rs);
		if (rs.found && !rs.known) {
			printf(" resolved addr=? (dynamic relocation)\n");
			return;
		}
		base = rs.found ? rs.value : pr->addr;
		print_at(d, "resolved addr=", base);
		for (i = 0; i < pr->noffs; i++)
			print_at(d, "site ", base + dof_probe_off(pr, i));
		for (i = 0; i < pr->nenoffs; i++)
			print_at(d, "ensite ", base + dof_probe_enoff(pr, i));
	}
}

static int check_blob(const struct dump *d, uint64_t off, uint64_t *filesz)
{
	struct dof_err err;
	dof_hdr_t h;

	if (dof_check(d->data + off, d->size - off, UINT64_MAX, &err) != 0)
		return fail(d,
			    "invalid DOF in %s at 0x%" PRIx64
			    ": %s (offset 0x%" PRIx64 ")",
			    DOF_SECTION, off, err.msg, off + err.off);
	memcpy(&h, d->data + off, sizeof(h)); /* x86-64: DOF and host agree */
	*filesz = h.dofh_filesz;
	return 0;
}

static int dump_blob(const struct dump *d, unsigned int nblob, uint64_t off,
		     struct probe_refs *refs, uint64_t *filesz)
{
	const uint8_t *buf = d->data + off;
	size_t len = d->size - off;
	struct dof_reloc_info ri;
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct dof_err err;
	uint64_t pc, rc = 0;
	uint32_t c = 0, i;
	dof_hdr_t h;
	int r;

	r = check_blob(d, off, filesz); /* cheap; keeps this self-contained */
	if (r != 0)
		return r;
	memcpy(&h, buf, sizeof(h)); /* x86-64: DOF and host agree */
	printf("blob %u offset=0x%" PRIx64 "\n", nblob, off);
	printf("hdr version=%u model=%u encoding=%u difvers=%u difireg=%u "
	       "diftreg=%u flags=0x%x hdrsize=%u secsize=%u secnum=%u "
	       "secoff=0x%" PRIx64 " loadsz=0x%" PRIx64 " filesz=0x%" PRIx64
	       "\n",
	       h.dofh_ident[DOF_ID_VERSION], h.dofh_ident[DOF_ID_MODEL],
	       h.dofh_ident[DOF_ID_ENCODING], h.dofh_ident[DOF_ID_DIFVERS],
	       h.dofh_ident[DOF_ID_DIFIREG], h.dofh_ident[DOF_ID_DIFTREG],
	       h.dofh_flags, h.dofh_hdrsize, h.dofh_secsize, h.dofh_secnum,
	       h.dofh_secoff, h.dofh_loadsz, h.dofh_filesz);
	for (i = 0; i < h.dofh_secnum; i++) {
		dof_sec_t s;
		const char *tn;

		memcpy(&s, buf + h.dofh_secoff + (uint64_t)i * h.dofh_secsize,
		       sizeof(s));
		tn = sect_name(s.dofs_type);
		printf("sec %u ", i);
		if (tn != NULL)
			printf("%s", tn);
		else
			printf("type%u", s.dofs_type);
		printf(" align=%u flags=0x%x entsize=%u offset=0x%" PRIx64
		       " size=0x%" PRIx64 "\n",
		       s.dofs_align, s.dofs_flags, s.dofs_entsize,
		       s.dofs_offset, s.dofs_size);
	}

	while ((r = dof_prov_next(buf, len, &c, &pv, &err)) == 1) {
		printf("provider %s", pv.name);
		print_attr("provattr", pv.provattr);
		print_attr("modattr", pv.modattr);
		print_attr("funcattr", pv.funcattr);
		print_attr("nameattr", pv.nameattr);
		print_attr("argsattr", pv.argsattr);
		printf(" probes=%" PRIu64 "\n", pv.nprobes);
		pc = 0;
		while ((r = dof_probe_next(&pv, &pc, &pr, &err)) == 1) {
			struct probe_ref *ref;

			print_probe(d, off, &pr);
			refs->v = realloc(refs->v,
					  (refs->n + 1) * sizeof(*refs->v));
			if (refs->v == NULL)
				return fail(d, "out of memory");
			ref = &refs->v[refs->n++];
			ref->off = off + pr.rec_off;
			snprintf(ref->name, sizeof(ref->name), "%s:%s:%s",
				 pr.prov, pr.func, pr.name);
		}
		if (r < 0)
			break;
	}
	if (r < 0) /* cannot happen after dof_check() */
		return fail(d, "%s", err.msg);

	while ((r = dof_reloc_next(buf, len, &rc, &ri, &err)) == 1) {
		size_t k;
		const char *target = "-";

		for (k = 0; k < refs->n; k++)
			if (ri.type == DOF_RELO_SETX &&
			    refs->v[k].off == off + ri.tgt_off)
				target = refs->v[k].name;
		if (ri.type == DOF_RELO_SETX)
			printf("reloc SETX name=%s offset=0x%" PRIx64
			       " data=0x%" PRIx64 " probe=%s\n",
			       ri.name, ri.offset, ri.data, target);
		else
			printf("reloc NONE\n");
	}
	if (r < 0)
		return fail(d, "%s", err.msg);
	return 0;
}

/* ------------------------------------------------------------------ */

static int open_elf(struct dump *d, int fd)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;

	d->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (d->elf == NULL || elf_kind(d->elf) != ELF_K_ELF)
		return fail(d, "not an ELF file");
	if (gelf_getehdr(d->elf, &d->ehdr) == NULL ||
	    elf_getshdrstrndx(d->elf, &d->shstrndx) != 0)
		return fail(d, "bad ELF header: %s", elf_errmsg(-1));
	switch (d->ehdr.e_type) {
	case ET_REL:
		break;
	case ET_EXEC:
	case ET_DYN:
		d->linked = true;
		break;
	default:
		return fail(d,
			    "ELF type %u is not an object, executable or "
			    "shared library",
			    d->ehdr.e_type);
	}
	while ((scn = elf_nextscn(d->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		name = elf_strptr(d->elf, d->shstrndx, sh.sh_name);
		if (name != NULL && strcmp(name, DOF_SECTION) == 0 &&
		    d->dof_scn == NULL) {
			d->dof_scn = scn;
			d->dof_ndx = elf_ndxscn(scn);
			d->dof_shdr = sh;
		}
	}
	d->symtab = symtab != NULL ? symtab : dynsym;
	if (d->dof_scn == NULL)
		return fail(d, "no %s section: no DOF", DOF_SECTION);
	if (d->dof_shdr.sh_type == SHT_NOBITS)
		return fail(d, "%s has no contents (SHT_NOBITS)", DOF_SECTION);
	{
		Elf_Data *data = elf_rawdata(d->dof_scn, NULL);

		if (data == NULL || data->d_buf == NULL || data->d_size == 0)
			return fail(d, "%s is empty: no DOF", DOF_SECTION);
		d->data = data->d_buf;
		d->size = data->d_size;
	}
	return 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n-- > 0)
		if (*p++ != 0)
			return false;
	return true;
}

static void print_file(const struct dump *d)
{
	printf("elf type=%s machine=%u\n",
	       d->ehdr.e_type == ET_REL	   ? "ET_REL"
	       : d->ehdr.e_type == ET_EXEC ? "ET_EXEC"
					   : "ET_DYN",
	       d->ehdr.e_machine);
	printf("section %s size=0x%zx addr=0x%" PRIx64 " flags=%s%s\n",
	       DOF_SECTION, d->size, (uint64_t)d->dof_shdr.sh_addr,
	       d->dof_shdr.sh_flags & SHF_WRITE ? "W" : "",
	       d->dof_shdr.sh_flags & SHF_ALLOC ? "A" : "");
}

int main(int argc, char **argv)
{
	struct dump d = {0};
	struct probe_refs refs = {0};
	uint64_t off, filesz = 0;
	unsigned int nblob, pass;
	int fd, ret;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: dofdump FILE\n");
		return 2;
	}
	d.path = argv[1];
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "dofdump: libelf: %s\n", elf_errmsg(-1));
		return 1;
	}
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(&d, "%s", strerror(errno));
	ret = open_elf(&d, fd);

	/*
	 * Blobs back to back, each 8-aligned, zero padding in between.  All
	 * are validated before anything is printed, so a failing run prints
	 * nothing on stdout.
	 */
	for (pass = 0; pass < 2 && ret == 0; pass++) {
		if (pass == 1)
			print_file(&d);
		for (off = 0, nblob = 0; off < d.size && ret == 0; nblob++) {
			ret = pass == 0 ? check_blob(&d, off, &filesz)
					: dump_blob(&d, nblob, off, &refs,
						    &filesz);
			if (ret != 0 || filesz > d.size - off)
				break; /* or: non-loadable tail not in here */
			off = (off + filesz + 7) & ~(uint64_t)7;
			while (off < d.size &&
			       all_zero(d.data + off,
					d.size - off < 8 ? d.size - off : 8))
				off += 8;
		}
	}
	if (ret == 0)
		for_each_rela(&d, print_rela, &refs);
	free(refs.v);
	if (d.elf != NULL)
		elf_end(d.elf);
	close(fd);
	return ret;
}
