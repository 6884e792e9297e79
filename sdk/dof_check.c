// SPDX-License-Identifier: MIT
/*
 * dof_check.c - the DOF validator and reader (API in dof_check.h).
 *
 * Input: a DOF blob (layouts in dof.h) copied out of an untrusted process.
 * Nothing in it is believed before it is checked, and no check can wrap:
 * offsets and sizes are 64-bit, indices and counts at most 32-bit, and a
 * range is tested as "off <= lim && size <= lim - off".  Multi-byte fields
 * are read byte by byte as little-endian, so the buffer need not be
 * aligned and no pointer into it is ever cast to a record type.
 *
 * What is valid: the classic kernel helper's rules (doc/DESIGN.md §5), closed
 * where the classic code left holes (a section entry size smaller than its
 * record, a string table of size 0, an argument map entry equal to nargc):
 *
 * header	at least 64 bytes: the smallest valid blob is a header and no
 *		sections (drti.o's test blob).  Magic 7f 'D' 'O' 'F', model
 *		LP64, encoding LSB, version 1 or 2, DIF version 2, at most 8
 *		integer and 8 tuple registers; ident bytes 10..15, dofh_flags
 *		and dofh_pad zero; dofh_hdrsize >= 64 and dofh_secsize >= 32,
 *		both multiples of 8, so every record read stays inside what
 *		was checked; hdrsize <= loadsz <= filesz <= max_size; the
 *		section table 8-aligned, after the header, inside loadsz.
 *		Only loadsz bytes are ever read: the helper copies no more.
 * sections	alignment a power of two (not 0), offset a multiple of it;
 *		every loadable type carries DOF_SECF_LOAD.  A LOAD section lies
 *		inside loadsz and overlaps neither header nor section table;
 *		a section without LOAD lies inside filesz and is never read.
 *		By type: STRTAB non-empty with a NUL last byte, so a string
 *		that starts inside it ends inside it; PROBES align >= 8,
 *		entsize >= 48 and a multiple of 8; PRARGS entsize 1;
 *		PROFFS/PRENOFFS align >= 4, entsize 4; RELTAB align >= 8,
 *		entsize >= 24 and a multiple of 8; tables a whole number of
 *		entries; PROVIDER align >= 4, >= 40 bytes (version 1) or 44;
 *		URELHDR align >= 4, >= 12 bytes; no PRENOFFS in version 1.
 * provider	section indices in range, of the right type; dofpv_prenoffs
 *		read in version 2 only, 0 (DOF_SECT_NONE) meaning none; name
 *		an identifier (dashes allowed) not ending in a digit (the pid
 *		is appended), <= DOF_PROVNAME_MAXLEN; attributes in range.
 * probe	pads zero; function non-empty, <= 127 bytes, no control
 *		characters; name an identifier-with-dashes <= 63 bytes;
 *		noffs + nenoffs >= 1; offidx + noffs inside PROFFS, enoffidx +
 *		nenoffs inside PRENOFFS (both 0 without one); argidx + xargc
 *		inside PRARGS, every map entry < nargc; nargc (xargc)
 *		non-empty type strings of <= 127 bytes back to back from
 *		nargv (xargv), all inside the string table.
 * relocations	URELHDR: strtab a STRTAB, relsec a RELTAB, tgtsec a PROBES
 *		section (writers only relocate dofpr_addr; another target
 *		would patch metadata checked here).  Entries NONE or SETX;
 *		SETX: name index inside the string table, the 8-byte target
 *		inside the target section and 8-aligned in the blob.
 *
 * Work is bounded by the blob size: one pass over the section table, one
 * over each provider's probes and each relocation table, string scans of
 * at most 128 bytes.  Budgets keep hostile sharing linear: all providers
 * together visit at most loadsz / 48 probe records and all relocation
 * headers at most loadsz / 24 entries (a writer gives every record its own
 * bytes, so only blobs whose providers share tables can run out), and the
 * strings scanned for all probes total at most DOF_SCAN_FACTOR * loadsz
 * bytes (argument lists shared by many probes stay far below).  Running
 * out is -E2BIG.  The 64-bit divisions assume a 64-bit target.
 *
 * No library calls, no global state, no recursion, no floating point:
 * this file is compiled unchanged into a kernel module.
 */
#include "dof_check.h"

#define DOF_SCAN_FACTOR 64
#define DOF_QUOTE_MAX 24 /* blob text quoted in a message */
#define DOF_U64_MAX (~(uint64_t)0)

#define HDR_OFF(f) offsetof(dof_hdr_t, f)
#define SEC_OFF(f) offsetof(dof_sec_t, f)
#define PV_OFF(f) offsetof(dof_provider_t, f)
#define PR_OFF(f) offsetof(dof_probe_t, f)
#define RH_OFF(f) offsetof(dof_relohdr_t, f)
#define RD_OFF(f) offsetof(dof_relodesc_t, f)

/* Little-endian access; callers have checked that p..p+n is inside. */
static uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
	return dof__ld32(p);
}

