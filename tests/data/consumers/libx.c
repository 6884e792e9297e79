// SPDX-License-Identifier: MIT
/*
 * libx.c - a shared library with a probe (tests/run-G-consumers.sh).
 */
#include "libx.h"

int libx_fire(int i);
int libx_traced(void);

int libx_traced(void)
{
	return LIBX_LIB_CALL_ENABLED();
}

int libx_fire(int i)
{
	LIBX_LIB_CALL(-123456789012L, 0xffffffffffffffffUL, i,
		       (unsigned char)200, "in a library", (short)-3);
	return i + 1;
}
