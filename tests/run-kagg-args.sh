#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-args.sh: integer args[N] in the kernel, typed per probe
# (kplan.c's kp_ty_at(), kplan_emit.c's args_keys()), and -v's count
# of the clauses there when a generated program falls back to the
# record-only one (bpf_agg_cgen.c's bpf_kagg_cgen_ran()), on a USDT
# provider with typed arguments (tests/data/kargs/ka.d, ka.c).  Each
# script runs with the generated programs (DTRACE_CGEN=1), aggregating
# in user space (DTRACE_KAGG=0) and with the generic program
# (DTRACE_CGEN=0); the three outputs must be byte for byte the same,
# and -v must say how many clauses the generated programs ran in the
# kernel.  Covered:
#  - args[N] of int8_t, uint16_t, int64_t, unsigned char as keys and
#    values: int8_t values that wrap negative, uint16_t ones past
#    32767, int64_t ones past 32 bits, -1 and -2 given to an unsigned
#    char (255, 254); a translated list that narrows native ints to
#    uint8_t and int8_t (-1 is 255, 300 is 44): the sign or zero
#    extension of D's args[N], checked against the expected lines too;
#  - predicates on them: signed and unsigned comparisons (an unsigned
#    char against -1, a uint16_t above 60000, an int64_t below 0),
#    casts, || and &&; one at probes typing args[1] uint16_t and short;
#  - one clause at probes whose args[N] types differ: args[1] uint16_t
#    at one and int at another (the key's type is the first plan's, the
#    other probe user space's), args[0] a string at one and an int at
#    another (both in the kernel: kaggs_s and kaggs), uint16_t against
#    short;
#  - stringof(args[N]) beside another string key, in the kernel where
#    args[N] is a string; args[N] bare beside another string key, in
#    the kernel where it is a string and where it is an integer (the
#    statement's two layouts); args[N] of a string ordered against
#    literals;
#  - args[N] past a probe's declared arguments: the fault user space
#    reports there, in the kernel at the probe where it is declared;
#  - a clause with /copyinstr(arg0) != "zzz"/ and a self-> string
#    store, read in another clause's predicate (noted last round as
#    left to user space; in the kernel on this tree and the one before
#    it, so this case guards it, it does not fail there);
#  - a probe whose plan the generator refuses (its printf() out area
#    and eight strings do not fit the record's room: cgen.c) gets the
#    record-only program, every clause in user space: -v says no
#    clause ran in the kernel (it said 1 aggregated and 1 printing
#    before bpf_kagg_cgen_ran()), every hit a record; on the
#    in-process path, a plan the arena cannot take, the same (x86-64,
#    not in check-kmod's guest).
# -v's counts fail on a tree that left integer args[N] to user space,
# and the fallback's on one that counted a plan before cgen.c took it.
# Needs root, uprobes and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup uprobe # require_G below, where ka is not built already

if ! trace_progs_copy ka; then
	require_G
	data=$top_srcdir/tests/data/kargs
	"$DTRACE" -h -s "$data/ka.d" -o ka.h &&
		$CC -O2 -I. -c "$data/ka.c" -o ka.o &&
		"$DTRACE" -G -s "$data/ka.d" ka.o -o ka-probes.o &&
		$CC -o ka ka.o ka-probes.o || {
		fail "building ka"
		finish
	}
fi

# run MODE OUT N DTRACE-ARGS...: lib.sh's run_mode on ./ka N
run() {
	m=$1 o=$2 n=$3
	shift 3
	run_mode "$m" "$o" "./ka $n" "$@"
}

# same NAME D-FILE N COUNT: the script on ./ka N three ways, the same
# output; with the generated programs COUNT clauses in the kernel
same() {
	name=$1 d=$2 n=$3 count=$4
	for m in g u 0; do
		run $m "$name.$m.txt" "$n" -s "$d"
	done
	expect_file_eq "$name: DTRACE_KAGG=0's output" \
		"$name.u.txt" "$name.g.txt"
	expect_file_eq "$name: DTRACE_CGEN=0's output" \
		"$name.0.txt" "$name.g.txt"
	if [ "$count" = 1 ]; then
		c='1 clause'
	else
		c="$count clauses"
	fi
	expect_grep "$name: -v" "^dtrace: $c aggregated in the kernel\$" \
		"$name.g.txt.err"
}

