// SPDX-License-Identifier: MIT
/*
 * hd_guard.c - read another process's memory without letting it hang us.
 *
 * Every registration makes the daemon read the caller's memory
 * (process_vm_readv) and mappings (/proc/PID/maps).  A hostile caller
 * can make such a read block forever: point dofhp_dof at a page of a
 * file on a FUSE file system it serves itself and never answer the read
 * -- the reading thread then sleeps uninterruptibly in the page fault
 * (measured: folio_wait_bit_common under process_vm_readv).  Once that
 * read is stuck, the caller can also queue an mmap_lock writer, and
 * /proc/PID/maps blocks too.  So the daemon's loop never reads another
 * process itself.  Two defences:
 *
 *  1. Before reading, hd_foreign_read() looks at the mappings the range
 *     lies in.  A file mapping on a FUSE file system (told from the
 *     target's /proc/PID/mountinfo by device number, which asks nothing
 *     of the file system) must be resident page by page, per
 *     /proc/PID/pagemap; otherwise the read is refused.  A real program's
 *     DOF passes: ld.so's relocations and drti's header check have
 *     touched its pages, and it rarely lives on FUSE at all.
 *  2. Every read of a foreign process runs on a worker thread.  The
 *     loop either waits for it at most HD_GUARD_TIMEOUT_MS (the periodic
 *     check, the start-up scan) or hands it over and is woken by an
 *     eventfd when it is done (hd_guard_fetch_begin(): the queue's read
 *     of a blob, hd_queue.c), its deadline the same.  A read that takes
 *     longer is abandoned: the request fails with ETIMEDOUT, the stuck
 *     worker frees its job whenever it wakes and exits, and the next read
 *     gets a new worker.  A process with a stuck reader gets EAGAIN at
 *     once until that reader returns; so does a user other than root
 *     whose processes hold HD_GUARD_STUCK_PER_UID stuck readers, and
 *     everyone once HD_GUARD_STUCK_MAX are stuck -- so one user's
 *     stalled file systems cost other users nothing.  (A racing caller
 *     can still defeat check 1 by remapping between the check and the
 *     read; check 2 bounds that.)
 *
 * Workers.  A job not picked up by an idle worker gets a new one, so a
 * wait never sits behind the queue's read; a worker that finds another
 * one idle when it is done exits, so one idles at most.  A worker reads
 * for the queue at a lower priority than the loop, and for a wait of
 * the loop's at the loop's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "helperd.h"

#define HD_GUARD_TIMEOUT_MS 2000
#define HD_GUARD_STUCK_MAX 64	  /* stuck workers in all */
#define HD_GUARD_STUCK_PER_UID 4 /* ... reading one user's processes */

enum job_kind { JOB_MEM, JOB_MAPS, JOB_ENV, JOB_FETCH };

