#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-faults.sh: fault injection -- what survives SIGKILL and a full or
# read-only disk (issue 8, part 4).
#
#  1. `dtrace -G` killed with SIGKILL at 17 points of its run over 200
#     objects (0 to past its full run time): every input is byte-identical
#     to the original or to the rewritten object a complete run writes,
#     probes.o is absent or complete (and then every input is rewritten),
#     leftovers are only .NAME.XXXXXX temporary files (SIGKILL cannot be
#     caught: counted and reported, not an error), a fresh run succeeds
#     and writes exactly what an uninterrupted run writes, keeping the
#     objects' mtimes, and the program links, runs and lists its probes
#     (once from those bytes: the same bytes link to the same program).
#  2. dtrace-helperd killed with SIGKILL in 6 rounds at different delays
#     while programs register continuously (long-lived ctl programs from
#     tests/data/helperd/ blocked on a FIFO, and `ctl quick` in a loop);
#     more long-lived programs start while no daemon runs, and some die
#     then.  After each restart (with the start-up scan): no leftover
#     *.tmp, every registry file parses (`dtrace -l` silent, status 0),
#     the registry holds exactly the running long-lived programs, each
#     listed with all its probes (program and libhdl.so) -- registrations
#     lost to the kill recovered by the scan --, the killed daemon's DOF
#     checker is gone; a program killed while the daemon runs is pruned;
#     when all programs exit the registry ends empty.  Programs also
#     start while the daemon starts up: every one is registered (the
#     daemon mounts the device before it scans).
#  3. The state directory on a 64 KiB tmpfs: filled up; then its registry
#     directory read-only.
#     A registration that cannot be written is refused: the program runs
#     normally (DTRACE_DOF_INIT_DEBUG shows the refusal), the daemon logs
#     the registry file and the reason, stays alive, leaves no *.tmp and
#     the files already there byte-identical; `dtrace -l` still works.
#     Once there is room (the filler removed, writable again), the
#     next registration is recorded and listed, and what changed in
#     memory meanwhile (a REMOVE) reaches the disk, and the file of a
#     process that exited meanwhile is removed.
#
# Needs root (allow_other, tmpfs mounts) and /dev/fuse.  About 15 s.
#
# The test runs in a private PID and mount namespace (unshare; skipped
# without one): the start-up scan walks every process in /proc, and
# other tests' programs must neither be found by it (the registry is
# checked to hold exactly this test's programs) nor slow it down or hang
# it (run-helperd-hostile runs programs that map files of a stalled FUSE
# server).  Every process and mount of the test dies with the namespace.

