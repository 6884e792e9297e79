// SPDX-License-Identifier: MIT
/*
 * legacy.c - a program written against a header of the classic DTrace
 * (before semaphores): its guard is a call to
 * __dtraceenabled_<provider>___<probe>(), which `dtrace -G` rewrites
 * into `xor %eax,%eax` and a NOP (31 c0 0f 1f 00), so the guard is false
 * unless a consumer sets %eax on the NOP (dtrace_fasttrap.ko does).
 *
 * `legacy [N]` runs the guard N times (default 5), fires lg:::fire(i)
 * each time it was true, and prints "enabled COUNT": how many times.
 * tests/kmod/steps-trace.sh compares that with what dtrace counted.
 */
#include <stdio.h>
#include <stdlib.h>

/* as DTrace-generated headers declared them */
extern int __dtraceenabled_lg___fire(void);
extern void __dtrace_lg___fire(int);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, on = 0;

	for (int i = 0; i < n; i++) {
		if (__dtraceenabled_lg___fire()) {
			on++;
			__dtrace_lg___fire(i);
		}
	}
	printf("enabled %d\n", on);
	return 0;
}
