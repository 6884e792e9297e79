#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-snoop.sh: opensnoop's idiom at a USDT site, the address kept
# at one probe and its string printed at a later one, then cleared in
# the same clause:
#   data { self->p = arg3; }  end /self->p/ { printf(..., copyinstr(
#   self->p)); self->p = 0; }
# A fault of the copy ends the clause at the probe (kplan_out.c's
# kp_out_ends(), cgen_out.c's ostr(): its jump past the clear), so the
# clause and self->p are the kernel's and the string is read at the
# probe.  On tests/data/spec/sp.c (sp.d's provider; its buffer, on the
# thread's stack, rewritten at each data and gone with the thread):
#  - every end prints the bytes the process had there (the user space
#    path, DTRACE_KAGG=0 and DTRACE_CGEN=0, reads them when dtrace runs
#    the record: the thread is gone, an invalid address);
#  - a copy that faults at the probe (address 16): the store before it
#    in the clause made (self->n), the clear after it not (the next
#    clause sees self->p), the fault reported in the copy's action, the
#    same three ways (its memory does not change);
#  - -v counts the clauses the kernel runs.
# On main at 21f9fed (the jump not there) the clauses ran from the
# records: "the bytes at the probe", "kept" in the generated run and
# the -v counts fail; the three-way comparisons of the faulting copy
# pass there too.  About 2.5 s on a 2-CPU machine at load 3.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe # require_G below, where sp is not built already
kernel_path_only "the generated program's out area is the kernel path's"

if ! trace_progs_copy sp; then
	require_G
	test_progs_build sp
fi

# The idiom: every hit the bytes at the probe
cat >snoop.d <<'EOF'
sp$target:::data /arg2 == 2/ { self->p = arg3; self->i = arg1; }
sp$target:::end /self->p/ { printf("%d %s\n", self->i, copyinstr(self->p)); self->p = 0; }
EOF
run_mode g snoop.g "./sp 6" -s snoop.d
printf '%s\n' "0 t0-i0-j2" "1 t0-i1-j2" "2 t0-i2-j2" "3 t0-i3-j2" \
	"4 t0-i4-j2" "5 t0-i5-j2" "" >snoop.exp
expect_file_eq "snoop: the bytes at the probe" snoop.exp snoop.g
expect_eq "snoop: no fault" 0 "$(grep -c 'invalid address' snoop.g.err)"
expect_grep "snoop: -v printing" \
	'^dtrace: 1 clause printing values computed in the kernel$' snoop.g.err
expect_grep "snoop: -v aggregated" \
	'^dtrace: 1 clause aggregated in the kernel$' snoop.g.err

# A copy that faults at the probe, every other end: the store before it
# made, the clear after it not
cat >snoopf.d <<'EOF'
sp$target:::data /arg2 == 2 && arg1 % 2 == 0/ { self->p = (int64_t)arg3; }
sp$target:::data /arg2 == 2 && arg1 % 2/ { self->p = (int64_t)16; }
sp$target:::end /self->p/ { self->n = self->n + 1; printf("%d [%s]\n", self->n, copyinstr(self->p)); self->p = 0; }
sp$target:::end /self->p/ { printf("kept %x %d\n", self->p, self->n); self->p = 0; }
EOF
for m in g u 0; do
	run_mode $m snoopf.$m "./sp 6" -s snoopf.d
	grep '^kept 10 ' snoopf.$m >snoopf.$m.kept
	grep -c '^dtrace: error on enabled probe ID 3 (ID [0-9]*: sp[0-9]*:sp:run:end): invalid address (0x10) in action #3$' \
		snoopf.$m.err >snoopf.$m.flt
done
printf '%s\n' "1 [t0-i0-j2]" "kept 10 2" "3 [t0-i2-j2]" "kept 10 4" \
	"5 [t0-i4-j2]" "kept 10 6" "" >snoopf.exp
expect_file_eq "snoopf: the lines" snoopf.exp snoopf.g
expect_eq "snoopf: three faults at the probe" 3 "$(cat snoopf.g.flt)"
expect_eq "snoopf: no other fault" 3 \
	"$(grep -c 'invalid address' snoopf.g.err)"
for m in u 0; do
	expect_file_eq "snoopf: kept, DTRACE_CGEN=1 and $m" \
		snoopf.g.kept snoopf.$m.kept
	expect_file_eq "snoopf: its faults, DTRACE_CGEN=1 and $m" \
		snoopf.g.flt snoopf.$m.flt
done
expect_grep "snoopf: -v printing" \
	'^dtrace: 2 clauses printing values computed in the kernel$' \
	snoopf.g.err

finish
