#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-toolkit.sh: the DTraceToolkit's and the DTrace book's idioms
# the generated programs run in the kernel, on tests/data/interp/interp's
# function-entry probe (FILE, FUNC, LINE: the strings an interpreter
# passes).
#
# Format-time keys (consumer/kplan_fkey.c): an aggregation key that is a
# string function of a key the kernel keys by
# (@[pid, basename(copyinstr(arg0)), copyinstr(arg1)] = count(), the
# DTraceToolkit's and the DTrace book's py_calls.d, rb_calls.d,
# pl_subcalls.d), aggregated in the kernel by that key and named by
# dtrace as it merges:
#  - the known answer: paths in different folders merged under one
#    basename(), counts and sums added across the kernel's entries,
#    a path longer than the 64 bytes kaggs_s keeps among them (in
#    kaggs_l: cgen_agg.c's "Long string keys"; before, its hit was sent
#    to dtrace whole), and the toolkit's printa() layout;
#  - every function of the set (basename(), dirname(), strjoin(),
#    substr(), toupper(), tolower(), strstr(), strchr(), strrchr(),
#    lltostr() of an integer key, nested) with count(), sum(), avg(),
#    min(), max(), quantize(), stddev(), beside a string variable's
#    key (VKEY) and execname's (CKEY), on paths with no '/', no '.', an
#    ESC byte (escaped by printa(), the taint of the leaf kept), over
#    64 bytes: byte for byte DTRACE_KAGG=0's and DTRACE_CGEN=0's, at
#    strsize 256 and 8 (the leaf cut before the function, as
#    copyinstr() cuts it);
#  - string literals among the keys (the toolkit's @num[FILE, "func",
#    NAME] and @num["-", "total", "-"] into one aggregation, a literal
#    beside copyinstr(), beside a this-> string at strsize 256): 0 in
#    the kernel's key, the literal made again by the
#    merge, cut at strsize - 1 (a 12-byte one at strsize 8), three ways
#    at strsize 256 and 8;
#  - three copyinstr() leaves in one key (the book's rb_calls.d, the
#    toolkit's rb_funccalls.d), a long path among them;
#  - -v: the clauses aggregated in the kernel, where this tree before
#    left them to user space ("basename(), a string the kernel does not
#    key by"); a tree of two leaves stays user space's, -v saying so.
#
# Globals only BEGIN stores (kplan_fkey.c's kp_run_const()): printed
# (the toolkit's color scripts: color_shell = "\033[2;35m" in BEGIN) and
# as keys, by dtrace with BEGIN's values, the clause the kernel's; one
# that a probe's clause stores too, or that a predicate reads, leaves
# its clause user space's as before, -v saying so.
#
# this-> reads after a store (kplan_vars.c's kp_dset_make()): a this->
# variable stored at the clause's top level and read after, of a type
# that an unset one's signed 0 is not (py_flowtime.d's this->delta =
# (timestamp - self->last) / 1000, printed): typed as set, so the
# clause is the kernel's where this tree before left it to user space
# ("clause N would compute differently with it set and unset"); the
# unsigned arithmetic of a wrapped value as user space makes it, three
# ways, known answers; a store in a branch, or a read before the
# store, are not typed as set: their printf()s are the kernel's by
# forms chosen at the hit (kplan_out.c's "Printed forms"), the output
# the same three ways.
#
# The toolkit's *_calltime.d pair whole (kplan_vars.c's
# vars_type_pass(), typed_all()): self->exclude[] stored 0 (deleted)
# and += an unsigned this-> value, so unsigned where set and a signed 0
# unset, found by supposing the zero's type and then the stores' (a
# fixpoint); the return clause typed over its 6 open bits (two reads
# each of self->function[] and self->exclude[], the two this->
# integers) where 4 were the most; its literal keys ("func", "total")
# typed as the copy's 0s: both clauses the kernel's where this tree
# before left them to user space ("key 1, a string the kernel does not
# key by"), the known sums (nested calls, an unsigned wrap) three ways
# at strsize 256 and 8, and with timestamp itself the counts.
#
# A this-> string holding a format-time value as a key (kplan_fkey.c's
# format-time variables): this->file = basename(copyinstr(arg0)), then
# @num[this->file, "func", this->name], kept by the kernel as the
# copy's bytes and named by the merge; a dirname() of another clause;
# the *_calltime.d pair with its basename(): the kernel's, three ways
# at strsize 256 and 8, known answers (and *_cputime.d's, vtimestamp
# read beside the kept strings: the counts); printed, stored twice, read in a
# predicate or before its store: user space's, -v saying so.  A dead
# one, never read, may hold a function of two copyinstr() leaves (the
# toolkit's *_syscolors.d: this->name = strjoin(strjoin(copyinstr(arg0),
# "::"), copyinstr(arg1))): the kernel makes the copies, so the color
# scripts' clauses of self->last are the kernel's, three ways at 256
# and 8, known lines (run-cgen-svkey.sh's dead.d: the faults).
#
# A self-> string holding a format-time value (kplan_fkey.c's self->
# ones): the toolkit's *_malloc.d (self->file = basename(copyinstr(arg0))
# at function-entry, cleared at its return (by 0, and by ""), keyed
# with self->name at another probe, tested against NULL) and
# sh_syscalls.d (stored under /self->filename == NULL/, keyed beside a
# literal and copyinstr()):
# every clause the kernel's, three ways at 256 and 8, known answers, an
# unset one keying ""; printed, compared with another literal or stored
# from two trees: user space's, -v saying so.  NULL against a string
# the kernel keeps or copies is "" (the book's nismatch.d's
# /self->map != NULL/): the kernel's, three ways, known lines.  Their
# clause keyed by usym(ucaller) under /self->name == NULL/ (or !=),
# user space's, has its predicate tested by the kernel and is run on
# that truth, so self->name stays the kernel's: three ways, known sums.
# An argument a probe has not, read beside self-> variables the kernel
# keeps: 0, as user space reads it (the run was refused before).
#
# A this-> variable each clause keeps to itself (kplan_vars.c's
# this_private(): every read after its clause's own store) does not tie
# a clause the kernel runs to one user space runs (the book's
# sshcipher2.d's this->oncpu): three ways, known sums; one read where
# its clause did not store it still ties.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup usdt

interp_build

long=/a/folder/name/long/enough/that/the/whole/path/passes/sixty-four/bytes

# three NAME D-FILE SCRIPT [DTRACE-ARGS]: ./interp <SCRIPT under D-FILE
# with the generated programs (NAME.1), DTRACE_KAGG=0 (NAME.k) and
# DTRACE_CGEN=0 (NAME.0), byte for byte alike
three() {
	t_name=$1 t_d=$2 t_in=$3
	shift 3
	"$DTRACE" -v -q "$@" -s "$t_d" -c ./interp <"$t_in" \
		>"$t_name.1" 2>"$t_name.1.err"
	expect_eq "$t_name: dtrace's status" 0 $?
	DTRACE_KAGG=0 "$DTRACE" -q "$@" -s "$t_d" -c ./interp <"$t_in" \
		>"$t_name.k" 2>"$t_name.k.err"
	expect_eq "$t_name: DTRACE_KAGG=0's status" 0 $?
	DTRACE_CGEN=0 "$DTRACE" -q "$@" -s "$t_d" -c ./interp <"$t_in" \
		>"$t_name.0" 2>"$t_name.0.err"
	expect_eq "$t_name: DTRACE_CGEN=0's status" 0 $?
	expect_file_eq "$t_name: DTRACE_KAGG=0's output" "$t_name.k" \
		"$t_name.1"
	expect_file_eq "$t_name: DTRACE_CGEN=0's output" "$t_name.0" \
		"$t_name.1"
}

