# SPDX-License-Identifier: MIT
#
# steps-trace.sh - `dtrace -n` through dtrace_fasttrap.ko
# (/dev/dtrace/fasttrap, sdk/include/usdt/fasttrap_abi.h) in the check-kmod guest,
# sourced by /init before steps.sh (name order).  It loads both modules
# itself and unloads them at the end, so steps.sh starts from scratch.
#
# Programs in /kt (tests/kmod/run.sh): trprog with libtrl.so and the
# plugin trplug.so (tests/data/trace, providers tr, trlib, trplug; see
# trprog.c for its commands), and legacy (tests/kmod/legacy.c, provider
# lg), whose guard is a classic is-enabled call.  Covered:
#  - probes in a program, its library and a dlopen()ed plugin, with
#    strings, typed and stack arguments, through the module (it has a
#    consumer and there is no uprobe event while dtrace runs), and the
#    same run through uprobe events (DTRACE_FASTTRAP=0): identical
#    output;
#  - a legacy is-enabled guard is true exactly while traced;
#  - ustack() is refused through the module, naming the backend;
#  - semaphores up only while traced and only in the traced process;
#  - a consumer killed with SIGKILL leaves nothing: semaphores back to 0,
#    no reference on the module, rmmod works;
#  - a forking server (tests/data/fork's fsrv): children forked before
#    tracing, registry-wide, and -c srv$target counted exactly; -c srv*
#    never counts a child's hit twice (the module follows no fork);
#  - the ABI itself (tests/kmod/ftcheck.c): refused requests, a record
#    read back field by field, whole records only, drops when full.

if [ -z "${KMOD_FASTTRAP:-}" ]; then
	skip_test "fasttrap steps" "${KMOD_HELPER_WHY:-no dtrace_fasttrap.ko}"
	return 0
fi

ft_tfs=/sys/kernel/tracing
ft_helper=$(basename "$KMOD_HELPER" .ko)
ft_name=$(basename "$KMOD_FASTTRAP" .ko)
export DTRACE_STATEDIR=/proc/dtrace

# ft_run OUT CMD...: dtrace (at most 120 s) -o OUT, the command's own
# output in OUT.prog, dtrace's stderr in OUT.err; $ft_status
ft_run() {
	ft_out=$1
	shift
	rm -f "$ft_out"
	timeout -s KILL 120 dtrace -o "$ft_out" "$@" >"$ft_out.prog" \
		2>"$ft_out.err" </dev/null
	ft_status=$?
	[ -f "$ft_out" ] || : >"$ft_out"
	[ "$ft_status" -eq 0 ] || diag "dtrace: $(cat "$ft_out.err")"
}

# ft_prog NAME: trprog reading FIFO NAME.in (the caller holds it open on
# a descriptor), answering in NAME.out; $ft_pid
ft_prog() {
	rm -f "$1.in" "$1.out"
	mkfifo "$1.in"
	/kt/trprog <"$1.in" >>"$1.out" 2>&1 &
	ft_pid=$!
}

# ft_ask NAME FD COMMAND: send COMMAND, wait for its "ok" line; the
# answer file is emptied first
ft_ask() {
	: >"$1.out"
	echo "$3" >&"$2"
	wait_until 100 ft_answered "$1.out" "^ok ${3%% *}" ||
		diag "trprog $1: no answer to '$3': $(cat "$1.out")"
}

ft_answered() {
	grep -q -e "$2" "$1" 2>/dev/null
}

ft_refcnt() {
	cat "/sys/module/$ft_name/refcnt" 2>/dev/null
}

ft_gone() {
	! kill -0 "$1" 2>/dev/null
}

if [ -n "$KMOD_HELPER" ]; then
	check "fasttrap: insmod $ft_helper.ko" insmod "$KMOD_HELPER"
fi
if ! check "insmod $ft_name.ko" insmod "$KMOD_FASTTRAP"; then
	diag "$(dmesg | tail -n 20)"
	return 0
