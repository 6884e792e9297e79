/* Without quiet, a clause that records prints DTrace's default line
 * (CPU, ID, FUNCTION:NAME) under a header, then trace()'s fields by
 * size.  A clause that only assigns records nothing. */

BEGIN { x = 1; }
BEGIN { trace(42); trace((int64_t)42); trace("str"); }
BEGIN { exit(0); }
