// SPDX-License-Identifier: MIT
/*
 * fuzz-dof.c - fuzz the DOF validator and reader (sdk/dof_check.c).
 *
 * Input: a DOF blob, as a helper copies it out of a process.  Seeds are
 * the .SUNW_dof sections of real `dtrace -G` outputs (fuzz/gen-corpus.sh).
 *
 * Each input goes through every entry point: dof_check_hdr(), dof_check(),
 * the provider, probe, argument-type and relocation iterators, and
 * dof_relocate() on a private copy.  Beyond "no crash, no read outside
 * the buffer", the harness checks the promises dof_check.h makes:
 *
 *  - error messages are NUL-terminated and hold no newline;
 *  - dof_check_hdr() accepts whatever dof_check() accepts;
 *  - what the iterators hand out lies inside the blob, within the
 *    DOF_*_MAXLEN limits, and argument maps stay below nargc;
 *  - on a blob dof_check() accepted, no iterator fails, and every
 *    relocation dof_reloc_next() visits is one dof_relocate() applies;
 *  - dof_relocate() with base 0 changes nothing and counts what the
 *    iterator counted; with any base, reading the result stays in bounds.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "fuzz.h"

/* Generous for fuzzing, small enough to keep every input fast. */
#define FUZZ_DOF_MAX ((uint64_t)1 << 20)

static void check_err(const struct dof_err *err)
{
	const char *nul = memchr(err->msg, '\0', sizeof(err->msg));

	fuzz_assert(nul != NULL);
	fuzz_assert(strchr(err->msg, '\n') == NULL);
}

static bool inside(const uint8_t *b, size_t len, const void *p, size_t n)
{
	const uint8_t *q = p;

	return q >= b && q <= b + len && n <= (size_t)(b + len - q);
}

/* A NUL-terminated string inside the blob, at most max bytes long. */
static void check_str(const uint8_t *b, size_t len, const char *s, size_t max)
{
	size_t n;

	fuzz_assert(s != NULL);
	fuzz_assert(inside(b, len, s, 1));
	n = strnlen(s, (size_t)(b + len - (const uint8_t *)s));
	fuzz_assert(n < (size_t)(b + len - (const uint8_t *)s));
	fuzz_assert(n <= max);
}

static void check_probe(const uint8_t *b, size_t len,
			const struct dof_probe_info *pr)
{
	unsigned int k, n;
	const char *s;

	check_str(b, len, pr->func, DOF_FUNCNAME_MAXLEN);
	check_str(b, len, pr->name, DOF_PROBENAME_MAXLEN);
	fuzz_assert(pr->noffs + pr->nenoffs >= 1);
	fuzz_assert(pr->noffs == 0 ||
		    inside(b, len, pr->offs, 4 * (size_t)pr->noffs));
	fuzz_assert(pr->nenoffs == 0 ||
		    inside(b, len, pr->enoffs, 4 * (size_t)pr->nenoffs));
	for (k = 0; k < pr->noffs; k++)
		(void)dof_probe_off(pr, k);
	for (k = 0; k < pr->nenoffs; k++)
		(void)dof_probe_enoff(pr, k);
	fuzz_assert(dof_probe_off(pr, pr->noffs) == 0);
	fuzz_assert(dof_probe_enoff(pr, pr->nenoffs) == 0);

	fuzz_assert(pr->xargc == 0 || inside(b, len, pr->argmap, pr->xargc));
	for (k = 0; k < pr->xargc; k++)
		fuzz_assert(pr->argmap[k] < pr->nargc);

	n = 0;
	for (s = dof_argv_next(pr, false, NULL); s;
	     s = dof_argv_next(pr, false, s)) {
		check_str(b, len, s, DOF_ARGTYPE_MAXLEN);
		fuzz_assert(*s != '\0');
		fuzz_assert(++n <= pr->nargc);
	}
	fuzz_assert(n == pr->nargc);
	n = 0;
	for (s = dof_argv_next(pr, true, NULL); s;
	     s = dof_argv_next(pr, true, s)) {
		check_str(b, len, s, DOF_ARGTYPE_MAXLEN);
		fuzz_assert(*s != '\0');
		fuzz_assert(++n <= pr->xargc);
	}
	fuzz_assert(n == pr->xargc);
}

