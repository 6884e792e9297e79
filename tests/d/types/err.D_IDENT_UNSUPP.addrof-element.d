/*
 * An element of a D array variable (int a[5];): DTrace would give an
 * address in its own storage; here the variable is held by value in
 * dtrace, so & refuses it and says why (was: "the unary & operator is
 * not supported").
 */
int a[5];

BEGIN
{
	x = &a[0];
}
