/*
 * The same fault without an ERROR clause: the same message from dtrace's
 * own enabling of ERROR, the clause ends, the probe's next clause runs,
 * and ERROR is no probe the script matched.
 */
BEGIN
{
	*(char *)NULL;
}

BEGIN
{
	exit(0);
}
