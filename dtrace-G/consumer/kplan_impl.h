/* SPDX-License-Identifier: MIT */
/*
 * kplan_impl.h - what kplan.c (which clauses the kernel runs) and its
 * parts share (kplan.c's opening comment lists them: kplan_vars.c
 * their variables, with kplan_svar.c and kplan_vin.c, kplan_emit.c
 * their instructions (with kplan_stmt.c and kplan_expr.c, sharing
 * kplan_emit.h), kplan_str.c their strings, kplan_exit.c and
 * kplan_spec.c, kplan_out.c, kplan_why.c with kplan_why_form.c,
 * kplan_merge.c, kplan_gcnt.c): the plan's state, and the tree walks
 * they all make.
 * Not for anything else: kplan.h is the interface.
 */
#ifndef USDT_DTRACE_KPLAN_IMPL_H
#define USDT_DTRACE_KPLAN_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "../d/d_impl.h"
#include "kplan.h"

/* An aggregating statement the kernel runs: kaggs' key names it. */
struct kstmt {
	const struct stmt *st;
	bool assign; /* self->v = e or this->v = e, not an aggregation */
	bool out;    /* printf() or trace() computed at the hit (and assign) */
	bool sstr;   /* a KV_STR variable = copyinstr(E) (and assign) */
	/* ... E's copyinstr()s, each an SSTR in turn (a dead format-time
	 * variable's several: kp_fvar_leaves()), and their count */
	const struct node *const *sleaves;
	unsigned nsleaves;
	bool sclr;   /* ... = 0 or "" */
	bool schr;   /* ... s[i] = c, i and c constants (kp_schr_of()):
		      * SCHR, kplan_svar.c's "Characters stored" */
	/* an if statement (D_KPLAN_VARS: kplan_vars.c's kp_flat_ok()): its
	 * condition's test (assign set, agg ~0u: no aggregation) */
	bool cond;
	bool smov;   /* ... = "literal" or another KV_STR variable */
	bool noop;   /* ... a store that changes nothing (kp_fvar_noop()) */
	bool bcpy;   /* ... a bounded copy's, its fault site (bfault: BCPY) */
	bool raise;  /* ... raise() of a constant signal at the hit (RAISE) */
	bool sjoin;  /* ... = strjoin()s of copies and literals: sleaves
		      * NULL, nsleaves its copies (kp_join_parts()) */
	bool stree;  /* ... = a ?: tree of copies and literals: sleaves
		      * NULL, nsleaves 1, the slot its copies share
		      * (kp_str_copy_tree()) */
	unsigned agg;
	uint8_t ksz[UBPF_KMAXKEYS], ksg[UBPF_KMAXKEYS];
	int kid[UBPF_KMAXKEYS]; /* B_PROBE* for a key naming the probe, or -1 */
	int skey;		/* the key that is copyinstr(argN), or -1 */
	uint8_t sarg;		/* ... its N */
	int svar;		/* or a KV_STR variable (VKEY), or -1 */
	/* the keys that read args[N] (a bit each), and those whose type a
	 * probe's plan fixed (kplan_emit.c's args_keys(): the merge
	 * gives the key that type, so every probe whose plan runs the
	 * statement has it) */
	uint8_t kargs, kfixed;
	uint8_t sx;		/* or KSX_COMM, KSX_LIT (CKEY, LKEY), ... */
	int slot;		/* without keys: its first slot in kflat, or -1 */
	unsigned nslots;
	/* execname's key + 1 beside the copyinstr(argN) key skey (SKEY,
	 * kaggs_s), its 16 bytes in k[kcomm - 1] and k[skey]
	 * (UBPF_K_CWKEY); 0: none */
	uint8_t kcomm;
	/* or the second copyinstr(argM) key + 1 (SKEY2: its string after
	 * the first's NUL in kaggs_s's s) and its M; 0: none (a pair's
	 * second copyinstr(argM), KSX_ARG: its M too) */
	uint8_t skey2, sarg2;
	/* ... and a third copyinstr(argK) key + 1 (SKEY2 flagged as the
	 * third: its string after the second's NUL) and its K; 0: none */
	uint8_t skey3, sarg3;
	/* the keys of skey and skey2 that are args[N] bare (a bit each:
	 * kplan.c's str_pair_keys() with k->bare), and the statement's
	 * layout with args[N] an integer key instead, for the probes
	 * where one of them is no string: its index in k->st + 1, or 0
	 * (kplan.c's "args[N] bare beside another string key") */
	uint8_t sbare;
	unsigned alt;
	/* or the second kaggs_v string key + 1 beside skey's (a pair:
	 * kplan.c's vkey_pair(), its room after the first's in the
	 * key's s), its kind (KSX_COMM, KSX_LIT, KSX_MIX, KSX_ARG;
	 * KSX_NONE: the KV_STR variable svar2); 0: none */
	uint8_t vkey2, sx2;
	int svar2;
	/* ... and a third kaggs_v string key + 1 after the pair, the
	 * KV_STR variable svar3, its room after the second's (kplan.c's
	 * vkey_third()); 0: none */
	uint8_t vkey3;
	int svar3;
	/* the open bits (vbit) of self->, this-> integers the statement is
	 * dispatched on at the hit, one form per subset of them typed
	 * unset (kplan_vars.c's clause_typed(), kplan_stmt.c's
	 * emit_forms()); 0: one form */
	uint32_t forms;
	/* speculation() stored, speculate(), commit(), discard() where the
	 * kernel keeps the buffers' words (k->kspec: kplan_spec.c's
	 * kp_spec_stmt()): KS_TAKE ... KS_DISCARD, its tag 16 bytes of the
	 * out area at its place (kp_out_op()); 0: none */
	uint8_t spec;
	/* format-time keys (kplan_fkey.c): the keys (a bit each) that are
	 * a string function of a leaf the kernel keys by; st is then a
	 * copy of ost, the program's statement, with the leaves as those
	 * keys, and the merge makes each key of ost's tree over its leaf
	 * (kp_fkey_merge()); 0: none, ost NULL */
	uint8_t fkeys;
	const struct stmt *ost;
	unsigned fci; /* ... ost's clause */
	/* a global counted (kplan_gcnt.c): its index + 1, the value's
	 * type, and whether it is taken away (-=, --); 0: none */
	unsigned gvar;
	uint8_t gsz, gsg;
	bool gsub;
};

/* struct kstmt's sx: its string key, in kaggs_v, is execname (CKEY) or
 * a literal, or a ?: of them, nested or not (LKEY): kplan_str.c's
 * kp_lit_key() */
enum {
	KSX_NONE,
	KSX_COMM,
	KSX_LIT,
	KSX_MIX,  /* MKEY: kp_mix_key() */
	KSX_SMIX, /* SMKEY, in kaggs_s (not kaggs_v): kp_smix_key() */
	KSX_ARG	  /* AKEY: copyinstr(argN) beside a KV_STR variable, a
		   * pair in kaggs_v (kplan.c's vkey_pair()) */
};

/* reads of this-> place variables (KV_PLACE, kplan_mem.c) a program may
 * have, at most */
#define KP_PRDS 32
/* The element reads of thread-local arrays typed apart at once */
#define KP_ELEMS 8
/* the open bits (variables and element reads) one clause, statement or
 * predicate is typed over, at most: each subset of them typed unset is
 * one more emit (kplan_vars.c's typed_all(), 2^8 of a clause at most;
 * the toolkit's *_calltime.d return clause has 6: two reads each of
 * self->function[] and self->exclude[], two this-> integers) */
#define KP_TYPED_BITS 8
/* the forms of one statement dispatched at the hit, at most (two open
 * bits: kplan_vars.c's clause_typed()) */
#define KP_FORMS 4
/* vbit of an array whose every read is typed apart (kplan_vars.c's
 * var_keep()) */
