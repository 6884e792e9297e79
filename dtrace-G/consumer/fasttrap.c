// SPDX-License-Identifier: MIT
/*
 * fasttrap.c - the consumer's fasttrap backend: probe sites armed through
 * the kernel module's /dev/dtrace/fasttrap (helper-driver/kmod,
 * sdk/fasttrap_abi.h), the classic fasttrap provider's job done by a
 * module.
 *
 * It is chosen when the device opens (the module is loaded) and
 * DTRACE_FASTTRAP=0 does not ask for uprobe events.  FASTTRAPIOC_ENABLE
 * arms one site (file descriptor, file offset, semaphore offset) in one
 * process, in all its threads at once, with the argument locations the
 * site's stapsdt note gives (else the SysV call registers and stack
 * slots) and which of them are strings to copy; the site's index in
 * c->ft.sites is its cookie, which every record carries back.  The
 * module writes struct ft_record (time, pid, tid, CPU, comm, arguments,
 * then the strings) into one buffer that read() drains whole records
 * from; a record that did not fit is counted (FASTTRAPIOC_STATS), so the
 * drops reported at the end are exact.  The module takes no user stacks:
 * a probe whose clauses read one (ustack(), ucaller) is refused.  FASTTRAPIOC_DISABLE stops every
 * site at the end; closing the device disarms them.
 *
 * Forked children.  A site that a non-pinning description (srv*) can
 * match (tprobe.wide, sites.c) puts every process running the file in
 * scope, forked children too, so it is armed with FT_FOLLOW: the module
 * follows the process's forks (children of children too, until an
 * exec) and writes an FT_COOKIE_FORK record before a child runs, which
 * ft_drain() hands to lin_fork(); a child's hit then carries its parent's
 * cookie and its own pid, and lin_hit_probe() finds the child's probe
 * (its own once it registered, else one derived from the parent's and
 * matched like any other).  When the child registers (drti.o's fork
 * handler), its sites are ENABLEd like any process's, and the module
 * answers 1 for a site it already follows there: nothing is armed a
 * second time, so every hit is one record.  A site only pinning
 * descriptions match (srv$target, -p, -c) is armed without FT_FOLLOW:
 * a child's inherited breakpoint is removed at its first hit, which
 * no description of ours matches anyway.  A module older than
 * FT_FOLLOW refuses the flag (EINVAL): the site is armed without it,
 * and a child's hits count only from when its own registration is
 * read and its sites armed, as that module allows.
 *
 * Exec.  Every site is armed with FT_EXEC: when its process, or a child
 * the module follows from it, execs, the module writes an
 * FT_COOKIE_EXEC record before the new image runs, and
 * proc_exec_reset() (lineage.c) has that process's probes found and
 * armed anew, the same file's too (its old sites went with the old
 * image).  ft_enable() holds the process still (freeze.c) and reads
 * the ring first, so an exec record is always taken before the new
 * image is armed, never after (which would arm it twice); held still,
 * too, no hit is lost between a semaphore going up and its breakpoint
 * being written, and no fork of the process is half done while a site
 * is registered.  A module older than FT_EXEC refuses the flag: the
 * site is armed without it, and a process that execs the file it had
 * armed is not armed again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "usdt/fasttrap_abi.h"
#include "stapsdt.h"

/*
 * Open /dev/dtrace/fasttrap when the module is loaded, unless
 * DTRACE_FASTTRAP=0 asks for the uprobe-events backend; -errno if not.
 */
