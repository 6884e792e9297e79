/* A conversion without its argument. */
BEGIN
{
	printf("%d %d\n", 1);
}
