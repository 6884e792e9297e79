// SPDX-License-Identifier: MIT
/*
 * a64site.c - recognising, rewriting and describing probe sites in
 * aarch64 objects (see a64site.h, site.h and doc/DESIGN.md §4).
 *
 * What compilers emit for a call to the probe function, and what we
 * write instead (one 4-byte instruction each; the site is the branch):
 *
 *	bl  sym   R_AARCH64_CALL26    nop          d503201f
 *	b   sym   R_AARCH64_JUMP26    ret          d65f03c0
 *
 * and for the legacy is-enabled function, whose result must read 0:
 *
 *	bl  sym   R_AARCH64_CALL26    mov x0, #0   d2800000
 *	b   sym   R_AARCH64_JUMP26    refused
 *
 * A tail call (`b`) to the empty probe function would have returned
 * straight to the caller's caller, through x30, which the tail-calling
 * function has already restored: `ret` does exactly that, in the same 4
 * bytes, and is the probe site, where the arguments are still in x0-x7
 * and on the stack at [sp].  (x86-64 puts a NOP before its `ret`,
 * because a uprobe on `ret` is single-stepped there; arm64 uprobes
 * simulate `ret` without stepping, and there is no room for two
 * instructions anyway.)  An is-enabled tail call would need `mov x0, #0`
 * and `ret`, which do not fit in one instruction, so it is refused with
 * the way out.
 *
 * Every aarch64 instruction is 4 bytes, aligned, so a site's boundaries
 * need no disassembler: the relocation type fixes what the word is, the
 * word's opcode bits are checked against it, and the site must be
 * 4-aligned within its function.  (binutils' libopcodes here is built
 * for x86 only, so it could not decode these anyway.)  The check also
 * marks every word of the function as an instruction start in the
 * site_insns bit set, as x86site.c marks what it decodes, for the pid
 * provider's instruction offsets (dtrace-G/objects/pidfuncs.c).  A
 * rewritten site is marked in its neutralised relocation
 * (R_AARCH64_NONE), as on x86-64: r_offset is the site, r_addend its
 * kind (A64_SITE_MARK).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a64site.h"

#ifndef R_AARCH64_JUMP26
#define R_AARCH64_JUMP26 282
#define R_AARCH64_CALL26 283
#endif

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The replacement word of a site; 0 where there is none. */
static uint32_t patch_word(enum site_kind kind, bool is_enabled)
{
	if (kind == SITE_CALL)
		return is_enabled ? A64_MOV_X0_0 : A64_NOP;
	if (kind == SITE_JMP && !is_enabled)
		return A64_RET;
	return 0;
}

static const uint8_t patches[3][4] = {
	{ 0x1f, 0x20, 0x03, 0xd5 },	/* nop */
	{ 0xc0, 0x03, 0x5f, 0xd6 },	/* ret */
	{ 0x00, 0x00, 0x80, 0xd2 },	/* mov x0, #0 */
};

static const uint8_t *a64_site_patch(const struct probe_site *site)
{
	uint32_t w = patch_word(site->kind, site->is_enabled);

	return w == A64_NOP ? patches[0] : w == A64_RET ? patches[1] :
	       w == A64_MOV_X0_0 ? patches[2] : NULL;
}

static int64_t a64_mark(enum site_kind kind, bool is_enabled)
{
	return A64_SITE_MARK | (int64_t)kind << 1 | (is_enabled ? 1 : 0);
}

static int64_t a64_site_mark(const struct probe_site *site)
{
	return a64_mark(site->kind, site->is_enabled);
}

static int a64_site_classify(const uint8_t *sec, size_t secsize, uint32_t rtype,
			     uint64_t r_offset, int64_t addend, bool is_enabled,
			     struct probe_site *site, char *msg, size_t msglen)
{
	uint32_t w;

	memset(site, 0, sizeof(*site));
	site->is_enabled = is_enabled;
	site->len = 4;
	site->start = r_offset;
	/* no r_offset + 4: a hostile offset near 2^64 would wrap */
	if (r_offset > secsize || secsize - r_offset < 4)
		return site_err(msg, msglen,
				"relocation offset out of the section");
	if (r_offset % 4)
		return site_err(msg, msglen,
				"relocation offset %#llx is not 4-aligned, so not an instruction",
				(unsigned long long)r_offset);
	w = rd32(sec + r_offset);

