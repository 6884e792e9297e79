// SPDX-License-Identifier: MIT
/*
 * consumer.c - dtrace's tracing: the consumer half of the classic
 * fasttrap, on kernel uprobes or on this project's fasttrap module
 * (doc/DESIGN.md §8).  This file is the run; consumer_impl.h names the others.
 *
 * A run.  The -c commands are started and the -p processes grabbed
 * first (the D program's $target is one of them), the program is
 * compiled and its -x and #pragma options applied, every clause's
 * descriptions parsed (-e stops there); then the backend is chosen,
 * once, knowing what the clauses trace: the fasttrap
 * module when /dev/dtrace/fasttrap opens, else BPF programs on uprobe
 * events when the kernel lets us load them, else uprobe events alone
 * (DTRACE_BACKEND names one).  The
 * processes' probes are found and armed (sites.c), each description must
 * match something (unless -Z), the kernel providers' probes (syscall,
 * profile, tick, proc: kprov.c) are armed, BEGIN fires (and the run
 * constants the kernel reads are written: kplan_fkey.c), the commands
 * are let go, and
 * the loop runs until exit(), the end of all targets, SIGINT, SIGTERM or
 * SIGHUP.  Then the backend stops and is drained a last time, what it
 * aggregated in the kernel is folded in (bpf backend), END fires, the
 * aggregations are printed.  What aarch64 cannot trace yet refuses
 * itself where it is made (pidprov.c, inproc.c, fasttrap.c).
 *
 * The loop waits (poll) on a signalfd, an inotify watch on the
 * registry, a pidfd per process and the backend's own descriptors, for
 * at most switchrate (10 ms): every wakeup reads the backend (records.c);
 * a registry change, or 100 ms gone by, reads the processes' maps again
 * (new processes, dlopen()ed libraries) and lets go of the threads that
 * exited; a pidfd that fires is a process that ended.
 *
 * Cleanup.  On every way out the backend gives the kernel back what it
 * holds (its close()), and a -c command that is still running is
 * killed, as DTrace does.
 *
 * -c runs the command under ptrace until the dynamic linker has mapped
 * the libraries it was linked with and before their constructors run
 * (rtld.c; a static program: its entry point), its probes are enabled,
 * and it is let go.  On the bpf backend the commands and the -p
 * processes then stay dtrace's tracees, held at each dlopen() until the
 * library is armed (dlhold.c; the loop passes their stops on at each
 * SIGCHLD).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "consumer_impl.h"
#include "kprov.h"
#include "procfs.h"

/* ------------------------------------------------------------------ */
/* Small helpers */

void say(struct consumer *c, const char *fmt, ...)
{
	va_list ap;

	fflush(c->out);
	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *read_file(const char *path, size_t *lenp)
{
	char *t = sbuf_read_path(path, lenp);

	if (!t && errno == ENOMEM)
		xoom();
	return t;
}

char *read_proc(pid_t pid, const char *name, size_t *lenp)
{
	char *t = proc_read_text(pid, name, lenp);

	if (!t && errno == ENOMEM)
		xoom();
	return t;
}

/*
 * pid's current image is laid out: /proc/PID/stat's end_code (27th
 * field), which the ELF loader sets only once it has mapped the file,
 * its interpreter and the vDSO and written the stack's tables, the
 * environment's bounds (env_end) last among them (fs/binfmt_elf.c:
 * create_elf_tables(), then mm->end_code); a new image's is 0 until
 * then.  Read before what it guards: inproc_exec.c's environment read
 * (an empty read followed by a finished layout took an image told not
 * to ask for one with no environment: run-trace-fork.sh, "fork then
 * exec 2, forked before", under -x activation=user in CI; 67 of 2,000
 * execs of an image with 30 variables, polled as the watch does, on
 * Linux 6.18) and ustack.c's maps read at a new mapping (a text of the
 * maps half-way through an exec, with no ld.so yet).
 */
bool image_laid_out(pid_t pid)
{
	size_t n = 0;
	char *st = read_proc(pid, "stat", &n);
	char *p = st ? memrchr(st, ')', n) : NULL;
	unsigned long long end_code = 0;

	if (p && n && st[n - 1] == '\n')
		st[n - 1] = 0;
	else if (p)
		p = NULL; /* cut short: not trusted */
	for (int field = 2; p && field < 27 && (p = strchr(p + 1, ' '));)
		if (++field == 27)
			end_code = strtoull(p + 1, NULL, 10);
	free(st);
	return end_code != 0;
}

uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* ------------------------------------------------------------------ */
/* Processes */

/* The live process pid (an exited one's pid may be someone else's now). */
struct tproc *proc_find(struct consumer *c, pid_t pid)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i]->pid == pid && !c->procs[i]->exited)
			return c->procs[i];
	return NULL;
}

static void proc_status(struct tproc *pr)
{
	char st[4096], *s;

	if (proc_read_file(pr->pid, "status", st, sizeof(st)) < 0)
		return;
	if ((s = strstr(st, "\nPPid:")))
		pr->ppid = (pid_t)atoi(s + 6);
}

struct tproc *proc_add(struct consumer *c, pid_t pid, bool target)
{
	struct tproc *pr = proc_find(c, pid);
	uint64_t start;
	int err;

	if (pr) {
		pr->target |= target;
		return pr;
	}
	if ((err = reg_proc_stat(pid, &start, NULL, 0)) < 0) {
		errno = err == -ENOENT ? ESRCH : -err; /* no /proc/pid */
		return NULL;
	}
	pr = xcalloc(1, sizeof(*pr));
	pr->pid = pid;
	pr->target = target;
	pr->start = start;
	pr->pidfd = sys_pidfd_open(pid);
	if (pr->pidfd < 0) {
		err = errno;
		free(pr);
		errno = err;
		return NULL;
	}
	proc_status(pr);
	if (c->prog && ppid_wanted(c)) /* progenyof()'s links beyond */
		anc_take(pr);
	PUSH(c->procs, c->nprocs, pr);
	return pr;
}