#define KV_ELEMS (-2)
/* the if statements of a clause the kernel runs, at most (the
 * verifier explores both paths of each: kplan_vars.c's kp_if_why()) */
#define KP_IFS 8

struct d_kplan {
	struct d_prog *prog;
	/* the statements with format-time keys and their copies
	 * (kplan_fkey.c's kp_fkeys_make(), before any decision) */
	struct kp_fsh **fsh;
	unsigned nfsh;
	/* per variable: a this-> string holding a format-time value, only
	 * keyed by or printed whole (kplan_fkey.c's fvar_is()); its
	 * stores' copies; the rooms it takes (UBPF_KTSTR's: a printed
	 * one's a leaf each, else 1); its printed reads */
	bool *fvar;
	struct kp_fst **fst;
	unsigned nfst;
	unsigned *frooms;
	struct kp_fpr *fpr;
	unsigned nfpr;
	/* per clause: the layout of its out area as the record path reads
	 * it, made at its first record (kplan_out.c's out_memo()) */
	struct kp_omemo **omemo;
	/* the this-> reads after a store at their clause's top level,
	 * typed as set (kplan_vars.c's kp_dset_make(), before typing) */
	const struct node **dset;
	unsigned ndset;
	/* per variable: a global only BEGIN stores (kplan_fkey.c's
	 * kp_consts_make(), before the copies) */
	bool *rconst;
	unsigned nrcon; /* ... the integer ones the kernel reads: KV_RCON */
	/* per variable: a global the kernel counts, where its clauses
	 * only add to it (kplan_gcnt.c's kp_gcnt_find()); NULL: none */
	bool *gcnt;
	/* ... and where one is not, the clause reading it at a probe + 1
	 * (kp_gcnt_why(), -v); NULL without D_KPLAN_VARS */
	unsigned *gwhy;
	bool *ok; /* per clause */
	/* per clause: a speculating one user space runs whose printf()
	 * and trace() values the kernel computes (kplan_spec.c's
	 * "Speculations", kplan_vars.c's sout_ok()) */
	bool *sout;
	/* per clause: a sout one whose predicate the kernel computes too
	 * (its truth the first 8 bytes of its out area; kplan_vars.c's
	 * spred_ok()) */
	bool *spred;
	/* per clause: one user space runs whose record carries the values
	 * of the self-> integers the kernel keeps that it only reads, as
	 * they were at its place in the probe's clauses (kplan_vars.c's
	 * kp_vars_decide(), kplan_vin.c's "Shared self-> variables") */
	bool *vin;
	/* per clause: a vin one whose predicate the kernel tests first,
	 * its ran bit the predicate's truth at the hit (vpred_ok()) */
	bool *vpred;
	/* ... and one that reads a self-> string the kernel keeps in that
	 * predicate: dtrace runs it on the kernel's truth (vin_ptest()) */
	bool *vtruth;
	/* per clause: it touches a global array the kernel keeps
	 * (kplan_garr.c), and whether any does: set once the variables
	 * are decided (kp_vars_decide()), for records.c at each record */
	bool *garrc, garr_any;
	unsigned *first; /* per clause: its first struct kstmt */
	struct kstmt *st;
	unsigned nst;
	size_t stcap;
	unsigned nflat; /* kflat slots given out */
	/* D_KPLAN_VARS: self->, this-> and timestamp (generated programs) */
	bool vars;
	int64_t wall; /* walltimestamp - timestamp (d_kplan_wall()) */
	bool ppid;	    /* D_KPLAN_PPID: ppid is the kernel's */
	bool vtime;	    /* D_KPLAN_VTIME: vtimestamp may be the kernel's */
	bool novt;	    /* ... not in this program (kplan_vars.c's
			     * kp_vars_decide(): its sites could not be) */
	bool vfault;	    /* ... each read a fault site (vt_sites()) */
	bool novtout;	    /* ... and no printed value reads it */
	uint32_t ppid1[2];  /* ... at these offsets + 1 (d_kplan_ppid()) */
	bool ecred, sess;   /* D_KPLAN_ECRED, _SESS: the ids are the kernel's */
	uint32_t ecred1[3]; /* ... at these offsets + 1 (d_kplan_ecred()) */
	uint32_t sess1[4];  /* ... (d_kplan_sess()) */
	uint8_t *vst;	    /* per variable: KV_* */
	uint8_t *vsz, *vsg; /* the type every store gives it */
	int *vbit;	    /* T differs from its zero's type: its bit */
	int *vslot;	    /* this->: its slot, < UBPF_KTHIS (KV_STR: KTSTR) */
	/* a this-> string the kernel would keep but for its rooms, all
	 * UBPF_KTSTR taken (kp_vars_decide(), for -v) */
	bool *tnoroom;
	/* this-> variables each clause keeps to itself, which a clause
	 * user space runs does not take from the kernel (kplan_vars.c's
	 * this_private()) */
	bool *tpriv;
	int *varg;	    /* KV_SARG: the N of its copyinstr(argN) */
	/* per thread-local array: bit i set where every key at position i
	 * is a probe's name or a string literal, which the kernel keys by
	 * its number in names (kplan_akey.c) */
	uint8_t *akstr;
	struct kp_names *names; /* ... the strings numbered, as plans are
				 * made (the table, not k, is written) */
	int nbits;	    /* vbits given out */
	uint32_t absent;    /* typing the variables of these bits unset */
	/* typing a clause (kplan_vars.c's typed_all(), kplan_vin.c's
	 * same_with()): a fault site not numbered (yet: fsite_assign()
	 * and the others number them after the decision) is not taken as
	 * unreached (kplan_expr.c's fault_site()): it is the same node
	 * whichever variables are set, and the plans are compared for
	 * their typing alone */
	bool typing;
	/* KV_ELEMS (a vbit): a thread-local array whose T differs from
	 * its zero's, each element set or unset apart: the reads typed
	 * now (kplan_vars.c's clause_typed(), ty_all()), read i's bit
	 * nbits + i (kplan.c's elem_ty()) */
	const struct node *elem[KP_ELEMS];
	unsigned nelem;
	bool elem_full;	    /* a read past KP_ELEMS: refused */
	bool nostr;	    /* no string comparison (see vars_decide()) */
	bool fmode;	    /* a string's fault is the hit's (fsite_assign()) */
	bool noprog;	    /* no PROG: the kernel keeps self-> variables,
			     * so a cut chain could not send the hit to user
			     * space (kplan_vars.c's kp_vars_decide()) */
	bool noprogx;	    /* ... no PROGX, tried first: the clauses of
			     * progenyof() of a computed pid kept out alone
			     * may leave the kernel no self-> variable */
	unsigned nfs;	    /* ... its sites: */
	struct kfsite {
		const struct node *n; /* the comparison */
		unsigned clause;
		int action; /* DTrace's action number there (0: predicate) */
		uint8_t arg;
		uint8_t kind; /* KFS_* (below) */
		/* KFS_BSTR: its cut's action (this->v[argL] = 0, the
		 * statement after the copy), whose store faults where
		 * argL is -1 */
		int cut;
	} fs[UBPF_KFSITES];
	bool *tls;	    /* per clause: it touches a self-> variable */
	bool *kv;	    /* per clause: ... any variable the kernel keeps */
	/* per clause: its plan differed with its variables (an element)
	 * set and unset, in some pass (clause_typed(); kplan_why.c) */
	bool *untyped;
	/* per clause: the open bits its predicate is dispatched on at the
	 * hit, one test per subset of them typed unset (a kernel clause's:
	 * clause_typed(); a vin clause's: kplan_vin.c's vpred_ok());
	 * 0: one test */
	uint32_t *pforms;
	const bool *user;   /* per clause: fires in user space too, or NULL */
	bool gates;	    /* D_KPLAN_VARS: d_kplan_gated() may say yes */
	/* exit(), printa(), clear() or trunc() in a tick-N clause: the
	 * kernel's clauses stop at the horizon (kplan_exit.c), so the kernel
	 * keeps no self-> variable */
	bool horizon;
	/* ... or, where D_KPLAN_IVAL allows, the kernel's aggregations are
	 * keyed by their interval (kplan_exit.c's "Intervals"): horizon
	 * false, the self-> variables the kernel's */
	bool ival;
	/* exit() in a traced probe's clause, its predicate tested in the
	 * kernel at every hit (kplan_exit.c's "exit() at a traced probe"):
	 * those clauses, user space's (the winner's plan ends at each:
	 * UBPF_K_XEND) */
	bool *xcl;
	bool kexit;
	/* exit() at a traced probe the kernel cannot decide, which kept
	 * every clause out of it: the first such clause and why
	 * (d_kplan_xwhy()), or NULL */
	const char *xwhy;
	unsigned xwhyc;
	/* printa(), clear(), trunc(), normalize(), denormalize() or an
	 * action kplan.c does not know in a clause but a tick-N one's,
	 * which kept every clause out of the kernel: the first such
	 * clause (kplan_why.c's d_kplan_awhy() names the statement) */
	bool awhy;
	unsigned awhyc;
	const struct stmt *awhyst; /* ... that statement */
	/* per clause: tied to a speculating one through a self-> or
	 * this-> variable (kplan_spec.c's specs_tied(), the closure over the
	 * program), made at d_kplan_specs_late()'s first ask, or NULL */
	bool *tied;
	/* per clause (D_KPLAN_VARS): every hit of it runs a generated
	 * program, a uprobe site's or a kernel probe's own (bpf_agg_cgen.c's
	 * traced_clause()), whose record may carry an out area: where a
	 * clause may print (kplan_out.c's kp_sout_where()); or NULL */
	bool *traced;
	/* str_pair_keys() takes args[N] bare as a string key (off while
	 * kplan.c's bare_alts() makes the layouts without) */
	bool bare;
	/* kplan_mem.c: a copy's fault is the hit's, at the statement
	 * reading it (the kernel keeps self-> variables, so it cannot send
	 * the hit to user space): each MLD a fault site (kp_mem_sites(),
	 * after fsite_assign()'s in k->fs); no member read through a copy
	 * where those sites cannot be (nomem); the reads of KV_PLACE
	 * variables, each with the value its clause's store gave it */
	bool mfault;
	bool nomem;
	/* kplan_bstr.c: a bounded copy's fault is the hit's, at its
	 * statement (the kernel keeps self-> variables): each copy a fault
	 * site (kp_bstr_sites(), KFS_BSTR); none in the kernel where those
	 * sites cannot be (nobstr) */
	bool bfault;
	bool nobstr;
	/* R2 and R3 (doc/DESIGN.md §8, "R2 and R3: the as-built plan"):
	 * the kernel keeps self-> variables and a clause it runs that may
	 * fire at a uprobe site has an R2 form (kp_out_apre()): no argument
	 * string is copied before the first clause (no hit can go to user
	 * space whole), set in kp_vars_decide(), one-way */
	bool noastr;
	unsigned nprd;
	struct kprd {
		const struct node *rd, *val;
	} prd[KP_PRDS];
	/* the reads of KV_BSTR variables (kplan_bstr.c): each stringof()'s
	 * variable node, and the UBPF_KBSTR() argument its clause's copy is */
	unsigned nbrd;
	struct kbrd {
		const struct node *rd;
		uint8_t arg;
	} brd[KP_PRDS];
	/* per clause: it may be the kernel's at one probe and user space's
	 * at another (kplan_here.c's kp_typed_reach()); the strlen(args[N])
	 * nodes of the clauses that may not, and their uregs[] nodes where
	 * they may fire at a kernel probe (kplan_expr.c's kp_ureg()); the
	 * ?: nodes whose branches args[N] may type apart and the integer
	 * keys reading args[N] of the clauses tied to a variable that
	 * outlives a firing (kp_typed_node() false for each) */
	bool *tyok;
	/* ... and tied by no this-> variable to one that outlives a firing
	 * or a speculation, one_typing() or not (kp_typed_free()) */
	bool *tyfree;
	const struct node **noslen;
	unsigned nnoslen;
	/* speculations in the kernel (kplan_spec.c's d_kplan_kspec()): the
	 * buffers' words are the kernel's, every clause with speculation(),
	 * speculate(), commit() or discard() a kernel clause; tried first
	 * by d_kplan_new() where kspec_pre() holds, off again where a test
	 * after the decision fails (kswhy: the first test that failed,
	 * for -v, with kswbuf its text where made) */
	bool kspec;
	const char *kswhy;
	char kswbuf[320];
};
/* kplan.c: statement i of clause's, or its layout with args[N] keys
 * integers where probe declares one of its bare args[N] string keys
 * no string (kstmt's alt); its index in k->st into *at */
