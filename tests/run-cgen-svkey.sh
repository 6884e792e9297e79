#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-svkey.sh: string variables the kernel keeps (kplan_out.c's
# KV_STR) as aggregation keys, aggregated by the generated program in
# kaggs_v (kplan.c's VKEY, cgen_svar.c's vkey()), on a real process
# (tests/data/cgenout/cgout.c, pid provider entry and return):
#  - @[self->s] with self->s = copyinstr(self->p) at return, on a
#    process that rewrites the string right after the call: the bytes
#    at the hit ("before-i"), where DTRACE_CGEN=0 (and this tree
#    before VKEY, which left the clause and the variable to user
#    space) reads the string after the hits;
#  - where the memory does not change, byte for byte DTRACE_CGEN=0's
#    output at strsize 256 and 16: strings empty, of 254, 255 and 300
#    bytes (cut to strsize - 1, all of it kept: no key cut short),
#    bytes that are not printable; a variable unset ("" key) and one
#    set from a literal or cleared; a store that faulted (the key
#    keeps what the variable had, the fault reported as user space
#    reports it); with an integer key beside it and sum(), max(),
#    quantize(); a this-> string stored from copyinstr(self->p) keyed
#    with another key, and one unset at the probe; a this-> string
#    key in a program whose kernel keeps self-> variables (where
#    copyinstr(argN) keys are user space's) beside a string
#    predicate's fault sites;
#  - keys whose string ends within kaggs_w's 32 bytes and longer ones
#    (kaggs_v), 30 to 33 bytes, each a prefix of the next, a short one
#    over a long one: each counted on its own, as DTRACE_CGEN=0;
#  - a pair's two strings each within 32 bytes of their rooms keyed by
#    those 64 bytes (kaggs_x), the others by the rooms (kaggs_v);
#  - two string keys in one statement (kplan.c's vkey_pair()): two
#    string variables the kernel's, their rooms side by side, at
#    strsize 16 and 256 (two rooms of 256 bytes: cgbuf's key room,
#    cgen.c's cg_room_off()); on cgout cut's strings at 256 and 9 (each
#    hit's string paired with the last one's, both rooms full and
#    differing at their last byte, a variable beside execname, the
#    faults of the copy at the hit); exact, this tree before left
#    such pairs at 256 to user space (-v); execname, literals, a ?: of literals or with execname and
#    a this-> string in pairs, on a process renaming itself (cgout
#    rename: "", 15 bytes, a tab, UTF-8), "ab" "c" apart from "a" "bc",
#    each string tainted by its kind (execname's tab escaped, a
#    literal's not), beside a lone execname key (kaggs_w at strsize
#    64, where the pairs are kaggs_v's alone), three ways (the
#    generated program, DTRACE_KAGG=0, DTRACE_CGEN=0) byte for byte at
#    strsize 64 and 256, and at 9 (execname's NUL past its room of 8),
#    -v counting the clauses (this tree before left every pair to user
#    space);
#  - string variables compared with one another (VVCMP): this-> with
#    this->, self-> with this->, self-> with self-> ordered, == != <
#    > <= >= in strcmp()'s order (bytes above 0x7f, prefixes, "",
#    strings equal up to strsize - 1 bytes at 256 and 16), byte for
#    byte DTRACE_CGEN=0's and as expected, counted by -v;
#  - a self-> string compared with copyinstr(arg0) (VACMP), == and !=
#    either way round, in predicates and an integer key's ?: (cgout
#    cut: strings of strsize - 2, strsize - 1, strsize and more bytes,
#    equal up to the cut or differing at it, at strsize 256, 8 and 2;
#    strings running into an unreadable page, the fault the kernel's
#    fault site reports where a read of strsize - 1 bytes reaches the
#    page and none where it stops before), byte for byte
#    DTRACE_CGEN=0's, messages and ERROR included, and as expected;
#  - a self-> or this-> string ordered against copyinstr(arg0) and
#    against literals (< <= > >=, VACMP's and VSEQ's order), byte for
#    byte DTRACE_CGEN=0's on cut's, order's, pair's and pack's strings;
#  - a dead this-> string (stored, never read) holding a function of
#    two copyinstr()s: the kernel makes both copies in run.c's order,
#    the first fault ending the clause with its address, byte for byte
#    DTRACE_CGEN=0's, messages and ERROR included;
#  - a self-> string holding basename() of a copy (kplan_fkey.c's
#    self-> format-time variables), keyed and tested against NULL and
#    "": an unset one ("", the key marked) apart from a leaf "" stored
#    (".": keep's empty string), byte for byte DTRACE_CGEN=0's;
#  - -v counts the clauses aggregated in the kernel, so each case
#    fails on a tree that left them to user space.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup

# same NAME D-FILE CMD COUNT: the script on ./cgout CMD at strsize 256
# and 16, with the generated program and DTRACE_CGEN=0 (NAME.1.txt and
# NAME.0.txt at 256, NAME-16.1.txt and NAME-16.0.txt at 16), byte for
# byte, the faults reported alike; COUNT clauses aggregated in the
# kernel (COUNT empty: not asked).  same_bg NAME D-FILE CMD starts its
# four runs (lib.sh's run_bg: side by side, with other cases' too),
# same_check NAME COUNT makes its checks after run_join.
same() {
	same_bg "$1" "$2" "$3"
	run_join
	same_check "$1" "$4"
}

# errors FILE [RE]: FILE's ERROR clause lines (those RE matches, else
# every '^ERROR '), each distinct one with its count, joined by |
errors() {
	grep "${2:-^ERROR }" "$1" | sort | uniq -c | sed 's/^ *//' |
		paste -sd'|' -
}

# pair_same NAME COUNT WHAT FAULTS: same for NAME.d on ./cgout pair, and
# at 256 and 16 its ERROR lines FAULTS (errors())
pair_same() {
	same_bg "$1" "$1.d" pair
	run_join
	same_check "$1" "$2"
	for xo in '' '-x strsize=16'; do
		expect_eq "$3${xo:+ ($xo)}: the faults" "$4" \
			"$(errors "$1${xo:+-16}.1.txt")"
	done
}
same_bg() {
	for xo in '' '-x strsize=16'; do
		sm_o=$1${xo:+-16}
		run_bg 1 "$sm_o.1.txt" "$3" -s "$2" $xo
		run_bg 0 "$sm_o.0.txt" "$3" -s "$2" $xo
	done
}
same_check() {
	name=$1 count=$2
	for xo in '' '-x strsize=16'; do
		w="$name${xo:+ ($xo)}"
		sm_o=$name${xo:+-16}
		expect_file_eq "$w: DTRACE_CGEN=0's output" \
			"$sm_o.0.txt" "$sm_o.1.txt"
		expect_eq "$w: the faults reported" \
			"$(grep 'error on enabled probe' "$sm_o.0.txt.err" |
				sed 's/pid[0-9]*:/pid:/')" \
			"$(grep 'error on enabled probe' "$sm_o.1.txt.err" |
				sed 's/pid[0-9]*:/pid:/')"
		[ -n "$count" ] || continue
		if [ "$count" = 1 ]; then
			c='1 clause'
		else
			c="$count clauses"
		fi
		expect_grep "$w: -v" \
			"^dtrace: $c aggregated in the kernel\$" \
			"$sm_o.1.txt.err"
	done
}

