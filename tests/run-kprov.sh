#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kprov.sh: the kernel providers (dtrace-G/consumer/kprov*.c) against
# real processes, exact output:
#  - syscall: a program that makes N read(2) calls on a pipe counts N
#    (in the kernel, and the same in user space with DTRACE_KAGG=0; on
#    the call's own tracepoint and on the raw tracepoint); the
#    entry's arguments; the return value and errno of a failing call
#    (read(-1): -9 and 9) and of good ones; a glob (syscall::open*:entry)
#    matches open and openat, and dtrace -l lists the table's calls;
#    more than two calls' directions go on the raw tracepoints by
#    default (-v's program count), with the same counts as on their
#    own; entries on their own tracepoints and returns on the raw one,
#    self-> between them, the same counts as either alone;
#    dtrace's own calls are not traced while another's are; exit() in a
#    syscall clause runs no later hit; drops are exact (count() plus the
#    drops reported is the calls made, with a 4k buffer); the kernel's
#    recursion_misses of the programs are read at the end (5.12 on);
#  - profile-N: samples of a busy target carry its pid and execname, a
#    user PC inside its text (non-PIE, from nm) and a 0 kernel PC;
#  - tick-N: exit() after K ticks prints exactly K lines, on the bpf and
#    the uprobe backend; BEGIN, tick and END in that order; tick fires in
#    dtrace itself;
#  - proc: create, exec-success and exit of a -c command that forks a
#    child that execs a known program and one killed by SIGKILL: every
#    event, in order, with the child pids and the exit reasons, in the
#    generated programs and the generic ones, create on the raw
#    tracepoint and on its perf event; the three probes on raw
#    tracepoints, no perf event among dtrace's descriptors;
#  - errors: a syscall that is none, a bad rate, -Z, a syscall probe on
#    the uprobe backend.
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/raw_syscalls || skip "no tracefs with raw_syscalls events"

# non-PIE: the text's run-time addresses are nm's
kpprog_build
cp kpprog kpchild

# trace WHAT CMD DTRACE-ARGS...: dtrace -q on ./kpprog CMD, output in
# out.txt (compared with expected.txt), status 0, nothing on stderr
trace() {
	what=$1 cmd=$2
	shift 2
	rm -f out.txt
	timeout -s KILL 120 "$DTRACE" -q -o out.txt -c "./kpprog $cmd" "$@" \
		>prog.txt 2>err.txt
	expect_eq "$what: status" 0 "$?"
	[ -f out.txt ] || : >out.txt
	expect_file_eq "$what" expected.txt out.txt
	expect_eq "$what: stderr" "" "$(grep -v -e 'aggregated in the kernel$' \
		-e "without the plan's instruction loop$" \
		-e '^dtrace: BPF: [0-9]* generated programs*, ' \
		-e 'traced threads* exited' err.txt)"
}

# ---------------------------------------------------------------------
# syscall

printf 'reads 37\n\n' >expected.txt
for k in 1 0; do
	DTRACE_KAGG=$k trace "read count (DTRACE_KAGG=$k)" "reads 37" -v \
		-n 'syscall::read:entry /pid == $target/ { @ = count(); }' \
		-n 'END { printa("reads %@d\n", @); }'
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* aggregated in the kernel$/\1/p' err.txt)
	expect_eq "read count (DTRACE_KAGG=$k): clauses in the kernel" \
		"$k" "${n:-0}"
done

# the kernel's misses (bpf_prog_info.recursion_misses, Linux 5.12 on:
# bpf.c's misses_read()) read at the end from the run's programs; none
# happen here (no program nests under preempt=none), so DTRACE_MISSED_SAY
# has dtrace say it read them and found none
set -- $(uname -r | tr '.-' '  ')
if [ "$1" -gt 5 ] || { [ "$1" -eq 5 ] && [ "$2" -ge 12 ]; }; then
	DTRACE_MISSED_SAY=1 timeout -s KILL 120 "$DTRACE" -q -o out.txt \
		-c "./kpprog reads 37" \
		-n 'syscall::read:entry /pid == $target/ { @ = count(); }' \
		>prog.txt 2>err.txt
	expect_eq "recursion_misses read: status" 0 "$?"
	expect_grep "recursion_misses read" \
		'^dtrace: BPF: no probe firing missed by the kernel (recursion_misses of [1-9][0-9]* programs* read)$' \
		err.txt
fi

# every call: the raw tracepoints (a few calls: their own tracepoints)
printf 'reads 37\n\n' >expected.txt
trace "read count, syscall:::entry" "reads 37" \
	-n 'syscall:::entry /pid == $target && probefunc == "read"/ { @ = count(); }' \
	-n 'END { printa("reads %@d\n", @); }'
