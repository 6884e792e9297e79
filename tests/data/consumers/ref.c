// SPDX-License-Identifier: MIT
/*
 * ref.c - the same three-argument probe twice: once through the header of
 * `dtrace -h` (rewritten by dtrace -G) and once through systemtap's
 * <sys/sdt.h>, which the test force-includes by path (-include), so the
 * project's own headers can never stand in for it.
 */
#include <stdio.h>

#include "refp.h"

int main(void)
{
	for (int i = 0; i < 3; i++) {
		REFP_TRIPLE(-1 - i, "triple", 0x1122334455667788UL + i);
		DTRACE_PROBE3(sdtref, triple, -1 - i, "triple",
			      0x1122334455667788UL + i);
	}
	puts("done");
	return 0;
}
