// SPDX-License-Identifier: MIT
/*
 * hd_reg.c - what dtrace-helperd knows: which process registered which DOF.
 *
 * A registration is checked in this order, and the first failure is the
 * one the caller gets (EINVAL unless said otherwise) and the log names:
 *
 *  1. the dof_helper_t: a NUL inside dofhp_mod, printable characters;
 *  2. the 64-byte DOF header read from the caller (process_vm_readv):
 *     dof_check_hdr() says how many bytes to copy (dofh_loadsz) and
 *     refuses blobs over --max-dof (E2BIG);
 *  3. the caller's quota: registrations and bytes per process, bytes in
 *     all (ENOSPC), so one process cannot exhaust the daemon;
 *  4. the whole blob, copied once and then never read from the caller
 *     again: dof_check(), then dof_relocate() with dofhp_addr (DOF from
 *     other toolchains carries SETX relocations; ours has none and its
 *     addresses are already run-time ones, see sdk/dof.h);
 *  5. every probe site and is-enabled site lies in an executable mapping
 *     of the caller, so a consumer that later places a uprobe from this
 *     record places it on code the process really maps.
 *
 * Identity and pruning.  The FUSE and CUSE request carries the calling
 * THREAD's id; registrations belong to its thread group.  A process is
 * (pid, start time), and a pidfd per process wakes the loop when it
 * exits (SIGKILL included).  exec and unmapping without a REMOVE leave
 * the process alive, so a periodic check re-reads the first bytes of
 * each recorded blob where it was: a blob that is gone or different
 * (exec replaced the image, dlclose unmapped the library) drops that
 * registration.  A re-registration of a blob at the same address
 * replaces the old record instead of adding a second one.
 *
 * Every change is written to <statedir>/registry/<pid> at once
 * (sdk/registry.h), so a restarted daemon continues where the old one
 * stopped; hd_reg_load() drops the processes that died meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dof_check.h"
#include "helperd.h"

int hd_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct iovec local = { (char *)buf + done, len - done };
		struct iovec remote = { (void *)(uintptr_t)(addr + done),
					len - done };
		ssize_t n;

		if (addr + done < addr)
			return -EFAULT; /* wraps */
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

pid_t hd_tgid(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long v;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -ESRCH;
	v = strtol(p + 6, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : -ESRCH;
}

/* ---- /proc/PID/maps -------------------------------------------------- */

int hd_maps_read(pid_t pid, struct hd_maps *mm)
{
	char path[64], *line = NULL;
	size_t cap = 0, mcap = 0;
	FILE *fp;
	int err = 0;

	mm->m = NULL;
	mm->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int pos = 0;
		struct hd_map *m;
		char *name;
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start,
			   &end, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		if (mm->n == mcap) {
			size_t ncap = mcap ? 2 * mcap : 64;
			struct hd_map *nm = realloc(mm->m, ncap * sizeof(*nm));

			if (!nm) {
				err = -ENOMEM;
				break;
			}
			mm->m = nm;
			mcap = ncap;
		}
		name = line + pos;
		len = strlen(name);
		if (len && name[len - 1] == '\n')
			name[--len] = '\0';
		m = &mm->m[mm->n];
		m->path = strdup(name);
		if (!m->path) {
			err = -ENOMEM;
			break;
		}
		m->start = start;
		m->end = end;
		m->off = off;
		m->dev = ino ? makedev(maj, min) : 0;
		m->ino = ino;
		snprintf(m->perms, sizeof(m->perms), "%.4s", perms);
		mm->n++;
	}
	free(line);
	fclose(fp);
	if (err)
		hd_maps_free(mm);
	return err;
}

void hd_maps_free(struct hd_maps *mm)
{
	size_t i;

	for (i = 0; i < mm->n; i++)
		free(mm->m[i].path);
	free(mm->m);
	mm->m = NULL;
	mm->n = 0;
}

const struct hd_map *hd_maps_find(const struct hd_maps *mm, uint64_t addr)
{
	size_t lo = 0, hi = mm->n;

	/* The kernel lists mappings in address order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < mm->m[mid].start)
			hi = mid;
		else if (addr >= mm->m[mid].end)
			lo = mid + 1;
		else
			return &mm->m[mid];
	}
	return NULL;
}

/* ---- processes ------------------------------------------------------- */

static struct hd_proc *find_proc(struct helperd *hd, pid_t pid, size_t *idx)
{
	size_t i;

	for (i = 0; i < hd->nprocs; i++)
		if (hd->procs[i]->rp.pid == pid) {
			if (idx)
				*idx = i;
			return hd->procs[i];
		}
	return NULL;
}

static void proc_free(struct helperd *hd, struct hd_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd); /* also leaves the epoll set */
	hd->total_bytes -= p->bytes;
	reg_proc_free(&p->rp);
	free(p);
}

