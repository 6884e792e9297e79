/* SPDX-License-Identifier: MIT */
/*
 * dof_check.h - validate, read and relocate DOF from untrusted sources.
 *
 * The DOF a process hands to the helper (doc/DESIGN.md §5 and §6; layouts in
 * dof.h) is attacker-controlled: any byte may be anything.  This is the one
 * reader every consumer shares - dtrace-helperd, a future kernel helper,
 * `dtrace -l`, dofdump and the tests - so the rules live in one place:
 *
 *	dof_check_hdr()		the 64-byte header alone, before copying the
 *				rest (tells the helper how much to copy)
 *	dof_check()		everything; 0 or a negative errno, and a message
 *				with the byte offset of the offending field
 *	dof_prov_next()		providers, one at a time
 *	dof_probe_next()	the probes of one provider
 *	dof_reloc_next()	the DOF-level (URELHDR) relocations
 *	dof_relocate()		apply the SETX relocations
 *
 * The iterators re-check everything they hand out (string bounds and
 * lengths, index ranges), so they never read outside the buffer even on
 * data dof_check() has not seen or has refused; on such data they may
 * return an error half-way.  What they hand out always satisfies the
 * limits below, so a consumer may copy a name into a DTRACE_*LEN buffer.
 *
 * Freestanding: dof_check.c calls no library function, has no global
 * state, no recursion, no floating point, and its work is bounded by the
 * blob size (see dof_check.c).  It builds as-is in a Linux kernel module
 * (__KERNEL__ selects the kernel's headers, here and in dof.h) and in
 * user space; tests/run-dof-freestanding.sh checks that it calls nothing.
 */
#ifndef USDT_DOF_CHECK_H
#define USDT_DOF_CHECK_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#endif

#include "usdt/dof.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Longest names dof_check() accepts, in bytes without the NUL.  Consumers
 * name a process's provider "<provider><pid>" (myapp1234), and that must
 * still fit DTRACE_PROVNAMELEN, so the provider itself leaves room for the
 * ten digits of the largest 32-bit pid, as the classic helper did: 53.
 */
#define DOF_PID_DIGITS_MAX 10
#define DOF_PROVNAME_MAXLEN (DTRACE_PROVNAMELEN - 1 - DOF_PID_DIGITS_MAX)
#define DOF_FUNCNAME_MAXLEN (DTRACE_FUNCNAMELEN - 1)
#define DOF_PROBENAME_MAXLEN (DTRACE_NAMELEN - 1)
#define DOF_ARGTYPE_MAXLEN (DTRACE_ARGTYPELEN - 1)

/* Attribute ranges: stability internal(0)..standard(7), class ..common(5). */
#define DOF_STABILITY_MAX 7
#define DOF_CLASS_MAX 5

/*
 * Why a blob was refused.  msg is always NUL-terminated, never ends in a
 * newline and quotes at most a short, sanitised piece of the blob.  off is
 * the byte offset in the blob of the field (or string) found faulty.
 */
#define DOF_ERR_MSGLEN 128

struct dof_err {
	int code; /* the negative errno returned */
	uint64_t off;
	char msg[DOF_ERR_MSGLEN];
};

/* A section the reader has checked: where it is and how it is cut up. */
struct dof_span {
	uint32_t idx; /* section index, DOF_SECIDX_NONE if absent */
	uint32_t entsize;
	uint64_t off; /* from the start of the blob */
	uint64_t size;
};

struct dof_prov_info {
	const char *name; /* NUL-terminated, <= DOF_PROVNAME_MAXLEN */
	dof_attr_t provattr;
	dof_attr_t modattr;
	dof_attr_t funcattr;
	dof_attr_t nameattr;
	dof_attr_t argsattr;
	uint32_t secidx; /* the PROVIDER section */
	uint64_t nprobes;
	uint8_t version; /* DOF_VERSION_* of the blob */

	/* For dof_probe_next(); filled by dof_prov_next(). */
	const uint8_t *buf;
	uint64_t len; /* dofh_loadsz */
	struct dof_span strtab, probes, prargs, proffs, prenoffs;
};

struct dof_probe_info {
	uint64_t idx;	  /* record index in the PROBES section */
	uint64_t rec_off; /* blob offset of its dof_probe_t */
	uint64_t addr;	  /* dofpr_addr as stored (not relocated) */
	const char *prov; /* = the provider's name */
	const char *func; /* <= DOF_FUNCNAME_MAXLEN, no control chars */
	const char *name; /* <= DOF_PROBENAME_MAXLEN, identifier */
	uint8_t nargc;
	uint8_t xargc;
	uint16_t noffs;
	uint16_t nenoffs;
	/*
	 * nargc (xargc) type strings back to back, each NUL-terminated,
	 * non-empty, <= DOF_ARGTYPE_MAXLEN; NULL when the count is 0.
	 * *_len counts the bytes, NULs included.  Step with dof_argv_next().
	 */
	const char *nargv;
	const char *xargv;
	uint32_t nargv_len;
	uint32_t xargv_len;
	const uint8_t *argmap; /* xargc entries, each < nargc */
	const uint8_t *offs;   /* noffs u32, read with dof_probe_off() */
	const uint8_t *enoffs; /* nenoffs u32, dof_probe_enoff() */
};

