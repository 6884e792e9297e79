#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-mem.sh: members and *p read through copyin()'s pointers in
# the kernel (dtrace-G/consumer/kplan_mem.c, cgen_mem.c's mem_read()),
# on a real process (tests/data/cgenmem/cgmem.c, pid provider entry of
# hit(r, i), r a struct req), three ways (tests/lib.sh's way_env():
# the records, the generated programs, DTRACE_CGEN=0), byte for byte
# alike, and against the values cgmem.c wrote (worked out here):
#  - ((struct req *)copyin(arg0, sizeof (struct req)))->m in a
#    predicate and a key; this->r = (struct req *)copyin(...) then
#    this->r->m of every size and sign, a nested struct's, an array's
#    element, bit-fields (signed too), a char array's element, a
#    pointer compared with 0, in printf(), keys, sum(), quantize(), a
#    this-> store and an if's condition; *(int *)copyin(arg0, 4), an
#    unaligned *(int *) at byte 1, a copy of 16 bytes; a pointer's
#    store that nothing reads (its copy's faults still run.c's);
#  - faults: NULL, 0x10 and a struct running into an unreadable page (its
#    16-byte copy reads): the messages, their actions and ERROR's
#    arguments as DTRACE_CGEN=0's (the kernel's copy faults, the hit
#    goes to user space whole);
#  - -v counts the clauses the kernel ran (this tree before kplan_mem.c
#    ran none of them: their copies were user space's), and says why
#    for what stays user space's: a pointer stored in a branch, copies
#    past the kernel's room for them, a program that keeps self->
#    variables and a clause that prints a copy's member;
#  - beside self-> variables the kernel keeps, copies read in the
#    kernel with their faults at the statement (kplan_mem.c's mfault):
#    a sum()'s value, a place's store, a predicate and the right side
#    of || faulting or not, what the clause did before the fault kept
#    and nothing after it run, three ways alike (before it, every such
#    clause was user space's);
#  - stringof() of a copy's place printed (kplan_mem.c's MSTR) at
#    look(r, i): the char name[40] member, (char *)this->r +
#    offsetof(), a copy ending inside the name, the copy's end (""), at
#    strsize 256 (in "members"), 16 and 2 (three ways each, the two at
#    once), at a kernel probe (syscall::write:entry, one way), and -v's
#    reasons where it stays user space's (beside self-> variables, past
#    the copy).
# Four runs three ways (two of them at once), one at a kernel probe and
# three alone: about 8.5 s on the 2-CPU VM at load 13 (4.4 s before
# stringof()'s runs).
# Needs root, uprobes and a dtrace with the BPF backend.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe
$CC -O2 -o cgmem "$top_srcdir/tests/data/cgenmem/cgmem.c" ||
	{ fail "building cgmem"; finish; }

cat >req.d <<'EOF'
struct inner {
	short s;
	unsigned char u;
};
struct req {
	int id;
	unsigned int flags;
	long long big;
	signed char c;
	unsigned short us;
	struct inner in;
	int a[3];
	unsigned int lo : 3, mid : 7;
	int neg : 5;
	char name[40];
	struct req *next;
};
EOF
# last: every clause before an exit() the kernel decides may be its
cat >end.d <<'EOF'
pid$target::done:entry { exit(0); }
dtrace:::ERROR { printf("ERROR %d %d %x\n", arg2, arg4, arg5 & 0xfff); }
EOF

# three WHAT SCRIPT [ARGS]: dtrace -v -q ARGS -s req.d -s SCRIPT -s end.d on
# ./cgmem three ways at once, outWAY.txt and errWAY.txt in the current
# directory; the outputs and the fault messages alike (three_start,
# ways_wait, three_check)
three_start() {
	printf '%s\n' "$1" >t.d
	shift
	ways_start 120 -v -q "$@" -s "$tmp/req.d" -s t.d -s "$tmp/end.d" \
		-c "$tmp/cgmem"
}
three() {
	what=$1
	three_start "$2"
	ways_wait "$what"
	three_check "$what"
}
three_check() {
	what=$1
	for k in 0 g c; do
		sed -n 's/^dtrace: \(error on enabled probe ID [0-9]* \).*: \(invalid address (0x[0-9a-f]*\(...\))\) \(in .*\)$/\1\3 \4/p' \
			err$k.txt >flt$k.txt
	done
	expect_file_eq "$what: generated programs" out0.txt outg.txt
	expect_file_eq "$what: the generic program" out0.txt outc.txt
	expect_file_eq "$what: faults, generated programs" flt0.txt fltg.txt
	expect_file_eq "$what: faults, the generic program" flt0.txt fltc.txt
}

