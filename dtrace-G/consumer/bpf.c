// SPDX-License-Identifier: MIT
/*
 * bpf.c - the consumer's BPF backend: the uprobe backend's events, each
 * running a BPF program (bpf/usdt.bpf.c, loaded with libbpf) that writes
 * one record per hit into a BPF ring buffer.  This is the consumer's
 * event path (doc/DESIGN.md §8): a hit costs one program run and one
 * ring-buffer record, however many perf events the process has.
 *
 * Arming.  uprobe.c arms each site with a uprobe event and perf events
 * (up_enable()), and hands each new event to ev_new() (bpf_attach.c),
 * which attaches the program to it, once per event, with the event's
 * index as its bpf_cookie.
 *
 * The event's index also keys its entry in the map evspec: the site's
 * arguments as its stapsdt note gives them (register, memory at
 * register + offset, constant; size and sign), the strings the clauses
 * read with copyinstr(), whether execname is read, and how much user
 * stack to copy for ustack() (-x ustacksize; ustack.c unwinds it).
 *
 * Reading.  One ring buffer for all CPUs, of -x bufsize times the CPUs;
 * the program asks for a wakeup once it is half full, then once per
 * position of the reader (bpf/rbwake.bpf.h, which relies on the loop
 * poll()ing the epoll descriptor: bpf_poll_fds()), and the loop reads
 * it every switchrate anyway.  A record is copied into the
 * consumer's arena, at most c->read_cap bytes a round (a process that
 * refills the ring as fast as it is read, 8 KiB of stack a hit, took
 * 0.2-3 GB of arena in one read before: issue 28, part 2), and decoded
 * into the struct d_fire the uprobe backend makes; it says where the
 * hit fired, and lin_hit_probe() whose probe that is (lineage.c), or
 * that it is nobody's: a binary-wide site records the hits of every
 * process running the file, and those of processes neither traced nor
 * forked from a traced one are dropped there.  The fork tree comes from
 * uprobe.c's fork tracker, whose per-CPU perf buffers carry nothing
 * else here; they are read after the ring buffer, so a child's FORK
 * record (written before the child ran) is in the tree before any hit
 * of the child is run.  A record the ring buffer has no room for is
 * counted per CPU in the map drops; every read reports what it grew by
 * ("N drops on CPU C"), so the drops are exact without the uprobe
 * backend's end-of-run count.
 *
 * Aggregating.  Clauses that only aggregate integers run in the
 * program itself, from plans bpf_agg.c puts in for each process it
 * enables; their hits write no record, or a record flagged so that
 * user space runs only the other clauses (bpf_agg.c says how).
 *
 * Generated programs.  Whether a run loads the generic program at all,
 * or a program cgen.c generates for each event, is bpf_cg.c's.
 *
 * Loading.  A run whose clauses name only dtrace:::BEGIN and END
 * (traces_nothing()) asks nothing and loads nothing: open() leaves the
 * object unloaded, and a first event, should a USDT probe be named
 * BEGIN, loads it then.  Otherwise open() asks the kernel whether it
 * has what the program needs (libbpf's feature probes), then loads it, with
 * dtrace's own pid in it and a ring buffer of -x bufsize (or the default) times
 * the CPUs, and keeps it: a kernel that has every feature can still refuse the
 * program (its verifier, a lockdown, an LSM), and then the next backend
 * is used, not a run that fails at its first event.  A #pragma D option
 * bufsize is known only once the program is compiled; if it asks for
 * another ring, the first event loads the program again, before
 * anything is attached.  Whatever refused it, the step and its errno
 * (libbpf's first warning and the verifier's verdict for a program
 * load) go into c->be_why, which consumer.c says once, naming the
 * backend used instead.  Debian 12's 6.1 has every feature; its
 * verifier needed the plan's stack index masked where it sees it
 * (kagg.bpf.h's kslot()), doc/DESIGN.md §9.  The kernel providers'
 * programs (syscall, profile, proc: kprov.c) are in the same object,
 * write the same ring buffer and are loaded only when the run uses them
 * (kprov_autoload()): a run that does is known once its clauses are
 * matched, so the first event, or kprov.c asking for the object
 * (bpf_be_object()), loads the program again with them.  Their records
 * are kprov.c's to decode.  A run whose traced probes read vtimestamp
 * loads usdt_hit_vt instead of usdt_hit and the sched_switch program
 * of bpf/vtime.bpf.h, attached before any event (vtime.c; generated,
 * cgen_rec.c makes both); one whose
 * program calls copyout() or copyoutstr() (-w) loads usdt_hit_w, which
 * writes at the hit (ev_copyout()), and never generated programs; or,
 * where the kernel refuses that helper or the form is not one it can
 * write, for -c/-p targets (c->cohold: consumer.c's copyout_check()),
 * generated programs that hold as below (cgen_rec.c's u_hold(), where
 * bpf_cg.c's cg_fits() takes the run), else
 * usdt_hit with dlhold.c's map as its `hold` map: the program stops
 * the thread at a copyout() probe's hit (usdt.bpf.c's hold_thread()),
 * only at a probe whose instruction is a NOP (site_nop()), its record
 * flagged UBPF_RF_HELD, and the clause writes when it runs in dtrace
 * (struct d_fire's copyout 2), before records.c lets the thread go.
 */
#include "config.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "bpf/kagg_bpf.h"
#include "bpf/kprov_bpf.h"
#include "bpf/usdt_bpf.h"
#include "bpf_impl.h"
#include "consumer_impl.h"
#include "kplan.h"
#include "kprov.h"
#include "stapsdt.h"

/* the program, compiled and embedded by make (usdt_bpf_obj.c) */
extern const unsigned char usdt_bpf_obj[];
extern const size_t usdt_bpf_obj_len;

/*
 * What libbpf warned of while the program was loaded (libbpf_quiet()):
 * its first warning (the map it could not create, the program the
 * kernel refused and the errno) and the verifier's verdict, the log's
 * last line before its "processed N insns".
 */
static struct {
	bool on;
	bool named; /* DTRACE_BACKEND=bpf: the verifier's log is shown */
	char first[192];
	char verdict[192];
} lb;

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap) __attribute__((format(printf, 2, 0)));

/* The verifier's verdict in a libbpf message holding its log. */
static void lb_verdict(const char *m)
{
	const char *p = strstr(m, "-- BEGIN PROG LOAD LOG --"), *end, *line;
	size_t len = 0;

	if (!p || !(p = strchr(p, '\n')))
		return;
	end = strstr(++p, "-- END PROG LOAD LOG --");
	if (!end)
		end = p + strlen(p);
	line = NULL;
	while (p < end && strncmp(p, "processed ", 10)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n) {
			line = p;
			len = n;
		}
		p = nl ? nl + 1 : end;
	}
	if (line)
		snprintf(lb.verdict, sizeof(lb.verdict), "%.*s", (int)len,
			 line);
}

/* The verifier's verdict in log, a program load's whole log (bpf_cg.c). */
const char *lb_log_verdict(const char *log)
{
	static char msg[65536 + 64];

	snprintf(msg, sizeof(msg), "-- BEGIN PROG LOAD LOG --\n%s", log);
	memset(&lb, 0, sizeof(lb));
	lb_verdict(msg);
	return lb.verdict;
}

