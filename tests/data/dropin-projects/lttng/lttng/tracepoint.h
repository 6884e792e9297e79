/*
 * A miniature of LTTng-UST 2.13's <lttng/tracepoint.h> (written for
 * these tests), the part of it that reaches <sys/sdt.h>: where
 * LTTNG_UST_HAVE_SDT_INTEGRATION is defined (Mir defines it itself when
 * CMake finds <sys/sdt.h>; Debian's lttng-ust leaves it undefined in
 * ust-config.h), each tracepoint() is also a stapsdt probe named by its
 * provider and event, made by systemtap's internal
 * _SDT_PROBE(provider, name, n, (args...)) with the arguments counted
 * here, 0 to 12.  An lttng-ust built --with-sdt (Fedora's) defines
 * the macro in its <lttng/ust-config.h>; Ceph's miniature stands for
 * that by defining it on the command line.  The LTTng side
 * (registration, callbacks, the events' fields) is left out: it is what
 * runs when an LTTng session is on, and none is here.
 */
#ifndef MINI_LTTNG_TRACEPOINT_H
#define MINI_LTTNG_TRACEPOINT_H

#ifdef LTTNG_UST_HAVE_SDT_INTEGRATION
#include <sys/sdt.h>
#define MINI_TP_COUNT(...)                                                    \
	MINI_TP_COUNT_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define MINI_TP_COUNT_(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
		       n, ...)                                                \
	n
#define MINI_TP_SDT_N(provider, name, n, ...)                                 \
	_SDT_PROBE(provider, name, n, (__VA_ARGS__))
#define MINI_TP_SDT(provider, name, ...)                                      \
	MINI_TP_SDT_N(provider, name, MINI_TP_COUNT(0, ##__VA_ARGS__),        \
		      ##__VA_ARGS__)
#else
#define MINI_TP_SDT(...)
#endif

/* lttng-gen-tp's providers declare their events with these */
#define TP_ARGS(...) __VA_ARGS__
#define TP_FIELDS(...) __VA_ARGS__
#define TRACEPOINT_EVENT(provider, name, args, fields)

#define tracepoint(provider, name, ...)                                       \
	do {                                                                  \
		MINI_TP_SDT(provider, name, ##__VA_ARGS__);                   \
	} while (0)

#endif