# Keys and values of declared integer types, narrowed as D reads them.
cat >typed.d <<'EOF2'
ka$target:::t { @a[args[0]] = sum(args[2]); @b[args[1]] = count(); @c[args[4]] = max(args[5]); }
ka$target:::n { @n[args[0], args[1]] = count(); }
EOF2
same typed typed.d 20 2
expect_grep "typed: no record" 'BPF: .* 0 records read$' typed.g.txt.err
# int8_t: 19 * 37 = 703 is -65; int64_t past 32 bits
expect_grep "typed: int8_t key, int64_t sum" \
	'^ *-65 *-19000000133000$' typed.g.txt
# uint16_t: 19 * 5000 = 95000 is 29464
expect_grep "typed: uint16_t key" '^ *29464 *1$' typed.g.txt
# unsigned char: -1 and -2 are 255 and 254; max(int) of their turns
expect_grep "typed: unsigned char key (-1)" '^ *255 *13$' typed.g.txt
expect_grep "typed: unsigned char key (-2)" '^ *254 *14$' typed.g.txt
# translated: int -1 as uint8_t, 300 as int8_t
expect_grep "typed: translated uint8_t, int8_t" '^ *255 *44 *1$' typed.g.txt

# Predicates: signed and unsigned comparisons, casts, || and &&.
cat >pred.d <<'EOF2'
ka$target:::t /args[0] > 3/ { @a = count(); }
ka$target:::t /args[4] > -1 && args[1] > 60000/ { @b = count(); }
ka$target:::t /args[2] < 0 && (uint8_t)args[0] > 200/ { @c = sum(args[4]); }
ka$target:::n /args[0] == 255 || args[1] == 44/ { @d = count(); }
ka$target:::t, ka$target:::w /args[1] < 0/ { @e = count(); }
EOF2
same pred pred.d 20 5
printf '\n               10\n                1\n              509\n                1\n               19\n' \
	>pred.exp
expect_file_eq "pred: the expected counts" pred.exp pred.g.txt

# One clause, args[N] typed differently at its probes.
cat >mixed.d <<'EOF2'
ka$target:::t, ka$target:::u { @a[args[1]] = count(); }
ka$target:::u, ka$target:::w { @b[args[0]] = count(); }
ka$target:::t, ka$target:::w { @c[args[1]] = count(); }
EOF2
same mixed mixed.d 20 3
# the string args[0] at u and the int at w: both in the kernel
cat >sw.d <<'EOF2'
ka$target:::u, ka$target:::w { @b[args[0]] = count(); }
EOF2
same sw sw.d 20 1
expect_grep "sw: string and integer keys in the kernel" \
	'BPF: .* 0 records read$' sw.g.txt.err
expect_grep "sw: a string key" '^  beta  *7$' sw.g.txt
expect_grep "sw: an integer key" '^ *4  *4$' sw.g.txt

# stringof(args[N]) beside another string key (kplan.c's
# str_pair_keys(): SKEY or SKEY2, and CWKEY for execname, in one
# kaggs_s key): with copyinstr(arg0), with execname, with itself and an
# integer, and the three together, at u (a string) in the kernel; at
# w, where args[0] is an int, the clause user space's (its digits
# beside execname there).  Before, all user space's (-v).  args[N]
# bare beside another string key stays user space's (kaggs' integer
# key at a probe declaring an integer: @n above).
cat >ask.d <<'EOF2'
ka$target:::u { @a[stringof(args[0]), copyinstr(arg0)] = count(); }
ka$target:::u, ka$target:::w { @b[execname, stringof(args[0])] = count(); }
ka$target:::u, ka$target:::w { @c[args[1], stringof(args[0]), copyinstr(arg0)] = sum(args[1]); }
ka$target:::u { @d[stringof(args[0]), execname, copyinstr(arg0)] = count(); }
EOF2
same ask ask.d 20 4
expect_grep "ask: w's hits user space's" 'BPF: .* 20 records read$' \
	ask.g.txt.err

