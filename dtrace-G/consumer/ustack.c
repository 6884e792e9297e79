// SPDX-License-Identifier: MIT
/*
 * ustack.c - user stacks: ustack() and ucaller need the stack of the
 * thread that hit the probe, and ufunc(), umod(), usym(), uaddr() and
 * printf's %A the modules of its process.  Here: what a hit captured,
 * the processes' modules, and the unwinding; usym.c names addresses.
 *
 * Capture.  Unwinding cannot wait until dtrace reads the record: by
 * then the thread has run on and its stack holds other frames.  Nor can
 * it be done in the kernel by following frame pointers: Debian builds
 * with -O2, which omits them, so the return addresses are found only
 * through the call frame information (.eh_frame) of each module.  So a
 * hit whose clauses read the stack (D_NEED_USTACK) carries the thread's
 * user registers and a copy of its stack from its stack pointer (rsp,
 * arm64's sp) up, -x ustacksize bytes (8 KiB unless set, at most
 * 16 KiB: deeper frames are read from
 * the live process while it lives, below; such records are large, so
 * -x bufsize defaults to 4 times its usual size, ustack_bufsize()):
 *  - bpf backend: bpf/usdt.bpf.c appends them to the record (flag
 *    UBPF_RF_USTACK; usdt_bpf.h has the layout), reading the stack a
 *    page at a time from the stack pointer, so a copy stops where the
 *    stack ends, and so does a generated program (cgen_ustk.c's
 *    ustack_copy());
 *    the kernel providers' programs (bpf/kprov.bpf.h) append the same
 *    from the thread's user-mode registers (arm64's into the per-CPU
 *    uregs_buf);
 *  - uprobe backend: the perf events sample PERF_SAMPLE_REGS_USER and
 *    PERF_SAMPLE_STACK_USER (ustack_perf_attr()), which follow the raw
 *    data in each sample (ustack_perf_decode());
 *  - fasttrap backend: the module takes no stacks; fasttrap.c refuses
 *    such a program, naming the backend.
 * decode() leaves what it found in c->ucap (registers in the DWARF
 * order of the machine dtrace runs on, consumer_impl.h's USTACK_*;
 * the copy's bytes in the record), and ustack_fire() hands
 * the D program the callbacks of struct d_fire for that hit, and the
 * registers themselves for uregs[].
 *
 * Processes.  A struct us_proc (ustack.h) holds a libdwfl session with
 * the modules of one process, reported from its /proc/PID/maps text
 * (dwfl_linux_proc_maps_report()), made when a hit of the process first
 * asks.  The text is the process's own while it lives; a process that
 * exited before its hits were read (a zombie's maps are empty) uses
 * the text sites.c read last (struct tproc's maps, kept until the
 * process's records are read); a forked child known only through the
 * fork tree, its parent's (it maps what its parent did at the fork).
 * A session is of one text of one image of its process: a hit recorded
 * before an exec() and read after must be named with the modules of
 * the image that fired it, not those /proc/PID/maps lists by then.  So
 * each text carries when it was read (CLOCK_MONOTONIC, the hits' clock),
 * and a hit at t takes the sessions whose text was read between the
 * exec() before t and the next one (lin_image(): lineage.c's COMM exec
 * records); ustack_proc_exec() keeps sites.c's last text of the image
 * a process leaves.  Within an image, the files mapped change too (a
 * library dlclose()d and another dlopen()ed at its address while hits
 * wait to be read): each text whose files differ is kept
 * (ustack_maps_read(), from sites.c's reads, and bracket()'s own), and
 * an address of a hit is named from the text that maps there the file
 * the fork tracker's records say was mapped there at the hit
 * (mapped_at(): uprobe.c asks the tracker for PERF_RECORD_MMAP2 of each
 * executable mapping when a clause reads stacks, stamped on the hits'
 * clock), so a library swapped out and back between two reads is told
 * apart; where the records cannot say (a process not tracked from
 * before the texts, records lost), from the texts read last before it
 * and first after it where they agree there, or where dlhold.c dates
 * the change (pick()); otherwise, or where no text maps the file the
 * records name, its frame is given as an address, said once per
 * process (doc/DESIGN.md §13, "Mapping changes").  A left image's
 * session is frozen: no live maps or memory (both the new image's).  An
 * image left before any text of it was read is refused (said once),
 * never named from another.  An exec() whose COMM record the tracker
 * holds but dtrace has not read yet ends the image as well
 * (uprobe.c's up_trk_exec_unread(), asked by bracket() before it
 * chooses and after each read of its own): the kernel writes it during
 * the exec(), before it maps any file of the new image, so every text
 * that names one was read after it.  Under -x activation=user the new
 * image's maps are read when it asks to be armed (inproc_exec.c), at
 * the in-process path's read, before the tracker's next read: a hit of
 * the old image read before the exec() and named after took that text
 * for its own image's, read after the hit with no exec() known between
 * (mapped_at()), and gave its frames as addresses, or could have named
 * them from a file the new image maps there.  A hit stamped after such
 * an unread exec() (the tracker is read after the hits, so none is
 * expected) is of an image no text is known of: its frames are given as
 * addresses, said once.
 * The module files libdwfl maps may be another user's, who can cut them
 * under it (SIGBUS): the session's find_elf and find_debuginfo are
 * elfsafe.c's, which hand it descriptors nobody else can change.
 * When no text was read since a hit, the maps are read again, at most
 * every 10 ms; and so, while the process lives, after the fork
 * tracker's record of a new executable mapping of a file is read
 * (ustack_mapped_read(): the libraries ld.so maps, a dlopen()), so
 * that hits read once the process is gone (its exit's) have them; a
 * text that changed only in anonymous mappings (the heap, thread
 * stacks) replaces its session's, whose modules stand.
 * ustack_proc_gone() drops the
 * session when consumer.c has read the last records of a traced process
 * that ended; the sessions of other processes (children) are kept up
 * to US_MAXPROCS, the least recently used going first.
 *
 * Unwinding.  dwfl_attach_state() gives each session our thread
 * callbacks instead of ptrace, and a libebl backend of its own, opened
 * from an ELF header of the machine the registers are (attach(): the
 * first module's, which libdwfl would borrow, is freed with the module
 * when an exec() changes the maps): the thread is the hit's, its initial
 * registers the captured ones, and memory reads come from the captured
 * copy, or, for addresses outside it, from the process itself while it
 * is still the same process (process_vm_readv; what lies above the copy
 * belongs to outer frames, which rarely change while the thread runs
 * inner ones).  Where it is not (gone, or a zombie), a walk that ends
 * right after a read of the stack's mapping above the copy is marked cut
 * (s->hit.cut; d/stack.c prints "[truncated: N bytes of stack copied]").
 * dwfl_getthread_frames() then steps frame by frame with the modules'
 * CFI (libdwfl falls back to frame pointers where a module has none).
 * The walk uses the text that names the probe's address; past a frame
 * whose file at the hit is not that text's (or is not known), the next
 * return address would come from another file's CFI: the stack ends
 * there; so too past a frame of a mapping that is not where libdwfl's
 * module has its file's bytes (a file mapped again from another
 * offset: us_mod_at(), through which usym.c names such a frame).  A
 * hit is unwound once however many clauses or ustack() calls read it,
 * as deep as the deepest of them asks.  The first address is where the
 * probe fired, the others are return addresses (usym.c looks up the
 * call before each).
 *
 * Walked in the kernel.  A bpf record may carry the pcs bpf/unw.bpf.c
 * found instead of a copy (UBPF_RF_UPCS: ustack_walk.c's tables, the
 * same CFI, the same bytes): unwind() takes them as the walk above
 * would have given them and cuts and names them the same way.  After
 * walking a copy, it has ustack_walk.c build the kernel's tables of the
 * process from the session that walked it (uw_build()).
 */
