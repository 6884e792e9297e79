#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-trace-dlopen-p.sh: a library a -p process (or a -c command)
# dlopen()s while traced is armed before any of its code runs
# (consumer/dlhold.c).
#
# tests/data/trace/dlholdprog.c, once traced, dlopen()s a library whose
# constructor fires dlh:::ctor 5 times and whose dlh_call(7), called as
# soon as dlopen() returns, fires dlh:::call 7 times: the counts are
# exact, for the library built with dtrace -h/-G (DOF) and with
# <sys/sdt.h> alone (notes), under -p and under -c (the command loads it
# as soon as main runs).  Before, the maps were read every 100 ms and
# every one of these hits was missed.  Then the safety of the hold:
#  - dtrace stopped (SIGSTOP), the process dlopen()s and stops at ld.so's
#    RT_CONSISTENT (a tracing stop), dtrace is killed with SIGKILL: the
#    process goes on and exits 0 (nothing of ours left in it: no
#    breakpoint, no signal that does anything);
#  - a process that handles SIGURG is not held (dtrace says its first
#    hits can be missed) and never gets a SIGURG it did not ask for;
#  - a thread created while traced (its own uprobe event) is held too;
#  - its signals pass through dtrace, its tracer: SIGSTOP and SIGCONT
#    (it stops, goes on, and loads as before), a SIGURG sent to it (its
#    handler runs).
# The counts are checked under both backends that hold (the bpf one, and
# the uprobe events one, whose processes dlhold.c holds with its own
# program all the same).  Last, -x activation=user, which holds a process
# without drti.o of its own (no arena for the library's drti.o to ask
# through) the same way: every hit.
# The breakpoint is one uprobe_multi BPF link per process from Linux
# 6.12 on (where its pid filters by thread group): dtrace
# holds one while a -p process is held, and none under
# DTRACE_UPROBE_MULTI=0, which takes the per-thread perf events of
# kernels without it; the thread created while traced and the -c command
# are then held that way too.  A process whose leader exits before its
# threads (the link's filter reads the leader's mm) changes to the
# per-thread events: no link left.  (Its hits are not compared: the
# library is armed from the process's maps, read through the leader,
# whose maps are empty once it is a zombie; before this change too.)
# Needs root, BPF and uprobes (the bpf backend's requirements).

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/trace

[ "$(id -u)" -eq 0 ] || skip "not root: uprobes and BPF need root"
[ "${HAVE_BPF:-no}" = yes ] || skip "dtrace built without the bpf backend"
require_G

sdt=
for h in "$top_srcdir/sdk/include" /usr/include/x86_64-linux-gnu /usr/include; do
	[ -f "$h/sys/sdt.h" ] && sdt=$h && break
done

"$DTRACE" -h -s "$data/dlhold.d" -o dlhold.h &&
	$CC -O2 -fPIC -I. -c "$data/dlholdlib.c" -o dlholdlib.o &&
	"$DTRACE" -G -s "$data/dlhold.d" dlholdlib.o -o dlholdlib-probes.o &&
	$CC -shared -o libdlhg.so dlholdlib.o dlholdlib-probes.o &&
	$CC -O2 -fPIC -DDLH_SDT -I"$sdt" -shared "$data/dlholdlib.c" \
		-o libdlhs.so &&
	$CC -O2 "$data/dlholdprog.c" -o dlholdprog -ldl -lpthread
expect_eq "build" 0 "$?"
[ "$failures" -eq 0 ] || finish

bg_pids=
trap 'for p in $bg_pids; do kill -KILL "$p" 2>/dev/null; done; cleanup' EXIT

# start_prog: dlholdprog in the background, reading fifo; $prog its pid
start_prog() {
	rm -f fifo
	mkfifo fifo
	./dlholdprog <fifo >prog.out 2>&1 &
	prog=$!
	bg_pids="$bg_pids $prog"
	exec 3>fifo
}

# start_dtrace: dtrace -p $prog in the background, counting the hits;
# returns once BEGIN has run (every thread held from there on)
start_dtrace() {
	rm -f out.txt err.txt
	"$DTRACE" -q -Z -o out.txt -p "$prog" \
		-n 'BEGIN { printf("ready\n"); }' \
		-n 'dlh$target:::ctor, dlh$target:::call { @[probename] = count(); }' \
		-n 'END { printa("%s %@d\n", @); }' 2>err.txt &
	dt=$!
	bg_pids="$bg_pids $dt"
	wait_until 300 grep -qs ready out.txt
}

[ -z "$sdt" ] &&
	echo "# no <sys/sdt.h>: the notes-only library is skipped"
