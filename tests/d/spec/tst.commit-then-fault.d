/* A fault after a commit() in its clause: the commit() wrote the buffer
 * at its statement, so its records stay printed, then the fault is
 * reported (the clause's later statements do not run); the buffer is
 * free again. */
#pragma D option quiet

BEGIN
{
	s = speculation();
	zero = 0;
}

BEGIN
{
	speculate(s);
	printf("speculated, committed before the fault\n");
}

BEGIN
{
	commit(s);
	x = 1 / zero;
	never = 1;
}

BEGIN
{
	printf("after: never %d, a buffer again: %d\n", never, speculation());
	exit(0);
}
