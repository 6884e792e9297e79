// SPDX-License-Identifier: MIT
/*
 * dofclient.c - a client of the DTrace helper device, polite or hostile,
 * for tests/run-helperd-hostile.sh.
 *
 *	dofclient [-d DEVICE] valid [MODULE]
 *	dofclient [-d DEVICE] attack NAME [ARG]
 *	dofclient [-d DEVICE] ping
 *	dofclient [-d DEVICE] sync
 *	dofclient [-d DEVICE] verdict NAME
 *	dofclient list
 *	dofclient sec | nextsec
 *
 * DEVICE defaults to $DTRACE_DOF_INIT_DEVNAME, then /dev/dtrace/helper.
 * With $DOFCLIENT_UID set, fuse-stall, fuse-hidden and legit run as that
 * user once root's part (mounting) is done.
 *
 * valid	registers a correct DOF blob (one provider "hostile", one
 *		probe with two arguments, a probe site and an is-enabled site
 *		in this program's text) and prints "valid: pid=P gen=G"; then
 *		waits for end of file on stdin or SIGTERM/SIGINT, withdraws
 *		the registration and prints "valid: remove rc=R errno=E".
 * attack	sends one malformed request (or, for the few cases named
 *		below, a burst) and prints
 *			NAME: pid=P rc=R errno=E registry=absent|present
 *		registry= says whether <$DTRACE_STATEDIR>/registry/<pid>
 *		exists right after the verdict (xioctl(): an ADDDOF is
 *		followed by SYNC of its generation, so rc and errno are the
 *		outcome of the check; the daemon writes the file before).
 *		Exit status 0 once the request was made, whatever the
 *		answer: judging it is the test's job.
 * ping		REMOVE of generation -1, which a live daemon refuses with
 *		EINVAL; exit 0 if it did.
 * sync		SYNC of 0: returns once every registration answered so far
 *		is checked and written; exit 0 if it did.
 * verdict	a single-request attack's first answer, then its verdict
 *		(see run_verdict())
 * list		the single-request attack names, one a line.
 * sec		prints the second of CLOCK_MONOTONIC it is now: the window
 *		of the daemon's log rate limit (helper-driver/hd_log.c,
 *		take()) that a refusal logged now counts in.
 * nextsec	sleeps until the next such second has begun (a refusal made
 *		after it returns counts in a window no earlier refusal did).
 *
 * Every blob is built here, in memory, by a fixed-layout builder
 * (build()): header, six section headers, PROBES, PRARGS, PROFFS,
 * PRENOFFS, PROVIDER and the string table last, as usdt/dof.h lays them
 * out.  An attack mutates one field of a freshly built copy held in an
 * anonymous mapping followed by a PROT_NONE guard page, so dofhp_dof
 * points at writable memory of this process and "the buffer ends here"
 * is exact.  The valid blob is checked with sdk's dof_check() first, so a
 * refusal of a mutation is the mutation's doing.
 *
 * Bursts (attack NAME):
 *	flood		1,000 bad-magic ADDDOFs in a tight loop; with
 *			$DOFCLIENT_FLOOD_N that many, with
 *			$DOFCLIENT_FLOOD_MIXED also blobs that fail in the
 *			checker and in the site check, in turn, and with
 *			$DOFCLIENT_UID as that user
 *	quota		ADDDOF of a valid blob at 1,025 distinct addresses: the
 *			first 1,024 succeed, the last must be refused; the
 *			process exits with its registrations in place
 *	race		500 ADDDOFs while a second thread flips the blob's
 *			dofh_loadsz and a byte of the probe name; each
 *			success is withdrawn at once
 *	exit-race	50 children, each exiting while its other thread is
 *			inside ADDDOF; no registry file may outlive them
 *	remove-*	REMOVE of another process's generation (ARG), of one
 *			never issued, 0, -1, by value and through NULL
 *	bigbad		8 MiB blobs refused by the last check, in a loop:
 *			EINVAL while the daemon checks them, EBUSY once
 *			the user's refusals cost too much ($DOFCLIENT_FLOOD_N,
 *			$DOFCLIENT_UID)
 *	quota-bytes	blobs of 8 MiB (the size limit) until the 16 MiB
 *			per-process limit refuses one, then withdraw and add
 *			one five times, printing the slowest ADDDOF
 *	fuse-stall MNT SECS, fuse-hidden MNT SECS
 *			the DOF in a FUSE file this process serves itself,
 *			answering reads SECS seconds late (see below)
 *	legit		not an attack: one correct registration, withdrawn
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>

#include "dof_check.h"
#include "usdt/helper_abi.h"

#define KERNEL_ADDR 0xffffffff81000000ULL
#define PAGE 4096

static const char *device;
static size_t page_size = PAGE;

/* ---- the blob -------------------------------------------------------- */

enum { S_PROBES, S_PRARGS, S_PROFFS, S_PRENOFFS, S_PROV, S_STRTAB, NSEC };

#define O_SECTAB ((uint64_t)sizeof(dof_hdr_t))
#define O_PROBES (O_SECTAB + NSEC * sizeof(dof_sec_t)) /* 256 */
#define O_PRARGS (O_PROBES + sizeof(dof_probe_t))	/* 304, 2 bytes */
#define O_PROFFS (O_PRARGS + 4)				/* 308 */
#define O_PRENOFFS (O_PROFFS + 4)			/* 312 */
#define O_PROV (O_PRENOFFS + 4)				/* 316 */
#define O_STRTAB (O_PROV + sizeof(dof_provider_t))	/* 360 */
#define STRTAB_MAX 640
#define BLOB_MAX (O_STRTAB + STRTAB_MAX + 8)

#define HDR(b) ((dof_hdr_t *)(void *)(b))
#define SEC(b, i) ((dof_sec_t *)(void *)((b) + O_SECTAB + 32 * (i)))
#define PROBE(b) ((dof_probe_t *)(void *)((b) + O_PROBES))
#define PROV(b) ((dof_provider_t *)(void *)((b) + O_PROV))

/* Where the probe sites are: real code of this program. */
__attribute__((noinline)) static int site_func(int x)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop" ::: "memory");
	return x + 1;
}

static uint64_t site_addr(void)
{
	int (*volatile f)(int) = site_func;

	return (uint64_t)(uintptr_t)f;
}

static uint32_t str_put(char *st, size_t *n, const char *s)
{
	size_t len = strlen(s) + 1;
	uint32_t at = (uint32_t)*n;

	if (*n + len > STRTAB_MAX) {
		fprintf(stderr, "dofclient: string table full\n");
		exit(2);
	}
	memcpy(st + *n, s, len);
	*n += len;
	return at;
}

/*
 * A valid version 2 blob with one provider and one probe into b (at
 * least BLOB_MAX bytes, 8-aligned); returns its length, a multiple of 8.
 * The probe's function is site_func() at addr, its sites at offsets 0
 * (probe) and 4 (is-enabled).
 */
