#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-kprov.sh: the kernel providers' programs generated from the
# clauses (dtrace-G/consumer/cgen_kprov.c, each provider's prologue in
# its file) are the ones a run takes where they fit, and they print byte
# for byte what the generic programs (bpf/kprov.bpf.h) print
# (DTRACE_CGEN=0), on real processes:
#  - syscall entry on the call's own tracepoint: a count in the kernel
#    (no record), arguments and copyinstr() strings in records, a string
#    predicate and a string key in the kernel, the calls of dtrace
#    itself left out;
#  - syscall return: arg0, arg1 and errno of a failing call, in records
#    and as aggregation keys in the kernel;
#  - record gates: a clause that prints written to the record only for
#    the hits where its integer predicate held, tested in the program;
#  - self-> variables kept in the kernel across entry and return, and
#    between a pid probe's program and a system call's in one run; a
#    string compared beside them faulting at the hit, reported, ERROR
#    fired;
#  - the firing's context in the record: uid, gid, ppid, execname,
#    curpsinfo->pr_psargs;
#  - profile-N: the first sample in the text of a busy target (user PC,
#    kernel PC 0), and max(arg0) of its user-mode samples in the kernel;
#  - proc: create, exec-success and exit of a -c command's children,
#    with the exit reasons (CLD_EXITED, CLD_KILLED);
#  - syscall on the raw tracepoints (every call of a glob such as
#    syscall:::entry, or DTRACE_SYSCALL_RAW=1): the dispatchers' tail
#    calls, the same output as on the calls' own tracepoints and as the
#    generic programs, arguments, strings, errno, self-> in the kernel,
#    a 32-bit process's calls not traced; the calls' programs shared
#    where their code is the same (-v's count: one per direction for
#    a glob, a call with a clause of its own apart), the probe read at
#    the hit (probefunc, probename, id keys in both directions);
#  - ustack() and ustack(n), as keys and traced: the user registers
#    and stack in the record as the generic programs copy them
#    (cgen_ustk.c's kp_uregs()), so the same frames: at a call's own
#    tracepoint and on the raw ones (the registers saved on entry, the
#    call's pt_regs), at profile-997 in user mode (the sample's own)
#    and in the kernel (those saved on entry), at proc's create,
#    exec-success and exit (with the address space not randomised,
#    their unnamed frames the same too), and at an exit alone, named
#    from the maps its mapping records had read while it lived;
#  - where no prologue fits, the generic programs, still the same:
#    curpsinfo's effective ids and session; and
#    where a kernel probe's program is refused (DTRACE_CGEN_REFUSE);
#  - an argument a probe has not (getcpu's arg7), 0 in the kernel.
# -v names the generated programs (the generic ones go unmentioned).
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup kernel
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

# non-PIE: the text's run-time addresses are nm's
kpprog_build

