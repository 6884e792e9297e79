// SPDX-License-Identifier: MIT
/*
 * ctypes.c - the C types of the traced programs, from their DWARF, for
 * the D compiler: what `(struct request *)copyin(arg0, sizeof (struct
 * request))` and `(request_t *)...` name when the script does not
 * declare them itself (dtrace-G/d/decl.c asks through d_compile_opts'
 * ctype; d/ never calls in here, the callback is its interface).
 *
 * Where types come from.  The objects the run's target processes map
 * (-c commands, held at their entry point with their libraries mapped
 * before the program is compiled, and -p processes): each file of
 * /proc/PID/maps, the executable first, which answers to "a.out" as the
 * pid provider's module does, every file to its base name and its
 * path.  A scoped name (OBJ`NAME) whose OBJ no target maps is looked
 * for in the helper's registry (add_registered()): the files live
 * processes registered under that module or file name, still the files
 * they registered, join the candidates, so a script run without -c or
 * -p, whose descriptions match registered processes by module, reads
 * their types; when none does, the refusal says why.
 * An object's debug information is read the first time a lookup
 * reaches it, through a libdwfl session of its own (the file reported
 * offline, as srcline.c does), so a separate debug file is found as the
 * stacks find it (elfsafe.c's dt_dwfl_find_debuginfo(): build-id and
 * debuglink under /usr/lib/debug).
 *
 * A lookup (ctypes_lookup()) is asked once per name (d/ keeps the
 * answer).  It looks in each candidate object's index of names (the
 * top-level entries of every unit, read once: obj_index()) for a
 * DW_TAG_structure_type, union, enumeration or typedef of that name,
 * or an enumeration declaring an enumerator of that name (two values
 * of it disagree); declarations alone stand
 * only when nothing defines the name (an incomplete type).  It
 * converts each definition to a struct d_ctype (typedefs, const and
 * volatile resolved; one d_ctype per DIE, so a type met twice is one
 * type and self-reference through pointers ends; a unit's declaration
 * of a struct stands for the object's one definition of it), and
 * compares them all: two units or two objects that
 * define the name with different layouts, and no `obj` scope to choose,
 * are an error naming both (never a guess).  The same layout in several
 * (a header shared by a program and its library) is one answer.  An
 * executable without debug information is named in the answer's note
 * when nothing else has the name, so a stripped program is a clear
 * refusal, not a silent "incomplete" (libraries without it are the
 * rule, and go unsaid).
 *
 * Layouts are DWARF's own: offsets, sizes, bit-field positions
 * (DW_AT_data_bit_offset, or DWARF 2's DW_AT_bit_offset converted for a
 * little-endian machine) as the program's compiler wrote them; d/
 * converts them to its member records and refuses what it cannot read
 * (floats, arrays of arrays) at the use, with the reason.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consumer_impl.h"
#include "../objects/elfsafe.h"
#include "procfs.h"
#include "registry.h"
#include "text.h"

struct ctconv {
	Dwarf_Off off;
	struct d_ctype *t;
};

/* A unit's top-level type of that name (an enumerator: its enum's). */
struct ctname {
	const char *name; /* in the DWARF's strings */
	int tag;	  /* DW_TAG_class_type as DW_TAG_structure_type */
	bool decl;	  /* DW_AT_declaration: named, not defined */
	Dwarf_Off die, cu;
};

struct ctobj {
	char *path;	  /* as /proc/PID/maps names it */
	const char *base; /* its base name */
	char *spath;	  /* both made safe to print (sdk/text.h) */
	const char *sbase;
	bool exe; /* a target's executable: also "a.out" */
	char *mod; /* the module a registration names it, or NULL */
	bool opened;
	Dwfl *dwfl;
	Dwarf *dw; /* NULL: no debug information */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	struct ctconv *conv; /* converted DIEs, by offset */
	size_t nconv;
	struct ctname *names; /* its named types, sorted (obj_index()) */
	size_t nnames;
};

struct dt_ctypes {
	struct ctobj *o;
	size_t n;
	const char *statedir; /* the helper's registry, or NULL */
	void **mem; /* every allocation, reachable for the run */
	size_t nmem;
};

static void *ct_alloc(struct dt_ctypes *ct, size_t n)
{
	void *p = xcalloc(1, n);

	PUSH(ct->mem, ct->nmem, p);
	return p;
}

