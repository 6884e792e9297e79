// SPDX-License-Identifier: MIT
/*
 * An inline probe in a C++ inline function, which every object using it
 * emits in a COMDAT group; built twice (-DTWICE=twice_a, twice_b) for
 * tests/run-sdt-G.sh, so the linker keeps one of two copies.
 */
#include "g-inline.h"

inline __attribute__((noinline)) int twice(int x)
{
	APP_INL(x);
	return 2 * x;
}

extern "C" int TWICE(int x);
extern "C" int TWICE(int x)
{
	return twice(x) + 1;
}