# same WHAT PATH CMD DTRACE-ARGS...: dtrace -v -q on ./kpprog CMD with
# DTRACE_CGEN=1 and 0 (lib.sh's run_mode modes g and 0): the same
# output, not empty; -v says the first took PATH (generated or
# generic), the second the generic programs.  With NORM set, a sed
# script, both outputs pass through it first; with PRE set, CMD is run
# under it.  The two runs start together (run_mode_start), each on its
# own process and files, and are checked once both have ended
# (run_mode_end; doc/DESIGN.md §11, "The suite's wall time"); with
# ALONE set, one after the other: a case whose generic run records
# every process's calls, where the other run beside it adds its own
# calls to that flood.
same() {
	what=$1 path=$2 cmd=$3
	shift 3
	for g in 1 0; do
		m=g
		[ $g = 1 ] || m=0
		run_err=err$g.txt run_what="$what (DTRACE_CGEN=$g)"
		run_mode_start $m out$g.txt "${PRE:+$PRE }./kpprog $cmd" "$@"
		[ -z "${ALONE:-}" ] || run_mode_end out$g.txt
	done
	for g in 1 0 again; do
		if [ "$g" = again ]; then
			# the generic programs (DTRACE_CGEN=0) send user space
			# every process's calls that the kernel does not filter:
			# on a busy machine (CI's -j2 beside run-kagg-kexit.sh)
			# the ring can overflow with others' records, so a run
			# of them that said drops is run once more, alone; one
			# that did not is not run again
			grep -qi drop err0.txt || continue
			echo "# $what: $(grep -i drop err0.txt | head -1);" \
				"once more" >&2
			g=0
			run_err=err0.txt run_what="$what (DTRACE_CGEN=0)"
			run_mode 0 out0.txt "${PRE:+$PRE }./kpprog $cmd" "$@"
		elif [ -z "${ALONE:-}" ]; then
			run_mode_end out$g.txt
		fi
		if [ -n "${NORM:-}" ]; then
			sed -e "$NORM" out$g.txt >norm.txt && mv norm.txt out$g.txt
		fi
	done
	expect_file_eq "$what: the same output" out0.txt out1.txt
	expect_eq "$what: some output" 1 "$([ -s out1.txt ] && echo 1)"
	n=$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' err1.txt)
	case $path in
	generated) expect_eq "$what: generated" 1 "$n" ;;
	*) expect_eq "$what: the generic programs" 0 "$n" ;;
	esac
	expect_eq "$what: generic with DTRACE_CGEN=0 (-v says nothing)" 0 \
		"$(grep -c '^dtrace: BPF: ' err0.txt)"
	expect_eq "$what: no drops, no error" "" \
		"$(grep -i -e drop -e error -e cannot err1.txt err0.txt)"
}

# ---------------------------------------------------------------------
# syscall

same "read count in the kernel" generated "reads 37" \
	-n 'syscall::read:entry /pid == $target/ { @ = count(); }' \
	-n 'END { printa("reads %@d\n", @); }'
grep -q '^dtrace: 1 clause aggregated in the kernel$' err1.txt
expect_eq "read count: in the kernel" 0 "$?"

# record gates: a clause that prints, its predicate tested in the
# program, the record written only for the target's 37 one-byte reads
# (not for every process's reads, nor the target's others), beside a
# count in the kernel; and a gate alone, at a return (errno from the
# record)
same "a gated printf beside a count" generated "reads 37" \
	-n 'syscall::read:entry /arg2 == 1 && pid == $target/ { printf("read %d %d\n", arg0 > 2, arg2); }' \
	-n 'syscall::read:entry /pid == $target/ { @ = count(); }' \
	-n 'END { printa("reads %@d\n", @); }'
expect_eq "a gated printf: records only for its hits" 1 \
	"$(grep -c '^dtrace: BPF: .*, 37 records read$' err1.txt)"
same "a gate alone, at a return" generated "badread" \
	-n 'syscall::read:return /pid == $target && (int)arg0 < 0/ { printf("ret %d errno %d\n", (int)arg0, errno); }'
expect_eq "a gate alone: one record" 1 \
	"$(grep -c '^dtrace: BPF: .*, 1 record read$' err1.txt)"

same "entry arguments and strings" generated "opens 3" \
	-n 'syscall::open:entry /pid == $target/ {
		printf("%s %s %x %d\n", probefunc, copyinstr(arg0), arg1, arg5); }' \
	-n 'syscall::openat:entry /pid == $target/ {
		printf("%s %d %s\n", probefunc, (int)arg0, copyinstr(arg1)); }'

# (pid first: another process's string, not yet paged in at its
# openat, would be a fault, and an error, as in DTrace)
same "string predicate and key in the kernel" generated "opens 4" \
	-n 'syscall::openat:entry /pid == $target && copyinstr(arg1) == "/dev/null"/ {
		@n = count(); }' \
	-n 'syscall::openat:entry /pid == $target/ { @k[copyinstr(arg1), arg2] = count(); }' \
	-n 'END { printa("%@d\n", @n); printa("%s %d %@d\n", @k); }'

same "return values and errno" generated "badread" \
	-n 'syscall::read:return /pid == $target/ {
		printf("%d %d errno %d\n", (int)arg0, (int)arg1, errno); }' \
	-n 'syscall::read:return /pid == $target/ { @[arg0, arg1] = count(); }'