struct job {
	enum job_kind kind;
	pid_t pid;
	uid_t uid;
	uint64_t addr;
	size_t len;
	void *buf;	     /* JOB_MEM: len bytes */
	struct hd_fetch *fetch; /* JOB_FETCH, owned by the job */
	struct proc_maps maps; /* JOB_MAPS */
	const char *var;     /* JOB_ENV, static storage */
	bool found;	     /* JOB_ENV */
	int rc;
	bool async;	     /* nobody waits: the worker signals efd */
	void *tag;	     /* async: the caller's */
	uint64_t t0;	     /* async: when it was handed over */
	struct job *anext;   /* async: async_jobs */
	bool picked;	     /* a worker has it */
	bool done;
	bool abandoned;
	struct job *next;    /* the queue */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_job = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cv_done = PTHREAD_COND_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct job *qhead, *qtail; /* not picked up yet, in order */
static unsigned qlen;		  /* jobs in it */
static unsigned nidle;		  /* workers waiting for a job */
static unsigned stuck;
static int efd = -1;		  /* eventfd: an asynchronous job is done */
static struct job *async_jobs;	  /* hd_guard_fetch_begin()'s, in flight */
/* Whose reads are stuck: one slot per abandoned worker. */
static struct {
	pid_t pid;
	uid_t uid;
} stuck_by[HD_GUARD_STUCK_MAX];

static void stuck_add(const struct job *j)
{
	unsigned i;

	for (i = 0; i < HD_GUARD_STUCK_MAX; i++)
		if (!stuck_by[i].pid) {
			stuck_by[i].pid = j->pid;
			stuck_by[i].uid = j->uid;
			break;
		}
	stuck++;
}

static void stuck_del(const struct job *j)
{
	unsigned i;

	for (i = 0; i < HD_GUARD_STUCK_MAX; i++)
		if (stuck_by[i].pid == j->pid && stuck_by[i].uid == j->uid) {
			stuck_by[i].pid = 0;
			break;
		}
	stuck--;
}

/* Why j may not run now, or NULL. */
static const char *stuck_refuse(const struct job *j)
{
	unsigned i, same_uid = 0;

	if (stuck >= HD_GUARD_STUCK_MAX)
		return "too many readers stuck in stalled file systems";
	for (i = 0; i < HD_GUARD_STUCK_MAX; i++) {
		if (!stuck_by[i].pid)
			continue;
		if (stuck_by[i].pid == j->pid)
			return "an earlier read of this process is still stuck";
		if (stuck_by[i].uid == j->uid)
			same_uid++;
	}
	/* root is exempt: its processes can stop the daemon anyway. */
	return j->uid != 0 && same_uid >= HD_GUARD_STUCK_PER_UID ?
		       "too many reads of this user's processes are stuck" :
		       NULL;
}

static void fetch_free(struct hd_fetch *f)
{
	if (!f)
		return;
	proc_maps_free(&f->mm);
	free(f->buf);
	free(f);
}

static void job_free(struct job *j)
{
	free(j->buf);
	proc_maps_free(&j->maps);
	fetch_free(j->fetch);
	free(j);
}

static int fetch(pid_t pid, uint64_t addr, struct hd_fetch *f);
static void run(struct job *j);
static void *worker(void *arg);
static void unqueue(struct job *j);

static int read_pagemap(pid_t pid, uint64_t addr, size_t npages,
			uint64_t *out)
{
	char path[64];
	size_t done = 0;
	int fd;

	(void)proc_path(path, sizeof(path), pid, "pagemap");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < npages * 8) {
		ssize_t n = pread(fd, (char *)out + done, npages * 8 - done,
				  (off_t)((addr / 4096) * 8 + done));

		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

static bool env_has(pid_t pid, const char *var)
{
	char path[64], *buf = NULL;
	size_t len = 0, vlen = strlen(var);
	bool found = false;
	FILE *fp;

	(void)proc_path(path, sizeof(path), pid, "environ");
	fp = fopen(path, "re");
	if (!fp)
		return false;
	while (getdelim(&buf, &len, '\0', fp) > 0)
		if (!strncmp(buf, var, vlen) && buf[vlen] == '=') {
			found = true;
			break;
		}
	free(buf);
	fclose(fp);
	return found;
}

static void run(struct job *j)
{
	switch (j->kind) {
	case JOB_MEM:
		j->rc = hd_read_mem(j->pid, j->addr, j->buf, j->len);
		break;
	case JOB_MAPS:
		j->rc = proc_maps_read(j->pid, &j->maps);
		break;
	case JOB_FETCH:
		j->rc = fetch(j->pid, j->addr, j->fetch);
		break;
	case JOB_ENV:
		j->found = env_has(j->pid, j->var);
		j->rc = 0;
		break;
	}
}

/* Run j on a worker: the queue's head, or a new worker if none idles. */
static int enqueue(struct job *j)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	j->next = NULL;
	if (qtail)
		qtail->next = j;
	else
		qhead = j;
	qtail = j;
	qlen++;
	/* Each job not picked up yet needs a worker of its own. */
	if (qlen <= nidle) {
		pthread_cond_signal(&cv_job);
		return 0;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	err = pthread_create(&t, &attr, worker, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		unqueue(j);
		return -err;
	}
	return 0;
}

static void unqueue(struct job *j)
{
	struct job **pp;

	for (pp = &qhead; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			qlen--;
			break;
		}
	qtail = NULL;
	for (struct job *k = qhead; k; k = k->next)
		qtail = k;
}

static void *worker(void *arg)
{
	int nice = 0;

	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct job *j;

		while (!qhead) {
			nidle++;
			pthread_cond_wait(&cv_job, &mu);
			nidle--;
		}
		j = qhead;
		unqueue(j);
		j->picked = true;
		pthread_mutex_unlock(&mu);
		/*
		 * The queue's reads yield to answering requests; a read the
		 * loop waits for does not (root may go back to 0).
		 */
		if (nice != (j->async ? 5 : 0) &&
		    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
				j->async ? 5 : 0) == 0)
			nice = j->async ? 5 : 0;
		run(j);
		pthread_mutex_lock(&mu);
		if (j->abandoned) {
			/* The daemon gave up on us and reads elsewhere now. */
			stuck_del(j);
			pthread_mutex_unlock(&mu);
			job_free(j);
			return NULL;
		}
		j->done = true;
		if (j->async) {
			uint64_t one = 1;

			if (write(efd, &one, sizeof(one)) < 0) {
				/* a full counter is still readable */
			}
		} else {
			pthread_cond_broadcast(&cv_done);
		}
		/* One idle worker is enough; the others leave. */
		if (!qhead && nidle) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
	}
}

