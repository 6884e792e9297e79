#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-exec.sh: execname and string literals as values in the
# kernel (kplan_str.c's "execname and literals": cgen_svar.c's CKEY, LKEY,
# CCMP, CVCMP), on a real process (tests/data/cgenout/cgout.c, pid
# provider entry and return; its rename mode renames itself with
# prctl(PR_SET_NAME) before each hit and again right after it):
#  - execname as an aggregation key, alone and beside an integer key,
#    in kaggs_v: the name at each hit (never the "after-i" the thread
#    took right after it; 22 bytes asked, the kernel's 15 kept);
#  - execname compared with literals (== != < > <= >=, either way
#    round, "" and 16 bytes and more) and with self-> and this->
#    string variables (set and unset), in predicates;
#  - execname compared with copyinstr(arg0) (CACMP), either way round,
#    in predicates and as values: the name the process took against
#    the one it passed (22 bytes against the kernel's 15; cut to
#    strsize - 1 as copyinstr() cuts it);
#  - literal keys and c ? "a" : "b" keys, beside integer keys, with
#    sum(), max(), quantize(); two string keys in one statement, a
#    ?: of literals beside execname, the kernel's too (kplan.c's
#    vkey_pair(): their rooms side by side in one kaggs_v key);
#    execname beside copyinstr(arg0) (in
#    either order, beside an integer key and probefunc: CWKEY, one
#    kaggs_s key, execname in two of its words) and two copyinstr()
#    (SKEY2: both strings in its s, 64 bytes with their NULs in the
#    kernel, 65 the hit user space's), and the three together;
#  - three copyinstr() in one key (a third SKEY2);
#  - such keys past kaggs_s's 64 bytes (kaggs_l), on strings of 253 to
#    300 bytes at strsize 256, 257, 100 and 16;
#  - c ? execname : "a" keys, either way round, beside an integer key
#    (MKEY), and the taint of an entry that both a literal and
#    execname gave (printed escaped, as user space ors it), one only a
#    literal gave (as it is);
#  - c ? probefunc : "a" keys, and probemod, probename, at two probes
#    (LKEY, the probe's own name in its plan);
#  - nested ?: keys of literals and probe names, two and three levels
#    deep (LKEY flagged UBPF_KF_TAB), and one with a copyinstr() leaf,
#    user space's with -v's reason;
#  - c ? copyinstr(arg0) : copyinstr(arg2) keys (SMKEY's agg 3) on
#    cgout's pairs, the faults of the branch taken alone reported;
#  - argN ? copyinstr(argN) : "lit" keys (argN != NULL, 0 != argN too)
#    on cgout null's NULLs: no string read at an address 0, so those
#    hits are the kernel's whole (-v: only 0x10's record read, which
#    faults in user space as before; the tree before read one a NULL);
#  - c ? copyinstr(arg0) : "a" keys, either way round (SMKEY, kaggs_s),
#    the taint as above, and a string that cannot be read in a branch
#    not taken (the hit user space's, no fault) and taken (its fault);
#  - execname at a kernel provider's probe (syscall) as a key and in
#    a predicate;
#  - each byte for byte DTRACE_KAGG=0's and DTRACE_CGEN=0's output at
#    strsize 256, 16, 8 and 2 (keys cut as user space cuts them), and
#    -v's count of the clauses aggregated in the kernel, so each case
#    fails on a tree that left them to user space.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup

