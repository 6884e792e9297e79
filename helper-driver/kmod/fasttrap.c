// SPDX-License-Identifier: GPL-2.0
/*
 * fasttrap.c - /dev/dtrace/fasttrap (dtrace_fasttrap.ko): the kernel side
 * of `dtrace -n`, as sdk/include/usdt/fasttrap_abi.h specifies it.
 *
 * Each open file is a consumer (struct ft_con) with a byte ring.  Each
 * FASTTRAPIOC_ENABLE makes a site (struct ft_site): one kernel uprobe
 * consumer on (inode, offset), registered with the probe's semaphore as
 * reference counter and a filter that accepts one address space, the
 * target process's.  The uprobe core asks the filters of every consumer
 * of a uprobe before it writes a breakpoint (or bumps a semaphore) into
 * an mm, so a process that merely runs the same binary keeps its NOPs and
 * its semaphores at 0.  The mm is pinned with mmgrab() (the struct, not
 * the address space) and only compared by pointer: an exited or exec'ed
 * process simply stops matching, and no later mm can take the address
 * while we hold it.
 *
 * The handler runs in the traced thread, in process context, on the way
 * back to user mode.  It fetches the arguments as struct ft_arg says
 * (registers by x86-64 DWARF number, memory at register + displacement,
 * constants), copies the requested strings, and appends one whole record
 * to its own consumer's ring; a site enabled by two consumers is two
 * uprobe consumers, so each gets its record.  The record is built in a
 * per-CPU scratch buffer with preemption off, reading user memory with
 * page faults disabled; when a read faults and the handler may sleep, it
 * faults the page in and builds the record again (at most twice), so a
 * string on a page the program has not touched yet is still copied.
 *
 * Legacy is-enabled sites (FT_ISENABLED) are `31 c0 0f 1f 00`, checked
 * through the file before anything is registered: the uprobe goes on the
 * NOP at offset + 2 and its handler sets %rax to 1, after the xor and
 * before the guarded test; it records nothing.
 *
 * The ring is a power of two in bytes, with free-running head and tail:
 * writers (handlers) copy a record in and move head under the spinlock;
 * the reader (one at a time, ft_con.read_lock) copies whole records out
 * of [tail, head) without the spinlock -- writers never touch that part
 * -- then moves tail.  Records are multiples of 8 bytes and so is the
 * ring, so a record's 4-byte size field never wraps; a record's body may
 * wrap in the ring but read(2) always hands out whole records.
 *
 * Forked children (FT_FOLLOW).  fork() copies the parent's pages, the
 * breakpoints in them too, so a child of a traced process hits the
 * sites its parent had armed.  A site enabled without FT_FOLLOW keeps
 * the old answer: the child is not its address space, the handler says
 * UPROBE_HANDLER_REMOVE and the core takes the breakpoint out of the
 * child, unrecorded.  A site with FT_FOLLOW keeps a set of followed
 * address spaces (ft_site.kids, each mmgrab()bed) that the filter and
 * the handler accept as they accept the target's: the module's probe
 * on the sched_process_fork tracepoint (found by name with
 * for_each_kernel_tracepoint(), as the tracepoint is not exported)
 * runs in kernel_clone() after copy_process() and before
 * wake_up_new_task(), so before the child's first instruction; when the
 * parent's address space is a followed site's target or one of its
 * kids, the child's (a new one: not a thread, not CLONE_VM) joins the
 * kids, and the file gets one FT_COOKIE_FORK record, ahead of any
 * record of the child's.  Children of children follow the same way; an
 * exec gives the process a new address space, in no set, so the
 * inherited site stops matching there (and the new image is armed, if
 * at all, by its own ENABLE).  Why a fork hook and not the handler
 * walking current's real_parent chain up to the target: a child whose
 * parent exited before its first hit is reparented (to init or a
 * subreaper) and the chain no longer reaches the target; the hook sees
 * every fork as it happens, on 6.1 and later kernels alike (the
 * tracepoint's prototype is the same).  A consumer that then ENABLEs
 * the same site in a kid (the child registered itself) is answered 1
 * and nothing is armed: one uprobe consumer per hit, one record.
 * Kids whose address space is gone (mm_users 0: no task runs in it) are
 * dropped by read(2), in process context.  A kid added while its site
 * was being registered may have been passed over by the registration's
 * walk (its address space copied before the walk, added after the
 * filter was asked): such a site is registered a second time with a
 * short-lived consumer (ft_fixup()) whose walk installs the breakpoint
 * where the kids still lack it.  Left in the module: a fork whose copy
 * of the address space was made before the walk (fork's dup_mmap() and
 * the walk exclude each other through the uprobe core's dup_mmap_sem)
 * but whose tracepoint runs only after the registration returned (the
 * forking thread stalled in the rest of copy_process() for the whole
 * registration) loses the child's hits at that site: the walk asked the
 * filter about the child's address space while it was no kid yet, and
 * no hook between the copy and the tracepoint can tell such a child from
 * one copied after the walk.  dtrace never opens that window: it holds
 * the target still (ptrace) around its ENABLEs, and a thread stops only
 * on its way back to user mode, after its fork has passed the
 * tracepoint or been abandoned for the stop (copy_process() gives up
 * with a signal pending, and the fork is restarted after); so no fork
 * of a process whose site is being registered is in flight then.  A
 * process that cannot be held (a debugger has it) is armed running,
 * and there the window stays.
 *
 * Exec (FT_EXEC).  A file that ENABLEs with FT_EXEC watches the site's
 * process (ft_con.watch: struct pid references of thread-group leaders,
 * so a pid number reused later is another struct pid), and every child
 * its FT_FOLLOW sites follow from then on.  The module's probe on the
 * sched_process_exec tracepoint, which runs in the exec'ing task after
 * the new image is loaded and before its first instruction, writes one
 * FT_COOKIE_EXEC record to each file watching the process.  The old
 * address space's sites went with it (an exec'd same binary is a new
 * address space too: no set holds it, no site's target is it), so the
 * consumer arms the new image anew on that record, exactly once, where
 * without it a process exec'ing the file it already had armed was
 * never armed again.  The tracepoint has no old mm to compare, hence
 * pids; a watched process that is gone is dropped by read(2).
 *
 * Teardown: release() unregisters every site of the file.  Unregistering
 * waits for running handlers of that uprobe consumer (6.1: the uprobe's
 * register_rwsem; later kernels: uprobe_unregister_sync()), so the ring,
 * the sites and their inodes and mms are freed only after the last hit.
 * Open files hold the module (fops.owner), so rmmod cannot race them.
 *
 * Kernel interfaces that changed after 6.1 are picked by Kbuild, by
 * looking at the headers (FT_* defines): the registration API returning a
 * struct uprobe, the filter without its context argument, and the
 * handler's `data` argument.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "usdt/fasttrap_abi.h"

/* the record's fixed part: its layout is the ABI */
static_assert(sizeof(struct ft_record) == 176);
static_assert(sizeof(struct ft_enable) == 40 + FT_MAXARGS * 16);

