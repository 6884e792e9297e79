/* SPDX-License-Identifier: MIT */
/*
 * vtime.bpf.h - D's vtimestamp in the BPF programs: the time the firing
 * thread has run on a CPU, in nanoseconds, read at the hit.  Part of
 * usdt.bpf.c, included before usdt_hit(); kprov.bpf.h uses it too.
 * ../cgen_rec.c emits the same code for the generated programs: keep
 * the two in step.
 *
 * The kernel keeps no per-thread on-CPU clock a BPF program can read to
 * the nanosecond: task->se.sum_exec_runtime moves only when the
 * scheduler accounts the running thread (a tick, a switch, a wakeup),
 * so between two of those it lags by up to a tick.  So the thread's
 * time is kept here, for the threads that fired a probe only, in the
 * hash map vtimes keyed by the task_struct's address: {since, acc}, the
 * time it last came onto a CPU (bpf_ktime_get_ns(), CLOCK_MONOTONIC)
 * and what it ran before that.  A hit reads acc + (now - since).
 *
 *	vtime_switch	raw tracepoint sched_switch (preempt, prev, next,
 *		prev_state; the last since 5.18): prev leaves the CPU,
 *		acc += now - since; next comes on, since = now.  A thread
 *		whose prev_state is TASK_DEAD leaves for good: its entry
 *		is deleted, so the map holds live threads only and a
 *		recycled task_struct starts afresh.  Threads without an
 *		entry cost two failed lookups per switch.
 *
 * Seeding.  A thread's first hit makes its entry: acc is its
 * sum_exec_runtime then (at the offset the loader read from the kernel's
 * BTF, vtime_sumexec plus one), since is now.  That is the one error of
 * the clock: the part of the current slice the scheduler had not
 * accounted yet at the first hit (at most a tick, 1/CONFIG_HZ) is never
 * counted; every later nanosecond on a CPU is, the probes' own traps and
 * programs included.  A full map (UBPF_VTIME_MAX live threads) leaves a
 * thread without an entry: its hits read sum_exec_runtime alone.
 *
 * The clock needs every switch of a traced thread reported, so it
 * checks that it got them.  A kernel that runs no BPF program while some
 * tasks are current misses the switches from them: the VM this project's
 * CI runs on hides its own agent (PID 1's threads) so, and a traced
 * thread switched back in from one of them would keep a stale since and
 * count its time off the CPU.  Each entry says whether its thread is on
 * a CPU (on): a switch out finds it set, a switch in finds it clear, and
 * the thread's own hits find it set.  Any other finding means a switch
 * went unreported and the time since it is unknown: the entry is marked
 * lost for good, and every later hit of the thread records
 * UBPF_VTIME_LOST instead of a value (its clauses that read vtimestamp
 * fault; vtime.c says why).  No seed again: values either side of a
 * reseed would differ by the unaccounted slice, and D subtracts them.
 *
 * The switch program and the map are loaded only when a clause reads
 * vtimestamp (vtime_on, a frozen .rodata constant: with it 0 the
 * verifier does not walk vtime_rec(), and usdt_hit() costs what it did).
 * An entry is touched only by its own thread's hits and by the switches
 * that move that thread: no locks.  The switch program runs with
 * preemption off; the hit programs may be preempted (uprobes), which
 * vtime_now() and vtime_seed() allow for.
 */
#ifndef VTIME_BPF_BPF_H
#define VTIME_BPF_BPF_H

/* set by the loader (../vtime.c) */
const volatile __u32 vtime_on = 0;
const volatile __u32 vtime_sumexec = 0; /* offsetof(task, se.sum_exec_runtime) + 1 */
/* DTRACE_VTIME_LOST=1 (bpf.c, a test hook): every entry seeded lost, so
 * a thread's first hit has its value and each later one none */
const volatile __u32 vtime_lose = 0;

#define VT_TASK_DEAD 0x80 /* include/linux/sched.h */

struct vtime_ent {
	__u64 since; /* came onto a CPU, ns */
	__u64 acc;   /* ran before that, ns */
	__u32 on;    /* on a CPU now, as the switches reported */
	__u32 lost;  /* a switch went unreported: unknown from here */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UBPF_VTIME_MAX); /* 1 when vtime_on is 0 */
	__type(key, __u64);
	__type(value, struct vtime_ent);
} vtimes SEC(".maps");

