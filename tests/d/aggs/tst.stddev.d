/* stddev(): the integer square root of the truncated average of the
 * squares less the square of the truncated average (magnitudes: a
 * negative value squares as its absolute value); sorted by that value;
 * %@d prints it too, and normalize() divides the values before it. */
#pragma D option quiet

BEGIN
{
	@sd["four"] = stddev(1);
	@sd["four"] = stddev(2);
	@sd["four"] = stddev(3);
	@sd["four"] = stddev(10);
	@sd["pair"] = stddev(-5);
	@sd["pair"] = stddev(5);
	@sd["one"] = stddev(1000);
	@sd["big"] = stddev(4000000000);
	@sd["big"] = stddev(-4000000000);
	@sd["big"] = stddev(0);
	printa(@sd);
	printa("%s=%@d\n", @sd);
	@n = stddev(100);
	@n = stddev(300);
	normalize(@n, 10);
	printa("normalized %@d\n", @n);
	exit(0);
}
