// SPDX-License-Identifier: MIT
/*
 * pidfuncs.c - the pid provider's probe points: the functions of an ELF
 * file, and which entry, return and instruction-offset points of them a
 * probe description selects (pidfuncs.h).
 *
 * A pid probe is pid<N>:MODULE:FUNCTION:NAME, N one process, MODULE an
 * object it maps (its file name, libc.so.6; the executable also as
 * "a.out", as DTrace calls it), FUNCTION a function that object
 * defines, NAME "entry", "return" or an offset from the function's
 * start in hex without 0x ("1a").  Every field but the provider may be
 * a glob.
 *
 * Functions.  Both symbol tables are read (.symtab, when the file has
 * not been stripped of it, names the static functions too; .dynsym what
 * is exported): STT_FUNC and STT_GNU_IFUNC symbols with a size, defined
 * in an executable section that is not the PLT's (.plt, .plt.sec,
 * .plt.got: stubs the dynamic linker rewrites, never the function).
 * Several symbols often name one address (glibc's getpid is also
 * __getpid; a .symtab and .dynsym list the same names): one probe per
 * address, listed under one name, matched by any (pid$target::__getpid:
 * entry finds getpid's probe).  The listed name is, of the symbols at
 * the address, a global or weak one before a local one, then the one
 * with the fewest leading underscores, then the shortest, then the
 * first in byte order: glibc's public names win over their __libc_
 * and __ twins.  An IFUNC symbol (glibc's strlen) is its resolver, run
 * once when the library is relocated; the implementations it picks are
 * local functions (__strlen_avx2) with probes of their own.
 *
 * Files.  Read with libelf's ELF_C_READ, never mapped: another user may
 * own the file and truncate it while we read (a SIGBUS); a function's
 * bytes are read with pread(2) for the same reason, from the descriptor
 * its symbols were read through (sdk/objfile.h; struct dt_pidfile keeps
 * one), so the file is opened once and the bytes are that file's even if
 * another takes its name meanwhile.  Files that are not ELF of the
 * machine dtrace runs on (SITE_HOST_EM: x86-64 or aarch64) have no functions
 * here: a process of another machine's code (qemu-user's) is no place
 * for a uprobe that decodes this machine's instructions.  A process's
 * files are those it maps executable, each once (sdk/procfs.h's
 * proc_maps_next_file()), read through the mapping
 * (proc_map_open_path()): a file replaced since it was mapped is read as
 * it was mapped, or not at all, never as the file that now has its name.
 *
 * Offsets.  An offset probe must sit on an instruction boundary: a
 * uprobe in the middle of an instruction would make the kernel decode
 * the bytes there as another instruction and run that.  Boundaries are
 * the machine's site module's (sdk/site.h's insns_check, as -G checks
 * its sites): on x86-64 binutils' disassembler decodes the function
 * linearly from its start (sdk/x86site.c), on aarch64 every whole
 * 4-byte word of the function is one (sdk/a64site.c); a glob in the
 * name (pid$target:a.out:main:) takes every instruction whose offset's
 * hex name it matches, as DTrace does.  Without libopcodes, x86-64's
 * offsets are refused rather than guessed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "objfile.h"
#include "pidfuncs.h"
#include "procfs.h"
#include "site.h"

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Functions of a file */

/* A symbol on its way into the table; name is an offset in the names. */
struct psym {
	uint64_t addr, size, off;
	size_t name;
	unsigned rank[3]; /* binding, leading underscores, length */
};

/* Append s and its NUL to the names; *at its offset.  0, or -ENOMEM. */
static int names_add(struct sbuf *n, const char *s, size_t *at)
{
	*at = n->len;
	return sbuf_add(n, s, strlen(s) + 1);
}

/* By address, the listed name first (qsort_r: arg is the names) */
static int psym_cmp(const void *a, const void *b, void *arg)
{
	const struct psym *x = a, *y = b;
	const char *names_buf = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	for (unsigned i = 0; i < 3; i++)
		if (x->rank[i] != y->rank[i])
			return x->rank[i] < y->rank[i] ? -1 : 1;
	return strcmp(names_buf + x->name, names_buf + y->name);
}

