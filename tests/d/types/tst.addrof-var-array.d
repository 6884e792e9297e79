/*
 * The Dynamic Tracing Guide's pointer example: &a[i] of a global array
 * variable is a pointer into its storage, so y - x is 2; *x, x[1] and
 * y[2] read and write the variable (a store through the pointer is what
 * a[i] reads next, in a later clause too), and pointers into it compare
 * as addresses.  (Was: D_IDENT_UNSUPP, the variable held by value.)
 */
int *x, *y;
int a[5];

BEGIN
{
	x = &a[0];
	y = &a[2];
	trace(y - x);
}

BEGIN
{
	*x = 7;
	x[1] = 8;
	y[2] = 9;
	a[3] = 4;
	printf("\n%d %d %d %d %d %d %d\n", a[0], a[1], a[2], a[3], a[4], *x,
	       y[1]);
	printf("%d %d %d %d\n", x < y, x == &a[0], y != x, *y == a[2]);
	exit(0);
}
