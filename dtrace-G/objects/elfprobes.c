// SPDX-License-Identifier: MIT
/*
 * elfprobes.c - the probes of an object file on disk, for
 * `dtrace -l --object=FILE`: a program or shared library that is not
 * running, or a relocatable object.
 *
 * The DOF first.  .SUNW_dof holds one DOF blob per `dtrace -G` output
 * linked in, back to back, each starting 8-aligned (zero padding in
 * between).  Every blob is validated with dof_check() and read only with
 * the sdk iterators.  What the blob's dofpr_addr fields hold depends on
 * the file (usdt/dof.h): `dtrace -G` fills them with an R_X86_64_64 ELF
 * relocation against the function's alias, which
 *
 *	ET_EXEC	the static linker resolved: the field is the address;
 *	ET_DYN	the static linker turned into a dynamic relocation,
 *		R_X86_64_RELATIVE (addend = link-time address), applied
 *		only by ld.so: the field in the file may hold anything;
 *	ET_REL	is still a relocation in .rela.SUNW_dof, against a symbol
 *		whose value is an offset in its section.
 *
 * So we copy the section and apply, ourselves, the relocations that land
 * in it: for ET_EXEC and ET_DYN those of the dynamic relocation sections
 * whose address falls inside the section (RELATIVE: the addend;
 * R_X86_64_64 against a defined symbol: its value plus the addend), for
 * ET_REL those of the SHT_RELA section that applies to it.  A field whose
 * relocation cannot be resolved here (an undefined symbol: the -G output
 * alone, before it is linked with the objects it describes) leaves that
 * probe's address unknown; its sites are then offsets in the function.
 * Addresses are link-time addresses, which is what DWARF and addr2line
 * speak.  An aarch64 file is read the same way, with its machine's
 * relocation types (R_AARCH64_ABS64, _RELATIVE; site.h), so that
 * `dtrace -l --object` lists a cross-built file here.
 *
 * Then the .note.stapsdt notes (sdk/stapsdt.h), one per site.  A site
 * -G rewrote has both a DOF record and a note (for the tools that read
 * only notes), and is taken from the DOF; the notes add the sites no DOF
 * describes: all of them in a file without DOF (probes from <sys/sdt.h>
 * alone, `-x probestyle=inline`, a header's objects linked without -G),
 * and, beside the DOF, the header's stub sites that the calls of objects
 * -G never saw land on (an object missing from -G's list, a static link
 * of -G outputs and such objects).  An object that called a probe
 * carries its stub even after -G rewrote the calls: beside DOF, a linked
 * file's stub is taken only if a direct call or jump in its code lands
 * on it (the stubs are hidden, so every caller is in the same file;
 * bytes that merely look like such a branch can only list a stub, never
 * hide one).  In a linked x86-64 or aarch64 file a stub's probe is made
 * per calling function instead, as -G would have made it (stub_callers(),
 * caller_probes(); doc/DESIGN.md §10): every call and tail jump to the
 * stub that is an instruction of a named function -- as binutils'
 * disassembler confirms on x86-64; on aarch64 a `bl` or `b` word,
 * 4-aligned, outside the data that mapping symbols mark -- is a site of
 * that function's probe, described by the stub's note (site_stub,
 * stub_pc, and on x86-64 the arguments moved one word up the stack at a
 * call, where aarch64's bl pushes nothing: the consumer's sites.c gives
 * each such site its note); the branch encodings are the machine's
 * (site.h branch).  A stub with no such caller is no probe, and one
 * reached some other way (a conditional branch), or where the
 * disassembler cannot tell, stays the site, under its own name.  The sites
 * of one probe in one function make one record, like a DOF probe.  The
 * function is the symbol containing the site, named as -G names it (the
 * part before a '.', so main.cold is main).  A note's address is
 * corrected by the difference between the .stapsdt.base section's
 * address and the one the note recorded (prelink moved them apart); in a
 * relocatable object the note's relocations are applied
 * first.  Probe names turn "__" into "-" as everywhere in DTrace.  Notes
 * carry no types or stability: arguments are shown as the integer types
 * of their size and sign, attributes as Private/Private/Unknown (what a
 * provider declares without #pragma D attributes).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dof_check.h"
#include "elfsec.h"
#include "grow.h"
#include "objfile.h"
#include "probes.h"
#include "procfs.h"
#include "prov.h"
#include "stapsdt.h"
#include "site.h"

struct dt_object {
	char *path;
	const char *mod; /* the basename of path */
	uint8_t *dof;	 /* .SUNW_dof, relocated */
	size_t dof_len;
	uint8_t *notes; /* .note.stapsdt, relocated */
	size_t notes_len;
	char **strs; /* names made here (functions, probe names) */
	size_t nstrs;
};

/* A direct branch: where it goes, where it is, and what it is. */
struct branch {
	uint64_t to, from;
	uint8_t kind; /* enum site_branch */
	uint8_t len;
};