static int ft_open(struct consumer *c)
{
	const char *e = getenv("DTRACE_FASTTRAP");

	c->ft.fd = -1;
	if (e && !strcmp(e, "0"))
		return -ENODEV;
#if defined(__aarch64__)
	/* helper-driver/kmod/Kbuild builds the module for x86-64 alone:
	 * its handler emulates x86 instructions and its argument
	 * registers are x86-64's (STAPSDT_REG_*); said only when asked
	 * for, as a missing module is no news */
	if (c->be_want)
		snprintf(c->be_why, sizeof(c->be_why),
			 "dtrace_fasttrap.ko is not built for arm64 (its "
			 "probe handler emulates x86-64 instructions)");
	return -ENODEV;
#endif
	c->ft.fd = open(FASTTRAP_DEVNAME, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (c->ft.fd < 0) {
		int err = -errno;

		if (errno != ENOENT && errno != ENXIO && errno != ENODEV)
			say(c, "cannot open %s: %s; using uprobe events",
			    FASTTRAP_DEVNAME, strerror(errno));
		return err;
	}
	/* forked children's hits come through FT_COOKIE_FORK records */
	c->lin.on = true;
	c->lin.exec_drops = false; /* lin_exec() is never called */
	return 0;
}

/* One stapsdt spec as the module fetches it; false when it cannot. */
static bool ft_arg_of(const struct stapsdt_arg *a, struct ft_arg *fa)
{
	unsigned size = a->size ? a->size : 8;

	memset(fa, 0, sizeof(*fa));
	if (a->is_float || size > 8 || a->reg_hi8)
		return false;
	fa->size = (uint8_t)size;
	fa->is_signed = a->is_signed;
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		if (a->reg < 0 || a->reg > STAPSDT_REG_RIP)
			return false;
		fa->kind = FT_LOC_REG;
		fa->reg = (uint8_t)a->reg;
		return true;
	case STAPSDT_ARG_MEM:
		if (a->index != STAPSDT_REG_NONE || a->sym || a->reg < 0 ||
		    a->reg >= STAPSDT_REG_RIP)
			return false;
		fa->kind = FT_LOC_MEM;
		fa->reg = (uint8_t)a->reg;
		fa->off = a->off;
		return true;
	case STAPSDT_ARG_CONST:
		if (a->sym)
			return false;
		fa->kind = FT_LOC_CONST;
		fa->off = a->off;
		return true;
	}
	return false;
}

/* Arm one site of p in pr through the module. */
static int ft_enable_site(struct consumer *c, struct tproc *pr,
			  struct tprobe *p, uint64_t off, bool isenabled)
{
	static const uint8_t sysv[] = {STAPSDT_REG_RDI, STAPSDT_REG_RSI,
				       STAPSDT_REG_RDX, STAPSDT_REG_RCX,
				       STAPSDT_REG_R8,	STAPSDT_REG_R9};
	struct tfile *f = p->file;
	const struct tnote *note = file_note_at(f, off);
	const char *args = site_args(note, off); /* USDT's: the note's */
	struct ft_enable en;
	unsigned n = 0;
	int rc;

