#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-helperd-reuse.sh: a pid reused while the daemon still holds the
# wake-up of its former process's exit (helper-driver/hd_reg.c,
# "Identity and pruning"), two ways.
#
# In one batch of events: a program A registers by datagram, then the
# daemon is stopped in its wait (SIGSTOP); meanwhile a datagram makes the
# socket ready, A is killed (its pidfd ready after the socket) and a
# program B is started at A's pid and sends its ADD.  Resumed, the
# daemon gets both events in one batch: the socket's, whose read prunes
# A and records B, then A's pidfd.  That event used to prune whatever
# was at the pid -- B, which lives on with its plugin loaded and nothing
# registered.  Checked: B is registered (its own start time in the
# file), and the daemon did see A's exit after B's ADD (its log says so;
# else the check above proved nothing).
#
# Through the DOF checker's copies of the pidfds (below; needs strace).
#
# The pid is reused on purpose through ns_last_pid, so the whole test
# runs in a pid namespace of its own (unshare -p -f --mount-proc), the
# daemon included; the host's ns_last_pid is never written.  There the
# kernel's process connector is silent, so the daemon polls a known
# process's pidfd before taking a request as its (hd_reg.c, caller()).
# Needs root, /dev/fuse, unshare.

# pass never fails, so "check && pass || fail" is if-then-else here:
# shellcheck disable=SC2015

if [ -z "${HD_REUSE_HOSTNS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || {
		echo "SKIP: not root: a pid namespace and a FUSE mount" >&2
		exit 77
	}
	command -v unshare >/dev/null 2>&1 || {
		echo "SKIP: no unshare" >&2
		exit 77
	}
	unshare -p -f --mount-proc true 2>/dev/null || {
		echo "SKIP: cannot make a pid namespace here" >&2
		exit 77
	}
	HD_REUSE_HOSTNS=$(readlink /proc/self/ns/pid)
	export HD_REUSE_HOSTNS
	exec unshare -p -f --mount-proc sh "$0" "$@"
fi

. "$top_srcdir/tests/lib.sh"

: "${DOFCLIENT:=${top_builddir:-}/tests/tools/dofclient}"
: "${DGRAMCLIENT:=${top_builddir:-}/tests/tools/dgramclient}"

helperd_setup timeout mountpoint
# The device detached first: killed, the daemon leaves a mount that no
# longer answers, which mountpoint(1) cannot tell and rm cannot empty.
reuse_cleanup() {
	umount -l "$tmp/dev" 2>/dev/null
	helperd_cleanup
}
trap reuse_cleanup EXIT
[ -n "${DTRACE_DRTI:-}" ] && [ -f "$DTRACE_DRTI" ] ||
	skip "DTRACE_DRTI does not name drti.o"
for t in "$DOFCLIENT" "$DGRAMCLIENT"; do
	if [ ! -x "$t" ]; then
		fail "$t is not built"
		finish
	fi
done
# Never the host's: this shell must be in a pid namespace of its own.
lastpid=/proc/sys/kernel/ns_last_pid
if [ "$(readlink /proc/self/ns/pid)" = "$HD_REUSE_HOSTNS" ] ||
	[ ! -w "$lastpid" ]; then
	fail "not in a pid namespace of its own with a writable $lastpid"
	finish
fi

sock=$tmp/run/helper.sock
DTRACE_DOF_INIT_SOCKNAME=$sock
export DTRACE_DOF_INIT_SOCKNAME

. "$top_srcdir/tests/helperd-lib.sh"
build_helperd_progs
if ! $CC -O2 -o cycle "$helperd_data/cycle.c" -ldl; then
	fail "building cycle"
	finish
fi

sync_reg() {
	timeout 20 "$DOFCLIENT" -d "$tmp/dev/helper" sync >/dev/null 2>&1
}

# ready NAME: NAME.out has cycle's "ready PID" line
ready() {
	wait_until 600 grep -q '^ready' "$1.out" 2>/dev/null ||
		fail "$1 never got ready: $(cat "$1.err")"
}

