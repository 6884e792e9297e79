#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The tracing command line (issue 15, item 8), with BEGIN and END
# programs only, so nothing is traced: `-s -` (the program on standard
# input), several -n and -s in one run (clauses in command-line order),
# bundled short options, -e (compile and exit), -w and the destructive
# actions, -Z, -F (flow indent), -C -s of a script with a `#!` line, and
# their errors.  Real processes (a
# description without a provider, speculations across firings, -c's
# standard streams) are in run-trace.sh.

. "$top_srcdir/tests/lib.sh"

pin=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
fi

# run_in TEXT ARGS...: dtrace ARGS with TEXT on standard input
run_in() {
	in=$1
	shift
	printf '%b' "$in" | $pin "$DTRACE" "$@" >out.txt 2>err.txt
	status=$?
}

# -s -: the program on standard input, named <stdin> in messages
run_in 'BEGIN { printf("from stdin %d\\n", $1); exit(0); }\n' -q -s - 7
expect_eq "-s -: status" 0 "$status"
printf 'from stdin 7\n\n' >want.txt
expect_file_eq "-s -: output" want.txt out.txt
run_in 'BEGIN {\n\tx = ;\n}\n' -q -s -
expect_eq "-s - with an error: status" 1 "$status"
expect_eq "-s - with an error: message" \
	'dtrace: failed to compile script <stdin>: line 2, column 6: syntax error near ";"' \
	"$(cat err.txt)"

# -s of a file that gives its text only once (a pipe through
# /dev/stdin, a FIFO): the text is read once, then checked and run (it
# was read twice, the second time empty, and dtrace waited forever)
printf 'BEGIN { printf("piped\\n"); exit(0); }\n' |
	timeout 60 "$DTRACE" -q -s /dev/stdin >out.txt 2>err.txt
expect_eq "-s /dev/stdin from a pipe: status" 0 "$?"
expect_eq "-s /dev/stdin from a pipe: output" "piped" "$(cat out.txt)"
rm -f fifo.d
mkfifo fifo.d
printf 'BEGIN { printf("fifo\\n"); exit(0); }\n' >fifo.d &
timeout 60 "$DTRACE" -q -s fifo.d >out.txt 2>err.txt
expect_eq "-s of a FIFO: status" 0 "$?"
expect_eq "-s of a FIFO: output" "fifo" "$(cat out.txt)"
wait

# several -s and -n: one program, clauses in command-line order
cat >one.d <<'D'
BEGIN { printf("one\n"); }
D
cat >three.d <<'D'
BEGIN { printf("three\n"); exit(0); }
END { printf("end\n"); }
D
run_in '' -q -s one.d -n 'BEGIN { printf("two\n"); }' -s three.d \
	-n 'END { printf("end too\n"); }'
expect_eq "-s -n -s -n: status" 0 "$status"
printf 'one\ntwo\nthree\nend\nend too\n\n' >want.txt
expect_file_eq "-s -n -s -n: clauses in command-line order" want.txt out.txt
run_in 'BEGIN { printf("stdin\\n"); }\n' -q -n 'BEGIN { printf("n\n"); }' \
	-s - -n 'BEGIN { exit(0); }'
printf 'n\nstdin\n\n' >want.txt
expect_file_eq "-n -s - -n" want.txt out.txt
run_dtrace -h -s one.d -s three.d
expect_eq "-h takes one -s" 2 "$status"

# bundled short options
run_in '' -qnBEGIN'{printf("bundled\n");exit(0)}'
expect_eq "-qnBEGIN: status" 0 "$status"
printf 'bundled\n\n' >want.txt
expect_file_eq "-qnBEGIN" want.txt out.txt

# -e: compile, apply the options, exit 0 without tracing; errors as usual
run_in '' -e -n 'BEGIN { printf("never\n"); }'
expect_eq "-e: status" 0 "$status"
expect_eq "-e: no output" "" "$(cat out.txt)"
expect_eq "-e: nothing on stderr" "" "$(cat err.txt)"
run_in '' -e -n 'BEGIN { x = y; }'
expect_eq "-e with an error: status" 1 "$status"
expect_eq "-e with an error: message" \
	"dtrace: invalid probe specifier BEGIN { x = y; }: line 1, column 13: failed to resolve y: Unknown variable name" \
	"$(cat err.txt)"