/* A name from a file (DWARF, a path), made safe to print in messages:
 * no identifier a script can write changes. */
static char *ct_safe(struct dt_ctypes *ct, const char *s)
{
	size_t n = TXT_SAFE_MAX(strlen(s));

	return txt_safe(s, ct_alloc(ct, n), n);
}

static void add_obj(struct dt_ctypes *ct, const char *path, bool exe)
{
	struct ctobj *o;
	const char *b;

	if (path[0] != '/' || strstr(path, " (deleted)"))
		return;
	for (size_t i = 0; i < ct->n; i++)
		if (strcmp(ct->o[i].path, path) == 0) {
			ct->o[i].exe |= exe;
			return;
		}
	ct->o = xpush_room(ct->o, ct->n, sizeof(*ct->o));
	o = &ct->o[ct->n++];
	memset(o, 0, sizeof(*o));
	o->path = xstrdup(path);
	b = strrchr(o->path, '/');
	o->base = b ? b + 1 : o->path;
	o->spath = ct_safe(ct, o->path);
	b = strrchr(o->spath, '/');
	o->sbase = b ? b + 1 : o->spath;
	o->exe = exe;
}

struct dt_ctypes *ctypes_open(struct consumer *c)
{
	struct dt_ctypes *ct = xcalloc(1, sizeof(*ct));

	ct->statedir = c->o->statedir;

	/* the executables first: an unscoped name is theirs before their
	 * libraries' (when both have it, they must agree anyway) */
	for (size_t i = 0; i < c->nprocs; i++) {
		char l[64], exe[PATH_MAX];
		ssize_t n;

		if (!c->procs[i]->target)
			continue;
		(void)proc_path(l, sizeof(l), c->procs[i]->pid, "exe");
		n = readlink(l, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			add_obj(ct, exe, true);
		}
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc_maps mm = {0};
		const struct proc_map *m;

		if (!c->procs[i]->target ||
		    proc_maps_read(c->procs[i]->pid, &mm) < 0)
			continue;
		/* code objects: their text is mapped executable (not
		 * ld.so.cache, locale archives, data files) */
		for (size_t k = 0; (m = proc_maps_next_file(&mm, &k));)
			add_obj(ct, m->path, false);
		proc_maps_free(&mm);
	}
	return ct;
}

static void obj_index(struct ctobj *o, Dwarf *dw);

/* The object's DWARF, read the first time (and its names indexed);
 * NULL when it has none. */
static Dwarf *obj_dwarf(struct ctobj *o)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	if (o->opened)
		return o->dw;
	o->opened = true;
	mod = dt_dwfl_offline(o->path, &o->cb, &o->debuginfo_path, &o->dwfl);
	if (!mod)
		return NULL;
	o->dw = dwfl_module_getdwarf(mod, &bias);
	if (o->dw)
		obj_index(o, o->dw);
	return o->dw;
}

/* ------------------------------------------------------------------ */
/* DIEs to struct d_ctype */

static struct d_ctype void_type = {.kind = D_CT_VOID};

static bool attr_udata(Dwarf_Die *d, unsigned at, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, at, &a) && dwarf_formudata(&a, v) == 0;
}

/* A member's DW_AT_data_member_location: a constant, or DWARF 2's
 * expression DW_OP_plus_uconst N. */
static bool member_loc(Dwarf_Die *d, Dwarf_Word *v)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*v = 0;
	if (!dwarf_attr(d, DW_AT_data_member_location, &a))
		return true; /* a union's members: at 0 */
	if (dwarf_formudata(&a, v) == 0)
		return true;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*v = ops[0].number;
		return true;
	}
	return false;
}

static struct d_ctype *conv(struct dt_ctypes *ct, struct ctobj *o, Dwarf_Die *d,
			    unsigned depth);

static struct d_ctype *other(struct dt_ctypes *ct, const char *what);

/* The type a DIE's DW_AT_type names: void when it has none. */
static struct d_ctype *conv_ref(struct dt_ctypes *ct, struct ctobj *o,
				Dwarf_Die *d, unsigned depth)
{
	Dwarf_Attribute a;
	Dwarf_Die r;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a))
		return &void_type; /* void, and void * */
	if (!dwarf_formref_die(&a, &r))
		return other(ct, "a type whose debug information D cannot "
				 "read");
	return conv(ct, o, &r, depth + 1);
}

