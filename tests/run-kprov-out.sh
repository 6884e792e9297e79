#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kprov-out.sh: plain printf() and trace() clauses at the kernel
# providers' probes (syscall, profile-N, proc), whose values the
# generated programs compute at the probe into the record's out area
# (kplan_out.c's kp_out_ok() at kp_sout_where()'s probes, cgen.c,
# kprov.c's kprov_hit()), as at uprobe sites.  Each script runs with
# the generated programs (DTRACE_CGEN=1), aggregating in user space
# (DTRACE_KAGG=0) and with the generic programs (DTRACE_CGEN=0); where
# those read the same memory the three outputs must be byte for byte
# the same, and -v of the first says the clauses print values computed
# in the kernel.  Covered, on tests/data/kprov/kpprog.c:
#  - syscall on a call's own tracepoint and on the raw ones
#    (DTRACE_SYSCALL_RAW=1): integers, copyinstr(arg1), execname and
#    trace() at openat's entry;
#  - profile-997: a sample in the target's text, execname;
#  - a self-> string kept in the kernel (str_var()): stored at entry,
#    compared, printed, measured and a key at the return;
#  - proc: exec-success and exit of the -c command's child;
#  - a read at the probe: copyinstr() at openat's return of the path
#    kept at its entry, a buffer kpprog rewrites right after the call
#    returns: every line the bytes the process had at the probe;
#  - opensnoop's idiom, the clear after the copy in the same clause
#    (late2; idiom, on a command that exits at once): read at the
#    probe too, a fault of the copy ending the clause there (snoop:
#    the statement before the copy ran, the clear after it did not,
#    three ways alike, faults too);
#  - -v's reason for a clause that reads late (tick-N, setopt());
#  - a fault at the probe: openat of a path in a page the process has
#    not touched (kpprog untouched): "invalid address" at the hit, as
#    DTrace says it, where a read after the fact finds the page;
#  - the probe's names printed, cut by strsize 8, and compared with
#    literals and each other, folded in each probe's plan (prb), at a
#    pid probe and at system calls on the raw tracepoints, where the
#    fold splits programs otherwise shared.  On main at 100e28a the
#    clauses ran in user space: prb's -v checks fail (no "5 clauses
#    printing" line, no kernel aggregation).
# On main at 15d2812 these clauses ran from the records: every "-v out"
# check fails (no "printing values computed in the kernel" line), and
# so do late2's to late4's (-v said nothing of the late read), svar's
# kernel aggregation (its string was user space's, and so its
# clauses), proc's instruction counts (no plan for its clauses), the
# read at the probe (late.g holds the rewritten paths or none) and the
# fault (lines "-100 []", no error); the three-way comparisons passed
# there too.
# About 6 s on a 2-CPU machine at load 4.
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

kpprog_build

# run NAME M CMD DTRACE-ARGS...: lib.sh's kpprog_run()
run() {
	kpprog_run "$@"
}

# three NAME N CMD DTRACE-ARGS...: run's three ways, the same output,
# not empty, no error said, and -v of the first says N clauses print
# values computed in the kernel, its programs more instructions than
# DTRACE_KAGG=0's record-only ones
three() {
	tn=$1 tk=$2 tc=$3
	shift 3
	for m in g u 0; do
		run "$tn" $m "$tc" "$@"
	done
	three_same "$tn"
	out "$tn" "$tk"
}

# out NAME N: -v of NAME.g said N clauses print values computed in the
# kernel
out() {
	ws=s
	[ "$2" -ne 1 ] || ws=
	expect_grep "$1: -v out" \
		"^dtrace: $2 clause$ws printing values computed in the kernel\$" \
		"$1.g.err"
}

# ---------------------------------------------------------------------
# syscall, on the call's own tracepoint and on the raw ones: integers,
# a string, execname, trace()

# (clause 3: copyinstr(arg1, N), N the hit's, whole and in toupper(),
# before an aggregation: a kernel probe's argument has no copy ahead
# (R2), so the counted OSTR with its jump; 5 and -100, strsize - 1;
# the tree before kept the clause in user space)
cat >sys.d <<'EOF'
syscall::openat:entry /pid == $target/ { printf("%d %s %x %s|", (int)arg0, copyinstr(arg1), arg2, execname); trace(arg2 + 1); trace(execname); }
syscall::openat:entry /pid == $target/ { printf("\n"); }
syscall::openat:entry /pid == $target/ { printf("%s|%s\n", copyinstr(arg1, arg2 + 5), toupper(copyinstr(arg1, (int)arg0))); @n = count(); }
EOF
three sys 3 "opens 3" -s sys.d
expect_eq "sys: the lines" 3 "$(grep -c '^-100 /dev/null 0 kpprog|' sys.g)"
expect_eq "sys: the counted copies" 3 "$(grep -c '^/dev/|/DEV/NULL$' sys.g)"

