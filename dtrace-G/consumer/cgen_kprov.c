// SPDX-License-Identifier: MIT
/*
 * cgen_kprov.c - generated programs for the kernel providers (syscall,
 * profile-N, proc; kprov.c), as cgen.c generates them for USDT and pid
 * sites (doc/DESIGN.md §8, "Programs generated from the clauses").
 *
 * A site's arguments are read per its stapsdt specs, which cgen.c turns
 * into loads from pt_regs; a kernel probe's context is its provider's
 * (a tracepoint's record, a raw tracepoint's arguments, a perf event's
 * registers), so the provider writes that part of the program: its
 * table's cg_pro() emits, with the cgk_*() emitters here, a prologue
 * that puts the probe's arguments into cgen.c's argument slots and
 * leaves a firing that is not the
 * probe's (a thread's creation for proc:::create) -- what its program
 * in bpf/kprov.bpf.h does before kprov_emit().  The rest is cgen.c's,
 * as for a site: the probe's plan compiled in (the one bpf_agg.c keeps
 * under (ev, pid 0) for the generic program: every process's, so it
 * runs on every hit, unarmed, but for a process user space keeps
 * self-> variables for where the plan keeps them: kp_tlsu() below,
 * bpf_agg_cgen.c's "Two copies"; cg_tls says so to kprov_hit()), the record
 * (a struct ubpf_kctx after
 * the header, as kprov_emit() writes it) and the ring buffer's
 * wakeup; the run's activity and the probe's exit() tests
 * (bpf_kagg_xplan(): kplan_exit.c's "exit() at a traced probe") where a
 * clause of the run may exit() at a hit, as a uprobe event's.  One
 * program per probe, attached with bpf_cookie its ev
 * (UBPF_EV_KPROV | index), so records decode as before (kprov_hit());
 * the program, being the probe's alone, has the index as an immediate
 * (cgen_maps' ev1) rather than reading the cookie at every hit.  But
 * where the provider says the probe's program may be shared (struct
 * cgk's idmap1: the syscall provider's raw tracepoints, a direction
 * with more than one probe), the program reads the probe's index and
 * D id at the hit from the provider's identity map (kp_ident() below,
 * cgen_kpro's iv, idmap), cg_probe() putting the probe's
 * in its entry (struct cgk_id): programs whose code is then the same
 * are one, bpf_cg.c loading identical instructions once.
 *
 * When.  The run's programs are generated or not as a whole (cg_try()
 * in bpf.c, at the first uprobe event or, in a run without one, at
 * kprov_arm(): bpf_cg_on()), and kprov_cg_fits() lets a run with
 * kernel probes be generated only where every provider has a prologue
 * for each of them and no clause of theirs reads curpsinfo's pr_euid,
 * pr_egid, pr_pgid or pr_sid.  ustack() (and ucaller, jstack) is in the
 * record, a copy of the user stack kp_ustk() KiB long, as kprov_emit()
 * makes it: the provider says where the thread's user registers are
 * (struct cgk's ureg: CGK_UREG_RAW for the raw tracepoints' pt_regs,
 * CGK_UREG_PERF for profile-N's sample, else those saved on entry) and
 * cgen_ustk.c's kp_uregs() reads them there.  A system call on
 * the raw tracepoints (more than KP_SYS_PER_CALL_MAX calls,
 * kprov_syscall.c) has its program too, of the raw tracepoint's type,
 * which no perf event runs: the direction's dispatcher, which
 * kp_sys_cg_load() generates once the probes' programs are loaded,
 * reads the call's number and tail-calls the number's program in a
 * program array (none there: the firing ends), as kprov.bpf.h's
 * kprov_sys_enter() looks the number up in ksys.
 * vtimestamp and pr_psargs their records carry as kprov.bpf.h's do,
 * wherever the run reads them (cgen_rec.c's code, as a uprobe's).  A
 * printing or speculating clause's values computed at the probe
 * (kplan_out.c, kplan_spec.c's "Speculations": kp_sout_where() takes the
 * clauses whose every probe has such a program) go in the record's
 * out area, after the arguments and vtimestamp (cgen.c, cgen_out.c),
 * which kprov.c's kprov_hit() hands to cg_out_rec(); the generic programs
 * (kprov.bpf.h) have none, their plans no such clause.  Where the run's
 * speculations are the kernel's (kplan_spec.c's d_kplan_kspec(),
 * doc/DESIGN.md's step 5) the area holds a speculating clause's tags
 * too, the hit stamped before the provider's prologue as a uprobe's
 * (cgen.c's emit_prologue(), p->ts), bpf.c's rec_kout_at() and
 * bpf_kspec_fire() reading them ahead of the hit's place; a probe whose
 * plan the generator refuses is then refused (cg_probe()), not given
 * the record-only program, whose speculating clauses would not run.  cg_try()
 * has kprov_cg_load() generate and load every kernel probe's program
 * then, before anything is attached, so a program the generator or the
 * verifier refuses sends the whole run to the generic programs; the
 * providers' arm() attach them later (kp_attach_perf()), once the
 * processes' events are, when kprov_arm() finds them (kp_cg_arm());
 * the syscall provider's arm() attaches the dispatchers to sys_enter
 * and sys_exit.
 *
 * Their stages (the code at the end of this file).  Kernel probes take
 * the same stages as cgen.c's with m->kp set: their provider's prologue
 * (kprov.h's struct cgk, emitted by the provider's file) instead of the
 * argument specs, the attach cookie's index, or their ev1's (each probe
 * has a program of its own), or, in a program probes share
 * (m->kp->idmap: the syscall provider's raw tracepoints), the index and
 * the probe's D id read at the hit from the provider's identity map
 * (kp_ident(); the id at S_PRB for the plan's CONSTs flagged
 * UBPF_KF_PRB), with UBPF_EV_KPROV put back; the activity and the
 * probe's exit() tests as a uprobe's (m->act, m->xpl); the plan, every
 * process's, run on every hit with no arming checked (kp_plan()), and
 * no record at all when it is the probe's every clause and cannot
 * fault, nor when its record gates all failed (as a uprobe's,
 * bpf_agg.c's bpf_kagg_kplan()); the record with a struct ubpf_kctx
 * after the header (kp_kctx(): uid, gid, and ppid through task_struct
 * at the BTF's offsets, as kprov.bpf.h's kprov_emit(); in a run that
 * calls progenyof() anc_walk() reads the ppid again with its chain,
 * which follows the out area in cgbuf).  The program types are the
 * provider's (tracepoint, perf_event), whose helpers include all of
 * these and bpf_get_current_task, bpf_get_current_uid_gid and
 * bpf_probe_read_kernel.
 */
