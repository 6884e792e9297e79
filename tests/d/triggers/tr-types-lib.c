/* SPDX-License-Identifier: MIT */
/*
 * tr-types-lib.c - libtr-types.so, the library tr-types is linked with
 * (built with -g): it declares struct tr_point as tr-types does
 * (tr-types.h), and struct tr_conflict and the typedef tr_conflict_t
 * with another layout than tr-types' own, and the enumerator
 * MODE_CLASH with another value, so an unscoped name of them is
 * ambiguous and `struct libtr-types.so`tr_conflict` names this one.
 */
#include "tr-types.h"

struct tr_conflict {
	long long wide;
	int narrow;
};

typedef struct tr_conflict tr_conflict_t;

enum lib_mode { MODE_CLASH = 5 };

/* a use of each, so the compiler keeps their debug information */
static volatile tr_conflict_t lib_conflict = {.wide = 1, .narrow = 2};
static volatile enum lib_mode lib_mode = MODE_CLASH;

int tr_lib_point(const struct tr_point *p)
{
	return p->x + p->y;
}

int tr_lib_conflict(enum tr_level l)
{
	return lib_conflict.narrow + (l == TR_HIGH) + (lib_mode != MODE_CLASH);
}
