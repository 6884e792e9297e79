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
 * dtrace -l's rows after the registry's, from the providers' tables
 * (consumer/provider.c's listed[]: the pid provider's, then the kernel
 * providers'), in the order they are listed.  Each row is a struct
 * dt_probe (objects/probes.h) with its names and attributes and no ID:
 * row() numbers, selects and prints it.  by is the description d[by]
 * that selected the row (the pid provider's probe points: a match it
 * counts), or -1 for a row that every description is matched against
 * (the kernel providers hand every probe, listed or not, so that their
 * IDs do not depend on what is asked).  err() says, in DTrace's words
 * after "dtrace: ", why description j could not be listed.  names: the
 * descriptions' literal probe names (profile-N and tick-N of any rate
 * exist when one names them).  files: --object, whose listing has no
 * kernel probes.  0, or the first row()'s non-zero return.
 */
struct dt_desc;
struct dt_probe;
struct dt_lister {
	struct dt_desc *d;
	unsigned nd;
	char *const *names;
	size_t nnames;
	bool files;
	int (*row)(const struct dt_probe *p, int by, void *arg);
	void (*err)(unsigned j, const char *msg, void *arg);
	void *arg;
};
int dt_providers_list(const struct dt_lister *l);

/* Run the whole thing; returns dtrace's exit status. */
int dt_trace(const struct dt_trace_opts *o);

/*
 * dtrace -l -c: start cmd as tracing does, stopped at its entry point
 * (its libraries mapped, nothing of it run); its pid, or -1 with the
 * reason said.  The caller kills it.
 */
pid_t dt_command_hold(const char *cmd);

#endif /* USDT_DTRACE_CONSUMER_H */
