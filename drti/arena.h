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
 *
 * Segments given back.  Once every fresh segment is claimed, the
 * consumer looks at each claimed one's thread: one that has exited
 * (no /proc/PID/task/TID) and whose records are all read it gives back
 * (ready 0, then given 1, release).  A thread that finds no fresh
 * segment takes such a one (given 1 to 0 by compare-and-swap), writes
 * its pid, tid and ppid and sets ready again; head and tail go on from
 * where they were (equal).  One whose thread ran plans keeps that
 * thread's aggregation slots, which the consumer merges at the end as
 * its pid's: only a thread of the same process takes it.
 *
 * Aggregating in the arena (version 2).  When some clauses of the run
 * only aggregate integers (what consumer/kplan.c lets the kernel path
 * run in BPF), the consumer compiles each armed site's plan -- those
 * clauses as a little stack machine's instructions, the encoding of
 * consumer/bpf/kagg_bpf.h with the site's argument registers resolved
 * -- into the plan area after the segments, and names it in a hash of
 * site addresses (struct usdt_asite, USDT_ASITES of them, the address
 * its key).  Every segment then ends in an aggregation area of its
 * thread's own: USDT_AFLAT value pairs for the statements without keys
 * (kflat's slots) and a hash of USDT_AHASH keyed entries (kaggs'),
 * written by that thread alone, read and merged by the consumer when
 * tracing has ended.  Only a thread of the arena's owner (seg.own)
 * runs plans: a fork child's hits are records, which the consumer's
 * fork tree sorts out.  A hit whose entries might not fit (fewer than
 * the plan's keyed statements free below three quarters of the hash)
 * is a record instead, for all its clauses: nothing is lost or half
 * done.  A plan that leaves clauses for the record sets
 * USDT_PC_AGG in the record's pc, so the consumer runs only the rest.
 */
#ifndef USDT_DRTI_ARENA_H
#define USDT_DRTI_ARENA_H

#include <stdint.h>

#define USDT_ARENA_MAGIC UINT64_C(0x31616e6572615355) /* "USarena1" */
#define USDT_ARENA_VERSION 4
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
	uint64_t noseg;	   /* hits lost by a thread without a segment:
			      none left to claim, or a stale heartbeat */
	/* aggregating (version 2; all 0: every hit is a record) */
	uint32_t owner;	   /* the pid whose threads run plans */
	uint32_t aplans;   /* 1: the plan area and site hash are there */
	uint64_t agg_off;  /* a segment's aggregation area, from its start */
	uint64_t site_off; /* the site hash, from the arena's start */
	uint64_t plan_off; /* the plan area, from the arena's start */
	/* following an exec (below): 1 while the consumer answers */
	uint64_t execs;
	/* 1: the consumer answers a dlopen()ed object's ask too (below) */
	uint64_t dlopens;
	/* the consumer, for a waiter to tell slow from gone (below; all 0:
	 * a dtrace that predates them, hb_limit alone) */
	uint32_t cpid; /* its pid */
	uint32_t pad;
	uint64_t cstart;   /* its start, /proc/PID/stat's 22nd field */
	uint64_t hb_alive; /* TSC ticks after hb: gone, though alive */
	/* copies at the hit (version 3, below; 0: none, every thread) */
	uint32_t specs; /* 1: the site hash names copy specs */
	uint32_t pad3;
	uint64_t spec_off; /* the spec area, from the arena's start */
	/* the owner's pid namespace (version 4, below; 0: not said) */
	uint64_t own_nsdev, own_nsino;
};

/*
 * Following an exec.  The first arena the consumer makes in a process
 * stays open there at descriptor USDT_EXEC_FD, without close-on-exec,
 * so the image an exec loads inherits it (and so does a fork child).
 * drti.o's constructor in that image (rec.c, priority 101: before the
 * object's other constructors) finds it there, claims a slot in the
 * header page (its pid, and AT_RANDOM's 16 bytes as the image's token),
 * sets USDT_EX_WAIT and waits while the consumer follows it; the
 * consumer takes it (USDT_EX_ARMING), arms the new image, and answers
 * USDT_EX_DONE.  The consumer follows while it beats (hb no older than
 * hb_limit), and while it is alive though slow (stopped, loaded): the
 * process cpid, started at cstart (so not a pid reused), not exited (a
 * pidfd: a SIGKILLed one is gone at once, zombie or not), up to
 * hb_alive after its last beat.  hb 0 is tracing ended: gone.  A
 * waiter that finds the consumer gone gives up (USDT_EX_GAVEUP, by
 * compare-and-swap from USDT_EX_WAIT only), so an image is never armed
 * after it ran on: the consumer says so instead.  An image that starts
 * while the consumer is gone claims no slot (no one would read it).
 * Later copies of drti.o in the same image find the slot done under
 * their token and go on.  The hit path checks hb_limit alone.
 *
 * Following a dlopen() (dlopens 1).  The slot stays the image's.  A
 * copy of drti.o whose control block is not armed finds it done under
 * its token: it was mapped after the image was armed (a dlopen(): the
 * consumer points the control block of every copy mapped when it arms
 * at the arena, enabled probes or not; and makes the arena in a -p or
 * -c target that carries drti.o with nothing of it armed).  ld.so maps
 * a dlopen()'s objects and their dependencies before it runs any of
 * their constructors, so the first such copy asks (USDT_EX_DONE to
 * USDT_EX_DLOPEN, by compare-and-swap), the consumer reads the maps and
 * arms what is new with the thread held (USDT_EX_ARMING), and answers
 * USDT_EX_DONE; one that finds the consumer gone (as an exec's) gives up
 * (USDT_EX_DLGAVEUP, from USDT_EX_DLOPEN only), which the consumer says
 * and sets done again.
 */
