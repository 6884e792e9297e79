// SPDX-License-Identifier: MIT
/*
 * kbtf.c: the running kernel's types (its BTF), for the offsets of the
 * kernel structures dtrace's BPF programs read by hand.
 *
 * Several programs read task_struct and what it points to at the hit:
 * the parent's tgid, the credentials, the session and group ids, the
 * arguments' bounds in mm_struct (psargs.c), a thread's CPU time
 * (vtime.c), the signal handler and blocked mask the dlopen() hold
 * tests (dlhold.c), the exit code the proc provider reports
 * (kprov_proc.c). Those layouts differ between kernels and builds
 * (randomized task_struct included), so every offset is asked of
 * /sys/kernel/btf/vmlinux and a member the BTF does not have makes the
 * caller refuse the feature, never guess.
 *
 * Parsing the kernel's BTF costs 10 ms of CPU or more, as much as the
 * rest of a one-clause start-up, and each reader used to parse it for
 * itself (up to six times in one run). Here it is parsed at the first
 * question, each answer is remembered, and the parsed types are given
 * back once tracing has started (kbtf_release()): a question asked
 * after that, for a member never asked before, parses it again.
 *
 * Parsing costs more on newer kernels: 76-85 ms of CPU for the 5.5 MB
 * BTF of Linux 6.18 (libbpf 1.1: 30 ms reading sysfs, 55 ms checking
 * and indexing 126,623 types), half of a traced one-liner's start-up
 * CPU, paid again by every run for the same dozen answers.  So the
 * answers are also kept for the boot, in /run/usdt-sdk/kbtf (or
 * $DTRACE_KBTF_CACHE; empty: none), a text file of lines
 * "VALUE TYPE KEY" under a header naming the boot
 * (/proc/sys/kernel/random/boot_id), the BTF's size and the dtrace
 * binary's mtime: a run that finds every answer it needs there parses
 * nothing for them (libbpf still reads the BTF for a program with CO-RE
 * relocations: ustack_walk.c's).  The BTF cannot change within a boot,
 * and /run is emptied at the next, but a file of another boot, BTF size
 * or build is ignored and replaced all the same.  An offset from that
 * file goes into BPF programs that read the kernel's memory, so it is
 * believed only from a root-owned file, not a link, writable by nobody
 * else, in a root-owned directory writable by nobody else, below
 * directories that are all root's and writable by nobody else or sticky
 * (path_trusted(), cache_open()); otherwise it is not read, and a run
 * not root writes none.  A run that parsed the BTF writes what it learnt,
 * merged with what the file has, to a new file renamed over the old
 * one (cache_write(), at kbtf_release()): runs at once each see a whole
 * file, and at worst one's answers are lost and parsed again later.
 *
 * A member is looked for in anonymous structs and unions too (the
 * randomized part of task_struct is one), to a depth of eight.
 *
 * A raw tracepoint's arguments are its TP_PROTO's, not its trace
 * event's fields; the BTF has them as the prototype of the typedef
 * btf_trace_NAME (a pointer to a function whose first parameter is the
 * probe's data, the rest TP_PROTO's): kbtf_tp_nargs() counts them, for
 * the proc provider (kprov_proc.c), whose tracepoints gained arguments
 * between kernels (sched_process_exit's group_dead).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "xalloc.h"

#ifdef HAVE_BPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static struct btf *kb;
static bool kb_failed; /* no BTF: not tried again */

/*
 * Answers given or read from the cache, so a question after
 * kbtf_release() parses nothing.  key: a member's name, or "#size" (the
 * type's size), "#nargs" (a raw tracepoint's), "#argN=NAME" (whether its
 * argument N's type is NAME); type and key are the cache file's words.
 */
#define KB_MAX 64
static struct kb_answer {
	char *type, *key;
	long val;
	bool parsed; /* learnt from the BTF by this run: to be written */
} answers[KB_MAX];
static unsigned nanswers;
static bool cache_read;

#define KB_DIR "/run/usdt-sdk"
#define KB_FILE KB_DIR "/kbtf"
#define KB_MAGIC "usdt-sdk kbtf 1"

static const char *cache_path(void)
{
	const char *p = getenv("DTRACE_KBTF_CACHE");

	return p ? p : KB_FILE;
}

/*
 * this boot's, this BTF's and this dtrace's header line (the binary's
 * mtime: a rebuilt dtrace asks the BTF again, so a change to how an
 * answer is found is not hidden by the last build's), or false where
 * not known
 */
static bool cache_header(char *hdr, size_t len)
{
	char boot[64] = "";
	struct stat st, me;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f)
		return false;
	if (!fgets(boot, sizeof(boot), f))
		boot[0] = 0;
	fclose(f);
	boot[strcspn(boot, "\n")] = 0;
	if (!boot[0] || stat("/sys/kernel/btf/vmlinux", &st) < 0 ||
	    stat("/proc/self/exe", &me) < 0)
		return false;
	snprintf(hdr, len, KB_MAGIC " %s %lld %lld.%09ld", boot,
		 (long long)st.st_size, (long long)me.st_mtim.tv_sec,
		 me.st_mtim.tv_nsec);
	return true;
}

