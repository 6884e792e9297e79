# SPDX-License-Identifier: MIT
#
# steps-guest.sh - dtrace built for aarch64 tracing for real, in the
# qemu-system-aarch64 guest of tests/arm64/guest.sh (Debian 12's arm64
# kernel), sourced by tests/kmod/init.  /kt/gprog (tests/arm64/gprog.c,
# cross-built, its probes rewritten by -G) fires gp:::many with ten
# arguments, eight in x0-x7 and two on the stack, gp:::name with a
# string, and gp:::sdt from <sys/sdt.h>, N times.  Checked exactly:
#  - on each backend, every argument of every hit, signed and unsigned,
#    from registers and the stack, the strings through copyinstr(),
#    execname:
#    DTRACE_BACKEND=bpf with the programs generated for the clauses
#    (cgen.c, arm64's pt_regs offsets from bpf/uregs.h), and with
#    DTRACE_CGEN=0 (usdt.bpf.c, compiled for arm64); uprobe (tracefs
#    fetch arguments %x0.. and +N(%sp));
#  - the same of /kt/gstub (gprog.c linked without -G: the probes are
#    the callers' bl to the header's stubs) on the BPF and uprobe
#    backends;
#  - a count() of 200 hits, and one under a predicate on the stack
#    argument (the BPF backend aggregates them in the kernel);
#  - what aarch64 cannot trace yet is refused with the reason (exit 1):
#    ustack(), the syscall provider, the pid provider.

gp_args='gp$target:::many {
	printf("%d %d %d %d %d %d %d %d %d %d\n", arg0, arg1, arg2, arg3, arg4,
	    arg5, arg6, arg7, arg8, arg9);
}
gp$target:::name { printf("%d %s %s\n", arg0, copyinstr(arg1), execname); }
gp$target:::sdt { printf("%d %d %s\n", arg0, arg1, copyinstr(arg2)); }'
cat >/tmp/gp-expect.txt <<'EOF'
0 1 -2 0 5 6 7 8 -9 99
0 /kt/gprog gprog
0 -1 /kt/gprog
1 2 -3 1000 5 6 7 8 -10 99
1 /kt/gprog gprog
3 -2 /kt/gprog
2 3 -4 2000 5 6 7 8 -11 99
2 /kt/gprog gprog
6 -3 /kt/gprog
EOF

for be in bpf bpf-nocgen uprobe; do
	cg=1
	[ "$be" = bpf-nocgen ] && cg=0
	DTRACE_CGEN=$cg DTRACE_BACKEND=${be%-nocgen} dtrace -q \
		-n "$gp_args" -c '/kt/gprog 3' >/tmp/gp-$be.txt 2>/tmp/gp-$be.err
	expect_eq "$be backend: dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/gp-$be.err)"
	grep -v '^$' /tmp/gp-$be.txt >/tmp/gp-$be.out
	expect_file "$be backend: every argument of every hit" \
		/tmp/gp-expect.txt /tmp/gp-$be.out
	expect_eq "$be backend: nothing on stderr" "" "$(cat /tmp/gp-$be.err)"

	DTRACE_CGEN=$cg DTRACE_BACKEND=${be%-nocgen} dtrace -q \
		-n 'gp$target:::many { @n = count(); }
		gp$target:::many /arg8 == -9 - arg0/ { @ok = count(); }
		END { printa("%@d ", @n); printa("%@d\n", @ok); }' \
		-c '/kt/gprog 200' >/tmp/gpc-$be.txt 2>/tmp/gpc-$be.err
	expect_eq "$be backend: count() of 200 hits, arg8 each time" \
		"200 200" "$(grep -v '^$' /tmp/gpc-$be.txt)" ||
		diag "$(cat /tmp/gpc-$be.err)"
done

# without -G: the header's stubs, each bl to one a site of main's probe
sed 's|/kt/gprog gprog$|/kt/gstub gstub|; s|/kt/gprog$|/kt/gstub|' \
	/tmp/gp-expect.txt >/tmp/gs-expect.txt
for be in bpf uprobe; do
	DTRACE_BACKEND=$be dtrace -q -n "$gp_args" -c '/kt/gstub 3' \
		>/tmp/gs-$be.txt 2>/tmp/gs-$be.err
	expect_eq "$be backend, stubs: dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/gs-$be.err)"
	grep -v '^$' /tmp/gs-$be.txt >/tmp/gs-$be.out
	expect_file "$be backend, stubs: every argument of every hit" \
		/tmp/gs-expect.txt /tmp/gs-$be.out
done

# refused, with the reason
dtrace -q -n 'gp$target:::many { ustack(); }' -c '/kt/gprog 1' \
	>/tmp/rf.txt 2>/tmp/rf.err
expect_eq "ustack() refused on aarch64" \
	"1 dtrace: ustack(), jstack(), ucaller, ustackdepth and uregs[] are not available on aarch64: dtrace takes x86-64's user registers and stacks only so far" \
	"$? $(cat /tmp/rf.err)"
dtrace -q -n 'syscall::getpid:entry { @ = count(); }' -c '/kt/gprog 1' \
	>/tmp/rf.txt 2>/tmp/rf.err
expect_eq "the syscall provider refused on aarch64" \
	"1 dtrace: cannot enable syscall:vmlinux:getpid:entry: the syscall provider is x86-64's only so far; on aarch64 USDT probes, BEGIN, END, ERROR and tick-N trace" \
	"$? $(cat /tmp/rf.err)"
dtrace -q -n 'pid$target::main:entry { @ = count(); }' -c '/kt/gprog 1' \
	>/tmp/rf.txt 2>/tmp/rf.err
expect_eq "the pid provider refused on aarch64" \
	"1 dtrace: invalid probe specifier pid\$target::main:entry: the pid provider is not available on aarch64 (x86-64 only so far)" \
	"$? $(sed 's/pid[0-9]*::/pid$target::/' /tmp/rf.err)"
