// SPDX-License-Identifier: MIT
/* trplug.c - trplug.so, a plugin with a probe, dlopen()ed by trprog. */
#include "trplug.h"

int trp_hello(int n);
int trp_enabled(void);

int trp_hello(int n)
{
	for (int i = 0; i < n; i++)
		TRPLUG_HELLO("plugin", i);
	return n;
}

int trp_enabled(void)
{
	return TRPLUG_HELLO_ENABLED();
}
