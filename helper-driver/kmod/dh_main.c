// SPDX-License-Identifier: GPL-2.0
/*
 * dh_main.c - /dev/dtrace/helper as a kernel module (dtrace_helper.ko).
 *
 * The kernel-side twin of dtrace-helperd (helper-driver/hd_*.c): programs
 * built with `dtrace -G` carry drti.o, whose constructor hands the
 * process's DOF to this device (usdt/helper_abi.h), and consumers find the
 * registrations in /proc/dtrace/registry/<pid>, in the daemon's registry
 * file format (usdt/registry_format.h, written with the same formats and
 * escaping), so `DTRACE_STATEDIR=/proc/dtrace dtrace -l` works unchanged.
 *
 * ADDDOF, in the daemon's order (hd_reg.c); the first failure is the
 * caller's errno and a rate-limited log line:
 *
 *  1. the dof_helper_t: dofhp_mod NUL-terminated, no control characters;
 *  2. the 64-byte DOF header at dofhp_dof, copied from the caller:
 *     dof_check_hdr() gives dofh_loadsz, at most 8 MiB (E2BIG);
 *  3. a first quota check (ENOSPC) before anything big is allocated;
 *  4. the blob, copied once (copy_from_user, charged to the caller's
 *     memory cgroup) and never read from the process again: dof_check()
 *     and dof_relocate() with dofhp_addr -- sdk/dof_check.c, the same
 *     file the daemon runs, linked into the module by ./Makefile;
 *  5. every probe and is-enabled site (dofpr_addr + offset, after
 *     relocation) lies in an executable VMA of the caller's mm;
 *  6. under the registry lock: the quotas again, then the record.  A blob
 *     registered again at the same address replaces the old record.
 *
 * Steps 1-5 run without the registry lock, so a caller that faults on
 * slow memory (FUSE, userfaultfd) stalls only itself.  Everyone may
 * register, but only memory of its own process, within quotas: per blob
 * 8 MiB; per process 1,024 registrations and 16 MiB; per user other than
 * root 8,192 and 128 MiB; 512 MiB in all (module parameters).
 *
 * A process is its thread group: registrations are kept per tgid (in the
 * initial pid namespace, as the daemon sees pids) and dropped when the
 * last thread exits or the process execs.  Those two events come from
 * the sched_process_exit and sched_process_exec tracepoints, which are
 * not exported to modules as symbols; for_each_kernel_tracepoint() finds
 * them.  Tracepoint probes run with preemption disabled, so a probe only
 * marks the process dead (an atomic bit, found through an RCU hash) and
 * queues it for a work item; every ioctl reaps that queue first, so the
 * DOF of a freshly exec'ed image never meets the old image's records.
 * A forked child inherits nothing (drti.o registers again in the child).
 *
 * Locking.  dh_lock serialises every change, including creating and
 * removing /proc entries.  dh_data_lock guards what a reader of
 * /proc/dtrace/registry/<pid> looks at (a process's list); readers take
 * only that one, because proc_remove() (called under dh_lock) waits for
 * readers to finish.  Order: dh_lock, then dh_data_lock.  Neither is
 * held while touching user memory or the caller's mmap lock.  A process
 * record is freed only after its /proc entry is gone and after an RCU
 * grace period (for the tracepoint probes).  Ownership of a record's
 * destruction goes to whoever sets its DH_DEAD bit first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kdev_t.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time_namespace.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/workqueue.h>

#include "dof_check.h"
#include "usdt/helper_abi.h"
#include "usdt/registry_format.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 8, 0)
#error "dtrace_helper needs Linux 5.8 or later (proc_ops, mmap_read_lock)"
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define pde_data(inode) PDE_DATA(inode)
#endif

/* Per blob, as the daemon: the helper ABI's default. */
#define DH_MAX_DOF DTRACE_HELPER_MAX_DOF

