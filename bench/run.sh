#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/run.sh - what probes and the tools cost, each figure next to the
# reference measured in the same run (systemtap's <sys/sdt.h> and its
# dtrace wrapper, from Debian's systemtap-sdt-dev; bpftrace) and the
# ratio.  Benchmarks, not tests: nothing here passes or fails on speed.
#
#	make bench			(sets the variables below)
#	DTRACE=... DTRACE_DRTI=... top_srcdir=... sh bench/run.sh
#	BENCH_ONLY=consumer ... sh bench/run.sh	(the consumer figures only)
#	BENCH_BACKENDS=bpf ...			(only those dtrace backends:
#						bpf, uprobe, user for
#						-x activation=user)
#	BENCH_ONLY=pid ... sh bench/run.sh	(the pid provider's only)
#	BENCH_ONLY=kprov ... sh bench/run.sh	(the kernel providers only)
#	BENCH_ONLY=startup ... sh bench/run.sh	(start to exit: startup.sh)
#	BENCH_ONLY=perhit ... sh bench/run.sh	(per hit, in BPF: perhit.sh)
#	BENCH_ONLY=ustack ... sh bench/run.sh	(ustack()'s only: ustack.sh)
#	BENCH_ONLY=sysexit ... sh bench/run.sh	(syscall start to exit)
#	BENCH_ONLY=registration ...		(dtrace-helperd's only)
#
# Prints a table and writes it, with the machine, kernel and date, to
# $RESULTS (default bench/RESULTS.md in the current directory).
#
# Method:
#  - disabled probes: instructions per loop iteration counted with
#    valgrind's callgrind, which is exact (this machine has no hardware
#    counters): (Ir at N iterations - Ir at 0) / N; and ns per iteration
#    from the loop's own clock, the best of five runs;
#  - enabled probes (root and bpftrace): ns per hit = traced minus
#    untraced ns per iteration, bpftrace counting every hit, best of three;
#  - probe forms (bench/forms.sh, which see): the same two figures for
#    each form a probe takes in a binary (rewritten site, stub site,
#    inline site, systemtap's, none), with bpftrace's and our dtrace
#    -n's count(), ratios to systemtap's; written as their own section;
#  - consumer (root and bpftrace): our dtrace -n (each backend, and in
#    the process: -x activation=user) against bpftrace on the
#    same probe of the same binary: ns per hit added by count(),
#    sum(), quantize(), a predicate's count() and a printf() of two
#    integers (as above; every hit must be there, drops as each tool
#    reports them), and the events per second each delivers without
#    loss, for the same actions, from bench/pace.c firing at 50k to 1.6M
#    events/s for a second (the highest rate reached with 0 drops and
#    every event delivered) and unpaced (the rate reached, the drops);
#  - pid provider (bench/pid.sh, which see; root and bpftrace): ns per
#    hit of dtrace -n's pid entry and return probes with count(), on
#    each backend, against bpftrace's uprobe and uretprobe on the same
#    function of the same binary; written as its own section;
#  - kernel providers (root and bpftrace; bench/kprov.sh, which see): the
#    syscall provider's ns per call added against bpftrace's per-syscall
#    tracepoint, and profile-997's BPF time per sample against
#    bpftrace's profile:hz:997; their own section;
#  - the syscall and proc providers' start to exit (bench/sysexit.sh,
#    which see; root and bpftrace): -c true runs of 1-16 calls' entry
#    and return, each way dtrace can attach them, and of the proc
#    probes, against bpftrace's tracepoints; its own section;
#  - start-up (bench/startup.sh, which see; root and bpftrace): start to
#    exit of dtrace -n 'BEGIN { exit(0); }' and of a one-clause -c
#    count(), wall and CPU, against bpftrace's, and the verifier's
#    instructions per program; their own section;
#  - per hit, in the BPF program (bench/perhit.sh, which see; root and
#    bpftrace): count(), a string predicate, printf() of a string,
#    self-> timing of an entry/return pair and ustack() as a key, ours
#    against bpftrace's, and the verifier's instructions per program;
#    its own section;
#  - tools: wall time of dtrace -h on a 200-probe provider, and of
#    dtrace -G over 10 to 2,000 objects of 25 sites each (copies of one
#    object, restored before each run), best of three;
#  - registration (root, dtrace-helperd): mean time of a dlopen+dlclose
#    cycle of a plugin with probes (drti's ADDDOF and REMOVE) with the
#    helper up, with no helper and with registration disabled, best of
#    three 2,000-cycle runs, and with the helper up and SYNC between
#    dlopen and dlclose (each registration checked and recorded, as when
#    a consumer lists it); fork+exit+wait with a probed library
#    loaded and posix_spawn+wait of a probed program, helper up vs no
#    helper (best of three 300-cycle runs); registrations per second from four
#    processes at once; the daemon's RSS growth for 2,000 probes.  The
#    registry is on tmpfs, as /run is on a normal system.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${RESULTS:=bench/RESULTS.md}"
export DTRACE_DRTI LC_ALL=C

