#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-bpf-fallback.sh: when the kernel will not let dtrace use its BPF
# backend, dtrace says why, once, with the step and the errno, and traces
# through uprobe events instead; with DTRACE_BACKEND=bpf it says the same
# and stops.  The refusal is a real one: dtrace runs as root without
# CAP_BPF and CAP_SYS_ADMIN (setpriv), where a kernel whose
# kernel.unprivileged_bpf_disabled is set refuses bpf() with EPERM, while
# uprobe events (root's files) and their perf events (CAP_PERFMON) still
# work.  (tests/kmod/steps-bpf.sh checks the other side on Debian's 6.1:
# no such line, a BPF program loaded.)
# Needs root, setpriv, tracefs and a dtrace with the BPF backend.

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and BPF need root"
[ "${HAVE_BPF:-no}" = yes ] || skip "dtrace built without the BPF backend"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
require_G
require_uprobe_events
case $(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null) in
1 | 2) ;;
*) skip "kernel.unprivileged_bpf_disabled is not set: bpf() is not refused without CAP_BPF" ;;
esac

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR
unset DTRACE_BACKEND

trace_progs_build

# nocap ARGS...: dtrace (at most 120 s) as root without CAP_BPF and
# CAP_SYS_ADMIN, output in out.txt (-o), stderr in err.txt, $status
nocap() {
	rm -f out.txt
	timeout -s KILL 120 setpriv --inh-caps=-bpf,-sys_admin \
		--bounding-set=-bpf,-sys_admin \
		"$DTRACE" -o out.txt "$@" 2>err.txt </dev/null
	status=$?
	[ -f out.txt ] || : >out.txt
}

why="creating a BPF map: Operation not permitted"
d='tr$target:::tick { printf("%d %s\n", arg0, copyinstr(arg1)); }'

# chosen by dtrace: the uprobe events backend, and the reason said once
nocap -q -n "$d" -c "./trprog 'tick 2'"
expect_eq "no CAP_BPF: status" 0 "$status"
printf '0 alpha\n1 beta\n\n' >expected.txt
expect_file_eq "no CAP_BPF: traced through uprobe events" expected.txt out.txt
# ... and that the dlopen() hold (dlhold.c's own BPF program, which the
# uprobe events backend uses too) cannot be had either, for the same
# reason
printf 'dtrace: the BPF backend cannot be used: %s; using the uprobe events backend\n' \
	"$why" >expected.txt
printf 'dtrace: a library a traced process dlopen()s is armed when its maps are next read (its first hits can be missed): its map was refused: Operation not permitted\n' \
	>>expected.txt
expect_file_eq "no CAP_BPF: the reason, once" expected.txt err.txt

# asked for by name: the same reason, and no tracing
DTRACE_BACKEND=bpf
export DTRACE_BACKEND
nocap -q -n "$d" -c "./trprog 'tick 2'"
unset DTRACE_BACKEND
expect_eq "DTRACE_BACKEND=bpf, no CAP_BPF: status" 1 "$status"
expect_eq "DTRACE_BACKEND=bpf, no CAP_BPF: nothing traced" "" "$(cat out.txt)"
printf 'dtrace: DTRACE_BACKEND=bpf: the BPF backend cannot be used: %s\n' \
	"$why" >expected.txt
expect_file_eq "DTRACE_BACKEND=bpf, no CAP_BPF: the reason" expected.txt err.txt

# with every capability: the BPF backend, nothing said
rm -f out.txt
timeout -s KILL 120 "$DTRACE" -q -o out.txt -n "$d" -c "./trprog 'tick 2'" \
	2>err.txt </dev/null
expect_eq "root: status" 0 "$?"
expect_eq "root: nothing on stderr" "" "$(cat err.txt)"
printf '0 alpha\n1 beta\n\n' >expected.txt
expect_file_eq "root: traced" expected.txt out.txt

finish
