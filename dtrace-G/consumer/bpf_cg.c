// SPDX-License-Identifier: MIT
/*
 * bpf_cg.c - the bpf backend's generated programs: whether a run loads
 * the generic program (bpf/usdt.bpf.c, bpf.c) or, per event, a program
 * cgen.c generates, and loading those.
 *
 * A run whose program calls no copyout() but with the thread held at
 * its probe (c->cohold), and whose kernel probes each
 * have their provider's prologue and copy no user stack, curpsinfo's
 * effective ids or session (cg_fits(), cg_try(), kprov_cg_fits()),
 * loads no generic program: at its first
 * event (or, without one, when the kernel probes are armed:
 * bpf_cg_on(), cgen_kprov.c, which makes theirs) each event gets a
 * program cgen.c generates from its argument specs and its probe's
 * plan, straight-line and a few hundred instructions, sharing one ring
 * buffer, the drops map and the aggregation maps bpf_agg_cgen.c makes
 * (bpf_kagg_cgen()); programs with the same instructions are loaded
 * once.  They write the same records and aggregate into the same
 * formats, so nothing downstream changes.  A run whose clauses read
 * the stack has the unwinder loaded first (ustack_walk.c's uw_load()),
 * which the programs tail-call, and a site link's copy of a program
 * tail-calls the unwinder loaded for uprobe_multi (cg_load_multi()).
 * A first program the
 * generator or the verifier refuses sends the run to the generic
 * program, as if never tried; DTRACE_CGEN=0 does so too.  -v names
 * the generated programs (cg_say()).
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/usdt_bpf.h"
#include "kplan.h"
#include "bpf_impl.h"
#include "consumer_impl.h"

/* Whether a clause reads the user stack (cgbuf then has room for it). */
static bool cg_ustack(struct consumer *c)
{
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		if (d_clause_needs(c->prog, ci) & D_NEED_USTACK)
			return true;
	return false;
}

/*
 * Whether the run's clauses are all the generator takes: no copyout()
 * or copyoutstr() but where the thread is held at the probe
 * (c->cohold: consumer.c's copyout_check(); cgen_rec.c's u_hold(), as
 * usdt.bpf.c's hold_thread()) and no clause reads the user stack (a
 * walked stack's record is output by the unwinder, which holds no
 * thread); one written at the hit stays the generic usdt_hit_w's
 * (doc/DESIGN.md §8 "vtimestamp, copyout() and unset variables in the
 * generated programs": the at-hit write is not built).  uid, gid, ppid,
 * vtimestamp, curpsinfo's pr_psargs and, at uprobes, pr_euid, pr_egid,
 * pr_pgid and pr_sid it takes as the generic program does
 * (UBPF_RF_CRED, UBPF_RF_PPID, UBPF_RF_VTIME, UBPF_RF_PSARGS:
 * cgen_rec.c, UBPF_RF_ECRED, UBPF_RF_SESS); a kernel probe's record
 * has the first three in its struct ubpf_kctx, and kprov_cg_fits()
 * refuses the last four there.
 * DTRACE_CGEN=0 says no.  The kernel providers are known only once
 * matched: cg_try() asks then.
 */
bool cg_fits(struct consumer *c)
{
	const char *env = getenv("DTRACE_CGEN");

	if (env && !strcmp(env, "0"))
		return false;
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		if ((d_clause_needs(c->prog, ci) & D_NEED_COPYOUT) &&
		    (!c->cohold || cg_ustack(c)))
			return false;
	return true;
}

/*
 * Whether a clause reads a string at an argument or copyin()s one at
 * the hit (the record copies them, built in cgbuf)
 */
static bool cg_strs(struct consumer *c)
{
	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		uint32_t size[D_MAXARGS];

		if (d_clause_strargs(c->prog, ci) ||
		    d_clause_memargs(c->prog, ci, size))
			return true;
	}
	return false;
}

