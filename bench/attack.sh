#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/attack.sh (make bench-attack): what an unprivileged user's
# attacks on dtrace-helperd cost another user's registrations.
#
# A private daemon (state on tmpfs under /run, as /run is on a normal
# system) serves a private device.  bench/victim.c, as uid 65533, loads
# and unloads a probed plugin 300 times (ADDDOF + REMOVE each) and prints
# the median, 99th percentile and slowest cycle, and how many cycles were
# not registered -- first with no attack, then while uid 65534 (nobody)
# runs each attack of tests/tools/dofclient that aims at the daemon's
# time or resources (README, Security):
#
#	flood		malformed ADDDOFs in a tight loop, refused by the
#			header check, the checker and the site check in turn
#	bigbad		8 MiB blobs refused by the last check, in a loop
#	bigbad x 256	the same from 256 processes at once (more than
#			a user could once have waiting for their EBUSY)
#	race		ADDDOFs while another thread rewrites the blob
#	stalled reads	8 processes whose DOF lies in a FUSE file they
#			serve themselves and never answer (fuse-hidden)
#	1,000 holders	1,000 processes each holding a registration (the
#			descriptor budget)
#	datagram flood	ADDs sent to the daemon's socket as fast as it takes
#			them (tests/tools/dgramclient), refused when read
#
# The victim registers as drti.o does by default: through the daemon's
# datagram socket, and through the device where the socket is full (a
# daemon without --socket, $HELPERD_BEFORE perhaps: the device only).
#
# and, for reference, "2 CPU hogs": two processes of nobody that send
# nothing and only spin, what CPU starvation alone does (race's second
# thread spins too).
#
# The flood and bigbad attackers take the daemon's first answer to each
# ADDDOF and go on ($DOFCLIENT_NOSYNC): dtrace-helperd answers before it
# checks, so that keeps its queue full; the others wait for each verdict
# (SYNC), which makes the daemon read and check at once.  The victim
# checks each registration after a SYNC (bench/victim.c, not timed).
#
# Each row also says how busy the attack keeps the daemon (its threads'
# and its checkers' CPU time over a second before the victim runs, as a
# share of one CPU),
# where its slowest 1% of cycles went (bench/victim.c:
# the share of their time the victim, and the daemon's loop, sat
# runnable waiting for a CPU) and runs the same victim once more right
# after with no helper (a missing device: nothing registered) while the
# attack goes on -- what the two CPUs alone make of a dlopen+dlclose at
# that moment, the reference the row's tail is to be read against.
#
# Every row is measured twice: with all parties in one CPU pool, and
# with each in its own cgroup of equal CPU weight -- the daemon in
# "system", the victim in "user-65533", the attacker in "user-65534" --
# which is how systemd places services and each user's sessions
# (system.slice, user-UID.slice) on every distribution that ships it.
# The daemon cannot give a victim CPU time that an attacker's processes
# take (the "2 CPU hogs" row needs no daemon at all); per-user CPU
# fairness is the scheduler's, and the second table shows what is left
# of the daemon's share once the scheduler provides it.  The cgroups
# are made under the cpu controller (cgroup v2 where it holds it, else
# v1's cpu hierarchy) and removed at the end; $BENCH_ATTACK_SLICES=no
# measures only the single pool (a machine without the controller does
# that and says so).
#
# With $HELPERD_BEFORE naming another dtrace-helperd (an older build),
# every row is measured for it too, in the same run, daemon after daemon
# (this one first), and both tables are written.
#
# Figures go to stdout and to $RESULTS (bench/RESULTS-attack.md).
# Needs root, /dev/fuse, setpriv, and the tests' programs (make check
# builds tests/tools/dofclient).

set -u
: "${DTRACE:?DTRACE must name the dtrace under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${top_builddir:?top_builddir must be set}"
: "${HELPERD:?HELPERD must name dtrace-helperd}"
: "${CC:=cc}"
: "${RESULTS:=bench/RESULTS-attack.md}"
export DTRACE_DRTI LC_ALL=C
DOFCLIENT=$top_builddir/tests/tools/dofclient
DGRAMCLIENT=$top_builddir/tests/tools/dgramclient
N=300

if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ] ||
	! command -v setpriv >/dev/null 2>&1; then
	echo "bench-attack: needs root, /dev/fuse and setpriv; skipped"
	exit 0
