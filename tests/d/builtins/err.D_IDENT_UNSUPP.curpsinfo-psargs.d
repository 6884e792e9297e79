/* pr_psargs is read from the process at the hit in DTrace: a hit here
 * does not record it. */
BEGIN { trace(curpsinfo->pr_psargs); }
