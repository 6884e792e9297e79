#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/pid.sh - what a pid probe costs per hit, next to bpftrace's
# uprobe on the same function of the same binary, measured in the same
# run.  Run by bench/run.sh (`make bench`, or BENCH_ONLY=pid); alone:
#
#	DTRACE=dtrace-G/dtrace top_srcdir=. sh bench/pid.sh
#
# The target is bench/pidloop.c: N calls of bench_fn(), a function with
# no probe.  Traced with
#
#	dtrace -n 'pid$target:a.out:bench_fn:entry { @ = count(); }'
#	bpftrace -e 'uprobe:./pidloop:bench_fn { @ = count(); }'
#
# and the same on the return (pid ...:return against bpftrace's
# uretprobe), our dtrace on each backend it has (bpf: the count runs in
# the BPF program, as bpftrace's does; uprobe: a perf sample per hit,
# counted in user space).  ns per hit = the traced run's ns per call
# minus the untraced one (the loop's own clock), best of five runs of
# $HITS calls taken in turns over the tools, so that a burst of load
# elsewhere does not fall on one tool only; a run whose count is not
# $HITS is not used (a tool with no good run shows n/a).  Then the
# wall time of a run over many sites, per site (see below).  Needs root and
# bpftrace; nothing passes or fails on speed.  With PID_MD set, the
# table is written there as a markdown section.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${PID_MD:=}"
: "${HITS:=200000}"
export LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-pidbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") PID_MD=$(abs "$PID_MD")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac

if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "(pid provider: needs root and bpftrace; skipped)"
	exit 0
fi
cd "$tmp" || exit 1
$CC -O2 -o pidloop "$top_srcdir/bench/pidloop.c" || exit 1

backends=uprobe
DTRACE_BACKEND=bpf "$DTRACE" -q -n 'BEGIN { exit(0); }' >/dev/null 2>&1 &&
	DTRACE_BACKEND=bpf "$DTRACE" -q -n 'pid$target:a.out:bench_fn:entry { exit(0); }' \
		-c "./pidloop 1" >/dev/null 2>&1 && backends="bpf uprobe"

# run TOOL WHERE: one traced run of $HITS calls; prints ns/call, or
# nothing when the count is not $HITS.  WHERE: entry or return.
run() {
	rm -f out
	case $1 in
	bpftrace)
		kind=uprobe
		[ "$2" = return ] && kind=uretprobe
		t=$(timeout 120 bpftrace -q -o out \
			-e "$kind:./pidloop:bench_fn { @c = count(); }" \
			-c "./pidloop $HITS" 2>/dev/null)
		n=$(sed -n 's/^@c: *//p' out)
		;;
	*)
		t=$(DTRACE_BACKEND=$1 timeout 120 "$DTRACE" -q -o out \
			-n "pid\$target:a.out:bench_fn:$2 { @ = count(); }" \
			-c "./pidloop $HITS" 2>/dev/null)
		n=$(awk 'NF { v = $NF } END { print v + 0 }' out)
		;;
	esac
	# the target's line (a tool that writes to stdout is not read)
	t=$(printf '%s\n' "$t" | grep -E '^[0-9]+\.[0-9]+$' | head -n 1)
	[ "$n" = "$HITS" ] && echo "$t"
}

min() { sort -n | head -n 1; }

# untraced, best of five
base=$(for _ in 1 2 3 4 5; do ./pidloop "$HITS"; done | min)

