#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-helperd.sh: dtrace-helperd on a real FUSE mount, driven by real
# programs built with dtrace -h/-G and drti.o.
#
# A daemon serves $tmp/dev/helper with its registry in $tmp/state;
# programs find it through DTRACE_DOF_INIT_DEVNAME and `dtrace -l`
# through DTRACE_STATEDIR.  tests/data/helperd/ctl.c is a program with
# probes (provider hdt) linked with a library with probes (libhdl.so,
# hdlib) that the test steers through its life over a FIFO: dlopen and
# dlclose of a plugin with probes (plug.so, hdplug), fork, exec, exit,
# SIGKILL.  Covered:
#  - registration of program and library, the registry file's contents
#    (pid, module, path, load bias, the DOF) and `dtrace -l`'s rows;
#  - plugin: listed after dlopen, gone after dlclose;
#  - fork: the child is listed under its own pid; SIGKILL prunes it; a
#    child of a child too, with its parent's generations when the daemon
#    follows forks (process connector);
#  - exec: the old image's probes are gone; exit: the file is removed;
#  - 1,000 short-lived processes: the registry ends empty;
#  - 2,000 probes in one provider: all listed;
#  - restart with live processes: identical listing before and after;
#    a daemon killed with SIGKILL: the stale mount is detached at the
#    next start, the registry restored, dead processes dropped;
#  - a program started before the daemon is found by the scan, unless
#    it set DTRACE_DOF_INIT_DISABLE;
#  - an unprivileged user's program registers (mode 0666, allow_other);
#  - refusals: a second daemon on the same state directory, a non-empty
#    mount point; background start returns only when the device is up;
#    SIGTERM unmounts; systemd readiness (READY=1) when python3 exists.
# Needs root (allow_other, reading other processes) and /dev/fuse.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/helperd-lib.sh"

data=$top_srcdir/tests/data/helperd

helperd_setup mountpoint
require_G
hd_mounts="$tmp/dev2 $tmp/full"

# ---------------------------------------------------------------------
# Build: ctl (hdt) + libhdl.so (hdlib) + plug.so (hdplug), PIE, -O2.

build_helperd_progs

# ---------------------------------------------------------------------
# Helpers

# start_daemon LOG [ARGS...]: helperd_start, checking every 100 ms, its
# output appended to LOG (the start-up scan reads every process on the
# machine, hence helperd_start's 60 s)
start_daemon() {
	log=$1
	shift
	helperd_start -v --check-interval=100 "$@"
}

# ctl_start NAME: ctl reading commands from FIFO NAME.in, answers in
# NAME.out; $ctl_pid.  The test keeps the FIFO open on a descriptor
# chosen by the caller (ctl_fd).
ctl_start() {
	rm -f "$1.in" "$1.out"
	mkfifo "$1.in"
	./ctl <"$1.in" >"$1.out" 2>&1 3>&- 4>&- 5>&- &
	ctl_pid=$!
	bg_pids="$bg_pids $ctl_pid"
}






# ---------------------------------------------------------------------
# 1. One program with a library, dlopen/dlclose, fork, exec, exit.

start_daemon daemon.log --no-scan || finish

ctl_start a
exec 3>a.in
wait_until 50 answered a.out '^ready' || fail "ctl did not start"
a=$ctl_pid
wait_until 50 has_regs "$a" 2 || fail "ctl: expected 2 registrations, got $(regs "$a")"
expect_grep "registry names the program" "^reg [0-9]* 0x[0-9a-f]* 0x[0-9a-f]* 0x[0-9a-f]* [0-9]* [0-9]* ioctl ctl $tmp/ctl\$" "$reg/$a"
expect_grep "registry names the library" " ioctl libhdl.so $tmp/libhdl.so\$" "$reg/$a"
expect_grep "registry records the pid" "^pid $a\$" "$reg/$a"
expect_grep "registry records the command" "^comm ctl\$" "$reg/$a"
start=$(awk '{ print $22 }' "/proc/$a/stat")
expect_grep "registry records the start time" "^start $start\$" "$reg/$a"

# The load bias recorded is where the program is mapped.
bias=$(grep -a ' ioctl ctl ' "$reg/$a" | cut -d' ' -f3)
first=$(grep -m1 " $tmp/ctl\$" "/proc/$a/maps" | cut -d- -f1)
expect_eq "load bias of the PIE" "0x$first" "$bias"

listing >l1.txt
expect_eq "dtrace -l: rows for ctl" 3 "$(grep -c "^ hdt$a ctl main \(start\|command\)\$\|^ hdlib$a libhdl.so hdl_call call\$" l1.txt)"

