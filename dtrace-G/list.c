// SPDX-License-Identifier: MIT
/*
 * list.c - dtrace -l: list probes, as DTrace does.
 *
 *	dtrace -l [-v] [-n DESC | -P PROV | -m MOD | -f FUNC]... [-p PID]...
 *	dtrace -l [-v] [selection...] --object=FILE...
 *
 * The table comes from probes.c: the dtrace provider's BEGIN, END and
 * ERROR, then every live process registered with the helper (or, with
 * --object, the probes of files on disk); after them, the rows the
 * providers' tables hand out (dt_providers_list(), consumer/provider.c:
 * the pid provider's, then, but not with --object, the kernel
 * providers', syscall, profile and proc), with IDs that follow, so the
 * IDs of the others are what they were without them.  This file
 * numbers, selects and prints those rows; what they are (names,
 * attributes, sites) is each provider's.  Each row is printed with
 * DTrace's own format, so scripts that parse `dtrace -l` keep working:
 *
 *    ID   PROVIDER            MODULE                          FUNCTION NAME
 *     1     dtrace                                                     BEGIN
 *     4  myapp4242             myapp                              main tick
 *
 * A probe is listed when it matches any of the descriptions given (all
 * probes without one), and only once, in ID order.  -p keeps the
 * user-level probes of the processes named: those it registered, else
 * those of the files it maps (what tracing with -p enables); a process
 * that does not exist, or has no probes, is an error before anything is
 * printed ("failed to grab pid N"), as DTrace fails to grab it.  A
 * description that matches nothing is reported with DTrace's words
 * after the listing, and the exit status is then 1:
 *
 *	dtrace: failed to match :::nosuch: No probe matches description
 *
 * The description is shown with all four fields, as DTrace shows it.
 *
 * A row's ID counts every registered probe before it, listed or not, so
 * it is the same whatever is asked.  With descriptions or -p, only the
 * registry files that can hold a listed probe are read (dt_desc_reg_pids(),
 * as dtrace -n reads them), and those of lower pids, to count theirs;
 * the rest are counted (dt_probes_count_rest()) only before a row that
 * comes after the registry's, a kernel or pid provider row.
 *
 * pid provider descriptions (pid$target:a.out:main:entry, pid4242:
 * libc.so.6:str*:return) list the probe points they select in that
 * process (consumer/pidprov.c, through pidfuncs.c), after the
 * registry's rows and before the kernel's, with IDs that go on from
 * theirs; -c starts a command for them, stopped at its entry point as
 * tracing starts it, and kills it after the listing, and $target is the
 * first -p or -c process.
 *
 * -v adds DTrace's attribute and argument block after each row
 * (print_probe_info() in DTrace's dtrace.c), then our own: the probe
 * sites, each with its source line when the object has DWARF line
 * information (srcline.c):
 *
 *	Probe Sites
 *		0x55d0c1a2b139 /src/app.c:12	a process: run-time address
 *		0x1139 /src/app.c:12		--object: link-time address
 *		.text.startup+0x11 /src/app.c:12	a relocatable object
 *		main+0x22			function not defined in the file
 *		0x1150 /src/app.c:14 (is-enabled)	legacy is-enabled site
 *
 * Every name is printed through txt_safe() (sdk/text.h): module and
 * file names, ELF symbols and DWARF file names come from files and
 * processes any user controls, and must not drive root's terminal or
 * forge rows.
 *
 * Objects are read once per run (cached by path); for a process the file
 * is the one /proc/PID/maps named when the probes were registered, used
 * only while it is still the same file (its inode as recorded).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <signal.h>
#include <sys/wait.h>

#include "consumer/consumer.h"
#include "dtrace.h"
#include "grow.h"
#include "objects/pidfuncs.h"
#include "objects/probes.h"
#include "objects/srcline.h"
#include "registry.h"
#include "text.h"
#include "xalloc.h"

#define EXIT_USAGE 2

/* Source-line maps, one per object file, opened on first use. */
struct srcfile {
	char *path;
	struct dt_srcmap *map;
};

struct srccache {
	struct srcfile *v;
	size_t n;
};

