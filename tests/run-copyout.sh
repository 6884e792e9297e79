#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-copyout.sh: copyoutstr() and copyout() under -w against a real
# process (tests/data/copyout/cpout.c), which prints its buffer right
# after the probe returns, so only a write made before the thread went
# on shows.  The BPF program writes at the hit where the kernel lets it
# (bpf_probe_write_user()) and the form is one it can; else, for a -c
# or -p process, the thread is held at the probe (usdt.bpf.c's
# hold_thread(), dlhold.c) while dtrace runs the clause and writes: the
# output is the same either way.  The process and dtrace write one
# file: their lines are compared apart (lines()), as their order is
# the one the two flushed in.
#  - a literal, cut to the size given (no NUL: the old bytes after it
#    show); the whole string with its NUL; bytes copyinstr(argA) and
#    copyin(argA, n) read;
#  - a buffer the clause builds: alloca(), copyinto(), a store, bcopy();
#    a string it computes: strjoin(); forms the program at the hit
#    cannot write (a predicate, two writes, a read after the write,
#    which sees the write): all written before the probe returned, in
#    a -c command and in a -p process;
#  - a write to an address nothing maps is a fault: ERROR's arguments
#    (DTRACEFLT_BADADDR, the address) and DTrace's message;
#  - held, the run's generated programs (cgen_rec.c's u_hold()): a
#    clause before the copyout() clause reads and prints in the kernel,
#    at the hit, one after it reads in dtrace, after the write, count()
#    in the kernel; exit() decided at the hit before or after the
#    copyout() clause; beside ustack(), the generic program;
#  - a thread that blocks SIGURG cannot be held: the copyout() faults
#    at that hit (illegal operation), said once, nothing written;
#  - refused before tracing: without -w; without a -c/-p process for
#    what only a held thread can take; with the uprobe backend.
# Needs root, uprobes and the BPF backend.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/copyout

bpf_test_setup usdt "uprobe_events and perf_event_open need root"

"$DTRACE" -h -s "$data/cpout.d" -o cpout.h &&
	$CC -O2 -I. -c "$data/cpout.c" -o cpout.o &&
	"$DTRACE" -G -s "$data/cpout.d" cpout.o -o cpout-p.o &&
	$CC -o cpout cpout.o cpout-p.o || fail "building cpout"

# lines(PATTERN): out.txt's non-empty lines that match, then those that
# do not
lines() {
	sed '/^$/d' out.txt | grep -e "$1"
	sed '/^$/d' out.txt | grep -v -e "$1"
}

# "written-by-dtrace" cut to 8 bytes: no NUL written, so the old bytes
# after them show ("written-" then "-bytes" of "original-bytes")
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr("written-by-dtrace", arg0, 8); }
	ERROR { printf("ERROR %d 0x%x\n", arg4, arg5); }
	cpout$target:::done { exit(0); }'
expect_eq "-w: status" 0 "$status"
expect_eq "-w: the bytes written at the hit; ERROR's arguments" \
	"after the probe: [written--bytes]
ERROR 1 0x10" "$(lines '^after')"
expect_grep "-w: the fault's message" \
	"cpout:main:fill): invalid address (0x10) in action #1$" err.txt

# the whole string, its NUL included
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr("new", arg0, 32); }' \
	-n 'cpout$target:::done { exit(0); }'
expect_eq "-w: the string and its NUL" "after the probe: [new]" \
	"$(head -1 out.txt)"

