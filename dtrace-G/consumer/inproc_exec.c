// SPDX-License-Identifier: MIT
/*
 * inproc_exec.c - -x activation=user across an exec (inproc.c has the
 * mechanism, drti/arena.h the protocol, doc/DESIGN.md §14 "Execs"):
 * the arena left open at USDT_EXEC_FD, each image's token, the slots
 * a new image claims to ask to be armed, and their answers at each read.
 * A library dlopen()ed later asks through its image's slot the same way
 * (dl_answer()); ip_dl_asks() tells sites.c whether a new file asked.
 * So that only such a library asks, and that it can, ip_objs_ready()
 * points every drti.o's control block at the arena when a process is
 * armed, and makes the arena of a -p or -c target with nothing armed.
 * A fork child of a process a glob traces is followed across its exec
 * too: an image that asks, as a traced process's (kid_exec_root()).  An
 * image told not to ask (DTRACE_DOF_INIT_DISABLE), of a traced process
 * or of such a child (watched for its exec: kids_check()), goes to the
 * kernel path for its process alone (exec_follow(), ip_exec_handover()),
 * as -x activation=kernel's binary-wide event reaches it, and so does
 * one of such a child made a traced process (from the registry) only
 * after its exec, before anything of it is armed (ip_exec_picked()):
 * armed late on every path, so said on every path; told so by
 * its environment, which the kernel lays out after the maps show the
 * exec, so a read that finds none yet decides at a later one
 * (exec_asks()), never by guessing.  A -p target
 * with no arena (none of its files carries the recorder: a shell) has
 * no descriptor for a new image to ask through: it is held by dlhold.c
 * (ip_exec_hold()), whose stop at its exec makes the new image the
 * process's (ip_exec_stop()) and arms it there, before it runs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../drti/arena.h"
#include "usdt/helper_abi.h" /* DRTI_ENV_DISABLE */
#include "consumer_impl.h"
#ifdef HAVE_BPF
#include "kplan.h"
#endif
#include "objfile.h"
#include "procfs.h"
#include "stapsdt.h"
#include "inproc.h"

#if defined(__x86_64__)

int ip_exec_fd_state(struct consumer *c, pid_t pid)
{
	struct inproc *ip = c->ip;
	char p[64], l[256];
	struct stat st;
	ssize_t n;

	(void)proc_path(p, sizeof(p), pid, "fd/%d", USDT_EXEC_FD);
	if (stat(p, &st) < 0)
		return errno == ENOENT ? EXFD_FREE : EXFD_OTHER;
	for (size_t i = 0; i < ip->nprocs; i++)
		if (ip->procs[i]->map && ip->procs[i]->ino &&
		    ip->procs[i]->ino == (uint64_t)st.st_ino)
			return EXFD_OURS;
	/* the reaper's too (inproc_reap.c) */
	for (size_t i = 0; i < ip->ntold; i++)
		if (ip->told[i].ino == (uint64_t)st.st_ino)
			return EXFD_OURS;
	n = readlink(p, l, sizeof(l) - 1);
	if (n < 0)
		return EXFD_OTHER;
	l[n] = '\0';
	return strncmp(l, "/memfd:usdt-arena", 17) ? EXFD_OTHER : EXFD_FREE;
}

/* The token of pid's current image: AT_RANDOM's 16 bytes (arena.h). */
int ip_image_token(pid_t pid, uint64_t tok[2])
{
	uint64_t at = 0;

	if (proc_auxv(pid, AT_RANDOM, &at) < 0 || !at)
		return -1;
	return ip_mem_rw(pid, at, tok, 2 * sizeof(uint64_t), false);
}

/*
 * What pid's environment says to its drti.o: ENV_TOLD, touch nothing
 * (DRTI_ENV_DISABLE: it never asks); ENV_FREE, not so; ENV_EMPTY, none
 * to read yet; ENV_UNREAD, not readable.  Empty is what an image in
 * the middle of its exec shows: the kernel replaces the maps (the old
 * arena gone from them) before it lays out the new image's stack, and
 * /proc/PID/environ reads nothing until then (the new mm's env_end is
 * 0, then, while the kernel walks the strings, equal to env_start).  A
 * read that is not empty is the whole environment: env_end passes
 * env_start only when it is set last, the strings in place.  An image
 * exec'd with no environment at all (execle()'s envp {NULL}, env -i)
 * reads empty too, for good: told apart by the layout being over
 * (image_laid_out()), and ENV_FREE (nothing tells it not to ask).
 * Taken as "not laid out yet", such an image that asked was never
 * armed (run-trace-fork.sh's EXEC 4).
 */
enum { ENV_TOLD, ENV_FREE, ENV_EMPTY, ENV_UNREAD };

