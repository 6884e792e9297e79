#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-detach.sh: when dtrace has exited, nothing it attached is
# left: the closes that detach its uprobes (each waiting for grace
# periods in the kernel, and made side by side from many threads:
# dtrace-G/consumer/fdclose.c) have all finished before its exit status
# is known, whichever way the run ends.  Checked right after dtrace
# returns, with no wait:
#  - a -p process that outlives dtrace reads its tr:::tick and
#    trlib:::call _ENABLED() semaphores back at 0 (the kernel counts
#    them down as it unregisters each uprobe: a uprobe_multi link's
#    release, or the last perf event of a uprobe event), after exit()
#    in a clause, and after SIGINT;
#  - no process holds a uprobe_multi link on this test's files (their
#    /proc fdinfo), and tracefs's uprobe_events names none of them,
#    after a -c run that exit() ended with the command alive, and one
#    on uprobe events (DTRACE_SITE_LINKS=0: the events are deleted only
#    once every perf event on them is closed);
#  - after a -c run whose command exited, no process but a
#    dtrace-closer holds such a link at once, and none does a few
#    seconds later: the links of a process that exited, which nothing
#    can hit, are closed by dtrace's closer, which outlives dtrace by
#    their grace periods (fdclose.c's close_after()), and never by
#    another process; with DTRACE_CLOSER=0, by dtrace's threads,
#    nothing at once; and the closer, caught while a run goes on (its
#    command's threads exited), holds nothing of dtrace's but its
#    socket, in its own session, in /;
#  - after the -p runs, no link holds the process's ld.so (dlhold.c's
#    hold at its dlopen()s, closed in the sites' batch once every
#    thread is detached: fdclose.c's close_with_next()) and a dlopen()
#    of the process goes on, unheld; while traced, that link is seen;
#  - while a run traces, the same reads do see its links or events, so
#    the checks can fail: a build whose close_many() handed its closes
#    to a child that closed them 0.4 s later failed 12 of 23.  (One
#    that skipped close_wait() before deleting the uprobe events still
#    passed: the backend's own closes, after, had taken a grace period
#    and the exited process's closes were done by then.)
# About 13 s (17 s loaded).  Needs root, BPF and tracefs; the links from
# Linux 6.12.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace

# held [COMM]: descriptors of uprobe_multi links on a file of this
# test's directory, in any process (but those named COMM), and uprobe
# events on one
held() {
	echo "$(grep -ls "^path:[[:space:]]*$tmp/" /proc/[0-9]*/fdinfo/* \
		2>/dev/null | while read -r f; do
			p=${f%/fdinfo/*}
			[ -n "${1:-}" ] &&
				[ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] &&
				continue
			echo "$f"
		done | wc -l) $(grep -c "$tmp/" "$tfs/uprobe_events")"
}

# nothing WHAT: nothing held, read at once
nothing() {
	expect_eq "$1: nothing left attached (links, uprobe events)" "0 0" \
		"$(held)"
}

# closed WHAT: nothing held at once but by a dtrace-closer, and nothing
# at all within 10 s
closed() {
	expect_eq "$1: nothing left attached but the closer's" "0 0" \
		"$(held dtrace-closer)"
	wait_until 100 nothing_yet ||
		fail "$1: links left 10 s after dtrace: $(held)"
}
nothing_yet() {
	[ "$(held)" = "0 0" ]
}

links=0
set -- $(uname -r | tr '.-' '  ')
if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 12 ]; }; then
	links=1
fi

# -c, the command exits: its links closed by the closer (or dtrace's
# threads, DTRACE_CLOSER=0), its events (DTRACE_SITE_LINKS=0) by
# dtrace's threads as the run goes on
for k in "1 1" "0 1" "1 0"; do
	set -- $k
	w="-c, command exits (DTRACE_SITE_LINKS=$1 DTRACE_CLOSER=$2)"
	DTRACE_SITE_LINKS=$1 DTRACE_CLOSER=$2 timeout -s KILL 60 "$DTRACE" \
		-q -n 'tr$target:::tick { @ = count(); }
		    trlib$target:::call { @c = count(); }' \
		-c "./trprog 'tick 12' 'lib 3'" >out.txt 2>err.txt
	expect_eq "$w: status" 0 "$?"
	if [ "$1$2" = 11 ]; then
		closed "$w"
	else
		nothing "$w"
	fi
	expect_eq "$w: output" "ok tick|ok lib|12|3" \
		"$(awk 'NF { $1 = $1; print }' out.txt | paste -sd'|')"
done

# -c, exit() with the command alive; and again on uprobe events
for k in 1 0; do
	w="-c, exit() (DTRACE_SITE_LINKS=$k)"
	DTRACE_SITE_LINKS=$k timeout -s KILL 60 "$DTRACE" -q \
		-n 'tr$target:::tick { @ = count(); }
		    tr$target:::tick /arg0 == 5/ { exit(0); }' \
		-c "./trprog 'tick 12' 'sleep 20000'" >out.txt 2>err.txt
	expect_eq "$w: status" 0 "$?"
	nothing "$w"
	expect_eq "$w: output" "ok tick|6" \
		"$(awk 'NF { $1 = $1; print }' out.txt | paste -sd'|')"
done

# the reads see a run's links (or its events) while it traces
for k in 1 0; do
	w="while tracing (DTRACE_SITE_LINKS=$k)"
	rm -f out.txt
	DTRACE_SITE_LINKS=$k timeout -s KILL 60 "$DTRACE" -q \
		-n 'tr$target:::tick { @ = count(); }' \
		-c "./trprog 'tick 1' 'sleep 2000'" >out.txt 2>err.txt &
	dp=$!
	bg_pids="$bg_pids $dp"
	if [ "$k" = 1 ] && [ "$links" = 1 ]; then
		want='[1-9]* 0'
	else
		want='0 [1-9]*'
	fi
	wait_until 100 grep -q "^ok tick" out.txt
	seen=$(held)
	case $seen in
	$want) pass ;;
	*) fail "$w: links and uprobe events seen: '$seen', wanted '$want'" ;;
	esac
	wait "$dp"
	if [ "$k" = 1 ]; then
		closed "$w, after"
	else
		nothing "$w, after"
	fi
done

# The closer, seen while the run goes on: a -c command's threads exit
# before it does (DTRACE_UPROBE_MULTI=0: dlhold.c's per-thread events,
# each thread's closed by the closer at its exit), so dtrace's child
# dtrace-closer is there; it holds nothing of dtrace's but its socket
# (stdin, stdout and stderr /dev/null: not this shell's out.txt nor a
# pipe of its caller), in a session of its own, in /.  The command
# sleeps 3 s after its threads, so the closer is caught while dtrace
# runs, also under load (the sanitizers' build).
if [ "$links" = 1 ]; then
	rm -f out.txt
	DTRACE_UPROBE_MULTI=0 timeout -s KILL 60 "$DTRACE" -q \
		-n 'tr$target:::tick { @ = count(); }' \
		-c "./trprog 'threads 4 2' 'sleep 3000'" >out.txt 2>err.txt &
	dp=$!
	bg_pids="$bg_pids $dp"
	cl=
	wait_until 100 grep -q "^ok threads" out.txt
	dd=$(pgrep -P "$dp" -x dtrace | head -n 1) # timeout's child
	wait_until 25 sh -c "pgrep -P '${dd:-0}' -x dtrace-closer >/dev/null"
	cl=$(pgrep -P "${dd:-0}" -x dtrace-closer | head -n 1)
	if [ -z "$cl" ]; then
		fail "closer: no dtrace-closer child of dtrace while it runs"
	else
		expect_eq "closer: stdin, stdout, stderr" \
			"/dev/null /dev/null /dev/null" \
			"$(readlink "/proc/$cl/fd/0" "/proc/$cl/fd/1" \
				"/proc/$cl/fd/2" | paste -sd' ')"
		expect_eq "closer: nothing of dtrace's but its socket" "" \
			"$(for f in /proc/"$cl"/fd/*; do
				case ${f##*/} in 0|1|2) continue ;; esac
				readlink "$f"
			done | grep -v -e '^socket:' -e '^anon_inode:')"
		expect_eq "closer: its directory" / "$(readlink "/proc/$cl/cwd")"
		expect_eq "closer: a session of its own" "$cl" \
			"$(ps -o sid= -p "$cl" | tr -d ' ')"
	fi
	wait "$dp"
	expect_eq "closer: status" 0 "$?"
	expect_eq "closer: output" "threads 8|ok threads|ok sleep|8" \
		"$(awk 'NF { $1 = $1; print }' out.txt | paste -sd'|')"
	closed "closer's run"
