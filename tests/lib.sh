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
		tmp_unmount
		rm -rf "$tmp"
	fi
}
# tmp_unmount: what is still mounted under $tmp (a dtrace-helperd's FUSE
# device, $tmp/hdev or $tmp/dev, whose daemon a test's cleanup killed:
# SIGKILL leaves the mount, which answers ENOTCONN, so mountpoint(1)
# says it is none, and rm -rf cannot empty it), deepest first, detached
# (umount -l; fusermount3 -uz where umount cannot)
tmp_unmount() {
	tu_t=$(cd "$tmp" 2>/dev/null && pwd -P) || return 0
	[ -n "$tu_t" ] && [ "$tu_t" != / ] || return 0
	awk -v t="$tu_t/" 'index($5, t) == 1 { print $5 }' \
		/proc/self/mountinfo 2>/dev/null | sort -r | while read -r tu_m; do
		umount -l "$tu_m" 2>/dev/null ||
			fusermount3 -uz "$tu_m" 2>/dev/null
	done
}
trap cleanup EXIT
cd "$tmp" || exit 99

failures=0
checks=0
# the test's wall time, said by finish() (make check's logs: where the
# suite's time goes)
lib_t0=$(date +%s)

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

# late_some WHAT N FILE PATTERN: fewer than N of FILE's lines match
# PATTERN.  For a DTRACE_CGEN=0 run whose target rewrites its bytes
# right after each of N hits: user space reads the process when it runs
# the record, so some of its reads (how many is a race between dtrace
# and the target's next store) find the bytes after the rewrite, which
# shows that a check of the bytes at the hit can fail.  Not checked
# under the sanitizers, where the race goes either way.
late_some() {
	n=$(grep -c "$4" "$3")
	if [ "${USDT_SANITIZERS:-no}" = yes ]; then
		echo "$1: $n of $2 at the hit (sanitizers: not checked)" >&2
	else
		expect_eq "$1" 1 "$((n < $2))"
	fi
}

# expect_file_eq WHAT EXPECTED_FILE ACTUAL_FILE: diff -u on mismatch,
# and the drops dtrace reported in either's FILE.err (a run's messages,
# where it has them): an entry the kernel could not make is missing
# from that run's output, and the log says so
expect_file_eq() {
	if diff -u "$2" "$3" >&2; then
		pass
	else
		for ef in "$2.err" "$3.err"; do
			[ ! -f "$ef" ] || grep -H drop "$ef" >&2
		done
		fail "$1: files differ (see diff above)"
	fi
}

# rb_q WORD: WORD quoted for sh (in '', each ' as '\'')
rb_q() {
	case $1 in
	*\'*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf "'%s'" "$1" ;; # (no sed: a spawn is ms on a small VM)
	esac
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

# run_mode MODE OUT CMD DTRACE-ARGS...: dtrace -v -q -c CMD, MODE g
# (the generated programs), u (DTRACE_KAGG=0: the clauses in user
# space), 0 (DTRACE_CGEN=0: the generic program) or 0u (DTRACE_CGEN=0
# DTRACE_KAGG=0: the generic program's records, every clause in user
# space); its output in OUT (made, empty, where dtrace wrote none), its
# messages in OUT.err, its status checked.  For the next call only,
# when set: run_err names the messages' file instead, run_stdout a
# file for dtrace's standard output (else /dev/null), run_status the
# status expected (else 0), run_timeout the seconds (else 120),
# run_what the status check's name (else OUT).
# run_mode is run_mode_start then run_mode_end, its run in the
# foreground (the test's stdin and signals, as ever).
run_mode() {
	rms_fg=1
	run_mode_start "$@" && run_mode_end "$2"
}

# run_mode_start MODE OUT CMD DTRACE-ARGS...: run_mode's run begun in
# the background (stdin /dev/null, as any `&`), the run_* settings
# taken for it (and cleared, so each run of several has its own), its
# pid, status expected and check's name kept under a number of its own
# (rmr_*N, N in rmr_runs) with OUT; run_mode_end OUT: the wait for that
# run, its status checked under the name run_mode gives it, OUT made
# where dtrace wrote none.  Several in flight at once need their own
# OUT and messages' file (doc/DESIGN.md §11: never share an -o file, a
# traced process or a CPU-bound spinner's margin); a second run of an
# OUT still in flight is refused, a failure counted.
rmr_runs= rmr_n=0
run_mode_start() {
	_m=$1 _o=$2 _c=$3
	shift 3
	case $_m in
	g) _cg=1 _ka=1 ;;
	u) _cg=1 _ka=0 ;;
	0u) _cg=0 _ka=0 ;;
	*) _cg=0 _ka=1 ;;
	esac
	_fg=${rms_fg:-} rms_fg=
	for _r in $rmr_runs; do
		eval "[ \"\$rmr_out$_r\" != \"\$_o\" ]" && continue
		fail "run_mode_start: a run of $_o is still in flight"
		run_err= run_stdout= run_status= run_timeout= run_what=
		return 1
	done
	rmr_n=$((rmr_n + 1))
	eval "rmr_out$rmr_n=\$_o rmr_st$rmr_n=\${run_status:-0}" \
		"rmr_what$rmr_n=\${run_what:-\$_o} rmr_pid$rmr_n= rmr_s$rmr_n="
	rmr_runs="$rmr_runs $rmr_n"
	_e=${run_err:-$_o.err}
	eval "rmr_err$rmr_n=\$_e"
	rm -f "$_o" # -o appends
	if [ -n "$_fg" ]; then
		run_mode_exec "$@"
		eval "rmr_s$rmr_n=\$?"
	else
		run_mode_exec "$@" &
		eval "rmr_pid$rmr_n=\$!"
	fi
	run_err= run_stdout= run_status= run_timeout= run_what=
}
# run_mode_exec DTRACE-ARGS...: run_mode_start's dtrace ($_cg, $_ka,
# $_o, $_c, $_e and the run_* settings)
run_mode_exec() {
	DTRACE_CGEN=$_cg DTRACE_KAGG=$_ka timeout -s KILL "${run_timeout:-120}" \
		"$DTRACE" -v -q -o "$_o" "$@" -c "$_c" \
		>"${run_stdout:-/dev/null}" 2>"$_e"
}
run_mode_end() {
	rme_r= rme_left=
	for _r in $rmr_runs; do
		if [ -z "$rme_r" ] && eval "[ \"\$rmr_out$_r\" = \"\$1\" ]"; then
			rme_r=$_r
		else
			rme_left="$rme_left $_r"
		fi
	done
	if [ -z "$rme_r" ]; then
		fail "run_mode_end: no run of $1 begun"
		return 1
	fi
	rmr_runs=$rme_left
	eval "rme_p=\$rmr_pid$rme_r rme_s=\$rmr_s$rme_r"
	if [ -n "$rme_p" ]; then
		wait "$rme_p"
		rme_s=$?
	fi
	eval "expect_eq \"\$rmr_what$rme_r: status\" \"\$rmr_st$rme_r\" \"\$rme_s\""
	# a status not the one expected (137: the timeout's kill): the
	# run's last messages, which the test's directory takes with it
	eval "rme_e=\$rmr_err$rme_r rme_w=\$rmr_st$rme_r"
	if [ "$rme_s" != "$rme_w" ] && [ -s "$rme_e" ]; then
		echo "# the last lines of $rme_e:" >&2
		tail -n 15 "$rme_e" | sed 's/^/    | /' >&2
	fi
	[ -f "$1" ] || : >"$1"
	eval "rmr_out$rme_r= rmr_st$rme_r= rmr_what$rme_r= rmr_pid$rme_r= rmr_s$rme_r= rmr_err$rme_r="
}

