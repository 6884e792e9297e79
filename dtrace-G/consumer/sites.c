// SPDX-License-Identifier: MIT
/*
 * sites.c - which probes a run traces: the files its processes map,
 * their probes and sites, and the clauses each probe runs.
 *
 * The processes are the -p and -c targets, and every process that
 * registered DOF with the helper (the registry) and has a probe a
 * description matches, in its DOF or in the notes of a file it maps
 * that registered nothing (consumer.c adds them, usdt_maps_wanted()),
 * and a fork child of a glob's traced process that exec'd (lineage.c,
 * exec_follow(); its image armed late is said, exec_late_say()).
 * A process's probes are read from the files it has mapped executable
 * (/proc/PID/maps, procfs.h's proc_maps_next_file()), each file once
 * (by device and inode): their DOF or stapsdt notes
 * (elfprobes.c), so a target's probes are found with or without
 * dtrace-helperd, including those of libraries it dlopen()s while
 * traced (the maps are read again every 100 ms, and at once when the
 * registry changes; an exiting process's empty maps are not read as its
 * files unmapped; a -p or -c target is read at once at each dlopen()
 * where dlhold.c holds it, or where the library's drti.o asks, under -x
 * activation=user, and where neither, a library armed only at the next
 * read is said, late_say()).  A file is also read here for
 * what the backends need at a site: the stapsdt note (argument
 * locations, semaphore) and the symbols RIP-relative arguments name.
 * Both reads share one open of the file (sdk/objfile.h, file_get()).
 *
 * A probe of a process is named as DTrace names it: the provider with
 * the pid appended, the module the helper registered (else the file's
 * name).  It is matched against every clause's descriptions once, when
 * it is first seen; its sites are kept as file offsets, which is what
 * both uprobe events and the fasttrap module take.  A probe some clause
 * matches is handed to the backend to arm (c->be->enable()).  A forked
 * child known only from the fork tree (lineage.c) gets its probes made
 * from its parent's when its first hit arrives (probe_at_site()): same
 * file and sites, the provider with the child's pid.
 *
 * Which probes a file has is its site providers' to say (struct
 * provider, provider.c): proc_refresh() hands every file a process maps
 * to each one's file(), in providers[]'s order: the pid provider's
 * (pidprov.c), which takes every file, ELF or not, with probes or not,
 * then USDT's (usdtprov.c), which makes the probe records of the file's
 * DOF and notes the first time the process maps it.  Their probes are
 * matched here like any probe, a pid probe under its other names too
 * (tprobe.malias, falias); those of a pinned provider (pid) are never
 * armed binary-wide and never derived for a child.
 */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "kplan.h"
#include "elfsec.h"
#include "objfile.h"
#include "procfs.h"
#include "text.h"
#include "stapsdt.h"

/* ------------------------------------------------------------------ */
/* ELF files */

bool vaddr_to_off(const struct tfile *f, uint64_t v, uint64_t *off)
{
	return elf_vaddr_to_off(f->ph, f->nph, v, off);
}

bool sym_lookup(const struct tfile *f, const char *name, size_t len,
		uint64_t *v)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (strlen(f->symnames[i]) == len &&
		    !memcmp(f->symnames[i], name, len) &&
		    f->syms[i].st_shndx != SHN_UNDEF) {
			*v = f->syms[i].st_value;
			return true;
		}
	return false;
}

/*
 * What the backends need of a file at its sites: its program headers
 * (offsets), its stapsdt notes at their file offsets, the symbols
 * RIP-relative note arguments name.
 */