# leaf_faults WHAT FILE: dead.d's and prn.d's ERROR lines in FILE (pair's
# 0x10 on either side in the first two clauses, at each one's copy;
# every hit's first leaf in the third, its second never)
leaf_faults() {
	# (ERROR's epid, action, -1, invalid address, the address)
	expect_eq "$1: the faults" '2 ERROR 1 1 -1 1 0x10|2 ERROR 2 3 -1 1 0x10' \
		"$(errors $2 '^ERROR [12] ')"
	expect_eq "$1: each hit's first leaf's fault" 8 \
		"$(grep -c '^ERROR 3 1 -1 1 0x10[0-7]$' $2)"
	expect_eq "$1: no second leaf's" 0 "$(grep -c '^ERROR 3 .* 0x20' $2)"
}

# The bytes at the hit: the process rewrites its string right after
# hit() returns ("after-i"); the return's copy through self->p is
# "before-i", where DTRACE_CGEN=0 (and this tree before VKEY, which
# left the clause and the variable to user space) reads the process
# when it runs the record, later.
cat >late.d <<'EOF2'
pid$target::hit:entry { self->p = arg0; }
pid$target::hit:return { self->s = copyinstr(self->p); @[self->s] = count(); }
EOF2
run_bg 1 late1.txt 'rewrite 12' -s late.d
run_bg 0 late0.txt 'rewrite 12' -s late.d
run_join
: >late.exp
i=0
while [ $i -lt 12 ]; do
	echo "before-$i" >>late.exp
	i=$((i + 1))
done
expect_eq "keyed by a self-> string: the bytes at the hit" \
	"$(cat late.exp)" \
	"$(awk 'NF == 2 && $2 == 1 { print $1 }' late1.txt | sort -t- -k2n)"
expect_grep "keyed by a self-> string: -v" \
	'^dtrace: 2 clauses aggregated in the kernel$' late1.txt.err
# (one of 12 at the hit in a CI run, where this asked for none)
late_some "keyed by a self-> string: DTRACE_CGEN=0 reads later" 12 \
	late0.txt 'before-'

# The scripts below on keep's and refault's strings (self.d, lit.d,
# this.d, tls.d) run together, one dtrace run each way and strsize for
# keep's (all four) and one for refault's (all but lit.d), each with
# its own variables and aggregations, so that none sees another's:
# each script's output is still all of DTRACE_CGEN=0's, byte for byte,
# and -v counts all of their clauses.
#
# self-> strings: set, unset (the first entry's @u), cut by strsize,
# not printable, beside an integer key; a store that faulted (refault:
# the second string is at 0x10) leaves the key what it was.
cat >self.d <<'EOF2'
pid$target::hit:entry { @u[self->s] = count(); self->s = copyinstr(arg0); }
pid$target::hit:return
{
	@[self->s] = count();
	@s[self->s, arg1] = sum(arg1);
	@m[arg1 & 1, self->s] = max(arg1);
	@q[self->s] = quantize(arg1);
}
EOF2

# A literal, a clear (the key ""), and a variable of another clause.
cat >lit.d <<'EOF2'
pid$target::hit:entry { self->ls = "lit"; @l[self->ls] = count(); }
pid$target::hit:entry /arg1 == 2/ { self->ls = 0; }
pid$target::hit:entry /arg1 >= 2/ { @l[self->ls] = count(); }
pid$target::hit:return { @lr[self->ls, 1] = count(); self->lt = self->ls; }
pid$target::hit:return /arg1 == 3/ { @lt[self->lt] = count(); }
EOF2

# this-> strings: stored from copyinstr(self->p), keyed with another
# key; one never set at the probe ("").
cat >this.d <<'EOF2'
pid$target::hit:entry { self->p = arg0; }
pid$target::hit:return
{
	this->s = copyinstr(self->p);
	@h[this->s, tid - pid] = sum(arg1);
	@hn[this->t, arg1] = count();
}
pid$target::hit:entry { this->t = copyinstr(arg0); @he[this->t] = count(); }
EOF2

# A this-> string key where the kernel keeps self-> variables (a
# copyinstr(argN) key stays user space's there), beside a string
# predicate's fault sites.
cat >tls.d <<'EOF2'
pid$target::hit:entry /arg1 != 99/
{
	self->n = arg1;
	this->ts = copyinstr(arg0);
	@ts[this->ts] = sum(self->n);
}
pid$target::hit:entry /copyinstr(arg0) != "zzz"/ { @tf[arg1] = count(); }
EOF2
# (self.d first: its entry clause is enabled probe 1)
cat self.d lit.d this.d tls.d >keep.d
cat self.d this.d tls.d >refault.d
same_bg keep keep.d keep
same_bg refault refault.d refault
run_join
same_check keep 12
same_check refault 7
expect_grep "a store that faulted (self.d): the message" \
	'enabled probe ID 1 .*invalid address (0x10) in action #3$' \
	refault.1.txt.err

# String variables compared with one another in the kernel (VVCMP:
# cgen_svar.c's vvcmp()): this-> with this->, self-> with this-> and
# back, == != < > <= >= in strcmp()'s order, in printf() arguments and
# predicates, on strings that are prefixes of one another, with bytes
# above 0x7f, unset (""), equal up to 20 bytes (equal at strsize 16)
# and up to 290 (equal at 256, cut); self-> with self-> ordered.
cat >ord.d <<'EOF2'
pid$target::hit:entry { self->s = copyinstr(arg0); this->t = copyinstr(arg0); this->u = self->p; }
pid$target::hit:entry
{
	printf("%d %d%d%d%d%d%d %d%d%d%d%d%d\n", arg1,
	    this->t == this->u, this->t != this->u, this->t < this->u,
	    this->t > this->u, this->t <= this->u, this->t >= this->u,
	    self->s == this->u, self->s != this->u, self->s < this->u,
	    self->s > this->u, this->u <= self->s, this->u >= self->s);
}
pid$target::hit:entry /self->s > self->p/ { @up[self->s] = count(); }
pid$target::hit:entry /this->u >= this->t/ { @dn[this->t] = count(); }
pid$target::hit:entry { self->p = self->s; }
EOF2
# (run on order's strings with vord.d below, one run each way and
# strsize: ordv)

# Keys short and long (kaggs_w and kaggs_v, cgen_agg.c's agg_at()):
# strings of 30, 31, 32 and 33 bytes, each a prefix of the next, the
# first three ending within kaggs_w's UBPF_KVSHORT (32) bytes with
# their NUL and the last not; a short one stored over a long one (the
# bytes past its NUL 0 in the key); copyinstr()'s and an unset one;
# count(), sum() with an integer key, quantize(); at strsize 256 and
# 40 (both longer than 32: the two maps), byte for byte DTRACE_CGEN=0's,
# each key counted on its own (a key cut to 32 bytes would merge the
# 32's and 33's).
a30=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
cat >short.d <<EOF2
pid\$target::hit:entry /arg1 == 1/ { self->s = "${a30}"; }
pid\$target::hit:entry /arg1 == 2/ { self->s = "${a30}b"; }
pid\$target::hit:entry /arg1 == 3/ { self->s = "${a30}bc"; }
pid\$target::hit:entry /arg1 == 4/ { self->s = "${a30}bcd"; }
pid\$target::hit:entry /arg1 == 5/ { self->s = "e"; }
pid\$target::hit:entry /arg1 == 6/ { self->s = copyinstr(arg0); }
pid\$target::hit:entry { @[self->s] = count(); @s[self->s, arg1] = sum(arg1); }
pid\$target::hit:return { @[self->s] = count(); @q[self->s] = quantize(arg1); }
EOF2
# keep_same NAME WHAT [DTRACE-ARGS]: ../NAME.d on cgout keep, generated
# and DTRACE_CGEN=0 (NAME.1.txt, NAME.0.txt), byte for byte; w is WHAT
# with the arguments.  (Each strsize in its own directory, the two side
# by side: cgout_bg.)
keep_same() {
	w="$2${3:+ ($3)}"
	run_bg 1 "$1.1.txt" keep -s "../$1.d" $3
	run_bg 0 "$1.0.txt" keep -s "../$1.d" $3
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" "$1.0.txt" "$1.1.txt"
}
short_case() {
	keep_same short "short and long keys" "$1"
	expect_eq "$w: the counts" \
		"${a30} 2|${a30}b 2|${a30}bc 2|${a30}bcd 2|e 2" \
		"$(awk 'NF == 2 && $2 == 2 { print $1, $2 }' short.1.txt |
			paste -sd'|' -)"
	expect_grep "$w: -v" '^dtrace: 8 clauses aggregated in the kernel$' \
		short.1.txt.err
}
cgout_bg short short_case ''
cgout_bg short-40 short_case '-x strsize=40'