static struct d_ctype *other(struct dt_ctypes *ct, const char *what)
{
	struct d_ctype *t = ct_alloc(ct, sizeof(*t));

	t->kind = D_CT_OTHER;
	t->what = what;
	return t;
}

static struct d_ctype *find_def(struct dt_ctypes *ct, struct ctobj *o, int tag,
				const char *name);

/* A struct or union's members, or an enum's enumerators. */
static bool conv_members(struct dt_ctypes *ct, struct ctobj *o, Dwarf_Die *d,
			 struct d_ctype *t, unsigned depth)
{
	Dwarf_Die k;
	struct d_cmember *m = NULL;
	struct d_cenum *e = NULL;
	size_t nm = 0, ne = 0;
	int r;

	for (r = dwarf_child(d, &k); r == 0; r = dwarf_siblingof(&k, &k)) {
		int tag = dwarf_tag(&k);

		if (tag == DW_TAG_member && t->kind != D_CT_ENUM) {
			struct d_cmember x = {0};
			Dwarf_Word loc = 0, bits = 0, v;
			const char *nm_ = dwarf_diename(&k);

			x.name = nm_ ? ct_safe(ct, nm_) : NULL;
			x.type = conv_ref(ct, o, &k, depth);
			if (!member_loc(&k, &loc))
				return false;
			x.off = loc;
			if (attr_udata(&k, DW_AT_bit_size, &bits) && bits) {
				x.bits = (unsigned)bits;
				if (attr_udata(&k, DW_AT_data_bit_offset, &v)) {
					x.bitoff = v;
				} else if (attr_udata(&k, DW_AT_bit_offset,
						      &v)) {
					Dwarf_Word bs = x.type->size;

					attr_udata(&k, DW_AT_byte_size, &bs);
					/* counted from the storage unit's
					 * most significant bit */
					if (v + bits > bs * 8)
						return false;
					x.bitoff = loc * 8 + bs * 8 - v - bits;
				} else {
					x.bitoff = loc * 8;
				}
				x.off = x.bitoff / 8;
			}
			m = xpush_room(m, nm, sizeof(*m));
			m[nm++] = x;
		} else if (tag == DW_TAG_enumerator && t->kind == D_CT_ENUM) {
			Dwarf_Attribute a;
			Dwarf_Sword sv;
			const char *en = dwarf_diename(&k);

			if (!en || !dwarf_attr(&k, DW_AT_const_value, &a) ||
			    dwarf_formsdata(&a, &sv) != 0)
				continue;
			e = xpush_room(e, ne, sizeof(*e));
			e[ne].name = ct_safe(ct, en);
			e[ne++].value = sv;
		}
	}
	if (nm) {
		t->m = ct_alloc(ct, nm * sizeof(*m));
		memcpy((void *)t->m, m, nm * sizeof(*m));
		t->nm = (unsigned)nm;
	}
	if (ne) {
		t->e = ct_alloc(ct, ne * sizeof(*e));
		memcpy((void *)t->e, e, ne * sizeof(*e));
		t->ne = (unsigned)ne;
	}
	free(m);
	free(e);
	return true;
}

/* An array's dimensions, from its subranges: [n][m] is an array of n
 * arrays of m. */
/* false: more dimensions than D could ever read */
static bool conv_array(struct dt_ctypes *ct, struct ctobj *o, Dwarf_Die *d,
		       struct d_ctype *t, unsigned depth)
{
	struct d_ctype *elem = conv_ref(ct, o, d, depth);
	Dwarf_Word dims[16];
	unsigned nd = 0;
	Dwarf_Die k;
	int r;

