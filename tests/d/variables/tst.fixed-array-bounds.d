/*
 * An index a run-time value puts outside a fixed-size array (a[i], i
 * 5 or -1 for int a[5]) is the "invalid address" fault, as DTrace's: the
 * clause ends there (its record dropped), ERROR fires with
 * DTRACEFLT_BADADDR in arg4, the array keeps what it held, and the
 * firing's next clause goes on; the same with a neighbouring variable,
 * whose bytes an index past the end never reaches.
 */
#pragma D option quiet

int a[5];
int b[5];
int n;

BEGIN
{
	a[4] = 4;
	b[0] = 100;
	i = 5;
	printf("not printed\n");
	a[i] = 1;
}

BEGIN
{
	j = -1;
	trace(b[j]);
}

BEGIN
{
	printf("a[4] %d b[0] %d errors %d\n", a[4], b[0], n);
	exit(0);
}

ERROR
{
	n++;
	printf("ERROR %d\n", arg4);
}