fi
wait_until 20 test -c /dev/dtrace/fasttrap
check "/dev/dtrace/fasttrap is a character device" test -c /dev/dtrace/fasttrap
expect_eq "/dev/dtrace/fasttrap is root's only (0600)" 600 \
	"$(stat -c %a /dev/dtrace/fasttrap 2>&1)"

# The ABI driven directly: refused requests, one site read back
/kt/ftcheck >ftcheck.txt 2>&1
ft_status=$?
while read -r ft_word ft_rest; do
	case $ft_word in
	ok) ok "ftcheck: $ft_rest" ;;
	*) not_ok "ftcheck: $ft_rest" ;;
	esac
done <ftcheck.txt
expect_eq "ftcheck exits with 0" 0 "$ft_status"
expect_eq "ftcheck's file closed: no reference on the module" 0 \
	"$(ft_refcnt)"

# ---------------------------------------------------------------------
# The same D program, through the module and through uprobe events

cat >trace.d <<'EOF'
tr$target:::tick { printf("tick %d %s %d\n", arg0, copyinstr(arg1), arg2); }
tr$target:::msg { printf("msg %s %d\n", args[0], args[1]); }
tr$target:::big { printf("big %d %d %d %d %d %d %d %d %d %d %d %d\n",
	arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10,
	arg11); }
trlib$target:::call { printf("lib %s %s %d\n", probemod, probefunc, arg0); }
trplug$target:::hello { printf("plug %s %s %d\n", probemod,
	copyinstr(arg0), arg1); }
EOF
cat >want.txt <<'EOF'
tick 0 alpha 0
tick 1 beta -1000
tick 2 gamma -2000
tick 3 delta -3000
lib libtrl.so trl_call 0
lib libtrl.so trl_call 1
lib libtrl.so trl_call 2
plug trplug.so plugin 0
plug trplug.so plugin 1
msg hello 7
big 1 2 3 4 5 6 7 8 9 10 11 12

EOF
ft_cmd="/kt/trprog 'tick 4' 'lib 3' 'open /kt/trplug.so' 'wait plug' \
'plug 2' msg big"

# Through the module: while it runs, the module has a consumer and
# there is no uprobe event (the program sleeps at the end for that)
dtrace -q -Z -o ft.txt -s trace.d -c "$ft_cmd 'sleep 3000'" >ft.txt.prog \
	2>ft.txt.err </dev/null &
ft_dt=$!
wait_until 600 ft_answered ft.txt.prog '^ok big' ||
	diag "dtrace: $(cat ft.txt.err)"
expect_eq "fasttrap: the module has a consumer while tracing" 1 \
	"$(ft_refcnt)"
expect_eq "fasttrap: no uprobe events while tracing" "" \
	"$(grep dtrace_ "$ft_tfs/uprobe_events" 2>/dev/null)"
wait "$ft_dt"
expect_eq "fasttrap: dtrace exits with 0" 0 "$?"
expect_file "fasttrap: program, library and dlopen()ed plugin probes" \
	want.txt ft.txt

DTRACE_FASTTRAP=0 DTRACE_BACKEND=uprobe ft_run up.txt -q -Z -s trace.d -c "$ft_cmd"
expect_eq "DTRACE_FASTTRAP=0: dtrace exits with 0" 0 "$ft_status"
expect_file "DTRACE_FASTTRAP=0 (uprobe events): identical output" \
	ft.txt up.txt
expect_eq "no uprobe events left" "" \
	"$(grep dtrace_ "$ft_tfs/uprobe_events" 2>&1)"

# a default-output line and the aggregation layout agree as well
ft_run ft2.txt -q -n 'tr$target:::tick { @[copyinstr(arg1)] = sum(arg0); }' \
	-c "/kt/trprog 'tick 12'"