here=$top_srcdir/bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/table.md
mkdir -p "$(dirname "$RESULTS")" || exit 1
case $RESULTS in
/*) ;;
*) RESULTS=$PWD/$RESULTS ;;
esac

ref_dtrace=
if [ -x /usr/bin/dtrace ] && head -c 200 /usr/bin/dtrace | grep -q python; then
	ref_dtrace=/usr/bin/dtrace	# systemtap's wrapper
fi
stap_h=
for h in /usr/include/x86_64-linux-gnu/sys/sdt.h /usr/include/sys/sdt.h; do
	[ -f "$h" ] && stap_h=$h && break
done

now_ns() { date +%s%N; }

# BENCH_ONLY=consumer: only the consumer figures (bpftrace's and ours),
# a quicker run when only they changed; RESULTS then holds just those.
want_part() {	# consumer | pid | kprov | startup | perhit | ustack | sysexit | registration | other
	[ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = "$1" ]
}

# best_ms CMD...: best wall time of three runs, in ms (prepare with $PREP)
best_ms() {
	best=
	for _ in 1 2 3; do
		[ -n "${PREP:-}" ] && sh -c "$PREP"
		t0=$(now_ns)
		"$@" >/dev/null 2>&1 || { echo "n/a"; return; }
		t1=$(now_ns)
		ms=$(( (t1 - t0) / 1000 ))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	# microseconds -> ms with one decimal
	echo "$((best / 1000)).$(( (best % 1000) / 100 ))"
}

ratio() {
	case "$1$2" in
	*n/a*|*-*) echo "-" ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-";
		else printf "%.2f\n", a / b }' ;;
	esac
}

row() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$2" "$3")" >>"$out"
	printf '%-52s %12s %12s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"
}

cd "$tmp" || exit 1
printf '%-52s %12s %12s %8s\n' "figure" "usdt-sdk" "reference" "ratio"
printf '| figure | usdt-sdk | reference | ratio |\n|---|---|---|---|\n' >"$out"

# ---------------------------------------------------------------------
# Disabled and enabled probes
build() {	# NAME CFLAGS...
	name=$1
	shift
	case "$name" in
	ours*)
		$CC -O2 -I. "$@" -c "$here/loop.c" -o "$name.o" &&
		"$DTRACE" -G -s "$here/bprov.d" -o "$name-p.o" "$name.o" &&
		$CC "$name.o" "$name-p.o" -o "$name" ;;
	*)
		$CC -O2 -I. "$@" "$here/loop.c" -o "$name" ;;
	esac
}

"$DTRACE" -h -s "$here/bprov.d" -o bprov.h || exit 1
build none -DSTYLE_NONE || exit 1
build ours -DSTYLE_OURS || exit 1
build ours-guard -DSTYLE_OURS -DGUARD || exit 1
if [ -n "$stap_h" ]; then
	build stap -DSTYLE_STAP -D_SDT_HAS_SEMAPHORES=1 || stap_h=
	build stap-guard -DSTYLE_STAP -D_SDT_HAS_SEMAPHORES=1 -DGUARD || stap_h=
fi

ir_per_iter() {	# PROG: callgrind instructions per iteration
	[ -x "$1" ] || { echo "n/a"; return; }
	command -v valgrind >/dev/null 2>&1 || { echo "n/a"; return; }
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1" 1000000 2>&1 |
		sed -n 's/.*refs: *//p' | tr -d ,)
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1" 0 2>&1 |
		sed -n 's/.*refs: *//p' | tr -d ,)
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f\n", (a - b) / 1000000 }'
}

