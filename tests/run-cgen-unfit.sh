#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-unfit.sh: a uprobe event whose clauses keeping self-> in the
# kernel do not fit its plan (bpf_agg_cgen.c's "Unfit events").  kplan.c
# decides once, before any site is known, which clauses the kernel runs
# and which self-> variables it keeps; at tr:::pair below, 24 clauses
# keeping them pass a plan's 256 instructions, and none of them can be
# user space's there alone (self-> has one copy for a thread).  Until
# 2026-12-06 the event was refused ("cannot trace uprobe event ...: the
# clauses ... do not fit one plan"): the run with it where it came with
# the command, its hits lost where it came later; now the processes
# that fire the event keep self-> in user space, every clause of theirs
# that touches it run from records:
#  - start.d: the event is made with the other sites of a -c command,
#    before its first enable: the process is kept in user space from
#    the first (-v says so), its tr:::tick hits records too, and its
#    write(2) hits' syscall clause reads user space's self->t;
#  - mid.d: the unfit event comes with trplug.so, dlopen()ed after the
#    process was armed with the kernel keeping its self->t: its copy
#    moves to user space under a barrier (-v: "1 moved", "1 entry"),
#    the tr:::tick hits after it read the moved value.
#  - kern.d: the same crowd at syscall::write:entry, a kernel probe,
#    whose plan runs for every process: the run takes the generic
#    program (-v says why).  Before, where some of the clauses fit, the
#    others ran in user space on a self->t it never had (wrong sums).
# Each script three ways (the generated programs, DTRACE_KAGG=0,
# DTRACE_CGEN=0), byte for byte the same output, and once with
# DTRACE_UNFIT_USER=0, which refuses the event as before (start.d's
# run fails, status 1; mid.d's plug-in hits are lost), so each case
# fails on the tree before.  About 6 s idle.
# Needs root, BPF and uprobes (the bpf backend's requirements).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"
trace_progs_build plugin

# clauses N PROBE [ARG]: N clauses at PROBE, each keeping a self->
# variable of its own beside self->t, the kernel's (too many for one
# plan), from argument ARG (1 unless given) and keyed by it
clauses() {
	cl_i=0 cl_a=arg${3:-1}
	while [ "$cl_i" -lt "$1" ]; do
		echo "$2 { self->b$cl_i = self->t * 10 + $cl_a * $((cl_i + 1)); @s$cl_i[$cl_a] = sum(self->b$cl_i); }"
		cl_i=$((cl_i + 1))
	done
}

# unfit_run NAME M CMD...: dtrace -v -q -s NAME.d on ./trprog CMD..., M
# g (DTRACE_CGEN=1), u (DTRACE_KAGG=0), 0 (DTRACE_CGEN=0) or r
# (DTRACE_UNFIT_USER=0); output NAME.M, messages NAME.M.err, status
# NAME.M.rc
unfit_run() {
	ur_n=$1 ur_m=$2
	shift 2
	case $ur_m in
	g) ur_e="DTRACE_CGEN=1" ;;
	u) ur_e="DTRACE_KAGG=0" ;;
	0) ur_e="DTRACE_CGEN=0" ;;
	r) ur_e="DTRACE_UNFIT_USER=0" ;;
	esac
	rm -f "$ur_n.$ur_m"
	ur_c=./trprog
	for ur_a in "$@"; do
		ur_c="$ur_c \"$ur_a\""
	done
	env $ur_e timeout -s KILL 120 "$DTRACE" -v -q -Z -o "$ur_n.$ur_m" \
		-s "$ur_n.d" -c "$ur_c" >/dev/null 2>"$ur_n.$ur_m.err"
	echo "$?" >"$ur_n.$ur_m.rc"
	[ -f "$ur_n.$ur_m" ] || : >"$ur_n.$ur_m"
}

# ways NAME MODES CMD...: unfit_run in each of MODES; g, u and 0 end
# with status 0 and print the same
ways() {
	wy_n=$1 wy_ms=$2
	shift 2
	for m in $wy_ms; do
		unfit_run "$wy_n" "$m" "$@"
	done
	for m in g u 0; do
		expect_eq "$wy_n ($m): status" 0 "$(cat "$wy_n.$m.rc")"
	done
	expect_file_eq "$wy_n: DTRACE_KAGG=0's output" "$wy_n.u" "$wy_n.g"
	expect_file_eq "$wy_n: DTRACE_CGEN=0's output" "$wy_n.0" "$wy_n.g"
}

