/* SPDX-License-Identifier: MIT */
/*
 * usdt_bpf.h - what the consumer's BPF program (usdt.bpf.c) and its
 * loader (../bpf.c) agree on: the maps' keys and values and the layout
 * of a ring-buffer record.  Both sides include it; it uses only the
 * fixed-size types of <linux/types.h>, so the same bytes mean the same
 * thing to clang -target bpf and to the host compiler.
 *
 * A uprobe event is an index (its bpf_cookie, "ev"); its entry in the
 * map evspec says how to fetch each argument of the site from the
 * registers (struct ubpf_arg, from the stapsdt note), which strings to
 * copy and whether the thread's name is wanted.  A hit writes one
 * record (struct ubpf_rec, then nargs 8-byte arguments, then for each
 * bit of strmask a 2-byte length and that many bytes) unless every
 * clause of the hit's probe aggregates in the kernel (struct ubpf_kplan,
 * kagg_bpf.h).  When the event's ustk is set (a clause reads ustack()),
 * the record goes on, flagged UBPF_RF_USTACK, at the next multiple of 8:
 * the user registers (UBPF_NREG of them, 8 bytes each, as uregs.h numbers
 * them), a 4-byte length and 4 zero bytes, then that many bytes of the
 * thread's stack from its stack pointer (../ustack.c unwinds it).
 * When a clause reads vtimestamp (vtime.bpf.h), every record has, flagged
 * UBPF_RF_VTIME, the thread's on-CPU time in 8 bytes right after the
 * arguments (before the strings), UBPF_VTIME_LOST where it is unknown.
 * When one reads uid or gid (the event's cred), every record has,
 * flagged UBPF_RF_CRED, the thread's real uid and gid at the hit, 4 bytes
 * each, after those (before the
 * strings).  When one reads ppid or calls progenyof() (the event's
 * ppid), every record whose thread's parent could be read has, flagged
 * UBPF_RF_PPID, the parent process's pid and 4 zero bytes after those;
 * when one calls progenyof() (anc_on), those 4 bytes are the chain of
 * parents walked at the hit (struct ubpf_anc), its links after them.
 * When one reads curpsinfo->pr_pgid or pr_sid (the event's sess), every
 * record whose process's session could be read has, flagged
 * UBPF_RF_SESS, its process group's and session's ids after those.
 * When one reads curpsinfo->pr_euid or pr_egid (the event's
 * ecred), every record whose thread's credentials could be read has,
 * flagged UBPF_RF_ECRED, its effective uid and gid, 4 bytes each, after
 * those.  When one reads curpsinfo->pr_psargs (the event's psargs),
 * a record whose process's argument area could be read has, flagged
 * UBPF_RF_PSARGS, a 2-byte length and at most UBPF_PSARGS bytes of it
 * after those (../psargs.c makes them DTrace's pr_psargs).  When a
 * clause calls copyout() or copyoutstr() (-w: the event's wlen),
 * usdt_hit_w writes the bytes at the hit, after the record's copies, and
 * flags the record UBPF_RF_WROTE, with UBPF_RF_WFAULT when the write
 * faulted; bytes it reads first (wsrc) that fault are not written, and
 * the record has neither flag.  When dtrace holds the thread at the
 * hit instead (the event's hold), a record whose thread usdt_hit
 * stopped is flagged UBPF_RF_HELD: dtrace writes, then lets it go.  A
 * generated program whose plan has fault sites (kagg_bpf.h's SEQ with
 * agg set: ../cgen.c) flags every record UBPF_RF_KFAULT and ends it
 * with 8 bytes, the sites' bits (before its user stack, where it
 * carries one: ../rec_impl.h's rec_kfault()): site i's 1 << 2i when the
 * string was unreadable at its address, 2 << 2i at the page after it
 * (other sites' codes: kagg_bpf.h).  One whose
 * plan computes printf() and trace() values (kagg_bpf.h's OUT, OSTR:
 * ../kplan_out.c) flags every record UBPF_RF_KOUT and puts its out area
 * (struct ubpf_kout and the values) right after the uid and gid.
 * A record whose stack unw.bpf.c walked (UBPF_RF_UPCS, with
 * UBPF_RF_USTACK) has the registers as above, then the length of what
 * follows, 8 bytes a pc found, and those pcs, the probe's address first.
 */
#ifndef USDT_BPF_H
#define USDT_BPF_H

#include <linux/types.h>

#include "uregs.h"

