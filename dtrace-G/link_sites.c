// SPDX-License-Identifier: MIT
/*
 * link.c - dtrace -G: rewrite probe call sites in x86-64 objects in place
 * and write the object that describes them (doc/DESIGN.md §4-§7).
 *
 *	dtrace -G -s provider.d [-o provider.o] obj.o ...
 *
 * An application object compiled against a `dtrace -h` header calls
 * __dtrace_<provider>___<probe>() at every probe.  For each input object
 * we find the relocations against such symbols in executable sections,
 * check the instruction each belongs to (bytes, relocation type and, with
 * libopcodes, that it starts on an instruction boundary of its function),
 * and overwrite it with a NOP (x86site.c).  The relocation becomes
 * R_X86_64_NONE with r_offset moved to the site start, and an undefined
 * probe symbol becomes weak and hidden (one the header's stub defines,
 * in its COMDAT group, is left as it is).  A hidden undefined weak symbol is
 * resolved to 0 by the static linker and never exported, so no undefined
 * reference survives, not even under -Wl,-z,defs or in a shared library.
 * (An absolute definition would be simpler, but GNU ld refuses even an
 * R_X86_64_NONE relocation against an absolute symbol in a PIE.)  The
 * neutralised relocations keep their symbol, so a later run still knows
 * which probe each rewritten site belongs to.
 *
 * Each function holding sites gets an alias: a hidden global symbol
 * `$dtrace<hash>.<function>` at the same address, appended to the
 * object's symbol table.  It has no type and no size, so objdump, perf
 * and gdb keep naming the code after the function itself.  The output object refers to functions through
 * these aliases, which works for static functions too, and, being hidden,
 * can never bind to another module's symbol.  The hash is taken over the
 * object's path and contents, so two objects with a static function of
 * the same name get different aliases.
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
 * The output object holds:
 *	.SUNW_dof	the DOF (dof_build.c), symbol __SUNW_dof, with an
 *			R_X86_64_64 relocation per dofpr_addr (writable, so
 *			PIEs and shared libraries get no text relocations)
 *	.note.stapsdt	one note per site, for bpftrace, perf, gdb and bcc
 *	.stapsdt.base	in a COMDAT group, as <sys/sdt.h> emits it, and
 *			SHF_GNU_RETAIN, so lld --gc-sections keeps it
 *	.probes		one semaphore per probe of the providers, weak and
 *			hidden: _ENABLED() in the header reads it
 *	drti.o		merged with `ld -r` ($LD); then every defined symbol
 *			but the semaphores is made local, so several -G
 *			outputs link into one program without clashes
 *
 * Safety: nothing is written until every object has been read and every
 * site understood.  Rewritten objects are written to temporary files
 * beside them; only when all of them and the output are complete are
 * they renamed into place, keeping the objects' modification times.
 * SIGINT, SIGTERM and SIGHUP remove the
 * temporary files (sdk/outfile.c); after SIGKILL they may remain, named
 * .OBJECT.XXXXXX, but every input is still intact.  An object with nothing to change is not
 * touched at all, so a second run over rewritten objects leaves them
 * byte-identical with the same mtime, and writes the same output.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usdt/dof.h"
#include "dof_build.h"
#include "dtrace.h"
#include "elfsec.h"
#include "elfw.h"
#include "outfile.h"
#include "prov.h"
#include "stapsdt.h"
#include "x86site.h"

#ifndef R_X86_64_GOTPCRELX
#define R_X86_64_GOTPCRELX 41
#endif

extern char **environ;

#define ALIAS_PREFIX "$dtrace"

struct gobj {
	const char *path;
	uint8_t *buf;		/* the file as read */
	size_t size;
	struct stat st;
	Elf *elf;
	size_t symndx;		/* section index of .symtab */
	uint64_t hash;
	bool hashed;
	bool changed;
	/*
	 * Compiled with -flto (LLVM bitcode, or GCC LTO sections, slim or
	 * fat): the code an -flto link uses is made from the bytecode, so
	 * rewriting the machine code beside it (or describing it in the DOF)
	 * would be wrong or, with an -flto link, refer to symbols that never
	 * exist.  Such an object is read and left alone; its probes call
	 * the stubs its header defines.
	 */
	bool lto;
	/*
	 * The anchor: an undefined hidden symbol `$dtrace<hash>` added to
	 * an object with probe sites, which the output defines.  Linking
	 * the object then pulls in the output even from a static archive
	 * that nothing else takes it from (Perl's libperl.a holds the
	 * rewritten objects and their -G output, and perl's own -G output
	 * already defines every semaphore): without it the notes and the
	 * DOF of the archive's sites would silently stay behind.
	 */
	char *anchor;
	bool anchor_exists;
	char *tmp;		/* rewritten copy, until renamed */
	/*
	 * Its functions and sites: funcs[func_first..func_end) and, until
	 * build_output sorts them, sites[site_first..site_end).  Scanning
	 * appends, one object after the other, so every per-object loop
	 * stays within its own range: -G grows linearly with the objects.
	 */
	unsigned func_first, func_end, site_first, site_end;
};

struct gfunc {
	unsigned obj;
	size_t shndx;
	uint64_t value, size;
	char *name;		/* as consumers see it */
	char *alias;		/* symbol the output refers to */
	bool alias_exists;
	bool comdat;		/* in a COMDAT group: an inline function */
	uint64_t layout;	/* COMDAT: hash of its size and its sites */
	int canon;		/* COMDAT copy of funcs[canon], else -1 */
	struct x86_insns insns;	/* its instruction boundaries */
};

struct gsite {
	unsigned obj;
	unsigned func;
	const struct prov_provider *pv;
	const struct prov_probe *pr;
	struct x86_site x;
	size_t shndx;		/* code section */
	size_t relscn;		/* its relocation section */
	size_t relidx;
	size_t symidx;		/* the probe symbol */
	bool noted;		/* an inline probe: its note is in the object */
};

struct glink {
	const struct dtrace_cmd *cmd;
	const struct prov_file *pf;
	struct gobj *objs;
	unsigned nobj;
	struct gfunc *funcs;
	unsigned nfunc;
	struct gsite *sites;
	unsigned nsite;
};