# Short pairs (kaggs_x, cgen_agg.c's "Short pairs"): a statement's two
# string keys whose strings each end within 32 bytes of their rooms are
# keyed by those 64 bytes, the others by the rooms whole (kaggs_v):
# short.d's strings of 30 to 33 bytes paired with the last hit's, with
# execname before (its room of 16 bytes, the second's moved up) and a
# ?: of literals after (a room of 8), at strsize 256 and 40; byte for
# byte DTRACE_CGEN=0's, each pair counted on its own, and -v's entries
# read from both maps (a pair cut to 32 bytes a string would merge the
# 32's and 33's; one never short would read none from kaggs_x).
{
	head -n 6 short.d # its stores
	cat <<'EOF2'
pid$target::hit:entry { @p[self->s, self->t] = count(); @e[execname, self->s] = sum(arg1); @l[self->s, arg1 & 1 ? "odd" : "even"] = max(arg1); self->t = self->s; }
EOF2
} >spair.d
spair_case() {
	keep_same spair "short pairs" "$1"
	expect_grep "$w: -v" '^dtrace: 7 clauses aggregated in the kernel$' \
		spair.1.txt.err
	expect_grep "$w: entries in kaggs_v and kaggs_x" \
		'^dtrace: BPF: string keys read from the kernel: kaggs_v [1-9][0-9]*, kaggs_w [0-9]*, kaggs_x [1-9][0-9]*$' \
		spair.1.txt.err
}
cgout_bg spair spair_case ''
cgout_bg spair-40 spair_case '-x strsize=40'

# Two string keys in one statement: the kernel keeps both, their rooms
# side by side in the key (kplan.c's vkey_pair()), at 16 and at 256
# (two rooms of 256 bytes, in cgbuf's key room past its owner word:
# this tree before left the clause at 256 to user space).
cat >two.d <<'EOF2'
pid$target::hit:entry { self->s = copyinstr(arg0); self->t = self->s; }
pid$target::hit:return { @[self->s, self->t] = count(); }
pid$target::hit:return { @o[arg1] = count(); }
EOF2
two_case() {
	xo=$1
	run_bg 1 two1.txt keep -s ../two.d $xo
	run_bg 0 two0.txt keep -s ../two.d $xo
	run_join
	expect_file_eq "two string keys${xo:+ ($xo)}: DTRACE_CGEN=0's output" \
		two0.txt two1.txt
	expect_grep "two string keys${xo:+ ($xo)}: -v" \
		'^dtrace: 3 clauses aggregated in the kernel$' two1.txt.err
}
cgout_bg two two_case ''
cgout_bg two-16 two_case '-x strsize=16'

# Pairs of execname, literals, ?: keys and a this-> string
cat >pair.d <<'EOF2'
pid$target::hit:entry { this->s = execname; @v[this->s, "lit\t1"] = count(); }
pid$target::hit:entry
{
	@c[execname, probefunc] = count();
	@l[probename == "entry" ? "in" : "out", execname] = count();
	@e["ab", "c"] = count();
	@e["a", "bc"] = count();
	@m[arg1 & 1 ? execname : "even\tno", arg1 > 3 ? "big" : execname] =
	    sum(arg1);
	@one[execname] = count();
}
pid$target::hit:return
{
	@l[probename == "entry" ? "in" : "out", execname] = count();
	@x[execname, arg1, execname] = max(arg1);
}
EOF2
pair_case() {
	xo=$1
	w="pairs of string keys ($xo)"
	# at 256 the this-> string's pair with its literal passes kaggs_v's
	# room: the literal is a 0 in the kernel's key, the merge makes it
	# again (kplan_fkey.c), so the clause is the kernel's either way
	late= n=3
	[ "$xo" = '-x strsize=64' ] || late=1
	DTRACE_KAGG=0 run_bg 1 pairu.txt rename -s ../pair.d $xo
	run_bg 1 pair1.txt rename -s ../pair.d $xo
	run_bg 0 pair0.txt rename -s ../pair.d $xo
	late=
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" pair0.txt pair1.txt
	expect_file_eq "$w: DTRACE_KAGG=0's output" pairu.txt pair1.txt
	expect_grep "$w: -v" "^dtrace: $n clauses aggregated in the kernel\$" \
		pair1.txt.err
	expect_eq "$w: apart" 2 \
		"$(grep -c -e '^  ab  *c  *10$' -e '^  a  *bc  *10$' pair1.txt)"
	expect_eq "$w: each string's taint" 3 \
		"$(grep -c -e '^  tab\\there  *lit	1  *1$' \
			-e '^  even	no  *big  *18$' \
			-e '^  out  *tab\\there  *1$' pair1.txt)"
}
for xo in '-x strsize=64' '-x strsize=256'; do
	cgout_bg "pair-${xo#-x strsize=}" pair_case "$xo"
done
# ... at strsize 9, where execname's 9 bytes (8 and the helper's NUL)
# pass its room of 8: lone and in pairs, first and second, a literal
# filling its room before execname's, three ways alike; and "" in a
# pair (no room of its own: taken as a pair, it made the event's
# program the code generator's refusal, and the run with it; so it was
# user space's, and is the kernel's since as a 0 in the key, made
# again by the merge: kplan_fkey.c); and two
# pairs that fit, refused for another reason, which -v says (main said
# "a second string key, of a pair the kernel does not keep"): a global
# key after the pair (one END stores: a global only BEGIN stores is the
# run's constant, a 0 in the kernel's key: kplan_fkey.c), and the pair
# in a clause with an if statement
cat >pair9.d <<'EOF2'
int glob;
pid$target::hit:entry { @a[execname] = count(); @m[arg1 & 1 ? execname : "x"] = count(); }
pid$target::hit:entry { @p[execname, arg1 & 1 ? execname : "yy"] = count(); @q["abcdefgh", execname] = count(); }
pid$target::hit:entry { self->n += 1; @z[execname, ""] = sum(self->n); }
pid$target::hit:entry { @g[execname, "z", glob] = count(); }
pid$target::hit:entry { if (arg1 > 2) { @h[execname, "z"] = count(); } }
END { glob = 1; }
EOF2
pair9_case() {
	w="pairs of string keys (strsize 9)"
	late=1
	DTRACE_KAGG=0 run_bg 1 pair9u.txt rename -s ../pair9.d -x strsize=9
	run_bg 1 pair91.txt rename -s ../pair9.d -x strsize=9
	run_bg 0 pair90.txt rename -s ../pair9.d -x strsize=9
	late=
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" pair90.txt pair91.txt
	expect_file_eq "$w: DTRACE_KAGG=0's output" pair9u.txt pair91.txt
	expect_grep "$w: -v" '^dtrace: 3 clauses aggregated in the kernel$' \
		pair91.txt.err
	expect_grep "$w: the literal's room full" '^  abcdefgh  *Z  *1$' \
		pair91.txt
	expect_grep "$w: -v, a key after the pair" \
		'^dtrace: clause 4 (pid[0-9]*::hit:entry) runs in user space, from its record: line 5: its @g = count() is not one the kernel runs: key 3: glob is a global variable that clause 4 reads or stores at a probe: the kernel keeps self-> and this-> variables, and a global only where the probes. clauses add to it alone (+=, -=, ++, --) and BEGIN, END and tick-N clauses read it, or BEGIN alone stores it$' \
		pair91.txt.err
	expect_grep "$w: -v, the pair beside an if" \
		"^dtrace: clause 5 (pid[0-9]*::hit:entry) runs in user space, from its record: line 6: its @h = count() is not one the kernel runs: key 2: a second string key, whose pair the kernel keeps only in a clause without if statements\$" \
		pair91.txt.err
}
cgout_bg pair-9 pair9_case