#define FT_RECMAX (sizeof(struct ft_record) + FT_MAXARGS * FT_STRMAX)
#define FT_NREGS 17 /* DWARF 0..16 */

static unsigned int ring_kib = 4096;
module_param(ring_kib, uint, 0444);
MODULE_PARM_DESC(
	ring_kib,
	"ring per open file in KiB, rounded up to a power of two (4096)");

static unsigned int max_sites = 65536;
module_param(max_sites, uint, 0644);
MODULE_PARM_DESC(max_sites, "sites one open file may enable (65536)");

struct ft_con {
	spinlock_t lock; /* head, tail, hits, drops */
	u8 *ring;
	u64 mask; /* ring size - 1 */
	u64 head, tail;
	u64 hits, drops;
	wait_queue_head_t wq;
	struct mutex read_lock; /* one reader at a time */
	struct mutex sites_lock;
	struct list_head sites;
	unsigned int nsites;
	struct pid_namespace
		*pidns; /* pids in records are as the opener sees them */
	u64 fork_seq; /* ft_follow_lock: the last fork recorded */
	/* FT_EXEC; all under ft_follow_lock */
	struct list_head clink; /* on ft_cons */
	bool want_exec;		/* an ENABLE had FT_EXEC */
	struct pid **watch;	/* processes whose exec is recorded */
	unsigned int nwatch, capwatch;
};

struct ft_site {
	struct uprobe_consumer uc;
	struct list_head link;
	struct ft_con *con;
	struct inode *inode;  /* ihold */
	loff_t offset;	      /* where the uprobe is (+ 2 for FT_ISENABLED) */
	struct mm_struct *mm; /* mmgrab: compared, never used */
#ifdef FT_REGISTER_RETURNS_UPROBE
	struct uprobe *uprobe;
#endif
	u64 cookie;
	u32 flags;
	u16 nargs, strmask;
	struct ft_arg args[FT_MAXARGS];
	/* FT_FOLLOW; all under ft_follow_lock */
	struct list_head flink;	  /* on ft_follow_sites */
	struct mm_struct **kids;  /* followed address spaces, mmgrab */
	unsigned int nkids, capkids;
	bool registered; /* uprobe registration returned */
	bool racy;	 /* a kid came during the registration */
	struct ft_site *fix_of; /* ft_fixup()'s: the site it fixes */
};

/* Every FT_FOLLOW site of every file, and their kids. */
static DEFINE_SPINLOCK(ft_follow_lock);
static LIST_HEAD(ft_follow_sites);
static u64 ft_fork_seq;
static struct tracepoint *ft_fork_tp, *ft_exec_tp;
/* Every open file (FT_EXEC's watch lists), under ft_follow_lock. */
static LIST_HEAD(ft_cons);

struct ft_scratch {
	u8 buf[FT_RECMAX];
};
static struct ft_scratch __percpu *ft_scratch;

