/*
 * stddev() is the population standard deviation, in integers as
 * DTrace computes it: of 2, 4, 4, 4, 5, 5, 7 and 9 (mean 5, the mean of
 * the squares 29) it is the square root of 29 - 25, 2.
 */
#pragma D option quiet

BEGIN
{
	@s = stddev(2);
	@s = stddev(4);
	@s = stddev(4);
	@s = stddev(4);
	@s = stddev(5);
	@s = stddev(5);
	@s = stddev(7);
	@s = stddev(9);
	exit(0);
}

END
{
	printa("%@d\n", @s);
}
