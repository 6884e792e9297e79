// SPDX-License-Identifier: MIT
/*
 * inproc_proc.c - what -x activation=user does in a held process
 * (inproc.c has the mechanism; doc/DESIGN.md §14): read and write its
 * memory, hold its threads and move one past a site's NOP, run one
 * system call in it through drti.o's __usdt_sysret (ip_inject()), never
 * leaving a thread at a trap a dying dtrace would let kill it, find the
 * recorder's symbols of each file where the process maps it, check a
 * site's bytes and its note's arguments, make or unmap the arena (none
 * in a process another dtrace traces in-process: other_dtrace()), and
 * give back the ring segments of its exited threads (ip_seg_giveback()),
 * tell whose a segment is where its recorder said another pid namespace
 * (ip_seg_whose()),
 * and, taking over a process a dead dtrace armed, give its sites back
 * and lower the semaphores its log says it raised (ip_stale_restore()),
 * and keep this run's log of the semaphores it raises (ip_semlog_add(),
 * ip_semlog_clear(); arena.h).  What a take-over and the reaper
 * (inproc_reap.c) both decide is decided here once: which site holds a
 * call a dead run left (ip_call_stale()), which log entry to act on
 * (ip_semlog_valid()).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif
#include "objfile.h"
#include "procfs.h"
#include "stapsdt.h"
#include "inproc.h"

#if defined(__x86_64__)

const uint8_t ip_nop_call[5] = { 0x0f, 0x1f, 0x40, 0x00, 0x90 };
const uint8_t ip_nop_got[6] = { 0x0f, 0x1f, 0x40, 0x00, 0x66, 0x90 };
const uint8_t ip_nop_en[5] = { 0x31, 0xc0, 0x0f, 0x1f, 0x00 };
const uint8_t ip_mov_1[5] = { 0xb8, 0x01, 0x00, 0x00, 0x00 };

/* ------------------------------------------------------------------ */
/* The process's memory and threads */

int ip_mem_rw(pid_t pid, uint64_t addr, void *buf, size_t len, bool write)
{
	char p[64];
	int fd;
	ssize_t n;

	(void)proc_path(p, sizeof(p), pid, "mem");
	fd = open(p, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, buf, len, (off_t)addr)
		  : pread(fd, buf, len, (off_t)addr);
	close(fd);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

bool ip_hold_all(struct tproc *pr, struct ip_hold *h)
{
	memset(h, 0, sizeof(*h));
	if (pr->held) {
		h->one = pr->pid;
		return true;
	}
	h->n = proc_freeze(pr->pid, &h->fz, 0);
	return h->n > 0;
}

/*
 * pid is exiting (or gone): no maps at all, its memory released before
 * it is reaped (proc_refresh(), sites.c), so nothing of it can be read,
 * held or armed, and nothing of it needs to be.
 */
bool ip_proc_exiting(pid_t pid)
{
	char *m = read_proc(pid, "maps", NULL);
	bool e = !m || !*m;

	free(m);
	return e;
}

void ip_release(struct ip_hold *h)
{
	if (!h->one)
		proc_thaw(h->fz, h->n);
	else
		free(h->fz);
}

size_t ip_hold_count(const struct ip_hold *h)
{
	return h->one ? 1 : h->n;
}

static pid_t hold_tid(const struct ip_hold *h, size_t i)
{
	return h->one ? h->one : h->fz[i].tid;
}

/* A signal that stopped a thread while we ran it: delivered on release. */
static void hold_sig(struct ip_hold *h, size_t i, int sig)
{
	if (!h->one && !h->fz[i].sig)
		h->fz[i].sig = sig;
}

/*
 * DTRACE_IP_KILL_AT=N (tests/run-activation-user.sh): dtrace SIGKILLs
 * itself at the Nth point of arming or disarming where a held thread is
 * not as it was (its registers set for an injected call, stopped at
 * its entry or exit, a site's NOP skipped), so that the test can end
 * it at each of them in turn.
 */
void ip_kill_point(void)
{
	static long at = -1, n;
	static pid_t who; /* dtrace's own: not its reaper's (inproc_reap.c) */

	if (at < 0) {
		const char *e = getenv("DTRACE_IP_KILL_AT");

		at = e ? atol(e) : 0;
		who = getpid();
	}
	if (at > 0 && getpid() == who && ++n == at)
		raise(SIGKILL);
}

/*
 * Thread i stopped inside site s's 5 bytes (between its two NOPs, where
 * the armed call has its operand) is moved past the second NOP, as if
 * it ran it: no single step, whose SIGTRAP stop kills the process if
 * dtrace dies in it.  0; -EINVAL at no instruction boundary of s.
 */
int ip_skip_site(struct ip_hold *h, size_t i, const struct ip_site *s)
{
	pid_t tid = hold_tid(h, i);
	struct user_regs_struct r;
	uint64_t to;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
		return -errno;
	if (r.rip <= s->addr || r.rip >= s->addr + 5)
		return 0;
	if (s->enabled && r.rip == s->addr + 2 && s->orig[2] == 0x0f)
		to = s->addr + 5; /* xor %eax,%eax; here: nopl (%rax) */
	else if (!s->enabled && r.rip == s->addr + 4 && s->orig[4] == 0x90)
		to = s->addr + 5;
	else if (!s->enabled && r.rip == s->addr + 4 && s->orig[4] == 0x66 &&
		 s->orig[5] == 0x90)
		to = s->addr + 6; /* the GOT form's xchg %ax,%ax */
	else
		return -EINVAL;
	r.rip = to;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) < 0)
		return -errno;
	ip_kill_point();
	return 0;
}

/* Is a held thread's rip in [lo, hi) (or not to be read)? */
bool ip_held_in(struct ip_hold *h, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < ip_hold_count(h); i++) {
		struct user_regs_struct r;

		if (ptrace(PTRACE_GETREGS, hold_tid(h, i), NULL, &r) < 0 ||
		    (r.rip >= lo && r.rip < hi))
			return true;
	}
	return false;
}

/*
 * r as the thread will run on: a system call it was stopped in, to be
 * restarted (rax one of the kernel's -ERESTART*), made so by hand, as
 * the kernel does when no handler runs: rip back on its syscall, rax
 * its number (restart_syscall for a restart block).  Put back at a
 * syscall-stop (ip_inject()), or by __usdt_sysret's tail, there is no
 * signal delivery to do it.
 */
static void regs_restarted(struct user_regs_struct *r)
{
	long ax = (long)r->rax;

	if ((long)r->orig_rax < 0)
		return;
	if (ax == -512 || ax == -513 || ax == -514) { /* SYS, NOINTR, NOHAND */
		r->rax = r->orig_rax;
		r->rip -= 2;
	} else if (ax == -516) { /* RESTART_RESTARTBLOCK */
		r->rax = SYS_restart_syscall;
		r->rip -= 2;
	}
	r->orig_rax = (unsigned long long)-1;
}

