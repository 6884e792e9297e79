/* SPDX-License-Identifier: MIT */
/*
 * kagg_bpf.h - aggregating in the kernel: what the plans compiled from
 * the D program (../kplan.c), the BPF program that runs them
 * (kagg.bpf.h, in usdt.bpf.c) and the loader that installs them and
 * reads the aggregations back (../bpf_agg.c, ../bpf_agg_read.c) agree
 * on.  Fixed-size types of <linux/types.h> only, as in usdt_bpf.h.
 *
 * A plan is what the kernel does on a hit of one probe in one process
 * instead of writing a record for the clauses that allow it
 * (`probe /pred/ { @a[k1, k2] = sum(e); }` with integer expressions of
 * constants, arguments, pid and tid).  It is kept in the hash map
 * kplans under (event, pid): a small stack machine's instructions, one
 * run per hit.  Each instruction pushes or combines 64-bit values; one
 * with sz set narrows its result to sz bytes, sign- or zero-extended
 * (sg), as the user-space evaluator narrows every value to its C type,
 * so both give the same bits.  PRED pops the predicate: zero jumps to
 * the end of the clause.  KEY pops a key into the key being built, AGG
 * updates the aggregation entry of that key.
 *
 * The aggregations live in one per-CPU hash map, kaggs: the key is the
 * aggregating statement's number (the compiler's, not the aggregation's:
 * two statements may give one aggregation keys of different types), the
 * bucket for quantize() and lquantize(), and the key tuple; the value
 * is two 64-bit words per CPU:
 *
 *	count()			a: hits
 *	sum(e)			a: sum
 *	avg(e)			a: hits, b: sum
 *	min(e), max(e)		a: the least (greatest) value, b: hits,
 *				so a CPU that never updated it is skipped
 *	quantize(), lquantize()	a: hits in the key's bucket
 *	llquantize()		a: hits in the key's bucket
 *	stddev(e)		bucket 0: a hits, b sum; bucket 1: a and b
 *				the low and high 64 bits of the sum of
 *				e's squares, 128 bits (../d/agg.c's)
 *
 * An entry the map has no room for is counted per CPU in kdrops, and so
 * is a min() or max() a nested program could not finish (b is 2 while
 * a hit claims an entry's first value: cgen_agg.c's minmax()): counter
 * UBPF_KDROP; an entry the kernel could not allocate (the insert's
 * -ENOMEM, with room in the map) in counter UBPF_KDROP_NOMEM, which
 * dtrace reports with its cause.  The
 * words are updated atomically (doc/DESIGN.md's "Programs that nest on
 * a CPU").  An
 * aggregation without keys needs no hash: its statement gets slots of
 * the per-CPU array kflat (one, or one per bucket), found by index, and
 * sum() sets b as well, so a slot with a and b 0 was never updated.
 *
 * Faster paths, the same results.  A plan whose instructions take the
 * common shape "[/t [&& t]/] @ = fn([v OP imm])", each test t being
 * "v [OP imm] [CMP imm]" -- one clause, no keys, v an argument, pid,
 * tid or a constant, each part optional --
 * is also described by its struct ubpf_kdirect (the loader finds the
 * shape, kagg_direct() in ../bpf_agg.c), which the program evaluates
 * in straight-line code instead of running the instructions one by one.
 * And the first process of an event with a plan finds it without the
 * hash: kplan1[ev] names that pid and its plan's slot in the array
 * kplanv (UBPF_KPLANV plans; the hash holds every plan as well).
 */
#ifndef KAGG_BPF_H
#define KAGG_BPF_H

#include <linux/types.h>

#include "usdt_bpf.h" /* struct ubpf_arg */

#define UBPF_KOPS 256	     /* instructions of one plan */
#define UBPF_KSTACK 16	     /* its stack: values */
#define UBPF_KMAXKEYS 4	     /* keys of a kernel aggregation */
#define UBPF_KMAXENTRIES 65536 /* entries of kaggs */
#define UBPF_KFLAT 4096	       /* slots of kflat */
#define UBPF_KDROP 0	       /* kdrops' counters: drops... */
#define UBPF_KDROP_NOMEM 1     /* ... an entry the kernel could not allocate */
#define UBPF_KDROPS 2