/*
 * The semaphores the consumer raised, logged in the header page before
 * the exec slots: {pid, address, the image's token} written after each
 * raise, zeroed before it lowers one (at its end, a file unmapped).  A
 * dtrace that takes over a dead arena (its beat stopped: SIGKILLed)
 * lowers the entries of the process it takes, of its current image (an
 * exec'd image maps the first arena's header too, with the old image's
 * entries, at addresses that may be the new one's), whose address is a
 * semaphore of a note it knows there, each zeroed first, so a kill
 * between the two leaves a semaphore up, never lowered twice.  The
 * log, not the notes' addresses: another tracer (a kernel uprobe's
 * ref_ctr) raises them too.  drti.o never reads it.  A raise past the
 * last slot is not logged (it stays up after a SIGKILL).
 */
#define USDT_SEMLOG_OFF 512u
#define USDT_NSEMLOG 64 /* up to USDT_EXEC_OFF */

struct usdt_semlog {
	uint32_t pid; /* 0: free */
	uint32_t pad;
	uint64_t addr;
	uint64_t token; /* AT_RANDOM's first 8 bytes (below) */
};

#define USDT_EXEC_FD 1023
#define USDT_EXEC_OFF 2048u /* the slots, in the header page */
#define USDT_NEXEC 64
enum {
	USDT_EX_FREE,
	USDT_EX_WAIT,
	USDT_EX_ARMING,
	USDT_EX_DONE,
	USDT_EX_GAVEUP,
	USDT_EX_DLOPEN,
	USDT_EX_DLGAVEUP,
};

struct usdt_exec {
	uint32_t pid;
	uint32_t state;
	uint64_t token[2];
};

struct usdt_seg {
	uint32_t pid, tid, ppid; /* of the claiming thread, at its claim */
	uint32_t ready;		 /* 1 once pid, tid and ppid are written */
	uint64_t head;		 /* records written (the thread's) */
	uint64_t drops;		 /* records lost: the ring was full */
	uint32_t own;		 /* pid is the arena's owner: runs plans */
	uint32_t aused;		 /* entries of its hash taken */
	uint32_t given;		 /* 1: given back by the consumer (below) */
	uint32_t nsst;		 /* USDT_NS_*: its pid namespace (below) */
	uint64_t nsdev, nsino;	 /* ... that namespace's nsfs inode */
	uint64_t tail; /* records read (the consumer's), own line */
	uint64_t pad1[7];
};

/*
 * Pid namespaces told at the claim (version 4).  A claiming thread
 * stats /proc/self/ns/pid (one newfstatat, the link followed to the
 * namespace's nsfs inode) and writes the pair before ready: nsst
 * USDT_NS_KNOWN with nsdev and nsino, or USDT_NS_FAILED with the
 * call's errno in nsdev.  nsst 0: not written (a recorder of version 3,
 * or given back since).  The consumer takes the segment's pid and tid
 * as its own only when nsst says dtrace's namespace; another's it maps
 * to the process's numbers here through /proc, or ignores, said.  The
 * owner test: a thread runs plans (own) only when its pid is owner and
 * its namespace own_nsdev/own_nsino (which the consumer writes from
 * /proc/OWNER/ns/pid; 0 there, a consumer of version 3: pid alone), so
 * a process of a new namespace whose pid there is the owner's here is
 * no owner.
 */
#define USDT_NS_KNOWN 1
#define USDT_NS_FAILED 2

/* One hit: where (the site's address), when (TSC), the six registers. */
struct usdt_slot {
	uint64_t pc;
	uint64_t tsc;
	uint64_t arg[USDT_REC_ARGS];
};