/*
 * Wait for thread i at its next syscall-stop (its rip at want); a
 * signal that stops it first is kept for its release.  0, or -errno.
 * A fault of the syscall instruction itself (SIGBUS where the process
 * cut the file __usdt_sysret's page maps to nothing, run-hostile-files.sh;
 * SIGSEGV or SIGILL where that page is gone or changed) is the call's,
 * not the thread's: -EFAULT, the signal dropped.  Let run again, the
 * thread would fault there for ever (dtrace spun so, its target held).
 */
static int sys_stop(struct ip_hold *h, size_t i, uint64_t want,
		    struct user_regs_struct *r)
{
	pid_t tid = hold_tid(h, i);

	for (;;) {
		siginfo_t si;
		int st;

		if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL) < 0)
			return -errno;
		if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			return -ESRCH;
		if (ptrace(PTRACE_GETREGS, tid, NULL, r) < 0)
			return -errno;
		/* none for a group-stop (EINVAL): kept as a signal's */
		if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0)
			si.si_signo = 0;
		/* a syscall-stop's siginfo says SIGTRAP (| 0x80) */
		if ((WSTOPSIG(st) & 0x7f) == SIGTRAP &&
		    (si.si_code & 0x7f) == SIGTRAP && si.si_signo)
			return r->rip == want ? 0 : -EFAULT;
		if ((si.si_signo == SIGBUS || si.si_signo == SIGSEGV ||
		     si.si_signo == SIGILL) &&
		    si.si_code > 0 && r->rip == want - 2)
			return -EFAULT; /* the kernel's, at our call */
		hold_sig(h, i, WSTOPSIG(st));
		if (r->rip != want - 2)
			return -EFAULT;
	}
}

/*
 * Thread 0 of h runs one system call at sys (drti.o's __usdt_sysret) and is
 * put back as it was; its result, or -errno for our own failure (*ours).
 * Only syscall-stops, and a frame on its stack first (arena.h: the
 * injected call), so that a dtrace killed at any point of it lets the
 * thread go on as it was, the call made or not.
 */
long ip_inject(struct ip_hold *h, uint64_t sys, long nr, long a0, long a1,
	       long a2, long a3, long a4, long a5, bool *ours)
{
	pid_t tid = hold_tid(h, 0);
	struct user_regs_struct back, r;
	uint64_t fr[USDT_SYS_WORDS], fa;
	long ret;
	int err;

	*ours = true;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &back) < 0)
		return -errno;
	regs_restarted(&back);
	fr[USDT_SYS_RAX] = back.rax;
	fr[USDT_SYS_RCX] = back.rcx;
	fr[USDT_SYS_RDX] = back.rdx;
	fr[USDT_SYS_RSI] = back.rsi;
	fr[USDT_SYS_RDI] = back.rdi;
	fr[USDT_SYS_R8] = back.r8;
	fr[USDT_SYS_R9] = back.r9;
	fr[USDT_SYS_R10] = back.r10;
	fr[USDT_SYS_R11] = back.r11;
	fr[USDT_SYS_RFLAGS] = back.eflags;
	fr[USDT_SYS_RIP] = back.rip;
	fa = back.rsp - USDT_SYS_RED - sizeof(fr);
	if ((err = ip_mem_rw(tid, fa, fr, sizeof(fr), true)) < 0)
		return err;
	r = back;
	r.rip = sys;
	r.rsp = fa;
	r.rax = (unsigned long long)nr;
	r.rdi = (unsigned long long)a0;
	r.rsi = (unsigned long long)a1;
	r.rdx = (unsigned long long)a2;
	r.r10 = (unsigned long long)a3;
	r.r8 = (unsigned long long)a4;
	r.r9 = (unsigned long long)a5;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) < 0)
		return -errno;
	ip_kill_point(); /* set for the call */
	if ((err = sys_stop(h, 0, sys + 2, &r)) < 0)
		goto bad;
	ip_kill_point(); /* at its entry */
	if ((err = sys_stop(h, 0, sys + 2, &r)) < 0)
		goto bad;
	ip_kill_point(); /* at its exit */
	ret = (long)r.rax;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &back) < 0)
		return -errno;
	*ours = false;
	return ret;
bad:
	(void)ptrace(PTRACE_SETREGS, tid, NULL, &back);
	return err;
}

/*
 * Does a seccomp filter watch pid's system calls?  One could kill it
 * for a call we inject (memfd_create, mmap, munmap), so none is.
 */
bool ip_seccomp_filtered(pid_t pid)
{
	char st[4096], *s;

	if (proc_read_file(pid, "status", st, sizeof(st)) < 0)
		return true; /* cannot tell: as if it did */
	s = strstr(st, "\nSeccomp:");
	return s && atoi(s + 9) != 0;
}

/* Do /proc/PID/ns/NAME and dtrace's own pid namespace differ?  -1: cannot
 * tell (no such link). */
static int ns_differs(pid_t pid, const char *name, const struct stat *ours)
{
	char p[64];
	struct stat its;

	if (proc_path(p, sizeof(p), pid, "ns/%s", name) < 0 ||
	    stat(p, &its) < 0)
		return -1;
	return its.st_ino != ours->st_ino || its.st_dev != ours->st_dev;
}

/*
 * Is pid in another pid namespace than dtrace's, or are its children to
 * be (it unshared CLONE_NEWPID)?  Its recorder writes the getpid() and
 * gettid() it sees (arena.h), which name other processes here: its own
 * hits would count as another pid's, its plans not run (seg.own), and
 * its threads' segments would be told the fork tree as children's
 * (doc/DESIGN.md §14, "pid, tid, timestamp").  So it goes to the kernel
 * path whole, whose pids are dtrace's.  A link it does not have
 * (pid_for_children before Linux 4.12, or before its first child) says
 * nothing; a child that unshares later is told by its segments
 * (ip_seg_whose()).
 */
bool ip_pidns_other(pid_t pid)
{
	struct stat ours;
	int d;

	if (stat("/proc/self/ns/pid", &ours) < 0)
		return false; /* no pid namespaces to tell apart */
	if ((d = ns_differs(pid, "pid", &ours)) != 0)
		return true; /* another, or cannot tell: as if it were */
	return ns_differs(pid, "pid_for_children", &ours) == 1;
}

/*
 * A segment of ipp's arena whose pid (the claiming thread's getpid()) is
 * not the owner's, not told the tree yet: is it another pid namespace's,
 * whose pid names another process here?  Its records are then ignored,
 * said (ip_stats()), for they would be that process's hits.  So when its
 * ppid is 0 (its parent is outside its pid namespace: a child cloned or
 * forked into a new one, pid 1 there; a process of dtrace's namespace
 * that shares the arena descends from the owner, which is in it, and
 * keeps a parent in it), or when the pid is a live process here that
 * started before the arena was made, which cannot be a child that
 * inherited it.  A pid with no process (an exited child) is taken on its
 * word, and so is a younger one (a child, exec'd or reparented): no
 * child's hits are lost; a deeper process of a new namespace whose pid
 * is free here is too (not told apart).
 */