#include "config.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../objects/elfsafe.h"
#include "registry.h"
#include "ustack.h"

#define US_DEFAULT_SIZE 8192u
#define US_MAX_SIZE 16384u /* UBPF_USTKMAX: the BPF program's room */
#define US_MAXPROCS 256
#define US_REFRESH_NS 10000000u
#define US_MAXMRECS 4096 /* mapping records kept per process */

/* ------------------------------------------------------------------ */
/* Options */

/* A flag option as d_set_option() took it: set unless a "no" word. */
static bool opt_flag(struct consumer *c, const char *name)
{
	static const char *const off[] = {"no",	 "disable", "disabled",
					  "false", "off",	 "unset", NULL};
	const char *v = c->prog ? d_get_option(c->prog, name) : NULL;

	if (!v)
		return false;
	for (unsigned i = 0; off[i]; i++)
		if (!strcasecmp(v, off[i]))
			return false;
	return true;
}

size_t ustack_size(struct consumer *c)
{
	const char *v = c->prog ? d_get_option(c->prog, "ustacksize") : NULL;
	size_t n;

	/* the D program checked the value (1k to 16k) when it was set */
	if (!v || d_parse_size(v, &n) < 0 || n == 0)
		return US_DEFAULT_SIZE;
	n = (n + 1023) & ~(size_t)1023;
	return n > US_MAX_SIZE ? US_MAX_SIZE : n;
}

/* Does a clause of the program read stacks (D_NEED_USTACK), or
 * name user addresses (D_NEED_USTACK | D_NEED_UNAME: ufunc() and its
 * kin name as of the hit, by the same dating as a stack's frames)? */
static bool needs_any(const struct consumer *c, uint32_t need)
{
	for (unsigned i = 0; c->prog && i < d_nclauses(c->prog); i++)
		if (d_clause_needs(c->prog, i) & need)
			return true;
	return false;
}

static bool ustack_wanted(const struct consumer *c)
{
	return needs_any(c, D_NEED_USTACK);
}

static bool names_wanted(const struct consumer *c)
{
	return needs_any(c, D_NEED_USTACK | D_NEED_UNAME);
}

/*
 * A record with a stack is -x ustacksize bytes more (8 KiB against a
 * few dozen): the default buffer would hold only a few hundred, which a
 * probe firing 64,000 times a second fills between two reads.  Unless
 * -x bufsize says otherwise, a program that reads stacks gets 4 times
 * the default (8 MiB per CPU).
 */
size_t ustack_bufsize(struct consumer *c, size_t dflt)
{
	return ustack_wanted(c) ? 4 * dflt : dflt;
}

/* ------------------------------------------------------------------ */
/* The uprobe backend's samples */

/*
 * perf's user registers, in the order a sample lists them (by bit).
 * arm64's are x0-x28, x29, lr, sp, pc, bits 0 to 32: our order already
 * (US_PERF_ORDER); x86-64's are perf's own order, which US_PERF_ORDER
 * maps the DWARF numbers to.
 */
#if defined(__aarch64__)
#define US_PERF_REGS ((1ULL << (PERF_REG_ARM64_PC + 1)) - 1)
#define US_PERF_ORDER                                                       \
	{ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, \
	  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 }
_Static_assert(PERF_REG_ARM64_SP == USTACK_SP &&
		       PERF_REG_ARM64_PC == USTACK_PC,
	       "arm64's perf registers are uregs.h's order");
#else
#define US_PERF_ORDER                                                       \
	{ 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8 }
#define US_PERF_REGS                                                        \
	((1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_BX) |             \
	 (1ULL << PERF_REG_X86_CX) | (1ULL << PERF_REG_X86_DX) |             \
	 (1ULL << PERF_REG_X86_SI) | (1ULL << PERF_REG_X86_DI) |             \
	 (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) |             \
	 (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_R8) |             \
	 (1ULL << PERF_REG_X86_R9) | (1ULL << PERF_REG_X86_R10) |            \
	 (1ULL << PERF_REG_X86_R11) | (1ULL << PERF_REG_X86_R12) |           \
	 (1ULL << PERF_REG_X86_R13) | (1ULL << PERF_REG_X86_R14) |           \
	 (1ULL << PERF_REG_X86_R15))
#endif

void ustack_perf_attr(struct consumer *c, uint32_t needs,
		      struct perf_event_attr *a)
{
	if (!(needs & D_NEED_USTACK))
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = US_PERF_REGS;
	a->sample_stack_user = (uint32_t)ustack_size(c);
}

/*
 * After the raw data: PERF_SAMPLE_REGS_USER (u64 abi, then a u64 per
 * register of the mask, lowest bit first, unless abi is 0) and
 * PERF_SAMPLE_STACK_USER (u64 size, size bytes, then u64 dyn_size, the
 * bytes really copied, unless size is 0).
 */
bool ustack_perf_decode(const uint8_t *p, size_t len, struct ustack_cap *cap)
{
	/* register n (DWARF's) is perf's sample slot order[n] */
	static const uint8_t order[USTACK_NREGS] = US_PERF_ORDER;
	uint64_t abi, size, dyn = 0, v[USTACK_NREGS];
	size_t off = 8;

	if (len < 8)
		return false;
	memcpy(&abi, p, 8);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return false; /* no user registers (a kernel thread) */
	if (len - off < sizeof(v) + 8)
		return false;
	memcpy(v, p + off, sizeof(v));
	off += sizeof(v);
	memcpy(&size, p + off, 8);
	off += 8;
	if (size) {
		if (size > len - off || len - off - size < 8)
			return false;
		memcpy(&dyn, p + off + size, 8);
		if (dyn > size)
			dyn = size;
	}
	for (unsigned i = 0; i < USTACK_NREGS; i++)
		cap->regs[i] = v[order[i]];
	cap->stack = p + off;
	cap->len = (size_t)dyn;
	cap->pcs = NULL;
	cap->npcs = 0;
	cap->have = true;
	return true;
}

/* ------------------------------------------------------------------ */
/* Unwinding callbacks: the hit's thread, registers and stack copy */

static pid_t us_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct us_proc *up = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = up;
	return up->tid;
}

static bool us_get_thread(Dwfl *dwfl, pid_t tid, void *arg,
			  void **thread_argp)
{
	struct us_proc *up = arg;

	(void)dwfl;
	*thread_argp = up;
	return tid == up->tid;
}

/*
 * x86-64's rip is DWARF register 16, the return-address column, which
 * libdwfl takes the first frame's pc from.  arm64's return-address
 * column is x30 (the link register, which at a probe holds the caller's
 * return address or anything at all): its pc, which DWARF does not
 * number, is given apart, as libebl's aarch64 backend gives it.
 */
static bool us_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct us_proc *up = arg;
	Dwarf_Word regs[USTACK_NREGS];

	for (unsigned i = 0; i < USTACK_NREGS; i++)
		regs[i] = up->cap->regs[i];