# kernel WHAT N KIND: -v said N clauses ran in the kernel that way
# (aggregated, printing values computed)
kernel() {
	n=$(sed -n "s/^dtrace: \([0-9]*\) clauses* $3 in the kernel\$/\1/p" \
		errg.txt)
	expect_eq "$1: clauses $3 in the kernel" "$2" "${n:-0}"
}

# stringof() of a copy's place printed (kplan_mem.c's kp_mem_str(),
# MSTR), at look(r, i): the char name[40] member and (char *)this->r +
# offsetof(), a copy ending inside the name (77 bytes, the name at 38
# and 39 of its 40: hit 4's 40 with no NUL are cut at the copy's end,
# not at the NUL after them; its size a constant expression, which the
# kernel takes as the literal: d_const_int()), the copy's end ("") and
# a copy of 8 bytes (id's low byte, then a NUL); run in "members"
# (strsize 256) and below at strsize 16 and 2
sd='
pid$target::look:entry
{
	this->r = (struct req *)copyin(arg0, sizeof (struct req));
	printf("%d: name [%s] off [%s]\n", arg1, stringof(this->r->name),
	    stringof((char *)this->r + offsetof(struct req, name)));
}
pid$target::look:entry
{
	this->q = (char *)copyin(arg0, offsetof(struct req, name) + 39);
	printf("%d: end [", arg1);
	trace(stringof(this->q + offsetof(struct req, name)));
	printf("] id [%s] nul [%s]\n", stringof((char *)copyin(arg0, 8)),
	    stringof((char *)copyin(arg0, 8) + 8));
}'
# strexp SS WHAT: the lines of $sd at strsize SS, as cgmem.c wrote them
# (hits 0 to 4; 5 to 7 fault), against outg.txt's
strexp() {
	awk -v m=$(($1 - 1)) 'function cut(x, n) {
		return substr(x, 1, n < m ? n : m)
	}
	BEGIN {
		for (i = 0; i < 5; i++) {
			n = "bcdefghijklmnopqrstuvwxyzabcdefghijklmn"
			n = sprintf("%c", 107 + i) (i < 4 ? "bcdefg" : n)
			printf "%d: name [%s] off [%s]\n", i, cut(n, 40),
			    cut(n, 40)
			printf "%d: end [%s] id [%s] nul []\n", i, cut(n, 39),
			    sprintf("%c", 100 + i)
		}
	}' >stringof.exp
	grep '^[0-9]: name \[\|^[0-9]: end \[' outg.txt >stringof.got
	expect_file_eq "$2: stringof(), the bytes cgmem.c wrote" \
		stringof.exp stringof.got
}

