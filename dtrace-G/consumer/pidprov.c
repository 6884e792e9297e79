// SPDX-License-Identifier: MIT
/*
 * pidprov.c - the pid provider: probes on any function of a traced
 * process, at its entry, its return, or one of its instructions, armed
 * with the same uprobe events as USDT sites (uprobe.c, bpf.c).
 *
 *	pid$target:a.out:main:entry	the executable's main is called
 *	pid4242:libc.so.6:getpid:return	getpid returns (arg1: its value)
 *	pid$target:a.out:work:1a	the instruction at work + 0x1a
 *	pid$target:libc.so.6:str*:entry	a glob over any field but the pid
 *
 * Which probes.  A description whose provider is pid<N> (after $target
 * is expanded) selects functions of process N: pid_prepare() grabs N
 * like a -p target (without making dtrace exit when it does), and every
 * time sites.c sees N map a file (proc_refresh(), at start and as it
 * dlopen()s) pid_proc_file() reads the file's functions once, through
 * the open sites.c made of it (file_get(): one open per file for every
 * reader; ../pidfuncs.c: both symbol tables, one probe per address, offsets
 * checked against the instruction boundaries) and makes a probe record
 * per probe point the descriptions select there, provider "pid<N>",
 * module the file's name, which clause matching (sites.c) then treats
 * like any other, with the other names the probe answers to: "a.out" for
 * the executable and its function's other symbols.  Only descriptions
 * naming the process make pid probes, as in DTrace: pid*:::entry or
 * :::entry matches the pid probes other descriptions made, and no more.
 *
 * Sites.  A probe's site is a site key (consumer_impl.h) with its kind
 * in the top byte, so an entry probe, an offset-0 probe and a USDT site
 * at one address are distinct uprobe events; site_args() says what each
 * kind fetches, as stapsdt argument specs, which both backends already
 * turn into tracefs fetch arguments or the BPF program's evspec:
 *
 *	entry	arg0..arg5 %rdi %rsi %rdx %rcx %r8 %r9 (SysV x86-64),
 *		arg6..arg11 the stack slots above the return address;
 *		on aarch64 arg0..arg7 x0-x7 (AAPCS64), arg8..arg11 the
 *		stack slots at sp (the return address is in x30)
 *	offset	arg0..arg5 (aarch64: arg0..arg7) the same registers, as
 *		they are there
 *	return	a uretprobe ("r:" event): arg1 %rax (aarch64: x0), the
 *		return value; arg0, in DTrace the offset of the returning
 *		instruction, is 0: a uretprobe fires in the caller, after
 *		the return, and cannot say which ret it was (as Oracle's
 *		Linux DTrace)
 *
 * The specs are in the syntax of this machine's notes (consumer/arch.h's
 * arch_arg_next() reads them).  args[N] are arg N, typed int64_t.
 * Kernel-side aggregation (bpf_agg.c) works unchanged: a plan reads the
 * same evspec.
 *
 * dtrace -l.  pid_list(), the table's list: the probe points each
 * description naming a process selects there, each once, as rows with
 * DTrace's pid provider attributes, which list.c numbers and prints
 * after the registry's.
 *
 * Scope.  Pid probes are always their process's own: never armed
 * binary-wide (sites.c: a pid probe is never wide, whatever other
 * description matches it), and a forked child gets none (DTrace's
 * fasttrap takes its tracepoints out of a child): the child inherits
 * the per-thread events like any site's, but its hits are nobody's
 * probe (probe_at_site() derives no pid probe) and are dropped.
 *
 * Limits.  A glob over all of libc (pid$target::*:entry: some 2,300
 * functions with the executable and ld.so) is armed whole, as DTrace
 * does; past PID_MAXSITES probe sites in one run (the BPF backend's
 * events, UBPF_MAXEV, less room for USDT sites) the description is
 * refused with its count and makes no probe, and the run stops before
 * tracing starts, as for an offset inside an instruction or a name that
 * is no probe point.  Arming is quick (about a millisecond a site), but
 * on Linux 6.18 removing a uprobe waits for an RCU grace period under
 * the kernel's event_mutex, one site after the other (measured 40 to
 * 100 ms a site on the 2-CPU VM, so 2,000 sites take minutes to stop):
 * past PID_SLOWSITES sites dtrace says so when it arms them.  A site
 * whose instruction the kernel cannot probe (a lock-prefixed first
 * instruction, pthread_spin_lock's; on arm64 an exclusive load or store,
 * ldxr/stxr) is left out with a warning, not an error, so a glob over a
 * library still traces the rest.  The fasttrap
 * module arms no pid probes: a run that has some uses the BPF or uprobe
 * backend instead, and says so (its table's needs: BE_CAP_UPROBES).
 *
 * Its table (prov_pid, struct provider, at the end): prepare() is
 * pid_prepare(), file() pid_proc_file(), site_args() and refused() the
 * above; pinned, so sites.c arms none binary-wide and derives none for
 * a child; SITE_PID_RETURN is its return probe kind.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../objects/pidfuncs.h"
#include "../objects/probes.h"
#include "consumer_impl.h"
#include "procfs.h"

#define PID_MAXSITES 4000
/* past this many sites, dtrace warns that stopping will take a while */
#define PID_SLOWSITES 200
/*
 * How the kernel refuses a uprobe on an instruction it cannot probe
 * (arch_uprobe_analyze_insn()): x86-64's says ENOTSUPP (524, the
 * kernel's own errno); arm64's says EINVAL for the instructions its
 * decoder rejects, and otherwise only for an address that is not
 * 4-aligned, which a pid site never is (pidfuncs.c).
 */
