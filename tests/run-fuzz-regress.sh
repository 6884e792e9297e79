#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-fuzz-regress.sh - replay the fuzzers' inputs through the harnesses,
# built without libFuzzer by the configured compiler (fuzz/replay.c):
#
#  - fuzz/regress/HARNESS/: inputs that once crashed a harness, kept so
#    the bug stays fixed;
#  - fuzz/seeds/HARNESS/: small hand-written seeds;
#  - a fresh corpus made from real objects by fuzz/gen-corpus.sh (this
#    build's compiler and dtrace, -G before and after), when dtrace -G
#    can run here.
#
# A harness aborts on a broken invariant; in a --enable-sanitizers build
# ASan and UBSan stop it at the first report.  Either fails this test,
# naming the input (replay -v prints each name before running it).

. "$top_srcdir/tests/lib.sh"

harnesses="dof prov elf stapsdt"

# replay HARNESS DIR...: run the replayer over the directories that exist
replay() {
	h=$1
	shift
	bin=$top_builddir/fuzz/replay-$h
	[ -x "$bin" ] || { fail "$bin is not built"; return; }
	dirs=
	for d in "$@"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	[ -n "$dirs" ] || return
	# shellcheck disable=SC2086
	if "$bin" -v $dirs >"replay-$h.out" 2>&1; then
		pass
		grep '^replay: [0-9]* inputs ran' "replay-$h.out"
	else
		fail "replay-$h over$dirs; the end of its output:"
		tail -n 30 "replay-$h.out" | sed 's/^/    | /' >&2
	fi
}

for h in $harnesses; do
	replay "$h" "$top_srcdir/fuzz/regress/$h" "$top_srcdir/fuzz/seeds/$h"
done

# real objects, if dtrace -G works here
if command -v "$CC" >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ] &&
	[ -n "${DTRACE_DRTI:-}" ] && [ -f "$DTRACE_DRTI" ]; then
	if sh "$top_srcdir/fuzz/gen-corpus.sh" corpus >gen.out 2>&1; then
		pass
		for h in $harnesses; do
			replay "$h" "corpus/$h"
		done
	else
		fail "fuzz/gen-corpus.sh failed:"
		sed 's/^/    | /' gen.out >&2
	fi
else
	echo "no C compiler, drti.o or x86-64: real objects not replayed"
fi
finish
