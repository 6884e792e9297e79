/* SPDX-License-Identifier: MIT */
/* tests/run-copyout.sh: a probe passing a buffer dtrace -w writes into */
provider cpout {
	probe fill(char *, int);
	probe copy(char *, char *);
	probe done();
};