printf 'read -9 -9 errno 9\n\n' >expected.txt
trace "read return, EBADF, syscall:::return" "badread" \
	-n 'syscall:::return /pid == $target && probefunc == "read"/ {
	printf("%s %d %d errno %d\n", probefunc, (int)arg0, (int)arg1, errno); }'

printf 'read fd>2 1 buf 1 len 1\nread fd>2 1 buf 1 len 1\n\n' >expected.txt
trace "read entry arguments" "reads 2" -n 'syscall::read:entry /pid == $target/ {
	printf("%s fd>2 %d buf %d len %d\n", probefunc, arg0 > 2, arg1 != 0, arg2); }'

printf 'read 1 1 errno 0\nread 1 1 errno 0\n\n' >expected.txt
trace "read return" "reads 2" -n 'syscall::read:return /pid == $target/ {
	printf("%s %d %d errno %d\n", probefunc, (int)arg0, (int)arg1, errno); }'
printf 'read -9 -9 errno 9\n\n' >expected.txt
trace "read return, EBADF" "badread" -n 'syscall::read:return /pid == $target/ {
	printf("%s %d %d errno %d\n", probefunc, (int)arg0, (int)arg1, errno); }'

printf 'open 3\nopenat 3\n\n' >expected.txt
trace "glob syscall::open*:entry" "opens 3" \
	-n 'syscall::open*:entry /pid == $target/ { @[probefunc] = count(); }' \
	-n 'END { printa("%s %@d\n", @); }'
# more than two calls' directions: the raw tracepoints by default,
# whose links' release waits for nothing (kprov_syscall.c's "Exit":
# each per-call tracepoint's waits two grace periods at the end); a
# program per direction and the two dispatchers, against a program per
# probe on the calls' own (DTRACE_SYSCALL_RAW=0); the same counts
printf 'open entry 3\nopen return 3\nopenat entry 3\nopenat return 3\nclose entry 6\nclose return 6\n\n' >expected.txt
for r in "" 0; do
	DTRACE_SYSCALL_RAW=$r trace "3 calls' entry and return (DTRACE_SYSCALL_RAW=$r)" \
		"opens 3" -v \
		-n 'syscall::open:entry,syscall::open:return,syscall::openat:entry,
		syscall::openat:return,syscall::close:entry,syscall::close:return
		/pid == $target/ { @[probefunc, probename] = count(); }' \
		-n 'END { printa("%s %s %@d\n", @); }'
	n=$(sed -n 's/^dtrace: BPF: \([0-9]*\) generated programs*, .*/\1/p' err.txt)
	expect_eq "3 calls' entry and return (DTRACE_SYSCALL_RAW=$r): programs" \
		"$([ -z "$r" ] && echo 4 || echo 6)" "$n"
done
# two calls' entry and return: the entries on their own tracepoints,
# the returns on the raw one (the direction with fewer where both do
# not fit, entry where as many); self-> from one to the other, the same
# counts as all on their own (0) or all raw (1)
printf 'open 3\nopenat 3\n\n' >expected.txt
for r in "" 0 1; do
	DTRACE_SYSCALL_RAW=$r trace "self-> from entry to return (DTRACE_SYSCALL_RAW=$r)" \
		"opens 3" \
		-n 'syscall::open:entry,syscall::openat:entry /pid == $target/ {
		self->in = arg0 != 0; }' \
		-n 'syscall::open:return,syscall::openat:return /self->in/ {
		@[probefunc] = count(); self->in = 0; }' \
		-n 'END { printa("%s %@d\n", @); }'
done
printf 'openat /dev/null\nopenat /dev/null\n\n' >expected.txt
trace "copyinstr of an entry argument" "opens 2" \
	-n 'syscall::openat:entry /pid == $target/ { printf("%s %s\n", probefunc, copyinstr(arg1)); }'

# dtrace reads /proc and its timers all the while: none of it is traced
printf 'target 4\n\n' >expected.txt
trace "dtrace's own system calls are not traced" "reads 4" \
	-n 'syscall::read:entry,syscall::openat:entry /pid == $pid/ { @self = count(); }' \
	-n 'syscall::read:entry /pid == $target/ { @target = count(); }' \
	-n 'END { printa("target %@d\n", @target); printa("self %@d\n", @self); }'

printf 'first 1\n\n' >expected.txt
trace "exit() in a syscall clause" "reads 50" \
	-n 'syscall::read:entry /pid == $target/ { printf("first %d\n", arg2); exit(0); }'

