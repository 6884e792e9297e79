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
 * Every usdt-sdk helper (dtrace-helperd and dtrace_helper.ko) therefore
 * reads the generation through the pointer; where the kernel lets it see
 * the raw argument (CUSE, the module), an argument below
 * DTRACE_HELPER_REMOVE_BYVALUE_MAX is taken as a classic by-value
 * generation, since no page is ever mapped that low.  Helpers also prune
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

/*
 * This project's own (an additive ABI: other helpers answer ENOTTY).
 * dtrace-helperd answers ADDDOF before it has read and checked the DOF
 * and records it after (doc/DESIGN.md §6).  SYNC with a pointer to 0
 * returns once every registration answered before it is checked and in
 * the registry (or refused) -- what a reader of the registry sends
 * first; with a pointer to a generation of the caller's, it returns
 * once that one is checked: 0 if it is registered, else -1 with the
 * errno its ADDDOF would have failed with (ENOENT: unknown).
 */
#define DTRACEHIOC_SYNC		_IOW(DTRACEHIOC_TYPE, 0x53, int)	/* int * */

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

/*
 * Registration without an answer (dtrace-helperd only, doc/DESIGN.md §6).
 * Besides the device, the daemon owns an AF_UNIX datagram socket in a
 * directory of root's alone.  drti.o sends one dtrace_helper_msg_t to it
 * with sendto(2) (MSG_DONTWAIT) and does not wait for the daemon: the
 * kernel attaches the sender's pid and uid (SO_PASSCRED on the daemon's
 * side), the daemon reads the DOF at dhm_helper.dofhp_dof from that pid
 * as it does for ADDDOF, and a REMOVE names the registration by its DOF
 * address, which is unique in a process.  One socket queue is FIFO, so a
 * process's REMOVE is read after its ADD.  Whatever the socket refuses
 * (absent: ENOENT or ECONNREFUSED; full: EAGAIN) goes to the device
 * instead: an ADD as ADDDOF, a REMOVE of a datagram ADD as REMOVEDOF,
 * both of which the daemon serves only after reading every datagram
 * queued before them.  A registration made through the device is withdrawn
 * through the device.
 *
 * The socket is used only where the device is the default one, or
 * DTRACE_DOF_INIT_SOCKNAME names it (empty: none); a set-id program
 * ignores that variable as it ignores DTRACE_DOF_INIT_DEVNAME.
 */
#define DTRACE_HELPER_SOCKET	"/run/dtrace/helper.sock"
#define DRTI_ENV_SOCKNAME	"DTRACE_DOF_INIT_SOCKNAME" /* socket path */

#define DTRACE_HELPER_MSG_MAGIC	0x31485444u	/* "DTH1", little end first */
#define DTRACE_HELPER_MSG_ADD	1u
#define DTRACE_HELPER_MSG_REMOVE 2u

typedef struct dtrace_helper_msg {
	uint32_t dhm_magic;	/* DTRACE_HELPER_MSG_MAGIC */
	uint32_t dhm_op;	/* DTRACE_HELPER_MSG_ADD or _REMOVE */
	int32_t dhm_tid;	/* the sending thread: where the DOF is read */
	uint32_t dhm_pad;	/* 0 */
	dof_helper_t dhm_helper; /* REMOVE: dofhp_dof names the registration */
} dtrace_helper_msg_t;

/*
 * REMOVE of a registration made through the socket, by its DOF address
 * (dofhp_dof of the dof_helper_t pointed to): 0, also when the daemon
 * refused the ADD or never read it.
 */
#define DTRACEHIOC_REMOVEDOF	_IOW(DTRACEHIOC_TYPE, 0x52, dof_helper_t)

/*
 * A helper that learns of fork() from the kernel (dtrace-helperd serving
 * the device over FUSE, with the process connector: doc/DESIGN.md §6)
 * gives each child of a registered process a copy of its parent's
 * registrations, under the same generations, without being asked.  It
 * says so by the size fstat(2) reports for the device: drti.o looks once,
 * after its constructor's ADDDOF succeeded, and its fork handler then
 * sends nothing -- the child's own REMOVE of the inherited generation
 * works as if it had registered.  Any other size (a character device:
 * CUSE, dtrace_helper.ko; a helper without the connector) means children
 * register themselves.  An additive ABI: older helpers report size 0.
 */
#define DTRACE_HELPER_SIZE_FOLLOWS_FORK 0x666f726bULL /* "fork" */

/*
 * REMOVE's argument below this is a generation passed by value (the
 * classic ABI), at or above it a pointer to one.
 */
#define DTRACE_HELPER_REMOVE_BYVALUE_MAX 65536UL

/*
 * The helper's quotas, the same defaults in dtrace-helperd (options) and
 * dtrace_helper.ko (module parameters); ADDDOF fails with ENOSPC beyond
 * them.  The per-user limits do not apply to root.
 */
#define DTRACE_HELPER_MAX_DOF		DOF_MAX_SIZE_DEFAULT /* one blob */
#define DTRACE_HELPER_MAX_PROC_REGS	1024		/* per process */
#define DTRACE_HELPER_MAX_PROC_BYTES	(16UL << 20)	/* per process */
#define DTRACE_HELPER_MAX_UID_REGS	8192		/* per user */
#define DTRACE_HELPER_MAX_UID_BYTES	(128UL << 20)	/* per user */
#define DTRACE_HELPER_MAX_TOTAL_BYTES	(512UL << 20)	/* in all */

DOF_STATIC_ASSERT(sizeof(dof_helper_t) == 80, "dof_helper_t is 80 bytes");
DOF_STATIC_ASSERT(offsetof(dof_helper_t, dofhp_addr) == 64, "dofhp_addr");
DOF_STATIC_ASSERT(offsetof(dof_helper_t, dofhp_dof) == 72, "dofhp_dof");
DOF_STATIC_ASSERT(DTRACEHIOC_ADDDOF == 0x4050d803u, "DTRACEHIOC_ADDDOF");
DOF_STATIC_ASSERT(DTRACEHIOC_REMOVE == 0x4004d802u, "DTRACEHIOC_REMOVE");
DOF_STATIC_ASSERT(DTRACEHIOC_REMOVEDOF == 0x4050d852u, "DTRACEHIOC_REMOVEDOF");
DOF_STATIC_ASSERT(sizeof(dtrace_helper_msg_t) == 96, "dtrace_helper_msg_t");

#endif /* USDT_HELPER_ABI_H */