static void file_read_elf(struct tfile *f, struct objfile *of)
{
	Elf_Scn *notes, *symtab = objf_symbols(of);
	GElf_Shdr nsh = {0}, bsh = {0};
	struct elf_syms it;
	const char *nm;
	GElf_Sym s;
	bool have_base;

	f->nph = of->nph; /* kept after of is closed */
	f->ph = xcalloc(of->nph ? of->nph : 1, sizeof(*f->ph));
	if (of->nph)
		memcpy(f->ph, of->ph, of->nph * sizeof(*f->ph));
	notes = elfw_section_find(of->elf, STAPSDT_SECTION, &nsh);
	if (notes && nsh.sh_type != SHT_NOTE)
		notes = NULL;
	have_base = elfw_section_find(of->elf, STAPSDT_BASE_SECTION, &bsh) !=
		    NULL;
	if (notes) {
		Elf_Data *d = elf_getdata(notes, NULL);

		if (d && d->d_buf && d->d_size) {
			struct stapsdt_note note;
			struct stapsdt_err serr;
			uint64_t cur = 0;
			int r;

			f->notesec = xcalloc(1, d->d_size + 1);
			memcpy(f->notesec, d->d_buf, d->d_size);
			while ((r = stapsdt_note_next(f->notesec, d->d_size, 0,
						      &cur, &note, &serr))) {
				struct tnote tn = {0};
				uint64_t pc = note.pc, sema = note.sema;

				if (r < 0)
					continue;
				if (have_base && note.base &&
				    bsh.sh_addr != note.base) {
					pc += bsh.sh_addr - note.base;
					if (sema)
						sema += bsh.sh_addr - note.base;
				}
				if (!vaddr_to_off(f, pc, &tn.off))
					continue;
				if (sema &&
				    !vaddr_to_off(f, sema, &tn.sema_off))
					tn.sema_off = 0;
				tn.args = note.args;
				PUSH(f->notes, f->nnotes, tn);
			}
		}
	}
	for (elf_syms_begin(&it, of->elf, symtab); elf_syms_next(&it, &s, &nm);) {
		/* objects, and drti.o's recorder (inproc.c) */
		if (GELF_ST_TYPE(s.st_info) != STT_OBJECT &&
		    strncmp(nm, "__usdt_", 7) != 0)
			continue;
		f->syms = xpush_room(f->syms, f->nsyms, sizeof(*f->syms));
		f->symnames = xpush_room(f->symnames, f->nsyms,
					 sizeof(*f->symnames));
		f->syms[f->nsyms] = s;
		f->symnames[f->nsyms++] = xstrdup(nm);
		f->dl_asks |= !strcmp(nm, "__usdt_dlask");
	}
}

const struct tnote *file_note_at(const struct tfile *f, uint64_t off)
{
	for (size_t i = 0; i < f->nnotes; i++)
		if (f->notes[i].off == off)
			return &f->notes[i];
	return NULL;
}

/*
 * The calls and tail jumps to a header's stub that elfprobes.c made the
 * sites of the calling functions' probes (so that probefunc is the
 * caller's) have no note of their own: the stub's describes them, its
 * semaphore and its arguments, moved one word up the stack at a call
 * (the return address is not pushed yet).  Each gets a copy of it at
 * its own offset, where the backends look (file_note_at()).
 */
static void file_stub_notes(struct tfile *f)
{
	for (size_t i = 0; i < f->pl.n; i++) {
		const struct dt_probe *dp = &f->pl.v[i];
		const struct tnote *sn;
		struct tnote stub;
		uint64_t soff;

		if (!dp->site_stub || !vaddr_to_off(f, dp->stub_pc, &soff) ||
		    !(sn = file_note_at(f, soff)))
			continue;
		stub = *sn; /* f->notes moves as it grows */
		for (unsigned k = 0; k < dp->nsites; k++) {
			struct tnote tn = stub;

			if (!dp->site_stub[k] ||
			    !vaddr_to_off(f, dp->sites[k], &tn.off) ||
			    file_note_at(f, tn.off))
				continue;
			if (dp->site_stub[k] == 1)
				tn.args = dp->stub_call_args;
			PUSH(f->notes, f->nnotes, tn);
		}
	}
}

/* A path uprobe_events can take: no blanks or controls. */
static bool path_ok(const char *p)
{
	if (p[0] != '/')
		return false;
	for (; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '(' || *p == ')')
			return false;
	return true;
}

struct tfile *file_get(struct consumer *c, pid_t pid, const struct proc_map *m)
{
	const char *path = m->path;
	char mf[128];
	struct stat st, ps;
	struct tfile *f;
	struct dt_collect_opts co = {0};
	struct objfile *of;
	char msg[512];
	int err;

