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
#  - ustack() and vtimestamp are refused through the module, naming the
#    backend;
#  - semaphores up only while traced and only in the traced process;
#  - a consumer killed with SIGKILL leaves nothing: semaphores back to 0,
#    no reference on the module, rmmod works;
#  - a forking server (tests/data/fork's fsrv, fsrv2): children forked
#    before and while tracing, children of children, two consumers at
#    once, fork then exec (of another file and of the same file), -c
#    srv*, -c and -p srv$target: every hit
#    counted exactly once, in 3 rounds (the module follows
#    forks for srv* sites: FT_FOLLOW);
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

# the checks before the forking server (KMOD_FT_ONLY skips them)
ft_basic() {
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
# nor the thread's CPU time: vtimestamp is refused (consumer/vtime.c)
ft_run vt.txt -q -n 'tr$target:::tick { trace(vtimestamp); }' \
	-c "/kt/trprog 'tick 1'"
expect_eq "vtimestamp through the module: refused" 1 "$ft_status"
check "vtimestamp refused: the fasttrap backend named" \
	grep -q "vtimestamp with the fasttrap module backend" vt.txt.err
# nor the ids: uid and gid are refused (consumer/psargs.c's cred_check()),
# not given as a /proc snapshot a setuid() could have made stale
ft_run ui.txt -q -n 'tr$target:::tick { trace(uid); }' \
	-c "/kt/trprog 'tick 1'"
expect_eq "uid through the module: refused" 1 "$ft_status"
check "uid refused: the fasttrap backend named" \
	grep -q "uid or gid (curpsinfo->pr_uid, pr_gid) with the fasttrap module backend" \
	ui.txt.err

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

}
[ -n "${KMOD_FT_ONLY:-}" ] || ft_basic

# ---------------------------------------------------------------------
# A forking server (tests/data/fork/fsrv.c, provider srv): every
# process fires srv:::req K times and appends "PID HITS" to DIR/pids.
# A site that srv* matches is armed with FT_FOLLOW: the module follows
# the process's forks (children of children too), a child's hits are
# recorded from its first instruction, and the child's own registration
# arms nothing a second time; a site only srv$target matches is not
# followed, and a child's hits count nowhere (no description matches
# srv<child>).  So dtrace's counts are fsrv's, exactly, every round
# (ft_rounds: 3).

ft_count='{ @[pid] = count(); } END { printa("%d %@d\n", @); }'
ft_rounds=${KMOD_FT_ROUNDS:-3}

# ft_counts FILE: dtrace's "pid count" lines, sorted
ft_counts() {
	grep -E '^[0-9]+ [0-9]+$' "$1" | sort
}

ft_nreg() {
	[ "$(ls /proc/dtrace/registry | wc -l)" -ge "$1" ]
}

ft_registered() {
	[ -e "/proc/dtrace/registry/$1" ]
}

# ft_server DIR ARGS...: fsrv in /tmp/DIR (made anew) in the
# background, $ft_srv
ft_server() {
	ft_sv=$1
	shift
	rm -rf "$ft_sv" && mkdir "$ft_sv"
	/kt/fsrv "/tmp/$ft_sv" "$@" >"$ft_sv.log" 2>&1 &
	ft_srv=$!
}

# ft_consumer NAME ARGS...: dtrace -q -o NAME.txt ARGS in the
# background, back once its BEGIN ran; $ft_dt
ft_consumer() {
	ft_cn=$1
	shift
	rm -f "$ft_cn.txt"
	dtrace -q -o "$ft_cn.txt" "$@" -n 'BEGIN { printf("ready\n"); }' \
		2>"$ft_cn.err" </dev/null &
	ft_dt=$!
	wait_until 300 ft_answered "$ft_cn.txt" '^ready' ||
		diag "$ft_cn: $(cat "$ft_cn.err")"
}

# ft_stop NAME PID: SIGINT; $ft_status
ft_stop() {
	kill -INT "$2"
	wait_until 100 ft_gone "$2"
	wait "$2"
	ft_status=$?
	[ "$ft_status" -eq 0 ] || diag "$1: $(cat "$1.err")"
}

# ft_finished DIR PID: fsrv done, every process of it
ft_finished() {
	wait_until 600 test -e "$1/done" || diag "fsrv $1: $(cat "$1.log")"
	wait "$2"
	[ ! -e "$1/errors" ] || diag "fsrv $1: $(cat "$1/errors")"
}

# ft_exact WHAT DIR NAME NPROC: NPROC processes wrote DIR/pids, and
# dtrace NAME's counts are theirs, exactly
ft_exact() {
	sort "$2/pids" >"$3.want"
	ft_counts "$3.txt" >"$3.got"
	expect_eq "$1: fsrv's processes" "$4" "$(wc -l <"$3.want")"
	expect_file "fasttrap: $1: every hit once" "$3.want" "$3.got" ||
		diag "registry: $(ls -l /proc/dtrace/registry 2>&1)" \
			"$(head -c 400 /proc/dtrace/registry/* 2>&1)" \
			"$3.err: $(cat "$3.err" 2>&1)"
}

