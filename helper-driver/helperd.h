/* SPDX-License-Identifier: MIT */
/*
 * helperd.h - dtrace-helperd's parts and how they talk.
 *
 *	helperd.c	main: options, start-up in order, the event loop
 *	hd_daemon.c	the state-directory lock, going to the background,
 *			systemd readiness
 *	hd_log.c	logging, rate-limited for what callers can cause
 *			(hd_log.h: depends on no other part)
 *	hd_dev.c	the device: a FUSE file system holding one file
 *			(the mount point is the device's directory) or a
 *			CUSE character device; both hand ioctls to
 *	hd_ioctl.c	hd_ioctl_decode(): what an ioctl request carries and
 *			whether the kernel must fetch more first -- pure,
 *			so the CUSE path is unit-tested on a kernel without
 *			CUSE (tests/unit/t-helperd-ioctl.c)
 *	hd_reg.c	the registry in memory: ADDDOF, REMOVE, pruning,
 *			persisting to <statedir>/registry (sdk/registry.h)
 *	hd_scan.c	at start: processes that were running before the
 *			daemon, found by their mappings
 *	hd_guard.c	every read of another process's memory or mappings,
 *			bounded in time: a caller cannot hang the daemon
 *	hd_check.c	the DOF parser runs in a child confined by seccomp
 *			strict mode: a parser bug cannot take over the daemon
 *	hd_fork.c	fork and exec events from the kernel's process
 *			connector: a fork child gets its parent's
 *			registrations without asking
 *	hd_queue.c	registrations answered first and validated after:
 *			the queue, its fairness between users, SYNC
 *	hd_sock.c	registrations by datagram, which need no answer:
 *			the socket, its order against the device, its budget
 *
 * Everything that decides runs on one thread, and no lock is ever needed
 * there: a request is answered from what the daemon knows (a few us),
 * and what takes time -- reading the caller's memory (hd_guard.c's
 * workers) and checking its DOF (hd_check.c's child) -- runs beside the
 * loop, which only hands work over and collects results (hd_queue.c).
 * The loop waits on the device fd, the datagram socket and its timerfd,
 * a signalfd, a timerfd for the
 * periodic check, the process connector's socket, one pidfd per
 * registered process (readable when it exits), and the queue's timerfd,
 * the workers' eventfd and the checker's pipes.
 */
#ifndef USDT_HELPERD_H
#define USDT_HELPERD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "dof_check.h"
#include "hd_log.h"
#include "procfs.h"
#include "registry.h"
#include "usdt/helper_abi.h"

/*
 * What a user's refused registrations cost the daemon (bytes copied and
 * checked for nothing), paid back at hd->refused_rate per second
 * (hd_reg.c).  The defaults let a user have four 8 MiB blobs refused at
 * once and one every quarter of a second after that.
 */
#define HD_REFUSED_RATE (32UL << 20)  /* bytes per second */
#define HD_REFUSED_BURST (32UL << 20) /* bytes owed before EBUSY */

struct hd_debt {
	uid_t uid;
	double bytes;	   /* owed as of t_ns */
	uint64_t t_ns;	   /* CLOCK_MONOTONIC */
	uint64_t refused;  /* requests turned away for it, to log */
};

/* A process with at least one registration. */
struct hd_proc {
	struct reg_proc rp; /* pid, start time, comm, entries */
	int pidfd;	    /* -1 if pidfd_open is unavailable */
	uint64_t bytes;	    /* DOF bytes held for it */
	uid_t uid;	    /* its real uid when it first registered */
	unsigned njobs;	    /* its registrations still in the queue */
	bool dirty;	    /* its file could not be written yet */
	bool on_disk;	    /* its file exists */
	bool maybe_exited;  /* the connector saw its first thread exit */
	bool idle;	    /* no registration left, kept known (hd_reg.c) */
	bool exit_polled;   /* the periodic check found its pidfd ready */
};

/* ---- hd_queue.c: one registration between its answer and its record -- */