	(void)proc_map_files_path(mf, sizeof(mf), pid, m);
	if (stat(mf, &st) < 0 && stat(path, &st) < 0)
		return NULL;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i]->dev == st.st_dev &&
		    c->files[i]->ino == st.st_ino)
			return c->files[i];
	f = xcalloc(1, sizeof(*f));
	f->fd = -1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	/* the name it had, if deleted or replaced since it was mapped */
	f->path = xstrndup(path, proc_map_name_len(m));
	PUSH(c->files, c->nfiles, f);
	if (!S_ISREG(st.st_mode)) {
		f->failed = true;
		return f;
	}
	if (path_ok(f->path) && stat(f->path, &ps) == 0 &&
	    ps.st_dev == st.st_dev && ps.st_ino == st.st_ino)
		f->upath = xstrdup(f->path);
	else
		f->upath = xstrdup(mf); /* deleted, replaced or oddly named */
	/*
	 * Opened once, for its sites and its probes, and left open for the
	 * caller's providers (the pid provider's functions) until
	 * file_release().
	 */
	of = xcalloc(1, sizeof(*of));
	err = objf_open(of, f->upath, msg, sizeof(msg));
	if (err == -ENOMEM)
		xoom();
	if (err < 0) {
		free(of);
		f->failed = true;
		return f;
	}
	f->of = of;
	file_read_elf(f, of);
	err = dt_object_probes_of(&f->pl, of, &co, msg, sizeof(msg));
	if (err == -ENOMEM)
		xoom();
	if (err < 0 || !f->pl.n)
		f->failed = true;
	else
		file_stub_notes(f);
	return f;
}

void file_release(struct tfile *f)
{
	if (!f->of)
		return;
	objf_close(f->of);
	free(f->of);
	f->of = NULL;
}

/* ------------------------------------------------------------------ */
/* Probes of processes and clause matching */

bool probe_matches(const struct dt_desc *d, const char *provider,
		   const char *mod, const char *func, const char *name)
{
	struct dt_probe p = {0};

	snprintf(p.provider, sizeof(p.provider), "%s", provider);
	p.mod = mod;
	p.func = func;
	p.name = name;
	return dt_desc_match(d, &p);
}

struct tprobe *probe_find(struct consumer *c, pid_t pid, const char *prov,
			  const char *mod, const char *func, const char *name)
{
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];

		if (p->pid == pid && !strcmp(p->prov, prov) &&
		    !strcmp(p->mod, mod) && !strcmp(p->func, func) &&
		    !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

/*
 * The probe whose records carry id, a traced process's or a kernel
 * provider's, or NULL; ctx is the consumer (kplan.h's d_kplan_probe_fn,
 * for what was aggregated outside the D program).
 */
const struct d_probe *probe_by_id(void *ctx, unsigned id)
{
	struct consumer *c = ctx;

	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->dp.id == id)
			return &c->probes[i]->dp;
	return kprov_probe_of(c, id);
}

/*
 * Could the provider field pat match base followed by some pid?  Exact
 * for a plain name ("srv", "srv1234"); a pattern is judged by its
 * literal head ("srv1*" may, "foo*" may not), and what follows that is
 * taken as yes, which only makes an event fetch more than it might
 * need, or a site armed binary-wide that no process ends up matching.
 */
static bool prov_may_match_child(const char *pat, const char *base)
{
	size_t n = strlen(base), lit = strcspn(pat, "*?[\\");

	if (!pat[0])
		return true;
	if (pat[lit]) {
		size_t m = lit < n ? lit : n;

		return !strncmp(pat, base, m) &&
		       strspn(pat + m, "0123456789") >= lit - m;
	}
	if (strncmp(pat, base, n) || !pat[n])
		return false;
	return strspn(pat + n, "0123456789") == strlen(pat + n);
}

/*
 * Does d pin processes: a provider named exactly (srv1234, srv$target,
 * what -p and -c give), which only one process's provider can be?  Any
 * other (a glob, or no provider) enables the probe in every process
 * whose provider matches, now or later: binary-wide (doc/DESIGN.md §8).
 */
static bool desc_pins(const struct dt_desc *d)
{
	return d->prov[0] && !strpbrk(d->prov, "*?[\\");
}

/*
 * Does d match p under provider prov?  A pid probe answers to its other
 * names too (pidprov.c): "a.out" for the executable's module, and the
 * other symbols of its function.
 */
