#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-ival.sh: the interval report beside self-> (kplan_exit.c's
# "Intervals"): where the tick-N probes whose clauses printa(), clear(),
# trunc() or exit() have periods that are multiples of the shortest and
# the program keeps a self-> variable, the kernel keys its aggregations
# by the hit's interval
# instead of stopping at a horizon, so self-> stays the kernel's and no
# hit goes to user space for the report; the fold at firing k takes the
# intervals before k, and after a tick's exit() the end leaves the
# intervals from its on.  DTRACE_KAGG_IVAL=0 is the horizon's way (every
# clause user space's, a record a hit), DTRACE_KAGG=0 user space alone;
# all three must print the same.  Covered:
#  - flat out (trprog's spinning thread, ten tick-100ms firings): the
#    database engineer's latency script's shape, self-> set at a hit and
#    read at the next; the intervals and END's add up to the hits, none
#    twice; a printf() every thousandth hit (a record) prints before the
#    interval that counts it and after the one before, so a record and
#    the counts agree on the firing's side of each hit; with intervals,
#    -v says so, and the records read are the printf()s' alone;
#  - the same ended by exit() at a tick of another period (tick-500ms,
#    its firings on the intervals' boundaries): the intervals from the
#    exit's on are not counted, the sums are the hits before it;
#  - three intervals of tick-1s keyed by a self-> value, each batch
#    fired once the previous interval was printed, the run ended by an
#    exit() the kernel decides at tr:::done: byte for byte the expected
#    lines, one record read (the exit's);
#  - globals counted beside self-> (n++, s += self->k), printed and reset
#    at each of three tick-1s firings: their sums keyed by interval,
#    folded into the globals at the firing;
#  - a probe named like the tick (a library's trtk:::tick-10s, dlopen()ed
#    while traced): every hit goes to user space from then on, and the
#    self-> value the kernel kept moves there first: the library's
#    firing of the tick clause folds the three hits counted (c 3), and
#    the 16 pair hits after it, run in user space, each add the self->n
#    the kernel set (p 48; 0 had it not moved); -v says one thread's
#    variables moved.
# On a dtrace without intervals the -v checks fail (every hit a record,
# nothing said).  Needs root, tracefs, a C compiler (but in check-kmod's
# guest, TRACE_PROGS, where the last case is not run) and a dtrace with
# the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace

ivline() {
	grep -c "^dtrace: the kernel's aggregations keyed by their interval" "$1"
}
records() {
	sed -n 's/^dtrace: BPF: .*, \([0-9]*\) records* read$/\1/p' "$1"
}
folds() {
	sed -n "s/^dtrace: the kernel's aggregations folded in at \([0-9]*\) tick firings*\$/\1/p" "$1"
}

# The ways: i (intervals, the default here), h (DTRACE_KAGG_IVAL=0: the
# horizon), u (DTRACE_KAGG=0)
way() {
	case $1 in
	i) wenv="DTRACE_KAGG=1" ;;
	h) wenv="DTRACE_KAGG_IVAL=0" ;;
	u) wenv="DTRACE_KAGG=0" ;;
	esac
}

# three WHAT T D CMD [ARGS...]: dtrace -v -q -o outTW.txt ARGS -s D on
# ./trprog CMD (its OUT: the way's output file) the three ways W at
# once, each on its own process, its stderr in errTW.txt and trprog's
# lines in progTW.txt; then each way's status 0, its output there
three() {
	th_what=$1 th_t=$2 th_d=$3 th_cmd=$4
	shift 4
	for w in i h u; do
		way $w
		rm -f out$th_t$w.txt # -o appends
		th_kcmd=$(printf '%s\n' "$th_cmd" | sed "s/OUT/out$th_t$w.txt/g")
		env $wenv timeout -s KILL 120 "$DTRACE" -v -q \
			-o out$th_t$w.txt "$@" -s "$th_d" -c "./trprog $th_kcmd" \
			>prog$th_t$w.txt 2>err$th_t$w.txt &
		eval "th_pid$w=\$!"
	done
	for w in i h u; do
		eval "wait \"\$th_pid$w\""
		expect_eq "$th_what ($w): status" 0 "$?"
		[ -f out$th_t$w.txt ] || : >out$th_t$w.txt
		sed '/^$/d' out$th_t$w.txt >out$th_t$w.cut
	done
}

