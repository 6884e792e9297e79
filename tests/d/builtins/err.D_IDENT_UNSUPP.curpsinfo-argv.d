/* curpsinfo's fields a hit does not record are refused with the
 * reason: pr_argv (DTrace reads the process's argv pointer array) */
BEGIN
{
	trace(curpsinfo->pr_argv);
}