static size_t build(uint8_t *b, const char *prov, const char *func,
		    const char *name, uint64_t addr)
{
	static const uint64_t off[NSEC] = { O_PROBES, O_PRARGS, O_PROFFS,
					    O_PRENOFFS, O_PROV, O_STRTAB };
	static const uint32_t type[NSEC] = {
		DOF_SECT_PROBES, DOF_SECT_PRARGS, DOF_SECT_PROFFS,
		DOF_SECT_PRENOFFS, DOF_SECT_PROVIDER, DOF_SECT_STRTAB
	};
	static const uint32_t align[NSEC] = { 8, 1, 4, 4, 4, 1 };
	static const uint32_t entsize[NSEC] = { sizeof(dof_probe_t), 1, 4, 4,
						0, 0 };
	uint64_t size[NSEC] = { sizeof(dof_probe_t), 2, 4, 4,
				sizeof(dof_provider_t), 0 };
	char st[STRTAB_MAX];
	size_t nst = 0, len;
	uint32_t iprov, ifunc, iname, iargs, v;
	dof_hdr_t *h = HDR(b);
	dof_provider_t *pv = PROV(b);
	dof_probe_t *pr = PROBE(b);
	unsigned i;

	memset(b, 0, BLOB_MAX);
	str_put(st, &nst, "");
	iprov = str_put(st, &nst, prov);
	ifunc = str_put(st, &nst, func);
	iname = str_put(st, &nst, name);
	iargs = str_put(st, &nst, "int");
	str_put(st, &nst, "long");
	size[S_STRTAB] = nst;
	memcpy(b + O_STRTAB, st, nst);
	len = (O_STRTAB + nst + 7) & ~(size_t)7;

	memcpy(h->dofh_ident, DOF_MAG_STRING, DOF_MAG_STRLEN);
	h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
	h->dofh_ident[DOF_ID_VERSION] = DOF_VERSION_2;
	h->dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h->dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h->dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h->dofh_hdrsize = sizeof(dof_hdr_t);
	h->dofh_secsize = sizeof(dof_sec_t);
	h->dofh_secnum = NSEC;
	h->dofh_secoff = O_SECTAB;
	h->dofh_loadsz = len;
	h->dofh_filesz = len;
	for (i = 0; i < NSEC; i++) {
		dof_sec_t *s = SEC(b, i);

		s->dofs_type = type[i];
		s->dofs_align = align[i];
		s->dofs_flags = DOF_SECF_LOAD;
		s->dofs_entsize = entsize[i];
		s->dofs_offset = off[i];
		s->dofs_size = size[i];
	}
	pr->dofpr_addr = addr;
	pr->dofpr_func = ifunc;
	pr->dofpr_name = iname;
	pr->dofpr_nargv = iargs;
	pr->dofpr_xargv = iargs;
	pr->dofpr_nargc = 2;
	pr->dofpr_xargc = 2;
	pr->dofpr_noffs = 1;
	pr->dofpr_nenoffs = 1;
	b[O_PRARGS] = 0;
	b[O_PRARGS + 1] = 1;
	v = 0;
	memcpy(b + O_PROFFS, &v, 4);
	v = 4;
	memcpy(b + O_PRENOFFS, &v, 4);
	pv->dofpv_strtab = S_STRTAB;
	pv->dofpv_probes = S_PROBES;
	pv->dofpv_prargs = S_PRARGS;
	pv->dofpv_proffs = S_PROFFS;
	pv->dofpv_prenoffs = S_PRENOFFS;
	pv->dofpv_name = iprov;
	pv->dofpv_provattr = DOF_ATTR(2, 2, 5);
	pv->dofpv_modattr = DOF_ATTR(1, 1, 0);
	pv->dofpv_funcattr = DOF_ATTR(1, 1, 0);
	pv->dofpv_nameattr = DOF_ATTR(2, 2, 5);
	pv->dofpv_argsattr = DOF_ATTR(2, 2, 5);
	return len;
}

static size_t build_default(uint8_t *b)
{
	return build(b, "hostile", "site_func", "probe-one", site_addr());
}

/*
 * n bytes (rounded up to pages) of fresh read-write memory followed by a
 * PROT_NONE page; the start.  Dies on failure: the test cannot go on.
 */
static uint8_t *arena(size_t n)
{
	size_t rw = (n + page_size - 1) / page_size * page_size;
	uint8_t *p;

	if (rw == 0)
		rw = page_size;
	p = mmap(NULL, rw + page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + rw, page_size, PROT_NONE) < 0) {
		perror("dofclient: mmap");
		exit(2);
	}
	return p;
}

/* The guard page of an arena made for n bytes. */
static uint8_t *guard_of(uint8_t *a, size_t n)
{
	size_t rw = (n + page_size - 1) / page_size * page_size;

	return a + (rw ? rw : page_size);
}

/* ---- talking to the device --------------------------------------------- */

static const char *errname(int e)
{
	static const struct {
		int e;
		const char *n;
	} t[] = {
		{ 0, "0" },	      { EINVAL, "EINVAL" },
		{ EFAULT, "EFAULT" }, { E2BIG, "E2BIG" },
		{ ENOSPC, "ENOSPC" }, { ENOTTY, "ENOTTY" },
		{ ESRCH, "ESRCH" },   { ENOMEM, "ENOMEM" },
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" },
		{ EACCES, "EACCES" }, { ENOTCONN, "ENOTCONN" },
		{ EBADF, "EBADF" },   { EINTR, "EINTR" },
		{ ENOSYS, "ENOSYS" }, { EIO, "EIO" },
		{ ENODEV, "ENODEV" }, { ENXIO, "ENXIO" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EAGAIN, "EAGAIN" },
		{ ECONNABORTED, "ECONNABORTED" },
	};
	static char buf[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static int open_dev(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "dofclient: %s: %s\n", device, strerror(errno));
		exit(2);
	}
	return fd;
}

/*
 * $DOFCLIENT_UID: become that user (group too) before talking to the
 * device, after anything that needs root (mounting).  Dies on failure.
 */
static void drop_uid(void)
{
	const char *v = getenv("DOFCLIENT_UID");
	unsigned long id;
	char *end;

	if (!v || !*v)
		return;
	id = strtoul(v, &end, 10);
	if (*end || setgroups(0, NULL) < 0 ||
	    setresgid((gid_t)id, (gid_t)id, (gid_t)id) < 0 ||
	    setresuid((uid_t)id, (uid_t)id, (uid_t)id) < 0) {
		fprintf(stderr, "dofclient: cannot become uid %s: %s\n", v,
			strerror(errno));
		exit(2);
	}
}

/*
 * In an --enable-sanitizers build: an attacker exits with its arenas and
 * mappings in place on purpose; only the daemon's leaks matter.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

/*
 * ioctl's result; *err gets errno (0 on success).  An ADDDOF's is the
 * daemon's verdict: it answers before it has checked the blob, so a
 * generation is followed by SYNC of it, whose failure (the errno the
 * check refused the blob with) becomes the result -- unless
 * $DOFCLIENT_NOSYNC asks for the first answer alone.
 */
