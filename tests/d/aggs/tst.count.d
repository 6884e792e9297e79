/* count(), with and without keys; aggregations print when tracing
 * stops, entries sorted by value, in the order the program names them. */
#pragma D option quiet

BEGIN
{
	@total = count();
	@total = count();
	@bykey["b"] = count();
	@bykey["a"] = count();
	@bykey["a"] = count();
	@bykey["c"] = count();
	@bykey["c"] = count();
	@bykey["c"] = count();
	exit(0);
}