# self-> variables on open(2), which only the target makes here (libc
# opens with openat(2)): the generic programs (DTRACE_CGEN=0) keep
# self-> in user space, so the return's program sends every process's
# calls there, and read(2) on a busy machine dropped thousands
same "self-> across entry and return, in the kernel" generated "opens 20" \
	-n 'syscall::open:entry /pid == $target/ { self->in = arg0 != 0; self->n++; }' \
	-n 'syscall::open:return /self->in/ {
		@[self->n, arg0] = sum(self->n); self->in = 0; }'

# a string compared in the kernel beside self-> there faults at the
# hit (read's arg0 is a descriptor, no address): the clause ends, what
# it did before kept, and dtrace reports the fault and fires ERROR as
# the interpreter does
for g in 1 0; do
	m=g
	[ $g = 1 ] || m=0
	run_err=err$g.txt run_what="a fault at the hit (DTRACE_CGEN=$g)"
	run_mode $m out$g.txt "./kpprog reads 5" \
		-n 'syscall::read:entry /pid == $target/ { self->n++; }' \
		-n 'syscall::read:entry /pid == $target/ {
			@k[self->n, copyinstr(arg0) == "x"] = count(); @after = count(); }' \
		-n 'syscall::read:return /self->n/ { @r[self->n] = count(); }' \
		-n 'dtrace:::ERROR { @e[arg2, arg4, arg5] = count(); }'
	grep 'invalid address' err$g.txt >flt$g.txt
done
expect_file_eq "a fault at the hit: the same output" out0.txt out1.txt
expect_file_eq "a fault at the hit: the same errors" flt0.txt flt1.txt
expect_eq "a fault at the hit: 5 errors in action #2" 5 \
	"$(grep -c ': invalid address (0x[0-9a-f]*) in action #2$' flt1.txt)"
expect_eq "a fault at the hit: in the kernel" \
	"dtrace: 3 clauses aggregated in the kernel" \
	"$(grep 'aggregated in the kernel' err1.txt)"
expect_eq "a fault at the hit: ERROR's arguments" 1 \
	"$(grep -Ec '^ +2 +1 +[0-9]+ +5$' out1.txt)"

same "uid, gid, ppid and execname in the record" generated "getcpu 3" \
	-n 'syscall::getcpu:entry /pid == $target/ {
		printf("%d %d %d %s\n", uid, gid, ppid == $pid, execname); }'

# pr_psargs after the arguments, as kprov.bpf.h puts it (cgen_rec.c;
# vtimestamp, beside it there: run-vtimestamp.sh)
same "pr_psargs in the record" generated "getcpu 3" \
	-n 'syscall::getcpu:entry /pid == $target/ {
		printf("%d [%s]\n", arg0 != 0, curpsinfo->pr_psargs); }'
expect_eq "pr_psargs: the command's" "1 [./kpprog getcpu 3]" \
	"$(sed -n 3p out1.txt)"

# ---------------------------------------------------------------------
# profile-N

# the executable segment of kpprog (non-PIE: its addresses are the
# link-time ones), as run-kprov.sh finds it
set -- $(readelf -lW kpprog | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
[ "$#" -eq 2 ] || fail "readelf: no executable LOAD segment in kpprog"
lo=$(printf '%d' "${1:-0}")
hi=$((lo + $(printf '%d' "${2:-0}")))
same "profile-997: in the kernel" generated "spin 300000000" \
	-n "profile-997 /pid == \$target && arg1 != 0/ {
		@[execname] = max(arg0); @t = max(arg1 >= $lo && arg1 < $hi); }" \
	-n 'END { printa("%s %@d\n", @); printa("%@d\n", @t); }'
# The first sample in the text, not the first in user mode: the target
# runs the dynamic linker and libc's start-up in user mode, outside its
# text, while traced, and a tick lands there now and then (4 first
# samples in 150 runs on a loaded machine: ld.so's _dl_start and
# dl_main, libc's _init_first and check_stdfiles_vtables).  The
# predicate, in the kernel, and the clause both read arg1: their
# agreeing prints 1.
same "profile-997: the first sample's record" generated "spin 300000000" \
	-n "profile-997 /pid == \$target && arg1 >= $lo && arg1 < $hi/ {
		printf(\"%s %d %d\\n\", execname, arg0, arg1 >= $lo && arg1 < $hi);
		exit(0); }"