static void lb_note(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static void lb_note(const char *fmt, va_list ap)
{
	va_list aq;
	char *m, *t;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	m = xcalloc((size_t)n + 1, 1);
	vsnprintf(m, (size_t)n + 1, fmt, ap);
	if (strstr(m, "-- BEGIN PROG LOAD LOG --")) {
		lb_verdict(m);
	} else if (!lb.first[0]) {
		t = m + (strncmp(m, "libbpf: ", 8) ? 0 : 8);
		t[strcspn(t, "\n")] = '\0';
		snprintf(lb.first, sizeof(lb.first), "%s", t);
	}
	free(m);
}

/* set on a thread whose loads libbpf must not speak of (nor note in
 * lb, which the consumer's thread keeps): ustack_walk.c's loader */
_Thread_local bool bpf_lb_mute;

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (bpf_lb_mute)
		return 0;
	if (level == LIBBPF_WARN && lb.on) {
		va_list aq;

		va_copy(aq, ap);
		lb_note(fmt, aq);
		va_end(aq);
	}
	/* the verifier's log only when bpf was asked for by name */
	if (level == LIBBPF_DEBUG || !lb.named)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ------------------------------------------------------------------ */
/* Argument specs */

/* The address a file offset of f is loaded at, before the load bias. */
static bool off_to_vaddr(const struct tfile *f, uint64_t off, uint64_t *v)
{
	for (size_t i = 0; i < f->nph; i++) {
		const GElf_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_LOAD && off >= ph->p_offset &&
		    off - ph->p_offset < ph->p_filesz) {
			*v = ph->p_vaddr + (off - ph->p_offset);
			return true;
		}
	}
	return false;
}

/*
 * One stapsdt spec as the program fetches it; false when it cannot be
 * (what uprobe.c's spec_fetch() refuses too: floats, index registers,
 * symbols other than sym(%rip)), and then the argument reads as 0.  A
 * sym(%rip) operand is at sym + off in the running process; at the hit
 * the instruction pointer is the site, so it is ip + (sym + off - site).
 */
static bool spec_arg(const struct tevent *e, const struct stapsdt_arg *a,
		     struct ubpf_arg *u)
{
	unsigned size = a->size ? a->size : 8;

	if (a->is_float || size > 8)
		return false;
	u->size = (uint8_t)size;
	u->sgn = a->is_signed;
	switch (a->kind) {
	case STAPSDT_ARG_REG:
		if (a->reg < 0 || a->reg > UBPF_R_IP)
			return false;
		u->kind = a->reg_hi8 ? UBPF_A_REGHI : UBPF_A_REG;
		u->reg = (uint8_t)a->reg;
		return true;
	case STAPSDT_ARG_MEM:
		if (a->index != STAPSDT_REG_NONE || a->reg < 0 ||
		    a->reg > UBPF_R_IP)
			return false;
		if (a->sym) {
			uint64_t sym, site;

			if (a->reg != UBPF_R_IP ||
			    !sym_lookup(e->file, a->sym, a->sym_len, &sym) ||
			    !off_to_vaddr(e->file, SITE_OFF(e->off), &site))
				return false;
			u->off = (int64_t)(sym + (uint64_t)a->off - site);
		} else {
			if (a->reg == UBPF_R_IP)
				return false;
			u->off = a->off;
		}
		u->kind = UBPF_A_MEM;
		u->reg = (uint8_t)a->reg;
		return true;
	case STAPSDT_ARG_CONST:
		if (a->sym)
			return false;
		u->kind = UBPF_A_CONST;
		u->off = a->off;
		return true;
	}
	return false;
}

/* What a hit at e records of its thread and process beside the arguments. */
void ev_ctx(const struct tevent *e, struct ubpf_ev *s)
{
	s->cred = (e->needs & D_NEED_CRED) != 0;     /* uid, gid at the hit */
	s->psargs = (e->needs & D_NEED_PSARGS) != 0; /* pr_psargs */
	s->ecred = (e->needs & D_NEED_ECRED) != 0;   /* pr_euid, pr_egid */
	s->ppid = (e->needs & D_NEED_PPID) != 0;     /* ppid, progenyof() */
	s->sess = (e->needs & D_NEED_SESS) != 0;     /* pr_pgid, pr_sid */
}

/* What the program fetches at e's site: the arguments the clauses read. */
void ev_spec(const struct tevent *e, struct ubpf_ev *s)
{
	/* at a call (a -G site without a note): the calling convention's
	 * argument registers, then the stack the call leaves */
#if defined(__aarch64__)
	static const uint8_t sysv[] = {0, 1, 2, 3, 4, 5, 6, 7}; /* x0-x7 */
#else
	static const uint8_t sysv[] = {UBPF_R_DI, UBPF_R_SI, UBPF_R_DX,
				       UBPF_R_CX, UBPF_R_R8, UBPF_R_R9};
#endif
	const unsigned nsysv = sizeof(sysv) / sizeof(sysv[0]);
	const char *args = site_args(file_note_at(e->file, SITE_OFF(e->off)),
				     e->off);
	unsigned top = 0;

	memset(s, 0, sizeof(*s));
	if (args && args[0]) {
		struct stapsdt_arg a;
		struct stapsdt_err serr;
		size_t cur = 0;

		for (unsigned i = 0; i < UBPF_MAXARGS &&
				     arch_arg_next(args, &cur, &a, &serr) == 1;
		     i++)
			if (!spec_arg(e, &a, &s->a[i]))
				s->a[i].kind = UBPF_A_NONE;
	} else {
		for (unsigned i = 0; i < e->nargs && i < UBPF_MAXARGS; i++) {
			s->a[i].size = 8;
			if (i < nsysv) {
				s->a[i].kind = UBPF_A_REG;
				s->a[i].reg = sysv[i];
			} else {
				s->a[i].kind = UBPF_A_MEM;
				s->a[i].reg = UBPF_R_SP;
				s->a[i].off = (int64_t)(i - nsysv) * 8;
			}
		}
	}
	for (unsigned i = 0; i < e->nargs && i < UBPF_MAXARGS; i++) {
		if (e->needs & (1u << i))
			top = i + 1;
		/* as uprobe.c: a constant is no string's address */
		if ((e->strmask & (1u << i)) && s->a[i].kind != UBPF_A_NONE &&
		    s->a[i].kind != UBPF_A_CONST) {
			s->strmask |= (uint16_t)(1u << i);
			top = i + 1 > top ? i + 1 : top;
		}
	}
	s->nargs = top;
	s->comm = (e->needs & D_NEED_EXECNAME) != 0;
}

/* ------------------------------------------------------------------ */
/* Loading */

/* The ring buffer's bytes for a per-CPU size: a power of two, <= 1 GiB. */
size_t rb_bytes(const struct consumer *c, size_t percpu)
{
	size_t rbsz = 1;

	while (rbsz < percpu * (size_t)c->bpf->ncpus &&
	       rbsz < ((size_t)1 << 30))
		rbsz *= 2;
	return rbsz;
}

/*
 * 1 where some clause of the run (or the ERROR clauses' firing,
 * c->eneeds) needs what need names (D_NEED_*), or there is no program
 * to ask: what usdt.bpf.c's generic program must keep
 */
static uint32_t run_needs(const struct consumer *c, unsigned need)
{
	if (!c->prog)
		return 1;
	for (unsigned ci = 0; ci < d_nclauses(c->prog); ci++)
		if ((d_clause_needs(c->prog, ci) | c->eneeds) & need)
			return 1;
	return 0;
}

/* 1 where some clause copies an argument's bytes (ev_mem()'s memmask) */
static uint32_t run_memargs(const struct consumer *c)
{
	uint32_t size[D_MAXARGS];

	if (!c->prog)
		return 1;
	for (unsigned ci = 0; ci < d_nclauses(c->prog); ci++)
		if (d_clause_memargs(c->prog, ci, size))
			return 1;
	return 0;
}

/*
 * Set the constant var of the program's .rodata map m to v before the
 * load: its offset is the one the object's BTF gives (.rodata's
 * section info), so the loader does not depend on the order clang
 * laid the constants out in.
 */
static int rodata_set(struct bpf_object *obj, struct bpf_map *m,
		      const char *var, const void *v, size_t vsz)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t;
	const struct btf_var_secinfo *vi;
	size_t sz = 0;
	const void *data = bpf_map__initial_value(m, &sz);
	uint8_t *nv;
	int id, err;

	if (!btf || !data)
		return -EINVAL;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0 || !(t = btf__type_by_id(btf, (uint32_t)id)))
		return -ENOENT;
	vi = btf_var_secinfos(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, vi++) {
		const struct btf_type *vt = btf__type_by_id(btf, vi->type);

		if (!vt || strcmp(btf__name_by_offset(btf, vt->name_off), var))
			continue;
		if (vi->size != vsz || vi->offset + vsz > sz)
			return -EINVAL;
		nv = xcalloc(1, sz);
		memcpy(nv, data, sz);
		memcpy(nv + vi->offset, v, vsz);
		err = bpf_map__set_initial_value(m, nv, sz);
		free(nv);
		return err;
	}
	return -ENOENT;
}

