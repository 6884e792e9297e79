/* SPDX-License-Identifier: MIT */
/*
 * kplan.h - aggregating in the kernel, the D program's side: which
 * clauses a BPF program can run in the traced thread instead of user
 * space (d_kplan_new()), their instructions for one probe
 * (d_kplan_emit(), in the encoding of bpf/kagg_bpf.h), and folding
 * what the kernel aggregated into the program's aggregations before
 * anything prints them (d_kplan_merge()).  kplan.c says which clauses
 * qualify and why the output is the same either way (and lists the
 * files that say the rest: kplan_exit.c, kplan_spec.c, ...).  For
 * bpf_agg.c.
 */
#ifndef USDT_DTRACE_KPLAN_H
#define USDT_DTRACE_KPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../d/dlang.h"
#include "bpf/kagg_bpf.h"

struct d_kplan;

/*
 * What the kernel can run of prog: never NULL; with no clause at all
 * when the program rules it out (exit(), printa(), clear() or trunc()
 * in a clause of a traced probe).  D_KPLAN_VARS: also clauses with
 * self-> and this-> variables and timestamp (UBPF_K_TIME, VLD, VST),
 * which only generated programs (consumer/cgen.c) run; user, if not
 * NULL, marks per clause those that fire in user space as well (the
 * clauses of dtrace:::ERROR, which runs in the faulting thread's
 * context): with D_KPLAN_VARS they run in user space only, and so do
 * the variables they touch.
 */
#define D_KPLAN_VARS 0x1
/*
 * D_KPLAN_PPID (with D_KPLAN_VARS): the kernel's BTF says where
 * task_struct keeps the parent (psargs.c's ppid_offs()), so a clause may
 * read ppid (UBPF_K_PPID, the offsets d_kplan_ppid() gives, set before
 * d_kplan_emit()); without it ppid keeps its clause in user space.
 */
#define D_KPLAN_PPID 0x2
/*
 * D_KPLAN_ECRED, D_KPLAN_SESS (with D_KPLAN_VARS): the BTF says where
 * the effective ids (psargs.c's ecred_offs()) and the process group and
 * session (sess_offs()) are, so a clause at a uprobe may read
 * curpsinfo->pr_euid and pr_egid (UBPF_K_ECRED), pr_pgid and pr_sid
 * (UBPF_K_SESS), at the offsets d_kplan_ecred() and d_kplan_sess()
 * give, set before d_kplan_emit(); without them those keep their clause
 * in user space.  (A kernel probe's clauses never read them in a plan
 * of generated programs: cgen_kprov.c's kprov_cg_fits() sends such a
 * run to the generic programs.)
 */
#define D_KPLAN_ECRED 0x4
#define D_KPLAN_SESS 0x8
/*
 * D_KPLAN_VTIME (with D_KPLAN_VARS): the run reads vtimestamp and its
 * generated programs keep the clock (cgen_rec.c), so a clause may read
 * it (UBPF_K_VTIME, one value a hit, the record's; where the kernel
 * keeps self-> variables each read a fault site, kplan_vars.c's
 * vfault, or none where one cannot be); without it vtimestamp keeps
 * its clause in user space.
 */
#define D_KPLAN_VTIME 0x10
struct d_kplan *d_kplan_new(struct d_prog *prog, unsigned flags,
			    const bool *user, const bool *ticks,
			    const bool *traced);
/*
 * ticks, if not NULL, marks per clause those that fire at tick-N
 * probes alone (dtrace's timers): with D_KPLAN_VARS their exit(),
 * printa(), clear() and trunc() do not keep the others out of the
 * kernel, which then stops at a
 * horizon (kplan_exit.c's "Why exit()"): d_kplan_horizon() says so, and
 * the kernel keeps no self-> variable.
 */
bool d_kplan_horizon(const struct d_kplan *k);
/*
 * D_KPLAN_IVAL (with D_KPLAN_VARS): the run may key the kernel's
 * aggregations by their interval instead (kplan_exit.c's "Intervals"):
 * the tick-N probes with a clause that may exit() or read or reset
 * aggregations have periods that are multiples of the shortest, no
 * clause speculates, and the run is not the in-process activation's.
 * The kernel then keeps self-> variables beside the report where the
 * program has one, or always with D_KPLAN_IVAL_ALL (DTRACE_KAGG_IVAL=1,
 * for tests); d_kplan_ival() says so, and d_kplan_horizon() is then
 * true too (the maps of the horizon, its barrier and the activity are
 * made as for one).
 */
