/*
 * %@c takes a char, short or int, and an aggregation's value is 64 bits
 * (sum()'s int64_t): refused, as DTrace's pfcheck_csi() refuses it.
 */
BEGIN
{
	@ = sum(65);
	printa("[%@c]\n", @);
	exit(0);
}