#if defined(__aarch64__)
	dwfl_thread_state_register_pc(thread, regs[USTACK_PC]);
	return dwfl_thread_state_registers(thread, 0, USTACK_SP + 1, regs);
#else
	return dwfl_thread_state_registers(thread, 0, USTACK_NREGS, regs);
#endif
}

/*
 * Is [a, a + 8) in the thread's stack: the mapping of maps text m that
 * holds the stack pointer sp, or, where none does (the maps were read
 * before the main thread's stack grew down past sp), the [stack]
 * mapping above sp?
 */
static bool in_stack(const char *m, uint64_t sp, uint64_t a)
{
	unsigned long long slo = 0, shi = 0;

	for (const char *l = m; l && *l;) {
		unsigned long long lo, hi;
		int end = 0;

		if (sscanf(l, "%llx-%llx %*s %*s %*s %*s%n", &lo, &hi,
			   &end) == 2 && end > 0) {
			const char *name = l + end + strspn(l + end, " ");

			if (sp >= lo && sp < hi)
				return a >= sp && a + 8 <= hi;
			/* the name alone, not a file that ends so */
			if (!strncmp(name, "[stack]", 7) &&
			    (name[7] == '\n' || !name[7]) && sp < lo) {
				slo = lo;
				shi = hi;
			}
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return shi && a >= slo && a + 8 <= shi;
}

static bool us_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct us_proc *up = arg;
	const struct ustack_cap *cap = up->cap;
	uint64_t sp = cap->regs[USTACK_SP], v;
	struct iovec l = {&v, sizeof(v)}, r = {(void *)(uintptr_t)addr, 8};

	(void)dwfl;
	up->short_read = false;
	if (addr >= sp && addr - sp <= cap->len && cap->len - (addr - sp) >= 8) {
		memcpy(&v, cap->stack + (addr - sp), 8);
		*result = v;
		return true;
	}
	/* beyond the copy: the live process, if it is still the same one */
	if (up->mem_ok < 0)
		up->mem_ok = !up->frozen && !up->gone && up->start &&
			     reg_proc_alive(up->pid, up->start);
	if (up->mem_ok) {
		ssize_t got = process_vm_readv(up->pid, &l, 1, &r, 1, 0);

		if (got == (ssize_t)sizeof(v)) {
			*result = v;
			return true;
		}
		if (got >= 0 || errno != ESRCH)
			return false; /* an address nothing maps */
		up->mem_ok = 0; /* it exited: a zombie has no memory */
	}
	/*
	 * Bytes the stack's mapping held at the hit, above the copy: the
	 * copy ran out (a read of the live process that fails is an
	 * address nothing maps, the stack's true end or garbage).
	 */
	up->short_read = addr >= sp && addr - sp + 8 > cap->len &&
			 in_stack(up->maps, sp, addr);
	return false;
}

static const Dwfl_Thread_Callbacks us_thread_cb = {
	.next_thread = us_next_thread,
	.get_thread = us_get_thread,
	.memory_read = us_memory_read,
	.set_initial_registers = us_set_initial_registers,
};

/* ------------------------------------------------------------------ */
/* Processes */

static struct ustack_state *state(struct consumer *c)
{
	struct ustack_state *s = c->ust;

	if (s)
		return s;
	s = xcalloc(1, sizeof(*s));
	/* safe descriptors of files another user may cut (elfsafe.c) */
	s->cb.find_elf = dt_dwfl_proc_find_elf;
	s->cb.find_debuginfo = dt_dwfl_find_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	s->mangled = opt_flag(c, "mangled");
	/* the machine of the captured registers: its DWARF numbering */
	memcpy(s->ebl_ehdr.e_ident, ELFMAG, SELFMAG);
	s->ebl_ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	s->ebl_ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	s->ebl_ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	s->ebl_ehdr.e_type = ET_NONE;
#if defined(__aarch64__)
	s->ebl_ehdr.e_machine = EM_AARCH64;
#else
	s->ebl_ehdr.e_machine = EM_X86_64;
#endif
	s->ebl_ehdr.e_version = EV_CURRENT;
	s->ebl_ehdr.e_ehsize = sizeof(s->ebl_ehdr);
	elf_version(EV_CURRENT);
	s->ebl_elf = elf_memory((char *)&s->ebl_ehdr, sizeof(s->ebl_ehdr));
	c->ust = s;
	return s;
}

/*
 * Give session up our thread callbacks.  The libebl backend the walk
 * uses (how many registers a frame has, the return address's column,
 * the frame-pointer fallback) is opened from s->ebl_elf and belongs to
 * the session: left to pick one, dwfl_attach_state() borrows the first
 * module's, which dwfl_report_end() frees with that module when the maps
 * change under it (an exec(): the python3 of pyenv is a bash script),
 * and the next walk read the freed backend (libdw's state_alloc()
 * assertion, or registers counted from garbage).
 */
static void attach(struct ustack_state *s, struct us_proc *up)
{
	up->attached =
		s->ebl_elf && dwfl_attach_state(up->dwfl, s->ebl_elf, up->pid,
						&us_thread_cb, up);
}

static uint64_t start_of(pid_t pid)
{
	uint64_t st = 0;

	return reg_proc_stat(pid, &st, NULL, 0) == 0 ? st : 0;
}

static struct us_proc *proc_lookup(struct ustack_state *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pid == pid)
			return s->procs[i];
	return NULL;
}

/*
 * The maps text of pid's image that an exec() at since loaded, into
 * *maps_t when it was read: its own while it lives (a zombie's is
 * empty), else what sites.c read last if read since, else its parent's
 * (see the top) while it has not exec()d since the fork.  Only for the
 * image it runs now: ustack_proc_exec() kept the text of those it left.
 */
static char *maps_of(struct consumer *c, pid_t pid, uint64_t since,
		     uint64_t *maps_t, uint64_t *maps_tb, unsigned depth)
{
	struct us_proc *pp;
	struct tproc *pr;
	char *m;
	pid_t ppid;

	*maps_tb = now_ns(CLOCK_MONOTONIC);
	m = read_proc(pid, "maps", NULL);
	*maps_t = now_ns(CLOCK_MONOTONIC);
	if (m && *m)
		return m;
	free(m);
	pr = proc_find(c, pid);
	if (pr && pr->maps && pr->maps_t >= since) {
		*maps_t = pr->maps_t;
		*maps_tb = pr->maps_tb;
		return xstrdup(pr->maps);
	}
	ppid = lin_parent(c, pid);
	if (ppid <= 0 || depth >= 16 || since)
		return NULL;
	pp = proc_lookup(state(c), ppid);
	m = pp && pp->maps ? xstrdup(pp->maps)
			   : maps_of(c, ppid, 0, maps_t, maps_tb, depth + 1);
	*maps_t = *maps_tb = 0; /* the fork's: until the child's exec() */
	return m;
}

/* Report the modules of maps text m (libdwfl keeps the unchanged). */
static bool report(struct us_proc *up, const char *m)
{
	FILE *f = fmemopen((void *)(uintptr_t)m, strlen(m), "r");
	int err;

	if (!f)
		return false;
	dwfl_report_begin(up->dwfl);
	err = dwfl_linux_proc_maps_report(up->dwfl, f);
	fclose(f);
	if (dwfl_report_end(up->dwfl, NULL, NULL) != 0)
		err = -1;
	return err == 0;
}