three "members" '
pid$target::hit:entry
/((struct req *)copyin(arg0, sizeof (struct req)))->id % 2 == 0/
{
	@even[((struct req *)copyin(arg0, sizeof (struct req)))->flags] =
	    count();
}
pid$target::hit:entry
{
	this->r = (struct req *)copyin(arg0, sizeof (struct req));
	printf("%d: id %d flags %u big %d c %d us %u s %d u %u a1 %d lo %u mid %u neg %d n0 %c next %d\n",
	    arg1, this->r->id, this->r->flags, this->r->big, this->r->c,
	    this->r->us, this->r->in.s, this->r->in.u, this->r->a[1],
	    this->r->lo, this->r->mid, this->r->neg, this->r->name[0],
	    this->r->next != 0);
	@sum = sum(this->r->big);
	@q[this->r->c] = quantize(this->r->us);
	this->x = this->r->big / 1000000000 + this->r->a[2];
	@x[this->x, (*this->r).in.u] = count();
	if (this->r->lo == 5) {
		@lo = count();
	}
}
pid$target::hit:entry
{
	printf("%d: first %u star %d un %x\n", arg1,
	    ((struct req *)copyin(arg0, 16))->flags, *(int *)copyin(arg0, 4),
	    *(int *)((char *)copyin(arg0, 8) + 1));
}
pid$target::hit:entry /arg1 < 5/
{
	if (arg1 > 1) {
		this->p = (struct req *)copyin(arg0, 56);
		@b = sum(this->p->id);
	}
}
pid$target::hit:entry /arg1 < 5/
{
	@c = sum(*(int *)copyin(arg0, 512) + *(int *)copyin(arg0, 511) +
	    *(int *)copyin(arg0, 510) + *(int *)copyin(arg0, 509) +
	    *(int *)copyin(arg0, 508));
}
pid$target::peek:entry
{
	this->d = (struct req *)copyin(arg0, 24);
	@dead = count();
}'"$sd"
kernel "members" 2 aggregated
kernel "members" 4 "printing values computed"
strexp 256 "members"
# the values cgmem.c wrote, and ERROR's: the predicate's, the store's
# and the third clause's printf()'s faults at NULL and 0x10, the first
# two at the edge (its 16 bytes read), and the last clause's store's at
# NULL and 0x10 (peek's: a copy nothing reads, which run.c makes all
# the same, the only one of its probe's plan; its 24 bytes at the edge
# read), then look's two stringof() clauses' stores at NULL and 0x10
# (theirs at the edge come after hit 7's line); their lines apart
awk 'BEGIN {
	for (i = 0; i < 5; i++) {
		printf "%d: id %d flags %.0f big %.0f c %d us %d s %d u %d a1 %d lo %d mid %d neg %d n0 %c next %d\n",
		    i, 100 + i, 4294967280 + i, -5000000000 * (i + 1),
		    -100 + 50 * i, 65535 - 1000 * i, -300 * i, 250 + i,
		    -7 * i, i + 3, 120 + i, -16 + 7 * i,
		    substr("klmno", i + 1, 1), i % 2
		printf "%d: first %.0f star %d un %x\n", i, 4294967280 + i,
		    100 + i, 240 + i
	}
	for (a = 0; a < 3; a++) print "ERROR " a " 1 0"
	for (a = 0; a < 3; a++) print "ERROR 1 1 0"
	for (a = 0; a < 3; a++) print "ERROR " a " 1 10"
	for (a = 0; a < 3; a++) print "ERROR 1 1 10"
	for (a = 0; a < 2; a++) print "ERROR " a " 1 fe8"
	print "7: first 7 star 107 un 7"
}' | sed 's/un \([0-9a-f]*\)$/un \1000000/' >members.exp
grep -v '^ \|^$\|^[0-9]: name \[\|^[0-9]: end \[' outg.txt |
	sed -n '1,/^7: /p' >members.got
expect_file_eq "members: the values cgmem.c wrote" members.exp members.got
expect_grep "members: sum()" '^ *-75000000000$' outg.txt
expect_grep "members: a fault at the edge, in the predicate" \
	'hit:entry): invalid address (0x[0-9a-f]*fe8) in predicate$' errg.txt

# what stays user space's, said by -v, its output alike above: the
# last two clauses (a pointer stored in a branch, copies past the
# kernel's room for them); then a program whose kernel keeps a self->
# variable
expect_grep "a branch's pointer: -v says why" \
	"^dtrace: clause 4 (pid[0-9]*::hit:entry) runs in user space, from its record: line 33: its store to this->p is not one the kernel runs: this->p holds a pointer: the kernel keeps a this-> pointer only where it points into copyin(argN, C) of its clause (C a constant up to 512), stored once at the clause's top level, read only after that there and in no clause user space runs\$" \
	errg.txt
expect_grep "past the room: -v says why" \
	"^dtrace: clause 5 (pid[0-9]*::hit:entry) runs in user space, from its record: its copyin()s read in the kernel pass the 2048 bytes (or 16 copies) it has room for\$" \
	errg.txt

# stringof() at strsize 16 and 2 (both runs at once, each in its own
# directory): three ways alike, the bytes cgmem.c wrote, both clauses
# the kernel's (-v: before MSTR they were user space's); hits 5 to 7
# fault (the hit to user space, ERROR as run.c's)
for ss in 16 2; do
	mkdir s$ss && cd s$ss && three_start "$sd" -x strsize=$ss
	eval "sp$ss=\"\$ws_pid0 \$ws_pidg \$ws_pidc\""
	cd "$tmp" || exit 99
