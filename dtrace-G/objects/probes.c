// SPDX-License-Identifier: MIT
/*
 * probes.c - the table of probes the dtrace command lists and traces, and
 * the probe descriptions that select from it (probes.h).
 *
 * The bottom of the probe catalogue: the table's records and what they
 * are made of (one DOF probe becomes one record), and the descriptions
 * that select records.  It calls neither the object reader
 * (elfprobes.c) nor the code that fills the table (collect.c); both call
 * it.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "grow.h"
#include "probes.h"

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
	if (grow_one(&pl->v, &pl->cap, pl->n, sizeof(*pl->v)) < 0)
		return NULL;
	pl->v[pl->n] = *p;
	pl->v[pl->n].id = ++pl->next_id;
	return &pl->v[pl->n++];
}

void dt_probe_free(struct dt_probe *p)
{
	free(p->sites);
	free(p->site_stub);
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

/*
 * BEGIN, END or ERROR with no provider, module or function given: the
 * dtrace provider's probe, whatever another provider names a probe (a
 * user's registered probe named BEGIN must not run root's BEGIN clause
 * in the user's process, nor make such a program read the registry).
 */
static bool dtrace_only(const struct dt_desc *d)
{
	return !d->prov[0] && !d->mod[0] && !d->func[0] &&
	       (!strcmp(d->name, "BEGIN") || !strcmp(d->name, "END") ||
		!strcmp(d->name, "ERROR"));
}

bool dt_desc_match(const struct dt_desc *d, const struct dt_probe *p)
{
	if (dtrace_only(d) && p->origin != DT_ORIGIN_DTRACE)
		return false;
	return field_match(d->prov, p->provider) &&
	       field_match(d->mod, p->mod) && field_match(d->func, p->func) &&
	       field_match(d->name, p->name);
}

/*
 * A registered probe's provider is its provider's name followed by the
 * pid ("myapp1234").  A provider field without a wildcard that ends in
 * digits names only the pids its trailing digits can be ("v81234": 81234,
 * 1234, 234, 34, 4; none with a leading zero); one that does not end in
 * a digit (dtrace, syscall, tick-1s) names none.  Any wildcard, or an
 * empty field, may match every process.
 */
bool dt_desc_reg_pids(const struct dt_desc *d, pid_t **pids, size_t *npids)
{
	const char *p = d->prov, *dig;
	size_t len = strlen(p);

	if (dtrace_only(d))
		return true;
	if (!p[0] || strpbrk(p, "*?[\\"))
		return false;
	for (dig = p + len; dig > p && dig[-1] >= '0' && dig[-1] <= '9';)
		dig--;
	/* the provider's name is at least one character */
	for (const char *q = dig == p ? p + 1 : dig; *q; q++) {
		long v;

		if (*q == '0' || strlen(q) > 9)
			continue;
		v = strtol(q, NULL, 10);
		if (v <= 0)
			continue;
		if (grow_count(pids, *npids, sizeof(**pids)) < 0)
			return false;
		(*pids)[(*npids)++] = (pid_t)v;
	}
	return true;
}
