// SPDX-License-Identifier: MIT
/*
 * bpf_attach.c - the bpf backend's program attached to each uprobe event
 * uprobe.c makes (ev_new(), its c->up.event_new), and detached at the end
 * (links_destroy()).  bpf.c loads the programs and reads what they write.
 *
 * Everything uprobe.c does to arm a site is done by uprobe.c itself
 * (up_open(), up_enable()): one tracefs uprobe event per site, with the
 * semaphore as its reference counter, and either system-wide perf
 * events (pid -1, per CPU) that arm it binary-wide, for a site a glob
 * such as srv* matches, or per-thread perf events with inherit = 1,
 * which make the kernel install the breakpoint in the traced processes
 * only.  Here those perf events scope the breakpoints and nothing else
 * (c->up.scope_only: one per thread on any CPU, no perf ring buffer).
 * When uprobe.c creates an event it hands it to ev_new(), which attaches
 * the program to it.  The kernel keeps a uprobe event's BPF programs in
 * the event's trace_event_call (prog_array), shared by every perf event
 * of that event, and runs them on each hit before it would make a perf
 * sample, which it does not when they return 0
 * (kernel/trace/trace_uprobe.c, __uprobe_perf_func); attaching once per
 * perf event would run the program once per perf event.  So the program
 * is attached once per uprobe event, as a bpf_link whose bpf_cookie is
 * the event's index, on an "anchor" perf event opened for dtrace itself,
 * which lives as long as the run (a traced thread's events close when
 * it exits).  The anchor puts dtrace's own address space in the event's
 * filter, which matters only if dtrace runs the probed code (a libc
 * probe): the program drops dtrace's hits.
 *
 * The program is the event's own generated one (cg_ev_new(), cgen.c),
 * or the generic usdt_hit with the event's entry in the map evspec
 * (bpf.c says which a run takes).
 *
 * Site links.  The anchor's close at the end is the uprobe's
 * unregistration under the kernel's event_mutex, after the link's
 * detach: 64-100 ms and 20-63 ms of a -c run's start to exit on 6.18
 * (bench/RESULTS.md).  So a site uprobe.c finds fit (link_fits(): only
 * the process's own pinned probes there, a -c command or -p process
 * whose exec dtrace stops at, no perf events of a uprobe event of the
 * process's there, an earlier image's, whose filter still takes it)
 * gets no uprobe event at all: uprobe_ev.c makes its event
 * without tracefs (up_event_link()) and site_link() attaches the
 * event's generated program, loaded as a uprobe_multi program (a program
 * of that kind attaches to no perf event, and the other kind to no
 * link) with the event's index and its process's pid as immediates
 * (cg_prog(): the program is the event's alone; cgen.c reads no cookie
 * and, where it can, no pid_tgid before the record; for the run's
 * first CG_OWN links, past which they share one again), by one
 * uprobe_multi link with the process's pid, the
 * semaphore's offset as reference counter and the event's index as
 * cookie.  The kernel then installs the breakpoint in that process
 * alone and counts its semaphore up there.  Linux 6.12 on
 * (dlhold_multi_wanted(): the pid filter is the thread group's), and
 * not under DTRACE_SITE_LINKS=0 or the generic program.  The link is
 * the process's only: a forked child's hits are not run (exact because
 * no description counts them, link_fits()); it is closed at the
 * process's exec stop (dlhold.c: a leader's exec would leave it arming
 * the new image as well as the image's own arming), when the exec is
 * read (bpf.c's proc_exec), by a thread when the process exits
 * (site_unlink()), when its sites go over to uprobe events
 * (up_site_relink(): a leader gone before its threads, a -c command
 * dlhold.c could not take), and with the anchors at the end.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/kagg_bpf.h"
#include "bpf_impl.h"
#include "consumer_impl.h"

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
				int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

/* The first enabled probe at e's site (the plan compiled in is its). */
static struct tprobe *probe_at_event(struct consumer *c, struct tevent *e)
{
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];

		if (!p->enabled || p->file != e->file)
			continue;
		for (unsigned s = 0; s < p->noffs; s++)
			if (p->offs[s] == e->off)
				return p;
	}
	return NULL;
}

