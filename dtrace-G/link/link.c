// SPDX-License-Identifier: MIT
/*
 * link.c - dtrace -G: rewrite probe call sites in x86-64 and aarch64
 * objects in place
 * and write the object that describes them (doc/DESIGN.md §4-§7).
 *
 *	dtrace -G -s provider.d [-o provider.o] obj.o ...
 *
 * This file is the driver, dtrace_link(), and the rewriting of the
 * objects; link_impl.h lists the other parts.  A run has four stages:
 *
 *	1. read every object and understand every probe site in it
 *	   (link_sites.c); change nothing
 *	2. write a rewritten copy of each object that changes
 *	   (rewrite_object()) to a temporary file beside it
 *	3. write the output object (link_out.c) to a temporary file
 *	4. rename everything into place
 *
 * Rewriting.  An application object compiled against a `dtrace -h`
 * header calls __dtrace_<provider>___<probe>() at every probe.  Each
 * such call is overwritten with a NOP (x86site.c, a64site.c: the
 * machine's struct site_arch, g->arch, which every object of a run
 * shares).  The relocation becomes R_X86_64_NONE (R_AARCH64_NONE) with
 * r_offset moved to the site start, and an undefined probe symbol
 * becomes weak and hidden (one the header's stub defines, in its COMDAT
 * group, is left as it is).  A hidden undefined
 * weak symbol is resolved to 0 by the static linker and never exported,
 * so no undefined reference survives, not even under -Wl,-z,defs or in a
 * shared library.  (An absolute definition would be simpler, but GNU ld
 * refuses even an R_X86_64_NONE relocation against an absolute symbol in
 * a PIE.)  The neutralised relocations keep their symbol, so a later run
 * still knows which probe each rewritten site belongs to.  The aliases
 * of the functions holding sites and the object's anchor (link_sites.c)
 * are appended to its symbol table.
 *
 * Safety: nothing is written until every object has been read and every
 * site understood.  Rewritten objects are written to temporary files
 * beside them; only when all of them and the output are complete are
 * they renamed into place, keeping the objects' modification times.
 * SIGINT, SIGTERM and SIGHUP remove the temporary files (sdk/outfile.c);
 * after SIGKILL they may remain, named .OBJECT.XXXXXX, but every input is
 * still intact.  An object with nothing to change is not touched at all,
 * so a second run over rewritten objects leaves them byte-identical with
 * the same mtime, and writes the same output.
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
#include <sys/stat.h>
#include <unistd.h>

#include "../dtrace.h"
#include "link_impl.h"
#include "outfile.h"
#include "prov.h"
#include "site.h"

/*
 * Say what is wrong, naming the script and object o if any, in the
 * caller's msg (the first failure's words are kept: a caller that
 * passes an error up never says it again); -EINVAL.
 */
