#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-sord.sh: copyinstr(argN) ordered against a string literal
# with no variable (< <= > >=, either way round), in the kernel at the
# probe (kplan_str.c's kp_str_cmp(): UBPF_K_SEQ with an order,
# cgen_svar.c's seq_ord(): the argument's string as copyinstr() gives
# it, cut to strsize - 1 bytes, against the literal's words, both
# zero-padded), on a real process (tests/data/cgenout/cgout.c, pid
# provider entry):
#  - in predicates and in integer keys' ?:, byte for byte DTRACE_CGEN=0's
#    output on cut's strings (strsize - 2, - 1, strsize and more bytes,
#    equal up to the cut or differing at it; 'x's running into an
#    unreadable page), order's (bytes above 0x7f, prefixes, "", equal up
#    to 20 or 290 bytes) and keep's, at strsize 256, 9, 8 (a literal of
#    strsize - 1 bytes) and 2 (literals of 1 byte and none), the
#    ERROR lines and fault messages included;
#  - literals longer than strsize - 1 bytes (up to 63), which the cut
#    string never equals and orders below where it is their first
#    strsize - 1 bytes, at strsize 256, 17 (the cut fills two words),
#    16, 9, 8 and 2;
#  - where the kernel keeps a self-> variable (fault sites: a string
#    that cannot be read is the hit's fault, reported as run.c
#    reports it, where a read of strsize - 1 bytes reaches the page);
#  - -v counts every pid$target clause in the kernel (lib.sh's run():
#    cgout does not linger), so each case fails on a tree that left
#    such clauses to user space (this tree before: none of them).
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).
# 62 dtrace runs, a case's two and up to six cases at once: 7-21 s
# alone at a load of 5-14 on the 2-CPU VM (26-43 s one after another).

. "$top_srcdir/tests/lib.sh"

cgout_setup