/* usdt_slot.pc: the site's address (47 bits), the CPU in bits 48..59 */
#define USDT_PC_ADDR ((UINT64_C(1) << 48) - 1)
#define USDT_PC_AGG (UINT64_C(1) << 63) /* the plan ran the other clauses */
#define USDT_PC_EXT (UINT64_C(1) << 62) /* copies follow (below) */

/*
 * Copies at the hit (version 3).  When some clause reads an argument's
 * string (copyinstr(argN), args[N] of a string type), every armed site
 * of such a probe has an entry in the site hash (below) whose spec
 * names a copy spec in the spec area: for each such argument, its
 * register, the note's size and sign (the address converted as a plan's
 * USDT_A_ARG is), and the most bytes to copy (strsize - 1).  Every
 * thread looks its site up (not only the owner's, which alone runs
 * plans).  A record of such a site copies each string with
 * process_vm_readv() on the process itself, as the consumer's
 * d_read_user_str() reads one: up to the end of the address's page,
 * then page by page, until a NUL, len bytes, or a fault; a bad address
 * is EFAULT, never a SIGSEGV.  The record sets USDT_PC_EXT and goes on
 * in the ring's next slots (wrapping at its end as any slot): a struct
 * usdt_ext, then per field a struct usdt_fhdr and its len bytes padded
 * to 8.  The record is written whole, then published by one release
 * store of head past all its slots; it is written only where its most
 * slots fit below tail, else a drop.
 */
#define USDT_CFIELDS 6		 /* fields of a spec: one per register */
#define USDT_ASPECS (64u * 1024) /* bytes of the spec area */
#define USDT_CSTRMAX 4096	 /* a field's most bytes */

struct usdt_cfield {
	uint8_t arg;	  /* the D argument N */
	uint8_t reg;	  /* its register, 0..5 */
	uint8_t asz, asg; /* the note's size and sign */
	uint32_t len;	  /* the most bytes copied (strsize - 1) */
};

struct usdt_cspec {
	uint32_t nf; /* fields */
	uint32_t pad;
	struct usdt_cfield f[USDT_CFIELDS];
};

struct usdt_ext {
	uint32_t slots; /* the record's, its first included */
	uint32_t nf;
	uint64_t pad[7];
};

enum {
	USDT_FS_NUL = 1, /* a string of len bytes, a NUL after them */
	USDT_FS_CUT,	 /* len bytes (the spec's), no NUL among them */
	USDT_FS_FAULT,	 /* len bytes, then a fault at addr + len */
	USDT_FS_NOCOPY,	 /* not copied: the call was refused (seccomp) */
};

struct usdt_fhdr {
	uint8_t arg, state;
	uint16_t pad;
	uint32_t len;
	uint64_t addr; /* the address copied from */
};

/* a record's most slots for spec p: the slot, the extension, fields */
static inline __attribute__((always_inline)) uint64_t
usdt_ext_slots(const struct usdt_cspec *p, unsigned nf)
{
	uint64_t b = 2 * 64;

	for (unsigned i = 0; i < nf && i < USDT_CFIELDS; i++)
		b += sizeof(struct usdt_fhdr) +
		     (((uint64_t)p->f[i].len + 7) & ~(uint64_t)7);
	return (b + 63) / 64;
}

/*
 * Plans.  The instructions are consumer/bpf/kagg_bpf.h's (UBPF_K_*,
 * UBPF_F_*) but for the argument: USDT_A_ARG pushes register n (0..5,
 * rdi..r9) converted as the site's note says (asz bytes, asg signed),
 * then narrowed as every result is (sz, sg).  Jumps go forward only.
 */
#define USDT_AOPS 64		  /* instructions of one plan */
#define USDT_ASTACK 16		  /* its stack */
#define USDT_AKEYS 4		  /* keys of a statement */
#define USDT_ASITES 4096	  /* the site hash's slots, a power of two */
#define USDT_APLANS (256u * 1024) /* bytes of the plan area */
#define USDT_AFLAT 4096 /* a segment's slots for statements without keys */
#define USDT_AHASH 2048 /* a segment's keyed entries, a power of two */
#define USDT_A_ARG 0xfe /* op: an argument register (the others: UBPF_K_*) */
#define USDT_AFL_FLAT 1 /* AGG: a flat slot (slot + bucket), not the hash */

struct usdt_aop {
	uint8_t op, sz, sg, n; /* n: ARG's register, KEY's index, AGG's fn,
				  PRED's comparison (or 0) */
	uint8_t asz, asg;      /* USDT_A_ARG: the note's size and sign */
	uint8_t flags, imm_b;  /* USDT_AFL_FLAT; binary: b is imm */
	uint16_t agg, jump;    /* AGG: statement; PRED: where the clause ends */
	uint16_t slot, step;   /* AGG: flat slot; lquantize()'s step */
	uint32_t levels;       /* lquantize()'s */
	int64_t imm;	       /* CONST, imm_b: the value; lquantize()'s base */
};

