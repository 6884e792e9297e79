/*
 * An enumerator's value, read by the compiler (d_const_dv()), against the
 * same expression computed at a firing: 120 constant expressions drawn
 * at random (literals of every C type, casts, every D operator, ?:),
 * each printed as the enumerator and as the firing's value cast to
 * int64_t; the two columns must agree.  Expressions whose value leaves
 * int (an enumerator's range) or that divide by 0 were left out of the
 * draw.  E104's ?: has C's common type of its branches, unsigned long
 * (as DTrace's dt_cook_op3() types it), so -5L is not less than it: 1
 * (0 when ?: took its branch's type, unsigned int).
 */
#pragma D option quiet

enum fold {
	E0 = (-5L),
	E1 = 100UL,
	E2 = 5L,
	E3 = 2,
	E4 = -(-((100UL - 100UL))),
	E5 = ~(7),
	E6 = 7,
	E7 = ((100UL >> (2 ^^ 1)) >> ((-1U != 65535) & (256 * 100UL))),
	E8 = ((+(-1) == 0xffffffffffffffff) > 2),
	E9 = (((100UL <= 2) ? (0xffffffffffffffff * 1) : (100UL ? -1U : 65535)) < ((3U ? 3 : 0xffffffffffffffff) ? 65535 : 256)),
	E10 = ((long)((1U || 1000)) > ((unsigned char)(-1) % 256)),
	E11 = 100UL,
	E12 = 65535,
	E13 = 1U,
	E14 = (-((-5L < 4294967295U)) < ((unsigned short)(-1U) << 3U)),
	E15 = 0,
	E16 = ((255 < 1000) != (0xffffffffffffffff <= (7 ? 3 : 0x7fffffff))),
	E17 = ((5L != -5L) + ((1000 && 0x80000000))),
	E18 = (-5L ? (255 ? (256 >> 5L) : (0 | 0xffffffffffffffff)) : 3U),
	E19 = (((256 ? 3 : 256) >= 255) >= ((0x80000000 * 3) < (0xffffffffffffffff << 1U))),
	E20 = (((2 << -1) % 100UL) ? (3U >= (-5L ? -5L : 7)) : 3),
	E21 = (((int)(255) ^ (0x7fffffff | -5L)) > !((5L > 5L))),
	E22 = 7,
	E23 = +((~(0xffffffffffffffff) / (5L ? 5L : -5L))),
	E24 = (~(3) && -((5L && 255))),
	E25 = (((1000 || 255) <= 3) < ~((int)(3))),
	E26 = (~((unsigned char)(4294967295U))),
	E27 = ((long)((1U >> 0x80000000))),
	E28 = (-5L <= !((unsigned char)(3))),
	E29 = (!(-1) | ((1000 < 7) || (0x7fffffff * 1000))),
	E30 = -1,
	E31 = -((256 * 3)),
	E32 = ((7 - (unsigned char)(-1)) ? -1 : 65535),
	E33 = (-1U && (char)(-(5L))),
	E34 = (unsigned long)(-1U),
	E35 = 1U,
	E36 = (((unsigned short)(0x7fffffff) >> (7 < 0x80000000)) - !(+(5L))),
	E37 = (unsigned short)(~(-1U)),
	E38 = ((int)(-1) + !((uint8_t)(0))),
	E39 = 2,
	E40 = 100UL,
	E41 = 0,
	E42 = 256,
	E43 = 5L,
	E44 = (int64_t)((~(1) ? (5L > 5L) : 5L)),
	E45 = (~(1) % ((1 + -5L) & -(5L))),
	E46 = -(((256 >> 256) <= (0xffffffffffffffff ^ 1))),
	E47 = (7 == 65535),
	E48 = +(1000),
	E49 = ~((uint8_t)(-1U)),
	E50 = ~(+(-1U)),
	E51 = 5L,
	E52 = (255 >> 2),
	E53 = 5L,
	E54 = 5L,
	E55 = 3,
	E56 = (unsigned long)((unsigned long)((7 > 0x80000000))),
	E57 = !(0x7fffffff),
	E58 = ~((0x80000000 * (100UL * 0x80000000))),
	E59 = ((char)((short)(256)) | ((1U + 4294967295U) ? (-5L >> 2) : 1U)),
	E60 = ((char)((-1 >= 1U)) == 1000),
	E61 = (256 ^ (-1 * 0xffffffffffffffff)),
	E62 = (((256 * -1) == (0x80000000 ? 1000 : 100UL)) >> ((5L >> 4294967295U) | !(100UL))),
	E63 = ~(256),
	E64 = (((7 - 1U) ? (0xffffffffffffffff ^^ 0xffffffffffffffff) : 4294967295U) && (3 & 5L)),
	E65 = +(1),
	E66 = 7,
	E67 = 1,
	E68 = (1000 ? (!(5L) ^^ 1000) : 3U),
	E69 = -5L,
	E70 = (((256 || 256) + (65535 - 0)) >> ((1U) != 1)),
	E71 = ((65535 && 0xffffffffffffffff) >> (256 | (int64_t)(0xffffffffffffffff))),
	E72 = 5L,
	E73 = +((-(1000) * (3 || 255))),
	E74 = ((0xffffffffffffffff >> (255 == 0x80000000)) >= 1U),
	E75 = 1,
	E76 = 256,
	E77 = -1U,
	E78 = (1U >= 0xffffffffffffffff),
	E79 = 65535,
	E80 = (((3U ? 2 : 5L) ? -1 : 2) - (1U / (unsigned char)(255))),
	E81 = 0xffffffffffffffff,
	E82 = (7 > (-5L / (int)(100UL))),
	E83 = 1000,
	E84 = (unsigned short)(256),
	E85 = 100UL,
	E86 = 2,
	E87 = ((unsigned char)((3 + 0xffffffffffffffff)) & (65535 & 255)),
	E88 = (2 != (int64_t)(0)),
	E89 = 3U,
	E90 = (0x7fffffff ? 255 : ~((1U != -1))),
	E91 = -((3 < (uint8_t)(2))),
	E92 = (65535 ^ !(!(255))),
	E93 = ((3 * (-1U << 7)) + 7),
	E94 = (3U != (unsigned)(5L)),
	E95 = 2,
	E96 = 0xffffffffffffffff,
	E97 = (unsigned)(256),
	E98 = (-5L - ((65535 > 65535) ? (0x80000000 <= 5L) : +(-1U))),
	E99 = 3U,
	E100 = (0xffffffffffffffff < 7),
	E101 = ((~(2) == (1 && 4294967295U)) ? (2 / 0xffffffffffffffff) : -1),
	E102 = -1U,
	E103 = 5L,
	E104 = !(((3 | -5L) < (4294967295U ? 0x80000000 : 100UL))),
	E105 = 0x7fffffff,
	E106 = 65535,
	E107 = ((256 - 0) ^^ !((65535 ^^ 7))),
	E108 = 3U,
	E109 = (char)((short)(~(1000))),
	E110 = (char)(-5L),
	E111 = (((-1 + 1) - (256 << 1)) / -5L),
	E112 = (long)(3U),
	E113 = ((-(0xffffffffffffffff) || 1U) <= -1U),
	E114 = 3,
	E115 = 1,
	E116 = 1000,
	E117 = (uint8_t)(((65535 >> 2) && 1000)),
	E118 = (-1 == 4294967295U),
	E119 = (((0xffffffffffffffff && 0) + (100UL ^ 255)))
};

