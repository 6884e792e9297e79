/* SPDX-License-Identifier: MIT */
/*
 * hd_log.h - dtrace-helperd's log (hd_log.c): stderr in the foreground,
 * syslog once the daemon is in the background.
 *
 * The bottom of the daemon: it knows nothing of the other parts, so every
 * part can log without depending on the one that holds main().
 */
#ifndef USDT_HD_LOG_H
#define USDT_HD_LOG_H

#include <stdbool.h>

/* syslog(3) priorities, so the levels pass through unchanged */
enum { HD_ERR = 3, HD_WARN = 4, HD_NOTICE = 5, HD_INFO = 6, HD_DEBUG = 7 };

/* HD_INFO needs -v (hd_verbose >= 1), HD_DEBUG -vv. */
extern int hd_verbose;

/* One line; errno is preserved.  Control bytes are shown as '?'. */
void hd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* hd_log for refused requests (HD_WARN), at most a few lines a second. */
void hd_log_reject(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * hd_log_reject's limit alone: true when a refusal's line may be printed
 * now (print it with hd_log at HD_WARN), false when it is counted as
 * left out -- so what only the line needs is not computed for nothing.
 */
bool hd_log_reject_take(void);

/* The same for odd but harmless requests, at -v, limited separately. */
void hd_log_odd(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* From now on, log to syslog (LOG_DAEMON) instead of stderr. */
void hd_log_to_syslog(void);

#endif /* USDT_HD_LOG_H */