/* The quotas: the helper ABI's defaults (usdt/helper_abi.h). */
static unsigned int max_proc_regs = DTRACE_HELPER_MAX_PROC_REGS;
module_param(max_proc_regs, uint, 0644);
MODULE_PARM_DESC(max_proc_regs, "registrations per process (1024)");
static unsigned long max_proc_bytes = DTRACE_HELPER_MAX_PROC_BYTES;
module_param(max_proc_bytes, ulong, 0644);
MODULE_PARM_DESC(max_proc_bytes, "bytes of DOF per process (16 MiB)");
static unsigned int max_uid_regs = DTRACE_HELPER_MAX_UID_REGS;
module_param(max_uid_regs, uint, 0644);
MODULE_PARM_DESC(max_uid_regs, "registrations per user but root (8192)");
static unsigned long max_uid_bytes = DTRACE_HELPER_MAX_UID_BYTES;
module_param(max_uid_bytes, ulong, 0644);
MODULE_PARM_DESC(max_uid_bytes, "bytes of DOF per user but root (128 MiB)");
static unsigned long max_total_bytes = DTRACE_HELPER_MAX_TOTAL_BYTES;
module_param(max_total_bytes, ulong, 0644);
MODULE_PARM_DESC(max_total_bytes, "bytes of DOF in all (512 MiB)");

/* One ADDDOF: a line and a DOF block of the registry file. */
struct dh_reg {
	struct list_head node; /* in dh_proc.regs, by generation */
	u64 gen;
	u64 base;     /* dofhp_addr */
	u64 dof_addr; /* dofhp_dof */
	u64 dev;      /* glibc makedev() encoding, 0 if not file-backed */
	u64 ino;
	char mod[DTRACE_MODNAMELEN]; /* NUL-terminated */
	char *path;		     /* as /proc/PID/maps shows it, or "" */
	void *dof;		     /* validated and relocated */
	size_t len;
};

/* A registered process, with its file /proc/dtrace/registry/<pid>. */
struct dh_proc {
	struct hlist_node hnode;     /* dh_procs; RCU for the probes */
	struct llist_node dead_node; /* dh_dead, once DH_DEAD is set */
	unsigned long flags;
	pid_t pid;	/* tgid, initial pid namespace */
	kuid_t uid;	/* real uid of the first registering thread */
	u64 start_ns;	/* the leader's start_boottime */
	char comm[TASK_COMM_LEN];
	struct list_head regs; /* dh_data_lock */
	unsigned int nregs;
	size_t bytes;
	struct proc_dir_entry *pde;
	struct rcu_head rcu;
};

#define DH_DEAD 0 /* bit in dh_proc.flags: exited or exec'ed */

static DEFINE_MUTEX(dh_lock);
static DEFINE_MUTEX(dh_data_lock);
static DEFINE_HASHTABLE(dh_procs, 8); /* changed under dh_lock */
static atomic_t dh_nprocs = ATOMIC_INIT(0);
static LLIST_HEAD(dh_dead);
static size_t dh_total_bytes;	  /* dh_lock */
static unsigned int dh_next_gen = 1; /* dh_lock; 1..INT_MAX */
static struct proc_dir_entry *dh_proc_top, *dh_proc_dir;

static void dh_reap_fn(struct work_struct *work);
static DECLARE_WORK(dh_reap_work, dh_reap_fn);

/* ---- the registry file ------------------------------------------------ */

/*
 * Start time as field 22 of /proc/PID/stat shows it to the reader: its
 * time namespace's boot-time offset added, in USER_HZ ticks.  That is
 * nsec_to_clock_t(), which is not exported.
 */
static u64 dh_start_ticks(u64 start_ns)
{
	u64 x = timens_add_boottime_ns(start_ns);

#if (NSEC_PER_SEC % USER_HZ) == 0
	return div_u64(x, NSEC_PER_SEC / USER_HZ);
#elif (USER_HZ % 512) == 0
	return div_u64(x * USER_HZ / 512, NSEC_PER_SEC / 512);
#else
	return div_u64(x * 9, (9ull * NSEC_PER_SEC + (USER_HZ / 2)) / USER_HZ);
#endif
}

