/* SPDX-License-Identifier: MIT */
/*
 * unw_bpf.h - what the in-kernel unwinder (unw.bpf.c) and the table
 * builder that fills its maps (../ustack_walk.c) agree on.  Both sides
 * include it; fixed-size types only, as usdt_bpf.h.
 *
 * A row says how to find a frame's caller at the addresses from its pc
 * (an ELF address of its file) up to the next row's, as libdw reads it
 * from the file's .eh_frame: the CFA is rsp or rbp plus cfa, the return
 * address is at CFA - 8, the caller's rsp is the CFA, and its rbp is
 * the frame's own (UW_BP_SAME), unknown (UW_BP_UNDEF) or read at CFA +
 * bp (UW_BP_AT).  A row of kind UW_K_UNKNOWN is an address whose
 * frame cannot be said so (no FDE there, a signal frame, another
 * register, an expression): the walk hands the hit back.  UW_K_END is
 * an outermost frame (its return address undefined).  The rows of a
 * file are sorted by pc and start with a row at 0; they go into one
 * array map (urows), files one after the other, and are never written
 * again while the run lasts.  A file's page index (upages, after its
 * rows) narrows the search: entry p is the last of its rows (from lo)
 * at or below the address p << 12, so the row at a in page p lies in
 * [index p, index p + 1] (a search of a few rows, not of all).
 *
 * A process's modules are one slot of umods: each r-x mapping of a
 * file the maps text of its image lists, its addresses, its file's
 * device and inode and the file offset mapped at its start (in pages)
 * as /proc/PID/maps gives them (the kernel's, from the same vm_file and
 * vm_pgoff), the load bias and the file's rows [lo, hi).  upx
 * maps a tgid to its slot and the task_struct.self_exec_id the slot's
 * tables are for; useen holds, per tgid, the self_exec_id of its last
 * hit the walker found no tables for, which the builder keys the next
 * tables with.
 */
#ifndef UNW_BPF_H
#define UNW_BPF_H

#include <linux/types.h>

#define UW_MAXFR 128	       /* frames walked; a deeper stack goes back */
#define UW_MAXMODS 32	       /* r-x file mappings of one process */
#define UW_MAXSLOTS 512	       /* processes with tables at once */
#define UW_MAXROWS (1u << 19)  /* rows of all files together */
#define UW_SEARCH 20	       /* binary search steps: 2^20 rows at most */
#define UW_BLK 1024	       /* bytes of stack read at once from rsp */
#define UW_MAXPAGES (1u << 18) /* page index entries of all files */

#define UW_K_SP 0      /* CFA = rsp + cfa */
#define UW_K_BP 1      /* CFA = rbp + cfa */
#define UW_K_UNKNOWN 2 /* the walk gives the hit back */
#define UW_K_END 3     /* the outermost frame */

#define UW_BP_SAME 0  /* the caller's rbp: this frame's */
#define UW_BP_UNDEF 1 /* ... not known */
#define UW_BP_AT 2    /* ... read at CFA + bp */

struct uw_row {
	__u64 pc;
	__s32 cfa;
	__u8 kind;
	__u8 bpk;
	__s16 bp;
};

struct uw_mod {
	__u64 start, end; /* the r-x mapping */
	__u64 bias;	  /* its file's ELF address + bias = address */
	__u64 ino;
	__u32 dev;     /* the kernel's dev_t: major << 20 | minor */
	__u32 lo, hi;  /* the file's rows in urows */
	__u32 pg, npg; /* its page index in upages, or npg 0: none */
	__u32 pgoff;   /* the file's page (offset >> 12) mapped at start */
};

struct uw_slot {
	struct uw_mod m[UW_MAXMODS];
};

/* upx's values */
struct uw_px {
	__u64 xid; /* task_struct.self_exec_id the tables are for */
	__u32 slot, nmods;
	__u32 gen; /* which filling of the slot (uvc's checks are per one) */
	__u32 pad;
};

/*
 * Where the generated program leaves, in cgbuf, the KiB of stack its
 * copy would take (the unwinder reads no further than the copy would
 * have: what lies above it the copy's unwinding reads later, live).
 */
#define UW_KIB_OFF (UBPF_SCRATCH - 8)

#endif /* UNW_BPF_H */