static int xioctl(int fd, unsigned long cmd, void *arg, int *err)
{
	static int nosync = -1;
	int rc, g;

	if (nosync < 0)
		nosync = getenv("DOFCLIENT_NOSYNC") != NULL;
	errno = 0;
	rc = ioctl(fd, cmd, arg);
	*err = rc < 0 ? errno : 0;
	if (cmd == DTRACEHIOC_ADDDOF && rc >= 0 && !nosync) {
		g = rc;
		/* ENOTTY: a helper without SYNC, whose answer is its verdict */
		if (ioctl(fd, DTRACEHIOC_SYNC, &g) < 0 && errno != ENOTTY) {
			*err = errno;
			rc = -1;
		}
	}
	return rc;
}

static void helper_for(dof_helper_t *h, const void *dof)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->dofhp_mod, sizeof(h->dofhp_mod), "dofclient");
	h->dofhp_addr = 0;
	h->dofhp_dof = (uint64_t)(uintptr_t)dof;
}

/* Does the daemon keep a registry file for this process? */
static const char *registry_state(pid_t pid)
{
	const char *dir = getenv("DTRACE_STATEDIR");
	char path[4096];
	struct stat st;

	if (!dir || !*dir)
		return "unknown";
	snprintf(path, sizeof(path), "%s/registry/%d", dir, (int)pid);
	return stat(path, &st) == 0 ? "present" : "absent";
}

static void report(const char *name, int rc, int err)
{
	printf("%s: pid=%d rc=%d errno=%s registry=%s\n", name, (int)getpid(),
	       rc, errname(err), registry_state(getpid()));
	fflush(stdout);
}

/* The valid blob must pass the project's own validator. */
static void self_check(const uint8_t *b, size_t len)
{
	struct dof_err derr;

	if (dof_check(b, len, DOF_MAX_SIZE_DEFAULT, &derr) != 0) {
		fprintf(stderr, "dofclient: the valid blob is not valid: %s "
			"(offset %" PRIu64 ")\n", derr.msg, derr.off);
		exit(2);
	}
}

/* ---- single-request attacks ------------------------------------------- */

/*
 * What one attack sends.  Before the mutation runs, b holds a valid blob
 * of len bytes at the start of an arena (guard page after BLOB_MAX
 * rounded up), h points at it and the request is ADDDOF(&h) on fd.
 */
struct att {
	uint8_t *b;
	size_t len;
	dof_helper_t h;
	int fd;
	unsigned long cmd;
	void *arg;
};

/* Move the blob so that it ends where its arena's guard page begins. */
static void move_to_end(struct att *a)
{
	uint8_t *g = guard_of(a->b, BLOB_MAX);
	uint8_t *nb = g - a->len;

	memmove(nb, a->b, a->len);
	a->b = nb;
	a->h.dofhp_dof = (uint64_t)(uintptr_t)nb;
}

static void rebuild(struct att *a, const char *prov, const char *func,
		    const char *name)
{
	a->len = build(a->b, prov, func, name, site_addr());
}

/* Header. */
static void m_bad_magic(struct att *a) { a->b[DOF_ID_MAG1] = 'X'; }
static void m_bad_model(struct att *a)
{
	a->b[DOF_ID_MODEL] = DOF_MODEL_ILP32;
}
static void m_bad_encoding(struct att *a)
{
	a->b[DOF_ID_ENCODING] = DOF_ENCODE_MSB;
}
static void m_bad_version(struct att *a) { a->b[DOF_ID_VERSION] = 3; }
static void m_bad_difvers(struct att *a) { a->b[DOF_ID_DIFVERS] = 1; }
static void m_ident_pad(struct att *a) { a->b[DOF_ID_PAD + 3] = 1; }
static void m_flags(struct att *a) { HDR(a->b)->dofh_flags = 1; }
static void m_pad(struct att *a) { HDR(a->b)->dofh_pad = 1; }
static void m_hdrsize(struct att *a) { HDR(a->b)->dofh_hdrsize = 56; }

/* Section table. */
static void m_sechdr_overlap(struct att *a)
{
	/* 16-byte entries: each section header overlaps the next. */
	HDR(a->b)->dofh_secsize = 16;
}
static void m_sectab_over_hdr(struct att *a)
{
	HDR(a->b)->dofh_secoff = 32;
}
static void m_huge_secnum(struct att *a)
{
	HDR(a->b)->dofh_secnum = 0xffffffffu;
}
static void m_overflow_secnum(struct att *a)
{
	/* secnum * secsize just below 2^64 */
	HDR(a->b)->dofh_secnum = 0xffffffffu;
	HDR(a->b)->dofh_secsize = 0xfffffff8u;
}
static void m_overflow_secoff(struct att *a)
{
	HDR(a->b)->dofh_secoff = 0xfffffffffffffff8ULL;
}

/* Sizes. */
static void m_huge_filesz(struct att *a)
{
	HDR(a->b)->dofh_loadsz = 4ULL << 30;
	HDR(a->b)->dofh_filesz = 4ULL << 30;
}
static void m_huge_max(struct att *a)
{
	HDR(a->b)->dofh_loadsz = UINT64_MAX;
	HDR(a->b)->dofh_filesz = UINT64_MAX;
}
static void m_huge_loadsz(struct att *a)
{
	HDR(a->b)->dofh_loadsz = 1ULL << 40;
}
static void m_limit_loadsz(struct att *a)
{
	/* exactly the daemon's default limit, in a one-page buffer */
	HDR(a->b)->dofh_loadsz = DOF_MAX_SIZE_DEFAULT;
	HDR(a->b)->dofh_filesz = DOF_MAX_SIZE_DEFAULT;
}
static void m_truncated(struct att *a)
{
	HDR(a->b)->dofh_loadsz = a->len + 64;
	HDR(a->b)->dofh_filesz = a->len + 64;
	move_to_end(a);
}
static void m_hdr_straddle(struct att *a)
{
	/* only 32 of the header's 64 bytes are mapped */
	uint8_t *g = guard_of(a->b, BLOB_MAX);

	memmove(g - 32, a->b, 32);
	a->h.dofhp_dof = (uint64_t)(uintptr_t)(g - 32);
}

/* Sections. */
static void m_sec_over_hdr(struct att *a)
{
	SEC(a->b, S_PROBES)->dofs_offset = 0;
}
static void m_sec_over_sectab(struct att *a)
{
	SEC(a->b, S_STRTAB)->dofs_offset = O_SECTAB + 64;
}
static void m_sec_overlap(struct att *a)
{
	/* PROVIDER on top of the probe record: dofpv_strtab = dofpr_func */
	SEC(a->b, S_PROV)->dofs_offset = O_PROBES + 8;
}
static void m_sec_offset_range(struct att *a)
{
	SEC(a->b, S_STRTAB)->dofs_offset = a->len + 64;
}
static void m_sec_size_range(struct att *a)
{
	SEC(a->b, S_STRTAB)->dofs_size = a->len;
}
static void m_overflow_offset(struct att *a)
{
	SEC(a->b, S_PROBES)->dofs_offset = 0xfffffffffffffff8ULL;
}
static void m_overflow_size(struct att *a)
{
	/* offset + size wraps to a small number */
	SEC(a->b, S_PROBES)->dofs_size = 0ULL - O_PROBES + 48;
}
static void m_no_load_flag(struct att *a)
{
	SEC(a->b, S_PROBES)->dofs_flags = 0;
}
static void m_bad_align(struct att *a)
{
	SEC(a->b, S_PROBES)->dofs_align = 3;
}

