/* SPDX-License-Identifier: MIT */
/*
 * tr-types.h - what tr-types and its library libtr-types.so both declare
 * the same way (tests/d/types/tst.dwarf-*.d): one layout in two objects
 * is one type, not an ambiguity.
 */
#ifndef TR_TYPES_H
#define TR_TYPES_H

struct tr_point {
	int x, y;
};

int tr_lib_point(const struct tr_point *p);
int tr_lib_conflict(void);

#endif