static bool desc_matches(const struct dt_desc *d, const struct tprobe *p,
			 const char *prov)
{
	const char *mods[2] = {p->mod, p->malias};

	for (unsigned m = 0; m < 2 && mods[m]; m++) {
		if (probe_matches(d, prov, mods[m], p->func, p->name))
			return true;
		for (unsigned i = 0; i < p->nfalias; i++)
			if (probe_matches(d, prov, mods[m], p->falias[i],
					  p->name))
				return true;
	}
	return false;
}

/* Could d match the site of p in some process (the provider aside)? */
static bool desc_may_match_site(const struct dt_desc *d,
				const struct tprobe *p)
{
	struct dt_desc any = *d;

	any.prov = (char *)"";
	return desc_matches(&any, p, "");
}

/*
 * Does the provider field pat match base followed by every pid, or by
 * none?  Then it treats a forked child's probe as its parent's.  "" and
 * a literal head of base then "*" match every one; a literal matches
 * one pid's or none; anything else is taken as depending on the pid.
 */
static bool prov_pid_free(const char *pat, const char *base)
{
	size_t lit = strcspn(pat, "*?[\\");

	if (!pat[0])
		return true;
	if (!strcmp(pat + lit, "*") && lit <= strlen(base) &&
	    !strncmp(pat, base, lit))
		return true;
	return !prov_may_match_child(pat, base);
}

/*
 * May some description match a forked child's probe as its parent's
 * (bpf_agg_cgen.c's "Forks")?  One that does not name a provider
 * exactly, nor a kernel provider, nor (with no provider) BEGIN, END,
 * ERROR or a tick-N or profile-N, as most scripts' own are.
 */
bool descs_may_pass(const struct consumer *c)
{
	static const char *const kern[] = { "dtrace", "syscall", "profile",
					    "tick", "proc" };
	static const char *const own[] = { "BEGIN", "END", "ERROR" };

	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];
			bool k = false;

			if (desc_pins(d))
				continue;
			for (size_t i = 0; i < sizeof(kern) / sizeof(kern[0]);
			     i++)
				k |= !strcmp(d->prov, kern[i]);
			if (!d->prov[0] && !d->mod[0] && !d->func[0]) {
				for (size_t i = 0;
				     i < sizeof(own) / sizeof(own[0]); i++)
					k |= !strcmp(d->name, own[i]);
				k |= (!strncmp(d->name, "tick-", 5) ||
				      !strncmp(d->name, "profile-", 8)) &&
				     !strpbrk(d->name, "*?[\\");
			}
			if (!k)
				return true;
		}
	return false;
}

/*
 * Would the probe at p's site in a forked child of p's process (its
 * provider the same but for the pid) match exactly the clauses p does?
 * So where no description that may match the site names a provider
 * that depends on the pid (srv$target, srv1*): bpf_agg.c's
 * plan_inherits().  A pid provider's probe is its process's alone.
 */
bool probe_child_same(const struct consumer *c, const struct tprobe *p)
{
	if (p->pidkind || !p->bprov)
		return false;
	if (!strcmp(p->prov, p->bprov)) /* no pid in its name */
		return true;
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];

			if (!prov_pid_free(d->prov, p->bprov) &&
			    desc_may_match_site(d, p))
				return false;
		}
	return true;
}

/*
 * Which processes' probes at p's site match the clauses of p's that
 * exit() at the hit (d_kplan_xclause() of kp: kplan_exit.c's "exit() at
 * a traced probe")?  Their tests are compiled into the event's program from p's
 * clauses (bpf_kagg_xplan()) and run before it knows the process, so at
 * a hit of another process that fires the site (a forked child, which
 * inherited it; any process, where a description pins none) they must
 * be that process's too.  A clause is every process's where one of its
 * descriptions that may match the site does whatever the pid
 * (prov_pid_free(): dfz*, none), p's alone where each names p's
 * provider exactly (dfz$target; a pid probe's, pid1234, is p's process's
 * alone whatever its description).  0: every exit clause is
 * every process's (or there is none), so the tests hold for any hit;
 * p's pid: each is p's alone, so the tests are for p's hits (a hit of
 * another process has no exit clause at the site, its record's clauses
 * run in user space as any unarmed hit's); -1: some clause is neither
 * (srv1*, naming some pids), or they differ, which one test cannot
 * be.  Before 2026-12-07 the tests ran at every hit: a child of the -c
 * process, forked with the sites armed, won the exit of a
 * dfz$target:::mix /arg2 == 255/ clause its probe does not have, and
 * every later hit of the run, its parent's too, was dropped.
 */