#define D_KPLAN_IVAL 0x20
#define D_KPLAN_IVAL_ALL 0x40
bool d_kplan_ival(const struct d_kplan *k);
/*
 * With D_KPLAN_VARS, walltimestamp is the hit's timestamp plus off, the
 * consumer's wall_offset (CLOCK_REALTIME - CLOCK_MONOTONIC at its
 * start), as records.c's hit_prep() computes it for a record: set
 * before d_kplan_emit().
 */
void d_kplan_wall(struct d_kplan *k, int64_t off);
/* ... and ppid's offsets, ppid_offs()'s (each + 1) */
void d_kplan_ppid(struct d_kplan *k, const uint32_t o[2]);
/* ... ecred_offs()'s (cred, euid, egid, each + 1) ... */
void d_kplan_ecred(struct d_kplan *k, const uint32_t o[3]);
/* ... and sess_offs()'s (signal, pids, numbers, nr, each + 1) */
void d_kplan_sess(struct d_kplan *k, const uint32_t o[4]);
/*
 * traced, if not NULL, marks per clause those whose every description
 * names a provider of uprobe sites (every hit of theirs runs a
 * generated program): with D_KPLAN_VARS a clause of theirs that calls
 * exit() after nothing that can fault, its predicate one the hit alone
 * decides (d_kplan_gated()'s), does not keep the others out of the
 * kernel: d_kplan_kexit() says so, d_kplan_xclause() names such a
 * clause, which runs in user space, the winner's plan ending at its
 * place (kplan_exit.c's "exit() at a traced probe").
 */
bool d_kplan_kexit(const struct d_kplan *k);
bool d_kplan_xclause(const struct d_kplan *k, unsigned clause);
/*
 * A clause of a traced probe calls exit() where the kernel cannot decide
 * it at the hit, so nothing runs in the kernel (but gates): why, for -v,
 * and the first such clause into *clause; NULL when none did
 */
const char *d_kplan_xwhy(const struct d_kplan *k, unsigned *clause);
/* printa(), clear(), trunc() (or an action kplan.c does not know) in
 * a clause other than a tick-N one's kept every clause out of the
 * kernel: that clause's statement, for -v, into buf (kplan_why.c);
 * NULL if not so */
const char *d_kplan_awhy(const struct d_kplan *k, unsigned *clause, char *buf,
			 size_t len);
/* Does the clause read the traced process by an address (copyin() of
 * anything but argN, copyinstr() of anything but an argument,
 * copyinto()): where user space runs it, that read comes when dtrace
 * runs the record, not at the probe (kplan_spec.c's node_late()) */
bool d_kplan_late(const struct d_prog *p, unsigned clause);
/* Why traced clause `clause` runs in user space, from its record, for
 * -v, into buf (kplan_why.c: the first of kp_clause_ok()'s tests that
 * fails, replayed on the plan as decided); NULL where the kernel runs
 * it, it speculates (d_kplan_spec_why()), or a reason above kept every
 * clause out (d_kplan_xwhy(), d_kplan_awhy()) */
const char *d_kplan_why(const struct d_kplan *k, unsigned clause, char *buf,
			size_t len);
/* ... and appends to pl its test: its predicate, then UBPF_K_REC (REC
 * alone without one); false when it does not fit */
bool d_kplan_xtest(const struct d_kplan *k, unsigned clause,
		   const struct d_probe *probe, struct ubpf_kplan *pl);
/* ... and appends to pl the winner's end at its place, UBPF_K_XEND,
 * after its predicate as a PRED past it where several (the probe has
 * more than one such clause) and it has one; false, pl unchanged,
 * when it does not fit */
bool d_kplan_xend(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl,
		  bool several);
/*
 * Clause clause may call exit(), or printa(), clear() or trunc(), and
 * nothing else keeps it from the kernel: at a tick-N probe, a firing
 * the horizon stops at (kplan_exit.c's "Why exit()" and "printa() at
 * tick-N")
 */
bool d_kplan_exits(const struct d_prog *prog, const bool *ticks,
		   unsigned clause);
