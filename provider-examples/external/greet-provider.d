/* SPDX-License-Identifier: MIT */
/*
 * greet-provider.d - the probes of greet.c.
 *
 * Built with usdt.am's .d.h rule (autotools), usdt_add_provider()
 * (CMake) or two custom targets (meson); see README.md.
 */
#pragma D attributes Evolving/Evolving/Common provider greet provider

provider greet {
	/* a greeting is about to be printed: to whom, and its number */
	probe hello(const char *who, int n);
	/* a checksum of the name, computed only while this probe is traced */
	probe checksum(const char *who, unsigned long sum);
	/* all done: how many greetings, and what libtally added up */
	probe done(int count, long total);
};