/* Keep event idx's anchor an until the run ends (slots between unused). */
static void anchor_keep(struct consumer_bpf *b, size_t idx,
			struct bpf_anchor an)
{
	xgrow(&b->anchors, &b->anchors_cap, idx, sizeof(*b->anchors));
	for (size_t i = b->nanchors; i < idx; i++)
		b->anchors[i] = (struct bpf_anchor){-1, NULL, -1};
	b->anchors[idx] = an;
	if (idx + 1 > b->nanchors)
		b->nanchors = idx + 1;
}

/*
 * The anchor of event e (see the top of this file): a disabled perf event
 * of the uprobe event for dtrace itself, which the program is attached
 * to and which lives as long as the run.  Its descriptor, or -1.
 */
static int ev_anchor_open(const struct tevent *e)
{
	struct perf_event_attr a = {0};

	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)e->tp;
	a.sample_period = 1;
	a.disabled = 1;
	return (int)sys_perf_event_open(&a, getpid(), -1, -1,
					PERF_FLAG_FD_CLOEXEC);
}

/*
 * The argument specs of event e, number idx, as both programs read
 * them: 0, or -E2BIG having said there are too many sites.
 */
static int ev_spec_make(struct consumer *c, struct tevent *e, size_t idx,
			struct ubpf_ev *spec)
{
	if (idx >= UBPF_MAXEV) {
		say(c, "more than %u probe sites in one run", UBPF_MAXEV);
		return -E2BIG;
	}
	ev_spec(e, spec);
	ev_mem(c, e, spec);
	if (e->needs & D_NEED_USTACK) /* ustack.c unwinds the copy */
		spec->ustk = (uint8_t)(ustack_size(c) / 1024);
	ev_ctx(e, spec);
	return 0;
}

/*
 * Event e's plan pl, whose clauses keeping self-> do not fit it (why in
 * c->be_why), made the plan that keeps the processes firing it in user
 * space (bpf_agg_cgen.c's "Unfit events"): false where it cannot be
 */
static bool unfit_stub(struct consumer *c, struct tevent *e,
		       struct ubpf_kplan *pl)
{
	if (!bpf_kagg_unfit_stub(c, c->bpf->kagg, pl))
		return false;
	if (c->o->verbose)
		say(c,
		    "BPF: %s; the processes that fire uprobe event %s keep "
		    "their self-> variables in user space, each hit of "
		    "theirs a record",
		    c->be_why, e->name);
	c->be_why[0] = '\0';
	return true;
}

/* site links whose program is their own: the run's first so many */
enum { CG_OWN = 256 };

/*
 * The program generated for event e, number idx, loaded for a perf
 * event or (multi) a uprobe_multi link, its plan installed: its fd,
 * -ENOEXEC when it is the run's first and the generator or the kernel
 * refused it (ev_new() then takes the generic program for the whole
 * run), or -EINVAL after saying why.
 */