static const struct dt_srcmap *srcmap_for(struct srccache *c, const char *path)
{
	struct dt_srcmap *m;
	char *p;

	if (!path || !*path)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path))
			return c->v[i].map;
	m = dt_srcmap_open(path);
	p = strdup(path);
	if (!m || !p || grow_count(&c->v, c->n, sizeof(*c->v)) < 0) {
		dt_srcmap_free(m);
		free(p);
		return NULL;
	}
	c->v[c->n].path = p;
	c->v[c->n].map = m;
	c->n++;
	return m;
}

static void srccache_free(struct srccache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		dt_srcmap_free(c->v[i].map);
	}
	free(c->v);
}

/*
 * The file to read a process's lines from: the mapped file, if the path
 * still names it (the registry recorded its inode; a rebuilt program has
 * a new one, and its lines would be wrong).
 */
static const char *line_file(const struct dt_probe *p)
{
	struct stat st;

	if (!p->path || !*p->path)
		return NULL;
	if (p->origin != DT_ORIGIN_PROCESS || !p->ent || !p->ent->ino)
		return p->path;
	if (stat(p->path, &st) < 0 || (uint64_t)st.st_ino != p->ent->ino)
		return NULL;
	return p->path;
}

static void print_attr(const char *title, dof_attr_t a)
{
	printf("\n\t%s\n", title);
	printf("\t\tIdentifier Names: %s\n",
	       dt_stability_name(DOF_ATTR_NAME(a)));
	printf("\t\tData Semantics:   %s\n",
	       dt_stability_name(DOF_ATTR_DATA(a)));
	printf("\t\tDependency Class: %s\n", dt_class_name(DOF_ATTR_CLASS(a)));
}

static void print_site(const struct dt_probe *p, const struct dt_srcmap *m,
		       uint64_t a, bool is_enabled)
{
	const char *file;
	unsigned long line;

	if (!p->addr_known)
		printf("\t\t%s+0x%" PRIx64, txt_safe4(p->func), a);
	else if (p->section)
		printf("\t\t%s+0x%" PRIx64, txt_safe4(p->section), a);
	else
		printf("\t\t0x%" PRIx64, a);
	if (p->addr_known &&
	    dt_srcmap_find(m, p->shndx, a - p->bias, &file, &line))
		printf(" %s:%lu", txt_safe4(file), line);
	printf("%s\n", is_enabled ? " (is-enabled)" : "");
}

static void print_verbose(const struct dt_probe *p, struct srccache *sc)
{
	const struct dt_srcmap *m = NULL;

	print_attr("Probe Description Attributes", dt_probe_attr(p));
	print_attr("Argument Attributes", p->argsattr);
	printf("\n\tArgument Types\n");
	for (unsigned i = 0; i < p->xargc; i++)
		printf("\t\targs[%u]: %s\n", i, txt_safe4(p->xargv[i]));
	if (!p->xargc)
		printf("\t\tNone\n");
	if (p->origin != DT_ORIGIN_DTRACE && p->origin != DT_ORIGIN_KERNEL) {
		if (p->addr_known)
			m = srcmap_for(sc, line_file(p));
		printf("\n\tProbe Sites\n");
		for (unsigned i = 0; i < p->nsites; i++)
			print_site(p, m, p->sites[i], false);
		for (unsigned i = 0; i < p->nensites; i++)
			print_site(p, m, p->ensites[i], true);
	}
	printf("\n");
}

static void warn_cb(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "dtrace: warning: %s\n", txt_safe4(msg));
}

