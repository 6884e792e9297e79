// SPDX-License-Identifier: MIT
/*
 * regwrite.c - write a helper registry file for a running process, the
 * way dtrace-helperd records it (usdt/registry_format.h), so that
 * `dtrace -l` can be tested against real processes without the daemon.
 *
 *	regwrite STATEDIR PID ELF MOD PATH BASE [ELF MOD PATH BASE]...
 *
 * For each ELF (a program or shared library the process has mapped):
 * every defined symbol named __SUNW_dof (one per `dtrace -G` output
 * linked in) is a registration, in symbol-table order.  Its DOF is read
 * from the process itself, through /proc/PID/mem, at the symbol's
 * link-time value plus the object's load bias, the bias found in
 * /proc/PID/maps: the mapping of the same file (device and inode) at
 * file offset 0, less the page of the first PT_LOAD.  That is what drti.o
 * hands the helper (dofhp_dof), and what the helper copies; the copy is
 * run through dof_check() as the helper would.
 *
 * MOD, PATH and BASE are what the entry records; "-" picks what the
 * helper would: the basename of PATH, the path /proc/PID/maps names, and
 * the load bias (0 for ET_EXEC).  Giving them lets a test record odd
 * values on purpose.  Generations count from 1 in argument order; the
 * start time and comm come from /proc/PID/stat.
 *
 * Exit status 0, or 1 with "regwrite: ..." on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dof_check.h"
#include "registry.h"

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("regwrite: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The lowest mapping of (dev, ino) at file offset 0, and its path. */
static uint64_t map_start(pid_t pid, const struct stat *st, char **path)
{
	char fn[64], *line = NULL;
	size_t cap = 0;
	uint64_t best = UINT64_MAX;
	FILE *fp;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	fp = fopen(fn, "r");
	if (!fp)
		die("%s: %s", fn, strerror(errno));
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &lo, &hi,
			   &off, &maj, &min, &ino, &n) < 6 ||
		    !n)
			continue;
		if (off != 0 || ino != (unsigned long long)st->st_ino ||
		    maj != major(st->st_dev) || min != minor(st->st_dev) ||
		    lo >= best)
			continue;
		best = lo;
		free(*path);
		*path = strdup(line + n);
		if (*path)
			(*path)[strcspn(*path, "\n")] = '\0';
	}
	free(line);
	fclose(fp);
	if (best == UINT64_MAX)
		die("%s: no mapping of the file at offset 0", fn);
	return best;
}

static void read_mem(int fd, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len, (off_t)addr);

	if (n < 0 || (size_t)n != len)
		die("cannot read %zu bytes at 0x%" PRIx64 " of the process: %s",
		    len, addr, n < 0 ? strerror(errno) : "short read");
}

static void add_object(struct reg_proc *p, int memfd, const char *elfpath,
		       const char *mod, const char *path, const char *base_arg)
{
	uint64_t start, bias, vbase = UINT64_MAX;
	char *mpath = NULL;
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Ehdr eh;
	size_t nph;
	Elf *elf;
	int fd;

	fd = open(elfpath, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("%s: %s", elfpath, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph))
		die("%s: not an ELF file", elfpath);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_offset < (uint64_t)sysconf(_SC_PAGESIZE)) {
			vbase = ph.p_vaddr &
				~((uint64_t)sysconf(_SC_PAGESIZE) - 1);
			break;
		}
	}
	if (vbase == UINT64_MAX)
		die("%s: no PT_LOAD at file offset 0", elfpath);
	start = map_start(p->pid, &st, &mpath);
	bias = start - vbase;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			struct reg_entry *e, *ne;
			uint64_t addr, loadsz;
			struct dof_err derr;
			uint8_t hdr[sizeof(dof_hdr_t)];
			const char *name;
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || strcmp(name, "__SUNW_dof"))
				continue;
			addr = bias + s.st_value;
			read_mem(memfd, addr, hdr, sizeof(hdr));
			if (dof_check_hdr(hdr, sizeof(hdr),
					  DOF_MAX_SIZE_DEFAULT, &loadsz, &derr))
				die("%s: DOF at 0x%" PRIx64 ": %s", elfpath,
				    addr, derr.msg);
			ne = realloc(p->ent, (p->nent + 1) * sizeof(*ne));
			if (!ne)
				die("out of memory");
			p->ent = ne;
			e = &ne[p->nent++];
			memset(e, 0, sizeof(*e));
			e->gen = p->nent;
			e->base = strcmp(base_arg, "-")
					  ? strtoull(base_arg, NULL, 0)
				  : eh.e_type == ET_DYN ? bias
							: 0;
			e->dof_addr = addr;
			e->dev = (uint64_t)st.st_dev;
			e->ino = (uint64_t)st.st_ino;
			e->origin = REG_ORIGIN_IOCTL;
			e->path = strdup(strcmp(path, "-") ? path : mpath);
			{
				const char *b = strrchr(e->path, '/');

				snprintf(e->mod, sizeof(e->mod), "%s",
					 strcmp(mod, "-") ? mod
					 : b		  ? b + 1
							  : e->path);
			}
			e->dof_len = (size_t)loadsz;
			e->dof = malloc(e->dof_len);
			if (!e->path || !e->dof)
				die("out of memory");
			read_mem(memfd, addr, e->dof, e->dof_len);
			if (dof_check(e->dof, e->dof_len, DOF_MAX_SIZE_DEFAULT,
				      &derr))
				die("%s: DOF at 0x%" PRIx64 " refused: %s",
				    elfpath, addr, derr.msg);
		}
	}
	elf_end(elf);
	close(fd);
	free(mpath);
}

int main(int argc, char **argv)
{
	struct reg_proc p = {0};
	char fn[64], msg[1024];
	int memfd, i;

	if (argc < 7 || (argc - 3) % 4 != 0) {
		fprintf(stderr,
			"usage: regwrite STATEDIR PID ELF MOD PATH BASE "
			"[ELF MOD PATH BASE]...\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf: %s", elf_errmsg(-1));
	p.pid = (pid_t)atoi(argv[2]);
	if (reg_proc_stat(p.pid, &p.start, p.comm, sizeof(p.comm)))
		die("pid %d: no such process", (int)p.pid);
	snprintf(fn, sizeof(fn), "/proc/%d/mem", (int)p.pid);
	memfd = open(fn, O_RDONLY);
	if (memfd < 0)
		die("%s: %s", fn, strerror(errno));
	for (i = 3; i < argc; i += 4)
		add_object(&p, memfd, argv[i], argv[i + 1], argv[i + 2],
			   argv[i + 3]);
	close(memfd);
	if (!p.nent)
		die("no __SUNW_dof symbol in the objects given");
	if (reg_proc_write(argv[1], &p, msg, sizeof(msg)))
		die("%s", msg);
	reg_proc_free(&p);
	return 0;
}
