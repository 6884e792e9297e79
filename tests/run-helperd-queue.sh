#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-helperd-queue.sh: dtrace-helperd answers ADDDOF first and checks
# the DOF after (helper-driver/hd_queue.c), and nobody can tell it did
# except by asking.
#
# The daemon runs with --settle-ms=600000: a registration is checked
# only when something asks for it, never on its own during the test, so
# every step below is decided by what the test does, not by timing.
# Covered:
#  - a program's registrations are answered and not yet in the registry;
#    `dtrace -l` lists them all the same (its SYNC has them checked and
#    written first), for a plugin right after dlopen() returns too;
#  - dlopen+dlclose before anyone asked: the REMOVE withdraws the
#    unchecked registration ("before it was checked"), nothing read;
#  - a bad blob is answered with a generation; SYNC of it gives the
#    check's errno, the log names the refusal, REMOVE of it succeeds,
#    nothing is recorded;
#  - a user's first 16 unchecked registrations are answered at once, the
#    17th only once checked (its ADDDOF returns the check's errno);
#  - a fork child inherits its parent's unchecked registration: listed
#    under the child's pid once a reader asks;
#  - a process that exits before anyone asked leaves nothing;
#  - another user's registration and withdrawal complete while an
#    attacker's blob sits in the checker, which the test has stopped
#    (SIGSTOP): nobody waits for another's blob;
#  - SIGTERM: what was answered is checked and recorded before the daemon
#    goes; <statedir>/device names the device while it serves only.
# Needs root (allow_other, reading other processes, setpriv), /dev/fuse.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/helperd-lib.sh"

: "${DOFCLIENT:=${top_builddir:-}/tests/tools/dofclient}"

helperd_setup setpriv mountpoint
require_G
if [ ! -x "$DOFCLIENT" ]; then
	fail "DOFCLIENT ($DOFCLIENT) is not built"
	finish
fi

q_cleanup() {
	[ -n "${ck_pid:-}" ] && kill -CONT "$ck_pid" 2>/dev/null
	helperd_cleanup
}
trap q_cleanup EXIT

build_helperd_progs

# field NAME LINE: the value of NAME=VALUE in LINE
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# ctl_start NAME: ctl reading commands from FIFO NAME.in, answers in
# NAME.out; $ctl_pid
ctl_start() {
	rm -f "$1.in" "$1.out"
	mkfifo "$1.in"
	./ctl <"$1.in" >"$1.out" 2>&1 3>&- 4>&- &
	ctl_pid=$!
	bg_pids="$bg_pids $ctl_pid"
}

helperd_start -vv --no-scan --settle-ms=600000 --check-timeout=600000 ||
	finish
expect_eq "the state directory names the device" "$tmp/dev/helper" \
	"$(cat "$tmp/state/device")"

# ---------------------------------------------------------------------
# 1. Answered, not yet checked; a reader's SYNC has it checked first.

ctl_start a
exec 3>a.in
wait_until 50 answered a.out '^ready' || fail "ctl did not start"
a=$ctl_pid
no_file "$a" && pass || fail "ctl's registrations recorded before anyone asked"
listing -n "hdt$a:::" -n "hdlib$a:::" >l1.txt
cat >l1.exp <<EOF
 hdt$a ctl main command
 hdt$a ctl main start
 hdlib$a libhdl.so hdl_call call
EOF
sort l1.exp >l1.sorted
sort l1.txt | expect_file_eq "dtrace -l lists what was answered, not yet checked" \
	l1.sorted -
has_regs "$a" 2 && pass || fail "after dtrace -l: $(regs "$a") registrations recorded, not 2"

echo "open $tmp/plug.so" >&3
wait_until 50 answered a.out '^opened' || fail "dlopen failed: $(cat a.out)"
has_regs "$a" 2 && pass || fail "the plugin recorded before anyone asked"
expect_eq "dtrace -l right after dlopen() returns: the plugin's probe" \
	" hdplug$a plug.so plug_hello hello" "$(listing -n "hdplug$a:::")"
has_regs "$a" 3 && pass || fail "after dtrace -l: $(regs "$a") registrations, not 3"
echo close >&3
wait_until 50 answered a.out '^closed' || fail "dlclose failed"
has_regs "$a" 2 && pass || fail "dlclose: $(regs "$a") registrations, not 2"

# ---------------------------------------------------------------------
# 2. dlopen+dlclose before anyone asked: withdrawn unchecked.

n_checked=$(grep -c 'checking [0-9]* bytes of DOF' "$log")
: >a.out
echo "open $tmp/plug.so" >&3
wait_until 50 answered a.out '^opened' || fail "dlopen failed: $(cat a.out)"
echo close >&3
wait_until 50 answered a.out '^closed' || fail "dlclose failed"
expect_grep "the REMOVE withdrew it unchecked" \
	"pid $a (ctl): removed plug.so, generation [0-9]*, before it was checked" "$log"
expect_eq "nothing was checked for it" "$n_checked" \
	"$(grep -c 'checking [0-9]* bytes of DOF' "$log")"
has_regs "$a" 2 && pass || fail "after dlopen+dlclose: $(regs "$a") registrations, not 2"

# ---------------------------------------------------------------------
# 3. A bad blob: a generation first, the check's errno on SYNC.

"$DOFCLIENT" verdict argidx >v.out 2>&1
line=$(grep '^argidx: pid=' v.out)
vpid=$(field pid "$line")
case $(field answer "$line") in
[1-9]*) pass ;;
*) fail "a bad blob's ADDDOF was not answered with a generation: $line" ;;
esac
expect_eq "its verdict, removal, record" \
	"verdict=EINVAL remove=0 registry=absent" \
	"$(echo "$line" | sed 's/.* verdict=/verdict=/')"