bool ip_seg_alien(const struct ip_proc *ipp, pid_t pid, pid_t ppid)
{
	long tick = sysconf(_SC_CLK_TCK);
	struct proc_stat ps;

	if (ppid == 0)
		return true;
	if (tick <= 0 || proc_stat_read(pid, "stat", &ps, NULL, 0) < 0)
		return false;
	/* started within the tick of ps.start: before made_ns for sure */
	return (ps.start + 1) * (1000000000u / (uint64_t)tick) <= ipp->made_ns;
}

/*
 * CLOCK_MONOTONIC ns at or before pid's start: the start of the clock
 * tick /proc/PID/stat gives (boot clock), or UINT64_MAX when it cannot
 * be read.  A bound on every hit of that process, whichever thread's
 * segment dtrace has not seen yet (seg_fork(), inproc.c).
 */
uint64_t ip_born_by(pid_t pid)
{
	long tick = sysconf(_SC_CLK_TCK);
	struct proc_stat ps;
	uint64_t mono, boot, at;

	if (tick <= 0 || proc_stat_read(pid, "stat", &ps, NULL, 0) < 0)
		return UINT64_MAX;
	mono = now_ns(CLOCK_MONOTONIC);
	boot = ip_boot_ns(); /* read after: the offset a little over */
	at = ps.start * (1000000000u / (uint64_t)tick);
	return at > boot - mono ? at - (boot - mono) : 0;
}

/*
 * Pid namespaces told at the claim (arena.h, version 4; doc/DESIGN.md
 * §14).  A segment whose recorder said another pid namespace than
 * dtrace's is mapped to its process's numbers here: the process P of
 * /proc whose ns/pid is the segment's, whose NSpid's last number (its
 * pid there) is the segment's pid, and which started (its tick's
 * start, on the boot clock) no later than the segment's first record:
 * one pid names one process of a namespace at a time, so one alive now
 * that held the pid there before that record is the writer, and a
 * younger one is a reuse.  Its thread: the task of P whose NSpid ends
 * in the segment's tid.  Nothing found (gone before dtrace read it):
 * ignored, said; no pid is taken on its word.
 */

/* pid's (or "task/TID"'s) number in its own pid namespace, or -1 */
static pid_t ns_own_pid(pid_t pid, const char *name)
{
	char st[4096], *s, *e;
	pid_t last = -1;

	if (proc_read_file(pid, name, st, sizeof(st)) < 0 ||
	    !(s = strstr(st, "\nNSpid:")))
		return -1;
	s += 7;
	for (;;) {
		long v = strtol(s, &e, 10);

		if (e == s)
			break;
		last = (pid_t)v;
		s = e;
	}
	return last;
}

/* pid's parent here (/proc/PID/stat's fourth field), or 0 */
static pid_t proc_ppid(pid_t pid)
{
	char st[1024], *s;

	if (proc_read_file(pid, "stat", st, sizeof(st)) < 0 ||
	    !(s = strrchr(st, ')')) || strlen(s) < 4)
		return 0;
	return (pid_t)atoi(s + 4);
}

/* Is pid of the pid namespace (dev, ino), started by boot ns at? */
static bool ns_holds(pid_t pid, uint64_t dev, uint64_t ino, uint64_t at)
{
	long tick = sysconf(_SC_CLK_TCK);
	struct proc_stat ps;
	struct stat st;
	char p[64];

	if (proc_path(p, sizeof(p), pid, "ns/pid") < 0 || stat(p, &st) < 0 ||
	    (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino ||
	    tick <= 0 || proc_stat_read(pid, "stat", &ps, NULL, 0) < 0)
		return false;
	return ps.start * (1000000000u / (uint64_t)tick) <= at;
}

/* The process here whose pid in namespace (dev, ino) is nspid, started
 * by boot ns at; 0: none. */
static pid_t ns_find(uint64_t dev, uint64_t ino, pid_t nspid, uint64_t at)
{
	DIR *d = nspid > 0 ? proc_dir_open(0) : NULL;
	pid_t p, found = 0;

	if (!d)
		return 0;
	while (!found && (p = proc_dir_next(d)) > 0)
		if (ns_own_pid(p, "status") == nspid &&
		    ns_holds(p, dev, ino, at))
			found = p;
	closedir(d);
	return found;
}

/* The task of pid here whose tid in its namespace is nstid; 0: none */
static pid_t ns_task(pid_t pid, pid_t nstid)
{
	char name[64];
	DIR *d = proc_dir_open(pid);
	pid_t t, found = 0;

	if (!d)
		return 0;
	while (!found && (t = proc_dir_next(d)) > 0) {
		snprintf(name, sizeof(name), "task/%d/status", (int)t);
		if (ns_own_pid(pid, name) == nstid)
			found = t;
	}
	closedir(d);
	return found;
}

/*
 * Decide whose segment s is (sid), at its first read after its claim;
 * first_ns: its first record's time (CLOCK_MONOTONIC).  nsst 0 (a
 * recorder of version 3): its numbers as written, ip_seg_alien()'s rules
 * (IP_SEG_OLD).  dtrace's namespace: its numbers.  Another: mapped
 * through /proc (above), its parent the segment's ppid found the same
 * way there (0, a parent outside it: P's parent here), and that
 * parent's parent here, so the fork tree learns a line it never saw.
 * A thread that could not stat its namespace: ignored (a pid that
 * names a live task here is the imposter's case exactly).  The process
 * the last such segment was mapped to is tried first (a thread of the
 * same process), each test made again, before a pass over /proc.
 */
void ip_seg_whose(const struct inproc *ip, struct ip_proc *ipp,
		  const struct usdt_seg *s, struct ip_segid *sid,
		  uint64_t first_ns)
{
	uint32_t st = __atomic_load_n(&s->nsst, __ATOMIC_RELAXED);
	uint64_t dev = s->nsdev, ino = s->nsino, at;
	pid_t p, t;

	*sid = (struct ip_segid){ (pid_t)s->pid, (pid_t)s->tid, (pid_t)s->ppid,
				  0, IP_SEG_OLD };
	if (!ip->ns_ok || st == 0)
		return;
	if (st == USDT_NS_FAILED) {
		sid->state = IP_SEG_NSFAIL;
		ipp->ns_errno = dev > 0 && dev < 4096 ? (int)dev : EINVAL;
		return;
	}
	if (st != USDT_NS_KNOWN) {
		sid->state = IP_SEG_BAD;
		return;
	}
	if (dev == ip->ns_dev && ino == ip->ns_ino) {
		sid->state = IP_SEG_OURS;
		return;
	}
	/* its first record on the boot clock, as a process's start */
	at = first_ns + ip_boot_ns() - now_ns(CLOCK_MONOTONIC);
	sid->state = IP_SEG_GONE;
	/* the process the last such segment found, checked: its threads */
	p = ipp->ns_last.pid;
	if (!p || ipp->ns_last.dev != dev || ipp->ns_last.ino != ino ||
	    ipp->ns_last.nspid != (pid_t)s->pid ||
	    ns_own_pid(p, "status") != (pid_t)s->pid ||
	    !ns_holds(p, dev, ino, at))
		p = ns_find(dev, ino, (pid_t)s->pid, at);
	if (!p || !(t = ns_task(p, (pid_t)s->tid)))
		return;
	ipp->ns_last.dev = dev;
	ipp->ns_last.ino = ino;
	ipp->ns_last.nspid = (pid_t)s->pid;
	ipp->ns_last.pid = p;
	sid->pid = p;
	sid->tid = t;
	sid->ppid =
		s->ppid ? ns_find(dev, ino, (pid_t)s->ppid, at) : proc_ppid(p);
	sid->gppid = sid->ppid > 0 ? proc_ppid(sid->ppid) : 0;
	sid->state = IP_SEG_MAPPED;
}

/*
 * Has pid's mount namespace no procfs at /proc?  Its recorder could
 * not stat /proc/self/ns/pid at a claim, so every hit of it would be
 * ignored: it goes to the kernel path whole (ip_arena_first()).
 */
bool ip_no_proc(pid_t pid)
{
	struct statfs sf;
	char p[64];

	return proc_path(p, sizeof(p), pid, "root/proc") == 0 &&
	       statfs(p, &sf) == 0 && sf.f_type != PROC_SUPER_MAGIC;
}

/* ------------------------------------------------------------------ */
/* Files: the recorder's symbols, where the process maps them */

static bool file_sym(const struct tfile *f, const char *name, uint64_t *v,
		     uint64_t *size)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (!strcmp(f->symnames[i], name) &&
		    f->syms[i].st_shndx != SHN_UNDEF) {
			*v = f->syms[i].st_value;
			if (size)
				*size = f->syms[i].st_size;
			return true;
		}
	return false;
}

