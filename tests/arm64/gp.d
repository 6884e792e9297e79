/* SPDX-License-Identifier: MIT */
/* tests/arm64/gprog.c's probes (tests/arm64/guest.sh) */
provider gp {
	probe many(long, long, long, long, long, long, long, long, int, char);
	probe name(int, char *);
	probe sdt(long, int, char *);
	probe deep(long, long, long);
};