static int cg_prog(struct consumer *c, struct tevent *e, size_t idx, bool multi)
{
	struct consumer_bpf *b = c->bpf;
	/* a site link's program is its event's alone: its index, its pid */
	struct cgen_maps m = b->cgm;
	struct ubpf_ev spec;
	struct ubpf_kplan *pl = NULL, *xpl = NULL;
	struct tprobe *p;
	struct bpf_insn *v;
	/* no program attached yet, a kernel probe's included */
	bool first = b->nanchors == 0 && !b->cg_kp;
	size_t n;
	int fd;
	bool hzfree = false;

	if (ev_spec_make(c, e, idx, &spec) < 0)
		return -E2BIG;
	if (c->cohold) /* copyout(): its hit held (cgen_rec.c's u_hold()) */
		ev_copyout(c, e, &spec);
	/* the run's first CG_OWN links only: past them the program is
	 * shared again (each of its own is a load, ~0.2 ms of system time) */
	if (multi && b->nlinks < CG_OWN) {
		m.ev1 = (uint32_t)idx + 1;
		m.lpid = e->lpid > 0 ? (uint32_t)e->lpid : 0;
	}
	if (b->kagg && (p = probe_at_event(c, e))) {
		bool any;

		pl = xcalloc(1, sizeof(*pl));
		any = bpf_kagg_plan(c, b->kagg, p, pl);
		if (pl->tls & UBPF_KTLS_UNFIT) {
			char what[sizeof(e->name) + 16];

			snprintf(what, sizeof(what), "uprobe event %s",
				 e->name);
			bpf_kagg_unfit(c, b->kagg, what);
			/* its processes user space's instead
			 * (bpf_agg_cgen.c's "Unfit events") */
			if (!unfit_stub(c, e, pl)) {
				free(pl);
				goto refused;
			}
			any = true;
		}
		if (!any) {
			free(pl);
			pl = NULL;
		}
		/* its exit() tests (kplan_exit.c's "exit() at a traced
		 * probe") */
		xpl = xcalloc(1, sizeof(*xpl));
		if (bpf_kagg_xplan(c, b->kagg, &p->dp, p->clauses, p->nclauses,
				   xpl) < 0) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "the exit() tests of uprobe event %s do not "
				 "fit one plan",
				 e->name);
			free(pl);
			goto refused;
		}
		if (xpl->nops) {
			int xs = bpf_kagg_xscope(c, b->kagg, p);

			if (xs < 0) {
				snprintf(c->be_why, sizeof(c->be_why),
					 "the exit() clauses of uprobe event "
					 "%s fire in some processes' probes "
					 "and not others' (a provider glob "
					 "naming some pids), which one test "
					 "at the hit cannot tell",
					 e->name);
				free(pl);
				goto refused;
			}
			m.xpid = (uint32_t)xs;
		}
		m.xpl = xpl;
	}
	/*
	 * a plan the generator refuses: every hit recorded, unless it
	 * keeps self-> variables, which user space does not have, or the
	 * run's speculations are the kernel's (kplan_spec.c): an unflagged
	 * record's speculating clauses are not run (records.c's hit_run())
	 */
	m.hzfree = &hzfree;
	if (!cgen_emit(&m, &spec, pl, &v, &n)) {
		if (pl && pl->tls) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "no program generated for uprobe event %s, "
				 "whose clauses keep self-> variables in the "
				 "kernel",
				 e->name);
			if ((pl->tls & UBPF_KTLS_UNFIT) ||
			    !unfit_stub(c, e, pl) ||
			    !cgen_emit(&m, &spec, pl, &v, &n)) {
				free(pl);
				goto refused;
			}
		} else if (pl && bpf_kspec_on(c)) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "no program generated for uprobe event %s, "
				 "and the run's speculations are the kernel's",
				 e->name);
			free(pl);
			goto refused;
		} else {
			/* said: the -v counts are the plans loaded, and a
			 * planner and generator that disagree (sfit,
			 * ukeyf) hid here */
			if (pl && c->o->verbose)
				say(c,
				    "BPF: no program generated for uprobe "
				    "event %s with its plan; every hit "
				    "recorded instead",
				    e->name);
			free(pl);
			pl = NULL;
			if (!cgen_emit(&m, &spec, NULL, &v, &n)) {
				snprintf(c->be_why, sizeof(c->be_why),
					 "no program generated for uprobe "
					 "event %s",
					 e->name);
				goto refused;
			}
		}
	}
	free(xpl); /* compiled in */
	xpl = NULL;
	fd = multi ? cg_load_multi(c, v, n) : cg_load(c, v, n);
	if (fd < 0) {
		free(pl);
		goto refused;
	}
	if (pl)
		bpf_kagg_cgen_plan(b->kagg, (uint32_t)idx, pl);
	if (hzfree) /* the lease spares its clock (-v) */
		kprov_hzfree(c);
	free(pl);
	return fd;
refused:
	free(xpl);
	if (first)
		return -ENOEXEC;
	say(c, "cannot trace uprobe event %s/%s: %s", c->up.group, e->name,
	    c->be_why);
	return -EINVAL;
}

