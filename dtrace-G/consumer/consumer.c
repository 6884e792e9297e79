// SPDX-License-Identifier: MIT
/*
 * trace.c - dtrace's tracing: the consumer half of the classic fasttrap,
 * built on kernel uprobes (DESIGN §8).
 *
 * What gets traced.  The processes are the -p and -c targets, and every
 * process that registered DOF with the helper (the registry) and has a
 * probe a description matches.  A process's probes are read from the
 * files it has mapped executable (/proc/PID/maps), each file once (by
 * device and inode): their DOF or stapsdt notes (elfprobes.c), so a
 * target's probes are found with or without dtrace-helperd, including
 * those of libraries it dlopen()s while traced (the maps are read again
 * every 100 ms, and at once when the registry changes).
 *
 * Enabling.  For each probe site (file, file offset) one uprobe event is
 * created in tracefs under a group named after this run, "dtrace_PID_T"
 * (T: our start time), with the semaphore's file offset as reference
 * counter, so the kernel counts the _ENABLED() semaphore up in exactly
 * the processes where it installs the breakpoint, and down when it
 * removes it.  The event's fetch arguments copy, at hit time, the
 * arguments as the site's stapsdt note describes them (else the SysV
 * call registers and stack slots), the strings the D program reads with
 * copyinstr(), and the thread's name.  Perf events per (uprobe event,
 * thread of a traced process, CPU) turn it on: the kernel installs
 * breakpoints only in the address spaces of processes with such an
 * event, so another process running the same binary pays nothing.
 * inherit = 1 follows threads created later.  A running process is held
 * still (ptrace) while its events are opened, so no thread takes a probe
 * half enabled.
 *
 * Reading.  Each CPU has a ring buffer, which every event on that CPU
 * writes (PERF_EVENT_IOC_SET_OUTPUT).  Every switchrate (10 ms) or when a
 * buffer is half full, all buffers are read, the hits are sorted by time
 * and the D program runs on each (dlang.h).  Records the kernel could not
 * store are reported ("N drops on CPU C"), and at the end the events' own
 * counts give the exact number of hits that were never read.
 *
 * Cleanup.  On exit(), the end of all targets, SIGINT, SIGTERM and
 * SIGHUP, the perf events are closed (the kernel removes the breakpoints
 * and counts the semaphores back down), then the uprobe events are
 * deleted.  A consumer killed with SIGKILL leaves its uprobe events (its
 * perf events die with it, so nothing stays armed); every run deletes
 * the groups of consumers that are no longer alive before it starts.
 *
 * -c runs the command under ptrace until its entry point (so the program
 * and the libraries it was linked with are mapped and nothing has run),
 * enables the probes, and lets it go.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../dlang.h"
#include "fasttrap_abi.h"
#include "../probes.h"
#include "registry.h"
#include "stapsdt.h"
#include "consumer.h"

#define GROUP_PREFIX "dtrace_"
#define MAX_NOTE_ARGS D_MAXARGS

/* ------------------------------------------------------------------ */
/* Data */

/* A note of a file: where a site is and what it says. */
struct tnote {
	uint64_t off;	   /* file offset of the site */
	uint64_t sema_off; /* file offset of the semaphore, 0 if none */
	const char *args;  /* argument specs (points into the note copy) */
};

/* An ELF file some traced process maps, read once. */
struct tfile {
	dev_t dev;
	ino_t ino;
	char *path;  /* as /proc/PID/maps names it */
	char *upath; /* what uprobe_events is given */
	GElf_Phdr *ph;
	size_t nph;
	struct tnote *notes;
	size_t nnotes;
	uint8_t *notesec;
	struct dt_probes pl; /* its probes, link-time sites */
	/* symbols, for RIP-relative note arguments */
	GElf_Sym *syms;
	char **symnames;
	size_t nsyms;
	bool failed; /* not an ELF file, no probes: never read again */
	int fd;	     /* open for FASTTRAPIOC_ENABLE, else -1 */
};

struct tproc;

/* A probe of one process. */
struct tprobe {
	unsigned id;
	pid_t pid;
	char *prov, *mod, *func, *name; /* provider with the pid appended */
	unsigned nargs;
	char **argtypes;
	struct d_probe dp;
	unsigned *clauses; /* matching clauses, in program order */
	unsigned nclauses;
	unsigned *epids;
	uint16_t strmask;
	uint32_t needs; /* d_clause_needs() of its clauses */
	struct tfile *file;
	uint64_t *offs; /* site file offsets */
	unsigned noffs;
	uint64_t *enoffs; /* legacy is-enabled sites */
	unsigned nenoffs;
	bool enabled;
};

/* One uprobe event: a site, with the strings some clause reads. */
struct tevent {
	struct tfile *file;
	uint64_t off;
	uint16_t strmask;
	uint32_t needs;
	char name[32];
	int tp; /* tracepoint id */
	/* raw record layout, from the event's format file */
	int arg_off[D_MAXARGS], arg_size[D_MAXARGS];
	bool arg_signed[D_MAXARGS];
	int str_off[D_MAXARGS];
	int comm_off;
	unsigned nargs;
	/* which probe it is in which process */
	struct {
		pid_t pid;
		struct tprobe *probe;
	} *users;
	size_t nusers;
};

struct tthread {
	pid_t tid;
	bool gone;
};

/* A CPU's ring buffer. */
struct tcpu {
	int cpu;
	int fd; /* the dummy event that owns the buffer */
	void *rb;
};

struct tperf {
	int fd;
	pid_t tid;
	struct tevent *ev;
};

struct tproc {
	pid_t pid;
	int pidfd;
	bool target; /* -p or -c */
	bool created; /* -c: killed when we exit early */
	bool held;    /* -c: still stopped at its entry point by us */
	bool exited;
	uint64_t start;
	pid_t ppid;
	uid_t uid;
	char *maps;   /* the last /proc/PID/maps read, to see changes */
	struct tfile **files;
	size_t nfiles;
	struct tthread *th;
	size_t nth;
	struct tperf *perf;
	size_t nperf;
	struct tevent **evs; /* enabled here */
	size_t nevs;
};

struct hit {
	bool ft; /* a struct ft_record of the module, else a perf sample */
	uint64_t time;
	uint32_t pid, tid, cpu;
	size_t rawoff; /* the raw record, in the arena */
	const uint8_t *raw;
	uint32_t rawlen;
};

static struct {
	const struct dt_trace_opts *o;
	struct d_prog *prog;
	FILE *out;
	char tfs[256];
	char group[64];
	unsigned nev;
	struct tfile **files;
	size_t nfiles;
	struct tproc **procs;
	size_t nprocs;
	struct tevent **evs;
	size_t nevs;
	struct tevent **by_tp; /* 65536 entries, by tracepoint ID */
	struct tprobe **probes;
	size_t nprobes;
	unsigned next_id, next_epid;
	struct dt_desc **descs; /* per clause */
	unsigned *ndescs;
	unsigned nclauses;
	struct d_probe begin, end;
	unsigned *begin_clauses, nbegin, *end_clauses, nend;
	unsigned *src_first; /* per source: its first clause; then the end */
	uint64_t drops;	   /* reported from PERF_RECORD_LOST */
	uint64_t received; /* samples read from the buffers */
	uint64_t fired;	   /* hits the closed perf events counted */
	uint64_t wall_offset;
	size_t rbsize;
	unsigned switchrate_ms;
	bool done;	   /* stop tracing: exit(), signal, targets gone */
	bool exit_called;  /* exit(): the remaining hits are not run */
	int status;
	struct hit *hits;
	size_t nhits, caphits;
	uint8_t *arena; /* the raw records of the hits read */
	size_t alen, acap;
	struct tcpu *cpus;
	size_t ncpus;
	bool perm_warned;
	bool enable_failed; /* a probe could not be enabled */
	int ft_fd;	    /* /dev/dtrace/fasttrap, or -1: uprobe events */
	struct tprobe **ftsites; /* by cookie */
	size_t nftsites;
	char tfs_err[PATH_MAX + 512]; /* why tracefs cannot be used, if so */
} T;

static void hit_push(const struct hit *h);
static size_t arena_put(const void *p, size_t n);

