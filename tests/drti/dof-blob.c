// SPDX-License-Identifier: MIT
/*
 * dof-blob.c - the smallest DOF drti.o accepts, standing in for the
 * .SUNW_dof section that `dtrace -G` will write: a dof_hdr_t and no
 * sections (dofh_secnum 0, loadsz = filesz = 64).
 *
 * Like the -G output it defines __SUNW_dof as a hidden symbol in section
 * .SUNW_dof, aligned to 8.  -DDOF_BREAK=N damages one identification byte
 * so the tests can check that drti.o declines:
 *	1 magic, 2 data model, 3 byte order, 4 version
 */
#include "usdt/dof.h"

#ifndef DOF_BREAK
#define DOF_BREAK 0
#endif

__attribute__((section(".SUNW_dof"), aligned(8), used,
	       visibility("hidden")))
const dof_hdr_t __SUNW_dof = {
	.dofh_ident = {
		[DOF_ID_MAG0] = DOF_BREAK == 1 ? 'X' : DOF_MAG_MAG0,
		[DOF_ID_MAG1] = DOF_MAG_MAG1,
		[DOF_ID_MAG2] = DOF_MAG_MAG2,
		[DOF_ID_MAG3] = DOF_MAG_MAG3,
		[DOF_ID_MODEL] = DOF_BREAK == 2 ? DOF_MODEL_NONE
						: DOF_MODEL_NATIVE,
		[DOF_ID_ENCODING] = DOF_BREAK == 3 ? DOF_ENCODE_MSB + 1
						   : DOF_ENCODE_NATIVE,
		[DOF_ID_VERSION] = DOF_BREAK == 4 ? 9 : DOF_VERSION_1,
		[DOF_ID_DIFVERS] = DIF_VERSION_2,
		[DOF_ID_DIFIREG] = DIF_DIR_NREGS,
		[DOF_ID_DIFTREG] = DIF_DTR_NREGS,
	},
	.dofh_flags = DOF_FL_VALID,
	.dofh_hdrsize = sizeof(dof_hdr_t),
	.dofh_secsize = sizeof(dof_sec_t),
	.dofh_secnum = 0,
	.dofh_secoff = sizeof(dof_hdr_t),
	.dofh_loadsz = sizeof(dof_hdr_t),
	.dofh_filesz = sizeof(dof_hdr_t),
};