# bytes read at another argument's address, then written: a string cut
# to the size (no NUL), a whole string, n bytes; a source nothing maps:
# nothing written, the clause's copyin faults there
for c in 'copyoutstr(copyinstr(arg1), arg0, 9)|from-the-bytes' \
	'copyoutstr(copyinstr(arg1), arg0, 32)|from-the-source' \
	'copyout(copyin(arg1, 4), arg0, 4)|frominal-bytes'; do
	run_dtrace -w -q -c './cpout copy' -n "cpout\$target:::copy {
		${c%|*}; } ERROR { printf(\"ERROR %d 0x%x\\n\", arg4, arg5); }"
	expect_eq "-w: ${c%|*}: status" 0 "$status"
	expect_eq "-w: ${c%|*}: written before the probe returned" \
		"after the copy: [${c#*|}]
after a copy from 0x10: [original-bytes]
ERROR 1 0x10" "$(lines '^after')"
done

# What only the clause has, written with the thread held at the probe:
# a buffer built with alloca(), copyinto(), a store and bcopy(); read
# back after the write, in the clause and in the next one, the process's
# new bytes (not the hit's copy of arg0's string)
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill /arg1 > 0/ {
	this->b = (char *)alloca(15); copyinto(arg0, 15, this->b);
	this->b[0] = 79; this->c = (char *)alloca(15);
	bcopy(this->b, this->c, 15); copyout(this->c, arg0, 15);
	printf("dtrace: %s\n", copyinstr(arg0)); }
	cpout$target:::fill /arg1 > 0/ { printf("next: %s\n", copyinstr(arg0)); }
	cpout$target:::done { exit(0); }'
expect_eq "held: alloca()+bcopy(): status" 0 "$status"
expect_eq "held: alloca()+bcopy(): written before the probe returned" \
	"after the probe: [Original-bytes]
dtrace: Original-bytes
next: Original-bytes" "$(lines '^after')"
expect_eq "held: alloca()+bcopy(): no message" "" "$(cat err.txt)"

# a string the clause computes, of a size it computes; two writes, the
# second after the first (its NUL ends the string)
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill /arg1 > 0/ {
	copyoutstr(strjoin("joined-", execname), arg0, arg1);
	copyoutstr("J", arg0, 1); }
	cpout$target:::done { exit(0); }'
expect_eq "held: strjoin(): status" 0 "$status"
expect_eq "held: strjoin(), two writes: written before the probe returned" \
	"after the probe: [Joined-cpout]" "$(lines '^after')"

# a -p process: held the same way (dlhold.c seizes it); it fires once
# dtrace's BEGIN has made the file it waits for
rm -f go
./cpout wait go >p-out.txt &
cpid=$!
run_dtrace -w -q -p "$cpid" -n 'BEGIN { system("touch go"); }
	cpout$target:::fill /arg1 > 0/ { this->b = (char *)alloca(4);
	this->b[0] = 45; this->b[1] = 112; this->b[2] = 45; this->b[3] = 0;
	copyoutstr(strjoin("held", stringof(this->b)), arg0, 32); }
	cpout$target:::done { exit(0); }'
wait "$cpid"
expect_eq "-p: status" 0 "$status"
expect_eq "-p: written before the probe returned" \
	"after the probe: [held-p-]" "$(cat p-out.txt)"

# Held, in the generated programs (cgen_rec.c's u_hold(); before, the
# generic program took such runs whole): a clause before the copyout()
# clause prints in the kernel the bytes it read at the hit, one after
# it reads the process after the write, from its record (-v says why);
# count() in the kernel, the hit that writes nothing (arg1 0) held by
# none (the copyout() clause's gate fails in the kernel: one record
# less)
held_rw='cpout$target:::fill /arg1 > 0/ {
	printf("before: %s\n", copyinstr(arg0)); }
	cpout$target:::fill /arg1 > 0/ { copyoutstr("new", arg0, 32); }
	cpout$target:::fill /arg1 > 0/ { printf("after: %s\n", copyinstr(arg0)); }
	cpout$target:::fill { @n = count(); }
	cpout$target:::done { exit(0); }'
held_out="after the probe: [new]
before: original-bytes
after: new
                2"
DTRACE_CGEN=0 run_dtrace -w -q -c ./cpout -n "$held_rw"
expect_eq "held, the generic program: read before and after the write" \
	"$held_out" "$(lines '^after the')"
run_dtrace -v -w -q -c ./cpout -n "$held_rw"
expect_eq "held, generated: status" 0 "$status"
expect_eq "held, generated: read before and after the write, as the generic program" \
	"$held_out" "$(lines '^after the')"
# (a program a site: how many sites the compiler made of cpout's probes
# is its own, 4 with gcc -O2, 3 with clang)
expect_grep "held, generated: the generated programs" \
	"^dtrace: BPF: [0-9][0-9]* generated programs*, .* 2 records read$" err.txt
expect_grep "held, generated: count() in the kernel" \
	"^dtrace: 1 clause aggregated in the kernel$" err.txt
expect_grep "held, generated: printf() before it in the kernel" \
	"^dtrace: 1 clause printing values computed in the kernel$" err.txt
expect_grep "held, generated: the copyout() clause dtrace's" \
	"^dtrace: clause 2 (cpout[0-9]*:::fill) runs in user space, from its record: line 3: its expression is not one the kernel runs: copyout() and copyoutstr() are dtrace's to write, when it runs the record (the thread held at a USDT probe)$" err.txt
expect_grep "held, generated: the read after it dtrace's" \
	"^dtrace: clause 3 (cpout[0-9]*:::fill) runs in user space, from its record: it reads the process after a copyout() that dtrace writes with the thread held at the probe$" err.txt

# ... but beside ustack() (whose walked record the unwinder outputs,
# holding nothing): the generic program, as before, saying why
run_dtrace -v -w -q -c ./cpout -n 'cpout$target:::fill /arg1 > 0/ {
	copyoutstr("new", arg0, 32); }
	cpout$target:::fill /arg1 > 0/ { @[ustack(1)] = count(); }
	cpout$target:::done { exit(0); }'
