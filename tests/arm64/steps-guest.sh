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
#  - the proc provider: gprog proc forks a child that execs busybox
#    (exit 7) and one that SIGKILLs itself; every create (in gprog,
#    arg0 the child's pid), exec-success (the child's pid, ppid and new
#    execname) and exit (arg0 CLD_EXITED 1 or CLD_KILLED 2, the pid and
#    ppid) exactly, the pids as gprog's fork() and waitpid() gave them,
#    and gprog's own exit last; with generated programs and with
#    DTRACE_CGEN=0;
#  - ustack(), ucaller, ustackdepth and uregs[] at gprog stack's
#    gp:::deep, fired in stk_b() called by stk_a() called by main(), on
#    each backend: uregs[R_X0]-[R_X2] the site's arguments, R_FP and
#    R_X30 (lr) what stk_b() says of its frame pointer and return
#    address, R_SP 16-aligned below R_FP; ustack()'s frames stk_b at
#    R_PC, stk_a and main at the return addresses gprog took, then
#    libc's, then _start's; ucaller the first of those, ustackdepth the
#    frames ustack() printed;
#  - a kernel probe's user stack: gprog spin's two getppid calls (its
#    own svc in spin()) on the call's tracepoint (the registers the
#    kernel saved, bpf_task_pt_regs()) and the raw one (the call's
#    pt_regs): uregs[R_PC] in spin(), ucaller spin()'s return address
#    as spin() read it, the frames spin at R_PC, main, libc's, _start's,
#    ustackdepth the frames printed; profile-997's ticks while spin()
#    loops: each one's uregs[R_PC] in spin() and ucaller its return
#    address, some user ticks;
#  - (the pid provider: steps-pid-guest.sh; the helper:
#    steps-helperd-guest.sh; the helper module: steps-kmod-guest.sh.)

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
	read -r lo hi _ </tmp/spin-range.txt
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

# the proc provider: gprog proc's two children (tests/arm64/gprog.c), the
# tracepoints' records and the task_struct's exit code on arm64
proc_d='proc:::create /pid == $target/ {
	printf("create %d %d %s\n", pid, arg0, execname);
}
proc:::exec-success /ppid == $target/ {
	printf("exec %d %d %s\n", pid, ppid, execname);
}
proc:::exit /pid == $target || ppid == $target/ {
	printf("exit %d %d %d %s\n", pid, ppid, arg0, execname);
}'
for cg in 1 0; do
	rm -f /tmp/proc-kids.txt
	DTRACE_CGEN=$cg DTRACE_BACKEND=bpf dtrace -q -n "$proc_d" \
		-c '/kt/gprog proc /tmp/proc-kids.txt' \
		>/tmp/proc-$cg.txt 2>/tmp/proc-$cg.err
	expect_eq "proc provider (cgen $cg): dtrace -n -c exits 0" 0 "$?" ||
		diag "$(cat /tmp/proc-$cg.err)"
	read -r t tp k1 st1 k2 sig2 </tmp/proc-kids.txt
	expect_eq "proc provider (cgen $cg): busybox exited 7, the other by SIGKILL" \
		"7 9" "$st1 $sig2"
	grep -v '^$' /tmp/proc-$cg.txt >/tmp/proc-$cg.out
	cat >/tmp/proc-expect.txt <<EOF
create $t $k1 gprog
exec $k1 $t busybox
exit $k1 $t 1 busybox
create $t $k2 gprog
exit $k2 $t 2 gprog
exit $t $tp 1 gprog
EOF
	expect_file "proc provider (cgen $cg): create, exec-success, exit of each child and gprog's exit, exactly" \
		/tmp/proc-expect.txt /tmp/proc-$cg.out
done

# ustack(), ucaller, ustackdepth and uregs[]: gprog stack's main ->
# stk_a -> stk_b -> gp:::deep (tests/arm64/gprog.c), against what gprog
# itself wrote of its return addresses, frame pointer and functions
stk_d='gp$target:::deep {
	printf("regs %d %d %d %d %d %d %d\n", uregs[R_X0], uregs[R_X1],
	    uregs[R_X2], uregs[R_FP], uregs[R_X30], uregs[R_SP], uregs[R_PC]);
	printf("ucaller %d %d\n", ucaller, ustackdepth);
	ustack();
}'
for be in bpf bpf-nocgen uprobe; do
	cg=1
	[ "$be" = bpf-nocgen ] && cg=0
	rm -f /tmp/stk-gprog.txt
	DTRACE_CGEN=$cg DTRACE_BACKEND=${be%-nocgen} dtrace -q -n "$stk_d" \
		-c '/kt/gprog stack /tmp/stk-gprog.txt' \
		>/tmp/stk-$be.txt 2>/tmp/stk-$be.err
	expect_eq "ustack ($be): dtrace -n -c exits 0, nothing on stderr" \
		"0 " "$? $(cat /tmp/stk-$be.err)"
	read -r ra_b fp_b ra_a f_a f_b f_main </tmp/stk-gprog.txt
	# shellcheck disable=SC2046
	set -- $(grep '^regs ' /tmp/stk-$be.txt) 0 0 0 0 0 0 0 0
	w=$1 x0=$2 x1=$3 x2=$4 fp=$5 lr=$6 sp=$7 pc=$8
	expect_eq "ustack ($be): uregs[] x0-x2 (the site's arguments), R_FP, R_X30 (lr: stk_b's return address), R_SP 16-aligned, at most R_FP" \
		"regs 41 42 43 $fp_b $ra_b 0 1" \
		"$w $x0 $x1 $x2 $fp $lr $((sp % 16)) $((sp <= fp))"
	# the stack as ustack() prints it: the site in stk_b (R_PC), the
	# return addresses gprog took, libc's frames, _start's
	grep '^  *[^ ]' /tmp/stk-$be.txt | sed 's/^ *//' >/tmp/stk-$be.frames
	n=$(grep -c . /tmp/stk-$be.frames)
	printf 'gprog`stk_b+0x%x\ngprog`stk_a+0x%x\ngprog`main+0x%x\n' \
		$((pc - f_b)) $((ra_b - f_a)) $((ra_a - f_main)) >/tmp/stk-expect.txt
	head -n 3 /tmp/stk-$be.frames >/tmp/stk-$be.top
	expect_file "ustack ($be): stk_b at R_PC, stk_a and main at gprog's return addresses" \
		/tmp/stk-expect.txt /tmp/stk-$be.top
	# libc's frames (as many as its build has), then _start's, last
	expect_eq "ustack ($be): libc's frames, then _start's, last" \
		"libc gprog\`_start " \
		"$(sed -n '4,$p' /tmp/stk-$be.frames |
			sed 's/^libc\.so\.6`.*/libc/; s/^\(gprog`_start\)+0x[0-9a-f]*$/\1/' |
			uniq | tr '\n' ' ')"
	expect_eq "ustack ($be): ucaller stk_b's return address, ustackdepth the frames printed" \
		"ucaller $ra_b $n" "$(grep '^ucaller ' /tmp/stk-$be.txt)"
	diag "ustack ($be): $(tr '\n' ' ' </tmp/stk-$be.frames)"
