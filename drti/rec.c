// SPDX-License-Identifier: MIT
/*
 * rec.c - the in-process recorder of drti.o (x86-64): what an armed -G
 * site calls when `dtrace -x activation=user` traces the process, so a
 * hit costs a function call instead of a kernel trap (doc/DESIGN.md
 * §14; the arena's layout is arena.h).
 *
 * How it is reached.  dtrace holds the process still (ptrace) and
 * rewrites a site's 4-byte NOP and the byte after it (`0f 1f 40 00 90`,
 * or `... 66 90` for a GOT call) into `call __usdt_rec` (the GOT form
 * keeps its last NOP).  The site was the compiler's call to the probe
 * function, so the probe's arguments are in rdi..r9 and every register
 * the SysV ABI lets a callee clobber is free: __usdt_rec is an ordinary
 * C function with six arguments, and its return address, less 5, is
 * the site.  dtrace finds it, __usdt_ctl and __usdt_sys by the local
 * symbols the -G output keeps in .symtab (a stripped object keeps the
 * kernel path).
 *
 * What a hit does.  Loads __usdt_ctl.arena (0: not armed, return); reads
 * the TSC and the CPU (rdtscp: Linux keeps the CPU number in TSC_AUX)
 * and returns at once when the consumer's heartbeat (its TSC, written
 * every switchrate) is older than hb_limit, which is how a SIGKILLed
 * dtrace stops costing more than a call (counting a drop in the
 * thread's segment, which a consumer that was only slow reports); finds
 * the thread's segment in a TLS slot, claiming one at its first hit (one
 * atomic add,
 * and the only system calls the recorder makes: getpid, gettid and
 * getppid, once per thread and arena, none of which blocks); writes one
 * 64-byte record into the ring and publishes it with a release store of
 * head.  A full ring or no free segment counts a drop, and so does a
 * hit in a signal handler that interrupted this thread's own (a busy
 * flag in the slot: the two would write one record).  No lock, no
 * allocation of its own (a shared library's TLS slot may be allocated
 * by __tls_get_addr at a thread's first hit), errno untouched.
 *
 * Forks.  A child shares the arena (MAP_SHARED) and runs the armed text,
 * but the forking thread's TLS slot still names the parent thread's
 * segment, whose only writer must stay the parent: the pthread_atfork
 * child handler clears it, so the child claims segments of its own,
 * stamped with its own pid.  A vfork() child that fires before its exec
 * writes through the parent's slot while the parent is suspended (no
 * corruption; its hits are the parent's).
 *
 * __usdt_sys is `syscall; int3`, never called: dtrace points a held
 * thread's rip at it to run one system call in the process (memfd_create,
 * mmap, munmap, close) and gets control back at the int3.
 *
 * Everything here is static (drti.o defines no global symbol), so
 * several copies (a program and its libraries) each keep their own
 * control block and slot; the TLS slot is global-dynamic, since a
 * library may be dlopen()ed, so drti.o needs __tls_get_addr.
 */
#if defined(__x86_64__)

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "arena.h"

/* local symbols, kept by name: dtrace finds them in .symtab */
#define KEPT __attribute__((used))

static KEPT struct usdt_ctl __usdt_ctl;

/* read by dtrace, as memfd_create's name */
static KEPT const char __usdt_name[] = "usdt-arena";

static __thread struct {
	struct usdt_seg *seg;
	uint64_t gen;
	int busy; /* a hit is being written: a signal handler's waits */
} rec_slot;

static inline long rec_syscall0(long nr)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * One function and no outlined parts (dtrace steps a thread out of
 * [__usdt_rec, +size) before it unmaps the arena), hence the
 * attributes: nothing of it may land in a .cold section.
 */
#ifdef __clang__
#define REC_ONE_PIECE
#else
#define REC_ONE_PIECE                                                          \
	__attribute__((noclone, optimize("no-reorder-blocks-and-partition")))
#endif
static KEPT __attribute__((noinline)) REC_ONE_PIECE void
__usdt_rec(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
	   uint64_t a5);

static void __usdt_rec(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		       uint64_t a4, uint64_t a5)
{
	uint64_t ar = __atomic_load_n(&__usdt_ctl.arena, __ATOMIC_ACQUIRE);
	struct usdt_arena *h;
	struct usdt_seg *s;
	struct usdt_slot *r;
	uint64_t t, hb, head;
	unsigned int cpu;
	int valid;

	if (!ar)
		return;
	h = (struct usdt_arena *)(uintptr_t)ar;
	t = __builtin_ia32_rdtscp(&cpu); /* Linux keeps the CPU in TSC_AUX */
	s = rec_slot.seg;
	valid = s && rec_slot.gen == h->gen;
	hb = __atomic_load_n(&h->hb, __ATOMIC_RELAXED);
	if ((int64_t)(t - hb) > (int64_t)h->hb_limit) {
		/*
		 * The consumer is gone, or was too slow: a drop it can see
		 * (hb 0: tracing ended, and the hit is no loss).
		 */
		if (valid && hb)
			__atomic_store_n(&s->drops, s->drops + 1,
					 __ATOMIC_RELAXED);
		return;
	}
	if (rec_slot.busy) {
		/* a signal handler's hit inside this thread's: a drop */
		if (valid)
			__atomic_store_n(&s->drops, s->drops + 1,
					 __ATOMIC_RELAXED);
		return;
	}
	rec_slot.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(!valid, 0)) {
		uint32_t i =
			__atomic_fetch_add(&h->next_seg, 1, __ATOMIC_RELAXED);

		if (i >= h->nseg) {
			__atomic_fetch_add(&h->noseg, 1, __ATOMIC_RELAXED);
			goto out;
		}
		s = (struct usdt_seg *)(uintptr_t)(ar + USDT_ARENA_HDR +
						   (uint64_t)i * h->seg_size);
		s->pid = (uint32_t)rec_syscall0(SYS_getpid);
		s->tid = (uint32_t)rec_syscall0(SYS_gettid);
		s->ppid = (uint32_t)rec_syscall0(SYS_getppid);
		__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
		rec_slot.seg = s;
		rec_slot.gen = h->gen;
	}
	head = s->head;
	if (head - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) >= h->nslots) {
		__atomic_store_n(&s->drops, s->drops + 1, __ATOMIC_RELAXED);
		goto out;
	}
	r = (struct usdt_slot *)((char *)s + USDT_SEG_HDR) +
	    (head & (h->nslots - 1));
	/* the site (a user address: 47 bits), the CPU in the top 16 */
	r->pc = ((uint64_t)(uintptr_t)__builtin_return_address(0) - 5) |
		(uint64_t)(cpu & 0xfff) << 48;
	r->tsc = t;
	r->arg[0] = a0;
	r->arg[1] = a1;
	r->arg[2] = a2;
	r->arg[3] = a3;
	r->arg[4] = a4;
	r->arg[5] = a5;
	__atomic_store_n(&s->head, head + 1, __ATOMIC_RELEASE);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec_slot.busy = 0;
}

__asm__(".pushsection .text\n"
	".type __usdt_sys, @function\n"
	"__usdt_sys:\n"
	"\tsyscall\n"
	"\tint3\n"
	".size __usdt_sys, . - __usdt_sys\n"
	".popsection\n");

static void rec_atfork_child(void)
{
	rec_slot.seg = 0; /* the parent thread's segment is not ours */
}

__attribute__((constructor)) static void rec_init(void)
{
	(void)pthread_atfork(0, 0, rec_atfork_child);
}

#else
/* ISO C wants a translation unit to declare something */
typedef int usdt_rec_unused;
#endif
