// SPDX-License-Identifier: MIT
/*
 * ustack_walk.c - the tables the in-kernel unwinder (bpf/unw.bpf.c)
 * walks, and loading it for the generated programs (bpf backend).
 *
 * Why.  A hit whose clauses read ustack() copies 8 KiB of stack into
 * its record, and dtrace unwinds the copy with libdwfl (ustack.c): most
 * of the cost per hit.  Walking in the kernel from the same CFI gives
 * the same frames for a few hundred bytes of record (doc/DESIGN.md §13).
 *
 * Loading (uw_load(), from bpf_cg.c's cg_try() when a clause reads the
 * stack, makes the maps and two prog arrays; uw_fill() loads).  The
 * unwinder is loaded as a perf event's uprobe program for the first
 * array and for uprobe_multi links for the second (a prog array takes
 * the attach type of its first program: bpf_cg.c's cg_load_multi()
 * points the site links' copies at the second array), with the
 * generated programs' cgbuf, ring buffer and drops, and the table maps
 * made here; each only when the first generated program of its kind
 * that tail-calls it is loaded (cg_load(), cg_load_multi()), since its
 * verification is a large part of a stack run's start (0.05 s of CPU
 * each here, 16,107 instructions; 0.6-0.9 s before unw.bpf.c's rd()
 * and walk() kept the verifier's states few) and a run mostly attaches
 * one kind.  The generated program
 * tail-calls it through the array (cgen_ustk.c); where it could not be
 * loaded (no BTF, a kernel before bpf_loop() and bpf_find_vma(), 5.17;
 * DTRACE_USTACK_WALK=0; aarch64, which keeps the copy) the array stays
 * empty and the tail call falls through to the copy.
 *
 * On a thread of its own.  That verification grew with the walk
 * (41,548 instructions, 0.23 s of a 0.29 s run on this project's VM,
 * 2026-12-07), and the walk has nothing to do before dtrace has
 * unwound a process's first copy and built its tables anyway; so
 * uw_fill() loads it on a thread (uw_start(): copies of the maps'
 * descriptors, every signal blocked but UW_SIG) while the run goes on,
 * and the thread puts it into the array when it is in: from the next
 * hit on the tail call lands (a prog array is looked up at each call;
 * the generated programs, loaded first, made it theirs with the same
 * type and attach type).  Until then the array is empty and every
 * stack copied, which gives the same output.  uw_poll() joins a
 * loading that has ended at each read (-v says when it loaded);
 * uw_free() gives up one still running (a short run: most of the CPU
 * saved) by sending UW_SIG until the thread ends, since the verifier
 * returns EAGAIN when a signal is pending and libbpf tries again a few
 * times.  DTRACE_USTACK_WALK=start loads it before the commands go, as
 * before: tests whose counts need every hit after the first walked.
 * libbpf says nothing of the thread's loads (bpf.c's bpf_lb_mute):
 * its failure is said by uw_join(), a loading given up not at all.
 *
 * Tables (uw_build(), from ustack.c when it has unwound a copy with a
 * session).  Each r-x mapping of a file in the session's maps text
 * whose libdwfl module has .eh_frame_hdr, and has it where the mapping
 * is (ustack.c's us_at_bias(): not a mapping made from another offset),
 * becomes a struct uw_mod (with
 * its file offset: the walk checks the mapping is still that one); its
 * file's rows come from the very Dwarf_CFI libdwfl unwinds with
 * (dwfl_module_eh_cfi()): from each FDE's start (the .eh_frame_hdr
 * table, found through PT_GNU_EH_FRAME) row by row with
 * dwarf_cfi_addrframe(), each row classified (rows_of(): the forms the
 * walk takes, else unknown), equal neighbours merged, a gap between
 * FDEs unknown.  A file's rows are made once per run (by device,
 * inode and path) and never written again, and so is its page index
 * (page_index(): the walk's binary search then covers one page's
 * rows); a process's modules go into
 * a fresh slot, then upx points its tgid at it, so a walk in flight
 * never reads a slot half written; a slot given up is reused only a
 * second later, and each filling has a number of its own (uw_px.gen:
 * the checks a thread keeps, unw.bpf.c's uvc, are of one filling).
 * The tables are keyed by the self_exec_id the walker saw last for the
 * process (useen): a hit of another image finds none, hands its hit
 * back, and its copy's unwinding builds that image's.  A session whose
 * text changed (a dlopen()) builds again.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/usdt_bpf.h"
#include "bpf/unw_bpf.h"
#include "bpf_impl.h"
#include "consumer_impl.h"
#include "ustack.h"

extern const unsigned char unw_bpf_obj[];
extern const size_t unw_bpf_obj_len;

/* a file's rows in urows, or none (bad) */
struct uw_file {
	uint32_t dev;
	uint64_t ino;
	char *path;
	uint32_t lo, hi;
	uint32_t pg, npg; /* its page index in upages (npg 0: none) */
	bool bad;
};