ns_per_iter() {	# PROG [N]: best of five
	[ -x "$1" ] || { echo "n/a"; return; }
	for _ in 1 2 3 4 5; do "./$1" "${2:-100000000}"; done | sort -n | head -n 1
}

if want_part other; then
base_ir=$(ir_per_iter none)
for v in "" -guard; do
	ours=$(ir_per_iter "ours$v")
	stap=n/a
	[ -n "$stap_h" ] && stap=$(ir_per_iter "stap$v")
	what="disabled probe${v:+ with _ENABLED() guard}: instructions/iteration"
	row "$what" "$ours" "$stap"
done
row "loop without a probe: instructions/iteration" "$base_ir" "$base_ir"
for v in "" -guard; do
	ours=$(ns_per_iter "ours$v")
	stap=n/a
	[ -n "$stap_h" ] && stap=$(ns_per_iter "stap$v")
	row "disabled probe${v:+ with guard}: ns/iteration" "$ours" "$stap"
done

if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
	hit() {	# PROG: ns per hit under bpftrace count()
		[ -x "$1" ] || { echo "n/a"; return; }
		u=$(ns_per_iter "$1" 1000000)
		best=
		for _ in 1 2 3; do
			t=$(timeout 120 bpftrace -q -e "usdt:./$1:bprov:hit { @c = count(); } END { clear(@c); }" \
				-c "./$1 1000000" 2>/dev/null | head -n 1)
			[ -n "$t" ] || continue
			if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
				best=$t
			fi
		done
		[ -n "$best" ] || { echo "n/a"; return; }
		awk -v t="$best" -v u="$u" 'BEGIN { printf "%.0f\n", t - u }'
	}
	stap=n/a
	[ -n "$stap_h" ] && stap=$(hit stap)
	row "enabled probe, bpftrace count(): ns/hit" "$(hit ours)" "$stap"
else
	echo "(enabled probes: needs root and bpftrace; skipped)"
fi

# ---------------------------------------------------------------------
# Probe forms: their own table and section (bench/forms.sh)
echo
DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC FORMS_MD=$tmp/forms.md \
	sh "$here/forms.sh"
echo
printf '%-52s %12s %12s %8s\n' "figure" "usdt-sdk" "reference" "ratio"

fi # BENCH_ONLY
# ---------------------------------------------------------------------
# Consumer: our dtrace -n against bpftrace, on the same probe of the same
# binary.  Output files on tmpfs, so the disk is not what is measured.
if ! want_part consumer; then
	:
