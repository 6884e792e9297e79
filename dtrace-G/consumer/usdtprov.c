// SPDX-License-Identifier: MIT
/*
 * usdtprov.c - the USDT provider's table (struct provider): the probes
 * a program or library defines with dtrace -h/-G or <sys/sdt.h>, at the
 * sites its DOF and stapsdt notes give.
 *
 * Which probes.  sites.c reads each ELF file a traced process maps once
 * (file_get(): its DOF or notes through ../elfprobes.c into f->pl, its
 * notes' argument specs and semaphores, its symbols); the first time a
 * process is seen mapping a file, usdt_file() makes a probe record per
 * probe of f->pl with sites, named as DTrace names it: the provider
 * with the pid appended, the module the helper registered for the file
 * (the registry's, else the file's name), the function and name; its
 * sites are the file offsets of the probe's sites and of its legacy
 * is-enabled sites.  A name already made from another file of the
 * process keeps the first file's probe.  sites.c matches each new probe
 * against the clauses (probe_match()), arms it binary-wide where a
 * description that pins no process can match it, and derives a forked
 * child's probes from its parent's (probe_at_site()).  Whether a
 * registered process none of whose DOF probes matched maps a file whose
 * notes do is asked here too (usdt_maps_wanted(), for consumer.c).
 *
 * Arming and arguments.  A USDT site is kind SITE_USDT (its key is its
 * file offset), armed by every backend; an event there fetches what the
 * site's stapsdt note says (usdt_site_args()), the semaphore counted by
 * the kernel (uprobe.c) or the module (fasttrap.c).  A site without a
 * note (DOF alone) has no specs: each backend then fetches the probe's
 * declared arguments as a call's, from the SysV registers and stack.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_impl.h"
#include "procfs.h"

/* The module name: what the helper registered, else the file's name. */
static const char *usdt_module_name(const struct reg_proc *rp,
				    const struct tfile *f)
{
	const char *slash;

	if (rp)
		for (size_t i = 0; i < rp->nent; i++)
			if (rp->ent[i].dev == (uint64_t)f->dev &&
			    rp->ent[i].ino == (uint64_t)f->ino)
				return rp->ent[i].mod;
	slash = strrchr(f->path, '/');
	return slash ? slash + 1 : f->path;
}

/* The file offsets of n link-time sites v, each once, added to *offs. */
static void add_offs(const struct tfile *f, const uint64_t *v, unsigned n,
		     uint64_t **offs, unsigned *noffs)
{
	for (unsigned s = 0; s < n; s++) {
		uint64_t off;
		bool dup = false;

		if (!vaddr_to_off(f, v[s], &off))
			continue;
		for (unsigned k = 0; k < *noffs; k++)
			dup |= (*offs)[k] == off;
		if (!dup)
			PUSH(*offs, *noffs, off);
	}
}

/* The probe records of a file pr maps, the first time it is seen. */
static void usdt_file_probes(struct consumer *c, struct tproc *pr,
			     struct tfile *f, const char *modname)
{
	char *smod = probe_name_dup(modname);

	for (size_t i = 0; i < f->pl.n; i++) {
		const struct dt_probe *dp = &f->pl.v[i];
		char prov[DT_PROVIDER_MAX], *sprov, *sfunc, *sname;
		struct tprobe *p;

		if (!dp->addr_known || !dp->nsites)
			continue;
		snprintf(prov, sizeof(prov), "%s%d", dp->prov, (int)pr->pid);
		sprov = probe_name_dup(prov);
		sfunc = probe_name_dup(dp->func);
		sname = probe_name_dup(dp->name);
		p = probe_find(c, pr->pid, sprov, smod, sfunc, sname);
		if (p) {
			free(sprov);
			free(sfunc);
			free(sname);
			if (p->file != f)
				continue; /* same names in two files: first wins
					   */
		} else {
			p = probe_make(c, pr->pid, probe_name_dup(dp->prov),
				       sprov, xstrdup(smod), sfunc, sname, f,
				       dp->xargc,
				       (const char *const *)dp->xargv);
			probe_match(c, p);
		}
		add_offs(f, dp->sites, dp->nsites, &p->offs, &p->noffs);
		add_offs(f, dp->ensites, dp->nensites, &p->enoffs, &p->nenoffs);
	}
	free(smod);
}

/*
 * Does pid map a file with a probe some clause's description matches,
 * named as usdt_file_probes() names it?  For registered processes
 * none of whose DOF probes matched (consumer.c): the probes of their
 * other files, which only stapsdt notes describe -- the stubs of a
 * header's objects that -G never saw (a PostgreSQL extension built with
 * PGXS, a library linked with glib's probes), <sys/sdt.h> probes.  The
 * maps are hashed (FNV-1a), and maps that hash as *mh did are not
 * looked at again: -1.  The files are kept (file_get()), so each is read
 * once, whichever processes map it.
 */
int usdt_maps_wanted(struct consumer *c, pid_t pid, const struct reg_proc *rp,
		     uint64_t *mh)
{
	struct proc_maps mm = {0};
	const struct proc_map *m;
	uint64_t h = 0xcbf29ce484222325ull;
	char *maps;
	int ret = 0;

	maps = read_proc(pid, "maps", NULL);
	if (!maps)
		return 0;
	for (const char *q = maps; *q; q++)
		h = (h ^ (uint8_t)*q) * 0x100000001b3ull;
	if (h == *mh) {
		free(maps);
		return -1;
	}
	*mh = h;
	if (proc_maps_parse(maps, &mm) < 0) {
		free(maps);
		*mh = 0; /* look again next time */
		return 0;
	}
	for (size_t i = 0; !ret && (m = proc_maps_next_file(&mm, &i));) {
		struct tfile *f;
		char *smod;

		f = file_get(c, pid, m);
		if (f)
			file_release(f); /* its probes are all we look at */
		if (!f || f->failed)
			continue;
		smod = probe_name_dup(usdt_module_name(rp, f));
		for (size_t k = 0; k < f->pl.n && !ret; k++) {
			const struct dt_probe *dp = &f->pl.v[k];
			char prov[DT_PROVIDER_MAX], *sprov, *sfunc, *sname;

			if (!dp->addr_known || !dp->nsites)
				continue;
			snprintf(prov, sizeof(prov), "%s%d", dp->prov,
				 (int)pid);
			sprov = probe_name_dup(prov);
			sfunc = probe_name_dup(dp->func);
			sname = probe_name_dup(dp->name);
			for (unsigned ci = 0; ci < c->nclauses && !ret; ci++)
				for (unsigned j = 0; j < c->ndescs[ci] && !ret;
				     j++)
					ret = probe_matches(&c->descs[ci][j],
							    sprov, smod, sfunc,
							    sname);
			free(sprov);
			free(sfunc);
			free(sname);
		}
		free(smod);
	}
	proc_maps_free(&mm);
	free(maps);
	return ret;
}

static void usdt_file(struct consumer *c, struct tproc *pr, struct tfile *f,
		      bool first, const struct reg_proc *rp)
{
	if (first)
		usdt_file_probes(c, pr, f, usdt_module_name(rp, f));
}

static const char *usdt_site_args(const struct tnote *note, uint64_t key)
{
	(void)key;
	return note ? note->args : NULL;
}

const struct provider prov_usdt = {
	.name = "usdt",
	.site_kinds = 1u << SITE_USDT,
	.file = usdt_file,
	.site_args = usdt_site_args,
};