	for (r = dwarf_child(d, &k); r == 0; r = dwarf_siblingof(&k, &k)) {
		Dwarf_Word v;
		Dwarf_Sword sv;
		Dwarf_Attribute a;

		if (dwarf_tag(&k) != DW_TAG_subrange_type)
			continue;
		if (nd == 16)
			return false;
		if (attr_udata(&k, DW_AT_count, &v))
			dims[nd] = v;
		else if (dwarf_attr(&k, DW_AT_upper_bound, &a) &&
			 dwarf_formsdata(&a, &sv) == 0)
			dims[nd] = (Dwarf_Word)sv + 1;
		else
			dims[nd] = 0; /* [] */
		nd++;
	}
	if (!nd)
		dims[nd++] = 0;
	/* innermost first */
	for (unsigned i = nd; i-- > 1;) {
		struct d_ctype *a = ct_alloc(ct, sizeof(*a));

		a->kind = D_CT_ARRAY;
		a->obj = o->sbase;
		a->ref = elem;
		a->nelem = dims[i];
		a->size = dims[i] * elem->size;
		elem = a;
	}
	t->ref = elem;
	t->nelem = dims[0];
	t->size = dims[0] * elem->size;
	return true;
}

static struct d_ctype *conv(struct dt_ctypes *ct, struct ctobj *o, Dwarf_Die *d,
			    unsigned depth)
{
	Dwarf_Off off = dwarf_dieoffset(d);
	struct d_ctype *t;
	Dwarf_Word v;
	const char *name = dwarf_diename(d);
	int tag = dwarf_tag(d);

	for (size_t i = 0; i < o->nconv; i++)
		if (o->conv[i].off == off)
			return o->conv[i].t;
	if (depth > 256) /* a chain of types this long is no program's */
		return other(ct, "a type nested too deeply");
	switch (tag) {
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		t = conv_ref(ct, o, d, depth);
		o->conv = xpush_room(o->conv, o->nconv, sizeof(*o->conv));
		o->conv[o->nconv++] = (struct ctconv){off, t};
		return t;
	default:
		break;
	}
	t = ct_alloc(ct, sizeof(*t));
	t->obj = o->sbase;
	/* known before its members are: a pointer back to it ends here */
	o->conv = xpush_room(o->conv, o->nconv, sizeof(*o->conv));
	o->conv[o->nconv++] = (struct ctconv){off, t};
	if (attr_udata(d, DW_AT_byte_size, &v))
		t->size = v;
	switch (tag) {
	case DW_TAG_base_type:
		if (!attr_udata(d, DW_AT_encoding, &v))
			v = 0;
		switch (v) {
		case DW_ATE_signed:
		case DW_ATE_signed_char:
			t->kind = D_CT_INT;
			t->sg = true;
			break;
		case DW_ATE_unsigned:
		case DW_ATE_unsigned_char:
		case DW_ATE_boolean:
		case DW_ATE_UTF:
			t->kind = D_CT_INT;
			break;
		case DW_ATE_float:
		case DW_ATE_complex_float:
			t->kind = D_CT_OTHER;
			t->what = "a floating-point type";
			break;
		default:
			t->kind = D_CT_OTHER;
			t->what = "a base type D does not have";
		}
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = D_CT_PTR;
		if (!t->size)
			t->size = 8;
		t->ref = conv_ref(ct, o, d, depth);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		t->kind = tag == DW_TAG_union_type	   ? D_CT_UNION
			  : tag == DW_TAG_enumeration_type ? D_CT_ENUM
							   : D_CT_STRUCT;
		t->name = name ? ct_safe(ct, name) : NULL;
		if (dwarf_hasattr(d, DW_AT_declaration)) {
			/* this unit names it only: the object's one
			 * definition, if it has one (incomplete while it
			 * is looked for, should anything reach this DIE
			 * meanwhile) */
			size_t at = o->nconv - 1;
			struct d_ctype *def;

			t->incomplete = true;
			def = name ? find_def(ct, o, tag, name) : NULL;
			if (def) {
				o->conv[at].t = def;
				return def;
			}
			break;
		}
		if (!conv_members(ct, o, d, t, depth)) {
			t->kind = D_CT_OTHER;
			t->what = "a type whose debug information D cannot "
				  "read";
			break;
		}
		if (t->kind == D_CT_ENUM) {
			Dwarf_Die u;
			Dwarf_Attribute a;

			/* signed as its underlying type, or (no
			 * DW_AT_type) as gcc chooses: unsigned unless
			 * an enumerator is negative */
			if (dwarf_attr_integrate(d, DW_AT_type, &a) &&
			    dwarf_formref_die(&a, &u) &&
			    attr_udata(&u, DW_AT_encoding, &v)) {
				t->sg = v == DW_ATE_signed ||
					v == DW_ATE_signed_char;
			} else {
				for (unsigned i = 0; i < t->ne; i++)
					if (t->e[i].value < 0)
						t->sg = true;
			}
		}
		break;
	case DW_TAG_array_type:
		t->kind = D_CT_ARRAY;
		if (!conv_array(ct, o, d, t, depth)) {
			t->kind = D_CT_OTHER;
			t->what = "an array of more than 16 dimensions";
		}
		break;
	case DW_TAG_subroutine_type:
		t->kind = D_CT_FUNC;
		break;
	default:
		t->kind = D_CT_OTHER;
		t->what = "a type D does not have";
	}
	return t;
}

