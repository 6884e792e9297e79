/* SPDX-License-Identifier: MIT */
/* vtprog.c's probe (tests/run-vtimestamp.sh) */
provider vt {
	/* phase, thread (0 main, 1 busy, 2 sleeping), its own CPU ns */
	probe mark(int, int, long);
};