int exit_scope(const struct consumer *c, const struct tprobe *p,
	       const struct d_kplan *kp)
{
	bool any = false, own = false;

	for (unsigned i = 0; i < p->nclauses; i++) {
		unsigned ci = p->clauses[i];
		bool all = false, mine = true;

		if (ci >= c->nclauses || !d_kplan_xclause(kp, ci))
			continue;
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];

			if (!desc_may_match_site(d, p) || p->pidkind)
				continue; /* a pid probe's is p's alone */
			if (p->bprov && prov_pid_free(d->prov, p->bprov))
				all = true;
			else if (strcmp(d->prov, p->prov))
				mine = false;
		}
		if (all)
			any = true;
		else if (mine)
			own = true;
		else
			return -1;
	}
	if (any && own)
		return -1;
	return own ? (int)p->pid : 0;
}

/*
 * Match a probe against every clause; count the descriptions' matches.
 * A matched probe's needs add what the ERROR clauses read (c->eneeds):
 * a fault in any of its clauses fires ERROR in its firing's context.
 * What its events fetch (fstrmask, fneeds) covers also the clauses that
 * the same probe in a forked child could match.  An enabled probe whose
 * site some binary-wide description can match, in this process or any
 * other running the binary, is wide: its site gets one event for every
 * process, so that event fetches what any clause that can match the
 * site needs, the same for every process (a second event on the site
 * would record each hit twice).  That holds for a probe only pinning
 * descriptions enable too (srv4567 next to srv1*): were its process
 * armed with events of its own first, a binary-wide event that a later
 * process brings to the site would record its hits a second time.
 */
static void probe_match_clauses(struct consumer *c, struct tprobe *p)
{
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		bool hit = false, child = false;

		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];

			if (desc_matches(d, p, p->prov)) {
				c->descs[ci][j].matched++;
				hit = true;
			} else if (prov_may_match_child(d->prov, p->bprov) &&
				   desc_matches(d, p, "")) {
				child = true;
			}
		}
		if (hit)
			PROBE_CLAUSE_ADD(c, p, ci);
		/* a site named like a tick: its exit() is no tick's */
		if ((hit || child) && kprov_tick_clause(c, ci))
			kprov_horizon_off(c);
		if (hit || child) {
			p->fstrmask |= d_clause_strargs(c->prog, ci);
			p->fneeds |= d_clause_needs(c->prog, ci) | c->eneeds;
		}
	}
	/* a pinned provider's probe (pid) is its process's alone, whatever
	 * matches it */
	for (unsigned ci = 0;
	     p->nclauses && !site_provider(p->pidkind)->pinned &&
	     ci < c->nclauses;
	     ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];

			if (!desc_pins(d) &&
			    prov_may_match_child(d->prov, p->bprov) &&
			    desc_may_match_site(d, p))
				p->wide = true;
		}
	if (!p->wide)
		return;
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++)
			if (desc_may_match_site(&c->descs[ci][j], p)) {
				p->fstrmask |= d_clause_strargs(c->prog, ci);
				p->fneeds |=
					d_clause_needs(c->prog, ci) | c->eneeds;
				break;
			}
}

/*
 * A name from a file or a process, as the probe carries it: escaped
 * (sdk/text.h), since it is printed in default output lines, fault
 * messages and probefunc/probemod, and a traced file's owner chose it.
 */
char *probe_name_dup(const char *s)
{
	size_t n = TXT_SAFE_MAX(strlen(s));

	return txt_safe(s, xcalloc(1, n), n);
}