DTRACE_FASTTRAP=0 DTRACE_BACKEND=uprobe ft_run up2.txt -q \
	-n 'tr$target:::tick { @[copyinstr(arg1)] = sum(arg0); }' \
	-c "/kt/trprog 'tick 12'"
expect_file "aggregation: fasttrap and uprobe events agree" ft2.txt up2.txt
expect_eq "aggregation: the sums" "alpha 12 beta 15 delta 21 gamma 18" \
	"$(awk 'NF == 2 { print $1, $2 }' ft2.txt | sort | paste -sd' ' -)"

# threads: every hit, from threads created while traced
ft_run th.txt -q -n 'tr$target:::tick { @ = count(); }' \
	-c "/kt/trprog 'threads 4 500'"
expect_eq "4 threads, 500 hits each: counted" 2000 \
	"$(awk 'NF == 1 { print $1 }' th.txt)"
expect_eq "4 threads: the program agrees" "threads 2000" \
	"$(grep "^threads" th.txt.prog)"

# user stacks: the module copies no stack, so a program that reads one
# (ustack(), ucaller) is refused, naming the backend (consumer/fasttrap.c)
ft_run us.txt -q -n 'tr$target:::tick { @[ustack()] = count(); }' \
	-c "/kt/trprog 'tick 1'"
expect_eq "ustack() through the module: refused" 1 "$ft_status"
check "ustack() refused: the fasttrap backend named" \
	grep -q "which the fasttrap backend (/dev/dtrace/fasttrap) does not" \
	us.txt.err

# threads that exit take their self-> variables along, through the
# module too: 8 threads set one and exit, the main thread keeps its own
# (a joined thread's /proc entry can outlive pthread_join by a moment:
# the 200 ms before done let the last ones go)
ft_run self.txt -v -q -n 'tr$target:::tick { self->n++; }' \
	-n 'tr$target:::done { self->m = 1; exit(0); }' \
	-c "/kt/trprog 'threads 4 3' 'threads 4 3' 'sleep 200' done 'sleep 5000'"
expect_eq "fasttrap: self-> of exited threads dropped" \
	"dtrace: 8 traced threads exited; 1 self-> variable live" \
	"$(grep '^dtrace: .* live$' self.txt.err)"

# ---------------------------------------------------------------------
# A legacy is-enabled guard (31 c0 0f 1f 00): true only while traced

expect_eq "legacy guard untraced: never true" "enabled 0" \
	"$(/kt/legacy 7 2>&1)"
ft_run lg.txt -q -n 'lg$target:::fire { @ = count(); }' -c "/kt/legacy 7"
expect_eq "legacy guard traced: true every time" "enabled 7" \
	"$(cat lg.txt.prog)"
expect_eq "legacy: dtrace counted what the program counted" 7 \
	"$(awk 'NF == 1 { print $1 }' lg.txt)"
ft_run lg2.txt -q -n 'lg$target:::fire { printf("fire %d\n", arg0); }' \
	-c "/kt/legacy 3"
expect_eq "legacy: the guarded probe's argument" "fire 0 fire 1 fire 2" \
	"$(grep fire lg2.txt | paste -sd' ' -)"
expect_eq "legacy guard after tracing: never true" "enabled 0" \
	"$(/kt/legacy 7 2>&1)"

# ---------------------------------------------------------------------
# Semaphores: up only while traced, only in the traced process

ft_prog a
exec 5<>a.in # read-write: never blocks, so no EINTR
wait_until 200 ft_answered a.out '^ready' || diag "trprog a: $(cat a.out)"
ft_a=$ft_pid
ft_prog b
exec 6<>b.in # read-write: never blocks, so no EINTR
wait_until 200 ft_answered b.out '^ready' || diag "trprog b: $(cat b.out)"
ft_b=$ft_pid

ft_ask a 5 enabled
check "semaphores down before tracing" grep -q '^enabled 0 0 -1$' a.out

