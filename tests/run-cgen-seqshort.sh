#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-seqshort.sh: copyinstr(argN) == "lit" and != at the probe,
# the argument's string copied onto the stack by a first read of the
# bytes the compare needs (the literal's L and 2, rounded up to a
# word; cgen_sarg.c's seq_stack()), and where that read finds no NUL,
# whether copyinstr()'s strsize - 1 bytes would fault: no more read
# where they lie in the page the first read ended in, else read on in
# pieces, a fault sending the hit to user space, which reports it.  On
# a real process (tests/data/cgenout/cgout.c's seq mode, pid provider
# entry), literals of 4, 6 and 20 bytes (first reads of 8, 8 and 24),
# strsize 256 and small ones (the literal's L + 2, L + 3, L + 4, 16),
# byte for byte DTRACE_CGEN=0's output and its error messages (the
# pages' addresses named alike), and the faults and equal hits as
# expected:
#  - strings of L - 1 to L + 3 bytes, the literal's bytes then 'x's,
#    and of 7 to 9, 15 to 17, 23 to 25, 79 to 81 and 254 to 257 and 300
#    bytes (a word, the first reads, the room of 80 bytes the stack
#    holds, strsize 8, 16 and 256 and their cuts), the literal with its
#    last byte changed, "";
#  - such bytes with no NUL running into a page that is not readable, 1,
#    L to L + 3, 7 to 9, 15 to 17, 23 to 25, 80, 81 and 253 to 257
#    bytes before it: where copyinstr() reads into the page (k below
#    strsize - 1) an error in each predicate, not a silent false; past
#    it none, the clause's answer (with L + 2 a word, the first read
#    ends right before the page and reads no byte of it);
#  - the literal and the literal and "x" whose NUL is the last byte
#    before such a page (equal; longer), no error;
#  - 300 bytes running on over a page that is mapped, 8, 100, L + 1 and
#    L + 2 bytes before it (the first read ends in one page, the
#    bytes to compare in the next: the pieces read on, no fault);
#  - -v counts the clauses run in the kernel, so a tree that left them
#    to user space fails too.
# The tree before (every string read on to 255 bytes) passes: it was
# exact, only slower.  Each of these fails (tried): a string longer
# than the first read taken as no fault (the page test always true), a
# first read of L + 1 bytes, the page test or the pieces one byte short
# of strsize - 1.  Each run takes about a second, the whole 15 s.  Needs root, uprobes and a dtrace with
# the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup
# the faulting hits' clauses run in user space, which reads their
# strings after the hit: the process lingers (lib.sh's run())
late=1

# both LIT NAME [DTRACE-ARGS...]: the two clauses, == and != LIT, with
# the generated program and DTRACE_CGEN=0, each page's address named
# by its line in addr.txt
both() {
	b_lit=$1 b_w=$2
	shift 2
	cat >seq.d <<EOF2
pid\$target::hit:entry /copyinstr(arg0) == "$b_lit"/ { @eq[arg1] = sum(1000); }
pid\$target::hit:entry /copyinstr(arg0) != "$b_lit"/ { @ne[arg1] = count(); }
EOF2
	for g in 1 0; do
		rm -f addr.txt
		run $g seq$g.txt "seq $PWD/addr.txt $b_lit" -s seq.d "$@"
		awk '{ printf "s/%s/PAGE%d/\n", $1, NR }' addr.txt >addr.sed
		sed -f addr.sed seq$g.txt >seq$g.cmp
		grep 'error on enabled probe' seq$g.txt.err |
			sed 's/pid[0-9]*:/pid:/' | sed -f addr.sed >seq$g.msg
	done
	expect_file_eq "$b_w: DTRACE_CGEN=0's output" seq0.cmp seq1.cmp
	expect_file_eq "$b_w: DTRACE_CGEN=0's messages" seq0.msg seq1.msg
	expect_grep "$b_w: -v" \
		'^dtrace: 2 clauses aggregated in the kernel$' seq1.txt.err
}

# seqfaults K...: the unreadable pages (their index in addr.txt, 1 up)
# whose strings fault, each in both predicates, as seq1.msg has them
seqfaults() {
	expect_eq "$b_w: the faults" "$*" \
		"$(sed -n 's/.*(PAGE\([0-9]*\)).*/\1/p' seq1.msg | uniq -c |
			awk '$1 == 2 { print $2 }' | paste -sd' ' -)"
}

# seqeq: the hits equal, @eq's (sum 1000): 1 (L bytes) and 45 (the
# literal whose NUL is the last byte before a page: after 24 strings
# and 21 that run into pages), at every strsize
seqeq() {
	expect_eq "$b_w: equal" "1 45" \
		"$(awk 'NF == 2 && $2 == 1000 { print $1 }' seq1.cmp |
			sort -n | paste -sd' ' -)"
}

# The pages, as cgout.c's seq mode orders its strings: 1 (k = 1), 2-5
# (k = L to L + 3), 6-21 (k = 7 8 9 15 16 17 23 24 25 80 81 253 254 255
# 256 257), 22-23 (the NULs before the page, no fault).  A string of k
# bytes running into one faults where copyinstr() reads k + 1 bytes or
# more: k below strsize - 1.
both beta '"beta", strsize 256'
seqfaults $(seq 1 18)
seqeq
both abcdef '"abcdef", strsize 256'
seqfaults $(seq 1 18)
seqeq
both abcdefghijklmnopqrst 'a literal of 20 bytes, strsize 256'
seqfaults $(seq 1 18)
seqeq
# strsize L + 2, L + 3 (the first read of 8 or 24 bytes past
# copyinstr()'s 5, 7, 8, 21 or 22 bytes), 16
both beta '"beta", strsize 6' -x strsize=6
seqfaults 1 2
seqeq
both abcdef '"abcdef", strsize 8' -x strsize=8
seqfaults 1 2
seqeq
both abcdef '"abcdef", strsize 9' -x strsize=9
seqfaults 1 2 3 6
seqeq
# strsize 10: copyinstr() reads 9 bytes, one past the first read, where
# that one ends right before the page (k = 8), which faults
both abcdef '"abcdef", strsize 10' -x strsize=10
seqfaults 1 2 3 4 6 7
seqeq
both abcdef '"abcdef", strsize 16' -x strsize=16
seqfaults 1 2 3 4 5 6 7 8
seqeq
both abcdefghijklmnopqrst 'a literal of 20 bytes, strsize 22' \
	-x strsize=22
seqfaults 1 2 6 7 8 9 10 11
seqeq
both abcdefghijklmnopqrst 'a literal of 20 bytes, strsize 23' \
	-x strsize=23
seqfaults 1 2 3 6 7 8 9 10 11
seqeq

finish
