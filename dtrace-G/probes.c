// SPDX-License-Identifier: MIT
/*
 * probes.c - the table of probes the dtrace command lists and traces, and
 * the probe descriptions that select from it (probes.h).
 *
 * The registry (sdk/registry.h) holds, per live process, the DOF each of
 * its objects registered, already validated and relocated by the helper:
 * every dofpr_addr is the run-time address of the function the sites are
 * in, so a site is dofpr_addr + offset, with no arithmetic of our own.
 * The helper's files are still read through sdk/registry.c, which runs
 * every blob through dof_check() again, and walked only with the
 * iterators of sdk/dof_check.h, which bound every string they hand out:
 * a name from the DOF is at most DOF_*_MAXLEN bytes and printable.
 *
 * Probe IDs: the dtrace provider's BEGIN, END and ERROR are 1, 2 and 3,
 * as in every DTrace; then one ID per record in table order.  A process
 * that starts or exits between two runs shifts the IDs of the processes
 * after it (DTrace IDs were never stable across runs either); within one
 * run they are fixed before anything is selected.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "probes.h"

/* The dtrace provider's probes and attributes, as DTrace declares them. */
static const char *const dtrace_probe_names[] = {"BEGIN", "END", "ERROR"};

#define ATTR_STABLE_COMMON DOF_ATTR(6, 6, 5)   /* Stable/Stable/Common */
#define ATTR_PRIVATE_UNKNOWN DOF_ATTR(1, 1, 0) /* Private/Private/Unknown */

const char *dt_stability_name(unsigned s)
{
	static const char *const names[] = {
		"Internal", "Private",	"Obsolete", "External",
		"Unstable", "Evolving", "Stable",   "Standard",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "Unknown";
}

const char *dt_class_name(unsigned c)
{
	static const char *const names[] = {
		"Unknown", "CPU", "Platform", "Group", "ISA", "Common",
	};

	return c < sizeof(names) / sizeof(names[0]) ? names[c] : "Unknown";
}

static dof_attr_t attr_min(dof_attr_t a, dof_attr_t b)
{
#define MIN_OF(f) (f(a) < f(b) ? f(a) : f(b))
	return DOF_ATTR(MIN_OF(DOF_ATTR_NAME), MIN_OF(DOF_ATTR_DATA),
			MIN_OF(DOF_ATTR_CLASS));
#undef MIN_OF
}

/*
 * DTrace's rule (dt_probe_info()): the provider's attributes, lowered by
 * those of each field the probe's own description fills in.  A listed
 * probe's description is the probe itself, so only empty fields (the
 * module and function of BEGIN) are left out.
 */
dof_attr_t dt_probe_attr(const struct dt_probe *p)
{
	dof_attr_t a = p->provattr;

	if (p->mod[0])
		a = attr_min(a, p->modattr);
	if (p->func[0])
		a = attr_min(a, p->funcattr);
	if (p->name[0])
		a = attr_min(a, p->nameattr);
	return a;
}

struct dt_probe *dt_probes_add(struct dt_probes *pl, const struct dt_probe *p)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 64;
		struct dt_probe *nv = realloc(pl->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		pl->v = nv;
		pl->cap = cap;
	}
	pl->v[pl->n] = *p;
	return &pl->v[pl->n++];
}

void dt_probe_free(struct dt_probe *p)
{
	free(p->sites);
	free(p->ensites);
	if (p->xargv != p->nargv)
		free(p->xargv);
	free(p->nargv);
}

/* The type strings of one list, as an array of pointers into the DOF. */
static const char **argv_of(const struct dof_probe_info *pi, bool xlated,
			    unsigned n)
{
	const char **v;
	const char *t;
	unsigned i = 0;

	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (t = dof_argv_next(pi, xlated, NULL); t && i < n;
	     t = dof_argv_next(pi, xlated, t))
		v[i++] = t;
	while (i < n)
		v[i++] = "(unknown)"; /* cannot happen after dof_check() */
	return v;
}

int dt_probe_from_dof(struct dt_probe *p, const struct dof_prov_info *pv,
		      const struct dof_probe_info *pi, bool addr_known)
{
	unsigned i;

	p->prov = pv->name;
	p->func = pi->func;
	p->name = pi->name;
	p->provattr = pv->provattr;
	p->modattr = pv->modattr;
	p->funcattr = pv->funcattr;
	p->nameattr = pv->nameattr;
	p->argsattr = pv->argsattr;
	p->addr_known = addr_known;
	p->addr = addr_known ? pi->addr : 0;
	p->nargc = pi->nargc;
	p->xargc = pi->xargc;
	p->argmap = pi->argmap;
	p->nargv = argv_of(pi, false, pi->nargc);
	p->xargv = argv_of(pi, true, pi->xargc);
	p->nsites = pi->noffs;
	p->nensites = pi->nenoffs;
	p->sites = calloc(pi->noffs ? pi->noffs : 1, sizeof(*p->sites));
	p->ensites = calloc(pi->nenoffs ? pi->nenoffs : 1, sizeof(*p->ensites));
	if (!p->nargv || !p->xargv || !p->sites || !p->ensites) {
		dt_probe_free(p);
		return -ENOMEM;
	}
	for (i = 0; i < pi->noffs; i++)
		p->sites[i] = p->addr + dof_probe_off(pi, i);
	for (i = 0; i < pi->nenoffs; i++)
		p->ensites[i] = p->addr + dof_probe_enoff(pi, i);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The registry */

static void say(void (*warn)(const char *, void *), void *arg, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));

