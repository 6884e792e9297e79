// SPDX-License-Identifier: MIT
/*
 * kspec_read.c - the rule for reading the ring where the kernel keeps
 * the speculation buffers' words (doc/DESIGN.md's "Speculations in the
 * kernel: the build in steps", step 2; d/spec.c's "Held generations"
 * pairs the closes with their generations once the rule has put every
 * tag they need in hand).  No BPF and no consumer state: a hit is its
 * struct ksr_hit (kspec_read.h) inside the caller's own, the hand-over
 * the caller's callback, so tests/unit/t-kread.c runs this file on
 * simulated rings.
 *
 * A commit() or discard() that found its buffer active (a close, the
 * out area's UBPF_KOUT_CLOSE) closed the generation of every
 * speculate() step that came before its own since the open: d/spec.c
 * may run it only once every tag whose step came before its step is in
 * hand.  The record of such a step may still be on its way when the
 * read meets the close (another CPU's hit that stepped, then was slower
 * to write), and a sort of the read by stamp does not put it before the
 * close.  So a read that holds a close (ksr_close_in()):
 *  - reads the time B (CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock),
 *    then calls the barrier (bpf_kagg_barrier(): every program running
 *    when it is called has ended when it returns), then drains the ring
 *    once more, uncapped, marking what that drain read (after): every
 *    hit stamped before B started before the barrier, so its record has
 *    been read (or lost, and counted);
 *  - sorts, and cuts (ksr_cut()) at B, or earlier, at the stamp of the
 *    first close that the drain after the barrier read: such a close
 *    was still running at B, and a hit that started after B may have
 *    stepped before it, so it waits for the next read's barrier, and
 *    with it every hit stamped after it (the output stays in time
 *    order).  The hits at or after the cut wait for the next read
 *    (later), as a tick's due time keeps them;
 *  - hands over, in time order, the tags of every hit stamped before B
 *    (ksr_pass(): the caller's take(), each hit once, ktaken), before
 *    the first hit is run, those cut included: opens, holds and closes
 *    (ahead; a close cut is then run told in the next read).  The walk
 *    then runs each hit before the cut at its place: a close, told, is
 *    paired.
 * Why that is enough: the generated program reads the stamp before the
 * step (the plan's p->ts).  A close C run by this read was read before
 * B (by this read's first drain or an earlier read: a close the drain
 * after the barrier read is at or after the cut), so a hit H whose step
 * came before C's has stamp(H) < step(H) < step(C) < C's record read <
 * B: H started before the barrier, its record is in this read or an
 * earlier one (run then, its tags handed at their place, or kept for
 * this one), and the pass hands its tags over before C runs.  A read
 * without a close needs no barrier, no cut and no pass: its hits hand
 * their tags over at their place.
 */
#include "config.h"

#include "kspec_read.h"

#include "bpf/kagg_bpf.h"

/* Whether the drained read holds a close (a barrier is then due) */
bool ksr_close_in(const struct ksr_hits *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (ksr_at(v, i)->ks & UBPF_KOUT_CLOSE)
			return true;
	return false;
}

/* The cut: b (the time read before the barrier), or the stamp of the
 * first close the drain after the barrier read where that is earlier;
 * the hits stamped at or after it marked later (those before keep
 * their mark: a tick's due time may have set it).  Returns the cut. */
uint64_t ksr_cut(const struct ksr_hits *v, uint64_t b)
{
	for (size_t i = 0; i < v->n; i++) {
		struct ksr_hit *h = ksr_at(v, i);

		if (h->after && (h->ks & UBPF_KOUT_CLOSE) && h->stamp < b)
			b = h->stamp;
	}
	for (size_t i = 0; i < v->n; i++) {
		struct ksr_hit *h = ksr_at(v, i);

		if (h->stamp >= b)
			h->later = true;
	}
	return b;
}

/* In the read's order (sorted by stamp), each hit stamped before b (the
 * time read before the barrier: cut or not) that holds a tag and is not
 * taken yet: take(), then marked.  How many. */
size_t ksr_pass(const struct ksr_hits *v, uint64_t b,
		void (*take)(void *hit, void *arg), void *arg)
{
	size_t m = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct ksr_hit *h = ksr_at(v, i);

		if (h->stamp >= b || h->ktaken || !(h->ks & UBPF_KOUT_SPEC))
			continue;
		take((char *)v->base + i * v->stride, arg);
		h->ktaken = true;
		m++;
	}
	return m;
}