/* ... and may read or reset aggregations, or mentions a global the
 * kernel counts: the kernel's are folded into user space's at its
 * firing, before it runs.  ticks: the clauses all of whose descriptions
 * are tick-N (kprov.c's kprov_tick_clause()), or NULL; a global is
 * counted for them (kplan_gcnt.c) */
bool d_kplan_folds(const struct d_prog *prog, const bool *ticks,
		   unsigned clause);
/*
 * Clause clause uses speculations (speculation(), speculate(), commit(),
 * discard()): user space runs it, from each hit's record, since the
 * generated programs keep no speculative buffers (kplan_spec.c's
 * "Speculations")
 */
bool d_kplan_specs(const struct d_prog *prog, unsigned clause);
/*
 * ... or touches a self-> or this-> variable such a clause touches
 * (or one a clause so tied touches: it runs from the records too), and
 * reads the process's memory by an address (copyinto(), copyin() or
 * copyinstr() of other than an argument): on that path it reads when
 * dtrace runs the hit's record, not at the probe (-v says so).  Of
 * plan k's program: the ties, a closure over the program, are made at
 * the first ask and kept in k.
 */
bool d_kplan_specs_late(struct d_kplan *k, unsigned clause);
/*
 * A speculating clause user space runs (its predicate, speculate()) but
 * whose printf() and trace() values the kernel computes at the hit
 * (kplan_spec.c's "Speculations"): d_kplan_out_area() is true for it, and
 * d_kplan_out_run() runs it through d_run_spec().
 */
bool d_kplan_sout(const struct d_kplan *k, unsigned clause);
/* ... whose predicate the kernel computes at the hit too (its truth in
 * the area, before the values; user space tests that, not the
 * predicate: kplan_spec.c's "Speculations") */
bool d_kplan_spred(const struct d_kplan *k, unsigned clause);
/*
 * Speculations in the kernel (kplan_spec.c's d_kplan_kspec(); doc/
 * DESIGN.md's "Speculations in the kernel: the build in steps", step
 * 3): the buffers' words are the kernel's (the map cgspec, nspec u64),
 * every clause with speculation(), speculate(), commit() or discard()
 * a kernel clause writing its steps' tags (struct ubpf_kspec) into its
 * out area, which dtrace hands to ../d/spec.c's held generations
 * (records.c, cgen_out.c's cg_kspec_run()).  All or nothing for the
 * program: else every speculation is user space's, as before, and
 * d_kplan_kspec_why() says the first test that failed (NULL where the
 * program has no speculation, or they are the kernel's).
 * d_kplan_kspec_clause(): clause is one of them.
 */
bool d_kplan_kspec(const struct d_kplan *k);
const char *d_kplan_kspec_why(const struct d_kplan *k);
bool d_kplan_kspec_clause(const struct d_kplan *k, unsigned clause);
/* ... nspec, the words cgspec holds */
unsigned d_kplan_kspec_n(const struct d_kplan *k);
/*
 * Run constants in the kernel (kplan_fkey.c): how many slots of cgrcon
 * the plans read (UBPF_K_GLD), and, after BEGIN, slot's value; false
 * where BEGIN left the variable another type than the plans read it
 * as (why says so: the run cannot go on exactly).
 */
unsigned d_kplan_nrcon(const struct d_kplan *k);
bool d_kplan_rcon_value(const struct d_kplan *k, unsigned slot, uint64_t *val,
			char *why, size_t wlen);
/*
 * A kernel speculating clause's out area (data, len: d_kplan_out_bytes()
 * of it): its tags, in statement order (an if's branches in their
 * place, a tag of a branch not taken unreached: act 0), into t (at most
 * max; how many),
 * kind KS_TAKE (speculation()), KS_STEP (speculate()), KS_COMMIT,
 * KS_DISCARD (also struct kstmt's spec, KS_NONE none); and the
 * record a speculate()'s clause makes of its values, as its printf()
 * and trace() would print it (../d/stmt.c's d_run_kspec()), into *rec
 * (malloc()ed, *rlen bytes): false where it makes none, or where the
 * walk meets a fault (a hole: kplan_out.c's hold mode, nothing
 * reported, no late re-read).  d_kplan_kspec_fault(): the first fault
 * on that walk's path, its action (the interpreter's numbering) and
 * address, for the place to report (cgen_out.c's cg_kspec_run());
 * false where the walk meets none.  d_kplan_kspec_own(): the clause's
 * own record (no speculate() reached: doc/DESIGN.md's "Own records"),
 * stepped where a commit() or discard() was reached, written to out
 * at the hit's place; none where the walk meets a fault, but where
 * faulted (a fault after a reached commit(), whose clause prints no
 * value); false where none is written.
 */
