/* SPDX-License-Identifier: MIT */
/*
 * dtrace.h - what the parts of the dtrace command share.
 */
#ifndef USDT_DTRACE_H
#define USDT_DTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "prov.h"
#include "consumer/consumer.h"

enum dtrace_mode { MODE_NONE, MODE_HEADER, MODE_LINK, MODE_VERSION, MODE_LIST };

/* A probe description from -n, -P, -m or -f (probes.h: enum dt_spec). */
struct dtrace_desc_arg {
	char opt;			/* 'n', 'P', 'm' or 'f' */
	int spec;			/* enum dt_spec */
	const char *text;
	char *owned;			/* text, when it is a piece of -n's */
};

struct dtrace_cmd {
	enum dtrace_mode mode;
	const char *script;
	const char *output;
	bool verbose;			/* -v */
	struct prov_opts popts;
	const char **cpp_argv;		/* -I, -D, -U, in order */
	unsigned cpp_argc;
	char **args;			/* operands: object files for -G */
	int argc;
	struct dtrace_desc_arg *descs;	/* -n, -P, -m, -f, in order */
	unsigned ndescs;
	pid_t *pids;			/* -p */
	unsigned npids;
	const char **objects;		/* --object=FILE */
	unsigned nobjects;
	/* tracing: -n/-P/-m/-f texts whole and -s scripts (read when
	 * tracing starts: text NULL until then), in order */
	struct dt_source *srcs;
	unsigned nsrcs;
	const char **cmds;		/* -c */
	unsigned ncmds;
	bool quiet;			/* -q, -x quiet */
	bool zero_ok;			/* -Z */
	bool compile_only;		/* -e */
	unsigned nscripts;		/* -s, each a source in srcs */
	size_t bufsize;			/* -x bufsize */
	unsigned switchrate_ms;		/* -x switchrate */
	const char **xopts;		/* every -x, for the D program */
	unsigned nxopts;
};

/* What dtrace -G is asked; dtrace.c fills it from the command line. */
struct dt_link_opts {
	const char *script;		/* the provider file, for messages */
	char *const *objects;		/* the objects to rewrite */
	int nobjects;
	bool verbose;			/* -v: each site before and after */
};

/*
 * dtrace -G: rewrite the objects, write `out`; 0 or -errno with the
 * sentence in msg ("failed to link script S: OBJECT: ...", empty when
 * there is nothing to add), for the command to print.
 */
int dtrace_link(const struct dt_link_opts *cmd, const struct prov_file *pf,
		const char *out, char *msg, size_t msglen);

/*
 * -G's reading stage on one object in memory (read, check, scan; nothing
 * written), for the fuzzers; 0 with the site count in *nsite, or -errno.
 */
int dtrace_link_scan_mem(const struct dt_link_opts *cmd,
			 const struct prov_file *pf, const char *path,
			 const void *buf, size_t len, unsigned *nsite,
			 char *msg, size_t msglen);

/* What dtrace -l is asked; dtrace.c fills it from the command line. */
struct dt_list_opts {
	const struct dtrace_desc_arg *descs; /* -n, -P, -m, -f */
	unsigned ndescs;
	const pid_t *pids;		     /* -p */
	unsigned npids;
	const char *const *cmds;	     /* -c: started, listed, killed */
	unsigned ncmds;
	const char *const *objects;	     /* --object=FILE */
	unsigned nobjects;
	bool verbose;			     /* -v */
};

/* dtrace -l (list.c): list the probes; returns the exit status. */
int dtrace_list(const struct dt_list_opts *o);

#endif /* USDT_DTRACE_H */
