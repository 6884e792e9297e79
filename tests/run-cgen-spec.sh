#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-spec.sh: speculations (speculation(), speculate(), commit(),
# discard(); ../dtrace-G/d/spec.c) on a USDT provider
# (tests/data/spec/sp.d, sp.c: transactions of a begin, three data and
# an end saying whether it succeeded), beside the clauses the kernel
# runs (kplan_spec.c's "Speculations").  Each script runs with the generated
# programs (DTRACE_CGEN=1), aggregating in user space (DTRACE_KAGG=0)
# and with the generic program (DTRACE_CGEN=0); the three outputs and
# drop messages must be byte for byte the same.  Covered:
#  - commit() of the even transactions, discard() of the odd: the
#    expected lines, in order, on one thread; on 8 threads at once
#    with -x nspec=8 (no speculation can fail), each thread's lines in
#    its order (sorted: the threads interleave as they will), no drop;
#  - nspec exhausted: a second speculation() while the first is held
#    fails, "dtrace: 6 failed speculations (no speculative buffer
#    available)", and returns 0, which speculate() drops silently;
#  - speculate(0): nothing printed, nothing said;
#  - -x specsize: the record past it dropped, "dtrace: 3 speculative
#    drops", the buffer's first records committed;
#  - an ID past nspec: DTrace's illegal operation, reported alike;
#  - clauses without speculations in the same program, an aggregation
#    and a printf() of integers: run in the kernel (-v counts them), the
#    committed lines in their place between the kernel's; -v says why
#    the clauses with speculations are user space's, and which
#    speculating clauses print values the generated program computed at
#    the probe (kplan_spec.c's "Speculations": speculate(E) then printf() and
#    trace() of what the kernel computes); a this-> variable one stores
#    and a speculating one prints: the kernel's, both clauses in the
#    generated program beside an aggregation;
#  - across CPUs, counts that do not depend on the interleaving: one
#    buffer (BEGIN's) that 8 threads speculate into at once, committed
#    whole or discarded in END; 80 failed speculations of 8 threads
#    while BEGIN holds the only buffer; 910 of 960 records dropped past
#    -x specsize=100;
#  - the read of a kept address (copyinstr(self->p)) in a speculated
#    clause: the generated program reads it at the probe, so every hit
#    prints the bytes the process had then (the user space path,
#    DTRACE_CGEN=0, reads them when dtrace runs the record: some hits
#    there print other bytes); copyinstr(arg3), which the record
#    carries, prints them too; a predicate that reads a kept address
#    keeps the clause on the user space path and -v says the read is
#    late (kplan_spec.c's d_kplan_specs_late());
#  - a copy that faults in such a clause: reported, and ERROR fired,
#    only where the predicate held, as the user space path does;
#  - a kernel variable such a clause prints, stored before and after it
#    at the same probe: the value at its place; speculation(),
#    speculate(), commit() and discard() all at one probe;
#  - in a clause without speculations sharing self->s with them, -v
#    counts its late read apart (tied.d);
#  - a predicate reading a variable a kernel clause keeps, computed by
#    the generated program at the probe and its truth tested by dtrace
#    (kplan_vars.c's spred_ok()): the same lines three ways on one
#    thread and on 8 (kpred.d), a faulting copy reported only where it
#    held (kflt.d), and a kept address that such a predicate used to
#    send to user space (late2.d) read at the probe on every hit;
#  - -v's reason why a speculating clause stays user space's: a
#    predicate reading a kept address (latep.d; store.d's store is the
#    kernel's since step 4);
#  - speculations in the kernel (kplan_spec.c's d_kplan_kspec(): the
#    buffers' words in the map cgspec, every speculating clause a kernel
#    clause, the records held by dtrace): busy, zero, size, ill, mix,
#    thisv, order and tied (the integers-only ones) and txn.d on one
#    thread and on 8, three ways byte for byte, -v saying so and no
#    record missing at a close (kspec()); lit.d, one buffer 8 threads
#    speculate into while thread 0 commits it (the reading rule of
#    kspec_read.c: every committed line a data hit's, together before
#    the marker); lost.d, the ring filled while dtrace is stopped: the
#    held buffers discarded, said once, no part of a transaction
#    printed; after the review of step 3 (revk3): open.d, a take never
#    closed, its drops counted three ways; kexit.d, exit() decided at
#    the hit: user space's (-v); ktick.d, tick-N beside kernel
#    speculations: its lines in time order;
#  - step 4 (doc/DESIGN.md's "Speculations in the kernel, step 4"):
#    retake.d and twice.d, a take or a second close after a close in
#    one clause, and cflt.d, a close that faults after a commit(), the
#    kernel's (kspec()), as both close at the statement; sstr.d, a
#    string stored from a copy in a take clause: the kernel's, its
#    faults reported once; ukey.d, a count() keyed by the user stack in
#    a speculating clause: user space's (-v), its counts three ways;
#    stk.d, a clause that records a user stack beside them: the
#    kernel's (user space's until the record carried both the fault
#    bits and the stack; before that dtrace refused the uprobe event); before.d, a store, an aggregation
#    and an if of a store before speculate(): the kernel's; bflt.d, a
#    fault there (a string store's copy), reported once; empty.d,
#    speculate() with nothing printed after it: an empty held record,
#    never a drop; ifn.d, a take, a speculate() and the closes under
#    ifs in clauses that print nothing, on one thread and on 8: the
#    kernel's; ifs.d, a speculate() under an if in a printing clause:
#    user space's (-v) until step 4's steps in a branch (below).
#  - step 4, part B (strings and faults after speculate() in the kernel): tx,
#    tx8, one, late, late2, flt, kflt, kpred, kpred8, early and store
#    now kspec() (latep stays user space's, -v saying its clause is not
#    the kernel's); ferr.d, flt.d with an ERROR clause: each fault said
#    once, ERROR's line at the data hit's place before the commit's
#    lines; sflt.d, a copy's fault skipping the store after it (n 2 a
#    transaction); wflt.d, a site's fault after the printf() (the tag
#    not UBPF_KSPEC_WHOLE: no line committed); strs.d, execname,
#    probename, a literal, a this-> string and strjoin() of a copy on 8
#    threads at nspec 64; ifa.d, ifs of printf()s after speculate(),
#    held whole; kstk.d and ksarg.d, ustack() and args[N] by %s
#    after speculate(): kept user space's, -v naming them.
#  - step 4, own records (a clause that takes or closes and prints, its
#    record printed at its place): own.d, a take printing its ID, one
#    whose copy faults after the take (the take stands, the fault said
#    once) and a discard() between two printf()s; own8.d, on 8 threads.
#  - step 4, the default line and -x oformat=json (run without -q: noq):
#    tx.d (txq, txj), own.d (ownq, ownj), empty.d (emptyq: speculate() alone, its held
#    default line), cflt.d (cfltq: a fault after a commit(), its default
#    line and buffer printed, then the fault) and ifn.d (ifnq: a commit()
#    under an if, its default line at its place), three ways byte for
#    byte, kspec(); -F stays refused (flow: -v why).
#  - step 4, steps in a branch of a clause that prints: ifs.d (now
#    kspec()), on 8 threads (ifs8) and without -q (ifsq); ifsf.d, a take
#    and a speculate() under ifs in printing clauses, a site's fault
#    after the printf() (once a hit, no line of it printed or held), a
#    discard() under an if beside a printf().
# Before speculating clauses' values were computed in the kernel
# (kplan_vars.c's sout_ok()), -v said nothing of them (the "-v sout"
# checks fail), the "-v why" counts were higher and late.d printed
# other bytes for some hits ("late: every hit read at the probe"
# fails).
# On the tree before kplan.c let speculations through, a program with
# one ran nothing in the kernel (-v counted no clause there: the checks
# "-v aggregated" and "-v printing" fail) and -v said nothing of the
# speculations (the "-v why" checks fail); the outputs were the same.
# Before d_kplan_specs_late(), -v said nothing of the late read ("late:
# -v says the read is late" fails); the cross-CPU cases pass there too,
# as a kernel design must keep them.  Before it counted the clauses
# tied to speculating ones by a variable (tied.d: copyinstr(self->p) in
# a clause of its own, predicated on self->s), -v said nothing of
# theirs ("tied: -v counts" fails).
# Before a sout clause alone made a plan (bpf_agg_cgen.c's bpf_kagg_cgen()),
# tx.d's program was the record-only one ("tx: the values computed in
# the program" fails).
# Before the predicate was computed in the kernel (spred_ok()), -v said
# nothing of it ("-v spred" fails), kpred.d's clause was not a sout one
# ("kpred: -v sout", "-v why" fail), late2.d read late ("late2: every
# hit read at the probe" and "-v says no late read" fail), and -v gave
# no reason ("store: -v why", "latep: -v why" fail); the three-way
# comparisons passed there too.
# On the tree before speculations in the kernel (step 2's binary), every
# kspec() check fails by its -v line, lit.d by its -v line and lost.d by
# its message (the user space path loses no buffer's record: "lost:
# said once" fails).
# On step 3's binary before the review's fixes, 12 of 359 checks fail
# (open's drops, retake's and twice's outputs and -v, kexit's -v);
# ktick's order failed there in 5 of 12 runs of its dtrace alone (a
# tick stamped past the read's cut), not in every run of this file.
# The "no record missing" checks of kspec() could not fail there (the
# line was asked for after the backend was freed); with the pass taken
# out of read_round(), lit.d says "1 speculated record was missing" in
# 1 of 4 runs.
# On step 3's binary every step-4 case and moved case fails by its -v
# line ("speculations stay user space's: clause N: after speculate(), a
# statement other than printf() and trace() of integers": 30 of 439
# checks; kstk and ksarg by their -v reasons, 2 more); their outputs
# pass there (user space ran them exactly, its
# faults reported once at their place), and so does latep's -v line (a
# refusal kept).  On this tree with the WHOLE test
# taken out of cgen_out.c's kspec_tags(), wflt commits "i 1" lines; with
# the hold mode reporting its faults, ferr has two error lines a fault
# (one from the pass, epid 0) and no ERROR line; with bpf.c's
# bpf_kspec_fire() giving the pass no comm, strs's lines the pass made
# print an empty execname.
# On main's binary before step 4's part A, retake, twice and cflt fail
# by their -v lines ("after commit() or discard(), a statement other
# than a store free of faults"), ukey by its output (it printed no
# aggregation) and -v, stk by its output (dtrace traced nothing); sstr
# by its errors (the kernel's path reported none of the copies' faults)
# on the binary before part B, and passes on part B's alone.
# before, bflt and empty fail there by their -v lines ("a statement before
# speculate()"), ifn, ifn8 and ifs by theirs ("an if holds ...").
# On main's binary before own records, own and own8 fail by their -v
# lines ("a clause that takes or closes a buffer prints too"); their
# outputs pass there (user space's).
# There txq, txj, ownq, ownj, emptyq, cfltq and ifnq fail by their -v lines
# ("held records are made with -q alone in this step"), flow by its
# -v reason; their outputs pass there.
# There ifs fails by its -v line ("an if holds speculation(), ...
# in a clause that prints"), and so do ifs8, ifsf and ifsq (ifsq by
# "-q alone").
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe # require_G below, where sp is not built already