# same NAME D-FILE CMD COUNT: the script on ./cgout CMD at strsize 256,
# 16, 8 and 2 with the generated program, with DTRACE_KAGG=0 and with
# DTRACE_CGEN=0, byte for byte; COUNT clauses aggregated in the kernel.
# The runs' outputs: NAME.1.txt (generated), NAME.k.txt (DTRACE_KAGG=0)
# and NAME.0.txt at 256, NAME-N.1.txt and NAME-N.k.txt at strsize N
# (the checks after a case read the runs at 256, not runs of their own).
# DTRACE_CGEN=0's generic program at the default strsize only, but
# under make check-long (USDT_TEST_LONG): its start-up is most of this
# test's time, and DTRACE_KAGG=0 (the same clauses in user space, on a
# generated record program) is compared at every strsize.  The runs of
# a case, each its own ./cgout, run side by side (lib.sh's run_bg), the
# checks after them all.
same() {
	name=$1 d=$2 cmd=$3 count=$4
	if [ "$count" = 1 ]; then
		c='1 clause'
	else
		c="$count clauses"
	fi
	for xo in '' '-x strsize=16' '-x strsize=8' '-x strsize=2'; do
		sm_o=$name${xo:+-${xo#-x strsize=}}
		run_bg 1 "$sm_o.1.txt" "$cmd" -s "$d" $xo
		DTRACE_KAGG=0
		export DTRACE_KAGG
		run_bg 1 "$sm_o.k.txt" "$cmd" -s "$d" $xo
		unset DTRACE_KAGG
		if [ -z "$xo" ] || [ -n "${USDT_TEST_LONG:-}" ]; then
			run_bg 0 "$sm_o.0.txt" "$cmd" -s "$d" $xo
		fi
	done
	run_join
	for xo in '' '-x strsize=16' '-x strsize=8' '-x strsize=2'; do
		w="$name${xo:+ ($xo)}"
		sm_o=$name${xo:+-${xo#-x strsize=}}
		expect_file_eq "$w: DTRACE_KAGG=0's output" \
			"$sm_o.k.txt" "$sm_o.1.txt"
		if [ -z "$xo" ] || [ -n "${USDT_TEST_LONG:-}" ]; then
			expect_file_eq "$w: DTRACE_CGEN=0's output" \
				"$sm_o.0.txt" "$sm_o.1.txt"
		fi
		expect_grep "$w: -v" "^dtrace: $c aggregated in the kernel\$" \
			"$sm_o.1.txt.err"
	done
}

# execname as a key: the name at each hit, cut to strsize - 1 bytes
cat >key.d <<'EOF2'
pid$target::hit:entry { @[execname] = count(); }
pid$target::hit:entry { @n[execname, arg1] = sum(arg1); }
pid$target::hit:return { @r[arg1, execname] = max(arg1); }
END { printa("k %s %@d\n", @); }
EOF2
# (run with mix.d, smix.d and cwkey.d below: keys.d)

# execname compared with literals, either way round
cat >cmp.d <<'EOF2'
pid$target::hit:entry /execname == "prefix-one"/ { @eq[arg1] = count(); }
pid$target::hit:entry /"prefix-one" != execname/ { @ne[arg1] = count(); }
pid$target::hit:entry /execname < "prefix-one"/ { @lt[arg1] = count(); }
pid$target::hit:entry /"prefix" < execname/ { @gt[arg1] = count(); }
pid$target::hit:entry /execname >= "abcdefghijklmnop"/ { @ge[arg1] = count(); }
pid$target::hit:entry /execname <= "abcdefghijklmno"/ { @le[arg1] = count(); }
pid$target::hit:entry /execname > ""/ { @gz[arg1] = count(); }
pid$target::hit:entry /execname == "a-name-of-twent"/ { @cut[arg1] = count(); }
pid$target::hit:entry { printf("%d %s|\n", arg1, execname); }
END { printa("eq %d %@d\n", @eq); printa("cut %d %@d\n", @cut); }
EOF2
# (run with argcmp.d below: cmps.d)

# execname compared with copyinstr(arg0), the name each hit passes:
# equal but at the 22-byte one (the kernel keeps 15 bytes), and at
# small strsize where copyinstr() cuts the argument.  Before, these
# clauses were user space's (-v: none in the kernel).
cat >argcmp.d <<'EOF2'
pid$target::hit:entry /execname == copyinstr(arg0)/ { @aeq[arg1] = count(); }
pid$target::hit:entry /copyinstr(arg0) != execname/ { @ane[arg1] = count(); }
pid$target::hit:entry /execname < copyinstr(arg0)/ { @alt[arg1] = count(); }
pid$target::hit:entry /copyinstr(arg0) < execname/ { @agt[arg1] = count(); }
pid$target::hit:entry /execname >= copyinstr(arg0)/ { @age[arg1] = count(); }
pid$target::hit:entry { @ak[arg1, execname == copyinstr(arg0)] = sum(execname <= copyinstr(arg0)); }
END { printa("ne %d %@d\n", @ane); printa("lt %d %@d\n", @alt); }
EOF2
# cmp.d and argcmp.d on rename's strings run as one (cmps.d: argcmp.d's
# aggregations renamed), 14 clauses aggregated in the kernel; no
# variable in either
cat cmp.d argcmp.d >cmps.d
same cmps cmps.d rename 14
expect_eq "execname == literal: the hits" "eq 4 1|cut 3 1" \
	"$(grep -E '^(eq|cut) ' cmps.1.txt | paste -sd'|' -)"
expect_eq "execname against copyinstr(arg0): the hits" "ne 3 1|lt 3 1" \
	"$(grep -E '^(ne|lt) ' cmps.1.txt | paste -sd'|' -)"
# ... a string that cannot be read (an unmapped address, one running
# into an unreadable page): the hit goes to user space whole, which
# reports the fault in the predicate as DTRACE_KAGG=0 does; the other
# clause counts the hit all the same
cat >argflt.d <<'EOF2'
pid$target::hit:entry /execname != copyinstr(arg0)/ { @ne = count(); }
pid$target::hit:entry { @n = count(); }
dtrace:::ERROR { printf("ERROR %d %d %d\n", arg2, arg3, arg4); }
END { printa("ne %@d\n", @ne); printa("n %@d\n", @n); }
EOF2
# faults NAME: NAME.d on cgout fault, the generated programs and
# DTRACE_KAGG=0 (NAME1.txt, NAME0.txt), their fault messages with the
# pid and the two addresses (cgout's NAMEaddr1.txt, NAMEaddr0.txt) made
# names (NAME1.msg, NAME0.msg)
faults() {
	for ka in 1 0; do # (run_bg sets g)
		rm -f "$1addr$ka.txt"
		DTRACE_KAGG=$ka
		export DTRACE_KAGG
		run_bg 1 "$1$ka.txt" "fault $PWD/$1addr$ka.txt" -s "$1.d"
		unset DTRACE_KAGG
	done
	run_join
	for ka in 1 0; do
		set -- "$1" $(cat "$1addr$ka.txt")
		grep '^dtrace: error' "$1$ka.txt.err" |
			sed "s/pid[0-9]*/pid/; s/$2/A1/; s/$3/A2/" >"$1$ka.msg"
	done
}
faults argflt
expect_file_eq "execname against a string that faults: the output" \
	argflt0.txt argflt1.txt
expect_eq "execname against a string that faults" \
	"ERROR 0 -1 1|ERROR 0 -1 1|n 2" \
	"$(grep -E '^(ERROR|ne|n) ' argflt1.txt | paste -sd'|' -)"
expect_file_eq "execname against a string that faults: the messages" \
	argflt0.msg argflt1.msg
expect_eq "execname against a string that faults: in the predicate" 2 \
	"$(grep -c 'hit:entry): invalid address (A[12]) in predicate$' argflt1.msg)"

# ... beside self-> variables and a global array the kernel keeps: the
# program has fault sites (kplan_str.c's kp_has_str_cmp() counts CACMP a
# string read), and the comparison is one, as VACMP's is: every clause
# the kernel's, no record read.  (On 2026-12-07 first the generator
# refused the plan, the run taking the generic program, refused at an
# event armed later: a dfuzz seed; then the planner left the two
# comparing clauses to user space.)  strsize 16 cuts the 15-byte name
# at its last byte: the copy's last byte read again (cgen_sarg.c's
# rbarg), or it would not equal execname
cat >argtls.d <<'EOF2'
pid$target::hit:entry { self->n++; g[0]++; @n = max(self->n + g[0]); }
pid$target::hit:entry /copyinstr(arg0) != execname/ { @ne[arg1] = count(); }
pid$target::hit:entry /execname == copyinstr(arg0)/ { self->m++; @m[arg1] = max(self->m); }
EOF2
same argtls argtls.d rename 3
expect_eq "execname against copyinstr(arg0) beside self->: no record" \
	"0 records read" \
	"$(sed -n 's/.*verified, \([0-9]* records read\)$/\1/p' argtls.1.txt.err)"
expect_eq "execname against copyinstr(arg0) beside self->: every name equal at strsize 16" \
	10 "$(grep -cE '^ +[0-9]+ +[0-9]+$' argtls-16.1.txt)"

# ... and a string that cannot be read there: the fault site ends its
# clause (the predicate's, a key's in the next: neither @ne nor @after
# counts) and its record tells dtrace, which reports it as DTRACE_KAGG=0
# does; the clauses before and after it run
cat >argtlf.d <<'EOF2'
pid$target::hit:entry { self->n++; }
pid$target::hit:entry /execname != copyinstr(arg0)/ { @ne = count(); self->m++; }
pid$target::hit:entry { @k[self->n, execname < copyinstr(arg0)] = count(); @after = count(); }
pid$target::hit:entry { @n = count(); @s = max(self->n + self->m); }
dtrace:::ERROR { printf("ERROR %d %d %d\n", arg2, arg3, arg4); }
END { printa("ne %@d\n", @ne); printa("after %@d\n", @after);
	printa("n %@d\n", @n); printa("s %@d\n", @s); }
EOF2
faults argtlf
expect_file_eq "execname against a string that faults, beside self->: the output" \
	argtlf0.txt argtlf1.txt
expect_eq "execname against a string that faults, beside self->" \
	"ERROR 0 -1 1|ERROR 2 -1 1|ERROR 0 -1 1|ERROR 2 -1 1|n 2|s 2" \
	"$(grep -E '^(ERROR|ne|after|n|s) ' argtlf1.txt | paste -sd'|' -)"
expect_file_eq "execname against a string that faults, beside self->: the messages" \
	argtlf0.msg argtlf1.msg
expect_grep "execname against a string that faults, beside self->: in the kernel" \
	"^dtrace: 4 clauses aggregated in the kernel\$" argtlf1.txt.err
expect_eq "execname against a string that faults, beside self->: a record a fault" \
	"2 records read" \
	"$(sed -n 's/.*verified, \([0-9]* records read\)$/\1/p' argtlf1.txt.err)"

# execname compared with string variables: self-> and this->, unset
cat >var.d <<'EOF2'
pid$target::hit:entry { self->s = copyinstr(arg0); this->t = copyinstr(arg0); }
pid$target::hit:entry /execname == self->s/ { @eq[arg1] = count(); }
pid$target::hit:entry /self->s < execname/ { @lt[arg1] = count(); }
pid$target::hit:entry /execname != this->t/ { @ne[arg1] = count(); }
pid$target::hit:entry /execname >= this->t/ { @ge[arg1] = count(); }
pid$target::hit:entry /execname == self->u/ { @unset[arg1] = count(); }
pid$target::hit:return { self->u = self->s; }
EOF2
same var var.d rename 7

# literals and ?: of literals as keys; two string keys (a ?: of
# literals and execname): the kernel's, their rooms side by side
cat >lit.d <<'EOF2'
pid$target::hit:entry { @[arg1 > 5 ? "big" : "small"] = count(); }
pid$target::hit:entry { @x["x", arg1 & 1] = sum(arg1); @y["a literal longer than sixteen"] = count(); @z[""] = count(); }
pid$target::hit:entry { @c[(arg1 & 3) == 1 ? "one" : "other"] = quantize(arg1); @m[arg1 & 1 ? "odd-odd-odd-odd-odd" : ""] = max(arg1); }
pid$target::hit:return { @t[arg1 & 1 ? "odd" : "", execname] = count(); }
EOF2
same lit lit.d rename 4

# ?: of execname and a literal as keys (MKEY).  Before, these clauses
# were user space's (-v: none in the kernel).  Hit 6 passes "tab\there":
# @t has it from the literal at the entry and from execname at the
# return (tainted: printed escaped), @l from the literal alone.
cat >mix.d <<'EOF2'
pid$target::hit:entry { @x[arg1 & 1 ? execname : "even"] = count(); }
pid$target::hit:entry { @m[(arg1 & 3) == 1 ? "one" : execname, arg1 & 1] = sum(arg1); }
pid$target::hit:entry { @t[arg1 == 6 ? "tab\there" : execname] = count(); @l[arg1 == 6 ? "tab\there" : execname] = count(); }
pid$target::hit:return { @t[arg1 == 7 ? execname : "x"] = count(); @u[arg1 > 4 ? execname : execname] = max(arg1); }
END { printa("t [%s] %@d\n", @t); printa("l [%s] %@d\n", @l); }
EOF2
# (run with key.d above: keys.d below)

# ?: of copyinstr(arg0) and a literal as keys (SMKEY, in kaggs_s).
# Before, these clauses were user space's (-v: none in the kernel).
cat >smix.d <<'EOF2'
pid$target::hit:entry { @sx[arg1 > 5 ? copyinstr(arg0) : "small"] = count(); }
pid$target::hit:entry { @sm[arg1 & 1, (arg1 & 3) == 1 ? "one" : copyinstr(arg0)] = sum(arg1); }
pid$target::hit:entry { @st[arg1 == 6 ? "tab\there" : "z"] = count(); @sl[arg1 == 6 ? "tab\there" : "z"] = count(); }
pid$target::hit:entry { @st[arg1 == 6 ? copyinstr(arg0) : "z"] = count(); }
END { printa("st [%s] %@d\n", @st); printa("sl [%s] %@d\n", @sl); }
EOF2
# (run with key.d above: keys.d below)
# ... strings that cannot be read: @'s branch is the literal at both
# hits (no fault: user space's run of the hit takes that branch only),
# @b's the string (the fault in its key, action #3)
cat >smflt.d <<'EOF2'
pid$target::hit:entry { @[arg1 > 100 ? copyinstr(arg0) : "small"] = count(); @b[arg1 < 100 ? copyinstr(arg0) : "big"] = count(); }
EOF2
faults smflt
expect_file_eq "?: of a string that faults: the output" smflt0.txt smflt1.txt
expect_eq "?: of a string that faults: the literal's" "small 2" \
	"$(awk 'NF == 2 { print $1, $2 }' smflt1.txt)"
expect_eq "?: of a string that faults: in the key" 2 \
	"$(grep -c 'hit:entry): invalid address (.*) in action #3$' smflt1.txt.err)"

# The NULL idiom, argN ? copyinstr(argN) : "lit" (SMKEY flagged
# UBPF_KF_ANULL: seq_read() reads no string at an address 0, where the
# ?: takes the literal); 0x10 (condition true) still faults, its hit
# user space's, the fault reported there, once a clause
cat >nul.d <<'EOF2'
pid$target::hit:entry { @a[arg0 ? copyinstr(arg0) : "<null>"] = count(); }
pid$target::hit:entry { @b[arg1 & 1, arg0 != NULL ? copyinstr(arg0) : ""] = sum(arg1); }
pid$target::hit:entry { @c[0 != arg0 ? copyinstr(arg0) : "none"] = max(arg1); }
EOF2
same nul nul.d null 3
expect_grep "NULL idiom: one record read (0x10's)" ' 1 record read$' \
	nul.1.txt.err
expect_eq "NULL idiom: the faults" 3 \
	"$(grep -c 'hit:entry): invalid address (0x10) in action #[12]$' nul.1.txt.err)"

# ?: of two copyinstr() keys (SMKEY's agg 3, in kaggs_s), alone and
# beside an integer key, with count(), sum(), max(), quantize(), on
# cgout's pairs (one string past 64 bytes, kaggs_s's: that hit user
# space's whole), either string 0x10 (a fault in the branch not taken:
# none, as user space's run of the hit takes the other branch only; in
# the branch taken: its fault, action #1 and #2 as DTRACE_KAGG=0's).
# Before, these clauses were user space's (-v: none in the kernel).
cat >smix2.d <<'EOF2'
pid$target::hit2:entry { @a[arg1 & 1 ? copyinstr(arg0) : copyinstr(arg2)] = count(); }
pid$target::hit2:entry { @b[arg1, arg1 < 4 ? copyinstr(arg2) : copyinstr(arg0)] = sum(arg1); }
pid$target::hit2:entry /arg1 != 4 && arg1 != 5/ { @c[arg1 > 2 ? copyinstr(arg0) : copyinstr(arg2)] = max(arg1); }
pid$target::hit2:entry /arg1 != 4 && arg1 != 5/ { @d[arg1 % 3 ? copyinstr(arg2) : copyinstr(arg0)] = quantize(arg1); }
END { printa("a [%s] %@d\n", @a); printa("b %d [%s] %@d\n", @b); printa("c [%s] %@d\n", @c); printa(@d); }
EOF2
same smix2 smix2.d pair 4
expect_eq "?: of two strings: the faults" \
	"$(grep 'invalid address' smix2.k.txt.err | sed 's/pid[0-9]*/P/')" \
	"$(grep 'invalid address' smix2.1.txt.err | sed 's/pid[0-9]*/P/')"
expect_eq "?: of two strings: the faults' actions" "#1 #1 #2" \
	"$(grep -o 'in action #[0-9]*' smix2.1.txt.err | cut -d' ' -f3 |
		paste -sd' ' -)"

# ?: keys with a branch probefunc, probemod or probename (LKEY: each
# probe's plan writes its own name as a literal), beside a literal, one
# another and an integer key, at two probes sharing the clauses.
# Before, these clauses were user space's (-v: none in the kernel).
cat >pname.d <<'EOF2'
pid$target::hit2:entry,pid$target::hit2:return { @a[arg1 > 2 ? probefunc : "x"] = count(); }
pid$target::hit2:entry,pid$target::hit2:return { @b[arg1, arg1 & 1 ? "odd" : probename] = sum(arg1); }
pid$target::hit2:entry { @c[arg1 & 1 ? probemod : probename] = max(arg1); }
pid$target::hit2:return { @d[arg1 > 3 ? probename : probefunc] = quantize(arg1); }
END { printa("a [%s] %@d\n", @a); printa("b %d [%s] %@d\n", @b); printa("c [%s] %@d\n", @c); printa(@d); }
EOF2
same pname pname.d pair 4
# ... at a probe whose name is longer than the kernel keeps (67 bytes;
# under 64 once cut at a smaller strsize): that probe's 8 hits come as
# records, run in user space; hit2's counted in the kernel
cat >pnlong.d <<'EOF2'
pid$target::hit2*:entry { @[arg1 > 2 ? probefunc : "x"] = count(); }
EOF2
same pnlong pnlong.d pair 1
expect_grep "a name past the kernel's key: its hits as records" \
	'^dtrace: BPF: .* verified, 8 records read$' pnlong.1.txt.err

# nested ?: keys of literals and probe names (LKEY flagged UBPF_KF_TAB:
# the leaf's number computed as an integer ?:, its literal written): two
# and three levels deep, either branch nested, a leaf probefunc or
# probename, "" and a literal that strsize 16, 8 and 2 cut, beside an
# integer key, conditions on probename (a constant at each probe) and
# on arg1 at two probes sharing the clauses; and one with a leaf
# copyinstr(arg0), user space's, -v naming the leaf (main said only "a
# string the kernel does not key by").  Before, all of these were user
# space's (-v: none in the kernel).
cat >nest.d <<'EOF2'
pid$target::hit:entry { @a[arg1 > 5 ? "big" : arg1 > 2 ? "mid" : "small"] = count(); }
pid$target::hit:entry { @b[arg1 & 1 ? (arg1 > 4 ? "odd-and-a-literal-longer-than-sixteen" : "odd") : arg1 == 2 ? "two" : arg1 == 4 ? "" : probefunc] = sum(arg1); }
pid$target::hit:entry,pid$target::hit:return { @c[arg1 & 1, probename == "entry" ? "entry" : probename == "return" ? "return" : "offset"] = count(); }
pid$target::hit:entry,pid$target::hit:return { @d[probename == "entry" ? (arg1 > 3 ? probename : "low") : arg1 & 1 ? "odd-ret" : "even-ret"] = max(arg1); }
pid$target::hit:entry { @u[arg1 > 5 ? "big" : arg1 > 2 ? copyinstr(arg0) : "small"] = count(); }
EOF2
late=1 # @u's clause is user space's: cgout lingers for its reads
same nest nest.d rename 4
late=
expect_grep "nested ?: keys: a copyinstr() leaf, -v" \
	'^dtrace: clause 5 (.*) runs in user space, from its record: line 5: .*: key 1, a nested ?: with a leaf copyinstr(), neither a literal nor the probe.s name$' \
	nest.1.txt.err

# a kernel provider's probe: the comm of the thread that made the call
if [ "${TRACE_EMULATED:-0}" = 1 ]; then
	echo "skip: syscall case in the emulated guest"
else
	cat >sys.d <<'EOF2'
syscall::write:entry /pid == $target/ { @[execname] = count(); @l[execname == "sh" ? "sh" : "other"] = count(); }
syscall::write:entry /pid == $target && execname == "sh"/ { @w = count(); }
EOF2
	# the four runs side by side, each its own sh
	for xo in '' '-x strsize=2'; do
		so=sys${xo:+-2}
		rm -f $so.1.txt $so.0.txt
		DTRACE_CGEN=1 timeout -s KILL 120 "$DTRACE" -v -q -o $so.1.txt \
			-s sys.d $xo -c "sh -c 'echo a; echo b'" \
			>/dev/null 2>$so.1.txt.err &
		sys_pids="${sys_pids:-} $!"
		DTRACE_KAGG=0 timeout -s KILL 120 "$DTRACE" -v -q -o $so.0.txt \
			-s sys.d $xo -c "sh -c 'echo a; echo b'" \
			>/dev/null 2>$so.0.txt.err &
		sys_pids="$sys_pids $!"
	done
	for p in $sys_pids; do
		wait "$p"
	done
	for xo in '' '-x strsize=2'; do
		w="syscall${xo:+ ($xo)}"
		so=sys${xo:+-2}
		expect_file_eq "$w: DTRACE_KAGG=0's output" $so.0.txt $so.1.txt
		expect_grep "$w: -v" \
			'^dtrace: 2 clauses aggregated in the kernel$' \
			$so.1.txt.err
	done
fi

# execname beside copyinstr(arg0) in one key (kplan.c's comm_arg_keys(),
# cgen_svar.c's CWKEY: a kaggs_s key, execname in two of its words, in
# either order, beside an integer key and probefunc), the names the
# process took and passed (22 bytes against execname's 15, a tab, bytes
# above 0x7f: both tainted, printed escaped).  Before, these clauses
# were user space's (-v: none in the kernel).
cat >cwkey.d <<'EOF2'
pid$target::hit:entry { @cw[execname, copyinstr(arg0)] = count(); }
pid$target::hit:entry { @cs[copyinstr(arg0), arg1 & 1, execname] = sum(arg1); }
pid$target::hit:entry { @cm[probefunc, execname, copyinstr(arg0)] = max(arg1); }
END { printa("[%s|%s] %@d\n", @cw); }
EOF2

# The key scripts on rename's strings, key.d, mix.d, smix.d and
# cwkey.d, run as one (keys.d: each with its own aggregations, smix.d's
# lines tagged st and sl), 14 clauses aggregated in the kernel; no
# variable in any of them.  key.d's names at the hits, and the taint
# of mix.d's and smix.d's entries.
cat key.d mix.d smix.d cwkey.d >keys.d
same keys keys.d rename 14
expect_eq "execname key: the names at the hits" \
	"k Z 1|k a-name-of-twent 1|k abcdefghijklmno 1|k cg-one 2|k prefix-one 1" \
	"$(grep -E '^k (cg-one|a-name-of-twent|abcdefghijklmno|prefix-one|Z) ' \
		keys.1.txt |
		LC_ALL=C sort | paste -sd'|' -)"
expect_eq "execname key: none after a hit" 0 "$(grep -c after- keys.1.txt)"
expect_eq "?: of execname and a literal: the taint" \
	"$(printf 'l [tab\there] 1|t [tab\\there] 2')" \
	"$(grep -E '^[lt] \[tab' keys.1.txt | LC_ALL=C sort | paste -sd'|' -)"
expect_eq "?: of copyinstr(arg0) and a literal: the taint" \
	"$(printf 'sl [tab\there] 1|st [tab\\there] 2')" \
	"$(grep -E '^s[lt] \[tab' keys.1.txt | LC_ALL=C sort | paste -sd'|' -)"

# two copyinstr() keys in one (SKEY2: both strings in kaggs_s's s, the
# second after the first's NUL), either order, beside an integer key:
# pairs of 64 bytes with their NULs (the kernel's) and of 65 (the hit
# user space's), and pairs that differ only where the first string ends
# ("ab" "c" against "a" "bc"): byte for byte as user space.  Before,
# these clauses were user space's (-v: none in the kernel).
cat >pack.d <<'EOF2'
pid$target::hit2:entry { @[copyinstr(arg0), copyinstr(arg2)] = count(); }
pid$target::hit2:entry { @s[copyinstr(arg2), arg1 & 1, copyinstr(arg0)] = sum(arg1); }
END { printa("[%s|%s] %@d\n", @); }
EOF2
same pack pack.d pack 2
expect_eq "two copyinstr() keys: split where the first ends" \
	"[ab|c] 2|[a|bc] 1" \
	"$(grep -E '^\[ab?\|b?c\]' pack.1.txt | LC_ALL=C sort | paste -sd'|' -)"

# three string keys: execname and two copyinstr() (CWKEY and SKEY2 in
# one kaggs_s key: execname in two of its words, both strings in its
# s), any order, beside an integer key and probefunc, on pack's pairs
# (64 bytes with their NULs in the kernel, 65 the hit user space's)
# and pair's (an unmapped address on either side: the hit user
# space's, its fault reported as before).  Before, these clauses were
# user space's (-v: none in the kernel).
cat >three.d <<'EOF2'
pid$target::hit2:entry { @[execname, copyinstr(arg0), copyinstr(arg2)] = count(); }
pid$target::hit2:entry { @s[copyinstr(arg2), arg1 & 1, execname, copyinstr(arg0)] = sum(arg1); }
pid$target::hit2:entry { @m[copyinstr(arg0), probefunc, copyinstr(arg2), execname] = max(arg1); }
END { printa("[%s|%s|%s] %@d\n", @); }
EOF2
same three three.d pack 3
same threep three.d pair 3

# three copyinstr() keys in one kaggs_s key (the Ruby scripts'
# @[basename(copyinstr(arg2)), copyinstr(arg0), copyinstr(arg1)]: a
# third SKEY2, its string after the second's NUL), beside an integer
# key and execname, on pack's pairs (the three past 64 bytes: in
# kaggs_l) and pair's (an unmapped address: the hit user space's, its
# fault reported).  Before, these clauses were user space's.
cat >three3.d <<'EOF2'
pid$target::hit2:entry { @[copyinstr(arg0), copyinstr(arg2), copyinstr(arg0)] = count(); }
pid$target::hit2:entry { @s[arg1 & 1, copyinstr(arg2), copyinstr(arg0), copyinstr(arg2)] = sum(arg1); }
pid$target::hit2:entry { @c[execname, copyinstr(arg0), copyinstr(arg2), copyinstr(arg0)] = count(); }
END { printa("[%s|%s|%s] %@d\n", @); printa("[%d|%s|%s|%s] %@d\n", @s); printa("[%s|%s|%s|%s] %@d\n", @c); }
EOF2
same pack3 three3.d pack 3
same pair3 three3.d pair 3
expect_eq "three copyinstr() keys: split where each ends" \
	"[ab|c|ab] 2|[a|bc|a] 1" \
	"$(grep -E '^\[ab?\|b?c\|ab?\]' pack3.1.txt | LC_ALL=C sort | paste -sd'|' -)"

# long string keys: a kaggs_s key whose strings with their NULs pass its
# 64 bytes is kaggs_l's (cgen_agg.c's "Long string keys"), one string,
# two (SKEY2), one beside execname (CWKEY), or three, on cut's strings: "" to
# 300 bytes, equal up to strsize's cut and differing at it or after,
# and 'x's running into an unreadable page (the hit user space's, its
# fault reported); at strsize 256, 100 and 16 (the merge cuts) and 257
# (a copy of 255 bytes and its NUL may be cut: the hit user space's),
# byte for byte DTRACE_KAGG=0's, and DTRACE_CGEN=0's at 256.  The
# records read are the 7 faults' (before, 22: the 15 strings past 63
# bytes' hits too).  late: the faults' hits are read after the hit.
cat >long.d <<'EOF2'
pid$target::hit:entry { @[copyinstr(arg0)] = count(); }
pid$target::hit:entry { @p[copyinstr(arg0), arg1 & 1, copyinstr(arg0)] = sum(arg1); }
pid$target::hit:entry { @c[execname, copyinstr(arg0)] = max(arg1); }
pid$target::hit:entry { @t[copyinstr(arg0), copyinstr(arg0), arg1 & 1, copyinstr(arg0)] = min(arg1); }
END { printa("[%s] %@d\n", @); printa("[%s|%d|%s] %@d\n", @p); printa("[%s|%s] %@d\n", @c); printa("[%s|%s|%d|%s] %@d\n", @t); }
EOF2
late=1
for xo in '' '-x strsize=257' '-x strsize=100' '-x strsize=16'; do
	x=${xo#-x strsize=}
	run_bg 1 "long$x.1.txt" "cut $PWD/long$x.1.a" -s long.d $xo
	DTRACE_KAGG=0
	export DTRACE_KAGG
	run_bg 1 "long$x.k.txt" "cut $PWD/long$x.k.a" -s long.d $xo
	unset DTRACE_KAGG
done
run_bg 0 long.0.txt "cut $PWD/long.0.a" -s long.d
late=
run_join
# long_msgs NAME: NAME.txt.err's fault messages, the page as PAGE
long_msgs() {
	lm_pg=$(cat "$1.a")
	grep 'error on enabled probe' "$1.txt.err" |
		sed "s/pid[0-9]*:/pid:/; s/$lm_pg/PAGE/" >"$1.msg"
}
for x in '' 257 100 16; do
	w="long string keys${x:+ (strsize $x)}"
	for o in 1 k 0; do
		[ -f "long$x.$o.a" ] && long_msgs "long$x.$o"
	done
	expect_file_eq "$w: DTRACE_KAGG=0's output" long$x.k.txt long$x.1.txt
	expect_file_eq "$w: DTRACE_KAGG=0's messages" long$x.k.msg long$x.1.msg
	if [ -z "$x" ]; then
		expect_file_eq "$w: DTRACE_CGEN=0's output" long.0.txt long.1.txt
		expect_file_eq "$w: DTRACE_CGEN=0's messages" long.0.msg \
			long.1.msg
	fi
	[ "$x" = 257 ] && continue
	expect_grep "$w: -v" "^dtrace: 4 clauses aggregated in the kernel\$" \
		long$x.1.txt.err
	expect_grep "$w: the faults' records alone" \
		'^dtrace: BPF: .* verified, 7 records read$' long$x.1.txt.err
	expect_grep "$w: entries in kaggs_s and kaggs_l" \
		'^dtrace: BPF: string keys read from the kernel: kaggs_s [1-9][0-9]*, kaggs_l [1-9][0-9]*$' \
		long$x.1.txt.err
done
# 255 bytes differing at the last, and 300 equal to them up to it: one
# key of 255 bytes
expect_grep "long string keys: 255 and 300 bytes cut to one" \
	"^\[$(printf 'a%.0s' $(seq 254))c\] *2\$" long.1.txt

finish
