// SPDX-License-Identifier: MIT
/*
 * t-registry.c - TAP tests for sdk/registry.c, the helper's per-process
 * registry files (format in sdk/include/usdt/registry_format.h).
 *
 *  - escaping: round trips of blanks, '%', newlines, "-", the empty
 *    string and UTF-8, each escaped form one non-empty token of printable
 *    ASCII; malformed escapes refused;
 *  - a write and a read of a process with two registrations whose DOF is
 *    real (a provider file parsed and built with sdk/dof_build.c), every
 *    field and every DOF byte compared;
 *  - atomic replacement: a reader holding the old file still reads all of
 *    it after a rewrite, the new file is complete, no "<pid>.tmp" is left,
 *    and a failed write leaves the old file as it was;
 *  - malformed files, one fault each, refused with -EINVAL and a message
 *    naming the file, the line and the fault;
 *  - reg_load_all(): damaged files reported and skipped, dead processes
 *    and reused pids (start time mismatch) skipped, strays ignored,
 *    results sorted by pid;
 *  - reg_proc_stat() on a process whose comm holds ") " (prctl
 *    PR_SET_NAME "a) b c) d"), its start time checked against an
 *    independent parse of /proc/PID/stat, and staying put while the
 *    process grows (a start time must never be confused with vsize).
 *
 *  - reg_sync(): the device named in <statedir>/device is opened (seen
 *    through inotify's IN_OPEN on a private character device node) only
 *    when the directory and the file are the reader's or root's and
 *    writable by nobody else, the file no symbolic link, and the device
 *    a character device or a FUSE file -- never a plain file or a FIFO.
 *
 * Everything happens under a private temporary state directory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dof_build.h"
#include "dof_check.h"
#include "prov.h"
#include "registry.h"
#include "tap.h"

static char statedir[256];

/* ------------------------------------------------------------------ */
/* Helpers */

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!fp)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0)
		abort();
}

static void rm_rf_registry(void)
{
	char dir[512], path[1024];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/" REG_DIR, statedir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0)
			rmdir(path);
	}
	closedir(d);
	rmdir(dir);
}

static void reg_path(pid_t pid, const char *suffix, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" REG_DIR "/%d%s", statedir, (int)pid, suffix);
}

/* ------------------------------------------------------------------ */
/* Escaping */

static bool printable_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static void test_escape(void)
{
	static const struct {
		const char *in, *esc;
	} cases[] = {
		{"myapp", "myapp"},
		{"", "-"},
		{"-", "%2D"},
		{"--", "--"},
		{"a b", "a%20b"},
		{"100%", "100%25"},
		{"%2D", "%252D"},
		{"line\nbreak", "line%0Abreak"},
		{"tab\there", "tab%09here"},
		{"/usr/lib/libx.so (deleted)", "/usr/lib/libx.so%20(deleted)"},
		{"caf\xc3\xa9 \xe2\x9c\x93", "caf%C3%A9%20%E2%9C%93"},
		{"del\x7f", "del%7F"},
		{" ", "%20"},
	};
	char buf[256], back[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reg_escape(cases[i].in, buf, sizeof(buf));
		is_str(buf, cases[i].esc, "escape #%zu", i);
		ok(printable_token(buf), "escape #%zu is one printable token",
		   i);
		snprintf(back, sizeof(back), "%s", buf);
		is_int(reg_unescape(back), 0, "unescape #%zu", i);
		is_str(back, cases[i].in, "round trip #%zu", i);
	}

	/* every byte value but NUL survives */
	{
		char all[256], esc[3 * 256 + 1];

		for (int c = 1; c < 256; c++)
			all[c - 1] = (char)c;
		all[255] = '\0';
		reg_escape(all, esc, sizeof(esc));
		ok(printable_token(esc), "all bytes: one printable token");
		is_int(reg_unescape(esc), 0, "all bytes: unescape");
		ok(strcmp(esc, all) == 0, "all bytes: round trip");
	}

	/* lower-case hex is accepted too */
	snprintf(back, sizeof(back), "a%%2fb");
	is_int(reg_unescape(back), 0, "lower-case hex");
	is_str(back, "a/b", "lower-case hex decodes");

	static const char *const bad[] = {"%",	 "a%",	"%4", "%zz",
					  "%4g", "%00", "x%0"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(back, sizeof(back), "%s", bad[i]);
		is_int(reg_unescape(back), -1, "malformed escape '%s' refused",
		       bad[i]);
	}
}