/* ------------------------------------------------------------------ */
/* The handler */

/* DWARF register number -> value in regs (ft_enable_check: reg < FT_NREGS) */
static u64 ft_reg(const struct pt_regs *regs, unsigned int reg)
{
	switch (reg) {
	case 0:
		return regs->ax;
	case 1:
		return regs->dx;
	case 2:
		return regs->cx;
	case 3:
		return regs->bx;
	case 4:
		return regs->si;
	case 5:
		return regs->di;
	case 6:
		return regs->bp;
	case 7:
		return regs->sp;
	case 8:
		return regs->r8;
	case 9:
		return regs->r9;
	case 10:
		return regs->r10;
	case 11:
		return regs->r11;
	case 12:
		return regs->r12;
	case 13:
		return regs->r13;
	case 14:
		return regs->r14;
	case 15:
		return regs->r15;
	default:
		/* 16: the probed instruction (the uprobe core sets ip back
		 * to it for handlers), not the next one as in %rip-relative
		 * operands: the consumer sends no FT_LOC_MEM on reg 16 */
		return regs->ip;
	}
}

static u64 ft_extend(u64 v, unsigned int size, bool is_signed)
{
	unsigned int shift = 64 - 8 * size;

	if (size >= 8)
		return v;
	v <<= shift;
	return is_signed ? (u64)((s64)v >> shift) : v >> shift;
}

/*
 * Build site's record for this hit in buf; its size, rounded up to 8.
 * A faulting read of user memory gives 0 (or an empty string) and sets
 * *fault to the address, so the caller can fault it in and retry.
 */
static u32 ft_fill(const struct ft_site *s, const struct pt_regs *regs, u8 *buf,
		   unsigned long *fault)
{
	struct ft_record *r = (struct ft_record *)buf;
	u32 pos = sizeof(*r);

	memset(r, 0, sizeof(*r));
	for (unsigned int i = 0; i < s->nargs; i++) {
		const struct ft_arg *a = &s->args[i];
		u64 v = 0;

		switch (a->kind) {
		case FT_LOC_REG:
			v = ft_reg(regs, a->reg);
			break;
		case FT_LOC_MEM: {
			unsigned long addr = ft_reg(regs, a->reg) + a->off;

			if (copy_from_user_nofault(&v, (void __user *)addr,
						   a->size)) {
				v = 0;
				*fault = addr;
			}
			break;
		}
		case FT_LOC_CONST:
			v = a->off;
			break;
		}
		r->args[i] = ft_extend(v, a->size, a->is_signed);
	}
	for (unsigned int i = 0; i < s->nargs; i++) {
		char *dst = (char *)buf + pos;
		long n;

		if (!(s->strmask & (1u << i)))
			continue;
		/* strncpy_from_user_nofault() is not exported by 6.1 */
		pagefault_disable();
		n = strncpy_from_user(dst, (const char __user *)r->args[i],
				      FT_STRMAX);
		pagefault_enable();
		if (n < 0) {
			if (r->args[i])
				*fault = r->args[i];
			continue;
		}
		if (n >= FT_STRMAX)
			n = FT_STRMAX - 1; /* truncated: keep the NUL */
		dst[n] = '\0';
		r->strlen[i] = n + 1;
		pos += n + 1;
	}
	/* the scratch buffer holds older records: clear the padding */
	memset(buf + pos, 0, ALIGN(pos, 8) - pos);
	pos = ALIGN(pos, 8);
	r->size = pos;
	r->cookie = s->cookie;
	r->time = ktime_get_ns();
	r->pid = task_tgid_nr_ns(current, s->con->pidns);
	r->tid = task_pid_nr_ns(current, s->con->pidns);
	memcpy(r->comm, current->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	r->cpu = smp_processor_id();
	return pos;
}

/* Append n bytes (a whole record) to con's ring, or count a drop. */
static void ft_put(struct ft_con *con, const u8 *rec, u32 n)
{
	u64 size = con->mask + 1, at, first;
	bool was_empty;

	spin_lock(&con->lock);
	if (size - (con->head - con->tail) < n) {
		con->drops++;
		spin_unlock(&con->lock);
		return;
	}
	at = con->head & con->mask;
	first = min_t(u64, n, size - at);
	memcpy(con->ring + at, rec, first);
	memcpy(con->ring, rec + first, n - first);
	was_empty = con->head == con->tail;
	con->head += n;
	con->hits++;
	spin_unlock(&con->lock);
	/* a reader sleeps only on an empty ring */
	if (was_empty)
		wake_up_interruptible_poll(&con->wq, EPOLLIN | EPOLLRDNORM);
}

/* Is mm one of s's kids?  ft_follow_lock held. */
static bool ft_is_kid(const struct ft_site *s, const struct mm_struct *mm)
{
	for (unsigned int i = 0; i < s->nkids; i++)
		if (s->kids[i] == mm)
			return true;
	return false;
}

/* Does s take hits in mm: its target's, or (FT_FOLLOW) a kid's? */
static bool ft_wants(struct ft_site *s, const struct mm_struct *mm)
{
	bool yes;

	if (mm == s->mm)
		return true;
	if (!(s->flags & FT_FOLLOW) || !mm)
		return false;
	spin_lock(&ft_follow_lock);
	yes = ft_is_kid(s, mm);
	spin_unlock(&ft_follow_lock);
	return yes;
}

static int ft_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ft_site *s = container_of(uc, struct ft_site, uc);
	bool may_sleep = preemptible();
	unsigned int tries = 0;

	/*
	 * Another consumer's process, or a fork of ours that inherited the
	 * breakpoint and is not followed: if every consumer of the uprobe
	 * says so, the core removes the breakpoint from this mm.
	 */
	if (!ft_wants(s, current->mm))
		return UPROBE_HANDLER_REMOVE;
	if (s->flags & FT_ISENABLED) {
		regs->ax = 1;
		return 0;
	}
	for (;;) {
		unsigned long fault = 0;
		u8 *buf = get_cpu_ptr(ft_scratch)->buf;
		u32 n = ft_fill(s, regs, buf, &fault);

		if (!fault || !may_sleep || tries == 2) {
			ft_put(s->con, buf, n);
			put_cpu_ptr(ft_scratch);
			return 0;
		}
		put_cpu_ptr(ft_scratch);
		tries++;
		/* a bad address stays bad: then record what we have */
		if (fault_in_readable((const char __user *)fault, 1))
			tries = 2;
	}
}

