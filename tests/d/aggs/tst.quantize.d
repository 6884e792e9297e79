/* quantize(): power-of-two buckets, printed from one bucket below the
 * lowest used to one above the highest. */
#pragma D option quiet

BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(3);
	@q = quantize(3);
	@q = quantize(100);
	@q = quantize(-1);
	exit(0);
}