/* Strings. */
static void m_strtab_unterminated(struct att *a)
{
	dof_sec_t *s = SEC(a->b, S_STRTAB);

	a->b[s->dofs_offset + s->dofs_size - 1] = 'x';
}
static void m_stridx_range(struct att *a)
{
	PROBE(a->b)->dofpr_name = (uint32_t)SEC(a->b, S_STRTAB)->dofs_size +
				  100;
}
static void m_prov_stridx_huge(struct att *a)
{
	PROV(a->b)->dofpv_name = 0xffffffffu;
}
static void m_probe_name_long(struct att *a)
{
	char n[DTRACE_NAMELEN + 8];

	memset(n, 'p', DTRACE_NAMELEN); /* 64 characters, limit 63 */
	n[DTRACE_NAMELEN] = '\0';
	rebuild(a, "hostile", "site_func", n);
}
static void m_prov_name_long(struct att *a)
{
	char n[DOF_PROVNAME_MAXLEN + 2];

	memset(n, 'q', DOF_PROVNAME_MAXLEN + 1); /* 54, limit 53 */
	n[DOF_PROVNAME_MAXLEN + 1] = '\0';
	rebuild(a, n, "site_func", "probe-one");
}
static void m_func_name_long(struct att *a)
{
	char n[DTRACE_FUNCNAMELEN + 8];

	memset(n, 'f', DTRACE_FUNCNAMELEN); /* 128, limit 127 */
	n[DTRACE_FUNCNAMELEN] = '\0';
	rebuild(a, "hostile", n, "probe-one");
}
static void m_func_control(struct att *a)
{
	rebuild(a, "hostile", "site\033[2Jfunc", "probe-one");
}
static void m_prov_bad_char(struct att *a)
{
	rebuild(a, "host/ile", "site_func", "probe-one");
}

/* Probes. */
static void m_argidx(struct att *a)
{
	a->b[O_PRARGS + 1] = 2; /* == nargc */
}
static void m_argmap_overrun(struct att *a)
{
	PROBE(a->b)->dofpr_argidx = 1;
}
static void m_nargc_huge(struct att *a)
{
	PROBE(a->b)->dofpr_nargc = 255;
}
static void m_zero_offsets(struct att *a)
{
	PROBE(a->b)->dofpr_noffs = 0;
	PROBE(a->b)->dofpr_nenoffs = 0;
}
static void m_offidx_range(struct att *a)
{
	PROBE(a->b)->dofpr_offidx = 0xffffffffu;
}
static void m_probe_pad(struct att *a) { PROBE(a->b)->dofpr_pad2 = 1; }
static void m_prov_attr(struct att *a)
{
	PROV(a->b)->dofpv_provattr = DOF_ATTR(9, 2, 5);
}

/* Probe sites. */
static void *heap_block;
static int data_word = 1;

static void m_site_heap(struct att *a)
{
	heap_block = malloc(4096);
	PROBE(a->b)->dofpr_addr = (uint64_t)(uintptr_t)heap_block;
}
static void m_site_data(struct att *a)
{
	PROBE(a->b)->dofpr_addr = (uint64_t)(uintptr_t)&data_word;
}
static void m_site_stack(struct att *a)
{
	PROBE(a->b)->dofpr_addr = (uint64_t)(uintptr_t)&a;
}
static void m_site_null(struct att *a) { PROBE(a->b)->dofpr_addr = 0; }
static void m_site_kernel(struct att *a)
{
	PROBE(a->b)->dofpr_addr = KERNEL_ADDR;
}
static void m_site_wrap(struct att *a)
{
	uint32_t off = 0x100;

	/* addr + offset wraps around to a low address */
	PROBE(a->b)->dofpr_addr = UINT64_MAX - 0x10;
	memcpy(a->b + O_PROFFS, &off, 4);
}
static void m_enoff_outside(struct att *a)
{
	uint32_t off = 0xfffffff0u;

	memcpy(a->b + O_PRENOFFS, &off, 4);
}

/* The record. */
static void m_dof_null(struct att *a) { a->h.dofhp_dof = 0; }
static void m_dof_kernel(struct att *a) { a->h.dofhp_dof = KERNEL_ADDR; }
static void m_dof_unmapped(struct att *a)
{
	void *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p, page_size) < 0) {
		perror("dofclient: mmap");
		exit(2);
	}
	a->h.dofhp_dof = (uint64_t)(uintptr_t)p;
}
static void m_dof_guard(struct att *a)
{
	a->h.dofhp_dof = (uint64_t)(uintptr_t)guard_of(a->b, BLOB_MAX);
}
static void m_dof_wrap(struct att *a)
{
	/* the 64 header bytes would wrap around the address space */
	a->h.dofhp_dof = UINT64_MAX - 31;
}
static void m_mod_unterminated(struct att *a)
{
	memset(a->h.dofhp_mod, 'A', sizeof(a->h.dofhp_mod));
}
static void m_mod_control(struct att *a)
{
	snprintf(a->h.dofhp_mod, sizeof(a->h.dofhp_mod), "evil\033[2J\nx");
}
static void m_comm_control(struct att *a)
{
	/* the process name is the caller's to choose, newline included */
	prctl(PR_SET_NAME, (unsigned long)"x\nFORGED: \033[1m", 0, 0, 0);
	m_bad_magic(a);
}
static void m_comm_c1(struct att *a)
{
	/* C1 CSI in UTF-8 and raw, and a byte of no UTF-8 character */
	prctl(PR_SET_NAME, (unsigned long)"\302\2332J\2331m\377", 0, 0, 0);
	m_bad_magic(a);
}
static void m_mod_del(struct att *a)
{
	snprintf(a->h.dofhp_mod, sizeof(a->h.dofhp_mod), "del\177");
}

/* The ioctl itself. */
static void m_arg_null(struct att *a) { a->arg = NULL; }
static void m_arg_kernel(struct att *a)
{
	a->arg = (void *)(uintptr_t)KERNEL_ADDR;
}
static void m_arg_short(struct att *a)
{
	/* the record's last 40 bytes lie in the guard page */
	uint8_t *g = guard_of(a->b, BLOB_MAX);

	memcpy(g - 40, &a->h, 40);
	a->arg = g - 40;
}

static uint8_t big_arg[16384];