enum { KS_NONE, KS_TAKE, KS_STEP, KS_COMMIT, KS_DISCARD };
struct d_kstag {
	uint8_t kind;
	uint32_t id, act;
	uint64_t n;
};
unsigned d_kplan_kspec_tags(const struct d_kplan *k, unsigned clause,
			    const uint8_t *data, size_t len, struct d_kstag *t,
			    unsigned max);
bool d_kplan_kspec_text(const struct d_kplan *k, unsigned clause,
			const uint8_t *data, size_t len, const struct d_fire *f,
			char **rec, size_t *rlen);
bool d_kplan_kspec_fault(const struct d_kplan *k, unsigned clause,
			 const uint8_t *data, size_t len,
			 const struct d_fire *f, int *action, uint64_t *addr);
bool d_kplan_kspec_own(const struct d_kplan *k, unsigned clause,
		       const uint8_t *data, size_t len, const struct d_fire *f,
		       bool stepped, bool faulted, FILE *out);
/* A clause with speculate() that is neither a kernel nor a sout one:
 * why not, for -v (the first reason found); NULL for any other */
const char *d_kplan_spec_why(const struct d_kplan *k, unsigned clause);
/* ... its values' instructions at probe into pl (an out area's, then
 * ODONE: no test of the predicate); false where they do not fit */
bool d_kplan_sout_emit(const struct d_kplan *k, unsigned clause,
		       const struct d_probe *probe, struct ubpf_kplan *pl);
/*
 * A clause user space runs whose record carries the values of the
 * self-> integers the kernel keeps that it only reads, as they were at
 * its place among the probe's clauses (kplan_vin.c's "Shared self->
 * variables"): d_kplan_out_area() is true for it; d_kplan_vin_emit()
 * puts its instructions at probe into pl (each value an OUT, then
 * ODONE), false where they do not fit; d_kplan_vin_put() sets those
 * variables of thread tid in dtrace to the values of its area (data,
 * len) and returns what they held, for d_kplan_vin_back() to put back
 * (and free) once the clause ran; NULL where the area is not the
 * plan's.
 */
bool d_kplan_vin(const struct d_kplan *k, unsigned clause);
/* ... whose predicate the kernel tests at its place: its ran bit unset
 * where it failed, the record written for it only where it held (a
 * record gate of its own: bpf_agg.c's plan_of()) */
bool d_kplan_vpred(const struct d_kplan *k, unsigned clause);
/* ... and reads in it a self-> string the kernel keeps, which dtrace has
 * no copy of: it runs the clause on the kernel's truth, testing nothing
 * (kplan_vin.c's vin_ptest(), records.c) */
bool d_kplan_vtruth(const struct d_kplan *k, unsigned clause);
/* ... and carries values of self-> variables in its record (a vtruth
 * one may carry none: its predicate's truth alone) */
bool d_kplan_vin_vals(const struct d_kplan *k, unsigned clause);
bool d_kplan_vin_emit(const struct d_kplan *k, unsigned clause,
		      const struct d_probe *probe, struct ubpf_kplan *pl);
struct dv;
struct dv *d_kplan_vin_put(const struct d_kplan *k, unsigned clause,
			   const uint8_t *data, size_t len, int32_t tid);
void d_kplan_vin_back(const struct d_kplan *k, unsigned clause, int32_t tid,
		      struct dv *save);
/*
 * An entry of the kernel's copy of thread tid's self-> variables put
 * into user space's (bpf_agg_cgen.c's bpf_kagg_tls_move()): cgtls's, of
 * variable var (its value v); cgtlsa's, word its variable word (struct
 * ubpf_kvakey's var: the D variable, its keys' count and types) and
 * keys its keys; cgtlss's, the n bytes at s.  Each a value of the type
 * every store gives the variable, as d_kplan_vin_put() makes it (an
 * integer 0 deletes it, as a store of 0 does).
 */
void d_kplan_tls_put(const struct d_kplan *k, uint32_t var, int32_t tid,
		     int64_t v);