SEC("raw_tp/sched_switch")
int vtime_switch(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 prev = ctx->args[1], next = ctx->args[2];
	__u64 now = bpf_ktime_get_ns();
	struct vtime_ent *v;

	v = bpf_map_lookup_elem(&vtimes, &prev);
	if (v) {
		if (!ctx->args[0] && (ctx->args[3] & VT_TASK_DEAD)) {
			bpf_map_delete_elem(&vtimes, &prev);
		} else {
			if (!v->on) /* its switch in was not reported */
				v->lost = 1;
			v->acc += now - v->since;
			v->on = 0;
		}
	}
	v = bpf_map_lookup_elem(&vtimes, &next);
	if (v) {
		if (v->on) /* its last switch out was not reported */
			v->lost = 1;
		v->since = now;
		v->on = 1;
	}
	return 0;
}

/* the thread's se.sum_exec_runtime, or 0 where BTF did not say where */
static __always_inline __u64 vtime_sumexec_read(__u64 task)
{
	__u64 v = 0;

	if (vtime_sumexec)
		bpf_probe_read_kernel(&v, sizeof(v),
				      (const void *)(task + vtime_sumexec - 1));
	return v;
}

/*
 * A thread's first hit: its entry, {now, sum_exec_runtime}.  The program
 * may be preempted between reading the clock and inserting the entry;
 * the switch programs then find no entry, and an entry inserted after
 * the thread came back would carry a since from before it left, so its
 * next switch would count the time off the CPU.  The scheduler moves
 * sum_exec_runtime whenever it takes the thread off (and at each tick),
 * so an unchanged value around the insert means no switch came between:
 * else the entry is withdrawn and made again.  (vtime_check() refuses
 * vtimestamp where BTF gives no offset, so vtime_sumexec is set here.)
 */
static __always_inline __u64 vtime_seed(__u64 task)
{
	struct vtime_ent n;
	__u64 e1 = 0, e2;

#pragma unroll
	for (int i = 0; i < 3; i++) {
		e1 = vtime_sumexec_read(task);
		n.since = bpf_ktime_get_ns();
		n.acc = e1;
		n.on = 1;
		n.lost = vtime_lose;
		if (bpf_map_update_elem(&vtimes, &task, &n, BPF_NOEXIST))
			return e1; /* map full, or made meanwhile */
		e2 = vtime_sumexec_read(task);
		if (e1 == e2)
			return e1;
		bpf_map_delete_elem(&vtimes, &task);
	}
	return e1; /* no entry: the next hit tries again */
}

/*
 * The current thread's vtimestamp, its entry made at its first hit.
 * The program may be preempted while it reads (uprobe programs, and
 * those of faultable syscall tracepoints, run preemptible): a switch
 * between reading the entry and the clock would count the time off the
 * CPU, or take it away.  So {since, acc} are read around the clock, as
 * a seqlock's reader does: since unchanged across means no switch came
 * between (each switch back onto a CPU moves since); else read again.
 */
static __always_inline __u64 vtime_now(void)
{
	__u64 task = bpf_get_current_task(), now = 0, s1, s2, acc = 0;
	struct vtime_ent *v = bpf_map_lookup_elem(&vtimes, &task);

	if (v) {
		/* the thread runs this: a switch in went unreported */
		if (!*(volatile __u32 *)&v->on)
			v->lost = 1;
		if (*(volatile __u32 *)&v->lost)
			return UBPF_VTIME_LOST;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			s1 = *(volatile __u64 *)&v->since;
			acc = *(volatile __u64 *)&v->acc;
			now = bpf_ktime_get_ns();
			s2 = *(volatile __u64 *)&v->since;
			if (s1 == s2)
				break;
		}
		return acc + (now - s2);
	}
	return vtime_seed(task);
}

/*
 * The vtimestamp into the record being built in s, at off (after the
 * arguments, a multiple of 8), flagged; the record goes on after it.
 */
static __always_inline __u32 vtime_rec(struct scratch *s, __u32 off,
				       struct ubpf_rec *h)
{
	if (off > UBPF_SCRATCH / 2 - 8)
		return off;
	*(__u64 *)(s->b + off) = vtime_now();
	h->flags |= UBPF_RF_VTIME;
	return off + 8;
}

#endif /* VTIME_BPF_BPF_H */