/* The deadline is on the monotonic clock: a clock step must not matter. */
static void init_once(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&cv_done);
	pthread_cond_init(&cv_done, &ca);
	pthread_condattr_destroy(&ca);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/* j, picked by a worker that did not come back in time: give it up. */
static void abandon(struct job *j)
{
	unsigned nstuck;
	pid_t pid = j->pid;

	j->abandoned = true; /* the worker frees it: j is not ours now */
	stuck_add(j);
	nstuck = stuck;
	pthread_mutex_unlock(&mu);
	hd_log(HD_WARN, "pid %d: reading its memory took over %d ms (a "
	       "stalled file system?); gave up, %u reader(s) stuck",
	       (int)pid, HD_GUARD_TIMEOUT_MS, nstuck);
	pthread_mutex_lock(&mu);
}

/* Run j on a worker and wait; 0 with j done, or -ETIMEDOUT/-EAGAIN (j is gone). */
static int submit(struct job *j)
{
	struct timespec until;
	const char *refusal;
	int err = 0;

	pthread_once(&once, init_once);
	pthread_mutex_lock(&mu);
	refusal = stuck_refuse(j);
	if (refusal) {
		pthread_mutex_unlock(&mu);
		hd_log(HD_DEBUG, "pid %d: %s", (int)j->pid, refusal);
		job_free(j);
		return -EAGAIN;
	}
	if (enqueue(j) < 0) {
		pthread_mutex_unlock(&mu);
		/* No thread: read directly, unguarded, still correct. */
		run(j);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += HD_GUARD_TIMEOUT_MS / 1000;
	until.tv_nsec += (long)(HD_GUARD_TIMEOUT_MS % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (!j->done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&cv_done, &mu, &until);
	if (j->done) {
		pthread_mutex_unlock(&mu);
		return 0;
	}
	if (!j->picked) {
		/* Never picked up (no worker could start?): take it back. */
		unqueue(j);
		pthread_mutex_unlock(&mu);
		job_free(j);
		return -ETIMEDOUT;
	}
	abandon(j);
	pthread_mutex_unlock(&mu);
	return -ETIMEDOUT;
}

static struct job *job_new(enum job_kind kind, pid_t pid, uid_t uid)
{
	struct job *j = calloc(1, sizeof(*j));

	if (j) {
		j->kind = kind;
		j->pid = pid;
		j->uid = uid;
	}
	return j;
}

int hd_guard_maps(pid_t pid, uid_t uid, struct proc_maps *mm)
{
	struct job *j = job_new(JOB_MAPS, pid, uid);
	int err;

	mm->m = NULL;
	mm->n = 0;
	if (!j)
		return -ENOMEM;
	err = submit(j);
	if (err)
		return err;
	err = j->rc;
	*mm = j->maps;
	j->maps.m = NULL;
	j->maps.n = 0;
	job_free(j);
	return err;
}

bool hd_guard_env_has(pid_t pid, uid_t uid, const char *var)
{
	struct job *j = job_new(JOB_ENV, pid, uid);
	bool found;

	if (!j)
		return false;
	j->var = var;
	if (submit(j))
		return false;
	found = j->found;
	job_free(j);
	return found;
}

int hd_guard_read_mem(pid_t pid, uid_t uid, uint64_t addr, void *buf,
		      size_t len)
{
	struct job *j = job_new(JOB_MEM, pid, uid);
	int err;

	if (!j)
		return -ENOMEM;
	j->addr = addr;
	j->len = len;
	j->buf = malloc(len ? len : 1);
	if (!j->buf) {
		free(j);
		return -ENOMEM;
	}
	err = submit(j);
	if (err)
		return err;
	err = j->rc;
	if (!err)
		memcpy(buf, j->buf, len);
	job_free(j);
	return err;
}

/*
 * The file system type of device dev in pid's mount namespace, from
 * /proc/PID/mountinfo ("36 35 0:45 / /mnt rw - fuse.sshfs host rw"), into
 * type; false if not found.
 */
static bool fs_type(pid_t pid, uint64_t dev, char *type, size_t typelen)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *fp;

	(void)proc_path(path, sizeof(path), pid, "mountinfo");
	fp = fopen(path, "re");
	if (!fp)
		return false;
	while (!found && getline(&line, &cap, fp) > 0) {
		unsigned maj, min;
		char *sep;

		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		sep = strstr(line, " - ");
		if (sep && sscanf(sep + 3, "%63s", type) == 1) {
			type[typelen - 1] = '\0';
			found = true;
		}
	}
	free(line);
	fclose(fp);
	return found;
}

bool hd_on_fuse(pid_t pid, uint64_t dev, char *type, size_t typelen)
{
	char path[64];

	/* FUSE devices are anonymous (major 0), like tmpfs: skip the rest. */
	if (major(dev) != 0)
		return false;
	/* The FUSE control file system names every live connection. */
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u",
		 minor(dev));
	if (access(path, F_OK) == 0) {
		snprintf(type, typelen, "fuse");
		return true;
	}
	if (!fs_type(pid, dev, type, typelen)) {
		/*
		 * Not mounted anywhere the process can see: a mount detached
		 * with umount -l (or fusermount3 -u -z) keeps serving pages.
		 * Treat it as FUSE rather than read what may never arrive.
		 */
		snprintf(type, typelen, "a detached anonymous-device mount");
		return true;
	}
	return !strcmp(type, "fuse") || !strcmp(type, "fuseblk") ||
	       !strncmp(type, "fuse.", 5);
}