# the table: every __NR_ of the headers dtrace was built with
echo '#include <asm/unistd_64.h>' | $CC -E -dM - |
	awk '$1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ { print substr($2, 6) }' |
	sort >nr.txt
"$DTRACE" -l -P syscall >l.txt 2>l.err
expect_eq "dtrace -l -P syscall: status" 0 "$?"
expect_eq "dtrace -l -P syscall: one entry per system call" \
	"$(wc -l <nr.txt)" "$(grep -c ' entry$' l.txt)"
expect_eq "dtrace -l -P syscall: one return per system call" \
	"$(wc -l <nr.txt)" "$(grep -c ' return$' l.txt)"
awk 'NR > 1 && $5 == "entry" { print $4 }' l.txt | sort >lnames.txt
expect_file_eq "dtrace -l -P syscall: the names" nr.txt lnames.txt
expect_eq "dtrace -l -P syscall: module vmlinux" "vmlinux" \
	"$(awk 'NR > 1 { print $3 }' l.txt | sort -u)"
grep '^open' nr.txt | sed 's/$/ entry/' >expected.txt
"$DTRACE" -l -n 'syscall::open*:entry' | awk 'NR > 1 { print $4, $5 }' |
	sort >out.txt
expect_file_eq "dtrace -l -n syscall::open*:entry" expected.txt out.txt

# Drops: a 4k buffer per CPU and N calls in a burst; every call is
# counted or reported dropped.  getcpu(2) is what nothing else here
# calls (libc answers it from the vDSO).
N=20000
rm -f out.txt
DTRACE_KAGG=0 timeout -s KILL 120 "$DTRACE" -q -o out.txt -x bufsize=4k \
	-n 'syscall::getcpu:entry /pid == $target/ { @n = count(); }' \
	-n 'END { printa("%@d\n", @n); }' -c "./kpprog getcpu $N" 2>err.txt
counted=$(awk 'NF { n = $1 } END { print n + 0 }' out.txt)
dropped=$(awk '/^dtrace: [0-9]* drops on CPU/ { n += $2 } END { print n + 0 }' err.txt)
expect_eq "count() + drops = the calls made" "$N" "$((counted + dropped))"
echo "# $counted counted, $dropped dropped" >&2

# ---------------------------------------------------------------------
# profile-N