/* A new probe of pid (the strings are its own now), not matched yet. */
struct tprobe *probe_make(struct consumer *c, pid_t pid, char *bprov,
			  char *prov, char *mod, char *func, char *name,
			  struct tfile *f, unsigned nargs,
			  const char *const *argv)
{
	struct tprobe *p = xcalloc(1, sizeof(*p));

	p->id = ++c->next_id;
	p->pid = pid;
	p->bprov = bprov;
	p->prov = prov;
	p->mod = mod;
	p->func = func;
	p->name = name;
	p->file = f;
	p->nargs = nargs;
	if (p->nargs) {
		p->argtypes = xcalloc(p->nargs, sizeof(char *));
		for (unsigned a = 0; a < p->nargs; a++)
			p->argtypes[a] = xstrdup(argv && argv[a] ? argv[a]
								 : "int64_t");
	}
	p->dp.id = p->id;
	p->dp.prov = p->prov;
	p->dp.mod = p->mod;
	p->dp.func = p->func;
	p->dp.name = p->name;
	p->dp.nargs = p->nargs;
	p->dp.argtypes = (const char *const *)p->argtypes;
	PUSH(c->probes, c->nprobes, p);
	return p;
}

void probe_match(struct consumer *c, struct tprobe *p)
{
	probe_match_clauses(c, p);
}

/* A new probe of pid (the strings are its own now), matched. */
static struct tprobe *probe_new(struct consumer *c, pid_t pid, char *bprov,
				char *prov, char *mod, char *func, char *name,
				struct tfile *f, unsigned nargs,
				const char *const *argv)
{
	struct tprobe *p = probe_make(c, pid, bprov, prov, mod, func, name, f,
				      nargs, argv);

	probe_match_clauses(c, p);
	return p;
}

static bool has_off(const uint64_t *offs, unsigned n, uint64_t off)
{
	for (unsigned k = 0; k < n; k++)
		if (offs[k] == off)
			return true;
	return false;
}

/*
 * pid's probe at site (f, off).  With derive, a process known only
 * through the fork tree (lineage.c) gets one made from the probe another
 * process has there: the same file, module, function, name, arguments
 * and sites, the provider with pid appended; armed already, since its
 * hits come through the events it inherited.
 */
struct tprobe *probe_at_site(struct consumer *c, pid_t pid,
			     const struct tfile *f, uint64_t off, bool derive)
{
	struct tprobe *q = NULL, *p;
	char prov[DT_PROVIDER_MAX + 16];

	for (size_t i = 0; i < c->nprobes; i++) {
		p = c->probes[i];
		if (p->file != f || !has_off(p->offs, p->noffs, off))
			continue;
		if (p->pid == pid)
			return p;
		if (!q)
			q = p;
	}
	/* DTrace's pid probes do not follow fork: a child has none */
	if (!derive || !q || site_provider(q->pidkind)->pinned)
		return NULL;
	snprintf(prov, sizeof(prov), "%s%d", q->bprov, (int)pid);
	p = probe_find(c, pid, prov, q->mod, q->func, q->name);
	if (p)
		return p; /* the same names in another file: first wins */
	p = probe_new(c, pid, xstrdup(q->bprov), xstrdup(prov),
		      xstrdup(q->mod), xstrdup(q->func), xstrdup(q->name),
		      q->file, q->nargs, (const char *const *)q->argtypes);
	p->enabled = true;
	for (unsigned k = 0; k < q->noffs; k++)
		PUSH(p->offs, p->noffs, q->offs[k]);
	for (unsigned k = 0; k < q->nenoffs; k++)
		PUSH(p->enoffs, p->nenoffs, q->enoffs[k]);
	return p;
}

/* Have the backend arm every matched probe of pr not yet armed. */
static void proc_enable(struct consumer *c, struct tproc *pr)
{
	bool any = false;

	for (size_t i = 0; i < c->nprobes && !any; i++) {
		struct tprobe *p = c->probes[i];

		any = p->pid == pr->pid && !p->enabled && p->nclauses;
	}
	/* a run that failed before it began stops: arm nothing more */
	if (c->enable_failed && !c->released)
		return;
	if (any)
		c->be->enable(c, pr);
	else if (pr->target && c->be->target)
		c->be->target(c, pr);
}

/* Is pr's executable (/proc/PID/exe) among its files from the from'th? */
static bool exe_among(const struct tproc *pr, size_t from)
{
	char exe[64];
	struct stat st;

	(void)proc_path(exe, sizeof(exe), pr->pid, "exe");
	if (stat(exe, &st))
		return false;
	for (size_t k = from; k < pr->nfiles; k++)
		if (pr->files[k]->dev == st.st_dev &&
		    pr->files[k]->ino == st.st_ino)
			return true;
	return false;
}