/* Back to nothing generated (the first program was refused; the end). */
void cg_off(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	if (!b->cg_on)
		return;
	for (size_t i = 0; i < b->ncg; i++) {
		close(b->cg[i].fd);
		free(b->cg[i].v);
	}
	free(b->cg);
	b->cg = NULL;
	b->ncg = 0;
	ring_buffer__free(b->rb);
	b->rb = NULL;
	bpf_kagg_free(b->kagg);
	b->kagg = NULL;
	/* the clauses left to user space were the generated plans' (which
	 * keep self-> variables in the kernel): the generic program's
	 * plans decide them again */
	for (size_t i = 0; i < c->nprobes; i++)
		c->probes[i]->kplanned = false;
	if (b->cgm.rb >= 0)
		close(b->cgm.rb);
	if (b->cgm.drops >= 0)
		close(b->cgm.drops);
	if (b->cgm.wake >= 0)
		close(b->cgm.wake);
	if (b->cgm.buf >= 0)
		close(b->cgm.buf);
	if (b->cgm.zero >= 0)
		close(b->cgm.zero);
	if (b->cgm.vtlink >= 0) /* the switch program's, then its map */
		close(b->cgm.vtlink);
	if (b->cgm.vtimes >= 0)
		close(b->cgm.vtimes);
	uw_free(c); /* the unwinder, its arrays and tables */
	b->cgm.uwalk1 = b->cgm.uwalkm1 = 0;
	b->drops_fd = -1;
	b->cg_on = false;
	b->ready = false;
	b->rbsz = 0;
}

/*
 * -v: why cg_fits() said no (DTRACE_CGEN=0, asked for, goes unsaid):
 * the first clause that copies out, written at the hit or held beside
 * a user stack
 */
static void cg_unfit_say(struct consumer *c)
{
	const char *env = getenv("DTRACE_CGEN");

	if (!c->o->verbose || (env && !strcmp(env, "0")))
		return;
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		if (d_clause_needs(c->prog, ci) & D_NEED_COPYOUT) {
			say(c,
			    "BPF: clause %u (%s) calls copyout() or "
			    "copyoutstr(), %s; the generic program instead",
			    ci + 1, c->ndescs[ci] ? c->descs[ci][0].text : "",
			    c->cohold ? "with the thread held beside a user "
					"stack, which only the generic program "
					"holds"
				      : "which only the generic program writes "
					"at the hit");
			return;
		}
}

/*
 * At the run's first event: generated programs if the run fits (and
 * then the maps they share), else the generic program, as before.
 */
