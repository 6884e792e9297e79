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
#  - the syscall provider (x0-x5 and syscallno of arm64's pt_regs, the
#    table with lseek, an __NR3264_ call): gprog's getpid(), write()
#    and lseek() calls, each argument, return value and errno, and a
#    count() of getpid()s whose return is the caller's pid; on the
#    calls' own tracepoints with generated programs and with
#    DTRACE_CGEN=0, and on the raw tracepoints (DTRACE_SYSCALL_RAW=1);
#  - profile-997 while gprog spins in user mode (between two getppid()
#    calls): each of its ticks has arg0 0 and arg1 inside spin(), where
#    gprog says spin() is, or arg1 0 and arg0 a kernel address (arm64's
#    pc and pstate), and some are user ticks; with generated programs
#    and with DTRACE_CGEN=0;
#  - what aarch64 cannot trace yet is refused with the reason (exit 1):
#    ustack(), the proc provider.  (The pid provider traces:
#    steps-pid-guest.sh.)

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

# the syscall provider: gprog's own calls (tests/arm64/gprog.c)
sys_d='syscall::getpid:entry /execname == "gprog"/ { @g = count(); }
syscall::getpid:return /execname == "gprog" && arg0 == pid/ { @r = count(); }
syscall::write:entry /execname == "gprog"/ {
	printf("write %d %d %s\n", arg0, arg2, copyinstr(arg1));
}
syscall::write:return /execname == "gprog"/ {
	printf("wret %d %d\n", arg0, errno);
}
syscall::lseek:entry /execname == "gprog"/ {
	printf("lseek %d %d %d\n", arg0, arg1, arg2);
}
syscall::lseek:return /execname == "gprog"/ {
	printf("lret %d %d\n", arg0, errno);
}
END { printa("getpid %@d ", @g); printa("%@d\n", @r); }'
: >/tmp/sys-expect.txt
for i in 0 1 2; do
	cat >>/tmp/sys-expect.txt <<EOF
write 100 $((3 + i)) /kt/gprog
wret $((3 + i)) 0
lseek 100 $((4096 + i)) 1
lret 0 0
lseek 101 7 0
lret -9 9
EOF
done
echo "getpid 3 3" >>/tmp/sys-expect.txt
for v in tp tp-nocgen raw; do
	cg=1 raw=0
	[ "$v" = tp-nocgen ] && cg=0
	[ "$v" = raw ] && raw=1
	DTRACE_CGEN=$cg DTRACE_SYSCALL_RAW=$raw DTRACE_BACKEND=bpf dtrace -q \
		-n "$sys_d" -c '/kt/gprog 3' >/tmp/sys-$v.txt 2>/tmp/sys-$v.err
	expect_eq "syscall provider ($v): dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/sys-$v.err)"
	grep -v '^$' /tmp/sys-$v.txt >/tmp/sys-$v.out
	expect_file "syscall provider ($v): arguments, returns, errno, count" \
		/tmp/sys-expect.txt /tmp/sys-$v.out
done

# profile-997: the ticks of gprog's spin() (tests/arm64/gprog.c)
for cg in 1 0; do
	DTRACE_CGEN=$cg DTRACE_BACKEND=bpf dtrace -q -n 'int spinning;
	syscall::getppid:entry /pid == $target/ { spinning = !spinning; }
	profile-997 /spinning && pid == $target/ { printf("%x %d\n", arg0, arg1); }' \
		-c '/kt/gprog spin 30000000 /tmp/spin-range.txt' \
		>/tmp/prof-$cg.txt 2>/tmp/prof-$cg.err
	expect_eq "profile-997 (cgen $cg): dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/prof-$cg.err)"
	read -r lo hi </tmp/spin-range.txt
	nu=0 nk=0 nbad=0
	while read -r k u; do
		if [ "$k" = 0 ] && [ "$u" -ge "$lo" ] && [ "$u" -lt "$hi" ]; then
			nu=$((nu + 1))
		elif [ "$u" = 0 ] && [ "${k#ffff}" != "$k" ]; then
			nk=$((nk + 1))
		else
			nbad=$((nbad + 1))
			diag "a tick outside spin() [$lo, $hi) and the kernel: $k $u"
		fi
	done <<EOF
$(grep -v '^$' /tmp/prof-$cg.txt)
EOF
	diag "profile-997 (cgen $cg): $nu user ticks, $nk kernel ones"
	expect_eq "profile-997 (cgen $cg): user ticks in spin(), kernel ones in the kernel" \
		"some 0" "$([ "$nu" -gt 0 ] && echo some || echo none) $nbad"
done

# refused, with the reason
dtrace -q -n 'gp$target:::many { ustack(); }' -c '/kt/gprog 1' \
	>/tmp/rf.txt 2>/tmp/rf.err
expect_eq "ustack() refused on aarch64" \
	"1 dtrace: ustack(), jstack(), ucaller, ustackdepth and uregs[] are not available on aarch64: dtrace takes x86-64's user registers and stacks only so far" \
	"$? $(cat /tmp/rf.err)"
dtrace -q -n 'proc:::exec-success { @ = count(); }' -c '/kt/gprog 1' \
	>/tmp/rf.txt 2>/tmp/rf.err
expect_eq "the proc provider refused on aarch64" \
	"1 dtrace: cannot enable proc:vmlinux::exec-success: the proc provider is x86-64's only so far; on aarch64 USDT probes, the syscall and profile providers, BEGIN, END, ERROR and tick-N trace" \
	"$? $(cat /tmp/rf.err)"
