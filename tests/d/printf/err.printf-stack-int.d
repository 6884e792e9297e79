/* %k prints a stack (ustack()), not an integer. */
BEGIN
{
	printf("%k\n", 1);
}
