#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-rcon.sh: run constants in the kernel.  A global integer that
# only BEGIN stores (kplan_fkey.c's "Run constants in the kernel": the
# book's `timezero = timestamp`, pg_qslower.d's `min_ns = $1 * 1000000`)
# is read by the kernel's clauses from cgrcon (UBPF_K_GLD), which dtrace
# writes once BEGIN has fired and before the -c commands go; before,
# every clause reading one at a probe was user space's ("... is a
# global variable that clause N reads or stores at a probe").  Cases:
#  - rc.d on cgout rewrite 20 (pid provider, hit(p, i), i 0 to 19): a
#    predicate, sums, a key and a this-> value reading five run
#    constants (timestamp's unsigned 8 bytes, an int, a long past 32
#    bits, a negative one, a declared uint8_t narrowed from 300), byte
#    for byte three ways (the generated programs, DTRACE_KAGG=0,
#    DTRACE_CGEN=0) and known answers; -v: every clause the kernel's;
#  - rk.d at syscall::read:entry on kpprog reads 7: a kernel probe's
#    program reads them too, known answers, three ways;
#  - rg.d, a clause user space runs (pr_psargs a key) whose predicate
#    reads one: the program tests it, a record only for the hits that
#    pass (a record gate);
#  - rp.d, a store under BEGIN's predicate of a type not the zero's:
#    user space's, -v saying why, the answers still right;
#  - rf.d, BEGIN's store after a statement that may fault (and does):
#    BEGIN may leave the variable its zero, of another type than its
#    stores', so user space's, -v saying why, the answer as before; rh.d,
#    the store after a header printf() that cannot fault: the kernel's;
#  - rb.d, BEGIN's output before the -c command's first line.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup
kpprog_build

# two NAME CMD: NAME.d on ./cgout CMD, a clause of it user space's (cgout
# lingers), generated (NAME.1) and DTRACE_CGEN=0 (NAME.0), the same
two() {
	late=1
	for m in 1 0; do
		run "$m" "$1.$m" "$2" -s "$1.d"
	done
	late=
	expect_file_eq "$1: DTRACE_CGEN=0's output" "$1.0" "$1.1"
}

cat >rc.d <<'EOF'
uint8_t small;

BEGIN
{
	t0 = timestamp;
	lim = 5;
	big = 0xffffffffff;
	neg = -3;
	small = 300;
}

pid$target::hit:entry
/arg1 >= lim/
{
	@c["at or past lim"] = count();
	@s["sum"] = sum(arg1 + lim + big);
	@n["neg"] = sum(arg1 * neg);
	@t[timestamp > t0, (timestamp - t0) / 10000000000] = count();
	this->d = (arg1 - lim) * neg + small;
	@d["this"] = sum(this->d);
}

pid$target::hit:entry
/arg1 < lim && arg1 != small - 44/
{
	@lo["below lim"] = count();
}
EOF
for m in 1 0; do
	run "$m" "rc.$m" "rewrite 20" -s rc.d
done
DTRACE_KAGG=0 run 1 rc.u "rewrite 20" -s rc.d
expect_file_eq "rc: DTRACE_KAGG=0's output" rc.u rc.1
expect_file_eq "rc: DTRACE_CGEN=0's output" rc.0 rc.1
# i 5 to 19: 15 hits; sum i = 180; + 15 * 5 + 15 * (2^40 - 1)
expect_grep "rc: count" '^ *at or past lim  *15$' rc.1
expect_grep "rc: the sum" '^ *sum  *16492674416880$' rc.1
expect_grep "rc: a negative constant" '^ *neg  *-540$' rc.1
expect_grep "rc: the key from t0" '^ *1  *0  *15$' rc.1
# this->d: (i - 5) * -3 + 44 over i 5 to 19: 15 * 44 - 3 * 105
expect_grep "rc: this-> from two of them" '^ *this  *345$' rc.1
# i 0 to 4 but for 0 (small - 44 is 0)
expect_grep "rc: the declared one narrowed" '^ *below lim  *4$' rc.1
expect_grep "rc: -v, both clauses the kernel's" \
	'^dtrace: 2 clauses aggregated in the kernel$' rc.1.err
