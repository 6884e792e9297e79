// SPDX-License-Identifier: MIT
/*
 * t-dof-check.c - TAP tests for sdk/dof_check.c, the DOF validator.
 *
 * A small test-only builder writes DOF blobs the way dof.h lays them out
 * (per provider PROBES, PRARGS, PROFFS, PRENOFFS, PROVIDER, RELTAB and
 * URELHDR, one shared STRTAB last), or the classic writers' way (STRTAB as
 * section 0 with its data last; a non-loadable COMMENTS section after
 * dofh_loadsz).  The tests then:
 *
 *  - check that valid blobs pass and read back exactly what was built;
 *  - prove every validation rule with one targeted corruption each, and
 *    check both the error code and the byte offset reported, so the test
 *    knows the intended rule fired and not some other one;
 *  - truncate the blob at every length and flip every bit;
 *  - run 200,000 seeded random mutations (xorshift64*): each result must
 *    be accepted or refused, the iterators and dof_relocate() must stay in
 *    bounds on refused data, and whatever dof_check() accepts must also
 *    iterate and relocate without error.
 *
 * Every blob handed to the code under test sits in a heap buffer of
 * exactly its length, so AddressSanitizer or valgrind catch a read one
 * byte past the end (make check-asan, make check-valgrind).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dof_check.h"
#include "grow.h"
#include "tap.h"

#define CAP DOF_MAX_SIZE_DEFAULT
#define MAXSEC 512
#define MAXPROV 4
#define SH(i) (sizeof(dof_hdr_t) + (uint64_t)(i) * sizeof(dof_sec_t))
#define FUZZ_ROUNDS 200000

/* ------------------------------------------------------------------ */
/* Little-endian field access on test buffers. */

static uint64_t get(const uint8_t *b, uint64_t off, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | b[off + n];
	return v;
}

static void put(uint8_t *b, uint64_t off, unsigned int n, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		b[off + i] = (uint8_t)(v >> (8 * i));
}

/* ------------------------------------------------------------------ */
/* The builder. */

struct tprobe {
	const char *func;
	const char *name;
	uint64_t addr;
	unsigned int nargc, xargc;
	const char *const *nargv;
	const char *const *xargv;
	const uint8_t *argmap;
	unsigned int noffs, nenoffs;
	const uint32_t *offs;
	const uint32_t *enoffs;
	const char *sym; /* SETX relocation against it, or NULL */
};

struct tprov {
	const char *name;
	dof_attr_t attr[5];
	unsigned int nprobes;
	const struct tprobe *probes;
};

struct bopts {
	uint8_t version;
	bool strtab_first;	  /* classic order: STRTAB is section 0 */
	bool comments;		  /* non-loadable COMMENTS after loadsz */
	bool none_reloc;	  /* a DOF_RELO_NONE entry with junk fields */
	uint32_t probe_entsize;	  /* 0: sizeof(dof_probe_t) */
	unsigned int extra_provs; /* PROVIDERs sharing provider 0's tables */
	unsigned int extra_urels; /* URELHDRs sharing provider 0's RELTAB */
};

struct sb {
	uint32_t type, align, flags, entsize;
	uint8_t *data;
	uint64_t size, off;
};

struct bprov {
	int probes, prargs, proffs, prenoffs, prov, reltab, urelhdr;
};

struct built {
	uint8_t *buf;
	size_t size;
	uint64_t loadsz;
	uint32_t secnum;
	int strtab, comments;
	uint32_t entsize;
	struct bprov pv[MAXPROV];
};

struct strtab {
	struct sbuf t;
	struct {
		const char *const *v;
		unsigned int n;
		uint32_t idx;
	} lists[1024];
	unsigned int nlists;
};

static uint32_t str_append(struct strtab *st, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t idx = (uint32_t)st->t.len;

	if (sbuf_add(&st->t, s, n) < 0)
		abort();
	return idx;
}

/* A string, shared with an equal one already in the table. */
static uint32_t str_add(struct strtab *st, const char *s)
{
	size_t i, n = strlen(s) + 1;

	for (i = 0; i + n <= st->t.len; i++)
		if ((i == 0 || st->t.b[i - 1] == '\0') &&
		    memcmp(st->t.b + i, s, n) == 0)
			return (uint32_t)i;
	return str_append(st, s);
}

/* A list of strings back to back, shared with an equal earlier list. */
static uint32_t list_add(struct strtab *st, const char *const *v,
			 unsigned int n)
{
	unsigned int i, k;
	uint32_t idx;

	if (n == 0)
		return 0;
	for (i = 0; i < st->nlists; i++) {
		if (st->lists[i].n != n)
			continue;
		for (k = 0; k < n; k++)
			if (strcmp(st->lists[i].v[k], v[k]) != 0)
				break;
		if (k == n)
			return st->lists[i].idx;
	}
	idx = str_append(st, v[0]);
	for (k = 1; k < n; k++)
		str_append(st, v[k]);
	if (st->nlists < 1024) {
		st->lists[st->nlists].v = v;
		st->lists[st->nlists].n = n;
		st->lists[st->nlists++].idx = idx;
	}
	return idx;
}

