\ demo.fs - a minforth script: a few words calling each other, and
\ recursion.  `minforth demo.fs` runs it (see README.md).

: square ( n -- n*n )  dup * ;
: sum-of-squares ( a b -- a*a+b*b )  square swap square + ;
: fib ( n -- fib[n] )
	dup 2 < if exit then
	dup 1 - fib  swap 2 - fib + ;
: countdown ( n -- )  begin dup . 1 - dup 0 = until drop ;

." 3 squared is " 3 square . cr
." 3*3 + 4*4 is " 3 4 sum-of-squares . cr
." fib(10) is " 10 fib . cr
." countdown: " 3 countdown cr