#ifdef FT_HANDLER_HAS_DATA
static int ft_handler(struct uprobe_consumer *uc, struct pt_regs *regs,
		      __u64 *data)
{
	return ft_hit(uc, regs);
}
#else
#define ft_handler ft_hit
#endif

#ifdef FT_FILTER_HAS_CTX
static bool ft_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
		      struct mm_struct *mm)
#else
static bool ft_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#endif
{
	return ft_wants(container_of(uc, struct ft_site, uc), mm);
}

/* ------------------------------------------------------------------ */
/* Following forks */

/*
 * A process event's record (FT_COOKIE_FORK: t is the child, arg0 the
 * parent's pid; FT_COOKIE_EXEC: t is the process), into con's ring.
 */
static void ft_task_record(struct ft_con *con, u64 cookie,
			   struct task_struct *t, u64 arg0)
{
	struct ft_record r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.cookie = cookie;
	r.time = ktime_get_ns();
	r.pid = task_tgid_nr_ns(t, con->pidns);
	r.tid = task_pid_nr_ns(t, con->pidns);
	r.args[0] = arg0;
	memcpy(r.comm, t->comm, sizeof(r.comm));
	r.comm[sizeof(r.comm) - 1] = '\0';
	r.cpu = raw_smp_processor_id();
	ft_put(con, (const u8 *)&r, sizeof(r));
}

/* mm joins s's kids; false when there is no memory for it.  Locked. */
static bool ft_kid_add(struct ft_site *s, struct mm_struct *mm)
{
	if (s->nkids == s->capkids) {
		unsigned int cap = s->capkids ? 2 * s->capkids : 8;
		struct mm_struct **k = krealloc_array(s->kids, cap,
						      sizeof(*k), GFP_ATOMIC);

		if (!k)
			return false;
		s->kids = k;
		s->capkids = cap;
	}
	mmgrab(mm);
	s->kids[s->nkids++] = mm;
	if (!s->registered)
		s->racy = true;
	return true;
}

/* Does con watch the process of pid (a leader's)?  Locked. */
static bool ft_watched(const struct ft_con *con, const struct pid *pid)
{
	for (unsigned int i = 0; i < con->nwatch; i++)
		if (con->watch[i] == pid)
			return true;
	return false;
}

/* con watches pid's exec from now on; false without memory.  Locked. */
static bool ft_watch_add(struct ft_con *con, struct pid *pid)
{
	if (ft_watched(con, pid))
		return true;
	if (con->nwatch == con->capwatch) {
		unsigned int cap = con->capwatch ? 2 * con->capwatch : 8;
		struct pid **w = krealloc_array(con->watch, cap, sizeof(*w),
						GFP_ATOMIC);

		if (!w)
			return false;
		con->watch = w;
		con->capwatch = cap;
	}
	con->watch[con->nwatch++] = get_pid(pid);
	return true;
}

/*
 * sched_process_exec: p (current) runs a new image, not yet a single
 * instruction of it.  Preemption is off: no sleeping.
 */
static void ft_exec(void *data, struct task_struct *p, pid_t old_pid,
		    struct linux_binprm *bprm)
{
	struct pid *pid = task_tgid(p);
	struct ft_con *con;

	if (list_empty(&ft_cons))
		return;
	spin_lock(&ft_follow_lock);
	list_for_each_entry(con, &ft_cons, clink)
	{
		if (ft_watched(con, pid))
			ft_task_record(con, FT_COOKIE_EXEC, p, 0);
	}
	spin_unlock(&ft_follow_lock);
}