enum hd_job_state {
	HD_JOB_QUEUED,	 /* waiting for its time, or for the fetch slot */
	HD_JOB_FETCHING, /* a worker reads the caller (hd_guard.c) */
	HD_JOB_FETCHED,	 /* read; waiting for the checker */
	HD_JOB_CHECKING, /* with the checker (hd_check.c) */
};

struct hd_job {
	struct hd_job *prev, *next; /* hd->jobs, in arrival order */
	uint64_t seq;		    /* arrival order */
	uint64_t due_ns;	    /* CLOCK_MONOTONIC: validated from then */
	pid_t pid, tid;		    /* the process, and the thread that asked */
	uid_t uid;		    /* its real uid */
	dof_helper_t h;
	uint64_t gen;
	enum reg_origin origin;
	enum hd_job_state state;
	bool early;	   /* answered before it was validated */
	bool cancelled;	   /* withdrawn meanwhile: its result is dropped */
	bool retried;	   /* read again through the pid (hd_queue.c) */
	void *req;	   /* a request answered when it ends, or NULL */
	int *result;	   /* a waiting caller's outcome, or NULL */
	size_t charge;	   /* bytes copied: what a refusal costs */
	struct hd_fetch *f; /* the read: mappings and blob */
};

/* A SYNC request waiting for the queue (hd_queue.c). */
struct hd_sync {
	void *req;
	pid_t pid;    /* SYNC(gen): the caller's process */
	uint64_t gen; /* 0: every job that arrived before seq */
	uint64_t seq;
};

/* Refusals remembered for a later SYNC(gen) or REMOVE (hd_queue.c). */
#define HD_REFUSED_KEEP 256

struct hd_refused {
	pid_t pid;
	uint64_t gen;
	int err;
};

/* A registration answered at once is validated this much later. */
#define HD_ADD_SETTLE_MS 10
/* The checker's answer to one request may take this long (hd_check.c). */
#define HD_CHECK_TIMEOUT_MS 2000
/*
 * At SIGTERM what was answered is checked and recorded for at most this
 * long, or one check's timeout where that is longer (helperd.c's drain()).
 */
#define HD_DRAIN_MS 2000

/*
 * Blob headers the periodic check re-reads at most per period (hd_reg.c),
 * and where the process connector reports exec.
 */
#define HD_CHECK_READS 64
#define HD_CHECK_READS_CN 8

/* Idle processes kept known at most (hd_reg.c). */
#define HD_IDLE_MAX 64

struct helperd {
	/* Configuration. */
	const char *statedir;
	const char *device;	/* e.g. /dev/dtrace/helper */
	char *mountpoint;	/* its directory (FUSE) */
	char *node;		/* its last component */
	int verbose;
	bool foreground;
	bool scan;		/* look for earlier processes at start */
	unsigned check_ms;	/* period of the liveness check */
	uint64_t max_dof;	/* one blob */
	uint64_t max_proc_bytes; /* all blobs of one process */
	unsigned max_proc_regs;	 /* registrations per process */
	uint64_t max_uid_bytes;	 /* all blobs of one user (not root) */
	unsigned max_uid_regs;	 /* registrations of one user */
	uint64_t max_total_bytes;
	uint64_t refused_rate;	/* refused DOF bytes a user may cost / s */
	uint64_t refused_burst;	/* ... and at once (hd_reg.c: debts) */
	unsigned pidfd_max;	/* pidfds in all (hd_fd_budget) */
	unsigned pidfd_uid_max;	/* pidfds for one user's processes (not root) */

	/* State. */
	struct hd_proc **procs;
	size_t nprocs, procs_cap;
	unsigned npidfd;	/* processes watched through a pidfd */
	unsigned nidle;		/* ... of which idle */
	struct hd_debt *debts;	/* refused work per user (not root) */
	size_t ndebts;
	bool pidfd_cap_logged;	/* "watched by the periodic check" said once */
	uint64_t total_bytes;
	uint64_t next_gen;
	int epfd;
	int cn_fd;		/* process connector (hd_fork.c), or -1 */
	bool follows_fork;	/* cn_fd works: fork children are copied */
	bool persist_failed; /* logged once until it works again */
	size_t check_next;	/* the periodic check's next process */
	pid_t *unlink_pending; /* files of gone processes left to remove */
	size_t n_unlink;
	struct pollfd *check_pfd; /* the periodic check's poll of the pidfds */
	size_t check_pfd_cap;