# stopped PID: PID is in a stopped state
stopped() {
	[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" = T ]
}

# start time of PID (field 22 of /proc/PID/stat)
start_of() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# The periodic check kept out of the way: only the pidfd's event prunes.
helperd_start -vv --socket "$sock" --check-interval 600000 || finish
grep -q "not in the initial pid and user namespaces" "$log" && pass ||
	fail "the daemon follows the connector inside a pid namespace"

mkfifo a.in b.in
./cycle ./plug.so 0 keep >a.out 2>a.err <a.in &
a_pid=$!
bg_pids="$bg_pids $a_pid"
sleep 600 >a.in &
bg_pids="$bg_pids $!"
ready a
sync_reg
expect_eq "A registered by datagram" 1 "$(regs "$a_pid")"

# The daemon idle in its wait (the socket back in its epoll set), then
# stopped there.
sleep 0.5
kill -STOP "$hd_pid"
wait_until 100 stopped "$hd_pid" && pass || fail "the daemon did not stop"
"$DGRAMCLIENT" "$sock" junk >/dev/null
kill -KILL "$a_pid"
wait "$a_pid" 2>/dev/null
forget_pid "$a_pid"
# B's stdin writer first: nothing but B may take the pid after the write.
sleep 600 >b.in &
bg_pids="$bg_pids $!"
echo $((a_pid - 1)) >"$lastpid"
./cycle ./plug.so 0 keep >b.out 2>b.err <b.in &
b_pid=$!
bg_pids="$bg_pids $b_pid"
expect_eq "B started at A's pid" "$a_pid" "$b_pid"
ready b
b_start=$(start_of "$b_pid")
kill -CONT "$hd_pid"
sync_reg

expect_eq "B, at A's reused pid, registered" 1 "$(regs "$b_pid")"
expect_eq "... under its own start time" "start $b_start" \
	"$(grep -a -m1 '^start ' "$reg/$b_pid" 2>/dev/null)"
expect_grep "A's exit was seen after B's ADD (the batch checked)" \
	"pid $b_pid (cycle): the exit of a former process at its pid" "$log"
kill -KILL "$b_pid"
stop_pid "$hd_pid" TERM
expect_eq "the daemon stops cleanly" 0 "$stop_status"

# ---------------------------------------------------------------------
# The DOF checker's copies of the pidfds.  The checker child is forked
# holding every descriptor of the daemon's until its close_range()
# (hd_check.c); strace stops it before that (at its first dup2, after
# which a signal injected is delivered), while it is to check A's blob,
# and meanwhile A is killed and pruned, and B starts at its pid and
# registers.  A pidfd closed while a copy lived used to stay in the
# epoll set: its exit reported at every wait (the daemon spinning), and
# B pruned for it.  Checked: A's exit is reported once, and B, once the
# checker goes on, is registered.

if ! command -v strace >/dev/null 2>&1 || [ -n "${HELPERD_WRAPPER:-}" ]
then
	echo "# the checker's copies: not tried (no strace, or a wrapper)" >&2
	finish
fi
log=$tmp/hd2.log
helperd_start -vv --socket "$sock" --check-interval 600000 \
	--check-timeout 600000 || finish
strace -f -o ck.strace -e trace=dup2,dup3,close_range,recvmsg,epoll_wait \
	-e inject=dup2,dup3:signal=SIGSTOP:when=1 -p "$hd_pid" 2>ck.err &
st_pid=$!
bg_pids="$bg_pids $st_pid"
if ! wait_until 100 grep -q attached ck.err; then
	fail "strace cannot trace the daemon: $(cat ck.err)"
	finish
fi

# ck_go: the checker goes on, strace detached
ck_go() {
	[ -n "$ck_pid" ] && kill -CONT "$ck_pid"
	kill -INT "$st_pid" 2>/dev/null
	wait "$st_pid" 2>/dev/null
	forget_pid "$st_pid"
}

# after_b N: the daemon's wait returned N times since it read B's ADD
after_b() {
	awk -v p="pid=$b_pid," -v d="$hd_pid" -v n="$1" '
		index($0, "recvmsg(") && index($0, p) { seen = 1; next }
		seen && $1 == d && /epoll_wait.*\) = [0-9]+$/ { k++ }
		END { exit !(k >= n) }' ck.strace
}

mkfifo a2.in b2.in
./cycle ./plug.so 0 keep >a2.out 2>a2.err <a2.in &
a_pid=$!
bg_pids="$bg_pids $a_pid"
sleep 600 >a2.in &
bg_pids="$bg_pids $!"
ready a2
# A's check forked the checker, stopped holding the daemon's descriptors
wait_until 300 grep -q 'stopped by SIGSTOP' ck.strace
ck_pid=$(sed -n 's/^\([0-9]*\) *--- stopped by SIGSTOP.*/\1/p' ck.strace |
	head -n 1)
if [ -z "$ck_pid" ] || grep -q '^[0-9]* *close_range' ck.strace; then
	fail "the checker never stopped before its close_range():" \
		"$(cat ck.strace ck.err)"
	ck_go
	finish
fi
kill -KILL "$a_pid"
wait "$a_pid" 2>/dev/null
forget_pid "$a_pid"
wait_until 100 grep -q "pid $a_pid (cycle): exited" "$log"
expect_grep "A pruned while the checker holds its pidfd" \
	"pid $a_pid (cycle): exited" "$log"

sleep 600 >b2.in &
bg_pids="$bg_pids $!"
echo $((a_pid - 1)) >"$lastpid"
./cycle ./plug.so 0 keep >b2.out 2>b2.err <b2.in &
b_pid=$!
bg_pids="$bg_pids $b_pid"
expect_eq "B started at A's pid" "$a_pid" "$b_pid"
ready b2
# B's ADD read and handled, then one more wait begun and over after it
# (the old daemon pruned B in the first)
wait_until 100 after_b 1
"$DGRAMCLIENT" "$sock" junk >/dev/null
wait_until 100 after_b 2 && pass ||
	fail "the daemon never read B's ADD: $(tail -n 20 ck.strace)"
ck_go
sync_reg
expect_eq "B, registered while the checker held A's pidfd" 1 \
	"$(regs "$b_pid")"
expect_eq "A's exit reported once" 1 \
	"$(grep -c "u64=$((4 * 4294967296 + a_pid))}" ck.strace)"
stop_pid "$hd_pid" TERM
expect_eq "the daemon stops cleanly" 0 "$stop_status"

finish