/* a process with tables: the slot, what they were built from */
struct uw_proc {
	pid_t pid;
	uint32_t slot;
	uint64_t xid;
	uint64_t text; /* the maps text's hash */
	/* the session and text last asked about: nothing new (a hit the
	 * walk handed back), no look at useen */
	const struct us_proc *up;
	const char *maps;
};

/* a loading of the unwinder into one prog array, on a thread of its
 * own (uw_fill()): the descriptors its own copies */
struct uw_loader {
	pthread_t th;
	bool on;	  /* the thread made, not joined yet */
	int fds[9];	  /* uw_obj()'s maps */
	int arr;	  /* the prog array */
	int k;		  /* 0 a perf event's, 1 uprobe_multi's */
	int err;	  /* its errno where it failed, else 0 */
	atomic_bool stop; /* uw_join(): give up */
	struct bpf_object *obj;
	uint64_t t0, done; /* CLOCK_MONOTONIC ns: started, ended */
};

struct uwalk {
	int rows, mods, px, seen, pages;
	int arr[2]; /* the prog arrays: perf event's, uprobe_multi's */
	struct bpf_object *obj[2];
	bool tried[2]; /* uw_fill() */
	struct uw_loader ld[2];
	uint32_t nrows, npages;
	uint32_t gen; /* slots filled: each filling's own (uw_px.gen) */
	struct uw_file *files;
	size_t nfiles;
	struct uw_proc *procs;
	size_t nprocs;
	/* per slot: 0 never used, UINT64_MAX in use, else when given up */
	uint64_t slot_t[UW_MAXSLOTS];
};

/* ------------------------------------------------------------------ */
/* Loading */

#if defined(__x86_64__)
/* the unwinder's maps, as uw_obj() names them */
static const char *const uw_names[9] = { "cgbuf", "rb",	    "drops",
					 "urows", "umods",  "upx",
					 "useen", "upages", "rbwake" };

static void uw_fds(const struct uwalk *uw, const struct cgen_maps *m,
		   int fds[9])
{
	const int f[9] = { m->buf, m->rb,    m->drops,	uw->rows, uw->mods,
			   uw->px, uw->seen, uw->pages, m->wake };

	memcpy(fds, f, sizeof(f));
}

/* the unwinder loaded for prog array k with the maps fds (uw_names'),
 * into *obj: its program's fd, or -1 */
static int uw_obj(const int fds[9], int k, struct bpf_object **obj)
{
	struct bpf_object *o;
	struct bpf_program *p;
	char *log = NULL;
	int fd = -1;

	o = bpf_object__open_mem(unw_bpf_obj, unw_bpf_obj_len, NULL);
	if (!o)
		return -1;
	*obj = o;
	for (int i = 0; i < 9; i++) {
		struct bpf_map *mp =
			bpf_object__find_map_by_name(o, uw_names[i]);

		if (!mp || bpf_map__reuse_fd(mp, fds[i]))
			return -1;
	}
	p = bpf_object__find_program_by_name(o, "ustack_walk");
	if (!p)
		return -1;
	if (k)
		bpf_program__set_expected_attach_type(
			p, (enum bpf_attach_type)UMULTI_ATTACH);
	/* the verifier's log, as cg_load_as() (a loading's own: two may
	 * run at once) */
	if (getenv("DTRACE_CGEN_LOG") && (log = calloc(1, 1 << 20)))
		bpf_program__set_log_buf(p, log, 1 << 20);
	if (!bpf_object__load(o))
		fd = bpf_program__fd(p);
	else if (log)
		fputs(log, stderr);
	free(log);
	return fd;
}

/* the signal uw_join() interrupts a loading's verification with (the
 * verifier gives up with EAGAIN when one is pending; libbpf tries a
 * few times more, so it is sent until the thread ends) */
#define UW_SIG (SIGRTMIN + 5)