# The scripts' parts, each as its own test had it (its own self->
# variable and aggregations' names, so that one part's clauses see
# nothing of another's; the ERROR clause added once, last).  The parts
# of a class run together where they are run at the same mode and
# strsize, one dtrace run each way, not one a part: a part's output is
# still all of DTRACE_CGEN=0's, byte for byte, and each -v check counts
# every clause of the run.  Two classes, never together: no variable
# (aord, aeq: a string that cannot be read sends the hit to user space,
# which reports the fault) and a self-> variable the kernel keeps
# (aordf, aord2, aordl, aeqf: the faults its fault sites').
#
cat >error.p <<'EOF2'
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# aord: no variable
cat >aord.p <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) < "abcdefg"/ { @lt[arg1] = sum(1000); }
pid$target::hit:entry /"abcdefX" <= copyinstr(arg0)/ { @ge[arg1] = count(); }
pid$target::hit:entry { @k[arg1, copyinstr(arg0) > "" ? 1 : 2, "abcdefgXY" >= copyinstr(arg0) ? 3 : 4, copyinstr(arg0) <= "\200" ? 5 : 6] = count(); }
pid$target::hit:entry /copyinstr(arg0) >= "aaaaaaa" && arg1 > 9/ { @aa[arg1] = count(); }
EOF2
# aordf: the kernel keeps self->n (fault sites); first in its runs, so
# its clauses are enabled probes 1 to 4 (the ERROR lines' first number)
cat >aordf.p <<'EOF2'
pid$target::hit:entry { self->n = arg1 + 1; }
pid$target::hit:entry /copyinstr(arg0) < "abcdefg"/ { @flt[arg1] = sum(self->n); }
pid$target::hit:entry /"abcdefX" <= copyinstr(arg0)/ { @fge[arg1] = count(); }
pid$target::hit:entry { @fk[arg1, copyinstr(arg0) > "" ? 1 : 2, "ab" >= copyinstr(arg0) ? 3 : 4] = count(); }
EOF2
# aord2: strsize 2, literals of at most 1 byte
cat >aord2.p <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) < "b"/ { @lt2[arg1] = count(); }
pid$target::hit:entry { @k2[arg1, "" < copyinstr(arg0), copyinstr(arg0) <= "a", "\200" > copyinstr(arg0)] = count(); }
pid$target::hit:entry { self->n2 = arg1; }
pid$target::hit:entry /"a" >= copyinstr(arg0)/ { @f2[arg1] = sum(self->n2); }
EOF2
# (cut's 'x' strings: without fault sites a string the kernel cannot
# read -- its copy reads up to 256 bytes, cgen_sarg.c's seq_read(), past
# the page where strsize is 9 -- sends the hit to user space, which
# reads it from the process after the hit: cgout lingers, late)
#
# aordl: literals longer than strsize - 1 (up to 63 bytes): the cut
# string never equals one, and orders below it where it is the
# literal's first strsize - 1 bytes (its NUL against the literal's byte
# there); at 17 the cut fills the copy's two words, the third decides.
# With fault sites, at 256, 17, 16, 9, 8 and 2 (cut and order).
a20=aaaaaaaaaaaaaaaaaaaa
a63=${a20}${a20}${a20}aaa
cat >aordl.p <<EOF2
pid\$target::hit:entry /copyinstr(arg0) < "abcdefgXYZ"/ { @llt[arg1] = sum(1000); }
pid\$target::hit:entry /"$a20" >= copyinstr(arg0)/ { @lge[arg1] = count(); }
pid\$target::hit:entry { @lk[arg1, copyinstr(arg0) > "$a63" ? 1 : 2] = count(); }
pid\$target::hit:entry { self->nl = arg1; }
pid\$target::hit:entry /copyinstr(arg0) <= "${a20}b"/ { @lle[arg1] = sum(self->nl); }
EOF2
# aeq, aeqf: == and != of literals the length and prefix test cannot
# tell (kplan_str.c's kp_seq_prefix(): of strsize - 2 bytes or more, where
# faults are sites strsize - 3), compared whole as the orders are
# (before, user space's): at 8 "abcdefg" equals every string cut to it,
# and "abcdefgh" none; at 256, 9, 8, 7 and 2 (cut and keep), with and
# without fault sites.  (sum(1001) and its multiples: told from
# aord's and aordl's sum(1000) lines below.)
cat >aeq.p <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) == "abcdefg"/ { @a[arg1] = sum(1001); }
pid$target::hit:entry { @ke[arg1, copyinstr(arg0) != "abcdef", "abcdefgh" == copyinstr(arg0), copyinstr(arg0) != "a"] = count(); }
EOF2
cat >aeqf.p <<'EOF2'
pid$target::hit:entry { self->ne = arg1 + 1; }
pid$target::hit:entry /copyinstr(arg0) == "abcdefg"/ { @af[arg1] = sum(self->ne * 1001); }
pid$target::hit:entry { @kf[arg1, copyinstr(arg0) != "abcdef", "abcdefgh" == copyinstr(arg0), copyinstr(arg0) != "a"] = count(); }
EOF2