struct dof_reloc_info {
	uint32_t hdr_sec; /* the URELHDR section */
	uint32_t rel_sec; /* its RELTAB */
	uint32_t tgt_sec; /* its target, a PROBES section */
	uint64_t idx;	  /* entry index in the RELTAB */
	uint64_t rec_off; /* blob offset of the dof_relodesc_t */
	uint32_t type;	  /* DOF_RELO_NONE or DOF_RELO_SETX */
	const char *name; /* symbol name; NULL if out of range (NONE) */
	uint64_t offset;  /* dofr_offset, in the target section */
	uint64_t data;	  /* dofr_data */
	uint64_t tgt_off; /* SETX: blob offset of the 8-byte target */
	uint64_t value;	  /* SETX: the target's current value */
};

/*
 * Check the header at buf (len >= 64 bytes available) and return its
 * dofh_loadsz in *loadsz: the bytes a helper must copy before dof_check().
 * -E2BIG if dofh_filesz exceeds max_size, else -EINVAL on any fault.
 */
int dof_check_hdr(const void *buf, size_t len, uint64_t max_size,
		  uint64_t *loadsz, struct dof_err *err);

/*
 * Validate a whole blob.  len is what the caller holds, at least
 * dofh_loadsz (non-loadable sections past dofh_loadsz are never read).
 * Returns 0, -E2BIG (over max_size) or -EINVAL; err may be NULL.  The
 * blob must not change during the call: copy it out of the process first.
 */
int dof_check(const void *buf, size_t len, uint64_t max_size,
	      struct dof_err *err);

/*
 * Iterate providers: start with *cursor = 0; returns 1 with *pv filled,
 * 0 when there are no more, or a negative errno.  pv points into buf.
 * On an error the cursor has moved past the faulty provider, so a lenient
 * reader of unchecked data may go on; a header error repeats every call.
 */
int dof_prov_next(const void *buf, size_t len, uint32_t *cursor,
		  struct dof_prov_info *pv, struct dof_err *err);

/* Iterate one provider's probes the same way (*cursor = 0 first). */
int dof_probe_next(const struct dof_prov_info *pv, uint64_t *cursor,
		   struct dof_probe_info *pr, struct dof_err *err);

/*
 * The type string after s in a probe's nargv (xlated false) or xargv
 * (true) list; s NULL gives the first.  NULL after the last one.
 */
const char *dof_argv_next(const struct dof_probe_info *pr, bool xlated,
			  const char *s);

/* Iterate every DOF relocation (*cursor = 0 first), like dof_prov_next(). */
int dof_reloc_next(const void *buf, size_t len, uint64_t *cursor,
		   struct dof_reloc_info *ri, struct dof_err *err);

/*
 * Add base to the 8-byte target of every DOF_RELO_SETX relocation
 * (classic semantics: dofr_data is not used) and return how many were
 * applied, or a negative errno.  Every relocation is checked before the
 * first is written, so a blob refused by those checks is left as it was.
 * Only a hostile blob whose targets overlap its own relocation table can
 * still fail half-way; discard the blob on any error.
 *
 * Whether base must be added is the caller's decision, made from how the
 * blob reached it, never from its contents.  In an ET_DYN object (PIE or
 * shared library) .SUNW_dof lives in a writable section whose dofpr_addr
 * fields carry ELF relocations the dynamic linker has already applied
 * (R_X86_64_RELATIVE): the values read from the process are run-time
 * addresses, and the caller passes base = 0.  Only for a blob whose
 * fields hold link-time values (SETX relocations and no ELF relocation,
 * see dof.h) does the caller pass the load bias, dof_helper_t.dofhp_addr.
 */
int dof_relocate(void *buf, size_t len, uint64_t base, struct dof_err *err);

/* Little-endian u32 i of a probe's offset lists; 0 if i is out of range. */
static inline uint32_t dof__ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint32_t dof_probe_off(const struct dof_probe_info *pr,
				     unsigned int i)
{
	return i < pr->noffs ? dof__ld32(pr->offs + 4 * (size_t)i) : 0;
}

static inline uint32_t dof_probe_enoff(const struct dof_probe_info *pr,
				       unsigned int i)
{
	return i < pr->nenoffs ? dof__ld32(pr->enoffs + 4 * (size_t)i) : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* USDT_DOF_CHECK_H */
