// SPDX-License-Identifier: MIT
/*
 * prov_names.c - name mangling and attribute names.
 *
 * A probe declared as `query__start` in provider `myapp` has these names:
 *
 *	public name		query-start		("__" becomes "-")
 *	macro (-h)		MYAPP_QUERY_START	(upper case, "__", "-"
 *							 and "." become "_")
 *	call target		__dtrace_myapp___query__start
 *	legacy is-enabled	__dtraceenabled_myapp___query__start
 *	semaphore		__usdt_sema_myapp___query__start
 *
 * The call target and is-enabled names are the classic DTrace encoding,
 * which `dtrace -G` recognises in relocations: provider and probe joined
 * by three underscores.  -G matches such a name against the providers and
 * probes it read rather than splitting it, so a provider whose own name
 * holds underscores is still found.  The same functions serve -h, -G and
 * the consumers, so the spellings cannot drift apart.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prov.h"

/* A name that does not fit buf: buf left empty, -ENAMETOOLONG. */
static int too_long(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return -ENAMETOOLONG;
}

int prov_pubname(const char *probe, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = probe; *p; p++) {
		char c = *p;

		if (p[0] == '_' && p[1] == '_') {
			c = '-';
			p++;
		}
		if (o + 1 >= len)
			return too_long(buf, len);
		buf[o++] = c;
	}
	if (o >= len)
		return too_long(buf, len);
	buf[o] = '\0';
	return (int)o;
}

/* Append an upper-cased, macro-safe copy of s; "__", '-' and '.' give '_'. */
static int macro_part(const char *s, char *buf, size_t len, size_t *o)
{
	for (const char *p = s; *p; p++) {
		char c = *p;

		if (p[0] == '_' && p[1] == '_')
			p++;
		else if (c == '-' || c == '.')
			c = '_';
		if (*o + 1 >= len)
			return -ENAMETOOLONG;
		buf[(*o)++] = (char)toupper((unsigned char)c);
	}
	return 0;
}

int prov_macro(const char *provider, const char *probe, char *buf, size_t len)
{
	size_t o = 0;

	if (macro_part(provider, buf, len, &o) < 0 || o + 1 >= len)
		return too_long(buf, len);
	buf[o++] = '_';
	if (macro_part(probe, buf, len, &o) < 0 || o >= len)
		return too_long(buf, len);
	buf[o] = '\0';
	return (int)o;
}

static int mangle(const char *prefix, const char *provider, const char *probe,
		  char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s" PROV_SEP "%s", prefix, provider,
			 probe);

	if (n < 0 || (size_t)n >= len)
		return too_long(buf, len);
	return n;
}

int prov_func_sym(const char *provider, const char *probe, char *buf,
		  size_t len)
{
	return mangle(PROV_FUNC_PREFIX, provider, probe, buf, len);
}

int prov_enabled_sym(const char *provider, const char *probe, char *buf,
		     size_t len)
{
	return mangle(PROV_ENABLED_PREFIX, provider, probe, buf, len);
}

int prov_sema_sym(const char *provider, const char *probe, char *buf,
		  size_t len)
{
	return mangle(PROV_SEMA_PREFIX, provider, probe, buf, len);
}

static const char *const stability_names[] = {
	"Internal", "Private", "Obsolete", "External",
	"Unstable", "Evolving", "Stable", "Standard",
};

static const char *const class_names[] = {
	"Unknown", "CPU", "Platform", "Group", "ISA", "Common",
};

const char *prov_stability_name(unsigned v)
{
	return v <= PROV_STAB_MAX ? stability_names[v] : NULL;
}

const char *prov_class_name(unsigned v)
{
	return v <= PROV_CLASS_MAX ? class_names[v] : NULL;
}

void prov_attr_str(const struct prov_attr *a, char *buf, size_t len)
{
	const char *n = prov_stability_name(a->name);
	const char *d = prov_stability_name(a->data);
	const char *c = prov_class_name(a->dclass);

	snprintf(buf, len, "%s/%s/%s", n ? n : "?", d ? d : "?", c ? c : "?");
}

const struct prov_provider *prov_find_provider(const struct prov_file *pf,
					       const char *name)
{
	for (unsigned i = 0; i < pf->provider_cnt; i++)
		if (strcmp(pf->providers[i].name, name) == 0)
			return &pf->providers[i];
	return NULL;
}

const struct prov_probe *prov_find_probe(const struct prov_provider *pv,
					 const char *name)
{
	for (unsigned i = 0; i < pv->probe_cnt; i++)
		if (strcmp(pv->probes[i].name, name) == 0)
			return &pv->probes[i];
	return NULL;
}

void prov_diag_print(FILE *fp, const char *script, const struct prov_diag *d)
{
	fprintf(fp, "dtrace: failed to compile script %s: ", script);
	if (d->file[0] && strcmp(d->file, script) != 0)
		fprintf(fp, "%s: ", d->file);
	if (d->line && d->col)
		fprintf(fp, "line %u:%u: ", d->line, d->col);
	else if (d->line)
		fprintf(fp, "line %u: ", d->line);
	fprintf(fp, "%s\n", d->msg);
	if (d->srcline[0] && d->col) {
		unsigned i;

		fprintf(fp, "    %s\n    ", d->srcline);
		/* keep tabs so the caret lines up under the token */
		for (i = 0; i + 1 < d->col && d->srcline[i]; i++)
			fputc(d->srcline[i] == '\t' ? '\t' : ' ', fp);
		fputs("^\n", fp);
	}
	if (d->hint[0])
		fprintf(fp, "dtrace: hint: %s\n", d->hint);
}