/*
 * sched_process_fork: parent (current) made child, which has not run
 * yet.  Preemption is off (a tracepoint probe): no sleeping here.
 */
static void ft_fork(void *data, struct task_struct *parent,
		    struct task_struct *child)
{
	struct mm_struct *pm = parent->mm, *cm = child->mm;
	struct ft_site *s;
	u64 seq;

	/* a thread is no fork; a CLONE_VM child shares what is followed */
	if (!pm || !thread_group_leader(child) ||
	    list_empty(&ft_follow_sites))
		return;
	spin_lock(&ft_follow_lock);
	seq = ++ft_fork_seq;
	list_for_each_entry(s, &ft_follow_sites, flink)
	{
		if (pm != s->mm && !ft_is_kid(s, pm))
			continue;
		if (cm && cm != pm && !ft_is_kid(s, cm) &&
		    !ft_kid_add(s, cm)) {
			/* its hits will be lost: say so with the drops */
			spin_lock(&s->con->lock);
			s->con->drops++;
			spin_unlock(&s->con->lock);
		}
		if (s->con->fork_seq != seq) {
			s->con->fork_seq = seq;
			ft_task_record(s->con, FT_COOKIE_FORK, child,
				       (u64)task_tgid_nr_ns(parent,
							    s->con->pidns));
			/* its exec is told too; without memory it is not */
			if (s->con->want_exec)
				(void)ft_watch_add(s->con, task_pid(child));
		}
	}
	spin_unlock(&ft_follow_lock);
}

static void ft_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ft_fork_tp = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		ft_exec_tp = tp;
}

/* Drop the processes con watches that are gone.  Locked. */
static void ft_watch_prune(struct ft_con *con)
{
	unsigned int i = 0;

	rcu_read_lock();
	while (i < con->nwatch) {
		if (pid_task(con->watch[i], PIDTYPE_TGID)) {
			i++;
			continue;
		}
		put_pid(con->watch[i]);
		con->watch[i] = con->watch[--con->nwatch];
	}
	rcu_read_unlock();
}

/* Drop the kids of con's sites whose address space is gone. */
static void ft_prune(struct ft_con *con)
{
	struct mm_struct *dead[16];
	struct ft_site *s;
	unsigned int n;

	spin_lock(&ft_follow_lock);
	ft_watch_prune(con);
	spin_unlock(&ft_follow_lock);
	mutex_lock(&con->sites_lock);
	list_for_each_entry(s, &con->sites, link)
	{
		if (!(s->flags & FT_FOLLOW))
			continue;
		do {
			unsigned int i = 0;

			n = 0;
			spin_lock(&ft_follow_lock);
			while (i < s->nkids && n < ARRAY_SIZE(dead)) {
				if (atomic_read(&s->kids[i]->mm_users)) {
					i++;
					continue;
				}
				dead[n++] = s->kids[i];
				s->kids[i] = s->kids[--s->nkids];
			}
			spin_unlock(&ft_follow_lock);
			for (i = 0; i < n; i++)
				mmdrop(dead[i]);
		} while (n == ARRAY_SIZE(dead));
	}
	mutex_unlock(&con->sites_lock);
}

/* ------------------------------------------------------------------ */
/* Sites */

static int ft_register(struct ft_site *s, loff_t refctr)
{
#ifdef FT_REGISTER_RETURNS_UPROBE
	s->uprobe = uprobe_register(s->inode, s->offset, refctr, &s->uc);
	return PTR_ERR_OR_ZERO(s->uprobe);
#else
	return uprobe_register_refctr(s->inode, s->offset, refctr, &s->uc);
#endif
}

static void ft_unregister_one(struct ft_site *s)
{
#ifdef FT_REGISTER_RETURNS_UPROBE
	uprobe_unregister_nosync(s->uprobe, &s->uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(s->inode, s->offset, &s->uc);
#endif
}

static int ft_fix_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	return 0; /* the site's own consumer records the hit */
}

#ifdef FT_HANDLER_HAS_DATA
static int ft_fix_handler(struct uprobe_consumer *uc, struct pt_regs *regs,
			  __u64 *data)
{
	return ft_fix_hit(uc, regs);
}
#else
#define ft_fix_handler ft_fix_hit
#endif

#ifdef FT_FILTER_HAS_CTX
static bool ft_fix_filter(struct uprobe_consumer *uc,
			  enum uprobe_filter_ctx ctx, struct mm_struct *mm)
#else
static bool ft_fix_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#endif
{
	return ft_wants(container_of(uc, struct ft_site, uc)->fix_of,
			mm);
}

/*
 * s's registration may have passed over a kid added meanwhile: a second
 * consumer with s's filter, registered then unregistered, walks the
 * file's mappings again and installs the breakpoint where s wants it
 * and it is not (the core skips an mm that has it); its unregistration
 * leaves it, as s's filter still wants it.
 */
