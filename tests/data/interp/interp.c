// SPDX-License-Identifier: MIT
/*
 * interp.c - a stand-in for an interpreter with probes, for
 * tests/run-interp-d.sh: it reads its "script" from standard input (as
 * `perl` does under dtrace -c in Perl's t/run/dtrace.t), one command a
 * line, fires the probe each asks for, and exits at the end of input.
 *
 *   call FILE FUNC LINE     function-entry(FILE, FUNC, LINE)
 *   return FILE FUNC LINE   function-return(FILE, FUNC, LINE)
 *   line FILE FUNC LINE     line(FILE, FUNC, LINE)
 *   gc GEN COLLECTED        gc-start(GEN), then gc-done(COLLECTED)
 *   sub NAME LINE           sub-entry(NAME, "-", LINE, "main")
 *   phase NAME              phase-change(NAME, the previous phase): both
 *                           string literals of a const table, as Perl's
 *                           PL_phase_names
 *   note TEXT               TEXT copied into a static writable buffer,
 *                           note(that buffer)
 *
 * The strings FILE, FUNC and NAME live in a stack buffer that the next
 * line overwrites, so only their copies made at hit time are right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

static const char *const phases[] = {
	"CONSTRUCT", "START", "CHECK", "INIT", "RUN", "END", "DESTRUCT",
};

static char note_buf[64] = "the file's bytes";

int main(void)
{
	char line[1024], a[256], b[256]; /* two names of 255 bytes fit */
	unsigned cur = 0;
	int n, m;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "call %255s %255s %d", a, b, &n) == 3)
			INTERP_FUNCTION_ENTRY(a, b, n);
		else if (sscanf(line, "return %255s %255s %d", a, b, &n) == 3)
			INTERP_FUNCTION_RETURN(a, b, n);
		else if (sscanf(line, "line %255s %255s %d", a, b, &n) == 3)
			INTERP_LINE(a, b, n);
		else if (sscanf(line, "gc %d %d", &n, &m) == 2) {
			INTERP_GC_START(n);
			INTERP_GC_DONE(m);
		} else if (sscanf(line, "sub %255s %d", a, &n) == 2)
			INTERP_SUB_ENTRY(a, "-", n, "main");
		else if (sscanf(line, "phase %255s", a) == 1) {
			for (unsigned i = 0;
			     i < sizeof(phases) / sizeof(*phases); i++)
				if (!strcmp(a, phases[i])) {
					INTERP_PHASE_CHANGE(phases[i],
							    phases[cur]);
					cur = i;
				}
		} else if (sscanf(line, "note %63s", a) == 1) {
			strcpy(note_buf, a);
			INTERP_NOTE(note_buf);
		} else {
			fprintf(stderr, "interp: bad line: %s", line);
			return 2;
		}
		memset(a, 'x', sizeof(a) - 1);
		memset(b, 'x', sizeof(b) - 1);
		a[sizeof(a) - 1] = b[sizeof(b) - 1] = '\0';
	}
	return 0;
}