static int sec_add(struct sb *sec, unsigned int *nsec, uint32_t type,
		   uint32_t align, uint32_t entsize, uint64_t size)
{
	struct sb *s = &sec[*nsec];

	s->type = type;
	s->align = align;
	s->flags = DOF_SECF_LOAD;
	s->entsize = entsize;
	s->size = size;
	s->data = calloc(1, size ? size : 1);
	return (int)(*nsec)++;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static struct built build(const struct tprov *pvs, unsigned int npv,
			  const struct bopts *o)
{
	static struct strtab st;
	struct sb *sec = calloc(MAXSEC, sizeof(*sec));
	uint32_t entsize =
		o->probe_entsize ? o->probe_entsize : sizeof(dof_probe_t);
	bool v2 = o->version == DOF_VERSION_2;
	unsigned int nsec = 0, p, j, k;
	uint64_t off, loadsz, filesz;
	struct built b;
	dof_hdr_t h;

	memset(&b, 0, sizeof(b));
	memset(&st, 0, sizeof(st));
	str_append(&st, "");
	b.entsize = entsize;
	b.comments = -1;
	b.strtab = o->strtab_first
			   ? sec_add(sec, &nsec, DOF_SECT_STRTAB, 1, 0, 0)
			   : -1;

	for (p = 0; p < npv; p++) {
		const struct tprov *tp = &pvs[p];
		struct bprov *bp = &b.pv[p];
		unsigned int nargs = 0, noffs = 0, nenoffs = 0, nrel = 0;

		for (j = 0; j < tp->nprobes; j++) {
			nargs += tp->probes[j].xargc;
			noffs += tp->probes[j].noffs;
			nenoffs += tp->probes[j].nenoffs;
			nrel += tp->probes[j].sym != NULL;
		}
		nrel += o->none_reloc;
		bp->probes = sec_add(sec, &nsec, DOF_SECT_PROBES, 8, entsize,
				     (uint64_t)entsize * tp->nprobes);
		bp->prargs = sec_add(sec, &nsec, DOF_SECT_PRARGS, 1, 1, nargs);
		bp->proffs =
			sec_add(sec, &nsec, DOF_SECT_PROFFS, 4, 4, 4 * noffs);
		bp->prenoffs = v2 && nenoffs
				       ? sec_add(sec, &nsec, DOF_SECT_PRENOFFS,
						 4, 4, 4 * nenoffs)
				       : -1;
		bp->prov = sec_add(sec, &nsec, DOF_SECT_PROVIDER, 4, 0,
				   v2 ? sizeof(dof_provider_t)
				      : DOF_PROVIDER_V1_SIZE);
		bp->reltab = bp->urelhdr = -1;
		if (nrel != 0) {
			bp->reltab = sec_add(sec, &nsec, DOF_SECT_RELTAB, 8,
					     sizeof(dof_relodesc_t),
					     nrel * sizeof(dof_relodesc_t));
			bp->urelhdr = sec_add(sec, &nsec, DOF_SECT_URELHDR, 4,
					      0, sizeof(dof_relohdr_t));
		}
	}
	for (k = 0; k < o->extra_provs; k++)
		sec_add(sec, &nsec, DOF_SECT_PROVIDER, 4, 0,
			sizeof(dof_provider_t));
	for (k = 0; k < o->extra_urels; k++)
		sec_add(sec, &nsec, DOF_SECT_URELHDR, 4, 0,
			sizeof(dof_relohdr_t));
	if (b.strtab < 0)
		b.strtab = sec_add(sec, &nsec, DOF_SECT_STRTAB, 1, 0, 0);

	/* Contents, now that every section index is known. */
	for (p = 0; p < npv; p++) {
		const struct tprov *tp = &pvs[p];
		struct bprov *bp = &b.pv[p];
		uint32_t argi = 0, offi = 0, enoffi = 0, reli = 0;
		dof_provider_t pv;

		for (j = 0; j < tp->nprobes; j++) {
			const struct tprobe *t = &tp->probes[j];
			dof_probe_t r;

			memset(&r, 0, sizeof(r));
			r.dofpr_addr = t->addr;
			r.dofpr_func = str_add(&st, t->func);
			r.dofpr_name = str_add(&st, t->name);
			r.dofpr_nargv = list_add(&st, t->nargv, t->nargc);
			r.dofpr_xargv = list_add(&st, t->xargv, t->xargc);
			r.dofpr_nargc = (uint8_t)t->nargc;
			r.dofpr_xargc = (uint8_t)t->xargc;
			r.dofpr_argidx = argi;
			memcpy(sec[bp->prargs].data + argi, t->argmap,
			       t->xargc);
			argi += t->xargc;
			r.dofpr_offidx = offi;
			r.dofpr_noffs = (uint16_t)t->noffs;
			memcpy(sec[bp->proffs].data + 4 * offi, t->offs,
			       4 * t->noffs);
			offi += t->noffs;
			if (bp->prenoffs >= 0) {
				r.dofpr_enoffidx = enoffi;
				r.dofpr_nenoffs = (uint16_t)t->nenoffs;
				memcpy(sec[bp->prenoffs].data + 4 * enoffi,
				       t->enoffs, 4 * t->nenoffs);
				enoffi += t->nenoffs;
			}
			memcpy(sec[bp->probes].data + (uint64_t)j * entsize, &r,
			       sizeof(r));
			if (t->sym != NULL) {
				dof_relodesc_t rd = {
					.dofr_name = str_add(&st, t->sym),
					.dofr_type = DOF_RELO_SETX,
					.dofr_offset = (uint64_t)j * entsize +
						       offsetof(dof_probe_t,
								dofpr_addr),
				};

				memcpy(sec[bp->reltab].data +
					       reli++ * sizeof(rd),
				       &rd, sizeof(rd));
			}
		}
		if (o->none_reloc) {
			dof_relodesc_t rd = {
				.dofr_name = 0xdeadbeef,
				.dofr_type = DOF_RELO_NONE,
				.dofr_offset = 0xfffffffffffffff3ull,
				.dofr_data = 42,
			};

			memcpy(sec[bp->reltab].data + reli++ * sizeof(rd), &rd,
			       sizeof(rd));
		}
		memset(&pv, 0, sizeof(pv));
		pv.dofpv_strtab = (uint32_t)b.strtab;
		pv.dofpv_probes = (uint32_t)bp->probes;
		pv.dofpv_prargs = (uint32_t)bp->prargs;
		pv.dofpv_proffs = (uint32_t)bp->proffs;
		pv.dofpv_prenoffs = bp->prenoffs >= 0 ? (uint32_t)bp->prenoffs
						      : DOF_SECT_NONE;
		pv.dofpv_name = str_add(&st, tp->name);
		pv.dofpv_provattr = tp->attr[0];
		pv.dofpv_modattr = tp->attr[1];
		pv.dofpv_funcattr = tp->attr[2];
		pv.dofpv_nameattr = tp->attr[3];
		pv.dofpv_argsattr = tp->attr[4];
		memcpy(sec[bp->prov].data, &pv, sec[bp->prov].size);
		if (bp->urelhdr >= 0) {
			dof_relohdr_t rh = {
				.dofr_strtab = (uint32_t)b.strtab,
				.dofr_relsec = (uint32_t)bp->reltab,
				.dofr_tgtsec = (uint32_t)bp->probes,
			};

			memcpy(sec[bp->urelhdr].data, &rh, sizeof(rh));
		}
	}
	for (k = 0; k < nsec; k++) {
		if (sec[k].type == DOF_SECT_PROVIDER && (int)k > b.pv[0].prov &&
		    o->extra_provs != 0)
			memcpy(sec[k].data, sec[b.pv[0].prov].data,
			       sizeof(dof_provider_t));
		if (sec[k].type == DOF_SECT_URELHDR &&
		    (int)k > b.pv[0].urelhdr && o->extra_urels != 0)
			memcpy(sec[k].data, sec[b.pv[0].urelhdr].data,
			       sizeof(dof_relohdr_t));
	}
	free(sec[b.strtab].data);
	sec[b.strtab].data = (uint8_t *)st.t.b;
	sec[b.strtab].size = st.t.len;
	if (o->comments) {
		b.comments = sec_add(sec, &nsec, DOF_SECT_COMMENTS, 1, 0, 24);
		sec[b.comments].flags = 0;
		memcpy(sec[b.comments].data, "usdt-sdk test builder\n", 23);
	}

	/* Layout: header, section table, loadable data, STRTAB, the rest. */
	off = SH(nsec);
	for (k = 0; k < nsec; k++) {
		if ((int)k == b.strtab || sec[k].flags == 0)
			continue;
		off = align_up(off, sec[k].align);
		sec[k].off = off;
		off += sec[k].size;
	}
	sec[b.strtab].off = off;
	loadsz = off + sec[b.strtab].size;
	filesz = loadsz;
	if (b.comments >= 0) {
		sec[b.comments].off = align_up(loadsz, 8);
		filesz = sec[b.comments].off + sec[b.comments].size;
	}

	memset(&h, 0, sizeof(h));
	memcpy(h.dofh_ident, DOF_MAG_STRING, DOF_MAG_STRLEN);
	h.dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h.dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
	h.dofh_ident[DOF_ID_VERSION] = o->version;
	h.dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h.dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h.dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h.dofh_hdrsize = sizeof(dof_hdr_t);
	h.dofh_secsize = sizeof(dof_sec_t);
	h.dofh_secnum = nsec;
	h.dofh_secoff = sizeof(dof_hdr_t);
	h.dofh_loadsz = loadsz;
	h.dofh_filesz = filesz;

	b.size = filesz;
	b.loadsz = loadsz;
	b.secnum = nsec;
	b.buf = calloc(1, filesz);
	memcpy(b.buf, &h, sizeof(h));
	for (k = 0; k < nsec; k++) {
		dof_sec_t s = {
			.dofs_type = sec[k].type,
			.dofs_align = sec[k].align,
			.dofs_flags = sec[k].flags,
			.dofs_entsize = sec[k].entsize,
			.dofs_offset = sec[k].off,
			.dofs_size = sec[k].size,
		};

		memcpy(b.buf + SH(k), &s, sizeof(s));
		memcpy(b.buf + sec[k].off, sec[k].data, sec[k].size);
		free(sec[k].data);
	}
	free(sec);
	return b;
}

/* Where things are in a built blob, read back from its section table. */
static uint64_t sec_off(const struct built *b, int idx)
{
	return get(b->buf, SH(idx) + offsetof(dof_sec_t, dofs_offset), 8);
}

static uint64_t sec_size(const struct built *b, int idx)
{
	return get(b->buf, SH(idx) + offsetof(dof_sec_t, dofs_size), 8);
}

static uint64_t probe_rec(const struct built *b, unsigned int j)
{
	return sec_off(b, b->pv[0].probes) + (uint64_t)j * b->entsize;
}

static uint64_t probe_field(const struct built *b, unsigned int j, size_t field,
			    unsigned int n)
{
	return get(b->buf, probe_rec(b, j) + field, n);
}

static uint64_t str_off(const struct built *b, uint64_t idx)
{
	return sec_off(b, b->strtab) + idx;
}

static uint64_t rel_rec(const struct built *b, unsigned int k)
{
	return sec_off(b, b->pv[0].reltab) + k * sizeof(dof_relodesc_t);
}

#define PROV_REC(b) sec_off(b, (b)->pv[0].prov)
#define URH_REC(b) sec_off(b, (b)->pv[0].urelhdr)
#define PRF(f) offsetof(dof_probe_t, f)
#define PVF(f) offsetof(dof_provider_t, f)
#define SF(f) offsetof(dof_sec_t, f)

/* ------------------------------------------------------------------ */
/* The reference blob: one provider, two probes. */

static const char *const q_start_n[] = {"const char *", "int"};
static const char *const q_start_x[] = {"string", "int"};
static const uint8_t q_start_map[] = {0, 1};
static const uint32_t q_start_offs[] = {0x12, 0x40};
static const uint32_t q_start_enoffs[] = {0x30};
static const char *const q_done_n[] = {"const char *", "long", "int"};
static const char *const q_done_x[] = {"long", "string"};
static const uint8_t q_done_map[] = {1, 0};
static const uint32_t q_done_offs[] = {0x8};
static const uint32_t q_done_enoffs[] = {0x20, 0x28};

static const struct tprobe ref_probes[] = {
	{
		.func = "main",
		.name = "query-start",
		.addr = 0x401000,
		.nargc = 2,
		.nargv = q_start_n,
		.xargc = 2,
		.xargv = q_start_x,
		.argmap = q_start_map,
		.noffs = 2,
		.offs = q_start_offs,
		.nenoffs = 1,
		.enoffs = q_start_enoffs,
		.sym = "$dtrace1234.main",
	},
	{
		.func = "worker",
		.name = "query-done",
		.addr = 0x402000,
		.nargc = 3,
		.nargv = q_done_n,
		.xargc = 2,
		.xargv = q_done_x,
		.argmap = q_done_map,
		.noffs = 1,
		.offs = q_done_offs,
		.nenoffs = 2,
		.enoffs = q_done_enoffs,
		.sym = "$dtrace1234.worker",
	},
};

/* The same probes without is-enabled sites, for version 1. */
static const struct tprobe v1_probes[] = {
	{
		.func = "main",
		.name = "query-start",
		.addr = 0x401000,
		.nargc = 2,
		.nargv = q_start_n,
		.xargc = 2,
		.xargv = q_start_x,
		.argmap = q_start_map,
		.noffs = 2,
		.offs = q_start_offs,
		.sym = "$dtrace1234.main",
	},
	{
		.func = "worker",
		.name = "query-done",
		.addr = 0x402000,
		.nargc = 3,
		.nargv = q_done_n,
		.xargc = 2,
		.xargv = q_done_x,
		.argmap = q_done_map,
		.noffs = 1,
		.offs = q_done_offs,
		.sym = "$dtrace1234.worker",
	},
};

#define EVOLVING_COMMON DOF_ATTR(5, 5, 5)
#define PRIVATE_UNKNOWN DOF_ATTR(1, 1, 0)

static const struct tprov ref_prov = {
	.name = "myapp",
	.attr = {EVOLVING_COMMON, PRIVATE_UNKNOWN, PRIVATE_UNKNOWN,
		 EVOLVING_COMMON, EVOLVING_COMMON},
	.nprobes = 2,
	.probes = ref_probes,
};

static const struct tprov v1_prov = {
	.name = "myapp",
	.attr = {EVOLVING_COMMON, PRIVATE_UNKNOWN, PRIVATE_UNKNOWN,
		 EVOLVING_COMMON, EVOLVING_COMMON},
	.nprobes = 2,
	.probes = v1_probes,
};

static const struct bopts ref_opts = {
	.version = DOF_VERSION_2,
	.none_reloc = true,
};

static struct built build_ref(void)
{
	return build(&ref_prov, 1, &ref_opts);
}

/* ------------------------------------------------------------------ */
/* Reading blobs back. */

struct walk {
	unsigned int nprov, nprobe, nreloc, nerr;
	uint64_t sum; /* folds in what was read, so nothing is skipped */
};

/*
 * Everything the iterators hand out, touched byte by byte.  Errors are
 * counted and stepped over, as a lenient consumer would.
 */
static struct walk walk_all(const void *buf, size_t len)
{
	struct dof_reloc_info ri;
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct walk w = {0};
	uint64_t rc = 0, pc;
	uint32_t c = 0;
	unsigned int i;
	int r;

	while ((r = dof_prov_next(buf, len, &c, &pv, NULL)) != 0) {
		if (r < 0) {
			w.nerr++;
			if (c == 0) /* header refused: nothing to step */
				break;
			continue;
		}
		w.nprov++;
		w.sum += strlen(pv.name);
		pc = 0;
		while ((r = dof_probe_next(&pv, &pc, &pr, NULL)) != 0) {
			const char *t;

			if (r < 0) {
				w.nerr++;
				continue;
			}
			w.nprobe++;
			w.sum += strlen(pr.func) + strlen(pr.name) + pr.addr;
			for (t = dof_argv_next(&pr, false, NULL); t != NULL;
			     t = dof_argv_next(&pr, false, t))
				w.sum += strlen(t);
			for (t = dof_argv_next(&pr, true, NULL); t != NULL;
			     t = dof_argv_next(&pr, true, t))
				w.sum += strlen(t);
			for (i = 0; i < pr.xargc; i++)
				w.sum += pr.argmap[i];
			for (i = 0; i < pr.noffs; i++)
				w.sum += dof_probe_off(&pr, i);
			for (i = 0; i < pr.nenoffs; i++)
				w.sum += dof_probe_enoff(&pr, i);
		}
	}
	while ((r = dof_reloc_next(buf, len, &rc, &ri, NULL)) != 0) {
		if (r < 0) {
			w.nerr++;
			if (rc == 0)
				break;
			continue;
		}
		w.nreloc++;
		if (ri.name != NULL)
			w.sum += strlen(ri.name);
		w.sum += ri.value;
	}
	return w;
}

static uint8_t *dup_blob(const struct built *b)
{
	uint8_t *p = malloc(b->size);

	memcpy(p, b->buf, b->size);
	return p;
}

/*
 * dof_check() must refuse buf with code, blaming byte off.  The iterators
 * then run over the refused blob (they must stay in bounds), and buf is
 * freed.
 */
static void refuse_len(uint8_t *buf, size_t len, int code, uint64_t off,
		       const char *what)
{
	struct dof_err e;
	int r = dof_check(buf, len, CAP, &e);

	if (!tap_ok(r == code && e.code == code && e.off == off &&
			    e.msg[0] != '\0',
		    "refuses %s: \"%s\" at 0x%llx", what, e.msg,
		    (unsigned long long)e.off))
		diag("got %d at 0x%llx, want %d at 0x%llx", r,
		     (unsigned long long)e.off, code, (unsigned long long)off);
	walk_all(buf, len);
	free(buf);
}

static void refuse(uint8_t *buf, const struct built *b, uint64_t off,
		   const char *what)
{
	refuse_len(buf, b->size, -EINVAL, off, what);
}

static void accept_blob(uint8_t *buf, size_t len, const char *what)
{
	struct dof_err e;
	int r = dof_check(buf, len, CAP, &e);
	struct walk w;

	if (!tap_ok(r == 0, "accepts %s", what))
		diag("refused: \"%s\" at 0x%llx", e.msg,
		     (unsigned long long)e.off);
	w = walk_all(buf, len);
	if (r == 0 && w.nerr != 0)
		tap_ok(0, "%s: iterators report %u errors", what, w.nerr);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Valid blobs read back exactly. */

static void check_probe(const struct dof_probe_info *pr, const struct tprobe *t,
			uint64_t base, const char *tag)
{
	const char *s;
	unsigned int i;
	bool same;

	is_str(pr->prov, "myapp", "%s %s: provider", tag, t->name);
	is_str(pr->func, t->func, "%s %s: function", tag, t->name);
	is_str(pr->name, t->name, "%s %s: name", tag, t->name);
	is_int(pr->addr, t->addr + base, "%s %s: addr", tag, t->name);
	is_int(pr->nargc, t->nargc, "%s %s: nargc", tag, t->name);
	is_int(pr->xargc, t->xargc, "%s %s: xargc", tag, t->name);
	same = true;
	for (i = 0, s = dof_argv_next(pr, false, NULL); i < t->nargc;
	     i++, s = dof_argv_next(pr, false, s))
		same = same && s != NULL && strcmp(s, t->nargv[i]) == 0;
	ok(same && s == NULL, "%s %s: native types", tag, t->name);
	same = true;
	for (i = 0, s = dof_argv_next(pr, true, NULL); i < t->xargc;
	     i++, s = dof_argv_next(pr, true, s))
		same = same && s != NULL && strcmp(s, t->xargv[i]) == 0;
	ok(same && s == NULL, "%s %s: translated types", tag, t->name);
	ok(memcmp(pr->argmap, t->argmap, t->xargc) == 0, "%s %s: argmap", tag,
	   t->name);
	is_int(pr->noffs, t->noffs, "%s %s: noffs", tag, t->name);
	same = true;
	for (i = 0; i < t->noffs; i++)
		same = same && dof_probe_off(pr, i) == t->offs[i];
	ok(same && dof_probe_off(pr, t->noffs) == 0, "%s %s: offsets", tag,
	   t->name);
	is_int(pr->nenoffs, t->nenoffs, "%s %s: nenoffs", tag, t->name);
	same = true;
	for (i = 0; i < t->nenoffs; i++)
		same = same && dof_probe_enoff(pr, i) == t->enoffs[i];
	ok(same, "%s %s: is-enabled offsets", tag, t->name);
}

static void check_walk(const struct built *b, const struct tprov *tp,
		       uint64_t base, const char *tag)
{
	struct dof_reloc_info ri;
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	uint64_t pc = 0, rc = 0;
	uint32_t c = 0;
	unsigned int j;
	int r;

	r = dof_prov_next(b->buf, b->size, &c, &pv, NULL);
	is_int(r, 1, "%s: one provider", tag);
	if (r != 1)
		return;
	is_str(pv.name, tp->name, "%s: provider name", tag);
	ok(pv.provattr == tp->attr[0] && pv.modattr == tp->attr[1] &&
		   pv.funcattr == tp->attr[2] && pv.nameattr == tp->attr[3] &&
		   pv.argsattr == tp->attr[4],
	   "%s: provider attributes", tag);
	is_int(pv.nprobes, tp->nprobes, "%s: probe count", tag);
	is_int(pv.secidx, b->pv[0].prov, "%s: provider section", tag);
	for (j = 0; j < tp->nprobes; j++) {
		r = dof_probe_next(&pv, &pc, &pr, NULL);
		is_int(r, 1, "%s: probe %u", tag, j);
		if (r == 1)
			check_probe(&pr, &tp->probes[j], base, tag);
	}
	is_int(dof_probe_next(&pv, &pc, &pr, NULL), 0, "%s: no more probes",
	       tag);
	is_int(dof_prov_next(b->buf, b->size, &c, &pv, NULL), 0,
	       "%s: no more providers", tag);

	for (j = 0; j < tp->nprobes; j++) {
		r = dof_reloc_next(b->buf, b->size, &rc, &ri, NULL);
		ok(r == 1 && ri.type == DOF_RELO_SETX &&
			   strcmp(ri.name, tp->probes[j].sym) == 0 &&
			   ri.offset == (uint64_t)j * b->entsize &&
			   ri.tgt_off == probe_rec(b, j) &&
			   ri.value == tp->probes[j].addr + base &&
			   ri.tgt_sec == (uint32_t)b->pv[0].probes,
		   "%s: relocation %u SETX %s", tag, j, tp->probes[j].sym);
	}
	if (b->pv[0].reltab >= 0 &&
	    sec_size(b, b->pv[0].reltab) >
		    tp->nprobes * sizeof(dof_relodesc_t)) {
		r = dof_reloc_next(b->buf, b->size, &rc, &ri, NULL);
		ok(r == 1 && ri.type == DOF_RELO_NONE && ri.name == NULL &&
			   ri.data == 42,
		   "%s: relocation NONE", tag);
	}
	is_int(dof_reloc_next(b->buf, b->size, &rc, &ri, NULL), 0,
	       "%s: no more relocations", tag);
}

static void test_valid(void)
{
	struct built b = build_ref(), b1, b2;
	struct bopts o = ref_opts;
	struct dof_err e;
	uint64_t loadsz = 0;
	uint8_t *p;
	int r;

	diag("reference blob: %zu bytes, %u sections", b.size, b.secnum);
	accept_blob(dup_blob(&b), b.size, "the reference blob (version 2)");
	check_walk(&b, &ref_prov, 0, "v2");
	accept_blob(dup_blob(&b), b.size, "the blob at exactly the size cap");
	r = dof_check(b.buf, b.size, b.size, &e);
	is_int(r, 0, "size equal to max_size passes");

	r = dof_check_hdr(b.buf, sizeof(dof_hdr_t), CAP, &loadsz, &e);
	ok(r == 0 && loadsz == b.loadsz, "dof_check_hdr() gives loadsz %llu",
	   (unsigned long long)loadsz);
	p = malloc(sizeof(dof_hdr_t));
	memcpy(p, b.buf, sizeof(dof_hdr_t));
	p[0] = 0;
	r = dof_check_hdr(p, sizeof(dof_hdr_t), CAP, &loadsz, &e);
	ok(r == -EINVAL && e.off == 0, "dof_check_hdr() refuses bad magic");
	memcpy(p, b.buf, sizeof(dof_hdr_t));
	r = dof_check_hdr(p, sizeof(dof_hdr_t), 100, &loadsz, &e);
	ok(r == -E2BIG, "dof_check_hdr() refuses a blob over the cap: %s",
	   e.msg);
	free(p);

	/* A probe may have only is-enabled sites. */
	{
		struct tprobe tp[2];
		struct tprov pv = ref_prov;

		memcpy(tp, ref_probes, sizeof(tp));
		tp[1].noffs = 0;
		pv.probes = tp;
		b2 = build(&pv, 1, &o);
		accept_blob(dup_blob(&b2), b2.size,
			    "a probe with is-enabled offsets only");
		free(b2.buf);
	}

	o.version = DOF_VERSION_1;
	b1 = build(&v1_prov, 1, &o);
	ok(sec_size(&b1, b1.pv[0].prov) == DOF_PROVIDER_V1_SIZE,
	   "version 1 provider section is 40 bytes");
	accept_blob(dup_blob(&b1), b1.size, "version 1 DOF, 40-byte provider");
	check_walk(&b1, &v1_prov, 0, "v1");
	free(b1.buf);

	o = ref_opts;
	b2 = build(&v1_prov, 1, &o);
	ok(get(b2.buf, sec_off(&b2, b2.pv[0].prov) + PVF(dofpv_prenoffs), 4) ==
		   DOF_SECT_NONE,
	   "version 2 without is-enabled sites has dofpv_prenoffs 0");
	accept_blob(dup_blob(&b2), b2.size, "version 2 without PRENOFFS");
	free(b2.buf);

	o.strtab_first = true;
	o.comments = true;
	b2 = build(&ref_prov, 1, &o);
	ok(b2.strtab == 0 && b2.size > b2.loadsz,
	   "classic layout: STRTAB is section 0, COMMENTS past loadsz");
	accept_blob(dup_blob(&b2), b2.size, "the classic layout");
	check_walk(&b2, &ref_prov, 0, "classic");
	p = malloc(b2.loadsz);
	memcpy(p, b2.buf, b2.loadsz);
	accept_blob(p, b2.loadsz, "only dofh_loadsz bytes present");
	p = dup_blob(&b2);
	put(p, SH(b2.comments) + SF(dofs_size), 8,
	    sec_size(&b2, b2.comments) + 1);
	refuse(p, &b2, SH(b2.comments) + SF(dofs_size),
	       "a non-loadable section past dofh_filesz");
	free(b2.buf);

	o = ref_opts;
	o.probe_entsize = 56;
	b2 = build(&ref_prov, 1, &o);
	accept_blob(dup_blob(&b2), b2.size,
		    "PROBES entsize 56 (larger record)");
	check_walk(&b2, &ref_prov, 0, "entsize 56");
	free(b2.buf);

	/* The smallest valid blob: a header and no sections. */
	p = malloc(sizeof(dof_hdr_t));
	memcpy(p, b.buf, sizeof(dof_hdr_t));
	put(p, offsetof(dof_hdr_t, dofh_secnum), 4, 0);
	put(p, offsetof(dof_hdr_t, dofh_loadsz), 8, sizeof(dof_hdr_t));
	put(p, offsetof(dof_hdr_t, dofh_filesz), 8, sizeof(dof_hdr_t));
	accept_blob(p, sizeof(dof_hdr_t), "a 64-byte header with no sections");

	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* dof_relocate() */

static void test_relocate(void)
{
	struct built b = build_ref();
	uint8_t *p = dup_blob(&b), *q;
	const uint64_t base = 0x7f0000000000ull;
	struct built r;
	struct dof_err e;
	int n;

	n = dof_relocate(p, b.size, base, &e);
	is_int(n, 2, "dof_relocate() applies the two SETX relocations");
	ok(probe_field(&b, 0, 0, 8) + base == get(p, probe_rec(&b, 0), 8) &&
		   probe_field(&b, 1, 0, 8) + base ==
			   get(p, probe_rec(&b, 1), 8),
	   "dofpr_addr fields moved by the base");
	r = b;
	r.buf = p;
	is_int(dof_check(p, b.size, CAP, &e), 0, "relocated blob still valid");
	check_walk(&r, &ref_prov, base, "relocated");
	/* Only the two 8-byte targets differ. */
	{
		size_t i, diff = 0;

		for (i = 0; i < b.size; i++)
			diff += p[i] != b.buf[i] &&
				!(i >= probe_rec(&b, 0) &&
				  i < probe_rec(&b, 0) + 8) &&
				!(i >= probe_rec(&b, 1) &&
				  i < probe_rec(&b, 1) + 8);
		is_int(diff, 0, "no other byte changed");
	}
	free(p);

	p = dup_blob(&b);
	n = dof_relocate(p, b.size, 0, &e);
	ok(n == 2 && memcmp(p, b.buf, b.size) == 0, "base 0 changes nothing");
	free(p);

	/* A bad second relocation: nothing at all is written. */
	p = dup_blob(&b);
	put(p, rel_rec(&b, 1) + offsetof(dof_relodesc_t, dofr_offset), 8, 4);
	q = dup_blob(&b);
	memcpy(q, p, b.size);
	n = dof_relocate(p, b.size, base, &e);
	ok(n == -EINVAL && e.off == rel_rec(&b, 1) + 8 &&
		   memcmp(p, q, b.size) == 0,
	   "a refused relocation leaves the blob untouched: %s", e.msg);
	free(p);
	free(q);

	p = malloc(b.size - 1);
	memcpy(p, b.buf, b.size - 1);
	ok(dof_relocate(p, b.size - 1, base, &e) == -EINVAL,
	   "dof_relocate() refuses a truncated blob");
	free(p);
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Every header rule. */

static void test_header(void)
{
	struct built b = build_ref();
	uint8_t *p;
	size_t len;
	unsigned int i, bad = 0;

	/* Truncated at every length: refused, in bounds. */
	for (len = 0; len < b.size; len++) {
		struct dof_err e;

		p = malloc(len ? len : 1);
		memcpy(p, b.buf, len);
		if (dof_check(p, len, CAP, &e) != -EINVAL || e.msg[0] == '\0')
			bad++;
		walk_all(p, len);
		dof_relocate(p, len, 1, NULL);
		free(p);
	}
	is_int(bad, 0,
	       "truncated at each of the %zu lengths 0..size-1: refused",
	       b.size);
	refuse_len(dup_blob(&b), 10, -EINVAL, 10, "10 bytes (no header)");
	refuse_len(dup_blob(&b), b.size - 1, -EINVAL,
		   offsetof(dof_hdr_t, dofh_loadsz),
		   "one byte short of loadsz");
	refuse_len(dup_blob(&b), 0, -EINVAL, 0, "an empty buffer");
	refuse_len(NULL, 100, -EINVAL, 0, "a NULL buffer");

	for (i = 0; i < 4; i++) {
		p = dup_blob(&b);
		p[i] ^= 0x20;
		refuse(p, &b, i, "bad magic byte");
	}
	p = dup_blob(&b);
	p[DOF_ID_MODEL] = DOF_MODEL_ILP32;
	refuse(p, &b, DOF_ID_MODEL, "model ILP32");
	p = dup_blob(&b);
	p[DOF_ID_MODEL] = DOF_MODEL_NONE;
	refuse(p, &b, DOF_ID_MODEL, "model NONE");
	p = dup_blob(&b);
	p[DOF_ID_ENCODING] = DOF_ENCODE_MSB;
	refuse(p, &b, DOF_ID_ENCODING, "big-endian encoding");
	p = dup_blob(&b);
	p[DOF_ID_VERSION] = 0;
	refuse(p, &b, DOF_ID_VERSION, "version 0");
	p = dup_blob(&b);
	p[DOF_ID_VERSION] = 3;
	refuse(p, &b, DOF_ID_VERSION, "version 3");
	p = dup_blob(&b);
	p[DOF_ID_DIFVERS] = 1;
	refuse(p, &b, DOF_ID_DIFVERS, "DIF version 1");
	p = dup_blob(&b);
	p[DOF_ID_DIFIREG] = DIF_DIR_NREGS + 1;
	refuse(p, &b, DOF_ID_DIFIREG, "9 integer registers");
	p = dup_blob(&b);
	p[DOF_ID_DIFTREG] = DIF_DTR_NREGS + 1;
	refuse(p, &b, DOF_ID_DIFTREG, "9 tuple registers");
	for (i = DOF_ID_PAD; i < DOF_ID_SIZE; i++) {
		p = dup_blob(&b);
		p[i] = 1;
		refuse(p, &b, i, "non-zero ident pad byte");
	}
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_flags), 4, 1);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_flags), "non-zero dofh_flags");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_hdrsize), 4, 60);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_hdrsize), "dofh_hdrsize 60");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_hdrsize), 4, 68);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_hdrsize), "dofh_hdrsize 68");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_hdrsize), 4, 72);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secoff),
	       "dofh_hdrsize 72: section table inside the header");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secsize), 4, 16);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secsize), "dofh_secsize 16");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secsize), 4, 36);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secsize), "dofh_secsize 36");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_pad), 8, 1);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_pad), "non-zero dofh_pad");

	p = dup_blob(&b);
	{
		struct dof_err e;
		int r = dof_check(p, b.size, b.size - 1, &e);

		ok(r == -E2BIG && e.off == offsetof(dof_hdr_t, dofh_filesz),
		   "refuses a blob one byte over max_size with E2BIG: %s",
		   e.msg);
	}
	free(p);
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_filesz), 8, ~0ull);
	put(p, offsetof(dof_hdr_t, dofh_loadsz), 8, ~0ull);
	refuse_len(p, b.size, -E2BIG, offsetof(dof_hdr_t, dofh_filesz),
		   "sizes of 2^64-1");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_loadsz), 8, 32);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_loadsz), "loadsz < hdrsize");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_loadsz), 8, b.size + 8);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_loadsz), "loadsz > filesz");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_loadsz), 8, b.size + 8);
	put(p, offsetof(dof_hdr_t, dofh_filesz), 8, b.size + 8);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_loadsz),
	       "loadsz beyond the bytes present");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secoff), 8, 68);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secoff),
	       "misaligned section table");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secoff), 8, 0);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secoff),
	       "section table over the header");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secoff), 8, ~7ull);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secoff),
	       "section table offset near 2^64");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secnum), 4, 0xffffffffu);
	refuse(p, &b, offsetof(dof_hdr_t, dofh_secnum),
	       "dofh_secnum 0xffffffff");
	p = dup_blob(&b);
	put(p, offsetof(dof_hdr_t, dofh_secnum), 4, b.secnum + 1);
	refuse(p, &b, SH(0) + SF(dofs_offset),
	       "one section header too many (table over section 0's data)");
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Every section rule. */