static void ft_fixup(struct ft_site *s, loff_t refctr)
{
	struct ft_site *fix = kzalloc(sizeof(*fix), GFP_KERNEL);

	if (!fix)
		return;
	fix->inode = s->inode;
	fix->offset = s->offset;
	fix->fix_of = s;
	fix->uc.handler = ft_fix_handler;
	fix->uc.filter = ft_fix_filter;
	if (!ft_register(fix, refctr))
		ft_unregister_one(fix);
	kfree(fix);
}

/* Free s, registered no more (or never). */
static void ft_site_put(struct ft_site *s)
{
	for (unsigned int i = 0; i < s->nkids; i++)
		mmdrop(s->kids[i]);
	kfree(s->kids);
	iput(s->inode);
	mmdrop(s->mm);
	kfree(s);
}

/* Unregister every site of con, then free them; no handler runs after. */
static void ft_sites_free(struct ft_con *con)
{
	struct ft_site *s, *t;

	/* no fork adds a kid to them from now on */
	spin_lock(&ft_follow_lock);
	list_for_each_entry(s, &con->sites, link)
		if (s->flags & FT_FOLLOW)
			list_del(&s->flink);
	spin_unlock(&ft_follow_lock);
	list_for_each_entry(s, &con->sites, link)
	{
#ifdef FT_REGISTER_RETURNS_UPROBE
		uprobe_unregister_nosync(s->uprobe, &s->uc);
#else
		uprobe_unregister(s->inode, s->offset, &s->uc);
#endif
	}
#ifdef FT_REGISTER_RETURNS_UPROBE
	if (!list_empty(&con->sites))
		uprobe_unregister_sync();
#endif
	list_for_each_entry_safe(s, t, &con->sites, link)
	{
		list_del(&s->link);
		ft_site_put(s);
	}
	con->nsites = 0;
}

/* The request's fields, before anything is looked up. */
static int ft_enable_check(const struct ft_enable *en)
{
	if (en->flags & ~(FT_ISENABLED | FT_FOLLOW | FT_EXEC) ||
	    en->nargs > FT_MAXARGS ||
	    en->strmask >> en->nargs || en->pid <= 0 || en->fd < 0 ||
	    en->offset > (u64)LLONG_MAX - 8 || en->refctr > (u64)LLONG_MAX)
		return -EINVAL;
	if (en->flags & FT_ISENABLED && (en->nargs || en->strmask))
		return -EINVAL;
	for (unsigned int i = 0; i < FT_MAXARGS; i++) {
		const struct ft_arg *a = &en->args[i];

		if (a->pad || a->is_signed > 1)
			return -EINVAL;
		if (i >= en->nargs || a->kind == FT_LOC_NONE) {
			/* unused: all zero, so it reads as 0 */
			if (a->kind || a->reg || a->size || a->is_signed ||
			    a->off)
				return -EINVAL;
			continue;
		}
		if (a->kind > FT_LOC_CONST || (a->size != 1 && a->size != 2 &&
					       a->size != 4 && a->size != 8))
			return -EINVAL;
		if (a->kind != FT_LOC_CONST && a->reg >= FT_NREGS)
			return -EINVAL;
		if (a->kind == FT_LOC_CONST && a->reg)
			return -EINVAL;
	}
	return 0;
}

/* A legacy is-enabled site must be `xor %eax,%eax; nopl (%rax)`. */
static int ft_isenabled_check(struct file *file, loff_t off)
{
	static const u8 want[5] = {0x31, 0xc0, 0x0f, 0x1f, 0x00};
	u8 got[sizeof(want)];
	ssize_t n;

	/* the page cache holds the file as built: uprobes write only to
	 * the processes' private copies */
	n = kernel_read(file, got, sizeof(got), &off);
	if (n < 0)
		return n;
	if (n != sizeof(want) || memcmp(got, want, sizeof(want)))
		return -EINVAL;
	return 0;
}

/*
 * The target's mm, pinned as a struct only (mmgrab); *tgid its
 * process's struct pid, referenced (put_pid).
 */
static struct mm_struct *ft_target_mm(struct ft_con *con, pid_t nr,
				      struct pid **tgid)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;

	rcu_read_lock();
	pid = get_pid(find_pid_ns(nr, con->pidns));
	rcu_read_unlock();
	if (!pid)
		return ERR_PTR(-ESRCH);
	task = get_pid_task(pid, PIDTYPE_PID); /* any thread: one mm */
	put_pid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	mm = get_task_mm(task); /* NULL for a kernel thread or a zombie */
	*tgid = get_pid(task_tgid(task));
	put_task_struct(task);
	if (!mm) {
		put_pid(*tgid);
		return ERR_PTR(-ESRCH);
	}
	mmgrab(mm);
	mmput(mm);
	return mm;
}

/*
 * Does a FT_FOLLOW site of con at s's place follow s's target already
 * (a kid)?  con->sites_lock held.
 */