/* ------------------------------------------------------------------ */
/* Small helpers */

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	fflush(T.out);
	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fputs("dtrace: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void *xrealloc(void *p, size_t n, size_t sz)
{
	void *q = reallocarray(p, n ? n : 1, sz);

	if (!q) {
		fputs("dtrace: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		fputs("dtrace: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

#define PUSH(arr, n, v)                                                       \
	do {                                                                  \
		(arr) = xrealloc((arr), (n) + 1, sizeof(*(arr)));             \
		(arr)[(n)++] = (v);                                           \
	} while (0)

static char *read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xcalloc(1, cap + 1);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1, 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
				int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

/* ------------------------------------------------------------------ */
/* tracefs */

static int tracefs_find(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing",
					   "/sys/kernel/debug/tracing"};
	char p[PATH_MAX];

	for (unsigned i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/uprobe_events", dirs[i]);
		if (access(p, F_OK) == 0) {
			snprintf(T.tfs, sizeof(T.tfs), "%s", dirs[i]);
			return 0;
		}
	}
	/* not mounted: mount it where the kernel documents it */
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) == 0) {
		snprintf(p, sizeof(p), "%s/uprobe_events", dirs[0]);
		if (access(p, F_OK) == 0) {
			snprintf(T.tfs, sizeof(T.tfs), "%s", dirs[0]);
			return 0;
		}
	}
	return -1;
}

/* The kernel's reason for the last refused command, if it says one. */
static void tracefs_error_log(char *buf, size_t len)
{
	char p[PATH_MAX], *log, *last = NULL, *s;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/error_log", T.tfs);
	log = read_file(p, NULL);
	if (!log)
		return;
	for (s = log; (s = strstr(s, "trace_uprobe: error: ")); s++)
		last = s;
	if (last) {
		last += strlen("trace_uprobe: error: ");
		snprintf(buf, len, "%.*s", (int)strcspn(last, "\n"), last);
	}
	free(log);
}

static int uprobe_events_write(const char *line)
{
	char p[PATH_MAX];
	size_t len = strlen(line);
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/uprobe_events", T.tfs);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* Is the consumer that made group dtrace_PID_START still running? */
static bool group_alive(const char *group)
{
	unsigned long pid;
	unsigned long long start;
	uint64_t cur;
	pid_t p;

	if (sscanf(group, GROUP_PREFIX "%lu_%llu", &pid, &start) != 2)
		return true; /* not ours */
	p = (pid_t)pid;
	if (reg_proc_stat(p, &cur, NULL, 0) < 0)
		return false;
	return cur == start;
}

/* Delete the events of consumers that died (SIGKILL) and, at the end, ours. */
static void reap_groups(const char *only)
{
	char p[PATH_MAX], *ev, *line, *save = NULL;

	snprintf(p, sizeof(p), "%s/uprobe_events", T.tfs);
	ev = read_file(p, NULL);
	if (!ev)
		return;
	for (line = strtok_r(ev, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char grp[128], name[128], cmd[300];

		if (sscanf(line, "%*[pr]:%127[^/]/%127s", grp, name) != 2)
			continue;
		if (strncmp(grp, GROUP_PREFIX, strlen(GROUP_PREFIX)))
			continue;
		if (only ? strcmp(grp, only) : group_alive(grp))
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", grp, name);
		(void)uprobe_events_write(cmd);
	}
	free(ev);
}

/* ------------------------------------------------------------------ */
/* ELF files */

static bool vaddr_to_off(const struct tfile *f, uint64_t v, uint64_t *off)
{
	for (size_t i = 0; i < f->nph; i++) {
		const GElf_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_LOAD && v >= ph->p_vaddr &&
		    v - ph->p_vaddr < ph->p_filesz) {
			*off = ph->p_offset + (v - ph->p_vaddr);
			return true;
		}
	}
	return false;
}

static bool sym_lookup(const struct tfile *f, const char *name, size_t len,
		       uint64_t *v)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (strlen(f->symnames[i]) == len &&
		    !memcmp(f->symnames[i], name, len) &&
		    f->syms[i].st_shndx != SHN_UNDEF) {
			*v = f->syms[i].st_value;
			return true;
		}
	return false;
}

static void file_read_elf(struct tfile *f, const char *openpath)
{
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL, *notes = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr nsh = {0}, bsh = {0};
	bool have_base = false;
	size_t shstrndx;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open(openpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		if (elf)
			elf_end(elf);
		close(fd);
		return;
	}
	if (elf_getphdrnum(elf, &f->nph) == 0 && f->nph) {
		f->ph = xcalloc(f->nph, sizeof(*f->ph));
		for (size_t i = 0; i < f->nph; i++)
			if (!gelf_getphdr(elf, (int)i, &f->ph[i]))
				memset(&f->ph[i], 0, sizeof(f->ph[i]));
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh))
			continue;
		nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm)
			continue;
		if (sh.sh_type == SHT_NOTE && !strcmp(nm, STAPSDT_SECTION)) {
			notes = scn;
			nsh = sh;
		} else if (!strcmp(nm, STAPSDT_BASE_SECTION)) {
			bsh = sh;
			have_base = true;
		} else if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
		}
	}
	if (notes) {
		Elf_Data *d = elf_getdata(notes, NULL);

		if (d && d->d_buf && d->d_size) {
			struct stapsdt_note note;
			struct stapsdt_err serr;
			uint64_t cur = 0;
			int r;

			f->notesec = xcalloc(1, d->d_size + 1);
			memcpy(f->notesec, d->d_buf, d->d_size);
			while ((r = stapsdt_note_next(f->notesec, d->d_size, 0,
						      &cur, &note, &serr))) {
				struct tnote tn = {0};
				uint64_t pc = note.pc, sema = note.sema;

				if (r < 0)
					continue;
				if (have_base && note.base &&
				    bsh.sh_addr != note.base) {
					pc += bsh.sh_addr - note.base;
					if (sema)
						sema += bsh.sh_addr - note.base;
				}
				if (!vaddr_to_off(f, pc, &tn.off))
					continue;
				if (sema && !vaddr_to_off(f, sema, &tn.sema_off))
					tn.sema_off = 0;
				tn.args = note.args;
				PUSH(f->notes, f->nnotes, tn);
			}
		}
	}
	(void)nsh;
	if (!symtab)
		symtab = dynsym;
	if (symtab) {
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(symtab, NULL);

		if (gelf_getshdr(symtab, &sh) && d && sh.sh_entsize) {
			size_t n = sh.sh_size / sh.sh_entsize;

			for (size_t i = 0; i < n; i++) {
				GElf_Sym s;
				const char *nm;

				if (!gelf_getsym(d, (int)i, &s) ||
				    GELF_ST_TYPE(s.st_info) != STT_OBJECT)
					continue;
				nm = elf_strptr(elf, sh.sh_link, s.st_name);
				if (!nm || !*nm)
					continue;
				f->syms = xrealloc(f->syms, f->nsyms + 1,
						   sizeof(*f->syms));
				f->symnames = xrealloc(f->symnames,
						       f->nsyms + 1,
						       sizeof(*f->symnames));
				f->syms[f->nsyms] = s;
				f->symnames[f->nsyms++] = xstrdup(nm);
			}
		}
	}
	elf_end(elf);
	close(fd);
}

static const struct tnote *file_note_at(const struct tfile *f, uint64_t off)
{
	for (size_t i = 0; i < f->nnotes; i++)
		if (f->notes[i].off == off)
			return &f->notes[i];
	return NULL;
}

/* A path uprobe_events can take: no blanks or controls. */
static bool path_ok(const char *p)
{
	if (p[0] != '/')
		return false;
	for (; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '(' || *p == ')')
			return false;
	return true;
}

static struct tfile *file_get(pid_t pid, const char *range, const char *path)
{
	char mf[128];
	struct stat st, ps;
	struct tfile *f;
	struct dt_collect_opts co = {0};
	char msg[512];

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%s", (int)pid, range);
	if (stat(mf, &st) < 0 && stat(path, &st) < 0)
		return NULL;
	for (size_t i = 0; i < T.nfiles; i++)
		if (T.files[i]->dev == st.st_dev &&
		    T.files[i]->ino == st.st_ino)
			return T.files[i];
	f = xcalloc(1, sizeof(*f));
	f->fd = -1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->path = xstrdup(path);
	{
		/* a file deleted or replaced since it was mapped */
		size_t n = strlen(f->path), k = strlen(" (deleted)");

		if (n > k && !strcmp(f->path + n - k, " (deleted)"))
			f->path[n - k] = '\0';
	}
	PUSH(T.files, T.nfiles, f);
	if (!S_ISREG(st.st_mode)) {
		f->failed = true;
		return f;
	}
	if (path_ok(f->path) && stat(f->path, &ps) == 0 &&
	    ps.st_dev == st.st_dev && ps.st_ino == st.st_ino)
		f->upath = xstrdup(f->path);
	else
		f->upath = xstrdup(mf); /* deleted, replaced or oddly named */
	file_read_elf(f, f->upath);
	if (dt_object_probes(&f->pl, f->upath, &co, msg, sizeof(msg)) < 0 ||
	    !f->pl.n)
		f->failed = true;
	return f;
}

/* ------------------------------------------------------------------ */
/* Probes of processes and clause matching */

static bool probe_matches(const struct dt_desc *d, const char *provider,
			  const char *mod, const char *func, const char *name)
{
	struct dt_probe p = {0};

	snprintf(p.provider, sizeof(p.provider), "%s", provider);
	p.mod = mod;
	p.func = func;
	p.name = name;
	return dt_desc_match(d, &p);
}