BEGIN
{
	printf("%d %d\n", E0, (int64_t)((-5L)));
	printf("%d %d\n", E1, (int64_t)(100UL));
	printf("%d %d\n", E2, (int64_t)(5L));
	printf("%d %d\n", E3, (int64_t)(2));
	printf("%d %d\n", E4, (int64_t)(-(-((100UL - 100UL)))));
	printf("%d %d\n", E5, (int64_t)(~(7)));
	printf("%d %d\n", E6, (int64_t)(7));
	printf("%d %d\n", E7, (int64_t)(((100UL >> (2 ^^ 1)) >> ((-1U != 65535) & (256 * 100UL)))));
	printf("%d %d\n", E8, (int64_t)(((+(-1) == 0xffffffffffffffff) > 2)));
	printf("%d %d\n", E9, (int64_t)((((100UL <= 2) ? (0xffffffffffffffff * 1) : (100UL ? -1U : 65535)) < ((3U ? 3 : 0xffffffffffffffff) ? 65535 : 256))));
	printf("%d %d\n", E10, (int64_t)(((long)((1U || 1000)) > ((unsigned char)(-1) % 256))));
	printf("%d %d\n", E11, (int64_t)(100UL));
	printf("%d %d\n", E12, (int64_t)(65535));
	printf("%d %d\n", E13, (int64_t)(1U));
	printf("%d %d\n", E14, (int64_t)((-((-5L < 4294967295U)) < ((unsigned short)(-1U) << 3U))));
	printf("%d %d\n", E15, (int64_t)(0));
	printf("%d %d\n", E16, (int64_t)(((255 < 1000) != (0xffffffffffffffff <= (7 ? 3 : 0x7fffffff)))));
	printf("%d %d\n", E17, (int64_t)(((5L != -5L) + ((1000 && 0x80000000)))));
	printf("%d %d\n", E18, (int64_t)((-5L ? (255 ? (256 >> 5L) : (0 | 0xffffffffffffffff)) : 3U)));
	printf("%d %d\n", E19, (int64_t)((((256 ? 3 : 256) >= 255) >= ((0x80000000 * 3) < (0xffffffffffffffff << 1U)))));
	printf("%d %d\n", E20, (int64_t)((((2 << -1) % 100UL) ? (3U >= (-5L ? -5L : 7)) : 3)));
	printf("%d %d\n", E21, (int64_t)((((int)(255) ^ (0x7fffffff | -5L)) > !((5L > 5L)))));
	printf("%d %d\n", E22, (int64_t)(7));
	printf("%d %d\n", E23, (int64_t)(+((~(0xffffffffffffffff) / (5L ? 5L : -5L)))));
	printf("%d %d\n", E24, (int64_t)((~(3) && -((5L && 255)))));
	printf("%d %d\n", E25, (int64_t)((((1000 || 255) <= 3) < ~((int)(3)))));
	printf("%d %d\n", E26, (int64_t)((~((unsigned char)(4294967295U)))));
	printf("%d %d\n", E27, (int64_t)(((long)((1U >> 0x80000000)))));
	printf("%d %d\n", E28, (int64_t)((-5L <= !((unsigned char)(3)))));
	printf("%d %d\n", E29, (int64_t)((!(-1) | ((1000 < 7) || (0x7fffffff * 1000)))));
	printf("%d %d\n", E30, (int64_t)(-1));
	printf("%d %d\n", E31, (int64_t)(-((256 * 3))));
	printf("%d %d\n", E32, (int64_t)(((7 - (unsigned char)(-1)) ? -1 : 65535)));
	printf("%d %d\n", E33, (int64_t)((-1U && (char)(-(5L)))));
	printf("%d %d\n", E34, (int64_t)((unsigned long)(-1U)));
	printf("%d %d\n", E35, (int64_t)(1U));
	printf("%d %d\n", E36, (int64_t)((((unsigned short)(0x7fffffff) >> (7 < 0x80000000)) - !(+(5L)))));
	printf("%d %d\n", E37, (int64_t)((unsigned short)(~(-1U))));
	printf("%d %d\n", E38, (int64_t)(((int)(-1) + !((uint8_t)(0)))));
	printf("%d %d\n", E39, (int64_t)(2));
	printf("%d %d\n", E40, (int64_t)(100UL));
	printf("%d %d\n", E41, (int64_t)(0));
	printf("%d %d\n", E42, (int64_t)(256));
	printf("%d %d\n", E43, (int64_t)(5L));
	printf("%d %d\n", E44, (int64_t)((int64_t)((~(1) ? (5L > 5L) : 5L))));
	printf("%d %d\n", E45, (int64_t)((~(1) % ((1 + -5L) & -(5L)))));
	printf("%d %d\n", E46, (int64_t)(-(((256 >> 256) <= (0xffffffffffffffff ^ 1)))));
	printf("%d %d\n", E47, (int64_t)((7 == 65535)));
	printf("%d %d\n", E48, (int64_t)(+(1000)));
	printf("%d %d\n", E49, (int64_t)(~((uint8_t)(-1U))));
	printf("%d %d\n", E50, (int64_t)(~(+(-1U))));
	printf("%d %d\n", E51, (int64_t)(5L));
	printf("%d %d\n", E52, (int64_t)((255 >> 2)));
	printf("%d %d\n", E53, (int64_t)(5L));
	printf("%d %d\n", E54, (int64_t)(5L));
	printf("%d %d\n", E55, (int64_t)(3));
	printf("%d %d\n", E56, (int64_t)((unsigned long)((unsigned long)((7 > 0x80000000)))));
	printf("%d %d\n", E57, (int64_t)(!(0x7fffffff)));
	printf("%d %d\n", E58, (int64_t)(~((0x80000000 * (100UL * 0x80000000)))));
	printf("%d %d\n", E59, (int64_t)(((char)((short)(256)) | ((1U + 4294967295U) ? (-5L >> 2) : 1U))));
	printf("%d %d\n", E60, (int64_t)(((char)((-1 >= 1U)) == 1000)));
	printf("%d %d\n", E61, (int64_t)((256 ^ (-1 * 0xffffffffffffffff))));
	printf("%d %d\n", E62, (int64_t)((((256 * -1) == (0x80000000 ? 1000 : 100UL)) >> ((5L >> 4294967295U) | !(100UL)))));
	printf("%d %d\n", E63, (int64_t)(~(256)));
	printf("%d %d\n", E64, (int64_t)((((7 - 1U) ? (0xffffffffffffffff ^^ 0xffffffffffffffff) : 4294967295U) && (3 & 5L))));
	printf("%d %d\n", E65, (int64_t)(+(1)));
	printf("%d %d\n", E66, (int64_t)(7));
	printf("%d %d\n", E67, (int64_t)(1));
	printf("%d %d\n", E68, (int64_t)((1000 ? (!(5L) ^^ 1000) : 3U)));
	printf("%d %d\n", E69, (int64_t)(-5L));
	printf("%d %d\n", E70, (int64_t)((((256 || 256) + (65535 - 0)) >> ((1U) != 1))));
	printf("%d %d\n", E71, (int64_t)(((65535 && 0xffffffffffffffff) >> (256 | (int64_t)(0xffffffffffffffff)))));
	printf("%d %d\n", E72, (int64_t)(5L));
	printf("%d %d\n", E73, (int64_t)(+((-(1000) * (3 || 255)))));
	printf("%d %d\n", E74, (int64_t)(((0xffffffffffffffff >> (255 == 0x80000000)) >= 1U)));
	printf("%d %d\n", E75, (int64_t)(1));
	printf("%d %d\n", E76, (int64_t)(256));
	printf("%d %d\n", E77, (int64_t)(-1U));
	printf("%d %d\n", E78, (int64_t)((1U >= 0xffffffffffffffff)));
	printf("%d %d\n", E79, (int64_t)(65535));
	printf("%d %d\n", E80, (int64_t)((((3U ? 2 : 5L) ? -1 : 2) - (1U / (unsigned char)(255)))));
	printf("%d %d\n", E81, (int64_t)(0xffffffffffffffff));
	printf("%d %d\n", E82, (int64_t)((7 > (-5L / (int)(100UL)))));
	printf("%d %d\n", E83, (int64_t)(1000));
	printf("%d %d\n", E84, (int64_t)((unsigned short)(256)));
	printf("%d %d\n", E85, (int64_t)(100UL));
	printf("%d %d\n", E86, (int64_t)(2));
	printf("%d %d\n", E87, (int64_t)(((unsigned char)((3 + 0xffffffffffffffff)) & (65535 & 255))));
	printf("%d %d\n", E88, (int64_t)((2 != (int64_t)(0))));
	printf("%d %d\n", E89, (int64_t)(3U));
	printf("%d %d\n", E90, (int64_t)((0x7fffffff ? 255 : ~((1U != -1)))));
	printf("%d %d\n", E91, (int64_t)(-((3 < (uint8_t)(2)))));
	printf("%d %d\n", E92, (int64_t)((65535 ^ !(!(255)))));
	printf("%d %d\n", E93, (int64_t)(((3 * (-1U << 7)) + 7)));
	printf("%d %d\n", E94, (int64_t)((3U != (unsigned)(5L))));
	printf("%d %d\n", E95, (int64_t)(2));
	printf("%d %d\n", E96, (int64_t)(0xffffffffffffffff));
	printf("%d %d\n", E97, (int64_t)((unsigned)(256)));
	printf("%d %d\n", E98, (int64_t)((-5L - ((65535 > 65535) ? (0x80000000 <= 5L) : +(-1U)))));
	printf("%d %d\n", E99, (int64_t)(3U));
	printf("%d %d\n", E100, (int64_t)((0xffffffffffffffff < 7)));
	printf("%d %d\n", E101, (int64_t)(((~(2) == (1 && 4294967295U)) ? (2 / 0xffffffffffffffff) : -1)));
	printf("%d %d\n", E102, (int64_t)(-1U));
	printf("%d %d\n", E103, (int64_t)(5L));
	printf("%d %d\n", E104, (int64_t)(!(((3 | -5L) < (4294967295U ? 0x80000000 : 100UL)))));
	printf("%d %d\n", E105, (int64_t)(0x7fffffff));
	printf("%d %d\n", E106, (int64_t)(65535));
	printf("%d %d\n", E107, (int64_t)(((256 - 0) ^^ !((65535 ^^ 7)))));
	printf("%d %d\n", E108, (int64_t)(3U));
	printf("%d %d\n", E109, (int64_t)((char)((short)(~(1000)))));
	printf("%d %d\n", E110, (int64_t)((char)(-5L)));
	printf("%d %d\n", E111, (int64_t)((((-1 + 1) - (256 << 1)) / -5L)));
	printf("%d %d\n", E112, (int64_t)((long)(3U)));
	printf("%d %d\n", E113, (int64_t)(((-(0xffffffffffffffff) || 1U) <= -1U)));
	printf("%d %d\n", E114, (int64_t)(3));
	printf("%d %d\n", E115, (int64_t)(1));
	printf("%d %d\n", E116, (int64_t)(1000));
	printf("%d %d\n", E117, (int64_t)((uint8_t)(((65535 >> 2) && 1000))));
	printf("%d %d\n", E118, (int64_t)((-1 == 4294967295U)));
	printf("%d %d\n", E119, (int64_t)((((0xffffffffffffffff && 0) + (100UL ^ 255)))));
	exit(0);
}