static bool ft_followed(struct ft_con *con, const struct ft_site *s)
{
	const struct ft_site *t;
	bool yes = false;

	spin_lock(&ft_follow_lock);
	list_for_each_entry(t, &con->sites, link)
	{
		if (t->flags & FT_FOLLOW && t->inode == s->inode &&
		    t->offset == s->offset && ft_is_kid(t, s->mm)) {
			yes = true;
			break;
		}
	}
	spin_unlock(&ft_follow_lock);
	return yes;
}

static long ft_enable(struct ft_con *con, const void __user *arg)
{
	struct ft_enable en;
	struct ft_site *s;
	struct file *file;
	struct inode *inode;
	struct pid *tgid = NULL;
	int err;

	if (copy_from_user(&en, arg, sizeof(en)))
		return -EFAULT;
	err = ft_enable_check(&en);
	if (err)
		return err;
	file = fget(en.fd);
	if (!file)
		return -EBADF;
	inode = file_inode(file);
	err = -EINVAL;
	if (!S_ISREG(inode->i_mode))
		goto out_file;
	err = -EBADF;
	if (!(file->f_mode & FMODE_READ))
		goto out_file;
	if (en.flags & FT_ISENABLED) {
		err = ft_isenabled_check(file, en.offset);
		if (err)
			goto out_file;
	}
	err = -ENOMEM;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		goto out_file;
	s->mm = ft_target_mm(con, en.pid, &tgid);
	if (IS_ERR(s->mm)) {
		err = PTR_ERR(s->mm);
		kfree(s);
		goto out_file;
	}
	s->con = con;
	s->inode = inode;
	ihold(inode);
	s->offset = en.offset + (en.flags & FT_ISENABLED ? 2 : 0);
	s->cookie = en.cookie;
	s->flags = en.flags;
	s->nargs = en.nargs;
	s->strmask = en.strmask;
	memcpy(s->args, en.args, sizeof(s->args));
	s->uc.handler = ft_handler;
	s->uc.filter = ft_filter;

	mutex_lock(&con->sites_lock);
	if (con->nsites >= max_sites) {
		err = -ENOSPC;
	} else if (s->flags & FT_FOLLOW && ft_followed(con, s)) {
		err = 1; /* carried already: nothing armed */
	} else {
		bool racy = false;

		if (s->flags & FT_FOLLOW) {
			/* on the list first: a fork from now on is seen */
			spin_lock(&ft_follow_lock);
			list_add_tail(&s->flink, &ft_follow_sites);
			spin_unlock(&ft_follow_lock);
		}
		err = ft_register(s, en.refctr);
		if (s->flags & FT_FOLLOW) {
			spin_lock(&ft_follow_lock);
			s->registered = true;
			racy = s->racy;
			if (err)
				list_del(&s->flink);
			spin_unlock(&ft_follow_lock);
		}
		if (!err) {
			list_add_tail(&s->link, &con->sites);
			con->nsites++;
			if (racy)
				ft_fixup(s, en.refctr);
		}
	}
	mutex_unlock(&con->sites_lock);
	if (err)
		ft_site_put(s);
	if (err >= 0 && en.flags & FT_EXEC) {
		spin_lock(&ft_follow_lock);
		con->want_exec = true;
		if (!ft_watch_add(con, tgid)) {
			/* no memory: its exec goes untold; say so */
			spin_lock(&con->lock);
			con->drops++;
			spin_unlock(&con->lock);
		}
		spin_unlock(&ft_follow_lock);
	}
	put_pid(tgid);
out_file:
	fput(file);
	return err;
}

/* ------------------------------------------------------------------ */
/* The device */

static int ft_open(struct inode *inode, struct file *file)
{
	struct ft_con *con;
	u64 size = roundup_pow_of_two(max(ring_kib, 64u)) * 1024ULL;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	con = kzalloc(sizeof(*con), GFP_KERNEL);
	if (!con)
		return -ENOMEM;
	con->ring = vmalloc(size);
	if (!con->ring) {
		kfree(con);
		return -ENOMEM;
	}
	con->mask = size - 1;
	spin_lock_init(&con->lock);
	init_waitqueue_head(&con->wq);
	mutex_init(&con->read_lock);
	mutex_init(&con->sites_lock);
	INIT_LIST_HEAD(&con->sites);
	con->pidns = get_pid_ns(task_active_pid_ns(current));
	spin_lock(&ft_follow_lock);
	list_add_tail(&con->clink, &ft_cons);
	spin_unlock(&ft_follow_lock);
	file->private_data = con;
	return 0;
}

static int ft_release(struct inode *inode, struct file *file)
{
	struct ft_con *con = file->private_data;

	mutex_lock(&con->sites_lock);
	ft_sites_free(con);
	mutex_unlock(&con->sites_lock);
	/* no exec or fork probe finds con from now on */
	spin_lock(&ft_follow_lock);
	list_del(&con->clink);
	spin_unlock(&ft_follow_lock);
	for (unsigned int i = 0; i < con->nwatch; i++)
		put_pid(con->watch[i]);
	kfree(con->watch);
	put_pid_ns(con->pidns);
	vfree(con->ring);
	kfree(con);
	return 0;
}