/* ------------------------------------------------------------------ */
/* -c: start a command stopped at its entry point */

static char **split_command(const char *cmd)
{
	char **argv = NULL;
	size_t n = 0;
	const char *s = cmd;

	for (;;) {
		char *w, *o;
		char q = 0;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		w = o = xcalloc(1, strlen(s) + 1);
		while (*s && (q || !isspace((unsigned char)*s))) {
			if (q && *s == q) {
				q = 0;
				s++;
			} else if (!q && (*s == '\'' || *s == '"')) {
				q = *s++;
			} else if (*s == '\\' && s[1] && q != '\'') {
				s++;
				*o++ = *s++;
			} else {
				*o++ = *s++;
			}
		}
		PUSH(argv, n, w);
	}
	PUSH(argv, n, NULL);
	return argv;
}

/*
 * Fork and exec cmd under ptrace, run it to where the dynamic linker has
 * mapped every library it was linked with, before any of them runs
 * (rtld.c), or for a static program to its entry point, and leave it
 * stopped there.  Returns the pid, or -1 with the reason said.
 */
static pid_t command_start(struct consumer *c, const char *cmd)
{
	char **argv = split_command(cmd);
	int pfd[2], st, err = 0;
	pid_t pid;
	uint64_t entry;
	long orig;
	sigset_t none;
	bool gone;

	if (!argv[0]) {
		say(c, "-c needs a command");
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		say(c, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say(c, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			err = errno;
		} else {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
		if (read(pfd[0], &err, sizeof(err)) == (ssize_t)sizeof(err))
			say(c, "failed to execute %s: %s", cmd, strerror(err));
		else
			say(c, "failed to execute %s", cmd);
		close(pfd[0]);
		if (!WIFEXITED(st) && !WIFSIGNALED(st))
			kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	close(pfd[0]);
	(void)ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	err = rtld_run_to_consistent(pid, &gone);
	if (err == 0)
		return pid;
	if (gone) {
		say(c, "%s exited before its libraries were mapped", cmd);
		return -1;
	}
	if (err == -EIO) {
		say(c, "cannot run %s to where its libraries are mapped", cmd);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	if (proc_auxv(pid, AT_ENTRY, &entry) < 0 || !entry)
		return pid; /* stopped after exec: good enough */
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno)
		return pid;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
		   (void *)arch_breakpoint(orig)) < 0)
		return pid;
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return pid;
	for (;;) {
		if (waitpid(pid, &st, 0) < 0)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			say(c, "%s exited before reaching its entry point",
			    cmd);
			return -1;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP)
			break;
		(void)ptrace(PTRACE_CONT, pid, NULL,
			     (void *)(long)WSTOPSIG(st));
	}
	(void)ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)orig);
	(void)arch_set_pc(pid, entry);
	return pid;
}

pid_t dt_command_hold(const char *cmd)
{
	struct consumer c = {.out = stdout};
	pid_t pid = command_start(&c, cmd);

	/* -l lets no command go: its hold's event to the closer now, not a
	 * close that waits for grace periods at dtrace's exit (rtld.c) */
	rtld_holds_close();
	return pid;
}

/* ------------------------------------------------------------------ */
/* Teardown */

/*
 * Stop the backend, run what it still holds, let go of the threads that
 * exited, report what was lost and give the kernel's resources back.
 */
static void teardown(struct consumer *c)
{
	dlhold_end(c); /* the -p processes let go before the sites */
	kprov_stop_begin(c); /* its closes' waits beside the backend's */
	c->be->stop(c);
	kprov_stop(c);
	c->stopped = true;
	read_buffers(c);
	/* hits its last read kept for the next (deferred, or stamped past
	 * the speculations' cut: records.c's hits_keep()) run in one more,
	 * nothing new coming now (revk3c's 5: else never run, unsaid) */
	for (int i = 0; i < 2 && c->nhits && !c->exit_called; i++)
		read_buffers(c);
	threads_reap(c);
	if (c->be->aggs)
		c->be->aggs(c);
	c->be->stats(c);
	c->be->close(c);
	/* the hold's link (dlhold_end()) where the backend closed nothing */
	close_many(NULL, 0);
	rtld_holds_close(); /* a run that let no command go */
}

/* ------------------------------------------------------------------ */
/* The program */