/* f carries drti.o's recorder (its control block and system call) */
bool ip_file_has_rec(const struct tfile *f)
{
	uint64_t v, size = 0;

	return file_sym(f, "__usdt_rec", &v, &size) && size &&
	       file_sym(f, "__usdt_ctl", &v, NULL) &&
	       file_sym(f, "__usdt_sysret", &v, NULL);
}

/* f's load bias in the process whose maps are mm, or false. */
bool ip_file_bias(const struct tfile *f, const struct proc_maps *mm,
		  uint64_t *bias)
{
	for (size_t i = 0; i < mm->n; i++) {
		const struct proc_map *m = &mm->m[i];

		if (m->ino == (uint64_t)f->ino && m->dev == (uint64_t)f->dev &&
		    elf_load_bias(f->ph, f->nph, m->start, m->off, bias) == 0)
			return true;
	}
	return false;
}

uint64_t ip_off_to_addr(const struct tfile *f, uint64_t bias, uint64_t off)
{
	for (size_t k = 0; k < f->nph; k++) {
		const GElf_Phdr *ph = &f->ph[k];

		if (ph->p_type == PT_LOAD && off >= ph->p_offset &&
		    off - ph->p_offset < ph->p_filesz)
			return bias + ph->p_vaddr + (off - ph->p_offset);
	}
	return 0;
}

/*
 * f's sites and semaphores are no longer where they were (unmapped):
 * nothing of them is restored, or found by a record.
 */
void ip_forget_file(struct ip_proc *ipp, const struct tfile *f)
{
	size_t n = 0;

	for (size_t i = 0; i < ipp->nsites; i++)
		if (ipp->sites[i].file != f)
			ipp->sites[n++] = ipp->sites[i];
	ipp->nsites = n;
	n = 0;
	for (size_t i = 0; i < ipp->nsemas; i++)
		if (ipp->semas[i].file != f)
			ipp->semas[n++] = ipp->semas[i];
		else
			ip_semlog_clear(ipp, &ipp->semas[i]);
	ipp->nsemas = n;
}

_Static_assert(sizeof(struct usdt_arena) <= USDT_SEMLOG_OFF &&
		       USDT_SEMLOG_OFF + USDT_NSEMLOG *
						 sizeof(struct usdt_semlog) <=
			       USDT_EXEC_OFF,
	       "the semaphore log fits between the header and the exec slots");

/*
 * The raise of the semaphore at addr logged in ipp's arena (arena.h),
 * after it was made, under its image's token: its slot + 1, or 0 where
 * the log is full or the token unread (that one stays up after a
 * SIGKILL of dtrace).
 */
uint32_t ip_semlog_add(struct ip_proc *ipp, uint64_t addr)
{
	struct usdt_semlog *l;
	uint64_t tok[2];

	if (!ipp->map || ip_image_token(ipp->pid, tok) < 0)
		return 0;
	l = (struct usdt_semlog *)((char *)ipp->map + USDT_SEMLOG_OFF);
	for (uint32_t i = 0; i < USDT_NSEMLOG; i++)
		if (!l[i].pid) {
			l[i].addr = addr;
			l[i].token = tok[0];
			__atomic_store_n(&l[i].pid, (uint32_t)ipp->pid,
					 __ATOMIC_RELEASE);
			return i + 1;
		}
	return 0;
}

/* s's entry in the log zeroed, before s is lowered or forgotten. */
void ip_semlog_clear(struct ip_proc *ipp, const struct ip_sema *s)
{
	struct usdt_semlog *l;

	if (!ipp->map || !s->slot || s->slot > USDT_NSEMLOG)
		return;
	l = (struct usdt_semlog *)((char *)ipp->map + USDT_SEMLOG_OFF);
	__atomic_store_n(&l[s->slot - 1].pid, 0, __ATOMIC_RELEASE);
	l[s->slot - 1].addr = 0;
	l[s->slot - 1].token = 0;
}

