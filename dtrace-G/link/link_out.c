// SPDX-License-Identifier: MIT
/*
 * link_out.c - dtrace -G, stage 3: the output object that describes the
 * probe sites stage 1 found (link_sites.c), written to a temporary file
 * that link.c renames into place (doc/DESIGN.md §4-§7).
 *
 * The output object holds:
 *	.SUNW_dof	the DOF (dof_build.c), symbol __SUNW_dof, with an
 *			R_X86_64_64 (R_AARCH64_ABS64) relocation per
 *			dofpr_addr (writable, so
 *			PIEs and shared libraries get no text relocations)
 *	.note.stapsdt	one note per site, for bpftrace, perf, gdb and bcc
 *	.stapsdt.base	in a COMDAT group, as <sys/sdt.h> emits it, and
 *			SHF_GNU_RETAIN, so lld --gc-sections keeps it
 *	.probes		one semaphore per probe of the providers, weak and
 *			hidden: _ENABLED() in the header reads it
 *	drti.o		copied in (elfw_add_object(): its sections,
 *			symbols and relocations, as `ld -r` would merge
 *			them, without running a linker), or merged with
 *			`$LD -r` when $LD is set or the copy refuses the
 *			object; either way every defined symbol but the
 *			semaphores is made local, so several -G outputs
 *			link into one program without clashes
 *
 * Functions are named through their aliases and each object's anchor
 * is defined here, weak (link_sites.c).  The notes go into COMDAT groups
 * (see gl_build_output()), so that two outputs describing the same code
 * in one link note each site once.  Inline probes (their note is in
 * their object already) and is-enabled sites get no note here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usdt/dof.h"
#include "dof_build.h"
#include "../dtrace.h"
#include "elfw.h"
#include "grow.h"
#include "link_impl.h"
#include "outfile.h"
#include "prov.h"
#include "stapsdt.h"
#include "site.h"
#include "x86site.h"

extern char **environ;

static int nb_pad4(struct sbuf *nb)
{
	static const uint8_t zero[4];

	return sbuf_add(nb, zero, (4 - nb->len % 4) % 4);
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
		d = x->at.start < y->at.start ? -1 : x->at.start > y->at.start;
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

/*
 * drti.o is machine code, so each machine has its own: DTRACE_DRTI names
 * one or several, separated by `:`, else the installed ones are tried
 * (DRTI_PATH for x86-64, DRTI_AARCH64_PATH, which `make install` puts
 * there only when asked to build it).  The first whose ELF machine is the
 * objects' is taken; none is an error that names each candidate and
 * what it is, never a merge of another machine's code.
 */
static const char *drti_candidates(void)
{
	const char *p = getenv("DTRACE_DRTI");

	return p && *p ? p : DRTI_PATH ":" DRTI_AARCH64_PATH;
}

/* The ELF machine of the object at path: 0 and msg if unreadable. */
static unsigned drti_machine(const char *path, char *msg, size_t msglen)
{
	unsigned char h[EI_NIDENT + 4];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(msg, msglen, "%s", strerror(errno));
		return 0;
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB) {
		snprintf(msg, msglen, "not a 64-bit little-endian ELF object");
		return 0;
	}
	return (unsigned)h[EI_NIDENT + 2] | (unsigned)h[EI_NIDENT + 3] << 8;
}