int dt_parse_size(const char *s, size_t *bytes)
{
	size_t v;

	/* a buffer smaller than a page holds no record */
	if (d_parse_size(s, &v) < 0 || v < 4096)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int dt_parse_rate(const char *s, unsigned *ms)
{
	double v;
	char *end;

	v = strtod(s, &end);
	if (end == s || !(v > 0))
		return -EINVAL;
	if (!*end || !strcmp(end, "hz"))
		v = 1000.0 / v;
	else if (!strcmp(end, "s") || !strcmp(end, "sec"))
		v *= 1000.0;
	else if (!strcmp(end, "us") || !strcmp(end, "usec"))
		v /= 1000.0;
	else if (strcmp(end, "ms") && strcmp(end, "msec"))
		return -EINVAL;
	*ms = v < 1 ? 1 : v > 10000 ? 10000 : (unsigned)v;
	return 0;
}

/* Options only -h and -G use: the D program has no business with them. */
static bool build_option(const char *name, size_t len)
{
	static const char *const names[] = {
		"nolibs",     "lazyload", "linkmode", "linktype",
		"probestyle", "cpp",	  "cpppath",  "version",  NULL,
	};

	for (unsigned i = 0; names[i]; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return true;
	return false;
}

size_t consumer_bufsize(size_t want)
{
	size_t n = (size_t)getpagesize();

	if (!want)
		want = 2 * 1024 * 1024;
	while (n < want)
		n *= 2; /* the kernel wants a power of two pages */
	return n;
}

/*
 * -x options reach the program (strsize, aggsortrev, ...); bufsize and
 * switchrate come from -x or else from a #pragma D option.
 */
static int apply_options(struct consumer *c)
{
	const struct dt_trace_opts *o = c->o;
	char msg[256];
	const char *v;

	for (unsigned i = 0; i < o->nxopts; i++) {
		const char *x = o->xopts[i], *eq = strchr(x, '=');
		size_t len = eq ? (size_t)(eq - x) : strlen(x);
		char name[64];

		if (build_option(x, len) || len >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, x);
		if (d_set_option(c->prog, name, eq ? eq + 1 : "", msg,
				 sizeof(msg))) {
			say(c, "failed to set -x %s: %s", x, msg);
			return -1;
		}
	}
	/*
	 * evaltime, DTrace's: where a -c command is armed.  command_start()
	 * runs it to ld.so's RT_CONSISTENT (rtld.c: its libraries mapped,
	 * no constructor run; a static one to its entry point), which is
	 * DTrace's preinit, illumos's default; the others would trace
	 * another part of the command's start, so they are refused rather
	 * than taken for it (doc/DESIGN.md "-c and the dynamic linker's
	 * system calls")
	 */
	if ((v = d_get_option(c->prog, "evaltime")) && strcmp(v, "preinit") &&
	    o->ncmds) {
		say(c,
		    "evaltime=%s is not done here: a -c command is armed "
		    "once the dynamic linker has mapped its libraries, "
		    "before their constructors run (evaltime=preinit)",
		    v);
		return -1;
	}
	c->rbsize = o->bufsize;
	if (!c->rbsize && (v = d_get_option(c->prog, "bufsize")) &&
	    dt_parse_size(v, &c->rbsize) < 0) {
		say(c,
		    "failed to set option bufsize: '%s' is not a size from 4k "
		    "to 1g",
		    v);
		return -1;
	}
	if (!c->rbsize) /* 2 MiB per CPU; more for records with stacks */
		c->rbsize = ustack_bufsize(c, 2 * 1024 * 1024);
	c->rbsize = consumer_bufsize(c->rbsize);
	c->switchrate_ms = o->switchrate_ms;
	if (!c->switchrate_ms && (v = d_get_option(c->prog, "switchrate")) &&
	    dt_parse_rate(v, &c->switchrate_ms) < 0) {
		say(c, "failed to set option switchrate: '%s' is not a rate",
		    v);
		return -1;
	}
	if (!c->switchrate_ms)
		c->switchrate_ms = 10;
	return 0;
}

/* -x errtags: compile errors name their tag (d_impl.h's D_ERRTAGS) */
static bool errtags_set(const struct dt_trace_opts *o)
{
	bool on = false;

	for (unsigned i = 0; i < o->nxopts; i++)
		if (strcmp(o->xopts[i], "errtags") == 0 ||
		    strncmp(o->xopts[i], "errtags=", 8) == 0)
			on = true;
	return on;
}

static int compile_all(struct consumer *c, pid_t target)
{
	const struct dt_trace_opts *o = c->o;
	char msg[512];

	c->src_first = xcalloc(o->nsrc + 1, sizeof(*c->src_first));
	/* the types of the programs the targets run (ctypes.c) */
	c->ctypes = ctypes_open(c);
	for (unsigned i = 0; i < o->nsrc; i++) {
		struct d_compile_opts co = {
			.srcname = o->src[i].name,
			.macro_argv = o->macro_argv,
			.macro_argc = o->macro_argc,
			.target = target,
			.spec = o->src[i].spec,
			.errtags = errtags_set(o),
			.ctype = ctypes_lookup,
			.ctype_ctx = c->ctypes,
			/* -c, -p: held at the probe (copyout_check()) */
			.copyout_held = o->ncmds || o->npids,
		};

		c->src_first[i] = c->prog ? d_nclauses(c->prog) : 0;
		if (d_compile(&c->prog, o->src[i].text, &co, msg,
			      sizeof(msg))) {
			if (o->src[i].name)
				say(c, "failed to compile script %s: %s",
				    o->src[i].name, msg);
			else
				say(c, "invalid probe specifier %s: %s",
				    o->src[i].text, msg);
			return -1;
		}
	}
	c->src_first[o->nsrc] = c->prog ? d_nclauses(c->prog) : 0;
	return 0;
}

/* Probes (BEGIN and END included) some clause of source i enables. */
static unsigned source_matches(struct consumer *c, unsigned i)
{
	unsigned lo = c->src_first[i], hi = c->src_first[i + 1], n = 0;
	const unsigned *lists[] = {c->begin_clauses, c->end_clauses,
				   c->error_clauses};
	unsigned nl[] = {c->nbegin, c->nend, c->nerror};

	for (size_t k = 0; k < c->nprobes; k++) {
		const struct tprobe *p = c->probes[k];
		bool hit = false;

		for (unsigned ci = 0; ci < p->nclauses && !hit; ci++)
			hit = p->clauses[ci] >= lo && p->clauses[ci] < hi;
		n += hit;
	}
	for (unsigned k = 0; k < 3; k++) {
		bool hit = false;

		for (unsigned ci = 0; ci < nl[k] && !hit; ci++)
			hit = lists[k][ci] >= lo && lists[k][ci] < hi;
		n += hit;
	}
	return n + kprov_source_matches(c, lo, hi);
}

static int parse_descs(struct consumer *c)
{
	c->nclauses = d_nclauses(c->prog);
	c->descs = xcalloc(c->nclauses, sizeof(*c->descs));
	c->ndescs = xcalloc(c->nclauses, sizeof(*c->ndescs));
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		unsigned n = d_clause_ndescs(c->prog, ci);
		int spec = d_clause_spec(c->prog, ci);

		c->ndescs[ci] = n;
		c->descs[ci] = xcalloc(n, sizeof(**c->descs));
		for (unsigned j = 0; j < n; j++) {
			const char *txt = d_clause_desc(c->prog, ci, j);

			if (dt_desc_parse(txt,
					  spec ? (enum dt_spec)spec
					       : DT_SPEC_NAME,
					  &c->descs[ci][j])) {
				say(c,
				    "invalid probe description \"%s\": too "
				    "many "
				    "fields",
				    txt);
				return -1;
			}
		}
	}
	return 0;
}

/* BEGIN, END and ERROR (IDs 1, 2, 3): clauses whose descriptions match
 * them; what the ERROR clauses read of a firing (c->eneeds). */
static void match_dtrace_probes(struct consumer *c)
{
	static const char *const names[] = {"BEGIN", "END", "ERROR"};
	struct d_probe *dp[] = {&c->begin, &c->end, &c->error};
	unsigned **cl[] = {&c->begin_clauses, &c->end_clauses,
			   &c->error_clauses};
	unsigned *ncl[] = {&c->nbegin, &c->nend, &c->nerror};

	for (unsigned k = 0; k < 3; k++) {
		dp[k]->id = k + 1;
		dp[k]->prov = "dtrace";
		dp[k]->mod = "";
		dp[k]->func = "";
		dp[k]->name = names[k];
		for (unsigned ci = 0; ci < c->nclauses; ci++) {
			bool hit = false;

			for (unsigned j = 0; j < c->ndescs[ci]; j++)
				if (probe_matches(&c->descs[ci][j], "dtrace",
						  "", "", names[k])) {
					c->descs[ci][j].matched++;
					hit = true;
				}
			if (hit)
				PUSH(*cl[k], *ncl[k], ci);
		}
	}
	for (unsigned i = 0; i < c->nerror; i++)
		c->eneeds |= d_clause_needs(c->prog, c->error_clauses[i]);
	c->eneeds &= ~(uint32_t)(D_NEED_ARGS | D_NEED_COPYOUT);
}

/* Registered processes with a probe some description can match. */
static void add_registry_procs(struct consumer *c, const struct dt_probes *reg)
{
	for (size_t i = 0; i < reg->n; i++) {
		const struct dt_probe *p = &reg->v[i];
		bool want = false;

		if (p->origin != DT_ORIGIN_PROCESS || proc_find(c, p->pid))
			continue;
		for (unsigned ci = 0; ci < c->nclauses && !want; ci++)
			for (unsigned j = 0; j < c->ndescs[ci] && !want; j++)
				want = dt_desc_match(&c->descs[ci][j], p);
		if (want)
			(void)proc_add(c, p->pid, false);
	}
}

static const struct reg_proc *reg_of(const struct dt_probes *reg, pid_t pid)
{
	for (size_t i = 0; i < reg->nprocs; i++)
		if (reg->procs[i].pid == pid)
			return &reg->procs[i];
	return NULL;
}

/* A registered probe some clause's description matches. */
static bool want_probe(const struct dt_probe *p, void *arg)
{
	const struct consumer *c = arg;

	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++)
			if (dt_desc_match(&c->descs[ci][j], p))
				return true;
	return false;
}