/*
 * Load the program with a ring buffer of rbsz bytes and keep it; on
 * failure, c->be_why says which step failed and why.
 */
static bool copyout_wanted(const struct consumer *c);

static int bpf_obj_load(struct consumer *c, size_t rbsz)
{
	struct consumer_bpf *b = c->bpf;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "usdt");
	struct bpf_map *m;
	uint32_t self = (uint32_t)getpid(), u, pso[3], sso[4];
	/* vtimestamp: known once the clauses are, else not at open */
	bool vt = c->prog && vtime_wanted(c), wr = c->prog && copyout_wanted(c);
	struct bpf_program *hit, *hit_vt, *hit_w, *sw;
	int err, hfd = -1;
	long ho[3] = {-1, -1, -1};
	char why[256] = "";

	b->obj = bpf_object__open_mem(usdt_bpf_obj, usdt_bpf_obj_len, &oo);
	if (!b->obj) {
		err = errno ? -errno : -EINVAL;
		snprintf(c->be_why, sizeof(c->be_why),
			 "opening the program's object: %s", strerror(-err));
		return err;
	}
	m = bpf_object__find_map_by_name(b->obj, "rb");
	err = m ? bpf_map__set_max_entries(m, (uint32_t)rbsz) : -EINVAL;
	/* copyout() with the thread held: dlhold.c's map, its offsets */
	if (!err && c->cohold) {
		hfd = dlhold_map(c, ho, why, sizeof(why));
		m = bpf_object__find_map_by_name(b->obj, "hold");
		if (hfd < 0 || !m) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "copyout( ): no thread can be held: %s",
				 *why ? why : "no hold map");
			goto fail;
		}
		err = bpf_map__reuse_fd(m, hfd);
	}
	bpf_object__for_each_map(m, b->obj) {
		const char *nm = bpf_map__name(m);
		size_t l = strlen(nm);

		if (err || l < 7 || strcmp(nm + l - 7, ".rodata"))
			continue;
		err = rodata_set(b->obj, m, "self_pid", &self, sizeof(self));
		/* usdt.bpf.c: the copies no clause reads, pruned */
		u = run_memargs(c);
		if (!err)
			err = rodata_set(b->obj, m, "mem_on", &u, sizeof(u));
		u = run_needs(c, D_NEED_USTACK);
		if (!err)
			err = rodata_set(b->obj, m, "ustk_on", &u, sizeof(u));
		/* kprov.bpf.h: bpf_task_pt_regs() needs the kernel's BTF */
		u = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
		if (!err)
			err = rodata_set(b->obj, m, "kprov_btf", &u, sizeof(u));
		if (!err && b->fix.on)
			err = rodata_set(b->obj, m, "kfix", &b->fix,
					 sizeof(b->fix));
		/* vtime.bpf.h: the kernel providers' records carry it */
		u = vt;
		if (!err)
			err = rodata_set(b->obj, m, "vtime_on", &u, sizeof(u));
		u = vt ? (uint32_t)vtime_sumexec_off() + 1 : 0;
		if (!err)
			err = rodata_set(b->obj, m, "vtime_sumexec", &u,
					 sizeof(u));
		u = vtime_lose();
		if (!err)
			err = rodata_set(b->obj, m, "vtime_lose", &u,
					 sizeof(u));
		/* usdt.bpf.c's hold_thread(): where SIGURG's action is */
		for (int i = 0; i < 3 && !err && hfd >= 0; i++) {
			static const char *const hn[3] = {
				"hold_sighand", "hold_blocked", "hold_handler"};

			u = ho[i] >= 0 ? (uint32_t)ho[i] + 1 : 0;
			err = rodata_set(b->obj, m, hn[i], &u, sizeof(u));
		}
		/* usdt.bpf.c's sess_rec(): where the session is */
		if (!err && c->prog && sess_wanted(c) && sess_offs(sso) == 0) {
			err = rodata_set(b->obj, m, "sess_sig", &sso[0], 4);
			if (!err)
				err = rodata_set(b->obj, m, "sess_pids",
						 &sso[1], 4);
			if (!err)
				err = rodata_set(b->obj, m, "sess_nums",
						 &sso[2], 4);
			if (!err)
				err = rodata_set(b->obj, m, "sess_nr", &sso[3],
						 4);
		}
		/* ppid_rec(): where the parent is; with progenyof(), its
		 * chain too (anc_rec(), kprov_anc()) */
		if (!err && c->prog && ppid_wanted(c) && ppid_offs(pso) == 0) {
			err = rodata_set(b->obj, m, "ppid_rp", &pso[0], 4);
			if (!err)
				err = rodata_set(b->obj, m, "ppid_tgid",
						 &pso[1], 4);
		}
		if (!err && c->prog && anc_wanted(c)) {
			uint32_t on = 1;

			err = rodata_set(b->obj, m, "anc_on", &on, 4);
		}
		/* psargs_rec(): where the arguments are; ecred_rec():
		 * where the effective ids are */
		if (!err && c->prog && ecred_wanted(c) &&
		    ecred_offs(pso) == 0) {
			err = rodata_set(b->obj, m, "ecred_cred", &pso[0], 4);
			if (!err)
				err = rodata_set(b->obj, m, "ecred_euid",
						 &pso[1], 4);
			if (!err)
				err = rodata_set(b->obj, m, "ecred_egid",
						 &pso[2], 4);
		}
		if (!err && c->prog && psargs_wanted(c) &&
		    psargs_offs(pso) == 0) {
			err = rodata_set(b->obj, m, "psargs_mm", &pso[0], 4);
			if (!err)
				err = rodata_set(b->obj, m, "psargs_as",
						 &pso[1], 4);
			if (!err)
				err = rodata_set(b->obj, m, "psargs_ae",
						 &pso[2], 4);
		}
	}
	/* usdt_hit_vt instead of usdt_hit, and its switch program */
	hit = bpf_object__find_program_by_name(b->obj, "usdt_hit");
	hit_vt = bpf_object__find_program_by_name(b->obj, "usdt_hit_vt");
	hit_w = bpf_object__find_program_by_name(b->obj, "usdt_hit_w");
	sw = bpf_object__find_program_by_name(b->obj, "vtime_switch");
	m = bpf_object__find_map_by_name(b->obj, "vtimes");
	if (!err && (!hit || !hit_vt || !hit_w || !sw || !m))
		err = -ENOENT;
	if (!err && vt && wr) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "copyoutstr( ) with vtimestamp is not supported");
		goto fail;
	}
	if (!err) {
		bpf_program__set_autoload(hit, !vt && !wr);
		bpf_program__set_autoload(hit_vt, vt);
		bpf_program__set_autoload(hit_w, wr);
		bpf_program__set_autoload(sw, vt);
		err = bpf_map__set_max_entries(m, vt ? UBPF_VTIME_MAX : 1);
	}
	if (err) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "setting up the program's maps: %s", strerror(-err));
		goto fail;
	}
	memset(&lb, 0, sizeof(lb));
	lb.on = true;
	/* the kernel providers' programs the run uses (none at open) */
	b->kprov = kprov_autoload(c, b->obj);
	err = bpf_object__load(b->obj);
	lb.on = false;
	if (err) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "loading the program: %s%s%s",
			 lb.first[0] ? lb.first : strerror(-err),
			 lb.verdict[0] ? "; the verifier: " : "", lb.verdict);
		goto fail;
	}
	b->prog = vt ? hit_vt : wr ? hit_w : hit;
	b->vtime = vt;
	b->wr = wr;
	b->cohold = c->cohold;
	b->evspec_fd = bpf_object__find_map_fd_by_name(b->obj, "evspec");
	b->drops_fd = bpf_object__find_map_fd_by_name(b->obj, "drops");
	if (!b->prog || b->evspec_fd < 0 || b->drops_fd < 0) {
		err = -EINVAL;
		snprintf(
			c->be_why, sizeof(c->be_why),
			"the program's object lacks usdt_hit, evspec or drops");
		goto fail;
	}
	b->rbsz = rbsz;
	c->buf_all = rbsz;
	return 0;