#include "config.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/kagg_bpf.h"
#include "bpf/usdt_bpf.h"
#include "cgen_impl.h"
#include "kprov.h"

/* ------------------------------------------------------------------ */
/* Emitters for the providers' prologues */

void cgk_put(struct cgk *k, uint8_t code, uint8_t dst, uint8_t src,
	     int16_t off, int32_t imm)
{
	k->v = xpush_room(k->v, k->n, sizeof(*k->v));
	k->v[k->n++] = (struct bpf_insn){.code = code,
					 .dst_reg = dst,
					 .src_reg = src,
					 .off = off,
					 .imm = imm};
}

size_t cgk_jmp(struct cgk *k, uint8_t code, uint8_t dst, int32_t imm)
{
	cgk_put(k, code, dst, 0, 0, imm);
	return k->n - 1;
}

void cgk_fix(struct cgk *k, size_t j)
{
	k->v[j].off = (int16_t)(k->n - j - 1);
}

void cgk_exit(struct cgk *k)
{
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	cgk_put(k, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

int16_t cgk_arg(unsigned i)
{
	return cgen_arg_slot(i);
}

void cgk_read_kernel(struct cgk *k, unsigned i, uint8_t size, uint8_t src,
		     int32_t off)
{
	cgk_put(k, BPF_ST | BPF_MEM | BPF_DW, 10, 0, cgk_arg(i), 0);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 3, src, 0, 0);
	cgk_put(k, BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, off);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0);
	cgk_put(k, BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, cgk_arg(i));
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, size);
	cgk_put(k, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
}

/* ------------------------------------------------------------------ */
/* The run's programs */

