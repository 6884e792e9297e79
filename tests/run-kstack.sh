#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kstack.sh: ustack(), ucaller and ufunc() at the kernel providers
# (their generated programs, dtrace-G/consumer/cgen_ustk.c's kp_uregs(), and
# the generic ones, bpf/kprov.bpf.h, copy the user registers and stack
# as usdt_hit() does; dtrace unwinds them with the firing process's
# modules; tests/run-cgen-kprov.sh compares the two byte for byte), against tests/data/kstack/kstk.c built -O2
# -fomit-frame-pointer, so only its CFI unwinds it.  Exact frames of the
# program, in order (libc's frames between are what the system's libc
# has, so the program's own are compared):
#  - profile-997 /pid == $target/ { @[ustack()] = count(); } on main ->
#    outer -> inner spinning: a stack whose program frames are inner,
#    outer, main, _start;
#  - syscall::write:entry and :return, on the call's own tracepoint and
#    on the raw ones (syscall:::entry), on main -> do_write -> write(2)
#    N times: one stack, do_write, main, _start, counted N; ucaller's
#    function is do_write; never aggregated in the kernel (-v says);
#    where the generated programs run, the @[ustack()] clauses are the
#    kernel's all the same, each count made by dtrace from the record's
#    stack (-v: "keying by the user stack in the kernel");
#  - proc:::exit of main -> leave -> exit(3): the stack starts in libc's
#    _exit; where the kernel's tracepoint fires before the process's
#    memory goes (newer than 6.1) it goes on through leave and main.
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
[ -d /sys/kernel/btf ] || skip "no kernel BTF: bpf_task_pt_regs() needs it"

if ! $CC -O2 -fomit-frame-pointer -o kstk \
	"$top_srcdir/tests/data/kstack/kstk.c"; then
	fail "building the test program"
	finish
fi

# kt WHAT CMD DTRACE-ARGS...: dtrace -q -v on ./kstk CMD into out.txt;
# status 0 and no clause aggregated in the kernel
kt() {
	what=$1 cmd=$2
	shift 2
	rm -f out.txt
	timeout -s KILL 120 "$DTRACE" -q -v -o out.txt -c "./kstk $cmd" "$@" \
		>prog.txt 2>err.txt
	expect_eq "$what: status" 0 "$?"
	[ -f out.txt ] || : >out.txt
	expect_eq "$what: nothing aggregated in the kernel" "" \
		"$(grep 'aggregated in the kernel' err.txt)"
}

# progframes: out.txt's frames of kstk and the counts, without offsets
progframes() {
	sed -n -e 's/^ *\(kstk`[A-Za-z_]*\).*/\1/p' -e 's/^ *\([0-9][0-9]*\)$/\1/p' \
		out.txt
}

# profile: every stack whose first program frame is inner goes on
# through outer and main to _start, and there is one
kt "profile-997 @[ustack()]" "spin 400" \
	-n 'profile-997 /pid == $target/ { @[ustack()] = count(); }'
progframes | awk '
	/^kstk`/ { s = s (s == "" ? "" : " ") $0; next }
	{ if (s ~ /^kstk`inner/) print s; s = "" }' | sort -u >got.txt
echo 'kstk`inner kstk`outer kstk`main kstk`_start' >expected.txt
expect_file_eq "profile-997: the program's frames under inner" \
	expected.txt got.txt

# syscall: one stack, N times, on both tracepoints, entry and return
printf 'kstk`do_write\nkstk`main\nkstk`_start\n7\n' >expected.txt
for probe in 'syscall::write:entry /pid == $target/' \
	'syscall::write:return /pid == $target/' \
	'syscall:::entry /pid == $target && probefunc == "write"/' \
	'syscall:::return /pid == $target && probefunc == "write"/'; do
	kt "$probe @[ustack()]" "write 7" -n "$probe { @[ustack()] = count(); }"
	[ "${DTRACE_CGEN:-1}" = 0 ] ||
		expect_grep "$probe: the clause the kernel's" \
			'^dtrace: 1 clause keying by the user stack in the kernel' \
			err.txt
	progframes >got.txt
	expect_file_eq "$probe: the program's frames" expected.txt got.txt
done

# ucaller: the caller of write(2) is do_write
kt "syscall::write:entry ucaller" "write 3" \
	-n 'syscall::write:entry /pid == $target/ { @[ufunc(ucaller)] = count(); }' \
	-n 'END { printa("%A %@d\n", @); }'
expect_eq "syscall::write:entry: ufunc(ucaller)" 'kstk`do_write 3' \
	"$(grep kstk out.txt)"

# umod(), uaddr() and ufunc() of write(2)'s buffer (a literal in kstk's
# .rodata, no symbol over it: kstk`0xADDR): where the generated programs
# run, the clause is the kernel's, the address an integer of the out
# area named as dtrace formats the kernel probe's record (its pid and
# time), as DTRACE_KAGG=0's clause names it from the record (ASLR: the
# address is each run's own); on main -v says "argument 1, umod(), a
# string the kernel does not compute"; and @k[uaddr(arg1)] = count(),
# the kernel's too (-v: kplan_out.c's "Keys by a user address's name"),
# the count made from the record, the key named as the printed one
fk='syscall::write:entry /pid == $target/ {
	printf("%s %s %s|", umod(arg1), uaddr(arg1), ufunc(arg1));
	@k[uaddr(arg1)] = count(); }'
for kagg in 1 0; do
	DTRACE_KAGG=$kagg kt "syscall::write:entry umod(arg1), KAGG=$kagg" \
		"write 2" -n "$fk"
	[ "${DTRACE_CGEN:-1}" = 0 ] || [ "$kagg" = 0 ] || {
		expect_grep "syscall::write:entry umod(arg1): the clause the kernel's" \
			'^dtrace: 1 clause printing values computed in the kernel$' \
			err.txt
		expect_grep "syscall::write:entry @k[uaddr(arg1)]: the clause the kernel's" \
			"^dtrace: 1 clause keying by a user address's name in the kernel" \
			err.txt
	}
	expect_grep "syscall::write:entry umod(arg1), KAGG=$kagg: the names" \
		'^\(kstk \(kstk`0x[0-9a-f]*\) \2|\)\{2\}$' out.txt
	a=$(sed -n 's/^kstk \(kstk`0x[0-9a-f]*\) .*/\1/p' out.txt)
	expect_eq "syscall::write:entry @k[uaddr(arg1)], KAGG=$kagg: the key" \
		"$(printf '  %-50s %16d' "$a" 2)" \
		"$(grep '^  kstk`' out.txt)"
done

# proc:::exit: libc's _exit first, then (where the memory is there) the
# program's exit path
kt "proc:::exit ustack()" "exit" \
	-n 'proc:::exit /pid == $target/ { ustack(); }'
expect_eq "proc:::exit: the first frame" 'libc.so.6`_exit' \
	"$(sed -n 's/^ *\([^ +][^ +]*\).*/\1/p' out.txt | head -n 1)"
got=$(progframes | paste -sd' ' -)
case $got in
'') ;; # 6.1: exit_mm() came first, one frame
*) expect_eq "proc:::exit: the program's frames" \
	'kstk`leave kstk`main kstk`_start' "$got" ;;
esac

finish