# kernel NAME COUNT: -v of NAME.1 says COUNT clauses aggregated in the
# kernel and none in user space
kernel() {
	if [ "$2" = 1 ]; then
		k_c='1 clause'
	else
		k_c="$2 clauses"
	fi
	expect_grep "$1: -v" "^dtrace: $k_c aggregated in the kernel\$" \
		"$1.1.err"
	expect_eq "$1: no clause in user space" "" \
		"$(grep 'runs in user space' "$1.1.err")"
}

# both NAME D-FILE SCRIPT COUNT: three and kernel at strsize 256 (NAME)
# and 8 (NAME8)
both() {
	three "$1" "$2" "$3"
	kernel "$1" "$4"
	three "${1}8" "$2" "$3" -x strsize=8
	kernel "${1}8" "$4"
}

# ---------------------------------------------------------------------
# The known answer: x.py from three folders and from none, one entry
# each; the long path's hit is the kernel's too (kaggs_s keeps 64
# bytes, kaggs_l the longer), its entry merged with the others

cat >known.txt <<EOF
call /usr/lib/x.py f 1
call /src/x.py f 2
call x.py g 4
call /src/y.py f 8
call $long/x.py f 16
call /usr/lib/x.py f 32
EOF
cat >known.d <<'EOF'
interp$target:::function-entry
{
	@c[basename(copyinstr(arg0))] = count();
	@s[basename(copyinstr(arg0)), copyinstr(arg1)] = sum(arg2);
}
END
{
	printa("%s %@d\n", @c);
	printa("%s %s %@d\n", @s);
}
EOF
three known known.d known.txt
kernel known 1
printf '%s\n' 'y.py 1' 'x.py 5' 'x.py g 4' 'y.py f 8' 'x.py f 51' '' >known.exp
expect_file_eq "known: the counts and sums" known.exp known.1
expect_grep "known: the long path's hit in the kernel too" \
	'^dtrace: BPF: .* 0 records read$' known.1.err

# the toolkit's py_calls.d, as its text has it (but the provider)
cat >pycalls.d <<'EOF'
dtrace:::BEGIN
{
	printf("Tracing... Hit Ctrl-C to end.\n");
}

interp$target:::function-entry
{
	@funcs[pid == $target, basename(copyinstr(arg0)), copyinstr(arg1)] =
	    count();
}

dtrace:::END
{
	printf(" %-6s %-30s %-30s %8s\n", "PID", "FILE", "FUNC", "CALLS");
	printa(" %-6d %-30s %-30s %@8d\n", @funcs);
}
EOF
three pycalls pycalls.d known.txt
kernel pycalls 1
{
	echo 'Tracing... Hit Ctrl-C to end.'
	printf ' %-6s %-30s %-30s %8s\n' PID FILE FUNC CALLS
	printf ' %-6d %-30s %-30s %8d\n' 1 x.py g 1 1 y.py f 1 1 x.py f 4
	echo
} >pycalls.exp
expect_file_eq "pycalls: py_calls.d's report" pycalls.exp pycalls.1

# the book's rb_calls.d, @funcs[pid, basename(copyinstr(arg2)),
# copyinstr(arg0), copyinstr(arg1)]: three copyinstr() leaves in one
# kaggs_s key (kplan.c's str_pair_keys(): a third after the second's
# NUL), the long path's in kaggs_l; interp's FILE, FUNC and FILE again
# (its dirname()).  Before, the clause was user space's ("key 3: a
# second string key, of a pair the kernel does not keep")
cat >rbcalls.d <<'EOF'
interp$target:::function-entry
{
	@funcs[pid == $target, basename(copyinstr(arg0)), copyinstr(arg1),
	    dirname(copyinstr(arg0))] = count();
}

dtrace:::END
{
	printa("%d %s %s %s %@d\n", @funcs);
}
EOF
three rbcalls rbcalls.d known.txt
kernel rbcalls 1
{
	printf '1 %s %s %s 1\n' x.py f "$long" x.py f /src x.py g . y.py f /src
	printf '1 x.py f /usr/lib 2\n\n'
} >rbcalls.exp
expect_file_eq "rbcalls: the counts" rbcalls.exp rbcalls.1
expect_grep "rbcalls: no record read" '^dtrace: BPF: .* 0 records read$' \
	rbcalls.1.err

# ---------------------------------------------------------------------
# Every function, every aggregating one, on awkward paths, three ways at
# strsize 256 and 8

esc=$(printf '\033')
awk -v long="$long" -v esc="$esc" 'BEGIN {
	nd = split("/usr/lib/python3 /src /opt/app/lib /a . " long, d, " ")
	nf = split("os.py x.py util.py Caps.PY noext a" esc "b.py", f, " ")
	nu = split("f g main h", u, " ")
	s = 7
	for (i = 0; i < 300; i++) {
		s = (s * 1103515245 + 12345) % 2147483648
		p = d[1 + int(s / 7) % (nd + 1)]
		p = (p == "" ? "" : p "/") f[1 + int(s / 11) % nf]
		printf "call %s %s %d\n", p, u[1 + int(s / 13) % nu], s % 301
	}
}' >mix.txt
cat >mix.d <<'EOF'
interp$target:::function-entry
{
	@funcs[pid == $target, basename(copyinstr(arg0)), copyinstr(arg1)] =
	    count();
	@d[dirname(copyinstr(arg0))] = sum(arg2);
	@u[toupper(basename(copyinstr(arg0)))] = max(arg2);
	@l[tolower(copyinstr(arg0))] = min(arg2);
	@j[strjoin(copyinstr(arg1), "()")] = quantize(arg2);
	@x[lltostr(arg2 % 7, 16)] = avg(arg2);
	@r[strrchr(copyinstr(arg0), '.')] = min(arg2);
	@c[strchr(copyinstr(arg0), 'y')] = count();
	@t[substr(copyinstr(arg0), 1, 3)] = stddev(arg2);
	@z[strstr(basename(copyinstr(arg0)), "py")] = count();
	@n[substr(strjoin("<", basename(copyinstr(arg0))), -4)] = sum(arg2);
}

interp$target:::function-entry
{
	this->f = copyinstr(arg0);
	@v[basename(this->f)] = count();
	@e[toupper(execname)] = count();
}
EOF
both mix mix.d mix.txt 2
expect_grep "mix: a key escaped by printa()" 'a\\x1bb\.py' mix.1

# string literals among the keys: the toolkit's two statements into one
# aggregation, a literal beside copyinstr(), a this-> string beside a
# literal, two this-> strings with a literal between them (the toolkit's
# *_calltime.d key: the two a pair of 256-byte rooms at strsize 256)
cat >lit.d <<'EOF'
interp$target:::function-entry
{
	this->name = copyinstr(arg1);
	this->file = copyinstr(arg0);
	@f[this->file, "func", this->name] = count();
	@num[basename(copyinstr(arg0)), "func", this->name] = count();
	@num["-", "total", "-"] = count();
	@s[copyinstr(arg0), "method-entry"] = sum(arg2);
	@m[pid == $target, "method", this->name] = max(arg2);
}
EOF
both lit lit.d mix.txt 1
expect_grep "lit: the total" '^ *- *total *- *300$' lit.1
expect_grep "lit8: the literal cut" '^ .*method- ' lit8.1

