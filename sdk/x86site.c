// SPDX-License-Identifier: MIT
/*
 * x86site.c - recognising, rewriting and decoding probe sites in x86-64
 * objects: site.h's site_arch_x86_64 (see x86site.h and doc/DESIGN.md
 * §4).
 *
 * What compilers emit for a call to the probe function, and what we
 * write instead (the site starts at the opcode):
 *
 *	call rel32          e8 xx xx xx xx         0f 1f 40 00 90
 *	jmp rel32 (tail)    e9 xx xx xx xx         0f 1f 40 00 c3
 *	call *x@GOTPCREL    ff 15 xx xx xx xx      0f 1f 40 00 66 90
 *	jmp *x@GOTPCREL     ff 25 xx xx xx xx      0f 1f 40 00 c3 90
 *
 * and for the legacy is-enabled function, whose result must read 0:
 *
 *	call rel32          e8 ...                 31 c0 0f 1f 00
 *	jmp rel32           e9 ...                 31 c0 c3 66 90
 *	call *x@GOTPCREL    ff 15 ...              31 c0 0f 1f 40 00
 *	jmp *x@GOTPCREL     ff 25 ...              31 c0 c3 0f 1f 00
 *
 * The probe sits on the first instruction, always the 4-byte NOP
 * 0f 1f 40 00, which the kernel emulates after its trap (no single step).
 * Never a single 5-byte NOP: Linux 6.18 turns a uprobe on any of them
 * (0f 1f 44 00 00, 66 0f 1f 40 00, ...) into a call to a trampoline page
 * it maps into the process at the first hit, and a child forked after
 * that inherits the call but not the page, and dies of SIGSEGV at the
 * site (doc/DESIGN.md §4, tests/run-fork-optimized.sh).  The byte after
 * the NOP fills the site: a 1-byte NOP, or `ret` for a tail call, which
 * is what the probe function would have done; the NOP comes first
 * because a uprobe on `ret` is single-stepped, which measured 14.5 us per
 * hit here against under 1 us on a NOP.
 *
 * Objects an older -G rewrote carry the 5-byte NOP (old_patches); a
 * later run recognises them by their marks and rewrites those sites
 * again with today's bytes, once.
 *
 * A rewritten site is marked in its neutralised relocation: r_offset is
 * the site start and r_addend encodes the kind (x86_site_mark), since the
 * bytes alone cannot tell a tail-call site followed by a 1-byte NOP from
 * a 6-byte GOT tail call.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBOPCODES
#include <dis-asm.h>
#include <dlfcn.h>
#endif

#include "stapsdt.h"
#include "x86site.h"

static const uint8_t patch_call[] = { 0x0f, 0x1f, 0x40, 0x00, 0x90 };
static const uint8_t patch_jmp[] = { 0x0f, 0x1f, 0x40, 0x00, 0xc3 };
static const uint8_t patch_gotcall[] = { 0x0f, 0x1f, 0x40, 0x00, 0x66, 0x90 };
static const uint8_t patch_gotjmp[] = { 0x0f, 0x1f, 0x40, 0x00, 0xc3, 0x90 };
static const uint8_t en_call[] = { 0x31, 0xc0, 0x0f, 0x1f, 0x00 };
static const uint8_t en_jmp[] = { 0x31, 0xc0, 0xc3, 0x66, 0x90 };
static const uint8_t en_gotcall[] = { 0x31, 0xc0, 0x0f, 0x1f, 0x40, 0x00 };
static const uint8_t en_gotjmp[] = { 0x31, 0xc0, 0xc3, 0x0f, 0x1f, 0x00 };

static const struct {
	const uint8_t *bytes;
	unsigned len;
	enum site_kind kind;
	bool is_enabled;
} patches[] = {
	{ patch_call, 5, SITE_CALL, false },
	{ patch_jmp, 5, SITE_JMP, false },
	{ patch_gotcall, 6, SITE_GOTCALL, false },
	{ patch_gotjmp, 6, SITE_GOTJMP, false },
	{ en_call, 5, SITE_CALL, true },
	{ en_jmp, 5, SITE_JMP, true },
	{ en_gotcall, 6, SITE_GOTCALL, true },
	{ en_gotjmp, 6, SITE_GOTJMP, true },
};

/* what -G wrote before the 5-byte NOP was found to break forks */
static const uint8_t old_call[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t old_gotcall[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x90 };
static const uint8_t old_gotjmp[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 };

static const struct {
	const uint8_t *bytes;
	unsigned len;
	enum site_kind kind;
} old_patches[] = {
	{ old_call, 5, SITE_CALL },
	{ old_gotcall, 6, SITE_GOTCALL },
	{ old_gotjmp, 6, SITE_GOTJMP },
};

static int64_t x86_mark(enum site_kind kind, bool is_enabled)
{
	return X86_SITE_MARK | (int64_t)kind << 1 | (is_enabled ? 1 : 0);
}

int64_t x86_site_mark(const struct probe_site *site)
{
	return x86_mark(site->kind, site->is_enabled);
}

const uint8_t *x86_site_patch(const struct probe_site *site)
{
	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++)
		if (patches[i].kind == site->kind &&
		    patches[i].is_enabled == site->is_enabled)
			return patches[i].bytes;
	return NULL;
}

