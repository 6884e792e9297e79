/* The probe builtins in BEGIN and END: provider dtrace, empty module
 * and function. */
#pragma D option quiet

BEGIN
{
	printf("%s:%s:%s:%s id=%d\n", probeprov, probemod, probefunc,
	    probename, id);
	printf("pid matches: %d\n", pid == $pid);
	exit(0);
}
END { printf("%s:%s:%s:%s id=%d\n", probeprov, probemod, probefunc, probename, id); }