/* ------------------------------------------------------------------ */
/* Comparing layouts */

struct pairs {
	const struct d_ctype **a, **b;
	size_t n;
};

static bool same(struct pairs *ps, const struct d_ctype *a,
		 const struct d_ctype *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	if ((a->name || b->name) &&
	    (!a->name || !b->name || strcmp(a->name, b->name)))
		return false;
	/* declared only on one side: no layout to disagree with */
	if (a->incomplete || b->incomplete)
		return true;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->a[i] == a && ps->b[i] == b)
			return true; /* being compared: assume so */
	if (a->size != b->size || a->sg != b->sg || a->nelem != b->nelem ||
	    a->nm != b->nm || a->ne != b->ne ||
	    (a->what && b->what && strcmp(a->what, b->what)))
		return false;
	ps->a = xpush_room(ps->a, ps->n, sizeof(*ps->a));
	ps->b = xpush_room(ps->b, ps->n, sizeof(*ps->b));
	ps->a[ps->n] = a;
	ps->b[ps->n++] = b;
	for (unsigned i = 0; i < a->ne; i++)
		if (strcmp(a->e[i].name, b->e[i].name) ||
		    a->e[i].value != b->e[i].value)
			return false;
	for (unsigned i = 0; i < a->nm; i++) {
		const struct d_cmember *x = &a->m[i], *y = &b->m[i];

		if ((x->name || y->name) &&
		    (!x->name || !y->name || strcmp(x->name, y->name)))
			return false;
		if (x->off != y->off || x->bits != y->bits ||
		    x->bitoff != y->bitoff || !same(ps, x->type, y->type))
			return false;
	}
	return (a->kind != D_CT_PTR && a->kind != D_CT_ARRAY) ||
	       same(ps, a->ref, b->ref);
}

static bool same_layout(const struct d_ctype *a, const struct d_ctype *b)
{
	struct pairs ps = {0};
	bool r = same(&ps, a, b);

	free(ps.a);
	free(ps.b);
	return r;
}

/* ------------------------------------------------------------------ */
/* Lookups */

static const char *cu_name(Dwarf *dw, Dwarf_Off cuoff)
{
	Dwarf_Die cu, *d = dwarf_offdie(dw, cuoff, &cu);
	const char *n = d ? dwarf_diename(d) : NULL;

	return n ? txt_safe4(n) : "?";
}

/* The index's order: by name, then unit order (DIE offset). */
static int name_cmp(const void *a, const void *b)
{
	const struct ctname *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->die < y->die ? -1 : x->die > y->die;
}

static void add_name(struct ctobj *o, const char *name, int tag, bool decl,
		     Dwarf_Off die, Dwarf_Off cu)
{
	o->names = xpush_room(o->names, o->nnames, sizeof(*o->names));
	o->names[o->nnames++] = (struct ctname){name, tag, decl, die, cu};
}

/*
 * The object's index of names: every unit's top-level structs, unions,
 * enums, typedefs and enumerators, read once, sorted by name (and unit
 * order within one), so a lookup reads only the DIEs of its name.
 */
