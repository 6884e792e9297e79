#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-sord.sh: copyinstr(argN) ordered against a string literal
# with no variable (< <= > >=, either way round), in the kernel at the
# probe (kplan.c's kp_str_cmp(): UBPF_K_SEQ with an order,
# cgen_plan.c's seq_ord(): the argument's string as copyinstr() gives
# it, cut to strsize - 1 bytes, against the literal's words, both
# zero-padded), on a real process (tests/data/cgenout/cgout.c, pid
# provider entry):
#  - in predicates and in integer keys' ?:, byte for byte DTRACE_CGEN=0's
#    output on cut's strings (strsize - 2, - 1, strsize and more bytes,
#    equal up to the cut or differing at it; 'x's running into an
#    unmapped page), order's (bytes above 0x7f, prefixes, "", equal up
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
# About 100 s.

. "$top_srcdir/tests/lib.sh"

cgout_setup

# both NAME MODE XOPTS...: NAME.d on ./cgout MODE with the generated
# program and DTRACE_CGEN=0 (NAME1.txt, NAME0.txt), the unmapped page's
# address made PAGE (NAMEg.cmp) and the fault messages kept (NAMEg.msg):
# the two the same; run() checks -v's kernel clauses (with late set,
# cgout lingers for user space's reads and -v is checked here: kc
# clauses in the kernel, 4 unless set)
both() {
	b_n=$1 b_m=$2
	shift 2
	for g in 1 0; do
		rm -f addr.txt
		run $g $b_n$g.txt "$b_m $PWD/addr.txt" -s $b_n.d "$@"
		[ -z "${late:-}" ] || [ $g != 1 ] ||
			expect_grep "$b_n on $b_m${1:+ ($*)}: -v" \
				"^dtrace: ${kc:-4} clauses aggregated in the kernel\$" \
				$b_n$g.txt.err
		pg=$(cat addr.txt 2>/dev/null)
		pg=${pg:-NOPAGE}
		sed "s/$pg/PAGE/" $b_n$g.txt >$b_n$g.cmp
		grep 'error on enabled probe' $b_n$g.txt.err |
			sed "s/pid[0-9]*:/pid:/; s/$pg/PAGE/" >$b_n$g.msg
	done
	b_w="$b_n on $b_m${1:+ ($*)}"
	expect_file_eq "$b_w: DTRACE_CGEN=0's output" ${b_n}0.cmp ${b_n}1.cmp
	expect_file_eq "$b_w: DTRACE_CGEN=0's messages" ${b_n}0.msg \
		${b_n}1.msg
}

# No variable the kernel keeps: a string that cannot be read sends the
# hit to user space, which reports the fault.
cat >aord.d <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) < "abcdefg"/ { @lt[arg1] = sum(1000); }
pid$target::hit:entry /"abcdefX" <= copyinstr(arg0)/ { @ge[arg1] = count(); }
pid$target::hit:entry { @k[arg1, copyinstr(arg0) > "" ? 1 : 2, "abcdefgXY" >= copyinstr(arg0) ? 3 : 4, copyinstr(arg0) <= "\200" ? 5 : 6] = count(); }
pid$target::hit:entry /copyinstr(arg0) >= "aaaaaaa" && arg1 > 9/ { @aa[arg1] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# ... and where the kernel keeps self->n: fault sites
cat >aordf.d <<'EOF2'
pid$target::hit:entry { self->n = arg1 + 1; }
pid$target::hit:entry /copyinstr(arg0) < "abcdefg"/ { @lt[arg1] = sum(self->n); }
pid$target::hit:entry /"abcdefX" <= copyinstr(arg0)/ { @ge[arg1] = count(); }
pid$target::hit:entry { @k[arg1, copyinstr(arg0) > "" ? 1 : 2, "ab" >= copyinstr(arg0) ? 3 : 4] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# strsize 2: literals of at most 1 byte
cat >aord2.d <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) < "b"/ { @lt[arg1] = count(); }
pid$target::hit:entry { @k[arg1, "" < copyinstr(arg0), copyinstr(arg0) <= "a", "\200" > copyinstr(arg0)] = count(); }
pid$target::hit:entry { self->n = arg1; }
pid$target::hit:entry /"a" >= copyinstr(arg0)/ { @f[arg1] = sum(self->n); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# (cut's 'x' strings: without fault sites a string the kernel cannot
# read -- its copy reads up to 256 bytes, cgen_plan.c's seq_read(), past
# the page where strsize is 9 -- sends the hit to user space, which
# reads it from the process after the hit: cgout lingers, late)
for m in cut order keep; do
	for xo in '' '-x strsize=9' '-x strsize=8'; do
		[ $m != cut ] || late=1
		both aord $m $xo
		late=
		both aordf $m $xo
	done
	both aord2 $m -x strsize=2
done

# Literals longer than strsize - 1 (up to 63 bytes): the cut string
# never equals one, and orders below it where it is the literal's first
# strsize - 1 bytes (its NUL against the literal's byte there); at 17
# the cut fills the copy's two words, the third decides.  With and
# without fault sites, at 256, 17, 16, 9, 8 and 2.
a20=aaaaaaaaaaaaaaaaaaaa
a63=${a20}${a20}${a20}aaa
cat >aordl.d <<EOF2
pid\$target::hit:entry /copyinstr(arg0) < "abcdefgXYZ"/ { @lt[arg1] = sum(1000); }
pid\$target::hit:entry /"$a20" >= copyinstr(arg0)/ { @ge[arg1] = count(); }
pid\$target::hit:entry { @k[arg1, copyinstr(arg0) > "$a63" ? 1 : 2] = count(); }
pid\$target::hit:entry { self->n = arg1; }
pid\$target::hit:entry /copyinstr(arg0) <= "${a20}b"/ { @le[arg1] = sum(self->n); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
for m in cut order; do
	for xo in '' 17 16 9 8 2; do
		both aordl $m ${xo:+-x strsize=$xo}
	done
done
# cut's below "abcdefgXYZ" (@lt): at 9 "abcdefgXYZ" cut to "abcdefgX"
# is (hit 7), at 8 "abcdefgh" cut to "abcdefg" is too (5), at 256
# neither ('h' above 'X'; the same string)
for xo in '' 9 8; do
	rm -f addr.txt
	run 1 l.txt "cut $PWD/addr.txt" -s aordl.d ${xo:+-x strsize=$xo}
	case $xo in
	'') e='0 1 2 3 4 6 8 9' ;;
	9) e='0 1 2 3 4 6 7 8 9' ;;
	*) e='0 1 2 3 4 5 6 7 8 9' ;;
	esac
	expect_eq "cut's strings below a long literal${xo:+ (strsize $xo)}" \
		"$e" "$(awk 'NF == 2 && $2 == 1000 && $1 < 10 { print $1 }' \
			l.txt | sort -n | paste -sd' ' -)"
