#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-tlshare.sh: self-> integers the kernel keeps, read by clauses
# that run in user space (kplan_vin.c's "Shared self-> variables"): the
# kernel keeps the variable and runs the clauses that store it; each
# user space clause that reads it has the values it reads carried in
# its record, read at its place among the probe's clauses, its
# predicate, where the kernel computes it, tested there too (its record
# written only where it held), and its own store of it made by the
# kernel too where nothing before the store can fault.  On
# tests/data/kprov/kpprog.c's getcpu(2) calls, the latency idiom with
# a stack beside a value the hit computes as a key, @u[ustack(1), pid
# > 0] (a clause user space runs; a stack printed whole no longer keeps
# one there: kplan_out.c's OSTK, nor a stack alone counted, its "User
# stacks as aggregation keys", nor one beside execname or pid, which
# the record carries: d/stmt.c's record_key()):
#  - a kernel clause's store before a user space clause's read in the
#    same probe (getcpu:entry: self->n counts, self->ts set, a declared
#    int -3);
#  - the idiom's clause: its read of self->ts before its own clear
#    ("return ... ts=1"), a read after the clear in it ("cleared
#    ts=0"), and a later clause's read ("after ... ts=0": unset reads
#    as 0);
#  - a user space clause's read before a later kernel clause's store
#    in the same probe ("after n=3" before self->n = 0, "reset" after);
#  - predicates of the kernel's variables (/self->ts/, /self->n == 0 &&
#    pid == $target/): tested at the probe, 2 records per call;
#  - no kernel clause touching it: the clauses user space runs store
#    and read it in the kernel (its map made for them alone);
#  - a store after a copy that faults (the clause ends there, the
#    store never made): kept out of the kernel, -v naming the store.
# Each script runs three ways (the generated programs, DTRACE_KAGG=0,
# DTRACE_CGEN=0): the outputs byte for byte the same.  On main at
# a50a8fb 6 of the 26 checks fail: the -v checks (clauses 1 and 5 ran
# in user space, "self->ts is also touched by clause 2, which runs in
# user space"; no clause read the kernel's values; the store's reason
# "touched by") and three_same()'s instruction count.  About 4 s idle
# (12 s at load 5).
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

kpprog_build

cat >share.d <<'EOF2'
self int d;
syscall::getcpu:entry /pid == $target/ { self->ts = timestamp; self->n++; self->d = -3; }
syscall::getcpu:entry /self->n/ { printf("entry n=%d ts=%d d=%d\n", self->n, self->ts != 0, self->d); @u[ustack(1), pid > 0] = count(); }
syscall::getcpu:return /self->ts/ { @c = count(); printf("return n=%d ts=%d later=%d\n", self->n, self->ts != 0, timestamp > self->ts); @u[ustack(1), pid > 0] = count(); self->ts = 0; printf("cleared ts=%d\n", self->ts); }
syscall::getcpu:return /self->n/ { printf("after n=%d ts=%d\n", self->n, self->ts); @u[ustack(1), pid > 0] = count(); }
syscall::getcpu:return /self->n == 3/ { self->n = 0; }
syscall::getcpu:return /self->n == 0 && pid == $target/ { printf("reset ts=%d\n", self->ts); @u[ustack(1), pid > 0] = count(); }
EOF2
for m in g u 0; do
	kpprog_run share $m "getcpu 5" -s share.d
done
three_same share
expect_grep "share: -v, the clauses reading the kernel's values" \
	'^dtrace: 4 clauses in user space reading self-> variables the kernel keeps, their values read at the probe into the record$' \
	share.g.err
expect_grep "share: -v, the kernel's clauses" \
	'^dtrace: 2 clauses aggregated in the kernel$' share.g.err
expect_eq "share: -v, none of them in user space" "" \
	"$(grep -e '^dtrace: clause [15] ' -e 'not one the kernel runs' -e 'not one the kernel keeps' share.g.err |
		grep -v ': key 1, ustack(), a string the kernel does not key by$')"
expect_grep "share: -v, two records per call" \
	'^dtrace: BPF: .*, 10 records read$' share.g.err
expect_eq "share: every entry read the store before it" 5 \
	"$(grep -c '^entry n=[123] ts=1 d=-3$' share.g)"
expect_eq "share: every return read its value before its clear" 5 \
	"$(grep -c '^return n=[123] ts=1 later=1$' share.g)"
expect_eq "share: ... and its clear after" 5 "$(grep -c '^cleared ts=0$' share.g)"
expect_eq "share: every read after the clear unset" 5 \
	"$(grep -c '^after n=[123] ts=0$' share.g)"
expect_eq "share: the read before the reset, the reset" "after n=3 ts=0|reset ts=0" \
	"$(grep -e '^after n=3' -e '^reset' share.g | sed -n 1,2p | paste -sd'|' -)"

# no clause the kernel runs touches it: the clauses user space runs
# store and read it, the kernel's all the same (its map made for them)
cat >only.d <<'EOF2'
syscall::getcpu:entry /pid == $target/ { @u[ustack(1), pid > 0] = count(); self->x = 1; }
syscall::getcpu:return /self->x/ { printf("x=%d\n", self->x); @u[ustack(1), pid > 0] = count(); self->x = 0; }
EOF2
kpprog_run only g "getcpu 3" -s only.d
kpprog_run only 0 "getcpu 3" -s only.d
expect_file_eq "only: DTRACE_CGEN=0's output" only.0 only.g
expect_eq "only: the lines" 3 "$(grep -c '^x=1$' only.g)"
expect_grep "only: -v" \
	'^dtrace: 2 clauses in user space reading self-> variables the kernel keeps, their values read at the probe into the record$' \
	only.g.err
expect_eq "only: -v, its programs generated" "" \
	"$(grep 'no program generated' only.g.err)"

# a user space clause whose store the kernel cannot make at the hit (a
# copy before it faults, here always: the clause ends there, the store
# never made): user space's, as before
cat >store.d <<'EOF2'
syscall::getcpu:entry /pid == $target/ { self->w = 7; }
syscall::getcpu:return /self->w/ { printf("w=%d %s\n", self->w, copyinstr(arg0)); @u[ustack(1), pid > 0] = count(); self->w = 0; }
syscall::getcpu:return /pid == $target/ { printf("w2=%d\n", self->w); @u[ustack(1), pid > 0] = count(); }
EOF2
kpprog_run store g "getcpu 2" -s store.d
expect_grep "store: -v names the store" \
	'^dtrace: clause 1 (syscall::getcpu:entry) runs in user space, from its record: line 1: its store to self->w is not one the kernel runs: self->w is also stored by clause 2, which runs in user space: the kernel makes such a store too only where it tests the predicate, nothing before the store may fault or end the clause and it computes the value$' \
	store.g.err
expect_eq "store: the store never made" 2 "$(grep -c '^w2=7$' store.g)"

finish