static void obj_index(struct ctobj *o, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, k, e;
		int r, re;

		if (!dwarf_offdie(dw, off + hsize, &cu))
			break;
		for (r = dwarf_child(&cu, &k); r == 0;
		     r = dwarf_siblingof(&k, &k)) {
			int kt = dwarf_tag(&k);
			const char *n = dwarf_diename(&k);

			if (kt == DW_TAG_class_type)
				kt = DW_TAG_structure_type;
			if (kt != DW_TAG_structure_type &&
			    kt != DW_TAG_union_type &&
			    kt != DW_TAG_enumeration_type &&
			    kt != DW_TAG_typedef)
				continue;
			if (n)
				add_name(o, n, kt,
					 dwarf_hasattr(&k, DW_AT_declaration),
					 dwarf_dieoffset(&k), off + hsize);
			if (kt != DW_TAG_enumeration_type)
				continue;
			for (re = dwarf_child(&k, &e); re == 0;
			     re = dwarf_siblingof(&e, &e)) {
				const char *en = dwarf_diename(&e);

				if (dwarf_tag(&e) == DW_TAG_enumerator && en)
					add_name(o, en, DW_TAG_enumerator,
						 false, dwarf_dieoffset(&k),
						 off + hsize);
			}
		}
		off = next;
	}
	if (o->nnames)
		qsort(o->names, o->nnames, sizeof(*o->names), name_cmp);
}

/* The index's entries named name: the first, and how many in *n. */
static const struct ctname *names_of(const struct ctobj *o, const char *name,
				     size_t *n)
{
	size_t lo = 0, hi = o->nnames, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(o->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < o->nnames && !strcmp(o->names[i].name, name); i++)
		;
	*n = i - lo;
	return o->names + lo;
}

/*
 * A lookup's candidates: the object's index entries of one name and one
 * DWARF tag that define it (one that only declares it sets *decl if
 * given), each with its DIE, in unit order; none without DWARF.
 */
struct cands {
	Dwarf *dw;
	const struct ctname *e;	   /* the current one, after cand_next() */
	const struct ctname *next; /* the entries of the name left, n of them */
	size_t n;
	int tag;
	bool *decl;
};

static void cands_of(struct cands *c, struct ctobj *o, int tag,
		     const char *name, bool *decl)
{
	*c = (struct cands){ .dw = obj_dwarf(o), .tag = tag, .decl = decl };
	if (c->dw)
		c->next = names_of(o, name, &c->n);
}

/* The next candidate's DIE into *die, c->e its entry; false at the end. */
static bool cand_next(struct cands *c, Dwarf_Die *die)
{
	while (c->n) {
		const struct ctname *e = c->next++;

		c->n--;
		if (e->tag != c->tag)
			continue;
		if (e->decl) {
			if (c->decl)
				*c->decl = true;
			continue;
		}
		if (!dwarf_offdie(c->dw, e->die, die))
			continue;
		c->e = e;
		return true;
	}
	return false;
}

/*
 * The object's definition of NAME with DWARF tag `tag` (or, tag 0, its
 * typedef), in any unit: 1 and *t, 0 for none (*decl: something only
 * declares it), -1 for two units that disagree (msg says which).
 */
static int obj_find(struct dt_ctypes *ct, struct ctobj *o, int tag,
		    const char *name, struct d_ctype **t, bool *decl, char *msg,
		    size_t msglen)
{
	const struct ctname *first = NULL;
	struct cands c;
	Dwarf_Die k;

	*t = NULL;
	cands_of(&c, o, tag ? tag : DW_TAG_typedef, name, decl);
	while (cand_next(&c, &k)) {
		struct d_ctype *x = conv(ct, o, &k, 0);

		if (!*t) {
			*t = x;
			first = c.e;
		} else if (!same_layout(*t, x)) {
			snprintf(msg, msglen,
				 "%s%s is declared differently in two units "
				 "of %s (%s and %s): D cannot tell which one "
				 "is meant",
				 tag == DW_TAG_structure_type ? "struct "
				 : tag == DW_TAG_union_type   ? "union "
				 : tag			      ? "enum "
							      : "",
				 name, o->spath, cu_name(c.dw, first->cu),
				 cu_name(c.dw, c.e->cu));
			return -1;
		}
	}
	return *t ? 1 : 0;
}

/* The value of enumerator NAME of t (an enum), or false. */
static bool enum_value(const struct d_ctype *t, const char *name, int64_t *v)
{
	for (unsigned i = 0; t && t->kind == D_CT_ENUM && i < t->ne; i++)
		if (strcmp(t->e[i].name, name) == 0) {
			*v = t->e[i].value;
			return true;
		}
	return false;
}

