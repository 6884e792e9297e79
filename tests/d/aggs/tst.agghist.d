/*
 * -x agghist: count(), sum() and avg() as bars over the total of their
 * keys (negative sums left of a centre line); min() and quantize() as
 * usual.
 */
#pragma D option quiet
#pragma D option agghist

BEGIN
{
	@c["open"] = count();
	@c["read"] = count();
	@c["read"] = count();
	@c["read"] = count();
	@c["write"] = count();
	@c["write"] = count();
	@s[(char)1, "a"] = sum(-30);
	@s[(char)2, "b"] = sum(10);
	@a = avg(7);
	@m["x"] = min(5);
	@q = quantize(2);
	exit(0);
}
