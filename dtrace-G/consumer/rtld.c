// SPDX-License-Identifier: MIT
/*
 * rtld.c - run a held command until the dynamic linker has mapped every
 * library it was linked with, and no further: the point where -c arms.
 *
 * Why.  The executable's entry point comes after the dynamic linker has
 * run every library's constructors (_dl_init, from _dl_start_user): a
 * probe a constructor fires (glib's mem-alloc, 224 hits before main) is
 * gone by then.  Right after exec only the executable and ld.so are
 * mapped; the libraries are not there to arm.
 *
 * How.  The dynamic linker's debugger interface (<link.h>): ld.so calls
 * the empty function _dl_debug_state() each time its list of objects
 * changes, with _r_debug.r_state saying how (RT_ADD while it maps,
 * RT_CONSISTENT once the objects are all mapped, before their
 * constructors run; dl_main and dl_open_worker).  The first hit with
 * RT_CONSISTENT after one with RT_ADD (the state starts RT_CONSISTENT,
 * and an LD_AUDIT module's namespace reports earlier) leaves the
 * process stopped, as it is under ptrace after its exec.  Two ways to
 * stop the command at each hit, the first where the kernel has it:
 *
 *  - A uprobe the kernel owns (hold_event()): a perf event of the
 *    uprobe PMU on that function for the command's thread alone, with
 *    perf_event_attr.sigtrap (Linux 5.13), so each hit sends the thread
 *    a SIGTRAP whose si_code is TRAP_PERF, which puts it in a
 *    signal-delivery-stop as the function returns (the kernel runs the
 *    function's `ret` after the uprobe, and a signal waits for that:
 *    uprobe_deny_signal()).  It is one more consumer of whatever uprobe
 *    is already there: dlhold.c's on ld.so, of another dtrace -c or -p
 *    run, takes nothing from it.  Once the process is held the event
 *    is disabled (no later dlopen() can send the signal, dtrace having
 *    let the process go), and once the commands are let go
 *    (rtld_holds_close(), from consumer.c; for -l, which lets none
 *    go, at once) handed to the closer (fdclose.c's close_after()).
 *    Not before: the close of a uprobe's last perf event waits for
 *    grace periods (45 ms here) under the kernel's event_mutex, which
 *    the start's tracefs reads and writes take (uprobe_ev.c's reap of
 *    dead runs' events waited 28 ms for it: 87 ms from start to exit
 *    of a -c count() against 55).  Not later: a perf event dtrace holds
 *    through the run would be one its command sees in /proc
 *    (run-kprov.sh's "proc on raw tracepoints" lists dtrace's
 *    descriptors).
 *
 *  - A breakpoint (hold_breakpoint(); DTRACE_RTLD_HOLD=breakpoint, and
 *    a kernel without the PMU or sigtrap): an int3 (brk on aarch64) on
 *    the function's first instruction; each hit is stepped over by
 *    doing what the function does, a `ret` (x86-64: rip from the stack,
 *    rsp + 8; aarch64: pc = x30), so the breakpoint never has to be
 *    lifted while the process runs.  A hardware breakpoint at the same
 *    address comes first where the machine gives one (arch_hwbreak()):
 *    the int3 alone is lost where anyone has a uprobe on that function
 *    and the process any uprobe (a run tracing every process's probes
 *    of the same program): the kernel takes the trap for the uprobe's,
 *    runs `ret` out of line and the process runs on to its end.  Not
 *    every machine that takes the debug registers fires them: this
 *    project's VM (Firecracker) takes DR7 and never stops, which is why
 *    the uprobe is the first way.  The thread stops with the pc at the
 *    function (hardware) or past the int3, and is left there with the
 *    function's code back.  Only an ld.so of dtrace's own machine is
 *    taken, and only a function that is exactly `ret` (or `endbr64;
 *    ret`, `bti c; ret`): another body could not be stepped over by
 *    emulating it.  The machine's breakpoint, pc and `ret` are arch.c's.
 *
 * The addresses come from ld.so's own ELF symbols (dynsym), ld.so being
 * the file /proc/PID/maps shows at AT_BASE (/proc/PID/auxv), read
 * through its mapping (procfs.h).  A static executable (no
 * AT_BASE) or an ld.so without the two symbols is left to the caller,
 * which runs to the entry point as before.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "consumer_impl.h"
#include "objfile.h"
#include "procfs.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6 /* <asm-generic/siginfo.h>, Linux 5.13 */
#endif