struct ip_obj *ip_proc_obj(struct ip_proc *ipp, struct tfile *f,
			   const struct proc_maps *mm, char *why, size_t wlen)
{
	struct ip_obj o = { .file = f }, *had = NULL;
	uint64_t size = 0, sys_size = 0, bias;

	if (!ip_file_bias(f, mm, &bias)) {
		snprintf(why, wlen, "%s: not mapped as its program headers say",
			 f->path);
		return NULL;
	}
	for (size_t i = 0; i < ipp->nobjs; i++)
		if (ipp->objs[i].file == f)
			had = &ipp->objs[i];
	if (had && had->bias == bias)
		return had;
	if (had) /* unmapped (dlclose) and mapped again elsewhere */
		ip_forget_file(ipp, f);
	if (!file_sym(f, "__usdt_rec", &o.rec, &size) || !size ||
	    !file_sym(f, "__usdt_ctl", &o.ctl, &o.ctl_size) ||
	    !file_sym(f, "__usdt_name", &o.name, NULL)) {
		snprintf(why, wlen,
			 "%s has no in-process recorder (no __usdt_rec in its "
			 "symbol table: stripped, or linked with an older "
			 "drti.o)",
			 f->path);
		return NULL;
	}
	/* an older drti.o's is __usdt_sys, `syscall; int3` (arena.h) */
	if (!file_sym(f, "__usdt_sysret", &o.sys, &sys_size) ||
	    sys_size != USDT_SYS_SIZE) {
		snprintf(why, wlen,
			 "%s: its drti.o predates the injected call a "
			 "SIGKILL of dtrace cannot leave to kill the process "
			 "(no __usdt_sysret of %u bytes)",
			 f->path, USDT_SYS_SIZE);
		return NULL;
	}
	if (file_sym(f, "__usdt_rec.cold", &o.rec_end, NULL)) {
		snprintf(why, wlen, "%s: its recorder is in two pieces",
			 f->path);
		return NULL;
	}
	o.bias = bias;
	o.rec += o.bias;
	o.rec_end = o.rec + size;
	o.sys += o.bias;
	o.ctl += o.bias;
	o.name += o.bias;
	if (had) {
		*had = o;
		return had;
	}
	PUSH(ipp->objs, ipp->nobjs, o);
	return &ipp->objs[ipp->nobjs - 1];
}

/*
 * o's control block pointed at ipp's arena: len first (the recorder
 * bounds everything by it; one older than it has a control block of
 * 8), then the address.  What it held before goes into ctlw, to be put
 * back should the process be refused with nothing armed.
 */
int ip_ctl_arm(const struct ip_proc *ipp, const struct ip_obj *o,
	       struct ip_ctlw **ctlw, size_t *nctl, char *why, size_t wlen)
{
	uint64_t v = ipp->taddr, old = 0, len = ipp->len;
	int err;

	if ((err = ip_mem_rw(ipp->pid, o->ctl, &old, sizeof(old), false)) < 0)
		goto bad;
	if (old == v)
		return 0; /* len written with it */
	if ((o->ctl_size >= 2 * sizeof(uint64_t) &&
	     (err = ip_mem_rw(ipp->pid, o->ctl + sizeof(uint64_t), &len,
			      sizeof(len), true)) < 0) ||
	    (err = ip_mem_rw(ipp->pid, o->ctl, &v, sizeof(v), true)) < 0)
		goto bad;
	PUSH(*ctlw, *nctl, ((struct ip_ctlw){ o->ctl, old }));
	return 0;
bad:
	snprintf(why, wlen, "cannot write its control block: %s",
		 strerror(-err));
	return -1;
}

/* ------------------------------------------------------------------ */
/* Sites */

/* The 6 bytes of f at file offset off, as -G left them. */
int ip_file_bytes(const struct tfile *f, uint64_t off, uint8_t b[6])
{
	/* upath: the file the process maps, even deleted or replaced */
	int fd = open(f->upath ? f->upath : f->path,
		      O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, b, 6, (off_t)off);
	close(fd);
	return n == 6 ? 0 : -EIO;
}

/* The register a -G site's argument i is in: SysV order. */
static int arg_reg_index(int reg)
{
	static const int order[USDT_REC_ARGS] = {
		STAPSDT_REG_RDI, STAPSDT_REG_RSI, STAPSDT_REG_RDX,
		STAPSDT_REG_RCX, STAPSDT_REG_R8,  STAPSDT_REG_R9,
	};

	for (int i = 0; i < USDT_REC_ARGS; i++)
		if (order[i] == reg)
			return i;
	return -1;
}

/* The note's argument specs as recorded registers; false: refused. */
bool ip_site_args_plan(const struct tnote *n, struct ip_site *s, char *why,
		       size_t wlen)
{
	struct stapsdt_arg a;
	struct stapsdt_err e;
	size_t cur = 0;
	int r;

	s->nargs = 0;
	if (!n || !n->args)
		return true;
	while ((r = stapsdt_arg_next(n->args, &cur, &a, &e)) == 1) {
		int idx = a.kind == STAPSDT_ARG_REG && !a.reg_hi8 && !a.is_float
				  ? arg_reg_index(a.reg)
				  : -1;

		if (idx < 0 || s->nargs >= D_MAXARGS) {
			snprintf(why, wlen,
				 "argument %u (%.*s) is not in an argument "
				 "register",
				 s->nargs, (int)a.len, a.text);
			return false;
		}
		s->reg[s->nargs] = (int8_t)idx;
		s->size[s->nargs] = (uint8_t)(a.size ? a.size : 8);
		s->sgn[s->nargs] = a.is_signed;
		s->nargs++;
	}
	if (r < 0) {
		snprintf(why, wlen, "its note's arguments do not parse");
		return false;
	}
	return true;
}

/* s's index in ipp->hist, + 1: the same site armed again, the same */
uint32_t ip_hist_add(struct ip_proc *ipp, const struct ip_site *s)
{
	uint32_t b =
		(uint32_t)((s->addr * UINT64_C(0x9e3779b97f4a7c15)) >> 52) &
		(IP_HBUCKETS - 1);
	size_t n;

	if (!ipp->hbucket)
		ipp->hbucket = xcalloc(IP_HBUCKETS, sizeof(*ipp->hbucket));
	for (uint32_t i = ipp->hbucket[b]; i; i = ipp->hnext[i - 1]) {
		const struct ip_site *h = &ipp->hist[i - 1];

		if (h->addr == s->addr && h->file == s->file &&
		    h->off == s->off && h->enabled == s->enabled &&
		    h->nargs == s->nargs &&
		    !memcmp(h->reg, s->reg, sizeof(s->reg)) &&
		    !memcmp(h->size, s->size, sizeof(s->size)) &&
		    !memcmp(h->sgn, s->sgn, sizeof(s->sgn)))
			return i;
	}
	n = ipp->nhist;
	PUSH(ipp->hist, ipp->nhist, *s);
	PUSH(ipp->hnext, n, ipp->hbucket[b]);
	ipp->hbucket[b] = (uint32_t)ipp->nhist;
	return (uint32_t)ipp->nhist;
}

