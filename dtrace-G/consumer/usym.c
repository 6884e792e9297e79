// SPDX-License-Identifier: MIT
/*
 * usym.c - the names of addresses, for ustack() frames, ufunc(),
 * umod(), usym(), uaddr() and printf's %A (user addresses, in the
 * modules ustack.c reported for the process) and %a (kernel addresses).
 *
 * A user address is looked up in the libdwfl session of its process:
 * the module that maps it (its file's basename is the module name, as
 * DTrace prints "libc.so.6`"), the symbol that covers it
 * (dwfl_module_addrinfo(): the module's .symtab, or its .dynsym when
 * stripped, or the symbols of its separate debug file found by
 * build-id under /usr/lib/debug; a version suffix such as
 * "@@GLIBC_2.34" dropped), and with D_USYM_LINE the source line
 * DWARF gives (dt_dwfl_srcline(), srcline.c).  A module is of a file's
 * consecutive mappings, its bias libdwfl's (from the first): a mapping
 * a process made from another offset has its bytes elsewhere in the
 * module, and is looked up where they are (ustack.c's us_mod_at()), or
 * not named where no segment of the file holds them.  A return address
 * (D_USYM_RET, a caller's frame) is looked up one byte before it, in the call:
 * a call that is the last instruction of a function (to a noreturn function)
 * returns to the next function's first byte, which is not the caller.
 * The offset printed stays that of the return address, as DTrace
 * prints it.
 *
 * C++ names are demangled (__cxa_demangle() of libstdc++, found by
 * configure) as FreeBSD's DTrace does; -x mangled keeps the names of the
 * symbol table.
 *
 * Each answer is cached per process session by (address, flags), in an
 * open-addressing table, so a stack seen again costs a hash lookup per
 * frame; the table is emptied when the modules are reported again
 * (ustack.c), and every session's once they hold US_MAXSYMS entries
 * together (so the names cost at most that, however many processes).
 * The strings live as long as their entry, which is longer than the D
 * program keeps them: it copies what it prints or keys on.
 *
 * Kernel addresses: /proc/kallsyms, read once when %a first meets one,
 * its text symbols sorted by address; "vmlinux" or the module's name as
 * the module.  A kernel that hides the addresses (kptr_restrict, not
 * root) lists them as 0, and %a then prints the number.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../objects/srcline.h"
#include "ustack.h"

#define US_MAXSYMS 65536

#ifdef HAVE_CXA_DEMANGLE
/* libstdc++'s demangler; <cxxabi.h> is C++ only */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);
#endif

struct us_ksym {
	uint64_t addr;
	char *name;
	const char *mod;
};

/* ------------------------------------------------------------------ */
/* The cache */

static size_t sym_slot(const struct us_proc *up, uint64_t pc, unsigned flags)
{
	size_t mask = up->capsyms - 1, i;

	for (i = (size_t)((pc ^ flags) * 0x9e3779b97f4a7c15ULL >> 17) & mask;
	     up->syms[i].flags; i = (i + 1) & mask)
		if (up->syms[i].pc == pc && up->syms[i].flags == (flags | 0x100))
			break;
	return i;
}

static void sym_free(struct us_sym *e)
{
	free(e->mod);
	free(e->sym);
	free(e->file);
}

void us_syms_free(struct us_proc *up)
{
	for (size_t i = 0; i < up->capsyms; i++)
		if (up->syms[i].flags)
			sym_free(&up->syms[i]);
	free(up->syms);
	*up->nsyms_all -= up->nsyms;
	up->syms = NULL;
	up->nsyms = up->capsyms = 0;
}

/* Room for one more entry; the new entry's slot for (pc, flags). */
static struct us_sym *sym_put(struct ustack_state *s, struct us_proc *up,
			      uint64_t pc, unsigned flags)
{
	struct us_sym *e;

	if (s->nsyms_all >= US_MAXSYMS)
		/* every session's: 256 processes of 65,536 names each
		 * would take gigabytes */
		for (size_t i = 0; i < s->nprocs; i++)
			us_syms_free(s->procs[i]);
	if (2 * (up->nsyms + 1) > up->capsyms) {
		struct us_sym *old = up->syms;
		size_t ocap = up->capsyms;

		up->capsyms = ocap ? 2 * ocap : 256;
		up->syms = xcalloc(up->capsyms, sizeof(*up->syms));
		for (size_t i = 0; i < ocap; i++)
			if (old[i].flags)
				up->syms[sym_slot(up, old[i].pc,
						  old[i].flags & 0xff)] = old[i];
		free(old);
	}
	e = &up->syms[sym_slot(up, pc, flags)];
	memset(e, 0, sizeof(*e));
	e->pc = pc;
	e->flags = flags | 0x100; /* never 0: a used slot */
	up->nsyms++;
	s->nsyms_all++;
	return e;
}

