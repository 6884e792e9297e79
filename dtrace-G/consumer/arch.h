/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what the consumer's ptrace code needs to know of the machine
 * dtrace runs on (x86-64 or aarch64): an empty function's code, a
 * breakpoint, where the program counter is after one, and returning
 * from a function that has done nothing.  One place for those facts;
 * rtld.c and consumer.c use them to run a command to where its
 * libraries are mapped, or to its entry point.
 */
#ifndef USDT_CONSUMER_ARCH_H
#define USDT_CONSUMER_ARCH_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "site.h"
#include "stapsdt.h"

/* the ELF machine of dtrace's own programs (ld.so must be one) */
#define ARCH_EM SITE_HOST_EM

/*
 * Whether the n bytes at body start a function that only returns (a
 * landing pad may come first: endbr64, bti c); 1 or 0.
 */
int arch_empty_function(const unsigned char *body, size_t n);

/* word (read with PTRACE_PEEKTEXT at a function) with its first
 * instruction replaced by a breakpoint */
long arch_breakpoint(long word);

/* the program counter a thread stopped by the breakpoint at `at` shows */
uint64_t arch_trap_pc(uint64_t at);

/* the stopped thread's program counter: 0 or -1 (errno) */
int arch_get_pc(pid_t pid, uint64_t *pc);
int arch_set_pc(pid_t pid, uint64_t pc);

/*
 * What `ret` does, for a stopped thread at the entry of a function that
 * has touched nothing: pc from the return address (x86-64: popped from
 * the stack; aarch64: x30).  0 or -1 (errno).
 */
int arch_return(pid_t pid);

/*
 * An execution breakpoint at `at` in the stopped thread's debug
 * registers (0 clears it), which stops the thread with SIGTRAP, its pc
 * at `at`, before the instruction runs: 0, or -1 (errno) where the
 * machine or kernel has none to give.
 */
int arch_hwbreak(pid_t pid, uint64_t at);

/*
 * The next argument spec of a stapsdt note of this machine: dtrace
 * traces processes of its own machine, whose notes are in its syntax
 * (x86-64's AT&T operands, or aarch64's "-4@x1", "8@[sp, 16]"), the
 * registers numbered as bpf/uregs.h numbers them.  As
 * stapsdt_arg_next().
 */
static inline int arch_arg_next(const char *args, size_t *cursor,
				struct stapsdt_arg *arg,
				struct stapsdt_err *err)
{
#if defined(__aarch64__)
	return stapsdt_a64_arg_next(args, cursor, arg, err);
#else
	return stapsdt_arg_next(args, cursor, arg, err);
#endif
}

#endif /* USDT_CONSUMER_ARCH_H */
