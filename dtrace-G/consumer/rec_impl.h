/* SPDX-License-Identifier: MIT */
/*
 * rec_impl.h - what a hit's record carries beyond its probe's
 * arguments, and its reading: ustack.c's user stacks (what a hit
 * captured, sampled by uprobe.c's perf events; the mappings its fork
 * tracker reports), vtime.c's vtimestamp, psargs.c's pr_psargs,
 * credentials, ppid, progenyof()'s chain and session, kbtf.c's kernel
 * offsets for them, and the inline readers of a BPF record's fields
 * that bpf.c's and kprov.c's decoders share (rec_field(), rec_cred(),
 * rec_anc(), rec_ecred(), rec_sess(), rec_kfault(), rec_ustack(),
 * rec_upcs()).
 * Included by consumer_impl.h, at its end.
 */
#ifndef USDT_DTRACE_REC_IMPL_H
#define USDT_DTRACE_REC_IMPL_H

#ifndef USDT_DTRACE_CONSUMER_IMPL_H
#error "include consumer_impl.h, which includes this file"
#endif

/* ustack.c: user stacks and names (ustack(), ufunc(), %A, ...) */
struct perf_event_attr;
/* bytes of stack a hit copies for D_NEED_USTACK (-x ustacksize) */
size_t ustack_size(struct consumer *c);
/* the default -x bufsize: dflt, or 4 times it when a clause reads stacks */
size_t ustack_bufsize(struct consumer *c, size_t dflt);
/* uprobe.c: sample the user registers and stack when needs asks */
void ustack_perf_attr(struct consumer *c, uint32_t needs,
		      struct perf_event_attr *a);
/* uprobe.c: the registers and stack after a sample's raw data */
bool ustack_perf_decode(const uint8_t *p, size_t len, struct ustack_cap *cap);
/* the firing's stack and name callbacks (c->ucap: what decode() took) */
void ustack_fire(struct consumer *c, struct d_fire *f);
/* pid ended and its records were read: forget its modules */
void ustack_proc_gone(struct consumer *c, pid_t pid);
/* pid exec()s at t: keep the maps text of the image it leaves */
void ustack_proc_exec(struct consumer *c, pid_t pid, uint64_t t);
/* sites.c read pr's maps (pr->maps, pr->maps_t): keep the text's history */
void ustack_maps_read(struct consumer *c, struct tproc *pr);
/*
 * uprobe.c's fork tracker: whether it asks for mapping records (a
 * clause reads stacks); pid's every thread has it from t on; a
 * PERF_RECORD_MMAP2 of an executable mapping; records of it lost.
 */
bool ustack_maps_wanted(const struct consumer *c);
void ustack_tracked(struct consumer *c, pid_t pid, uint64_t t);
struct ustack_mapped {
	pid_t pid;
	uint64_t t;	   /* the record's time (CLOCK_MONOTONIC ns) */
	uint64_t lo, hi;   /* the mapping's addresses */
	uint64_t base;	   /* the address of the file's offset 0 */
	uint32_t maj, min; /* the file's device and inode */
	uint64_t ino;
	bool file; /* a file's (a path), not anonymous memory */
};
void ustack_mapped(struct consumer *c, const struct ustack_mapped *m);
void ustack_mapped_lost(struct consumer *c);
/* the tracker's buffers were drained: read the maps its records made
 * stale */
void ustack_mapped_read(struct consumer *c);

/*
 * vtime.c: vtimestamp.  Whether a clause of a traced probe reads it; 0,
 * or -1 said when this run's backend cannot give it (before enabling).
 */
bool vtime_wanted(const struct consumer *c);
int vtime_check(struct consumer *c);
/*
 * The vtimestamp of a record flagged UBPF_RF_VTIME (usdt_bpf.h: 8 bytes
 * at *off, after the arguments) of thread tid into *vt, *off moved past
 * it; D_VTIME_UNKNOWN where the record says it was lost (said once);
 * false when the record ends first.
 */
bool vtime_rec(struct consumer *c, const uint8_t *raw, size_t len, size_t *off,
	       pid_t tid, uint64_t *vt);
/* d fires in dtrace itself (BEGIN, END, ERROR, tick-N), or may */
bool desc_self(const struct dt_desc *d);

