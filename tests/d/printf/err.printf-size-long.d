/* %ld takes a long: an int is refused. */
BEGIN
{
	printf("%d %ld\n", 1, 2);
	exit(0);
}
