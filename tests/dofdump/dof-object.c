// SPDX-License-Identifier: MIT
/*
 * dof-object.c - an object with a hand-built DOF blob in .SUNW_dof, for
 * tests/run-dofdump.sh, standing in for `dtrace -G` output until that
 * writes real ones.
 *
 * The blob follows the dof.h layout (version 2): PROBES, PRARGS, PROFFS,
 * PRENOFFS, PROVIDER, STRTAB, one provider "myapp" (VARIANT 2: "other")
 * with two probes.  As in -G output, dofpr_addr is filled by ELF
 * relocations (R_X86_64_64): probe 1 against a hidden global alias
 * "$dtrace1234.<func>" of its function (what -G adds), probe 2 against a
 * global function directly.  There is no URELHDR: a field must not be
 * relocated both ways (dof.h).  The section is writable so that a PIE or
 * shared library gets R_X86_64_RELATIVE rather than DT_TEXTREL, and
 * __SUNW_dof is local, as in -G output, so objects combine (ld -r).
 *
 *	-DBREAK=1	argument map entry equal to nargc (invalid)
 *	-DSETX=1	fill dofpr_addr with link-time values and DOF SETX
 *			relocations (URELHDR + RELTAB), no ELF relocations
 *	-DVARIANT=2	other names, so two objects can be linked together
 */
#include <stdint.h>

#include "usdt/dof.h"

#ifndef VARIANT
#define VARIANT 1
#endif
#ifndef BREAK
#define BREAK 0
#endif
#ifndef SETX
#define SETX 0
#endif

#if VARIANT == 1
#define PROV "myapp"
#define FUNC1 main
#define FUNC2 worker
#define ALIAS1 "$dtrace1234.main"
#define NFUNC1 "main"
#define NFUNC2 "worker"
#else
#define PROV "other"
#define FUNC1 other_main
#define FUNC2 other_worker
#define ALIAS1 "$dtrace5678.other_main"
#define NFUNC1 "other_main"
#define NFUNC2 "other_worker"
#endif

int FUNC1(void);
void FUNC2(void);

static volatile int sink;

void FUNC2(void)
{
	sink = 2;
}

int FUNC1(void)
{
	FUNC2();
	return sink - 2;
}

#define XSTR(x) #x
#define STR(x) XSTR(x)
__asm__(".globl \"" ALIAS1 "\"\n\t"
	".hidden \"" ALIAS1 "\"\n\t"
	".type \"" ALIAS1 "\", @function\n\t"
	".set \"" ALIAS1 "\", " STR(FUNC1));
extern char alias1[] __asm__(ALIAS1);

/* The string table, and each string's index computed from the ones before. */
#define S_STRTAB                                                               \
	"\0" PROV "\0" NFUNC1 "\0" NFUNC2 "\0query-start\0"                    \
	"query-done\0"                                                         \
	"const char *\0int\0"                                                  \
	"string\0int\0"                                                        \
	"const char *\0long\0"                                                 \
	"long\0string"
#define I_PROV 1
#define I_FUNC1 (I_PROV + sizeof(PROV))
#define I_FUNC2 (I_FUNC1 + sizeof(NFUNC1))
#define I_START (I_FUNC2 + sizeof(NFUNC2))
#define I_DONE (I_START + sizeof("query-start"))
#define I_NARGV1 (I_DONE + sizeof("query-done"))
#define I_XARGV1 (I_NARGV1 + sizeof("const char *") + sizeof("int"))
#define I_NARGV2 (I_XARGV1 + sizeof("string") + sizeof("int"))
#define I_XARGV2 (I_NARGV2 + sizeof("const char *") + sizeof("long"))

enum {
	SEC_PROBES,
	SEC_PRARGS,
	SEC_PROFFS,
	SEC_PRENOFFS,
	SEC_PROV,
#if SETX
	SEC_RELTAB,
	SEC_URELHDR,
#endif
	SEC_STR,
	SEC_NUM
};

struct dof_blob {
	dof_hdr_t hdr;
	dof_sec_t sec[SEC_NUM];
	dof_probe_t probes[2];
	uint8_t args[4];
	uint32_t offs[3];
	uint32_t enoffs[2];
	dof_provider_t prov;
#if SETX
	dof_relodesc_t rel[2];
	dof_relohdr_t relhdr;
#endif
	char strtab[sizeof(S_STRTAB)];
};

#if SETX
#define ADDR1 0x1000
#define ADDR2 0x2000
#else
#define ADDR1 ((uint64_t)(uintptr_t)alias1)
#define ADDR2 ((uint64_t)(uintptr_t)&FUNC2)
#endif

#define SEC(t, al, es, m)                                                      \
	{                                                                      \
		.dofs_type = (t), .dofs_align = (al),                          \
		.dofs_flags = DOF_SECF_LOAD, .dofs_entsize = (es),             \
		.dofs_offset = offsetof(struct dof_blob, m),                   \
		.dofs_size = sizeof(((struct dof_blob *)0)->m),                \
	}