/* ------------------------------------------------------------------ */
/* A real DOF blob */

static const char provider_text[] =
	"#pragma D attributes Evolving/Evolving/Common provider myapp "
	"provider\n"
	"provider myapp {\n"
	"	probe query__start(const char *q, int n) : (string q, int n);\n"
	"	probe tick();\n"
	"};\n";

static void *build_dof(size_t *len)
{
	struct prov_file *pf = NULL;
	struct prov_diag pd;
	const struct prov_provider *pv;
	struct dof_fprobe fp[2];
	struct dof_addr_reloc *relocs = NULL;
	unsigned nrelocs = 0;
	uint32_t offs0[] = {0x12, 0x40}, offs1[] = {0x8}, enoffs[] = {4};
	char err[256];
	void *blob = NULL;

	if (prov_parse_buf("t.d", provider_text, strlen(provider_text), &pf,
			   &pd) != 0) {
		diag("provider text: %s", pd.msg);
		return NULL;
	}
	pv = &pf->providers[0];
	memset(fp, 0, sizeof(fp));
	fp[0].pv = pv;
	fp[0].pr = &pv->probes[0];
	fp[0].func = "main";
	fp[0].sym = "main";
	fp[0].offs = offs0;
	fp[0].noffs = 2;
	fp[1].pv = pv;
	fp[1].pr = &pv->probes[1];
	fp[1].func = "loop";
	fp[1].sym = "loop";
	fp[1].offs = offs1;
	fp[1].noffs = 1;
	fp[1].enoffs = enoffs;
	fp[1].nenoffs = 1;
	if (dof_build(pf, fp, 2, &blob, len, &relocs, &nrelocs, err,
		      sizeof(err)) != 0) {
		diag("dof_build: %s", err);
		blob = NULL;
	}
	free(relocs);
	prov_file_free(pf);
	return blob;
}

static void make_proc(struct reg_proc *p, pid_t pid, uint64_t start,
		      const char *comm, const void *dof, size_t dof_len,
		      unsigned nent)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->start = start;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->nent = nent;
	p->ent = calloc(nent, sizeof(*p->ent));
	for (unsigned i = 0; i < nent; i++) {
		struct reg_entry *e = &p->ent[i];

		e->gen = i + 1;
		e->base = i ? 0x7f0000000000ULL + i * 0x1000 : 0;
		e->dof_addr = 0x404040 + i * 0x100000;
		e->dev = 0x803 + i;
		e->ino = 1234567 + i;
		e->origin = i % 2 ? REG_ORIGIN_SCAN : REG_ORIGIN_IOCTL;
		snprintf(e->mod, sizeof(e->mod), i ? "lib x%%.so" : "myapp");
		e->path = strdup(i ? "/opt/my lib/lib x%.so (deleted)"
				   : "/usr/bin/myapp");
		e->dof = malloc(dof_len);
		memcpy(e->dof, dof, dof_len);
		e->dof_len = dof_len;
	}
}

