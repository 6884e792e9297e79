#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-copyin.sh: copyin(), the pointers into its copies and tracemem(),
# against a real process (tests/data/copyin/cpin.c): its probes pass the
# addresses of an int and a 64-bit integer on its stack and of a 40-byte
# heap buffer whose bytes it computes (i * 7 + 1, with "Hello, world"
# and no NUL at 8), then it waits, so every read of its memory, at the
# hit or later, sees the same bytes.  Each expected value is what the
# program wrote there, worked out here, not by dtrace:
#  - *(int *)copyin(), *(uint64_t *)copyin(), a pointer kept in this->,
#    C's pointer scaling (+1 on a uint32_t * is 4 bytes), a char's sign;
#  - stringof(copyin(addr, n)) ends at the copy's end without a NUL;
#  - tracemem() in DTrace's raw-bytes layout, with a smaller third size;
#  - the BPF backend copies copyin(argN, n) when the probe fires: a stack
#    buffer overwritten right after the probe reads as it was at the hit
#    (the uprobe backend reads later, so that case is the BPF one's);
#  - ustackdepth against ustack()'s frames, -x maxframes;
#  - alloca() and copyinto(): the process's bytes in the clause's
#    scratch; ERROR's arguments for an unmapped address; what an ERROR
#    clause reads of the faulting firing (uid, ppid, execname,
#    pr_psargs, vtimestamp, pr_sid) on a USDT and a kernel probe;
#  - errors: * of a non-pointer and of void * (compile time, line and
#    column), a pointer outside the copy, a traced address cast to a
#    pointer (run time "invalid address"), more than the scratch space,
#    a copy of 8 bytes whose last 4 are on an unreadable page (a fault,
#    not 4 bytes and 4 zeros; its first 4 read).
# Both backends where the BPF one is built.  Needs root and uprobes.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/copyin

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and perf_event_open need root"
require_G
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR

"$DTRACE" -h -s "$data/cpin.d" -o cpin.h &&
	$CC -O2 -I. -c "$data/cpin.c" -o cpin.o &&
	"$DTRACE" -G -s "$data/cpin.d" cpin.o -o cpin-p.o &&
	$CC -o cpin cpin.o cpin-p.o || fail "building cpin"

# The bytes of cpin.c's buffer, and DTrace's tracemem() layout of them.
awk 'BEGIN {
	for (i = 0; i < 40; i++) b[i] = (i * 7 + 1) % 256
	s = "Hello, world"
	for (i = 0; i < 12; i++) b[8 + i] = index(" !\"#$%&'"'"'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~", substr(s, i + 1, 1)) + 31
	for (n = 40; n > 0; n -= 37) {
		printf "\n           "
		for (i = 0; i < 16; i++) printf "  %x", i
		printf "  0123456789abcdef\n"
		for (r = 0; r < n; r += 16) {
			printf "     %5x:", r
			for (i = r; i < r + 16; i++)
				if (i < n) printf " %02x", b[i]; else printf "   "
			printf "  "
			for (i = r; i < r + 16 && i < n; i++)
				printf "%c", (b[i] < 32 || b[i] > 126) ? "." : sprintf("%c", b[i])
			printf "\n"
		}
	}
}' >dump.txt

cat >t.d <<'EOS'
cpin$target:::num
{
	printf("int %d\n", *(int *)copyin(arg0, 4));
	printf("u64 %x\n", *(uint64_t *)copyin(arg1, 8));
	this->p = copyin(arg1, 8);
	printf("lo %x hi %x byte1 %x\n", *(uint32_t *)this->p,
	    *((uint32_t *)this->p + 1), *((unsigned char *)this->p + 1));
	printf("char %d\n", *(char *)copyin(arg0, 1));
}
cpin$target:::buf
{
	printf("str [%s]\n", stringof(copyin(arg0 + 8, 12)));
	printf("str5 [%s]\n", stringof(copyin(arg0 + 8, 5)));
	tracemem(copyin(arg0, arg1), 40);
	tracemem(copyin(arg0, 40), 40, 3);
	printf("\n");
}
cpin$target:::done { exit(0); }
EOS
{
	echo "int -42"
	echo "u64 1122334455667788"
	echo "lo 55667788 hi 11223344 byte1 77"
	echo "char -42"
	echo "str [Hello, world]"
	echo "str5 [Hello]"
	cat dump.txt
	echo
	echo
} >expected.txt