/* The file offset of [addr, addr + size) in an executable segment. */
static bool code_off(const struct dt_pidfile *pf, uint64_t addr,
		     uint64_t size, uint64_t *off)
{
	for (size_t i = 0; i < pf->nph; i++) {
		const GElf_Phdr *ph = &pf->ph[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    addr < ph->p_vaddr || addr - ph->p_vaddr >= ph->p_filesz ||
		    size > ph->p_filesz - (addr - ph->p_vaddr))
			continue;
		*off = ph->p_offset + (addr - ph->p_vaddr);
		return true;
	}
	return false;
}

/* Is section ndx executable code, and not the PLT? */
static bool code_section(Elf *elf, size_t shstrndx, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;
	const char *nm;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return false;
	nm = elf_strptr(elf, shstrndx, sh.sh_name);
	return nm && strncmp(nm, ".plt", 4) != 0;
}

struct psyms {
	struct psym *v;
	size_t n, cap;
};

static int read_symtab(struct dt_pidfile *pf, const struct objfile *of,
		       Elf_Scn *scn, struct psyms *ps, struct sbuf *nm)
{
	struct elf_syms it;
	const char *name;
	GElf_Sym s;

	for (elf_syms_begin(&it, of->elf, scn);
	     elf_syms_next(&it, &s, &name);) {
		struct psym p = {0};
		unsigned type = GELF_ST_TYPE(s.st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    !s.st_size || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE ||
		    !code_section(of->elf, of->shstrndx, s.st_shndx))
			continue;
		p.addr = s.st_value;
		p.size = s.st_size;
		if (!code_off(pf, p.addr, p.size, &p.off))
			continue;
		p.rank[0] = GELF_ST_BIND(s.st_info) == STB_LOCAL;
		p.rank[1] = (unsigned)strspn(name, "_");
		p.rank[2] = (unsigned)strlen(name);
		if (names_add(nm, name, &p.name) < 0)
			return -ENOMEM;
		if (grow_one(&ps->v, &ps->cap, ps->n, sizeof(*ps->v)) < 0)
			return -ENOMEM;
		ps->v[ps->n++] = p;
	}
	return 0;
}

/* Sorted symbols into one record per address, the best name first. */
static int make_funcs(struct dt_pidfile *pf, struct psym *v, size_t n,
		      struct sbuf *nm)
{
	size_t ia = 0, k = 0;

	if (n)
		qsort_r(v, n, sizeof(*v), psym_cmp, nm->b);
	pf->fn = calloc(n ? n : 1, sizeof(*pf->fn));
	pf->aliases = calloc(n ? n : 1, sizeof(*pf->aliases));
	if (!pf->fn || !pf->aliases)
		return -ENOMEM;
	pf->strs = nm->b;
	nm->b = NULL;
	for (size_t i = 0; i < n; i = k) {
		struct dt_pidfunc *f = &pf->fn[pf->nfn++];

		f->addr = v[i].addr;
		f->size = v[i].size;
		f->off = v[i].off;
		f->name = pf->strs + v[i].name;
		f->alias = &pf->aliases[ia];
		for (k = i + 1; k < n && v[k].addr == v[i].addr; k++) {
			const char *a = pf->strs + v[k].name;
			bool dup = !strcmp(a, f->name);

			for (unsigned j = 0; j < f->nalias && !dup; j++)
				dup = !strcmp(a, f->alias[j]);
			if (dup)
				continue;
			pf->aliases[ia++] = a;
			f->nalias++;
		}
	}
	return 0;
}

