/* SPDX-License-Identifier: MIT */
/*
 * kspec_model.h - the kernel's speculation words in C, one place for the
 * unit tests that need them: t-cgspec checks the generated programs'
 * steps (cgen_spec.c) against it, t-dlang's random runs step it to make
 * the tags d/spec.c's held generations are handed.
 *
 * A word per buffer (ID - 1): bit 0 active, bits 1-63 a count that only
 * grows.  Each step is what the kernel's one atomic instruction does
 * (doc/DESIGN.md's "Speculations in the kernel"):
 *  - speculation(): fetch_or(1) on each word in turn, stopping at the
 *    first whose old bit 0 was clear: the ID is i + 1, c0 the old count;
 *    none: ID 0 (a fetch_or of an active word changes nothing);
 *  - speculate(ID): ID 0 nothing; else fetch_add(2): the sequence is the
 *    old count, the old bit 0 whether the buffer was active;
 *  - commit(ID), discard(ID): ID 0 nothing; else fetch_and(~1): the old
 *    bit 0 says whether it closed the buffer, the old count where.
 * An ID past nspec (or negative) is the caller's to refuse: here it is
 * a fault (KSM_FAULT), nothing stepped.  The tags are struct
 * ubpf_kspec's fields: act REACHED (2) | the old bit 0.
 */
#ifndef USDT_KSPEC_MODEL_H
#define USDT_KSPEC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define KSM_REACHED 2u
#define KSM_FAULT (-1)

struct ksm_tag {
	uint32_t id, act;
	uint64_t n;
};

/* speculation(): the tag; the ID it took (0: none) */
static inline uint32_t ksm_take(uint64_t *w, unsigned nspec, struct ksm_tag *t)
{
	for (unsigned i = 0; i < nspec; i++) {
		uint64_t old = w[i];

		w[i] |= 1;
		if (!(old & 1)) {
			*t = (struct ksm_tag){ i + 1, KSM_REACHED, old >> 1 };
			return i + 1;
		}
	}
	*t = (struct ksm_tag){ 0, KSM_REACHED, 0 };
	return 0;
}

/* speculate(id) (close: commit() or discard()): 0 and the tag, or
 * KSM_FAULT for an ID past nspec, nothing stepped */
static inline int ksm_step(uint64_t *w, unsigned nspec, int64_t id, bool close,
			   struct ksm_tag *t)
{
	uint64_t old;

	if (!id) {
		*t = (struct ksm_tag){ 0, KSM_REACHED, 0 };
		return 0;
	}
	if ((uint64_t)id > nspec)
		return KSM_FAULT;
	old = w[id - 1];
	if (close)
		w[id - 1] &= ~(uint64_t)1;
	else
		w[id - 1] += 2;
	*t = (struct ksm_tag){ (uint32_t)id, KSM_REACHED | (uint32_t)(old & 1),
			       old >> 1 };
	return 0;
}

#endif /* USDT_KSPEC_MODEL_H */