/* instructions */
enum {
	UBPF_K_CONST, /* push imm */
	UBPF_K_ARG,   /* push argument n */
	UBPF_K_PID,
	UBPF_K_TID,
	UBPF_K_NORM, /* narrow the top (sz, sg) */
	UBPF_K_NEG,
	UBPF_K_BNOT,
	UBPF_K_LNOT,
	/* binary: pop b, pop a, push a OP b */
	UBPF_K_ADD,
	UBPF_K_SUB,
	UBPF_K_MUL,
	UBPF_K_DIVU, /* by a constant that is not 0 */
	UBPF_K_MODU,
	UBPF_K_DIVS,
	UBPF_K_MODS,
	UBPF_K_AND,
	UBPF_K_OR,
	UBPF_K_XOR,
	UBPF_K_SHL, /* by b & 63 */
	UBPF_K_SHR,
	UBPF_K_SAR,
	UBPF_K_EQ,
	UBPF_K_NE,
	UBPF_K_LTS,
	UBPF_K_LTU,
	UBPF_K_GTS,
	UBPF_K_GTU,
	UBPF_K_LES,
	UBPF_K_LEU,
	UBPF_K_GES,
	UBPF_K_GEU,
	UBPF_K_LAND, /* of the truth of a and b: no side effect, no fault */
	UBPF_K_LOR,
	UBPF_K_LXOR,
	UBPF_K_SEL,  /* pop c, pop b, pop a: push a ? b : c */
	UBPF_K_PRED, /* pop; 0: go to jump (n: the comparison, as a binary) */
	UBPF_K_KEY,  /* pop into key n */
	UBPF_K_AGG,  /* update statement agg's entry (fn n); see below */
	/* generated programs only (../cgen.c; kplan.c makes them only
	 * when asked to, never for the generic program): */
	UBPF_K_TIME,  /* push the firing's timestamp */
	UBPF_K_VLD,   /* push variable slot (n: UBPF_KV_SELF or _THIS) */
	UBPF_K_VST,   /* pop into it; a self-> variable set to 0 is deleted */
	UBPF_K_SEQ,   /* push copyinstr(argument n) == the string of the next
		       * step SDATA instructions (step: its length); with
		       * UBPF_KF_NEG, !=; levels not 0: OP it whole, OP
		       * VVCMP's agg levels - 1 (== != < > <= >=, the
		       * argument on the left), imm strsize - 1, the
		       * argument's cut (no UBPF_KF_NEG); agg, when
		       * not 0, is its fault site + 1: a string that
		       * cannot be read sets the site's bits and goes to
		       * jump, its clause's end */
	UBPF_K_SDATA, /* 8 bytes of that string, NUL-padded, in imm */
	UBPF_K_SKEY,  /* key n is copyinstr(argument slot), for an AGG
		       * with UBPF_KF_SKEY (kaggs_s) */
	UBPF_K_SC,    /* && (n 0), || (n 1) whose right side may fault:
		       * pop a; if its truth is n, push n and go to jump,
		       * past the right side and its truth (a NE 0) */
	UBPF_K_REC,   /* the hit needs its record: a clause user space
		       * runs may run (its predicate, before it, held:
		       * kplan_emit.c's d_kplan_gate()) */
	/* printf() and trace() computed at the hit (../kplan_out.c,
	 * ../cgen_out.c): the values go into the record's out area */
	UBPF_K_OUT,   /* pop a value into the out area at slot
		       * (UBPF_KF_KEEP: store it, not popped) */
	UBPF_K_OSTR,  /* pop an address: copyinstr() of it, at most imm
		       * bytes read, into the out area at slot */
	UBPF_K_ODONE, /* output clause n ran: its bit in the out area
		       * (UBPF_KF_NOREC: a clause that only stores strings,
		       * below: the bit alone, no record for it) */
	/* string variables (this->s, self->s = copyinstr(E)) printed by
	 * such clauses: n UBPF_KV_THIS or UBPF_KV_SELF, slot as VLD's (a
	 * this-> string's its UBPF_KTSTR slot) */
	UBPF_K_SSTR,  /* pop an address: copyinstr() of it, at most imm
		       * bytes read, into the variable; the copy's address
		       * and length (struct ubpf_kostr's first 16 bytes)
		       * into the out area at agg; one that faulted sets
		       * output clause levels' bit and goes to jump, its
		       * clause's end; sz a UBPF_KJ_* (below): a part of
		       * a strjoin() appended instead */
	UBPF_K_SCLR,  /* the variable = 0 or "": reads as "" (self->:
		       * deleted) */
	UBPF_K_OVSTR, /* the variable's string (imm bytes at most) into
		       * the out area at agg, a struct ubpf_kostr */
	UBPF_K_VSEQ,  /* push the self-> string variable slot (n
		       * UBPF_KV_SELF) == the string of the next step
		       * SDATA instructions, as SEQ's (UBPF_KF_NEG: !=),
		       * or, agg not 0, OP it, OP VVCMP's agg agg - 1
		       * (< > <= >=), imm strsize - 1; absent, it reads
		       * "" */
	UBPF_K_VSLEN, /* push strlen() of the self-> string variable slot
		       * (n UBPF_KV_SELF), imm the most bytes its store
		       * copies (strsize - 1); absent, 0 */
	UBPF_K_SLIT,  /* the variable (n, slot as SSTR's) = the string of
		       * the next step SDATA instructions (a literal); sz
		       * a UBPF_KJ_*: a part of a strjoin(), as SSTR's */
	UBPF_K_SMOV,  /* the variable (n, slot) = the string variable of
		       * kind levels and slot step, its imm bytes at most
		       * (strsize - 1); that one absent or unset, "" */
	UBPF_K_VVEQ,  /* push the self-> string variable slot (n
		       * UBPF_KV_SELF) == the one of slot step, imm bytes
		       * at most (strsize - 1) (UBPF_KF_NEG: !=); absent,
		       * either reads "" */
	UBPF_K_CPU,   /* push cpu, the hit's CPU (bpf_get_smp_processor_id(),
		       * the record's cpu), as an int */
	UBPF_K_UID,   /* push uid, gid: the real ids of the hit's thread
		       * (bpf_get_current_uid_gid(), the record's), as a */
	UBPF_K_GID,   /* uint32_t */
	UBPF_K_VKEY,  /* key n is the string variable (levels
		       * UBPF_KV_SELF or _THIS, slot as VLD's), its imm
		       * bytes at most (strsize - 1), for an AGG with
		       * UBPF_KF_VKEY (kaggs_v); absent or unset, "";
		       * UBPF_KVROOM(step) zeroed where step > imm (the
		       * map's room, a pair's: UBPF_KF_VPAIR) */
	UBPF_K_VVCMP, /* push string variable (n, slot as VLD's) OP the
		       * one of kind levels and slot step, imm bytes at
		       * most (strsize - 1), in strcmp()'s order; OP by
		       * agg: 0 ==, 1 !=, 2 <, 3 >, 4 <=, 5 >=; absent or
		       * unset, either reads "" */
	/* execname (the thread's comm, bpf_get_current_comm(): 16
	 * bytes, zeroed first and so NUL-padded) and literals at the
	 * hit (kplan_str.c's "execname and literals") */
	UBPF_K_CKEY,  /* key n is execname, step bytes of it at most
		       * (strsize's, 16 at most, NUL included), for an
		       * AGG with UBPF_KF_VKEY (kaggs_v, imm the bytes of
		       * its room: UBPF_KVROOM(imm), zeroed) */
	UBPF_K_LKEY,  /* key n is the literal of the next (step + 8) / 8
		       * SDATA (step its length, cut to strsize - 1), for
		       * an AGG with UBPF_KF_VKEY (imm as CKEY's); with
		       * UBPF_KF_SEL, pop c: c != 0
		       * that one, else the literal of the (levels + 8)
		       * / 8 SDATA after it (levels its length); with
		       * UBPF_KF_TAB, the first of agg such LKEYs (each
		       * its SDATA after it, levels its number 0, 1, ...),
		       * pop i: the literal of number i */
	UBPF_K_CCMP,  /* push execname OP the literal of the next (step +
		       * 8) / 8 SDATA (step its length, the first 16
		       * bytes of it at most), strcmp()'s order; OP by
		       * agg as VVCMP's (the literal on the left: the
		       * order turned round, kplan_expr.c) */
	UBPF_K_CVCMP, /* push execname OP the string variable (levels
		       * UBPF_KV_SELF or _THIS, slot as VLD's), imm bytes
		       * at most (strsize - 1); OP as CCMP's; absent or
		       * unset, the variable reads "" */
	UBPF_K_CACMP, /* push execname OP copyinstr(argument n) (read as
		       * SEQ's string; agg its fault site as VACMP's, or 0:
		       * a fault the hit's whole), cut to imm bytes
		       * (strsize - 1) as copyinstr() cuts it; OP step
		       * (CCMP's agg) */
	UBPF_K_MKEY,  /* key n is c ? a : b, c popped, a and b each a
		       * literal or execname (agg bit 0: a is execname,
		       * bit 1: b is; one of them at least), for an AGG
		       * with UBPF_KF_VKEY (imm as CKEY's): a literal's
		       * bytes in the SDATA after it, a's then b's, as
		       * LKEY's (step a's length, levels b's), execname
		       * slot bytes at most as CKEY's step; the key's word
		       * k[n] 1 where execname was taken, else 0 (its
		       * bytes tainted at the merge: kplan_merge.c) */
	UBPF_K_SMKEY, /* key n is c ? a : b, c popped, one of a and b
		       * copyinstr(argument slot) (agg 1: a, 2: b) as
		       * SKEY's, the other the literal of the next (step +
		       * 8) / 8 SDATA (step its length, UBPF_KSKEY - 1 at
		       * most), for an AGG with UBPF_KF_SKEY (kaggs_s); the
		       * key's word k[n] 1 where the string was taken, else
		       * 0 (tainted at the merge, as MKEY's); agg 3: a is
		       * copyinstr(argument slot), b copyinstr(argument
		       * levels), both as SKEY's, no SDATA, k[n] 1 */
	UBPF_K_VACMP, /* push the string variable (levels UBPF_KV_SELF
		       * or _THIS, slot as VLD's) == copyinstr(argument
		       * n), read as SEQ's and cut to imm bytes (strsize
		       * - 1) as copyinstr() cuts it (UBPF_KF_NEG: !=),
		       * or, step not 0, OP the string, OP VVCMP's agg
		       * step - 1 (< > <= >=, strcmp()'s order);
		       * absent or unset, the variable reads ""; agg,
		       * when not 0, its fault site + 1, as SEQ's: a
		       * string that cannot be read sets the site's bits
		       * and goes to jump, its clause's end */
	UBPF_K_CWKEY, /* key n is execname (bpf_get_current_comm(), 16
		       * bytes, zeroed first): its first 8 bytes into
		       * k[n], the next 8 into k[levels], the word of the
		       * statement's copyinstr() key (SKEY, kaggs_s: its
		       * string is in s, and k[levels] was 0) */
	UBPF_K_SKEY2, /* key n is copyinstr(argument slot) too, its
		       * string (NUL included) in the kaggs_s key's s
		       * right after the NUL of argument levels' (SKEY's,
		       * before it in the plan), or with step, a third,
		       * after the NULs of argument step - 1's (SKEY's)
		       * and levels' (the second's); the strings, NULs
		       * included, at most UBPF_KSKEY bytes, or the hit is
		       * user space's (seq_read()), or the key kaggs_l's
		       * (cgen_agg.c's "Long string keys") */
	UBPF_K_PPID,  /* push ppid, the hit's thread's real_parent's tgid
		       * read through task_struct at the offsets imm
		       * holds (real_parent's in bits 0-31, tgid's in
		       * 32-63, from the kernel's BTF), as an int, as the
		       * record's is read (cgen_rec.c's anc_walk(),
		       * cgen_kprov.c's kp_kctx()) */
	UBPF_K_JMP,   /* go to jump (a forward one, the stack empty): the
		       * end of an if's body, past its else (kplan_stmt.c's
		       * emit_list(); generated programs only, as TIME) */
	UBPF_K_ECRED, /* push curpsinfo->pr_euid or pr_egid, the hit's
		       * thread's cred's euid or egid, through task_struct
		       * at the offsets imm holds (cred's in bits 0-31, the
		       * id's in struct cred in 32-63, from the kernel's
		       * BTF), as a uint32_t, as the record's is read
		       * (cgen_rec.c's u_ecred()) */
	UBPF_K_SESS,  /* push curpsinfo->pr_pgid or pr_sid, the level-0 nr
		       * of the process's signal->pids[PIDTYPE_PGID or
		       * _SID], at the offsets imm holds (task_struct's
		       * signal in bits 0-31, that pids[] entry's in
		       * signal_struct in 32-47, numbers[0].nr's in struct
		       * pid in 48-63), as an int, as the record's is read
		       * (cgen_rec.c's u_sess()) */
	UBPF_K_SLEN,  /* push strlen(copyinstr(argument n)): the length
		       * of the copy the plan's strings are read into
		       * (cgen_sarg.c's seq_read()) less its NUL, at most
		       * imm (strsize - 1, copyinstr()'s cut), as a
		       * size_t */
	UBPF_K_CLEN,  /* push strlen(execname): the bytes before the NUL
		       * of bpf_get_current_comm()'s 16, as a size_t */
	UBPF_K_MLD,   /* push the sz-byte integer at byte agg of the copy
		       * of copyin(argument n, imm) (sg: sign-extended), a
		       * bit-field's levels bits at shift step of it
		       * (mem.c's bits_value()); every such copy of the
		       * plan is read before its first clause runs, into
		       * cgbuf's copy room (cgen_mem.c's mem_read()), and
		       * one that faults sends the hit to user space whole
		       * (kplan_mem.c) */
	UBPF_K_PROG,  /* push progenyof(imm), imm a pid not 0 (the plan's
		       * anc[n]), as an int: 1 where the hit's process or
		       * its chain of parents (task_struct's real_parent,
		       * each one's tgid, at the plan's anc_off) has it, 0
		       * where the chain ends at 0 without it; a chain cut
		       * (UBPF_ANC links, a read that failed) before every
		       * constant was found sends the hit to user space
		       * whole (cgen_rec.c's cgen_anc_plan(); generated
		       * programs only, as TIME) */
	UBPF_K_XEND,  /* the winner's plan ends here: where S_FLAGS has
		       * UBPF_RF_XWON, REC, then to the plan's end (an
		       * exit clause's place, kplan_exit.c's
		       * d_kplan_xend(); generated programs only, as TIME) */
	UBPF_K_SCOMM, /* the string variable (n, slot as SSTR's) =
		       * execname, the hit's comm, written as SLIT writes
		       * a literal (cgen_out.c's scomm(); generated
		       * programs only, as TIME) */
	UBPF_K_OSTK,  /* printf() or trace() prints the record's user
		       * stack (../kplan_out.c's kp_out_stk()): no
		       * instruction, no byte of the out area; the event's
		       * records carry the stack (cgen_ustk.c's
		       * ustack_out()) */
	UBPF_K_VTIME, /* push the firing's vtimestamp, read once a hit
		       * before the plan (cgen.c's prologue, S_VT) and
		       * carried by its record; a lost clock
		       * (UBPF_VTIME_LOST) sends the hit to user space
		       * whole, or, slot a fault site (1 up: a plan that
		       * keeps self-> variables, kplan_vars.c's vfault),
		       * sets the site's bits (3) and goes to jump, the
		       * clause's end (cgen_rec.c; generated programs
		       * only) */
	UBPF_K_PROGX, /* pop p, push progenyof(p) of a p the plan computes,
		       * as an int: 1 where (__u32)p is the hit's pid or a
		       * tgid of its chain of parents, which the plan's
		       * walk (cgen_rec.c's cgen_anc_plan(), pl->ancx)
		       * kept whole in cgbuf's chain room before the first
		       * clause, 0 where not (a chain it could not finish
		       * sent the hit to user space whole there; generated
		       * programs only, as PROG) */
	UBPF_K_TSET,  /* push whether the this-> variable slot (as VLD's
		       * with UBPF_KV_THIS) was stored by this firing, as
		       * an int: a this-> integer set to 0 is set, not its
		       * zero (the typed forms' dispatch, kplan_stmt.c's
		       * emit_forms(); generated programs only, as TIME) */
	/* speculations whose buffers' words the kernel keeps
	 * (doc/DESIGN.md's "Speculations in the kernel: the build in
	 * steps"; cgen_spec.c's three steps on cgspec's nspec words, each
	 * one atomic instruction, and the tag, a struct ubpf_kspec at
	 * slot in the out area; generated programs only: the generic
	 * kagg.bpf.h and drti's recorder never meet them; made where
	 * kplan_spec.c's d_kplan_kspec() holds; each has imm nspec, slot
	 * its tag's offset in the area's data and agg its clause's ran
	 * bit, kplan_out.c's kp_out_op(); jump, the clause's end) */
	UBPF_K_SPEC,  /* push speculation(): the first inactive buffer's
		       * ID, 0 where none is; imm nspec */
	UBPF_K_SPECU, /* pop the ID; speculate() (an ID past nspec: the
		       * fault site n - 1's illegal operation) */
	UBPF_K_SPECX, /* pop the ID; n 0 commit(), 1 discard() (an ID
		       * past nspec: the fault site levels - 1's) */
	/* generated programs only, as TIME */
	UBPF_K_MSTR, /* printf() or trace() prints stringof() of a place:
		      * the copy of copyin(argument n, imm), read before
		      * the plan's first clause as MLD's (cgen_mem.c's
		      * mem_read()), its bytes from byte agg up to a NUL,
		      * step bytes at most (min(imm - agg, strsize - 1):
		      * mem.c's d_mem_string()), into the out area at
		      * slot, a struct ubpf_kostr as OVSTR's; no fault
		      * (kplan_mem.c's kp_mem_str()) */
	UBPF_K_UREG, /* push uregs[]'s register n (UBPF_R_*), 64 bits
		      * unsigned: a uprobe site's pt_regs at bpf/uregs.h's
		      * offset, what its record's registers are
		      * (kplan_expr.c's kp_ureg()); never at a kernel
		      * probe */
	UBPF_K_AKEY, /* key n is copyinstr(argument slot) (seq_read()'s
		      * copy, as SEQ's), cut to imm bytes (strsize - 1), in
		      * a kaggs_v room (an AGG with UBPF_KF_VKEY: a pair's
		      * with UBPF_KF_VPAIR beside a string variable's, or
		      * alone or beside any other where the kernel keeps
		      * self-> variables), step and sz as VKEY's
		      * (../kplan.c's vkey_pair()); agg 0: a string that
		      * cannot be read, or that the copy cut, sends the hit
		      * to user space whole, else agg is its fault site + 1,
		      * as SEQ's: one that cannot be read sets the site's
		      * bits and goes to jump, its clause's end */
	UBPF_K_BCPY, /* a bounded copy's store, this->v = (char *)
		      * copyin(argument n, argument levels + 1), where its
		      * fault is the hit's (kplan_bstr.c's bfault): the
		      * copy is seq_read()'s of UBPF_KBSTR(n, levels),
		      * made before the plan's first clause; agg its fault
		      * site + 1, whose bits it sets, going to jump, its
		      * clause's end: 3 where argL is -1 (the next
		      * statement's cut stores below a copy of no bytes),
		      * 2 where argL + 1 is past what the clause's copies
		      * before it (step of them, each's L a byte of imm)
		      * left of UBPF_KBCPYBUDGET, 1 where a byte of it
		      * cannot be read (generated programs only) */
	/* raise(imm): the signal sent to the firing thread at the hit
	 * (bpf_send_signal_thread()), imm a constant 1 to UBPF_KRAISEMAX;
	 * n 1: stop(), imm SIGSTOP sent to the firing process
	 * (bpf_send_signal()) (../kplan.c's kp_raise_sig(); generated
	 * programs only) */
	UBPF_K_RAISE,
	/* push the run constant slot n (../kplan_fkey.c's "Run constants
	 * in the kernel"): word n + 1 of cgrcon's one value, which dtrace
	 * writes once BEGIN has fired; a program whose plan reads one
	 * ends a hit that finds word 0 still 0 (generated programs only) */
	UBPF_K_GLD,
	/* s[i] = c into the this-> string variable (n UBPF_KV_THIS, slot
	 * as SSTR's; ../kplan_svar.c's "Characters stored"): byte agg, a
	 * constant below imm (strsize - 1), = step where agg is below the
	 * string's length (VSLEN's), a NUL there cutting it; else nothing
	 * (the plan has it only where run.c's str_store() cannot fault:
	 * generated programs only) */
	UBPF_K_SCHR,
};
/* GLD's slots: cgrcon's value is 8 * (1 + UBPF_KRCON) bytes */
#define UBPF_KRCON 16
/* RAISE's largest signal: the kernel's _NSIG, its valid_signal()'s
 * bound, and run.c's (NSIG - 1 on Linux) */