int x86_site_classify(const uint8_t *sec, size_t secsize, uint32_t rtype,
		      uint64_t r_offset, int64_t addend, bool is_enabled,
		      struct probe_site *site, char *msg, size_t msglen)
{
	char hex[32];

	memset(site, 0, sizeof(*site));
	site->is_enabled = is_enabled;

	if (rtype == R_X86_64_NONE) {
		/* rewritten by an earlier run: r_offset is the site start */
		for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
			if (addend != x86_mark(patches[i].kind,
					       patches[i].is_enabled))
				continue;
			if (patches[i].is_enabled != is_enabled ||
			    r_offset > secsize ||
			    secsize - r_offset < patches[i].len ||
			    memcmp(sec + r_offset, patches[i].bytes,
				   patches[i].len) != 0)
				break;
			site->kind = patches[i].kind;
			site->len = patches[i].len;
			site->start = r_offset;
			site->rewritten = true;
			return 0;
		}
		/* an older -G's 5-byte NOP: rewritten again (old) */
		for (size_t i = 0;
		     i < sizeof(old_patches) / sizeof(old_patches[0]); i++) {
			if (is_enabled ||
			    addend != x86_mark(old_patches[i].kind, false) ||
			    r_offset > secsize ||
			    secsize - r_offset < old_patches[i].len ||
			    memcmp(sec + r_offset, old_patches[i].bytes,
				   old_patches[i].len) != 0)
				continue;
			site->kind = old_patches[i].kind;
			site->len = old_patches[i].len;
			site->start = r_offset;
			site->old = true;
			return 0;
		}
		if (r_offset < secsize)
			site_hex(sec + r_offset,
				secsize - r_offset < 6 ? secsize - r_offset : 6,
				hex, sizeof(hex));
		else
			snprintf(hex, sizeof(hex), "(past the section end)");
		return site_err(msg, msglen,
				"neutralised relocation, but the bytes [%s] are not a site rewritten by dtrace -G",
				hex);
	}

	if (rtype == R_X86_64_PC32 || rtype == R_X86_64_PLT32) {
		/* no r_offset + 4: a hostile offset near 2^64 would wrap */
		if (r_offset < 1 || r_offset > secsize || secsize - r_offset < 4)
			return site_err(msg, msglen,
					"relocation offset out of the section");
		site->start = r_offset - 1;
		site->len = 5;
		if (sec[site->start] == 0xe8)
			site->kind = SITE_CALL;
		else if (sec[site->start] == 0xe9)
			site->kind = SITE_JMP;
		else
			goto bad_bytes;
	} else if (rtype == R_X86_64_GOTPCRELX || rtype == R_X86_64_GOTPCREL) {
		if (r_offset < 2 || r_offset > secsize || secsize - r_offset < 4)
			return site_err(msg, msglen,
					"relocation offset out of the section");
		site->start = r_offset - 2;
		site->len = 6;
		if (sec[site->start] == 0xff && sec[site->start + 1] == 0x15)
			site->kind = SITE_GOTCALL;
		else if (sec[site->start] == 0xff && sec[site->start + 1] == 0x25)
			site->kind = SITE_GOTJMP;
		else
			goto bad_bytes;
	} else if (rtype == R_X86_64_REX_GOTPCRELX) {
		return site_err(msg, msglen,
				"the probe function's address is loaded from the GOT into a register (R_X86_64_REX_GOTPCRELX), so its calls cannot be found; this is clang -fno-plt with a header that does not declare probe functions hidden: regenerate the header with dtrace -h, or compile this file without -fno-plt");
	} else {
		return site_err(msg, msglen,
				"unexpected relocation type %u for a probe call (only calls and tail calls through PC32, PLT32 or GOTPCRELX can be rewritten)",
				rtype);
	}
	if (addend != -4)
		return site_err(msg, msglen,
				"relocation addend %lld is not that of a call (-4)",
				(long long)addend);
	return 0;