/*
 * A path that reads the file mapped at `start` in pid (procfs.h: the
 * mapping's own file, even if replaced since), or NULL.
 */
char *rtld_mapped_at(pid_t pid, uint64_t start)
{
	struct proc_maps mm;
	const struct proc_map *m;
	char path[PATH_MAX];
	char *ret = NULL;

	if (proc_maps_read(pid, &mm) < 0)
		return NULL;
	m = proc_maps_find(&mm, start);
	if (m && m->start == start &&
	    proc_map_open_path(path, sizeof(path), pid, m) == 0)
		ret = xstrdup(path);
	proc_maps_free(&mm);
	return ret;
}

/*
 * Link-time values of ld.so's _dl_debug_state and _r_debug, the lowest
 * PT_LOAD address (the load bias is AT_BASE less it) and, with brk_off,
 * _dl_debug_state's file offset (where dlhold.c puts its uprobe).
 */
int rtld_ldso_symbols(const char *path, uint64_t *brk, uint64_t *rdebug,
		      uint64_t *lo, uint64_t *brk_off)
{
	struct objfile of;
	struct elf_syms it;
	const char *n;
	GElf_Sym s;
	int err;

	err = objf_open(&of, path, NULL, 0);
	if (err < 0)
		return err == -EINVAL ? -ENOTSUP : err;
	/* the emulated `ret` is dtrace's own machine's (arch.c) */
	if (of.ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    of.ehdr.e_machine != ARCH_EM) {
		objf_close(&of);
		return -ENOTSUP;
	}
	*lo = UINT64_MAX;
	for (size_t i = 0; i < of.nph; i++)
		if (of.ph[i].p_type == PT_LOAD &&
		    (of.ph[i].p_vaddr & ~(uint64_t)0xfff) < *lo)
			*lo = of.ph[i].p_vaddr & ~(uint64_t)0xfff;
	*brk = *rdebug = 0;
	for (elf_syms_begin(&it, of.elf, of.dynsym);
	     elf_syms_next(&it, &s, &n);) {
		if (s.st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(n, "_dl_debug_state"))
			*brk = s.st_value;
		else if (!strcmp(n, "_r_debug"))
			*rdebug = s.st_value;
	}
	if (*brk && *rdebug && *lo != UINT64_MAX)
		err = 0;
	else
		err = -ENOENT;
	for (size_t i = 0; !err && brk_off && i < of.nph; i++) {
		const GElf_Phdr *ph = &of.ph[i];

		if (ph->p_type == PT_LOAD && *brk >= ph->p_vaddr &&
		    *brk < ph->p_vaddr + ph->p_filesz) {
			*brk_off = *brk - ph->p_vaddr + ph->p_offset;
			break;
		}
		if (i + 1 == of.nph)
			err = -ENOENT;
	}
	objf_close(&of);
	return err;
}

/*
 * The process let run until a stop whose hit of _dl_debug_state is the
 * first RT_CONSISTENT after an RT_ADD: 0, left stopped there.  -ESRCH
 * with *exited where it exited first, -EIO where ptrace failed.  ours()
 * tells the hit's stop (a SIGTRAP) from one of the process's signals,
 * which is delivered; then the state is read at st_at and, for a
 * breakpoint, the `ret` done (step).
 */
static int run_until(pid_t pid, uint64_t st_at, bool *exited,
		     bool (*ours)(pid_t pid, const void *arg), const void *arg,
		     bool step)
{
	int st;

	for (int sig = 0, added = 0;;) {
		long state;

		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(pid, &st, 0) < 0)
			return -EIO;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*exited = true;
			return -ESRCH;
		}
		sig = WSTOPSIG(st);
		if (sig != SIGTRAP || !ours(pid, arg))
			continue; /* not ours: deliver it */
		sig = 0;
		errno = 0;
		state = ptrace(PTRACE_PEEKDATA, pid, (void *)st_at, NULL);
		if (errno || (step && arch_return(pid) < 0))
			return -EIO;
		/*
		 * r_state starts RT_CONSISTENT: an LD_AUDIT module's
		 * namespace can report before dl_main's RT_ADD
		 */
		added |= (int)state == RT_ADD;
		if (added && (int)state == RT_CONSISTENT)
			return 0;
	}
}