fail:
	bpf_object__close(b->obj);
	b->obj = NULL;
	b->prog = NULL;
	b->evspec_fd = b->drops_fd = -1;
	return err;
}

/*
 * At the first event, once -x bufsize and the clauses are known: the
 * program again if a #pragma asked for another ring or the run uses the
 * kernel providers, then the ring buffer's reader and the plans of
 * kernel aggregation.
 */
static int bpf_ready(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;
	size_t rbsz = rb_bytes(c, c->rbsize);
	int err;

	if (rbsz != b->rbsz || (!b->kprov && kprov_autoload(c, NULL)) ||
	    b->fix.on || b->vtime != vtime_wanted(c) ||
	    b->wr != copyout_wanted(c) || b->cohold != c->cohold) {
		bpf_object__close(b->obj);
		b->obj = NULL;
		err = bpf_obj_load(c, rbsz);
		if (err) {
			say(c, "cannot load the BPF program: %s", c->be_why);
			return err;
		}
	}
	b->rb = ring_buffer__new(bpf_object__find_map_fd_by_name(b->obj, "rb"),
				 rb_record, c, NULL);
	if (!b->rb) {
		err = -errno;
		say(c, "cannot read the BPF ring buffer: %s", strerror(-err));
		return err;
	}
	b->kagg = bpf_kagg_new(c, b->obj);
	if (b->fix.on) {
		struct bpf_map *m;

		/* kfix.bpf.h's kfix_pid: the .bss holds nothing else */
		bpf_object__for_each_map(m, b->obj) {
			const char *nm = bpf_map__name(m);
			size_t l = strlen(nm);

			if (l >= 4 && !strcmp(nm + l - 4, ".bss") &&
			    bpf_map__value_size(m) == sizeof(uint32_t))
				bpf_kfix_set(b->kagg, &b->fix, b->fixpl,
					     bpf_map__fd(m), b->evspec_fd);
		}
	}
	if (b->vtime) { /* before any hit can make a thread's clock */
		b->vtlink = bpf_program__attach_raw_tracepoint(
			bpf_object__find_program_by_name(b->obj,
							 "vtime_switch"),
			"sched_switch");
		if (!b->vtlink) {
			err = -errno;
			say(c, "cannot attach the vtimestamp program to "
			       "sched_switch: %s",
			    strerror(-err));
			return err;
		}
	}
	b->ready = true;
	return 0;
}

/* The program for the kernel providers (kprov.c): made ready if not yet. */
struct bpf_object *bpf_be_object(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	if (!b || b->load_failed || b->cg_on)
		return NULL;
	if (!b->ready && bpf_ready(c) < 0) {
		b->load_failed = true;
		return NULL;
	}
	return b->obj;
}

struct bpf_kagg *bpf_kagg_of(struct consumer *c)
{
	return c->bpf ? c->bpf->kagg : NULL;
}

/*
 * copyin(argN, size) with a constant size (mem.c): the program copies
 * the bytes when the probe fires, for the arguments the event records
 * (an address the site computes, not a constant), at most UBPF_MEMMAX
 * bytes, of one argument per event (the lowest-numbered: a copy per
 * argument cost the verifier four times the program's instructions),
 * and only while the record's worst case (every string and the copy
 * full) stays in the half of the scratch buffer its offsets are masked
 * to; any other copyin() reads the process later.  The
 * clauses are those of the whole program: an event records only the
 * arguments its own clauses read (needs), so others' copies of an
 * argument it does not record are never made.
 */
void ev_mem(struct consumer *c, struct tevent *e, struct ubpf_ev *s)
{
	uint32_t size[D_MAXARGS], best[D_MAXARGS] = {0};
	uint16_t m = 0;
	unsigned room = UBPF_SCRATCH / 2 - sizeof(struct ubpf_rec) -
			8u * s->nargs;

	for (unsigned ci = 0; ci < c->nclauses; ci++) {
		m |= d_clause_memargs(c->prog, ci, size);
		for (unsigned i = 0; i < D_MAXARGS; i++)
			if (size[i] > best[i])
				best[i] = size[i];
	}
	for (unsigned i = 0; i < UBPF_MAXARGS; i++)
		if (s->strmask & (1u << i))
			room -= 2 + UBPF_STRMAX;
	for (unsigned i = 0; i < UBPF_MAXARGS && i < s->nargs; i++) {
		unsigned n = best[i] < UBPF_MEMMAX ? best[i] : UBPF_MEMMAX;

		if (!(m & (1u << i)) || !(e->needs & (1u << i)) ||
		    s->a[i].kind == UBPF_A_NONE ||
		    s->a[i].kind == UBPF_A_CONST || 2 + n > room)
			continue;
		s->memmask = (uint16_t)(1u << i);
		s->memlen[i] = (uint16_t)n;
		s->memarg = (uint8_t)i;
		break; /* one per event: usdt.bpf.c's straight-line copy */
	}
	e->memmask = s->memmask;
}

/*
 * Before the load, at the run's first event e: whether the probe being
 * armed there has a plan the program can carry as constants
 * (bpf/kfix.bpf.h); bpf_ready() then loads it with them.
 */
void fix_try(struct consumer *c, struct tevent *e)
{
	struct consumer_bpf *b = c->bpf;
	struct ubpf_ev spec;

	b->fix_tried = true;
	ev_spec(e, &spec);
	for (size_t i = 0; i < c->nprobes; i++) {
		struct tprobe *p = c->probes[i];
		bool at = false;

		if (!p->enabled || p->file != e->file)
			continue;
		for (unsigned s = 0; s < p->noffs && !at; s++)
			at = p->offs[s] == e->off;
		if (!at)
			continue;
		b->fixpl = xcalloc(1, sizeof(*b->fixpl));
		if (!bpf_kfix_candidate(c, p, &spec, &b->fix, b->fixpl)) {
			free(b->fixpl);
			b->fixpl = NULL;
			memset(&b->fix, 0, sizeof(b->fix));
		}
		return;
	}
}

/*
 * copyout(), copyoutstr() (d_prog_copyout()): the program that writes
 * is loaded (usdt_hit_w), and an event whose clauses call it
 * (D_NEED_COPYOUT: an event's needs are those of every probe at its
 * site, so the event of a probe without the clause is another one)
 * writes at the argument's address at each hit.  A wide event (matching probes still to come)
 * writes nothing: its hits' clause faults instead (f->copyout 0).
 */
static bool copyout_wanted(const struct consumer *c)
{
	struct d_copyout co;
	const char *why;

	return c->prog && !c->cohold && !d_destructive_refused(c->prog) &&
	       d_prog_copyout(c->prog, &co, &why) > 0 && bpf_write_user_ok();
}

/*
 * Whether the kernel lets a uprobe's program write user memory: it
 * needs CAP_SYS_ADMIN and a kernel not locked down (lockdown's
 * integrity mode refuses bpf_probe_write_user(): kernel_lockdown(7)).
 * Asked once; consumer.c refuses copyoutstr() without it.
 */