struct kstmt *kp_stmt_at(const struct d_kplan *k, unsigned clause,
			 unsigned i, const struct d_probe *probe,
			 unsigned *at);

/*
 * A variable the kernel may keep (KV_CAND), its type known (KV_KERN);
 * a this-> string that is copyinstr(argN) wherever it is read (KV_SARG,
 * sarg_var()); a this-> or self-> string that is copyinstr(E) or ""
 * wherever it is stored and only printed or, a self-> one, compared
 * with a literal (KV_STR, kplan_svar.c's str_var()); a this-> char
 * pointer to copyin(argA, argL + 1) cut at argL, read only as
 * stringof() (KV_BSTR, kplan_bstr.c).
 */
/* KV_RCON: a run constant the kernel reads from cgrcon's slot vslot
 * (kplan_fkey.c's "Run constants in the kernel"), its type vsz, vsg */
enum { KV_NO, KV_CAND, KV_KERN, KV_SARG, KV_STR, KV_PLACE, KV_BSTR, KV_RCON };

/* struct kfsite's kind: what its two bits in the record say (usdt_bpf.h's
 * UBPF_RF_KFAULT; kplan_merge.c's d_kplan_fault()).  KFS_STR, a string's
 * or a copy's read: 1 at the argument's address, 2 at the page after it;
 * KFS_ILLOP: an illegal operation (a lost clock, a speculation's ID past
 * nspec); KFS_BSTR, a bounded copy's (kplan_bstr.c): 1 at argument A's
 * address, 2 out of scratch space, 3 its cut's store below a copy of no
 * bytes */
enum { KFS_STR, KFS_ILLOP, KFS_BSTR };
/* kplan_vars.c: a fault site in k->fs (n in clause ci, reported in
 * DTrace's action number action, reading argument arg; kind KFS_*, cut
 * KFS_BSTR's), numbered in turn: false where the record's UBPF_KFSITES
 * are taken.  Every kind's sites are added through it (fsite_walk(),
 * akey_site(), vsite_add(), kplan_mem.c's msite_add(), kplan_bstr.c's
 * kp_bstr_sites(), kplan_spec.c's spec_sites()) */
bool kp_fsite_add(struct d_kplan *k, const struct node *n, unsigned ci,
		  int action, uint8_t arg, uint8_t kind, int cut);
/* kplan_spec.c: may n be read in user space beside a speculating clause's
 * values computed at the hit: no speculation(), no store, no read of
 * the process by an address (d_kplan_specs_late()'s)? */
bool kp_sout_here(const struct node *n);
/* ... speculations in the kernel (k->kspec): st's KS_ kind, or KS_NONE */
int kp_spec_stmt(const struct d_kplan *k, const struct stmt *st);
/* ... the store of speculation() whose value is the whole value of a
 * top-level = into a self-> or this-> variable: that variable, or -1 */
int kp_spec_take_var(const struct stmt *st);
/* ... before the decision: may the program's speculations be the
 * kernel's (k->kswhy says why not)?  After it: do they stay so (each
 * speculating clause the kernel's), the fault sites of speculate(),
 * commit() and discard() numbered after the others'? */