elif [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null 2>&1; then
	shm=$(mktemp -d /dev/shm/usdt-bench.XXXXXX 2>/dev/null) || shm=$tmp/shm
	mkdir -p "$shm"
	trap 'rm -rf "$tmp" "$shm"' EXIT
	"$DTRACE" -h -s "$here/pace.d" -o pace.h &&
	$CC -O2 -I. -c "$here/pace.c" -o pace.o &&
	"$DTRACE" -G -s "$here/pace.d" -o pace-p.o pace.o &&
	$CC pace.o pace-p.o -o pace || exit 1

	# Drops as each tool reports them: ours "dtrace: N drops ..." on
	# stderr, bpftrace "Lost N events" (in its output).
	drops_of() {	# TOOL
		case $1 in
		bpftrace) cat "$shm/out" "$shm/err" | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' ;;
		*) sed -n 's/^dtrace: \([0-9]*\) drops.*/\1/p' "$shm/err" ;;
		esac | awk '{ s += $1 } END { print s + 0 }'
	}
	last_num() { awk 'NF { v = $NF } END { print v + 0 }' "$shm/out"; }

	# The D actions measured, each as dtrace's clause and bpftrace's on
	# the probe P (arg0 is the event's index i = 0..N-1), and what every
	# event delivered leaves: count() N, sum(arg0) N(N-1)/2, quantize()
	# buckets adding up to N, the predicate's count() the even i's.
	d_act() {	# ACTION
		case $1 in
		count) printf '%s\n' '{ @ = count(); }' ;;
		sum) printf '%s\n' '{ @ = sum(arg0); }' ;;
		quantize) printf '%s\n' '{ @ = quantize(arg0); }' ;;
		predicate) printf '%s\n' '/arg0 % 2 == 0/ { @ = count(); }' ;;
		printf) printf '%s\n' '{ printf("%d %d\n", arg0, arg1); }' ;;
		# the same on bprov:hit, whose one argument is printed twice
		printf2) printf '%s\n' '{ printf("%d %d\n", arg0, arg0 + 1); }' ;;
		esac
	}
	b_act() {	# ACTION
		case $1 in
		quantize) printf '%s\n' '{ @ = hist(arg0); }' ;;
		*) d_act "$1" ;;
		esac
	}
	# exact ACTION N: did $shm/out get every one of N events?
	exact() {
		case $1 in
		count) [ "$(last_num)" -eq "$2" ] ;;
		sum) awk -v n="$2" 'NF { v = $NF }
			END { exit !(v == n * (n - 1) / 2) }' "$shm/out" ;;
		predicate) [ "$(last_num)" -eq $((($2 + 1) / 2)) ] ;;
		quantize) [ "$(awk '/^ *[0-9-]+ \|/ { s += $NF }
			/^\[/ { x = $0; sub(/^\[[^])]*[])]/, "", x)
				split(x, f, " "); s += f[1] }
			END { print s + 0 }' "$shm/out")" -eq "$2" ] ;;
		printf | printf2) [ "$(grep -c '^[0-9]* [0-9]*$' "$shm/out" 2>/dev/null)" -eq "$2" ] ;;
		esac
	}
	# trace TOOL ACTION PROVIDER:NAME PROG ARGS...: TOOL is bpf or
	# uprobe (our dtrace -n, DTRACE_BACKEND set), user (our dtrace -n
	# -x activation=user) or bpftrace, on
	# PROVIDER:::NAME of ./PROG; output in $shm/out
	trace() {
		t_tool=$1 t_act=$2 t_prov=${3%:*} t_name=${3#*:}
		shift 3
		rm -f "$shm/out"
		case $t_tool in
		bpftrace) timeout 120 bpftrace -q -o "$shm/out" \
			-e "usdt:./$1:$t_prov:$t_name $(b_act "$t_act")" -c "./$*" ;;
		# in the process (issue 30): a ring of 1M records per thread,
		# which a run of 1,000,000 hits cannot overflow
		user) timeout 120 "$DTRACE" -q -x activation=user -x bufsize=64m \
			-o "$shm/out" \
			-n "$t_prov\$target:::$t_name $(d_act "$t_act")" -c "./$*" ;;
		*) DTRACE_BACKEND=$t_tool timeout 120 "$DTRACE" -q -o "$shm/out" \
			-n "$t_prov\$target:::$t_name $(d_act "$t_act")" -c "./$*" ;;
		esac
	}

	# 1. Cost per hit added to the target: ./ours N traced by each
	# tool; ns/hit = traced minus untraced ns/iteration, best of three.
	# Also whether every run got every hit, and the most drops.
	N=1000000
	u=$(ns_per_iter ours $N)
	consumer_hit() {	# TOOL ACTION
		best= allok=yes dmax=0
		for _ in 1 2 3; do
			trace "$1" "$2" bprov:hit ours $N >"$shm/tgt" 2>"$shm/err"
			t=$(head -n 1 "$shm/tgt")
			d=$(drops_of "$1")
			exact "$2" $N || allok=no
			[ "$d" -gt "$dmax" ] && dmax=$d
			[ -n "$t" ] || continue
			if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
				best=$t
			fi
		done
		if [ -n "$best" ]; then
			hit_ns=$(awk -v t="$best" -v u="$u" 'BEGIN { printf "%.0f\n", t - u }')
		else
			hit_ns=n/a
		fi
		hit_ok=$allok hit_drops=$dmax
	}
	for act in count sum quantize predicate printf2; do
		consumer_hit bpftrace $act
		b_ns=$hit_ns b_ok=$hit_ok b_drops=$hit_drops
		for be in ${BENCH_BACKENDS:-bpf uprobe user}; do
			consumer_hit $be $act
			row "dtrace -n ($be) vs bpftrace, $act: ns/hit" "$hit_ns" "$b_ns"
			row "  same, every hit of 1,000,000 (3 runs); drops" \
				"$hit_ok; $hit_drops" "$b_ok; $b_drops"
		done
	done

	# 2. Events per second delivered without loss.  ./pace fires at R
	# events/s for one second; a step passes when the source reached R
	# (95%), nothing was dropped and every event arrived (exact).  The
	# sweep stops at the first step that fails; then one unpaced run of
	# 1,000,000.
	consumer_run() {	# TOOL ACTION RATE N: sets got (events/s), ok, drp
		rm -f "$shm/rate"
		trace "$1" "$2" bpace:ev pace "$3" "$4" "$shm/rate" \
			>/dev/null 2>"$shm/err"
		got=$(awk '$2 > 0 { printf "%.0f\n", $1 * 1e9 / $2 }' "$shm/rate" 2>/dev/null)
		[ -n "$got" ] || got=0
		drp=$(drops_of "$1")
		ok=0
		exact "$2" "$4" && [ "$drp" -eq 0 ] && ok=1
		[ "$3" -gt 0 ] && [ "$got" -lt $(($3 * 95 / 100)) ] && ok=0
	}
	consumer_rate() {	# TOOL ACTION: sets lossless, max_rate, max_drops
		lossless=0
		for r in 50000 100000 200000 400000 800000 1600000; do
			consumer_run "$1" "$2" $r $r
			[ "$ok" -eq 1 ] || break
			lossless=$r
		done
		consumer_run "$1" "$2" 0 $N
		max_rate=$got max_drops=$drp
		[ "$ok" -eq 1 ] && [ "$got" -gt "$lossless" ] && lossless=$got
	}
	for act in printf count sum quantize predicate; do
		consumer_rate bpftrace $act
		b_ll=$lossless b_max=$max_rate b_md=$max_drops
		for be in ${BENCH_BACKENDS:-bpf uprobe user}; do
			consumer_rate $be $act
			row "$act ($be), lossless: highest events/s (0 drops, exact)" "$lossless" "$b_ll"
			row "$act ($be), unpaced: events/s reached; drops of 1,000,000" \
				"$max_rate; $max_drops" "$b_max; $b_md"
		done
	done
	rm -rf "$shm"