# finish: the verdict
finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$test_name: $failures of $((checks + failures)) checks failed" \
			"($(($(date +%s) - lib_t0)) s)" >&2
		exit 1
	fi
	if [ "$checks" -eq 0 ]; then
		echo "$test_name: no checks ran" >&2
		exit 1
	fi
	echo "$test_name: all $checks checks passed ($(($(date +%s) - lib_t0)) s)"
	exit 0
}

# require_G TOOL...: skip unless dtrace -G can be tested here: a C
# compiler, the tools named, drti.o (DTRACE_DRTI) and an x86-64 machine
require_G() {
	command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"
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

# tracefs_at TEST PATH: tfs, the tracefs directory (/sys/kernel/tracing,
# or debugfs's tracing/ on older systems) where `[ TEST DIR/PATH ]`
# holds (-w uprobe_events, -d events/syscalls), status 0; else tfs
# empty, status 1.  A kernel with tracefs that nothing has mounted yet
# (a fresh machine: dtrace mounts it itself, uprobe_ev.c) has it
# mounted where the kernel documents it, as root, as dtrace would.
tracefs_at() {
	tfs=
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ "$1" "$d/$2" ] && tfs=$d && return 0
	done
	if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] &&
		grep -qw tracefs /proc/filesystems 2>/dev/null &&
		! mountpoint -q /sys/kernel/tracing &&
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null &&
		[ "$1" "/sys/kernel/tracing/$2" ]; then
		tfs=/sys/kernel/tracing
		return 0
	fi
	return 1
}

# require_uprobe_events: skip unless tracefs has a uprobe_events this
# test may write (it runs as root); tfs names the directory
require_uprobe_events() {
	tracefs_at -w uprobe_events ||
		skip "no tracefs with uprobe_events (CONFIG_UPROBE_EVENTS)"
}

