/* Global variables keep their values across clauses; compound
 * assignment and ++/-- as in C. */
#pragma D option quiet

BEGIN { n = 10; s = "str"; }
BEGIN { n += 5; n *= 2; n -= 1; n++; ++n; n--; }
BEGIN { printf("n=%d s=%s\n", n, s); }
BEGIN { x = n++; y = ++n; printf("x=%d y=%d n=%d\n", x, y, n); }
BEGIN { exit(0); }