run_in '' -e -x nosuchoption -n BEGIN
expect_eq "-e with an unknown option: a usage error" 2 "$status"
run_in '' -e -n 'BEGIN { system("true"); }'
expect_eq "-e: destructive actions compile without -w" 0 "$status"

# -w: destructive actions refused without it, as DTrace refuses them
run_in '' -q -n 'BEGIN { system("echo hi"); exit(0); }'
expect_eq "system() without -w: status" 1 "$status"
expect_eq "system() without -w: message" \
	"dtrace: could not enable tracing: Destructive actions not allowed" \
	"$(cat err.txt)"
expect_eq "system() without -w: no output" "" "$(cat out.txt)"
# with -w the command runs where system() is, in the record's output
run_in '' -w -n 'BEGIN { printf("a "); system("echo %s %d", "sh says", 42); printf("b"); exit(0); }'
expect_eq "system() with -w: status" 0 "$status"
if [ -n "$pin" ]; then
	printf 'CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN a sh says 42\nb\n\n' >want.txt
	expect_file_eq "system() with -w: output" want.txt out.txt
fi
run_in '' -w -q -n 'BEGIN { raise(99); }' -n 'BEGIN { exit(0); }'
expect_eq "raise(99): the fault reported" \
	"dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1" \
	"$(grep 'error on' err.txt)"
run_in '' -q -n 'BEGIN { stop(); exit(0); }' -x destructive
expect_eq "-x destructive allows stop() (a no-op on dtrace itself)" 0 "$status"

# -Z: a description that matches nothing is no error
run_in '' -q -n 'nosuchprovider:::nosuchprobe { }' -n 'BEGIN { exit(0); }'
expect_eq "no -Z: status" 1 "$status"
run_in '' -qZ -n 'nosuchprovider:::nosuchprobe { }' -n 'BEGIN { exit(0); }'
expect_eq "-Z: status" 0 "$status"

# -F: the flow layout (BEGIN and END are neither entries nor returns)
run_in '' -F -n 'BEGIN { trace(1); } END { exit(0); }' -n 'BEGIN { exit(0); }'
expect_eq "-F: status" 0 "$status"
if [ -n "$pin" ]; then
	# dtrace(1)'s "%3d %-41s " (CPU, then the flow column)
	{
		printf '%3s %-41s\n' CPU FUNCTION
		printf '%3d %-41s         1\n' 0 '| :BEGIN'
		printf '%3d %-41s \n' 0 '| :BEGIN' 0 '| :END'
		printf '\n'
	} >want.txt
	expect_file_eq "-F: output" want.txt out.txt
fi

# -x oformat=json: a record per line, what the clause printed as a JSON
# string with controls escaped (C0, DEL, C1) and ill-formed UTF-8 shown
# as \xNN; aggregations one object per row
run_in '' -x oformat=json -q -n 'BEGIN {
	printf("%s|%s|%s|%s|%s", "nl\nq\"b\\", "esc \x1b[31m", "c1 \xc2\x85 é",
	    "bad \xff\xc3", "del \x7f");
	@c["a", 2] = count();
	@s["a", 2] = sum(7);
	@s["b", 1] = sum(-3);
	@q = quantize(5);
	@l = lquantize(-1, 0, 10, 5);
	printa(@c, @s);
	exit(0);
}'
expect_eq "oformat=json: status" 0 "$status"
sed 's/"cpu":[0-9]*/"cpu":0/' out.txt >json.txt
cat >want.txt <<'J'
{"cpu":0,"id":1,"provider":"dtrace","module":"","function":"","name":"BEGIN","output":"nl\nq\"b\\|esc \u001b[31m|c1 \u0085 é|bad \\xff\\xc3|del \u007f"}
{"aggregations":["c","s"],"keys":["b",1],"values":[0,-3]}
{"aggregations":["c","s"],"keys":["a",2],"values":[1,7]}
{"aggregation":"q","keys":[],"value":{"buckets":[{"value":4,"count":1}]}}
{"aggregation":"l","keys":[],"value":{"buckets":[{"below":0,"count":1}]}}
J
expect_file_eq "oformat=json: records and rows" want.txt json.txt
run_in '' -x oformat=xml -n BEGIN
expect_eq "oformat=xml: refused" 1 "$status"

