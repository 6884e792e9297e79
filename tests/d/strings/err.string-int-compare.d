/* Only the null pointer constant compares with a string, not an int. */
BEGIN
{
	n = 1;
	printf("%d\n", "x" == n);
}
