#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-dfuzz.sh - the D differential fuzzer's short round in make check,
# and the programs it found that dtrace refused to run:
#  1. A statement keyed by a format-time key (@[strjoin("a",
#     copyinstr(arg0))], kplan_fkey.c: the kernel keys by the copy) in a
#     clause beside a self-> variable the kernel keeps: the plan keyed by
#     the copy as kaggs_s does (SKEY), which the generator refuses where
#     self-> is kept, so the whole run failed ("no program generated for
#     uprobe event ..., whose clauses keep self-> variables in the
#     kernel"); the key is an argument's string of kaggs_v now (AKEY, a
#     fault site), and the clause the kernel's.
#  2. The same with a ?: key of a copy and a literal (SMKEY), which has
#     no fault site: where self-> is kept, such a clause is user
#     space's.
#  3. stddev() keyed by a short pair (kaggs_x): wrong keys and values,
#     the output different from DTRACE_KAGG=0's.
#  4. exit() at dfz$target beside a dfz* clause, the target forking
#     (dfz 23 fork): the exit test, compiled from the parent's clauses
#     into the event's program, ran at the child's hits too, so the
#     child's hit with arg2 == 255 won an exit its probe does not have,
#     and every later hit was dropped (the parent's exit round among
#     them: @n[1] 11, not 12; sites.c's exit_scope()).
#  5. A key that faults (self->b[copyinstr(arg0)] at a NULL arg0, as
#     seed 5007 of the fuzzer's second generator stores one): run.c's
#     dyn_key() had begun the key's buffer before it evaluated the
#     keys, and the fault's unwind lost it, which LeakSanitizer reports
#     (a failed run under make check's sanitizer build; the same output
#     otherwise).
#  6. DFUZZ_COUNT (20) programs of fuzz/dfuzz/dfuzz.py from seed 5000,
#     each run with its clauses compiled to BPF and with dtrace's own
#     interpreter (DTRACE_KAGG=0), every output alike (make fuzz-d
#     runs more); and DFUZZ_UCOUNT (8) from seed 300000 run under -x
#     activation=user against the interpreter (seed 300001 differed
#     until the in-process and kernel paths kept one copy of self->).
# Each of 1 to 4 fails on the tree before (1 and 2: the run's status 1),
# and 5 under the sanitizers (each run's status 1).
# About 20 s idle.
# Needs root, uprobes, a dtrace with the BPF backend (HAVE_BPF), and
# python3 for 6.

. "$top_srcdir/tests/lib.sh"

bpf_test_setup usdt
here=$top_srcdir/fuzz/dfuzz
"$DTRACE" -h -s "$here/dfz.d" -o dfz.h &&
	$CC -O2 -I. -c "$here/dfz.c" -o dfz.o &&
	"$DTRACE" -G -s "$here/dfz.d" -o dfz-p.o dfz.o &&
	$CC dfz.o dfz-p.o -o dfz || {
	fail "cannot build the fuzzer's target"
	finish
}

# three WHAT KERNEL SCRIPT: SCRIPT on ./dfz three ways (./dfz 23
# $DFZ_MODE), each run's status 0 and the outputs alike; -v of the
# generated programs says KERNEL clauses aggregated (or printing, where
# DFZ_KWHAT says so) in the kernel
three() {
	printf '%s\n' "$3" >t.d
	ways_start 120 -v -q -s t.d -c "./dfz 23${DFZ_MODE:+ $DFZ_MODE}"
	ways_wait "$1"
	ways_same "$1"
	expect_grep "$1: clauses in the kernel" \
		"^dtrace: $2 clauses* ${DFZ_KWHAT:-aggregated} in the kernel\$" \
		errg.txt
}

three "format-time key beside self->" 1 \
	'dfz$target:::strs { @[strjoin("a", copyinstr(arg0))] = count();
	self->s = "x"; }
dfz$target:::strs { trace(self->a[3]); }
dfz$target:::ints { self->a[2] = 1; }'

three "?: key beside self->" 1 \
	'dfz$target:::mix { @[arg0 > 1 ? copyinstr(arg1) : "ABC"] = count();
	self->x = arg2; }
dfz$target:::ints /self->x/ { @n = count(); }
dfz$target:::mix { @m[arg0] = count(); }'

# stddev() keyed by a pair of kaggs_v strings (a literal or execname
# beside a string variable, or beside copyinstr() where self-> is kept:
# AKEY): its two buckets are two updates of one key, and the first
# rewrote the key in place into kaggs_x's short layout (cgen_agg.c's
# short_pair()), so the second hashed that as a kaggs_v key: entries
# with garbage keys and deviations (18446744073709551615 for 8).
three "stddev() of a short pair" 2 \
	'dfz$target:::strs { this->s = strjoin(copyinstr(arg1), ".");
	@a["x", this->s] = stddev(arg2); }
dfz$target:::strs { self->x = 1; @b["hello", copyinstr(arg1)] = stddev(arg2);
	@c[execname, copyinstr(arg1)] = stddev(arg2 * 3); }'

# exit() of the -c process's probe, at a site its forked child fires:
# the child's hits are not tested (sites.c's exit_scope()), the parent's
# exit round counted, the child's four hits before it printed
DFZ_MODE=fork DFZ_KWHAT="printing values computed" three \
	"exit() at \$target, a child at dfz*" 1 \
	'dfz*:::mix { @n[pid == $target] = count();
	printf("%d %d\n", pid == $target, arg2); }
dfz$target:::mix /arg2 == 255/ { exit(0); }'
printf '\n        0                4\n        1               12\n' \
	>fexit.exp
tail -n 3 outg.txt >fexit.g
expect_file_eq "exit() at \$target: the counts" fexit.exp fexit.g
expect_eq "exit() at \$target: the child's four hits printed" 4 \
	"$(grep -c '^0 ' outg.txt)"

# keys that fault, stored and read, thread-local and global (user
# space's: a copy as a key), beside a count the kernel keeps
three "a key that faults" 1 \
	'dfz$target:::strs { self->b[copyinstr(arg0)] = arg2 + 1;
	g[copyinstr(arg0), 1] = arg2; }
dfz$target:::strs { trace(self->b[copyinstr(arg0)]); trace(g[copyinstr(arg0), 1]); }
dfz$target:::strs { @n = count(); }'
expect_eq "a key that faults: the faults said" 4 \
	"$(grep -c 'invalid address (0x0)' errg.txt)"

if command -v python3 >/dev/null 2>&1; then
	python3 "$here/dfuzz.py" --dtrace "$DTRACE" --target . \
		--keep keep --seed 5000 --count "${DFUZZ_COUNT:-20}" >fz.txt 2>&1
	expect_eq "the fuzzer's programs: status" 0 "$?"
	expect_grep "the fuzzer's programs: none differs" \
		"^dfuzz: .* 0 differ" fz.txt
	cat fz.txt >&2
	# ... and DFUZZ_UCOUNT (8) from seed 300000 with the first run under
	# -x activation=user (300001: a self-> stored at a probe the kernel
	# path took, read 0 at the in-process ones; 0 differ since)
	python3 "$here/dfuzz.py" --dtrace "$DTRACE" --target . \
		--keep keepu --seed 300000 --count "${DFUZZ_UCOUNT:-8}" \
		--activation user >fzu.txt 2>&1
	expect_eq "the fuzzer's programs, activation=user: status" 0 "$?"
	expect_grep "the fuzzer's programs, activation=user: none differs" \
		"^dfuzz: .* 0 differ" fzu.txt
	cat fzu.txt >&2
else
	echo "# no python3: the fuzzer's programs are not run" >&2
fi
finish