static void proc_free(struct us_proc *up)
{
	if (up->dwfl)
		dwfl_end(up->dwfl);
	us_syms_free(up);
	free(up->lines);
	free(up->maps);
	free(up);
}

/* Drop the least recently used session beyond US_MAXPROCS. */
static void procs_trim(struct ustack_state *s)
{
	size_t old = 0;

	if (s->nprocs < US_MAXPROCS)
		return;
	for (size_t i = 1; i < s->nprocs; i++)
		if (s->procs[i]->used < s->procs[old]->used)
			old = i;
	proc_free(s->procs[old]);
	s->procs[old] = s->procs[--s->nprocs];
}

/*
 * A session of pid from maps text m (taken) of the image since, read
 * from maps_tb to maps_t.
 */
static struct us_proc *proc_new(struct ustack_state *s, pid_t pid, char *m,
				uint64_t since, uint64_t maps_t,
				uint64_t maps_tb)
{
	struct us_proc *up;

	procs_trim(s);
	up = xcalloc(1, sizeof(*up));
	up->pid = pid;
	up->nsyms_all = &s->nsyms_all;
	up->start = start_of(pid);
	up->used = ++s->tick;
	up->since = since;
	up->maps_t = up->t0 = maps_t;
	up->t0b = maps_tb <= maps_t ? maps_tb : 0;
	up->maps = m;
	PUSH(s->procs, s->nprocs, up);
	return up;
}

/* Does maps line l map a file (its name a path, not [heap] or none)? */
static bool file_line(const char *l)
{
	const char *e = strchr(l, '\n'), *p = strchr(l, '/');

	return p && (!e || p < e);
}

/* The next line of maps text *m that maps a file, its length in *n. */
static const char *next_file_line(const char **m, size_t *n)
{
	while (*m && **m) {
		const char *l = *m, *e = strchr(l, '\n');

		*m = e ? e + 1 : NULL;
		if (file_line(l)) {
			*n = e ? (size_t)(e - l) : strlen(l);
			return l;
		}
	}
	return NULL;
}

/*
 * Do maps texts m1 and m2 map the same files at the same places?  Only
 * those are modules: a text that changed only in anonymous mappings
 * (the heap, malloc's arenas, thread stacks) keeps its session.
 */
static bool same_files(const char *m1, const char *m2)
{
	for (;;) {
		size_t n1 = 0, n2 = 0;
		const char *l1 = next_file_line(&m1, &n1);
		const char *l2 = next_file_line(&m2, &n2);

		if (!l1 || !l2)
			return !l1 && !l2;
		if (n1 != n2 || memcmp(l1, l2, n1))
			return false;
	}
}

/*
 * The line of maps text m that maps address x, in *n its length
 * without the range (NULL: none), and the address of its file's offset
 * 0 in *base.
 */
static const char *map_at(const char *m, uint64_t x, size_t *n,
			  uint64_t *base)
{
	for (const char *l = m; l && *l;) {
		unsigned long long lo, hi, off;
		const char *e = strchr(l, '\n');
		int k = 0;

		if (sscanf(l, "%llx-%llx %*s %llx %n", &lo, &hi, &off, &k) ==
			    3 &&
		    k > 0 && x >= lo && x < hi && file_line(l)) {
			*n = (e ? (size_t)(e - l) : strlen(l)) - (size_t)k;
			*base = lo - off;
			return l + k;
		}
		l = e ? e + 1 : NULL;
	}
	return NULL;
}

static uint64_t page_size(void)
{
	static uint64_t pg;

	if (!pg) {
		long v = sysconf(_SC_PAGESIZE);

		pg = v > 0 ? (uint64_t)v : 4096;
	}
	return pg;
}

/*
 * Where module mod (of up's session, holding x) has the byte up's text
 * maps at x: *at, the address libdwfl's bias gives that byte.  libdwfl
 * (dwfl_linux_proc_maps_report()) makes one module of a file's
 * consecutive mappings, its bias from the first, whatever each
 * mapping's offset: right for every mapping as the loader makes them
 * (start - offset = bias + p_vaddr - p_offset of the segment it maps),
 * not for one a process made itself from another offset (mmap() with
 * MAP_FIXED of its file's text from a page further on).  So the line
 * of up's text at x is checked against the ELF's PT_LOAD segments:
 * where one whose file pages hold x's byte is mapped as the loader
 * would, *at = x (every ordinary mapping: libdwfl's answer unchanged);
 * else the byte's segment says where the module has it (p_vaddr +
 * (offset - p_offset) + bias).  false: no segment holds the byte (not
 * a part of the ELF's image: not named).  No line, or no ELF: *at = x,
 * as libdwfl has it.
 */
bool us_mod_at(const struct us_proc *up, Dwfl_Module *mod, uint64_t x,
	       uint64_t *at)
{
	uint64_t base = 0, o, lo, hi, pg = page_size();
	Dwarf_Addr bias = 0;
	size_t n = 0, phnum = 0;
	Elf *elf;
	bool in = false;

	*at = x;
	if (!map_at(up->maps, x, &n, &base) ||
	    !(elf = dwfl_module_getelf(mod, &bias)) ||
	    elf_getphdrnum(elf, &phnum))
		return true;
	o = x - base; /* x's byte's offset in the file */
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* the segment's file pages, as the loader maps them */
		lo = ph.p_offset & -pg;
		hi = (ph.p_offset + ph.p_filesz + pg - 1) & -pg;
		if (o >= lo && o < hi &&
		    base == bias + ph.p_vaddr - ph.p_offset) {
			*at = x; /* as the loader maps it */
			return true;
		}
		if (!in && o >= ph.p_offset && o - ph.p_offset < ph.p_filesz) {
			*at = bias + ph.p_vaddr + (o - ph.p_offset);
			in = true;
		}
	}
	return in;
}

/* up's text's file mappings, in address order (the text's is). */
static void lines_make(struct us_proc *up)
{
	up->lines_made = true;
	for (const char *l = up->maps; l && *l;) {
		unsigned long long lo, hi, off;
		const char *e = strchr(l, '\n');

		if (file_line(l) &&
		    sscanf(l, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
		    lo < hi &&
		    (!up->nlines || up->lines[up->nlines - 1].hi <= lo))
			PUSH(up->lines, up->nlines,
			     ((struct us_line){ lo, hi, off, 0 }));
		l = e ? e + 1 : NULL;
	}
}

/*
 * Is line l (of module mod) where the module has its bytes: every file
 * page it maps in a PT_LOAD segment's file pages, mapped as the loader
 * maps that segment (us_mod_at()'s test, for the whole line)?
 */
static bool line_at_bias(const struct us_line *l, Dwfl_Module *mod)
{
	uint64_t base = l->lo - l->off, o = l->off,
		 end = l->off + (l->hi - l->lo), pg = page_size();
	Dwarf_Addr bias = 0;
	size_t phnum = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	bool more = true;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return true; /* no ELF: libdwfl names nothing there */
	while (o < end && more) {
		more = false;
		for (size_t i = 0; i < phnum && o < end; i++) {
			GElf_Phdr ph;
			uint64_t lo, hi;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD ||
			    base != bias + ph.p_vaddr - ph.p_offset)
				continue;
			lo = ph.p_offset & -pg;
			hi = (ph.p_offset + ph.p_filesz + pg - 1) & -pg;
			if (o >= lo && o < hi) {
				o = hi;
				more = true;
			}
		}
	}
	return o >= end;
}