static void uw_sig_none(int sig)
{
	(void)sig;
}

static uint64_t uw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *uw_loader_main(void *arg)
{
	struct uw_loader *l = arg;
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, UW_SIG);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	bpf_lb_mute = true; /* its failure said by uw_join() */
	errno = 0;
	fd = atomic_load(&l->stop) ? -1 : uw_obj(l->fds, l->k, &l->obj);
	if (fd >= 0 && !bpf_map_update_elem(l->arr, &(uint32_t){ 0 }, &fd, 0))
		l->err = 0;
	else
		l->err = errno ? errno : EINVAL;
	for (int i = 0; i < 9; i++)
		close(l->fds[i]);
	close(l->arr);
	l->done = uw_now();
	return NULL;
}

/* -v's word on the unwinder for array k: loaded ms after its loading
 * began (ms >= 0), or not, for err */
static void uw_say(struct consumer *c, int k, int64_t ms, int err)
{
	const char *what = k ? "site links" : "uprobe events";

	if (!c->o->verbose)
		return;
	if (ms >= 0)
		say(c,
		    "BPF: the stack walk in the kernel for %s loaded, "
		    "%" PRId64 " ms after its start",
		    what, ms);
	else
		say(c,
		    "BPF: no stack walk in the kernel for %s (%s): stacks "
		    "copied",
		    what, strerror(err));
}

/* the loading into array k (uw_fill()'s thread) joined where it has
 * ended; with stop, given up where it still runs (a run that ended
 * before it was done walks nothing).  -v says when it loaded, or why
 * it failed where it ended of itself. */
static void uw_join(struct consumer *c, struct uwalk *uw, int k, bool stop)
{
	struct uw_loader *l = &uw->ld[k];
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	if (!l->on)
		return;
	if (pthread_tryjoin_np(l->th, NULL)) { /* still loading */
		if (!stop)
			return;
		atomic_store(&l->stop, true);
		while (pthread_tryjoin_np(l->th, NULL) == EBUSY) {
			pthread_kill(l->th, UW_SIG);
			nanosleep(&ts, NULL);
		}
	}
	l->on = false;
	uw->obj[k] = l->obj;
	l->obj = NULL;
	if (!l->err)
		uw_say(c, k, (int64_t)((l->done - l->t0) / 1000000), 0);
	else if (!atomic_load(&l->stop))
		uw_say(c, k, -1, l->err);
}

/* uw_fill()'s loading on a thread of its own, the run going on
 * meanwhile; false where none could be made */