#define CMD_SIZED(size) _IOC(_IOC_WRITE, DTRACEHIOC_TYPE, 3, (size))
static void m_cmd_size_small(struct att *a) { a->cmd = CMD_SIZED(64); }
static void m_cmd_size_big(struct att *a)
{
	memcpy(big_arg, &a->h, sizeof(a->h));
	a->cmd = CMD_SIZED(128);
	a->arg = big_arg;
}
static void m_cmd_size_max(struct att *a)
{
	memcpy(big_arg, &a->h, sizeof(a->h));
	a->cmd = CMD_SIZED(_IOC_SIZEMASK);
	a->arg = big_arg;
}
static void m_cmd_noarg(struct att *a)
{
	a->cmd = _IO(DTRACEHIOC_TYPE, 3);
}
static void m_cmd_read(struct att *a)
{
	a->cmd = _IOR(DTRACEHIOC_TYPE, 3, dof_helper_t);
}
static void m_cmd_rw(struct att *a)
{
	a->cmd = _IOWR(DTRACEHIOC_TYPE, 3, dof_helper_t);
}
static void m_cmd_remove_long(struct att *a)
{
	static long gen = 1;

	a->cmd = _IOW(DTRACEHIOC_TYPE, 2, long);
	a->arg = &gen;
}
static void m_cmd_other_type(struct att *a)
{
	a->cmd = _IOW(0xd9, 3, dof_helper_t);
}
static void m_dir_ioctl(struct att *a)
{
	char dir[4096], *s;

	snprintf(dir, sizeof(dir), "%s", device);
	s = strrchr(dir, '/');
	if (s && s != dir)
		*s = '\0';
	close(a->fd);
	a->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->fd < 0) {
		fprintf(stderr, "dofclient: %s: %s\n", dir, strerror(errno));
		exit(2);
	}
}

struct attack {
	const char *name;
	void (*mut)(struct att *a);
};

static const struct attack attacks[] = {
	{ "bad-magic", m_bad_magic },
	{ "bad-model", m_bad_model },
	{ "bad-encoding", m_bad_encoding },
	{ "bad-version", m_bad_version },
	{ "bad-difvers", m_bad_difvers },
	{ "ident-pad", m_ident_pad },
	{ "flags", m_flags },
	{ "pad", m_pad },
	{ "hdrsize", m_hdrsize },
	{ "sechdr-overlap", m_sechdr_overlap },
	{ "sectab-over-hdr", m_sectab_over_hdr },
	{ "huge-secnum", m_huge_secnum },
	{ "overflow-secnum", m_overflow_secnum },
	{ "overflow-secoff", m_overflow_secoff },
	{ "huge-filesz", m_huge_filesz },
	{ "huge-max", m_huge_max },
	{ "huge-loadsz", m_huge_loadsz },
	{ "limit-loadsz", m_limit_loadsz },
	{ "truncated", m_truncated },
	{ "hdr-straddle", m_hdr_straddle },
	{ "sec-over-hdr", m_sec_over_hdr },
	{ "sec-over-sectab", m_sec_over_sectab },
	{ "sec-overlap", m_sec_overlap },
	{ "sec-offset-range", m_sec_offset_range },
	{ "sec-size-range", m_sec_size_range },
	{ "overflow-offset", m_overflow_offset },
	{ "overflow-size", m_overflow_size },
	{ "no-load-flag", m_no_load_flag },
	{ "bad-align", m_bad_align },
	{ "strtab-unterminated", m_strtab_unterminated },
	{ "stridx-range", m_stridx_range },
	{ "prov-stridx-huge", m_prov_stridx_huge },
	{ "probe-name-long", m_probe_name_long },
	{ "prov-name-long", m_prov_name_long },
	{ "func-name-long", m_func_name_long },
	{ "func-control", m_func_control },
	{ "prov-bad-char", m_prov_bad_char },
	{ "argidx", m_argidx },
	{ "argmap-overrun", m_argmap_overrun },
	{ "nargc-huge", m_nargc_huge },
	{ "zero-offsets", m_zero_offsets },
	{ "offidx-range", m_offidx_range },
	{ "probe-pad", m_probe_pad },
	{ "prov-attr", m_prov_attr },
	{ "site-heap", m_site_heap },
	{ "site-data", m_site_data },
	{ "site-stack", m_site_stack },
	{ "site-null", m_site_null },
	{ "site-kernel", m_site_kernel },
	{ "site-wrap", m_site_wrap },
	{ "enoff-outside", m_enoff_outside },
	{ "dof-null", m_dof_null },
	{ "dof-kernel", m_dof_kernel },
	{ "dof-unmapped", m_dof_unmapped },
	{ "dof-guard", m_dof_guard },
	{ "dof-wrap", m_dof_wrap },
	{ "mod-unterminated", m_mod_unterminated },
	{ "mod-control", m_mod_control },
	{ "mod-del", m_mod_del },
	{ "comm-control", m_comm_control },
	{ "comm-c1", m_comm_c1 },
	{ "arg-null", m_arg_null },
	{ "arg-kernel", m_arg_kernel },
	{ "arg-short", m_arg_short },
	{ "cmd-size-small", m_cmd_size_small },
	{ "cmd-size-big", m_cmd_size_big },
	{ "cmd-size-max", m_cmd_size_max },
	{ "cmd-noarg", m_cmd_noarg },
	{ "cmd-read", m_cmd_read },
	{ "cmd-rw", m_cmd_rw },
	{ "cmd-remove-long", m_cmd_remove_long },
	{ "cmd-other-type", m_cmd_other_type },
	{ "dir-ioctl", m_dir_ioctl },
};

#define NATTACKS (sizeof(attacks) / sizeof(attacks[0]))

/* A valid request, ready to be spoiled. */
static void att_init(struct att *a)
{
	a->b = arena(BLOB_MAX);
	a->len = build_default(a->b);
	self_check(a->b, a->len);
	helper_for(&a->h, a->b);
	a->fd = open_dev();
	a->cmd = DTRACEHIOC_ADDDOF;
	a->arg = &a->h;
}

static int run_single(const struct attack *at)
{
	struct att a;
	int rc, err;

	att_init(&a);
	at->mut(&a);
	rc = xioctl(a.fd, a.cmd, a.arg, &err);
	report(at->name, rc, err);
	close(a.fd);
	return 0;
}

/* ---- bursts ------------------------------------------------------------ */

static int run_flood(void)
{
	const char *nv = getenv("DOFCLIENT_FLOOD_N");
	unsigned i, k = 1, n = nv ? (unsigned)strtoul(nv, NULL, 10) : 1000;
	unsigned einval = 0, other = 0;
	struct att a[3];
	int err;

	drop_uid();
	att_init(&a[0]);
	m_bad_magic(&a[0]); /* refused by the header check */
	if (getenv("DOFCLIENT_FLOOD_MIXED")) {
		att_init(&a[1]);
		m_argidx(&a[1]); /* refused by the confined checker */
		att_init(&a[2]);
		m_site_heap(&a[2]); /* refused by the site check */
		k = 3;
	}
	for (i = 0; i < n; i++) {
		struct att *x = &a[i % k];

		if (xioctl(x->fd, x->cmd, x->arg, &err) < 0 && err == EINVAL)
			einval++;
		else
			other++;
	}
	printf("flood: pid=%d n=%u einval=%u other=%u registry=%s\n",
	       (int)getpid(), n, einval, other, registry_state(getpid()));
	for (i = 0; i < k; i++)
		close(a[i].fd);
	return 0;
}

