#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-cgen.sh: the BPF programs generated from the clauses
# (dtrace-G/consumer/cgen.c) are the ones a run takes where they fit,
# and they print byte for byte what the generic program prints
# (DTRACE_CGEN=0), on real processes with real uprobes:
#  - every aggregating function, keys of integer expressions and of the
#    probe's name, predicates signed and unsigned, && || ?: / % << and
#    casts, a clause left to user space (printf) on the same probe;
#  - printf() and trace() of integer arguments and execname, whose
#    records the generated program writes, and of copyinstr() strings
#    (copied into the record at the hit), string predicates, self->
#    variables (user space's, from the records);
#  - arguments on the stack (the 7th on), read from user memory;
#  - a run with copyin() at the hit is not taken: the generic program
#    runs it;
#  - BEGIN and END alone load no program at all.
# -v names the generated programs or that none was loaded (the generic
# program, as before, goes unmentioned).
# Needs root, tracefs and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events and BPF need root"
[ "${HAVE_BPF:-no}" = yes ] || skip "dtrace built without the BPF backend"
[ -n "${TRACE_PROGS:-}" ] || require_G
tfs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -w "$d/uprobe_events" ] && tfs=$d && break
done
[ -n "$tfs" ] || skip "no tracefs with uprobe_events (CONFIG_UPROBE_EVENTS)"

DTRACE_STATEDIR=$tmp/nostate
DTRACE_BACKEND=bpf
export DTRACE_STATEDIR DTRACE_BACKEND

trace_progs_build

# same WHAT PATH CMD DTRACE-ARGS...: dtrace -v -q on ./trprog CMD with
# DTRACE_CGEN=1 and 0: the same output, not empty; -v says the first
# took PATH (generated or generic), the second the generic program.
same() {
	what=$1 path=$2 cmd=$3
	shift 3
	for g in 1 0; do
		rm -f out$g.txt
		DTRACE_CGEN=$g timeout -s KILL 120 "$DTRACE" -v -q -o out$g.txt \
			"$@" -c "./trprog $cmd" >/dev/null 2>err$g.txt
		expect_eq "$what (DTRACE_CGEN=$g): status" 0 "$?"
		[ -f out$g.txt ] || : >out$g.txt
	done
	expect_file_eq "$what: the same output" out0.txt out1.txt
	expect_eq "$what: some output" 1 "$([ -s out1.txt ] && echo 1)"
	n=$(grep -c '^dtrace: BPF: [0-9]* generated programs*, ' err1.txt)
	case $path in
	generated) expect_eq "$what: generated" 1 "$n" ;;
	*) expect_eq "$what: the generic program" 0 "$n" ;;
	esac
	expect_eq "$what: generic with DTRACE_CGEN=0 (-v says nothing)" 0 \
		"$(grep -c '^dtrace: BPF: ' err0.txt)"
	expect_eq "$what: no drops" "" "$(grep -i drop err1.txt err0.txt)"
}

# tick N fires tr:::tick(i, word, -1000 * i) for i = 0..N-1.
cat >a.d <<'EOF'
tr$target:::tick
{
	@c[arg0 % 3, pid == $target] = count();
	@s[(int)arg0 & 1] = sum(arg2);
	@a = avg(arg2 / -7);
	@mn[arg0 > 5] = min(arg2);
	@mx = max((unsigned int)arg2);
	@q = quantize(arg2);
	@l[arg0 % 2] = lquantize(arg0, 0, 10, 3);
	@lq = lquantize(arg2, -8000, 0, 1000);
}
tr$target:::tick /(unsigned long)arg2 > 5 && arg0 != 7/ { @u = count(); }
tr$target:::tick /arg2 < -3000/ { @sl = sum(arg0); }
tr$target:::tick /(unsigned long)arg2 <= 3000/ { @ul = max(arg0); }
tr$target:::tick /arg0 < 4 || arg2 % 3 == -1/
{
	@v[probename, arg0 < 6 ? 1 : 2] = sum(arg0 << 3);
}
tr$target:::tick /!(arg0 ^ 5)/ { @x[~arg0, -arg2 >> 4] = min(arg2 % 7); }
tr$target:::tick { printf("%d %d\n", arg0, arg2); }
EOF
same "every aggregating function, keys, predicates" generated "'tick 12'" \
	-s a.d
expect_eq "every aggregating function: clauses in the kernel" \
	"dtrace: 6 clauses aggregated in the kernel" \
	"$(grep 'aggregated in the kernel' err1.txt)"

same "printf, trace and execname from the record" generated "'tick 5'" \
	-n 'tr$target:::tick /arg0 != 2/ { printf("%d %s\n", arg2, execname); trace(arg0); }'

cat >s.d <<'EOF'
tr$target:::tick { @[copyinstr(arg1)] = sum(arg0); }
tr$target:::tick /copyinstr(arg1) == "beta" || arg0 == 3/
{
	self->n++;
	printf("%d %s %d %s\n", arg0, copyinstr(arg1), self->n, execname);
}
tr$target:::tick /arg0 & 1/ { @odd = count(); }
EOF
same "copyinstr(), string predicates, self->" generated "'tick 9'" -s s.d

# arguments 7 to 12 are on the stack (memory at %rsp + offset): read
# with bpf_probe_read_user(), for the record and for the plan, beside a
# probe with a string argument and one with plain registers
same "stack arguments, a string argument, three events" generated \
	"'tick 3' msg big big" \
	-n 'tr$target:::big { @s = sum(arg11 - arg6); @m = max(arg7 * arg0); }' \
	-n 'tr$target:::big /arg9 == 10/ { printf("%d %d\n", arg8, arg11); }' \
	-n 'tr$target:::msg { printf("%s %d\n", args[0], args[1]); }' \
	-n 'tr$target:::tick { @t = count(); }'
expect_eq "stack arguments: three programs" 1 \
	"$(grep -c '^dtrace: BPF: 3 generated programs, ' err1.txt)"

same "copyin(): the generic program" generic "'tick 3'" \
	-n 'tr$target:::tick { printf("%d\n", *(char *)copyin(arg1, 1)); }'

# nothing traced: no program, no map
rm -f out.txt
"$DTRACE" -v -q -o out.txt -n 'BEGIN { printf("b\n"); exit(0); }' \
	-n 'END { printf("e\n"); }' >/dev/null 2>err.txt
expect_eq "BEGIN and END: status" 0 "$?"
printf 'b\ne\n\n' >expected.txt
expect_file_eq "BEGIN and END: output" expected.txt out.txt
expect_eq "BEGIN and END: no program" 1 \
	"$(grep -c '^dtrace: BPF: no program loaded$' err.txt)"

finish