/* Reading one file: everything the helpers below share. */
struct rd {
	const char *path;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf_Scn *symtab; /* .symtab, else .dynsym, else NULL */
	struct dt_object *obj;
	struct dt_probes *pl;
	size_t first; /* pl->v[first..] are this file's probes */
	const struct dt_collect_opts *o;
	char *msg;
	size_t msglen;
	/*
	 * the file's direct branches to its __dtrace_* functions (maybe not
	 * instructions: every byte offset is tried), sorted by target; made
	 * on first use
	 */
	struct branch *targets;
	size_t ntargets;
	bool targets_read;
};

static int __attribute__((format(printf, 3, 4)))
rd_err(struct rd *r, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->msg, r->msglen, "%s: ", r->path);
	if (n >= 0 && (size_t)n < r->msglen) {
		va_start(ap, fmt);
		vsnprintf(r->msg + n, r->msglen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *keep(struct rd *r, const char *s, size_t n)
{
	struct dt_object *obj = r->obj;
	char *c;

	c = strndup(s, n);
	if (!c)
		return NULL;
	if (grow_count(&obj->strs, obj->nstrs, sizeof(*obj->strs)) < 0) {
		free(c);
		return NULL;
	}
	obj->strs[obj->nstrs++] = c;
	return c;
}

void dt_object_free(struct dt_object *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; i < obj->nstrs; i++)
		free(obj->strs[i]);
	free(obj->strs);
	free(obj->dof);
	free(obj->notes);
	free(obj->path);
	free(obj);
}

/* ------------------------------------------------------------------ */
/* Sections and relocations */

/*
 * The 8-byte relocations applied to a section copy: where, whether they
 * could be resolved, and (relocatable objects) the section of the symbol.
 */
struct reloc_rec {
	uint64_t off;
	size_t shndx;
	bool known;
};

struct relocs {
	struct reloc_rec *v;
	size_t n;
};

static const struct reloc_rec *reloc_at(const struct relocs *rs, uint64_t off)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].off == off)
			return &rs->v[i];
	return NULL;
}

static int add_reloc(struct relocs *rs, uint64_t off, size_t shndx, bool known)
{
	if (grow_count(&rs->v, rs->n, sizeof(*rs->v)) < 0)
		return -ENOMEM;
	rs->v[rs->n++] = (struct reloc_rec){off, shndx, known};
	return 0;
}

/*
 * Apply to buf (a copy of section tgt) the 8-byte relocations that land
 * in it, as described at the top; record the ones we cannot resolve.
 */
