// SPDX-License-Identifier: MIT
/*
 * option.c - the D program's options: which names exist
 * (d_known_option()), their values as #pragma D option and -x give
 * them, flags as libdtrace reads them (a flag given without a value,
 * or with a number, even 0, is set; "no", "off", "false", "unset",
 * "disable" or "" unset it: flag_value()), what the compiler and the
 * consumer read back (d_get_option(), the program's own fields such as
 * strsize and the aggregation sort keys), and the options DTrace's
 * reference lists that cannot apply here, each accepted with one
 * warning (d_option_warnings()).  compile.c's pragma parser sets them
 * through d_option_set(), the consumer through d_set_option().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "d_impl.h"


static const char *const known_opts[] = {
	"quiet",       "bufsize",     "switchrate",  "aggsize",
	"aggrate",     "strsize",     "dynvarsize",  "cleanrate",
	"statusrate",  "nspec",	      "specsize",    "defaultargs",
	"aggsortrev",  "aggsortkey",  "bufpolicy",   "bufresize",
	"stackframes", "ustackframes", "zdefs",      "rawbytes",
	"cpu",	       "grabanon",    "temporal",    "aggsortpos",
	"aggsortkeypos", "destructive", "flowindent", "oformat",
	"stackindent", "ustacksize", "srcline", "mangled",
	"errtags", /* the compiler's (struct d_compile_opts) */
	"aggpack",     "agghist",     "aggzoom",     "encoding",
	"maxframes",   "jstackframes", "jstackstrsize",
	"activation", /* the consumer's: kernel or user (inproc.c) */
	"usercopy", /* the consumer's: copies at the hit under activation=user */
	"evaltime", /* the consumer's: where a -c command is armed */
	NULL,
};

bool d_known_option(const char *name)
{
	for (unsigned i = 0; known_opts[i]; i++)
		if (strcmp(known_opts[i], name) == 0)
			return true;
	return false;
}

/*
 * A flag option's value, as libdtrace's run-time options take it: none
 * or a number sets it (even "0"), yes/enable(d)/true/on/set set it,
 * no/disable(d)/false/off/unset unset it (as does setopt()'s "": stmt.c
 * passes it as "unset").  -1: not a value.
 */
static int flag_value(const char *v);

int d_flag_value(const char *v)
{
	return flag_value(v);
}

static int flag_value(const char *v)
{
	static const char *const on[] = { "yes", "enable", "enabled",
					  "true", "on", "set", NULL };
	static const char *const off[] = { "no", "disable", "disabled",
					   "false", "off", "unset", NULL };
	char *end;

	if (!v || !*v) /* -x name and #pragma D option name */
		return 1;
	for (unsigned i = 0; on[i]; i++) {
		if (strcasecmp(on[i], v) == 0)
			return 1;
		if (strcasecmp(off[i], v) == 0)
			return 0;
	}
	errno = 0;
	(void)strtoull(v, &end, 0);
	return *end || errno || *v == '-' ? -1 : 1;
}

