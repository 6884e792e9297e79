// SPDX-License-Identifier: MIT
/*
 * uprobe_ev.c - the uprobe backend's tracefs side: the run's uprobe
 * events, one per probe site, written to uprobe_events and deleted
 * again (uprobe.c opens the perf events that turn them on and reads
 * what they write; uprobe_impl.h is what the two share).
 *
 * tracefs is found where the kernel documents it (mounted there when it
 * is not mounted at all).  Every event of a run is in one group,
 * "dtrace_PID_T" (T: the run's start time, from /proc/PID/stat), so a
 * later run can tell a group whose consumer died (SIGKILL leaves its
 * events behind, though nothing stays armed: its perf events died with
 * it) from one still running, and deletes only the dead ones' before it
 * starts, and its own at the end.
 *
 * An event is the site (file, file offset) with the semaphore's file
 * offset as reference counter, so the kernel counts the _ENABLED()
 * semaphore up in exactly the processes where it installs the
 * breakpoint.  Its fetch arguments copy at hit time only what the
 * clauses read: the arguments as the site's stapsdt note describes
 * them (a register of bpf/uregs.h, a memory operand, a constant), or
 * for a site without a note (dtrace -G's) the calling convention's
 * registers and stack slots; the strings copyinstr() reads; the
 * thread's name for execname.  Less to copy is less cost per hit.  The
 * event's format file then gives the offsets of those fields in its
 * records, and its id the tracepoint a record names (c->up.by_tp).  The
 * kernel's reason for a refused definition is read from error_log.
 * A site the bpf backend arms by a link for one process has an event
 * with no tracefs side (up_event_link(): lpid set, no format, no id),
 * which only names the site to the records.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "arch.h"
#include "bpf/uregs.h"
#include "consumer_impl.h"
#include "stapsdt.h"
#include "uprobe_impl.h"

/* tracefs */

int up_tracefs_find(struct consumer *c)
{
	static const char *const dirs[] = {"/sys/kernel/tracing",
					   "/sys/kernel/debug/tracing"};
	char p[PATH_MAX];

	for (unsigned i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/uprobe_events", dirs[i]);
		if (access(p, F_OK) == 0) {
			snprintf(c->up.tfs, sizeof(c->up.tfs), "%s", dirs[i]);
			return 0;
		}
	}
	/* not mounted: mount it where the kernel documents it */
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) == 0) {
		snprintf(p, sizeof(p), "%s/uprobe_events", dirs[0]);
		if (access(p, F_OK) == 0) {
			snprintf(c->up.tfs, sizeof(c->up.tfs), "%s", dirs[0]);
			return 0;
		}
	}
	return -1;
}

/* The kernel's reason for the last refused command, if it says one. */
static void tracefs_error_log(struct consumer *c, char *buf, size_t len)
{
	char p[PATH_MAX], *log, *last = NULL, *s;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/error_log", c->up.tfs);
	log = read_file(p, NULL);
	if (!log)
		return;
	for (s = log; (s = strstr(s, "trace_uprobe: error: ")); s++)
		last = s;
	if (last) {
		last += strlen("trace_uprobe: error: ");
		snprintf(buf, len, "%.*s", (int)strcspn(last, "\n"), last);
	}
	free(log);
}