expect_grep "the refusal is logged" \
	"pid $vpid (dofclient): module 'dofclient': DOF refused: .*argument map entry 2 is not below nargc" "$log"

# ---------------------------------------------------------------------
# 4. 16 unchecked answers per user; the 17th waits for its check.

DOFCLIENT_UID=65534 DOFCLIENT_NOSYNC=1 DOFCLIENT_FLOOD_N=17 "$DOFCLIENT" \
	attack flood >f.out 2>&1
expect_eq "17 bad blobs from one user: 16 answered at once, the 17th refused" \
	"n=17 einval=1 other=16 registry=absent" \
	"$(sed -n 's/^flood: pid=[0-9]* //p' f.out)"

# ---------------------------------------------------------------------
# 5. A fork child inherits what its parent has not had checked yet.

ctl_start b
exec 4>b.in
wait_until 50 answered b.out '^ready' || fail "ctl b did not start"
b=$ctl_pid
echo fork >&4
wait_until 50 answered b.out '^forked' || fail "ctl b did not fork"
child=$(sed -n 's/^forked //p' b.out)
bg_pids="$bg_pids $child"
no_file "$b" && pass || fail "ctl b recorded before anyone asked"
expect_eq "dtrace -l lists the fork child's inherited probes" \
	" hdt$child ctl main command
 hdt$child ctl main start" "$(listing -n "hdt$child:::" | sort)"
has_regs "$child" 2 && pass || fail "fork child: $(regs "$child") registrations, not 2"
kill -KILL "$child"

# ---------------------------------------------------------------------
# 6. Exit before anyone asked: nothing left.

echo quit >&4
exec 4>&-
wait_until 50 dead "$b" || fail "ctl b did not exit"
wait "$b" 2>/dev/null
forget_pid "$b"
"$DOFCLIENT" sync >/dev/null 2>&1
no_file "$b" && pass || fail "a process that exited unchecked left $reg/$b"

# ---------------------------------------------------------------------
# 7. An attacker's blob held in the checker, which the test stopped:
# another user registers and withdraws meanwhile.

ck_pid=$(cat "/proc/$hd_pid/task/$hd_pid/children" 2>/dev/null | tr ' ' '\n' |
	while read -r p; do
		[ -n "$p" ] && [ "$(cat "/proc/$p/comm")" = dtrace-helperd ] &&
			echo "$p"
	done | head -n 1)
if [ -z "$ck_pid" ]; then
	fail "no checker child of the daemon found"
else
	kill -STOP "$ck_pid"
	n_checking=$(grep -c 'checking [0-9]* bytes of DOF' "$log")
	mkfifo atk.in
	exec 5<>atk.in
	DOFCLIENT_UID=65534 "$DOFCLIENT" valid <atk.in >atk.out 2>&1 3>&- 4>&- 5>&- &
	atk=$!
	bg_pids="$bg_pids $atk"
	at_checker() {
		[ "$(grep -c 'checking [0-9]* bytes of DOF' "$log")" -gt "$n_checking" ]
	}
	wait_until 100 at_checker || fail "the attacker's blob never reached the checker"
	timeout 120 setpriv --reuid=65533 --regid=65533 --clear-groups env \
		DOFCLIENT_NOSYNC=1 "$DOFCLIENT" attack legit >legit.out 2>&1
	line=$(grep '^legit: pid=' legit.out)
	case $(field rc "$line") in
	[1-9]*) pass ;;
	*) fail "another user's ADDDOF while the checker holds a blob: $(cat legit.out)" ;;
	esac
	grep -q 'remove errno' legit.out &&
		fail "another user's REMOVE while the checker holds a blob: $(cat legit.out)" ||
		pass
	# all of that while the checker was stopped, the attacker waiting
	expect_eq "the checker was stopped throughout" T \
		"$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$ck_pid/status")"
	expect_eq "the attacker still waits for its verdict" "" "$(cat atk.out)"
	kill -CONT "$ck_pid"
	ck_pid=
	wait_until 100 answered atk.out '^valid: pid=' ||
		fail "the attacker's verdict never came"
	expect_grep "the attacker's blob, checked at last, is registered" \
		'^valid: pid=[0-9]* gen=[1-9]' atk.out
	exec 5>&-
	wait_until 100 dead "$atk" || fail "the attacker did not exit"
	wait "$atk" 2>/dev/null
	forget_pid "$atk"
fi

# ---------------------------------------------------------------------
# 8. SIGTERM: what was answered is recorded before the daemon goes.

echo "open $tmp/plug.so" >&3
wait_until 50 answered a.out '^opened' || fail "dlopen failed: $(cat a.out)"
has_regs "$a" 2 && pass || fail "the plugin recorded before anyone asked"
stop_pid "$hd_pid" TERM
expect_eq "daemon exit status" 0 "$stop_status"
has_regs "$a" 3 && pass || {
	fail "at SIGTERM the answered plugin was not recorded: $(regs "$a")"
	tail -n 20 "$log" | sed 's/^/    | /' >&2
}
[ ! -e "$tmp/state/device" ] && pass ||
	fail "$tmp/state/device outlived the daemon"
echo quit >&3
exec 3>&-
wait_until 50 dead "$a" || fail "ctl a did not exit"
wait "$a" 2>/dev/null
forget_pid "$a"

finish
