#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/kprov.sh - what the kernel providers cost per hit
# (dtrace-G/consumer/kprov*.c), next to bpftrace doing the same in the
# same run.  Run by bench/run.sh (`make bench`, root and bpftrace); on
# its own:
#
#	DTRACE=dtrace-G/dtrace top_srcdir=. sh bench/kprov.sh
#
# Figures, each from bench/sysloop.c (N calls of one system call through
# syscall(2), or N iterations of a loop that makes none):
#  - syscall: ns per getppid() call added by `syscall::getppid:entry {
#    @ = count(); }` (ours: on getppid's own tracepoint, as a few calls
#    are, then with DTRACE_SYSCALL_RAW=1 on the raw tracepoint sys_enter,
#    as a glob over many is; the count in the kernel) and by bpftrace's
#    `tracepoint:syscalls:sys_enter_getppid { @ = count(); }` (a
#    per-syscall tracepoint): the traced run's ns per call minus the
#    untraced one, best of $RUNS runs of $N calls taken in turns; a run
#    counts only if its count reached N (both are system-wide, so other
#    processes' calls may add to it);
#  - what the same tracing costs a call it does not trace: getpid(),
#    ns per call added, measured the same way (once any system call
#    tracepoint is attached every call takes the kernel's slow path);
#  - the count of the target's getppid() calls with `syscall::
#    exit_group:entry /pid == $target/ { exit(0); }` beside it
#    (bpftrace: exit() at sys_enter_exit_group), the exit() decided in
#    the kernel (kplan_exit.c's "exit() at a traced probe"), ns per call
#    added as above;
#  - `syscall::getppid:entry /pid == $target/ { @[ustack()] = count();
#    }` against bpftrace's `@[ustack] = count()` on its tracepoint, ns
#    per call added over $NUS calls (ours: a record with the registers
#    and 8 KiB of stack per call, unwound in dtrace; bpftrace's: a
#    frame-pointer walk in the kernel);
#  - profile-997: the time its BPF program takes per sample (the timer
#    interrupt around it is the same perf cpu-clock event for both), from
#    the kernel's own statistics (BPF_ENABLE_STATS, held by
#    bench/bpfstats.c for the run: run_time_ns / run_cnt), for
#    `profile-997 { @ = count(); }` and `{ @[pid] = count(); }` against
#    bpftrace's `profile:hz:997` with the same action, 3 s each with one
#    CPU kept busy, best of $RUNS; a wall-clock figure is lost in the
#    noise at 997 samples a second.
# Nothing passes or fails on speed; KPROV_MD names a file to write the
# table to as a markdown section.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${KPROV_MD:=}"
: "${N:=1000000}"
: "${RUNS:=5}"
: "${NUS:=100000}"
export LC_ALL=C

if [ "$(id -u)" -ne 0 ] || ! command -v bpftrace >/dev/null 2>&1; then
	echo "(kernel providers: needs root and bpftrace; skipped)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-kprov.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
top_srcdir=$(abs "$top_srcdir") KPROV_MD=$(abs "$KPROV_MD")
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
cd "$tmp" || exit 1
$CC -O2 -o sysloop "$top_srcdir/bench/sysloop.c" &&
	$CC -O2 -o bpfstats "$top_srcdir/bench/bpfstats.c" || exit 1
unset DTRACE_BACKEND DTRACE_KAGG

best() { sort -n | awk 'NF { print; exit }'; }
untraced() {	# MODE COUNT: best ns per call/iteration
	for _ in $(seq "$RUNS"); do ./sysloop "$1" "$2"; done | best
}

# one TOOL MODE COUNT SCRIPT: a traced run of ./sysloop MODE COUNT; sets
# t (its ns per call) and n (the count the tool printed)
one() {
	rm -f agg.txt
	case $1 in
	dtrace) timeout 120 "$DTRACE" -q -o agg.txt -n "$4" \
		-c "./sysloop $2 $3" >loop.txt 2>/dev/null ;;
	bpftrace) timeout 120 bpftrace -q -o agg.txt -e "$4" \
		-c "./sysloop $2 $3" >loop.txt 2>/dev/null ;;
	esac
	t=$(head -n 1 loop.txt)
	n=$(grep -o '[0-9][0-9]*' agg.txt 2>/dev/null | tail -n 1)
	: "${n:=0}" "${t:=}"
}

# added MODE COUNT MIN D-SCRIPT BT-SCRIPT: best traced ns per call of
# each tool over RUNS runs in turns, only runs that counted MIN or more;
# sets d_t, b_t (n/a when none) and d_n, b_n (their counts)
added() {
	d_t= b_t= d_n=0 b_n=0
	for _ in $(seq "$RUNS"); do
		one dtrace "$1" "$2" "$4"
		if [ -n "$t" ] && [ "$n" -ge "$3" ]; then
			d_n=$n
			[ -z "$d_t" ] || awk -v a="$t" -v b="$d_t" 'BEGIN { exit !(a < b) }' && d_t=$t
		fi
		one bpftrace "$1" "$2" "$5"
		if [ -n "$t" ] && [ "$n" -ge "$3" ]; then
			b_n=$n
			[ -z "$b_t" ] || awk -v a="$t" -v b="$b_t" 'BEGIN { exit !(a < b) }' && b_t=$t
		fi
	done
	: "${d_t:=n/a}" "${b_t:=n/a}"
}

minus() { case "$1$2" in *n/a*) echo n/a ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f\n", a - b }' ;; esac; }
ratio() {
	case "$1$2" in
	*n/a*|*-*) echo "-" ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-";
		else printf "%.2f\n", a / b }' ;;
	esac
}
md=$tmp/table.md
: >"$md"
row() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$2" "$3")" >>"$md"
	printf '%-52s %12s %12s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"
}

