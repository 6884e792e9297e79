#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-sitelink.sh: the sites of a -c command or -p process that
# only its own pinned descriptions name are armed by one uprobe_multi
# link each for the process, no tracefs uprobe event
# (dtrace-G/consumer/bpf_attach.c, site links), and every count stays
# exact around what a link does not follow by itself.
# tests/data/sitelink/sl.c fires sl:::hit N times (arg0: the mode) then:
#  - forks a child that fires N (sl$target counts the parent's 2N only,
#    the child's hits being no probe of the target's; sl* counts each
#    process exactly, on uprobe events: a glob keeps the old path);
#  - the leader execs an image that fires N (2N: the link, which would
#    arm the new image too, is closed at the exec stop and the image
#    armed anew there, by links again);
#  - another thread execs it (2N), and one that fires at once (2N: the
#    new image is armed at the exec stop, before it runs);
#  - the leader exits first and a thread fires N (2N: its sites armed
#    as uprobe events again once the leader is gone, as the link's
#    filter then matches no process).
# Under -p: an exec chain of four images (4N, every image on links);
# another thread's exec that fires at once (2N); the leader exiting
# first, then a thread's exec (2N: the new image keeps the uprobe
# events the old one's sites went over to, whose filter still takes the
# thread after its exec; a link as well counted its hits twice).
# Each with -v saying how many site links were made, and again with
# DTRACE_SITE_LINKS=0 (none, the same counts).  Then, without links and
# on both backends, a thread created after arming whose leader exits
# first: 400 ms before its hits, three times (lexit, its threads on one
# CPU, lost the thread's hits in about one run in three before the fork
# tracker kept the kernel from swapping the threads' perf contexts:
# uprobe.c, "No swap"), and while it fires (lrace: 2N, none lost, none
# counted twice).  Needs root, BPF and Linux 6.12 or later for the links
# and the tracker's flag (before, only the counts, and no lexit/lrace).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup usdt

data=$top_srcdir/tests/data/sitelink
"$DTRACE" -h -s "$data/sl.d" -o sl.h &&
	$CC -O2 -I. -c "$data/sl.c" -o sl.o &&
	"$DTRACE" -G -s "$data/sl.d" sl.o -o sl-probes.o &&
	$CC -o sl sl.o sl-probes.o -lpthread || {
	fail "building sl"
	finish
}

# links: the kernel's uprobe_multi pid filter is the thread group's
# from 6.12 (dlhold.c's multi_wanted())
links=0
set -- $(uname -r | tr '.-' '  ')
if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 12 ]; }; then
	links=1
fi
# and the fork tracker's inherited PERF_SAMPLE_READ, which keeps a
# thread's inherited events with it (uprobe.c, "No swap"), from 6.12
noswap=$links

# the probe's -G sites, one link each: its stapsdt notes but the
# header stub's (how many the compiler made depends on its inlining:
# gcc 1, clang 7)
stub=$(nm sl | awk '$3 == "__dtrace_sl___hit" { print $1 }')
nsites=$(readelf -n sl | awk '/^ *Name: hit$/ { getline; sub(",", "", $2); print $2 }' |
	while read -r a; do printf '%x\n' "$a"; done |
	grep -c -v -x "$(printf '%x' "0x${stub:-0}")")
[ "$nsites" -ge 1 ] || fail "sl: no -G site of sl:::hit in its notes"

N=500
# run WHAT LINKS SCRIPT MODE IMAGES: out.txt sorted, -v in err.txt; a
# run with links makes nsites of them for each image armed
run() {
	what=$1 k=$2 script=$3 mode=$4 nl=$(($5 * nsites))
	rm -f out.raw
	DTRACE_SITE_LINKS=$k timeout -s KILL 60 "$DTRACE" -v -q -o out.raw \
		-n "$script" -c "./sl $mode $N" >/dev/null 2>err.txt
	expect_eq "$what (DTRACE_SITE_LINKS=$k): status" 0 "$?"
	awk 'NF' out.raw 2>/dev/null | sort >out.txt
	[ "$k" = 1 ] && [ "$links" = 1 ] || nl=0
	case $nl in
	0) want="" ;;
	1) want="dtrace: BPF: 1 site link, no uprobe event" ;;
	*) want="dtrace: BPF: $nl site links, no uprobe event" ;;
	esac
	expect_eq "$what (DTRACE_SITE_LINKS=$k): site links" "$want" \
		"$(grep 'site link' err.txt)"
	expect_eq "$what (DTRACE_SITE_LINKS=$k): no drops" "" \
		"$(grep -i drop err.txt)"
}

