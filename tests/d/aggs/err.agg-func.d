/* Aggregations take aggregating functions only. */
BEGIN
{
	@a = strlen("x");
}
