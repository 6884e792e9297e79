/*
 * curpsinfo->pr_psargs: the process's arguments joined by blanks, as
 * DTrace's psinfo_t has them, read at the hit (the BPF backend copies
 * the process's argument area).  triggers/tr-calls runs as
 * "DIR/tr-calls 2 a  b" (an empty argument between a and b: two
 * blanks), so its basename() is the rest.  A string: it compares,
 * joins and keys an aggregation.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("[%s] %d\n", basename(curpsinfo->pr_psargs),
	    strstr(curpsinfo->pr_psargs, "/tr-calls 2 a  b") != NULL);
	@[basename(curpsinfo->pr_psargs)] = count();
}