int gl_find_drti(struct glink *g)
{
	char *list = strdup(drti_candidates()), *save = NULL;
	struct sbuf tried = { 0 }; /* "PATH: why; ..." for the refusal */
	int err = 0;

	if (!list || sbuf_puts(&tried, "") < 0) {
		err = gerr(g, NULL, "out of memory");
		goto out;
	}
	for (char *p = strtok_r(list, ":", &save); p;
	     p = strtok_r(NULL, ":", &save)) {
		char why[128], mbuf[32];
		unsigned m = drti_machine(p, why, sizeof(why));

		if (m == g->arch->machine) {
			g->drti = strdup(p);
			if (!g->drti)
				err = gerr(g, NULL, "out of memory");
			goto out;
		}
		if (m)
			snprintf(why, sizeof(why), "built for %s",
				 site_machine_name(m, mbuf, sizeof(mbuf)));
		if ((tried.len && sbuf_puts(&tried, "; ") < 0) ||
		    sbuf_puts(&tried, p) < 0 || sbuf_puts(&tried, ": ") < 0 ||
		    sbuf_puts(&tried, why) < 0) {
			err = gerr(g, NULL, "out of memory");
			goto out;
		}
	}
	err = gerr(g, NULL,
		   "no drti.o for %s (%s); install usdt-sdk (make install), or name one built for %s with DTRACE_DRTI",
		   g->arch->name, tried.b, g->arch->name);
out:
	free(list);
	free(tried.b);
	return err;
}

