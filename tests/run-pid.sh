#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-pid.sh: the pid provider (dtrace-G/objects/pidfuncs.c,
# dtrace-G/consumer/pidprov.c) on real processes with real uprobes.
#
# tests/data/pid/pidprog.c has no probes: functions that are never
# inlined, called a known number of times with known arguments, and
# calls of getpid(2) in libc; it runs the commands given as arguments
# (-c) or read from a FIFO (-p).  Every case runs on each backend this
# dtrace has (the BPF backend where it loads, and uprobe events).  Covered:
#  - entry and return counts, with -c and with -p;
#  - arguments (six in registers, two on the stack, args[]) and return
#    values (arg1; arg0 is 0), exact, for gcc and for clang builds;
#  - a libc function (getpid) counted while the program calls it N
#    times, its return value the pid;
#  - an instruction offset probe (found with objdump), its arguments;
#  - errors, with their text and exit status and no uprobe event left:
#    an offset inside an instruction, past the function, a name that is
#    no probe point, a function that does not exist, a glob past the cap;
#  - globs over function, module and name; "a.out" and the executable's
#    name; a function's other symbol; probefunc/probemod/probename;
#  - -F flow indent over entry and return;
#  - a forked child's calls are not counted (pid probes do not follow
#    fork, as in DTrace);
#  - dtrace -l -c/-p listing pid probes (columns as for USDT), -lv sites;
#  - kernel-side aggregation on pid probes (bpf backend: -v says so).
# Needs root and a kernel with uprobe events (tracefs) and perf events.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/pid

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and perf_event_open need root"
command -v objdump >/dev/null 2>&1 || skip "no objdump (binutils)"
case $(uname -m) in
x86_64) ;;
*) skip "the pid provider reads x86-64 registers; this is $(uname -m)" ;;
esac
require_uprobe_events

