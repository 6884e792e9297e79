// SPDX-License-Identifier: MIT
/*
 * link_sites.c - dtrace -G, stage 1: read the input objects and find
 * their probe sites, changing nothing (doc/DESIGN.md §4-§7; the stages
 * are in link.c, the shared state in link_impl.h).
 *
 * An application object compiled against a `dtrace -h` header calls
 * __dtrace_<provider>___<probe>() at every probe.  For each input object
 * we find the relocations against such symbols in executable sections
 * (scan_sites()) and check the instruction each belongs to (bytes,
 * relocation type and, with libopcodes, that it starts on an instruction
 * boundary of its function: x86site.c or a64site.c, picked by the
 * objects' machine, site.h).  link.c then overwrites it with a NOP.  A
 * site an earlier run rewrote is recognised by its neutralised
 * relocation, which keeps its probe symbol, so a later run still knows
 * which probe each rewritten site belongs to.
 *
 * Each function holding sites gets an alias: a hidden global symbol
 * `$dtrace<hash>.<function>` at the same address, which link.c appends
 * to the object's symbol table.  It has no type and no size, so objdump,
 * perf and gdb keep naming the code after the function itself.  The
 * output object refers to functions through these aliases, which works
 * for static functions too, and, being hidden, can never bind to another
 * module's symbol.  The hash is taken over the object's path and
 * contents, so two objects with a static function of the same name get
 * different aliases.
 *
 * Inline probes.  Objects compiled against <sys/sdt.h> or a header of
 * `dtrace -h -x probestyle=inline` hold no calls to rewrite: the compiler
 * already wrote each site (a 1-byte NOP then a 10-byte NOP) and its
 * stapsdt note.  -G reads those notes (scan_notes()): every note of a
 * provider the script declares becomes a site that is already final,
 * whose function gets an alias as above and whose DOF entry is built
 * like any other; its note is not written again, and nothing else in the
 * object changes.  Notes of providers the script does not declare are
 * left to the tracers that read notes.  Call-form and inline objects mix
 * freely in one run.  Objects compiled with -flto (bitcode, or GCC LTO
 * sections, slim or fat) are accepted and left as they are: the code an
 * -flto link uses comes from the bytecode, whose probe calls reach the
 * stubs the header defines (prov_header.c), each a probe site with its
 * own note.  Those stub notes are not copied into the DOF either:
 * consumers read them from the notes.
 *
 * Anchors.  Each object with sites gets an undefined hidden symbol
 * `$dtrace<hash>` that the output defines (weak), so that linking the
 * object pulls the output in, even from a static archive nothing else
 * takes it from (see struct gobj).
 *
 * COMDAT.  The copies of an inline function, one in each object that
 * uses it, get an alias named after the layout of their sites
 * (gl_name_comdat()), and copies in one run must hold the same sites
 * (gl_check_comdat_copies()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dtrace.h"
#include "elfsec.h"
#include "grow.h"
#include "link_impl.h"
#include "objfile.h"
#include "prov.h"
#include "stapsdt.h"
#include "site.h"

/* FNV-1a, 64 bits: stable across runs and hosts. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static const char *symname(Elf *elf, size_t strndx, const GElf_Sym *s)
{
	const char *n = elf_strptr(elf, strndx, s->st_name);

	return n ? n : "";
}

/* ----------------------------------------------------------------------
 * Reading objects
 */

/* Check what kind of file o->buf holds and open it with libelf. */
static int load_object(struct glink *g, struct gobj *o)
{
	static const char bitcode[4] = { 'B', 'C', (char)0xc0, (char)0xde };

	if (o->size >= 8 && memcmp(o->buf, "!<arch>\n", 8) == 0)
		return gerr(g, o,
			    "is an archive; pass its object files instead (ar x)");
	if (o->size >= 4 && (memcmp(o->buf, bitcode, 4) == 0 ||
			     memcmp(o->buf, "\xde\xc0\x17\x0b", 4) == 0)) {
		o->lto = true;
		return 0;
	}
	if (o->size < EI_NIDENT || memcmp(o->buf, ELFMAG, SELFMAG) != 0)
		return gerr(g, o, "not an ELF object");
	o->elf = elf_memory((char *)o->buf, o->size);
	if (!o->elf)
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	return 0;
}