# A self-> string compared with copyinstr(arg0) (kplan_str.c's
# kp_svar_acmp(), cgen_svar.c's vacmp()), each hit's string with the
# last one's: the argument read as d_read_user_str() reads it (at most
# strsize - 1 bytes, so a string of strsize - 1 bytes equals a longer
# one with the same first bytes, and one of strsize - 2 does not), a
# fault site reporting a string that runs into an unreadable page where
# those bytes reach it (cgout cut: 6 bytes before it fault at strsize
# 8, 7 do not; at 256 all of them), the clause left there as run.c
# leaves it.  This tree before kept all four clauses in user space.
# cut_both NAME W XOPTS...: ../NAME.d (in a case's directory, cgout_bg)
# on cgout's cut strings with the generated program and DTRACE_CGEN=0
# side by side (NAME1.txt, NAME0.txt), the unreadable page's address made
# PAGE (NAMEg.cmp) and the fault messages kept (NAMEg.msg): the two the
# same, and -v counting every pid$target clause of NAME.d in the kernel
cut_both() {
	cb_n=$1 cb_w=$2
	shift 2
	for g in 1 0; do
		rm -f addr$g.txt
		run_bg $g $cb_n$g.txt "cut $PWD/addr$g.txt" -s ../$cb_n.d "$@"
	done
	run_join
	for g in 1 0; do
		pg=$(cat addr$g.txt)
		sed "s/$pg/PAGE/" $cb_n$g.txt >$cb_n$g.cmp
		grep 'error on enabled probe' $cb_n$g.txt.err |
			sed "s/pid[0-9]*:/pid:/; s/$pg/PAGE/" >$cb_n$g.msg
	done
	expect_file_eq "$cb_w: DTRACE_CGEN=0's output" ${cb_n}0.cmp \
		${cb_n}1.cmp
	expect_file_eq "$cb_w: DTRACE_CGEN=0's messages" ${cb_n}0.msg \
		${cb_n}1.msg
	expect_grep "$cb_w: -v" "^dtrace: $(grep -c '^pid\$target' \
		../$cb_n.d) clauses aggregated in the kernel\$" ${cb_n}1.txt.err
}
cat >vacmp.d <<'EOF2'
pid$target::hit:entry /self->s == copyinstr(arg0)/ { @eq[arg1] = count(); }
pid$target::hit:entry /copyinstr(arg0) != self->s/ { @ne[arg1] = count(); }
pid$target::hit:entry { @k[arg1, self->s == copyinstr(arg0) ? 1 : 2] = count(); }
pid$target::hit:entry { self->s = copyinstr(arg0); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# (run with vord.d below, at 256, 8 and 2: vv.d)
# ... on the right of && and ||, skipped where the left decides (SC),
# as run.c skips it, faulting where it does not
cat >vacmpsc.d <<'EOF2'
pid$target::hit:entry /arg1 > 20 && self->s == copyinstr(arg0)/ { @a[arg1] = count(); }
pid$target::hit:entry /arg1 < 22 || copyinstr(arg0) != self->s/ { @b[arg1] = count(); }
pid$target::hit:entry { self->s = copyinstr(arg0); }
dtrace:::ERROR { printf("ERROR %d %d %d %d\n", arg1, arg2, arg3, arg4); }
EOF2
vacmpsc_case() {
	xo=$1
	w="string variable and copyinstr() after && ||${xo:+ ($xo)}"
	for g in 1 0; do
		run_bg $g vacmpsc$g.txt "cut $PWD/addr$g.txt" -s ../vacmpsc.d $xo
	done
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" vacmpsc0.txt vacmpsc1.txt
	expect_grep "$w: -v" '^dtrace: 3 clauses aggregated in the kernel$' \
		vacmpsc1.txt.err
	f=18
	[ -z "$xo" ] || f=1
	expect_eq "$w: faults" $f "$(grep -c '^ERROR' vacmpsc1.txt)"
}
cgout_bg vacmpsc vacmpsc_case ''
cgout_bg vacmpsc-8 vacmpsc_case '-x strsize=8'

# Two string variables as the keys of one statement at strsize 256 (two
# rooms of 256 bytes side by side, kaggs_v's key built in cgbuf's key
# room), on cut's strings: each hit's string paired with the last one's,
# so rooms full to their last byte (255 bytes, 255 differing at byte
# 254, 256 and 300 equal to them up to the cut) in either room, "" in
# either; a variable beside execname (a room of 256 and one of 16, past
# the 256 bytes of one room too); a copy that faults ends the clause at
# the hit (the kernel's fault site), as run.c.  At 9 the same rooms of
# 8.  Byte for byte DTRACE_CGEN=0's, ERROR's messages included, every
# clause the kernel's (this tree before left those at 256 to user space).
cat >vpair.d <<'EOF2'
pid$target::hit:entry { this->c = copyinstr(arg0); @p[self->s, this->c] = count(); @e[this->c, execname] = sum(arg1); self->s = this->c; }
pid$target::hit:return { @r[self->s, self->s, arg1 & 1] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
vpair_case() {
	cut_both vpair "two string variables as keys${1:+ ($1)}" $1
	# (strings of 6 to 254 bytes before the page: 9 reads 8 of them)
	f=7
	[ -z "$1" ] || f=2
	expect_eq "two string variables as keys${1:+ ($1)}: faults" $f \
		"$(grep -c '^ERROR' vpair1.txt)"
}
cgout_bg vpair vpair_case ''
cgout_bg vpair-9 vpair_case '-x strsize=9'

# Three string variables as the keys of one statement (kplan.c's
# vkey_third(): a pair's rooms and a third after them, three rooms of 256
# bytes at strsize 256, kaggs_v's key 808 bytes), on cut's strings: each
# hit's string beside the last two, so every room full to its last byte
# and differing there, or "", in each position; a pair of this-> and
# execname with a variable third, beside an integer key; the same
# variable twice; an argument's string first or second (AKEY, its
# copy's faults the kernel's fault sites, the clause ended at the hit).
# And the Ruby toolkit's rb_malloc.d shape, a self->
# basename() (kplan_fkey.c's format-time variable: unset apart from ""),
# a ?: of literals and a strjoin() as one key, tested against NULL,
# beside literal keys.  At 9 the same rooms of 8.  Byte for byte
# DTRACE_CGEN=0's, ERROR's messages included, every clause the kernel's
# (-v; this tree before left the three-string statements' clauses, and
# those tied to their variables, to user space).
cat >tri.d <<'EOF2'
pid$target::hit:entry { this->c = copyinstr(arg0); @t[self->s2, self->s, this->c] = count(); @u[this->c, execname, self->s2, arg1 & 3] = sum(arg1); self->s2 = self->s; self->s = this->c; }
pid$target::hit:return { @r[self->s, self->s2, self->s] = count(); }
pid$target::hit:return { @a[copyinstr(arg0), self->s, self->s2] = count(); @b[self->s, copyinstr(arg0), self->s2, arg1 & 1] = sum(arg1); }
pid$target::hit:entry /arg1 % 3/ { self->f = basename(copyinstr(arg0)); self->t = arg1 & 1 ? "odd" : "even"; self->n = strjoin(copyinstr(arg0), "::x"); }
pid$target::hit:return /self->f != NULL/ { @m[self->f, self->t, self->n] = quantize(arg1); }
pid$target::hit:return /self->f == NULL/ { @m["ruby", "startup", "-"] = quantize(arg1); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
tri_case() {
	cut_both tri "three string variables as keys${1:+ ($1)}" $1
	# (hit 7: cut's strings 5, 6 and 7, the last cut to 8 bytes at 9)
	t3=abcdefgXYZ
	[ -z "$1" ] || t3=abcdefgX
	expect_grep "three string variables as keys${1:+ ($1)}: all three" \
		"^ *abcdefgh *abcdefgX *$t3 *1\$" tri1.cmp
	# no kaggs_x where no statement is a pair: a triple's keys are
	# never short (this tree before made the map all the same)
	expect_grep "three string variables as keys${1:+ ($1)}: -v, the maps" \
		'^dtrace: BPF: string keys read from the kernel: kaggs_v [1-9][0-9]*\(, kaggs_w [0-9]*\)\{0,1\}$' \
		tri1.txt.err
}
cgout_bg tri tri_case ''
cgout_bg tri-9 tri_case '-x strsize=9'
# ... but not four, nor a third that is no variable: user space's, and
# -v says which key (this tree before: "key 1, a string the kernel does
# not key by", the variables not kept because the clause was not); the
# output byte for byte DTRACE_CGEN=0's
cat >quad.d <<'EOF2'
pid$target::hit:entry { self->a = copyinstr(arg0); self->b = "x"; self->c = self->a; self->d = "y"; }
pid$target::hit:return { @q[self->a, self->b, self->c, self->d] = count(); }
EOF2
cat >trix.d <<'EOF2'
pid$target::hit:entry { self->a = copyinstr(arg0); self->b = "x"; }
pid$target::hit:return { @e[self->a, self->b, execname] = count(); }
EOF2
late=1 # (clause 2 is user space's)
same_bg quad quad.d pair
same_bg trix trix.d pair
late=
run_join
same_check quad ""
same_check trix ""
expect_grep "four string variables as keys: -v names the keys" \
	'^dtrace: clause 2 (.*) runs in user space, from its record: .*: its 4 string keys (the kernel keys by three at most, the third a string variable)$' \
	quad.1.txt.err
expect_grep "execname the third string key: -v names it" \
	'^dtrace: clause 2 (.*) runs in user space, from its record: .*: key 3: a third string key, which the kernel keys by only where it is a string variable$' \
	trix.1.txt.err

# A string variable ordered against copyinstr(arg0) (VACMP with an
# order, cgen_svar.c's vacmp_ord(): both zero-padded, the argument cut
# to strsize - 1 bytes as copyinstr() cuts it), < <= > >= either way
# round, in predicates and an integer key's ?:.  self->: on cut's
# strings (strsize - 2, - 1, strsize and more bytes; strings running
# into an unreadable page, the kernel's fault sites) at 256, 9, 8 and 2,
# and on order's (bytes above 0x7f, prefixes, "") at 256 and 16;
# this-> (no fault sites: a string that cannot be read sends the hit
# to user space) on pair's and pack's, beside == (this tree before
# failed the verifier there: seq_stack()'s copy on the stack where
# vacmp() reads cgbuf's).  Byte for byte DTRACE_CGEN=0's, messages and
# ERROR included; this tree before left every such clause to user
# space (-v).
cat >vord.d <<'EOF2'
pid$target::hit:entry /self->s < copyinstr(arg0)/ { @lt[arg1] = sum(1000); }
pid$target::hit:entry /copyinstr(arg0) <= self->s/ { @ge[arg1] = count(); }
pid$target::hit:entry { @k[arg1, self->s > copyinstr(arg0) ? 1 : 2, copyinstr(arg0) >= self->s ? 3 : 4] = count(); }
pid$target::hit:entry { self->s = copyinstr(arg0); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# vacmp.d and vord.d run as one at 256, 8 and 2 (vv.d: vord.d's
# self->s made self->v, its aggregations renamed, the ERROR clause once;
# vacmp.d's clauses first, enabled probes 1 to 4), vord.d alone at 9
grep -v '^dtrace:::ERROR' vacmp.d >vv.d
sed 's/self->s/self->v/g; s/@lt/@vlt/; s/@ge/@vge/; s/@k/@vk/' vord.d >>vv.d
# (each strsize in its own directory, side by side: cgout_bg)
vord_case() {
	xo=$1
	w="string variable ordered with copyinstr()${xo:+ ($xo)}"
	vn=vv vw="vacmp.d and vord.d${xo:+ ($xo)}"
	[ "$xo" != '-x strsize=9' ] || vn=vord vw=$w
	cut_both $vn "$vw" $xo
	if [ $vn = vv ]; then
		w="string variable and copyinstr()${xo:+ ($xo)}"
		# vacmp.d's hits equal to the one before (@k's key 1), and
		# its faults
		case $xo in
		'') e='0 1 3 11 15 17 20 22 24 26 28 30' f=7 ;;
		*=8) e='0 1 3 5 6 7 11 12 13 14 15 16 17 20 21 22 23 24 25 26 27'
		   e="$e 28 29 30 31" f=1 ;;
		*) e='0 1 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 19 20 21 22 23'
		   e="$e 24 25 26 27 28 29 30 31" f=0 ;;
		esac
		expect_eq "$w: equal" "$e" \
			"$(awk 'NF == 3 && $2 == 1 { print $1 }' vv1.cmp |
				sort -n | paste -sd' ' -)"
		expect_eq "$w: faults" "$((4 * f))" \
			"$(grep -c '^ERROR [1-4] .* -1 1 PAGE$' vv1.cmp)"
		w="string variable ordered with copyinstr()${xo:+ ($xo)}"
	fi
	# @lt's hits up to 17: the last string below this one's, each cut
	# to strsize - 1 bytes ("abcdefgh" and "abcdefgX" at 8, 255 and
	# 256 'a's at 256, equal)
	case $xo in
	'') e='2 4 5 7 12 13 16' ;;
	*=9) e='2 4 5' ;;
	*=8) e='2 4' ;;
	*) e='2' ;;
	esac
	expect_eq "$w: less" "$e" \
		"$(awk 'NF == 2 && $2 == 1000 && $1 < 18 { print $1 }' \
			${vn}1.cmp | sort -n | paste -sd' ' -)"
}
for xo in '' '-x strsize=9' '-x strsize=8' '-x strsize=2'; do
	cgout_bg "vord${xo:+-${xo#-x strsize=}}" vord_case "$xo"