/* Every provider and probe; on a valid blob nothing may fail. */
static void walk_probes(const uint8_t *b, size_t len, bool valid)
{
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct dof_err err;
	uint32_t cur = 0, last;
	int ret;

	for (;;) {
		last = cur;
		ret = dof_prov_next(b, len, &cur, &pv, &err);
		if (ret == 0)
			break;
		if (ret < 0) {
			check_err(&err);
			fuzz_assert(!valid);
			fuzz_assert(err.code == ret);
			if (cur == last)
				break; /* a header error repeats */
			continue;
		}
		check_str(b, len, pv.name, DOF_PROVNAME_MAXLEN);
		{
			uint64_t pc = 0, seen = 0;

			for (;;) {
				ret = dof_probe_next(&pv, &pc, &pr, &err);
				if (ret == 0)
					break;
				fuzz_assert(++seen <= pv.nprobes);
				if (ret < 0) {
					check_err(&err);
					fuzz_assert(!valid);
					continue;
				}
				fuzz_assert(pr.prov == pv.name);
				check_probe(b, len, &pr);
			}
		}
		fuzz_assert(cur > last);
	}
}

/* Every relocation; returns how many are SETX, or -1 after an error. */
static long walk_relocs(const uint8_t *b, size_t len, bool valid)
{
	struct dof_reloc_info ri;
	struct dof_err err;
	uint64_t cur = 0, last;
	long setx = 0, steps = 0;
	int ret;

	for (;;) {
		last = cur;
		ret = dof_reloc_next(b, len, &cur, &ri, &err);
		if (ret == 0)
			break;
		/* each step moves on: at most one per section or entry */
		fuzz_assert(++steps <= (long)len + 1);
		if (ret < 0) {
			check_err(&err);
			fuzz_assert(!valid);
			if (cur == last)
				break;
			setx = -1;
			continue;
		}
		fuzz_assert(ri.type == DOF_RELO_NONE ||
			    ri.type == DOF_RELO_SETX);
		if (ri.name)
			check_str(b, len, ri.name, len);
		if (ri.type == DOF_RELO_SETX) {
			fuzz_assert(ri.tgt_off % 8 == 0);
			fuzz_assert(ri.tgt_off <= len && len - ri.tgt_off >= 8);
			if (setx >= 0)
				setx++;
		}
	}
	return setx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dof_err err;
	uint64_t loadsz = 0, base;
	uint8_t *copy;
	bool valid, hdr_ok;
	long setx;
	int ret;

	ret = dof_check_hdr(data, size, FUZZ_DOF_MAX, &loadsz, &err);
	check_err(&err);
	hdr_ok = ret == 0;
	if (hdr_ok)
		fuzz_assert(loadsz >= sizeof(dof_hdr_t));

	ret = dof_check(data, size, FUZZ_DOF_MAX, &err);
	check_err(&err);
	fuzz_assert(ret == 0 || ret == -EINVAL || ret == -E2BIG);
	fuzz_assert(ret == 0 || err.code == ret);
	valid = ret == 0;
	if (valid)
		fuzz_assert(hdr_ok && loadsz <= size);
	/* a NULL err is allowed everywhere */
	fuzz_assert((dof_check(data, size, FUZZ_DOF_MAX, NULL) == 0) == valid);

	walk_probes(data, size, valid);
	setx = walk_relocs(data, size, valid);

	/* relocate a copy: the input itself is const */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ret = dof_relocate(copy, size, 0, &err);
	check_err(&err);
	if (valid) {
		fuzz_assert(ret >= 0 && ret == setx);
		fuzz_assert(memcmp(copy, data, size) == 0);
	}
	/*
	 * A base taken from the input, so the fuzzer steers it.  Neither
	 * success nor the validity of the result is promised here (a hostile
	 * blob may aim a relocation at its own table or at a probe's other
	 * fields): only that everything stays in bounds, also reading the
	 * result back.
	 */
	base = 0x400000;
	if (size >= 8)
		memcpy(&base, data + size - 8, 8);
	memcpy(copy, data, size);
	ret = dof_relocate(copy, size, base, &err);
	check_err(&err);
	fuzz_assert(ret < 0 || !valid || ret == setx);
	walk_probes(copy, size, false);
	walk_relocs(copy, size, false);
	free(copy);
	return 0;
}