/*
 * Which registry files a refresh reads: only those of the pids the
 * descriptions name when none may match every process (a BEGIN-only
 * program, a provider of $target), so a registry that other users fill
 * costs such a program nothing (dt_desc_reg_pids()).
 */
static void registry_scope(struct consumer *c)
{
	if (c->reg_scoped)
		return;
	c->reg_scoped = true;
	c->reg_only = true;
	for (unsigned ci = 0; ci < c->nclauses && c->reg_only; ci++)
		for (unsigned j = 0; j < c->ndescs[ci] && c->reg_only; j++)
			c->reg_only = dt_desc_reg_pids(
				&c->descs[ci][j], &c->reg_pids, &c->nreg_pids);
}

/*
 * Registered processes none of whose DOF probes a description matches
 * may map files whose probes only stapsdt notes describe: the stubs of a
 * header's objects -G never saw, loaded even after the process
 * registered (a PostgreSQL extension built with PGXS, dlopen()ed by a
 * backend).  Such a process is traced once one of those probes matches
 * (usdt_maps_wanted()).  A process is looked at when it is first seen in
 * the registry, and then once a second while its maps change, not at
 * every registry change, so that many registering processes do not make
 * each change cost a read of every process's maps.  With none given,
 * returns whether a process due now has such a probe (the caller then
 * reads the registry, for its module names).
 */
#define CANDS_PERIOD_NS 1000000000ull

static bool note_procs_add(struct consumer *c, const struct dt_probes *reg)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	bool due = now >= c->cands_due_ns, any = false;
	size_t k = 0;

	if (due)
		c->cands_due_ns = now + CANDS_PERIOD_NS;
	if (!reg) {
		for (size_t i = 0; due && i < c->ncands; i++) {
			struct regcand *rc = &c->cands[i];

			if (proc_find(c, rc->pid) ||
			    usdt_maps_wanted(c, rc->pid, NULL,
					     &rc->maps_hash) != 1)
				continue;
			rc->maps_hash = 0; /* looked at again with reg */
			any = true;
		}
		return any;
	}
	for (size_t i = 0; i < c->ncands; i++)
		c->cands[i].seen = false;
	for (size_t i = 0; i < reg->nprocs; i++) {
		const struct reg_proc *rp = &reg->procs[i];
		struct regcand *rc = NULL;
		bool fresh = false;

		if (proc_find(c, rp->pid))
			continue;
		for (size_t j = 0; j < c->ncands && !rc; j++)
			if (c->cands[j].pid == rp->pid &&
			    c->cands[j].start == rp->start)
				rc = &c->cands[j];
		if (!rc) {
			struct regcand n = {rp->pid, rp->start, 0, false};

			PUSH(c->cands, c->ncands, n);
			rc = &c->cands[c->ncands - 1];
			fresh = true;
		}
		rc->seen = true;
		if ((fresh || due || !rc->maps_hash) &&
		    usdt_maps_wanted(c, rp->pid, rp, &rc->maps_hash) == 1)
			(void)proc_add(c, rp->pid, false);
	}
	/* those gone from the registry, or traced now, are let go */
	for (size_t i = 0; i < c->ncands; i++)
		if (c->cands[i].seen && !proc_find(c, c->cands[i].pid))
			c->cands[k++] = c->cands[i];
	c->ncands = k;
	return false;
}

