#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-argslen.sh: strlen(args[N]) computed in the kernel at a
# probe declaring argument N a string (kplan_str.c's kp_arg_strlen(), the
# same UBPF_K_SLEN as strlen(copyinstr(argN)): run.c's args[N] and
# func.c's copyinstr() both read d_arg_str()), bare and in stringof(),
# in a predicate, a key and a sum; at a probe declaring it a long
# (where stringof(args[0]) is its digits) the same clauses stay user
# space's (kp_ty_at(): kplan_emit.c types them at each probe).  A USDT
# provider (tests/data/cgenstr/sp.d, sp.c) with strings of 0 to 300
# bytes, one that runs into an unreadable page, one whose NUL ends it 20
# bytes before, an address that does not read.  At strsize 256 (the default) the generated
# programs, DTRACE_KAGG=0 and DTRACE_CGEN=0, at 16 the first and last:
# byte for byte the same output and errors; -v of the generated
# programs says the three clauses aggregated in the kernel, none in
# user space, and the records read are the faults' (2) and the long
# probe's (12).  In a program whose kernel keeps a self-> variable
# (no fault sites) the clause stays user space's, and -v says why, as
# it says why a store of args[N] keeps a self-> variable out; uregs[]
# does not keep a printf() argument out (kplan_expr.c's kp_ureg()).
# printf("%s") and trace() of args[0], bare and in stringof(), are
# printed in the kernel at sp:::s (kplan_out.c's kp_out_sarg(): an OSTR
# of argument 0, as copyinstr(arg0)'s), by user space at sp:::i: three
# ways at 256 byte for byte, the faults' addresses and actions too, at
# 256 and 16 the strings cut as expected, -v: three clauses printing in
# the kernel; in a clause touching a variable -v says why not.  The
# generated programs' runs have no linger where their strings are read
# at the hit (not where they print a fault: below).  On main at 4408b09 13 of 44 fail: the -v ones, and those
# runs' output and faults (its user space read the strings longer than
# the record carries after the process had gone: "invalid address");
# with the per-probe test of kplan_stmt.c's emit_stmt() taken out (an
# OSTR of sp:::i's long) 10 of 44 fail.
# On main at 19e59dd the clauses ran from their records ("strlen() is
# not computed in the kernel"): the -v checks fail there (9 of 27).
# Clauses typed per probe (kplan_here.c, ty.d, at the end): each the
# kernel's at sp:::s and user space's at sp:::i with its this->
# variables, three ways at once.
# About 8 s at a load average of 9 on a 2-CPU machine (the program
# lingers a second in each run, for user space's late reads), 2 to 4 s
# more for the prints (four runs, two without the linger).
# Needs root, uprobes, dtrace -G and a dtrace with the BPF backend.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup usdt

data=$top_srcdir/tests/data/cgenstr
{ "$DTRACE" -h -s "$data/sp.d" -o sp.h &&
	$CC -O2 -DSP_USDT -I. -c "$data/sp.c" -o sp.o &&
	"$DTRACE" -G -s "$data/sp.d" sp.o -o sp-probes.o &&
	$CC -o sp sp.o sp-probes.o; } || { fail "building sp"; finish; }

cat >al.d <<'EOF2'
sp$target:::s, sp$target:::i /strlen(stringof(args[0])) > 2/
{ @big[probename] = count(); }
sp$target:::s { @len[args[1], strlen(args[0])] = count(); }
sp$target:::s, sp$target:::i
{ @sum[probename] = sum(strlen(stringof(args[0])) + args[1]); }
EOF2
linger=1000
[ "${USDT_SANITIZERS:-no}" != yes ] || linger=3000
for ss in 256 16; do
	modes="g 0"
	[ "$ss" != 256 ] || modes="g u 0"
	for m in $modes; do
		run_mode $m al$ss.$m "./sp $linger" -x strsize=$ss -s al.d
		# the faults dtrace reported, their addresses but 0x8 the run's
		sed -n 's/sp[0-9]*:/sp:/; s/(0x[0-9a-f]\{5,\})/(ADDR)/
			/error on enabled probe/p' al$ss.$m.err |
			sort >al$ss.$m.flt
	done
	modes_same al$ss "$modes" "strsize $ss:"
	expect_eq "strsize $ss: -v, no clause in user space" "" \
		"$(grep 'runs in user space' al$ss.g.err)"
	expect_grep "strsize $ss: -v, three clauses in the kernel" \
		'^dtrace: 3 clauses aggregated in the kernel$' al$ss.g.err
	expect_grep "strsize $ss: -v, the faults' and sp:::i's records" \
		'^dtrace: BPF: .*, 14 records read$' al$ss.g.err
	expect_eq "strsize $ss: the two faults, each clause's" 6 \
		"$(grep -c 'invalid address' al$ss.g.flt)"
	expect_eq "strsize $ss: the fault at 0x8, each clause's" 3 \
		"$(grep -c 'invalid address (0x8)' al$ss.g.flt)"