fi
if [ ! -x "$DOFCLIENT" ]; then
	echo "bench-attack: no $DOFCLIENT (make check builds it)" >&2
	exit 1
fi
case $RESULTS in
/*) ;;
*) RESULTS=$PWD/$RESULTS ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-attack.XXXXXX") || exit 1
run=$(mktemp -d /run/usdt-attack.XXXXXX) || exit 1
chmod 755 "$tmp" "$run"
hdpid=
attackers=
cg_root=
cg_dir=
cleanup() {
	for p in $attackers; do
		kill -KILL "$p" 2>/dev/null
	done
	[ -n "$hdpid" ] && kill "$hdpid" 2>/dev/null && wait "$hdpid" 2>/dev/null
	cg_remove
	for m in "$tmp"/stall-*; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	mountpoint -q "$run/dev" 2>/dev/null && umount -l "$run/dev"
	umount "$run/state" 2>/dev/null
	rm -rf "$tmp" "$run"
}
trap cleanup EXIT
cd "$tmp" || exit 1

d=$top_srcdir/tests/data/helperd
"$DTRACE" -h -s "$d/hdplug.d" -o hdplug.h &&
	$CC -O2 -fPIC -I. -c "$d/plug.c" -o plug.o &&
	"$DTRACE" -G -s "$d/hdplug.d" plug.o -o plug-probes.o &&
	$CC -shared -o plug.so plug.o plug-probes.o &&
	$CC -O2 -I"$top_srcdir/sdk/include" -o victim \
		"$top_srcdir/bench/victim.c" -ldl || exit 1
# in-cg GROUPDIR COMMAND...: execs COMMAND in that cgroup, or where it
# is with an empty GROUPDIR; $CGS, $CGV and $CGA are the daemon's, the
# victim's and the attacker's (all_rows sets them)
CGS= CGV= CGA=
cat >in-cg <<'EOF2'
#!/bin/sh
[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1
shift
exec "$@"
EOF2
chmod 755 in-cg
mkdir -p "$run/state"
mount -t tmpfs -o size=64m,mode=0755 tmpfs "$run/state" || exit 1
DTRACE_DOF_INIT_DEVNAME=$run/dev/helper
DTRACE_DOF_INIT_SOCKNAME=$run/sock/helper.sock
DTRACE_STATEDIR=$run/state
export DTRACE_DOF_INIT_DEVNAME DTRACE_DOF_INIT_SOCKNAME DTRACE_STATEDIR

# cg_setup: the three cgroups of equal CPU weight under a new group of
# the cpu controller's hierarchy; fails (no groups) where there is none
cg_setup() {
	base=
	for b in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		if grep -qw cpu "$b/cgroup.subtree_control" 2>/dev/null; then
			base=$b
			break
		fi
	done
	[ -z "$base" ] && [ -f /sys/fs/cgroup/cpu/cpu.shares ] &&
		base=/sys/fs/cgroup/cpu
	[ -n "$base" ] || return 1
	cg_root=$base/usdt-attack.$$
	mkdir "$cg_root" || { cg_root=; return 1; }
	if [ -f "$cg_root/cgroup.subtree_control" ]; then
		echo +cpu >"$cg_root/cgroup.subtree_control" || return 1
	fi
	for g in system user-65533 user-65534; do
		mkdir "$cg_root/$g" || return 1
	done
}
# cg_remove: the groups, once the processes in them are gone
cg_remove() {
	[ -n "$cg_root" ] || return 0
	i=0
	while [ $i -lt 50 ]; do
		for g in system user-65533 user-65534; do
			[ -d "$cg_root/$g" ] && rmdir "$cg_root/$g" 2>/dev/null
		done
		rmdir "$cg_root" 2>/dev/null && break
		sleep 0.1
		i=$((i + 1))
	done
	[ -d "$cg_root" ] && echo "bench-attack: $cg_root left behind" >&2
	cg_root=
}
# daemon_cpu: clock ticks of CPU the daemon used: its threads, its
# reaped children (checkers replaced) and its live checker
daemon_cpu() {
	{
		cut -d')' -f2 "/proc/$hdpid/stat" | awk '{ print $12 + $13 + $14 + $15 }'
		for c in $(pgrep -P "$hdpid"); do
			cut -d')' -f2 "/proc/$c/stat" 2>/dev/null |
				awk '{ print $12 + $13 }'
		done
	} | awk '{ s += $1 } END { print s + 0 }'
}

victim_row() {
	# The daemon's CPU over one second of the attack, as a share of one
	# CPU (clock ticks are hundredths of a second).
	c0=$(daemon_cpu)
	sleep 1
	dcpu=$(($(daemon_cpu) - c0))
	line=$(VICTIM_REGDIR=$run/state/registry VICTIM_DAEMON_PID=$hdpid \
		"$tmp/in-cg" "$CGV" \
		setpriv --reuid=65533 --regid=65533 --clear-groups \
		./victim "$tmp/plug.so" "$N")
	# The same victim not registering (no device), the attack going on:
	# what the machine alone makes of its cycles at that moment.
	ref=$(DTRACE_DOF_INIT_DEVNAME=$run/no-helper \
		DTRACE_DOF_INIT_SOCKNAME=$run/no-helper.sock "$tmp/in-cg" "$CGV" \
		setpriv --reuid=65533 --regid=65533 --clear-groups \
		./victim "$tmp/plug.so" "$N")
	set -- "$1" $line $ref
	printf '| %s | %s | %s | %s | %s | %s / %s | %s | %s / %s / %s |\n' \
		"$1" "$3" "$5" "$7" "$9" "${11}" "${12}" "$dcpu" "${14}" \
		"${16}" "${18}" >>"$out"
	printf '%-28s %6s %6s %6s %5s %7s %7s %5s   %5s %6s %6s\n' "$1" "$3" \
		"$5" "$7" "$9" "${11}" "${12}" "$dcpu" "${14}" "${16}" "${18}"
}
stop_attackers() {
	for p in $attackers; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $attackers; do
		wait "$p" 2>/dev/null
	done
	attackers=
}
# nobody STAGE ARGS...: an attacker in the background, as uid 65534
nobody() {
	DOFCLIENT_UID=65534 "$tmp/in-cg" "$CGA" "$DOFCLIENT" "$@" \
		>/dev/null 2>&1 &
	attackers="$attackers $!"
}

# all_rows HELPERD TABLE [CGROUPS]: every row for that daemon, into
# TABLE; with CGROUPS (cg_setup's), each party in its group
all_rows() {
	out=$2
	cg_dir=${3:-}
	CGS=${cg_dir:+$cg_dir/system}
	CGV=${cg_dir:+$cg_dir/user-65533}
	CGA=${cg_dir:+$cg_dir/user-65534}
	# the socket where this daemon has one
	sockopt=
	"$1" --help 2>/dev/null | grep -q -e --socket &&
		sockopt=--socket=$run/sock/helper.sock
	"$tmp/in-cg" "$CGS" "$1" -f --no-scan --device "$run/dev/helper" \
		--state-dir "$run/state" $sockopt 2>helperd.log &
	hdpid=$!
	i=0
	while [ $i -lt 100 ] && ! mountpoint -q "$run/dev"; do
		sleep 0.1
		i=$((i + 1))
	done
	mountpoint -q "$run/dev" || { cat helperd.log >&2; exit 1; }
	echo "$1${cg_dir:+, per-user cgroups}:"
	printf '| while nobody runs | p50 us | p99 us | max us | unregistered of %d | slowest 1%%: victim / daemon waiting for a CPU, %% | daemon CPU, %% of one | no helper, same moment: p50 / p99 / max us |\n|---|---|---|---|---|---|---|---|\n' "$N" >"$out"
	printf '%-28s %6s %6s %6s %5s %7s %7s %5s   %5s %6s %6s\n' "while nobody runs" p50 p99 max unreg "vwait%" "dwait%" "dcpu%" p50 p99 max

	victim_row "no attack"

	DOFCLIENT_NOSYNC=1 DOFCLIENT_FLOOD_N=100000000 DOFCLIENT_FLOOD_MIXED=1 \
		nobody attack flood
	sleep 1
	victim_row "flood (mixed refusals)"
	stop_attackers

	DOFCLIENT_NOSYNC=1 DOFCLIENT_FLOOD_N=100000000 nobody attack bigbad
	sleep 1
	victim_row "bigbad (8 MiB refused)"
	stop_attackers

	i=0
	while [ $i -lt 256 ]; do
		DOFCLIENT_NOSYNC=1 DOFCLIENT_FLOOD_N=100000000 nobody attack bigbad
		i=$((i + 1))
	done
	sleep 2
	victim_row "bigbad x 256 processes"
	stop_attackers

	# No request at all: two processes that only burn the two CPUs, the
	# reference for what CPU starvation alone does to a registration.
	for i in 1 2; do
		"$tmp/in-cg" "$CGA" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			sh -c 'while :; do :; done' &
		attackers="$attackers $!"
	done
	sleep 1
	victim_row "2 CPU hogs (no requests)"
	stop_attackers

	"$tmp/in-cg" "$CGA" sh -c 'while :; do
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$1" attack race >/dev/null 2>&1
	done' sh "$DOFCLIENT" &
	attackers="$attackers $!"
	sleep 1
	victim_row "race (blob rewritten)"
	stop_attackers

	for i in 1 2 3 4 5 6 7 8; do
		nobody attack fuse-hidden "$tmp/stall-$i" 60
	done
	sleep 3
	victim_row "8 stalled reads (FUSE)"
	stop_attackers
	for m in "$tmp"/stall-*; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done

	if [ -n "$sockopt" ] && [ -x "$DGRAMCLIENT" ]; then
		"$tmp/in-cg" "$CGA" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$DGRAMCLIENT" "$run/sock/helper.sock" flood 1000000000 \
			>/dev/null 2>&1 &
		attackers="$attackers $!"
		sleep 1
		victim_row "datagram flood"
		stop_attackers
	fi

	rm -f hold.in
	mkfifo hold.in
	exec 4<>hold.in
	i=0
	while [ $i -lt 1000 ]; do
		"$tmp/in-cg" "$CGA" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$DOFCLIENT" valid <hold.in >/dev/null 2>&1 4>&- &
		attackers="$attackers $!"
		i=$((i + 1))
	done
	sleep 5
	"$DOFCLIENT" sync >/dev/null 2>&1
	held=$(ls "$run/state/registry" | wc -l)
	victim_row "1,000 holders ($held registered)"
	exec 4>&-
	stop_attackers

	kill "$hdpid" 2>/dev/null
	wait "$hdpid" 2>/dev/null
	hdpid=
	mountpoint -q "$run/dev" 2>/dev/null && umount -l "$run/dev"
	rm -f "$run/state/registry/"*
}

all_rows "$HELPERD" "$tmp/table.md"
[ -n "${HELPERD_BEFORE:-}" ] && all_rows "$HELPERD_BEFORE" "$tmp/before.md"
slices=
if [ "${BENCH_ATTACK_SLICES:-yes}" = no ]; then
	slices="not measured (BENCH_ATTACK_SLICES=no)"
elif ! cg_setup; then
	cg_remove
	slices="not measured: no writable cgroup hierarchy with the cpu controller"
	echo "bench-attack: per-user cgroups $slices"
else
	all_rows "$HELPERD" "$tmp/table-cg.md" "$cg_root"
	[ -n "${HELPERD_BEFORE:-}" ] &&
		all_rows "$HELPERD_BEFORE" "$tmp/before-cg.md" "$cg_root"
	cg_dir=
	cg_remove
fi

{
	echo "# Registration under attack"
	echo
	echo "Produced by \`make bench-attack\` (bench/attack.sh) on $(date +%Y-%m-%d):"
	echo "$(uname -r), $(nproc) CPUs.  Victim: uid 65533, $N dlopen+dlclose"
	echo "cycles of a probed plugin (ADD + REMOVE each: datagrams where the daemon"
	echo "has its socket, else ioctls); attacker: uid 65534."
	echo
	cat "$tmp/table.md"
	if [ -n "${HELPERD_BEFORE:-}" ]; then
		echo
		echo "The same rows for $HELPERD_BEFORE, in the same run:"
		echo
		cat "$tmp/before.md"
	fi
	echo
	echo "## Each party in its own cgroup of equal CPU weight"
	echo
	echo "The daemon in \"system\", the victim in \"user-65533\", the attacker in"
	echo "\"user-65534\" (cpu controller, default weights), as systemd places"
	echo "services and users.  The same rows:"
	echo
	if [ -n "$slices" ]; then
		echo "$slices"
	else
		cat "$tmp/table-cg.md"
		if [ -n "${HELPERD_BEFORE:-}" ]; then
			echo
			echo "The same rows for $HELPERD_BEFORE, in the same run:"
			echo
			cat "$tmp/before-cg.md"
		fi
	fi
} >"$RESULTS"
echo "bench-attack: results in $RESULTS"