expect_eq "rc: no clause in user space" "" "$(grep 'user space' rc.1.err)"

cat >rk.d <<'EOF'
BEGIN
{
	one = 1;
	t0 = timestamp;
}

syscall::read:entry
/pid == $target && arg2 == one/
{
	@r["reads"] = count();
	@t["after BEGIN"] = sum(timestamp > t0);
}
EOF
for m in g u 0; do
	kpprog_run rk "$m" "reads 7" -s rk.d
done
three_same rk
expect_grep "rk: count" '^ *reads  *7$' rk.g
expect_grep "rk: every hit after t0" '^ *after BEGIN  *7$' rk.g
expect_eq "rk: no clause in user space" "" "$(grep 'user space' rk.g.err)"

# a store BEGIN may not make, of a type that is not the zero's
cat >rp.d <<'EOF'
BEGIN
/$target != 0/
{
	t0 = timestamp;
}

pid$target::hit:entry
/timestamp > t0/
{
	@["late"] = count();
}
EOF
two rp "rewrite 6"
expect_grep "rp: count" '^ *late  *6$' rp.1
expect_grep "rp: -v says why" \
	"t0 is a global BEGIN alone stores, but not one type the kernel knows before BEGIN fires" \
	rp.1.err

# a clause user space runs (pr_psargs a key), its predicate reading a
# run constant: a record gate the program tests (kplan.c's "Record
# gates"), a record for each of the 5 hits that pass alone
cat >rg.d <<'EOF'
BEGIN
{
	lim = 15;
}

pid$target::hit:entry
/arg1 >= lim/
{
	@[curpsinfo->pr_psargs, arg1] = count();
}
EOF
two rg "rewrite 20"
expect_eq "rg: the hits past lim" 5 "$(grep -c 'cgout rewrite 20' rg.1)"
expect_grep "rg: a record for each alone" \
	'^dtrace: BPF: 1 generated program, .*, 5 records read$' rg.1.err

# BEGIN's store after a statement that may fault: BEGIN may not make it,
# leaving the zero's type, so user space's, the answer as before
cat >rf.d <<'EOF'
BEGIN
{
	x = *(int *)copyin(0, 4);
	t0 = timestamp;
}

pid$target::hit:entry
/timestamp > t0/
{
	@["late"] = count();
}
EOF
two rf "rewrite 3"
expect_grep "rf: BEGIN's fault said" 'invalid address' rf.1.err
expect_grep "rf: count" '^ *late  *3$' rf.1
expect_grep "rf: -v says why" \
	"t0 is a global BEGIN alone stores, but not one type the kernel knows before BEGIN fires (.*after statements that cannot fault)" \
	rf.1.err
# ... and after statements that cannot fault (pg_qslower.d's header):
# the kernel's
sed 's|^	x = .*|	printf("%s %d\\n", "header", 1 + 2 * 3);|' rf.d >rh.d
for m in 1 0; do
	run "$m" "rh.$m" "rewrite 3" -s rh.d
done
expect_file_eq "rh: DTRACE_CGEN=0's output" rh.0 rh.1
expect_grep "rh: the header" '^header 7$' rh.1
expect_grep "rh: count" '^ *late  *3$' rh.1
expect_eq "rh: no clause in user space" "" "$(grep 'user space' rh.1.err)"

# BEGIN fires before the -c command goes: its line comes first
cat >rb.d <<'EOF'
BEGIN
{
	printf("begin\n");
}

syscall::write:entry
/pid == $target/
{
	@["writes"] = count();
}
EOF
timeout -s KILL 120 "$DTRACE" -q -s rb.d -c "./kpprog hello" >rb.out \
	2>rb.err
expect_eq "rb: status" 0 "$?"
expect_eq "rb: BEGIN's line, then the command's" "begin|hello" \
	"$(grep -e '^begin$' -e '^hello$' rb.out | paste -sd'|' -)"

finish
