/*
 * curpsinfo->pr_pgid and pr_sid are the firing process's process group
 * and session at the hit: triggers/tr-cred fires tr_cred(0) in dtrace's
 * (dtrace -c leaves them to it), then calls setsid(), leading a new
 * session and process group of its own pid, and fires tr_cred(1).  At
 * BEGIN they are dtrace's own.
 */
#pragma D option quiet

BEGIN
{
	printf("B %d %d\n", curpsinfo->pr_pgid == $pgid,
	    curpsinfo->pr_sid == $sid);
}

pid$target:a.out:tr_cred:entry
/arg0 == 0/
{
	printf("0 %d %d\n", curpsinfo->pr_pgid == $pgid,
	    curpsinfo->pr_sid == $sid);
}

pid$target:a.out:tr_cred:entry
/arg0 == 1/
{
	printf("1 %d %d %d\n", curpsinfo->pr_pgid == pid,
	    curpsinfo->pr_sid == pid, curpsinfo->pr_sid == $sid);
}
