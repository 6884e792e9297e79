#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-aggfmt.sh: -x aggpack, -x agghist, -x aggzoom and -x encoding
# (dtrace-G/d/aggfmt.c) on a real process traced with real uprobes:
# tr:::tick fires 12 times and the aggregations it fills print in each
# layout exactly as expected.  With the bpf backend each run is made
# twice, aggregating in the kernel (DTRACE_KAGG=1: count, sum, quantize
# and lquantize clauses run there) and in user space (DTRACE_KAGG=0), so
# what the kernel kept goes through the same printer; without it, once
# on the uprobe-events backend.  Covered: packed quantize() by key and
# lquantize() in UTF-8 and in ASCII, llquantize() and count() unchanged
# by aggpack, agghist of count() and of a negative sum(), aggzoom of
# quantize(), lquantize(), llquantize() and of agghist's bars.
# Needs root and tracefs.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/trace

[ "$(id -u)" -eq 0 ] || skip "not root: uprobe_events needs root"
[ -n "${TRACE_PROGS:-}" ] || require_G
require_uprobe_events

DTRACE_STATEDIR=$tmp/nostate
export DTRACE_STATEDIR
modes=plain
if [ "${HAVE_BPF:-no}" = yes ]; then
	DTRACE_BACKEND=bpf
	export DTRACE_BACKEND
	modes="1 0"
fi

trace_progs_build

# tick 12 fires tr:::tick(i, word, -1000 * i) for i = 0..11.
cat >a.d <<'EOF'
tr$target:::tick
{
	@q[(int)(arg0 & 1)] = quantize(arg0 * 100);
	@l = lquantize(arg0, 0, 12, 3);
	@c[(int)(arg0 % 3)] = count();
}
tr$target:::tick
{
	@s[(int)(arg0 & 1)] = sum(arg0 < 8 ? arg0 : -arg0);
}
tr$target:::tick /arg0 > 2/
{
	@ll = llquantize(arg0 * 10, 10, 0, 2, 10);
}
EOF

# run WHAT DTRACE-ARGS...: dtrace -q -s a.d on ./trprog 'tick 12' in
# each mode; the output must equal expected.txt
run() {
	what=$1
	shift
	for k in $modes; do
		rm -f out.txt
		DTRACE_KAGG=$k timeout -s KILL 120 "$DTRACE" -q -o out.txt \
			"$@" -s a.d -c "./trprog 'tick 12'" >/dev/null 2>err.txt
		expect_eq "$what ($k): status" 0 "$?"
		[ -f out.txt ] || : >out.txt
		expect_file_eq "$what ($k)" expected.txt out.txt
		expect_eq "$what ($k): no drops" "" "$(grep -i drop err.txt)"
	done
}

# aggpack: quantize() over one range of buckets for both keys (zero's
# bucket the lowest, so none below it), lquantize() over all its
# buckets, in UTF-8 blocks; count() and sum() as usual; llquantize()
# in its usual layout, its bars in eighths of a column (encoding=utf8)
cat >expected.txt <<'EOF'


      key  min .-------------. max  | count
        0    0 :▂       ▂▂▅  : 2048 | 6
        1    0 :       ▂ ▃▃▂ : 2048 | 6

     min .------. max      | count
     < 0 : ▃▃▃▃ : >= 12    | 12
        0                4
        1                4
        2                4
        0               -6
        1               -4

           value  ------------- Distribution ------------- count    
              20 |                                         0        
              30 |████▍                                    1        
              40 |████▍                                    1        
              50 |████▍                                    1        
              60 |████▍                                    1        
              70 |████▍                                    1        
              80 |████▍                                    1        
              90 |████▍                                    1        
             100 |████████▉                                2        
             200 |                                         0        

EOF
run "aggpack, encoding=utf8" -x aggpack -x encoding=utf8

