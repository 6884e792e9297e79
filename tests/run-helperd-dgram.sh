#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-helperd-dgram.sh: registration by datagram (helper-driver/hd_sock.c),
# by programs of an unprivileged user (uid 65534 under setpriv) and
# against hostile ones.
#
# A real daemon serves $tmp/dev/helper (FUSE) and $tmp/run/helper.sock,
# its registry in $tmp/state.  Checked:
#  - the socket is 0666 in a directory of root's, and a program whose
#    device path leads nowhere registers through the socket alone;
#  - order: 300 dlopen+dlclose cycles of a probed plugin leave no
#    registration behind (and one more dlopen left open leaves exactly
#    one), also while the daemon is stopped, so that the socket fills and
#    ADDs and REMOVEs go to the device instead (REMOVEDOF's barrier);
#    a fork child of a process registered by datagram is registered too,
#    also when the daemon is stopped (strace) between reading the
#    kernel's process events and the datagrams that came after them;
#  - credentials: SCM_CREDENTIALS naming another pid or uid is refused
#    by the kernel (EPERM); a message claiming another process's thread
#    neither registers nor removes anything of that process's;
#    datagrams that are not helper messages are dropped;
#  - a flood of 200,000 ADDs from nobody: the daemon paces it (the
#    sender finds the socket full) while root's program still registers;
#  - SIGTERM removes the socket.
# Needs root (allow_other, setpriv), /dev/fuse and setpriv; strace for
# the stopped daemon (that check is left out without it).

# pass never fails, so "check && pass || fail" is if-then-else here;
# functions run through wait_until look unreachable to shellcheck:
# shellcheck disable=SC2015,SC2317

. "$top_srcdir/tests/lib.sh"

: "${DOFCLIENT:=${top_builddir:-}/tests/tools/dofclient}"
: "${DGRAMCLIENT:=${top_builddir:-}/tests/tools/dgramclient}"

helperd_setup timeout mountpoint setpriv
[ -n "${DTRACE_DRTI:-}" ] && [ -f "$DTRACE_DRTI" ] ||
	skip "DTRACE_DRTI does not name drti.o"
for t in "$DOFCLIENT" "$DGRAMCLIENT"; do
	if [ ! -x "$t" ]; then
		fail "$t is not built"
		finish
	fi
done

sock=$tmp/run/helper.sock
DTRACE_DOF_INIT_SOCKNAME=$sock
export DTRACE_DOF_INIT_SOCKNAME

. "$top_srcdir/tests/helperd-lib.sh"
build_helperd_progs
if ! $CC -O2 -o cycle "$helperd_data/cycle.c" -ldl; then
	fail "building cycle"
	finish
fi
chmod 755 cycle

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# sync: every registration sent so far is read, checked and written
sync_reg() {
	timeout 20 "$DOFCLIENT" -d "$tmp/dev/helper" sync >/dev/null 2>&1
}

# start_cycle NAME COMMAND...: COMMAND in the background, its stdin a
# fifo held open by a sleep until stop_cycle NAME; its "ready" line in
# NAME.out
start_cycle() {
	sc_name=$1
	shift
	mkfifo "$sc_name.in"
	"$@" <"$sc_name.in" >"$sc_name.out" 2>"$sc_name.err" &
	bg_pids="$bg_pids $!"
	sleep 600 >"$sc_name.in" &
	echo $! >"$sc_name.hold"
	bg_pids="$bg_pids $!"
}

# ready NAME: wait for NAME's "ready PID..." line; its pid in $rpid,
# its child's (if any) in $rchild
ready() {
	if ! wait_until 600 grep -q '^ready' "$1.out"; then
		fail "$1 never got ready: $(cat "$1.err")"
		rpid=none
		rchild=none
		return 1
	fi
	rpid=$(sed -n 's/^ready \([0-9]*\).*/\1/p' "$1.out")
	rchild=$(sed -n 's/^ready [0-9]* \([0-9]*\)$/\1/p' "$1.out")
	return 0
}

stop_cycle() {
	kill "$(cat "$1.hold")" 2>/dev/null
}

# dgram ARGS...: dgramclient as nobody; its line without its pid in $out
dgram() {
	dg_line=$(nobody "$DGRAMCLIENT" "$sock" "$@")
	out=$(echo "$dg_line" | sed 's/ pid=[0-9]*//')
}

helperd_start -v --socket "$sock" || finish

