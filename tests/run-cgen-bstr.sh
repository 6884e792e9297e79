#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-bstr.sh: a copy cut at a length in the kernel (kplan_bstr.c),
# the idiom the toolkit's and the book's Java scripts read hotspot's
# strings with (a length, no NUL):
#
#	this->c = (char *)copyin(arg0, arg1 + 1);
#	this->c[arg1] = '\0';
#	... stringof(this->c) ...
#
# on a real process (tests/data/cgenout/cgout.c's bounded mode, pid
# provider, hit(p, n)):
#  - keyed by and compared with literals (bk.d), joined with strjoin()
#    and keyed beside an integer and a literal (j_calls.d's shape),
#    keyed twice and by dirname() (j_objnew.d's, j_package.d's),
#    printed (j_thread.d's): byte for
#    byte the same three ways (the generated program, DTRACE_KAGG=0,
#    DTRACE_CGEN=0) at strsize 256, 16 and 8, the faults reported
#    alike, and the values as run.c defines them: "hello world" cut at
#    5 and 0, "ab\0cd" at 5 ("ab"), a copy whose NUL is the last byte
#    before an unreadable page ("abc" at 3), and at 4 (one byte past it)
#    "invalid address" at the string's address, as at 0x10; lengths -5
#    and 70,000 "out of scratch space"; lengths past the kernel's
#    UBPF_KBSTRMAX (4,096) and keys past kaggs_s's 64 bytes sent to user
#    space, which makes them as before;
#  - -v counts the clauses the kernel runs (this tree before left every
#    one to user space: "a store through a pointer");
#  - the bytes at the hit: on cgout rewrite, which rewrites each string
#    right after the call, the keys are what the process had at the hit
#    ("before-i" cut at i), where DTRACE_CGEN=0 reads the process later;
#  - at a syscall probe: write()'s buffer cut at its count, printed and
#    keyed, the bytes at the hit;
#  - programs whose kernel keeps self-> variables (no hit can go to user
#    space whole there: the copy's fault is the hit's, at its statement,
#    kplan_bstr.c's bfault): a key summing self->n (bs.d), the toolkit's
#    j_flow.d (bf.d: two copies a clause, printed beside a thread-local
#    array's depth) and j_calltime.d (bt.d: joined and keyed beside
#    thread-local arrays keyed by a value), three ways byte for byte at
#    strsize 256, 16 and 8, faults alike, every clause in the kernel;
#    on cgout cuts (bc.d), run.c's faults at the hit: argL -1 (the cut's
#    store below a copy of no bytes, in the cut's action, at an address
#    of dtrace's scratch), argL -2 and 65,536 and a second copy past
#    D_COPYIN_MAX "out of scratch space" in the copy's action, a copy
#    whose 17th page is unreadable "invalid address" at its start, the
#    one before it read whole; a copy after a printf() stays user
#    space's (bv.d), -v saying why.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup

# three NAME D-FILE: the script on ./cgout bounded (cgout $mode where
# set) at strsize 256, 16 and 8, the generated program, DTRACE_KAGG=0
# and DTRACE_CGEN=0, byte for byte, the faults reported alike (cgout
# lingers: the hits the kernel sends to user space are read from the
# process after them)
three() {
	for xo in '' '-x strsize=16' '-x strsize=8'; do
		bn=$1${xo:+-${xo#*=}}
		late=1 run_bg 1 "$bn.1.txt" "${mode:-bounded} $bn.addr" \
			-s "$2" $xo
		DTRACE_KAGG=0 run_bg 1 "$bn.k.txt" \
			"${mode:-bounded} $bn.kaddr" -s "$2" $xo
		run_bg 0 "$bn.0.txt" "${mode:-bounded} $bn.0addr" -s "$2" $xo
	done
	run_join
	for xo in '' '-x strsize=16' '-x strsize=8'; do
		bn=$1${xo:+-${xo#*=}}
		for m in k 1; do
			expect_file_eq "$bn: DTRACE_CGEN=0's output ($m)" \
				"$bn.0.txt" "$bn.$m.txt"
			expect_eq "$bn: the faults reported ($m)" \
				"$(faults "$bn.0.txt.err" "$bn.0addr")" \
				"$(faults "$bn.$m.txt.err" "$bn.${m#1}addr")"
		done
	done
}

# (bn, xo, m: run_bg's o and g are its own)
# faults ERR ADDR-FILE: ERR's fault messages, the pid, "abc"'s address
# (in ADDR-FILE, cgout's) and any other address past 32 bits (one of
# dtrace's scratch, which no two runs share) made names
faults() {
	grep 'error on enabled probe' "$1" |
		sed "s/pid[0-9]*:/pid:/; s/$(cat "$2")/ABC/;
			s/(0x[0-9a-f]\{9,\}) in/(SCRATCH) in/"
}

cat >bk.d <<'EOF'
pid$target::hit:entry
{
	this->s = (char *)copyin(arg0, arg1 + 1);
	this->s[arg1] = '\0';
	@k[stringof(this->s)] = count();
}

pid$target::hit:entry
{
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@c[stringof(this->c) == "hello", stringof(this->c) < "b",
	    arg1] = count();
	@e[execname == stringof(this->c)] = count();
}

END
{
	printa("k [%s] %@d\n", @k);
	printa("c %d %d %d %@d\n", @c);
	printa("e %d %@d\n", @e);
}
EOF

cat >bj.d <<'EOF'
pid$target::hit:entry
{
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	this->m = (char *)copyin(arg0, 1 + arg1);
	this->m[arg1] = 0;
	this->name = strjoin(strjoin(stringof(this->c), "."),
	    stringof(this->m));
	@j[arg1, "method", this->name] = count();
}

pid$target::hit:entry
{
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@o[1, stringof(this->c)] = count();
	@d[1, stringof(this->c)] = quantize(arg1);
	@p[dirname(stringof(this->c))] = count();
}

pid$target::hit:entry
/arg1 < 12/
{
	this->t = (char *)copyin(arg0, arg1 + 1);
	this->t[arg1] = '\0';
	printf("p %d [%s]\n", arg1, stringof(this->t));
}

END
{
	printa("j %d %s [%s] %@d\n", @j);
	printa("o %d [%s] %@d\n", @o);
	printa("p [%s] %@d\n", @p);
}
EOF

three bk bk.d
three bj bj.d

# The values, as run.c defines them (not only as DTRACE_CGEN=0 has them)
expect_eq "bk: the keys" \
	'k [] 1|k [ab] 1|k [abc] 1|k [hello world] 1|k [hello] 2' \
	"$(grep -E '^k \[(|ab|abc|hello|hello world)\] ' bk.1.txt | LC_ALL=C sort |
		paste -sd'|' -)"
expect_eq "bk: strsize 8 cuts at 7" 'k [hello w] 1|k [hello] 2' \
	"$(grep '^k \[hello' bk-8.1.txt | LC_ALL=C sort | paste -sd'|' -)"
expect_eq "bk: 300 bytes at 254, 255, 256 and 299 (strsize 256)" \
	'254 1|255 3' \
	"$(awk '/^k \[y/ { print length($2) - 2, $3 }' bk.1.txt | sort |
		paste -sd'|' -)"
expect_eq "bk: the faults, each clause's" \
	"$(printf '%s\n' ABC ABC 0x10 0x10 |
		sed 's/.*/invalid address (&) in action #1/'
		printf 'out of scratch space in action #1\n%.0s' 1 2 3 4)" \
	"$(faults bk.1.txt.err bk.addr | sed 's/.*: //')"
expect_eq "bj: joined, keyed beside an integer and a literal" \
	'j 0 method [.] 1|j 3 method [abc.abc] 1|j 5 method [ab.ab] 1|j 5 method [hello.hello] 2|j 11 method [hello world.hello world] 1' \
	"$(grep -E '^j (0|3|5|11) ' bj.1.txt | sort -k2n -k4 |
		paste -sd'|' -)"
expect_eq "bj: printed" \
	'p 5 [hello]|p 11 [hello world]|p 0 []|p 5 [ab]|p 8 [a\x01b\x7fc\tta]|p 3 [abc]|p 5 [hello]' \
	"$(grep '^p [0-9]' bj.1.txt | paste -sd'|' -)"
expect_eq "bj: dirname(), every hit without a fault" 'p [.] 13' "$(grep '^p \[\.\] ' bj.1.txt)"
expect_eq "bk: compared with literals" \
	'c 0 0 11 1|c 0 1 0 1|c 0 1 3 1|c 0 1 5 1|c 1 0 5 2|e 0 13' \
	"$(grep -E '^(c [01] [01] (0|3|5|11) |e )' bk.1.txt | LC_ALL=C sort |
		paste -sd'|' -)"
for f in bk bk-16 bk-8; do
	expect_grep "$f: -v" '^dtrace: 2 clauses aggregated in the kernel$' \
		"$f.1.txt.err"
done
for f in bj bj-16 bj-8; do
	expect_grep "$f: -v" '^dtrace: 2 clauses aggregated in the kernel$' \
		"$f.1.txt.err"
	expect_grep "$f: -v" \
		'^dtrace: 1 clause printing values computed in the kernel$' \
		"$f.1.txt.err"