done
for ss in 16 2; do
	cd s$ss || exit 99
	eval "set -- \$sp$ss"
	ws_pid0=$1 ws_pidg=$2 ws_pidc=$3
	ways_wait "stringof, strsize $ss"
	three_check "stringof, strsize $ss"
	kernel "stringof, strsize $ss" 2 "printing values computed"
	strexp $ss "strsize $ss"
	for a in 0 10 fe8; do
		expect_eq "strsize $ss: the faults at $a" 2 \
			"$(grep -c "^ERROR 1 1 $a\$" outg.txt)"
	done
	cd "$tmp" || exit 99
done

# the kernel providers' programs take it too: stringof() of a
# write()'s buffer copied at syscall::write:entry, the hit's bytes (one
# way: DTRACE_CGEN=0 and the records read the echo's memory after it
# exited, a fault: doc/DESIGN.md's "Pointers and structs in the
# generated programs"); before MSTR both clauses were user space's
if tracefs_at -d events/syscalls; then
	cat >k.d <<'EOF'
syscall::write:entry /pid == $target/
{
	this->b = (char *)copyin(arg1, 8);
	printf("%s\n", stringof(this->b));
}
syscall::write:entry /pid == $target/
{
	printf("[%s]\n", stringof((char *)copyin(arg1, 4) + 1));
}
EOF
	timeout 120 "$DTRACE" -v -q -o k.out -s k.d -c "/bin/echo hello-world" \
		>/dev/null 2>errg.txt
	printf 'hello-wo\n[ell]\n' >k.exp
	grep -v '^$' k.out >k.got
	expect_file_eq "stringof at a kernel probe: the hit's bytes" k.exp k.got
	kernel "stringof at a kernel probe" 2 "printing values computed"
else
	echo "# no tracefs with syscalls events: the kernel probe's case not run"
fi

# a program whose kernel keeps self-> variables: each copy's read a
# fault site (kplan_mem.c's mfault), its fault at its statement: what
# the clause did before it stands (self->k), nothing after it runs
# (self->after, self->t), ERROR's arguments as run.c's; a copy on the
# right of || read only where the left does not decide (SC); a clause
# that prints keeps every copy of the program in user space (nomem)
three "self->" '
pid$target::hit:entry { self->n++; }
pid$target::hit:entry { @a = sum(((struct req *)copyin(arg0, 56))->id); }
pid$target::hit:entry
{
	self->k++;
	this->r = (struct req *)copyin(arg0, sizeof (struct req));
	self->after++;
	@k[this->r->id, self->n] = sum(this->r->us);
	self->t += this->r->big / 1000;
}
pid$target::hit:entry
/self->n > 1 && ((struct req *)copyin(arg0, 16))->flags != 0/
{
	@p[((struct req *)copyin(arg0, 16))->id] = count();
}
pid$target::hit:entry
/arg1 >= 5 || ((struct req *)copyin(arg0, 56))->id > 102/
{
	@q = count();
}
pid$target::peek:entry { @s[self->k, self->after] = sum(self->t); }'
kernel "self->" 6 aggregated
if grep -q "copyin() is not read in the kernel" errg.txt; then
	fail "self->: a copy left to user space"
else
	pass
fi
# the values: self->k counts every hit, self->after and self->t stop at
# the first fault (hit 5's NULL): @s's last key 8 5; ERROR's: clause 2's
# sum() value (action 1) at NULL, 0x10 and the edge, clause 3's store
# (action 2) the same, clause 4's predicate (0) at NULL and 0x10 (the
# edge's 16 bytes read), clause 5's none
expect_grep "self->: the fault ends its clause" '^ *8 *5 *-75000000 *$' outg.txt
for a in 0 10 fe8; do
	expect_eq "self->: sum()'s fault at $a" 1 \
		"$(grep -c "^ERROR 1 1 $a\$" outg.txt)"
	expect_eq "self->: the store's fault at $a" 1 \
		"$(grep -c "^ERROR 2 1 $a\$" outg.txt)"
done
expect_eq "self->: the predicate's faults" 2 "$(grep -c '^ERROR 0 1' outg.txt)"