int gl_read_object(struct glink *g, struct gobj *o)
{
	size_t got = 0;
	int fd;

	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gerr(g, o, "cannot open: %s", strerror(errno));
	if (fstat(fd, &o->st) < 0 || !S_ISREG(o->st.st_mode)) {
		close(fd);
		return gerr(g, o, "not a regular file");
	}
	o->size = (size_t)o->st.st_size;
	o->buf = malloc(o->size ? o->size : 1);
	if (!o->buf) {
		close(fd);
		return gerr(g, o, "out of memory");
	}
	while (got < o->size) {
		ssize_t r = read(fd, o->buf + got, o->size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return gerr(g, o, "read error: %s",
				    r < 0 ? strerror(errno) : "file shrank");
		}
		got += (size_t)r;
	}
	close(fd);
	return load_object(g, o);
}

int gl_check_object(struct glink *g, struct gobj *o)
{
	const struct site_arch *arch;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool lto = false;

	if (!gelf_getehdr(o->elf, &eh))
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return gerr(g, o,
			    "is not a 64-bit little-endian object; dtrace -G rewrites x86-64 and aarch64 (LP64) objects only");
	arch = site_arch_of(eh.e_machine);
	if (!arch)
		return gerr(g, o,
			    "is for machine %u; dtrace -G rewrites x86-64 and aarch64 objects only",
			    eh.e_machine);
	if (g->arch && g->arch != arch)
		return gerr(g, o,
			    "is an %s object, but %s is %s: the objects of one run make one program or library, for one machine",
			    arch->name, g->objs[g->arch_obj].path, g->arch->name);
	if (!g->arch) {
		char why[256];

		g->arch = arch;
		g->arch_obj = (unsigned)(o - g->objs);
		if (arch->insns_available(why, sizeof(why)) < 0)
			gsay(g, false,
			     "warning: no disassembler (%s): probe sites are checked by their bytes only",
			     why);
	}
	if (eh.e_type != ET_REL)
		return gerr(g, o,
			    "is not a relocatable object (ELF type %u); pass the .o files that make up the program or library",
			    eh.e_type);
	if (elf_getshdrstrndx(o->elf, &shstrndx) < 0)
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return gerr(g, o, "libelf: %s", elf_errmsg(-1));
		name = elf_strptr(o->elf, shstrndx, sh.sh_name);
		if (name && strncmp(name, ".gnu.lto_", 9) == 0)
			lto = true;
		if (sh.sh_type == SHT_SYMTAB) {
			if (o->symndx)
				return gerr(g, o, "has two symbol tables");
			o->symndx = elf_ndxscn(scn);
		}
		if (sh.sh_type == SHT_REL && sh.sh_size)
			return gerr(g, o,
				    "has SHT_REL relocations, which %s objects do not use",
				    arch->name);
	}
	o->lto = lto;
	return 0;
}

/* Which provider and probe a symbol names, or NULL. */
static const struct prov_probe *
probe_of(const struct prov_file *pf, const char *rest,
	 const struct prov_provider **pvp)
{
	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		const struct prov_provider *pv = &pf->providers[v];
		size_t n = strlen(pv->name);

		if (strncmp(rest, pv->name, n) != 0 ||
		    strncmp(rest + n, PROV_SEP, 3) != 0)
			continue;
		*pvp = pv;
		return prov_find_probe(pv, rest + n + 3);
	}
	*pvp = NULL;
	return NULL;
}

static uint64_t obj_hash(struct glink *g, struct gobj *o)
{
	char real[PATH_MAX];

	if (o->hashed)
		return o->hash;
	(void)g;
	if (!realpath(o->path, real))
		snprintf(real, sizeof(real), "%s", o->path);
	o->hash = fnv(fnv(0xcbf29ce484222325ULL, real, strlen(real)), o->buf,
		      o->size);
	o->hashed = true;
	return o->hash;
}

/*
 * The function holding offset `off` of section `shndx`: the STT_FUNC
 * symbol elf_func_at() ranks first (the tracer names a stapsdt note's
 * function by the same rule), and our own aliases never name a function;
 * an alias an earlier run added at the function's address is reused.
 */