bool kprov_cg_fits(struct consumer *c)
{
	const struct kprov *kp = c->kp;

	for (size_t i = 0; kp && i < kp->n; i++) {
		const struct kprobe *p = kp->probes[i];
		const struct provider *pv = p->n.prov;

		/* the effective ids and the session: its prologue's
		 * record has no code for them (cgen.c has only a
		 * uprobe's) */
		if (kp_has_prog(p) &&
		    ((p->needs & (D_NEED_ECRED | D_NEED_SESS)) ||
		     !pv->cg_pro || !pv->cg_pro(c, p, NULL, NULL))) {
			/* for -v (bpf_cg.c's cg_try()) */
			snprintf(c->be_why, sizeof(c->be_why),
				 "%s:%s:%s:%s: %s", p->n.d.prov, p->n.d.mod,
				 p->n.d.func, p->n.d.name,
				 p->needs & (D_NEED_ECRED | D_NEED_SESS)
					 ? "a clause reads curpsinfo's "
					   "pr_euid, pr_egid, pr_pgid or "
					   "pr_sid, which a kernel probe's "
					   "generated program does not "
					   "record"
					 : "its provider has no generated "
					   "program for it");
			return false;
		}
	}
	return true;
}

/* p's program into p->cg_fd: 0, or -1 with c->be_why */
/*
 * DTRACE_CGEN_REFUSE=PROV:MOD:FUNC:NAME: the generator refuses that
 * kernel probe's plan, as it refuses one it cannot make, so that the
 * tests reach what follows (the record-only program; where the plan
 * keeps self-> variables, the generic programs for the whole run).
 */
static bool cg_refused(const struct kprobe *p)
{
	const char *r = getenv("DTRACE_CGEN_REFUSE");
	char name[512];

	if (!r || !*r)
		return false;
	snprintf(name, sizeof(name), "%s:%s:%s:%s", p->n.d.prov, p->n.d.mod,
		 p->n.d.func, p->n.d.name);
	return !strcmp(r, name);
}

