#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-raise.sh: raise() and stop() at the hit.  In a clause whose probes run
# generated programs, raise() of a constant signal (1 to 64) is the
# kernel's: the program sends it to the firing thread with
# bpf_send_signal_thread() (cgen_plan.c's RAISE, kplan.c's "raise() at
# the hit"), so the thread has it before it runs on, as DTrace's
# raise() posts it in probe context; before, every clause of such a
# program ran in user space ("an action the kernel's plans are not
# ordered with") and dtrace sent the signal when it read the record,
# after the thread had gone on, several of them merged into one.  On
# kpprog sigs (tests/data/kprov/kpprog.c: sig_hit(I), then getppid(2),
# the SIGUSR1s its handler counted printed after each):
#  - rp.d, at a pid probe, every other turn: the count after the call
#    is the raises so far, exactly; -v counts the clause the kernel's;
#    dtrace's own output as DTRACE_CGEN=0's;
#  - rs.d, at syscall::getppid:entry: the count after the call is the
#    turn's + 1, exactly;
#  - rv.d, a signal the plan computes: every clause user space's, -v
#    saying why, its signals sent (late) still;
#  - rx.d, raise(99): user space's, run.c's "illegal operation" in its
#    action, as before;
#  - st.d, stop() at sig_hit(1): the process stopped there (bpf_send_
#    signal(SIGSTOP) at the hit), its first line alone printed, and
#    once sent SIGCONT, on to its end.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe
kpprog_build

# go NAME G N: dtrace -v -w -q -s NAME.d on ./kpprog sigs N with
# DTRACE_CGEN=G: NAME.G (dtrace's output), NAME.G.err, NAME.G.cmd (the
# command's)
go() {
	DTRACE_CGEN=$2 timeout -s KILL 120 "$DTRACE" -v -w -q -o "$1.$2" \
		-s "$1.d" -c "./kpprog sigs $3" >"$1.$2.cmd" 2>"$1.$2.err"
	expect_eq "$1 (DTRACE_CGEN=$2): status" 0 "$?"
	[ -f "$1.$2" ] || : >"$1.$2"
}

cat >rp.d <<'EOF'
pid$target::sig_hit:entry
/arg0 & 1/
{
	raise(SIGUSR1);
	@["raised"] = count();
}
EOF
go rp 1 6
go rp 0 6
expect_eq "rp: each signal had before the call returned" \
	'0 0 0|1 1 1|2 1 1|3 2 2|4 2 2|5 3 3|got 3' \
	"$(paste -sd'|' - <rp.1.cmd)"
expect_file_eq "rp: dtrace's output, DTRACE_CGEN=0's" rp.0 rp.1
expect_grep "rp: -v, the kernel's clause" \
	'^dtrace: 1 clause aggregated in the kernel$' rp.1.err
expect_eq "rp: no clause in user space" "" \
	"$(grep 'user space' rp.1.err)"
expect_grep "rp: the signals sent by DTRACE_CGEN=0 too" '^got [1-3]$' \
	rp.0.cmd

cat >rs.d <<'EOF'
syscall::getppid:entry
/pid == $target/
{
	raise(SIGUSR1);
}
EOF
go rs 1 4
expect_eq "rs: each signal had when the call returned" \
	'0 0 1|1 1 2|2 2 3|3 3 4|got 4' "$(paste -sd'|' - <rs.1.cmd)"
expect_eq "rs: no clause in user space" "" \
	"$(grep 'user space' rs.1.err)"

cat >rv.d <<'EOF'
pid$target::sig_hit:entry
/arg0 & 1/
{
	raise(arg0 > 100 ? SIGKILL : SIGUSR1);
	@["raised"] = count();
}
EOF
go rv 1 4
expect_grep "rv: -v says why" \
	"^dtrace: every clause runs in user space: clause 1 (.*): line 4: its raise() is an action the kernel's plans are not ordered with (the kernel sends a constant signal, 1 to 64, at the hit)$" \
	rv.1.err
expect_grep "rv: its count" '^ *raised  *2$' rv.1
expect_grep "rv: its signals sent" '^got [12]$' rv.1.cmd

cat >rx.d <<'EOF'
pid$target::sig_hit:entry
/arg0 == 1/
{
	raise(99);
}

pid$target::sig_hit:entry
{
	@["hits"] = count();
}
EOF
go rx 1 3
go rx 0 3
expect_eq "rx: illegal operation, as DTRACE_CGEN=0's" \
	"$(grep 'error on enabled' rx.0.err | sed 's/pid[0-9]*:/pid:/')" \
	"$(grep 'error on enabled' rx.1.err | sed 's/pid[0-9]*:/pid:/')"
expect_grep "rx: illegal operation in action #1" \
	'illegal operation in action #1$' rx.1.err
expect_file_eq "rx: dtrace's output, DTRACE_CGEN=0's" rx.0 rx.1
expect_grep "rx: -v says why" "its raise() is an action" rx.1.err

# stop() at the hit: the process stopped before sig_hit(1) returns
cat >st.d <<'EOF'
BEGIN
{
	printf("target %d\n", $target);
}

pid$target::sig_hit:entry
/arg0 == 1/
{
	stop();
	@["stopped"] = count();
}
EOF
DTRACE_CGEN=1 timeout -s KILL 120 "$DTRACE" -v -w -q -o st.1 -s st.d \
	-c "./kpprog sigs 3" >st.1.cmd 2>st.1.err &
st_d=$!
st_p= st_s=
for i in $(seq 1 200); do
	st_p=$(awk '$1 == "target" { print $2 }' st.1 2>/dev/null)
	if [ -n "$st_p" ]; then
		st_s=$(awk '$1 == "State:" { print $2 }' \
			"/proc/$st_p/status" 2>/dev/null)
		case $st_s in
		t | T) break ;;
		esac
	fi
	sleep 0.05
done
expect_eq "st: the process stopped" 1 \
	"$(case $st_s in t | T) echo 1 ;; *) echo "$st_s" ;; esac)"
expect_eq "st: stopped in sig_hit(1), its first line alone printed" \
	'0 0 0' "$(paste -sd'|' - <st.1.cmd)"
[ -z "$st_p" ] || kill -CONT "$st_p" 2>/dev/null
wait "$st_d"
expect_eq "st: dtrace's status" 0 "$?"
expect_eq "st: on to its end once continued" '0 0 0|1 0 0|2 0 0|got 0' \
	"$(paste -sd'|' - <st.1.cmd)"
expect_grep "st: -v, the kernel's clause" \
	'^dtrace: 1 clause aggregated in the kernel$' st.1.err
expect_grep "st: its count" '^ *stopped  *1$' st.1

finish