/*
 * psargs.c: curpsinfo->pr_psargs.  Whether a clause of a traced probe
 * reads it; 0, or -1 said when this run cannot give it (before
 * enabling); a record's copy (n bytes) as DTrace's text, into buf of 80
 * bytes; dtrace's own.
 */
bool psargs_wanted(const struct consumer *c);
int psargs_check(struct consumer *c);
/* ... and the same for curpsinfo->pr_euid and pr_egid */
bool ecred_wanted(const struct consumer *c);
int ecred_check(struct consumer *c);
/* ... and for uid and gid (curpsinfo->pr_uid, pr_gid) */
bool cred_wanted(const struct consumer *c);
int cred_check(struct consumer *c);
/* a clause of a traced probe reads ppid or calls progenyof() */
bool ppid_wanted(const struct consumer *c);
/* a clause calls progenyof(): records carry its chain (D_NEED_ANC) */
bool anc_wanted(const struct consumer *c);
/* ... and the same as pr_euid's for curpsinfo->pr_pgid and pr_sid */
bool sess_wanted(const struct consumer *c);
int sess_check(struct consumer *c);
const char *psargs_text(const uint8_t *p, size_t n, char *buf);
const char *psargs_self(void);
/*
 * kbtf.c: the byte offset of member of the kernel's struct or union
 * type (anonymous members searched too), or type's size, from the
 * kernel's BTF parsed once; -1: unknown. The names must live as long
 * as the process (answers are remembered by them). kbtf_release()
 * gives the parsed types back once tracing has started.
 */
long kbtf_member(const char *type, const char *member);
long kbtf_size(const char *type);
/*
 * kbtf.c: how many arguments raw tracepoint tp passes (its TP_PROTO's,
 * from the BTF's btf_trace_TP), -1: unknown; and whether argument i's
 * type is named tname (through typedefs: "bool" is "_Bool")
 */
long kbtf_tp_nargs(const char *tp);
bool kbtf_tp_arg_is(const char *tp, unsigned i, const char *tname);
void kbtf_release(void);
#ifdef HAVE_BPF
/* task_struct's mm, mm_struct's arg_start and arg_end + 1, from the BTF */
int psargs_offs(uint32_t o[3]);
/* task_struct's cred, struct cred's euid and egid + 1, from the BTF */
int ecred_offs(uint32_t o[3]);
/* task_struct's real_parent and tgid + 1, from the BTF */
int ppid_offs(uint32_t o[2]);
/* task_struct's signal, signal_struct's pids, struct pid's numbers and
 * struct upid's nr + 1, from the BTF */
int sess_offs(uint32_t o[4]);
#endif
#ifdef HAVE_BPF
/* offsetof(struct task_struct, se.sum_exec_runtime) from the BTF, or -1 */
long vtime_sumexec_off(void);
/* DTRACE_VTIME_LOST=1: every thread's clock lost after its first hit,
 * a test hook (vtime.c) */
bool vtime_lose(void);
#endif

/*
 * The next variable-length field of a BPF record (usdt_bpf.h: a __u16
 * length, then that many bytes), at *off of a record of len bytes:
 * its bytes, with *off moved past it and *n set, or NULL where the
 * record ends first.  bpf.c's and kprov.c's decoders read strings and
 * copies with it.
 */
static inline const uint8_t *rec_field(const uint8_t *raw, size_t len,
				       size_t *off, uint16_t *n)
{
	const uint8_t *p;

	if (*off + 2 > len)
		return NULL;
	memcpy(n, raw + *off, 2);
	if (*off + 2 + *n > len)
		return NULL;
	p = raw + *off + 2;
	*off += 2 + (size_t)*n;
	return p;
}

/*
 * The plan's faults at the hit of a record flagged UBPF_RF_KFAULT
 * (cgen.c: its sites' bits, 8 bytes): after the record's strings and
 * copies, at *off, where a user stack follows (UBPF_RF_USTACK; *off is
 * moved past them, to the stack), else its last 8 bytes.  0 where the
 * record has none or ends first.
 */