DTRACE_SYSCALL_RAW=1 three sysraw 3 "opens 3" -s sys.d
expect_file_eq "sysraw: the lines" sys.g sysraw.g

# ---------------------------------------------------------------------
# profile-997: the first sample in kpprog's text (non-PIE: readelf's
# addresses), then exit()

set -- $(readelf -lW kpprog | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
[ "$#" -eq 2 ] || fail "readelf: no executable LOAD segment in kpprog"
lo=$(printf '%d' "${1:-0}")
hi=$((lo + $(printf '%d' "${2:-0}")))
cat >prof.d <<EOF
profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ { printf("%s %d\n", execname, arg1 >= $lo && arg1 < $hi); }
profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ { exit(0); }
EOF
three prof 1 "spin 300000000" -s prof.d
printf 'kpprog 1\n\n' >prof.exp
expect_file_eq "prof: the sample's line" prof.exp prof.g

# ---------------------------------------------------------------------
# proc: a child's exec-success and exit, by its name (a predicate the
# kernel computes)

cp kpprog kpoutchild
cat >proc.d <<'EOF'
proc:::exec-success /execname == "kpoutchild"/ { printf("exec %d %s\n", pid != $target, execname); }
proc:::exit /execname == "kpoutchild"/ { printf("exit %d\n", arg0); }
EOF
three proc 2 "forkexec ./kpoutchild" -s proc.d
printf 'exec 1 kpoutchild\nexit 1\n\n' >proc.exp
expect_file_eq "proc: the child's lines" proc.exp proc.g

# ---------------------------------------------------------------------
# A self-> string the kernel keeps (kplan_svar.c's str_var()), copied at
# openat's entry: compared with a literal, printed, measured, an
# aggregation's key and cleared at the return, all in the kernel

cat >svar.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->s = copyinstr(arg1); }
syscall::openat:return /self->s == "/nonexistent/rw-1"/ { printf("one %d %s\n", (int)arg0, self->s); }
syscall::openat:return /self->s != ""/ { @[self->s] = count(); printf("%d %s %d\n", (int)arg0, self->s, strlen(self->s)); self->s = 0; }
EOF
three svar 2 "rewrites 3" -s svar.d
expect_eq "svar: the lines" "-2 /nonexistent/rw-0 17|one -2 /nonexistent/rw-1|-2 /nonexistent/rw-1 17|-2 /nonexistent/rw-2 17" \
	"$(grep -e '^-2 ' -e '^one ' svar.g | paste -sd'|' -)"
expect_grep "svar: -v kernel aggregation" \
	'^dtrace: 1 clause aggregated in the kernel$' svar.g.err

# ---------------------------------------------------------------------
# The read at the probe: the path kept at openat's entry (a kernel
# clause's self->p), read at its return, before kpprog rewrites the
# buffer; the user space path (DTRACE_CGEN=0) reads it when dtrace runs
# the record: other bytes, or a fault once the process is gone

cat >late.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->p = arg1; }
syscall::openat:return /self->p/ { printf("%d %s\n", (int)arg0, copyinstr(self->p)); }
syscall::openat:return /self->p/ { self->p = 0; }
EOF
: >late.exp
for i in 0 1 2 3 4 5 6 7 8 9; do
	echo "-2 /nonexistent/rw-$i" >>late.exp
done
echo >>late.exp
run late g "rewrites 10" -s late.d
run late 0 "rewrites 10" -s late.d
expect_file_eq "late: every hit read at the probe" late.exp late.g
out late 1
n=$(grep -cxFf late.exp late.0)
expect_eq "late: some hits not read at the probe (DTRACE_CGEN=0)" 1 \
	"$((n < 10))"

# ... and opensnoop's idiom, the clear after the copy in the same
# clause: a fault of the copy ends the clause at the probe (OSTR's jump
# past the store), so the clause and self->p are the kernel's too,
# every hit read at the probe, and -v says no read is late
cat >late2.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->p = arg1; }
syscall::openat:return /self->p/ { printf("%d %s\n", (int)arg0, copyinstr(self->p)); self->p = 0; }
EOF
run late2 g "rewrites 10" -s late2.d
expect_file_eq "late2: every hit read at the probe" late.exp late2.g
out late2 1
expect_eq "late2: -v says no read is late" 0 \
	"$(grep -c 'not at the probe: ' late2.g.err)"

