/* Arithmetic on a string. */
BEGIN
{
	trace("a" + 1);
}
