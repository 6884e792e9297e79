/* SPDX-License-Identifier: MIT */
/*
 * consumer.h - the consumer's interface to the rest of the command:
 * dtrace -n/-P/-m/-f/-s without -l.  dtrace.c turns the options into one
 * struct dt_trace_opts; dt_trace() enables the probes (kernel uprobe
 * events, or the fasttrap module when it is loaded) and runs the D
 * program on every hit.  What is inside is dtrace-G/consumer/'s own
 * (consumer_impl.h).
 */
#ifndef USDT_DTRACE_CONSUMER_H
#define USDT_DTRACE_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One piece of the program, in command-line order. */
struct dt_source {
	const char *text; /* the option's text, or the script's contents */
	const char *name; /* script path for -s; NULL for -n/-P/-m/-f */
	int spec;	  /* 4 -n, 1 -P, 2 -m, 3 -f, 0 -s */
};

struct dt_trace_opts {
	const char *statedir; /* the registry, NULL for none */
	struct dt_source *src;
	unsigned nsrc;
	const pid_t *pids; /* -p, in order */
	unsigned npids;
	const char *const *cmds; /* -c, in order */
	unsigned ncmds;
	const char *const *macro_argv; /* $1.. */
	unsigned macro_argc;
	bool quiet;	  /* -q */
	bool zero_ok;	  /* -Z */
	bool verbose;	  /* -v: say how many self-> variables are left */
	const char *output; /* -o FILE (appended to), NULL for stdout */
	size_t bufsize;	    /* ring buffer per CPU, bytes (-x bufsize) */
	unsigned switchrate_ms; /* how often buffers are read (-x switchrate) */
	const char *const *xopts; /* every -x NAME[=VALUE], in order */
	unsigned nxopts;
	bool compile_only; /* -e: compile, apply the options, stop */
};

/*
 * DTrace's option values: a size ("4m", "512k", bytes) from 4k to 1g,
 * and a rate ("10ms", "100hz", "1s", a number of Hz) as milliseconds
 * between reads (1 to 10000).  0, or -EINVAL.
 */
int dt_parse_size(const char *s, size_t *bytes);
int dt_parse_rate(const char *s, unsigned *ms);

/*
 * The kernel providers' probes (syscall, profile, proc; consumer/kprov.c)
 * for dtrace -l: fn is called for each, in listing order.  names are the
 * literal probe names of the descriptions given (no glob characters):
 * profile-N and tick-N of any rate exist when a description names them.
 */
struct dt_kprobe {
	const char *prov, *mod, *func, *name;
	unsigned nargs;
	const char *const *argtypes; /* nargs type names, or NULL */
};
void dt_kprov_list(char *const *names, size_t nnames,
		   void (*fn)(const struct dt_kprobe *p, void *arg), void *arg);

/* Run the whole thing; returns dtrace's exit status. */
int dt_trace(const struct dt_trace_opts *o);

/*
 * dtrace -l -c: start cmd as tracing does, stopped at its entry point
 * (its libraries mapped, nothing of it run); its pid, or -1 with the
 * reason said.  The caller kills it.
 */
pid_t dt_command_hold(const char *cmd);

#endif /* USDT_DTRACE_CONSUMER_H */