/* kplan_exit.c: the horizon made intervals where flags allow */
void kp_ival_decide(struct d_kplan *k, unsigned flags);
bool kp_kspec_pre(struct d_kplan *k, const bool *traced);
bool kp_kspec_post(struct d_kplan *k);
/* progenyof() of a constant the kernel computes (UBPF_K_PROG): its pid */
bool kp_prog_arg(const struct d_kplan *k, const struct node *n, uint32_t *q);
/* ... of a pid the kernel computes at pr (UBPF_K_PROGX) */
bool kp_progx_arg(const struct d_kplan *k, const struct d_probe *pr,
		  const struct node *n);
/* kplan_str.c: copyinstr(argN) == or != a string literal: N and the
 * literal */
bool kp_str_cmp(const struct d_kplan *k, const struct node *n, int *arg,
		const struct node **lit);
/* ... == or != by SEQ's length and prefix test (else whole: seq_ord()) */
bool kp_seq_prefix(const struct d_kplan *k, size_t len);
bool kp_has_str_cmp(const struct d_kplan *k, const struct node *n);
/* ... a self-> string variable == or != a literal (kp_svar_lit(): of
 * any; kp_svar_cmp(): of a KV_STR one): the variable and the literal */
bool kp_svar_lit(const struct d_prog *p, const struct node *n, int *v,
		 const struct node **lit);
bool kp_svar_cmp(const struct d_kplan *k, const struct node *n, int *v,
		 const struct node **lit);
unsigned kp_ord(int sub, bool left);
/* ... < <= > >= a literal (kp_svar_olit(): of any; kp_svar_ocmp(): of
 * a KV_STR one): the variable, the literal and VVCMP's order */
bool kp_svar_olit(const struct d_prog *p, const struct node *n, int *v,
		  const struct node **lit, unsigned *op);
bool kp_svar_ocmp(const struct d_kplan *k, const struct node *n, int *v,
		  const struct node **lit, unsigned *op);
/* ... a self-> or this-> string variable == or != copyinstr(argN) or
 * args[N] (kp_svar_arg(): of any, the variable's index, else -1;
 * kp_svar_acmp(): of a KV_STR one, the variable and N) */
int kp_svar_arg(const struct d_prog *p, const struct node *n);
bool kp_svar_acmp(const struct d_kplan *k, const struct node *n, int *v,
		  int *arg);
/* ... strlen() of a self-> string variable (kp_svar_len(): any;
 * kp_svar_strlen(): a KV_STR one): the variable */
bool kp_svar_len(const struct d_prog *p, const struct node *n, int *v);
bool kp_svar_strlen(const struct d_kplan *k, const struct node *n, int *v);
/* ... two self-> string variables == or != (kp_svar_pair(): any;
 * kp_svar_vv(): both KV_STR) */
bool kp_svar_pair(const struct d_prog *p, const struct node *n, int *v, int *w);
bool kp_svar_vv(const struct d_kplan *k, const struct node *n, int *v, int *w);
/* kplan.c: n's type in the kernel, false if the kernel cannot compute it
 * (kp_ty(): without args[N]; kp_ty_at(): with args[N] typed at probe
 * pr, or KP_ANYPROBE: int64_t, to be typed again at each probe) */
/* kplan_zform.c: this-> variable v's store of b typed T (*z, *g) where
 * its other forms store 0 and every read of v prints it whole */
bool kp_zero_forms(struct d_kplan *k, unsigned v, const struct node *b,
		   uint8_t *z, uint8_t *g);
bool kp_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
	   uint8_t *sg);
#define KP_ANYPROBE (&kp_anyprobe)
extern const struct d_probe kp_anyprobe;
bool kp_ty_at(const struct d_kplan *k, const struct d_probe *pr,
	      const struct node *n, uint8_t *sz, uint8_t *sg);
/* ... does n read args[N]? */
bool kp_has_args(const struct node *n);
/* ... the value statement st stores (v = e, v op= e, v++, v--) */
const struct node *kp_stored(const struct stmt *st, struct node *bin,
			     struct node *one);

/* kplan_emit.c: clause's instructions for a firing of probe, into pl */
bool kp_clause_emit(const struct d_kplan *k, unsigned clause,
		    const struct d_probe *probe, struct ubpf_kplan *pl);
/* ... whether they fit (d_kplan_fits()), into pl as it is (room), or
 * a scratch plan where pl is NULL, fixing no key type; the first
 * reason they do not into why */
bool kp_clause_try(const struct d_kplan *k, unsigned clause,
		   const struct d_probe *probe, struct ubpf_kplan *pl,
		   char *why, size_t wlen);

/* kplan_here.c: the clauses that may be typed per probe (kp_typed_ok():
 * none that this-> variables tie to a self-> variable or a
 * speculation), made once at d_kplan_new(); strlen(args[N]) of one
 * that may not (kp_arg_strlen() asks) */
void kp_typed_reach(struct d_kplan *k);
bool kp_typed_ok(const struct d_kplan *k, unsigned clause);
bool kp_typed_free(const struct d_kplan *k, unsigned clause);
bool kp_typed_node(const struct d_kplan *k, const struct node *n);

/* kplan_str.c: the N of copyinstr(argN), or -1 */
int kp_copyinstr_arg(const struct node *n);
/* ... of args[N] (N a constant: a string where the probe declares one,
 * d_args_str()), or -1 */
int kp_args_index(const struct node *n);
/* ... copyinstr(E) of one argument; 0 or "" */
bool kp_copyinstr_of(const struct node *n);
/* ... a string variable's store of strjoin()s (kplan_str.c's "Joins"):
 * its parts, copyinstr(E) leaves (E an integer the plan computes) and
 * literals, in order, into pv (at most KP_JPARTS, KP_FLEAVES of them
 * copies, one at least), their count; 0 if b is none */
#define KP_JPARTS 8
int kp_join_parts(const struct d_kplan *k, const struct node *b,
		  const struct node **pv);
/* ... the bytes an OSTR of copyinstr(E) or copyinstr(E, N) reads (run.c's
 * copyinstr(): N where N + 1 < strsize, else strsize - 1), -1 where N
 * is computed at the hit or 0, or n is no copyinstr(); copyinstr(argN)
 * or copyinstr(argN, N) printed: N, else -1 */
int kp_ostr_count(const struct d_prog *p, const struct node *n);
bool kp_ostr_hit(const struct d_kplan *k, const struct node *n);
int kp_ostr_arg(const struct node *n);
bool kp_str_clear(const struct node *n);
/* ... a literal a string variable may be set to in the kernel; a
 * self-> or this-> string variable read whole (its index, or -1) */
bool kp_str_lit_store(const struct d_prog *p, const struct node *n);
/* ... string s, such a literal's bytes (a probe's name at its probe) */
bool kp_str_lit_ok(const struct d_prog *p, const char *s);
/* ... a probe's name or a ?: tree of literals and probe names the
 * kernel stores, its leaf written as SLIT (kplan_stmt.c's lit_store()) */
bool kp_str_lit_tree(const struct d_kplan *k, const struct node *n);
bool kp_str_copy_tree(const struct d_kplan *k, const struct node *n);
/* ... v = execname the kernel stores (SCOMM: strsize 18 or more) */
bool kp_comm_store(const struct d_prog *p, const struct node *n);
int kp_str_var_of(const struct d_prog *p, const struct node *n);
/* ... the N of a key or operand that is copyinstr(argN), or -1 */
int kp_arg_str(const struct d_kplan *k, const struct node *n);
/* ... the same, where the kernel keeps self-> variables too (AKEY) */
int kp_arg_room(const struct d_kplan *k, const struct node *n);
/* ... of strlen(copyinstr(argN)) or strlen(args[N]) the kernel computes
 * (args[N] a string at the probe: kp_ty_at()), or -1 */
