/*
 * pr_psargs holds at most 79 bytes (DTrace's char[PRARGSZ], 80 with
 * its NUL): triggers/tr-calls with arguments longer than that gives
 * the first 79, the program's path first.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
/arg0 == 0/
{
	printf("%d %d\n", strlen(curpsinfo->pr_psargs),
	    index(curpsinfo->pr_psargs, "/tr-calls 1 0123456789") > 0);
}