void d_kplan_tlsa_put(const struct d_kplan *k, uint32_t word, int32_t tid,
		      const int64_t *keys, int64_t v);
void d_kplan_tlss_put(const struct d_kplan *k, uint32_t var, int32_t tid,
		      const char *s, size_t n);
void d_kplan_free(struct d_kplan *k);

/* Clause clause runs in the kernel wherever its plan fits. */
bool d_kplan_clause(const struct d_kplan *k, unsigned clause);

/*
 * ... and reads or writes self-> variables the kernel keeps (of which
 * d_kplan_tlsvar() says, by variable index < d_kplan_nvars()): its plan
 * must run wherever it fires, never in user space instead; kvars: any
 * variable the kernel keeps, this-> too: it must not run in user space
 * for a hit whose other clauses touching them the kernel runs (at one
 * probe a this-> variable is user space's with all of them:
 * d_kplan_here(), below).
 */
bool d_kplan_tls(const struct d_kplan *k, unsigned clause);
/* the arguments whose strings clause reads (d_clause_strargs()) */
uint16_t d_kplan_strargs(const struct d_kplan *k, unsigned clause);
bool d_kplan_kvars(const struct d_kplan *k, unsigned clause);
/* Does clause of p touch a variable that outlives a firing's clauses at
 * one probe: a self-> variable or array, or a global array (scalars
 * kept in the kernel are added to alone or constants, which each path
 * keeps exactly: kplan_gcnt.c, kplan_fkey.c)?  bpf_agg_cgen.c's
 * user[] beside the in-process activation. */
bool d_kplan_shared_vars(const struct d_prog *p, unsigned clause);
bool d_kplan_tlsvar(const struct d_kplan *k, unsigned var);
unsigned d_kplan_nvars(const struct d_kplan *k);

/*
 * Append clause's instructions, for a firing of probe, to pl; false
 * (pl unchanged) when they do not fit: the clause then runs in user
 * space for that probe.
 */
bool d_kplan_emit(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl);

/*
 * Clauses typed per probe (kplan_here.c).  d_kplan_fits(): does clause,
 * which the kernel runs, fit probe alone (its args[N] of the kinds its
 * kernel form needs there, a probe's name as a key within a key's
 * room); not: the emitter's first reason into why.  d_kplan_here():
 * which of probe's clauses cl (n of them, in order) the kernel runs
 * there, into here[]: those the kernel runs that fit it, with the
 * clauses before them in one plan, less the closure over this->
 * variables (one touched by a clause user space runs at probe is user
 * space's there, and so is every clause there touching it); the reason
 * a clause the kernel runs is not here into why[i] (why may be NULL).
 * false: a speculating clause there reads a this-> variable that is
 * user space's there (its plan must fit: the event is refused; the
 * clause's why[] says which variable, for bpf_kagg_unfit()).
 * d_kplan_kself(): clause keeps a self-> variable in the kernel, and so
 * cannot be user space's at one probe only.
 */
/*
 * d_kplan_op_strargs(): the argument strings plan instruction o reads
 * from the copies cgen_sarg.c's seq_read() makes before the plan's
 * first clause (SEQ, SKEY, SKEY2, AKEY, CACMP, SMKEY, VACMP, SLEN, and R2's
 * OSTR and SSTR flagged UBPF_KF_APRE) into a, their count (0 to 2);
 * kplan_emit.c's clause_emit() counts them against UBPF_KSTRARGS.
 * d_kplan_apre(): the argument clause (the kernel's) copies ahead at
 * the uprobe sites it fires at (R2, for -v), else -1.
 */
unsigned d_kplan_op_strargs(const struct ubpf_kop *o, uint8_t a[2]);
int d_kplan_apre(const struct d_kplan *k, unsigned clause);
/*
 * -v: the globals the kernel counts in the clauses ran[] says it ran
 * (kplan_gcnt.c), their names into buf, ", " between; how many
 */
unsigned d_kplan_gcounted(const struct d_kplan *k, const bool *ran, char *buf,
			  size_t len);

/*
 * Global arrays the kernel keeps (kplan_garr.c): any?  Does clause touch one
 * (records.c does not run it from an unflagged record)?  -v: those the
 * clauses ran[] says it ran touch, their names into buf, ", " between;
 * how many.
 */
