/* Integer, character and string literals, C escapes, comments. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 0x1f, 017, 'A', '\n'); // a C++ comment
	printf("%s|\n", "a\tb\x41\101");	/* a C comment */
	printf("%d\n", 2147483647 + 1);
	printf("%d\n", 4294967296);
	exit(0);
}