int kp_arg_strlen(const struct d_kplan *k, const struct node *n);
/* ... is kp_arg_strlen()'s args[N] a string at probe pr (kp_ty_at())? */
bool arg_strlen_at(const struct d_probe *pr, const struct node *n);
/* ... probeprov, probemod, probefunc or probename: its B_ id, else -1 */
int ident(const struct node *n);
/* kplan.c: the variable statement st assigns, or -1 */
int kp_assigned_var(const struct stmt *st);
/* ... E of st where it is v = E, a statement of its own storing
 * variable v whole (not an element, not v op= E), else NULL */
const struct node *kp_plain_store(const struct stmt *st, unsigned v);
/* ... can the kernel run st?  Its key types into ks */
bool kp_stmt_ok(const struct d_kplan *k, const struct stmt *st,
		struct kstmt *ks);
/* ... does the clause fire only for dtrace:::BEGIN and dtrace:::END? */
bool kp_dtrace_only(const struct clause *c);
/* an associative array's scope: thread-local or global (kplan_garr.c) */
static inline bool kp_arr_scope(const struct var *var)
{
	return var->scope == SC_SELFASSOC || var->scope == SC_ASSOC;
}
/* kplan_out.c: description d's provider: 1 a kernel one, 0 another named
 * without a glob, -1 either (empty, a glob, not four fields) */
int kp_desc_kern(const char *d);
/* kplan_garr.c: is v a global array the kernel keeps? */
bool kp_garr(const struct d_kplan *k, unsigned v);
void kp_garr_marks(struct d_kplan *k, bool *mark);
/* ... clause ci fires where no generated program runs: the global arrays
 * it touches taken to user space; whether one was */
bool kp_garr_drop(struct d_kplan *k, unsigned ci, bool *mark);
/* ... why global array v is not the kernel's, where that is its own */
const char *kp_garr_why(const struct d_kplan *k, unsigned v, char *buf,
			size_t len);
/* kplan_vars.c: clause ci alone: can the kernel run it? */
bool kp_clause_ok(struct d_kplan *k, unsigned ci);
/* ... which variables the kernel keeps, and so which clauses */
void kp_vars_decide(struct d_kplan *k);
/* The variables clause c of p touches (reads and stores), into mark[]
 * (p->nvars, cleared first) */
void kp_clause_vars(const struct d_prog *p, const struct clause *c, bool *mark);
/* ... every variable node under n into mark (reads and stores alike) */
void vars_of(const struct node *n, bool *mark);
/* fn(tree, ctx) on each expression, argument and key of the statements v
 * (n), their branches' too, in order (kplan_vars.c) */
void kp_stmts_each(const struct stmt *v, unsigned n,
		   void (*fn)(const struct node *, void *), void *ctx);
/* ... the same of statements v[0..n) */
void stmts_vars(const struct stmt *v, unsigned n, bool *mark);
/* ... kp_clause_vars() of k's program */
void clause_vars(const struct d_kplan *k, const struct clause *c, bool *mark);
/* ... the bits (vbit) of the variables read under n whose type is open */
uint32_t open_bits(struct d_kplan *k, const struct node *n, bool reg);
/* ... the next subset of set after s (0 after the last) */
uint32_t next_subset(uint32_t s, uint32_t set);
/* ... the open bits the reads under n may be dispatched on at the hit
 * (at most two, each a self-> integer's or a this-> one's in a slot:
 * kp_form_var()), else 0 */
uint32_t kp_form_bits(struct d_kplan *k, const struct node *n);
bool kp_form_var(const struct d_kplan *k, unsigned v);
/* ... does n store into variable v? */
bool stores_into(const struct node *n, unsigned v);
/* kplan_svar.c: this-> string v is argument N's string (KV_SARG): N,
 * else -1; one that keys an aggregation stays that (sarg_key()) */
int sarg_var(const struct d_kplan *k, unsigned v, bool *mark);
bool sarg_key(const struct d_kplan *k, unsigned v, bool *mark, unsigned nthis);
/* ... string v kept as its bytes (KV_STR) */
bool str_var(const struct d_kplan *k, unsigned v, bool *mark, bool tcmp);
bool kp_schr_of(const struct d_prog *p, const struct stmt *st, unsigned *v,
		int64_t *i, int64_t *c);
/* ... every read of v in the program a comparison with a literal */
bool prog_lit_reads(const struct d_prog *p, unsigned v);
/* kplan_vin.c: clause ci, run in user space, may read self-> integers
 * from its record (a vin clause) */
bool vin_where(const struct d_kplan *k, unsigned ci);
/* ... may variable v be carried in vin clause ci's record */
bool vin_var(struct d_kplan *k, unsigned ci, unsigned v);
/* ... vin clause ci's predicate is tested in the kernel too */
bool vpred_ok(struct d_kplan *k, unsigned ci);
/* ... v a self-> string the kernel keeps, read in that predicate alone,
 * the clause run on the kernel's truth; kp_vin_ptests(): any such v */
bool vin_ptest(struct d_kplan *k, unsigned ci, unsigned v);
bool kp_vin_ptests(struct d_kplan *k, unsigned ci);
/* ... the variables a vin clause's record carries (kp_vars_decide()),
 * into mark (cleared first), and how many */
void kp_vin_vars(const struct d_kplan *k, unsigned ci, bool *mark);
unsigned kp_vin_count(const struct d_kplan *k, unsigned ci, bool *mark);
/* ... whether clause ci, run in user space, may read variable v from its
 * record: 0 it may, 1 it stores v, 2 v is no self-> integer, 3 the
 * clause may fire where no record carries an out area (kplan_why.c) */
int kp_vin_why(const struct d_kplan *k, unsigned ci, unsigned v);
/* kplan_emit.c: predicate n's test alone into pl (PRED jumping past
 * it), as a vin clause's, dispatched on the open bits forms (0: none),
 * or with n NULL store st (a vin clause's kernel store: kplan_vin.c's
 * kstore_ok()); false where it does not fit */
bool kp_pred_emit(const struct d_kplan *k, const struct node *n, uint32_t forms,
		  const struct stmt *st, const struct d_probe *probe,
		  struct ubpf_kplan *pl);

/* kplan_mem.c: copyin(argN, C)'s copy, read before the plan's first
 * clause: N, C, and a place's offset into it */
struct kp_place {
	uint8_t arg;
	uint32_t size;
	int64_t off;
};
/* ... n is a place (a pointer into such a copy, or a struct there) */
bool kp_mem_place(const struct d_kplan *k, const struct node *n,
		  struct kp_place *pl);
/* ... n is a member or *p read from a copy: its place, type, bits */
bool kp_mem_load(const struct d_kplan *k, const struct node *n,
		 struct kp_place *pl);
/* ... kp_ty_at()'s: n is such a read (its type) */
bool kp_mem_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
	       uint8_t *sg);
/* ... n is stringof(P) of a place P at offset o <= C, strsize fixed
 * (kp_strsize_fixed()): its place and the bytes it reads at most,
 * min(C - o, strsize - 1) (a printf() or trace() argument's MSTR) */
bool kp_mem_str(const struct d_kplan *k, const struct node *n,
		struct kp_place *pl, unsigned *cnt);
/* kplan_bstr.c: this-> variable v is a bounded copy's string (KV_BSTR):
 * its reads into k->brd */
bool kp_bstr_var(struct d_kplan *k, unsigned v);
/* ... n (in stringof() or not) a read of one, or stringof() of it: its
 * UBPF_KBSTR() argument, else -1 */
int kp_bstr_read(const struct d_kplan *k, const struct node *n);
/* ... st a KV_BSTR variable's store or its cut (this->v[argL] = 0),
 * which the kernel runs as nothing (seq_read() makes the copy), but
 * for the store where its fault is at the statement (bfault: *bcpy
 * set, a BCPY) */