int dt_pidfile_read_of(struct dt_pidfile *pf, const struct objfile *of,
		       char *msg, size_t msglen)
{
	struct psyms ps = {0};
	struct sbuf nm = {0};
	Elf_Scn *tabs[2];
	int err = 0;

	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
	if (of->ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    of->ehdr.e_machine != SITE_HOST_EM)
		return fail(msg, msglen, -ENOEXEC, "%s is not an %s ELF file",
			    of->path, site_arch_of(SITE_HOST_EM)->name);
	pf->path = strdup(of->path);
	pf->ph = calloc(of->nph ? of->nph : 1, sizeof(*pf->ph));
	if (!pf->path || !pf->ph) {
		err = -ENOMEM;
		goto out;
	}
	if (of->nph)
		memcpy(pf->ph, of->ph, of->nph * sizeof(*pf->ph));
	pf->nph = of->nph;
	pf->fd = fcntl(of->fd, F_DUPFD_CLOEXEC, 0);
	if (pf->fd < 0) {
		err = fail(msg, msglen, -errno, "%s: %s", of->path,
			   strerror(errno));
		goto out;
	}
	/* both tables, in the file's order */
	tabs[0] = of->symtab;
	tabs[1] = of->dynsym;
	if (tabs[0] && tabs[1] && elf_ndxscn(tabs[1]) < elf_ndxscn(tabs[0])) {
		tabs[0] = of->dynsym;
		tabs[1] = of->symtab;
	}
	for (size_t i = 0; i < 2 && !err; i++)
		if (tabs[i])
			err = read_symtab(pf, of, tabs[i], &ps, &nm);
	if (!err)
		err = make_funcs(pf, ps.v, ps.n, &nm);
out:
	free(ps.v);
	free(nm.b);
	if (err)
		dt_pidfile_free(pf);
	return err;
}

int dt_pidfile_read(struct dt_pidfile *pf, const char *path, char *msg,
		    size_t msglen)
{
	struct objfile of;
	char why[256];
	int err;

	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
	err = objf_open(&of, path, why, sizeof(why));
	if (err == -ENOMEM)
		return err;
	if (err == -EINVAL) /* not a regular file, not ELF */
		return fail(msg, msglen, -ENOEXEC, "%s is not an %s ELF file",
			    path, site_arch_of(SITE_HOST_EM)->name);
	if (err < 0)
		return fail(msg, msglen, err, "cannot open %s: %s", path, why);
	err = dt_pidfile_read_of(pf, &of, msg, msglen);
	objf_close(&of);
	return err;
}

void dt_pidfile_free(struct dt_pidfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	free(pf->path);
	free(pf->fn);
	free(pf->ph);
	free(pf->strs);
	free(pf->aliases);
	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
}

bool dt_pidfunc_match(const struct dt_pidfunc *fn, const char *glob)
{
	if (!glob[0] || !fnmatch(glob, fn->name, 0))
		return true;
	for (unsigned i = 0; i < fn->nalias; i++)
		if (!fnmatch(glob, fn->alias[i], 0))
			return true;
	return false;
}

bool dt_pid_mod_match(const char *glob, const char *path, bool is_exe)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !glob[0] || !fnmatch(glob, base, 0) ||
	       (is_exe && !fnmatch(glob, "a.out", 0));
}

pid_t dt_pid_desc(const struct dt_desc *d)
{
	const char *s = d->prov;
	long v = 0;

	if (strncmp(s, "pid", 3) || !s[3])
		return 0;
	for (s += 3; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return 0;
	}
	return (pid_t)v;
}

/* ------------------------------------------------------------------ */
/* Probe points */

static bool is_glob(const char *s)
{
	return !s[0] || strpbrk(s, "*?[\\") != NULL;
}

/* The function's code, read (not mapped) from the file. */
static int read_code(const struct dt_pidfile *pf, const struct dt_pidfunc *fn,
		     uint8_t **buf, char *msg, size_t msglen)
{
	ssize_t got;
	int err;

	*buf = malloc(fn->size);
	if (!*buf)
		return -ENOMEM;
	got = pread(pf->fd, *buf, fn->size, (off_t)fn->off);
	err = got < 0 ? -errno : 0;
	if (got < 0 || (uint64_t)got != fn->size) {
		free(*buf);
		*buf = NULL;
		return fail(msg, msglen, err ? err : -EIO,
			    "cannot read function %s in %s: %s", fn->name,
			    pf->path, err ? strerror(-err) : "file truncated");
	}
	return 0;
}

