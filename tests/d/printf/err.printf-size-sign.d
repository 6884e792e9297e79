/* %hu takes an unsigned short: a short is refused. */
BEGIN
{
	printf("%hu\n", (short)1);
	exit(0);
}
