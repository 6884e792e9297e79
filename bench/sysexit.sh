#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/sysexit.sh - start to exit of syscall-provider runs, which the
# per-call tracepoints' release dominates (kprov_syscall.c's "Exit":
# each perf event on a system call's own tracepoint waits two grace
# periods under the kernel's event_mutex when it is closed, one
# tracepoint after the other).  Alone (root):
#
#	DTRACE=dtrace-G/dtrace DTRACE_DRTI=drti/drti.o sh bench/sysexit.sh
#
# Rows: `dtrace -q -n '... { @ = count(); }' -c /bin/true` for the
# entries of openat and read, then the entry and return of 1, 2, 4 and
# 16 calls (getppid, getpid, getuid, ...: each has its own tracepoint).
# Columns, taken in turns each round: the default choice,
# DTRACE_SYSCALL_RAW=0 (every direction that fits on its calls' own
# tracepoints) and =1 (the raw tracepoints), OURS2's default (e.g. a
# build from before a change) when set, and bpftrace's the same probes
# on the calls' own tracepoints (tracepoint:syscalls:sys_enter_NAME,
# sys_exit_NAME) with the default's ratio to it, where bpftrace is
# installed.  Each cell: the median of $ROUNDS runs, in ms, wall time
# from fork to exit.  make bench runs it (bench/run.sh, BENCH_ONLY=sysexit
# alone).  Nothing passes or fails on speed.
#
# PROC=1: the proc provider's rows instead (exec-success, exit, create,
# the three; kprov_proc.c), columns DTRACE, OURS2 and bpftrace's
# sched_process_exec, sched_process_exit and task_newtask tracepoints,
# taken in turns.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${ROUNDS:=5}"
: "${OURS2:=}"
export LC_ALL=C

if [ "$(id -u)" -ne 0 ]; then
	echo "(syscall exit: needs root; skipped)"
	exit 0
fi
T=/bin/true	# a path: bpftrace refuses a bare name two binaries match
calls="getppid getpid getuid getgid geteuid getegid dup dup2 pipe lseek"
calls="$calls munmap brk mprotect umask sync getcwd"

ms() {	# CMD...: its wall time in ms; nothing where it failed
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || return 0
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
med() {	# the median of the lines read; n/a where none
	sort -n | awk '{ a[NR] = $1 }
		END { if (NR) print a[int((NR + 1) / 2)]; else print "n/a" }'
}

ratio() {	# A B: A / B to two places, n/a where either is not a time
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0)
		printf "%.2f", a / b; else print "n/a" }'
}

row() {	# NAME SCRIPT BPFTRACE_PROGRAM
	: >d.ms; : >p.ms; : >r.ms; : >o.ms; : >b.ms
	for _ in $(seq "$ROUNDS"); do
		ms env -u DTRACE_SYSCALL_RAW "$DTRACE" -q -n "$2" -c "$T" >>d.ms
		DTRACE_SYSCALL_RAW=0 ms "$DTRACE" -q -n "$2" -c "$T" >>p.ms
		DTRACE_SYSCALL_RAW=1 ms "$DTRACE" -q -n "$2" -c "$T" >>r.ms
		[ -z "$OURS2" ] ||
			ms env -u DTRACE_SYSCALL_RAW "$OURS2" -q -n "$2" \
				-c "$T" >>o.ms
		[ -z "$BT" ] || ms "$BT" -e "$3" -c "$T" >>b.ms
	done
	d=$(med <d.ms)
	printf '| %s | %s | %s | %s |' "$1" "$d" "$(med <p.ms)" \
		"$(med <r.ms)"
	[ -z "$OURS2" ] || printf ' %s |' "$(med <o.ms)"
	if [ -n "$BT" ]; then
		b=$(med <b.ms)
		printf ' %s | %s |' "$b" "$(ratio "$d" "$b")"
	fi
	echo
}

abs() { case $1 in ''|/*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
case $DTRACE in */*) DTRACE=$(abs "$DTRACE") ;; esac
case $OURS2 in */*) OURS2=$(abs "$OURS2") ;; esac
[ -n "${DTRACE_DRTI:-}" ] && DTRACE_DRTI=$(abs "$DTRACE_DRTI") &&
	export DTRACE_DRTI
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-sysexit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
BT=$(command -v bpftrace 2>/dev/null) || BT=
if [ "${PROC:-0}" = 1 ]; then
	printf '| proc run (-c /bin/true), median ms | DTRACE |'
	[ -z "$OURS2" ] || printf ' OURS2 |'
	[ -z "$BT" ] || printf ' bpftrace | DTRACE/bpftrace |'
	echo
	printf '|---|---|'
	[ -z "$OURS2" ] || printf -- '---|'
	[ -z "$BT" ] || printf -- '---|---|'
	echo
	for n in exec-success exit create 'create,exit,exec-success'; do
		: >d.ms; : >o.ms; : >b.ms
		d=$(echo "$n" | sed 's/[^,]*/proc:::&/g')
		b=$(echo "$n" | sed 's/exec-success/sched:sched_process_exec/
			s/exit/sched:sched_process_exit/
			s/create/task:task_newtask/
			s/[^,]*/tracepoint:&/g')
		for _ in $(seq "$ROUNDS"); do
			ms "$DTRACE" -q -n "$d { @ = count(); }" -c "$T" >>d.ms
			[ -z "$OURS2" ] ||
				ms "$OURS2" -q -n "$d { @ = count(); }" \
					-c "$T" >>o.ms
			[ -z "$BT" ] ||
				ms "$BT" -e "$b { @ = count(); }" -c "$T" >>b.ms
		done
		dm=$(med <d.ms)
		printf '| %s | %s |' "$d" "$dm"
		[ -z "$OURS2" ] || printf ' %s |' "$(med <o.ms)"
		[ -z "$BT" ] || printf ' %s | %s |' "$(med <b.ms)" \
			"$(ratio "$dm" "$(med <b.ms)")"
		echo
	done
	echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
	exit 0
fi
printf '| run (-c /bin/true), median ms | default | RAW=0 | RAW=1 |'
[ -z "$OURS2" ] || printf ' OURS2 |'
[ -z "$BT" ] || printf ' bpftrace | default/bpftrace |'
echo
printf '|---|---|---|---|'
[ -z "$OURS2" ] || printf -- '---|'
[ -z "$BT" ] || printf -- '---|---|'
echo
tp=tracepoint:syscalls
row "openat, read entry" \
	'syscall::openat:entry,syscall::read:entry { @ = count(); }' \
	"$tp:sys_enter_openat,$tp:sys_enter_read { @ = count(); }"
for k in 1 2 4 16; do
	p= b= i=0
	for c in $calls; do
		i=$((i + 1))
		[ $i -gt $k ] && break
		p="${p}syscall::$c:entry,syscall::$c:return,"
		b="${b}$tp:sys_enter_$c,$tp:sys_exit_$c,"
	done
	row "entry and return of $k" "${p%,} { @ = count(); }" \
		"${b%,} { @ = count(); }"
done
[ -n "$BT" ] || echo "(bpftrace not found: no bpftrace column)"
echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
