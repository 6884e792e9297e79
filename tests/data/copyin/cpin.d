/* SPDX-License-Identifier: MIT */
/* tests/run-copyin.sh: probes whose arguments point to the caller's data */
provider cpin {
	probe num(int *, unsigned long long *);
	probe buf(const void *, int);
	probe reused(const char *);
	probe edge(const void *);
	probe done();
};