static void say(void (*warn)(const char *, void *), void *arg, const char *fmt,
		...)
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

/* One registration's probes; a blob the iterators refuse is skipped. */
static int add_entry(struct dt_probes *pl, const struct reg_proc *rp,
		     const struct reg_entry *e, const struct dt_collect_opts *o)
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
			r = dt_probe_from_dof(&p, &pv, &pi, true);
			if (r)
				return r;
			if (!dt_probes_add(pl, &p)) {
				dt_probe_free(&p);
				return -ENOMEM;
			}
		}
		if (r < 0)
			break;
	}
	if (r < 0)
		say(o->warn, o->warn_arg,
		    "pid %d, %s (generation %llu): skipped the rest of its "
		    "DOF: %s",
		    (int)rp->pid, e->mod, (unsigned long long)e->gen, derr.msg);
	return 0;
}

static void reg_warn(const char *msg, void *arg)
{
	const struct dt_collect_opts *o = arg;

	say(o->warn, o->warn_arg, "skipped a damaged registry file: %s", msg);
}

static int add_registry(struct dt_probes *pl, const struct dt_collect_opts *o)
{
	int err;

	err = reg_load_all(o->statedir, true, reg_warn, (void *)o, &pl->procs,
			   &pl->nprocs);
	if (err) {
		say(o->warn, o->warn_arg, "cannot read the registry in %s: %s",
		    o->statedir, strerror(-err));
		return 0;
	}
	for (size_t i = 0; i < pl->nprocs; i++) {
		struct reg_proc *rp = &pl->procs[i];

		/* files are written in generation order; make sure */
		if (rp->nent > 1)
			qsort(rp->ent, rp->nent, sizeof(rp->ent[0]), cmp_gen);
		for (size_t j = 0; j < rp->nent; j++) {
			err = add_entry(pl, rp, &rp->ent[j], o);
			if (err)
				return err;
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
		p.provattr = ATTR_STABLE_COMMON;
		p.modattr = ATTR_PRIVATE_UNKNOWN;
		p.funcattr = ATTR_PRIVATE_UNKNOWN;
		p.nameattr = ATTR_STABLE_COMMON;
		p.argsattr = ATTR_STABLE_COMMON;
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
	for (size_t i = 0; i < pl->n; i++)
		pl->v[i].id = (unsigned)i + 1;
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

/* ------------------------------------------------------------------ */
/* Probe descriptions */

int dt_desc_parse(const char *text, enum dt_spec spec, struct dt_desc *d)
{
	char *f[4] = {NULL, NULL, NULL, NULL};
	const char *s = text;
	unsigned n = 0, first;

	memset(d, 0, sizeof(*d));
	for (;;) {
		const char *c = strchr(s, ':');
		size_t len = c ? (size_t)(c - s) : strlen(s);

		if (n == (unsigned)spec) {
			for (unsigned i = 0; i < n; i++)
				free(f[i]);
			return -EINVAL;
		}
		f[n] = strndup(s, len);
		if (!f[n])
			goto nomem;
		n++;
		if (!c)
			break;
		s = c + 1;
	}
	/* fill from the right: the last field given is the option's own */
	first = (unsigned)spec - n;
	{
		char **slot[4] = {&d->prov, &d->mod, &d->func, &d->name};

		for (unsigned i = 0; i < n; i++)
			*slot[first + i] = f[i];
		for (unsigned i = 0; i < 4; i++)
			if (!*slot[i] && !(*slot[i] = strdup("")))
				goto nomem_d;
	}
	d->text = strdup(text);
	if (!d->text)
		goto nomem_d;
	d->spec = spec;
	return 0;
nomem:
	for (unsigned i = 0; i < n; i++)
		free(f[i]);
	return -ENOMEM;
nomem_d:
	dt_desc_free(d);
	return -ENOMEM;
}

void dt_desc_free(struct dt_desc *d)
{
	free(d->prov);
	free(d->mod);
	free(d->func);
	free(d->name);
	free(d->text);
	memset(d, 0, sizeof(*d));
}

static bool field_match(const char *pat, const char *s)
{
	return !pat[0] || fnmatch(pat, s, 0) == 0;
}

bool dt_desc_match(const struct dt_desc *d, const struct dt_probe *p)
{
	return field_match(d->prov, p->provider) &&
	       field_match(d->mod, p->mod) && field_match(d->func, p->func) &&
	       field_match(d->name, p->name);
}
