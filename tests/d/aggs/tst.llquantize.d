/* llquantize(value, factor, low, high, steps): a bucket below
 * factor^low, per order of magnitude up to high the steps that order
 * adds (width factor^(m+1) / steps, or 1 while that is below 1), and a
 * bucket for factor^(high+1) and above; rows from the one before the
 * first count to the one after the last; an increment as the sixth
 * argument; %@ prints the distribution in a format. */
#pragma D option quiet

BEGIN
{
	@ten = llquantize(0, 10, 0, 2, 10);
	@ten = llquantize(7, 10, 0, 2, 10);
	@ten = llquantize(45, 10, 0, 2, 10);
	@ten = llquantize(45, 10, 0, 2, 10);
	@ten = llquantize(999, 10, 0, 2, 10);
	@ten = llquantize(1000, 10, 0, 2, 10);
	@ten = llquantize(-3, 10, 0, 2, 10);

	/* factor 2, steps 4: widths 1, 1, 2, 4 */
	@two = llquantize(3, 2, 1, 4, 4, 5);
	@two = llquantize(6, 2, 1, 4, 4);
	@two = llquantize(7, 2, 1, 4, 4);
	@two = llquantize(13, 2, 1, 4, 4, 2);

	/* only the middle: rows around it, no end rows */
	@mid["k"] = llquantize(250, 10, 1, 3, 20);

	/* nothing counted: the first two rows */
	@none = llquantize(0, 10, 1, 3, 10, 0);
	exit(0);
}

END
{
	printa("mid %s:%@d\n", @mid);
}