done

# The bytes at the hit: "before-i" cut at i, where DTRACE_CGEN=0 reads
# the process after it wrote "after-i" (some of the time)
run_bg 1 late1.txt 'rewrite 12' -s bk.d
run_bg 0 late0.txt 'rewrite 12' -s bk.d
run_join
expect_eq "bk on rewrite: the bytes at the hit" \
	'k [] 1|k [b] 1|k [be] 1|k [bef] 1|k [befo] 1|k [befor] 1|k [before-10] 1|k [before-11] 1|k [before-8] 1|k [before-9] 1|k [before-] 1|k [before] 1' \
	"$(grep '^k ' late1.txt | LC_ALL=C sort | paste -sd'|' -)"
late_some "bk on rewrite: DTRACE_CGEN=0 reads later" 12 late0.txt '^k \[b'

# At a syscall probe (a raw tracepoint's program): write()'s buffer
# and count, read at the hit, where a later read finds what the shell
# put in the buffer after (DTRACE_CGEN=0 printed "x\nl" for "abc")
cat >sw.d <<'EOF'
syscall::write:entry
/pid == $target/
{
	this->b = (char *)copyin(arg1, arg2 + 1);
	this->b[arg2] = '\0';
	printf("w %d [%s]\n", arg2, stringof(this->b));
	@w[stringof(this->b)] = count();
}
EOF
"$DTRACE" -v -q -o sw.txt -s sw.d \
	-c "sh -c 'printf abc; printf hello-world; echo x'" >/dev/null 2>sw.err
expect_eq "sw: status" 0 $?
expect_eq "sw: write()'s bytes at the hit" \
	'w 3 [abc]|w 11 [hello-world]|w 2 [x\n]' \
	"$(grep '^w ' sw.txt | paste -sd'|' -)"
expect_grep "sw: -v" \
	'^dtrace: 1 clause printing values computed in the kernel$' sw.err
expect_eq "sw: keyed" 'abc 1|hello-world 1|x\n 1' \
	"$(awk 'NF == 2 { print $1, $2 }' sw.txt | LC_ALL=C sort |
		paste -sd'|' -)"

# Where the kernel keeps self-> variables: the copy's fault is the hit's,
# at its statement (bfault).  bs.d: a key summing self->n, the return
# clause's max() beside it
cat >bs.d <<'EOF'
pid$target::hit:entry
{
	self->n++;
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@s[stringof(this->c)] = sum(self->n);
}

pid$target::hit:return
{
	@r = max(self->n);
}

END
{
	printa("s [%s] %@d\n", @s);
	printa("r %@d\n", @r);
}
EOF

# bf.d: the toolkit's j_flow.d (class and method, one string here)
cat >bf.d <<'EOF'
self int depth[int];

pid$target::hit:entry
{
	this->class = (char *)copyin(arg0, arg1 + 1);
	this->class[arg1] = '\0';
	this->method = (char *)copyin(arg0, arg1 + 1);
	this->method[arg1] = '\0';
	printf("%3d %*s-> %s.%s\n", arg1, self->depth[arg1 & 1] * 2, "",
	    stringof(this->class), stringof(this->method));
	self->depth[arg1 & 1]++;
}

pid$target::hit:entry
/arg1 & 2/
{
	this->class = (char *)copyin(arg0, arg1 + 1);
	this->class[arg1] = '\0';
	this->method = (char *)copyin(arg0, arg1 + 1);
	this->method[arg1] = '\0';
	self->depth[arg1 & 1] -= self->depth[arg1 & 1] > 0 ? 1 : 0;
	printf("%3d %*s<- %s.%s\n", arg1, self->depth[arg1 & 1] * 2, "",
	    stringof(this->class), stringof(this->method));
}
EOF

# bt.d: the toolkit's j_calltime.d, arg1 + 100 standing in for the time
cat >bt.d <<'EOF'
pid$target::hit:entry
{
	self->depth[0]++;
	self->m[0, self->depth[0]] = arg1 + 100;
}

pid$target::hit:entry
/self->m[0, self->depth[0]]/
{
	this->incl = self->m[0, self->depth[0]];
	self->m[0, self->depth[0]] = 0;
	this->class = (char *)copyin(arg0, arg1 + 1);
	this->class[arg1] = '\0';
	this->method = (char *)copyin(arg0, arg1 + 1);
	this->method[arg1] = '\0';
	this->name = strjoin(strjoin(stringof(this->class), "."),
	    stringof(this->method));
	@num[0, "method", this->name] = count();
	@incl[0, "method", this->name] = sum(this->incl);
	self->depth[0]--;
}