/*
 * The enum of the object that declares enumerator NAME: 1 and *t, 0 for
 * none, -1 for two values of it in two units (msg says which).
 */
static int obj_find_enumerator(struct dt_ctypes *ct, struct ctobj *o,
			       const char *name, struct d_ctype **t, char *msg,
			       size_t msglen)
{
	const struct ctname *first = NULL;
	struct cands c;
	int64_t v0 = 0, v;
	Dwarf_Die k;

	*t = NULL;
	cands_of(&c, o, DW_TAG_enumerator, name, NULL);
	while (cand_next(&c, &k)) {
		struct d_ctype *x = conv(ct, o, &k, 0);

		if (!enum_value(x, name, &v))
			continue;
		if (!*t) {
			*t = x;
			v0 = v;
			first = c.e;
		} else if (v != v0) {
			snprintf(msg, msglen,
				 "%s is %lld in one unit of %s (%s) and %lld "
				 "in another (%s): D cannot tell which one is "
				 "meant",
				 name, (long long)v0, o->spath,
				 cu_name(c.dw, first->cu), (long long)v,
				 cu_name(c.dw, c.e->cu));
			return -1;
		}
	}
	return *t ? 1 : 0;
}

static struct d_ctype *find_def(struct dt_ctypes *ct, struct ctobj *o, int tag,
				const char *name)
{
	struct d_ctype *t;
	char msg[8];

	if (tag == DW_TAG_class_type)
		tag = DW_TAG_structure_type;
	return obj_find(ct, o, tag, name, &t, NULL, msg, sizeof(msg)) == 1
		       ? t
		       : NULL;
}

static bool obj_named(const struct ctobj *o, const char *obj)
{
	return (o->exe && strcmp(obj, "a.out") == 0) ||
	       strcmp(o->base, obj) == 0 || strcmp(o->path, obj) == 0 ||
	       (o->mod && strcmp(o->mod, obj) == 0);
}

/*
 * obj, which no target maps, as the helper's registry names it: the
 * files live processes registered under that module name or file name
 * (what a probe description's module field matches without -c or -p).
 * Each is added as a candidate when it is still the file registered
 * (device and inode: a file replaced since is not the object those
 * processes run, and its types could differ).  The number added; msg,
 * when none, says what was found.
 */
static size_t add_registered(struct dt_ctypes *ct, const char *obj, char *msg,
			     size_t msglen)
{
	struct reg_proc *procs = NULL;
	size_t np = 0, added = 0;

	snprintf(msg, msglen, "no live process registered it with the helper");
	if (!ct->statedir ||
	    reg_load_all(ct->statedir, true, NULL, NULL, &procs, &np) < 0)
		return 0;
	for (size_t i = 0; i < np; i++)
		for (size_t k = 0; k < procs[i].nent; k++) {
			const struct reg_entry *e = &procs[i].ent[k];
			const char *b = strrchr(e->path, '/');
			struct stat st;

			if (e->path[0] != '/' || !b ||
			    (strcmp(e->mod, obj) != 0 &&
				   strcmp(b + 1, obj) != 0))
				continue;
			if (stat(e->path, &st) < 0 ||
			    (uint64_t)st.st_ino != e->ino ||
			    (uint64_t)st.st_dev != e->dev) {
				snprintf(msg, msglen,
					 "the file process %d registered it "
					 "from (%s) is gone or replaced",
					 (int)procs[i].pid,
					 ct_safe(ct, e->path));
				continue;
			}
			add_obj(ct, e->path, false);
			for (size_t j = 0; j < ct->n; j++)
				if (strcmp(ct->o[j].path, e->path) == 0 &&
				    !ct->o[j].mod)
					ct->o[j].mod = ct_safe(ct, e->mod);
		}
	reg_procs_free(procs, np);
	for (size_t j = 0; j < ct->n; j++) /* what add_obj() took */
		added += obj_named(&ct->o[j], obj);
	return added;
}