#define UBPF_KRAISEMAX 64
#define UBPF_KANC 4 /* PROG's pids at one probe (struct ubpf_kplan's anc) */

/* VLD, VST's n: a self-> variable, slot its D variable index, the key
 * {tid, slot} of the map cgtls; a this-> variable, slot one of
 * UBPF_KTHIS values the program keeps for the firing (0 at its start);
 * an element of a thread-local array self->a[k...], its step keys
 * popped first (VST: below the value), the key {tid, var, k} of the
 * map cgtlsa, var the slot | step << 16, each key its value extended by
 * its own type (imm: the types, bits 3i..3i+2, size 1, 2, 4, 8 as 0-3,
 * | 4 if signed; not in the key, as ../d/run.c's d_dyn_key_add() keeps
 * none); an
 * element of a global array a[k...] (../kplan_garr.c), as SELFA's but
 * for tid UBPF_KGARR_TID, an id no thread has */
enum { UBPF_KV_SELF, UBPF_KV_THIS, UBPF_KV_SELFA, UBPF_KV_GARR };
#define UBPF_KGARR_TID 0xffffffffu
#define UBPF_KTHIS 8	    /* this-> variables in the kernel */
#define UBPF_KTSTR 4	    /* ... this-> strings (SSTR) */
/* SSTR's and SLIT's sz: a store of strjoin()s of copies and literals
 * (../kplan_str.c's kp_join_parts()), each part an SSTR or SLIT in
 * order, appended to the join's string (cgbuf's TSTR_AT(UBPF_KTSTR + 1),
 * cut at imm bytes) rather than put into the variable: the first starts
 * it empty, the last puts it into the variable (as a store's copy goes);
 * a copy that faults ends the clause there, the variable untouched */