echo "open $tmp/plug.so" >&3
wait_until 50 answered a.out '^opened' || fail "dlopen failed: $(cat a.out)"
wait_until 50 has_regs "$a" 3 || fail "plugin: expected 3 registrations, got $(regs "$a")"
expect_grep "registry names the plugin" " ioctl plug.so $tmp/plug.so\$" "$reg/$a"
listing -n "hdplug$a:::" >l2.txt
expect_eq "dtrace -l: the plugin's probe" " hdplug$a plug.so plug_hello hello" "$(cat l2.txt)"
echo close >&3
wait_until 50 answered a.out '^closed' || fail "dlclose failed"
wait_until 50 has_regs "$a" 2 || fail "dlclose: expected 2 registrations, got $(regs "$a")"
listing >l3.txt
expect_file_eq "listing after dlclose = listing before dlopen" l1.txt l3.txt

echo fork >&3
wait_until 50 answered a.out '^forked' || fail "fork failed"
child=$(sed -n 's/^forked //p' a.out)
bg_pids="$bg_pids $child"
wait_until 50 has_regs "$child" 2 || fail "fork child: expected 2 registrations, got $(regs "$child")"
listing -p "$child" >l4.txt
expect_eq "dtrace -l -p CHILD: the child's own provider" 3 "$(grep -c "hdt$child \|hdlib$child " l4.txt)"
expect_eq "dtrace -l -p CHILD: nothing of the parent" 0 "$(grep -c "hdt$a \|hdlib$a " l4.txt)"
kill -KILL "$child"
wait_until 50 no_file "$child" || fail "SIGKILLed child still registered"
expect_grep "the daemon logged the exit" "pid $child (ctl): exited" daemon.log

# A child of a child: listed under its own pid too.  A daemon that follows
# forks (the process connector) registers both itself, under the
# parent's generations, and says so.
echo fork2 >&3
wait_until 50 answered a.out '^forked2' || fail "fork2 failed"
set -- $(sed -n 's/^forked2 //p' a.out)
child=$1 grand=$2
bg_pids="$bg_pids $child $grand"
wait_until 50 has_regs "$grand" 2 || fail "grandchild: expected 2 registrations, got $(regs "$grand")"
listing -p "$grand" >l5.txt
expect_eq "dtrace -l -p GRANDCHILD: its own provider" 3 "$(grep -c "hdt$grand \|hdlib$grand " l5.txt)"
if grep -q 'following forks' daemon.log; then
	expect_grep "the grandchild inherited" "pid $grand (ctl): registered ctl .*inherited from its parent" daemon.log
	expect_eq "inherited generations are the parent's" \
		"$(sed -n 's/^reg \([0-9]*\) .*/\1/p' "$reg/$a" | sort | tr '\n' ' ')" \
		"$(sed -n 's/^reg \([0-9]*\) .*/\1/p' "$reg/$grand" | sort | tr '\n' ' ')"
fi
kill -KILL "$child" "$grand"
wait_until 50 no_file "$grand" || fail "SIGKILLed grandchild still registered"

echo "exec sleep 300" >&3
wait_until 50 no_file "$a" || fail "exec: old image's probes still registered"
# With the process connector the exec event says so at once, unless
# the periodic check ran between the exec's new mm and its event (the
# kernel sends the event after switching the mm) and found the DOF gone
# first: both drop the registrations, either may say it (under make -j2
# check the check came first once); without the connector only the check.
if grep -q 'following forks' daemon.log; then
	if grep -q "pid $a (ctl): exec'ed" daemon.log; then
		pass
	else
		expect_grep "the daemon logged the exec" \
			"pid $a (ctl).*no longer mapped" daemon.log
	fi
else
	expect_grep "the daemon logged the exec" "pid $a (ctl).*no longer mapped" daemon.log
fi
kill -KILL "$a" 2>/dev/null
exec 3>&-

ctl_start b
exec 3>b.in
wait_until 50 answered b.out '^ready' || fail "ctl did not start"
b=$ctl_pid
wait_until 50 has_regs "$b" 2 || fail "ctl b: not registered"
echo quit >&3
exec 3>&-
wait_until 50 dead "$b"
wait "$b"
expect_eq "ctl quit status" 0 $?
forget_pid "$b"
wait_until 50 no_file "$b" || fail "exit: still registered"
expect_grep "exit sends REMOVE" "pid $b (ctl): removed libhdl.so" daemon.log

# ---------------------------------------------------------------------
# 2. A thousand short-lived processes; the registry ends empty.

n0=$(grep -c '(ctl): removed' daemon.log)
i=0
while [ $i -lt 1000 ]; do
	./ctl quick &
	q1=$!
	./ctl quick &
	q2=$!
	./ctl quick &
	q3=$!
	./ctl quick &
	wait "$q1" "$q2" "$q3" $!
	i=$((i + 4))
