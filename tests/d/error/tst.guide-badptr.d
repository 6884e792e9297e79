/*
 * The Dynamic Tracing Guide's badptr.d ("Pointer Safety"): a NULL
 * pointer dereferenced faults in its action (#2, the load), the fault
 * is reported and the clause ends (its trace() never runs), and the
 * probe's other clause goes on (added here so that the run ends).  The
 * Guide's "at DIF offset 4" has no counterpart: no DIF runs here.
 */
BEGIN
{
	x = (int *)NULL;
	y = *x;
	trace(y);
}

BEGIN
{
	exit(0);
}
