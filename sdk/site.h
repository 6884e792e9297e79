/* SPDX-License-Identifier: MIT */
/*
 * site.h - probe call sites, whatever the machine: what `dtrace -G`
 * needs to know of an instruction set to find the calls to probe
 * functions, rewrite them, and describe the rewritten sites to tracers.
 *
 * One struct site_arch per machine -G rewrites (x86site.c for x86-64,
 * a64site.c for aarch64); site_arch_of() picks it by the objects' ELF
 * e_machine, so the machine-independent parts of -G (dtrace-G/link/)
 * never test the machine themselves.
 */
#ifndef USDT_SITE_H
#define USDT_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prov.h"

/*
 * What the compiler emitted at a site.  Every machine has calls and tail
 * calls; x86-64 also calls through the GOT (-fno-plt).
 */
enum site_kind {
	SITE_CALL,	/* a call */
	SITE_JMP,	/* a tail call: a jump to the probe function */
	SITE_GOTCALL,	/* x86-64: call *sym@GOTPCREL(%rip) */
	SITE_GOTJMP,	/* x86-64: jmp *sym@GOTPCREL(%rip) */
};

struct probe_site {
	enum site_kind kind;
	bool is_enabled;	/* legacy __dtraceenabled_ call */
	bool rewritten;		/* the bytes already are our replacement */
	bool old;		/* an older -G's replacement, to rewrite again */
	uint64_t start;		/* offset of the site in its section */
	unsigned len;		/* bytes: 5 or 6 on x86-64, 4 on aarch64 */
};

/*
 * The instruction boundaries of a function, as far as the sites need
 * them (x86-64 decodes them with libopcodes; aarch64 instructions are all
 * 4 bytes and need no decoding).
 */
struct site_insns {
	const uint8_t *sec;	/* the section's bytes */
	uint64_t fstart, fsize;	/* the function, within the section */
	uint64_t pc;		/* decoded up to here (section offset) */
	uint8_t *starts;	/* bit i: an instruction starts at fstart + i */
};

void site_insns_init(struct site_insns *m, const uint8_t *sec,
		     size_t secsize, uint64_t fstart, uint64_t fsize);
void site_insns_free(struct site_insns *m);

/* Hex dump of n bytes: "e8 00 00 00 00". */
void site_hex(const uint8_t *p, size_t n, char *buf, size_t len);

/* A direct branch, as site_arch.branch finds one. */
enum site_branch {
	SITE_BR_NONE,
	SITE_BR_CALL,	/* call: x86 call rel32, aarch64 bl */
	SITE_BR_JUMP,	/* unconditional jump: jmp rel32, b */
	SITE_BR_OTHER,	/* conditional or short: never a probe's call */
};

struct site_arch {
	const char *name;	/* "x86-64", as messages say it */
	uint16_t machine;	/* EM_X86_64 */
	uint32_t r_none;	/* the relocation a rewritten site keeps */
	uint32_t r_abs64;	/* 64-bit absolute: DOF and note addresses */
	uint32_t r_relative;	/* a linked file's base + addend */
	/*
	 * The probe stub of `dtrace -h` headers (prov_header.c): its bytes,
	 * a probe site at its entry, and the kind of site its arguments
	 * are read as.
	 */
	const uint8_t *stub;
	unsigned stub_size;
	enum site_kind stub_kind;
	/* an older release's stub of the same size, or NULL */
	const uint8_t *old_stub;
	/* the first instruction of an inline (<sys/sdt.h>) probe */
	const uint8_t *inline_nop;
	unsigned inline_nop_size;

	/*
	 * The site a relocation of type rtype at r_offset belongs to; 0 or
	 * -EINVAL with the reason in msg.  A relocation an earlier run
	 * neutralised (r_none) names the site start, its addend the mark;
	 * the site is rewritten, or old where an older release wrote bytes
	 * that must be replaced.
	 */
	int (*classify)(const uint8_t *sec, size_t secsize, uint32_t rtype,
			uint64_t r_offset, int64_t addend, bool is_enabled,
			struct probe_site *site, char *msg, size_t msglen);
	/* the r_addend -G stores in a site's neutralised relocation */
	int64_t (*mark)(const struct probe_site *site);
	/* the bytes that replace the site (site->len of them) */
	const uint8_t *(*patch)(const struct probe_site *site);
	/*
	 * That a site of len bytes at section offset `at` starts and ends on
	 * instruction boundaries (and is one instruction, if one_insn): 0,
	 * -EINVAL with msg, or -ENOTSUP where that cannot be checked.
	 */
	int (*insns_check)(struct site_insns *m, uint64_t at, unsigned len,
			   bool one_insn, char *msg, size_t msglen);
	/* 0 if insns_check can check, else -ENOTSUP and msg */
	int (*insns_available)(char *msg, size_t msglen);
	/* the instructions as text ("nop; ret"), "" if unable */
	void (*insn_text)(const uint8_t *code, size_t len, char *buf,
			  size_t buflen);
	/* the stapsdt spec of argument i (0-based) of type t at a site */
	int (*arg_spec)(const struct prov_type *t, unsigned i,
			enum site_kind kind, char *buf, size_t len);
	/* the number of specs in a note's argument string, or -EINVAL */
	int (*arg_count)(const char *args);
	/*
	 * The direct branch whose instruction would start at p[i] (address
	 * addr, n bytes in p): its kind, its target in *to and its length in
	 * *len; SITE_BR_NONE if none starts there.  Offsets are tried every
	 * branch_step bytes (on x86-64 every byte: a false target costs
	 * nothing, it is checked later).
	 */
	enum site_branch (*branch)(const uint8_t *p, size_t n, size_t i,
				   uint64_t addr, uint64_t *to, unsigned *len);
	unsigned branch_step;
	/*
	 * What a call pushes on the stack (the return address): 8 on
	 * x86-64, where the arguments a callee finds at K(%rsp) are at
	 * K-8(%rsp) at the call; 0 on aarch64 (x30 takes it).
	 */
	unsigned call_push;
};

/* the ELF machine this code is built for: what a process it traces runs
 * (a pid probe point's file, ld.so) must be too */
#if defined(__aarch64__)
#define SITE_HOST_EM EM_AARCH64
#else
#define SITE_HOST_EM EM_X86_64
#endif

/* The machine's entry, or NULL: -G rewrites x86-64 and aarch64. */
const struct site_arch *site_arch_of(unsigned machine);

/* "x86-64", "aarch64", or "machine N" (in buf) for the others. */
const char *site_machine_name(unsigned machine, char *buf, size_t len);

/* A site module's refusal: the message formatted into msg (msglen bytes),
 * and -EINVAL. */
int site_err(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* USDT_SITE_H */
