/* A width from an argument is an integer. */
BEGIN
{
	printf("%*d\n", "6", 42);
}