# args[N] bare beside another string key (kplan.c's bare_alts()): with
# execname, with itself and an integer, at u (a string: SKEY2 or CWKEY
# in one kaggs_s key) and at w and n (an integer: the statement's other
# layout, CKEY beside an integer key, a lone key and integers, its
# entries merged into the same aggregation), every hit in the kernel;
# args[N] bare before another string key (@e, @f: an integer key at w
# and t), user space's before (kp_stmt_plain() gave the bare args[N]
# the string key's place, so the other layout had none: -v "args[0] is
# no string there").
# Before, the statement's layout left args[0] an integer key, so u's
# hits were user space's (-v: 2 clauses, 20 records read, here none);
# taking args[0] as a string alone (the last round's try) left w's and
# n's.  And args[N] of a string argument ordered against literals (SEQ
# with an order: kplan_str.c's kp_str_cmp()), user space's before.
cat >bare.d <<'EOF2'
ka$target:::u, ka$target:::w { @a[execname, args[0]] = count(); }
ka$target:::u, ka$target:::n { @b[args[0], args[0], args[1]] = sum(args[1]); }
ka$target:::u /args[0] < "beta"/ { @c[args[1]] = count(); }
ka$target:::u { @d[args[0] >= "beta", "gamma" > args[0], args[0] <= "gammaXYZ"] = count(); }
ka$target:::w { @e[args[0], execname] = count(); }
ka$target:::t { @f[args[0], copyinstr(arg3)] = sum(args[0]); }
EOF2
same bare bare.d 20 6
expect_grep "bare: every hit in the kernel" 'BPF: .* 0 records read$' \
	bare.g.txt.err
expect_grep "bare: u's execname and args[0]" '^  ka  *beta  *7$' bare.g.txt
expect_grep "bare: w's execname and args[0]" '^  ka  *4  *4$' bare.g.txt
expect_grep "bare: w's args[0] before execname" '^  *4  ka  *4$' bare.g.txt
expect_grep "bare: t's int8_t args[0] before a copy" \
	'^ -108  beta  *-108$' bare.g.txt

# userv NAME WHY-RE SCRIPT: SCRIPT (NAME.d) on ./ka 20 with the
# generated programs and with DTRACE_KAGG=0, each run's status 0 (run),
# the outputs alike, and -v's reason for the clause user space runs
# matching WHY-RE
userv() {
	printf '%s\n' "$3" >"$1.d"
	for m in g u; do
		run $m "$1.$m.txt" 20 -s "$1.d"
	done
	expect_file_eq "$1: DTRACE_KAGG=0's output" "$1.u.txt" "$1.g.txt"
	expect_grep "$1: -v says why" "$2" "$1.g.txt.err"
}

# A this-> integer stored from args[N] (typed per probe, a variable the
# kernel keeps has one type): user space's, and -v says why (it named
# no reason before).
userv tstore \
	"its store to this->v is not one the kernel runs: its value: args\[\] is typed per probe" \
	'ka$target:::w { this->v = args[1] + 1; @[this->v] = count(); }'

# Forms typed per probe that do not fit a probe, in a clause beside a
# self-> store, which cannot be user space's there: the event was
# refused and the run failed ("cannot trace uprobe event ...: do not
# fit one plan"; with one event, every probe fell back to the generic
# program).  Now user space's from the decision, -v saying why:
#  - trace(args[N]): the kernel's form is the string one, which w's
#    int args[0] does not fit;
#  - a ?: whose branches args[N] types apart (arg1 an int64, w's
#    args[1] a short: run.c types the value as the branch taken);
#  - an integer key of args[N] that the clause's probes type apart
#    (t's args[1] a uint16_t, w's a short): its type is the first
#    plan's.
# (and a ?: of args[N] and another type in any clause: user space's,
# -v saying why; it said "its value" alone)
userv ternv "its value: a ?: of args\[\] and a value of another type" \
	'ka$target:::w { @a = sum(arg0 > 2 ? 5 : args[1]); }'
userv tracew "trace(args\[\]) in a clause tied to a self-> or global variable" \
	'ka$target:::w { trace(args[0]); self->i = 1; }
