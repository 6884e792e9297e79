/* %s takes a string: an integer needs stringof(), as in DTrace. */
BEGIN
{
	printf("%s\n", 5);
}