else
	echo "(consumer: needs root and bpftrace; skipped)"
fi
# ---------------------------------------------------------------------
# ustack(): @[ustack()] = count() against bpftrace's @[ustack] =
# count(), its own section (bench/ustack.sh, which see; BENCH_ONLY=ustack
# runs it alone)
if want_part consumer || want_part ustack; then
	echo
	DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC \
		USTACK_MD=$tmp/ustack.md sh "$here/ustack.sh"
fi

# ---------------------------------------------------------------------
# The pid provider: its own table and section (bench/pid.sh)
if want_part pid; then
	echo
	DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC PID_MD=$tmp/pid.md \
		sh "$here/pid.sh"
	echo
fi

# Start-up: its own section (bench/startup.sh)
if want_part startup; then
	echo
	DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC \
		STARTUP_MD=$tmp/startup.md sh "$here/startup.sh"
fi

# Per hit, in the BPF program: its own section (bench/perhit.sh)
if want_part perhit; then
	echo
	DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC PERHIT_MD=$tmp/perhit.md \
		sh "$here/perhit.sh"
fi

# Kernel providers: their own section (bench/kprov.sh)
if want_part kprov; then
	echo
	DTRACE=$DTRACE top_srcdir=$top_srcdir CC=$CC KPROV_MD=$tmp/kprov.md \
		sh "$here/kprov.sh"
fi

# The syscall provider's start to exit: its own section (bench/sysexit.sh)
if want_part sysexit; then
	echo
	{
		echo "### Syscall and proc providers, start to exit (bench/sysexit.sh)"
		echo
		DTRACE=$DTRACE sh "$here/sysexit.sh"
		echo
		DTRACE=$DTRACE PROC=1 sh "$here/sysexit.sh"
	} | tee "$tmp/sysexit.md"
