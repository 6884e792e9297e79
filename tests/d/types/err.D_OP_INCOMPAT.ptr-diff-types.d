/*
 * q - p needs pointers to one type, as C and DTrace have it: the
 * elements between an int * and a long * are no number.
 */
int *x;
long *y;

BEGIN
{
	trace(y - x);
}
