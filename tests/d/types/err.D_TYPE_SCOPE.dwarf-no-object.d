/*
 * A type scoped to an object the traced process does not map.
 */
BEGIN
{
	trace(sizeof (struct libnope.so.1`request));
}