bad_bytes:
	site_hex(sec + site->start, site->len, hex, sizeof(hex));
	return site_err(msg, msglen,
			"the bytes [%s] at the relocation are not a call or jmp instruction",
			hex);
}

static bool is_start(const struct site_insns *m, uint64_t at)
{
	uint64_t i = at - m->fstart;

	/* where decoding stopped is a boundary, and so is the function's end */
	if (at == m->pc || at == m->fstart + m->fsize)
		return true;
	return at < m->pc && ((m->starts[i / 8] >> (i % 8)) & 1);
}

#ifdef HAVE_LIBOPCODES
struct dis_text {
	char *buf;
	size_t len, used;
};

/*
 * format(printf, 2, 0): clang's -Wformat-nonliteral wants a va_list
 * wrapper marked as one; gcc exempts va_list callers by itself.
 */
static int dis_vprintf(struct dis_text *t, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int dis_vprintf(struct dis_text *t, const char *fmt, va_list ap)
{
	int n;

	if (!t->buf || t->used + 1 >= t->len)
		return 0;
	n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
	if (n > 0)
		t->used += (size_t)n < t->len - t->used ?
			   (size_t)n : t->len - t->used - 1;
	return n;
}

static int dis_printf(void *stream, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int dis_printf(void *stream, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = dis_vprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

static int dis_styled(void *stream, enum disassembler_style style,
		      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int dis_styled(void *stream, enum disassembler_style style,
		      const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)style;
	va_start(ap, fmt);
	n = dis_vprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

/*
 * libopcodes is opened on first use (only -G needs it): linked in, it and
 * the libbfd it needs would cost every dtrace run about a millisecond of
 * relocation at start-up.  OPCODES_SONAME is what configure found.
 */
static struct {
	int state;		/* 0 not tried, 1 loaded, -1 failed */
	char why[256];
	disassembler_ftype (*disassembler)(enum bfd_architecture, bool,
					   unsigned long, bfd *);
	void (*init)(struct disassemble_info *, void *, fprintf_ftype,
		     fprintf_styled_ftype);
	void (*init_target)(struct disassemble_info *);
	int (*read_memory)(bfd_vma, bfd_byte *, unsigned int,
			   struct disassemble_info *);
	disassembler_ftype dis;
} op;

static disassembler_ftype get_disassembler(void)
{
	void *h;

	if (op.state)
		return op.state > 0 ? op.dis : NULL;
	op.state = -1;
	h = dlopen(OPCODES_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(op.why, sizeof(op.why), "%s", dlerror());
		return NULL;
	}
	*(void **)&op.disassembler = dlsym(h, "disassembler");
	*(void **)&op.init = dlsym(h, "init_disassemble_info");
	*(void **)&op.init_target = dlsym(h, "disassemble_init_for_target");
	*(void **)&op.read_memory = dlsym(h, "buffer_read_memory");
	if (!op.disassembler || !op.init || !op.init_target ||
	    !op.read_memory) {
		snprintf(op.why, sizeof(op.why),
			 "%s lacks the disassembler entry points",
			 OPCODES_SONAME);
		return NULL;
	}
	op.dis = op.disassembler(bfd_arch_i386, false, bfd_mach_x86_64, NULL);
	if (!op.dis) {
		snprintf(op.why, sizeof(op.why),
			 "%s has no x86-64 disassembler", OPCODES_SONAME);
		return NULL;
	}
	op.state = 1;
	return op.dis;
}

static void dis_setup(disassemble_info *info, struct dis_text *text,
		      const uint8_t *code, uint64_t vma, size_t len)
{
	op.init(info, text, dis_printf, dis_styled);
	info->arch = bfd_arch_i386;
	info->mach = bfd_mach_x86_64;
	info->buffer = (bfd_byte *)(uintptr_t)code;
	info->buffer_length = len;
	info->buffer_vma = vma;
	info->read_memory_func = op.read_memory;
	op.init_target(info);
}

int x86_disasm_available(char *msg, size_t msglen)
{
	if (get_disassembler())
		return 0;
	snprintf(msg, msglen, "%s", op.why);
	return -ENOTSUP;
}

/* Decode on from m->pc until `upto` (a section offset) is passed. */
static int decode_upto(struct site_insns *m, uint64_t upto, char *msg,
		       size_t msglen)
{
	disassembler_ftype dis = get_disassembler();
	struct dis_text text = { NULL, 0, 0 };
	uint64_t end = m->fstart + m->fsize;
	disassemble_info info;

	if (!dis) {
		snprintf(msg, msglen, "%s", op.why);
		return -ENOTSUP;
	}
	if (!m->starts) {
		m->starts = calloc(m->fsize / 8 + 1, 1);
		if (!m->starts)
			return site_err(msg, msglen, "out of memory");
	}
	dis_setup(&info, &text, m->sec + m->fstart, m->fstart, m->fsize);
	while (m->pc < upto && m->pc < end) {
		int n = dis(m->pc, &info);
		uint64_t i = m->pc - m->fstart;

		if (n <= 0 || m->pc + (uint64_t)n > end)
			return site_err(msg, msglen,
					"cannot decode the instruction at function offset %#llx",
					(unsigned long long)i);
		m->starts[i / 8] |= (uint8_t)(1u << (i % 8));
		m->pc += (uint64_t)n;
	}
	return 0;
}

int x86_insns_check(struct site_insns *m, uint64_t at, unsigned len,
		    bool one_insn, char *msg, size_t msglen)
{
	int err;

	if (at < m->fstart || at + len > m->fstart + m->fsize)
		return site_err(msg, msglen,
				"the site lies outside its function");
	err = decode_upto(m, at + len, msg, msglen);
	if (err)
		return err;
	if (!is_start(m, at)) {
		uint64_t p = at;

		while (p > m->fstart && !is_start(m, p))
			p--;
		return site_err(msg, msglen,
				"the site is not on an instruction boundary: it lies inside the instruction at function offset %#llx",
				(unsigned long long)(p - m->fstart));
	}
	if (!is_start(m, at + len))
		return site_err(msg, msglen,
				"the instructions at the site do not end after %u bytes",
				len);
	for (uint64_t p = at + 1; one_insn && p < at + len; p++)
		if (is_start(m, p))
			return site_err(msg, msglen,
					"the site holds more than one instruction");
	return 0;
}

void x86_insn_text(const uint8_t *code, size_t len, char *buf, size_t buflen)
{
	disassembler_ftype dis = get_disassembler();
	struct dis_text text = { buf, buflen, 0 };
	disassemble_info info;

	if (!buflen)
		return;
	buf[0] = '\0';
	if (!dis)
		return;
	dis_setup(&info, &text, code, 0, len);
	for (uint64_t pc = 0; pc < len;) {
		int n = dis(pc, &info);

		if (n <= 0)
			break;
		pc += (uint64_t)n;
		if (pc < len && text.used + 3 < text.len) {
			memcpy(text.buf + text.used, "; ", 3);
			text.used += 2;
		}
	}
}
#else
int x86_insns_check(struct site_insns *m, uint64_t at, unsigned len,
		    bool one_insn, char *msg, size_t msglen)
{
	(void)m;
	(void)at;
	(void)len;
	(void)one_insn;
	(void)is_start;
	snprintf(msg, msglen, "built without libopcodes");
	return -ENOTSUP;
}

void x86_insn_text(const uint8_t *code, size_t len, char *buf, size_t buflen)
{
	(void)code;
	(void)len;
	if (buflen)
		buf[0] = '\0';
}

int x86_disasm_available(char *msg, size_t msglen)
{
	snprintf(msg, msglen, "usdt-sdk was built without libopcodes");
	return -ENOTSUP;
}
#endif

int x86_arg_spec(const struct prov_type *t, unsigned i,
		 enum site_kind kind, char *buf, size_t len)
{
	/*
	 * SysV argument registers by size: 8, 4, 2, 1 bytes.  The low bytes
	 * of %r8 and %r9 are spelled as the whole register: gdb 13 knows no
	 * %r8b/%r9b and refuses every argument of a note naming one, while
	 * bcc and bpftrace refuse gdb's own %r8l; the size prefix, 1@,
	 * already says to read one byte.
	 */
	static const char *const regs[6][4] = {
		{ "%rdi", "%edi", "%di", "%dil" },
		{ "%rsi", "%esi", "%si", "%sil" },
		{ "%rdx", "%edx", "%dx", "%dl" },
		{ "%rcx", "%ecx", "%cx", "%cl" },
		{ "%r8", "%r8d", "%r8w", "%r8" },
		{ "%r9", "%r9d", "%r9w", "%r9" },
	};
	unsigned size = t->kind == PROV_K_PTR ? 8 : t->size;
	const char *sign = t->kind == PROV_K_INT && t->is_signed ? "-" : "";
	int col, n;

	switch (size) {
	case 8: col = 0; break;
	case 4: col = 1; break;
	case 2: col = 2; break;
	case 1: col = 3; break;
	default: return -EINVAL;
	}
	if (i < 6) {
		n = snprintf(buf, len, "%s%u@%s", sign, size, regs[i][col]);
	} else {
		/* at a tail call, 0(%rsp) is the return address */
		unsigned base = kind == SITE_JMP ||
				kind == SITE_GOTJMP ? 8 : 0;

		n = snprintf(buf, len, "%s%u@%u(%%rsp)", sign, size,
			     base + (i - 6) * 8);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int x86_arg_count(const char *args)
{
	struct stapsdt_arg arg;
	struct stapsdt_err aerr;
	size_t cur = 0;
	int n = 0, err;

	while ((err = stapsdt_arg_next(args, &cur, &arg, &aerr)) > 0)
		n++;
	return err < 0 ? -EINVAL : n;
}

static const uint8_t x86_stub[] = X86_STUB_BYTES;
static const uint8_t x86_old_stub[] = X86_OLD_STUB_BYTES;
static const uint8_t x86_inline_nop[] = { 0x90 };

/*
 * The direct branches: call/jmp rel32 (e8, e9), jcc rel32 (0f 80-8f),
 * jmp/jcc rel8 (eb, 70-7f).
 */
static enum site_branch x86_branch(const uint8_t *p, size_t n, size_t i,
				   uint64_t addr, uint64_t *to, unsigned *len)
{
	int32_t d32;

	if ((p[i] == 0xe8 || p[i] == 0xe9) && n - i >= 5) {
		memcpy(&d32, p + i + 1, 4);
		*to = addr + 5 + (uint64_t)(int64_t)d32;
		*len = 5;
		return p[i] == 0xe8 ? SITE_BR_CALL : SITE_BR_JUMP;
	}
	if (p[i] == 0x0f && n - i >= 6 && (p[i + 1] & 0xf0) == 0x80) {
		memcpy(&d32, p + i + 2, 4);
		*to = addr + 6 + (uint64_t)(int64_t)d32;
		*len = 6;
		return SITE_BR_OTHER;
	}
	if ((p[i] == 0xeb || (p[i] & 0xf0) == 0x70) && n - i >= 2) {
		*to = addr + 2 + (uint64_t)(int64_t)(int8_t)p[i + 1];
		*len = 2;
		return SITE_BR_OTHER;
	}
	return SITE_BR_NONE;
}

const struct site_arch site_arch_x86_64 = {
	.name = "x86-64",
	.machine = EM_X86_64,
	.r_none = R_X86_64_NONE,
	.r_abs64 = R_X86_64_64,
	.r_relative = R_X86_64_RELATIVE,
	.stub = x86_stub,
	.stub_size = X86_STUB_SIZE,
	.stub_kind = X86_STUB_KIND,
	.old_stub = x86_old_stub,
	.inline_nop = x86_inline_nop,
	.inline_nop_size = 1,
	.classify = x86_site_classify,
	.mark = x86_site_mark,
	.patch = x86_site_patch,
	.insns_check = x86_insns_check,
	.insns_available = x86_disasm_available,
	.insn_text = x86_insn_text,
	.arg_spec = x86_arg_spec,
	.arg_count = x86_arg_count,
	.branch = x86_branch,
	.branch_step = 1,
	.call_push = 8,
};
