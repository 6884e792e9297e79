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
#    out_ftime()), in a speculating clause; copyinstr(argN, M) of a
#    count M the hit computes, read again M bytes long), at a USDT
#    probe and a pid
#    probe: the kernel's copy fails, and dtrace
#    reads the string again when it runs the record (kplan_out.c's
#    out_list(), run.c's d_read_str_late()), as the record path's
#    d_arg_str() does (but with speculations in the kernel: DTrace's
#    fault at the probe, r1k.d): the strings printed, no error, byte for byte
#    DTRACE_KAGG=0's and DTRACE_CGEN=0's, -v counting the clauses as
#    the kernel's; the same where the process exits at once (the late
#    read is deadmem.c's when dtrace comes after the exit).  On a
#    binary before R1 the generated run said "invalid address" at
#    every hit and printed none of these lines;
#  - the faults kept: an address that cannot be read (0x10) and a
#    string running into an unreadable page are "invalid address" at the
#    same addresses the three ways (the unreadable page's, which ut says);
#  - the page-in: two hits on one untouched page 200 ms apart, both
#    printed, no error, the three ways;
#  - R2 (doc/DESIGN.md §8, "R2 and R3: the as-built plan"): an argument
#    string whose fault must end the clause (a store, an aggregation
#    after it; a this-> string's store; a copyinstr(argN) under ?:
#    before an aggregation; copyinstr(arg0, 3) whole and in strjoin()) is copied before the probe's first clause,
#    a failed copy sending the hit to user space whole: the lines and
#    the counts the three ways, no error but the faults kept, -v the
#    R2 line per clause and the four counted in the kernel; a fifth
#    argument string past the four copies' room is user space's at
#    its probe, -v saying why.  On a binary before R2 the generated run
#    said "invalid address" at every untouched hit of the first three
#    (twice at `ut twice`'s), counted nothing there, and no R2 line;
#  - where the kernel keeps self-> variables, no R2 (R3 is designed,
#    not built): such a copy keeps DTrace's fault at the hit, the event
#    not refused, and the lead's decision: a comparison of an argument
#    string there faults at the hit too (guards); but copyinstr(argN,
#    M) of a count the hit computes there is user space's (tlsn.d:
#    the strings, the three ways, -v's reason).
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

# (-x nspec=65: past the 64 the kernel keeps, so the speculations stay
# user space's and the speculating clause a sout one, whose argument
# string R1 reads again; with speculations in the kernel there is no
# re-read: below)
for cmd in first exit; do
	ways_start 120 -v -q -x nspec=65 -s r1.d -c "./ut $cmd 3"
	ways_wait "R1, ut $cmd 3"
	ways_same "R1, ut $cmd 3"
	expect_file_eq "R1, ut $cmd 3: the strings" r1.exp outg.txt
	clean "R1, ut $cmd 3"
done