static int uprobe_events_write(struct consumer *c, const char *line)
{
	char p[PATH_MAX];
	size_t len = strlen(line);
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/uprobe_events", c->up.tfs);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* Is the consumer that made group dtrace_PID_START still running? */
static bool group_alive(const char *group)
{
	unsigned long pid;
	unsigned long long start;
	uint64_t cur;
	pid_t p;

	if (sscanf(group, GROUP_PREFIX "%lu_%llu", &pid, &start) != 2)
		return true; /* not ours */
	p = (pid_t)pid;
	if (reg_proc_stat(p, &cur, NULL, 0) < 0)
		return false;
	return cur == start;
}

/* Delete the events of consumers that died (SIGKILL) and, at the end, ours. */
void up_reap_groups(struct consumer *c, const char *only)
{
	char p[PATH_MAX], *ev, *line, *save = NULL;

	snprintf(p, sizeof(p), "%s/uprobe_events", c->up.tfs);
	ev = read_file(p, NULL);
	if (!ev)
		return;
	for (line = strtok_r(ev, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char grp[128], name[128], cmd[300];

		if (sscanf(line, "%*[pr]:%127[^/]/%127s", grp, name) != 2)
			continue;
		if (strncmp(grp, GROUP_PREFIX, strlen(GROUP_PREFIX)))
			continue;
		if (only ? strcmp(grp, only) : group_alive(grp))
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", grp, name);
		(void)uprobe_events_write(c, cmd);
	}
	free(ev);
}

/* ------------------------------------------------------------------ */
/* Uprobe events */

/* a register's name in a fetch argument (bpf/uregs.h) */
static const char *kreg(int reg)
{
	static const char *const names[UREG_N] = UREG_NAMES;

	if (reg < 0 || reg >= UREG_N)
		return NULL;
	return names[reg];
}

/*
 * The fetch argument for one stapsdt spec: the location in loc (used
 * again for strings: the argument's value is their address) and its type.
 */
static bool spec_fetch(const struct tfile *f, const struct stapsdt_arg *a,
		       char *loc, size_t loclen, char *type, size_t typelen)
{
	unsigned size = a->size ? a->size : 8;
	const char *r;

	if (a->is_float || size > 8)
		return false;
	snprintf(type, typelen, "%c%u", a->is_signed ? 's' : 'u', size * 8);
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		r = kreg(a->reg);
		if (!r)
			return false;
		if (a->reg_hi8) {
			snprintf(loc, loclen, "%%%s", r);
			snprintf(type, typelen, "b8@8/64");
			return true;
		}
		snprintf(loc, loclen, "%%%s", r);
		return true;
	case STAPSDT_ARG_MEM:
		if (a->index != STAPSDT_REG_NONE)
			return false;
		if (a->sym) {
			uint64_t v, off;

			if (a->reg != UREG_IP ||
			    !sym_lookup(f, a->sym, a->sym_len, &v) ||
			    !vaddr_to_off(f, v + (uint64_t)a->off, &off))
				return false;
			snprintf(loc, loclen, "@+0x%" PRIx64, off);
			return true;
		}
		r = kreg(a->reg);
		if (!r || a->reg == UREG_IP)
			return false;
		snprintf(loc, loclen, "%c%" PRIu64 "(%%%s)",
			 a->off < 0 ? '-' : '+',
			 a->off < 0 ? (uint64_t)0 - (uint64_t)a->off
				    : (uint64_t)a->off,
			 r);
		return true;
	case STAPSDT_ARG_CONST:
		if (a->sym)
			return false;
		snprintf(loc, loclen, "\\%" PRId64, a->off);
		return true;
	}
	return false;
}

/* Field offsets of the event's records, from its format file. */
static int event_format(struct consumer *c, struct tevent *e)
{
	char p[PATH_MAX], *fmt, *line, *save = NULL;

	snprintf(p, sizeof(p), "%s/events/%s/%s/format", c->up.tfs, c->up.group,
		 e->name);
	fmt = read_file(p, NULL);
	if (!fmt)
		return -errno;
	for (unsigned i = 0; i < D_MAXARGS; i++)
		e->arg_off[i] = e->str_off[i] = -1;
	e->comm_off = -1;
	for (line = strtok_r(fmt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char decl[128];
		int off, size, sgn = 0;
		const char *fieldname;
		size_t dl;

		if (sscanf(line,
			   " field:%127[^;]; offset:%d; size:%d; signed:%d",
			   decl, &off, &size, &sgn) < 3)
			continue;
		dl = strlen(decl);
		while (dl && (decl[dl - 1] == ' '))
			decl[--dl] = '\0';
		fieldname = strrchr(decl, ' ');
		fieldname = fieldname ? fieldname + 1 : decl;
		if (fieldname[0] == 'a' &&
		    isdigit((unsigned char)fieldname[1])) {
			unsigned i = (unsigned)atoi(fieldname + 1);

			if (i < D_MAXARGS) {
				e->arg_off[i] = off;
				e->arg_size[i] = size;
				e->arg_signed[i] = sgn != 0;
			}
		} else if (fieldname[0] == 's' &&
			   isdigit((unsigned char)fieldname[1])) {
			unsigned i = (unsigned)atoi(fieldname + 1);

			if (i < D_MAXARGS)
				e->str_off[i] = off;
		} else if (!strcmp(fieldname, "xcomm")) {
			e->comm_off = off;
		}
	}
	free(fmt);
	snprintf(p, sizeof(p), "%s/events/%s/%s/id", c->up.tfs, c->up.group,
		 e->name);
	fmt = read_file(p, NULL);
	if (!fmt)
		return -errno;
	e->tp = atoi(fmt);
	free(fmt);
	return 0;
}

/*
 * Argument i at a call (a -G site without a note): the calling
 * convention's argument registers, then the stack the call leaves.
 */
static int sysv_loc(unsigned i, char *loc, size_t len)
{
#if defined(__aarch64__)
	static const char *const regs[] = {"x0", "x1", "x2", "x3",
					   "x4", "x5", "x6", "x7"};
#else
	static const char *const regs[] = {"di", "si", "dx", "cx", "r8", "r9"};
#endif
	const unsigned n = sizeof(regs) / sizeof(regs[0]);

	if (i < n)
		return snprintf(loc, len, "%%%s", regs[i]);
	return snprintf(loc, len, "+%u(%%sp)", (i - n) * 8);
}

/*
 * The uprobe event for a site, fetching what the clauses need: the
 * arguments they read (needs), the strings at the arguments of strmask,
 * the thread's name for execname.  Less to copy is less cost per hit.
 */
struct tevent *up_event_get(struct consumer *c, struct tfile *f, uint64_t off,
			    uint16_t strmask, uint32_t needs, unsigned nargs,
			    bool wide)
{
	/* a pid probe at a USDT site shares its semaphore (the kernel
	 * refuses two reference counters at one address) */
	const struct tnote *note = file_note_at(f, SITE_OFF(off));
	const char *args = site_args(note, off);
	char line[4096], loc[D_MAXARGS][64];
	bool have[D_MAXARGS] = {false};
	struct tevent *e;
	size_t n;
	int err;

	for (size_t i = 0; i < c->up.nevs; i++) {
		e = c->up.evs[i];
		if (e->file == f && e->off == off && e->strmask == strmask &&
		    e->needs == needs && e->wide == wide && !e->lpid)
			return e;
	}
	if (c->up.err[0]) {
		if (!c->enable_failed)
			say(c, "%s", c->up.err);
		c->enable_failed = true;
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->file = f;
	e->off = off;
	e->strmask = strmask;
	e->needs = needs;
	e->wide = wide;
	snprintf(e->name, sizeof(e->name), "e%u", c->up.nev++);
	n = (size_t)snprintf(line, sizeof(line), "%c:%s/%s %s:0x%" PRIx64,
			     site_returns(off) ? 'r' : 'p', c->up.group,
			     e->name, f->upath, SITE_OFF(off));
	if (note && note->sema_off)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "(0x%" PRIx64 ")", note->sema_off);
	if (args && args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;
		unsigned i = 0;

		while (i < D_MAXARGS &&
		       arch_arg_next(args, &cur, &a, &serr) == 1) {
			char type[32];

			if (spec_fetch(f, &a, loc[i], sizeof(loc[i]), type,
				       sizeof(type))) {
				have[i] = true;
				if (needs & (1u << i))
					n += (size_t)snprintf(
						line + n, sizeof(line) - n,
						" a%u=%s:%s", i, loc[i], type);
			} else if (needs & (1u << i)) {
				n += (size_t)snprintf(line + n,
						      sizeof(line) - n,
						      " a%u=\\0:u64", i);
			}
			i++;
		}
		e->nargs = i;
	} else {
		if (nargs > D_MAXARGS)
			nargs = D_MAXARGS;
		for (unsigned i = 0; i < nargs; i++) {
			sysv_loc(i, loc[i], sizeof(loc[i]));
			have[i] = true;
			if (needs & (1u << i))
				n += (size_t)snprintf(line + n,
						      sizeof(line) - n,
						      " a%u=%s:x64", i, loc[i]);
		}
		e->nargs = nargs;
	}
	for (unsigned i = 0; i < e->nargs; i++)
		if ((strmask & (1u << i)) && have[i] && loc[i][0] != '\\')
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " s%u=+0(%s):string", i, loc[i]);
	if (needs & D_NEED_EXECNAME)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " xcomm=$comm");
	n += (size_t)snprintf(line + n, sizeof(line) - n, "\n");
	if (n >= sizeof(line)) {
		say(c, "%s: site 0x%" PRIx64 ": uprobe definition too long",
		    f->path, SITE_OFF(off));
		c->enable_failed = true;
		free(e);
		return NULL;
	}
	c->up.made++; /* (a failed write made none: one more delete) */
	err = uprobe_events_write(c, line);
	if (err) {
		char why[256];

		tracefs_error_log(c, why, sizeof(why));
		say(c,
		    "cannot create a uprobe on %s at offset 0x%" PRIx64
		    ": %s%s%s",
		    f->path, SITE_OFF(off), strerror(-err), why[0] ? ": " : "",
		    why);
		c->enable_failed = true;
		free(e);
		return NULL;
	}
	err = event_format(c, e);
	if (err) {
		say(c, "cannot read uprobe event %s/%s: %s", c->up.group,
		    e->name, strerror(-err));
		c->enable_failed = true;
		free(e);
		return NULL;
	}
	if (e->tp <= 0 || e->tp > 0xffff) {
		say(c,
		    "uprobe event %s/%s has ID %d, outside what records carry",
		    c->up.group, e->name, e->tp);
		c->enable_failed = true;
		free(e);
		return NULL;
	}
	if (c->up.event_new && (err = c->up.event_new(c, e, c->up.nevs)) < 0) {
		if (!site_refused(c, f, off, err))
			c->enable_failed = true;
		free(e);
		return NULL;
	}
	if (!c->up.by_tp)
		c->up.by_tp = xcalloc(0x10000, sizeof(*c->up.by_tp));
	c->up.by_tp[e->tp] = e;
	PUSH(c->up.evs, c->up.nevs, e);
	if (wide && (err = up_wide_open(c, e)) < 0) {
		say(c,
		    "cannot arm uprobe event %s/%s for every process: "
		    "perf_event_open: %s",
		    c->up.group, e->name, strerror(-err));
		c->enable_failed = true;
		return NULL;
	}
	return e;
}

