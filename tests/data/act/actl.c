/* SPDX-License-Identifier: MIT */
/*
 * actl.c - libactl.so, a shared library with a probe of its own for
 * tests/run-activation-user.sh: its -G output carries a second copy of
 * drti.o (own control block, own recorder, its TLS slot reached through
 * __tls_get_addr), armed in the same process as the program's.
 */
#include "actl.h"

long actl_fire(long i);

long actl_fire(long i)
{
	ACTL_FIRE(i, (int)(i & 7));
	return i + 1;
}
