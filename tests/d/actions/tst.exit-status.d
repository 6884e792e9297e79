/* exit(N) is dtrace's exit status; the rest of the clause still runs,
 * later BEGIN clauses do not. */
#pragma D option quiet

BEGIN { exit(7); printf("after exit() in the same clause\n"); }
BEGIN { printf("a later BEGIN clause\n"); }
END { printf("END\n"); }
