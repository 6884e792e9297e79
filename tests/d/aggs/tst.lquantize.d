/* lquantize(value, low, high, step): linear buckets, with one below the
 * range and one above it. */
#pragma D option quiet

BEGIN
{
	@l = lquantize(-3, 0, 50, 10);
	@l = lquantize(0, 0, 50, 10);
	@l = lquantize(15, 0, 50, 10);
	@l = lquantize(19, 0, 50, 10);
	@l = lquantize(25, 0, 50, 10);
	@l = lquantize(70, 0, 50, 10);
	exit(0);
}