static int cg_probe(struct consumer *c, struct kprov *kp, struct kprobe *p)
{
	const struct cgen_maps *m0 = bpf_cg_maps(c);
	struct cgen_maps m = *m0;
	struct cgen_kpro kpro = {0};
	struct ubpf_ev s = {0};
	struct ubpf_kplan *pl = xcalloc(1, sizeof(*pl));
	struct ubpf_kplan *xpl = xcalloc(1, sizeof(*xpl));
	struct cgk k = {0};
	struct bpf_insn *v;
	size_t n;
	int fd;
	bool hzfree = false, any;

	if (!p->n.prov->cg_pro(c, p, &kp->kconf, &k)) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "no prologue for %s:%s:%s:%s", p->n.d.prov,
			 p->n.d.mod, p->n.d.func, p->n.d.name);
		goto refused;
	}
	/* the plan, as kprov_arm() puts it in for the generic program; one
	 * that left out a clause keeping variables is refused whether or
	 * not others are in it (before 2026-12-06 only where none was:
	 * the clauses left out ran in user space on a copy of self-> the
	 * kernel did not keep, wrong output) */
	any = bpf_kagg_kplan(c, bpf_kagg_of(c), &p->dp, p->clauses, p->epids,
			     p->nclauses, pl, &p->uclauses, &p->uepids,
			     &p->nuclauses);
	if (pl->tls & UBPF_KTLS_UNFIT) {
		char what[4 * 64 + 4];

		snprintf(what, sizeof(what), "%s:%s:%s:%s", p->n.d.prov,
			 p->n.d.mod, p->n.d.func, p->n.d.name);
		bpf_kagg_unfit(c, bpf_kagg_of(c), what);
		goto refused;
	}
	if (!any) {
		free(pl);
		pl = NULL;
	}
	/* its exit() tests (kplan_exit.c's "exit() at a traced probe"), as a
	 * uprobe event's (bpf_attach.c's cg_prog()) */
	if (bpf_kagg_xplan(c, bpf_kagg_of(c), &p->dp, p->clauses,
			   p->nclauses, xpl) < 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "the exit() tests of %s:%s:%s:%s do not fit one plan",
			 p->n.d.prov, p->n.d.mod, p->n.d.func, p->n.d.name);
		goto refused;
	}
	kpro.v = k.v;
	kpro.n = k.n;
	kpro.iv = k.iv;
	kpro.in = k.in;
	kpro.idmap = k.idmap1 - 1;
	kpro.idmax = k.idmax;
	if (k.id) /* the program reads which probe hit (kp_ident()) */
		*k.id = (struct cgk_id){p->idx, p->dp.id};
	kpro.ureg = k.ureg;
	/* kprov.bpf.h's kprov_btf: bpf_task_pt_regs() needs it */
	kpro.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	kpro.parent1 = kp->kconf.task_real_parent;
	kpro.tgid1 = kp->kconf.task_tgid;
	m.kp = &kpro;
	m.ev1 = p->idx + 1; /* the probe's own program: no cookie read */
	m.armed = m.arm1 = -1; /* every process's plan */
	m.xpl = xpl;
	if (!k.self)
		m.self = UINT32_MAX; /* no process has it: none left out */
	s.nargs = k.nargs;
	s.strmask = k.strmask;
	s.comm = (p->needs & D_NEED_EXECNAME) != 0;
	/* the user stack's KiB, as kp_cookie() and ksys give it */
	s.ustk = kp_ustk(c, p);
	/* kprov.bpf.h's records: the argument area where the run reads it */
	s.psargs = psargs_wanted(c);
	m.hzfree = &hzfree;
	if (cg_refused(p) || !cgen_emit(&m, &s, pl, &v, &n)) {
		/* the record-only program, unless the plan keeps
		 * self-> variables, which user space does not have, or the
		 * run's speculations are the kernel's (an unflagged
		 * record's speculating clauses are not run: records.c's
		 * hit_run(); bpf_attach.c's cg_prog() refuses so too) */
		if (!pl || pl->tls || bpf_kspec_on(c) ||
		    !cgen_emit(&m, &s, NULL, &v, &n)) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "no program generated for %s:%s:%s:%s",
				 p->n.d.prov, p->n.d.mod, p->n.d.func,
				 p->n.d.name);
			goto refused;
		}
		/* every clause in user space, from unflagged records; said
		 * (bpf_attach.c's cg_prog() too) */
		if (c->o->verbose)
			say(c,
			    "BPF: no program generated for %s:%s:%s:%s with "
			    "its plan; every hit recorded instead",
			    p->n.d.prov, p->n.d.mod, p->n.d.func, p->n.d.name);
		free(pl);
		pl = NULL;
	}
	fd = bpf_cg_load(c, k.type, v, n);
	if (fd < 0)
		goto refused;
	if (hzfree) /* the lease spares its clock (-v, kprov_stop()) */
		kp->hz_free_kp++;
	if (pl) /* its clauses run in the kernel (-v) */
		bpf_kagg_cgen_ran(bpf_kagg_of(c));
	p->cg_fd = fd;
	p->cg_tls = pl && (pl->tls & 1);
	free(k.v);
	free(k.iv);
	free(pl);
	free(xpl); /* compiled in */
	return 0;
refused:
	free(k.v);
	free(k.iv);
	free(pl);
	free(xpl);
	return -1;
}

/* The programs loaded are no longer the run's (cg_off() closed them). */
void kprov_cg_reset(struct consumer *c)
{
	struct kprov *kp = c->kp;

	for (size_t j = 0; kp && j < kp->n; j++) {
		struct kprobe *q = kp->probes[j];

		q->cg_fd = -1;
		q->cg_tls = false;
		free(q->uclauses); /* the generic programs' plans decide */
		free(q->uepids);
		q->uclauses = q->uepids = NULL;
		q->nuclauses = 0;
	}
	if (kp) {
		kp_sys_cg_reset(kp);
		kp->cg = false;
	}
}

int kprov_cg_load(struct consumer *c)
{
	struct kprov *kp = c->kp;

	if (!kp)
		return 0;
	kp_kconf_find(c, kp);
	for (size_t i = 0; i < kp->n; i++) {
		struct kprobe *p = kp->probes[i];

		if (kp_has_prog(p) && cg_probe(c, kp, p) < 0) {
			kprov_cg_reset(c);
			return -1;
		}
	}
	/* the raw tracepoints' dispatchers, which tail-call them */
	if (kp_sys_cg_load(c, kp) < 0) {
		kprov_cg_reset(c);
		return -1;
	}
	kp->cg = true;
	return 0;
}

int kp_cg_arm(struct consumer *c, struct kprov *kp)
{
	if (!bpf_cg_on(c) || !kp->cg)
		return 0;
	if (kp_kconf_fill(c, kp) < 0) /* what a probe cannot do without */
		return -1;
	bpf_cg_armed(c);
	return 1;
}