#define UBPF_MAXARGS 12	    /* D_MAXARGS */
#define UBPF_MAXEV 4096	    /* uprobe events of one run */
#define UBPF_STRMAX 256	    /* bytes of one string copied, NUL included */
#define UBPF_SCRATCH 8192   /* a record is built here first */
#define UBPF_MAXUSERS 16384 /* (event, process) pairs */
#define UBPF_USTKMAX 16384  /* bytes of user stack a record may ask for */
/*
 * progenyof()'s chain at the hit (doc/DESIGN.md §8 "progenyof() in the
 * generated programs"): A[0] the parent's tgid, A[i + 1] the tgid of the
 * real_parent of the task whose tgid A[i] is, at most UBPF_ANC of them;
 * complete at the first 0, cut where UBPF_ANC hold none or a read
 * fails.  In a record: A[0], then struct ubpf_anc's n and state in the
 * 4 bytes after it (0 0 where no chain was taken), then A[1 .. n] as
 * u32, padded to 8 bytes (a kernel probe's A[0], n and state are its
 * struct ubpf_kctx's ppid and pad, its links the first of what follows
 * its arguments, vtimestamp and out area).
 */
#define UBPF_ANC 32
#define UBPF_ANC_FULL 1 /* the chain reached 0 */
#define UBPF_ANC_CUT 2	/* it did not: UBPF_ANC links, or a read failed */
struct ubpf_anc {
	__u16 n;     /* links after A[0], at most UBPF_ANC - 1 */
	__u16 state; /* 0: none taken; UBPF_ANC_FULL, UBPF_ANC_CUT */
};
/* the bytes the links after A[0] take (padded to 8) */
#define UBPF_ANC_BYTES(n) ((4u * (unsigned)(n) + 7u) & ~7u)
/* a generated program's chain room in cgbuf, where a plan computes
 * progenyof() of a pid it computes (UBPF_K_PROGX): the hit's pid, then
 * A[0 ..] up to the 0 that ends it, u32 each (cgen_rec.c's
 * cgen_anc_plan()), padded to 8 */
#define UBPF_ANCROOM (4u * (UBPF_ANC + 1) + 4u)
/* the scratch's room for the user stack: registers, length, the copy
 * (at most one page more than asked: it goes on by whole pages) */
#define UBPF_USTKROOM (8 * UBPF_NREG + 8 + UBPF_USTKMAX + 4096 + 8)
/* cgbuf's owner word (the generated programs': cgen.c's own_need()),
 * past all that a record and its stack copy use there; cgbuf's value is
 * 8 bytes longer than they */
#define UBPF_CGOWN(ustk) (UBPF_SCRATCH + ((ustk) ? UBPF_USTKROOM : 0))
#define UBPF_MEMMAX 256	    /* bytes of one copyin() copied at hit time */
#define UBPF_RF_USTACK 0x2 /* struct ubpf_rec's flags, beside kagg_bpf.h's */
#define UBPF_RF_VTIME 0x4  /* 8 bytes after the arguments: vtimestamp */
#define UBPF_VTIME_LOST (~0ULL) /* that vtimestamp: unknown (vtime.bpf.h) */
#define UBPF_RF_CRED 0x8   /* then 8 more: the uid and the gid */
#define UBPF_RF_PSARGS 0x10 /* then the argument area's first bytes */
#define UBPF_RF_ECRED 0x20  /* before those: the euid and the egid */
#define UBPF_RF_PPID 0x40   /* before those: the parent's pid */
#define UBPF_RF_SESS 0x80   /* then the process group's and session's */
#define UBPF_RF_WROTE 0x100 /* copyout(): the event's write was made */
#define UBPF_RF_WFAULT 0x200 /* ... and faulted */
/* the plan's fault bits: the last 8 bytes, or the 8 before the stack */
#define UBPF_RF_KFAULT 0x400
#define UBPF_RF_KOUT 0x800 /* after the uid and gid: the out area */
#define UBPF_RF_HELD 0x1000 /* copyout(): the thread stopped at the hit */
/* with UBPF_RF_USTACK: the length counts pcs the kernel walked
 * (unw.bpf.c), 8 bytes each, not the stack's bytes */
#define UBPF_RF_UPCS 0x2000
/* a generated program that tests the run's activity (cgact: kplan_exit.c's
 * "exit() at a traced probe") found it active; and this hit ended it */