#if defined(__aarch64__)
#define KERNEL_INSN_REFUSED (-EINVAL)
#else
#define KERNEL_INSN_REFUSED (-524)
#endif

/* A description naming a process. */
struct piddesc {
	const struct dt_desc *d;
	pid_t pid;
	bool failed; /* said why; no more probes from it */
};

struct pidprov {
	struct piddesc *d;
	size_t nd;
	struct {
		pid_t pid;
		const struct tfile *f;
	} *done; /* (process, file) pairs read */
	size_t ndone;
	unsigned nsites;
	bool capped;
	bool slow_warned;
	struct {
		const struct tfile *f;
		uint64_t key;
	} *refused; /* sites the kernel refused, said once each */
	size_t nrefused;
};

/*
 * What a site of each kind fetches.  A pid probe at a USDT site is its
 * own site (its own kind), so note, which is the USDT site's, is not
 * what it fetches.
 */
static const char *pid_site_args(const struct tnote *note, uint64_t key)
{
	(void)note;
	switch (SITE_KIND(key)) {
#if defined(__aarch64__)
	case SITE_PID_ENTRY:
		return "8@x0 8@x1 8@x2 8@x3 8@x4 8@x5 8@x6 8@x7 "
		       "8@[sp] 8@[sp, 8] 8@[sp, 16] 8@[sp, 24]";
	case SITE_PID_OFFSET:
		return "8@x0 8@x1 8@x2 8@x3 8@x4 8@x5 8@x6 8@x7";
	case SITE_PID_RETURN:
		return "8@#0 8@x0";
#else
	case SITE_PID_ENTRY:
		return "8@%rdi 8@%rsi 8@%rdx 8@%rcx 8@%r8 8@%r9 "
		       "8@8(%rsp) 8@16(%rsp) 8@24(%rsp) 8@32(%rsp) "
		       "8@40(%rsp) 8@48(%rsp)";
	case SITE_PID_OFFSET:
		return "8@%rdi 8@%rsi 8@%rdx 8@%rcx 8@%r8 8@%r9";
	case SITE_PID_RETURN:
		return "8@$0 8@%rax";
#endif
	}
	return NULL;
}

static bool pid_site_refused(struct consumer *c, const struct tfile *f,
			     uint64_t key, int err)
{
	struct pidprov *pp = c->pid;

	if (!pp || SITE_KIND(key) == SITE_USDT || err != KERNEL_INSN_REFUSED)
		return false;
	for (size_t i = 0; i < pp->nrefused; i++)
		if (pp->refused[i].f == f && pp->refused[i].key == key)
			return true;
	pp->refused =
		xpush_room(pp->refused, pp->nrefused, sizeof(*pp->refused));
	pp->refused[pp->nrefused].f = f;
	pp->refused[pp->nrefused++].key = key;
	for (size_t i = 0; i < c->nprobes; i++) {
		const struct tprobe *p = c->probes[i];

		if (p->file == f && p->noffs && p->offs[0] == key) {
			say(c,
			    "warning: %s:%s:%s:%s is not traced: the kernel's "
			    "uprobes cannot probe the instruction at %s "
			    "offset 0x%" PRIx64,
			    p->prov, p->mod, p->func, p->name, f->path,
			    SITE_OFF(key));
			break;
		}
	}
	return true;
}