done

# == and != of literals the length and prefix test cannot tell
# (kplan.c's kp_seq_prefix(): of strsize - 2 bytes or more, where faults
# are sites strsize - 3), compared whole as the orders are (before,
# user space's): at 8 "abcdefg" equals every string cut to it, and
# "abcdefgh" none; at 256, 9, 8, 7 and 2, with and without fault sites.
cat >aeq.d <<'EOF2'
pid$target::hit:entry /copyinstr(arg0) == "abcdefg"/ { @a[arg1] = sum(1000); }
pid$target::hit:entry { @k[arg1, copyinstr(arg0) != "abcdef", "abcdefgh" == copyinstr(arg0), copyinstr(arg0) != "a"] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
cat >aeqf.d <<'EOF2'
pid$target::hit:entry { self->n = arg1 + 1; }
pid$target::hit:entry /copyinstr(arg0) == "abcdefg"/ { @a[arg1] = sum(self->n * 1000); }
pid$target::hit:entry { @k[arg1, copyinstr(arg0) != "abcdef", "abcdefgh" == copyinstr(arg0), copyinstr(arg0) != "a"] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
for xo in '' 9 8 7 2; do
	for m in cut keep; do
		[ $m != cut ] || late=1
		kc=2
		both aeq $m ${xo:+-x strsize=$xo}
		late= kc=
		both aeqf $m ${xo:+-x strsize=$xo}
	done
done
rm -f addr.txt
run 1 eq.txt "cut $PWD/addr.txt" -s aeqf.d -x strsize=8
expect_eq "cut's strings equal to \"abcdefg\" (strsize 8)" \
	'5000 6000 7000 8000' "$(awk 'NF == 2 && $2 >= 1000 { print $2 }' \
		eq.txt | sort -n | paste -sd' ' -)"
# The expected hits below "abcdefg" on cut's strings (@lt's, sum 1000:
# hits 0 to 17; the 'x' strings are above): "", "abcdef" twice, "abcde",
# 'a's, and at 256 "abcdefX" (below "abcdefg") and no more; at 8
# "abcdefg" and those cut to it are equal, not below.
for xo in '' '-x strsize=8'; do
	rm -f addr.txt
	late=1
	run 1 lt.txt "cut $PWD/addr.txt" -s aord.d $xo
	late=
	expect_eq "cut's strings below \"abcdefg\"${xo:+ ($xo)}" \
		'0 1 2 3 8 9 10 11 12 13 14 15 16 17' \
		"$(awk 'NF == 2 && $2 == 1000 && $1 < 18 { print $1 }' \
			lt.txt | sort -n | paste -sd' ' -)"
done
# The faults: where the kernel keeps self->n, reported by its fault
# sites (an ERROR line for each of three clauses, for each string that
# a read of strsize - 1 bytes runs into the page: at 256 all seven, at
# 8 the one 6 bytes before it), at the page's address.
for xo in '' '-x strsize=8'; do
	rm -f addr.txt
	run 1 f.txt "cut $PWD/addr.txt" -s aordf.d $xo
	n=21
	[ -z "$xo" ] || n=3
	expect_eq "fault sites${xo:+ ($xo)}: ERROR lines" $n \
		"$(grep -c "^ERROR [0-9]* [02] -1 1 $(cat addr.txt)\$" f.txt)"
done

finish