static bool uw_start(struct uwalk *uw, const struct cgen_maps *m, int k)
{
	struct uw_loader *l = &uw->ld[k];
	struct sigaction sa = { .sa_handler = uw_sig_none };
	int fds[9];
	sigset_t set, old;
	bool ok = true;

	uw_fds(uw, m, fds);
	for (int i = 0; i < 9; i++)
		l->fds[i] = -1;
	l->arr = fcntl(uw->arr[k], F_DUPFD_CLOEXEC, 3);
	for (int i = 0; i < 9; i++)
		if ((l->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
			ok = false;
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: the load is let go */
	if (!ok || l->arr < 0 || sigaction(UW_SIG, &sa, NULL) < 0)
		goto fail;
	/* the thread takes no signal but its own (unblocked there) */
	sigfillset(&set);
	pthread_sigmask(SIG_SETMASK, &set, &old);
	l->k = k;
	l->err = 0;
	l->obj = NULL;
	l->t0 = l->done = uw_now();
	atomic_init(&l->stop, false);
	l->on = pthread_create(&l->th, NULL, uw_loader_main, l) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (l->on)
		return true;
fail:
	for (int i = 0; i < 9; i++)
		if (l->fds[i] >= 0)
			close(l->fds[i]);
	if (l->arr >= 0)
		close(l->arr);
	return false;
}
#endif

/* uw_fill()'s loadings that have ended joined (bpf.c's drain, at each
 * read: -v says so then) */
void uw_poll(struct consumer *c)
{
#if defined(__x86_64__)
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;

	for (int k = 0; uw && k < 2; k++)
		uw_join(c, uw, k, false);
#else
	(void)c;
#endif
}

void uw_free(struct consumer *c)
{
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;

	if (!uw)
		return;
#if defined(__x86_64__)
	for (int k = 0; k < 2; k++)
		uw_join(c, uw, k, true);
#endif
	for (int k = 0; k < 2; k++) {
		bpf_object__close(uw->obj[k]);
		if (uw->arr[k] >= 0)
			close(uw->arr[k]);
	}
	if (uw->rows >= 0)
		close(uw->rows);
	if (uw->mods >= 0)
		close(uw->mods);
	if (uw->px >= 0)
		close(uw->px);
	if (uw->seen >= 0)
		close(uw->seen);
	if (uw->pages >= 0)
		close(uw->pages);
	for (size_t i = 0; i < uw->nfiles; i++)
		free(uw->files[i].path);
	free(uw->files);
	free(uw->procs);
	free(uw);
	c->bpf->uw = NULL;
}

/*
 * The unwinder for a run whose clauses read the stack (m's cgbuf, ring
 * buffer and drops made): m->uwalk1 and m->uwalkm1 are then the prog
 * arrays' fds + 1.  0, or -1 with nothing changed (said with -v).
 */
int uw_load(struct consumer *c, struct cgen_maps *m)
{
	m->uwalk1 = m->uwalkm1 = 0;
#if !defined(__x86_64__)
	(void)c;
	return -1; /* aarch64: the copy, unwound by dtrace */
#else
	const char *env = getenv("DTRACE_USTACK_WALK");
	struct uwalk *uw;

	if ((env && !strcmp(env, "0")) || m->buf < 0)
		return -1;
	uw = xcalloc(1, sizeof(*uw));
	c->bpf->uw = uw;
	uw->arr[0] = uw->arr[1] = -1;
	uw->rows = uw->mods = uw->px = uw->seen = uw->pages = -1;
	uw->rows = bpf_map_create(BPF_MAP_TYPE_ARRAY, "urows", 4,
				  sizeof(struct uw_row), UW_MAXROWS, NULL);
	uw->mods = bpf_map_create(BPF_MAP_TYPE_ARRAY, "umods", 4,
				  sizeof(struct uw_slot), UW_MAXSLOTS, NULL);
	uw->px = bpf_map_create(BPF_MAP_TYPE_HASH, "upx", 4,
				sizeof(struct uw_px), UW_MAXSLOTS, NULL);
	uw->seen = bpf_map_create(BPF_MAP_TYPE_HASH, "useen", 4, 8, 4096, NULL);
	uw->pages = bpf_map_create(BPF_MAP_TYPE_ARRAY, "upages", 4, 4,
				   UW_MAXPAGES, NULL);
	for (int k = 0; k < 2; k++)
		uw->arr[k] = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "uwalk", 4,
					    4, 1, NULL);
	if (uw->rows < 0 || uw->mods < 0 || uw->px < 0 || uw->seen < 0 ||
	    uw->pages < 0 || uw->arr[0] < 0 || uw->arr[1] < 0)
		goto fail;
	m->uwalk1 = (uint32_t)uw->arr[0] + 1;
	m->uwalkm1 = (uint32_t)uw->arr[1] + 1;
	return 0;
fail:
	if (c->o->verbose)
		say(c, "BPF: no stack walk in the kernel (%s): stacks copied",
		    strerror(errno ? errno : EINVAL));
	uw_free(c);
	return -1;
#endif
}

/*
 * The unwinder into prog array k (0 a perf event's, 1 uprobe_multi's),
 * before the first generated program that tail-calls through it loads
 * (bpf_cg.c): once.  Where it cannot be loaded the array stays empty,
 * the tail call falls through and the stack is copied (said with -v).
 */
void uw_fill(struct consumer *c, int k)
{
#if defined(__x86_64__)
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;
	const char *env = getenv("DTRACE_USTACK_WALK");
	int fds[9], fd;

	if (!uw || uw->tried[k])
		return;
	uw->tried[k] = true;
	if (!(env && !strcmp(env, "start")) && uw_start(uw, &c->bpf->cgm, k))
		return;
	errno = 0;
	uw_fds(uw, &c->bpf->cgm, fds);
	fd = uw_obj(fds, k, &uw->obj[k]);
	if (fd >= 0 &&
	    !bpf_map_update_elem(uw->arr[k], &(uint32_t){ 0 }, &fd, 0))
		return;
	uw_say(c, k, -1, errno ? errno : EINVAL);
#else
	(void)c;
	(void)k;
#endif
}

/* ------------------------------------------------------------------ */
/* Rows */

/* A register's rule (libdw's form): 0 same, 1 undefined, 2 at CFA + *off,
 * 3 the value CFA + *off, -1 any other */
static int reg_rule(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	bool val;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return -1;
	if (n == 0)
		return ops ? 1 : 0;
	val = ops[n - 1].atom == DW_OP_stack_value;
	if (val)
		n--;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (n == 1)
		*off = 0;
	else if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[1].number;
	else
		return -1;
	return val ? 3 : 2;
}

/* the row of frame f at pc: as the walk takes it, or unknown */
static struct uw_row classify(Dwarf_Frame *f, uint64_t pc, int ra, bool sig)
{
	struct uw_row r = { .pc = pc, .kind = UW_K_UNKNOWN };
	Dwarf_Op *ops;
	size_t n;
	int64_t o, co;
	int reg, rule;

	if (ra != 16 || sig)
		return r;
	rule = reg_rule(f, 16, &o);
	if (rule == 1) { /* undefined: the outermost frame */
		r.kind = UW_K_END;
		return r;
	}
	if (rule != 2 || o != -8)
		return r;
	/* the caller's rsp is the CFA */
	if (reg_rule(f, 7, &o) != 3 || o != 0)
		return r;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1)
		return r;
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		co = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		co = (int64_t)ops[0].number;
	} else {
		return r;
	}
	if ((reg != 7 && reg != 6) || co < INT32_MIN || co > INT32_MAX)
		return r;
	switch (reg_rule(f, 6, &o)) {
	case 0:
		r.bpk = UW_BP_SAME;
		break;
	case 1:
		r.bpk = UW_BP_UNDEF;
		break;
	case 2:
		if (o < INT16_MIN || o > INT16_MAX)
			return r;
		r.bpk = UW_BP_AT;
		r.bp = (int16_t)o;
		break;
	default:
		return r;
	}
	r.kind = reg == 7 ? UW_K_SP : UW_K_BP;
	r.cfa = (int32_t)co;
	return r;
}