pid_cleanup() {
	for p in $bg_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap pid_cleanup EXIT
trap 'exit 1' INT TERM HUP

# no helper: nothing registered, the probe IDs start after BEGIN/END/ERROR
DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

$CC -O2 -o pidprog "$data/pidprog.c" || {
	fail "building pidprog with $CC"
	finish
}
clang_ok=false
cl=${CLANG:-clang}
if command -v "${cl%% *}" >/dev/null 2>&1 &&
	$cl -O2 -o pidprog-clang "$data/pidprog.c"; then
	clang_ok=true
fi

# offsets of pid_work's instructions: the second instruction (pid_work
# is straight-line code: it runs once per call), and one byte into the
# first, which is longer than one byte (lea)
insns() {
	objdump -d --no-show-raw-insn "$1" |
		awk '/^[0-9a-f]+ <pid_work>:$/ { on = 1; next }
		     on && /^$/ { exit }
		     on { sub(":", "", $1); print $1 }'
}
set -- $(insns pidprog)
[ $# -ge 2 ] || { fail "objdump found no pid_work in pidprog"; finish; }
first=$1
off2=$(printf '%x' $((0x$2 - 0x$1)))
[ $((0x$2 - 0x$1)) -gt 1 ] || { fail "pid_work's first instruction is one byte"; finish; }
size=$(nm -S pidprog | awk '$4 == "pid_work" { print $2 }')
n_insn=0
for a in $(insns pidprog); do
	[ $((0x$a - 0x$first)) -lt $((0x$size)) ] && n_insn=$((n_insn + 1))
done

# ---------------------------------------------------------------------
# Helpers

# trun ARGS...: dtrace (at most 120 s), output in out.txt, stderr in
# err.txt, exit status in $status
trun() {
	rm -f out.txt
	timeout -s KILL 120 "$DTRACE" -o out.txt "$@" 2>err.txt </dev/null
	status=$?
	[ -f out.txt ] || : >out.txt
}

# expect_out WHAT EXPECTED: out.txt is exactly EXPECTED (printf %b)
expect_out() {
	printf '%b' "$2" >expected.txt
	expect_file_eq "$1" expected.txt out.txt
}

# expect_err WHAT EXPECTED: err.txt is exactly EXPECTED (printf %b),
# the pid of the run written PID
expect_err() {
	printf '%b' "$2" >expected.txt
	sed -E 's/pid[0-9]+/pidPID/g; s/pid [0-9]+/pid PID/g' err.txt >err-n.txt
	expect_file_eq "$1" expected.txt err-n.txt
}

# left: uprobe events (p: or r:) on this test's programs whose consumer
# is gone
left() {
	grep -E '^[pr]:dtrace_' "$tfs/uprobe_events" | grep -F " $tmp/" |
	while IFS=/ read -r g rest; do
		g=${g#?:dtrace_}
		pid=${g%%_*}
		[ -d "/proc/$pid" ] || echo "$g/$rest"
	done
}

backends=uprobe
[ "${HAVE_BPF:-no}" = yes ] && backends="bpf uprobe"

for be in $backends; do
DTRACE_BACKEND=$be
export DTRACE_BACKEND
echo "# backend $be"

# ---------------------------------------------------------------------
# 1. -c: entry and return counts, arguments, return values

trun -q -n 'pid$target:a.out:pid_work:entry,pid$target:a.out:pid_work:return,
	pid$target:a.out:pid_add3:entry,pid$target:a.out:pid_add3:return
	{ @[probefunc, probename] = count(); }' -c "./pidprog 'work 5'"
expect_eq "$be: counts: status" 0 "$status"
expect_out "$be: entry and return counts" "
  pid_add3                                            entry                                                             5
  pid_add3                                            return                                                            5
  pid_work                                            entry                                                             5
  pid_work                                            return                                                            5
"

trun -q -n 'pid$target:a.out:pid_add3:entry { printf("%s %s(%d, %d, %d)\n", probemod, probefunc, arg0, arg1, args[2]); }
	pid$target:a.out:pid_add3:return { printf("%s %s %d %d\n", probefunc, probename, arg0, arg1); }' \
	-c "./pidprog 'work 3'"
expect_out "$be: arguments and return values" 'pidprog pid_add3(0, 0, 0)\npid_add3 return 0 0\npidprog pid_add3(1, 10, 100)\npid_add3 return 0 111\npidprog pid_add3(2, 20, 200)\npid_add3 return 0 222\n\n'

# eight arguments, two on the stack; an int return value is %eax
trun -q -n 'pid$target:a.out:pid_many8:entry { printf("%d %d %d %d %d %d %d %d\n",
	    arg0, arg1, arg2, arg3, arg4, arg5, arg6, args[7]); }
	pid$target:a.out:pid_many8:return,pid$target:a.out:pid_neg:return
	{ printf("%s %d %d\n", probefunc, arg1, (int)arg1); }' -c "./pidprog many neg"
expect_out "$be: stack arguments, return values" '1 2 3 4 5 6 7 8\npid_many8 36 36\npid_neg 4294967291 -5\n\n'

# ---------------------------------------------------------------------
# 2. a libc function

trun -q -n 'pid$target:libc.so.6:getpid:entry { @e = count(); }
	pid$target:libc.so.6:getpid:return /arg1 == pid/ { @r = count(); }
	END { printa("entry %@d\n", @e); printa("return %@d\n", @r); }' \
	-c "./pidprog 'getpid 7'"
expect_out "$be: libc getpid counted" 'entry 7\nreturn 7\n\n'

# ---------------------------------------------------------------------
# 3. an instruction offset

trun -q -n "pid\$target:a.out:pid_work:$off2 { printf(\"%s %s %d\\n\", probefunc, probename, arg0); }" \
	-c "./pidprog 'work 3'"
expect_out "$be: offset probe" "pid_work $off2 0\\npid_work $off2 1\\npid_work $off2 2\\n\\n"

# ---------------------------------------------------------------------
# 4. errors: text, status, nothing armed or left

trun -q -n 'pid$target:a.out:pid_work:1 { }' -c "./pidprog 'work 1'"
expect_eq "$be: offset inside an instruction: status" 1 "$status"
expect_err "$be: offset inside an instruction: message" 'dtrace: invalid probe specifier pidPID:a.out:pid_work:1: offset 0x1 is not on an instruction boundary of pid_work: it lies inside the instruction at offset 0x0\n'
expect_eq "$be: offset inside an instruction: no output" "" "$(cat out.txt)"

trun -q -n 'pid$target:a.out:pid_work:1000 { }' -c "./pidprog 'work 1'"
expect_eq "$be: offset past the function: status" 1 "$status"
expect_grep "$be: offset past the function: message" "^dtrace: invalid probe specifier pid[0-9]*:a.out:pid_work:1000: offset 0x1000 is outside function pid_work (0x[0-9a-f]* bytes) in /.*/pidprog\$" err.txt

trun -q -n 'pid$target:a.out:pid_work:start { }' -c "./pidprog 'work 1'"
expect_eq "$be: bad probe name: status" 1 "$status"
expect_err "$be: bad probe name: message" "dtrace: invalid probe specifier pidPID:a.out:pid_work:start: 'start' is not a pid probe name: entry, return or an instruction offset in hex\\n"

trun -q -n 'pid$target:a.out:no_such_function:entry { }' -c "./pidprog 'work 1'"
expect_eq "$be: no such function: status" 1 "$status"
expect_err "$be: no such function: message" 'dtrace: invalid probe specifier pidPID:a.out:no_such_function:entry: probe description pidPID:a.out:no_such_function:entry does not match any probes\n'

# every offset of every libc function: more than one run arms
trun -q -n 'pid$target:libc.so.6:: { }' -c "./pidprog 'work 1'"
expect_eq "$be: glob past the cap: status" 1 "$status"
expect_grep "$be: glob past the cap: message" '^dtrace: invalid probe specifier pid[0-9]*:libc.so.6::: it selects [0-9]* probe sites in libc.so.6, and one run arms at most 4000 pid probes: name fewer functions$' err.txt

trun -q -n 'pid999999999:a.out:main:entry { }'
expect_eq "$be: no such process: status" 1 "$status"
expect_err "$be: no such process: message" 'dtrace: invalid probe specifier pidPID:a.out:main:entry: failed to grab pid PID: No such process\n'

expect_eq "$be: no uprobe event left after the errors" "" "$(left)"

# ---------------------------------------------------------------------
# 5. globs, module names, aliases, the probe's names

trun -q -n 'pid$target:a.out:pid_*:entry { @[probemod, probefunc] = count(); }' \
	-c "./pidprog 'work 2' many neg flow"
expect_out "$be: glob over functions" "
  pidprog                                             pid_many8                                                         1
  pidprog                                             pid_neg                                                           1
  pidprog                                             pid_outer                                                         1
  pidprog                                             pid_add3                                                          2
  pidprog                                             pid_inner                                                         2
  pidprog                                             pid_work                                                          2
"

# the executable by its name, libc by a glob, a function's other name
trun -q -n 'pid$target:pidprog:pid_wor?:entry, pid$target:libc.so.*:getpi[d]:return,
	pid$target:a.out:pid_sum3:entry { @[probemod, probefunc, probename] = count(); }' \
	-c "./pidprog 'work 2' 'getpid 3'"
expect_out "$be: module by name, globs, a second symbol" "
  pidprog                                             pid_add3                                            entry                                                             2
  pidprog                                             pid_work                                            entry                                                             2
  libc.so.6                                           getpid                                              return                                                            3
"

# a name glob: entry, return and every instruction offset of pid_work
# (straight-line code: each of its instructions runs once per call); on
# bpf the nested ?: key is counted in the kernel (kplan_str.c's
# kp_lit_key(): this tree before left it to user space, a record a hit)
trun -v -q -n 'pid$target:a.out:pid_work: { @[probename == "entry" ? "entry" : probename == "return" ? "return" : "offset"] = count(); }' \
	-c "./pidprog 'work 3'"
expect_grep "$be: name glob: every instruction offset" "^  offset  *$((3 * n_insn))\$" out.txt
expect_grep "$be: name glob: entry" '^  entry  *3$' out.txt
expect_grep "$be: name glob: return" '^  return  *3$' out.txt
[ "$be" != bpf ] || expect_grep "$be: name glob: in the kernel" \
	'^dtrace: 1 clause aggregated in the kernel$' err.txt

# ---------------------------------------------------------------------
# 6. -F: flow indent

trun -F -n 'pid$target:a.out:pid_outer:entry,pid$target:a.out:pid_outer:return,
	pid$target:a.out:pid_inner:entry,pid$target:a.out:pid_inner:return {}' -c "./pidprog flow"
sed -E 's/^ *[0-9]+  //; s/ +$//' out.txt >flow.txt
printf '%s\n' 'CPU FUNCTION' '-> pid_outer' '  -> pid_inner' '  <- pid_inner' \
	'  -> pid_inner' '  <- pid_inner' '<- pid_outer' '' >expected.txt
expect_file_eq "$be: -F flow indent" expected.txt flow.txt

# ---------------------------------------------------------------------
# 7. a forked child has no pid probes

trun -q -n 'pid$target:a.out:pid_work:entry { @[pid == $target ? "parent" : "child"] = count(); }
	pid$target:a.out::entry /pid != $target/ { @other = count(); }' -c "./pidprog 'fork 3'"
expect_out "$be: fork: only the traced process counts" '\n  parent                                                            3\n'

# ---------------------------------------------------------------------
# 8. -p

rm -f p.in p.out p.txt
mkfifo p.in
./pidprog <p.in >p.out 2>&1 3>&- &
prog=$!
bg_pids="$bg_pids $prog"
exec 3>p.in
wait_until 100 grep -q '^ready' p.out || fail "$be: pidprog did not start"
"$DTRACE" -q -o p.txt -p "$prog" -n 'BEGIN { printf("ready\n"); }
	pid$target:a.out:pid_work:entry,pid$target:libc.so.6:getpid:entry { @[probefunc] = count(); }
	pid$target:a.out:pid_add3:return { @s = sum(arg1); }' 2>p.err </dev/null &
dt=$!
bg_pids="$bg_pids $dt"
if wait_until 600 grep -qs '^ready$' p.txt; then
	echo "work 4" >&3
	echo "getpid 5" >&3
	echo quit >&3
	wait_until 300 dead "$dt" || fail "$be: -p: dtrace did not end with its target"
fi
exec 3>&-
wait "$prog" 2>/dev/null
forget_pid "$prog"
stop_pid "$dt"
expect_eq "$be: -p: status" 0 "$stop_status"
printf 'ready\n\n  pid_work                                                          4\n  getpid                                                            5\n              666\n' >expected.txt
expect_file_eq "$be: -p: counts" expected.txt p.txt

# ---------------------------------------------------------------------
# 9. clang

if $clang_ok; then
	trun -q -n 'pid$target:a.out:pid_add3:entry { printf("%d %d %d\n", arg0, arg1, arg2); }
		pid$target:a.out:pid_work:return,pid$target:a.out:pid_many8:return { printf("%s %d\n", probefunc, arg1); }
		pid$target:a.out:pid_*:entry { @[probefunc] = count(); }' \
		-c "./pidprog-clang 'work 2' many"
	expect_out "$be: clang build" 'pid_work 1\n0 0 0\npid_work 4\n1 10 100\npid_many8 36\n\n  pid_many8                                                         1\n  pid_add3                                                          2\n  pid_work                                                          2\n'
else
	echo "# no clang: the clang build is not tested"
fi

# ---------------------------------------------------------------------
# 10. kernel-side aggregation (bpf): the same counts, run in the kernel

if [ "$be" = bpf ]; then
	rm -f out.txt
	timeout -s KILL 120 "$DTRACE" -v -q -o out.txt -n 'pid$target:a.out:pid_work:entry { @[arg0] = count(); }
		pid$target:a.out:pid_add3:return { @s = sum(arg1); }' \
		-c "./pidprog 'work 3'" 2>err.txt </dev/null
	expect_out "$be: kernel aggregation: output" '\n                0                1\n                1                1\n                2                1\n              333\n'
	expect_grep "$be: kernel aggregation: in the kernel" '^dtrace: 2 clauses aggregated in the kernel$' err.txt

	# a clause with no statement, its predicate a self-> variable the
	# kernel keeps: the kernel's (its record the default line, -F's
	# and JSON's), three ways alike but for the CPU (this tree before
	# ran it in user space from every record, -v said "it has no
	# statement")
	cat >empty.d <<'EOF2'
pid$target:a.out:pid_outer:entry { self->in = 1; }
pid$target:a.out:pid_outer:entry,pid$target:a.out:pid_outer:return,
pid$target:a.out:pid_inner:entry,pid$target:a.out:pid_inner:return
/self->in/ {}
pid$target:a.out:pid_outer:return { self->in = 0; }
EOF2
	for em in 1 0 k; do
		for ef in F json; do
			case $ef in
			F) eo=-F ;;
			*) eo='-x oformat=json' ;;
			esac
			rm -f out.txt
			if [ $em = k ]; then
				DTRACE_KAGG=0 timeout -s KILL 120 "$DTRACE" -v \
					$eo -o out.txt -s empty.d -c "./pidprog flow" \
					2>"empty-$em-$ef.err" </dev/null
			else
				DTRACE_CGEN=$em timeout -s KILL 120 "$DTRACE" -v \
					$eo -o out.txt -s empty.d -c "./pidprog flow" \
					2>"empty-$em-$ef.err" </dev/null
			fi
			sed -E 's/^ *[0-9]+  //; s/"cpu":[0-9]+/"cpu":C/; s/pid[0-9]+"/pidN"/' \
				out.txt >"empty-$em-$ef.txt"
		done
	done
	expect_grep "$be: a clause with no statement: -F" '^  -> pid_inner *$' empty-1-F.txt
	expect_eq "$be: a clause with no statement: JSON records" 6 \
		"$(grep -c '"name":"\(entry\|return\)","output":""}$' empty-1-json.txt)"
	for ef in F json; do
		expect_file_eq "$be: a clause with no statement ($ef): DTRACE_CGEN=0's" \
			empty-0-$ef.txt empty-1-$ef.txt
		expect_file_eq "$be: a clause with no statement ($ef): DTRACE_KAGG=0's" \
			empty-k-$ef.txt empty-1-$ef.txt
		expect_grep "$be: a clause with no statement ($ef): -v" \
			'^dtrace: 1 clause printing values computed in the kernel$' empty-1-$ef.err
		expect_eq "$be: a clause with no statement ($ef): none in user space" "" \
			"$(grep 'runs in user space' empty-1-$ef.err)"
	done