	/* The queue (hd_queue.c). */
	unsigned settle_ms;	/* a registration is validated this late */
	struct hd_job *jobs, *jobs_tail;
	size_t njobs;		/* not cancelled */
	uint64_t job_seq;	/* the next job's */
	uint64_t hurry_seq;	/* jobs before it are validated at once */
	unsigned nfetching;	/* jobs read or waiting for the checker */
	struct hd_job *checking;
	uid_t rr_uid;		/* the user whose job was fetched last */
	int queue_tfd;
	uint64_t queue_armed;	/* when queue_tfd fires, 0: disarmed */
	bool queue_kick;	/* something for hd_queue_run() */
	struct hd_sync *syncs;
	size_t nsyncs, syncs_cap;
	struct hd_refused refused[HD_REFUSED_KEEP];
	unsigned refused_next;

	/*
	 * Counters, logged at exit with -v and at SIGUSR1 (helperd.c's
	 * log_counts()): n_owed counts the ADDDOFs refused for a user's
	 * debt (in n_rejected too), n_checked and b_checked the blobs read
	 * and sent to the checker and their bytes -- the daemon's work,
	 * which a flood must not raise past what the debts let through.
	 */
	uint64_t n_added, n_removed, n_rejected, n_pruned, n_scanned;
	uint64_t n_owed, n_checked, b_checked;
};

/* Epoll tags: the low 32 bits carry a pid for HD_EV_PIDFD. */
#define HD_EV_DEVICE (1ULL << 32)
#define HD_EV_SIGNAL (2ULL << 32)
#define HD_EV_TIMER (3ULL << 32)
#define HD_EV_PIDFD (4ULL << 32)
#define HD_EV_PROC (5ULL << 32)
#define HD_EV_FORKTIMER (6ULL << 32)
#define HD_EV_QUEUE (7ULL << 32)   /* the queue's timerfd */
#define HD_EV_FETCHED (8ULL << 32) /* the workers' eventfd */
#define HD_EV_CHECK (9ULL << 32)   /* the checker's pipes */
#define HD_EV_TARPIT (10ULL << 32) /* held refusals' timerfd */
#define HD_EV_SOCK (11ULL << 32)   /* the datagram socket (hd_sock.c) */
#define HD_EV_SOCKTIMER (12ULL << 32) /* its reads paused: resume */

/* ---- hd_daemon.c ----------------------------------------------------- */

/* Create and lock statedir (helperd.pid); the locked fd, or -1 (logged). */
int hd_lock_statedir(const char *statedir);

/* Raise the descriptor limit; set hd->pidfd_max and pidfd_uid_max. */
void hd_fd_budget(struct helperd *hd);
/* Record our pid in the lock file. */
void hd_write_pid(int fd);
/*
 * <statedir>/device names the device readers SYNC with (sdk/registry.c):
 * written once it serves (up), removed before and after.
 */
void hd_device_file(struct helperd *hd, bool up);
/* Fork; the parent exits once the child writes to the returned fd. */
int hd_background(void);
/* stdin, stdout and stderr to /dev/null. */
void hd_detach_stdio(void);
/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
void hd_notify(const char *msg);

/* ---- hd_ioctl.c ------------------------------------------------------ */

/*
 * What an ioctl request needs.  The FUSE kernel side copies in the
 * _IOC_SIZE bytes of a "restricted" ioctl before asking us; CUSE, which
 * allows "unrestricted" ioctls, hands over only the raw argument, and the
 * driver asks the kernel to retry with the ranges it wants read.
 */
enum hd_ioctl_action {
	HD_IOCTL_ADDDOF,  /* hd_ioctl_req.helper is filled */
	HD_IOCTL_REMOVE,  /* .gen is filled */
	HD_IOCTL_SYNC,	  /* .gen is filled */
	HD_IOCTL_REMOVEDOF, /* .helper is filled */
	HD_IOCTL_RETRY,	  /* fetch .retry_len bytes at .retry_addr first */
	HD_IOCTL_BADCMD,  /* not ours: ENOTTY */
	HD_IOCTL_BADARG,  /* ours, but the argument is short: EFAULT/EINVAL */
};