static int find_func(struct glink *g, unsigned oi, size_t shndx,
		     uint64_t off, unsigned *out)
{
	struct gobj *o = &g->objs[oi];
	Elf_Scn *symscn = elf_getscn(o->elf, o->symndx);
	struct elf_syms it;
	GElf_Sym best, s;
	const char *bestname, *alias = NULL, *name;
	struct gfunc *nf, *f;

	bestname = elf_func_at(o->elf, symscn, shndx, off, &best);
	if (!bestname)
		return -ENOENT;
	for (unsigned i = o->func_first; i < g->nfunc; i++) {
		f = &g->funcs[i];
		if (f->obj == oi && f->shndx == shndx &&
		    f->value == best.st_value) {
			*out = i;
			return 0;
		}
	}
	for (elf_syms_begin(&it, o->elf, symscn);
	     !alias && elf_syms_next(&it, &s, &name);)
		if (s.st_shndx == shndx && s.st_value == best.st_value &&
		    strncmp(name, ALIAS_PREFIX, strlen(ALIAS_PREFIX)) == 0)
			alias = name;
	if (grow_one(&g->funcs, &g->funccap, g->nfunc, sizeof(*g->funcs)))
		return -ENOMEM;
	nf = g->funcs;
	f = &nf[g->nfunc];
	memset(f, 0, sizeof(*f));
	f->obj = oi;
	f->shndx = shndx;
	f->value = best.st_value;
	f->size = best.st_size;
	/*
	 * Consumers name the function as written in the source: GCC's
	 * clones (helper.constprop.0.isra.0, main.cold) keep the name before
	 * the dot.  The DOF holds at most DTRACE_FUNCNAMELEN - 1 bytes.
	 */
	f->name = strndup(bestname,
			  elf_func_name_len(bestname, DTRACE_FUNCNAMELEN - 1));
	f->canon = -1;
	{
		GElf_Shdr sh;

		f->comdat = gelf_getshdr(elf_getscn(o->elf, shndx), &sh) &&
			    (sh.sh_flags & SHF_GROUP);
		if (alias) {
			f->alias = strdup(alias);
			f->alias_exists = true;
		} else if (f->comdat) {
			/* named by gl_name_comdat() once its sites are known */
			f->alias = strdup("");
		} else if (asprintf(&f->alias, ALIAS_PREFIX "%012llx.%s",
				    (unsigned long long)(obj_hash(g, o) >> 16),
				    bestname) < 0) {
			f->alias = NULL;
		}
	}
	if (!f->name || !f->alias) {
		free(f->name);
		free(f->alias);
		return -ENOMEM;
	}
	*out = g->nfunc++;
	return 0;
}

static int add_site(struct glink *g, const struct gsite *s)
{
	if (grow_one(&g->sites, &g->sitecap, g->nsite, sizeof(*g->sites)))
		return -ENOMEM;
	g->sites[g->nsite++] = *s;
	return 0;
}

/*
 * Inline probes: the sites that <sys/sdt.h> and `dtrace -h -x
 * probestyle=inline` headers make the compiler write, found through their
 * stapsdt notes (sdk/stapsdt.c reads them).  In a relocatable object a
 * note's addresses are still zero; the probe address is the 64-bit
 * absolute relocation (R_X86_64_64, R_AARCH64_ABS64) at the start of the
 * descriptor, whose symbol (usually the code section's) plus addend is
 * the site.  The descriptor starts 20 bytes into a note: a 12-byte
 * header and the owner "stapsdt\0".
 */
#define NOTE_DESC_AT 20

struct note_rela {
	uint64_t off;
	size_t idx;
};

static int note_rela_cmp(const void *a, const void *b)
{
	const struct note_rela *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The relocations of note section `ndx`, sorted by offset; NULL if none. */
static struct note_rela *note_relas(struct gobj *o, size_t ndx,
				    Elf_Data **rdp, size_t *cnt)
{
	Elf_Scn *scn = NULL;
	struct note_rela *v;

	*cnt = 0;
	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA &&
		    sh.sh_info == ndx && sh.sh_link == o->symndx)
			break;
	}
	if (!scn || !(*rdp = elf_getdata(scn, NULL)) ||
	    !(*cnt = (*rdp)->d_size / sizeof(Elf64_Rela)))
		return NULL;
	v = calloc(*cnt, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < *cnt; i++) {
		GElf_Rela r;

		v[i].idx = i;
		v[i].off = gelf_getrela(*rdp, (int)i, &r) ? r.r_offset :
							   UINT64_MAX;
	}
	qsort(v, *cnt, sizeof(*v), note_rela_cmp);
	return v;
}

/*
 * Whether stub_size bytes at p are the probe stub of a `dtrace -h`
 * header, today's or an older release's (site.h).
 */
static bool is_stub_code(const struct site_arch *arch, const uint8_t *p)
{
	return memcmp(p, arch->stub, arch->stub_size) == 0 ||
	       (arch->old_stub &&
		memcmp(p, arch->old_stub, arch->stub_size) == 0);
}

static bool site_known(const struct glink *g, unsigned oi, size_t shndx,
		       uint64_t off)
{
	for (unsigned i = g->objs[oi].site_first; i < g->nsite; i++)
		if (g->sites[i].obj == oi && g->sites[i].shndx == shndx &&
		    g->sites[i].at.start == off)
			return true;
	return false;
}

