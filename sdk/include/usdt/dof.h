/* SPDX-License-Identifier: MIT */
/*
 * dof.h - the DTrace Object Format (DOF) as usdt-sdk writes and reads it.
 *
 * This header is the one place that holds the DOF format facts: the
 * identification bytes, section type numbers, flags, relocation types,
 * the fixed-size records and the name limits the helper enforces.  The
 * `dtrace -G` writer, drti.o, dtrace-helperd and the tests all include it.
 * It only describes bytes: no functions with linkage, nothing from libc
 * beyond <stdint.h> and <stddef.h>, so it compiles freestanding (a future
 * kernel helper), as C99 or later and as C++11 or later.  Member names use
 * the classic per-struct prefixes (dofh_, dofs_, dofpv_, dofpr_, dofr_) so
 * code and documentation about DOF grep the same way everywhere.
 *
 * All fields are fixed-width.  Sizes and offsets below are those of
 * little-endian LP64 (x86-64), the only target `dtrace -G` writes; every
 * size and the offsets readers depend on are checked at compile time.
 *
 * Layout of a usdt-sdk DOF blob (the contents of an object's .SUNW_dof
 * section, symbol __SUNW_dof, aligned to 8):
 *
 *	offset 0      dof_hdr_t               64 bytes, dofh_hdrsize = 64
 *	dofh_secoff   dof_sec_t[dofh_secnum]  32 bytes each, dofh_secsize = 32
 *	              (dofh_secoff = 64: the section table follows the header)
 *
 *	loadable sections, in section-table order, each starting at a
 *	multiple of its dofs_align and carrying DOF_SECF_LOAD:
 *
 *	  for each provider:
 *	    PROBES    dof_probe_t[]   align 8, entsize 48, one record per
 *	                              (probe, function containing sites)
 *	    PRARGS    uint8_t[]       align 1, entsize 1, argument mapping
 *	                              (translated arg i -> native arg)
 *	    PROFFS    uint32_t[]      align 4, entsize 4, probe site offsets
 *	                              from the start of dofpr_addr's function
 *	    PRENOFFS  uint32_t[]      align 4, entsize 4, is-enabled sites,
 *	                              only when is-enabled sites exist
 *	    PROVIDER  dof_provider_t  align 4, the section indices above
 *	  URELHDR + RELTAB            only if the blob carries DOF-level
 *	                              relocations (type DOF_RELO_SETX)
 *	  STRTAB      char[]          align 1, last: one table shared by every
 *	                              provider, offset 0 holds the empty string
 *
 *	dofh_loadsz = dofh_filesz = end of the string table (a usdt-sdk blob
 *	has no non-loadable sections; a reader must still honour loadsz).
 *
 * Keeping the string table last lets the writer emit every fixed-size
 * record first and append strings as it goes; keeping everything loadable
 * means the helper copies exactly dofh_loadsz bytes out of the process.
 *
 * The version byte is DOF_VERSION_1 unless some probe has is-enabled
 * sites, then DOF_VERSION_2: a version-1 reader knows neither PRENOFFS nor
 * the trailing dofpv_prenoffs member, so a version-1 provider section may
 * be only DOF_PROVIDER_V1_SIZE bytes.  dofpv_prenoffs == 0 means "no
 * is-enabled offsets" (classic readers compare it with DOF_SECT_NONE), so
 * section index 0 must never be a PRENOFFS section.
 *
 * dofpr_addr holds the address of the function containing the sites.
 * Which address depends on how it is filled, and writer and helper must
 * agree (measured with GNU ld 2.40).  usdt-sdk's `dtrace -G` uses the
 * first way and writes no URELHDR, so in a running process every
 * dofpr_addr of its DOF is the function's run-time address; the helper
 * applies SETX relocations only where another producer's DOF has them:
 *  - by an R_X86_64_64 ELF relocation in the -G output (doc/DESIGN.md §4): in
 *    a PIE or shared library the linker turns it into R_X86_64_RELATIVE,
 *    so the copy the helper reads from the process already holds the
 *    run-time address and dof_helper_t.dofhp_addr must NOT be added.
 *    .SUNW_dof must then be writable (SHF_WRITE): a read-only section
 *    with such relocations makes the linker create DT_TEXTREL;
 *  - by a DOF_RELO_SETX entry (URELHDR + RELTAB): the field holds the
 *    link-time address and the helper adds dofhp_addr, the load bias.
 * A blob must not use both for the same field.
 */
#ifndef USDT_DOF_H
#define USDT_DOF_H

#ifdef __KERNEL__
/* a kernel module (helper-driver/kmod) has no C library headers */
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/types.h>
#ifndef UINT32_C
#define UINT32_C(x) (x##U)
#endif
#ifndef UINT32_MAX
#define UINT32_MAX U32_MAX
#endif
#else
#include <stddef.h>
#include <stdint.h>
#endif