# both MODE STRSIZE PART...: s.d, the PARTs and the ERROR clause, on
# ./cgout MODE (strsize 256: no option) with the generated program and
# DTRACE_CGEN=0 (s1.txt, s0.txt; s1.addr the first run's page), the
# unreadable page's address made PAGE (s1.cmp) and the fault messages
# kept (s1.msg): the two the same; run() checks -v's kernel clauses
# (with late set, cgout lingers for user space's reads and -v is
# checked here: every pid$target clause in the kernel)
# both MODE STRSIZE PART...: the parts on ./cgout MODE at STRSIZE, the
# generated program's run and DTRACE_CGEN=0's side by side, in a
# directory of their own (b_d, cgout_bg: the cases run side by side;
# sums and faults read it after bg_join), byte for byte alike
b_n=0
both() {
	b_n=$((b_n + 1))
	b_d=b$b_n
	cgout_bg $b_d both_run "$@"
}
both_run() {
	b_m=$1 b_s=$2
	shift 2
	b_w="$* on $b_m (strsize $b_s)"
	(cd .. && cat "$@" error.p) >s.d
	b_x=
	[ "$b_s" = 256 ] || b_x="-x strsize=$b_s"
	for g in 1 0; do
		rm -f addr$g.txt
		run_bg $g s$g.txt "$b_m $PWD/addr$g.txt" -s s.d $b_x
	done
	run_join
	for g in 1 0; do
		[ -z "${late:-}" ] || [ $g != 1 ] ||
			expect_grep "$b_w: -v" "^dtrace: $(grep -c \
				'^pid\$target' s.d) clauses aggregated in the kernel\$" \
				s$g.txt.err
		pg=$(cat addr$g.txt 2>/dev/null)
		pg=${pg:-NOPAGE}
		echo "$pg" >s$g.addr
		sed "s/$pg/PAGE/" s$g.txt >s$g.cmp
		grep 'error on enabled probe' s$g.txt.err |
			sed "s/pid[0-9]*:/pid:/; s/$pg/PAGE/" >s$g.msg
	done
	expect_file_eq "$b_w: DTRACE_CGEN=0's output" s0.cmp s1.cmp
	expect_file_eq "$b_w: DTRACE_CGEN=0's messages" s0.msg s1.msg
}

# sums DIR N WHAT EXPECTED: the hits below N that both's run in DIR summed
sums() {
	expect_eq "$3" "$4" "$(awk -v n="$2" \
		'NF == 2 && $2 == 1000 && $1 < n { print $1 }' $1/s1.txt |
		sort -n | paste -sd' ' -)"
}

# faults DIR N WHAT: N ERROR lines at the fault sites in DIR's run
faults() {
	expect_eq "$3: ERROR lines" "$2" \
		"$(grep -c "^ERROR [234] [02] -1 1 $(cat $1/s1.addr)\$" $1/s1.txt)"
}

late=1
both cut 256 aord.p aeq.p
c256=$b_d
both cut 9 aord.p aeq.p
both cut 8 aord.p aeq.p
c8=$b_d
both cut 7 aeq.p
both cut 2 aeq.p
late=
for s in 256 9 8; do
	both order $s aord.p
	both keep $s aord.p aeq.p
done
both keep 7 aeq.p
both keep 2 aeq.p

both cut 256 aordf.p aordl.p aeqf.p
f256=$b_d
both cut 9 aordf.p aordl.p aeqf.p
f9=$b_d
both cut 8 aordf.p aordl.p aeqf.p
f8=$b_d
both cut 17 aordl.p
both cut 16 aordl.p
both cut 7 aeqf.p
both cut 2 aord2.p aordl.p aeqf.p
for s in 256 9 8; do
	both order $s aordf.p aordl.p
	both keep $s aordf.p aeqf.p
done
both order 17 aordl.p
both order 16 aordl.p
both order 2 aord2.p aordl.p
both keep 7 aeqf.p
both keep 2 aord2.p aeqf.p
bg_join

sums $c256 18 "cut's strings below \"abcdefg\"" \
	'0 1 2 3 8 9 10 11 12 13 14 15 16 17'
sums $c8 18 "cut's strings below \"abcdefg\" (strsize 8)" \
	'0 1 2 3 8 9 10 11 12 13 14 15 16 17'
faults $f256 21 "fault sites"
sums $f256 10 "cut's strings below a long literal" '0 1 2 3 4 6 8 9'
sums $f9 10 "cut's strings below a long literal (strsize 9)" \
	'0 1 2 3 4 6 7 8 9'
faults $f8 3 "fault sites (-x strsize=8)"
sums $f8 10 "cut's strings below a long literal (strsize 8)" \
	'0 1 2 3 4 5 6 7 8 9'
expect_eq "cut's strings equal to \"abcdefg\" (strsize 8)" \
	'5005 6006 7007 8008' "$(awk \
		'NF == 2 && $2 >= 1001 && $2 % 1001 == 0 { print $2 }' $f8/s1.txt |
		sort -n | paste -sd' ' -)"

finish