# agghist: count() by key, the negative sums left of the line; the
# distributions as usual
cat >expected.txt <<'EOF'

        0
           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@@@@                                  1        
               1 |                                         0        
               2 |                                         0        
               4 |                                         0        
               8 |                                         0        
              16 |                                         0        
              32 |                                         0        
              64 |                                         0        
             128 |@@@@@@@                                  1        
             256 |@@@@@@@                                  1        
             512 |@@@@@@@@@@@@@@@@@@@@                     3        
            1024 |                                         0        

        1
           value  ------------- Distribution ------------- count    
              32 |                                         0        
              64 |@@@@@@@                                  1        
             128 |                                         0        
             256 |@@@@@@@@@@@@@                            2        
             512 |@@@@@@@@@@@@@                            2        
            1024 |@@@@@@@                                  1        
            2048 |                                         0        


           value  ------------- Distribution ------------- count    
             < 0 |                                         0        
               0 |@@@@@@@@@@                               3        
               3 |@@@@@@@@@@                               3        
               6 |@@@@@@@@@@                               3        
               9 |@@@@@@@@@@                               3        
           >= 12 |                                         0        


      key  ------------- Distribution ------------- count    
        0 |@@@@@@@@@@@@@                            4        
        1 |@@@@@@@@@@@@@                            4        
        2 |@@@@@@@@@@@@@                            4        

      key  ------------- Distribution ------------- count    
        0                 @@@@@@@@@@@@@@@@@@@@@@@@| -6       
        1                         @@@@@@@@@@@@@@@@| -4       

           value  ------------- Distribution ------------- count    
              20 |                                         0        
              30 |@@@@                                     1        
              40 |@@@@                                     1        
              50 |@@@@                                     1        
              60 |@@@@                                     1        
              70 |@@@@                                     1        
              80 |@@@@                                     1        
              90 |@@@@                                     1        
             100 |@@@@@@@@@                                2        
             200 |                                         0        

EOF
run agghist -x agghist

# aggzoom: the largest bar of each distribution 38 of 40
cat >expected.txt <<'EOF'

        0
           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@@@@@@@@@@                            1        
               1 |                                         0        
               2 |                                         0        
               4 |                                         0        
               8 |                                         0        
              16 |                                         0        
              32 |                                         0        
              64 |                                         0        
             128 |@@@@@@@@@@@@@                            1        
             256 |@@@@@@@@@@@@@                            1        
             512 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   3        
            1024 |                                         0        

        1
           value  ------------- Distribution ------------- count    
              32 |                                         0        
              64 |@@@@@@@@@@@@@@@@@@@                      1        
             128 |                                         0        
             256 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   2        
             512 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   2        
            1024 |@@@@@@@@@@@@@@@@@@@                      1        
            2048 |                                         0        


           value  ------------- Distribution ------------- count    
             < 0 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   3        
               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   3        
               6 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   3        
               9 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   3        
           >= 12 |                                         0        

        0                4
        1                4
        2                4
        0               -6
        1               -4

           value  ------------- Distribution ------------- count    
              20 |                                         0        
              30 |@@@@@@@@@@@@@@@@@@@                      1        
              40 |@@@@@@@@@@@@@@@@@@@                      1        
              50 |@@@@@@@@@@@@@@@@@@@                      1        
              60 |@@@@@@@@@@@@@@@@@@@                      1        
              70 |@@@@@@@@@@@@@@@@@@@                      1        
              80 |@@@@@@@@@@@@@@@@@@@                      1        
              90 |@@@@@@@@@@@@@@@@@@@                      1        
             100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   2        
             200 |                                         0        

EOF
run aggzoom -x aggzoom

# all three, in ASCII: the largest bucket 'X'; agghist's totals
# truncated after the zoom as libdtrace's are (4 / 0.95 -> 4: a full bar)
cat >expected.txt <<'EOF'


      key  min .-------------. max  | count
        0    0 :x       xxX  : 2048 | 6
        1    0 :       x XXx : 2048 | 6

     min .------. max      | count
     < 0 : XXXX : >= 12    | 12

      key  ------------- Distribution ------------- count    
        0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 4        
        1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 4        
        2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 4        

      key  ------------- Distribution ------------- count    
        0 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -6       
        1              @@@@@@@@@@@@@@@@@@@@@@@@@@@| -4       

           value  ------------- Distribution ------------- count    
              20 |                                         0        
              30 |@@@@@@@@@@@@@@@@@@@                      1        
              40 |@@@@@@@@@@@@@@@@@@@                      1        
              50 |@@@@@@@@@@@@@@@@@@@                      1        
              60 |@@@@@@@@@@@@@@@@@@@                      1        
              70 |@@@@@@@@@@@@@@@@@@@                      1        
              80 |@@@@@@@@@@@@@@@@@@@                      1        
              90 |@@@@@@@@@@@@@@@@@@@                      1        
             100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   2        
             200 |                                         0        

EOF
run "aggpack, agghist, aggzoom, encoding=ascii" -x aggpack -x agghist \
	-x aggzoom -x encoding=ascii

finish
