/*
 * %c and %C print an int's low byte, as C's %c does, and take a value
 * cast to char, short or int, and one whose type the compiler cannot
 * tell (an undeclared variable's).
 */
#pragma D option quiet

BEGIN
{
	x = 0x142;
	printf("[%c|%c|%c|%C|%c]\n", (int)0x141, (short)0x4243, (char)arg0 + 68,
	    (char)10, x);
	exit(0);
}