# the toolkit's *_calltime.d key, @num[FILE, "func", NAME], FILE and
# NAME this-> strings in a program whose kernel keeps self-> variables
# (so they are kept as their bytes, kaggs_v's, not as the arguments'
# copies): the literal a 0, the two strings a pair of 256-byte rooms at
# strsize 256, names of 254 bytes differing at their last (interp
# rewrites its names after each line and exits at the end of its input,
# so a string of 255, which the references' records leave to a read
# after the hit, would not be the hit's there: run-cgen-svkey.sh's
# vpair.d has those); this tree before left the clause to user space
# ("key 2: a second string key, whose pair passes kaggs_v's room")
f254=$(printf '%0254d' 0 | tr 0 f)
n254=$(printf '%0254d' 0 | tr 0 n)
{
	for i in 1 2 3; do
		for f in "$f254" "${f254%f}g" short.py; do
			for n in "$n254" "${n254%n}m" run; do
				echo "call $f $n $i"
				echo "return $f $n $i"
			done
		done
	done
} >calltime.txt
cat >calltime.d <<'EOF'
interp$target:::function-entry { self->depth++; }
interp$target:::function-return /self->depth/
{
	this->file = copyinstr(arg0);
	this->name = copyinstr(arg1);
	@num[this->file, "func", this->name] = count();
	@num["-", "total", "-"] = count();
	@lines[this->file, "func", this->name] = sum(arg2);
	self->depth--;
}
EOF
both calltime calltime.d calltime.txt 2
expect_eq "calltime: the pairs counted apart" 9 \
	"$(grep -c ' func .* 3$' calltime.1)"

# the toolkit's js_calls.d and rb_calls.d shape: this->name an argument's
# string, a different argument in each clause (so a string the kernel
# keeps as its bytes, not one argument's), keyed beside basename() of
# another argument, a format-time this-> string and literals: the
# argument's string a room of the pair beside the variable's (AKEY:
# kplan.c's vkey_pair()), every clause the kernel's where this tree
# before left them to user space ("key 3, a string the kernel does not
# key by"); the known counts three ways at strsize 256 and 8
cat >jscalls.d <<'EOF'
interp$target:::function-entry
{
	this->name = copyinstr(arg1);
	@calls[basename(copyinstr(arg0)), "func", this->name] = count();
}
interp$target:::function-return
{
	this->filename = basename(copyinstr(arg0));
	@calls[this->filename, "exec", "."] = count();
}
interp$target:::line
{
	this->name = copyinstr(arg0);
	this->filename = basename(copyinstr(arg1));
	@calls[this->filename, "obj-new", this->name] = count();
}
interp$target:::function-return
{
	this->name = copyinstr(arg1);
	@calls["<null>", "obj-free", this->name] = count();
}
END
{
	printa(" %-24s %-10s %-30s %@8d\n", @calls);
}
EOF
{
	cat known.txt
	echo "return /usr/lib/x.py f 1"
	echo "return $long/y.py $f254 2"
	echo "line /usr/lib/a.js /x/obj.js 3"
	echo "line $long/b.js z/obj.js 3"
} >jscalls.txt
both jscalls jscalls.d jscalls.txt 4
{
	printf ' %-24s %-10s %-30s %8d\n' '<null>' obj-free f 1 \
		'<null>' obj-free "$f254" 1 obj.js obj-new "$long/b.js" 1 \
		obj.js obj-new /usr/lib/a.js 1 x.py exec . 1 x.py func g 1 \
		y.py exec . 1 y.py func f 1 x.py func f 4
	echo
} >jscalls.exp
expect_file_eq "jscalls: the counts" jscalls.exp jscalls.1

# two leaves: user space's, said
cat >two.d <<'EOF'
interp$target:::function-entry
{
	@[strjoin(copyinstr(arg0), copyinstr(arg1))] = count();
}
EOF
three two two.d known.txt
expect_grep "two: -v" \
	'^dtrace: clause 1 (.*) runs in user space, from its record: line 3: its @ = count() is not one the kernel runs: key 1, strjoin(), a string the kernel does not key by$' \
	two.1.err

# ---------------------------------------------------------------------
# Globals only BEGIN stores: printed from the records, and as keys, by
# dtrace with BEGIN's values (the toolkit's color scripts); one another
# clause stores, and one a predicate reads, as before

cat >const.d <<'EOF'
BEGIN
{
	color = "\033[2;35m";
	off = "\033[0m";
	top = 2;
	tag = "calls";
}

interp$target:::function-entry
{
	printf("%s%s %d%s %s\n", color, copyinstr(arg1), arg2 + top, off,
	    strjoin(tag, "!"));
	@c[tag, copyinstr(arg1)] = count();
	@t[top, basename(copyinstr(arg0))] = sum(arg2);
}
EOF
three const const.d known.txt
expect_eq "const: no clause in user space" "" \
	"$(grep 'runs in user space' const.1.err)"
expect_grep "const: -v: printed in the kernel" \
	'^dtrace: 1 clause printing values computed in the kernel$' \
	const.1.err
esc=$(printf '\033')
{
	for l in 'f 3' 'f 4' 'g 6' 'f 10' 'f 18' 'f 34'; do
		printf '%s[2;35m%s%s[0m calls!\n' "$esc" "$l" "$esc"
	done
	echo
	printf '  %-50s  %-50s %16d\n' calls g 1 calls f 5
	printf '%9d  %-50s %16d\n' 2 y.py 8 2 x.py 55
} >const.exp
expect_file_eq "const: the values" const.exp const.1

cat >constu.d <<'EOF'
BEGIN
{
	color = "<";
	top = 2;
}

interp$target:::function-entry
/arg2 > 8/
{
	color = ">";
}

interp$target:::function-entry
{
	printf("%s %s\n", color, copyinstr(arg1));
}

interp$target:::function-entry
/arg2 > top/
{
	@[copyinstr(arg1)] = count();
}
EOF
three constu constu.d known.txt
expect_grep "constu: -v: stored by a probe's clause" \
	'^dtrace: clause 3 (.*) runs in user space, .*argument 1: color is a global scalar: the kernel keeps self-> and this-> variables, global arrays and counters$' \
	constu.1.err
# (top, a global BEGIN alone stores, is a run constant the kernel reads
# from cgrcon since 2026-12-05: kplan_fkey.c)
expect_eq "constu: a predicate reading a run constant, the kernel's" "" \
	"$(grep '^dtrace: clause 4 (.*) runs in user space' constu.1.err)"

# -v names the root where a printed string variable is not kept because
# of a tie (the book's mysqld_qsnoop.d: a global BEGIN set, read at the
# probe into this->now, kept the printing clause, so the self-> string
# it prints, in user space, until the run constants): the global in the
# printing clause, the tie in the storing one (before 2026-12-05:
# "argument 2, a string the kernel does not compute" in the printing
# clause)
cat >tzero.d <<'EOF'
BEGIN
{
	tz = timestamp;
}

