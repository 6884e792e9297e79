/* An unknown printf() conversion. */
BEGIN
{
	printf("%v\n", 1);
}