printf '%-52s %12s %12s %8s\n' "figure" "dtrace -n" "bpftrace" "ratio"
rows=
for where in entry return; do
	tools="bpftrace $backends"
	: >all
	for _ in 1 2 3 4 5; do
		for tool in $tools; do
			t=$(run "$tool" "$where")
			[ -n "$t" ] && echo "$tool $t" >>all
		done
	done
	best() { awk -v t="$1" '$1 == t { print $2 }' all | min; }
	hit() {	# TOOL: ns per hit, or n/a
		b=$(best "$1")
		if [ -n "$b" ]; then
			awk -v t="$b" -v u="$base" 'BEGIN { printf "%.0f\n", t - u }'
		else
			echo n/a
		fi
	}
	ref=$(hit bpftrace)
	for be in $backends; do
		ours=$(hit "$be")
		r=$(awk -v a="$ours" -v b="$ref" 'BEGIN {
			if (a == "n/a" || b == "n/a" || b + 0 <= 0) print "-";
			else printf "%.2f\n", a / b }')
		[ "$where" = entry ] && what="pid entry count() ($be): ns/hit" ||
			what="pid return count() ($be): ns/hit"
		printf '%-52s %12s %12s %8s\n' "$what" "$ours" "$ref" "$r"
		rows="$rows| $what | $ours | $ref | $r |
"
	done
done
printf '%-52s %12s\n' "untraced call: ns" "$base"

# Start and stop with many sites: every s* function of libc in a process
# that sleeps, traced for a second; ms per site of the whole run (the
# kernel's removal of each uprobe dominates), ours against bpftrace's
# uprobes on the same glob (whose count of functions differs: both
# counts are printed).  STOP_SITES=0 skips it.
if [ "${STOP_SITES:-1}" != 0 ]; then
	libc=$(ldd ./pidloop | awk '$1 ~ /^libc\.so/ { print $3 }')
	stop_run() { # TOOL: "sites ms" of one run
		sleep 600 &
		sp=$!
		t0=$(date +%s%N)
		if [ "$1" = bpftrace ]; then
			ns=$(timeout 600 bpftrace -e "uprobe:$libc:s* /pid == $sp/ { @[func] = count(); } interval:s:1 { exit(); }" 2>&1 |
				sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p')
		else
			ns=$(DTRACE_BACKEND=$1 timeout 600 "$DTRACE" -n 'pid$target:libc.so.6:s*:entry { @[probefunc] = count(); } tick-1s { exit(0); }' -p "$sp" 2>&1 >/dev/null |
				sed -n 's/.*matched \([0-9]*\) probes.*/\1/p')
		fi
		t1=$(date +%s%N)
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		echo "${ns:-0} $(( (t1 - t0) / 1000000 ))"
	}
	set -- $(stop_run bpftrace)
	ref_n=$1 ref_ms=$2
	for be in $backends; do
		set -- $(DTRACE_BACKEND=$be stop_run "$be")
		r=$(awk -v a="$2" -v an="$1" -v b="$ref_ms" -v bn="$ref_n" 'BEGIN {
			if (an + 0 <= 0 || bn + 0 <= 0) print "-";
			else printf "%.2f\n", (a / an) / (b / bn) }')
		what="run with libc's s* ($be): ms/site (sites)"
		printf '%-52s %12s %12s %8s\n' "$what" \
			"$(awk -v a="$2" -v n="$1" 'BEGIN { if (n > 0) printf "%.0f (%d)", a / n, n; else print "n/a" }')" \
			"$(awk -v a="$ref_ms" -v n="$ref_n" 'BEGIN { if (n > 0) printf "%.0f (%d)", a / n, n; else print "n/a" }')" "$r"
		rows="$rows| $what | $2 ms, $1 sites | $ref_ms ms, $ref_n sites | $r |
"
	done
fi

if [ -n "$PID_MD" ]; then
	{
		echo "## The pid provider: cost per hit against bpftrace's uprobe"
		echo
		echo "bench/pid.sh on $(date -u +%Y-%m-%d): $(uname -r), $(nproc) CPUs."
		echo "\`dtrace -n 'pid\$target:a.out:bench_fn:entry { @ = count(); }'\`"
		echo "(and :return) against \`bpftrace -e 'uprobe:./pidloop:bench_fn"
		echo "{ @ = count(); }'\` (uretprobe), same binary, same run; ns/hit is"
		echo "the target's ns per call traced minus untraced ($base ns), best of"
		echo "five runs of $HITS calls each, every hit counted."
		echo
		echo "| figure | dtrace -n | bpftrace | ratio |"
		echo "|---|---|---|---|"
		printf '%s' "$rows"
	} >"$PID_MD"
fi