struct hd_ioctl_req {
	enum hd_ioctl_action action;
	dof_helper_t helper;
	int gen;
	uint64_t retry_addr;
	size_t retry_len;
};

/*
 * cmd and arg as the kernel passed them, in/in_len the bytes it copied
 * in; unrestricted says whether a retry is possible (CUSE).  The classic
 * ABI passed REMOVE's generation by value: on CUSE an argument below
 * DTRACE_HELPER_REMOVE_BYVALUE_MAX is taken as that value, anything else
 * as a pointer (usdt/helper_abi.h).
 */
void hd_ioctl_decode(unsigned int cmd, uint64_t arg, const void *in,
		     size_t in_len, bool unrestricted, struct hd_ioctl_req *r);

/* ---- hd_reg.c -------------------------------------------------------- */

/* Load <statedir>/registry, dropping dead processes; sets next_gen. */
int hd_reg_load(struct helperd *hd);

/*
 * ADDDOF from thread tid, req the request to answer: what can be told
 * at once is (the caller, its module name, its debt and quotas); the
 * rest -- reading, checking, relocating and recording the DOF -- is
 * queued (hd_queue.c).  Returns the generation (> 0: answer it now), 0
 * (req is answered when the queue is done with it) or a negative errno;
 * every refusal is logged with the pid and the reason.
 */
int hd_reg_adddof(struct helperd *hd, pid_t tid, uid_t cuid,
		  const dof_helper_t *h, void *req);

/*
 * ADDDOF from a datagram of process pid (the kernel's credentials, uid
 * cuid), thread tid as the message claims (pid when it is not one of
 * pid's): queued like an ADDDOF answered early, nobody answered.  0, or
 * -errno when it was refused (logged).
 */
int hd_reg_adddof_dgram(struct helperd *hd, pid_t pid, pid_t tid, uid_t cuid,
			const dof_helper_t *h);

/* The same for the scan, done before it returns: the generation or -errno. */
int hd_reg_adddof_now(struct helperd *hd, pid_t pid, const dof_helper_t *h,
		      enum reg_origin origin);

/* The queue's stages (hd_queue.c): 0 to go on, or -errno (refused). */
int hd_reg_job_owes(struct helperd *hd, struct hd_job *j);
int hd_reg_job_fetched(struct helperd *hd, struct hd_job *j, int err);
/* The checker's answer; the generation once recorded, or -errno. */
int hd_reg_job_checked(struct helperd *hd, struct hd_job *j, int err,
		       const uint64_t *sites, size_t nsites,
		       const struct dof_err *derr);
/* j is over (rc: its outcome, or -ECANCELED): its process's count. */
void hd_reg_job_end(struct helperd *hd, struct hd_job *j, int rc);
/* The process a request of thread tid comes from, or -errno. */
pid_t hd_reg_pid_of(struct helperd *hd, pid_t tid, uid_t cuid);
/* Whether pid holds a recorded registration under gen. */
bool hd_reg_has_gen(struct helperd *hd, pid_t pid, uint64_t gen);
/* Write every process whose file is behind (before a SYNC is answered). */
void hd_reg_flush(struct helperd *hd);

/*
 * REMOVE generation gen of tid's process: 0 or -errno.  cuid: the uid
 * the kernel reports for the request, or (uid_t)-1 (hd_reg.c: known
 * processes).
 */
int hd_reg_remove(struct helperd *hd, pid_t tid, uid_t cuid, int gen);

/*
 * REMOVE by DOF address from thread tid (uid cuid); dgram_pid: the
 * process the kernel named for a datagram, else 0.  0 or -errno.
 */
int hd_reg_remove_dof(struct helperd *hd, pid_t tid, uid_t cuid,
		      pid_t dgram_pid, uint64_t addr);

/* Forget everything about pid (it exited). */
void hd_reg_prune_pid(struct helperd *hd, pid_t pid, const char *why);