# ---------------------------------------------------------------------
# The socket, and registration through it alone

expect_eq "socket mode" "socket 666" "$(stat -c '%F %a' "$sock")"
expect_eq "socket directory owner and mode" "0 755" \
	"$(stat -c '%u %a' "$tmp/run")"

start_cycle only nobody env DTRACE_DOF_INIT_DEVNAME="$tmp/no/helper" \
	./cycle ./plug.so 0 keep
if ready only; then
	sync_reg
	expect_eq "nobody's program registers through the socket alone" 1 \
		"$(regs "$rpid")"
	expect_grep "its registration is under its pid" \
		"pid $rpid (cycle): registered plug.so" "$log"
fi
stop_cycle only

# ---------------------------------------------------------------------
# Order: a REMOVE never leaves its ADD behind

start_cycle keep nobody ./cycle ./plug.so 300 keep
if ready keep; then
	sync_reg
	expect_eq "300 cycles and one dlopen kept: one registration" 1 \
		"$(regs "$rpid")"
fi
stop_cycle keep

start_cycle closed nobody ./cycle ./plug.so 300 close
if ready closed; then
	sync_reg
	expect_eq "300 cycles, all closed: no registration left" 0 \
		"$(regs "$rpid")"
fi
stop_cycle closed

# The daemon stopped: the socket fills (its queue holds a few datagrams),
# later ADDs go to the device and wait there, and a REMOVE of a datagram
# ADD that finds the socket full goes to the device as REMOVEDOF, which
# must not overtake its ADD still waiting in the socket.
kill -STOP "$hd_pid"
start_cycle stopped nobody ./cycle ./plug.so 40 close
sleep 1
kill -CONT "$hd_pid"
if ready stopped; then
	sync_reg
	expect_eq "40 cycles with the daemon stopped: no registration left" \
		0 "$(regs "$rpid")"
fi
stop_cycle stopped
kill -STOP "$hd_pid"
start_cycle stoppedk nobody ./cycle ./plug.so 40 keep
sleep 1
kill -CONT "$hd_pid"
if ready stoppedk; then
	sync_reg
	expect_eq "40 cycles with the daemon stopped, one kept: one" 1 \
		"$(regs "$rpid")"
fi
stop_cycle stoppedk

# A fork child of a process registered by datagram sends its own ADD,
# right after its parent's (which may still wait in the socket); both
# are sent before "ready" (cycle.c), so the sync reads them.
start_cycle forked nobody ./cycle ./plug.so 0 keep fork
if ready forked; then
	sync_reg
	expect_eq "fork child of a datagram registration: registered" 1 \
		"$(regs "$rchild")"
	expect_eq "... and its parent still" 1 "$(regs "$rpid")"
fi
stop_cycle forked

# The same with the daemon stopped in the middle of reading the socket,
# while the program is started (fork, exec), registers and forks: strace
# stops it right after a recvmsg that returned a datagram (a junk one is
# sent for that), so it read the kernel's process events before all of
# those and reads the ADDs after them.  It used to handle a batch before
# the events that came meanwhile: the program's fork and exec, and its
# child's fork, each applied after the ADD it preceded, dropped both
# registrations as the pids' former processes' (hd_sock.c, "Order").

# daemon_gap: 0 with the daemon stopped right after a recvmsg that
# returned a datagram, strace ($st_pid) still attached; 1 if strace
# cannot trace it here (said why), 2 if it never stopped so
daemon_gap() {
	dg_try=0
	while [ $dg_try -lt 5 ]; do
		dg_try=$((dg_try + 1))
		rm -f gap.strace strace.err
		strace -o gap.strace -e trace=recvmsg \
			-e inject=recvmsg:signal=SIGSTOP:when=1 -p "$hd_pid" \
			2>strace.err &
		st_pid=$!
		bg_pids="$bg_pids $st_pid"
		if ! wait_until 100 grep -q attached strace.err 2>/dev/null
		then
			echo "# strace cannot stop the daemon here:" \
				"$(cat strace.err)" >&2
			gap_end
			return 1
		fi
		dgram junk
		wait_until 100 grep -q "stopped by SIGSTOP" gap.strace \
			2>/dev/null
		grep -q "stopped by SIGSTOP" gap.strace &&
			grep -q '^recvmsg(.*) = [0-9][0-9]*$' gap.strace &&
			return 0
		# it stopped after a read that found the socket empty (a poll
		# of its own, due when strace attached): again, once that is over
		echo "# strace did not stop the daemon after a datagram:" \
			"$(cat gap.strace); again" >&2
		gap_end
		sync_reg
		sleep 0.2
	done
	return 2
}

