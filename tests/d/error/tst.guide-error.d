/*
 * The Dynamic Tracing Guide's ERROR probe example (error.d), with exit()
 * added so that it ends: the ERROR clause runs and dtrace still prints
 * its own message for the fault ("dtrace has its own enabling of the
 * ERROR probe to allow it to report errors"): an ERROR clause does not
 * silence it.  The Guide's "at DIF offset 12" has no counterpart here:
 * this evaluator runs no DIF.
 */
BEGIN
{
	*(char *)NULL;
}

ERROR
{
	printf("Hit an error!");
	exit(0);
}
