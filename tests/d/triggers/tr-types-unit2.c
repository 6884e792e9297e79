/* SPDX-License-Identifier: MIT */
/*
 * tr-types-unit2.c - a second unit of tr-types, which declares struct
 * tr_units otherwise than tr-types.c does (C allows it: two units, two
 * types), so the program's own debug information holds two layouts of
 * one name (tests/d/types/err.D_TYPE_AMBIG.dwarf-two-units.d).
 */
struct tr_units {
	char c;
};

int tr_unit2(void);

/* a use, so the compiler keeps its debug information */
static volatile struct tr_units unit2 = {.c = 'u'};

int tr_unit2(void)
{
	return unit2.c;
}
