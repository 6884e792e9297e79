/* SPDX-License-Identifier: MIT */
/*
 * probes.h - the probes the dtrace command knows about, and probe
 * descriptions that select them.
 *
 * `dtrace -l` lists this table and `dtrace -n` (tracing) resolves its
 * descriptions against the same table, so both agree on what a
 * description matches and on probe IDs.  The table is built once per
 * run by dt_probes_collect() from:
 *
 *	the dtrace provider	BEGIN, END and ERROR, IDs 1, 2 and 3
 *	the registry		every live process that registered DOF with
 *				the helper (sdk/registry.h), in pid order,
 *				its registrations in generation order and
 *				their probes in DOF order; the provider is
 *				named with the pid appended (myapp4242)
 *	or object files		--object=FILE: the DOF in .SUNW_dof, else
 *				the stapsdt notes (elfprobes.c); provider
 *				names without a pid
 *
 * One record per (probe, function), as the DOF has it.  IDs are given in
 * that order over the whole table, before any description is applied,
 * so selecting never renumbers.
 *
 * Who does what, from the bottom up, with no file calling one above it:
 * probes.c (the records and descriptions), elfprobes.c (object files and
 * the files a process maps), collect.c (the table for one run).
 *
 * Strings and argument types point into buffers the table owns (the DOF
 * read from the registry, the object's sections): they live until
 * dt_probes_free().
 */
#ifndef USDT_DTRACE_PROBES_H
#define USDT_DTRACE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "usdt/dof.h"
#include "dof_check.h"
#include "registry.h"

/* Where a probe came from. */
enum dt_origin {
	DT_ORIGIN_DTRACE,  /* the dtrace provider: no sites, no process */
	DT_ORIGIN_PROCESS, /* a registered process (the registry) */
	DT_ORIGIN_OBJECT,  /* an object file on disk (--object) */
	DT_ORIGIN_KERNEL,  /* syscall, profile, proc (dtrace -l only) */
};

/* Attributes of the dtrace provider and of what a note cannot tell. */
#define DT_ATTR_STABLE_COMMON DOF_ATTR(6, 6, 5)	  /* Stable/Stable/Common */
#define DT_ATTR_PRIVATE_UNKNOWN DOF_ATTR(1, 1, 0) /* Private/Private/Unknown */

/* Provider name as listed: "<provider><pid>" fits DTRACE_PROVNAMELEN. */
#define DT_PROVIDER_MAX (DTRACE_PROVNAMELEN + 16)

struct dt_probe {
	unsigned id;
	enum dt_origin origin;
	pid_t pid;			/* DT_ORIGIN_PROCESS, else 0 */
	char provider[DT_PROVIDER_MAX]; /* as listed: myapp4242, myapp */
	const char *prov;		/* as declared: myapp */
	const char *mod;
	const char *func;
	const char *name;

	const struct reg_proc *proc; /* DT_ORIGIN_PROCESS */
	const struct reg_entry *ent; /* DT_ORIGIN_PROCESS */
	const char *path;	     /* file holding the sites, "" if none */
	/*
	 * Sites are run-time addresses for a process, link-time addresses
	 * for an object file; link-time = run-time - bias.  In a relocatable
	 * object they are offsets in the function's section.  addr_known is
	 * false when the function's address could not be resolved (an
	 * object whose relocation names an undefined symbol): then sites
	 * hold offsets from the function's start.
	 */
	uint64_t bias;
	const char *section; /* relocatable object: the section */
	size_t shndx;	     /* of the function, else NULL, 0 */
	bool addr_known;
	uint64_t addr;	 /* the function */
	uint64_t *sites; /* nsites probe sites */
	unsigned nsites;
	uint64_t *ensites; /* legacy is-enabled sites */
	unsigned nensites;