# R1 with two printing clauses more at ut:::req: the sout clause's
# values no longer fit the out area (UBPF_KOUTMAX) after the kernel's
# printing clauses before it; the nearest of those is user space's at
# the probe (clause 6, probefunc's), -v saying why (kplan_here.c's
# kept_room()), the rest and the sout clause the kernel's, whose last
# OUT ends within a string's room of the area's end (cgen_out.c).  On
# a binary before, the run was refused ("... do not fit one plan");
# with the room alone, the generator dropped the plan: every clause
# user space's, -v counting 1.  The speculating clause reads this->v,
# which probefunc's clause (the nearest) stores: moving that one would
# make this->v user space's and the event refused, so clause 5 (y's)
# moves (kept_room()'s closure); on a binary before, clause 6 moved
# and the event was refused.
awk '/probefunc/ { sub(/ }$/, " this->v = arg1 + 70; }") }
/speculate\(/ { sub(/%d\\n", copyinstr\(arg0\), arg1\)/,
	"%d %d\\n\", copyinstr(arg0), arg1, this->v)") }
{ print } /"main", "req"/ {
	print "ut$target:::req { printf(\"x %s\\n\", copyinstr(arg0, 3)); }"
	print "ut$target:::req { printf(\"y %s\\n\", copyinstr(arg0, 4)); }"
}' r1.d >r1s.d
awk '/^spec / { $0 = $0 " " $3 + 70 } { print }
/^main req/ && !(n++ % 2) { print "x lit"; print "y lit-" }' \
	r1.exp >r1s.exp
ways_start 120 -v -q -x nspec=65 -s r1s.d -c "./ut first 3"
ways_wait "R1, room for the sout clause"
ways_same "R1, room for the sout clause"
expect_file_eq "R1, room for the sout clause: the strings" r1s.exp outg.txt
# (clause 6, the kernel's, copies its string ahead: R2's -v line)
expect_eq "R1, room for the sout clause: no error said" "" \
	"$(grep -i -e drop -e error -e invalid -e cannot err0.txt errg.txt \
		errc.txt | grep -v ' copies copyinstr(arg0) before ')"
expect_grep "R1, room for the sout clause: -v kernel" \
	'^dtrace: 6 clauses printing values computed in the kernel$' errg.txt
expect_grep "R1, room for the sout clause: -v sout" \
	'^dtrace: 1 clause with speculations printing values computed in the kernel' \
	errg.txt
expect_grep "R1, room for the sout clause: -v the one moved" \
	"^dtrace: clause 5 (ut[0-9]*:::req) ran in user space at 1 of its 1 probes, first ut[0-9]*:ut:main:req: the probe's plan has no room for clause 9's values after it, which the kernel must compute (speculating)$" \
	errg.txt

# R1 of copyinstr(argN, M), M a count the hit computes: the kernel's
# copy fails, and dtrace reads the string again M bytes long, as the
# record path does (kplan_out.c's late_max(), the count the program
# clamped, struct ubpf_kostr's cnt), whole and as a leaf of strjoin()
cat >r1n.d <<'EOF2'
ut$target:::req { printf("n %s %s\n", copyinstr(arg0, arg1 + 2), strjoin(copyinstr(arg0, arg1 + 2), "!")); }
EOF2
printf 'n li li!\nn lit lit!\nn lit- lit-!\n\n' >r1n.exp
ways_start 120 -v -q -s r1n.d -c "./ut first 3"
ways_wait "R1, a computed count"
ways_same "R1, a computed count"
expect_file_eq "R1, a computed count: the strings" r1n.exp outg.txt
expect_grep "R1, a computed count: -v" \
	'^dtrace: 1 clause printing values computed in the kernel$' errg.txt
expect_eq "R1, a computed count: no error said" "" \
	"$(grep -i -e drop -e error -e invalid -e cannot err0.txt errg.txt errc.txt)"

# Speculations in the kernel (doc/DESIGN.md's step 4, *Strings*): no
# late re-read, since the held text is made once, by the pass or at the
# hit's place, and its fault reported at the place only: an argument
# string not readable at the probe is DTrace's "invalid address", and
# the record is not kept.
grep -e speculat -e commit r1.d >r1k.d
run_mode_start g r1k.txt "./ut first 1" -v -s r1k.d
# (and beside it: the sout clause reads this->v, whose clause's
# instructions do not fit after two long sums: this->v is user space's
# at the probe, which kept_room() cannot change, so the event is
# refused, the message naming the cause (bpf_agg.c's bpf_kagg_unfit());
# before, "... has no room there, and user space cannot run it")
t=$(awk 'BEGIN { for (i = 2; i < 62; i++) printf "%s arg1 * %d", (i > 2 ? " +" : ""), i }')
cat >r1v.d <<EOF2
ut\$target:::req { @a = sum($t); }
ut\$target:::req { @b = sum($t); }
ut\$target:::req { this->v = $t; printf("k %d\\n", this->v); }
$(grep -e speculat -e commit r1.d |
	sed '/speculate(/s/%d\\n", copyinstr(arg0), arg1)/%d %d\\n", copyinstr(arg0), arg1, this->v)/')
EOF2
run_mode_start g r1v.txt "./ut first 1" -v -q -x nspec=65 -s r1v.d
# (and R1 with room made for the sout clause, as r1s.d's before this->v,
# the clause moved to user space counting by arg1: it copies its string
# ahead (R2) in no probe's plan, so -v has no R2 line for it (bpf_agg_
# read.c); before, it had, decided per clause)
awk '/probefunc/ { sub(/ }$/, " @n[arg1] = count(); }") } { print }
/"main", "req"/ {
	print "ut$target:::req { printf(\"x %s\\n\", copyinstr(arg0, 3)); }"
	print "ut$target:::req { printf(\"y %s\\n\", copyinstr(arg0, 4)); }"
}' r1.d >r1a.d
run_mode_start g r1a.txt "./ut first 1" -v -q -x nspec=65 -s r1a.d
run_mode_end r1k.txt
run_mode_end r1v.txt
run_mode_end r1a.txt
expect_grep "R1, an R2 clause moved: -v moved" \
	"^dtrace: clause 6 (ut[0-9]*:::req) ran in user space at 1 of its 1 probes, first ut[0-9]*:ut:main:req: the probe's plan has no room for clause 9's values after it" \
	r1a.txt.err
expect_eq "R1, an R2 clause moved: no R2 line" "" \
	"$(grep 'copies copyinstr' r1a.txt.err)"
expect_grep "R1, this->v user space's: the cause said" \
	"^dtrace: BPF: the clauses of uprobe event [^ ]* that keep variables in the kernel do not fit one plan: clause 5, whose speculated values the kernel must compute, reads this->v, which is user space's there (clause 3); the generic program instead$" \
	r1v.txt.err
expect_file_eq "R1, this->v user space's: the lines" - r1v.txt <<'EOF2'
k 0
spec lit-0 0 0

                0
                0
EOF2
expect_grep "R1 kspec: -v kernel" \
	'^dtrace: 3 clauses with speculations run in the kernel' r1k.txt.err
expect_grep "R1 kspec: the fault at the probe" \
	'invalid address (0x[0-9a-f]*) in action #2$' r1k.txt.err
expect_eq "R1 kspec: no line" "" "$(grep spec r1k.txt)"

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
	ua=$(sed -n 's/^ut: unreadable //p' "err$k.txt")
	sed -n 's/^dtrace: error on .*: \(invalid address.*\)$/\1/p' \
		"err$k.txt" >flt$k.txt
	printf '%s\n' "invalid address (0x10) in action #2" \
		"invalid address ($ua) in action #2" >flt.exp
	expect_file_eq "faults ($k): 0x10 and the unreadable page's" \
		flt.exp flt$k.txt
done

# R2, the room, and R2's faults kept: one run of each way.
cat >r2.d <<'EOF2'
ut$target:::req { printf("%s\n", copyinstr(arg0)); @n = count(); }
ut$target:::req { this->s = copyinstr(arg0); printf("%s %d\n", this->s, strlen(this->s)); }
ut$target:::req /arg1 != 1/ { printf("p %s\n", copyinstr(arg0)); @p = count(); }
ut$target:::req { printf("c %s\n", copyinstr(arg0, 3)); @c = count(); }
pid$target:a.out:req_fn:entry { printf("%s\n", strjoin(arg1 ? copyinstr(arg0) : "no", "!")); @f = count(); }
ut$target:::req5 { printf("%s %s %s %s %s\n", copyinstr(arg0), copyinstr(arg1), copyinstr(arg2), copyinstr(arg3), copyinstr(arg4)); @ = count(); }
END { printa("n %@d\n", @n); printa("p %@d\n", @p); printa("c %@d\n", @c); printa("f %@d\n", @f); printa("five %@d\n", @); }
EOF2
{
	printf '%s\n' "lit-0" "lit-0 5" "p lit-0" "c lit" "no!" "lit-1" \
		"lit-1 5" "c lit" "fn-1!" "lit-2" "lit-2 5" "p lit-2" "c lit" \
		"fn-2!"
	for i in 1 2; do
		printf '%s\n' "twice" "twice 5" "p twice" "c twi"
	done
	# ut bad's string ends right before its unreadable page: its three
	# bytes are copyinstr(arg0, 3)'s, no fault
	printf '%s\n' "c xxx" "five-0 five-1 five-2 five-3 five-4" "n 5" \
		"p 4" "c 6" "f 3" "five 1" ""
} >r2.exp
ways_start 120 -v -q -s r2.d -c "./ut first 3 twice bad five"
ways_wait "R2"
ways_same "R2"
expect_file_eq "R2: the strings and the counts" r2.exp outg.txt
for k in 0 g c; do
	ua=$(sed -n 's/^ut: unreadable //p' "err$k.txt")
	sed -n 's/^dtrace: error on .*: \(invalid address.*\)$/\1/p' \
		"err$k.txt" >flt$k.txt
	for c in 1 2 3 4; do
		echo "invalid address (0x10) in action #1"
	done >flt.exp
	for c in 1 2 3; do
		echo "invalid address ($ua) in action #1"
	done >>flt.exp
	expect_file_eq "R2 faults ($k): 0x10 and the unreadable page's" \
		flt.exp flt$k.txt
done
for c in 1 2 3 4 5; do
	expect_grep "R2: -v clause $c" \
		"^dtrace: clause $c copies copyinstr(arg0) before the probe's first clause: a string the probe cannot read sends the hit to user space whole\$" \
		errg.txt
done
expect_grep "R2: -v" \
	'^dtrace: 5 clauses printing values computed in the kernel$' errg.txt
expect_grep "R2: -v, the room" \
	"^dtrace: clause 6 (ut[0-9]*:::req5) ran in user space at 1 of its 1 probes, first ut[0-9]*:ut:main:req5: the probe's plan has no room to copy copyinstr(arg4) before its first clause\$" \
	errg.txt

# R2 of copyinstr(argN, M) alone at its probe (no other copy of the
# argument sending the hit away first): before the fix its OSTR kept
# the jump, and the generated run faulted at each untouched hit and
# counted nothing while -v said the copy was made ahead.  And in
# strjoin(), alone at req_fn's pid probe (a leaf: kplan_str.c's
# kp_ostr_arg()): before the fix the leaf's OSTR kept the jump,
# not R2's (its test was copyinstr(argN)'s, of one argument), the
# generated run faulted at each untouched hit and counted nothing.
# And copyinstr(arg0, arg1 / 50), a count the hit computes (R2's copy
# popping it, UBPF_KF_NCNT: cgen_out.c's ostr_pre()), 4 at twice's
# hits ("twic", cut below the string's length and strsize): the tree
# before kept that clause in user space.
cat >r2n.d <<'EOF2'
ut$target:::req { printf("c %s\n", copyinstr(arg0, 3)); @c = count(); }
pid$target:a.out:req_fn:entry { printf("j %s\n", strjoin("<", copyinstr(arg0, 3))); @j = count(); }
ut$target:::req { printf("h %d %s\n", arg1, copyinstr(arg0, arg1 / 50)); @h = count(); }
END { printa("c %@d\n", @c); printa("j %@d\n", @j); printa("h %@d\n", @h); }
EOF2
printf '%s\n' "c lit" "h 0 " "j <fn-" "c lit" "h 1 " "j <fn-" "c lit" \
	"h 2 " "j <fn-" "c twi" "h 200 twic" "c twi" "h 200 twic" \
	"c 5" "j 3" "h 5" "" >r2n.exp
ways_start 120 -v -q -s r2n.d -c "./ut first 3 twice"
ways_wait "R2, copyinstr(arg0, 3)"
ways_same "R2, copyinstr(arg0, 3)"
expect_file_eq "R2, copyinstr(arg0, 3): the strings and the count" \
	r2n.exp outg.txt
for c in 1 2 3; do
	expect_grep "R2, copyinstr(arg0, 3): -v clause $c" \
		"^dtrace: clause $c copies copyinstr(arg0) before the probe's first clause" \
		errg.txt
done

# R2 kept away from a program whose kernel keeps self-> variables (no
# hit of theirs can go to user space whole: kplan_vars.c's noastr),
# where R3 (designed, not built) would run such clauses from their
# records: the copy keeps DTrace's fault at the hit, and the event is
# not refused for it (a plan mixing R2's copies with self-> variables
# would be the code generator's e->bad).  And the lead's decision kept:
# an argument string compared in a predicate there is a fault site
# (DTrace's fault), so the generated run says "invalid address" at each
# untouched hit and counts nothing where the other two count 1 (no
# three-way comparison: the differences are the decisions, and this
# fails the day either changes unnoticed); so is execname compared with
# it (CACMP, a fault site there since 2026-12-07), counting nothing
# where the other two count 3.
cat >tls.d <<'EOF2'
ut$target:::req { printf("%s\n", copyinstr(arg0)); @n = count(); }
ut$target:::req /copyinstr(arg0) == "lit-1"/ { self->m = arg1 + 1; }
ut$target:::req /self->m/ { @m = count(); self->m = 0; }
ut$target:::req /execname != copyinstr(arg0)/ { @e = count(); }
END { printa("n %@d\n", @n); printa("m %@d\n", @m); printa("e %@d\n", @e); }
EOF2
printf '%s\n' lit-0 lit-1 lit-2 "n 3" "m 1" "e 3" "" >tls.exp
ways_start 120 -v -q -s tls.d -c "./ut first 3"
ways_wait "self->"
expect_file_eq "self->: the lines (DTRACE_KAGG=0)" tls.exp out0.txt
expect_file_eq "self->: the lines (DTRACE_CGEN=0)" tls.exp outc.txt
expect_eq "self->: no error said (DTRACE_KAGG=0, DTRACE_CGEN=0)" "" \
	"$(grep -i -e drop -e error -e invalid -e cannot err0.txt errc.txt)"
expect_eq "self->: the generated run's lines" "" "$(cat outg.txt)"
expect_eq "self->: the copy's faults at the hit (generated)" 3 \
	"$(grep -c '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: ut[0-9]*:ut:main:req): invalid address (0x[0-9a-f]*) in action #1$' errg.txt)"
expect_eq "self->: the comparisons' faults at the hit (generated)" 6 \
	"$(grep -c '^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: ut[0-9]*:ut:main:req): invalid address (0x[0-9a-f]*) in predicate$' errg.txt)"
expect_eq "self->: no other error, no refusal (generated)" 9 \
	"$(grep -c -i -e drop -e error -e invalid -e 'no program' errg.txt)"
expect_grep "self->: -v" '^dtrace: 3 clauses aggregated in the kernel$' \
	errg.txt
expect_grep "self->: -v, the copy" \
	'^dtrace: 1 clause printing values computed in the kernel$' errg.txt
expect_eq "self->: no R2 line" "" \
	"$(grep 'before the probe.s first clause' errg.txt)"

# ... but copyinstr(argN, M) of a count the hit computes there, before
# a statement the kernel runs, stays user space's (kplan_out.c's
# kp_out_hitcnt_noastr()): its OSTR's jump faulted at each untouched
# hit, the generated run printing "invalid address" five times and
# only "m 5", where the other two print the strings.
cat >tlsn.d <<'EOF2'
ut$target:::req { printf("h %d [%s]\n", arg1, copyinstr(arg0, arg1 + 2)); @h = count(); }
ut$target:::req { self->m = arg1 + 1; }
ut$target:::req /self->m/ { @m = count(); self->m = 0; }
END { printa("h %@d\n", @h); printa("m %@d\n", @m); }
EOF2
printf '%s\n' "h 0 [li]" "h 1 [lit]" "h 2 [lit-]" "h 200 [twice]" \
	"h 200 [twice]" "h 5" "m 5" "" >tlsn.exp
ways_start 120 -v -q -s tlsn.d -c "./ut first 3 twice"
ways_wait "self->, a counted copy"
ways_same "self->, a counted copy"
expect_file_eq "self->, a counted copy: the lines" tlsn.exp outg.txt
expect_eq "self->, a counted copy: no error said" "" \
	"$(grep -i -e drop -e error -e invalid -e cannot err0.txt errg.txt \
		errc.txt)"
expect_grep "self->, a counted copy: -v, self->m the kernel's" \
	'^dtrace: 2 clauses aggregated in the kernel$' errg.txt
expect_grep "self->, a counted copy: -v, the reason" \
	"^dtrace: clause 1 (ut[0-9]*:::req) runs in user space, from its record: line 1: its printf() is not one the kernel computes at the hit: argument 2: copyinstr() of an argument's string at a uprobe, of a length the hit computes, before a statement the kernel runs, where the kernel keeps self-> variables (no copy ahead)\$" \
	errg.txt

finish