	if (f->fd < 0) {
		f->fd = open(f->upath, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return -errno;
	}
	memset(&en, 0, sizeof(en));
	en.pid = pr->pid;
	en.fd = f->fd;
	en.offset = off;
	en.refctr = note ? note->sema_off : 0;
	en.cookie = c->ft.nsites;
	if (p->wide && !c->ft.nofollow) /* a child is in scope */
		en.flags = FT_FOLLOW;
	if (!c->ft.noexec) /* its exec is told: the new image armed anew */
		en.flags |= FT_EXEC;
	if (isenabled) {
		en.flags |= FT_ISENABLED;
	} else if (args && args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;

		while (n < FT_MAXARGS &&
		       stapsdt_arg_next(args, &cur, &a, &serr) == 1) {
			if (!(p->needs & (1u << n)) ||
			    !ft_arg_of(&a, &en.args[n]))
				memset(&en.args[n], 0, sizeof(en.args[n]));
			n++;
		}
	} else {
		for (; n < p->nargs && n < FT_MAXARGS; n++) {
			struct ft_arg *fa = &en.args[n];

			if (!(p->needs & (1u << n)))
				continue;
			fa->size = 8;
			if (n < 6) {
				fa->kind = FT_LOC_REG;
				fa->reg = sysv[n];
			} else {
				fa->kind = FT_LOC_MEM;
				fa->reg = STAPSDT_REG_RSP;
				fa->off = (int64_t)(n - 6) * 8;
			}
		}
	}
	en.nargs = (uint16_t)n;
	en.strmask = (uint16_t)(p->strmask & ((1u << n) - 1));
	rc = ioctl(c->ft.fd, FASTTRAPIOC_ENABLE, &en);
	if (rc < 0 && errno == EINVAL && en.flags & FT_EXEC) {
		/* a module older than FT_EXEC: no new image armed again */
		en.flags &= ~(uint32_t)FT_EXEC;
		rc = ioctl(c->ft.fd, FASTTRAPIOC_ENABLE, &en);
		c->ft.noexec = rc >= 0;
	}
	if (rc < 0 && errno == EINVAL && en.flags & FT_FOLLOW) {
		/* a module older than FT_FOLLOW: children as it treats them */
		en.flags &= ~(uint32_t)FT_FOLLOW;
		rc = ioctl(c->ft.fd, FASTTRAPIOC_ENABLE, &en);
		c->ft.nofollow = rc >= 0;
	}
	if (rc < 0)
		return -errno;
	if (rc == 1)
		return 0; /* followed from its parent already: armed there */
	c->ft.sites =
		xpush_room(c->ft.sites, c->ft.nsites, sizeof(*c->ft.sites));
	c->ft.sites[c->ft.nsites].p = p;
	c->ft.sites[c->ft.nsites++].off = off;
	return 0;
}

/* Enable p's sites in pr through the module; false and said on error. */
static bool ft_enable_probe(struct consumer *c, struct tproc *pr,
			    struct tprobe *p)
{
	if ((p->needs | p->fneeds) & D_NEED_USTACK) {
		/* the module copies arguments, never the stack */
		if (!c->enable_failed)
			say(c,
			    "cannot enable %s:%s:%s:%s: ustack(), ucaller and "
			    "uregs[] need each hit's user stack and "
			    "registers, which the fasttrap "
			    "backend (%s) does not take; DTRACE_FASTTRAP=0 "
			    "traces with uprobe events instead",
			    p->prov, p->mod, p->func, p->name,
			    FASTTRAP_DEVNAME);
		c->enable_failed = true;
		return false;
	}
	for (unsigned k = 0; k < p->noffs + p->nenoffs; k++) {
		bool en = k >= p->noffs;
		uint64_t off = en ? p->enoffs[k - p->noffs] : p->offs[k];
		int err = ft_enable_site(c, pr, p, off, en);

		if (err) {
			say(c,
			    "cannot enable %s:%s:%s:%s in pid %d at %s offset "
			    "0x%" PRIx64 ": %s",
			    p->prov, p->mod, p->func, p->name, (int)pr->pid,
			    p->file->path, off, strerror(-err));
			c->enable_failed = true;
			return false;
		}
	}
	return true;
}

/* Take every record the module has for us, into the arena. */
static void ft_drain(struct consumer *c)
{
	static uint8_t buf[1 << 18];

	for (;;) {
		ssize_t n = read(c->ft.fd, buf, sizeof(buf));
		size_t pos = 0;

		if (n <= 0)
			break;
		while (pos + sizeof(struct ft_record) <= (size_t)n) {
			struct ft_record r;
			struct hit h = {0};

			memcpy(&r, buf + pos, sizeof(r));
			if (r.size < sizeof(r) || r.size > (size_t)n - pos)
				break; /* cannot happen: whole records only */
			if (r.cookie == FT_COOKIE_FORK) {
				/* a followed process forked (not a hit) */
				lin_fork(c, (pid_t)r.args[0], r.pid, r.tid,
					 r.time);
				pos += r.size;
				continue;
			}
			if (r.cookie == FT_COOKIE_EXEC) {
				/* a watched process exec'd (not a hit) */
				struct tproc *pr = proc_find(c, r.pid);

				if (pr && !pr->exited)
					proc_exec_reset(c, pr);
				pos += r.size;
				continue;
			}
			c->received++;
			h.time = r.time;
			h.pid = (uint32_t)r.pid;
			h.tid = (uint32_t)r.tid;
			h.cpu = r.cpu;
			h.rawoff = arena_put(c, buf + pos, r.size);
			h.rawlen = r.size;
			hit_push(c, &h);
			pos += r.size;
		}
	}
}

/*
 * A record's site (by its cookie) and what the module fetched.  A
 * forked child's hit of a site followed from its parent (FT_FOLLOW)
 * carries the parent's cookie: the site is the same, and
 * lin_hit_probe() finds the probe of the process the record came from.
 */
static bool ft_decode(struct consumer *c, const struct hit *h,
		      struct d_fire *f, char *comm, size_t commlen,
		      struct hit_at *at)
{
	struct ft_record r;
	size_t spos = sizeof(r), n;

