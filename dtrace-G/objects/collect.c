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
 *
 * The registry is walked one process file at a time (reg_each()), and
 * a blob none of whose probes is wanted is given back before the next
 * file is read; with reg_only, only the files of the pids the caller's
 * descriptions can name are read at all (none for a BEGIN-only
 * program, which read every file of a 1.5M-probe registry before).
 * A listing keeps the whole registry's IDs (reg_ids): it reads also the
 * files below the largest pid named, only to count their probes, and
 * those above only if a row after the registry's is listed
 * (dt_probes_count_rest()), since a row's ID counts every probe before.
 * A listing does not need the table at all: with dt_collect_opts.sink
 * each record goes to the caller as it is made and is freed, so
 * `dtrace -l` over a registry of a million probes holds one process's
 * DOF and no records.  The IDs are the table's, counted the same way.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "grow.h"
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

/*
 * A record made: into the table, or with o->sink to the sink, with the
 * ID the table would have given it, and freed.
 */
static int keep(struct dt_probes *pl, const struct dt_collect_opts *o,
		struct dt_probe *p)
{
	int err;

	if (!o->sink) {
		if (!dt_probes_add(pl, p)) {
			dt_probe_free(p);
			return -ENOMEM;
		}
		return 0;
	}
	p->id = ++pl->next_id;
	err = o->sink(p, o->sink_arg);
	dt_probe_free(p);
	return err;
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
			r = keep(pl, o, &p);
			if (r)
				return r;
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

/* One process's entries, in generation order. */
static int add_proc(struct dt_probes *pl, struct reg_proc *rp,
		    const struct dt_collect_opts *o)
{
	/* files are written in generation order; make sure */
	if (rp->nent > 1)
		qsort(rp->ent, rp->nent, sizeof(rp->ent[0]), cmp_gen);
	for (size_t j = 0; j < rp->nent; j++) {
		size_t made = 0;
		int err = add_entry(pl, rp, &rp->ent[j], o, &made);

		if (err)
			return err;
		if (!made || o->sink) {
			/* no record points into it: give it back */
			free(rp->ent[j].dof);
			rp->ent[j].dof = NULL;
			rp->ent[j].dof_len = 0;
		}
	}
	return 0;
}

struct walk {
	struct dt_probes *pl;
	const struct dt_collect_opts *o;
	size_t cap; /* of pl->procs */
	int err;    /* what stopped the walk: ours, not the registry's */
};

/*
 * One process file, as the walk reads it: its records made, the DOF no
 * record points into given back at once; the process kept for the
 * records (in pid order, as the walk goes), or with a sink freed.  So
 * the registry's size costs memory only for what is kept.
 */
static int walk_proc(struct reg_proc *rp, void *arg)
{
	struct walk *w = arg;
	struct dt_probes *pl = w->pl;

	w->err = add_proc(pl, rp, w->o);
	if (w->err || w->o->sink) {
		reg_proc_free(rp);
		return w->err;
	}
	if (grow_one(&pl->procs, &w->cap, pl->nprocs, sizeof(*pl->procs)) < 0) {
		reg_proc_free(rp);
		return w->err = -ENOMEM;
	}
	pl->procs[pl->nprocs++] = *rp;
	return 0;
}

/*
 * How a walk over the registry ended: what stopped it, if it was ours;
 * a registry that could not be read is warned about, and the probes
 * read so far stand.
 */
static int walk_end(const struct walk *w, int err)
{
	if (w->err)
		return w->err;
	if (err)
		warnf(w->o->warn, w->o->warn_arg,
		      "cannot read the registry in %s: %s", w->o->statedir,
		      strerror(-err));
	return 0;
}

static int add_registry(struct dt_probes *pl, const struct dt_collect_opts *o)
{
	struct walk w = { pl, o, 0, 0 };
	int err;

	if (o->reg_only && o->reg_ids) {
		/* the named files and those below, whose probes the IDs count */
		pid_t hi = 0;

		for (size_t i = 0; i < o->nreg_pids; i++)
			if (o->reg_pids[i] > hi)
				hi = o->reg_pids[i];
		pl->reg_read_upto = hi;
		pl->reg_partial = true;
		err = reg_each_range(o->statedir, 1, hi, true, reg_warn,
				     (void *)o, walk_proc, &w);
	} else if (o->reg_only && !o->nreg_pids) {
		return 0; /* no file can hold a wanted probe */
	} else {
		err = reg_each_pids(o->statedir,
				    o->reg_only ? o->reg_pids : NULL,
				    o->nreg_pids, true, reg_warn, (void *)o,
				    walk_proc, &w);
	}
	return walk_end(&w, err);
}

static bool want_none(const struct dt_probe *p, void *arg)
{
	(void)p;
	(void)arg;
	return false;
}

static int sink_none(const struct dt_probe *p, void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

int dt_probes_count_rest(struct dt_probes *pl,
			 const struct dt_collect_opts *o)
{
	struct dt_collect_opts co = *o;
	struct walk w = { pl, &co, 0, 0 };
	int err;

	if (!pl->reg_partial)
		return 0;
	pl->reg_partial = false;
	/* every probe skipped but counted; no process kept */
	co.want = want_none;
	co.sink = sink_none;
	err = reg_each_range(o->statedir, pl->reg_read_upto + 1, INT32_MAX,
			     true, reg_warn, (void *)&co, walk_proc, &w);
	return walk_end(&w, err);
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
		err = keep(pl, o, &p);
		if (err)
			goto out;
	}
	if (o->statedir) {
		err = add_registry(pl, o);
		if (err)
			goto out;
	}
	for (unsigned i = 0; i < o->nobjects; i++) {
		size_t first = pl->n;

		err = dt_object_probes(pl, o->objects[i], o, msg, msglen);
		if (err)
			goto out;
		/* an object's records stay (they are the user's own files) */
		for (size_t j = first; o->sink && j < pl->n && !err; j++)
			err = o->sink(&pl->v[j], o->sink_arg);
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
