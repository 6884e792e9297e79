// SPDX-License-Identifier: MIT
/*
 * psargs.c - D's curpsinfo->pr_psargs, for the consumer's side: the
 * firing process's arguments, joined by blanks, at most 79 bytes, as
 * DTrace's psinfo_t has them (pr_psargs, char[PRARGSZ] = 80); and
 * pr_euid and pr_egid, the firing thread's effective ids, which come the
 * same way (the BPF record, UBPF_RF_ECRED: task_struct's cred, struct
 * cred's euid and egid, at the offsets the BTF gives; ecred_offs()),
 * are dtrace's own at BEGIN, END and tick-N, and are refused the same
 * way elsewhere (ecred_check()); so do pr_pgid and pr_sid, the process
 * group's and session's ids (signal_struct's pids; sess_offs(),
 * sess_check()); the generated programs' plans read those four at the
 * same offsets where a clause the kernel runs at a uprobe reads them
 * (bpf_agg_cgen.c: kplan.h's D_KPLAN_ECRED, D_KPLAN_SESS).  ppid gets the
 * same help where a clause reads it (ppid_offs(): real_parent's tgid
 * at the hit, UBPF_RF_PPID), with no refusal: records.c finds it
 * otherwise.
 * uid and gid (curpsinfo's pr_uid and pr_gid), the firing thread's
 * real ids, need no offsets (bpf_get_current_uid_gid(), UBPF_RF_CRED),
 * and are refused the same way by a backend that cannot take them at
 * the hit (cred_check()).
 *
 * Where it comes from.  A probe in a traced process: the BPF backend's
 * program reads, at the hit, the first 80 bytes of the process's
 * argument area (task_struct's mm, mm_struct's arg_start to arg_end:
 * the argv strings exec laid out, each ending in a NUL), at offsets the
 * kernel's BTF gives (psargs_offs()), into the record (bpf/usdt.bpf.c's
 * psargs_rec()); psargs_text() turns them into DTrace's text.  That is
 * the area ps(1) shows: a process that rewrites its argv (a
 * setproctitle()) shows what it wrote, where Solaris keeps a copy made
 * at exec.  BEGIN, END and tick-N fire in dtrace itself: its own
 * arguments (psargs_self()).
 *
 * The other backends cannot give it.  Uprobe events' perf samples and
 * the fasttrap module's records carry no process memory but the
 * arguments', and reading /proc/PID/cmdline when the record is read
 * would give what the process holds then, or nothing once it has
 * exited: a script whose traced probes read pr_psargs (or whose ERROR
 * clauses do, beside a traced probe: ERROR reads the faulting firing's)
 * is refused before anything is enabled (psargs_check()), naming the
 * backend, rather than given the arguments of another moment.  The
 * kernel providers' records (syscall, profile, proc: bpf/kprov.bpf.h)
 * copy it as the USDT records do, so proc:::exec-success gives the new
 * image's.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "consumer_impl.h"

#define PRARGSZ 80

/*
 * A clause reads what need says at a probe of a traced process, or an
 * ERROR clause does and such a probe's clause may fault (c->eneeds)
 */
static bool wanted(const struct consumer *c, uint32_t need)
{
	for (unsigned ci = 0; c->prog && ci < c->nclauses; ci++) {
		if (!((d_clause_needs(c->prog, ci) | c->eneeds) & need))
			continue;
		for (unsigned j = 0; j < c->ndescs[ci]; j++)
			if (!desc_self(&c->descs[ci][j]))
				return true;
	}
	return false;
}

bool psargs_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_PSARGS);
}

bool ecred_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_ECRED);
}

bool ppid_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_PPID);
}

bool anc_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_ANC);
}

bool sess_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_SESS);
}

bool cred_wanted(const struct consumer *c)
{
	return wanted(c, D_NEED_CRED);
}

/*
 * The n bytes a record copied of an argument area as DTrace's text,
 * into buf (PRARGSZ bytes): the NUL that ends the last argument
 * dropped, the others blanks (exec joins the arguments with one blank
 * there), cut to PRARGSZ - 1 bytes.
 */
const char *psargs_text(const uint8_t *p, size_t n, char *buf)
{
	if (n > PRARGSZ)
		n = PRARGSZ;
	if (n && p[n - 1] == '\0')
		n--;
	if (n > PRARGSZ - 1)
		n = PRARGSZ - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = p[i] ? (char)p[i] : ' ';
	buf[n] = '\0';
	return buf;
}

/* dtrace's own, for its BEGIN, END and tick-N: its argv is unchanged */
const char *psargs_self(void)
{
	static char buf[PRARGSZ];
	static bool done;
	uint8_t raw[PRARGSZ];
	size_t n = 0;
	FILE *fp;

	if (done)
		return buf;
	done = true;
	if ((fp = fopen("/proc/self/cmdline", "re"))) {
		n = fread(raw, 1, sizeof(raw), fp);
		fclose(fp);
	}
	return psargs_text(raw, n, buf);
}

#ifdef HAVE_BPF
/*
 * Offsets + 1 from the kernel's BTF (kbtf.c) into o: task_struct's
 * member tm, and struct st's members m1 and m2.
 */