void cg_try(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;
	struct cgen_maps *m = &b->cgm;
	size_t rbsz = rb_bytes(c, c->rbsize);
	bool inbuf;
	int err;

	b->cg_tried = true;
	if (!cg_fits(c)) {
		cg_unfit_say(c);
		return;
	}
	if (kprov_autoload(c, NULL) && !kprov_cg_fits(c)) {
		/* -v: which kernel probe (cgen_kprov.c) */
		if (c->o->verbose)
			say(c, "BPF: %s; the generic program instead",
			    c->be_why);
		c->be_why[0] = '\0';
		return;
	}
	memset(m, 0, sizeof(*m));
	m->hold = -1;
	m->spec = -1; /* bpf_kagg_cgen()'s cgspec, where it makes one */
	/* copyout() held at the probe: dlhold.c's map and offsets (none:
	 * the generic program, which refuses the run saying why) */
	if (c->cohold) {
		long ho[3] = { -1, -1, -1 };
		char why[256] = "";

		m->hold = dlhold_map(c, ho, why, sizeof(why));
		if (m->hold < 0)
			return;
		for (int i = 0; i < 3; i++)
			m->hold1[i] = ho[i] >= 0 ? (uint32_t)ho[i] + 1 : 0;
	}
	m->self = (uint32_t)getpid();
	m->rb = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb", 0, 0,
			       (uint32_t)rbsz, NULL);
	m->rbsize = (uint32_t)rbsz; /* its BPF_RB_RING_SIZE (rb_wake_ask()) */
	/* drops: key 0 a full ring's (the unwinder's too), key 1 a hit's
	 * that found cgbuf held (cgen.c's own_busy(); bpf.c's drops_read()) */
	m->drops = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "drops", 4, 8, 2,
				  NULL);
	/* where rb's last wake-up was asked for (bpf/rbwake.bpf.h) */
	m->wake = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rbwake", 4, 8, 1, NULL);
	/* a new aggregation entry's value, 16 zero bytes read only by the
	 * programs (cgen_agg.c's agg_find(): the stack's room is S_VT's) */
	{
		LIBBPF_OPTS(bpf_map_create_opts, zo,
			    .map_flags = BPF_F_RDONLY_PROG);

		m->zero = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cgzero", 4, 16, 1,
					 &zo);
	}
	/* copyinstr(), ustack(), ppid, the effective ids, the session
	 * (their 8 bytes only when read): such records are built in cgbuf */
	m->ustk_room = cg_ustack(c);
	if (ppid_wanted(c) && ppid_offs(m->ppid1) < 0) /* 0: none read */
		m->ppid1[0] = m->ppid1[1] = 0;
	m->anc = anc_wanted(c); /* progenyof(): the chain with it */
	if (ecred_wanted(c) && ecred_offs(m->ecred1) < 0)
		memset(m->ecred1, 0, sizeof(m->ecred1));
	if (sess_wanted(c) && sess_offs(m->sess1) < 0)
		memset(m->sess1, 0, sizeof(m->sess1));
	if (psargs_wanted(c) && psargs_offs(m->psargs1) < 0)
		memset(m->psargs1, 0, sizeof(m->psargs1));
	/* copies read through copyin()'s pointers (kplan_mem.c) */
	m->cpyroom = d_kplan_mem_any(c->prog);
	inbuf = cg_strs(c) || m->ustk_room || ppid_wanted(c) ||
		ecred_wanted(c) || sess_wanted(c) || psargs_wanted(c) ||
		d_kplan_out_any(c->prog) /* cgen_out.c */ || m->cpyroom;
	/* ... and its owner word (cgen.c's own_need()), then the copy
	 * room where there is one (8 bytes of slack after it), the chain
	 * room where a clause calls progenyof() (UBPF_ANCROOM:
	 * cgen_rec.c's cgen_anc_plan() for UBPF_K_PROGX), and the kaggs_v
	 * key's room (cgen.c's cg_room_off()) */
	m->buf = inbuf ? bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "cgbuf", 4,
					cg_room_off(m, CG_ROOM_END), 1, NULL)
		       : -1;
	if (m->buf < 0)
		m->cpyroom = false;
	m->vtimes = m->vtlink = -1;
	/* the stack walked in the kernel, before the copy (ustack_walk.c) */
	if (m->ustk_room && m->buf >= 0 && m->rb >= 0 && m->drops >= 0 &&
	    m->wake >= 0)
		(void)uw_load(c, m);
	if (vtime_wanted(c) && vtime_sumexec_off() >= 0)
		m->sumexec1 = (uint32_t)vtime_sumexec_off() + 1;
	m->vtlose = vtime_lose();
	b->cg_on = true; /* cg_off() undoes what follows */
	b->drops_fd = m->drops;
	/* vtimestamp's switch program, attached before any event */
	if (vtime_wanted(c) && cgen_vtime_start(c, m) < 0) {
		if (c->o->verbose)
			say(c, "BPF: %s; the generic program instead",
			    c->be_why);
		c->be_why[0] = '\0';
		cg_off(c);
		return;
	}
	b->kagg = bpf_kagg_cgen(c, m, &err);
	if (m->rb < 0 || m->drops < 0 || m->wake < 0 || m->zero < 0 || err ||
	    (m->buf < 0 && inbuf) ||
	    !(b->rb = ring_buffer__new(m->rb, rb_record, c, NULL))) {
		if (c->o->verbose)
			say(c,
			    "BPF: cannot make the generated programs' maps"
			    "%s%s; the generic program instead",
			    err ? ": " : "", err ? strerror(-err) : "");
		cg_off(c);
		return;
	}
	bpf_object__close(b->obj); /* not loaded: cg_fits() said so */
	b->obj = NULL;
	b->rbsz = rbsz;
	c->buf_all = rbsz;
	b->ready = true;
	/*
	 * the kernel probes' programs, now, before anything is attached:
	 * one refused sends the whole run to the generic program
	 */
	if (kprov_cg_load(c) < 0) {
		if (c->o->verbose)
			say(c, "BPF: %s; the generic program instead",
			    c->be_why);
		c->be_why[0] = '\0';
		cg_off(c);
	}
}