# ... where the copy faults (address 16, no page: the same three ways):
# the statement before it ran (self->n), the clear after it did not
# (clause 3 sees self->p), the fault reported in the copy's action;
# and clause 4's copyinstr(self->q, 8n - 1), a count the hit computes,
# the same way: its jump ends the clause at the fault, so self->m
# counts the copies that did not fault (the tree before kept the
# clause in user space)
cat >snoop.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->p = arg1; self->q = arg1; }
syscall::openat:return /self->p/ { self->n = self->n + 1; printf("%d %d %s\n", self->n, (int)arg0, copyinstr(self->p)); self->p = 0; }
syscall::openat:return /self->p/ { printf("kept %x %d\n", self->p, self->n); self->p = 0; }
syscall::openat:return /self->q/ { printf("q %d [%s]\n", self->m, copyinstr(self->q, self->n * 8 - 1)); self->m = self->m + 1; self->q = 0; }
EOF
for m in g u 0; do
	run snoop $m "badopens 2" -s snoop.d
	grep 'invalid address' "snoop.$m.err" >"snoop.$m.flt"
done
printf '1 -2 /nonexistent/ok-0\nq 0 [/nonexi]\nkept 10 2\n3 -2 /nonexistent/ok-1\nq 1 [/nonexistent/ok-1]\nkept 10 4\n\n' \
	>snoop.exp
expect_file_eq "snoop: the lines" snoop.exp snoop.g
expect_file_eq "snoop: DTRACE_KAGG=0's output" snoop.g snoop.u
expect_file_eq "snoop: DTRACE_CGEN=0's output" snoop.g snoop.0
expect_eq "snoop: invalid address at the probe, in action #4" 2 \
	"$(grep -c '^dtrace: error on enabled probe ID 2 (ID [0-9]*: syscall:vmlinux:openat:return): invalid address (0x10) in action #4$' snoop.g.flt)"
expect_eq "snoop: the counted copy's invalid address at the probe" 2 \
	"$(grep -c '^dtrace: error on enabled probe ID 4 (ID [0-9]*: syscall:vmlinux:openat:return): invalid address (0x10) in action #2$' snoop.g.flt)"
expect_file_eq "snoop: DTRACE_KAGG=0's faults" snoop.g.flt snoop.u.flt
expect_file_eq "snoop: DTRACE_CGEN=0's faults" snoop.g.flt snoop.0.flt
out snoop 3

# ... and the idiom as a user types it, on a command that exits at once
# (read when dtrace ran the record, every path was an invalid address)
"$DTRACE" -q -o idiom.out -n 'syscall::openat:entry /pid == $target/ { self->p = arg1; } syscall::openat:return /self->p/ { printf("%s\n", copyinstr(self->p)); self->p = 0; }' \
	-c 'cat /etc/hostname' >/dev/null 2>idiom.err
expect_eq "idiom: status" 0 "$?"
expect_eq "idiom: /etc/hostname read at the probe" 1 \
	"$(grep -cx /etc/hostname idiom.out)"
expect_eq "idiom: no invalid address" 0 \
	"$(grep -c 'invalid address' idiom.err)"

# ... and a clause that may fire at tick-N too (in dtrace, no program),
# or with a strsize that may change (setopt()): the same, each its why
cat >late3.d <<'EOF'
syscall::openat:entry /pid == $target/ { self->p = arg1; }
tick-1ms,syscall::openat:return /self->p/ { printf("%d %s\n", (int)arg0, copyinstr(self->p)); }
EOF
run late3 g "rewrites 2" -s late3.d
expect_grep "late3: -v says why the read is late (tick-N)" \
	"^dtrace: clause 2 reads the process's memory when dtrace runs the record, not at the probe: it may fire where no generated program runs (tick-N" \
	late3.g.err
cat >late4.d <<'EOF'
BEGIN { setopt("strsize", "64"); }
syscall::openat:entry /pid == $target/ { self->p = arg1; }
syscall::openat:return /self->p/ { printf("%d %s\n", (int)arg0, copyinstr(self->p)); }
EOF
run late4 g "rewrites 2" -s late4.d
expect_grep "late4: -v says why the read is late (setopt())" \
	"^dtrace: clause 3 reads the process's memory when dtrace runs the record, not at the probe: strsize may change" \
	late4.g.err