if [ -z "${FAULTS_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
	command -v unshare >/dev/null 2>&1 &&
	unshare --pid --fork --mount-proc true >/dev/null 2>&1; then
	FAULTS_NS=1
	export FAULTS_NS
	exec unshare --pid --fork --mount-proc sh "$0" "$@"
fi

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/helperd-lib.sh"

: "${HELPERD:?HELPERD must name dtrace-helperd}"
data=$top_srcdir/tests/data/helperd

[ "$(id -u)" -eq 0 ] || skip "not root: FUSE allow_other and tmpfs mounts"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$HELPERD" ] || skip "dtrace-helperd not built (no libfuse3)"
[ -n "${FAULTS_NS:-}" ] ||
	skip "no private PID namespace (unshare --pid --fork --mount-proc): the start-up scan would see every process of the machine"
require_G readelf md5sum setsid

faults_cleanup() {
	for p in $bg_pids $(cat "$tmp/long.pids" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	for m in "$tmp/dev" "$tmp/dev3" "$tmp/fs/registry" "$tmp/fs"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	cleanup
}
trap faults_cleanup EXIT
trap 'exit 1' INT TERM HUP

t_start=$(date +%s)
# elapsed: seconds since the start, for the timing lines
elapsed() {
	echo $(($(date +%s) - t_start))
}




# =====================================================================
# 1. SIGKILL dtrace -G mid-write

mkdir g orig
{
	echo "provider fk {"
	i=0
	while [ $i -lt 25 ]; do
		echo "	probe p$i(int);"
		i=$((i + 1))
	done
	echo "};"
} >fk.d
{
	echo '#include "fk.h"'
	echo 'extern int fk_hits;'
	echo 'static __attribute__((noinline)) void fire(int x)'
	echo '{'
	i=0
	while [ $i -lt 25 ]; do
		echo "	FK_P$i(x + $i);"
		i=$((i + 1))
	done
	echo '}'
	echo '/* only static symbols: 200 copies link into one program */'
	echo 'static __attribute__((constructor)) void init(void)'
	echo '{'
	echo '	fire(fk_hits);'
	echo '	fk_hits++;'
	echo '}'
} >fk.c
cat >fkmain.c <<'EOF'
#include <stdio.h>
int fk_hits;
int main(void)
{
	printf("%d\n", fk_hits);
	return 0;
}
EOF
if ! "$DTRACE" -h -s fk.d -o fk.h || ! $CC -O2 -c fk.c -o fk.o ||
	! $CC -O2 -c fkmain.c -o fkmain.o; then
	fail "building the -G test object"
	finish
fi
nobj=200
objs=
i=0
while [ $i -lt $nobj ]; do
	cp fk.o "orig/o$i.o"
	objs="$objs o$i.o"
	i=$((i + 1))
done
touch -d @1000000000 orig/*.o
orig_sum=$(md5sum <fk.o | cut -c1-32)

# restore: the original objects, nothing else, in g/
restore() {
	rm -rf g
	mkdir g
	cp -p orig/*.o g/
}

# run_G: dtrace -G over the objects in g/, status in $status
run_G() {
	(cd g && exec "$DTRACE" -G -s ../fk.d -o probes.o $objs) \
		>G.out 2>G.err 3>&-
	status=$?
}

# The reference: what an uninterrupted run writes, and how long it takes.
restore
t0=$(date +%s%N)
run_G
t1=$(date +%s%N)
full_ms=$(((t1 - t0) / 1000000))
if [ "$status" -ne 0 ]; then
	fail "dtrace -G over $nobj objects: status $status"
	sed 's/^/    | /' G.err >&2
	finish
fi
mkdir ref
(cd g && md5sum $objs probes.o) >ref/sums
probes_sum=$(awk '$2 == "probes.o" { print $1 }' ref/sums)
echo "# dtrace -G over $nobj objects: $full_ms ms uninterrupted"
expect_eq "every object rewritten by the reference run" 0 \
	"$(grep -c "^$orig_sum " ref/sums)"

# classify: compare g/ with the original and the reference; sets
# n_orig, n_rew, n_bad, n_tmp, out_state and fails on anything else
classify() {
	(cd g && md5sum $objs) >now.sums
	n_orig=$(grep -c "^$orig_sum " now.sums)
	awk 'NR == FNR { ref[$2] = $1; next }
		$1 != ref[$2] { print $2 }' ref/sums now.sums >not-rew.txt
	n_rew=$(($(wc -l <now.sums) - $(wc -l <not-rew.txt)))
	n_bad=0
	for f in $(grep -v "^$orig_sum " now.sums | awk '{ print $2 }' |
		grep -x -F -f not-rew.txt); do
		n_bad=$((n_bad + 1))
		fail "$1: g/$f is neither the original nor the rewritten object"
		readelf -S "g/$f" 2>&1 | sed -n '1,3p;$p' | sed 's/^/    | /' >&2
	done
	[ "$n_bad" -eq 0 ] && pass
	if [ ! -e g/probes.o ]; then
		out_state=absent
		pass
	elif [ "$(md5sum <g/probes.o | cut -c1-32)" = "$probes_sum" ] &&
		readelf -S g/probes.o >/dev/null 2>&1; then
		out_state=complete
		pass
		# the output is renamed into place after every object
		expect_eq "$1: probes.o exists, so every object is rewritten" \
			"$nobj" "$n_rew"
	else
		out_state=damaged
		fail "$1: g/probes.o is not the complete output ($(wc -c <g/probes.o) bytes, $(readelf -h g/probes.o 2>&1 | head -n 1))"
	fi
	# leftovers: only temporary names, never a final one
	ls -A g | grep -v -x -e 'o[0-9]*\.o' -e probes.o >left.txt
	n_tmp=$(wc -l <left.txt)
	if grep -v -q -E '^\.(o[0-9]+\.o|probes\.o)\.[A-Za-z0-9]{6}$' left.txt; then
		fail "$1: files other than .NAME.XXXXXX temporaries left:"
		grep -v -E '^\.(o[0-9]+\.o|probes\.o)\.[A-Za-z0-9]{6}$' left.txt |
			head -n 5 | sed 's/^/    | /' >&2
	else
		pass
	fi
}

# The kill points: 0, then tenths of the full run time up to twice it.
tmp_total=0
summary=
for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16 20; do
	what="-G killed after $k/10 of its run"
	restore
	delay=$(awk -v ms="$full_ms" -v k="$k" 'BEGIN { printf "%.3f\n", ms * k / 10000 }')
	(cd g && exec setsid "$DTRACE" -G -s ../fk.d -o probes.o $objs) \
		>G.out 2>G.err 3>&- &
	gpid=$!
	[ "$k" -eq 0 ] || sleep "$delay"
	# the whole session: dtrace and the linker it may be running
	kill -9 -"$gpid" 2>/dev/null
	kill -9 "$gpid" 2>/dev/null
	wait "$gpid" 2>/dev/null
	gstatus=$?
	if ! wait_until 100 sh -c "! kill -0 -$gpid 2>/dev/null"; then
		fail "$what: the linker outlived the kill"
	fi
	classify "$what"
	tmp_total=$((tmp_total + n_tmp))
	summary="$summary ${k}:${n_orig}/${n_rew}/${out_state}/${n_tmp}"
	if [ "$gstatus" -ne 137 ] && [ "$gstatus" -ne 0 ]; then
		fail "$what: status $gstatus"
		sed 's/^/    | /' G.err >&2
	fi
	[ "$gstatus" -eq 0 ] && expect_eq "$what: finished, so complete" \
		"complete" "$out_state"

	# a fresh run over what is left (temporaries included) succeeds and
	# writes what an uninterrupted run writes
	run_G
	expect_eq "$what: a fresh dtrace -G: status" 0 "$status"
	[ "$status" -eq 0 ] || sed 's/^/    | /' G.err >&2
	(cd g && md5sum $objs probes.o) >rerun.sums
	expect_file_eq "$what: the fresh run's result = the reference" \
		ref/sums rerun.sums
	expect_eq "$what: the objects keep their mtime" 1000000000 \
		"$(cd g && stat -c %Y $objs | sort -u | tr '\n' ' ' | sed 's/ $//')"
	# linked, run and listed once for a result byte for byte the
	# reference's (the same bytes link to the same program), and again
	# for any that is not (a failure above; this says more of it)
	if [ -n "${linked_ref:-}" ] && cmp -s ref/sums rerun.sums; then
		continue
	fi
	cmp -s ref/sums rerun.sums && linked_ref=1
	if (cd g && $CC -o prog ../fkmain.o $objs probes.o) >ld.log 2>&1; then
		expect_eq "$what: the program runs every object's probes" \
			"$nobj" "$(g/prog)"
		expect_eq "$what: dtrace -l --object lists every site" \
			$((nobj * 25)) \
			"$(listing --object=g/prog | grep -c '^ fk prog fire p[0-9]*$')"
	else
		fail "$what: link failed:"
		sed 's/^/    | /' ld.log >&2
	fi
done
echo "# dtrace -G kills (k/10 of the run: original/rewritten/probes.o/temporaries left):$summary"
echo "# dtrace -G: $tmp_total temporary files left by 17 SIGKILLs (SIGKILL cannot be caught; never a final name)"
rm -rf g orig ref
echo "# part 1 done at $(elapsed) s"

# =====================================================================
# 2. SIGKILL dtrace-helperd mid-registration

build_helperd_progs

DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper
DTRACE_STATEDIR=$tmp/state
export DTRACE_DOF_INIT_DEVNAME DTRACE_STATEDIR
reg=$tmp/state/registry

# launch_daemon LOG DEVICE STATEDIR [ARGS...]: a foreground daemon,
# $hd_pid; serving DEVICE once LOG says so (serving)
launch_daemon() {
	sd_log=$1
	: >>"$sd_log"
	sd_dev=$2
	sd_state=$3
	shift 3
	"$HELPERD" -f -v --check-interval=100 --device "$sd_dev" \
		--state-dir "$sd_state" "$@" >>"$sd_log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- &
	hd_pid=$!
	bg_pids="$bg_pids $hd_pid"
}

serving() {
	grep -q "serving $sd_dev" "$sd_log"
}

# start_daemon LOG DEVICE STATEDIR [ARGS...]: launch_daemon, and wait
# until it serves
start_daemon() {
	launch_daemon "$@"
	if ! wait_until 100 serving; then
		fail "the daemon did not start serving $sd_dev"
		sed 's/^/    | /' "$sd_log" >&2
		return 1
	fi
	return 0
}

# The long-lived programs all read hold.in, which the test keeps open
# (read-write, so that opening it never blocks) until the very end.
rm -f hold.in
mkfifo hold.in
exec 3<>hold.in
nlong=0
: >long.pids
: >killed.pids

# long_start: one more long-lived ctl, its output in long.N.out
long_start() {
	nlong=$((nlong + 1))
	./ctl <hold.in >"long.$nlong.out" 2>&1 3>&- &
	echo "$!" >>long.pids
	bg_pids="$bg_pids $!"
}

# long_kill PID: SIGKILL one of them
long_kill() {
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	forget_pid "$1"
	echo "$1" >>killed.pids
}

# live_long: the long-lived programs that should be running, sorted
live_long() {
	sort long.pids | grep -v -x -F -f killed.pids | sort
}

all_ready() {
	i=1
	while [ $i -le $nlong ]; do
		answered "long.$i.out" '^ready' || return 1
		i=$((i + 1))
	done
	return 0
}

# quick_start / quick_stop: `ctl quick` two at a time until told to stop
quick_start() {
	rm -f quick.stop
	(
		while [ ! -e quick.stop ]; do
			./ctl quick &
			./ctl quick
			wait
		done
	) >/dev/null 2>&1 3>&- &
	quick_pid=$!
	bg_pids="$bg_pids $quick_pid"
}
quick_stop() {
	touch quick.stop
	wait "$quick_pid"
	forget_pid "$quick_pid"
}

no_tmp() {
	[ -z "$(ls "$reg" 2>/dev/null | grep '\.tmp$')" ]
}




empty_registry() {
	[ -z "$(ls "$reg")" ]
}

# check_restart WHAT: the state right after a restart, with nothing
# starting or exiting
check_restart() {
	cr=$1
	if no_tmp; then pass; else
		fail "$cr: *.tmp left: $(ls "$reg" | grep '\.tmp$' | tr '\n' ' ')"
	fi
	"$DTRACE" -l >l.out 2>l.err
	expect_eq "$cr: dtrace -l status" 0 $?
	if [ -s l.err ]; then
		fail "$cr: dtrace -l complained:"
		sed 's/^/    | /' l.err >&2
	else
		pass
	fi
	live_long >expected.pids
	for p in $(cat expected.pids); do
		dead "$p" && fail "$cr: long-lived ctl $p died"
	done
	ls "$reg" | sort >files.pids
	expect_file_eq "$cr: the registry holds exactly the running programs" \
		expected.pids files.pids
	listing >listing.txt
	missing=
	for p in $(cat expected.pids); do
		n=$(grep -c "^ hdt$p ctl main \(start\|command\)\$\|^ hdlib$p libhdl.so hdl_call call\$" listing.txt)
		[ "$n" -eq 3 ] || missing="$missing $p($n)"
	done
	expect_eq "$cr: programs listed without their 3 probes (pid(rows))" "" "$missing"
	expect_eq "$cr: rows listed" $((3 * $(wc -l <expected.pids))) \
		"$(wc -l <listing.txt)"
}

mkdir -p "$tmp/state"
start_daemon daemon.0.log "$tmp/dev/helper" "$tmp/state" || finish

round=0
late_all=0
late_lost=0
rounds=
scan_found=0
tmp_found=0
for delay in 0 0.05 0.15 0.3 0.5 0.8; do
	round=$((round + 1))
	what="daemon kill $round (after $delay s)"
	checker=$(ps -o pid= --ppid "$hd_pid" | tr -d ' ')
	n0=$(wc -l <long.pids)

	# registrations going on, and a kill in the middle of them
	quick_start
	(
		[ "$delay" = 0 ] || sleep "$delay"
		kill -KILL "$hd_pid"
		echo "$(($(wc -l <long.pids) - n0))" >killed-at
	) 3>&- &
	killer=$!
	i=0
	while [ $i -lt 8 ]; do
		long_start
		wait_until 50 answered "long.$nlong.out" '^ready' ||
			fail "$what: ctl $nlong did not start"
		i=$((i + 1))
	done
	wait "$killer"
	wait "$hd_pid" 2>/dev/null
	forget_pid "$hd_pid"

	# while no daemon runs: programs start (only the scan can find
	# them), and one that registered dies
	long_start
	long_start
	wait_until 50 all_ready || fail "$what: not all programs started"
	quick_stop
	victim=$(ls "$reg" 2>/dev/null | grep -v '\.tmp$' | grep -x -F -f long.pids |
		grep -v -x -F -f killed.pids | head -n 1)
	[ -n "$victim" ] && long_kill "$victim"

	# the old checker died with the daemon
	for c in $checker; do
		wait_until 50 dead "$c" || fail "$what: DOF checker $c outlived its daemon"
	done

	# what the kill left, and a write interrupted by hand
	n=$(ls "$reg" 2>/dev/null | grep -c '\.tmp$')
	tmp_found=$((tmp_found + n))
	mkdir -p "$reg"
	some=$(live_long | head -n 1)
	if [ -f "$reg/$some" ]; then
		head -c 100 "$reg/$some" >"$reg/$some.tmp"
	fi
	printf 'usdt-registry 1\npid 4' >"$reg/4194303.tmp"

	# programs keep starting while it starts up, until it serves
	launch_daemon "daemon.$round.log" "$tmp/dev/helper" "$tmp/state"
	: >late.pids
	nlate=0
	while ! serving && [ "$nlate" -lt 20 ]; do
		nlate=$((nlate + 1))
		./ctl <hold.in >"late.$nlate.out" 2>&1 3>&- &
		echo "$!" >>late.pids
		bg_pids="$bg_pids $!"
	done
	if ! wait_until 100 serving; then
		fail "$what: the daemon did not restart"
		sed 's/^/    | /' "daemon.$round.log" >&2
		finish
	fi
	found=$(sed -n 's/.*found \([0-9]*\) DOF registration(s) of processes started before the daemon.*/\1/p' "daemon.$round.log")
	scan_found=$((scan_found + ${found:-0}))
	rounds="$rounds $delay:$(cat killed-at)/${found:-0}/$n"
	expect_grep "$what: the stale mount is detached" "detached a stale mount" "daemon.$round.log"
	# the programs started while no daemon ran: only the scan found them
	for p in $(tail -n 2 long.pids); do
		expect_eq "$what: ctl $p (no daemon at its start) found by the scan" 2 \
			"$(grep -c -a ' scan \(ctl\|libhdl.so\) ' "$reg/$p" 2>/dev/null)"
	done
	# Those started while it started: registered (they found the device
	# or the scan found them; the daemon mounts before it scans).
	# (registered or not once it runs main: drti's ioctl returns
	# after the daemon wrote the file)
	i=1
	while [ "$i" -le "$nlate" ]; do
		wait_until 50 answered "late.$i.out" '^ready' ||
			fail "$what: late ctl $i did not start"
		i=$((i + 1))
	done
	# "ready" follows the answers to its ADDDOFs, which come before
	# the daemon has checked and recorded them: wait for the file
	for p in $(cat late.pids); do
		late_all=$((late_all + 1))
		if wait_until 50 has_regs "$p" 2; then
			pass
		else
			late_lost=$((late_lost + 1))
		fi
		kill -KILL "$p"
		wait "$p" 2>/dev/null
		forget_pid "$p"
	done
	for p in $(cat late.pids); do
		wait_until 50 no_file "$p" ||
			fail "$what: ctl $p killed after the restart, still registered"
	done

	check_restart "$what: after the restart"

	# a program killed while the daemon runs is pruned
	victim=$(live_long | tail -n 1)
	long_kill "$victim"
	wait_until 50 no_file "$victim" ||
		fail "$what: ctl $victim killed under the new daemon, still registered"
done
late_ok=$((late_all - late_lost))
echo "# daemon kills: $late_all programs started while the daemon restarted, $late_ok registered"
expect_eq "programs started while the daemon restarted, never registered" \
	0 "$late_lost"
echo "# daemon kills (delay s:programs started of 8/found by the scan/*.tmp left):$rounds"
echo "# daemon kills: $scan_found registrations recovered by the scan, $tmp_found *.tmp left by the kills (removed at restart)"

# every program exits: the registry ends empty
long_count=$(live_long | wc -l)
exec 3>&-
for p in $(live_long); do
	wait_until 50 dead "$p" || fail "ctl $p did not exit at end of input"
	forget_pid "$p"
done
wait_until 50 empty_registry || fail "after every program exited: $(ls "$reg" | wc -l) files left"
echo "# daemon kills: $nlong long-lived programs started, $long_count running at the end"
stop_pid "$hd_pid" TERM
expect_eq "last daemon: SIGTERM status" 0 "$stop_status"
echo "# part 2 done at $(elapsed) s"

# =====================================================================
# 3. A full, then read-only, state directory

fs=$tmp/fs
reg=$fs/registry
DTRACE_DOF_INIT_DEVNAME=$tmp/dev3/helper
DTRACE_STATEDIR=$fs
export DTRACE_DOF_INIT_DEVNAME DTRACE_STATEDIR
mkdir -p "$fs"
if ! mount -t tmpfs -o size=64k,mode=755 tmpfs "$fs"; then
	fail "cannot mount a tmpfs on $fs"
	finish
fi
start_daemon fs.log "$tmp/dev3/helper" "$fs" --no-scan || finish

# ctl_start NAME [ENV...]: ctl reading FIFO NAME.in, answers in NAME.out,
# stderr in NAME.err; $ctl_pid
ctl_start() {
	cs=$1
	shift
	rm -f "$cs.in" "$cs.out" "$cs.err"
	mkfifo "$cs.in"
	env "$@" ./ctl <"$cs.in" >"$cs.out" 2>"$cs.err" 3>&- 4>&- 5>&- 6>&- 7>&- &
	ctl_pid=$!
	bg_pids="$bg_pids $ctl_pid"
}

# the state while writes fail: WHAT ERRNO-TEXT
check_refusing() {
	cf=$1
	if no_tmp; then pass; else fail "$cf: *.tmp left: $(ls "$reg")"; fi
	cmp -s a.keep "$reg/$a" && pass ||
		fail "$cf: ctl a's registry file changed"
	"$DTRACE" -l >l.out 2>l.err
	expect_eq "$cf: dtrace -l status" 0 $?
	if [ -s l.err ]; then
		fail "$cf: dtrace -l complained:"
		sed 's/^/    | /' l.err >&2
	else
		pass
	fi
	expect_eq "$cf: dtrace -l lists ctl a" 3 \
		"$(grep -c " hdt$a \| hdlib$a " l.out)"
	if dead "$hd_pid"; then
		fail "$cf: the daemon died"
		sed 's/^/    | /' fs.log >&2
		finish
	fi
	pass
}

ctl_start a
exec 4>a.in
a=$ctl_pid
wait_until 50 has_regs "$a" 2 || fail "full disk: ctl a not registered"
cp "$reg/$a" a.keep

# fill it up
dd if=/dev/zero of="$fs/filler" bs=4096 >/dev/null 2>&1
if echo x >"$fs/probe" 2>/dev/null && [ -s "$fs/probe" ]; then
	fail "full disk: $fs still takes data"
else
	pass
fi
rm -f "$fs/probe"

# an update of a registered process, and a new process
echo "open $tmp/plug.so" >&4
wait_until 50 answered a.out '^opened' || fail "full disk: ctl a's dlopen: $(cat a.out)"
ctl_start b DTRACE_DOF_INIT_DEBUG=1
exec 5>b.in
b=$ctl_pid
wait_until 50 answered b.out '^ready' || fail "full disk: ctl b did not start"
echo "open $tmp/plug.so" >&5
wait_until 50 answered b.out '^opened' || fail "full disk: ctl b does not run normally: $(cat b.out)"
expect_grep "full disk: ctl b's debug output shows the refusal" \
	"DTRACEHIOC_ADDDOF on \"$tmp/dev3/helper\" failed: errno 28 (ENOSPC); not registered" b.err
expect_grep "full disk: the daemon names the file and the reason" \
	"cannot write $reg/[0-9]*\.tmp: No space left on device" fs.log
expect_grep "full disk: the refusal is logged" \
	"pid $b (ctl): .*not recorded: cannot write the registry: No space left on device" fs.log
check_refusing "full disk"
if no_file "$b"; then pass; else fail "full disk: ctl b recorded"; fi
expect_eq "full disk: ctl a's registrations" 2 "$(regs "$a")"

# room again: the next registration is recorded and listed
rm -f "$fs/filler"
echo close >&5
wait_until 50 answered b.out '^closed' || fail "ctl b: dlclose"
echo "open $tmp/plug.so" >&5
wait_until 50 has_regs "$b" 1 || fail "room again: ctl b's dlopen not recorded ($(regs "$b"))"
expect_eq "room again: dtrace -l lists ctl b's plugin" " hdplug$b plug.so plug_hello hello" \
	"$(listing -n "hdplug$b:::")"
echo close >&4
wait_until 50 answered a.out '^closed' || fail "ctl a: dlclose"
expect_grep "room again: the daemon says so" "registry writes work again" fs.log
echo "open $tmp/plug.so" >&4
wait_until 50 has_regs "$a" 3 || fail "room again: ctl a's dlopen not recorded ($(regs "$a"))"
cp "$reg/$a" a.keep

# read-only
ctl_start e
exec 6>e.in
e=$ctl_pid
wait_until 50 has_regs "$e" 2 || fail "ctl e not registered"
# (the daemon keeps its lock file open for writing, so the whole file
# system cannot be remounted read-only under it: the registry directory
# becomes a read-only bind mount of itself)
if ! mount --bind "$reg" "$reg" || ! mount -o remount,bind,ro "$reg"; then
	fail "cannot make $reg read-only"
	finish
fi
ctl_start c DTRACE_DOF_INIT_DEBUG=1
exec 7>c.in
c=$ctl_pid
wait_until 50 answered c.out '^ready' || fail "read-only: ctl c did not start"
echo "open $tmp/plug.so" >&7
wait_until 50 answered c.out '^opened' || fail "read-only: ctl c does not run normally: $(cat c.out)"
expect_grep "read-only: ctl c's debug output shows the refusal" \
	"DTRACEHIOC_ADDDOF on \"$tmp/dev3/helper\" failed: errno 30 (EROFS); not registered" c.err
expect_grep "read-only: the daemon names the file and the reason" \
	"cannot create $reg/[0-9]*\.tmp: Read-only file system" fs.log
check_refusing "read-only"
if no_file "$c"; then pass; else fail "read-only: ctl c recorded"; fi
# changes that cannot reach the disk yet: a REMOVE and an exit
echo close >&4
wait_until 50 answered a.out '^closed.*' || fail "ctl a: dlclose"
wait_until 50 grep -q "pid $a (ctl): removed plug.so" fs.log ||
	fail "read-only: ctl a's REMOVE not seen"
cmp -s a.keep "$reg/$a" && pass || fail "read-only: ctl a's file changed"
exec 6>&-
wait_until 50 dead "$e" || fail "ctl e did not exit"
forget_pid "$e"
wait_until 50 grep -q "pid $e (ctl): removed" fs.log ||
	fail "read-only: ctl e's exit not seen"
dead "$hd_pid" && fail "read-only: the daemon died"

if ! umount "$reg"; then
	fail "cannot unmount the read-only $reg"
	finish
fi
ctl_start d
exec 6>d.in
d=$ctl_pid
wait_until 50 has_regs "$d" 2 || fail "read-write again: ctl d not recorded ($(regs "$d"))"
expect_eq "read-write again: dtrace -l lists ctl d" 3 \
	"$(listing -p "$d" | wc -l)"
wait_until 50 has_regs "$a" 2 ||
	fail "read-write again: ctl a's REMOVE not written ($(regs "$a") registrations on disk)"
# A file the daemon could not remove (the process exited while the
# registry was read-only) is removed by its periodic check once it can.
wait_until 30 no_file "$e" && pass ||
	fail "ctl $e exited while the registry was read-only; its file stays after it is writable again"

for fd in 4 5 6 7; do
	eval "exec $fd>&-"
done
for p in $a $b $c $d; do
	wait_until 50 dead "$p" || fail "ctl $p did not exit"
	forget_pid "$p"
done
wait_until 50 empty_registry || fail "full disk: at the end, left: $(ls "$reg")"
stop_pid "$hd_pid" TERM
expect_eq "full disk: daemon SIGTERM status" 0 "$stop_status"
umount "$fs" || fail "cannot unmount $fs"
echo "# part 3 done at $(elapsed) s"

finish
