# SPDX-License-Identifier: MIT
#
# steps-pid-guest.sh - the pid provider of dtrace built for aarch64, in
# the qemu-system-aarch64 guest of tests/arm64/guest.sh (Debian 12's
# arm64 kernel).  Copied into the guest as /kmod/steps-pid.sh, so
# tests/kmod/init sources it after steps-guest.sh and steps-helperd.sh.
#
# /kt/gprog N calls sum10(i, i + 1, -2 - i, 3, 4, 5, 6, 7, -8 - i,
# 9000 + i) for i < N (tests/arm64/gprog.c): eight arguments in x0-x7,
# two on the stack, 9016 + i returned, and no branch, so each of its
# instructions runs once a call.  /kt/sum10.size is its size (nm -S, on
# the host).  Checked exactly:
#  - pid$target:a.out:sum10:entry, every argument of every call (arg0-7
#    from x0-x7, arg8-9 from the stack at sp) and :return, arg0 0 and
#    arg1 the value returned (x0), probemod gprog, probefunc sum10; on
#    the BPF backend with generated programs and with DTRACE_CGEN=0, and
#    on uprobe events;
#  - a count() of 200 entries and of 200 returns, each checked against
#    its own arguments or value (the BPF backend aggregates in the
#    kernel);
#  - pid$target:a.out:sum10: (entry, return and every instruction
#    offset): `dtrace -l` lists entry, return and the offsets 0, 4, ..
#    up to sum10's size, and tracing counts each of them 3 times in 3
#    calls, on both backends;
#  - an offset inside an instruction (2) and one past the function are
#    refused with the reason, exit 1;
#  - pid$target:a.out:excl: (gprog.c's excl(), in assembly: nop, ldxr,
#    clrex, ret): the ldxr at 4, which arm64's uprobes refuse (EINVAL),
#    is left out with a warning naming it, and entry, return and the
#    other offsets are each counted 3 times, on both backends.

pid_args='pid$target:a.out:sum10:entry {
	printf("e %d %d %d %d %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3,
	    arg4, arg5, arg6, arg7, arg8, arg9);
}
pid$target:a.out:sum10:return {
	printf("r %d %d %s %s\n", arg0, arg1, probemod, probefunc);
}'
cat >/tmp/pid-expect.txt <<'EOF'
e 0 1 -2 3 4 5 6 7 -8 9000
r 0 9016 gprog sum10
e 1 2 -3 3 4 5 6 7 -9 9001
r 0 9017 gprog sum10
e 2 3 -4 3 4 5 6 7 -10 9002
r 0 9018 gprog sum10
EOF

for be in bpf bpf-nocgen uprobe; do
	cg=1
	[ "$be" = bpf-nocgen ] && cg=0
	DTRACE_CGEN=$cg DTRACE_BACKEND=${be%-nocgen} dtrace -q \
		-n "$pid_args" -c '/kt/gprog 3' >/tmp/pid-$be.txt 2>/tmp/pid-$be.err
	expect_eq "pid provider ($be): dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/pid-$be.err)"
	grep -v '^$' /tmp/pid-$be.txt >/tmp/pid-$be.out
	expect_file "pid provider ($be): entry arguments and return values" \
		/tmp/pid-expect.txt /tmp/pid-$be.out
	expect_eq "pid provider ($be): nothing on stderr" "" \
		"$(cat /tmp/pid-$be.err)"

	DTRACE_CGEN=$cg DTRACE_BACKEND=${be%-nocgen} dtrace -q \
		-n 'pid$target:a.out:sum10:entry
		/arg8 == -8 - arg0 && arg9 == 9000 + arg0/ { @e = count(); }
		pid$target:a.out:sum10:return
		/arg1 >= 9016 && arg1 < 9216/ { @r = count(); }
		END { printa("%@d ", @e); printa("%@d\n", @r); }' \
		-c '/kt/gprog 200' >/tmp/pidc-$be.txt 2>/tmp/pidc-$be.err
	expect_eq "pid provider ($be): count() of 200 entries and returns" \
		"200 200" "$(grep -v '^$' /tmp/pidc-$be.txt)" ||
		diag "$(cat /tmp/pidc-$be.err)"
done