static void refresh_all(struct consumer *c, bool registry)
{
	struct dt_probes reg = {0};
	struct dt_collect_opts co = {0};
	char msg[256];

	if (!registry && c->o->statedir && c->ncands)
		registry = note_procs_add(c, NULL);
	if (registry && c->o->statedir) {
		registry_scope(c);
		co.statedir = c->o->statedir;
		co.reg_only = c->reg_only;
		co.reg_pids = c->reg_pids;
		co.nreg_pids = c->nreg_pids;
		co.want = want_probe;
		co.want_arg = c;
		if (dt_probes_collect(&reg, &co, msg, sizeof(msg)) == 0) {
			add_registry_procs(c, &reg);
			(void)note_procs_add(c, &reg);
		}
	}
	for (size_t i = 0; i < c->nprocs; i++)
		(void)proc_refresh(c, c->procs[i],
				   reg_of(&reg, c->procs[i]->pid));
	dt_probes_free(&reg);
}

static int signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigprocmask(SIG_BLOCK, set, NULL);
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static bool all_targets_gone(struct consumer *c)
{
	bool any = false;

	for (size_t i = 0; i < c->nprocs; i++) {
		if (!c->procs[i]->target)
			continue;
		any = true;
		if (!c->procs[i]->exited)
			return false;
	}
	return any;
}

static void proc_exited(struct consumer *c, struct tproc *pr)
{
	siginfo_t si = {0};

	pr->exited = true;
	dlhold_gone(c, pr); /* its threads' last stops read */
	if (pr->created) /* our child: reap it */
		(void)waitid(P_PID, (id_t)pr->pid, &si, WEXITED | WNOHANG);
	if (pr->target && !d_opt_quiet(c->prog))
		say(c, "pid %d has exited", (int)pr->pid);
	/*
	 * Forget the pid: a new process that gets it (and registers) is
	 * another process, with probes of its own.  Its records were read
	 * just before.
	 */
	c->be->proc_exit(c, pr);
	ustack_proc_gone(c, pr->pid);
	lin_gone(c, pr->pid,
		 pr->exit_seen ? pr->exit_seen : now_ns(CLOCK_MONOTONIC));
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i]->pid == pr->pid)
			c->probes[i]->pid = -1;
	close(pr->pidfd);
	pr->pidfd = -1;
	free(pr->maps);
	pr->maps = NULL;
}

/*
 * Does inotify see registrations come?  Not in the kernel helper's
 * /proc/dtrace/registry: procfs makes no events for the entries the
 * module creates, so the loop reads the registry at each refresh tick.
 */
static bool registry_notifies(const struct consumer *c)
{
	char rd[PATH_MAX];
	struct statfs sf;

	snprintf(rd, sizeof(rd), "%s/registry", c->o->statedir);
	/* 0x9fa0: PROC_SUPER_MAGIC */
	return statfs(rd, &sf) < 0 || sf.f_type != 0x9fa0;
}

static void loop(struct consumer *c, int sfd, int ifd)
{
	uint64_t last_refresh = now_ns(CLOCK_MONOTONIC);
	bool reg_poll = c->o->statedir && !registry_notifies(c);

	while (!c->done) {
		struct pollfd *pfd;
		size_t n = 0, np = 2 + c->nprocs, nwait;
		uint64_t now;

		np += c->be->poll_fds(c, NULL, 0) + kprov_poll_fds(c, NULL, 0);
		pfd = xcalloc(np, sizeof(*pfd));
		pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = ifd, .events = POLLIN};
		/* a process with hits kept for the next read is let go
		 * after they ran (records.c's hits_kept_of()): its pidfd
		 * waits, the read comes within the switchrate */
		for (size_t i = 0; i < c->nprocs; i++) {
			struct tproc *pr = c->procs[i];

			if (pr->exited)
				continue;
			if (hits_kept_of(c, pr->pid)) {
				/* ... but when it said it exited is seen
				 * now, for the fork tree (lin_gone()) */
				struct pollfd q = { .fd = pr->pidfd,
						    .events = POLLIN };

				if (!pr->exit_seen && poll(&q, 1, 0) == 1)
					pr->exit_seen = now_ns(CLOCK_MONOTONIC);
				continue;
			}
			pfd[n++] = (struct pollfd){ .fd = pr->pidfd,
						    .events = POLLIN };
		}
		nwait = n;
		/* records waiting wake us before the switchrate tick */
		n += c->be->poll_fds(c, pfd + n, np - n);
		n += kprov_poll_fds(c, pfd + n, np - n); /* tick-N */
		(void)poll(pfd, n, (int)c->switchrate_ms);
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			bool chld = false;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD)
					c->done = true;
				else
					chld = true;
			if (chld) /* a held -p process's thread stopped */
				dlhold_poll(c);
			if (c->done) { /* a signal: teardown reads the rest
					* once the backend stopped, where
					* a read now would go on while the
					* threads fire as fast as it reads */
				free(pfd);
				break;
			}
		}
		read_buffers(c);
		now = now_ns(CLOCK_MONOTONIC);
		if (ifd >= 0 && (pfd[1].revents & POLLIN)) {
			char buf[4096];

			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			refresh_all(c, true);
			threads_reap(c);
			last_refresh = now;
		} else if (now - last_refresh > 100000000u) {
			dlhold_poll(c);
			refresh_all(c, reg_poll);
			threads_reap(c);
			last_refresh = now;
		}
#ifdef HAVE_BPF
		/* at a refresh: an exit() the kernel ran whose record the
		 * full ring dropped ends the run, its status unknown */
		if (last_refresh == now && bpf_kagg_exit_lost(c)) {
			say(c, "exit() ran in the kernel, but its record was "
			       "dropped (the buffer was full): its status is "
			       "unknown");
			c->done = c->exit_called = true;
			c->status = 1;
		}
#endif
		for (size_t i = 2; i < nwait; i++) {
			struct tproc *pr;

			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			for (size_t k = 0; k < c->nprocs; k++) {
				pr = c->procs[k];
				/* its records first; a read a signal cut
				 * left some, and teardown reads them with
				 * the process still known */
				if (pr->pidfd != pfd[i].fd || pr->exited)
					continue;
				if (!pr->exit_seen)
					pr->exit_seen = now_ns(CLOCK_MONOTONIC);
				if (read_buffers(c) &&
				    !hits_kept_of(c, pr->pid))
					proc_exited(c, pr);
			}
		}
		free(pfd);
		if (all_targets_gone(c))
			c->done = true;
	}
}

