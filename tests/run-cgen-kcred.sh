#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-kcred.sh: curpsinfo->pr_euid, pr_egid, pr_pgid and pr_sid
# computed in the kernel at a uprobe (kplan.h's D_KPLAN_ECRED and
# D_KPLAN_SESS, cgen_plan.c's kchain(): the thread's cred's effective
# ids, the level-0 ids of its process's group and session, through
# task_struct at the kernel's BTF offsets, as the record's are read for
# user space), in predicates, printf() values and aggregation keys and
# values, on a program that changes them between its hits:
#  - hit(1): as started under dtrace -c, in dtrace's process group and
#    session ($pgid, $sid), effective ids 0;
#  - hit(2): after setsid(): its own group and session (pid), a change
#    the kernel sees at the hit as user space's record does;
#  - hit(3): after setegid(4321) and seteuid(1234): the effective ids
#    changed, the real ones (uid, gid) still 0.
# One script, three ways (lib.sh's three_same(): the generated
# programs, DTRACE_KAGG=0, DTRACE_CGEN=0): byte for byte the same, and
# -v of the first says every clause runs in the kernel, none in user
# space.
# On main at 6ff2c44 every clause ran from its record ("its predicate
# is not one the kernel computes: curpsinfo->pr_pgid is not computed in
# the kernel"): the -v checks and three_same()'s instruction count fail
# there (4 of 12), the outputs compare equal.
# About 13 s at a load average of 16 on a 2-CPU machine (3 runs).
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe

cat >kc.c <<'EOF'
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int hit(int step)
{
	__asm__ volatile("" ::: "memory");
	return step;
}

int main(void)
{
	hit(1);
	if (setsid() < 0)
		perror("setsid");
	hit(2);
	if (setegid(4321) < 0 || seteuid(1234) < 0)
		perror("set ids");
	hit(3);
	return 0;
}
EOF
$CC -O2 -o kc kc.c || { fail "building kc"; finish; }

cat >kc.d <<'EOF'
pid$target::hit:entry /curpsinfo->pr_pgid == $pgid && curpsinfo->pr_sid == $sid/ { printf("start %d %d %d %d\n", arg0, curpsinfo->pr_euid, curpsinfo->pr_egid, curpsinfo->pr_pgid != pid); }
pid$target::hit:entry /curpsinfo->pr_pgid == pid/ { printf("own %d %d %d %d\n", arg0, curpsinfo->pr_sid == pid, curpsinfo->pr_euid, curpsinfo->pr_egid); }
pid$target::hit:entry { @ids[arg0, curpsinfo->pr_euid, curpsinfo->pr_egid, uid] = sum(curpsinfo->pr_euid + curpsinfo->pr_egid); }
pid$target::hit:entry { @sess[arg0, curpsinfo->pr_pgid == pid, curpsinfo->pr_sid == $sid] = sum(curpsinfo->pr_pgid == curpsinfo->pr_sid ? 7 : 1); }
pid$target::hit:entry /curpsinfo->pr_euid != uid/ { @diff = count(); }
EOF
for m in g u 0; do
	run_mode $m kc.$m ./kc -s kc.d
done
three_same kc
expect_eq "kc: -v, no clause in user space" "" \
	"$(grep 'runs in user space' kc.g.err)"
expect_grep "kc: -v, two clauses printing in the kernel" \
	'^dtrace: 2 clauses printing values computed in the kernel$' kc.g.err
expect_grep "kc: -v, three clauses aggregating in the kernel" \
	'^dtrace: 3 clauses aggregated in the kernel$' kc.g.err
# the lines: dtrace's group and session at the start, the process's
# own after setsid(), the effective ids after seteuid()
# (the group is the session after setsid(): 7 a hit; the real uid 0
# throughout, the effective ids summed after seteuid())
printf '%s\n' 'start 1 0 0 1' 'own 2 1 0 0' 'own 3 1 1234 4321' '' \
	' 1 0 0 0 0' ' 2 0 0 0 0' ' 3 1234 4321 0 5555' \
	' 1 0 1 1' ' 2 1 0 7' ' 3 1 0 7' ' 1' >kc.exp
tr -s ' ' <kc.g | sed 's/ *$//' >kc.cmp
expect_file_eq "kc: the lines" kc.exp kc.cmp

finish
