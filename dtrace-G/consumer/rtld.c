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
 * by ptrace after its exec, gets a breakpoint (int3) on that function's
 * first byte; each hit is stepped over by doing what the function does,
 * a `ret` (rip from the stack, rsp + 8), so the breakpoint never has to
 * be lifted while the process runs; the first hit with RT_CONSISTENT
 * after one with RT_ADD (the state starts RT_CONSISTENT, and an LD_AUDIT
 * module's namespace reports earlier) leaves the process stopped there
 * with the function's byte back.  Only an x86-64 ld.so is taken.
 * Only a function that is exactly `ret` (or `endbr64; ret`) is taken:
 * another body could not be stepped over by emulating it.
 *
 * The addresses come from ld.so's own ELF symbols (dynsym), ld.so being
 * the file /proc/PID/maps shows at AT_BASE.  A static executable (no
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

#include "consumer_impl.h"

/* One word of a process's auxv: AT_BASE, AT_ENTRY ...; 0 if absent. */
uint64_t proc_auxv(pid_t pid, uint64_t type)
{
	char p[64];
	size_t len;
	uint64_t *v, val = 0;

	snprintf(p, sizeof(p), "/proc/%d/auxv", (int)pid);
	v = (uint64_t *)(void *)read_file(p, &len);
	if (!v)
		return 0;
	for (size_t i = 0; i + 1 < len / 8; i += 2)
		if (v[i] == type)
			val = v[i + 1];
	free(v);
	return val;
}

/* The path of the file mapped at `start` in pid. */
static char *mapped_at(pid_t pid, uint64_t start)
{
	char p[64], *maps, *line, *save = NULL, *path = NULL;
	size_t len;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	maps = read_file(p, &len);
	if (!maps)
		return NULL;
	for (line = strtok_r(maps, "\n", &save); line && !path;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long lo;
		char *slash = strchr(line, '/');

		if (sscanf(line, "%llx-", &lo) == 1 && lo == start && slash)
			path = xstrdup(slash);
	}
	free(maps);
	return path;
}

/*
 * Link-time values of ld.so's _dl_debug_state and _r_debug, the lowest
 * PT_LOAD address (the load bias is AT_BASE less it) and, with brk_off,
 * _dl_debug_state's file offset (where dlhold.c puts its uprobe).
 */
int rtld_ldso_symbols(const char *path, uint64_t *brk, uint64_t *rdebug,
		      uint64_t *lo, uint64_t *brk_off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nph;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	/* the offsets and the emulated `ret` are x86-64's */
	if (!e || gelf_getclass(e) != ELFCLASS64 ||
	    !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getphdrnum(e, &nph) != 0) {
		err = -ENOTSUP;
		goto out;
	}
	*lo = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_vaddr & ~(uint64_t)0xfff) < *lo)
			*lo = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	*brk = *rdebug = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, "_dl_debug_state"))
				*brk = s.st_value;
			else if (n && !strcmp(n, "_r_debug"))
				*rdebug = s.st_value;
		}
	}
	if (*brk && *rdebug && *lo != UINT64_MAX)
		err = 0;
	for (size_t i = 0; !err && brk_off && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    *brk >= ph.p_vaddr && *brk < ph.p_vaddr + ph.p_filesz) {
			*brk_off = *brk - ph.p_vaddr + ph.p_offset;
			break;
		}
		if (i + 1 == nph)
			err = -ENOENT;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* rip = pop(): what `ret` does. */
static int emulate_ret(pid_t pid)
{
	struct user_regs_struct regs;
	long ra;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		return -1;
	errno = 0;
	ra = ptrace(PTRACE_PEEKDATA, pid, (void *)regs.rsp, NULL);
	if (errno)
		return -1;
	regs.rip = (uint64_t)ra;
	regs.rsp += 8;
	return ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0 ? -1 : 0;
}

int rtld_run_to_consistent(pid_t pid, bool *exited)
{
	uint64_t base = proc_auxv(pid, AT_BASE), brk = 0, rdebug = 0, lo = 0;
	uint64_t at, st_at;
	unsigned char body[8];
	char *path;
	long orig, bp;
	int st;
	size_t skip;

	*exited = false;
	if (!base)
		return -ENOENT;
	path = mapped_at(pid, base);
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
	skip = memcmp(body, "\xf3\x0f\x1e\xfa", 4) == 0 ? 4 : 0;
	if (body[skip] != 0xc3)
		return -ENOTSUP; /* not an empty function */
	bp = (orig & ~0xffL) | 0xcc;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)bp) < 0)
		return -errno;
	for (int sig = 0, added = 0;;) {
		struct user_regs_struct regs;
		long state;

		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(pid, &st, 0) < 0)
			goto fail;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*exited = true;
			return -ESRCH;
		}
		sig = WSTOPSIG(st);
		if (sig != SIGTRAP ||
		    ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0 ||
		    regs.rip != at + 1)
			continue; /* not ours: deliver it */
		sig = 0;
		errno = 0;
		state = ptrace(PTRACE_PEEKDATA, pid, (void *)st_at, NULL);
		if (errno || emulate_ret(pid) < 0)
			goto fail;
		/*
		 * r_state starts RT_CONSISTENT: an LD_AUDIT module's
		 * namespace can report before dl_main's RT_ADD
		 */
		added |= (int)state == RT_ADD;
		if (added && (int)state == RT_CONSISTENT)
			break;
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig) < 0)
		goto fail;
	return 0;
fail:
	/* the caller kills it: a stray int3 would crash it anyway */
	return -EIO;
}