/* One token of the registry format (usdt/registry_format.h). */
static void dh_seq_token(struct seq_file *m, const char *s)
{
	const char *special = reg_token_special(s);
	char out[REG_TOKEN_BYTE_MAX];

	if (special) {
		seq_puts(m, special);
		return;
	}
	for (; *s; s++)
		seq_write(m, out, reg_token_byte((unsigned char)*s, out));
}

/*
 * What reg_proc_write() in sdk/registry.c would write for p.  A process
 * that is exiting or exec'ing (waiting for the reaper) shows no
 * registrations: still a valid file, and the truth.
 */
static int dh_show(struct seq_file *m, void *v)
{
	struct dh_proc *p = m->private;
	struct dh_reg *r;

	mutex_lock(&dh_data_lock);
	seq_printf(m, REG_FMT_HEAD, p->pid,
		   (unsigned long long)dh_start_ticks(p->start_ns));
	dh_seq_token(m, p->comm);
	seq_putc(m, '\n');
	if (!test_bit(DH_DEAD, &p->flags)) {
		list_for_each_entry(r, &p->regs, node) {
			seq_printf(m, REG_FMT_ENTRY,
				   (unsigned long long)r->gen,
				   (unsigned long long)r->base,
				   (unsigned long long)r->dof_addr,
				   (unsigned long long)r->dev,
				   (unsigned long long)r->ino,
				   (unsigned long long)r->len,
				   REG_ORIGIN_IOCTL_NAME);
			dh_seq_token(m, r->mod);
			seq_putc(m, ' ');
			dh_seq_token(m, r->path);
			seq_putc(m, '\n');
			seq_write(m, r->dof, r->len);
			seq_putc(m, '\n');
		}
	}
	seq_puts(m, REG_END_LINE "\n");
	mutex_unlock(&dh_data_lock);
	return 0;
}

/* An upper bound of dh_show()'s output, so seq_file allocates once. */
static size_t dh_show_size(const struct dh_proc *p)
{
	const struct dh_reg *r;
	size_t n = 128 + 3 * TASK_COMM_LEN;

	list_for_each_entry(r, &p->regs, node)
		n += 128 + 3 * strlen(r->mod) + 3 * strlen(r->path) + r->len;
	return n;
}

static int dh_open(struct inode *inode, struct file *file)
{
	struct dh_proc *p = pde_data(inode);
	size_t size;

	mutex_lock(&dh_data_lock);
	size = dh_show_size(p);
	mutex_unlock(&dh_data_lock);
	return single_open_size(file, dh_show, p, size);
}