# -x aggpack/agghist/aggzoom take a flag's value only; encoding ascii|utf8
for o in aggpack=maybe agghist=-1 aggzoom=2x encoding=latin1; do
	run_in '' -x $o -n 'BEGIN { exit(0); }'
	expect_eq "-x $o: refused" 1 "$status"
	expect_eq "-x $o: message" \
		"dtrace: failed to set -x $o: failed to set option '${o%%=*}' to '${o#*=}': Invalid value for specified option" \
		"$(sed 's/ (ascii or utf8)$//' err.txt)"
done
run_in '' -q -x aggpack=off -x agghist=yes -x encoding=ascii \
	-n 'BEGIN { @["k"] = count(); exit(0); }'
expect_eq "-x aggpack=off -x agghist=yes: status" 0 "$status"
printf '\n\n              key  %s count    \n                k |%s 1        \n' \
	"------------- Distribution -------------" \
	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@" >want.txt
expect_file_eq "-x agghist=yes: the histogram" want.txt out.txt

# -x evaltime (DTrace's: where a -c command is armed): preinit is where
# -c arms here (ld.so's libraries mapped, no constructor run); exec,
# postinit and main are refused with a -c command (they would trace
# another part of its start), taken without one (nothing they change);
# another value refused
run_in '' -q -x evaltime=preinit -c /bin/true \
	-n 'BEGIN { printf("pre\n"); exit(0); }'
expect_eq "-x evaltime=preinit: status" 0 "$status"
expect_eq "-x evaltime=preinit: output" "pre" "$(grep . out.txt)"
for v in exec postinit main; do
	run_in '' -x evaltime=$v -c /bin/true -n 'BEGIN { exit(0); }'
	expect_eq "-x evaltime=$v with -c: refused" 1 "$status"
	expect_eq "-x evaltime=$v with -c: message" \
		"dtrace: evaltime=$v is not done here: a -c command is armed once the dynamic linker has mapped its libraries, before their constructors run (evaltime=preinit)" \
		"$(cat err.txt)"
done
run_in '#pragma D option evaltime=main\nBEGIN { exit(0); }\n' -q -s -
expect_eq "evaltime=main without -c: status" 0 "$status"
run_in '' -x evaltime=later -n 'BEGIN { exit(0); }'
expect_eq "-x evaltime=later: refused" 1 "$status"
expect_eq "-x evaltime=later: message" \
	"dtrace: failed to set -x evaltime=later: failed to set option 'evaltime' to 'later': Invalid value for specified option (exec, preinit, postinit or main)" \
	"$(cat err.txt)"

# -C -s of an executable script: its `#!` line, which cpp rejects as an
# invalid directive, is a comment, and cpp's macros still work
if command -v cpp >/dev/null 2>&1; then
	printf '#!/usr/sbin/dtrace -Cqs\n# not a directive\n#define N 3\nBEGIN { printf("%%d\\n", N); exit(0); }\n' >shebang.d
	run_in '' -C -q -s shebang.d
	expect_eq "-C -s with '#!': status" 0 "$status"
	printf '3\n\n' >want.txt
	expect_file_eq "-C -s with '#!': output" want.txt out.txt
fi

# $pgid and $sid are dtrace's own process group and session: the ones
# this shell has (no job control: its children stay in its group), and
# under setsid(1) dtrace's own pid for both
set -- $(sed 's/^.*) //' /proc/$$/stat)
run_in '' -q -n 'BEGIN { printf("%d %d\n", $pgid, $sid); exit(0); }'
expect_eq "\$pgid and \$sid: status" 0 "$status"
expect_eq "\$pgid and \$sid: this shell's" "$3 $4" "$(head -n 1 out.txt)"
if command -v setsid >/dev/null 2>&1; then
	setsid -w "$DTRACE" -q -n 'BEGIN { printf("%d %d\n", $pgid == pid,
	    $sid == pid); exit(0); }' >out.txt 2>err.txt
	expect_eq "\$pgid and \$sid under setsid: status" 0 "$?"
	expect_eq "\$pgid and \$sid under setsid: dtrace's pid" "1 1" \
		"$(head -n 1 out.txt)"
fi

finish
