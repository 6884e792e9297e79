#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-tlarr.sh: thread-local arrays of values other than signed
# 8-byte ones in the kernel (kplan_vars.c's KV_ELEMS: each element read
# typed set and unset apart, clause_typed()), the latency idiom
#	start { self->s[k] = timestamp; }
#	done /self->s[k]/ { @ = quantize(timestamp - self->s[k]);
#		self->s[k] = 0; }
# on trprog's tr:::tick(i, word, -1000 * i) (even i a start, odd i its
# done, k = i / 2).  Each script runs three ways: user space alone
# (DTRACE_KAGG=0), the generated programs and the generic program
# (DTRACE_CGEN=0); the outputs are byte for byte alike, and -v counts
# the clauses the kernel ran (and the records read: none where every
# clause is the kernel's).  Covered:
#  - timestamps, read by the predicate, quantize(), min(), a key and
#    printf() of the difference (an elapsed time under 100 s: 0), beside
#    an element never set (unsigned set, a signed 0 unset: the same
#    code);
#  - uint32_t values (summed, a key of the element itself compared
#    with 0) and int values (summed, compared with 0 in a key);
#  - an element read where its set and unset types compute differently
#    (uint32_t - 1 against a signed 0 - 1): user space, -v says so;
#  - stores of two types (timestamp and an int): user space, -v says so;
#  - string keys: probe names and literals (probefunc, the book's
#    sshcipher.d) in the kernel, by their numbers (kplan_akey.c), one
#    element where the strings are equal at two probes; another kind
#    (copyinstr()) user space's, -v naming the key;
#  - self-> and this-> integers set and unset computing differently,
#    statements and predicates dispatched at the hit (doc/DESIGN.md §8
#    "vtimestamp, copyout() and unset variables ...", part 3), gc.d's
#    shape beside, and what stays user space's; printf() and trace()
#    values so too, each form's slots the same and its types said in
#    the out area (kplan_out.c's "Printed forms").
# Each of the first two fails on a tree that kept such arrays in user
# space (-v counted no clause in the kernel), each of the last three on
# one without the forms (the this-> one on one with self->'s alone).
# About 6 s idle.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace

# three WHAT NCLAUSES RECORDS SCRIPT [NPRINT]: dtrace -v -q -s SCRIPT
# on ./trprog "tick 10" three ways; the outputs of the generated and
# the generic programs must equal user space's, not empty; the
# generated programs' -v must say NCLAUSES clauses aggregated in the
# kernel (0: none), NPRINT printed values the kernel computed, and
# RECORDS records were read
three() {
	what=$1 ncl=$2 nrec=$3 npr=${5:-0}
	printf '%s\n' "$4" >t.d
	# the three at once, each on its own process (-c) with its own
	# files (run_mode's run and checks, the start apart from the wait)
	ways_start 120 -v -q -s t.d -c "${three_cmd:-./trprog \"tick 10\"}"
	ways_wait "$what"
	ways_same "$what"
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* aggregated in the kernel$/\1/p' \
		errg.txt)
	expect_eq "$what: clauses run in the kernel" "$ncl" "${n:-0}"
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* printing values computed in the kernel$/\1/p' \
		errg.txt)
	expect_eq "$what: clauses printing in the kernel" "$npr" "${n:-0}"
	expect_grep "$what: records read" \
		"^dtrace: BPF: .* verified, $nrec records* read\$" errg.txt
}

three "timestamps" 3 5 '
tr$target:::tick /arg0 % 2 == 0/ { self->s[arg0 / 2] = timestamp; }
tr$target:::tick /arg0 % 2 == 1/ {
	printf("%d %d %d\n", arg0, self->s[arg0 / 2] != 0,
	    (timestamp - self->s[arg0 / 2]) / 100000000000);
}
tr$target:::tick /arg0 % 2 == 1 && self->s[arg0 / 2]/ {
	@q = quantize((timestamp - self->s[arg0 / 2]) / 100000000000);
	@m = min(timestamp - self->s[arg0 / 2] > 0);
	@k[(timestamp - self->s[arg0 / 2]) / 100000000000] = count();
	self->s[arg0 / 2] = 0;
}
tr$target:::tick /arg0 % 2 == 1 && !self->s[arg0 / 2 + 100]/ {
	@u = sum(timestamp - self->s[arg0 / 2 + 100] > 0);
}' 1