END
{
	printa("n %d %s [%s] %@d\n", @num);
	printa("i %d %s [%s] %@d\n", @incl);
}
EOF

# bc.d on cgout cuts: each of run.c's faults, two copies a clause
cat >bc.d <<'EOF'
pid$target::hit:entry
{
	self->n++;
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@s[arg1, stringof(this->c)] = sum(self->n);
}

pid$target::hit:entry
{
	this->a = (char *)copyin(arg0, arg1 + 1);
	this->a[arg1] = '\0';
	this->b = (char *)copyin(arg0, arg1 + 1);
	this->b[arg1] = 0;
	this->j = strjoin(stringof(this->a), stringof(this->b));
	@two[arg1, this->j] = count();
}

END
{
	printa("s %d [%s] %@d\n", @s);
	printa("two %d [%s] %@d\n", @two);
}
EOF

three bs bs.d
three bf bf.d
three bt bt.d
mode=cuts three bc bc.d

for f in bs bs-16 bs-8 bt bt-16 bt-8 bc bc-16 bc-8; do
	expect_grep "$f: -v" '^dtrace: 2 clauses aggregated in the kernel$' \
		"$f.1.txt.err"
done
for f in bf bf-16 bf-8; do
	expect_grep "$f: -v" \
		'^dtrace: 2 clauses printing values computed in the kernel$' \
		"$f.1.txt.err"
done
expect_eq "bs: the sums" \
	'r 17|s [] 3|s [ab] 4|s [abc] 12|s [hello world] 2|s [hello] 18' \
	"$(grep -E '^(s \[(|ab|abc|hello|hello world)\] |r )' bs.1.txt |
		LC_ALL=C sort | paste -sd'|' -)"
expect_eq "bf: the flow" \
	'  5 -> hello.hello|  5   -> ab.ab|  3     -> abc.abc|  3     <- abc.abc|  5     -> hello.hello' \
	"$(grep -E '^ +[35] ' bf.1.txt | paste -sd'|' -)"
expect_eq "bt: the names" \
	'n 0 method [ab.ab] 1|n 0 method [hello.hello] 2|i 0 method [ab.ab] 105|i 0 method [hello.hello] 210' \
	"$(grep -E '(ab\.ab|hello\.hello)\]' bt.1.txt | paste -sd'|' -)"
expect_eq "bc: the faults, in run.c's order" \
	"$(printf '%s\n' 'invalid address (SCRATCH) in action #3' \
		'invalid address (SCRATCH) in action #2' \
		'out of scratch space in action #2' \
		'out of scratch space in action #1' \
		'out of scratch space in action #3' \
		'invalid address (ABC) in action #2' \
		'invalid address (ABC) in action #1' \
		'out of scratch space in action #3' \
		'invalid address (ABC) in action #2' \
		'invalid address (ABC) in action #1' \
		'out of scratch space in action #2' \
		'out of scratch space in action #1' \
		'out of scratch space in action #3' \
		'invalid address (0x10) in action #2' \
		'invalid address (0x10) in action #1' \
		'invalid address (SCRATCH) in action #3' \
		'invalid address (SCRATCH) in action #2')" \
	"$(faults bc.1.txt.err bc.addr | sed 's/.*: //')"
expect_eq "bc: what was copied (strsize 256: 255 bytes)" \
	's 3 [abc] 13|s 32767 255 9|s 32768 255 10|s 5 [hello] 1|s 61440 255 4|s 65535 255 6|two 3 [abcabc] 1|two 32767 255 1|two 5 [hellohello] 1' \
	"$(awk '/^(s|two) / { if ($3 ~ /^\[q/) $3 = length($3) - 2; print }' \
		bc.1.txt | LC_ALL=C sort | paste -sd'|' -)"

# A copy after a printf() of its clause: user space's there, -v says why
cat >bv.d <<'EOF'
pid$target::hit:entry
{
	self->n++;
	printf("n %d\n", self->n);
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@s[stringof(this->c)] = sum(self->n);
}
EOF
late=1 run_bg 1 bv.1.txt 'bounded bv.addr' -s bv.d
run_bg 0 bv.0.txt 'bounded bv.0addr' -s bv.d
run_join
expect_file_eq "bv: DTRACE_CGEN=0's output" bv.0.txt bv.1.txt
expect_grep "bv: -v says why" \
	"line 6: .*a copy cut at a length .* before every printf() and trace() of its clause" \
	bv.1.txt.err

finish