int ip_site_cmp(const void *a, const void *b)
{
	const struct ip_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

const struct ip_site *ip_site_find(const struct ip_proc *ipp, uint64_t addr)
{
	size_t lo = 0, hi = ipp->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ipp->sites[mid].addr == addr)
			return ipp->sites[mid].enabled ? NULL
						       : &ipp->sites[mid];
		if (ipp->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The arena */

struct ip_proc *ip_proc_of(struct consumer *c, struct tproc *pr)
{
	struct inproc *ip = c->ip;

	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->pr == pr && !ip->procs[i]->gone)
			return ip->procs[i];
	return NULL;
}

/*
 * Who the consumer is, for an exec'd image's wait to tell a dtrace that
 * is slow (stopped, loaded: waited for, up to IP_EXEC_ALIVE_S seconds
 * after its last beat) from one that is gone (arena.h, "Following an
 * exec"): this process's pid and start, where pid's process sees the
 * same pids (its pid namespace ours); else none (0: the beat alone).
 */
#define IP_EXEC_ALIVE_S 30

static void ip_arena_consumer(struct usdt_arena *a, pid_t pid, uint64_t hz)
{
	struct proc_stat ps;
	struct stat ours, its;
	char p[64];

	(void)proc_path(p, sizeof(p), pid, "ns/pid");
	if (stat("/proc/self/ns/pid", &ours) < 0 || stat(p, &its) < 0 ||
	    ours.st_ino != its.st_ino || ours.st_dev != its.st_dev ||
	    proc_stat_read(getpid(), "stat", &ps, NULL, 0) < 0)
		return;
	a->cpid = (uint32_t)getpid();
	a->cstart = ps.start;
	a->hb_alive = IP_EXEC_ALIVE_S * hz;
}

/*
 * The owner's pid namespace, for the recorder's owner test (arena.h,
 * version 4): dtrace's (ip_pidns_other() refused any other); left 0
 * (the test by pid alone) where it cannot be read.
 */
static void ip_arena_ns(const struct inproc *ip, struct usdt_arena *a,
			pid_t pid)
{
	struct stat its;
	char p[64];

	if (!ip->ns_ok || proc_path(p, sizeof(p), pid, "ns/pid") < 0 ||
	    stat(p, &its) < 0 || (uint64_t)its.st_dev != ip->ns_dev ||
	    (uint64_t)its.st_ino != ip->ns_ino)
		return;
	a->own_nsdev = ip->ns_dev;
	a->own_nsino = ip->ns_ino;
}

/* Make the arena in the held process (its first object's __usdt_sysret). */
int ip_arena_make(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		  const struct ip_obj *o, char *why, size_t wlen)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a;
	char p[64];
	long fd, addr;
	int mfd;
	bool ours;

	ipp->made_ns = ip_boot_ns(); /* older processes: ip_seg_alien() */
	/* the site hash, the plans and the copy specs, after the segments */
	ipp->len = USDT_ARENA_HDR + (size_t)IP_NSEG * ip->seg_size +
		   ip_site_area(ip);
	fd = ip_inject(h, o->sys, SYS_memfd_create, (long)o->name, MFD_CLOEXEC,
		       0, 0, 0, 0, &ours);
	if (fd < 0) {
		snprintf(why, wlen, "memfd_create in the process failed: %s%s",
			 strerror((int)-fd), ours ? " (ptrace)" : "");
		return -1;
	}
	(void)proc_path(p, sizeof(p), ipp->pid, "fd/%ld", fd);
	mfd = open(p, O_RDWR | O_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)ipp->len) < 0) {
		snprintf(why, wlen, "%s: %s", p, strerror(errno));
		if (mfd >= 0)
			close(mfd);
		(void)ip_inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
		return -1;
	}
	ipp->map = mmap(NULL, ipp->len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd,
			0);
	{
		struct stat st;

		ipp->ino = fstat(mfd, &st) == 0 ? (uint64_t)st.st_ino : 0;
	}
	close(mfd);
	if (ipp->map == MAP_FAILED) {
		ipp->map = NULL;
		snprintf(why, wlen, "mmap of the arena: %s", strerror(errno));
		(void)ip_inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
		return -1;
	}
	/* the reaper knows it before the process maps it (inproc_reap.c) */
	ip_reap_tell(c, ipp->pid, ipp->ino);
	addr = ip_inject(h, o->sys, SYS_mmap, 0, (long)ipp->len,
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, &ours);
	/*
	 * The first arena of a process (of an exec chain) stays open at
	 * USDT_EXEC_FD, inherited across exec (arena.h): unless that
	 * descriptor is the process's own, or one of ours already.
	 */
	if (addr >= 0 && ip_exec_fd_state(c, ipp->pid) == EXFD_FREE &&
	    ip_inject(h, o->sys, SYS_dup3, fd, USDT_EXEC_FD, 0, 0, 0, 0,
		      &ours) == USDT_EXEC_FD)
		ipp->exec_fd = true;
	(void)ip_inject(h, o->sys, SYS_close, fd, 0, 0, 0, 0, 0, &ours);
	if (addr < 0 && addr > -4096) {
		snprintf(why, wlen, "mmap in the process failed: %s%s",
			 strerror((int)-addr), ours ? " (ptrace)" : "");
		munmap(ipp->map, ipp->len);
		ipp->map = NULL;
		return -1;
	}
	ipp->taddr = (uint64_t)addr;
	a = (struct usdt_arena *)ipp->map;
	a->magic = USDT_ARENA_MAGIC;
	a->version = USDT_ARENA_VERSION;
	a->nseg = IP_NSEG;
	a->gen = ip->tsc0 ^ ((uint64_t)ipp->pid << 32) ^ rdtsc_now();
	a->seg_size = ip->seg_size;
	a->nslots = ip->nslots;
	a->hb_limit = ip->hz; /* one second */
	/* beaten by dtrace's beat thread too (inproc_beat.c) */
	ip_beat_add(a, ip->hz);
	ip_arena_consumer(a, ipp->pid, ip->hz);
	ip_arena_ns(ip, a, ipp->pid);
	a->execs = 1;
	a->dlopens = 1;
	if (ip->kp) {
		a->owner = (uint32_t)ipp->pid;
		a->agg_off = ip->agg_off;
		a->site_off = USDT_ARENA_HDR + (uint64_t)IP_NSEG * ip->seg_size;
		a->plan_off =
			a->site_off + USDT_ASITES * sizeof(struct usdt_asite);
		a->aplans = 1;
	}
	if (ip->copies) {
		a->site_off = USDT_ARENA_HDR + (uint64_t)IP_NSEG * ip->seg_size;
		a->plan_off =
			a->site_off + USDT_ASITES * sizeof(struct usdt_asite);
		a->spec_off = a->plan_off + USDT_APLANS;
		a->specs = 1;
	}
	__atomic_store_n(&a->hb, rdtsc_now(), __ATOMIC_RELEASE);
	ipp->tails = xcalloc(IP_NSEG, sizeof(*ipp->tails));
	ipp->segid = xcalloc(IP_NSEG, sizeof(*ipp->segid));
	return 0;
}

/*
 * Another dtrace traces ipp's process in-process now: an arena of a
 * memfd not ours is mapped there, and its heartbeat (arena.h) is fresh.
 * Arming it would point its control blocks at our arena, and the other
 * would lose every hit from then on, saying only that it could not hold
 * the process.  An arena whose beat stopped (its dtrace SIGKILLed or
 * stopped for a second) or was zeroed (ended: a fork child keeps the
 * mapping) is taken over.  A process that writes a fresh beat into an
 * arena of its own only has itself refused here.
 */