fi

expect_eq "$be: no uprobe event left" "" "$(left)"
done

# ---------------------------------------------------------------------
# 11. dtrace -l

DTRACE_BACKEND=
"$DTRACE" -l -n 'pid$target:a.out:pid_w*:entry' -n 'pid$target:a.out:pid_work:return' \
	-n 'pid$target:libc.so.6:getpid:entry' -c ./pidprog >out.txt 2>err.txt
status=$?
expect_eq "-l -c: status" 0 "$status"
# the listed process is gone: its pid from the rows
lpid=$(awk 'NR == 2 { sub("pid", "", $2); print $2 }' out.txt)
{
	printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
	printf '%5s %10s %17s %33s %s\n' 4 "pid$lpid" pidprog pid_work entry
	printf '%5s %10s %17s %33s %s\n' 5 "pid$lpid" pidprog pid_work return
	printf '%5s %10s %17s %33s %s\n' 6 "pid$lpid" libc.so.6 getpid entry
} >expected.txt
expect_file_eq "-l -c: rows" expected.txt out.txt
expect_eq "-l -c: the command was killed after the listing" "" \
	"$(ls -d "/proc/$lpid" 2>/dev/null)"
expect_eq "-l -c: nothing on stderr" "" "$(cat err.txt)"

rm -f p.in p.out
mkfifo p.in
./pidprog <p.in >p.out 2>&1 3>&- &
prog=$!
bg_pids="$bg_pids $prog"
exec 3>p.in
wait_until 100 grep -q '^ready' p.out || fail "-l -p: pidprog did not start"
"$DTRACE" -lv -n "pid$prog:a.out:pid_work:$off2" -p "$prog" >out.txt 2>err.txt
status=$?
expect_eq "-lv -p: status" 0 "$status"
base=$(awk -v f="$tmp/pidprog" '$6 == f && $2 ~ /x/ { split($1, a, "-"); print a[1]; exit }' "/proc/$prog/maps")
moff=$(awk -v f="$tmp/pidprog" '$6 == f && $2 ~ /x/ { print $3; exit }' "/proc/$prog/maps")
fileoff=$(objdump -h pidprog | awk '$2 == ".text" { print $4, $6 }')
set -- $fileoff
site=$(printf '0x%x' $((0x$base - 0x$moff + 0x$2 + (0x$first - 0x$1) + 0x$off2)))
expect_grep "-lv -p: the row" "^ *4 *pid$prog *pidprog *pid_work $off2\$" out.txt
expect_grep "-lv -p: the site's run-time address" "^		$site\$" out.txt
"$DTRACE" -l -n "pid$prog:a.out:pid_work:1" -p "$prog" >out.txt 2>err.txt
expect_eq "-l: offset inside an instruction: status" 1 "$?"
expect_err "-l: offset inside an instruction: message" 'dtrace: invalid probe description pidPID:a.out:pid_work:1: offset 0x1 is not on an instruction boundary of pid_work: it lies inside the instruction at offset 0x0\n'
echo quit >&3
exec 3>&-
wait "$prog" 2>/dev/null
forget_pid "$prog"

finish