# the executable segment of kpprog (non-PIE: its addresses are the
# link-time ones): vaddr and memsz
set -- $(readelf -lW kpprog | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
if [ "$#" -eq 2 ]; then
	lo=$(printf '%d' "$1")
	hi=$(($(printf '%d' "$1") + $(printf '%d' "$2")))
	cat >prof.d <<'EOF'
profile-997 /pid == $target/ { n++; @names[execname] = count(); }
profile-997 /pid == $target && arg1 >= $1 && arg1 < $2 && tid == pid/ { intext++; }
profile-997 /pid == $target && arg1 != 0 && arg0 != 0/ { bad++; }
END {
	printf("sampled %d in-text %d kernel-pc-with-user-pc %d\n", n > 0,
	    intext > 0, bad);
	printa("%s\n", @names);
}
EOF
	printf 'sampled 1 in-text 1 kernel-pc-with-user-pc 0\nkpprog\n\n' >expected.txt
	trace "profile-997 of a busy target" "spin 300000000" -s prof.d \
		"$lo" "$hi"
else
	fail "readelf: no executable LOAD segment in kpprog"
fi

# ---------------------------------------------------------------------
# tick-N

for be in bpf uprobe; do
	printf 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n\n' >expected.txt
	rm -f out.txt
	DTRACE_BACKEND=$be timeout -s KILL 60 "$DTRACE" -q -o out.txt \
		-n 'tick-100hz { n++; printf("tick %d\n", n); } tick-100hz /n == 5/ { exit(0); }' \
		2>err.txt
	expect_eq "tick-100hz, exit() after 5 ($be): status" 0 "$?"
	expect_file_eq "tick-100hz, exit() after 5 ($be)" expected.txt out.txt
	expect_eq "tick-100hz ($be): stderr" "" "$(cat err.txt)"
done
printf 'begin\ntick 3 in dtrace 1\nend\n\n' >expected.txt
rm -f out.txt
timeout -s KILL 60 "$DTRACE" -q -o out.txt -n 'BEGIN { printf("begin\n"); }' \
	-n 'tick-10ms /++t == 3/ { printf("tick %d in dtrace %d\n", t, pid == $pid); exit(0); }' \
	-n 'END { printf("end\n"); }' 2>err.txt
expect_eq "BEGIN, tick-10ms, END: status" 0 "$?"
expect_file_eq "BEGIN, tick-10ms, END" expected.txt out.txt

# ---------------------------------------------------------------------
# proc

cat >proc.d <<'EOF'
proc:::create /progenyof($target)/
{
	printf("create %s -> %d\n", pid == $target ? "target" : "other", arg0);
}
proc:::exec-success /progenyof($target)/
{
	printf("exec %d %s parent %s\n", pid, execname,
	    ppid == $target ? "target" : "other");
}
proc:::exit /progenyof($target)/
{
	printf("exit %d %s %d\n", pid == $target ? 0 : pid, execname, arg0);
}
EOF
# generated programs, and the generic ones (DTRACE_CGEN=0); create on
# its tracepoint's perf event, as where the BTF lacks task_struct's pid
# (DTRACE_PROC_RAW=0)
for cg in 1 0 "1 DTRACE_PROC_RAW=0" "0 DTRACE_PROC_RAW=0"; do
	rm -f out.txt
	env DTRACE_CGEN=$cg timeout -s KILL 120 "$DTRACE" -q -o out.txt \
		-c "./kpprog forkexec ./kpchild" -s proc.d >prog.txt 2>err.txt
	expect_eq "proc (cgen $cg): status" 0 "$?"
	expect_eq "proc (cgen $cg): stderr" "" "$(cat err.txt)"
	set -- $(grep -v hello prog.txt)
	a=${1:-?} b=${2:-?}
	expect_eq "proc (cgen $cg): the child ran" hello "$(grep hello prog.txt)"
	cat >expected.txt <<EOF
create target -> $a
exec $a kpchild parent target
exit $a kpchild 1
create target -> $b
exit $b kpprog 2
exit 0 kpprog 1

EOF
	expect_file_eq "proc (cgen $cg): create, exec-success, exit" \
		expected.txt out.txt
done
# on raw tracepoints (kprov_proc.c), not on the tracepoints' perf
# events, whose release costs dtrace's exit ~45 ms each: dtrace holds
# none while its -c command, a child, lists dtrace's descriptors
for cg in 1 0; do
	DTRACE_CGEN=$cg timeout -s KILL 60 "$DTRACE" -q -o out.txt \
		-n 'proc:::create,proc:::exec-success,proc:::exit { @ = count(); }' \
		-c 'sh -c "ls -l /proc/\$PPID/fd"' >prog.txt 2>err.txt
	expect_eq "proc on raw tracepoints (cgen $cg): status" 0 "$?"
	expect_eq "proc on raw tracepoints (cgen $cg): dtrace listed" 1 \
		"$(grep -c 'anon_inode:bpf-map' prog.txt | sed 's/^[1-9][0-9]*$/1/')"
	expect_eq "proc on raw tracepoints (cgen $cg): perf events" 0 \
		"$(grep -c 'anon_inode:\[perf_event\]' prog.txt)"
done

# ---------------------------------------------------------------------
# errors

"$DTRACE" -n 'syscall::nosuch:entry' >out.txt 2>err.txt
expect_eq "a system call that is none: status" 1 "$?"
expect_eq "a system call that is none: message" \
	"dtrace: invalid probe specifier syscall::nosuch:entry: probe description syscall::nosuch:entry does not match any probes" \
	"$(cat err.txt)"
"$DTRACE" -q -Z -n 'syscall::nosuch:entry' -n 'BEGIN { exit(0); }' >out.txt 2>err.txt
expect_eq "-Z: status" 0 "$?"
for r in 'profile-10us:the interval is shorter than 200us (more than 5000hz)' \
	'tick-0:a rate of 0' \
	'profile-1fortnight:not a rate: N followed by ns, us, ms, s, m, h, d or hz (none: hz)'; do
	n=${r%%:*}
	"$DTRACE" -n "$n" >out.txt 2>err.txt
	expect_eq "$n: status" 1 "$?"
	expect_eq "$n: message" \
		"dtrace: invalid probe specifier $n: profile:::$n: ${r#*:}" \
		"$(cat err.txt)"
done
DTRACE_BACKEND=uprobe "$DTRACE" -n 'syscall::read:entry' -c ./kpprog >out.txt 2>err.txt
expect_eq "syscall on the uprobe backend: status" 1 "$?"
expect_eq "syscall on the uprobe backend: message" \
	"dtrace: cannot enable syscall:vmlinux:read:entry: the syscall provider needs the BPF backend, and the run uses another backend (DTRACE_BACKEND)" \
	"$(cat err.txt)"

finish