/*
 * Is x of up's text mapped where the module holding it has its bytes
 * (us_mod_at(), for x's whole mapping)?  Those a module names and
 * unwinds with its own rows; an address of no file mapping or no
 * module, as libdwfl has it.  A binary search and, once per mapping,
 * the ELF's program headers: the walk asks for each frame of each hit.
 */
bool us_at_bias(struct us_proc *up, uint64_t x)
{
	size_t lo = 0, hi;
	struct us_line *l;
	Dwfl_Module *m;

	if (!up->lines_made)
		lines_make(up);
	hi = up->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (up->lines[mid].hi <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == up->nlines || x < up->lines[lo].lo)
		return true;
	l = &up->lines[lo];
	if (!l->at) {
		m = up->dwfl ? dwfl_addrmodule(up->dwfl, x) : NULL;
		l->at = !m || line_at_bias(l, m) ? 1 : -1;
	}
	return l->at > 0;
}

/* Do texts p and q map the same file (or none) at x? */
static bool same_at(const struct us_proc *p, const struct us_proc *q,
		    uint64_t x)
{
	uint64_t bp = 0, bq = 0;
	size_t np = 0, nq = 0;
	const char *lp = map_at(p->maps, x, &np, &bp);
	const char *lq = map_at(q->maps, x, &nq, &bq);

	if (!lp || !lq)
		return !lp && !lq;
	return np == nq && bp == bq && !memcmp(lp, lq, np);
}

/* The last text read of pid's image since (NULL: none). */
static struct us_proc *latest(struct ustack_state *s, pid_t pid,
			      uint64_t since, uint64_t until)
{
	struct us_proc *l = NULL;

	for (size_t i = 0; i < s->nprocs; i++) {
		struct us_proc *up = s->procs[i];

		if (up->pid == pid && up->t0 >= since && up->t0 < until &&
		    (!l || up->t0 > l->t0))
			l = up;
	}
	return l;
}

/*
 * Keep each text sites.c reads of a process, when a clause reads
 * stacks: a hit read later is named from the texts of its time
 * (us_proc_get()), not the one read last.
 */
void ustack_maps_read(struct consumer *c, struct tproc *pr)
{
	struct ustack_state *s;
	uint64_t since, until;
	struct us_proc *l;

	if (!pr->maps || !*pr->maps || !names_wanted(c))
		return;
	s = state(c);
	lin_image(c, pr->pid, pr->maps_t, &since, &until);
	l = latest(s, pr->pid, since, until);
	if (l && same_files(l->maps, pr->maps)) {
		if (pr->maps_t > l->maps_t) {
			free(l->maps); /* the newer stacks' mappings */
			l->maps = xstrdup(pr->maps);
			l->maps_t = pr->maps_t;
		}
		return;
	}
	l = proc_new(s, pr->pid, xstrdup(pr->maps), since, pr->maps_t,
		     pr->maps_tb);
	l->held = pr->held && dlhold_owns(pr->pid);
	l->dated = dlhold_owns(pr->pid);
}

/* The libdwfl session of up's text, made when a hit first asks. */
static bool session_open(struct ustack_state *s, struct us_proc *up)
{
	if (!up->dwfl) {
		up->dwfl = dwfl_begin(&s->cb);
		if (!up->dwfl)
			return false;
		attach(s, up);
		(void)report(up, up->maps);
	}
	return true;
}

/*
 * A read of l's process begins at now: false, unless its pid is
 * another process's now (l->gone from then on).
 */
static bool reused(struct us_proc *l, uint64_t now)
{
	uint64_t st = start_of(l->pid);

	l->refreshed = now;
	if (st && l->start && st != l->start)
		l->gone = true;
	return l->gone;
}

/*
 * Keep text m (taken) of pid's image since, read from maps_tb to
 * maps_t (begun at now), l the image's last text: it replaces l's where
 * both map the same files (the session's modules stand), else it is a
 * text of its own.  The text that holds it.
 */
static struct us_proc *text_keep(struct consumer *c, pid_t pid, uint64_t since,
				 struct us_proc *l, char *m, uint64_t maps_t,
				 uint64_t maps_tb, uint64_t now)
{
	if (l && same_files(m, l->maps)) {
		free(l->maps);
		l->maps = m;
		if (maps_t > l->maps_t)
			l->maps_t = maps_t;
		return l;
	}
	l = proc_new(state(c), pid, m, since, maps_t, maps_tb);
	l->refreshed = now;
	l->dated = dlhold_owns(pid);
	return l;
}

/*
 * The sessions of pid's image at t around t: *b the text read last at
 * or before t, *a the first read after it (NULL: none).  While the
 * process runs the image and no text was read after t, the live maps
 * are read (at most every US_REFRESH_NS): a dlopen() or dlclose() since
 * the last read.  An image left before any text of it was read has
 * none: refused, said once.  A process held at each dlopen() needs no
 * such read: a library mapped since its last text was read at the hold.
 */
static bool bracket(struct consumer *c, pid_t pid, uint64_t t,
		    struct us_proc **b, struct us_proc **a, bool *frozen)
{
	struct ustack_state *s = state(c);
	uint64_t since, until, maps_t, maps_tb, now, xt;
	struct us_proc *l, *k;
	char *m;

	*b = *a = NULL;
	lin_image(c, pid, t, &since, &until);
	/*
	 * An exec() the tracker recorded but dtrace has not read yet ends
	 * the image too: a text read since (sites.c's, at the new image's
	 * ask or its exec stop, or this function's below) is the new
	 * image's.  A hit after it is of an image no text here is of.
	 */
	if (up_trk_exec_unread(c, pid, since, &xt) && xt < until) {
		if (xt <= t) {
			if (!s->exec_said)
				say(c,
				    "pid %d exec()d before a hit whose record "
				    "was read ahead of the exec()'s: that "
				    "hit's frames are given as addresses, not "
				    "named",
				    (int)pid);
			s->exec_said = true;
			return false;
		}
		until = xt;
	}
	*frozen = until != UINT64_MAX;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct us_proc *up = s->procs[i];

		if (up->pid != pid || up->t0 < since || up->t0 >= until)
			continue;
		if (up->t0 <= t) {
			if (!*b || up->t0 > (*b)->t0)
				*b = up;
		} else if (!*a || up->t0 < (*a)->t0) {
			*a = up;
		}
	}
	if (*frozen) {
		if (*a || *b)
			return true;
		if (!s->exec_said)
			say(c,
			    "pid %d exec()d after a hit and before its maps "
			    "were read: that image's stacks and names are "
			    "not known, not given",
			    (int)pid);
		s->exec_said = true;
		return false;
	}
	if (*a)
		return true;
	l = *b;
	/* held at each dlopen(): a library mapped since l ran after a read */
	if (l && l->dated && dlhold_owns(pid))
		return true;
	now = now_ns(CLOCK_MONOTONIC);
	if (l && (l->gone || now - l->refreshed < US_REFRESH_NS))
		return true;
	if (l && reused(l, now))
		return true;
	m = maps_of(c, pid, since, &maps_t, &maps_tb, 0);
	if (!m)
		return *b != NULL;
	/* an exec() since the check above: the text may be the new image's */
	if (up_trk_exec_unread(c, pid, since, &xt)) {
		free(m);
		*frozen = true;
		return *b != NULL;
	}
	k = text_keep(c, pid, since, l, m, maps_t, maps_tb, now);
	if (k != l && maps_t > t)
		*a = k;
	else if (k != l)
		*b = k;
	return true;
}