/*
 * A site link's event: no tracefs event and no format, so it only says
 * where the site is and what its program fetches (bpf_attach.c makes
 * that from the note, as for any event); the arguments its note has, or
 * nargs at a note-less site, as up_event_get() counts them.  Never
 * shared: the link is one process's.
 */
int up_event_link(struct consumer *c, pid_t pid, struct tfile *f, uint64_t off,
		  uint16_t strmask, uint32_t needs, unsigned nargs)
{
	const char *args = site_args(file_note_at(f, SITE_OFF(off)), off);
	struct tevent *e;
	int err;

	if (c->up.err[0])
		return -ENOEXEC; /* up_event_get() says it */
	e = xcalloc(1, sizeof(*e));
	e->file = f;
	e->off = off;
	e->strmask = strmask;
	e->needs = needs;
	e->lpid = pid;
	e->nargs = nargs > D_MAXARGS ? D_MAXARGS : nargs;
	if (args && args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;

		e->nargs = 0;
		while (e->nargs < D_MAXARGS &&
		       arch_arg_next(args, &cur, &a, &serr) == 1)
			e->nargs++;
	}
	snprintf(e->name, sizeof(e->name), "l%u", c->up.nev++);
	err = c->up.site_link(c, e, c->up.nevs);
	if (err) {
		if (err != -ENOEXEC && !site_refused(c, f, off, err))
			c->enable_failed = true;
		free(e);
		return err;
	}
	PUSH(c->up.evs, c->up.nevs, e);
	return 0;
}

/* The site's binary-wide event, if it has one. */
struct tevent *up_event_wide(struct consumer *c, const struct tfile *f,
			     uint64_t off)
{
	for (size_t i = 0; i < c->up.nevs; i++)
		if (c->up.evs[i]->wide && c->up.evs[i]->file == f &&
		    c->up.evs[i]->off == off)
			return c->up.evs[i];
	return NULL;
}