expect_eq "held beside ustack(): written" "after the probe: [new]" \
	"$(lines '^after' | head -1)"
expect_grep "held beside ustack(): the generic program, -v says why" \
	"^dtrace: BPF: clause 1 (cpout[0-9]*:::fill) calls copyout() or copyoutstr(), with the thread held beside a user stack, which only the generic program holds; the generic program instead$" err.txt

# exit() decided at the hit (kplan_exit.c's "exit() at a traced probe")
# beside a held copyout(): the winner runs no clause after its exit
# clause, its thread let go unwritten; before it, written
for c in '/arg1 == 32/ { exit(0); }|fill /arg1 > 0/ { copyoutstr("new", arg0, 32); }|original-bytes|1' \
	'/arg1 > 0/ { copyoutstr("new", arg0, 32); }|fill /arg1 == 32/ { exit(0); }|new|2'; do
	c1=${c%%|*} r=${c#*|} c2=${r%%|*} r=${r#*|}
	run_dtrace -v -w -q -c ./cpout -n "cpout\$target:::fill $c1
		cpout\$target:::$c2"
	expect_eq "held, exit() clause ${r#*|}: status" 0 "$status"
	expect_eq "held, exit() clause ${r#*|}: written or not" \
		"after the probe: [${r%|*}]" "$(lines '^after')"
	expect_grep "held, exit() clause ${r#*|}: decided at the hit" \
		"^dtrace: clause ${r#*|} (cpout[0-9]*:::fill) runs in user space, from its record: it calls exit(), which dtrace runs from the record of the one hit that wins it$" err.txt
done

# a thread that blocks SIGURG cannot be held: its copyout() faults at
# the hit (DTRACEFLT_ILLOP), said once, and nothing is written
run_dtrace -w -q -c './cpout block' -n 'cpout$target:::fill {
	copyoutstr(strjoin("new", ""), arg0, 32); }
	ERROR { printf("ERROR %d 0x%x\n", arg4, arg5); }
	cpout$target:::done { exit(0); }'
expect_eq "not held: status" 0 "$status"
expect_eq "not held: nothing written, ERROR at each hit" \
	"after the probe: [original-bytes]
ERROR 3 0x0
ERROR 3 0x0" "$(lines '^after')"
expect_grep "not held: said" \
	"could not be held at its probe (dtrace does not trace it, or it handles or blocks SIGURG)" err.txt
expect_eq "not held: said once" 1 \
	"$(grep -c 'could not be held' err.txt)"
expect_grep "not held: the fault's message" \
	"cpout:main:fill): illegal operation in action #1$" err.txt

run_dtrace -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr("new", arg0, 32); }' -n 'cpout$target:::done { exit(0); }'
expect_eq "without -w: status" 1 "$status"
expect_eq "without -w: message" \
	"dtrace: could not enable tracing: Destructive actions not allowed" \
	"$(cat err.txt)"

# refused: no -c/-p process to hold, for what the program at the hit
# cannot write (the compiler says which part); the uprobe backend, whose
# hits are read after the fact
./cpout >/dev/null
run_dtrace -w -q -n 'cpout*:::fill {
	copyoutstr(strjoin("a", copyinstr(arg0)), arg0, 2); }'
expect_eq "no -c/-p: status" 1 "$status"
expect_grep "no -c/-p: why" \
	'copyoutstr( ): its source is a string the clause computes.*(a -c or -p process is held at the probe instead, and takes any)' err.txt
expect_eq "no -c/-p: nothing traced" "" "$(cat out.txt)"
run_dtrace -w -q -n 'cpout*:::fill {
	this->b = (char *)alloca(2); this->b[0] = 65; this->b[1] = 0;
	copyout(this->b, arg0, 2); }'
expect_grep "no -c/-p: alloca(): why" \
	"copyout( ): its source is a buffer the clause builds or keeps" err.txt
DTRACE_BACKEND=uprobe run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr(strjoin("a", "b"), arg0, 2); }'
expect_eq "uprobe backend: status" 1 "$status"
expect_eq "uprobe backend: why" \
	"dtrace: could not enable tracing: copyout( ) and copyoutstr( ) are written at the hit, or with the thread held there, by the BPF backend only, not the uprobe events one (its hits are read after the fact, and nothing stops the thread at the probe)" \
	"$(cat err.txt)"
expect_eq "uprobe backend: nothing traced" "" "$(cat out.txt)"

finish