/*
 * Pid probes are uprobe events (BE_CAP_UPROBES); the fasttrap module
 * fetches what notes describe at plain sites and has no uretprobes.  A
 * run with pid probes on a backend without them takes the next that has
 * them, as backend_choose() would have without it, unless DTRACE_BACKEND
 * asked for that one.
 */
static int pid_backend(struct consumer *c)
{
	const struct consumer_backend_ops *old = c->be;

	if ((c->be->caps & prov_pid.needs) == prov_pid.needs)
		return 0;
	if (c->be_want) {
		say(c,
		    "DTRACE_BACKEND=%s: the %s arms no pid probes (use bpf "
		    "or uprobe)",
		    c->be_want, c->be->name);
		return -1;
	}
	(void)backend_next(c, prov_pid.needs);
	if (!d_opt_quiet(c->prog))
		say(c, "the %s arms no pid probes: using the %s backend",
		    old->name, c->be->name);
	return 0;
}

static int pid_prepare(struct consumer *c)
{
	struct pidprov *pp = NULL;

	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];
			pid_t pid = dt_pid_desc(d);
			struct piddesc pd = {d, pid, false};

			if (!pid)
				continue;
			if (!pp)
				pp = xcalloc(1, sizeof(*pp));
			PUSH(pp->d, pp->nd, pd);
			if (proc_find(c, pid) || proc_add(c, pid, false))
				continue;
			say(c, "invalid probe specifier %s: failed to grab pid "
			       "%d: %s",
			    d->text, (int)pid, strerror(errno));
			c->pid = pp;
			return -1;
		}
	c->pid = pp;
	return pp ? pid_backend(c) : 0;
}

/* What pid_proc_file() hands each probe point. */
struct point_ctx {
	struct consumer *c;
	struct tproc *pr;
	struct tfile *f;
	struct piddesc *pd;
	const char *mod;
	bool is_exe;
};

static int point_probe(const struct dt_pidpoint *pt, void *arg)
{
	static const unsigned kind[] = {
		[DT_PID_ENTRY] = SITE_PID_ENTRY,
		[DT_PID_RETURN] = SITE_PID_RETURN,
		[DT_PID_OFFSET] = SITE_PID_OFFSET,
	};
	static const unsigned nargs[] = {
		[SITE_PID_ENTRY] = 12,
		[SITE_PID_RETURN] = 2,
		[SITE_PID_OFFSET] = 6,
	};
	struct point_ctx *x = arg;
	struct consumer *c = x->c;
	unsigned k = kind[pt->kind];
	uint64_t key = SITE_KEY(k, pt->fn->off + pt->off);
	char prov[32];
	struct tprobe *p;

	for (size_t i = 0; i < c->nprobes; i++) {
		p = c->probes[i];
		if (p->pid == x->pr->pid && p->file == x->f &&
		    p->pidkind == k && p->noffs && p->offs[0] == key)
			return 0; /* another description made it */
	}
	c->pid->nsites++;
	snprintf(prov, sizeof(prov), "pid%d", (int)x->pr->pid);
	p = probe_make(c, x->pr->pid, xstrdup("pid"), xstrdup(prov),
		       probe_name_dup(x->mod), probe_name_dup(pt->fn->name),
		       xstrdup(pt->name), x->f, nargs[k], NULL);
	p->pidkind = k;
	p->malias = x->is_exe ? "a.out" : NULL;
	p->falias = pt->fn->alias;
	p->nfalias = pt->fn->nalias;
	PUSH(p->offs, p->noffs, key);
	probe_match(c, p);
	return 0;
}

