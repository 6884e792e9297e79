/* x is a scalar from its first use: x[1] = 2 after it is an error,
 * not a new associative array that shares its name. */
BEGIN
{
	x = 1;
	x[1] = 2;
}