printf 'ready\nctor 5\ncall 7\n\n' >expected.txt
printf 'ctor 5\ncall 7\n\n' >expected-c.txt
for be in bpf uprobe; do
	DTRACE_BACKEND=$be
	export DTRACE_BACKEND
	for lib in libdlhg.so libdlhs.so; do
		[ "$lib" = libdlhs.so ] && [ -z "$sdt" ] && continue
		start_prog
		start_dtrace
		echo "$PWD/$lib" >&3
		exec 3>&-
		wait "$prog"
		expect_eq "$be, $lib: the program's status" 0 "$?"
		wait "$dt"
		expect_eq "$be, $lib: dtrace's status" 0 "$?"
		expect_file_eq "$be, $lib: every hit, the constructor's too" \
			expected.txt out.txt
		if [ -s err.txt ] && grep -v "has exited" err.txt >/dev/null
		then
			fail "$be, $lib: dtrace said something:"
			sed 's/^/    | /' err.txt >&2
		fi
	done

	# a -c command, handed over from its start-up tracer: it
	# dlopen()s as soon as main runs
	for lib in libdlhg.so libdlhs.so; do
		[ "$lib" = libdlhs.so ] && [ -z "$sdt" ] && continue
		echo "$PWD/$lib" >path.txt
		rm -f out.txt # -o appends
		timeout -s KILL 120 "$DTRACE" -q -Z -o out.txt -c ./dlholdprog \
			-n 'dlh$target:::ctor, dlh$target:::call { @[probename] = count(); }' \
			-n 'END { printa("%s %@d\n", @); }' <path.txt 2>err.txt
		expect_eq "$be, -c $lib: dtrace's status" 0 "$?"
		expect_file_eq "$be, -c $lib: every hit, the constructor's too" \
			expected-c.txt out.txt
	done
done
unset DTRACE_BACKEND

# multi_links: how many uprobe_multi links dtrace ($dt) holds
multi_links() {
	cat /proc/"$dt"/fdinfo/* 2>/dev/null |
		grep -c '^link_type:[[:space:]]*uprobe_multi$'
}
no_links() { [ "$(multi_links)" = 0 ]; }
has_multi=no
case $(uname -r) in
[0-5].* | 6.[0-9] | 6.[0-9][.-]* | 6.1[01] | 6.1[01][.-]*) ;;
*) has_multi=yes ;;
esac

# a thread the process creates while traced loads it; with the
# uprobe_multi link (the process's one, checked held), and with the
# per-thread perf events (none held)
DLH_LATE=1
export DLH_LATE
for multi in 1 0; do
	[ "$multi" = 1 ] && [ "$has_multi" = no ] && continue
	export DTRACE_UPROBE_MULTI=$multi
	start_prog
	start_dtrace
	if [ "$multi" = 1 ]; then
		expect_eq "the process held by one uprobe_multi link" 1 \
			"$(multi_links)"
	else
		expect_eq "DTRACE_UPROBE_MULTI=0: no uprobe_multi link" 0 \
			"$(multi_links)"
	fi
	echo start >&3
	echo "$PWD/libdlhg.so" >&3
	exec 3>&-
	wait "$prog"
	expect_eq "a thread created while traced ($multi): the program's status" \
		0 "$?"
	wait "$dt"
	expect_file_eq "a thread created while traced ($multi): every hit" \
		expected.txt out.txt
done
unset DLH_LATE DTRACE_UPROBE_MULTI

# the leader gone (pthread_exit()) once the loading thread is started
if [ "$has_multi" = yes ]; then
	DLH_LATE=1 DLH_LEADER_EXIT=1
	export DLH_LATE DLH_LEADER_EXIT
	start_prog
	start_dtrace
	expect_eq "leader to exit: held by the link first" 1 "$(multi_links)"
	echo start >&3
	wait_until 300 no_links
	expect_eq "leader exited: the link replaced by per-thread events" 0 \
		"$(multi_links)"
	echo "$PWD/libdlhg.so" >&3
	exec 3>&-
	wait "$prog"
	expect_eq "leader exited: the program's status" 0 "$?"
	wait "$dt"
	expect_eq "leader exited: dtrace's status" 0 "$?"
	unset DLH_LATE DLH_LEADER_EXIT
fi

# a -c command, handed over from its start-up tracer: it dlopen()s as
# soon as main runs (the last also with the per-thread perf events)
for lib in libdlhg.so libdlhs.so libdlhg.so:0; do
	multi=${lib#*:}
	lib=${lib%:*}
	[ "$multi" = "$lib" ] && multi=1
	[ "$lib" = libdlhs.so ] && [ -z "$sdt" ] && continue
	echo "$PWD/$lib" >path.txt
	rm -f out.txt # -o appends
	DTRACE_UPROBE_MULTI=$multi timeout -s KILL 120 "$DTRACE" -q -Z \
		-o out.txt -c ./dlholdprog \
		-n 'dlh$target:::ctor, dlh$target:::call { @[probename] = count(); }' \
		-n 'END { printa("%s %@d\n", @); }' <path.txt 2>err.txt
	expect_eq "-c $lib ($multi): dtrace's status" 0 "$?"
	printf 'ctor 5\ncall 7\n\n' >expected-c.txt
	expect_file_eq "-c $lib ($multi): every hit, the constructor's too" \
		expected-c.txt out.txt
done

# ---------------------------------------------------------------------
# dtrace killed while the thread is stopped at RT_CONSISTENT

# held: a thread of $prog is in a tracing stop
held() {
	grep -q 'tracing stop' /proc/"$prog"/task/*/status 2>/dev/null
}