static const struct proc_ops dh_proc_ops = {
	.proc_open = dh_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

/* ---- records ---------------------------------------------------------- */

static void dh_reg_free(struct dh_reg *r)
{
	if (!r)
		return;
	kvfree(r->dof);
	kfree(r->path);
	kfree(r);
}

static struct dh_proc *dh_find(pid_t pid)
{
	struct dh_proc *p;

	hash_for_each_possible(dh_procs, p, hnode, pid)
		if (p->pid == pid)
			return p;
	return NULL;
}

/*
 * Take p out of the registry and free it; dh_lock held, and the caller
 * owns p (it set DH_DEAD).  After proc_remove() no reader can be looking
 * at p; the probes may, until an RCU grace period has passed.
 */
static void dh_proc_destroy(struct dh_proc *p)
{
	struct dh_reg *r, *t;

	hash_del_rcu(&p->hnode);
	atomic_dec(&dh_nprocs);
	proc_remove(p->pde);
	list_for_each_entry_safe(r, t, &p->regs, node) {
		list_del(&r->node);
		dh_reg_free(r);
	}
	dh_total_bytes -= p->bytes;
	kfree_rcu(p, rcu);
}

/* Destroy what the probes marked dead; dh_lock held. */
static void dh_reap_locked(void)
{
	struct llist_node *list = llist_del_all(&dh_dead);
	struct dh_proc *p, *t;

	llist_for_each_entry_safe(p, t, list, dead_node)
		dh_proc_destroy(p);
}

static void dh_reap_fn(struct work_struct *work)
{
	mutex_lock(&dh_lock);
	dh_reap_locked();
	mutex_unlock(&dh_lock);
}

/* A new record for the calling process, with its /proc file; dh_lock held. */
static struct dh_proc *dh_proc_new(pid_t pid)
{
	struct task_struct *leader = current->group_leader;
	struct dh_proc *p;
	char name[16];

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return NULL;
	p->pid = pid;
	p->uid = current_uid();
	p->start_ns = leader->start_boottime;
	/* /proc/PID/stat shows the leader's comm, as the daemon recorded it */
	get_task_comm(p->comm, leader);
	INIT_LIST_HEAD(&p->regs);
	snprintf(name, sizeof(name), "%d", pid);
	p->pde = proc_create_data(name, 0444, dh_proc_dir, &dh_proc_ops, p);
	if (!p->pde) {
		kfree(p);
		return NULL;
	}
	hash_add_rcu(dh_procs, &p->hnode, pid);
	atomic_inc(&dh_nprocs);
	return p;
}

/* ---- the tracepoint probes (preemption disabled: no sleeping) --------- */

static void dh_mark_dead(pid_t tgid)
{
	struct dh_proc *p;

	if (!atomic_read(&dh_nprocs))
		return;
	rcu_read_lock();
	hash_for_each_possible_rcu(dh_procs, p, hnode, tgid) {
		if (p->pid != tgid || test_and_set_bit(DH_DEAD, &p->flags))
			continue;
		llist_add(&p->dead_node, &dh_dead);
		queue_work(system_unbound_wq, &dh_reap_work);
	}
	rcu_read_unlock();
}

#ifdef DH_EXIT_HAS_GROUP_DEAD
static void dh_on_exit(void *data, struct task_struct *p, bool group_dead)
{
	if (group_dead)
		dh_mark_dead(p->tgid);
}
#else
/*
 * Every exiting thread passes here, after do_exit() has counted it out
 * of signal->live; the process is gone once that reaches zero.  Several
 * threads may see zero; DH_DEAD makes the later ones no-ops.  No thread
 * can be inside ADDDOF by then (each counts itself out in do_exit()).
 */
static void dh_on_exit(void *data, struct task_struct *p)
{
	if (atomic_read(&p->signal->live) == 0)
		dh_mark_dead(p->tgid);
}
#endif

struct linux_binprm;

/* After a successful exec: the old image's DOF is gone with its mm. */
static void dh_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	dh_mark_dead(p->tgid);
}

static struct dh_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
} dh_tps[] = {
	{ .name = "sched_process_exit", .probe = dh_on_exit },
	{ .name = "sched_process_exec", .probe = dh_on_exec },
};

static void dh_tp_lookup(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dh_tps); i++)
		if (!strcmp(tp->name, dh_tps[i].name))
			dh_tps[i].tp = tp;
}

static void dh_tp_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dh_tps); i++)
		if (dh_tps[i].registered) {
			tracepoint_probe_unregister(dh_tps[i].tp,
						    dh_tps[i].probe, NULL);
			dh_tps[i].registered = false;
		}
	tracepoint_synchronize_unregister();
}

static int dh_tp_register(void)
{
	size_t i;
	int err;

	for_each_kernel_tracepoint(dh_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(dh_tps); i++) {
		if (!dh_tps[i].tp) {
			pr_err("tracepoint %s not found\n", dh_tps[i].name);
			err = -ENOENT;
			goto fail;
		}
		err = tracepoint_probe_register(dh_tps[i].tp, dh_tps[i].probe,
						NULL);
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       dh_tps[i].name, err);
			goto fail;
		}
		dh_tps[i].registered = true;
	}
	return 0;