/*
 * A pidfd tagged with pid is ready (HD_EV_PIDFD): prune the record at
 * pid only if its own process has exited (its pidfd, else /proc) -- the
 * event may be that of a former process at a reused pid (hd_reg.c).
 */
void hd_reg_pidfd_ready(struct helperd *hd, pid_t pid);

/*
 * The periodic check: drop processes that are gone and registrations
 * whose DOF is no longer mapped where it was (exec, dlclose without a
 * REMOVE, munmap).
 */
void hd_reg_check(struct helperd *hd);

/*
 * Queue h for fork child `child` under generation gen (its parent's),
 * to be checked as ADDDOF checks (hd_fork.c): 0, or -errno (-ESRCH,
 * -ENOENT: the child is gone).
 */
int hd_reg_copy(struct helperd *hd, pid_t child, const dof_helper_t *h,
		uint64_t gen);
/*
 * The connector saw pid's leader exit (the process may live on without
 * it), or lost events (pid -1: any process): ask its pidfd again.
 */
void hd_reg_exit_seen(struct helperd *hd, pid_t pid);
/* pid's registrations, or NULL. */
const struct reg_proc *hd_reg_proc(struct helperd *hd, pid_t pid);

/* True if pid has a registration (or one queued) with its DOF at dof_addr. */
bool hd_reg_has(struct helperd *hd, pid_t pid, uint64_t dof_addr);

void hd_reg_free(struct helperd *hd);

/* Read len bytes at addr in pid's memory: 0 or -errno (-EFAULT if short). */
int hd_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len);

/* The thread group (process) of a thread, or -errno; its real uid. */
pid_t hd_tgid(pid_t tid, uid_t *uid);

/* ---- hd_guard.c: reads of other processes that cannot hang us ------- */

/*
 * proc_maps_read (sdk/procfs.h), hd_read_mem and an environment lookup
 * on a worker thread with a time limit: -ETIMEDOUT (abandoned) or
 * -EAGAIN (reads of this process or user, or too many in all, are
 * stuck).  uid: the process's
 * owner, for the per-user limit on stuck reads.
 */
int hd_guard_maps(pid_t pid, uid_t uid, struct proc_maps *mm);
int hd_guard_read_mem(pid_t pid, uid_t uid, uint64_t addr, void *buf,
		      size_t len);
bool hd_guard_env_has(pid_t pid, uid_t uid, const char *var);

/* Is device dev (in pid's mount namespace) a FUSE file system? */
bool hd_on_fuse(pid_t pid, uint64_t dev, char *type, size_t typelen);

/*
 * What a registration needs from the caller, fetched in one go on the
 * worker: its mappings, then len bytes at addr (len 0: a DOF blob, its
 * length from its header, checked with dof_check_hdr() against max).
 * Non-resident pages of FUSE-backed files are refused, not read.
 */
enum hd_fetch_stage { HD_FETCH_MAPS = 1, HD_FETCH_READ, HD_FETCH_HDR };

struct hd_fetch {
	struct proc_maps mm; /* out */
	uint8_t *buf;	   /* out, malloc'ed */
	size_t len;	   /* in (0: a DOF blob), out */
	uint64_t max;	   /* in */
	enum hd_fetch_stage stage; /* out: where it failed */
	struct dof_err derr;	   /* HD_FETCH_HDR */
	char why[256];		   /* the other stages */
};

/* 0, or -errno with stage and why/derr set and nothing to free. */
int hd_guard_fetch(pid_t pid, uid_t uid, uint64_t addr, size_t len,
		   uint64_t max, struct hd_fetch *out);
void hd_fetch_free(struct hd_fetch *f);

/*
 * The queue's reads of DOF blobs: handed to workers and never waited
 * for, tag the caller's.  begin: 0 (running; the eventfd of
 * hd_guard_event_fd() becomes readable when one ends), 1 (done
 * already), -EAGAIN (reads of this process or user are stuck: refused).
 * end: the tag of one that is over, with *out and *rc as from
 * hd_guard_fetch(), else NULL.  expire: the same for one past its
 * deadline (-ETIMEDOUT; its worker is given up as hd_guard_fetch()
 * gives it up).
 */
