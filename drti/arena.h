/* SPDX-License-Identifier: MIT */
/*
 * arena.h - the memory `dtrace -x activation=user` shares with a traced
 * process: its layout, the one fact drti/rec.c (the recorder, in the
 * target) and dtrace-G/consumer/inproc.c (the consumer) both build on
 * (doc/DESIGN.md §14).  x86-64 only, little-endian, no pointers: both
 * sides map it at addresses of their own.
 *
 * The arena is one memfd the consumer creates in the target (injected
 * memfd_create/mmap/close) and maps itself too.  It opens with a header
 * (struct usdt_arena, one page), then nseg segments of seg_size bytes.
 * A segment is one thread's ring: a header (struct usdt_seg) and nslots
 * fixed records (struct usdt_slot).  A thread claims a segment at its
 * first hit (one atomic add on next_seg) and is then its only writer;
 * the consumer is its only reader.  head (written by the thread, release)
 * and tail (written by the consumer, release) count records since the
 * claim; head - tail is what waits.
 */
#ifndef USDT_DRTI_ARENA_H
#define USDT_DRTI_ARENA_H

#include <stdint.h>

#define USDT_ARENA_MAGIC UINT64_C(0x31616e6572615355) /* "USarena1" */
#define USDT_ARENA_VERSION 1
#define USDT_ARENA_HDR 4096u
#define USDT_SEG_HDR 128u
#define USDT_REC_ARGS 6 /* rdi, rsi, rdx, rcx, r8, r9 */

struct usdt_arena {
	uint64_t magic;
	uint32_t version;
	uint32_t nseg;	   /* segments after the header */
	uint64_t gen;	   /* this arena's identity: a thread's claim is
			      for one arena (a later run maps another) */
	uint64_t hb;	   /* the consumer's TSC at its last beat */
	uint64_t hb_limit; /* TSC ticks after hb: the consumer is gone */
	uint64_t seg_size; /* bytes per segment, header included */
	uint32_t nslots;   /* records per segment, a power of two */
	uint32_t next_seg; /* the next segment to claim (atomic add) */
	uint64_t noseg;	   /* hits lost: no segment left to claim */
};

struct usdt_seg {
	uint32_t pid, tid, ppid; /* of the claiming thread, at its claim */
	uint32_t ready;		 /* 1 once pid, tid and ppid are written */
	uint64_t head;		 /* records written (the thread's) */
	uint64_t drops;		 /* records lost: the ring was full */
	uint64_t pad0[4];
	uint64_t tail; /* records read (the consumer's), own line */
	uint64_t pad1[7];
};

/* One hit: where (the site's address), when (TSC), the six registers. */
struct usdt_slot {
	uint64_t pc;
	uint64_t tsc;
	uint64_t arg[USDT_REC_ARGS];
};

/* What -G's drti.o holds for the consumer: __usdt_ctl. */
struct usdt_ctl {
	uint64_t arena; /* the arena's address in the process; 0: off */
};

#endif /* USDT_DRTI_ARENA_H */