#define UBPF_KJ_FIRST 1
#define UBPF_KJ_MID 2
#define UBPF_KJ_LAST 3
#define UBPF_KTLS 65536	    /* entries of cgtls */
/* MLD's copies: the bytes of one (copyin()'s size, at most), of a
 * plan's all (cgbuf's copy room: each rounded up to 8) */
#define UBPF_KCPYMAX 512
#define UBPF_KCPYROOM 2048
#define UBPF_KCPYSITES 16 /* ... copies of a plan (distinct {N, C}) */
#define UBPF_KTLS_UNFIT 0x2
/* struct ubpf_kplan's tls: it reads or writes a global array (GARR):
 * no hit of it goes to user space whole, as with self-> (bit 1), but a
 * process not armed at it is not kept in user space for good */
#define UBPF_KTLS_GARR 0x4
struct ubpf_kvkey {
	__u32 tid;
	__u32 var;
};
struct ubpf_kvakey {
	__u32 tid;
	__u32 var;
	__s64 k[UBPF_KMAXKEYS]; /* each narrowed to its type, unused 0 */
};
/* an array of one key: its elements in cgtlsa1, under the first 16
 * bytes of that key ({tid, var, k[0]}) */
#define UBPF_KVAKEY1 16

/* AGG's n: the aggregating function */
enum {
	UBPF_F_COUNT,
	UBPF_F_SUM,
	UBPF_F_AVG,
	UBPF_F_MIN,
	UBPF_F_MAX,
	UBPF_F_QUANTIZE,
	UBPF_F_LQUANTIZE, /* imm: base; step, levels */
	/* generated programs only (cgen_plan.c; kplan.c's D_KPLAN_VARS):
	 * the generic program, kfix and drti's recorder know neither */
	UBPF_F_STDDEV,
	UBPF_F_LLQUANTIZE, /* imm: factor | low << 16 | high << 32 |
			    * steps << 48 */
};