static struct tprobe *probe_find(pid_t pid, const char *prov, const char *mod,
				 const char *func, const char *name)
{
	for (size_t i = 0; i < T.nprobes; i++) {
		struct tprobe *p = T.probes[i];

		if (p->pid == pid && !strcmp(p->prov, prov) &&
		    !strcmp(p->mod, mod) && !strcmp(p->func, func) &&
		    !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

/* Match a probe against every clause; count the descriptions' matches. */
static void probe_match_clauses(struct tprobe *p)
{
	for (unsigned c = 0; c < T.nclauses; c++) {
		bool hit = false;

		for (unsigned j = 0; j < T.ndescs[c]; j++)
			if (probe_matches(&T.descs[c][j], p->prov, p->mod,
					  p->func, p->name)) {
				T.descs[c][j].matched++;
				hit = true;
			}
		if (hit) {
			PUSH(p->clauses, p->nclauses, c);
			p->epids = xrealloc(p->epids, p->nclauses,
					    sizeof(*p->epids));
			p->epids[p->nclauses - 1] = ++T.next_epid;
			p->strmask |= d_clause_strargs(T.prog, c);
			p->needs |= d_clause_needs(T.prog, c);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Uprobe events */

static const char *kreg(int reg)
{
	static const char *const names[] = {
		[STAPSDT_REG_RAX] = "ax", [STAPSDT_REG_RDX] = "dx",
		[STAPSDT_REG_RCX] = "cx", [STAPSDT_REG_RBX] = "bx",
		[STAPSDT_REG_RSI] = "si", [STAPSDT_REG_RDI] = "di",
		[STAPSDT_REG_RBP] = "bp", [STAPSDT_REG_RSP] = "sp",
		[STAPSDT_REG_R8] = "r8",  [STAPSDT_REG_R9] = "r9",
		[STAPSDT_REG_R10] = "r10", [STAPSDT_REG_R11] = "r11",
		[STAPSDT_REG_R12] = "r12", [STAPSDT_REG_R13] = "r13",
		[STAPSDT_REG_R14] = "r14", [STAPSDT_REG_R15] = "r15",
		[STAPSDT_REG_RIP] = "ip",
	};

	if (reg < 0 || reg > STAPSDT_REG_RIP)
		return NULL;
	return names[reg];
}

/*
 * The fetch argument for one stapsdt spec: the location in loc (used
 * again for strings: the argument's value is their address) and its type.
 */
static bool spec_fetch(const struct tfile *f, const struct stapsdt_arg *a,
		       char *loc, size_t loclen, char *type, size_t typelen)
{
	unsigned size = a->size ? a->size : 8;
	const char *r;

	if (a->is_float || size > 8)
		return false;
	snprintf(type, typelen, "%c%u", a->is_signed ? 's' : 'u', size * 8);
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		r = kreg(a->reg);
		if (!r)
			return false;
		if (a->reg_hi8) {
			snprintf(loc, loclen, "%%%s", r);
			snprintf(type, typelen, "b8@8/64");
			return true;
		}
		snprintf(loc, loclen, "%%%s", r);
		return true;
	case STAPSDT_ARG_MEM:
		if (a->index != STAPSDT_REG_NONE)
			return false;
		if (a->sym) {
			uint64_t v, off;

			if (a->reg != STAPSDT_REG_RIP ||
			    !sym_lookup(f, a->sym, a->sym_len, &v) ||
			    !vaddr_to_off(f, v + (uint64_t)a->off, &off))
				return false;
			snprintf(loc, loclen, "@+0x%" PRIx64, off);
			return true;
		}
		r = kreg(a->reg);
		if (!r || a->reg == STAPSDT_REG_RIP)
			return false;
		snprintf(loc, loclen, "%c%" PRIu64 "(%%%s)",
			 a->off < 0 ? '-' : '+',
			 a->off < 0 ? (uint64_t)0 - (uint64_t)a->off
				    : (uint64_t)a->off,
			 r);
		return true;
	case STAPSDT_ARG_CONST:
		if (a->sym)
			return false;
		snprintf(loc, loclen, "\\%" PRId64, a->off);
		return true;
	}
	return false;
}

/* Field offsets of the event's records, from its format file. */
static int event_format(struct tevent *e)
{
	char p[PATH_MAX], *fmt, *line, *save = NULL;

	snprintf(p, sizeof(p), "%s/events/%s/%s/format", T.tfs, T.group,
		 e->name);
	fmt = read_file(p, NULL);
	if (!fmt)
		return -errno;
	for (unsigned i = 0; i < D_MAXARGS; i++)
		e->arg_off[i] = e->str_off[i] = -1;
	e->comm_off = -1;
	for (line = strtok_r(fmt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char decl[128];
		int off, size, sgn = 0;
		const char *fieldname;
		size_t dl;

		if (sscanf(line, " field:%127[^;]; offset:%d; size:%d; signed:%d",
			   decl, &off, &size, &sgn) < 3)
			continue;
		dl = strlen(decl);
		while (dl && (decl[dl - 1] == ' '))
			decl[--dl] = '\0';
		fieldname = strrchr(decl, ' ');
		fieldname = fieldname ? fieldname + 1 : decl;
		if (fieldname[0] == 'a' && isdigit((unsigned char)fieldname[1])) {
			unsigned i = (unsigned)atoi(fieldname + 1);

			if (i < D_MAXARGS) {
				e->arg_off[i] = off;
				e->arg_size[i] = size;
				e->arg_signed[i] = sgn != 0;
			}
		} else if (fieldname[0] == 's' &&
			   isdigit((unsigned char)fieldname[1])) {
			unsigned i = (unsigned)atoi(fieldname + 1);

			if (i < D_MAXARGS)
				e->str_off[i] = off;
		} else if (!strcmp(fieldname, "xcomm")) {
			e->comm_off = off;
		}
	}
	free(fmt);
	snprintf(p, sizeof(p), "%s/events/%s/%s/id", T.tfs, T.group, e->name);
	fmt = read_file(p, NULL);
	if (!fmt)
		return -errno;
	e->tp = atoi(fmt);
	free(fmt);
	return 0;
}

static int sysv_loc(unsigned i, char *loc, size_t len)
{
	static const char *const regs[] = {"di", "si", "dx", "cx", "r8", "r9"};

	if (i < 6)
		return snprintf(loc, len, "%%%s", regs[i]);
	return snprintf(loc, len, "+%u(%%sp)", (i - 6) * 8);
}

/*
 * The uprobe event for a site, fetching what the clauses need: the
 * arguments they read (needs), the strings at the arguments of strmask,
 * the thread's name for execname.  Less to copy is less cost per hit.
 */
static struct tevent *event_get(struct tfile *f, uint64_t off,
				uint16_t strmask, uint32_t needs,
				unsigned nargs)
{
	const struct tnote *note = file_note_at(f, off);
	char line[4096], loc[D_MAXARGS][64];
	bool have[D_MAXARGS] = {false};
	struct tevent *e;
	size_t n;
	int err;

	for (size_t i = 0; i < T.nevs; i++) {
		e = T.evs[i];
		if (e->file == f && e->off == off && e->strmask == strmask &&
		    e->needs == needs)
			return e;
	}
	if (T.tfs_err[0]) {
		if (!T.enable_failed)
			say("%s", T.tfs_err);
		T.enable_failed = true;
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->file = f;
	e->off = off;
	e->strmask = strmask;
	e->needs = needs;
	snprintf(e->name, sizeof(e->name), "e%u", T.nev++);
	n = (size_t)snprintf(line, sizeof(line), "p:%s/%s %s:0x%" PRIx64,
			     T.group, e->name, f->upath, off);
	if (note && note->sema_off)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "(0x%" PRIx64 ")", note->sema_off);
	if (note && note->args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;
		unsigned i = 0;

		while (i < D_MAXARGS &&
		       stapsdt_arg_next(note->args, &cur, &a, &serr) == 1) {
			char type[32];

			if (spec_fetch(f, &a, loc[i], sizeof(loc[i]), type,
				       sizeof(type))) {
				have[i] = true;
				if (needs & (1u << i))
					n += (size_t)snprintf(
						line + n, sizeof(line) - n,
						" a%u=%s:%s", i, loc[i], type);
			} else if (needs & (1u << i)) {
				n += (size_t)snprintf(line + n, sizeof(line) - n,
						      " a%u=\\0:u64", i);
			}
			i++;
		}
		e->nargs = i;
	} else {
		if (nargs > D_MAXARGS)
			nargs = D_MAXARGS;
		for (unsigned i = 0; i < nargs; i++) {
			sysv_loc(i, loc[i], sizeof(loc[i]));
			have[i] = true;
			if (needs & (1u << i))
				n += (size_t)snprintf(line + n, sizeof(line) - n,
						      " a%u=%s:x64", i, loc[i]);
		}
		e->nargs = nargs;
	}
	for (unsigned i = 0; i < e->nargs; i++)
		if ((strmask & (1u << i)) && have[i] && loc[i][0] != '\\')
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " s%u=+0(%s):string", i, loc[i]);
	if (needs & D_NEED_EXECNAME)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " xcomm=$comm");
	n += (size_t)snprintf(line + n, sizeof(line) - n, "\n");
	if (n >= sizeof(line)) {
		say("%s: site 0x%" PRIx64 ": uprobe definition too long",
		    f->path, off);
		T.enable_failed = true;
		free(e);
		return NULL;
	}
	err = uprobe_events_write(line);
	if (err) {
		char why[256];

		tracefs_error_log(why, sizeof(why));
		say("cannot create a uprobe on %s at offset 0x%" PRIx64 ": %s%s%s",
		    f->path, off, strerror(-err), why[0] ? ": " : "", why);
		T.enable_failed = true;
		free(e);
		return NULL;
	}
	err = event_format(e);
	if (err) {
		say("cannot read uprobe event %s/%s: %s", T.group, e->name,
		    strerror(-err));
		T.enable_failed = true;
		free(e);
		return NULL;
	}
	if (e->tp <= 0 || e->tp > 0xffff) {
		say("uprobe event %s/%s has ID %d, outside what records carry",
		    T.group, e->name, e->tp);
		T.enable_failed = true;
		free(e);
		return NULL;
	}
	if (!T.by_tp)
		T.by_tp = xcalloc(0x10000, sizeof(*T.by_tp));
	T.by_tp[e->tp] = e;
	PUSH(T.evs, T.nevs, e);
	return e;
}

/* ------------------------------------------------------------------ */
/* Perf events */

/*
 * The ring buffers: one per CPU, as in DTrace, owned by a dummy software
 * event on that CPU.  Every uprobe perf event is opened once per CPU for
 * each thread, with inherit = 1 so that threads created later are traced
 * too, and writes to its CPU's buffer (PERF_EVENT_IOC_SET_OUTPUT), as do
 * the copies the new threads inherit.  A buffer is only ever written from
 * its own CPU, which is what the kernel's ring buffer requires (it is why
 * the kernel refuses to map one buffer for a task and its inherited
 * events: their writers would run on several CPUs at once).
 */
static int cpus_open(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int err = -ENODEV;

	if (T.ncpus)
		return 0;
	for (long c = 0; c < n && c < 4096; c++) {
		struct perf_event_attr a = {0};
		struct tcpu tc = {.cpu = (int)c};
		int fd;

		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_SW_DUMMY;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(T.rbsize / 2);
		fd = (int)sys_perf_event_open(&a, -1, (int)c, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno != ENODEV && errno != ENOENT)
				err = -errno; /* not an offline CPU */
			continue;
		}
		tc.rb = mmap(NULL, T.rbsize + (size_t)getpagesize(),
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (tc.rb == MAP_FAILED) {
			err = -errno;
			close(fd);
			continue;
		}
		tc.fd = fd;
		PUSH(T.cpus, T.ncpus, tc);
	}
	return T.ncpus ? 0 : err;
}

static int thread_open(struct tproc *pr, struct tthread *th, struct tevent *e)
{
	int err = cpus_open();

	if (err)
		return err;
	for (size_t c = 0; c < T.ncpus; c++) {
		struct perf_event_attr a = {0};
		struct tperf tp;
		int fd;

		a.type = PERF_TYPE_TRACEPOINT;
		a.size = sizeof(a);
		a.config = (uint64_t)e->tp;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		a.inherit = 1;
		a.sample_id_all = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		fd = (int)sys_perf_event_open(&a, th->tid, T.cpus[c].cpu, -1,
					      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, T.cpus[c].fd) < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		tp.fd = fd;
		tp.tid = th->tid;
		tp.ev = e;
		PUSH(pr->perf, pr->nperf, tp);
	}
	return 0;
}

static struct tthread *thread_add(struct tproc *pr, pid_t tid)
{
	struct tthread th = {.tid = tid};

	for (size_t i = 0; i < pr->nth; i++)
		if (pr->th[i].tid == tid)
			return NULL;
	PUSH(pr->th, pr->nth, th);
	return &pr->th[pr->nth - 1];
}

static void report_open_error(struct tproc *pr, int err)
{
	T.enable_failed = true;
	if (T.perm_warned)
		return;
	T.perm_warned = true;
	say("cannot enable probes in pid %d: perf_event_open: %s%s",
	    (int)pr->pid, strerror(-err),
	    err == -EACCES || err == -EPERM ? " (tracing needs root)" : "");
}

/* Turn an event on in every thread of a process (known now). */
static int proc_enable_event(struct tproc *pr, struct tevent *e)
{
	char p[64];
	DIR *d;
	struct dirent *de;
	int opened = 0;

	for (size_t i = 0; i < pr->nevs; i++)
		if (pr->evs[i] == e)
			return 0;
	PUSH(pr->evs, pr->nevs, e);
	snprintf(p, sizeof(p), "/proc/%d/task", (int)pr->pid);
	d = opendir(p);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid > 0)
			(void)thread_add(pr, tid);
	}
	closedir(d);
	for (size_t i = 0; i < pr->nth; i++) {
		int err;

		if (pr->th[i].gone)
			continue;
		err = thread_open(pr, &pr->th[i], e);
		if (err == -ESRCH) {
			pr->th[i].gone = true;
			continue;
		}
		if (err) {
			report_open_error(pr, err);
			return err;
		}
		opened++;
	}
	return opened ? 0 : -ESRCH;
}

/* ------------------------------------------------------------------ */
/* Processes */

/* The live process pid (an exited one's pid may be someone else's now). */
static struct tproc *proc_find(pid_t pid)
{
	for (size_t i = 0; i < T.nprocs; i++)
		if (T.procs[i]->pid == pid && !T.procs[i]->exited)
			return T.procs[i];
	return NULL;
}

static void proc_status(struct tproc *pr)
{
	char p[64], *st, *s;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pr->pid);
	st = read_file(p, NULL);
	if (!st)
		return;
	if ((s = strstr(st, "\nPPid:")))
		pr->ppid = (pid_t)atoi(s + 6);
	if ((s = strstr(st, "\nUid:")))
		pr->uid = (uid_t)strtoul(s + 5, NULL, 10);
	free(st);
}

static struct tproc *proc_add(pid_t pid, bool target)
{
	struct tproc *pr = proc_find(pid);
	uint64_t start;

	if (pr) {
		pr->target |= target;
		return pr;
	}
	if (reg_proc_stat(pid, &start, NULL, 0) < 0)
		return NULL;
	pr = xcalloc(1, sizeof(*pr));
	pr->pid = pid;
	pr->target = target;
	pr->start = start;
	pr->pidfd = sys_pidfd_open(pid);
	if (pr->pidfd < 0) {
		free(pr);
		return NULL;
	}
	proc_status(pr);
	PUSH(T.procs, T.nprocs, pr);
	return pr;
}

/* Make the probe records of one file mapped by pr. */
static void proc_file_probes(struct tproc *pr, struct tfile *f,
			     const char *modname)
{
	for (size_t i = 0; i < f->pl.n; i++) {
		const struct dt_probe *dp = &f->pl.v[i];
		char prov[DT_PROVIDER_MAX];
		struct tprobe *p;

		if (!dp->addr_known || !dp->nsites)
			continue;
		snprintf(prov, sizeof(prov), "%s%d", dp->prov, (int)pr->pid);
		p = probe_find(pr->pid, prov, modname, dp->func, dp->name);
		if (p) {
			if (p->file != f)
				continue; /* same names in two files: first wins */
		} else {
			p = xcalloc(1, sizeof(*p));
			p->id = ++T.next_id;
			p->pid = pr->pid;
			p->prov = xstrdup(prov);
			p->mod = xstrdup(modname);
			p->func = xstrdup(dp->func);
			p->name = xstrdup(dp->name);
			p->file = f;
			p->nargs = dp->xargc;
			if (p->nargs) {
				p->argtypes = xcalloc(p->nargs, sizeof(char *));
				for (unsigned a = 0; a < p->nargs; a++)
					p->argtypes[a] = xstrdup(
						dp->xargv && dp->xargv[a]
							? dp->xargv[a]
							: "int64_t");
			}
			p->dp.id = p->id;
			p->dp.prov = p->prov;
			p->dp.mod = p->mod;
			p->dp.func = p->func;
			p->dp.name = p->name;
			p->dp.nargs = p->nargs;
			p->dp.argtypes = (const char *const *)p->argtypes;
			PUSH(T.probes, T.nprobes, p);
			probe_match_clauses(p);
		}
		for (unsigned s = 0; s < dp->nsites; s++) {
			uint64_t off;
			bool dup = false;

			if (!vaddr_to_off(f, dp->sites[s], &off))
				continue;
			for (unsigned k = 0; k < p->noffs; k++)
				dup |= p->offs[k] == off;
			if (!dup)
				PUSH(p->offs, p->noffs, off);
		}
		for (unsigned s = 0; s < dp->nensites; s++) {
			uint64_t off;
			bool dup = false;

			if (!vaddr_to_off(f, dp->ensites[s], &off))
				continue;
			for (unsigned k = 0; k < p->nenoffs; k++)
				dup |= p->enoffs[k] == off;
			if (!dup)
				PUSH(p->enoffs, p->nenoffs, off);
		}
	}
}

/*
 * Hold a running process still while its probes are enabled, as DTrace
 * grabs it: a uprobe's perf events are opened one (thread, CPU) at a
 * time, and its semaphore goes up with the first, so a thread running
 * meanwhile could take a guarded probe that is not recorded yet.  Every
 * thread is seized and interrupted (ptrace), then let go where it was;
 * a signal that arrived meanwhile is delivered on release.  A process
 * that cannot be seized (a debugger has it) is enabled running.
 */
struct frozen {
	pid_t tid;
	int sig;
};

static size_t proc_freeze(struct tproc *pr, struct frozen **fz)
{
	size_t n = 0;
	bool more = true;

	for (int round = 0; more && round < 100; round++) {
		char p[64];
		DIR *d;
		struct dirent *de;

		more = false;
		snprintf(p, sizeof(p), "/proc/%d/task", (int)pr->pid);
		d = opendir(p);
		if (!d)
			break;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			struct frozen f = {tid, 0};
			bool seen = false;
			int st;

			if (tid <= 0)
				continue;
			for (size_t i = 0; i < n; i++)
				seen |= (*fz)[i].tid == tid;
			if (seen || ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
				continue;
			more = true;
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0 &&
			    waitpid(tid, &st, __WALL) == tid && WIFSTOPPED(st) &&
			    (st >> 16) != PTRACE_EVENT_STOP)
				f.sig = WSTOPSIG(st); /* a signal's stop */
			*fz = xrealloc(*fz, n + 1, sizeof(**fz));
			(*fz)[n++] = f;
		}
		closedir(d);
	}
	return n;
}