int ctypes_lookup(void *ctx, const char *obj, int kind, const char *name,
		  const struct d_ctype **tp, char *msg, size_t msglen)
{
	struct dt_ctypes *ct = ctx;
	int tag = kind == D_CT_STRUCT  ? DW_TAG_structure_type
		  : kind == D_CT_UNION ? DW_TAG_union_type
		  : kind == D_CT_ENUM  ? DW_TAG_enumeration_type
				       : 0;
	const char *what = kind == D_CT_STRUCT	? "struct "
			   : kind == D_CT_UNION ? "union "
			   : kind == D_CT_ENUM	? "enum "
						: "";
	struct d_ctype *found = NULL;
	struct ctobj *from = NULL;
	char nodebug[400];
	size_t nd = 0, named = 0;
	bool decl = false;

	nodebug[0] = '\0';
	for (size_t i = 0; i < ct->n; i++) {
		struct ctobj *o = &ct->o[i];
		struct d_ctype *t;
		int r;

		if (obj && !obj_named(o, obj))
			continue;
		named++;
		if (!obj_dwarf(o)) {
			if (obj) {
				snprintf(msg, msglen,
					 "%s (%s) has no debug information "
					 "(DWARF) to take types from: build "
					 "it with -g, or install its debug "
					 "file",
					 obj, o->sbase);
				return -2;
			}
			/* the programs' own: a library without debug
			 * information is the rule, not news */
			if (o->exe && nd < sizeof(nodebug))
				nd += (size_t)snprintf(
					nodebug + nd, sizeof(nodebug) - nd,
					"%s%s", nd ? ", " : "", o->sbase);
			continue;
		}
		r = kind == D_CT_ENUMERATOR
			    ? obj_find_enumerator(ct, o, name, &t, msg, msglen)
			    : obj_find(ct, o, tag, name, &t, &decl, msg,
				       msglen);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		if (!found) {
			found = t;
			from = o;
		} else if (kind == D_CT_ENUMERATOR) {
			int64_t a = 0, b = 0;

			enum_value(found, name, &a);
			enum_value(t, name, &b);
			if (a != b) {
				snprintf(msg, msglen,
					 "%s is %lld in %s (%s) and %lld in "
					 "%s (%s): name the one meant, as "
					 "%s`%s",
					 name, (long long)a,
					 from->exe ? "a.out" : from->sbase,
					 from->spath, (long long)b,
					 o->exe ? "a.out" : o->sbase, o->spath,
					 from->exe ? "a.out" : from->sbase,
					 name);
				return -1;
			}
		} else if (!same_layout(found, t)) {
			snprintf(msg, msglen,
				 "%s%s is declared differently in %s (%s) "
				 "and %s (%s): name the one meant, as "
				 "%s%s`%s",
				 what, name, from->exe ? "a.out" : from->sbase,
				 from->spath, o->exe ? "a.out" : o->sbase,
				 o->spath, what,
				 from->exe ? "a.out" : from->sbase, name);
			return -1;
		}
	}
	if (obj && !named) {
		char why[PATH_MAX + 128];
		size_t n = 0;

		/* a module only the registry names: look once more */
		if (add_registered(ct, obj, why, sizeof(why)))
			return ctypes_lookup(ctx, obj, kind, name, tp, msg,
					     msglen);
		n += (size_t)snprintf(msg, msglen,
				      "no object named %s is mapped by the "
				      "traced processes",
				      obj);
		for (size_t i = 0; i < ct->n && n < msglen; i++)
			n += (size_t)snprintf(msg + n, msglen - n, "%s%s",
					      i ? ", " : " (they map ",
					      ct->o[i].exe ? "a.out"
							   : ct->o[i].sbase);
		if (ct->n && n < msglen)
			n += (size_t)snprintf(msg + n, msglen - n, ")");
		if (!ct->n && n < msglen)
			n += (size_t)snprintf(msg + n, msglen - n,
					      " (none is traced: -c, -p)");
		if (n < msglen)
			snprintf(msg + n, msglen - n, ", and %s", why);
		return -2;
	}
	if (!found && decl && tag) {
		struct d_ctype *t = ct_alloc(ct, sizeof(*t));

		t->kind = kind;
		t->name = ct_safe(ct, name);
		t->obj = obj ? ct_safe(ct, obj) : "the traced objects";
		t->incomplete = true;
		found = t;
	}
	if (!found) {
		if (nd)
			snprintf(msg, msglen,
				 "the traced program %s has no debug "
				 "information (DWARF) to take it from: build "
				 "it with -g, or install its debug file",
				 nodebug);
		return 0;
	}
	*tp = found;
	return 1;
}
