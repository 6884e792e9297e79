/* SPDX-License-Identifier: MIT */
/*
 * link_impl.h - what the files of `dtrace -G` share; not for the rest of
 * the command (dtrace.h declares dtrace_link(), its way in).
 *
 * One struct glink holds a run's state: the objects named on the command
 * line (struct gobj), the functions holding probe sites (struct gfunc)
 * and the sites (struct gsite).  It is passed to every function that
 * needs it; nothing is global.  The parts:
 *
 *	link.c		the driver: the four stages of a run (read, rewrite,
 *			write the output, rename into place), the rewritten
 *			copies of the objects, and what -v prints
 *	link_sites.c	reading the objects: their kind, the probe sites
 *			(calls and inline notes), the functions holding them
 *			and their aliases, the anchors, the COMDAT rules;
 *			and the fuzzers' way in, dtrace_link_scan_mem()
 *	link_out.c	the output object: DOF, stapsdt notes, semaphores,
 *			COMDAT groups, and drti.o merged in with `ld -r`
 *
 * Reading fills the three arrays and changes nothing; everything after it
 * only reads them, so the rewritten objects and the output describe the
 * same sites.
 */
#ifndef USDT_DTRACE_LINK_IMPL_H
#define USDT_DTRACE_LINK_IMPL_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "../dtrace.h"
#include "prov.h"
#include "site.h"

/*
 * Functions holding sites get an alias `$dtrace<hash>.<function>`, and
 * objects with sites an anchor `$dtrace<hash>` (link_sites.c).
 */
#define ALIAS_PREFIX "$dtrace"

/* where a probe stub is: a section and the offset in it */
struct gstub {
	size_t shndx;
	uint64_t off;
};

struct gobj {
	const char *path;
	uint8_t *buf;		/* the file as read */
	size_t size;
	struct stat st;
	Elf *elf;
	size_t symndx;		/* section index of .symtab */
	uint64_t hash;
	bool hashed;
	bool changed;
	/*
	 * Compiled with -flto (LLVM bitcode, or GCC LTO sections, slim or
	 * fat): the code an -flto link uses is made from the bytecode, so
	 * rewriting the machine code beside it (or describing it in the DOF)
	 * would be wrong or, with an -flto link, refer to symbols that never
	 * exist.  Such an object is read and left alone; its probes call
	 * the stubs its header defines.
	 */
	bool lto;
	/*
	 * The anchor: an undefined hidden symbol `$dtrace<hash>` added to
	 * an object with probe sites, which the output defines.  Linking
	 * the object then pulls in the output even from a static archive
	 * that nothing else takes it from (Perl's libperl.a holds the
	 * rewritten objects and their -G output, and perl's own -G output
	 * already defines every semaphore): without it the notes and the
	 * DOF of the archive's sites would silently stay behind.
	 */
	char *anchor;
	bool anchor_exists;
	char *tmp;		/* rewritten copy, until renamed */
	/*
	 * Probe stubs of an older header (site.h's old_stub): rewritten
	 * with today's stub, which a fork cannot break (doc/DESIGN.md §4).
	 */
	struct gstub *old_stubs;
	unsigned nold_stubs;
	/*
	 * Its functions and sites: funcs[func_first..func_end) and, until
	 * gl_build_output() sorts them, sites[site_first..site_end).  Scanning
	 * appends, one object after the other, so every per-object loop
	 * stays within its own range: -G grows linearly with the objects.
	 */
	unsigned func_first, func_end, site_first, site_end;
};

struct gfunc {
	unsigned obj;
	size_t shndx;
	uint64_t value, size;
	char *name;		/* as consumers see it */
	char *alias;		/* symbol the output refers to */
	bool alias_exists;
	bool comdat;		/* in a COMDAT group: an inline function */
	uint64_t layout;	/* COMDAT: hash of its size and its sites */
	int canon;		/* COMDAT copy of funcs[canon], else -1 */
	struct site_insns insns;	/* its instruction boundaries */
};

struct gsite {
	unsigned obj;
	unsigned func;
	const struct prov_provider *pv;
	const struct prov_probe *pr;
	struct probe_site at;	/* the site */
	size_t shndx;		/* code section */
	size_t relscn;		/* its relocation section */
	size_t relidx;
	size_t symidx;		/* the probe symbol */
	bool noted;		/* an inline probe: its note is in the object */
};

struct glink {
	const struct dt_link_opts *cmd;
	/*
	 * The machine of the run's objects (the first that says, arch_obj;
	 * every other must agree); without one, drti.o's (gl_drti_arch()).
	 */
	const struct site_arch *arch;
	unsigned arch_obj;
	char *drti;		/* drti.o for that machine (gl_find_drti()) */
	const struct prov_file *pf;
	struct gobj *objs;
	unsigned nobj;
	struct gfunc *funcs;
	unsigned nfunc;
	size_t funccap;
	struct gsite *sites;
	unsigned nsite;
	size_t sitecap;
	char *msg; /* the caller's, for gerr() */
	size_t msglen;
};

/*
 * link.c: the linker's words (doc/DESIGN.md §12): gerr() an error,
 * naming the script and object o if any, into dtrace_link()'s msg for
 * the command to print (-EINVAL, returned up to dtrace_link()); gsay(),
 * its only output to stderr, a warning, or with verbose_only a -v note.
 */
int __attribute__((format(printf, 3, 4)))
gerr(const struct glink *g, const struct gobj *o, const char *fmt, ...);
void __attribute__((format(printf, 3, 4)))
gsay(const struct glink *g, bool verbose_only, const char *fmt, ...);

/* A run's start: g (zeroed) told the command's words and the caller's
 * msg; 0, or -EINVAL with libelf too old. */
int gl_begin(struct glink *g, const struct dt_link_opts *cmd,
	     const struct prov_file *pf, char *msg, size_t msglen);

/* link_sites.c: stage 1, reading; they change nothing on disk */
int gl_read_object(struct glink *g, struct gobj *o);
int gl_check_object(struct glink *g, struct gobj *o);
int gl_scan_object(struct glink *g, unsigned oi);
int gl_name_comdat(struct glink *g);
int gl_check_comdat_copies(struct glink *g);

/* Free what the scan made: the functions (names, aliases, decoded
 * instructions) and the sites. */
void gl_free_sites(struct glink *g);

/* link_out.c: stage 3, the output object */
int gl_find_drti(struct glink *g);
const struct site_arch *gl_drti_arch(const struct glink *g);
int gl_build_output(struct glink *g, const char *tmp_in, bool *need_ld);
int gl_merge_drti(struct glink *g, const char *out, const char *in);

#endif /* USDT_DTRACE_LINK_IMPL_H */