static void proc_thaw(struct frozen *fz, size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void)ptrace(PTRACE_DETACH, fz[i].tid, NULL,
			     (void *)(long)fz[i].sig);
	free(fz);
}

/* ------------------------------------------------------------------ */
/* The kernel module's fasttrap (sdk/fasttrap_abi.h) */

/*
 * Open /dev/dtrace/fasttrap when the module is loaded, unless
 * DTRACE_FASTTRAP=0 asks for the uprobe-events path.  -1 if not.
 */
static int ft_open(void)
{
	const char *e = getenv("DTRACE_FASTTRAP");
	int fd;

	if (e && !strcmp(e, "0"))
		return -1;
	fd = open(FASTTRAP_DEVNAME, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno != ENOENT && errno != ENXIO && errno != ENODEV)
		say("cannot open %s: %s; using uprobe events", FASTTRAP_DEVNAME,
		    strerror(errno));
	return fd;
}

/* One stapsdt spec as the module fetches it; false when it cannot. */
static bool ft_arg_of(const struct stapsdt_arg *a, struct ft_arg *fa)
{
	unsigned size = a->size ? a->size : 8;

	memset(fa, 0, sizeof(*fa));
	if (a->is_float || size > 8 || a->reg_hi8)
		return false;
	fa->size = (uint8_t)size;
	fa->is_signed = a->is_signed;
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		if (a->reg < 0 || a->reg > STAPSDT_REG_RIP)
			return false;
		fa->kind = FT_LOC_REG;
		fa->reg = (uint8_t)a->reg;
		return true;
	case STAPSDT_ARG_MEM:
		if (a->index != STAPSDT_REG_NONE || a->sym || a->reg < 0 ||
		    a->reg >= STAPSDT_REG_RIP)
			return false;
		fa->kind = FT_LOC_MEM;
		fa->reg = (uint8_t)a->reg;
		fa->off = a->off;
		return true;
	case STAPSDT_ARG_CONST:
		if (a->sym)
			return false;
		fa->kind = FT_LOC_CONST;
		fa->off = a->off;
		return true;
	}
	return false;
}