bool kp_bstr_stmt(const struct d_kplan *k, const struct stmt *st, bool *bcpy);
/* ... each store of one a fault site (KFS_BSTR) after the first nfs;
 * false where one cannot be */
bool kp_bstr_sites(struct d_kplan *k, unsigned nfs);
/* ... the BCPY of store st of clause ci: its A and L, the L of each
 * copy of the clause before it (at most UBPF_KBCPYPREV, in imm, a byte
 * each, step their count; kagg_bpf.h's UBPF_K_BCPY) and its site + 1
 * in agg; false where it has none */
bool kp_bstr_bcpy(const struct d_kplan *k, unsigned ci, const struct stmt *st,
		  struct ubpf_kop *o);
/* ... is st this->v[argL] = '\0' (or 0), whatever v is (for -v)? */
bool kp_bstr_cut_form(const struct stmt *st);
/* ... does a clause the kernel runs read one? */
bool kp_bstr_in(const struct d_kplan *k);
/* ... this-> variable v is a place (KV_PLACE): its reads into k->prd */
bool kp_place_var(struct d_kplan *k, unsigned v);
/* ... a store of a KV_PLACE variable (st: this->p = place) */
bool kp_place_store(const struct d_kplan *k, const struct stmt *st);
/* ... do clause ci's copies fit cgbuf's copy room? */
bool kp_clause_room(const struct d_kplan *k, unsigned ci);
/* ... does clause ci read a copy (an MLD, an MSTR)? */
bool kp_clause_mem(const struct d_kplan *k, unsigned ci);
/* ... does n read one (kplan_expr.c's SC: it may fault in mfault)? */
bool kp_node_mem(const struct d_kplan *k, const struct node *n);
/* Does n read vtimestamp? (kplan_vars.c) */
bool kp_node_vt(const struct node *n);
/* ... mfault: each MLD of a clause the kernel runs a fault site in
 * k->fs, after its first nfs; false where one cannot be */
bool kp_mem_sites(struct d_kplan *k, unsigned nfs);
/* ... why variable v, a this-> pointer, is not a place (kplan_why.c) */
const char *kp_place_why(const struct d_kplan *k, unsigned v);

/* kplan_why.c: variable v as the script writes it ("self->t",
 * "self->a[]"), statement st as -v names it ("printf()", "@k =
 * count()", "store to self->t"), into buf */
const char *kp_var_name(const struct d_prog *p, unsigned v, char *buf,
			size_t len);
const char *kp_stmt_name(const struct d_kplan *k, const struct stmt *st,
			 char *buf, size_t len);
/* kplan_why_form.c: the statement (or predicate) of an untyped clause
 * that differs with its variables set and unset and has no typed
 * forms, and why not */
struct fwhy {
	int line;	/* the statement's, the predicate's */
	char what[160]; /* "predicate", "printf()", "@k = count()" */
	int var;	/* the variable named */
	char why[240];	/* why no forms */
};
/* ... clause ci's, into f; false where none is found (k's typing state
 * left as typed_all() leaves it).  only_v >= 0: a statement reading
 * that variable, kept for the replay as var_keep() kept it (of type
 * tz, tg) where the decision took it away since */
bool kp_form_why(const struct d_kplan *k, unsigned ci, int only_v, uint8_t tz,
		 uint8_t tg, struct fwhy *f);

/* kplan_out.c: statement i of clause ci is a printf() or trace() the
 * kernel computes (ks: assign and out) */
bool kp_out_ok(const struct d_kplan *k, unsigned ci, unsigned i,
	       struct kstmt *ks);
/* ... may a statement after statement i of clause ci, a stack or name
 * key's count(), end the clause from the area (a copy's fault, reported
 * before d_run_pre() makes the count: kplan_out.c's ukey_after_ok())? */
bool kp_ukey_after_ends(const struct d_kplan *k, unsigned ci, unsigned i);
/* ... its arguments: how many, the j-th (str: copyinstr() of it, or
 * args[N]); a name key's count() (../d/stmt.c's d_stmt_uname()) has
 * one, its key */
unsigned kp_out_nargs(const struct stmt *st);
/* ... the j-th argument's node, whole: trace()'s value, printf()'s
 * argument j, a name key's key */
const struct node *kp_out_node(const struct stmt *st, unsigned j);
bool kp_out_here(const struct node *a);
/* ... ustack() or jstack() whole: the record's stack (OSTK) */
bool kp_out_stk(const struct node *a);
const struct node *kp_out_arg(const struct stmt *st, unsigned j, bool *str);
/* ... args[N] whole, a string at a probe declaring it one: N, else -1;
 * may clause ci print one (kp_out_ok() asks)? */
int kp_out_sarg(const struct stmt *st, unsigned j);
/* ... argument j is one value (today's forms: an OUT, OSTR, OVSTR or
 * none, kp_out_arg()'s), not a format-time tree (below) */
bool kp_out_whole(const struct d_kplan *k, const struct stmt *st, unsigned j);
/* kplan_vars.c: the this-> reads typed as set, made; is n one? */
void kp_dset_make(struct d_kplan *k);
bool kp_dset(const struct d_kplan *k, const struct node *n);

/* kplan_fkey.c: format-time keys.  The copies made, and freed; the copy
 * of st whose keys are the leaves of its trees and the literals' 0s,
 * its keys (*bits) and clause (*ci), or NULL; the merge's keys of ks
 * made from their leaves' */
void kp_fkeys_make(struct d_kplan *k);
void kp_fkeys_free(struct d_kplan *k);
/* kplan_akey.c: probe names and literals as thread-local array keys */
void kp_akeys_make(struct d_kplan *k);
void kp_akeys_free(struct d_kplan *k);
bool kp_akey(const struct d_kplan *k, const struct node *n, unsigned i);
bool kp_akey_var(const struct d_kplan *k, unsigned v, unsigned i);
int64_t kp_akey_id(const struct d_kplan *k, const struct d_probe *pr,
		   const struct node *key);
const char *kp_akey_str(const struct d_kplan *k, int64_t id);
const struct stmt *kp_fkey_stmt(const struct d_kplan *k, const struct stmt *st,
				uint8_t *bits, unsigned *ci);
/* ... a format-time variable's store st: its copy (v = its leaf), else
 * st; is n a node of the copies (the store's place, a key)? */
const struct stmt *kp_fvar_store(const struct d_kplan *k,
				 const struct stmt *st);
bool kp_fvar_clone(const struct d_kplan *k, const struct node *n);
/* ... is v a self-> one (kept in cgtlss as its leaf; its keys marked
 * where absent, its tests of whether it is set: UBPF_KF_PRES)? */
bool kp_fvar_self(const struct d_kplan *k, unsigned v);
/* ... is st, of clause c, a store that changes nothing (this->v =
 * this->v != NULL ? this->v : "." after this->v = basename(...)): the
 * kernel runs it as nothing (kstmt's noop) */
bool kp_fvar_noop(const struct d_kplan *k, const struct clause *c,
		  const struct stmt *st);
/* ... the leaves the copy sh (kp_fvar_store()'s) makes, in d_eval()'s
 * order: several where the variable is dead (never read: a store's
 * only effect is its copies' faults), up to KP_FLEAVES; sh's own
 * e->b, one, for any other store */
#define KP_FLEAVES 4
const struct node *const *kp_fvar_leaves(const struct d_kplan *k,
					 const struct stmt *sh, unsigned *n);
/* ... the this-> string rooms variable v takes (k->frooms: 1 but for a
 * printed format-time variable, a leaf each) */
unsigned kp_fvar_rooms(const struct d_kplan *k, unsigned v);
void kp_fkey_merge(const struct d_kplan *k, const struct kstmt *ks,
		   struct dv *keys, char (*kbuf)[D_STRSIZE], uint8_t absent);