int __attribute__((format(printf, 3, 4)))
gerr(const struct glink *g, const struct gobj *o, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;
	int k;

	if (!g->msglen || g->msg[0])
		return -EINVAL;
	k = snprintf(g->msg, g->msglen, "failed to link script %s: %s%s",
		     g->cmd->script, o ? o->path : "", o ? ": " : "");
	if (k > 0)
		n = (size_t)k;
	if (n < g->msglen) {
		va_start(ap, fmt);
		vsnprintf(g->msg + n, g->msglen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int gl_begin(struct glink *g, const struct dt_link_opts *cmd,
	     const struct prov_file *pf, char *msg, size_t msglen)
{
	g->cmd = cmd;
	g->pf = pf;
	g->msg = msg;
	g->msglen = msglen;
	if (msglen)
		msg[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE)
		return gerr(g, NULL, "libelf is out of date");
	return 0;
}

/* A warning, or with verbose_only a -v note: "dtrace: " and the line. */
void __attribute__((format(printf, 3, 4)))
gsay(const struct glink *g, bool verbose_only, const char *fmt, ...)
{
	va_list ap;

	if (verbose_only && !g->cmd->verbose)
		return;
	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ----------------------------------------------------------------------
 * Rewriting objects
 */

static bool obj_needs_change(const struct glink *g, unsigned oi)
{
	const struct gobj *o = &g->objs[oi];

	for (unsigned i = o->site_first; i < o->site_end; i++)
		if (!g->sites[i].at.rewritten)
			return true;
	for (unsigned i = o->func_first; i < o->func_end; i++)
		if (!g->funcs[i].alias_exists)
			return true;
	return o->nold_stubs || (o->anchor && !o->anchor_exists);
}

static void print_site(const struct glink *g, const struct gsite *s)
{
	const struct gobj *o = &g->objs[s->obj];
	const struct gfunc *f = &g->funcs[s->func];
	const uint8_t *patch = g->arch->patch(&s->at);
	Elf_Data *td = elf_getdata(elf_getscn(o->elf, s->shndx), NULL);
	const uint8_t *code = (const uint8_t *)td->d_buf + s->at.start;
	char before[48], after[32], insn[96], insn_after[96];

	if (s->noted) {
		/* x86-64: the 1-byte NOP and the 10-byte one; aarch64: nop */
		size_t w = g->arch->inline_nop_size == 1 ? 11 :
			   g->arch->inline_nop_size;
		size_t n = td->d_size - s->at.start < w ?
			   td->d_size - s->at.start : w;

		site_hex(code, n, before, sizeof(before));
		fprintf(stderr,
			"dtrace: %s: %s+%#llx: %s:::%s: %s, an inline probe with its note\n",
			o->path, f->name,
			(unsigned long long)(s->at.start - f->value),
			s->pv->name, s->pr->pubname, before);
		return;
	}
	site_hex(code, s->at.len, before, sizeof(before));
	g->arch->insn_text(code, s->at.len, insn, sizeof(insn));
	fprintf(stderr, "dtrace: %s: %s+%#llx: %s:::%s%s: %s",
		o->path, f->name, (unsigned long long)(s->at.start - f->value),
		s->pv->name, s->pr->pubname,
		s->at.is_enabled ? " (is-enabled)" : "", before);
	if (insn[0])
		fprintf(stderr, " (%s)", insn);
	if (s->at.rewritten) {
		fputs(", already rewritten\n", stderr);
		return;
	}
	site_hex(patch, s->at.len, after, sizeof(after));
	g->arch->insn_text(patch, s->at.len, insn_after, sizeof(insn_after));
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

		if (s->obj != oi || s->at.rewritten)
			continue;
		code = image_at(img, size, s->shndx, s->at.start, s->at.len);
		rp = image_at(img, size, s->relscn,
			      s->relidx * sizeof(Elf64_Rela), sizeof(r));
		if (!code || !rp) {
			err = gerr(g, o, "section data out of the file");
			goto out;
		}
		memcpy(code, g->arch->patch(&s->at), s->at.len);
		r.r_offset = s->at.start;
		r.r_info = ELF64_R_INFO(s->symidx, g->arch->r_none);
		r.r_addend = g->arch->mark(&s->at);
		memcpy(rp, &r, sizeof(r));
	}

	/* an older header's stubs: today's bytes, the same size */
	for (unsigned i = 0; i < o->nold_stubs; i++) {
		uint8_t *code =
			image_at(img, size, o->old_stubs[i].shndx,
				 o->old_stubs[i].off, g->arch->stub_size);

		if (!code) {
			err = gerr(g, o, "section data out of the file");
			goto out;
		}
		memcpy(code, g->arch->stub, g->arch->stub_size);
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

int dtrace_link(const struct dt_link_opts *cmd, const struct prov_file *pf,
		const char *out, char *msg, size_t msglen)
{
	struct glink g = { 0 };
	char *tmp_a = NULL, *tmp_b = NULL;
	bool need_ld = false;
	int err = 0, fd;
	mode_t um;

	if (gl_begin(&g, cmd, pf, msg, msglen) < 0)
		return -EINVAL;
	g.objs = calloc((size_t)cmd->nobjects + 1, sizeof(*g.objs));
	if (!g.objs)
		return gerr(&g, NULL, "out of memory");
	g.nobj = (unsigned)cmd->nobjects;

	/* 1. read and understand everything; change nothing */
	for (unsigned i = 0; i < g.nobj; i++) {
		g.objs[i].path = cmd->objects[i];
		for (unsigned j = 0; j < i; j++) {
			if (strcmp(g.objs[j].path, g.objs[i].path) == 0) {
				err = gerr(&g, &g.objs[i], "is given twice");
				goto out;
			}
		}
		err = gl_read_object(&g, &g.objs[i]);
		if (!err && !g.objs[i].lto)
			err = gl_check_object(&g, &g.objs[i]);
		if (!err && g.objs[i].lto)
			gsay(&g, true,
			     "%s: an -flto object, left as it is: its probes fire at the header's stubs",
			     g.objs[i].path);
		if (!err && !g.objs[i].lto)
			err = gl_scan_object(&g, i);
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
	/* no object said which machine: drti.o's, else x86-64 */
	if (!g.arch)
		g.arch = gl_drti_arch(&g);
	err = gl_name_comdat(&g);
	if (!err)
		err = gl_check_comdat_copies(&g);
	if (err)
		goto out;
	if (cmd->verbose)
		for (unsigned i = 0; i < g.nsite; i++)
			print_site(&g, &g.sites[i]);

	/*
	 * Sites mean a DOF, and a DOF needs drti.o, built for the objects'
	 * machine: say so before writing.
	 */
	if (g.nsite) {
		err = gl_find_drti(&g);
		if (err)
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
	err = gl_build_output(&g, tmp_a, &need_ld);
	if (err)
		goto out;
	if (need_ld) {
		tmp_b = tmp_beside(out, &fd);
		if (tmp_b)
			close(fd);
		if (!tmp_b) {
			err = gerr(&g, NULL, "cannot create a file beside %s: %s",
				   out, strerror(errno));
			goto out;
		}
		err = gl_merge_drti(&g, tmp_b, tmp_a);
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
		free(o->old_stubs);
	}
	gl_free_sites(&g);
	free(g.objs);
	free(g.drti);
	return err;
}
