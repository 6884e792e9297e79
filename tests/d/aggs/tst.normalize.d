/* normalize(@, n) divides what is printed of an aggregation from then
 * on (count, sum, min and max as unsigned, avg signed, distributions'
 * counts but not their bars), never its order; denormalize(@) undoes it;
 * the printing at the end honours it too. */
#pragma D option quiet

BEGIN
{
	@c["a"] = count();
	@c["b"] = count();
	@c["b"] = count();
	@c["b"] = count();
	@s["a"] = sum(1000);
	@s["b"] = sum(2500);
	@avg["x"] = avg(-90);
	@avg["x"] = avg(-10);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(1);
	@l = lquantize(5, 0, 10, 5, 100);
	@l = lquantize(0, 0, 10, 5, 50);
	normalize(@c, 2);
	normalize(@s, 1000);
	normalize(@avg, 10);
	normalize(@q, 2);
	printa(@c);
	printa("%s %@d\n", @s);
	printa(@avg);
	printa(@q);
	denormalize(@q);
	printa(@q);
	normalize(@l, 25);
	exit(0);
}
