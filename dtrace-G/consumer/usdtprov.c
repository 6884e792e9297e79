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
 * child's probes from its parent's (probe_at_site()).
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

/* The module name: what the helper registered, else the file's name. */
const char *usdt_module_name(const struct reg_proc *rp,
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
		for (unsigned s = 0; s < dp->nsites; s++) {
			uint64_t off;
			bool dup = false;

			if (!vaddr_to_off(f, dp->sites[s], &off))
				continue;
			for (unsigned k = 0; k < p->noffs; k++)
				dup |= p->offs[k] == off;
			if (!dup)
				PUSH(p->offs, p->noffs, off);
		}
		for (unsigned s = 0; s < dp->nensites; s++) {
			uint64_t off;
			bool dup = false;

			if (!vaddr_to_off(f, dp->ensites[s], &off))
				continue;
			for (unsigned k = 0; k < p->nenoffs; k++)
				dup |= p->enoffs[k] == off;
			if (!dup)
				PUSH(p->enoffs, p->nenoffs, off);
		}
	}
	free(smod);
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
