#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-preempt.sh: a uprobe's BPF program preempted halfway on its
# CPU, and another thread's program run there meanwhile (doc/DESIGN.md
# "Programs that nest on a CPU": a preemptible kernel, preempt=full,
# lazy or RT, runs uprobe programs with migration disabled, not
# preemption).  The second program finds cgbuf's owner word taken
# (cgen.c's own_take(); the generic programs' scratch_take(), and their
# kvm_buf's) and counts a drop, which dtrace reports; it never writes
# over the first one's record.  Which second program: on 6.1 a system
# call's (a tracepoint's), since a uprobe's waits for the first to end
# (uprobe_dispatcher() holds the CPU's uprobe buffer mutex across the
# programs); from 6.10 a uprobe's too.  On real threads
# (tests/data/cgre/preempt.c: PREEMPT_T threads pinned to one CPU,
# PREEMPT_N rounds each of access(), hit() and tally(), a sleep of
# PREEMPT_S us every PREEMPT_B rounds: the woken thread preempts the
# other wherever it is, and its access() comes first):
#  - pid$target::hit:entry printing its thread, its round and its
#    argument's 200-byte string (a record built in cgbuf), and
#    syscall::access:entry printing the same string, the thread's own
#    letters: every line whole and its own thread's, none twice, none
#    lost but those dtrace counted as drops;
#  - all three probes updating @c = count() and @s[1] = sum(2) 16
#    times each, so that an access() run halfway through a preempted
#    tally() or hit() updates the entries that one is updating: @c 16 a
#    run of the clause, @s 32 a run less 2 a said aggregation drop (each
#    update one atomic instruction, cgen_agg.c's kval_update()), the
#    runs, the lines and the drops adding up to the hits (a generated
#    program drops its hit whole, line and counts; a generic one's
#    drop, buf's or kvm_buf's, may cost its hit the line, the counts or
#    both: no more of either missing than drops said).
# The system calls on the raw tracepoints (DTRACE_SYSCALL_RAW=1): a
# classic tracepoint's program (trace_call_bpf()) runs nothing where
# bpf_prog_active is raised on the CPU, which a task preempted inside a
# bpf() map call leaves raised (dtrace's own reads, on the guest's one
# CPU), and 6.1 counts such a hit nowhere: 3 of 6,000 access() lines and
# 1 of 12,000 counts lost so, no drop said, in a run on them.
# DTRACE_CGEN=1 and 0 (PREEMPT_CGEN: which, default both).
# Where the kernel is not preemptible (this project's build host:
# preempt=none) no program nests and the run passes with no drop; the
# check-kmod guest (tests/kmod/steps-bpf.sh) runs it on Debian's 6.1
# switched to preempt=full, with PREEMPT_NEST=1: at least one drop must
# be said there (the ring, -x bufsize, holds every record, so a drop is
# a nested hit), or the run proved nothing.  There, 3,000 rounds of 2
# threads (12,000 printing hits): 22 to 90 drops said a run with
# DTRACE_CGEN=1 and 0, every line whole, the counts exact (14 to 50 s
# of the guest); under preempt=voluntary no drop.  With the owner word
# taken out (cgen_emit() never owning cgbuf, scratch_take() always
# taking): 1 to 9 lines wrong (a system call's line twice: the uprobe's
# program output the nested program's record as its own) and 3 to 49
# lost, no drop said; the generic programs' @c not a multiple of 16 and
# @s with a second key (a nested plan wrote over the preempted one's).
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe

if ! trace_progs_copy preempt; then
	$CC -O2 -o preempt "$top_srcdir/tests/data/cgre/preempt.c" \
		-lpthread || { fail "building preempt"; finish; }
fi

N=${PREEMPT_N:-20000}
T=${PREEMPT_T:-2}
# a sleep of S us after every B rounds (preempt.c); B 0: none
B=${PREEMPT_B:-4}
S=${PREEMPT_S:-100}
# the kernel's preemption model, where debugfs says (PREEMPT_DYNAMIC)
pm=$(cat /sys/kernel/debug/sched/preempt 2>/dev/null)
echo "preemption model: ${pm:-unknown (no /sys/kernel/debug/sched/preempt)}"

# the drops dtrace reported in FILE (its "N drops on CPU c" lines)
drops() {
	awk '/ drops on CPU / { s += $2 } END { print s + 0 }' "$1"
}

body=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	body="$body @c = count(); @s[1] = sum(2);"
done
# the ring holds every record (about 230 bytes each): no drop for a
# full ring, so each drop said is a hit that found the scratch taken
bs=$((2 * T * N * 256 / 1048576 + 2))m

