#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-interp-d.sh: the D scripts and command lines of the DTrace tests
# that interpreters ship (CPython's Lib/test/test_dtrace.py and
# dtracedata/*.d, Perl's t/run/dtrace.t, Ruby's test/dtrace/*.rb), run
# against tests/data/interp/interp, a stand-in that fires the same kind
# of probes from a "script" on its standard input.  `make check-interp`
# (tests/interp/run-interp-dtrace.sh) runs the interpreters' own tests;
# this keeps what they need from dtrace in `make check`, where no
# interpreter is built.  Covered:
#  - CPython: `dtrace -q -s FILE -c CMD`; `self int indent;`, printf
#    widths from arguments (%*s), basename(copyinstr(arg0)), probename,
#    self->indent++/--, two clauses per probe run in order, the
#    "timestamp<TAB>text" lines the test sorts by time (call_stack.d,
#    line.d, gc.d);
#  - Perl: `dtrace -qnBEGIN -c CMD` exits 0; several -n, each a whole
#    program of provider-less descriptions; BEGIN's trace("ready!\n")
#    first; the command reads its standard input (dtrace's); globals
#    assigned without declaration; copyinstr() of a global holding an
#    earlier probe's argument, read when the last probes' records run
#    after the process has exited (a string literal: read from the file
#    it is mapped from, consumer/deadmem.c); the same for writable data
#    is an invalid address, never the file's stale bytes;
#  - Ruby: /arg0 && arg1 && arg2/ and strstr(copyinstr(arg0), "Foo")
#    != NULL predicates.
# -x switchrate=10s in the Perl cases: the records are then read when
# the process has exited (the pidfd wakes dtrace), whatever the
# machine's speed, so the after-exit read is what is tested.
# Needs root and uprobe events, as run-trace.sh.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and perf_event_open need root"
require_G
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

interp_build

# normalize: test_dtrace.py's normalize_trace_output(): the lines that
# are not blank or "#", each "TIMESTAMP<TAB>TEXT", sorted by timestamp,
# the text kept; "unparsable" when a line is not of that form
normalize() {
	awk -F '\t' '
		$0 == "" || /^#/ { next }
		NF < 2 || $1 !~ /^[0-9]+$/ { bad = 1 }
		{ print }
		END { if (bad) print "unparsable" }' "$1" |
		sort -s -n -k1,1 | cut -f2-
}

# ---------------------------------------------------------------------
# CPython: dtracedata/call_stack.d, as test_dtrace.py runs it

cat >call_stack.d <<'EOF'
self int indent;

interp$target:::function-entry
/copyinstr(arg1) == "start"/
{
    self->trace = 1;
}

interp$target:::function-entry
/self->trace/
{
    printf("%d\t%*s:", timestamp, 15, probename);
    printf("%*s", self->indent, "");
    printf("%s:%s:%d\n", basename(copyinstr(arg0)), copyinstr(arg1), arg2);
    self->indent++;
}

interp$target:::function-return
/self->trace/
{
    self->indent--;
    printf("%d\t%*s:", timestamp, 15, probename);
    printf("%*s", self->indent, "");
    printf("%s:%s:%d\n", basename(copyinstr(arg0)), copyinstr(arg1), arg2);
}

interp$target:::function-return
/copyinstr(arg1) == "start"/
{
    self->trace = 0;
}
EOF
cat >calls.txt <<'EOF'
call /usr/lib/python3/os.py fspath 10
return /usr/lib/python3/os.py fspath 11
call /src/call_stack.py start 23
call /src/call_stack.py function_1 1
call /src/call_stack.py function_3 9
return /src/call_stack.py function_3 10
return /src/call_stack.py function_1 2
call /src/call_stack.py function_2 5
call /src/call_stack.py function_1 1
call /src/call_stack.py function_3 9
return /src/call_stack.py function_3 10
return /src/call_stack.py function_1 2
return /src/call_stack.py function_2 6
return /src/call_stack.py start 28
call /src/call_stack.py after 30
return /src/call_stack.py after 31
EOF
"$DTRACE" -q -s call_stack.d -c ./interp <calls.txt >out.txt 2>&1
expect_eq "call_stack.d: exit status" 0 $?
normalize out.txt >got.txt
cat >want.txt <<'EOF'
 function-entry:call_stack.py:start:23
 function-entry: call_stack.py:function_1:1
 function-entry:  call_stack.py:function_3:9
function-return:  call_stack.py:function_3:10
function-return: call_stack.py:function_1:2
 function-entry: call_stack.py:function_2:5
 function-entry:  call_stack.py:function_1:1
 function-entry:   call_stack.py:function_3:9
function-return:   call_stack.py:function_3:10
function-return:  call_stack.py:function_1:2
function-return: call_stack.py:function_2:6
function-return:call_stack.py:start:28
EOF
expect_file_eq "call_stack.d" want.txt got.txt

# dtracedata/line.d
cat >line.d <<'EOF'
interp$target:::line
/(copyinstr(arg1)=="test_line")/
{
    printf("%d\t%s:%s:%s:%d\n", timestamp,
        probename, basename(copyinstr(arg0)),
        copyinstr(arg1), arg2);
}
EOF
printf 'line /src/line.py test_line %d\nline /src/line.py other 9\n' \
	2 3 4 >lines.txt
"$DTRACE" -q -s line.d -c ./interp <lines.txt >out.txt 2>&1
expect_eq "line.d: exit status" 0 $?
normalize out.txt >got.txt
printf 'line:line.py:test_line:%d\n' 2 3 4 >want.txt
expect_file_eq "line.d" want.txt got.txt