static inline uint64_t rec_kfault(const uint8_t *raw, size_t len, size_t *off,
				  uint16_t flags)
{
	uint64_t v = 0;

	if (!(flags & UBPF_RF_KFAULT) || len < *off + 8)
		return 0;
	if (flags & UBPF_RF_USTACK) {
		memcpy(&v, raw + *off, 8);
		*off += 8;
	} else {
		memcpy(&v, raw + len - 8, 8);
	}
	return v;
}

/*
 * The uid and gid of a record flagged UBPF_RF_CRED (usdt_bpf.h: 4 bytes
 * each at *off, after the vtimestamp if any), *off moved past them;
 * false when the record ends first.
 */
static inline bool rec_cred(const uint8_t *raw, size_t len, size_t *off,
			    uid_t *uid, gid_t *gid)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	*uid = (uid_t)v[0];
	*gid = (gid_t)v[1];
	*off += 8;
	return true;
}

/*
 * progenyof()'s chain after a record's ppid (usdt_bpf.h's UBPF_ANC): w
 * the 4 bytes after the ppid (struct ubpf_anc; a kernel probe's kctx
 * pad), the links at *off, *off moved past them (none where w is 0: no
 * chain taken); false when the record ends first or w is not one.
 */
static inline bool rec_anc(const uint8_t *raw, size_t len, size_t *off,
			   uint32_t w, struct d_fire *f)
{
	struct ubpf_anc an;

	memcpy(&an, &w, sizeof(an));
	if (!an.state)
		return true;
	if (an.state > UBPF_ANC_CUT || an.n >= UBPF_ANC ||
	    *off + UBPF_ANC_BYTES(an.n) > len)
		return false;
	f->anc = raw + *off;
	f->nanc = an.n;
	f->anc_st = an.state == UBPF_ANC_FULL ? D_ANC_FULL : D_ANC_CUT;
	*off += UBPF_ANC_BYTES(an.n);
	return true;
}

/*
 * The effective uid and gid of a record flagged UBPF_RF_ECRED (4 bytes
 * each at *off) into f, *off moved past them; false when the record
 * ends first.
 */
static inline bool rec_ecred(const uint8_t *raw, size_t len, size_t *off,
			     struct d_fire *f)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	f->euid = (uid_t)v[0];
	f->egid = (gid_t)v[1];
	f->ecred = true;
	*off += 8;
	return true;
}

/*
 * The process group and session of a record flagged UBPF_RF_SESS (4
 * bytes each at *off) into f, *off moved past them; false when the
 * record ends first.
 */
static inline bool rec_sess(const uint8_t *raw, size_t len, size_t *off,
			    struct d_fire *f)
{
	uint32_t v[2];

	if (*off + 8 > len)
		return false;
	memcpy(v, raw + *off, 8);
	f->pgid = (pid_t)v[0];
	f->sid = (pid_t)v[1];
	f->sess = true;
	*off += 8;
	return true;
}

/*
 * The user registers and stack of a record flagged UBPF_RF_USTACK
 * (usdt_bpf.h: at the next multiple of 8 after off, USTACK_NREGS
 * registers (its UBPF_NREG), a 4-byte length and 4 zero bytes, the
 * stack's bytes) into *cap, which points into raw.  bpf.c's and
 * kprov.c's decoders take them with it.
 */
static inline void rec_ustack(const uint8_t *raw, size_t len, size_t off,
			      struct ustack_cap *cap)
{
	uint32_t n;

	cap->pcs = NULL;
	cap->npcs = 0;
	off = (off + 7) & ~(size_t)7;
	if (off + sizeof(cap->regs) + 8 > len)
		return;
	memcpy(cap->regs, raw + off, sizeof(cap->regs));
	off += sizeof(cap->regs);
	memcpy(&n, raw + off, 4);
	off += 8;
	cap->stack = raw + off;
	cap->len = n <= len - off ? n : len - off;
	cap->have = true;
}

/* ... whose bytes are pcs the kernel walked (UBPF_RF_UPCS) */
static inline void rec_upcs(struct ustack_cap *cap)
{
	if (!cap->have)
		return;
	cap->pcs = cap->stack;
	cap->npcs = (unsigned)(cap->len / 8);
	cap->stack = NULL;
	cap->len = 0;
}

#endif /* USDT_DTRACE_REC_IMPL_H */
