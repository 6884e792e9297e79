/* SPDX-License-Identifier: MIT */
/* A probe in the call form, for tests/run-sdt-G.sh. */
#include "g-call.h"

__attribute__((noinline)) int caller(int n)
{
	APP_START("call", n);
	return n * 3;
}