three "uint32_t and int" 3 0 '
tr$target:::tick /arg0 % 2 == 0/ {
	self->u[arg0 / 2] = (uint32_t)arg2; self->i[arg0 / 2] = (int)arg2;
}
tr$target:::tick /arg0 % 2 == 1 && self->u[arg0 / 2]/ {
	@su[arg0] = sum(self->u[arg0 / 2]);
	@ku[self->u[arg0 / 2] != 0] = count();
}
tr$target:::tick /arg0 % 2 == 1/ {
	@si[arg0] = sum(self->i[arg0 / 2]);
	@ki[self->i[arg0 / 2] < 0] = count();
	self->u[arg0 / 2] = 0; self->i[arg0 / 2] = 0;
}'

three "uint32_t - 1" 0 10 '
tr$target:::tick /arg0 % 2 == 0/ { self->u[arg0 / 2] = (uint32_t)arg2; }
tr$target:::tick /arg0 % 2 == 1/ {
	@s[arg0] = sum(self->u[arg0 / 2] - 1); self->u[arg0 / 2] = 0;
}'
expect_grep "uint32_t - 1: -v says why" \
	'^dtrace: clause 2 (tr[0-9]*:::tick) runs in user space, from its record: line 4: its @s = sum() is not one the kernel runs: its value: self->u\[\]: clause 2'"'"'s @s = sum() at line 4 would compute differently with an element set and unset, and no forms are chosen at the hit for an array'"'"'s element, whose keys they would compute twice (its stores are unsigned 4-byte values, an unset element a signed 8-byte 0: declare it, or cast the value to int64_t)$' \
	errg.txt

three "two types" 0 10 '
tr$target:::tick /arg0 % 2 == 0/ { self->s[arg0 / 2] = timestamp; }
tr$target:::tick /arg0 == 3/ { self->s[arg0 / 2] = (int)arg2; }
tr$target:::tick /arg0 % 2 == 1/ {
	@c[self->s[arg0 / 2] != 0] = count(); self->s[arg0 / 2] = 0;
}'
expect_grep "two types: -v says why" \
	'^dtrace: clause 1 (tr[0-9]*:::tick) runs in user space, from its record: line 2: its store to self->s\[\] is not one the kernel runs: self->s\[\]: its stores give it different types$' \
	errg.txt

three "a string key" 2 0 '
tr$target:::tick { self->s[probefunc] = arg0 + 1; }
tr$target:::tick /self->s[probefunc]/ {
	@c[self->s[probefunc]] = count(); self->s[probefunc] = 0;
}'

# probe names and literals as keys (kplan_akey.c), beside an integer
# key: one element where the strings are equal, at two probes
# (probefunc at tick and at done, both "run"; probename "tick" and the
# literal "tick"), apart where they differ (probename "done"); elements
# stored and never cleared read at done.  With a key of another kind at
# that position (copyinstr()) the array stays user space's, -v naming
# the key.  The first fails on a tree that kept such arrays in user
# space (no clause in the kernel, a record per hit).
three_cmd='./trprog "tick 10" done'
three "names and literals as keys" 4 0 '
tr$target:::tick /arg0 % 2 == 0/ {
	self->s[probefunc, (int)arg0 / 2] = arg0 + 1;
	self->s["x", (int)arg0 / 2] = 7 * arg0;
	self->s[probename, (int)arg0] = arg0 + 100;
}
tr$target:::tick /arg0 % 2 == 1 && self->s["run", (int)arg0 / 2]/ {
	@c[self->s[probefunc, (int)arg0 / 2], self->s["x", (int)arg0 / 2],
	    self->s["tick", (int)arg0 - 1]] = count();
	self->s[probefunc, (int)arg0 / 2] = 0;
}
tr$target:::tick /arg0 % 2 == 1 && self->s["run", (int)arg0 / 2 + 50]/ {
	@never = count();
}
tr$target:::done {
	@d[self->s[probename, 8], self->s[probefunc, 4], self->s["x", 4]] =
	    count();
	@e[self->s["tick", 8], self->s["done", 8], self->s[probefunc, 0]] =
	    count();
}
END { printa("c %d %d %d %@d\n", @c); printa("d %d %d %d %@d\n", @d);
	printa("e %d %d %d %@d\n", @e); }'