bool d_kplan_garrs_any(const struct d_kplan *k);
bool d_kplan_garr_clause(const struct d_kplan *k, unsigned clause);
unsigned d_kplan_garrs(const struct d_kplan *k, const bool *ran, char *buf,
		       size_t len);

#define D_KPLAN_WHY 160
bool d_kplan_fits(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, char *why, size_t wlen);
bool d_kplan_here(const struct d_kplan *k, const struct d_probe *probe,
		  const unsigned *cl, unsigned n, bool *here,
		  char (*why)[D_KPLAN_WHY]);
bool d_kplan_kself(const struct d_kplan *k, unsigned clause);

/*
 * Record gates (D_KPLAN_VARS): d_kplan_gated() says whether clause,
 * which runs in user space, has a predicate the generated program can
 * test at the hit (integers, no variables: kplan.c's gate_ok()); then
 * d_kplan_gate() appends to pl that predicate and UBPF_K_REC, which
 * marks the hit as needing its record when the predicate held.  A
 * probe whose every user-space clause is gated writes a record only
 * for the hits where one of them may run (pl->record UBPF_KREC_GATE).
 * false (pl unchanged) when the clause cannot be gated or its test
 * does not fit.
 */
bool d_kplan_gated(const struct d_kplan *k, unsigned clause);
bool d_kplan_gate(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl);

/*
 * The aggregating statements the kernel runs (kaggs' key.agg); whether
 * statement st keeps its values in kflat instead, from slot on, one per
 * bucket (one for count() and the like).
 */
unsigned d_kplan_nstmts(const struct d_kplan *k);
bool d_kplan_isagg(const struct d_kplan *k, unsigned st); /* not a store */
/* its keys (kaggs's key, bpf_agg_cgen.c, holds as many as any statement's) */
unsigned d_kplan_nkeys(const struct d_kplan *k, unsigned st);
bool d_kplan_flat(const struct d_kplan *k, unsigned st, unsigned *slot,
		  unsigned *nslots);

/* The probe of a dtrace -l ID, for keys that name the probe. */
typedef const struct d_probe *(*d_kplan_probe_fn)(void *ctx, unsigned id);

/*
 * Fold one entry of the kernel's kaggs (its per-CPU values, ncpus of
 * them) into the aggregations; for kflat, key is {st, slot - first}; for
 * kaggs_s, kaggs_l and kaggs_v, str is the string key's bytes, in a
 * buffer of UBPF_KSLONG(3) + 1 bytes, 0 past them.  Call once per
 * entry, after tracing stopped and before END, printa() or the final
 * printing.
 */
void d_kplan_merge(const struct d_kplan *k, const struct ubpf_kkey *key,
		   const struct ubpf_kval *vals, unsigned ncpus,
		   d_kplan_probe_fn probe_of, void *ctx, const char *str);

/*
 * A record's fault bits (cgen.c, usdt_bpf.h's UBPF_RF_KFAULT): whether
 * clause, which the kernel ran, faulted at the hit, and if so where
 * (DTrace's action number, 0 the predicate) and what: D_RUNF_ADDR on
 * the string or copy of argument arg, at its address, or with next at
 * the page after it; D_RUNF_ILLOP, an illegal operation (a read of
 * vtimestamp whose clock was lost, a speculation's ID past nspec);
 * D_RUNF_NOSCRATCH or D_RUNF_BELOW, a bounded copy's (kplan_bstr.c)
 */
bool d_kplan_fault(const struct d_kplan *k, unsigned clause, uint64_t mask,
		   int *action, unsigned *arg, bool *next,
		   enum d_run_flt *kind);

/*
 * Statement st has a key copyinstr(argN) (D_KPLAN_VARS): its entries
 * are in kaggs_s, and d_kplan_merge() takes the key's string as str.
 */
bool d_kplan_skey(const struct d_kplan *k, unsigned st);

/*
 * ... and its strings (copyinstr() keys: SKEY, SKEY2 beside it) may be
 * longer than a kaggs_s key holds, in kaggs_l (cgen_agg.c's "Long
 * string keys"): how many (1 or 2), or 0 (a ?: of one, SMKEY, is held
 * to kaggs_s's)
 */
unsigned d_kplan_skey_long(const struct d_kplan *k, unsigned st);

