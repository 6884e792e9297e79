/* printa( ): one aggregation per %@ conversion. */
BEGIN
{
	@a = count();
	@b = sum(1);
	printa("%@d %@d %@d\n", @a, @b);
}
