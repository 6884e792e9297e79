#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-kexit.sh: exit() in a clause of a kernel provider's probe
# (syscall, proc, profile-N) decided at the hit by the programs
# generated for those probes (dtrace-G/consumer/cgen_kprov.c, kplan_exit.c's
# "exit() at a traced probe"), as it is at uprobe sites (run-kagg.sh):
# the other clauses aggregate in the kernel and the counts before the
# exit, and nothing after it, are byte for byte what user space counts
# from every record (DTRACE_KAGG=0) and what the generic programs give
# (DTRACE_CGEN=0, which decide no exit() and so run nothing in the
# kernel).  The target, tests/data/kprov/kpprog.c's `closes N [M]`,
# makes N close(2) calls of descriptors 1000 to 1000 + N - 1, then with
# M spins and makes N more of 2000 to 2000 + N - 1: hits in known
# numbers, an argument that tells them apart.  Covered:
#  - syscall::close:entry exiting at the 6th call: 6 counted, none
#    after; the exit status; one record read (the exiting hit's);
#  - a clause before the exit clause counts the exiting hit, one after
#    it does not, nor prints (DTrace's ECBs after the exit see the run
#    draining);
#  - proc:::exit of the target: every call counted, its status;
#  - profile-997 exiting at the first sample in the target's spin():
#    the first 10 calls counted, the 10 after the spin not;
#  - the pid provider's exit() beside a system call's count (a uprobe
#    site: decided at the hit before this change too);
#  - aggregations before an exit() decided at the hit (kplan_exit.c's
#    "Aggregations before the exit()"), the winner's updates alone,
#    once: at close(2) beside a kernel clause sharing them, and at a
#    USDT probe 8 threads of tests/data/trace/trprog.c race to exit at
#    (count(), sum(), max(), two keys, lquantize(); @[ustack(3)] =
#    count()); one record;
#  - syscall:::entry exiting at close(1005): every system call, on the
#    raw tracepoint, its generated program tail-called by number,
#    decided there too, one record;
#  - errno, which the generated programs compute from a return's arg0
#    (0 elsewhere: at entry, at a pid probe), as a key, summed and in a
#    predicate, at syscall::close:return and at every call's return
#    (the raw tracepoint); exit() at the first failing close(2),
#    decided by errno at the hit: one counted, one record;
#  - where the kernel cannot decide the exit(): a predicate reading a
#    global it updates, a clause of syscall and tick-1s: nothing in the
#    kernel, the same counts, and -v says why;
#  - -v's reason for each clause left to user space (kplan_why.c) and
#    for a run the generic program takes (bpf_cg.c), which it did not
#    give before: printa() at a traced probe, a global variable, a
#    self-> variable a user space clause touches, printf() at a kernel
#    probe, quantize() with an increment, a string comparison, a
#    clause's own reason before its variable's, a thread-local array
#    of 4-byte values read where an unset element's signed 8-byte 0
#    computes differently (tests/run-cgen-tlarr.sh has those of
#    timestamps in the kernel), a read by an address
#    that comes when dtrace runs the record, copyoutstr() (dtrace's to
#    write, the held path's generated programs: bpf_cg.c), curpsinfo's
#    effective ids at a kernel probe.
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

# non-PIE: spin()'s run-time addresses are nm's
kpprog_build

# vcount FILE: the clauses -v says ran in the kernel (0: none)
vcount() {
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* aggregated in the kernel$/\1/p' "$1")
	echo "${n:-0}"
}
# pcount FILE: the clauses -v says printed values the kernel computed
pcount() {
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* printing values computed in the kernel$/\1/p' "$1")
	echo "${n:-0}"
}
# records FILE: the records -v says the generated programs wrote
records() {
	sed -n 's/^dtrace: BPF: .*, \([0-9]*\) records* read$/\1/p' "$1"
}

