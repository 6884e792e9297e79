/*
 * BEGIN fires in dtrace itself: curpsinfo is dtrace's, so pr_psargs
 * holds the -s option and this script's name (as tests/run-d.sh runs
 * it).
 */
#pragma D option quiet

BEGIN
{
	printf("%d\n", strstr(curpsinfo->pr_psargs, "-s tst.psargs-begin.d") !=
	    NULL);
	exit(0);
}