# preempted G WHAT: the threads with DTRACE_CGEN=G
preempted() {
	g=$1 what=$2
	rm -f out.txt
	DTRACE_CGEN=$g DTRACE_SYSCALL_RAW=1 timeout -s KILL 600 "$DTRACE" \
		-x bufsize=$bs -v -q \
		-o out.txt -c "./preempt $N $T $B $S" -n "
pid\$target::hit:entry { printf(\"u %d %d %s\\n\", arg1, arg2,
    copyinstr(arg0)); }
syscall::access:entry /pid == \$target/ { printf(\"s %s\\n\",
    copyinstr(arg0)); }
pid\$target::hit:entry, pid\$target::tally:entry,
syscall::access:entry /pid == \$target/ {$body }
END { printa(\"c %@d\\n\", @c); printa(\"t %d %@d\\n\", @s); }" \
		>prog.txt 2>err.txt
	expect_eq "$what: status" 0 "$?"
	sed "s/^/$what: /" prog.txt
	n=$(grep -c '^dtrace: BPF: [0-9]* generated programs' err.txt)
	expect_eq "$what: generated programs" "$g" "$n"
	[ -f out.txt ] || : >out.txt
	# each hit's line: "u", its thread t, its round i, then thread t's
	# letters 100 times and -t-i; each access()'s: "s" and the string
	awk -v n="$N" -v nt="$T" '
BEGIN { for (t = 0; t < nt; t++) {
		p = substr("abcdefghijklmnopqrstuvwxyz", 2 * t + 1, 2)
		w[t] = ""
		for (k = 0; k < 100; k++)
			w[t] = w[t] p
	} }
/^$/ || /^[ct] / { next }
{
	ok = 0
	if ($1 == "u" && NF == 4 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ &&
	    $2 < nt && $3 < n && $4 == w[$2] "-" $2 "-" $3)
		ok = 1
	else if ($1 == "s" && NF == 2 && split($2, f, "-") == 3 &&
	    f[2] ~ /^[0-9]+$/ && f[3] ~ /^[0-9]+$/ && f[2] < nt &&
	    f[3] < n && f[1] == w[f[2]])
		ok = 1
	if (!ok || seen[$1 " " $NF]++) {
		if (bad++ < 3)
			print "wrong or twice: " substr($0, 1, 60) "... " \
			    substr($0, length($0) - 20) >"/dev/stderr"
	} else
		good++
}
END { print good + 0, bad + 0 }' out.txt >counts.txt
	read -r good bad <counts.txt
	d=$(drops err.txt)
	ad=$(awk '/ aggregation drops on CPU / { s += $2 } END { print s + 0 }' \
		err.txt)
	c=$(awk '$1 == "c" { print $2 }' out.txt)
	s=$(awk '$1 == "t" && $2 == 1 { print $3; exit }' out.txt)
	# ... and no other key (one a nested program wrote over)
	keys=$(awk '$1 == "t" { print $2 }' out.txt | paste -sd' ' -)
	echo "$what: $((2 * T * N)) printing hits, $good lines whole," \
		"$bad wrong, $d drops said (hits that found the scratch" \
		"taken); @c ${c:-?}, @s ${s:-?}, $ad aggregation drops said"
	expect_eq "$what: no line wrong" 0 "$bad"
	expect_eq "$what: @s's keys" 1 "$keys"
	# the counting clause's runs: @c / 16
	runs=$((${c:-0} / 16))
	expect_eq "$what: @c, 16 a run of the counting clause" \
		"$((16 * runs))" "${c:-none}"
	expect_eq "$what: @s, 32 a run, less 2 an aggregation drop" \
		"$((32 * runs))" "$((${s:-0} + 2 * ad))"
	# a generated program's drop is its hit's line and run; a generic
	# program's hit takes buf for the record and kvm_buf for the
	# counts, and a drop may cost it both or one: no more lines or runs
	# missing than drops said there
	if [ "$g" = 1 ]; then
		expect_eq "$what: the lines and the drops are the printing hits" \
			"$((2 * T * N))" "$((good + d))"
		expect_eq "$what: the runs and the drops are the hits" \
			"$((3 * T * N))" "$((runs + d))"
	else
		expect_eq "$what: no line missing but for a drop said" 1 \
			"$([ $((2 * T * N - good)) -le "$d" ] && echo 1)"
		expect_eq "$what: no run missing but for a drop said" 1 \
			"$([ $((3 * T * N - runs)) -le "$d" ] && echo 1)"
	fi
	if [ "${PREEMPT_NEST:-0}" = 1 ]; then
		expect_eq "$what: programs nested (a drop said)" 1 \
			"$([ "$d" -gt 0 ] && echo 1)"
	fi
}

for g in ${PREEMPT_CGEN:-1 0}; do
	case $g in
	1) preempted 1 "$T threads on one CPU" ;;
	*) preempted 0 "$T threads on one CPU, the generic programs" ;;
	esac
done

finish