fail:
	dh_tp_unregister();
	return err;
}

/* ---- ADDDOF ----------------------------------------------------------- */

static __printf(3, 4) int dh_refuse(const char *mod, int err,
				    const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	pr_info_ratelimited("pid %d (%s): module '%s': DOF refused: %pV\n",
			    task_tgid_nr(current), current->comm, mod, &vaf);
	va_end(ap);
	return err;
}

/*
 * The quotas, for len more bytes from the calling process (p if it has
 * registered before); dh_lock held.
 */
static int dh_quota(const char *mod, const struct dh_proc *p, kuid_t uid,
		    size_t len)
{
	const struct dh_proc *q;
	u64 uid_regs = 0, uid_bytes = 0;
	unsigned int bkt;

	if (p && p->nregs >= READ_ONCE(max_proc_regs))
		return dh_refuse(mod, -ENOSPC, "process has %u registrations "
				 "already (limit %u)", p->nregs,
				 READ_ONCE(max_proc_regs));
	if (!uid_eq(uid, GLOBAL_ROOT_UID)) {
		hash_for_each(dh_procs, bkt, q, hnode)
			if (uid_eq(q->uid, uid)) {
				uid_regs += q->nregs;
				uid_bytes += q->bytes;
			}
		if (uid_regs >= READ_ONCE(max_uid_regs) ||
		    uid_bytes + len > READ_ONCE(max_uid_bytes))
			return dh_refuse(mod, -ENOSPC, "user %u holds %llu "
					 "registrations, %llu bytes",
					 from_kuid(&init_user_ns, uid),
					 uid_regs, uid_bytes);
	}
	if ((p ? p->bytes : 0) + len > READ_ONCE(max_proc_bytes) ||
	    dh_total_bytes + len > READ_ONCE(max_total_bytes))
		return dh_refuse(mod, -ENOSPC, "DOF memory limit reached "
				 "(%zu bytes more would exceed it)", len);
	return 0;
}

/* glibc's makedev() of st_dev, as dtrace-helperd reads it from maps. */
static u64 dh_user_dev(dev_t dev)
{
	u64 ma = MAJOR(dev), mi = MINOR(dev);

	return (ma & 0xfffULL) << 8 | (ma & ~0xfffULL) << 32 |
	       (mi & 0xffULL) | (mi & ~0xffULL) << 12;
}

/*
 * Name the file the DOF lives in as /proc/PID/maps does: d_path() of the
 * path the user sees, with '\n' shown as "\012" (seq_file_path()).
 * Empty if the path does not fit PATH_MAX; NULL without memory.
 */
static char *dh_file_path(struct file *file)
{
#ifdef DH_HAVE_FILE_USER_PATH
	const struct path *path = file_user_path(file);
#else
	const struct path *path = &file->f_path;
#endif
	char *buf, *s, *out, *o;
	size_t nl = 0;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return NULL;
	s = d_path(path, buf, PATH_MAX);
	if (IS_ERR(s)) {
		kfree(buf);
		return kstrdup("", GFP_KERNEL_ACCOUNT);
	}
	for (o = s; *o; o++)
		nl += *o == '\n';
	out = kmalloc(strlen(s) + 3 * nl + 1, GFP_KERNEL_ACCOUNT);
	if (out) {
		for (o = out; *s; s++) {
			if (*s == '\n') {
				memcpy(o, "\\012", 4);
				o += 4;
			} else {
				*o++ = *s;
			}
		}
		*o = '\0';
	}
	kfree(buf);
	return out;
}

/*
 * Steps 5 and the record's origin, under the caller's mmap lock: every
 * site in an executable VMA; then dev, ino and path of the mapping that
 * holds the DOF (0, 0, "" unless it is a file with an inode number).
 */