/* Compile-time layout checks; C11 spelling, or a GNU extension in C99. */
#if defined(__cplusplus)
#define DOF_STATIC_ASSERT(e, m)	static_assert(e, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define DOF_STATIC_ASSERT(e, m)	_Static_assert(e, m)
#else
#define DOF_STATIC_ASSERT(e, m)	__extension__ _Static_assert(e, m)
#endif

/*
 * Where a `dtrace -G` output keeps its DOF: this section, and this
 * symbol at its start, which drti.o refers to (as the identifier
 * __SUNW_dof: a C name cannot come from a string).  The names are
 * Solaris', so tools that know DOF find it.
 */
#define DOF_SECTION_NAME	".SUNW_dof"
#define DOF_SYMBOL_NAME		"__SUNW_dof"

/* dofh_ident[] indices. */
#define DOF_ID_MAG0		0
#define DOF_ID_MAG1		1
#define DOF_ID_MAG2		2
#define DOF_ID_MAG3		3
#define DOF_ID_MODEL		4	/* DOF_MODEL_* */
#define DOF_ID_ENCODING		5	/* DOF_ENCODE_* */
#define DOF_ID_VERSION		6	/* DOF_VERSION_* */
#define DOF_ID_DIFVERS		7	/* DIF_VERSION_2 */
#define DOF_ID_DIFIREG		8	/* DIF_DIR_NREGS */
#define DOF_ID_DIFTREG		9	/* DIF_DTR_NREGS */
#define DOF_ID_PAD		10	/* 10..15 must be zero */
#define DOF_ID_SIZE		16

#define DOF_MAG_MAG0		0x7f
#define DOF_MAG_MAG1		'D'
#define DOF_MAG_MAG2		'O'
#define DOF_MAG_MAG3		'F'
#define DOF_MAG_STRING		"\177DOF"
#define DOF_MAG_STRLEN		4

#define DOF_MODEL_NONE		0
#define DOF_MODEL_ILP32		1
#define DOF_MODEL_LP64		2
#if defined(__LP64__) || defined(_LP64)
#define DOF_MODEL_NATIVE	DOF_MODEL_LP64
#else
#define DOF_MODEL_NATIVE	DOF_MODEL_ILP32
#endif

#define DOF_ENCODE_NONE		0
#define DOF_ENCODE_LSB		1
#define DOF_ENCODE_MSB		2
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define DOF_ENCODE_NATIVE	DOF_ENCODE_MSB
#else
#define DOF_ENCODE_NATIVE	DOF_ENCODE_LSB
#endif

#define DOF_VERSION_1		1	/* no is-enabled probes */
#define DOF_VERSION_2		2	/* adds PRENOFFS, dofpv_prenoffs */

/* DIF facts the header carries even though USDT DOF holds no DIF. */
#define DIF_VERSION_2		2
#define DIF_DIR_NREGS		8	/* integer registers */
#define DIF_DTR_NREGS		8	/* tuple registers */

/*
 * The classic helper's default cap on a DOF blob; dof_check() callers pass
 * their own limit, this is a reasonable one (the helpers' default quota).
 */
#define DOF_MAX_SIZE_DEFAULT	((uint64_t)8 << 20)

#define DOF_FL_VALID		0	/* no dofh_flags bit is defined */

/* Section indices and string-table offsets are 32-bit. */
#define DOF_SECIDX_NONE		UINT32_MAX
#define DOF_STRIDX_NONE		UINT32_MAX

/* dofs_type.  USDT uses 8, 10, 12 and 15..18, 26; the rest complete the set. */
#define DOF_SECT_NONE		0
#define DOF_SECT_COMMENTS	1
#define DOF_SECT_SOURCE		2
#define DOF_SECT_ECBDESC	3
#define DOF_SECT_PROBEDESC	4
#define DOF_SECT_ACTDESC	5
#define DOF_SECT_DIFOHDR	6
#define DOF_SECT_DIF		7
#define DOF_SECT_STRTAB		8	/* NUL-terminated strings */
#define DOF_SECT_VARTAB		9
#define DOF_SECT_RELTAB		10	/* dof_relodesc_t[] */
#define DOF_SECT_TYPTAB		11
#define DOF_SECT_URELHDR	12	/* dof_relohdr_t, user relocations */
#define DOF_SECT_KRELHDR	13	/* dof_relohdr_t, kernel relocations */
#define DOF_SECT_OPTDESC	14
#define DOF_SECT_PROVIDER	15	/* dof_provider_t */
#define DOF_SECT_PROBES		16	/* dof_probe_t[] */
#define DOF_SECT_PRARGS		17	/* uint8_t[] argument mapping */
#define DOF_SECT_PROFFS		18	/* uint32_t[] probe offsets */
#define DOF_SECT_INTTAB		19
#define DOF_SECT_UTSNAME	20
#define DOF_SECT_XLTAB		21
#define DOF_SECT_XLMEMBERS	22
#define DOF_SECT_XLIMPORT	23
#define DOF_SECT_XLEXPORT	24
#define DOF_SECT_PREXPORT	25
#define DOF_SECT_PRENOFFS	26	/* uint32_t[] is-enabled offsets */