static void test_sections(void)
{
	struct built b = build_ref();
	struct bopts o = ref_opts;
	int pr = b.pv[0].probes, of = b.pv[0].proffs, st = b.strtab;
	int pa = b.pv[0].prargs, rt = b.pv[0].reltab, pv = b.pv[0].prov;
	int uh = b.pv[0].urelhdr, en = b.pv[0].prenoffs;
	struct built b1;
	uint8_t *p;

	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_flags), 4, 0);
	refuse(p, &b, SH(pr) + SF(dofs_flags), "PROBES without LOAD flag");
	p = dup_blob(&b);
	put(p, SH(st) + SF(dofs_flags), 4, 0);
	refuse(p, &b, SH(st) + SF(dofs_flags), "STRTAB without LOAD flag");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_align), 4, 3);
	refuse(p, &b, SH(pr) + SF(dofs_align), "alignment 3");
	p = dup_blob(&b);
	put(p, SH(pa) + SF(dofs_align), 4, 0);
	refuse(p, &b, SH(pa) + SF(dofs_align), "alignment 0");
	p = dup_blob(&b);
	put(p, SH(of) + SF(dofs_offset), 8, sec_off(&b, of) + 2);
	refuse(p, &b, SH(of) + SF(dofs_offset), "PROFFS at offset 4n+2");
	{
		uint32_t a = 16;

		while (sec_off(&b, pr) % a == 0)
			a <<= 1;
		p = dup_blob(&b);
		put(p, SH(pr) + SF(dofs_align), 4, a);
		refuse(p, &b, SH(pr) + SF(dofs_offset),
		       "PROBES offset not a multiple of a larger alignment");
	}
	p = dup_blob(&b);
	put(p, SH(st) + SF(dofs_size), 8, sec_size(&b, st) + 1);
	refuse(p, &b, SH(st) + SF(dofs_size), "STRTAB one byte past loadsz");
	p = dup_blob(&b);
	put(p, SH(st) + SF(dofs_offset), 8, b.loadsz + 8);
	refuse(p, &b, SH(st) + SF(dofs_offset), "STRTAB offset past loadsz");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_size), 8, 0xfffffffffffffff0ull);
	refuse(p, &b, SH(pr) + SF(dofs_size), "size near 2^64 (wraps)");
	p = dup_blob(&b);
	put(p, SH(pa) + SF(dofs_offset), 8, 0xffffffffffffffffull);
	refuse(p, &b, SH(pa) + SF(dofs_offset), "offset 2^64-1");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_offset), 8, 0);
	refuse(p, &b, SH(pr) + SF(dofs_offset), "PROBES over the header");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_offset), 8, SH(1));
	refuse(p, &b, SH(pr) + SF(dofs_offset),
	       "PROBES over the section table");

	p = dup_blob(&b);
	p[b.loadsz - 1] = 'x';
	refuse(p, &b, b.loadsz - 1, "string table without final NUL");
	p = dup_blob(&b);
	put(p, SH(st) + SF(dofs_size), 8, 0);
	refuse(p, &b, SH(st) + SF(dofs_size), "empty string table");

	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_align), 4, 4);
	refuse(p, &b, SH(pr) + SF(dofs_align), "PROBES aligned to 4");
	p = dup_blob(&b);
	put(p, SH(of) + SF(dofs_align), 4, 2);
	refuse(p, &b, SH(of) + SF(dofs_align), "PROFFS aligned to 2");
	p = dup_blob(&b);
	put(p, SH(en) + SF(dofs_align), 4, 1);
	refuse(p, &b, SH(en) + SF(dofs_align), "PRENOFFS aligned to 1");
	p = dup_blob(&b);
	put(p, SH(rt) + SF(dofs_align), 4, 4);
	refuse(p, &b, SH(rt) + SF(dofs_align), "RELTAB aligned to 4");
	p = dup_blob(&b);
	put(p, SH(pv) + SF(dofs_align), 4, 1);
	refuse(p, &b, SH(pv) + SF(dofs_align), "PROVIDER aligned to 1");
	p = dup_blob(&b);
	put(p, SH(uh) + SF(dofs_align), 4, 2);
	refuse(p, &b, SH(uh) + SF(dofs_align), "URELHDR aligned to 2");

	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_entsize), 4, 40);
	refuse(p, &b, SH(pr) + SF(dofs_entsize), "PROBES entsize 40");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_entsize), 4, 0);
	refuse(p, &b, SH(pr) + SF(dofs_entsize), "PROBES entsize 0");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_entsize), 4, 52);
	refuse(p, &b, SH(pr) + SF(dofs_entsize), "PROBES entsize 52");
	p = dup_blob(&b);
	put(p, SH(pa) + SF(dofs_entsize), 4, 2);
	refuse(p, &b, SH(pa) + SF(dofs_entsize), "PRARGS entsize 2");
	p = dup_blob(&b);
	put(p, SH(of) + SF(dofs_entsize), 4, 8);
	refuse(p, &b, SH(of) + SF(dofs_entsize), "PROFFS entsize 8");
	p = dup_blob(&b);
	put(p, SH(en) + SF(dofs_entsize), 4, 2);
	refuse(p, &b, SH(en) + SF(dofs_entsize), "PRENOFFS entsize 2");
	p = dup_blob(&b);
	put(p, SH(rt) + SF(dofs_entsize), 4, 16);
	refuse(p, &b, SH(rt) + SF(dofs_entsize), "RELTAB entsize 16");
	p = dup_blob(&b);
	put(p, SH(pr) + SF(dofs_size), 8, 95);
	refuse(p, &b, SH(pr) + SF(dofs_size), "PROBES size 95 (not n * 48)");
	p = dup_blob(&b);
	put(p, SH(of) + SF(dofs_size), 8, sec_size(&b, of) - 2);
	refuse(p, &b, SH(of) + SF(dofs_size), "PROFFS size 4n-2");
	p = dup_blob(&b);
	put(p, SH(rt) + SF(dofs_size), 8, sec_size(&b, rt) - 8);
	refuse(p, &b, SH(rt) + SF(dofs_size), "RELTAB size 24n-8");
	p = dup_blob(&b);
	put(p, SH(pv) + SF(dofs_size), 8, sizeof(dof_provider_t) - 1);
	refuse(p, &b, SH(pv) + SF(dofs_size), "version 2 PROVIDER of 43 bytes");
	p = dup_blob(&b);
	put(p, SH(uh) + SF(dofs_size), 8, sizeof(dof_relohdr_t) - 1);
	refuse(p, &b, SH(uh) + SF(dofs_size), "URELHDR of 11 bytes");

	/* Version 1: 40-byte providers, no PRENOFFS anywhere. */
	p = dup_blob(&b);
	p[DOF_ID_VERSION] = DOF_VERSION_1;
	refuse(p, &b, SH(en) + SF(dofs_type), "version 1 DOF with PRENOFFS");
	o.version = DOF_VERSION_1;
	b1 = build(&v1_prov, 1, &o);
	p = dup_blob(&b1);
	put(p, SH(b1.pv[0].prov) + SF(dofs_size), 8, DOF_PROVIDER_V1_SIZE - 1);
	refuse(p, &b1, SH(b1.pv[0].prov) + SF(dofs_size),
	       "version 1 PROVIDER of 39 bytes");
	p = dup_blob(&b1);
	put(p, probe_rec(&b1, 1) + PRF(dofpr_nenoffs), 2, 1);
	refuse(p, &b1, probe_rec(&b1, 1) + PRF(dofpr_nenoffs),
	       "version 1 probe with is-enabled offsets");
	free(b1.buf);
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Every provider rule. */

