#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen-if.sh: if/else in the generated programs (doc/DESIGN.md §8,
# "if/else in the generated programs": kplan_stmt.c's emit_list(),
# UBPF_K_JMP, kplan_vars.c's kp_flat_ok() and kp_if_why()), on a real
# process (tests/data/cgenout/cgout.c, pid provider entry, hit(p, i)
# for i = 0 to 199):
#  - kin.d: clauses whose conditions and branches are integers,
#    aggregations (literal and execname keys too) and stores of
#    integers -- else-if chains, an if nested in an else, eight
#    sequential ifs each storing a this-> variable read after them, a
#    self-> variable stored on one path and read after the if and by a
#    later clause, printf() and trace() at a clause's top before and
#    after its ifs (the values in the out area, dtrace's pre mode
#    skipping the ifs) -- each run by the kernel (-v counts every clause;
#    today's binary runs them in user space: "its if statement is not
#    one the kernel runs"), output byte for byte DTRACE_CGEN=0's and
#    DTRACE_KAGG=0's, and verified in under four times the
#    instructions (the verifier's paths join: not 2^8);
#  - kout.d: what stays user space's, each with its -v reason and
#    DTRACE_CGEN=0's output: a ninth if, a string key (strjoin()) in
#    a branch, a condition the kernel does not compute, and stores on
#    one path
#    that disagree with another clause's type (self->x = -1 there,
#    unsigned in the branch: the interpreter types a read by the store
#    last made; a plan that missed the branch's store would count the
#    signed way);
#  - kpr.d: printf() and trace() in branches, nested, strings copied
#    at the hit (copyinstr(self->p) at the return, a this-> string), a
#    copy's fault in a branch ending the clause before the store after
#    the if, string variables stored at the top and in branches (a
#    store's fault too), without -q (the default lines), by the kernel
#    (-v) and
#    byte for byte DTRACE_CGEN=0's and DTRACE_KAGG=0's but the strings,
#    which are the bytes at the hit (below);
#  - kf.d: strings compared in conditions and in a branch's
#    statements, a copy's fault there.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).
# Ten dtrace runs, a few seconds.

. "$top_srcdir/tests/lib.sh"

cgout_setup

cat >kin.d <<'EOF2'
pid$target::hit:entry { if (arg1 < 10) @lo["lo"] = count(); else if (arg1 < 100) @mid["mid"] = sum(arg1); else { @hi["hi"] = quantize(arg1); self->n++; } }
pid$target::hit:entry /arg1 % 50 == 49/ { @n[arg1] = sum(self->n); }
pid$target::hit:entry { if (arg1 & 1) { if (arg1 & 2) @odd[execname, 3] = count(); else @odd[execname, 1] = count(); } else if (arg1 % 3 == 0) { @three = max(arg1); } else { @rest = min(arg1); @rest2 = avg(arg1); } }
pid$target::hit:entry { if (arg1 & 1) this->a = (int64_t)1; if (arg1 & 2) this->b = (int64_t)2; if (arg1 & 4) this->c = (int64_t)4; if (arg1 & 8) this->d = (int64_t)8; if (arg1 & 16) this->e = (int64_t)16; if (arg1 & 32) this->f = (int64_t)32; if (arg1 & 64) this->g = (int64_t)64; if (arg1 & 128) this->h = (int64_t)128; @bits[this->a + this->b + this->c + this->d + this->e + this->f + this->g + this->h] = count(); }
pid$target::hit:entry { self->y = arg1; if (arg1 > 150) self->y = arg1 * 2; else if (arg1 < 5) { } else { self->y = 0; } }
pid$target::hit:entry /self->y > 290 || self->y == 3/ { @y[self->y] = count(); }
pid$target::hit:entry /arg1 > 190/ { if (arg1 == 195) @last = lquantize(arg1, 190, 200, 2); else @last2 = count(); }
pid$target::hit:entry /arg1 < 40/ { printf("a %d %s\n", arg1, execname); if (arg1 % 7 == 0) { self->z = arg1; @z = sum(arg1); } else if (arg1 % 5 == 0) self->z = 0; printf("z %d %d\n", arg1, self->z); }
pid$target::hit:entry /arg1 < 20/ { if (arg1 & 1) @oddp = count(); trace(arg1 * 3); }
EOF2
run 1 kin.g 'rewrite 200' -s kin.d
run 0 kin.0 'rewrite 200' -s kin.d
DTRACE_KAGG=0 run 1 kin.u 'rewrite 200' -s kin.d
three_same kin
expect_eq "kin: no clause in user space" "" \
	"$(grep 'runs in user space' kin.g.err)"
