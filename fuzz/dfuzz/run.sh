#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz/dfuzz/run.sh - `make fuzz-d`: the D differential fuzzer
# (dfuzz.py's opening comment says what it compares and why).  Builds
# the target (dfz.c with its provider dfz.d, through dtrace -h and -G)
# in fuzz/work/dfuzz of the build directory, then runs DFUZZ_COUNT
# programs (200) from seed DFUZZ_SEED (1; "random" takes one from the
# clock and prints it); DFUZZ_ACTIVATION=user runs the first way under
# -x activation=user (dfuzz.py's --activation).  The programs whose two
# runs differ are kept in fuzz/work/dfuzz/keep, each with both outputs.
#
# Needs root (the probes are traced) and python3; without them it says
# so and exits 77.
#
#	DTRACE=dtrace-G/dtrace DTRACE_DRTI=drti/drti.o top_srcdir=. \
#		sh fuzz/dfuzz/run.sh
here=${top_srcdir:-.}/fuzz/dfuzz
DTRACE=${DTRACE:-dtrace-G/dtrace}
CC=${CC:-cc}
work=${DFUZZ_WORK:-fuzz/work/dfuzz}
count=${DFUZZ_COUNT:-200}
seed=${DFUZZ_SEED:-1}

if [ "$(id -u)" -ne 0 ]; then
	echo "fuzz-d: needs root to trace its target; skipped" >&2
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "fuzz-d: needs python3; skipped" >&2
	exit 77
fi
case $DTRACE in /*) ;; *) DTRACE=$(pwd)/$DTRACE ;; esac
case $DTRACE_DRTI in /* | '') ;; *) DTRACE_DRTI=$(pwd)/$DTRACE_DRTI ;; esac
export DTRACE_DRTI
[ "$seed" = random ] && seed=$(date +%s)
rm -rf "$work/keep"
mkdir -p "$work" || exit 1
"$DTRACE" -h -s "$here/dfz.d" -o "$work/dfz.h" &&
	$CC -O2 -I"$work" -c "$here/dfz.c" -o "$work/dfz.o" &&
	"$DTRACE" -G -s "$here/dfz.d" -o "$work/dfz-p.o" "$work/dfz.o" &&
	$CC "$work/dfz.o" "$work/dfz-p.o" -o "$work/dfz" || {
	echo "fuzz-d: cannot build the target" >&2
	exit 1
}
echo "fuzz-d: $count programs from seed $seed"
python3 "$here/dfuzz.py" --dtrace "$DTRACE" --target "$work" \
	--keep "$work/keep" --seed "$seed" --count "$count" \
	${DFUZZ_ACTIVATION:+--activation "$DFUZZ_ACTIVATION"}