# (one way: -v's line is the generated programs')
cat >t.d <<'EOF'
pid$target::hit:entry { self->n++; }
pid$target::hit:entry
{
	printf("%d %d\n", self->n, ((struct req *)copyin(arg0, 56))->id);
}
pid$target::hit:entry { printf("%s\n", stringof((char *)copyin(arg0, 8))); }
EOF
timeout 120 "$DTRACE" -v -q -s req.d -s t.d -s end.d -c ./cgmem \
	>/dev/null 2>errg.txt
for c in "2 argument 2" "3 argument 1"; do
	expect_grep "self-> printing: -v says why (clause ${c%% *})" \
		"^dtrace: clause ${c%% *} (pid[0-9]*::hit:entry) runs in user space, from its record: line [0-9]*: its printf() is not one the kernel computes at the hit: ${c#* }: copyin() is not read in the kernel of a program that keeps self-> variables where a copy's fault cannot be at its statement: a clause that prints, a ?: branch, or more than 16 fault sites\$" \
		errg.txt
done
# a printed stringof() beside self-> variables (its copy could have no
# fault site there) stays user space's without taking the other
# clauses' copies with it: the count's copy read in the kernel, its
# fault at its statement (before the review of mstr, the whole program
# read its copies in user space and -v blamed "a clause that prints")
cat >t.d <<'EOF'
pid$target::hit:entry { self->n++; this->r = (struct req *)copyin(arg0, 56); @a[this->r->id] = count(); }
pid$target::hit:entry { printf("%d %s\n", self->n, stringof((char *)copyin(arg0, 56) + 44)); }
EOF
timeout 120 "$DTRACE" -v -q -s req.d -s t.d -s end.d -c ./cgmem \
	>/dev/null 2>errg.txt
expect_grep "stringof() beside self->: the count's copy in the kernel" \
	"^dtrace: 1 clause aggregated in the kernel\$" errg.txt
expect_grep "stringof() beside self->: -v says why" \
	"^dtrace: clause 2 (pid[0-9]*::hit:entry) runs in user space, from its record: line [0-9]*: its printf() is not one the kernel computes at the hit: argument 2: stringof() of a copy is printed from the kernel only in a program that keeps no self-> variables or speculations there" \
	errg.txt
# stringof() past its copy's end: run.c faults at dtrace's address
cat >t.d <<'EOF'
pid$target::hit:entry { printf("%s\n", stringof((char *)copyin(arg0, 8) + 9)); }
EOF
timeout 120 "$DTRACE" -v -q -s req.d -s t.d -s end.d -c ./cgmem \
	>/dev/null 2>errg.txt
expect_grep "stringof() past the copy: -v says why" \
	"^dtrace: clause 1 (pid[0-9]*::hit:entry) runs in user space, from its record: line [0-9]*: its printf() is not one the kernel computes at the hit: argument 1: stringof() of a pointer is printed from the kernel only where it is a place: copyin(argN, C), or a this-> pointer into it the kernel keeps, at a constant offset up to C, strsize fixed for the run\$" \
	errg.txt

# copyin(argN, C) with C a constant expression (2 + 2): folded into the
# literal (check.c's d_fold_int()), so the copy the interpreter reads is
# the one made at the hit, as the kernel's is: tr-calls's tr_pair()
# buffers are on its stack, gone or rewritten when a late read comes
# (after d_const_int() went into kp_const_of() alone, the kernel took
# the size and the interpreter's runs read the process late: "invalid
# address" for each hit, where the kernel printed 0, 1, 2)
cat >t.d <<'EOF'
pid$target:a.out:tr_pair:entry { @a[*(int *)copyin(arg0, 2 + 2)] = count(); }
END { printa("%d %@d\n", @a); }
EOF
printf '0 1\n1 1\n2 1\n' >pair.exp
for m in g u 0; do
	run_mode $m pair$m.txt "$top_builddir/tests/d/triggers/tr-calls 3" \
		-s t.d
	grep -v '^$' pair$m.txt >pair.got
	expect_file_eq "copyin(arg0, 2 + 2), mode $m" pair.exp pair.got
	expect_eq "copyin(arg0, 2 + 2), mode $m: no fault" "" \
		"$(grep 'invalid address' pair$m.txt.err)"
done

finish
