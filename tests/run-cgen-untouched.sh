#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-untouched.sh: strings at the probe in pages the process has
# not touched (doc/DESIGN.md §8, "Strings at the probe of pages not yet
# touched: the rule"), on tests/data/untouched/ut.c (8 MB of .rodata,
# each hit's string on a page of its own that nothing reads):
#  - R1: an argument string only printed (copyinstr(argN), args[N] by
#    %s, in trace(), beside literals, beside probefunc and probename
#    (tests/run-dropin-projects.sh's sssd clause, which the probe names
#    no longer keep in user space: c2e64c7), in strjoin() and
#    basename() (leaves of a tree dtrace evaluates: kplan_out.c's
#    out_ftime()), in a speculating clause), at a USDT probe and a pid
#    probe: the kernel's copy fails, and dtrace
#    reads the string again when it runs the record (kplan_out.c's
#    out_list(), run.c's d_read_str_late()), as the record path's
#    d_arg_str() does: the strings printed, no error, byte for byte
#    DTRACE_KAGG=0's and DTRACE_CGEN=0's, -v counting the clauses as
#    the kernel's; the same where the process exits at once (the late
#    read is deadmem.c's when dtrace comes after the exit).  On a
#    binary before R1 the generated run said "invalid address" at
#    every hit and printed none of these lines;
#  - the faults kept: an address that cannot be read (0x10) and a
#    string running into an unmapped page are "invalid address" at the
#    same addresses the three ways (the unmapped page's, which ut says);
#  - the page-in: two hits on one untouched page 200 ms apart, both
#    printed, no error, the three ways.
# The three ways run side by side (lib.sh's ways_start), each on its
# own process.
# Needs root, uprobes, dtrace -G and a dtrace with the BPF backend.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup usdt
trace_progs_copy ut || test_progs_build ut

# clean WHAT: the three runs said no error, and -v (the generated
# programs' run) counted the clauses as the kernel's
clean() {
	expect_eq "$1: no error said" "" \
		"$(grep -i -e drop -e error -e invalid -e cannot err0.txt \
			errg.txt errc.txt)"
	expect_grep "$1: -v" \
		'^dtrace: 5 clauses printing values computed in the kernel$' \
		errg.txt
	expect_grep "$1: -v sout" \
		'^dtrace: 1 clause with speculations printing values computed in the kernel' \
		errg.txt
}

cat >r1.d <<'EOF2'
ut$target:::req { printf("%d %s\n", arg1, copyinstr(arg0)); }
ut$target:::req { printf("a %s %d ", args[0], arg1); trace(copyinstr(arg0)); printf("\n"); }
ut$target:::req { printf("%s %s %s %d\n", "main", "req", copyinstr(arg0), arg1); }
ut$target:::req { printf("%s %s %s %d\n", probefunc, probename, copyinstr(arg0), arg1); }
pid$target:a.out:req_fn:entry { printf("fn %s %d %s|%s\n", copyinstr(arg0), arg1, strjoin(copyinstr(arg0), "!"), basename(copyinstr(arg0))); }
ut$target:::req { self->s = speculation(); }
ut$target:::req /self->s/ { speculate(self->s); printf("spec %s %d\n", copyinstr(arg0), arg1); }
ut$target:::req /self->s/ { commit(self->s); self->s = 0; }
EOF2
: >r1.exp
for i in 0 1 2; do
	cat >>r1.exp <<EOF2
$i lit-$i
a lit-$i $i lit-$i
main req lit-$i $i
main req lit-$i $i
spec lit-$i $i
fn fn-$i $i fn-$i!|fn-$i
EOF2
done
echo >>r1.exp # dtrace's last line

for cmd in first exit; do
	ways_start 120 -v -q -s r1.d -c "./ut $cmd 3"
	ways_wait "R1, ut $cmd 3"
	ways_same "R1, ut $cmd 3"
	expect_file_eq "R1, ut $cmd 3: the strings" r1.exp outg.txt
	clean "R1, ut $cmd 3"
done

# The faults kept, then the page-in.
cat >s1.d <<'EOF2'
ut$target:::req { printf("%d %s\n", arg1, copyinstr(arg0)); }
EOF2
printf '200 twice\n200 twice\n\n' >s1.exp
ways_start 120 -q -s s1.d -c "./ut bad twice"
ways_wait "faults, page-in"
expect_file_eq "page-in: twice printed" s1.exp outg.txt
ways_same "faults, page-in"
for k in 0 g c; do
	ua=$(sed -n 's/^ut: unmapped //p' "err$k.txt")
	sed -n 's/^dtrace: error on .*: \(invalid address.*\)$/\1/p' \
		"err$k.txt" >flt$k.txt
	printf '%s\n' "invalid address (0x10) in action #2" \
		"invalid address ($ua) in action #2" >flt.exp
	expect_file_eq "faults ($k): 0x10 and the unmapped page's" \
		flt.exp flt$k.txt
done

finish
