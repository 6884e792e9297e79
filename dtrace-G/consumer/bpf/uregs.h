/* SPDX-License-Identifier: MIT */
/*
 * uregs.h - where the tracing backends find each register a stapsdt
 * note names, per machine: its byte offset in the thread's struct
 * pt_regs (a uprobe's BPF context: cgen.c's programs, usdt.bpf.c) and
 * its name in a uprobe_events fetch argument (uprobe.c).  The one place
 * for those facts; plain macros, so that clang -target bpf and the host
 * compiler read the same numbers.
 *
 * Registers are numbered as the machine's stapsdt parser numbers them
 * (sdk/stapsdt.h), then the instruction pointer:
 *
 *	x86-64	rax rdx rcx rbx rsi rdi rbp rsp r8-r15 (the DWARF order,
 *		UBPF_R_*), rip 16; struct pt_regs as ptrace lays it out
 *		(usdt.bpf.c's struct ureg checks the offsets)
 *	aarch64	x0-x30, sp 31 (the DWARF order), pc 32; struct
 *		user_pt_regs { regs[31], sp, pc, pstate }, which is where
 *		arm64's struct pt_regs starts (checked against the cross
 *		sysroot's <asm/ptrace.h> in tests/run-arm64.sh)
 *
 * UREG_* without a machine are the host's: the machine dtrace runs on
 * and the BPF programs it loads (clang -target bpf says which through
 * __TARGET_ARCH_arm64, as libbpf's headers expect; configure passes it
 * on an aarch64 host).  usdt_bpf.h's UBPF_R_SP, UBPF_R_IP and UBPF_NREG
 * are these.
 */
#ifndef USDT_UREGS_H
#define USDT_UREGS_H

/*
 * x86-64.  _N counts the registers, _SP and _IP are register numbers;
 * UREG_X86_64_<reg> is a register's offset (_SP_OFF and _IP_OFF for sp
 * and ip), which usdt.bpf.c's assembly needs one at a time.
 */
#define UREG_X86_64_N 17
#define UREG_X86_64_SP 7
#define UREG_X86_64_IP 16
#define UREG_X86_64_AX 80
#define UREG_X86_64_DX 96
#define UREG_X86_64_CX 88
#define UREG_X86_64_BX 40
#define UREG_X86_64_SI 104
#define UREG_X86_64_DI 112
#define UREG_X86_64_BP 32
#define UREG_X86_64_SP_OFF 152
#define UREG_X86_64_R8 72
#define UREG_X86_64_R9 64
#define UREG_X86_64_R10 56
#define UREG_X86_64_R11 48
#define UREG_X86_64_R12 24
#define UREG_X86_64_R13 16
#define UREG_X86_64_R14 8
#define UREG_X86_64_R15 0
#define UREG_X86_64_IP_OFF 128
#define UREG_X86_64_OFFSETS                                                \
	{ UREG_X86_64_AX,     UREG_X86_64_DX,  UREG_X86_64_CX,              \
	  UREG_X86_64_BX,     UREG_X86_64_SI,  UREG_X86_64_DI,              \
	  UREG_X86_64_BP,     UREG_X86_64_SP_OFF, UREG_X86_64_R8,           \
	  UREG_X86_64_R9,     UREG_X86_64_R10, UREG_X86_64_R11,             \
	  UREG_X86_64_R12,    UREG_X86_64_R13, UREG_X86_64_R14,             \
	  UREG_X86_64_R15,    UREG_X86_64_IP_OFF }
#define UREG_X86_64_NAMES                                                \
	{ "ax", "dx", "cx", "bx", "si", "di", "bp", "sp", "r8", "r9",     \
	  "r10", "r11", "r12", "r13", "r14", "r15", "ip" }

/*
 * aarch64: x0-x30 at 8 * n, then sp and pc; pstate after them (the
 * mode: EL0, user mode, where its M[3:0] is 0; PSR_MODE32_BIT 0x10 an
 * AArch32 task)
 */
#define UREG_A64_N 33
#define UREG_A64_SP 31
#define UREG_A64_IP 32
#define UREG_A64_PSTATE_OFF 264
#define UREG_A64_MODE_MASK 0xf
#define UREG_A64_OFFSETS                                                  \
	{ 0,   8,   16,  24,  32,  40,  48,  56,  64,  72,  80,  88,  96,  \
	  104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, \
	  208, 216, 224, 232, 240, 248, 256 }
#define UREG_A64_NAMES                                                    \
	{ "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",   \
	  "x9",  "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",  \
	  "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26",  \
	  "x27", "x28", "x29", "x30", "sp",  "pc" }

#if defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
#define UREG_N UREG_A64_N
#define UREG_SP UREG_A64_SP
#define UREG_IP UREG_A64_IP
#define UREG_OFFSETS UREG_A64_OFFSETS
#define UREG_NAMES UREG_A64_NAMES
#else
#define UREG_N UREG_X86_64_N
#define UREG_SP UREG_X86_64_SP
#define UREG_IP UREG_X86_64_IP
#define UREG_OFFSETS UREG_X86_64_OFFSETS
#define UREG_NAMES UREG_X86_64_NAMES
#endif

#endif /* USDT_UREGS_H */