/* ------------------------------------------------------------------ */
/* The fork tracker's records of executable mappings */

bool ustack_maps_wanted(const struct consumer *c)
{
	return names_wanted(c);
}

/* Every thread of pid carries the fork tracker from t on (uprobe.c). */
void ustack_tracked(struct consumer *c, pid_t pid, uint64_t t)
{
	struct ustack_state *s;

	if (!names_wanted(c))
		return;
	s = state(c);
	for (size_t i = 0; i < s->ntracked; i++)
		if (s->tracked[i].pid == pid)
			return; /* tracked since the first */
	PUSH(s->tracked, s->ntracked, ((struct us_tracked){pid, t, 0}));
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * More than US_MAXMRECS records of tr's process: the older half goes,
 * and the process counts as tracked only from the newest of them on
 * (mapped_at() then dates nothing before it, as if not tracked then).
 */
static void mrecs_trim(struct ustack_state *s, struct us_tracked *tr)
{
	uint64_t *ts = xmalloc(tr->nrecs * sizeof(*ts)), cut;
	size_t n = 0;

	for (size_t i = 0; i < s->nmrecs; i++)
		if (s->mrecs[i].pid == tr->pid)
			ts[n++] = s->mrecs[i].t;
	qsort(ts, n, sizeof(*ts), cmp_u64);
	cut = ts[n / 2];
	free(ts);
	for (size_t i = s->nmrecs; i-- > 0;)
		if (s->mrecs[i].pid == tr->pid && s->mrecs[i].t <= cut) {
			s->mrecs[i] = s->mrecs[--s->nmrecs];
			tr->nrecs--;
		}
	if (tr->t <= cut)
		tr->t = cut + 1;
}

/*
 * A record of a file's executable mapping makes its process's texts
 * stale (ustack_mapped_read()); a record of a process tracked is kept
 * (others date nothing).
 */
void ustack_mapped(struct consumer *c, const struct ustack_mapped *m)
{
	struct ustack_state *s;
	size_t k;

	if (!names_wanted(c))
		return;
	s = state(c);
	for (k = 0; m->file && k < s->nstale && s->stale[k].pid != m->pid;)
		k++;
	if (m->file && k == s->nstale)
		PUSH(s->stale, s->nstale, ((struct us_stale){ m->pid, m->t }));
	else if (m->file && m->t > s->stale[k].t)
		s->stale[k].t = m->t;
	for (size_t i = 0; i < s->ntracked; i++) {
		struct us_tracked *tr = &s->tracked[i];

		if (tr->pid != m->pid)
			continue;
		PUSH(s->mrecs, s->nmrecs, *m);
		if (++tr->nrecs > US_MAXMRECS)
			mrecs_trim(s, tr);
		return;
	}
}

void ustack_mapped_lost(struct consumer *c)
{
	state(c)->mrecs_lost = true;
}

/*
 * The tracker's buffers were drained, so every record written before
 * the newest mapping record of a process is read (its exec()'s COMM
 * among them): the maps of each process whose texts are older than its
 * last new executable mapping are read now, while it lives, into a
 * text of its image (text_keep()), and where the kernel has unwinder
 * tables of it, they are built again from that text: a library ld.so
 * or dlopen() mapped is in its texts and tables before the hits that
 * need them, however late these are read, even when the process is
 * gone by then (its exit's stack).  Not for a process that exec()d
 * since the record (that image's records are its own; an exec() the
 * tracker recorded during the read, not read yet, included:
 * up_trk_exec_unread(), as bracket() asks), nor one whose
 * text was read since, nor one gone (its maps empty): its frames there
 * stay addresses; nor one inside an exec() still (image_laid_out()): the
 * exec()'s own mappings write records, and a text read half-way would
 * be one before the image's first hits that lacks the interpreter
 * those run in, which no record of a process not tracked dates (its
 * names withheld); the interpreter's mappings write the next records.
 */
void ustack_mapped_read(struct consumer *c)
{
	struct ustack_state *s = c->ust;

	for (size_t i = 0; s && i < s->nstale; i++) {
		const struct us_stale *st = &s->stale[i];
		uint64_t since, until, tb, te, xt;
		struct us_proc *l, *up;
		char *m;

		lin_image(c, st->pid, st->t, &since, &until);
		if (until != UINT64_MAX)
			continue;
		l = latest(s, st->pid, since, until);
		tb = now_ns(CLOCK_MONOTONIC);
		if (l && (l->gone || l->refreshed > st->t || reused(l, tb)))
			continue;
		if (!image_laid_out(st->pid))
			continue; /* an exec()'s own mappings, half made */
		m = read_proc(st->pid, "maps", NULL);
		te = now_ns(CLOCK_MONOTONIC);
		/* an exec() since the drain: the text may be the new image's
		 * (bracket()'s test after its read) */
		if (!m || !*m || up_trk_exec_unread(c, st->pid, since, &xt)) {
			free(m);
			continue;
		}
		up = text_keep(c, st->pid, since, l, m, te, tb, tb);
#ifdef HAVE_BPF
		if (up != l && uw_built(c, st->pid) && session_open(s, up))
			uw_build(c, up, st->pid);
#else
		(void)up;
#endif
	}
	if (s)
		s->nstale = 0;
}

/* Does text up map at x the file of record r (none: anonymous)? */
static bool maps_rec(const struct us_proc *up, const struct ustack_mapped *r,
		     uint64_t x)
{
	unsigned maj, min;
	unsigned long long ino;
	uint64_t base = 0;
	size_t n = 0;
	const char *l = up ? map_at(up->maps, x, &n, &base) : NULL;

	if (!up)
		return false;
	if (!r->file)
		return !l;
	return l && sscanf(l, "%x:%x %llu", &maj, &min, &ino) == 3 &&
	       maj == r->maj && min == r->min && ino == r->ino &&
	       base == r->base;
}

/*
 * Which text names x of pid's hit at t (b and a: bracket()'s), from the
 * fork tracker's records.  Every executable mapping (mmap(), or
 * mprotect() making one executable; so each dlopen()) writes one
 * (PERF_RECORD_MMAP2: addresses, device, inode, offset) into the
 * tracker's buffers, stamped after the mapping was made and before the
 * call returns, so before any code there ran; a hit's record is written
 * after the hit, and the tracker's buffers are read after the hits'
 * (bpf.c, uprobe.c's up_drain()).  So for a hit read, every record
 * stamped before it is known, and while the process's every thread
 * carried the tracker (since tracked), the file at x at t is that of
 * the last record at x before t, or, with none since the read of b
 * began, the one b maps there (a library unmapped leaves nothing there
 * that a pc could be in).  1: *out a text that maps that file at x at
 * the same place; 0: the file is known, but no text maps it (swapped in
 * and out between two reads); -1: the records cannot say (not tracked,
 * records lost, or none before the hit nor a text read after it).
 */
static int mapped_at(struct consumer *c, pid_t pid, uint64_t t, uint64_t x,
		     struct us_proc *b, struct us_proc *a, struct us_proc **out)
{
	struct ustack_state *s = state(c);
	const struct ustack_mapped *r = NULL;
	uint64_t trk = 0, since, until;
	bool after = false;

	*out = NULL;
	for (size_t i = 0; i < s->ntracked; i++)
		if (s->tracked[i].pid == pid)
			trk = s->tracked[i].t;
	if (!trk || s->mrecs_lost)
		return -1;
	lin_image(c, pid, t, &since, &until);
	for (size_t i = 0; i < s->nmrecs; i++) {
		const struct ustack_mapped *m = &s->mrecs[i];

		if (m->pid != pid || m->t < since || x < m->lo || x >= m->hi)
			continue;
		if (m->t == t)
			return 0; /* at the hit's very time: not known */
		if (m->t < t && (!r || m->t > r->t))
			r = m;
		else if (m->t > t && a && m->t <= a->t0)
			after = true;
	}
	/* nothing mapped at x since b's read began */
	if (b && b->t0b >= trk && (!r || r->t < b->t0b)) {
		*out = b;
		return 1;
	}
	if (r && r->t >= trk) {
		if (maps_rec(b, r, x))
			*out = b;
		else if (maps_rec(a, r, x))
			*out = a;
		for (size_t i = 0; !*out && i < s->nprocs; i++) {
			struct us_proc *up = s->procs[i];

			if (up->pid == pid && up->t0 >= since &&
			    up->t0 < until && maps_rec(up, r, x))
				*out = up;
		}
		return *out ? 1 : 0;
	}
	/* tracked at t, nothing mapped at x between t and a's read */
	if (!r && a && t >= trk && !after) {
		*out = a;
		return 1;
	}
	return -1;
}

/*
 * Which text names x, of pid's hit at t between the reads of b and a:
 * the one mapped_at() finds from the tracker's records.  Where those
 * cannot say, b's where both map the same file there (device, inode,
 * name, load address) or neither does.  Where they differ, the change
 * is dated only by dlhold.c: where a was read at a held dlopen(), the
 * files new in it had not run, so x was b's; where both were read while
 * every dlopen() of the process was held, a file gone in a was
 * dlclose()d after the hit (its code ran there), and one new in a was
 * mapped before it, without dlopen().  Otherwise which file was mapped
 * at x at the hit is not known: NULL.  Where the records name a file no
 * text maps there, only dlhold.c's dating names x.
 */
static struct us_proc *pick(struct consumer *c, pid_t pid, uint64_t t,
			    struct us_proc *b, struct us_proc *a, uint64_t x)
{
	struct us_proc *up;
	uint64_t base = 0;
	size_t n = 0;
	bool la, lb;
	int k = mapped_at(c, pid, t, x, b, a, &up);

	if (k > 0)
		return up;
	if (!a || !b)
		return k < 0 ? (b ? b : a) : NULL;
	if (a->held)
		return b;
	if (k < 0 && same_at(b, a, x))
		return b;
	la = map_at(a->maps, x, &n, &base) != NULL;
	lb = map_at(b->maps, x, &n, &base) != NULL;
	if (!a->dated || !b->dated || (la && lb))
		return NULL;
	return la ? a : b;
}

/* Tell once per process that a frame's name was withheld. */
static void say_withheld(struct consumer *c, struct ustack_state *s,
			 pid_t pid)
{
	for (size_t i = 0; i < s->nwithheld_said; i++)
		if (s->withheld_said[i] == pid)
			return;
	PUSH(s->withheld_said, s->nwithheld_said, pid);
	say(c,
	    "pid %d mapped another file, or a file again from another "
	    "offset, at an address between two reads of its maps, with "
	    "nothing to date the change or no read of that mapping: frames "
	    "there are given as addresses, not named",
	    (int)pid);
}

/*
 * The session that names address x (a return address already less 1)
 * of pid's hit at t, its modules reported; NULL, said once, where which
 * file was mapped at x at t is not known (pick()).
 */
struct us_proc *us_proc_get(struct consumer *c, pid_t pid, uint64_t t,
			    uint64_t x)
{
	struct ustack_state *s = state(c);
	struct us_proc *b, *a, *up;
	bool frozen;

	if (pid <= 0 || !bracket(c, pid, t, &b, &a, &frozen))
		return NULL;
	up = pick(c, pid, t, b, a, x);
	if (!up) {
		say_withheld(c, s, pid);
		return NULL;
	}
	up->used = ++s->tick;
	up->frozen = frozen;
	return session_open(s, up) ? up : NULL;
}

void ustack_proc_exec(struct consumer *c, pid_t pid, uint64_t t)
{
	struct tproc *pr = proc_find(c, pid);
	struct ustack_state *s = state(c);
	uint64_t since, until;

	if (!pr || !pr->maps || pr->maps_t >= t)
		return;
	lin_image(c, pid, t - 1, &since, &until);
	if (pr->maps_t < since)
		return; /* read before the image it leaves was loaded */
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->pid == pid && s->procs[i]->t0 >= since &&
		    s->procs[i]->t0 < until &&
		    !strcmp(s->procs[i]->maps, pr->maps))
			return; /* a session of that image has its text */
	(void)proc_new(s, pid, xstrdup(pr->maps), since, pr->maps_t,
		       pr->maps_tb);
}