static int __attribute__((format(printf, 3, 4)))
gerr(const struct glink *g, const struct gobj *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dtrace: failed to link script %s: ", g->cmd->script);
	if (o)
		fprintf(stderr, "%s: ", o->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

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

static int read_object(struct glink *g, struct gobj *o)
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

static int check_object(struct glink *g, struct gobj *o)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool lto = false;

	if (!gelf_getehdr(o->elf, &eh))
		return gerr(g, o, "libelf: %s", elf_errmsg(-1));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return gerr(g, o,
			    "is a 32-bit object; dtrace -G rewrites x86-64 (64-bit) objects only");
	if (eh.e_machine != EM_X86_64)
		return gerr(g, o,
			    "is for machine %u, not x86-64; dtrace -G rewrites x86-64 objects only",
			    eh.e_machine);
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
				    "has SHT_REL relocations, which x86-64 objects do not use");
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
 * The function holding offset `off` of section `shndx`: a named STT_FUNC
 * symbol covering it.  Global names win over local ones, and our own
 * aliases never name a function; an alias an earlier run added at the
 * function's address is reused.
 */
static int find_func(struct glink *g, unsigned oi, size_t shndx,
		     uint64_t off, unsigned *out)
{
	struct gobj *o = &g->objs[oi];
	Elf_Scn *symscn = elf_getscn(o->elf, o->symndx);
	Elf_Data *d = elf_getdata(symscn, NULL);
	size_t nsym = d ? d->d_size / sizeof(Elf64_Sym) : 0;
	GElf_Shdr symsh;
	GElf_Sym best = { 0 }, s;
	const char *bestname = NULL, *alias = NULL;
	struct gfunc *nf, *f;
	int rank = -1;

	gelf_getshdr(symscn, &symsh);
	for (size_t i = 1; i < nsym; i++) {
		const char *name;
		int r;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx != shndx ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    off < s.st_value || off >= s.st_value + s.st_size)
			continue;
		name = symname(o->elf, symsh.sh_link, &s);
		r = GELF_ST_BIND(s.st_info) != STB_LOCAL ? 3 :
		    !strchr(name, '.') ? 2 : 1;
		if (r > rank) {
			rank = r;
			best = s;
			bestname = name;
		}
	}
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
	for (size_t i = 1; i < nsym && !alias; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx != shndx ||
		    s.st_value != best.st_value)
			continue;
		name = symname(o->elf, symsh.sh_link, &s);
		if (strncmp(name, ALIAS_PREFIX, strlen(ALIAS_PREFIX)) == 0)
			alias = name;
	}
	nf = realloc(g->funcs, (g->nfunc + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	g->funcs = nf;
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
	{
		const char *dot = strchr(bestname, '.');
		size_t n = dot && dot != bestname ? (size_t)(dot - bestname) :
						    strlen(bestname);

		if (n > DTRACE_FUNCNAMELEN - 1)
			n = DTRACE_FUNCNAMELEN - 1;
		f->name = strndup(bestname, n);
	}
	f->canon = -1;
	{
		GElf_Shdr sh;

		f->comdat = gelf_getshdr(elf_getscn(o->elf, shndx), &sh) &&
			    (sh.sh_flags & SHF_GROUP);
		if (alias) {
			f->alias = strdup(alias);
			f->alias_exists = true;
		} else if (f->comdat) {
			/* named by name_comdat() once its sites are known */
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
	struct gsite *ns = realloc(g->sites, (g->nsite + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	g->sites = ns;
	ns[g->nsite++] = *s;
	return 0;
}

/*
 * Inline probes: the sites that <sys/sdt.h> and `dtrace -h -x
 * probestyle=inline` headers make the compiler write, found through their
 * stapsdt notes (sdk/stapsdt.c reads them).  In a relocatable object a
 * note's addresses are still zero; the probe address is the R_X86_64_64
 * relocation at the start of the descriptor, whose symbol (usually the
 * code section's) plus addend is the site.  The descriptor starts 20
 * bytes into a note: a 12-byte header and the owner "stapsdt\0".
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

static bool site_known(const struct glink *g, unsigned oi, size_t shndx,
		       uint64_t off)
{
	for (unsigned i = g->objs[oi].site_first; i < g->nsite; i++)
		if (g->sites[i].obj == oi && g->sites[i].shndx == shndx &&
		    g->sites[i].x.start == off)
			return true;
	return false;
}

/* One note of section `sec`, at note->off: a site, or nothing. */
static int scan_note(struct glink *g, unsigned oi, const char *sec,
		     const struct stapsdt_note *note, Elf_Data *rd,
		     const struct note_rela *rel, size_t nrel)
{
	static const uint8_t stub[] = X86_STUB_BYTES;
	unsigned nfunc;
	struct gobj *o = &g->objs[oi];
	struct note_rela key = { note->off + NOTE_DESC_AT, 0 }, *hit;
	const struct prov_provider *pv;
	const struct prov_probe *pr;
	struct gsite site = { 0 };
	struct stapsdt_arg arg;
	struct stapsdt_err aerr;
	struct gfunc *f;
	GElf_Shdr symsh, tsh;
	GElf_Rela r;
	GElf_Sym sym;
	Elf_Scn *tscn;
	Elf_Data *symd, *td;
	unsigned nargs = 0;
	size_t cur = 0;
	char why[512];
	int err;

	hit = rel ? bsearch(&key, rel, nrel, sizeof(*rel), note_rela_cmp) :
		    NULL;
	if (!hit || !gelf_getrela(rd, (int)hit->idx, &r) ||
	    GELF_R_TYPE(r.r_info) != R_X86_64_64)
		return gerr(g, o,
			    "section %s: the note of probe %s:::%s at offset %#llx has no R_X86_64_64 relocation for its address",
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
		if (g->cmd->verbose)
			fprintf(stderr,
				"dtrace: %s: inline probe %s:::%s left to the tracers that read notes: %s declares no provider '%s'\n",
				o->path, note->provider, note->name,
				g->cmd->script, note->provider);
		return 0;
	}
	site.obj = oi;
	site.shndx = sym.st_shndx;
	site.noted = true;
	site.x.kind = X86_SITE_CALL;
	site.x.rewritten = true;
	site.x.len = 1;
	site.x.start = sym.st_value + (uint64_t)r.r_addend;
	tscn = site.shndx < SHN_LORESERVE ? elf_getscn(o->elf, site.shndx) :
					     NULL;
	td = tscn ? elf_getdata(tscn, NULL) : NULL;
	if (!tscn || !gelf_getshdr(tscn, &tsh) ||
	    !(tsh.sh_flags & SHF_EXECINSTR) || tsh.sh_type == SHT_NOBITS ||
	    !td || !td->d_buf || site.x.start >= td->d_size)
		return gerr(g, o,
			    "section %s: the note of probe %s:::%s at offset %#llx does not point into code",
			    sec, note->provider, note->name,
			    (unsigned long long)note->off);
	/* both runs and -G's own NOPs count once (an `ld -r` of both) */
	if (site_known(g, oi, site.shndx, site.x.start))
		return 0;
	nfunc = g->nfunc;
	err = find_func(g, oi, site.shndx, site.x.start, &site.func);
	if (err == -ENOMEM)
		return gerr(g, o, "out of memory");
	if (err)
		return gerr(g, o,
			    "inline probe %s:::%s at offset %#llx of its section is not inside any function symbol (in assembler, give the function `.type NAME, @function` and `.size`)",
			    note->provider, note->name,
			    (unsigned long long)site.x.start);
	f = &g->funcs[site.func];
	pr = prov_find_probe(pv, note->name);
	if (!pr)
		return gerr(g, o,
			    "function %s+%#llx has inline probe %s:::%s, but provider '%s' has no probe '%s'",
			    f->name,
			    (unsigned long long)(site.x.start - f->value),
			    note->provider, note->name, pv->name, note->name);
	while ((err = stapsdt_arg_next(note->args, &cur, &arg, &aerr)) > 0)
		nargs++;
	if (err < 0 || nargs != pr->nargc)
		return gerr(g, o,
			    "function %s+%#llx: inline probe %s:::%s has the arguments \"%s\", but %s declares %u",
			    f->name,
			    (unsigned long long)(site.x.start - f->value),
			    note->provider, note->name, note->args,
			    g->cmd->script, pr->nargc);
	/*
	 * The probe stub of a `dtrace -h` header (x86site.h): its own note
	 * describes it wherever the linker keeps a copy, so the DOF leaves
	 * it out, as it leaves out every probe nobody calls.
	 */
	if (site.x.start == f->value && f->size == X86_STUB_SIZE &&
	    td->d_size - site.x.start >= X86_STUB_SIZE &&
	    memcmp((const uint8_t *)td->d_buf + site.x.start, stub,
		   X86_STUB_SIZE) == 0) {
		if (g->nfunc > nfunc) {	/* forget the function just added */
			g->nfunc--;
			free(f->name);
			free(f->alias);
			x86_insns_free(&f->insns);
		}
		return 0;
	}
	/* <sys/sdt.h> of usdt-sdk, systemtap and libbpf: a 1-byte NOP */
	if (((const uint8_t *)td->d_buf)[site.x.start] != 0x90) {
		x86_hex((const uint8_t *)td->d_buf + site.x.start,
			td->d_size - site.x.start < 6 ?
			td->d_size - site.x.start : 6, why, sizeof(why));
		return gerr(g, o,
			    "function %s+%#llx: inline probe %s:::%s is not on a NOP but on [%s]",
			    f->name,
			    (unsigned long long)(site.x.start - f->value),
			    note->provider, note->name, why);
	}
	if (!f->insns.sec)
		x86_insns_init(&f->insns, td->d_buf, td->d_size, f->value,
			       f->size);
	err = x86_insns_check(&f->insns, site.x.start, 1, true, why,
			      sizeof(why));
	if (err && err != -ENOTSUP)
		return gerr(g, o, "function %s+%#llx: inline probe %s:::%s: %s",
			    f->name,
			    (unsigned long long)(site.x.start - f->value),
			    note->provider, note->name, why);
	if (site.x.start - f->value > UINT32_MAX)
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
 * defines (x86site.h): weak, in a COMDAT group, with the stub's bytes.
 * Calls to it are rewritten like calls to an undefined one; the stub
 * itself is a probe site that its own note describes (scan_notes()).
 */
static bool is_probe_stub(struct gobj *o, const GElf_Sym *sym)
{
	static const uint8_t stub[] = X86_STUB_BYTES;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	if (GELF_ST_BIND(sym->st_info) != STB_WEAK ||
	    sym->st_shndx >= SHN_LORESERVE ||
	    !(scn = elf_getscn(o->elf, sym->st_shndx)) ||
	    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_GROUP) ||
	    sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf || sym->st_value > d->d_size ||
	    d->d_size - sym->st_value < sizeof(stub))
		return false;
	return memcmp((const uint8_t *)d->d_buf + sym->st_value, stub,
		      sizeof(stub)) == 0;
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
			    !is_probe_stub(o, &sym))
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
			err = x86_site_classify(td->d_buf, td->d_size,
						(uint32_t)GELF_R_TYPE(r.r_info),
						r.r_offset, r.r_addend, en,
						&site.x, why, sizeof(why));
			if (err == 0) {
				err = find_func(g, oi, rsh.sh_info,
						site.x.start, &site.func);
				if (err == -ENOMEM)
					return gerr(g, o, "out of memory");
				if (err)
					return gerr(g, o,
						    "section %s offset %#llx: call to '%s' is not inside any function symbol",
						    tname,
						    (unsigned long long)site.x.start,
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
					    (unsigned long long)(site.x.start -
					    g->funcs[site.func].value),
					    name, g->cmd->script);
			if (!pr)
				return gerr(g, o,
					    "function %s+%#llx calls '%s', but provider '%s' has no probe '%s'",
					    g->funcs[site.func].name,
					    (unsigned long long)(site.x.start -
					    g->funcs[site.func].value),
					    name, pv->name,
					    rest + strlen(pv->name) + 3);
			{
				struct gfunc *f = &g->funcs[site.func];

				if (!f->insns.sec)
					x86_insns_init(&f->insns, td->d_buf,
						       td->d_size, f->value,
						       f->size);
				err = x86_insns_check(&f->insns, site.x.start,
						      site.x.len,
						      !site.x.rewritten, why,
						      sizeof(why));
				if (err && err != -ENOTSUP)
					return gerr(g, o,
						    "function %s+%#llx: call to '%s' refused: %s",
						    f->name,
						    (unsigned long long)(site.x.start -
						    f->value), name, why);
				if (site.x.start - f->value > UINT32_MAX)
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
	Elf_Scn *symscn = elf_getscn(o->elf, o->symndx);
	Elf_Data *d = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t nsym = d ? d->d_size / sizeof(Elf64_Sym) : 0;
	size_t plen = strlen(ALIAS_PREFIX);
	GElf_Shdr symsh;
	GElf_Sym sym;

	if (symscn && gelf_getshdr(symscn, &symsh))
		for (size_t i = 1; i < nsym; i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    sym.st_shndx != SHN_UNDEF)
				continue;
			name = symname(o->elf, symsh.sh_link, &sym);
			if (strncmp(name, ALIAS_PREFIX, plen) == 0 &&
			    strlen(name) == plen + 12 && !strchr(name, '.')) {
				o->anchor = strdup(name);
				o->anchor_exists = true;
				return o->anchor ? 0 : -ENOMEM;
			}
		}
	if (asprintf(&o->anchor, ALIAS_PREFIX "%012llx",
		     (unsigned long long)(obj_hash(g, o) >> 16)) < 0) {
		o->anchor = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Every probe site of one object; its functions and sites form a range. */
static int scan_object(struct glink *g, unsigned oi)
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
static int name_comdat(struct glink *g)
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
			uint64_t off = s->x.start - f->value;
			uint8_t kind[3] = { (uint8_t)s->x.kind,
					    (uint8_t)s->x.is_enabled,
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
static int check_comdat_copies(struct glink *g)
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
					t->x.is_enabled == s->x.is_enabled &&
					t->x.start - c->value ==
					s->x.start - f->value;
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

/* ----------------------------------------------------------------------
 * Rewriting objects
 */

static bool obj_needs_change(const struct glink *g, unsigned oi)
{
	const struct gobj *o = &g->objs[oi];

	for (unsigned i = o->site_first; i < o->site_end; i++)
		if (!g->sites[i].x.rewritten)
			return true;
	for (unsigned i = o->func_first; i < o->func_end; i++)
		if (!g->funcs[i].alias_exists)
			return true;
	return o->anchor && !o->anchor_exists;
}

static void print_site(const struct glink *g, const struct gsite *s)
{
	const struct gobj *o = &g->objs[s->obj];
	const struct gfunc *f = &g->funcs[s->func];
	const uint8_t *patch = x86_site_patch(&s->x);
	Elf_Data *td = elf_getdata(elf_getscn(o->elf, s->shndx), NULL);
	const uint8_t *code = (const uint8_t *)td->d_buf + s->x.start;
	char before[48], after[32], insn[96], insn_after[96];

	if (s->noted) {
		/* the whole inline site: the 1-byte NOP and the 10-byte one */
		size_t n = td->d_size - s->x.start < 11 ?
			   td->d_size - s->x.start : 11;

		x86_hex(code, n, before, sizeof(before));
		fprintf(stderr,
			"dtrace: %s: %s+%#llx: %s:::%s: %s, an inline probe with its note\n",
			o->path, f->name,
			(unsigned long long)(s->x.start - f->value),
			s->pv->name, s->pr->pubname, before);
		return;
	}
	x86_hex(code, s->x.len, before, sizeof(before));
	x86_insn_text(code, s->x.len, insn, sizeof(insn));
	fprintf(stderr, "dtrace: %s: %s+%#llx: %s:::%s%s: %s",
		o->path, f->name, (unsigned long long)(s->x.start - f->value),
		s->pv->name, s->pr->pubname,
		s->x.is_enabled ? " (is-enabled)" : "", before);
	if (insn[0])
		fprintf(stderr, " (%s)", insn);
	if (s->x.rewritten) {
		fputs(", already rewritten\n", stderr);
		return;
	}
	x86_hex(patch, s->x.len, after, sizeof(after));
	x86_insn_text(patch, s->x.len, insn_after, sizeof(insn_after));
	fprintf(stderr, " -> %s", after);
	if (insn_after[0])
		fprintf(stderr, " (%s)", insn_after);
	fputc('\n', stderr);
}

/*
 * Create a temporary file beside `path` (.NAME.XXXXXX), tracked so that
 * SIGINT and SIGTERM remove it; returns its name with *fd open, or NULL.
 */
static char *tmp_beside(const char *path, int *fd)
{
	const char *slash = strrchr(path, '/');
	char *t;

	if (asprintf(&t, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0,
		     path, slash ? slash + 1 : path) < 0)
		return NULL;
	tmpfiles_track(t);
	*fd = mkostemp(t, O_CLOEXEC);
	if (*fd < 0) {
		tmpfiles_untrack(t);
		free(t);
		return NULL;
	}
	return t;
}

/* The section header of section ndx inside a file image, or NULL. */
static Elf64_Shdr *image_shdr(uint8_t *img, size_t size, size_t ndx)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	uint64_t off = eh->e_shoff + (uint64_t)ndx * eh->e_shentsize;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || off < eh->e_shoff ||
	    off > size || size - off < sizeof(Elf64_Shdr))
		return NULL;
	return (Elf64_Shdr *)(img + off);
}

/* Bytes [off, off + n) of section ndx inside the image, or NULL. */
static uint8_t *image_at(uint8_t *img, size_t size, size_t ndx, uint64_t off,
			 size_t n)
{
	Elf64_Shdr *sh = image_shdr(img, size, ndx);

	if (!sh || sh->sh_type == SHT_NOBITS || off > sh->sh_size ||
	    sh->sh_size - off < n || sh->sh_offset > size ||
	    size - sh->sh_offset < off + n)
		return NULL;
	return img + sh->sh_offset + off;
}

/*
 * Write the rewritten copy of object oi to a temporary file beside it.
 *
 * The copy is the original file with a few bytes changed in place (the
 * sites, their relocations, the probe symbols) and, when aliases are
 * added, a grown symbol table and string table appended at the end of
 * the file, their section headers pointing there.  Everything else keeps
 * its bytes and offsets, and the file is written with a single write.
 */
static int rewrite_object(struct glink *g, unsigned oi)
{
	struct gobj *o = &g->objs[oi];
	uint8_t *img = NULL;
	size_t size = o->size, cap, nnew = 0, namelen = 0;
	Elf64_Shdr *symsh, *strsh;
	int fd = -1, err;

	for (unsigned i = o->func_first; i < o->func_end; i++)
		if (g->funcs[i].obj == oi && !g->funcs[i].alias_exists) {
			nnew++;
			namelen += strlen(g->funcs[i].alias) + 1;
		}
	if (o->anchor && !o->anchor_exists) {
		nnew++;
		namelen += strlen(o->anchor) + 1;
	}
	cap = size;
	symsh = image_shdr(o->buf, o->size, o->symndx);
	if (!symsh)
		return gerr(g, o, "bad section header table");
	strsh = image_shdr(o->buf, o->size, symsh->sh_link);
	if (!strsh || symsh->sh_entsize != sizeof(Elf64_Sym))
		return gerr(g, o, "bad symbol table");
	if (nnew)
		cap = size + 8 + symsh->sh_size + nnew * sizeof(Elf64_Sym) +
		      strsh->sh_size + namelen;
	img = malloc(cap);
	if (!img)
		return gerr(g, o, "out of memory");
	memcpy(img, o->buf, size);

	/* the sites and their relocations */
	for (unsigned i = o->site_first; i < o->site_end; i++) {
		struct gsite *s = &g->sites[i];
		Elf64_Rela r;
		uint8_t *code, *rp;

		if (s->obj != oi || s->x.rewritten)
			continue;
		code = image_at(img, size, s->shndx, s->x.start, s->x.len);
		rp = image_at(img, size, s->relscn,
			      s->relidx * sizeof(Elf64_Rela), sizeof(r));
		if (!code || !rp) {
			err = gerr(g, o, "section data out of the file");
			goto out;
		}
		memcpy(code, x86_site_patch(&s->x), s->x.len);
		r.r_offset = s->x.start;
		r.r_info = ELF64_R_INFO(s->symidx, R_X86_64_NONE);
		r.r_addend = x86_site_mark(&s->x);
		memcpy(rp, &r, sizeof(r));
	}

	/* the probe symbols: weak and hidden (inline probes have none) */
	for (unsigned i = o->site_first; i < o->site_end; i++) {
		struct gsite *s = &g->sites[i];
		Elf64_Sym sym;
		uint8_t *sp;

		if (s->obj != oi || s->noted)
			continue;
		sp = image_at(img, size, o->symndx,
			      s->symidx * sizeof(Elf64_Sym), sizeof(sym));
		if (!sp) {
			err = gerr(g, o, "symbol out of the file");
			goto out;
		}
		memcpy(&sym, sp, sizeof(sym));
		if (sym.st_shndx != SHN_UNDEF)
			continue;	/* the header's stub: already weak */
		sym.st_info = ELF64_ST_INFO(STB_WEAK, ELF64_ST_TYPE(sym.st_info));
		sym.st_other = ELF64_ST_VISIBILITY(STV_HIDDEN);
		memcpy(sp, &sym, sizeof(sym));
	}

	/* the aliases: symbol and string tables move to the end, grown */
	if (nnew) {
		uint64_t symoff = (size + 7) & ~7ULL, stroff;
		uint64_t symsize = symsh->sh_size, strsize = strsh->sh_size;
		const uint8_t *oldsym = image_at(img, size, o->symndx, 0, symsize);
		const uint8_t *oldstr = image_at(img, size, symsh->sh_link, 0,
						 strsize);
		Elf64_Sym *ns;
		size_t name = strsize;

		if (!oldsym || !oldstr) {
			err = gerr(g, o, "symbol table out of the file");
			goto out;
		}
		memset(img + size, 0, symoff - size);
		memcpy(img + symoff, oldsym, symsize);
		ns = (Elf64_Sym *)(img + symoff + symsize);
		stroff = symoff + symsize + nnew * sizeof(Elf64_Sym);
		memcpy(img + stroff, oldstr, strsize);
		for (unsigned i = o->func_first; i < o->func_end; i++) {
			struct gfunc *f = &g->funcs[i];
			size_t l;

			if (f->obj != oi || f->alias_exists)
				continue;
			if (f->shndx >= SHN_LORESERVE) {
				err = gerr(g, o,
					   "objects with more than %u sections are not supported",
					   SHN_LORESERVE - 1);
				goto out;
			}
			l = strlen(f->alias) + 1;
			memcpy(img + stroff + name, f->alias, l);
			memset(ns, 0, sizeof(*ns));
			ns->st_name = (Elf64_Word)name;
			ns->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
			ns->st_other = ELF64_ST_VISIBILITY(STV_HIDDEN);
			ns->st_shndx = (Elf64_Section)f->shndx;
			ns->st_value = f->value;
			ns->st_size = 0;
			name += l;
			ns++;
		}
		if (o->anchor && !o->anchor_exists) {
			size_t l = strlen(o->anchor) + 1;

			memcpy(img + stroff + name, o->anchor, l);
			memset(ns, 0, sizeof(*ns));
			ns->st_name = (Elf64_Word)name;
			ns->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
			ns->st_other = ELF64_ST_VISIBILITY(STV_HIDDEN);
			ns->st_shndx = SHN_UNDEF;
			name += l;
			ns++;
		}
		/* the headers live in the copied image: point them anew */
		symsh = image_shdr(img, size, o->symndx);
		strsh = image_shdr(img, size, symsh->sh_link);
		symsh->sh_offset = symoff;
		symsh->sh_size = symsize + nnew * sizeof(Elf64_Sym);
		strsh->sh_offset = stroff;
		strsh->sh_size = name;
		size = stroff + name;
	}

	o->tmp = tmp_beside(o->path, &fd);
	if (!o->tmp) {
		err = gerr(g, o, "cannot create a file beside it: %s",
			   strerror(errno));
		goto out;
	}
	/* keep mode and owner; skip the calls when they already match */
	if (write(fd, img, size) != (ssize_t)size ||
	    ((o->st.st_mode & 07777) != 0600 &&
	     fchmod(fd, o->st.st_mode & 07777) < 0) ||
	    ((o->st.st_uid != geteuid() || o->st.st_gid != getegid()) &&
	     geteuid() == 0 && fchown(fd, o->st.st_uid, o->st.st_gid) < 0)) {
		err = gerr(g, o, "cannot write %s: %s", o->tmp, strerror(errno));
		goto out;
	}
	/*
	 * The rewritten object keeps the times of the compiled one: build
	 * tools that record an object's mtime when they compile it (Ninja)
	 * would otherwise compile, link and run -G again on every build.
	 */
	{
		struct timespec ts[2] = { o->st.st_atim, o->st.st_mtim };

		if (futimens(fd, ts) < 0) {
			err = gerr(g, o, "cannot keep its times: %s",
				   strerror(errno));
			goto out;
		}
	}
	if (close(fd) < 0) {
		fd = -1;
		err = gerr(g, o, "cannot write %s: %s", o->tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	err = 0;
out:
	if (fd >= 0)
		close(fd);
	if (err && o->tmp) {
		unlink(o->tmp);
		tmpfiles_untrack(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(img);
	return err;
}

/* ----------------------------------------------------------------------
 * The output object
 */

struct notebuf {
	uint8_t *buf;
	size_t len, cap;
};

static int nb_add(struct notebuf *nb, const void *p, size_t n)
{
	if (nb->len + n + 8 > nb->cap) {
		size_t cap = (nb->cap ? nb->cap * 2 : 4096) + n;
		uint8_t *b = realloc(nb->buf, cap);

		if (!b)
			return -ENOMEM;
		nb->buf = b;
		nb->cap = cap;
	}
	memcpy(nb->buf + nb->len, p, n);
	nb->len += n;
	return 0;
}

static int nb_pad4(struct notebuf *nb)
{
	static const uint8_t zero[4];

	return nb_add(nb, zero, (4 - nb->len % 4) % 4);
}

/* Sort sites by provider, probe, object and function, then offset. */
static const struct glink *sort_g;

static int site_cmp(const void *a, const void *b)
{
	const struct gsite *x = a, *y = b;
	const struct prov_file *pf = sort_g->pf;
	long d;

	d = (x->pv - pf->providers) - (y->pv - pf->providers);
	if (!d)
		d = (x->pr - x->pv->probes) - (y->pr - y->pv->probes);
	if (!d)
		d = (long)x->func - (long)y->func;
	if (!d)
		d = x->x.start < y->x.start ? -1 : x->x.start > y->x.start;
	return d < 0 ? -1 : d > 0;
}

static bool is_anchor(const char *name)
{
	return strncmp(name, ALIAS_PREFIX, strlen(ALIAS_PREFIX)) == 0 &&
	       !strchr(name, '.');
}

static int keep_global(const char *name, void *arg)
{
	(void)arg;
	return strncmp(name, PROV_SEMA_PREFIX, strlen(PROV_SEMA_PREFIX)) == 0 ||
	       strcmp(name, STAPSDT_BASE_SYMBOL) == 0 || is_anchor(name);
}

/* A preprocessor-style command from the environment, split on blanks. */
static int run_ld(struct glink *g, const char *out, const char *in,
		  const char *drti)
{
	const char *ld = getenv("LD");
	char *words, *save = NULL;
	const char *argv[64];
	int argc = 0, status, err;
	pid_t pid;

	if (!ld || !*ld)
		ld = "ld";
	words = strdup(ld);
	if (!words)
		return gerr(g, NULL, "out of memory");
	for (char *w = strtok_r(words, " \t", &save); w && argc < 56;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	argv[argc++] = "-r";
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = in;
	argv[argc++] = drti;
	argv[argc] = NULL;
	err = posix_spawnp(&pid, argv[0], NULL, NULL, (char *const *)argv,
			   environ);
	if (err) {
		gerr(g, NULL, "cannot run the linker '%s': %s", argv[0],
		     strerror(err));
		free(words);
		return -err;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		gerr(g, NULL, "'%s -r' failed merging %s", argv[0], drti);
		free(words);
		return -EINVAL;
	}
	free(words);
	return 0;
}

static const char *drti_path(void)
{
	const char *p = getenv("DTRACE_DRTI");

	return p && *p ? p : DRTI_PATH;
}

/*
 * SHF_GNU_RETAIN: nothing loaded refers to .stapsdt.base, only the notes,
 * so lld --gc-sections would drop it, and gdb ignores every probe of a
 * file without it.  Linkers older than the flag (binutils 2.36) ignore it.
 */
#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN (1U << 21)
#endif

static int add_stapsdt_base(struct elfw *w, int *base_sym)
{
	static const uint8_t zero;
	int sec, secsym, err;

	sec = elfw_section(w, STAPSDT_BASE_SECTION, SHT_PROGBITS,
			   SHF_ALLOC | SHF_GNU_RETAIN, 1, 0, &zero, 1);
	if (sec < 0)
		return sec;
	secsym = elfw_section_symbol(w, sec);
	if (secsym < 0)
		return secsym;
	err = elfw_comdat(w, secsym, &sec, 1);
	if (err)
		return err;
	*base_sym = elfw_symbol(w, STAPSDT_BASE_SYMBOL, sec, 0, 1, STB_WEAK,
				STT_NOTYPE, STV_HIDDEN);
	return *base_sym < 0 ? *base_sym : 0;
}

/*
 * An empty .note.GNU-stack keeps the stack non-executable, and the
 * x86 feature note says this object (which has no code) is fine with
 * IBT and shadow stacks, so it never takes CET away from a program.
 */
static int add_gnu_notes(struct elfw *w)
{
	static const uint32_t prop[] = {
		4, 16, 5,			/* namesz, descsz, NT_GNU_PROPERTY_TYPE_0 */
		0x554e47,			/* "GNU\0" */
		0xc0000002, 4, 3, 0,		/* X86_FEATURE_1_AND: IBT | SHSTK */
	};
	int sec = elfw_section(w, ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0,
			       NULL, 0);

	if (sec < 0)
		return sec;
	if (!DRTI_CET)
		return 0;
	sec = elfw_section(w, ".note.gnu.property", SHT_NOTE, SHF_ALLOC, 8, 0,
			   prop, sizeof(prop));
	return sec < 0 ? sec : 0;
}

/* Whether site s gets a note in the output. */
static bool gets_note(const struct glink *g, const struct gsite *s)
{
	return !s->x.is_enabled && !s->noted && g->funcs[s->func].canon < 0;
}

/*
 * The stapsdt notes, into section sec, of the sites of function fi, or
 * with fi < 0 of every function of object oi outside a COMDAT group.
 * Is-enabled sites have none.
 */
static int add_notes(const struct glink *g, struct elfw *w, int sec, int fi,
		     unsigned oi, const int *alias_sym, const int *sema_sym,
		     int base_sym)
{
	struct notebuf nb = { 0 };
	int err = -ENOMEM;

	for (unsigned i = 0; i < g->nsite; i++) {
		struct gsite *s = &g->sites[i];
		const struct prov_probe *pr = s->pr;
		char args[PROV_ARGS_MAX * 24] = "";
		uint32_t hdr[3];
		uint64_t zero3[3] = { 0, 0, 0 };
		size_t desc_at, ao = 0;
		unsigned semaidx = 0;

		if (!gets_note(g, s))
			continue;
		if (fi >= 0 ? s->func != (unsigned)fi :
			      g->funcs[s->func].comdat || s->obj != oi)
			continue;
		for (unsigned a = 0; a < pr->nargc; a++) {
			char spec[32];

			if (x86_arg_spec(&pr->nargv[a].type, a, s->x.kind,
					 spec, sizeof(spec)) < 0)
				goto out;
			ao += (size_t)snprintf(args + ao, sizeof(args) - ao,
					       "%s%s", a ? " " : "", spec);
		}
		for (unsigned v = 0; v < g->pf->provider_cnt; v++) {
			const struct prov_provider *pv = &g->pf->providers[v];

			if (pv == s->pv) {
				semaidx += (unsigned)(pr - pv->probes);
				break;
			}
			semaidx += pv->probe_cnt;
		}
		hdr[0] = STAPSDT_NOTE_NAMESZ;
		hdr[1] = (uint32_t)(24 + strlen(s->pv->name) + 1 +
				    strlen(pr->name) + 1 + strlen(args) + 1);
		hdr[2] = STAPSDT_NOTE_TYPE;
		if (nb_add(&nb, hdr, sizeof(hdr)) < 0 ||
		    nb_add(&nb, STAPSDT_NOTE_NAME, STAPSDT_NOTE_NAMESZ) < 0)
			goto out;
		desc_at = nb.len;
		if (nb_add(&nb, zero3, sizeof(zero3)) < 0 ||
		    nb_add(&nb, s->pv->name, strlen(s->pv->name) + 1) < 0 ||
		    nb_add(&nb, pr->name, strlen(pr->name) + 1) < 0 ||
		    nb_add(&nb, args, strlen(args) + 1) < 0 ||
		    nb_pad4(&nb) < 0)
			goto out;
		if (elfw_rela(w, sec, desc_at, alias_sym[s->func],
			      R_X86_64_64,
			      (int64_t)(s->x.start - g->funcs[s->func].value)) < 0 ||
		    elfw_rela(w, sec, desc_at + 8, base_sym, R_X86_64_64,
			      0) < 0 ||
		    elfw_rela(w, sec, desc_at + 16, sema_sym[semaidx],
			      R_X86_64_64, 0) < 0)
			goto out;
	}
	if (elfw_set_data(w, sec, nb.buf, nb.len) < 0)
		goto out;
	err = 0;
out:
	free(nb.buf);
	return err;
}

/*
 * A .note.stapsdt section in a COMDAT group signed `sig`, with the notes
 * add_notes() picks for fi and oi.  SHF_GNU_RETAIN keeps it through
 * --gc-sections, where nothing refers to it.
 */
static int add_note_group(const struct glink *g, struct elfw *w,
			  const char *sig, int fi, unsigned oi,
			  const int *alias_sym, const int *sema_sym,
			  int base_sym)
{
	int sec, sigsym;

	sec = elfw_section(w, STAPSDT_SECTION, SHT_NOTE, SHF_GNU_RETAIN, 4, 0,
			   NULL, 0);
	if (sec < 0)
		return sec;
	/* global, so that `ld -r` adds no STT_FILE; made local later */
	sigsym = elfw_symbol(w, sig, sec, 0, 0, STB_GLOBAL, STT_NOTYPE,
			     STV_HIDDEN);
	if (sigsym < 0)
		return sigsym;
	if (elfw_comdat(w, sigsym, &sec, 1) < 0)
		return -ENOMEM;
	return add_notes(g, w, sec, fi, oi, alias_sym, sema_sym, base_sym);
}

static int build_output(struct glink *g, const char *tmp_in, bool *has_dof)
{
	struct elfw *w = elfw_new();
	struct dof_fprobe *fp = NULL;
	struct dof_addr_reloc *rel = NULL;
	void *blob = NULL;
	size_t bloblen = 0;
	unsigned nfp = 0, nrel = 0, nsema = 0;
	int *alias_sym = NULL, *sema_sym = NULL, base_sym = 0, err = -ENOMEM;
	int dofsec = 0, probesec;
	char errbuf[256] = "out of memory";
	bool need_notes = false;
	int fd = -1;

	*has_dof = false;
	if (!w)
		goto out;
	sort_g = g;
	if (g->nsite)	/* qsort(NULL, 0) is undefined */
		qsort(g->sites, g->nsite, sizeof(*g->sites), site_cmp);

	/* one dof_fprobe per (probe, function) */
	fp = calloc(g->nsite ? g->nsite : 1, sizeof(*fp));
	if (!fp)
		goto out;
	for (unsigned i = 0; i < g->nsite; i++) {
		struct gsite *s = &g->sites[i];
		struct gfunc *f = &g->funcs[s->func];
		struct dof_fprobe *cur = nfp ? &fp[nfp - 1] : NULL;
		uint32_t off = (uint32_t)(s->x.start - f->value), **arr;
		unsigned *cnt;
		uint32_t *na;

		if (f->canon >= 0)
			continue;	/* described at the first copy */
		if (!cur || cur->pr != s->pr || cur->sym != f->alias) {
			cur = &fp[nfp++];
			cur->pv = s->pv;
			cur->pr = s->pr;
			cur->func = f->name;
			cur->sym = f->alias;
			cur->tag = s->func;
		}
		arr = s->x.is_enabled ? &cur->enoffs : &cur->offs;
		cnt = s->x.is_enabled ? &cur->nenoffs : &cur->noffs;
		na = realloc(*arr, (*cnt + 1) * sizeof(*na));
		if (!na)
			goto out;
		*arr = na;
		na[(*cnt)++] = off;
	}
	if (nfp) {
		err = dof_build(g->pf, fp, nfp, &blob, &bloblen, &rel, &nrel,
				errbuf, sizeof(errbuf));
		if (err)
			goto out;
		*has_dof = true;
	}

	/* sections */
	err = -ENOMEM;
	if (add_gnu_notes(w) < 0)
		goto out;
	if (*has_dof) {
		int dofsym;

		dofsec = elfw_section(w, DOF_SECTION_NAME, SHT_PROGBITS,
				      SHF_ALLOC | SHF_WRITE, 8, 0, blob,
				      bloblen);
		if (dofsec < 0)
			goto out;
		dofsym = elfw_symbol(w, DOF_SYMBOL_NAME, dofsec, 0, bloblen,
				     STB_GLOBAL, STT_OBJECT, STV_HIDDEN);
		if (dofsym < 0)
			goto out;
	}
	for (unsigned i = 0; i < g->nsite && !need_notes; i++)
		need_notes = !g->sites[i].noted;
	if (need_notes && add_stapsdt_base(w, &base_sym) < 0)
		goto out;

	/* semaphores: one per probe of every provider, in .probes */
	for (unsigned v = 0; v < g->pf->provider_cnt; v++)
		nsema += g->pf->providers[v].probe_cnt;
	sema_sym = calloc(nsema + 1, sizeof(*sema_sym));
	alias_sym = calloc(g->nfunc + 1, sizeof(*alias_sym));
	if (!sema_sym || !alias_sym)
		goto out;
	probesec = 0;
	if (nsema) {
		uint8_t *zeros = calloc(nsema, 2);

		if (!zeros)
			goto out;
		probesec = elfw_section(w, ".probes", SHT_PROGBITS,
					SHF_ALLOC | SHF_WRITE, 2, 0, zeros,
					nsema * 2);
		free(zeros);
		if (probesec < 0)
			goto out;
	}
	{
		unsigned k = 0;

		for (unsigned v = 0; v < g->pf->provider_cnt; v++) {
			const struct prov_provider *pv = &g->pf->providers[v];

			for (unsigned p = 0; p < pv->probe_cnt; p++, k++) {
				char name[256];

				if (prov_sema_sym(pv->name, pv->probes[p].name,
						  name, sizeof(name)) < 0) {
					snprintf(errbuf, sizeof(errbuf),
						 "semaphore name too long");
					err = -ENAMETOOLONG;
					goto out;
				}
				sema_sym[k] = elfw_symbol(w, name, probesec,
							  k * 2ULL, 2, STB_WEAK,
							  STT_OBJECT,
							  STV_HIDDEN);
				if (sema_sym[k] < 0)
					goto out;
			}
		}
	}

	/*
	 * The objects' anchors, weak: two outputs that describe one object
	 * may meet in a link.  A weak definition still pulls its archive
	 * member in (GNU ld and lld alike).
	 */
	for (unsigned i = 0; i < g->nobj; i++) {
		int sec = dofsec ? dofsec : probesec;

		if (!g->objs[i].anchor)
			continue;
		if (!sec) {
			snprintf(errbuf, sizeof(errbuf),
				 "%s: nothing to anchor its sites to",
				 g->objs[i].path);
			err = -EINVAL;
			goto out;
		}
		if (elfw_symbol(w, g->objs[i].anchor, sec, 0, 0, STB_WEAK,
				STT_NOTYPE, STV_HIDDEN) < 0)
			goto out;
	}

	/* the aliases the DOF and notes refer to: undefined here */
	for (unsigned i = 0; i < g->nfunc; i++) {
		if (g->funcs[i].canon >= 0)
			continue;
		alias_sym[i] = elfw_symbol(w, g->funcs[i].alias, 0, 0, 0,
					   STB_GLOBAL, STT_NOTYPE, STV_DEFAULT);
		if (alias_sym[i] < 0)
			goto out;
	}
	for (unsigned i = 0; i < nrel; i++) {
		unsigned fi = rel[i].tag;

		if (fi >= g->nfunc || g->funcs[fi].canon >= 0 ||
		    elfw_rela(w, dofsec, rel[i].offset, alias_sym[fi],
			      R_X86_64_64, 0) < 0)
			goto out;
	}

	/*
	 * One stapsdt note per probe site, in COMDAT groups: an object's
	 * signed with its anchor, an inline function's with its alias and
	 * layout.  Two -G outputs that describe the same objects (a rule run
	 * twice, into two files) or the same copy of an inline function may
	 * meet in one link, and each site must be noted once there, or
	 * tracers fire it twice.
	 */
	for (unsigned oi = 0; oi < g->nobj; oi++) {
		const struct gobj *o = &g->objs[oi];
		char sig[PATH_MAX];
		bool any = false;

		for (unsigned i = o->site_first; i < o->site_end && !any; i++)
			any = gets_note(g, &g->sites[i]) &&
			      !g->funcs[g->sites[i].func].comdat;
		if (!any || !o->anchor)
			continue;
		snprintf(sig, sizeof(sig), "%s.stapsdt", o->anchor);
		if (add_note_group(g, w, sig, -1, oi, alias_sym, sema_sym,
				   base_sym) < 0)
			goto out;
	}
	for (unsigned fi = 0; fi < g->nfunc; fi++) {
		const struct gfunc *f = &g->funcs[fi];
		char sig[PATH_MAX];
		bool any = false;

		if (!f->comdat || f->canon >= 0)
			continue;
		for (unsigned i = 0; i < g->nsite && !any; i++)
			any = g->sites[i].func == fi && gets_note(g, &g->sites[i]);
		if (!any)
			continue;
		snprintf(sig, sizeof(sig), "%s.stapsdt.%016llx", f->alias,
			 (unsigned long long)f->layout);
		if (add_note_group(g, w, sig, (int)fi, 0, alias_sym, sema_sym,
				   base_sym) < 0)
			goto out;
	}

	fd = open(tmp_in, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		snprintf(errbuf, sizeof(errbuf), "cannot write %s: %s", tmp_in,
			 strerror(errno));
		err = -errno;
		goto out;
	}
	err = elfw_write(w, fd, errbuf, sizeof(errbuf));
	if (close(fd) < 0 && !err) {
		snprintf(errbuf, sizeof(errbuf), "cannot write %s: %s", tmp_in,
			 strerror(errno));
		err = -EIO;
	}
out:
	if (err)
		gerr(g, NULL, "%s", errbuf);
	for (unsigned i = 0; fp && i < nfp; i++) {
		free(fp[i].offs);
		free(fp[i].enoffs);
	}
	free(fp);
	free(rel);
	free(blob);
	free(sema_sym);
	free(alias_sym);
	elfw_free(w);
	return err;
}


int dtrace_link(const struct dtrace_cmd *cmd, const struct prov_file *pf,
		const char *out)
{
	struct glink g = { 0 };
	char *tmp_a = NULL, *tmp_b = NULL, errbuf[256];
	bool has_dof = false;
	int err = 0, fd;
	mode_t um;

	g.cmd = cmd;
	g.pf = pf;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return gerr(&g, NULL, "libelf is out of date");
	g.objs = calloc((size_t)cmd->argc + 1, sizeof(*g.objs));
	if (!g.objs)
		return gerr(&g, NULL, "out of memory");
	g.nobj = (unsigned)cmd->argc;

	if (cmd->argc && x86_disasm_available(errbuf, sizeof(errbuf)) < 0)
		fprintf(stderr,
			"dtrace: warning: no disassembler (%s): probe sites are checked by their bytes only\n",
			errbuf);

	/* 1. read and understand everything; change nothing */
	for (unsigned i = 0; i < g.nobj; i++) {
		g.objs[i].path = cmd->args[i];
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(g.objs[j].path, g.objs[i].path) == 0) {
				err = gerr(&g, &g.objs[i], "is given twice");
				goto out;
			}
		}
		err = read_object(&g, &g.objs[i]);
		if (!err && !g.objs[i].lto)
			err = check_object(&g, &g.objs[i]);
		if (!err && g.objs[i].lto && cmd->verbose)
			fprintf(stderr,
				"dtrace: %s: an -flto object, left as it is: its probes fire at the header's stubs\n",
				g.objs[i].path);
		if (!err && !g.objs[i].lto)
			err = scan_object(&g, i);
		if (err)
			goto out;
		for (unsigned j = 0; j < i; j++) {
			if (g.objs[j].st.st_dev == g.objs[i].st.st_dev &&
			    g.objs[j].st.st_ino == g.objs[i].st.st_ino) {
				err = gerr(&g, &g.objs[i],
					   "is the same file as %s",
					   g.objs[j].path);
				goto out;
			}
		}
	}
	err = name_comdat(&g);
	if (!err)
		err = check_comdat_copies(&g);
	if (err)
		goto out;
	if (cmd->verbose)
		for (unsigned i = 0; i < g.nsite; i++)
			print_site(&g, &g.sites[i]);

	/* sites mean a DOF, and a DOF needs drti.o: say so before writing */
	if (g.nsite && access(drti_path(), R_OK) != 0) {
		err = gerr(&g, NULL,
			   "cannot read drti.o at %s: %s; install usdt-sdk (make install) or name it with DTRACE_DRTI",
			   drti_path(), strerror(errno));
		goto out;
	}

	/* 2. rewritten copies of the objects that change */
	for (unsigned i = 0; i < g.nobj; i++) {
		if (!obj_needs_change(&g, i))
			continue;
		if (!(g.objs[i].st.st_mode & 0222)) {
			err = gerr(&g, &g.objs[i],
				   "is read-only; dtrace -G must rewrite it in place");
			goto out;
		}
		err = rewrite_object(&g, i);
		if (err)
			goto out;
		g.objs[i].changed = true;
	}

	/* 3. the output object, complete, in a temporary file */
	tmp_a = tmp_beside(out, &fd);
	if (tmp_a)
		close(fd);
	if (!tmp_a) {
		err = gerr(&g, NULL, "cannot create a file beside %s: %s", out,
			   strerror(errno));
		goto out;
	}
	err = build_output(&g, tmp_a, &has_dof);
	if (err)
		goto out;
	if (has_dof) {
		tmp_b = tmp_beside(out, &fd);
		if (tmp_b)
			close(fd);
		if (!tmp_b) {
			err = gerr(&g, NULL, "cannot create a file beside %s: %s",
				   out, strerror(errno));
			goto out;
		}
		err = run_ld(&g, tmp_b, tmp_a, drti_path());
		if (!err) {
			err = elfw_localize(tmp_b, keep_global, NULL, errbuf,
					    sizeof(errbuf));
			if (err)
				gerr(&g, NULL, "%s", errbuf);
		}
		if (err)
			goto out;
		unlink(tmp_a);
		tmpfiles_untrack(tmp_a);
		free(tmp_a);
		tmp_a = tmp_b;
		tmp_b = NULL;
	}
	um = umask(0);
	umask(um);
	if (chmod(tmp_a, 0666 & ~um) < 0) {
		err = gerr(&g, NULL, "cannot set the mode of %s: %s", tmp_a,
			   strerror(errno));
		goto out;
	}

	/* 4. everything is ready: move it into place */
	for (unsigned i = 0; i < g.nobj; i++) {
		struct gobj *o = &g.objs[i];

		if (!o->tmp)
			continue;
		if (rename(o->tmp, o->path) < 0) {
			err = gerr(&g, o, "cannot replace it: %s",
				   strerror(errno));
			goto out;
		}
		tmpfiles_untrack(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (rename(tmp_a, out) < 0) {
		err = gerr(&g, NULL, "cannot write %s: %s", out,
			   strerror(errno));
		goto out;
	}
	tmpfiles_untrack(tmp_a);
	free(tmp_a);
	tmp_a = NULL;
out:
	if (tmp_a) {
		unlink(tmp_a);
		tmpfiles_untrack(tmp_a);
		free(tmp_a);
	}
	if (tmp_b) {
		unlink(tmp_b);
		tmpfiles_untrack(tmp_b);
		free(tmp_b);
	}
	for (unsigned i = 0; i < g.nobj; i++) {
		struct gobj *o = &g.objs[i];

		if (o->tmp) {
			unlink(o->tmp);
			tmpfiles_untrack(o->tmp);
			free(o->tmp);
		}
		if (o->elf)
			elf_end(o->elf);
		free(o->buf);
		free(o->anchor);
	}
	for (unsigned i = 0; i < g.nfunc; i++) {
		free(g.funcs[i].name);
		free(g.funcs[i].alias);
		x86_insns_free(&g.funcs[i].insns);
	}
	free(g.funcs);
	free(g.sites);
	free(g.objs);
	return err;
}

/*
 * The fuzzers' way in (fuzz/fuzz-elf.c): stage 1 of dtrace_link() --
 * load_object(), check_object(), scan_object() and the COMDAT checks --
 * on one object held in memory, named `path` in messages.  Nothing is
 * opened, written or renamed, and buf is never modified; messages go to
 * stderr as dtrace -G prints them.  Returns 0 (with the number of probe
 * sites in *nsite) or a negative errno.
 */
int dtrace_link_scan_mem(const struct dtrace_cmd *cmd,
			 const struct prov_file *pf, const char *path,
			 const void *buf, size_t len, unsigned *nsite)
{
	struct gobj o = { 0 };
	struct glink g = { 0 };
	int err;

	g.cmd = cmd;
	g.pf = pf;
	g.objs = &o;
	g.nobj = 1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return gerr(&g, NULL, "libelf is out of date");
	o.path = path;
	o.buf = (uint8_t *)buf;	/* only rewrite_object() writes, to a copy */
	o.size = len;
	/* obj_hash() without realpath(): there is no file */
	o.hash = fnv(fnv(0xcbf29ce484222325ULL, path, strlen(path)), buf, len);
	o.hashed = true;
	err = load_object(&g, &o);
	if (!err && !o.lto)
		err = check_object(&g, &o);
	if (!err && !o.lto)
		err = scan_object(&g, 0);
	if (!err)
		err = name_comdat(&g);
	if (!err)
		err = check_comdat_copies(&g);
	if (!err && nsite)
		*nsite = g.nsite;
	if (o.elf)
		elf_end(o.elf);
	free(o.anchor);
	for (unsigned i = 0; i < g.nfunc; i++) {
		free(g.funcs[i].name);
		free(g.funcs[i].alias);
		x86_insns_free(&g.funcs[i].insns);
	}
	free(g.funcs);
	free(g.sites);
	return err;
}