three_cmd=
# each even i's element read at i + 1 and cleared (c); at done, i = 8's
# by probefunc ("run") and by the literal "tick", not by probename
printf '%s\n' 'c 1 0 100 1' 'c 3 14 102 1' 'c 5 28 104 1' \
	'c 7 42 106 1' 'c 9 56 108 1' 'd 0 0 56 1' 'e 108 0 0 1' '' >want.txt
expect_file_eq "names and literals as keys: the answers" want.txt out0.txt

three "a string key of another kind" 0 10 '
tr$target:::tick { self->s[probefunc] = arg0 + 1; }
tr$target:::tick /self->s[copyinstr(arg1)]/ {
	@c[self->s[probefunc]] = count(); self->s[probefunc] = 0;
}'
expect_grep "a string key of another kind: -v says why" \
	'^dtrace: clause 2 (tr[0-9]*:::tick) runs in user space, from its record: line 3: its predicate is not one the kernel computes: self->s\[\]: its key at line 3 is copyinstr(), which the kernel does not compute (it keys arrays by integers, the probe'"'"'s names and literals alone)$' \
	errg.txt

# self-> integers whose set and unset types compute differently:
# statements and predicates dispatched at the hit on the variables'
# values, one form per case (kplan_vars.c's clause_typed(),
# kplan_stmt.c's emit_forms(), kplan_emit.c's pred_forms()): the unset
# hits' uint32_t - 1 in bucket -1 (a signed 0 - 1), the set ones'
# 0 - 1 wrapped; two variables (four forms), in an if's branch too; a
# kernel clause's predicate and a vin clause's (kplan_vin.c's
# vpred_ok(): user space runs the clause, its printf() of strtoll()
# being its own (before printed forms, self->t's value of two types,
# set and unset, was), from the hits whose predicate held: 8 records,
# not 10); the stores of 0
# delete (the set test is the value)
three "forms" 4 8 '
tr$target:::tick /arg0 % 2/ { self->t = (uint32_t)arg0; }
tr$target:::tick /arg0 % 3 == 0/ { self->u = (uint16_t)(arg0 + 1); }
tr$target:::tick /self->t - 1 < 5/ { @p = count(); @s = sum(self->t - 1); }
tr$target:::tick /self->t - 1 < 5/ {
	printf("%d %d %d ", arg0, self->t, strtoll("12"));
	trace(uaddr(0));
}
tr$target:::tick {
	@q = quantize(self->t - 1);
	@d[arg0] = sum(self->t - self->u);
	if (arg0 > 4) { @b[arg0] = sum(self->u - 1); }
	self->t = 0;
	self->u = 0;
}'
expect_grep "forms: a vin clause" \
	'^dtrace: 1 clause in user space reading self-> variables the kernel keeps' \
	errg.txt

# printed values typed apart set and unset (kplan_out.c's "Printed
# forms"): printf() and trace() of self->u (uint32_t) and self->v
# (uint16_t), one each and both (four forms), beside a string copy, a
# width, in an if's branch, and of a this-> integer stored by another
# clause at the odd hits (its bit at the hit); each form writes the same slots and its
# own in the slot before them, which dtrace prints them by: the unset
# hits' 0 - 1 signed (-1, %x ffffffffffffffff), the set ones' in 32
# bits (4 - 10 is 4294967290).  This tree before left all five
# clauses to user space ("no forms are chosen at the hit for a printed
# value").
three "printed forms" 3 10 '
tr$target:::tick /arg0 & 1/ { self->u = (uint32_t)arg0 + 1; }
tr$target:::tick /arg0 % 3 == 0/ { self->v = (uint16_t)(arg0 + 7); }
tr$target:::tick {
	printf("%d: %d %x %u [%*s] %s", arg0, self->u - 1, self->u - 1,
	    self->u * 2, self->u, "x", copyinstr(arg1));
	trace(self->v - 8);
	printf(" %d %x\n", self->u - self->v, (self->u - 2) * (self->v - 3));
	if (arg0 > 5) { printf("b %d\n", self->u - 1); }
	self->u = (uint32_t)0;
	self->v = (uint16_t)0;
}
tr$target:::tick /arg0 & 1/ { this->x = (uint32_t)arg0; }
tr$target:::tick { printf("t %d %x %d\n", arg0, this->x - 1, this->x * 2); }' 2
expect_eq "printed forms: a this-> integer" \
	't 0 ffffffffffffffff 0|t 1 0 2|t 2 ffffffffffffffff 0|t 3 2 6' \
	"$(grep '^t [0-3] ' outg.txt | paste -sd'|' -)"