# bpf_test_setup KIND [ROOT-WHY]: the start of the tests of dtrace's
# BPF backend.  Requires root (else skips "not root: ROOT-WHY", by
# default "BPF needs root" for KIND kernel, "uprobe_events and BPF need
# root" for the others) and a dtrace built with the BPF backend
# (HAVE_BPF=yes, else skips "dtrace built without the BPF backend");
# then, by KIND:
#  kernel  nothing more (the kernel providers' tests: each requires
#          the tracefs events or the BTF it needs itself, after);
#  uprobe  require_uprobe_events (a traced program built with $CC alone);
#  usdt    require_G, then require_uprobe_events (a -G program the test
#          builds itself);
#  trace   as usdt, but require_G only where TRACE_PROGS does not name
#          the programs built already (check-kmod's guest), and last
#          trace_progs_build: ./trprog and libtrl.so.
# Exports DTRACE_BACKEND=bpf and DTRACE_STATEDIR=$tmp/nostate (nothing
# there: dtrace reads no dtrace-helperd registry); with uprobe_events
# required, $tfs names the tracefs directory.
bpf_test_setup() {
	case $1 in
	kernel) bts_why="BPF needs root" ;;
	*) bts_why="uprobe_events and BPF need root" ;;
	esac
	[ "$(id -u)" -eq 0 ] || skip "not root: ${2:-$bts_why}"
	[ "${HAVE_BPF:-no}" = yes ] ||
		skip "dtrace built without the BPF backend"
	case $1 in
	usdt) require_G ;;
	trace) [ -n "${TRACE_PROGS:-}" ] || require_G ;;
	esac
	[ "$1" = kernel ] || require_uprobe_events
	DTRACE_STATEDIR=$tmp/nostate
	DTRACE_BACKEND=bpf
	export DTRACE_STATEDIR DTRACE_BACKEND
	[ "$1" != trace ] || trace_progs_build
}

# interp_build: ./interp, the stand-in interpreter whose probes are
# shaped like CPython's, Perl's and Ruby's (tests/data/interp: its
# function-entry(FILE, FUNC, LINE) and the rest, fired from a "script"
# on its standard input); the test fails and ends when it cannot be
# built
interp_build() {
	"$DTRACE" -h -s "$top_srcdir/tests/data/interp/interp.d" \
		-o interp.h &&
		$CC -O2 -fPIE -I. -c "$top_srcdir/tests/data/interp/interp.c" \
			-o interp.o &&
		"$DTRACE" -G -s "$top_srcdir/tests/data/interp/interp.d" \
			-o interp-probes.o interp.o &&
		$CC -pie -o interp interp.o interp-probes.o || {
		fail "cannot build tests/data/interp/interp"
		finish
	}
}

# kpprog_build: ./kpprog, the kernel providers' test program
# (tests/data/kprov/kpprog.c), not position-independent: the run-time
# addresses of its text are nm's; the test fails and ends when it
# cannot be built
kpprog_build() {
	trace_progs_copy kpprog || test_progs_build kpprog
}