/*
 * copyout(), copyoutstr() (-w), with the BPF backend: written at the hit
 * by its generic program (bpf.c's ev_copyout()) in the forms
 * d_prog_copyout() says are exact, where the kernel lets a BPF program
 * write user memory (the cheaper: nothing stops); else, for -c and -p
 * targets, by the clause itself, in dtrace, while the firing thread is
 * held at its probe (c->cohold: usdt.bpf.c's hold_thread(), or the
 * generated programs' cgen_rec.c's u_hold(); dlhold.c).
 * Another backend, or a run without a process to hold, is refused
 * before tracing.
 */
static int copyout_check(struct consumer *c)
{
	struct d_copyout co;
	const char *why = NULL;
	int r = d_prog_copyout(c->prog, &co, &why);

	if (r == 0)
		return 0;
#ifdef HAVE_BPF
	if (c->be == &consumer_bpf_ops && r > 0 && bpf_write_user_ok())
		return 0;
	if (c->be == &consumer_bpf_ops && (c->o->ncmds || c->o->npids)) {
		c->cohold = true;
		return 0;
	}
	if (c->be == &consumer_bpf_ops) {
		say(c, "could not enable tracing: %s; a -c or -p process "
		       "is held at the probe instead, and this run has none",
		    r < 0 ? why
			  : "copyout( ) and copyoutstr( ) are written at "
			    "the hit by a BPF program, and this kernel "
			    "refuses bpf_probe_write_user() (locked down, "
			    "or no CAP_SYS_ADMIN: kernel_lockdown(7))");
		return -1;
	}
#endif
	say(c,
	    "could not enable tracing: copyout( ) and copyoutstr( ) are "
	    "written at the hit, or with the thread held there, by the "
	    "BPF backend only, not the %s one%s",
	    c->be->name,
	    strncmp(c->be->name, "uprobe", 6) == 0
		    ? " (its hits are read after the fact, and nothing "
		      "stops the thread at the probe)"
		    : "");
	return -1;
}

/* The backends, in the order a run tries them. */
static const struct consumer_backend_ops *const order[] = {
	&consumer_fasttrap_ops,
#ifdef HAVE_BPF
	&consumer_bpf_ops,
#endif
	&consumer_uprobe_ops,
};

/* Make be the run's backend and open it: 0, or -errno with c->be_why. */
static int backend_try(struct consumer *c,
		       const struct consumer_backend_ops *be)
{
	c->be = be;
	c->be_why[0] = '\0';
	return c->be->open(c);
}

/*
 * The backend, chosen once for the run: the kernel module when it is
 * loaded, else BPF programs on uprobe events when they load (root, a
 * kernel with BPF), else uprobe events (which always opens: what it
 * lacks is said when a probe is to be enabled).  DTRACE_BACKEND=fasttrap,
 * bpf or uprobe asks for one; when it cannot be used, dtrace says so and
 * stops (-1).  This is the one place DTRACE_BACKEND is read: the rest
 * asks c->be_want, and what the backend can do its caps.  A backend
 * whose open() says why it cannot be used (be_why: the BPF one does,
 * with the step and errno) is named once, with the backend used
 * instead; a missing fasttrap module is no news.
 * -x activation=user takes the in-process backend instead (inproc.c),
 * DTRACE_BACKEND then naming the kernel path's for what it hands over
 * (a name that is no backend is refused on both paths); activation=kernel
 * is the default.
 * DTRACE_ACTIVATION=user|kernel sets that default (read here and only
 * here, so that a whole test suite can run on either path: make
 * check-activation-user); -x activation, on the command line or by
 * #pragma, wins over it, and each error names where the value came from.
 */
static int backend_choose(struct consumer *c)
{
	const char *want = getenv("DTRACE_BACKEND");
	const char *act = d_get_option(c->prog, "activation");
	const char *from = "-x activation";
	const struct consumer_backend_ops *why_be = NULL;
	char why[sizeof(c->be_why)];

	c->be_want = want && *want ? want : NULL;
	/* a name no backend has is refused on either activation path */
	if (c->be_want) {
		size_t i = 0;

		while (i < sizeof(order) / sizeof(order[0]) &&
		       strcmp(order[i]->key, want))
			i++;
		if (i == sizeof(order) / sizeof(order[0])) {
			c->be = &consumer_uprobe_ops; /* close() is safe */
			say(c,
			    "DTRACE_BACKEND=%s: no such backend in this "
			    "dtrace (fasttrap%s, uprobe)",
			    want, i > 2 ? ", bpf" : "");
			return -1;
		}
	}
	if (!act) {
		act = getenv("DTRACE_ACTIVATION");
		from = "DTRACE_ACTIVATION";
		if (act && !*act)
			act = NULL;
	}
	/* activation=user: the recorder in the process (inproc.c) */
	if (act && strcmp(act, "kernel") != 0) {
		int err;

		if (strcmp(act, "user") != 0) {
			c->be = &consumer_uprobe_ops; /* close() is safe */
			if (from[0] == '-')
				say(c,
				    "failed to set option activation: '%s' "
				    "is not kernel or user",
				    act);
			else
				say(c, "%s=%s: not kernel or user", from, act);
			return -1;
		}
		if ((err = backend_try(c, &consumer_inproc_ops)) == 0)
			return 0;
		say(c, "%s=user cannot be used: %s", from,
		    c->be_why[0] ? c->be_why : strerror(-err));
		return -1;
	}
	if (want && *want) {
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			int err;

			if (strcmp(order[i]->key, want))
				continue;
			err = backend_try(c, order[i]);
			if (err == 0)
				return 0;
			say(c,
			    "DTRACE_BACKEND=%s: the %s backend cannot be used: "
			    "%s",
			    want, c->be->name,
			    c->be_why[0] ? c->be_why : strerror(-err));
			return -1;
		}
	}
	/* a backend that says why it cannot be used is named, once */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (backend_try(c, order[i]) == 0) {
			if (why_be)
				say(c,
				    "the %s backend cannot be used: %s; using "
				    "the %s backend",
				    why_be->name, why, c->be->name);
			return 0;
		}
		if (c->be_why[0] && !why_be) {
			why_be = c->be;
			snprintf(why, sizeof(why), "%s", c->be_why);
		}
	}
	return 0;
}