# the verifier explores both paths of each if, but they join: the eight
# sequential ifs (kin.d's clause 4 alone) do not make 2^8 paths
grep '{ if (arg1 & 1) this->a' kin.d >nest.d
run 1 nest.g 'rewrite 20' -s nest.d
ins=$(sed -n 's/^dtrace: BPF: 1 generated program, \([0-9]*\) instructions, \([0-9]*\) verified.*/\1 \2/p' nest.g.err)
expect_eq "nest: verified under 4 times the instructions ($ins)" 1 \
	"$(echo "$ins" | awk 'NF == 2 && $2 < 4 * $1 { print 1 }')"

cat >kout.d <<'EOF2'
pid$target::hit:entry { if (arg1 == 1) @c9 = count(); if (arg1 == 2) @c9 = count(); if (arg1 == 3) @c9 = count(); if (arg1 == 4) @c9 = count(); if (arg1 == 5) @c9 = count(); if (arg1 == 6) @c9 = count(); if (arg1 == 7) @c9 = count(); if (arg1 == 8) @c9 = count(); if (arg1 == 9) @c9 = count(); }
pid$target::hit:entry { if (arg1 == 7) @seven[strjoin(execname, "-x")] = count(); }
pid$target::hit:entry { if (progenyof(pid)) @prog = count(); }
pid$target::hit:entry { self->x = -1; }
pid$target::hit:entry { if (arg1 == 3) self->x = (uint64_t)arg1 - 4; }
pid$target::hit:entry /self->x > 5/ { @t[arg1] = count(); }
EOF2
late=1 run 1 kout.g 'rewrite 20' -s kout.d
late=1 run 0 kout.0 'rewrite 20' -s kout.d
expect_file_eq "kout: DTRACE_CGEN=0's output" kout.0 kout.g
expect_eq "kout: the counts typed by the store last made" 1 \
	"$(grep -c '^ *3 *1$' kout.g)"
for w in 'clause 1 .*it has more than 8 if statements' \
	'clause 2 .*line 2: a clause with an if statement is the kernel.s only without strings but in printf(), trace(), string variables. stores, conditions and values, and this' \
	'clause 4 .*self->x'; do
	expect_eq "kout: -v: $w" 1 "$(grep -c "$w" kout.g.err)"
done
# progenyof(pid) in the kernel (UBPF_K_PROGX, the walk's chain kept in
# cgbuf): clause 3 not in user space
expect_eq "kout: -v: clause 3's progenyof(pid) in the kernel" 0 \
	"$(grep -c 'clause 3 ' kout.g.err)"