static int dh_check_mm(struct dh_reg *r, const char *mod)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = NULL;
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct dof_err derr;
	unsigned long n = 0;
	u32 pcur = 0;
	int rc = 0, err = 0;

	if (!mm)
		return -EINVAL;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	while (!err && (rc = dof_prov_next(r->dof, r->len, &pcur, &pv,
					   &derr)) > 0) {
		u64 cur = 0;

		while (!err && (rc = dof_probe_next(&pv, &cur, &pr,
						    &derr)) > 0) {
			unsigned int i, k = pr.noffs + pr.nenoffs;

			for (i = 0; i < k; i++) {
				u64 site = pr.addr + (i < pr.noffs ?
					dof_probe_off(&pr, i) :
					dof_probe_enoff(&pr, i - pr.noffs));

				if (site < pr.addr) {
					err = dh_refuse(mod, -EINVAL, "probe "
							"site address wraps "
							"past 2^64");
					break;
				}
				if (!vma || site < vma->vm_start ||
				    site >= vma->vm_end) {
					vma = find_vma(mm, site);
					if (vma && vma->vm_start > site)
						vma = NULL;
				}
				if (!vma || !(vma->vm_flags & VM_EXEC)) {
					err = dh_refuse(mod, -EINVAL, "probe "
							"site 0x%llx is not in "
							"an executable mapping",
							site);
					break;
				}
				if (!(++n & 4095))
					cond_resched();
			}
		}
		if (!err && rc < 0)
			err = dh_refuse(mod, -EINVAL, "%s (offset %llu)",
					derr.msg, derr.off);
	}
	if (!err && rc < 0)
		err = dh_refuse(mod, -EINVAL, "%s (offset %llu)", derr.msg,
				derr.off);

	vma = err ? NULL : find_vma(mm, r->dof_addr);
	if (vma && vma->vm_start <= r->dof_addr && vma->vm_file) {
#ifdef DH_HAVE_FILE_USER_INODE
		const struct inode *inode = file_user_inode(vma->vm_file);
#else
		const struct inode *inode = file_inode(vma->vm_file);
#endif
		if (inode->i_ino) {
			r->dev = dh_user_dev(inode->i_sb->s_dev);
			r->ino = inode->i_ino;
			r->path = dh_file_path(vma->vm_file);
			if (!r->path)
				err = -ENOMEM;
		}
	}
	mmap_read_unlock(mm);
	if (!err && !r->path) {
		r->path = kstrdup("", GFP_KERNEL_ACCOUNT);
		if (!r->path)
			err = -ENOMEM;
	}
	return err;
}