# ---------------------------------------------------------------------
# proc

cp kpprog kpchild
same "proc: create, exec-success, exit" generated "forkexec ./kpchild" \
	-n 'proc:::create /pid == $target/ { printf("create %d\n", arg0 > 0); }' \
	-n 'proc:::exec-success /ppid == $target/ { printf("exec %s\n", execname); }' \
	-n 'proc:::exit /ppid == $target/ { printf("exit %d\n", arg0); }' \
	-n 'proc:::exit /pid == $target/ { @[arg0] = count(); }'

# ---------------------------------------------------------------------
# site and kernel probes in one run, a self-> variable between them

# (self->in set by a clause of its own: one that also prints runs in
# user space, where the variable then lives, and the return's program,
# whose predicate reads it, sends every process's calls there; open(2)
# as above, for the generic run)
same "pid and syscall probes in one run" generated "opens 7" \
	-n 'pid$target::main:entry { printf("main %d\n", arg0); }' \
	-n 'pid$target::main:entry { self->in = 1; }' \
	-n 'pid$target::main:return { @r = count(); }' \
	-n 'syscall::open:entry /pid == $target/ { @ = count(); }' \
	-n 'syscall::open:return /self->in/ { @n[arg0] = sum(self->in); }'
expect_grep "pid and syscall probes: self->in and the clauses reading it in the kernel" \
	'^dtrace: 4 clauses aggregated in the kernel$' err1.txt

# ---------------------------------------------------------------------
# syscall on the raw tracepoints sys_enter and sys_exit: a dispatcher
# per direction tail-calls the probe's generated program by the call's
# number (kprov_syscall.c)

# raw WHAT CMD DTRACE-ARGS...: dtrace -v -q -c CMD generated on the raw
# tracepoints (DTRACE_SYSCALL_RAW=1), on the calls' own where they fit
# (DTRACE_SYSCALL_RAW=0) and generic on the raw ones (DTRACE_CGEN=0):
# the same output, not empty unless NOOUT is set; -v of the first says
# generated, of the last nothing; errr.txt is the first's stderr.  The
# generic run sends user space every process's calls of the probes'
# numbers (its predicates are tested there): on a busy machine its
# ring can overflow with others' records, said as drops; such a run is
# run once more, and where it says drops again its output is not
# compared (the generated runs' are, and must say no drops)
raw() {
	what=$1 cmd=$2
	shift 2
	rm -f outg.txt
	for m in r:1:1 c:0:1 g:1:0 g:1:0; do
		k=${m%%:*} r=${m#*:} r=${r%:*} g=${m##*:}
		# the generic run once more where it said drops (same()'s
		# reason: others' records filtered in user space)
		if [ $k = g ] && [ -f outg.txt ]; then
			grep -qi drop errg.txt || continue
			echo "# $what: $(grep -i drop errg.txt | head -1);" \
				"once more" >&2
		fi
		rm -f out$k.txt
		DTRACE_SYSCALL_RAW=$r DTRACE_CGEN=$g timeout -s KILL 120 \
			"$DTRACE" -v -q -o out$k.txt -c "$cmd" "$@" \
			>/dev/null 2>err$k.txt
		expect_eq "$what ($m): status" 0 "$?"
		[ -f out$k.txt ] || : >out$k.txt
	done
	# said again: the records lost are the tool's word, which no
	# count or line of the generic run's can be held to (a count one
	# short, a line gone), so that comparison is not made; the
	# generated runs', whose records are the target's alone (the
	# predicates tested in the kernel), still are, and say none
	if grep -qi drop errg.txt; then
		echo "# $what: $(grep -i drop errg.txt | head -1) again;" \
			"raw generic's output not compared" >&2
	else
		expect_file_eq "$what: raw generated, raw generic" \
			outg.txt outr.txt
	fi
	expect_file_eq "$what: raw generated, per call" outc.txt outr.txt
	[ -n "${NOOUT:-}" ] ||
		expect_eq "$what: some output" 1 "$([ -s outr.txt ] && echo 1)"
	expect_eq "$what: generated on the raw tracepoints" 1 \
		"$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' errr.txt)"
	expect_eq "$what: generic with DTRACE_CGEN=0 (-v says nothing)" 0 \
		"$(grep -c '^dtrace: BPF: ' errg.txt)"
	expect_eq "$what: no drops, no error" "" \
		"$(grep -i -e drop -e error -e cannot errr.txt errc.txt)"
	expect_eq "$what: generic, no error" "" \
		"$(grep -i -e error -e cannot errg.txt)"
}

raw "raw: read count in the kernel" "./kpprog reads 37" \
	-n 'syscall::read:entry /pid == $target/ { @ = count(); }' \
	-n 'END { printa("reads %@d\n", @); }'
expect_grep "raw: read count in the kernel: one clause" \
	'^dtrace: 1 clause aggregated in the kernel$' errr.txt

raw "raw: entry arguments and strings" "./kpprog opens 3" \
	-n 'syscall::open:entry /pid == $target/ {
		printf("%s %s %x\n", probefunc, copyinstr(arg0), arg1); }' \
	-n 'syscall::openat:entry /pid == $target/ {
		printf("%s %d %s %x\n", probefunc, (int)arg0, copyinstr(arg1), arg2); }'

