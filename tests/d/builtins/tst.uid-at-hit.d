/*
 * uid and gid are the firing thread's real ids at the hit (DTrace's
 * uid is the real one): triggers/tr-cred fires tr_cred(0) with dtrace's
 * ids (it runs as root), then sets its real ids to 65534 and 65533 (the
 * effective ones to others) and fires tr_cred(1).  curpsinfo->pr_uid
 * and pr_gid are the same.  (They were read once, when dtrace took up the process:
 * 0 at both hits.)
 */
#pragma D option quiet

pid$target:a.out:tr_cred:entry
/arg0 == 0/
{
	printf("0 %d %d\n", uid == $uid, gid == $gid);
}

pid$target:a.out:tr_cred:entry
/arg0 == 1/
{
	printf("1 %d %d %d %d\n", uid, gid, curpsinfo->pr_uid,
	    curpsinfo->pr_gid);
	@[uid, gid] = count();
}