/*
 * Read len bytes at addr, refusing non-resident pages of FUSE-backed
 * files.  Runs on the worker (it may block), so it calls nothing guarded.
 */
static int foreign_read(pid_t pid, const struct proc_maps *mm, uint64_t addr,
			void *buf, size_t len, char *msg, size_t msglen)
{
	uint64_t end = addr + len, a;
	size_t i;
	int err;

	if (end < addr) {
		snprintf(msg, msglen, "range wraps around");
		return -EFAULT;
	}
	for (a = addr; a < end;) {
		const struct proc_map *m = proc_maps_find(mm, a);
		char type[64] = "";
		uint64_t lo, hi, npages, *pm;

		if (!m) {
			snprintf(msg, msglen, "0x%" PRIx64 " is not mapped", a);
			return -EFAULT;
		}
		hi = m->end < end ? m->end : end;
		if (m->ino && hd_on_fuse(pid, m->dev, type, sizeof(type))) {
			lo = a & ~(uint64_t)4095;
			npages = (hi - lo + 4095) / 4096;
			pm = calloc(npages, 8);
			if (!pm)
				return -ENOMEM;
			err = read_pagemap(pid, lo, npages, pm);
			for (i = 0; !err && i < npages; i++)
				if (!(pm[i] >> 63 & 1)) /* not present */
					err = -EAGAIN;
			free(pm);
			if (err) {
				snprintf(msg, msglen, "0x%" PRIx64 " is in a "
					 "file on a FUSE file system (%s) and "
					 "not resident; not read, so that a "
					 "stalled file system cannot hang the "
					 "helper", a, type);
				return err == -EAGAIN ? -EFAULT : err;
			}
		}
		a = hi;
	}
	err = hd_read_mem(pid, addr, buf, len);
	if (err)
		snprintf(msg, msglen, "%s", strerror(-err));
	return err;
}

