/* A run-time fault ends its clause for this firing only, and is
 * reported on standard error with the action it happened in. */
#pragma D option quiet

BEGIN { x = 0; }
BEGIN { printf("before\n"); y = 1 / x; printf("not reached\n"); }
BEGIN { printf("next clause\n"); exit(0); }
