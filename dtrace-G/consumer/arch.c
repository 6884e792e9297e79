// SPDX-License-Identifier: MIT
/*
 * arch.c - the machine facts of the consumer's ptrace code (arch.h), for
 * x86-64 and aarch64, picked when dtrace is compiled.
 *
 * Registers are read and written with PTRACE_GETREGSET/SETREGSET and
 * NT_PRSTATUS, which both machines have (PTRACE_GETREGS is x86's only),
 * into the kernel's struct user_regs_struct: rip and rsp on x86-64, pc,
 * sp and regs[30] (the link register) on aarch64.
 *
 *		breakpoint			pc after it	ret
 *	x86-64	int3 (cc), one byte		at + 1		rip = pop()
 *	aarch64	brk #0 (d4200000), one word	at		pc = x30
 *
 * ptrace writes a whole word: the breakpoint replaces the first byte
 * (x86-64) or the first 4 bytes (aarch64, little-endian) of the word
 * read there, the rest is put back as it was.
 *
 * A hardware breakpoint (an execution breakpoint in the thread's debug
 * registers) stops the thread before the instruction at `at` runs, the
 * pc at `at` on both machines, and is nothing the kernel's uprobes can
 * take for theirs: a software breakpoint at an address where anyone
 * has a uprobe (dtrace's own dlhold.c, on ld.so's _dl_debug_state, for
 * another process) is handled as that uprobe's hit in a process that
 * has any uprobe, and ptrace never sees it (the kernel looks the uprobe
 * up by file and offset, not by process).  x86-64: DR0 the address, DR7
 * its local enable (L0) with RW0 = 00, execution, LEN0 = 00, through
 * PTRACE_POKEUSER into struct user's u_debugreg.  aarch64: the first
 * slot of NT_ARM_HW_BREAK (struct user_hwdebug_state), control word
 * BAS = 0xf (an A64 instruction), type execution, privilege EL0,
 * enabled: 0x1e5.  The kernel keeps the registers while the thread
 * lives, traced or not: whoever sets one clears it.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "arch.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "the consumer runs on x86-64 and aarch64"
#endif

static int regs_get(pid_t pid, struct user_regs_struct *r)
{
	struct iovec io = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) < 0
		       ? -1
		       : 0;
}

static int regs_set(pid_t pid, struct user_regs_struct *r)
{
	struct iovec io = { r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &io) < 0
		       ? -1
		       : 0;
}

#if defined(__x86_64__)

int arch_empty_function(const unsigned char *body, size_t n)
{
	size_t skip = n >= 4 && !memcmp(body, "\xf3\x0f\x1e\xfa", 4) ? 4 : 0;

	return n > skip && body[skip] == 0xc3;	/* [endbr64;] ret */
}

long arch_breakpoint(long word)
{
	return (word & ~0xffL) | 0xcc;
}

uint64_t arch_trap_pc(uint64_t at)
{
	return at + 1;
}

int arch_get_pc(pid_t pid, uint64_t *pc)
{
	struct user_regs_struct r;

	if (regs_get(pid, &r) < 0)
		return -1;
	*pc = r.rip;
	return 0;
}

int arch_set_pc(pid_t pid, uint64_t pc)
{
	struct user_regs_struct r;

	if (regs_get(pid, &r) < 0)
		return -1;
	r.rip = pc;
	return regs_set(pid, &r);
}

int arch_return(pid_t pid)
{
	struct user_regs_struct r;
	long ra;

	if (regs_get(pid, &r) < 0)
		return -1;
	errno = 0;
	ra = ptrace(PTRACE_PEEKDATA, pid, (void *)r.rsp, NULL);
	if (errno)
		return -1;
	r.rip = (uint64_t)ra;
	r.rsp += 8;
	return regs_set(pid, &r);
}

#define DEBUGREG(i)                                                            \
	((void *)(offsetof(struct user, u_debugreg) +                          \
		  (i) * sizeof(((struct user *)0)->u_debugreg[0])))

int arch_hwbreak(pid_t pid, uint64_t at)
{
	int e;

	if (!at) {
		if (ptrace(PTRACE_POKEUSER, pid, DEBUGREG(7), (void *)0) < 0)
			return -1;
		return ptrace(PTRACE_POKEUSER, pid, DEBUGREG(0), (void *)0) < 0
			       ? -1
			       : 0;
	}
	if (ptrace(PTRACE_POKEUSER, pid, DEBUGREG(0), (void *)at) < 0)
		return -1;
	if (ptrace(PTRACE_POKEUSER, pid, DEBUGREG(7), (void *)1L) == 0)
		return 0;
	e = errno;
	(void)ptrace(PTRACE_POKEUSER, pid, DEBUGREG(0), (void *)0);
	errno = e;
	return -1;
}

#else /* __aarch64__ */

static uint32_t word32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int arch_empty_function(const unsigned char *body, size_t n)
{
	size_t skip = n >= 4 && word32(body) == 0xd503245fu ? 4 : 0;

	/* [bti c;] ret */
	return n >= skip + 4 && word32(body + skip) == 0xd65f03c0u;
}

long arch_breakpoint(long word)
{
	return (long)(((unsigned long)word & ~0xffffffffUL) | 0xd4200000UL);
}

uint64_t arch_trap_pc(uint64_t at)
{
	return at;
}

int arch_get_pc(pid_t pid, uint64_t *pc)
{
	struct user_regs_struct r;

	if (regs_get(pid, &r) < 0)
		return -1;
	*pc = r.pc;
	return 0;
}

int arch_set_pc(pid_t pid, uint64_t pc)
{
	struct user_regs_struct r;

	if (regs_get(pid, &r) < 0)
		return -1;
	r.pc = pc;
	return regs_set(pid, &r);
}

int arch_return(pid_t pid)
{
	struct user_regs_struct r;

	if (regs_get(pid, &r) < 0)
		return -1;
	r.pc = r.regs[30];
	return regs_set(pid, &r);
}

int arch_hwbreak(pid_t pid, uint64_t at)
{
	struct {
		uint32_t dbg_info, pad;
		struct {
			uint64_t addr;
			uint32_t ctrl, pad;
		} regs[1];
	} hw = { 0 };
	struct iovec io = { &hw, sizeof(hw) };

	hw.regs[0].addr = at;
	hw.regs[0].ctrl = at ? 0x1e5 : 0;
	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_ARM_HW_BREAK, &io) < 0
		       ? -1
		       : 0;
}

#endif
