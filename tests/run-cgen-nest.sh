#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-nest.sh: a generated program that builds its record in cgbuf
# (the per-CPU scratch, bpf_cg.c) owns it while it does (cgen.c's
# own_take(), doc/DESIGN.md "Programs that nest on a CPU"): a
# profile-N program, run from the timer's interrupt, that lands in the
# middle of a uprobe program on the same CPU and would build its own
# record there finds cgbuf taken and counts a drop, which dtrace
# reports; it never overwrites the uprobe's record.  On real processes:
#  - pid$target::hit:entry printing its argument's 200-byte string (a
#    record built in cgbuf) beside profile-4999 printing
#    curpsinfo->pr_psargs (built in cgbuf too), at 300,000 hits in a
#    tight loop (tests/data/cgre/nest.c): every hit's line is there,
#    its string whole and its own, none lost but those dtrace counted
#    as drops (before the owner word: ~260 of 300,000 records lost,
#    with no drop said, each an interrupted record output as the
#    profile program's); the same with the generic programs
#    (DTRACE_CGEN=0: usdt.bpf.c's and kprov.bpf.h's scratch, ~225
#    lost before);
#  - ustack() there, which hands the record to the unwinder walking
#    the stack in the kernel (bpf/unw.bpf.c), which gives cgbuf back:
#    every hit counted but those dropped, and most counted, the stacks
#    walked in the kernel (-v).
# The nesting itself cannot be forced: the run says how many samples
# found cgbuf taken (the drops), and passes with none (an idle CPU's
# timer may never land in a program).
# Needs root and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe
$CC -O2 -o nest "$top_srcdir/tests/data/cgre/nest.c" ||
	{ fail "building nest"; finish; }

N=300000

# the drops dtrace reported in FILE (its "N drops on CPU c" lines)
drops() {
	awk '/ drops on CPU / { s += $2 } END { print s + 0 }' "$1"
}

# nested G WHAT: the strings and profile-4999 with DTRACE_CGEN=G
nested() {
	g=$1 what=$2
	rm -f out.txt
	DTRACE_CGEN=$g timeout -s KILL 120 "$DTRACE" -v -q -o out.txt \
		-c "./nest $N" -n '
pid$target::hit:entry { printf("%d %s\n", arg1, copyinstr(arg0)); }
profile-4999 /pid == $target/ { printf("P %s\n", curpsinfo->pr_psargs); }' \
		>/dev/null 2>err.txt
	expect_eq "$what: status" 0 "$?"
	n=$(grep -c '^dtrace: BPF: 2 generated programs' err.txt)
	expect_eq "$what: generated programs" "$g" "$n"
	[ -f out.txt ] || : >out.txt
	# each hit's line: its number, then "ab" (even) or "cd" (odd) 100
	# times and -number; the profile lines the command's arguments
	awk -v n=$N '
/^$/ { next }
/^P / { if ($0 != "P ./nest " n) bad++; next }
{
	u = $1 % 2 ? "cd" : "ab"
	w = ""
	for (k = 0; k < 100; k++)
		w = w u
	if (NF != 2 || $1 !~ /^[0-9]+$/ || $2 != w "-" $1 || seen[$1]++)
		bad++
	else
		good++
}
END { print good + 0, bad + 0 }' out.txt >counts.txt
	read -r good bad <counts.txt
	d=$(drops err.txt)
	echo "$what: $good of $N hits' lines whole, $bad wrong, $d drops" \
		"said (samples that found the scratch taken)"
	expect_eq "$what: no line wrong" 0 "$bad"
	expect_eq "$what: every hit's line, or a drop said" 1 \
		"$([ $((N - good)) -le "$d" ] && echo 1)"
}

nested 1 "strings and profile-4999"
# the generic programs' buf and kvm_buf (usdt.bpf.c's scratch_take())
nested 0 "strings and profile-4999, the generic programs"

# the unwinder gives cgbuf back: every hit counted, none dropped for it
rm -f out.txt
timeout -s KILL 120 "$DTRACE" -v -q -o out.txt -c "./nest 20000" -n '
pid$target::hit:entry { @n = count(); @s[ustack(1)] = count(); }
END { printa("%@d\n", @n); }' >/dev/null 2>err.txt
expect_eq "ustack(): status" 0 "$?"
expect_grep "ustack(): walked in the kernel" \
	'^dtrace: BPF: user stacks: [1-9][0-9]* walked in the kernel' err.txt
[ -f out.txt ] || : >out.txt
got=$(awk 'NF == 1 && $1 ~ /^[0-9]+$/ { print; exit }' out.txt)
d=$(drops err.txt)
expect_eq "ustack(): every hit counted or a drop said" 20000 \
	"$((${got:-0} + d))"
# cgbuf kept after the first walk would drop every later hit; a full
# ring (a loaded machine) drops a few hundred
expect_eq "ustack(): most hits counted (cgbuf given back)" 1 \
	"$([ "${got:-0}" -ge 10000 ] && echo 1)"

finish
