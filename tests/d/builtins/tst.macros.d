/* $ppid, $uid, $gid, $euid, $egid and $cwd are dtrace's own, as DTrace
 * defines them: BEGIN fires in dtrace, so its builtins agree; the runner
 * starts dtrace in this folder.  $pgid and $sid depend on how the runner
 * was started (a session of 0 under some CI runners), so
 * run-d-cmdline.sh compares them with /proc's values instead. */
#pragma D option quiet

BEGIN
{
	printf("ppid %d uid %d gid %d\n", $ppid == ppid, $uid == uid,
	    $gid == gid);
	printf("euid %d egid %d\n", $euid >= 0, $egid >= 0);
	printf("cwd %s\n", basename($cwd));
	exit(0);
}