interp$target:::function-entry
{
	self->f = copyinstr(arg1);
	self->s = 1;
}

interp$target:::function-return
/self->s/
{
	this->now = (timestamp - tz) / 1000000000000;
	printf("%d %s\n", this->now, self->f);
	self->f = 0;
	self->s = 0;
}
EOF
# (calls.txt: calls that return, one line each for the printing clause)
printf '%s\n' 'call /a.py f 1' 'return /a.py f 1' 'call /a.py g 9' \
	'return /a.py g 9' 'call /b.py h 12' 'return /b.py h 12' >calls.txt
three tzero tzero.d calls.txt
expect_eq "tzero: a line for each return" "0 f|0 g|0 h" \
	"$(grep . tzero.1 | paste -sd'|' -)"
# (since 2026-12-05 tz is a run constant the kernel reads: kplan_fkey.c)
expect_eq "tzero: every clause the kernel's" "" \
	"$(grep 'runs in user space' tzero.1.err)"
# ... and where BEGIN's store is under a predicate (a type that is not
# the zero's, which BEGIN may not give it), the global's reason in the
# printing clause, the tie in the storing one
sed 's|^BEGIN$|BEGIN /$target != 0/|' tzero.d >tzerop.d
three tzerop tzerop.d calls.txt
expect_file_eq "tzerop: tzero's output" tzero.1 tzerop.1
expect_grep "tzerop: -v: the global, in the printing clause" \
	'^dtrace: clause 3 (.*) runs in user space, .*: line 15: its store to this->now is not one the kernel runs: tz is a global BEGIN alone stores, but not one type the kernel knows before BEGIN fires' \
	tzerop.1.err
expect_grep "tzerop: -v: the tie, in the storing clause" \
	'^dtrace: clause 2 (.*) runs in user space, .*self->f is also stored by clause 3, which runs in user space' \
	tzerop.1.err

# pg_qslower.d's `this->etime = self->exec / 1000000`, self->exec
# unsigned where set, a signed 0 where not, printed with %d: the kernel's
# since 2026-12-06 (kplan_zform.c: every other form stores 0, and 0 is
# printed the same), the output the three ways' (before, "the store has
# no one type"); printed with %+d, where a signed 0 is +0, the clause
# stays user space's and -v names the type a store cannot have, and the
# cast it names makes the clause the kernel's, the output the same
cat >etime.d <<'EOF'
interp$target:::function-entry
{
	self->start = timestamp;
}

interp$target:::function-entry
/arg2 > 8/
{
	self->exec = timestamp - self->start;
}

interp$target:::function-return
/self->start/
{
	this->etime = self->exec / 1000000000000;
	printf("%d\n", this->etime);
	self->start = 0;
	self->exec = 0;
}
EOF
three etime etime.d calls.txt
expect_eq "etime: a 0 for each return" "0|0|0" \
	"$(grep . etime.1 | paste -sd'|' -)"
expect_eq "etime: every clause the kernel's" "" \
	"$(grep 'runs in user space' etime.1.err)"
sed 's|%d|%+d|' etime.d >etimep.d
three etimep etimep.d calls.txt
expect_eq "etimep: a +0 for each return" "+0|+0|+0" \
	"$(grep . etimep.1 | paste -sd'|' -)"
expect_grep "etimep: -v: the store's two types" \
	'^dtrace: clause 3 (.*) runs in user space, .*this->etime: its store at line 15 reads self->exec, an unsigned 8-byte value set and a signed 8-byte 0 unset, so the store has no one type (a cast, (int64_t)self->exec, gives it one)$' \
	etimep.1.err
sed 's|self->exec / 1000000000000|(int64_t)self->exec / 1000000000000|' \
	etimep.d >etimec.d
three etimec etimec.d calls.txt
expect_file_eq "etimec: etimep's output" etimep.1 etimec.1
expect_eq "etimec: every clause the kernel's" "" \
	"$(grep 'runs in user space' etimec.1.err)"

# ---------------------------------------------------------------------
# this-> reads after a store

# py_flowtime.d's shape, its times made known values: this->u is
# unsigned (LINE - 1000 wraps), an unset one a signed 0
cat >flow.d <<'EOF'
interp$target:::function-entry
/self->last == 0/
{
	self->last = (int64_t)1000;
}

interp$target:::function-entry
{
	this->u = (uint64_t)arg2 - self->last;
	printf("%d %d %d %x\n", this->u / 2, this->u > 0, this->u >> 60,
	    this->u);
	@[this->u / 4 > 0] = sum(this->u % 1000);
	self->last = arg2;
}
EOF
printf 'call /a/x.py f %s\n' 999 2000 1 >flow.txt
three flow flow.d flow.txt
kernel flow 1
expect_grep "flow: -v: printed in the kernel" \
	'^dtrace: 1 clause printing values computed in the kernel$' flow.1.err
{
	echo '9223372036854775807 1 15 ffffffffffffffff'
	echo '500 1 0 3e9'
	echo '9223372036854774808 1 15 fffffffffffff831'
	echo
	printf '        %d %16d\n' 1 1233
} >flow.exp
expect_file_eq "flow: the values" flow.exp flow.1

# a store in a branch, a read before the store: not typed as set, but
# printed by forms chosen at the hit (kplan_out.c's "Printed forms":
# the clauses user space's before, -v saying "set and unset"), three
# ways
cat >flowb.d <<'EOF'
interp$target:::function-entry
{
	if (arg2 > 1) {
		this->u = (uint64_t)arg2 - 1000;
	}
	printf("%d\n", this->u - 1 > 0);
}

interp$target:::function-entry
{
	printf("%d ", this->v - 1 > 0);
	this->v = (uint64_t)arg2 - 1000;
	printf("%d\n", this->v - 1 > 0);
}
EOF
three flowb flowb.d flow.txt
printf '%s\n' 1 '0 1' 1 '0 1' 0 '0 1' '' >flowb.exp
expect_file_eq "flowb: the values" flowb.exp flowb.1
expect_grep "flowb: -v: printed by forms in the kernel" \
	'^dtrace: 2 clauses printing values computed in the kernel$' \
	flowb.1.err
expect_eq "flowb: no clause in user space" "" \
	"$(grep 'runs in user space' flowb.1.err)"

# ---------------------------------------------------------------------
# The toolkit's *_calltime.d pair whole, its times made known values
# (LINE as an unsigned clock): nested calls, the exclusive time of each
# the inclusive less its callees', and a return before its entry's time
# (an unsigned wrap, summed as a signed -5)

cat >ctime.d <<'EOF'
interp$target:::function-entry
{
	self->depth++;
	self->exclude[self->depth] = 0;
	self->function[self->depth] = (uint64_t)arg2;
}

interp$target:::function-return
/self->function[self->depth]/
{
	this->elapsed_incl = (uint64_t)arg2 - self->function[self->depth];
	this->elapsed_excl = this->elapsed_incl - self->exclude[self->depth];
	self->function[self->depth] = 0;
	self->exclude[self->depth] = 0;
	this->file = copyinstr(arg0);
	this->name = copyinstr(arg1);
	@num[this->file, "func", this->name] = count();
	@num["-", "total", "-"] = count();
	@types_incl[this->file, "func", this->name] = sum(this->elapsed_incl);
	@types_excl[this->file, "func", this->name] = sum(this->elapsed_excl);
	@types_excl["-", "total", "-"] = sum(this->elapsed_excl);
	self->depth--;
	self->exclude[self->depth] += this->elapsed_incl;
}