# gap_end: the daemon goes on, strace detached
gap_end() {
	kill -CONT "$hd_pid"
	kill -INT "$st_pid" 2>/dev/null
	wait "$st_pid" 2>/dev/null
	forget_pid "$st_pid"
}

if [ -n "${HELPERD_WRAPPER:-}" ] || ! command -v strace >/dev/null 2>&1
then
	echo "# the daemon stopped mid-batch: not tried (no strace, or" \
		"a wrapper)" >&2
else
	daemon_gap
	case $? in
	0)
		start_cycle gap nobody ./cycle ./plug.so 0 keep fork
		ready gap
		gap_end
		sync_reg
		expect_eq "registered while the daemon stopped mid-batch" 1 \
			"$(regs "$rpid")"
		expect_eq "... and its fork child" 1 "$(regs "$rchild")"
		stop_cycle gap
		;;
	2)
		fail "strace never stopped the daemon after a datagram:" \
			"$(cat gap.strace strace.err)"
		;;
	esac
fi

# ---------------------------------------------------------------------
# Credentials

start_cycle victim ./cycle ./plug.so 0 keep
ready victim
v_pid=$rpid
sync_reg
if [ -f "$reg/$v_pid" ]; then
	cp "$reg/$v_pid" victim.reg
	pass
else
	fail "root's victim did not register"
	: >victim.reg
fi
v_dof=$(awk '$1 == "reg" { print $4; exit }' victim.reg | sed 's/^0x//')

dgram forge-pid "$v_pid"
expect_eq "SCM_CREDENTIALS with root's pid" \
	"forge-pid: sent=0 eagain=0 errno=EPERM" "$out"
dgram forge-uid 0
expect_eq "SCM_CREDENTIALS with uid 0" \
	"forge-uid: sent=0 eagain=0 errno=EPERM" "$out"

# Claiming the victim's thread: the DOF address is read from the sender,
# the REMOVE applies to the sender's registrations.
dgram as-thread "$v_pid" remove "$v_dof"
# (it lingers, so that its pid is still its own when the daemon reads)
DGRAMCLIENT_LINGER=1 nobody "$DGRAMCLIENT" "$sock" as-thread "$v_pid" add \
	"$v_dof" >attacker.out &
bg_pids="$bg_pids $!"
wait_until 100 grep -q pid= attacker.out
a_pid=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' attacker.out)
sync_reg
expect_file_eq "root's registration untouched by nobody's messages" \
	victim.reg "$reg/$v_pid"
no_file "$a_pid" && pass ||
	fail "a registry file for the attacker $a_pid"
wait_until 100 grep -q "pid $a_pid (.*DOF refused" "$log"
expect_grep "the attacker's ADD refused under its own pid" \
	"pid $a_pid (.*DOF refused" "$log"

dgram junk
sync_reg
expect_grep "datagrams that are not helper messages are dropped" \
	"datagram of .* bytes that is not a helper message" "$log"

# ---------------------------------------------------------------------
# A flood

nobody "$DGRAMCLIENT" "$sock" flood 200000 >flood.out 2>&1 &
fl_pid=$!
bg_pids="$bg_pids $fl_pid"
start_cycle during ./cycle ./plug.so 20 keep
if ready during; then
	sync_reg
	expect_eq "root registers during nobody's flood" 1 "$(regs "$rpid")"
fi
stop_cycle during
wait "$fl_pid"
fl=$(cat flood.out)
echo "# $fl" >&2
case $fl in
*"eagain=0 "*) fail "the flood was never paced: $fl" ;;
"flood: pid="*) pass ;;
*) fail "the flood client: $fl" ;;
esac
kill -0 "$hd_pid" 2>/dev/null && sync_reg
expect_eq "the daemon serves after the flood" 0 "$?"
expect_file_eq "root's registration untouched by the flood" \
	victim.reg "$reg/$v_pid"
stop_cycle victim

# ---------------------------------------------------------------------
# Stop

kill -TERM "$hd_pid"
wait "$hd_pid"
expect_eq "the daemon exits 0" 0 "$?"
forget_pid "$hd_pid"
[ ! -e "$sock" ] && pass || fail "the socket outlived the daemon"
finish