void ustack_proc_gone(struct consumer *c, pid_t pid)
{
	struct ustack_state *s = c->ust;

	if (!s)
		return;
#ifdef HAVE_BPF
	uw_gone(c, pid); /* the kernel's tables of it */
#endif
	/* its mapping records and tracking */
	for (size_t i = s->nmrecs; i-- > 0;)
		if (s->mrecs[i].pid == pid)
			s->mrecs[i] = s->mrecs[--s->nmrecs];
	for (size_t i = s->ntracked; i-- > 0;)
		if (s->tracked[i].pid == pid)
			s->tracked[i] = s->tracked[--s->ntracked];
	/* every image's session */
	for (size_t i = s->nprocs; i-- > 0;)
		if (s->procs[i]->pid == pid) {
			proc_free(s->procs[i]);
			s->procs[i] = s->procs[--s->nprocs];
		}
}

/* ------------------------------------------------------------------ */
/* Unwinding */

struct walk {
	uint64_t *pcs;
	unsigned n, max;
};

static int frame_cb(Dwfl_Frame *st, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(st, &pc, &act) || (w->n && pc == 0))
		return DWARF_CB_ABORT;
	w->pcs[w->n++] = pc;
	return w->n >= w->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * The hit's stack, at most max frames, into s->hit.pcs; s->hit.cut when
 * the walk ended (not by our stop, DWARF_CB_ABORT) right after a read
 * that wanted bytes the copy lacked (us_memory_read()).  libdwfl ends a
 * walk whose return address it cannot read as it ends the outermost
 * frame's (its return address undefined: no read at all), so the read
 * says which it was; the return address is the last register a frame
 * reads (x86-64's DWARF 16), and a frame whose read succeeded clears the
 * flag.
 */
static unsigned walk_with(struct ustack_state *s, struct us_proc **upp,
			  struct us_proc *b, struct us_proc *a, unsigned max,
			  struct us_proc **next)
{
	struct consumer *c = s->hit.c;
	uint64_t pc0 = s->hit.cap.regs[USTACK_PC];
	struct us_proc *up = *upp;
	struct walk w = {s->hit.pcs, 0, max};

	*next = NULL;
	s->hit.cut = false;
	if (s->hit.cap.pcs) { /* walked in the kernel: the pcs, as found */
		if (up && up->attached) {
			w.n = s->hit.cap.npcs < max ? s->hit.cap.npcs : max;
			memcpy(w.pcs, s->hit.cap.pcs, w.n * sizeof(*w.pcs));
		}
		up = w.n ? up : NULL;
	}
	for (int round = 0; up && !s->hit.cap.pcs && round < 2; round++) {
		struct us_proc *o = up == b ? a : b;
		int r;

		if (!up->attached)
			break;
		up->cap = &s->hit.cap;
		up->tid = s->hit.tid > 0 ? s->hit.tid : s->hit.pid;
		up->mem_ok = -1;
		up->short_read = false;
		w.n = 0;
		r = dwfl_getthread_frames(up->dwfl, up->tid, frame_cb, &w);
		up->cap = NULL;
		s->hit.cut = r != DWARF_CB_ABORT && up->short_read && w.n &&
			     w.n < max;
		/*
		 * A walk that ended outside every module of its text, where
		 * the other text around the hit maps the probe's address
		 * alike: a dlopen() between the reads; walk with that one.
		 */
		if (!w.n || w.n >= max || !o ||
		    dwfl_addrmodule(up->dwfl, w.pcs[w.n - 1] - (w.n > 1)) ||
		    !same_at(up, o, pc0) || !session_open(state(c), o))
			break;
		up = o;
	}
	*upp = up;
	if (!w.n)
		return 0;
	/*
	 * Each return address came from the CFI of the module the frame
	 * inside it is in: past a frame whose file at the hit is not the
	 * one the walk's text has there (or is not known), the walk read
	 * another file's CFI, and the frames after it are not given.  Where
	 * another text maps that frame's file (or the last frame's: the
	 * walk may have ended there for the wrong CFI), and the probe's
	 * address alike, the caller may walk again with it (*next).  So
	 * too past a frame of a mapping that is not where libdwfl's bias
	 * has its file (us_at_bias()): its CFI was another offset's.
	 */
	for (unsigned i = 0; i < w.n; i++) {
		uint64_t x = w.pcs[i] - (i > 0);
		struct us_proc *p = pick(c, s->hit.pid, s->hit.t, b, a, x);
		bool same = p == up || (p && same_at(p, up, x));

		if (same && us_at_bias(up, x))
			continue;
		if (p && !same && same_at(p, up, pc0))
			*next = p;
		if (i + 1 < w.n) {
			w.n = i + 1;
			s->hit.cut = false;
		}
		break;
	}
	return w.n;
}

/*
 * The hit's stack: walked (walk_with()) with the text that names the
 * probe's address; where the walk stopped at a frame of a file that
 * text does not map there but another does (a library swapped between
 * two reads, dated by mapped_at()), walked again with that one, and the
 * deeper of the two kept.
 */
static unsigned unwind(struct ustack_state *s, unsigned max)
{
	struct consumer *c = s->hit.c;
	uint64_t pc0 = s->hit.cap.regs[USTACK_PC];
	struct us_proc *up, *b = NULL, *a = NULL, *next = NULL;
	uint64_t *keep = NULL;
	unsigned n, kn = 0;
	bool frozen = false, kcut = false;

	/* the text that names the probe's address unwinds the hit */
	up = us_proc_get(c, s->hit.pid, s->hit.t, pc0);
	if (!up || !bracket(c, s->hit.pid, s->hit.t, &b, &a, &frozen))
		up = NULL;
	n = walk_with(s, &up, b, a, max, &next);
#ifdef HAVE_BPF
	/* the kernel's tables of the process, from the text that unwound
	 * its copy (ustack_walk.c) */
	if (up && n && !s->hit.cap.pcs)
		uw_build(c, up, s->hit.pid);
#endif
	if (next && next != up && session_open(s, next)) {
		keep = xmalloc(n * sizeof(*keep));
		memcpy(keep, s->hit.pcs, n * sizeof(*keep));
		kn = n;
		kcut = s->hit.cut;
		up = next;
		n = walk_with(s, &up, b, a, max, &next);
		if (n < kn) {
			memcpy(s->hit.pcs, keep, kn * sizeof(*keep));
			n = kn;
			s->hit.cut = kcut;
		}
		free(keep);
	}
	if (!n) {
		/* not even the probe's address: no module maps it */
		s->hit.pcs[n++] = pc0;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The D program's callbacks (struct d_fire) */

static unsigned cb_ustack(void *ctx, uint64_t *pcs, unsigned max)
{
	struct ustack_state *s = ctx;
	unsigned n;

	if (!s->hit.cap.have || !max)
		return 0;
	/* once per hit, unless a later call wants more than was walked */
	if (!s->hit.unwound ||
	    (max > s->hit.asked && s->hit.npcs >= s->hit.asked)) {
		if (max > s->hit.cappcs) {
			s->hit.pcs = xrealloc(s->hit.pcs, max,
					      sizeof(*s->hit.pcs));
			s->hit.cappcs = max;
		}
		s->hit.npcs = unwind(s, max);
		s->hit.asked = max;
		s->hit.unwound = true;
	}
	n = s->hit.npcs < max ? s->hit.npcs : max;
	memcpy(pcs, s->hit.pcs, n * sizeof(*pcs));
	s->hit.lastn = n;
	return n;
}

/* The copy's bytes, if the walk that gave every frame ran out of them. */
static size_t cb_ustack_cut(void *ctx)
{
	struct ustack_state *s = ctx;

	if (!s->hit.unwound || !s->hit.cut || s->hit.lastn != s->hit.npcs)
		return 0;
	return s->hit.cap.len;
}

static bool cb_usym(void *ctx, pid_t pid, uint64_t pc, unsigned flags,
		    struct d_usym *out)
{
	struct ustack_state *s = ctx;
	struct us_proc *up;

	memset(out, 0, sizeof(*out));
	if (flags & D_USYM_KERNEL)
		return us_ksym_lookup(s, pc, out);
	up = us_proc_get(s->hit.c, pid, s->hit.t,
			 (flags & D_USYM_RET) && pc ? pc - 1 : pc);
	return up && us_sym_lookup(s->hit.c, up, pc, flags, out);
}

_Static_assert(USTACK_NREGS == D_UREGS_N, "uregs[] reads ustack_cap's regs");

void ustack_fire(struct consumer *c, struct d_fire *f)
{
	struct ustack_state *s = state(c);

	s->hit.c = c;
	s->hit.pid = f->pid;
	s->hit.tid = f->tid;
	s->hit.t = f->timestamp;
	s->hit.cap = c->ucap;
	s->hit.unwound = false;
	s->hit.npcs = s->hit.asked = 0;
	s->hit.cut = false;
	f->ustack = cb_ustack;
	f->ustack_cut = cb_ustack_cut;
	f->usym = cb_usym;
	f->ustack_ctx = s;
	/* uregs[]: the registers taken with the stack, DWARF's order */
	f->uregs = s->hit.cap.have ? s->hit.cap.regs : NULL;
}