/*
 * Statement st has a pair of kaggs_v keys (kplan.c's vkey_pair()) and
 * no third (vkey_third()): their rooms' bytes, else 0 (what may be held
 * in kaggs_x).  d_kplan_vpair_short(): key's kaggs_x bytes s
 * (cgen_agg.c's "Short pairs": each room's first UBPF_KVSHORT) back in
 * their rooms, into out (UBPF_KSLONG(3) + 1 bytes, 0 past them), as
 * d_kplan_merge() reads a kaggs_v key's.
 */
unsigned d_kplan_vpair(const struct d_kplan *k, unsigned st);
void d_kplan_vpair_short(const struct d_kplan *k, const struct ubpf_kkey *key,
			 const char *s, char *out);

/*
 * Statement st has a key that is a string variable the kernel keeps
 * (kplan_out.c's KV_STR), execname or a literal (or a ?: of two,
 * kplan_str.c's "execname and literals"): its entries are in kaggs_v,
 * whose keys hold
 * UBPF_KVROOM(strsize - 1) bytes of the string, and d_kplan_merge()
 * takes the key's string as str.
 */
bool d_kplan_vkey(const struct d_kplan *k, unsigned st);
unsigned d_kplan_vkey_room(const struct d_kplan *k);

/*
 * printf() and trace() computed at the hit (kplan_out.c): clause, which
 * the kernel runs, prints from its record's out area, whose
 * d_kplan_out_bytes() it takes (the probe's such clauses in order);
 * d_kplan_out_run() prints it, or reports the fault it had, from those
 * bytes (d_run()'s result); kprobe: the record is a kernel probe's,
 * whose copies' faults stay (at a uprobe site an argument string only
 * printed is read again where the copy failed).  d_kplan_out_any(): a
 * clause prints at all, or counts by a user address's name (its
 * address in the area: ../d/stmt.c's d_stmt_uname()), or stores a string
 * variable (its copy is made in cgbuf, and VKEY's key built there, where
 * nothing prints), or reads execname or keys an aggregation by a literal or a
 * ?: (CKEY's, LKEY's keys and CVCMP's copies are built there too), or has a
 * self-> integer (a clause user space runs may read it from the area:
 * d_kplan_vin()).
 */
bool d_kplan_out(const struct d_kplan *k, unsigned clause);
/* ... and of those, one with a user stack key (../d/stmt.c's
 * d_stmt_ukey(): its count() made by dtrace from the record, which
 * carries the stack: kplan_out.c's "User stacks as aggregation keys");
 * *prints: it has printf() or trace() too; *names: a key by a user
 * address's name (d_stmt_uname(), its address in the area); *psargs:
 * keys with curpsinfo->pr_psargs and no stack (d_stmt_pkey(), the
 * record's argument area) (for -v) */
bool d_kplan_ukey(const struct d_kplan *k, unsigned clause, bool *prints,
		  bool *names, bool *psargs);
/* ... or stores a string variable the kernel keeps (its fault is in the
 * area): the clauses that take d_kplan_out_bytes() */
bool d_kplan_out_area(const struct d_kplan *k, unsigned clause);
unsigned d_kplan_out_bytes(const struct d_kplan *k, unsigned clause);
/* ... the same, for the records of a plan made and final: computed once */
unsigned d_kplan_out_rec_bytes(const struct d_kplan *k, unsigned clause);
int d_kplan_out_run(const struct d_kplan *k, unsigned clause,
		    const uint8_t *data, size_t len, const struct d_fire *f,
		    bool kprobe, FILE *out, FILE *err);
bool d_kplan_out_any(const struct d_prog *p);
/* A clause calls copyin(): cgbuf has the copy room the kernel's reads
 * through copyin()'s pointers use (kplan_mem.c) */
bool d_kplan_mem_any(const struct d_prog *p);
/* ... a clause that may fire at a kernel provider's probe (syscall,
 * profile, tick, proc), uses no speculation, is user space's and reads
 * the process's memory by an address: why its values are not computed
 * at the probe (read when dtrace runs the record), for -v; NULL for any
 * other */
const char *d_kplan_out_why(const struct d_kplan *k, unsigned clause);

/* ... pl has such a clause (ODONE) */
bool d_kplan_prints(const struct ubpf_kplan *pl);

#endif /* USDT_DTRACE_KPLAN_H */
