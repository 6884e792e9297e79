#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-strlen.sh: strlen(copyinstr(argN)) computed in the kernel at
# the probe (kplan_str.c's kp_arg_strlen(), UBPF_K_SLEN: the length of the
# copy cgen_sarg.c's seq_read() makes of the argument's string before
# the clauses run, cut to strsize - 1 as copyinstr() cuts it), and
# strlen(execname) (UBPF_K_CLEN: "sl", then a name of 15 bytes set by
# prctl()), in a predicate, keys and a sum, on strings of 0 to 300
# bytes, one that runs into an unreadable page, one whose NUL ends it,
# and an address that does not read (tests/data/cgenstr/sp.c, built
# as sl: the pid provider's hit() where run-cgen-argslen.sh has USDT
# probes), at strsize 16 (strings cut at 15), 256 (the
# default: at 255, the copy's 256 bytes telling every length) and 257
# (at 256, the copy's 256 bytes not telling 255 from more: such a hit
# goes to user space whole, before the plan, as a fault does, and user
# space reports the fault as it would have: the ERROR lines the same).
# Each strsize one script, run with the generated programs and with
# DTRACE_CGEN=0 (and at 16 with DTRACE_KAGG=0 too): byte for byte the
# same output and the same errors, and -v of the generated programs
# says the four clauses aggregated in the kernel, none in user space,
# and the records read are the faults' (2) and, at 257, the four long
# strings' (6).
# On main at 6ff2c44 the clauses ran from their records ("strlen() is
# not computed in the kernel"): the -v checks fail there, and so do the
# runs that do not linger, their late reads faulting (18 of 32).
# About 7 s at a load average of 10, 16 s at 16, on a 2-CPU machine (the
# program lingers a second in the five runs where user space reads
# its strings after the hits).
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe

$CC -O2 -o sl "$top_srcdir/tests/data/cgenstr/sp.c" ||
	{ fail "building sl"; finish; }

cat >sl.d <<'EOF2'
pid$target::hit:entry /strlen(copyinstr(arg0)) > 2/ { @big = count(); }
pid$target::hit:entry { @len[arg1, strlen(copyinstr(arg0))] = count(); }
pid$target::hit:entry { @sum = sum(strlen(copyinstr(arg0)) + arg1); }
pid$target::hit:entry { @c[strlen(execname)] = count(); }
EOF2
linger=1000
[ "${USDT_SANITIZERS:-no}" != yes ] || linger=3000
# the lengths, each string's cut at strsize - 1 (the one argument):
# 10 of the 13 read longer than 2, and their sum with the lengths
lines() {
	sm=$((5 + 1001))
	printf '%s\n' '' ' 10'
	for l in 0 1 2 14 15 16 20 254 255 256 257 300; do
		c=$((l < $1 ? l : $1))
		sm=$((sm + c + l))
		echo " $l $c 1"
	done
	printf '%s\n' ' 1001 5 1' " $sm" ' 15 3' ' 2 12'
}
for ss in 16 256 257; do
	modes="g 0"
	[ "$ss" != 16 ] || modes="g u 0"
	for m in $modes; do
		# user space reads the strings the records cut from the
		# process after the hits: it lingers for those runs (the
		# kernel's at 257 sends the long strings there)
		lg=$linger
		[ "$ss$m" = 16g ] || [ "$ss$m" = 256g ] && lg=0
		run_mode $m sl$ss.$m "./sl $lg" -x strsize=$ss -s sl.d
		# the faults dtrace reported, their addresses but 0x8 the run's
		sed -n 's/pid[0-9]*:/pid:/; s/(0x[0-9a-f]\{5,\})/(ADDR)/
			/error on enabled probe/p' sl$ss.$m.err >sl$ss.$m.flt
	done
	modes_same sl$ss "$modes" "strsize $ss:"
	expect_eq "strsize $ss: -v, no clause in user space" "" \
		"$(grep 'runs in user space' sl$ss.g.err)"
	expect_grep "strsize $ss: -v, four clauses in the kernel" \
		'^dtrace: 4 clauses aggregated in the kernel$' sl$ss.g.err
	expect_eq "strsize $ss: the two faults, each clause's" 6 \
		"$(grep -c 'invalid address' sl$ss.g.flt)"
	expect_eq "strsize $ss: the fault at 0x8, each clause's" 3 \
		"$(grep -c 'invalid address (0x8)' sl$ss.g.flt)"
done
expect_grep "strsize 16: -v, the faults' records alone" \
	'^dtrace: BPF: .*, 2 records read$' sl16.g.err
expect_grep "strsize 257: -v, the faults' and the long strings'" \
	'^dtrace: BPF: .*, 6 records read$' sl257.g.err