int backend_next(struct consumer *c, unsigned caps)
{
	const struct consumer_backend_ops *old = c->be;
	int err = -ENODEV;

	old->close(c);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == old || (order[i]->caps & caps) != caps)
			continue;
		err = backend_try(c, order[i]);
		if (err == 0)
			return 0;
	}
	return err;
}

/*
 * The first backend of the default order that opens (DTRACE_BACKEND's
 * where it names one), while c->be, the in-process backend, stays the
 * run's: inproc.c hands it what its recorder cannot take.
 */
int backend_open_kernel(struct consumer *c)
{
	const struct consumer_backend_ops *self = c->be;
	char why[sizeof(c->be_why)] = "";
	int err = -ENODEV;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (c->be_want && strcmp(order[i]->key, c->be_want))
			continue;
		err = backend_try(c, order[i]);
		if (err == 0) {
			c->be_kernel = c->be;
			c->be = self;
			return 0;
		}
		if (c->be_why[0] && !why[0])
			snprintf(why, sizeof(why), "%s", c->be_why);
	}
	c->be = self;
	snprintf(c->be_why, sizeof(c->be_why), "%s",
		 why[0] ? why : strerror(-err));
	return -1;
}

static int consumer_run(struct consumer *c)
{
	const struct dt_trace_opts *o = c->o;
	pid_t target = 0;
	sigset_t set;
	int sfd, ifd = -1, ret = 1;
	struct rlimit rl;
#ifdef HAVE_BPF
	bool kspec; /* speculations in the kernel (kplan_spec.c) */
#endif

	c->out = stdout;
	c->next_id = 3;
	if (o->output) {
		c->out = fopen(o->output, "ae");
		if (!c->out) {
			say(c, "failed to open %s: %s", o->output,
			    strerror(errno));
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	sfd = signals_block(&set);
	c->wall_offset = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);

	/* the targets first: $target must be known to compile */
	for (unsigned i = 0; i < o->ncmds; i++) {
		pid_t pid = command_start(c, o->cmds[i]);
		struct tproc *pr;

		if (pid < 0)
			goto out;
		pr = proc_add(c, pid, true);
		if (!pr) {
			say(c, "lost process %d", (int)pid);
			kill(pid, SIGKILL);
			goto out;
		}
		pr->created = pr->held = true;
		if (!target)
			target = pid;
	}
	for (unsigned i = 0; i < o->npids; i++) {
		if (!proc_add(c, o->pids[i], true)) {
			say(c, "failed to grab pid %d: %s", (int)o->pids[i],
			    strerror(errno));
			goto out;
		}
		if (!target)
			target = o->pids[i];
	}
	if (compile_all(c, target) < 0 || apply_options(c) < 0 ||
	    parse_descs(c) < 0)
		goto out;
	fflush(c->out);
	d_option_warnings(c->prog, stderr); /* those that cannot apply */
	if (o->compile_only) { /* -e */
		ret = 0;
		goto out;
	}
	/* before any probe is matched: each record carries c->eneeds */
	match_dtrace_probes(c);
	/* progenyof()'s chains of the targets, taken up before the script
	 * was known: read now, before any of their hits */
	for (size_t i = 0; ppid_wanted(c) && i < c->nprocs; i++)
		anc_take(c->procs[i]);
	/* once the clauses are known: a run that traces nothing loads nothing */
	if (backend_choose(c) < 0)
		goto out;
	if (providers_prepare(c) < 0) /* pid: its processes (pidprov.c) */
		goto out;
	if (d_destructive_refused(c->prog)) {
		say(c, "could not enable tracing: Destructive actions not "
		       "allowed");
		goto out;
	}
	if (copyout_check(c) < 0)
		goto out;
	if (o->quiet)
		d_set_quiet(c->prog, true);
	kprov_match(c); /* syscall, profile, tick, proc */
	if (vtime_check(c) < 0) /* a backend without it refuses */
		goto out;
	if (psargs_check(c) < 0) /* so does one without pr_psargs */
		goto out;
	if (ecred_check(c) < 0) /* ... or pr_euid, pr_egid */
		goto out;
	if (cred_check(c) < 0) /* ... or uid, gid */
		goto out;
	if (sess_check(c) < 0) /* ... or pr_pgid, pr_sid */
		goto out;
	if (o->statedir) {
		char rd[PATH_MAX];

		snprintf(rd, sizeof(rd), "%s/registry", o->statedir);
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd >= 0 && inotify_add_watch(ifd, rd,
						  IN_MOVED_TO | IN_CLOSE_WRITE |
							  IN_CREATE) < 0) {
			close(ifd);
			ifd = -1;
		}
	}
	refresh_all(c, true);
	if (c->enable_failed)
		goto out;

	/* every description must match something, unless -Z */
	{
		bool bad = false;

		for (unsigned ci = 0; ci < c->nclauses && !bad; ci++)
			for (unsigned j = 0; j < c->ndescs[ci] && !bad; j++) {
				char why[256];
				const char *w;

				/* -Z, or the zdefs option */
				if (c->descs[ci][j].matched || o->zero_ok ||
				    d_get_option(c->prog, "zdefs"))
					continue;
				w = kprov_why(c, &c->descs[ci][j], why,
					      sizeof(why));
				if (w)
					say(c, "invalid probe specifier %s: %s",
					    c->descs[ci][j].text, w);
				else
					say(c,
					    "invalid probe specifier %s: probe "
					    "description %s does not match any "
					    "probes",
					    c->descs[ci][j].text,
					    c->descs[ci][j].text);
				bad = true;
			}
		if (bad || kprov_arm(c) < 0)
			goto out;
	}
	if (!d_opt_quiet(c->prog)) {
		for (unsigned i = 0; i < o->nsrc; i++) {
			unsigned m = source_matches(c, i);

			if (o->src[i].name)
				say(c, "script '%s' matched %u probe%s",
				    o->src[i].name, m, m == 1 ? "" : "s");
			else {
				/* the descriptions, without the clause's body
				 */
				const char *t = o->src[i].text;
				int len = (int)strcspn(t, "/{");

				while (len &&
				       isspace((unsigned char)t[len - 1]))
					len--;
				say(c, "description '%.*s' matched %u probe%s",
				    len, t, m, m == 1 ? "" : "s");
			}
		}
	}
	/* declarations and no clause: nothing would ever fire, so, as
	 * DTrace's dtrace(1M), refuse unless -Z says zero is meant */
	if (!c->nclauses && !o->zero_ok && !d_get_option(c->prog, "zdefs")) {
		say(c, "no probes matched");
		goto out;
	}
	/*
	 * BEGIN fires before the commands go, as DTrace's does (its
	 * dtrace_go(), then the -c processes continued): what BEGIN
	 * prints comes first, and the run constants the kernel reads
	 * (kplan_fkey.c) are written before any of their hits
	 */
	/* the -p processes held at their dlopen()s and execs from here on
	 * (dlhold.c), before BEGIN may set them going */
	for (size_t i = 0; i < c->nprocs; i++) {
		struct tproc *pr = c->procs[i];

		if (!pr->held && (c->be->caps & BE_CAP_HOLD) && pr->target &&
		    !pr->created && !pr->exited)
			(void)dlhold_start(c, pr);
	}
	c->begun = true; /* hits read before wait until now */
	fire_dtrace(c, &c->begin, c->begin_clauses, c->nbegin);
#ifdef HAVE_BPF
	if (bpf_rcon_begun(c) < 0)
		goto out;
#endif
	kprov_start(c); /* tick-N counts from BEGIN */
	fflush(c->out); /* BEGIN's output before the commands' */
	/*
	 * let the commands go; they are held at their dlopen()s from here
	 * on (dlhold.c)
	 */
	for (size_t i = 0; i < c->nprocs; i++) {
		struct tproc *pr = c->procs[i];

		if (!pr->held)
			continue;
		if (!(c->be->caps & BE_CAP_HOLD) || !dlhold_handover(c, pr)) {
			/* no exec stop closes its site links */
			up_site_relink(c, pr);
			(void)ptrace(PTRACE_DETACH, pr->pid, NULL, NULL);
		}
		pr->held = false;
	}
	c->released = true;
	/* their holds' events, the start's tracefs work done (rtld.c) */
	rtld_holds_close();
	kbtf_release(); /* what start-up asked is remembered */
	loop(c, sfd, ifd);
#ifdef HAVE_BPF
	/* asked before teardown(): the backend's close frees what says it */
	kspec = bpf_kspec_on(c);
#endif
	teardown(c);
	if (o->verbose)
		say(c,
		    "%" PRIu64 " traced thread%s exited; %zu self-> "
		    "variable%s live",
		    c->thread_exits, c->thread_exits == 1 ? "" : "s",
		    d_self_live(c->prog), d_self_live(c->prog) == 1 ? "" : "s");
	c->exit_called = false; /* END runs after exit() too */
	fire_dtrace(c, &c->end, c->end_clauses, c->nend);
#ifdef HAVE_BPF
	/* speculations in the kernel: the generations never closed decided
	 * (their drops counted), the holds handed ahead of a place the
	 * walk never reached after an exit() forgotten (../d/spec.c) */
	if (kspec)
		d_kspec_end(c->prog,
			    c->kspec_until ? c->kspec_until : UINT64_MAX);
	if (kspec && d_kspec_missing(c->prog))
		say(c,
		    "%" PRIu64 " speculated record%s missing at their "
		    "buffer's commit() or discard()",
		    d_kspec_missing(c->prog),
		    d_kspec_missing(c->prog) == 1 ? " was" : "s were");
	if (c->kspec_unarmed)
		say(c,
		    "%" PRIu64 " firing%s of clauses with speculations not "
		    "run: their process was not armed at the probe",
		    c->kspec_unarmed, c->kspec_unarmed == 1 ? "" : "s");
	if (c->garr_unarmed)
		say(c,
		    "%" PRIu64 " firing%s of clauses with global arrays kept "
		    "in the kernel not run: their process was not armed at "
		    "the probe",
		    c->garr_unarmed, c->garr_unarmed == 1 ? "" : "s");
#endif
	d_report_drops(c->prog, stderr);
	d_print_aggs(c->prog, c->out);
	ret = c->status;
out:
	kprov_stop(c);
	if (c->be) /* not chosen when the run ended before */
		c->be->close(c);
	for (size_t i = 0; i < c->nprocs; i++) {
		struct tproc *pr = c->procs[i];

		if (pr->created && !pr->exited) {
			kill(pr->pid, SIGKILL);
			waitpid(pr->pid, NULL, 0);
		}
	}
	if (c->out && fflush(c->out) != 0 && ret == 0) {
		say(c, "write error: %s", strerror(errno));
		ret = 1;
	}
	if (c->out && c->out != stdout)
		fclose(c->out);
	if (sfd >= 0)
		close(sfd);
	if (ifd >= 0)
		close(ifd);
	return ret;
}

/*
 * The run's state lives as long as the process: dtrace exits as soon as
 * dt_trace() returns, and the exit gives everything back at once, which
 * a teardown piece by piece would only do slower.  A static pointer keeps
 * it reachable, so leak checkers see it as the live state it is.
 */
static struct consumer *volatile the_consumer; /* volatile: kept */

int dt_trace(const struct dt_trace_opts *o)
{
	struct consumer *c;

	c = xcalloc(1, sizeof(*c));

	the_consumer = c;
	c->o = o;
	return consumer_run(c);
}
