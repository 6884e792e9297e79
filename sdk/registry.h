/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the helper's record of which process registered which DOF.
 *
 * dtrace-helperd keeps one file per registered process under
 * <statedir>/registry/ (statedir is /run/dtrace unless --state-dir or, for
 * readers, $DTRACE_STATEDIR says otherwise).  The daemon is the only
 * writer; `dtrace -l`, `dtrace -n` and the tests read.  Every update
 * writes "<pid>.tmp" and renames it over "<pid>", so a reader sees the
 * old or the new file, never half of one, and a daemon that is killed
 * and restarted finds exactly what it had recorded.
 *
 * The file format (the grammar, the escaping) is in
 * usdt/registry_format.h, which the kernel module writes it with too.
 *
 * Readers run every DOF through dof_check() again: the files are the
 * helper's, but a reader must not trust anything it parses more than it
 * has to.
 *
 * A process's identity is (pid, start): a recorded process is alive only
 * if /proc/PID/stat still shows that start time, so a reused pid is never
 * taken for the process that registered.
 */
#ifndef USDT_REGISTRY_H
#define USDT_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "usdt/dof.h"
#include "usdt/registry_format.h"

#define REG_COMM_MAX 64

enum reg_origin {
	REG_ORIGIN_IOCTL = 0,
	REG_ORIGIN_SCAN = 1,
	REG_ORIGIN_FORK = 2,
};

/* One ADDDOF (or one DOF found by the start-up scan). */
struct reg_entry {
	uint64_t gen;
	uint64_t base;	   /* dofhp_addr */
	uint64_t dof_addr; /* dofhp_dof */
	uint64_t dev;	   /* object file, 0 if not file-backed */
	uint64_t ino;
	enum reg_origin origin;
	char mod[DTRACE_MODNAMELEN]; /* NUL-terminated */
	char *path;		     /* malloc'ed, "" if unknown */
	uint8_t *dof;		     /* malloc'ed, dof_len bytes */
	size_t dof_len;
};

struct reg_proc {
	pid_t pid;
	uint64_t start;		 /* /proc/PID/stat starttime */
	char comm[REG_COMM_MAX]; /* NUL-terminated */
	size_t nent;
	struct reg_entry *ent; /* by gen; room implied by nent (grow.h) */
};

/*
 * The state directory readers use: $DTRACE_STATEDIR, else /proc/dtrace
 * when the kernel helper module is loaded, else /run/dtrace.
 */
const char *reg_statedir(void);

/*
 * Write p atomically as <statedir>/registry/<pid>, creating the registry
 * directory (0755) if needed; a process with no entries is removed
 * instead.  Files are 0644.  0 or -errno; msg (if not NULL) gets a
 * sentence naming the file.
 */
int reg_proc_write(const char *statedir, const struct reg_proc *p,
		   char *msg, size_t msglen);

/* Remove <statedir>/registry/<pid>; 0 (also if absent) or -errno. */
int reg_proc_remove(const char *statedir, pid_t pid);

/*
 * Read one registry file into *p (zeroed first).  0, or -EINVAL for a
 * malformed file (msg says what and where), or -errno.  Every entry's
 * DOF has passed dof_check().  Free with reg_proc_free().
 */
int reg_proc_read(const char *path, struct reg_proc *p, char *msg,
		  size_t msglen);

void reg_proc_free(struct reg_proc *p);

/* Drop entry i of p (freeing it), keeping the others in order. */
void reg_proc_drop(struct reg_proc *p, size_t i);

/*
 * Read every registry file under statedir, sorted by pid.  With
 * live_only, files of processes that are gone (or whose pid now belongs
 * to another process) are skipped.  Malformed files are skipped and
 * reported through warn (may be NULL).  An absent registry directory is
 * an empty registry.  0 or -errno; free with reg_procs_free().
 */
int reg_load_all(const char *statedir, bool live_only,
		 void (*warn)(const char *msg, void *arg), void *arg,
		 struct reg_proc **procs, size_t *nprocs);

void reg_procs_free(struct reg_proc *procs, size_t nprocs);

/*
 * Wait until the helper serving statedir (named in <statedir>/device)
 * has checked and written every registration it has answered: SYNC,
 * usdt/helper_abi.h.  reg_each() and reg_load_all() do it first.
 */
void reg_sync(const char *statedir);

/*
 * The same files, one at a time, in pid order: fn gets each process
 * read (it owns it: reg_proc_free() it) and a nonzero return stops the
 * walk and is returned.  Memory is one file's, whatever the registry's
 * size: what a listing streams through.
 */
int reg_each(const char *statedir, bool live_only,
	     void (*warn)(const char *msg, void *arg), void *arg,
	     int (*fn)(struct reg_proc *p, void *fnarg), void *fnarg);

/*
 * reg_each() over the files of the nonly pids in only alone (absent ones
 * skipped silently); with none, nothing is read, not even the
 * directory, and no SYNC is sent.  Without only (NULL), every file.
 */
int reg_each_pids(const char *statedir, const pid_t *only, size_t nonly,
		  bool live_only, void (*warn)(const char *msg, void *arg),
		  void *arg, int (*fn)(struct reg_proc *p, void *fnarg),
		  void *fnarg);

/*
 * reg_each() over the files whose pid is in [lo, hi] alone, in pid
 * order (dtrace -l reads those below the pids its descriptions name to
 * count their probes' IDs, and the rest only when a later row's ID
 * needs them); lo > hi reads nothing and sends no SYNC.
 */
int reg_each_range(const char *statedir, pid_t lo, pid_t hi, bool live_only,
		   void (*warn)(const char *msg, void *arg), void *arg,
		   int (*fn)(struct reg_proc *p, void *fnarg), void *fnarg);

/*
 * Start time of pid (field 22 of /proc/PID/stat) and its comm; 0 or
 * -errno (-ESRCH when there is no such process).  comm may be NULL.
 */
int reg_proc_stat(pid_t pid, uint64_t *start, char *comm, size_t commlen);

/* True if pid is alive and still the process that started at start. */
bool reg_proc_alive(pid_t pid, uint64_t start);

/* Escape s into buf as one token (usdt/registry_format.h). */
void reg_escape(const char *s, char *buf, size_t buflen);

/* Undo reg_escape in place; -1 on a malformed escape. */
int reg_unescape(char *s);

#endif /* USDT_REGISTRY_H */