int hd_guard_event_fd(void);
int hd_guard_fetch_begin(pid_t pid, uid_t uid, uint64_t addr, uint64_t max,
			 void *tag);
void *hd_guard_fetch_end(struct hd_fetch *out, int *rc);
uint64_t hd_guard_fetch_deadline(void); /* the first; 0: none running */
void *hd_guard_fetch_expire(uint64_t now, struct hd_fetch *out, int *rc);

/* ---- hd_check.c: the seccomp-confined DOF checker --------------------- */

/*
 * Check and relocate (in place) len bytes of DOF in the checker child,
 * one request at a time, without blocking: begin returns 1 when the
 * answer is in already (remembered, or no checker), 0 when the request
 * is under way (hd_check_step() moves it on when the checker's pipes are
 * ready, and says true once the answer is in), -EBUSY if one is.  end
 * takes the answer: 0 with *sites (malloc'ed) holding *nsites site
 * addresses, or -EINVAL/-E2BIG with err filled (err->code 0 when the
 * checker itself failed), or -EAGAIN when no checker could be started.
 * The checker's pipes are watched through epfd with tag.
 */
void hd_check_epoll(int epfd, uint64_t tag);
int hd_check_begin(uint64_t max, uint8_t *dof, size_t len, uint64_t base);
bool hd_check_step(void);
int hd_check_end(uint64_t **sites, size_t *nsites, struct dof_err *err);
uint64_t hd_check_deadline(void); /* 0: nothing under way */
bool hd_check_expire(uint64_t now); /* past it: the answer is a failure */
int hd_check_fd_wanted(short *events); /* for poll(2), or -1 */
void hd_check_set_timeout(unsigned ms);
unsigned hd_check_timeout(void);
void hd_check_stop(void);

/* ---- hd_queue.c ------------------------------------------------------ */

/* The queue's timerfd; -1 (logged) if it cannot be made. */
int hd_queue_start(struct helperd *hd);
/*
 * A job of thread tid's process pid for h: gen 0 takes the next
 * generation.  early: answered now (counted for SYNC); else req, if not
 * NULL, is answered when it ends.  NULL without memory or room.
 */
struct hd_job *hd_queue_add(struct helperd *hd, pid_t pid, pid_t tid,
			    uid_t uid, const dof_helper_t *h, uint64_t gen,
			    enum reg_origin origin, bool early, void *req);
/* Whether uid may be answered before validation (caps, hd_queue.c). */
bool hd_queue_may_answer_early(struct helperd *hd, uid_t uid);
/* Move every job on as far as it goes; re-arm the timer. */
void hd_queue_run(struct helperd *hd);
/*
 * Run the queue until j is over: its outcome (gen or -errno), or
 * -ETIMEDOUT once CLOCK_MONOTONIC passes until (0: no limit).
 */
int hd_queue_wait(struct helperd *hd, struct hd_job *j, uint64_t until);
/* REMOVE of a queued generation: true if it was one (it is dropped; *h
 * gets what it registered). */
bool hd_queue_cancel(struct helperd *hd, pid_t pid, uint64_t gen,
		     dof_helper_t *h);
/* pid is forgotten: drop its jobs, answer their requests (ESRCH). */
void hd_queue_cancel_pid(struct helperd *hd, pid_t pid);
/* The same for a job of pid's at DOF address addr (the oldest). */
bool hd_queue_cancel_dof(struct helperd *hd, pid_t pid, uint64_t addr,
			 dof_helper_t *h);
/* A refusal of (pid, gen) remembered: its errno (> 0), else 0; forget it. */
int hd_queue_refused(struct helperd *hd, pid_t pid, uint64_t gen, bool forget);
/* pid's queued registrations, for a fork child: how many (at most max). */
size_t hd_queue_pending_of(struct helperd *hd, pid_t pid, dof_helper_t *hv,
			   uint64_t *gv, size_t max);
bool hd_queue_has(struct helperd *hd, pid_t pid, uint64_t dof_addr);
/*
 * SYNC from thread tid: 0 or -errno to answer now, 1 when req is held
 * until the queue has done what the caller waits for.
 */
int hd_queue_sync(struct helperd *hd, pid_t tid, uid_t cuid, int gen,
		  void *req);
