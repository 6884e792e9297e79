/* SPDX-License-Identifier: MIT */
/*
 * helper_abi.h - how a process hands its DOF to the DTrace helper.
 *
 * The one place for the helper ABI: the record drti.o passes, the ioctl
 * numbers, the device path and the environment variables that steer
 * drti.o.  drti.o, dtrace-helperd, the dtrace command and the tests
 * include this header; none of them spells a number or a name itself.
 *
 * Protocol (the Linux DTrace helper ABI, so binaries built by other Linux
 * DTrace toolchains and usdt-sdk's helper interoperate):
 *
 *	fd = open(DTRACE_HELPER_DEVICE, O_RDWR | O_CLOEXEC);
 *	gen = ioctl(fd, DTRACEHIOC_ADDDOF, &helper);	(dof_helper_t *)
 *	...
 *	ioctl(fd, DTRACEHIOC_REMOVE, &gen);		(int *, see below)
 *
 * ADDDOF returns a non-negative generation number identifying this
 * registration within the calling process, or -1 with errno set.  The
 * helper identifies the caller by its pid and reads dofh_loadsz bytes of
 * DOF from dofhp_dof in the caller's address space.
 *
 * REMOVE: the classic helper took the generation BY VALUE as the ioctl
 * argument.  usdt-sdk passes a POINTER to an int holding it.  The reason
 * is the FUSE-served device (dtrace-helperd, doc/DESIGN.md §6): FUSE
 * forwards only ioctls whose argument size is encoded in the number, and
 * it copies that many bytes FROM the argument as a user pointer.  _IOW's
 * size here is sizeof(int), so a small integer passed by value is read as
 * an address and the call fails with EFAULT before the daemon sees it.
 * Every usdt-sdk helper (daemon today, a kernel module later) therefore
 * reads the generation through the pointer.  Helpers also prune
 * registrations on process exit, exec and unmapping, so a REMOVE that is
 * lost (or sent to a classic helper, which would misread it) leaks
 * nothing for long.
 *
 * The numbers below are checked against their literal values so that a
 * change of struct layout can never silently change the ABI.
 */
#ifndef USDT_HELPER_ABI_H
#define USDT_HELPER_ABI_H

#include <linux/ioctl.h>

#include "dof.h"

/*
 * One registration: which object, where it is loaded and where its DOF is.
 * Fixed-width members only, so 32-bit and 64-bit callers agree.
 */
typedef struct dof_helper {
	char dofhp_mod[DTRACE_MODNAMELEN];	/* object basename, NUL-ended */
	uint64_t dofhp_addr;	/* load bias: base of an ET_DYN, 0 for ET_EXEC */
	uint64_t dofhp_dof;	/* run-time address of __SUNW_dof */
} dof_helper_t;

#define DTRACEHIOC_TYPE		0xd8
#define DTRACEHIOC_REMOVE	_IOW(DTRACEHIOC_TYPE, 2, int)	/* int * */
#define DTRACEHIOC_ADDDOF	_IOW(DTRACEHIOC_TYPE, 3, dof_helper_t)

/* Where drti.o looks for the helper, unless DTRACE_DOF_INIT_DEVNAME says. */
#define DTRACE_HELPER_DIR	"/dev/dtrace"
#define DTRACE_HELPER_NODE	"helper"
#define DTRACE_HELPER_DEVICE	DTRACE_HELPER_DIR "/" DTRACE_HELPER_NODE

/*
 * Environment variables drti.o reads at start-up.  Being set (to any
 * value, even empty) is what counts for the first two.
 */
#define DRTI_ENV_DISABLE	"DTRACE_DOF_INIT_DISABLE"  /* do nothing */
#define DRTI_ENV_DEBUG		"DTRACE_DOF_INIT_DEBUG"    /* talk on stderr */
#define DRTI_ENV_DEVNAME	"DTRACE_DOF_INIT_DEVNAME"  /* helper path */

DOF_STATIC_ASSERT(sizeof(dof_helper_t) == 80, "dof_helper_t is 80 bytes");
DOF_STATIC_ASSERT(offsetof(dof_helper_t, dofhp_addr) == 64, "dofhp_addr");
DOF_STATIC_ASSERT(offsetof(dof_helper_t, dofhp_dof) == 72, "dofhp_dof");
DOF_STATIC_ASSERT(DTRACEHIOC_ADDDOF == 0x4050d803u, "DTRACEHIOC_ADDDOF");
DOF_STATIC_ASSERT(DTRACEHIOC_REMOVE == 0x4004d802u, "DTRACEHIOC_REMOVE");

#endif /* USDT_HELPER_ABI_H */
