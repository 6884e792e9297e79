/* SPDX-License-Identifier: MIT */
/*
 * tally-provider.d - the probes of libtally.
 */
provider tally {
	/* a value was added: the value and the new total */
	probe add(long value, long total);
};