# kpr.d: printf() and trace() in branches (kplan_out.c's kp_if_out(),
# the KEEP OUT of each if whose branches print, d_kplan_out_run()'s
# walk of the branch the kernel took, d/stmt.c's pre mode told it), run
# without -q, so that a hit down a branch that prints nothing has no
# default line here either: a self-> address copied in both branches
# of the classic pair at the return, with a store after the if (the
# copy's jump, kp_out_ends() path-aware); a this-> string (KV_STR) and
# integers in nested branches, a condition of &&; a copy of address
# 16 in a branch at hit 7 with self->n++ after the if, which that hit
# does not make (@n: 73, not 78); string variables stored in a clause
# with ifs (KV_STR: SSTR, SLIT, SCLR), this->s in one branch, a
# literal in another, neither in the third (""), and its copy of
# address 16 at hit 10 ending the clause before its printf(), self->u
# at the top, cleared in a branch, printed in one and by a later
# clause; the faults' messages DTRACE_CGEN=0's.  The strings are the
# hit, "before-i" (cgout rewrites them after the return; DTRACE_CGEN=0
# and DTRACE_KAGG=0 read them later: the comparison with theirs
# blanks the strings and squeezes trace()'s padding, and the generated
# run's own are checked against the numbers beside them).
cat >kpr.d <<'EOF2'
pid$target::hit:entry { self->p = arg0; }
pid$target::hit:entry { this->t = copyinstr(arg0); }
pid$target::hit:entry /arg1 < 30/ { if (arg1 % 4 == 0) printf("t %s %d\n", this->t, arg1); else if (arg1 % 4 == 1 && arg1 > 2) { if (arg1 & 8) trace(arg1); else printf("u %d\n", arg1 * 3); } }
pid$target::hit:return /self->p/ { if (arg1 % 3 == 0) printf("%s %d\n", copyinstr(self->p), arg1); else if (arg1 % 3 == 1) { trace(copyinstr(self->p)); trace(arg1); } else @two = count(); self->p = 0; }
pid$target::hit:entry /arg1 < 12/ { if (arg1 & 1) printf("f %s\n", copyinstr(arg0 * (arg1 != 7) + 16 * (arg1 == 7))); else trace(arg1); self->n++; }
pid$target::hit:entry /arg1 < 12/ { @n = sum(self->n); }
pid$target::hit:entry /arg1 < 30/ { if (arg1 & 2) this->s = copyinstr(arg0 * (arg1 != 10) + 16 * (arg1 == 10)); else if (arg1 & 4) this->s = "lit"; printf("s %s %d\n", this->s, arg1); }
pid$target::hit:entry /arg1 < 30/ { self->u = copyinstr(arg0); if (arg1 % 5 == 0) printf("q %s %d\n", self->u, arg1); else if (arg1 % 5 == 1) self->u = 0; }
pid$target::hit:entry /arg1 < 30 && arg1 % 5 == 2/ { printf("w %s\n", self->u); }
EOF2
# runv G OUT: run()'s of kpr.d on 'rewrite 40', without -q; OUT.n the
# output, the CPU column dropped, the strings blanked, spaces squeezed;
# OUT.msg its messages but the BPF counts, the pid blanked
runv() {
	rm -f "$2"
	rl=0
	[ "$1" = 1 ] && [ -z "${DTRACE_KAGG:-}" ] || rl=$cg_linger
	CGOUT_LINGER_MS=$rl DTRACE_CGEN=$1 timeout -s KILL 120 "$DTRACE" -v \
		-o "$2" -s kpr.d -c './cgout rewrite 40' >/dev/null 2>"$2.err"
	expect_eq "$2: status" 0 "$?"
	[ -f "$2" ] || : >"$2"
	sed -e 's/^ *[0-9]* *//' -e 's/\(before\|after\)-[0-9]*/S/g' "$2" |
		tr -s ' ' >"$2.n"
	grep -e '^dtrace: error' -e 'has exited' "$2.err" |
		sed 's/pid[0-9]*/pid/g; s/pid [0-9]*/pid/' >"$2.msg"
}
runv 1 kpr.g
cgout_inkernel kpr.g -s kpr.d
runv 0 kpr.0
DTRACE_KAGG=0 runv 1 kpr.u
for m in 0 u; do
	expect_file_eq "kpr: kpr.$m's output" "kpr.$m.n" kpr.g.n
	expect_file_eq "kpr: kpr.$m's messages" "kpr.$m.msg" kpr.g.msg
done
expect_eq "kpr: the faults at hit 7's copy and hit 10's store" 2 \
	"$(grep -c '^dtrace: error on enabled probe ID [0-9]* (.*): invalid address (0x10) in action #2$' \
	kpr.g.err)"
