// SPDX-License-Identifier: MIT
/*
 * libprobe.c - a "probed" shared library: linked with drti.o and a DOF
 * blob, so loading it registers, dlclose removes, and its fork handler
 * must disappear with it.
 */
int libprobe_hello(void);

int libprobe_hello(void)
{
	return 42;
}