static bool other_dtrace(struct consumer *c, pid_t pid,
			 const struct proc_maps *mm, bool *dead)
{
	struct inproc *ip = c->ip;

	if (dead)
		*dead = false;

	for (size_t m = 0; m < mm->n; m++) {
		const struct proc_map *pm = &mm->m[m];
		struct usdt_arena a;
		bool ours = false;

		if (!pm->path || strncmp(pm->path, "/memfd:usdt-arena", 17) ||
		    pm->end - pm->start < sizeof(a))
			continue;
		for (size_t k = 0; k < ip->nprocs && !ours; k++)
			ours = ip->procs[k]->map && ip->procs[k]->ino &&
			       ip->procs[k]->ino == pm->ino;
		if (ours || ip_mem_rw(pid, pm->start, &a, sizeof(a), false) < 0)
			continue;
		/* hb after now (another CPU's TSC read later): fresh */
		if (a.magic != USDT_ARENA_MAGIC)
			continue;
		if (a.hb && a.hb_limit &&
		    (int64_t)(rdtsc_now() - a.hb) < (int64_t)a.hb_limit)
			return true;
		if (dead)
			*dead = true;
	}
	return false;
}

/*
 * The file of pr's (its files, where mm maps them) a note of which has
 * its semaphore at addr, or NULL.  An entry of a semaphore log
 * (arena.h), which the process can write, is acted on only then.
 */
struct tfile *ip_note_sema(const struct tproc *pr, const struct proc_maps *mm,
			   uint64_t addr)
{
	for (size_t i = 0; i < pr->nfiles; i++) {
		struct tfile *f = pr->files[i];
		uint64_t b;

		if (!ip_file_bias(f, mm, &b))
			continue;
		for (size_t k = 0; k < f->nnotes; k++)
			if (f->notes[k].sema_off &&
			    ip_off_to_addr(f, b, f->notes[k].sema_off) == addr)
				return f;
	}
	return NULL;
}

/*
 * An entry of a semaphore log to act on in pr's process: its pid's, of
 * the image it runs now (tok: an exec'd image maps the first arena's
 * header, with the old image's entries), a semaphore of a note there.
 */
bool ip_semlog_valid(const struct tproc *pr, const struct proc_maps *mm,
		     const struct usdt_semlog *l, const uint64_t tok[2])
{
	return l->pid == (uint32_t)pr->pid && l->token == tok[0] &&
	       ip_note_sema(pr, mm, l->addr) != NULL;
}

/* CLOCK_BOOTTIME in ns: the clock of a process's start (/proc/PID/stat) */
uint64_t ip_boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The semaphores a dead run raised in ipp's process, from the log of
 * each dead arena mapped there (arena.h): an entry of this pid and of
 * its current image whose address is a semaphore of a note we know is
 * zeroed (ip_semlog_valid()), then its semaphore lowered by one.  The
 * number lowered.
 */
static size_t stale_semas(struct consumer *c, struct ip_proc *ipp,
			  const struct proc_maps *mm)
{
	struct inproc *ip = c->ip;
	uint64_t tok[2];
	size_t n = 0;

	if (ip_image_token(ipp->pid, tok) < 0)
		return 0;
	for (size_t m = 0; m < mm->n; m++) {
		const struct proc_map *pm = &mm->m[m];
		struct usdt_semlog l[USDT_NSEMLOG];
		struct usdt_arena a;
		bool ours = false;

		if (!pm->path || strncmp(pm->path, "/memfd:usdt-arena", 17) ||
		    pm->end - pm->start < USDT_ARENA_HDR)
			continue;
		for (size_t k = 0; k < ip->nprocs && !ours; k++)
			ours = ip->procs[k]->map && ip->procs[k]->ino &&
			       ip->procs[k]->ino == pm->ino;
		if (ours ||
		    ip_mem_rw(ipp->pid, pm->start, &a, sizeof(a), false) < 0 ||
		    a.magic != USDT_ARENA_MAGIC ||
		    ip_mem_rw(ipp->pid, pm->start + USDT_SEMLOG_OFF, l,
			      sizeof(l), false) < 0)
			continue;
		for (unsigned i = 0; i < USDT_NSEMLOG; i++) {
			struct usdt_semlog z = { 0 };
			uint16_t v;

			if (!ip_semlog_valid(ipp->pr, mm, &l[i], tok) ||
			    ip_mem_rw(ipp->pid,
				      pm->start + USDT_SEMLOG_OFF +
					      i * sizeof(z),
				      &z, sizeof(z), true) < 0)
				continue;
			if (ip_mem_rw(ipp->pid, l[i].addr, &v, 2, false) == 0 &&
			    v > 0) {
				v--;
				if (ip_mem_rw(ipp->pid, l[i].addr, &v, 2,
					      true) == 0)
					n++;
			}
		}
	}
	return n;
}

/*
 * Does the site at a, whose file holds fb there (as -G left it), hold
 * what an in-process run wrote: a call to rec, its file's recorder, or
 * at an is-enabled site (en) `mov $1`?  Such a site is given back the
 * file's bytes by a run taking over (ip_stale_restore()) and by the
 * reaper (inproc_reap.c); a call or a mov is one instruction, so no
 * thread is ever inside its 5 bytes.
 */
bool ip_call_stale(const uint8_t cur[5], const uint8_t fb[6], uint64_t a,
		   uint64_t rec, bool en)
{
	int32_t rel;

	memcpy(&rel, cur + 1, 4);
	if (en)
		return !memcmp(fb, ip_nop_en, 5) && !memcmp(cur, ip_mov_1, 5);
	return (!memcmp(fb, ip_nop_call, 5) || !memcmp(fb, ip_nop_got, 6)) &&
	       cur[0] == 0xe8 && a + 5 + (uint64_t)(int64_t)rel == rec;
}

/*
 * The sites a dead run left armed, given back before this run arms the
 * process (doc/DESIGN.md §14, "Both paths in one run"): a dtrace SIGKILLed (or
 * one whose fork child kept its text) leaves its calls and its
 * is-enabled `mov $1` in place, and this run points every drti.o's
 * control block at its own arena (ip_objs_ready()), so a site of a
 * probe it does not arm would write records it has no site for
 * ("records ignored"), and one it sends to the kernel path would have a
 * breakpoint over the call.  Only when an arena of a memfd not ours
 * whose beat stopped is mapped there and none beats (other_dtrace()):
 * every site of the process's probes not enabled by this run that holds
 * a call to its own file's recorder, or `mov $1` where -G wrote the
 * is-enabled NOPs, gets the file's bytes back (ip_call_stale()).
 * The semaphores it raised go down first, through its log only
 * (stale_semas()), into *nsem.  The number of sites given back.
 */
