/*
 * curpsinfo->pr_euid and pr_egid are the firing thread's effective ids
 * at the hit, uid and gid its real ones: triggers/tr-cred fires
 * tr_cred(0) with dtrace's ids (root), then sets its real ids to 65534
 * and 65533 and its effective ones to 65531 and 65532, and fires
 * tr_cred(1).  At BEGIN they are dtrace's own.
 */
#pragma D option quiet

BEGIN
{
	printf("B %d %d\n", curpsinfo->pr_euid == $euid,
	    curpsinfo->pr_egid == $egid);
}

pid$target:a.out:tr_cred:entry
/arg0 == 0/
{
	printf("0 %d %d\n", curpsinfo->pr_euid == $euid,
	    curpsinfo->pr_egid == $egid);
}

pid$target:a.out:tr_cred:entry
/arg0 == 1/
{
	printf("1 %d %d %d %d\n", uid, gid, curpsinfo->pr_euid,
	    curpsinfo->pr_egid);
}