done
# the counts, the lengths (each string's cut at strsize - 1) and the
# sums; at sp:::i, stringof(args[0]) the digits of lens[i] * 1000 (1,
# 4, 4, then 5 and 6 digits), 11 of them longer than 2, their sum 59
lines() {
	sm=$((5 + 1001))
	printf '%s\n' '' ' s 10' ' i 11'
	for l in 0 1 2 14 15 16 20 254 255 256 257 300; do
		c=$((l < $1 ? l : $1))
		sm=$((sm + c + l))
		echo " $l $c 1"
	done
	printf '%s\n' ' 1001 5 1' " i $((59 + 66))" " s $sm"
}
for ss in 256 16; do
	lines $((ss - 1)) >al$ss.exp
	tr -s ' ' <al$ss.g | sed 's/ *$//' >al$ss.cmp
	expect_file_eq "strsize $ss: the counts, lengths and sums" \
		al$ss.exp al$ss.cmp
done

# printf("%s") and trace() of args[0], bare and in stringof(), printed
# in the kernel where the probe declares it a string (kplan_out.c's
# kp_out_sarg(): an OSTR of argument 0, copyinstr(arg0)'s), at sp:::i
# (a long: its digits) by user space; three ways byte for byte at 256
# (the generated programs' at 16 as the text expected below), the
# faults too, at the same addresses (the unreadable page's first byte)
cat >pr.d <<'EOF2'
sp$target:::s, sp$target:::i { printf("%s|%*s|\n", args[0], 3, args[0]); }
sp$target:::s, sp$target:::i { trace(args[0]); }
sp$target:::s, sp$target:::i /args[1] > 14/ { printf("<%s>\n", stringof(args[0])); }
EOF2
for ss in 256 16; do
	modes=g
	[ "$ss" != 256 ] || modes="g u 0"
	for m in $modes; do
		# every mode lingers: a copy the probe could not make (the
		# unreadable page) is read again when dtrace runs the record,
		# as the record path reads it (kplan_out.c, R1), and that
		# read faults at the string's start once the process is gone
		run_mode $m pr$ss.$m "./sp $linger" -x strsize=$ss -s pr.d
		sed -n 's/sp[0-9]*:/sp:/; s/(0x[0-9a-f]\{5,\}000)/(PAGE)/
			/error on enabled probe/p' pr$ss.$m.err >pr$ss.$m.flt
	done
	modes_same pr$ss "$modes" "strsize $ss: args[0] printed,"
	expect_eq "strsize $ss: args[0] printed: -v, no clause in user space" "" \
		"$(grep 'runs in user space' pr$ss.g.err)"
	expect_grep "strsize $ss: args[0] printed: -v, three clauses in the kernel" \
		'^dtrace: 3 clauses printing values computed in the kernel$' \
		pr$ss.g.err
	expect_eq "strsize $ss: args[0] printed: the faults, each clause's" \
		"$(printf '%s\n' 1 2 3 1 2 3 | sed 's/.*/dtrace: error on enabled probe ID & (ID 4: sp:sp:main:s): invalid address (PAGE) in action #1/
			4,6s/(PAGE)/(0x8)/')" "$(cat pr$ss.g.flt)"