END
{
	printa("%s %s %s %@d\n", @num);
	printa("%s %s %s %@d\n", @types_incl);
	printa("%s %s %s %@d\n", @types_excl);
}
EOF
printf '%s\n' 'call a.py f 10' 'call a.py g 20' 'call b.py h 21' \
	'return b.py h 24' 'return a.py g 30' 'call a.py g 31' \
	'return a.py g 32' 'return a.py f 40' 'return a.py f 41' \
	'call c.py k 50' 'return c.py k 45' >ctime.txt
both ctime ctime.d ctime.txt 2
{
	printf '%s\n' 'a.py func f 1' 'b.py func h 1' 'c.py func k 1' \
		'a.py func g 2' '- total - 5'
	printf '%s\n' 'c.py func k -5' 'b.py func h 3' 'a.py func g 11' \
		'a.py func f 30'
	printf '%s\n' 'c.py func k -5' 'b.py func h 3' 'a.py func g 8' \
		'a.py func f 19' '- total - 25' ''
} >ctime.exp
expect_file_eq "ctime: the counts and times" ctime.exp ctime.1

# ... with timestamp, as the toolkit has it: the kernel's, the counts
sed 's/(uint64_t)arg2/timestamp/; /@types/d' ctime.d >ctimets.d
three ctimets ctimets.d ctime.txt
kernel ctimets 2
{
	head -n 5 ctime.exp
	echo
} >ctimets.exp
expect_file_eq "ctimets: the counts" ctimets.exp ctimets.1


# ---------------------------------------------------------------------
# A this-> string holding a format-time value, then a key (kplan_fkey.c's
# format-time variables): this->file = basename(copyinstr(arg0)) kept
# by the kernel as the copy's bytes, the merge making basename() of
# them; another clause's this->file a dirname(); this->name beside it a
# pair of bytes kept; three ways at strsize 256 and 8 on the awkward
# paths, and the known answer

cat >fvar.d <<'EOF'
interp$target:::function-entry
{
	this->file = basename(copyinstr(arg0));
	this->name = copyinstr(arg1);
	@num[this->file, "func", this->name] = count();
	@num["-", "total", "-"] = count();
	@s[this->file] = sum(arg2);
}

interp$target:::function-entry
/arg2 > 100/
{
	this->file = toupper(dirname(copyinstr(arg0)));
	@d[pid == $target, this->file] = max(arg2);
}
EOF
both fvar fvar.d mix.txt 2
three fvark fvar.d known.txt
{
	echo
	printf '  %-50s  %-50s  %-50s %16d\n' x.py func g 1 y.py func f 1 \
		x.py func f 4 - total - 6
	printf '  %-50s %16d\n' y.py 8 x.py 55
} >fvark.exp
expect_file_eq "fvark: the counts and sums" fvark.exp fvark.1

# the toolkit's *_calltime.d pair with its basename(), times known
sed 's/this->file = copyinstr(arg0)/this->file = basename(copyinstr(arg0))/' \
	ctime.d >ctimeb.d
sed 's#^\(call\|return\) #&/usr/lib/#' ctime.txt >ctimeb.txt
both ctimeb ctimeb.d ctimeb.txt 2
expect_file_eq "ctimeb: the counts and times" ctime.exp ctimeb.1
# ... and as *_cputime.d has it, with vtimestamp: the return clause
# keeps this->file's copy and this->name (an out area) and reads the
# clock, a fault site there (the kernel keeps self-> variables), which
# this tree before refused; the counts
# (vtimestamp's seed needs the kernel's BTF: run-vtimestamp.sh)
if [ -f /sys/kernel/btf/vmlinux ]; then
	sed 's/(uint64_t)arg2/vtimestamp/; /@types/d' ctimeb.d >cputime.d
	three cputime cputime.d ctimeb.txt
	kernel cputime 2
	expect_file_eq "cputime: the counts" ctimets.exp cputime.1
fi

# the toolkit's and the book's rb_calltime.d (rb_cputime.d, rb_calldist.d
# alike): this->name = strjoin(strjoin(copyinstr(arg0), "::"),
# copyinstr(arg1)), computed by the kernel at the store (kplan_str.c's
# "Joins") and keyed beside this->file's basename() as a pair of rooms;
# and the object-create clause's this->file = this->file != NULL ?
# this->file : "." after its basename() store, a store that changes
# nothing (kplan_fkey.c's kp_fvar_noop(): basename() never gives "",
# and run.c compares "" with NULL as equal).  This tree before left every
# clause to user space ("key 1, a string the kernel does not key by");
# now all three are the kernel's, three ways at strsize 256 and 8 (the
# paths and the joined names cut to 7 bytes, their entries merged), the
# known counts and times at 256, and basename()s of "/usr/lib/" and "/"
{
	sed '/^END$/,$d; s/this->name = copyinstr(arg1);/this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1));/' \
		ctimeb.d
	cat <<'EOF'
interp$target:::line
{
	this->file = basename(copyinstr(arg0));
	this->file = this->file != NULL ? this->file : ".";
	this->name = copyinstr(arg1);
	@num[this->file, "obj-new", this->name] = count();
}

EOF
	sed -n '/^END$/,$p' ctimeb.d
} >rbtime.d
grep -q 'this->name = strjoin(' rbtime.d ||
	fail "rbtime.d: ctimeb.d's this->name store not found"
{
	cat ctimeb.txt
	printf '%s\n' 'line /usr/lib/a.py x 1' 'line /usr/lib/ y 2' \
		'line / z 3' 'line /usr/lib/a.py x 4'
} >rbtime.txt
both rbtime rbtime.d rbtime.txt 3
{
	printf '%s\n' '/ obj-new z 1' 'a.py func /usr/lib/a.py::f 1' \
		'b.py func /usr/lib/b.py::h 1' 'c.py func /usr/lib/c.py::k 1' \
		'lib obj-new y 1' 'a.py func /usr/lib/a.py::g 2' \
		'a.py obj-new x 2' '- total - 5'
	sed -n '6,$p' ctime.exp |
		sed 's#^\(.\)\.py func \(.\) #\1.py func /usr/lib/\1.py::\2 #'
} >rbtime.exp
expect_file_eq "rbtime: the counts and times" rbtime.exp rbtime.1
expect_grep "rbtime8: the names cut, merged" '^li func /usr/li 5$' rbtime8.1

# the toolkit's *_syscolors.d (php_syscolors.d's clauses but the
# syscall ones, (uint64_t)LINE as the clock): its dead this->name =
# strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1)), the two
# copies made and nothing kept, which this tree before left to user
# space with every clause of self->last; three ways at strsize 256 and
# 8, the known lines, and the awkward paths entered and returned from
cat >colors.d <<'EOF'
self int depth;

dtrace:::BEGIN
{
	color_on = "\033[2;35m";
	color_off = "\033[0m";
	self->depth = 0;
}

interp$target:::function-entry,
interp$target:::function-return
/self->last == 0/
{
	self->last = (uint64_t)arg2;
}

