/* An undeclared variable's type is not known before it runs: refused. */
BEGIN
{
	x = 1;
	printf("%hx\n", x);
	exit(0);
}