raw "raw: return values and errno" "./kpprog badread" \
	-n 'syscall::read:return /pid == $target/ {
		printf("%d %d errno %d\n", (int)arg0, (int)arg1, errno); }' \
	-n 'syscall::read:return /pid == $target/ { @[arg0, errno] = count(); }'

# the one-liner: every call's entry and return (more than
# KP_SYS_PER_CALL_MAX, the raw tracepoints whatever the variable),
# self-> between them and the aggregation in the kernel; the generic
# programs run both clauses in user space
raw "raw: syscall:::entry and return, self-> in the kernel" \
	"./kpprog reads 20" \
	-n 'syscall:::entry /pid == $target/ { self->in = 1; }' \
	-n 'syscall:::return /self->in/ { @[probefunc] = count(); self->in = 0; }'
expect_grep "raw: syscall:::entry and return: both clauses in the kernel" \
	'^dtrace: 2 clauses aggregated in the kernel$' errr.txt
expect_grep "raw: syscall:::entry and return: 20 reads" \
	'^  read  *20$' outr.txt
# ... every call's program the same code but for the probe, which it
# reads at the hit (cgen_kprov.c's kp_ident()): one program per direction,
# and each direction's dispatcher, whatever the count of calls
expect_grep "raw: syscall:::entry and return: one program per direction" \
	'^dtrace: BPF: 4 generated programs, ' errr.txt

# the probe's identity read at the hit by the programs the calls
# share: probefunc, probename and id as keys in the kernel, every call
# of the target's in both directions, as the generic programs count
# them (a probe mistaken for another, or read at the wrong direction's
# index, moves a count to another key)
raw "raw: shared programs, the probe read at the hit" "./kpprog opens 3" \
	-n 'syscall:::entry /pid == $target/ {
		@[probefunc, probename, id] = count(); @a[probefunc] = sum(arg0 < 0); }' \
	-n 'syscall:::return /pid == $target/ {
		@[probefunc, probename, id] = count(); @r[probefunc] = sum(arg0); }'
expect_grep "raw: shared programs: one per direction" \
	'^dtrace: BPF: 4 generated programs, ' errr.txt
expect_eq "raw: shared programs: openat's entry and return, 3 each" \
	"3 3" "$(awk '$1 == "openat" && NF == 4 { printf "%s%s", s, $4; s = " " }' outr.txt)"

# programs grouped by their code: read's entry has a clause the other
# calls' have not, so it keeps a program of its own beside the one the
# others share (and the dispatcher): 3, the output the generic one's
raw "raw: programs grouped by their code" "./kpprog reads 7" \
	-n 'syscall:::entry /pid == $target/ { @a[probefunc] = count(); }' \
	-n 'syscall::read:entry /pid == $target/ { @r[probefunc, arg2] = count(); }'
expect_grep "raw: programs grouped by their code: read's own, the others' one" \
	'^dtrace: BPF: 3 generated programs, ' errr.txt