int d_option_set(struct d_prog *p, const char *name, const char *value,
		      char *msg, size_t msglen)
{
	unsigned i;

	for (i = 0; known_opts[i]; i++)
		if (strcmp(known_opts[i], name) == 0)
			break;
	if (!known_opts[i]) {
		snprintf(msg, msglen,
			 "failed to set option '%s': Invalid option name", name);
		return -1;
	}
	if (strcmp(name, "strsize") == 0) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = value ? strtoull(value, &end, 0) : 0;
		if (!value || errno || *end || v < 2 || v > 65536) {
			snprintf(msg, msglen,
				 "failed to set option 'strsize' to '%s': "
				 "Invalid value for specified option",
				 value ? value : "");
			return -1;
		}
		p->strsize = (size_t)v;
	}
	if (d_stack_option(p, name, value, msg, msglen) < 0)
		return -1;
	if (strcmp(name, "usercopy") == 0 && flag_value(value) < 0) {
		snprintf(msg, msglen,
			 "failed to set option 'usercopy' to '%s': Invalid "
			 "value for specified option",
			 value);
		return -1;
	}
	if (strcmp(name, "quiet") == 0)
		p->quiet = flag_value(value) != 0;
	else if (strcmp(name, "defaultargs") == 0)
		p->defaultargs = true;
	else if (strcmp(name, "destructive") == 0)
		p->destructive = flag_value(value) != 0;
	else if (strcmp(name, "flowindent") == 0)
		p->flowindent = flag_value(value) != 0;
	else if (strcmp(name, "aggsortrev") == 0 ||
		 strcmp(name, "aggsortkey") == 0 ||
		 strcmp(name, "aggpack") == 0 ||
		 strcmp(name, "agghist") == 0 || strcmp(name, "aggzoom") == 0) {
		int on = flag_value(value);

		if (on < 0) {
			snprintf(msg, msglen,
				 "failed to set option '%s' to '%s': "
				 "Invalid value for specified option",
				 name, value);
			return -1;
		}
		if (strcmp(name, "aggsortrev") == 0)
			p->aggsortrev = on;
		else if (strcmp(name, "aggsortkey") == 0)
			p->aggsortkey = on;
		else if (strcmp(name, "aggpack") == 0)
			p->aggpack = on;
		else if (strcmp(name, "agghist") == 0)
			p->agghist = on;
		else
			p->aggzoom = on;
	}
	if (strcmp(name, "evaltime") == 0 &&
	    (!value || (strcmp(value, "exec") != 0 &&
			strcmp(value, "preinit") != 0 &&
			strcmp(value, "postinit") != 0 &&
			strcmp(value, "main") != 0))) {
		snprintf(msg, msglen,
			 "failed to set option 'evaltime' to '%s': Invalid "
			 "value for specified option (exec, preinit, postinit "
			 "or main)",
			 value ? value : "");
		return -1;
	}
	if (strcmp(name, "encoding") == 0) {
		if (!value || (strcmp(value, "ascii") != 0 &&
			       strcmp(value, "utf8") != 0)) {
			snprintf(msg, msglen,
				 "failed to set option 'encoding' to '%s': "
				 "Invalid value for specified option (ascii "
				 "or utf8)",
				 value ? value : "");
			return -1;
		}
		p->encoding = value[0] == 'a' ? ENC_ASCII : ENC_UTF8;
	}
	if (strcmp(name, "oformat") == 0) {
		if (!value || (strcmp(value, "json") != 0 &&
			       strcmp(value, "text") != 0)) {
			snprintf(msg, msglen,
				 "failed to set option 'oformat' to '%s': "
				 "Invalid value for specified option (json "
				 "or text)",
				 value ? value : "");
			return -1;
		}
		p->json = value[0] == 'j';
	}
	if (strcmp(name, "nspec") == 0) {
		char *end;
		unsigned long v;

		errno = 0;
		v = value ? strtoul(value, &end, 0) : 0;
		if (!value || !*value || errno || *end || v > 65536 ||
		    *value == '-') {
			snprintf(msg, msglen,
				 "failed to set option 'nspec' to '%s': "
				 "Invalid value for specified option",
				 value ? value : "");
			return -1;
		}
		if (!p->specs)
			p->nspec = (unsigned)v;
	}
	if (strcmp(name, "specsize") == 0) {
		size_t v;

		if (d_parse_size(value, &v) < 0) {
			snprintf(msg, msglen,
				 "failed to set option 'specsize' to '%s': "
				 "Invalid value for specified option",
				 value ? value : "");
			return -1;
		}
		p->specsize = v;
		p->specsize_set = true;
	}
	if (strcmp(name, "aggsortpos") == 0 ||
	    strcmp(name, "aggsortkeypos") == 0) {
		char *end;
		unsigned long v;

		errno = 0;
		v = value ? strtoul(value, &end, 0) : 0;
		if (value && !*value)
			v = 0; /* unset: the default */
		else if (!value || errno || *end || v > INT32_MAX) {
			snprintf(msg, msglen,
				 "failed to set option '%s' to '%s': "
				 "Invalid value for specified option",
				 name, value ? value : "");
			return -1;
		}
		if (name[7] == 'p')
			p->aggsortpos = (unsigned)v;
		else
			p->aggsortkeypos = (unsigned)v;
	}
	for (i = 0; i < p->nopts; i++)
		if (strcmp(p->opts[i].name, name) == 0)
			break;
	if (i == p->nopts) {
		p->opts = xpush_room(p->opts, p->nopts, sizeof(*p->opts));
		p->opts[i].name = xstrdup(name);
		p->opts[i].value = NULL;
		p->nopts++;
	}
	free(p->opts[i].value);
	p->opts[i].value = xstrdup(value ? value : "");
	return 0;
}

bool d_opt_quiet(const struct d_prog *p)
{
	return p && p->quiet;
}

size_t d_opt_strsize(const struct d_prog *p)
{
	return p->strsize;
}

bool d_opt_flag(const struct d_prog *p, const char *name)
{
	const char *v = d_get_option(p, name);

	return v && flag_value(v) == 1;
}

void d_set_quiet(struct d_prog *p, bool quiet)
{
	if (p)
		p->quiet = quiet;
}

int d_set_option(struct d_prog *p, const char *name, const char *value,
		 char *msg, size_t msglen)
{
	char dummy[1];

	if (!msg || !msglen) {
		msg = dummy;
		msglen = sizeof(dummy);
	}
	if (strcmp(name, "quiet") == 0 && value && *value &&
	    strcmp(value, "0") == 0) {
		p->quiet = false;
		return 0;
	}
	return d_option_set(p, name, value, msg, msglen);
}

const char *d_get_option(const struct d_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; p && i < p->nopts; i++)
		if (strcmp(p->opts[i].name, name) == 0)
			return p->opts[i].value;
	return NULL;
}

/*
 * Options DTrace's reference lists that cannot apply to this tracer:
 * accepted (scripts set them), each with one warning saying so.  The
 * others are honoured (here, in stack.c, or by the consumer).
 */
static const struct {
	const char *name, *why;
} no_effect[] = {
	{ "aggsize", "aggregations grow in dtrace's memory as needed" },
	{ "aggrate", "aggregations are read when they are printed" },
	{ "dynvarsize", "dynamic variables grow in dtrace's memory as needed" },
	{ "cleanrate", "dynamic variables are freed when zeroed, at once" },
	{ "statusrate", "drops are checked at every read of the buffers" },
	{ "bufpolicy", "the buffers are rings read as they fill (switch)" },
	{ "bufresize", "the buffers are never resized" },
	{ "stackframes", "kernel stacks (stack()) are not recorded" },
	{ "cpu", "every CPU is traced" },
	{ "grabanon", "there is no anonymous tracing state to grab" },
	{ "temporal", "each read of the buffers is printed in time order "
		      "already" },
};

void d_option_warnings(const struct d_prog *p, FILE *err)
{
	for (unsigned i = 0; p && err && i < p->nopts; i++)
		for (unsigned j = 0; j < sizeof(no_effect) / sizeof(no_effect[0]);
		     j++)
			if (strcmp(p->opts[i].name, no_effect[j].name) == 0)
				fprintf(err,
					"dtrace: option %s has no effect here: "
					"%s\n",
					no_effect[j].name, no_effect[j].why);
}