/* ... the globals only BEGIN stores, made; is n a read of one? */
void kp_consts_make(struct d_kplan *k);
bool kp_run_const(const struct d_kplan *k, const struct node *n);
/* the type BEGIN leaves run constant v with, where the kernel can read
 * it (KV_RCON) */
bool kp_rcon_type(const struct d_kplan *k, unsigned v, uint8_t *sz,
		  uint8_t *sg);
/* every variable's vst, vbit, vslot: KV_RCON with its slot and type
 * where it is a run constant the kernel reads, else KV_NO, -1, -1 */
void kp_rcon_assign(struct d_kplan *k);
/* n, an integer, cannot fault (kplan_spec.c) */
bool kp_node_safe(const struct node *n);
/* kplan_gcnt.c: the global counting statement st counts (G += e, G -=
 * e, G++, ++G, G--, --G of an integer global scalar), the value it adds
 * (e, or 1 built in *one) and whether it takes it away; else -1 */
int kp_gcnt_count(const struct d_prog *p, const struct stmt *st,
		  const struct node **val, struct node *one, bool *sub);
/* ... the globals the kernel may count into cnt (p->nvars), ticks the
 * tick-N clauses (NULL: none), and where why (may be NULL), for each
 * that one is not, the clause that reads it at a probe + 1; how many */
unsigned kp_gcnt_find(const struct d_prog *p, const bool *ticks, bool *cnt,
		      unsigned *why);
/* ... does tick-N clause ci (ticks[ci]) mention a global the kernel may
 * count (a fold firing: kplan_exit.c's d_kplan_folds())?  The second
 * asks k's decision, the same */
bool kp_gcnt_folds(const struct d_prog *p, const bool *ticks, unsigned ci);
bool kp_gcnt_tick(const struct d_kplan *k, const bool *ticks, unsigned ci);
/* ... st as a counting statement of a global k counts: 1, ks made; 0, it
 * is one whose value the kernel cannot add; -1, it is not one */
int kp_gcnt_stmt(const struct d_kplan *k, const struct stmt *st,
		 struct kstmt *ks);
/* ... the value ks adds (one: ++'s 1) */
const struct node *kp_gcnt_value(const struct d_kplan *k,
				 const struct kstmt *ks, struct node *one);
/* ... what the kernel counted for ks, added to its global */
void kp_gcnt_merge(const struct d_kplan *k, const struct kstmt *ks,
		   const struct ubpf_kval *vals, unsigned ncpus);
/* ... -v: why global v is not counted (or its value not taken), into
 * buf; NULL when it is not a global that could be */
const char *kp_gcnt_why(const struct d_kplan *k, unsigned v, char *buf,
			size_t len);
/* kplan.c: can the kernel run st as written (kp_stmt_ok() without the
 * copy)? */
bool kp_stmt_plain(const struct d_kplan *k, const struct stmt *st,
		   struct kstmt *ks);

/* kplan_str.c: a printf() or trace() argument dtrace computes when it
 * formats from leaves the plan computes at the hit ("String functions
 * printed from the out area"): the leaves in d_eval()'s order into lv,
 * their count, or -1 */
#define KP_LEAVES 16
struct kp_leaf {
	const struct node *n; /* the leaf (copyinstr(E): OSTR of E) */
	unsigned kind;	      /* UBPF_K_OUT, UBPF_K_OSTR, UBPF_K_OVSTR */
	bool cond; /* under a ?: branch, right of && or ||: maybe not read */
	/* OVSTR: the variable and its room (a printed format-time
	 * variable's leaf l: room l, kplan_fkey.c's kp_fvar_out()) */
	unsigned var, room;
};
int kp_out_leaves(const struct d_kplan *k, const struct node *a,
		  struct kp_leaf *lv);
/* ... a format-time function that returns a string and reads nothing
 * but its arguments and strsize (strjoin(), substr(), basename(), ...;
 * not ufunc() and its kin): kplan_fkey.c's trees too */
bool kp_ftime_strfn(const struct node *n);
/* Does format-time tree a name a user address (ufunc(), usym(), umod(),
 * uaddr(): the record's process's modules, kplan_str.c)? */
bool kp_out_names(const struct node *a);
/* ... argument j of st, not whole: its leaves (kp_out_leaves()), -1 if
 * whole or not such a tree */
int kp_out_ftime(const struct d_kplan *k, const struct stmt *st, unsigned j,
		 struct kp_leaf *lv);
/* ... the tree dtrace evaluates over them: the argument, or where it is
 * a format-time variable read whole, its store's (kp_fvar_out()) */
const struct node *kp_out_tree(const struct d_kplan *k, const struct stmt *st,
			       unsigned j);
/* kplan_fkey.c: is a a printed read of a format-time variable (a whole
 * printf() or trace() argument after its clause's store)?  Its store's
 * leaves, each an OVSTR of its room, into lv, their count, and its
 * tree into *tree; else 0 */
int kp_fvar_out(const struct d_kplan *k, const struct node *a,
		struct kp_leaf *lv, const struct node **tree);
/* ... may argument j of st (statement of clause ci), not whole, be
 * computed so (its copies' jumps: kplan_out.c)? */
bool kp_out_ftime_ok(const struct d_kplan *k, unsigned ci,
		     const struct stmt *st, unsigned j);
/* ... the record path's layouts (out_memo()), freed */
void kp_out_memo_free(struct d_kplan *k);
/* ... is a copyinstr(argN, M) of a count the hit computes in argument
 * j of st, in a clause that may fire at a uprobe site, where a
 * statement the kernel runs follows, in a program where the kernel
 * keeps self-> variables (noastr: user space's, no R2 copy ahead)? */
bool kp_out_hitcnt_noastr(const struct d_kplan *k, unsigned ci,
			  const struct stmt *st, unsigned j);
bool kp_out_sarg_ok(const struct d_kplan *k, unsigned ci);
/* Does a statement other than printf() and trace() follow statement i
 * of c's flat list on some path (after it in its list, or after an if
 * holding it in the list holding that if; an if counts as other), so
 * that a fault of its copy must end the clause there (OSTR's jump)? */
bool kp_out_ends(const struct clause *c, unsigned i);
/* Is probe a uprobe site's (its provider none of dtrace's or the
 * kernel's: USDT, pid; or none, a trial's)?  May clause c fire at one (some
 * description's provider field not one of those names, or a glob)?  Statement i
 * of clause ci's first R2 form's argument (doc/DESIGN.md §8, "R2 and R3: the
 * as-built plan": an argument string copied before the probe's first clause),
 * else -1 */
bool kp_usite(const struct d_probe *probe);
bool kp_usite_clause(const struct clause *c);
bool kp_profile_clause(const struct clause *c);
bool kp_uprobes_only(const struct clause *c);
int kp_ureg(const struct node *n);
int kp_out_apre(const struct d_kplan *k, unsigned ci, unsigned i);
/* Has if statement i of clause ci's flat list a slot in the out area
 * for its condition's value (the KEEP OUT: a statement under it, at any
 * depth, has bytes there: a printf(), trace() or SSTR)? */
bool kp_if_out(const struct d_kplan *k, unsigned ci, unsigned i);
/* kplan_vars.c: statement i of clause ci's flat list (struct clause's
 * flat), taken as kp_clause_ok() takes it; why a clause with an if is
 * not the kernel's for a reason of the whole clause (NULL: none) */
bool kp_flat_ok(const struct d_kplan *k, unsigned ci, unsigned i,
		struct kstmt *ks);
unsigned kp_nifs(const struct clause *c);
const char *kp_if_why(const struct d_kplan *k, unsigned ci, char *buf,
		      size_t len);
/* ... the clause has such statements or stores a KV_STR variable (it
 * ends with ODONE); prints: one of them prints */
bool kp_out_clause(const struct d_kplan *k, unsigned clause);
bool kp_out_prints(const struct d_kplan *k, unsigned clause);
/* ... statement st (of clause ci) stores a KV_STR variable: ks */
bool kp_sstr_ok(const struct d_kplan *k, unsigned ci, const struct stmt *st,
		struct kstmt *ks);
