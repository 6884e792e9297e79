/* %lu takes an unsigned long: arg0, an int64_t, is refused as in DTrace. */
BEGIN
{
	printf("%lu\n", arg0);
	exit(0);
}