bool bpf_write_user_ok(void)
{
	/* bpf_probe_write_user(0, the 8 zero bytes at fp - 8, 1); return 0.
	 * libbpf_probe_bpf_helper() takes the verifier's "cannot use
	 * helper" for a yes: a program is loaded instead. */
	static const struct bpf_insn v[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X,
		  .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K,
		  .dst_reg = BPF_REG_2,
		  .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_3,
		  .imm = 1 },
		{ .code = BPF_JMP | BPF_CALL,
		  .imm = BPF_FUNC_probe_write_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static int ok = -1;

	if (ok < 0) {
		int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "wuser", "GPL", v,
				       sizeof(v) / sizeof(v[0]), NULL);

		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	return ok == 1;
}

/*
 * Whether e's probed instruction does nothing (a USDT site's NOP, as
 * its file has it).  A uprobe's thread runs the probed instruction (out
 * of line, or emulated) before it takes any signal, so a thread stopped
 * at the hit has not moved past the probe only where that instruction
 * is a NOP: at a pid provider's instruction (a load of what copyout()
 * writes, at a function's entry) the write would come after it.
 */
static bool site_nop(const struct tevent *e)
{
	unsigned char b[4] = {0};
	int fd = open(e->file->upath ? e->file->upath : e->file->path,
		      O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1
			  : pread(fd, b, sizeof(b), (off_t)SITE_OFF(e->off));

	if (fd >= 0)
		close(fd);
#if defined(__aarch64__)
	return n == 4 && b[0] == 0x1f && b[1] == 0x20 && b[2] == 0x03 &&
	       b[3] == 0xd5;
#else
	/* nop; nopw/nopl (0f 1f), with an operand-size prefix (66) */
	return n == 4 && (b[0] == 0x90 || (b[0] == 0x0f && b[1] == 0x1f) ||
			  (b[0] == 0x66 && (b[1] == 0x90 || (b[1] == 0x0f &&
							     b[2] == 0x1f))));
#endif
}

void ev_copyout(struct consumer *c, struct tevent *e, struct ubpf_ev *s)
{
	struct d_copyout co;
	const char *why;

	/* held at the hit, wide or not, where it is exact: the clause
	 * writes */
	if (c->cohold) {
		e->co_late = (e->needs & D_NEED_COPYOUT) && !site_nop(e);
		s->hold = (e->needs & D_NEED_COPYOUT) && !e->co_late;
		return;
	}
	if (!(e->needs & D_NEED_COPYOUT) || e->wide ||
	    d_prog_copyout(c->prog, &co, &why) <= 0 || co.len > UBPF_WMAX ||
	    co.arg >= s->nargs || s->a[co.arg].kind == UBPF_A_NONE)
		return;
	if (co.src && (co.src - 1 >= s->nargs ||
		       s->a[co.src - 1].kind == UBPF_A_NONE || !co.rlen ||
		       co.rlen > UBPF_WMAX))
		return;
	s->warg = (uint8_t)co.arg;
	s->wlen = (uint16_t)co.len;
	if (co.src) { /* read at the hit, just before */
		s->wsrc = (uint8_t)co.src;
		s->wstr = co.str;
		s->wrlen = (uint16_t)co.rlen;
	} else {
		memcpy(s->wbytes, co.bytes, co.len); /* at most strlen + 1 */
	}
}

/* ------------------------------------------------------------------ */
/* Reading */

/*
 * The offset of a record's out area (UBPF_RF_KOUT, a record the plan ran
 * for): a uprobe's after the header, the arguments, vtimestamp and the
 * uid and gid, as bpf_decode() reads them; a kernel probe's
 * (UBPF_EV_KPROV) after the header, its struct ubpf_kctx, the arguments
 * and vtimestamp, as kprov.c's kprov_hit() reads them; with no side
 * effect (the reading rule of speculations in the kernel, kspec_read.c,
 * needs the area's ran word of every record before any is decoded);
 * false: none.
 */
static bool rec_kout_at(const uint8_t *raw, size_t len, size_t *off)
{
	struct ubpf_rec r;

	if (len < sizeof(r))
		return false;
	memcpy(&r, raw, sizeof(r));
	if (!(r.flags & UBPF_RF_KOUT) || !(r.flags & UBPF_RF_KAGG) ||
	    r.len > len)
		return false;
	*off = sizeof(r) + 8u * r.nargs + (r.flags & UBPF_RF_VTIME ? 8u : 0);
	if (r.ev & UBPF_EV_KPROV)
		*off += sizeof(struct ubpf_kctx);
	else
		*off += r.flags & UBPF_RF_CRED ? 8u : 0;
	return *off + sizeof(struct ubpf_kout) <= r.len;
}

bool bpf_kspec_on(struct consumer *c)
{
	struct bpf_kagg *k = bpf_kagg_of(c);

	return k && d_kplan_kspec(bpf_kagg_kp(k));
}

bool bpf_garr_on(struct consumer *c)
{
	struct bpf_kagg *k = bpf_kagg_of(c);

	return k && d_kplan_garrs_any(bpf_kagg_kp(k));
}

bool bpf_garr_clause(struct consumer *c, unsigned clause)
{
	struct bpf_kagg *k = bpf_kagg_of(c);

	return k && d_kplan_garr_clause(bpf_kagg_kp(k), clause);
}

int bpf_rcon_begun(struct consumer *c)
{
	return bpf_kagg_rcon(c, bpf_kagg_of(c));
}

/*
 * The pass's hand-over of hit h's tags (records.c's read_round(),
 * kspec_read.c): its area read in place, its probe found as its own run
 * finds it (a uprobe's by lin_hit_probe(), whose cache makes only what
 * that run would make; a kernel probe's by its index, kprov.c's
 * kprov_rec_probe(), as kprov_hit() finds it), the fire it needs only
 * its ids, CPU, stamp, probe and, where the event reads execname, the
 * record's comm (the held text of the area's integers and strings, the
 * default line's and JSON's CPU and probe: kplan_spec.c's
 * d_kplan_kspec()).  false: a uprobe's process is not known yet (the
 * run defers the hit); a kernel probe's hit is never deferred.
 */
bool bpf_kspec_fire(struct consumer *c, const struct hit *h)
{
	struct ubpf_rec r;
	struct hit_at at = { 0 };
	struct d_fire f = { 0 };
	struct tprobe *p = NULL;
	struct kprobe *kp = NULL;
	char comm[UBPF_KCOMM + 1] = "";
	size_t off;
	bool defer, execname;

	if (!rec_kout_at(h->raw, h->rawlen, &off))
		return true;
	memcpy(&r, h->raw, sizeof(r));
	if (r.ev & UBPF_EV_KPROV) {
		/* a kernel probe's, named by its index (kprov.c's
		 * kprov_hit()): every process's, none deferred */
		kp = kprov_rec_probe(c, r.ev);
		if (!kp || !kp_has_prog(kp) || !kp->nclauses)
			return true;
		execname = kp->needs & D_NEED_EXECNAME;
	} else {
		if (r.ev >= c->up.nevs)
			return true;
		at.file = c->up.evs[r.ev]->file;
		at.off = c->up.evs[r.ev]->off;
		p = lin_hit_probe(c, (pid_t)h->pid, h->time, &at, &defer);
		if (defer)
			return false;
		if (!p || !p->nclauses)
			return true;
		execname = c->up.evs[r.ev]->needs & D_NEED_EXECNAME;
	}
	f.cpu = (int)h->cpu;
	f.pid = (pid_t)h->pid;
	f.tid = (pid_t)h->tid;
	f.timestamp = h->time;
	/* the record's comm where the event reads it, as bpf_decode()
	 * and kprov_hit() copy it: a held record's execname */
	if (execname)
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(r.comm),
			 r.comm);
	f.execname = comm;
	f.probe = kp ? &kp->dp : &p->dp;
	cg_kspec_pass(c, kp ? kp->clauses : p->clauses,
		      kp ? kp->nclauses : p->nclauses,
		      kp ? kp->uclauses : p->uclauses,
		      kp ? kp->nuclauses : p->nuclauses, h->raw + off,
		      r.len - off, &f, h->time);
	return true;
}

int rb_record(void *ctx, void *data, size_t len)
{
	struct consumer *c = ctx;
	struct ubpf_rec r;
	struct hit h = {0};

	if (len < sizeof(r))
		return 0;
	memcpy(&r, data, sizeof(r));
	c->received++;
	h.time = r.time;
	h.pid = r.pid;
	h.tid = r.tid;
	h.cpu = r.cpu;
	h.rawlen = (uint32_t)len;
	h.rawoff = arena_put(c, data, len);
	h.kprov = (r.ev & UBPF_EV_KPROV) != 0; /* kprov.c's to decode */
	h.act = (r.flags & UBPF_RF_ACT) != 0;  /* records.c's after exit() */
	h.xwon = (r.flags & UBPF_RF_XWON) != 0;
	/* the area's ran word, for the reading rule of speculations in
	 * the kernel (kspec_read.c: UBPF_KOUT_SPEC, _CLOSE) */
	h.ks.stamp = r.time;
	{
		size_t off;

		if (rec_kout_at(data, len, &off))
			memcpy(&h.ks.ks, (const uint8_t *)data + off, 8);
	}
	hit_push(c, &h);
	if (c->read_cap && c->alen >= c->read_cap) {
		/* taken (libbpf moved past it); the rest on the next round */
		c->read_more = true;
		return -1;
	}
	return 0;
}

/*
 * The kernel's own misses: a probe whose program the kernel did not run
 * (bpf_prog_info.recursion_misses, Linux 5.12 on).  A classic
 * tracepoint's, a kprobe's or a uprobe event's program is run through
 * trace_call_bpf(), which runs nothing on a CPU where a BPF program (or
 * a bpf() map call, bpf_disable_instrumentation()) already raised
 * bpf_prog_active, and from 6.x counts it on the programs it skipped; a
 * raw tracepoint's program re-entered on its CPU is counted too.  No
 * record and no drops map entry is made for such a firing, so this is
 * the only count of it.  Where it happens: a task preempted inside a
 * bpf() map call (a preemptible kernel: preempt=full, lazy or RT)
 * leaves bpf_prog_active raised for the next task on its CPU, whose
 * system calls' tracepoints then run nothing (tests/run-cgen-preempt.sh
 * saw 3 of 6,000 lost on 6.1, which counts none); under preempt=none
 * no probe this backend arms can fire inside another program (a uprobe
 * or a system call cannot; a site link's uprobe_multi program is not
 * counted by the kernel, nor a perf event's, profile's and tick's).
 * Read for every program the run loaded, generated or the object's
 * (the unwinder, tail-called, is never the one skipped), once a second
 * with the drops (drops_read()) and at each read after the stop; what
 * the sum grew by is said as DTrace says a drop.  A kernel whose
 * bpf_prog_info ends before the field (info_len) says nothing;
 * DTRACE_MISSED_SAY=1 says, at the end, that none was missed and how
 * many programs were read (tests/run-kprov.sh: no nesting happens on a
 * preempt=none kernel, so that is what a test can see).
 */
#define MISSED_EVERY_NS 1000000000ull

static int prog_missed(int fd, uint64_t *n)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0 ||
	    len < offsetof(struct bpf_prog_info, recursion_misses) +
			  sizeof(info.recursion_misses))
		return -1;
	*n += info.recursion_misses;
	return 0;
}