static int run_quota(void)
{
	unsigned n = 1025, i, ok = 0;
	uint8_t blob[BLOB_MAX] __attribute__((aligned(8)));
	size_t len = build_default(blob), stride = (len + 63) & ~(size_t)63;
	uint8_t *mem = arena(n * stride);
	dof_helper_t h;
	int fd = open_dev(), rc = 0, err = 0;

	self_check(blob, len);
	for (i = 0; i < n; i++) {
		memcpy(mem + i * stride, blob, len);
		helper_for(&h, mem + i * stride);
		rc = xioctl(fd, DTRACEHIOC_ADDDOF, &h, &err);
		if (rc < 0)
			break;
		ok++;
	}
	printf("quota: pid=%d ok=%u rc=%d errno=%s registry=%s\n",
	       (int)getpid(), ok, rc, errname(err), registry_state(getpid()));
	close(fd);
	return 0;
}

/*
 * bigbad: blobs of the size limit (8 MiB) whose probe site is on the
 * heap, so each is copied and checked whole and refused only by the
 * last check, the most a refusal can cost the daemon; $DOFCLIENT_FLOOD_N
 * of them (40), as $DOFCLIENT_UID.  Counts EINVAL (refused after the
 * work) and EBUSY (refused before it: the user's refusals cost enough).
 */
static int run_bigbad(void)
{
	const char *nv = getenv("DOFCLIENT_FLOOD_N");
	const size_t sz = DOF_MAX_SIZE_DEFAULT;
	unsigned i, n = nv ? (unsigned)strtoul(nv, NULL, 10) : 40;
	unsigned einval = 0, ebusy = 0, other = 0;
	uint8_t *b = arena(sz);
	dof_helper_t h;
	int fd, err;

	drop_uid();
	build_default(b);
	HDR(b)->dofh_loadsz = sz;
	HDR(b)->dofh_filesz = sz;
	self_check(b, sz);
	heap_block = malloc(4096);
	PROBE(b)->dofpr_addr = (uint64_t)(uintptr_t)heap_block;
	helper_for(&h, b);
	fd = open_dev();
	for (i = 0; i < n; i++) {
		if (xioctl(fd, DTRACEHIOC_ADDDOF, &h, &err) >= 0)
			other++;
		else if (err == EINVAL)
			einval++;
		else if (err == EBUSY)
			ebusy++;
		else
			other++;
	}
	printf("bigbad: pid=%d n=%u einval=%u ebusy=%u other=%u\n",
	       (int)getpid(), n, einval, ebusy, other);
	close(fd);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The byte quota: blobs of the size limit (DOF_MAX_SIZE_DEFAULT, a valid
 * blob padded with zeros) until the daemon says ENOSPC; then withdraw
 * one and add it again a few times, timing each ADDDOF (the daemon
 * rewrites the process's whole registry file every time).
 */
static int run_quota_bytes(void)
{
	const size_t sz = DOF_MAX_SIZE_DEFAULT;
	unsigned n = 9, i, ok = 0, churn = 0;
	uint8_t *mem = arena(n * sz);
	dof_helper_t h;
	int fd = open_dev(), rc = 0, err = 0, gens[9], e2;
	double t, worst = 0;

	for (i = 0; i < n; i++) {
		uint8_t *b = mem + i * sz;

		build_default(b);
		HDR(b)->dofh_loadsz = sz;
		HDR(b)->dofh_filesz = sz;
		if (i == 0)
			self_check(b, sz);
		helper_for(&h, b);
		t = now_s();
		rc = xioctl(fd, DTRACEHIOC_ADDDOF, &h, &err);
		t = now_s() - t;
		if (t > worst)
			worst = t;
		if (rc < 0)
			break;
		gens[ok++] = rc;
	}
	printf("quota-bytes: pid=%d ok=%u rc=%d errno=%s registry=%s\n",
	       (int)getpid(), ok, rc, errname(err), registry_state(getpid()));
	for (i = 0; ok > 0 && i < 5; i++) {
		helper_for(&h, mem);
		if (xioctl(fd, DTRACEHIOC_REMOVE, &gens[0], &e2) < 0)
			break;
		t = now_s();
		gens[0] = xioctl(fd, DTRACEHIOC_ADDDOF, &h, &e2);
		t = now_s() - t;
		if (t > worst)
			worst = t;
		if (gens[0] < 0)
			break;
		churn++;
	}
	printf("quota-bytes: churn=%u slowest-adddof-ms=%.0f\n", churn,
	       worst * 1000);
	close(fd);
	return 0;
}

/*
 * fuse-stall, fuse-hidden: the DOF lives in a file of a FUSE file system
 * this process serves itself, mapped but never touched, so reading it
 * from outside faults the page in through us -- and we take SECS seconds
 * to answer.  fuse-hidden also detaches the mount (umount -l, what
 * `fusermount3 -u -z` does for an unprivileged user) once the file is
 * mapped, so the file system no longer shows in /proc/PID/mountinfo.
 * Prints "NAME: read requested" if the daemon's read reaches us, the
 * result line, how long the ioctl took, and exits once the read (if any)
 * has been answered; the stall ends early if the process is killed.
 */
static uint8_t stall_page[PAGE] __attribute__((aligned(8)));
static unsigned stall_secs;
static const char *stall_name;
static volatile int stall_requested, stall_replied;

static void stall_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0444;
	st->st_nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	st->st_size = ino == FUSE_ROOT_ID ? 0 : PAGE;
}

static void stall_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, "dof")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = 2;
	e.attr_timeout = e.entry_timeout = 3600;
	stall_attr(2, &e.attr);
	fuse_reply_entry(req, &e);
}

static void stall_getattr(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	struct stat st;

	stall_attr(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void stall_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	stall_requested = 1;
	printf("%s: read requested\n", stall_name);
	sleep(stall_secs);
	if (off >= PAGE)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, (char *)stall_page + off,
			       size < (size_t)(PAGE - off) ? size
							   : (size_t)(PAGE - off));
	stall_replied = 1;
}

static const struct fuse_lowlevel_ops stall_ops = {
	.lookup = stall_lookup,
	.getattr = stall_getattr,
	.read = stall_read,
};

static void *stall_loop(void *se)
{
	fuse_session_loop(se);
	return NULL;
}

