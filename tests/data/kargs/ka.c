// SPDX-License-Identifier: MIT
/*
 * ka.c - tests/run-kagg-args.sh's program: `ka N` fires each probe of
 * ka.d N times with values that depend on the turn alone, so every
 * run's aggregations are the same: int8_t values that wrap negative,
 * uint16_t ones past 32767, int64_t ones past 32 bits, an unsigned
 * char given -1 and -2 (255 and 254), a translated uint8_t given
 * negative ints and an int8_t given 300 and up.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ka.h"

static const char *const names[] = { "alpha", "beta", "gamma" };
static const char *const words[] = { "one", "two", "three", "four",
				     "five", "six", "seven", "eight" };

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++) {
		const char *s = names[i % 3];

		KA_T((int8_t)(i * 37), (uint16_t)(i * 5000),
		     -(int64_t)i * INT64_C(1000000007000), (char *)s,
		     (unsigned char)(-1 - i % 2), i - 5);
		KA_U((char *)s, i % 4);
		KA_W(i % 5, (short)(-i * 1000));
		KA_N(-1 - i, 300 + i);
		KA_M((char *)words[0], (char *)words[1], (char *)words[2],
		     (char *)words[3], (char *)words[4], (char *)words[5],
		     (char *)words[6], (char *)words[(i % 2) + 6]);
	}
	return 0;
}