static void misses_read(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;
	uint64_t now = now_ns(CLOCK_MONOTONIC), n = 0, d;
	struct bpf_program *p;
	size_t read = 0;

	if (!c->stopped && now < b->missed_next)
		return;
	b->missed_next = now + MISSED_EVERY_NS;
	for (size_t i = 0; i < b->ncg; i++)
		read += prog_missed(b->cg[i].fd, &n) == 0;
	if (b->obj)
		bpf_object__for_each_program(p, b->obj)
			read += prog_missed(bpf_program__fd(p), &n) == 0;
	/* none: said only where a test asks, to see the field was read */
	if (c->stopped && read && !b->missed_seen && !n &&
	    !b->missed_said && getenv("DTRACE_MISSED_SAY")) {
		b->missed_said = true;
		say(c, "BPF: no probe firing missed by the kernel "
		       "(recursion_misses of %zu program%s read)",
		    read, read == 1 ? "" : "s");
	}
	if (n <= b->missed_seen)
		return;
	d = n - b->missed_seen;
	b->missed_seen = n;
	say(c,
	    "%" PRIu64 " probe firing%s missed by the kernel (a BPF "
	    "program was already running on the CPU)",
	    d, d == 1 ? "" : "s");
}

/*
 * What the drops map grew by since the last read, per CPU: key 0 a full
 * ring's, key 1 (the generated programs' only: bpf_cg.c) a hit that
 * found the CPU's cgbuf held by the program it interrupted (cgen.c's
 * own_busy()).  Said as one, as DTrace says a drop whatever took its
 * room; -v says how many were the owner word's.
 */
static void drops_read(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;
	uint32_t key = 0;
	size_t n;
	uint64_t *v;

	if (!b || b->drops_fd < 0)
		return;
	n = (size_t)b->ncpus;
	v = xcalloc(2 * n, sizeof(*v));
	if (bpf_map_lookup_elem(b->drops_fd, &key, v) < 0)
		memset(v, 0, n * sizeof(*v));
	key = 1; /* none in the generic object's one entry */
	if (bpf_map_lookup_elem(b->drops_fd, &key, v + n) < 0)
		memset(v + n, 0, n * sizeof(*v));
	for (size_t cpu = 0; cpu < n; cpu++) {
		uint64_t d = v[cpu] - b->drops_seen[cpu];
		uint64_t o = v[n + cpu] - b->drops_seen[n + cpu];

		/* a full ring's: a record may be lost after its hit
		 * stepped a speculation's word (key 1's come before any
		 * step: cgen_out_need()), so the pairing of closes with
		 * generations is trusted no more (../d/spec.c) */
		if (d && bpf_kspec_on(c))
			d_kspec_lost(c->prog, stderr);
		if (!d && !o)
			continue;
		b->drops_seen[cpu] = v[cpu];
		b->drops_seen[n + cpu] = v[n + cpu];
		c->up.drops += d + o;
		if (o && c->o->verbose)
			say(c,
			    "%" PRIu64 " drops on CPU %zu (%" PRIu64
			    " of them: the CPU's buffer held by the program "
			    "the hit interrupted)",
			    d + o, cpu, o);
		else
			say(c, "%" PRIu64 " drops on CPU %zu", d + o, cpu);
	}
	free(v);
	misses_read(c);
}

/* A record's site (by its event's index) and what the program fetched. */
static bool bpf_decode(struct consumer *c, const struct hit *h,
		       struct d_fire *f, char *comm, size_t commlen,
		       struct hit_at *at)
{
	struct ubpf_rec r;
	struct tevent *e;
	size_t off;