# cgout_setup: for the tests of values the generated program computes
# on tests/data/cgenout/cgout.c (run-cgen-out.sh, run-cgen-svkey.sh,
# run-cgen-bstr.sh, run-cgen-sord.sh, run-kagg-exec.sh): bpf_test_setup
# uprobe; ./cgout built; and defines
# run G OUT CMD DTRACE-ARGS...: dtrace -v -q with DTRACE_CGEN=G on
# ./cgout CMD, its output in OUT, its messages in OUT.err; and run_bg,
# run_join and cgout_bg (below) to run a test's independent cases side
# by side.
# cgout lingers after its hits (CGOUT_LINGER_MS) only where user space
# may read its memory after them: a clause user space runs from the
# record reads the process when dtrace gets to the record, so the
# process must still be there then.  That is every run with
# DTRACE_CGEN=0 or DTRACE_KAGG=0 set, and one of the generated program
# where the case says late=1 (a clause left to user space beside the
# kernel's).  The other runs of the generated program read the strings
# at the hit and need no linger: each such run checks that -v counts
# as many clauses run in the kernel (aggregated or printing) as the
# script has pid$target clauses, so a clause that moves to user space
# fails here, not by a race with cgout's exit.
cgout_setup() {
	bpf_test_setup uprobe
	trace_progs_copy cgout || test_progs_build cgout
	# user space's reads of its strings come after the hit: a dtrace
	# slowed by the sanitizers, under -j2's load, came after cgout's
	# 300 ms were up (faults at strings still in place at the hit)
	cg_linger=300
	[ "${USDT_SANITIZERS:-no}" != yes ] || cg_linger=3000
	run() {
		run_bg "$@"
		run_join
	}
	# run_bg G OUT CMD DTRACE-ARGS...: run's dtrace started in the
	# background (its linger and environment decided now, as run
	# decides them); run_join [N]: waits for the runs begun (the N
	# oldest) and makes run's checks on each, in the order begun (its
	# status, cgout_inkernel).  For the runs of a case that do not
	# depend on one another (each its own ./cgout, its own files): a
	# run spends most of its time waiting on the kernel (attaching,
	# detaching, cgout's linger), not on a CPU, and side by side the
	# waits overlap.  At most run_max (else 8) at once: one more first
	# waits for the oldest.
	run_bg() {
		g=$1 o=$2 cmd=$3
		shift 3
		rb_n=0
		for rb in ${rb_runs:-}; do
			rb_n=$((rb_n + 1))
		done
		[ "$rb_n" -lt "${run_max:-8}" ] || run_join 1
		rm -f "$o" # -o appends
		rl=0
		if [ "$g" != 1 ] || [ -n "${DTRACE_KAGG:-}" ] ||
			[ -n "${late:-}" ]; then
			rl=$cg_linger
		fi
		# the command, as run_join may run it again: O.run
		{
			if [ -n "${DTRACE_KAGG+set}" ]; then
				echo "export DTRACE_KAGG=$(rb_q "$DTRACE_KAGG")"
			else
				echo "unset DTRACE_KAGG"
			fi
			printf 'CGOUT_LINGER_MS=%s DTRACE_CGEN=%s ' "$rl" "$g"
			printf 'exec timeout -s KILL 120 %s -v -q -o %s' \
				"$(rb_q "$DTRACE")" "$(rb_q "$o")"
			for rb in "$@"; do
				printf ' %s' "$(rb_q "$rb")"
			done
			printf ' -c %s >/dev/null 2>%s\n' \
				"$(rb_q "./cgout $cmd")" "$(rb_q "$o.err")"
		} >"$o.run"
		sh "$o.run" &
		# the -s script cgout_inkernel counts, where no linger
		rb_d=
		while [ $# -gt 0 ]; do
			[ "$1" != -s ] || rb_d=$2
			shift
		done
		[ "$rl" = 0 ] || rb_d=
		rb_runs="${rb_runs:-} $!|$o|$rb_d"
	}
	run_join() {
		rj_n=${1:-0} rj_left=
		for rj in ${rb_runs:-}; do
			if [ "$rj_n" = done ]; then
				rj_left="$rj_left $rj"
				continue
			fi
			rj_o=${rj#*|} rj_d=${rj##*|}
			rj_o=${rj_o%|*}
			wait "${rj%%|*}"
			rj_s=$? rj_t=0
			# a drop (an entry the kernel could not make: Linux
			# 6.1 allocates a map's entries at the hit, GFP_NOWAIT,
			# and under CI's load that failed once, an entry
			# missing from a comparison's output) is reported, as
			# DTrace reports one, and the run is no answer to the
			# comparisons: once more, twice at most, then checked
			# with its drops as they are (expect_file_eq names them)
			while [ "$rj_s" = 0 ] && [ "$rj_t" -lt 2 ] &&
				grep -q 'drop' "$rj_o.err"; do
				echo "# $rj_o: $(grep -m1 drop "$rj_o.err"):" \
					"run again (lib.sh's run_join)" >&2
				rm -f "$rj_o"
				sh "$rj_o.run"
				rj_s=$? rj_t=$((rj_t + 1))
			done
			expect_eq "$rj_o: status" 0 "$rj_s"
			[ -f "$rj_o" ] || : >"$rj_o"
			[ -z "$rj_d" ] || cgout_inkernel "$rj_o" -s "$rj_d"
			rj_n=$((rj_n - 1))
			[ "$rj_n" -ne 0 ] || rj_n=done
		done
		rb_runs=$rj_left
	}
	# cgout_bg DIR FUNCTION ARGS...: bg_checks DIR FUNCTION ARGS...
	# with ./cgout in DIR (a link to the test's), for the cases whose
	# runs name their files as another case's do: each in its own
	# directory (the scripts and files of the test's are ../), the
	# cases side by side, their checks' names unchanged
	cgout_bg() {
		mkdir -p "$1" && ln -sf ../cgout "$1/cgout" || exit 99
		bg_checks "$@"
	}
}

# cgout_inkernel OUT DTRACE-ARGS...: -v said (in OUT.err) that the
# kernel ran as many clauses as the -s script has pid$target clauses
# (the script's clauses start at a line's first column; equal, so that
# another probe's clause counted there hides none of them)
cgout_inkernel() {
	ck_o=$1 ck_d=
	shift
	while [ $# -gt 0 ]; do
		[ "$1" != -s ] || ck_d=$2
		shift
	done
	[ -n "$ck_d" ] || return 0
	ck_n=$(grep -c '^pid\$target' "$ck_d")
	ck_k=$(awk '/^dtrace: [0-9]+ clauses? / &&
		/ (aggregated|printing values computed) in the kernel$/ {
			n += $2 } END { print n + 0 }' "$ck_o.err")
	if [ "$ck_k" -eq "$ck_n" ]; then
		pass
	else
		fail "$ck_o: -v says $ck_k of $ck_d's $ck_n clauses ran in" \
			"the kernel: cgout exits at once (lib.sh's" \
			"cgout_setup()): late=1 for user space's reads"
	fi
}

# kpprog_run NAME M CMD DTRACE-ARGS...: dtrace -v -q on ./kpprog CMD
# (kpprog_build's), M g (DTRACE_CGEN=1), u (DTRACE_KAGG=0) or 0
# (DTRACE_CGEN=0); its output in NAME.M, its messages in NAME.M.err
kpprog_run() {
	kr_n=$1 kr_m=$2 kr_c=$3
	shift 3
	case $kr_m in
	g) kr_e="DTRACE_CGEN=1" ;;
	u) kr_e="DTRACE_KAGG=0" ;;
	0) kr_e="DTRACE_CGEN=0" ;;
	esac
	rm -f "$kr_n.$kr_m"
	env $kr_e timeout -s KILL 120 "$DTRACE" -v -q -o "$kr_n.$kr_m" \
		-c "./kpprog $kr_c" "$@" >/dev/null 2>"$kr_n.$kr_m.err"
	expect_eq "$kr_n ($kr_e): status" 0 "$?"
	[ -f "$kr_n.$kr_m" ] || : >"$kr_n.$kr_m"
}

# three_same NAME: dtrace -v's three runs of one script, NAME.g (the
# generated programs), NAME.u (DTRACE_KAGG=0) and NAME.0 (DTRACE_CGEN=0),
# each with its NAME.M.err: the same output, some, no drop or error
# said, and the generated programs more instructions than DTRACE_KAGG=0's
# record-only ones, the values computed in the kernel (a run whose only
# kernel work was the values once had no plan at all, -v saying
# otherwise)
three_same() {
	expect_file_eq "$1: DTRACE_KAGG=0's output" "$1.u" "$1.g"
	expect_file_eq "$1: DTRACE_CGEN=0's output" "$1.0" "$1.g"
	expect_eq "$1: some output" 1 "$([ -s "$1.g" ] && echo 1)"
	expect_eq "$1: no drops, no error" "" \
		"$(grep -i -e drop -e error -e cannot "$1.g.err" "$1.u.err" \
			"$1.0.err")"
	ts_re='s/^dtrace: BPF: [0-9]* generated programs*, \([0-9]*\) instructions.*/\1/p'
	ts_g=$(sed -n "$ts_re" "$1.g.err")
	ts_u=$(sed -n "$ts_re" "$1.u.err")
	expect_eq "$1: the programs compute the values ($ts_g, $ts_u instructions)" \
		1 "$([ "${ts_g:-0}" -gt "${ts_u:-0}" ] && echo 1)"
}

# modes_same NAME MODES [WHAT]: run_mode's runs NAME.M of one script, M
# each of MODES but g, and their faults NAME.M.flt (the test's own
# filter of NAME.M.err) against the generated programs' NAME.g and
# NAME.g.flt: byte for byte the same output and errors; WHAT starts
# each check's name (else "NAME:")
modes_same() {
	for ms_m in $2; do
		[ "$ms_m" = g ] && continue
		expect_file_eq "${3:-$1:} DTRACE ($ms_m)'s output" \
			"$1.$ms_m" "$1.g"
		expect_file_eq "${3:-$1:} DTRACE ($ms_m)'s errors" \
			"$1.$ms_m.flt" "$1.g.flt"
	done
}

# Background processes: tests that start them add their pids to bg_pids
# and kill what is left there in their EXIT trap.
bg_pids=

# wait_until TENTHS COMMAND...: poll COMMAND every 0.1 s, at most TENTHS
# times; speed is never asserted, only that it happens in the end
wait_until() {
	wu_n=$1
	shift
	while [ "$wu_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		wu_n=$((wu_n - 1))
	done
	"$@"
}

# exec_seen PID NAME: wait until the shell's fork PID runs the program
# named NAME (its /proc exe's last component): a -p of it before would
# meet the shell's image, or none mid-exec ("does not match any probes")
exec_seen() {
	wait_until 100 sh -c "readlink /proc/$1/exe | grep -q '/$2\$'" ||
		fail "process $1 never exec'd $2"
}

# dead PID: the process is gone
dead() {
	! kill -0 "$1" 2>/dev/null
}

# forget_pid PID: a reaped process is not killed at exit (its pid may
# belong to someone else by then)
forget_pid() {
	fp_left=
	for p in $bg_pids; do
		[ "$p" = "$1" ] || fp_left="$fp_left $p"
	done
	bg_pids=$fp_left
}

# stop_pid PID [SIGNAL]: SIGNAL (INT), then TERM after 300 s and KILL 2 s
# later; the exit status in $stop_status.  So long because a tracer's exit
# closes its uprobes one by one, and on Linux 6.18 each close waits for
# an RCU grace period: under a loaded make -j check, bpftrace once took
# more than a minute to get through them (and print nothing before).
stop_pid() {
	kill -"${2:-INT}" "$1" 2>/dev/null
	if ! wait_until 3000 dead "$1"; then
		kill -TERM "$1" 2>/dev/null
		wait_until 20 dead "$1" || kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
	stop_status=$?
	forget_pid "$1"
}

# bt_stop PIDS: SIGINT once to each bpftrace of PIDS (a word list), then
# a nudge every second to each still running that still catches SIGINT,
# until all have exited (at most 300 s; their statuses are for bt_collect
# PID to collect: stop_bt).  A nudge, because bpftrace 0.17 ends on a
# SIGINT only when it comes during its epoll_wait(): one that comes while
# it reads its buffers (the probes firing) or between two waits sets its
# flag and is never looked at, and it ran on until the test's 300 s were
# up (seen in run-sdt-dropin.sh: it was in epoll_wait, SIGINT caught,
# none pending).  The nudge is SIGSTOP and SIGCONT, which end an
# epoll_wait() with EINTR (signal(7)) as a second SIGINT would, but can
# never kill it: a second SIGINT did (ci17, ci29: status 130), when it
# came just as bpftrace, having acted on the first, let SIGINT kill it
# while it detaches, a grace period a probe.
#
# A bpftrace that has acted on SIGINT (it no longer catches it) and is
# still there a minute later with every thread asleep on a futex, in its
# own code, is not detaching (that waits in the kernel, on RCU): it is
# bpftrace 0.17's hang in its exit (ci28: run-examples.sh's myapp, its
# maps printed, until its timeout 300).  Its threads are shown, it is
# killed, and bt_collect takes it as having exited 0, saying so: its
# output is the caller's to check, as for any.
bt_stop() {
	bs_n=0
	for bs_p in $1; do
		kill -INT "$bs_p" 2>/dev/null
	done
	while [ "$bs_n" -lt 300 ]; do
		bs_live=
		for bs_p in $1; do
			! kill -0 "$bs_p" 2>/dev/null || bs_live="$bs_live $bs_p"
		done
		[ -n "$bs_live" ] || return 0
		# shellcheck disable=SC2086 # a word list
		wait_until 10 bt_gone $bs_live && return 0
		bs_n=$((bs_n + 1))
		for bs_p in $bs_live; do
			kill -0 "$bs_p" 2>/dev/null || continue
			bs_c=$(bt_proc "$bs_p")
			if bt_catches_int "$bs_p"; then
				kill -STOP "$bs_c" 2>/dev/null
				kill -CONT "$bs_c" 2>/dev/null
			elif [ "$bs_n" -ge 60 ] && bt_futex_hung "$bs_c"; then
				echo "# bpftrace $bs_c hangs in its exit ($bs_n s after SIGINT, every thread in a futex wait); killed:" >&2
				bt_threads "$bs_c"
				bt_hung="$bt_hung $bs_p"
				kill -KILL "$bs_c" 2>/dev/null
			elif [ "$bs_n" -eq 60 ]; then
				echo "# bpftrace $bs_c still exiting 60 s after SIGINT:" >&2
				bt_threads "$bs_c"
			fi
		done
	done
}

# bt_proc PID: the bpftrace process of PID: PID, or timeout(1)'s child
bt_proc() {
	bp_c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
	if [ "$(cat "/proc/$1/comm" 2>/dev/null)" = timeout ] &&
		[ -n "$bp_c" ]; then
		echo "${bp_c%% *}"
	else
		echo "$1"
	fi
}

# bt_catches_int PID: does PID's bpftrace (still) catch SIGINT (its
# SigCgt's bit 1)?
bt_catches_int() {
	bc_p=$(bt_proc "$1")
	bc_m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$bc_p/status" 2>/dev/null)
	[ -n "$bc_m" ] || return 1
	bc_m=${bc_m#"${bc_m%?}"} # the last hex digit: signals 1-4
	[ $((0x$bc_m & 2)) -ne 0 ]
}

# bt_futex_hung PID: every thread of PID sleeps in a futex wait
bt_futex_hung() {
	bf_any=
	for bf_t in /proc/"$1"/task/*; do
		[ -r "$bf_t/wchan" ] || return 1
		case $(cat "$bf_t/wchan" 2>/dev/null) in
		futex_*) bf_any=1 ;;
		*) return 1 ;;
		esac
	done
	[ -n "$bf_any" ]
}

# bt_threads PID: each thread of PID, where it sleeps and its state (to
# stderr, for the log)
bt_threads() {
	for bt_t in /proc/"$1"/task/*; do
		echo "#   thread ${bt_t##*/}: $(cat "$bt_t/wchan" 2>/dev/null), $(sed -n 's/^State:[[:space:]]*//p' "$bt_t/status" 2>/dev/null)" >&2
	done
}

# bt_gone PID...: none of them runs
bt_gone() {
	for bg_p in "$@"; do
		! kill -0 "$bg_p" 2>/dev/null || return 1
	done
}

# bt_collect PID: a bpftrace bt_stop ended, its status collected as
# stop_pid's (stop_status); 0 for one bt_stop killed in its exit's hang
bt_hung=
bt_collect() {
	stop_pid "$1" 0
	case " $bt_hung " in
	*" $1 "*)
		echo "# bpftrace $1: killed in its exit's hang, taken as status 0 (was $stop_status)" >&2
		stop_status=0
		;;
	esac
}

# stop_bt PID: a bpftrace ended as bt_stop ends it; its status collected
# (bt_collect)
stop_bt() {
	bt_stop "$1"
	bt_collect "$1"
}

# A real dtrace-helperd serving $tmp/dev/helper (FUSE) to programs of
# other users too (nobody, uid 65534, under setpriv).  helperd_setup
# [TOOL...] skips unless root (the mount's allow_other), /dev/fuse,
# $HELPERD built and each TOOL on PATH; opens $tmp to other users; points
# drti and dtrace at the device and $tmp/state (exported; $reg the
# registry, $log for the daemon's log); and makes helperd_cleanup the
# EXIT trap.  helperd_cleanup kills the daemon first ($hd_pid, while in
# $bg_pids: one stuck reading an attacker's FUSE page, or stopped, holds
# its clients in their ioctl), then $bg_pids, detaches $tmp/dev and the
# mounts in $hd_mounts, and cleans up.  A test with more to undo traps
# its own function, which calls helperd_cleanup last.
helperd_setup() {
	: "${HELPERD:?HELPERD must name dtrace-helperd}"
	[ "$(id -u)" -eq 0 ] ||
		skip "not root: the FUSE mount needs allow_other"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	[ -x "$HELPERD" ] || skip "dtrace-helperd not built (no libfuse3)"
	for hs_t in "$@"; do
		command -v "$hs_t" >/dev/null 2>&1 || skip "no $hs_t"
	done
	trap helperd_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	chmod 755 "$tmp"
	DTRACE_DOF_INIT_DEVNAME=$tmp/dev/helper
	DTRACE_STATEDIR=$tmp/state
	export DTRACE_DOF_INIT_DEVNAME DTRACE_STATEDIR
	reg=$tmp/state/registry
	log=$tmp/hd.log
}

# helperd_start [ARGS...]: a foreground daemon of that device and state
# directory (ARGS added; $HELPERD_WRAPPER, if set, before it), its
# output appended to $log, $hd_pid in $bg_pids; 0 once it logs that it
# serves (start-up and scan done: up to 60 s), else 1 with its log shown
helperd_start() {
	# there before the first grep below, which may run before the
	# background shell has opened it ("No such file" in the log)
	: >>"$log"
	# shellcheck disable=SC2086 # the wrapper is a word list
	${HELPERD_WRAPPER:-} "$HELPERD" -f --device "$tmp/dev/helper" \
		--state-dir "$tmp/state" "$@" >>"$log" 2>&1 3>&- 4>&- 5>&- &
	hd_pid=$!
	bg_pids="$bg_pids $hd_pid"
	if ! wait_until 600 grep -q "serving $tmp/dev/helper" "$log"; then
		fail "the daemon did not start"
		sed 's/^/    | /' "$log" >&2
		return 1
	fi
	return 0
}

helperd_kill_daemon() {
	case " $bg_pids " in
	*" ${hd_pid:-none} "*)
		kill -CONT "$hd_pid" 2>/dev/null
		kill -KILL "$hd_pid" 2>/dev/null
		;;
	esac
}