static int count_point(const struct dt_pidpoint *pt, void *arg)
{
	(void)pt;
	++*(unsigned *)arg;
	return 0;
}

/*
 * Every probe point d selects in pf, to each(); the first error stops
 * it (msg says it).
 */
static int desc_points(const struct dt_pidfile *pf, const struct dt_desc *d,
		       int (*each)(const struct dt_pidpoint *pt, void *arg),
		       void *arg, char *msg, size_t msglen)
{
	int err = 0;

	for (size_t k = 0; k < pf->nfn && !err; k++)
		if (dt_pidfunc_match(&pf->fn[k], d->func))
			err = dt_pid_points(pf, &pf->fn[k], d->name, each, arg,
					    msg, msglen);
	return err;
}

static bool is_exe_of(pid_t pid, const struct tfile *f)
{
	char p[64];
	struct stat st;

	(void)proc_path(p, sizeof(p), pid, "exe");
	return stat(p, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
}

static void pid_proc_file(struct consumer *c, struct tproc *pr, struct tfile *f)
{
	struct pidprov *pp = c->pid;
	struct point_ctx x = {c, pr, f, NULL, NULL, false};
	const char *slash;
	bool any = false;
	char msg[512];

	if (!pp || pp->capped)
		return;
	for (size_t i = 0; i < pp->ndone; i++)
		if (pp->done[i].pid == pr->pid && pp->done[i].f == f)
			return;
	pp->done = xpush_room(pp->done, pp->ndone, sizeof(*pp->done));
	pp->done[pp->ndone].pid = pr->pid;
	pp->done[pp->ndone++].f = f;
	slash = strrchr(f->path, '/');
	x.mod = slash ? slash + 1 : f->path;
	x.is_exe = is_exe_of(pr->pid, f);
	for (size_t i = 0; i < pp->nd && !any; i++)
		any = pp->d[i].pid == pr->pid && !pp->d[i].failed &&
		      dt_pid_mod_match(pp->d[i].d->mod, f->path, x.is_exe);
	if (!any)
		return;
	if (!f->pidf) {
		int rerr;

		f->pidf = xcalloc(1, sizeof(*f->pidf));
		/* through the open file_get() made, when it is still open */
		if (f->of)
			rerr = dt_pidfile_read_of(f->pidf, f->of, msg,
						  sizeof(msg));
		else
			rerr = dt_pidfile_read(f->pidf, f->upath, msg,
					       sizeof(msg));
		if (rerr == -ENOMEM)
			xoom();
	}
	/*
	 * Each description is counted and checked first: one that fails
	 * or would pass the cap makes no probe at all.
	 */
	for (size_t i = 0; i < pp->nd && !pp->capped; i++) {
		struct piddesc *pd = &pp->d[i];
		unsigned n = 0;
		int err;

		if (pd->pid != pr->pid || pd->failed ||
		    !dt_pid_mod_match(pd->d->mod, f->path, x.is_exe))
			continue;
		x.pd = pd;
		err = desc_points(f->pidf, pd->d, count_point, &n, msg,
				  sizeof(msg));
		if (err == -ENOMEM)
			xoom();
		if (!err && pp->nsites + n > PID_MAXSITES) {
			say(c,
			    "invalid probe specifier %s: it selects %u probe "
			    "sites in %s, and one run arms at most %u pid "
			    "probes: name fewer functions",
			    pd->d->text, n, x.mod, PID_MAXSITES);
			pp->capped = true;
		} else if (err) {
			say(c, "invalid probe specifier %s: %s", pd->d->text,
			    msg);
		}
		if (err || pp->capped) {
			pd->failed = true;
			c->enable_failed = true;
			continue;
		}
		(void)desc_points(f->pidf, pd->d, point_probe, &x, NULL, 0);
	}
	if (pp->nsites > PID_SLOWSITES && !pp->slow_warned &&
	    !c->enable_failed) {
		pp->slow_warned = true;
		say(c,
		    "warning: more than %u pid probe sites: the kernel "
		    "removes uprobes one at a time, tens of milliseconds "
		    "each, so stopping will take a while",
		    PID_SLOWSITES);
	}
}

static void pid_file(struct consumer *c, struct tproc *pr, struct tfile *f,
		     bool first, const struct reg_proc *rp)
{
	(void)first;
	(void)rp;
	if (f->upath) /* any file it can arm, ELF with probes or not */
		pid_proc_file(c, pr, f);
}

/* ------------------------------------------------------------------ */
/* dtrace -l */

/* The rows: each probe point once, whichever description found it. */
struct pid_rows {
	const struct dt_lister *l;
	int by; /* the description being listed */
	pid_t pid;
	struct pid_seen {
		pid_t pid;
		uint64_t addr;
		char name[24];
	} *seen;
	size_t nseen;
	unsigned hits; /* points the description selected */
};

static int pid_row(const struct dt_pidobj *ob, const struct dt_pidpoint *pt,
		   void *arg)
{
	struct pid_rows *pr = arg;
	uint64_t addr = pt->fn->addr + pt->off + ob->bias;
	struct dt_probe p = {0};
	struct pid_seen s = {pr->pid, addr, ""};

	pr->hits++;
	for (size_t i = 0; i < pr->nseen; i++)
		if (pr->seen[i].pid == pr->pid && pr->seen[i].addr == addr &&
		    !strcmp(pr->seen[i].name, pt->name))
			return 0;
	snprintf(s.name, sizeof(s.name), "%s", pt->name);
	PUSH(pr->seen, pr->nseen, s);
	p.origin = DT_ORIGIN_PROCESS;
	p.pid = pr->pid;
	snprintf(p.provider, sizeof(p.provider), "pid%d", (int)pr->pid);
	p.prov = "pid";
	p.mod = ob->mod;
	p.func = pt->fn->name;
	p.name = pt->name;
	p.path = ob->path;
	p.bias = ob->bias;
	p.addr_known = true;
	p.addr = pt->fn->addr + ob->bias;
	p.sites = &addr;
	p.nsites = 1;
	/* as DTrace's pid provider: Evolving/Evolving/ISA, the rest Private */
	p.provattr = p.nameattr = DOF_ATTR(5, 5, 4);
	p.modattr = p.funcattr = p.argsattr = DT_ATTR_PRIVATE_UNKNOWN;
	return pr->l->row(&p, pr->by, pr->l->arg);
}

/*
 * The probe points of every description naming a process (pid<N>), in
 * description order, each counting the points it selected, those an
 * earlier one listed too; one that cannot be listed (an offset inside
 * an instruction, a process gone) is said through err().
 */
static int pid_list(const struct provider *pv, const struct dt_lister *l)
{
	struct pid_rows pr = {l, 0, 0, NULL, 0, 0};
	int r = 0;

	(void)pv;
	for (unsigned j = 0; j < l->nd && !r; j++) {
		char msg[512] = "", say[1024];
		int err;

		pr.pid = dt_pid_desc(&l->d[j]);
		if (!pr.pid)
			continue;
		pr.by = (int)j;
		err = dt_pid_each(pr.pid, &l->d[j], pid_row, &pr, msg,
				  sizeof(msg));
		if (err > 0) { /* row()'s own */
			r = err;
		} else if (err == -ESRCH) {
			snprintf(say, sizeof(say),
				 "failed to grab pid %d: No such process",
				 (int)pr.pid);
			l->err(j, say, l->arg);
		} else if (err == -ENOMEM) {
			l->err(j, "out of memory", l->arg);
		} else if (err) {
			snprintf(say, sizeof(say),
				 "invalid probe description %s: %s",
				 l->d[j].text, msg);
			l->err(j, say, l->arg);
			l->d[j].matched++; /* said already */
		}
		/* a point another description listed counts for this one */
		l->d[j].matched += pr.hits;
		pr.hits = 0;
	}
	free(pr.seen);
	return r;
}

const struct provider prov_pid = {
	.name = "pid",
	.needs = BE_CAP_UPROBES,
	.site_kinds = 1u << SITE_PID_ENTRY | 1u << SITE_PID_RETURN |
		      1u << SITE_PID_OFFSET,
	.ret_kinds = 1u << SITE_PID_RETURN,
	.pinned = true,
	.prepare = pid_prepare,
	.file = pid_file,
	.site_args = pid_site_args,
	.refused = pid_site_refused,
	.list = pid_list,
};