static struct built build_named(const char *prov, const char *func,
				const char *name, const char *type)
{
	static struct tprobe tp[2];
	static const char *nargv[2];
	struct tprov pv = ref_prov;

	memcpy(tp, ref_probes, sizeof(tp));
	pv.name = prov;
	tp[0].func = func;
	tp[0].name = name;
	nargv[0] = type;
	nargv[1] = "int";
	tp[0].nargv = nargv;
	pv.probes = tp;
	return build(&pv, 1, &ref_opts);
}

static char *rep(char c, size_t n)
{
	static char buf[8][300];
	static unsigned int k;
	char *s = buf[k++ % 8];

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_provider(void)
{
	struct built b = build_ref(), n;
	uint64_t pv = PROV_REC(&b), nameoff;
	uint8_t *p;
	char name[80];

	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_strtab), 4, b.secnum);
	refuse(p, &b, pv + PVF(dofpv_strtab), "strtab index = secnum");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_strtab), 4, (uint32_t)b.pv[0].probes);
	refuse(p, &b, pv + PVF(dofpv_strtab), "strtab naming a PROBES section");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_probes), 4, (uint32_t)b.pv[0].prargs);
	refuse(p, &b, pv + PVF(dofpv_probes), "probes naming PRARGS");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_probes), 4, 0xffffffffu);
	refuse(p, &b, pv + PVF(dofpv_probes), "probes index 0xffffffff");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_prargs), 4, (uint32_t)b.pv[0].proffs);
	refuse(p, &b, pv + PVF(dofpv_prargs), "prargs naming PROFFS");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_proffs), 4, (uint32_t)b.pv[0].prenoffs);
	refuse(p, &b, pv + PVF(dofpv_proffs), "proffs naming PRENOFFS");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_prenoffs), 4, (uint32_t)b.pv[0].proffs);
	refuse(p, &b, pv + PVF(dofpv_prenoffs), "prenoffs naming PROFFS");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_prenoffs), 4, DOF_SECIDX_NONE);
	refuse(p, &b, pv + PVF(dofpv_prenoffs), "prenoffs 0xffffffff");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_prenoffs), 4, DOF_SECT_NONE);
	refuse(p, &b, probe_rec(&b, 0) + PRF(dofpr_nenoffs),
	       "is-enabled offsets with dofpv_prenoffs 0");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_name), 4, sec_size(&b, b.strtab));
	refuse(p, &b, pv + PVF(dofpv_name), "name index = strtab size");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_name), 4, 0xfffffffcu);
	refuse(p, &b, pv + PVF(dofpv_name), "name index near 2^32");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_name), 4, 0);
	refuse(p, &b, str_off(&b, 0), "empty provider name");

	n = build_named(rep('p', DOF_PROVNAME_MAXLEN), "main", "query-start",
			"char *");
	accept_blob(dup_blob(&n), n.size, "a 53-byte provider name");
	free(n.buf);
	n = build_named(rep('p', DOF_PROVNAME_MAXLEN + 1), "main",
			"query-start", "char *");
	nameoff = str_off(&n, get(n.buf, PROV_REC(&n) + PVF(dofpv_name), 4));
	refuse(dup_blob(&n), &n, nameoff,
	       "a 54-byte provider name (no room for the pid)");
	free(n.buf);
	n = build_named("my app", "main", "query-start", "char *");
	nameoff = str_off(&n, get(n.buf, PROV_REC(&n) + PVF(dofpv_name), 4));
	refuse(dup_blob(&n), &n, nameoff + 2, "provider name with a space");
	free(n.buf);
	n = build_named("1app", "main", "query-start", "char *");
	nameoff = str_off(&n, get(n.buf, PROV_REC(&n) + PVF(dofpv_name), 4));
	refuse(dup_blob(&n), &n, nameoff,
	       "provider name starting with a digit");
	free(n.buf);
	n = build_named("myapp2", "main", "query-start", "char *");
	nameoff = str_off(&n, get(n.buf, PROV_REC(&n) + PVF(dofpv_name), 4));
	refuse(dup_blob(&n), &n, nameoff + 5,
	       "provider name ending in a digit");
	free(n.buf);
	snprintf(name, sizeof(name), "my_app-x");
	n = build_named(name, "main", "query-start", "char *");
	accept_blob(dup_blob(&n), n.size, "provider name with _ and -");
	free(n.buf);

	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_provattr), 4, EVOLVING_COMMON | 1);
	refuse(p, &b, pv + PVF(dofpv_provattr), "attribute with low byte set");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_modattr), 4, DOF_ATTR(8, 1, 0));
	refuse(p, &b, pv + PVF(dofpv_modattr), "stability level 8");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_nameattr), 4, DOF_ATTR(5, 8, 5));
	refuse(p, &b, pv + PVF(dofpv_nameattr), "data stability level 8");
	p = dup_blob(&b);
	put(p, pv + PVF(dofpv_argsattr), 4, DOF_ATTR(5, 5, 6));
	refuse(p, &b, pv + PVF(dofpv_argsattr), "dependency class 6");
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Every probe rule. */