static long dh_adddof(unsigned long arg)
{
	pid_t pid = task_tgid_nr(current);
	kuid_t uid = current_uid();
	u8 hdr[sizeof(dof_hdr_t)];
	struct dh_proc *p;
	struct dh_reg *r, *t, *old;
	struct dof_err derr;
	dof_helper_t h;
	const char *mod = "?";
	u64 loadsz;
	size_t i;
	long ret;
	int err;

	/* 1. The record. */
	if (copy_from_user(&h, (const void __user *)arg, sizeof(h)))
		return -EFAULT;
	if (!memchr(h.dofhp_mod, '\0', sizeof(h.dofhp_mod)))
		return dh_refuse(mod, -EINVAL,
				 "module name is not NUL-terminated");
	for (i = 0; h.dofhp_mod[i]; i++)
		if ((unsigned char)h.dofhp_mod[i] < 0x20 ||
		    h.dofhp_mod[i] == 0x7f)
			return dh_refuse(mod, -EINVAL,
					 "module name has control characters");
	mod = h.dofhp_mod;

	/* 2. The header says how much to copy. */
	if (copy_from_user(hdr, u64_to_user_ptr(h.dofhp_dof), sizeof(hdr)))
		return dh_refuse(mod, -EFAULT, "DOF at 0x%llx: cannot read it",
				 h.dofhp_dof);
	err = dof_check_hdr(hdr, sizeof(hdr), DH_MAX_DOF, &loadsz, &derr);
	if (err)
		return dh_refuse(mod, err, "%s (offset %llu)", derr.msg,
				 derr.off);

	/* 3. Quotas, before the big allocation. */
	mutex_lock(&dh_lock);
	err = dh_quota(mod, dh_find(pid), uid, (size_t)loadsz);
	mutex_unlock(&dh_lock);
	if (err)
		return err;

	/* 4. The blob, copied once, checked and relocated. */
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->len = (size_t)loadsz;
	r->base = h.dofhp_addr;
	r->dof_addr = h.dofhp_dof;
	r->dof = kvmalloc(r->len, GFP_KERNEL_ACCOUNT);
	if (!r->dof) {
		err = -ENOMEM;
		goto fail;
	}
	if (copy_from_user(r->dof, u64_to_user_ptr(h.dofhp_dof), r->len)) {
		err = dh_refuse(mod, -EFAULT, "DOF at 0x%llx: cannot read "
				"%zu bytes", h.dofhp_dof, r->len);
		goto fail;
	}
	err = dof_check(r->dof, r->len, DH_MAX_DOF, &derr);
	if (!err && dof_relocate(r->dof, r->len, h.dofhp_addr, &derr) < 0)
		err = -EINVAL;
	if (err) {
		err = dh_refuse(mod, err, "%s (offset %llu)", derr.msg,
				derr.off);
		goto fail;
	}

	/* 5. Where the sites are, and where the DOF lives. */
	err = dh_check_mm(r, mod);
	if (err)
		goto fail;
	if (h.dofhp_mod[0])
		strscpy(r->mod, h.dofhp_mod, sizeof(r->mod));
	else
		strscpy(r->mod, kbasename(r->path), sizeof(r->mod));

	/* 6. Record it. */
	mutex_lock(&dh_lock);
	dh_reap_locked();
	p = dh_find(pid);
	if (p && (test_bit(DH_DEAD, &p->flags) ||
		  p->start_ns != current->group_leader->start_boottime)) {
		/*
		 * Not this process's record: one whose exit or exec is
		 * still being queued (cannot happen while a thread of it is
		 * here), or a stale one.  Never two records, or /proc files,
		 * for one pid.
		 */
		if (test_and_set_bit(DH_DEAD, &p->flags)) {
			err = -EAGAIN;
			goto fail_unlock;
		}
		dh_proc_destroy(p);
		p = NULL;
	}
	err = dh_quota(mod, p, uid, r->len);
	if (err)
		goto fail_unlock;
	if (!p) {
		p = dh_proc_new(pid);
		if (!p) {
			err = -ENOMEM;
			goto fail_unlock;
		}
	}
	old = NULL;
	mutex_lock(&dh_data_lock);
	list_for_each_entry(t, &p->regs, node)
		if (t->dof_addr == r->dof_addr) {
			old = t;
			list_del(&old->node);
			p->nregs--;
			p->bytes -= old->len;
			dh_total_bytes -= old->len;
			break;
		}
	r->gen = dh_next_gen;
	dh_next_gen = dh_next_gen == INT_MAX ? 1 : dh_next_gen + 1;
	list_add_tail(&r->node, &p->regs);
	p->nregs++;
	p->bytes += r->len;
	dh_total_bytes += r->len;
	ret = (long)r->gen; /* r is the registry's now: read it while locked */
	mutex_unlock(&dh_data_lock);
	mutex_unlock(&dh_lock);
	dh_reg_free(old);
	return ret;

fail_unlock:
	mutex_unlock(&dh_lock);
fail:
	dh_reg_free(r);
	return err;
}

/* ---- REMOVE ----------------------------------------------------------- */

/*
 * The generation arrives by pointer (usdt-sdk's drti.o) or by value
 * (classic callers): a small argument is a value, a larger one a pointer
 * if an int can be read there, else a value if it fits one.
 */
