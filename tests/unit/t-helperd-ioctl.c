// SPDX-License-Identifier: MIT
/*
 * t-helperd-ioctl.c - how dtrace-helperd reads a helper ioctl
 * (helper-driver/hd_ioctl.c), for both ways the kernel delivers one.
 *
 * FUSE ("restricted"): the kernel copied _IOC_SIZE bytes in already.
 * CUSE ("unrestricted"): the first request has only the raw argument and
 * the daemon must ask for a retry naming the bytes it wants; REMOVE may
 * carry a classic by-value generation.  This machine's kernel has no
 * CUSE, so this is where the CUSE request handling is proved.
 */
#include "config.h"

#include <string.h>

#include "helperd.h"
#include "tap.h"

int main(void)
{
	struct hd_ioctl_req r;
	dof_helper_t h;
	int gen = 42;
	uint64_t ptr = 0x7ffc12345000ULL;

	memset(&h, 0, sizeof(h));
	strcpy(h.dofhp_mod, "myapp");
	h.dofhp_addr = 0x555555554000ULL;
	h.dofhp_dof = 0x555555558010ULL;

	/* FUSE: the record arrives with the request. */
	hd_ioctl_decode(DTRACEHIOC_ADDDOF, ptr, &h, sizeof(h), false, &r);
	is_int(r.action, HD_IOCTL_ADDDOF, "FUSE ADDDOF is decoded");
	is_str(r.helper.dofhp_mod, "myapp", "module name copied");
	ok(r.helper.dofhp_addr == h.dofhp_addr &&
		   r.helper.dofhp_dof == h.dofhp_dof,
	   "load bias and DOF address copied");

	hd_ioctl_decode(DTRACEHIOC_ADDDOF, ptr, &h, 40, false, &r);
	is_int(r.action, HD_IOCTL_BADARG, "FUSE ADDDOF with 40 bytes refused");
	hd_ioctl_decode(DTRACEHIOC_ADDDOF, ptr, NULL, 0, false, &r);
	is_int(r.action, HD_IOCTL_BADARG,
	       "FUSE ADDDOF without data refused (no retry under FUSE)");

	hd_ioctl_decode(DTRACEHIOC_REMOVE, ptr, &gen, sizeof(gen), false, &r);
	is_int(r.action, HD_IOCTL_REMOVE, "FUSE REMOVE is decoded");
	is_int(r.gen, 42, "generation read through the pointer");
	hd_ioctl_decode(DTRACEHIOC_REMOVE, 7, NULL, 0, false, &r);
	is_int(r.action, HD_IOCTL_BADARG,
	       "FUSE REMOVE by value is refused (never reaches a FUSE daemon)");

	/* CUSE: ask for the bytes, then decode the retried request. */
	hd_ioctl_decode(DTRACEHIOC_ADDDOF, ptr, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_RETRY, "CUSE ADDDOF asks for a retry");
	ok(r.retry_addr == ptr, "retry reads at the argument pointer");
	is_int(r.retry_len, sizeof(dof_helper_t), "retry reads 80 bytes");
	hd_ioctl_decode(DTRACEHIOC_ADDDOF, ptr, &h, sizeof(h), true, &r);
	is_int(r.action, HD_IOCTL_ADDDOF, "CUSE ADDDOF retried is decoded");
	ok(r.helper.dofhp_dof == h.dofhp_dof, "CUSE: DOF address copied");
	hd_ioctl_decode(DTRACEHIOC_ADDDOF, 0, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_BADARG, "CUSE ADDDOF with NULL refused");

	hd_ioctl_decode(DTRACEHIOC_REMOVE, 5, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_REMOVE, "CUSE classic REMOVE by value");
	is_int(r.gen, 5, "by-value generation taken from the argument");
	hd_ioctl_decode(DTRACEHIOC_REMOVE, DTRACE_HELPER_REMOVE_BYVALUE_MAX - 1,
			NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_REMOVE, "largest by-value generation");
	hd_ioctl_decode(DTRACEHIOC_REMOVE, ptr, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_RETRY, "CUSE REMOVE by pointer: retry");
	is_int(r.retry_len, sizeof(int), "retry reads an int");
	ok(r.retry_addr == ptr, "at the pointer");
	hd_ioctl_decode(DTRACEHIOC_REMOVE, ptr, &gen, sizeof(gen), true, &r);
	is_int(r.action, HD_IOCTL_REMOVE, "CUSE REMOVE retried");
	is_int(r.gen, 42, "generation from the retried request");

	/* SYNC: always a pointer to a generation (0: everything). */
	gen = 0;
	hd_ioctl_decode(DTRACEHIOC_SYNC, ptr, &gen, sizeof(gen), false, &r);
	is_int(r.action, HD_IOCTL_SYNC, "FUSE SYNC is decoded");
	is_int(r.gen, 0, "SYNC of everything");
	hd_ioctl_decode(DTRACEHIOC_SYNC, ptr, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_RETRY, "CUSE SYNC: retry");
	ok(r.retry_addr == ptr && r.retry_len == sizeof(int),
	   "retry names the int at the pointer");
	gen = 42;
	hd_ioctl_decode(DTRACEHIOC_SYNC, ptr, &gen, sizeof(gen), true, &r);
	is_int(r.gen, 42, "CUSE SYNC retried: the generation");
	hd_ioctl_decode(DTRACEHIOC_SYNC, 5, NULL, 0, false, &r);
	is_int(r.action, HD_IOCTL_BADARG, "FUSE SYNC without its int refused");
	ok(DTRACEHIOC_SYNC != DTRACEHIOC_ADDDOF &&
		   DTRACEHIOC_SYNC != DTRACEHIOC_REMOVE &&
		   _IOC_NR(DTRACEHIOC_SYNC) > 3,
	   "SYNC's number is none of the classic helper's");

	/* REMOVEDOF: a dof_helper_t, like ADDDOF, never a value. */
	hd_ioctl_decode(DTRACEHIOC_REMOVEDOF, ptr, &h, sizeof(h), false, &r);
	is_int(r.action, HD_IOCTL_REMOVEDOF, "FUSE REMOVEDOF is decoded");
	ok(r.helper.dofhp_dof == h.dofhp_dof, "REMOVEDOF: DOF address copied");
	hd_ioctl_decode(DTRACEHIOC_REMOVEDOF, ptr, &gen, sizeof(gen), false,
			&r);
	is_int(r.action, HD_IOCTL_BADARG, "FUSE REMOVEDOF of 4 bytes refused");
	hd_ioctl_decode(DTRACEHIOC_REMOVEDOF, 5, NULL, 0, true, &r);
	is_int(r.action, HD_IOCTL_RETRY,
	       "CUSE REMOVEDOF: a small argument is a pointer too");
	is_int(r.retry_len, sizeof(dof_helper_t), "... and 80 bytes are read");
	ok(DTRACEHIOC_REMOVEDOF != DTRACEHIOC_ADDDOF &&
		   DTRACEHIOC_REMOVEDOF != DTRACEHIOC_SYNC &&
		   _IOC_NR(DTRACEHIOC_REMOVEDOF) > 3,
	   "REMOVEDOF's number is none of the classic helper's");

	/* Anything else is not ours. */
	hd_ioctl_decode(0x5401 /* TCGETS */, ptr, NULL, 0, false, &r);
	is_int(r.action, HD_IOCTL_BADCMD, "TCGETS: ENOTTY");
	hd_ioctl_decode(_IOW(DTRACEHIOC_TYPE, 1, int), ptr, &gen, 4, true, &r);
	is_int(r.action, HD_IOCTL_BADCMD, "unknown helper number: ENOTTY");
	hd_ioctl_decode(_IOW(DTRACEHIOC_TYPE, 3, int), ptr, &gen, 4, false,
			&r);
	is_int(r.action, HD_IOCTL_BADCMD,
	       "ADDDOF's number with another size is not ADDDOF");
	return tap_done();
}