/* ------------------------------------------------------------------ */
/* The stages' code for kernel probes (cgen.c's emit_prologue(),
 * emit_record() and emit_strs() call it) */

int16_t cgen_arg_slot(unsigned i)
{
	return (int16_t)S_ARG(i);
}

/*
 * The provider's prologue (ctx in r6, pid_tgid in r7, the cookie in
 * r8): its instructions, jumps relative and exits its own, as they
 * are; then the record's ev gets UBPF_EV_KPROV back (the cookie is
 * masked to 31 bits above).
 */
void kp_prologue(struct em *e, const struct cgen_kpro *k)
{
	for (size_t i = 0; i < k->n; i++)
		put(e, k->v[i].code, k->v[i].dst_reg, k->v[i].src_reg,
		    k->v[i].off, k->v[i].imm);
	alu_i(e, BPF_OR, 8, INT32_MIN);
}

/*
 * The hit's probe in a program several kernel probes share (the
 * syscall provider's raw tracepoints, cgen_kprov.c): the provider's
 * code leaves its index in r1; past the map's end (not reached: the
 * provider's dispatcher chose this program for the index) the firing
 * ends; r8 = its ev, S_PRB its id, which UBPF_KF_PRB's CONST loads
 * (cgen_plan.c).  idmap's one value is addressed directly (ldmapv()),
 * the index bounded for the verifier: no helper call.
 */
void kp_ident(struct em *e, const struct cgen_kpro *k)
{
	size_t j;

	for (size_t i = 0; i < k->in; i++)
		put(e, k->iv[i].code, k->iv[i].dst_reg, k->iv[i].src_reg,
		    k->iv[i].off, k->iv[i].imm);
	j = jmp_i(e, BPF_JLT, 1, (int32_t)k->idmax);
	alu_i(e, BPF_MOV, 0, 0);
	put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	fix(e, j);
	alu_i(e, BPF_LSH, 1, 3); /* sizeof(struct cgk_id) */
	ldmapv(e, 2, k->idmap, 0);
	alu_r(e, BPF_ADD, 2, 1);
	ldx(e, BPF_W, 8, 2, 0);
	ldx(e, BPF_W, 1, 2, 4);
	stx(e, BPF_DW, 10, S_PRB, 1);
	e->prb = true;
}

/*
 * A kernel probe's plan, kprov.bpf.h's kprov_kagg(): every process's,
 * so it runs on every hit (no cgarm1/cgarmed).  true when it is all
 * the probe's clauses and cannot fault: the program has no record.  A
 * string it cannot read (seq_read()) goes to the unflagged record, or
 * with fault sites is the hit's fault: a record then, for it alone.
 */