backends=default
[ "${HAVE_BPF:-no}" = yes ] && backends="bpf uprobe"
for be in $backends; do
	if [ "$be" = default ]; then
		unset DTRACE_BACKEND
	else
		DTRACE_BACKEND=$be
		export DTRACE_BACKEND
	fi
	run_dtrace -q -s t.d -c ./cpin
	expect_eq "$be: status" 0 "$status"
	expect_file_eq "$be: copyin, stringof, tracemem" expected.txt out.txt
	[ -s err.txt ] && fail "$be: stderr: $(cat err.txt)"

	# run-time faults: outside the copy, a traced address, too much
	run_dtrace -q -c ./cpin -n 'cpin$target:::num {
		printf("%d\n", *(int *)(copyin(arg0, 4) + 2)); }
		cpin$target:::buf { printf("%d\n", *(int *)arg0); }
		cpin$target:::buf { this->p = copyin(arg0, 40000);
		    this->q = copyin(arg0, 40000); }
		cpin$target:::edge { this->e = *(int *)copyin(arg0, 4);
		    trace(*(uint64_t *)copyin(arg0, 8)); }
		cpin$target:::done { exit(0); }'
	expect_eq "$be: faults: status" 0 "$status"
	expect_eq "$be: faults: nothing printed" "" "$(tr -d '\n' <out.txt)"
	expect_grep "$be: outside the copy" \
		"^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: cpin[0-9]*:cpin:main:num): invalid address (0x[0-9a-f]*) in action #1$" err.txt
	addr=$(sed -n 's/.*cpin:main:buf): invalid address (\(0x[0-9a-f]*\)) in action #1$/\1/p' err.txt)
	[ -n "$addr" ] || fail "$be: a traced address cast to a pointer: $(cat err.txt)"
	expect_grep "$be: out of scratch space" \
		"cpin:main:buf): out of scratch space in action #2$" err.txt
	# 8 bytes of which the last 4 are on an unreadable page: a fault at
	# the copy (not 4 bytes and 4 zeros), its 4 readable ones not
	expect_grep "$be: a copy running into an unreadable page" \
		"cpin:main:edge): invalid address (0x[0-9a-f]*ffc) in action #2$" err.txt
	expect_eq "$be: one fault at edge" 1 "$(grep -c 'cpin:main:edge)' err.txt)"
done

# The copy made when the probe fired (BPF): cpin overwrites the buffer
# right after the probe, and the consumer runs the record later.
if [ "${HAVE_BPF:-no}" = yes ]; then
	DTRACE_BACKEND=bpf run_dtrace -q -c ./cpin -n 'cpin$target:::reused {
		printf("[%s]\n", stringof(copyin(arg0, 14))); }
		cpin$target:::done { exit(0); }'
	expect_eq "bpf: copied at the hit" "[before-the-hit]" "$(head -1 out.txt)"
fi

# alloca() and copyinto() make a buffer of the process's bytes, read
# through the clause's pointer; a copyin() of an unmapped address is an
# invalid address, ERROR's arg5 naming it.  copyout() of such a buffer
# is refused (tests/d/funcs): run from the record it would write after
# the probe has returned; copyoutstr() of a literal and copyout() of
# bytes read at an argument are tests/run-copyout.sh's.
run_dtrace -q -c ./cpin -n 'cpin$target:::buf {
	this->b = (char *)alloca(6); copyinto(arg0 + 8, 5, this->b);
	printf("[%s]\n", stringof(this->b)); }
	cpin$target:::buf { trace(*(char *)copyin(8, 2)); }
	ERROR { printf("ERROR %d 0x%x\n", arg4, arg5); }
	cpin$target:::done { exit(0); }'
expect_eq "alloca, copyinto: status" 0 "$status"
expect_eq "alloca, copyinto: the bytes copied; ERROR's arguments" \
	"[Hello]
ERROR 1 0x8" "$(sed '/^$/d' out.txt)"
expect_grep "copyin of an unmapped address" \
	"cpin:main:buf): invalid address (0x8) in action #1$" err.txt

