/* SPDX-License-Identifier: MIT */
/*
 * ustack.h - what ustack.c (capture, processes, unwinding) and usym.c
 * (names of addresses) share, and nothing else includes.  The rest of
 * the consumer sees only the ustack_* functions of rec_impl.h.
 *
 * A struct us_proc is one text of a process's maps as the stacks see
 * it (each text whose files differ is one: ustack.c's design comment):
 * the modules it maps (a libdwfl session reported from its
 * /proc/PID/maps text), the thread state libdwfl unwinds through our callbacks,
 * and the names of the addresses already looked up.  It outlives the process
 * until its records are read (ustack_proc_gone()), so a hit of a process
 * that exited before dtrace read it still gets its names.
 */
#ifndef USDT_DTRACE_USTACK_H
#define USDT_DTRACE_USTACK_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "consumer_impl.h"

/* A name looked up once (usym.c's cache): an address and how. */
struct us_sym {
	uint64_t pc;
	unsigned flags; /* D_USYM_RET, D_USYM_LINE */
	bool found;	/* in a module */
	char *mod, *sym, *file;
	uint64_t off;
	unsigned line;
};

struct us_proc {
	pid_t pid;
	uint64_t start; /* field 22 of /proc/PID/stat; 0: not known */
	bool gone;	/* ended: its memory is not read any more */
	Dwfl *dwfl;
	bool attached; /* dwfl_attach_state() done */
	char *maps;    /* the text the modules were reported from */
	/*
	 * The image the text is of: the exec() that loaded it (0: none
	 * known) and when the text was read (CLOCK_MONOTONIC ns, after
	 * the read; 0: at the fork, its parent's).  A hit at t uses the
	 * session whose text was read between the exec() before t and
	 * the one after (lin_image()).
	 */
	uint64_t since, maps_t;
	/*
	 * When the text was first read (maps_t: last read unchanged), and
	 * whether that read was made at a dlopen() held before any code
	 * of the libraries it maps ran (dlhold.c: tproc.held in sites.c's
	 * read).  A text never changes: a new one is a new session.
	 */
	uint64_t t0;
	/* when the read of t0 began (0: not known, e.g. the parent's) */
	uint64_t t0b;
	bool held;
	/* read while dlhold.c held every dlopen() of the process */
	bool dated;
	/* the hit named is of an image the process has left since: its
	 * live maps and memory are the new image's */
	bool frozen;
	uint64_t used; /* when last used (ustack_state.tick) */
	uint64_t refreshed; /* when /proc/PID/maps was last read (ns) */
	/* the hit being unwound (ustack.c's callbacks) */
	const struct ustack_cap *cap;
	pid_t tid;
	int mem_ok; /* live memory may be read: 1 yes, 0 no, -1 unknown */
	/*
	 * The last read the unwinder asked for failed only for want of
	 * bytes: above the copy, in the mapping that holds the stack
	 * pointer, with the process not readable any more.
	 */
	bool short_read;
	/*
	 * The text's file mappings, in address order, each with whether
	 * it is where libdwfl's module has its file's bytes (us_at_bias():
	 * 0 not known yet, 1 yes, -1 no); made when first asked.  A text
	 * replacing maps has the same file lines (same_files()).
	 */
	struct us_line {
		uint64_t lo, hi, off;
		int8_t at;
	} * lines;
	size_t nlines;
	bool lines_made;
	/* usym.c: names by address, open addressing */
	struct us_sym *syms;
	size_t nsyms, capsyms;
	size_t *nsyms_all; /* the entries of every session (ustack_state) */
};

/* The consumer's stacks and names (c->ust). */
struct ustack_state {
	struct us_proc **procs;
	size_t nprocs;
	uint64_t tick;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	/*
	 * An ELF header alone, of the machine whose registers ustack_cap
	 * holds: each session's dwfl_attach_state() opens its own libebl
	 * backend from it (ustack.c's attach()).
	 */
	Elf64_Ehdr ebl_ehdr;
	Elf *ebl_elf;
	bool mangled; /* -x mangled: names as the symbol tables have them */
	size_t nsyms_all; /* usym.c's entries, all sessions together */
	/* the hit the D program runs for (struct d_fire's ustack_ctx) */
	struct {
		struct consumer *c;
		pid_t pid, tid;
		uint64_t t; /* its time (CLOCK_MONOTONIC ns) */
		struct ustack_cap cap;
		bool unwound;
		unsigned asked; /* the most frames unwound for */
		uint64_t *pcs;
		unsigned npcs, cappcs;
		bool cut;     /* the walk stopped for want of copied bytes */
		unsigned lastn; /* frames the last ustack call gave */
	} hit;
	/* usym.c: the kernel's symbols (%a), read once */
	struct us_ksym *ksyms;
	size_t nksyms;
	bool ksyms_read;
	bool exec_said; /* a hit's image was left, its modules not known */
	/* the processes told that a frame's name was withheld */
	pid_t *withheld_said;
	size_t nwithheld_said;
	/*
	 * The fork tracker's records of executable mappings (uprobe.c),
	 * oldest first per process, and since when each process's
	 * threads all carry the tracker (ustack.c's mapped_at()); lost:
	 * the tracker lost records, which then dates nothing.
	 */
	struct ustack_mapped *mrecs;
	size_t nmrecs;
	struct us_tracked {
		pid_t pid;
		uint64_t t;   /* records complete from t on */
		size_t nrecs; /* its records in mrecs */
	} *tracked;
	size_t ntracked;
	bool mrecs_lost;
	/*
	 * The processes with an executable mapping newer than their last
	 * text (ustack_mapped()), each with the newest such record's time:
	 * their maps are read when the tracker's buffers are drained
	 * (ustack_mapped_read()).
	 */
	struct us_stale {
		pid_t pid;
		uint64_t t;
	} * stale;
	size_t nstale;
};

/* ustack.c */
struct us_proc *us_proc_get(struct consumer *c, pid_t pid, uint64_t t,
			    uint64_t pc);
bool us_mod_at(const struct us_proc *up, Dwfl_Module *mod, uint64_t x,
	       uint64_t *at);
bool us_at_bias(struct us_proc *up, uint64_t x);

/* ustack_walk.c (bpf backend): the kernel's tables of pid from up, built
 * once per text and image; pid gone */
#ifdef HAVE_BPF
void uw_build(struct consumer *c, struct us_proc *up, pid_t pid);
void uw_gone(struct consumer *c, pid_t pid);
bool uw_built(struct consumer *c, pid_t pid);
#endif

/* usym.c */
bool us_sym_lookup(struct consumer *c, struct us_proc *up, uint64_t pc,
		   unsigned flags, struct d_usym *out);
bool us_ksym_lookup(struct ustack_state *s, uint64_t addr,
		    struct d_usym *out);
void us_syms_free(struct us_proc *up);

#endif /* USDT_DTRACE_USTACK_H */
