/* SPDX-License-Identifier: MIT */
/*
 * rbwake.bpf.h - when a record written to the ring buffer rb wakes the
 * reader: the rule of every program that writes one (usdt.bpf.c's
 * usdt_fire(), kprov.bpf.h's kprov_emit(), unw.bpf.c's ustack_walk();
 * ../cgen.c emits the same for the generated programs, which share
 * rbwake with the unwinder they tail-call: ../bpf_cg.c makes it).
 * Included after rb's declaration.
 *
 * Below half full, no wake-up: the reader reads every switchrate anyway
 * (../bpf.c polls with that timeout).  At half full or more, one
 * wake-up per position of the reader (BPF_RB_CONS_POS), not one a
 * record: rbwake keeps the position, plus 1 (0: none yet), at which the
 * last one was asked for, written once its record is in.  Why no
 * wake-up is lost:
 *
 *  - the reader (../bpf.c) poll()s libbpf's epoll descriptor (never
 *    epoll_wait()), then reads the ring, its position moving past each
 *    record it read.  A wake-up puts the ring on that epoll's ready
 *    list; a poll() takes it off only when the ring's own poll finds
 *    no data (the producer's position at the consumer's), so it stays
 *    there, and poll() returns at once, while anything is unread
 *    (however much a round reads);
 *  - a wake-up asked for at position P with its record in the ring
 *    means the ring holds data from P on for as long as the reader is
 *    at P: it cannot find the ring empty at P, so it cannot go to sleep
 *    there.  Another wake-up at P changes nothing; once the reader
 *    moved (positions only grow), the next record at half full asks
 *    for one again;
 *  - half full counts the record being written (len, its bytes with
 *    the ring's 8-byte header and rounding: 16 more; 0 for a reserved
 *    one, which AVAIL_DATA already counts): the record that fills the
 *    ring past half asks.  So a record at most half the ring's size
 *    that finds no room finds a ring some record since the reader's
 *    last move filled past half, and that one asked (before, counting
 *    only what was in, two 7 KiB records of ustack() filled a 16 KiB
 *    ring without a wake-up and the reader slept, the drops untold,
 *    until its switchrate: run-trace.sh's wakeu on 6.1);
 *  - a record that found no room (a drop) asks for nothing and notes
 *    nothing; a note from a CPU that read an older position only makes
 *    the next record ask again.  Programs on several CPUs may both ask
 *    at one position: an extra wake-up, never a missing one.
 *
 * A wake-up is an irq_work and a self-IPI (an MSR write that leaves a
 * VM): one a record, where the reader fell behind, was two thirds of
 * the unwinder's time per hit and about 30% of a printf() clause's.
 */
#ifndef RBWAKE_BPF_H
#define RBWAKE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rbwake SEC(".maps");

/* a record's wake-up: its flags, and what to note once it is in */
struct rbw {
	__u64 *lw; /* rbwake's value, where a wake-up is asked for */
	__u64 cp;  /* the reader's position + 1 */
	__u64 fl;  /* bpf_ringbuf_output()'s or _submit()'s flags */
};

/* The flags for the record of len bytes about to be written to rb. */
static __always_inline void rbw_ask(struct rbw *w, __u64 len)
{
	__u32 z = 0;

	w->lw = 0;
	w->cp = 0;
	w->fl = BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + len + 16 <
	    bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE) / 2)
		return;
	w->cp = bpf_ringbuf_query(&rb, BPF_RB_CONS_POS) + 1;
	w->lw = bpf_map_lookup_elem(&rbwake, &z);
	if (!w->lw || *w->lw != w->cp)
		w->fl = BPF_RB_FORCE_WAKEUP;
}

/* The record is in (not for one dropped): note its wake-up. */
static __always_inline void rbw_done(const struct rbw *w)
{
	if (w->fl == BPF_RB_FORCE_WAKEUP && w->lw)
		*w->lw = w->cp;
}

#endif