/* the events of the holds done, disabled (rtld_holds_close()) */
static int *held_fds;
static size_t nheld;

/* the stop is the uprobe event's signal */
static bool event_stop(pid_t pid, const void *arg)
{
	siginfo_t si;

	(void)arg;
	return ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 &&
	       si.si_code == TRAP_PERF;
}

int rtld_uprobe_pmu_type(void)
{
	char *s = read_file("/sys/bus/event_source/devices/uprobe/type", NULL);
	int t = s ? atoi(s) : -1;

	free(s);
	return t > 0 ? t : -1;
}

/*
 * The uprobe on ld.so's _dl_debug_state (file offset off) as a perf event
 * of pid's thread that sends it SIGTRAP at each hit: fd, or -1 where the
 * kernel makes none (no uprobe PMU; before 5.13, no sigtrap).
 */
static int hold_event(pid_t pid, const char *ldso, uint64_t off)
{
#ifdef PERF_ATTR_SIZE_VER7 /* sigtrap's headers: Linux 5.13 */
	struct perf_event_attr a;
	int type = rtld_uprobe_pmu_type();

	if (type < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (__u32)type;
	a.config1 = (__u64)(uintptr_t)ldso;
	a.config2 = off;
	a.sample_period = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1; /* which sigtrap asks for */
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
#else
	(void)pid;
	(void)ldso;
	(void)off;
	return -1;
#endif
}

/* the stop is the breakpoint's: pc past the int3, or at the hardware's */
struct bp_at {
	uint64_t at;
	bool hw;
};

static bool bp_stop(pid_t pid, const void *arg)
{
	const struct bp_at *b = arg;
	uint64_t pc;

	return arch_get_pc(pid, &pc) == 0 &&
	       (pc == arch_trap_pc(b->at) || (b->hw && pc == b->at));
}

/* the breakpoint way: -ENOTSUP where the function is not empty */
static int hold_breakpoint(pid_t pid, uint64_t at, uint64_t st_at, bool *exited)
{
	unsigned char body[8];
	struct bp_at b = { .at = at };
	long orig, bp;
	int err;

	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, NULL);
	if (errno)
		return -errno;
	memcpy(body, &orig, sizeof(body));
	if (!arch_empty_function(body, sizeof(body)))
		return -ENOTSUP; /* not an empty function */
	bp = arch_breakpoint(orig);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)bp) < 0)
		return -errno;
	b.hw = arch_hwbreak(pid, at) == 0;
	err = run_until(pid, st_at, exited, bp_stop, &b, true);
	if (err)
		return err; /* the caller kills it: a stray int3 would anyway */
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig) < 0 ||
	    (b.hw && arch_hwbreak(pid, 0) < 0))
		return -EIO;
	return 0;
}

int rtld_run_to_consistent(pid_t pid, bool *exited)
{
	uint64_t base = 0, brk = 0, rdebug = 0, lo = 0, off = 0;
	const char *how = getenv("DTRACE_RTLD_HOLD");
	uint64_t at, st_at;
	char *path;
	int st, fd = -1;

	*exited = false;
	if (proc_auxv(pid, AT_BASE, &base) < 0 || !base)
		return -ENOENT;
	path = rtld_mapped_at(pid, base);
	if (!path)
		return -ENOENT;
	st = rtld_ldso_symbols(path, &brk, &rdebug, &lo, &off);
	if (!st && !(how && !strcmp(how, "breakpoint")))
		fd = hold_event(pid, path, off);
	else if (st == -ENOENT) /* no offset, perhaps: the breakpoint */
		st = rtld_ldso_symbols(path, &brk, &rdebug, &lo, NULL);
	free(path);
	if (st)
		return st;
	at = base - lo + brk;
	st_at = base - lo + rdebug + offsetof(struct r_debug, r_state);
	if (fd < 0)
		return hold_breakpoint(pid, at, st_at, exited);
	st = run_until(pid, st_at, exited, event_stop, NULL, false);
	/* no later hit may signal a process dtrace no longer traces */
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) < 0 && !st)
		st = -EIO;
	held_fds = xpush_room(held_fds, nheld, sizeof(*held_fds));
	held_fds[nheld++] = fd;
	return st;
}

void rtld_holds_close(void)
{
	close_after(held_fds, nheld);
	free(held_fds);
	held_fds = NULL;
	nheld = 0;
}
