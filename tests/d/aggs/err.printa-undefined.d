/* printa() of an aggregation never defined. */
BEGIN
{
	printa(@nothere);
}