# lead_cut T W LINE: outTW.cut without the LINEs it starts with (the
# intervals that ended before the command's first hit), how many into
# outTW.lead
lead_cut() {
	awk -v e="$3" 'n || $0 != e { n = 1; print; next } { c++ }
		END { print c + 0 > "/dev/stderr" }' out$1$2.cut \
		>out$1$2.tmp 2>out$1$2.lead && mv out$1$2.tmp out$1$2.cut
}

# Flat out: self->i set at each hit and read by the next clause; every
# thousandth hit prints p I; each interval prints n (its count) and m
# (its largest I); END prints the last.  Checked by order: a p I before
# an interval has I <= its m, and after the interval before it.
cat >f.d <<'EOF'
tr$target:::tick { self->i = arg2 + 1; }
tr$target:::tick /self->i && self->i % 1000 == 0/ { printf("p %d\n", self->i - 1); }
tr$target:::tick /self->i/ { @n = count(); @m = max(self->i - 1); self->i = 0; }
tick-100ms { printa("n %@d\n", @n); printa("m %@d\n", @m); clear(@n); trunc(@m); }
END { printa("n %@d\n", @n); printa("m %@d\n", @m); }
EOF
# flat_checks WHAT T HITS: the three ways' outTW.txt: no aggregation
# drops (the ring's, dtrace starved on a loaded machine: said, not
# checked), the n lines adding up to the hits (HITS spun: trprog's count;
# m: the last m + 1, a run ended by an exit), each p I between the
# interval before its hit and its own, and one p a thousand hits
flat_checks() {
	fc_what=$1 fc_t=$2 fc_h=$3
	for w in i h u; do
		expect_eq "$fc_what ($w): no aggregation drops" "" \
			"$(grep 'aggregation drop' err$fc_t$w.txt)"
		if grep -i drop err$fc_t$w.txt | grep -qv aggregation; then
			echo "$fc_what ($w): drops, not checked:" \
				"$(grep -i drop err$fc_t$w.txt | head -1)" >&2
			continue
		fi
		if [ "$fc_h" = spun ]; then
			fc_hits=$(awk '/^spun / { print $3 }' prog$fc_t$w.txt)
		else
			fc_hits=$(awk '/^m / { m = $2 } END { print m + 1 }' \
				out$fc_t$w.txt)
		fi
		expect_eq "$fc_what ($w): each hit once" "$fc_hits" \
			"$(awk '/^n / { s += $2 } END { print s + 0 }' \
				out$fc_t$w.txt)"
		expect_eq "$fc_what ($w): each printf() in its interval" "" \
			"$(awk -v lm=-1 '
			/^p / { if ($2 <= lm) print "p " $2 " after m " lm;
				p[++np] = $2; next }
			/^m / { for (i = 1; i <= np; i++) if (p[i] > $2)
					print "p " p[i] " before m " $2;
				np = 0; lm = $2 }
			END { if (np) print np " p after the last m" }' \
				out$fc_t$w.txt)"
		expect_eq "$fc_what ($w): the printf()s" \
			"$((${fc_hits:-0} / 1000))" "$(grep -c '^p ' out$fc_t$w.txt)"
	done
}
three "flat out" f f.d "'spin 1' 'sleep 1000' stop" -x bufsize=16m
flat_checks "flat out" f spun
expect_eq "flat out: -v says the intervals" "1 0 0" \
	"$(ivline errfi.txt) $(ivline errfh.txt) $(ivline errfu.txt)"
expect_eq "flat out: the records read with intervals, the printf()s'" \
	"$(grep -c '^p ' outfi.txt)" "$(records errfi.txt)"
