/*
 * -x aggzoom: the largest bar of each distribution 38 of 40 '@'; with
 * agghist, of each aggregation.
 */
#pragma D option quiet
#pragma D option aggzoom

BEGIN
{
	@q = quantize(1);
	@q = quantize(5, 3);
	@q = quantize(100, 9);
	@l = lquantize(15, 10, 20, 5, 2);
	@l = lquantize(10, 10, 20, 5, 5);
	@ll = llquantize(3, 2, 0, 3, 4);
	@ll = llquantize(12, 2, 0, 3, 4, 3);
	printa(@q);
	printa(@l);
	printa(@ll);
	setopt("agghist");
	@s["a"] = sum(100);
	@s["b"] = sum(20);
	exit(0);
}