/* dofs_flags */
#define DOF_SECF_LOAD		1	/* section lies inside dofh_loadsz */

/* dofr_type */
#define DOF_RELO_NONE		0
#define DOF_RELO_SETX		1	/* u64 at tgtsec + dofr_offset += base */

/*
 * Stability attribute word: name, data and dependency class in the top
 * three bytes, low byte zero.  The values are the classic stability
 * levels (internal 0 .. standard 7) and classes (unknown 0 .. common 5).
 */
typedef uint32_t dof_attr_t;
#define DOF_ATTR(n, d, c)						\
	((dof_attr_t)(((uint32_t)(n) << 24) | ((uint32_t)(d) << 16) |	\
		      ((uint32_t)(c) << 8)))
#define DOF_ATTR_NAME(a)	(((a) >> 24) & 0xff)
#define DOF_ATTR_DATA(a)	(((a) >> 16) & 0xff)
#define DOF_ATTR_CLASS(a)	(((a) >> 8) & 0xff)

/* Name limits enforced by the helper, terminating NUL included. */
#define DTRACE_PROVNAMELEN	64	/* provider, pid suffix included */
#define DTRACE_MODNAMELEN	64	/* module (dof_helper_t.dofhp_mod) */
#define DTRACE_FUNCNAMELEN	128
#define DTRACE_NAMELEN		64	/* probe name */
#define DTRACE_ARGTYPELEN	128	/* one argument type string */

typedef uint32_t dof_secidx_t;	/* index into the section table */
typedef uint32_t dof_stridx_t;	/* byte offset into a STRTAB section */

typedef struct dof_hdr {
	uint8_t dofh_ident[DOF_ID_SIZE];
	uint32_t dofh_flags;		/* DOF_FL_VALID: zero */
	uint32_t dofh_hdrsize;		/* sizeof(dof_hdr_t) */
	uint32_t dofh_secsize;		/* sizeof(dof_sec_t) */
	uint32_t dofh_secnum;
	uint64_t dofh_secoff;		/* file offset of the section table */
	uint64_t dofh_loadsz;		/* bytes the helper must load */
	uint64_t dofh_filesz;		/* bytes of the whole blob */
	uint64_t dofh_pad;		/* zero */
} dof_hdr_t;

typedef struct dof_sec {
	uint32_t dofs_type;		/* DOF_SECT_* */
	uint32_t dofs_align;		/* power of two; 1 = byte aligned */
	uint32_t dofs_flags;		/* DOF_SECF_* */
	uint32_t dofs_entsize;		/* record size, 0 if not a table */
	uint64_t dofs_offset;		/* from the start of the blob */
	uint64_t dofs_size;
} dof_sec_t;

typedef struct dof_provider {
	dof_secidx_t dofpv_strtab;	/* DOF_SECT_STRTAB */
	dof_secidx_t dofpv_probes;	/* DOF_SECT_PROBES */
	dof_secidx_t dofpv_prargs;	/* DOF_SECT_PRARGS */
	dof_secidx_t dofpv_proffs;	/* DOF_SECT_PROFFS */
	dof_stridx_t dofpv_name;
	dof_attr_t dofpv_provattr;
	dof_attr_t dofpv_modattr;
	dof_attr_t dofpv_funcattr;
	dof_attr_t dofpv_nameattr;
	dof_attr_t dofpv_argsattr;
	dof_secidx_t dofpv_prenoffs;	/* DOF_SECT_PRENOFFS; version 2 only */
} dof_provider_t;

typedef struct dof_probe {
	uint64_t dofpr_addr;		/* function address (link time) */
	dof_stridx_t dofpr_func;	/* function name */
	dof_stridx_t dofpr_name;	/* probe name, `-` form */
	dof_stridx_t dofpr_nargv;	/* native type strings, back to back */
	dof_stridx_t dofpr_xargv;	/* translated type strings */
	uint32_t dofpr_argidx;		/* first PRARGS entry */
	uint32_t dofpr_offidx;		/* first PROFFS entry */
	uint8_t dofpr_nargc;
	uint8_t dofpr_xargc;
	uint16_t dofpr_noffs;		/* at least one */
	uint32_t dofpr_enoffidx;	/* first PRENOFFS entry */
	uint16_t dofpr_nenoffs;
	uint16_t dofpr_pad1;		/* zero */
	uint32_t dofpr_pad2;		/* zero */
} dof_probe_t;