done
empty_registry() {
	[ -z "$(ls "$reg")" ]
}
wait_until 50 empty_registry || fail "after 1,000 processes: $(ls "$reg" | wc -l) files left"
# Each ADDDOF answered and withdrawn at exit: checked and recorded
# first, or (most) withdrawn before the daemon got to them.
n1=$(grep -c '(ctl): removed' daemon.log)
expect_eq "1,000 processes x 2 objects registered and removed" 2000 $((n1 - n0))

# ---------------------------------------------------------------------
# 3. 2,000 probes in one provider.

awk 'BEGIN {
	print "provider big {"
	for (i = 0; i < 2000; i++) printf "\tprobe p%d(int);\n", i
	print "};"
}' >big.d
awk 'BEGIN {
	print "#include <stdio.h>\n#include \"big.h\""
	print "int main(int argc, char **argv) {"
	for (i = 0; i < 2000; i++) printf "\tBIG_P%d(argc);\n", i
	print "\tgetchar();\n\treturn 0;\n}"
}' >big.c
if "$DTRACE" -h -s big.d -o big.h && $CC -O1 -I. -c big.c -o big.o &&
	"$DTRACE" -G -s big.d big.o -o big-probes.o &&
	$CC -o big big.o big-probes.o; then
	mkfifo big.in
	./big <big.in 3>&- 4>&- &
	bigpid=$!
	bg_pids="$bg_pids $bigpid"
	exec 4>big.in
	wait_until 50 has_regs "$bigpid" 1 || fail "big: not registered"
	expect_eq "dtrace -l: 2,000 probes of one provider" 2000 \
		"$(listing -P "big$bigpid" | wc -l)"
	expect_eq "dtrace -l -n big*:::p1999" " big$bigpid big main p1999" \
		"$(listing -n 'big*:::p1999')"
	exec 4>&-
	wait "$bigpid"
	forget_pid "$bigpid"
else
	fail "building the 2,000-probe program"
fi

# ---------------------------------------------------------------------
# 4. Restart with live processes: SIGTERM, then SIGKILL.

ctl_start c
exec 3>c.in
c=$ctl_pid
wait_until 50 has_regs "$c" 2 || fail "ctl c: not registered"
echo "open $tmp/plug.so" >&3
wait_until 50 has_regs "$c" 3 || fail "ctl c: plugin not registered"
listing >before.txt
cp "$reg/$c" file-before

stop_pid "$hd_pid" TERM
expect_eq "SIGTERM: daemon exit status" 0 "$stop_status"
if mountpoint -q "$tmp/dev"; then
	fail "SIGTERM: $tmp/dev still mounted"
else
	pass
fi
[ -f "$reg/$c" ] && pass || fail "SIGTERM: the registry file was removed"
cmp -s file-before "$reg/$c" && pass || fail "SIGTERM: the registry file changed"

start_daemon daemon2.log --no-scan || finish
expect_grep "restart restores" "pid $c (ctl): 3 registration(s) restored" daemon2.log
listing >after.txt
expect_file_eq "listing before and after a restart" before.txt after.txt
echo close >&3
wait_until 50 has_regs "$c" 2 || fail "REMOVE after a restart (the generation survived): $(regs "$c") registrations"

# A process that dies while no daemon runs is dropped at the next start.
ctl_start d
exec 5>d.in
d=$ctl_pid
wait_until 50 has_regs "$d" 2 || fail "ctl d: not registered"
kill -KILL "$hd_pid"
wait "$hd_pid" 2>/dev/null
forget_pid "$hd_pid"
ls "$tmp/dev" >/dev/null 2>&1 && fail "a SIGKILLed daemon's mount still answers" || pass
kill -KILL "$d"
wait "$d" 2>/dev/null
forget_pid "$d"
exec 5>&-
start_daemon daemon3.log --no-scan || finish
expect_grep "stale mount detached" "detached a stale mount" daemon3.log
expect_grep "dead while no daemon ran" "pid $d (ctl) exited while no daemon ran" daemon3.log
if no_file "$d"; then pass; else fail "dead process's file kept"; fi
expect_eq "restored after SIGKILL" 2 "$(regs "$c")"
listing -p "$c" >after2.txt
expect_eq "listing after SIGKILL+restart" 3 "$(wc -l <after2.txt)"
exec 3>&-
wait_until 50 dead "$c" || fail "ctl c did not exit at end of input"
forget_pid "$c"
wait_until 50 no_file "$c" || fail "exit after restart: still registered"

# ---------------------------------------------------------------------
# 5. Started before the daemon: found by the scan.