printf '%-52s %12s %12s %8s\n' "kernel providers" "usdt-sdk" "bpftrace" "ratio"
u_ppid=$(untraced ppid "$N")
u_pid=$(untraced pid "$N")
row "getppid(), untraced: ns/call" "$u_ppid" "$u_ppid"

D_SYS='syscall::getppid:entry { @ = count(); }'
B_SYS='tracepoint:syscalls:sys_enter_getppid { @ = count(); }'
for raw in 0 1; do
	how="its own tracepoint"
	[ $raw -eq 1 ] && how="the raw tracepoint"
	export DTRACE_SYSCALL_RAW=$raw
	added ppid "$N" "$N" "$D_SYS" "$B_SYS"
	row "syscall::getppid:entry count() on $how: ns/call added" \
		"$(minus "$d_t" "$u_ppid")" "$(minus "$b_t" "$u_ppid")"
	added pid "$N" 0 "$D_SYS" "$B_SYS"
	row "  same, to getpid() (not traced): ns/call added" \
		"$(minus "$d_t" "$u_pid")" "$(minus "$b_t" "$u_pid")"
done
unset DTRACE_SYSCALL_RAW

# the count with exit() at the target's end (kplan_exit.c's "exit() at a
# traced probe"): the exit tested in exit_group's program, the count
# in the kernel; before, exit() at a kernel probe kept every clause in
# user space, a record per call
D_SX='syscall::getppid:entry /pid == $target/ { @ = count(); }
	syscall::exit_group:entry /pid == $target/ { exit(0); }'
B_SX='tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = count(); }
	tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ { exit(); }'
added ppid "$N" "$N" "$D_SX" "$B_SX"
row "same, /pid == \$target/ and exit() at exit_group: ns/call added" \
	"$(minus "$d_t" "$u_ppid")" "$(minus "$b_t" "$u_ppid")"

# the user stack at a system call: ours copies the registers and
# -x ustacksize of stack into a record, unwound in dtrace; bpftrace
# walks the frame pointers in the kernel (sysloop has none: its walk
# stops early).  Fewer calls: each of ours is a record.
D_US='syscall::getppid:entry /pid == $target/ { @[ustack()] = count(); }'
B_US='tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[ustack] = count(); }'
added ppid "$NUS" 0 "$D_US" "$B_US"
row "syscall::getppid:entry @[ustack()] = count(): ns/call added" \
	"$(minus "$d_t" "$u_ppid")" "$(minus "$b_t" "$u_ppid")"

# profile-997: the program's own time per sample, from the kernel's BPF
# statistics (bpfstats holds them on while the tool runs); the newest
# program of its name is the tool's
cat >run1.sh <<'EOF'
# run1.sh TOOL SCRIPT: the tool runs 4 s; at 3 s, bpftool's list
case $1 in
dtrace) timeout -s INT 4 "$DTRACE" -q -n "$2" >/dev/null 2>&1 & ;;
*) timeout -s INT 4 bpftrace -q -e "$2" >/dev/null 2>&1 & ;;
esac
sleep 3
bpftool prog show
wait
EOF
prog_ns() {	# TOOL SCRIPT PROGNAME: ns per run, or n/a
	./bpfstats sh run1.sh "$1" "$2" 2>/dev/null | awk -v n="$3" '
		$3 == "name" && $4 == n && $(NF - 3) == "run_time_ns" {
			t = $(NF - 2); c = $NF }
		END { if (c > 0) printf "%.0f\n", t / c; else print "n/a" }'
}
best_ns() {	# TOOL SCRIPT PROGNAME: best of RUNS
	for _ in $(seq "$RUNS"); do prog_ns "$@"; done | grep -v n/a | best |
		grep . || echo n/a
}
export DTRACE
./sysloop spin 100000000000 >/dev/null &
spinner=$!
for k in 'count:@ = count();' 'pid:@[pid] = count();'; do
	a=${k#*:}
	d=$(best_ns dtrace "profile-997 { $a }" kprov_profile)
	b=$(best_ns bpftrace "profile:hz:997 { $a }" 997)
	row "profile-997 { ${a% } }: BPF ns per sample" "$d" "$b"
done
kill "$spinner" 2>/dev/null
wait "$spinner" 2>/dev/null

[ -n "$KPROV_MD" ] || exit 0
{
	echo "## Kernel providers"
	echo
	fmt -w 72 <<EOF
bench/kprov.sh, $(date -u +%Y-%m-%d).  Our \`dtrace -n\` (the syscall
provider on getppid's own tracepoint, then on the raw tracepoint
sys_enter with DTRACE_SYSCALL_RAW=1, counting in the kernel) and
bpftrace (its per-syscall tracepoint) count getppid() calls of
bench/sysloop.c: ns/call added is the traced minus the untraced ns per
call, best of $RUNS runs of $N calls taken in turns; the getpid() row is
what the same tracing costs a call neither traces; the ustack() row
counts getppid()'s user stacks ($NUS calls; ours copies the stack
into a record unwound in dtrace, bpftrace walks frame pointers in the
kernel).  profile-997: the
BPF program's own ns per sample, from the kernel's BPF statistics
(run_time_ns / run_cnt over 3 s, one CPU busy, best of $RUNS), for a
count() and a count() keyed by pid.  Noise on a shared 2-CPU VM is
tens of ns.
EOF
	echo
	echo "| figure | usdt-sdk | bpftrace | ratio |"
	echo "|---|---|---|---|"
	cat "$md"
} >"$KPROV_MD"