done
# at sp:::s the strings cut to strsize - 1 (clause 3's where lens[i]
# > 14), at sp:::i lens[i] * 1000 (clause 3 never: args[1] is i there),
# the faults' nothing, then the y string, and the newline dtrace ends
# its output with
prl() {
	c=0
	for l in 0 1 2 14 15 16 20 254 255 256 257 300; do
		c=$((c + 1))
		s=$(printf "%${l}s" '' | tr ' ' "$(echo abcdefghijkl | cut -c$c)" |
			cut -c1-"$1")
		printf '%s|%3s|\n%s' "$s" "$s" "$s"
		[ "$l" -le 14 ] || printf '<%s>\n' "$s"
		printf '%s|%3s|\n%s' $((l * 1000)) $((l * 1000)) $((l * 1000))
	done
	s=$(echo yyyyy | cut -c1-"$1")
	printf '%s|%3s|\n%s<%s>\n\n' "$s" "$s" "$s" "$s"
}
for ss in 256 16; do
	prl $((ss - 1)) >pr$ss.exp
	expect_file_eq "strsize $ss: args[0] printed, the strings and digits" \
		pr$ss.exp pr$ss.g
done

# in a program keeping self-> variables strlen(args[N]) stays user
# space's, said (kplan_str.c's kp_arg_strlen()): the kernel keeping them
# has fault sites, where a string that cannot be read could not send
# the hit to user space (clause 2; its reason was "a program with
# variables" before kplan_here.c); clause 5's sums are al.d's, its
# strlen() of sp:::i's long a fault.  printf("%s", args[0]) beside
# this->n is the kernel's at sp:::s (clause 6: kplan_here.c; user
# space's before, "a clause that touches a variable"), but not where
# this-> variables tie it to a self-> variable (clauses 7 and 8: at
# sp:::i clause 8 would be user space's, this->v with it, and clause
# 7, keeping self->w in the kernel, could not follow: the event
# refused)
cat >fm.d <<'EOF2'
sp$target:::s { self->n = arg1; }
sp$target:::s /strlen(args[0]) > self->n/ { @ = count(); }
sp$target:::i { self->m = args[1]; }
sp$target:::i /args[1] == 0/ { printf("%d\n", uregs[R_RDI] == arg0); }
sp$target:::s, sp$target:::i { this->t = arg1; @t[probename] = sum(strlen(args[0]) + this->t); }
sp$target:::s /arg1 == 1/ { this->n = arg1; printf("%s %d\n", args[0], this->n); }
sp$target:::s, sp$target:::i { this->v = arg1; self->w += this->v; }
sp$target:::s, sp$target:::i /arg1 == 14/ { printf("%s %d\n", stringof(args[0]), this->v); }
EOF2
run_mode g fm.g "./sp $linger" -s fm.d
expect_grep "self->: -v says why strlen(args[0]) is user space's" \
	"^dtrace: clause 2 (sp[0-9]*:::s) runs in user space, from its record: line 2: its predicate is not one the kernel computes: strlen() of args\[\] is not computed in the kernel of a program that keeps self-> variables" \
	fm.g.err
expect_eq "this->: clause 5's sum at sp:::s, al.d's" 1 \
	"$(tr -s ' ' <fm.g | grep -c "^$(lines 255 | tail -n 1)\$")"
expect_eq "this->: clause 5's strlen() of sp:::i's long, 12 faults" 12 \
	"$(grep -c 'sp:main:i): illegal operation in action #3' fm.g.err)"
# ... and uregs[] keeps no printf() argument there: at a USDT site the
# kernel reads it from the uprobe's pt_regs (kplan_expr.c's kp_ureg();
# on main at ef2dfbc the clause was user space's, "uregs[] is not
# computed in the kernel"), rdi arg0 at the one hit
expect_eq "uregs[]: clause 4's printf() is the kernel's" "" \
	"$(grep '^dtrace: clause 4 ' fm.g.err)"
expect_eq "uregs[]: clause 4 printed uregs[R_RDI] == arg0" 1 \
	"$(grep -cx 1 fm.g)"
# ... and why a store of args[N] (typed per probe) keeps its variable
# out of the kernel (kplan_why.c; it named nothing before)
expect_grep "self->: -v says why self->m = args[1] is user space's" \
	"^dtrace: clause 3 (sp[0-9]*:::i) runs in user space, from its record: line 3: its store to self->m is not one the kernel runs: self->m: its store at line 3 reads args\[\], which is typed per probe, and a variable the kernel keeps is not (arg0..arg11 are)$" \
	fm.g.err
# ... and that args[0] printed as a string beside this->n is the
# kernel's, and why not where this-> ties it to self->w
expect_eq "this->: printf(\"%s\", args[0]) with this->n in the kernel" "" \
	"$(grep '^dtrace: clause 6 ' fm.g.err)"