# every instruction of sum10: 4 bytes each, from 0 to its size
size=$((0x$(cat /kt/sum10.size)))
: >/tmp/pido-names.txt
o=0
while [ $o -lt $size ]; do
	printf '%x\n' $o >>/tmp/pido-names.txt
	o=$((o + 4))
done
printf '%s\n' entry return >>/tmp/pido-names.txt
sort /tmp/pido-names.txt >/tmp/pido-list-expect.txt
sed 's/$/ 3/' /tmp/pido-list-expect.txt >/tmp/pido-expect.txt
diag "sum10: $size bytes, $((size / 4)) instructions"

dtrace -l -n 'pid$target:a.out:sum10:' -c '/kt/gprog 1' \
	>/tmp/pidl.txt 2>/tmp/pidl.err
expect_eq "pid provider: dtrace -l exits 0" 0 "$?" ||
	diag "$(cat /tmp/pidl.err)"
awk 'NR > 1 { print $5 }' /tmp/pidl.txt | sort >/tmp/pidl.out
expect_file "pid provider: dtrace -l lists entry, return, every 4 bytes" \
	/tmp/pido-list-expect.txt /tmp/pidl.out

for be in bpf uprobe; do
	DTRACE_BACKEND=$be dtrace -q -n 'pid$target:a.out:sum10: {
		@[probename] = count(); }
	END { printa("%s %@d\n", @); }' -c '/kt/gprog 3' \
		>/tmp/pido-$be.txt 2>/tmp/pido-$be.err
	expect_eq "pid provider ($be): every offset, dtrace exits 0" 0 "$?" ||
		diag "$(cat /tmp/pido-$be.err)"
	grep -v '^$' /tmp/pido-$be.txt | sort >/tmp/pido-$be.out
	expect_file "pid provider ($be): each instruction hit once a call" \
		/tmp/pido-expect.txt /tmp/pido-$be.out
done

# refused: inside an instruction, past the function
dtrace -q -n 'pid$target:a.out:sum10:2 { }' -c '/kt/gprog 1' \
	>/tmp/pidr.txt 2>/tmp/pidr.err
expect_eq "pid provider: offset 2 refused, inside the instruction at 0" \
	"1 dtrace: invalid probe specifier pid\$target:a.out:sum10:2: offset 0x2 is not on an instruction boundary of sum10: it lies inside the instruction at offset 0x0" \
	"$? $(sed 's/pid[0-9]*:/pid$target:/' /tmp/pidr.err)"
past=$(printf '%x' $size)
dtrace -q -n "pid\$target:a.out:sum10:$past { }" -c '/kt/gprog 1' \
	>/tmp/pidr.txt 2>/tmp/pidr.err
expect_eq "pid provider: offset $past refused, past the function" \
	"1 dtrace: invalid probe specifier pid\$target:a.out:sum10:$past: offset 0x$past is outside function sum10 (0x$past bytes) in /kt/gprog" \
	"$? $(sed 's/pid[0-9]*:/pid$target:/' /tmp/pidr.err)"

# an instruction the kernel will not probe (excl's ldxr at 4) is left
# out with a warning, the rest of the function traced
printf '%s\n' '0 3' '8 3' 'c 3' 'entry 3' 'return 3' >/tmp/pidx-expect.txt
for be in bpf uprobe; do
	DTRACE_BACKEND=$be dtrace -q -n 'pid$target:a.out:excl: {
		@[probename] = count(); }
	END { printa("%s %@d\n", @); }' -c '/kt/gprog 3' \
		>/tmp/pidx-$be.txt 2>/tmp/pidx-$be.err
	expect_eq "pid provider ($be): excl's offsets, dtrace exits 0" 0 "$?" ||
		diag "$(cat /tmp/pidx-$be.err)"
	grep -v '^$' /tmp/pidx-$be.txt | sort >/tmp/pidx-$be.out
	expect_file "pid provider ($be): every offset of excl but the ldxr" \
		/tmp/pidx-expect.txt /tmp/pidx-$be.out
	expect_eq "pid provider ($be): the ldxr left out with a warning" \
		"dtrace: warning: pid\$target:gprog:excl:4 is not traced: the kernel's uprobes cannot probe the instruction at /kt/gprog offset 0xOFF" \
		"$(sed 's/pid[0-9]*:/pid$target:/; s/offset 0x[0-9a-f]*$/offset 0xOFF/' /tmp/pidx-$be.err)"
done
