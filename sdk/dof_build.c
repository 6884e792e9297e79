// SPDX-License-Identifier: MIT
/*
 * dof_build.c - the DOF blob `dtrace -G` puts in .SUNW_dof.
 *
 * Layout (usdt/dof.h has the full picture): header, section table, then
 * for each provider with sites PROBES, PRARGS, PROFFS, [PRENOFFS] and
 * PROVIDER, and one STRTAB shared by all, last.  Everything is loadable,
 * so dofh_loadsz == dofh_filesz.
 *
 * dofpr_addr is left 0 in the blob: the caller emits an R_X86_64_64 ELF
 * relocation against the function's alias at each returned offset, so
 * the linker (and for PIEs and shared libraries the dynamic linker) puts
 * the run-time address there.  No DOF-level (URELHDR) relocations.
 *
 * Type strings: nargv and xargv are runs of consecutive NUL-terminated
 * strings, one per argument; each distinct run, like each distinct name,
 * is stored once.  A native type is recorded in its C spelling with
 * the provider file's typedefs expanded (a consumer cannot know what Oid
 * meant); D's `string` stays "string".
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usdt/dof.h"
#include "dof_build.h"
#include "grow.h"

/*
 * The string table, with a hash of what it holds so that names and whole
 * runs of type strings are stored once (a big program has thousands of
 * probes sharing a handful of argument lists).
 */
struct sbuild {
	struct sbuf t;		/* the table's bytes */
	uint32_t *slot_off;	/* hash slots: offset + 1, 0 = empty */
	uint32_t *slot_len;
	size_t nslot, used;
};

static uint64_t sb_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int sb_grow(struct sbuild *s)
{
	size_t nslot = s->nslot ? s->nslot * 2 : 256;
	uint32_t *off = calloc(nslot, sizeof(*off));
	uint32_t *len = calloc(nslot, sizeof(*len));

	if (!off || !len) {
		free(off);
		free(len);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nslot; i++) {
		size_t j;

		if (!s->slot_off[i])
			continue;
		j = sb_hash(s->t.b + s->slot_off[i] - 1, s->slot_len[i]) &
		    (nslot - 1);
		while (off[j])
			j = (j + 1) & (nslot - 1);
		off[j] = s->slot_off[i];
		len[j] = s->slot_len[i];
	}
	free(s->slot_off);
	free(s->slot_len);
	s->slot_off = off;
	s->slot_len = len;
	s->nslot = nslot;
	return 0;
}

/*
 * Store n bytes (one or more NUL-terminated strings) once: return the
 * offset of an identical run already in the table, or append it.
 */
static long sb_intern_bytes(struct sbuild *s, const char *p, size_t n)
{
	size_t j;
	long off;

	if (n > UINT32_MAX / 2 || s->t.len > UINT32_MAX / 2)
		return -ENAMETOOLONG;
	if ((s->used + 1) * 2 > s->nslot && sb_grow(s) < 0)
		return -ENOMEM;
	j = sb_hash(p, n) & (s->nslot - 1);
	for (; s->slot_off[j]; j = (j + 1) & (s->nslot - 1))
		if (s->slot_len[j] == n &&
		    memcmp(s->t.b + s->slot_off[j] - 1, p, n) == 0)
			return (long)s->slot_off[j] - 1;
	off = (long)s->t.len;
	if (sbuf_add(&s->t, p, n) < 0)
		return -ENOMEM;
	s->slot_off[j] = (uint32_t)off + 1;
	s->slot_len[j] = (uint32_t)n;
	s->used++;
	return off;
}

static long sb_intern(struct sbuild *s, const char *str)
{
	if (!*str)
		return 0;
	return sb_intern_bytes(s, str, strlen(str) + 1);
}

int dof_type_name(const struct prov_type *t, char *buf, size_t len)
{
	const char *c = t->cname, *b;
	size_t o = 0;

	if (t->is_string && strcmp(t->dname, "string") == 0)
		c = "string";
	/* _USDT_BOOL is the header's portable bool; the DOF says _Bool */
	while ((b = strstr(c, "_USDT_BOOL"))) {
		int n = snprintf(buf + o, len - o, "%.*s_Bool", (int)(b - c), c);

		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += (size_t)n;
		c = b + strlen("_USDT_BOOL");
	}
	if ((size_t)snprintf(buf + o, len - o, "%s", c) >= len - o)
		return -ENAMETOOLONG;
	return 0;
}

