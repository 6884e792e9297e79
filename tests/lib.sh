# SPDX-License-Identifier: MIT
#
# Shared by the tests/run-*.sh scripts.  Source it first: it makes a
# private temporary directory (so `make -j check` never shares files),
# enters it, and removes it on exit unless KEEP_TMP is set.
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip.

set -u

: "${DTRACE:?DTRACE must name the dtrace binary under test}"
: "${top_srcdir:?top_srcdir must be set}"
: "${CC:=cc}"
: "${CXX:=c++}"
unset CPP
unset CFLAGS CPPFLAGS
export LC_ALL=C

test_name=$(basename "$0" .sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/usdt-$test_name.XXXXXX") || exit 99
cleanup() {
	if [ -n "${KEEP_TMP:-}" ]; then
		echo "# kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
cd "$tmp" || exit 99

failures=0
checks=0

# fail MESSAGE: record a failure and go on, so one run reports them all
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

pass() {
	checks=$((checks + 1))
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# expect_file_eq WHAT EXPECTED_FILE ACTUAL_FILE: diff -u on mismatch
expect_file_eq() {
	if diff -u "$2" "$3" >&2; then
		pass
	else
		fail "$1: files differ (see diff above)"
	fi
}

# expect_grep WHAT PATTERN FILE
expect_grep() {
	if grep -q -e "$2" "$3"; then
		pass
	else
		fail "$1: '$2' not found in $3:"
		sed 's/^/    | /' "$3" >&2
	fi
}

# run_dtrace ARGS...: run dtrace, keeping stdout, stderr and the status
run_dtrace() {
	"$DTRACE" "$@" >out.txt 2>err.txt
	status=$?
}

# finish: the verdict
finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$test_name: $failures of $((checks + failures)) checks failed" >&2
		exit 1
	fi
	if [ "$checks" -eq 0 ]; then
		echo "$test_name: no checks ran" >&2
		exit 1
	fi
	echo "$test_name: all $checks checks passed"
	exit 0
}

# require_G TOOL...: skip unless dtrace -G can be tested here: a C
# compiler, the tools named, drti.o (DTRACE_DRTI) and an x86-64 machine
require_G() {
	command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "no $t"
	done
	[ -n "${DTRACE_DRTI:-}" ] && [ -f "$DTRACE_DRTI" ] ||
		skip "DTRACE_DRTI does not name drti.o"
	case $(uname -m) in
	x86_64) ;;
	*) skip "dtrace -G rewrites x86-64 objects; this is $(uname -m)" ;;
	esac
}

# skip REASON
skip() {
	echo "SKIP: $*" >&2
	exit 77
}
