/*
 * timestamp is a uint64_t, as %llu takes; pid is an int, which %hd
 * does not: the error names conversion #2.
 */
BEGIN
{
	printf("%llu %hd\n", timestamp, pid);
	exit(0);
}