# kx WHAT NCLAUSES STATUS CMD DTRACE-ARGS...: dtrace -v -q on ./kpprog
# CMD (kxprog: another program) three ways: g, the generated programs
# (DTRACE_KAGG=1); 0, every hit a record run in user space
# (DTRACE_KAGG=0); c, the generic programs (DTRACE_CGEN=0).  Each exits
# with STATUS and prints expected.txt (empty: what g printed); -v says
# g ran NCLAUSES clauses in the kernel, c none
# (it decides no exit()), and no run drops a record; gen=0: g is the
# generic programs' run too (no prologue fits).
# The three start together (lib.sh's run_mode_start), each on its own
# process (-c) with its own files (out$k.txt, err$k.txt), and are
# checked after all three end (run_mode_end), in the same order: most
# of a run is spent waiting on the kernel (attaching, detaching), not
# on a CPU.
gen=1 kxprog=./kpprog
# kx_mode K: run_mode's mode of kx's K, in $m
kx_mode() {
	case $1 in
	g) m=g ;;
	0) m=u ;;
	c) m=0 ;;
	esac
}
kx() {
	what=$1 ncl=$2 st=$3 cmd=$4
	shift 4
	for k in g 0 c; do
		kx_mode $k
		run_err=err$k.txt run_status=$st run_what="$what ($k)"
		run_mode_start $m out$k.txt "$kxprog $cmd" "$@"
	done
	for k in g 0 c; do
		run_mode_end out$k.txt
	done
	for k in g 0 c; do
		kx_mode $k
		# the two reference modes record every process's calls at a
		# glob (syscall:::return) for user space to filter: on a busy
		# machine (CI's -j2 beside run-cgen-kprov.sh's flood of
		# calls, or the other two modes beside it) the ring can
		# overflow with others' records, so a run that said drops
		# is run once more, alone; the generated program (g) records
		# only the target's and gets no rerun
		if [ $k != g ] && grep -qi drop err$k.txt; then
			echo "# $what ($k): $(grep -i drop err$k.txt |
				head -1); once more" >&2
			run_err=err$k.txt run_status=$st \
				run_what="$what ($k, again)"
			run_mode $m out$k.txt "$kxprog $cmd" "$@"
		fi
		# an empty expected.txt: the generated run's output is it
		[ $k != g ] || [ -s expected.txt ] || cp outg.txt expected.txt
		expect_file_eq "$what ($k)" expected.txt out$k.txt
	done
	expect_eq "$what: clauses run in the kernel" "$ncl" "$(vcount errg.txt)"
	expect_eq "$what: generated" "$gen" \
		"$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' errg.txt)"
	expect_eq "$what: none in the kernel with DTRACE_KAGG=0" 0 \
		"$(vcount err0.txt)"
	expect_eq "$what: none in the generic programs" 0 "$(vcount errc.txt)"
	expect_eq "$what: no drops" "" \
		"$(grep -i drop errg.txt err0.txt errc.txt)"
}

# ---------------------------------------------------------------------
# syscall

# The 6th call exits (exit(3): the status says the exit ran, not the
# target's end): the count and the sum of the 6 in the kernel, the
# exit tested there too, and the one record read is the exiting hit's.
# Before, exit() at a kernel probe kept every clause in user space.
printf '\n                6\n             6015\n' >expected.txt
kx "exit() at syscall::close:entry" 1 3 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@c = count(); @s = sum(arg0); }' \
	-n 'syscall::close:entry /pid == $target && arg0 == 1005/ { exit(3); }'
expect_eq "exit() at syscall::close:entry: one record, generated" 1 \
	"$(records errg.txt)"
# ... the descriptor a run constant (a global BEGIN alone stores, read
# by the kernel from cgrcon: kplan_fkey.c): the same, decided at the hit
# (before 2026-12-05 every clause user space's, "its predicate reads a
# global variable")
kx "exit() at syscall::close:entry, a run constant" 1 3 "closes 10" \
	-n 'BEGIN { at = 5; }' \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@c = count(); @s = sum(arg0); }' \
	-n 'syscall::close:entry /pid == $target && arg0 == 1000 + at/ {
		exit(3); }'