dtrace -q -o c1.txt -p "$ft_a" \
	-n 'tr$target:::tick { printf("c1 %d\n", arg0); }' \
	-n 'trlib$target:::call { printf("c1 lib %d\n", arg0); }' \
	-n 'BEGIN { printf("ready\n"); }' 2>c1.err </dev/null &
ft_c1=$!
wait_until 300 ft_answered c1.txt '^ready' || diag "c1: $(cat c1.err)"
ft_ask a 5 enabled
check "semaphores up while traced" grep -q '^enabled 1 1 -1$' a.out
ft_ask b 6 enabled
check "same binary, another process: semaphores stay 0" \
	grep -q '^enabled 0 0 -1$' b.out
ft_ask a 5 "tick 2"
ft_ask b 6 "tick 3"
ft_ask a 5 "lib 1"
wait_until 100 ft_answered c1.txt '^c1 lib 0' || diag "c1: $(cat c1.err)"
kill -INT "$ft_c1"
wait_until 100 ft_gone "$ft_c1"
wait "$ft_c1"
expect_eq "-p consumer, SIGINT: status" 0 "$?"
printf 'ready\nc1 0\nc1 1\nc1 lib 0\n\n' >want.txt
expect_file "-p consumer: its process's hits only" want.txt c1.txt
ft_ask a 5 enabled
check "consumer gone: semaphores down" grep -q '^enabled 0 0 -1$' a.out

# SIGKILL: closing the file (the kernel does it) disables everything
dtrace -q -o c2.txt -p "$ft_a" \
	-n 'tr$target:::tick { printf("c2 %d\n", arg0); }' \
	-n 'BEGIN { printf("ready\n"); }' 2>c2.err </dev/null &
ft_c2=$!
wait_until 300 ft_answered c2.txt '^ready' || diag "c2: $(cat c2.err)"
ft_ask a 5 enabled
check "second consumer: semaphore up" grep -q '^enabled 1 0 -1$' a.out
expect_eq "an open consumer holds the module" 1 "$(ft_refcnt)"
kill -KILL "$ft_c2"
wait "$ft_c2"
ft_ask a 5 enabled
check "SIGKILLed consumer: semaphores back to 0" \
	grep -q '^enabled 0 0 -1$' a.out
ft_ask a 5 "tick 1"
check "SIGKILLed consumer: the program runs on" grep -q '^ok tick' a.out
expect_eq "SIGKILLed consumer: no reference on the module left" 0 \
	"$(ft_refcnt)"

echo quit >&5
echo quit >&6
exec 5>&- 6>&-
wait "$ft_a" "$ft_b"

# ---------------------------------------------------------------------
# A forking server (tests/data/fork/fsrv.c, provider srv): every
# process fires srv:::req 5 times and appends "PID HITS" to DIR/pids.
# The module arms a site in one address space and removes the
# breakpoint a forked child inherited at its first hit, so a child is
# traced only through its own registration (drti.o registers again in
# the child), once dtrace has read it and armed the child: never twice,
# and not before (doc/DESIGN.md §8, "forked children").

ft_count='{ @[pid] = count(); } END { printa("%d %@d\n", @); }'

# ft_counts FILE: dtrace's "pid count" lines, sorted
ft_counts() {
	grep -E '^[0-9]+ [0-9]+$' "$1" | sort
}

ft_nreg() {
	[ "$(ls /proc/dtrace/registry | wc -l)" -ge "$1" ]
}

# children forked before tracing starts, each registered, nothing armed
# yet: registry-wide, every process's hits exactly once
rm -rf f1 && mkdir f1
/kt/fsrv /tmp/f1 3 1 0 5 0 1 >f1.log 2>&1 &
ft_srv=$!
wait_until 300 test -e f1/prefork || diag "fsrv: $(cat f1.log)"
wait_until 300 ft_nreg 4 || diag "registry: $(ls /proc/dtrace/registry)"
dtrace -q -o f1.txt -n "srv*:::req $ft_count" \
	-n 'BEGIN { printf("ready\n"); }' 2>f1.err </dev/null &