/*
 * DTRACE_CGEN_DUMP=FILE: every program the generator hands to
 * cg_load_as(), appended to FILE (one too that the cache finds loaded
 * already), a line naming its type, attach type and length, then an
 * instruction a line (code, dst, src, off, imm): a debugging aid, to
 * compare what two builds of the generator emit for the same script.
 */
static void cg_dump(enum bpf_prog_type type, int attach,
		    const struct bpf_insn *v, size_t n)
{
	const char *path = getenv("DTRACE_CGEN_DUMP");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int fd;

	if (!path || !*path || !(f = open_memstream(&buf, &len)))
		return;
	fprintf(f, "prog type %d attach %d insns %zu\n", (int)type, attach,
		n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x %u %u %d %d\n", v[i].code, v[i].dst_reg,
			v[i].src_reg, v[i].off, v[i].imm);
	fclose(f);
	/* one write, O_APPEND: the programs of runs at once stay whole */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, len) < 0)
			fputs("dtrace: DTRACE_CGEN_DUMP: write failed\n",
			      stderr);
		close(fd);
	}
	free(buf);
}

/*
 * The program v (n instructions, now ours), loaded, or the one loaded
 * before with the same instructions: its fd, or -errno (c->be_why).
 * DTRACE_CGEN_LOG set prints the verifier's whole log of a refusal;
 * DTRACE_CGEN_DUMP, the instructions (cg_dump()).
 */
static int cg_load_as(struct consumer *c, enum bpf_prog_type type,
		      int attach, struct bpf_insn *v, size_t n)
{
	struct consumer_bpf *b = c->bpf;
	static char log[65536];
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
		    .log_size = sizeof(log),
		    .expected_attach_type = (enum bpf_attach_type)attach);
	int fd;

	cg_dump(type, attach, v, n);
	for (size_t i = 0; i < b->ncg; i++)
		if (b->cg[i].n == n && b->cg[i].type == (int)type &&
		    b->cg[i].attach == attach &&
		    !memcmp(b->cg[i].v, v, n * sizeof(*v))) {
			free(v);
			return b->cg[i].fd;
		}
	log[0] = '\0';
	fd = bpf_prog_load(type, "dtrace_cg", "GPL", v, (uint32_t)n, &o);
	if (fd < 0) {
		int err = errno ? -errno : -EINVAL;

		if (getenv("DTRACE_CGEN_LOG")) /* the whole verifier log */
			fputs(log, stderr);
		const char *verdict = lb_log_verdict(log);

		snprintf(c->be_why, sizeof(c->be_why),
			 "loading a generated program: %s%s%s", strerror(-err),
			 verdict[0] ? "; the verifier: " : "", verdict);
		free(v);
		return err;
	}
	b->cg = xpush_room(b->cg, b->ncg, sizeof(*b->cg));
	b->cg[b->ncg++] = (struct cg_prog){v, n, fd, (int)type, attach};
	return fd;
}