stop_pid "$hd_pid" TERM
rm -rf "$tmp/state"
ctl_start e
exec 3>e.in
e=$ctl_pid
env DTRACE_DOF_INIT_DISABLE=1 ./ctl <e.in >e2.out 2>&1 3>&- &
e2=$!
bg_pids="$bg_pids $e2"
wait_until 50 answered e.out '^ready'
start_daemon daemon4.log || finish
expect_eq "scan: program started before the daemon" 2 "$(regs "$e")"
expect_grep "scan: origin recorded" " scan libhdl.so $tmp/libhdl.so\$" "$reg/$e"
if no_file "$e2"; then pass; else fail "scan: DTRACE_DOF_INIT_DISABLE not respected"; fi
listing -p "$e" >scan.txt
expect_eq "dtrace -l lists the scanned program" 3 "$(wc -l <scan.txt)"
exec 3>&-
wait_until 50 no_file "$e" || fail "scanned program: not removed at exit"

# ---------------------------------------------------------------------
# 6. An unprivileged user.

if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	expect_eq "device mode" "-rw-rw-rw-" "$(ls -l "$tmp/dev/helper" | cut -c1-10)"
	mkfifo u.in
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		./ctl <u.in >u.out 2>&1 3>&- &
	u=$!
	bg_pids="$bg_pids $u"
	exec 3>u.in
	wait_until 50 answered u.out '^ready' || fail "unprivileged ctl did not start: $(cat u.out)"
	wait_until 50 has_regs "$u" 2 || fail "unprivileged: expected 2 registrations, got $(regs "$u")"
	exec 3>&-
	wait_until 50 no_file "$u" || fail "unprivileged: REMOVE at exit"
else
	echo "# no setpriv or no user nobody: unprivileged check not run" >&2
fi

# ---------------------------------------------------------------------
# 7. Refusals and the ways of starting.

timeout 30 "$HELPERD" -f --device "$tmp/dev2/helper" \
	--state-dir "$tmp/state" >second.log 2>&1
expect_eq "second daemon on one state dir: status" 1 $?
expect_grep "second daemon: says who" "another dtrace-helperd (pid $hd_pid) uses" second.log

mkdir -p full
touch full/helper
timeout 30 "$HELPERD" -f --device "$tmp/full/helper" \
	--state-dir "$tmp/state3" >full.log 2>&1
expect_eq "non-empty mount point: status" 1 $?
expect_grep "non-empty mount point: message" "is not empty (it holds 'helper'" full.log

timeout 30 "$HELPERD" --device "$tmp/dev2/helper" \
	--state-dir "$tmp/state2" >bg.log 2>&1
expect_eq "background start: status" 0 $?
if [ -e "$tmp/dev2/helper" ]; then pass; else fail "background start returned before the device existed"; fi
bgd=$(cat "$tmp/state2/helperd.pid")
bg_pids="$bg_pids $bgd"
kill -TERM "$bgd"
wait_until 50 dead "$bgd" || fail "background daemon ignored SIGTERM"
wait_until 50 sh -c "! mountpoint -q '$tmp/dev2'" || fail "background daemon left its mount"

"$HELPERD" --device relative/helper >rel.log 2>&1
expect_eq "relative --device: usage error" 2 $?
"$HELPERD" --bogus >bogus.log 2>&1
expect_eq "unknown option: usage error" 2 $?
"$HELPERD" --backend=bogus >bogus.log 2>&1
expect_eq "unknown backend: usage error" 2 $?
timeout 30 "$HELPERD" -f --backend=cuse --device "$tmp/cuse/helper" \
	--state-dir "$tmp/state4" >cuse.log 2>&1
expect_eq "CUSE outside /dev: status" 1 $?
expect_grep "CUSE outside /dev: message" "a CUSE device lives under /dev" cuse.log
if [ ! -e /dev/cuse ]; then
	# This kernel has no CUSE: the CUSE path must say so and give up.
	timeout 30 "$HELPERD" -f --backend=cuse \
		--device /dev/usdt-test-$$/helper --state-dir "$tmp/state4" \
		>cuse.log 2>&1
	expect_eq "CUSE without /dev/cuse: status" 1 $?
	expect_grep "CUSE without /dev/cuse: message" \
		"cannot create the CUSE device /dev/usdt-test-$$/helper" cuse.log
fi
"$HELPERD" --help >help.txt 2>&1
expect_eq "--help: status" 0 $?
expect_grep "--help mentions --state-dir" "--state-dir" help.txt

if command -v python3 >/dev/null 2>&1; then
	stop_pid "$hd_pid" TERM
	python3 - "$tmp/notify.sock" >notify.txt <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
print(s.recv(4096).decode().replace("\n", " "))
EOF
	py=$!
	wait_until 50 test -S "$tmp/notify.sock"
	NOTIFY_SOCKET=$tmp/notify.sock
	export NOTIFY_SOCKET
	start_daemon daemon5.log --no-scan
	unset NOTIFY_SOCKET
	wait "$py"
	expect_grep "systemd readiness" "READY=1" notify.txt
fi

stop_pid "$hd_pid" TERM
expect_eq "final SIGTERM: status" 0 "$stop_status"
expect_grep "refusals are logged as such (none here)" "0 refused" daemon.log

finish