/* a root-owned, not group- or world-writable directory or file */
static bool trusted(const struct stat *st, bool dir)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH)) &&
	       (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode));
}

/*
 * path with its directory resolved (realpath(): links and .. gone) into
 * out, where that directory and every one above it is root's and
 * writable by no one else (an ancestor may be a sticky one, as /tmp:
 * no one else can rename root's entries there), so no other user can
 * put another directory or file in its place; false otherwise.
 */
static bool path_trusted(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX], up[PATH_MAX];
	const char *base = strrchr(path, '/');
	struct stat st;

	if (!base || base[1] == 0 || (size_t)(base - path) >= sizeof(dir))
		return false; /* a file in a directory named */
	memcpy(dir, path, (size_t)(base - path));
	dir[base - path] = 0;
	if (!realpath(dir[0] ? dir : "/", real) || stat(real, &st) < 0 ||
	    !trusted(&st, true))
		return false;
	snprintf(up, sizeof(up), "%s", real);
	while (strcmp(up, "/")) {
		char *sl = strrchr(up, '/');

		if (!sl)
			return false;
		sl[sl == up] = 0; /* "/a/b" to "/a", "/a" to "/" */
		if (stat(up, &st) < 0 || st.st_uid != 0 ||
		    !S_ISDIR(st.st_mode) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		     !(st.st_mode & S_ISVTX)))
			return false;
	}
	return snprintf(out, len, "%s%s", strcmp(real, "/") ? real : "", base) <
	       (int)len;
}

/*
 * the cache file at real (path_trusted()'s), opened where it can be
 * believed; NULL otherwise
 */
static FILE *cache_open(const char *real)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !trusted(&st, false) || st.st_size > 65536 ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* a cache file's word: what ask() and the tracepoint questions make */
static bool word_ok(const char *w)
{
	size_t n =
		strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789_#=");

	return n > 0 && n < 128 && !w[n];
}

static struct kb_answer *find(const char *type, const char *key)
{
	for (unsigned i = 0; i < nanswers; i++)
		if (!strcmp(answers[i].type, type) &&
		    !strcmp(answers[i].key, key))
			return &answers[i];
	return NULL;
}

static void remember(const char *type, const char *key, long val, bool parsed)
{
	if (nanswers >= KB_MAX || find(type, key))
		return;
	answers[nanswers++] =
		(struct kb_answer){ xstrdup(type), xstrdup(key), val, parsed };
}

/*
 * The lines of f after a header of this boot's: "VALUE TYPE KEY", each
 * handed to fn; false where f is of another boot or BTF.
 */
static bool cache_lines(FILE *f, const char *hdr,
			void (*fn)(const char *, const char *, long))
{
	char line[320], type[160], key[160];
	long val;

	if (!fgets(line, sizeof(line), f))
		return false;
	line[strcspn(line, "\n")] = 0;
	if (strcmp(line, hdr))
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%ld %159s %159s", &val, type, key) == 3 &&
		    val >= -1 && val < (1L << 24) && word_ok(type) &&
		    word_ok(key))
			fn(type, key, val);
	return true;
}

static void read_one(const char *type, const char *key, long val)
{
	remember(type, key, val, false);
}

/* the boot's answers, read once, before the first question parses */
static void cache_load(void)
{
	const char *path = cache_path();
	char hdr[160], real[PATH_MAX];
	FILE *f;

	if (cache_read)
		return;
	cache_read = true;
	if (!*path || !path_trusted(path, real, sizeof(real)) ||
	    !cache_header(hdr, sizeof(hdr)) || !(f = cache_open(real)))
		return;
	(void)cache_lines(f, hdr, read_one);
	fclose(f);
}

static FILE *cache_out;

static void write_one(const char *type, const char *key, long val)
{
	if (!find(type, key))
		fprintf(cache_out, "%ld %s %s\n", val, type, key);
}

/*
 * What this run parsed, with what the file has now (another run's may
 * have come meanwhile), to a new file renamed over it.  Only root
 * writes, in a trusted directory (made if it is the default one).
 */