static int run_fuse_stall(const char *name, const char *mnt, const char *secs)
{
	char *argv[] = { (char *)"dofclient", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	bool hidden = !strcmp(name, "fuse-hidden");
	struct fuse_session *se;
	char path[4096];
	dof_helper_t h;
	pthread_t t;
	void *map;
	int fd, dfd, rc, err, e2;
	double t0;

	if (!mnt || !secs) {
		fprintf(stderr, "dofclient: %s needs a mount point and a "
			"number of seconds\n", name);
		return 2;
	}
	stall_name = name;
	stall_secs = (unsigned)atoi(secs);
	build_default(stall_page);
	self_check(stall_page, HDR(stall_page)->dofh_loadsz);
	mkdir(mnt, 0755);
	se = fuse_session_new(&args, &stall_ops, sizeof(stall_ops), NULL);
	fuse_opt_free_args(&args);
	if (!se || fuse_session_mount(se, mnt) != 0) {
		fprintf(stderr, "dofclient: cannot mount FUSE on %s\n", mnt);
		return 2;
	}
	if (pthread_create(&t, NULL, stall_loop, se) != 0)
		return 2;
	snprintf(path, sizeof(path), "%s/dof", mnt);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	map = fd < 0 ? MAP_FAILED :
		       mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "dofclient: %s: %s\n", path, strerror(errno));
		fuse_session_unmount(se);
		return 2;
	}
	close(fd);
	if (hidden && umount2(mnt, MNT_DETACH) < 0) {
		fprintf(stderr, "dofclient: umount -l %s: %s\n", mnt,
			strerror(errno));
		fuse_session_unmount(se);
		return 2;
	}
	helper_for(&h, map);
	drop_uid(); /* the session's descriptor stays ours */
	dfd = open_dev();
	t0 = now_s();
	rc = xioctl(dfd, DTRACEHIOC_ADDDOF, &h, &err);
	t0 = now_s() - t0;
	report(name, rc, err);
	printf("%s: ioctl took %.1f s\n", name, t0);
	if (rc > 0)
		xioctl(dfd, DTRACEHIOC_REMOVE, &rc, &e2);
	close(dfd);
	/* Whoever reads the page waits for us until we have answered. */
	for (t0 = now_s(); stall_requested && !stall_replied &&
			   now_s() - t0 < stall_secs + 10;)
		usleep(10000);
	if (!hidden)
		fuse_session_unmount(se);
	/* Exiting closes /dev/fuse: the kernel ends the session. */
	return 0;
}

/* A correct registration from a process of its own, withdrawn at once. */
/*
 * verdict NAME: attack NAME's request as its first answer alone (no
 * SYNC), then SYNC of that generation (the verdict of the check), then
 * REMOVE of it, as $DOFCLIENT_UID:
 *	NAME: pid=P answer=G|ERRNO verdict=0|ERRNO remove=0|ERRNO registry=..
 */
static int run_verdict(const struct attack *at)
{
	struct att a;
	int g, v, err;
	const char *answer, *verdict = "-", *removed = "-";
	char gbuf[16];

	drop_uid();
	att_init(&a);
	at->mut(&a);
	errno = 0;
	g = ioctl(a.fd, a.cmd, a.arg);
	answer = g < 0 ? errname(errno) : gbuf;
	snprintf(gbuf, sizeof(gbuf), "%d", g);
	if (g > 0) {
		v = g;
		verdict = ioctl(a.fd, DTRACEHIOC_SYNC, &v) < 0 ? errname(errno) :
								 "0";
		removed = xioctl(a.fd, DTRACEHIOC_REMOVE, &g, &err) < 0 ?
				  errname(err) : "0";
	}
	printf("%s: pid=%d answer=%s verdict=%s remove=%s registry=%s\n",
	       at->name, (int)getpid(), answer, verdict, removed,
	       registry_state(getpid()));
	close(a.fd);
	return 0;
}

static int run_legit(void)
{
	struct att a;
	int rc, err, e2;

	drop_uid();
	att_init(&a);
	rc = xioctl(a.fd, DTRACEHIOC_ADDDOF, &a.h, &err);
	report("legit", rc, err);
	if (rc > 0 && xioctl(a.fd, DTRACEHIOC_REMOVE, &rc, &e2) < 0)
		printf("legit: remove errno=%s\n", errname(e2));
	close(a.fd);
	return 0;
}

static volatile int race_stop;

static void *flipper(void *arg)
{
	volatile uint8_t *b = arg;
	volatile dof_hdr_t *h = (volatile dof_hdr_t *)(volatile void *)b;
	uint64_t small = h->dofh_loadsz, big = small + 4096;
	uint32_t nameidx = PROBE((uint8_t *)arg)->dofpr_name;
	volatile uint8_t *name =
		b + SEC((uint8_t *)arg, S_STRTAB)->dofs_offset + nameidx;
	unsigned k = 0;

	while (!race_stop) {
		k++;
		h->dofh_loadsz = (k & 1) ? big : small;
		name[0] = (k & 2) ? '!' : 'p';
	}
	h->dofh_loadsz = small;
	name[0] = 'p';
	return NULL;
}

static int run_race(void)
{
	unsigned n = 500, i, ok = 0, einval = 0, efault = 0, other = 0;
	unsigned rmfail = 0;
	pthread_t t;
	struct att a;
	int rc, err, e2;

	att_init(&a);
	/* room for loadsz + 4096 is there only up to the guard page */
	HDR(a.b)->dofh_filesz = a.len + 4096;
	move_to_end(&a);
	self_check(a.b, a.len);
	if (pthread_create(&t, NULL, flipper, a.b) != 0) {
		fprintf(stderr, "dofclient: pthread_create failed\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		rc = xioctl(a.fd, DTRACEHIOC_ADDDOF, &a.h, &err);
		if (rc > 0) {
			ok++;
			if (xioctl(a.fd, DTRACEHIOC_REMOVE, &rc, &e2) < 0)
				rmfail++;
		} else if (rc < 0 && err == EINVAL) {
			einval++;
		} else if (rc < 0 && err == EFAULT) {
			efault++;
		} else {
			other++;
			fprintf(stderr, "race: rc=%d errno=%s\n", rc,
				errname(err));
		}
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("race: pid=%d n=%u ok=%u einval=%u efault=%u other=%u "
	       "rmfail=%u registry=%s\n", (int)getpid(), n, ok, einval, efault,
	       other, rmfail, registry_state(getpid()));
	close(a.fd);
	return 0;
}

static void *exit_racer(void *arg)
{
	struct att *a = arg;
	int err;

	xioctl(a->fd, DTRACEHIOC_ADDDOF, &a->h, &err);
	return NULL;
}

static int run_exit_race(void)
{
	unsigned n = 50, i, left = 0, tries;
	pid_t kids[50];
	char path[4096];
	const char *dir = getenv("DTRACE_STATEDIR");
	struct stat st;

	for (i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("dofclient: fork");
			return 2;
		}
		if (kids[i] == 0) {
			struct att a;
			pthread_t t;
			struct timespec ts = { 0, (long)(i % 10) * 20000 };

			att_init(&a);
			if (pthread_create(&t, NULL, exit_racer, &a) != 0)
				_exit(3);
			nanosleep(&ts, NULL);
			_exit(0); /* the other thread may be in the ioctl */
		}
	}
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	/*
	 * Exits are seen through pidfds or the periodic check (1 s); 30 s
	 * for a daemon that a loaded machine (a sanitizer build, tests in
	 * parallel) keeps from its loop: once in CI, one file of 50 was
	 * still there after 10 s.
	 */
	for (tries = 0; dir && tries < 300; tries++) {
		left = 0;
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/registry/%d", dir,
				 (int)kids[i]);
			if (stat(path, &st) == 0)
				left++;
		}
		if (!left)
			break;
		usleep(100000);
	}
	printf("exit-race: pid=%d children=%u leftover=%u\n", (int)getpid(), n,
	       left);
	return 0;
}