/*
 * Event e, number idx, with a program generated for it: -ENOEXEC when
 * it is the run's first and the generator or the kernel refused it.
 */
static int cg_ev_new(struct consumer *c, struct tevent *e, size_t idx)
{
	struct consumer_bpf *b = c->bpf;
	struct bpf_anchor an = {-1, NULL, -1};
	int fd = cg_prog(c, e, idx, false), err;

	if (fd < 0)
		return fd;
	an.fd = ev_anchor_open(e);
	if (an.fd < 0)
		goto fail;
	{
		LIBBPF_OPTS(bpf_link_create_opts, lo,
			    .perf_event.bpf_cookie = idx);

		an.lfd = bpf_link_create(fd, an.fd, BPF_PERF_EVENT, &lo);
	}
	if (an.lfd < 0 || ioctl(an.fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		goto fail;
	anchor_keep(b, idx, an);
	return 0;
fail:
	err = errno ? -errno : -EINVAL;
	if (!site_refused(c, e->file, e->off, err))
		say(c, "cannot attach the BPF program to uprobe event %s/%s: "
		       "%s",
		    c->up.group, e->name, strerror(-err));
	if (an.lfd >= 0)
		close(an.lfd);
	if (an.fd >= 0)
		close(an.fd);
	return err;
}

/*
 * Whether this run arms sites with links: DTRACE_SITE_LINKS=0 says no,
 * and so does what keeps dlhold.c from its uprobe_multi link (a kernel
 * before 6.12, whose link filters by the leader thread or by mm, or
 * DTRACE_UPROBE_MULTI=0), and a kernel that refused one.
 */
static bool links_wanted(struct consumer *c)
{
	const char *k = getenv("DTRACE_SITE_LINKS");

	return !c->bpf->links_no && !(k && !strcmp(k, "0")) &&
	       dlhold_multi_wanted();
}

/*
 * uprobe.c's site e, number idx, armed for e->lpid alone: its generated
 * program loaded for a uprobe_multi link on the site, with the
 * semaphore as reference counter and idx as cookie.  -ENOEXEC: the site
 * takes a uprobe event (no links or no generated programs this run, or
 * the kernel refused the link: uprobe events from then on, -v says).
 */
static int site_link(struct consumer *c, struct tevent *e, size_t idx)
{
	struct consumer_bpf *b = c->bpf;
	const struct tnote *note = file_note_at(e->file, SITE_OFF(e->off));
	uint64_t off = SITE_OFF(e->off), ref = note ? note->sema_off : 0;
	uint64_t cookie = idx;
	struct umulti_attr a;
	int fd, lfd;

	if (!b || !links_wanted(c))
		return -ENOEXEC;
	if (!b->ready && !b->cg_tried)
		cg_try(c);
	if (!b->cg_on)
		return -ENOEXEC;
	fd = cg_prog(c, e, idx, true);
	if (fd < 0)
		return fd;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)fd;
	a.attach_type = UMULTI_ATTACH;
	a.path = (uint64_t)(uintptr_t)e->file->upath;
	a.offsets = (uint64_t)(uintptr_t)&off;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)&ref;
	a.cookies = (uint64_t)(uintptr_t)&cookie;
	a.cnt = 1;
	a.pid = (uint32_t)e->lpid;
	lfd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	if (lfd < 0) {
		if (c->o->verbose)
			say(c, "BPF: no site link (%s): uprobe events",
			    strerror(errno));
		b->links_no = true;
		return -ENOEXEC;
	}
	anchor_keep(b, idx, (struct bpf_anchor){-1, NULL, lfd});
	b->nlinks++;
	return 0;
}

/*
 * pid's site links closed: now, before it runs on (its exec stop, or
 * its sites armed as uprobe events instead, up_site_relink()), or by
 * the closer while the run goes on and after it (it exited, so nothing
 * can hit them: fdclose.c's close_after()).
 */