done
# ord.d above and vord.d (its self->s made self->v, its aggregations
# renamed) on order's strings, one run each way and strsize: 8
# clauses aggregated in the kernel (4 each), ord.d's printf() the
# kernel's too; ord.d's lines as expected
sed 's/self->s/self->v/g; s/@lt/@vlt/; s/@ge/@vge/; s/@k/@vk/' vord.d |
	cat ord.d - >ordv.d
cat >tord.d <<'EOF2'
pid$target::hit2:entry { this->s = copyinstr(arg2); }
pid$target::hit2:entry /this->s < copyinstr(arg0)/ { @lt[arg1] = count(); }
pid$target::hit2:entry /this->s == copyinstr(arg0)/ { @eq[arg1] = count(); }
pid$target::hit2:entry { @k[arg1, copyinstr(arg0) > this->s, this->s >= copyinstr(arg0), copyinstr(arg0) <= this->s] = count(); }
EOF2
same_bg ordv ordv.d order
same_bg tordp tord.d pair
same_bg tordk tord.d pack
run_join
same_check ordv 8
for xo in '' '-x strsize=16'; do
	w="string variables ordered${xo:+ ($xo)}"
	ov=ordv${xo:+-16}.1.txt
	expect_grep "$w: -v" \
		'^dtrace: 1 clause printing values computed in the kernel$' \
		$ov.err
	if [ -z "$xo" ]; then e8='010101 010110'; else e8='100011 100011'; fi
	# each line: the hit, t OP u and s OP u (== != < > <= >=), u
	# the last hit's string ("" at the first)
	e="0 010101 010110|1 010101 010110|2 011010 011001"
	e="$e|3 010101 010110|4 011010 011001|5 011010 011001"
	e="$e|6 010101 010110|7 011010 011001|8 $e8|9 010101 010110"
	e="$e|10 100011 100011|11 010101 010110|12 011010 011001"
	e="$e|13 011010 011001"
	expect_eq "$w: the output" "$e" \
		"$(grep '^[0-9]' $ov | paste -sd'|' -)"
