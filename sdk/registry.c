// SPDX-License-Identifier: MIT
/*
 * registry.c - read and write the helper's per-process registry files.
 *
 * The format is in registry.h.  The writer is dtrace-helperd; readers are
 * `dtrace` and the tests.  Reading is strict: a file that does not parse
 * exactly (a missing "end", a short DOF block, a DOF that dof_check()
 * refuses) is refused as a whole with a message naming the file and line,
 * and reg_load_all() skips it, so one damaged file never hides the others.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "dof_check.h"
#include "grow.h"
#include "procfs.h"
#include "registry.h"
#include "text.h"
#include "usdt/helper_abi.h"

/* A registry file never needs more than this many bytes per DOF. */
#define REG_DOF_MAX DOF_MAX_SIZE_DEFAULT

const char *reg_statedir(void)
{
	const char *s = getenv(REG_STATEDIR_ENV);
	struct stat st;

	if (s && *s)
		return s;
	/* the kernel helper (dtrace_helper.ko) keeps its registry in /proc */
	if (stat(REG_STATEDIR_KERNEL "/" REG_DIR, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return REG_STATEDIR_KERNEL;
	return REG_STATEDIR_DEFAULT;
}

static void say(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
}

void reg_escape(const char *s, char *buf, size_t buflen)
{
	const char *special = reg_token_special(s);
	char out[REG_TOKEN_BYTE_MAX];
	size_t o = 0;

	if (!buflen)
		return;
	if (special) {
		snprintf(buf, buflen, "%s", special);
		return;
	}
	for (; *s; s++) {
		unsigned int n = reg_token_byte((unsigned char)*s, out);

		if (o + n >= buflen)
			break;
		memcpy(buf + o, out, n);
		o += n;
	}
	buf[o] = '\0';
}

int reg_unescape(char *s)
{
	char *o = s;

	if (!strcmp(s, "-")) {
		*s = '\0';
		return 0;
	}
	while (*s) {
		if (*s == '%') {
			int hi = txt_hexval(s[1]);
			int lo = hi < 0 ? -1 : txt_hexval(s[2]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return -1;
			*o++ = (char)(hi << 4 | lo);
			s += 3;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return 0;
}

int reg_proc_stat(pid_t pid, uint64_t *start, char *comm, size_t commlen)
{
	struct proc_stat ps;
	int err = proc_stat_read(pid, "stat", &ps, comm, commlen);

	if (!err && start)
		*start = ps.start;
	return err;
}

bool reg_proc_alive(pid_t pid, uint64_t start)
{
	uint64_t st;

	return reg_proc_stat(pid, &st, NULL, 0) == 0 && st == start;
}

static int reg_dir(const char *statedir, char *buf, size_t buflen)
{
	if ((size_t)snprintf(buf, buflen, "%s/%s", statedir, REG_DIR) >= buflen)
		return -ENAMETOOLONG;
	return 0;
}

int reg_proc_remove(const char *statedir, pid_t pid)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%d", statedir, REG_DIR,
			     (int)pid) >= sizeof(path))
		return -ENAMETOOLONG;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int reg_proc_write(const char *statedir, const struct reg_proc *p,
		   char *msg, size_t msglen)
{
	char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	char comm[REG_TOKEN_MAX(REG_COMM_MAX)];
	char mod[REG_TOKEN_MAX(DTRACE_MODNAMELEN)];
	char *epath = NULL;
	FILE *fp = NULL;
	size_t i;
	int fd, err;

	if (!p->nent) {
		err = reg_proc_remove(statedir, p->pid);
		if (err)
			say(msg, msglen, "cannot remove %s/%s/%d: %s", statedir,
			    REG_DIR, (int)p->pid, strerror(-err));
		return err;
	}
	err = reg_dir(statedir, dir, sizeof(dir));
	if (err)
		goto fail_name;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d", dir, (int)p->pid) >=
		    sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/%d.tmp", dir, (int)p->pid) >=
		    sizeof(tmp)) {
		err = -ENAMETOOLONG;
		goto fail_name;
	}
	/* The directory is made when first needed: one call less after. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			err = -errno;
			say(msg, msglen, "cannot create %s: %s", dir,
			    strerror(-err));
			return err;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			       O_NOFOLLOW, 0644);
	}
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		say(msg, msglen, "cannot create %s: %s", tmp, strerror(-err));
		return err;
	}
	reg_escape(p->comm, comm, sizeof(comm));
	fprintf(fp, REG_FMT_HEAD "%s\n", (int)p->pid,
		(unsigned long long)p->start, comm);
	for (i = 0; i < p->nent; i++) {
		const struct reg_entry *e = &p->ent[i];
		size_t plen = strlen(e->path ? e->path : "");

		free(epath);
		epath = malloc(REG_TOKEN_MAX(plen));
		if (!epath) {
			err = -ENOMEM;
			goto fail_io;
		}
		reg_escape(e->path ? e->path : "", epath, REG_TOKEN_MAX(plen));
		reg_escape(e->mod, mod, sizeof(mod));
		fprintf(fp, REG_FMT_ENTRY "%s %s\n",
			(unsigned long long)e->gen, (unsigned long long)e->base,
			(unsigned long long)e->dof_addr,
			(unsigned long long)e->dev, (unsigned long long)e->ino,
			(unsigned long long)e->dof_len,
			e->origin == REG_ORIGIN_SCAN ? REG_ORIGIN_SCAN_NAME :
			e->origin == REG_ORIGIN_FORK ? REG_ORIGIN_FORK_NAME :
						       REG_ORIGIN_IOCTL_NAME,
			mod, epath);
		if (e->dof_len && fwrite(e->dof, 1, e->dof_len, fp) != e->dof_len)
			break;
		fputc('\n', fp);
	}
	fputs(REG_END_LINE "\n", fp);
	free(epath);
	epath = NULL;
	if (fflush(fp) != 0 || ferror(fp)) {
		err = -errno;
		goto fail_io;
	}
	if (fclose(fp) != 0) {
		fp = NULL;
		err = -errno;
		goto fail_io;
	}
	fp = NULL;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto fail_io;
	}
	return 0;

fail_io:
	if (!err)
		err = -EIO;
	free(epath);
	if (fp)
		fclose(fp);
	say(msg, msglen, "cannot write %s: %s", tmp, strerror(-err));
	unlink(tmp);
	return err;
fail_name:
	say(msg, msglen, "state directory path too long: %s", statedir);
	return err;
}

void reg_proc_free(struct reg_proc *p)
{
	size_t i;

	for (i = 0; i < p->nent; i++) {
		free(p->ent[i].path);
		free(p->ent[i].dof);
	}
	free(p->ent);
	p->ent = NULL;
	p->nent = 0;
}

void reg_proc_drop(struct reg_proc *p, size_t i)
{
	if (i >= p->nent)
		return;
	free(p->ent[i].path);
	free(p->ent[i].dof);
	memmove(&p->ent[i], &p->ent[i + 1],
		(p->nent - i - 1) * sizeof(p->ent[0]));
	p->nent--;
}

/* Read one '\n'-terminated line (without it) into a malloc'ed *line. */
static int get_line(FILE *fp, char **line, size_t *cap)
{
	ssize_t n = getline(line, cap, fp);

	if (n <= 0 || (*line)[n - 1] != '\n')
		return -1;
	(*line)[n - 1] = '\0';
	if (strlen(*line) != (size_t)n - 1)
		return -1; /* a NUL inside a text line */
	return 0;
}

/*
 * A number as the writer spells it: decimal digits, or 0x and hex digits
 * where the format says 0x-hex.  Nothing else: strtoull() alone would
 * also take blanks, signs, octal ("010" is 8) and hex in a decimal field.
 */
static int parse_num(const char *s, bool hex, uint64_t *v)
{
	const char *d = s;
	char *end;

	if (hex) {
		if (strncmp(s, "0x", 2) != 0)
			return -1;
		d = s + 2;
	}
	if (!(hex ? isxdigit((unsigned char)*d) : isdigit((unsigned char)*d)))
		return -1;
	errno = 0;
	*v = strtoull(d, &end, hex ? 16 : 10);
	return errno || *end ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	return parse_num(s, false, v);
}

static int parse_x64(const char *s, uint64_t *v)
{
	return parse_num(s, true, v);
}

int reg_proc_read(const char *path, struct reg_proc *p, char *msg,
		  size_t msglen)
{
	char *line = NULL, *tok[10];
	size_t cap = 0;
	unsigned lineno = 0;
	uint64_t v;
	FILE *fp;
	int err = -EINVAL, ntok;
	const char *what = "truncated file";

	memset(p, 0, sizeof(*p));
	fp = fopen(path, "re");
	if (!fp) {
		err = -errno;
		say(msg, msglen, "%s: %s", path, strerror(-err));
		return err;
	}
#define NEXT()                                        \
	do {                                          \
		lineno++;                             \
		if (get_line(fp, &line, &cap) < 0)    \
			goto bad;                     \
	} while (0)

	NEXT();
	what = "not a registry file";
	if (strcmp(line, REG_MAGIC))
		goto bad;
	NEXT();
	what = "expected 'pid N'";
	if (strncmp(line, "pid ", 4) || parse_u64(line + 4, &v) || !v ||
	    v > INT_MAX)
		goto bad;
	p->pid = (pid_t)v;
	NEXT();
	what = "expected 'start N'";
	if (strncmp(line, "start ", 6) || parse_u64(line + 6, &p->start))
		goto bad;
	NEXT();
	what = "expected 'comm NAME'";
	if (strncmp(line, "comm ", 5) || reg_unescape(line + 5) ||
	    strlen(line + 5) >= sizeof(p->comm))
		goto bad;
	strcpy(p->comm, line + 5);
	for (;;) {
		struct reg_entry e;
		struct dof_err derr;

		what = "truncated file: no 'end'";
		NEXT();
		if (!strcmp(line, REG_END_LINE))
			break;
		what = "expected 'reg ...' or 'end'";
		ntok = 0;
		/* exactly ten tokens, one blank apart (as written) */
		for (char *t = line, *sp;; t = sp + 1) {
			if (ntok == 10)
				goto bad;
			tok[ntok++] = t;
			sp = strchr(t, ' ');
			if (!sp)
				break;
			*sp = '\0';
		}
		if (ntok != REG_ENTRY_NTOK || strcmp(tok[0], "reg"))
			goto bad;
		for (int i = 0; i < 10; i++)
			if (!*tok[i])
				goto bad;
		memset(&e, 0, sizeof(e));
		what = "malformed number in 'reg' line";
		if (parse_u64(tok[1], &e.gen) || parse_x64(tok[2], &e.base) ||
		    parse_x64(tok[3], &e.dof_addr) ||
		    parse_x64(tok[4], &e.dev) || parse_u64(tok[5], &e.ino) ||
		    parse_u64(tok[6], &v))
			goto bad;
		what = "DOF size out of range";
		if (v < sizeof(dof_hdr_t) || v > REG_DOF_MAX)
			goto bad;
		e.dof_len = (size_t)v;
		what = "unknown origin";
		if (!strcmp(tok[7], REG_ORIGIN_IOCTL_NAME))
			e.origin = REG_ORIGIN_IOCTL;
		else if (!strcmp(tok[7], REG_ORIGIN_SCAN_NAME))
			e.origin = REG_ORIGIN_SCAN;
		else if (!strcmp(tok[7], REG_ORIGIN_FORK_NAME))
			e.origin = REG_ORIGIN_FORK;
		else
			goto bad;
		what = "malformed module or path";
		if (reg_unescape(tok[8]) || strlen(tok[8]) >= sizeof(e.mod) ||
		    reg_unescape(tok[9]))
			goto bad;
		strcpy(e.mod, tok[8]);
		e.path = strdup(tok[9]);
		e.dof = malloc(e.dof_len);
		what = "out of memory";
		if (!e.path || !e.dof) {
			err = -ENOMEM;
			free(e.path);
			free(e.dof);
			goto bad;
		}
		what = "short DOF block";
		if (fread(e.dof, 1, e.dof_len, fp) != e.dof_len ||
		    fgetc(fp) != '\n') {
			free(e.path);
			free(e.dof);
			goto bad;
		}
		if (dof_check(e.dof, e.dof_len, REG_DOF_MAX, &derr)) {
			say(msg, msglen, "%s: line %u: DOF of generation %" PRIu64
				    " refused: %s (offset %" PRIu64 ")",
			    path, lineno, e.gen, derr.msg, derr.off);
			free(e.path);
			free(e.dof);
			err = -EINVAL;
			goto out_err;
		}
		if (grow_count(&p->ent, p->nent, sizeof(*p->ent)) < 0) {
			free(e.path);
			free(e.dof);
			err = -ENOMEM;
			what = "out of memory";
			goto bad;
		}
		p->ent[p->nent++] = e;
	}
	what = "data after 'end'";
	if (fgetc(fp) != EOF)
		goto bad;
#undef NEXT
	free(line);
	fclose(fp);
	return 0;

bad:
	say(msg, msglen, "%s: line %u: %s", path, lineno, what);
out_err:
	free(line);
	fclose(fp);
	reg_proc_free(p);
	return err;
}

static int cmp_pid_t(const void *a, const void *b)
{
	const pid_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* The pids the registry has a file of, sorted; names only, no reading. */
static int reg_pids(const char *dir, pid_t **pids, size_t *npids)
{
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*pids = NULL;
	*npids = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		const char *c;
		long long pid;

		/* Only "<digits>": skips ".", "..", "N.tmp" and strays. */
		for (c = de->d_name; *c >= '0' && *c <= '9'; c++)
			;
		if (c == de->d_name || *c || c - de->d_name > 10 ||
		    de->d_name[0] == '0')
			continue;
		pid = strtoll(de->d_name, NULL, 10);
		if (pid <= 0 || pid > INT32_MAX)
			continue;
		if (grow_one(&v, &cap, n, sizeof(*v)) < 0) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (pid_t)pid;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid_t);
	*pids = v;
	*npids = n;
	return 0;
}

/*
 * dtrace-helperd answers ADDDOF before it has checked the DOF and
 * records it after (helper-driver/hd_queue.c), and names its device in
 * <statedir>/device.  SYNC there returns once everything registered so
 * far is checked and written, so a walk that follows it sees every
 * registration whose ADDDOF returned before.  The file is trusted only
 * where its owner could have opened the device anyway: the directory
 * and the file root's or ours and writable by nobody else, and the
 * device a FUSE file or a character device, opened without blocking --
 * opening it must do nothing else.  No file (the kernel module, a
 * daemon that is not up), or anything odd, means nothing to wait for.
 */
#define REG_FUSE_SUPER_MAGIC 0x65735546

static bool reg_owned_safely(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

void reg_sync(const char *statedir)
{
	char dev[PATH_MAX];
	struct statfs sf;
	struct stat st;
	ssize_t n;
	int dfd, fd, zero = 0;

	dfd = open(statedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	if (fstat(dfd, &st) < 0 || !reg_owned_safely(&st)) {
		close(dfd);
		return;
	}
	fd = openat(dfd, REG_DEVICE_FILE,
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dfd);
	if (fd < 0)
		return;
	n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && reg_owned_safely(&st))
		n = read(fd, dev, sizeof(dev) - 1);
	close(fd);
	if (n <= 1 || dev[0] != '/')
		return;
	dev[n] = '\0';
	dev[strcspn(dev, "\n")] = '\0';
	if (stat(dev, &st) < 0 ||
	    (S_ISREG(st.st_mode) ? statfs(dev, &sf) < 0 ||
				   sf.f_type != REG_FUSE_SUPER_MAGIC :
				   !S_ISCHR(st.st_mode)))
		return;
	fd = open(dev, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	(void)ioctl(fd, DTRACEHIOC_SYNC, &zero);
	close(fd);
}

int reg_each(const char *statedir, bool live_only,
	     void (*warn)(const char *msg, void *arg), void *arg,
	     int (*fn)(struct reg_proc *p, void *fnarg), void *fnarg)
{
	return reg_each_pids(statedir, NULL, 0, live_only, warn, arg, fn,
			     fnarg);
}

/*
 * The one walk: the files of the pids in only, or (only NULL) those the
 * directory lists with lo <= pid <= hi.
 */
static int reg_walk(const char *statedir, const pid_t *only, size_t nonly,
		    pid_t lo, pid_t hi, bool live_only,
		    void (*warn)(const char *msg, void *arg), void *arg,
		    int (*fn)(struct reg_proc *p, void *fnarg), void *fnarg)
{
	char dir[PATH_MAX], path[PATH_MAX], msg[PATH_MAX + 128];
	pid_t *pids;
	size_t n;
	int err;

	if (only && !nonly)
		return 0; /* no file: no directory, no SYNC */
	err = reg_dir(statedir, dir, sizeof(dir));
	if (err)
		return err;
	reg_sync(statedir);
	if (only) {
		/* those files alone (absent ones are ENOENT below) */
		pids = malloc(nonly * sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		memcpy(pids, only, nonly * sizeof(*pids));
		qsort(pids, nonly, sizeof(*pids), cmp_pid_t);
		n = 0;
		for (size_t i = 0; i < nonly; i++)
			if (!n || pids[n - 1] != pids[i])
				pids[n++] = pids[i];
	} else {
		size_t k = 0;

		err = reg_pids(dir, &pids, &n);
		if (err)
			return err;
		for (size_t i = 0; i < n; i++)
			if (pids[i] >= lo && pids[i] <= hi)
				pids[k++] = pids[i];
		n = k;
	}
	for (size_t i = 0; i < n && !err; i++) {
		struct reg_proc p;

		if ((size_t)snprintf(path, sizeof(path), "%s/%d", dir,
				     (int)pids[i]) >= sizeof(path))
			continue;
		err = reg_proc_read(path, &p, msg, sizeof(msg));
		if (err) {
			if (err != -ENOENT && warn) /* ENOENT: pruned meanwhile */
				warn(msg, arg);
			err = 0;
			continue;
		}
		if (pids[i] != p.pid) {
			/* a file is only ever written under its own pid */
			if (warn) {
				snprintf(msg, sizeof(msg),
					 "%s: line 2: pid %d is not the file's name",
					 path, (int)p.pid);
				warn(msg, arg);
			}
			reg_proc_free(&p);
			continue;
		}
		if (live_only && !reg_proc_alive(p.pid, p.start)) {
			reg_proc_free(&p);
			continue;
		}
		/* fn owns p now */
		err = fn(&p, fnarg);
	}
	free(pids);
	return err;
}

int reg_each_pids(const char *statedir, const pid_t *only, size_t nonly,
		  bool live_only, void (*warn)(const char *msg, void *arg),
		  void *arg, int (*fn)(struct reg_proc *p, void *fnarg),
		  void *fnarg)
{
	return reg_walk(statedir, only, nonly, 1, INT32_MAX, live_only, warn,
			arg, fn, fnarg);
}

int reg_each_range(const char *statedir, pid_t lo, pid_t hi, bool live_only,
		   void (*warn)(const char *msg, void *arg), void *arg,
		   int (*fn)(struct reg_proc *p, void *fnarg), void *fnarg)
{
	if (lo > hi)
		return 0; /* no file: no directory, no SYNC */
	return reg_walk(statedir, NULL, 0, lo, hi, live_only, warn, arg, fn,
			fnarg);
}

struct load_all {
	struct reg_proc *v;
	size_t n, cap;
};

static int load_one(struct reg_proc *p, void *arg)
{
	struct load_all *la = arg;

	if (grow_one(&la->v, &la->cap, la->n, sizeof(*la->v)) < 0) {
		reg_proc_free(p);
		return -ENOMEM;
	}
	la->v[la->n++] = *p;
	return 0;
}

int reg_load_all(const char *statedir, bool live_only,
		 void (*warn)(const char *msg, void *arg), void *arg,
		 struct reg_proc **procs, size_t *nprocs)
{
	struct load_all la = { NULL, 0, 0 };
	int err = reg_each(statedir, live_only, warn, arg, load_one, &la);

	*procs = NULL;
	*nprocs = 0;
	if (err) {
		reg_procs_free(la.v, la.n);
		return err;
	}
	*procs = la.v;
	*nprocs = la.n;
	return 0;
}

void reg_procs_free(struct reg_proc *procs, size_t nprocs)
{
	size_t i;

	for (i = 0; i < nprocs; i++)
		reg_proc_free(&procs[i]);
	free(procs);
}
