/* SPDX-License-Identifier: MIT */
/*
 * fasttrap_abi.h - /dev/dtrace/fasttrap, the kernel side of tracing
 * (helper-driver/kmod), as the consumer (dtrace-G/consumer/fasttrap.c) sees it.
 *
 * Each open file is one consumer.  FASTTRAPIOC_ENABLE arms one probe site
 * in one process: the module registers a kernel uprobe consumer on the
 * site, with the probe's semaphore as reference counter, filtered to that
 * process's address space, so no other process pays for it.  Each hit
 * appends a struct ft_record to the file's ring, which read(2) drains
 * (whole records only) and poll(2) reports; when the ring is full the
 * record is counted as a drop (FASTTRAPIOC_STATS).  FASTTRAPIOC_DISABLE
 * disables every site the file enabled and keeps the ring, so the last
 * records can still be read; closing the file disables everything too.
 *
 * A legacy is-enabled site (FT_ISENABLED) is `xor %eax,%eax` followed by
 * a 3-byte NOP (31 c0 0f 1f 00): the module puts the probe on the NOP, at
 * offset + 2, and sets %eax to 1 there, so the code the site guards runs
 * while the probe is enabled, as on illumos; it records nothing.
 *
 * Arguments are fetched at hit time as the site's stapsdt note describes
 * them (struct ft_arg): a register, memory at register + displacement,
 * or a constant; registers are numbered as in the x86-64 DWARF ABI, as
 * sdk/stapsdt.h numbers them (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi,
 * 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip).  Strings (strmask) are copied from
 * the address the argument holds, at most FT_STRMAX bytes.
 *
 * Forked children (FT_FOLLOW).  A site enabled with FT_FOLLOW follows
 * fork: every process forked, at any depth, from the site's process
 * while the site is on (and before it execs: an exec is a new address
 * space) hits the site too, with its own pid and tid in the records, and
 * the file gets one FT_COOKIE_FORK record per such fork (a thread is no
 * fork), written before the child runs, so it precedes the child's
 * records in read(2)'s order: pid and tid are the child's, args[0] its
 * parent's pid.  FASTTRAPIOC_ENABLE of the same site (file, offset) with
 * FT_FOLLOW in a process that the file's sites already follow that way
 * arms nothing and returns 1 (a second site would record every hit
 * twice); its hits keep their first site's cookie.  Without FT_FOLLOW a
 * child's inherited breakpoint is removed at its first hit, unrecorded,
 * and the file gets no FT_COOKIE_FORK record: what consumers written
 * before FT_FOLLOW see.
 *
 * Exec (FT_EXEC).  A site enabled with FT_EXEC makes the file watch its
 * process, and the processes it forks that the file's FT_FOLLOW sites
 * follow: when one of them execs, the file gets one FT_COOKIE_EXEC
 * record (pid, tid, comm of the new image, time), written before the
 * new image's first instruction, so before anything it registers.  Its
 * sites went with the old image: a consumer arms the new image's anew,
 * the same file's too.  A module older than FT_EXEC refuses the flag.
 *
 * Everything is little-endian x86-64 with fixed-width fields, the same
 * layout for the module and the consumer.
 */
#ifndef USDT_FASTTRAP_ABI_H
#define USDT_FASTTRAP_ABI_H

#ifdef __KERNEL__
#include <linux/ioctl.h>
#include <linux/types.h>
#else
#include <stdint.h>
#include <sys/ioctl.h>
#endif

#define FASTTRAP_DEVNAME "/dev/dtrace/fasttrap"

#define FT_MAXARGS 12
#define FT_STRMAX 256

enum ft_loc {
	FT_LOC_NONE = 0,  /* not fetched: 0 */
	FT_LOC_REG = 1,	  /* the register's low `size` bytes */
	FT_LOC_MEM = 2,	  /* `size` bytes at register + off */
	FT_LOC_CONST = 3, /* off */
};

struct ft_arg {
	uint8_t kind;	   /* enum ft_loc */
	uint8_t reg;	   /* FT_LOC_REG, FT_LOC_MEM */
	uint8_t size;	   /* 1, 2, 4 or 8 */
	uint8_t is_signed; /* sign-extend to 64 bits */
	uint32_t pad;	   /* 0 */
	int64_t off;	   /* FT_LOC_MEM: displacement; FT_LOC_CONST: value */
};

struct ft_enable {
	int32_t pid;	 /* the process (its address space) */
	int32_t fd;	 /* an open descriptor of the file the site is in */
	uint64_t offset; /* file offset of the site */
	uint64_t refctr; /* file offset of the semaphore, 0 if none */
	uint64_t cookie; /* returned in every record of this site */
	uint32_t flags;	 /* FT_ISENABLED, FT_FOLLOW, FT_EXEC */
	uint16_t nargs;	 /* args[0 .. nargs - 1] are fetched */
	uint16_t strmask; /* bit N: copy the string argument N points to */
	struct ft_arg args[FT_MAXARGS];
};

#define FT_ISENABLED 0x1
#define FT_FOLLOW 0x2 /* forked children hit the site too (above) */
#define FT_EXEC 0x4   /* an exec of the process is recorded (above) */

/* the cookie of a record that says a followed process forked */
#define FT_COOKIE_FORK (~(uint64_t)0)
/* the cookie of a record that says a watched process exec'd (FT_EXEC) */
#define FT_COOKIE_EXEC (~(uint64_t)1)

/* What read(2) returns, back to back; size is a multiple of 8. */
struct ft_record {
	uint32_t size; /* the whole record, strings included */
	uint32_t cpu;
	uint64_t cookie;
	uint64_t time; /* ns, CLOCK_MONOTONIC (ktime_get_ns) */
	int32_t pid, tid;
	char comm[16];
	uint64_t args[FT_MAXARGS];
	/* bytes of each copied string, NUL included; 0: none or a fault */
	uint16_t strlen[FT_MAXARGS];
	uint64_t pad; /* 0; sizeof(struct ft_record) is 176 */
	/* then the strings with a nonzero strlen, in argument order */
};

struct ft_stats {
	uint64_t hits;	/* records written */
	uint64_t drops; /* records the ring could not hold */
};

#define FASTTRAPIOC_ENABLE _IOW(0xd9, 1, struct ft_enable)
#define FASTTRAPIOC_STATS _IOR(0xd9, 2, struct ft_stats)
#define FASTTRAPIOC_DISABLE _IO(0xd9, 3)

#endif /* USDT_FASTTRAP_ABI_H */
