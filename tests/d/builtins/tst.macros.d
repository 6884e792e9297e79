/* $ppid, $pgid, $sid, $uid, $gid, $euid, $egid and $cwd are dtrace's
 * own, as DTrace defines them: BEGIN fires in dtrace, so its builtins
 * agree; the runner starts dtrace in this folder. */
#pragma D option quiet

BEGIN
{
	printf("ppid %d uid %d gid %d\n", $ppid == ppid, $uid == uid,
	    $gid == gid);
	printf("pgid %d sid %d euid %d egid %d\n", $pgid > 0, $sid > 0,
	    $euid >= 0, $egid >= 0);
	printf("cwd %s\n", basename($cwd));
	exit(0);
}
