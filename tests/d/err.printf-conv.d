/* An unknown printf() conversion. */
BEGIN
{
	printf("%k\n", 1);
}