bool kp_plan(struct em *e, const struct cgen_maps *m,
	     const struct ubpf_kplan *pl, unsigned nargs)
{
	int fds[15] = { m->kaggs,    m->kflat,	 m->kdrops,  m->tls,
			m->tlsdrops, m->buf,	 m->kaggs_s, m->tlsa,
			m->tlss,     m->kaggs_v, m->kaggs_w, m->zero,
			m->tlsa1,    m->kaggs_l, m->kaggs_x };

	bool fs = cgen_fsites(e, pl);

	if (cgen_plan_has(pl, UBPF_K_UREG, -1)) /* kplan.c gives none */
		e->bad = true;
	cgen_plan(e, pl, nargs, fds);
	if (!pl->record && !e->nfj && !e->nhzj && !fs)
		return true;
	if (pl->record != 1) { /* a record only for a fault or a REC */
		size_t jf = 0;

		if (fs || pl->record) {
			ldx(e, BPF_DW, 1, 10, S_FLAGS);
			alu_i(e, BPF_RSH, 1, pl->record ? 16 : 32);
			jf = jmp_i(e, BPF_JNE, 1, 0);
			/* a PRED failing before any REC or fault: here */
			for (unsigned i = 0; i < e->nxpj; i++)
				fix(e, e->xpj[i]);
		}
		own_give(e);
		alu_i(e, BPF_MOV, 0, 0);
		put(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		if (fs || pl->record)
			fix(e, jf);
	}
	if (pl->record || fs) {
		ldx(e, BPF_DW, 1, 10, S_FLAGS);
		alu_i(e, BPF_OR, 1, UBPF_RF_KAGG);
		stx(e, BPF_DW, 10, S_FLAGS, 1);
	}
	for (unsigned i = 0; i < e->nfj; i++) /* past it, flags still 0 */
		fix(e, e->fj[i]);
	for (unsigned i = 0; i < e->nhzj; i++)
		fix(e, e->hzj[i]);
	e->nfj = e->nhzj = 0;
	return false;
}

/*
 * A kernel probe's plan that keeps self-> runs for every process, but
 * not for one user space keeps them for (bpf_agg_cgen.c's "Two copies"):
 * the hit's tgid in cgtlsu not 0, or not there while cgtlsufull is set
 * (tls_user()), sends it to the unflagged record, as a hit past the
 * horizon (e->hzj: kp_plan() then has a record).  Only once cgtlsuw's
 * word is set (a uprobe's hit went to cgtlsu; why that is enough:
 * bpf_agg_cgen.c); before, a direct load and a test.  r7 pid_tgid, r0-r5
 * clobbered, S_KEY8 free.
 */
void kp_tlsu(struct em *e, const struct cgen_maps *m)
{
	size_t jnone, jarmed, jw;

	ldmapv(e, 1, m->tlsuw, 0); /* no such hit yet: the plan */
	ldx(e, BPF_W, 1, 1, 0);
	jw = jmp_i(e, BPF_JEQ, 1, 0);
	alu_r(e, BPF_MOV, 1, 7);
	alu_i(e, BPF_RSH, 1, 32);
	stx(e, BPF_W, 10, S_KEY8, 1);
	lookup_at(e, m->tlsu, S_KEY8);
	jnone = jmp_i(e, BPF_JEQ, 0, 0);
	ldx(e, BPF_W, 1, 0, 0);
	e->hzj[e->nhzj++] = jmp_i(e, BPF_JNE, 1, 0);
	jarmed = jmp_i(e, BPF_JA, 0, 0); /* 0: the kernel keeps them */
	fix(e, jnone);
	ldmapv(e, 1, m->tlsufull, 0); /* its one u32 */
	ldx(e, BPF_W, 1, 1, 0);
	e->hzj[e->nhzj++] = jmp_i(e, BPF_JNE, 1, 0);
	fix(e, jarmed);
	fix(e, jw);
}

/*
 * struct ubpf_kctx after the header (r9), as kprov.bpf.h's kprov_emit()
 * and kprov_ppid(): uid, gid, and the parent's tgid read through
 * task_struct at the offsets the kernel's BTF gave (0 when unknown or
 * unreadable); S_KEY8 is free here.
 */
void kp_kctx(struct em *e, const struct cgen_kpro *k)
{
	const int16_t x = (int16_t)sizeof(struct ubpf_rec);
	size_t j1, j2 = 0;

	call(e, BPF_FUNC_get_current_uid_gid);
	stx(e, BPF_W, 9, x, 0);
	alu_i(e, BPF_RSH, 0, 32);
	stx(e, BPF_W, 9, (int16_t)(x + 4), 0);
	st(e, BPF_DW, 9, (int16_t)(x + 8), 0); /* ppid 0, pad */
	if (!k->parent1 || !k->tgid1)
		return;
	call(e, BPF_FUNC_get_current_task);
	alu_r(e, BPF_MOV, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(k->parent1 - 1));
	alu_r(e, BPF_MOV, 1, 10);
	alu_i(e, BPF_ADD, 1, S_KEY8);
	alu_i(e, BPF_MOV, 2, 8);
	call(e, BPF_FUNC_probe_read_kernel);
	j1 = jmp_i(e, BPF_JNE, 0, 0);
	ldx(e, BPF_DW, 3, 10, S_KEY8);
	j2 = jmp_i(e, BPF_JEQ, 3, 0);
	alu_i(e, BPF_ADD, 3, (int32_t)(k->tgid1 - 1));
	alu_r(e, BPF_MOV, 1, 9);
	alu_i(e, BPF_ADD, 1, (int16_t)(x + 8));
	alu_i(e, BPF_MOV, 2, 4);
	call(e, BPF_FUNC_probe_read_kernel);
	fix(e, j1);
	fix(e, j2);
}