	if (h->rawlen < sizeof(r))
		return false;
	memcpy(&r, h->raw, sizeof(r));
	if (r.ev >= c->up.nevs || r.len > h->rawlen ||
	    sizeof(r) + 8u * r.nargs > r.len)
		return false;
	e = c->up.evs[r.ev];
	at->file = e->file;
	at->off = e->off;
	c->kagg_rec = (r.flags & UBPF_RF_KAGG) != 0;
	f->cpu = (int)h->cpu;
	f->pid = (pid_t)h->pid;
	f->tid = (pid_t)h->tid;
	if (!c->kagg_rec && c->bpf) /* not armed: where self-> is kept? */
		bpf_kagg_tls_hit(c->bpf->kagg, r.ev, f->pid, f->tid, h->time);
	if (e->needs & D_NEED_EXECNAME)
		snprintf(comm, commlen, "%.*s", (int)sizeof(r.comm), r.comm);
	f->execname = comm;
	f->timestamp = h->time;
	for (unsigned i = 0; i < r.nargs && i < D_MAXARGS; i++)
		memcpy(&f->arg[i], h->raw + sizeof(r) + 8 * i, 8);
	off = sizeof(r) + 8u * r.nargs;
	if ((r.flags & UBPF_RF_VTIME) &&
	    !vtime_rec(c, h->raw, r.len, &off, f->tid, &f->vtimestamp))
		return false;
	/* copyoutstr(): written at the hit, or not (f->copyout 0); or
	 * the thread held there, written when the clause runs, let go
	 * after (records.c) */
	if (r.flags & UBPF_RF_WROTE)
		f->copyout = r.flags & UBPF_RF_WFAULT ? -1 : 1;
	if (r.flags & UBPF_RF_HELD) {
		f->copyout = 2;
		c->held_pid = f->pid;
		c->held_tid = f->tid;
	} else if (c->cohold && (e->needs & D_NEED_COPYOUT) &&
		   !c->cohold_said) {
		/* f->copyout 0: its copyout() faults (illegal operation) */
		c->cohold_said = true;
		if (e->co_late)
			say(c,
			    "%s at 0x%" PRIx64 ": its probed instruction "
			    "is no NOP, and the kernel runs it before the "
			    "thread can be held, so the write would come "
			    "after it: copyout( ) and copyoutstr( ) calls "
			    "fault there",
			    e->file->path, SITE_OFF(e->off));
		else
			say(c,
			    "pid %d: thread %d could not be held at its probe "
			    "(dtrace does not trace it, or it handles or "
			    "blocks SIGURG): its copyout( ) and copyoutstr( ) "
			    "calls fault there",
			    (int)f->pid, (int)f->tid);
	}
	if (r.flags & UBPF_RF_CRED) {
		if (!rec_cred(h->raw, r.len, &off, &f->uid, &f->gid))
			return false;
		f->cred = true;
	}
	/* printf()'s values computed at the hit (cgen_out.c) */
	if ((r.flags & UBPF_RF_KOUT) &&
	    !cg_out_rec(c, h->raw, r.len, &off, false))
		return false;
	if (r.flags & UBPF_RF_PPID) { /* else records.c finds it */
		uid_t pp;
		gid_t pad;

		if (!rec_cred(h->raw, r.len, &off, &pp, &pad))
			return false;
		f->ppid = (pid_t)pp;
		at->ppid = true;
		/* progenyof()'s chain, where the run took it (anc_on) */
		if (!rec_anc(h->raw, r.len, &off, (uint32_t)pad, f))
			return false;
	}
	if ((r.flags & UBPF_RF_ECRED) &&
	    !rec_ecred(h->raw, r.len, &off, f)) /* else: a run-time error */
		return false;
	if ((r.flags & UBPF_RF_SESS) && !rec_sess(h->raw, r.len, &off, f))
		return false; /* (without: a run-time error) */
	if (r.flags & UBPF_RF_PSARGS) { /* else NULL: a run-time error */
		const uint8_t *p;
		uint16_t n;

		if (!(p = rec_field(h->raw, r.len, &off, &n)))
			return false;
		f->psargs = psargs_text(p, n, c->psargs_buf);
	}
	for (unsigned i = 0; i < D_MAXARGS; i++) {
		const uint8_t *p;
		uint16_t n;

		if (!(r.strmask & (1u << i)))
			continue;
		if (!(p = rec_field(h->raw, r.len, &off, &n)))
			break;
		/*
		 * n counts the NUL; 0 is a fault.  A string that filled the
		 * copy may go on: copyinstr() reads it from the process.
		 */
		if (n > 0 && n < UBPF_STRMAX) {
			f->str[i] = (const char *)p;
			f->strlen[i] = strnlen(f->str[i], n - 1u);
		}
	}
	for (unsigned i = 0; i < D_MAXARGS; i++) { /* copyin(argN, n) */
		const uint8_t *p;
		uint16_t n;

		if (!(e->memmask & (1u << i)))
			continue;
		if (!(p = rec_field(h->raw, r.len, &off, &n)))
			break;
		if (n > 0) { /* 0: the read faulted, mem.c reads it later */
			f->mem[i] = p;
			f->memlen[i] = n;
		}
	}
	/* the plan's faults at the hit (cgen.c), before any stack */
	c->kfault = rec_kfault(h->raw, r.len, &off, r.flags);
	if (r.flags & UBPF_RF_USTACK) { /* registers, length, the stack */
		rec_ustack(h->raw, r.len, off, &c->ucap);
		if (r.flags & UBPF_RF_UPCS) { /* ... or the pcs walked */
			rec_upcs(&c->ucap);
			c->bpf->ustk_walked++;
		} else {
			c->bpf->ustk_copied++;
		}
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The backend */

/*
 * Can this kernel run the program, and may we load it?  A map first
 * (bpf() refused: ENOSYS, EPERM), then libbpf's probes, which load tiny
 * programs and maps of the kinds it uses: 1 yes, 0 no.  On a no,
 * c->be_why names what is missing and the kernel version that brought
 * it.
 */
static int bpf_probe(struct consumer *c)
{
	static const struct {
		int kind; /* 0 program type, 1 map type, 2 helper */
		int id;
		const char *what;
	} need[] = {
		{0, BPF_PROG_TYPE_KPROBE, "kprobe programs (4.1)"},
		{1, BPF_MAP_TYPE_RINGBUF, "BPF ring buffers (5.8)"},
		{2, BPF_FUNC_get_attach_cookie,
		 "bpf_get_attach_cookie() (5.15)"},
		/* the plans of kernel aggregation run under it */
		{2, BPF_FUNC_loop, "bpf_loop() (5.17)"},
	};
	/* bpf() itself: ENOSYS without it, EPERM where we may not */
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

	if (fd < 0) {
		int e = errno ? errno : EINVAL;

		snprintf(c->be_why, sizeof(c->be_why), "creating a BPF map: %s",
			 strerror(e));
		return -e;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int r;

		errno = 0;
		r = need[i].kind == 0
			    ? libbpf_probe_bpf_prog_type(
				      (enum bpf_prog_type)need[i].id, NULL)
		    : need[i].kind == 1
			    ? libbpf_probe_bpf_map_type(
				      (enum bpf_map_type)need[i].id, NULL)
			    : libbpf_probe_bpf_helper(
				      BPF_PROG_TYPE_KPROBE,
				      (enum bpf_func_id)need[i].id, NULL);
		if (r == 1)
			continue;
		/* a refusal, not a missing feature (that is EINVAL) */
		if (r == 0 && errno && errno != EINVAL && errno != EOPNOTSUPP)
			r = -errno;
		if (r < 0) {
			snprintf(c->be_why, sizeof(c->be_why),
				 "probing the kernel for %s: %s", need[i].what,
				 strerror(-r));
			return r;
		}
		snprintf(c->be_why, sizeof(c->be_why), "the kernel has no %s",
			 need[i].what);
		return -EOPNOTSUPP;
	}
	return 0;
}

static void bpf_free(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	cg_off(c);
	ring_buffer__free(b->rb);
	bpf_kagg_free(b->kagg);
	free(b->fixpl);
	bpf_link__destroy(b->vtlink);
	bpf_object__close(b->obj);
	free(b->anchors);
	free(b->drops_seen);
	free(b);
	c->bpf = NULL;
}

/*
 * Whether every description of every clause names dtrace:::BEGIN or
 * dtrace:::END (provider dtrace or any, no module, no function): then
 * the run traces nothing the program would run for.  A USDT probe that
 * happens to be named BEGIN would still match "BEGIN"; its first event
 * loads the program then (bpf_be_object()), as any run's would.
 */
static bool traces_nothing(const struct consumer *c)
{
	for (unsigned ci = 0; ci < c->nclauses; ci++)
		for (unsigned j = 0; j < c->ndescs[ci]; j++) {
			const struct dt_desc *d = &c->descs[ci][j];

			if ((strcmp(d->name, "BEGIN") &&
			     strcmp(d->name, "END")) ||
			    d->mod[0] || d->func[0] ||
			    (d->prov[0] && strcmp(d->prov, "dtrace")))
				return false;
		}
	return true;
}

static int bpf_open(struct consumer *c)
{
	struct consumer_bpf *b;
	bool idle = traces_nothing(c);
	int err, n;

	lb.named = c->be_want && !strcmp(c->be_want, consumer_bpf_ops.key);
	libbpf_set_print(libbpf_quiet);
	/* nothing to trace: no feature probe, no program, no map */
	err = idle ? 0 : bpf_probe(c);
	if (err)
		return err;
	n = libbpf_num_possible_cpus();
	if (n <= 0) {
		snprintf(c->be_why, sizeof(c->be_why),
			 "counting the possible CPUs: %s",
			 strerror(n < 0 ? -n : ENODEV));
		return n < 0 ? n : -ENODEV;
	}
	b = xcalloc(1, sizeof(*b));
	b->evspec_fd = b->drops_fd = -1;
	b->ncpus = n;
	b->drops_seen = xcalloc(2 * (size_t)n, sizeof(*b->drops_seen));
	c->bpf = b;
	/* the ring -x bufsize asks for; a #pragma may change it later */
	b->cgm.rb = b->cgm.drops = b->cgm.buf = b->cgm.zero = -1;
	/* nothing yet for a run the generator may take: its first event */
	err = idle || cg_fits(c)
		      ? 0
		      : bpf_obj_load(c, rb_bytes(c, consumer_bufsize(
							c->o->bufsize)));
	if (err) {
		bpf_free(c);
		return err;
	}
	c->up.scope_only = true;
	c->up.event_new = ev_new;
	site_links_on(c);
	return up_open(c);
}

/*
 * uprobe.c arms pr's sites; then the kernel's plans go in (bpf_agg.c).
 * Where the kernel keeps self-> variables (or may: the generated
 * programs are decided at the first event), pr is held still
 * (freeze.c) until both are in, not only while its sites go in
 * (up_enable()): a hit in between would run in user space, with user
 * space's self-> variables, and a -p process fires at once.
 */
static void bpf_enable(struct consumer *c, struct tproc *pr)
{
	struct frozen *fz = NULL;
	size_t nfz = 0;
	bool held = pr->held;

	if (c->bpf) /* pr's hits may start with the arming */
		bpf_kfix_off(c->bpf->kagg);
	/* a -p process held from its first arming on (up_enable()) */
	if (pr->target && !pr->created && !c->released &&
	    (c->be->caps & BE_CAP_HOLD))
		(void)dlhold_start(c, pr);
	if (c->bpf && !held &&
	    (!c->bpf->cg_tried || bpf_kagg_keeps_tls(c->bpf->kagg))) {
		nfz = proc_freeze(pr->pid, &fz, 0);
		pr->held = nfz > 0; /* up_enable() need not hold it */
	}
	up_enable(c, pr);
	if (c->bpf)
		bpf_kagg_enable(c, c->bpf->kagg, pr);
	pr->held = held;
	if (nfz)
		proc_thaw(fz, nfz);
	else
		free(fz);
}

static void bpf_proc_exit(struct consumer *c, struct tproc *pr)
{
	/* nothing runs to hit them: closed by a thread */
	(void)c->up.site_unlink(c, pr->pid, true);
	up_proc_exit(c, pr);
	if (c->bpf)
		bpf_kagg_proc_exit(c, c->bpf->kagg, pr->pid);
}

/*
 * pr exec'd: its site links were closed at its exec stop (dlhold.c),
 * this is for one that came by another way
 */
static void bpf_proc_exec(struct consumer *c, struct tproc *pr)
{
	(void)c->up.site_unlink(c, pr->pid, false);
	up_proc_exec(c, pr);
}

/* records.c, each refresh: the kernel's self-> of threads that exited,
 * found, then taken after a read (records.c's threads_reap()); and the
 * fork program's entries of children gone, which no record reads */
size_t bpf_tls_gone(struct consumer *c)
{
	if ((c->be == &consumer_bpf_ops || c->be_kernel == &consumer_bpf_ops) &&
	    c->bpf) {
		bpf_kagg_fork_reap(c->bpf->kagg);
		return bpf_kagg_tls_gone(c->bpf->kagg);
	}
	return 0;
}

void bpf_tls_reap(struct consumer *c)
{
	if ((c->be == &consumer_bpf_ops || c->be_kernel == &consumer_bpf_ops) &&
	    c->bpf)
		bpf_kagg_tls_reap(c, c->bpf->kagg);
}

/*
 * The kernel's aggregation where this run's backend (or its kernel
 * providers' backend) is BPF's, else NULL: what kprov.c's calls below
 * act on (each bpf_kagg_*() does nothing with NULL)
 */
static struct bpf_kagg *kagg_run(struct consumer *c)
{
	if (!c->bpf ||
	    (c->be != &consumer_bpf_ops && c->be_kernel != &consumer_bpf_ops))
		return NULL;
	return c->bpf->kagg;
}

/* kprov.c: the horizon, where the kernel's clauses stop (kplan_exit.c) */
void bpf_horizon(struct consumer *c, uint64_t h)
{
	bpf_kagg_horizon(kagg_run(c), h);
}

/* kprov.c: user space ran exit(), the kernel's programs stop (kplan_exit.c) */
void bpf_exited(struct consumer *c)
{
	if (kagg_run(c))
		c->xact_at = bpf_kagg_exited(c, kagg_run(c));
}

/* kprov.c, records.c: printa() at tick-N (kplan_exit.c) */
void bpf_barrier(struct consumer *c)
{
	bpf_kagg_barrier(c, kagg_run(c));
}

void bpf_fold(struct consumer *c, uint64_t at)
{
	bpf_kagg_fold(c, kagg_run(c), at);
}

/* kprov.c: intervals in place of the horizon (kplan_exit.c) */
uint64_t bpf_ival(struct consumer *c, uint64_t *base)
{
	return bpf_kagg_ival(kagg_run(c), base);
}

void bpf_ival_exit(struct consumer *c, uint64_t at)
{
	bpf_kagg_ival_exit(kagg_run(c), at);
}

void bpf_tls_move_all(struct consumer *c)
{
	bpf_kagg_tls_move_all(kagg_run(c));
}

static void bpf_aggs(struct consumer *c)
{
	if (c->bpf)
		bpf_kagg_merge(c, c->bpf->kagg);
}

static size_t bpf_poll_fds(struct consumer *c, struct pollfd *pfd, size_t max)
{
	struct consumer_bpf *b = c->bpf;

	if (!b->rb)
		return 0;
	if (!pfd)
		return 1;
	if (!max)
		return 0;
	/* poll() of the epoll descriptor, never epoll_wait(): the ring
	 * stays on its ready list until a poll finds it empty, which the
	 * wake-up rule needs (bpf/rbwake.bpf.h) */
	pfd[0] = (struct pollfd){.fd = ring_buffer__epoll_fd(b->rb),
				 .events = POLLIN};
	return 1;
}

static void bpf_drain(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	if (b->rb)
		(void)ring_buffer__consume(b->rb);
	drops_read(c);
	uw_poll(c); /* the unwinder's loading, if it has ended */
	/*
	 * Then the fork tracker's records: a child's FORK record was
	 * written before the child ran, so every hit just read has its
	 * fork in the tree (lineage.c).
	 */
	up_drain(c);
}

/*
 * No record is written once the program is off every event.  Each event
 * is disabled first (at once), then its link and the event closed from
 * many threads (close_many(): each close that ends a uprobe waits for
 * grace periods).  The links are disconnected, so that libbpf, which
 * owns the event's descriptor in its perf link, closes nothing.
 */
static void bpf_stop(struct consumer *c)
{
	up_stop(c);
	if (c->bpf)
		links_destroy(c->bpf);
}

/* Every drop was reported as it was read (drops_read()). */
static void bpf_stats(struct consumer *c)
{
	if (c->bpf && c->o->verbose)
		cg_say(c);
	up_close_procs(c);
}

static void bpf_close(struct consumer *c)
{
	struct consumer_bpf *b = c->bpf;

	if (b) {
		links_destroy(b);
		up_close(c);
		bpf_free(c);
	}
}

const struct consumer_backend_ops consumer_bpf_ops = {
	.name = "BPF",
	.key = "bpf",
	.caps = BE_CAP_UPROBES | BE_CAP_KPROV | BE_CAP_VTIME | BE_CAP_PSARGS |
		BE_CAP_HOLD | BE_CAP_CRED,
	.open = bpf_open,
	.enable = bpf_enable,
	.target = up_track, /* a stack's mapping records */
	.poll_fds = bpf_poll_fds,
	.drain = bpf_drain,
	.decode = bpf_decode,
	.proc_exit = bpf_proc_exit,
	.proc_exec = bpf_proc_exec,
	.stop = bpf_stop,
	.aggs = bpf_aggs,
	.stats = bpf_stats,
	.close = bpf_close,
};