/* At exit: validate what is queued, for at most ms milliseconds. */
void hd_queue_drain(struct helperd *hd, unsigned ms);
void hd_queue_stop(struct helperd *hd);

/* ---- hd_tarpit.c: a user in debt waits for its refusal --------------- */

/* Its timerfd in the loop; -1 (logged): refusals are answered at once. */
int hd_tarpit_start(struct helperd *hd);
/*
 * Hold req, to be answered EBUSY once owed_over bytes are paid back at
 * rate bytes a second (1 ms to 1 s): true if held, false to answer now.
 */
bool hd_tarpit_hold(void *req, double owed_over, double rate);
/* The timer fired: answer what is due. */
void hd_tarpit_run(void);
/* At exit: answer everything held. */
void hd_tarpit_stop(void);

/* ---- hd_fork.c: fork and exec from the kernel's process connector ---- */

/*
 * Listen for process events; sets hd->cn_fd and hd->follows_fork where
 * the kernel answers (logged otherwise).  Always 0: without it, fork
 * children register themselves.
 */
int hd_fork_start(struct helperd *hd);
/* Apply every queued fork and exec event: before any request is served. */
void hd_fork_drain(struct helperd *hd);
void hd_fork_stop(struct helperd *hd);
/* The settle timer fired: register the children old enough. */
void hd_fork_timer(struct helperd *hd);
/*
 * Requests of a child not registered yet: REMOVE of an inherited
 * generation (true: done, nothing to register); anything else registers
 * the child's inheritance first (hd_fork_settle).
 */
bool hd_fork_remove(struct helperd *hd, pid_t tid, int gen);
void hd_fork_settle(struct helperd *hd, pid_t tid);
/* Strike what pid inherited, pending, at DOF address addr: how many. */
unsigned hd_fork_remove_dof(struct helperd *hd, pid_t pid, uint64_t addr);
/* Register every pending child now (a SYNC wants them listed). */
void hd_fork_settle_all(struct helperd *hd);

/* ---- hd_sock.c: registrations by datagram ---------------------------- */

/* Bind path and watch it; -1 (logged): the device alone serves. */
int hd_sock_start(struct helperd *hd, const char *path);
/* The socket is readable: read what the budget allows. */
void hd_sock_run(struct helperd *hd);
/* The budget's timer fired. */
void hd_sock_timer(struct helperd *hd);
/* After the queue moved: read again once no user has too much unchecked. */
void hd_sock_poll(struct helperd *hd);
/*
 * Before a request that must come after every datagram sent before it
 * (ADDDOF, REMOVEDOF, SYNC of everything): read the socket until it is empty,
 * or a full queue's worth.
 */
void hd_sock_barrier(struct helperd *hd);
/* Unlink the socket, read what is left in it, close it. */
void hd_sock_stop(struct helperd *hd);

/* ---- hd_scan.c ------------------------------------------------------- */

/* Register the DOF of every process running now; returns how many. */
unsigned hd_scan_all(struct helperd *hd);

/* ---- hd_dev.c -------------------------------------------------------- */

enum hd_backend { HD_BACKEND_AUTO, HD_BACKEND_FUSE, HD_BACKEND_CUSE };

struct hd_dev;

/* Mount (FUSE) or create (CUSE) the device; NULL after logging why. */
struct hd_dev *hd_dev_start(struct helperd *hd, enum hd_backend backend);
int hd_dev_fd(struct hd_dev *dev);
/* Serve what is waiting on the fd: 0, or -1 when the session ended. */
int hd_dev_process(struct hd_dev *dev);
void hd_dev_stop(struct hd_dev *dev);
const char *hd_dev_kind(const struct hd_dev *dev);
/* Answer a held ioctl request: rc >= 0 is its result, < 0 an errno. */
void hd_dev_reply(void *req, int rc);
/* Whether /dev/cuse can be used (the auto backend's choice). */
bool hd_dev_cuse_available(void);

/* CLOCK_MONOTONIC in nanoseconds: deadlines, timers and settle times */
static inline uint64_t hd_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* USDT_HELPERD_H */