	dof_attr_t provattr, modattr, funcattr, nameattr, argsattr;
	/*
	 * Argument types: native (nargv) and translated (xargv, what
	 * consumers see), argmap[i] the native index of translated
	 * argument i.  From the DOF; for a probe known only by its stapsdt
	 * notes, both lists are the integer types the notes' argument
	 * specs describe (int32_t for -4@...), and argmap is NULL.
	 */
	unsigned nargc, xargc;
	const char **nargv;
	const char **xargv;
	const uint8_t *argmap;
	const char *stapsdt_args; /* note argument string, or NULL */
	/*
	 * A probe of the header's stub by calling function (elfprobes.c):
	 * site_stub[i] is 1 where sites[i] is a call to the stub at
	 * stub_pc, 2 a tail jump, 0 a site of its own note; the stub's note
	 * describes the calls and jumps, with stub_call_args the argument
	 * specs as they are at a call (NULL: none is a call).  site_stub is
	 * NULL for every other probe.
	 */
	uint8_t *site_stub;
	uint64_t stub_pc;
	const char *stub_call_args;
};

struct dt_object; /* elfprobes.c */

struct dt_probes {
	struct dt_probe *v;
	size_t n, cap;
	unsigned next_id; /* IDs given so far, skipped records included */
	/*
	 * With dt_collect_opts.reg_ids: the registry files of pids above
	 * this one are not read yet (0: every file counted), so next_id is
	 * not yet the registry's end (dt_probes_count_rest()).
	 */
	pid_t reg_read_upto;
	bool reg_partial;
	/* what the records point into */
	struct reg_proc *procs;
	size_t nprocs;
	struct dt_object **objs;
	size_t nobjs;
};

/* What to collect. */
struct dt_collect_opts {
	const char *statedir;	    /* registry to read, NULL for none */
	const char *const *objects; /* object files (--object), in order */
	unsigned nobjects;
	/* warnings (damaged registry files, ...); may be NULL */
	void (*warn)(const char *msg, void *arg);
	void *warn_arg;
	/*
	 * Which registered probes to make records of (NULL: all), asked
	 * with the names alone (provider with its pid, module, function,
	 * name) before anything is allocated: a registry of a million
	 * probes costs a consumer that wants a handful almost nothing.
	 */
	bool (*want)(const struct dt_probe *p, void *arg);
	void *want_arg;
	/*
	 * With reg_only, only the registry files of these pids are read
	 * (none: not even the directory), the others being of no use to
	 * want (dt_desc_reg_pids()).
	 */
	bool reg_only;
	const pid_t *reg_pids;
	size_t nreg_pids;
	/*
	 * With reg_only, keep the IDs the whole registry gives (dtrace -l,
	 * whose IDs are the same whatever it is asked to list): the files
	 * of every pid up to the largest of reg_pids are read, those below
	 * only to count their probes; the rest are counted only when a
	 * later row needs its ID (dt_probes_count_rest()).
	 */
	bool reg_ids;
	/*
	 * Streaming (dtrace -l): when set, every record is handed to sink
	 * with its ID as it is made, and freed after; the table keeps none,
	 * and the registry is read one process at a time, so a listing's
	 * memory is one process's whatever the registry holds.  A nonzero
	 * return stops the collection and is returned.
	 */
	int (*sink)(const struct dt_probe *p, void *arg);
	void *sink_arg;
};

/* ---- collect.c ----------------------------------------------------- */

/*
 * Build the table.  0, or a negative errno with a sentence in msg (which
 * names the object file at fault).  Free with dt_probes_free() either way.
 */
int dt_probes_collect(struct dt_probes *pl, const struct dt_collect_opts *o,
		      char *msg, size_t msglen);

void dt_probes_free(struct dt_probes *pl);

/*
 * After a collection with reg_ids: count the probes of the registry
 * files not read yet (no record made), so pl->next_id is where the
 * registry's IDs end and a row listed after them has the ID it has in
 * the whole listing.  Nothing to do when every file was read.
 */
int dt_probes_count_rest(struct dt_probes *pl,
			 const struct dt_collect_opts *o);

