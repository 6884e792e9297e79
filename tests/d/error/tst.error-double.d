/* A fault in an ERROR clause does not fire ERROR again: it prints no
 * message of its own and is counted, reported as DTrace reports it. */
#pragma D option quiet

ERROR { printf("dropped: the clause faults\n"); x = 0; y = 1 / x; }
ERROR { printf("the next ERROR clause runs\n"); }

BEGIN { trace(copyinstr(8)); }
BEGIN { trace(copyinstr(8)); }
BEGIN { exit(0); }