interp$target:::function-entry
/arg0/
{
	this->delta = ((uint64_t)arg2 - self->last) / 2;
	printf("%s%d %16s:%-4d %*s-> %s%s\n", color_on, this->delta,
	    basename(copyinstr(arg0)), arg2, self->depth * 2, "",
	    copyinstr(arg1), color_off);
	self->depth++;
	self->last = (uint64_t)arg2;
}

interp$target:::function-return
/arg0/
{
	this->delta = ((uint64_t)arg2 - self->last) / 2;
	this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1));
	self->depth -= self->depth > 0 ? 1 : 0;
	printf("%s%d %16s:%-4d %*s<- %s%s\n", color_on, this->delta,
	    basename(copyinstr(arg0)), arg2, self->depth * 2, "",
	    copyinstr(arg1), color_off);
	self->last = (uint64_t)arg2;
}
EOF
for x in '' 8; do
	three colors$x colors.d ctime.txt ${x:+-x strsize=$x}
	expect_grep "colors$x: -v" \
		'^dtrace: 2 clauses printing values computed in the kernel$' \
		colors$x.1.err
	kernel colors$x 1
done
# (delta, file, line, indent, arrow, name; the last return's line
# before its entry's: an unsigned wrap halved)
printf '%s\n' '0 a.py 10 0 -> f' '5 a.py 20 2 -> g' '0 b.py 21 4 -> h' \
	'1 b.py 24 4 <- h' '3 a.py 30 2 <- g' '0 a.py 31 2 -> g' \
	'0 a.py 32 2 <- g' '4 a.py 40 0 <- f' '0 a.py 41 0 <- f' \
	'4 c.py 50 0 -> k' '9223372036854775805 c.py 45 0 <- k' |
	while read -r d f l i a n; do
		printf '\033[2;35m%s %16s:%-4d %*s%s %s\033[0m\n' \
			"$d" "$f" "$l" "$i" '' "$a" "$n"
	done >colors.exp
echo >>colors.exp
expect_file_eq "colors: the lines" colors.exp colors.1
awk '{ print; $1 = "return"; print }' mix.txt >colorsm.txt
three colorsm colors.d colorsm.txt
kernel colorsm 1

# -v names the root (kplan_why.c's tie_clause()): with this->name a
# function of an integer leaf (lltostr(LINE): a dead store's leaves are
# copyinstr()s only), the return clause is user space's for it, and the
# other clauses for self->last, which that clause touches; -v said
# "this->delta: its store reads self->last" of each, the dead store
# named nowhere
sed 's/this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1));/this->name = strjoin(copyinstr(arg0), lltostr(arg2));/' \
	colors.d >colorsu.d
three colorsu colorsu.d ctime.txt
expect_grep "colorsu: -v names the store" \
	'^dtrace: clause 4 (.*) runs in user space, from its record: line [0-9]*: its store to this->name is not one the kernel runs: this->name is a string the kernel does not keep' \
	colorsu.1.err
for c in 2 3; do
	expect_grep "colorsu: -v ties clause $c to it" \
		"^dtrace: clause $c (.*) runs in user space, from its record: .*also touched by clause 4, which runs in user space\$" \
		colorsu.1.err
done

# Printed whole (kplan_fkey.c's kp_fvar_out()): the toolkit's and the
# book's rb_flowinfo.d (and rb_syscolors.d, rb_syscalls.d) print
# this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1)):
# the kernel copies each leaf into a room of its own at the store, the
# printf() copies the rooms into the record, and dtrace evaluates the
# store's tree over them when it formats.  Both clauses the kernel's
# (this tree before left them, and the self-> variables they touch, to
# user space: "this->name is a string the kernel does not keep"),
# three ways at strsize 256, 8 and 2, the known lines at 256.
cat >flowinfo.d <<'EOF'
self int depth;

interp$target:::function-entry,
interp$target:::function-return
/self->last == 0/
{
	self->last = arg2;
}

interp$target:::function-entry
{
	this->delta = (arg2 - self->last);
	this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1));
	printf("%10d  %16s:%-4d %-8s %*s-> %s\n", this->delta,
	    basename(copyinstr(arg0)), arg2, "method", self->depth * 2, "",
	    this->name);
	self->depth++;
	self->last = arg2;
}

interp$target:::function-return
{
	this->delta = (arg2 - self->last);
	self->depth -= self->depth > 0 ? 1 : 0;
	this->name = strjoin(strjoin(copyinstr(arg0), "::"), copyinstr(arg1));
	printf("%10d  %16s:%-4d %-8s %*s<- %s\n", this->delta,
	    basename(copyinstr(arg0)), arg2, "method", self->depth * 2, "",
	    this->name);
	self->last = arg2;
}
EOF
for x in '' 8 2; do
	three flowinfo$x flowinfo.d ctime.txt ${x:+-x strsize=$x}
	expect_grep "flowinfo$x: -v, the printing clauses" \
		'^dtrace: 2 clauses printing values computed in the kernel$' \
		flowinfo$x.1.err
	kernel flowinfo$x 1
done
# (delta, file, line, indent, arrow, function)
printf '%s\n' '0 a.py 10 0 -> f' '10 a.py 20 2 -> g' '1 b.py 21 4 -> h' \
	'3 b.py 24 4 <- h' '6 a.py 30 2 <- g' '1 a.py 31 2 -> g' \
	'1 a.py 32 2 <- g' '8 a.py 40 0 <- f' '1 a.py 41 0 <- f' \
	'9 c.py 50 0 -> k' '-5 c.py 45 0 <- k' |
	while read -r d f l i a n; do
		printf '%10d  %16s:%-4d %-8s %*s%s %s::%s\n' \
			"$d" "$f" "$l" method "$i" '' "$a" "$f" "$n"
	done >flowinfo.exp
echo >>flowinfo.exp
expect_file_eq "flowinfo: the lines" flowinfo.exp flowinfo.1
# names of 254 bytes and paths past 64 (mix.txt's, both ways): the
# joined name cut at strsize - 1 as run.c's store cuts it
three flowinfom flowinfo.d colorsm.txt
kernel flowinfom 1

# as before, user space's, the output the same three ways: the variable
# printed inside a tree (its store's tree and the printed one are two
# evaluations: only a whole argument is printed from the rooms), read in
# a predicate, or read where no store of its clause came first; stored
# twice as the toolkit's this->file = this->file != NULL ? this->file :
# ".", the second store changing nothing, the kernel's (rbtime above)
cat >fvaru.d <<'EOF'
interp$target:::function-entry
{
	this->a = basename(copyinstr(arg0));
	printf("%s\n", strjoin(this->a, "!"));
	@a[this->a] = count();
}

interp$target:::function-entry
{
	this->b = basename(copyinstr(arg0));
	this->b = this->b != NULL ? this->b : ".";
	@b[this->b] = count();
}

interp$target:::function-entry
/this->c != NULL/
{
	this->c = basename(copyinstr(arg0));
	@c[this->c] = count();
}

interp$target:::function-entry
{
	@d[this->d] = count();
	this->d = basename(copyinstr(arg0));
}
EOF
three fvaru fvaru.d known.txt
for c in 1 3 4; do
	expect_grep "fvaru: clause $c user space's" \
		"^dtrace: clause $c (.*) runs in user space" fvaru.1.err
done
expect_eq "fvaru: clause 2 the kernel's" "" \
	"$(grep '^dtrace: clause 2 (.*) runs in user space' fvaru.1.err)"