/* Watch pid for exit; the caller has checked (pid, start) just before. */
static int watch_pid(struct helperd *hd, struct hd_proc *p)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	p->pidfd = -1;
#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, p->rp.pid, 0);
	if (fd < 0)
		return errno == ESRCH ? -ESRCH : 0;
	/* The pid may have been reused between the check and the open. */
	if (!reg_proc_alive(p->rp.pid, p->rp.start)) {
		close(fd);
		return -ESRCH;
	}
	ev.data.u64 = HD_EV_PIDFD | (uint32_t)p->rp.pid;
	if (epoll_ctl(hd->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return 0; /* the periodic check still finds its exit */
	}
	p->pidfd = fd;
#else
	(void)fd;
	(void)ev;
#endif
	return 0;
}

/* Room for one more process in hd->procs: 0 or -ENOMEM. */
static int procs_reserve(struct helperd *hd)
{
	struct hd_proc **np;
	size_t ncap;

	if (hd->nprocs < hd->procs_cap)
		return 0;
	ncap = hd->procs_cap ? 2 * hd->procs_cap : 64;
	np = realloc(hd->procs, ncap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	hd->procs = np;
	hd->procs_cap = ncap;
	return 0;
}

static struct hd_proc *new_proc(struct helperd *hd, pid_t pid)
{
	struct hd_proc *p;
	int err;

	if (procs_reserve(hd) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->rp.pid = pid;
	err = reg_proc_stat(pid, &p->rp.start, p->rp.comm,
			    sizeof(p->rp.comm));
	if (!err)
		err = watch_pid(hd, p);
	if (err) {
		free(p);
		errno = -err;
		return NULL;
	}
	hd->procs[hd->nprocs++] = p;
	return p;
}

static void persist(struct helperd *hd, struct hd_proc *p)
{
	char msg[PATH_MAX + 128];

	if (reg_proc_write(hd->statedir, &p->rp, msg, sizeof(msg)) < 0) {
		if (!hd->persist_failed)
			hd_log(HD_ERR, "%s (the registry on disk is stale "
				       "until a write succeeds)", msg);
		hd->persist_failed = true;
	} else if (hd->persist_failed) {
		hd_log(HD_NOTICE, "registry writes work again");
		hd->persist_failed = false;
	}
}

static void drop_proc_at(struct helperd *hd, size_t i)
{
	struct hd_proc *p = hd->procs[i];
	int err = reg_proc_remove(hd->statedir, p->rp.pid);

	if (err)
		hd_log(HD_ERR, "cannot remove %s/%s/%d: %s", hd->statedir,
		       REG_DIR, (int)p->rp.pid, strerror(-err));
	hd->procs[i] = hd->procs[--hd->nprocs];
	proc_free(hd, p);
}

static void drop_entry(struct helperd *hd, size_t pi, size_t ei)
{
	struct hd_proc *p = hd->procs[pi];

	p->bytes -= p->rp.ent[ei].dof_len;
	hd->total_bytes -= p->rp.ent[ei].dof_len;
	reg_proc_drop(&p->rp, ei);
	if (!p->rp.nent)
		drop_proc_at(hd, pi);
	else
		persist(hd, p);
}

bool hd_reg_has(struct helperd *hd, pid_t pid, uint64_t dof_addr)
{
	struct hd_proc *p = find_proc(hd, pid, NULL);
	size_t i;

	for (i = 0; p && i < p->rp.nent; i++)
		if (p->rp.ent[i].dof_addr == dof_addr)
			return true;
	return false;
}

/* ---- ADDDOF ---------------------------------------------------------- */

struct reject {
	struct helperd *hd;
	pid_t pid;
	const char *comm;
	const char *mod;
};

static int reject(const struct reject *rj, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reject(const struct reject *rj, int err, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rj->hd->n_rejected++;
	hd_log_reject(rj->hd, "pid %d (%s): module '%s': DOF refused: %s",
		      (int)rj->pid, rj->comm, rj->mod, why);
	return err;
}

/* Every site of every probe must be in an executable mapping. */
static int check_sites(const struct reject *rj, const uint8_t *dof,
		       size_t len, const struct hd_maps *mm)
{
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct dof_err derr;
	uint32_t pcur = 0;
	int rc;

	while ((rc = dof_prov_next(dof, len, &pcur, &pv, &derr)) > 0) {
		uint64_t cur = 0;

		while ((rc = dof_probe_next(&pv, &cur, &pr, &derr)) > 0) {
			unsigned i, n = pr.noffs + pr.nenoffs;

			for (i = 0; i < n; i++) {
				uint32_t off = i < pr.noffs ?
					dof_probe_off(&pr, i) :
					dof_probe_enoff(&pr, i - pr.noffs);
				uint64_t a = pr.addr + off;
				const struct hd_map *m = hd_maps_find(mm, a);

				if (a < pr.addr || !m || m->perms[2] != 'x')
					return reject(rj, -EINVAL,
						      "probe %s:%s:%s: site "
						      "0x%" PRIx64 " is not in "
						      "an executable mapping",
						      pr.prov, pr.func, pr.name,
						      a);
			}
		}
		if (rc < 0)
			break;
	}
	if (rc < 0)
		return reject(rj, -EINVAL, "%s (offset %" PRIu64 ")", derr.msg,
			      derr.off);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int hd_reg_adddof(struct helperd *hd, pid_t tid, const dof_helper_t *h,
		  enum reg_origin origin)
{
	struct reject rj = { hd, tid, "?", "?" };
	char comm[REG_COMM_MAX] = "?", mod[DTRACE_MODNAMELEN], why[256];
	struct hd_maps mm = { NULL, 0 };
	struct reg_entry e, *ne;
	struct dof_err derr;
	const struct hd_map *m;
	struct hd_proc *p;
	uint8_t hdr[sizeof(dof_hdr_t)];
	uint64_t loadsz;
	size_t i;
	pid_t pid;
	int err;

	pid = hd_tgid(tid);
	if (pid < 0)
		return pid; /* gone already */
	rj.pid = pid;
	p = find_proc(hd, pid, NULL);
	if (p)
		snprintf(comm, sizeof(comm), "%s", p->rp.comm);
	else
		reg_proc_stat(pid, NULL, comm, sizeof(comm));
	rj.comm = comm;

	/* 1. The record. */
	if (!memchr(h->dofhp_mod, '\0', sizeof(h->dofhp_mod)))
		return reject(&rj, -EINVAL, "module name is not NUL-terminated");
	memcpy(mod, h->dofhp_mod, sizeof(mod));
	for (i = 0; mod[i]; i++)
		if ((unsigned char)mod[i] < 0x20 || mod[i] == 0x7f)
			return reject(&rj, -EINVAL,
				      "module name has control characters");
	rj.mod = mod;

	/* 2. The header, read only after a look at where it lies. */
	err = hd_guard_maps(pid, &mm);
	if (err)
		return reject(&rj, err == -ESRCH ? -ESRCH : -EAGAIN,
			      "cannot read its mappings: %s", strerror(-err));
	err = hd_foreign_read(pid, &mm, h->dofhp_dof, hdr, sizeof(hdr), why,
			      sizeof(why));
	if (err) {
		err = reject(&rj, err == -ESRCH ? -ESRCH : -EFAULT,
			     "cannot read the DOF header at 0x%" PRIx64 ": %s",
			     (uint64_t)h->dofhp_dof, why);
		goto fail;
	}
	err = dof_check_hdr(hdr, sizeof(hdr), hd->max_dof, &loadsz, &derr);
	if (err) {
		err = reject(&rj, err, "%s (offset %" PRIu64 ")", derr.msg,
			     derr.off);
		goto fail;
	}

	/* 3. Quotas. */
	if (p && p->rp.nent >= hd->max_proc_regs) {
		err = reject(&rj, -ENOSPC, "process has %zu registrations "
			     "already (limit %u)", p->rp.nent,
			     hd->max_proc_regs);
		goto fail;
	}
	if ((p ? p->bytes : 0) + loadsz > hd->max_proc_bytes ||
	    hd->total_bytes + loadsz > hd->max_total_bytes) {
		err = reject(&rj, -ENOSPC, "DOF memory limit reached "
			     "(%" PRIu64 " bytes more would exceed it)",
			     loadsz);
		goto fail;
	}

	/* 4. The blob: one copy, checked, relocated. */
	memset(&e, 0, sizeof(e));
	e.dof_len = (size_t)loadsz;
	e.dof = malloc(e.dof_len);
	if (!e.dof) {
		err = reject(&rj, -ENOMEM, "out of memory for %" PRIu64
			     " bytes", loadsz);
		goto fail;
	}
	err = hd_foreign_read(pid, &mm, h->dofhp_dof, e.dof, e.dof_len, why,
			      sizeof(why));
	if (err) {
		err = reject(&rj, err == -ESRCH ? -ESRCH : -EFAULT,
			     "cannot read %zu bytes of DOF at 0x%" PRIx64
			     ": %s", e.dof_len, (uint64_t)h->dofhp_dof, why);
		goto fail;
	}
	err = dof_check(e.dof, e.dof_len, hd->max_dof, &derr);
	if (!err)
		err = dof_relocate(e.dof, e.dof_len, h->dofhp_addr, &derr) < 0 ?
			      -EINVAL : 0;
	if (err) {
		err = reject(&rj, err, "%s (offset %" PRIu64 ")", derr.msg,
			     derr.off);
		goto fail;
	}

	/* 5. Where it lives, and where its sites are. */
	err = check_sites(&rj, e.dof, e.dof_len, &mm);
	if (err)
		goto fail;
	m = hd_maps_find(&mm, h->dofhp_dof);
	e.path = strdup(m && m->ino ? m->path : "");
	if (!e.path) {
		err = reject(&rj, -ENOMEM, "out of memory");
		goto fail;
	}
	if (m && m->ino) {
		e.dev = m->dev;
		e.ino = m->ino;
	}
	hd_maps_free(&mm);
	snprintf(e.mod, sizeof(e.mod), "%s", mod[0] ? mod : base_name(e.path));
	e.base = h->dofhp_addr;
	e.dof_addr = h->dofhp_dof;
	e.origin = origin;

	/* Record it. */
	if (!p) {
		p = new_proc(hd, pid);
		if (!p) {
			err = -errno;
			goto fail;
		}
	}
	for (i = 0; i < p->rp.nent; i++)
		if (p->rp.ent[i].dof_addr == e.dof_addr) {
			hd_log(HD_DEBUG, "pid %d (%s): %s: generation %" PRIu64
			       " replaces %" PRIu64 " (same DOF address)",
			       (int)pid, p->rp.comm, e.mod, hd->next_gen,
			       p->rp.ent[i].gen);
			p->bytes -= p->rp.ent[i].dof_len;
			hd->total_bytes -= p->rp.ent[i].dof_len;
			reg_proc_drop(&p->rp, i);
			break;
		}
	ne = realloc(p->rp.ent, (p->rp.nent + 1) * sizeof(*ne));
	if (!ne) {
		err = -ENOMEM;
		if (!p->rp.nent) {
			size_t idx;

			if (find_proc(hd, pid, &idx))
				drop_proc_at(hd, idx);
		}
		goto fail;
	}
	p->rp.ent = ne;
	e.gen = hd->next_gen++;
	if (hd->next_gen > INT_MAX)
		hd->next_gen = 1;
	p->rp.ent[p->rp.nent++] = e;
	p->bytes += e.dof_len;
	hd->total_bytes += e.dof_len;
	persist(hd, p);
	hd->n_added++;
	hd_log(HD_INFO, "pid %d (%s): registered %s (%s), generation %" PRIu64
	       ", %zu bytes of DOF%s", (int)pid, p->rp.comm, e.mod,
	       e.path[0] ? e.path : "anonymous memory", e.gen, e.dof_len,
	       origin == REG_ORIGIN_SCAN ? ", found by the start-up scan" :
					   "");
	return (int)e.gen;

fail:
	hd_maps_free(&mm);
	free(e.dof);
	free(e.path);
	return err;
}

/* ---- REMOVE, pruning ------------------------------------------------- */

int hd_reg_remove(struct helperd *hd, pid_t tid, int gen)
{
	pid_t pid = hd_tgid(tid);
	struct hd_proc *p;
	size_t pi, i;

	if (pid < 0)
		return pid;
	p = find_proc(hd, pid, &pi);
	for (i = 0; p && i < p->rp.nent; i++)
		if (p->rp.ent[i].gen == (uint64_t)gen && gen > 0) {
			hd_log(HD_INFO, "pid %d (%s): removed %s, generation %d",
			       (int)pid, p->rp.comm, p->rp.ent[i].mod, gen);
			hd->n_removed++;
			drop_entry(hd, pi, i);
			return 0;
		}
	hd_log(HD_DEBUG, "pid %d: REMOVE of unknown generation %d", (int)pid,
	       gen);
	return -EINVAL;
}

void hd_reg_prune_pid(struct helperd *hd, pid_t pid, const char *why)
{
	size_t i;

	if (!find_proc(hd, pid, &i))
		return;
	hd_log(HD_INFO, "pid %d (%s): %s, %zu registration(s) dropped",
	       (int)pid, hd->procs[i]->rp.comm, why, hd->procs[i]->rp.nent);
	hd->n_pruned += hd->procs[i]->rp.nent;
	drop_proc_at(hd, i);
}

void hd_reg_check(struct helperd *hd)
{
	size_t pi = hd->nprocs;

	/* Backwards: dropping a process moves the last one into its slot. */
	while (pi-- > 0) {
		struct hd_proc *p = hd->procs[pi];
		size_t ei;

		if (!reg_proc_alive(p->rp.pid, p->rp.start)) {
			hd_reg_prune_pid(hd, p->rp.pid, "exited");
			continue;
		}
		for (ei = p->rp.nent; ei-- > 0;) {
			struct reg_entry *e = &p->rp.ent[ei];
			uint8_t hdr[sizeof(dof_hdr_t)];
			int err = hd_guard_read_mem(p->rp.pid, e->dof_addr,
						    hdr, sizeof(hdr));

			if (err == -EPERM || err == -ENOMEM ||
			    err == -ETIMEDOUT || err == -EAGAIN)
				continue; /* cannot tell; keep it */
			if (!err && !memcmp(hdr, e->dof, sizeof(hdr)))
				continue;
			hd_log(HD_INFO, "pid %d (%s): %s, generation %" PRIu64
			       ": DOF no longer mapped (exec, dlclose or "
			       "munmap), dropped", (int)p->rp.pid,
			       p->rp.comm, e->mod, e->gen);
			hd->n_pruned++;
			if (p->rp.nent == 1) {
				drop_entry(hd, pi, ei);
				break; /* p is freed */
			}
			drop_entry(hd, pi, ei);
		}
	}
}

/* ---- start-up -------------------------------------------------------- */

static void load_warn(const char *msg, void *arg)
{
	(void)arg;
	hd_log(HD_WARN, "ignoring damaged registry file: %s", msg);
}

int hd_reg_load(struct helperd *hd)
{
	char dir[PATH_MAX];
	struct reg_proc *v;
	size_t n, i, j;
	uint64_t maxgen = 0;
	struct dirent *de;
	DIR *d;
	int err;

	/* Leftovers of a write interrupted by a crash. */
	snprintf(dir, sizeof(dir), "%s/%s", hd->statedir, REG_DIR);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".tmp"))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);

	err = reg_load_all(hd->statedir, false, load_warn, NULL, &v, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		struct hd_proc *p;

		for (j = 0; j < v[i].nent; j++)
			if (v[i].ent[j].gen > maxgen)
				maxgen = v[i].ent[j].gen;
		if (!reg_proc_alive(v[i].pid, v[i].start)) {
			hd_log(HD_INFO, "pid %d (%s) exited while no daemon "
			       "ran; %zu registration(s) dropped",
			       (int)v[i].pid, v[i].comm, v[i].nent);
			reg_proc_remove(hd->statedir, v[i].pid);
			continue;
		}
		p = calloc(1, sizeof(*p));
		if (!p || procs_reserve(hd) < 0) {
			free(p);
			reg_procs_free(v, n);
			return -ENOMEM;
		}
		p->rp = v[i];
		memset(&v[i], 0, sizeof(v[i]));
		if (watch_pid(hd, p) < 0) {
			reg_proc_remove(hd->statedir, p->rp.pid);
			reg_proc_free(&p->rp);
			free(p);
			continue;
		}
		for (j = 0; j < p->rp.nent; j++)
			p->bytes += p->rp.ent[j].dof_len;
		hd->total_bytes += p->bytes;
		hd->procs[hd->nprocs++] = p;
		hd_log(HD_INFO, "pid %d (%s): %zu registration(s) restored",
		       (int)p->rp.pid, p->rp.comm, p->rp.nent);
	}
	reg_procs_free(v, n);
	hd->next_gen = maxgen + 1 > INT_MAX ? 1 : maxgen + 1;
	/* Processes that exec'ed or dlclose'd while no daemon ran. */
	hd_reg_check(hd);
	return 0;
}

void hd_reg_free(struct helperd *hd)
{
	size_t i;

	for (i = 0; i < hd->nprocs; i++)
		proc_free(hd, hd->procs[i]);
	free(hd->procs);
	hd->procs = NULL;
	hd->nprocs = hd->procs_cap = 0;
}