static int apply_relocs(struct rd *r, size_t tgt, const GElf_Shdr *tsh,
			uint8_t *buf, size_t len, struct relocs *rs)
{
	const struct site_arch *arch = site_arch_of(r->ehdr.e_machine);
	bool rel = r->ehdr.e_type == ET_REL;
	Elf_Scn *scn = NULL;

	while (arch && (scn = elf_nextscn(r->elf, scn))) {
		Elf_Data *d, *symd = NULL;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || (rel && sh.sh_info != tgt))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		if (sh.sh_link)
			symd = elf_getdata(elf_getscn(r->elf, sh.sh_link),
					   NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela ra;
			GElf_Sym sym;
			uint64_t off, val = 0;
			size_t shndx = 0;
			bool known = false;
			uint32_t rtype;

			if (!gelf_getrela(d, (int)i, &ra))
				continue;
			if (rel) {
				off = ra.r_offset;
			} else {
				if (ra.r_offset < tsh->sh_addr ||
				    ra.r_offset - tsh->sh_addr >= len)
					continue;
				off = ra.r_offset - tsh->sh_addr;
			}
			if (off > len || len - off < 8)
				continue;
			rtype = GELF_R_TYPE(ra.r_info);
			if (rtype == arch->r_none)
				continue;
			if (rtype == arch->r_relative) {
				val = (uint64_t)ra.r_addend;
				known = !rel;
			} else if (rtype == arch->r_abs64) {
				if (symd &&
				    gelf_getsym(symd,
						(int)GELF_R_SYM(ra.r_info),
						&sym) &&
				    sym.st_shndx != SHN_UNDEF) {
					val = sym.st_value +
					      (uint64_t)ra.r_addend;
					shndx = sym.st_shndx;
					known = true;
				}
			}
			if (add_reloc(rs, off, rel ? shndx : 0, known))
				return -ENOMEM;
			/* x86-64 and aarch64: little-endian, as the host */
			if (known)
				memcpy(buf + off, &val, 8);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* DOF */

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* ET_REL: the section a probe's function is in, for -v */
static void set_section(struct rd *r, struct dt_probe *p, size_t shndx)
{
	GElf_Shdr sh;
	const char *name;
	Elf_Scn *scn;

	if (r->ehdr.e_type != ET_REL || !shndx)
		return;
	scn = elf_getscn(r->elf, shndx);
	name = scn && gelf_getshdr(scn, &sh)
		       ? elf_strptr(r->elf, r->shstrndx, sh.sh_name)
		       : NULL;
	p->shndx = shndx;
	p->section = name ? keep(r, name, strlen(name)) : NULL;
}

/*
 * Whether one of the DOF probes pl->v[first..ndof) is this probe and
 * already has the site pc (same section in a relocatable object): -G
 * writes a note for each site its DOF describes, and two -G outputs of
 * the same objects (a rule run twice, libtool's PIC and non-PIC runs)
 * put two DOF records of each site in one image.
 */
static bool dof_has_site(const struct rd *r, size_t first, size_t ndof,
			 const char *prov, const char *name, uint64_t pc,
			 size_t shndx)
{
	for (size_t i = first; i < ndof; i++) {
		const struct dt_probe *q = &r->pl->v[i];

		if (!q->addr_known || q->shndx != shndx ||
		    strcmp(q->prov, prov) || strcmp(q->name, name))
			continue;
		for (unsigned k = 0; k < q->nsites; k++)
			if (q->sites[k] == pc)
				return true;
	}
	return false;
}

/* Every site of a DOF record is already described: it adds nothing. */
static bool dof_sites_known(const struct rd *r, const struct dt_probe *p)
{
	if (!p->addr_known || !p->nsites)
		return false;
	for (unsigned k = 0; k < p->nsites; k++)
		if (!dof_has_site(r, r->first, r->pl->n, p->prov, p->name,
				  p->sites[k], p->shndx))
			return false;
	return true;
}

static int add_blob(struct rd *r, uint64_t boff, const struct relocs *rs)
{
	struct dt_object *obj = r->obj;
	const uint8_t *buf = obj->dof + boff;
	size_t len = obj->dof_len - boff;
	struct dof_prov_info pv;
	struct dof_probe_info pi;
	struct dof_err derr;
	uint32_t c = 0;
	int ret;

	while ((ret = dof_prov_next(buf, len, &c, &pv, &derr)) == 1) {
		uint64_t pc = 0;

		while ((ret = dof_probe_next(&pv, &pc, &pi, &derr)) == 1) {
			/* dofpr_addr is the record's first field */
			const struct reloc_rec *rr =
				reloc_at(rs, boff + pi.rec_off);
			struct dt_probe p = {0};
			int err;

			p.origin = DT_ORIGIN_OBJECT;
			snprintf(p.provider, sizeof(p.provider), "%s", pv.name);
			p.mod = obj->mod;
			p.path = obj->path;
			set_section(r, &p, rr ? rr->shndx : 0);
			err = dt_probe_from_dof(&p, &pv, &pi, !rr || rr->known);
			if (err)
				return rd_err(r, -ENOMEM, "out of memory");
			if (dof_sites_known(r, &p)) {
				/* two -G outputs of the same objects */
				dt_probe_free(&p);
				continue;
			}
			if (!dt_probes_add(r->pl, &p))
				return rd_err(r, -ENOMEM, "out of memory");
		}
		if (ret < 0)
			break;
	}
	if (ret < 0) /* dof_check() passed: cannot happen */
		return rd_err(r, -EINVAL, "invalid DOF in %s: %s",
			      DOF_SECTION_NAME,
			      derr.msg);
	return 0;
}

static int read_dof(struct rd *r)
{
	struct dt_object *obj = r->obj;
	struct relocs rs = {NULL, 0};
	GElf_Shdr sh;
	Elf_Scn *scn;
	uint64_t off = 0;
	int err = 0;

	scn = elfw_section_find(r->elf, DOF_SECTION_NAME, &sh);
	if (!scn)
		return 0;
	obj->dof = elfw_section_copy(scn, &sh, &obj->dof_len);
	if (!obj->dof)
		return 0;
	err = apply_relocs(r, elf_ndxscn(scn), &sh, obj->dof, obj->dof_len,
			   &rs);
	if (err)
		goto out;
	while (off < obj->dof_len) {
		struct dof_err derr;
		dof_hdr_t h;

		if (dof_check(obj->dof + off, obj->dof_len - off,
			      DOF_MAX_SIZE_DEFAULT, &derr)) {
			err = rd_err(r, -EINVAL,
				     "invalid DOF in %s at offset 0x%llx: %s "
				     "(offset 0x%llx)",
				     DOF_SECTION_NAME, (unsigned long long)off,
				     derr.msg,
				     (unsigned long long)(off + derr.off));
			goto out;
		}
		err = add_blob(r, off, &rs);
		if (err)
			goto out;
		memcpy(&h, obj->dof + off, sizeof(h));
		if (h.dofh_filesz > obj->dof_len - off)
			break; /* a non-loadable tail not in the section */
		off = (off + h.dofh_filesz + 7) & ~(uint64_t)7;
		while (off < obj->dof_len &&
		       all_zero(obj->dof + off, obj->dof_len - off < 8
							? obj->dof_len - off
							: 8))
			off += 8;
	}
out:
	free(rs.v);
	return err;
}

/* ------------------------------------------------------------------ */
/* stapsdt notes */

/*
 * The function containing addr, named as -G names it (elf_func_at()).
 * NULL if none.
 */
static const char *func_at_size(struct rd *r, size_t shndx, uint64_t addr,
				uint64_t *start, uint64_t *size)
{
	const char *best;
	GElf_Sym s;

	best = elf_func_at(r->elf, r->symtab, shndx, addr, &s);
	if (!best)
		return NULL;
	*start = s.st_value;
	if (size)
		*size = s.st_size;
	return keep(r, best, elf_func_name_len(best, DTRACE_FUNCNAMELEN - 1));
}

static const char *func_at(struct rd *r, size_t shndx, uint64_t addr,
			   uint64_t *start)
{
	return func_at_size(r, shndx, addr, start, NULL);
}

static const char *int_type(const struct stapsdt_arg *a)
{
	if (a->is_float)
		return a->size == 4   ? "float"
		       : a->size == 8 ? "double"
				      : "(unknown)";
	switch (a->size) {
	case 1:
		return a->is_signed ? "int8_t" : "uint8_t";
	case 2:
		return a->is_signed ? "int16_t" : "uint16_t";
	case 4:
		return a->is_signed ? "int32_t" : "uint32_t";
	case 8:
		return a->is_signed ? "int64_t" : "uint64_t";
	}
	return "(unknown)";
}

/* the argument types of a note of a file of machine m (its spec syntax) */
static int note_args(struct dt_probe *p, const char *args, unsigned m)
{
	struct stapsdt_arg a;
	struct stapsdt_err err;
	size_t cur = 0;
	unsigned n = 0;
	int ret;

	p->nargv = calloc(12 + 1, sizeof(*p->nargv));
	if (!p->nargv)
		return -ENOMEM;
	while (n < 12 &&
	       (ret = m == EM_AARCH64
			      ? stapsdt_a64_arg_next(args, &cur, &a, &err)
			      : stapsdt_arg_next(args, &cur, &a, &err)) != 0)
		p->nargv[n++] = ret > 0 ? int_type(&a) : "(unknown)";
	p->nargc = p->xargc = n;
	p->xargv = p->nargv;
	p->argmap = NULL;
	return 0;
}

/*
 * A site at `at` of note probe p (not a DOF probe's): kind 0 where its
 * own note describes it, 1 a call to the header's stub, 2 a tail jump to
 * it.  p->site_stub is NULL until the first call or jump, then holds a
 * kind for every site, however the notes are ordered.  Both arrays have
 * their room implied by nsites (grow.h), grown only here.  0 or -ENOMEM.
 */
static int add_site(struct dt_probe *p, uint64_t at, uint8_t kind)
{
	if (kind && !p->site_stub) {
		size_t room = 1;

		/* what grow_count() assumes for nsites + 1 elements */
		while (room <= p->nsites)
			room *= 2;
		p->site_stub = calloc(room, 1);
		if (!p->site_stub)
			return -ENOMEM;
	} else if (p->site_stub &&
		   grow_count(&p->site_stub, p->nsites, 1) < 0) {
		return -ENOMEM;
	}
	if (grow_count(&p->sites, p->nsites, sizeof(*p->sites)) < 0)
		return -ENOMEM;
	if (p->site_stub)
		p->site_stub[p->nsites] = kind;
	p->sites[p->nsites++] = at;
	return 0;
}


static int cmp_branch(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The first of r->targets that goes to addr, or r->ntargets. */
static size_t first_to(const struct rd *r, uint64_t addr)
{
	size_t lo = 0, hi = r->ntargets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->targets[mid].to < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every direct branch in the file's executable sections, by target. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The addresses of the file's __dtrace_* functions (the header's stubs),
 * sorted, in *v: their number, or -ENOMEM.
 */
static long stub_addrs(struct rd *r, uint64_t **v)
{
	struct elf_syms it;
	const char *name;
	GElf_Sym sym;
	size_t cnt = 0;

	*v = NULL;
	for (elf_syms_begin(&it, r->elf, r->symtab);
	     elf_syms_next(&it, &sym, &name);) {
		if (sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    strncmp(name, "__dtrace_", 9))
			continue;
		if (grow_count(v, cnt, sizeof(**v)) < 0) {
			free(*v);
			*v = NULL;
			return -ENOMEM;
		}
		(*v)[cnt++] = sym.st_value;
	}
	if (cnt)
		qsort(*v, cnt, sizeof(**v), cmp_u64);
	return (long)cnt;
}

static int read_targets(struct rd *r)
{
	const struct site_arch *arch = site_arch_of(r->ehdr.e_machine);
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	GElf_Shdr sh;
	uint64_t *stubs;
	long nstubs;

	r->targets_read = true;
	if (!arch)
		return 0; /* no machine whose branches we know */
	nstubs = stub_addrs(r, &stubs);
	if (nstubs < 0)
		return -ENOMEM;
	/* only the branches to a stub are kept: all a stub's callers */
	while (nstubs && (scn = elf_nextscn(r->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (size_t i = 0; i < d->d_size; i += arch->branch_step) {
			uint64_t to;
			unsigned len;
			enum site_branch k;

			k = arch->branch(d->d_buf, d->d_size, i,
					 sh.sh_addr + i, &to, &len);
			if (k == SITE_BR_NONE ||
			    !bsearch(&to, stubs, (size_t)nstubs,
				     sizeof(*stubs), cmp_u64))
				continue;
			if (grow_one(&r->targets, &cap, r->ntargets,
				     sizeof(*r->targets)) < 0) {
				free(stubs);
				return -ENOMEM;
			}
			r->targets[r->ntargets].to = to;
			r->targets[r->ntargets].from = sh.sh_addr + i;
			r->targets[r->ntargets].len = (uint8_t)len;
			r->targets[r->ntargets++].kind = (uint8_t)k;
		}
	}
	free(stubs);
	if (r->ntargets)
		qsort(r->targets, r->ntargets, sizeof(*r->targets),
		      cmp_branch);
	return 0;
}

/*
 * Whether anything in a linked file branches to the header's stub at
 * addr: 1 or 0, or -ENOMEM.
 */
static int stub_reached(struct rd *r, uint64_t addr)
{
	size_t i;

	if (!r->targets_read && read_targets(r))
		return -ENOMEM;
	i = first_to(r, addr);
	return i < r->ntargets && r->targets[i].to == addr;
}

/*
 * Whether addr lies in data the ARM ELF ABI's mapping symbols mark
 * inside code: the last "$d" or "$x" symbol at or before addr within
 * [fstart, addr] is a "$d".  Files without mapping symbols (x86-64)
 * have none.
 */
static bool in_mapped_data(struct rd *r, uint64_t fstart, uint64_t addr)
{
	Elf_Data *d;
	GElf_Shdr sh;
	uint64_t best = 0;
	bool found = false, data = false;
	size_t n;

	if (!r->symtab || !gelf_getshdr(r->symtab, &sh) || !sh.sh_entsize ||
	    !(d = elf_getdata(r->symtab, NULL)))
		return false;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    s.st_value < fstart || s.st_value > addr ||
		    (found && s.st_value < best) ||
		    !(name = elf_strptr(r->elf, sh.sh_link, s.st_name)) ||
		    name[0] != '$' || (name[1] != 'd' && name[1] != 'x') ||
		    (name[2] && name[2] != '.'))
			continue;
		found = true;
		best = s.st_value;
		data = name[1] == 'd';
	}
	return data;
}

/*
 * Is there an instruction of len bytes at addr, in the function at
 * [fstart, fstart + fsize)?  The machine's check (site.h insns_check):
 * on x86-64 decoded with binutils' disassembler from the function's
 * start, on aarch64 a 4-aligned word outside the data that mapping
 * symbols mark.  0 yes, 2 no (bytes inside other instructions, or
 * data), 1 unknown (not decoded that far, no such section).
 */
static int insn_at(struct rd *r, uint64_t fstart, uint64_t fsize,
		   uint64_t addr, unsigned len)
{
	const struct site_arch *arch = site_arch_of(r->ehdr.e_machine);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!arch)
		return 1;
	if (in_mapped_data(r, fstart, addr))
		return 2;

	while ((scn = elf_nextscn(r->elf, scn))) {
		struct site_insns m;
		char why[256];
		Elf_Data *d;
		int err, ret;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || fstart < sh.sh_addr ||
		    fstart - sh.sh_addr > sh.sh_size ||
		    fsize > sh.sh_size - (fstart - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return 1;
		site_insns_init(&m, d->d_buf, d->d_size, fstart - sh.sh_addr,
				fsize);
		err = arch->insns_check(&m, addr - sh.sh_addr, len, true, why,
					sizeof(why));
		ret = !err ? 0 : m.pc > addr - sh.sh_addr ? 2 : 1;
		site_insns_free(&m);
		return ret;
	}
	return 1;
}

/* One call or tail jump to a header's stub. */
struct stub_caller {
	uint64_t from;
	const char *func;
	uint64_t fstart;
	bool call; /* a call (x86-64: the stack one word lower than in the stub) */
};

/*
 * The calls and tail jumps to the header's stub at addr, each an
 * instruction of a named function: 0 with *v and *n; 1 when the stub's
 * hits cannot be told apart by caller (a conditional or short branch
 * reaches it, a candidate lies where the disassembler did not get, or
 * outside every function, no disassembler, a machine other than x86-64
 * and aarch64); -ENOMEM.
 */
static int stub_callers(struct rd *r, uint64_t addr, struct stub_caller **v,
			size_t *n)
{
	const struct site_arch *arch = site_arch_of(r->ehdr.e_machine);
	char why[256];

	*v = NULL;
	*n = 0;
	if (!arch || arch->insns_available(why, sizeof(why)))
		return 1;
	if (!r->targets_read && read_targets(r))
		return -ENOMEM;
	for (size_t i = first_to(r, addr);
	     i < r->ntargets && r->targets[i].to == addr; i++) {
		const struct branch *b = &r->targets[i];
		bool direct = b->kind == SITE_BR_CALL || b->kind == SITE_BR_JUMP;
		unsigned len = b->len;
		uint64_t fstart = 0, fsize = 0;
		const char *func;
		struct stub_caller *nv;
		int k;

		func = func_at_size(r, 0, b->from, &fstart, &fsize);
		k = func ? insn_at(r, fstart, fsize, b->from, len) : 1;
		if (k == 2)
			continue; /* bytes inside other instructions */
		if (k == 1 || !direct) {
			free(*v);
			*v = NULL;
			*n = 0;
			return 1;
		}
		if (grow_count(v, *n, sizeof(**v)) < 0) {
			free(*v);
			*v = NULL;
			*n = 0;
			return -ENOMEM;
		}
		nv = *v;
		nv[*n].from = b->from;
		nv[*n].func = func;
		nv[*n].fstart = fstart;
		nv[(*n)++].call = b->kind == SITE_BR_CALL;
	}
	return 0;
}

/*
 * The stub's argument specs as they are at a call to it: the return
 * address is not pushed yet, so what the stub finds at K(%rsp) is at
 * K-8(%rsp).  NULL if a spec cannot be read (the caller then keeps the
 * stub as the site) or out of memory (*nomem).
 */
static const char *call_args(struct rd *r, const char *args, bool *nomem)
{
	size_t cap = strlen(args) + 64, o = 0;
	char *out = malloc(cap);
	const char *p = args, *res;

	*nomem = !out;
	if (!out)
		return NULL;
	while (*p) {
		size_t tl = strcspn(p, " "), pl;
		const char *at = memchr(p, '@', tl), *rsp = NULL;

		for (const char *q = p; q + 6 <= p + tl; q++)
			if (!memcmp(q, "(%rsp)", 6))
				rsp = q;
		if (!at) {
			free(out);
			return NULL;
		}
		pl = (size_t)(at + 1 - p);
		if (rsp && rsp + 6 == p + tl) {
			char num[32], *end;
			long k = 0;
			size_t nl = (size_t)(rsp - at - 1);

			if (nl >= sizeof(num)) {
				free(out);
				return NULL;
			}
			memcpy(num, at + 1, nl);
			num[nl] = '\0';
			if (nl) {
				k = strtol(num, &end, 10);
				if (*end) {
					free(out);
					return NULL;
				}
			}
			o += (size_t)snprintf(out + o, cap - o, "%s%.*s%ld(%%rsp)",
					      o ? " " : "", (int)pl, p, k - 8);
		} else {
			o += (size_t)snprintf(out + o, cap - o, "%s%.*s",
					      o ? " " : "", (int)tl, p);
		}
		if (o >= cap) {
			free(out);
			return NULL;
		}
		p += tl;
		while (*p == ' ')
			p++;
	}
	res = keep(r, out, o);
	free(out);
	*nomem = !res;
	return res;
}

/*
 * The probe of the notes' probes (pl->v[ndof..]) for provider, name and
 * function func (starting at fstart, or unnamed: pc), made if new;
 * NULL when out of memory.
 */
static struct dt_probe *note_probe(struct rd *r, size_t ndof,
				   const struct stapsdt_note *note,
				   const char *pub, const char *func,
				   uint64_t pc, uint64_t fstart, size_t shndx)
{
	struct dt_probe np = {0}, *p;
	const char *name;

	for (size_t i = ndof; i < r->pl->n; i++) {
		struct dt_probe *q = &r->pl->v[i];

		if (!strcmp(q->prov, note->provider) && !strcmp(q->name, pub) &&
		    !strcmp(q->func, func) && q->shndx == shndx)
			return q;
	}
	name = keep(r, pub, strlen(pub));
	if (!name)
		return NULL;
	np.origin = DT_ORIGIN_OBJECT;
	snprintf(np.provider, sizeof(np.provider), "%s", note->provider);
	np.prov = note->provider;
	np.mod = r->obj->mod;
	np.func = func;
	np.name = name;
	np.path = r->obj->path;
	np.addr_known = true;
	np.addr = *func ? fstart : pc;
	np.provattr = np.modattr = np.funcattr = np.nameattr = np.argsattr =
		DT_ATTR_PRIVATE_UNKNOWN;
	np.stapsdt_args = note->args;
	set_section(r, &np, shndx);
	if (note_args(&np, note->args, r->ehdr.e_machine) ||
	    !(p = dt_probes_add(r->pl, &np))) {
		free(np.nargv);
		return NULL;
	}
	return p;
}

/*
 * A site of p at a call (kind 1) or tail jump (2) to the header's stub
 * at stub, whose note describes it; p->site_stub[i] is 0 for the other
 * sites.  0 or -ENOMEM.
 */
static int add_stub_site(struct dt_probe *p, uint64_t at, uint8_t kind,
			 uint64_t stub, const char *cargs)
{
	if (add_site(p, at, kind))
		return -ENOMEM;
	p->stub_pc = stub;
	p->stub_call_args = cargs;
	return 0;
}

/*
 * The probes of a header's stub by calling function: each call and tail
 * jump to it a site of the probe of its function, as -G would have made
 * it, so probefunc is the caller's.  0, 1 when the arguments cannot be
 * moved to the calls' stack (the stub stays the site), -ENOMEM.
 */
static int caller_probes(struct rd *r, size_t ndof,
			 const struct stapsdt_note *note, const char *pub,
			 uint64_t stub, const struct stub_caller *sc,
			 size_t nsc)
{
	const struct site_arch *arch = site_arch_of(r->ehdr.e_machine);
	const char *cargs = NULL;
	bool nomem = false;

	/* where a call pushes nothing, the arguments are where the stub
	 * finds them (aarch64: the return address goes to x30) */
	if (arch && !arch->call_push)
		cargs = note->args;
	for (size_t i = 0; i < nsc && !cargs; i++)
		if (sc[i].call) {
			cargs = call_args(r, note->args, &nomem);
			if (nomem)
				return -ENOMEM;
			if (!cargs)
				return 1;
		}
	for (size_t i = 0; i < nsc; i++) {
		struct dt_probe *p = note_probe(r, ndof, note, pub, sc[i].func,
						sc[i].from, sc[i].fstart, 0);

		if (!p || add_stub_site(p, sc[i].from, sc[i].call ? 1 : 2,
					stub, cargs))
			return -ENOMEM;
	}
	return 0;
}

/* The notes' probes, after the DOF's: pl->v[first..ndof) came from DOF. */
static int read_notes(struct rd *r, size_t first, size_t ndof)
{
	struct dt_object *obj = r->obj;
	struct relocs rs = {NULL, 0};
	struct stapsdt_note note;
	struct stapsdt_err serr;
	GElf_Shdr sh, bsh;
	Elf_Scn *scn, *bscn;
	uint64_t cur = 0;
	int ret, err = 0;

	scn = elfw_section_find(r->elf, STAPSDT_SECTION, &sh);
	if (!scn || sh.sh_type != SHT_NOTE)
		return 0;
	bscn = elfw_section_find(r->elf, STAPSDT_BASE_SECTION, &bsh);
	obj->notes = elfw_section_copy(scn, &sh, &obj->notes_len);
	if (!obj->notes)
		return 0;
	if (r->ehdr.e_type == ET_REL) {
		err = apply_relocs(r, elf_ndxscn(scn), &sh, obj->notes,
				   obj->notes_len, &rs);
		if (err) {
			free(rs.v);
			return rd_err(r, err, "out of memory");
		}
	}
	while ((ret = stapsdt_note_next(obj->notes, obj->notes_len, 0, &cur,
					&note, &serr)) != 0) {
		char pub[DTRACE_NAMELEN];
		const char *func;
		struct dt_probe *p = NULL;
		const struct reloc_rec *rr;
		uint64_t pc, fstart = 0;
		size_t shndx = 0;

		if (ret < 0) {
			if (r->o->warn) {
				char m[512];

				snprintf(m, sizeof(m),
					 "%s: skipped a stapsdt note: %s "
					 "(offset 0x%llx)",
					 r->path, serr.msg,
					 (unsigned long long)serr.off);
				r->o->warn(m, r->o->warn_arg);
			}
			continue;
		}
		pc = note.pc;
		if (bscn && note.base && bsh.sh_addr != note.base)
			pc += bsh.sh_addr - note.base;
		/*
		 * ET_REL: the pc is relocated against its section; the first
		 * address word follows the 12-byte header and "stapsdt\0".
		 */
		rr = reloc_at(&rs, note.off + 12 + 8);
		if (rr && !rr->known)
			continue; /* cannot happen: sections are defined */
		shndx = rr ? rr->shndx : 0;
		func = func_at(r, shndx, pc, &fstart);
		if (!func)
			func = "";
		if (prov_pubname(note.name, pub, sizeof(pub)) < 0)
			snprintf(pub, sizeof(pub), "%.*s", (int)sizeof(pub) - 1,
				 note.name);
		if (dof_has_site(r, first, ndof, note.provider, pub, pc,
				 shndx))
			continue;
		if (r->ehdr.e_type != ET_REL && *func && pc == fstart &&
		    !strncmp(func, "__dtrace_", 9)) {
			struct stub_caller *sc;
			size_t nsc;
			int k = stub_callers(r, pc, &sc, &nsc);

			if (k == 0) {
				k = caller_probes(r, ndof, &note, pub, pc, sc,
						  nsc);
				free(sc);
				if (k == 0)
					continue; /* by caller, or no caller */
			}
			if (k < 0) {
				free(rs.v);
				return rd_err(r, -ENOMEM, "out of memory");
			}
		}
		if (ndof > first && r->ehdr.e_type != ET_REL && *func &&
		    pc == fstart && !strncmp(func, "__dtrace_", 9)) {
			int reached = stub_reached(r, pc);

			if (reached < 0) {
				free(rs.v);
				return rd_err(r, -ENOMEM, "out of memory");
			}
			if (!reached)
				continue; /* a stub nothing calls any more */
		}
		p = note_probe(r, ndof, &note, pub, func, pc, fstart, shndx);
		if (!p) {
			free(rs.v);
			return rd_err(r, -ENOMEM, "out of memory");
		}
		if (add_site(p, pc, 0)) {
			free(rs.v);
			return rd_err(r, -ENOMEM, "out of memory");
		}
	}
	free(rs.v);
	return 0;
}

/* ------------------------------------------------------------------ */

static int add_object(struct dt_probes *pl, struct dt_object *obj)
{
	if (grow_count(&pl->objs, pl->nobjs, sizeof(*pl->objs)) < 0)
		return -ENOMEM;
	pl->objs[pl->nobjs++] = obj;
	return 0;
}

int dt_object_probes_of(struct dt_probes *pl, const struct objfile *of,
			const struct dt_collect_opts *o, char *msg,
			size_t msglen)
{
	struct rd r = {.path = of->path,
		       .elf = of->elf,
		       .ehdr = of->ehdr,
		       .shstrndx = of->shstrndx,
		       .symtab = objf_symbols(of),
		       .pl = pl,
		       .first = pl->n,
		       .o = o,
		       .msg = msg,
		       .msglen = msglen};
	size_t first = pl->n;
	const char *slash;
	int err;

	r.obj = calloc(1, sizeof(*r.obj));
	if (!r.obj || !(r.obj->path = strdup(of->path)) ||
	    add_object(pl, r.obj)) {
		if (r.obj)
			free(r.obj->path);
		free(r.obj);
		return rd_err(&r, -ENOMEM, "out of memory");
	}
	slash = strrchr(r.obj->path, '/');
	r.obj->mod = slash ? slash + 1 : r.obj->path;
	if (r.ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    r.ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !site_arch_of(r.ehdr.e_machine))
		return rd_err(&r, -EINVAL,
			      "not an x86-64 or aarch64 ELF file (class %u, "
			      "machine %u)",
			      r.ehdr.e_ident[EI_CLASS], r.ehdr.e_machine);
	if (r.ehdr.e_type != ET_REL && r.ehdr.e_type != ET_EXEC &&
	    r.ehdr.e_type != ET_DYN)
		return rd_err(&r, -EINVAL,
			      "ELF type %u is not an object, program or "
			      "shared library",
			      r.ehdr.e_type);
	err = read_dof(&r);
	if (!err)
		err = read_notes(&r, first, pl->n);
	if (!err && pl->n == first)
		err = rd_err(&r, -ENOENT,
			     "no USDT probes (no %s section or stapsdt notes)",
			     DOF_SECTION_NAME);
	free(r.targets);
	return err;
}

int dt_object_probes(struct dt_probes *pl, const char *path,
		     const struct dt_collect_opts *o, char *msg, size_t msglen)
{
	struct objfile of;
	char why[256];
	int err;

	err = objf_open(&of, path, why, sizeof(why));
	if (err < 0) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s: %s", path, why);
		return err;
	}
	err = dt_object_probes_of(pl, &of, o, msg, msglen);
	objf_close(&of);
	return err;
}

/* ------------------------------------------------------------------ */
/* The probes of a running process's mapped files (dtrace -l -p) */

int dt_process_probes(struct dt_probes *pl, pid_t pid,
		      const struct dt_collect_opts *o)
{
	struct proc_maps mm;
	const struct proc_map *m;
	int added = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	added = proc_maps_read(pid, &mm);
	if (added < 0)
		return added;
	for (size_t k = 0; (m = proc_maps_next_file(&mm, &k));) {
		const char *base;
		char mf[PATH_MAX], msg[256];
		struct dt_object *obj;
		struct objfile of;
		size_t first = pl->n;
		uint64_t bias = 0;
		int err;

		if (proc_map_open_path(mf, sizeof(mf), pid, m) < 0 ||
		    objf_open(&of, mf, msg, sizeof(msg)) < 0)
			continue;
		err = elf_load_bias(of.ph, of.nph, m->start, m->off, &bias);
		if (!err)
			err = dt_object_probes_of(pl, &of, o, msg, sizeof(msg));
		objf_close(&of);
		if (err < 0)
			continue;
		obj = pl->objs[pl->nobjs - 1];
		free(obj->path);
		obj->path = strndup(m->path, proc_map_name_len(m));
		if (!obj->path) {
			added = -ENOMEM;
			break;
		}
		base = strrchr(obj->path, '/');
		obj->mod = base ? base + 1 : obj->path;
		for (size_t i = first; i < pl->n; i++) {
			struct dt_probe *q = &pl->v[i];

			q->origin = DT_ORIGIN_PROCESS;
			q->pid = pid;
			snprintf(q->provider, sizeof(q->provider), "%s%d",
				 q->prov, (int)pid);
			q->mod = obj->mod;
			q->path = obj->path;
			q->bias = bias;
			if (q->addr_known) {
				q->addr += bias;
				for (unsigned s = 0; s < q->nsites; s++)
					q->sites[s] += bias;
				for (unsigned s = 0; s < q->nensites; s++)
					q->ensites[s] += bias;
			}
			added++;
		}
	}
	proc_maps_free(&mm);
	return added;
}