if ! trace_progs_copy sp; then
	require_G
	test_progs_build sp
fi

# run MODE OUT ARGS DTRACE-ARGS...: lib.sh's run_mode on ./sp ARGS, and
# the drop messages (the lines of spec.c's d_report_drops()) in
# OUT.drops, summed: a run whose hits span more than a second (an
# emulated guest) reports them in parts
run() {
	m=$1 o=$2 a=$3
	shift 3
	run_mode "$m" "$o" "./sp $a" "$@"
	grep -E '^dtrace: [0-9]+ (failed speculation|speculative drop)' \
		"$o.err" | awk '
		$3 == "failed" { f += $2 }
		$3 == "speculative" { d += $2 }
		END {
			if (f)
				printf "dtrace: %d failed speculation%s (no " \
				    "speculative buffer available)\n", f,
				    f == 1 ? "" : "s"
			if (d)
				printf "dtrace: %d speculative drop%s\n", d,
				    d == 1 ? "" : "s"
		}' >"$o.drops"
	# the errors dtrace reported, the same three ways
	grep '^dtrace: error on enabled probe' "$o.err" |
		sed 's/(ID [0-9]*: sp[0-9]*:/(ID N: spPID:/' >"$o.errs"
}

# this shell's CPUs (taskset -p's list), to put back after a pinned run
cpus_all=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')

# same NAME D-FILE ARGS [SORT] [DTRACE-ARGS...]: the script on ./sp ARGS
# three ways, the same output (sorted first when SORT is "sort"; where
# it is "cpu", the default line's CPU and probe ID, JSON's and its
# provider's PID, as C, I and P, for the checks of their text after;
# and the runs pinned to CPU 1, dtrace and sp both, so the CPU and
# probe ID are compared as printed too: a held record's are the fire's
# that bpf_kspec_fire() makes, whose CPU left at 0 the C passed (review
# revown); where CPU 1 cannot be had, not, said), drop messages and
# errors
same() {
	sn=$1 sd=$2 sa=$3 ss=$4
	shift 4
	pinned=
	if [ "$ss" = cpu ] && [ -n "$cpus_all" ] &&
		taskset -pc 1 $$ >/dev/null 2>&1; then
		pinned=1
	elif [ "$ss" = cpu ]; then
		echo "# $sn: CPU 1 not to be had: the CPU and probe ID not compared" >&2
	fi
	for m in g u 0; do
		run $m "$sn.$m.txt" "$sa" -s "$sd" "$@"
		if [ "$ss" = sort ]; then
			sort "$sn.$m.txt" >"$sn.$m.tmp" &&
				mv "$sn.$m.tmp" "$sn.$m.txt"
		elif [ "$ss" = cpu ]; then
			sed -E 's/^(\{"cpu":[0-9]+,"id":[0-9]+,"provider":"sp)[0-9]+"/\1P"/' \
				"$sn.$m.txt" >"$sn.$m.raw"
			sed -E 's/^ *[0-9]+ +[0-9]+  +/C I /; s/^\{"cpu":[0-9]+,"id":[0-9]+,"provider":"sp[0-9]+"/{"cpu":C,"id":I,"provider":"spP"/' \
				"$sn.$m.txt" >"$sn.$m.tmp" &&
				mv "$sn.$m.tmp" "$sn.$m.txt"
		fi
	done
	if [ -n "$pinned" ]; then
		taskset -pc "$cpus_all" $$ >/dev/null
		expect_file_eq "$sn: DTRACE_KAGG=0's CPU and probe ID" \
			"$sn.u.raw" "$sn.g.raw"
		expect_file_eq "$sn: DTRACE_CGEN=0's CPU and probe ID" \
			"$sn.0.raw" "$sn.g.raw"
	fi
	for m in u 0; do
		case $m in
		u) w="DTRACE_KAGG=0's" ;;
		*) w="DTRACE_CGEN=0's" ;;
		esac
		expect_file_eq "$sn: $w output" "$sn.$m.txt" "$sn.g.txt"
		expect_file_eq "$sn: $w drops" "$sn.$m.txt.drops" \
			"$sn.g.txt.drops"
		expect_file_eq "$sn: $w errors" "$sn.$m.txt.errs" \
			"$sn.g.txt.errs"
	done
}

# kspec NAME N: -v said N clauses with speculations run in the kernel
# (kplan_spec.c's d_kplan_kspec()), and none is user space's or a sout
# one
kspec() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v kernel" \
		"^dtrace: $2 clause$ws with speculations run in the kernel: the buffers' words are the kernel's, their records held by dtrace\$" \
		"$1.g.txt.err"
	expect_eq "$1: no record missing at a close" "" \
		"$(grep 'missing at their buffer' "$1.g.txt.err")"
	expect_eq "$1: -v no sout, no why" "" \
		"$(grep -E 'with speculations (printing values|run in user space)|speculations stay' "$1.g.txt.err")"
}

# why NAME N: -v said N clauses with speculations are user space's
why() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v why" \
		"^dtrace: $2 clause$ws with speculations run in user space, from the records: the generated programs keep no speculative buffers\$" \
		"$1.g.txt.err"
}

# sout NAME N: -v said N clauses with speculations print values the
# generated program computed at the probe
sout() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v sout" \
		"^dtrace: $2 clause$ws with speculations printing values computed in the kernel, at the probe: speculate() and the buffers are user space's\$" \
		"$1.g.txt.err"
}

# The even transactions committed, the odd discarded.
cat >tx.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d %s\n", arg0, arg1, arg2, copyinstr(arg3)); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same tx tx.d 6 asis
: >tx.exp
for i in 0 2 4; do
	for j in 0 1 2; do
		echo "0 $i $j t0-i$i-j$j" >>tx.exp
	done