fi

# ldso PID: uprobe_multi links on process PID's ld.so (dlhold.c's hold
# at its dlopen()s), in any process
ldso() {
	grep -ls "^pid:[[:space:]]*$1\$" $(grep -ls \
		'^path:[[:space:]]*.*/ld-linux[^/]*$' /proc/[0-9]*/fdinfo/* \
		2>/dev/null) /dev/null 2>/dev/null | grep -vc '^/dev/null$'
}

# -p: the process outlives dtrace; its semaphores read at once
rm -f in
mkfifo in || fail "mkfifo"
./trprog <in >>tout.txt 2>&1 & # appended to: truncated as it runs
tp=$!
bg_pids="$bg_pids $tp"
exec 3>in
trap 'exec 3>&-; for p in $bg_pids; do kill -9 $p 2>/dev/null; done;
	cleanup' EXIT
# ask LINE WANT: send LINE, wait until tout.txt has a line WANT
ask() {
	echo "$1" >&3
	wait_until 100 grep -q "^$2" tout.txt ||
		fail "trprog did not answer '$1'"
}
ask enabled "enabled 0 0"
expect_eq "-p, before: semaphores" "enabled 0 0 -1" \
	"$(grep '^enabled' tout.txt)"
for how in exit sigint; do
	: >tout.txt
	case $how in
	exit) s='tr$target:::tick /arg0 == 2/ { exit(0); }' ;;
	sigint) s='' ;;
	esac
	timeout -s KILL 60 "$DTRACE" -q -n 'tr$target:::tick { @ = count(); }
	    trlib$target:::call { @c = count(); }'"$s" -p "$tp" \
		>out.txt 2>err.txt &
	dp=$!
	ask "wait tick" "ok wait"
	ask "wait lib" "ok wait"
	ask enabled "enabled 1 1"
	[ "$links" = 1 ] && expect_eq "-p, $how: held at its dlopen()s" 1 \
		"$(ldso "$tp")"
	case $how in
	exit) ask "tick 5" "ok tick" ;;
	sigint) ask "lib 2" "ok lib"
		kill -INT "$dp" ;;
	esac
	wait "$dp"
	expect_eq "-p, $how: status" 0 "$?"
	: >tout.txt
	ask enabled "enabled "
	expect_eq "-p, $how: semaphores at once after dtrace" \
		"enabled 0 0 -1" "$(grep '^enabled' tout.txt)"
	nothing "-p, $how"
	# the hold's link, closed with the sites' links after every thread
	# was detached (dlhold.c's dh_release()): gone, and a dlopen() now
	# neither stops the process nor signals it
	expect_eq "-p, $how: no hold on its ld.so left" 0 "$(ldso "$tp")"
	ask "open libm.so.6" "ok open"
done
echo quit >&3
wait "$tp"

finish
