#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-fstk.sh: faults at the hit beside a user stack in the same
# record.  Where the kernel keeps self-> variables no hit can go to user
# space whole, so each read of a kernel clause that may fault is a fault
# site, whose bits the hit's record carries (cgen.c, UBPF_RF_KFAULT); a
# clause of the same probe that user space runs from the record's user
# stack (@s[ustack(2)] = count(): "keying by the user stack in the
# kernel, each count made from its record") puts a stack in that
# record too.  Until 2026-12-05 the generated program refused the pair
# and the run failed at its start ("no program generated for uprobe
# event ..., whose clauses keep self-> variables in the kernel"); the
# bits now go before the stack (rec_impl.h's rec_kfault()).  On cgout
# (tests/data/cgenout/cgout.c, pid provider, hit(p, n)), each kind of
# site beside such a clause:
#  - fs.d: a string compared with a literal (kplan_vars.c's fmode), on
#    cgout refault ("alpha", 0x10, ""): 0x10's fault in the predicate;
#  - fm.d: a constant copyin() (kplan_mem.c's mfault), the same;
#  - fv.d: vtimestamp read (vfault), on cgout keep;
#  - fb.d: a copy cut at a length (kplan_bstr.c's bfault), on cgout
#    bounded ("abc" one byte past its page's end and 0x10 "invalid
#    address", -5 and 70,000 "out of scratch space");
#  - fk.d: a string compared at a kernel probe (kprov.c's record),
#    openat(2)'s path on kpprog badopens ("/nonexistent/ok-I", then
#    address 16: its fault in the predicate);
# each three ways (the generated program, DTRACE_KAGG=0, DTRACE_CGEN=0)
# byte for byte, the faults reported alike, -v naming the stack's
# clause and no refusal.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

cgout_setup
kpprog_build

# faults OUT: OUT.err's fault messages, the pid and "abc"'s address
# (bounded mode's, in OUT.addr) made names
faults() {
	grep 'error on enabled probe' "$1.err" |
		sed "s/pid[0-9]*:/pid:/; s/$(cat "$1.addr" 2>/dev/null ||
			echo NONE)/ABC/"
}

# three NAME MODE: NAME.d on ./cgout MODE, three ways (bounded's file
# of "abc"'s address each run's OUT.addr)
three() {
	for w in 1 k 0; do
		a=
		[ "$2" != bounded ] || a=" $1.$w.txt.addr"
		case $w in
		1) late=1 run_bg 1 "$1.$w.txt" "$2$a" -s "$1.d" ;;
		k) DTRACE_KAGG=0 run_bg 1 "$1.$w.txt" "$2$a" -s "$1.d" ;;
		0) run_bg 0 "$1.$w.txt" "$2$a" -s "$1.d" ;;
		esac
	done
}

# ent V: the entry clause that sets self->d to V
ent() {
	printf 'pid$target::hit:entry\n{\n\tself->d = %s;\n}\n' "$1"
}

stk='pid$target::hit:entry
/self->d/
{
	@s[ustack(2)] = count();
}

pid$target::hit:return
{
	self->d = 0;
}

END
{
	printa("a %d %@d\n", @a);
	printa(@s);
}'

cat >fs.d <<EOF
$(ent arg1)

pid\$target::hit:entry
/self->d && copyinstr(arg0) == "alpha"/
{
	@a[self->d] = count();
}

$stk
EOF

cat >fm.d <<EOF
$(ent arg1)

pid\$target::hit:entry
/self->d/
{
	this->p = (char *)copyin(arg0, 1);
	@a[this->p[0]] = count();
}

$stk
EOF

cat >fv.d <<EOF
$(ent arg1)

pid\$target::hit:entry
/self->d && vtimestamp/
{
	@a[self->d > 0] = count();
}

$stk
EOF

cat >fb.d <<EOF
$(ent 1)

pid\$target::hit:entry
/self->d/
{
	this->c = (char *)copyin(arg0, arg1 + 1);
	this->c[arg1] = '\0';
	@a[stringof(this->c) == "hello"] = count();
}

$stk
EOF

cat >fk.d <<'EOF'
syscall::openat:entry
/pid == $target/
{
	self->d = 1;
}

syscall::openat:entry
/self->d && copyinstr(arg1) == "/nonexistent/ok-1"/
{
	@a[1] = count();
}

syscall::openat:entry
/self->d/
{
	@s[ustack(2)] = count();
}

syscall::openat:return
{
	self->d = 0;
}

END
{
	printa("a %d %@d\n", @a);
	printa(@s);
}
EOF
for m in g u 0; do
	kpprog_run fk $m "badopens 2" -s fk.d
done

three fs refault
three fm refault
three fv keep
three fb bounded
run_join

for n in fs fm fv fb; do
	for m in k 1; do
		expect_file_eq "$n: DTRACE_CGEN=0's output ($m)" \
			"$n.0.txt" "$n.$m.txt"
		expect_eq "$n: the faults reported ($m)" \
			"$(faults "$n.0.txt")" "$(faults "$n.$m.txt")"
	done
	# the stacks counted: one a call of hit() in main()
	expect_grep "$n: a stack" 'cgout`hit$' "$n.1.txt"
	expect_grep "$n: -v, the stack's clause" \
		'^dtrace: 1 clause keying by the user stack in the kernel' \
		"$n.1.txt.err"
	expect_grep "$n: -v, the kernel's clauses" \
		'^dtrace: 3 clauses aggregated in the kernel$' "$n.1.txt.err"
	expect_eq "$n: no clause in user space" "" \
		"$(grep 'runs in user space\|no program generated' \
			"$n.1.txt.err")"
done
for m in u 0; do
	expect_file_eq "fk: ($m)'s output" "fk.$m" fk.g
	expect_eq "fk: ($m)'s faults" \
		"$(grep 'error on enabled' "fk.$m.err")" \
		"$(grep 'error on enabled' fk.g.err)"
done
expect_grep "fk: ok-1 counted" '^a 1 1$' fk.g
expect_eq "fk: 0x10's faults" 2 \
	"$(grep -c 'syscall:vmlinux:openat:entry): invalid address (0x10) in predicate$' fk.g.err)"
expect_grep "fk: -v, the kernel's clauses" \
	'^dtrace: 3 clauses aggregated in the kernel$' fk.g.err
expect_eq "fk: no clause in user space" "" \
	"$(grep 'runs in user space\|no program generated' fk.g.err)"

# the faults themselves (the comparisons above hold for none too)
expect_eq "fs: 0x10's fault" \
	'dtrace: error on enabled probe ID 2 (ID 4: pid:cgout:hit:entry): invalid address (0x10) in predicate' \
	"$(faults fs.1.txt)"
expect_eq "fm: 0x10's fault" \
	'dtrace: error on enabled probe ID 2 (ID 4: pid:cgout:hit:entry): invalid address (0x10) in action #1' \
	"$(faults fm.1.txt)"
expect_eq "fb: its faults" \
	'invalid address (ABC) in action #1|invalid address (0x10) in action #1|out of scratch space in action #1|out of scratch space in action #1' \
	"$(faults fb.1.txt | sed 's/.*: //' | paste -sd'|' -)"
expect_grep "fs: alpha counted" '^a 1 1$' fs.1.txt

finish
