/* SPDX-License-Identifier: MIT */
/*
 * stapsdt.h - read SystemTap SDT notes (.note.stapsdt) and their argument
 * specs, from untrusted bytes.
 *
 * `dtrace -G` writes one note per probe site (doc/DESIGN.md §7), <sys/sdt.h>
 * one per STAP_PROBE; bpftrace, perf, gdb and bcc read them.  This is the
 * reader our own consumers and tests share:
 *
 *	stapsdt_note_next()	the notes of a section, one at a time
 *	stapsdt_arg_next()	the argument specs of one note, one at a time
 *	stapsdt_arg_parse()	one spec: "-4@%edi" -> signed, 4 bytes, %rdi
 *	stapsdt_arg_format()	the canonical spelling of a parsed spec
 *	stapsdt_reg_name()	"%edi" for (STAPSDT_REG_RDI, 4)
 *	stapsdt_a64_arg_next(), stapsdt_a64_arg_parse()
 *				the same for an aarch64 note: "-4@x1",
 *				"8@[sp, 16]" -> x1, sp + 16
 *
 * Nothing is copied: names point into the caller's buffer, which must stay
 * unchanged while they are used.  Every length, offset and string is
 * checked against the buffer before it is read, with arithmetic that
 * cannot wrap; a malformed note is an error, never a read outside the
 * buffer.  Functions return 1 (an item), 0 (no more) or a negative errno
 * with the reason in a struct stapsdt_err, like sdk/dof_check.h.
 */
#ifndef USDT_STAPSDT_H
#define USDT_STAPSDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usdt/stapsdt_note.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How the section's file encodes numbers: note headers are always 32-bit
 * words, the three addresses in a note are ELF-class sized.  0 is what
 * `dtrace -G` writes (ELFCLASS64, little-endian).
 */
#define STAPSDT_F_ELF32 0x1 /* 4-byte addresses (ELFCLASS32) */
#define STAPSDT_F_MSB 0x2   /* big-endian (ELFDATA2MSB) */

#define STAPSDT_ERR_MSGLEN 128

struct stapsdt_err {
	int code;     /* the negative errno returned */
	uint64_t off; /* byte offset of the fault: in the section, or in
		       * the argument string for the argument functions */
	char msg[STAPSDT_ERR_MSGLEN]; /* no newline; quotes are sanitised */
};

/* One probe descriptor.  The strings are NUL-terminated, in the buffer. */
struct stapsdt_note {
	uint64_t off;	      /* offset of the note header in the section */
	uint64_t pc;	      /* link-time address of the probe site */
	uint64_t base;	      /* link-time address of .stapsdt.base */
	uint64_t sema;	      /* semaphore address, 0 if none */
	const char *provider; /* non-empty */
	const char *name;     /* non-empty */
	const char *args;     /* argument specs, "" if none */
};

/*
 * Iterate the notes of a note section: start with *cursor = 0; returns 1
 * with *note filled, 0 after the last one, or -EINVAL.  Notes of another
 * owner or type (a section may hold others) are skipped.  On a faulty
 * stapsdt note whose size is sound the cursor has moved past it, so a
 * lenient reader may go on; when the note sizes themselves are broken the
 * cursor jumps to the end.
 *
 * Like <sys/sdt.h>, notes are 4-aligned: a note header is 12 bytes, the
 * owner name and the descriptor are each padded to 4.  A descriptor holds
 * three addresses, then the provider, name and argument strings; bytes
 * after the argument string's NUL (alignment padding) are allowed.
 */
int stapsdt_note_next(const void *sec, size_t len, unsigned int flags,
		      uint64_t *cursor, struct stapsdt_note *note,
		      struct stapsdt_err *err);

/*
 * Registers, numbered as in the x86-64 DWARF ABI (so a consumer can index
 * a DWARF register map with them).  reg_size tells which part was named.
 */
enum stapsdt_reg {
	STAPSDT_REG_NONE = -1,
	STAPSDT_REG_RAX = 0,
	STAPSDT_REG_RDX,
	STAPSDT_REG_RCX,
	STAPSDT_REG_RBX,
	STAPSDT_REG_RSI,
	STAPSDT_REG_RDI,
	STAPSDT_REG_RBP,
	STAPSDT_REG_RSP,
	STAPSDT_REG_R8,
	STAPSDT_REG_R9,
	STAPSDT_REG_R10,
	STAPSDT_REG_R11,
	STAPSDT_REG_R12,
	STAPSDT_REG_R13,
	STAPSDT_REG_R14,
	STAPSDT_REG_R15,
	STAPSDT_REG_RIP,
	STAPSDT_REG_XMM0, /* .. STAPSDT_REG_XMM0 + 15 */
	STAPSDT_REG_XMM15 = STAPSDT_REG_XMM0 + 15,
};