struct usdt_aplan {
	uint16_t nops;
	uint8_t record; /* some clause needs the record still */
	uint8_t nkeyed; /* AGG instructions into the hash */
	uint32_t pad;
	struct usdt_aop ops[]; /* nops of them */
};

/* a segment's aggregation area: the flat pairs, then the hash */
#define USDT_AGG_BYTES                                                         \
	(USDT_AFLAT * 2 * sizeof(int64_t) +                                    \
	 USDT_AHASH * sizeof(struct usdt_aent))

/*
 * The site hash: slot (addr * odd) >> (64 - 12), then the next ones.
 * Inlined always: rec.c's whole hit path is one function (its header).
 */
struct usdt_asite {
	uint64_t addr; /* 0: empty */
	uint32_t plan; /* its offset in the plan area + 1; 0: records */
	uint32_t spec; /* its copy spec's in the spec area + 1; 0: none */
};

/* A keyed entry: kagg_bpf.h's struct ubpf_kkey and ubpf_kval */
struct usdt_aent {
	uint16_t agg, bucket;
	uint32_t used;
	int64_t k[USDT_AKEYS];
	int64_t a, b;
	uint64_t pad;
};

static inline __attribute__((always_inline)) uint32_t
usdt_asite_hash(uint64_t addr)
{
	return (uint32_t)((addr * UINT64_C(0x9e3779b97f4a7c15)) >> 52) &
	       (USDT_ASITES - 1);
}

static inline __attribute__((always_inline)) uint32_t
usdt_aent_hash(const struct usdt_aent *e)
{
	uint64_t h = (uint64_t)e->agg << 16 | e->bucket;

	for (int i = 0; i < USDT_AKEYS; i++)
		h = (h ^ (uint64_t)e->k[i]) * UINT64_C(0x9e3779b97f4a7c15);
	return (uint32_t)(h >> 40) & (USDT_AHASH - 1);
}

/*
 * The injected system call (rec.c's __usdt_sysret).  dtrace points a held
 * thread at it with the call's registers set, and stops it at the
 * call's entry and exit (syscall-stops, which a tracer's death lets go
 * on: never a SIGTRAP stop, whose SIGTRAP would then be delivered and
 * kill the process); at the exit it puts the thread's registers back.
 * Should dtrace die before that, the thread runs on after the call,
 * into __usdt_sysret's tail, which puts them back itself from a frame
 * dtrace wrote first, below the thread's red zone: the registers the
 * call and its setting up change, in this order, then rflags and rip
 * (an interrupted call's restart made: rip on its syscall again, rax
 * its number), popped, then `ret $USDT_SYS_RED`, which leaves rsp as
 * it was.  rsp is pointed at rsp - USDT_SYS_RED - 8 * USDT_SYS_WORDS.
 */
#define USDT_SYS_RED 128 /* the SysV red zone, below rsp */
#define USDT_SYS_WORDS 11
enum {
	USDT_SYS_RAX,
	USDT_SYS_RCX,
	USDT_SYS_RDX,
	USDT_SYS_RSI,
	USDT_SYS_RDI,
	USDT_SYS_R8,
	USDT_SYS_R9,
	USDT_SYS_R10,
	USDT_SYS_R11,
	USDT_SYS_RFLAGS,
	USDT_SYS_RIP,
};
/*
 * __usdt_sysret: `syscall` (2 bytes), the tail after it.  An older
 * drti.o has __usdt_sys, `syscall; int3`, which dtrace no longer
 * injects through (its files go to the kernel path); a new name, so
 * that an older dtrace finds none here and does the same.
 */
#define USDT_SYS_SIZE 19

/*
 * What -G's drti.o holds for the consumer: __usdt_ctl, in the process's
 * own memory (a fork child gets a copy, not a share).  len bounds every
 * address the recorder writes or reads in the arena, whatever the
 * arena's header says: a fork child shares the arena and can write its
 * header (one that dropped privileges as well), and must not steer its
 * parent's writes out of it.  dtrace writes len before arena.
 */
struct usdt_ctl {
	uint64_t arena; /* the arena's address in the process; 0: off */
	uint64_t len;	/* its bytes (0: a dtrace that predates it: off) */
	uint64_t flags; /* none yet */
	uint64_t pad;
};
/*
 * A __usdt_ctl of 32 bytes says its recorder copies at the hit
 * (version 3); one of 16 predates copies: dtrace keeps the probes that
 * need them on the kernel path.
 */
#define USDT_CTL_COPIES 32

#endif /* USDT_DRTI_ARENA_H */
