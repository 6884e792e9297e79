/* An integer scalar read with [ ] is not an associative array. */
BEGIN
{
	x = 1;
	trace(x[0]);
}