helperd_cleanup() {
	helperd_kill_daemon
	for hc_p in $bg_pids; do
		kill -KILL "$hc_p" 2>/dev/null
	done
	# unconditionally: a FUSE mount whose daemon was SIGKILLed answers
	# ENOTCONN, so `mountpoint -q` says it is none and it stayed
	for hc_m in "$tmp/dev" ${hd_mounts:-}; do
		umount -l "$hc_m" 2>/dev/null
	done
	cleanup
}

# repeats SHORT LONG: how many times a loop that repeats one check runs
# (enable/disable cycles, fork rounds): SHORT in `make check`, which
# must stay within minutes, LONG under `make check-long` (USDT_TEST_LONG
# set, as .ci/run does when its time allows).  The checks are the same
# either way; the long run only gives a race more chances to show.
repeats() {
	if [ -n "${USDT_TEST_LONG:-}" ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

# The activation path tracing runs take when a command line does not
# say: user under DTRACE_ACTIVATION=user (`make check-activation-user`
# runs the USDT tracing suites so; dtrace(1)), else kernel.  A check
# whose expectation holds on one path only (BPF programs loaded, uprobe
# events, what the in-process recorder refuses) tests $act_path; one the
# user path cannot pass yet runs on the kernel path under
# kernel_path_only, which says why in the log.
case ${DTRACE_ACTIVATION:-kernel} in
user) act_path=user ;;
*) act_path=kernel ;;
esac