static void cache_write(void)
{
	const char *path = cache_path();
	char hdr[160], real[PATH_MAX], tmp[PATH_MAX + 8];
	bool any = false;
	FILE *f;
	int fd;

	for (unsigned i = 0; i < nanswers && !any; i++)
		any = answers[i].parsed;
	if (!any || !*path || geteuid() != 0 || !cache_header(hdr, sizeof(hdr)))
		return;
	if (!strcmp(path, KB_FILE) && mkdir(KB_DIR, 0755) < 0 &&
	    errno != EEXIST)
		return;
	if (!path_trusted(path, real, sizeof(real)) ||
	    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", real) >= (int)sizeof(tmp) ||
	    (fd = mkstemp(tmp)) < 0)
		return;
	if (fchmod(fd, 0644) < 0 || !(cache_out = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(cache_out, "%s\n", hdr);
	for (unsigned i = 0; i < nanswers; i++)
		fprintf(cache_out, "%ld %s %s\n", answers[i].val,
			answers[i].type, answers[i].key);
	if ((f = cache_open(real))) {
		(void)cache_lines(f, hdr, write_one);
		fclose(f);
	}
	if (fclose(cache_out) != 0 || rename(tmp, real) < 0)
		unlink(tmp);
	cache_out = NULL;
	for (unsigned i = 0; i < nanswers; i++)
		answers[i].parsed = false;
}

static struct btf *kb_get(void)
{
	if (!kb && !kb_failed) {
		kb = btf__load_vmlinux_btf();
		if (!kb || libbpf_get_error(kb)) {
			kb = NULL;
			kb_failed = true;
		}
	}
	return kb;
}

static long member_in(const struct btf *btf, __u32 id, const char *name,
		      int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 8 || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		long in;

		if (mn && *mn) {
			if (!strcmp(mn, name))
				return (long)(btf_member_bit_offset(t, i) / 8);
			continue;
		}
		in = member_in(btf, (__u32)btf__resolve_type(btf, m->type),
			       name, depth + 1);
		if (in >= 0)
			return (long)(btf_member_bit_offset(t, i) / 8) + in;
	}
	return -1;
}

/* type's member's byte offset, or (member NULL) type's size; -1: none */
static long ask(const char *type, const char *member)
{
	const struct kb_answer *a;
	struct btf *btf;
	__s32 id;
	long v = -1;

	cache_load();
	if ((a = find(type, member ? member : "#size")))
		return a->val;
	if ((btf = kb_get())) {
		id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
		if (id < 0)
			id = btf__find_by_name_kind(btf, type, BTF_KIND_UNION);
		if (id > 0 && member)
			v = member_in(btf, (__u32)id, member, 0);
		else if (id > 0)
			v = btf__resolve_size(btf, (__u32)id);
		if (v < 0)
			v = -1;
	}
	remember(type, member ? member : "#size", v, btf != NULL);
	return v;
}

long kbtf_member(const char *type, const char *member)
{
	return ask(type, member);
}

/* tp's prototype (btf_trace_TP -> pointer -> function), or NULL */
static const struct btf_type *tp_proto(struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	__s32 id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0 || !(t = btf__type_by_id(btf, (__u32)id)) ||
	    !(t = btf__type_by_id(btf, t->type)) || !btf_is_ptr(t) ||
	    !(t = btf__type_by_id(btf, t->type)) || !btf_is_func_proto(t) ||
	    btf_vlen(t) < 1)
		return NULL;
	return t;
}

long kbtf_tp_nargs(const char *tp)
{
	const struct kb_answer *a;
	const struct btf_type *t;
	struct btf *btf;
	long v = -1;

	cache_load();
	if ((a = find(tp, "#nargs")))
		return a->val;
	if ((btf = kb_get()) && (t = tp_proto(btf, tp)))
		v = (long)btf_vlen(t) - 1;
	remember(tp, "#nargs", v, btf != NULL);
	return v;
}

static bool tp_arg_is(struct btf *btf, const char *tp, unsigned i,
		      const char *tname)
{
	const struct btf_type *t;
	const struct btf_param *pa;
	__u32 id;

	if (!(t = tp_proto(btf, tp)) || i + 1 >= btf_vlen(t))
		return false;
	pa = btf_params(t) + i + 1;
	for (id = pa->type; (t = btf__type_by_id(btf, id)); id = t->type) {
		const char *n = btf__name_by_offset(btf, t->name_off);

		if (n && !strcmp(n, tname))
			return true;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return false;
	}
	return false;
}

bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname)
{
	const struct kb_answer *a;
	struct btf *btf;
	char key[160];
	bool v;

	snprintf(key, sizeof(key), "#arg%u=%s", i, tname);
	cache_load();
	if ((a = find(tp, key)))
		return a->val == 1;
	if (!(btf = kb_get()))
		return false;
	v = tp_arg_is(btf, tp, i, tname);
	remember(tp, key, v, true);
	return v;
}

long kbtf_size(const char *type)
{
	return ask(type, NULL);
}

void kbtf_release(void)
{
	cache_write();
	btf__free(kb);
	kb = NULL;
}
#else
long kbtf_member(const char *type, const char *member)
{
	(void)type;
	(void)member;
	return -1;
}

long kbtf_size(const char *type)
{
	(void)type;
	return -1;
}

long kbtf_tp_nargs(const char *tp)
{
	(void)tp;
	return -1;
}

bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname)
{
	(void)tp;
	(void)i;
	(void)tname;
	return false;
}

void kbtf_release(void)
{
}
#endif