fi

if want_part other; then
# ---------------------------------------------------------------------
# Tools
{
	echo "provider big {"
	i=0
	while [ $i -lt 200 ]; do
		echo "	probe p$i(int a, const char *b, long c);"
		i=$((i + 1))
	done
	echo "};"
} >big.d
"$DTRACE" -h -s big.d -o big.h || exit 1
ref=n/a
[ -n "$ref_dtrace" ] && ref=$(best_ms "$ref_dtrace" -h -s big.d -o ref.h)
row "dtrace -h, 200 probes: ms" "$(best_ms "$DTRACE" -h -s big.d -o big.h)" "$ref"

{
	echo '#include "big.h"'
	f=0
	while [ $f -lt 5 ]; do
		echo "void f$f(int x) {"
		s=0
		while [ $s -lt 5 ]; do
			echo "	BIG_P$((f * 5 + s))(x + $s, \"s\", ${s}L);"
			s=$((s + 1))
		done
		echo "}"
		f=$((f + 1))
	done
} >obj.c
$CC -O2 -c obj.c -o obj.o || exit 1
for n in 1 10 100 200 500 2000; do
	mkdir -p "g$n"
	i=0
	while [ $i -lt $n ]; do
		cp obj.o "g$n/o$i.o"
		i=$((i + 1))
	done
	mkdir -p "g$n/orig"
	cp "g$n"/o*.o "g$n/orig/"
	ours=$(cd "g$n" && PREP="cp orig/*.o ." best_ms "$DTRACE" -G -s ../big.d -o p.o $(ls o*.o))
	ref=n/a
	[ -n "$ref_dtrace" ] &&
		ref=$(cd "g$n" && best_ms "$ref_dtrace" -G -s ../big.d -o r.o $(ls o*.o))
	row "dtrace -G, $n objects ($((n * 25)) sites): ms" "$ours" "$ref"
done

fi # BENCH_ONLY

