/*
 * The Dynamic Tracing Guide's "Pointers to DTrace Objects" (Pointers
 * and Arrays): the D compiler prohibits the & operator on DTrace's own
 * objects, its variables among them (was a bare syntax error near "&").
 */
BEGIN
{
	x = 1;
	trace(&x);
}