/* Bytes of the whole records at the start of [tail, tail + avail) that
 * fit in len. */
static u64 ft_whole(struct ft_con *con, u64 tail, u64 avail, size_t len)
{
	u64 n = 0;

	while (n < avail) {
		u32 rs = *(u32 *)(con->ring + ((tail + n) & con->mask));

		if (n + rs > len)
			break;
		n += rs;
	}
	return n;
}

static ssize_t ft_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *ppos)
{
	struct ft_con *con = file->private_data;
	u64 tail, avail, n, at, first;
	ssize_t ret;

	ft_prune(con);
	if (mutex_lock_interruptible(&con->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		spin_lock(&con->lock);
		tail = con->tail;
		avail = con->head - tail;
		spin_unlock(&con->lock);
		if (avail)
			break;
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out;
		ret = wait_event_interruptible(
			con->wq, READ_ONCE(con->head) != READ_ONCE(con->tail));
		if (ret)
			goto out;
	}
	n = ft_whole(con, tail, avail, len);
	ret = -EINVAL; /* too small for the first record */
	if (!n)
		goto out;
	at = tail & con->mask;
	first = min_t(u64, n, con->mask + 1 - at);
	ret = -EFAULT;
	if (copy_to_user(ubuf, con->ring + at, first) ||
	    copy_to_user(ubuf + first, con->ring, n - first))
		goto out;
	spin_lock(&con->lock);
	con->tail = tail + n;
	spin_unlock(&con->lock);
	ret = n;
out:
	mutex_unlock(&con->read_lock);
	return ret;
}

static __poll_t ft_poll(struct file *file, poll_table *wait)
{
	struct ft_con *con = file->private_data;

	poll_wait(file, &con->wq, wait);
	return READ_ONCE(con->head) != READ_ONCE(con->tail)
		       ? EPOLLIN | EPOLLRDNORM
		       : 0;
}

static long ft_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ft_con *con = file->private_data;
	struct ft_stats st = {0};

	switch (cmd) {
	case FASTTRAPIOC_ENABLE:
		return ft_enable(con, (const void __user *)arg);
	case FASTTRAPIOC_DISABLE:
		/* every site off, the ring kept for the last reads */
		mutex_lock(&con->sites_lock);
		ft_sites_free(con);
		mutex_unlock(&con->sites_lock);
		return 0;
	case FASTTRAPIOC_STATS:
		spin_lock(&con->lock);
		st.hits = con->hits;
		st.drops = con->drops;
		spin_unlock(&con->lock);
		return copy_to_user((void __user *)arg, &st, sizeof(st))
			       ? -EFAULT
			       : 0;
	}
	return -ENOTTY;
}

static const struct file_operations ft_fops = {
	.owner = THIS_MODULE,
	.open = ft_open,
	.release = ft_release,
	.read = ft_read,
	.poll = ft_poll,
	.unlocked_ioctl = ft_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ft_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dtrace/fasttrap",
	.fops = &ft_fops,
	.mode = 0600,
};

static int __init ft_init(void)
{
	int err;

	ft_scratch = alloc_percpu(struct ft_scratch);
	if (!ft_scratch)
		return -ENOMEM;
	for_each_kernel_tracepoint(ft_find_tps, NULL);
	if (!ft_fork_tp || !ft_exec_tp) {
		pr_err("no sched_process_fork or sched_process_exec "
		       "tracepoint\n");
		free_percpu(ft_scratch);
		return -ENOENT;
	}
	err = tracepoint_probe_register(ft_fork_tp, (void *)ft_fork, NULL);
	if (err) {
		free_percpu(ft_scratch);
		return err;
	}
	err = tracepoint_probe_register(ft_exec_tp, (void *)ft_exec, NULL);
	if (!err) {
		err = misc_register(&ft_misc);
		if (err)
			tracepoint_probe_unregister(ft_exec_tp,
						    (void *)ft_exec, NULL);
	}
	if (err) {
		tracepoint_probe_unregister(ft_fork_tp, (void *)ft_fork, NULL);
		tracepoint_synchronize_unregister();
		free_percpu(ft_scratch);
		return err;
	}
	pr_info("/dev/dtrace/fasttrap ready\n");
	return 0;
}

static void __exit ft_exit(void)
{
	misc_deregister(&ft_misc);
	tracepoint_probe_unregister(ft_exec_tp, (void *)ft_exec, NULL);
	tracepoint_probe_unregister(ft_fork_tp, (void *)ft_fork, NULL);
	tracepoint_synchronize_unregister();
	free_percpu(ft_scratch);
}

module_init(ft_init);
module_exit(ft_exit);
MODULE_LICENSE("GPL"); /* the uprobe API is GPL-only */
MODULE_DESCRIPTION(
	"DTrace fasttrap device: USDT probes through kernel uprobes");
MODULE_AUTHOR("usdt-sdk");
