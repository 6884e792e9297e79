/*
 * In C, int *x, y; makes y an int: each declarator has its own '*'.
 * One type per declaration here, so a declarator with another count of
 * '*'s than the first is refused, naming it (y was an int * before).
 */
int *x, y;

BEGIN
{
	exit(0);
}
