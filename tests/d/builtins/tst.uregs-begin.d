/*
 * BEGIN fires in no traced thread: uregs[] there has no registers to
 * read and is an illegal operation, as is a computed index of a
 * register a hit does not record (R_RFL) or of none.
 */
#pragma D option quiet

ERROR
{
	printf("fault %d\n", arg4);
}

BEGIN { trace(uregs[R_PC]); }
BEGIN { i = R_RFL; trace(uregs[i]); }
BEGIN { i = 26; trace(uregs[i]); }
BEGIN { exit(0); }
