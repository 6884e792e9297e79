#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-sdt-sema.sh: semaphores of inline probes follow the tracers.
#
# tests/data/sdt/prog.c, `prog loop`, prints every 20 ms the semaphore
# of a <sys/sdt.h> probe (USDT_SEMAPHORE_DEFINE + USDT_PROBE, tested with
# USDT_ENABLED()) and of a `dtrace -h -x probestyle=inline` probe (defined
# by the -G object, tested with SDTP_GATED_ENABLED()), firing each probe
# only while its test is true.  Built with gcc -O2 (-G over the objects)
# and, with $CLANG, clang -O2 -flto linked by lld (-G without objects):
#  - untraced: both semaphores are 0 and both tests false;
#  - while bpftrace is attached to the two probes: both non-zero (the
#    kernel's uprobe reference counter), both tests true, and bpftrace
#    counts hits of both, so the probes fired because of the tests;
#  - after bpftrace exits: 0 and false again.
# Needs root and bpftrace.

. "$top_srcdir/tests/lib.sh"

: "${CLANG:=}"
data=$top_srcdir/tests/data/sdt
inc=$top_srcdir/sdk/include

[ "$(id -u)" -eq 0 ] || skip "not root: bpftrace needs root"
require_G bpftrace

sema_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap sema_cleanup EXIT
trap 'exit 1' INT TERM HUP


run_dtrace -h -x probestyle=inline -s "$data/sdtprov.d" -o sdtprov.h
expect_eq "dtrace -h -x probestyle=inline" 0 "$status"

# build NAME CC OPT LDFLAGS: NAME/prog; -flto builds give -G no objects
build() {
	mkdir "$1"
	if ! $2 $3 -I"$inc" -I. -c "$data/prog.c" -o "$1/prog.o" \
		>"$1/build.log" 2>&1 ||
	   ! $2 -I"$inc" -c "$data/prog-asm.S" -o "$1/prog-asm.o" \
		>>"$1/build.log" 2>&1; then
		fail "$1: compile"
		sed 's/^/    | /' "$1/build.log" >&2
		return 1
	fi
	case $3 in
	*-flto*) set -- "$@" ;;
	*) set -- "$@" "$1/prog.o" "$1/prog-asm.o" ;;
	esac
	b_dir=$1 b_cc=$2 b_opt=$3 b_ld=$4
	shift 4
	if ! "$DTRACE" -G -s "$data/sdtprov.d" -o "$b_dir/probes.o" "$@" \
		>>"$b_dir/build.log" 2>&1 ||
	   ! $b_cc $b_opt $b_ld -o "$b_dir/prog" "$b_dir/prog.o" \
		"$b_dir/prog-asm.o" "$b_dir/probes.o" >>"$b_dir/build.log" 2>&1; then
		fail "$b_dir: -G and link"
		sed 's/^/    | /' "$b_dir/build.log" >&2
		return 1
	fi
	pass
}

variants=
build gcc "$CC" -O2 "" && variants=gcc
if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1 &&
   command -v ld.lld >/dev/null 2>&1; then
	build clang-lto "$CLANG" "-O2 -flto" "-fuse-ld=lld -Wl,--gc-sections" &&
		variants="$variants clang-lto"
else
	echo "# no clang or no ld.lld: no clang -flto build"
fi

last_line() {
	tail -n 1 "$1/loop.out" | cut -d' ' -f2-
}
lines() {
	[ "$(wc -l <"$1/loop.out")" -ge "$2" ]
}
last_is() {
	[ "$(last_line "$1")" = "$2" ]
}
# any line with both on: bpftrace exits after 5 hits of each, about
# 100 ms of lines (one each 20 ms), which a poll of the last line alone
# could miss under load, and then waited two minutes and failed (ci38:
# two variants at once, both passing when run again)
any_on() {
	grep -q '^[0-9]* sdtt [1-9][0-9]* 1 sdtp [1-9][0-9]* 1$' "$1/loop.out"
}

for v in $variants; do
	rm -f "$v/stop"
	: >"$v/loop.out"
	(cd "$v" && exec ./prog loop stop) >"$v/loop.out" 2>"$v/loop.err" &
	loop_pid=$!
	bg_pids="$bg_pids $loop_pid"
	wait_until 100 lines "$v" 3 && pass ||
		fail "$v: prog loop printed nothing"
	expect_eq "$v: untraced" "sdtt 0 0 sdtp 0 0" "$(last_line "$v")"

	# bpftrace stops by itself once each probe fired 5 times; a
	# SIGINT is only the fallback (under a loaded make -j check,
	# bpftrace 0.17 once let a SIGINT pass unseen for a minute)
	(cd "$v" && exec bpftrace -B none -e '
		usdt:./prog:sdtt:gated { @sdtt = count(); @a = @a + 1;
			if (@a >= 5 && @b >= 5) { exit(); } }
		usdt:./prog:sdtp:gated { @sdtp = count(); @b = @b + 1;
			if (@a >= 5 && @b >= 5) { exit(); } }') \
		>"$v/bt.out" 2>"$v/bt.err" &
	bt_pid=$!
	bg_pids="$bg_pids $bt_pid"
	# (up to 2 minutes: bpftrace's start, its BTF and the uprobes, took
	# past 30 s at a load of 15 with a TCG guest beside it)
	if wait_until 1200 any_on "$v"; then
		pass
	else
		fail "$v: the semaphores never rose while bpftrace was attached: $(last_line "$v")"
		sed 's/^/    | /' "$v/bt.err" >&2
	fi
	# a few rounds with the probes firing, then bpftrace's own exit()
	wait_until 600 dead $bt_pid
	stop_pid $bt_pid
	expect_eq "$v: bpftrace's exit status" 0 "$stop_status"
	expect_grep "$v: bpftrace counted sdtt:gated" '^@sdtt: [1-9]' \
		"$v/bt.out"
	expect_grep "$v: bpftrace counted sdtp:gated" '^@sdtp: [1-9]' \
		"$v/bt.out"
	if wait_until 200 last_is "$v" "sdtt 0 0 sdtp 0 0"; then
		pass
	else
		fail "$v: the semaphores stayed up after bpftrace: $(last_line "$v")"
	fi

	: >"$v/stop"
	if wait_until 100 dead $loop_pid; then
		wait $loop_pid
		expect_eq "$v: prog loop's exit status" 0 $?
		forget_pid $loop_pid
	else
		fail "$v: prog loop did not stop"
		stop_pid $loop_pid
	fi
	# the states, run-length collapsed: off, on, off
	awk '{ print ($3 != 0) ($4) ($6 != 0) ($7) }' "$v/loop.out" | uniq \
		>"$v/states.txt"
	printf '0000\n1111\n0000\n' >expected-states.txt
	# bpftrace attaches the two probes one after the other: allow the
	# moment when only one is on
	grep -v -e '^1100$' -e '^0011$' "$v/states.txt" | uniq >"$v/states2.txt"
	expect_file_eq "$v: the semaphores over time" expected-states.txt \
		"$v/states2.txt"
done

finish