struct ubpf_kop {
	__u8 op;
	__u8 sz; /* 0, or narrow the result to 1, 2, 4, 8 bytes */
	__u8 sg;
	__u8 n;	     /* ARG, KEY: the index; AGG: UBPF_F_*; PRED: 0 or UBPF_K_EQ.. */
	__u16 agg;   /* AGG: the statement's number */
	__u16 jump;  /* PRED: where the clause ends */
	__u16 step;  /* AGG lquantize() */
	__u16 levels;
	__u16 flags; /* UBPF_KF_* */
	__u16 slot;  /* AGG with UBPF_KF_FLAT: its first slot in kflat; VLD, VST */
	__s64 imm; /* CONST, UBPF_KF_IMM: the value; AGG lquantize(): base */
};

/* ubpf_kop.flags */
#define UBPF_KF_IMM 0x1	 /* binary: b is imm, only a is popped */
#define UBPF_KF_FLAT 0x2 /* AGG: kflat[slot + bucket], not kaggs */
#define UBPF_KF_NEG 0x4	 /* SEQ: not equal */
/* SMKEY agg 1: c is a's argument itself (argN, argN != 0): at an
 * address 0 the literal is taken, and seq_read() reads nothing */
#define UBPF_KF_ANULL 0x4
#define UBPF_KSTRMAX 63	 /* SEQ: the longest string compared */
#define UBPF_KSTRARGS 4	 /* SEQ, SKEY: arguments a plan reads */
/* ... an argument number at or past UBPF_KBSTR0 is a bounded copy's
 * string (kplan_bstr.c): stringof() of copyin(argA, argL + 1) cut at
 * argL, numbered UBPF_KBSTR(A, L), which seq_read() copies from
 * argument A, at most argL bytes, where argL + 1 is at most
 * UBPF_KBSTRMAX and the copy's first and last bytes read */
