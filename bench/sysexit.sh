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
# Rows: `dtrace -q -n '... { @ = count(); }' -c true` for the entries of
# openat and read, then the entry and return of 1, 2, 4 and 16 calls
# (getppid, getpid, getuid, ...: each has its own tracepoint); columns,
# taken in turns each round: the default choice, DTRACE_SYSCALL_RAW=0
# (every direction that fits on its calls' own tracepoints) and =1 (the
# raw tracepoints), and OURS2's default (e.g. a build from before a
# change) when set.  Each cell: the median of $ROUNDS runs, in ms, wall
# time from fork to exit.  Nothing passes or fails on speed.
#
# PROC=1: the proc provider's rows instead (exec-success, exit, create,
# the three; kprov_proc.c), columns DTRACE and OURS2 taken in turns.

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${ROUNDS:=5}"
: "${OURS2:=}"
export LC_ALL=C

if [ "$(id -u)" -ne 0 ]; then
	echo "(syscall exit: needs root; skipped)"
	exit 0
fi
calls="getppid getpid getuid getgid geteuid getegid dup dup2 pipe lseek"
calls="$calls munmap brk mprotect umask sync getcwd"

ms() {	# CMD...: its wall time in ms
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

row() {	# NAME SCRIPT
	: >d.ms; : >p.ms; : >r.ms; : >o.ms
	for _ in $(seq "$ROUNDS"); do
		ms env -u DTRACE_SYSCALL_RAW "$DTRACE" -q -n "$2" -c true >>d.ms
		DTRACE_SYSCALL_RAW=0 ms "$DTRACE" -q -n "$2" -c true >>p.ms
		DTRACE_SYSCALL_RAW=1 ms "$DTRACE" -q -n "$2" -c true >>r.ms
		[ -z "$OURS2" ] ||
			ms env -u DTRACE_SYSCALL_RAW "$OURS2" -q -n "$2" \
				-c true >>o.ms
	done
	printf '| %s | %s | %s | %s |' "$1" "$(med <d.ms)" "$(med <p.ms)" \
		"$(med <r.ms)"
	[ -z "$OURS2" ] || printf ' %s |' "$(med <o.ms)"
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
if [ "${PROC:-0}" = 1 ]; then
	printf '| proc run (-c true), median ms | DTRACE |'
	[ -z "$OURS2" ] || printf ' OURS2 |'
	echo
	printf '|---|---|'
	[ -z "$OURS2" ] || printf -- '---|'
	echo
	for n in exec-success exit create 'create,exit,exec-success'; do
		: >d.ms; : >o.ms
		d=$(echo "$n" | sed 's/[^,]*/proc:::&/g')
		for _ in $(seq "$ROUNDS"); do
			ms "$DTRACE" -q -n "$d { @ = count(); }" -c true >>d.ms
			[ -z "$OURS2" ] ||
				ms "$OURS2" -q -n "$d { @ = count(); }" \
					-c true >>o.ms
		done
		printf '| %s | %s |' "$d" "$(med <d.ms)"
		[ -z "$OURS2" ] || printf ' %s |' "$(med <o.ms)"
		echo
	done
	echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
	exit 0
fi
printf '| run (-c true), median ms | default | RAW=0 | RAW=1 |'
[ -z "$OURS2" ] || printf ' OURS2 |'
echo
printf '|---|---|---|---|'
[ -z "$OURS2" ] || printf -- '---|'
echo
row "openat, read entry" \
	'syscall::openat:entry,syscall::read:entry { @ = count(); }'
for k in 1 2 4 16; do
	p= i=0
	for c in $calls; do
		i=$((i + 1))
		[ $i -gt $k ] && break
		p="${p}syscall::$c:entry,syscall::$c:return,"
	done
	row "entry and return of $k" "${p%,} { @ = count(); }"
done
echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