/* The whole of hd_guard_fetch(), on the worker: one hand-off per request. */
static int fetch(pid_t pid, uint64_t addr, struct hd_fetch *f)
{
	uint8_t hdr[sizeof(dof_hdr_t)];
	uint64_t loadsz;
	int err;

	f->stage = HD_FETCH_MAPS;
	err = proc_maps_read(pid, &f->mm);
	if (err) {
		snprintf(f->why, sizeof(f->why), "cannot read its mappings: "
			 "%s", strerror(-err));
		return err;
	}
	if (!f->len) {
		f->stage = HD_FETCH_READ;
		err = foreign_read(pid, &f->mm, addr, hdr, sizeof(hdr), f->why,
				   sizeof(f->why));
		if (err)
			return err;
		f->stage = HD_FETCH_HDR;
		err = dof_check_hdr(hdr, sizeof(hdr), f->max, &loadsz,
				    &f->derr);
		if (err)
			return err;
		f->len = (size_t)loadsz;
	}
	f->stage = HD_FETCH_READ;
	f->buf = malloc(f->len ? f->len : 1);
	if (!f->buf) {
		snprintf(f->why, sizeof(f->why), "out of memory for %zu bytes",
			 f->len);
		return -ENOMEM;
	}
	return foreign_read(pid, &f->mm, addr, f->buf, f->len, f->why,
			    sizeof(f->why));
}

int hd_guard_fetch(pid_t pid, uid_t uid, uint64_t addr, size_t len,
		   uint64_t max, struct hd_fetch *out)
{
	struct job *j = job_new(JOB_FETCH, pid, uid);
	int err;

	memset(out, 0, sizeof(*out));
	if (j)
		j->fetch = calloc(1, sizeof(*j->fetch));
	if (!j || !j->fetch) {
		free(j);
		snprintf(out->why, sizeof(out->why), "out of memory");
		return -ENOMEM;
	}
	j->addr = addr;
	j->fetch->len = len;
	j->fetch->max = max;
	err = submit(j);
	if (err) {
		out->stage = HD_FETCH_READ;
		snprintf(out->why, sizeof(out->why), "%s", err == -ETIMEDOUT ?
			 "reading it timed out (a stalled file system?)" :
			 "earlier reads are stuck in stalled file systems");
		return err;
	}
	*out = *j->fetch; /* moves mm and buf */
	free(j->fetch);
	j->fetch = NULL;
	err = j->rc;
	job_free(j);
	if (err) {
		hd_fetch_free(out);
	}
	return err;
}

void hd_fetch_free(struct hd_fetch *f)
{
	proc_maps_free(&f->mm);
	free(f->buf);
	f->buf = NULL;
}

/* ---- the validation queue's fetch: handed over, never waited for ---- */

int hd_guard_event_fd(void)
{
	pthread_once(&once, init_once);
	return efd;
}