struct rows {
	struct uw_row *v;
	size_t n, cap;
};

static void add(struct rows *rs, struct uw_row r)
{
	if (rs->n) {
		struct uw_row *l = &rs->v[rs->n - 1];

		if (l->kind == r.kind && l->cfa == r.cfa && l->bpk == r.bpk &&
		    l->bp == r.bp)
			return;
		if (l->pc == r.pc) { /* an empty range: the later holds */
			*l = r;
			return;
		}
	}
	if (rs->n == rs->cap)
		rs->v = xrealloc(rs->v, rs->cap = rs->cap ? 2 * rs->cap : 4096,
				 sizeof(*rs->v));
	rs->v[rs->n++] = r;
}

/*
 * The rows of mod's file (ELF addresses), from the .eh_frame_hdr table
 * PT_GNU_EH_FRAME points at: false where there is none in the form
 * every x86-64 linker writes (4-byte count, datarel sdata4 table).
 */
static bool rows_of(Dwfl_Module *mod, struct rows *rs)
{
	Dwarf_Addr bias, cbias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &cbias);
	Elf_Data *d = NULL;
	uint64_t hv = 0;
	size_t np;
	const uint8_t *p;
	uint32_t cnt;

	if (!elf || !cfi || elf_getphdrnum(elf, &np))
		return false;
	for (size_t i = 0; i < np && !d; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) &&
		    ph.p_type == PT_GNU_EH_FRAME) {
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
						 ph.p_filesz, ELF_T_BYTE);
			hv = ph.p_vaddr;
		}
	}
	if (!d || d->d_size < 12)
		return false;
	p = d->d_buf;
	if (p[0] != 1 || (p[1] & 0x0f) != DW_EH_PE_sdata4 ||
	    p[2] != DW_EH_PE_udata4 ||
	    p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return false;
	memcpy(&cnt, p + 8, 4);
	if ((d->d_size - 12) / 8 < cnt)
		return false;
	add(rs, (struct uw_row){ .pc = 0, .kind = UW_K_UNKNOWN });
	for (uint32_t i = 0; i < cnt; i++) {
		int32_t t[3];
		uint64_t pc, lim, en;

		memcpy(t, p + 12 + 8 * (size_t)i, 8);
		if (i + 1 < cnt)
			memcpy(&t[2], p + 12 + 8 * (size_t)(i + 1), 4);
		pc = hv + (uint64_t)(int64_t)t[0];
		lim = i + 1 < cnt ? hv + (uint64_t)(int64_t)t[2] : UINT64_MAX;
		if (lim < pc)
			return false; /* not sorted: libdw's search fails */
		en = pc;
		for (;;) {
			Dwarf_Frame *f;
			Dwarf_Addr st;
			bool sig;
			int ra;

			if (dwarf_cfi_addrframe(cfi, pc, &f))
				break;
			ra = dwarf_frame_info(f, &st, &en, &sig);
			add(rs, classify(f, pc, ra, sig));
			free(f);
			if (en >= lim || en <= pc)
				break;
			pc = en;
		}
		if (en < lim)
			add(rs,
			    (struct uw_row){ .pc = en, .kind = UW_K_UNKNOWN });
	}
	return true;
}