# kernel_path_only WHY: unless on the kernel path already, say in the log
# that what follows runs there (DTRACE_ACTIVATION=kernel, exported) and
# why; kernel_path_end goes back to the run's path (after any change of
# DTRACE_ACTIVATION a test makes itself, too)
kernel_path_only() {
	[ "$act_path" = kernel ] && return 0
	echo "# on the kernel path, not the user path: $*"
	DTRACE_ACTIVATION=kernel
	export DTRACE_ACTIVATION
}

kernel_path_end() {
	if [ "$act_path" = user ]; then
		DTRACE_ACTIVATION=user
		export DTRACE_ACTIVATION
	else
		unset DTRACE_ACTIVATION
	fi
}

# skip REASON
skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# gcc_driver DRIVER LANG: DRIVER when it is gcc compiling LANG (c or
# c++), else gcc (g++) from PATH, else nothing and status 1.  Parts of a
# test about what gcc does (its LTO objects, its register choices) run
# with gcc whatever $CC is; clang defines __GNUC__ too, so it is told
# apart by __clang__.
gcc_driver() {
	for gd in "$1" "$([ "$2" = c++ ] && echo g++ || echo gcc)"; do
		# shellcheck disable=SC2086
		gd_macros=$($gd -x "$2" -dM -E - </dev/null 2>/dev/null) ||
			continue
		case $gd_macros in
		*"#define __clang__ "*) ;;
		*"#define __GNUC__ "*) echo "$gd"; return 0 ;;
		esac
	done
	return 1
}