#define UBPF_KBSTR0 64
#define UBPF_KBSTR(a, l) (UBPF_KBSTR0 + (a)*UBPF_MAXARGS + (l))
#define UBPF_KBSTR_A(x) (((x)-UBPF_KBSTR0) / UBPF_MAXARGS)
#define UBPF_KBSTR_L(x) (((x)-UBPF_KBSTR0) % UBPF_MAXARGS)
#define UBPF_KBSTRMAX 4096
/* BCPY: the bytes a clause run may copy in all (run.c's D_COPYIN_MAX:
 * kplan_bstr.c asserts they agree), the copies before it one names at
 * most */
#define UBPF_KBCPYBUDGET 65536
#define UBPF_KBCPYPREV 7
#define UBPF_KF_SKEY 0x8 /* AGG: kaggs_s, one key a string (SKEY) */
#define UBPF_KSKEY 64	 /* bytes of such a key, NUL included */
/* kaggs_l (generated programs): a kaggs_s key whose strings, NULs
 * included, pass UBPF_KSKEY bytes, the same struct ubpf_kkey and its
 * strings in UBPF_KSLONG(n) bytes, n the most strings a statement has
 * (SKEY, SKEY2, a third SKEY2: 1 to 3), NUL-padded (cgen_agg.c's "Long
 * string keys"); struct ubpf_klkey the longest, the room the key is
 * built in (cgen.c's cg_room_off()) and the merge's buffer */
#define UBPF_KSLONG(n) ((n)*UBPF_STRMAX)
#define UBPF_KF_NOREC 0x20 /* ODONE of a clause that prints nothing */
#define UBPF_KFSITES 16	 /* SEQ's fault sites (2 bits each, UBPF_RF_KFAULT) */
#define UBPF_KF_VKEY 0x40 /* AGG: kaggs_v, one key a string variable's */
/* bytes of a kaggs_v key's string for strsize - 1 (imm) bytes: all of
 * them, NUL-padded to a word */
#define UBPF_KVROOM(imm) ((((unsigned)(imm)) + 7u) & ~7u)
#define UBPF_KF_SEL 0x80 /* LKEY: of two literals, by a popped value */
/* VSEQ: whether the self-> string's entry is there at all, its bytes
 * unread (a format-time variable, ../kplan_fkey.c: set, it holds T's
 * leaf and T is never ""); VKEY: an absent variable's room marked, its
 * byte 1 set where a string's would be 0 after its NUL at byte 0
 * (cgen_svar.c's svar_copy()), so the merge tells "" unset from a
 * leaf "" stored.  The bit is SEL's: the flags are each op's own */
#define UBPF_KF_PRES 0x80
/* SSTR: a leaf of a ?: tree of copies and literals stored into a string
 * variable (../kplan_stmt.c's tree_store()): the tree's copies share
 * one slot of the out area, whose len is zeroed where the area starts
 * (../cgen_out.c's cgen_out_tstr()), so a literal leaf taken reads as
 * no fault.  SEL's bit too */
#define UBPF_KF_STREE 0x80
#define UBPF_KF_PRB 0x100 /* CONST: imm is the probe's id, which a
			   * program several probes share reads at the
			   * hit (cgen_kprov.c) instead */
/* OUT: the value stored, not popped (an if's condition, which its PRED
 * then pops: kplan_stmt.c's emit_list(); generated programs only, as JMP) */
#define UBPF_KF_KEEP 0x200
/* MLD: no load, nothing pushed: only its copy read (a this-> place's
 * store, whose copy run.c makes, and may fault on, though nothing reads
 * it: kplan_mem.c) */
#define UBPF_KF_MCOPY 0x400
/* OSTR, SSTR: pop nothing; the string is the copy seq_read() made of
 * argument step before the plan's first clause (a failed copy sent the
 * hit to user space whole), so no fault and no jump: R2 of doc/DESIGN.md
 * §8 "Strings at the probe of pages not yet touched: the rule", at
 * uprobe sites (kplan_stmt.c's emit_stmt(), cgen_out.c's ostr_pre());
 * generated programs only */
#define UBPF_KF_APRE 0x800
/* AGG with UBPF_KF_VKEY: two string keys, their rooms side by side in
 * the key's s (kplan.c's vkey_pair()): kaggs_v's alone, never kaggs_w's
 * (its short key would cut the second room); the second's key
 * instruction (CKEY, LKEY, MKEY, VKEY) has sz the words of s before
 * its room and imm its own bound */
#define UBPF_KF_VPAIR 0x1000
/* OSTR: copyinstr(E, N), N the hit's (../kplan_str.c's kp_ostr_hit()):
 * N popped first, then the address; N clamped to imm (strsize - 1) as
 * run.c's copyinstr() clamps it, 0 reading nothing, and kept in the
 * struct ubpf_kostr's cnt */