/*
 * f's page index in upages: entry p the last row (from f->lo) at or
 * below p << 12, for every page up to the one after the last row's;
 * none (npg 0: the whole search) where upages is full
 */
static void page_index(struct uwalk *uw, struct uw_file *f,
		       const struct rows *rs)
{
	uint64_t npg = (rs->v[rs->n - 1].pc >> 12) + 2;
	uint32_t *v, *keys, n;
	size_t j = 0;
	bool ok;
	LIBBPF_OPTS(bpf_map_batch_opts, bo);

	if (npg > UW_MAXPAGES - uw->npages)
		return;
	n = (uint32_t)npg;
	v = xcalloc(n, sizeof(*v));
	keys = xcalloc(n, sizeof(*keys));
	for (uint32_t p = 0; p < n; p++) {
		while (j + 1 < rs->n && rs->v[j + 1].pc <= (uint64_t)p << 12)
			j++;
		v[p] = (uint32_t)j;
		keys[p] = uw->npages + p;
	}
	ok = !bpf_map_update_batch(uw->pages, keys, v, &n, &bo) && n == npg;
	if (!ok) { /* no batches (before 5.6): one at a time */
		ok = true;
		for (uint32_t p = 0; ok && p < npg; p++)
			ok = !bpf_map_update_elem(uw->pages, &keys[p], &v[p],
						  0);
	}
	if (ok) {
		f->pg = uw->npages;
		f->npg = (uint32_t)npg;
		uw->npages += (uint32_t)npg;
	}
	free(v);
	free(keys);
}

/* mod's file's rows in urows (made once), or NULL */
static const struct uw_file *file_rows(struct uwalk *uw, Dwfl_Module *mod,
				       uint32_t dev, uint64_t ino,
				       const char *path)
{
	struct rows rs = { 0 };
	struct uw_file *f;
	bool ok;

	for (size_t i = 0; i < uw->nfiles; i++) {
		f = &uw->files[i];
		if (f->dev == dev && f->ino == ino && !strcmp(f->path, path))
			return f->bad ? NULL : f;
	}
	uw->files = xpush_room(uw->files, uw->nfiles, sizeof(*uw->files));
	f = &uw->files[uw->nfiles++];
	*f = (struct uw_file){
		.dev = dev, .ino = ino, .path = xstrdup(path), .bad = true
	};
	ok = rows_of(mod, &rs) && rs.n <= (1u << UW_SEARCH) &&
	     rs.n <= UW_MAXROWS - uw->nrows;
	if (ok) {
		uint32_t n = (uint32_t)rs.n;
		uint32_t *keys = xcalloc(rs.n, sizeof(*keys));
		LIBBPF_OPTS(bpf_map_batch_opts, bo);

		for (uint32_t i = 0; i < n; i++)
			keys[i] = uw->nrows + i;
		if (bpf_map_update_batch(uw->rows, keys, rs.v, &n, &bo) ||
		    n != rs.n) {
			ok = true;
			for (uint32_t i = 0; i < rs.n && ok; i++)
				ok = !bpf_map_update_elem(uw->rows, &keys[i],
							  &rs.v[i], 0);
		}
		free(keys);
	}
	if (ok) {
		f->lo = uw->nrows;
		f->hi = uw->nrows + (uint32_t)rs.n;
		uw->nrows = f->hi;
		f->bad = false;
		page_index(uw, f, &rs);
	}
	free(rs.v);
	return f->bad ? NULL : f;
}

/* ------------------------------------------------------------------ */
/* Processes */

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static struct uw_proc *proc_of(struct uwalk *uw, pid_t pid)
{
	for (size_t i = 0; i < uw->nprocs; i++)
		if (uw->procs[i].pid == pid)
			return &uw->procs[i];
	return NULL;
}

