// SPDX-License-Identifier: MIT
/*
 * collect.c - fill the probe table (probes.h) for one run of dtrace.
 *
 * The top of the probe catalogue, above the table (probes.c) and the
 * object reader (elfprobes.c), so that neither of those calls the other:
 *
 *	collect.c	dt_probes_collect(), dt_probes_free()
 *	  |-> elfprobes.c	the probes of object files (--object)
 *	  |-> probes.c		the records, from DOF; descriptions
 *	elfprobes.c -> probes.c
 *
 * The table holds, in this order: the dtrace provider (BEGIN, END and
 * ERROR), the registry's processes, then the object files.  The registry
 * (sdk/registry.h) holds, per live process, the DOF each of its objects
 * registered, already validated and relocated by the helper: every
 * dofpr_addr is the run-time address of the function the sites are in,
 * so a site is dofpr_addr + offset, with no arithmetic of our own.  The
 * helper's files are still read through sdk/registry.c, which runs every
 * blob through dof_check() again, and walked only with the iterators of
 * sdk/dof_check.h, which bound every string they hand out: a name from
 * the DOF is at most DOF_*_MAXLEN bytes and printable.
 *
 * dt_probes_free() lives here because this file decides what the records
 * point into (the registry's processes, the objects' buffers).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "probes.h"
#include "registry.h"

/* The dtrace provider's probes, as DTrace declares them. */
static const char *const dtrace_probe_names[] = {"BEGIN", "END", "ERROR"};

/* ------------------------------------------------------------------ */
/* The registry */

static void warnf(void (*warn)(const char *, void *), void *arg,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warnf(void (*warn)(const char *, void *), void *arg,
		  const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warn(buf, arg);
}

static int cmp_gen(const void *a, const void *b)
{
	const struct reg_entry *x = a, *y = b;

	return (x->gen > y->gen) - (x->gen < y->gen);
}

/*
 * One registration's probes, those o->want wants; a blob the iterators
 * refuse is skipped.  The number of records made in *nmade.
 */
static int add_entry(struct dt_probes *pl, const struct reg_proc *rp,
		     const struct reg_entry *e, const struct dt_collect_opts *o,
		     size_t *nmade)
{
	struct dof_prov_info pv;
	struct dof_probe_info pi;
	struct dof_err derr;
	uint32_t c = 0;
	int r;

	while ((r = dof_prov_next(e->dof, e->dof_len, &c, &pv, &derr)) == 1) {
		uint64_t pc = 0;

		while ((r = dof_probe_next(&pv, &pc, &pi, &derr)) == 1) {
			struct dt_probe p = {0};

			p.origin = DT_ORIGIN_PROCESS;
			p.pid = rp->pid;
			snprintf(p.provider, sizeof(p.provider), "%s%d",
				 pv.name, (int)rp->pid);
			p.mod = e->mod;
			p.proc = rp;
			p.ent = e;
			p.path = e->path ? e->path : "";
			p.bias = e->base;
			p.prov = pv.name;
			p.func = pi.func;
			p.name = pi.name;
			if (o->want && !o->want(&p, o->want_arg)) {
				pl->next_id++; /* its ID all the same */
				continue;
			}
			r = dt_probe_from_dof(&p, &pv, &pi, true);
			if (r)
				return r;
			if (!dt_probes_add(pl, &p)) {
				dt_probe_free(&p);
				return -ENOMEM;
			}
			(*nmade)++;
		}
		if (r < 0)
			break;
	}
	if (r < 0)
		warnf(o->warn, o->warn_arg,
		      "pid %d, %s (generation %llu): skipped the rest of its "
		      "DOF: %s",
		      (int)rp->pid, e->mod, (unsigned long long)e->gen,
		      derr.msg);
	return 0;
}

static void reg_warn(const char *msg, void *arg)
{
	const struct dt_collect_opts *o = arg;

	warnf(o->warn, o->warn_arg, "skipped a damaged registry file: %s", msg);
}

static int add_registry(struct dt_probes *pl, const struct dt_collect_opts *o)
{
	int err;

	err = reg_load_all(o->statedir, true, reg_warn, (void *)o, &pl->procs,
			   &pl->nprocs);
	if (err) {
		warnf(o->warn, o->warn_arg,
		      "cannot read the registry in %s: %s", o->statedir,
		      strerror(-err));
		return 0;
	}
	for (size_t i = 0; i < pl->nprocs; i++) {
		struct reg_proc *rp = &pl->procs[i];

		/* files are written in generation order; make sure */
		if (rp->nent > 1)
			qsort(rp->ent, rp->nent, sizeof(rp->ent[0]), cmp_gen);
		for (size_t j = 0; j < rp->nent; j++) {
			size_t made = 0;

			err = add_entry(pl, rp, &rp->ent[j], o, &made);
			if (err)
				return err;
			if (!made) {
				/* no record points into it: give it back */
				free(rp->ent[j].dof);
				rp->ent[j].dof = NULL;
				rp->ent[j].dof_len = 0;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */

int dt_probes_collect(struct dt_probes *pl, const struct dt_collect_opts *o,
		      char *msg, size_t msglen)
{
	int err = 0;

	memset(pl, 0, sizeof(*pl));
	for (unsigned i = 0; i < 3; i++) {
		struct dt_probe p = {0};

		p.origin = DT_ORIGIN_DTRACE;
		snprintf(p.provider, sizeof(p.provider), "dtrace");
		p.prov = "dtrace";
		p.mod = p.func = p.path = "";
		p.name = dtrace_probe_names[i];
		/* provider, module, function, name, args (dtrace.c) */
		p.provattr = DT_ATTR_STABLE_COMMON;
		p.modattr = DT_ATTR_PRIVATE_UNKNOWN;
		p.funcattr = DT_ATTR_PRIVATE_UNKNOWN;
		p.nameattr = DT_ATTR_STABLE_COMMON;
		p.argsattr = DT_ATTR_STABLE_COMMON;
		if (!dt_probes_add(pl, &p)) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (o->statedir) {
		err = add_registry(pl, o);
		if (err)
			goto out;
	}
	for (unsigned i = 0; i < o->nobjects; i++) {
		err = dt_object_probes(pl, o->objects[i], o, msg, msglen);
		if (err)
			goto out;
	}
out:
	if (err == -ENOMEM)
		snprintf(msg, msglen, "out of memory");
	return err;
}

void dt_probes_free(struct dt_probes *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		dt_probe_free(&pl->v[i]);
	free(pl->v);
	reg_procs_free(pl->procs, pl->nprocs);
	for (size_t i = 0; i < pl->nobjs; i++)
		dt_object_free(pl->objs[i]);
	free(pl->objs);
	memset(pl, 0, sizeof(*pl));
}
