#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-ppid.sh: ppid computed in the kernel at the probe
# (kplan.c's D_KPLAN_PPID, cgen_plan.c's ppid(): the hit's thread's
# real_parent's tgid through task_struct at the kernel's BTF offsets,
# as the record's is read for user space), in predicates, printf()
# values and aggregation keys and values, at a system call's probe
# and at a uprobe (the pid provider), on sh -c running:
#  - builtin echo: the target's write(2), at pid$target::write:entry
#    (ppid dtrace itself, $pid);
#  - /bin/echo: a child's write(2), ppid the target;
#  - /bin/echo in a process whose parent exited before its write (a
#    subshell's background child, writing into a FIFO the target reads
#    only once the subshell is gone): reparented, ppid its new parent
#    (pid 1 or a subreaper, still there after the run), not the dead
#    one's.
# One script, three ways (lib.sh's three_same(): the generated
# programs, DTRACE_KAGG=0, DTRACE_CGEN=0): byte for byte the same, and
# -v of the first says every clause prints values computed in the
# kernel, none runs in user space.
# On main at a50a8fb every clause ran from its record ("its predicate
# is not one the kernel computes: ppid is not computed in the kernel"):
# the -v checks fail there, the three-way comparison passes.
# About 3 s on a 2-CPU machine.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe
tracefs_at -d events/syscalls || skip "no tracefs with syscalls events"

cat >pp.d <<'EOF'
syscall::write:entry /execname == "echo" && ppid == $target/ { printf("child %d %d\n", ppid != pid, ppid == $target); @c[ppid == $target, ppid - $target] = sum(ppid - $target + 7); }
syscall::write:entry /execname == "echo" && ppid != $target/ { printf("orphan %d %d\n", ppid != pid, ppid); @o[ppid > 0] = count(); }
pid$target::write:entry { printf("target %d\n", ppid == $pid); @t[ppid == $pid] = sum(ppid - $pid + 5); }
EOF
cmd="echo hi; /bin/echo ho; mkfifo f; ( (exec /bin/echo orphan >f) & ); cat f"
# DTRACE_KAGG=0's and DTRACE_CGEN=0's runs test the predicates in user
# space: every process's write(2) comes to user space as a record, and
# on a busy machine (CI's -j2, another test writing flat out) the ring
# can overflow with others' records, said as drops, a line of this
# script's among them at times (the generated run tests them in the
# kernel: its records are the echoes' alone).  Such a run is run once
# more (run-cgen-kprov.sh's same() does the same); three_same() then
# asks that the runs it compares said no drop.
for m in g u 0 u 0; do
	if [ -f pp.$m.err ]; then
		grep -qi drop pp.$m.err || continue
		echo "# pp.$m: $(grep -i drop pp.$m.err | head -1); once more" >&2
	fi
	rm -f f
	run_mode $m pp.$m "sh -c '$cmd'" -s pp.d
done
three_same pp
expect_eq "pp: -v, no clause in user space" "" \
	"$(grep 'runs in user space' pp.g.err)"
expect_grep "pp: -v, the three in the kernel" \
	'^dtrace: 3 clauses printing values computed in the kernel$' pp.g.err
# the lines (the aggregations' too: the target's ppid sums to 5 for its
# write(2), the child's is the target's pid: key 0, sum 7)
printf '%s\n' 'target 1' 'child 1 1' 'orphan 1 PPID' '' ' 1 0 7' ' 1 1' ' 1 5' \
	>pp.exp
sed 's/^orphan 1 [0-9][0-9]*$/orphan 1 PPID/' pp.g | tr -s ' ' >pp.cmp
expect_file_eq "pp: the lines" pp.exp pp.cmp
# its new parent (pid 1, or the subreaper above this test) lives on,
# the subshell that was its parent is gone
rp=$(sed -n 's/^orphan 1 \([0-9][0-9]*\)$/\1/p' pp.g)
expect_eq "pp: the orphan's ppid ($rp) a live process" 1 \
	"$([ -n "$rp" ] && [ -d "/proc/$rp" ] && echo 1)"

finish