/* One note of section `sec`, at note->off: a site, or nothing. */
static int scan_note(struct glink *g, unsigned oi, const char *sec,
		     const struct stapsdt_note *note, Elf_Data *rd,
		     const struct note_rela *rel, size_t nrel)
{
	const struct site_arch *arch = g->arch;
	unsigned nfunc;
	struct gobj *o = &g->objs[oi];
	struct note_rela key = { note->off + NOTE_DESC_AT, 0 }, *hit;
	const struct prov_provider *pv;
	const struct prov_probe *pr;
	struct gsite site = { 0 };
	struct gfunc *f;
	GElf_Shdr symsh, tsh;
	GElf_Rela r;
	GElf_Sym sym;
	Elf_Scn *tscn;
	Elf_Data *symd, *td;
	int nargs;
	char why[512];
	int err;

	hit = rel ? bsearch(&key, rel, nrel, sizeof(*rel), note_rela_cmp) :
		    NULL;
	if (!hit || !gelf_getrela(rd, (int)hit->idx, &r) ||
	    GELF_R_TYPE(r.r_info) != arch->r_abs64)
		return gerr(g, o,
			    "section %s: the note of probe %s:::%s at offset %#llx has no 64-bit absolute relocation for its address",
			    sec, note->provider, note->name,
			    (unsigned long long)note->off);
	symd = elf_getdata(elf_getscn(o->elf, o->symndx), NULL);
	if (!gelf_getshdr(elf_getscn(o->elf, o->symndx), &symsh) || !symd ||
	    !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	/* a note about code elsewhere (another -G output merged in): not ours */
	if (sym.st_shndx == SHN_UNDEF)
		return 0;
	pv = prov_find_provider(g->pf, note->provider);
	if (!pv) {
		gsay(g, true,
		     "%s: inline probe %s:::%s left to the tracers that read notes: %s declares no provider '%s'",
		     o->path, note->provider, note->name, g->cmd->script,
		     note->provider);
		return 0;
	}
	site.obj = oi;
	site.shndx = sym.st_shndx;
	site.noted = true;
	site.at.kind = SITE_CALL;
	site.at.rewritten = true;
	site.at.len = arch->inline_nop_size;
	site.at.start = sym.st_value + (uint64_t)r.r_addend;
	tscn = site.shndx < SHN_LORESERVE ? elf_getscn(o->elf, site.shndx) :
					     NULL;
	td = tscn ? elf_getdata(tscn, NULL) : NULL;
	if (!tscn || !gelf_getshdr(tscn, &tsh) ||
	    !(tsh.sh_flags & SHF_EXECINSTR) || tsh.sh_type == SHT_NOBITS ||
	    !td || !td->d_buf || site.at.start >= td->d_size)
		return gerr(g, o,
			    "section %s: the note of probe %s:::%s at offset %#llx does not point into code",
			    sec, note->provider, note->name,
			    (unsigned long long)note->off);
	/* both runs and -G's own NOPs count once (an `ld -r` of both) */
	if (site_known(g, oi, site.shndx, site.at.start))
		return 0;
	nfunc = g->nfunc;
	err = find_func(g, oi, site.shndx, site.at.start, &site.func);
	if (err == -ENOMEM)
		return gerr(g, o, "out of memory");
	if (err)
		return gerr(g, o,
			    "inline probe %s:::%s at offset %#llx of its section is not inside any function symbol (in assembler, give the function `.type NAME, @function` and `.size`)",
			    note->provider, note->name,
			    (unsigned long long)site.at.start);
	f = &g->funcs[site.func];
	pr = prov_find_probe(pv, note->name);
	if (!pr)
		return gerr(g, o,
			    "function %s+%#llx has inline probe %s:::%s, but provider '%s' has no probe '%s'",
			    f->name,
			    (unsigned long long)(site.at.start - f->value),
			    note->provider, note->name, pv->name, note->name);
	nargs = arch->arg_count(note->args);
	if (nargs < 0 || (unsigned)nargs != pr->nargc)
		return gerr(g, o,
			    "function %s+%#llx: inline probe %s:::%s has the arguments \"%s\", but %s declares %u",
			    f->name,
			    (unsigned long long)(site.at.start - f->value),
			    note->provider, note->name, note->args,
			    g->cmd->script, pr->nargc);
	/*
	 * The probe stub of a `dtrace -h` header (site.h): its own note
	 * describes it wherever the linker keeps a copy, so the DOF leaves
	 * it out, as it leaves out every probe nobody calls.
	 */
	if (site.at.start == f->value && f->size == arch->stub_size &&
	    td->d_size - site.at.start >= arch->stub_size &&
	    is_stub_code(arch, (const uint8_t *)td->d_buf + site.at.start)) {
		if (memcmp((const uint8_t *)td->d_buf + site.at.start,
			   arch->stub, arch->stub_size) != 0) {
			/* room implied by the count (grow.h): grown here */
			if (grow_count(&o->old_stubs, o->nold_stubs,
				       sizeof(*o->old_stubs)) < 0)
				return gerr(g, o, "out of memory");
			o->old_stubs[o->nold_stubs].shndx = site.shndx;
			o->old_stubs[o->nold_stubs].off = site.at.start;
			o->nold_stubs++;
			gsay(g, true,
			     "%s: %s: %s:::%s: an older header's probe stub, rewritten with today's",
			     o->path, f->name, pv->name, pr->pubname);
		}
		if (g->nfunc > nfunc) {	/* forget the function just added */
			g->nfunc--;
			free(f->name);
			free(f->alias);
			site_insns_free(&f->insns);
		}
		return 0;
	}
	/* <sys/sdt.h> of usdt-sdk, systemtap and libbpf: a NOP (1-byte) */
	if (td->d_size - site.at.start < arch->inline_nop_size ||
	    memcmp((const uint8_t *)td->d_buf + site.at.start,
		   arch->inline_nop, arch->inline_nop_size) != 0) {
		site_hex((const uint8_t *)td->d_buf + site.at.start,
			td->d_size - site.at.start < 6 ?
			td->d_size - site.at.start : 6, why, sizeof(why));
		return gerr(g, o,
			    "function %s+%#llx: inline probe %s:::%s is not on a NOP but on [%s]",
			    f->name,
			    (unsigned long long)(site.at.start - f->value),
			    note->provider, note->name, why);
	}
	if (!f->insns.sec)
		site_insns_init(&f->insns, td->d_buf, td->d_size, f->value,
				f->size);
	err = arch->insns_check(&f->insns, site.at.start, site.at.len, true,
				why,
			      sizeof(why));
	if (err && err != -ENOTSUP)
		return gerr(g, o, "function %s+%#llx: inline probe %s:::%s: %s",
			    f->name,
			    (unsigned long long)(site.at.start - f->value),
			    note->provider, note->name, why);
	if (site.at.start - f->value > UINT32_MAX)
		return gerr(g, o, "function %s is too large", f->name);
	site.pv = pv;
	site.pr = pr;
	return add_site(g, &site) < 0 ? gerr(g, o, "out of memory") : 0;
}

/* The inline probes of object oi: every .note.stapsdt section's notes. */
static int scan_notes(struct glink *g, unsigned oi)
{
	struct gobj *o = &g->objs[oi];
	const char *name = STAPSDT_SECTION;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	/* a relocatable object has one such section per COMDAT group */
	while ((scn = elfw_section_next(o->elf, scn, name, &sh))) {
		struct stapsdt_note note;
		struct stapsdt_err nerr;
		struct note_rela *rel;
		uint64_t cursor = 0;
		Elf_Data *d, *rd = NULL;
		size_t nrel;
		int ret;

		if (sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)) ||
		    !d->d_size)
			continue;
		rel = note_relas(o, elf_ndxscn(scn), &rd, &nrel);
		if (!rel && nrel)
			return gerr(g, o, "out of memory");
		while ((ret = stapsdt_note_next(d->d_buf, d->d_size, 0,
						&cursor, &note, &nerr)) > 0) {
			ret = scan_note(g, oi, name, &note, rd, rel, nrel);
			if (ret)
				break;
		}
		free(rel);
		if (ret < 0 && nerr.code)
			return gerr(g, o, "section %s, offset %#llx: %s", name,
				    (unsigned long long)nerr.off, nerr.msg);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Every probe site of one object; nothing is changed yet. */
/*
 * Whether a defined probe function is the stub a `dtrace -h` header
 * defines (site.h): weak, in a COMDAT group, with the stub's bytes.
 * Calls to it are rewritten like calls to an undefined one; the stub
 * itself is a probe site that its own note describes (scan_notes()).
 */
static bool is_probe_stub(const struct glink *g, struct gobj *o,
			  const GElf_Sym *sym)
{
	size_t stubsize = g->arch->stub_size;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	if (GELF_ST_BIND(sym->st_info) != STB_WEAK ||
	    sym->st_shndx >= SHN_LORESERVE ||
	    !(scn = elf_getscn(o->elf, sym->st_shndx)) ||
	    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_GROUP) ||
	    sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf || sym->st_value > d->d_size ||
	    d->d_size - sym->st_value < stubsize)
		return false;
	return is_stub_code(g->arch, (const uint8_t *)d->d_buf + sym->st_value);
}