#define UBPF_KF_NCNT 0x2000
/* LKEY: leaf number levels of a nested ?: key's agg leaves (kplan_expr.c's
 * lit_key()): the first pops the number of the leaf to write */
#define UBPF_KF_TAB 0x4000
/* OUT, OSTR, OVSTR, MSTR of a printed statement's form but its last
 * (../kplan_stmt.c's emit_forms()): its slot the last form's, the
 * same place in the out area, so the layout (../kplan_out.c's
 * kp_out_op()) passes over it; the program writes what it says.  SSTR:
 * a ?: tree's copy but its last (UBPF_KF_STREE), its slot the tree's */
#define UBPF_KF_ALT 0x8000
#define UBPF_KLEAVES 16	 /* LKEY with UBPF_KF_TAB: the most leaves */
#define UBPF_KCOMM 16	 /* bytes of execname, NUL included */

/*
 * The out area of a record (UBPF_RF_KOUT, usdt_bpf.h): a struct
 * ubpf_kout, then each OUT's 8 bytes and each OSTR's struct ubpf_kostr
 * at its slot (from the area's data), in the plan's order.
 */
struct ubpf_kout {
	__u64 ran;   /* bit n: ODONE n ran (the clause's predicate held) */
	__u64 bytes; /* the area's, this header included */
};
struct ubpf_kostr {
	__s64 addr;
	__s32 len; /* bytes read (no NUL when imm); -1: a fault at addr,
		    * -2: at the page after it */
	__u32 cnt; /* UBPF_KF_NCNT: the count read, 0 to imm */
	char s[UBPF_STRMAX];
};
#define UBPF_KOUTMAX 2048 /* bytes of an out area */
#define UBPF_KOUTS 32	  /* output clauses of a plan */
/* ... the ran word's bits past them: the area holds a struct
 * ubpf_kspec (SPEC), and one of them a commit() or discard() that found
 * its buffer active (CLOSE) */
#define UBPF_KOUT_SPEC (1ull << 62)
#define UBPF_KOUT_CLOSE (1ull << 63)

/*
 * The tag of a speculation step, 16 bytes at its slot of the out area
 * (cgen_spec.c): speculation() {ID or 0 (failed), REACHED, the word's
 * count when taken}; speculate(ID) {ID, REACHED | old's ACTIVE, the
 * record's sequence}, speculate(0) {0, REACHED, 0}; commit(ID),
 * discard(ID) {ID, REACHED | old's ACTIVE, the count at the close}.
 * act 0: the statement was not reached.  The clause's ODONE ORs WHOLE
 * into each reached tag of its clause (cgen_out.c's cgen_out_op()): a
 * fault or a false predicate jumps past it, so a reached tag without
 * WHOLE is a clause that faulted after the step, the area's later slots
 * not its own.  cgspec's words (one array
 * entry, nspec u64): bit 0 the buffer active, bits 1-63 a count of
 * speculate()s that only grows.
 */
struct ubpf_kspec {
	__u32 id;
	__u32 act;
	__u64 n;
};
#define UBPF_KSPEC_ACTIVE 1  /* ubpf_kspec.act: the word's bit 0 was set */
#define UBPF_KSPEC_REACHED 2 /* ... the statement ran */
#define UBPF_KSPEC_WHOLE 4   /* ... and its clause ran to its ODONE */
#define UBPF_KSPECS 64	     /* the most nspec the kernel keeps */

/*
 * The bytes op writes in the out area from its place there (an SSTR's
 * and an OVSTR's at agg, another's at slot): an OUT's value, a string
 * copy's struct ubpf_kostr (OSTR, OVSTR, MSTR), an SSTR's copy's
 * address and length, a speculation step's tag; 0 for an op that
 * writes none there.  The one statement of it: the planner lays the
 * area out by it (../kplan_out.c's kp_out_op()) and the generator
 * bounds each write by it (../cgen_out.c).
 */
static inline unsigned ubpf_kop_room(unsigned op)
{
	switch (op) {
	case UBPF_K_OUT:
		return 8;
	case UBPF_K_OSTR:
	case UBPF_K_OVSTR:
	case UBPF_K_MSTR:
		return sizeof(struct ubpf_kostr);
	case UBPF_K_SSTR:
		return __builtin_offsetof(struct ubpf_kostr, s);
	case UBPF_K_SPEC:
	case UBPF_K_SPECU:
	case UBPF_K_SPECX:
		return sizeof(struct ubpf_kspec);
	default:
		return 0;
	}
}

/* kplans[{event, pid}] */
struct ubpf_kplan_key {
	__u32 ev;
	__u32 pid;
};

/*
 * cgarmed's value (bpf_agg_cgen.c's "Forks"): ARMED_USER, dtrace armed
 * the process there; ARMED_INH, the fork program did, from its parent's
 * entry (a self-> plan then asks cgtlsu first: cgen.c); ARMED_PASS, a
 * forked child of the process gets the entry too.  cgforkev's one
 * value: the events whose entries may pass, n of them, and the children
 * the fork program armed (cgen_fork.c).
 */
#define ARMED_USER 0x1
#define ARMED_INH 0x2
#define ARMED_PASS 0x4
#define UBPF_KFORKEV 64
struct ubpf_kforkev {
	__u32 n;
	__u32 pad;
	__u64 forks;
	__u32 ev[UBPF_KFORKEV];
};

/* A direct plan's operand: v, then optionally v OP imm, each narrowed */
struct ubpf_kdval {
	__u8 src; /* UBPF_K_ARG, PID, TID, CONST; UBPF_KD_NONE: no value */
	__u8 n;	  /* ARG: the index */
	__u8 sz, sg; /* src's narrowing */
	__u8 op;     /* UBPF_K_ADD..UBPF_K_LXOR with imm, or UBPF_KD_NONE */
	__u8 osz, osg; /* op's narrowing */
	__u8 pad;
	__s64 vimm; /* CONST: the value */
	__s64 imm;  /* op's b */
};