# ERROR fires in the faulting firing's context: what its clause reads
# of that firing (ids, ppid, execname, vtimestamp, the arguments and
# session of the process) is in the faulting probe's record though no
# clause of that probe reads it.  The BPF backend copies them at the
# hit, of a USDT probe and of a kernel probe alike; the uprobe backend
# cannot take uid at the hit and refuses the script, and so does the
# user path (DTRACE_ACTIVATION=user), whose records carry neither uid
# nor vtimestamp.
eclause='ERROR { printf("ERROR %d %d %d %s [%s] %d %d\n", uid == $uid, arg4,
	ppid == $pid, execname, curpsinfo->pr_psargs, vtimestamp > 0,
	curpsinfo->pr_sid == $sid); exit(0); }
	cpin$target:::done { exit(0); }'
for be in $backends; do
	if [ "$be" = default ]; then
		unset DTRACE_BACKEND
	else
		DTRACE_BACKEND=$be
		export DTRACE_BACKEND
	fi
	for cg in 1 0; do
		DTRACE_CGEN=$cg
		export DTRACE_CGEN
		run_dtrace -q -c ./cpin -n 'cpin$target:::buf {
			trace(*(char *)copyin(8, 2)); }' -n "$eclause"
		case $act_path:$be:${HAVE_BPF:-no} in
		kernel:bpf:* | kernel:default:yes)
			expect_eq "$be, cgen $cg: ERROR reads the faulting hit's" \
				"ERROR 1 1 1 cpin [./cpin] 1 1" \
				"$(sed '/^$/d' out.txt)"
			;;
		user:*)
			expect_eq "user path: what ERROR reads refused: status" 1 "$status"
			expect_grep "user path: what ERROR reads refused, naming the backend" \
				"cannot use .* with the in-process backend" err.txt
			;;
		*)
			expect_eq "$be: what ERROR reads refused: status" 1 "$status"
			expect_grep "$be: what ERROR reads refused, naming the backend" \
				"cannot use .* with the uprobe" err.txt
			;;
		esac
	done
done
unset DTRACE_CGEN
if [ "${HAVE_BPF:-no}" = yes ]; then
	kernel_path_only "the syscall provider is the kernel's"
	DTRACE_BACKEND=bpf run_dtrace -q -c ./cpin -n 'syscall:::entry /pid == $target/ {
		trace(*(char *)copyin(8, 2)); }' -n "$eclause"
	kernel_path_end
	expect_eq "a kernel probe: ERROR reads the faulting hit's" \
		"ERROR 1 1 1 cpin [./cpin] 1 1" "$(sed '/^$/d' out.txt)"
fi

# ustackdepth is the number of frames ustack() prints (main and the C
# library's start-up, as the process has them); -x maxframes caps every
# ustack(), with or without a frame count, not ustackdepth.
run_dtrace -q -c ./cpin -n 'cpin$target:::num { printf("%d", ustackdepth);
	ustack(); }' -n 'cpin$target:::done { exit(0); }'
depth=$(head -1 out.txt)
frames=$(grep -c '^ *[^ ].*`' out.txt)
expect_eq "ustackdepth: the frames ustack() prints" "$frames" "$depth"
[ "${depth:-0}" -ge 3 ] || fail "ustackdepth $depth: main and the start-up expected"
run_dtrace -q -x maxframes=2 -c ./cpin -n 'cpin$target:::num {
	ustack(); ustack(5); printf("\n%d\n", ustackdepth); }' \
	-n 'cpin$target:::done { exit(0); }'
expect_eq "maxframes=2: two frames per ustack()" 4 "$(grep -c '`' out.txt)"
expect_eq "maxframes=2: ustackdepth is the whole stack" "$depth" \
	"$(grep -v '^ *$' out.txt | tail -1)"

# compile-time errors: the line and the column, nothing traced
run_dtrace -q -c ./cpin -n 'cpin$target:::num { trace(*arg0); }'
expect_eq "* of an integer: status" 1 "$status"
expect_grep "* of an integer" \
	'line 1, column 27: operator \* requires an operand of pointer type' err.txt
run_dtrace -q -c ./cpin -n 'cpin$target:::num { trace(*copyin(arg0, 4)); }'
expect_grep "* of void *" \
	'line 1, column 27: operator \* cannot dereference a void \*' err.txt
run_dtrace -q -c ./cpin -n 'cpin$target:::num { tracemem(arg0, 4); }'
expect_grep "tracemem of an integer" \
	'line 1, column 30: tracemem( ) argument #1 must be a pointer' err.txt

finish