	if (rtype == R_AARCH64_NONE) {
		/* rewritten by an earlier run */
		for (int k = SITE_CALL; k <= SITE_JMP; k++) {
			if (addend != a64_mark((enum site_kind)k, is_enabled))
				continue;
			if (!patch_word((enum site_kind)k, is_enabled) ||
			    w != patch_word((enum site_kind)k, is_enabled))
				break;
			site->kind = (enum site_kind)k;
			site->rewritten = true;
			return 0;
		}
		return site_err(msg, msglen,
				"neutralised relocation, but the word %08x is not a site rewritten by dtrace -G",
				w);
	}
	if (rtype == R_AARCH64_CALL26) {
		if ((w & A64_B_MASK) != A64_BL)
			return site_err(msg, msglen,
					"the word %08x at an R_AARCH64_CALL26 relocation is not a bl instruction",
					w);
		site->kind = SITE_CALL;
	} else if (rtype == R_AARCH64_JUMP26) {
		if ((w & A64_B_MASK) != A64_B)
			return site_err(msg, msglen,
					"the word %08x at an R_AARCH64_JUMP26 relocation is not a b instruction",
					w);
		site->kind = SITE_JMP;
		if (is_enabled)
			return site_err(msg, msglen,
					"a tail call (b) to an is-enabled probe function cannot be rewritten on aarch64: returning 0 takes two instructions where the call has one; use the header's _ENABLED() macros (dtrace -h), or compile this file with -fno-optimize-sibling-calls");
	} else {
		return site_err(msg, msglen,
				"unexpected relocation type %u for a probe call (only bl through R_AARCH64_CALL26 and b through R_AARCH64_JUMP26 can be rewritten)",
				rtype);
	}
	if (addend != 0)
		return site_err(msg, msglen,
				"relocation addend %lld is not that of a call (0)",
				(long long)addend);
	return 0;
}

static int a64_insns_check(struct site_insns *m, uint64_t at, unsigned len,
			   bool one_insn, char *msg, size_t msglen)
{
	(void)one_insn;	/* a 4-byte site is one instruction */
	/* every whole 4-byte word starts one, for readers of m->starts
	 * (the pid provider's instruction offsets) */
	if (!m->starts) {
		m->starts = calloc(m->fsize / 8 + 1, 1);
		if (!m->starts)
			return site_err(msg, msglen, "out of memory");
		for (uint64_t i = 0; i + 4 <= m->fsize; i += 4)
			m->starts[i / 8] |= (uint8_t)(1u << (i % 8));
		m->pc = m->fstart + (m->fsize & ~(uint64_t)3);
	}
	if (at < m->fstart || at > m->fstart + m->fsize ||
	    len > m->fstart + m->fsize - at)
		return site_err(msg, msglen,
				"the site lies outside its function");
	if ((at - m->fstart) % 4 || len % 4)
		return site_err(msg, msglen,
				"the site is not on an instruction boundary: function offset %#llx is not a multiple of 4",
				(unsigned long long)(at - m->fstart));
	return 0;
}

static int a64_insns_available(char *msg, size_t msglen)
{
	(void)msg;
	(void)msglen;
	return 0;	/* fixed 4-byte instructions: nothing to decode */
}

/* The few instructions sites hold, as text: enough for -v. */
static void a64_insn_text(const uint8_t *code, size_t len, char *buf,
			  size_t buflen)
{
	size_t o = 0;

	if (!buflen)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i + 4 <= len && o + 1 < buflen; i += 4) {
		uint32_t w = rd32(code + i);
		const char *sep = i ? "; " : "";
		int32_t imm = (int32_t)((w & 0x3ffffffu) << 6) >> 6;
		int n;

		if (w == A64_NOP)
			n = snprintf(buf + o, buflen - o, "%snop", sep);
		else if (w == A64_RET)
			n = snprintf(buf + o, buflen - o, "%sret", sep);
		else if (w == A64_MOV_X0_0)
			n = snprintf(buf + o, buflen - o, "%smov x0, #0", sep);
		else if ((w & A64_B_MASK) == A64_BL ||
			 (w & A64_B_MASK) == A64_B)
			n = snprintf(buf + o, buflen - o, "%s%s .%+lld", sep,
				     (w & A64_B_MASK) == A64_BL ? "bl" : "b",
				     (long long)imm * 4);
		else
			n = snprintf(buf + o, buflen - o, "%s.inst %#010x",
				     sep, w);
		if (n < 0 || (size_t)n >= buflen - o)
			break;
		o += (size_t)n;
	}
}