start_prog
start_dtrace
kill -STOP "$dt"
echo "$PWD/libdlhs.so" >&3
exec 3>&-
wait_until 300 held
expect_eq "SIGKILL: the thread stops in dlopen()" 0 "$?"
kill -KILL "$dt"
wait "$dt" 2>/dev/null
wait "$prog"
expect_eq "SIGKILL: the program goes on and exits 0" 0 "$?"

# ---------------------------------------------------------------------
# the process's signals pass through dtrace, its tracer: a job-control
# stop and continue (then it loads as before), a SIGURG it handles

# stopped: $prog is in a stop (the group-stop dtrace keeps)
stopped() {
	grep -Eq '^State:.*(T|t) \((stopped|tracing stop)\)' \
		/proc/"$prog"/status 2>/dev/null
}

start_prog
start_dtrace
kill -STOP "$prog"
wait_until 300 stopped
expect_eq "SIGSTOP: the process stops" 0 "$?"
kill -CONT "$prog"
echo "$PWD/libdlhg.so" >&3
exec 3>&-
wait "$prog"
expect_eq "SIGSTOP, SIGCONT: the program goes on and exits 0" 0 "$?"
wait "$dt"
expect_file_eq "SIGSTOP, SIGCONT: every hit after" expected.txt out.txt

DLH_URG=1
export DLH_URG
start_prog
start_dtrace
kill -URG "$prog"
wait "$prog"
expect_eq "a SIGURG sent to the process reaches its handler" 3 "$?"
exec 3>&-
wait "$dt"

# ---------------------------------------------------------------------
# a thread that handles SIGURG is not held, and gets no SIGURG

start_prog
start_dtrace
echo "$PWD/libdlhg.so" >&3
exec 3>&-
wait "$prog"
expect_eq "SIGURG handled: the program exits 0" 0 "$?"
wait "$dt"
expect_grep "SIGURG handled: dtrace says the dlopen() was not held" \
	"could not be held" err.txt
unset DLH_URG

# ---------------------------------------------------------------------
# -x activation=user: a library's drti.o asks to be armed through the
# arena of a process that carries drti.o's recorder
# (tests/run-activation-user.sh); this program has no drti.o of its own,
# so no arena, and dtrace holds it as the kernel path does (dlhold.c,
# from inproc_exec.c's ip_exec_hold()): the library is armed at its
# dlopen() stop, before its constructor runs, every hit counted, nothing
# said (before: armed at the next read of the maps, its hits missed)

if [ "$(uname -m)" = x86_64 ]; then
	start_prog
	rm -f out.txt err.txt
	"$DTRACE" -q -Z -x activation=user -o out.txt -p "$prog" 3>&- \
		-n 'BEGIN { printf("ready\n"); }' \
		-n 'dlh$target:::ctor, dlh$target:::call { @[probename] = count(); }' \
		-n 'END { printa("%s %@d\n", @); }' 2>err.txt &
	dt=$!
	bg_pids="$bg_pids $dt"
	wait_until 300 grep -qs ready out.txt
	echo "$PWD/libdlhg.so" >&3
	exec 3>&-
	wait "$prog"
	expect_eq "activation=user: the program exits 0" 0 "$?"
	wait "$dt"
	expect_eq "activation=user: dtrace's status" 0 "$?"
	expect_file_eq "activation=user: every hit, the constructor's too" \
		expected.txt out.txt
	expect_eq "activation=user: nothing said" "" \
		"$(grep -v "has exited" err.txt)"
fi

finish
