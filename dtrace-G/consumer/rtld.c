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
 * constructors run; dl_main and dl_open_worker).  The command, stopped
 * by ptrace after its exec, gets a breakpoint (int3; brk on aarch64) on
 * that function's first instruction; each hit is stepped over by doing
 * what the function does, a `ret` (x86-64: rip from the stack, rsp + 8;
 * aarch64: pc = x30), so the breakpoint never has to be lifted while
 * the process runs.  A hardware breakpoint at the same address comes
 * first where the machine gives one (arch_hwbreak()): the software one
 * alone is lost where anyone has a uprobe on that function (dlhold.c's,
 * of another dtrace -c or -p run) and the process any uprobe (a run
 * tracing every process's probes of the same program): the kernel
 * takes the trap for the uprobe's, runs `ret` out of line and the
 * process runs on to its end; the hardware one stops it before the
 * instruction, and the int3 is kept for a machine without one.  The
 * thread stops with the pc at the function (hardware) or past the
 * int3; the first hit with RT_CONSISTENT after one with
 * RT_ADD (the state starts RT_CONSISTENT, and an LD_AUDIT module's
 * namespace reports earlier) leaves the process stopped there with the
 * function's code back.  Only an ld.so of dtrace's own machine is taken,
 * and only a function that is exactly `ret` (or `endbr64; ret`, `bti c;
 * ret`): another body could not be stepped over by emulating it.  The
 * machine's breakpoint, pc and `ret` are arch.c's.
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "consumer_impl.h"
#include "objfile.h"
#include "procfs.h"

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

int rtld_run_to_consistent(pid_t pid, bool *exited)
{
	uint64_t base = 0, brk = 0, rdebug = 0, lo = 0;
	uint64_t at, st_at;
	unsigned char body[8];
	char *path;
	long orig, bp;
	bool hw;
	int st;

	*exited = false;
	if (proc_auxv(pid, AT_BASE, &base) < 0 || !base)
		return -ENOENT;
	path = rtld_mapped_at(pid, base);
	if (!path)
		return -ENOENT;
	st = rtld_ldso_symbols(path, &brk, &rdebug, &lo, NULL);
	free(path);
	if (st)
		return st;
	at = base - lo + brk;
	st_at = base - lo + rdebug + offsetof(struct r_debug, r_state);
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, NULL);
	if (errno)
		return -errno;
	memcpy(body, &orig, sizeof(body));
	if (!arch_empty_function(body, sizeof(body)))
		return -ENOTSUP;	/* not an empty function */
	bp = arch_breakpoint(orig);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)bp) < 0)
		return -errno;
	hw = arch_hwbreak(pid, at) == 0;
	for (int sig = 0, added = 0;;) {
		uint64_t pc;
		long state;

		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(pid, &st, 0) < 0)
			goto fail;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*exited = true;
			return -ESRCH;
		}
		sig = WSTOPSIG(st);
		if (sig != SIGTRAP || arch_get_pc(pid, &pc) < 0 ||
		    (pc != arch_trap_pc(at) && !(hw && pc == at)))
			continue;		/* not ours: deliver it */
		sig = 0;
		errno = 0;
		state = ptrace(PTRACE_PEEKDATA, pid, (void *)st_at, NULL);
		if (errno || arch_return(pid) < 0)
			goto fail;
		/*
		 * r_state starts RT_CONSISTENT: an LD_AUDIT module's
		 * namespace can report before dl_main's RT_ADD
		 */
		added |= (int)state == RT_ADD;
		if (added && (int)state == RT_CONSISTENT)
			break;
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig) < 0 ||
	    (hw && arch_hwbreak(pid, 0) < 0))
		goto fail;
	return 0;
fail:
	/* the caller kills it: a stray breakpoint would crash it anyway */
	return -EIO;
}
