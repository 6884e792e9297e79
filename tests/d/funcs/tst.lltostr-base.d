/* A base outside 2..36 is a run-time illegal operation, as in DTrace. */
#pragma D option quiet

BEGIN { printf("%s\n", lltostr(10, 1)); }
BEGIN { printf("%d\n", strtoll("10", 37)); }
BEGIN { printf("next clause\n"); exit(0); }