expect_eq "kpr: self->n++ not made after the fault" 1 \
	"$(grep -c '^ *73$' kpr.g)"
# each string the bytes at the hit: before-N beside its N (return: N +
# 1; t, s, q: N; f: an odd N below 12 but 7; w: N % 5 == 2), 65 of
# them in all (t 8, return 27, f 5, s 13, q 6, w 6)
expect_eq "kpr: the bytes at the hit" "65 0 0" "$(awk '{
	for (i = 2; i <= NF; i++) {
		if ($i !~ /^before-[0-9]+$/)
			continue
		n = substr($i, 8) + 0
		if (/hit:return/)
			ok = $NF == n + 1
		else if ($(i - 1) ~ /^[tsq]$/)
			ok = $NF == n
		else if ($(i - 1) == "w")
			ok = n % 5 == 2 && n < 30
		else
			ok = $(i - 1) == "f" && n % 2 == 1 && n < 12 && n != 7
		c++
		bad += !ok
	}
} END { print c + 0, bad + 0 }' kpr.g) $(grep -c after- kpr.g)"

# kf.d: strings compared in conditions (kp_if_why() takes what a
# predicate may compare, kp_ty_at()), each in an if nested in a branch,
# so that no comparison of the probe's plan is at a clause's top
# (clause_strs() walks the branches: the program keeping self->
# variables compares its strings as fault sites, fmode, or it is not
# generated at all): copyinstr(arg0) == "alpha" (SEQ, a fault site:
# the copy of address 16 at hit 2 ends the clause after self->c++ and
# before the += 100 after the ifs, ERROR's arg2 the inner if's action,
# 3), a self-> string (KV_STR: VSEQ), execname (CVCMP) and a copy
# again in an if nested in an else if; strings compared in a branch's
# statements (an aggregation's value, a store's: the copy of address
# 16 at hit 2 faulting in the sum(), action 3, which neither it nor the
# store after it makes: @eq has no key 2, and d is not printed), on
# cgout refault ("alpha", 16,
# ""): the lines as the interpreter has them (kf.exp is DTRACE_CGEN=0's
# output, not run here to keep the test short: the comparison of the
# three ways is kpr's), by the kernel (-v: run()'s check)
cat >kf.d <<'EOF2'
pid$target::hit:entry { self->c++; if (arg1 > 0) { if (copyinstr(arg0) == "alpha") printf("a %d\n", arg1); else { printf("other %d\n", arg1); self->c += 10; } } self->c += 100; }
pid$target::hit:entry { if (arg1 != 3) { @eq[arg1] = sum(copyinstr(arg0) == "alpha"); self->d = (int64_t)(copyinstr(arg0) == "alpha") + 1; } else self->d = (int64_t)(copyinstr(arg0) != "alpha") + 7; printf("d %d\n", self->d); }
pid$target::hit:entry /arg1 != 2/ { self->v = copyinstr(arg0); }
pid$target::hit:entry { if (arg1 > 0) { if (self->v == "alpha") printf("v alpha %d\n", arg1); else if (execname == "cgout") { if (copyinstr(arg0) == "") trace(self->c); } } }
pid$target::hit:entry { printf("c %d\n", self->c); }
dtrace:::ERROR { printf("E %d %d %x\n", arg1, arg2, arg5); }
EOF2
printf '%s\n' "a 1" "d 2" "v alpha 1" "c 101" "E 1 3 10" "E 2 3 10" \
	"v alpha 2" "c 102" "other 3" "d 8" "213c 213" "" \
	"                1                1" >kf.exp
run 1 kf.g refault -s kf.d
expect_file_eq "kf: kf.g's lines" kf.exp kf.g
expect_eq "kf: kf.g's faults" 2 "$(grep -c \
	'^dtrace: error on enabled probe ID [12] (.*): invalid address (0x10) in action #3$' \
	kf.g.err)"

finish