done
same_check tordp 4
same_check tordk 4

# A dead this-> string (kplan_fkey.c's format-time variables): stored,
# never read, as the toolkit's pl_syscolors.d, py_syscolors.d and
# php_syscolors.d store this->name = strjoin(strjoin(copyinstr(arg1),
# "::"), copyinstr(arg0)).  The kernel makes each copyinstr() of the
# store in run.c's order and keeps nothing else of it; the first that
# faults ends the clause there, reported as run.c reports it (its
# action, its address, ERROR's arguments): pair's 0x10 on either side,
# and two leaves that both fault (0x100 + i before 0x200 + i).  Byte for
# byte DTRACE_CGEN=0's at 256 and 16; this tree before left these
# clauses to user space ("a string the kernel does not keep").
cat >dead.d <<'EOF2'
pid$target::hit2:entry { this->n = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg2)); @c[arg1] = count(); }
pid$target::hit2:entry { @s[arg1] = sum(arg1); this->n = toupper(strjoin(substr(copyinstr(arg2), 1), copyinstr(arg0))); printf("%d\n", arg1); }
pid$target::hit2:entry { this->m = strjoin(copyinstr(arg1 + 0x100), basename(copyinstr(arg1 + 0x200))); @m[arg1] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
same_bg dead dead.d pair
run_join
same_check dead 2
for xo in '' '-x strsize=16'; do
	w="a dead this-> string${xo:+ ($xo)}"
	d1=dead${xo:+-16}.1.txt
	expect_grep "$w: -v, the printing clause" \
		'^dtrace: 1 clause printing values computed in the kernel$' \
		$d1.err
	leaf_faults "$w" $d1
done

# Printed whole (kplan_fkey.c's kp_fvar_out()): a this-> string holding
# a function of up to four copyinstr() leaves, read only as whole
# printf() and trace() arguments after its clause's store: the store
# copies each leaf into a room of its own (UBPF_KTSTR's), in run.c's
# order, the first fault ending the clause with its address at the
# store's action; a printed read copies the rooms into the record and
# dtrace evaluates the store's tree over them.  Two clauses of one
# variable (two trees), one whose both leaves fault (0x100 + i before
# 0x200 + i), one that keys too (one leaf: the key's), one read twice.
# Byte for byte DTRACE_CGEN=0's at 256 and 16, ERROR's arguments
# included; this tree before left these clauses to user space ("a
# string the kernel does not keep").
cat >prn.d <<'EOF2'
pid$target::hit2:entry { this->n = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg2)); printf("n %d %s|\n", arg1, this->n); @c[arg1] = count(); }
pid$target::hit2:entry { @s[arg1] = sum(arg1); this->n = toupper(strjoin(substr(copyinstr(arg2), 1), copyinstr(arg0))); trace(this->n); printf("\n"); }
pid$target::hit2:entry { this->m = strjoin(copyinstr(arg1 + 0x100), basename(copyinstr(arg1 + 0x200))); printf("m %d %s\n", arg1, this->m); @m[arg1] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
cat >prb.d <<'EOF2'
pid$target::hit2:entry { this->b = basename(copyinstr(arg2)); printf("b %s\n", this->b); @b[this->b] = count(); }
pid$target::hit2:entry { this->d = strjoin(dirname(copyinstr(arg0)), copyinstr(arg2)); printf("d %s %s\n", this->d, this->d); @d[arg1] = sum(arg1); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
same_bg prn prn.d pair
same_bg prb prb.d pair
run_join
same_check prn ''
same_check prb ''
for xo in '' '-x strsize=16'; do
	w="a printed this-> string${xo:+ ($xo)}"
	p1=prn${xo:+-16}.1.txt b1=prb${xo:+-16}.1.txt
	expect_grep "$w: -v" \
		'^dtrace: 3 clauses printing values computed in the kernel$' \
		$p1.err
	leaf_faults "$w" $p1
	expect_grep "$w: the joined strings" '^n 0 left-0::right-0|$' $p1
	expect_grep "$w: keyed and printed: -v" \
		'^dtrace: 2 clauses printing values computed in the kernel$' \
		$b1.err
done
expect_grep "a printed this-> string: a tree over two rooms" \
	'^IGHT-7LEFT-7 *$' prn.1.txt
expect_grep "a printed this-> string (16): cut as the store cuts" \
	'^n 3 b\{15\}|$' prn-16.1.txt

# strjoin()s of copies and literals stored (kplan_str.c's "Joins"): the
# kernel computes the value at the store, each copy in run.c's order,
# the literal parts between, the whole cut at strsize - 1, and keeps it
# as any string variable's bytes: keyed beside an integer, printed,
# measured by strlen(), compared with literals in a predicate and a
# printed value, a self-> one kept from entry to return; three copies
# of 100 bytes cut at 255 (and at 15).  A copy that faults ends the
# clause there, the variable untouched: pair's 0x10 on either side, the
# return clause then printing and keying the self-> string the last
# store left ("short<...>" three times).  Byte for byte DTRACE_CGEN=0's
# at 256 and 16, ERROR's arguments included; this tree before left
# these clauses to user space ("a string the kernel does not keep").
cat >join.d <<'EOF2'
pid$target::hit2:entry { this->n = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg2)); @k[this->n, arg1 & 1] = count(); printf("n %d %s| %d %d\n", arg1, this->n, strlen(this->n), this->n == "same::same"); }
pid$target::hit2:entry /this->n != "::r"/ { @p[this->n] = sum(arg1); }
pid$target::hit2:entry { self->j = strjoin(copyinstr(arg2), strjoin("<", strjoin(copyinstr(arg0), ">"))); }
pid$target::hit2:return { @r[self->j] = count(); trace(self->j); printf("\n"); }
pid$target::hit2:entry /arg1 == 3/ { this->t = strjoin(copyinstr(arg0), strjoin(copyinstr(arg0), copyinstr(arg0))); printf("t %d %s\n", strlen(this->t), this->t); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
same_bg join join.d pair
run_join
same_check join 2
for xo in '' '-x strsize=16'; do
	w="strjoin() stored${xo:+ ($xo)}"
	j1=join${xo:+-16}.1.txt
	expect_grep "$w: -v, the printing clauses" \
		'^dtrace: 3 clauses printing values computed in the kernel$' \
		$j1.err
	expect_eq "$w: the faults" '2 ERROR 1 1 -1 1 0x10|2 ERROR 3 1 -1 1 0x10' \
		"$(errors $j1)"
	expect_eq "$w: a faulted store leaves the variable" 3 \
		"$(grep -c '^short<' $j1)"
	expect_grep "$w: compared" '^n 2 same::same| 10 1$' $j1
done
expect_grep "strjoin() stored: cut at 255" '^t 255 b\{255\}$' join.1.txt
expect_grep "strjoin() stored (16): cut at 15" '^t 15 b\{15\}$' join-16.1.txt
# ... on cut's strings at 256, 9 and 8: copies of strsize - 2, strsize
# - 1, strsize and more bytes joined twice with a literal between and a
# literal before one (the join's bytes each part's as copyinstr() cuts
# it, the whole cut at strsize - 1, measured, keyed and compared), and
# copies running into the unreadable page, faulting where a read of
# strsize - 1 bytes reaches it (14, 4 and 2: both clauses, at their
# stores' first action) and not where it stops before
cat >jcut.d <<'EOF2'
pid$target::hit:entry { this->j = strjoin(copyinstr(arg0), strjoin("|", copyinstr(arg0))); @l[arg1, strlen(this->j)] = count(); @k[this->j] = count(); }
pid$target::hit:entry { self->p = strjoin("<", copyinstr(arg0)); @p[arg1, self->p == "<abc"] = count(); @q[self->p] = sum(arg1); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
jcut_case() {
	w="strjoin() stored, cut${1:+ ($1)}"
	cut_both jcut "$w" $1
	case $1 in
	'') f=14 ;;
	*=9) f=4 ;;
	*) f=2 ;;
	esac
	expect_eq "$w: faults" $f "$(grep -c '^ERROR' jcut1.txt)"
	expect_eq "$w: at the stores' first action" $f \
		"$(grep -c '^ERROR [12] 1 -1 1 ' jcut1.txt)"
}
cgout_bg jcut jcut_case ''
cgout_bg jcut-9 jcut_case '-x strsize=9'
cgout_bg jcut-8 jcut_case '-x strsize=8'

