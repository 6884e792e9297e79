#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/startup.sh - what a run costs before and after it traces: start
# to exit of our dtrace against bpftrace's equivalent, measured in the
# same run, and the BPF verifier's work per program.  Run by
# bench/run.sh (`make bench`, or BENCH_ONLY=startup); alone:
#
#	DTRACE=dtrace-G/dtrace DTRACE_DRTI=drti/drti.o top_srcdir=. \
#		sh bench/startup.sh
#
# Rows, each the mean of $ROUNDS runs taken in turns over the tools
# (wall time, and CPU time: user + system, from /usr/bin/time):
#  - nothing traced: dtrace -q -n 'BEGIN { exit(0); }' against
#    bpftrace -e 'BEGIN { exit(); }';
#  - a one-clause count under -c: bprov$target:::hit { @ = count(); }
#    on bench/loop.c firing 1,000 hits, against bpftrace's usdt probe
#    of the same binary; ours with the generated program (the default)
#    and with the generic one (DTRACE_CGEN=0), both against bpftrace;
#  - the verifier's instructions (verified_insns) summed over the
#    programs each tool loads for that count, and how many programs:
#    read with bench/bpfstats --list while a long run (1e9 hits, killed
#    once read) has them loaded.
# Needs root and bpftrace; nothing passes or fails on speed.  With
# STARTUP_MD set, the table is written there as a markdown section.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${STARTUP_MD:=}"
: "${ROUNDS:=10}"
export LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-startbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") STARTUP_MD=$(abs "$STARTUP_MD")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
here=$top_srcdir/bench
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1 ||
	[ ! -x /usr/bin/time ]; then
	echo "(start-up: needs root, bpftrace and /usr/bin/time; skipped)"
	exit 0
fi
cd "$tmp" || exit 1
"$DTRACE" -h -s "$here/bprov.d" -o bprov.h &&
	$CC -O2 -I. -DSTYLE_OURS -c "$here/loop.c" -o ours.o &&
	"$DTRACE" -G -s "$here/bprov.d" -o ours-p.o ours.o &&
	$CC ours.o ours-p.o -o ours &&
	$CC -O2 "$here/bpfstats.c" -o bpfstats || exit 1
DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

# timed NAME CMD...: one run's wall and CPU seconds appended to NAME.t
timed() {
	n=$1
	shift
	/usr/bin/time -f '%e %U %S' -o t.one "$@" >/dev/null 2>&1 </dev/null
	tail -n 1 t.one >>"$n.t"
}

# mean NAME: "wall-ms cpu-ms" over NAME.t
mean() {
	awk '{ w += $1; c += $2 + $3; n++ }
	     END { if (n) printf "%.1f %.1f\n", 1000 * w / n, 1000 * c / n;
		   else print "n/a n/a" }' "$1.t"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "n/a") print "-";
		else printf "%.2f\n", a / b }'
}

rows=$tmp/rows.md
: >"$rows"
row() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$2" "$3")" >>"$rows"
	printf '%-52s %12s %12s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"
}

dcount='bprov$target:::hit { @ = count(); }'
bcount='usdt:./ours:bprov:hit { @ = count(); }'
rm -f ./*.t
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	timed d_begin "$DTRACE" -q -n 'BEGIN { exit(0); }'
	timed b_begin bpftrace -e 'BEGIN { exit(); }'
	DTRACE_BACKEND=bpf timed d_count "$DTRACE" -q -n "$dcount" \
		-c "./ours 1000"
	DTRACE_BACKEND=bpf DTRACE_CGEN=0 timed d_count0 "$DTRACE" -q \
		-n "$dcount" -c "./ours 1000"
	timed b_count bpftrace -q -e "$bcount" -c "./ours 1000"
	r=$((r + 1))
done
printf '%-52s %12s %12s %8s\n' "figure (start to exit, mean of $ROUNDS)" \
	"dtrace" "bpftrace" "ratio"
for f in begin count count0; do
	set -- $(mean "d_$f")
	dw=$1 dc=$2
	case $f in
	count0) set -- $(mean b_count) ;;
	*) set -- $(mean "b_$f") ;;
	esac
	bw=$1 bc=$2
	case $f in
	begin) what="BEGIN { exit } (nothing traced)" ;;
	count) what="-c one-clause count(), 1,000 hits" ;;
	count0) what="-c one-clause count(), DTRACE_CGEN=0" ;;
	esac
	row "$what: wall ms" "$dw" "$bw"
	row "$what: CPU ms" "$dc" "$bc"
done

# verified NAME CMD...: "instructions programs" of the programs CMD
# loads (ids above those loaded before), read while it runs
verified() {
	before=$(./bpfstats --list | awk '{ if ($1 > m) m = $1 } END { print m + 0 }')
	"$@" >/dev/null 2>&1 </dev/null &
	pid=$!
	got=
	i=0
	while [ $i -lt 100 ]; do
		sleep 0.1
		got=$(./bpfstats --list | awk -v b="$before" \
			'$1 > b && $2 != "-" { v += $3; n++ }
			 END { if (n) print v, n }')
		[ -n "$got" ] && sleep 0.5 && got=$(./bpfstats --list |
			awk -v b="$before" '$1 > b { v += $3; n++ }
			 END { if (n) print v, n }') && break
		i=$((i + 1))
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "${got:-n/a n/a}"
}
set -- $(DTRACE_BACKEND=bpf verified d "$DTRACE" -q -n "$dcount" \
	-c "./ours 1000000000")
dv=$1 dn=$2
set -- $(DTRACE_BACKEND=bpf DTRACE_CGEN=0 verified d0 "$DTRACE" -q \
	-n "$dcount" -c "./ours 1000000000")
d0v=$1 d0n=$2
set -- $(verified b bpftrace -q -e "$bcount" -c "./ours 1000000000")
bv=$1 bn=$2
row "count(): instructions verified ($dn / $bn programs)" "$dv" "$bv"
row "count(), DTRACE_CGEN=0 ($d0n / $bn programs)" "$d0v" "$bv"

if [ -n "$STARTUP_MD" ]; then
	{
		echo "## Start-up (bench/startup.sh)"
		echo
		echo "Start to exit, mean of $ROUNDS runs taken in turns; CPU is"
		echo "user + system time; instructions are the verifier's"
		echo "(verified_insns) summed over the programs each tool loads."
		echo
		echo "| figure | dtrace | bpftrace | ratio |"
		echo "|---|---|---|---|"
		cat "$rows"
	} >"$STARTUP_MD"
fi
