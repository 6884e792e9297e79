/* SPDX-License-Identifier: MIT */
/*
 * actslow.c - libactslow.so, for tests/run-activation-user.sh: a
 * dependency of a copy of libactlc.so whose constructor sleeps
 * ACT_SLOW_US microseconds (50,000 if unset).  ld.so maps a dlopen()'s
 * objects and runs their dependencies' constructors first, so the
 * library that needs it sits mapped with fresh NOPs and a zero control
 * block, its drti.o not yet asked, that long: a window in which dtrace
 * may find and arm it by a refresh of the maps instead of by its ask.
 */
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void actslow_init(void)
{
	const char *e = getenv("ACT_SLOW_US");

	usleep(e ? (useconds_t)atol(e) : 50000);
}