expect_grep "this->: clauses 6 and 8's lines" '^b 1$' fm.g
expect_grep "this->: clauses 6 and 8's lines" '^dddddddddddddd 14$' fm.g
expect_grep "-v says why printf(\"%s\", args[0]) tied to self->w is user space's" \
	"^dtrace: clause 8 (sp[0-9]*:::s) runs in user space, from its record: line 8: its printf() is not one the kernel computes at the hit: argument 1: args\[\] printed as a string in a clause that this-> variables tie to a self-> or global variable or a speculation, which cannot be user space's at a probe where args\[\] is no string$" \
	fm.g.err

# Clauses typed per probe (kplan_here.c): each is the kernel's at
# sp:::s and user space's at sp:::i, where args[0] is no string, with
# the this-> variables it touches; clause 1 is the one refused before
# ("the clauses of uprobe event l4 that keep variables in the kernel do
# not fit one plan"), clauses 2 and 3 were user space's at both
# (strlen(args[N]) and printf("%s", args[N]) in a program with
# variables), clause 4 fits both and is user space's at sp:::i for
# clause 5's sake (the closure over this->c).  The three ways at once,
# byte for byte, their faults too; -v says where each ran.  On main at
# 33abb45 the generated programs' run is refused: 14 of these 16 checks
# fail (17 of the script's 65, with fm.d's three).
cat >ty.d <<'EOF2'
sp$target:::s, sp$target:::i { this->t = arg1; @r[stringof(args[0])] = sum(this->t); }
sp$target:::s, sp$target:::i { this->u = arg1; @l = sum(strlen(stringof(args[0])) + this->u); }
sp$target:::s, sp$target:::i /arg1 > 14/ { this->k = arg1; printf("%s %d\n", stringof(args[0]), this->k); }
sp$target:::s, sp$target:::i { this->c = arg1 * 2; }
sp$target:::s, sp$target:::i { @c[probename] = sum(this->c + strlen(stringof(args[0]))); }
EOF2
for w in g 0 c; do
	way_env $w
	rm -f ty.$w # -o appends
	DTRACE_CGEN=$cg DTRACE_KAGG=$ka timeout -s KILL 120 "$DTRACE" -v -q \
		-o ty.$w -s ty.d -c "./sp $linger" >/dev/null 2>ty.$w.err &
	eval "ty_pid$w=\$!"
done
for w in g 0 c; do
	eval "wait \"\$ty_pid$w\""
	expect_eq "typed per probe ($w): status" 0 "$?"
	[ -f ty.$w ] || : >ty.$w
	sed -n 's/sp[0-9]*:/sp:/; s/(0x[0-9a-f]\{5,\}000)/(PAGE)/
		/error on enabled probe/p' ty.$w.err | sort >ty.$w.flt
done
for w in 0 c; do
	expect_file_eq "typed per probe: way $w's output" ty.$w ty.g
	expect_file_eq "typed per probe: way $w's faults" ty.$w.flt ty.g.flt
done
expect_eq "typed per probe: clause 3's lines and the aggregations" 38 \
	"$(wc -l <ty.g | tr -d ' ')"
expect_eq "typed per probe: the faults, 2 of each clause's" 8 \
	"$(grep -c 'invalid address' ty.g.flt)"
expect_grep "typed per probe: -v, four clauses aggregated in the kernel" \
	'^dtrace: 4 clauses aggregated in the kernel$' ty.g.err
expect_grep "typed per probe: -v, one printing in the kernel" \
	'^dtrace: 1 clause printing values computed in the kernel$' ty.g.err
for c in 1 2 3 5; do
	expect_grep "typed per probe: -v, clause $c at sp:::i" \
		"^dtrace: clause $c (sp[0-9]*:::s) ran in user space at 1 of its 2 probes, first sp[0-9]*:sp:main:i: args\[0\] is no string there$" \
		ty.g.err
done
expect_grep "typed per probe: -v, clause 4 at sp:::i, for this->c" \
	"^dtrace: clause 4 (sp[0-9]*:::s) ran in user space at 1 of its 2 probes, first sp[0-9]*:sp:main:i: this->c is user space's there: clause 5$" \
	ty.g.err

finish