# dtracedata/gc.d
cat >gc.d <<'EOF'
interp$target:::function-entry
/copyinstr(arg1) == "start"/
{
    self->trace = 1;
}

interp$target:::gc-start,
interp$target:::gc-done
/self->trace/
{
    printf("%d\t%s:%ld\n", timestamp, probename, arg0);
}

interp$target:::function-return
/copyinstr(arg1) == "start"/
{
    self->trace = 0;
}
EOF
cat >gcs.txt <<'EOF'
gc 2 5
call /src/gc.py start 3
gc 0 0
gc 2 1
return /src/gc.py start 10
gc 1 7
EOF
"$DTRACE" -q -s gc.d -c ./interp <gcs.txt >out.txt 2>&1
expect_eq "gc.d: exit status" 0 $?
normalize out.txt >got.txt
printf 'gc-start:0\ngc-done:0\ngc-start:2\ngc-done:1\n' >want.txt
expect_file_eq "gc.d" want.txt got.txt

# ---------------------------------------------------------------------
# Perl: t/run/dtrace.t's probe of dtrace itself, then its dtrace_like()

"$DTRACE" -qnBEGIN -c ./interp </dev/null >out.txt 2>err.txt
expect_eq "-qnBEGIN -c: exit status" 0 $?
expect_eq "-qnBEGIN -c: output" "" "$(cat out.txt)"
expect_eq "-qnBEGIN -c: errors" "" "$(cat err.txt)"

# "traced multiple function calls"
printf 'sub outer 2\nsub inner 4\nsub inner 4\n' >subs.txt
"$DTRACE" -q -n 'BEGIN { trace("ready!\n") }' \
	-n 'sub-entry { printf("-> %s::%s at %s line %d!\n", copyinstr(arg3), copyinstr(arg0), copyinstr(arg1), arg2) }' \
	-c ./interp <subs.txt >out.txt 2>err.txt
expect_eq "sub-entry: exit status" 0 $?
printf 'ready!\n-> main::outer at - line 2!\n-> main::inner at - line 4!\n-> main::inner at - line 4!\n\n' >want.txt
expect_file_eq "sub-entry" want.txt out.txt

# "make sure sub-entry and phase-change interact well": phase keeps
# phase-change's arg0, a literal in interp's .rodata, read by the
# predicate of sub-entry; baz fires just before interp exits
printf 'phase START\nphase INIT\nsub foo 2\nphase RUN\nsub bar 3\nphase END\nsub baz 4\n' >phases.txt
"$DTRACE" -q -x switchrate=10s -n 'BEGIN { trace("ready!\n") }' -n '
    BEGIN { starting = 1 }

    phase-change                            { phase    = arg0 }
    phase-change /copyinstr(arg0) == "RUN"/ { starting = 0 }
    phase-change /copyinstr(arg0) == "END"/ { ending   = 1 }

    sub-entry /copyinstr(arg0) != copyinstr(phase) && (starting || ending)/ {
        printf("%s during %s; ", copyinstr(arg0), copyinstr(phase));
    }
    ' -c ./interp <phases.txt >out.txt 2>err.txt
expect_eq "phase-change and sub-entry: exit status" 0 $?
printf 'ready!\nfoo during INIT; baz during END; \n' >want.txt
expect_file_eq "phase-change and sub-entry" want.txt out.txt
expect_eq "phase-change and sub-entry: errors" "" "$(cat err.txt)"

# writable data of an exited process is not read from its file: note's
# buffer holds "changed" when the probes fire, the file "the file's bytes"
printf 'note changed\nphase RUN\n' >note.txt
"$DTRACE" -q -x switchrate=10s -n 'note { p = arg0 }' \
	-n 'phase-change /p/ { printf("%s\n", copyinstr(p)); }' \
	-c ./interp <note.txt >out.txt 2>err.txt
expect_eq "writable data after exit: exit status" 0 $?
expect_eq "writable data after exit: output" "" "$(cat out.txt)"
expect_eq "writable data after exit: error" \
	"dtrace: error on enabled probe ID E (ID N: interpPID:interp:main:phase-change): invalid address (ADDR) in action #1" \
	"$(sed -E 's/probe ID [0-9]+ /probe ID E /; s/\(ID [0-9]+:/(ID N:/; s/interp[0-9]+:/interpPID:/; s/0x[0-9a-f]+/ADDR/' err.txt)"

# ---------------------------------------------------------------------
# Ruby: test_function_entry.rb's and test_singleton_function.rb's
# predicates

printf 'call /t/probed.rb Foo 3\ncall /t/probed.rb Bar 3\ncall /t/probed.rb #<Class:Foo> 5\n' >rb.txt
cat >rb.d <<'EOF'
interp$target:::function-entry
/arg0 && arg1 && arg2/
{
  printf("%s %s %d\n", copyinstr(arg0), copyinstr(arg1), arg2);
}

interp$target:::function-entry
/strstr(copyinstr(arg1), "Foo") != NULL/
{
  printf("Foo in %s\n", copyinstr(arg1));
}
EOF
"$DTRACE" -q -s rb.d -c ./interp <rb.txt >out.txt 2>err.txt
expect_eq "ruby predicates: exit status" 0 $?
cat >want.txt <<'EOF'
/t/probed.rb Foo 3
Foo in Foo
/t/probed.rb Bar 3
/t/probed.rb #<Class:Foo> 5
Foo in #<Class:Foo>

EOF
expect_file_eq "ruby predicates" want.txt out.txt

finish