int a64_arg_spec(const struct prov_type *t, unsigned i, enum site_kind kind,
		 char *buf, size_t len)
{
	unsigned size = t->kind == PROV_K_PTR ? 8 : t->size;
	/* plain char is unsigned in the aarch64 ABI (signed on x86-64) */
	bool plain_char = t->cname && (strcmp(t->cname, "char") == 0 ||
				       strcmp(t->cname, "const char") == 0);
	const char *sign = t->kind == PROV_K_INT && t->is_signed &&
			   !plain_char ? "-" : "";
	int n;

	(void)kind;	/* calls and tail calls leave the stack alike */
	/* only integers and pointers travel in x registers and 8-byte slots */
	if ((t->kind != PROV_K_INT && t->kind != PROV_K_PTR) ||
	    (size != 1 && size != 2 && size != 4 && size != 8))
		return -EINVAL;
	if (i < 8)
		n = snprintf(buf, len, "%s%u@x%u", sign, size, i);
	else if (i == 8)
		n = snprintf(buf, len, "%s%u@[sp]", sign, size);
	else
		n = snprintf(buf, len, "%s%u@[sp, %u]", sign, size,
			     (i - 8) * 8);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/*
 * Specs are separated by blanks, but a memory operand holds one too
 * ("[sp, 16]"): count blank-separated words outside brackets, each of
 * which must have its `@`.
 */
int a64_arg_count(const char *args)
{
	int n = 0, depth = 0;
	bool in_word = false, at = false;

	for (const char *p = args;; p++) {
		if (*p == '\0' || (depth == 0 && (*p == ' ' || *p == '\t'))) {
			if (in_word && !at)
				return -EINVAL;
			if (in_word)
				n++;
			in_word = at = false;
			if (*p == '\0')
				break;
			continue;
		}
		in_word = true;
		if (*p == '@')
			at = true;
		else if (*p == '[')
			depth++;
		else if (*p == ']' && --depth < 0)
			return -EINVAL;
	}
	return depth ? -EINVAL : n;
}

static const uint8_t a64_stub[] = A64_STUB_BYTES;

/* bits [lo, lo + w) of x, sign-extended, times 4: a branch offset */
static int64_t a64_off(uint32_t x, unsigned lo, unsigned w)
{
	uint64_t v = (x >> lo) & ((1u << w) - 1);

	if (v & (1ull << (w - 1)))
		v |= ~0ull << w;
	return (int64_t)(v << 2);
}

/*
 * The direct branches: bl and b (imm26), b.cond and bc.cond (imm19),
 * cbz/cbnz (imm19), tbz/tbnz (imm14), each one aligned word.
 */
static enum site_branch a64_branch(const uint8_t *p, size_t n, size_t i,
				   uint64_t addr, uint64_t *to, unsigned *len)
{
	uint32_t w;

	if (n - i < 4 || i % 4)
		return SITE_BR_NONE;
	w = rd32(p + i);
	*len = 4;
	if ((w & A64_B_MASK) == A64_BL || (w & A64_B_MASK) == A64_B) {
		*to = addr + (uint64_t)a64_off(w, 0, 26);
		return (w & A64_B_MASK) == A64_BL ? SITE_BR_CALL
						   : SITE_BR_JUMP;
	}
	if ((w & 0xff000000u) == 0x54000000u ||
	    (w & 0x7e000000u) == 0x34000000u) {
		*to = addr + (uint64_t)a64_off(w, 5, 19);
		return SITE_BR_OTHER;
	}
	if ((w & 0x7e000000u) == 0x36000000u) {
		*to = addr + (uint64_t)a64_off(w, 5, 14);
		return SITE_BR_OTHER;
	}
	return SITE_BR_NONE;
}

const struct site_arch site_arch_aarch64 = {
	.name = "aarch64",
	.machine = EM_AARCH64,
	.r_none = R_AARCH64_NONE,
	.r_abs64 = R_AARCH64_ABS64,
	.r_relative = R_AARCH64_RELATIVE,
	.stub = a64_stub,
	.stub_size = A64_STUB_SIZE,
	.stub_kind = SITE_CALL,
	.inline_nop = patches[0],
	.inline_nop_size = 4,
	.classify = a64_site_classify,
	.mark = a64_site_mark,
	.patch = a64_site_patch,
	.insns_check = a64_insns_check,
	.insns_available = a64_insns_available,
	.insn_text = a64_insn_text,
	.arg_spec = a64_arg_spec,
	.arg_count = a64_arg_count,
	.branch = a64_branch,
	.branch_step = 4,
	.call_push = 0,
};