# trace_progs_build [plugin]: the tracing tests' program trprog and its
# library libtrl.so (and with an argument the plug-in trplug.so), from
# tests/data/trace: copied where TEST_PROGS or TRACE_PROGS has them
# built, else built here (tests/build-progs.sh); the test fails and
# ends when they cannot be built.  Either way LD_LIBRARY_PATH names the
# test's directory, so a copy of trprog alone elsewhere (run-trace.sh's
# "sp ace") finds libtrl.so there.
trace_progs_build() {
	tpb_plug=${1:+trplug}
	trace_progs_copy trprog libtrl.so ${tpb_plug:+trplug.so} && return 0
	test_progs_build trprog
	LD_LIBRARY_PATH=$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
}

# test_progs_build NAME: tests/build-progs.sh's NAME built in the test's
# directory; the test fails and ends when it cannot be
test_progs_build() {
	sh "$top_srcdir/tests/build-progs.sh" . "$1" || {
		fail "building the test program $1 (tests/build-progs.sh)"
		finish
	}
}

# trace_progs_copy NAME...: copy NAME... into the test's directory from
# the directory of the tests' programs built already, if there is one
# (TRACE_PROGS: tests/kmod/run.sh's, for the check-kmod guest, which
# has no compiler; else TEST_PROGS: make check's tests/progs, built once
# by tests/build-progs.sh for all the tests), and find their libraries
# there (LD_LIBRARY_PATH); 1 when neither is set, or when TEST_PROGS
# lacks one of them (tests/build-progs.sh makes a few programs only:
# the test builds its own), so the test builds them; a program
# TRACE_PROGS lacks fails the test (the guest cannot build it)
trace_progs_copy() {
	tp_var=TRACE_PROGS tp_dir=${TRACE_PROGS:-}
	if [ -z "$tp_dir" ]; then
		tp_var=TEST_PROGS tp_dir=${TEST_PROGS:-}
		[ -n "$tp_dir" ] || return 1
		for tp in "$@"; do
			[ -f "$tp_dir/$tp" ] || return 1
		done
	fi
	for tp in "$@"; do
		cp "$tp_dir/$tp" . || {
			fail "no $tp in $tp_var ($tp_dir)"
			finish
		}
	done
	LD_LIBRARY_PATH=$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
	return 0
}

