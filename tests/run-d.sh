#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The D language as file pairs, the way DTrace's own test suites keep it
# (tests/d/):
#
#	tst.NAME.d	a program that must exit 0 (or the status in
#			tst.NAME.d.status) and print tst.NAME.d.out on
#			standard output
#	err.NAME.d	a program that must fail: exit 1 (or the status in
#			err.NAME.d.status) with err.NAME.d.err on standard
#			error
#
# Either kind may have both files: a tst.NAME.d.err is compared too (a
# run-time fault is reported on standard error while the program goes
# on).  NAME.d.args holds the operands after the script ($1, $2, ...).
# Each program runs as `dtrace -s NAME.d` from its folder (tests/d, or
# a topic folder one level down: tests/d/funcs/, ...), so messages name
# the script as the user would see it.  A new pair is a new test: drop
# the files in, nothing to register.
#
# The programs use only BEGIN and END, so no process is traced.  BEGIN's
# CPU is the one dtrace runs on; the runner pins dtrace to CPU 0 so
# that default lines (cpu 0) compare, and skips the pairs that print
# them where it cannot.

. "$top_srcdir/tests/lib.sh"

dir="$top_srcdir/tests/d"
pin=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
fi

n=0
for d in "$dir"/tst.*.d "$dir"/err.*.d "$dir"/*/tst.*.d "$dir"/*/err.*.d; do
	[ -f "$d" ] || continue
	name=$(basename "$d")
	ddir=$(dirname "$d")
	n=$((n + 1))
	case $name in
	tst.*) want=0 ;;
	*) want=1 ;;
	esac
	[ -f "$d.status" ] && want=$(cat "$d.status")
	if [ -z "$pin" ] && [ -f "$d.out" ] && grep -q '^CPU ' "$d.out"; then
		echo "SKIP: $name (prints CPU 0's default lines; no taskset -c 0)"
		continue
	fi
	args=
	[ -f "$d.args" ] && args=$(cat "$d.args")
	# shellcheck disable=SC2086
	(cd "$ddir" && exec timeout 60 $pin "$DTRACE" -s "$name" $args) \
		>"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
	status=$?
	ok=true
	if [ "$status" != "$want" ]; then
		echo "FAIL: $name: exit status $status, expected $want" >&2
		sed 's/^/    | /' "$tmp/$name.stderr" >&2
		ok=false
	fi
	if [ -f "$d.out" ] && ! diff -u "$d.out" "$tmp/$name.stdout" >&2; then
		echo "FAIL: $name: standard output differs (diff above)" >&2
		ok=false
	fi
	if [ -f "$d.err" ] && ! diff -u "$d.err" "$tmp/$name.stderr" >&2; then
		echo "FAIL: $name: standard error differs (diff above)" >&2
		ok=false
	fi
	if [ ! -f "$d.out" ] && [ ! -f "$d.err" ]; then
		echo "FAIL: $name: neither $name.out nor $name.err exists" >&2
		ok=false
	fi
	if $ok; then
		echo "PASS: $name"
		pass
	else
		failures=$((failures + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no tst.*.d or err.*.d in $dir"

# Scripts too large to keep as pairs: shapes nested 20,000 to 200,000
# deep once overflowed the stack of the parser, the checker or the
# evaluator (SIGSEGV); each must now be a located compile error.
deep() {	# deep WHAT PYTHON-EXPRESSION [KIND] (the script's text)
	python3 -c "import sys; sys.stdout.write($2)" >"$tmp/deep.d" || return
	timeout 60 "$DTRACE" -s "$tmp/deep.d" >"$tmp/deep.out" 2>"$tmp/deep.err"
	expect_eq "deep $1: exit status" 1 "$?"
	expect_grep "deep $1: a located error" \
		"^dtrace: failed to compile script .*: line 1, column [0-9]*: ${3:-expression} nested too deeply (more than 512 levels)\$" \
		"$tmp/deep.err"
}
if command -v python3 >/dev/null 2>&1; then
	n=100000
	deep "100k (" "'BEGIN { x = ' + '(' * $n + '1' + ')' * $n + '; }'"
	deep "100k !" "'BEGIN { x = ' + '!' * $n + '1; }'"
	deep "100k unary -" "'BEGIN { x = ' + '- ' * $n + '1; }'"
	deep "100k casts" "'BEGIN { x = ' + '(int)' * $n + '1; }'"
	deep "200k-term sum" "'BEGIN { x = ' + '+'.join(['1'] * 200000) + '; }'"
	deep "200k-term && predicate" "'BEGIN /' + ' && '.join(['1'] * 200000) + '/ { exit(0); }'"
	deep "30k nested strlen()" "'BEGIN { x = ' + 'strlen(' * 30000 + '\"a\"' + ')' * 30000 + '; }'"
	deep "20k nested a[...]" "'BEGIN { a[0] = 1; x = ' + 'a[' * 20000 + '0' + ']' * 20000 + '; }'"
	deep "100k ?: chain" "'BEGIN { x = ' + '1 ? 0 : ' * $n + '1; }'"
	deep "100k x = x = ..." "'BEGIN { ' + 'x = ' * $n + '1; }'"
	deep "100k nested if" "'BEGIN { ' + 'if (1) { ' * $n + '}' * $n + ' }'" \
		statements
	deep "100k else if" "'BEGIN { ' + 'if (0) x = 1; else ' * $n + 'x = 2; }'" \
		statements
else
	echo "# no python3: the generated deep scripts are not run"
fi
finish