/*
 * pr's files from index nf0 on were first seen at this read of its maps,
 * after BEGIN: a -p process (or a -c command) dlopen()ed them while
 * traced.  With a backend that cannot hold it at its dlopen()s
 * (dlhold.c: BE_CAP_HOLD), their code ran unarmed until now, so their
 * first hits, their constructors' included, are lost: said once for
 * the process, under -q too, naming the first such file a clause
 * matches, unless the backend says the file asked to be armed before
 * it ran (dl_asks: -x activation=user).  Its executable among them, it
 * exec'd, which no exec record told: said as an exec's image (-x
 * activation=user, a process with no arena that could not be held at
 * its exec: inproc_exec.c's ip_exec_hold()).  A backend that holds says
 * itself when it cannot; the uprobe one holds only where dtrace is
 * built with libbpf.
 */
static void late_say(struct consumer *c, struct tproc *pr, size_t nf0)
{
	char why[192];
	bool exec;

	/* no read of a new image (proc_exec_reset()) finds a dlopen()
	 * until one found its files mapped, the first of them included
	 * (exe_unseen, which reimaged implies: a read during the exec
	 * finds none of its files, and the next all of them): how an
	 * exec is followed is the backend's to say; a process dlhold.c
	 * holds (-x activation=user too) was armed at its stop */
	if (!pr->target || !c->released || pr->late_said || pr->exe_unseen ||
	    (c->be->caps & BE_CAP_HOLD) || dlhold_owns(pr->pid))
		return;
	/* its executable among the new files: it exec'd, unseen */
	exec = exe_among(pr, nf0);
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct tprobe *p = c->probes[i];
		bool late = false;

		if (p->pid != pr->pid || !p->nclauses)
			continue;
		for (size_t k = nf0; k < pr->nfiles && !late; k++)
			late = pr->files[k] == p->file &&
			       !(c->be->dl_asks &&
				 c->be->dl_asks(c, pr, p->file));
		if (!late)
			continue;
		pr->late_said = true;
		/*
		 * a backend on uprobe events holds where dtrace has libbpf
		 * (uprobe.c's caps): the others never
		 */
		if (c->be->caps & BE_CAP_UPROBES)
			snprintf(why, sizeof(why),
				 "this dtrace is built without libbpf, which "
				 "the hold needs");
		else if (c->be->dl_asks && exec)
			snprintf(why, sizeof(why),
				 "an exec'd image asks to be armed through "
				 "its process's arena, which one without "
				 "drti.o's recorder has not, and this one "
				 "could not be held at its exec");
		else if (c->be->dl_asks)
			snprintf(why, sizeof(why),
				 "only a library whose drti.o asks, in a "
				 "process whose own files carry drti.o's "
				 "recorder, is armed before it runs");
		else
			snprintf(why, sizeof(why),
				 "the %s backend cannot hold a process at its "
				 "%s",
				 c->be->name, exec ? "exec" : "dlopen()s");
		say(c,
		    "pid %d: %s, %s while traced, was armed only at the next "
		    "read of its maps: hits before that, its constructors' "
		    "included, were not counted (%s)",
		    (int)pr->pid, p->file->path,
		    exec ? "mapped by an exec" : "dlopen()ed", why);
		return;
	}
}

/* Is f armed binary-wide for another process than pid (a glob's)? */
static bool file_wide_armed(const struct consumer *c, const struct tfile *f,
			    pid_t pid)
{
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->file == f && c->probes[i]->pid != pid &&
		    c->probes[i]->wide && c->probes[i]->enabled)
			return true;
	return false;
}

/*
 * pr, a fork child traced from its exec (lineage.c, exec_follow()), has
 * its new image's probes armed by this first read of its maps: it ran
 * meanwhile, not held, so its hits before were not counted, unless a
 * glob had its file armed binary-wide already (fsrv exec'ing fsrv, or a
 * second child exec'ing what the first did).  Said once a run, under -q
 * too, where a clause matches one of its probes.
 */
