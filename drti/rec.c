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
 * the site.  dtrace finds it, __usdt_ctl and __usdt_sysret by the local
 * symbols the -G output keeps in .symtab (a stripped object keeps the
 * kernel path).
 *
 * What a hit does.  Loads __usdt_ctl.arena (0: not armed, return); reads
 * the TSC and the CPU (rdtscp: Linux keeps the CPU number in TSC_AUX)
 * and returns at once when the consumer's heartbeat (its TSC, written
 * every switchrate) is older than hb_limit, which is how a SIGKILLed
 * dtrace stops costing more than a call (counting a drop in the
 * thread's segment, or in the arena's noseg for a thread without one,
 * which a consumer that was only slow reports); finds
 * the thread's segment in a TLS slot, claiming one at its first hit (one
 * atomic add,
 * and the only system calls the recorder makes but the copies below:
 * getpid, a newfstatat of /proc/self/ns/pid (its pid namespace, said in
 * the segment: arena.h, version 4; it decides the owner test too),
 * gettid and getppid, once per thread and arena, none of which
 * blocks); writes one 64-byte record into the ring (more with copies,
 * below) and publishes it with a release store of head.  With no
 * fresh segment left, a claim takes one dtrace gave back (its thread
 * exited: rec_reclaim(), arena.h "Segments given back").  A full ring
 * or no free segment counts a drop, and so does a hit in a signal
 * handler that interrupted this thread's own (a busy flag in the slot:
 * the two would write one record).  No lock, no
 * allocation of its own (a shared library's TLS slot may be allocated
 * by __tls_get_addr at a thread's first hit), errno untouched.
 *
 * Bounds.  A fork child shares the arena (MAP_SHARED) and can write its
 * header, even one that dropped its privileges; so every address a hit
 * reads or writes in the arena is checked against the arena's size in
 * __usdt_ctl.len, which dtrace writes into this process's own memory
 * (a child has a copy), after one read of each header word it comes
 * from: what the header says can drop a hit, never move a write out of
 * the arena.  A control block without len (a dtrace older than it)
 * arms nothing.
 *
 * Copies at the hit (arena.h, version 3).  When the arena names copy
 * specs, every thread looks its site up in the site hash; a record of
 * a site with a spec copies each argument's string into the ring after
 * its slot (USDT_PC_EXT) with process_vm_readv() on its own process,
 * a raw `syscall` (rec_vm_read(), rec_copy_str()): page faults taken,
 * EFAULT for an address not mapped readable (a fault the record says,
 * never a SIGSEGV: the recorder never loads through an argument), any
 * other error (a seccomp filter's EPERM) a field not copied.  The
 * record's most slots must fit below tail, else a drop; it is published
 * whole by one release store of head.  The copy loops and the NUL scan
 * are written so no compiler makes library calls of them (REC_ONE_PIECE
 * turns gcc's loop distribution off; clang's no_builtin).
 *
 * Aggregating.  When the arena has plans (arena.h: the consumer
 * compiles the clauses that only aggregate integers) and the thread is
 * the arena's owner's, the site's address finds its plan in the site
 * hash and rec_plan() runs it on the registers: it updates the
 * thread's own aggregation slots in the arena and writes no record,
 * unless some clause of the probe still needs one (which then says so:
 * USDT_PC_AGG).  A hit whose keyed entries might not fit is a record
 * for all its clauses instead.  Every index the plan gives is masked
 * or checked against the arena's fixed sizes, and the area itself
 * against len (Bounds), so a plan, even one the process or a child
 * scribbled over, writes nowhere but the thread's own area.
 *
 * Forks.  A child shares the arena (MAP_SHARED) and runs the armed text,
 * but the forking thread's TLS slot still names the parent thread's
 * segment, whose only writer must stay the parent: the pthread_atfork
 * child handler clears it, so the child claims segments of its own,
 * stamped with its own pid.  A vfork() child that fires before its exec
 * writes through the parent's slot while the parent is suspended (no
 * corruption; its hits are the parent's).
 *
 * Execs.  An exec drops the armed text and the arena's mapping; the
 * new image starts with NOPs.  dtrace leaves the first arena it made in
 * the process open at USDT_EXEC_FD, which the exec keeps, and
 * rec_exec_wait(), a constructor of priority 101 (the first of this
 * object's), asks through it to be armed and waits while dtrace
 * follows it: beats, or is alive though slow, up to hb_alive after its
 * last beat (arena.h, "Following an exec"; rec_consumer_follows(): a
 * pidfd of dtrace, checked against its start, so a SIGKILLed one is
 * not waited for).  A process that has no such descriptor pays one
 * fcntl() at start, one whose control block is armed already (dtrace
 * armed it before its constructors) nothing; the wait's calls (the
 * pidfd, /proc/PID/stat, poll()) are the constructor's, never a hit's.
 *
 * dlopen()s.  The same constructor in an object mapped after its image
 * was armed (a dlopen(): ld.so maps the library and its dependencies
 * before it runs any of their constructors) finds its image's slot done
 * and its own control block not armed: it asks again, and waits while
 * dtrace reads the maps and arms what is new (arena.h, "Following a
 * dlopen()"), so the library's own constructors and first calls are
 * counted.  __usdt_dlask, a symbol dtrace finds, says that it asks.
 * dtrace points the control block of every copy a process maps at the
 * arena when it arms the process, enabled probes or not, so only a copy
 * mapped since asks (one none of whose probes is enabled too: a
 * switchrate's wait); and a -p or -c target that carries drti.o gets
 * its arena with nothing of it armed, so that its dlopen()s can ask.
 *
 * __usdt_sysret is `syscall` and a tail, never called: dtrace points a
 * held thread's rip at it to run one system call in the process
 * (memfd_create, mmap, dup3, munmap, close), stops it at the call's
 * entry and exit (syscall-stops) and puts its registers back; a thread
 * let go by a dtrace SIGKILLed meanwhile runs the tail, which puts
 * them back from a frame dtrace wrote on its stack (arena.h), and goes
 * on where it was: no trap a dead tracer would leave to kill it.
 *
 * Everything here is static (drti.o defines no global symbol), so
 * several copies (a program and its libraries) each keep their own
 * control block and slot; the TLS slot is global-dynamic, since a
 * library may be dlopen()ed, so drti.o needs __tls_get_addr.
 */
#if defined(__x86_64__)

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "usdt/helper_abi.h" /* DRTI_ENV_DISABLE */
#include "../dtrace-G/consumer/bpf/kagg_bpf.h" /* UBPF_K_*, UBPF_F_* */

/*
 * Everything __usdt_rec calls is inlined into it, at any -O: dtrace
 * lets a thread run out of [__usdt_rec, +size) before it unmaps the
 * arena, and a thread in an out-of-line helper would return into it
 * after.
 */
#define REC_INLINE static inline __attribute__((always_inline))

/* local symbols, kept by name: dtrace finds them in .symtab */
#define KEPT __attribute__((used))

static KEPT struct usdt_ctl __usdt_ctl;

/* read by dtrace, as memfd_create's name */
static KEPT const char __usdt_name[] = "usdt-arena";

/* found by dtrace: this drti.o asks to be armed at its dlopen() */
static KEPT const char __usdt_dlask[] = "dlopen";
/* what a claim stats: its thread's pid namespace (arena.h, version 4) */
static const char rec_ns_path[] = "/proc/self/ns/pid";

static __thread struct {
	struct usdt_seg *seg;
	uint64_t gen;
	int busy; /* a hit is being written: a signal handler's waits */
} rec_slot;

REC_INLINE uint64_t rec_sized(uint64_t v, unsigned sz, unsigned sg)
{
	switch (sz) {
	case 1:
		return sg ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 2:
		return sg ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	case 4:
		return sg ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	}
	return v;
}

/* quantize()'s bucket as agg.c counts it: 63 holds 0, then powers of 2 */
REC_INLINE unsigned rec_qbucket(int64_t v)
{
	if (v > 0)
		return 63 + (64 - (unsigned)__builtin_clzll((uint64_t)v));
	if (!v)
		return 63;
	{
		int b = 63 -
			(int)(64 - (unsigned)__builtin_clzll(0 - (uint64_t)v));

		return b < 0 ? 0 : (unsigned)b;
	}
}

REC_INLINE unsigned rec_lqbucket(int64_t v, const struct usdt_aop *o)
{
	int64_t base = o->imm, step = o->step, levels = o->levels;

	if (v < base || !step)
		return 0;
	if (v >= base + levels * step)
		return (unsigned)levels + 1;
	return (unsigned)((uint64_t)(v - base) / (uint64_t)step + 1);
}

/* C's / and % on int64_t (the consumer's evaluator's, the kernel's) */
REC_INLINE int64_t rec_sdiv(int64_t a, int64_t b, int mod)
{
	uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
	uint64_t ub = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
	uint64_t q = ub ? ua / ub : 0;
	int64_t sq = (a < 0) != (b < 0) ? (int64_t)(0 - q) : (int64_t)q;

	if (mod)
		return (int64_t)((uint64_t)a - (uint64_t)sq * (uint64_t)b);
	return sq;
}

REC_INLINE int64_t rec_alu(unsigned op, int64_t a, int64_t b)
{
	switch (op) {
	case UBPF_K_ADD:
		return (int64_t)((uint64_t)a + (uint64_t)b);
	case UBPF_K_SUB:
		return (int64_t)((uint64_t)a - (uint64_t)b);
	case UBPF_K_MUL:
		return (int64_t)((uint64_t)a * (uint64_t)b);
	case UBPF_K_DIVU:
		return b ? (int64_t)((uint64_t)a / (uint64_t)b) : 0;
	case UBPF_K_MODU:
		return b ? (int64_t)((uint64_t)a % (uint64_t)b) : 0;
	case UBPF_K_DIVS:
		return rec_sdiv(a, b, 0);
	case UBPF_K_MODS:
		return rec_sdiv(a, b, 1);
	case UBPF_K_AND:
		return a & b;
	case UBPF_K_OR:
		return a | b;
	case UBPF_K_XOR:
		return a ^ b;
	case UBPF_K_SHL:
		return (int64_t)((uint64_t)a << (b & 63));
	case UBPF_K_SHR:
		return (int64_t)((uint64_t)a >> (b & 63));
	case UBPF_K_SAR:
		return a >> (b & 63);
	case UBPF_K_EQ:
		return a == b;
	case UBPF_K_NE:
		return a != b;
	case UBPF_K_LTS:
		return a < b;
	case UBPF_K_LTU:
		return (uint64_t)a < (uint64_t)b;
	case UBPF_K_GTS:
		return a > b;
	case UBPF_K_GTU:
		return (uint64_t)a > (uint64_t)b;
	case UBPF_K_LES:
		return a <= b;
	case UBPF_K_LEU:
		return (uint64_t)a <= (uint64_t)b;
	case UBPF_K_GES:
		return a >= b;
	case UBPF_K_GEU:
		return (uint64_t)a >= (uint64_t)b;
	case UBPF_K_LAND:
		return a && b;
	case UBPF_K_LOR:
		return a || b;
	case UBPF_K_LXOR:
		return !a != !b;
	}
	return 0;
}

/* fn's update of a value pair (kagg_bpf.h's table) */
REC_INLINE void rec_val(int64_t *va, int64_t *vb, unsigned fn, int64_t v)
{
	switch (fn) {
	case UBPF_F_COUNT:
	case UBPF_F_QUANTIZE:
	case UBPF_F_LQUANTIZE:
		(*va)++;
		break;
	case UBPF_F_SUM:
		*va = (int64_t)((uint64_t)*va + (uint64_t)v);
		*vb = 1;
		break;
	case UBPF_F_AVG:
		(*va)++;
		*vb = (int64_t)((uint64_t)*vb + (uint64_t)v);
		break;
	case UBPF_F_MIN:
		if (!*vb || v < *va)
			*va = v;
		*vb = 1;
		break;
	case UBPF_F_MAX:
		if (!*vb || v > *va)
			*va = v;
		*vb = 1;
		break;
	}
}

/*
 * Run plan pl for one hit of segment s's thread: 0 done, 1 a record is
 * wanted for the clauses left, 2 a record for every clause (the keyed
 * entries might not fit, or the plan is not one we run).  ag is s's
 * aggregation area.
 */
REC_INLINE int rec_plan(struct usdt_seg *s, uint8_t *ag,
			const struct usdt_aplan *pl, const uint64_t *reg)
{
	int64_t *flat = (int64_t *)ag; /* USDT_AFLAT pairs */
	struct usdt_aent *tab =
		(struct usdt_aent *)(ag + USDT_AFLAT * 2 * sizeof(int64_t));
	int64_t st[USDT_ASTACK];
	struct usdt_aent key; /* agg, bucket, k: no memset() call at -O0 */
	unsigned n = pl->nops, sp = 0;

	key.agg = key.bucket = 0;
	for (int j = 0; j < USDT_AKEYS; j++)
		key.k[j] = 0;

	if (n > USDT_AOPS || s->aused + pl->nkeyed > USDT_AHASH / 4 * 3)
		return 2;
	for (unsigned pc = 0; pc < n; pc++) {
		const struct usdt_aop *o = &pl->ops[pc];
		unsigned op = o->op, eop;
		int64_t a = 0, b = 0, c = 0, r = 0;

		eop = op == UBPF_K_PRED && o->n ? o->n : op;
		if (eop >= UBPF_K_NORM && eop <= UBPF_K_LNOT) {
			if (sp < 1)
				return 2;
			a = st[--sp];
		} else if (eop >= UBPF_K_ADD && eop <= UBPF_K_LXOR) {
			if (o->imm_b) {
				if (sp < 1)
					return 2;
				b = o->imm;
				a = st[--sp];
			} else {
				if (sp < 2)
					return 2;
				b = st[--sp];
				a = st[--sp];
			}
		} else if (eop == UBPF_K_SEL) {
			if (sp < 3)
				return 2;
			c = st[--sp];
			b = st[--sp];
			a = st[--sp];
		} else if (op == UBPF_K_PRED || op == UBPF_K_KEY ||
			   (op == UBPF_K_AGG && o->n != UBPF_F_COUNT)) {
			if (sp < 1)
				return 2;
			a = st[--sp];
		}
		switch (eop) {
		case UBPF_K_CONST:
			r = o->imm;
			break;
		case USDT_A_ARG:
			r = (int64_t)rec_sized(reg[o->n % USDT_REC_ARGS],
					       o->asz, o->asg);
			break;
		case UBPF_K_PID:
			r = (int32_t)s->pid;
			break;
		case UBPF_K_TID:
			r = (int32_t)s->tid;
			break;
		case UBPF_K_NORM:
			r = a;
			break;
		case UBPF_K_NEG:
			r = (int64_t)(0 - (uint64_t)a);
			break;
		case UBPF_K_BNOT:
			r = ~a;
			break;
		case UBPF_K_LNOT:
			r = !a;
			break;
		case UBPF_K_SEL:
			r = a ? b : c;
			break;
		case UBPF_K_PRED:
			r = a;
			break;
		case UBPF_K_KEY:
			key.k[o->n % USDT_AKEYS] = a;
			continue;
		case UBPF_K_AGG: {
			unsigned bk = o->n == UBPF_F_QUANTIZE ? rec_qbucket(a)
				      : o->n == UBPF_F_LQUANTIZE
					      ? rec_lqbucket(a, o)
					      : 0;

			if (o->flags & USDT_AFL_FLAT) {
				/* read once: the check holds for the write */
				unsigned i =
					(unsigned)__atomic_load_n(
						&o->slot, __ATOMIC_RELAXED) +
					bk;

				if (i < USDT_AFLAT)
					rec_val(&flat[2 * i], &flat[2 * i + 1],
						o->n, a);
			} else {
				struct usdt_aent *e;
				uint32_t h;

				key.agg = o->agg;
				key.bucket = (uint16_t)bk;
				h = usdt_aent_hash(&key);
				for (unsigned k = 0; k < USDT_AHASH; k++) {
					e = &tab[(h + k) & (USDT_AHASH - 1)];
					if (!e->used) {
						e->agg = key.agg;
						e->bucket = key.bucket;
						for (int j = 0; j < USDT_AKEYS;
						     j++)
							e->k[j] = key.k[j];
						e->a = e->b = 0;
						__atomic_store_n(
							&e->used, 1,
							__ATOMIC_RELEASE);
						s->aused++;
						break;
					}
					if (e->agg == key.agg &&
					    e->bucket == key.bucket &&
					    e->k[0] == key.k[0] &&
					    e->k[1] == key.k[1] &&
					    e->k[2] == key.k[2] &&
					    e->k[3] == key.k[3])
						break;
					e = 0;
				}
				if (e)
					rec_val(&e->a, &e->b, o->n, a);
			}
			for (int j = 0; j < USDT_AKEYS; j++)
				key.k[j] = 0;
			continue;
		}
		default:
			if (eop < UBPF_K_ADD || eop > UBPF_K_LXOR)
				return 2;
			r = rec_alu(eop, a, b);
			break;
		}
		if (op == UBPF_K_PRED) {
			if (!r) {
				if (o->jump <= pc)
					return 2;
				pc = (unsigned)o->jump - 1;
			}
			continue;
		}
		if (sp >= USDT_ASTACK)
			return 2;
		st[sp++] = (int64_t)rec_sized((uint64_t)r, o->sz, o->sg);
	}
	return pl->record ? 1 : 0;
}

/*
 * The first segment dtrace gave back (its thread exited, its records
 * read: arena.h) that this process may take, taken (given 1 to 0, by
 * compare-and-swap); nseg when there is none.  One that ran plans for
 * another process keeps that process's aggregation slots: only a
 * thread of the same process takes it, one that passed the owner test
 * (may_own: the owner's pid in the owner's pid namespace).
 */
REC_INLINE uint32_t rec_reclaim(uint64_t ar, uint64_t alen, uint32_t nseg,
				uint64_t ssz, uint32_t pid, int may_own)
{
	for (uint32_t i = 0; i < nseg; i++) {
		uint64_t off = USDT_ARENA_HDR + (uint64_t)i * ssz;
		struct usdt_seg *s;
		uint32_t one = 1;

		if (off > alen || USDT_SEG_HDR > alen - off)
			break;
		s = (struct usdt_seg *)(uintptr_t)(ar + off);
		if (__atomic_load_n(&s->given, __ATOMIC_ACQUIRE) == 1 &&
		    (!__atomic_load_n(&s->own, __ATOMIC_RELAXED) ||
		     (may_own &&
		      __atomic_load_n(&s->pid, __ATOMIC_RELAXED) == pid)) &&
		    __atomic_compare_exchange_n(&s->given, &one, 0, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return i;
	}
	return nseg;
}

REC_INLINE long rec_syscall0(long nr)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr)
			 : "rcx", "r11", "memory");
	return ret;
}

/* a record's slot: the site and its CPU and flags (pc), the TSC, the
 * argument registers */
REC_INLINE void rec_fill(struct usdt_slot *r, uint64_t pc, uint64_t t,
			 uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
			 uint64_t a4, uint64_t a5)
{
	r->pc = pc;
	r->tsc = t;
	r->arg[0] = a0;
	r->arg[1] = a1;
	r->arg[2] = a2;
	r->arg[3] = a3;
	r->arg[4] = a4;
	r->arg[5] = a5;
}

REC_INLINE long rec_syscall6(long nr, long a0, long a1, long a2, long a3,
			     long a4, long a5)
{
	long ret;
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * n bytes of this process at addr into the ring (ring, its bytes - 1
 * mask) at byte o, split in two where the ring wraps: one
 * process_vm_readv() on the process itself (pid), which takes page
 * faults and says EFAULT for an address not mapped readable.  The
 * bytes read, or -errno.
 */
REC_INLINE long rec_vm_read(uint32_t pid, uint8_t *ring, uint64_t mask,
			    uint64_t o, uint64_t addr, uint64_t n)
{
	struct iovec l[2], r;
	uint64_t at = o & mask, first = mask + 1 - at;
	int nl = 1;

	l[0].iov_base = ring + at;
	l[0].iov_len = n;
	if (first < n) {
		l[0].iov_len = first;
		l[1].iov_base = ring;
		l[1].iov_len = n - first;
		nl = 2;
	}
	r.iov_base = (void *)(uintptr_t)addr;
	r.iov_len = n;
	return rec_syscall6(SYS_process_vm_readv, (long)pid, (long)l, nl,
			    (long)&r, 1, 0);
}

/*
 * The string at addr into the ring at byte o, read as the consumer's
 * d_read_user_str() reads one: to the end of its page (or max bytes),
 * then page by page until a NUL; a chunk that cannot be read whole ends
 * it with a fault at that chunk's first address.  *len: the bytes
 * before the NUL, the cut or the fault.  Returns the field's state
 * (arena.h).  The NUL is looked for a byte at a time (masked: no
 * memchr() a compiler could call).
 */
REC_INLINE unsigned rec_copy_str(uint32_t pid, uint8_t *ring, uint64_t mask,
				 uint64_t o, uint64_t addr, uint32_t max,
				 uint32_t *len)
{
	uint32_t got = 0;

	while (got < max) {
		uint64_t a = addr + got;
		uint64_t chunk = 4096 - (a & 4095);
		long rd;

		if (chunk > max - got)
			chunk = max - got;
		rd = rec_vm_read(pid, ring, mask, o + got, a, chunk);
		if (rd < 0 && rd != -EFAULT) {
			*len = 0; /* refused (seccomp): read when dtrace runs */
			return USDT_FS_NOCOPY;
		}
		if (rd != (long)chunk) {
			*len = got;
			return USDT_FS_FAULT;
		}
		for (uint64_t k = 0; k < chunk; k++)
			if (!ring[(o + got + k) & mask]) {
				*len = got + (uint32_t)k;
				return USDT_FS_NUL;
			}
		got += (uint32_t)chunk;
	}
	*len = got;
	return USDT_FS_CUT;
}

/*
 * One function and no outlined parts (dtrace lets a thread run out of
 * [__usdt_rec, +size) before it unmaps the arena), hence the
 * attributes: nothing of it may land in a .cold section.
 */
#ifdef __clang__
#define REC_ONE_PIECE
#define REC_NO_BUILTIN __attribute__((no_builtin)) /* definitions only */
#else
#define REC_NO_BUILTIN
#define REC_ONE_PIECE                                                          \
	__attribute__((noclone, optimize("no-reorder-blocks-and-partition",    \
					 "no-tree-loop-distribute-patterns")))
#endif
static KEPT __attribute__((noinline)) REC_ONE_PIECE void
__usdt_rec(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
	   uint64_t a5);

static REC_NO_BUILTIN void __usdt_rec(uint64_t a0, uint64_t a1, uint64_t a2,
				      uint64_t a3, uint64_t a4, uint64_t a5)
{
	uint64_t ar = __atomic_load_n(&__usdt_ctl.arena, __ATOMIC_ACQUIRE);
	struct usdt_arena *h;
	struct usdt_seg *s;
	struct usdt_slot *r;
	uint64_t t, hb, head, pc, alen, soff, sitoff, aggoff, roff, flag = 0;
	uint32_t nslots, plan = 0, spec = 0;
	unsigned int cpu;
	int valid, specs;

	if (!ar)
		return;
		/* [off, off + n) inside the arena, as this process knows its
		 * size */
#define REC_IN(off, n) ((off) <= alen && (uint64_t)(n) <= alen - (off))
	alen = __atomic_load_n(&__usdt_ctl.len, __ATOMIC_RELAXED);
	if (alen < USDT_ARENA_HDR)
		return; /* a consumer that does not say it: not ours */
	h = (struct usdt_arena *)(uintptr_t)ar;
	t = __builtin_ia32_rdtscp(&cpu); /* Linux keeps the CPU in TSC_AUX */
	s = rec_slot.seg;
	soff = (uint64_t)(uintptr_t)s - ar;
	valid = s && rec_slot.gen == h->gen && REC_IN(soff, USDT_SEG_HDR);
	hb = __atomic_load_n(&h->hb, __ATOMIC_RELAXED);
	if ((int64_t)(t - hb) > (int64_t)h->hb_limit) {
		/*
		 * The consumer is gone, or was too slow: a drop it can see
		 * (hb 0: tracing ended, and the hit is no loss), in the
		 * arena's count when the thread has no segment yet (its
		 * first hits, which went unsaid).
		 */
		if (valid && hb)
			__atomic_store_n(&s->drops, s->drops + 1,
					 __ATOMIC_RELAXED);
		else if (hb)
			__atomic_fetch_add(&h->noseg, 1, __ATOMIC_RELAXED);
		return;
	}
	if (rec_slot.busy) {
		/* a signal handler's hit inside this thread's: a drop */
		if (valid)
			__atomic_store_n(&s->drops, s->drops + 1,
					 __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&h->noseg, 1, __ATOMIC_RELAXED);
		return;
	}
	rec_slot.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(!valid, 0)) {
		uint32_t nseg = __atomic_load_n(&h->nseg, __ATOMIC_RELAXED);
		uint32_t i = __atomic_load_n(&h->next_seg, __ATOMIC_RELAXED);
		uint64_t ssz = __atomic_load_n(&h->seg_size, __ATOMIC_RELAXED);
		uint32_t pid = (uint32_t)rec_syscall0(SYS_getpid);
		uint64_t ownino =
			__atomic_load_n(&h->own_nsino, __ATOMIC_RELAXED);
		struct stat nst; /* here, not in a helper: rec_end */
		long nsr = rec_syscall6(SYS_newfstatat, AT_FDCWD,
					(long)(uintptr_t)rec_ns_path,
					(long)(uintptr_t)&nst, 0, 0, 0);
		int may_own = h->aplans && pid == h->owner &&
			      (!ownino ||
			       (nsr == 0 && (uint64_t)nst.st_ino == ownino &&
				(uint64_t)nst.st_dev ==
					__atomic_load_n(&h->own_nsdev,
							__ATOMIC_RELAXED)));

		/* a fresh segment; none left: one given back (arena.h) */
		if (i < nseg)
			i = __atomic_fetch_add(&h->next_seg, 1,
					       __ATOMIC_RELAXED);
		if (i >= nseg)
			i = rec_reclaim(ar, alen, nseg, ssz, pid, may_own);
		soff = USDT_ARENA_HDR + (uint64_t)i * ssz;
		if (i >= nseg || !REC_IN(soff, USDT_SEG_HDR)) {
			__atomic_fetch_add(&h->noseg, 1, __ATOMIC_RELAXED);
			goto out;
		}
		s = (struct usdt_seg *)(uintptr_t)(ar + soff);
		s->pid = pid;
		s->tid = (uint32_t)rec_syscall0(SYS_gettid);
		s->ppid = (uint32_t)rec_syscall0(SYS_getppid);
		s->own = (uint32_t)may_own;
		/* its pid namespace, said (arena.h, version 4) */
		s->nsdev = nsr == 0 ? (uint64_t)nst.st_dev : (uint64_t)-nsr;
		s->nsino = nsr == 0 ? (uint64_t)nst.st_ino : 0;
		s->nsst = nsr == 0 ? USDT_NS_KNOWN : USDT_NS_FAILED;
		__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
		rec_slot.seg = s;
		rec_slot.gen = h->gen;
	}
	pc = (uint64_t)(uintptr_t)__builtin_return_address(0) - 5;
	/*
	 * Each header word the addresses come from is read once (a fork
	 * child sharing the arena may change it meanwhile), then checked
	 * against alen, this process's own.
	 */
	sitoff = __atomic_load_n(&h->site_off, __ATOMIC_RELAXED);
	aggoff = soff + __atomic_load_n(&h->agg_off, __ATOMIC_RELAXED);
	specs = __atomic_load_n(&h->specs, __ATOMIC_RELAXED) == 1;
	if ((s->own || specs) &&
	    REC_IN(sitoff, USDT_ASITES * sizeof(struct usdt_asite))) {
		/* its plan and its copies, if the site has them (arena.h) */
		const struct usdt_asite *tab =
			(const struct usdt_asite *)(uintptr_t)(ar + sitoff);
		uint32_t k = usdt_asite_hash(pc);

		for (unsigned j = 0; j < USDT_ASITES; j++) {
			const struct usdt_asite *e =
				&tab[(k + j) & (USDT_ASITES - 1)];

			if (e->addr == pc) {
				plan = __atomic_load_n(&e->plan,
						       __ATOMIC_RELAXED);
				spec = __atomic_load_n(&e->spec,
						       __ATOMIC_RELAXED);
				break;
			}
			if (!e->addr)
				break;
		}
	}
	if (!specs)
		spec = 0;
	if (s->own && REC_IN(aggoff, USDT_AGG_BYTES)) {
		uint64_t poff = 0;

		if (plan)
			poff = __atomic_load_n(&h->plan_off, __ATOMIC_RELAXED) +
			       plan - 1;
		if (plan &&
		    REC_IN(poff, sizeof(struct usdt_aplan) +
					 USDT_AOPS * sizeof(struct usdt_aop))) {
			uint64_t reg[USDT_REC_ARGS] = {a0, a1, a2, a3, a4, a5};
			int rc = rec_plan(
				s, (uint8_t *)(uintptr_t)(ar + aggoff),
				(const struct usdt_aplan *)(uintptr_t)(ar +
								       poff),
				reg);

			if (!rc)
				goto out;
			if (rc == 1)
				flag = USDT_PC_AGG;
		}
	}
	head = s->head;
	nslots = __atomic_load_n(&h->nslots, __ATOMIC_RELAXED);
	if (spec) {
		/*
		 * Copies (arena.h): the spec read once, word by word (a
		 * child may change it), each length bounded; the record's
		 * most slots below tail; the ring inside the arena.
		 */
		const uint64_t *sw;
		uint64_t spoff =
			__atomic_load_n(&h->spec_off, __ATOMIC_RELAXED) + spec -
			1;
		uint64_t fw[USDT_CFIELDS], ring, mask, o, most;
		uint32_t nf;
		uint8_t *rb;

		if (!REC_IN(spoff, sizeof(struct usdt_cspec)) || !nslots ||
		    (nslots & (nslots - 1)))
			goto plain;
		sw = (const uint64_t *)(uintptr_t)(ar + spoff);
		nf = (uint32_t)__atomic_load_n(&sw[0], __ATOMIC_RELAXED);
		if (nf > USDT_CFIELDS)
			nf = USDT_CFIELDS;
		most = 2 * 64;
		for (uint32_t i = 0; i < nf; i++) {
			uint64_t w =
				__atomic_load_n(&sw[1 + i], __ATOMIC_RELAXED);
			uint64_t l = w >> 32;

			if (l > USDT_CSTRMAX)
				l = USDT_CSTRMAX;
			fw[i] = (w & 0xffffffffu) | l << 32;
			most += sizeof(struct usdt_fhdr) + ((l + 7) & ~7u);
		}
		most = (most + 63) / 64;
		ring = soff + USDT_SEG_HDR;
		mask = (uint64_t)nslots * sizeof(*r) - 1;
		if (head - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) + most >
			    nslots ||
		    !REC_IN(ring, mask + 1)) {
			__atomic_store_n(&s->drops, s->drops + 1,
					 __ATOMIC_RELAXED);
			goto out;
		}
		rb = (uint8_t *)(uintptr_t)(ar + ring);
		o = head * sizeof(*r);
		r = (struct usdt_slot *)(uintptr_t)(rb + (o & mask));
		rec_fill(r,
			 pc | (uint64_t)(cpu & 0xfff) << 48 | flag |
				 USDT_PC_EXT,
			 t, a0, a1, a2, a3, a4, a5);
		{
			uint64_t reg[USDT_REC_ARGS] = {
				a0, a1, a2, a3, a4, a5
			};
			uint64_t at = 2 * 64; /* past the slot and usdt_ext */

			for (uint32_t i = 0; i < nf; i++) {
				uint64_t w = fw[i], addr;
				uint32_t len = 0, st;
				uint64_t *fh;

				/* usdt_cfield: arg, reg, asz, asg, len */
				addr = rec_sized(
					reg[(w >> 8 & 0xff) % USDT_REC_ARGS],
					(unsigned)(w >> 16 & 0xff),
					(unsigned)(w >> 24 & 0xff));
				st = rec_copy_str(s->pid, rb, mask,
						  o + at + sizeof(*fh) * 2,
						  addr, (uint32_t)(w >> 32),
						  &len);
				/* struct usdt_fhdr: arg, state, pad, len; addr
				 */
				fh = (uint64_t *)(uintptr_t)(rb +
							     ((o + at) & mask));
				fh[0] = (w & 0xff) | (uint64_t)st << 8 |
					(uint64_t)len << 32;
				fh[1] = addr;
				at += sizeof(struct usdt_fhdr) +
				      (((uint64_t)len + 7) & ~(uint64_t)7);
			}
			{
				/* struct usdt_ext: slots, nf */
				uint64_t *ex =
					(uint64_t *)(uintptr_t)(rb + ((o + 64) &
								      mask));

				ex[0] = (at + 63) / 64 | (uint64_t)nf << 32;
				__atomic_store_n(&s->head,
						 head + (at + 63) / 64,
						 __ATOMIC_RELEASE);
			}
		}
		goto out;
	}
plain:
	roff = soff + USDT_SEG_HDR + (head & (nslots - 1)) * sizeof(*r);
	if (head - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) >= nslots ||
	    !REC_IN(roff, sizeof(*r))) {
		__atomic_store_n(&s->drops, s->drops + 1, __ATOMIC_RELAXED);
		goto out;
	}
	r = (struct usdt_slot *)(uintptr_t)(ar + roff);
	/* the site (a user address: 47 bits), the CPU in the top 16 */
	rec_fill(r, pc | (uint64_t)(cpu & 0xfff) << 48 | flag, t, a0, a1, a2,
		 a3, a4, a5);
	__atomic_store_n(&s->head, head + 1, __ATOMIC_RELEASE);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec_slot.busy = 0;
#undef REC_IN
}

/*
 * The injected call (arena.h): dtrace stops the thread at the syscall's
 * entry and exit and puts its registers back itself; the tail after it
 * runs only in a thread a dying dtrace let go, and unwinds the frame
 * dtrace wrote below the red zone (the order of arena.h's USDT_SYS_*).
 */
__asm__(".pushsection .text\n"
	".type __usdt_sysret, @function\n"
	"__usdt_sysret:\n"
	"\tsyscall\n"
	"\tpop %rax\n"
	"\tpop %rcx\n"
	"\tpop %rdx\n"
	"\tpop %rsi\n"
	"\tpop %rdi\n"
	"\tpop %r8\n"
	"\tpop %r9\n"
	"\tpop %r10\n"
	"\tpop %r11\n"
	"\tpopfq\n"
	"\tret $128\n"
	".size __usdt_sysret, . - __usdt_sysret\n"
	".popsection\n");
_Static_assert(sizeof(struct usdt_seg) == USDT_SEG_HDR &&
		       __builtin_offsetof(struct usdt_seg, tail) == 64,
	       "the segment's header: tail on its own line");
_Static_assert(USDT_SYS_RED == 128 && USDT_SYS_WORDS == 11 &&
		       USDT_SYS_RIP == 10,
	       "__usdt_sysret's tail pops arena.h's frame");

static void rec_atfork_child(void)
{
	rec_slot.seg = 0; /* the parent thread's segment is not ours */
}

__attribute__((constructor)) static void rec_init(void)
{
	(void)pthread_atfork(0, 0, rec_atfork_child);
}

_Static_assert(USDT_EXEC_OFF >= sizeof(struct usdt_arena) &&
		       USDT_EXEC_OFF + USDT_NEXEC * sizeof(struct usdt_exec) <=
			       USDT_ARENA_HDR,
	       "the exec slots fit the header page");

/* the consumer beats (its heartbeat is no older than its limit) */
static int rec_consumer_beats(const struct usdt_arena *h)
{
	uint64_t hb = __atomic_load_n(&h->hb, __ATOMIC_ACQUIRE);

	return hb &&
	       (int64_t)(__builtin_ia32_rdtsc() - hb) <=
		       (int64_t)__atomic_load_n(&h->hb_limit, __ATOMIC_RELAXED);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* pid's start (/proc/PID/stat's 22nd field), or 0: not to be read */
static uint64_t rec_pid_start(uint32_t pid)
{
	char path[32] = "/proc/", buf[512], *p = 0;
	uint64_t v = 0;
	int i = 6, n = 0, fd;
	ssize_t len;

	for (uint32_t d = 1000000000u; d; d /= 10)
		if (pid / d || d == 1 || n)
			path[i++] = (char)('0' + pid / d % 10), n = 1;
	__builtin_memcpy(path + i, "/stat", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (char *q = buf; *q; q++) /* the comm may hold ')' */
		if (*q == ')')
			p = q;
	/* ") " then fields 3..: past 20 spaces is the 22nd */
	for (n = 0; p && *p && n < 20; p++)
		n += *p == ' ';
	for (; p && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/*
 * Does the consumer still follow an exec'd image's wait (arena.h,
 * "Following an exec")?  REC_FOLLOWS: it beats, or it is alive (its
 * pidfd, *pfd, opened at the first look, not readable: an exited
 * process's is, zombie or not) and beat within hb_alive.  REC_GONE:
 * tracing ended (hb 0), or the process exited (at once: a SIGKILLed
 * dtrace is not waited for until its beat goes stale), or cpid is
 * another process now (its start is not cstart).  REC_LOST: not
 * beating, and not to be told apart (a dtrace that predates cpid, no
 * /proc or pidfd here) or stuck past hb_alive: given up, which a
 * consumer that was only slow says.  *pfd: -1 not opened, -2 not to be.
 */
enum { REC_FOLLOWS, REC_GONE, REC_LOST };

static int rec_consumer_follows(const struct usdt_arena *h, int *pfd)
{
	uint64_t hb = __atomic_load_n(&h->hb, __ATOMIC_ACQUIRE);
	uint64_t alive = __atomic_load_n(&h->hb_alive, __ATOMIC_RELAXED);
	uint32_t cpid = __atomic_load_n(&h->cpid, __ATOMIC_RELAXED);

	if (!hb)
		return REC_GONE;
	if (*pfd == -1 && cpid && alive) {
		uint64_t start;

		*pfd = (int)syscall(SYS_pidfd_open, (pid_t)cpid, 0);
		if (*pfd < 0) {
			*pfd = -2;
			if (errno == ESRCH)
				return REC_GONE;
		} else {
			/* after the pidfd: cpid was the consumer when taken */
			start = rec_pid_start(cpid);
			if (!start || start != h->cstart) {
				close(*pfd);
				*pfd = -2;
				if (start)
					return REC_GONE;
			}
		}
	}
	if (*pfd >= 0) {
		struct pollfd p = { *pfd, POLLIN, 0 };

		if (poll(&p, 1, 0) != 0)
			return REC_GONE; /* exited (or the pidfd failed) */
	}
	if (rec_consumer_beats(h))
		return REC_FOLLOWS;
	if (*pfd < 0)
		return REC_LOST;
	return (int64_t)(__builtin_ia32_rdtsc() - hb) <= (int64_t)alive
		       ? REC_FOLLOWS
		       : REC_LOST;
}

/*
 * This image was exec'd by a process a consumer traces in-process
 * (arena.h, "Following an exec"): ask to be armed, and wait until it is
 * or the consumer is gone.  Priority 101, so the first of this object's
 * constructors; the objects an image loads at start are all mapped
 * before any constructor runs, so the consumer arms them all at once.
 * A process that is no such image pays one fcntl() here; one run with
 * DTRACE_DOF_INIT_DISABLE set (drti.o's "touch nothing") pays none and
 * is not followed (dtrace says that the image never asked).
 */
__attribute__((constructor(101))) static void rec_exec_wait(void)
{
	int saved = errno;
	const uint64_t *tok;
	struct usdt_arena *h;
	struct usdt_exec *x, *mine = 0;
	uint32_t pid, asked = USDT_EX_WAIT; /* what this waiter set */
	uint64_t magic;
	struct stat st;
	int pfd = -1; /* the consumer's pidfd (rec_consumer_follows()) */
	void *m;

	if (__atomic_load_n(&__usdt_ctl.arena, __ATOMIC_RELAXED) ||
	    getenv(DRTI_ENV_DISABLE) ||
	    fcntl(USDT_EXEC_FD, F_GETFD) < 0) /* armed, or not traced */
		goto out;
	/* the process's own file there: never mapped past its end */
	if (fstat(USDT_EXEC_FD, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)USDT_ARENA_HDR ||
	    pread(USDT_EXEC_FD, &magic, sizeof(magic), 0) != sizeof(magic) ||
	    magic != USDT_ARENA_MAGIC)
		goto out;
	m = mmap(0, USDT_ARENA_HDR, PROT_READ | PROT_WRITE, MAP_SHARED,
		 USDT_EXEC_FD, 0);
	if (m == MAP_FAILED)
		goto out;
	h = m;
	tok = (const uint64_t *)getauxval(AT_RANDOM);
	if (h->magic != USDT_ARENA_MAGIC || h->execs != 1 || !tok ||
	    rec_consumer_follows(h, &pfd) == REC_GONE)
		goto unmap;
	x = (struct usdt_exec *)((char *)m + USDT_EXEC_OFF);
	pid = (uint32_t)getpid();
	for (int i = 0; i < USDT_NEXEC && !mine; i++)
		if (__atomic_load_n(&x[i].pid, __ATOMIC_ACQUIRE) == pid)
			mine = &x[i];
	if (mine && mine->token[0] == tok[0] && mine->token[1] == tok[1] &&
	    __atomic_load_n(&mine->state, __ATOMIC_ACQUIRE) != USDT_EX_FREE) {
		uint32_t done = USDT_EX_DONE;

		/*
		 * This image is armed, this object is not: mapped since, by
		 * a dlopen() (dtrace marks every object mapped when it
		 * arms): ask, and wait as for an exec.  Otherwise it asked
		 * already (another drti.o of the image).
		 */
		if (__atomic_load_n(&h->dlopens, __ATOMIC_RELAXED) == 1 &&
		    __atomic_compare_exchange_n(
			    &mine->state, &done, USDT_EX_DLOPEN, 0,
			    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			asked = USDT_EX_DLOPEN;
		goto wait;
	}
	for (int i = 0; i < USDT_NEXEC && !mine; i++) {
		uint32_t z = 0;

		if (__atomic_compare_exchange_n(&x[i].pid, &z, pid, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			mine = &x[i];
	}
	if (!mine)
		goto unmap; /* no slot: the consumer says the exec is lost */
	mine->token[0] = tok[0];
	mine->token[1] = tok[1];
	__atomic_store_n(&mine->state, USDT_EX_WAIT, __ATOMIC_RELEASE);
wait:
	for (;;) {
		uint32_t now = __atomic_load_n(&mine->state, __ATOMIC_ACQUIRE);
		struct timespec ts = {0, 1000000};

		if (now == USDT_EX_DONE || now == USDT_EX_GAVEUP ||
		    now == USDT_EX_DLGAVEUP)
			break;
		if (rec_consumer_follows(h, &pfd) != REC_FOLLOWS) {
			uint32_t w = asked;

			/*
			 * Gone (or stuck past hb_alive): go on.  From what
			 * we asked say so, so an image that ran on is never
			 * armed late (a dlopen()ed object is said); ARMING
			 * was done with this thread held, before it runs
			 * again.
			 */
			(void)__atomic_compare_exchange_n(
				&mine->state, &w,
				asked == USDT_EX_DLOPEN ? USDT_EX_DLGAVEUP
							: USDT_EX_GAVEUP,
				0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
			break;
		}
		if (pfd >= 0) { /* a millisecond, or its exit */
			struct pollfd p = { pfd, POLLIN, 0 };

			(void)poll(&p, 1, 1);
		} else {
			nanosleep(&ts, 0);
		}
	}
unmap:
	if (pfd >= 0)
		close(pfd);
	munmap(m, USDT_ARENA_HDR);
out:
	errno = saved;
}

#else
/* ISO C wants a translation unit to declare something */
typedef int usdt_rec_unused;
#endif