static int drti_env(pid_t pid)
{
	size_t n = 0, k = strlen(DRTI_ENV_DISABLE);
	bool laid = image_laid_out(pid); /* first: see image_laid_out() */
	char *env = read_proc(pid, "environ", &n);
	int r = !env ? ENV_UNREAD : n ? ENV_FREE : laid ? ENV_FREE : ENV_EMPTY;

	for (size_t i = 0; env && i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, DRTI_ENV_DISABLE, k) && env[i + k] == '=')
			r = ENV_TOLD;
	free(env);
	return r;
}

/* pid's environment tells its drti.o to touch nothing (it never asks) */
static bool drti_disabled(pid_t pid)
{
	int e = drti_env(pid);

	return e == ENV_TOLD || e == ENV_UNREAD; /* unreadable: it may */
}

/*
 * pid's current image armed: its slot in the arena at USDT_EXEC_FD (its
 * pid, AT_RANDOM's 16 bytes, done), so that its drti.o constructors,
 * which may run after (a -c command is armed before them), go on at
 * once instead of asking; a library dlopen()ed later finds it done, and
 * asks as a dlopen() (ip_exec_answer()).  True when the slot is marked
 * and the image's drti.o can ask (it was not told to touch nothing:
 * DRTI_ENV_DISABLE in its environment).
 */