# A program's kept this-> strings have UBPF_KTSTR (4) rooms: a fifth
# that would be kept is user space's, with its clause, -v naming the
# rooms (this tree before said only "a string the kernel does not key
# by"); the output byte for byte DTRACE_CGEN=0's
cat >room.d <<'EOF2'
pid$target::hit2:entry { this->a = strjoin(copyinstr(arg0), "a"); this->b = strjoin(copyinstr(arg0), "b"); this->c = strjoin(copyinstr(arg0), "c"); this->d = strjoin(copyinstr(arg0), "d"); @[this->a, this->b] = count(); @[this->c, this->d] = count(); }
pid$target::hit2:entry { this->e = strjoin(copyinstr(arg0), "e"); @e[arg1] = count(); @f[this->e] = count(); }
EOF2
late=1 # (clause 2 is user space's)
same_bg room room.d pair
late=
run_join
same_check room 1
expect_grep "a fifth this-> string: -v names the rooms" \
	'^dtrace: clause 2 (.*) runs in user space, from its record: .*key 1, this->e: a this-> string the kernel would keep, but its 4 rooms are taken$' \
	room.1.txt.err

# An argument's string beside a string variable in one key (AKEY: kplan.c's
# vkey_pair(), cgen_svar.c's akey()), either way round, as the toolkit's
# js_calls.d and rb_calls.d key @calls[basename(copyinstr(arg0)), "func",
# this->name] with this->name copyinstr(arg2) in one clause and
# copyinstr(arg1) in another (so a string the kernel keeps, not one
# argument's): the argument's room strsize - 1 bytes of seq_read()'s
# copy, cut as copyinstr() cuts it, on pair's strings (past 64 bytes,
# equal, "", 0x10 on either side: a string that cannot be read sends
# the hit to user space whole, which faults as run.c does).  Byte for
# byte DTRACE_CGEN=0's at 256 and 16, ERROR's arguments included; this
# tree before left both clauses to user space ("key 2, a string the
# kernel does not key by").
cat >akey.d <<'EOF2'
pid$target::hit2:entry { this->q = copyinstr(arg2); @a[copyinstr(arg0), this->q] = count(); @b[this->q, "x", copyinstr(arg0)] = sum(arg1); }
pid$target::hit2:entry { this->q = copyinstr(arg0); @f[basename(copyinstr(arg2)), "func", this->q] = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
# (each clause, each side's 0x10: the whole hit in user space)
pair_same akey 2 "an argument's string beside a variable" \
	'1 ERROR 1 1 -1 1 0x10|1 ERROR 1 2 -1 1 0x10|1 ERROR 2 1 -1 1 0x10|1 ERROR 2 2 -1 1 0x10'
for a1 in akey.1.txt akey-16.1.txt; do
	expect_grep "an argument's string beside a variable ($a1): the records" \
		'^dtrace: BPF: .* 2 records read$' $a1.err
done
# (the 100 'b's, cut at 15 by 16)
expect_grep "an argument's string beside a variable: a key past 64 bytes" \
	'^ *short *x *b\{100\} *3$' akey.1.txt
expect_grep "an argument's string beside a variable (16): cut" \
	'^ *short *x *b\{15\} *3$' akey-16.1.txt

# Where the kernel keeps self-> variables, an argument's string as a key
# (AKEY with a fault site, kplan.c's fmode: SKEY's kaggs_s key cannot
# fault, one too long for it going to user space, so this tree before
# left every such clause there, "key 1, copyinstr(), a string the kernel
# does not key by"): alone, beside a self-> string (either way round),
# beside execname and an integer, and two arguments' beside each other
# and beside a format-time key, as the toolkit's php_syscalls.d keys
# @calls[pid, basename(copyinstr(arg1)), "func", copyinstr(arg0)] beside
# self->php.  The copy reads strsize - 1 bytes, as run.c reads them;
# one that cannot be read ends the clause there, reported as run.c
# reports it (its action: the aggregation's plus the key's index, its
# address).  On cut's strings (running into an unreadable page) at 256,
# 9 and 8 and on pair's (0x10 on either side) at 256 and 16: byte for
# byte DTRACE_CGEN=0's, messages and ERROR included.
cat >fakey.d <<'EOF2'
pid$target::hit:entry { self->n++; @a[copyinstr(arg0)] = sum(arg1); @c[self->s, copyinstr(arg0)] = count(); self->s = copyinstr(arg0); }
pid$target::hit:entry /self->n > 2/ { @e[copyinstr(arg0), execname, arg1 & 3] = max(self->n); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
fakey_case() {
	w="an argument's string keyed beside self-> variables${1:+ ($1)}"
	cut_both fakey "$w" $1
	# (the strings 6 to 254 bytes before the page, each hit faulting
	# in both clauses where its read of strsize - 1 bytes reaches it)
	case $1 in
	'') f=14 ;;
	*=9) f=4 ;;
	*) f=2 ;;
	esac
	expect_eq "$w: faults" $f "$(grep -c '^ERROR' fakey1.txt)"
	expect_eq "$w: at the keys' actions" $f \
		"$(grep -c '^ERROR [12] [12] -1 [12] ' fakey1.txt)"
}
cgout_bg fakey fakey_case ''
cgout_bg fakey-9 fakey_case '-x strsize=9'
cgout_bg fakey-8 fakey_case '-x strsize=8'
cat >fpair.d <<'EOF2'
pid$target::hit2:entry { self->k++; @p[self->k > 1, basename(copyinstr(arg2)), "func", copyinstr(arg0)] = count(); }
pid$target::hit2:entry /self->k/ { @q[copyinstr(arg0), copyinstr(arg2)] = sum(self->k); }
dtrace:::ERROR { printf("ERROR %d %d %d %d 0x%x\n", arg1, arg2, arg3, arg4, arg5); }
EOF2
pair_same fpair 2 "two arguments' strings keyed beside self-> variables" \
	'1 ERROR 1 3 -1 1 0x10|1 ERROR 1 5 -1 1 0x10|1 ERROR 2 1 -1 1 0x10|1 ERROR 2 2 -1 1 0x10'