if want_part registration; then
# ---------------------------------------------------------------------
# Registration (dtrace-helperd): per object, per second, memory
if [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] && [ -x "${HELPERD:-}" ]; then
	d=$top_srcdir/tests/data/helperd
	"$DTRACE" -h -s "$d/hdplug.d" -o hdplug.h &&
	$CC -O2 -fPIC -I. -c "$d/plug.c" -o plug.o &&
	"$DTRACE" -G -s "$d/hdplug.d" plug.o -o plug-probes.o &&
	$CC -shared -o plug.so plug.o plug-probes.o &&
	$CC -O2 -I"$top_srcdir/sdk/include" -o regbench "$here/regbench.c" \
		-ldl || exit 1
	# The registry on tmpfs, as /run is on a normal system; mode 0755:
	# the daemon takes no state directory another user may write to.
	mkdir -p "$tmp/state"
	mount -t tmpfs -o size=16m,mode=0755 tmpfs "$tmp/state" 2>/dev/null &&
		trap 'umount "$tmp/state" 2>/dev/null; rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/run" && chmod 755 "$tmp/run"
	"$HELPERD" -f --no-scan --device "$tmp/dev/helper" \
		--socket "$tmp/run/helper.sock" \
		--state-dir "$tmp/state" 2>helperd.log &
	hdpid=$!
	i=0
	while [ $i -lt 100 ] && ! mountpoint -q "$tmp/dev"; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! mountpoint -q "$tmp/dev"; then
		echo "bench: dtrace-helperd did not start:" >&2
		cat helperd.log >&2
		exit 1
	fi
	best_us() { # best of three, mean us per dlopen+dlclose [-S: with SYNC]
		b=
		for _ in 1 2 3; do
			v=$(./regbench "$@" "$tmp/plug.so" 2000) || { echo n/a; return; }
			if [ -z "$b" ] || [ "$v" -lt "$b" ]; then b=$v; fi
		done
		echo "$((b / 1000)).$(( (b % 1000) / 100 ))"
	}
	# Up: drti.o's datagrams to the daemon's socket.  No helper: the
	# socket and the device both absent, what drti.o meets on a machine
	# without the daemon.  Through the device: drti.o told of a device
	# only (another helper's way), against that device absent.
	up=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper \
		DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock best_us)
	none=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper \
		DTRACE_DOF_INIT_SOCKNAME=$tmp/no/helper.sock best_us)
	off=$(DTRACE_DOF_INIT_DISABLE=1 best_us)
	row "dlopen+dlclose, helper up vs no helper: us" "$up" "$none"
	devup=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper best_us)
	devnone=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper best_us)
	row "dlopen+dlclose through the device, up vs absent: us" "$devup" "$devnone"
	# The same with SYNC between: each registration checked and written
	# before its REMOVE, as when a consumer lists it.
	synced=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock best_us -S)
	row "dlopen+SYNC+dlclose (checked, recorded), helper up vs no helper: us" "$synced" "$none"
	row "dlopen+dlclose, no helper vs registration off: us" "$none" "$off"
	# The floor under every ADDDOF and REMOVE: an ioctl the daemon
	# answers at once (ENOTTY), best of three.
	nul=
	for _ in 1 2 3; do
		v=$(./regbench -n "$tmp/dev/helper" 20000) || { nul=; break; }
		if [ -z "$nul" ] || [ "$v" -lt "$nul" ]; then nul=$v; fi
	done
	row "null ioctl round trip to the daemon: us" \
		"${nul:+$((nul / 1000)).$(( (nul % 1000) / 100 ))}" "-"
	# fork (+exit+wait) of a program with a probed library loaded, and
	# the start of a probed program (posix_spawn+wait), helper up vs no
	# helper: best of three.
	printf '#include "hdplug.h"\nint main(void) { HDPLUG_HELLO("x"); return 0; }\n' >pmain.c
	$CC -O2 -I. -c pmain.c -o pmain.o &&
	"$DTRACE" -G -s "$d/hdplug.d" pmain.o -o pmain-probes.o &&
	$CC -o pmain pmain.o pmain-probes.o || exit 1
	best_of3() { # best of three, mean us per cycle of regbench "$@"
		b=
		for _ in 1 2 3; do
			v=$(./regbench "$@") || { echo n/a; return; }
			if [ -z "$b" ] || [ "$v" -lt "$b" ]; then b=$v; fi
		done
		echo "$((b / 1000)).$(( (b % 1000) / 100 ))"
	}
	up=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock best_of3 -f "$tmp/plug.so" 300)
	none=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/no/helper.sock best_of3 -f "$tmp/plug.so" 300)
	row "fork+exit+wait, helper up vs no helper: us" "$up" "$none"
	up=$(DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock best_of3 -s ./pmain 300)
	none=$(DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/no/helper.sock best_of3 -s ./pmain 300)
	row "start of a probed program, helper up vs no helper: us" "$up" "$none"
	# Four processes at once, 2,000 objects each: registrations/s.
	t0=$(now_ns)
	rb=
	for _ in 1 2 3 4; do
		DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/run/helper.sock ./regbench "$tmp/plug.so" 2000 >/dev/null &
		rb="$rb $!"
	done
	wait $rb
	t1=$(now_ns)
	rps=$(( 8000 * 1000000000 / (t1 - t0) ))
	# The same four with no helper: what dlopen+dlclose alone allows.
	t0=$(now_ns)
	rb=
	for _ in 1 2 3 4; do
		DTRACE_DOF_INIT_DEVNAME=$tmp/no/helper DTRACE_DOF_INIT_SOCKNAME=$tmp/no/helper.sock ./regbench "$tmp/plug.so" 2000 >/dev/null &
		rb="$rb $!"
	done
	wait $rb
	t1=$(now_ns)
	row "registrations/s, 4 concurrent processes (ref.: cycles/s, no helper)" "$rps" "$(( 8000 * 1000000000 / (t1 - t0) ))"
	# Memory: the daemon's RSS before and after 2,000 probes arrive.
	awk 'BEGIN { print "provider big {"
		for (i = 0; i < 2000; i++) printf "\tprobe p%d(int, char *);\n", i
		print "};" }' >reg2k.d
	awk 'BEGIN { print "#include <unistd.h>\n#include \"reg2k.h\""
		print "int main(void) {"
		for (i = 0; i < 2000; i++) printf "\tBIG_P%d(1, \"x\");\n", i
		print "\tpause();\n}" }' >reg2k.c
	"$DTRACE" -h -s reg2k.d -o reg2k.h && $CC -O1 -c reg2k.c -o reg2k.o &&
	"$DTRACE" -G -s reg2k.d reg2k.o -o reg2k-p.o && $CC -o reg2k reg2k.o reg2k-p.o
	rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$hdpid/status")
	DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper ./reg2k &
	r2=$!
	sleep 1
	# a reader (its SYNC) has the registration checked and written
	DTRACE_STATEDIR=$tmp/state "$DTRACE" -l >/dev/null 2>&1
	rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$hdpid/status")
	fsz=n/a
	[ -f "$tmp/state/registry/$r2" ] &&
		fsz=$(( $(wc -c <"$tmp/state/registry/$r2") / 2 / 1024 ))
	kill "$r2"
	row "daemon RSS per 1,000 registered probes: KiB" "$(( (rss1 - rss0) / 2 ))" "-"
	row "registry file per 1,000 probes: KiB" "$fsz" "-"
	kill "$hdpid"
	wait "$hdpid" 2>/dev/null
	umount "$tmp/state" 2>/dev/null