#define UBPF_RF_ACT 0x4000
#define UBPF_RF_XWON 0x8000
/* the hold map's values (a thread's, shared with ../dlhold.c) */
#define UBPF_HOLD_SEIZED 1 /* dtrace traces it */
#define UBPF_HOLD_CO 4	   /* SIGURG sent at a copyout() probe */
#define UBPF_HOLD_DROP 5   /* ... whose record was dropped */
#define UBPF_SIGURG 23	   /* the signal that holds: x86-64's and arm64's */
#define UBPF_WMAX 64	     /* bytes one copyout() writes (D_COPYOUT_MAX) */
#define UBPF_PSARGS 80	    /* DTrace's PRARGSZ */
#define UBPF_VTIME_MAX 16384 /* live threads vtime.bpf.h keeps a clock for */

/* argument kinds */
#define UBPF_A_NONE 0  /* not fetched: reads as 0 */
#define UBPF_A_REG 1   /* a register */
#define UBPF_A_REGHI 2 /* bits 8-15 of a register (%ah) */
#define UBPF_A_MEM 3   /* memory at register + off */
#define UBPF_A_CONST 4 /* off itself */

/*
 * Registers, as the machine's stapsdt parser numbers them (stapsdt.h),
 * then the instruction pointer: uregs.h's UREG_*, the machine's that
 * dtrace runs on, which is the one its BPF programs are compiled for.
 */
#define UBPF_NREG UREG_N
#define UBPF_R_SP UREG_SP
#define UBPF_R_IP UREG_IP
#if !defined(__aarch64__) && !defined(__TARGET_ARCH_arm64)
/* x86-64's by name (STAPSDT_REG_RAX .. R15) */
#define UBPF_R_AX 0
#define UBPF_R_DX 1
#define UBPF_R_CX 2
#define UBPF_R_BX 3
#define UBPF_R_SI 4
#define UBPF_R_DI 5
#define UBPF_R_BP 6
#define UBPF_R_R8 8
#define UBPF_R_R9 9
#define UBPF_R_R10 10
#define UBPF_R_R11 11
#define UBPF_R_R12 12
#define UBPF_R_R13 13
#define UBPF_R_R14 14
#define UBPF_R_R15 15
#endif

struct ubpf_arg {
	__u8 kind;
	__u8 reg;
	__u8 size; /* 1, 2, 4, 8 */
	__u8 sgn;
	__u32 pad;
	__s64 off;
};

/* evspec[ev] */
struct ubpf_ev {
	__u32 nargs;   /* arguments recorded (the highest needed + 1) */
	__u16 strmask; /* strings to copy at the arguments' addresses */
	__u8 comm;     /* the thread's name */
	__u8 ustk;     /* KiB of user stack to copy (UBPF_RF_USTACK) */
	struct ubpf_arg a[UBPF_MAXARGS];
	/* copyin(argN, size): bytes to copy at the address in argument
	 * memarg (memmask has that one bit, or none) */
	__u16 memmask;
	__u16 memlen[UBPF_MAXARGS]; /* at most UBPF_MEMMAX */
	__u8 memarg;
	__u8 cred; /* the uid and gid at the hit (UBPF_RF_CRED) */
	__u8 psargs; /* the argument area at the hit (UBPF_RF_PSARGS) */
	__u8 ecred;  /* the euid and egid at the hit (UBPF_RF_ECRED) */
	__u8 ppid;   /* the parent's pid at the hit (UBPF_RF_PPID) */
	__u8 sess;   /* the pgid and sid at the hit (UBPF_RF_SESS) */
	/* copyout(), copyoutstr() (usdt_hit_w only): write wlen bytes of
	 * wbytes at the address in argument warg when wlen is not 0; with
	 * wsrc, the bytes read first at the address in argument wsrc - 1:
	 * wrlen of them, or with wstr a string of at most wrlen bytes, its
	 * NUL included, of which at most wlen are written */
	__u8 warg;
	__u8 wsrc;
	__u16 wlen;
	char wbytes[UBPF_WMAX];
	__u16 wrlen;
	__u8 wstr;
	/* copyout() with the thread held (usdt_hit, usdt_hit_vt): stop the
	 * thread at the hit, where ../dlhold.c can (UBPF_RF_HELD) */
	__u8 hold;
};

/* A record's fixed part. */
struct ubpf_rec {
	__u64 time; /* CLOCK_MONOTONIC, ns */
	__u32 pid, tid;
	__u32 cpu;
	__u32 ev;
	__u16 len; /* bytes in all, this header included */
	__u16 nargs;
	__u16 strmask;
	__u16 flags; /* UBPF_RF_* (kagg_bpf.h) */
	char comm[16]; /* when the event's comm is set */
};

#endif /* USDT_BPF_H */
