#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The D language as files, the way DTrace's own test suites keep it:
# tests/d/<topic>/ (arith, types, variables, strings, aggs, spec, printf,
# funcs, builtins, options, errors, providers, ...), every folder below
# tests/d searched, so a new file is a new test with nothing to register:
#
#	tst.NAME.d	a program that must exit 0 (or the status in
#			tst.NAME.d.status) and print tst.NAME.d.out on
#			standard output
#	err.NAME.d	a program that must fail: exit 1 (or the status in
#			err.NAME.d.status) with err.NAME.d.err on standard
#			error
#	err.D_TAG.NAME.d
#			a program that must fail to compile (exit 1) with
#			D_TAG in its message under -x errtags
#			("[D_TAG] line ..."): the test checks the error, not
#			its wording (an err.D_TAG.NAME.d.err is compared
#			too when there is one)
#
# Either kind may have both files: a tst.NAME.d.err is compared too (a
# run-time fault is reported on standard error while the program goes
# on).  NAME.d.args holds the operands after the script ($1, $2, ...),
# NAME.d.flags options of dtrace's before it (-C, -D NAME=VALUE, ...).
# NAME.d.trigger holds a command that dtrace runs and traces (-c): its
# first word names a program of tests/d/triggers/ (built from
# tests/d/triggers/*.c by make check), so the program's probes are a
# real process's (the pid provider; root, uprobes); without root or
# tracefs those tests are skipped, the others still run.  NAME.d.backend
# holding "bpf" marks a program whose probes need what only the BPF
# backend takes at the hit (uid, pr_psargs, ...): skipped where dtrace
# has no BPF backend or DTRACE_BACKEND names another.  Each program
# runs as `dtrace -s NAME.d` from its own folder, so messages name the
# script as the user would see it.
#
# Output: one TAP line per program, "ok N - topic/tst.NAME.d" or
# "not ok N - topic/tst.NAME.d" with what differs below it, and the
# exit status automake reads (0: all passed).
#
# BEGIN's CPU is the one dtrace runs on; the runner pins dtrace to CPU 0
# so that default lines (cpu 0) compare, and skips the programs that
# print them where it cannot.

. "$top_srcdir/tests/lib.sh"

dir="$top_srcdir/tests/d"
triggers="${top_builddir:-$top_srcdir}/tests/d/triggers"
# (the runner itself pinned, once: every dtrace it starts inherits it.
# A fork and an exec cost milliseconds each on a small VM, and the 400
# programs' spawns, not dtrace, were most of this test's time: so no
# basename, dirname, cat or taskset a program, a one-line file read)
pin=
if command -v taskset >/dev/null 2>&1 && taskset -cp 0 $$ >/dev/null 2>&1; then
	pin=yes
fi
# tracing a trigger: root and uprobe events
can_trace=
[ "$(id -u)" -eq 0 ] && tracefs_at -w uprobe_events && can_trace=yes
# no helper: a trigger's pid probes need no registry
DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

n=0
# `sort` so the order (and the numbers) are the same on every run
find "$dir" -path "$dir/triggers" -prune -o \
	\( -name 'tst.*.d' -o -name 'err.*.d' \) -type f -print |
	LC_ALL=C sort >"$tmp/list"