static void exec_late_say(struct consumer *c, struct tproc *pr)
{
	const struct tprobe *p = NULL;

	if (!pr->nfiles)
		return; /* read between the exec and its mapping the file */
	pr->followed = false;
	/* not one lineage.c derived for its old image from its parent's */
	for (size_t i = 0; i < c->nprobes && !p; i++)
		for (size_t k = 0; k < pr->nfiles && !p; k++)
			if (c->probes[i]->pid == pr->pid &&
			    c->probes[i]->nclauses && c->probes[i]->enabled &&
			    c->probes[i]->file == pr->files[k] &&
			    !file_wide_armed(c, pr->files[k], pr->pid))
				p = c->probes[i];
	if (!p || c->lin.follow_said)
		return;
	c->lin.follow_said = true;
	say(c,
	    "pid %d, forked from a traced process, exec'd %s: its probes "
	    "are armed when dtrace reads the exec (a fork child is not "
	    "held), so any hit before that was not counted; so for any "
	    "other such image",
	    (int)pr->pid, p->file->path);
}

/*
 * Read pr's mappings; for each file not seen in it before, make its
 * probes and enable those that match.  Returns true if the maps changed.
 */
bool proc_refresh(struct consumer *c, struct tproc *pr,
		  const struct reg_proc *rp)
{
	struct proc_maps mm = {0};
	const struct proc_map *m;
	size_t nf0 = pr->nfiles;
	unsigned r0 = pr->resets;
	bool exe = false;
	char *maps;
	uint64_t tb;

	if (pr->exited)
		return false;
	tb = now_ns(CLOCK_MONOTONIC); /* ustack.c dates from the read's start */
	maps = read_proc(pr->pid, "maps", NULL);
	/*
	 * None at all: the process is exiting (its memory is released
	 * before it is reaped), not unmapping its files.  The last maps
	 * stay, so hits it made before are still decoded at their sites.
	 */
	if (!maps || !*maps) {
		free(maps);
		return false;
	}
	if (pr->maps && !strcmp(pr->maps, maps)) {
		free(maps);
		pr->maps_t = now_ns(CLOCK_MONOTONIC);
		pr->maps_tb = tb;
		ustack_maps_read(c, pr);
		return false;
	}
	free(pr->maps);
	pr->maps = maps;
	/* after the read: a hit's image is the one of an exec() before it
	 * (ustack.c) */
	pr->maps_t = now_ns(CLOCK_MONOTONIC);
	pr->maps_tb = tb;
	ustack_maps_read(c, pr); /* the text of the time of later hits */
	if (proc_maps_parse(maps, &mm) < 0) {
		free(pr->maps); /* read them again next time */
		pr->maps = NULL;
		return false;
	}
	for (size_t i = 0; (m = proc_maps_next_file(&mm, &i));) {
		struct tfile *f;
		bool seen = false;

		/* an exec'd image's executable mapped yet? (late_say()):
		 * the kernel maps it first, so any file is it, or after
		 * it, whether dtrace can open the file or not */
		exe = true;
		f = file_get(c, pr->pid, m);
		if (!f)
			continue;
		for (size_t k = 0; k < pr->nfiles; k++)
			seen |= pr->files[k] == f;
		if (!f->failed && !seen)
			PUSH(pr->files, pr->nfiles, f);
		/* each site provider's probes there (provider.c's order) */
		for (size_t k = 0; k < nproviders; k++)
			if (providers[k]->file)
				providers[k]->file(c, pr, f,
						   !f->failed && !seen, rp);
		file_release(f);
	}
	proc_maps_free(&mm);
	proc_enable(c, pr);
	/*
	 * An exec read while this read armed (proc_enable() reads records:
	 * the in-process path's) reset pr: what this read found was the
	 * old image, and the new one is still unread (exe_unseen stays),
	 * so its files found new by the next read are not a late dlopen().
	 * reimaged is cleared all the same: inproc_exec.c resets again at
	 * the next exec only when it is clear.
	 */
	if (pr->resets == r0) {
		late_say(c, pr, nf0);
		if (pr->followed)
			exec_late_say(c, pr);
		if (exe)
			pr->exe_unseen = false;
	}
	pr->reimaged = false;
	return true;
}
