// SPDX-License-Identifier: MIT
/* trlib.c - libtrl.so, a shared library with a probe (provider trlib). */
#include "trlib.h"

int trl_call(int x);
int trl_enabled(void);

int trl_call(int x)
{
	TRLIB_CALL(x);
	return x + 1;
}

int trl_enabled(void)
{
	return TRLIB_CALL_ENABLED();
}