/* Arm one site of p in pr through the module. */
static int ft_enable_site(struct tproc *pr, struct tprobe *p, uint64_t off,
			  bool isenabled)
{
	static const uint8_t sysv[] = {STAPSDT_REG_RDI, STAPSDT_REG_RSI,
				       STAPSDT_REG_RDX, STAPSDT_REG_RCX,
				       STAPSDT_REG_R8,	STAPSDT_REG_R9};
	struct tfile *f = p->file;
	const struct tnote *note = file_note_at(f, off);
	struct ft_enable en;
	unsigned n = 0;

	if (f->fd < 0) {
		f->fd = open(f->upath, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return -errno;
	}
	memset(&en, 0, sizeof(en));
	en.pid = pr->pid;
	en.fd = f->fd;
	en.offset = off;
	en.refctr = note ? note->sema_off : 0;
	en.cookie = T.nftsites;
	if (isenabled) {
		en.flags = FT_ISENABLED;
	} else if (note && note->args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;

		while (n < FT_MAXARGS &&
		       stapsdt_arg_next(note->args, &cur, &a, &serr) == 1) {
			if (!(p->needs & (1u << n)) ||
			    !ft_arg_of(&a, &en.args[n]))
				memset(&en.args[n], 0, sizeof(en.args[n]));
			n++;
		}
	} else {
		for (; n < p->nargs && n < FT_MAXARGS; n++) {
			struct ft_arg *fa = &en.args[n];

			if (!(p->needs & (1u << n)))
				continue;
			fa->size = 8;
			if (n < 6) {
				fa->kind = FT_LOC_REG;
				fa->reg = sysv[n];
			} else {
				fa->kind = FT_LOC_MEM;
				fa->reg = STAPSDT_REG_RSP;
				fa->off = (int64_t)(n - 6) * 8;
			}
		}
	}
	en.nargs = (uint16_t)n;
	en.strmask = (uint16_t)(p->strmask & ((1u << n) - 1));
	if (ioctl(T.ft_fd, FASTTRAPIOC_ENABLE, &en) < 0)
		return -errno;
	PUSH(T.ftsites, T.nftsites, p);
	return 0;
}

/* Enable p's sites in pr through the module; false and said on error. */
static bool ft_enable_probe(struct tproc *pr, struct tprobe *p)
{
	for (unsigned k = 0; k < p->noffs + p->nenoffs; k++) {
		bool en = k >= p->noffs;
		uint64_t off = en ? p->enoffs[k - p->noffs] : p->offs[k];
		int err = ft_enable_site(pr, p, off, en);

		if (err) {
			say("cannot enable %s:%s:%s:%s in pid %d at %s offset "
			    "0x%" PRIx64 ": %s",
			    p->prov, p->mod, p->func, p->name, (int)pr->pid,
			    p->file->path, off, strerror(-err));
			T.enable_failed = true;
			return false;
		}
	}
	return true;
}

/* Take every record the module has for us, into the arena. */
static void ft_drain(void)
{
	static uint8_t buf[1 << 18];

	for (;;) {
		ssize_t n = read(T.ft_fd, buf, sizeof(buf));
		size_t pos = 0;

		if (n <= 0)
			break;
		while (pos + sizeof(struct ft_record) <= (size_t)n) {
			struct ft_record r;
			struct hit h = {0};

			memcpy(&r, buf + pos, sizeof(r));
			if (r.size < sizeof(r) || r.size > (size_t)n - pos)
				break; /* cannot happen: whole records only */
			T.received++;
			h.ft = true;
			h.time = r.time;
			h.pid = (uint32_t)r.pid;
			h.tid = (uint32_t)r.tid;
			h.cpu = r.cpu;
			h.rawoff = arena_put(buf + pos, r.size);
			h.rawlen = r.size;
			hit_push(&h);
			pos += r.size;
		}
	}
}

/* One record of the module: its probe's clauses. */
static void run_clauses(const struct d_probe *dp, const unsigned *clauses,
			const unsigned *epids, unsigned n, struct d_fire *f);
static int copyin(void *ctx, pid_t pid, uint64_t addr, void *buf, size_t len);

static void ft_hit(const struct hit *h)
{
	struct ft_record r;
	struct tprobe *p;
	struct tproc *pr;
	struct d_fire f = {0};
	char comm[sizeof(r.comm) + 1];
	size_t spos = sizeof(r);

	memcpy(&r, h->raw, sizeof(r));
	if (r.cookie >= T.nftsites)
		return;
	p = T.ftsites[r.cookie];
	if (p->pid != (pid_t)r.pid)
		return;
	pr = proc_find(p->pid);
	memcpy(comm, r.comm, sizeof(r.comm));
	comm[sizeof(r.comm)] = '\0';
	f.cpu = (int)r.cpu;
	f.pid = r.pid;
	f.tid = r.tid;
	f.ppid = pr ? pr->ppid : 0;
	f.uid = pr ? pr->uid : 0;
	f.execname = comm;
	f.timestamp = r.time;
	f.walltimestamp = r.time + T.wall_offset;
	f.vtimestamp = r.time;
	for (unsigned i = 0; i < FT_MAXARGS && i < D_MAXARGS; i++) {
		f.arg[i] = r.args[i];
		if (r.strlen[i] && spos + r.strlen[i] <= h->rawlen) {
			f.str[i] = (const char *)h->raw + spos;
			f.strlen[i] = strnlen(f.str[i], r.strlen[i]);
			spos += r.strlen[i];
		}
	}
	f.copyin = copyin;
	run_clauses(&p->dp, p->clauses, p->epids, p->nclauses, &f);
}

/* Enable every matched probe of pr not yet enabled. */
static void proc_enable(struct tproc *pr)
{
	struct frozen *fz = NULL;
	size_t nfz = 0;
	bool any = false;

	for (size_t i = 0; i < T.nprobes && !any; i++) {
		struct tprobe *p = T.probes[i];

		any = p->pid == pr->pid && !p->enabled && p->nclauses;
	}
	if (!any)
		return;
	if (T.ft_fd >= 0) {
		/* one call arms a site in every thread: nothing to hold */
		for (size_t i = 0; i < T.nprobes; i++) {
			struct tprobe *p = T.probes[i];

			if (p->pid != pr->pid || p->enabled || !p->nclauses)
				continue;
			p->enabled = true;
			(void)ft_enable_probe(pr, p);
		}
		return;
	}
	if (!pr->held)
		nfz = proc_freeze(pr, &fz);
	for (size_t i = 0; i < T.nprobes; i++) {
		struct tprobe *p = T.probes[i];
		unsigned nargs;

		if (p->pid != pr->pid || p->enabled || !p->nclauses)
			continue;
		p->enabled = true;
		nargs = p->nargs;
		for (unsigned s = 0; s < p->noffs; s++) {
			struct tevent *e = event_get(p->file, p->offs[s],
						     p->strmask, p->needs,
						     nargs);
			bool have = false;

			if (!e)
				continue;
			for (size_t u = 0; u < e->nusers; u++)
				have |= e->users[u].pid == pr->pid;
			if (!have) {
				e->users = xrealloc(e->users, e->nusers + 1,
						    sizeof(*e->users));
				e->users[e->nusers].pid = pr->pid;
				e->users[e->nusers++].probe = p;
			}
			(void)proc_enable_event(pr, e);
		}
	}
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
}

/* The module name: what the helper registered, else the file's name. */
static const char *module_name(const struct reg_proc *rp, const struct tfile *f)
{
	const char *slash;

	if (rp)
		for (size_t i = 0; i < rp->nent; i++)
			if (rp->ent[i].dev == (uint64_t)f->dev &&
			    rp->ent[i].ino == (uint64_t)f->ino)
				return rp->ent[i].mod;
	slash = strrchr(f->path, '/');
	return slash ? slash + 1 : f->path;
}

/*
 * Read pr's mappings; for each file not seen in it before, make its
 * probes and enable those that match.  Returns true if the maps changed.
 */
static bool proc_refresh(struct tproc *pr, const struct reg_proc *rp)
{
	char p[64], *maps, *line, *save = NULL;

	if (pr->exited)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pr->pid);
	maps = read_file(p, NULL);
	if (!maps)
		return false;
	if (pr->maps && !strcmp(pr->maps, maps)) {
		free(maps);
		return false;
	}
	free(pr->maps);
	pr->maps = xstrdup(maps);
	for (line = strtok_r(maps, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char range[64], perms[8], *path;
		unsigned long long pgoff, ino;
		int pos = 0;
		struct tfile *f;
		bool seen = false;

		if (sscanf(line, "%63s %7s %llx %*s %llu %n", range, perms,
			   &pgoff, &ino, &pos) < 4 ||
		    !pos || perms[2] != 'x' || !ino)
			continue;
		path = line + pos;
		if (path[0] != '/')
			continue;
		f = file_get(pr->pid, range, path);
		if (!f || f->failed)
			continue;
		for (size_t i = 0; i < pr->nfiles; i++)
			seen |= pr->files[i] == f;
		if (seen)
			continue;
		PUSH(pr->files, pr->nfiles, f);
		proc_file_probes(pr, f, module_name(rp, f));
	}
	free(maps);
	proc_enable(pr);
	return true;
}

/* ------------------------------------------------------------------ */
/* -c: start a command stopped at its entry point */

static char **split_command(const char *cmd)
{
	char **argv = NULL;
	size_t n = 0;
	const char *s = cmd;

	for (;;) {
		char *w, *o;
		char q = 0;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		w = o = xcalloc(1, strlen(s) + 1);
		while (*s && (q || !isspace((unsigned char)*s))) {
			if (q && *s == q) {
				q = 0;
				s++;
			} else if (!q && (*s == '\'' || *s == '"')) {
				q = *s++;
			} else if (*s == '\\' && s[1] && q != '\'') {
				s++;
				*o++ = *s++;
			} else {
				*o++ = *s++;
			}
		}
		PUSH(argv, n, w);
	}
	PUSH(argv, n, NULL);
	return argv;
}

static uint64_t auxv_entry(pid_t pid)
{
	char p[64];
	size_t len;
	uint64_t *v, entry = 0;

	snprintf(p, sizeof(p), "/proc/%d/auxv", (int)pid);
	v = (uint64_t *)(void *)read_file(p, &len);
	if (!v)
		return 0;
	for (size_t i = 0; i + 1 < len / 8; i += 2)
		if (v[i] == AT_ENTRY)
			entry = v[i + 1];
	free(v);
	return entry;
}

/*
 * Fork and exec cmd under ptrace, run it to its entry point and leave it
 * stopped there.  Returns the pid, or -1 with the reason said.
 */
static pid_t command_start(const char *cmd)
{
	char **argv = split_command(cmd);
	int pfd[2], st, err = 0;
	pid_t pid;
	uint64_t entry;
	long orig;
	struct user_regs_struct regs;
	sigset_t none;

	if (!argv[0]) {
		say("-c needs a command");
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		say("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			err = errno;
		} else {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
		if (read(pfd[0], &err, sizeof(err)) == (ssize_t)sizeof(err))
			say("failed to execute %s: %s", cmd, strerror(err));
		else
			say("failed to execute %s", cmd);
		close(pfd[0]);
		if (!WIFEXITED(st) && !WIFSIGNALED(st))
			kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	close(pfd[0]);
	(void)ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	entry = auxv_entry(pid);
	if (!entry)
		return pid; /* stopped after exec: good enough */
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno)
		return pid;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
		   (void *)((orig & ~0xffL) | 0xcc)) < 0)
		return pid;
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return pid;
	for (;;) {
		if (waitpid(pid, &st, 0) < 0)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			say("%s exited before reaching its entry point", cmd);
			return -1;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP)
			break;
		(void)ptrace(PTRACE_CONT, pid, NULL,
			     (void *)(long)WSTOPSIG(st));
	}
	(void)ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)orig);
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) == 0) {
		regs.rip = entry;
		(void)ptrace(PTRACE_SETREGS, pid, NULL, &regs);
	}
	return pid;
}