# ---------------------------------------------------------------------
# A self-> string holding a format-time value (kplan_fkey.c's self->
# ones): the toolkit's *_malloc.d store self->file =
# basename(copyinstr(arg0)) at function-entry, clear it at its return
# and key another probe's aggregation by it (gc-start and line stand in
# for malloc()), testing it against NULL; sh_syscalls.d stores it under
# /self->filename == NULL/ and keys @calls[self->filename, "func",
# copyinstr(arg1)].  The kernel keeps the leaf's bytes in cgtlss and the
# merge makes basename() of them; unset, the key is "" (lines outside a
# function, after a return), never basename("")'s ".".  This tree before
# left every clause to user space ("self->file is a string the kernel
# does not keep"); now all are the kernel's, three ways at strsize 256
# and 8, the known counts and sums at 256
cat >sfm.txt <<'EOF'
line a.py x 1
call /usr/lib/a.py f 1
line /usr/lib/a.py x 2
gc 1 2
call /src/b.py g 1
line /src/b.py y 4
call /src/a.py f 1
line /src/a.py z 8
return /src/a.py f 1
line /src/b.py y 16
gc 3 4
return /src/b.py g 1
line a.py x 32
gc 5 6
EOF
cat >sfm.d <<'EOF'
interp$target:::function-entry
{
	self->file = basename(copyinstr(arg0));
	self->name = copyinstr(arg1);
}

interp$target:::function-return
{
	self->file = 0;
	self->name = 0;
}

interp$target:::line
{
	@lines[self->file, self->name] = sum(arg2);
}

interp$target:::gc-start
/self->file != NULL/
{
	@gc[self->file] = count();
}

interp$target:::gc-start
/self->file == NULL/
{
	@gc["-"] = count();
}

END
{
	printa("%s %s %@d\n", @lines);
	printa("%s %@d\n", @gc);
}
EOF
both sfm sfm.d sfm.txt 5
printf '%s\n' 'b.py g 4' 'a.py f 10' '  49' 'a.py 1' '- 2' '' >sfm.exp
expect_file_eq "sfm: the sums and counts" sfm.exp sfm.1
# cleared with "" rather than 0: the kernel deletes the entry (SCLR)
# where run.c keeps "", and either reads "" as a key and against NULL
sed 's/self->file = 0;/self->file = "";/' sfm.d >sfe.d
grep -q 'self->file = "";' sfe.d || fail 'sfe.d: sfm.d'"'"'s clear not found'
both sfe sfe.d sfm.txt 5
expect_file_eq "sfe: the sums and counts" sfm.exp sfe.1
# The *_malloc.d scripts' other clause at malloc(): /self->name == NULL/
# { @[usym(ucaller)] = ...; } tests a self-> string it reads nowhere
# else.  Its key was user space's, so the kernel tested the string and
# dtrace ran the clause on that truth (kplan_vin.c's vin_ptest()); now
# the clause is the kernel's, the record carrying the stack whose frame
# 1 dtrace names, the sum given (../d/stmt.c's d_stmt_ucall()).  != NULL
# too, which dtrace's own copy (none: "") would have said false.
cat >sfp.d <<'EOF'
interp$target:::function-entry
{
	self->file = basename(copyinstr(arg0));
	self->name = copyinstr(arg1);
}

interp$target:::function-return
{
	self->file = 0;
	self->name = 0;
}

interp$target:::gc-start
/self->file != NULL/
{
	@gc[self->file, self->name] = sum(arg0);
}

interp$target:::gc-start
/self->name == NULL/
{
	@u[usym(ucaller)] = sum(arg0);
}

interp$target:::gc-start
/self->name != NULL/
{
	@w[usym(ucaller)] = sum(arg0);
}

END
{
	printa("gc %s %s %@d\n", @gc);
	printa("u %@d\n", @u);
	printa("w %@d\n", @w);
}
EOF
# (gc 1 in a.py's f, whose file is "/usr/li" cut at strsize 8; gc 3
# after the inner return cleared both, gc 5 outside)
for xo in '' '-x strsize=8'; do
	sfp=sfp${xo:+8} sff=a.py
	[ -z "$xo" ] || sff=li
	three $sfp sfp.d sfm.txt $xo
	expect_eq "$sfp: the sums" "gc $sff f 1|u 8|w 1" \
		"$(grep -E '^(gc|u|w) ' $sfp.1 | paste -sd'|' -)"
	expect_grep "$sfp: -v" '^dtrace: 3 clauses aggregated in the kernel$' \
		$sfp.1.err
	expect_grep "$sfp: -v" \
		"^dtrace: 2 clauses keying by a user address's name in the kernel, each count made from its record$" \
		$sfp.1.err
	expect_eq "$sfp: -v says no values are read into the records" 0 \
		"$(grep -c 'reading self-> variables the kernel keeps' $sfp.1.err)"
done
# ... and where the clause keying by ucaller's name stays user space's
# for its key (a literal beside a name key: no form the kernel makes),
# the kernel tests the self-> string and dtrace runs the clause on that
# truth (kplan_vin.c's vin_ptest()), as sfp.d's was before
sed -e 's/@u\[usym(ucaller)\]/@u[usym(ucaller), "u"]/' \
	-e 's/@w\[usym(ucaller)\]/@w[usym(ucaller), "w"]/' sfp.d >sfq.d
grep -q '"w"\]' sfq.d || fail 'sfq.d: sfp.d'"'"'s keys not found'
three sfq sfq.d sfm.txt
expect_eq "sfq: the sums" "gc a.py f 1|u 8|w 1" \
	"$(grep -E '^(gc|u|w) ' sfq.1 | paste -sd'|' -)"
expect_grep "sfq: -v" \
	"^dtrace: 2 clauses in user space testing self-> strings the kernel keeps in their predicates, run on the kernel's truth of them$" \
	sfq.1.err
# An argument the probe has not (gc-start has one: arg1) read where the
# kernel keeps a self-> variable: 0 in the kernel as in the record user
# space reads (cgen_plan.c's ARG), a string or copy of it faulting at 0
# (cgen_sarg.c's arg_addr()), where this tree before refused the whole
# run ("no program generated for uprobe event ...")
cat >narg.d <<'EOF'
interp$target:::function-entry
{
	self->n = 1;
}

interp$target:::gc-start
/self->n/
{
	@w[arg1, arg0] = count();
}

interp$target:::gc-start
/self->n/
{
	@s[copyinstr(arg1)] = count();
}

interp$target:::gc-start
/self->n/
{
	@m[*(int *)copyin(arg1, 4)] = count();
}

END
{
	printa("w %d %d %@d\n", @w);
}
EOF
three narg narg.d sfm.txt
kernel narg 4
expect_eq "narg: arg1 0 at each gc after the first call" \
	'w 0 1 1|w 0 3 1|w 0 5 1' "$(grep '^w ' narg.1 | paste -sd'|' -)"
expect_eq "narg: copyinstr(arg1) and copyin(arg1, 4) fault at 0" \
	'3 ID 3: invalid address (0x0) in action #1|3 ID 4: invalid address (0x0) in action #1' \
	"$(sed -n 's/.*error on enabled probe ID \([0-9]*\) .*: \(invalid.*\)/ID \1: \2/p' \
		narg.1.err | sort | uniq -c | sed 's/^ *//' | paste -sd'|' -)"
