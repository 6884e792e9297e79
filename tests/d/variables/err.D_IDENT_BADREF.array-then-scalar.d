/* x is an associative array from its first use: x = 1 after it is an
 * error. */
BEGIN
{
	x[1] = 2;
	x = 1;
}