expect_eq "flat out: folded at two firings or more" 1 \
	"$(($(folds errfi.txt | grep . || echo 0) >= 2))"
echo "flat out: records read $(records errfi.txt) with intervals," \
	"$(records errfh.txt) with the horizon, for" \
	"$(awk '/^spun / { print $3 }' progfi.txt) hits" >&2

# The same ended by a tick of another period, tick-500ms's second firing
# (its firings on tick-100ms's boundaries): the kernel's intervals from
# the exit's on are not the run's, as user space leaves the records
# stamped after it (kplan_exit.c's "Intervals").  The intervals and
# END's add up to the hits before the exit (the last m + 1), and no
# printf() printed is past it.
cat >fx.d <<'EOF'
tr$target:::tick { self->i = arg2 + 1; }
tr$target:::tick /self->i && self->i % 1000 == 0/ { printf("p %d\n", self->i - 1); }
tr$target:::tick /self->i/ { @n = count(); @m = max(self->i - 1); self->i = 0; }
tick-100ms { printa("n %@d\n", @n); printa("m %@d\n", @m); clear(@n); trunc(@m); }
tick-500ms /++k == 2/ { exit(0); }
END { printa("n %@d\n", @n); printa("m %@d\n", @m); }
EOF
three "flat out, exit() at a tick" x fx.d "'spin 1' 'sleep 1500' stop" \
	-x bufsize=16m
flat_checks "flat out, exit() at a tick" x m
expect_eq "flat out, exit() at a tick: -v says the intervals" 1 \
	"$(ivline errxi.txt)"
# (the records read: the printf()s' and those read after the exit ran,
# before the kernel was told; a read after it may also hold printf()s
# stamped before it, which run, so this is a bound: the horizon's way
# reads a record a hit)
fx_p=$(grep -c '^p ' outxi.txt)
fx_x=$(sed -n 's/^dtrace: BPF: \([0-9]*\) records* read after exit().*/\1/p' \
	errxi.txt)
expect_eq "flat out, exit() at a tick: the records read, the printf()s' and those after the exit at most" \
	1 "$(($(records errxi.txt | grep . || echo 0) <= fx_p + ${fx_x:-0}))"

# Three intervals of tick-1s keyed by a self-> value (keys 0 1 2; 0 1 2 3
# 0 1; 0 1), each batch fired once the previous interval's lines are
# out; tr:::done's exit() ends the run, decided in the kernel.
cat >k.d <<'EOF'
tr$target:::tick { self->k = arg0 % 4 + 1; }
tr$target:::tick /self->k/ { @[self->k - 1] = count(); self->k = 0; }
tick-1s { printa("%d %@d\n", @); clear(@); printf("--\n"); }
tr$target:::done { exit(0); }
EOF
cat >expected.txt <<'EOF'
0 1
1 1
2 1
--
2 1
3 1
0 2
1 2
--
2 0
3 0
0 1
1 1
--
EOF
three "tick-1s keyed by self->" k k.d "'wait tick' 'tick 3' 'lines OUT 4' \
'tick 6' 'lines OUT 9' 'tick 2' 'lines OUT 14' done 'sleep 3000'"
for w in i h u; do
	# (outkW.cut: the blank line dtrace ends its output with left out;
	# and the intervals that ended before the first hit, which a start
	# slower than the period gives: the timer counts from BEGIN, before
	# the command is let go; check-kmod's guest once)
	lead_cut k $w --
	expect_file_eq "tick-1s keyed by self-> ($w)" expected.txt outk$w.cut
	expect_eq "tick-1s keyed by self-> ($w): the target" "" \
		"$(grep timeout progk$w.txt)"
done
expect_eq "tick-1s keyed by self->: -v says the intervals" "1 0" \
	"$(ivline errki.txt) $(ivline errkh.txt)"
expect_eq "tick-1s keyed by self->: one record read, the exit's" 1 \
	"$(records errki.txt)"
expect_eq "tick-1s keyed by self->: folds" $((3 + $(cat outki.lead))) \
	"$(folds errki.txt)"