# ---------------------------------------------------------------------
# A fault at the probe: the path in a page kpprog has not touched, not
# in memory at openat's entry (the call faults it in): DTrace's
# "invalid address" in the argument's action, the clause abandoned;
# read after the fact (DTRACE_CGEN=0: the record's copy failed, dtrace
# reads the page again while kpprog lingers) it is "" instead

cat >flt.d <<'EOF'
syscall::openat:entry /pid == $target/ { printf("%d [%s]\n", (int)arg0, copyinstr(arg1)); }
EOF
run flt g "untouched 3" -s flt.d
run flt 0 "untouched 3" -s flt.d
printf '\n' >flt.exp
expect_file_eq "flt: no line printed at the probe" flt.exp flt.g
expect_eq "flt: invalid address at the probe, in action #2" 3 \
	"$(grep -c '^dtrace: error on enabled probe ID 1 (ID [0-9]*: syscall:vmlinux:openat:entry): invalid address (0x[0-9a-f]*) in action #2$' flt.g.err)"
out flt 1
expect_eq "flt: read after the fact (DTRACE_CGEN=0)" 3 \
	"$(grep -c '^-100 \[\]$' flt.0)"

# ---------------------------------------------------------------------
# The probe's names as values (kplan_out.c's kp_out_here(): no byte of
# the out area, dtrace takes them from the record's probe as run.c
# does, cut by strsize: exit_group) and compared with literals and
# each other (kplan_str.c's kp_ident_cmp(): folded into each probe's
# plan), at a pid probe and at system calls on the raw tracepoints,
# where openat's and close's entries differ only by the folded
# constant (one program each: close prints no "open")

cat >prb.d <<'EOF'
pid$target::main:entry { printf("%s %s %s|", probemod, probefunc, probename); trace(probename); printf("\n"); }
syscall::openat:entry,syscall::close:entry /pid == $target/ { printf("%s:%s:%s ", probeprov, probefunc, probename); trace(probefunc); printf("\n"); }
syscall::openat:entry,syscall::close:entry /pid == $target && probefunc == "openat"/ { printf("open %s %d\n", probename, probename < "f"); }
syscall::openat:return,syscall::close:return /pid == $target/ { if ("close" != probefunc && probename >= probefunc) { printf("ret %s\n", probefunc); } }
syscall::exit_group:entry /pid == $target/ { printf("%s\n", probefunc); }
syscall::openat:entry,syscall::close:entry /pid == $target/ { @[probefunc == "close"] = count(); }
EOF
DTRACE_SYSCALL_RAW=1 three prb 5 "opens 2" -x strsize=8 -s prb.d
printf '%s\n' 'kpprog main entry|entry' >prb.exp
for i in 1 2; do
	printf '%s\n' 'syscall:close:entry close' \
		'syscall:openat:entry openat' 'open entry 1' 'ret openat' \
		'syscall:close:entry close' >>prb.exp
done
printf 'exit_gr\n\n        0                2\n        1                4\n' >>prb.exp
expect_file_eq "prb: the lines" prb.exp prb.g
expect_grep "prb: -v kernel aggregation" \
	'^dtrace: 1 clause aggregated in the kernel$' prb.g.err

# Two literals compared (kp_ident_cmp(): a constant, as run.c's
# binop() has it, both whole): in a predicate, printed, keyed; the
# tree before left all three clauses to user space ("a string
# comparison the kernel does not make")
cat >lit.d <<'EOF'
syscall::openat:entry,syscall::close:entry /pid == $target && "b" > "a"/ { printf("%s %d %d %d %d\n", probefunc, "abc" == "abc", "" < "a", "x" != "x", "ab" >= "abc"); }
syscall::close:entry /pid == $target && "a" == "b"/ { printf("never\n"); }
syscall::openat:entry /pid == $target/ { @["a" <= "a", "b" < "a"] = count(); }
EOF
three lit 2 "opens 2" -s lit.d
: >lit.exp
for i in 1 2; do
	printf '%s\n' 'close 1 1 0 0' 'openat 1 1 0 0' 'close 1 1 0 0' \
		>>lit.exp
done
printf '\n        1        0                2\n' >>lit.exp
expect_file_eq "lit: the lines" lit.exp lit.g
expect_grep "lit: -v kernel aggregation" \
	'^dtrace: 1 clause aggregated in the kernel$' lit.g.err
expect_eq "lit: no clause in user space" 0 \
	"$(grep -c 'runs in user space' lit.g.err)"

finish