cat >sfs.d <<'EOF'
interp$target:::function-entry,
interp$target:::line
/self->filename == NULL/
{
	self->filename = basename(copyinstr(arg0));
}

interp$target:::function-entry
{
	@calls[self->filename, "func", copyinstr(arg1)] = count();
}

interp$target:::line
{
	@calls[self->filename, "line", copyinstr(arg1)] = count();
}

interp$target:::gc-start
{
	@calls[self->filename, "gc", "-"] = count();
}

END
{
	printa("%s %s %s %@d\n", @calls);
}
EOF
both sfs sfs.d sfm.txt 4
printf '%s\n' 'a.py func g 1' 'a.py line z 1' 'a.py func f 2' \
	'a.py line y 2' 'a.py gc - 3' 'a.py line x 3' '' >sfs.exp
expect_file_eq "sfs: the counts" sfs.exp sfs.1

# as before, user space's, the output the same three ways: such a
# variable printed, compared with a literal other than "", or stored
# from two trees
cat >sfu.d <<'EOF'
interp$target:::function-entry
{
	self->a = basename(copyinstr(arg0));
}

interp$target:::line
{
	printf("%s\n", self->a);
}

interp$target:::function-entry
{
	self->b = basename(copyinstr(arg0));
}

interp$target:::line
/self->b == "a.py"/
{
	@b[self->b] = count();
}

interp$target:::function-entry
{
	self->c = basename(copyinstr(arg0));
}

interp$target:::function-return
{
	self->c = dirname(copyinstr(arg0));
}

interp$target:::line
{
	@c[self->c] = count();
}
EOF
three sfu sfu.d sfm.txt
for c in 1 2 3 4 5 6 7; do
	expect_grep "sfu: clause $c user space's" \
		"^dtrace: clause $c (.*) runs in user space" sfu.1.err
done

# NULL against a string the kernel keeps or copies: "", as run.c's
# binop() has it (kplan_str.c's null_lit()); the book's nismatch.d
# prints self->map under /self->map != NULL/.  This tree before left
# all four clauses to user space ("a string comparison of copyinstr()
# the kernel does not make"); now the kernel's, three ways at 256 and 8,
# the known lines and counts
cat >nul.d <<'EOF'
interp$target:::function-entry
{
	self->map = copyinstr(arg1);
}

interp$target:::function-return
{
	self->map = 0;
}

interp$target:::line
/self->map != NULL/
{
	printf("%s %s\n", self->map, copyinstr(arg1));
}

interp$target:::line
/self->map == NULL && copyinstr(arg0) != NULL/
{
	@n[copyinstr(arg1) == NULL, copyinstr(arg1)] = count();
}
EOF
both nul nul.d sfm.txt 3
expect_grep "nul: -v" '^dtrace: 1 clause printing values computed in the kernel$' \
	nul.1.err
printf '%s\n' 'f x' 'g y' 'f z' '' >nul.exp
printf '        0  %-58s %8d\n' y 1 x 2 >>nul.exp
expect_file_eq "nul: the lines and counts" nul.exp nul.1

# A this-> variable each clause keeps to itself (kplan_vars.c's
# this_private()): sshcipher2.d's this->oncpu = vtimestamp - start,
# then read, in the crypt return clause (user space's: a thread-local
# array keyed by a string) and in the compress one.  Every read follows
# its clause's own store, so the user-space clause no longer takes the
# variable, and with it the compress clauses, from the kernel: gc-start
# and gc-done (the compress pair) are the kernel's, where this tree
# before left gc-done's to user space ("its store to this->d ... its
# store at line 9 reads self->s[]", and in sshcipher2.d, the pair's
# self-> variable with it); this->e, read in a clause that does not
# store it, stays tied to the user-space clause storing it.  Three ways
# at 256 and 8, the known sums
cat >priv.txt <<'EOF'
call a.py f 10
gc 100 150
return a.py f 13
call a.py g 20
call a.py f 30
gc 200 260
return a.py f 36
return a.py g 27
gc 300 370
EOF
cat >priv.d <<'EOF'
interp$target:::function-entry
{
	self->s[copyinstr(arg1)] = arg2;
}

interp$target:::function-return
/self->s[copyinstr(arg1)]/
{
	this->d = arg2 - self->s[copyinstr(arg1)];
	@d[copyinstr(arg1), "call"] = sum(this->d);
	@t["call"] = sum(this->d);
	self->s[copyinstr(arg1)] = 0;
}

interp$target:::gc-start
{
	self->g = arg0;
}

interp$target:::gc-done
/self->g/
{
	this->d = arg0 - self->g;
	@d["gc", "gc"] = sum(this->d);
	@t["gc"] = sum(this->d);
	self->g = 0;
}

interp$target:::gc-start
{
	this->e = arg0 * 2;
	self->s["x"] = 0;
}

interp$target:::gc-start
{
	@e[this->e] = count();
}

END
{
	printa("%s %s %@d\n", @d);
	printa("%s %@d\n", @t);
	printa("%d %@d\n", @e);
}
EOF
three priv priv.d priv.txt
three priv8 priv.d priv.txt -x strsize=8
for c in 3 4; do
	expect_eq "priv: clause $c the kernel's" "" \
		"$(grep "^dtrace: clause $c (.*) runs in user space" priv.1.err)"
done
for c in 1 2 5 6; do
	expect_grep "priv: clause $c user space's" \
		"^dtrace: clause $c (.*) runs in user space" priv.1.err
done
expect_grep "priv: clause 6 tied by this->e" \
	'^dtrace: clause 6 .*this->e is also touched by clause 5' priv.1.err
printf '%s\n' 'g call 7' 'f call 9' 'gc gc 180' 'call 16' 'gc 180' \
	'200 1' '400 1' '600 1' '' >priv.exp
expect_file_eq "priv: the sums" priv.exp priv.1

# -v on stores the kernel does not make, which the private this->
# variables above no longer hide behind a tie: a character into a
# string with no predicate to prove it cannot fault, a store through a
# pointer; user space's, three ways
cat >swhy.d <<'EOF'
interp$target:::line
{
	this->s = copyinstr(arg0);
	this->s[0] = 'X';
	printf("%s\n", this->s);
}

interp$target:::line
{
	this->p = (char *)copyin(arg0, 4);
	this->p[1] = 0;
	printf("%s\n", stringof(this->p));
}
EOF
three swhy swhy.d sfm.txt
expect_grep "swhy: s[i] = c" \
	'^dtrace: clause 1 (.*) runs in user space, from its record: line 4: its expression is not one the kernel runs: a character stored into a string (s\[i\] = c) is made in the kernel only into a this-> string, i and c constants, at the clause.s top, where its predicate strlen(s) > K proves it cannot fault: each c not 0 at an i <= K and below every NUL stored before it$' \
	swhy.1.err
expect_grep "swhy: p[i] = v" \
	'^dtrace: clause 2 (.*) runs in user space, from its record: line 11: its expression is not one the kernel runs: a store through a pointer or into a struct (\*p = v, p\[i\] = v, p->m = v, s\.m = v) is not made in the kernel$' \
	swhy.1.err
expect_grep "swhy: the stored characters" '^X\.py$' swhy.1

finish