# bg_checks DIR FUNCTION ARGS...: FUNCTION (checks, as the test's own
# code makes them) run in the background, in a subshell in the test's
# directory DIR (made; the test's other files are ../), and counted
# into the test's checks and failures by bg_join, which waits for every
# bg_checks run begun.  For runs each on its own process and files
# whose time is spent waiting on the kernel (attaching, detaching), not
# on a CPU: side by side their waits overlap.  At most bg_max (else 6)
# at once (one more first waits for the oldest: each may run several
# dtraces).
# A run that ends without counting (exit, finish) is a failure.
bg_checks() {
	bg_d=$1
	shift
	bg_n=0
	for bg in ${bg_runs:-}; do
		bg_n=$((bg_n + 1))
	done
	[ "$bg_n" -lt "${bg_max:-6}" ] || bg_join 1
	mkdir -p "$bg_d" || exit 99
	(
		cd "$bg_d" || exit 99
		checks=0 failures=0
		"$@"
		echo "$checks $failures" >bg.counts
	) &
	bg_runs="${bg_runs:-} $bg_d:$!"
}

# bg_join [N]: wait for the bg_checks runs begun (the N oldest), adding
# their checks and failures to the test's
bg_join() {
	bj_n=${1:-0} bj_left=
	for bj in ${bg_runs:-}; do
		if [ "$bj_n" = done ]; then
			bj_left="$bj_left $bj"
			continue
		fi
		wait "${bj#*:}"
		bj_c= bj_f=
		[ -f "${bj%%:*}/bg.counts" ] &&
			read -r bj_c bj_f <"${bj%%:*}/bg.counts"
		if [ -n "$bj_f" ]; then
			checks=$((checks + bj_c)) failures=$((failures + bj_f))
		else
			fail "${bj%%:*}: its checks did not finish"
		fi
		bj_n=$((bj_n - 1))
		[ "$bj_n" -ne 0 ] || bj_n=done
	done
	bg_runs=$bj_left
}

# The three ways a test compares byte for byte, by their one-letter
# names: 0 (DTRACE_KAGG=0, the records), g (the generated programs),
# c (DTRACE_CGEN=0, the generic program): their settings into cg, ka.
way_env() {
	case $1 in
	0) cg=1 ka=0 ;;
	g) cg=1 ka=1 ;;
	c) cg=0 ka=1 ;;
	*) fail "way_env: no way named '$1'" ;;
	esac
}

# ways_start SECONDS ARGS...: "$DTRACE" -o out$k.txt ARGS... run the
# three ways at once, each on its own (a -c in ARGS: its own process),
# its stderr in err$k.txt, killed after SECONDS; ways_wait WHAT: their
# ends, each one's status 0 and its out$k.txt there (empty where it
# wrote nothing); ways_same WHAT: some output, and the three alike.
ways_start() {
	ws_t=$1
	shift
	for ws_k in 0 g c; do
		way_env "$ws_k"
		rm -f "out$ws_k.txt" # -o appends
		DTRACE_CGEN=$cg DTRACE_KAGG=$ka timeout -s KILL "$ws_t" \
			"$DTRACE" -o "out$ws_k.txt" "$@" >/dev/null \
			2>"err$ws_k.txt" &
		eval "ws_pid$ws_k=\$!"
	done
}
ways_wait() {
	for ws_k in 0 g c; do
		eval "wait \"\$ws_pid$ws_k\""
		expect_eq "$1 ($ws_k): status" 0 "$?"
		[ -f "out$ws_k.txt" ] || : >"out$ws_k.txt"
	done
}
ways_same() {
	if [ -s out0.txt ]; then
		pass
	else
		fail "$1: no output"
	fi
	expect_file_eq "$1: generated programs" out0.txt outg.txt
	expect_file_eq "$1: the generic program" out0.txt outc.txt
}