static bool insn_starts(const struct site_insns *m, uint64_t i)
{
	return m->starts && i < m->pc && ((m->starts[i / 8] >> (i % 8)) & 1);
}

/* Is off a boundary of fn's instructions?  0 or -EINVAL/-errno. */
static int check_offset(const struct dt_pidfile *pf,
			const struct dt_pidfunc *fn, uint64_t off, char *msg,
			size_t msglen)
{
	struct site_insns m;
	char why[256];
	uint8_t *code;
	int err;

	if (off >= fn->size)
		return fail(msg, msglen, -EINVAL,
			    "offset 0x%" PRIx64 " is outside function %s "
			    "(0x%" PRIx64 " bytes) in %s",
			    off, fn->name, fn->size, pf->path);
	if (off == 0)
		return 0; /* the function's start starts an instruction */
	err = read_code(pf, fn, &code, msg, msglen);
	if (err)
		return err;
	site_insns_init(&m, code, fn->size, 0, fn->size);
	err = site_arch_of(SITE_HOST_EM)->insns_check(&m, off, 0, false, why,
						 sizeof(why));
	if (err == -ENOTSUP) {
		err = fail(msg, msglen, -EINVAL,
			   "offset 0x%" PRIx64 " of %s: instruction offsets "
			   "need binutils' disassembler (%s)",
			   off, fn->name, why);
	} else if (err && m.pc > off) {
		uint64_t at = off;

		while (at > 0 && !insn_starts(&m, at))
			at--;
		err = fail(msg, msglen, -EINVAL,
			   "offset 0x%" PRIx64 " is not on an instruction "
			   "boundary of %s: it lies inside the instruction at "
			   "offset 0x%" PRIx64,
			   off, fn->name, at);
	} else if (err) {
		err = fail(msg, msglen, -EINVAL, "function %s in %s: %s",
			   fn->name, pf->path, why);
	}
	site_insns_free(&m);
	free(code);
	return err;
}

/* Every instruction offset whose hex name glob matches, to each(). */
static int glob_offsets(const struct dt_pidfile *pf,
			const struct dt_pidfunc *fn, const char *glob,
			int (*each)(const struct dt_pidpoint *pt, void *arg),
			void *arg, char *msg, size_t msglen)
{
	struct dt_pidpoint pt = {.fn = fn, .kind = DT_PID_OFFSET};
	struct site_insns m;
	char why[256];
	uint8_t *code;
	int err;

	err = read_code(pf, fn, &code, msg, msglen);
	if (err)
		return err;
	site_insns_init(&m, code, fn->size, 0, fn->size);
	/* decode it all; what cannot be decoded ends the function early */
	err = site_arch_of(SITE_HOST_EM)->insns_check(&m, fn->size, 0, false, why,
						 sizeof(why));
	if (err == -ENOTSUP) {
		err = fail(msg, msglen, -EINVAL,
			   "%s: instruction offsets need binutils' "
			   "disassembler (%s)",
			   fn->name, why);
		goto out;
	}
	err = 0;
	for (uint64_t i = 0; i < m.pc && !err; i++) {
		if (!insn_starts(&m, i))
			continue;
		snprintf(pt.name, sizeof(pt.name), "%" PRIx64, i);
		if (fnmatch(glob, pt.name, 0))
			continue;
		pt.off = i;
		err = each(&pt, arg);
	}
out:
	site_insns_free(&m);
	free(code);
	return err;
}