/* The run of type strings of an argument list, stored once. */
static long append_types(struct sbuild *s, const struct prov_arg *argv,
			 unsigned argc)
{
	char run[PROV_ARGS_MAX * DTRACE_ARGTYPELEN];
	size_t n = 0;

	if (!argc)
		return 0;
	for (unsigned i = 0; i < argc; i++) {
		if (dof_type_name(&argv[i].type, run + n, sizeof(run) - n) < 0)
			return -ENAMETOOLONG;
		n += strlen(run + n) + 1;
	}
	return sb_intern_bytes(s, run, n);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

struct secplan {
	uint32_t type, align, entsize;
	uint64_t size, offset;
};

int dof_build(const struct prov_file *pf, const struct dof_fprobe *fp,
	      unsigned n, void **blob, size_t *size,
	      struct dof_addr_reloc **relocs, unsigned *nrelocs,
	      char *msg, size_t msglen)
{
	struct sbuild str = { 0 };
	struct secplan *sec = NULL;
	struct dof_addr_reloc *rel = NULL;
	unsigned nsec = 0, npv = 0, nrel = 0;
	bool any_en = false;
	uint8_t *b = NULL;
	uint64_t off, total;
	dof_hdr_t *h;
	int err = -ENOMEM;

	*blob = NULL;
	*relocs = NULL;
	*size = 0;
	*nrelocs = 0;
	for (unsigned i = 0; i < n; i++)
		if (fp[i].nenoffs)
			any_en = true;
	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		for (unsigned i = 0; i < n; i++) {
			if (fp[i].pv == &pf->providers[v]) {
				npv++;
				break;
			}
		}
	}
	/* per provider: PROBES, PRARGS, PROFFS, PRENOFFS?, PROVIDER */
	sec = calloc(npv * 5 + 1, sizeof(*sec));
	rel = calloc(n ? n : 1, sizeof(*rel));
	/* offset 0: the empty string */
	if (!sec || !rel || sbuf_add(&str.t, "", 1) < 0)
		goto out;

	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		const struct prov_provider *pv = &pf->providers[v];
		unsigned cnt = 0, nargs = 0, noffs = 0, nen = 0;

		for (unsigned i = 0; i < n; i++) {
			if (fp[i].pv != pv)
				continue;
			cnt++;
			nargs += fp[i].pr->xargc;
			noffs += fp[i].noffs;
			nen += fp[i].nenoffs;
		}
		if (!cnt)
			continue;
		sec[nsec++] = (struct secplan){ DOF_SECT_PROBES, 8,
					       sizeof(dof_probe_t),
					       cnt * sizeof(dof_probe_t), 0 };
		sec[nsec++] = (struct secplan){ DOF_SECT_PRARGS, 1, 1, nargs, 0 };
		sec[nsec++] = (struct secplan){ DOF_SECT_PROFFS, 4, 4,
					       noffs * 4ULL, 0 };
		if (nen)
			sec[nsec++] = (struct secplan){ DOF_SECT_PRENOFFS, 4, 4,
						       nen * 4ULL, 0 };
		sec[nsec++] = (struct secplan){ DOF_SECT_PROVIDER, 4, 0,
					       sizeof(dof_provider_t), 0 };
	}
	/* strings: collected while filling, sized at the end */
	off = sizeof(dof_hdr_t) + (uint64_t)(nsec + 1) * sizeof(dof_sec_t);
	for (unsigned i = 0; i < nsec; i++) {
		off = align_up(off, sec[i].align);
		sec[i].offset = off;
		off += sec[i].size;
	}
	total = off;
	b = calloc(1, total ? total : 1);
	if (!b)
		goto out;

	/* fill each provider's sections */
	{
		unsigned s = 0;

		for (unsigned v = 0; v < pf->provider_cnt; v++) {
			const struct prov_provider *pv = &pf->providers[v];
			struct secplan *probes, *args, *offs, *enoffs = NULL,
				       *prov;
			unsigned pi = 0, ai = 0, oi = 0, ei = 0, first = s;
			dof_provider_t dp;
			long name;
			bool has = false;

			for (unsigned i = 0; i < n && !has; i++)
				has = fp[i].pv == pv;
			if (!has)
				continue;
			probes = &sec[s++];
			args = &sec[s++];
			offs = &sec[s++];
			if (sec[s].type == DOF_SECT_PRENOFFS)
				enoffs = &sec[s++];
			prov = &sec[s++];

			for (unsigned i = 0; i < n; i++) {
				const struct dof_fprobe *f = &fp[i];
				dof_probe_t p;
				long nv, xv, fn, pn;

				if (f->pv != pv)
					continue;
				memset(&p, 0, sizeof(p));
				fn = sb_intern(&str, f->func);
				pn = sb_intern(&str, f->pr->pubname);
				nv = append_types(&str, f->pr->nargv,
						  f->pr->nargc);
				xv = append_types(&str, f->pr->xargv,
						  f->pr->xargc);
				if (fn < 0 || pn < 0 || nv < 0 || xv < 0) {
					err = (fn == -ENOMEM || pn == -ENOMEM ||
					       nv == -ENOMEM || xv == -ENOMEM) ?
					      -ENOMEM : -ENAMETOOLONG;
					if (err == -ENAMETOOLONG)
						snprintf(msg, msglen,
							 "an argument type of probe '%s' is too long",
							 f->pr->name);
					goto out_quiet;
				}
				p.dofpr_func = (dof_stridx_t)fn;
				p.dofpr_name = (dof_stridx_t)pn;
				p.dofpr_nargv = (dof_stridx_t)nv;
				p.dofpr_xargv = (dof_stridx_t)xv;
				p.dofpr_nargc = (uint8_t)f->pr->nargc;
				p.dofpr_xargc = (uint8_t)f->pr->xargc;
				p.dofpr_argidx = ai;
				/* no memcpy from NULL, even of 0 bytes (UB) */
				if (f->pr->xargc)
					memcpy(b + args->offset + ai,
					       f->pr->argmap, f->pr->xargc);
				ai += f->pr->xargc;
				p.dofpr_offidx = oi;
				p.dofpr_noffs = (uint16_t)f->noffs;
				if (f->noffs)
					memcpy(b + offs->offset + oi * 4ULL,
					       f->offs, f->noffs * 4ULL);
				oi += f->noffs;
				p.dofpr_enoffidx = ei;
				p.dofpr_nenoffs = (uint16_t)f->nenoffs;
				if (f->nenoffs)
					memcpy(b + enoffs->offset + ei * 4ULL,
					       f->enoffs, f->nenoffs * 4ULL);
				ei += f->nenoffs;
				memcpy(b + probes->offset +
				       pi * sizeof(dof_probe_t), &p, sizeof(p));
				rel[nrel].offset = probes->offset +
					pi * sizeof(dof_probe_t) +
					offsetof(dof_probe_t, dofpr_addr);
				rel[nrel].tag = f->tag;
				rel[nrel++].sym = f->sym;
				pi++;
			}
			name = sb_intern(&str, pv->name);
			if (name < 0)
				goto out;
			memset(&dp, 0, sizeof(dp));
			dp.dofpv_strtab = nsec;	/* the STRTAB is last */
			dp.dofpv_probes = first;
			dp.dofpv_prargs = first + 1;
			dp.dofpv_proffs = first + 2;
			dp.dofpv_prenoffs = enoffs ? first + 3 : DOF_SECT_NONE;
			dp.dofpv_name = (dof_stridx_t)name;
#define ATTR(w) DOF_ATTR(pv->attr[w].name, pv->attr[w].data, pv->attr[w].dclass)
			dp.dofpv_provattr = ATTR(PROV_ATTR_PROVIDER);
			dp.dofpv_modattr = ATTR(PROV_ATTR_MODULE);
			dp.dofpv_funcattr = ATTR(PROV_ATTR_FUNCTION);
			dp.dofpv_nameattr = ATTR(PROV_ATTR_NAME);
			dp.dofpv_argsattr = ATTR(PROV_ATTR_ARGS);
#undef ATTR
			memcpy(b + prov->offset, &dp, sizeof(dp));
		}
	}

	/* the string table, last; then the header and section table */
	{
		uint64_t stroff = total;
		uint8_t *nb = realloc(b, total + str.t.len);
		dof_sec_t *st;

		if (!nb)
			goto out;
		b = nb;
		memcpy(b + stroff, str.t.b, str.t.len);
		total += str.t.len;
		h = (dof_hdr_t *)b;
		memset(h, 0, sizeof(*h));
		h->dofh_ident[DOF_ID_MAG0] = DOF_MAG_MAG0;
		h->dofh_ident[DOF_ID_MAG1] = DOF_MAG_MAG1;
		h->dofh_ident[DOF_ID_MAG2] = DOF_MAG_MAG2;
		h->dofh_ident[DOF_ID_MAG3] = DOF_MAG_MAG3;
		h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
		h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_LSB;
		h->dofh_ident[DOF_ID_VERSION] = any_en ? DOF_VERSION_2 :
							 DOF_VERSION_1;
		h->dofh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
		h->dofh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
		h->dofh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
		h->dofh_flags = 0;
		h->dofh_hdrsize = sizeof(dof_hdr_t);
		h->dofh_secsize = sizeof(dof_sec_t);
		h->dofh_secnum = nsec + 1;
		h->dofh_secoff = sizeof(dof_hdr_t);
		h->dofh_loadsz = total;
		h->dofh_filesz = total;
		st = (dof_sec_t *)(b + sizeof(dof_hdr_t));
		for (unsigned i = 0; i < nsec; i++) {
			st[i].dofs_type = sec[i].type;
			st[i].dofs_align = sec[i].align;
			st[i].dofs_flags = DOF_SECF_LOAD;
			st[i].dofs_entsize = sec[i].entsize;
			st[i].dofs_offset = sec[i].offset;
			st[i].dofs_size = sec[i].size;
		}
		st[nsec].dofs_type = DOF_SECT_STRTAB;
		st[nsec].dofs_align = 1;
		st[nsec].dofs_flags = DOF_SECF_LOAD;
		st[nsec].dofs_entsize = 0;
		st[nsec].dofs_offset = stroff;
		st[nsec].dofs_size = str.t.len;
	}
	*blob = b;
	*size = total;
	*relocs = rel;
	*nrelocs = nrel;
	b = NULL;
	rel = NULL;
	err = 0;
	goto out_quiet;
out:
	snprintf(msg, msglen, "out of memory");
out_quiet:
	free(b);
	free(rel);
	free(sec);
	free(str.t.b);
	free(str.slot_off);
	free(str.slot_len);
	return err;
}