/* ------------------------------------------------------------------ */
/* Names */

static char *base_dup(const char *path)
{
	const char *b = strrchr(path, '/');

	return xstrdup(b ? b + 1 : path);
}

static char *demangle(const struct ustack_state *s, const char *name)
{
#ifdef HAVE_CXA_DEMANGLE
	if (!s->mangled && name[0] == '_' && name[1] == 'Z') {
		int st = -1;
		char *d = __cxa_demangle(name, NULL, NULL, &st);

		if (d && st == 0)
			return d;
		free(d);
	}
#else
	(void)s;
#endif
	return xstrdup(name);
}

/*
 * What pc is in up's module m, into e (found or not); the byte looked
 * up, at, is at + d in the module (us_mod_at(): d 0 but where the file
 * is mapped from another offset than libdwfl's bias has it).
 */
static void sym_fill(struct ustack_state *s, struct us_proc *up, Dwfl_Module *m,
		     uint64_t pc, uint64_t d, unsigned flags, struct us_sym *e)
{
	uint64_t at = ((flags & D_USYM_RET) && pc ? pc - 1 : pc) + d;
	const char *mname, *name;
	GElf_Off off = 0;
	GElf_Sym sym;

	(void)up;
	mname = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	e->found = true;
	e->mod = base_dup(mname ? mname : "?");
	name = dwfl_module_addrinfo(m, at, &off, &sym, NULL, NULL, NULL);
	if (name && *name) {
		/* a versioned definition: __libc_start_main@@GLIBC_2.34 */
		size_t n = strcspn(name, "@");
		char *plain = xcalloc(1, n + 1);

		memcpy(plain, name, n);
		e->sym = demangle(s, plain);
		free(plain);
		e->off = off + (pc + d - at);
	}
	if (flags & D_USYM_LINE) {
		const char *f;
		unsigned long line;

		if (dt_dwfl_srcline(m, at, &f, &line)) {
			e->file = base_dup(f);
			e->line = (unsigned)line;
		}
	}
}

bool us_sym_lookup(struct consumer *c, struct us_proc *up, uint64_t pc,
		   unsigned flags, struct d_usym *out)
{
	struct ustack_state *s = c->ust;
	uint64_t at, mat;
	Dwfl_Module *m;
	struct us_sym *e;

	flags &= D_USYM_RET | D_USYM_LINE;
	if (up->capsyms) {
		e = &up->syms[sym_slot(up, pc, flags)];
		if (e->flags)
			goto found;
	}
	at = (flags & D_USYM_RET) && pc ? pc - 1 : pc;
	/* the session is of the text of the hit's time (us_proc_get()) */
	m = dwfl_addrmodule(up->dwfl, at);
	e = sym_put(s, up, pc, flags);
	/* where the module has that byte; none: not named */
	if (m && us_at_bias(up, at))
		sym_fill(s, up, m, pc, 0, flags, e);
	else if (m && us_mod_at(up, m, at, &mat))
		sym_fill(s, up, m, pc, mat - at, flags, e);
found:
	out->mod = e->mod;
	out->sym = e->sym;
	out->off = e->off;
	out->file = e->file;
	out->line = e->line;
	return e->found;
}

/* ------------------------------------------------------------------ */
/* Kernel symbols */

static int ksym_cmp(const void *a, const void *b)
{
	const struct us_ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void ksyms_read(struct ustack_state *s)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	const char **mods = NULL;
	size_t nmods = 0;

	s->ksyms_read = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256], mod[128] = "";
		struct us_ksym k;
		const char *mp = NULL;

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name,
			   mod) < 3 ||
		    !a || (type != 't' && type != 'T'))
			continue;
		if (mod[0]) {
			for (size_t i = 0; i < nmods && !mp; i++)
				if (!strcmp(mods[i], mod))
					mp = mods[i];
			if (!mp) {
				mp = xstrdup(mod);
				PUSH(mods, nmods, mp);
			}
		}
		k.addr = a;
		k.name = xstrdup(name);
		k.mod = mp ? mp : "vmlinux";
		PUSH(s->ksyms, s->nksyms, k);
	}
	fclose(f);
	free(mods); /* the names stay, owned by the symbols */
	qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), ksym_cmp);
}

bool us_ksym_lookup(struct ustack_state *s, uint64_t addr,
		    struct d_usym *out)
{
	size_t lo = 0, hi;

	if (addr < 0xffff800000000000ULL)
		return false; /* a user address */
	if (!s->ksyms_read)
		ksyms_read(s);
	hi = s->nksyms;
	if (!hi || addr < s->ksyms[0].addr)
		return false;
	while (hi - lo > 1) { /* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	out->mod = s->ksyms[lo].mod;
	out->sym = s->ksyms[lo].name;
	out->off = addr - s->ksyms[lo].addr;
	return true;
}