/* Both relocation records use dofr_, as the classic format does. */
typedef struct dof_relohdr {
	dof_secidx_t dofr_strtab;	/* names of dofr_name */
	dof_secidx_t dofr_relsec;	/* DOF_SECT_RELTAB */
	dof_secidx_t dofr_tgtsec;	/* section the offsets refer to */
} dof_relohdr_t;

typedef struct dof_relodesc {
	dof_stridx_t dofr_name;		/* symbol name */
	uint32_t dofr_type;		/* DOF_RELO_* */
	uint64_t dofr_offset;		/* in the target section */
	uint64_t dofr_data;		/* addend */
} dof_relodesc_t;

/* A version-1 provider record stops before dofpv_prenoffs. */
#define DOF_PROVIDER_V1_SIZE	offsetof(dof_provider_t, dofpv_prenoffs)

/*
 * Section types whose contents must lie inside dofh_loadsz and carry
 * DOF_SECF_LOAD: everything but NONE, COMMENTS, SOURCE and UTSNAME.
 */
#define DOF_SECT_LOADABLE_MASK						\
	(~(UINT32_C(1) << DOF_SECT_NONE | UINT32_C(1) << DOF_SECT_COMMENTS | \
	   UINT32_C(1) << DOF_SECT_SOURCE | UINT32_C(1) << DOF_SECT_UTSNAME) & \
	 ((UINT32_C(1) << (DOF_SECT_PRENOFFS + 1)) - 1))

static inline int dof_sect_is_loadable(uint32_t type)
{
	return type <= DOF_SECT_PRENOFFS &&
	       ((DOF_SECT_LOADABLE_MASK >> type) & 1) != 0;
}

DOF_STATIC_ASSERT(sizeof(dof_hdr_t) == 64, "dof_hdr_t is 64 bytes");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_flags) == 16, "dofh_flags");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_secnum) == 28, "dofh_secnum");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_secoff) == 32, "dofh_secoff");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_loadsz) == 40, "dofh_loadsz");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_filesz) == 48, "dofh_filesz");
DOF_STATIC_ASSERT(offsetof(dof_hdr_t, dofh_pad) == 56, "dofh_pad");

DOF_STATIC_ASSERT(sizeof(dof_sec_t) == 32, "dof_sec_t is 32 bytes");
DOF_STATIC_ASSERT(offsetof(dof_sec_t, dofs_entsize) == 12, "dofs_entsize");
DOF_STATIC_ASSERT(offsetof(dof_sec_t, dofs_offset) == 16, "dofs_offset");
DOF_STATIC_ASSERT(offsetof(dof_sec_t, dofs_size) == 24, "dofs_size");

DOF_STATIC_ASSERT(sizeof(dof_provider_t) == 44, "dof_provider_t is 44 bytes");
DOF_STATIC_ASSERT(offsetof(dof_provider_t, dofpv_name) == 16, "dofpv_name");
DOF_STATIC_ASSERT(offsetof(dof_provider_t, dofpv_provattr) == 20,
		  "dofpv_provattr");
DOF_STATIC_ASSERT(offsetof(dof_provider_t, dofpv_argsattr) == 36,
		  "dofpv_argsattr");
DOF_STATIC_ASSERT(DOF_PROVIDER_V1_SIZE == 40, "version-1 provider size");

DOF_STATIC_ASSERT(sizeof(dof_probe_t) == 48, "dof_probe_t is 48 bytes");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_func) == 8, "dofpr_func");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_argidx) == 24, "dofpr_argidx");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_offidx) == 28, "dofpr_offidx");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_nargc) == 32, "dofpr_nargc");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_noffs) == 34, "dofpr_noffs");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_enoffidx) == 36,
		  "dofpr_enoffidx");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_nenoffs) == 40,
		  "dofpr_nenoffs");
DOF_STATIC_ASSERT(offsetof(dof_probe_t, dofpr_pad2) == 44, "dofpr_pad2");

DOF_STATIC_ASSERT(sizeof(dof_relohdr_t) == 12, "dof_relohdr_t is 12 bytes");
DOF_STATIC_ASSERT(sizeof(dof_relodesc_t) == 24, "dof_relodesc_t is 24 bytes");
DOF_STATIC_ASSERT(offsetof(dof_relodesc_t, dofr_offset) == 8, "dofr_offset");
DOF_STATIC_ASSERT(offsetof(dof_relodesc_t, dofr_data) == 16, "dofr_data");

DOF_STATIC_ASSERT(DOF_ATTR(5, 5, 5) == 0x05050500u, "attribute encoding");
DOF_STATIC_ASSERT(DOF_SECT_LOADABLE_MASK == 0x07effff8u,
		  "loadable section types");

#endif /* USDT_DOF_H */
