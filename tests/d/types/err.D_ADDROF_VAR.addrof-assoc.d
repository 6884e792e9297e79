/*
 * The Dynamic Tracing Guide's "Pointers to DTrace Objects": an
 * associative array's element is a DTrace object, with no address.
 */
BEGIN
{
	a["x"] = 1;
	trace((long)&a["x"]);
}