expect_eq "exit() at syscall::close:entry, a run constant: one record" 1 \
	"$(records errg.txt)"

# A clause before the exit clause counts the exiting hit (6), one after
# it does not (5) nor prints; the exit clause runs in user space, from
# the winner's record, the clauses before and after it in the kernel
# (the winner's plan ends at its exit clause: UBPF_K_XEND), the one
# after printing its values (before, every clause from the exit clause
# on ran in user space: none printing)
cat >expected.txt <<'EOF'
after 1000
after 1001
after 1002
after 1003
after 1004
exit at 1005

                6
                5
EOF
kx "exit() at syscall::close:entry, a clause after it" 1 0 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ { @a = count(); }' \
	-n 'syscall::close:entry /pid == $target && arg0 == 1005/ {
		printf("exit at %d\n", arg0); exit(0); }' \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@b = count(); printf("after %d\n", arg0); }'
expect_eq "exit() at syscall::close:entry, a clause after it: printing in the kernel" \
	1 "$(pcount errg.txt)"
expect_grep "exit() at syscall::close:entry, a clause after it: -v says why the exit clause is user space's" \
	"^dtrace: clause 2 (syscall::close:entry) runs in user space, from its record: it calls exit(), which dtrace runs from the record of the one hit that wins it\$" \
	errg.txt

# A self-> variable the clauses before and after the exit clause share,
# kept in the kernel (before, the clause after it was user space's and
# with it the variable and the clause before: nothing in the kernel,
# a record at every close(2) return): the return of the exiting call
# finds the run ended; the one record read is the winner's
cat >expected.txt <<'EOF'

             1000                1
             1001                1
             1002                1
             1003                1
             1004                1
EOF
kx "exit() between clauses sharing self->" 2 0 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		self->fd = arg0; }' \
	-n 'syscall::close:entry /pid == $target && arg0 == 1005/ { exit(0); }' \
	-n 'syscall::close:return /self->fd/ { @[self->fd] = count();
		self->fd = 0; }'
expect_eq "exit() between clauses sharing self->: one record, generated" 1 \
	"$(records errg.txt)"

# ---------------------------------------------------------------------
# proc

# The target's end: every call counted, the status the exit()'s.
printf '\n                1               10\n' >expected.txt
kx "exit() at proc:::exit" 1 5 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'proc:::exit /pid == $target/ { exit(5); }'
expect_eq "exit() at proc:::exit: one record, generated" 1 \
	"$(records errg.txt)"

# ---------------------------------------------------------------------
# profile-N

# The first sample in spin(), between the two sets of calls (not one in
# the dynamic linker's start-up, nor in main()'s loop of calls: spin()'s
# own bytes, nm -S): the first 10 counted, none of the 10 after.
set -- $(nm -S kpprog | awk '$4 == "spin" { print $1, $2 }')
[ "$#" -eq 2 ] || fail "nm: no spin in kpprog"
lo=$(printf '%d' "0x${1:-0}")
hi=$((lo + $(printf '%d' "0x${2:-0}")))
kx "exit() at profile-997" 1 4 "closes 10 300000000" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n "profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ {
		exit(4); }"
expect_eq "exit() at profile-997: one record, generated" 1 \
	"$(records errg.txt)"

# ---------------------------------------------------------------------
# pid: a uprobe site, decided at the hit before kernel probes were

kx "exit() at pid\$target::spin:entry" 1 6 "closes 10 300000000" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'pid$target::spin:entry { exit(6); }'

# ---------------------------------------------------------------------
# aggregations before the exit() (kplan_exit.c's "Aggregations before
# the exit()"): the clause is decided at the hit still, run from the
# winner's record alone, so its updates count once, whichever of the
# threads racing to exit wins; before, they kept every clause in user
# space (-v: "a statement before it is not printf() or trace() ...",
# every hit a record).  tests/data/trace/trprog.c's `threads T N`: T
# threads each fire tr:::tick(t, "thread", i) for i = 0 .. N - 1, all at
# once.  A clause the kernel runs beside it (never true: what the
# threads count before the exit is the interleaving's) stays there.

