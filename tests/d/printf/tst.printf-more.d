/* printf: widths and precisions from arguments (a negative width
 * left-justifies), %p (hex, no 0x), %c, %a and %A of an address no
 * symbol covers (its hex value), %s of an integer through stringof(). */
#pragma D option quiet

BEGIN
{
	printf("[%*s] [%-*d] [%.*s] [%*d]\n", 6, "ab", 5, 42, 3, "abcdef",
	    -4, 7);
	printf("[%p] [%c%c] [%a] [%A]\n", 0x7f001234, 'o', 107, 0x1000,
	    0x2000);
	printf("[%s] [%5s]\n", stringof(1234), stringof(-5));
	exit(0);
}