static struct dof_blob __SUNW_dof
	__attribute__((section(".SUNW_dof"), aligned(8), used)) = {
	.hdr =
		{
			.dofh_ident =
				{
					[DOF_ID_MAG0] = DOF_MAG_MAG0,
					[DOF_ID_MAG1] = DOF_MAG_MAG1,
					[DOF_ID_MAG2] = DOF_MAG_MAG2,
					[DOF_ID_MAG3] = DOF_MAG_MAG3,
					[DOF_ID_MODEL] = DOF_MODEL_LP64,
					[DOF_ID_ENCODING] = DOF_ENCODE_LSB,
					[DOF_ID_VERSION] = DOF_VERSION_2,
					[DOF_ID_DIFVERS] = DIF_VERSION_2,
					[DOF_ID_DIFIREG] = DIF_DIR_NREGS,
					[DOF_ID_DIFTREG] = DIF_DTR_NREGS,
				},
			.dofh_hdrsize = sizeof(dof_hdr_t),
			.dofh_secsize = sizeof(dof_sec_t),
			.dofh_secnum = SEC_NUM,
			.dofh_secoff = offsetof(struct dof_blob, sec),
			.dofh_loadsz = sizeof(struct dof_blob),
			.dofh_filesz = sizeof(struct dof_blob),
		},
	.sec =
		{
			[SEC_PROBES] = SEC(DOF_SECT_PROBES, 8,
					   sizeof(dof_probe_t), probes),
			[SEC_PRARGS] = SEC(DOF_SECT_PRARGS, 1, 1, args),
			[SEC_PROFFS] = SEC(DOF_SECT_PROFFS, 4, 4, offs),
			[SEC_PRENOFFS] = SEC(DOF_SECT_PRENOFFS, 4, 4, enoffs),
			[SEC_PROV] = SEC(DOF_SECT_PROVIDER, 4, 0, prov),
#if SETX
			[SEC_RELTAB] = SEC(DOF_SECT_RELTAB, 8,
					   sizeof(dof_relodesc_t), rel),
			[SEC_URELHDR] = SEC(DOF_SECT_URELHDR, 4, 0, relhdr),
#endif
			[SEC_STR] = SEC(DOF_SECT_STRTAB, 1, 0, strtab),
		},
	.probes =
		{
			{
				.dofpr_addr = ADDR1,
				.dofpr_func = I_FUNC1,
				.dofpr_name = I_START,
				.dofpr_nargv = I_NARGV1,
				.dofpr_xargv = I_XARGV1,
				.dofpr_nargc = 2,
				.dofpr_xargc = 2,
				.dofpr_argidx = 0,
				.dofpr_offidx = 0,
				.dofpr_noffs = 2,
				.dofpr_enoffidx = 0,
				.dofpr_nenoffs = 1,
			},
			{
				.dofpr_addr = ADDR2,
				.dofpr_func = I_FUNC2,
				.dofpr_name = I_DONE,
				.dofpr_nargv = I_NARGV2,
				.dofpr_xargv = I_XARGV2,
				.dofpr_nargc = 2,
				.dofpr_xargc = 2,
				.dofpr_argidx = 2,
				.dofpr_offidx = 2,
				.dofpr_noffs = 1,
				.dofpr_enoffidx = 1,
				.dofpr_nenoffs = 1,
			},
		},
	.args = {0, 1, 1, BREAK == 1 ? 2 : 0},
	.offs = {0x4, 0x8, 0x2},
	.enoffs = {0x6, 0x1},
	.prov =
		{
			.dofpv_strtab = SEC_STR,
			.dofpv_probes = SEC_PROBES,
			.dofpv_prargs = SEC_PRARGS,
			.dofpv_proffs = SEC_PROFFS,
			.dofpv_name = I_PROV,
			.dofpv_provattr = DOF_ATTR(5, 5, 5),
			.dofpv_modattr = DOF_ATTR(1, 1, 0),
			.dofpv_funcattr = DOF_ATTR(1, 1, 0),
			.dofpv_nameattr = DOF_ATTR(5, 5, 5),
			.dofpv_argsattr = DOF_ATTR(5, 5, 5),
			.dofpv_prenoffs = SEC_PRENOFFS,
		},
#if SETX
	.rel = {
		{
			.dofr_name = I_FUNC1,
			.dofr_type = DOF_RELO_SETX,
			.dofr_offset = 0 * sizeof(dof_probe_t),
		},
		{
			.dofr_name = I_FUNC2,
			.dofr_type = DOF_RELO_SETX,
			.dofr_offset = 1 * sizeof(dof_probe_t),
		},
	},
	.relhdr = {
		.dofr_strtab = SEC_STR,
		.dofr_relsec = SEC_RELTAB,
		.dofr_tgtsec = SEC_PROBES,
	},
#endif
	.strtab = S_STRTAB,
};