lines 15 >sl16.exp
lines 255 >sl256.exp
lines 256 >sl257.exp
for ss in 16 256 257; do
	tr -s ' ' <sl$ss.g | sed 's/ *$//' >sl$ss.cmp
	expect_file_eq "strsize $ss: the lengths" sl$ss.exp sl$ss.cmp
done

# uregs[C] (kplan_expr.c's kp_ureg(), UBPF_K_UREG: the uprobe's pt_regs,
# which the record's registers are) at hit()'s entry and return: rdi
# and rsi are arg0 and arg1 (the SysV ABI), rsp + 8 16-byte aligned,
# the pc's page offset hit()'s in the file (nm; PIE moves pages only),
# rip the pc, rax at the return arg1 (sums, a predicate, a key, a
# printf() through this->); at syscall::prctl:entry (a kernel probe:
# the thread's user registers, which its context is not) user space's,
# per probe, in a clause the kernel runs at hit() (rdi the call's
# arg0); in a clause reading self-> there, and with a computed index,
# user space's everywhere; the user rsp at prctl() a little below the
# one at hit() (both called from main()).  Three ways byte for byte
# and as computed; -v: the six aggregating clauses (the store among
# them) and the printing one in the kernel, the others' reasons.  On
# main at ef2dfbc the five -v checks fail (uregs[] was user space's
# everywhere); the outputs are the same there.
cat >ur.d <<'EOF2'
pid$target::hit:entry { @rdi = sum(uregs[R_RDI] == arg0); @rsi = sum(uregs[R_RSI] == arg1); }
pid$target::hit:entry /uregs[R_SP] % 16 == 8/ { @al = count(); }
pid$target::hit:entry { @pc[uregs[R_PC] & 0xfff] = count(); }
pid$target::hit:entry /arg1 == 2/ { this->p = uregs[R_PC]; printf("pc %d %d\n", this->p == uregs[R_RIP], uregs[R_RSI]); }
pid$target::hit:return { @ret = sum(uregs[R_RAX] == arg1); }
pid$target::hit:entry, syscall::prctl:entry /pid == $target/ { @mix[probefunc] = sum(uregs[R_RDI] == arg0); }
pid$target::hit:entry /arg1 == 1001/ { @ci = sum(uregs[arg1 - 1001 + R_RSI] == arg1); }
pid$target::hit:entry { self->sp = uregs[R_SP]; }
syscall::prctl:entry /self->sp/ { printf("sp near %d\n", uregs[R_SP] < self->sp && self->sp - uregs[R_SP] < 4096); }
EOF2
for m in g u 0; do
	run_mode_start $m ur.$m "./sl 0" -s ur.d
done
for m in g u 0; do
	run_mode_end ur.$m
done
pcoff=$(($(nm sl | sed -n 's/^\([0-9a-f]*\) T hit$/0x\1/p') & 4095))
{
	printf '%s\n' 'pc 1 2' 'sp near 1' ''
	printf '%17d\n' 15 15 15
	printf '%17d%17d\n' "$pcoff" 15
	printf '%17d\n' 15
	printf '  %-50s%17d\n' prctl 1 hit 15
	printf '%17d\n' 1
} >ur.exp
expect_file_eq "uregs[]: as computed" ur.exp ur.g
expect_file_eq "uregs[]: DTRACE_KAGG=0's" ur.u ur.g
expect_file_eq "uregs[]: DTRACE_CGEN=0's" ur.0 ur.g
expect_eq "uregs[]: no drops, no error" "" \
	"$(grep -i -e drop -e error -e cannot ur.g.err ur.u.err ur.0.err)"
expect_grep "uregs[]: -v, six clauses aggregating in the kernel" \
	'^dtrace: 6 clauses aggregated in the kernel$' ur.g.err
expect_grep "uregs[]: -v, the printf() in the kernel" \
	'^dtrace: 1 clause printing values computed in the kernel$' ur.g.err
expect_grep "uregs[]: -v, user space's at prctl()" \
	"^dtrace: clause 6 (pid[0-9]*::hit:entry) ran in user space at 1 of its 2 probes, first syscall:vmlinux:prctl:entry: uregs\\[\\] at a kernel probe is the thread's user registers, which its context is not$" \
	ur.g.err
expect_grep "uregs[]: -v, a computed index user space's" \
	"^dtrace: clause 7 (pid[0-9]*::hit:entry) runs in user space, from its record: line 7: its @ci = sum() is not one the kernel runs: its value: uregs\\[\\] is computed in the kernel only with a constant index$" \
	ur.g.err
expect_grep "uregs[]: -v, beside self-> at a kernel probe user space's" \
	"^dtrace: clause 9 (syscall::prctl:entry) runs in user space, from its record: line 9: its printf() is not one the kernel computes at the hit: argument 1: uregs\\[\\] is not computed in the kernel of a clause that may fire at a kernel probe (which would leave it user space's there) and that touches a self-> or global variable or speculates, or that this-> variables tie to one that does$" \
	ur.g.err

finish
