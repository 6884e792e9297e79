/* SPDX-License-Identifier: MIT */
/*
 * ustk.bpf.h - the copy of a thread's user stack, shared by the generic
 * program (usdt.bpf.c's ustack_copy()) and the unwinder's fallback
 * (unw.bpf.c); ../cgen.c emits the same for the generated programs.
 * From sp to the end of its page, then a page at a time while fewer
 * than want bytes were taken and the next page reads, so the copy
 * stops where the stack's mapping ends.  Included after
 * <bpf/bpf_helpers.h> and usdt_bpf.h (UBPF_USTKMAX).
 */
#ifndef USTK_BPF_H
#define USTK_BPF_H

/* The bytes copied to dst (0: not even sp's page read). */
static __always_inline __u32 ustk_pages(__u8 *dst, __u64 sp, __u32 want)
{
	__u32 got, i;

	got = 4096 - (__u32)(sp & 4095);
	if (got > want)
		got = want;
	/*
	 * got is at most 4096 here, but clang may pass want itself as the
	 * size on the got > want path, and a 6.1 verifier does not carry
	 * the bound of one register compared with another (want may be
	 * 255 KiB): it refuses the read.  barrier_var() hides what clang
	 * knows, so the mask below stays and bounds the size it passes.
	 */
	barrier_var(got);
	got &= 8191;
	if (got > 4096)
		got = 4096;
	if (bpf_probe_read_user(dst, got, (const void *)sp) < 0)
		return 0;
	/* a bounded loop: the verifier walks its rounds */
	for (i = 0; i < UBPF_USTKMAX / 4096; i++) {
		if (got >= want ||
		    bpf_probe_read_user(dst + got, 4096,
					(const void *)(sp + got)) < 0)
			break;
		got += 4096;
	}
	return got;
}

#endif /* USTK_BPF_H */
