/* SPDX-License-Identifier: MIT */
/*
 * pidfuncs.h - the pid provider's probe points in ELF files: the
 * functions an object defines, and the entry, return and instruction
 * offsets of each that a probe description selects (pidfuncs.c).
 *
 * Shared by `dtrace -l` (consumer/pidprov.c's list, through
 * dt_pid_each()) and tracing (pidprov.c, one file at a time); neither the probe table nor
 * the consumer is needed here.
 */
#ifndef USDT_DTRACE_PIDFUNCS_H
#define USDT_DTRACE_PIDFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gelf.h>

#include "probes.h"

/* One function: one address, however many symbols name it. */
struct dt_pidfunc {
	uint64_t addr;	   /* link-time address (st_value) */
	uint64_t size;	   /* st_size, > 0 */
	uint64_t off;	   /* file offset of addr */
	const char *name;  /* the name it is listed by */
	const char **alias; /* the other names of the address */
	unsigned nalias;
};

/* The functions of one file, by address. */
struct dt_pidfile {
	char *path; /* what it was read from */
	int fd;	    /* that file, open: its functions' bytes are read there */
	struct dt_pidfunc *fn;
	size_t nfn;
	GElf_Phdr *ph;
	size_t nph;
	char *strs; /* the names, one buffer */
	const char **aliases;
};

/*
 * Read path's functions: STT_FUNC and STT_GNU_IFUNC symbols of .symtab
 * and .dynsym with a size, defined in an executable section other than
 * the PLT's, one record per address.  0, or -errno with a sentence
 * naming the file in msg (a file that is not ELF is -ENOEXEC).
 */
int dt_pidfile_read(struct dt_pidfile *pf, const char *path, char *msg,
		    size_t msglen);
/* The same of a file open already (sdk/objfile.h), which stays the
 * caller's (pf keeps a descriptor of its own). */
struct objfile;
int dt_pidfile_read_of(struct dt_pidfile *pf, const struct objfile *of,
		       char *msg, size_t msglen);
void dt_pidfile_free(struct dt_pidfile *pf);

/* Does glob ("" is any) match one of fn's names? */
bool dt_pidfunc_match(const struct dt_pidfunc *fn, const char *glob);

/*
 * Does glob select the object at path as a module: its file name, or
 * "a.out" for the process's executable (as DTrace names it)?
 */
bool dt_pid_mod_match(const char *glob, const char *path, bool is_exe);

/* The pid<N> of a description that names one process: N, else 0. */
pid_t dt_pid_desc(const struct dt_desc *d);

enum dt_pidkind {
	DT_PID_ENTRY = 1,  /* the function's first instruction */
	DT_PID_RETURN = 2, /* its return to the caller (a uretprobe) */
	DT_PID_OFFSET = 3, /* an instruction at an offset */
};

/* One probe point of a function. */
struct dt_pidpoint {
	const struct dt_pidfunc *fn;
	enum dt_pidkind kind;
	uint64_t off;  /* from the function's start (0 but for offsets) */
	char name[24]; /* "entry", "return", or the offset in hex ("1a") */
};

/*
 * Every probe point of fn that the name glob selects (DTrace's rules:
 * "entry", "return", a hex offset, which must start an instruction, or
 * a glob, which takes entry, return and every instruction offset whose
 * hex name it matches), to each() in that order; a nonzero return stops
 * and is returned.  Offsets are checked with binutils' disassembler on
 * the function's bytes read from pf->path.  0, or -EINVAL with a
 * sentence in msg (a name that is no probe point, an offset outside the
 * function or inside an instruction, no disassembler), or -errno.
 */
int dt_pid_points(const struct dt_pidfile *pf, const struct dt_pidfunc *fn,
		  const char *glob,
		  int (*each)(const struct dt_pidpoint *pt, void *arg),
		  void *arg, char *msg, size_t msglen);

/* An object of a process, as dt_pid_each() hands it out. */
struct dt_pidobj {
	const char *path;     /* as /proc/PID/maps names it */
	const char *mod;      /* its module name: the file name */
	bool is_exe;	      /* the process's executable (a.out) */
	uint64_t bias;	      /* run-time address - link-time address */
	const struct dt_pidfile *pf;
};

/*
 * The pid probes of process pid that d selects (its provider pid<pid>),
 * over every file the process maps executable, in map order: each()
 * per probe point; a nonzero return stops and is returned.  0, -ESRCH
 * (no such process), or -EINVAL/-errno with a sentence in msg.
 */
int dt_pid_each(pid_t pid, const struct dt_desc *d,
		int (*each)(const struct dt_pidobj *o,
			    const struct dt_pidpoint *pt, void *arg),
		void *arg, char *msg, size_t msglen);

#endif /* USDT_DTRACE_PIDFUNCS_H */