# the fork checks but fork then exec (KMOD_FT_ONLY=exec skips them)
ft_forks() {
ft_r=0
while [ "$ft_r" -lt "$ft_rounds" ]; do
	ft_r=$((ft_r + 1))

	# children forked before tracing starts, each registered, nothing
	# armed yet: registry-wide, every process's hits exactly once
	ft_server f1 3 1 0 5 0 1
	wait_until 300 test -e f1/prefork || diag "fsrv: $(cat f1.log)"
	wait_until 300 ft_nreg 4 ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f1 -n "srv*:::req $ft_count"
	touch f1/go
	ft_finished f1 "$ft_srv"
	ft_stop f1 "$ft_dt"
	expect_eq "fork, forked before tracing, round $ft_r: status" 0 \
		"$ft_status"
	ft_exact "forked before tracing, round $ft_r" f1 f1 4

	# children (3) and their children (2 each) forked while tracing,
	# registry-wide: each counted from its first hit, once
	ft_server f4 3 2 0 5 0 0
	wait_until 300 ft_registered "$ft_srv" ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f4 -n "srv*:::req $ft_count"
	touch f4/go
	ft_finished f4 "$ft_srv"
	ft_stop f4 "$ft_dt"
	expect_eq "fork, registry-wide, round $ft_r: status" 0 "$ft_status"
	ft_exact "registry-wide, children of children, round $ft_r" f4 f4 13

	# two consumers at once: each sees every hit once
	ft_server f5 2 2 0 5 0 0
	wait_until 300 ft_registered "$ft_srv" ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f5a -n "srv*:::req $ft_count"
	ft_f5a=$ft_dt
	ft_consumer f5b -n "srv*:::req $ft_count"
	ft_f5b=$ft_dt
	touch f5/go
	ft_finished f5 "$ft_srv"
	ft_stop f5a "$ft_f5a"
	expect_eq "fork, two consumers, round $ft_r: the first's status" 0 \
		"$ft_status"
	ft_stop f5b "$ft_f5b"
	expect_eq "fork, two consumers, round $ft_r: the second's status" 0 \
		"$ft_status"
	ft_exact "two consumers, the first, round $ft_r" f5 f5a 7
	ft_exact "two consumers, the second, round $ft_r" f5 f5b 7

	# -c srv*: the parent and every descendant, once
	rm -rf f3 && mkdir f3 && touch f3/go
	ft_run f3.txt -q -n "srv*:::req $ft_count" \
		-c "/kt/fsrv /tmp/f3 3 2 0 5 0 0"
	expect_eq "fork, -c srv*, round $ft_r: status" 0 "$ft_status"
	ft_exact "-c srv* of a forking parent, round $ft_r" f3 f3 13
done

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

# -p of a forking parent, srv$target: the same
ft_server f7 3 1 0 5 0 0
wait_until 300 ft_registered "$ft_srv" ||
	diag "registry: $(ls /proc/dtrace/registry)"
ft_f7=$ft_srv
ft_consumer f7 -p "$ft_f7" -n "srv\$target:::req $ft_count"
touch f7/go
ft_finished f7 "$ft_f7"
wait_until 100 ft_gone "$ft_dt"
wait "$ft_dt"
expect_eq "fork, -p srv\$target: dtrace exits with 0 with its process" 0 "$?"
expect_eq "fork, -p srv\$target: fsrv's processes" 4 "$(wc -l <f7/pids)"
grep "^$ft_f7 " f7/pids >f7.want
ft_counts f7.txt >f7.got
expect_file "fasttrap: -p srv\$target of a forking parent: its hits once" \
	f7.want f7.got
}
[ "${KMOD_FT_ONLY:-}" = exec ] || ft_forks

# fork then exec, last: each round as above
ft_r=0
while [ "$ft_r" -lt "$ft_rounds" ]; do
	ft_r=$((ft_r + 1))
	# fork then exec: each child execs fsrv2 (the same provider in
	# another file), which waits until its probe is enabled and fires
	# 3 more: the inherited site stops at the exec, the new image's is
	# armed through its registration, and the line fsrv2 writes counts
	# both images' hits
	ft_server f6 3 1 0 5 1 0
	wait_until 300 ft_registered "$ft_srv" ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f6 -n "srv*:::req $ft_count"
	touch f6/go
	ft_finished f6 "$ft_srv"
	ft_stop f6 "$ft_dt"
	expect_eq "fork then exec, round $ft_r: status" 0 "$ft_status"
	ft_exact "fork then exec, round $ft_r" f6 f6 4

	# fork then exec of the same file (fsrv execs fsrv): the site the
	# child carried went with its old image, and the module's exec
	# record (FT_EXEC) makes dtrace arm the new image's, once
	ft_server f8 3 1 0 5 3 0
	wait_until 300 ft_registered "$ft_srv" ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f8 -n "srv*:::req $ft_count"
	touch f8/go
	ft_finished f8 "$ft_srv"
	ft_stop f8 "$ft_dt"
	expect_eq "fork then exec of the same file, round $ft_r: status" 0 \
		"$ft_status"
	ft_exact "fork then exec of the same file, round $ft_r" f8 f8 4

	# the same with children forked, registered and read by dtrace
	# before tracing starts (each armed as its own process, not
	# followed): without the exec record the new image, the file
	# dtrace had armed in that pid already, would never be armed and
	# fsrv would wait for its semaphore in vain
	ft_server f9 3 1 0 5 3 1
	wait_until 300 test -e f9/prefork || diag "fsrv: $(cat f9.log)"
	wait_until 300 ft_nreg 4 ||
		diag "registry: $(ls /proc/dtrace/registry)"
	ft_consumer f9 -n "srv*:::req $ft_count"
	touch f9/go
	ft_finished f9 "$ft_srv"
	ft_stop f9 "$ft_dt"
	expect_eq \
		"forked before tracing, exec of the same file, round $ft_r: status" \
		0 "$ft_status"
	ft_exact "forked before tracing, exec of the same file, round $ft_r" \
		f9 f9 4
done

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