# runp WHAT LINKS MODE ARG IMAGES: as run, for -p of ./sl MODE N ARG
runp() {
	what=$1 k=$2
	rm -f out.raw
	./sl "$3" "$N" $4 &
	sp=$!
	# the shell's fork has exec'd sl, or sl$target is no probe
	wait_until 100 grep -q '/sl$' "/proc/$sp/maps"
	DTRACE_SITE_LINKS=$k timeout -s KILL 60 "$DTRACE" -v -q -o out.raw \
		-n "$T" -p "$sp" >/dev/null 2>err.raw
	expect_eq "$what (DTRACE_SITE_LINKS=$k): status" 0 "$?"
	wait "$sp"
	expect_eq "$what (DTRACE_SITE_LINKS=$k): sl's status" 0 "$?"
	awk 'NF' out.raw 2>/dev/null | sort >out.txt
	nl=$(($5 * nsites))
	[ "$k" = 1 ] && [ "$links" = 1 ] || nl=0
	case $nl in
	0) want="" ;;
	1) want="dtrace: BPF: 1 site link, no uprobe event" ;;
	*) want="dtrace: BPF: $nl site links, no uprobe event" ;;
	esac
	expect_eq "$what (DTRACE_SITE_LINKS=$k): site links" "$want" \
		"$(grep 'site link' err.raw)"
	expect_eq "$what (DTRACE_SITE_LINKS=$k): nothing said but -v's" "" \
		"$(grep -v 'BPF: \|clause.* in the kernel\|traced thread' err.raw)"
}

# the target's own hits, by mode and whether the target fired them
T='sl$target:::hit { @[pid == $target, arg0] = count(); }'
for k in 1 0; do
	run "fork, sl\$target" $k "$T" fork 1
	expect_eq "fork, sl\$target ($k): the parent's 2N" \
		"1 1 $((2 * N))" "$(awk '{print $1, $2, $3}' out.txt)"

	# a glob: every process, each exactly, on uprobe events
	run "fork, sl*" $k 'sl*:::hit { @[pid == $target] = count(); }' \
		fork 0
	expect_eq "fork, sl* ($k): parent 2N, child N" \
		"0 $N|1 $((2 * N))" "$(awk '{print $1, $2}' out.txt |
			paste -sd'|')"

	run "leader exec" $k "$T" exec 2
	expect_eq "leader exec ($k): N before, N after" \
		"1 0 $N|1 2 $N" "$(awk '{print $1, $2, $3}' out.txt |
			paste -sd'|')"

	run "thread exec" $k "$T" texec 2
	expect_eq "thread exec ($k): N before, N after" \
		"1 0 $N|1 3 $N" "$(awk '{print $1, $2, $3}' out.txt |
			paste -sd'|')"

	run "thread exec, at once" $k "$T" tnow 2
	expect_eq "thread exec, at once ($k): N before, N after" \
		"1 0 $N|1 9 $N" "$(awk '{print $1, $2, $3}' out.txt |
			paste -sd'|')"

	# -p: the process waits until its first image is armed
	runp "-p, exec chain" $k chain 3 4
	expect_eq "-p, exec chain ($k): N in each of 4 images" \
		"1 6 $((4 * N))" "$(awk '{print $1, $2, $3}' out.txt)"

	runp "-p, thread exec, at once" $k tnow "" 2
	expect_eq "-p, thread exec, at once ($k): N before, N after" \
		"1 0 $N|1 9 $N" "$(awk '{print $1, $2, $3}' out.txt |
			paste -sd'|')"

	# its first image's links: the second is on uprobe events
	runp "-p, leader exits, then a thread's exec" $k lexec "" 1
	expect_eq "-p, leader exits, then a thread's exec ($k): N, N" \
		"1 0 $N|1 7 $N" "$(awk '{print $1, $2, $3}' out.txt |
			paste -sd'|')"

	run "leader exits first" $k "$T" lexit 1
	if [ "$noswap" = 1 ]; then
		expect_eq "leader exits first ($k): 2N" "1 4 $((2 * N))" \
			"$(awk '{print $1, $2, $3}' out.txt)"
	fi
done

# a thread created after arming, its leader gone first, on uprobe
# events, on both backends (not exact before 6.12: dtrace.1)
for be in bpf uprobe; do
	[ "$noswap" = 1 ] || break
	DTRACE_BACKEND=$be
	for r in 1 2 3; do
		run "leader exits first, $be, round $r" 0 "$T" lexit 1
		expect_eq "leader exits first ($be, round $r): 2N" \
			"1 4 $((2 * N))" "$(awk '{print $1, $2, $3}' out.txt)"
	done
	run "leader exits while a thread fires, $be" 0 "$T" lrace 1
	expect_eq "leader exits while a thread fires ($be): 2N" \
		"1 5 $((2 * N))" "$(awk '{print $1, $2, $3}' out.txt)"
done

finish