bool ip_image_done(struct consumer *c, pid_t pid)
{
	struct inproc *ip = c->ip;
	struct ip_proc *root = NULL;
	struct usdt_exec *x, *e = NULL;
	char p[64];
	struct stat st;
	uint64_t tok[2];

	(void)proc_path(p, sizeof(p), pid, "fd/%d", USDT_EXEC_FD);
	if (stat(p, &st) < 0)
		return false;
	for (size_t i = 0; i < ip->nprocs && !root; i++)
		if (ip->procs[i]->map &&
		    ip->procs[i]->ino == (uint64_t)st.st_ino)
			root = ip->procs[i];
	if (!root || ip_image_token(pid, tok) < 0)
		return false;
	x = (struct usdt_exec *)(root->map + USDT_EXEC_OFF);
	for (int i = 0; i < USDT_NEXEC && !e; i++)
		if (__atomic_load_n(&x[i].pid, __ATOMIC_ACQUIRE) ==
		    (uint32_t)pid)
			e = &x[i];
	for (int i = 0; i < USDT_NEXEC && !e; i++) {
		uint32_t z = 0;

		if (__atomic_compare_exchange_n(&x[i].pid, &z, (uint32_t)pid,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			e = &x[i];
	}
	if (!e)
		return false; /* its constructors ask, and are answered */
	e->token[0] = tok[0];
	e->token[1] = tok[1];
	__atomic_store_n(&e->state, USDT_EX_DONE, __ATOMIC_RELEASE);
	return !drti_disabled(pid);
}

/*
 * Where the arena ipp made is in its process: still there, whole, at
 * its address (AR_THERE); gone (AR_GONE: an exec, though something else
 * named usdt-arena, a new image's view of the exec header, may be
 * mapped); or the maps are not there to say (AR_UNREAD: exiting, gone).
 */
enum { AR_THERE, AR_GONE, AR_UNREAD };

static int arena_in(pid_t pid, uint64_t taddr, size_t len)
{
	struct proc_maps mm = { 0 };
	bool found = false;

	if (proc_maps_read(pid, &mm) < 0 || !mm.n) {
		proc_maps_free(&mm);
		return AR_UNREAD;
	}
	for (size_t i = 0; i < mm.n && !found; i++)
		found = mm.m[i].start == taddr &&
			mm.m[i].end - mm.m[i].start == len;
	proc_maps_free(&mm);
	return found ? AR_THERE : AR_GONE;
}

static int arena_state(const struct ip_proc *ipp)
{
	return arena_in(ipp->pid, ipp->taddr, ipp->len);
}

/*
 * Will pid's new image, which has the arena at USDT_EXEC_FD to ask
 * through, ask to be armed?  EXA_NEVER: its drti.o is told to touch
 * nothing (DTRACE_DOF_INIT_DISABLE in its environment); EXA_MAY: not
 * so, or no descriptor to ask through; EXA_UNSURE: not to be told yet,
 * its environment not there to read (drti_env(): the kernel lays it out
 * after the maps lose the arena, so a read that saw the exec in the
 * maps may come first), to be looked at again at the next read.  Taken
 * as "it may" there, a told-not-to-ask image was left waiting for an
 * ask that never came, untraced (run-trace-fork.sh, "fork then exec 2,
 * forked before", under -x activation=user in CI).  One whose objects
 * carry no recorder does not ask either; that is known only once ld.so
 * has mapped them all, and is said at its end instead
 * (ip_exec_unasked()).  One without the descriptor is said at once
 * (ip_exec_check()).
 */
enum { EXA_MAY, EXA_NEVER, EXA_UNSURE };

static int exec_asks(struct consumer *c, pid_t pid)
{
	int e;

	if (ip_exec_fd_state(c, pid) != EXFD_OURS)
		return EXA_MAY;
	e = drti_env(pid);
	return e == ENV_TOLD ? EXA_NEVER : e == ENV_FREE ? EXA_MAY : EXA_UNSURE;
}

/* ipp's exec seen: its new image to the kernel path, or not yet known */
static void exec_decide(struct consumer *c, struct ip_proc *ipp)
{
	int a = exec_asks(c, ipp->pid);

	/* handed to the kernel path at the end of this read */
	ipp->exec_kernel = a == EXA_NEVER;
	ipp->exec_envwait = a == EXA_UNSURE;
}

/*
 * Has ipp's process exec'd (its maps, read every refresh, lost the
 * arena)?  Its new image asks to be armed through the arena it inherits
 * at USDT_EXEC_FD (ip_exec_answer()), before any of its probes can fire:
 * until then nothing of it is armed (exec_pending).  One that will not
 * (DTRACE_DOF_INIT_DISABLE) goes to the kernel path at the end of the
 * first read that finds its environment laid out (exec_kernel,
 * ip_exec_handover(); exec_envwait until then: exec_asks()); without
 * that descriptor (the process closed it, or had its own there) it
 * cannot ask: said once.  True: the image ipp armed is gone.
 */
bool ip_exec_check(struct consumer *c, struct ip_proc *ipp)
{
	const struct tproc *pr = ipp->pr;
	char range[48];

	if (ipp->exec_said)
		return true;
	if (ipp->exec_pending) {
		if (ipp->exec_envwait)
			exec_decide(c, ipp);
		return true;
	}
	if (!ipp->map || ipp->gone || !ipp->taddr || pr->exited)
		return false;
	/*
	 * The arena still where ipp made it, whole, in the maps last read:
	 * no exec.  Not any "usdt-arena" line: a new image waiting to be
	 * armed maps the header of the arena at USDT_EXEC_FD (drti/rec.c)
	 * too, and taken for no exec, a refresh would arm the new image as
	 * the old one (its sites in ipp, where the old image's hits still
	 * in the arena would find none).  Else the maps are read now
	 * (pr->maps may be from before the arena was made, or none: the
	 * kernel path's exec record reset them, proc_exec_reset()); an
	 * exiting process has none (not an exec).
	 */
	snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64 " ", ipp->taddr,
		 ipp->taddr + ipp->len);
	if (pr->maps && strstr(pr->maps, range))
		return false;
	if (arena_state(ipp) != AR_GONE)
		return false;
	if (ip_exec_fd_state(c, pr->pid) == EXFD_OURS) {
		ipp->exec_pending = true;
		exec_decide(c, ipp);
		return true;
	}
	say(c,
	    "pid %d exec'd and closed (or never had) the descriptor its new "
	    "image asks to be armed through: -x activation=user does not "
	    "trace that image",
	    (int)pr->pid);
	ipp->exec_said = true;
	return true;
}

/* An exec'd image that never asked to be armed: said when it ends. */
void ip_exec_unasked(struct consumer *c, struct ip_proc *ipp)
{
	if (!ipp->exec_pending || ipp->exec_said)
		return;
	ipp->exec_said = true;
	say(c,
	    "pid %d exec'd an image that did not ask to be armed (no object "
	    "of it carries drti.o's recorder, or it had not run its "
	    "constructors): -x activation=user did not trace it",
	    (int)ipp->pid);
}

/*
 * A dlopen()ed object of pid asks (arena.h, "Following a dlopen()"),
 * its thread waiting in its first drti.o constructor: pid's maps are
 * read and what is new armed, or armed anew (a library dlclose()d and
 * dlopen()ed again: ip_remap_check()), with the process held, then it is
 * told to go on.  A pid this run does not trace in-process (a fork
 * child: it shares the arena) is told to go on.  One that gave up
 * waiting (dtrace stopped or stuck past the wait's bound: arena.h,
 * "Following an exec") is said, once.
 */
static void dl_answer(struct consumer *c, struct usdt_exec *x, pid_t pid,
		      uint32_t st)
{
	struct tproc *pr = proc_find(c, pid);
	struct ip_proc *ipp = pr ? ip_proc_of(c, pr) : NULL;
	uint32_t w = USDT_EX_DLOPEN;

	if (st == USDT_EX_DLGAVEUP) {
		/* a process that exited since, too: its last image's */
		for (size_t i = c->ip->nprocs; pr && !ipp && i-- > 0;)
			if (c->ip->procs[i]->pr == pr)
				ipp = c->ip->procs[i];
		if (ipp && !ipp->dl_said) {
			ipp->dl_said = true;
			say(c,
			    "pid %d dlopen()ed a library while dtrace was not "
			    "reading (it stopped waiting): its hits before "
			    "the next read of the maps, its constructors' "
			    "included, were not counted",
			    (int)pid);
		}
		__atomic_store_n(&x->state, USDT_EX_DONE, __ATOMIC_RELEASE);
		return;
	}
	if (!__atomic_compare_exchange_n(&x->state, &w, USDT_EX_ARMING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* it gave up meanwhile: next read */
	if (ipp && !pr->exited && ipp->map && ipp->taddr) {
		(void)proc_refresh(c, pr, NULL);
		if (!c->ip->stopped && ipp->map && !ipp->gone)
			ip_remap_check(c, ipp);
		/* the rings not read to the end: what was dlclose()d is
		 * forgotten, and what is new armed, at the next round */
		if (c->read_more) {
			__atomic_store_n(&x->state, USDT_EX_DLOPEN,
					 __ATOMIC_RELEASE);
			return;
		}
	}
	__atomic_store_n(&x->state, USDT_EX_DONE, __ATOMIC_RELEASE);
	if (ip_race_us() && pr && !pr->exited) /* a test's (inproc_arm.c) */
		(void)proc_refresh(c, pr, NULL);
}

/*
 * f, dlopen()ed by pr while traced, asked to be armed before it ran
 * (its drti.o, arena.h "Following a dlopen()"), through pr's descriptor
 * at USDT_EXEC_FD, which is still ours: so no hit of it was lost.  Not
 * a file mapped before that descriptor was there (the arena was made
 * at this read of the maps, or the one before saw none of it).
 */
bool ip_dl_asks(struct consumer *c, struct tproc *pr, const struct tfile *f)
{
	struct ip_proc *ipp = ip_proc_of(c, pr);

	if (!f->dl_asks || !ipp || !ipp->dl_asks || !ipp->map || ipp->gone)
		return false;
	for (size_t i = 0; i < ipp->ndl_pre; i++)
		if (ipp->dl_pre[2 * i] == (uint64_t)f->dev &&
		    ipp->dl_pre[2 * i + 1] == (uint64_t)f->ino)
			return false;
	return ip_exec_fd_state(c, pr->pid) == EXFD_OURS;
}

/*
 * Every copy of drti.o ipp's process maps, whether any of its probes is
 * armed or not, gets its control block pointed at the arena, so that
 * its first constructor (a -c command's, an exec'd image's, which run
 * after this) goes on at once instead of asking as a dlopen() would
 * and waiting a switchrate; a library dlopen()ed later still finds its
 * own at 0, and asks.  A -p or -c target that has no arena yet gets one
 * here, through the first such copy, with nothing armed: the arena a
 * library it dlopen()s asks through (arena.h, "Following a dlopen()");
 * without it the library would be armed only at the next read of the
 * maps, or never, were it dlclose()d first.  -1 (why): the arena could
 * not be made (the process goes to the kernel path whole); -2: a
 * control block could not be written.  made: an arena was made.
 */
int ip_objs_ready(struct consumer *c, struct ip_proc *ipp, struct ip_hold *h,
		  const struct proc_maps *mm, struct ip_ctlw **ctlw,
		  size_t *nctl, bool *made, char *why, size_t wlen)
{
	struct tproc *pr = ipp->pr;

	for (size_t i = 0; i < pr->nfiles; i++) {
		struct tfile *f = pr->files[i];
		char w[PATH_MAX + 256];
		struct ip_obj *o;
		uint64_t b;

		if (!ip_file_has_rec(f) || !ip_file_bias(f, mm, &b) ||
		    !(o = ip_proc_obj(ipp, f, mm, w, sizeof(w))))
			continue;
		if (!ipp->map) {
			if (!pr->target)
				return 0; /* nothing of it to arm */
			if (ip_arena_first(c, ipp, h, o, mm, why, wlen) < 0)
				return -1;
			*made = true;
		}
		if (ip_ctl_arm(ipp, o, ctlw, nctl, why, wlen) < 0)
			return -2;
	}
	return 0;
}

static struct ip_proc *kid_exec_root(struct consumer *c, pid_t pid,
				     const uint64_t stok[2]);
static void exec_follow(struct consumer *c, pid_t pid, struct ip_proc *old,
			bool kernel);

/*
 * The slots of ipp's arena (arena.h, "Following an exec"): an image
 * exec'd by a traced process waits in its first drti.o constructor
 * until it is armed here.  Its pid's process is reset to its new maps
 * (proc_exec_reset()) and refreshed, which arms it with an arena of
 * its own, and it is told to go on.  An image of a fork child this run
 * does not trace is followed the same way, the child becoming a traced
 * process, where a glob can match its probes (kid_exec_root(): its
 * parent, per the kernel, in the family, and its image the slot's and
 * not the family's; exec_follow()); any other is told to go on, said
 * once a run.  A slot whose token is not its pid's image's, or whose
 * pid's old arena is still mapped (no exec), is a lie (a fork child
 * shares the arena), not acted on.
 */
void ip_exec_answer(struct consumer *c, struct ip_proc *root)
{
	struct inproc *ip = c->ip;
	struct usdt_arena *a = (struct usdt_arena *)root->map;
	struct usdt_exec *x;

	/* a read cut short (-x bufsize): answered when it is done */
	if (!a || ip->stopped || c->read_more)
		return;
	x = (struct usdt_exec *)(root->map + USDT_EXEC_OFF);
	for (int i = 0; i < USDT_NEXEC; i++) {
		uint32_t st = __atomic_load_n(&x[i].state, __ATOMIC_ACQUIRE);
		pid_t pid = (pid_t)__atomic_load_n(&x[i].pid, __ATOMIC_RELAXED);
		uint32_t w = USDT_EX_WAIT;
		struct tproc *pr;
		struct ip_proc *old;
		uint64_t tok[2];

		if (pid <= 0)
			continue;
		if (st == USDT_EX_DLOPEN || st == USDT_EX_DLGAVEUP) {
			dl_answer(c, &x[i], pid, st);
			continue;
		}
		if (st == USDT_EX_DONE || st == USDT_EX_FREE) {
			/* its process gone: the slot free again */
			if (kill(pid, 0) < 0 && errno == ESRCH) {
				__atomic_store_n(&x[i].state, USDT_EX_FREE,
						 __ATOMIC_RELEASE);
				__atomic_store_n(&x[i].pid, 0,
						 __ATOMIC_RELEASE);
			}
			continue;
		}
		pr = proc_find(c, pid);
		old = pr && !pr->exited ? ip_proc_of(c, pr) : NULL;
		if (st == USDT_EX_GAVEUP) {
			if (!old || !old->exec_said)
				say(c,
				    "pid %d exec'd while dtrace was not "
				    "reading (its new image stopped waiting): "
				    "-x activation=user did not trace that "
				    "image",
				    (int)pid);
			if (old) {
				old->exec_pending = false;
				old->exec_said = true;
			}
			__atomic_store_n(&x[i].state, USDT_EX_DONE,
					 __ATOMIC_RELEASE);
			continue;
		}
		if (st != USDT_EX_WAIT)
			continue;
		if (pr &&
		    (ip_image_token(pid, tok) < 0 || tok[0] != x[i].token[0] ||
		     tok[1] != x[i].token[1] ||
		     (old && old->taddr && arena_state(old) == AR_THERE))) {
			root->corrupt++; /* not its image, or no exec */
			__atomic_store_n(&x[i].state, USDT_EX_DONE,
					 __ATOMIC_RELEASE);
			continue;
		}
		if (!__atomic_compare_exchange_n(
			    &x[i].state, &w, USDT_EX_ARMING, false,
			    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* it gave up meanwhile: next read */
		if (pr && !pr->exited) {
			if (old) { /* its image is gone: nothing to restore */
				old->gone = true;
				old->taddr = 0;
				old->exec_pending = false;
			}
			proc_exec_reset(c, pr);
			(void)proc_refresh(c, pr, NULL);
		} else if (!pr && kid_exec_root(c, pid, x[i].token)) {
			exec_follow(c, pid, NULL, false); /* it waits */
		} else if (!ip->child_exec_said) {
			ip->child_exec_said = true;
			say(c,
			    "pid %d, forked from a process traced in-process, "
			    "exec'd: -x activation=user follows the execs of "
			    "the processes it traces, and of their fork "
			    "children where a glob can match their probes, "
			    "only; its new image (and any other such child's) "
			    "is not traced",
			    (int)pid);
		}
		/* a beat, after arming, which may take long (a loaded
		 * machine: the kernel path's probes of the image too): the
		 * image's first hits find it fresh, not a drop */
		ip_beat(c, true);
		__atomic_store_n(&x[i].state, USDT_EX_DONE, __ATOMIC_RELEASE);
	}
}

/* pid's told-not-to-ask image handed to the kernel path: said once a run */
static void kexec_say(struct consumer *c, pid_t pid, bool kid)
{
	if (c->ip->kexec_said)
		return;
	c->ip->kexec_said = true;
	say(c,
	    "pid %d%s exec'd an image told not to ask to be armed "
	    "in-process (DTRACE_DOF_INIT_DISABLE): its probes go to "
	    "the kernel path, for that process alone, armed when "
	    "dtrace saw the exec (any hit before that was not "
	    "counted; so for any other such image)",
	    (int)pid, kid ? ", forked from a process traced in-process," : "");
}

/*
 * pid, a fork child of a process traced in-process that is not traced
 * itself, or a traced process (old: its image armed before, gone now),
 * exec'd an image of which it is to be traced: it becomes a traced
 * process (a tproc; the tree learns the exec, and the probes lineage.c
 * derived for its old image go off), its maps are read and its probes
 * armed (proc_refresh()).  In-process where its image asked and waits
 * (kid_exec_root()), so from its first instruction; on the kernel path
 * where it will not ask (exec_asks()), for pid alone (kpin: a
 * glob's probes too, which the kernel path would otherwise arm
 * binary-wide, over the calls armed in-process in other processes
 * running the file: kernel_enable(), inproc_arm.c), as on -x
 * activation=kernel a glob's binary-wide event reaches such an image;
 * armed when this read saw the exec, so what the image fired before is
 * lost: said, once a run.
 */
static void exec_follow(struct consumer *c, pid_t pid, struct ip_proc *old,
			bool kernel)
{
	struct inproc *ip = c->ip;
	struct tproc *pr = proc_find(c, pid);
	struct ip_proc *ipp;

	if (old) { /* its image is gone: nothing to restore */
		old->gone = true;
		old->taddr = 0;
		old->exec_pending = false;
		old->exec_kernel = false;
		old->exec_said = true;
	}
	if (!pr && !(pr = proc_add(c, pid, false)))
		return; /* exited meanwhile */
	lin_exec(c, pid, now_ns(CLOCK_MONOTONIC));
	if (!pr->reimaged)
		proc_exec_reset(c, pr);
	if (kernel) {
		ipp = xcalloc(1, sizeof(*ipp));
		ipp->pid = pid;
		ipp->pr = pr;
		ipp->kernel = true;
		ipp->kpin = true;
		PUSH(ip->procs, ip->nprocs, ipp);
	}
	if (kernel) {
		kexec_say(c, pid, !old);
	} else if (c->o->verbose) {
		say(c,
		    "pid %d, forked from a process traced in-process, exec'd: "
		    "its new image traced as its own process",
		    (int)pid);
	}
	(void)proc_refresh(c, pr, NULL);
}

/*
 * Can ipp's fork children be followed across their execs: can a
 * description match a probe of theirs (a glob: one of ipp's probes is
 * wide; kept once true, as a process's probes are let go when it
 * exits), and are the arena's address in them and the image token they
 * share known (taken while ipp's image is the family's: its arena
 * mapped where it was made)?
 */
static bool family_ready(struct consumer *c, struct ip_proc *ipp)
{
	uint64_t tok[2];

	for (size_t i = 0; i < c->nprobes && !ipp->kids_wide; i++)
		ipp->kids_wide =
			c->probes[i]->pid == ipp->pid && c->probes[i]->wide;
	if (!ipp->kids_wide)
		return false;
	if (!ipp->kid_taddr && ipp->taddr &&
	    ip_image_token(ipp->pid, tok) == 0 &&
	    arena_state(ipp) == AR_THERE) {
		ipp->kid_tok[0] = tok[0];
		ipp->kid_tok[1] = tok[1];
		ipp->kid_taddr = ipp->taddr;
	}
	return ipp->kid_taddr != 0;
}

/*
 * Is pid a child of ipp's process or of another of its fork children
 * (known[]), as the kernel says (PPid)?  A segment's pid, or an exec
 * slot's, is the process's word: a child could name any process there.
 * A child reparented since (its parent gone) is not taken.
 */
static bool kid_of_family(const struct ip_proc *ipp, pid_t pid)
{
	char st[4096], *s;
	pid_t pp;

	if (proc_read_file(pid, "status", st, sizeof(st)) < 0 ||
	    !(s = strstr(st, "\nPPid:")))
		return false;
	pp = (pid_t)atoi(s + 6);
	if (pp == ipp->pid)
		return true;
	for (size_t i = 0; i < ipp->nknown; i++)
		if (ipp->known[i] == pp)
			return true;
	return false;
}

/* Has pid, of ipp's family, exec'd: the arena gone, its token not theirs? */
static bool kid_execd(const struct ip_proc *ipp, pid_t pid,
		      const uint64_t tok[2])
{
	return (tok[0] != ipp->kid_tok[0] || tok[1] != ipp->kid_tok[1]) &&
	       arena_in(pid, ipp->kid_taddr, ipp->len) == AR_GONE &&
	       kid_of_family(ipp, pid);
}

/*
 * pid, not a traced process, asks through slot token stok to be armed
 * (ip_exec_answer()): the family whose fork child it is, that it can be
 * followed into (family_ready()), if it exec'd an image whose token is
 * stok; else NULL (its image is let go, said).
 */
static struct ip_proc *kid_exec_root(struct consumer *c, pid_t pid,
				     const uint64_t stok[2])
{
	struct inproc *ip = c->ip;
	uint64_t tok[2];

	if (ip_image_token(pid, tok) < 0 || tok[0] != stok[0] ||
	    tok[1] != stok[1])
		return NULL;
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		if (ipp->map && family_ready(c, ipp) &&
		    kid_execd(ipp, pid, tok))
			return ipp;
	}
	return NULL;
}

/*
 * ipp's fork children that are not traced processes themselves (their
 * hits are records in ipp's arena, lineage.c sorting them out), watched
 * for an exec: one whose new image will not ask to be armed is followed
 * on the kernel path (exec_follow()), one whose environment is not laid
 * out yet watched still (exec_asks()); one whose image asks is answered
 * by ip_exec_answer(), which follows it in-process.  A child exec'd when
 * its maps lost the arena (at the address the family maps it) and its
 * image token is no longer the family's (a child that only unmapped the
 * arena keeps it).  Each is taken with its start time once its first
 * records are read, so a pid reused later is never taken for it (pids
 * are given out in turn: one reused between the child's records and
 * that read would need pid_max forks meanwhile), nor a process a child
 * named in a segment (kid_of_family()).
 */
static void kids_check(struct consumer *c, struct ip_proc *ipp)
{
	struct inproc *ip = c->ip;
	size_t k = 0;

	if (!family_ready(c, ipp))
		return;
	for (; ipp->kids_from < ipp->nknown; ipp->kids_from++) {
		struct ip_kid kid = { ipp->known[ipp->kids_from], 0 };

		if (reg_proc_stat(kid.pid, &kid.start, NULL, 0) == 0)
			PUSH(ipp->kids, ipp->nkids, kid);
	}
	for (size_t i = 0; i < ipp->nkids; i++) {
		struct ip_kid kd = ipp->kids[i];
		uint64_t start, tok[2];

		if (ip->stopped || c->enable_failed) { /* the rest stay */
			ipp->kids[k++] = kd;
			continue;
		}
		/* exited, or traced now (its own ip_proc sees its execs) */
		if (reg_proc_stat(kd.pid, &start, NULL, 0) < 0 ||
		    start != kd.start || proc_find(c, kd.pid))
			continue;
		/* the family's image still (or it only unmapped the arena:
		 * nothing of ours), or exiting */
		if (ip_image_token(kd.pid, tok) < 0 ||
		    !kid_execd(ipp, kd.pid, tok)) {
			ipp->kids[k++] = kd;
			continue;
		}
		switch (exec_asks(c, kd.pid)) {
		case EXA_NEVER:
			exec_follow(c, kd.pid, NULL, true);
			break;
		case EXA_UNSURE: /* its environment not laid out yet */
			ipp->kids[k++] = kd;
			break;
		}
	}
	ipp->nkids = k;
}

/*
 * ipp, about to be armed with no arena of its own, is a traced process
 * picked since its fork child's life began (from the registry, where
 * drti.o's fork handler put it, with its old image's probes): the
 * fork child of a family (family_ready()) whose records counted its
 * hits, which kids_check() no longer watches once it is traced.  If it
 * has exec'd since (kid_execd()) an image told not to ask, that image
 * goes to the kernel path for its process alone, as kids_check() would
 * have sent it, said (IPK_KERNEL: ipp->kernel and kpin set): armed at
 * this read, not at its exec, so a hit it made first is lost, and the
 * user is told.  Taken silently in-process here instead (an arena of
 * its own, ip_arena_first()), such an image's late arming was said by
 * nothing (run-trace-fork.sh, "fork then exec 2", under -x
 * activation=user: the registry read between the exec and the watch's
 * next look, now and then on a loaded machine).  IPK_WAIT: its
 * environment not laid out yet, so nothing armed: it waits as a traced
 * process's seen exec does (exec_pending, exec_envwait), decided at the
 * end of a later read (ip_exec_handover(), exec_asks()).  IPK_ARM: no
 * such exec, or an image that asks (it waits for its answer), armed as
 * any.
 */
int ip_exec_picked(struct consumer *c, struct ip_proc *ipp)
{
	struct inproc *ip = c->ip;
	uint64_t tok[2];
	bool kid = false;

	if (ipp->map || ipp->kernel || ip_image_token(ipp->pid, tok) < 0)
		return IPK_ARM;
	for (size_t i = 0; i < ip->nprocs && !kid; i++) {
		struct ip_proc *f = ip->procs[i];

		kid = f != ipp && f->map && !f->gone && family_ready(c, f) &&
		      kid_execd(f, ipp->pid, tok);
	}
	if (!kid)
		return IPK_ARM;
	switch (exec_asks(c, ipp->pid)) {
	case EXA_NEVER:
		break;
	case EXA_UNSURE: /* decided by ip_exec_handover(), as an exec seen */
		ipp->exec_pending = true;
		ipp->exec_envwait = true;
		return IPK_WAIT;
	default:
		return IPK_ARM;
	}
	lin_exec(c, ipp->pid, now_ns(CLOCK_MONOTONIC));
	ipp->kernel = true;
	ipp->kpin = true;
	kexec_say(c, ipp->pid, true);
	return IPK_KERNEL;
}

/*
 * At the end of each read: every traced process whose new image will
 * not ask (ip_exec_check(): exec_kernel) goes to the kernel path; and,
 * every refresh interval (100 ms), the fork children of processes a
 * glob traces are looked at (kids_check()).  Not while a read is cut
 * short (-x bufsize): records of the image left may wait still.
 */
void ip_exec_handover(struct consumer *c)
{
	struct inproc *ip = c->ip;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	bool kids = now - ip->kids_ns >= 100000000u;

	if (ip->stopped || c->read_more || c->enable_failed)
		return;
	if (kids)
		ip->kids_ns = now;
	/* ip->procs may grow here (an image handed over) */
	for (size_t i = 0; i < ip->nprocs; i++) {
		struct ip_proc *ipp = ip->procs[i];

		/* one with no arena is not looked at by ip_exec_check() */
		if (ipp->exec_envwait && !ipp->map && !ipp->gone)
			exec_decide(c, ipp);
		if (ipp->exec_kernel && !ipp->gone && !ipp->pr->exited)
			exec_follow(c, ipp->pid, ipp, true);
		else if (kids && ipp->map &&
			 (ipp->nknown > ipp->kids_from || ipp->nkids))
			kids_check(c, ipp);
	}
}

/*
 * pr, a -p target of a run that can select a USDT probe, has no file
 * that carries drti.o's recorder (a shell that will exec the program),
 * so no arena, and a new image it execs no descriptor to ask through
 * (USDT_EXEC_FD): it is held by dlhold.c from here on, whose stop at
 * its exec arms the new image before it runs (ip_exec_stop()).  Where
 * it cannot be (no BPF, another tracer), its exec is met at the next
 * read of its maps, said (sites.c's late_say()).
 */
void ip_exec_hold(struct consumer *c, struct tproc *pr)
{
	if (pr->target && !pr->created && !pr->exited && !c->ip->stopped)
		(void)dlhold_start(c, pr);
}

/*
 * pr, held by dlhold.c, is stopped at its exec (thread tid, its
 * leader now): the new image has run nothing, not even ld.so.  It is
 * made the process's image (the old one's ip_proc gone, as when an
 * image asks: ip_exec_answer()), and dlhold.c's refresh that follows
 * arms it with pr held (dh_arm(), ip_enable()): in-process where a
 * file it maps carries the recorder (its arena made through that
 * file's __usdt_sysret, its slot in the arena at USDT_EXEC_FD marked
 * done: its drti.o finds its control block set, and does not ask),
 * else on the kernel path for pr alone.  A library ld.so maps before
 * main() stops it at _dl_debug_state(), as a dlopen() does.  The
 * thread goes on first to the exec's syscall-exit stop: a call is
 * injected from a syscall-stop (ip_inject()); from the exec's own stop
 * the kernel would report the exec's exit at the call's first
 * instruction.  A signal that stops it there instead is handed back to
 * be delivered when it goes on.
 */
int ip_exec_stop(struct consumer *c, struct tproc *pr, pid_t tid)
{
	struct ip_proc *old;
	siginfo_t si;
	int st;

	if (!c->ip || pr->exited)
		return 0;
	while ((old = ip_proc_of(c, pr))) { /* its image is gone */
		old->gone = true;
		old->taddr = 0;
		old->exec_pending = false;
		old->exec_kernel = false;
	}
	lin_exec(c, pr->pid, now_ns(CLOCK_MONOTONIC));
	if (!pr->reimaged)
		proc_exec_reset(c, pr);
	if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL) < 0 ||
	    waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
		return 0; /* gone: the loop sees its exit */
	if ((WSTOPSIG(st) & 0x7f) == SIGTRAP &&
	    ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0 &&
	    (si.si_code & 0x7f) == SIGTRAP)
		return 0;
	return st >> 16 ? 0 : WSTOPSIG(st); /* an event's stop: none */
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_exec_unused;

int ip_exec_stop(struct consumer *c, struct tproc *pr, pid_t tid)
{
	(void)c, (void)pr, (void)tid;
	return 0;
}
#endif /* __x86_64__ */