/* does v (n instructions) address map fd + 1 (0: none)? */
static bool uses_map(const struct bpf_insn *v, size_t n, uint32_t fd1)
{
	for (size_t i = 0; fd1 && i + 1 < n; i++)
		if (v[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    v[i].src_reg == BPF_PSEUDO_MAP_FD &&
		    v[i].imm == (int32_t)fd1 - 1)
			return true;
	return false;
}

/* a uprobe event's program (the unwinder it tail-calls loaded first) */
int cg_load(struct consumer *c, struct bpf_insn *v, size_t n)
{
	if (uses_map(v, n, c->bpf->cgm.uwalk1))
		uw_fill(c, 0);
	return cg_load_as(c, BPF_PROG_TYPE_KPROBE, 0, v, n);
}

/*
 * a site link's program (bpf_attach.c): the same instructions, loaded
 * for a uprobe_multi link, which takes no program loaded for a perf
 * event
 */
int cg_load_multi(struct consumer *c, struct bpf_insn *v, size_t n)
{
	const struct cgen_maps *m = &c->bpf->cgm;

	/* the unwinder's tail call: through the array whose program was
	 * loaded for uprobe_multi (a prog array takes one attach type) */
	for (size_t i = 0; m->uwalk1 && i + 1 < n; i++)
		if (v[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    v[i].src_reg == BPF_PSEUDO_MAP_FD &&
		    v[i].imm == (int32_t)m->uwalk1 - 1)
			v[i].imm = (int32_t)m->uwalkm1 - 1;
	if (uses_map(v, n, m->uwalkm1))
		uw_fill(c, 1);
	return cg_load_as(c, BPF_PROG_TYPE_KPROBE, UMULTI_ATTACH, v, n);
}

/* ------------------------------------------------------------------ */
/* ... and the kernel providers' (cgen_kprov.c) */

bool bpf_cg_on(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	if (!b || b->load_failed)
		return false;
	if (!b->ready && !b->cg_tried)
		cg_try(c);
	return b->cg_on;
}

const struct cgen_maps *bpf_cg_maps(struct consumer *c)
{
	return &c->bpf->cgm;
}

int bpf_cg_load(struct consumer *c, int type, struct bpf_insn *v, size_t n)
{
	return cg_load_as(c, (enum bpf_prog_type)type, 0, v, n);
}

/* The kernel probes' programs are attached: no going back after. */
void bpf_cg_armed(struct consumer *c)
{
	c->bpf->cg_kp = true;
}

/* -v: the programs generated, or none loaded at all */
void cg_say(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;
	struct bpf_prog_info info;
	uint32_t len;
	size_t insns = 0;
	uint64_t ver = 0;

	if (b->cg_on) {
		for (size_t i = 0; i < b->ncg; i++) {
			memset(&info, 0, sizeof(info));
			len = sizeof(info);
			insns += b->cg[i].n;
			if (bpf_obj_get_info_by_fd(b->cg[i].fd, &info, &len) ==
			    0)
				ver += info.verified_insns;
		}
		/* the records: hits whose clauses could not run sent
		 * none (record gates, cgen.c) */
		say(c,
		    "BPF: %zu generated program%s, %zu instruction%s, "
		    "%" PRIu64 " verified, %" PRIu64 " record%s read",
		    b->ncg, b->ncg == 1 ? "" : "s", insns,
		    insns == 1 ? "" : "s", ver, c->received,
		    c->received == 1 ? "" : "s");
		/* after user space's exit(): the records read, not run,
		 * and those stamped after the kernel stopped, none
		 * (kplan_exit.c's "The flood") */
		if (c->xact_at)
			say(c,
			    "BPF: %" PRIu64 " record%s read after exit(), "
			    "%" PRIu64 " stamped after the kernel stopped",
			    c->xrecs, c->xrecs == 1 ? "" : "s", c->xlate);
		if (b->nlinks) /* bpf_attach.c */
			say(c, "BPF: %zu site link%s, no uprobe event",
			    b->nlinks, b->nlinks == 1 ? "" : "s");
		if (b->ustk_walked || b->ustk_copied) /* ustack_walk.c */
			say(c,
			    "BPF: user stacks: %" PRIu64 " walked in the "
			    "kernel, %" PRIu64 " copied",
			    b->ustk_walked, b->ustk_copied);
		return;
	}
	/* the generic program, as -v always had it, says nothing new */
	if (!b->obj || !b->prog)
		say(c, "BPF: no program loaded");
}