static void slot_put(struct uwalk *uw, uint32_t slot)
{
	uw->slot_t[slot] = now_ns(CLOCK_MONOTONIC);
}

/* a slot no walk can be reading: unused, or given up a second ago */
static int slot_get(struct uwalk *uw)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (uint32_t i = 0; i < UW_MAXSLOTS; i++)
		if (!uw->slot_t[i] || (uw->slot_t[i] != UINT64_MAX &&
				       now - uw->slot_t[i] > 1000000000ull)) {
			uw->slot_t[i] = UINT64_MAX;
			return (int)i;
		}
	return -1;
}

void uw_build(struct consumer *c, struct us_proc *up, pid_t pid)
{
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;
	uint32_t key = (uint32_t)pid;
	struct uw_slot sl;
	struct uw_px px = { 0 };
	struct uw_proc *pr;
	uint64_t xid, th;
	const char *l;
	int slot;

	if (!uw || !up || !up->dwfl || !up->maps || up->frozen)
		return;
	pr = proc_of(uw, pid);
	if (pr && pr->up == up && pr->maps == up->maps)
		return; /* an exec() or a new text is a new session */
	if (bpf_map_lookup_elem(uw->seen, &key, &xid))
		return;
	th = text_hash(up->maps);
	if (pr && pr->xid == xid && pr->text == th) {
		pr->up = up;
		pr->maps = up->maps;
		return; /* built from this text for this image */
	}
	memset(&sl, 0, sizeof(sl));
	for (l = up->maps; *l && px.nmods < UW_MAXMODS;) {
		const char *nl = strchr(l, '\n');
		unsigned long long a, b, off, ino;
		unsigned maj, min;
		char perm[8], path[512];
		Dwfl_Module *mod;
		const struct uw_file *f;
		Dwarf_Addr bias;

		if (sscanf(l, "%llx-%llx %7s %llx %x:%x %llu %511s", &a, &b,
			   perm, &off, &maj, &min, &ino, path) == 8 &&
		    perm[2] == 'x' && path[0] == '/' && !(off & 4095) &&
		    off >> 12 <= UINT32_MAX &&
		    (mod = dwfl_addrmodule(up->dwfl, a)) &&
		    dwfl_module_getelf(mod, &bias) && us_at_bias(up, a) &&
		    (f = file_rows(uw, mod, maj << 20 | min, ino, path))) {
			struct uw_mod *m = &sl.m[px.nmods++];

			m->start = a;
			m->end = b;
			m->bias = bias;
			m->ino = ino;
			m->dev = maj << 20 | min;
			m->lo = f->lo;
			m->hi = f->hi;
			m->pg = f->pg;
			m->npg = f->npg;
			m->pgoff = (uint32_t)(off >> 12);
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	if (!px.nmods || (slot = slot_get(uw)) < 0)
		return;
	px.xid = xid;
	px.slot = (uint32_t)slot;
	px.gen = ++uw->gen;
	if (bpf_map_update_elem(uw->mods, &px.slot, &sl, 0) ||
	    bpf_map_update_elem(uw->px, &key, &px, 0)) {
		slot_put(uw, px.slot);
		return;
	}
	if (pr) {
		slot_put(uw, pr->slot);
	} else {
		uw->procs =
			xpush_room(uw->procs, uw->nprocs, sizeof(*uw->procs));
		pr = &uw->procs[uw->nprocs++];
		pr->pid = pid;
	}
	pr->slot = px.slot;
	pr->xid = xid;
	pr->text = th;
	pr->up = up;
	pr->maps = up->maps;
}

/* Has pid tables in the kernel (of some text)? */
bool uw_built(struct consumer *c, pid_t pid)
{
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;

	return uw && proc_of(uw, pid);
}

void uw_gone(struct consumer *c, pid_t pid)
{
	struct uwalk *uw = c->bpf ? c->bpf->uw : NULL;
	uint32_t key = (uint32_t)pid;
	struct uw_proc *pr;

	if (!uw)
		return;
	(void)bpf_map_delete_elem(uw->px, &key);
	(void)bpf_map_delete_elem(uw->seen, &key);
	if (!(pr = proc_of(uw, pid)))
		return;
	slot_put(uw, pr->slot);
	*pr = uw->procs[--uw->nprocs];
}
