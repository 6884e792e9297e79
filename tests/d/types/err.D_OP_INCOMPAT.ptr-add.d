/* Two pointers are not added (C's rule, and DTrace's). */
int *x;
int *y;

BEGIN
{
	trace(x + y);
}
