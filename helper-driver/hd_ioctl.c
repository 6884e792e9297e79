// SPDX-License-Identifier: MIT
/*
 * hd_ioctl.c - decode a helper ioctl, whichever kernel path delivered it.
 *
 * FUSE (a file in a FUSE mount) supports only "restricted" ioctls: the
 * kernel reads _IOC_SIZE(cmd) bytes from the argument pointer itself and
 * hands them over in the request, so ADDDOF arrives with its 80-byte
 * dof_helper_t and REMOVE with the 4-byte int the pointer points at.  A
 * classic caller passing REMOVE's generation by value never gets here
 * under FUSE (the kernel's copy faults first: helper_abi.h).
 *
 * CUSE (a real character device) sets FUSE_IOCTL_UNRESTRICTED: the first
 * request carries only cmd and the raw argument, and the driver answers
 * "retry, and this time read these bytes at that address".  The second
 * request has the bytes.  Because the raw argument is visible there, a
 * small REMOVE argument is accepted as a by-value generation, so binaries
 * built by other Linux DTrace toolchains can withdraw their DOF too.
 *
 * SYNC (this project's own, helper_abi.h) takes a pointer to an int
 * like REMOVE, never a value; REMOVEDOF (also ours) a dof_helper_t like
 * ADDDOF.
 *
 * No I/O here, no FUSE types: the CUSE path is exercised by unit tests on
 * kernels that have no CUSE.
 */
#include "config.h"

#include <string.h>

#include "helperd.h"

/*
 * The argument of size bytes into dst: from the request where the
 * kernel copied it, else (CUSE) a retry that has the kernel read it at
 * arg, else a bad argument.
 */
static void take_arg(struct hd_ioctl_req *r, uint64_t arg, const void *in,
		     size_t in_len, bool unrestricted, void *dst, size_t size,
		     enum hd_ioctl_action action)
{
	if (in_len >= size) {
		memcpy(dst, in, size);
		r->action = action;
	} else if (unrestricted && in_len == 0 && arg) {
		r->action = HD_IOCTL_RETRY;
		r->retry_addr = arg;
		r->retry_len = size;
	} else {
		r->action = HD_IOCTL_BADARG;
	}
}

void hd_ioctl_decode(unsigned int cmd, uint64_t arg, const void *in,
		     size_t in_len, bool unrestricted, struct hd_ioctl_req *r)
{
	memset(r, 0, sizeof(*r));
	switch (cmd) {
	case DTRACEHIOC_ADDDOF:
		take_arg(r, arg, in, in_len, unrestricted, &r->helper,
			 sizeof(r->helper), HD_IOCTL_ADDDOF);
		return;
	case DTRACEHIOC_REMOVEDOF:
		take_arg(r, arg, in, in_len, unrestricted, &r->helper,
			 sizeof(r->helper), HD_IOCTL_REMOVEDOF);
		return;
	case DTRACEHIOC_SYNC:
		take_arg(r, arg, in, in_len, unrestricted, &r->gen,
			 sizeof(r->gen), HD_IOCTL_SYNC);
		return;
	case DTRACEHIOC_REMOVE:
		if (unrestricted && in_len == 0 &&
		    arg < DTRACE_HELPER_REMOVE_BYVALUE_MAX) {
			/* Classic by-value generation; no page lives there. */
			r->gen = (int)arg;
			r->action = HD_IOCTL_REMOVE;
			return;
		}
		take_arg(r, arg, in, in_len, unrestricted, &r->gen,
			 sizeof(r->gen), HD_IOCTL_REMOVE);
		return;
	default:
		r->action = HD_IOCTL_BADCMD;
		return;
	}
}
