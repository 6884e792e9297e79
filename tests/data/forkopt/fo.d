/* SPDX-License-Identifier: MIT */
/* tests/run-fork-optimized.sh: a call-site probe and a tail-call one */
provider fo {
	probe hit(int);
	probe tail(int);
};
