/* The aggregations of one printa( ) have the same number of keys. */
BEGIN
{
	@a[1] = count();
	@b[1, 2] = count();
	printa(@a, @b);
}