static long dh_remove(unsigned long arg)
{
	pid_t pid = task_tgid_nr(current);
	struct dh_reg *r, *found = NULL;
	struct dh_proc *p;
	int gen;

	if (arg < DTRACE_HELPER_REMOVE_BYVALUE_MAX)
		gen = (int)arg;
	else if (get_user(gen, (int __user *)arg)) {
		if (arg > INT_MAX)
			return -EFAULT;
		gen = (int)arg;
	}
	if (gen <= 0)
		return -EINVAL;

	mutex_lock(&dh_lock);
	dh_reap_locked();
	p = dh_find(pid);
	if (p && !test_bit(DH_DEAD, &p->flags)) {
		mutex_lock(&dh_data_lock);
		list_for_each_entry(r, &p->regs, node)
			if (r->gen == (u64)gen) {
				found = r;
				list_del(&r->node);
				p->nregs--;
				p->bytes -= r->len;
				dh_total_bytes -= r->len;
				break;
			}
		mutex_unlock(&dh_data_lock);
		/* The last one: the file goes, as the daemon removes it. */
		if (found && !p->nregs && !test_and_set_bit(DH_DEAD, &p->flags))
			dh_proc_destroy(p);
	}
	mutex_unlock(&dh_lock);
	if (!found)
		return -EINVAL;
	dh_reg_free(found);
	return 0;
}

/* ---- the device ------------------------------------------------------- */

static long dh_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case DTRACEHIOC_ADDDOF:
		return dh_adddof(arg);
	case DTRACEHIOC_REMOVE:
		return dh_remove(arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations dh_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = dh_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* devtmpfs (and udev) create the node as /dev/<nodename>. */
static struct miscdevice dh_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dtrace_helper",
	.nodename = "dtrace/" DTRACE_HELPER_NODE, /* DTRACE_HELPER_DEVICE */
	.fops = &dh_fops,
	.mode = 0666,
};

/* ---- module ----------------------------------------------------------- */

static void dh_destroy_all(void)
{
	struct hlist_node *t;
	struct dh_proc *p;
	unsigned int bkt;

	mutex_lock(&dh_lock);
	dh_reap_locked();
	hash_for_each_safe(dh_procs, bkt, t, p, hnode)
		dh_proc_destroy(p);
	mutex_unlock(&dh_lock);
}

static int __init dh_init(void)
{
	int err;

	dh_proc_top = proc_mkdir("dtrace", NULL);
	if (!dh_proc_top)
		return -ENOMEM;
	dh_proc_dir = proc_mkdir(REG_DIR, dh_proc_top);
	if (!dh_proc_dir) {
		err = -ENOMEM;
		goto fail_proc;
	}
	err = dh_tp_register();
	if (err)
		goto fail_proc;
	err = misc_register(&dh_misc);
	if (err) {
		pr_err("cannot register /dev/dtrace/helper: %d\n", err);
		goto fail_tp;
	}
	pr_info("/dev/dtrace/helper ready\n");
	return 0;

fail_tp:
	dh_tp_unregister();
fail_proc:
	proc_remove(dh_proc_top);
	return err;
}

static void __exit dh_exit(void)
{
	misc_deregister(&dh_misc);
	/* No open file is left (fops.owner), so no ioctl is running. */
	dh_tp_unregister();
	cancel_work_sync(&dh_reap_work);
	dh_destroy_all();
	proc_remove(dh_proc_top);
	/* kfree_rcu() of the records calls no code of this module. */
	pr_info("/dev/dtrace/helper removed\n");
}

module_init(dh_init);
module_exit(dh_exit);

MODULE_LICENSE("GPL"); /* the tracepoint and uprobe APIs are GPL-only */
MODULE_DESCRIPTION("DTrace helper device: USDT probe tables (DOF) of processes");
MODULE_AUTHOR("usdt-sdk");