ft_dt=$!
wait_until 300 ft_answered f1.txt '^ready' || diag "f1: $(cat f1.err)"
touch f1/go
wait_until 600 test -e f1/done || diag "fsrv did not finish: $(cat f1.log)"
wait "$ft_srv"
kill -INT "$ft_dt"
wait_until 100 ft_gone "$ft_dt"
wait "$ft_dt"
expect_eq "fork, registry-wide: dtrace exits with 0" 0 "$?"
expect_eq "fork, registry-wide: fsrv's processes" 4 "$(wc -l <f1/pids)"
sort f1/pids >f1.want
ft_counts f1.txt >f1.got
expect_file "fasttrap: children forked before tracing: every hit once" \
	f1.want f1.got

# -c of a forking parent, srv$target: the parent's hits once; its
# children fire the breakpoints they inherited, which no description
# matches (a child is srv<its pid>)
rm -rf f2 && mkdir f2 && touch f2/go
ft_run f2.txt -q -n "srv\$target:::req $ft_count" \
	-c "/kt/fsrv /tmp/f2 3 1 0 5 0 0"
expect_eq "fork, -c srv\$target: dtrace exits with 0" 0 "$ft_status"
expect_eq "fork, -c srv\$target: fsrv's processes" 4 "$(wc -l <f2/pids)"
grep "^$(tail -n 1 f2/pids | cut -d' ' -f1) " f2/pids >f2.want
ft_counts f2.txt >f2.got
expect_file "fasttrap: -c srv\$target of a forking parent: its hits once" \
	f2.want f2.got

# -c, srv*: the parent's hits once; a child forked while traced counts
# from when dtrace armed it (its registration read), so at most its
# hits, never another process's (the module follows no fork)
rm -rf f3 && mkdir f3 && touch f3/go
ft_run f3.txt -q -n "srv*:::req $ft_count" -c "/kt/fsrv /tmp/f3 3 1 0 5 0 0"
expect_eq "fork, -c srv*: dtrace exits with 0" 0 "$ft_status"
ft_f3=$(tail -n 1 f3/pids | cut -d' ' -f1)
expect_eq "fasttrap: -c srv* of a forking parent: the parent's hits once" \
	"$ft_f3 5" "$(grep "^$ft_f3 " f3.txt)"
ft_counts f3.txt >f3.got
expect_eq "fasttrap: -c srv*: no child counted more than it fired" "" \
	"$(awk 'NR == FNR { h[$1] = $2; next }
		!($1 in h) || $2 > h[$1]' f3/pids f3.got)"
diag "fork, -c srv*: fsrv's counts: $(sort f3/pids | paste -sd' ' -);" \
	"dtrace's: $(paste -sd' ' - <f3.got)"

# A full ring: drops counted, nothing lost in between (a 64 KiB ring
# holds 372 of ftcheck's 176-byte records)
rmmod "$ft_name"
check "insmod $ft_name.ko ring_kib=64" insmod "$KMOD_FASTTRAP" ring_kib=64
wait_until 20 test -c /dev/dtrace/fasttrap
/kt/ftcheck drops 1000 >ftcheck.txt 2>&1
ft_status=$?
while read -r ft_word ft_rest; do
	case $ft_word in
	ok) ok "ftcheck: $ft_rest" ;;
	*) not_ok "ftcheck: $ft_rest" ;;
	esac
done <ftcheck.txt
expect_eq "ftcheck drops exits with 0" 0 "$ft_status"

check "rmmod $ft_name" rmmod "$ft_name"
check "rmmod: /dev/dtrace/fasttrap is gone" test ! -e /dev/dtrace/fasttrap
if [ -n "$KMOD_HELPER" ]; then
	check "fasttrap: rmmod $ft_helper" rmmod "$ft_helper"
fi
unset DTRACE_STATEDIR