/* ------------------------------------------------------------------ */
/* Reading the buffers */

static int copyin(void *ctx, pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n;

	(void)ctx;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < len)
		memset((char *)buf + n, 0, len - (size_t)n);
	return n > 0 ? 0 : -EFAULT;
}

static void hit_push(const struct hit *h)
{
	if (T.nhits == T.caphits) {
		T.caphits = T.caphits ? 2 * T.caphits : 1024;
		T.hits = xrealloc(T.hits, T.caphits, sizeof(*T.hits));
	}
	T.hits[T.nhits++] = *h;
}

/* Copy n bytes into the arena the hits of one read point into. */
static size_t arena_put(const void *p, size_t n)
{
	size_t off = T.alen;

	if (T.alen + n > T.acap) {
		T.acap = T.acap ? T.acap : 1 << 16;
		while (T.alen + n > T.acap)
			T.acap *= 2;
		T.arena = xrealloc(T.arena, T.acap, 1);
	}
	memcpy(T.arena + off, p, n);
	T.alen += n;
	return off;
}

/* Copy len bytes at ring offset pos (which may wrap) to dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	if (pos + len <= size) {
		memcpy(dst, data + pos, len);
	} else {
		size_t a = (size_t)(size - pos);

		memcpy(dst, data + pos, a);
		memcpy((uint8_t *)dst + a, data, len - a);
	}
}

/*
 * Take every record out of one ring buffer: samples are copied to the
 * arena (the buffer space is given back at once), lost-record counts
 * are reported.
 */
