/*
 * curpsinfo's fields a hit records, at real hits of triggers/tr-calls
 * (run by dtrace -c): pr_pid the target, pr_ppid dtrace itself (its
 * parent), and pr_fname the program's name, as a string and through
 * stringof(), with any backend.  (pr_uid and pr_gid, which only the BPF
 * backend takes at the hit: tst.uid-at-hit.d.)
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("%d %d %s %s\n", curpsinfo->pr_pid == $target,
	    curpsinfo->pr_ppid == $pid, curpsinfo->pr_fname,
	    stringof(curpsinfo->pr_fname));
	@[curpsinfo->pr_fname, curpsinfo->pr_pid == pid] = count();
}