# Globals counted beside self-> (kplan_gcnt.c): n++ and s += self->k at
# the probe, each a sum() keyed by interval, folded into the global at
# each tick-1s firing before the clause that prints and resets them:
# batches of 3, 6 and 2 hits (keys 1..3, 1..6, 1..2).  The printing
# clause's /n/ leaves out the intervals without hits: an interval that
# ended before the first batch (a start slower than the period, as k.d's)
# would print a line that trprog's "lines" counts, and the next batch go
# before the first was printed (check-kmod's guest once: 9 27, 2 3).
cat >g.d <<'EOF'
tr$target:::tick { self->k = arg0 + 1; n++; }
tr$target:::tick /self->k/ { s += self->k; self->k = 0; }
tick-1s /n/ { printf("%d %d\n", n, s); n = 0; s = 0; }
tr$target:::done { exit(0); }
EOF
printf '3 6\n6 21\n2 3\n' >expected.txt
three "globals counted beside self->" g g.d "'wait tick' 'tick 3' \
'lines OUT 1' 'tick 6' 'lines OUT 2' 'tick 2' 'lines OUT 3' done 'sleep 3000'"
for w in i h u; do
	expect_file_eq "globals counted beside self-> ($w)" expected.txt \
		outg$w.cut
done
expect_eq "globals counted beside self->: -v says the intervals" 1 \
	"$(ivline errgi.txt)"
expect_grep "globals counted beside self->: -v names them" \
	'^dtrace: 2 globals counted in the kernel: n, s$' errgi.txt
expect_eq "globals counted beside self->: one record read, the exit's" 1 \
	"$(records errgi.txt)"

# A probe named like the tick: trtk.so's trp_hello() fires
# trtk:::tick-10s, which the bare tick-10s matches (no timer fires in
# the run's few seconds).  Its site comes with the dlopen(), after three
# hits set self->n to 3 and counted in the kernel; from then on every
# hit goes to user space (the horizon 0 for good) and the kernel's
# self-> values move there first, read by the pair hits' sum().
cat >trtk.d <<'EOF'
provider trtk {
	probe tick__10s(int);
};
EOF
cat >trtk.c <<'EOF'
#include "trtk.h"
int trp_hello(int n)
{
	TRTK_TICK_10S(n);
	return n;
}
EOF
if [ -n "${TRACE_PROGS:-}" ]; then
	# (check-kmod's guest, which has no compiler)
	echo "a probe named like the tick: not run, trtk.so not built" \
		"(TRACE_PROGS: no compiler)" >&2
	finish
fi
if ! { "$DTRACE" -h -s trtk.d -o trtk.h &&
	$CC -O2 -fPIC -I. -c trtk.c -o trtk.o &&
	"$DTRACE" -G -s trtk.d trtk.o -o trtk-probes.o &&
	$CC -shared -o trtk.so trtk.o trtk-probes.o; }; then
	fail "cannot build trtk.so"
	finish
fi
cat >s.d <<'EOF'
tr$target:::tick { self->n = arg0 + 1; @c = count(); }
tr$target:::pair { @p = sum(self->n); }
tick-10s { printa("c %@d\n", @c); clear(@c); }
END { printa("p %@d\n", @p); }
EOF
printf 'c 3\np 48\n' >expected.txt
three "a probe named like the tick" s s.d "'wait tick' 'tick 3' \
'open ./trtk.so' 'plug 1' 'lines OUT 1' pair"
for w in i h u; do
	expect_file_eq "a probe named like the tick ($w)" expected.txt \
		outs$w.cut
	expect_eq "a probe named like the tick ($w): the target" "" \
		"$(grep -e timeout -e error progs$w.txt)"
done
expect_eq "a probe named like the tick: -v says the intervals" 1 \
	"$(ivline errsi.txt)"
expect_grep "a probe named like the tick: self-> moved" \
	'^dtrace: self-> variables of 1 thread kept in user space moved from the kernel: 1 entry$' \
	errsi.txt

finish