done

# a kernel probe's user stack: gprog spin's two getppid calls (spin()'s
# own svc) on the call's tracepoint (the registers saved at the kernel's
# entry, bpf_task_pt_regs()) and on the raw one (the call's pt_regs),
# then profile-997's ticks in spin() (the tick's registers in user mode,
# the saved ones in the kernel); spin() says where it is and its return
# address (tests/arm64/gprog.c)
for raw in 0 1; do
	DTRACE_SYSCALL_RAW=$raw DTRACE_BACKEND=bpf dtrace -q -n '
	syscall::getppid:entry /pid == $target/ {
		printf("at %d %d %d\n", uregs[R_PC], ucaller, ustackdepth);
		ustack();
	}' -c '/kt/gprog spin 1000 /tmp/kst-range.txt' \
		>/tmp/kst-$raw.txt 2>/tmp/kst-$raw.err
	expect_eq "kernel probe's ustack (raw $raw): dtrace -n -c exits 0, nothing on stderr" \
		"0 " "$? $(cat /tmp/kst-$raw.err)"
	read -r lo hi ra </tmp/kst-range.txt
	: >/tmp/kst-expect.txt
	ok_at=0
	while read -r w pc uc d; do
		[ "$pc" -ge "$lo" ] && [ "$pc" -lt "$hi" ] && [ "$uc" = "$ra" ] &&
			ok_at=$((ok_at + 1))
		printf 'gprog`spin+0x%x\ngprog`main\nlibc\ngprog`_start\n' \
			$((pc - lo)) >>/tmp/kst-expect.txt
	done <<EOF
$(grep '^at ' /tmp/kst-$raw.txt)
EOF
	expect_eq "kernel probe's ustack (raw $raw): two hits, uregs[R_PC] in spin(), ucaller its return address" \
		"2 2" "$(grep -c '^at ' /tmp/kst-$raw.txt) $ok_at"
	# each hit's frames: spin at R_PC, main, libc's, _start's
	grep '^  *[^ ]' /tmp/kst-$raw.txt | sed 's/^ *//' |
		sed 's/^\(gprog`main\)+0x[0-9a-f]*$/\1/
			s/^\(gprog`_start\)+0x[0-9a-f]*$/\1/
			s/^libc\.so\.6`.*/libc/' | uniq >/tmp/kst-$raw.out
	expect_file "kernel probe's ustack (raw $raw): spin at R_PC, main, libc, _start" \
		/tmp/kst-expect.txt /tmp/kst-$raw.out
	expect_eq "kernel probe's ustack (raw $raw): ustackdepth the frames printed" \
		"$(grep -c '^  *[^ ]' /tmp/kst-$raw.txt)" \
		"$(grep '^at ' /tmp/kst-$raw.txt | awk '{ n += $4 } END { print n }')"
done
DTRACE_BACKEND=bpf dtrace -q -n 'int spinning;
syscall::getppid:entry /pid == $target/ { spinning = !spinning; }
profile-997 /spinning && pid == $target/ {
	printf("%d %d %d\n", arg1 != 0, uregs[R_PC], ucaller);
}' -c '/kt/gprog spin 10000000 /tmp/kst-spin.txt' \
	>/tmp/kst-prof.txt 2>/tmp/kst-prof.err
expect_eq "profile-997 with the stack: dtrace -n -c exits 0, nothing on stderr" \
	"0 " "$? $(cat /tmp/kst-prof.err)"
read -r lo hi ra </tmp/kst-spin.txt
nu=0 nk=0 nbad=0
while read -r u pc uc; do
	if [ "$pc" -ge "$lo" ] && [ "$pc" -lt "$hi" ] && [ "$uc" = "$ra" ]; then
		if [ "$u" = 1 ]; then nu=$((nu + 1)); else nk=$((nk + 1)); fi
	else
		nbad=$((nbad + 1))
		diag "a tick whose user registers are not spin()'s: $u $pc $uc"
	fi
done <<EOF
$(grep -v '^$' /tmp/kst-prof.txt)
EOF
diag "profile-997 with the stack: $nu user ticks, $nk kernel ones"
expect_eq "profile-997 with the stack: every tick's uregs[R_PC] in spin(), ucaller its return address" \
	"some 0" "$([ "$nu" -gt 0 ] && echo some || echo none) $nbad"
