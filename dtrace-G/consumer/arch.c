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
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
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

#endif