ka$target:::t { @ = count(); }'
userv terntie "a ?: whose branches args\[\] may type apart" \
	'ka$target:::w { self->i = 1; @a = sum(arg0 > 2 ? arg1 : args[1]); }
ka$target:::t { @n = count(); }'
userv keytie "key 1 reads args\[\], which the clause's probes type apart" \
	'ka$target:::t, ka$target:::w { self->i = 1; @a[args[1]] = count(); }
ka$target:::u { @n = count(); }'

# args[3] past u's two arguments faults there (user space's, reported
# alike); at t it is a char *, an integer (uint64_t), in the kernel.
cat >past.d <<'EOF2'
ka$target:::u, ka$target:::t { @[probename] = sum(args[3] == 0 ? 1 : 2); }
EOF2
same past past.d 5 1
expect_eq "past: the faults reported" \
	"$(grep 'error on enabled probe' past.u.txt.err |
		sed 's/ka[0-9]*:/ka:/')" \
	"$(grep 'error on enabled probe' past.g.txt.err |
		sed 's/ka[0-9]*:/ka:/')"
expect_eq "past: five faults" 5 \
	"$(grep -c 'main:u): illegal operation' past.g.txt.err)"

# A string predicate beside a self-> string store (noted in the last
# round as left to user space: in the kernel on this tree).
cat >zzz.d <<'EOF2'
ka$target:::u /copyinstr(arg0) != "zzz"/ { self->s = copyinstr(arg0); @a[arg1] = count(); }
ka$target:::w /self->s == "beta"/ { @b[arg1] = count(); }
EOF2
same zzz zzz.d 20 2

# The generator refuses the probe's plan: the record-only program, -v
# says nothing ran in the kernel.  A change that makes such a plan fit
# (cgen.c's record room, UBPF_SCRATCH) makes this case run in the
# kernel: then find another plan cgen.c refuses.
cat >fallback.d <<'EOF2'
ka$target:::m { @n = count(); }
ka$target:::m
{
	printf("%s %s %s %s %s %s %s\n", copyinstr(arg0), copyinstr(arg1),
	    copyinstr(arg2), copyinstr(arg3), copyinstr(arg4),
	    copyinstr(arg5), copyinstr(arg6));
}
ka$target:::m
{
	@a[copyinstr(arg0), copyinstr(arg1), copyinstr(arg2), copyinstr(arg3)] = count();
	@b[copyinstr(arg4), copyinstr(arg5), copyinstr(arg6), copyinstr(arg7)] = count();
	@c[execname] = count();
}
EOF2
for m in g 0; do
	run $m "fallback.$m.txt" 6 -s fallback.d
done
expect_file_eq "fallback: DTRACE_CGEN=0's output" \
	fallback.0.txt fallback.g.txt
expect_eq "fallback: -v, clauses in the kernel" "" \
	"$(grep 'in the kernel$' fallback.g.txt.err)"
expect_grep "fallback: a record per hit" \
	'BPF: 1 generated program, .* 6 records read$' fallback.g.txt.err

# The in-process path (-x activation=user, x86-64): a plan of more
# instructions than the arena's encoding takes (USDT_AOPS, 64: inproc_
# plan.c's ip_plan_site()) leaves its sites' hits records; -v counts
# only the clause whose sites have a plan (ip_plan_ran(); it said 2
# before).  Not in check-kmod's guest (TRACE_PROGS), which runs the
# BPF backend's cases.
if [ "$(uname -m)" = x86_64 ] && [ -z "${TRACE_PROGS:-}" ]; then
	e=arg0
	i=1
	while [ $i -le 70 ]; do
		e="$e + $i"
		i=$((i + 1))
	done
	cat >inproc.d <<EOF2
ka\$target:::w { @[$e] = count(); }
ka\$target:::n { @n = sum(arg0); }
EOF2
	for m in g u; do
		run $m "inproc.$m.txt" 20 -x activation=user -s inproc.d
	done
	expect_file_eq "inproc: DTRACE_KAGG=0's output" \
		inproc.u.txt inproc.g.txt
	expect_eq "inproc: -v" \
		"dtrace: 1 clause aggregated in the process" \
		"$(grep 'aggregated in the' inproc.g.txt.err)"
fi

finish
