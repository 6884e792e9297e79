/* SPDX-License-Identifier: MIT */
/*
 * x86site.h - probe call sites in x86-64 machine code: what the compiler
 * emitted, what `dtrace -G` writes over it, and the argument locations a
 * tracer reads at the rewritten site.
 */
#ifndef USDT_X86SITE_H
#define USDT_X86SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prov.h"
#include "site.h"

/*
 * The kinds of site (site.h) on x86-64:
 *	SITE_CALL	e8 rel32: call
 *	SITE_JMP	e9 rel32: tail call
 *	SITE_GOTCALL	ff 15 disp32: call *sym@GOTPCREL(%rip)
 *	SITE_GOTJMP	ff 25 disp32: jmp *sym@GOTPCREL(%rip)
 */

/*
 * The probe stub every `dtrace -h` header defines for each probe (and the
 * -G output too, for objects built against older headers): a hidden
 * COMDAT function __dtrace_<provider>___<probe> whose first instruction
 * is the probe site, the 4-byte NOP -G also writes first (x86site.c:
 * never a single 5-byte NOP), then a 1-byte NOP and `ret`.  A call -G
 * never rewrote lands here; at the entry the arguments are where the
 * caller put them, as at a tail-call site (SITE_JMP: the return address
 * at 0(%rsp)).  The uprobe traps and is emulated, writing nothing on
 * the user stack, so the red zone is safe as well.
 *
 * Headers of older releases wrote the 5-byte NOP; -G still recognises
 * their stubs (X86_OLD_STUB_BYTES), so calls to them are rewritten.
 */
#define X86_STUB_BYTES { 0x0f, 0x1f, 0x40, 0x00, 0x90, 0xc3 }
#define X86_OLD_STUB_BYTES { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 }
#define X86_STUB_SIZE 6
#define X86_STUB_KIND SITE_JMP

/*
 * Classify the site a relocation of type rtype at r_offset belongs to;
 * 0 or -EINVAL with the reason in msg.  For a relocation already
 * neutralised by an earlier run (R_X86_64_NONE) the site starts at
 * r_offset, the addend holds its mark, and the bytes must be the
 * replacement the mark names.
 */
int x86_site_classify(const uint8_t *sec, size_t secsize, uint32_t rtype,
		      uint64_t r_offset, int64_t addend, bool is_enabled,
		      struct probe_site *site, char *msg, size_t msglen);

/*
 * The r_addend -G stores in a site's neutralised relocation, which tells
 * a later run what the site was ("sdt" and the kind).
 */
#define X86_SITE_MARK 0x5d7e0000LL
int64_t x86_site_mark(const struct probe_site *site);

/* The bytes that replace the site (site->len of them). */
const uint8_t *x86_site_patch(const struct probe_site *site);

/*
 * Check, decoding with binutils' disassembler as far as the sites need
 * (linearly from the function start, once per function however many
 * sites it holds), that a site of len bytes at section offset `at`
 * starts on an instruction boundary and ends on one, and, if one_insn,
 * that it is a single instruction.  Returns 0, -EINVAL with the reason
 * in msg, or -ENOTSUP when usdt-sdk was built without libopcodes (the
 * byte patterns are still checked by x86_site_classify).
 */
int x86_insns_check(struct site_insns *m, uint64_t at, unsigned len,
		    bool one_insn, char *msg, size_t msglen);

/* 0 if binutils' disassembler can be used, else -ENOTSUP and msg. */
int x86_disasm_available(char *msg, size_t msglen);

/* Disassemble len bytes into text ("ret; nopl 0x0(%rax)"); "" if unable. */
void x86_insn_text(const uint8_t *code, size_t len, char *buf, size_t buflen);

/*
 * The stapsdt argument spec of argument i (0-based) of type t at a site
 * of the given kind: "-4@%edi", "8@%rsi", "-4@8(%rsp)".  Arguments 1-6
 * are in registers; 7-12 on the stack, one 8-byte slot each, above the
 * return address at a tail-call site (where the caller's frame is gone).
 */
int x86_arg_spec(const struct prov_type *t, unsigned i,
		 enum site_kind kind, char *buf, size_t len);

/* Counts the specs of a note's argument string; -EINVAL if malformed. */
int x86_arg_count(const char *args);

/* The x86-64 entry of site.h's table. */
extern const struct site_arch site_arch_x86_64;

#endif /* USDT_X86SITE_H */
