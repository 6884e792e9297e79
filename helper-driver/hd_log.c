// SPDX-License-Identifier: MIT
/*
 * hd_log.c - dtrace-helperd's log (hd_log.h).
 *
 * Lines go to stderr while the daemon is in the foreground and to syslog
 * (LOG_DAEMON) once it has detached.  Process names and paths in them
 * come from callers, so a line is made safe (txt_safe(): C0 and C1
 * controls and ill-formed UTF-8 as \xNN) before it is written: a
 * newline or an escape sequence cannot forge a log line or drive a
 * terminal.  Refusals and odd requests, which a hostile client
 * can cause as fast as it likes, are rate-limited, each kind on its own,
 * so the one never hides the other.  The daemon has one thread, so the
 * state here needs no lock.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

#include "hd_log.h"
#include "text.h"

int hd_verbose;
static bool use_syslog;

void hd_log_to_syslog(void)
{
	openlog("dtrace-helperd", LOG_PID, LOG_DAEMON);
	use_syslog = true;
}

/* format(printf, 2, 0) lets clang's -Wformat-nonliteral check callers */
static void vlog(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vlog(int level, const char *fmt, va_list ap)
{
	int saved = errno;

	if (level == HD_INFO && hd_verbose < 1)
		return;
	if (level == HD_DEBUG && hd_verbose < 2)
		return;
	char line[1024], safe[TXT_SAFE_MAX(sizeof(line))];

	vsnprintf(line, sizeof(line), fmt, ap);
	/*
	 * Process names and paths come from callers: a newline, an escape
	 * sequence, a C1 control (0x9b is CSI, raw or as UTF-8 c2 9b) or
	 * bytes of no UTF-8 character must not forge a log line or drive a
	 * terminal: txt_safe() writes them as \xNN.
	 */
	txt_safe(line, safe, sizeof(safe));
	if (use_syslog)
		syslog(level, "%s", safe);
	else
		fprintf(stderr, "dtrace-helperd: %s\n", safe);
	errno = saved;
}

void hd_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A hostile or broken client can send refusals as fast as it likes; the
 * log gets at most HD_RL_BURST of them a second and then one line
 * counting what was left out.  Refused registrations (warnings) and odd
 * requests (foreign ioctls, REMOVE of generations the caller does not
 * hold; -v) are limited separately, so the one never hides the other.
 */
#define HD_RL_BURST 10

/* One per kind of line: the second it counts, and what it counted. */
static struct rate_limit {
	uint64_t window;
	unsigned int count;
	unsigned int suppressed;
} limits[2]; /* 0: refusals, 1: odd requests */

/* Whether a line of that kind may be printed now; counts it either way. */
static bool take(int bucket)
{
	struct rate_limit *rl = &limits[bucket];
	uint64_t t = now_ms() / 1000;

	if (t != rl->window) {
		if (rl->suppressed)
			hd_log(bucket ? HD_INFO : HD_WARN,
			       "%u more %s not logged", rl->suppressed,
			       bucket ? "odd request(s)" : "refusal(s)");
		rl->window = t;
		rl->count = 0;
		rl->suppressed = 0;
	}
	if (rl->count++ >= HD_RL_BURST) {
		rl->suppressed++;
		return false;
	}
	return true;
}

static void log_limited(int bucket, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void log_limited(int bucket, int level, const char *fmt, va_list ap)
{
	if (level == HD_INFO && hd_verbose < 1)
		return;
	if (take(bucket))
		vlog(level, fmt, ap);
}

void hd_log_reject(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_limited(0, HD_WARN, fmt, ap);
	va_end(ap);
}

bool hd_log_reject_take(void)
{
	return take(0);
}

void hd_log_odd(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_limited(1, HD_INFO, fmt, ap);
	va_end(ap);
}