static int scan_sites(struct glink *g, unsigned oi)
{
	struct gobj *o = &g->objs[oi];
	Elf_Scn *scn = NULL, *symscn = elf_getscn(o->elf, o->symndx);
	Elf_Data *symd;
	GElf_Shdr symsh;
	size_t shstrndx;

	if (!o->symndx)
		return 0;	/* no symbols, so no probe calls */
	if (!gelf_getshdr(symscn, &symsh) || !(symd = elf_getdata(symscn, NULL)))
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	elf_getshdrstrndx(o->elf, &shstrndx);

	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr rsh, tsh;
		Elf_Scn *tscn;
		Elf_Data *rd, *td;
		const char *tname;

		if (!gelf_getshdr(scn, &rsh) || rsh.sh_type != SHT_RELA ||
		    rsh.sh_link != o->symndx)
			continue;
		tscn = elf_getscn(o->elf, rsh.sh_info);
		if (!tscn || !gelf_getshdr(tscn, &tsh))
			continue;
		tname = elf_strptr(o->elf, shstrndx, tsh.sh_name);
		if (!tname)
			tname = "?";
		rd = elf_getdata(scn, NULL);
		td = elf_getdata(tscn, NULL);
		if (!rd)
			return gerr(g, o, "libelf: %s", elf_errmsg(-1));

		for (size_t i = 0; i < rd->d_size / sizeof(Elf64_Rela); i++) {
			const struct prov_provider *pv;
			const struct prov_probe *pr;
			struct gsite site = { 0 };
			GElf_Rela r;
			GElf_Sym sym;
			const char *name, *rest;
			bool en;
			char why[512];
			int err;

			if (!gelf_getrela(rd, (int)i, &r) ||
			    !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
				return gerr(g, o, "libelf: %s", elf_errmsg(-1));
			name = symname(o->elf, symsh.sh_link, &sym);
			if (strncmp(name, PROV_FUNC_PREFIX,
				    strlen(PROV_FUNC_PREFIX)) == 0) {
				en = false;
				rest = name + strlen(PROV_FUNC_PREFIX);
			} else if (strncmp(name, PROV_ENABLED_PREFIX,
					   strlen(PROV_ENABLED_PREFIX)) == 0) {
				en = true;
				rest = name + strlen(PROV_ENABLED_PREFIX);
			} else {
				continue;
			}
			if (!(tsh.sh_flags & SHF_EXECINSTR)) {
				if (!(tsh.sh_flags & SHF_ALLOC))
					continue;	/* debug info */
				return gerr(g, o,
					    "section %s at offset %#llx takes the address of probe function '%s'; probes may only be called",
					    tname, (unsigned long long)r.r_offset,
					    name);
			}
			if (sym.st_shndx != SHN_UNDEF &&
			    !is_probe_stub(g, o, &sym))
				return gerr(g, o,
					    "defines '%s' itself; probe functions must be left undefined for dtrace -G",
					    name);
			pr = probe_of(g->pf, rest, &pv);
			site.obj = oi;
			site.shndx = rsh.sh_info;
			site.relscn = elf_ndxscn(scn);
			site.relidx = i;
			site.symidx = GELF_R_SYM(r.r_info);
			site.pv = pv;
			site.pr = pr;
			/* SHT_NOBITS: libelf gives a size but no bytes */
			if (!td || !td->d_buf || tsh.sh_type == SHT_NOBITS)
				return gerr(g, o, "section %s has no data",
					    tname);
			err = g->arch->classify(td->d_buf, td->d_size,
						(uint32_t)GELF_R_TYPE(r.r_info),
						r.r_offset, r.r_addend, en,
						&site.at, why, sizeof(why));
			if (err == 0) {
				err = find_func(g, oi, rsh.sh_info,
						site.at.start, &site.func);
				if (err == -ENOMEM)
					return gerr(g, o, "out of memory");
				if (err)
					return gerr(g, o,
						    "section %s offset %#llx: call to '%s' is not inside any function symbol",
						    tname,
						    (unsigned long long)site.at.start,
						    name);
			}
			if (err) {
				/* name the function if the offset has one */
				unsigned fi;

				if (find_func(g, oi, rsh.sh_info, r.r_offset,
					      &fi) == 0)
					return gerr(g, o,
						    "function %s+%#llx: call to '%s': %s",
						    g->funcs[fi].name,
						    (unsigned long long)(r.r_offset -
						    g->funcs[fi].value), name, why);
				return gerr(g, o,
					    "section %s offset %#llx: call to '%s': %s",
					    tname, (unsigned long long)r.r_offset,
					    name, why);
			}
			if (!pv)
				return gerr(g, o,
					    "function %s+%#llx calls '%s', but %s defines no such provider",
					    g->funcs[site.func].name,
					    (unsigned long long)(site.at.start -
					    g->funcs[site.func].value),
					    name, g->cmd->script);
			if (!pr)
				return gerr(g, o,
					    "function %s+%#llx calls '%s', but provider '%s' has no probe '%s'",
					    g->funcs[site.func].name,
					    (unsigned long long)(site.at.start -
					    g->funcs[site.func].value),
					    name, pv->name,
					    rest + strlen(pv->name) + 3);
			{
				struct gfunc *f = &g->funcs[site.func];

				if (!f->insns.sec)
					site_insns_init(&f->insns, td->d_buf,
							td->d_size, f->value,
							f->size);
				err = g->arch->insns_check(
					&f->insns, site.at.start, site.at.len,
					!site.at.rewritten && !site.at.old, why,
					sizeof(why));
				if (err && err != -ENOTSUP)
					return gerr(g, o,
						    "function %s+%#llx: call to '%s' refused: %s",
						    f->name,
						    (unsigned long long)(site.at.start -
						    f->value), name, why);
				if (site.at.start - f->value > UINT32_MAX)
					return gerr(g, o,
						    "function %s is too large",
						    f->name);
			}
			if (add_site(g, &site) < 0)
				return gerr(g, o, "out of memory");
		}
	}
	return scan_notes(g, oi);
}

