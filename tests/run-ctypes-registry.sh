#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A traced program's types named only by their object, without -c or
# -p (issue 25 item 2): struct libctr.so`ctr_req when no target maps
# libctr.so is looked for in the helper's registry, where a live process
# registered that library's DOF (tests/tools/regwrite records it as
# dtrace-helperd does); unregistered, or replaced on disk since it was
# registered, it is refused (D_TYPE_SCOPE) saying why.
# tests/data/ctypes/: libctr.so (provider ctrlib, built with -g) and
# ctrprog, which maps it and waits.

. "$top_srcdir/tests/lib.sh"

require_G mkfifo
[ -n "${REGWRITE:-}" ] && [ -x "$REGWRITE" ] || skip "no REGWRITE"
[ -r /proc/self/maps ] || skip "no /proc"

ctypes_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap ctypes_cleanup EXIT
trap 'exit 1' INT TERM HUP

data=$top_srcdir/tests/data/ctypes
if ! { "$DTRACE" -h -s "$data/ctrlib.d" -o ctrlib.h &&
	$CC -g -O0 -fPIC -I. -c "$data/ctrlib.c" -o ctrlib.o &&
	"$DTRACE" -G -s "$data/ctrlib.d" ctrlib.o -o ctrlib-probes.o &&
	$CC -shared -o libctr.so ctrlib.o ctrlib-probes.o &&
	$CC -O2 -c "$data/ctrprog.c" -o ctrprog.o &&
	$CC -o ctrprog ctrprog.o -L. -lctr -Wl,-rpath,"$PWD"; }; then
	fail "building the test programs"
	finish
fi

mkdir state
DTRACE_STATEDIR=$tmp/state
export DTRACE_STATEDIR
# drti.o stays quiet: this test plays the helper
DTRACE_DOF_INIT_DISABLE=1
export DTRACE_DOF_INIT_DISABLE

SCRIPT='BEGIN {
	printf("%d %d %d\n", sizeof (struct libctr.so`ctr_req),
	    offsetof (struct libctr.so`ctr_req, v),
	    sizeof (libctr.so`ctr_req_t));
	exit(0);
}'

mkfifo fifo
./ctrprog fifo ready &
pid=$!
bg_pids="$bg_pids $pid"
wait_until 100 test -e ready || fail "ctrprog did not start"

# not registered: nothing names libctr.so
"$DTRACE" -x errtags -q -n "$SCRIPT" >out.txt 2>err.txt
expect_eq "unregistered: status" 1 $?
expect_grep "unregistered: D_TYPE_SCOPE, why" \
	'\[D_TYPE_SCOPE\] .*no object named libctr.so .*none is traced.*no live process registered it with the helper' \
	err.txt

# registered by the live process: its DWARF, as the compiler laid it out
"$REGWRITE" state "$pid" libctr.so - - - ||
	fail "regwrite for $pid failed"
"$DTRACE" -q -n "$SCRIPT" >out.txt 2>err.txt
st=$?
expect_eq "registered: status ($(cat err.txt))" 0 "$st"
printf '24 8 24\n\n' >expected.txt
expect_file_eq "registered: sizeof, offsetof" expected.txt out.txt

# the file replaced since it was registered: not the object it runs
cp libctr.so libctr.so.new && mv libctr.so.new libctr.so
"$DTRACE" -x errtags -q -n "$SCRIPT" >out.txt 2>err.txt
expect_eq "replaced: status" 1 $?
expect_grep "replaced: D_TYPE_SCOPE, why" \
	"\\[D_TYPE_SCOPE\\] .*the file process $pid registered it from (.*/libctr.so) is gone or replaced" \
	err.txt

echo x >fifo
wait "$pid"
forget_pid "$pid"
finish