const struct site_arch *gl_drti_arch(const struct glink *g)
{
	char *list = strdup(drti_candidates()), *save = NULL;
	const struct site_arch *a = NULL;

	(void)g;
	for (char *p = list ? strtok_r(list, ":", &save) : NULL; p && !a;
	     p = strtok_r(NULL, ":", &save)) {
		char why[128];

		a = site_arch_of(drti_machine(p, why, sizeof(why)));
	}
	free(list);
	return a ? a : &site_arch_x86_64;
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
 * feature note says this object (which has no code) is fine with IBT and
 * shadow stacks (x86-64) or BTI and PAC (aarch64), so it never takes
 * them away from a program.  With drti.o merged by `ld -r`, the linker
 * ANDs that with drti.o's own; x86-64's drti.o is ours (DRTI_CET says how
 * it was built), aarch64's the user's, whose note decides.
 */
static int add_gnu_stack(struct elfw *w)
{
	int sec = elfw_section(w, ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0,
			       NULL, 0);

	return sec < 0 ? sec : 0;
}

static int add_gnu_property(const struct glink *g, struct elfw *w)
{
	static const uint32_t x86[] = {
		4, 16, 5,			/* namesz, descsz, NT_GNU_PROPERTY_TYPE_0 */
		0x554e47,			/* "GNU\0" */
		0xc0000002, 4, 3, 0,		/* X86_FEATURE_1_AND: IBT | SHSTK */
	};
	static const uint32_t a64[] = {
		4, 16, 5, 0x554e47,
		0xc0000000, 4, 3, 0,		/* AARCH64_FEATURE_1_AND: BTI | PAC */
	};
	int sec;

	if (g->arch->machine == EM_AARCH64)
		sec = elfw_section(w, ".note.gnu.property", SHT_NOTE,
				   SHF_ALLOC, 8, 0, a64, sizeof(a64));
	else if (DRTI_CET && g->arch->machine == EM_X86_64)
		sec = elfw_section(w, ".note.gnu.property", SHT_NOTE,
				   SHF_ALLOC, 8, 0, x86, sizeof(x86));
	else
		return 0;
	return sec < 0 ? sec : 0;
}

/* drti.o's sections the output has already: its own stack note */
static int skip_drti_section(const char *name)
{
	return strcmp(name, ".note.GNU-stack") == 0;
}

/*
 * Merge drti.o into w without a linker (elfw_add_object()), unless $LD
 * names one: then, or when the copy refuses drti.o, false, and
 * gl_merge_drti() runs `ld -r` on the written output.  drti.o's own
 * x86 feature note (or its absence) is the output's then, which is what
 * `ld -r` makes of the two (the AND of their features).
 */
static int merge_drti_builtin(struct glink *g, struct elfw *w, bool *merged,
			      char *msg, size_t msglen)
{
	const char *ld = getenv("LD");
	int err;

	*merged = false;
	if (ld && *ld)
		return 0;
	err = elfw_add_object(w, g->drti, skip_drti_section, msg, msglen);
	if (err == -ENOTSUP) {
		gsay(g, true, "%s; merging it with ld -r", msg);
		return 0;
	}
	if (err)
		return err;
	elfw_localize_all(w, keep_global, NULL);
	*merged = true;
	return 0;
}

/* Whether site s gets a note in the output. */
static bool gets_note(const struct glink *g, const struct gsite *s)
{
	return !s->at.is_enabled && !s->noted && g->funcs[s->func].canon < 0;
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
	struct sbuf nb = {0};
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

			if (g->arch->arg_spec(&pr->nargv[a].type, a,
					      s->at.kind, spec,
					      sizeof(spec)) < 0)
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
		if (sbuf_add(&nb, hdr, sizeof(hdr)) < 0 ||
		    sbuf_add(&nb, STAPSDT_NOTE_NAME, STAPSDT_NOTE_NAMESZ) < 0)
			goto out;
		desc_at = nb.len;
		if (sbuf_add(&nb, zero3, sizeof(zero3)) < 0 ||
		    sbuf_add(&nb, s->pv->name, strlen(s->pv->name) + 1) < 0 ||
		    sbuf_add(&nb, pr->name, strlen(pr->name) + 1) < 0 ||
		    sbuf_add(&nb, args, strlen(args) + 1) < 0 ||
		    nb_pad4(&nb) < 0)
			goto out;
		if (elfw_rela(w, sec, desc_at, alias_sym[s->func],
			      g->arch->r_abs64,
			      (int64_t)(s->at.start - g->funcs[s->func].value)) < 0 ||
		    elfw_rela(w, sec, desc_at + 8, base_sym,
			      g->arch->r_abs64, 0) < 0 ||
		    elfw_rela(w, sec, desc_at + 16, sema_sym[semaidx],
			      g->arch->r_abs64, 0) < 0)
			goto out;
	}
	if (elfw_set_data(w, sec, nb.b, nb.len) < 0)
		goto out;
	err = 0;
out:
	free(nb.b);
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

int gl_build_output(struct glink *g, const char *tmp_in, bool *need_ld)
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
	bool need_notes = false, has_dof = false, merged = false;
	int fd = -1;

	*need_ld = false;
	if (!w)
		goto out;
	elfw_set_machine(w, g->arch->machine);
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
		uint32_t off = (uint32_t)(s->at.start - f->value), **arr;
		unsigned *cnt;

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
		arr = s->at.is_enabled ? &cur->enoffs : &cur->offs;
		cnt = s->at.is_enabled ? &cur->nenoffs : &cur->noffs;
		if (grow_count(arr, *cnt, sizeof(**arr)) < 0)
			goto out;
		(*arr)[(*cnt)++] = off;
	}
	if (nfp) {
		err = dof_build(g->pf, fp, nfp, &blob, &bloblen, &rel, &nrel,
				errbuf, sizeof(errbuf));
		if (err)
			goto out;
		has_dof = true;
	}

	/* sections */
	err = -ENOMEM;
	if (add_gnu_stack(w) < 0)
		goto out;
	if (has_dof) {
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
			      g->arch->r_abs64, 0) < 0)
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

	/* a DOF needs drti.o, to register it */
	if (has_dof) {
		err = merge_drti_builtin(g, w, &merged, errbuf, sizeof(errbuf));
		if (err)
			goto out;
		*need_ld = !merged;
	}
	err = -ENOMEM;
	if (!merged && add_gnu_property(g, w) < 0)
		goto out;

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

/*
 * Merge drti.o into the output `in` with `ld -r`, into `out`, then make
 * every defined symbol local but those keep_global() names.
 */
int gl_merge_drti(struct glink *g, const char *out, const char *in)
{
	char errbuf[256];
	int err = run_ld(g, out, in, g->drti);

	if (!err) {
		err = elfw_localize(out, keep_global, NULL, errbuf,
				    sizeof(errbuf));
		if (err)
			gerr(g, NULL, "%s", errbuf);
	}
	return err;
}