# at a system call, the aggregations of a kernel clause updated by the
# exit clause too (merged as any user space clause's): the kernel's 6
# and the winner's 1; avg() of 1000 .. 1005 and 1005 again
printf '\n                7\n             1002\n             1005\n' \
	>expected.txt
kx "aggregations before exit() at syscall::close:entry, shared" 1 3 \
	"closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@c = count(); @a = avg(arg0); }' \
	-n 'syscall::close:entry /pid == $target && arg0 == 1005/ {
		@c = count(); @a = avg(arg0); @s = sum(arg0); exit(3); }'
expect_eq "aggregations before exit() at syscall::close:entry, shared: one record, generated" \
	1 "$(records errg.txt)"

trace_progs_build
kxprog=./trprog
cat >expected.txt <<'EOF'

                1
                1
        1                1
        1        1                1

           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
            >= 2 |                                         0        

EOF
kx "aggregations before exit() at a racing USDT probe" 1 0 "'threads 8 3000'" \
	-x bufsize=16m \
	-n 'tr$target:::tick /arg2 >= 100/ { @c = count();
		@s = sum(arg2 >= 100); @m[arg2 > 99] = max(arg2 >= 100);
		@k[arg2 >= 100, arg0 >= 0] = count();
		@q = lquantize(arg2 >= 100, 0, 2); exit(0); }' \
	-n 'tr$target:::tick /arg2 < 0/ { @never = count(); }'
expect_eq "aggregations before exit() at a racing USDT probe: one record, generated" \
	1 "$(records errg.txt)"

# the user stack as the key of the exit clause's count(), the brief's
# `{ @[ustack()] = count(); exit(0); }` (made from the record's stack,
# as d_stmt_ukey()'s in a kernel clause): every hit exits or loses, one
# stack counted once; its frames are this machine's, so the expected
# text is the generated run's (kx: expected.txt empty), checked here
: >expected.txt
kx "ustack() before exit() at a racing USDT probe" 1 0 "'threads 8 500'" \
	-x bufsize=16m \
	-n 'tr$target:::tick { @[ustack(3)] = count(); exit(0); }' \
	-n 'tr$target:::tick /arg2 < 0/ { @never = count(); }'