size_t ip_stale_restore(struct consumer *c, struct ip_proc *ipp,
			const struct proc_maps *mm, size_t *nsem)
{
	size_t n = 0;
	bool dead;

	*nsem = 0;
	if (ipp->map || other_dtrace(c, ipp->pid, mm, &dead) || !dead)
		return 0;
	*nsem = stale_semas(c, ipp, mm);
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];
		char w[PATH_MAX + 256];
		struct ip_obj *o;
		uint64_t b;

		if (p->pid != ipp->pid || p->enabled || p->pidkind ||
		    !ip_file_has_rec(p->file) ||
		    !ip_file_bias(p->file, mm, &b) ||
		    !(o = ip_proc_obj(ipp, p->file, mm, w, sizeof(w))))
			continue;
		for (unsigned k = 0; k < p->noffs + p->nenoffs; k++) {
			bool en = k >= p->noffs;
			uint64_t off =
				en ? p->enoffs[k - p->noffs] : p->offs[k];
			uint64_t a = ip_off_to_addr(p->file, o->bias, off);
			uint8_t cur[5], fb[6];

			if (!a ||
			    ip_mem_rw(ipp->pid, a, cur, sizeof(cur), false) <
				    0 ||
			    ip_file_bytes(p->file, off, fb) < 0)
				continue;
			if (ip_call_stale(cur, fb, a, o->rec, en) &&
			    ip_mem_rw(ipp->pid, a, fb, 5, true) == 0)
				n++;
		}
	}
	return n;
}

/*
 * The first arena of ipp's process, made through o: refused (-1, why)
 * for a process another dtrace traces in-process (other_dtrace()), and
 * for a process under seccomp, which could kill it for the system calls
 * it would be made to run, and for one in another pid namespace
 * (ip_pidns_other()).  Its image marked armed (ip_image_done()),
 * and the files mapped now noted: those never asked (ip_dl_asks()).
 */
int ip_arena_first(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		   const struct ip_obj *o, const struct proc_maps *mm,
		   char *why, size_t wlen)
{
	if (other_dtrace(c, ipp->pid, mm, NULL)) {
		ipp->other = true;
		snprintf(why, wlen,
			 "another dtrace traces it in-process (taking it "
			 "would take that dtrace's hits)");
		return -1;
	}
	if (ip_seccomp_filtered(ipp->pid)) {
		snprintf(why, wlen,
			 "it runs under seccomp, which could kill it for the "
			 "system calls dtrace would make it run");
		return -1;
	}
	if (ip_pidns_other(ipp->pid)) {
		snprintf(why, wlen,
			 "it is in another pid namespace, or its children "
			 "are to be: the pids its recorder sees are not "
			 "dtrace's");
		return -1;
	}
	if (ip_no_proc(ipp->pid)) {
		snprintf(why, wlen,
			 "no /proc in its mount namespace: its recorder could "
			 "not tell its pid namespace");
		return -1;
	}
	if (ip_arena_make(c, ipp, h, o, why, wlen) < 0)
		return -1;
	ipp->dl_asks = ip_image_done(c, ipp->pid);
	for (size_t m = 0; m < mm->n; m++) {
		uint64_t *di;

		if (!mm->m[m].ino)
			continue;
		di = xrealloc(ipp->dl_pre, ipp->ndl_pre + 1, 2 * sizeof(*di));
		ipp->dl_pre = di;
		di[2 * ipp->ndl_pre] = mm->m[m].dev;
		di[2 * ipp->ndl_pre++ + 1] = mm->m[m].ino;
	}
	return 0;
}

/*
 * The segments of exited threads given back (arena.h, "Segments given
 * back"), once fewer than a quarter of the fresh ones are left: a
 * claimed one whose thread is gone from /proc/PID/task, its records all
 * read.  A thread that claimed a segment is its only writer until it
 * exits, so the pid and tid read here are its own; after a thread has
 * gone nothing writes its segment, so the head read after is its last.
 */
void ip_seg_giveback(struct consumer *c, struct ip_proc *ipp)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)ipp->map;
	uint32_t nseg = __atomic_load_n(&a->next_seg, __ATOMIC_ACQUIRE);

	if (nseg < IP_NSEG - IP_NSEG / 4 || c->read_more)
		return;
	if (nseg > IP_NSEG)
		nseg = IP_NSEG;
	for (uint32_t i = 0; i < nseg; i++) {
		struct usdt_seg *s =
			(struct usdt_seg *)(ipp->map + USDT_ARENA_HDR +
					    (size_t)i * ip->seg_size);
		const struct ip_segid *sid = &ipp->segid[i];
		pid_t pid, tid;
		char p[64];
		struct stat st;

		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&s->given, __ATOMIC_ACQUIRE))
			continue;
		/*
		 * Its thread by its numbers here (ip_seg_whose(), decided
		 * at its first read; not yet: kept): one of another
		 * namespace as mapped, gone when it was not found and no
		 * process holds its pid there now; one that could not say
		 * its namespace never.
		 */
		if (sid->state == IP_SEG_NEW || sid->state == IP_SEG_NSFAIL)
			continue;
		/* a process that holds its pid there now may be its writer */
		if (sid->state == IP_SEG_GONE &&
		    ns_find(s->nsdev, s->nsino, (pid_t)s->pid, ip_boot_ns()))
			continue;
		pid = sid->pid;
		tid = sid->tid;
		if (sid->state != IP_SEG_GONE &&
		    (pid <= 0 || tid <= 0 ||
		     proc_path(p, sizeof(p), pid, "task/%d", (int)tid) < 0 ||
		     stat(p, &st) == 0 || errno != ENOENT))
			continue; /* alive, or not known to be gone */
		if (__atomic_load_n(&s->head, __ATOMIC_ACQUIRE) !=
		    ipp->tails[i])
			continue; /* its last records: read at the next read */
		__atomic_store_n(&s->ready, 0, __ATOMIC_RELEASE);
		s->nsst = 0;
		s->nsdev = 0;
		s->nsino = 0;
		ipp->segid[i] = (struct ip_segid){ 0 };
		__atomic_store_n(&s->given, 1, __ATOMIC_RELEASE);
		ipp->given++;
	}
}

/*
 * The arena unmapped in the held process, through the `syscall; int3`
 * at sys: 0, -ENOENT where there is none (no file it maps holds the
 * recorder as it was armed), -EPERM where no call may be made (it
 * sandboxed itself since: leave it mapped), -EFAULT where the call
 * faulted (the page at sys is not what it was: the file cut), else
 * munmap's -errno.
 */
int ip_arena_unmap(struct ip_proc *ipp, struct ip_hold *h, uint64_t sys)
{
	bool ours;
	long r;

	if (!ipp->taddr)
		return 0;
	if (!sys)
		return -ENOENT;
	if (ip_seccomp_filtered(ipp->pid))
		return -EPERM;
	r = ip_inject(h, sys, SYS_munmap, (long)ipp->taddr, (long)ipp->len, 0,
		      0, 0, 0, &ours);
	ipp->taddr = 0;
	return r == -EFAULT && ours ? -EFAULT : r < 0 ? (int)r : 0;
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_proc_unused;
#endif /* __x86_64__ */