static uint64_t ld64(const uint8_t *p)
{
	return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static void st64(uint8_t *p, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* SETX: add the base modulo 2^64, as the classic helper's += did. */
static uint64_t setx_value(uint64_t value, uint64_t base)
{
	return value + base;
}

/*
 * Error messages without snprintf: fail() copies fmt into err->msg,
 * replacing %u and %x by a then b (decimal, hex digits), %s by the
 * trusted constant what and %q by up to DOF_QUOTE_MAX bytes of blob text
 * (stopped by a NUL or text_len, non-printable bytes shown as '?').
 * The message is cut to fit DOF_ERR_MSGLEN.
 */
static void msg_putc(struct dof_err *err, size_t *n, char c)
{
	if (*n < DOF_ERR_MSGLEN - 1)
		err->msg[(*n)++] = c;
}

static void msg_puts(struct dof_err *err, size_t *n, const char *s)
{
	while (s != NULL && *s != '\0' && *n < DOF_ERR_MSGLEN - 1)
		msg_putc(err, n, *s++);
}

static void msg_putnum(struct dof_err *err, size_t *n, uint64_t v,
		       unsigned int base)
{
	char digits[20]; /* UINT64_MAX has 20 decimal digits */
	unsigned int i = 0;

	do {
		unsigned int d = (unsigned int)(v % base);

		digits[i++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v != 0);
	while (i > 0)
		msg_putc(err, n, digits[--i]);
}

static void msg_puttext(struct dof_err *err, size_t *n, const uint8_t *t,
			uint64_t len)
{
	uint64_t i;

	for (i = 0; t != NULL && i < len && t[i] != '\0'; i++) {
		if (i == DOF_QUOTE_MAX) {
			msg_puts(err, n, "...");
			return;
		}
		msg_putc(err, n,
			 t[i] >= 0x20 && t[i] < 0x7f ? (char)t[i] : '?');
	}
}

static int fail(struct dof_err *err, int code, uint64_t off, const char *fmt,
		const char *what, const uint8_t *text, uint64_t text_len,
		uint64_t a, uint64_t b)
{
	unsigned int nnum = 0;
	size_t n = 0;

	if (err == NULL)
		return code;
	err->code = code;
	err->off = off;
	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%' || fmt[1] == '\0') {
			msg_putc(err, &n, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 'u':
		case 'x':
			msg_putnum(err, &n, nnum++ == 0 ? a : b,
				   *fmt == 'u' ? 10 : 16);
			break;
		case 's':
			msg_puts(err, &n, what);
			break;
		case 'q':
			msg_puttext(err, &n, text, text_len);
			break;
		default:
			msg_putc(err, &n, *fmt);
			break;
		}
	}
	err->msg[n] = '\0';
	return code;
}

#define FAIL(err, off, fmt) fail(err, -EINVAL, off, fmt, NULL, NULL, 0, 0, 0)
#define FAIL1(err, off, fmt, a)                                                \
	fail(err, -EINVAL, off, fmt, NULL, NULL, 0, a, 0)
#define FAIL2(err, off, fmt, a, b)                                             \
	fail(err, -EINVAL, off, fmt, NULL, NULL, 0, a, b)
#define FAILS(err, off, fmt, what, a, b)                                       \
	fail(err, -EINVAL, off, fmt, what, NULL, 0, a, b)

static void err_clear(struct dof_err *err)
{
	if (err != NULL) {
		err->code = 0;
		err->off = 0;
		err->msg[0] = '\0';
	}
}

/* The blob being read, once its header has passed hdr_check(). */
struct blob {
	const uint8_t *b;
	uint64_t len;	   /* readable bytes: dofh_loadsz */
	uint64_t tbl_size; /* dofh_secnum * dofh_secsize */
	dof_hdr_t h;
};

static void hdr_read(const uint8_t *p, dof_hdr_t *h)
{
	unsigned int i;

	for (i = 0; i < DOF_ID_SIZE; i++)
		h->dofh_ident[i] = p[i];
	h->dofh_flags = ld32(p + HDR_OFF(dofh_flags));
	h->dofh_hdrsize = ld32(p + HDR_OFF(dofh_hdrsize));
	h->dofh_secsize = ld32(p + HDR_OFF(dofh_secsize));
	h->dofh_secnum = ld32(p + HDR_OFF(dofh_secnum));
	h->dofh_secoff = ld64(p + HDR_OFF(dofh_secoff));
	h->dofh_loadsz = ld64(p + HDR_OFF(dofh_loadsz));
	h->dofh_filesz = ld64(p + HDR_OFF(dofh_filesz));
	h->dofh_pad = ld64(p + HDR_OFF(dofh_pad));
}

/*
 * The header rules.  With whole set, the caller holds len bytes of blob
 * and they must cover dofh_loadsz; without, only the header is there.
 */
static int hdr_check(struct blob *bl, const void *buf, uint64_t len,
		     uint64_t max_size, bool whole, struct dof_err *err)
{
	const uint8_t *p = buf;
	dof_hdr_t *h = &bl->h;
	const uint8_t *id = h->dofh_ident;
	unsigned int i;

	if (p == NULL)
		len = 0;
	/* Smaller than a header can be nothing: 64 is the minimum blob. */
	if (len < sizeof(dof_hdr_t))
		return FAIL2(err, len,
			     "DOF truncated: %u bytes, the header needs %u",
			     len, sizeof(dof_hdr_t));
	hdr_read(p, h);
	for (i = 0; i < DOF_MAG_STRLEN; i++)
		if (id[i] != (uint8_t)DOF_MAG_STRING[i])
			return FAIL(err, i, "bad DOF magic");
	if (id[DOF_ID_MODEL] != DOF_MODEL_LP64)
		return FAIL1(err, DOF_ID_MODEL, "data model %u is not LP64",
			     id[DOF_ID_MODEL]);
	if (id[DOF_ID_ENCODING] != DOF_ENCODE_LSB)
		return FAIL1(err, DOF_ID_ENCODING,
			     "encoding %u is not little-endian",
			     id[DOF_ID_ENCODING]);
	if (id[DOF_ID_VERSION] != DOF_VERSION_1 &&
	    id[DOF_ID_VERSION] != DOF_VERSION_2)
		return FAIL1(err, DOF_ID_VERSION, "DOF version %u unsupported",
			     id[DOF_ID_VERSION]);
	if (id[DOF_ID_DIFVERS] != DIF_VERSION_2)
		return FAIL1(err, DOF_ID_DIFVERS, "DIF version %u is not 2",
			     id[DOF_ID_DIFVERS]);
	if (id[DOF_ID_DIFIREG] > DIF_DIR_NREGS)
		return FAIL2(err, DOF_ID_DIFIREG,
			     "%u integer registers, at most %u",
			     id[DOF_ID_DIFIREG], DIF_DIR_NREGS);
	if (id[DOF_ID_DIFTREG] > DIF_DTR_NREGS)
		return FAIL2(err, DOF_ID_DIFTREG,
			     "%u tuple registers, at most %u",
			     id[DOF_ID_DIFTREG], DIF_DTR_NREGS);
	for (i = DOF_ID_PAD; i < DOF_ID_SIZE; i++)
		if (id[i] != 0)
			return FAIL1(err, i, "ident byte %u is not zero", i);
	if (h->dofh_flags != DOF_FL_VALID)
		return FAIL1(err, HDR_OFF(dofh_flags),
			     "header flags 0x%x are not zero", h->dofh_flags);
	if (h->dofh_hdrsize < sizeof(dof_hdr_t) || h->dofh_hdrsize % 8 != 0)
		return FAIL1(err, HDR_OFF(dofh_hdrsize), "bad header size %u",
			     h->dofh_hdrsize);
	if (h->dofh_secsize < sizeof(dof_sec_t) || h->dofh_secsize % 8 != 0)
		return FAIL1(err, HDR_OFF(dofh_secsize),
			     "bad section header size %u", h->dofh_secsize);
	if (h->dofh_pad != 0)
		return FAIL(err, HDR_OFF(dofh_pad), "header pad is not zero");
	if (h->dofh_filesz > max_size)
		return fail(err, -E2BIG, HDR_OFF(dofh_filesz),
			    "DOF size %u exceeds the limit %u", NULL, NULL, 0,
			    h->dofh_filesz, max_size);
	if (h->dofh_loadsz < h->dofh_hdrsize || h->dofh_loadsz > h->dofh_filesz)
		return FAIL2(err, HDR_OFF(dofh_loadsz),
			     "load size %u outside [header size, file size %u]",
			     h->dofh_loadsz, h->dofh_filesz);
	if (h->dofh_secoff < h->dofh_hdrsize || h->dofh_secoff % 8 != 0 ||
	    h->dofh_secoff > h->dofh_loadsz)
		return FAIL1(err, HDR_OFF(dofh_secoff),
			     "bad section table offset 0x%x", h->dofh_secoff);
	/* Both factors are 32-bit: the product cannot wrap. */
	bl->tbl_size = (uint64_t)h->dofh_secnum * h->dofh_secsize;
	if (bl->tbl_size > h->dofh_loadsz - h->dofh_secoff)
		return FAIL2(err, HDR_OFF(dofh_secnum),
			     "%u section headers end beyond the load size %u",
			     h->dofh_secnum, h->dofh_loadsz);
	if (whole && h->dofh_loadsz > len)
		return FAIL2(err, HDR_OFF(dofh_loadsz),
			     "DOF truncated: load size %u, %u bytes present",
			     h->dofh_loadsz, len);
	bl->b = p;
	bl->len = h->dofh_loadsz;
	return 0;
}

/* Section header i, for i < dofh_secnum: inside the checked table. */
static uint64_t sec_hdr_off(const struct blob *bl, uint32_t i)
{
	return bl->h.dofh_secoff + (uint64_t)i * bl->h.dofh_secsize;
}

static void sec_read(const struct blob *bl, uint32_t i, dof_sec_t *s)
{
	const uint8_t *p = bl->b + sec_hdr_off(bl, i);

	s->dofs_type = ld32(p + SEC_OFF(dofs_type));
	s->dofs_align = ld32(p + SEC_OFF(dofs_align));
	s->dofs_flags = ld32(p + SEC_OFF(dofs_flags));
	s->dofs_entsize = ld32(p + SEC_OFF(dofs_entsize));
	s->dofs_offset = ld64(p + SEC_OFF(dofs_offset));
	s->dofs_size = ld64(p + SEC_OFF(dofs_size));
}

/* Two ranges, each already known to end inside the blob, share a byte. */
static bool overlaps(uint64_t o1, uint64_t s1, uint64_t o2, uint64_t s2)
{
	return s1 != 0 && s2 != 0 && o1 < o2 + s2 && o2 < o1 + s1;
}

/* The rules that depend on the type of LOAD section i (header at so). */
static int sec_check_type(const struct blob *bl, uint32_t i, uint64_t so,
			  const dof_sec_t *s, struct dof_err *err)
{
	bool v1 = bl->h.dofh_ident[DOF_ID_VERSION] == DOF_VERSION_1;
	uint32_t min_align = 1, entsize = 0;
	bool exact = false;
	uint64_t min_size = 0;

	if (v1 && s->dofs_type == DOF_SECT_PRENOFFS)
		return FAIL1(err, so + SEC_OFF(dofs_type),
			     "section %u: PRENOFFS in version 1 DOF", i);
	switch (s->dofs_type) {
	case DOF_SECT_STRTAB:
		if (s->dofs_size == 0)
			return FAIL1(err, so + SEC_OFF(dofs_size),
				     "section %u: empty string table", i);
		if (bl->b[s->dofs_offset + s->dofs_size - 1] != '\0')
			return FAIL1(err, s->dofs_offset + s->dofs_size - 1,
				     "section %u: string table does not end "
				     "in NUL",
				     i);
		return 0;
	case DOF_SECT_PROBES:
		min_align = 8;
		entsize = sizeof(dof_probe_t);
		break;
	case DOF_SECT_PRARGS:
		entsize = sizeof(uint8_t);
		exact = true;
		break;
	case DOF_SECT_PRENOFFS:
	case DOF_SECT_PROFFS:
		min_align = sizeof(uint32_t);
		entsize = sizeof(uint32_t);
		exact = true;
		break;
	case DOF_SECT_RELTAB:
		min_align = 8;
		entsize = sizeof(dof_relodesc_t);
		break;
	case DOF_SECT_PROVIDER:
		min_align = sizeof(uint32_t);
		min_size = v1 ? DOF_PROVIDER_V1_SIZE : sizeof(dof_provider_t);
		break;
	case DOF_SECT_URELHDR:
		min_align = sizeof(uint32_t);
		min_size = sizeof(dof_relohdr_t);
		break;
	default:
		return 0;
	}
	if (s->dofs_align < min_align)
		return FAIL2(err, so + SEC_OFF(dofs_align),
			     "section %u: alignment %u too small for its type",
			     i, s->dofs_align);
	if (entsize != 0) {
		/* Records may grow in later versions, never shrink. */
		if (exact ? s->dofs_entsize != entsize
			  : (s->dofs_entsize < entsize ||
			     s->dofs_entsize % 8 != 0))
			return FAIL2(err, so + SEC_OFF(dofs_entsize),
				     "section %u: bad entry size %u", i,
				     s->dofs_entsize);
		if (s->dofs_size % s->dofs_entsize != 0)
			return FAIL2(err, so + SEC_OFF(dofs_size),
				     "section %u: size 0x%x is not a whole "
				     "number of entries",
				     i, s->dofs_size);
	}
	if (s->dofs_size < min_size)
		return FAIL2(err, so + SEC_OFF(dofs_size),
			     "section %u: size %u too small for its type", i,
			     s->dofs_size);
	return 0;
}

/* Every rule on section header i (< dofh_secnum); *s gets its fields. */
static int sec_check(const struct blob *bl, uint32_t i, dof_sec_t *s,
		     struct dof_err *err)
{
	uint64_t so = sec_hdr_off(bl, i);
	bool load;
	uint64_t lim;

	sec_read(bl, i, s);
	load = (s->dofs_flags & DOF_SECF_LOAD) != 0;
	if (!load && dof_sect_is_loadable(s->dofs_type))
		return FAIL2(err, so + SEC_OFF(dofs_flags),
			     "section %u: type %u needs the LOAD flag", i,
			     s->dofs_type);
	if (s->dofs_align == 0 || (s->dofs_align & (s->dofs_align - 1)) != 0)
		return FAIL2(err, so + SEC_OFF(dofs_align),
			     "section %u: alignment %u is not a power of 2", i,
			     s->dofs_align);
	if ((s->dofs_offset & (s->dofs_align - 1)) != 0)
		return FAIL2(err, so + SEC_OFF(dofs_offset),
			     "section %u: offset 0x%x breaks its alignment", i,
			     s->dofs_offset);
	lim = load ? bl->h.dofh_loadsz : bl->h.dofh_filesz;
	if (s->dofs_offset > lim)
		return fail(err, -EINVAL, so + SEC_OFF(dofs_offset),
			    "section %u: offset 0x%x beyond %s",
			    load ? "the load size" : "the file size", NULL, 0,
			    i, s->dofs_offset);
	if (s->dofs_size > lim - s->dofs_offset)
		return fail(err, -EINVAL, so + SEC_OFF(dofs_size),
			    "section %u: size 0x%x runs beyond %s",
			    load ? "the load size" : "the file size", NULL, 0,
			    i, s->dofs_size);
	if (!load)
		return 0; /* never read */
	if (overlaps(s->dofs_offset, s->dofs_size, 0, bl->h.dofh_hdrsize))
		return FAIL1(err, so + SEC_OFF(dofs_offset),
			     "section %u overlaps the DOF header", i);
	if (overlaps(s->dofs_offset, s->dofs_size, bl->h.dofh_secoff,
		     bl->tbl_size))
		return FAIL1(err, so + SEC_OFF(dofs_offset),
			     "section %u overlaps the section table", i);
	return sec_check_type(bl, i, so, s, err);
}

/*
 * Section idx, referred to by the field at ref_off, must exist and have
 * the given type.  Every type referred to is loadable, so sec_check()
 * has made sure it carries DOF_SECF_LOAD and lies inside loadsz.
 */
static int sec_ref(const struct blob *bl, uint32_t idx, uint32_t type,
		   uint64_t ref_off, const char *what, struct dof_span *sp,
		   struct dof_err *err)
{
	dof_sec_t s;
	int ret;

	if (idx >= bl->h.dofh_secnum)
		return FAILS(err, ref_off, "%s: section index %u of %u", what,
			     idx, bl->h.dofh_secnum);
	ret = sec_check(bl, idx, &s, err);
	if (ret != 0)
		return ret;
	if (s.dofs_type != type)
		return FAILS(err, ref_off, "%s: section %u has type %u", what,
			     idx, s.dofs_type);
	sp->idx = idx;
	sp->entsize = s.dofs_entsize;
	sp->off = s.dofs_offset;
	sp->size = s.dofs_size;
	return 0;
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_' || c == '-';
}

enum str_kind { STR_PROV, STR_FUNC, STR_PROBE, STR_TYPE };

/*
 * The string at index idx of string table st, referred to by the field at
 * ref_off, checked for its kind: *sp and *lenp get it.  An index fault is
 * reported at ref_off, a fault of the text at the text.  The scan stops
 * one byte past the kind's limit; *budget, if given, pays for it.
 */
static int str_get(const uint8_t *b, const struct dof_span *st, uint64_t idx,
		   enum str_kind kind, uint64_t ref_off, const char **sp,
		   uint64_t *lenp, uint64_t *budget, struct dof_err *err)
{
	static const char *const what[] = {
		[STR_PROV] = "provider name",
		[STR_FUNC] = "function name",
		[STR_PROBE] = "probe name",
		[STR_TYPE] = "argument type",
	};
	static const uint32_t max[] = {
		[STR_PROV] = DOF_PROVNAME_MAXLEN,
		[STR_FUNC] = DOF_FUNCNAME_MAXLEN,
		[STR_PROBE] = DOF_PROBENAME_MAXLEN,
		[STR_TYPE] = DOF_ARGTYPE_MAXLEN,
	};
	const uint8_t *s;
	uint64_t room, n, at;

	if (idx >= st->size)
		return FAILS(err, ref_off,
			     "%s: string index 0x%x outside the table (0x%x)",
			     what[kind], idx, st->size);
	at = st->off + idx;
	s = b + at;
	room = st->size - idx;
	for (n = 0; n < room && n <= max[kind] && s[n] != '\0'; n++)
		;
	if (budget != NULL) {
		if (*budget <= n)
			return fail(err, -E2BIG, at,
				    "strings scanned exceed %u bytes per DOF "
				    "byte",
				    NULL, NULL, 0, DOF_SCAN_FACTOR, 0);
		*budget -= n + 1;
	}
	if (n == room) /* only if the table was not checked */
		return FAILS(err, at, "%s is not NUL-terminated", what[kind], 0,
			     0);
	if (n > max[kind])
		return fail(err, -EINVAL, at, "%s \"%q\" longer than %u",
			    what[kind], s, room, max[kind], 0);
	if (n == 0)
		return FAILS(err, at, "%s is empty", what[kind], 0, 0);
	if (kind == STR_PROV || kind == STR_PROBE) {
		uint64_t k;

		if (is_digit(s[0]))
			return fail(err, -EINVAL, at,
				    "%s \"%q\" starts with a digit", what[kind],
				    s, room, 0, 0);
		for (k = 0; k < n; k++)
			if (!is_ident_char(s[k]))
				return fail(err, -EINVAL, at + k,
					    "%s \"%q\": bad character",
					    what[kind], s, room, 0, 0);
		if (kind == STR_PROV && is_digit(s[n - 1]))
			return fail(err, -EINVAL, at + n - 1,
				    "%s \"%q\" ends in a digit", what[kind], s,
				    room, 0, 0);
	} else {
		uint64_t k;

		for (k = 0; k < n; k++)
			if (s[k] < 0x20 || s[k] == 0x7f)
				return fail(err, -EINVAL, at + k,
					    "%s \"%q\": control character",
					    what[kind], s, room, 0, 0);
	}
	*sp = (const char *)s;
	*lenp = n;
	return 0;
}

static bool attr_ok(dof_attr_t a)
{
	return (a & 0xff) == 0 && DOF_ATTR_NAME(a) <= DOF_STABILITY_MAX &&
	       DOF_ATTR_DATA(a) <= DOF_STABILITY_MAX &&
	       DOF_ATTR_CLASS(a) <= DOF_CLASS_MAX;
}

/* PROVIDER section i (checked by sec_check(), header *ps) into *pv. */
static int prov_decode(const struct blob *bl, uint32_t i, const dof_sec_t *ps,
		       struct dof_prov_info *pv, struct dof_err *err)
{
	bool v1 = bl->h.dofh_ident[DOF_ID_VERSION] == DOF_VERSION_1;
	uint64_t po = ps->dofs_offset;
	const uint8_t *p = bl->b + po;
	dof_attr_t attr[5];
	dof_provider_t r;
	uint64_t len;
	unsigned int k;
	int ret;

	/* sec_check_type() made the section at least this long. */
	r.dofpv_strtab = ld32(p + PV_OFF(dofpv_strtab));
	r.dofpv_probes = ld32(p + PV_OFF(dofpv_probes));
	r.dofpv_prargs = ld32(p + PV_OFF(dofpv_prargs));
	r.dofpv_proffs = ld32(p + PV_OFF(dofpv_proffs));
	r.dofpv_name = ld32(p + PV_OFF(dofpv_name));
	r.dofpv_prenoffs =
		v1 ? DOF_SECT_NONE : ld32(p + PV_OFF(dofpv_prenoffs));
	for (k = 0; k < 5; k++)
		attr[k] = ld32(p + PV_OFF(dofpv_provattr) + 4 * k);

	ret = sec_ref(bl, r.dofpv_strtab, DOF_SECT_STRTAB,
		      po + PV_OFF(dofpv_strtab), "provider strings",
		      &pv->strtab, err);
	if (ret == 0)
		ret = sec_ref(bl, r.dofpv_probes, DOF_SECT_PROBES,
			      po + PV_OFF(dofpv_probes), "provider probes",
			      &pv->probes, err);
	if (ret == 0)
		ret = sec_ref(bl, r.dofpv_prargs, DOF_SECT_PRARGS,
			      po + PV_OFF(dofpv_prargs), "provider args",
			      &pv->prargs, err);
	if (ret == 0)
		ret = sec_ref(bl, r.dofpv_proffs, DOF_SECT_PROFFS,
			      po + PV_OFF(dofpv_proffs), "provider offsets",
			      &pv->proffs, err);
	if (ret != 0)
		return ret;
	/* Classic readers test this index against DOF_SECT_NONE (0). */
	if (r.dofpv_prenoffs != DOF_SECT_NONE) {
		ret = sec_ref(bl, r.dofpv_prenoffs, DOF_SECT_PRENOFFS,
			      po + PV_OFF(dofpv_prenoffs),
			      "provider is-enabled offsets", &pv->prenoffs,
			      err);
		if (ret != 0)
			return ret;
	} else {
		pv->prenoffs.idx = DOF_SECIDX_NONE;
		pv->prenoffs.entsize = sizeof(uint32_t);
		pv->prenoffs.off = 0;
		pv->prenoffs.size = 0;
	}
	ret = str_get(bl->b, &pv->strtab, r.dofpv_name, STR_PROV,
		      po + PV_OFF(dofpv_name), &pv->name, &len, NULL, err);
	if (ret != 0)
		return ret;
	for (k = 0; k < 5; k++)
		if (!attr_ok(attr[k]))
			return FAIL2(err, po + PV_OFF(dofpv_provattr) + 4 * k,
				     "provider section %u: bad attribute 0x%x",
				     i, attr[k]);
	pv->provattr = attr[0];
	pv->modattr = attr[1];
	pv->funcattr = attr[2];
	pv->nameattr = attr[3];
	pv->argsattr = attr[4];
	pv->secidx = i;
	/* entsize >= 48: sec_check_type() */
	pv->nprobes = pv->probes.size / pv->probes.entsize;
	pv->version = bl->h.dofh_ident[DOF_ID_VERSION];
	pv->buf = bl->b;
	pv->len = bl->len;
	return 0;
}

/* A span inside len, as prov_decode() makes them. */
static bool span_ok(const struct dof_span *sp, uint64_t len, uint32_t entsize)
{
	return sp->off <= len && sp->size <= len - sp->off &&
	       sp->entsize >= entsize;
}

/* Whether *pv can be what prov_decode() made: guards dof_probe_next(). */
static bool prov_info_ok(const struct dof_prov_info *pv)
{
	return pv->buf != NULL && span_ok(&pv->strtab, pv->len, 0) &&
	       pv->strtab.size != 0 &&
	       span_ok(&pv->probes, pv->len, sizeof(dof_probe_t)) &&
	       pv->nprobes == pv->probes.size / pv->probes.entsize &&
	       span_ok(&pv->prargs, pv->len, 1) &&
	       span_ok(&pv->proffs, pv->len, 4) &&
	       span_ok(&pv->prenoffs, pv->len, 4);
}

/*
 * Type strings: count of them back to back from index idx (named by the
 * field at ref_off); *sp gets the first (NULL if none), *lenp their bytes.
 */
static int argv_get(const struct dof_prov_info *pv, uint32_t idx,
		    unsigned int count, uint64_t ref_off, const char **sp,
		    uint32_t *lenp, uint64_t *budget, struct dof_err *err)
{
	uint64_t at = idx, n = 0;
	const char *s = NULL;
	unsigned int k;
	int ret;

	*sp = NULL;
	*lenp = 0;
	for (k = 0; k < count; k++) {
		ret = str_get(pv->buf, &pv->strtab, at, STR_TYPE,
			      k == 0 ? ref_off : pv->strtab.off + at, &s, &n,
			      budget, err);
		if (ret != 0)
			return ret;
		if (k == 0)
			*sp = s;
		at += n + 1;
	}
	/* At most 255 strings of at most 128 bytes: fits. */
	*lenp = (uint32_t)(at - idx);
	return 0;
}

/* Probe record j (< pv->nprobes) of provider pv into *pr. */
static int probe_decode(const struct dof_prov_info *pv, uint64_t j,
			struct dof_probe_info *pr, uint64_t *budget,
			struct dof_err *err)
{
	const uint8_t *b = pv->buf;
	/* j < size / entsize, so the record lies inside the section. */
	uint64_t ro = pv->probes.off + j * pv->probes.entsize;
	const uint8_t *p = b + ro;
	dof_probe_t r;
	uint64_t len, k;
	int ret;

	r.dofpr_addr = ld64(p + PR_OFF(dofpr_addr));
	r.dofpr_func = ld32(p + PR_OFF(dofpr_func));
	r.dofpr_name = ld32(p + PR_OFF(dofpr_name));
	r.dofpr_nargv = ld32(p + PR_OFF(dofpr_nargv));
	r.dofpr_xargv = ld32(p + PR_OFF(dofpr_xargv));
	r.dofpr_argidx = ld32(p + PR_OFF(dofpr_argidx));
	r.dofpr_offidx = ld32(p + PR_OFF(dofpr_offidx));
	r.dofpr_nargc = p[PR_OFF(dofpr_nargc)];
	r.dofpr_xargc = p[PR_OFF(dofpr_xargc)];
	r.dofpr_noffs = ld16(p + PR_OFF(dofpr_noffs));
	r.dofpr_enoffidx = ld32(p + PR_OFF(dofpr_enoffidx));
	r.dofpr_nenoffs = ld16(p + PR_OFF(dofpr_nenoffs));
	r.dofpr_pad1 = ld16(p + PR_OFF(dofpr_pad1));
	r.dofpr_pad2 = ld32(p + PR_OFF(dofpr_pad2));

	if (r.dofpr_pad1 != 0 || r.dofpr_pad2 != 0)
		return FAIL1(err,
			     ro + (r.dofpr_pad1 != 0 ? PR_OFF(dofpr_pad1)
						     : PR_OFF(dofpr_pad2)),
			     "probe %u: reserved fields are not zero", j);
	ret = str_get(b, &pv->strtab, r.dofpr_func, STR_FUNC,
		      ro + PR_OFF(dofpr_func), &pr->func, &len, budget, err);
	if (ret == 0)
		ret = str_get(b, &pv->strtab, r.dofpr_name, STR_PROBE,
			      ro + PR_OFF(dofpr_name), &pr->name, &len, budget,
			      err);
	if (ret != 0)
		return ret;

	if (r.dofpr_noffs == 0 && r.dofpr_nenoffs == 0)
		return FAIL1(err, ro + PR_OFF(dofpr_noffs),
			     "probe %u has no offsets", j);
	if ((uint64_t)r.dofpr_offidx + r.dofpr_noffs >
	    pv->proffs.size / sizeof(uint32_t))
		return FAIL2(err, ro + PR_OFF(dofpr_offidx),
			     "probe %u: offsets from index %u overrun PROFFS",
			     j, r.dofpr_offidx);
	if (pv->prenoffs.idx == DOF_SECIDX_NONE) {
		if (r.dofpr_nenoffs != 0 || r.dofpr_enoffidx != 0)
			return FAIL1(err,
				     ro + (r.dofpr_nenoffs != 0
						   ? PR_OFF(dofpr_nenoffs)
						   : PR_OFF(dofpr_enoffidx)),
				     "probe %u: is-enabled offsets but no "
				     "PRENOFFS section",
				     j);
	} else if ((uint64_t)r.dofpr_enoffidx + r.dofpr_nenoffs >
		   pv->prenoffs.size / sizeof(uint32_t)) {
		return FAIL2(err, ro + PR_OFF(dofpr_enoffidx),
			     "probe %u: is-enabled offsets from index %u "
			     "overrun PRENOFFS",
			     j, r.dofpr_enoffidx);
	}
	if ((uint64_t)r.dofpr_argidx + r.dofpr_xargc > pv->prargs.size)
		return FAIL2(err, ro + PR_OFF(dofpr_argidx),
			     "probe %u: argument map from index %u overruns "
			     "PRARGS",
			     j, r.dofpr_argidx);
	for (k = 0; k < r.dofpr_xargc; k++) {
		uint64_t at = pv->prargs.off + r.dofpr_argidx + k;

		if (b[at] >= r.dofpr_nargc)
			return FAIL2(err, at,
				     "probe %u: argument map entry "
				     "%u is not below nargc",
				     j, b[at]);
	}
	ret = argv_get(pv, r.dofpr_nargv, r.dofpr_nargc,
		       ro + PR_OFF(dofpr_nargv), &pr->nargv, &pr->nargv_len,
		       budget, err);
	if (ret == 0)
		ret = argv_get(pv, r.dofpr_xargv, r.dofpr_xargc,
			       ro + PR_OFF(dofpr_xargv), &pr->xargv,
			       &pr->xargv_len, budget, err);
	if (ret != 0)
		return ret;

	pr->idx = j;
	pr->rec_off = ro;
	pr->addr = r.dofpr_addr;
	pr->prov = pv->name;
	pr->nargc = r.dofpr_nargc;
	pr->xargc = r.dofpr_xargc;
	pr->noffs = r.dofpr_noffs;
	pr->nenoffs = r.dofpr_nenoffs;
	pr->argmap =
		r.dofpr_xargc == 0 ? NULL : b + pv->prargs.off + r.dofpr_argidx;
	pr->offs = r.dofpr_noffs == 0
			   ? NULL
			   : b + pv->proffs.off + 4 * (uint64_t)r.dofpr_offidx;
	pr->enoffs =
		r.dofpr_nenoffs == 0
			? NULL
			: b + pv->prenoffs.off + 4 * (uint64_t)r.dofpr_enoffidx;
	return 0;
}

/* A URELHDR and the three sections it names. */
struct relhdr {
	uint32_t sec;
	struct dof_span strtab, rel, tgt;
};

/* URELHDR section i (checked by sec_check(), header *hs) into *rh. */
static int relhdr_decode(const struct blob *bl, uint32_t i, const dof_sec_t *hs,
			 struct relhdr *rh, struct dof_err *err)
{
	uint64_t ho = hs->dofs_offset;
	const uint8_t *p = bl->b + ho;
	int ret;

	ret = sec_ref(bl, ld32(p + RH_OFF(dofr_strtab)), DOF_SECT_STRTAB,
		      ho + RH_OFF(dofr_strtab), "relocation strings",
		      &rh->strtab, err);
	if (ret == 0)
		ret = sec_ref(bl, ld32(p + RH_OFF(dofr_relsec)),
			      DOF_SECT_RELTAB, ho + RH_OFF(dofr_relsec),
			      "relocation table", &rh->rel, err);
	if (ret == 0)
		ret = sec_ref(bl, ld32(p + RH_OFF(dofr_tgtsec)),
			      DOF_SECT_PROBES, ho + RH_OFF(dofr_tgtsec),
			      "relocation target", &rh->tgt, err);
	rh->sec = i;
	return ret;
}

/* Relocation k (< rel.size / rel.entsize) of *rh into *ri. */
static int reloc_decode(const struct blob *bl, const struct relhdr *rh,
			uint64_t k, struct dof_reloc_info *ri,
			struct dof_err *err)
{
	uint64_t ro = rh->rel.off + k * rh->rel.entsize;
	const uint8_t *p = bl->b + ro;
	uint32_t name = ld32(p + RD_OFF(dofr_name));

	ri->hdr_sec = rh->sec;
	ri->rel_sec = rh->rel.idx;
	ri->tgt_sec = rh->tgt.idx;
	ri->idx = k;
	ri->rec_off = ro;
	ri->type = ld32(p + RD_OFF(dofr_type));
	/* The table ends in NUL, so any index inside it is a string. */
	ri->name = name < rh->strtab.size
			   ? (const char *)bl->b + rh->strtab.off + name
			   : NULL;
	ri->offset = ld64(p + RD_OFF(dofr_offset));
	ri->data = ld64(p + RD_OFF(dofr_data));
	ri->tgt_off = 0;
	ri->value = 0;

	switch (ri->type) {
	case DOF_RELO_NONE:
		return 0;
	case DOF_RELO_SETX:
		if (ri->name == NULL)
			return FAIL2(err, ro + RD_OFF(dofr_name),
				     "relocation %u: name index 0x%x outside "
				     "the string table",
				     k, name);
		if (ri->offset > rh->tgt.size ||
		    rh->tgt.size - ri->offset < sizeof(uint64_t))
			return FAIL2(err, ro + RD_OFF(dofr_offset),
				     "relocation %u: target 0x%x outside its "
				     "section",
				     k, ri->offset);
		ri->tgt_off = rh->tgt.off + ri->offset;
		if (ri->tgt_off % sizeof(uint64_t) != 0)
			return FAIL2(err, ro + RD_OFF(dofr_offset),
				     "relocation %u: target 0x%x is not "
				     "8-aligned",
				     k, ri->tgt_off);
		/*
		 * Only a probe's address may move: a relocation of any
		 * other field would change, after validation, indices
		 * that were checked.
		 */
		if (rh->tgt.entsize == 0 ||
		    ri->offset % rh->tgt.entsize !=
			    offsetof(dof_probe_t, dofpr_addr))
			return FAIL2(err, ro + RD_OFF(dofr_offset),
				     "relocation %u: target 0x%x is not a "
				     "probe's address",
				     k, ri->offset);
		ri->value = ld64(bl->b + ri->tgt_off);
		return 0;
	default:
		return FAIL2(err, ro + RD_OFF(dofr_type),
			     "relocation %u: unknown type %u", k, ri->type);
	}
}

int dof_check_hdr(const void *buf, size_t len, uint64_t max_size,
		  uint64_t *loadsz, struct dof_err *err)
{
	struct blob bl;
	int ret;

	err_clear(err);
	ret = hdr_check(&bl, buf, len, max_size, false, err);
	if (ret == 0 && loadsz != NULL)
		*loadsz = bl.h.dofh_loadsz;
	return ret;
}

/*
 * Walk the relocations of every URELHDR section, checking each; with
 * `out` set, also apply the SETX ones to it (base added).  Returns how
 * many SETX relocations there are, or an error.  The budget bounds the
 * work of a hostile blob that shares one RELTAB between many headers.
 * check_secs: the section headers have not been checked yet.
 */
static int relocs_walk(struct blob *bl, bool check_secs, uint8_t *out,
		       uint64_t base, struct dof_err *err)
{
	uint64_t budget = bl->len / sizeof(dof_relodesc_t), k, n;
	struct dof_reloc_info ri;
	struct relhdr rh;
	dof_sec_t s;
	int count = 0, ret;
	uint32_t i;

	for (i = 0; i < bl->h.dofh_secnum; i++) {
		sec_read(bl, i, &s);
		if (s.dofs_type != DOF_SECT_URELHDR)
			continue;
		ret = check_secs ? sec_check(bl, i, &s, err) : 0;
		if (ret == 0)
			ret = relhdr_decode(bl, i, &s, &rh, err);
		if (ret != 0)
			return ret;
		n = rh.rel.size / rh.rel.entsize;
		if (n > budget)
			return fail(err, -E2BIG,
				    s.dofs_offset + RH_OFF(dofr_relsec),
				    "relocation section %u: entries "
				    "shared beyond the DOF size",
				    NULL, NULL, 0, i, 0);
		budget -= n;
		for (k = 0; k < n; k++) {
			ret = reloc_decode(bl, &rh, k, &ri, err);
			if (ret != 0)
				return ret;
			if (ri.type != DOF_RELO_SETX)
				continue;
			if (count == 0x7fffffff)
				return FAIL(err, ri.rec_off,
					    "too many relocations");
			if (out)
				st64(out + ri.tgt_off,
				     setx_value(ri.value, base));
			count++;
		}
	}
	return count;
}

int dof_check(const void *buf, size_t len, uint64_t max_size,
	      struct dof_err *err)
{
	uint64_t probe_budget, scan_budget, j;
	struct dof_prov_info pv;
	struct dof_probe_info pr;
	struct blob bl;
	dof_sec_t s;
	uint32_t i;
	int ret;

	err_clear(err);
	ret = hdr_check(&bl, buf, len, max_size, true, err);
	if (ret != 0)
		return ret;

	for (i = 0; i < bl.h.dofh_secnum; i++) {
		ret = sec_check(&bl, i, &s, err);
		if (ret != 0)
			return ret;
	}

	probe_budget = bl.len / sizeof(dof_probe_t);
	scan_budget = bl.len > DOF_U64_MAX / DOF_SCAN_FACTOR
			      ? DOF_U64_MAX
			      : bl.len * DOF_SCAN_FACTOR;

	for (i = 0; i < bl.h.dofh_secnum; i++) {
		sec_read(&bl, i, &s);
		if (s.dofs_type != DOF_SECT_PROVIDER)
			continue;
		ret = prov_decode(&bl, i, &s, &pv, err);
		if (ret != 0)
			return ret;
		if (pv.nprobes > probe_budget)
			return fail(err, -E2BIG,
				    s.dofs_offset + PV_OFF(dofpv_probes),
				    "provider section %u: probe records "
				    "shared beyond the DOF size",
				    NULL, NULL, 0, i, 0);
		probe_budget -= pv.nprobes;
		for (j = 0; j < pv.nprobes; j++) {
			ret = probe_decode(&pv, j, &pr, &scan_budget, err);
			if (ret != 0)
				return ret;
		}
	}

	ret = relocs_walk(&bl, false, NULL, 0, err);
	return ret < 0 ? ret : 0;
}

/*
 * The iterators check the header and what they hand out, nothing more.
 * On an error the cursor has moved past the faulty item, so a lenient
 * consumer of unchecked data may go on with the next.
 */
int dof_prov_next(const void *buf, size_t len, uint32_t *cursor,
		  struct dof_prov_info *pv, struct dof_err *err)
{
	struct blob bl;
	dof_sec_t s;
	uint32_t i;
	int ret;

	err_clear(err);
	ret = hdr_check(&bl, buf, len, DOF_U64_MAX, true, err);
	if (ret != 0)
		return ret;
	for (i = *cursor; i < bl.h.dofh_secnum; i++) {
		sec_read(&bl, i, &s);
		if (s.dofs_type != DOF_SECT_PROVIDER)
			continue;
		*cursor = i + 1;
		ret = sec_check(&bl, i, &s, err);
		if (ret == 0)
			ret = prov_decode(&bl, i, &s, pv, err);
		return ret != 0 ? ret : 1;
	}
	*cursor = i;
	return 0;
}

int dof_probe_next(const struct dof_prov_info *pv, uint64_t *cursor,
		   struct dof_probe_info *pr, struct dof_err *err)
{
	uint64_t j = *cursor;
	int ret;

	err_clear(err);
	if (!prov_info_ok(pv))
		return FAIL(err, 0, "provider info not from dof_prov_next()");
	if (j >= pv->nprobes)
		return 0;
	*cursor = j + 1;
	ret = probe_decode(pv, j, pr, NULL, err);
	return ret != 0 ? ret : 1;
}

const char *dof_argv_next(const struct dof_probe_info *pr, bool xlated,
			  const char *s)
{
	const char *base = xlated ? pr->xargv : pr->nargv;
	uint32_t len = xlated ? pr->xargv_len : pr->nargv_len;
	uint32_t at;

	if (base == NULL || len == 0)
		return NULL;
	if (s == NULL)
		return base;
	if (s < base || s >= base + len)
		return NULL;
	for (at = (uint32_t)(s - base); at < len && base[at] != '\0'; at++)
		;
	at++; /* past the NUL */
	return at < len ? base + at : NULL;
}

/* The cursor holds the URELHDR section index and the entry index. */
int dof_reloc_next(const void *buf, size_t len, uint64_t *cursor,
		   struct dof_reloc_info *ri, struct dof_err *err)
{
	uint64_t k = *cursor & 0xffffffffu, n;
	uint32_t i = (uint32_t)(*cursor >> 32);
	struct relhdr rh;
	struct blob bl;
	dof_sec_t s;
	int ret;

	err_clear(err);
	ret = hdr_check(&bl, buf, len, DOF_U64_MAX, true, err);
	if (ret != 0)
		return ret;
	for (; i < bl.h.dofh_secnum; i++, k = 0) {
		sec_read(&bl, i, &s);
		if (s.dofs_type != DOF_SECT_URELHDR)
			continue;
		*cursor = (uint64_t)(i + 1) << 32;
		ret = sec_check(&bl, i, &s, err);
		if (ret == 0)
			ret = relhdr_decode(&bl, i, &s, &rh, err);
		if (ret != 0)
			return ret;
		n = rh.rel.size / rh.rel.entsize;
		if (n > 0xffffffffu)
			return FAIL1(err, s.dofs_offset + RH_OFF(dofr_relsec),
				     "relocation section %u: too many entries",
				     i);
		if (k >= n)
			continue;
		*cursor = (uint64_t)i << 32 | (k + 1);
		ret = reloc_decode(&bl, &rh, k, ri, err);
		return ret != 0 ? ret : 1;
	}
	*cursor = (uint64_t)i << 32;
	return 0;
}

int dof_relocate(void *buf, size_t len, uint64_t base, struct dof_err *err)
{
	struct blob bl;
	int ret;

	err_clear(err);
	ret = hdr_check(&bl, buf, len, DOF_U64_MAX, true, err);
	if (ret != 0)
		return ret;
	/*
	 * The first walk checks every relocation, the second writes.  The
	 * second decodes each entry again before using it: in a hostile
	 * blob a target may overlap a later entry.  Such a blob can fail
	 * half-way through; callers discard a blob on any error.
	 */
	ret = relocs_walk(&bl, true, NULL, base, err);
	if (ret < 0)
		return ret;
	return relocs_walk(&bl, true, (uint8_t *)buf, base, err);
}
