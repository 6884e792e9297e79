// SPDX-License-Identifier: MIT
/*
 * vtime.c - D's vtimestamp: the time the firing thread has run on a
 * CPU, in nanoseconds (DTrace's meaning), for the consumer's side.
 *
 * Where it comes from.  A probe in a traced thread: the BPF backend's
 * programs keep the thread's on-CPU time from sched_switch and put it in
 * the record (bpf/vtime.bpf.h says how, and what its one error is); the
 * decoders (bpf.c, kprov.c) take it with vtime_rec().  Those programs
 * check that the kernel reported every switch of the thread; where it
 * did not, the thread's clock is lost and its records say so: the firing
 * gets D_VTIME_UNKNOWN, which a clause faults on reading (DTrace's
 * illegal operation, ERROR fires), and the first such record of the run
 * says why on stderr.  A value that is not the thread's time is never
 * given.  BEGIN, END and
 * tick-N fire in dtrace itself: their vtimestamp is dtrace's own thread
 * CPU clock (CLOCK_THREAD_CPUTIME_ID, records.c's fire_self()).
 *
 * The other backends cannot give it.  The uprobe events backend's perf
 * samples carry no per-thread CPU time, and the fasttrap module's
 * records neither: a script whose traced probes read vtimestamp is
 * refused before anything is enabled (vtime_check()), naming the
 * backend, rather than given a wrong clock.
 *
 * What is wanted is known once the clauses are compiled and their
 * descriptions parsed: a clause reads vtimestamp (D_NEED_VTIME) and one
 * of its descriptions can match a probe that fires in a traced thread
 * (any but BEGIN, END, ERROR and tick-N), or an ERROR clause reads it
 * and such a probe's clause may fault (ERROR fires in its context).
 * bpf.c then loads usdt_hit_vt instead of usdt_hit, the switch program
 * and a map of UBPF_VTIME_MAX threads, with the offset of task_struct's
 * se.sum_exec_runtime (from the kernel's BTF) to seed a thread's clock
 * at its first hit; or, for generated programs, cgen_rec.c makes the
 * same switch program, map and record.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer_impl.h"
#ifdef HAVE_BPF
#include <bpf/libbpf.h>

#include "bpf/usdt_bpf.h"
#endif

bool desc_self(const struct dt_desc *d)
{
	bool dtrace = !*d->prov || !strcmp(d->prov, "dtrace");
	bool profile = !*d->prov || !strcmp(d->prov, "profile");

	if (dtrace && (!strcmp(d->name, "BEGIN") || !strcmp(d->name, "END") ||
		       !strcmp(d->name, "ERROR")))
		return true;
	return profile && !strncmp(d->name, "tick-", 5);
}

bool vtime_wanted(const struct consumer *c)
{
	for (unsigned ci = 0; c->prog && ci < c->nclauses; ci++) {
		/* an ERROR clause reads the faulting firing's (c->eneeds) */
		if (!((d_clause_needs(c->prog, ci) | c->eneeds) & D_NEED_VTIME))
			continue;
		for (unsigned j = 0; j < c->ndescs[ci]; j++)
			if (!desc_self(&c->descs[ci][j]))
				return true;
	}
	return false;
}

#ifdef HAVE_BPF
/* offsetof(struct task_struct, se.sum_exec_runtime), or -1 */
long vtime_sumexec_off(void)
{
	long se = kbtf_member("task_struct", "se");
	long in = kbtf_member("sched_entity", "sum_exec_runtime");

	return se >= 0 && in >= 0 ? se + in : -1;
}
#endif

bool vtime_lose(void)
{
	const char *s = getenv("DTRACE_VTIME_LOST");

	return s && !strcmp(s, "1");
}

int vtime_check(struct consumer *c)
{
	if (!vtime_wanted(c))
		return 0;
#ifdef HAVE_BPF
	if (c->be && (c->be->caps & BE_CAP_VTIME)) {
		if (vtime_sumexec_off() >= 0)
			return 0;
		say(c, "cannot use vtimestamp: the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux) does not say where "
		       "task_struct keeps se.sum_exec_runtime");
		return -1;
	}
#endif
	say(c,
	    "cannot use vtimestamp with the %s backend: its records carry "
	    "no per-thread CPU time; vtimestamp needs the BPF backend",
	    c->be ? c->be->name : "chosen");
	return -1;
}

bool vtime_rec(struct consumer *c, const uint8_t *raw, size_t len,
	       size_t *off, pid_t tid, uint64_t *vt)
{
	if (*off + 8 > len)
		return false;
	memcpy(vt, raw + *off, 8);
	*off += 8;
#ifdef HAVE_BPF
	if (*vt != UBPF_VTIME_LOST)
		return true;
	*vt = D_VTIME_UNKNOWN;
	if (!c->vtime_lost_said) {
		c->vtime_lost_said = true;
		say(c,
		    "vtimestamp of thread %d is unknown from here on: the "
		    "kernel did not report one of its switches onto or off "
		    "a CPU; clauses that read it fault (illegal operation)",
		    (int)tid);
	}
#endif
	return true;
}
