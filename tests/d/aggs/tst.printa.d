/* printa() prints an aggregation now, by format (%@d for the value) or
 * in the default layout; a printed aggregation is not printed again at
 * the end, an unprinted one is. */
#pragma D option quiet

BEGIN
{
	@c["x"] = count();
	@c["y"] = count();
	@c["y"] = count();
	@s["z"] = sum(3);
	printa("key %s has %@d\n", @c);
	printa(@s);
	@other = count();
	exit(0);
}