static void test_roundtrip(const void *dof, size_t dof_len)
{
	struct reg_proc p, q;
	char path[512], msg[512];
	int err;

	make_proc(&p, 4242, 987654321, "my app) x", dof, dof_len, 2);
	err = reg_proc_write(statedir, &p, msg, sizeof(msg));
	is_int(err, 0, "write a process with two registrations");
	if (err)
		diag("%s", msg);
	reg_path(4242, "", path, sizeof(path));
	err = reg_proc_read(path, &q, msg, sizeof(msg));
	is_int(err, 0, "read it back");
	if (err) {
		diag("%s", msg);
		reg_proc_free(&p);
		return;
	}
	is_int(q.pid, 4242, "pid");
	is_int(q.start, 987654321, "start");
	is_str(q.comm, "my app) x", "comm");
	is_int(q.nent, 2, "two entries");
	for (size_t i = 0; i < q.nent && i < 2; i++) {
		const struct reg_entry *a = &p.ent[i], *b = &q.ent[i];

		is_int(b->gen, a->gen, "entry %zu gen", i);
		is_int(b->base, a->base, "entry %zu base", i);
		is_int(b->dof_addr, a->dof_addr, "entry %zu dof address", i);
		is_int(b->dev, a->dev, "entry %zu dev", i);
		is_int(b->ino, a->ino, "entry %zu ino", i);
		is_int(b->origin, a->origin, "entry %zu origin", i);
		is_str(b->mod, a->mod, "entry %zu module", i);
		is_str(b->path, a->path, "entry %zu path", i);
		ok(b->dof_len == a->dof_len &&
			   memcmp(b->dof, a->dof, a->dof_len) == 0,
		   "entry %zu DOF bytes", i);
	}
	/* the DOF read back still reads as the provider built */
	{
		struct dof_prov_info pv;
		struct dof_probe_info pr;
		struct dof_err derr;
		uint32_t c = 0;
		uint64_t pc = 0;

		ok(dof_prov_next(q.ent[0].dof, q.ent[0].dof_len, &c, &pv,
				 &derr) == 1 &&
			   strcmp(pv.name, "myapp") == 0,
		   "DOF provider myapp");
		ok(dof_probe_next(&pv, &pc, &pr, &derr) == 1 &&
			   strcmp(pr.func, "main") == 0 &&
			   strcmp(pr.name, "query-start") == 0 &&
			   pr.noffs == 2 && dof_probe_off(&pr, 1) == 0x40,
		   "DOF probe myapp:main:query-start, two sites");
	}
	/* the header lines as documented */
	{
		size_t len;
		char *text = slurp(path, &len);

		ok(text && strncmp(text,
				   "usdt-registry 1\npid 4242\nstart "
				   "987654321\n"
				   "comm my%20app)%20x\nreg 1 0x0 0x404040 "
				   "0x803 "
				   "1234567 ",
				   strlen("usdt-registry 1\npid 4242\nstart "
					  "987654321\ncomm my%20app)%20x\nreg "
					  "1 "
					  "0x0 0x404040 0x803 1234567 ")) == 0,
		   "file starts as documented");
		const char *want = " scan lib%20x%25.so "
				   "/opt/my%20lib/lib%20x%25.so%20(deleted)\n";

		/* after the first DOF block, which holds NULs */
		ok(text && memmem(text, len, want, strlen(want)),
		   "second reg line escapes module and path");
		ok(text && len > 4 && strcmp(text + len - 4, "end\n") == 0,
		   "file ends with 'end'");
		free(text);
	}
	reg_proc_free(&q);

	/* no entries: the file goes */
	{
		struct reg_proc empty = p;

		empty.nent = 0;
		is_int(reg_proc_write(statedir, &empty, msg, sizeof(msg)), 0,
		       "write with no entries");
		ok(access(path, F_OK) < 0 && errno == ENOENT,
		   "... removes the file");
		is_int(reg_proc_remove(statedir, 4242), 0,
		       "removing an absent file is fine");
	}
	reg_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* Atomic replacement */

static void test_atomic(const void *dof, size_t dof_len)
{
	struct reg_proc p1, p2, q;
	char path[512], tmp[512], msg[512];
	size_t len1, len2, n;
	char *old, *now, *viaold;
	struct stat st1, st2;
	int fd, err;

	make_proc(&p1, 777, 11, "one", dof, dof_len, 1);
	make_proc(&p2, 777, 11, "two", dof, dof_len, 2);
	reg_path(777, "", path, sizeof(path));
	reg_path(777, ".tmp", tmp, sizeof(tmp));

	is_int(reg_proc_write(statedir, &p1, msg, sizeof(msg)), 0,
	       "first version");
	old = slurp(path, &len1);
	stat(path, &st1);
	fd = open(path, O_RDONLY);
	ok(fd >= 0, "a reader opens the first version");

	/* a stale temporary file from a killed writer is replaced */
	spit(tmp, "junk", 4);
	is_int(reg_proc_write(statedir, &p2, msg, sizeof(msg)), 0,
	       "second version over it");
	ok(access(tmp, F_OK) < 0, "no temporary file left");
	now = slurp(path, &len2);
	stat(path, &st2);
	ok(st1.st_ino != st2.st_ino, "the file was replaced, not rewritten");
	is_int(reg_proc_read(path, &q, msg, sizeof(msg)), 0,
	       "the new file is complete");
	is_str(q.comm, "two", "... and is the new version");
	is_int(q.nent, 2, "... with both entries");
	reg_proc_free(&q);

	/* the reader that opened the old file sees all of it, unchanged */
	viaold = malloc(len1 + 16);
	n = fd >= 0 ? (size_t)read(fd, viaold, len1 + 16) : 0;
	ok(old && n == len1 && memcmp(viaold, old, len1) == 0,
	   "the earlier reader reads the whole old file");
	if (fd >= 0)
		close(fd);
	free(viaold);

	/* a write that fails leaves the current file alone */
	ok(mkdir(tmp, 0700) == 0, "block the temporary name");
	err = reg_proc_write(statedir, &p1, msg, sizeof(msg));
	ok(err < 0, "write fails (%d)", err);
	ok(strstr(msg, "777.tmp") != NULL, "message names the file: %s", msg);
	{
		size_t len3;
		char *after = slurp(path, &len3);

		ok(after && len3 == len2 && memcmp(after, now, len2) == 0,
		   "the current file is untouched");
		free(after);
	}
	rmdir(tmp);
	free(old);
	free(now);
	reg_proc_free(&p1);
	reg_proc_free(&p2);
	reg_proc_remove(statedir, 777);
}

/* ------------------------------------------------------------------ */
/* Malformed files */

struct text {
	char *b;
	size_t len;
};

/* replace the first occurrence of from (within the text part) */
static bool edit(struct text *t, const char *from, const char *to)
{
	char *at = memmem(t->b, t->len, from, strlen(from));
	size_t fl = strlen(from), tl = strlen(to);
	char *nb;

	if (!at)
		return false;
	nb = malloc(t->len - fl + tl + 1);
	memcpy(nb, t->b, (size_t)(at - t->b));
	memcpy(nb + (at - t->b), to, tl);
	memcpy(nb + (at - t->b) + tl, at + fl,
	       t->len - (size_t)(at - t->b) - fl);
	t->len = t->len - fl + tl;
	nb[t->len] = '\0';
	free(t->b);
	t->b = nb;
	return true;
}

static void expect_refused(const char *what, const struct text *t,
			   const char *want_msg)
{
	char path[512], msg[512];
	struct reg_proc q;
	int err;

	reg_path(31337, "", path, sizeof(path));
	spit(path, t->b, t->len);
	memset(msg, 0, sizeof(msg));
	err = reg_proc_read(path, &q, msg, sizeof(msg));
	is_int(err, -EINVAL, "%s: refused", what);
	if (!tap_ok(strstr(msg, want_msg) != NULL &&
			    strncmp(msg, path, strlen(path)) == 0,
		    "%s: message names the file and says '%s'", what, want_msg))
		diag("got '%s'", msg);
	if (err == 0)
		reg_proc_free(&q);
}

static void test_malformed(const void *dof, size_t dof_len)
{
	struct reg_proc p;
	char path[512], msg[512];
	struct text good, t;
	char *reg_line, *dofpos;

	make_proc(&p, 31337, 5, "mal", dof, dof_len, 1);
	reg_proc_write(statedir, &p, msg, sizeof(msg));
	reg_proc_free(&p);
	reg_path(31337, "", path, sizeof(path));
	good.b = slurp(path, &good.len);
	reg_line = strstr(good.b, "\nreg ") + 1;
	dofpos = strchr(reg_line, '\n') + 1;

#define COPY()                                                                 \
	(t.b = memcpy(malloc(good.len + 1), good.b, good.len + 1),             \
	 t.len = good.len)

	COPY();
	edit(&t, "usdt-registry 1", "usdt-registry 2");
	expect_refused("bad magic", &t, "line 1: not a registry file");
	free(t.b);

	COPY();
	edit(&t, "\npid 31337\n", "\npid 0x7a69\n");
	expect_refused("hex pid", &t, "line 2: expected 'pid N'");
	free(t.b);

	COPY();
	edit(&t, "\nstart 5\n", "\nstart 05x\n");
	expect_refused("bad start", &t, "line 3: expected 'start N'");
	free(t.b);

	COPY();
	edit(&t, "\ncomm mal\n", "\ncomm m%zzl\n");
	expect_refused("bad escape in comm", &t,
		       "line 4: expected 'comm NAME'");
	free(t.b);

	COPY();
	edit(&t, "/usr/bin/myapp\n", "/usr/bin/my%4\n");
	expect_refused("bad escape in path", &t,
		       "line 5: malformed module or path");
	free(t.b);

	COPY();
	edit(&t, " 0x0 0x404040 ", " 0 0x404040 ");
	expect_refused("base not in hex", &t,
		       "line 5: malformed number in 'reg' line");
	free(t.b);

	COPY();
	edit(&t, "reg 1 ", "reg 010 x ");
	expect_refused("eleven tokens", &t,
		       "line 5: expected 'reg ...' or 'end'");
	free(t.b);

	COPY();
	edit(&t, "reg 1 ", "reg  1 ");
	expect_refused("two blanks", &t, "line 5: expected 'reg ...' or 'end'");
	free(t.b);

	COPY();
	edit(&t, " ioctl ", " magic ");
	expect_refused("unknown origin", &t, "line 5: unknown origin");
	free(t.b);

	/* the block is one byte short of its stated size: cut the file there */
	COPY();
	t.len = (size_t)(dofpos - good.b) + dof_len - 1;
	expect_refused("truncated DOF block", &t, "line 5: short DOF block");
	free(t.b);

	/* no 'end' after a good block */
	COPY();
	t.len -= strlen("end\n");
	expect_refused("missing end", &t, "line 6: truncated file: no 'end'");
	free(t.b);

	/* DOF that dof_check() refuses: a wrong magic byte */
	COPY();
	t.b[dofpos - good.b + 1] = 'X';
	expect_refused("DOF refused", &t,
		       "line 5: DOF of generation 1 refused: ");
	free(t.b);

	COPY();
	t.b = realloc(t.b, t.len + 8);
	memcpy(t.b + t.len, "garbage\n", 8);
	t.len += 8;
	expect_refused("garbage after end", &t, "line 6: data after 'end'");
	free(t.b);

	COPY();
	t.len = 10;
	expect_refused("cut in the magic line", &t, "line 1: ");
	free(t.b);

	/* a NUL in a text line */
	COPY();
	edit(&t, "\ncomm mal\n", "\ncomm m");
	t.b = realloc(t.b, t.len + 4);
	{
		char *at = (char *)memmem(t.b, t.len, "\ncomm m", 7) + 7;

		memmove(at + 3, at, t.len - (size_t)(at - t.b));
		memcpy(at, "\0l\n", 3);
		t.len += 3;
	}
	expect_refused("NUL in comm", &t, "line 4: ");
	free(t.b);
#undef COPY

	free(good.b);
	reg_proc_remove(statedir, 31337);
	{
		struct reg_proc q;

		is_int(reg_proc_read(path, &q, msg, sizeof(msg)), -ENOENT,
		       "a missing file is -ENOENT");
		ok(strstr(msg, path) != NULL, "... naming it");
	}
}

/* ------------------------------------------------------------------ */
/* Process identity */

/* field 22 of /proc/PID/stat, parsed independently of registry.c */
static uint64_t starttime_of(pid_t pid, char *comm, size_t commlen)
{
	char path[64], buf[2048], *rp, *f;
	unsigned long long v = 0;
	FILE *fp;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (comm) {
		char *lp = strchr(buf, '(');

		snprintf(comm, commlen, "%.*s", (int)(rp - lp - 1), lp + 1);
	}
	/* rp + 2: field 3 */
	f = strtok(rp + 2, " ");
	for (field = 3; f && field < 22; field++)
		f = strtok(NULL, " ");
	if (f)
		sscanf(f, "%llu", &v);
	return v;
}

static void test_stat(void)
{
	int ready[2], go[2];
	uint64_t st = 0, want;
	char comm[REG_COMM_MAX], indep[64];
	pid_t child;
	char c;
	int status;

	/* our own start time, and it does not move when we grow */
	want = starttime_of(getpid(), NULL, 0);
	is_int(reg_proc_stat(getpid(), &st, NULL, 0), 0, "stat self");
	is_int(st, want, "start time of self is field 22");
	{
		size_t big = 256 << 20;
		void *m = mmap(NULL, big, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);

		ok(reg_proc_alive(getpid(), want),
		   "alive with the start time recorded");
		if (m != MAP_FAILED) {
			uint64_t st2 = 0;

			reg_proc_stat(getpid(), &st2, NULL, 0);
			is_int(st2, want,
			       "start time unchanged after mapping 256 MiB");
			ok(reg_proc_alive(getpid(), want),
			   "still alive after growing");
			munmap(m, big);
		}
	}
	ok(!reg_proc_alive(getpid(), want + 1), "another start time is not us");

	/* a child named "a) b c) d" */
	if (pipe(ready) < 0 || pipe(go) < 0)
		abort();
	fflush(stdout); /* a child must not write our buffer again */
	child = fork();
	if (child == 0) {
		prctl(PR_SET_NAME, "a) b c) d", 0, 0, 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		abort();
	want = starttime_of(child, indep, sizeof(indep));
	is_str(indep, "a) b c) d", "the child's comm holds ') '");
	memset(comm, 'x', sizeof(comm));
	is_int(reg_proc_stat(child, &st, comm, sizeof(comm)), 0,
	       "stat the child");
	is_str(comm, "a) b c) d", "comm read whole");
	is_int(st, want, "start time is field 22 despite ') ' in comm");
	ok(reg_proc_alive(child, want), "child alive");
	{
		char small[4];

		reg_proc_stat(child, NULL, small, sizeof(small));
		is_str(small, "a) ", "comm truncated to the buffer");
	}
	if (write(go[1], "g", 1) != 1)
		abort();
	waitpid(child, &status, 0);
	is_int(reg_proc_stat(child, &st, NULL, 0), -ESRCH,
	       "a reaped child is -ESRCH");
	ok(!reg_proc_alive(child, want), "a reaped child is not alive");
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* ------------------------------------------------------------------ */
/* reg_load_all() */

struct warnings {
	unsigned n;
	char text[8][600];
};

static void on_warn(const char *msg, void *arg)
{
	struct warnings *w = arg;

	if (w->n < 8)
		snprintf(w->text[w->n], sizeof(w->text[0]), "%s", msg);
	w->n++;
}

static void test_load_all(const void *dof, size_t dof_len)
{
	struct reg_proc p, *procs;
	struct warnings w;
	size_t nprocs;
	char path[512], msg[512];
	uint64_t self_start = 0, parent_start = 0;
	pid_t dead, sleeper;
	int status, go[2];
	char c;

	rm_rf_registry();
	memset(&w, 0, sizeof(w));
	is_int(reg_load_all(statedir, true, on_warn, &w, &procs, &nprocs), 0,
	       "no registry directory: empty");
	is_int(nprocs, 0, "... nothing");

	/* ourselves, live */
	reg_proc_stat(getpid(), &self_start, NULL, 0);
	make_proc(&p, getpid(), self_start, "self", dof, dof_len, 2);
	reg_proc_write(statedir, &p, msg, sizeof(msg));
	reg_proc_free(&p);

	/* our parent, recorded with a start time that is not its own */
	reg_proc_stat(getppid(), &parent_start, NULL, 0);
	make_proc(&p, getppid(), parent_start + 1, "reused", dof, dof_len, 1);
	reg_proc_write(statedir, &p, msg, sizeof(msg));
	reg_proc_free(&p);

	/* a process that has exited */
	fflush(stdout); /* a child must not write our buffer again */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, &status, 0);
	make_proc(&p, dead, 1, "gone", dof, dof_len, 1);
	reg_proc_write(statedir, &p, msg, sizeof(msg));
	reg_proc_free(&p);

	/* a live process whose file is damaged */
	if (pipe(go) < 0)
		abort();
	fflush(stdout); /* a child must not write our buffer again */
	sleeper = fork();
	if (sleeper == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	{
		uint64_t st = 0;
		size_t len;
		char *text;

		reg_proc_stat(sleeper, &st, NULL, 0);
		make_proc(&p, sleeper, st, "damaged", dof, dof_len, 1);
		reg_proc_write(statedir, &p, msg, sizeof(msg));
		reg_proc_free(&p);
		reg_path(sleeper, "", path, sizeof(path));
		text = slurp(path, &len);
		spit(path, text, len - 4); /* no "end" */
		free(text);
	}

	/* strays: a temporary file, a non-numeric name, a file whose pid
	 * is not its name */
	reg_path(getpid(), ".tmp", path, sizeof(path));
	spit(path, "partial", 7);
	snprintf(path, sizeof(path), "%s/" REG_DIR "/README", statedir);
	spit(path, "x", 1);
	{
		char from[512], to[512];
		size_t len;
		char *text;

		reg_path(getpid(), "", from, sizeof(from));
		text = slurp(from, &len);
		reg_path(1, "", to, sizeof(to));
		spit(to, text, len);
		free(text);
	}

	memset(&w, 0, sizeof(w));
	is_int(reg_load_all(statedir, true, on_warn, &w, &procs, &nprocs), 0,
	       "load live processes");
	is_int(nprocs, 1, "only the live, intact file of ourselves");
	if (nprocs >= 1) {
		is_int(procs[0].pid, getpid(), "... that is us");
		is_int(procs[0].nent, 2, "... with both entries");
	}
	is_int(w.n, 2, "two warnings: the damaged file, the misnamed one");
	{
		char want_dam[64], want_mis[64];
		bool dam = false, mis = false;

		snprintf(want_dam, sizeof(want_dam), "/%d: line ",
			 (int)sleeper);
		snprintf(want_mis, sizeof(want_mis), "/1: line 2: pid %d ",
			 (int)getpid());
		for (unsigned i = 0; i < w.n && i < 8; i++) {
			dam |= strstr(w.text[i], want_dam) &&
			       strstr(w.text[i], "no 'end'");
			mis |= strstr(w.text[i], want_mis) != NULL;
			diag("warning: %s", w.text[i]);
		}
		ok(dam, "the damaged file is named, with the fault");
		ok(mis, "the misnamed file is named");
	}
	reg_procs_free(procs, nprocs);

	memset(&w, 0, sizeof(w));
	is_int(reg_load_all(statedir, false, NULL, NULL, &procs, &nprocs), 0,
	       "load all, live or not, no warn callback");
	is_int(nprocs, 3, "three intact files");
	if (nprocs == 3) {
		ok(procs[0].pid < procs[1].pid && procs[1].pid < procs[2].pid,
		   "sorted by pid");
		for (size_t i = 0; i < 3; i++)
			ok(procs[i].pid == getpid() ||
				   procs[i].pid == getppid() ||
				   procs[i].pid == dead,
			   "pid %d is one of ours", (int)procs[i].pid);
	}
	reg_procs_free(procs, nprocs);

	close(go[0]);
	close(go[1]);
	waitpid(sleeper, &status, 0);
	rm_rf_registry();
}

/* ------------------------------------------------------------------ */
/* reg_sync() */

/* Whether reg_sync() opened target: IN_OPEN events on it. */
static bool sync_opens(int ifd, const char *devfile_text, mode_t mode,
		       bool as_link)
{
	char path[512], real[512], buf[4096];
	bool opened = false;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/" REG_DEVICE_FILE, statedir);
	snprintf(real, sizeof(real), "%s/device.real", statedir);
	unlink(path);
	unlink(real);
	spit(as_link ? real : path, devfile_text, strlen(devfile_text));
	chmod(as_link ? real : path, mode);
	if (as_link && symlink(real, path) < 0)
		abort();
	while (read(ifd, buf, sizeof(buf)) > 0)
		; /* earlier events */
	reg_sync(statedir);
	while ((n = read(ifd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->mask & IN_OPEN)
				opened = true;
			p += sizeof(*ev) + ev->len;
		}
	unlink(path);
	unlink(real);
	return opened;
}

static void test_sync(void)
{
	char node[512], plain[512], fifo[512], text[600];
	int ifd;

	snprintf(node, sizeof(node), "%s/null", statedir);
	snprintf(plain, sizeof(plain), "%s/plain", statedir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", statedir);
	reg_sync(statedir); /* no device file: nothing to do */
	ok(1, "reg_sync() without a device file returns");
	if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) < 0) {
		diag("cannot make a device node (not root?): reg_sync() opens not checked");
		return;
	}
	spit(plain, "x", 1);
	if (mkfifo(fifo, 0600) < 0)
		abort();
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, node, IN_OPEN) < 0 ||
	    inotify_add_watch(ifd, plain, IN_OPEN) < 0 ||
	    inotify_add_watch(ifd, fifo, IN_OPEN) < 0) {
		diag("no inotify: reg_sync() opens not checked");
		goto out;
	}
	snprintf(text, sizeof(text), "%s\n", node);
	ok(sync_opens(ifd, text, 0644, false),
	   "a character device named by a safe file is opened");
	ok(!sync_opens(ifd, text, 0664, false),
	   "... not when the file is group-writable");
	ok(!sync_opens(ifd, text, 0644, true),
	   "... not through a symbolic link");
	chmod(statedir, 0777);
	ok(!sync_opens(ifd, text, 0644, false),
	   "... not when the state directory is writable by others");
	chmod(statedir, 0700);
	snprintf(text, sizeof(text), "%s\n", plain);
	ok(!sync_opens(ifd, text, 0644, false),
	   "a plain file (not FUSE) is never opened");
	snprintf(text, sizeof(text), "%s\n", fifo);
	ok(!sync_opens(ifd, text, 0644, false), "a FIFO is never opened");
	ok(!sync_opens(ifd, "null\n", 0644, false),
	   "a relative path is never followed");
	close(ifd);
out:
	unlink(node);
	unlink(plain);
	unlink(fifo);
}

int main(void)
{
	size_t dof_len = 0;
	void *dof;

	snprintf(statedir, sizeof(statedir), "%s/t-registry.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(statedir)) {
		perror("mkdtemp");
		return 99;
	}

	test_escape();
	dof = build_dof(&dof_len);
	ok(dof && dof_check(dof, dof_len, DOF_MAX_SIZE_DEFAULT, NULL) == 0,
	   "a real DOF blob (%zu bytes)", dof_len);
	if (dof) {
		test_roundtrip(dof, dof_len);
		test_atomic(dof, dof_len);
		test_malformed(dof, dof_len);
		test_load_all(dof, dof_len);
	}
	test_stat();
	test_sync();

	{
		char d[512];

		is_str(reg_statedir(),
		       getenv(REG_STATEDIR_ENV) && *getenv(REG_STATEDIR_ENV)
			       ? getenv(REG_STATEDIR_ENV)
			       : REG_STATEDIR_DEFAULT,
		       "reg_statedir() honours $" REG_STATEDIR_ENV);
		setenv(REG_STATEDIR_ENV, "/x/y", 1);
		is_str(reg_statedir(), "/x/y", "reg_statedir() with it set");
		setenv(REG_STATEDIR_ENV, "", 1);
		is_str(reg_statedir(), REG_STATEDIR_DEFAULT,
		       "an empty $" REG_STATEDIR_ENV " is the default");
		rm_rf_registry();
		snprintf(d, sizeof(d), "%s", statedir);
		rmdir(d);
	}
	free(dof);
	return tap_done();
}
