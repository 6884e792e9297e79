/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a minimal TAP producer for the unit tests.
 *
 * Each check prints "ok N - name" or "not ok N - name" with the values
 * that differed; tap_done() prints the plan last ("1..N"), which the TAP
 * protocol allows, so tests need not count their checks in advance.
 * automake's tap-driver.sh turns every line into a PASS or FAIL.
 */
#ifndef USDT_TAP_H
#define USDT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_n, tap_failed;

static inline int __attribute__((format(printf, 2, 3)))
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %u - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#define is_int(got, want, ...)						\
	do {								\
		long long _g = (long long)(got), _w = (long long)(want);\
		if (!tap_ok(_g == _w, __VA_ARGS__))			\
			printf("#   got %lld, want %lld\n", _g, _w);	\
	} while (0)

#define is_str(got, want, ...)						\
	do {								\
		const char *_g = (got), *_w = (want);			\
		int _eq = (_g && _w) ? strcmp(_g, _w) == 0 : _g == _w;	\
		if (!tap_ok(_eq, __VA_ARGS__))				\
			printf("#   got  '%s'\n#   want '%s'\n",	\
			       _g ? _g : "(null)", _w ? _w : "(null)");	\
	} while (0)

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_done(void)
{
	printf("1..%u\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* USDT_TAP_H */