expect_grep "raw: programs grouped by their code: 7 reads" \
	'^  read  *7$' outr.txt

# exit() decided in the raw tracepoint's program (kplan_exit.c's "exit() at
# a traced probe"): the status, and the count cut at the exiting hit
DTRACE_SYSCALL_RAW=1 timeout -s KILL 120 "$DTRACE" -v -q -o outx.txt \
	-n 'syscall::getcpu:entry /pid == $target/ { @ = count(); }' \
	-n 'syscall::getcpu:entry /pid == $target && arg2 == 0/ { exit(3); }' \
	-n 'END { printa("n %@d\n", @); }' -c "./kpprog getcpu 5" \
	>/dev/null 2>errx.txt
expect_eq "raw: exit() at the hit: status" 3 "$?"
expect_eq "raw: exit() at the hit: the count" "n 1" "$(grep '^n ' outx.txt)"
expect_grep "raw: exit() at the hit: in the kernel" \
	'^dtrace: 1 clause aggregated in the kernel$' errx.txt

# a 32-bit (compat) process's calls, another numbering, are not traced
# (the dispatchers test cs): i386's getpid() is 20, x86-64's writev;
# only where the kernel runs it (a kernel without IA32 emulation, or
# with binfmt_elf's compat loader left out, refuses the exec: ENOEXEC)
if [ "$(uname -m)" = x86_64 ] && printf '%s\n' '.globl _start' \
	'_start: movl $7, %esi' '1: movl $20, %eax' 'int $0x80' \
	'decl %esi' 'jnz 1b' 'movl $1, %eax' 'xorl %ebx, %ebx' 'int $0x80' |
	as --32 -o a32.o - 2>/dev/null &&
	ld -m elf_i386 -o a32 a32.o 2>/dev/null && ./a32 2>/dev/null
then
	NOOUT=1 raw "raw: a 32-bit process's calls" ./a32 \
		-n 'syscall:::entry /pid == $target/ { @e[probefunc] = count(); }' \
		-n 'syscall:::return /pid == $target/ { @r[probefunc] = count(); }'
	expect_eq "raw: a 32-bit process's calls: none" "" "$(tr -d ' \n' <outr.txt)"
else
	echo "# no 32-bit x86 assembler and linker, or a kernel that runs no 32-bit program: compat case skipped"
fi

# (these record every process's calls for user space to filter: a
# large buffer, so a loaded machine's other processes cause no drops;
# ALONE: the generated run beside it would add its own calls)
ALONE=1 same "syscall:::entry (the raw tracepoint)" generated "reads 5" \
	-x bufsize=32m -n 'syscall:::entry /pid == $target && probefunc == "read"/ { @ = count(); }'

# ---------------------------------------------------------------------
# ustack(): the user registers and stack in the generated programs'
# records (getcpu(2), which other processes make through the vDSO, not
# read(2), which a busy machine makes by the million)

same "ustack() at a call's tracepoint" generated "getcpu 2" \
	-n 'syscall::getcpu:entry /pid == $target/ {
		@a[ustack()] = count(); @b[ustack(1)] = count(); }' \
	-n 'syscall::getcpu:return /pid == $target/ { ustack(2); jstack(1); }' \
	-n 'END { printa(@a); printa("%k %@d\n", @b); }'
# (on the raw tracepoints by DTRACE_SYSCALL_RAW=1, not by a glob: the
# records of every process's calls, each with its stack, drop on a busy
# machine)
raw "raw: ustack()" "./kpprog getcpu 3" \
	-n 'syscall::getcpu:entry /pid == $target/ { @[ustack()] = count(); }' \
	-n 'syscall::getcpu:return /pid == $target/ { ustack(3); }'

# profile-997: the first sample in spin() (its offset there varies
# from run to run: left out) and, for the registers saved on entry, the
# stack most samples in the kernel have, getcpu(2)'s
set -- $(nm -S kpprog | awk '$4 == "spin" { print $1, $2 }')
[ "$#" -eq 2 ] || fail "nm: no spin in kpprog"
slo=$(printf '%d' "0x${1:-0}")
shi=$((slo + $(printf '%d' "0x${2:-0}")))
NORM='s/`spin+0x[0-9a-f]*$/`spin/' \
	same "profile-997: ustack() in user mode" generated "spin 300000000" \
	-n "profile-997 /pid == \$target && arg1 >= $slo && arg1 < $shi/ {
		ustack(); exit(0); }"