static void test_probe(void)
{
	struct built b = build_ref(), n;
	uint64_t r0 = probe_rec(&b, 0), r1 = probe_rec(&b, 1);
	uint64_t strsz = sec_size(&b, b.strtab), at;
	uint64_t args = sec_off(&b, b.pv[0].prargs);
	uint8_t *p;

	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_pad1), 2, 1);
	refuse(p, &b, r1 + PRF(dofpr_pad1), "non-zero dofpr_pad1");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_pad2), 4, 0x80000000u);
	refuse(p, &b, r1 + PRF(dofpr_pad2), "non-zero dofpr_pad2");

	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_func), 4, strsz);
	refuse(p, &b, r0 + PRF(dofpr_func), "function index = strtab size");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_func), 4, 0xfffffff0u);
	refuse(p, &b, r0 + PRF(dofpr_func), "function index near 2^32");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_func), 4, 0);
	refuse(p, &b, str_off(&b, 0), "empty function name");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_name), 4, strsz);
	refuse(p, &b, r1 + PRF(dofpr_name), "probe name index = strtab size");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_name), 4, 0);
	refuse(p, &b, str_off(&b, 0), "empty probe name");

	n = build_named("myapp", rep('f', DOF_FUNCNAME_MAXLEN), "query-start",
			rep('t', DOF_ARGTYPE_MAXLEN));
	accept_blob(dup_blob(&n), n.size,
		    "127-byte function name and 127-byte type");
	free(n.buf);
	n = build_named("myapp", rep('f', DOF_FUNCNAME_MAXLEN + 1),
			"query-start", "char *");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_func), 4));
	refuse(dup_blob(&n), &n, at, "128-byte function name");
	free(n.buf);
	n = build_named("myapp", "ma\nin", "query-start", "char *");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_func), 4));
	refuse(dup_blob(&n), &n, at + 2, "function name with a newline");
	free(n.buf);
	n = build_named("myapp", "_ZN3foo3barEv.cold", "query-start", "char *");
	accept_blob(dup_blob(&n), n.size, "function name _ZN3foo3barEv.cold");
	free(n.buf);
	n = build_named("myapp", "main", rep('n', DOF_PROBENAME_MAXLEN),
			"char *");
	accept_blob(dup_blob(&n), n.size, "63-byte probe name");
	free(n.buf);
	n = build_named("myapp", "main", rep('n', DOF_PROBENAME_MAXLEN + 1),
			"char *");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_name), 4));
	refuse(dup_blob(&n), &n, at, "64-byte probe name");
	free(n.buf);
	n = build_named("myapp", "main", "query start", "char *");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_name), 4));
	refuse(dup_blob(&n), &n, at + 5, "probe name with a space");
	free(n.buf);
	n = build_named("myapp", "main", "9lives", "char *");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_name), 4));
	refuse(dup_blob(&n), &n, at, "probe name starting with a digit");
	free(n.buf);
	n = build_named("myapp", "main", "query-start", rep('t', 128));
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_nargv), 4));
	refuse(dup_blob(&n), &n, at, "128-byte argument type");
	free(n.buf);
	n = build_named("myapp", "main", "query-start", "char\t*");
	at = str_off(&n, probe_field(&n, 0, PRF(dofpr_nargv), 4));
	refuse(dup_blob(&n), &n, at + 4, "argument type with a tab");
	free(n.buf);

	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_noffs), 2, 0);
	put(p, r0 + PRF(dofpr_nenoffs), 2, 0);
	refuse(p, &b, r0 + PRF(dofpr_noffs), "probe with no offsets at all");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_offidx), 4, 0xffffffffu);
	refuse(p, &b, r0 + PRF(dofpr_offidx), "offidx 0xffffffff");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_offidx), 4, 0xffffffffu - 1);
	refuse(p, &b, r0 + PRF(dofpr_offidx),
	       "offidx + noffs = 2^32 + 0 (wraps in 32 bits)");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_offidx), 4, 2);
	refuse(p, &b, r0 + PRF(dofpr_offidx), "offsets one past PROFFS");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_noffs), 2, 0xffff);
	refuse(p, &b, r1 + PRF(dofpr_offidx), "noffs 0xffff");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_enoffidx), 4, 0xffffffffu);
	refuse(p, &b, r1 + PRF(dofpr_enoffidx), "enoffidx 0xffffffff");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_enoffidx), 4, 0xfffffffeu);
	refuse(p, &b, r1 + PRF(dofpr_enoffidx),
	       "enoffidx + nenoffs = 2^32 (wraps in 32 bits)");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_enoffidx), 4, 2);
	refuse(p, &b, r1 + PRF(dofpr_enoffidx),
	       "is-enabled offsets one past PRENOFFS");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_argidx), 4, 0xffffffffu);
	refuse(p, &b, r0 + PRF(dofpr_argidx), "argidx 0xffffffff");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_argidx), 4, 0xfffffffeu);
	refuse(p, &b, r0 + PRF(dofpr_argidx),
	       "argidx + xargc = 2^32 (wraps in 32 bits)");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_argidx), 4, 3);
	refuse(p, &b, r1 + PRF(dofpr_argidx), "argument map one past PRARGS");
	p = dup_blob(&b);
	p[args + 1] = 2;
	refuse(p, &b, args + 1, "argument map entry = nargc");
	p = dup_blob(&b);
	p[args + 3] = 0xff;
	refuse(p, &b, args + 3, "argument map entry 255");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_nargc), 1, 0);
	refuse(p, &b, args + 0, "xargc > 0 with nargc 0");

	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_nargv), 4, strsz);
	refuse(p, &b, r0 + PRF(dofpr_nargv), "nargv index = strtab size");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_xargv), 4, 0xffffffffu);
	refuse(p, &b, r1 + PRF(dofpr_xargv), "xargv index 0xffffffff");
	p = dup_blob(&b);
	put(p, r0 + PRF(dofpr_nargc), 1, 255);
	refuse(p, &b, str_off(&b, strsz),
	       "nargc 255: type strings run off the string table");
	p = dup_blob(&b);
	put(p, r1 + PRF(dofpr_xargv), 4, 0);
	refuse(p, &b, str_off(&b, 0), "empty argument type");
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Every relocation rule. */

