#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-hostile-stack.sh: a user's deep stack must not take root's memory
# (issue 28, part 2).
#
# User nobody runs a program that recurses 20,000 deep, three times
# (300 bytes of frame each, most of the default 8 MiB stack), and root
# traces it with `pid$target::rec:entry /arg0 == 0/ { ustack(); }`:
# every hit copies 8 KiB of stack for the clause, and the hits come as
# fast as dtrace reads them.  dtrace took every record of a read into
# memory before running any: 0.24-3.1 GB.  Now a read takes at most one
# CPU's -x bufsize (8 MiB when stacks are taken) before running them,
# and dtrace's peak RSS (/usr/bin/time) must stay under 200 MB (47 MB
# on a 2-CPU machine, 0.28 GB before).  The stacks of the deepest calls
# are printed, each of at most ustackframes (100) frames.
#
# Needs root, setpriv, /usr/bin/time and tracefs uprobe events.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: the attacker runs as another user"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time"
id nobody >/dev/null 2>&1 || skip "no user nobody"
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR
limit_kb=204800

stack_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap stack_cleanup EXIT
trap 'exit 1' INT TERM HUP

cat >rec.c <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int rec(int n)
{
	volatile char pad[300];

	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return rec(n - 1) + pad[0];
}
int main(void)
{
	char go[8];
	int s = 0;

	/* start once told to: dtrace is ready */
	if (read(0, go, sizeof(go)) <= 0)
		return 2;
	for (int i = 0; i < 3; i++)
		s += rec(20000);
	return s & 1;
}
C
$CC -O0 -o rec rec.c || fail "cannot build rec"
chmod 755 "$tmp"

rm -f go.in
mkfifo go.in
exec 3<>go.in
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	./rec <&3 &
target=$!
bg_pids="$bg_pids $target"
# setpriv execs rec: until then the pid is setpriv's, which has no rec()
wait_until 100 sh -c "readlink /proc/$target/exe | grep -q '/rec\$'" ||
	fail "rec did not start"
/usr/bin/time -f 'maxrss %M' -o rss.txt timeout -s KILL 120 "$DTRACE" -q \
	-p "$target" -o out.txt -n 'BEGIN { printf("ready\n"); }
	pid$target::rec:entry /arg0 == 0/ { ustack(); }' 2>err.txt &
dpid=$!
bg_pids="$bg_pids $dpid"
if wait_until 600 grep -qs '^ready$' out.txt; then
	echo go >&3
	wait "$target"
	wait "$dpid"
	status=$?
	expect_eq "dtrace's status" 0 "$status"
	rss=$(awk '/^maxrss/ { print $2 }' rss.txt)
	echo "# dtrace's peak RSS: ${rss:-?} kB" >&2
	if [ -n "$rss" ] && [ "$rss" -lt "$limit_kb" ]; then
		pass
	else
		fail "dtrace's peak RSS ${rss:-?} kB, at most $limit_kb kB wanted"
	fi
	# stacks from the deepest call outwards, none over 100 frames
	# (those read once the process ran on or exited are shorter: the
	# frames beyond the 8 KiB copy are read from the live process, and
	# one the copy ran out under, the process gone, ends with the
	# marker "[truncated: N bytes of stack copied]"; a loaded machine
	# may drop hits, which dtrace reports)
	# (the three deepest calls' records can all be among the drops
	# under load: allowed only where dtrace said it dropped some)
	if ! awk '/rec`rec$/ { n++ } END { exit !(n >= 1) }' out.txt; then
		if grep -q ' drops ' err.txt; then
			echo "# no stack of the deepest call: dropped, as dtrace said" >&2
		else
			fail "no stack of the deepest call, and no drops said: $(head -5 out.txt)"
		fi
	fi
	awk 'NF == 0 { if (k > 100) bad = 1; k = 0; next }
	     $1 !~ /^rec`rec/ && $1 != "ready" &&
	     $0 !~ /^ +\[truncated: [0-9]+ bytes of stack copied\]$/ { bad = 1 }
	     { k++ } END { exit bad }' out.txt ||
		fail "a stack of more than 100 frames, or not of rec"
	pass
else
	fail "dtrace -p did not start: $(cat err.txt)"
fi
exec 3>&-

finish