int hd_guard_fetch_begin(pid_t pid, uid_t uid, uint64_t addr, uint64_t max,
			 void *tag)
{
	const char *refusal;
	struct job *j;

	pthread_once(&once, init_once);
	j = job_new(JOB_FETCH, pid, uid);
	if (j)
		j->fetch = calloc(1, sizeof(*j->fetch));
	if (!j || !j->fetch) {
		free(j);
		return -ENOMEM;
	}
	j->addr = addr;
	j->fetch->max = max;
	j->async = true;
	j->tag = tag;
	pthread_mutex_lock(&mu);
	refusal = stuck_refuse(j);
	if (refusal) {
		pthread_mutex_unlock(&mu);
		hd_log(HD_DEBUG, "pid %d: %s", (int)pid, refusal);
		job_free(j);
		return -EAGAIN;
	}
	j->t0 = hd_mono_ns();
	j->anext = async_jobs;
	async_jobs = j;
	if (efd < 0 || enqueue(j) < 0) {
		pthread_mutex_unlock(&mu);
		/* No thread or no eventfd: read here, unguarded. */
		run(j);
		j->done = true;
		return 1;
	}
	pthread_mutex_unlock(&mu);
	return 0;
}

/* Take j off async_jobs: its result to *out and *rc, its tag returned. */
static void *async_take(struct job *j, struct hd_fetch *out, int *rc)
{
	struct job **pp;
	void *tag = j->tag;

	for (pp = &async_jobs; *pp; pp = &(*pp)->anext)
		if (*pp == j) {
			*pp = j->anext;
			break;
		}
	*out = *j->fetch; /* moves mm and buf */
	free(j->fetch);
	j->fetch = NULL;
	*rc = j->rc;
	job_free(j);
	if (*rc)
		hd_fetch_free(out);
	return tag;
}

void *hd_guard_fetch_end(struct hd_fetch *out, int *rc)
{
	struct job *j;
	uint64_t v;

	if (!async_jobs)
		return NULL;
	if (efd >= 0 && read(efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing signalled since; look anyway */
	}
	pthread_mutex_lock(&mu);
	for (j = async_jobs; j && !j->done; j = j->anext)
		;
	pthread_mutex_unlock(&mu);
	if (!j)
		return NULL;
	/* More may be done: wake the loop again for them. */
	if (efd >= 0) {
		v = 1;
		if (j->anext && write(efd, &v, sizeof(v)) < 0) {
			/* then it is readable already */
		}
	}
	return async_take(j, out, rc);
}

uint64_t hd_guard_fetch_deadline(void)
{
	uint64_t first = 0;

	for (struct job *j = async_jobs; j; j = j->anext)
		if (!first || j->t0 < first)
			first = j->t0;
	return first ? first + HD_GUARD_TIMEOUT_MS * 1000000ull : 0;
}

void *hd_guard_fetch_expire(uint64_t now, struct hd_fetch *out, int *rc)
{
	struct job *j;
	void *tag;

	for (j = async_jobs; j; j = j->anext)
		if (now >= j->t0 + HD_GUARD_TIMEOUT_MS * 1000000ull)
			break;
	if (!j)
		return NULL;
	pthread_mutex_lock(&mu);
	if (j->done) {
		pthread_mutex_unlock(&mu);
		return async_take(j, out, rc);
	}
	tag = j->tag;
	for (struct job **pp = &async_jobs; *pp; pp = &(*pp)->anext)
		if (*pp == j) {
			*pp = j->anext;
			break;
		}
	if (!j->picked) {
		unqueue(j);
		pthread_mutex_unlock(&mu);
		job_free(j);
	} else {
		abandon(j);
		pthread_mutex_unlock(&mu);
	}
	memset(out, 0, sizeof(*out));
	out->stage = HD_FETCH_READ;
	snprintf(out->why, sizeof(out->why),
		 "reading it timed out (a stalled file system?)");
	*rc = -ETIMEDOUT;
	return tag;
}
