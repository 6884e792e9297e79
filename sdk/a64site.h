/* SPDX-License-Identifier: MIT */
/*
 * a64site.h - probe call sites in aarch64 machine code: what the
 * compiler emitted, what `dtrace -G` writes over it, and the argument
 * locations a tracer reads at the rewritten site (doc/DESIGN.md §4).
 */
#ifndef USDT_A64SITE_H
#define USDT_A64SITE_H

#include "site.h"

/* Instruction words (little-endian in the file, as every aarch64 ELF). */
#define A64_NOP 0xd503201fu	/* nop */
#define A64_RET 0xd65f03c0u	/* ret (x30) */
#define A64_MOV_X0_0 0xd2800000u	/* mov x0, #0 (movz) */
#define A64_BL 0x94000000u	/* bl imm26, under mask A64_B_MASK */
#define A64_B 0x14000000u	/* b imm26 */
#define A64_B_MASK 0xfc000000u

/*
 * The probe stub of `dtrace -h` headers on aarch64: `nop` (the probe
 * site) then `ret`.  At its entry the arguments are where the caller put
 * them, x0-x7 and the stack from [sp]: as at a call site, since a call
 * on aarch64 leaves the return address in x30, not on the stack.
 */
#define A64_STUB_BYTES { 0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6 }
#define A64_STUB_SIZE 8

/* The r_addend of a neutralised relocation: "sdt", kind, is-enabled. */
#define A64_SITE_MARK 0x5d7a0000LL

/*
 * The stapsdt spec of argument i (0-based) of type t: "-4@x1", "8@x7",
 * "-4@[sp, 8]".  Arguments 1-8 are in x0-x7, named by the 64-bit register
 * whatever their size (as gcc's <sys/sdt.h> writes them; the size prefix
 * says how many bytes to read); 9-12 on the stack, one 8-byte slot each.
 * Plain `char` is unsigned on aarch64, so its spec has no `-`.
 */
int a64_arg_spec(const struct prov_type *t, unsigned i, enum site_kind kind,
		 char *buf, size_t len);

/* The number of specs in an aarch64 note's argument string, or -EINVAL. */
int a64_arg_count(const char *args);

extern const struct site_arch site_arch_aarch64;

#endif /* USDT_A64SITE_H */