	if (h->rawlen < sizeof(r))
		return false;
	memcpy(&r, h->raw, sizeof(r));
	if (r.cookie >= c->ft.nsites)
		return false;
	at->file = c->ft.sites[r.cookie].p->file;
	at->off = c->ft.sites[r.cookie].off;
	n = strnlen(r.comm, sizeof(r.comm));
	snprintf(comm, commlen, "%.*s", (int)n, r.comm);
	f->cpu = (int)r.cpu;
	f->pid = r.pid;
	f->tid = r.tid;
	f->execname = comm;
	f->timestamp = r.time;
	for (unsigned i = 0; i < FT_MAXARGS && i < D_MAXARGS; i++) {
		f->arg[i] = r.args[i];
		if (r.strlen[i] && spos + r.strlen[i] <= h->rawlen) {
			f->str[i] = (const char *)h->raw + spos;
			f->strlen[i] = strnlen(f->str[i], r.strlen[i]);
			spos += r.strlen[i];
		}
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The backend */

/*
 * One call arms a site in every thread, but the process is held still
 * all the same (freeze.c): the kernel counts a site's semaphore up
 * before it writes the breakpoint, and may sleep in between, so a
 * process that waits for its is-enabled guard and fires at once would
 * take a NOP that nobody records; and a probe's later sites are armed
 * only after its semaphore is up.
 */
static void ft_enable(struct consumer *c, struct tproc *pr)
{
	struct frozen *fz = NULL;
	size_t nfz = 0;

	if (!pr->held)
		nfz = proc_freeze(pr->pid, &fz, 0);
	/*
	 * An exec of pr is told before its new image runs: with pr held,
	 * what is in the ring has every exec before now, and its record
	 * (proc_exec_reset()) is taken before the new image is armed, never
	 * after, which would arm it a second time.
	 */
	drain_buffers(c);
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		p->enabled = true;
		(void)ft_enable_probe(c, pr, p);
	}
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
}

static size_t ft_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	if (!pfd)
		return c->ft.fd >= 0;
	if (c->ft.fd < 0 || !max)
		return 0;
	pfd[0] = (struct pollfd){.fd = c->ft.fd, .events = POLLIN};
	return 1;
}

/*
 * Nothing to give back: the module forgets a process's sites when it
 * exits, and its records still buffered no longer match p->pid (-1).
 */
static void ft_proc_exit(struct consumer *c, struct tproc *pr)
{
}

static void ft_stop(struct consumer *c)
{
	if (c->ft.fd >= 0)
		(void)ioctl(c->ft.fd, FASTTRAPIOC_DISABLE, 0);
}

/* Every hit is a record written or a drop: the count is exact. */
static void ft_stats(struct consumer *c)
{
	struct ft_stats st;

	if (c->ft.fd >= 0 && ioctl(c->ft.fd, FASTTRAPIOC_STATS, &st) == 0 &&
	    st.drops)
		say(c,
		    "%" PRIu64 " drops (records the module's buffer could "
		    "not hold)",
		    st.drops);
}

/* Closing the device disarms whatever is still armed. */
static void ft_close(struct consumer *c)
{
	if (c->ft.fd >= 0)
		close(c->ft.fd);
	c->ft.fd = -1;
}

const struct consumer_backend_ops consumer_fasttrap_ops = {
	.name = "fasttrap module",
	.key = "fasttrap",
	.caps = 0, /* USDT sites alone: no uretprobes, no BPF */
	.open = ft_open,
	.enable = ft_enable,
	.poll_fds = ft_poll_fds,
	.drain = ft_drain,
	.decode = ft_decode,
	.proc_exit = ft_proc_exit,
	.stop = ft_stop,
	.stats = ft_stats,
	.close = ft_close,
};
