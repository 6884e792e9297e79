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
# (wall time of a bare run, and CPU time of another: user + system of
# the tool and its children, perf stat's task-clock, or /usr/bin/time's
# 10 ms ticks without perf):
#  - nothing traced: dtrace -q -n 'BEGIN { exit(0); }' against
#    bpftrace -e 'BEGIN { exit(); }';
#  - a one-clause count under -c: bprov$target:::hit { @ = count(); }
#    on bench/loop.c firing 1,000 hits, against bpftrace's usdt probe
#    of the same binary; ours with the generated program (the default)
#    and with the generic one (DTRACE_CGEN=0), both against bpftrace,
#    and with the generated program but dlhold.c's uprobe on ld.so as
#    per-thread perf events (DTRACE_UPROBE_MULTI=0, as on kernels
#    without the uprobe_multi link, so the site too takes the uprobe
#    event below) instead of one uprobe_multi link,
#    and with the site on a tracefs uprobe event and per-thread perf
#    events instead of its own uprobe_multi link for the process
#    (DTRACE_SITE_LINKS=0, bpf_attach.c);
#  - a stack as a key under -c: bprov$target:::hit { @[ustack(1)] =
#    count(); } on the same 1,000 hits against bpftrace's @[ustack(1)]
#    (ours verifies the in-kernel unwinder on a thread of its own as
#    the run goes on, ustack_walk.c; and with DTRACE_USTACK_WALK=start
#    before the command goes, as before 2026-12-07);
#  - thread churn: the same count under -c on bench/threads.c, 60
#    threads created and joined one after another, 10 hits each (600),
#    ours (the uprobe_multi link holding it at dlopen()) and with
#    DTRACE_UPROBE_MULTI=0 (a perf event per thread), against bpftrace;
#    $CHURN_ROUNDS runs each (default 3: the per-thread events cost
#    seconds a run);
#  - fork churn: self-> timing between hits, bprov*:::hit /self->t/ {
#    @ = quantize(timestamp - self->t); } bprov*:::hit { self->t =
#    timestamp; }, under -c on bench/forks.c, 16 children forked one
#    after another, 20,000 hits each from their first moment (320,000):
#    ours (the kernel arms each child at its fork: bpf_agg_cgen.c's
#    "Forks") and with DTRACE_FORK_ARM=0 (each child's hits records
#    until dtrace arms it, its self-> then user space's for good),
#    against bpftrace's @t[tid] on the binary's probe; $CHURN_ROUNDS
#    runs each;
#  - the verifier's instructions (verified_insns) summed over the
#    programs each tool loads for that count, and how many programs:
#    read with bench/bpfstats --list while a long run (1e9 hits, killed
#    once read) has them loaded: ours by name (dtrace_cg, generated;
#    usdt_hit, the generic program: the first loaded after the run
#    started, as other runs on the machine may load theirs), bpftrace's
#    named after the probe (hit).
# OURS2=path/to/another/dtrace adds its start to exit for both runs
# and for the DTRACE_CGEN=0 count (e.g. a build from before a change),
# in the same rounds, and its generic program's verified count.
# Needs root and bpftrace; nothing passes or fails on speed.  With
# STARTUP_MD set, the table is written there as a markdown section.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${STARTUP_MD:=}"
: "${ROUNDS:=10}"
: "${OURS2:=}"
: "${CHURN_ROUNDS:=3}"
export LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-startbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") STARTUP_MD=$(abs "$STARTUP_MD")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
case $OURS2 in */*) OURS2=$(abs "$OURS2") ;; esac
# dtrace -G below runs in $tmp: a relative drti.o must still be found
[ -n "${DTRACE_DRTI:-}" ] && DTRACE_DRTI=$(abs "$DTRACE_DRTI") &&
	export DTRACE_DRTI
here=$top_srcdir/bench
if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "(start-up: needs root and bpftrace; skipped)"
	exit 0
fi
perf=
perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1 && perf=yes
[ -n "$perf" ] || [ -x /usr/bin/time ] || {
	echo "(start-up: needs perf or /usr/bin/time; skipped)"
	exit 0
}
cd "$tmp" || exit 1
"$DTRACE" -h -s "$here/bprov.d" -o bprov.h &&
	$CC -O2 -I. -DSTYLE_OURS -c "$here/loop.c" -o ours.o &&
	"$DTRACE" -G -s "$here/bprov.d" -o ours-p.o ours.o &&
	$CC ours.o ours-p.o -o ours &&
	$CC -O2 -I. -c "$here/threads.c" -o threads.o &&
	"$DTRACE" -G -s "$here/bprov.d" -o threads-p.o threads.o &&
	$CC threads.o threads-p.o -o threads -lpthread &&
	$CC -O2 -I. -c "$here/forks.c" -o forks.o &&
	"$DTRACE" -G -s "$here/bprov.d" -o forks-p.o forks.o &&
	$CC forks.o forks-p.o -o forks &&
	$CC -O2 "$here/bpfstats.c" -o bpfstats || exit 1
DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

# timed NAME CMD...: wall ms of one bare run and CPU ms of another
# (under perf stat or /usr/bin/time, which would add to the wall time),
# appended to NAME.t
timed() {
	n=$1
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 </dev/null
	t1=$(date +%s%N)
	if [ -n "$perf" ]; then
		perf stat -x, -e task-clock -o t.one -- "$@" >/dev/null 2>&1 \
			</dev/null
		cpu=$(awk -F, '$3 ~ /task-clock/ { print $1 }' t.one)
	else
		/usr/bin/time -f '%U %S' -o t.one "$@" >/dev/null 2>&1 \
			</dev/null
		cpu=$(tail -n 1 t.one | awk '{ print 1000 * ($1 + $2) }')
	fi
	echo "$(((t1 - t0) / 1000)) ${cpu:-0}" >>"$n.t"
}

# mean NAME: "wall-ms cpu-ms" over NAME.t
mean() {
	awk '{ w += $1; c += $2; n++ }
	     END { if (n) printf "%.1f %.1f\n", w / n / 1000, c / n;
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
dustk='bprov$target:::hit { @[ustack(1)] = count(); }'
bustk='usdt:./ours:bprov:hit { @[ustack(1)] = count(); }'
rm -f ./*.t
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	timed d_begin "$DTRACE" -q -n 'BEGIN { exit(0); }'
	timed b_begin bpftrace -e 'BEGIN { exit(); }'
	DTRACE_BACKEND=bpf timed d_count "$DTRACE" -q -n "$dcount" \
		-c "./ours 1000"
	DTRACE_BACKEND=bpf DTRACE_CGEN=0 timed d_count0 "$DTRACE" -q \
		-n "$dcount" -c "./ours 1000"
	DTRACE_BACKEND=bpf DTRACE_UPROBE_MULTI=0 timed d_countpe "$DTRACE" \
		-q -n "$dcount" -c "./ours 1000"
	DTRACE_BACKEND=bpf DTRACE_SITE_LINKS=0 timed d_countsl "$DTRACE" \
		-q -n "$dcount" -c "./ours 1000"
	timed b_count bpftrace -q -e "$bcount" -c "./ours 1000"
	DTRACE_BACKEND=bpf timed d_ustk "$DTRACE" -q -n "$dustk" \
		-c "./ours 1000"
	DTRACE_BACKEND=bpf DTRACE_USTACK_WALK=start timed d_ustks "$DTRACE" \
		-q -n "$dustk" -c "./ours 1000"
	timed b_ustk bpftrace -q -e "$bustk" -c "./ours 1000"
	if [ -n "$OURS2" ]; then
		timed d_begin2 "$OURS2" -q -n 'BEGIN { exit(0); }'
		DTRACE_BACKEND=bpf timed d_count2 "$OURS2" -q -n "$dcount" \
			-c "./ours 1000"
		DTRACE_BACKEND=bpf DTRACE_CGEN=0 timed d_count02 "$OURS2" \
			-q -n "$dcount" -c "./ours 1000"
	fi
	r=$((r + 1))
done
printf '%-52s %12s %12s %8s\n' "figure (start to exit, mean of $ROUNDS)" \
	"dtrace" "bpftrace" "ratio"
for f in begin count count0 countpe countsl ustk ustks ${OURS2:+begin2 count2 count02}; do
	set -- $(mean "d_$f")
	dw=$1 dc=$2
	case $f in
	count*) set -- $(mean b_count) ;;
	ustk*) set -- $(mean b_ustk) ;;
	*) set -- $(mean b_begin) ;;
	esac
	bw=$1 bc=$2
	case $f in
	begin) what="BEGIN { exit } (nothing traced)" ;;
	count) what="-c one-clause count(), 1,000 hits" ;;
	count0) what="-c one-clause count(), DTRACE_CGEN=0" ;;
	countpe) what="-c one-clause count(), DTRACE_UPROBE_MULTI=0" ;;
	countsl) what="-c one-clause count(), DTRACE_SITE_LINKS=0" ;;
	ustk) what="-c @[ustack(1)] = count(), 1,000 hits" ;;
	ustks) what="-c @[ustack(1)], DTRACE_USTACK_WALK=start" ;;
	begin2) what="BEGIN { exit }, OURS2" ;;
	count2) what="-c one-clause count(), OURS2" ;;
	count02) what="-c one-clause count(), DTRACE_CGEN=0, OURS2" ;;
	esac
	row "$what: wall ms" "$dw" "$bw"
	row "$what: CPU ms" "$dc" "$bc"
done

dchurn='bprov$target:::hit { @ = count(); }'
bchurn='usdt:./threads:bprov:hit { @ = count(); }'
r=0
while [ "$r" -lt "$CHURN_ROUNDS" ]; do
	DTRACE_BACKEND=bpf timed d_churn "$DTRACE" -q -n "$dchurn" \
		-c "./threads 60"
	DTRACE_BACKEND=bpf DTRACE_UPROBE_MULTI=0 timed d_churnpe "$DTRACE" \
		-q -n "$dchurn" -c "./threads 60"
	timed b_churn bpftrace -q -e "$bchurn" -c "./threads 60"
	r=$((r + 1))
done
# churn_rows B F:WHAT...: the wall and CPU rows of each of ours d_F,
# named WHAT, against bpftrace's b_B, means of $CHURN_ROUNDS
churn_rows() {
	cb=$1
	shift
	for fw in "$@"; do
		set -- $(mean "d_${fw%%:*}")
		dw=$1 dc=$2
		set -- $(mean "b_$cb")
		row "${fw#*:}: wall ms (mean of $CHURN_ROUNDS)" "$dw" "$1"
		row "${fw#*:}: CPU ms (mean of $CHURN_ROUNDS)" "$dc" "$2"
	done
}
churn_rows churn "churn:-c 60 threads in turn, 600 hits" \
	"churnpe:-c 60 threads, DTRACE_UPROBE_MULTI=0"

# bpftrace's -c attaches a usdt probe to the command's process alone
# (its children count nothing), so it runs binary-wide (the path, no
# -c): bwide.sh starts it, runs the command once its BEGIN printed,
# then stops it with SIGINT; its start and stop are in its figures
dfork='bprov*:::hit /self->t/ { @ = quantize(timestamp - self->t); }
bprov*:::hit { self->t = timestamp; }'
bfork="usdt:$tmp/forks:bprov:hit /@t[tid]/ { @ = hist(nsecs - @t[tid]); }
usdt:$tmp/forks:bprov:hit { @t[tid] = nsecs; }"
cat >bwide.sh <<'EOF'
rm -f bwide.out
bpftrace -q -e "BEGIN { printf(\"ready\\n\"); } $1" >bwide.out 2>&1 &
bp=$!
shift
i=0
until grep -q '^ready' bwide.out 2>/dev/null || [ $i -gt 3000 ]; do
	sleep 0.01
	i=$((i + 1))
done
"$@"
kill -INT $bp
wait $bp
EOF
r=0
while [ "$r" -lt "$CHURN_ROUNDS" ]; do
	DTRACE_BACKEND=bpf timed d_fork "$DTRACE" -q -n "$dfork" \
		-c "./forks 16 20000"
	DTRACE_BACKEND=bpf DTRACE_FORK_ARM=0 timed d_fork0 "$DTRACE" \
		-q -n "$dfork" -c "./forks 16 20000"
	timed b_fork sh bwide.sh "$bfork" ./forks 16 20000
	r=$((r + 1))
done
churn_rows fork "fork:-c 16 children, 320,000 self-> hits" \
	"fork0:-c 16 children, DTRACE_FORK_ARM=0"

# verified NAMES FIRST CMD...: "instructions programs" of the programs
# named one of NAMES (a|b) that CMD's process holds (its fdinfo's
# prog_id: other runs on the machine load programs of those names too;
# FIRST=1: the first of them only), read while it runs
verified() {
	names=$1 first=$2
	shift 2
	"$@" >/dev/null 2>&1 </dev/null &
	pid=$!
	got=
	i=0
	while [ $i -lt 100 ]; do
		sleep 0.5
		grep -h '^prog_id:' /proc/"$pid"/fdinfo/* 2>/dev/null |
			awk '{ print $2 }' >"$tmp/mine"
		got=$(./bpfstats --list | sort -n | awk -v re="^($names)\$" \
			-v first="$first" \
			'NR == FNR { mine[$1] = 1; next }
			 ($1 in mine) && $2 ~ re && !(first && n) { v += $3; n++ }
			 END { if (n) print v, n }' "$tmp/mine" -)
		[ -n "$got" ] && break
		i=$((i + 1))
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "${got:-n/a n/a}"
}
set -- $(DTRACE_BACKEND=bpf verified dtrace_cg 0 "$DTRACE" -q \
	-n "$dcount" -c "./ours 1000000000")
dv=$1 dn=$2
set -- $(DTRACE_BACKEND=bpf DTRACE_CGEN=0 verified usdt_hit 1 "$DTRACE" \
	-q -n "$dcount" -c "./ours 1000000000")
d0v=$1 d0n=$2
if [ -n "$OURS2" ]; then
	set -- $(DTRACE_BACKEND=bpf DTRACE_CGEN=0 verified usdt_hit 1 \
		"$OURS2" -q -n "$dcount" -c "./ours 1000000000")
	d02v=$1 d02n=$2
fi
set -- $(verified hit 0 bpftrace -q -e "$bcount" -c "./ours 1000000000")
bv=$1 bn=$2
row "count(): instructions verified ($dn / $bn programs)" "$dv" "$bv"
row "count(), DTRACE_CGEN=0 ($d0n / $bn programs)" "$d0v" "$bv"
[ -z "$OURS2" ] ||
	row "count(), DTRACE_CGEN=0, OURS2 ($d02n / $bn programs)" "$d02v" "$bv"

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