static bool pid_listed(const struct dt_list_opts *c, pid_t pid)
{
	for (unsigned i = 0; i < c->npids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

/*
 * Which registered probes to read at all: with -p those of the processes
 * named (whether one registered decides where its probes come from),
 * else those a description matches.  A registry of a million probes then
 * costs `dtrace -l -n 'app*:::x'` only the probes it lists.
 */
struct list_want {
	const struct dt_list_opts *c;
	const struct dt_desc *d;
};

static bool list_want(const struct dt_probe *p, void *arg)
{
	const struct list_want *lw = arg;

	if (lw->c->npids)
		return pid_listed(lw->c, p->pid);
	for (unsigned j = 0; j < lw->c->ndescs; j++)
		if (dt_desc_match(&lw->d[j], p))
			return true;
	return lw->c->ndescs == 0;
}

/*
 * -p: every process named must be there, with probes: those it
 * registered, else those of the files it maps (what `dtrace -n -p`
 * traces), which get IDs after the rest.
 */
static int grab_pids(const struct dt_list_opts *c, struct dt_probes *pl,
		     const struct dt_collect_opts *o, const struct dt_desc *d)
{
	for (unsigned i = 0; i < c->npids; i++) {
		bool found = false;
		uint64_t start;
		int err;

		for (size_t j = 0; j < pl->n && !found; j++)
			found = pl->v[j].origin == DT_ORIGIN_PROCESS &&
				pl->v[j].pid == c->pids[i];
		/* its pid probes are listed, whatever USDT probes it has */
		for (unsigned j = 0; j < c->ndescs && !found; j++)
			found = dt_pid_desc(&d[j]) == c->pids[i] &&
				reg_proc_stat(c->pids[i], &start, NULL, 0) == 0;
		if (found)
			continue;
		err = reg_proc_stat(c->pids[i], &start, NULL, 0);
		if (err == 0) /* its IDs come after the whole registry's */
			err = dt_probes_count_rest(pl, o);
		if (err == 0)
			err = dt_process_probes(pl, c->pids[i], o);
		if (err > 0)
			continue;
		if (err == -ESRCH)
			fprintf(stderr,
				"dtrace: failed to grab pid %d: No such "
				"process\n",
				(int)c->pids[i]);
		else if (err == -ENOMEM)
			fprintf(stderr, "dtrace: out of memory\n");
		else
			fprintf(stderr,
				"dtrace: failed to grab pid %d: no USDT probes "
				"in the files it maps, none registered in %s\n",
				(int)c->pids[i], reg_statedir());
		return -ESRCH;
	}
	return 0;
}

/* A row of the listing, if the options select the probe. */
struct list_rows {
	const struct dt_list_opts *c;
	struct dt_desc *d;
	struct srccache *sc;
	/* for dt_probes_count_rest() before a row after the registry's */
	struct dt_probes *pl;
	const struct dt_collect_opts *o;
	int err;
};

/* Is p listed?  Each description it matches counts the match. */
static bool list_select(const struct list_rows *lr, const struct dt_probe *p)
{
	const struct dt_list_opts *c = lr->c;
	bool sel = c->ndescs == 0;

	if (c->npids && p->origin == DT_ORIGIN_PROCESS &&
	    !pid_listed(c, p->pid))
		return false;
	for (unsigned j = 0; j < c->ndescs; j++)
		if (dt_desc_match(&lr->d[j], p)) {
			lr->d[j].matched++;
			sel = true;
		}
	return sel;
}

/*
 * A row after the registry's is listed: its ID counts every registered
 * probe, those of the files not read yet too (read now, once).
 */
static void rest_counted(struct list_rows *lr)
{
	int err = dt_probes_count_rest(lr->pl, lr->o);

	if (err && !lr->err) {
		fflush(stdout);
		fprintf(stderr, "dtrace: out of memory\n");
		lr->err = err;
	}
}

static void print_row(const struct list_rows *lr, const struct dt_probe *p)
{
	const struct dt_list_opts *c = lr->c;

	printf("%5u %10s %17s %33s %s\n", p->id, txt_safe4(p->provider),
	       txt_safe4(p->mod), txt_safe4(p->func), txt_safe4(p->name));
	if (c->verbose)
		print_verbose(p, lr->sc);
}

static int list_row(const struct dt_probe *p, void *arg)
{
	const struct list_rows *lr = arg;

	if (list_select(lr, p))
		print_row(lr, p);
	return 0;
}

/*
 * The rows after the registry's, from the providers' tables
 * (dt_providers_list(): the pid provider's probe points, then the
 * kernel providers' probes).  The k-th row handed has ID base + k,
 * base being where the registry's IDs end, known once the rest of the
 * registry is counted (only if such a row is listed).
 */
struct later_rows {
	struct list_rows *lr;
	unsigned handed, base;
	bool based;
	int rc;
};

static int later_row(const struct dt_probe *p, int by, void *arg)
{
	struct later_rows *kr = arg;
	struct dt_probe row = *p;

	kr->handed++;
	/* a row its description selected, else any that matches */
	if (by < 0 && !list_select(kr->lr, &row))
		return 0;
	if (!kr->based) {
		rest_counted(kr->lr);
		kr->base = kr->lr->pl->next_id;
		kr->based = true;
	}
	row.id = kr->base + kr->handed;
	print_row(kr->lr, &row);
	return 0;
}

static void later_err(unsigned j, const char *msg, void *arg)
{
	struct later_rows *kr = arg;

	(void)j;
	fflush(stdout);
	fprintf(stderr, "dtrace: %s\n", txt_safe4(msg));
	kr->rc = EXIT_FAILURE;
}

/* Those rows, for the descriptions d; EXIT_FAILURE if one was said */
static int list_later(const struct dt_list_opts *c, struct dt_desc *d,
		      struct list_rows *lr)
{
	struct later_rows kr = {lr, 0, 0, false, EXIT_SUCCESS};
	struct dt_lister l = {0};
	char **names = xcalloc(c->ndescs ? c->ndescs : 1, sizeof(*names));
	size_t n = 0;

	for (unsigned j = 0; j < c->ndescs; j++)
		if (d[j].name[0] && !strpbrk(d[j].name, "*?[\\"))
			names[n++] = d[j].name;
	l.d = d;
	l.nd = c->ndescs;
	l.names = names;
	l.nnames = n;
	l.files = c->nobjects > 0; /* --object: the probes of files */
	l.row = later_row;
	l.err = later_err;
	l.arg = &kr;
	(void)dt_providers_list(&l);
	free(names);
	return kr.rc;
}

/*
 * $target in a description: the first -p or -c process, as tracing
 * expands it (d/lex.c).  A malloc'ed text, or NULL with errno.
 */
static char *expand_target(const char *text, pid_t target)
{
	static const char macro[] = "$target";
	size_t n = strlen(text) + 1, k = 0;
	char num[16], *out, *o;
	const char *s;

	snprintf(num, sizeof(num), "%d", (int)target);
	for (s = text; (s = strstr(s, macro)); s += sizeof(macro) - 1)
		k++;
	out = o = malloc(n + k * strlen(num));
	if (!out)
		return NULL;
	for (s = text; *s;) {
		if (!strncmp(s, macro, sizeof(macro) - 1)) {
			o = stpcpy(o, num);
			s += sizeof(macro) - 1;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

int dtrace_list(const struct dt_list_opts *in)
{
	struct dt_list_opts lo = *in;
	const struct dt_list_opts *c = &lo;
	pid_t *pids = NULL, *started = NULL;
	char **texts = NULL;
	unsigned nstarted = 0;
	struct list_rows lr;
	struct dt_collect_opts o = {0};
	struct dt_probes pl;
	struct dt_desc *d = NULL;
	struct list_want lw = {c, NULL};
	struct srccache sc = {NULL, 0};
	pid_t *reg_pids = NULL;
	size_t nreg_pids = 0;
	char msg[1024] = "";
	int rc = EXIT_SUCCESS, err;

	d = xcalloc(c->ndescs, sizeof(*d));
	texts = xcalloc(c->ndescs, sizeof(*texts));
	pids = xcalloc(in->npids + in->ncmds + 1, sizeof(*pids));
	started = xcalloc(in->ncmds + 1, sizeof(*started));
	lw.d = d;
	/* -c: the commands, held at their entry points; then the -p ones */
	lo.npids = 0;
	for (unsigned i = 0; i < in->ncmds; i++) {
		pid_t pid = dt_command_hold(in->cmds[i]);

		if (pid < 0) {
			rc = EXIT_FAILURE;
			goto out_desc;
		}
		started[nstarted++] = pid;
		pids[lo.npids++] = pid;
	}
	for (unsigned i = 0; i < in->npids; i++)
		pids[lo.npids++] = in->pids[i];
	lo.pids = pids;
	for (unsigned i = 0; i < c->ndescs; i++) {
		const char *text = c->descs[i].text;

		if (strstr(text, "$target")) {
			if (!c->npids) {
				fprintf(stderr,
					"dtrace: invalid probe description '%s': "
					"macro $target is not defined: use -c "
					"or -p\n",
					text);
				rc = EXIT_USAGE;
				goto out_desc;
			}
			texts[i] = expand_target(text, c->pids[0]);
			if (!texts[i]) {
				fprintf(stderr, "dtrace: out of memory\n");
				rc = EXIT_FAILURE;
				goto out_desc;
			}
			text = texts[i];
		}
		static const char *const forms[] = {
			[DT_SPEC_PROVIDER] = "provider",
			[DT_SPEC_MODULE] = "[provider:]module",
			[DT_SPEC_FUNC] = "[[provider:]module:]function",
			[DT_SPEC_NAME] = "[[[provider:]module:]function:]name",
		};
		enum dt_spec spec = c->descs[i].spec;

		err = dt_desc_parse(text, spec, &d[i]);
		if (err == -EINVAL) {
			fprintf(stderr,
				"dtrace: invalid probe description '%s': -%c "
				"takes %s\n",
				c->descs[i].text, c->descs[i].opt, forms[spec]);
			rc = EXIT_USAGE;
			goto out_desc;
		}
		if (err) {
			fprintf(stderr, "dtrace: out of memory\n");
			rc = EXIT_FAILURE;
			goto out_desc;
		}
	}

	o.statedir = c->nobjects ? NULL : reg_statedir();
	if (o.statedir && (c->npids || c->ndescs)) {
		/*
		 * The registry files that can hold a probe listed: those of
		 * the processes -p names, else those the descriptions can
		 * name (dt_desc_reg_pids(), as dtrace -n reads them); the
		 * IDs stay the whole listing's (reg_ids).
		 */
		o.reg_only = true;
		o.reg_ids = true;
		if (c->npids) {
			reg_pids = malloc(c->npids * sizeof(*reg_pids));
			o.reg_only = reg_pids != NULL;
			for (unsigned i = 0; reg_pids && i < c->npids; i++)
				reg_pids[nreg_pids++] = c->pids[i];
		}
		for (unsigned i = 0; !c->npids && i < c->ndescs && o.reg_only;
		     i++)
			o.reg_only = dt_desc_reg_pids(&d[i], &reg_pids,
						      &nreg_pids);
		o.reg_pids = reg_pids;
		o.nreg_pids = nreg_pids;
	}
	o.objects = c->objects;
	o.nobjects = c->nobjects;
	o.warn = warn_cb;
	o.want = list_want;
	o.want_arg = &lw;
	lr.c = c;
	lr.d = d;
	lr.sc = &sc;
	lr.pl = &pl;
	lr.o = &o;
	lr.err = 0;
	if (!c->npids && !c->nobjects && !c->ncmds) {
		/*
		 * Rows as the records are made: the registry streams through
		 * (collect.c), whatever its size.  -p needs the whole table
		 * first, to know which named process registered nothing (it
		 * holds only the processes named); --object files are the
		 * user's own, and one that cannot be read fails the listing
		 * before any row.
		 */
		printf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
		       "FUNCTION", "NAME");
		o.sink = list_row;
		o.sink_arg = &lr;
	}
	err = dt_probes_collect(&pl, &o, msg, sizeof(msg));
	if (err) {
		fflush(stdout);
		fprintf(stderr, "dtrace: %s\n", txt_safe4(msg));
		rc = EXIT_FAILURE;
		goto out;
	}
	if (!o.sink) {
		if (grab_pids(c, &pl, &o, d)) {
			rc = EXIT_FAILURE;
			goto out;
		}
		printf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
		       "FUNCTION", "NAME");
		for (size_t i = 0; i < pl.n; i++)
			list_row(&pl.v[i], &lr);
	}
	if (list_later(c, d, &lr) != EXIT_SUCCESS)
		rc = EXIT_FAILURE;
	if (lr.err)
		rc = EXIT_FAILURE;
	for (unsigned j = 0; j < c->ndescs; j++) {
		if (d[j].matched)
			continue;
		fflush(stdout);
		fprintf(stderr,
			"dtrace: failed to match %s:%s:%s:%s: No probe matches "
			"description\n",
			d[j].prov, d[j].mod, d[j].func, d[j].name);
		rc = EXIT_FAILURE;
	}
out:
	srccache_free(&sc);
	dt_probes_free(&pl);
out_desc:
	for (unsigned i = 0; d && i < c->ndescs; i++)
		dt_desc_free(&d[i]);
	for (unsigned i = 0; texts && i < c->ndescs; i++)
		free(texts[i]);
	for (unsigned i = 0; i < nstarted; i++) {
		kill(started[i], SIGKILL); /* as DTrace ends what it created */
		waitpid(started[i], NULL, 0);
	}
	free(d);
	free(texts);
	free(pids);
	free(started);
	free(reg_pids);
	return rc;
}