static void test_reloc(void)
{
	struct built b = build_ref();
	uint64_t uh = URH_REC(&b), r0 = rel_rec(&b, 0), r1 = rel_rec(&b, 1);
	uint64_t psize = sec_size(&b, b.pv[0].probes);
	uint8_t *p;

	p = dup_blob(&b);
	put(p, uh + offsetof(dof_relohdr_t, dofr_strtab), 4,
	    (uint32_t)b.pv[0].probes);
	refuse(p, &b, uh, "URELHDR strtab naming PROBES");
	p = dup_blob(&b);
	put(p, uh + offsetof(dof_relohdr_t, dofr_relsec), 4,
	    (uint32_t)b.pv[0].urelhdr);
	refuse(p, &b, uh + 4, "URELHDR relsec naming a URELHDR");
	p = dup_blob(&b);
	put(p, uh + offsetof(dof_relohdr_t, dofr_tgtsec), 4, b.secnum);
	refuse(p, &b, uh + 8, "URELHDR tgtsec = secnum");
	p = dup_blob(&b);
	put(p, uh + offsetof(dof_relohdr_t, dofr_tgtsec), 4,
	    (uint32_t)b.pv[0].proffs);
	refuse(p, &b, uh + 8, "URELHDR tgtsec naming PROFFS");

	p = dup_blob(&b);
	put(p, r1 + offsetof(dof_relodesc_t, dofr_type), 4, 2);
	refuse(p, &b, r1 + 4, "relocation type 2");
	p = dup_blob(&b);
	put(p, r1 + offsetof(dof_relodesc_t, dofr_offset), 8,
	    psize - sizeof(dof_probe_t));
	accept_blob(p, b.size, "SETX on the last probe's address");
	p = dup_blob(&b);
	put(p, r1 + offsetof(dof_relodesc_t, dofr_offset), 8, psize - 8);
	refuse(p, &b, r1 + 8, "SETX on the last 8 bytes of PROBES (not an address)");
	p = dup_blob(&b);
	put(p, r1 + offsetof(dof_relodesc_t, dofr_offset), 8, psize - 4);
	refuse(p, &b, r1 + 8, "SETX target straddling the section end");
	p = dup_blob(&b);
	put(p, r1 + offsetof(dof_relodesc_t, dofr_offset), 8, psize);
	refuse(p, &b, r1 + 8, "SETX target at the section end");
	p = dup_blob(&b);
	put(p, r0 + offsetof(dof_relodesc_t, dofr_offset), 8,
	    0xfffffffffffffffcull);
	refuse(p, &b, r0 + 8, "SETX offset near 2^64 (wraps)");
	p = dup_blob(&b);
	put(p, r0 + offsetof(dof_relodesc_t, dofr_offset), 8, 4);
	refuse(p, &b, r0 + 8, "misaligned SETX target");
	p = dup_blob(&b);
	put(p, r0 + offsetof(dof_relodesc_t, dofr_name), 4,
	    sec_size(&b, b.strtab));
	refuse(p, &b, r0, "SETX name index = strtab size");
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* The work budgets. */

static void test_budgets(void)
{
	static const char *types[255];
	static uint8_t map[1];
	static uint32_t offs[1] = {4};
	struct tprobe *tp = calloc(100, sizeof(*tp));
	struct tprov pv = ref_prov;
	struct bopts o = ref_opts;
	struct built b;
	struct dof_err e;
	unsigned int i;
	uint8_t *p;
	int r;

	for (i = 0; i < 255; i++)
		types[i] = rep('t', DOF_ARGTYPE_MAXLEN);
	for (i = 0; i < 100; i++) {
		tp[i].func = "main";
		tp[i].name = "p";
		tp[i].nargc = 255;
		tp[i].nargv = types;
		tp[i].argmap = map;
		tp[i].noffs = 1;
		tp[i].offs = offs;
	}
	pv.probes = tp;
	pv.nprobes = 50;
	b = build(&pv, 1, &o);
	diag("50 probes sharing 255 types of 127 bytes: %zu bytes", b.size);
	accept_blob(dup_blob(&b), b.size,
		    "50 probes sharing one long argument list");
	free(b.buf);
	pv.nprobes = 100;
	b = build(&pv, 1, &o);
	p = dup_blob(&b);
	r = dof_check(p, b.size, CAP, &e);
	ok(r == -E2BIG, "100 probes sharing it exceed the scan budget: %s",
	   e.msg);
	free(p);
	free(b.buf);
	free(tp);

	o.extra_provs = 1;
	b = build(&ref_prov, 1, &o);
	accept_blob(dup_blob(&b), b.size, "two providers sharing 2 probes");
	free(b.buf);
	o.extra_provs = 100;
	b = build(&ref_prov, 1, &o);
	p = dup_blob(&b);
	r = dof_check(p, b.size, CAP, &e);
	ok(r == -E2BIG,
	   "101 providers sharing them exceed the probe budget: "
	   "%s",
	   e.msg);
	free(p);
	free(b.buf);

	o.extra_provs = 0;
	o.extra_urels = 1;
	b = build(&ref_prov, 1, &o);
	accept_blob(dup_blob(&b), b.size, "two URELHDRs sharing a RELTAB");
	p = dup_blob(&b);
	ok(dof_relocate(p, b.size, 1, &e) == 4, "...whose SETX apply twice");
	free(p);
	free(b.buf);
	o.extra_urels = 100;
	b = build(&ref_prov, 1, &o);
	p = dup_blob(&b);
	r = dof_check(p, b.size, CAP, &e);
	ok(r == -E2BIG,
	   "101 URELHDRs sharing it exceed the relocation "
	   "budget: %s",
	   e.msg);
	ok(dof_relocate(p, b.size, 1, &e) == -E2BIG &&
		   memcmp(p, b.buf, b.size) == 0,
	   "dof_relocate() refuses it too, untouched");
	free(p);
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Error messages and iterator misuse. */

static void test_misc(void)
{
	struct built b = build_ref();
	struct dof_prov_info pv;
	struct dof_err e;
	uint64_t pc = 0;
	uint8_t *p;
	int r;

	p = dup_blob(&b);
	memcpy(p + str_off(&b, get(p, probe_rec(&b, 0) + PRF(dofpr_name), 4)),
	       "query\x01start", 11);
	r = dof_check(p, b.size, CAP, &e);
	ok(r == -EINVAL && strstr(e.msg, "\"query?start\"") != NULL,
	   "blob text in messages is sanitised: %s", e.msg);
	free(p);
	ok(dof_check(b.buf, b.size, CAP, NULL) == 0 &&
		   dof_check(b.buf, 3, CAP, NULL) == -EINVAL,
	   "err may be NULL");
	memset(&pv, 0, sizeof(pv));
	r = dof_probe_next(&pv, &pc, NULL, &e);
	ok(r == -EINVAL, "dof_probe_next() refuses a zeroed provider info");
	{
		char big[300];
		struct built n;

		memset(big, 'x', 299);
		big[299] = '\0';
		memcpy(big, "f\x7f", 2);
		n = build_named("myapp", big, "p", "int");
		r = dof_check(n.buf, n.size, CAP, &e);
		ok(r == -EINVAL && strlen(e.msg) < DOF_ERR_MSGLEN &&
			   strstr(e.msg, "...") != NULL,
		   "long text is cut: %s", e.msg);
		free(n.buf);
	}
	free(b.buf);
}

/* ------------------------------------------------------------------ */
/* Bit flips and random mutations. */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

struct fuzz_stats {
	unsigned long accepted, refused, inconsistent;
};

/* One candidate: check it, walk it, relocate it; accepted must be clean. */
static void try_blob(uint8_t *p, size_t len, struct fuzz_stats *fs)
{
	struct walk w;
	int r = dof_check(p, len, CAP, NULL), n;

	w = walk_all(p, len);
	if (r != 0) {
		fs->refused++;
		dof_relocate(p, len, 0x1000, NULL);
		walk_all(p, len);
		return;
	}
	fs->accepted++;
	n = dof_relocate(p, len, 0x1000, NULL);
	if (w.nerr != 0 || n < 0)
		fs->inconsistent++;
	w = walk_all(p, len);
}

static void test_fuzz(void)
{
	static const uint64_t interesting[] = {
		0,
		1,
		2,
		7,
		8,
		0x7f,
		0x80,
		0xff,
		0x100,
		0xffff,
		0x10000,
		0x7fffffff,
		0x80000000u,
		0xfffffffeu,
		0xffffffffu,
		0x100000000ull,
		0x7fffffffffffffffull,
		0xfffffffffffffff8ull,
		0xffffffffffffffffull,
		48,
		64,
		32,
		24,
		44,
		40,
	};
	struct built ref = build_ref(), cl, v1;
	struct bopts o = ref_opts;
	struct fuzz_stats fs = {0};
	const struct built *bases[3];
	unsigned long i;
	size_t pos;
	unsigned int bit, m;

	o.strtab_first = true;
	o.comments = true;
	cl = build(&ref_prov, 1, &o);
	o = ref_opts;
	o.version = DOF_VERSION_1;
	v1 = build(&v1_prov, 1, &o);
	bases[0] = &ref;
	bases[1] = &cl;
	bases[2] = &v1;

	/* Every single bit flipped, in all three layouts. */
	for (m = 0; m < 3; m++) {
		const struct built *b = bases[m];

		for (pos = 0; pos < b->size; pos++) {
			for (bit = 0; bit < 8; bit++) {
				uint8_t *p = dup_blob(b);

				p[pos] ^= (uint8_t)(1u << bit);
				try_blob(p, b->size, &fs);
				free(p);
			}
		}
	}
	ok(fs.inconsistent == 0,
	   "every single-bit flip: %lu accepted, %lu "
	   "refused, %lu accepted but not readable",
	   fs.accepted, fs.refused, fs.inconsistent);

	memset(&fs, 0, sizeof(fs));
	for (i = 0; i < FUZZ_ROUNDS; i++) {
		const struct built *b = bases[rnd() % 3];
		size_t len = b->size;
		unsigned int nmut = 1 + (unsigned int)(rnd() % 4), k;
		uint8_t *p;

		if (rnd() % 16 == 0)
			len = (size_t)(rnd() % b->size);
		p = malloc(len ? len : 1);
		memcpy(p, b->buf, len);
		for (k = 0; k < nmut && len != 0; k++) {
			uint64_t v =
				interesting[rnd() % (sizeof(interesting) /
						     sizeof(interesting[0]))];

			pos = (size_t)(rnd() % len);
			switch (rnd() % 5) {
			case 0:
				p[pos] = (uint8_t)rnd();
				break;
			case 1:
				p[pos] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 2: /* an interesting u32 on a 4-byte boundary */
				pos &= ~(size_t)3;
				if (pos + 4 <= len)
					put(p, pos, 4, v);
				break;
			case 3: /* an interesting u64 on an 8-byte boundary */
				pos &= ~(size_t)7;
				if (pos + 8 <= len)
					put(p, pos, 8, v);
				break;
			default: /* a small signed nudge to a u32 */
				pos &= ~(size_t)3;
				if (pos + 4 <= len)
					put(p, pos, 4,
					    get(p, pos, 4) + (rnd() % 17) - 8);
				break;
			}
		}
		try_blob(p, len, &fs);
		free(p);
	}
	ok(fs.inconsistent == 0 && fs.accepted + fs.refused == FUZZ_ROUNDS,
	   "%d random mutations (seed 0x9e3779b97f4a7c15): %lu accepted, "
	   "%lu refused, %lu accepted but not readable",
	   FUZZ_ROUNDS, fs.accepted, fs.refused, fs.inconsistent);
	ok(fs.accepted > 1000 && fs.refused > 1000,
	   "the mutations reach both outcomes");
	free(ref.buf);
	free(cl.buf);
	free(v1.buf);
}

int main(void)
{
	test_valid();
	test_relocate();
	test_header();
	test_sections();
	test_provider();
	test_probe();
	test_reloc();
	test_budgets();
	test_misc();
	test_fuzz();
	return tap_done();
}