/* ... clause c may have an out area (kp_sout_where() says no why) */
bool kp_out_where(const struct d_kplan *k, const struct clause *c);
/* ... clause ci's, a kernel clause's or a sout one's (kplan_spec.c's
 * "Speculations"): a uprobe's or a kernel probe's program (k->traced);
 * NULL, or why not */
const char *kp_sout_where(const struct d_kplan *k, unsigned ci);
/* kplan.c: the first statement of a list that keeps a clause's plan
 * out of the kernel: exit() unless KP_ST_EXIT or KP_ST_TICK is given,
 * printa()/clear()/trunc()/normalize() unless KP_ST_TICK, raise() of
 * anything but a constant signal (kp_raise_sig()), or any raise() or
 * stop() without KP_ST_RAISE (or'ed in: the generated programs), or a
 * statement kplan.c does not know; NULL if none */
enum { KP_ST_NONE = 0, KP_ST_EXIT = 1, KP_ST_TICK = 2, KP_ST_RAISE = 4 };
/* ... raise()'s signal, where it is a constant the kernel sends (1 to
 * 64, as run.c's range and the kernel's valid_signal()), or stop()'s
 * (SIGSTOP, to the process) */
bool kp_raise_sig(const struct stmt *st, int64_t *sig);
const struct stmt *kp_stmts_stop(const struct stmt *v, unsigned n, int ok);
/* ... is there one (kp_stmts_stop())? */
bool stmts_stop(const struct stmt *v, unsigned n, int ok);
/* ... an integer predicate a record gate may test: no variable (but a
 * run constant the kernel reads: KV_RCON), string or timestamp, nothing
 * that can fault (kplan.c's "Record gates") */
bool gate_ok(const struct d_kplan *k, const struct node *n);
/* kplan_exit.c: clause c calls exit() where the kernel can decide it at
 * the hit; else why not (tr: c's probes all run generated programs) */
bool exit_at_hit(const struct d_kplan *k, const struct clause *c);
const char *exit_why(const struct d_kplan *k, const struct clause *c, bool tr);
/* kplan_vars.c: the one type every store of v gives it (1), stores
 * that disagree (0), or one the kernel cannot type (-1, *bad) */
int kp_stores_type(struct d_kplan *k, unsigned v, bool all, uint8_t *tz,
		   uint8_t *tg, const struct stmt **bad);
/* kplan_spec.c: clause c's predicate or a statement reads the process's
 * memory by an address (copyinto(), copyin() or copyinstr() of other
 * than an argument: node_late()) */
bool kp_late(const struct clause *c);
/* kplan_out.c: strsize fixed for the run, 2 to UBPF_STRMAX (no setopt()) */
bool kp_strsize_fixed(const struct d_kplan *k);
/* ... argument a (a whole printf() or trace() argument) is a KV_STR
 * variable's read */
bool kp_out_svar(const struct d_kplan *k, const struct node *a);
/* ... is the argument, whole, stringof() of a place (kplan_mem.c's
 * kp_mem_str())?  Its MSTR copies the string from the copy read before
 * the plan's first clause into a struct ubpf_kostr of the area, as
 * OVSTR's: no fault (the copy's sent the hit to user space whole) */
/* Bytes one argument takes in the out area; an SSTR (its copy's
 * address and length) and a speculation step's tag (kplan_spec.c's
 * d_kplan_kspec()): kagg_bpf.h's ubpf_kop_room() */
unsigned kp_out_size(bool str);
#define SSTR_SIZE ubpf_kop_room(UBPF_K_SSTR)
#define KTAG_SIZE ubpf_kop_room(UBPF_K_SPEC)
/* the out area's bytes of statements [from, to) of clause's flat list;
 * argument j of st as an argument string's number, else -1
 * (kplan_out.c, for kplan_outrun.c) */
unsigned kp_out_list_bytes(const struct d_kplan *k, unsigned clause,
			   unsigned from, unsigned to);
int kp_out_astr(const struct stmt *st, unsigned j);
bool kp_out_mstr(const struct d_kplan *k, const struct node *a);
/* kplan_str.c: execname (the comm the kernel reads at the hit) */
bool kp_is_comm(const struct node *n);
bool kp_has_psargs(const struct node *n);
/* Is a node of the tree n (itself, a, b, c, its arguments) one is()
 * holds for?  The one walk of kp_has_psargs(), kp_node_vt(),
 * kp_out_names() and kplan_spec.c's and kplan_mem.c's searches. */
bool kp_node_any(const struct node *n, bool (*is)(const struct node *));
/* ... strlen(execname), which the kernel computes (UBPF_K_CLEN)? */
bool kp_comm_strlen(const struct d_kplan *k, const struct node *n);
/* ... a literal key (cut to strsize - 1 bytes) or c ? "a" : "b" */
bool kp_lit_key(const struct d_kplan *k, const struct node *n);
/* ... probeprov, probemod, probefunc or probename (a ?: key's branch):
 * probe pr's string, else NULL */
const char *kp_ident_str(const struct d_probe *pr, const struct node *n);
/* ... probeprov, probemod, probefunc or probename compared with a
 * literal or another of them (k NULL: whatever the plan's kind), which
 * a plan folds at each probe: kp_ident_fold() its truth at probe pr */
bool kp_ident_cmp(const struct d_kplan *k, const struct node *n);
int kp_ident_fold(const struct d_probe *pr, const struct node *n);
/* ... c ? a : b, a and b execname or literals, one execname at least */
bool kp_mix_key(const struct d_kplan *k, const struct node *n);
/* ... c ? copyinstr(argN) : "lit" or the other way round: N, else -1 */
int kp_smix_key(const struct d_kplan *k, const struct node *n);
/* ... execname OP "literal" or OP a KV_STR variable (either way
 * round): the literal or the variable's index, and OP's number as
 * VVCMP's agg for execname on the left */
bool kp_comm_cmp(const struct d_kplan *k, const struct node *n,
		 const struct node **lit, int *v, unsigned *op);
/* ... execname OP copyinstr(argN) (either way round): N, and OP as
 * kp_comm_cmp()'s, where a fault sends the hit to user space */
bool kp_comm_arg(const struct d_kplan *k, const struct node *n, int *arg,
		 unsigned *op);
/* kplan_merge.c: the bytes kaggs_v's keys need: its room's UBPF_KVROOM()
 * of it */
int64_t kp_vkey_imm(const struct d_kplan *k);
/* ... the bytes kaggs_v key n of kind sx (KSX_NONE: a KV_STR
 * variable; KSX_ARG: an argument's string) holds at most: its room is
 * UBPF_KVROOM() of it */
size_t kp_vkey_bound(const struct d_kplan *k, const struct node *n,
		     unsigned sx);
/* ... a pair's (ks->vkey2) rooms' bytes, the two side by side, and a
 * third's after them (ks->vkey3), the first's as its own key's;
 * kp_vkey_rooms(): each room's (0: no third), and their sum */
unsigned kp_vkey_pair(const struct d_kplan *k, const struct kstmt *ks,
		      unsigned *room1);
unsigned kp_vkey_rooms(const struct d_kplan *k, const struct kstmt *ks,
		       unsigned room[3]);
/* ... room nth's (0 to 2) offset in the key's s, and its bytes (len) */
unsigned kp_vkey_room_at(const struct d_kplan *k, const struct kstmt *ks,
			 unsigned nth, unsigned *len);
/* kplan_out.c: OUT, OSTR (of argument a) or ODONE pl->ops[at]: its slot or n;
 * false when the out area is full */
bool kp_out_op(const struct d_kplan *k, struct ubpf_kplan *pl, unsigned at,
	       const struct node *a);

#endif /* USDT_DTRACE_KPLAN_IMPL_H */