while IFS= read -r d; do
	name=${d##*/}
	rel=${d#"$dir"/}
	here=${d%/*}
	n=$((n + 1))
	tag=
	case $name in
	tst.*) want=0 ;;
	err.D_[A-Z0-9_]*.*.d)
		want=1
		tag=${name#err.}
		tag=${tag%%.*}
		;;
	*) want=1 ;;
	esac
	[ -f "$d.status" ] && { IFS= read -r want <"$d.status" || :; }
	if [ -z "$pin" ] && [ -f "$d.out" ] && grep -q '^CPU ' "$d.out"; then
		echo "ok $n - $rel # SKIP prints CPU 0's default lines; no taskset -c 0"
		continue
	fi
	be=
	[ -f "$d.backend" ] && { IFS= read -r be <"$d.backend" || :; }
	if [ "$be" = bpf ]; then
		case ${DTRACE_BACKEND:-${HAVE_BPF:-no}} in
		bpf | yes) ;;
		*)
			echo "ok $n - $rel # SKIP needs the BPF backend"
			continue
			;;
		esac
	fi
	set --
	if [ -f "$d.trigger" ]; then
		if [ -z "$can_trace" ]; then
			echo "ok $n - $rel # SKIP traces a trigger: needs root and uprobe events"
			continue
		fi
		IFS= read -r cmd <"$d.trigger" || :
		case $cmd in
		triggers/*) cmd="$triggers/${cmd#triggers/}" ;;
		esac
		prog=${cmd%% *}
		if [ ! -x "$prog" ]; then
			echo "not ok $n - $rel"
			echo "#   trigger $prog is not built (make check builds tests/d/triggers)"
			failures=$((failures + 1))
			continue
		fi
		set -- -c "$cmd"
	fi
	[ -n "$tag" ] && set -- "$@" -x errtags
	args=
	[ -f "$d.args" ] && { IFS= read -r args <"$d.args" || :; }
	flags=
	[ -f "$d.flags" ] && { IFS= read -r flags <"$d.flags" || :; }
	# shellcheck disable=SC2086
	(cd "$here" && exec timeout 60 "$DTRACE" "$@" $flags -s "$name" $args) \
		>"$tmp/out" 2>"$tmp/err"
	status=$?
	: >"$tmp/why"
	if [ "$status" != "$want" ]; then
		echo "exit status $status, expected $want; standard error:" >>"$tmp/why"
		sed 's/^/    | /' "$tmp/err" >>"$tmp/why"
	fi
	if [ -f "$d.out" ] && ! diff -u "$d.out" "$tmp/out" >"$tmp/diff"; then
		echo "standard output differs:" >>"$tmp/why"
		cat "$tmp/diff" >>"$tmp/why"
	fi
	if [ -f "$d.err" ] && ! diff -u "$d.err" "$tmp/err" >"$tmp/diff"; then
		echo "standard error differs:" >>"$tmp/why"
		cat "$tmp/diff" >>"$tmp/why"
	fi
	if [ -n "$tag" ] && ! grep -qF "[$tag] " "$tmp/err"; then
		echo "no [$tag] in standard error:" >>"$tmp/why"
		sed 's/^/    | /' "$tmp/err" >>"$tmp/why"
	fi
	if [ -z "$tag" ] && [ ! -f "$d.out" ] && [ ! -f "$d.err" ]; then
		echo "neither $name.out nor $name.err exists" >>"$tmp/why"
	fi
	if [ -s "$tmp/why" ]; then
		echo "not ok $n - $rel"
		sed 's/^/#   /' "$tmp/why"
		failures=$((failures + 1))
	else
		echo "ok $n - $rel"
		pass
	fi
done <"$tmp/list"
[ "$n" -gt 0 ] || fail "no tst.*.d or err.*.d below $dir"
echo "1..$n"

# Every error tag the compiler has (d_impl.h's D_ERRTAGS) is listed in
# dtrace(1), so a user can look up what -x errtags prints.
tags=$(sed -n '/^#define D_ERRTAGS(X)/,/^#define D_ERRTAG_ENUM/p' \
	"$top_srcdir/dtrace-G/d/d_impl.h" | grep -o 'X(D_[A-Z0-9_]*)' |
	sed 's/^X(//; s/)$//')
[ -n "$tags" ] || fail "no error tags found in dtrace-G/d/d_impl.h"
for t in $tags; do
	expect_grep "dtrace(1) lists error tag $t" "^\.BR\{0,1\} $t\( ,\)\{0,1\}\$" \
		"$top_srcdir/dtrace-G/dtrace.1"
done

# Scripts too large to keep as files: shapes nested 20,000 to 200,000
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