int dt_pid_points(const struct dt_pidfile *pf, const struct dt_pidfunc *fn,
		  const char *glob,
		  int (*each)(const struct dt_pidpoint *pt, void *arg),
		  void *arg, char *msg, size_t msglen)
{
	struct dt_pidpoint pt = {.fn = fn};
	const char *g = glob[0] ? glob : "*";
	char *end;
	int err;

	if (!fnmatch(g, "entry", 0)) {
		pt.kind = DT_PID_ENTRY;
		snprintf(pt.name, sizeof(pt.name), "entry");
		if ((err = each(&pt, arg)))
			return err;
	}
	if (!fnmatch(g, "return", 0)) {
		pt.kind = DT_PID_RETURN;
		snprintf(pt.name, sizeof(pt.name), "return");
		if ((err = each(&pt, arg)))
			return err;
	}
	if (is_glob(g))
		return glob_offsets(pf, fn, g, each, arg, msg, msglen);
	if (!strcmp(g, "entry") || !strcmp(g, "return"))
		return 0;
	errno = 0;
	pt.off = strtoull(g, &end, 16);
	if (*end || errno || strspn(g, "0123456789abcdefABCDEF") != strlen(g))
		return fail(msg, msglen, -EINVAL,
			    "'%s' is not a pid probe name: entry, return or "
			    "an instruction offset in hex",
			    glob);
	err = check_offset(pf, fn, pt.off, msg, msglen);
	if (err)
		return err;
	pt.kind = DT_PID_OFFSET;
	snprintf(pt.name, sizeof(pt.name), "%" PRIx64, pt.off);
	return each(&pt, arg);
}

/* ------------------------------------------------------------------ */
/* A process's objects (dtrace -l) */

struct each_ctx {
	const struct dt_pidobj *o;
	int (*each)(const struct dt_pidobj *o, const struct dt_pidpoint *pt,
		    void *arg);
	void *arg;
};

static int each_point(const struct dt_pidpoint *pt, void *arg)
{
	const struct each_ctx *x = arg;

	return x->each(x->o, pt, x->arg);
}

int dt_pid_each(pid_t pid, const struct dt_desc *d,
		int (*each)(const struct dt_pidobj *o,
			    const struct dt_pidpoint *pt, void *arg),
		void *arg, char *msg, size_t msglen)
{
	struct proc_maps mm;
	const struct proc_map *m;
	char exe[64];
	struct stat xst;
	bool have_exe;
	int err;

	err = proc_maps_read(pid, &mm);
	if (err < 0)
		return err;
	(void)proc_path(exe, sizeof(exe), pid, "exe");
	have_exe = stat(exe, &xst) == 0;
	for (size_t k = 0; !err && (m = proc_maps_next_file(&mm, &k));) {
		struct dt_pidobj o = {0};
		struct dt_pidfile pf;
		struct each_ctx x = {&o, each, arg};
		char open_path[PATH_MAX], *path;

		path = strndup(m->path, proc_map_name_len(m));
		if (!path) {
			err = -ENOMEM;
			break;
		}
		o.path = path;
		o.is_exe = have_exe && xst.st_dev == m->dev &&
			   xst.st_ino == m->ino;
		o.mod = strrchr(path, '/') + 1;
		if (!dt_pid_mod_match(d->mod, path, o.is_exe) ||
		    proc_map_open_path(open_path, sizeof(open_path), pid, m) <
			    0) {
			free(path);
			continue; /* not asked for, or not the file mapped */
		}
		if (dt_pidfile_read(&pf, open_path, NULL, 0) < 0) {
			free(path);
			continue; /* not ELF, or gone: no functions */
		}
		/* run-time less link-time address: none when no loadable
		 * segment is where m maps the file (its rows would name
		 * addresses the process does not have) */
		if (elf_load_bias(pf.ph, pf.nph, m->start, m->off, &o.bias)) {
			dt_pidfile_free(&pf);
			free(path);
			continue;
		}
		o.pf = &pf;
		for (size_t i = 0; i < pf.nfn && !err; i++)
			if (dt_pidfunc_match(&pf.fn[i], d->func))
				err = dt_pid_points(&pf, &pf.fn[i], d->name,
						    each_point, &x, msg,
						    msglen);
		dt_pidfile_free(&pf);
		free(path);
	}
	proc_maps_free(&mm);
	return err;
}
