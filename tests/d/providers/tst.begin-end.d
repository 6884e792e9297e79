/* BEGIN clauses run in program order, exit() stops tracing, and END
 * clauses run after it, also in order. */
#pragma D option quiet

BEGIN { printf("begin 1\n"); }
BEGIN { printf("begin 2\n"); exit(0); }
END { printf("end 1\n"); }
END { printf("end 2\n"); }