expect_grep "profile-997: ustack() in user mode: spin" '`spin$' out1.txt
# (ALONE: two floods of getcpu(2) at once, twice the calls a second that
# a test beside this one counting every process's calls exactly sees:
# doc/DESIGN.md §11's "the getcpu flood beside an exact syscall count")
ALONE=1 same "profile-997: ustack() in the kernel" generated "getcpu 3000000" \
	-n 'profile-997 /pid == $target && arg0 != 0/ { @[ustack()] = count(); }' \
	-n 'END { trunc(@, 1); printa("%k\n", @); }'
expect_grep "profile-997: ustack() in the kernel: getcpu(2)'s" \
	'^libc.so.6`syscall+' out1.txt

# proc: a fork's stack, the new image's entry, an exit's, in a process
# whose addresses do not change from run to run
if setarch "$(uname -m)" -R true 2>/dev/null; then
	PRE="setarch $(uname -m) -R" \
		same "proc: ustack()" generated "forkexec ./kpchild" \
		-n 'proc:::create /pid == $target/ { ustack(); }' \
		-n 'proc:::exec-success /ppid == $target/ { ustack(); }' \
		-n 'proc:::exit /ppid == $target/ { ustack(); }'
	# an exit's alone: no hit of kpchild before it, its maps gone by
	# the time it is read, so its libraries are known only from the
	# read its mapping records made while it lived (ustack.c's
	# ustack_mapped_read(); kpchild lingers 0.3 s for it): libc's frames
	# down to kpchild's _start
	PRE="setarch $(uname -m) -R" \
		same "proc: ustack() at an exit alone" generated \
		"forkexec ./kpchild" \
		-n 'proc:::exit /ppid == $target/ { ustack(); }'
	expect_grep "proc: ustack() at an exit alone: libc's _exit" \
		'^ *libc[.]so[.]6`_exit+' out1.txt
	expect_grep "proc: ustack() at an exit alone: kpchild's _start" \
		'^ *kpchild`_start+' out1.txt
else
	echo "# no setarch -R: proc's ustack() case skipped"
fi

# ---------------------------------------------------------------------
# no prologue: the generic programs
# curpsinfo's effective ids at a kernel probe: its prologue's record
# has no code for them (kprov_cg_fits())
same "pr_euid at a kernel probe: generic" generic "getcpu 2" \
	-n 'syscall::getcpu:entry /pid == $target/ {
		printf("%d %d\n", curpsinfo->pr_euid, curpsinfo->pr_sid); }'

# a kernel probe's program the generator refuses (DTRACE_CGEN_REFUSE),
# beside a self-> variable the kernel keeps: loaded with the others
# before anything is attached, so the whole run goes back to the
# generic programs
DTRACE_CGEN_REFUSE=syscall:vmlinux:getcpu:entry
export DTRACE_CGEN_REFUSE
same "a kernel probe's program refused: generic" generic "getcpu 10" \
	-n 'syscall::getcpu:entry /pid == $target/ { self->x = arg0 + 1; }' \
	-n 'syscall::getcpu:return /self->x/ { @ = count(); self->x = 0; }'
expect_grep "refused: said with -v" \
	'^dtrace: BPF: no program generated for syscall:vmlinux:getcpu:entry; the generic program instead$' \
	err1.txt
unset DTRACE_CGEN_REFUSE
# an argument the probe has not (getcpu has three: arg7), which the
# generator refused before, beside such a variable: 0, as the record
# has it, the kernel's
same "an argument getcpu has not" generated "getcpu 10" \
	-n 'syscall::getcpu:entry /pid == $target/ { self->x = arg7 + 1; }' \
	-n 'syscall::getcpu:return /self->x/ { @ = count(); self->x = 0; }'
expect_grep "an argument getcpu has not: -v" \
	'^dtrace: 2 clauses aggregated in the kernel$' err1.txt

finish