enum stapsdt_arg_kind {
	STAPSDT_ARG_REG,   /* the value is in reg */
	STAPSDT_ARG_MEM,   /* at sym + off + base + index * scale */
	STAPSDT_ARG_CONST, /* the value is sym + off (an immediate, $) */
};

/*
 * One argument spec, `[-]SIZE[f]@OPERAND` in AT&T syntax:
 *
 *	-4@%edi		signed 4 bytes in %rdi (its low half)
 *	8@%r8		8 bytes in %r8; "1@%r8" is its low byte
 *	-4@8(%rsp)	signed 4 bytes at %rsp + 8
 *	8@-24(%rbp,%rax,8)
 *	8@counter+8(%rip)  8 bytes at counter + 8, RIP-relative
 *	-4@$-5		the constant -5
 *	8f@%xmm1	a double in %xmm1 (<sys/sdt.h> marks floats with f)
 *
 * A spec without `SIZE@` (the oldest note version) has size 0.  Sizes
 * are 1, 2, 4, 8 or 16.  Numbers are decimal or 0x hex; a constant may
 * be any 64-bit pattern (off then holds it as two's complement).
 */
struct stapsdt_arg {
	enum stapsdt_arg_kind kind;
	unsigned int size; /* bytes; 0 when the spec gives none */
	bool is_signed;
	bool is_float;
	int reg;		/* REG: the register; MEM: base, or NONE */
	unsigned int reg_size;	/* REG: bytes of the register as named */
	bool reg_hi8;		/* REG: %ah, %bh, %ch or %dh (bits 8-15) */
	int index;		/* MEM: index register, or NONE */
	unsigned int scale;	/* MEM: 1, 2, 4 or 8 (1 without index) */
	int64_t off;		/* MEM: displacement; CONST: the value */
	const char *sym;	/* MEM, CONST: symbol, NULL if none; */
	size_t sym_len;		/*   not NUL-terminated */
	const char *text;	/* the spec in the argument string */
	size_t len;
};

/*
 * Iterate the specs of an argument string (blank-separated): start with
 * *cursor = 0; returns 1 with *arg filled, 0 after the last, or -EINVAL
 * (the cursor is then past the faulty spec).  args must be NUL-terminated
 * (note strings are); err->off is the offset in args.
 */
int stapsdt_arg_next(const char *args, size_t *cursor, struct stapsdt_arg *arg,
		     struct stapsdt_err *err);

/* Parse the len bytes at spec (no blanks) as one spec; 0 or -EINVAL. */
int stapsdt_arg_parse(const char *spec, size_t len, struct stapsdt_arg *arg,
		      struct stapsdt_err *err);

/*
 * aarch64 registers in argument specs, numbered as in the AArch64 DWARF
 * ABI: x0-x30 are 0-30, sp is 31.  Which numbering a struct stapsdt_arg
 * uses follows from the parser that filled it: the note's machine picks
 * the parser, an x86-64 consumer never sees these numbers.
 */
enum stapsdt_a64_reg {
	STAPSDT_A64_X0 = 0,
	STAPSDT_A64_X30 = 30,
	STAPSDT_A64_SP = 31,
};

/*
 * One aarch64 spec, as gcc writes them for <sys/sdt.h> (ours and
 * systemtap's), into the same struct stapsdt_arg:
 *
 *	-4@x1		REG: signed 4 bytes in x1 (reg_size 8; w1 gives 4)
 *	8@sp		REG: sp
 *	-4@[sp, 8]	MEM: signed 4 bytes at sp + 8 ("[sp]", "[x29, -16]",
 *			"[sp, #8]" too)
 *	-4@5		CONST: the constant 5 ("#5" too)
 *
 * The blank after a bracket's comma is part of the spec, so
 * stapsdt_a64_arg_next() splits the string at blanks outside brackets.
 * Anything else (a symbol, `:lo12:`, an index register) is -EINVAL.
 */
int stapsdt_a64_arg_next(const char *args, size_t *cursor,
			 struct stapsdt_arg *arg, struct stapsdt_err *err);
int stapsdt_a64_arg_parse(const char *spec, size_t len,
			  struct stapsdt_arg *arg, struct stapsdt_err *err);

/*
 * The canonical spelling of *arg (numbers in decimal), as gcc writes it;
 * the return value is the length snprintf would give, or -EINVAL.
 */
int stapsdt_arg_format(const struct stapsdt_arg *arg, char *buf, size_t len);

/*
 * AT&T name of a register's part of `size` bytes ("%edi"); hi8 picks
 * %ah..%dh.  NULL when there is no such name.  The low byte of %r8-%r15
 * is "%r8b" here (what gas accepts); note that `dtrace -G` spells it as
 * the whole register with size 1, which gdb understands.
 */
const char *stapsdt_reg_name(int reg, unsigned int size, bool hi8);

#ifdef __cplusplus
}
#endif

#endif /* USDT_STAPSDT_H */