static int offs(const char *tm, const char *st, const char *m1,
		const char *m2, uint32_t o[3])
{
	long off[3] = {kbtf_member("task_struct", tm), kbtf_member(st, m1),
		       kbtf_member(st, m2)};

	if (off[0] < 0 || off[1] < 0 || off[2] < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		o[i] = (uint32_t)off[i] + 1;
	return 0;
}

int psargs_offs(uint32_t o[3])
{
	return offs("mm", "mm_struct", "arg_start", "arg_end", o);
}

int ecred_offs(uint32_t o[3])
{
	return offs("cred", "cred", "euid", "egid", o);
}

int ppid_offs(uint32_t o[2])
{
	uint32_t t[3];

	/* the parent's tgid: task_struct's own member, twice */
	if (offs("real_parent", "task_struct", "tgid", "tgid", t) < 0)
		return -1;
	o[0] = t[0];
	o[1] = t[1];
	return 0;
}

int sess_offs(uint32_t o[4])
{
	static const char *const st[4] = {"task_struct", "signal_struct", "pid",
					  "upid"};
	static const char *const mb[4] = {"signal", "pids", "numbers", "nr"};
	long off[4];

	for (int i = 0; i < 4; i++)
		off[i] = kbtf_member(st[i], mb[i]);
	for (int i = 0; i < 4; i++) {
		if (off[i] < 0)
			return -1;
		o[i] = (uint32_t)off[i] + 1;
	}
	return 0;
}
#endif

int psargs_check(struct consumer *c)
{
	if (!psargs_wanted(c))
		return 0;
#ifdef HAVE_BPF
	if (c->be && (c->be->caps & BE_CAP_PSARGS)) {
		uint32_t o[3];

		if (psargs_offs(o) == 0)
			return 0;
		say(c, "cannot use curpsinfo->pr_psargs: the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux) does not say where "
		       "task_struct keeps mm, or mm_struct arg_start and "
		       "arg_end");
		return -1;
	}
#endif
	say(c,
	    "cannot use curpsinfo->pr_psargs with the %s backend: its records "
	    "carry no copy of the process's arguments, and /proc read later "
	    "would give another moment's; pr_psargs needs the BPF backend",
	    c->be ? c->be->name : "chosen");
	return -1;
}

/* Refuse need where this run cannot take it at the hit: 0, or -1 said. */
static int need_check(struct consumer *c, bool want, int (*offs_of)(uint32_t *),
		      const char *what, const char *btfwhat)
{
	if (!want)
		return 0;
#ifdef HAVE_BPF
	if (c->be && (c->be->caps & BE_CAP_PSARGS)) {
		uint32_t o[4];

		if (offs_of(o) == 0)
			return 0;
		say(c,
		    "cannot use %s: the kernel's BTF "
		    "(/sys/kernel/btf/vmlinux) does not say where %s",
		    what, btfwhat);
		return -1;
	}
#endif
	say(c,
	    "cannot use %s with the %s backend: its records carry no copy of "
	    "them, and /proc read later would give another moment's; they "
	    "need the BPF backend",
	    what, c->be ? c->be->name : "chosen");
	return -1;
}

int sess_check(struct consumer *c)
{
#ifdef HAVE_BPF
	int (*offs_of)(uint32_t *) = sess_offs;
#else
	int (*offs_of)(uint32_t *) = NULL;
#endif

	return need_check(c, sess_wanted(c), offs_of,
			  "curpsinfo->pr_pgid or pr_sid",
			  "task_struct keeps signal, signal_struct pids, "
			  "struct pid numbers or struct upid nr");
}

int ecred_check(struct consumer *c)
{
	if (!ecred_wanted(c))
		return 0;
#ifdef HAVE_BPF
	if (c->be && (c->be->caps & BE_CAP_PSARGS)) {
		uint32_t o[3];

		if (ecred_offs(o) == 0)
			return 0;
		say(c, "cannot use curpsinfo->pr_euid or pr_egid: the kernel's "
		       "BTF (/sys/kernel/btf/vmlinux) does not say where "
		       "task_struct keeps cred, or struct cred euid and egid");
		return -1;
	}
#endif
	say(c,
	    "cannot use curpsinfo->pr_euid or pr_egid with the %s backend: "
	    "its records carry no credentials, and /proc read later would "
	    "give another moment's; they need the BPF backend",
	    c->be ? c->be->name : "chosen");
	return -1;
}

/*
 * uid and gid at a traced probe: only a backend that reads them at the
 * hit (BE_CAP_CRED) gives them.  No other value is exact: a process may
 * change its real ids at any time (a daemon dropping root, a forked
 * child that calls setuid() before it fires, which it may do before
 * dtrace even reads its fork record), each thread has its own (the
 * raw system calls change only the caller's), and a /proc snapshot
 * says what they were when it was read, not at the hit.  Telling when
 * they cannot change (no CAP_SETUID, no user namespace, no set-id exec)
 * would take every thread's capabilities and every exec as timed facts.
 */
int cred_check(struct consumer *c)
{
	if (!cred_wanted(c) || (c->be && (c->be->caps & BE_CAP_CRED)))
		return 0;
	say(c,
	    "cannot use uid or gid (curpsinfo->pr_uid, pr_gid) with the %s "
	    "backend: its records carry no credentials, and a process may "
	    "change its ids between /proc's answer and a hit (a forked "
	    "child's setuid()); they need the BPF backend",
	    c->be ? c->be->name : "chosen");
	return -1;
}