static size_t site_unlink(struct consumer *c, pid_t pid, bool later)
{
	struct consumer_bpf *b = c->bpf;
	int *fds;
	size_t n = 0;

	if (!b)
		return 0;
	fds = xcalloc(c->up.nevs + 1, sizeof(*fds));
	for (size_t i = 0; i < c->up.nevs; i++) {
		if (c->up.evs[i]->lpid != pid)
			continue;
		c->up.evs[i]->lpid = -1;
		if (i < b->nanchors && b->anchors[i].lfd >= 0) {
			fds[n++] = b->anchors[i].lfd;
			b->anchors[i].lfd = -1;
		}
	}
	if (later)
		close_after(fds, n);
	else
		close_many(fds, n);
	free(fds);
	return n;
}

/* pr's sites are uprobe events now: their plans installed, pr held */
static void site_relinked(struct consumer *c, struct tproc *pr)
{
	if (c->bpf)
		bpf_kagg_enable(c, c->bpf->kagg, pr);
}

void site_links_on(struct consumer *c)
{
	c->up.site_link = site_link;
	c->up.site_unlink = site_unlink;
	c->up.site_relinked = site_relinked;
}

/* uprobe.c made event e, number idx: attach the program to it. */
int ev_new(struct consumer *c, struct tevent *e, size_t idx)
{
	struct consumer_bpf *b = c->bpf;
	struct ubpf_ev spec;
	uint32_t key = (uint32_t)idx;
	struct bpf_anchor an = {-1, NULL, -1};
	int err;

	if (!b->ready && !b->cg_tried)
		cg_try(c);
	if (b->cg_on) {
		err = cg_ev_new(c, e, idx);
		if (err != -ENOEXEC)
			return err;
		/* the first program refused: the generic one, saying why */
		if (c->o->verbose)
			say(c, "BPF: %s; the generic program instead",
			    c->be_why);
		c->be_why[0] = '\0';
		cg_off(c);
		kprov_cg_reset(c); /* theirs were closed with the rest */
	}
	if (!b->ready && !b->fix_tried)
		fix_try(c, e);
	if (!bpf_be_object(c))
		return -EINVAL;
	/* hits of the new event take the plans' path until checked */
	bpf_kfix_off(b->kagg);
	if (ev_spec_make(c, e, idx, &spec) < 0)
		return -E2BIG;
	ev_copyout(c, e, &spec);
	if (bpf_map_update_elem(b->evspec_fd, &key, &spec, BPF_ANY) < 0)
		goto fail;
	an.fd = ev_anchor_open(e);
	if (an.fd < 0)
		goto fail;
	{
		LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = idx);

		an.link = bpf_program__attach_perf_event_opts(b->prog, an.fd,
							      &po);
	}
	if (!an.link)
		goto fail;
	anchor_keep(b, idx, an);
	return 0;
fail:
	err = -errno;
	if (!site_refused(c, e->file, e->off, err))
		say(c, "cannot attach the BPF program to uprobe event %s/%s: "
		       "%s",
		    c->up.group, e->name, strerror(errno));
	if (an.fd >= 0)
		close(an.fd);
	return err ? err : -EINVAL;
}

void links_destroy(struct consumer_bpf *b)
{
	int *fds = xcalloc(2 * b->nanchors + 1, sizeof(*fds));
	size_t n = 0;

	for (size_t i = 0; i < b->nanchors; i++) {
		struct bpf_link *l = b->anchors[i].link;
		int fd = b->anchors[i].fd;

		if (fd >= 0)
			(void)ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (l) {
			int lfd = bpf_link__fd(l);

			bpf_link__disconnect(l);
			bpf_link__destroy(l);
			if (lfd >= 0 && lfd != fd)
				fds[n++] = lfd;
		} else if (b->anchors[i].lfd >= 0) {
			fds[n++] = b->anchors[i].lfd;
		}
		b->anchors[i].lfd = -1;
		if (fd >= 0)
			fds[n++] = fd;
		b->anchors[i].link = NULL;
		b->anchors[i].fd = -1;
	}
	close_many(fds, n);
	free(fds);
}
