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

enum tr_level { TR_LOW = 1, TR_HIGH = 9 };

int tr_lib_point(const struct tr_point *p);
int tr_lib_conflict(enum tr_level l);

#endif