expect_eq "printed forms: hits 0 to 3" \
	'0: -1 ffffffffffffffff 0 [x] alpha-1 -7 fffffffffffffff8|1: 1 1 4 [ x] beta-8 2 0|2: -1 ffffffffffffffff 0 [x] gamma-8 0 6|3: 3 3 8 [   x] delta2 4294967290 e' \
	"$(grep '^[0-3]: ' outg.txt | paste -sd'|' -)"
expect_eq "printed forms: the branch's" 'b -1|b 7|b -1|b 9' \
	"$(grep '^b ' outg.txt | paste -sd'|' -)"

# this-> integers the same (doc/DESIGN.md §8 part 3: a this-> variable
# is set when the firing stored it, 0 included, cgen_plan.c's
# S_FLAGS_THIS() bits and UBPF_K_TSET): this->u = (uint64_t)0 on the
# odd hits, so this->u - 1 > 0 is 1 there (0 - 1 wrapped) and 0 on the
# even ones (a signed 0 - 1), which a set test by value would get wrong;
# this->w's (uint32_t)arg0 (0 at hit 0) in a sum, a predicate and
# beside this->u (four forms), and stored in an if's branch before a
# statement reading it
three "forms: this->" 5 0 '
tr$target:::tick /arg0 % 2/ { this->u = (uint64_t)0; }
tr$target:::tick /arg0 % 3 == 0/ { this->w = (uint32_t)arg0; }
tr$target:::tick {
	@u[this->u - 1 > 0] = count(); @w[arg0] = sum(this->w - 1);
}
tr$target:::tick /this->w - 1 < 5/ {
	@p = count(); @s[arg0] = sum(this->u - this->w);
}
tr$target:::tick {
	if (arg0 > 4) { this->w = (uint32_t)1; }
	@v[arg0] = sum(this->w - 1);
}'

# what stays: a key whose type differs set and unset (one layout a
# statement): that clause reads self->t from the record (vin), -v
# says why; a printed value typed apart set and unset is the kernel's
# since, its forms chosen at the hit (kplan_out.c's "Printed forms":
# the form's slot in the out area, user space printing the value with
# that form's type; before, the out area had one type a slot).  And
# run-interp-d.sh's gc.d (clauses 5 to 7): a string comparison's fault
# site is numbered only once the kernel's clauses are decided, so a
# clause typed before (clause 5, storing self->trace) found it "not
# reached" and was user space's, "computing differently" (kplan.c's
# typing flag): now the kernel's, with the clauses reading it
three "forms: what stays" 4 10 '
tr$target:::tick /arg0 % 2/ { self->t = (uint32_t)arg0; }
tr$target:::tick { printf("%d %d\n", arg0, self->t - 1); }
tr$target:::tick { @k[self->t] = count(); }
tr$target:::tick /self->t - 1 < 5/ { @p = count(); self->t = 0; }
tr$target:::tick /copyinstr(arg1) == "beta"/ { self->trace = 1; }
tr$target:::tick /self->trace/ { printf("%d %d\n", arg0, timestamp > 0); }
tr$target:::tick /arg0 == 7/ { self->trace = 0; }' 2
# the printed value, set (uint32_t) and unset (a signed 0): its lines
expect_eq "forms: a printed value, set and unset" \
	'0 -1|1 0|2 -1|3 2|4 -1|5 4|6 -1|7 6|8 6|9 8' \
	"$(awk '/^[0-9]+ -?[0-9]+$/ && $2 != 1' outg.txt | paste -sd'|' -)"
expect_eq "forms: a printed value: the kernel's" '' \
	"$(grep '^dtrace: clause 2 ' errg.txt)"
# the key names its statement and why it has no forms (main said "its
# plan would differ with its variables set and unset")
ty='(its stores are unsigned 4-byte values, unset it is a signed 8-byte 0: declare it, or cast the value to int64_t)$'
expect_grep "forms: what stays: -v says why (clause 3)" \
	"^dtrace: clause 3 (tr[0-9]*:::tick) runs in user space, from its record: line 4: its @k = count() would compute differently with self->t set and unset, and its forms would need a layout each, key 1's type differing $ty" \
	errg.txt

finish
