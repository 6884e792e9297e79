#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/ustack.sh - what @[ustack()] = count() costs: our dtrace -n, on
# each backend, against bpftrace's @[ustack] = count(), on the same probe
# of the same binary in the same run, with the ratio.  run.sh calls it
# in its consumer part (root and bpftrace); alone:
#
#	DTRACE=... DTRACE_DRTI=... top_srcdir=... sh bench/ustack.sh
#
# bench/stack.c fires bstack:::ev three calls deep (main -> a -> b -> c),
# built -O2 with frame pointers so that bpftrace's in-kernel walk of them
# finds our frames too (dtrace unwinds with the CFI and needs none).
# Figures, per tool:
#  - ns/hit: what a hit adds to the target (stack.c's own ns per event
#    unpaced, 100,000 events, traced minus untraced, best of three): for
#    dtrace the BPF program or perf sample copying the registers and
#    -x ustacksize (8 KiB) of stack into a record, for bpftrace its
#    frame-pointer walk and stack-map update in the kernel;
#  - of those 100,000, the hits counted and the drops reported: dtrace
#    unwinds each record in user space (libdwfl), far slower than the
#    target fires, so its ring buffer fills and records are dropped;
#  - lossless events/s: stack.c at 1,000 to 512,000 events/s (doubling)
#    for one second, the highest rate with no drop and every event
#    counted: what dtrace's unwinding (or bpftrace's) keeps up with.
# Prints the rows and writes them as a section to $USTACK_MD.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${USTACK_MD:=ustack.md}"
export DTRACE_DRTI LC_ALL=C

here=$top_srcdir/bench
case $USTACK_MD in
/*) ;;
*) USTACK_MD=$PWD/$USTACK_MD ;;
esac
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "(ustack: needs root and bpftrace; skipped)"
	exit 0
fi
tmp=$(mktemp -d /dev/shm/usdt-ustack.XXXXXX 2>/dev/null) ||
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-ustack.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

"$DTRACE" -h -s "$here/stack.d" -o stack.h &&
	$CC -O2 -fno-omit-frame-pointer -I. -c "$here/stack.c" -o stack.o &&
	"$DTRACE" -G -s "$here/stack.d" -o stack-p.o stack.o &&
	$CC stack.o stack-p.o -o stack || exit 1

md=$tmp/rows.md
printf '| figure | dtrace -n | bpftrace | ratio |\n|---|---|---|---|\n' >"$md"
ratio() {
	case "$1$2" in
	*n/a*|*-*|*";"*) echo "-" ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-";
		else printf "%.2f\n", a / b }' ;;
	esac
}
row() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$2" "$3")" >>"$md"
	printf '%-52s %12s %12s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"
}

# run TOOL RATE N: TOOL (bpf, uprobe: our dtrace; bpftrace) aggregating
# ustack per hit of ./stack RATE N; sets ns (per event, the target's
# own), counted, drops
run() {
	rm -f out err rate
	case $1 in
	bpftrace)
		timeout 300 bpftrace -q -o out \
			-e 'usdt:./stack:bstack:ev { @[ustack] = count(); }' \
			-c "./stack $2 $3 rate" >/dev/null 2>err
		counted=$(awk '/^\]: / { s += $2 } END { print s + 0 }' out)
		drops=$(cat out err | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		;;
	*)
		DTRACE_BACKEND=$1 timeout 300 "$DTRACE" -q -o out \
			-n 'bstack$target:::ev { @[ustack()] = count(); }' \
			-c "./stack $2 $3 rate" >/dev/null 2>err
		counted=$(awk '/^ *[0-9]+$/ { s += $1 } END { print s + 0 }' out)
		drops=$(sed -n 's/^dtrace: \([0-9]*\) drops.*/\1/p' err |
			awk '{ s += $1 } END { print s + 0 }')
		;;
	esac
	ns=$(awk '$1 > 0 { printf "%.0f\n", $2 / $1 }' rate 2>/dev/null)
	[ -n "$ns" ] || ns=n/a
}

N=100000
untraced() {
	b=
	for _ in 1 2 3; do
		./stack 0 $N rate && t=$(awk '{ printf "%.0f\n", $2 / $1 }' rate)
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
u=$(untraced)

# hit TOOL: best ns/hit of three unpaced runs; hits counted (worst), drops
hit() {
	best= worst= dmax=0
	for _ in 1 2 3; do
		run "$1" 0 $N
		[ "$ns" = n/a ] && continue
		if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
		if [ -z "$worst" ] || [ "$counted" -lt "$worst" ]; then
			worst=$counted
		fi
		[ "$drops" -gt "$dmax" ] && dmax=$drops
	done
	if [ -n "$best" ]; then
		hit_ns=$((best - u)) hit_counted=$worst hit_drops=$dmax
	else
		hit_ns=n/a hit_counted=n/a hit_drops=n/a
	fi
}

# lossless TOOL: the highest rate passed (source at 95% of it, 0 drops,
# every event counted)
lossless() {
	best=0
	for r in 1000 2000 4000 8000 16000 32000 64000 128000 256000 512000; do
		run "$1" $r $r
		got=$(awk '$2 > 0 { printf "%.0f\n", $1 * 1e9 / $2 }' rate 2>/dev/null)
		[ -n "$got" ] || got=0
		[ "$drops" -eq 0 ] && [ "$counted" -eq $r ] &&
			[ "$got" -ge $((r * 95 / 100)) ] || break
		best=$r
	done
	echo "$best"
}

hit bpftrace
b_ns=$hit_ns b_counted=$hit_counted b_drops=$hit_drops
b_ll=$(lossless bpftrace)
for be in bpf uprobe; do
	hit $be
	row "@[ustack()] = count() ($be): ns/hit added to the target" \
		"$hit_ns" "$b_ns"
	row "  same, counted of $N (worst of 3); drops (most)" \
		"$hit_counted; $hit_drops" "$b_counted; $b_drops"
	row "@[ustack()] = count() ($be), lossless: highest events/s" \
		"$(lossless $be)" "$b_ll"
done
{
	echo "### @[ustack()] = count()"
	echo
	echo "bench/ustack.sh: our \`dtrace -n 'bstack\$target:::ev { @[ustack()]"
	echo "= count(); }'\` on each backend against bpftrace's"
	echo "\`@[ustack] = count()\` on the same probe of bench/stack.c (-O2 with"
	echo "frame pointers, three calls deep), in the same run.  ns/hit: the"
	echo "target's own ns per event, 100,000 events unpaced, traced minus"
	echo "untraced, best of three.  Lossless: stack.c at 1k to 512k events/s"
	echo "(doubling) for a second; the highest rate with no drop and every"
	echo "event counted.  dtrace copies registers and 8 KiB of stack per hit"
	echo "and unwinds in user space with libdwfl (CFI, no frame pointers"
	echo "needed); bpftrace walks frame pointers in the kernel and keeps the"
	echo "counts in a map, so it neither copies nor drops."
	echo
	cat "$md"
} >"$USTACK_MD"