done
echo >>tx.exp # dtrace's last line
expect_file_eq "tx: the even transactions, in order" tx.exp tx.g.txt
expect_eq "tx: no drop" "" "$(cat tx.g.txt.drops)"
kspec tx 4
# ... its only work in the kernel: the program computes the values (more
# instructions than DTRACE_KAGG=0's record-only ones; without a plan
# for a sout clause alone, bpf_agg_cgen.c's bpf_kagg_cgen(), they were the
# same while -v said otherwise)
txi() {
	sed -n 's/^dtrace: BPF: [0-9]* generated programs*, \([0-9]*\) instructions.*/\1/p' \
		"$1"
}
expect_eq "tx: the values computed in the program ($(txi tx.g.txt.err), $(txi tx.u.txt.err) instructions)" \
	1 "$([ "$(txi tx.g.txt.err)" -gt "$(txi tx.u.txt.err)" ] && echo 1)"

# 8 threads at once, a buffer each: every thread's even transactions.
same tx8 tx.d '40 8' sort -x nspec=8
: >tx8.exp
t=0
while [ $t -lt 8 ]; do
	i=0
	while [ $i -lt 40 ]; do
		for j in 0 1 2; do
			echo "$t $i $j t$t-i$i-j$j" >>tx8.exp
		done
		i=$((i + 2))
	done
	t=$((t + 1))
done
echo >>tx8.exp
sort tx8.exp >tx8.srt
expect_file_eq "tx8: every thread's even transactions" tx8.srt tx8.g.txt
expect_eq "tx8: no drop" "" "$(cat tx8.g.txt.drops)"
kspec tx8 4

# nspec exhausted: the second speculation() of each transaction fails,
# and speculate(0) drops its record silently.
cat >busy.d <<'EOF2'
sp$target:::begin { self->s = speculation(); self->t = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("s %d %d\n", arg1, arg2); }
sp$target:::data { speculate(self->t); printf("t %d %d\n", arg1, arg2); }
sp$target:::end { commit(self->s); self->s = 0; self->t = 0; }
EOF2
same busy busy.d 6 asis
expect_eq "busy: failed speculations" \
	"dtrace: 6 failed speculations (no speculative buffer available)" \
	"$(cat busy.g.txt.drops)"
expect_eq "busy: the first buffer's records" 18 "$(grep -c '^s ' busy.g.txt)"
expect_eq "busy: nothing from speculate(0)" 0 "$(grep -c '^t ' busy.g.txt)"
kspec busy 4

# speculate(0) alone: nothing printed, nothing said.
cat >zero.d <<'EOF2'
sp$target:::data { speculate(0); printf("%d %d\n", arg1, arg2); }
EOF2
same zero zero.d 4 asis
expect_eq "zero: nothing printed" "" "$(tr -d '\n' <zero.g.txt)"
expect_eq "zero: nothing said" "" "$(cat zero.g.txt.drops zero.g.txt.errs)"
kspec zero 1

# -x specsize: "0 i j\n" is 6 bytes, 13 fits two of them; the third
# record of each transaction is dropped.
cat >size.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("0 %d %d\n", arg1, arg2); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same size size.d 3 asis -x specsize=13
printf '0 0 0\n0 0 1\n0 1 0\n0 1 1\n0 2 0\n0 2 1\n\n' >size.exp
expect_file_eq "size: the records that fit" size.exp size.g.txt
expect_eq "size: speculative drops" "dtrace: 3 speculative drops" \
	"$(cat size.g.txt.drops)"
kspec size 3

# An ID past nspec: an illegal operation, reported the same three ways.
cat >ill.d <<'EOF2'
sp$target:::data /arg1 == 1 && arg2 == 0/ { speculate(2); printf("x\n"); }
EOF2
same ill ill.d 2 asis
expect_grep "ill: illegal operation" 'illegal operation' ill.g.txt.errs
kspec ill 1

