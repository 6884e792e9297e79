/* sum() and avg() (integer average, truncated as DTrace does). */
#pragma D option quiet

BEGIN
{
	@s = sum(10);
	@s = sum(-3);
	@a = avg(1);
	@a = avg(2);
	@k[1] = sum(100);
	@k[2] = sum(5);
	exit(0);
}