# crowd PROBE: tr:::tick keeping self->t, a write(2) clause reading it,
# and the crowd at PROBE
crowd() {
	echo 'tr$target:::tick { self->t += arg0 + 1; @t["tick"] = sum(self->t); }'
	echo 'syscall::write:entry /pid == $target/ { @w["write"] = sum(self->t); }'
	clauses 32 "$1"
}

crowd 'tr$target:::pair' >start.d
ways start "g u 0 r" "tick 3" pair "tick 2" pair
# (tick 3 then 2: self->t 1, 3, 6, 7, 9; each pair's sums from them)
expect_grep "start: the ticks' self->t" '^  tick  *26$' start.g
expect_grep "start: -v, the event" \
	'^dtrace: BPF: the clauses of uprobe event [a-z]*[0-9]* that keep variables in the kernel do not fit one plan: .*; the processes that fire uprobe event [a-z]*[0-9]* keep their self-> variables in user space, each hit of theirs a record$' \
	start.g.err
expect_grep "start: -v, the process kept from its first enable" \
	'^dtrace: [12] uprobe events* whose clauses keeping self-> did not fit: 1 process firing [a-z]* kept self-> in user space from its first enable, 0 moved there later$' \
	start.g.err
expect_eq "start: nothing said but -v" "" \
	"$(grep -e '^dtrace: cannot' -e 'not exact' -e 'hits* ran in user space' start.g.err)"
expect_eq "start (DTRACE_UNFIT_USER=0): refused, as before" 1 \
	"$(cat start.r.rc)"
expect_grep "start (DTRACE_UNFIT_USER=0): the reason" \
	'^dtrace: cannot trace uprobe event .*do not fit one plan' start.r.err

# the plug-in's event comes after the process was armed, self->t the
# kernel's: moved
crowd 'trplug$target:::hello' >mid.d
ways mid "g u 0 r" "tick 3" "open ./trplug.so" "plug 4" "tick 3" "plug 2"
# (self->t 1, 3, 6 in the kernel, then 7, 9, 12 from the moved 6)
expect_grep "mid: the ticks' self->t" '^  tick  *38$' mid.g
expect_grep "mid: -v, the process moved" \
	'^dtrace: 1 uprobe event whose clauses keeping self-> did not fit: 0 processes firing it kept self-> in user space from their first enable, 1 moved there later$' \
	mid.g.err
expect_grep "mid: -v, its entry moved" \
	'^dtrace: self-> variables of 1 thread kept in user space moved from the kernel: 1 entry$' \
	mid.g.err
expect_eq "mid: nothing said but -v" "" \
	"$(grep -e '^dtrace: cannot' -e 'not exact' -e 'hits* ran in user space' mid.g.err)"
# (before, the plug-in's event was refused, said, and its hits lost)
expect_grep "mid (DTRACE_UNFIT_USER=0): the event refused, as before" \
	'^dtrace: cannot trace uprobe event .*do not fit one plan' mid.r.err
expect_eq "mid (DTRACE_UNFIT_USER=0): its hits lost, as before" 0 \
	"$(grep -c '^  *[0-9]*  *[0-9]*$' mid.r)"
expect_eq "mid: every hit of the plug-in's (32 sums, 4 keys)" 128 \
	"$(grep -c '^  *[0-9]*  *[0-9]*$' mid.g)"

# a kernel probe's plan that does not fit: the generic program
{
	echo 'tr$target:::tick { self->t += arg0 + 1; }'
	clauses 32 'syscall::write:entry /pid == $target/' 2
} >kern.d
ways kern "g u 0" "tick 3" "tick 2"
expect_grep "kern: -v, the generic program" \
	'^dtrace: BPF: the clauses of syscall:vmlinux:write:entry that keep variables in the kernel do not fit one plan: .*; the generic program instead$' \
	kern.g.err

finish