# Clauses without speculations beside them: the kernel's (an
# aggregation, a printf() of integers), the committed lines in their
# place among the kernel's printed ones.
cat >mix.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::begin { printf("begin %d\n", arg1); }
sp$target:::data /self->s/ { speculate(self->s); printf("data %d %d\n", arg1, arg2); }
sp$target:::data { @n[arg2] = count(); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same mix mix.d 4 asis
cat >mix.exp <<'EOF2'
begin 0
data 0 0
data 0 1
data 0 2
begin 1
begin 2
data 2 0
data 2 1
data 2 2
begin 3

                0                4
                1                4
                2                4
EOF2
expect_file_eq "mix: the expected lines" mix.exp mix.g.txt
expect_grep "mix: -v aggregated" \
	'^dtrace: 1 clause aggregated in the kernel$' mix.g.txt.err
expect_grep "mix: -v printing" \
	'^dtrace: 1 clause printing values computed in the kernel$' \
	mix.g.txt.err
kspec mix 4

# A this-> variable a clause without speculations stores and a
# speculating one prints: the kernel's, its store a kernel clause
# beside the aggregation, the speculating clause's value computed at
# the probe (-v counts none printing in the kernel outside speculations).
cat >thisv.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { this->v = arg2 * 10 + arg1; }
sp$target:::data { @n = count(); }
sp$target:::data /self->s/ { speculate(self->s); printf("v %d\n", this->v); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same thisv thisv.d 2 asis
printf 'v 0\nv 10\nv 20\nv 1\nv 11\nv 21\n\n                6\n' >thisv.exp
expect_file_eq "thisv: the expected lines" thisv.exp thisv.g.txt
expect_grep "thisv: -v aggregated" \
	'^dtrace: 2 clauses aggregated in the kernel$' thisv.g.txt.err
expect_eq "thisv: -v printing" "" \
	"$(grep '^dtrace: [0-9]* clauses* printing values computed in the kernel' thisv.g.txt.err)"
kspec thisv 3

# A kernel variable a speculating clause prints, stored by a kernel
# clause before it and another after it at the same probe: the value
# at the clause's place (the generated program computes it there).
cat >order.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->n = arg2 * 100 + arg1; }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d\n", arg2, self->n); }
sp$target:::data { self->n = arg1 + 7; }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same order order.d 2 asis
printf '0 0\n1 100\n2 200\n0 1\n1 101\n2 201\n\n' >order.exp
expect_file_eq "order: the value at the clause's place" order.exp order.g.txt
kspec order 3

# speculation(), speculate(), commit() and discard() at one probe, in
# clause order: each hit's buffer taken, filled and committed (even j)
# or discarded in the same firing.
cat >one.d <<'EOF2'
sp$target:::data { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %s\n", arg1, arg2, copyinstr(arg3)); }
sp$target:::data /self->s && arg2 % 2 == 0/ { commit(self->s); self->s = 0; }
sp$target:::data /self->s/ { discard(self->s); self->s = 0; }
EOF2
same one one.d 2 asis
printf '0 0 t0-i0-j0\n0 2 t0-i0-j2\n1 0 t0-i1-j0\n1 2 t0-i1-j2\n\n' >one.exp
expect_file_eq "one: the even data committed" one.exp one.g.txt
kspec one 4

# One buffer across threads and CPUs: dtrace's BEGIN takes it, the
# data of 8 threads at once speculate into it (ID 1), END commits it:
# every record, whichever CPU it came from, in the output (sorted: the
# threads interleave as they will).
cat >cross.d <<'EOF2'
BEGIN { s = speculation(); }
sp$target:::data { speculate(1); printf("%d %d %d\n", arg0, arg1, arg2); }
END { commit(s); }
END { printf("end\n"); }
EOF2
same cross cross.d '10 8' sort
printf 'end\n\n' >cross.exp
t=0
while [ $t -lt 8 ]; do
	i=0
	while [ $i -lt 10 ]; do
		for j in 0 1 2; do
			echo "$t $i $j" >>cross.exp
		done
		i=$((i + 1))
	done
	t=$((t + 1))
done
sort cross.exp >cross.srt
expect_file_eq "cross: every thread's records committed" cross.srt cross.g.txt
sout cross 1
expect_eq "cross: -v why" "" \
	"$(grep 'with speculations run in user space' cross.g.txt.err)"

# ... and discarded: nothing of them printed.
cat >crossd.d <<'EOF2'
BEGIN { s = speculation(); }
sp$target:::data { speculate(s); printf("%d %d %d\n", arg0, arg1, arg2); }
END { discard(s); }
END { printf("end\n"); }
EOF2
same crossd crossd.d '10 8' asis
printf 'end\n\n' >crossd.exp
expect_file_eq "crossd: nothing discarded printed" crossd.exp crossd.g.txt
expect_eq "crossd: no drop" "" "$(cat crossd.g.txt.drops)"

# nspec exhausted on every thread: BEGIN holds the only buffer, so
# each of the 80 begin hits of 8 threads fails, however they
# interleave; their speculate(0) drops silently.
cat >exh8.d <<'EOF2'
BEGIN { s = speculation(); }
sp$target:::begin { self->s = speculation(); }
sp$target:::data { speculate(self->s); printf("lost\n"); }
sp$target:::data { speculate(s); printf("%d\n", arg2); }
END { commit(s); }
EOF2
same exh8 exh8.d '10 8' sort
expect_eq "exh8: failed speculations" \
	"dtrace: 80 failed speculations (no speculative buffer available)" \
	"$(cat exh8.g.txt.drops)"
expect_eq "exh8: nothing from speculate(0)" 0 "$(grep -c '^lost' exh8.g.txt)"
expect_eq "exh8: the held buffer's records" 240 \
	"$(grep -c '^[012]$' exh8.g.txt)"
why exh8 1
sout exh8 2

# -x specsize across threads: 960 records of 2 bytes from 8 threads
# into one buffer of 100 bytes: 50 kept, 910 dropped, however they
# interleave.
cat >size8.d <<'EOF2'
BEGIN { s = speculation(); }
sp$target:::data { speculate(s); printf("x\n"); }
END { commit(s); }
EOF2
same size8 size8.d '40 8' asis -x specsize=100
expect_eq "size8: the records that fit" 50 "$(grep -c '^x$' size8.g.txt)"
expect_eq "size8: speculative drops" "dtrace: 910 speculative drops" \
	"$(cat size8.g.txt.drops)"

# The read of a kept address.  data keeps its string's address, end
# speculates copyinstr() of it; sp.c rewrites that buffer at the next
# transaction's first data, microseconds after end, and the thread
# ends after the last.  DTrace reads at the probe ("i t0-i<i>-j2"), and
# so does the generated program (the speculating clause's values are
# the kernel's, kplan_spec.c's "Speculations"): every hit prints those
# bytes.  The user space path (DTRACE_CGEN=0) runs the clause from the
# record and reads later: some of its hits print other bytes or fault.
# late_exp FILE STEP: the lines of sp's hits 0, STEP, ... below 10 as
# the process had them at the probe, then the END's empty line
late_exp() {
	: >"$1"
	i=0
	while [ $i -lt 10 ]; do
		echo "$i t0-i$i-j2" >>"$1"
		i=$((i + $2))
	done
	echo >>"$1"
}
cat >late.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->p = arg3; }
sp$target:::end /self->s/ { speculate(self->s); printf("%d %s\n", arg1, copyinstr(self->p)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
run g late.g.txt 10 -s late.d
late_exp late.exp 1
expect_file_eq "late: every hit read at the probe" late.exp late.g.txt
kspec late 3
expect_eq "late: -v says no late read" "" \
	"$(grep 'when dtrace runs the record' late.g.txt.err)"
run 0 late.0.txt 10 -s late.d
n=$(grep -cxFf late.exp late.0.txt)
expect_eq "late: some hits not read at the probe (DTRACE_CGEN=0)" 1 \
	"$((n < 10))"
# A clause without speculations that shares self->s with them runs from
# the records too (kp_vars_decide()): its late read -v counts as well.
cat >tied.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->p = arg3; }
sp$target:::end /self->s/ { printf("%d %s\n", arg1, copyinstr(self->p)); }
sp$target:::end /self->s/ { speculate(self->s); printf("%d\n", arg1); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
run g tied.g.txt 2 -s tied.d
# ... but for speculations in the kernel (its speculating clause prints
# an integer): every clause the kernel's, the read at the probe
kspec tied 3
expect_eq "tied: -v no late read" "" \
	"$(grep 'when dtrace runs the record' tied.g.txt.err)"
expect_eq "tied: not among the speculating ones" "" \
	"$(grep 'of them read' tied.g.txt.err)"
# A predicate that reads a kept address: the clause stays user space's,
# run from the record, and -v says its read is late.
cat >latep.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->p = arg3; }
sp$target:::end /self->s && copyinstr(self->p) != ""/ { speculate(self->s); printf("%d\n", arg1); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
run g latep.g.txt 3 -s latep.d
why latep 3
expect_grep "latep: -v kspec why" \
	"^dtrace: speculations stay user space's: clause 3 is not the kernel's: " \
	latep.g.txt.err
expect_grep "latep: -v says the read is late" \
	"^dtrace: 1 of them reads the process's memory when dtrace runs the record, not at the probe: copyin() or copyinstr() of an address the process may have rewritten since\$" \
	latep.g.txt.err
expect_eq "latep: -v sout" "" "$(grep 'printing values computed in the kernel, at the probe' latep.g.txt.err)"
# A copy that faults in a speculating clause whose values are the
# kernel's: copyinstr(arg2) faults at every data hit, reported (and
# the clause abandoned) only where the predicate held, as the user
# space path reports it; the other clause's lines committed.
cat >flt.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s && arg2 == 1/ { speculate(self->s); printf("%d %s\n", arg1, copyinstr(arg2)); }
sp$target:::data /self->s && arg2 != 1/ { speculate(self->s); printf("%d %d %s\n", arg1, arg2, copyinstr(arg3)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same flt flt.d 3 asis
printf '0 0 t0-i0-j0\n0 2 t0-i0-j2\n1 0 t0-i1-j0\n1 2 t0-i1-j2\n2 0 t0-i2-j0\n2 2 t0-i2-j2\n\n' \
	>flt.exp
expect_file_eq "flt: the lines that did not fault" flt.exp flt.g.txt
expect_eq "flt: the faults where the predicate held" 3 \
	"$(grep -c 'invalid address (0x1) in action #3' flt.g.txt.errs)"
kspec flt 4
# A predicate that reads a variable a kernel clause keeps (self->j,
# stored at the same probe): the generated program computes it at the
# clause's place (kplan_vars.c's spred_ok()) and dtrace tests its truth,
# so self->j stays the kernel's and its store a kernel clause; the same
# lines three ways, on one thread and on 8 at once.
cat >kpred.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->j = arg2 + 1; }
sp$target:::data /self->j == 2 || self->j == 3/ { speculate(self->s); printf("%d %d %s\n", arg1, self->j, copyinstr(arg3)); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same kpred kpred.d 4 asis
printf '0 2 t0-i0-j1\n0 3 t0-i0-j2\n2 2 t0-i2-j1\n2 3 t0-i2-j2\n\n' >kpred.exp
expect_file_eq "kpred: the expected lines" kpred.exp kpred.g.txt
kspec kpred 4
same kpred8 kpred.d '20 8' sort -x nspec=8
expect_eq "kpred8: the committed lines" 161 "$(wc -l <kpred8.g.txt)"
kspec kpred8 4
# ... with a copy that faults where that predicate holds (j 1: address
# 0x1), reported there only, as the user space path does
cat >kflt.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->j = arg2; }
sp$target:::data /self->j == 1/ { speculate(self->s); printf("%d %s\n", arg1, copyinstr(arg2)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same kflt kflt.d 3 asis
expect_eq "kflt: the faults where the predicate held" 3 \
	"$(grep -c 'invalid address (0x1) in action #3' kflt.g.txt.errs)"
kspec kflt 3
# The kept address again (late.d), but the predicate reads a variable
# the same kernel clause stores: before the predicate was computed in
# the kernel, self->k was user space's, and so the clause storing it
# and self->p, and the speculating clause read self->p's bytes when
# dtrace ran its record (-v said so; DTRACE_CGEN=0 still does: some
# hits print other bytes).  Now each hit prints the bytes at the probe.
cat >late2.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data { self->p = arg3; self->k = arg1 * 10 + arg2; }
sp$target:::end /self->k % 20 == 2/ { speculate(self->s); printf("%d %s\n", arg1, copyinstr(self->p)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
run g late2.g.txt 10 -s late2.d
late_exp late2.exp 2
expect_file_eq "late2: every hit read at the probe" late2.exp late2.g.txt
kspec late2 3
expect_eq "late2: -v says no late read" "" \
	"$(grep 'when dtrace runs the record' late2.g.txt.err)"
run 0 late2.0.txt 10 -s late2.d
n=$(grep -cxFf late2.exp late2.0.txt)
expect_eq "late2: some hits not read at the probe (DTRACE_CGEN=0)" 1 \
	"$((n < 6))"
# A store after speculate(): the kernel's with speculations in the kernel
# (step 4), so it is made where the clause runs whole at the hit; latep.d's
# read keeps its clause user space's, and -v says why
# (kplan_spec.c's d_kplan_spec_why()).
cat >store.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d\n", arg2); self->n++; }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same store store.d 2 asis
printf '0\n1\n2\n0\n1\n2\n\n' >store.exp
expect_file_eq "store: the expected lines" store.exp store.g.txt
kspec store 3
expect_grep "latep: -v why" \
	"^dtrace: clause 3 speculates in user space, its predicate and values read from the record: its predicate or speculate()'s argument reads the process's memory by an address\$" \
	latep.g.txt.err
# copyinstr() of the probe's own argument is in the record: no line
cat >early.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%s\n", copyinstr(arg3)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
run g early.g.txt 2 -s early.d
expect_eq "early: -v says no late read" "" \
	"$(grep 'when dtrace runs the record' early.g.txt.err)"
printf 't0-i0-j0\nt0-i0-j1\nt0-i0-j2\nt0-i1-j0\nt0-i1-j1\nt0-i1-j2\n\n' \
	>early.exp
expect_file_eq "early: the argument's bytes at the probe" early.exp \
	early.g.txt
kspec early 3

# Speculations in the kernel (kplan_spec.c's d_kplan_kspec()): tx.d
# printing integers only, every clause the kernel's, its buffers' words
# too, the records held by dtrace until the commit; on one thread and on
# 8 with -x nspec=8.
cat >txn.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same txn txn.d 6 asis
sed 's/ t0-.*//' tx.exp >txn.exp
expect_file_eq "txn: the even transactions, in order" txn.exp txn.g.txt
expect_eq "txn: no drop" "" "$(cat txn.g.txt.drops)"
kspec txn 4
same txn8 txn.d '40 8' sort -x nspec=8
sed 's/ t[0-9]*-.*//' tx8.srt | sort >txn8.srt
expect_file_eq "txn8: every thread's even transactions" txn8.srt txn8.g.txt
expect_eq "txn8: no drop" "" "$(cat txn8.g.txt.drops)"
kspec txn8 4

# The review of step 3 (revk3), its findings 1 to 4.  1: a generation
# never closed (a take, no close) has its drops past specsize counted at
# the end (d_kspec_end(), once never called: the backend was freed
# first), as the user space path counts them at each record.
cat >open.d <<'EOF2'
sp$target:::begin /arg1 == 0/ { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
EOF2
same open open.d 4 asis -x specsize=24
expect_eq "open: the drops past specsize counted" \
	"dtrace: 8 speculative drops" "$(cat open.g.txt.drops)"
kspec open 2
# 2: a take or a second close after a close in one clause, the
# kernel's since both close at the statement (d/stmt.c, and the words'
# step): the take after a commit() takes buffer 1 again (nspec=1), the
# commit()'s tag and then the take's in the area, handed over in that
# order, so retake prints every transaction; twice prints transaction
# 0's lines, the discard() after the commit() finding its buffer closed
# (a tag not active, not handed over).
cat >retake.d <<'EOF2'
sp$target:::begin /arg1 == 0/ { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s/ { commit(self->s); self->s = speculation(); }
EOF2
same retake retake.d 3 asis -x nspec=1
expect_eq "retake: each commit()'s buffer taken again at once" \
	"$(printf '0 %d %d\n' 0 0 0 1 0 2 1 0 1 1 1 2 2 0 2 1 2 2)" \
	"$(grep -v '^$' retake.g.txt)"
kspec retake 3
sed 's/commit(self->s); self->s = speculation();/commit(self->s); discard(self->s); self->s = 0;/' \
	retake.d >twice.d
same twice twice.d 3 asis
expect_eq "twice: the commit() stands, the discard() after it does nothing" \
	"$(printf '0 0 0\n0 0 1\n0 0 2')" "$(grep -v '^$' twice.g.txt)"
kspec twice 3
# ... and a second close that faults after a commit() (an ID past
# nspec at transaction 1's end): the committed lines stand, then the
# fault, as DTrace's commit() at the statement leaves them
sed 's/commit(self->s); self->s = speculation();/commit(self->s); self->s = 0; discard(arg1 == 1 ? 5 : 0);/; s/begin \/arg1 == 0\//begin /' \
	retake.d >cflt.d
same cflt cflt.d 3 asis
expect_eq "cflt: every transaction committed, the fault's too" \
	"$(printf '0 %d %d\n' 0 0 0 1 0 2 1 0 1 1 1 2 2 0 2 1 2 2)" \
	"$(grep -v '^$' cflt.g.txt)"
expect_eq "cflt: the fault after the commit()" \
	"dtrace: error on enabled probe ID 3 (ID N: spPID:sp:run:end): illegal operation in action #3" \
	"$(cat cflt.g.txt.errs)"
kspec cflt 3
# A string stored from a copy in a speculating clause (SSTR): its
# fault reported at the place, once, three ways (before step 4, main's
# class took it in a take clause and lost the fault: cg_kspec_run() read
# the area for the tags alone)
cat >sstr.d <<'EOF2'
sp$target:::begin { self->s = speculation(); self->p = copyinstr(arg1 + 1); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same sstr sstr.d 2 asis
expect_eq "sstr: the copies' faults" \
	"$(printf 'dtrace: error on enabled probe ID 1 (ID N: spPID:sp:run:begin): invalid address (0x%d) in action #2\n' 1 2)" \
	"$(cat sstr.g.txt.errs)"
kspec sstr 4
# A count() keyed by the user stack (dtrace updates it from the record,
# d_stmt_ukey(), which a speculating clause's place did not) keeps the
# speculations user space's: before, the kernel's path printed no
# aggregation
sed 's/begin { self->s = speculation(); self->p = copyinstr(arg1 + 1); }/begin { self->s = speculation(); @u[ustack(1)] = count(); }/' \
	sstr.d >ukey.d
same ukey ukey.d 2 asis
expect_eq "ukey: the aggregation printed, one stack counted twice" 2 \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1 }' ukey.g.txt)"
expect_grep "ukey: -v why" \
	"^dtrace: speculations stay user space's: clause 1: an aggregation keyed by the user stack" \
	ukey.g.txt.err
# A clause that records a user stack at a probe where the speculations
# have fault sites: until 2026-12-01 dtrace refused the uprobe event and
# traced nothing ("no program generated for uprobe event"), then the
# speculations were kept user space's; since 2026-12-05 the record
# carries both (the fault bits before the stack: rec_impl.h's
# rec_kfault()), and the speculations are the kernel's
cat >stk.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
sp$target:::end { ustack(1); }
EOF2
same stk stk.d 2 asis
expect_eq "stk: every data line committed" 6 \
	"$(grep -c '^[0-9] [0-9] [0-9]$' stk.g.txt)"
kspec stk 3
# Statements before speculate() (d/compile.c's spec_rules(): only ones
# that record nothing): a store, an aggregation and an if of a store,
# the kernel's as in any kernel clause, before the step
cat >before.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { self->n++; @c[arg2] = count(); if (arg2 == 1) { self->m += arg1 + 1; } speculate(self->s); printf("%d %d %d %d %d\n", arg0, arg1, arg2, self->n, self->m); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
sp$target:::end { printf("n %d %d\n", self->n, self->m); }
EOF2
same before before.d 4 asis
printf '%s\n' '0 0 0 1 0' '0 0 1 2 1' '0 0 2 3 1' 'n 3 1' 'n 6 3' \
	'0 2 0 7 3' '0 2 1 8 6' '0 2 2 9 6' 'n 9 6' 'n 12 10' '' \
	'                0                4' '                1                4' \
	'                2                4' >before.exp
expect_file_eq "before: the stores and counts made before the step" \
	before.exp before.g.txt
kspec before 4
# ... and a fault there (a string store's copy in an if before the
# step): the clause ends before speculate(), its tag unreached, the
# fault reported once at the hit's place, no record held
cat >bflt.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { if (arg2 == 1) { self->p = copyinstr(arg1 + 1); } speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same bflt bflt.d 2 asis
printf '0 0 0\n0 0 2\n0 1 0\n0 1 2\n\n' >bflt.exp
expect_file_eq "bflt: the lines of the hits that did not fault" bflt.exp \
	bflt.g.txt
expect_eq "bflt: the faults, once each" \
	"$(printf 'invalid address (0x%d)\n' 1 2)" \
	"$(sed -n 's/.*\(invalid address (0x[0-9a-f]*)\).*/\1/p' bflt.g.txt.errs)"
kspec bflt 3
# speculate() with nothing printed after it: an empty record under -q,
# held, never a drop (specsize 18 holds a transaction's 3 lines), its
# store before it made
cat >empty.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { self->k += arg2; speculate(self->s); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
sp$target:::end { printf("k %d\n", self->k); }
EOF2
same empty empty.d 4 asis -x specsize=18
printf '%s\n' '0 0 0' '0 0 1' '0 0 2' 'k 3' 'k 6' '0 2 0' '0 2 1' \
	'0 2 2' 'k 9' 'k 12' '' >empty.exp
expect_file_eq "empty: the even transactions, k" empty.exp empty.g.txt
expect_eq "empty: no drop" "" "$(cat empty.g.txt.drops)"
kspec empty 5
# Steps in a branch: a take under an if, a speculate() under one in a
# clause that prints nothing (before the probe's other clauses, whose
# areas follow its own), commit() in one branch and discard() in the
# other; each tag reached or not (act 0: not handed over).  The
# transactions i % 3 == 2 take no buffer; the even ones are committed.
cat >ifn.d <<'EOF2'
sp$target:::begin { if (arg1 % 3 != 2) { self->s = speculation(); } }
sp$target:::data /self->s/ { if (arg2 != 1) { speculate(self->s); } }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::data { printf("d %d %d\n", arg1, arg2); }
sp$target:::end /self->s/ { if (arg2) { commit(self->s); } else { discard(self->s); } self->s = 0; }
EOF2
same ifn ifn.d 6 asis
: >ifn.exp
for i in 0 1 2 3 4 5; do
	printf "d $i %d\n" 0 1 2 >>ifn.exp
	case $i in 0 | 4) printf "0 $i %d\n" 0 1 2 >>ifn.exp ;; esac
done
echo >>ifn.exp
expect_file_eq "ifn: transactions 0 and 4, every data line" ifn.exp \
	ifn.g.txt
kspec ifn 4
same ifn8 ifn.d '40 8' sort -x nspec=8
: >ifn8.exp
t=0
while [ $t -lt 8 ]; do
	for i in 0 4 6 10 12 16 18 22 24 28 30 34 36; do
		printf "$t $i %d\n" 0 1 2 >>ifn8.exp
	done
	i=0
	while [ $i -lt 40 ]; do
		printf "d $i %d\n" 0 1 2 >>ifn8.exp
		i=$((i + 1))
	done
	t=$((t + 1))
done
echo >>ifn8.exp
sort ifn8.exp >ifn8.srt
expect_file_eq "ifn8: every thread's taken, even transactions" ifn8.srt \
	ifn8.g.txt
expect_eq "ifn8: no drop" "" "$(cat ifn8.g.txt.drops)"
kspec ifn8 4
# ... and a speculate() under an if in a clause that prints: unreached,
# its record is printed at its place (doc/DESIGN.md's "Own records",
# cgen_out.c's kspec_own()), the kernel's too since step 4's steps in
# a branch
cat >ifs.d <<'EOF2'
sp$target:::begin { if (!self->s) { self->s = speculation(); } }
sp$target:::data /self->s/ { if (arg2 != 1) { speculate(self->s); } printf("%d %d\n", arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same ifs ifs.d 4 asis
expect_eq "ifs: the j = 1 lines at their place, the rest at the commit" \
	"$(printf '%d %d\n' 0 1 0 0 0 2 1 1 2 1 2 0 2 2 3 1)" \
	"$(grep -v '^$' ifs.g.txt)"
kspec ifs 4
# 3: exit() decided at the hit (the kernel lets hits through before it,
# run after it) keeps the speculations user space's
sed '$a\
sp$target:::end /arg1 == 4/ { exit(0); }' txn.d >kexit.d
same kexit kexit.d 8 asis
expect_grep "kexit: -v why" \
	"^dtrace: speculations stay user space's: exit() is decided at the hit" \
	kexit.g.txt.err
# 4: a tick-N firing is cut as the hits around it (stamped its time): on
# 16 threads flat out, with a close in nearly every read, the ticks' and
# the end hits' lines in time order (before, a tick stamped past a cut
# ran before the hits it cut, in about 2 runs of 5)
cat >ktick.d <<'EOF2'
sp$target:::end { printf("e %d\n", timestamp); }
tick-4000hz { printf("t %d\n", timestamp); }
EOF2
cat txn.d ktick.d >ktick2.d
run g ktick.g.txt '1000 16' -s ktick2.d -x nspec=16
expect_eq "ktick: the ticks' and the end hits' lines in time order" "" \
	"$(grep -E '^[te] ' ktick.g.txt | awk '$2 < p { print NR ": " $0 } { p = $2 }')"
kspec ktick 4

# One buffer that 8 threads speculate into flat out while thread 0 takes
# it at its first begin and commits it at its last end, a marker printed
# right after: the records whose steps came before the commit's are held
# by dtrace, some of them still in other CPUs' hits or not read when the
# commit's record is (the barrier, the cut and the pass of kspec_read.c
# put them in hand first), so every committed line is a data hit's, they
# come together between the commit and the marker, thread 0's own 3,000
# all there, and none is a drop.  How many of the others' depends on the
# interleaving: the three ways are not compared.  The ring holds the
# whole run: its 24,000 records take about 2 MB (a 2 MB ring, -x
# bufsize=1m on this 2-CPU machine, held 23,992 of them with dtrace
# stopped), and where dtrace gets no CPU until the threads end
# (check-kmod's guest, one slow CPU) the default 2 MB ring dropped
# 1,588 there and, lost records discarding every held one
# (d_kspec_lost()), the commit printed none.  The BPF ring is bufsize
# times the possible CPUs, so bufsize is 16 MB over their count (at
# least 1 MB): a ring of 16 MB or more, not 16 MB a CPU.
cat >lit.d <<'EOF2'
sp$target:::begin /arg0 == 0 && arg1 == 0/ { self->s = speculation(); }
sp$target:::data { speculate(1); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /arg0 == 0 && arg1 == 999/ { commit(self->s); self->s = 0; }
sp$target:::end /arg0 == 0 && arg1 == 999/ { printf("marker\n"); }
EOF2
ncpu=$(getconf _NPROCESSORS_CONF 2>/dev/null || echo 1)
lbs=$((16 / ncpu))
[ "$lbs" -ge 1 ] || lbs=1
run g lit.g.txt '1000 8' -s lit.d -x bufsize=${lbs}m
lit_f0=$failures
n=$(wc -l <lit.g.txt)
expect_eq "lit: the marker, then dtrace's last line" "marker||" \
	"$(tail -2 lit.g.txt | tr '\n' '|')"
expect_eq "lit: every line before the marker a data hit's" "" \
	"$(head -n $((n - 2)) lit.g.txt | grep -vE '^[0-7] [0-9]+ [012]$')"
: >lit.exp
i=0
while [ $i -lt 1000 ]; do
	printf '0 %d 0\n0 %d 1\n0 %d 2\n' $i $i $i >>lit.exp
	i=$((i + 1))
done
grep '^0 ' lit.g.txt >lit.t0
expect_file_eq "lit: thread 0's own, in order" lit.exp lit.t0
expect_eq "lit: no drop" "" "$(cat lit.g.txt.drops)"
# (what dtrace said, where a check above failed: the ring's drops, a
# program that found its CPU's buffer taken, a missed record?)
[ "$failures" -eq "$lit_f0" ] ||
	grep '^dtrace: ' lit.g.txt.err | grep -v ' clause' >&2
kspec lit 3

# Records lost after their step: dtrace stopped (SIGSTOP) for a second
# while 8 threads run transactions flat out (sp 0: until sp.stop), so the
# small ring fills and the kernel drops records.  From the read that
# reports the loss on, nothing is printed from a held generation
# (../d/spec.c's d_kspec_lost()): said once, and every transaction
# printed is whole, its three data lines (a pairing shifted by a lost
# tag would print parts of two).
rm -f sp.stop
DTRACE_CGEN=1 DTRACE_KAGG=1 "$DTRACE" -v -q -x bufsize=256k -x nspec=8 \
	-o lost.txt -s txn.d -c './sp 0 8' >/dev/null 2>lost.err &
lpid=$! # (dtrace itself: SIGSTOP stops it; a watchdog kills it late)
(sleep 120 && : >sp.stop && sleep 10 && kill -KILL $lpid) 2>/dev/null &
wpid=$!
t=0
while [ $t -lt 200 ] && [ "$(cat lost.txt 2>/dev/null | wc -l)" -lt 30 ]; do
	sleep 0.1
	t=$((t + 1))
done
kill -STOP $lpid
sleep 1
kill -CONT $lpid
sleep 0.5
: >sp.stop
wait $lpid
expect_eq "lost: status" 0 "$?"
kill $wpid 2>/dev/null
expect_eq "lost: said once" 1 \
	"$(grep -c '^dtrace: speculation buffers discarded after lost records$' lost.err)"
expect_grep "lost: the ring's drops" '^dtrace: [0-9]* drops on CPU' lost.err
expect_eq "lost: every transaction printed whole" "" \
	"$(grep -v '^$' lost.txt | awk '{ n[$1 " " $2]++ } END { for (k in n) if (n[k] != 3) print k, n[k] }')"
expect_eq "lost: only even transactions" "" \
	"$(grep -v '^$' lost.txt | awk '$2 % 2 || $3 > 2')"
cp lost.err lost.g.txt.err
kspec lost 4

# Step 4 (doc/DESIGN.md's "Speculations in the kernel, step 4"): strings
# and faults after speculate() in the kernel.  ferr: flt.d with an ERROR
# clause: each fault reported once, at its data hit's place (before the
# transaction's committed lines), its record a hole (no line).
sed '$a\
dtrace:::ERROR { printf("E %d %d\\n", arg4, arg5); }' flt.d >ferr.d
same ferr ferr.d 3 asis
: >ferr.exp
for i in 0 1 2; do
	printf 'E 1 1\n%d 0 t0-i%d-j0\n%d 2 t0-i%d-j2\n' $i $i $i $i >>ferr.exp
done
echo >>ferr.exp
expect_file_eq "ferr: each fault at its place, before the commit" ferr.exp \
	ferr.g.txt
expect_eq "ferr: one error line a fault" 3 "$(wc -l <ferr.g.txt.errs)"
kspec ferr 4
# sflt: a copy that faults with a store after it jumps to the clause's
# end: the store not made (n counts 2 a transaction), no line held.  (The
# copies are of arguments, which the record carries: the user space path
# would read another address when it runs the record, late.)
cat >sflt.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s && arg2 == 1/ { speculate(self->s); printf("%d %s\n", arg2, copyinstr(arg2)); self->n++; }
sp$target:::data /self->s && arg2 != 1/ { speculate(self->s); printf("%d %s\n", arg2, copyinstr(arg3)); self->n++; }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
sp$target:::end { printf("n %d\n", self->n); }
EOF2
same sflt sflt.d 2 asis
printf '0 t0-i0-j0\n2 t0-i0-j2\nn 2\n0 t0-i1-j0\n2 t0-i1-j2\nn 4\n\n' >sflt.exp
expect_file_eq "sflt: the lines, n 2 a transaction" sflt.exp sflt.g.txt
expect_eq "sflt: the faults" 2 \
	"$(grep -c 'invalid address (0x1) in action #3' sflt.g.txt.errs)"
kspec sflt 4
# ifa: ifs after speculate() (not steps: printf()s in branches), held
# whole; the held text's values counted with the ifs' (kplan_out.c's
# out_nvals(): with the printf()s' alone, dtrace overran them)
cat >ifa.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); if (arg2 == 1) { printf("one\n"); } if (arg2 != 1) { printf("not\n"); } printf("%d\n", arg2); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same ifa ifa.d 2 asis
printf 'not\n0\none\n1\nnot\n2\n%.0s' 1 2 >ifa.exp
printf '\n' >>ifa.exp
expect_file_eq "ifa: the lines" ifa.exp ifa.g.txt
kspec ifa 3
# wflt: a site's fault (a string compare in a store) after the step and
# after its printf()'s value was written: the clause is not whole, its
# record a hole, so no "i 1" line is committed.
cat >wflt.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s && arg2 == 1/ { speculate(self->s); printf("%d %d\n", arg1, arg2); self->b = copyinstr(arg2) == "x"; }
sp$target:::data /self->s && arg2 != 1/ { speculate(self->s); printf("%d %d %s\n", arg1, arg2, copyinstr(arg3)); }
sp$target:::end /self->s/ { commit(self->s); self->s = 0; }
EOF2
same wflt wflt.d 3 asis
expect_file_eq "wflt: no line of a clause that faulted" flt.exp wflt.g.txt
expect_eq "wflt: the faults" 3 \
	"$(grep -c 'invalid address (0x1)' wflt.g.txt.errs)"
kspec wflt 4
# strs: strings after speculate() on 8 threads with nspec 64 (the take
# unrolled over 64 words, verified): execname, probename, a literal, a
# this-> string the clause stores (SSTR) and prints (OVSTR), and a
# string function of a copy; the pass's held text has the record's comm.
cat >strs.d <<'EOF2'
sp$target:::begin { self->s = speculation(); }
sp$target:::data /self->s/ { speculate(self->s); this->t = copyinstr(arg3); printf("%s %s %s %s %s %d %d %d\n", execname, probename, "lit", this->t, strjoin("x-", copyinstr(arg3)), arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { discard(self->s); self->s = 0; }
EOF2
same strs strs.d '4 8' sort -x nspec=64
echo >strs.exp
t=0
while [ $t -lt 8 ]; do
	for i in 0 2; do
		for j in 0 1 2; do
			echo "sp data lit t$t-i$i-j$j x-t$t-i$i-j$j $t $i $j" >>strs.exp
		done
	done
	t=$((t + 1))
done
sort strs.exp >strs.srt
expect_file_eq "strs: every thread's even transactions" strs.srt strs.g.txt
expect_eq "strs: no drop" "" "$(cat strs.g.txt.drops)"
kspec strs 4

# Kept out, -v naming them: ustack() (a record with both fault bits and a
# stack) and args[N] by %s (a plan per probe) in a speculating clause.
sed 's/printf("%d\\n", arg2);/printf("%d\\n", arg2); ustack();/' store.d |
	sed 's/ self->n++;//' >kstk.d
run g kstk.g.txt 1 -s kstk.d
expect_grep "kstk: -v why" \
	"^dtrace: speculations stay user space's: clause 2: ustack() or jstack() in a speculating clause" \
	kstk.g.txt.err
sed 's/printf("%d\\n", arg2);/printf("%d %s\\n", arg2, args[3]);/' store.d |
	sed 's/ self->n++;//' >ksarg.d
run g ksarg.g.txt 1 -s ksarg.d
expect_grep "ksarg: -v why" \
	"^dtrace: speculations stay user space's: clause 2: args\[N\] printed as a string in a speculating clause" \
	ksarg.g.txt.err
# Own records (doc/DESIGN.md's step 4, *Own records*): a clause that
# takes or closes a buffer and prints has a record of its own, printed
# at its place, not held.  own.d: a take that prints its new ID, one
# whose printf() faults after the take (the take stands: the buffer
# speculated into and discarded, the line not printed, the fault said
# once), and a discard() between two printf()s; the committed lines
# after the end's place, the discarding clause's lines at it.  The ID
# is declared an int: undeclared, its type set and unset differ, and
# kplan_vars.c keeps a printf() of it out of the kernel (-v: "would
# compute differently with self->s set and unset" where one clause
# takes; here, two clauses storing it, each line names the other)
cat >own.d <<'EOF2'
self int s;
sp$target:::begin /arg1 != 1/ { self->s = speculation(); printf("b %d %d\n", arg1, self->s); }
sp$target:::begin /arg1 == 1/ { self->s = speculation(); printf("f %d %s\n", self->s, copyinstr(arg1)); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { printf("d %d %d\n", arg1, self->s); discard(self->s); printf("x %d\n", self->s); self->s = 0; }
EOF2
same own own.d 4 asis
printf '%s\n' 'b 0 1' '0 0 0' '0 0 1' '0 0 2' 'd 1 1' 'x 1' 'b 2 1' \
	'0 2 0' '0 2 1' '0 2 2' 'b 3 1' 'd 3 1' 'x 1' '' >own.exp
expect_file_eq "own: the takes' and the discard's lines at their place" \
	own.exp own.g.txt
expect_eq "own: the take's fault, once" \
	"dtrace: error on enabled probe ID 2 (ID N: spPID:sp:run:begin): invalid address (0x1) in action #3" \
	"$(cat own.g.txt.errs)"
kspec own 5
# ... on 8 threads at once, two takes a transaction (nspec 16: none
# fails), the take clause printing whether it got two IDs, the odd
# transactions' discarding clause printing after its discard()s
cat >own8.d <<'EOF2'
self int s, t;
sp$target:::begin { self->s = speculation(); self->t = speculation(); printf("b %d %d %d\n", arg0, arg1, self->s != self->t && self->s && self->t); }
sp$target:::data /self->s/ { speculate(self->s); printf("%d %d %d\n", arg0, arg1, arg2); }
sp$target:::data /self->t/ { speculate(self->t); printf("t %d %d %d\n", arg0, arg1, arg2); }
sp$target:::end /self->s && arg2/ { commit(self->s); discard(self->t); self->s = 0; self->t = 0; }
sp$target:::end /self->s/ { discard(self->s); discard(self->t); printf("o %d %d\n", arg0, arg1); self->s = 0; self->t = 0; }
EOF2
same own8 own8.d '10 8' sort -x nspec=16
echo >own8.exp
t=0
while [ $t -lt 8 ]; do
	i=0
	while [ $i -lt 10 ]; do
		echo "b $t $i 1" >>own8.exp
		case $i in
		*[02468]) printf "$t $i %d\n" 0 1 2 >>own8.exp ;;
		*) echo "o $t $i" >>own8.exp ;;
		esac
		i=$((i + 1))
	done
	t=$((t + 1))
done
sort own8.exp >own8.srt
expect_file_eq "own8: every thread's lines" own8.srt own8.g.txt
expect_eq "own8: no drop" "" "$(cat own8.g.txt.drops)"
kspec own8 5
# The default line (no -q) and -x oformat=json (step 4): the held
# records and the own ones made with them, three ways byte for byte.
# run_mode gives -q: noq runs dtrace without it.  The CPU a line names
# is where its hit ran, the probe ID and the provider's PID the run's:
# same()'s "cpu" puts C, I and P in their place.
cat >noq <<EOF2
#!/bin/sh
for a; do shift; [ "\$a" = -q ] || set -- "\$@" "\$a"; done
exec "$DTRACE" "\$@"
EOF2
chmod +x noq
dq=$DTRACE
DTRACE=$PWD/noq
# own.d: the speculate() clause's held default lines after the commit
# clause's own, a take's and a discard's own lines at their place
same ownq own.d 4 cpu
printf '%s\n' 'CPU     ID                    FUNCTION:NAME' 'C I run:begin b 0 1' \
	'' 'C I run:end ' 'C I run:data 0 0 0' '' 'C I run:data 0 0 1' '' \
	'C I run:data 0 0 2' '' 'C I run:end d 1 1' 'x 1' '' \
	'C I run:begin b 2 1' '' 'C I run:end ' 'C I run:data 0 2 0' '' \
	'C I run:data 0 2 1' '' 'C I run:data 0 2 2' '' 'C I run:begin b 3 1' \
	'' 'C I run:end d 3 1' 'x 1' '' '' >ownq.exp
expect_file_eq "ownq: the default lines, the commit's own before its buffer's" \
	ownq.exp ownq.g.txt
kspec ownq 5
same txq tx.d 4 cpu
kspec txq 4
same txj tx.d 4 cpu -x oformat=json
kspec txj 4
same ownj own.d 4 cpu -x oformat=json
expect_eq "ownj: a JSON record a line, the commit's before its records" \
	"$(printf '%s\n' begin end data data data end begin end data data data begin end)" \
	"$(sed -n 's/.*"name":"\([a-z]*\)".*/\1/p' ownj.g.txt)"
kspec ownj 5
# empty.d: speculate() with nothing printed after it, its held default
# line committed
same emptyq empty.d 4 cpu
expect_eq "emptyq: a data line's record twice, its empty one's and its own" \
	"$(printf 'C I run:data \nC I run:data 0 0 0')" \
	"$(sed -n '3,4p' emptyq.g.txt)"
kspec emptyq 5
# cflt.d: a fault after a commit(): its default line and the committed
# ones stand, then the fault; ifn.d: commit() under an if, its default
# line at its place
same cfltq cflt.d 3 cpu
echo 'CPU     ID                    FUNCTION:NAME' >cfltq.exp
for i in 0 1 2; do
	echo 'C I run:end ' >>cfltq.exp
	printf "C I run:data 0 $i %d\n\n" 0 1 2 >>cfltq.exp
done
echo >>cfltq.exp
expect_file_eq "cfltq: each commit's line before its buffer's, the fault's too" \
	cfltq.exp cfltq.g.txt
expect_eq "cfltq: the fault after the commit()" \
	"dtrace: error on enabled probe ID 3 (ID N: spPID:sp:run:end): illegal operation in action #3" \
	"$(cat cfltq.g.txt.errs)"
kspec cfltq 3
same ifnq ifn.d 6 cpu
kspec ifnq 4
DTRACE=$dq
# -F stays refused: its indent depends on the records before in time
# order, and a held record is made ahead of its place
run g flow.g.txt 2 -s cflt.d -F
expect_grep "flow: -v why" \
	"^dtrace: speculations stay user space's: -F indents by the records before it in time order; held records are made ahead of their place\$" \
	flow.g.txt.err
# Steps in a branch of a clause that prints (step 4's *Steps in a
# branch*): ifs.d on 8 threads; ifsf.d, a take under an if whose clause
# prints the ID, a speculate() under an if and a site's fault after
# the printf() at transaction 1 (each of its data hits: the reached
# step's record a hole, the unreached one's own record not printed,
# the fault said once a hit), a discard() under an if beside a
# printf() (unreached at transaction 1: its buffer stays taken, so
# transaction 2 takes buffer 2); ifsq, ifs.d's own default lines
same ifs8 ifs.d '20 8' sort -x nspec=8
echo >ifs8.exp
t=0
while [ $t -lt 8 ]; do
	i=0
	while [ $i -lt 20 ]; do
		echo "$i 1" >>ifs8.exp
		case $i in *[02468]) printf "$i %d\n" 0 2 >>ifs8.exp ;; esac
		i=$((i + 1))
	done
	t=$((t + 1))
done
sort ifs8.exp >ifs8.srt
expect_file_eq "ifs8: every thread's j = 1 lines and even transactions" \
	ifs8.srt ifs8.g.txt
expect_eq "ifs8: no drop" "" "$(cat ifs8.g.txt.drops)"
kspec ifs8 4
cat >ifsf.d <<'EOF2'
self int s;
sp$target:::begin { if (!self->s) { self->s = speculation(); } printf("b %d %d\n", arg1, self->s); }
sp$target:::data /self->s/ { if (arg2 != 1) { speculate(self->s); } printf("%d %d %s\n", arg1, arg2, copyinstr(arg3)); if (arg1 == 1) { self->b = copyinstr(arg2) == "x"; } }
sp$target:::end /self->s && arg2/ { commit(self->s); self->s = 0; }
sp$target:::end /self->s/ { if (arg1 != 1) { discard(self->s); } printf("e %d %d\n", arg1, self->s); self->s = 0; }
EOF2
same ifsf ifsf.d 4 asis -x nspec=2
printf '%s\n' 'b 0 1' '0 1 t0-i0-j1' '0 0 t0-i0-j0' '0 2 t0-i0-j2' 'b 1 1' \
	'e 1 1' 'b 2 2' '2 1 t0-i2-j1' '2 0 t0-i2-j0' '2 2 t0-i2-j2' 'b 3 2' \
	'3 1 t0-i3-j1' 'e 3 2' '' >ifsf.exp
expect_file_eq "ifsf: the lines at their place and committed" ifsf.exp \
	ifsf.g.txt
expect_eq "ifsf: the faults, once each" \
	"$(printf 'dtrace: error on enabled probe ID 2 (ID N: spPID:sp:run:data): invalid address (0x%d) in action #7\n' 0 1 2)" \
	"$(cat ifsf.g.txt.errs)"
kspec ifsf 4
dq=$DTRACE
DTRACE=$PWD/noq
same ifsq ifs.d 4 cpu
expect_eq "ifsq: the j = 1 default line at its place, the others at the commit" \
	"$(printf '%s\n' 'CPU     ID                    FUNCTION:NAME' \
		'C I run:data 0 1' '' 'C I run:end ' 'C I run:data 0 0' '')" \
	"$(sed -n '1,6p' ifsq.g.txt)"
kspec ifsq 4
DTRACE=$dq
finish
