/* %hhx takes a char: a short is refused. */
BEGIN
{
	printf("%hhx\n", (short)-1);
	exit(0);
}
