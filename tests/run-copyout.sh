#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-copyout.sh: copyoutstr() and copyout() under -w, written by the
# BPF program at the hit (bpf_probe_write_user()), against a real
# process (tests/data/copyout/cpout.c), which prints its buffer right
# after the probe returns:
#  - the string written, cut to the size given, is what the process
#    prints: the write happened before the probe returned; so are the
#    bytes of copyinstr(argA) and copyin(argA, n), read at the hit;
#  - a write to an address nothing maps is a fault: ERROR's arguments
#    (DTRACEFLT_BADADDR, the address) and DTrace's message;
#  - without -w: "Destructive actions not allowed";
#  - a kernel that refuses BPF writes to user memory: the run refused;
#  - the forms that cannot be done at the hit are refused, with why.
# Needs root, uprobes and the BPF backend.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/copyout

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and perf_event_open need root"
[ "${HAVE_BPF:-no}" = yes ] || skip "dtrace built without the BPF backend"
require_G
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
DTRACE_BACKEND=bpf
export DTRACE_STATEDIR DTRACE_BACKEND

"$DTRACE" -h -s "$data/cpout.d" -o cpout.h &&
	$CC -O2 -I. -c "$data/cpout.c" -o cpout.o &&
	"$DTRACE" -G -s "$data/cpout.d" cpout.o -o cpout-p.o &&
	$CC -o cpout cpout.o cpout-p.o || fail "building cpout"

# "written-by-dtrace" cut to 8 bytes: no NUL written, so the old bytes
# after them show ("written-" then "-bytes" of "original-bytes").  A
# kernel that refuses bpf_probe_write_user() (lockdown's integrity mode:
# kernel_lockdown(7)) has the run refused, saying so, before the
# process runs a probe: then the writes cannot be checked here.
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr("written-by-dtrace", arg0, 8); }
	ERROR { printf("ERROR %d 0x%x\n", arg4, arg5); }
	cpout$target:::done { exit(0); }'
if grep -q 'this kernel refuses bpf_probe_write_user()' err.txt; then
	expect_eq "-w, locked down: status" 1 "$status"
	expect_eq "-w, locked down: nothing written, nothing traced" "" \
		"$(grep -v '^after the probe: \[original-bytes\]$' out.txt)"
	echo "# this kernel refuses bpf_probe_write_user(): writes not checked"
	# the forms that write what the program reads at the hit pass
	# every rule of the program's, up to the kernel's refusal
	for d in 'copyoutstr(copyinstr(arg1), arg0, 9)' \
		'copyout(copyin(arg1, 4), arg0, 4)'; do
		run_dtrace -w -q -c './cpout copy' -n "cpout\$target:::copy { $d; }"
		expect_grep "-w, locked down: $d: the kernel's refusal" \
			'this kernel refuses bpf_probe_write_user()' err.txt
	done
else
	expect_eq "-w: status" 0 "$status"
	expect_eq "-w: the bytes written at the hit; ERROR's arguments" \
		"after the probe: [written--bytes]
ERROR 1 0x10" "$(sed '/^$/d' out.txt)"
	expect_grep "-w: the fault's message" \
		"cpout:main:fill): invalid address (0x10) in action #1$" err.txt

	# the whole string, its NUL included
	run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
		copyoutstr("new", arg0, 32); }' \
		-n 'cpout$target:::done { exit(0); }'
	expect_eq "-w: the string and its NUL" "after the probe: [new]" \
		"$(head -1 out.txt)"

	# bytes read at the hit at another argument's address, then
	# written: a string cut to the size (no NUL), a whole string, n
	# bytes; a source nothing maps: nothing written, the clause's
	# copyin faults there
	for c in 'copyoutstr(copyinstr(arg1), arg0, 9)|from-the-bytes' \
		'copyoutstr(copyinstr(arg1), arg0, 32)|from-the-source' \
		'copyout(copyin(arg1, 4), arg0, 4)|frominal-bytes'; do
		run_dtrace -w -q -c './cpout copy' -n "cpout\$target:::copy {
			${c%|*}; } ERROR { printf(\"ERROR %d 0x%x\\n\", arg4, arg5); }"
		expect_eq "-w: ${c%|*}: status" 0 "$status"
		expect_eq "-w: ${c%|*}: written before the probe returned" \
			"after the copy: [${c#*|}]
after a copy from 0x10: [original-bytes]
ERROR 1 0x10" "$(sed '/^$/d' out.txt)"
	done
fi

run_dtrace -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr("new", arg0, 32); }' -n 'cpout$target:::done { exit(0); }'
expect_eq "without -w: status" 1 "$status"
expect_eq "without -w: message" \
	"dtrace: could not enable tracing: Destructive actions not allowed" \
	"$(cat err.txt)"

# refused: what the program could not write at the hit, exactly
for d in 'cpout$target:::fill /arg1 > 0/ { copyoutstr("x", arg0, 2); }' \
	'cpout$target:::fill { trace(arg1); copyoutstr("x", arg0, 2); }' \
	'cpout$target:::fill { copyoutstr("x", arg0, 2); trace(copyinstr(arg0)); }' \
	'cpout$target:::fill { copyoutstr("x", arg0, 2); copyoutstr("y", arg0, 2); }'; do
	run_dtrace -w -q -c ./cpout -n "$d"
	expect_eq "refused: $d: status" 1 "$status"
	expect_grep "refused: $d: why" "copyoutstr( ) .*" err.txt
	expect_eq "refused: $d: nothing traced" "" "$(cat out.txt)"
done
for d in 'cpout$target:::copy { copyoutstr(copyinstr(arg1), arg0, 64); }' \
	'cpout$target:::copy { copyout(copyin(arg1, 4), arg0, 8); }' \
	'cpout$target:::copy { copyout(copyin(arg1, 65), arg0, 4); }'; do
	run_dtrace -w -q -c './cpout copy' -n "$d"
	expect_eq "refused: $d: status" 1 "$status"
	expect_grep "refused: $d: why" "over .* the BPF program reads at the hit" err.txt
	expect_eq "refused: $d: nothing traced" "" "$(cat out.txt)"
done
run_dtrace -w -q -c './cpout copy' -n 'cpout$target:::copy {
	copyoutstr(copyinstr(arg1), arg0, 9); trace(copyinstr(arg1)); }'
expect_grep "refused: a read besides the write's source" \
	"copyoutstr( ) in a program that reads the process's memory .* but for the write's own source" err.txt
# bytes the BPF program cannot have at the hit: what the clause builds
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	copyoutstr(strjoin("a", copyinstr(arg0)), arg0, 2); }'
expect_grep "built: refused" \
	'copyoutstr( ): its source is a string the clause computes' err.txt
run_dtrace -w -q -c ./cpout -n 'cpout$target:::fill {
	this->b = (char *)alloca(2); this->b[0] = 65; this->b[1] = 0;
	copyout(this->b, arg0, 2); }'
expect_grep "alloca(): refused" \
	"copyout( ): its source is a buffer the clause builds or keeps" err.txt

finish
