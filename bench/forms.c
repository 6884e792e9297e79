// SPDX-License-Identifier: MIT
/*
 * forms.c - the probe-forms benchmark loop (bench/forms.sh): N
 * iterations, each firing bform:::hit(pointer, int) once in the form
 * chosen at compile time, so that every form pays for the same two
 * arguments in the same loop:
 *
 *	-DFORM_CALL	the call form of `dtrace -h`'s header: linked with
 *			the `dtrace -G` output of this object it is a
 *			rewritten site (NOPs where the call was);
 *			linked alone, a real call to the header's COMDAT
 *			stub, whose entry is the probe site
 *	-DFORM_INLINE	an inline probe (1-byte + 10-byte NOP, the note
 *			emitted by the compiler), from usdt-sdk's
 *			<sys/sdt.h> DTRACE_PROBE2 or, with -DINLINE_HDR,
 *			from `dtrace -h -x probestyle=inline`'s header
 *	-DFORM_STAP	systemtap's <sys/sdt.h> DTRACE_PROBE2 (the
 *			reference), included by the path in STAP_SDT_H so
 *			that usdt-sdk's header cannot stand in for it
 *	(none)		no probe: the loop's own cost
 *
 * The pointer walks a small buffer and the int is the counter, so both
 * arguments change every iteration and must be computed: a probe whose
 * arguments were constants would measure less than real code pays.  The
 * empty asm with a "memory" clobber keeps the compiler from collapsing
 * the loop when there is no probe.
 *
 * Prints the nanoseconds per iteration (the loop only, not start-up)
 * and whether the process has the kernel's uprobe trampoline mapped
 * (1 or 0): Linux 6.18 and later turn a uprobe on a 5-byte NOP into a
 * call to that trampoline instead of a trap, and the mapping is how a
 * traced run shows it happened (no form of ours should: doc/DESIGN.md
 * §4).  Callgrind counts
 * the instructions (forms.sh takes the difference between two values
 * of N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(FORM_CALL)
#include "bform.h"
#define PROBE(p, i) BFORM_HIT(p, i)
#elif defined(FORM_INLINE) && defined(INLINE_HDR)
#include "bform-inline.h"
#define PROBE(p, i) BFORM_HIT(p, i)
#elif defined(FORM_INLINE)
#include <sys/sdt.h>
#define PROBE(p, i) DTRACE_PROBE2(bform, hit, p, i)
#elif defined(FORM_STAP)
#include STAP_SDT_H
#define PROBE(p, i) DTRACE_PROBE2(bform, hit, p, i)
#else
#define PROBE(p, i) ((void)(p), (void)(i))
#endif

static char buf[64];

static __attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++) {
		PROBE((void *)&buf[i & 63], (int)i);
		__asm__ __volatile__("" ::: "memory");
	}
}

/* Is the uprobe trampoline ([uprobes-trampoline]) mapped? */
static int trampoline(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[uprobes-trampoline]") != NULL;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, z;
	int t;

	clock_gettime(CLOCK_MONOTONIC, &a);
	loop(n);
	clock_gettime(CLOCK_MONOTONIC, &z);
	/* whatever n, so that callgrind's difference is the loop's alone */
	t = trampoline();
	if (n)
		printf("%.3f %d\n", ((double)(z.tv_sec - a.tv_sec) * 1e9 +
				     (double)(z.tv_nsec - a.tv_nsec)) /
				    (double)n, t);
	return 0;
}