else
	echo "(registration: needs root, /dev/fuse and dtrace-helperd; skipped)"
fi

fi # BENCH_ONLY

{
	echo "# Benchmark results"
	echo
	echo "Produced by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d):"
	echo "$(uname -r), $(nproc) CPUs, $(sed -n 's/^model name.*: //p' /proc/cpuinfo | head -n 1)."
	echo "Reference: systemtap-sdt-dev's <sys/sdt.h> and dtrace wrapper"
	echo "(ref.: systemtap's -G only compiles the semaphores; it rewrites nothing)."
	echo
	cat "$out"
	echo
	echo "Consumer figures (the rows from \"dtrace -n (bpf) vs bpftrace\" to"
	echo "the last unpaced row; root and bpftrace only): our \`dtrace -n\`, on"
	echo "each backend (DTRACE_BACKEND=bpf: a BPF program per uprobe event,"
	echo "aggregating in the kernel; uprobe: a perf sample per hit), and"
	echo "bpftrace trace the same probe of the same binary, started with -c,"
	echo "output to tmpfs, for count(), sum(arg0), quantize(arg0) (bpftrace:"
	echo "hist()) and /arg0 % 2 == 0/ count().  ns/hit is the target's own"
	echo "ns/iteration traced minus untraced (best of three).  Events/s:"
	echo "bench/pace.c fires at 50k to 1.6M events/s (doubling) for one second,"
	echo "stopping at the first rate that fails; a rate passes when the source"
	echo "reached it, no drop was reported (ours: \"dtrace: N drops\", bpftrace:"
	echo "\"Lost N events\") and every event arrived (the exact count, sum,"
	echo "bucket total, or one printf line per event); then one unpaced run of"
	echo "1,000,000 events.  Limits: the machine's CPUs are shared by the"
	echo "target (busy on one) and the consumer.  On the bpf backend these"
	echo "clauses run in the BPF program, as bpftrace's do (a plan per probe,"
	echo "per-CPU maps read back at the end); printf() and the uprobe backend"
	echo "cost a record per hit (default -x bufsize 2 MB per CPU, read every"
	echo "10 ms or when half full)."
	if [ -s "$tmp/forms.md" ]; then
		echo
		cat "$tmp/forms.md"
	fi
	if [ -s "$tmp/pid.md" ]; then
		echo
		cat "$tmp/pid.md"
	fi
	if [ -s "$tmp/startup.md" ]; then
		echo
		cat "$tmp/startup.md"
	fi
	if [ -s "$tmp/perhit.md" ]; then
		echo
		cat "$tmp/perhit.md"
	fi
	if [ -s "$tmp/kprov.md" ]; then
		echo
		cat "$tmp/kprov.md"
	fi
	if [ -s "$tmp/ustack.md" ]; then
		echo
		cat "$tmp/ustack.md"
	fi
	if [ -s "$tmp/sysexit.md" ]; then
		echo
		cat "$tmp/sysexit.md"
	fi
} >"$RESULTS"
echo
echo "written to $RESULTS"
