#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-strlen.sh: strlen(copyinstr(argN)) computed in the kernel at
# the probe (kplan_str.c's kp_arg_strlen(), UBPF_K_SLEN: the length of the
# copy cgen_sarg.c's seq_read() makes of the argument's string before
# the clauses run, cut to strsize - 1 as copyinstr() cuts it), and
# strlen(execname) (UBPF_K_CLEN: "sl", then a name of 15 bytes set by
# prctl()), in a predicate, keys and a sum, on strings of 0 to 300
# bytes, one that runs into an unmapped page, one whose NUL ends it,
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

finish