expect_eq "ustack() before exit(): one stack, counted once" "1 thread_main" \
	"$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { n++; c = $1 }
		/`thread_main/ { f = "thread_main" }
		END { print (n == 1 ? c : "lines " n), f }' outg.txt)"
expect_eq "ustack() before exit(): one record, generated" 1 \
	"$(records errg.txt)"
kxprog=./kpprog

# every system call: the raw tracepoints, each call's generated program
# reached by its direction's dispatcher (kprov_syscall.c), the exit()
# tested there as on a call's own tracepoint: one record, the exiting
# hit's (the generic programs, DTRACE_CGEN=0, record every process's
# calls: a large buffer)
printf '\n                1                6\n' >expected.txt
kx "exit() at syscall:::entry (the raw tracepoint)" 1 0 "closes 10" \
	-x bufsize=32m \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'syscall:::entry /pid == $target && arg0 == 1005/ { exit(0); }'
expect_eq "exit() at syscall:::entry: one record, generated" 1 \
	"$(records errg.txt)"

# ---------------------------------------------------------------------
# errno: every close(2) of kpprog's fails, EBADF (9); at entry and at a
# pid probe errno is 0.  Before, a clause reading errno was user
# space's (-v: none in the kernel).

cat >expected.txt <<'EOF'

        9               -9               20
              180
               20
               20
                1
EOF
kx "errno at syscall::close:return" 3 0 "closes 10 1000" \
	-n 'syscall::close:return /pid == $target && errno != 0/ {
		@[errno, arg0] = count(); @s = sum(errno); }' \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@n = count(); @z = sum(errno + 1); }' \
	-n 'pid$target::spin:entry { @p = sum(errno + 1); }'

# every call's return (the raw tracepoint, each call's program reached
# by the dispatcher): the failing ones by call and errno
printf '\n  close%54s%17s\n' 9 20 >expected.txt
kx "errno at syscall:::return" 1 0 "closes 10 1000" -x bufsize=32m \
	-n 'syscall:::return /pid == $target && errno != 0/ {
		@[probefunc, errno] = count(); }'

# exit() at the first failing close(2), decided by errno at the hit
# (before, errno kept the exit() and so every clause in user space)
printf '\n                1                1\n' >expected.txt
kx "exit() with errno in its predicate" 1 8 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'syscall::close:return /pid == $target && errno == 9 && cpu >= 0/ {
		exit(8); }'
expect_eq "exit() with errno in its predicate: one record, generated" 1 \
	"$(records errg.txt)"

# ---------------------------------------------------------------------
# Where the kernel cannot decide the exit(): the run's clauses in user
# space, exact still

# a global the predicate updates (the kernel keeps none): the 6th
printf '\n                1                6\n' >expected.txt
kx "exit() with a global in its predicate" 0 0 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000 && ++n == 6/ {
		exit(0); }'
expect_grep "exit() with a global in its predicate: -v says why" \
	"^dtrace: every clause runs in user space: clause 2's exit() is not decided at the hit: its predicate reads a global variable (but for one BEGIN alone stores, a run constant), which only user space keeps\$" \
	errg.txt

# a clause of a system call and of tick-1s, whose firings dtrace makes
printf '\n                1                6\n' >expected.txt
kx "exit() at syscall::close:entry and tick-1s" 0 0 "closes 10" \
	-n 'syscall::close:entry /pid == $target && arg0 >= 1000/ {
		@[arg0 / 1000] = count(); }' \
	-n 'syscall::close:entry, tick-1s /pid == $target && arg0 == 1005/ {
		exit(0); }'
expect_grep "exit() at syscall::close:entry and tick-1s: -v says why" \
	"^dtrace: every clause runs in user space: clause 2's exit() is not decided at the hit: it fires where no generated program runs" \
	errg.txt

# ---------------------------------------------------------------------
# -v: why each clause left to user space is, and why a run takes the
# generic program (kplan_why.c, bpf_cg.c; -v said neither before)

# vwhy WHAT LINE DTRACE-ARGS...: dtrace -v -q on ./kpprog closes 3
# exits 0 and its -v has LINE (a grep pattern, anchored here)
vwhy() {
	vw_what=$1 vw_line=$2
	shift 2
	timeout -s KILL 60 "$DTRACE" -v -q -c "./kpprog closes 3" "$@" \
		>/dev/null 2>errw.txt
	expect_eq "$vw_what: status" 0 "$?"
	expect_grep "$vw_what: -v says why" "^dtrace: $vw_line\$" errw.txt
}

vwhy "printa() at a traced probe" \
	"every clause runs in user space: clause 2 (syscall::close:return): line 1: its printa() reads or resets aggregations while the kernel counts them (only a tick-N clause's may)" \
	-n 'syscall::close:entry /pid == $target/ { @ = count(); }' \
	-n 'syscall::close:return /pid == $target/ { printa(@); }'
vwhy "a global's store" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 1: its store to g is not one the kernel runs: g is a global variable that clause 1 reads or stores at a probe: the kernel keeps self-> and this-> variables, and a global only where the probes' clauses add to it alone (+=, -=, ++, --) and BEGIN, END and tick-N clauses read it, or BEGIN alone stores it" \
	-n 'syscall::close:entry /pid == $target/ { g = arg0; }' \
	-n 'syscall::close:return /pid == $target && g/ { @ = count(); }'
expect_grep "a global in a predicate: -v says why" \
	"^dtrace: clause 2 (syscall::close:return) runs in user space, from its record: line 1: its predicate is not one the kernel computes: g is a global variable that clause 1 reads or stores at a probe: the kernel keeps self-> and this-> variables, and a global only where the probes' clauses add to it alone (+=, -=, ++, --) and BEGIN, END and tick-N clauses read it, or BEGIN alone stores it\$" \
	errw.txt
vwhy "a self-> variable a user space clause reads and stores" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 1: its store to self->n is not one the kernel runs: self->n is also stored by clause 2, which runs in user space: the kernel makes such a store too only where it tests the predicate, nothing before the store may fault or end the clause and it computes the value" \
	-n 'syscall::close:entry /pid == $target/ { self->n = arg0; }' \
	-n 'syscall::close:return /pid == $target/ {
		printf("%d %d\n", self->n, progenyof(pid)); self->n = 0; }'
# (an argument's own reason before the one's before it that is only its
# variable's)
expect_grep "printf() of progenyof() at a kernel probe: -v says why" \
	"^dtrace: clause 2 (syscall::close:return) runs in user space, from its record: line 2: its printf() is not one the kernel computes at the hit: argument 2: progenyof() is not computed in the kernel where it would keep self-> variables: a chain it cannot finish could not send the hit to user space\$" \
	errw.txt
vwhy "quantize() with an increment" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 1: its @q = quantize() is not one the kernel runs: quantize() with an increment, which the kernel does not take" \
	-n 'syscall::close:entry /pid == $target/ { @q = quantize(arg0, 2); }'
vwhy "copyoutstr()" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 2: its expression is not one the kernel runs: copyout() and copyoutstr() are dtrace's to write, when it runs the record (the thread held at a USDT probe)" \
	-w -n 'syscall::close:entry /pid == $target && arg0 == 99999/ {
		copyoutstr("x", 0, 2); }'
vwhy "a string comparison of probefunc" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 1: its predicate is not one the kernel computes: a string comparison of probefunc the kernel does not make" \
	-n 'syscall::close:entry /pid == $target && probefunc == execname/ {
		@ = count(); }'
# the clause's own reason before its variable's; the read that comes
# late (the predicate is never true: nothing is read)
vwhy "copyinstr() of a self-> address" \
	"clause 2 (syscall::close:return) runs in user space, from its record: line 2: its printf() is not one the kernel computes at the hit: argument 2: progenyof() is not computed in the kernel where it would keep self-> variables: a chain it cannot finish could not send the hit to user space" \
	-n 'syscall::close:entry /pid == $target/ { self->p = arg0; }' \
	-n 'syscall::close:return /pid == $target && self->p == 99999/ {
		printf("%s %d\n", copyinstr(self->p), progenyof(pid)); }'
expect_grep "copyinstr() of a self-> address: -v says it reads late" \
	"^dtrace: clause 2 reads the process's memory when dtrace runs the record, not at the probe: a statement the kernel does not run or a value it does not compute" \
	errw.txt
expect_eq "copyinstr() of a self-> address: -v says it once" 1 \
	"$(grep -c 'not at the probe' errw.txt)"
vwhy "a thread-local array of 4-byte values" \
	"clause 1 (syscall::close:entry) runs in user space, from its record: line 2: its store to self->t\\[\\] is not one the kernel runs: self->t\\[\\]: clause 2's @ = sum() at line 2 would compute differently with an element set and unset, and no forms are chosen at the hit for an array's element, whose keys they would compute twice (its stores are unsigned 4-byte values, an unset element a signed 8-byte 0: declare it, or cast the value to int64_t)" \
	-n 'syscall::close:entry /pid == $target/ {
		self->t[arg0] = (uint32_t)arg0; }' \
	-n 'syscall::close:return /pid == $target/ {
		@ = sum(self->t[0] - 1); }'
vwhy "curpsinfo's pr_euid at a kernel probe" \
	"BPF: syscall:vmlinux:close:entry: a clause reads curpsinfo's pr_euid, pr_egid, pr_pgid or pr_sid, which a kernel probe's generated program does not record; the generic program instead" \
	-n 'syscall::close:entry /pid == $target/ {
		@[curpsinfo->pr_euid] = count(); }'

finish
