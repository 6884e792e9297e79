/* SPDX-License-Identifier: MIT */
/*
 * kspec_read.h - the rule for reading the ring where the kernel keeps the
 * speculation buffers' words (kspec_read.c; doc/DESIGN.md's
 * "Speculations in the kernel: the build in steps", step 2).
 */
#ifndef USDT_KSPEC_READ_H
#define USDT_KSPEC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the rule needs of a hit, kept inside the caller's own hit */
struct ksr_hit {
	uint64_t stamp; /* bpf_ktime_get_ns(), read before the hit's step */
	uint64_t ks;	/* its out area's ran word: UBPF_KOUT_SPEC, _CLOSE */
	bool after;	/* read by the drain after the barrier */
	bool ktaken;	/* its tags handed over by a pass */
	bool later;	/* at or after the cut: the next read's */
};

/* A read's hits: n of them from base, stride bytes apart, each with its
 * struct ksr_hit at off */
struct ksr_hits {
	void *base;
	size_t n, stride, off;
};

static inline struct ksr_hit *ksr_at(const struct ksr_hits *v, size_t i)
{
	return (struct ksr_hit *)((char *)v->base + i * v->stride + v->off);
}

bool ksr_close_in(const struct ksr_hits *v);
uint64_t ksr_cut(const struct ksr_hits *v, uint64_t b);
size_t ksr_pass(const struct ksr_hits *v, uint64_t b,
		void (*take)(void *hit, void *arg), void *arg);

#endif /* USDT_KSPEC_READ_H */
