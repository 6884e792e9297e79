/*
 * -x aggpack: quantize() and lquantize() one line per key (llquantize()
 * and count() as usual), in UTF-8 blocks; then, by setopt(), aggzoom.
 */
#pragma D option quiet
#pragma D option aggpack
#pragma D option encoding=utf8

BEGIN
{
	@q["read"] = quantize(3);
	@q["read"] = quantize(40, 6);
	@q["write"] = quantize(1000, 2);
	@q["write"] = quantize(0);
	@l[1] = lquantize(3, 0, 8, 1, 5);
	@l[1] = lquantize(9, 0, 8, 1);
	@l[2] = lquantize(-4, 0, 8, 1, 2);
	@ll = llquantize(42, 10, 0, 2, 10);
	@c["k"] = count();
	printa(@l);
	setopt("aggzoom");
	printa(@l);
	setopt("aggzoom", "off");
	exit(0);
}
