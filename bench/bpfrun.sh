#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/bpfrun.sh - the BPF program's own time per hit, ours against
# bpftrace's, on the same probe of bench/loop.c: each tool runs the
# loop (N hits) under bench/bpfstats (BPF_ENABLE_STATS), and while it
# runs `bpfstats --list` is polled for the program's run_time_ns and
# run_cnt (the last poll is kept; a poll adds no hits).  A figure, not
# a test: it includes the statistics' own clock reads (~55 ns here).
#
#	DTRACE=... DTRACE_DRTI=... top_srcdir=... sh bench/bpfrun.sh \
#		[ACTION...]	(count sum quantize predicate cmp and; default
#				all; cmp: /arg0 > N/, and: /a > N && b % 4 != 0/)
#	OURS2=path/to/another/dtrace	(also that one, e.g. an older build)
#
# Prints, per action and round (3), each tool's ns per run.  Needs root
# and bpftrace.
set -u
: "${DTRACE:?}" "${top_srcdir:?}" "${CC:=cc}"
here=$top_srcdir/bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpfrun.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$DTRACE" -h -s "$here/bprov.d" -o bprov.h &&
	$CC -O2 -I. -DSTYLE_OURS -c "$here/loop.c" -o ours.o &&
	"$DTRACE" -G -s "$here/bprov.d" -o ours-p.o ours.o &&
	$CC ours.o ours-p.o -o ours &&
	$CC -O2 "$here/bpfstats.c" -o bpfstats || exit 1
N=2000000

# one TOOL ACTION DTRACE: ns per run of TOOL's program (name $prog)
one() {
	case $2 in
	count) da='{ @ = count(); }' ba=$da ;;
	sum) da='{ @ = sum(arg0); }' ba=$da ;;
	quantize) da='{ @ = quantize(arg0); }' ba='{ @ = hist(arg0); }' ;;
	predicate) da='/arg0 % 2 == 0/ { @ = count(); }' ba=$da ;;
	cmp) da='/arg0 > 1000000/ { @ = count(); }' ba=$da ;;
	and) da='/arg0 > 1000 && arg0 % 4 != 0/ { @ = sum(arg0); }' ba=$da ;;
	esac
	case $1 in
	bpftrace) prog=hit ;;
	*) prog=usdt_hit,dtrace_cg ;; # the generic program, or cgen.c's
	esac
	: >stats
	(
		while :; do
			./bpfstats --list | awk -v names="$prog" '
				BEGIN { n = split(names, v, ","); for (i = 1; i <= n; i++) want[v[i]] = 1 }
				($2 in want) && $5 > 0 { print $1, $5, $6 }' >stats.n &&
				[ -s stats.n ] && mv stats.n stats
			sleep 0.1
		done
	) &
	poll=$!
	if [ "$1" = bpftrace ]; then
		./bpfstats bpftrace -q -o out -e "usdt:./ours:bprov:hit $ba" \
			-c "./ours $N" >/dev/null 2>&1
	else
		DTRACE_BACKEND=bpf ./bpfstats "$3" -q -o out \
			-n "bprov\$target:::hit $da" -c "./ours $N" >/dev/null 2>&1
	fi
	kill "$poll"
	wait "$poll" 2>/dev/null
	# the program with the most runs is this run's (other tools' may be
	# loaded on the machine too)
	sort -k2,2n stats | tail -n 1 |
		awk '{ if ($2) printf "%.1f", $3 / $2; else printf "-" }'
}

printf '%-10s %5s %10s %10s %10s\n' action round bpftrace dtrace "${OURS2:+other}"
for act in ${*:-count sum quantize predicate cmp and}; do
	for r in 1 2 3; do
		b=$(one bpftrace "$act")
		o=$(one ours "$act" "$DTRACE")
		x=
		[ -n "${OURS2:-}" ] && x=$(one ours "$act" "$OURS2")
		printf '%-10s %5s %10s %10s %10s\n' "$act" "$r" "$b" "$o" "$x"
	done
done
