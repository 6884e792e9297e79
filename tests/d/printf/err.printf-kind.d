/* A string argument for %d. */
BEGIN
{
	printf("%d\n", "str");
}
