/* %hd takes a short: an int is refused, never printed as the int it is. */
BEGIN
{
	printf("%hd\n", 70000);
	exit(0);
}
