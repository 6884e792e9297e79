#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-kagg-fn.sh: stddev() and llquantize() in the kernel (the generated
# programs': dtrace-G/consumer/kplan.c's "stddev() and llquantize()",
# cgen_agg.c's stddev_sq() and llq_bucket()) give byte for byte what
# user space gives (DTRACE_KAGG=0, ../dtrace-G/d/agg.c), on trprog's
# chosen values (trprog's vals: -3..1100, each power of 2, 3 and 10
# with values around it and around the bucket edges of its order,
# negated too, 0, LONG_MIN, LONG_MAX: squares up to 2^126, their sum
# past 2^128).  Each script runs three ways: user space alone
# (DTRACE_KAGG=0), the generated programs (which must say with -v that
# every clause ran in the kernel and read no record), and the generic
# program (DTRACE_CGEN=0, which keeps these clauses in user space: -v
# says none ran in the kernel).  Covered: stddev() without keys (kflat's
# two slots) and with (kaggs' buckets 0 and 1), llquantize() without
# and with keys, low magnitude 0 and above it, factors 2, 3 and 10 up to
# the largest high magnitude whose factor^(high+1) fits, a predicate;
# four threads on several CPUs (the per-CPU words merged with their
# carries); a small case against its exact expected text.
# Needs root, tracefs and a dtrace with the BPF backend (HAVE_BPF).

. "$top_srcdir/tests/lib.sh"

bpf_test_setup trace

# three WHAT NCLAUSES CMD DTRACE-ARGS...: dtrace -v -q on ./trprog CMD
# with DTRACE_KAGG=0 (run 0), generated programs (run g) and the generic
# program (run c); the outputs of g and c must equal run 0's, not empty;
# run g must say NCLAUSES clauses ran in the kernel and read no record
# (every clause is the kernel's), runs 0 and c none in the kernel.
# The three at once, each on its own process (-c) with its own files
# (run_mode's run and checks, the start apart from the wait).
three() {
	what=$1 ncl=$2 cmd=$3
	shift 3
	ways_start 300 -v -q "$@" -c "./trprog $cmd"
	ways_wait "$what"
	ways_same "$what"
	n=$(sed -n 's/^dtrace: \([0-9]*\) clauses* aggregated in the kernel$/\1/p' \
		errg.txt)
	expect_eq "$what: clauses run in the kernel, generated" "$ncl" "${n:-0}"
	expect_grep "$what: no record read" \
		'^dtrace: BPF: .* verified, 0 records read$' errg.txt
	expect_eq "$what: none in the kernel, generic or DTRACE_KAGG=0" "" \
		"$(grep 'in the kernel' err0.txt errc.txt)"
	expect_eq "$what: no drops" "" \
		"$(grep -i drop err0.txt errg.txt errc.txt)"
}

# vals: tr:::tick(i, "vals", V), i from 0 on
cat >edges.d <<'EOF2'
tr$target:::tick { @s = stddev(arg2); }
tr$target:::tick { @sk[arg0 % 3] = stddev(arg2); }
tr$target:::tick { @sn[arg0 & 1] = stddev(-arg2); }
tr$target:::tick { @l = llquantize(arg2, 10, 0, 6, 20); }
tr$target:::tick { @lk[arg0 & 1] = llquantize(arg2, 10, 3, 17, 100); }
tr$target:::tick { @l2 = llquantize(arg2, 2, 0, 61, 2); }
tr$target:::tick /arg0 > 1000/
{ @l3[arg0 % 5 == 0] = llquantize(arg2, 3, 1, 38, 9); }
tr$target:::tick { @l4 = llquantize(arg2, 4, 2, 30, 64); }
EOF2
three "edges" 8 vals -s edges.d

# threads T N: thread t fires tr:::tick(t, "thread", i), i = 0..N-1,
# on whichever CPUs; the squares past 64 bits on each
cat >threads.d <<'EOF2'
tr$target:::tick { @s = stddev(arg2 * 3037000499); }
tr$target:::tick { @sk[arg0] = stddev(arg2 * -3037000499 - 7); }
tr$target:::tick { @l[arg0 & 1] = llquantize(arg2 * 1000003, 10, 2, 12, 50); }
EOF2
three "threads" 3 "'threads 4 3000'" -s threads.d

# tick 4: arg2 0, -1000, -2000, -3000: mean -1500, stddev
# sqrt(3500000 - 2250000) = 1118 (agg.c's integer square root); -arg2
# 0 below 100, the others in buckets 1000, 2000, 3000 (factor 10, 10
# steps: order 3's width is 1000)
three "small" 2 "'tick 4'" -n 'tr$target:::tick { @s = stddev(arg2); }
tr$target:::tick { @l = llquantize(-arg2, 10, 2, 4, 10); }'
cat >expected.txt <<'EOF2'

             1118

           value  ------------- Distribution ------------- count    
           < 100 |@@@@@@@@@@                               1        
             100 |                                         0        
             200 |                                         0        
             300 |                                         0        
             400 |                                         0        
             500 |                                         0        
             600 |                                         0        
             700 |                                         0        
             800 |                                         0        
             900 |                                         0        
            1000 |@@@@@@@@@@                               1        
            2000 |@@@@@@@@@@                               1        
            3000 |@@@@@@@@@@                               1        
            4000 |                                         0        

EOF2
expect_file_eq "small: the expected text" expected.txt outg.txt

finish