#define UBPF_KD_NONE 0xff

/*
 * A direct predicate's test: v (a struct ubpf_kdval), then a range
 * test the loader made of the comparison (==, !=, <, <=, >, >= with a
 * constant, signed or unsigned, or v's own truth): it holds when
 *
 *	(((__u64)v ^ flip) - lo <= span) != neg	(unsigned compare)
 *
 * flip (the sign bit for a signed comparison) maps the comparison's
 * order onto the unsigned one, so every operator, both signednesses and
 * the always-true and never-true cases are one subtraction and one
 * compare, without a branch per operator.
 */
struct ubpf_kdtest {
	struct ubpf_kdval v;
	__u64 flip, lo, span;
	__u8 neg;
	__u8 pad[7];
};

#define UBPF_KDTESTS 2 /* tests joined by && */

struct ubpf_kdirect {
	__u8 on;     /* the plan has this shape */
	__u8 ntests; /* predicate: 0 (none) .. UBPF_KDTESTS, all must hold */
	__u16 agg;   /* the AGG instruction's index */
	__u32 pad;
	struct ubpf_kdtest t[UBPF_KDTESTS];
	struct ubpf_kdval av; /* the aggregated value */
};

#define UBPF_KREC_GATE 2

struct ubpf_kplan {
	__u16 nops;
	__u8 record; /* some clause of the probe needs the record too;
		      * UBPF_KREC_GATE: only when a REC ran */
	__u8 tls;    /* 1: it reads or writes self-> variables in the
		      * kernel; UBPF_KTLS_GARR, a global array; UBPF_KTLS_UNFIT: a
		      * clause that keeps any    variable there was left out (too
		      * long), so no    plan can be exact */
	__u16 fstr;  /* strsize - 1, the bytes run.c reads of a string
		      * (a plan's every string read, from cgen_sarg.c) */
	__u16 ustr;  /* the arguments whose strings (copyinstr(argN)) a
		      * clause left to user space reads: a generated
		      * program's record of a hit the plan ran copies
		      * only these (cgen.c) */
	/* PROG's pids (anc[n] the one of PROG n), nanc of them, and
	 * task_struct's real_parent and tgid offsets (the BTF's, as
	 * PPID's imm holds them) its walk reads at */
	__u8 nanc;
	__u8 ancx; /* PROGX's: the walk keeps the whole chain (1) */
	__u8 pad_anc[6];
	__u32 anc_off[2];
	__u32 anc[UBPF_KANC];
	struct ubpf_kdirect d;
	struct ubpf_kop ops[UBPF_KOPS];
};

/* kplan1[ev]: the event's first process with a plan, and its slot + 1
 * in kplanv (0: none) */
struct ubpf_kplan1 {
	__u32 pid;
	__u32 slot;
};

#define UBPF_KPLANV 64 /* plans found without the hash */

/*
 * One plan for the run (kfix.bpf.h): the program's .rodata constant
 * kfix, set before the load when the run's first probe has a direct
 * plan that needs no record, with the argument specs (evspec's) of its
 * three operands: the predicate's tests, then the aggregated value.
 * The verifier knows every field, so it drops every branch the plan
 * does not take.  The .bss variable kfix_pid names the one process
 * whose every event has exactly this plan and these specs (0: none);
 * its hits take no cookie, evspec or plan lookup.
 */
struct ubpf_kfix {
	__u8 on;
	__u8 pad[7];
	struct ubpf_kdirect d;
	struct ubpf_kop agg; /* the AGG instruction: fn, slot, lquantize's */
	struct ubpf_arg arg[UBPF_KDTESTS + 1];
};

/* kaggs */
struct ubpf_kkey {
	__u16 agg;    /* the statement's number */
	__u16 bucket; /* quantize(), lquantize() */
	__u32 pad;
	__s64 k[UBPF_KMAXKEYS];
};

/* kaggs_s (generated programs): a key with one string, NUL-padded */
struct ubpf_kskey {
	struct ubpf_kkey k; /* k.k[n] of the string's key n: 0 */
	char s[UBPF_KSKEY];
};
/* kaggs_v (generated programs): a key with one string variable's
 * bytes, execname's or a literal's, or two such strings' rooms side by
 * side (a pair, UBPF_KF_VPAIR), or a pair and a third string
 * variable's room after them (../kplan.c's vkey_third(): three
 * variables at strsize 256 fill all of s); the map's key is k and the
 * first bytes of s its room (../kplan_merge.c's kp_vkey_imm()),
 * NUL-padded */
#define UBPF_KVROOMMAX (3 * UBPF_STRMAX)
struct ubpf_kvskey {
	struct ubpf_kkey k; /* k.k[n] of the string's key n: 0 */
	char s[UBPF_KVROOMMAX];
};
/* kaggs_w (generated programs): kaggs_v's key of a string that ends
 * within UBPF_KVSHORT bytes (its NUL there), where kaggs_v's room is
 * longer: a hit hashes and compares these bytes, not the room's */
#define UBPF_KVSHORT 32
struct ubpf_kvwkey {
	struct ubpf_kkey k;
	char s[UBPF_KVSHORT];
};
/* kaggs_x (generated programs): kaggs_v's key of a pair (UBPF_KF_VPAIR)
 * whose strings each end within UBPF_KVSHORT bytes of their rooms: the
 * first's UBPF_KVSHORT bytes, then the second's (cgen_agg.c's "Short
 * pairs") */
struct ubpf_kvxkey {
	struct ubpf_kkey k;
	char s[2 * UBPF_KVSHORT];
};
struct ubpf_klkey {
	struct ubpf_kkey k;
	char s[UBPF_KSLONG(3)];
};
struct ubpf_kval {
	__s64 a, b;
};

/* ubpf_rec.flags: the kernel ran the plan's clauses for this hit */
#define UBPF_RF_KAGG 0x1

#endif /* KAGG_BPF_H */