# A string variable ordered against a literal (VSEQ with an order,
# cgen_svar.c's vseq_ord(): the variable zero-padded, the literal's
# words immediates), < <= > >= either way round, self-> and this->, in
# predicates and a ?: key, on keep's, order's and cut's strings at 256
# and 8 (literals of at most 7 bytes: strsize 8 keeps 7, and a string
# of 7 bytes equal to "abcdefg" up to there is cut, not longer);
# a literal longer than strsize - 1 (52 bytes) in the kernel too, at
# 256, 17 (the variable's 16 bytes fill its room: the literal's byte 16
# decides against the variable's NUL, a word past the room), 16 and 2
# (before, at 16 the clause and its variable were user space's, the
# variable's copyinstr() read after the hit).  Byte for byte
# DTRACE_CGEN=0's; this tree before left them to user space (-v).
cat >lord.d <<'EOF2'
pid$target::hit:entry { self->s = copyinstr(arg0); this->t = copyinstr(arg0); }
pid$target::hit:entry /self->s < "abcdefg"/ { @lt[arg1] = sum(1000); }
pid$target::hit:entry /"abcdefX" <= self->s/ { @ge[arg1] = count(); }
pid$target::hit:entry { @k[arg1, this->t > "" ? 1 : 2, "ab" >= this->t ? 3 : 4, self->s <= "\200" ? 5 : 6] = count(); }
EOF2
cat >lordl.d <<'EOF2'
pid$target::hit:entry { self->s = copyinstr(arg0); }
pid$target::hit:entry /self->s < "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"/ { @lt[arg1] = count(); }
EOF2
# (each mode and strsize in its own directory, side by side: cgout_bg)
lord_case() {
	m=$1 xo=$2
	w="string variable ordered with literals ($m${xo:+ $xo})"
	run_bg 1 lord1.txt "$m $PWD/addr1.txt" -s ../lord.d $xo
	run_bg 0 lord0.txt "$m $PWD/addr0.txt" -s ../lord.d $xo
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" lord0.txt lord1.txt
	expect_grep "$w: -v" \
		'^dtrace: 4 clauses aggregated in the kernel$' \
		lord1.txt.err
}
for m in keep order cut; do
	for xo in '' '-x strsize=8'; do
		cgout_bg "lord-$m${xo:+-8}" lord_case $m "$xo"
	done
done
# order's hits below 52 'a's: "", the 20 'a's and X or Y cut at 16
# and 17 ("aaaa..." then the NUL), and at 2 the cut "a"s
lordl_case() {
	xo=$1
	w="string variable ordered with a long literal${xo:+ ($xo)}"
	run_bg 1 lordl1.txt order -s ../lordl.d $xo
	run_bg 0 lordl0.txt order -s ../lordl.d $xo
	run_join
	expect_file_eq "$w: DTRACE_CGEN=0's output" lordl0.txt lordl1.txt
	expect_grep "$w: -v" \
		'^dtrace: 2 clauses aggregated in the kernel$' lordl1.txt.err
	case $xo in
	*=17) e='5 7 8' ;;
	*=2) e='0 1 2 3 4 5 6 7 8 13' ;;
	*) return ;;
	esac
	expect_eq "string variable below a long literal ($xo)" "$e" \
		"$(awk 'NF == 2 { print $1 }' lordl1.txt | sort -n |
			paste -sd' ' -)"
}
for xo in '' '-x strsize=17' '-x strsize=16' '-x strsize=2'; do
	cgout_bg "lordl${xo:+-${xo#-x strsize=}}" lordl_case "$xo"
done
bg_join
# cut's hits below "abcdefg" at 8: "", "abcdef", "abcdefX", "abcde", 'a's
expect_eq "string variable ordered with literals (cut, 8): less" \
	'0 1 2 3 8 9 10 11 12 13 14 15 16 17' \
	"$(awk 'NF == 2 && $2 == 1000 && $1 < 18 { print $1 }' \
		lord-cut-8/lord1.txt | sort -n | paste -sd' ' -)"

# A self-> string holding a format-time value (kplan_fkey.c's self->
# ones): the kernel keeps basename()'s leaf, so an unset one (no entry:
# "" to run.c) and a leaf "" stored (basename(): ".") have the same
# bytes; the key of an unset one is marked (VKEY's UBPF_KF_PRES) and a
# test of NULL or "" asks whether the entry is there.  keep's second
# string is "", cleared at its return: the entry's key is "." at the
# third hit, "" at the first and the fourth; byte for byte DTRACE_CGEN=0's
# at 256 and 16, three clauses in the kernel (this tree before: none,
# "self->f is a string the kernel does not keep"; with the mark left
# out, "." 3 times)
cat >sfv.d <<'EOF'
pid$target::hit:entry
{
	@k[self->f] = count();
	@t[self->f == NULL, self->f != ""] = count();
	self->f = basename(copyinstr(arg0));
}

pid$target::hit:return
/self->f != NULL/
{
	@r[self->f] = count();
}

pid$target::hit:return
/arg1 == 2 || self->f == ""/
{
	self->f = 0;
}

END
{
	printa("k [%s] %@d\n", @k);
	printa("t %d %d %@d\n", @t);
	printa("r [%s] %@d\n", @r);
}
EOF
same sfv sfv.d keep 3
expect_eq "self-> format-time variable: the keys at entry" 'k [.] 1|k [] 2' \
	"$(grep -E '^k \[\.?\] ' sfv.1.txt | paste -sd'|' -)"
expect_eq "self-> format-time variable: set and unset" 't 1 0 2|t 0 1 5' \
	"$(grep '^t ' sfv.1.txt | paste -sd'|' -)"

finish