/* REMOVE cases: the generation from ARG where it matters. */
static int run_remove(const char *name, const char *arg)
{
	int fd = open_dev(), rc, err, gen = arg ? atoi(arg) : 0;

	if (!strcmp(name, "remove-other")) {
		if (!arg) {
			fprintf(stderr, "dofclient: remove-other needs the "
				"generation of another process\n");
			return 2;
		}
		rc = xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err);
	} else if (!strcmp(name, "remove-never")) {
		gen = 0x7ffffff0;
		rc = xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err);
	} else if (!strcmp(name, "remove-zero")) {
		gen = 0;
		rc = xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err);
	} else if (!strcmp(name, "remove-negative")) {
		gen = -1;
		rc = xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err);
	} else if (!strcmp(name, "remove-byvalue")) {
		/* the classic ABI: the generation as the argument itself */
		rc = xioctl(fd, DTRACEHIOC_REMOVE,
			    (void *)(uintptr_t)(arg ? gen : 1), &err);
	} else if (!strcmp(name, "remove-null")) {
		rc = xioctl(fd, DTRACEHIOC_REMOVE, NULL, &err);
	} else {
		fprintf(stderr, "dofclient: no attack '%s'\n", name);
		return 2;
	}
	report(name, rc, err);
	close(fd);
	return 0;
}

/* ---- the polite client ------------------------------------------------- */

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static int run_valid(const char *mod)
{
	struct sigaction sa;
	uint8_t *b = arena(BLOB_MAX);
	size_t len = build_default(b);
	dof_helper_t h;
	char buf[256];
	int fd, gen, err;

	self_check(b, len);
	helper_for(&h, b);
	if (mod)
		snprintf(h.dofhp_mod, sizeof(h.dofhp_mod), "%s", mod);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: read() returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = open_dev();
	gen = xioctl(fd, DTRACEHIOC_ADDDOF, &h, &err);
	close(fd);
	printf("valid: pid=%d gen=%d errno=%s dof=0x%" PRIx64 "\n",
	       (int)getpid(), gen, errname(err), h.dofhp_dof);
	fflush(stdout);
	if (gen < 0)
		return 1;
	while (!got_signal) {
		ssize_t n = read(0, buf, sizeof(buf));

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	/* Like drti's destructor: a fresh descriptor, the generation by
	 * pointer; the device may be gone by now. */
	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("valid: remove rc=-1 errno=%s (open)\n", errname(errno));
		return 0;
	}
	printf("valid: remove rc=%d", xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err));
	printf(" errno=%s\n", errname(err));
	close(fd);
	return 0;
}

static int run_ping(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC), gen = -1, rc, err;

	if (fd < 0) {
		printf("ping: open errno=%s\n", errname(errno));
		return 1;
	}
	rc = xioctl(fd, DTRACEHIOC_REMOVE, &gen, &err);
	printf("ping: rc=%d errno=%s\n", rc, errname(err));
	close(fd);
	return rc < 0 && err == EINVAL ? 0 : 1;
}

static int run_sync(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC), zero = 0, rc, err;

	if (fd < 0) {
		printf("sync: open errno=%s\n", errname(errno));
		return 1;
	}
	rc = xioctl(fd, DTRACEHIOC_SYNC, &zero, &err);
	printf("sync: rc=%d errno=%s\n", rc, errname(err));
	close(fd);
	return rc == 0 ? 0 : 1;
}

static void usage(FILE *fp)
{
	fprintf(fp, "Usage: dofclient [-d DEVICE] valid [MODULE]\n"
		    "       dofclient [-d DEVICE] attack NAME [ARG]\n"
		    "       dofclient [-d DEVICE] ping\n"
		    "       dofclient [-d DEVICE] sync\n"
		    "       dofclient [-d DEVICE] verdict NAME\n"
		    "       dofclient list\n"
		    "       dofclient sec | nextsec\n");
}

/*
 * sec, nextsec: the daemon's log windows are whole seconds of
 * CLOCK_MONOTONIC; a test paces its refusals by them (at most so many a
 * window) instead of sleeping a second and more between them.
 */
static int run_sec(bool next)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		perror("dofclient: clock_gettime");
		return 1;
	}
	if (next) {
		ts.tv_sec++;
		ts.tv_nsec = 0;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		return 0;
	}
	printf("%lld\n", (long long)ts.tv_sec);
	return 0;
}

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	const char *mode;
	size_t i;

	if (ps > 0)
		page_size = (size_t)ps;
	setvbuf(stdout, NULL, _IOLBF, 0);
	device = getenv(DRTI_ENV_DEVNAME);
	if (!device || !*device)
		device = DTRACE_HELPER_DEVICE;
	if (argc > 2 && !strcmp(argv[1], "-d")) {
		device = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	if (!strcmp(mode, "list")) {
		for (i = 0; i < NATTACKS; i++)
			puts(attacks[i].name);
		return 0;
	}
	if (!strcmp(mode, "valid"))
		return run_valid(argc > 2 ? argv[2] : NULL);
	if (!strcmp(mode, "ping"))
		return run_ping();
	if (!strcmp(mode, "sec") || !strcmp(mode, "nextsec"))
		return run_sec(!strcmp(mode, "nextsec"));
	if (!strcmp(mode, "sync"))
		return run_sync();
	if (!strcmp(mode, "verdict") && argc > 2) {
		for (i = 0; i < NATTACKS; i++)
			if (!strcmp(argv[2], attacks[i].name))
				return run_verdict(&attacks[i]);
		usage(stderr);
		return 2;
	}
	if (strcmp(mode, "attack") || argc < 3) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < NATTACKS; i++)
		if (!strcmp(argv[2], attacks[i].name))
			return run_single(&attacks[i]);
	if (!strcmp(argv[2], "flood"))
		return run_flood();
	if (!strcmp(argv[2], "quota"))
		return run_quota();
	if (!strcmp(argv[2], "quota-bytes"))
		return run_quota_bytes();
	if (!strcmp(argv[2], "bigbad"))
		return run_bigbad();
	if (!strcmp(argv[2], "fuse-stall") || !strcmp(argv[2], "fuse-hidden"))
		return run_fuse_stall(argv[2], argc > 3 ? argv[3] : NULL,
				      argc > 4 ? argv[4] : NULL);
	if (!strcmp(argv[2], "legit"))
		return run_legit();
	if (!strcmp(argv[2], "race"))
		return run_race();
	if (!strcmp(argv[2], "exit-race"))
		return run_exit_race();
	return run_remove(argv[2], argc > 3 ? argv[3] : NULL);
}