static void rb_drain(struct tcpu *tc)
{
	static uint8_t rec[1 << 16]; /* a record's size is 16 bits */
	struct perf_event_mmap_page *mp = tc->rb;
	const uint8_t *data = (const uint8_t *)tc->rb + getpagesize();
	uint64_t size = T.rbsize, head, tail;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header hdr;
		uint64_t pos = tail % size;

		ring_copy(data, size, pos, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break; /* cannot happen: the kernel writes whole records */
		ring_copy(data, size, pos, rec, hdr.size);
		if (hdr.type == PERF_RECORD_SAMPLE) {
			/* TID, TIME, CPU (+ reserved), RAW size and bytes */
			const uint8_t *q = rec + sizeof(hdr);
			struct hit h = {0};
			uint32_t raw;

			T.received++;
			memcpy(&h.pid, q, 4);
			memcpy(&h.tid, q + 4, 4);
			memcpy(&h.time, q + 8, 8);
			memcpy(&h.cpu, q + 16, 4);
			memcpy(&raw, q + 24, 4);
			if (28 + (size_t)raw <= hdr.size - sizeof(hdr)) {
				h.rawoff = arena_put(q + 28, raw);
				h.rawlen = raw;
				hit_push(&h);
			}
		} else if (hdr.type == PERF_RECORD_LOST) {
			uint64_t lost;
			uint32_t cpu = (uint32_t)tc->cpu;

			memcpy(&lost, rec + sizeof(hdr) + 8, 8);
			T.drops += lost;
			say("%" PRIu64 " drops on CPU %u", lost, cpu);
		}
		tail += hdr.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/* A record's event, by its type (the tracepoint ID, 16 bits). */
static struct tevent *event_by_tp(uint16_t tp)
{
	return T.by_tp ? T.by_tp[tp] : NULL;
}

static uint64_t field_u(const struct hit *h, int off, int size, bool sgn)
{
	uint64_t v = 0;

	if (off < 0 || (uint32_t)(off + size) > h->rawlen)
		return 0;
	switch (size) {
	case 1: {
		uint8_t x;

		memcpy(&x, h->raw + off, 1);
		v = sgn ? (uint64_t)(int64_t)(int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, h->raw + off, 2);
		v = sgn ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, h->raw + off, 4);
		v = sgn ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, h->raw + off, 8);
		break;
	}
	return v;
}

/* A __data_loc string: its bytes (NUL excluded), or NULL. */
static const char *field_str(const struct hit *h, int off, size_t *len)
{
	uint32_t loc, o, l;

	if (off < 0 || (uint32_t)off + 4 > h->rawlen)
		return NULL;
	memcpy(&loc, h->raw + off, 4);
	o = loc & 0xffff;
	l = loc >> 16;
	if (!l || o + l > h->rawlen)
		return NULL;
	*len = strnlen((const char *)h->raw + o, l);
	return (const char *)h->raw + o;
}

static void run_clauses(const struct d_probe *dp, const unsigned *clauses,
			const unsigned *epids, unsigned n, struct d_fire *f)
{
	for (unsigned i = 0; i < n && !T.exit_called; i++) {
		int r;

		f->epid = epids ? epids[i] : clauses[i] + 1;
		f->probe = dp;
		r = d_run(T.prog, clauses[i], f, T.out, stderr);
		if (r & D_RUN_EXIT) {
			T.done = T.exit_called = true;
			T.status = d_exit_status(T.prog);
		}
	}
}

static void hit_process(const struct hit *h)
{
	uint16_t type;
	struct tevent *e;
	struct tprobe *p = NULL;
	struct tproc *pr;
	struct d_fire f = {0};
	char comm[32] = "";
	size_t cl = 0;
	const char *cs;

	if (h->ft) {
		ft_hit(h);
		return;
	}
	if (h->rawlen < 8)
		return;
	memcpy(&type, h->raw, 2);
	e = event_by_tp(type);
	if (!e)
		return;
	for (size_t i = 0; i < e->nusers; i++)
		if (e->users[i].pid == (pid_t)h->pid)
			p = e->users[i].probe;
	if (!p)
		return; /* a child that inherited the event: not traced */
	pr = proc_find(p->pid);
	f.cpu = (int)h->cpu;
	f.pid = (pid_t)h->pid;
	f.tid = (pid_t)h->tid;
	f.ppid = pr ? pr->ppid : 0;
	f.uid = pr ? pr->uid : 0;
	cs = field_str(h, e->comm_off, &cl);
	if (cs)
		snprintf(comm, sizeof(comm), "%.*s", (int)cl, cs);
	f.execname = comm;
	f.timestamp = h->time;
	f.walltimestamp = h->time + T.wall_offset;
	f.vtimestamp = h->time;
	for (unsigned i = 0; i < e->nargs && i < D_MAXARGS; i++) {
		f.arg[i] = field_u(h, e->arg_off[i], e->arg_size[i],
				   e->arg_signed[i]);
		if (e->str_off[i] >= 0)
			f.str[i] = field_str(h, e->str_off[i], &f.strlen[i]);
	}
	f.copyin = copyin;
	run_clauses(&p->dp, p->clauses, p->epids, p->nclauses, &f);
}

static void read_buffers(void)
{
	for (size_t i = 0; i < T.ncpus; i++)
		rb_drain(&T.cpus[i]);
	if (T.ft_fd >= 0)
		ft_drain();
	for (size_t i = 0; i < T.nhits; i++)
		T.hits[i].raw = T.arena + T.hits[i].rawoff;
	if (T.nhits > 1)
		qsort(T.hits, T.nhits, sizeof(*T.hits), hit_cmp);
	for (size_t i = 0; i < T.nhits && !T.exit_called; i++)
		hit_process(&T.hits[i]);
	T.nhits = 0;
	T.alen = 0;
	fflush(T.out);
}

/* ------------------------------------------------------------------ */
/* Teardown */

static void proc_disable(struct tproc *pr)
{
	for (size_t i = 0; i < pr->nperf; i++)
		(void)ioctl(pr->perf[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Close pr's events.  Their counts (which include the threads that
 * inherited them) say how many hits there were: a hit the kernel could
 * not store after the last PERF_RECORD_LOST is counted there too, so the
 * drops reported at the end are exact.  The buffers must have been read.
 */
static void proc_close(struct tproc *pr)
{
	for (size_t i = 0; i < pr->nperf; i++) {
		uint64_t n;

		if (pr->perf[i].fd < 0)
			continue;
		if (read(pr->perf[i].fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
			T.fired += n;
		close(pr->perf[i].fd);
	}
	free(pr->perf);
	pr->perf = NULL;
	pr->nperf = 0;
	free(pr->th);
	pr->th = NULL;
	pr->nth = 0;
}

static void teardown(void)
{
	for (size_t i = 0; i < T.nprocs; i++)
		proc_disable(T.procs[i]);
	if (T.ft_fd >= 0)
		(void)ioctl(T.ft_fd, FASTTRAPIOC_DISABLE, 0);
	read_buffers();
	if (T.ft_fd >= 0) {
		struct ft_stats st;

		/* every hit is a record written or a drop: exact */
		if (ioctl(T.ft_fd, FASTTRAPIOC_STATS, &st) == 0 && st.drops)
			say("%" PRIu64 " drops (records the module's buffer "
			    "could not hold)",
			    st.drops);
		close(T.ft_fd);
		T.ft_fd = -1;
	}
	for (size_t i = 0; i < T.nprocs; i++)
		proc_close(T.procs[i]);
	for (size_t i = 0; i < T.ncpus; i++) {
		munmap(T.cpus[i].rb, T.rbsize + (size_t)getpagesize());
		close(T.cpus[i].fd);
	}
	T.ncpus = 0;
	if (T.group[0])
		reap_groups(T.group);
	if (T.fired > T.received + T.drops)
		say("%" PRIu64 " drops (hits the buffers could not hold, counted "
		    "when tracing stopped)",
		    T.fired - T.received - T.drops);
}

/* ------------------------------------------------------------------ */
/* The program */

int dt_parse_size(const char *s, size_t *bytes)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'g':
	case 'G':
		v <<= 10;
		/* fall through */
	case 'm':
	case 'M':
		v <<= 10;
		/* fall through */
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	default:
		break;
	}
	if (*end || v < 4096 || v > (1ULL << 30))
		return -EINVAL;
	*bytes = (size_t)v;
	return 0;
}

int dt_parse_rate(const char *s, unsigned *ms)
{
	double v;
	char *end;

	v = strtod(s, &end);
	if (end == s || !(v > 0))
		return -EINVAL;
	if (!*end || !strcmp(end, "hz"))
		v = 1000.0 / v;
	else if (!strcmp(end, "s") || !strcmp(end, "sec"))
		v *= 1000.0;
	else if (!strcmp(end, "us") || !strcmp(end, "usec"))
		v /= 1000.0;
	else if (strcmp(end, "ms") && strcmp(end, "msec"))
		return -EINVAL;
	*ms = v < 1 ? 1 : v > 10000 ? 10000 : (unsigned)v;
	return 0;
}

/* Options only -h and -G use: the D program has no business with them. */
static bool build_option(const char *name, size_t len)
{
	static const char *const names[] = {
		"nolibs", "lazyload", "linkmode", "linktype", "zdefs",
		"probestyle", "cpp", "cpppath", "version", NULL,
	};

	for (unsigned i = 0; names[i]; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return true;
	return false;
}

/*
 * -x options reach the program (strsize, aggsortrev, ...); bufsize and
 * switchrate come from -x or else from a #pragma D option.
 */
static int apply_options(void)
{
	const struct dt_trace_opts *o = T.o;
	char msg[256];
	const char *v;

	for (unsigned i = 0; i < o->nxopts; i++) {
		const char *x = o->xopts[i], *eq = strchr(x, '=');
		size_t len = eq ? (size_t)(eq - x) : strlen(x);
		char name[64];

		if (build_option(x, len) || len >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, x);
		if (d_set_option(T.prog, name, eq ? eq + 1 : "", msg,
				 sizeof(msg))) {
			say("failed to set -x %s: %s", x, msg);
			return -1;
		}
	}
	T.rbsize = o->bufsize;
	if (!T.rbsize && (v = d_get_option(T.prog, "bufsize")) &&
	    dt_parse_size(v, &T.rbsize) < 0) {
		say("failed to set option bufsize: '%s' is not a size from 4k "
		    "to 1g",
		    v);
		return -1;
	}
	if (!T.rbsize)
		T.rbsize = 2 * 1024 * 1024;
	{
		size_t pg = (size_t)getpagesize(), n = pg;

		while (n < T.rbsize)
			n *= 2; /* the kernel wants a power of two pages */
		T.rbsize = n;
	}
	T.switchrate_ms = o->switchrate_ms;
	if (!T.switchrate_ms && (v = d_get_option(T.prog, "switchrate")) &&
	    dt_parse_rate(v, &T.switchrate_ms) < 0) {
		say("failed to set option switchrate: '%s' is not a rate", v);
		return -1;
	}
	if (!T.switchrate_ms)
		T.switchrate_ms = 10;
	return 0;
}

static void fire_dtrace(const struct d_probe *dp, const unsigned *cl,
			unsigned n)
{
	struct d_fire f = {0};
	char comm[32] = "dtrace";
	FILE *c = fopen("/proc/self/comm", "re");

	if (c) {
		if (fgets(comm, sizeof(comm), c))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(c);
	}
	f.cpu = sched_getcpu();
	f.pid = getpid();
	f.tid = (pid_t)syscall(SYS_gettid);
	f.ppid = getppid();
	f.uid = getuid();
	f.execname = comm;
	f.timestamp = now_ns(CLOCK_MONOTONIC);
	f.walltimestamp = now_ns(CLOCK_REALTIME);
	f.vtimestamp = f.timestamp;
	f.copyin = copyin;
	run_clauses(dp, cl, NULL, n, &f);
}

static int compile_all(pid_t target)
{
	const struct dt_trace_opts *o = T.o;
	char msg[512];

	T.src_first = xcalloc(o->nsrc + 1, sizeof(*T.src_first));
	for (unsigned i = 0; i < o->nsrc; i++) {
		struct d_compile_opts co = {
			.srcname = o->src[i].name,
			.macro_argv = o->macro_argv,
			.macro_argc = o->macro_argc,
			.target = target,
			.spec = o->src[i].spec,
		};

		T.src_first[i] = T.prog ? d_nclauses(T.prog) : 0;
		if (d_compile(&T.prog, o->src[i].text, &co, msg, sizeof(msg))) {
			if (o->src[i].name)
				say("failed to compile script %s: %s",
				    o->src[i].name, msg);
			else
				say("invalid probe specifier %s: %s",
				    o->src[i].text, msg);
			return -1;
		}
	}
	T.src_first[o->nsrc] = T.prog ? d_nclauses(T.prog) : 0;
	return 0;
}

/* Probes (BEGIN and END included) some clause of source i enables. */
static unsigned source_matches(unsigned i)
{
	unsigned lo = T.src_first[i], hi = T.src_first[i + 1], n = 0;
	const unsigned *lists[] = {T.begin_clauses, T.end_clauses};
	unsigned nl[] = {T.nbegin, T.nend};

	for (size_t k = 0; k < T.nprobes; k++) {
		const struct tprobe *p = T.probes[k];
		bool hit = false;

		for (unsigned c = 0; c < p->nclauses && !hit; c++)
			hit = p->clauses[c] >= lo && p->clauses[c] < hi;
		n += hit;
	}
	for (unsigned k = 0; k < 2; k++) {
		bool hit = false;

		for (unsigned c = 0; c < nl[k] && !hit; c++)
			hit = lists[k][c] >= lo && lists[k][c] < hi;
		n += hit;
	}
	return n;
}

static int parse_descs(void)
{
	T.nclauses = d_nclauses(T.prog);
	T.descs = xcalloc(T.nclauses, sizeof(*T.descs));
	T.ndescs = xcalloc(T.nclauses, sizeof(*T.ndescs));
	for (unsigned c = 0; c < T.nclauses; c++) {
		unsigned n = d_clause_ndescs(T.prog, c);
		int spec = d_clause_spec(T.prog, c);

		T.ndescs[c] = n;
		T.descs[c] = xcalloc(n, sizeof(**T.descs));
		for (unsigned j = 0; j < n; j++) {
			const char *txt = d_clause_desc(T.prog, c, j);

			if (dt_desc_parse(txt, spec ? (enum dt_spec)spec
						    : DT_SPEC_NAME,
					  &T.descs[c][j])) {
				say("invalid probe description \"%s\": too many "
				    "fields",
				    txt);
				return -1;
			}
		}
	}
	return 0;
}

/* BEGIN and END: clauses whose descriptions match them. */
static void match_dtrace_probes(void)
{
	static const char *const names[] = {"BEGIN", "END"};
	struct d_probe *dp[] = {&T.begin, &T.end};
	unsigned **cl[] = {&T.begin_clauses, &T.end_clauses};
	unsigned *ncl[] = {&T.nbegin, &T.nend};

	for (unsigned k = 0; k < 2; k++) {
		dp[k]->id = k + 1;
		dp[k]->prov = "dtrace";
		dp[k]->mod = "";
		dp[k]->func = "";
		dp[k]->name = names[k];
		for (unsigned c = 0; c < T.nclauses; c++) {
			bool hit = false;

			for (unsigned j = 0; j < T.ndescs[c]; j++)
				if (probe_matches(&T.descs[c][j], "dtrace", "",
						  "", names[k])) {
					T.descs[c][j].matched++;
					hit = true;
				}
			if (hit)
				PUSH(*cl[k], *ncl[k], c);
		}
	}
}

/* Registered processes with a probe some description can match. */
static void add_registry_procs(const struct dt_probes *reg)
{
	for (size_t i = 0; i < reg->n; i++) {
		const struct dt_probe *p = &reg->v[i];
		bool want = false;

		if (p->origin != DT_ORIGIN_PROCESS || proc_find(p->pid))
			continue;
		for (unsigned c = 0; c < T.nclauses && !want; c++)
			for (unsigned j = 0; j < T.ndescs[c] && !want; j++)
				want = dt_desc_match(&T.descs[c][j], p);
		if (want)
			(void)proc_add(p->pid, false);
	}
}

static const struct reg_proc *reg_of(const struct dt_probes *reg, pid_t pid)
{
	for (size_t i = 0; i < reg->nprocs; i++)
		if (reg->procs[i].pid == pid)
			return &reg->procs[i];
	return NULL;
}

static void refresh_all(bool registry)
{
	struct dt_probes reg = {0};
	struct dt_collect_opts co = {0};
	char msg[256];

	if (registry && T.o->statedir) {
		co.statedir = T.o->statedir;
		if (dt_probes_collect(&reg, &co, msg, sizeof(msg)) == 0)
			add_registry_procs(&reg);
	}
	for (size_t i = 0; i < T.nprocs; i++)
		(void)proc_refresh(T.procs[i], reg_of(&reg, T.procs[i]->pid));
	dt_probes_free(&reg);
}

static int signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigprocmask(SIG_BLOCK, set, NULL);
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static bool all_targets_gone(void)
{
	bool any = false;

	for (size_t i = 0; i < T.nprocs; i++) {
		if (!T.procs[i]->target)
			continue;
		any = true;
		if (!T.procs[i]->exited)
			return false;
	}
	return any;
}

static void proc_exited(struct tproc *pr)
{
	siginfo_t si = {0};

	pr->exited = true;
	if (pr->created) /* our child: reap it */
		(void)waitid(P_PID, (id_t)pr->pid, &si, WEXITED | WNOHANG);
	if (pr->target && !d_opt_quiet(T.prog))
		say("pid %d has exited", (int)pr->pid);
	proc_close(pr); /* its buffers were read just before */
	/*
	 * Forget the pid: a new process that gets it (and registers) is
	 * another process, with probes of its own.
	 */
	for (size_t i = 0; i < T.nprobes; i++)
		if (T.probes[i]->pid == pr->pid)
			T.probes[i]->pid = -1;
	for (size_t i = 0; i < T.nevs; i++)
		for (size_t u = 0; u < T.evs[i]->nusers; u++)
			if (T.evs[i]->users[u].pid == pr->pid)
				T.evs[i]->users[u].pid = -1;
	close(pr->pidfd);
	pr->pidfd = -1;
	free(pr->maps);
	pr->maps = NULL;
}

static void loop(int sfd, int ifd)
{
	uint64_t last_refresh = now_ns(CLOCK_MONOTONIC);

	while (!T.done) {
		struct pollfd *pfd;
		size_t n = 0, np = 2 + T.nprocs, nwait;
		uint64_t now;

		np += T.ncpus + 1;
		pfd = xcalloc(np, sizeof(*pfd));
		pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = ifd, .events = POLLIN};
		for (size_t i = 0; i < T.nprocs; i++)
			if (!T.procs[i]->exited)
				pfd[n++] = (struct pollfd){
					.fd = T.procs[i]->pidfd,
					.events = POLLIN};
		nwait = n;
		/* a buffer half full wakes us before the switchrate tick */
		for (size_t i = 0; i < T.ncpus; i++)
			pfd[n++] = (struct pollfd){.fd = T.cpus[i].fd,
						   .events = POLLIN};
		if (T.ft_fd >= 0)
			pfd[n++] = (struct pollfd){.fd = T.ft_fd,
						   .events = POLLIN};
		(void)poll(pfd, n, (int)T.switchrate_ms);
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD)
					T.done = true;
		}
		read_buffers();
		now = now_ns(CLOCK_MONOTONIC);
		if (ifd >= 0 && (pfd[1].revents & POLLIN)) {
			char buf[4096];

			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			refresh_all(true);
			last_refresh = now;
		} else if (now - last_refresh > 100000000u) {
			refresh_all(false);
			last_refresh = now;
		}
		for (size_t i = 2; i < nwait; i++) {
			struct tproc *pr;

			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			for (size_t k = 0; k < T.nprocs; k++) {
				pr = T.procs[k];
				if (pr->pidfd == pfd[i].fd && !pr->exited) {
					read_buffers();
					proc_exited(pr);
				}
			}
		}
		free(pfd);
		if (all_targets_gone())
			T.done = true;
	}
}

int dt_trace(const struct dt_trace_opts *o)
{
	pid_t target = 0;
	sigset_t set;
	int sfd, ifd = -1, ret = 1;
	struct rlimit rl;
	uint64_t mystart = 0;

	memset(&T, 0, sizeof(T));
	T.o = o;
	T.out = stdout;
	T.next_id = 3;
	T.ft_fd = -1;
	if (o->output) {
		T.out = fopen(o->output, "ae");
		if (!T.out) {
			say("failed to open %s: %s", o->output, strerror(errno));
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	sfd = signals_block(&set);
	T.ft_fd = ft_open(); /* the kernel module, when it is loaded */
	if (tracefs_find() < 0) {
		snprintf(T.tfs_err, sizeof(T.tfs_err),
			 "cannot enable probes: no tracefs with uprobe_events "
			 "(is CONFIG_UPROBE_EVENTS on, and are we root?)");
	} else {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/uprobe_events", T.tfs);
		if (access(p, W_OK) < 0)
			snprintf(T.tfs_err, sizeof(T.tfs_err),
				 "cannot enable probes: %s: %s (tracing needs "
				 "root)",
				 p, strerror(errno));
	}
	if (!T.tfs_err[0])
		reap_groups(NULL);
	(void)reg_proc_stat(getpid(), &mystart, NULL, 0);
	snprintf(T.group, sizeof(T.group), GROUP_PREFIX "%d_%" PRIu64,
		 (int)getpid(), mystart);
	T.wall_offset = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);

	/* the targets first: $target must be known to compile */
	for (unsigned i = 0; i < o->ncmds; i++) {
		pid_t pid = command_start(o->cmds[i]);
		struct tproc *pr;

		if (pid < 0)
			goto out;
		pr = proc_add(pid, true);
		if (!pr) {
			say("lost process %d", (int)pid);
			kill(pid, SIGKILL);
			goto out;
		}
		pr->created = pr->held = true;
		if (!target)
			target = pid;
	}
	for (unsigned i = 0; i < o->npids; i++) {
		if (!proc_add(o->pids[i], true)) {
			say("failed to grab pid %d: %s", (int)o->pids[i],
			    strerror(ESRCH));
			goto out;
		}
		if (!target)
			target = o->pids[i];
	}
	if (compile_all(target) < 0 || apply_options() < 0 ||
	    parse_descs() < 0)
		goto out;
	if (o->quiet)
		d_set_quiet(T.prog, true);
	match_dtrace_probes();
	if (o->statedir) {
		char rd[PATH_MAX];

		snprintf(rd, sizeof(rd), "%s/registry", o->statedir);
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd >= 0 &&
		    inotify_add_watch(ifd, rd, IN_MOVED_TO | IN_CLOSE_WRITE |
						       IN_CREATE) < 0) {
			close(ifd);
			ifd = -1;
		}
	}
	refresh_all(true);
	if (T.enable_failed)
		goto out;

	/* every description must match something, unless -Z */
	{
		bool bad = false;

		for (unsigned c = 0; c < T.nclauses && !bad; c++)
			for (unsigned j = 0; j < T.ndescs[c] && !bad; j++) {
				if (T.descs[c][j].matched || o->zero_ok)
					continue;
				say("invalid probe specifier %s: probe "
				    "description %s does not match any probes",
				    T.descs[c][j].text, T.descs[c][j].text);
				bad = true;
			}
		if (bad)
			goto out;
	}
	if (!d_opt_quiet(T.prog)) {
		for (unsigned i = 0; i < o->nsrc; i++) {
			unsigned m = source_matches(i);

			if (o->src[i].name)
				say("script '%s' matched %u probe%s",
				    o->src[i].name, m, m == 1 ? "" : "s");
			else {
				/* the descriptions, without the clause's body */
				const char *t = o->src[i].text;
				int len = (int)strcspn(t, "/{");

				while (len && isspace((unsigned char)t[len - 1]))
					len--;
				say("description '%.*s' matched %u probe%s",
				    len, t, m, m == 1 ? "" : "s");
			}
		}
	}
	/* let the commands go */
	for (size_t i = 0; i < T.nprocs; i++)
		if (T.procs[i]->held) {
			(void)ptrace(PTRACE_DETACH, T.procs[i]->pid, NULL,
				     NULL);
			T.procs[i]->held = false;
		}
	fire_dtrace(&T.begin, T.begin_clauses, T.nbegin);
	fflush(T.out);
	loop(sfd, ifd);
	teardown();
	T.exit_called = false; /* END runs after exit() too */
	fire_dtrace(&T.end, T.end_clauses, T.nend);
	d_print_aggs(T.prog, T.out);
	ret = T.status;
out:
	if (T.group[0] && !T.tfs_err[0]) {
		for (size_t i = 0; i < T.nprocs; i++)
			proc_close(T.procs[i]);
		reap_groups(T.group);
	}
	for (size_t i = 0; i < T.nprocs; i++) {
		struct tproc *pr = T.procs[i];

		if (pr->created && !pr->exited) {
			kill(pr->pid, SIGKILL);
			waitpid(pr->pid, NULL, 0);
		}
	}
	if (T.out && fflush(T.out) != 0 && ret == 0) {
		say("write error: %s", strerror(errno));
		ret = 1;
	}
	if (T.out && T.out != stdout)
		fclose(T.out);
	if (T.ft_fd >= 0)
		close(T.ft_fd);
	if (sfd >= 0)
		close(sfd);
	if (ifd >= 0)
		close(ifd);
	return ret;
}
