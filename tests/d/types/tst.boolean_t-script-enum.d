/*
 * The kernel's B_FALSE and B_TRUE are found only where the script does
 * not define the names: its own enumerators and inlines come first, as
 * DTrace looks in the script's definitions before the kernel's types.
 */
#pragma D option quiet

enum flags { B_FALSE = 7, B_TRUE };
inline int ON = B_TRUE;

BEGIN
{
	printf("%d %d %d\n", B_FALSE, B_TRUE, ON);
	exit(0);
}
