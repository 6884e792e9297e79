/* '*' takes the width or the precision from the next argument. */
#pragma D option quiet

BEGIN
{
	printf("[%*d]\n", 6, 42);
	printf("[%-*d]\n", 6, 42);
	printf("[%.*s]\n", 2, "abcdef");
	printf("[%*.*s]\n", 5, 2, "abcdef");
	exit(0);
}
