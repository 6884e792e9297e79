/*
 * curpsinfo's fields a hit records, at real hits of triggers/tr-calls
 * (run by dtrace -c): pr_pid the target, pr_ppid dtrace itself (its
 * parent), pr_uid and pr_gid dtrace's (the child inherits them), and
 * pr_fname the program's name, as a string and through stringof().
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("%d %d %d %d %s %s\n", curpsinfo->pr_pid == $target,
	    curpsinfo->pr_ppid == $pid, curpsinfo->pr_uid == $uid,
	    curpsinfo->pr_gid == $gid, curpsinfo->pr_fname,
	    stringof(curpsinfo->pr_fname));
	@[curpsinfo->pr_fname, curpsinfo->pr_pid == pid] = count();
}