/* ---- probes.c: the records ------------------------------------------ */

/*
 * Append a record (copied, with the next probe ID) and return it, or
 * NULL without memory.  For elfprobes.c and collect.c.  A registered
 * probe that dt_collect_opts.want passes over still takes its ID, so a
 * probe has the same ID whatever else a run asks for.
 */
struct dt_probe *dt_probes_add(struct dt_probes *pl, const struct dt_probe *p);

/*
 * Fill p's names, attributes, argument types and sites from one DOF
 * probe (sites = dofpr_addr + each offset; offsets alone when the
 * address is not known).  0 or -ENOMEM.
 */
int dt_probe_from_dof(struct dt_probe *p, const struct dof_prov_info *pv,
		      const struct dof_probe_info *pi, bool addr_known);

/* Free what a record owns (its sites and type arrays), not the record. */
void dt_probe_free(struct dt_probe *p);

/* ---- elfprobes.c: object files and the files a process maps ---------- */

/*
 * Append the probes of one object file (--object) to pl
 * and record the object in pl->objs.  0, or -errno with a sentence
 * naming the file in msg.
 */
int dt_object_probes(struct dt_probes *pl, const char *path,
		     const struct dt_collect_opts *o, char *msg, size_t msglen);
/* The same of a file open already (sdk/objfile.h): its readers share it. */
struct objfile;
int dt_object_probes_of(struct dt_probes *pl, const struct objfile *of,
			const struct dt_collect_opts *o, char *msg,
			size_t msglen);
void dt_object_free(struct dt_object *obj);

/*
 * Append the probes of the files process pid maps
 * executable (their DOF, else their stapsdt notes), as a registered
 * process's probes are recorded: provider named with the pid, run-time
 * sites, the module the file's name.  For `dtrace -l -p` on a process
 * that did not register.  The number of probes added, or -errno (-ESRCH:
 * no such process).  IDs are not assigned.
 */
int dt_process_probes(struct dt_probes *pl, pid_t pid,
		      const struct dt_collect_opts *o);

/* ---- probes.c: names and descriptions ------------------------------- */

/* Stability and class names as dtrace(1) prints them. */
const char *dt_stability_name(unsigned s);
const char *dt_class_name(unsigned c);

/*
 * Probe descriptions: provider:module:function:name, each field a glob
 * (fnmatch(3): *, ?, [...], \ escapes), an empty field matching
 * anything.  Written with fewer fields, they fill from the right,
 * starting at the field the option names:
 *
 *	-n name | function:name | module:function:name | p:m:f:n
 *	-f function | module:function | provider:module:function
 *	-m module | provider:module
 *	-P provider
 */
enum dt_spec {
	DT_SPEC_PROVIDER = 1,
	DT_SPEC_MODULE = 2,
	DT_SPEC_FUNC = 3,
	DT_SPEC_NAME = 4,
};

struct dt_desc {
	char *prov, *mod, *func, *name; /* malloc'ed; "" = any */
	char *text;			/* as given */
	enum dt_spec spec;
	unsigned matched; /* probes it selected */
};

/* Parse text; 0 or -EINVAL (too many fields) or -ENOMEM. */
int dt_desc_parse(const char *text, enum dt_spec spec, struct dt_desc *d);
void dt_desc_free(struct dt_desc *d);
bool dt_desc_match(const struct dt_desc *d, const struct dt_probe *p);

/*
 * The registered processes description d can match a probe of: false if
 * any may; else true, with the pids it can name appended to *pids
 * (*npids of them, malloc'ed; none added: no registered probe).  -ENOMEM
 * is reported as "any may".
 */
bool dt_desc_reg_pids(const struct dt_desc *d, pid_t **pids, size_t *npids);

/* The attribute dtrace prints for a probe: the minimum over the fields. */
dof_attr_t dt_probe_attr(const struct dt_probe *p);

#endif /* USDT_DTRACE_PROBES_H */