/*
 * The anchor of object o (see struct gobj): the one an earlier run added,
 * else a new one named after the object, as its aliases are.
 */
static int find_anchor(struct glink *g, struct gobj *o)
{
	struct elf_syms it;
	size_t plen = strlen(ALIAS_PREFIX);
	const char *name;
	GElf_Sym sym;

	for (elf_syms_begin(&it, o->elf, elf_getscn(o->elf, o->symndx));
	     elf_syms_next(&it, &sym, &name);)
		if (sym.st_shndx == SHN_UNDEF &&
		    strncmp(name, ALIAS_PREFIX, plen) == 0 &&
		    strlen(name) == plen + 12 && !strchr(name, '.')) {
			o->anchor = strdup(name);
			o->anchor_exists = true;
			return o->anchor ? 0 : -ENOMEM;
		}
	if (asprintf(&o->anchor, ALIAS_PREFIX "%012llx",
		     (unsigned long long)(obj_hash(g, o) >> 16)) < 0) {
		o->anchor = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Every probe site of one object; its functions and sites form a range. */
int gl_scan_object(struct glink *g, unsigned oi)
{
	struct gobj *o = &g->objs[oi];
	int err;

	o->func_first = g->nfunc;
	o->site_first = g->nsite;
	err = scan_sites(g, oi);
	o->func_end = g->nfunc;
	o->site_end = g->nsite;
	if (!err && o->site_end > o->site_first && find_anchor(g, o) < 0)
		err = gerr(g, o, "out of memory");
	return err;
}

/*
 * An inline function is emitted, in a COMDAT group, by every object that
 * uses it, and the linker keeps one copy, from whichever object comes
 * first.  Its alias is named after the function and the layout of its
 * sites (offsets, kinds, probes), the same in every copy laid out alike:
 * the copy the linker keeps defines it for every -G output that describes
 * such a copy, in this run or another.  A copy laid out differently gets
 * another alias, which the kept copy cannot define, so such a program
 * fails to link instead of describing probes at the wrong offsets.  The
 * notes of each such function go to a COMDAT group of the output signed
 * with the alias's layout, so that outputs of several runs describe the
 * kept copy once.  Copies within one run are matched by name.
 */
int gl_name_comdat(struct glink *g)
{
	for (unsigned fi = 0; fi < g->nfunc; fi++) {
		struct gfunc *f = &g->funcs[fi];
		uint64_t h = 0;

		if (!f->comdat)
			continue;
		/* a sum of the sites' hashes: their order does not matter */
		for (unsigned i = g->objs[f->obj].site_first;
		     i < g->objs[f->obj].site_end; i++) {
			const struct gsite *s = &g->sites[i];
			uint64_t k = 0xcbf29ce484222325ULL;
			uint64_t off = s->at.start - f->value;
			uint8_t kind[3] = { (uint8_t)s->at.kind,
					    (uint8_t)s->at.is_enabled,
					    (uint8_t)s->noted };

			if (s->func != fi)
				continue;
			k = fnv(k, &off, sizeof(off));
			k = fnv(k, kind, sizeof(kind));
			k = fnv(k, s->pv->name, strlen(s->pv->name) + 1);
			k = fnv(k, s->pr->name, strlen(s->pr->name) + 1);
			h += k;
		}
		h = fnv(h, &f->size, sizeof(f->size));
		f->layout = h;
		if (!f->alias_exists) {
			free(f->alias);
			if (asprintf(&f->alias, ALIAS_PREFIX ".%012llx.%s",
				     (unsigned long long)(h >> 16),
				     f->name) < 0) {
				f->alias = NULL;
				return gerr(g, NULL, "out of memory");
			}
		}
		for (unsigned j = 0; j < fi; j++) {
			if (g->funcs[j].comdat && g->funcs[j].canon < 0 &&
			    g->funcs[j].obj != f->obj &&
			    strcmp(g->funcs[j].name, f->name) == 0) {
				f->canon = (int)j;
				break;
			}
		}
	}
	return 0;
}

/*
 * Copies of one COMDAT function must hold the same sites: the output
 * describes the sites once, at the copy the linker keeps, whichever it
 * is.  Copies compiled differently would put probes inside instructions.
 */
int gl_check_comdat_copies(struct glink *g)
{
	for (unsigned fi = 0; fi < g->nfunc; fi++) {
		const struct gfunc *f = &g->funcs[fi], *c;
		unsigned nf = 0, nc = 0;
		bool same;

		if (f->canon < 0)
			continue;
		c = &g->funcs[f->canon];
		same = f->size == c->size;
		for (unsigned i = g->objs[c->obj].site_first;
		     i < g->objs[c->obj].site_end; i++)
			nc += g->sites[i].func == (unsigned)f->canon;
		for (unsigned i = g->objs[f->obj].site_first;
		     same && i < g->objs[f->obj].site_end; i++) {
			const struct gsite *s = &g->sites[i];
			bool found = false;

			if (s->func != fi)
				continue;
			nf++;
			for (unsigned j = g->objs[c->obj].site_first;
			     j < g->objs[c->obj].site_end && !found; j++) {
				const struct gsite *t = &g->sites[j];

				found = t->func == (unsigned)f->canon &&
					t->pr == s->pr &&
					t->at.is_enabled == s->at.is_enabled &&
					t->at.start - c->value ==
					s->at.start - f->value;
			}
			same = found;
		}
		if (same && nf != nc)
			same = false;
		if (!same)
			return gerr(g, &g->objs[f->obj],
				    "inline function %s is also in %s, compiled differently (its probe sites differ); the linker keeps one copy, so compile both objects with the same compiler and flags",
				    f->name, g->objs[c->obj].path);
	}
	return 0;
}

/*
 * The fuzzers' way in (fuzz/fuzz-elf.c): stage 1 of dtrace_link() --
 * load_object(), gl_check_object(), gl_scan_object() and the COMDAT
 * checks -- on one object held in memory, named `path` in messages.
 * Nothing is opened, written or renamed, and buf is never modified;
 * the error's words go to msg as dtrace -G's do.  Returns 0 (with the
 * number of probe sites in *nsite) or a negative errno.
 */
int dtrace_link_scan_mem(const struct dt_link_opts *cmd,
			 const struct prov_file *pf, const char *path,
			 const void *buf, size_t len, unsigned *nsite,
			 char *msg, size_t msglen)
{
	struct gobj o = { 0 };
	struct glink g = { 0 };
	int err;

	if (gl_begin(&g, cmd, pf, msg, msglen) < 0)
		return -EINVAL;
	g.objs = &o;
	g.nobj = 1;
	o.path = path;
	o.buf = (uint8_t *)buf;	/* only rewrite_object() writes, to a copy */
	o.size = len;
	/* obj_hash() without realpath(): there is no file */
	o.hash = fnv(fnv(0xcbf29ce484222325ULL, path, strlen(path)), buf, len);
	o.hashed = true;
	err = load_object(&g, &o);
	if (!err && !o.lto)
		err = gl_check_object(&g, &o);
	if (!err && !o.lto)
		err = gl_scan_object(&g, 0);
	if (!err)
		err = gl_name_comdat(&g);
	if (!err)
		err = gl_check_comdat_copies(&g);
	if (!err && nsite)
		*nsite = g.nsite;
	/* what dtrace_link() frees of each object, but o.buf (the caller's) */
	if (o.elf)
		elf_end(o.elf);
	free(o.anchor);
	free(o.old_stubs);
	gl_free_sites(&g);
	return err;
}

void gl_free_sites(struct glink *g)
{
	for (unsigned i = 0; i < g->nfunc; i++) {
		free(g->funcs[i].name);
		free(g->funcs[i].alias);
		site_insns_free(&g->funcs[i].insns);
	}
	free(g->funcs);
	free(g->sites);
}
